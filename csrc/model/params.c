/* params.c -- what the parameter spec cannot say on its own: checks that
 * relate fields, the resolution of a user's forms against the data, and the
 * parameter block of model formats 1-5. Per-field code is generated
 * (params_gen.c). */
#include "model/params.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int64_t sporf_params_resolve_max_features(const sporf_params *p, int64_t n_features)
{
    double d;
    switch (p->max_features.form) {
    case SPORF_FORM_SQRT:
        /* Axis: floor(sqrt(p)) as scikit-learn. Oblique: ceil(sqrt(p)), the
         * default d of the SPORF paper's R package (rerf), which keeps
         * axis-optimal problems with few features as accurate as a RF. */
        d = p->projection == SPORF_PROJ_AXIS ? floor(sqrt((double)n_features)) : ceil(sqrt((double)n_features));
        break;
    case SPORF_FORM_LOG2: d = floor(log2((double)n_features)); break;
    case SPORF_FORM_COUNT: d = p->max_features.value; break;
    case SPORF_FORM_FRACTION: d = floor(p->max_features.value * (double)n_features); break;
    default: d = (double)n_features; break;
    }
    if (!(d >= 1.0)) d = 1.0;
    if (p->projection == SPORF_PROJ_AXIS && d > (double)n_features)
        d = (double)n_features; /* only p distinct axis directions exist */
    if (d > 1e9) d = 1e9;
    return (int64_t)d;
}

int64_t sporf_params_resolve_axis_features(const sporf_params *p, int64_t n_features)
{
    if (p->projection == SPORF_PROJ_AXIS)
        return 0; /* the candidates are single features already */
    double k;
    switch (p->axis_features.form) {
    case SPORF_FORM_COUNT: k = p->axis_features.value; break;
    case SPORF_FORM_FRACTION: k = ceil(p->axis_features.value * (double)n_features); break;
    case SPORF_FORM_SQRT: k = ceil(sqrt((double)n_features)); break;
    case SPORF_FORM_LOG2: k = floor(log2((double)n_features)); break;
    default: k = (double)n_features; break;
    }
    if (!(k >= 0.0)) k = 0.0;
    if (k > (double)n_features) k = (double)n_features; /* only p distinct features exist */
    return (int64_t)k;
}

int32_t sporf_params_tune_grid(const sporf_params *base, int64_t p, sporf_params *out)
{
    const int64_t d0 = sporf_params_resolve_max_features(base, p);
    sporf_params d_values[3];
    int32_t n_d = 0;
    d_values[n_d++] = *base; /* the base keeps its own form ("sqrt" stays "sqrt") */
    int64_t last = d0;
    for (int m = 2; m <= 4; m *= 2) {
        int64_t d = d0 * m;
        if (base->projection == SPORF_PROJ_AXIS && d > p)
            d = p; /* only p distinct single features */
        if (d <= last)
            continue;
        sporf_params q = *base;
        q.max_features.form = SPORF_FORM_COUNT;
        q.max_features.value = (double)d;
        d_values[n_d++] = q;
        last = d;
    }
    int32_t n = 0;
    for (int32_t i = 0; i < n_d; i++) {
        out[n++] = d_values[i];
        sporf_params q = d_values[i];
        if (base->projection == SPORF_PROJ_PATCH) {
            /* MORF: patches up to twice as large (within the grid) */
            int changed = 0;
            for (int32_t k = 0; k < base->n_dims; k++) {
                int64_t lo, hi;
                sporf_patch_bounds(base, k, &lo, &hi);
                int64_t hi2 = 2 * hi < base->data_dims[k] ? 2 * hi : base->data_dims[k];
                changed |= hi2 > hi;
                q.max_patch_dims[k] = hi2;
            }
            if (changed)
                out[n++] = q;
        } else if (base->projection != SPORF_PROJ_AXIS) {
            q.feature_combinations = 2.0 * base->feature_combinations; /* denser projections */
            out[n++] = q;
        }
    }
    return n;
}

/* base with d doubled (a count; "axis" at most p). */
static sporf_params doubled_d(const sporf_params *base, int64_t p)
{
    sporf_params q = *base;
    int64_t d = 2 * sporf_params_resolve_max_features(base, p);
    if (base->projection == SPORF_PROJ_AXIS && d > p)
        d = p;
    q.max_features.form = SPORF_FORM_COUNT;
    q.max_features.value = (double)d;
    return q;
}

static sporf_params with_random_cuts(sporf_params q)
{
    q.splitter = SPORF_SPLITTER_RANDOM;
    return q;
}

