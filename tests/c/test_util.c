/* C unit tests of the util layer: sorting a node's values with their ids,
 * and the random streams. */
#include "util/bytes.h"
#include "model/model.h"
#include "fit/projection.h"
#include "fit/criterion.h"
#include "util/rng.h"
#include "util/sort.h"
#include "predict/traverse.h"
#include "predict/walk_partition.h" /* and the lane and float walks it builds on */
#include "fit/unsupervised.h"
#include "predict/packed.h"
#include "util/exact.h"

#include <assert.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void test_sort(void)
{
    sporf_rng rng;
    sporf_rng_seed(&rng, 1, 1);
    int ok = 1;
    for (int trial = 0; trial < 200 && ok; trial++) {
        int n = (int)sporf_rng_below(&rng, 3000) + 1;
        int levels = (int)sporf_rng_below(&rng, 50) + 1; /* many ties */
        double *v = malloc(n * sizeof *v), *orig = malloc(n * sizeof *orig);
        int32_t *id = malloc(n * sizeof *id);
        for (int i = 0; i < n; i++) {
            orig[i] = v[i] = (double)sporf_rng_below(&rng, (uint64_t)levels) - levels / 2.0;
            id[i] = i;
        }
        sporf_sort_values(v, id, n);
        for (int i = 0; i < n; i++) {
            if (i > 0 && v[i - 1] > v[i]) ok = 0;
            if (orig[id[i]] != v[i]) ok = 0;
        }
        free(v); free(orig); free(id);
    }
    CHECK(ok, "sort orders values and carries ids");

    /* The builder's sort: every size path (introsort, quicksort, radix),
     * ties, values closer than float precision, negative and positive. */
    int ok_radix = 1;
    for (int trial = 0; trial < 400 && ok_radix; trial++) {
        int n = trial < 100 ? trial + 1 : (int)sporf_rng_below(&rng, 3000) + 1;
        int kind = trial % 3;
        sporf_sort_scratch sc;
        sporf_sort_scratch_init(&sc, n);
        double *v = malloc(n * sizeof *v), *orig = malloc(n * sizeof *orig);
        int32_t *id = malloc(n * sizeof *id);
        for (int i = 0; i < n; i++) {
            const double u = sporf_rng_uniform(&rng);
            orig[i] = v[i] = kind == 0 ? (double)sporf_rng_below(&rng, 7) - 3.0   /* many ties */
                           : kind == 1 ? 1.0 + 1e-12 * (double)sporf_rng_below(&rng, 50) /* one float key */
                                       : (u - 0.5) * 1e6;
            id[i] = i;
        }
        sporf_sort_values_radix(v, id, n, &sc);
        for (int i = 0; i < n; i++) {
            if (orig[id[i]] != v[i]) ok_radix = 0;
            if (i > 0 && v[i - 1] > v[i]) ok_radix = 0;
        }
        free(v); free(orig); free(id);
        sporf_sort_scratch_free(&sc);
    }
    CHECK(ok_radix, "the builder's sort orders values and carries ids on every size path");

    /* A few distinct values (a counting pass) and just too many (the record
     * sorts): the same order either way -- ascending, -0 before +0, equal
     * values in input order -- checked against a stable insertion sort. */
    int ok_few = 1;
    for (int distinct = 1; distinct <= 10; distinct++) {
        const int n = 700;
        sporf_sort_scratch sc;
        sporf_sort_scratch_init(&sc, n);
        double *v = malloc(sizeof(double) * n), *want = malloc(sizeof(double) * n);
        int32_t *id = malloc(sizeof(int32_t) * n), *want_id = malloc(sizeof(int32_t) * n);
        const double pool[10] = {0.0, -0.0, 1.5, -2.0, 3.25, 1e-300, -7.0, 2.0, 0.5, 100.0};
        for (int i = 0; i < n; i++) {
            v[i] = pool[(i * 7 + i / 13) % distinct];
            id[i] = i;
        }
        /* the reference: stable by (value, -0 before +0) */
        for (int i = 0; i < n; i++) {
            int j = i;
            while (j > 0 && (want[j - 1] > v[i] || (want[j - 1] == v[i] && !signbit(want[j - 1]) && signbit(v[i])))) {
                want[j] = want[j - 1];
                want_id[j] = want_id[j - 1];
                j--;
            }
            want[j] = v[i];
            want_id[j] = id[i];
        }
        for (int m = 64; m <= n; m += n - 64) { /* the record quicksort's size, then the radix sort's */
            double *u = malloc(sizeof(double) * m);
            int32_t *uid = malloc(sizeof(int32_t) * m);
            memcpy(u, v, sizeof(double) * m);
            memcpy(uid, id, sizeof(int32_t) * m);
            sporf_sort_values_radix(u, uid, m, &sc);
            int64_t w = 0; /* the reference's order restricted to the first m rows */
            for (int i = 0; i < n && ok_few; i++) {
                if (want_id[i] >= m) continue;
                ok_few &= uid[w] == want_id[i] && memcmp(&u[w], &want[i], sizeof(double)) == 0;
                w++;
            }
            free(u); free(uid);
        }
        free(v); free(want); free(id); free(want_id);
        sporf_sort_scratch_free(&sc);
    }
    CHECK(ok_few, "few distinct values sort as many do: ascending, -0 first, ties in input order");
}

