/* fit.c -- growing a forest: argument checks, bagging, class weights,
 * parallel tree growth and the OOB pass (its predictions: predict/). */
#include "predict/predict.h"
#include "predict/packed.h"
#include "model/params.h"

#include "fit/builder.h"
#include "fit/draws.h"
#include "fit/leaf_choice.h"
#include "fit/quantile_leaves.h"
#include "fit/sizes.h"
#include "model/survival.h"
#include "util/matrix.h"
#include "util/pool.h"
#include "util/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct fit_ctx {
    const sporf_params *params;
    sporf_fit_sizes sizes;       /* params resolved against the data, once (sizes.h) */
    sporf_forest *forest;
    sporf_builder *builders;     /* one per worker */
    /* The two kinds of trees of splitter "mixed" (sporf_params_of_tree): each
     * kind's parameters and draws; kind 1 (random cuts) has its own builders.
     * Other forests grow kind 0 only, with params as given. */
    sporf_params kind_params[2];
    int64_t kind_draws[2];
    sporf_builder *random_builders; /* one per worker, "mixed" only */
    const int32_t *y;            /* classification, or NULL */
    const double *yr;            /* regression, or NULL */
    const double *sample_weight; /* may be NULL */
    const double *class_weight;  /* K weights, or NULL */
    int64_t n;
    int64_t n_draws;
    uint8_t *inbag;              /* n_trees x bitmap_bytes, or NULL */
    int64_t bitmap_bytes;
    double **balanced_scratch;   /* per worker K doubles (balanced_subsample) */
    int32_t n_threads;           /* workers */
    double *x_copy;              /* X copied by columns (copy_columns), or NULL */
    float *x_copy32;             /* float X copied by columns, or NULL */
    double *cw_balanced;         /* class_weight "balanced": K weights, or NULL */
    /* quantile forests (params.quantiles), else NULL (the fit owns them): */
    const int32_t *qrf_order;    /* the rows by rank (quantile_leaves.h) */
    const int32_t *qrf_rank;     /* each row's rank */
    int32_t **qrf_scratch;       /* per worker 2n: rows' bootstrap counts, leaves by rank */
    /* survival forests (model/survival.h), else NULL: */
    double *event_times;         /* the distinct event times, ascending */
    int64_t n_event_times;
    double all_risk;             /* the risk of every training row's steps (honest trees' prior) */
    double **surv_scratch;       /* per worker: 2 x the tree's draws, a leaf's steps */
    /* a fit on a sample of the training rows (sporf_fit_data.rows), else NULL / n: */
    const int64_t *rows;         /* the global row number of each of X's n rows, ascending */
    int64_t n_total;             /* the training rows the draws are over */
} fit_ctx;

/* A fit on a sample of the training rows: X's rows are rows[0..n) of n_total,
 * and impute the features' means over all of them (NULL: no row misses a
 * value). */
typedef struct fit_sample {
    const int64_t *rows;
    int64_t n_total;
    const double *impute;
    /* a quantile or survival forest's: every row's response (n_total), else NULL */
    const double *all_values;
    const int32_t *all_events;
    const double *all_sample_weight;
} fit_sample;

/* The position of global row g among rows[0..n) (ascending), or -1. */
static int64_t local_row(const int64_t *rows, int64_t n, uint64_t g)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if ((uint64_t)rows[mid] < g) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && (uint64_t)rows[lo] == g ? lo : -1;
}

/* Bagging: w[i] = the number of times tree t draws row i of X (draws.h:
 * bootstrap draws, a subsample, or every row once), from rng seeded for the
 * tree. The draws come first in the tree's stream: the out-of-bag results
 * after the fit regenerate them. */
static int draw_rows(const fit_ctx *c, int64_t t, sporf_rng *rng, double *w, sporf_error *err)
{
    const int64_t n = c->n;
    const int kind = sporf_params_tree_random(c->params, t) && c->random_builders;
    if (sporf_params_samples_rows(&c->kind_params[kind])) {
        memset(w, 0, (size_t)n * sizeof *w);
        sporf_draws d;
        sporf_draws_begin(&d, &c->kind_params[kind], rng, c->rows ? c->n_total : n, c->kind_draws[kind]);
        for (int64_t g; (g = sporf_draws_next(&d)) >= 0;) {
            /* a fit on a sample: the draws are over all n_total rows, each one of X's rows */
            const int64_t at = c->rows ? local_row(c->rows, n, (uint64_t)g) : g;
            if (at < 0)
                return sporf_set_error(err, SPORF_E_ARG, "tree %lld draws row %lld, which the sample does not hold "
                                                         "(give every row sporf_tree_draws lists)",
                                       (long long)t, (long long)g);
            w[at] += 1.0;
        }
    } else {
        for (int64_t i = 0; i < n; i++) w[i] = 1.0;
    }
    return SPORF_OK;
}

/* Honesty: shuffle a tree's m distinct rows from its stream (right after
 * its draws); the first part grows the tree, the rest estimates its leaves.
 * Returns the size of the first part. */
static int64_t honest_split(const sporf_params *params, sporf_rng *rng, int32_t *rows, int64_t m)
{
    for (int64_t i = m - 1; i > 0; i--) {
        const int64_t j = (int64_t)sporf_rng_below(rng, (uint64_t)(i + 1));
        const int32_t tmp = rows[i];
        rows[i] = rows[j];
        rows[j] = tmp;
    }
    return m - (int64_t)floor(params->honest_fraction * (double)m);
}

/* A quantile or survival tree's leaf rows: rows[0..m) routed to its leaves,
 * each count[row] times (leaf_by_row: the caller's n of scratch); a
 * survival tree's leaves then take their risks from them. */
static int collect_leaf_rows(const fit_ctx *c, sporf_builder *b, sporf_tree *tree, const int32_t *rows, int64_t m,
                             const int32_t *count, int32_t *leaf_by_row, int32_t worker, sporf_error *err)
{
    const int rc = sporf_qrf_collect(tree, &b->rows.X, b->rows.xrow, b->rows.impute, rows, m, count, c->qrf_order,
                                     c->qrf_rank, leaf_by_row, err);
    if (rc == SPORF_OK && c->event_times)
        sporf_surv_tree_values(tree, c->forest, c->event_times, c->n_event_times, c->all_risk, c->surv_scratch[worker]);
    return rc;
}