int32_t sporf_params_tune_structure_grid(const sporf_params *base, int64_t p, sporf_params *out)
{
    int32_t n = 0;
    out[n++] = *base;
    out[n++] = with_random_cuts(*base);
    if (base->projection == SPORF_PROJ_PATCH) {
        sporf_params q = doubled_d(base, p);
        out[n++] = q;
        out[n++] = with_random_cuts(q);
        q = *base;
        int changed = 0;
        for (int32_t k = 0; k < base->n_dims; k++) {
            int64_t lo, hi;
            sporf_patch_bounds(base, k, &lo, &hi);
            const int64_t hi2 = 2 * hi < base->data_dims[k] ? 2 * hi : base->data_dims[k];
            changed |= hi2 > hi;
            q.max_patch_dims[k] = hi2;
        }
        if (changed) {
            out[n++] = q;
            out[n++] = with_random_cuts(q);
        }
        return n;
    }
    /* the other family of candidates: axis-aligned for an oblique forest,
     * sparse oblique for an axis-aligned one */
    sporf_params other = *base;
    other.projection = base->projection == SPORF_PROJ_AXIS ? SPORF_PROJ_SPARSE : SPORF_PROJ_AXIS;
    out[n++] = other;
    out[n++] = with_random_cuts(other);
    const sporf_params *oblique = base->projection == SPORF_PROJ_AXIS ? &other : base;
    sporf_params plain = *oblique;
    plain.axis_features.form = SPORF_FORM_COUNT;
    plain.axis_features.value = 0.0;
    plain.guided_features = 0;
    out[n++] = plain;
    sporf_params dense = *oblique;
    dense.feature_combinations = 2.0 * oblique->feature_combinations;
    out[n++] = dense;
    const sporf_params wide = doubled_d(oblique, p);
    out[n++] = wide;
    out[n++] = with_random_cuts(wide);
    return n;
}

sporf_params sporf_params_shard(const sporf_params *p, int64_t from, int64_t to)
{
    sporf_params q = *p;
    q.first_tree = p->first_tree + from;
    q.n_estimators = to - from;
    return q;
}

int64_t sporf_params_tune_trees(const sporf_params *p, int32_t halvings)
{
    const int64_t T = p->n_estimators;
    return (T + ((int64_t)1 << halvings) - 1) >> halvings;
}

int sporf_params_leaf_auto(const sporf_params *p)
{
    return p->min_samples_leaf.form == SPORF_FORM_AUTO;
}

int64_t sporf_params_leaf_auto_grown(int64_t n)
{
    return n > SPORF_LEAF_GROWN_ONE_MAX ? 2 : 1;
}

int64_t sporf_params_leaf_chosen(const sporf_params *p)
{
    return sporf_params_leaf_auto(p) ? (int64_t)p->min_samples_leaf.value : 0;
}

void sporf_params_set_leaf_chosen(sporf_params *p, int64_t k)
{
    p->min_samples_leaf.value = (double)k;
}

int sporf_params_leaf_auto_error(sporf_error *err, const char *why)
{
    return sporf_set_error(err, SPORF_E_ARG, "min_samples_leaf \"auto\" chooses the leaf size out of bag: %s", why);
}

int sporf_params_no_rows_out_error(sporf_error *err, const char *what)
{
    return sporf_set_error(err, SPORF_E_ARG, "%s needs rows left out of the trees: a forest grown with "
                                             "bootstrap=True, or with max_samples below all the rows", what);
}

int sporf_params_draws_error(sporf_error *err, int64_t draws, int64_t n_total)
{
    return sporf_param_error(err, "max_samples", "at most the number of rows", "%lld for %lld rows",
                             (long long)draws, (long long)n_total);
}

int sporf_params_check_tunable(const sporf_params *p, sporf_error *err)
{
    if (!sporf_params_samples_rows(p))
        return sporf_set_error(err, SPORF_E_ARG,
                               "tune_oob needs rows left out of each tree (bootstrap on, or max_samples below all "
                               "the rows without it): the out-of-bag rows score the candidates");
    return SPORF_OK;
}

/* A count, or a fraction of n rounded up, at least `least`. */
static int64_t resolve_rows(const sporf_amount *a, int64_t n, int64_t least)
{
    double v;
    switch (a->form) {
    case SPORF_FORM_COUNT: v = a->value; break;
    case SPORF_FORM_FRACTION: v = ceil(a->value * (double)n); break;
    case SPORF_FORM_SQRT: v = ceil(sqrt((double)n)); break;
    case SPORF_FORM_AUTO: v = (double)least; break; /* the size grown to, chosen after (leaf_choice.h) */
    default: v = (double)n; break;
    }
    if (!(v >= (double)least)) v = (double)least;
    if (v > 9007199254740992.0) v = 9007199254740992.0;
    return (int64_t)v;
}

