/* projection.c -- see projection.h. */
#include "fit/projection.h"
#include "model/params.h"
#include "util/sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t sporf_sparse_nnz(double feature_combinations, int64_t p, int64_t d)
{
    double want = ceil(feature_combinations * (double)d - 1e-9);
    double grid = (double)p * (double)d;
    if (want < 1.0) want = 1.0;
    if (want > grid) want = grid;
    return (int64_t)want;
}

static int patch_init(sporf_sampler *s, const sporf_params *P, int64_t d, sporf_error *err)
{
    int64_t cells = 0, volume = 1, longest = 1;
    for (int32_t k = P->n_dims - 1; k >= 0; k--) {
        sporf_patch_bounds(P, k, &s->patch_lo[k], &s->patch_hi[k]);
        s->axis_offset[k] = cells;
        cells += s->patch_hi[k];
        s->stride[k] = k == P->n_dims - 1 ? 1 : s->stride[k + 1] * P->data_dims[k + 1];
        volume *= s->patch_hi[k];
        if (P->data_dims[k] > longest) longest = P->data_dims[k];
    }
    s->params = P;
    s->nnz = volume; /* the longest projection: the builder sizes its buffers by it */
    s->axis_cells = malloc((size_t)cells * sizeof *s->axis_cells);
    s->axis_weight = malloc((size_t)cells * sizeof *s->axis_weight);
    s->axis_perm = malloc((size_t)longest * sizeof *s->axis_perm);
    s->cand.start = malloc((size_t)(d + 1) * sizeof *s->cand.start);
    s->cand.feature = malloc((size_t)(d * volume) * sizeof *s->cand.feature);
    s->cand.weight = malloc((size_t)(d * volume) * sizeof *s->cand.weight);
    if (!s->axis_cells || !s->axis_weight || !s->axis_perm || !s->cand.start || !s->cand.feature ||
        !s->cand.weight) {
        sporf_sampler_free(s);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory allocating the patch sampler");
    }
    return SPORF_OK;
}

/* The most features one frc / poisson candidate can have (the Poisson tail
 * beyond fc + 12 sqrt(fc) + 12 has negligible mass). */
static int64_t per_column_max(int32_t projection, double feature_combinations, int64_t p)
{
    double L = ceil(feature_combinations - 1e-9);
    if (projection == SPORF_PROJ_POISSON)
        L = ceil(feature_combinations + 12.0 * sqrt(feature_combinations) + 12.0);
    if (L < 1.0) L = 1.0;
    if (L > (double)p) L = (double)p;
    return (int64_t)L;
}

/* Forest-RC and Poisson: every candidate is a set of distinct features drawn
 * by a partial Fisher-Yates shuffle of perm (which stays a permutation, so
 * each draw is uniform whatever the previous draws left behind). */
static int per_column_init(sporf_sampler *s, const sporf_params *P, int64_t p, int64_t d, sporf_error *err)
{
    s->nnz = per_column_max(P->projection, P->feature_combinations, p);
    s->feature_combinations = P->feature_combinations;
    s->perm = malloc((size_t)p * sizeof *s->perm);
    s->cand.start = malloc((size_t)(d + 1) * sizeof *s->cand.start);
    s->cand.feature = malloc((size_t)(d * s->nnz) * sizeof *s->cand.feature);
    s->cand.weight = malloc((size_t)(d * s->nnz) * sizeof *s->cand.weight);
    if (!s->perm || !s->cand.start || !s->cand.feature || !s->cand.weight) {
        sporf_sampler_free(s);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory allocating the projection sampler");
    }
    for (int64_t j = 0; j < p; j++) s->perm[j] = (int32_t)j;
    return SPORF_OK;
}

/* log C(n, k) */
static double log_choose(double n, double k) { return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0); }

/* The CDF of a column's count of the m = nnz cells drawn among the p d:
 * hypergeometric on [k0, min(m, p)]. 0 when out of memory. */