static int grow_one_tree(void *vctx, int64_t t, int32_t worker, sporf_pool_ctl *ctl, sporf_error *err)
{
    fit_ctx *c = vctx;
    /* a "mixed" forest's random-cut trees grow with their own builders */
    sporf_builder *b = c->random_builders && sporf_params_tree_random(c->params, t) ? &c->random_builders[worker]
                                                                                      : &c->builders[worker];
    const int64_t n = c->n;
    const int32_t K = c->forest->n_classes;
    sporf_rng rng;
    sporf_seed_tree(&rng, c->params, t);
    double *w = b->rows.w;
    int rc0 = draw_rows(c, t, &rng, w, err);
    if (rc0 != SPORF_OK)
        return rc0;
    if (c->inbag) {
        uint8_t *bits = c->inbag + t * c->bitmap_bytes;
        for (int64_t i = 0; i < n; i++)
            if (w[i] > 0.0) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
    }

    const double *cw = c->class_weight;
    if (c->params->class_weight == SPORF_CW_BALANCED_SUBSAMPLE) {
        /* Balanced over this tree's draws (with repeats), as scikit-learn does.
         * Classification only: the parameter check rules it out for regression. */
        double *cnt = c->balanced_scratch[worker];
        memset(cnt, 0, (size_t)K * sizeof *cnt);
        double total = 0.0;
        for (int64_t i = 0; i < n; i++) {
            cnt[c->y[i]] += w[i];
            total += w[i];
        }
        int32_t present = 0;
        for (int32_t k = 0; k < K; k++) present += cnt[k] > 0.0;
        for (int32_t k = 0; k < K; k++)
            cnt[k] = cnt[k] > 0.0 ? total / ((double)present * cnt[k]) : 0.0;
        cw = cnt;
    }

    int32_t *qcount = c->qrf_scratch ? c->qrf_scratch[worker] : NULL;
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        double wi = w[i];
        if (wi <= 0.0) continue;
        if (qcount) qcount[i] = (int32_t)wi; /* the draws, before any weight */
        if (c->sample_weight) wi *= c->sample_weight[i];
        if (cw) wi *= cw[c->y[i]];
        w[i] = wi;
        if (wi > 0.0) b->rows.idx[m++] = (int32_t)i;
    }
    sporf_tree *tree = &c->forest->trees[t];
    if (!sporf_params_honest(c->params)) {
        int rc = sporf_builder_grow(b, m, &rng, ctl, tree, err);
        /* a tree pruned later (leaf_choice.h) gives a new leaf the rows of
         * the leaves it joins */
        if (rc != SPORF_OK || !qcount)
            return rc;
        return collect_leaf_rows(c, b, tree, b->rows.idx, m, qcount, qcount + n, worker, err);
    }

    /* Honesty: grow on the first part of the shuffled rows and estimate the
     * leaves from the rest (which growing leaves in place). */
    const int64_t n_struct = honest_split(c->params, &rng, b->rows.idx, m), n_est = m - n_struct;
    int rc = sporf_builder_grow(b, n_struct, &rng, ctl, tree, err);
    if (rc == SPORF_OK)
        rc = sporf_builder_estimate_leaves(b, b->rows.idx + n_struct, n_est, n_struct, tree, err);
    if (rc != SPORF_OK || !qcount)
        return rc;
    /* an honest leaf's quantiles come from the rows that estimated it */
    return collect_leaf_rows(c, b, tree, b->rows.idx + n_struct, n_est, qcount, qcount + n, worker, err);
}

/* Refuse at once a fit whose forest could not fit in this machine's memory
 * even at a typical size, rather than fail (or swap) hours later. A tree has
 * at most about one leaf per distinct row it grows on (min_samples_leaf rows
 * each, at most 2^max_depth leaves); each node costs its stored form, its
 * packed prediction form and its projection, each leaf its values. */
static int check_forest_fits_memory(const sporf_params *params, const sporf_fit_sizes *sz, int32_t K,
                                    int keeps_rows, sporf_error *err)
{
    const int64_t n = sz->n_rows, n_draws = sz->n_draws;
    const int64_t mem = sporf_physical_memory();
    if (mem <= 0)
        return SPORF_OK;
    double rows = (double)n;
    if (params->bootstrap && n > 1) /* expected distinct rows among n_draws draws */
        rows = (double)n * -expm1((double)n_draws * log1p(-1.0 / (double)n));
    else if (sporf_params_samples_rows(params)) /* a subsample */
        rows = (double)n_draws;
    rows *= 1.0 - params->honest_fraction;
    double leaves = rows / (double)sz->min_leaf_rows;
    if (params->max_depth > 0 && params->max_depth < 60)
        leaves = fmin(leaves, ldexp(1.0, (int)params->max_depth));
    if (leaves < 1.0)
        leaves = 1.0;
    const double per_tree = (2.0 * leaves - 1.0) * (double)(sizeof(sporf_node) + 2 * sizeof(sporf_pnode) + 20) +
                            leaves * (double)K * 8.0 +
                            (keeps_rows ? (double)n_draws * 4.0 : 0.0); /* the leaves' rows */
    const int64_t n_trees = sz->n_trees;
    const double total = per_tree * (double)n_trees;
    if (total > (double)mem)
        return sporf_set_error(err, SPORF_E_NOMEM,
                               "%lld trees of about %.0f leaves each would need about %.3g GB, more than this "
                               "machine's %.3g GB of memory: grow fewer trees, or smaller ones (max_depth, "
                               "min_samples_leaf, max_samples)",
                               (long long)n_trees, leaves, total / 1e9, (double)mem / 1e9);
    return SPORF_OK;
}

static int is_unsupervised_criterion(int32_t c)
{
    return c == SPORF_CRIT_FASTBIC || c == SPORF_CRIT_TWOMEANS || c == SPORF_CRIT_ISOLATION;
}

/* A survival forest's response: n >= 2 rows, times finite and >= 0, event
 * flags 0 or 1 with at least one event (every training row's, for a fit on
 * a sample of them); and what the task does not take. */
static int check_survival(const sporf_params *params, int64_t n, const int32_t *event, const double *time,
                          sporf_error *err)
{
    if (!sporf_criterion_survival(params->criterion))
        return sporf_set_error(err, SPORF_E_ARG, "a survival forest needs criterion 'logrank' or 'logrankscore'");
    if (params->class_weight != SPORF_CW_NONE)
        return sporf_set_error(err, SPORF_E_ARG, "class_weight does not apply to survival; give sample_weight");
    if (params->quantiles)
        return sporf_set_error(err, SPORF_E_ARG, "quantiles are for regression forests; a survival forest "
                                                 "predicts survival curves");
    if (sporf_params_honest(params) && !sporf_params_abstain(params))
        return sporf_set_error(err, SPORF_E_ARG, "honest survival trees take honest_prior 'ignore': a leaf "
                                                 "that received no estimation row abstains");
    if (n < 2)
        return sporf_set_error(err, SPORF_E_ARG, "a survival forest needs at least 2 rows, got %lld", (long long)n);
    int64_t events = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!(time[i] >= 0.0 && time[i] <= SPORF_MAX_ABS_VALUE))
            return sporf_set_error(err, SPORF_E_ARG, "time[%lld] = %g: survival times must be finite numbers "
                                                     ">= 0 (and at most 1e100)", (long long)i, time[i]);
        if (event[i] != 0 && event[i] != 1)
            return sporf_set_error(err, SPORF_E_ARG, "event[%lld] = %d: an event flag is 1 (the event was "
                                                     "observed) or 0 (censored)", (long long)i, event[i]);
        events += event[i];
    }
    if (events == 0)
        return sporf_set_error(err, SPORF_E_ARG, "no row has an event (every time is censored): a survival "
                                                 "forest needs at least one observed event");
    return SPORF_OK;
}

