/*
 * sporf.h -- the one public header of the sporf core.
 *
 * sporf grows sparse oblique random forests ("randomer forests") in plain
 * C99 + pthreads. Both language bindings (Python through cffi, R through
 * .Call) use only what is declared here.
 *
 * Conventions (see DESIGN.md):
 *  - Every function returns an int status: SPORF_OK (0) or one of the
 *    SPORF_E_* codes, and fills the caller's sporf_error with a readable
 *    message. The error argument may be NULL when the caller does not want
 *    the message. No function prints, exits or aborts.
 *  - Matrices are passed as sporf_matrix views with strides in elements, so
 *    numpy C/F-order arrays and R's column-major matrices go in without copies.
 *    The core never keeps a pointer into a caller's matrix after a call returns.
 *  - The caller allocates outputs. Serialization uses a two-call size query.
 *  - The only object that crosses the boundary is the sporf_forest handle,
 *    created by sporf_forest_fit / sporf_forest_load and released by
 *    sporf_forest_free.
 *  - Thread-safety: a fitted forest is immutable except through
 *    sporf_forest_set_strings; any number of threads may call the read-only
 *    functions (predict, apply, save, info, importances) on one forest at
 *    once. sporf_forest_set_strings and sporf_forest_free need exclusive use.
 *  - Callbacks (progress / cancellation) are called ONLY on the thread that
 *    called into the core, never from a worker thread, so a binding may run
 *    interpreter code (R_CheckUserInterrupt, Python signal handlers) in them.
 *
 * The block between the CDEF markers is read verbatim by the Python build
 * (cffi cdef), so it contains no preprocessor lines.
 */
#ifndef SPORF_H
#define SPORF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPORF_VERSION_STRING "0.1.0"

/* SPORF_CDEF_BEGIN */

/* ---- status codes ---- */
enum {
    SPORF_OK = 0,
    SPORF_E_ARG = 1,          /* an argument or parameter is invalid        */
    SPORF_E_NOMEM = 2,        /* an allocation failed                        */
    SPORF_E_INTERRUPTED = 3,  /* the progress callback asked to stop         */
    SPORF_E_FORMAT = 4,       /* a model buffer is truncated or corrupt      */
    SPORF_E_THREAD = 5,       /* a worker thread could not be started        */
    SPORF_E_INTERNAL = 6      /* a broken invariant (a bug: please report)   */
};

typedef struct sporf_error {
    int code;
    char message[512];
} sporf_error;

/* A read-only view of a dense matrix of doubles: element (i, j) is
 * data[i * row_stride + j * col_stride]. */
typedef struct sporf_matrix {
    const double *data;
    int64_t nrow;
    int64_t ncol;
    int64_t row_stride;
    int64_t col_stride;
} sporf_matrix;

/* ---- parameters ---- */
enum {
    SPORF_PROJ_AXIS = 0,      /* classic random forest: one distinct feature per candidate */
    SPORF_PROJ_SPARSE = 1,    /* SPORF: sparse +-1 projections (default)                   */
    SPORF_PROJ_PATCH = 2,     /* MORF: patches of a feature grid (see the patch fields)    */
    SPORF_PROJ_FRC = 3,       /* Breiman's Forest-RC: L = ceil(feature_combinations) distinct
                                 features per candidate (at most p), weights U(-1, 1)      */
    SPORF_PROJ_GAUSSIAN = 4,  /* positions as SPARSE, weights N(0, 1)                      */
    SPORF_PROJ_POISSON = 5    /* Poisson(feature_combinations) distinct features per
                                 candidate (0 becomes 1, at most p), weights +-1           */
};

/* MORF patches: features live on an n_dims-dimensional grid data_dims, laid
 * out in row-major (C) order: feature = ((i0 * d1) + i1) * d2 + i2 ... */
enum {
    SPORF_MAX_DIMS = 8        /* the patch arrays below have this many entries */
};

enum {
    SPORF_BOUNDARY_INSIDE = 0, /* a contiguous run lies fully inside its axis                  */
    SPORF_BOUNDARY_PAD = 1,    /* anchor in [-(size-1), D-1], cells outside dropped: every cell
                                  is equally likely to be covered (zero padding)               */
    SPORF_BOUNDARY_WRAP = 2    /* the axis is cyclic (circle, torus): runs wrap around         */
};

