/* api.c -- errors, parameters, and the forest handle's simple accessors. */
#include "core.h"
#include "packed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sporf_set_error(sporf_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void sporf_clear_error(sporf_error *err)
{
    if (err) {
        err->code = SPORF_OK;
        err->message[0] = '\0';
    }
}

void sporf_params_init(sporf_params *p)
{
    memset(p, 0, sizeof *p);
    p->n_estimators = 100;
    p->projection = SPORF_PROJ_SPARSE;
    p->feature_combinations = 1.5;
    p->max_features_mode = SPORF_MAXF_SQRT;
    p->max_features_value = 0.0;
    p->criterion = SPORF_CRIT_GINI;
    p->max_depth = 0;
    p->min_samples_split = 2;
    p->min_samples_leaf = 1;
    p->min_impurity_decrease = 0.0;
    p->min_weight_fraction_leaf = 0.0;
    p->bootstrap = 1;
    p->max_samples_count = 0;
    p->max_samples_fraction = 0.0;
    p->class_weight_mode = SPORF_CW_NONE;
    p->n_jobs = 1;
    p->random_state = 0;
}

int64_t sporf_params_resolve_max_features(const sporf_params *p, int64_t n_features)
{
    double d;
    switch (p->max_features_mode) {
    case SPORF_MAXF_SQRT:
        /* Axis: floor(sqrt(p)) as scikit-learn. Oblique: ceil(sqrt(p)), the
         * default d of the SPORF paper's R package (rerf), which keeps
         * axis-optimal problems with few features as accurate as a RF. */
        d = p->projection == SPORF_PROJ_AXIS ? floor(sqrt((double)n_features))
                                              : ceil(sqrt((double)n_features));
        break;
    case SPORF_MAXF_LOG2: d = floor(log2((double)n_features)); break;
    case SPORF_MAXF_INT: d = p->max_features_value; break;
    case SPORF_MAXF_FRACTION: d = floor(p->max_features_value * (double)n_features); break;
    default: d = (double)n_features; break;
    }
    if (!(d >= 1.0)) d = 1.0;
    if (p->projection == SPORF_PROJ_AXIS && d > (double)n_features)
        d = (double)n_features; /* only p distinct axis directions exist */
    if (d > 1e9) d = 1e9;
    return (int64_t)d;
}

/* Patch parameters: a grid whose size is n_features (when known), patch
 * bounds inside it, and boundaries that make sense for each axis. */
static int check_patch(const sporf_params *p, int64_t n_features, sporf_error *err)
{
    if (p->n_dims < 1 || p->n_dims > SPORF_MAX_DIMS)
        return sporf_set_error(err, SPORF_E_ARG, "data_dims must have 1 to %d axes, got %d", SPORF_MAX_DIMS,
                               p->n_dims);
    double volume = 1.0, max_volume = 1.0;
    for (int32_t k = 0; k < p->n_dims; k++) {
        const int64_t D = p->data_dims[k], lo = p->min_patch_dims[k], hi = p->max_patch_dims[k];
        if (D < 1)
            return sporf_set_error(err, SPORF_E_ARG, "data_dims[%d] must be >= 1, got %lld", k, (long long)D);
        if (lo < 1)
            return sporf_set_error(err, SPORF_E_ARG, "min_patch_dims[%d] must be >= 1, got %lld", k, (long long)lo);
        if (hi < lo)
            return sporf_set_error(err, SPORF_E_ARG, "max_patch_dims[%d] = %lld is below min_patch_dims[%d] = %lld",
                                   k, (long long)hi, k, (long long)lo);
        if (hi > D)
            return sporf_set_error(err, SPORF_E_ARG,
                                   "max_patch_dims[%d] = %lld is outside the grid: data_dims[%d] = %lld", k,
                                   (long long)hi, k, (long long)D);
        if (p->boundary[k] < SPORF_BOUNDARY_INSIDE || p->boundary[k] > SPORF_BOUNDARY_WRAP)
            return sporf_set_error(err, SPORF_E_ARG, "boundary[%d]: code %d is unknown", k, p->boundary[k]);
        if (p->boundary[k] == SPORF_BOUNDARY_WRAP && D < 2)
            return sporf_set_error(err, SPORF_E_ARG,
                                   "a 'wrap' boundary needs a cyclic axis of length >= 2, but axis %d has length %lld",
                                   k, (long long)D);
        if (p->dim_contiguous[k] != 0 && p->dim_contiguous[k] != 1)
            return sporf_set_error(err, SPORF_E_ARG, "dim_contiguous[%d] must be 0 or 1", k);
        volume *= (double)D;
        max_volume *= (double)hi;
    }
    if (n_features > 0 && volume != (double)n_features)
        return sporf_set_error(err, SPORF_E_ARG, "data_dims describe %.0f features but the data has %lld", volume,
                               (long long)n_features);
    if (p->patch_weights != SPORF_PATCH_UNIFORM && p->patch_weights != SPORF_PATCH_GAUSSIAN)
        return sporf_set_error(err, SPORF_E_ARG, "patch_weights: code %d is unknown", p->patch_weights);
    if (n_features > 0 && max_volume * (double)sporf_params_resolve_max_features(p, n_features) > 5e8)
        return sporf_set_error(err, SPORF_E_ARG, "max_patch_dims x max_features = %.0f non-zeros per node is too many",
                               max_volume * (double)sporf_params_resolve_max_features(p, n_features));
    return SPORF_OK;
}