int64_t sporf_resolve_min_samples_split(const sporf_params *p, int64_t n)
{
    return resolve_rows(&p->min_samples_split, n, 2);
}

int64_t sporf_resolve_min_samples_leaf(const sporf_params *p, int64_t n)
{
    return resolve_rows(&p->min_samples_leaf, n, sporf_params_leaf_auto(p) ? sporf_params_leaf_auto_grown(n) : 1);
}

int sporf_params_samples_rows(const sporf_params *p)
{
    return p->bootstrap || p->max_samples.form != SPORF_FORM_ALL;
}

int64_t sporf_resolve_draws(const sporf_params *p, int64_t n)
{
    if (!sporf_params_samples_rows(p))
        return n;
    switch (p->max_samples.form) {
    case SPORF_FORM_COUNT:
        /* an isolation forest's psi: at most the rows there are (the paper's
         * 256 on a smaller data set is every row) */
        if (p->criterion == SPORF_CRIT_ISOLATION && p->max_samples.value > (double)n)
            return n;
        return (int64_t)p->max_samples.value;
    case SPORF_FORM_FRACTION: {
        /* rounded to the nearest (scikit-learn's rule), at least one row */
        const int64_t d = (int64_t)round(p->max_samples.value * (double)n);
        return d < 1 ? 1 : d;
    }
    default: return n;
    }
}

void sporf_patch_bounds(const sporf_params *p, int32_t k, int64_t *lo, int64_t *hi)
{
    const int64_t D = p->data_dims[k];
    *lo = p->min_patch_dims[k] > 0 ? p->min_patch_dims[k] : 1;
    if (p->max_patch_dims[k] > 0) {
        *hi = p->max_patch_dims[k];
    } else {
        int64_t h = (int64_t)ceil(sqrt((double)D));
        if (h > D) h = D;
        *hi = h > *lo ? h : *lo;
    }
}

/* Patch parameters: a grid whose size is n_features (when known), patch
 * bounds inside it, and boundaries that make sense for each axis. */
static int check_patch(const sporf_params *p, int64_t n_features, sporf_error *err)
{
    if (p->n_dims < 1)
        return sporf_set_error(err, SPORF_E_ARG, "a patch forest needs data_dims (1 to %d axes)", SPORF_MAX_DIMS);
    double volume = 1.0, max_volume = 1.0;
    for (int32_t k = 0; k < p->n_dims; k++) {
        const int64_t D = p->data_dims[k];
        int64_t lo, hi;
        sporf_patch_bounds(p, k, &lo, &hi);
        if (hi < lo)
            return sporf_set_error(err, SPORF_E_ARG, "max_patch_dims[%d] = %lld is below min_patch_dims[%d] = %lld",
                                   k, (long long)hi, k, (long long)lo);
        if (hi > D)
            return sporf_set_error(err, SPORF_E_ARG,
                                   "max_patch_dims[%d] = %lld is outside the grid: data_dims[%d] = %lld", k,
                                   (long long)hi, k, (long long)D);
        if (p->boundary[k] == SPORF_BOUNDARY_WRAP && D < 2)
            return sporf_set_error(err, SPORF_E_ARG,
                                   "a 'wrap' boundary needs a cyclic axis of length >= 2, but axis %d has length %lld",
                                   k, (long long)D);
        volume *= (double)D;
        max_volume *= (double)hi;
    }
    if (n_features > 0 && volume != (double)n_features) {
        /* The one message for a grid that does not fit the data: both
         * bindings pass the user's grid here unchecked. */
        char grid[SPORF_MAX_DIMS * 24];
        size_t used = 0;
        for (int32_t k = 0; k < p->n_dims && used < sizeof grid; k++)
            used += (size_t)snprintf(grid + used, sizeof grid - used, "%s%lld", k ? " x " : "",
                                     (long long)p->data_dims[k]);
        return sporf_set_error(err, SPORF_E_ARG, "data_dims (%s) describe %.0f features, but the data has %lld",
                               grid, volume, (long long)n_features);
    }
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
    int rc = sporf_params_check_fields(p, err);
    if (rc != SPORF_OK)
        return rc;
    if (p->projection == SPORF_PROJ_PATCH) {
        if ((rc = check_patch(p, n_features, err)) != SPORF_OK)
            return rc;
    } else if (p->n_dims != 0) {
        return sporf_set_error(err, SPORF_E_ARG, "data_dims and the patch parameters apply to projection \"patch\" only");
    }
    if (p->criterion == SPORF_CRIT_SQUARED_ERROR && p->honest_prior == SPORF_HONEST_UNIFORM)
        return sporf_set_error(err, SPORF_E_ARG,
                               "honest_prior \"uniform\" is a class distribution; a regression forest takes "
                               "\"empirical\" or \"ignore\"");
    if (n_features > 0 && (p->projection == SPORF_PROJ_SPARSE || p->projection == SPORF_PROJ_GAUSSIAN)) {
        const int64_t d = sporf_params_resolve_max_features(p, n_features);
        const double nnz = ceil(p->feature_combinations * (double)d);
        if (nnz > 5e8)
            return sporf_set_error(err, SPORF_E_ARG,
                                   "feature_combinations * max_features = %g non-zeros per node is too many", nnz);
    }
    return SPORF_OK;
}