static int check_fit_args(const sporf_params *params, const sporf_matrix *X, const int32_t *y, const double *yr,
                          int32_t n_classes, int survival, const fit_sample *sample, const double *sw, const double *cw,
                          sporf_error *err)
{
    int rc;
    if (!params)
        return sporf_set_error(err, SPORF_E_ARG, "fit: params are required");
    if ((rc = sporf_check_matrix(X, 0, SPORF_CHECK_FIT, "X", err)) != SPORF_OK)
        return rc;
    if ((rc = sporf_params_check(params, X->ncol, err)) != SPORF_OK)
        return rc;
    if (!y && !yr) {
        const int isolation = params->criterion == SPORF_CRIT_ISOLATION;
        if (!is_unsupervised_criterion(params->criterion))
            return sporf_set_error(err, SPORF_E_ARG, "a forest without a response needs criterion 'fastbic' or "
                                                     "'twomeans' (URerF) or 'isolation' (anomaly scores)");
        if (params->class_weight != SPORF_CW_NONE)
            return sporf_set_error(err, SPORF_E_ARG, "class_weight does not apply to an unsupervised forest");
        if (sporf_params_honest(params))
            return sporf_set_error(err, SPORF_E_ARG, "honest_fraction does not apply to an unsupervised forest "
                                                     "(its leaves hold no response to estimate)");
        if (sporf_params_two_kinds(params) || sporf_params_tree_random(params, 0))
            return sporf_params_kinds_error(err, isolation ? "an isolation forest's cuts are random already: "
                                                             "give splitter 'best' (the default)"
                                                           : "an unsupervised forest's splits are Fast-BIC or "
                                                             "two-means searches: it grows best cuts only");
        if (isolation && params->guided_features > 0)
            return sporf_set_error(err, SPORF_E_ARG, "guided_features does not apply to an isolation forest (it "
                                                     "ranks features by the quality of their cuts, which random cuts "
                                                     "do not have): give 0");
        if (isolation && params->max_bins > 0)
            return sporf_set_error(err, SPORF_E_ARG, "max_bins does not apply to an isolation forest (its random "
                                                     "cuts scan no histogram): give 0");
        if (params->quantiles)
            return sporf_set_error(err, SPORF_E_ARG, "quantiles are for regression forests");
    } else if (is_unsupervised_criterion(params->criterion)) {
        return sporf_set_error(err, SPORF_E_ARG, "criteria 'fastbic', 'twomeans' and 'isolation' are for forests "
                                                 "without a response");
    } else if (survival) {
        /* a sample's rows are checked against every row's (check_sample) */
        if (sample && (!sample->all_values || !sample->all_events))
            return sporf_set_error(err, SPORF_E_ARG, "fit_sample: a survival forest needs every row's times and "
                                                     "event flags (all_values, all_events)");
        rc = sample ? check_survival(params, sample->n_total, sample->all_events, sample->all_values, err)
                    : check_survival(params, X->nrow, y, yr, err);
        if (rc != SPORF_OK)
            return rc;
    } else if (sporf_criterion_survival(params->criterion)) {
        return sporf_set_error(err, SPORF_E_ARG, "criteria 'logrank' and 'logrankscore' are for survival forests");
    } else if (yr) {
        if (params->criterion != SPORF_CRIT_SQUARED_ERROR)
            return sporf_set_error(err, SPORF_E_ARG, "a regression forest needs criterion 'squared_error'");
        if (params->class_weight != SPORF_CW_NONE)
            return sporf_set_error(err, SPORF_E_ARG, "class_weight does not apply to regression");
        for (int64_t i = 0; i < X->nrow; i++)
            if (!isfinite(yr[i]))
                return sporf_set_error(err, SPORF_E_ARG, "y contains NaN or infinity (row %lld)", (long long)i);
            else if (fabs(yr[i]) > SPORF_MAX_ABS_VALUE)
                return sporf_set_error(err, SPORF_E_ARG, "y[%lld] = %g is too large: fitting takes values up to "
                                                         "1e100 in magnitude; rescale y", (long long)i, yr[i]);
    } else {
        if (params->quantiles)
            return sporf_set_error(err, SPORF_E_ARG, "quantiles are for regression forests; a classifier's "
                                                     "predict_proba gives its class distribution");
        if (params->criterion == SPORF_CRIT_SQUARED_ERROR)
            return sporf_set_error(err, SPORF_E_ARG,
                                   "criterion 'squared_error' is for regression; a classifier takes 'gini' or 'entropy'");
        if (n_classes < 1)
            return sporf_set_error(err, SPORF_E_ARG, "n_classes must be at least 1, got %d", n_classes);
        for (int64_t i = 0; i < X->nrow; i++)
            if (y[i] < 0 || y[i] >= n_classes)
                return sporf_set_error(err, SPORF_E_ARG, "y[%lld] = %d is not a class code in [0, %d)",
                                       (long long)i, y[i], n_classes);
    }
    if (sw) {
        double total = 0.0;
        for (int64_t i = 0; i < X->nrow; i++) {
            if (!isfinite(sw[i]) || sw[i] < 0.0 || sw[i] > SPORF_MAX_ABS_VALUE)
                return sporf_set_error(err, SPORF_E_ARG,
                                       "sample_weight[%lld] = %g; weights must be finite, non-negative and at most 1e100",
                                       (long long)i, sw[i]);
            total += sw[i];
        }
        if (!(total > 0.0))
            return sporf_set_error(err, SPORF_E_ARG, "sample_weight sums to zero; at least one weight must be positive");
    }
    if (params->class_weight == SPORF_CW_CUSTOM) {
        if (!cw)
            return sporf_set_error(err, SPORF_E_ARG, "class_weight: custom mode needs one weight per class");
        for (int32_t k = 0; k < n_classes; k++)
            if (!isfinite(cw[k]) || cw[k] < 0.0 || cw[k] > SPORF_MAX_ABS_VALUE)
                return sporf_set_error(err, SPORF_E_ARG,
                                       "class_weight[%d] = %g; class weights must be finite, non-negative and at most 1e100",
                                       k, cw[k]);
    }
    return SPORF_OK;
}

/* When the training data Xc (n rows, column-major) has a missing value, the
 * forest keeps each feature's mean over its present values (0 for a feature
 * missing everywhere), in row order: what SPORF_MISSING_IMPUTE splits put in
 * place of a missing feature. None otherwise. */
static int impute_values(sporf_forest *f, const sporf_columns *X, sporf_error *err)
{
    const int64_t n = X->n, p = X->p;
    int any = 0;
    for (int64_t j = 0; j < p && !any; j++)
        for (int64_t i = 0; i < n && !any; i++)
            any = isnan(sporf_columns_at(X, j, i));
    if (!any)
        return SPORF_OK;
    f->impute = malloc((size_t)p * sizeof *f->impute);
    if (!f->impute)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    for (int64_t j = 0; j < p; j++) {
        double s = 0.0;
        int64_t m = 0;
        for (int64_t r = 0; r < n; r++) {
            const double v = sporf_columns_at(X, j, r);
            if (!isnan(v)) {
                s += v;
                m++;
            }
        }
        f->impute[j] = m > 0 ? s / (double)m : 0.0;
    }
    return SPORF_OK;
}

/* A quantile or survival forest's sample fit: every row's response, its
 * values within bounds (the survival times and flags: check_survival) and
 * weights, and X's rows' equal to theirs. Other forests take none. */