enum {
    SPORF_PATCH_UNIFORM = 0,   /* every cell of a patch has weight 1 (the patch sum)           */
    SPORF_PATCH_GAUSSIAN = 1   /* weight prod_k exp(-((o_k - c_k) / s_k)^2 * 8): o_k the cell's
                                  offset in the patch along axis k, c_k = (size_k - 1) / 2 its
                                  centre, s_k = size_k (sigma a quarter of the size)            */
};

enum {
    SPORF_CRIT_GINI = 0,          /* classification */
    SPORF_CRIT_ENTROPY = 1,       /* classification */
    SPORF_CRIT_SQUARED_ERROR = 2, /* regression (the only regression criterion) */
    SPORF_CRIT_FASTBIC = 3,       /* unsupervised: the URerF paper's Fast-BIC (two Gaussians
                                     per cut, the better of equal and unequal variances) */
    SPORF_CRIT_TWOMEANS = 4       /* unsupervised: exact one-dimensional two-means        */
};

/* What a forest predicts (sporf_forest_info.task). */
enum {
    SPORF_TASK_CLASSIFICATION = 0, /* leaf values: class distributions (n_classes per leaf) */
    SPORF_TASK_REGRESSION = 1,     /* leaf values: one mean per leaf (n_classes is 1)       */
    SPORF_TASK_UNSUPERVISED = 2    /* no response (URerF); leaf values: the leaf's share of
                                      its tree's sample weight (n_classes is 1)             */
};

/* Honest trees: what a leaf that received no estimation sample predicts. */
enum {
    SPORF_HONEST_EMPIRICAL = 0,   /* the tree's estimation sample: its class distribution or mean */
    SPORF_HONEST_UNIFORM = 1,     /* 1 / n_classes per class (classification only)                */
    SPORF_HONEST_IGNORE = 2       /* the tree abstains for that row; a row on which every tree
                                     abstains gets the mean of the trees' empirical priors      */
};

enum {
    SPORF_MAXF_SQRT = 0,      /* floor(sqrt(p)) for axis, ceil(sqrt(p)) for oblique (default) */
    SPORF_MAXF_LOG2 = 1,      /* floor(log2(p)), at least 1             */
    SPORF_MAXF_INT = 2,       /* max_features_value candidates          */
    SPORF_MAXF_FRACTION = 3,  /* floor(max_features_value * p), >= 1    */
    SPORF_MAXF_ALL = 4        /* p candidates                           */
};

enum {
    SPORF_CW_NONE = 0,
    SPORF_CW_BALANCED = 1,           /* n / (K * count_k) over the training set   */
    SPORF_CW_BALANCED_SUBSAMPLE = 2, /* the same, over each tree's bootstrap      */
    SPORF_CW_CUSTOM = 3              /* weights given per class by the caller     */
};

typedef struct sporf_params {
    int64_t n_estimators;          /* >= 1; default 100                                   */
    int32_t projection;            /* SPORF_PROJ_*; default SPORF_PROJ_SPARSE             */
    double feature_combinations;   /* mean non-zeros per sparse projection; default 1.5   */
    int32_t max_features_mode;     /* SPORF_MAXF_*; default SPORF_MAXF_SQRT               */
    double max_features_value;     /* count (INT) or fraction of p (FRACTION, may be > 1) */
    int32_t criterion;             /* SPORF_CRIT_*; default gini                          */
    int64_t max_depth;             /* <= 0: unlimited (default)                           */
    int64_t min_samples_split;     /* >= 2; default 2                                     */
    int64_t min_samples_leaf;      /* >= 1; default 1                                     */
    double min_impurity_decrease;  /* >= 0; default 0                                     */
    double min_weight_fraction_leaf; /* in [0, 0.5]: each child keeps at least this share
                                        of the tree's total sample weight; default 0     */
    int32_t bootstrap;             /* 0/1; default 1                                      */
    int64_t max_samples_count;     /* > 0: draw this many per tree (bootstrap only)       */
    double max_samples_fraction;   /* in (0, 1]: draw this fraction of n; 0: off          */
    int32_t class_weight_mode;     /* SPORF_CW_*; default none                            */
    int32_t n_jobs;                /* threads; <= 0 means all cores; default 1            */
    uint64_t random_state;         /* master seed; tree t uses a stream from (seed, t)    */
    /* Patch (MORF) projections, read only when projection == SPORF_PROJ_PATCH.
     * Each candidate is one patch: along axis k a run (or, when dim_contiguous[k]
     * is 0, a random subset) of size uniform in [min_patch_dims[k],
     * max_patch_dims[k]]; the patch is the product of the axes' cells. */
    int32_t n_dims;                /* 1 .. SPORF_MAX_DIMS; 0 (default) = not a patch forest */
    int64_t data_dims[8];          /* grid shape; the product must equal n_features        */
    int64_t min_patch_dims[8];     /* >= 1                                                  */
    int64_t max_patch_dims[8];     /* min_patch_dims[k] .. data_dims[k]                     */
    int32_t boundary[8];           /* SPORF_BOUNDARY_* per axis (WRAP needs length >= 2)    */
    int32_t dim_contiguous[8];     /* 1: contiguous runs; 0: random subsets (unordered axis) */
    int32_t patch_weights;         /* SPORF_PATCH_*; default uniform                        */
    /* Honesty: each tree's distinct in-bag rows are shuffled and a fraction
     * honest_fraction of them (rounded down) becomes the estimation part: the
     * tree is grown on the rest and its leaf values are computed from the
     * estimation part only. */
    double honest_fraction;        /* in [0, 1); 0 (default) = not honest                   */
    int32_t honest_prior;          /* SPORF_HONEST_*; default empirical                     */
    /* Sharding: a fit grows trees first_tree .. first_tree + n_estimators - 1
     * of the forest seeded by random_state (tree t draws from the stream
     * (random_state, t)), so shards grown separately -- on other threads,
     * processes or machines -- are exactly those trees of one big fit, and
     * sporf_forest_merge joins them into it. */
    int64_t first_tree;            /* >= 0; default 0                                       */
} sporf_params;