static int column_cdf(sporf_sampler *s)
{
    const int64_t p = s->n_features, m = s->nnz;
    const double N = (double)p * (double)s->n_candidates, K = (double)p;
    const int64_t k0 = m - (int64_t)(N - K) > 0 ? m - (int64_t)(N - K) : 0, k1 = m < p ? m : p;
    s->column_len = k1 - k0 + 1;
    s->column_k0 = k0;
    if (!(s->column_cdf = malloc((size_t)s->column_len * sizeof *s->column_cdf)))
        return 0;
    double pk = exp(log_choose(K, (double)k0) + log_choose(N - K, (double)(m - k0)) - log_choose(N, (double)m));
    double cdf = 0.0;
    for (int64_t k = k0; k <= k1; k++) {
        cdf += pk;
        s->column_cdf[k - k0] = cdf;
        pk *= (K - (double)k) * (double)(m - k) / ((double)(k + 1) * (N - K - (double)(m - k) + 1.0));
    }
    s->column_cdf[s->column_len - 1] = 1.0; /* the last count takes what rounding left */
    return 1;
}

int sporf_sampler_init(sporf_sampler *s, const sporf_params *params,
                       int64_t n_features, int64_t n_candidates, sporf_error *err)
{
    memset(s, 0, sizeof *s);
    s->projection = params->projection;
    s->n_features = n_features;
    s->n_candidates = n_candidates;
    if (s->projection == SPORF_PROJ_AXIS) {
        s->perm = malloc((size_t)n_features * sizeof *s->perm);
        if (!s->perm) goto nomem;
        for (int64_t j = 0; j < n_features; j++) s->perm[j] = (int32_t)j;
        return SPORF_OK;
    }
    if (s->projection == SPORF_PROJ_PATCH)
        return patch_init(s, params, n_candidates, err);
    if (s->projection == SPORF_PROJ_FRC || s->projection == SPORF_PROJ_POISSON)
        return per_column_init(s, params, n_features, n_candidates, err);
    s->nnz = sporf_sparse_nnz(params->feature_combinations, n_features, n_candidates);
    s->hash_cap = 16;
    while (s->hash_cap < 2 * s->nnz) s->hash_cap *= 2;
    s->hash = calloc((size_t)s->hash_cap, sizeof *s->hash);
    s->positions = malloc((size_t)s->nnz * sizeof *s->positions);
    int64_t max_proj = n_candidates;
    s->cand.start = malloc((size_t)(max_proj + 1) * sizeof *s->cand.start);
    s->cand.feature = malloc((size_t)(s->nnz + n_candidates) * sizeof *s->cand.feature);
    s->cand.weight = malloc((size_t)(s->nnz + n_candidates) * sizeof *s->cand.weight);
    if (!s->hash || !s->positions || !s->cand.start || !s->cand.feature || !s->cand.weight)
        goto nomem;
    return SPORF_OK;
nomem:
    sporf_sampler_free(s);
    return sporf_set_error(err, SPORF_E_NOMEM, "out of memory allocating the projection sampler");
}

void sporf_sampler_free(sporf_sampler *s)
{
    free(s->perm);
    free(s->hash);
    free(s->positions);
    free(s->column_cdf);
    free(s->cand.start);
    free(s->cand.feature);
    free(s->cand.weight);
    free(s->axis_cells);
    free(s->axis_weight);
    free(s->axis_perm);
    memset(s, 0, sizeof *s);
}

void sporf_sampler_reset(sporf_sampler *s)
{
    s->n_drawn = 0;
    if (s->perm)
        for (int64_t j = 0; j < s->n_features; j++) s->perm[j] = (int32_t)j;
}

void sporf_sampler_axis_reset(sporf_sampler *s) { s->n_drawn = 0; }