/* ---- model formats 1-5 ----
 * i64 n_estimators, i32 projection, f64 feature_combinations, i32 max_features
 * mode (the codes of SPORF_FORM_*), f64 max_features value, i32 criterion,
 * i64 max_depth, i64 min_samples_split, i64 min_samples_leaf, f64
 * min_impurity_decrease, f64 min_weight_fraction_leaf, i32 bootstrap, i64
 * max_samples count (0: none), f64 max_samples fraction (0: none), i32
 * class_weight, u64 random_state, [>= 2] i32 n_dims, 8 x (i64 data_dims, i64
 * min_patch_dims, i64 max_patch_dims, i32 boundary, i32 dim_contiguous), i32
 * patch_weights, [>= 3] f64 honest_fraction, i32 honest_prior, [>= 5] i64
 * first_tree. Sizes were stored resolved (counts). Entries past n_dims are
 * set to 0, as format 6 requires. */
void sporf_params_read_legacy(sporf_params *p, sporf_reader *r, uint32_t version)
{
    sporf_params_init(p);
    p->n_estimators = sporf_get_i64(r);
    p->projection = sporf_get_i32(r);
    p->feature_combinations = sporf_get_f64(r);
    p->max_features.form = sporf_get_i32(r);
    p->max_features.value = sporf_get_f64(r);
    p->criterion = sporf_get_i32(r);
    p->max_depth = sporf_get_i64(r);
    p->min_samples_split.form = SPORF_FORM_COUNT;
    p->min_samples_split.value = (double)sporf_get_i64(r);
    p->min_samples_leaf.form = SPORF_FORM_COUNT;
    p->min_samples_leaf.value = (double)sporf_get_i64(r);
    p->min_impurity_decrease = sporf_get_f64(r);
    p->min_weight_fraction_leaf = sporf_get_f64(r);
    p->bootstrap = sporf_get_i32(r);
    const int64_t ms_count = sporf_get_i64(r);
    const double ms_fraction = sporf_get_f64(r);
    if (ms_count > 0) {
        p->max_samples.form = SPORF_FORM_COUNT;
        p->max_samples.value = (double)ms_count;
    } else if (ms_fraction != 0.0) {
        p->max_samples.form = SPORF_FORM_FRACTION;
        p->max_samples.value = ms_fraction;
    } else {
        p->max_samples.form = SPORF_FORM_ALL;
        p->max_samples.value = ms_count < 0 ? (double)ms_count : 0.0; /* negative: refused by the check */
    }
    p->class_weight = sporf_get_i32(r);
    p->random_state = sporf_get_u64(r);
    if (version >= 2) {
        p->n_dims = sporf_get_i32(r);
        for (int k = 0; k < SPORF_MAX_DIMS; k++) {
            p->data_dims[k] = sporf_get_i64(r);
            p->min_patch_dims[k] = sporf_get_i64(r);
            p->max_patch_dims[k] = sporf_get_i64(r);
            p->boundary[k] = sporf_get_i32(r);
            p->dim_contiguous[k] = sporf_get_i32(r);
        }
        p->patch_weights = sporf_get_i32(r);
        for (int k = p->n_dims >= 0 ? p->n_dims : 0; k < SPORF_MAX_DIMS; k++) {
            p->data_dims[k] = p->min_patch_dims[k] = p->max_patch_dims[k] = 0;
            p->boundary[k] = p->dim_contiguous[k] = 0;
        }
    }
    if (version >= 3) {
        p->honest_fraction = sporf_get_f64(r);
        p->honest_prior = sporf_get_i32(r);
    }
    if (version >= 5)
        p->first_tree = sporf_get_i64(r);
}