static int check_all_response(const sporf_params *params, const sporf_matrix *X, const fit_sample *s,
                              const int32_t *y, const double *yr, const double *sw, sporf_error *err)
{
    const int survival = sporf_criterion_survival(params->criterion);
    if (!params->quantiles && !survival) {
        if (s->all_values || s->all_events || s->all_sample_weight)
            return sporf_set_error(err, SPORF_E_ARG, "fit_sample: every row's response (all_values, all_events, "
                                                     "all_sample_weight) is for quantile and survival forests");
        return SPORF_OK;
    }
    if (!s->all_values)
        return sporf_set_error(err, SPORF_E_ARG, "fit_sample: a %s forest ranks every row's response: give it "
                                                 "(all_values)", survival ? "survival" : "quantile");
    if ((sw != NULL) != (s->all_sample_weight != NULL))
        return sporf_set_error(err, SPORF_E_ARG, "fit_sample: give sample_weight and all_sample_weight together");
    if (!survival && s->all_events)
        return sporf_set_error(err, SPORF_E_ARG, "fit_sample: event flags are for a survival response");
    const double *av = s->all_values, *aw = s->all_sample_weight;
    double total = 0.0;
    for (int64_t g = 0; g < s->n_total; g++) {
        if (!survival && !(fabs(av[g]) <= SPORF_MAX_ABS_VALUE))
            return sporf_set_error(err, SPORF_E_ARG, "all_values[%lld] = %g: responses must be finite and at most "
                                                     "1e100 in magnitude", (long long)g, av[g]);
        if (aw && !(aw[g] >= 0.0 && aw[g] <= SPORF_MAX_ABS_VALUE))
            return sporf_set_error(err, SPORF_E_ARG, "all_sample_weight[%lld] = %g; weights must be finite, "
                                                     "non-negative and at most 1e100", (long long)g, aw[g]);
        total += aw ? aw[g] : 1.0;
    }
    if (!(total > 0.0))
        return sporf_set_error(err, SPORF_E_ARG, "all_sample_weight sums to zero; at least one weight must be positive");
    for (int64_t i = 0; i < X->nrow; i++) {
        const int64_t g = s->rows[i];
        if (yr[i] != av[g] || (survival && y[i] != s->all_events[g]) || (sw && sw[i] != aw[g]))
            return sporf_set_error(err, SPORF_E_ARG, "fit_sample: X's row %lld (row %lld of all) has a response, "
                                                     "event flag or weight other than every row's at %lld",
                                   (long long)i, (long long)g, (long long)g);
    }
    return SPORF_OK;
}

/* A sample fit's own conditions: ascending rows within n_total, and what
 * needs every row (out-of-bag results, the class balance, all rows in every
 * tree) refused; a missing value needs the means, a quantile or survival
 * forest every row's response (check_all_response). */
static int check_sample(const sporf_params *params, const sporf_matrix *X, const fit_sample *s, const int32_t *y,
                        const double *yr, const double *sw, int want_oob, sporf_error *err)
{
    const int64_t n = X->nrow;
    int rc;
    if (!s->rows || s->n_total < n)
        return sporf_set_error(err, SPORF_E_ARG, "fit_sample: rows are required, and n_total (%lld) must be at "
                                                 "least X's %lld rows", (long long)s->n_total, (long long)n);
    for (int64_t i = 0; i < n; i++)
        if (s->rows[i] < 0 || s->rows[i] >= s->n_total || (i > 0 && s->rows[i] <= s->rows[i - 1]))
            return sporf_set_error(err, SPORF_E_ARG, "fit_sample: rows[%lld] = %lld: the rows must ascend within "
                                                     "[0, n_total)", (long long)i, (long long)s->rows[i]);
    if (want_oob)
        return sporf_set_error(err, SPORF_E_ARG, "fit_sample: out-of-bag results need every row; compute them "
                                                 "afterwards with sporf_forest_oob_predict");
    if (params->class_weight == SPORF_CW_BALANCED)
        return sporf_set_error(err, SPORF_E_ARG, "fit_sample: class_weight \"balanced\" needs the class counts "
                                                 "of every row; give them as custom weights");
    if ((rc = check_all_response(params, X, s, y, yr, sw, err)) != SPORF_OK)
        return rc;
    if (!sporf_params_samples_rows(params) && n != s->n_total)
        return sporf_set_error(err, SPORF_E_ARG, "fit_sample: without bootstrap or max_samples every tree grows "
                                                 "on all %lld rows", (long long)s->n_total);
    if (!s->impute && sporf_matrix_first_missing(X) >= 0)
        return sporf_set_error(err, SPORF_E_ARG, "fit_sample: X has a missing value: give the features' means "
                                                 "over all the rows (impute)");
    return SPORF_OK;
}

/* Rows per block when X is copied into columns (fit_forest). */
#define COPY_BLOCK_ROWS 64

/* min_samples_leaf "auto" (leaf_choice.h) on n rows: what the choice out of
 * bag needs. Trees that every row grows (no bootstrap, no max_samples) leave
 * no row out of bag to score the sizes on: they grow as far as "auto" grows
 * them (leaves of one row, as scikit-learn's forests without the bootstrap,
 * on up to SPORF_LEAF_GROWN_ONE_MAX rows). */
static int check_leaf_auto(const sporf_params *params, const int32_t *y, const double *yr, int survival, int64_t n,
                           int64_t *chosen, sporf_error *err)
{
    const char *what = NULL;
    *chosen = sporf_params_leaf_chosen(params);
    if (!y && !yr)
        what = "it needs a response: it is for classification, regression and survival forests";
    else if (survival && *chosen == 0 && sporf_params_honest(params))
        what = "it scores the sizes by the risks of the trees' nodes, which honest survival trees do not keep: "
               "give a count";
    else if (*chosen == 0 && !sporf_params_samples_rows(params))
        *chosen = sporf_params_leaf_auto_grown(n);
    return what ? sporf_params_leaf_auto_error(err, what) : SPORF_OK;
}

/* Multi-output y (sporf_forest_fit_multi): n responses per row, and for
 * classification each output's classes (the codes in y are then offset into
 * the forest's K values, output by output). */
typedef struct fit_outputs {
    int32_t n;
    const int32_t *classes; /* classification: n class counts; NULL for regression */
    const double *weight;   /* regression: n weights of the outputs' squared errors */
} fit_outputs;

/* The response every row is scored against (leaf_choice.h), pointing at
 * the fit's arrays: class codes (offset into the K values), responses or
 * times, event flags, weights. */
static sporf_leaf_pending fit_response(const sporf_forest *f, int64_t n, const int32_t *y, const double *yr,
                                       const double *sample_weight)
{
    sporf_leaf_pending p;
    memset(&p, 0, sizeof p);
    const int survival = f->task == SPORF_TASK_SURVIVAL;
    p.n = n;
    p.m = f->n_outputs > 1 ? f->n_outputs : 1;
    p.codes = survival ? NULL : (int32_t *)y;
    p.values = (double *)yr;
    p.events = survival ? (int32_t *)y : NULL;
    p.sample_weight = (double *)sample_weight;
    p.first = sporf_leaf_sizes_first(f);
    p.end = sporf_leaf_sizes_end(f);
    p.width = sporf_leaf_record_width(f);
    p.scale = sporf_leaf_sums_scale(f, f->task == SPORF_TASK_REGRESSION ? sporf_leaf_response_max(yr, n * p.m) : 0.0);
    return p;
}

/* min_samples_leaf "auto": score the leaf sizes out of bag, prune every
 * tree to the best (leaf_choice.h) and keep the choice with the forest. */
static int choose_leaf_size(sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag, const int32_t *y,
                            const double *yr, const double *sample_weight, int32_t n_jobs, sporf_error *err)
{
    const sporf_leaf_pending p = fit_response(f, X->nrow, y, yr, sample_weight);
    double scores[SPORF_LEAF_SCORE_WORDS];
    int rc = sporf_leaf_scores(f, &p, X, inbag, sporf_pool_threads(n_jobs, X->nrow), scores, err);
    return rc == SPORF_OK ? sporf_leaf_choose(f, scores, err) : rc;
}

/* A shard's "auto" (sporf_fit_data.shard), or a fit on a sample: the choice
 * is left for later. The forest keeps its trees' nodes and, for a shard,
 * every row's out-of-bag sums over its trees and the response they are
 * scored against (model.h sporf_leaf_pending), copied. */