/* Fill *params with the defaults listed above. Never fails. */
void sporf_params_init(sporf_params *params);

/* Check parameters before any work; n_features is the number of columns the
 * forest will see (pass 0 to skip checks that need it). Returns SPORF_E_ARG
 * with a message naming the offending parameter. */
int sporf_params_check(const sporf_params *params, int64_t n_features, sporf_error *err);

/* The number of candidate projections per node that params give for p features. */
int64_t sporf_params_resolve_max_features(const sporf_params *params, int64_t n_features);

/* ---- progress and cancellation ----
 * Called on the calling thread about every 100 ms while work runs, and once at
 * the end, with the number of finished units (trees, or row blocks for
 * prediction) and the total. Return 0 to go on, non-zero to cancel: the call
 * then stops its workers within one node of work and returns
 * SPORF_E_INTERRUPTED, with nothing leaked. May be NULL. */
typedef int (*sporf_progress_fn)(void *user_data, int64_t done, int64_t total);

/* ---- the forest ---- */
typedef struct sporf_forest sporf_forest;

typedef struct sporf_forest_info {
    int64_t n_features;
    int32_t task;             /* SPORF_TASK_* */
    int32_t n_classes;        /* 1 for regression */
    int64_t n_trees;
    int64_t n_nodes;          /* summed over trees */
    int64_t n_leaves;         /* summed over trees */
    int64_t max_depth_seen;   /* deepest leaf over trees (root = depth 0) */
    int32_t format_version;   /* model format version the forest will be saved with */
} sporf_forest_info;

/* Grow a classification forest.
 *  X            n x p view of finite values at most 1e100 in magnitude (checked:
 *               NaN, infinity or larger values give SPORF_E_ARG; squared sums of
 *               larger ones could overflow).
 *  y            n class codes in [0, n_classes).
 *  n_classes    >= 1 (the binding decides what a single class means).
 *  sample_weight  n weights in [0, 1e100], or NULL for all ones.
 *  class_weight   n_classes positive weights when params->class_weight_mode is
 *                 SPORF_CW_CUSTOM, else NULL.
 *  oob_decision  NULL, or an n x n_classes row-major buffer that receives the
 *                out-of-bag class probabilities (rows that were in every
 *                bootstrap get all zeros and oob_count 0).
 *  oob_count     NULL, or n counts of trees for which each row was out of bag.
 *  progress/user_data: see sporf_progress_fn; units are trees, then one more
 *                unit for the OOB pass when requested.
 *  out           receives the new forest on SPORF_OK, NULL otherwise.
 * The caller owns X, y and the weights; they are not referenced after return. */
int sporf_forest_fit(const sporf_params *params, const sporf_matrix *X,
                     const int32_t *y, int32_t n_classes,
                     const double *sample_weight, const double *class_weight,
                     double *oob_decision, int64_t *oob_count,
                     sporf_progress_fn progress, void *user_data,
                     sporf_forest **out, sporf_error *err);