int sporf_params_check(const sporf_params *p, int64_t n_features, sporf_error *err)
{
    sporf_clear_error(err);
    if (!p)
        return sporf_set_error(err, SPORF_E_ARG, "params is NULL");
    if (p->n_estimators < 1)
        return sporf_set_error(err, SPORF_E_ARG, "n_estimators must be >= 1, got %lld", (long long)p->n_estimators);
    if (p->n_estimators > 100000000)
        return sporf_set_error(err, SPORF_E_ARG, "n_estimators = %lld is too large", (long long)p->n_estimators);
    if (p->first_tree < 0 || p->first_tree > ((int64_t)1 << 53))
        return sporf_set_error(err, SPORF_E_ARG, "first_tree must be an integer in [0, 2^53], got %lld",
                               (long long)p->first_tree);
    if (p->projection < SPORF_PROJ_AXIS || p->projection > SPORF_PROJ_POISSON)
        return sporf_set_error(err, SPORF_E_ARG,
                               "projection must be 'sparse', 'axis', 'patch', 'frc', 'gaussian' or 'poisson' "
                               "(code %d is unknown)", p->projection);
    if (p->projection == SPORF_PROJ_PATCH) {
        int rc = check_patch(p, n_features, err);
        if (rc != SPORF_OK)
            return rc;
    }
    if (!(p->feature_combinations > 0.0) || !isfinite(p->feature_combinations))
        return sporf_set_error(err, SPORF_E_ARG, "feature_combinations must be a finite number > 0, got %g",
                               p->feature_combinations);
    switch (p->max_features_mode) {
    case SPORF_MAXF_SQRT: case SPORF_MAXF_LOG2: case SPORF_MAXF_ALL: break;
    case SPORF_MAXF_INT:
        if (!(p->max_features_value >= 1.0) || p->max_features_value != floor(p->max_features_value) ||
            p->max_features_value > 1e9)
            return sporf_set_error(err, SPORF_E_ARG, "max_features must be an integer >= 1, got %g", p->max_features_value);
        break;
    case SPORF_MAXF_FRACTION:
        if (!(p->max_features_value > 0.0) || !isfinite(p->max_features_value))
            return sporf_set_error(err, SPORF_E_ARG, "max_features as a fraction must be > 0, got %g", p->max_features_value);
        break;
    default:
        return sporf_set_error(err, SPORF_E_ARG, "max_features mode %d is unknown", p->max_features_mode);
    }
    if (p->criterion < SPORF_CRIT_GINI || p->criterion > SPORF_CRIT_TWOMEANS)
        return sporf_set_error(err, SPORF_E_ARG,
                               "criterion must be 'gini', 'entropy', 'squared_error', 'fastbic' or 'twomeans' (code %d is unknown)",
                               p->criterion);
    if (!(p->honest_fraction >= 0.0 && p->honest_fraction < 1.0))
        return sporf_set_error(err, SPORF_E_ARG, "honest_fraction must be in [0, 1), got %g", p->honest_fraction);
    if (p->honest_prior < SPORF_HONEST_EMPIRICAL || p->honest_prior > SPORF_HONEST_IGNORE)
        return sporf_set_error(err, SPORF_E_ARG, "honest_prior must be 'empirical', 'uniform' or 'ignore' (code %d is unknown)",
                               p->honest_prior);
    if (p->criterion == SPORF_CRIT_SQUARED_ERROR && p->honest_prior == SPORF_HONEST_UNIFORM)
        return sporf_set_error(err, SPORF_E_ARG,
                               "honest_prior 'uniform' is a class distribution; a regression forest takes 'empirical' or 'ignore'");
    if (p->max_depth < 0)
        return sporf_set_error(err, SPORF_E_ARG, "max_depth must be >= 1 or unlimited, got %lld", (long long)p->max_depth);
    if (p->min_samples_split < 2)
        return sporf_set_error(err, SPORF_E_ARG, "min_samples_split must be >= 2, got %lld", (long long)p->min_samples_split);
    if (p->min_samples_leaf < 1)
        return sporf_set_error(err, SPORF_E_ARG, "min_samples_leaf must be >= 1, got %lld", (long long)p->min_samples_leaf);
    if (!(p->min_impurity_decrease >= 0.0) || !isfinite(p->min_impurity_decrease))
        return sporf_set_error(err, SPORF_E_ARG, "min_impurity_decrease must be >= 0, got %g", p->min_impurity_decrease);
    if (!(p->min_weight_fraction_leaf >= 0.0 && p->min_weight_fraction_leaf <= 0.5))
        return sporf_set_error(err, SPORF_E_ARG, "min_weight_fraction_leaf must be in [0, 0.5], got %g",
                               p->min_weight_fraction_leaf);
    if (p->bootstrap != 0 && p->bootstrap != 1)
        return sporf_set_error(err, SPORF_E_ARG, "bootstrap must be 0 or 1");
    if (p->max_samples_count < 0)
        return sporf_set_error(err, SPORF_E_ARG, "max_samples must be >= 1, got %lld", (long long)p->max_samples_count);
    if (!(p->max_samples_fraction >= 0.0 && p->max_samples_fraction <= 1.0))
        return sporf_set_error(err, SPORF_E_ARG, "max_samples as a fraction must be in (0, 1], got %g", p->max_samples_fraction);
    if (p->max_samples_count > 0 && p->max_samples_fraction > 0.0)
        return sporf_set_error(err, SPORF_E_ARG, "max_samples: give a count or a fraction, not both");
    if (p->class_weight_mode < SPORF_CW_NONE || p->class_weight_mode > SPORF_CW_CUSTOM)
        return sporf_set_error(err, SPORF_E_ARG, "class_weight mode %d is unknown", p->class_weight_mode);
    if (n_features > 0 && (p->projection == SPORF_PROJ_SPARSE || p->projection == SPORF_PROJ_GAUSSIAN)) {
        int64_t d = sporf_params_resolve_max_features(p, n_features);
        double nnz = ceil(p->feature_combinations * (double)d);
        if (nnz > 5e8)
            return sporf_set_error(err, SPORF_E_ARG,
                                   "feature_combinations * max_features = %g non-zeros per node is too many", nnz);
    }
    return SPORF_OK;
}