static int keep_leaf_pending(sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag, const int32_t *y,
                             const double *yr, const double *sample_weight, int with_sums, int32_t n_jobs,
                             sporf_error *err)
{
    sporf_leaf_pending *p = calloc(1, sizeof *p);
    if (!p)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    f->pending = p;
    const sporf_leaf_pending r = fit_response(f, X->nrow, y, yr, sample_weight);
    p->first = r.first;
    p->end = r.end;
    p->width = r.width;
    p->m = r.m;
    if (!with_sums)
        return SPORF_OK;
    const int64_t n = X->nrow, W = (int64_t)(p->end - p->first) * p->width;
    p->n = n;
    p->scale = r.scale;
    p->sums = malloc((size_t)(n * W > 0 ? n * W : 1) * 2 * sizeof *p->sums);
    p->count = malloc((size_t)(n > 0 ? n : 1) * sizeof *p->count);
    if (r.codes && (p->codes = malloc((size_t)(n * p->m > 0 ? n * p->m : 1) * sizeof *p->codes)))
        memcpy(p->codes, r.codes, (size_t)(n * p->m) * sizeof *p->codes);
    if (r.values && (p->values = malloc((size_t)(n * p->m > 0 ? n * p->m : 1) * sizeof *p->values)))
        memcpy(p->values, r.values, (size_t)(n * p->m) * sizeof *p->values);
    if (r.events && (p->events = malloc((size_t)(n > 0 ? n : 1) * sizeof *p->events)))
        memcpy(p->events, r.events, (size_t)n * sizeof *p->events);
    if (r.sample_weight && (p->sample_weight = malloc((size_t)(n > 0 ? n : 1) * sizeof *p->sample_weight)))
        memcpy(p->sample_weight, r.sample_weight, (size_t)n * sizeof *p->sample_weight);
    if (!p->sums || !p->count || (r.codes && !p->codes) || (r.values && !p->values) || (r.events && !p->events) ||
        (r.sample_weight && !p->sample_weight))
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory keeping the out-of-bag sums");
    return sporf_leaf_sums(f, X, inbag, p->scale, sporf_pool_threads(n_jobs, n), p->sums, p->count, err);
}

/* A new forest of T trees for p features and the response's shape, its
 * trees still to grow; NULL (err set) when memory runs out. */
static sporf_forest *new_forest(const sporf_params *params, int64_t T, int64_t p, const int32_t *y, const double *yr,
                                int32_t n_classes, int survival, const fit_outputs *outputs, sporf_error *err)
{
    sporf_forest *f = sporf_forest_alloc();
    if (!f) {
        sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
        return NULL;
    }
    f->params = *params;
    f->task = survival ? SPORF_TASK_SURVIVAL
              : yr     ? SPORF_TASK_REGRESSION
              : y      ? SPORF_TASK_CLASSIFICATION
              : params->criterion == SPORF_CRIT_ISOLATION ? SPORF_TASK_ISOLATION
                       : SPORF_TASK_UNSUPERVISED;
    f->n_features = p;
    f->n_classes = n_classes;
    f->n_trees = T;
    f->missing_learned = 1;
    f->score_threshold = 0.5;
    const int32_t n_outputs = outputs ? outputs->n : 1;
    if (n_outputs > 1) {
        f->n_outputs = n_outputs;
        f->output_classes = malloc((size_t)n_outputs * sizeof *f->output_classes);
        for (int32_t j = 0; f->output_classes && j < n_outputs; j++)
            f->output_classes[j] = outputs->classes ? outputs->classes[j] : 1;
    }
    f->trees = calloc((size_t)T, sizeof *f->trees);
    if (!f->trees || (n_outputs > 1 && !f->output_classes)) {
        sporf_forest_free(f);
        sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
        return NULL;
    }
    return f;
}

/* Column-major data: a node gathers one column at a time. X already in
 * that layout (R's matrices, Fortran-ordered arrays, sparse input densified
 * by column blocks) is read in place; anything else is copied (c->x_copy or
 * c->x_copy32), floats to floats, by blocks of rows: a block's rows stay in
 * the cache while every column takes its values, where a column at a time
 * would read each row's cache lines once per column. */
static int copy_columns(fit_ctx *c, const sporf_matrix *X, sporf_columns *cols, sporf_error *err)
{
    const int64_t n = X->nrow, p = X->ncol;
    const int in_place = X->row_stride == 1 && (X->col_stride == n || p == 1);
    *cols = (sporf_columns){NULL, NULL, n, p};
    if (X->data32) {
        if (!in_place)
            c->x_copy32 = malloc((size_t)n * (size_t)p * sizeof *c->x_copy32);
        cols->f32 = in_place ? X->data32 : c->x_copy32;
    } else {
        if (!in_place)
            c->x_copy = malloc((size_t)n * (size_t)p * sizeof *c->x_copy);
        cols->f64 = in_place ? X->data : c->x_copy;
    }
    if (!(cols->f64 || cols->f32))
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory copying X (%lld x %lld)", (long long)n,
                               (long long)p);
    float *Xc32 = c->x_copy32;
    double *Xc = c->x_copy;
    for (int64_t i0 = 0; i0 < n; i0 += COPY_BLOCK_ROWS) {
        const int64_t i1 = i0 + COPY_BLOCK_ROWS < n ? i0 + COPY_BLOCK_ROWS : n;
        for (int64_t j = 0; Xc32 && j < p; j++)
            for (int64_t i = i0; i < i1; i++)
                Xc32[j * n + i] = X->data32[i * X->row_stride + j * X->col_stride];
        for (int64_t j = 0; Xc && j < p; j++)
            for (int64_t i = i0; i < i1; i++)
                Xc[j * n + i] = X->data[i * X->row_stride + j * X->col_stride];
    }
    return SPORF_OK;
}

/* The features' means that stand in for missing values: the caller's, over
 * all the rows, for a fit on a sample of them; else X's own (impute_values). */
static int prepare_imputation(sporf_forest *f, const fit_sample *sample, const sporf_columns *cols,
                              sporf_error *err)
{
    if (!sample)
        return impute_values(f, cols, err);
    if (!sample->impute)
        return SPORF_OK;
    if (!(f->impute = malloc((size_t)f->n_features * sizeof *f->impute)))
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    memcpy(f->impute, sample->impute, (size_t)f->n_features * sizeof *f->impute);
    return SPORF_OK;
}

/* The classes' weights the trees grow with: custom ones, kept with the forest
 * so that a loaded model refits the same, or "balanced" from the class
 * counts of y (c->cw_balanced). */
static int prepare_class_weights(fit_ctx *c, sporf_forest *f, const double *class_weight, sporf_error *err)
{
    const int32_t K = f->n_classes;
    const int64_t n = c->n;
    if (c->params->class_weight == SPORF_CW_CUSTOM) {
        if (!(f->class_weights = malloc((size_t)K * sizeof *f->class_weights)))
            return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
        memcpy(f->class_weights, class_weight, (size_t)K * sizeof *f->class_weights);
        c->class_weight = f->class_weights;
    } else if (c->params->class_weight == SPORF_CW_BALANCED) {
        double *cw = c->cw_balanced = calloc((size_t)K, sizeof *c->cw_balanced);
        if (!cw)
            return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
        for (int64_t i = 0; i < n; i++) cw[c->y[i]] += 1.0;
        int32_t present = 0;
        for (int32_t k = 0; k < K; k++) present += cw[k] > 0.0;
        for (int32_t k = 0; k < K; k++)
            cw[k] = cw[k] > 0.0 ? (double)n / ((double)present * cw[k]) : 0.0;
        c->class_weight = cw;
    }
    return SPORF_OK;
}

