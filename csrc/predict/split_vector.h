/*
 * split_vector.h -- the partition walk's split of a range of rows, eight
 * rows at a time, where the CPU has AVX2 (walk_partition.h calls it).
 *
 * The row-by-row split (walk_partition.h, sporf_part_split_terms) writes
 * each row twice and advances two counters: on the default forests its
 * loops were two thirds of a big batch's time, bound by those instructions,
 * not by memory. Here eight rows' projections are compared at once and
 * their indices moved to the two sides by one permutation and two stores.
 * The projections are the same sums in the same order (a multiply, then an
 * add per term, no fused multiply-add), so every row goes where the
 * row-by-row split sends it: the same leaves, the same answers to the bit.
 * Only the order of rows within a side differs, which no result depends on.
 */
#ifndef SPORF_SPLIT_VECTOR_H
#define SPORF_SPLIT_VECTOR_H

#include <stdint.h>

/* Terms a vector split projects at most (as SPORF_PART_TERMS). */
#define SPORF_VEC_TERMS 8
/* Ranges of fewer rows than this are split row by row: the vector loop
 * stops while 16 rows are left, so its two full-width stores never reach a
 * slot the other side has filled. */
#define SPORF_VEC_MIN_ROWS 16

/* 1 when this process splits with vectors: an x86-64 build by GCC or Clang
 * on a CPU with AVX2, unless the environment variable SPORF_SCALAR is set to
 * a non-empty value other than "0" (to compare the two walks; their answers
 * are the same). Asked afresh on each call (predict asks once per call);
 * thread-safe. */
int sporf_vec_enabled(void);

/* Split the rows src[lo..hi) (hi - lo >= SPORF_VEC_MIN_ROWS) by the
 * projection s = w[0] x[f[0]] + w[1] x[f[1]] + ... (len terms, 1 to
 * SPORF_VEC_TERMS, summed left to right; row r's features at x0 + r * rs,
 * f already times the column stride): rows with s > t go right. Those going
 * left fill dst[lo..mid), the rest dst[mid..hi); returns mid. x must be
 * finite. Only call when sporf_vec_enabled() says 1. Reads src, writes dst
 * only; thread-safe. */
int32_t sporf_vec_split_terms(const int64_t *f, const double *w, int32_t len, double t, const double *x0, int64_t rs,
                              const int32_t *src, int32_t *dst, int32_t lo, int32_t hi);

/* The double projection that decides a row a float split cannot:
 * s = w[0] x[f[0]] + ... + w[len-1] x[f[len-1]] over row r at x0 + r * rs
 * (f times the double rows' column stride), s > t going right. */
typedef struct sporf_vec_exact {
    const int64_t *f;
    const double *w;
    int32_t len;
    double t;
    const double *x0;
    int64_t rs;
} sporf_vec_exact;

/* sporf_vec_split_terms over float copies of the rows (row r's features at
 * xf + r * rs, f the offsets of the ex->len terms there, w their weights
 * rounded to float, tf the threshold rounded to float): each row's float
 * sum decides where it is clear of tf by more than its rounding can move it
 * (walk_f32.h's sporf_f32_decided; the weights kept within [2^-60, 2^16] by
 * the caller), the rest by ex's double projection, so every row goes where
 * sporf_vec_split_terms sends it. Same contract otherwise. */
int32_t sporf_vec_split_terms_f32(const int64_t *f, const float *w, float tf, const float *xf, int64_t rs,
                                  const sporf_vec_exact *ex, const int32_t *src, int32_t *dst, int32_t lo, int32_t hi);

#endif
