/*
 * exact.h -- sums of doubles that come out the same however they are
 * grouped: each term is turned into a 128-bit fixed-point integer (value x
 * 2^scale, truncated toward zero) and integers add exactly, in any order.
 *
 * Why: a forest's choices out of bag (fit/leaf_choice.h) add every tree's
 * answer for a row. Trees grown in shards, on a cluster or in the other
 * language add their parts separately; floating-point sums of the parts
 * would differ from the whole's in the last bits, and a choice on a near
 * tie could then differ too. Integer sums do not. With |term| x 2^scale
 * below 2^96, 2^30 terms still fit; a term keeps its 53 significant bits
 * while |term| x 2^scale >= 2^53 (every term of size above 2^-43 of the
 * largest), finer than any difference a choice looks at.
 *
 * Header-only (static inline), no state: thread-safe.
 */
#ifndef SPORF_EXACT_H
#define SPORF_EXACT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* A 128-bit two's complement integer: lo the low 64 bits, hi the high. */
typedef struct sporf_exact {
    uint64_t lo, hi;
} sporf_exact;

/* The largest shift a term may take: mantissas of 53 bits stay below 2^126. */
#define SPORF_EXACT_MAX_SHIFT 73

static inline void sporf_exact_add(sporf_exact *a, sporf_exact b)
{
    const uint64_t lo = a->lo + b.lo;
    a->hi += b.hi + (uint64_t)(lo < a->lo);
    a->lo = lo;
}

/* mant x 2^s truncated toward zero (s at most SPORF_EXACT_MAX_SHIFT: larger
 * shifts take it), negated when `negative`: the integer of a term whose
 * magnitude is mant 2^s. */
static inline sporf_exact sporf_exact_from_mantissa(uint64_t mant, int s, int negative)
{
    sporf_exact q = {0, 0};
    if (s > SPORF_EXACT_MAX_SHIFT)
        s = SPORF_EXACT_MAX_SHIFT;
    if (s >= 64) {
        q.hi = mant << (s - 64);
    } else if (s > 0) {
        q.lo = mant << s;
        q.hi = mant >> (64 - s);
    } else if (s > -64) {
        q.lo = mant >> -s;
    }
    if (negative) { /* two's complement */
        q.lo = ~q.lo + 1u;
        q.hi = ~q.hi + (uint64_t)(q.lo == 0);
    }
    return q;
}

/* v x 2^scale truncated toward zero; NaN and infinity count 0 (no finite
 * node value is either; a corrupt file's cannot overflow the sum). */
static inline sporf_exact sporf_exact_from(double v, int scale)
{
    const sporf_exact zero = {0, 0};
    /* The mantissa and exponent read from the double's bits, as frexp would
     * give them (|v| = mant 2^(e - 53)): a leaf choice converts every
     * out-of-bag tree's answer for every row and size, where the library
     * calls cost a tenth of that pass (benchmarks/notes/speed.md). */
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    const int biased = (int)((bits >> 52) & 0x7ff);
    if (biased == 0x7ff || (bits << 1) == 0) /* infinity, NaN, zero */
        return zero;
    uint64_t mant;
    int s;
    if (biased == 0) { /* subnormal: normalized as frexp does */
        int e;
        const double m = frexp(fabs(v), &e); /* |v| = m 2^e, m in [0.5, 1) */
        mant = (uint64_t)ldexp(m, 53);       /* exact: 53 bits */
        s = e - 53 + scale;                  /* |v| 2^scale = mant 2^s */
    } else {
        mant = (bits & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
        s = biased - 1075 + scale;
    }
    return sporf_exact_from_mantissa(mant, s, (int)(bits >> 63));
}

/* The sum as a double: a / 2^scale, rounded (the same bits for the same
 * integer, wherever it was summed). */
static inline double sporf_exact_to_double(sporf_exact a, int scale)
{
    const int negative = (a.hi >> 63) != 0;
    if (negative) {
        a.lo = ~a.lo + 1u;
        a.hi = ~a.hi + (uint64_t)(a.lo == 0);
    }
    const double d = ldexp((double)a.hi, 64 - scale) + ldexp((double)a.lo, -scale);
    return negative ? -d : d;
}

#endif
