/*
 * split_vector.c -- eight rows split at once with AVX2 (split_vector.h).
 *
 * Only this file holds instructions beyond the build's baseline: its
 * functions are compiled for AVX2 by a target attribute and called only
 * after the CPU said it has AVX2, so one build runs on every x86-64 CPU.
 * Other compilers and CPUs get the stubs at the end, never called.
 */
#include "predict/split_vector.h"

#include <pthread.h>
#include <stdlib.h>

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define SPORF_HAVE_AVX2_BUILD 1
#include <immintrin.h>
#else
#define SPORF_HAVE_AVX2_BUILD 0
#endif

/* How many rows ahead the loop starts loading rows' features (not on a
 * column copy, whose lines the rows share): 32 was a little faster than 16
 * on the default forests' batches of a million rows. */
#define SPORF_VEC_AHEAD 32

static int vec_enabled;
static pthread_once_t vec_once = PTHREAD_ONCE_INIT;

#if SPORF_HAVE_AVX2_BUILD

/* For each set of rows going right (bit j: row j of eight), the lanes of
 * the eight rows' indices in the order the split stores them: the rows
 * going left first, in order, then those going right, in order. Stored at
 * the left end of the free slots it puts the left rows in place; stored
 * ending at the right end, the right rows. */
static int32_t side_order[256][8] __attribute__((aligned(32)));

static void build_side_order(void)
{
    for (int g = 0; g < 256; g++) {
        int k = 0;
        for (int j = 0; j < 8; j++)
            if (!((g >> j) & 1))
                side_order[g][k++] = j;
        for (int j = 0; j < 8; j++)
            if ((g >> j) & 1)
                side_order[g][k++] = j;
    }
}

/* Four rows' feature at offset fk: one scalar load each (faster than the
 * gather instruction on the CPUs measured). */
__attribute__((target("avx2"))) static inline __m256d load4(const double *const *x, int64_t fk)
{
    return _mm256_set_pd(x[3][fk], x[2][fk], x[1][fk], x[0][fk]);
}

/* The vector loop for a constant len (so its terms unroll). */
__attribute__((target("avx2"))) static inline int32_t split_len(const int64_t *f, const double *w, const int len,
                                                                  double t, const double *x0, int64_t rs,
                                                                  const int32_t *src, int32_t *dst, int32_t lo,
                                                                  int32_t hi, int32_t *nl_out, int32_t *nr_out)
{
    const __m256d tv = _mm256_set1_pd(t);
    __m256d wv[SPORF_VEC_TERMS];
    for (int k = 0; k < len; k++)
        wv[k] = _mm256_set1_pd(w[k]);
    int32_t nl = lo, nr = hi - 1, i = lo;
    for (; i + 16 <= hi; i += 8) {
        const int32_t *s = src + i;
        const double *x[8];
        for (int j = 0; j < 8; j++)
            x[j] = x0 + (int64_t)s[j] * rs;
        if (rs != 1 && i + SPORF_VEC_AHEAD + 8 <= hi) /* rows, not a column copy: start the loads ahead */
            for (int j = 0; j < 8; j++) {
                const double *xa = x0 + (int64_t)s[SPORF_VEC_AHEAD + j] * rs;
                for (int k = 0; k < len; k++)
                    __builtin_prefetch(xa + f[k]);
            }
        __m256d a = _mm256_mul_pd(wv[0], load4(x, f[0]));
        __m256d b = _mm256_mul_pd(wv[0], load4(x + 4, f[0]));
        for (int k = 1; k < len; k++) {
            a = _mm256_add_pd(a, _mm256_mul_pd(wv[k], load4(x, f[k])));
            b = _mm256_add_pd(b, _mm256_mul_pd(wv[k], load4(x + 4, f[k])));
        }
        const unsigned right = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(a, tv, _CMP_GT_OQ)) |
                               ((unsigned)_mm256_movemask_pd(_mm256_cmp_pd(b, tv, _CMP_GT_OQ)) << 4);
        const __m256i rows = _mm256_loadu_si256((const __m256i *)s);
        const __m256i sided =
            _mm256_permutevar8x32_epi32(rows, _mm256_load_si256((const __m256i *)side_order[right]));
        /* at least 16 free slots between the sides: the two stores' other
         * lanes land on free slots only */
        _mm256_storeu_si256((__m256i *)(dst + nl), sided);
        _mm256_storeu_si256((__m256i *)(dst + nr - 7), sided);
        const int32_t n_right = __builtin_popcount(right);
        nl += 8 - n_right;
        nr -= n_right;
    }
    *nl_out = nl;
    *nr_out = nr;
    return i;
}

__attribute__((target("avx2"))) int32_t sporf_vec_split_terms(const int64_t *f, const double *w, int32_t len,
                                                               double t, const double *x0, int64_t rs,
                                                               const int32_t *src, int32_t *dst, int32_t lo,
                                                               int32_t hi)
{
    int32_t nl, nr, i;
    switch (len) {
    case 1: i = split_len(f, w, 1, t, x0, rs, src, dst, lo, hi, &nl, &nr); break;
    case 2: i = split_len(f, w, 2, t, x0, rs, src, dst, lo, hi, &nl, &nr); break;
    case 3: i = split_len(f, w, 3, t, x0, rs, src, dst, lo, hi, &nl, &nr); break;
    case 4: i = split_len(f, w, 4, t, x0, rs, src, dst, lo, hi, &nl, &nr); break;
    case 5: i = split_len(f, w, 5, t, x0, rs, src, dst, lo, hi, &nl, &nr); break;
    case 6: i = split_len(f, w, 6, t, x0, rs, src, dst, lo, hi, &nl, &nr); break;
    case 7: i = split_len(f, w, 7, t, x0, rs, src, dst, lo, hi, &nl, &nr); break;
    default: i = split_len(f, w, 8, t, x0, rs, src, dst, lo, hi, &nl, &nr); break;
    }
    /* the last rows one by one, as walk_partition.h's row-by-row split */
    for (; i < hi; i++) {
        const int32_t r = src[i];
        const double *x = x0 + (int64_t)r * rs;
        double s = w[0] * x[f[0]];
        for (int32_t k = 1; k < len; k++)
            s += w[k] * x[f[k]];
        const int32_t right = s > t;
        dst[nl] = r;
        dst[nr] = r;
        nl += right ^ 1;
        nr -= right;
    }
    return nl;
}

static int cpu_has_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
}

#else /* no AVX2 build: never enabled, so never called */

static void build_side_order(void) {}
static int cpu_has_avx2(void) { return 0; }

int32_t sporf_vec_split_terms(const int64_t *f, const double *w, int32_t len, double t, const double *x0, int64_t rs,
                              const int32_t *src, int32_t *dst, int32_t lo, int32_t hi)
{
    (void)f, (void)w, (void)len, (void)t, (void)x0, (void)rs, (void)src, (void)dst, (void)hi;
    return lo;
}

#endif

static void decide(void)
{
    const char *scalar = getenv("SPORF_SCALAR");
    const int forced_scalar = scalar && scalar[0] && !(scalar[0] == '0' && !scalar[1]);
    if (!forced_scalar && cpu_has_avx2()) {
        build_side_order();
        vec_enabled = 1;
    }
}

int sporf_vec_enabled(void)
{
    pthread_once(&vec_once, decide);
    return vec_enabled;
}