/* Grow a regression forest (criterion SPORF_CRIT_SQUARED_ERROR). As
 * sporf_forest_fit, with y n finite doubles of magnitude at most 1e100 and no
 * classes or class weights;
 * oob_prediction (NULL or n doubles) receives the out-of-bag mean prediction
 * (0 where oob_count is 0). The forest's "probabilities" are the leaf means:
 * sporf_forest_predict_proba with one output column gives the prediction. */
int sporf_forest_fit_regression(const sporf_params *params, const sporf_matrix *X,
                                const double *y, const double *sample_weight,
                                double *oob_prediction, int64_t *oob_count,
                                sporf_progress_fn progress, void *user_data,
                                sporf_forest **out, sporf_error *err);

/* Grow an unsupervised forest (URerF): criterion SPORF_CRIT_FASTBIC or
 * SPORF_CRIT_TWOMEANS, no response, no class weights, not honest. Each split
 * node draws candidate projections as a supervised forest does (any
 * projection, including patches) and cuts the candidate whose best cut
 * scores highest (see unsupervised.h for the scores). A node's stored gain,
 * read by the importances, is the decrease of the weighted sum of squares of
 * its projected values. Arguments as sporf_forest_fit. */
int sporf_forest_fit_unsupervised(const sporf_params *params, const sporf_matrix *X,
                                  const double *sample_weight,
                                  sporf_progress_fn progress, void *user_data,
                                  sporf_forest **out, sporf_error *err);

/* ---- forest proximity (any forest) ----
 * S(i, j) = (trees that put rows i and j in the same leaf) / (trees that
 * evaluated both). Every tree evaluates every row passed here (in-bag and
 * out-of-bag rows alike, as the URerF paper does), so the denominator is the
 * number of trees. `reference` holds the rows neighbours are taken from
 * (typically the training data); `query` the rows to find neighbours for, or
 * NULL for the reference rows themselves, in which case a row is never its
 * own neighbour.
 *
 * sporf_forest_neighbors: each query row's k most similar reference rows,
 * most similar first (ties: smaller reference index first); rows with fewer
 * than k rows of positive similarity are completed with similarity-0 rows in
 * index order. index_out and similarity_out are n_query x k, row-major. Never
 * materialises an n x n matrix: memory is O((n_ref + n_query) x n_trees) plus
 * O(n_ref) per thread. k must be in [1, n_ref] (n_ref - 1 when query is
 * NULL). Progress units are blocks of query rows. */
int sporf_forest_neighbors(const sporf_forest *forest, const sporf_matrix *reference,
                           const sporf_matrix *query, int64_t k, int32_t n_jobs,
                           int64_t *index_out, double *similarity_out,
                           sporf_progress_fn progress, void *user_data, sporf_error *err);

/* The dense n_query x n_ref proximity matrix (row-major, caller-allocated);
 * with query NULL it is the symmetric n_ref x n_ref matrix with ones on the
 * diagonal. The caller checks the size first (sporf_physical_memory). */
int sporf_forest_proximity_dense(const sporf_forest *forest, const sporf_matrix *reference,
                                 const sporf_matrix *query, int32_t n_jobs, double *out,
                                 sporf_progress_fn progress, void *user_data, sporf_error *err);

/* Bytes of physical memory of this machine, or 0 when unknown. */
int64_t sporf_physical_memory(void);

/* ---- shards ----
 * sporf_forest_merge: one forest made of copies of the trees of forests[0 ..
 * n_forests - 1], which must have the same task, features, classes, labels,
 * feature names and parameters apart from the tree range (first_tree,
 * n_estimators) and n_jobs; their tree ranges must tile one range without
 * gap or overlap (they may come in any order). The result is the forest a
 * single fit of that range grows: same trees in the same order, same model
 * bytes. The inputs are not modified; the caller owns *out. */
int sporf_forest_merge(const sporf_forest *const *forests, int64_t n_forests,
                       sporf_forest **out, sporf_error *err);

/* Out-of-bag predictions of a fitted forest for its training rows, for a
 * forest grown in shards (whose OOB pass saw only its own trees): the trees'
 * bootstrap draws are regenerated from the seed, so X must be the training
 * data, all rows in their fit order (only its row count is checked). out
 * is n x n_classes (row-major) and count n, as sporf_forest_fit fills them:
 * bit for bit what a single fit with oob_decision would return. Needs a
 * forest grown with bootstrap; not for unsupervised forests. */
int sporf_forest_oob_predict(const sporf_forest *forest, const sporf_matrix *X, int32_t n_jobs,
                             double *out, int64_t *count, sporf_error *err);

/* Release a forest; NULL is ignored. */
void sporf_forest_free(sporf_forest *forest);