static void test_rng(void)
{
    sporf_rng a, b, c;
    sporf_rng_seed(&a, 42, 7);
    sporf_rng_seed(&b, 42, 7);
    sporf_rng_seed(&c, 42, 8);
    int same = 1, differ = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = sporf_rng_next(&a), y = sporf_rng_next(&b), z = sporf_rng_next(&c);
        same &= x == y;
        differ += x != z;
    }
    CHECK(same && differ > 95, "streams: same seed same numbers, other stream other numbers");
    long long hist[6] = {0};
    for (int i = 0; i < 60000; i++) hist[sporf_rng_below(&a, 6)]++;
    int uniform = 1;
    for (int k = 0; k < 6; k++) uniform &= NEAR((double)hist[k], 10000.0, 400.0);
    CHECK(uniform, "below(6) is uniform");
}

/* exact.h's conversion as frexp and ldexp computed it (before it read the
 * double's bits): the reference the sums of every stored forest were made
 * with, so a leaf choice stays the same bits. */
static sporf_exact exact_from_by_frexp(double v, int scale)
{
    const sporf_exact zero = {0, 0};
    if (v == 0.0 || !isfinite(v))
        return zero;
    int e;
    const double m = frexp(fabs(v), &e);
    return sporf_exact_from_mantissa((uint64_t)ldexp(m, 53), e - 53 + scale, v < 0.0);
}

static void test_exact(void)
{
    sporf_rng rng;
    sporf_rng_seed(&rng, 5, 0);
    const int scales[] = {0, 20, 63, 64, 96, 140, 1100};
    int same = 1, tried = 0;
    for (int i = 0; i < 200000; i++) {
        double v;
        switch (i % 5) {
        case 0: v = sporf_rng_uniform_open(&rng); break;                                   /* [0, 1): classes */
        case 1: v = (sporf_rng_uniform_open(&rng) - 0.5) * ldexp(1.0, (int)sporf_rng_below(&rng, 120) - 60); break;
        case 2: v = -ldexp(sporf_rng_uniform_open(&rng), -1030 - (int)sporf_rng_below(&rng, 40)); break; /* subnormal */
        case 3: v = (double)(int64_t)sporf_rng_below(&rng, 1000) - 500.0; break;           /* whole numbers, 0 */
        default: v = ldexp(1.0, (int)sporf_rng_below(&rng, 200) - 100); break;             /* powers of two */
        }
        const int sc = scales[i % 7];
        const sporf_exact a = sporf_exact_from(v, sc), b = exact_from_by_frexp(v, sc);
        same &= a.lo == b.lo && a.hi == b.hi;
        tried++;
    }
    const double odd[] = {INFINITY, -INFINITY, NAN, -0.0, 0.0, 4.9e-324, -2.2250738585072014e-308, 1.7976931348623157e308};
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 7; k++) {
            const sporf_exact a = sporf_exact_from(odd[i], scales[k]), b = exact_from_by_frexp(odd[i], scales[k]);
            same &= a.lo == b.lo && a.hi == b.hi;
        }
    CHECK(same && tried == 200000, "exact sums: each term's integer as frexp and ldexp gave it, to the bit");
}

/* A small 3-class problem used by the forest-level tests. */

int main(void)
{
    test_sort();
    test_rng();
    test_exact();
    return check_summary();
}