/* A survival forest's event flags by rank (its times are the quantile
 * forests' sorted responses, every training row's: order, events), its
 * distinct event times, the risk of all its training rows together, and
 * each worker's scratch for a leaf's steps. */
static int prepare_survival(fit_ctx *c, sporf_forest *f, const int32_t *order, const int32_t *events,
                            sporf_error *err)
{
    const int64_t n = f->qrf_n;
    f->qrf_event = malloc((size_t)n);
    c->event_times = malloc((size_t)n * sizeof *c->event_times);
    c->surv_scratch = calloc((size_t)c->n_threads, sizeof *c->surv_scratch);
    int32_t *all = malloc((size_t)n * sizeof *all);
    double *steps = malloc((size_t)(2 * n) * sizeof *steps);
    int ok = f->qrf_event && c->event_times && c->surv_scratch && all && steps;
    /* a leaf holds at most the tree's draws (rows repeated as drawn) */
    const int64_t room = c->n_draws > n ? c->n_draws : n;
    for (int32_t t = 0; ok && t < c->n_threads; t++)
        ok = (c->surv_scratch[t] = malloc((size_t)(2 * room) * sizeof(double))) != NULL;
    if (ok) {
        for (int64_t r = 0; r < n; r++) {
            f->qrf_event[r] = (uint8_t)(events[order[r]] != 0);
            all[r] = (int32_t)r;
        }
        c->n_event_times = sporf_surv_event_times(f, c->event_times);
        const int64_t k = sporf_surv_leaf_steps(f, all, n, steps, steps + n);
        c->all_risk = sporf_surv_steps_risk(steps, steps + n, k, c->event_times, c->n_event_times);
    }
    free(all);
    free(steps);
    return ok ? SPORF_OK : sporf_set_error(err, SPORF_E_NOMEM, "out of memory keeping the survival times");
}

/* The rows of a fit on a sample (rows[0..n) of n_total), by their ranks
 * among every row's (order, rank: n_total entries, replaced by the sample's
 * n: its rows by rank, and each one's rank among every row's). */
static int sample_ranks(const int64_t *rows, int64_t n, int64_t n_total, int32_t **order, int32_t **rank,
                        sporf_error *err)
{
    int32_t *at = malloc((size_t)n_total * sizeof *at); /* each row's place in the sample, or -1 */
    int32_t *o = malloc((size_t)(n > 0 ? n : 1) * sizeof *o), *k = malloc((size_t)(n > 0 ? n : 1) * sizeof *k);
    if (!at || !o || !k) {
        free(at);
        free(o);
        free(k);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    }
    for (int64_t g = 0; g < n_total; g++) at[g] = -1;
    for (int64_t i = 0; i < n; i++) at[rows[i]] = (int32_t)i;
    int64_t m = 0;
    for (int64_t r = 0; r < n_total; r++) {
        const int32_t i = at[(*order)[r]];
        if (i >= 0) {
            o[m++] = i;
            k[i] = (int32_t)r;
        }
    }
    free(at);
    free(*order);
    free(*rank);
    *order = o;
    *rank = k;
    return SPORF_OK;
}

/* A quantile or survival forest's responses by rank (sporf_qrf_prepare),
 * every training row's even when X holds a sample of them, so each tree's
 * leaves rank their rows as a fit on all the rows does; the builder's rows
 * by rank (c->qrf_order, c->qrf_rank); a survival forest's event times. */
static int prepare_ranks(fit_ctx *c, sporf_forest *f, const fit_sample *sample, sporf_error *err)
{
    const int64_t n_all = sample ? sample->n_total : c->n;
    int32_t *order = NULL, *rank = NULL;
    int rc = sporf_qrf_prepare(f, sample ? sample->all_values : c->yr,
                               sample ? sample->all_sample_weight : c->sample_weight, n_all, &order, &rank, err);
    if (rc == SPORF_OK && sporf_forest_is_survival(f))
        rc = prepare_survival(c, f, order, sample ? sample->all_events : c->y, err);
    if (rc == SPORF_OK && sample)
        rc = sample_ranks(sample->rows, c->n, n_all, &order, &rank, err);
    c->qrf_order = order;
    c->qrf_rank = rank;
    return rc;
}

/* One tree builder per worker, with its scratch for balanced_subsample's
 * weights and, for quantile forests, for the leaves' rows. */
static int prepare_workers(fit_ctx *c, sporf_forest *f, const sporf_columns *cols, const sporf_response *response,
                           const fit_sample *sample, int keep_nodes, sporf_error *err)
{
    const int32_t n_threads = c->n_threads;
    const int mixed = sporf_params_two_kinds(c->params);
    c->builders = calloc((size_t)n_threads, sizeof *c->builders);
    c->balanced_scratch = calloc((size_t)n_threads, sizeof *c->balanced_scratch);
    if (mixed)
        c->random_builders = calloc((size_t)n_threads, sizeof *c->random_builders);
    if (!c->builders || !c->balanced_scratch || (mixed && !c->random_builders))
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    for (int32_t t = 0; t < n_threads; t++) {
        /* a sample's missing values are the whole data's: the caller's means say whether there are any */
        const int has_missing = sample ? sample->impute != NULL : -1;
        for (int kind = 0; kind < 1 + mixed; kind++) {
            sporf_builder *b = kind ? &c->random_builders[t] : &c->builders[t];
            int rc = sporf_builder_init(b, &c->kind_params[kind], &c->sizes, cols, response, has_missing, err);
            if (rc != SPORF_OK)
                return rc;
            b->rows.impute = f->impute;
            b->draft.keep_nodes = keep_nodes;
        }
        if (!(c->balanced_scratch[t] = malloc((size_t)f->n_classes * sizeof(double))))
            return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    }
    if (!sporf_forest_keeps_rows(f))
        return SPORF_OK;
    if (!(c->qrf_scratch = calloc((size_t)n_threads, sizeof *c->qrf_scratch)))
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    for (int32_t t = 0; t < n_threads; t++)
        if (!(c->qrf_scratch[t] = malloc((size_t)(2 * c->n) * sizeof(int32_t))))
            return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    return prepare_ranks(c, f, sample, err);
}

/* The out-of-bag pass of a fit that asked for it, on the rows of X as given
 * (not the copy): the class votes or values (oob_decision, or scratch when
 * only the counts are wanted) and each row's out-of-bag trees. */
static int oob_pass(const fit_ctx *c, const sporf_matrix *X, double *oob_decision, int64_t *oob_count,
                    sporf_error *err)
{
    const sporf_forest *f = c->forest;
    double *tmp = NULL;
    if (!oob_decision && !(oob_decision = tmp = malloc((size_t)c->n * (size_t)f->n_classes * sizeof *tmp)))
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    const int rc = sporf_forest_oob(f, X, c->inbag, sporf_pool_threads(c->params->n_jobs, c->n), oob_decision,
                                    oob_count, err);
    free(tmp);
    return rc;
}

/* splitter "auto" kept one kind of its trees: the in-bag bitmaps of the
 * trees kept, in their order, for the out-of-bag pass. */
static void keep_inbag_of_kept_trees(fit_ctx *c, const sporf_params *params, int64_t T)
{
    if (!c->inbag)
        return;
    const int keep_random = sporf_params_tree_random(&c->forest->params, 0);
    int64_t kept = 0;
    for (int64_t t = 0; t < T; t++)
        if (sporf_params_tree_random(params, t) == keep_random)
            memmove(c->inbag + kept++ * c->bitmap_bytes, c->inbag + t * c->bitmap_bytes, (size_t)c->bitmap_bytes);
}

