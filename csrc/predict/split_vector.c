/*
 * split_vector.c -- eight rows split at once with AVX2 (split_vector.h).
 *
 * Only this file holds instructions beyond the build's baseline: its
 * functions are compiled for AVX2 by a target attribute and called only
 * after the CPU said it has AVX2, so one build runs on every x86-64 CPU.
 * Other compilers and CPUs get the stubs at the end, never called.
 */
#include "predict/split_vector.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define SPORF_HAVE_AVX2_BUILD 1
#include <immintrin.h>
#else
#define SPORF_HAVE_AVX2_BUILD 0
#endif

/* The eight-row loops below start no loads ahead (software prefetch): the
 * core's prefetchers and its out-of-order window keep enough of the rows'
 * loads in flight, and the prefetch instructions (a row's index, its
 * address and one per term, for every row) cost more issue slots than the
 * waits they hid: without them, 5-14% less time on batches of 10,000 to
 * 1,000,000 rows of the default forests. The row-by-row splits
 * (walk_partition.h) keep theirs: 2-10% slower without
 * (benchmarks/notes/speed.md). */

#if SPORF_HAVE_AVX2_BUILD

/* For each set of rows going right (bit j: row j of eight), the lanes of
 * the eight rows' indices in the order the split stores them, three bits
 * each (lane k's at bits 3k..3k+2): the rows going left first, in order,
 * then those going right, in order. Stored at the left end of the free
 * slots the permuted indices put the left rows in place; stored ending at
 * the right end, the right rows. */
static const uint32_t side_order[256] = {
    0xfac688, 0x1f58d1, 0x3f58d0, 0x23eb1a, 0x5f58c8, 0x43eb19, 0x47eb18, 0x447d63,
    0x7f5888, 0x63eb11, 0x67eb10, 0x647d62, 0x6beb08, 0x687d61, 0x68fd60, 0x688fac,
    0x9f5688, 0x83ead1, 0x87ead0, 0x847d5a, 0x8beac8, 0x887d59, 0x88fd58, 0x888fab,
    0x8fea88, 0x8c7d51, 0x8cfd50, 0x8c8faa, 0x8d7d48, 0x8d0fa9, 0x8d1fa8, 0x8d11f5,
    0xbf4688, 0xa3e8d1, 0xa7e8d0, 0xa47d1a, 0xabe8c8, 0xa87d19, 0xa8fd18, 0xa88fa3,
    0xafe888, 0xac7d11, 0xacfd10, 0xac8fa2, 0xad7d08, 0xad0fa1, 0xad1fa0, 0xad11f4,
    0xb3e688, 0xb07cd1, 0xb0fcd0, 0xb08f9a, 0xb17cc8, 0xb10f99, 0xb11f98, 0xb111f3,
    0xb1fc88, 0xb18f91, 0xb19f90, 0xb191f2, 0xb1af88, 0xb1a1f1, 0xb1a3f0, 0xb1a23e,
    0xdec688, 0xc3d8d1, 0xc7d8d0, 0xc47b1a, 0xcbd8c8, 0xc87b19, 0xc8fb18, 0xc88f63,
    0xcfd888, 0xcc7b11, 0xccfb10, 0xcc8f62, 0xcd7b08, 0xcd0f61, 0xcd1f60, 0xcd11ec,
    0xd3d688, 0xd07ad1, 0xd0fad0, 0xd08f5a, 0xd17ac8, 0xd10f59, 0xd11f58, 0xd111eb,
    0xd1fa88, 0xd18f51, 0xd19f50, 0xd191ea, 0xd1af48, 0xd1a1e9, 0xd1a3e8, 0xd1a23d,
    0xd7c688, 0xd478d1, 0xd4f8d0, 0xd48f1a, 0xd578c8, 0xd50f19, 0xd51f18, 0xd511e3,
    0xd5f888, 0xd58f11, 0xd59f10, 0xd591e2, 0xd5af08, 0xd5a1e1, 0xd5a3e0, 0xd5a23c,
    0xd67688, 0xd60ed1, 0xd61ed0, 0xd611da, 0xd62ec8, 0xd621d9, 0xd623d8, 0xd6223b,
    0xd63e88, 0xd631d1, 0xd633d0, 0xd6323a, 0xd635c8, 0xd63439, 0xd63478, 0xd63447,
    0xfac688, 0xe358d1, 0xe758d0, 0xe46b1a, 0xeb58c8, 0xe86b19, 0xe8eb18, 0xe88d63,
    0xef5888, 0xec6b11, 0xeceb10, 0xec8d62, 0xed6b08, 0xed0d61, 0xed1d60, 0xed11ac,
    0xf35688, 0xf06ad1, 0xf0ead0, 0xf08d5a, 0xf16ac8, 0xf10d59, 0xf11d58, 0xf111ab,
    0xf1ea88, 0xf18d51, 0xf19d50, 0xf191aa, 0xf1ad48, 0xf1a1a9, 0xf1a3a8, 0xf1a235,
    0xf74688, 0xf468d1, 0xf4e8d0, 0xf48d1a, 0xf568c8, 0xf50d19, 0xf51d18, 0xf511a3,
    0xf5e888, 0xf58d11, 0xf59d10, 0xf591a2, 0xf5ad08, 0xf5a1a1, 0xf5a3a0, 0xf5a234,
    0xf66688, 0xf60cd1, 0xf61cd0, 0xf6119a, 0xf62cc8, 0xf62199, 0xf62398, 0xf62233,
    0xf63c88, 0xf63191, 0xf63390, 0xf63232, 0xf63588, 0xf63431, 0xf63470, 0xf63446,
    0xfac688, 0xf858d1, 0xf8d8d0, 0xf88b1a, 0xf958c8, 0xf90b19, 0xf91b18, 0xf91163,
    0xf9d888, 0xf98b11, 0xf99b10, 0xf99162, 0xf9ab08, 0xf9a161, 0xf9a360, 0xf9a22c,
    0xfa5688, 0xfa0ad1, 0xfa1ad0, 0xfa115a, 0xfa2ac8, 0xfa2159, 0xfa2358, 0xfa222b,
    0xfa3a88, 0xfa3151, 0xfa3350, 0xfa322a, 0xfa3548, 0xfa3429, 0xfa3468, 0xfa3445,
    0xfac688, 0xfa88d1, 0xfa98d0, 0xfa911a, 0xfaa8c8, 0xfaa119, 0xfaa318, 0xfaa223,
    0xfab888, 0xfab111, 0xfab310, 0xfab222, 0xfab508, 0xfab421, 0xfab460, 0xfab444,
    0xfac688, 0xfac0d1, 0xfac2d0, 0xfac21a, 0xfac4c8, 0xfac419, 0xfac458, 0xfac443,
    0xfac688, 0xfac611, 0xfac650, 0xfac642, 0xfac688, 0xfac681, 0xfac688, 0xfac688,
};