int64_t sporf_params_n_trees(const sporf_params *p) { return p->n_estimators; }

int64_t sporf_params_first_tree(const sporf_params *p) { return p->first_tree; }

uint64_t sporf_params_tree_stream(const sporf_params *p, int64_t t)
{
    /* a forest that kept one kind of its alternating trees numbers them in that kind */
    if (p->splitter == SPORF_SPLITTER_CHOSE_BEST || p->splitter == SPORF_SPLITTER_CHOSE_RANDOM)
        return 2u * (uint64_t)(p->first_tree + t) + (p->splitter == SPORF_SPLITTER_CHOSE_RANDOM);
    return (uint64_t)(p->first_tree + t);
}

int sporf_params_chooses_kinds(const sporf_params *p) { return p->splitter == SPORF_SPLITTER_AUTO; }

void sporf_params_keep_kinds(sporf_params *p, int kept, int64_t n_trees, int64_t first)
{
    if (kept == 0) {
        p->splitter = SPORF_SPLITTER_CHOSE_BOTH;
        return;
    }
    /* tree `first` is tree first_tree + first of the seed's forest, 2 k (+ 1) for its kind's k-th */
    p->first_tree = (int64_t)(sporf_params_tree_stream(p, first) / 2u);
    p->splitter = kept == 2 ? SPORF_SPLITTER_CHOSE_RANDOM : SPORF_SPLITTER_CHOSE_BEST;
    p->n_estimators = n_trees;
}

int sporf_params_kinds_kept(const sporf_params *p)
{
    switch (p->splitter) {
    case SPORF_SPLITTER_CHOSE_BOTH: return 0;
    case SPORF_SPLITTER_CHOSE_BEST: return 1;
    case SPORF_SPLITTER_CHOSE_RANDOM: return 2;
    default: return -1;
    }
}

sporf_params sporf_params_for_rows(const sporf_params *p, int64_t n)
{
    sporf_params q = *p;
    const int leaf_chosen_out_of_bag = sporf_params_leaf_auto(p) && sporf_params_leaf_chosen(p) == 0 &&
                                       sporf_params_samples_rows(p);
    if (p->splitter == SPORF_SPLITTER_AUTO && (!leaf_chosen_out_of_bag || n > SPORF_KINDS_AUTO_MAX_ROWS))
        q.splitter = SPORF_SPLITTER_BEST;
    return q;
}

int sporf_params_kinds_error(sporf_error *err, const char *why)
{
    return sporf_set_error(err, SPORF_E_ARG, "splitter: %s; give splitter \"best\"", why);
}

int sporf_params_two_kinds(const sporf_params *p)
{
    return p->splitter == SPORF_SPLITTER_MIXED || p->splitter == SPORF_SPLITTER_AUTO ||
           p->splitter == SPORF_SPLITTER_CHOSE_BOTH;
}

int sporf_params_tree_random(const sporf_params *p, int64_t t)
{
    if (sporf_params_two_kinds(p) || p->splitter == SPORF_SPLITTER_CHOSE_BEST ||
        p->splitter == SPORF_SPLITTER_CHOSE_RANDOM)
        return (int)(sporf_params_tree_stream(p, t) & 1u);
    return p->splitter == SPORF_SPLITTER_RANDOM;
}

sporf_params sporf_params_of_tree(const sporf_params *p, int64_t t)
{
    sporf_params q = *p;
    if (p->splitter == SPORF_SPLITTER_BEST || p->splitter == SPORF_SPLITTER_RANDOM)
        return q;
    if (!sporf_params_tree_random(p, t)) {
        q.splitter = SPORF_SPLITTER_BEST;
        return q;
    }
    q.splitter = SPORF_SPLITTER_RANDOM;
    q.bootstrap = 0;
    switch (p->max_samples.form) {
    case SPORF_FORM_COUNT: {
        const double c = floor(SPORF_MIXED_RANDOM_SHARE * p->max_samples.value);
        q.max_samples.value = c < 1.0 ? 1.0 : c;
        break;
    }
    case SPORF_FORM_FRACTION: q.max_samples.value = SPORF_MIXED_RANDOM_SHARE * p->max_samples.value; break;
    default:
        q.max_samples.form = SPORF_FORM_FRACTION;
        q.max_samples.value = SPORF_MIXED_RANDOM_SHARE;
    }
    return q;
}

void sporf_params_set_n_trees(sporf_params *p, int64_t count) { p->n_estimators = count; }