int sporf_tree_alloc(sporf_tree *tree, int32_t n_nodes, int32_t n_leaves, int32_t n_proj, int32_t K)
{
    tree->n_nodes = n_nodes;
    tree->n_leaves = n_leaves;
    tree->n_proj = n_proj;
    tree->nodes = calloc((size_t)n_nodes, sizeof *tree->nodes);
    tree->proj_feature = malloc((size_t)(n_proj > 0 ? n_proj : 1) * sizeof *tree->proj_feature);
    tree->proj_weight = malloc((size_t)(n_proj > 0 ? n_proj : 1) * sizeof *tree->proj_weight);
    tree->leaf_values = malloc((size_t)n_leaves * (size_t)K * sizeof *tree->leaf_values);
    return tree->nodes && tree->proj_feature && tree->proj_weight && tree->leaf_values;
}

void sporf_tree_release(sporf_tree *tree)
{
    if (!tree) return;
    free(tree->nodes);
    free(tree->proj_feature);
    free(tree->proj_weight);
    free(tree->leaf_values);
    free(tree->prior);
    free(tree->pnodes);
    memset(tree, 0, sizeof *tree);
}

sporf_forest *sporf_forest_alloc(void)
{
    return calloc(1, sizeof(sporf_forest));
}

void sporf_forest_free(sporf_forest *f)
{
    if (!f) return;
    if (f->trees)
        for (int64_t t = 0; t < f->n_trees; t++) sporf_tree_release(&f->trees[t]);
    free(f->trees);
    sporf_packed_free(f->packed);
    for (int i = 0; i < 2; i++) free(f->strings[i].blob);
    free(f);
}