int sporf_sampler_enable_axis(sporf_sampler *s)
{
    if (s->perm)
        return 1;
    s->perm = malloc((size_t)(s->n_features > 0 ? s->n_features : 1) * sizeof *s->perm);
    if (!s->perm)
        return 0;
    for (int64_t j = 0; j < s->n_features; j++) s->perm[j] = (int32_t)j;
    return 1;
}

int sporf_sampler_enable_columns(sporf_sampler *s)
{
    return sporf_sampler_enable_axis(s) && (s->column_cdf || column_cdf(s));
}

int32_t sporf_sampler_axis_next(sporf_sampler *s, sporf_rng *rng)
{
    if (s->n_drawn >= s->n_features)
        return -1;
    int64_t j = s->n_drawn + (int64_t)sporf_rng_below(rng, (uint64_t)(s->n_features - s->n_drawn));
    int32_t f = s->perm[j];
    s->perm[j] = s->perm[s->n_drawn];
    s->perm[s->n_drawn] = f;
    s->n_drawn++;
    return f;
}

/* Insert key into the set; returns 1 if it was new. */
static int set_insert(uint64_t *hash, int64_t cap, uint64_t key)
{
    uint64_t h = (key + 1) * 0x9E3779B97F4A7C15ULL;
    uint64_t mask = (uint64_t)cap - 1;
    for (uint64_t i = h >> 20;; i++) {
        uint64_t *slot = &hash[i & mask];
        if (*slot == 0) {
            *slot = key + 1;
            return 1;
        }
        if (*slot == key + 1)
            return 0;
    }
}

/* N(0, 1) by Box-Muller from two uniforms (one value per call, so the
 * number of draws per weight is fixed: 2). 1 - u keeps log away from 0. */