/* Sizes and counts of a fitted forest. */
int sporf_forest_get_info(const sporf_forest *forest, sporf_forest_info *info, sporf_error *err);

/* The parameters the forest was grown with (as stored in the model). */
int sporf_forest_get_params(const sporf_forest *forest, sporf_params *params, sporf_error *err);

/* Mean of the trees' leaf values: out is n x n_classes, row-major,
 * caller-allocated. For classification these are class probabilities; for
 * regression (n_classes 1) the prediction. n_jobs <= 0 uses all cores. */
int sporf_forest_predict_proba(const sporf_forest *forest, const sporf_matrix *X,
                               int32_t n_jobs, double *out,
                               sporf_progress_fn progress, void *user_data,
                               sporf_error *err);

/* Leaf index per row and tree: out is n x n_trees, row-major. A leaf index
 * is the node's position in its tree (0 = root), as in scikit-learn's apply. */
int sporf_forest_apply(const sporf_forest *forest, const sporf_matrix *X,
                       int32_t n_jobs, int64_t *out,
                       sporf_progress_fn progress, void *user_data,
                       sporf_error *err);

/* Impurity-based importances, n_features doubles summing to 1 (all zeros when
 * no tree split). An oblique split's weighted impurity decrease is shared by
 * its features in proportion to |weight|; each tree's vector is normalized,
 * then the trees are averaged and normalized again. */
int sporf_forest_feature_importances(const sporf_forest *forest, double *out, sporf_error *err);

/* The MORF papers' usage count: how often each feature appears in the
 * projections of split nodes, over all trees, divided by the total (out has
 * n_features doubles summing to 1, all zeros when no tree has a split). */
int sporf_forest_feature_usage(const sporf_forest *forest, double *out, sporf_error *err);

/* Projection importance (SPORF paper, section 4.5): the weighted impurity
 * decrease of the split nodes summed per distinct projection, over all trees,
 * divided by the total over all projections. Two projections that differ only
 * in sign are one (a projection is stored with its features ascending and its
 * first weight positive). Rows come sorted by importance, largest first (ties:
 * by features, then weights, so the order is deterministic).
 * Two-call: with any output NULL, only *n_out (distinct projections) and
 * *nnz_out (their total non-zeros) are written. Otherwise start (n_out + 1
 * offsets into feature/weight), feature and weight (nnz_out each) and
 * importance (n_out) are filled. */
int sporf_forest_projection_importances(const sporf_forest *forest, int64_t *n_out, int64_t *nnz_out,
                                        int64_t *start, int32_t *feature, double *weight,
                                        double *importance, sporf_error *err);

/* ---- labels and feature names kept in the model ----
 * Strings are stored as one blob of NUL-terminated UTF-8 strings. `kind`
 * is a free tag for the binding (e.g. 0 text, 1 integer, 2 float, 3 logical)
 * so each language can restore its own label type. */
enum {
    SPORF_STR_CLASSES = 0,        /* n_classes strings, or none */
    SPORF_STR_FEATURE_NAMES = 1   /* n_features strings, or none */
};

/* Copy blob (len bytes, holding exactly `count` NUL-terminated strings) into
 * the forest. Not thread-safe against other calls on the same forest. */
int sporf_forest_set_strings(sporf_forest *forest, int32_t which, int32_t kind,
                             const char *blob, int64_t len, int64_t count,
                             sporf_error *err);

/* Two-call read: with buf == NULL or cap too small, only the length,
 * count and kind outputs are written. */
int sporf_forest_get_strings(const sporf_forest *forest, int32_t which,
                             char *buf, int64_t cap, int64_t *len_out,
                             int64_t *count_out, int32_t *kind_out,
                             sporf_error *err);

/* ---- model format ----
 * sporf_forest_save: with buf == NULL (or cap too small) only *size_out is
 * written; call again with a buffer of that size. The bytes depend only on
 * the model (same seed and data => same bytes for any thread count).
 * sporf_forest_load validates everything (sizes, indices, values, checksum)
 * and returns SPORF_E_FORMAT with a message on any corruption. */
int sporf_forest_save(const sporf_forest *forest, uint8_t *buf, int64_t cap,
                      int64_t *size_out, sporf_error *err);
int sporf_forest_load(const uint8_t *buf, int64_t len, sporf_forest **out, sporf_error *err);

/* Number of CPU cores the core will use for n_jobs <= 0. */
int32_t sporf_num_cores(void);

/* SPORF_CDEF_END */

#ifdef __cplusplus
}
#endif

#endif /* SPORF_H */
