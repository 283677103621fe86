/*
 * projection.h -- projection distributions: how the candidate directions of
 * a split node are drawn.
 *
 *  axis   : classic random forest. Features are drawn one at a time without
 *           replacement within a node (partial Fisher-Yates), so the splitter
 *           can keep drawing past constant features, as scikit-learn does.
 *  sparse : SPORF. A p x d matrix A gets ceil(feature_combinations * d)
 *           non-zeros at distinct uniformly random positions (Floyd's
 *           algorithm: O(non-zeros) time, never a walk over the p x d grid),
 *           each +1 or -1 with probability 1/2. Each non-empty column is one
 *           candidate projection; empty columns get one random feature.
 *  gaussian: as sparse, with N(0, 1) weights (Box-Muller).
 *  frc    : Forest-RC. Every candidate has L = ceil(feature_combinations)
 *           distinct features (at most p), weights U(-1, 1).
 *  poisson: every candidate has Poisson(feature_combinations) distinct
 *           features (0 becomes 1; at most p, and at most
 *           fc + 12 sqrt(fc) + 12), weights +-1.
 *  patch  : MORF. Each of the d candidates is one patch of the feature grid
 *           (params->data_dims): per axis a size uniform in [min, max] and a
 *           contiguous run (inside / zero-padded / wrapped) or a random subset;
 *           the candidate's features are the product of the axes' cells, with
 *           weight 1 or a Gaussian kernel centred on the patch. A patch costs
 *           its volume in memory, never p.
 */
#ifndef SPORF_PROJECTION_H
#define SPORF_PROJECTION_H

#include "model/model.h"
#include "util/rng.h"

/* A set of candidate projections in CSR form. */
typedef struct sporf_candidates {
    int32_t n_proj;
    int32_t *start;    /* n_proj + 1 offsets into feature/weight */
    int32_t *feature;
    double *weight;
} sporf_candidates;

typedef struct sporf_sampler {
    int32_t projection;     /* SPORF_PROJ_* */
    int64_t n_features;     /* p */
    int64_t n_candidates;   /* d */
    int64_t nnz;            /* non-zeros per node (sparse); the largest patch volume (patch) */
    /* axis */
    int32_t *perm;
    int64_t n_drawn;
    double feature_combinations; /* frc / poisson */
    /* sparse */
    uint64_t *hash;         /* open-addressing set of position+1 */
    int64_t hash_cap;
    uint64_t *positions;
    double *column_cdf;     /* draw_sparse_column (enable_columns): the CDF of a column's count
                               k = column_k0, column_k0 + 1, ... (column_len values) */
    int64_t column_k0, column_len;
    /* patch */
    const sporf_params *params;
    int32_t *axis_cells;    /* per axis: up to max_patch_dims[k] cell indices      */
    double *axis_weight;    /* per axis: the kernel factor of each of those cells  */
    int32_t *axis_perm;     /* scratch for random subsets along one axis           */
    int64_t axis_offset[8]; /* start of axis k in axis_cells / axis_weight         */
    int64_t stride[8];      /* row-major strides of the grid                       */
    int64_t patch_lo[8], patch_hi[8]; /* per axis: patch sizes, defaults resolved  */
    sporf_candidates cand;
} sporf_sampler;

/* Allocate buffers for p features and d candidates per node. */
int sporf_sampler_init(sporf_sampler *s, const sporf_params *params,
                       int64_t n_features, int64_t n_candidates, sporf_error *err);
void sporf_sampler_free(sporf_sampler *s);

/* Return to the state just after init (call at the start of every tree). */
void sporf_sampler_reset(sporf_sampler *s);

/* Axis mode: start a new node; then draw distinct features until it returns -1. */
void sporf_sampler_axis_reset(sporf_sampler *s);
int32_t sporf_sampler_axis_next(sporf_sampler *s, sporf_rng *rng);

/* Let an oblique sampler also draw single features (axis_reset/axis_next),
 * for the axis_features search; returns 0 when out of memory. */
int sporf_sampler_enable_axis(sporf_sampler *s);

/* Sparse mode: draw the node's candidate projections into s->cand. */
void sporf_sampler_draw_sparse(sporf_sampler *s, sporf_rng *rng);

/* Sparse mode, one candidate at a time (isolation forests cut the first
 * candidate that is not constant, so the other d - 1 columns would be drawn
 * for nothing): into s->cand (one projection), the non-zeros of one column
 * of the p x d matrix sporf_sampler_draw_sparse draws -- a hypergeometric
 * count of its ceil(fc * d) cells among the p d, by inversion from one
 * uniform; an empty column becomes one feature, as there -- at distinct
 * uniform features with weights +-1 (N(0, 1) for "gaussian"). Each call is
 * one column's marginal, independent of the calls before. Needs
 * sporf_sampler_enable_columns. */
void sporf_sampler_draw_sparse_column(sporf_sampler *s, sporf_rng *rng);

/* Let a sparse (or Gaussian) sampler draw one column at a time: the
 * column count's law and the features' permutation; returns 0 when out of
 * memory. */
int sporf_sampler_enable_columns(sporf_sampler *s);

/* Forest-RC / Poisson mode: draw the node's d candidates into s->cand. */
void sporf_sampler_draw_per_column(sporf_sampler *s, sporf_rng *rng);

/* Patch mode: draw the node's d patches into s->cand. */
void sporf_sampler_draw_patch(sporf_sampler *s, sporf_rng *rng);

/* The number of non-zeros a sparse node draws: ceil(fc * d), within [1, p*d]. */
int64_t sporf_sparse_nnz(double feature_combinations, int64_t p, int64_t d);

#endif
