/* projection.c -- see projection.h. */
#include "projection.h"

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
    free(s->cand.start);
    free(s->cand.feature);
    free(s->cand.weight);
    memset(s, 0, sizeof *s);
}

void sporf_sampler_reset(sporf_sampler *s)
{
    s->n_drawn = 0;
    if (s->perm)
        for (int64_t j = 0; j < s->n_features; j++) s->perm[j] = (int32_t)j;
}

void sporf_sampler_axis_reset(sporf_sampler *s) { s->n_drawn = 0; }

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

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void sporf_sampler_draw_sparse(sporf_sampler *s, sporf_rng *rng)
{
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
    qsort(s->positions, (size_t)m, sizeof *s->positions, cmp_u64);
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
        c->weight[i] = (sporf_rng_next(rng) >> 63) ? 1.0 : -1.0;
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
        c->weight[a] = 1.0;
        c->start[++c->n_proj] = a + 1;
    }
}