/* Everything a fit allocated but the forest. */
static void end_fit(fit_ctx *c)
{
    for (int32_t t = 0; c->builders && t < c->n_threads; t++) sporf_builder_free(&c->builders[t]);
    for (int32_t t = 0; c->random_builders && t < c->n_threads; t++) sporf_builder_free(&c->random_builders[t]);
    free(c->random_builders);
    for (int32_t t = 0; c->balanced_scratch && t < c->n_threads; t++) free(c->balanced_scratch[t]);
    for (int32_t t = 0; c->qrf_scratch && t < c->n_threads; t++) free(c->qrf_scratch[t]);
    for (int32_t t = 0; c->surv_scratch && t < c->n_threads; t++) free(c->surv_scratch[t]);
    free(c->surv_scratch);
    free(c->event_times);
    free(c->qrf_scratch);
    free((void *)c->qrf_order);
    free((void *)c->qrf_rank);
    free(c->builders);
    free(c->balanced_scratch);
    free(c->inbag);
    free(c->cw_balanced);
    free(c->x_copy);
    free(c->x_copy32);
}

/* Classification (y), regression (yr, n_classes 1) and unsupervised forests
 * (neither, n_classes 1) share everything but the response; outputs is NULL
 * for one response per row. The steps: check, a new forest, X by columns,
 * the missing values' stand-ins, the classes' weights, the workers, the
 * in-bag bitmaps, the trees, the leaf size out of bag, the prediction
 * layout, the out-of-bag pass. */
static int fit_forest(const sporf_params *params, const sporf_matrix *X,
                      const int32_t *y, const double *yr, int32_t n_classes, int survival, const fit_outputs *outputs,
                      const double *sample_weight, const double *class_weight,
                      double *oob_decision, int64_t *oob_count, const fit_sample *sample, int shard,
                      sporf_progress_fn progress, void *user_data,
                      sporf_forest **out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!out)
        return sporf_set_error(err, SPORF_E_ARG, "fit: out must not be NULL");
    *out = NULL;
    int rc = check_fit_args(params, X, y, yr, n_classes, survival, sample, sample_weight, class_weight, err);
    if (rc != SPORF_OK)
        return rc;
    if (X->data32 && (oob_decision || oob_count))
        return sporf_set_error(err, SPORF_E_ARG, "out-of-bag results are computed on X as doubles: fit float X "
                                                 "without them, then call sporf_forest_oob_predict");
    const int64_t n = X->nrow, n_all = sample ? sample->n_total : n;
    fit_ctx c;
    memset(&c, 0, sizeof c);
    c.params = params;
    sporf_fit_sizes_resolve(params, n_all, X->ncol, &c.sizes);
    const int64_t T = c.sizes.n_trees;
    c.y = y;
    c.yr = yr;
    c.sample_weight = sample_weight;
    c.n = n;
    c.n_threads = c.sizes.n_threads;
    if (sample) {
        if ((rc = check_sample(params, X, sample, y, yr, sample_weight, oob_decision || oob_count, err)) != SPORF_OK)
            return rc;
        c.rows = sample->rows;
        c.n_total = sample->n_total;
    }
    /* "auto": leaf_size 0 scores the sizes after the fit, k >= 2 prunes to k,
     * the size grown to (sizes.leaf_grown) grows as the fit does; the trees
     * keep their nodes' values for either */
    const int leaf_auto = c.sizes.leaf_auto;
    int64_t leaf_size = 0;
    if (leaf_auto && (rc = check_leaf_auto(params, y, yr, survival, n_all, &leaf_size, err)) != SPORF_OK)
        return rc;
    /* splitter "auto" chooses its kinds of trees with the leaf size, out of bag; a fit that does
     * not choose its leaf size (a size given, or no rows out of bag), or on more rows than
     * that choice pays on, grows best cuts */
    const sporf_params resolved = sporf_params_for_rows(params, n_all);
    if (sporf_params_chooses_kinds(params) && !sporf_params_chooses_kinds(&resolved))
        c.params = params = &resolved;
    const int keep_nodes = leaf_auto && leaf_size != c.sizes.leaf_grown;
    c.n_draws = c.sizes.n_draws;
    if (c.n_draws > n_all)
        return sporf_params_draws_error(err, c.n_draws, n_all);
    if (params->criterion == SPORF_CRIT_ISOLATION && c.n_draws < 2)
        return sporf_set_error(err, SPORF_E_ARG, "an isolation tree needs at least 2 rows to cut; %s gives it %lld "
                                                 "(max_samples, or the training rows)",
                               n_all < 2 ? "the data" : "max_samples", (long long)c.n_draws);
    /* the kinds of trees: params' own, and a "mixed" forest's odd trees' */
    const int64_t odd_first = sporf_params_tree_random(params, 0) ? 0 : 1; /* this fit's first random-cut tree */
    c.kind_params[0] = sporf_params_of_tree(params, 1 - odd_first);
    c.kind_params[1] = sporf_params_of_tree(params, odd_first);
    for (int kind = 0; kind < 2; kind++) c.kind_draws[kind] = sporf_resolve_draws(&c.kind_params[kind], n_all);
    if ((rc = check_forest_fits_memory(params, &c.sizes, n_classes, params->quantiles || survival, err)) != SPORF_OK)
        return rc;

    sporf_forest *f = c.forest = new_forest(params, T, X->ncol, y, yr, n_classes, survival, outputs, err);
    if (!f)
        return SPORF_E_NOMEM;
    sporf_columns cols;
    const int all_survival = survival && sample; /* the tree counts every row's event times */
    const sporf_response response = {f->task, y, yr, n_classes, f->n_outputs > 1 ? f->n_outputs : 1,
                                      f->output_classes, outputs ? outputs->weight : NULL,
                                      all_survival ? sample->all_values : NULL,
                                      all_survival ? sample->all_events : NULL, all_survival ? sample->n_total : 0};
    rc = copy_columns(&c, X, &cols, err);
    if (rc == SPORF_OK) rc = prepare_imputation(f, sample, &cols, err);
    if (rc == SPORF_OK) rc = prepare_class_weights(&c, f, class_weight, err);
    if (rc == SPORF_OK) rc = prepare_workers(&c, f, &cols, &response, sample, keep_nodes, err);
    f->leaf_grown = leaf_auto ? c.sizes.leaf_grown : 0; /* the sizes to score follow from it */
    if (rc == SPORF_OK && (oob_decision || oob_count || (leaf_auto && leaf_size == 0 && !sample))) {
        c.bitmap_bytes = (n + 7) / 8;
        if (!(c.inbag = calloc((size_t)T, (size_t)c.bitmap_bytes)))
            rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory for the out-of-bag bookkeeping");
    }
    if (rc == SPORF_OK) rc = sporf_pool_run(c.n_threads, T, grow_one_tree, &c, progress, user_data, err);
    if (rc == SPORF_OK && leaf_auto && leaf_size != 0)
        rc = sporf_leaf_prune_forest(f, leaf_size, err);
    else if (rc == SPORF_OK && leaf_auto && (sample || shard))
        rc = keep_leaf_pending(f, X, c.inbag, y, yr, sample_weight, !sample, params->n_jobs, err);
    else if (rc == SPORF_OK && leaf_auto)
        rc = choose_leaf_size(f, X, c.inbag, y, yr, sample_weight, params->n_jobs, err);
    if (rc == SPORF_OK && f->n_trees < T)
        keep_inbag_of_kept_trees(&c, params, T);
    if (rc == SPORF_OK) rc = sporf_forest_pack(f, err);
    if (rc == SPORF_OK && c.inbag && (oob_decision || oob_count)) rc = oob_pass(&c, X, oob_decision, oob_count, err);
    end_fit(&c);
    if (rc != SPORF_OK) {
        sporf_forest_free(f);
        return rc;
    }
    *out = f;
    return SPORF_OK;
}