int sporf_forest_get_info(const sporf_forest *f, sporf_forest_info *info, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !info)
        return sporf_set_error(err, SPORF_E_ARG, "get_info: forest and info are required");
    memset(info, 0, sizeof *info);
    info->n_features = f->n_features;
    info->task = f->task;
    info->n_classes = f->n_classes;
    info->n_trees = f->n_trees;
    info->format_version = SPORF_MODEL_FORMAT_VERSION;
    for (int64_t t = 0; t < f->n_trees; t++) {
        info->n_nodes += f->trees[t].n_nodes;
        info->n_leaves += f->trees[t].n_leaves;
        if (f->trees[t].depth > info->max_depth_seen) info->max_depth_seen = f->trees[t].depth;
    }
    return SPORF_OK;
}

int sporf_forest_get_params(const sporf_forest *f, sporf_params *params, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !params)
        return sporf_set_error(err, SPORF_E_ARG, "get_params: forest and params are required");
    *params = f->params;
    return SPORF_OK;
}

/* Count NUL-terminated strings in a blob; -1 if it does not end with NUL. */
static int64_t count_strings(const char *blob, int64_t len)
{
    if (len == 0) return 0;
    if (blob[len - 1] != '\0') return -1;
    int64_t c = 0;
    for (int64_t i = 0; i < len; i++) c += blob[i] == '\0';
    return c;
}

int sporf_forest_set_strings(sporf_forest *f, int32_t which, int32_t kind,
                             const char *blob, int64_t len, int64_t count, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || which < 0 || which > 1 || len < 0 || (len > 0 && !blob))
        return sporf_set_error(err, SPORF_E_ARG, "set_strings: bad arguments");
    if (count_strings(blob, len) != count)
        return sporf_set_error(err, SPORF_E_ARG, "set_strings: the blob does not hold %lld NUL-terminated strings",
                               (long long)count);
    int64_t want = which == SPORF_STR_CLASSES ? f->n_classes : f->n_features;
    if (count != want && count != 0)
        return sporf_set_error(err, SPORF_E_ARG, "set_strings: expected %lld strings, got %lld",
                               (long long)want, (long long)count);
    char *copy = NULL;
    if (len > 0) {
        copy = malloc((size_t)len);
        if (!copy) return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
        memcpy(copy, blob, (size_t)len);
    }
    free(f->strings[which].blob);
    f->strings[which].blob = copy;
    f->strings[which].len = len;
    f->strings[which].count = count;
    f->strings[which].kind = kind;
    return SPORF_OK;
}

int sporf_forest_get_strings(const sporf_forest *f, int32_t which, char *buf, int64_t cap,
                             int64_t *len_out, int64_t *count_out, int32_t *kind_out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || which < 0 || which > 1)
        return sporf_set_error(err, SPORF_E_ARG, "get_strings: bad arguments");
    const sporf_strings *s = &f->strings[which];
    if (len_out) *len_out = s->len;
    if (count_out) *count_out = s->count;
    if (kind_out) *kind_out = s->kind;
    if (buf && cap >= s->len && s->len > 0)
        memcpy(buf, s->blob, (size_t)s->len);
    return SPORF_OK;
}