static double standard_normal(sporf_rng *rng)
{
    const double u1 = 1.0 - sporf_rng_uniform(rng), u2 = sporf_rng_uniform(rng);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Poisson(lambda) by inversion (lambda is small: feature_combinations). */
static int64_t poisson_draw(sporf_rng *rng, double lambda)
{
    const double u = sporf_rng_uniform(rng);
    double pk = exp(-lambda), cdf = pk;
    int64_t k = 0;
    while (u >= cdf && k < 100000) {
        k++;
        pk *= lambda / (double)k;
        cdf += pk;
        if (pk <= 0.0) break; /* the tail underflowed: u is within rounding of 1 */
    }
    return k;
}

void sporf_sampler_draw_sparse_column(sporf_sampler *s, sporf_rng *rng)
{
    const int gaussian = s->projection == SPORF_PROJ_GAUSSIAN;
    const int64_t p = s->n_features;
    const double u = sporf_rng_uniform(rng);
    int64_t k = s->column_k0;
    while (k - s->column_k0 < s->column_len - 1 && u >= s->column_cdf[k - s->column_k0]) k++;
    const int empty = k == 0;
    if (empty) k = 1;
    sporf_candidates *c = &s->cand;
    c->n_proj = 1;
    c->start[0] = 0;
    for (int64_t i = 0; i < k; i++) {
        const int64_t r = i + (int64_t)sporf_rng_below(rng, (uint64_t)(p - i));
        const int32_t t = s->perm[r];
        s->perm[r] = s->perm[i];
        s->perm[i] = t;
        c->feature[i] = t;
        c->weight[i] = gaussian ? standard_normal(rng) : empty ? 1.0 : (sporf_rng_next(rng) >> 63) ? 1.0 : -1.0;
    }
    c->start[1] = (int32_t)k;
}

void sporf_sampler_draw_per_column(sporf_sampler *s, sporf_rng *rng)
{
    const int64_t p = s->n_features, cap = s->nnz;
    const int frc = s->projection == SPORF_PROJ_FRC;
    sporf_candidates *c = &s->cand;
    int32_t pos = 0;
    c->n_proj = 0;
    for (int64_t j = 0; j < s->n_candidates; j++) {
        int64_t L = frc ? cap : poisson_draw(rng, s->feature_combinations);
        if (L < 1) L = 1;     /* an empty projection becomes a single feature, as in "sparse" */
        if (L > cap) L = cap;
        c->start[c->n_proj++] = pos;
        for (int64_t i = 0; i < L; i++) {
            int64_t r = i + (int64_t)sporf_rng_below(rng, (uint64_t)(p - i));
            int32_t t = s->perm[r]; s->perm[r] = s->perm[i]; s->perm[i] = t;
            c->feature[pos] = t;
            c->weight[pos] = frc ? 2.0 * sporf_rng_uniform(rng) - 1.0 : (sporf_rng_next(rng) >> 63) ? 1.0 : -1.0;
            pos++;
        }
    }
    c->start[c->n_proj] = pos;
}

void sporf_sampler_draw_sparse(sporf_sampler *s, sporf_rng *rng)
{
    const int gaussian = s->projection == SPORF_PROJ_GAUSSIAN;
    const uint64_t p = (uint64_t)s->n_features;
    const uint64_t grid = p * (uint64_t)s->n_candidates;
    const int64_t m = s->nnz;
    memset(s->hash, 0, (size_t)s->hash_cap * sizeof *s->hash);
    /* Floyd: a uniform m-subset of [0, grid) in m draws. Positions are
     * column-major (pos = column * p + feature) so sorting groups columns. */
    int64_t k = 0;
    for (uint64_t j = grid - (uint64_t)m; j < grid; j++) {
        uint64_t t = sporf_rng_below(rng, j + 1);
        uint64_t pick = set_insert(s->hash, s->hash_cap, t) ? t : j;
        if (pick == j)
            set_insert(s->hash, s->hash_cap, j);
        s->positions[k++] = pick;
    }
    sporf_sort_u64_distinct(s->positions, m); /* distinct: any sort gives this order */
    sporf_candidates *c = &s->cand;
    c->n_proj = 0;
    uint64_t current = UINT64_MAX;
    for (int64_t i = 0; i < m; i++) {
        uint64_t col = s->positions[i] / p;
        if (col != current) {
            c->start[c->n_proj++] = (int32_t)i;
            current = col;
        }
        c->feature[i] = (int32_t)(s->positions[i] % p);
        c->weight[i] = gaussian ? standard_normal(rng) : (sporf_rng_next(rng) >> 63) ? 1.0 : -1.0;
    }
    c->start[c->n_proj] = (int32_t)m;
    /* Columns left empty become single-feature candidates, so a node always
     * weighs d real directions (as a random forest always weighs d features).
     * Without this, few-feature problems lose most of their candidates: with
     * p = 6, d = 3 and 5 non-zeros a column is empty 17% of the time, and
     * axis-optimal problems (the SPORF paper's Orthant) lose accuracy. */
    int64_t missing = s->n_candidates - c->n_proj;
    for (int64_t e = 0; e < missing; e++) {
        int32_t a = c->start[c->n_proj];
        c->feature[a] = (int32_t)sporf_rng_below(rng, p);
        c->weight[a] = gaussian ? standard_normal(rng) : 1.0;
        c->start[++c->n_proj] = a + 1;
    }
}

/* The factor of the cell at offset i of a patch of `size` cells along an
 * axis: 1, a Gaussian kernel, or for the contrast axis of a Haar-like
 * candidate +1 on the first half and -1 on the rest. */
static double axis_factor(int gaussian, int contrast, int64_t i, int64_t size)
{
    if (contrast)
        return i < (size + 1) / 2 ? 1.0 : -1.0;
    if (gaussian) {
        const double z = ((double)i - 0.5 * (double)(size - 1)) / (double)size;
        return exp(-8.0 * z * z);
    }
    return 1.0;
}

/* Cells of one axis of a patch: their indices into cells[] and kernel factors
 * into weight[] (contrast: this axis splits a Haar-like candidate in two);
 * returns how many (padding can drop some). */
static int64_t draw_axis(sporf_sampler *s, sporf_rng *rng, int32_t k, int contrast, int32_t *cells, double *weight)
{
    const sporf_params *P = s->params;
    const int64_t D = P->data_dims[k];
    const int64_t size = s->patch_lo[k] + (int64_t)sporf_rng_below(rng, (uint64_t)(s->patch_hi[k] - s->patch_lo[k] + 1));
    const int gaussian = P->patch_weights == SPORF_PATCH_GAUSSIAN;
    int64_t n = 0;
    if (!P->dim_contiguous[k]) {
        /* A uniform random subset of `size` cells: a partial Fisher-Yates
         * shuffle of a fresh identity permutation (fresh, so the draw depends
         * on nothing but the stream). */
        for (int64_t j = 0; j < D; j++) s->axis_perm[j] = (int32_t)j;
        for (int64_t i = 0; i < size; i++) {
            int64_t j = i + (int64_t)sporf_rng_below(rng, (uint64_t)(D - i));
            int32_t t = s->axis_perm[j]; s->axis_perm[j] = s->axis_perm[i]; s->axis_perm[i] = t;
            cells[n] = s->axis_perm[i];
            weight[n] = axis_factor(gaussian, contrast, i, size);
            n++;
        }
        return n;
    }
    int64_t anchor;
    switch (P->boundary[k]) {
    case SPORF_BOUNDARY_INSIDE: anchor = (int64_t)sporf_rng_below(rng, (uint64_t)(D - size + 1)); break;
    case SPORF_BOUNDARY_PAD: anchor = (int64_t)sporf_rng_below(rng, (uint64_t)(D + size - 1)) - (size - 1); break;
    default: anchor = (int64_t)sporf_rng_below(rng, (uint64_t)D); break;
    }
    for (int64_t i = 0; i < size; i++) {
        int64_t c = anchor + i;
        if (P->boundary[k] == SPORF_BOUNDARY_WRAP)
            c %= D;
        else if (c < 0 || c >= D)
            continue; /* zero padding: cells outside the grid contribute nothing */
        cells[n] = (int32_t)c;
        weight[n] = axis_factor(gaussian, contrast, i, size);
        n++;
    }
    return n;
}

void sporf_sampler_draw_patch(sporf_sampler *s, sporf_rng *rng)
{
    const sporf_params *P = s->params;
    const int32_t nd = P->n_dims;
    sporf_candidates *c = &s->cand;
    int64_t count[8], at[8];
    int32_t pos = 0;
    c->n_proj = 0;
    const int haar = P->patch_weights == SPORF_PATCH_HAAR;
    for (int64_t j = 0; j < s->n_candidates; j++) {
        /* Haar-like: every other candidate on average contrasts its two
         * halves along one random axis (-1: a patch sum) */
        int32_t contrast_axis = -1;
        if (haar && (sporf_rng_next(rng) >> 63))
            contrast_axis = (int32_t)sporf_rng_below(rng, (uint64_t)nd);
        int64_t volume = 1;
        for (int32_t k = 0; k < nd; k++) {
            count[k] = draw_axis(s, rng, k, k == contrast_axis, s->axis_cells + s->axis_offset[k],
                                 s->axis_weight + s->axis_offset[k]);
            volume *= count[k];
            at[k] = 0;
        }
        c->start[c->n_proj++] = pos;
        /* The product of the axes' cells, in row-major order of the patch. */
        for (int64_t v = 0; v < volume; v++) {
            int64_t feature = 0;
            double w = 1.0;
            for (int32_t k = 0; k < nd; k++) {
                feature += (int64_t)s->axis_cells[s->axis_offset[k] + at[k]] * s->stride[k];
                w *= s->axis_weight[s->axis_offset[k] + at[k]];
            }
            c->feature[pos] = (int32_t)feature;
            c->weight[pos] = w;
            pos++;
            for (int32_t k = nd - 1; k >= 0; k--) {
                if (++at[k] < count[k]) break;
                at[k] = 0;
            }
        }
    }
    c->start[c->n_proj] = pos;
}