/* Several responses per row (n_outputs >= 2): class codes y with their
 * counts, or responses y_regression. */
static int fit_several_outputs(const sporf_params *params, const sporf_matrix *X, int32_t n_outputs,
                               const int32_t *y, const int32_t *n_classes, const double *y_regression,
                               const double *sample_weight, double *oob_decision, int64_t *oob_count, int shard,
                               sporf_progress_fn progress, void *user_data,
                               sporf_forest **out, sporf_error *err)
{
    if (!params)
        return sporf_set_error(err, SPORF_E_ARG, "fit: params are required");
    if (n_outputs > 100000)
        return sporf_set_error(err, SPORF_E_ARG, "fit: n_outputs must be in [1, 100000], got %d", n_outputs);
    int rc = sporf_check_matrix(X, 0, SPORF_CHECK_FIT, "X", err);
    if (rc != SPORF_OK)
        return rc;
    if (params->class_weight != SPORF_CW_NONE)
        return sporf_set_error(err, SPORF_E_ARG, "class_weight is not available with multi-output y: give "
                                                 "sample_weight instead");
    if (params->quantiles)
        return sporf_set_error(err, SPORF_E_ARG, "quantiles are for single-output regression forests");
    const int64_t n = X->nrow, m = n_outputs;
    if (y_regression) {
        for (int64_t i = 0; i < n * m; i++)
            if (!isfinite(y_regression[i]) || fabs(y_regression[i]) > SPORF_MAX_ABS_VALUE)
                return sporf_set_error(err, SPORF_E_ARG, "y[%lld, %lld] = %g: responses must be finite and at most "
                                                         "1e100 in magnitude", (long long)(i / m), (long long)(i % m),
                                       y_regression[i]);
        double *weight = sporf_output_weights(y_regression, sample_weight, n, n_outputs);
        if (!weight)
            return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
        const fit_outputs outs = {n_outputs, NULL, weight};
        rc = fit_forest(params, X, NULL, y_regression, n_outputs, 0, &outs, sample_weight, NULL, oob_decision,
                        oob_count, NULL, shard, progress, user_data, out, err);
        free(weight);
        return rc;
    }
    int64_t K = 0;
    for (int32_t j = 0; j < n_outputs; j++) {
        if (n_classes[j] < 1)
            return sporf_set_error(err, SPORF_E_ARG, "output %d has %d classes: each needs at least 1", j,
                                   n_classes[j]);
        K += n_classes[j];
    }
    if (K > 100000000)
        return sporf_set_error(err, SPORF_E_ARG, "the outputs have %lld classes in all, more than 1e8", (long long)K);
    /* The builder counts every output's classes in one array of K: each
     * code offset by the classes of the outputs before it. */
    int32_t *codes = malloc((size_t)(n * m > 0 ? n * m : 1) * sizeof *codes);
    if (!codes)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory for %lld x %lld class codes", (long long)n,
                               (long long)m);
    for (int64_t i = 0; i < n; i++)
        for (int32_t j = 0, at = 0; j < n_outputs; at += n_classes[j], j++) {
            const int32_t c = y[i * m + j];
            if (c < 0 || c >= n_classes[j]) {
                free(codes);
                return sporf_set_error(err, SPORF_E_ARG, "y[%lld, %d] = %d is not a class code in [0, %d)",
                                       (long long)i, j, c, n_classes[j]);
            }
            codes[i * m + j] = at + c;
        }
    const fit_outputs outs = {n_outputs, n_classes, NULL};
    rc = fit_forest(params, X, codes, NULL, (int32_t)K, 0, &outs, sample_weight, NULL, oob_decision, oob_count, NULL,
                    shard, progress, user_data, out, err);
    free(codes);
    return rc;
}

/* The one entry point: the response's kind and outputs decide, once, which
 * fit grows the forest. */
int sporf_forest_fit(const sporf_params *params, const sporf_matrix *X, const sporf_fit_data *data,
                     double *oob_decision, int64_t *oob_count,
                     sporf_progress_fn progress, void *user_data,
                     sporf_forest **out, sporf_error *err)
{
    sporf_clear_error(err);
    if (out) *out = NULL;
    if (!out || !data)
        return sporf_set_error(err, SPORF_E_ARG, "fit: data and out are required");
    const int32_t kind = data->response, m = data->n_outputs > 0 ? data->n_outputs : 1;
    const int classes = kind == SPORF_RESPONSE_CLASSES, survival = kind == SPORF_RESPONSE_SURVIVAL;
    const int values = kind == SPORF_RESPONSE_VALUES || survival;
    if (!classes && !values && kind != SPORF_RESPONSE_NONE)
        return sporf_set_error(err, SPORF_E_ARG, "fit: unknown response kind %d", (int)kind);
    if (survival && (!data->events || m > 1))
        return sporf_set_error(err, SPORF_E_ARG, "fit: a survival response needs its times and event flags, and "
                                                 "has one output");
    if (!survival && data->events)
        return sporf_set_error(err, SPORF_E_ARG, "fit: event flags are for a survival response");
    if (!survival && params && params->min_events_split > 0)
        return sporf_set_error(err, SPORF_E_ARG, "min_events_split (%lld) is for survival forests; other forests "
                                                 "take 0", (long long)params->min_events_split);
    if (classes && (!data->codes || !data->n_classes))
        return sporf_set_error(err, SPORF_E_ARG, "fit: class codes need their codes and class counts");
    if (values && !data->values)
        return sporf_set_error(err, SPORF_E_ARG, "fit: a numeric response needs its values");
    if ((!classes && data->codes) || (!values && data->values))
        return sporf_set_error(err, SPORF_E_ARG, "fit: give class codes or numbers, as the response kind says");
    if (data->class_weights && (!classes || m > 1))
        return sporf_set_error(err, SPORF_E_ARG, "fit: class weights are for one output of class codes");
    if (kind == SPORF_RESPONSE_NONE && (oob_decision || oob_count))
        return sporf_set_error(err, SPORF_E_ARG, "fit: an unsupervised forest has no out-of-bag predictions");
    if ((data->all_values || data->all_events || data->all_sample_weight) && !data->rows)
        return sporf_set_error(err, SPORF_E_ARG, "fit: every row's response (all_values, all_events, "
                                                 "all_sample_weight) is for a fit on a sample of the rows");
    const fit_sample sample = {data->rows, data->n_total, data->impute, data->all_values, data->all_events,
                               data->all_sample_weight};
    if (m > 1) {
        if (kind == SPORF_RESPONSE_NONE || data->rows)
            return sporf_set_error(err, SPORF_E_ARG, "fit: several outputs need a response and every training row");
        return fit_several_outputs(params, X, m, data->codes, data->n_classes, data->values, data->sample_weight,
                                   oob_decision, oob_count, data->shard != 0, progress, user_data, out, err);
    }
    return fit_forest(params, X, survival ? data->events : data->codes, data->values, classes ? data->n_classes[0] : 1,
                      survival, NULL,
                      data->sample_weight, data->class_weights, oob_decision, oob_count, data->rows ? &sample : NULL,
                      data->shard != 0, progress, user_data, out, err);
}