/* Move the eight rows s[0..8), those whose bit is set in right going
 * right, to the two free ends of dst (*nl the left end, *nr the right end),
 * at least 16 free slots apart: the two stores' other lanes land on free
 * slots only. */
__attribute__((target("avx2"))) static inline void place8(const int32_t *s, unsigned right, int32_t *dst, int32_t *nl,
                                                          int32_t *nr)
{
    const __m256i rows = _mm256_loadu_si256((const __m256i *)s);
    const __m256i lanes = _mm256_and_si256(
        _mm256_srlv_epi32(_mm256_set1_epi32((int)side_order[right]), _mm256_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21)),
        _mm256_set1_epi32(7));
    const __m256i sided = _mm256_permutevar8x32_epi32(rows, lanes);
    _mm256_storeu_si256((__m256i *)(dst + *nl), sided);
    _mm256_storeu_si256((__m256i *)(dst + *nr - 7), sided);
    const int32_t n_right = __builtin_popcount(right);
    *nl += 8 - n_right;
    *nr -= n_right;
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
        __m256d a = _mm256_mul_pd(wv[0], load4(x, f[0]));
        __m256d b = _mm256_mul_pd(wv[0], load4(x + 4, f[0]));
        for (int k = 1; k < len; k++) {
            a = _mm256_add_pd(a, _mm256_mul_pd(wv[k], load4(x, f[k])));
            b = _mm256_add_pd(b, _mm256_mul_pd(wv[k], load4(x + 4, f[k])));
        }
        const unsigned right = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(a, tv, _CMP_GT_OQ)) |
                               ((unsigned)_mm256_movemask_pd(_mm256_cmp_pd(b, tv, _CMP_GT_OQ)) << 4);
        place8(s, right, dst, &nl, &nr);
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


/* Eight rows' feature at offset fk of float rows. */
__attribute__((target("avx2"))) static inline __m256 load8f(const float *const *x, int64_t fk)
{
    return _mm256_set_ps(x[7][fk], x[6][fk], x[5][fk], x[4][fk], x[3][fk], x[2][fk], x[1][fk], x[0][fk]);
}

/* The exact side of row r: its double projection over the double rows. */
static inline unsigned exact_right(const sporf_vec_exact *ex, int32_t r)
{
    const double *x = ex->x0 + (int64_t)r * ex->rs;
    double s = ex->w[0] * x[ex->f[0]];
    for (int32_t k = 1; k < ex->len; k++)
        s += ex->w[k] * x[ex->f[k]];
    return s > ex->t;
}

__attribute__((target("avx2"))) static inline int32_t split_len_f32(const int64_t *f, const float *w, const int len,
                                                                      float tf, const float *xf, int64_t rs,
                                                                      const sporf_vec_exact *ex, const int32_t *src,
                                                                      int32_t *dst, int32_t lo, int32_t hi,
                                                                      int32_t *nl_out, int32_t *nr_out)
{
    const __m256 tv = _mm256_set1_ps(tf);
    const __m256 slack = _mm256_set1_ps(fabsf(tf));
    const __m256 unit = _mm256_set1_ps(0x1p-20f), tiny = _mm256_set1_ps(FLT_MIN);
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 wv[SPORF_VEC_TERMS];
    for (int k = 0; k < len; k++)
        wv[k] = _mm256_set1_ps(w[k]);
    int32_t nl = lo, nr = hi - 1, i = lo;
    for (; i + 16 <= hi; i += 8) {
        const int32_t *s = src + i;
        const float *x[8];
        for (int j = 0; j < 8; j++)
            x[j] = xf + (int64_t)s[j] * rs;
        __m256 a = _mm256_mul_ps(wv[0], load8f(x, f[0]));
        __m256 sum = a, mag = _mm256_andnot_ps(sign, a);
        for (int k = 1; k < len; k++) {
            a = _mm256_mul_ps(wv[k], load8f(x, f[k]));
            sum = _mm256_add_ps(sum, a);
            mag = _mm256_add_ps(mag, _mm256_andnot_ps(sign, a));
        }
        const __m256 d = _mm256_sub_ps(sum, tv);
        const __m256 bound = _mm256_add_ps(_mm256_mul_ps(unit, _mm256_add_ps(mag, slack)), tiny);
        unsigned right = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(d, _mm256_setzero_ps(), _CMP_GT_OQ));
        const __m256 clear = _mm256_cmp_ps(_mm256_andnot_ps(sign, d), bound, _CMP_GT_OQ);
        unsigned open = 0xffu & ~(unsigned)_mm256_movemask_ps(clear);
        while (open) { /* rare: decide in double */
            const int j = __builtin_ctz(open);
            open &= open - 1;
            right = (right & ~(1u << j)) | (exact_right(ex, s[j]) << j);
        }
        place8(s, right, dst, &nl, &nr);
    }
    *nl_out = nl;
    *nr_out = nr;
    return i;
}

__attribute__((target("avx2"))) int32_t sporf_vec_split_terms_f32(const int64_t *f, const float *w, float tf,
                                                                   const float *xf, int64_t rs,
                                                                   const sporf_vec_exact *ex, const int32_t *src,
                                                                   int32_t *dst, int32_t lo, int32_t hi)
{
    int32_t nl, nr, i;
    switch (ex->len) {
    case 1: i = split_len_f32(f, w, 1, tf, xf, rs, ex, src, dst, lo, hi, &nl, &nr); break;
    case 2: i = split_len_f32(f, w, 2, tf, xf, rs, ex, src, dst, lo, hi, &nl, &nr); break;
    case 3: i = split_len_f32(f, w, 3, tf, xf, rs, ex, src, dst, lo, hi, &nl, &nr); break;
    case 4: i = split_len_f32(f, w, 4, tf, xf, rs, ex, src, dst, lo, hi, &nl, &nr); break;
    case 5: i = split_len_f32(f, w, 5, tf, xf, rs, ex, src, dst, lo, hi, &nl, &nr); break;
    case 6: i = split_len_f32(f, w, 6, tf, xf, rs, ex, src, dst, lo, hi, &nl, &nr); break;
    case 7: i = split_len_f32(f, w, 7, tf, xf, rs, ex, src, dst, lo, hi, &nl, &nr); break;
    default: i = split_len_f32(f, w, 8, tf, xf, rs, ex, src, dst, lo, hi, &nl, &nr); break;
    }
    for (; i < hi; i++) {
        const int32_t r = src[i];
        const float *x = xf + (int64_t)r * rs;
        float a = w[0] * x[f[0]];
        float sum = a, mag = fabsf(a);
        for (int32_t k = 1; k < ex->len; k++) {
            a = w[k] * x[f[k]];
            sum += a;
            mag += fabsf(a);
        }
        const float d = sum - tf;
        unsigned right = d > 0.0f;
        if (!(fabsf(d) > 0x1p-20f * (mag + fabsf(tf)) + FLT_MIN))
            right = exact_right(ex, r);
        dst[nl] = r;
        dst[nr] = r;
        nl += (int32_t)(right ^ 1u);
        nr -= (int32_t)right;
    }
    return nl;
}

static int cpu_has_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
}

#else /* no AVX2 build: never enabled, so never called */

int32_t sporf_vec_split_terms_f32(const int64_t *f, const float *w, float tf, const float *xf, int64_t rs,
                                  const sporf_vec_exact *ex, const int32_t *src, int32_t *dst, int32_t lo, int32_t hi)
{
    (void)f, (void)w, (void)tf, (void)xf, (void)rs, (void)ex, (void)src, (void)dst, (void)hi;
    return lo;
}

static int cpu_has_avx2(void) { return 0; }

int32_t sporf_vec_split_terms(const int64_t *f, const double *w, int32_t len, double t, const double *x0, int64_t rs,
                              const int32_t *src, int32_t *dst, int32_t lo, int32_t hi)
{
    (void)f, (void)w, (void)len, (void)t, (void)x0, (void)rs, (void)src, (void)dst, (void)hi;
    return lo;
}

#endif

int sporf_vec_enabled(void)
{
    const char *scalar = getenv("SPORF_SCALAR");
    const int forced_scalar = scalar && scalar[0] && !(scalar[0] == '0' && !scalar[1]);
    return !forced_scalar && cpu_has_avx2();
}
