/*
 * out_of_bag.c -- what a fitted forest answers about its training rows
 * (sporf.h): each tree's draws, out-of-bag predictions (all the rows, or a
 * partition's), out-of-bag quantiles, the out-of-bag error curve and
 * permutation importance. Each tree's in-bag rows are regenerated from the
 * seed (the draws come first in its stream, draws.h), so a forest loaded from
 * a file or merged from shards answers as the fit would have; and the leaf
 * size chosen from rows' out-of-bag sums (a partition's rows at a time).
 */
#include "fit/draws.h"
#include "fit/leaf_choice.h"
#include "predict/packed.h"
#include "model/model.h"
#include "model/params.h"
#include "predict/predict.h"
#include "util/matrix.h"
#include "util/pool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int ascending_rows(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int sporf_tree_draws(const sporf_params *params, int64_t n_total, int64_t tree, int64_t *rows, int32_t *counts,
                     int64_t *m_out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!params || !m_out || n_total < 1 || tree < 0 || tree >= sporf_params_n_trees(params))
        return sporf_set_error(err, SPORF_E_ARG, "tree_draws: params, m_out, n_total >= 1 and one of "
                                                 "params' trees are required");
    /* a "mixed" forest's tree draws as its kind does (sporf_params_of_tree), and "auto" as the
     * fit on these rows resolves it */
    const sporf_params fp = sporf_params_for_rows(params, n_total), tp = sporf_params_of_tree(&fp, tree);
    if (!sporf_params_samples_rows(params))
        return sporf_params_no_rows_out_error(err, "tree_draws");
    const int64_t draws = sporf_resolve_draws(&tp, n_total);
    if (draws > n_total)
        return sporf_params_draws_error(err, draws, n_total);
    if (!rows) { /* the caller asks how many draws to make room for */
        *m_out = draws;
        return SPORF_OK;
    }
    /* The tree's stream begins with its draws (grow_one_tree); sorted, the
     * distinct rows with their multiplicities (a subsample's come sorted,
     * each once). */
    sporf_rng rng;
    sporf_seed_tree(&rng, params, tree);
    sporf_draws d;
    sporf_draws_begin(&d, &tp, &rng, n_total, draws);
    for (int64_t k = 0; k < draws; k++)
        rows[k] = sporf_draws_next(&d);
    qsort(rows, (size_t)draws, sizeof *rows, ascending_rows);
    int64_t m = 0;
    for (int64_t k = 0; k < draws; k++) {
        if (m > 0 && rows[m - 1] == rows[k]) {
            if (counts) counts[m - 1]++;
            continue;
        }
        rows[m] = rows[k];
        if (counts) counts[m] = 1;
        m++;
    }
    *m_out = m;
    return SPORF_OK;
}

/* The in-bag bitmaps of f's trees for X, the training rows first_row ..
 * first_row + n - 1 of n_total, regenerated from the seed (the draws come
 * first in each tree's stream), after checking that X can be those rows;
 * *inbag_out (n_trees x ceil(n / 8) bytes) is the caller's to free. `what`
 * names the calling function in errors. */
static int regenerate_inbag_rows(const sporf_forest *f, const sporf_matrix *X, int64_t first_row, int64_t n_total,
                                 const char *what, uint8_t **inbag_out, sporf_error *err)
{
    *inbag_out = NULL;
    if (f->task == SPORF_TASK_UNSUPERVISED || f->task == SPORF_TASK_ISOLATION)
        return sporf_set_error(err, SPORF_E_ARG, "a forest without a response has no out-of-bag predictions");
    if (!sporf_params_samples_rows(&f->params))
        return sporf_params_no_rows_out_error(err, what);
    int rc = sporf_check_query(f, X, err);
    if (rc != SPORF_OK)
        return rc;
    const int64_t n = X->nrow, draws = sporf_resolve_draws(&f->params, n_total);
    if (first_row < 0 || first_row + n > n_total)
        return sporf_set_error(err, SPORF_E_ARG, "%s: rows %lld-%lld are not rows of the %lld training rows", what,
                               (long long)first_row, (long long)(first_row + n - 1), (long long)n_total);
    if (draws > n_total)
        return sporf_set_error(err, SPORF_E_ARG, "X has %lld rows, fewer than the %lld the forest drew per tree: "
                                                 "it is not the training data", (long long)n_total, (long long)draws);
    const int64_t bitmap_bytes = (n + 7) / 8;
    uint8_t *inbag = calloc((size_t)f->n_trees, (size_t)(bitmap_bytes > 0 ? bitmap_bytes : 1));
    if (!inbag)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory for the out-of-bag bookkeeping");
    for (int64_t t = 0; t < f->n_trees; t++) {
        sporf_rng rng;
        sporf_seed_tree(&rng, &f->params, t);
        uint8_t *bits = inbag + t * bitmap_bytes;
        /* a "mixed" forest's tree draws as its kind does (sporf_params_of_tree) */
        const sporf_params tp = sporf_params_of_tree(&f->params, t);
        sporf_draws d;
        sporf_draws_begin(&d, &tp, &rng, n_total, sporf_resolve_draws(&tp, n_total));
        for (int64_t g; (g = sporf_draws_next(&d)) >= 0;) {
            if (g >= first_row && g < first_row + n) {
                const int64_t i = g - first_row;
                bits[i >> 3] |= (uint8_t)(1u << (i & 7));
            }
        }
    }
    *inbag_out = inbag;
    return SPORF_OK;
}

/* The training rows' in-bag bitmaps of f's trees, regenerated from the seed
 * (the draws come first in each tree's stream), after checking that X can be
 * f's training data; *inbag_out (n_trees x ceil(n / 8) bytes) is the
 * caller's to free. `what` names the calling function in errors. */
static int regenerate_inbag(const sporf_forest *f, const sporf_matrix *X, const char *what, uint8_t **inbag_out,
                            sporf_error *err)
{
    return regenerate_inbag_rows(f, X, 0, X->nrow, what, inbag_out, err);
}

int sporf_forest_oob_predict_rows(const sporf_forest *f, const sporf_matrix *X, int64_t first_row,
                                  int64_t n_total, int32_t n_jobs, double *out, int64_t *count, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !X || !out)
        return sporf_set_error(err, SPORF_E_ARG, "oob_predict_rows: forest, X and out are required");
    uint8_t *inbag;
    int rc = regenerate_inbag_rows(f, X, first_row, n_total, "out-of-bag prediction", &inbag, err);
    if (rc != SPORF_OK)
        return rc;
    rc = sporf_forest_oob(f, X, inbag, sporf_pool_threads(n_jobs, X->nrow), out, count, err);
    free(inbag);
    return rc;
}

int sporf_forest_oob_predict(const sporf_forest *f, const sporf_matrix *X, int32_t n_jobs,
                             double *out, int64_t *count, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !out)
        return sporf_set_error(err, SPORF_E_ARG, "oob_predict: forest and out are required");
    uint8_t *inbag;
    int rc = regenerate_inbag(f, X, "out-of-bag prediction", &inbag, err);
    if (rc != SPORF_OK)
        return rc;
    rc = sporf_forest_oob(f, X, inbag, sporf_pool_threads(n_jobs, X->nrow), out, count, err);
    free(inbag);
    return rc;
}

int sporf_forest_permutation_importance(const sporf_forest *f, const sporf_matrix *X, const int32_t *y,
                                        const double *y_regression, int32_t n_jobs, sporf_progress_fn progress,
                                        void *user_data, double *mean_out, double *std_out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !mean_out)
        return sporf_set_error(err, SPORF_E_ARG, "permutation_importance: forest and mean_out are required");
    if (f->task == SPORF_TASK_UNSUPERVISED || f->task == SPORF_TASK_ISOLATION)
        return sporf_set_error(err, SPORF_E_ARG, "permutation importance needs a response: a forest without one "
                                                 "(unsupervised, isolation) has none");
    if (f->n_outputs > 1)
        return sporf_set_error(err, SPORF_E_ARG, "permutation importance is for single-output forests");
    const int regression = f->task == SPORF_TASK_REGRESSION, survival = f->task == SPORF_TASK_SURVIVAL;
    if (survival ? !y || !y_regression : regression ? !y_regression : !y)
        return sporf_set_error(err, SPORF_E_ARG, "permutation_importance: the training response is required (%s)",
                               survival     ? "y, the event flags, and y_regression, the times"
                               : regression ? "y_regression"
                                            : "y, the class codes");
    if (survival)
        for (int64_t i = 0; X && i < X->nrow; i++)
            if ((y[i] != 0 && y[i] != 1) || !(y_regression[i] >= 0.0 && y_regression[i] <= 1e100))
                return sporf_set_error(err, SPORF_E_ARG, "row %lld: survival times must be finite and >= 0, "
                                                         "event flags 0 or 1", (long long)i);
    if (!regression && !survival)
        for (int64_t i = 0; X && i < X->nrow; i++)
            if (y[i] < 0 || y[i] >= f->n_classes)
                return sporf_set_error(err, SPORF_E_ARG, "y[%lld] = %d is not a class code in [0, %d)",
                                       (long long)i, y[i], f->n_classes);
    if (regression)
        for (int64_t i = 0; X && i < X->nrow; i++)
            if (!isfinite(y_regression[i]))
                return sporf_set_error(err, SPORF_E_ARG, "y_regression[%lld] is not a finite number", (long long)i);
    uint8_t *inbag;
    int rc = regenerate_inbag(f, X, "permutation importance", &inbag, err);
    if (rc != SPORF_OK)
        return rc;
    rc = sporf_forest_oob_permutation(f, X, inbag, regression ? NULL : y, regression || survival ? y_regression : NULL,
                                      sporf_pool_threads(n_jobs, f->n_trees), progress, user_data, mean_out,
                                      std_out, err);
    free(inbag);
    return rc;
}

int sporf_forest_oob_quantiles(const sporf_forest *f, const sporf_matrix *X, const double *probs, int64_t n_probs,
                               int32_t n_jobs, double *out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !X || !out)
        return sporf_set_error(err, SPORF_E_ARG, "oob_quantiles: forest, X and out are required");
    if (!f->qrf_y)
        return sporf_forest_quantiles(f, X, NULL, probs, n_probs, n_jobs, out, err); /* its error */
    if (X->nrow != f->qrf_n)
        return sporf_set_error(err, SPORF_E_ARG, "X has %lld rows but the forest was grown on %lld: out-of-bag "
                                                 "quantiles are for the training data", (long long)X->nrow,
                               (long long)f->qrf_n);
    uint8_t *inbag;
    int rc = regenerate_inbag(f, X, "out-of-bag quantiles", &inbag, err);
    if (rc != SPORF_OK)
        return rc;
    rc = sporf_forest_quantiles(f, X, inbag, probs, n_probs, n_jobs, out, err);
    free(inbag);
    return rc;
}

/* The out-of-bag interval scores of X, the training rows first_row .. of
 * the forest's; `what` names the caller in errors. */
static int oob_interval_scores(const sporf_forest *f, const sporf_matrix *X, int64_t first_row, const double *y,
                               int32_t n_jobs, double *scores, const char *what, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !X || !y || !scores)
        return sporf_set_error(err, SPORF_E_ARG, "%s: forest, X, y and scores are required", what);
    if (!f->qrf_y || f->task != SPORF_TASK_REGRESSION)
        return sporf_forest_quantile_scores(f, X, NULL, y, n_jobs, scores, err); /* its error */
    if (!sporf_params_samples_rows(&f->params)) {
        /* every tree drew every row: each row is in every bag */
        int rc = sporf_check_query(f, X, err);
        for (int64_t i = 0; rc == SPORF_OK && i < X->nrow; i++)
            scores[i] = NAN;
        return rc;
    }
    uint8_t *inbag;
    int rc = regenerate_inbag_rows(f, X, first_row, f->qrf_n, "out-of-bag interval scores", &inbag, err);
    if (rc != SPORF_OK)
        return rc;
    rc = sporf_forest_quantile_scores(f, X, inbag, y, n_jobs, scores, err);
    free(inbag);
    return rc;
}

int sporf_forest_oob_interval_scores(const sporf_forest *f, const sporf_matrix *X, const double *y, int32_t n_jobs,
                                     double *scores, sporf_error *err)
{
    if (f && X && f->qrf_y && f->task == SPORF_TASK_REGRESSION && X->nrow != f->qrf_n)
        return sporf_set_error(err, SPORF_E_ARG, "X has %lld rows but the forest was grown on %lld: out-of-bag "
                                                 "interval scores are for the training data", (long long)X->nrow,
                               (long long)f->qrf_n);
    return oob_interval_scores(f, X, 0, y, n_jobs, scores, "oob_interval_scores", err);
}

int sporf_forest_oob_interval_scores_rows(const sporf_forest *f, const sporf_matrix *X, int64_t first_row,
                                          const double *y, int32_t n_jobs, double *scores, sporf_error *err)
{
    return oob_interval_scores(f, X, first_row, y, n_jobs, scores, "oob_interval_scores_rows", err);
}

int sporf_forest_oob_survival_interval_scores(const sporf_forest *f, const sporf_matrix *X, const double *times,
                                              const int32_t *events, int32_t n_jobs, double *scores, double *weights,
                                              sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !X || !times || !events || !scores || !weights)
        return sporf_set_error(err, SPORF_E_ARG, "oob_survival_interval_scores: forest, X, times, events, scores "
                                                 "and weights are required");
    if (f->task != SPORF_TASK_SURVIVAL)
        return sporf_set_error(err, SPORF_E_ARG, "survival interval scores are for survival forests");
    if (X->nrow != f->qrf_n)
        return sporf_set_error(err, SPORF_E_ARG, "X has %lld rows but the forest was grown on %lld: out-of-bag "
                                                 "interval scores are for the training data", (long long)X->nrow,
                               (long long)f->qrf_n);
    if (!sporf_params_samples_rows(&f->params)) {
        /* every tree drew every row: each row is in every bag */
        int rc = sporf_check_query(f, X, err);
        for (int64_t i = 0; rc == SPORF_OK && i < X->nrow; i++) {
            scores[i] = NAN;
            weights[i] = 0.0;
        }
        return rc;
    }
    uint8_t *inbag;
    int rc = regenerate_inbag(f, X, "out-of-bag interval scores", &inbag, err);
    if (rc != SPORF_OK)
        return rc;
    rc = sporf_forest_survival_scores(f, X, inbag, times, events, n_jobs, scores, weights, err);
    free(inbag);
    return rc;
}

int sporf_forest_oob_survival_interval_scores_rows(const sporf_forest *f, const sporf_matrix *X, int64_t first_row,
                                                   const double *times, const int32_t *events, int32_t n_jobs,
                                                   double *scores, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !X || !times || !events || !scores)
        return sporf_set_error(err, SPORF_E_ARG, "oob_survival_interval_scores_rows: forest, X, times, events and "
                                                 "scores are required");
    if (f->task != SPORF_TASK_SURVIVAL)
        return sporf_set_error(err, SPORF_E_ARG, "survival interval scores are for survival forests");
    uint8_t *inbag;
    int rc = regenerate_inbag_rows(f, X, first_row, f->qrf_n, "out-of-bag interval scores", &inbag, err);
    if (rc != SPORF_OK)
        return rc;
    /* the scores only: a partition's own censoring weights are not every row's */
    double *weights = malloc((size_t)(X->nrow > 0 ? X->nrow : 1) * sizeof *weights);
    rc = weights ? sporf_forest_survival_scores(f, X, inbag, times, events, n_jobs, scores, weights, err)
                 : sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    free(weights);
    free(inbag);
    return rc;
}

int sporf_forest_oob_survival(const sporf_forest *f, const sporf_matrix *X, const double *times, int64_t n_times,
                              int32_t what, int32_t n_jobs, double *out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !X || !out)
        return sporf_set_error(err, SPORF_E_ARG, "oob_survival: forest, X and out are required");
    if (f->task != SPORF_TASK_SURVIVAL)
        return sporf_forest_survival(f, X, NULL, times, n_times, what, n_jobs, out, err); /* its error */
    if (X->nrow != f->qrf_n)
        return sporf_set_error(err, SPORF_E_ARG, "X has %lld rows but the forest was grown on %lld: out-of-bag "
                                                 "curves are for the training data", (long long)X->nrow,
                               (long long)f->qrf_n);
    uint8_t *inbag;
    int rc = regenerate_inbag(f, X, "out-of-bag survival curves", &inbag, err);
    if (rc != SPORF_OK)
        return rc;
    rc = sporf_forest_survival(f, X, inbag, times, n_times, what, n_jobs, out, err);
    free(inbag);
    return rc;
}

int sporf_forest_oob_curve(const sporf_forest *f, const sporf_matrix *X, const int32_t *y,
                           const double *y_regression, double *curve_out, double *class_curve_out,
                           sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !curve_out)
        return sporf_set_error(err, SPORF_E_ARG, "oob_curve: forest and curve_out are required");
    if (f->n_outputs > 1)
        return sporf_set_error(err, SPORF_E_ARG, "oob_curve: the out-of-bag error curve is for single-output "
                                                 "forests");
    const int regression = f->task == SPORF_TASK_REGRESSION, survival = f->task == SPORF_TASK_SURVIVAL;
    if (f->task != SPORF_TASK_UNSUPERVISED && (survival ? !y || !y_regression : regression ? !y_regression : !y))
        return sporf_set_error(err, SPORF_E_ARG, "oob_curve: the training response is required (%s)",
                               survival     ? "y, the event flags, and y_regression, the times"
                               : regression ? "y_regression"
                                            : "y, the class codes");
    for (int64_t i = 0; survival && X && i < X->nrow; i++)
        if (y[i] != 0 && y[i] != 1)
            return sporf_set_error(err, SPORF_E_ARG, "y[%lld] = %d is not an event flag (0 or 1)", (long long)i,
                                   y[i]);
    if (!regression && !survival && y)
        for (int64_t i = 0; X && i < X->nrow; i++)
            if (y[i] < 0 || y[i] >= f->n_classes)
                return sporf_set_error(err, SPORF_E_ARG, "y[%lld] = %d is not a class code in [0, %d)",
                                       (long long)i, y[i], f->n_classes);
    uint8_t *inbag;
    int rc = regenerate_inbag(f, X, "the out-of-bag error curve", &inbag, err);
    if (rc != SPORF_OK)
        return rc;
    rc = sporf_forest_oob_error_curve(f, X, inbag, y, y_regression, curve_out,
                                      regression || survival ? NULL : class_curve_out, err);
    free(inbag);
    return rc;
}

/* ---- the leaf size "auto" chooses, from the rows' out-of-bag sums ---- */

int sporf_forest_leaf_sums_rows(const sporf_forest *f, const sporf_matrix *X, int64_t first_row, int64_t n_total,
                                double response_max, int32_t n_jobs, int64_t *sums, int64_t *count, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !X || !sums || !count)
        return sporf_set_error(err, SPORF_E_ARG, "leaf_sums_rows: forest, X, sums and count are required");
    if (!f->pending)
        return sporf_set_error(err, SPORF_E_ARG, "leaf_sums_rows: the forest has no leaf size left to choose "
                                                 "(its leaf size is a count, or it chose already)");
    if (!(response_max >= 0.0 && response_max <= SPORF_MAX_ABS_VALUE))
        return sporf_set_error(err, SPORF_E_ARG, "leaf_sums_rows: response_max = %g must be the largest |response| "
                                                 "of the training rows", response_max);
    uint8_t *inbag;
    int rc = regenerate_inbag_rows(f, X, first_row, n_total, "the leaf size's out-of-bag sums", &inbag, err);
    if (rc != SPORF_OK)
        return rc;
    rc = sporf_leaf_sums(f, X, inbag, sporf_leaf_sums_scale(f, response_max), sporf_pool_threads(n_jobs, X->nrow),
                         (uint64_t *)sums, count, err);
    free(inbag);
    return rc;
}

/* data's response as the leaf choice reads it (sporf_leaf_pending): class
 * codes offset into the K values output by output (into *codes_out, the
 * caller's to free), after checking every value. */
static int choice_response(const sporf_forest *f, const sporf_fit_data *data, int64_t n, sporf_leaf_pending *p,
                           int32_t **codes_out, sporf_error *err)
{
    const int32_t m = f->n_outputs > 1 ? f->n_outputs : 1;
    const int classes = f->task == SPORF_TASK_CLASSIFICATION, survival = f->task == SPORF_TASK_SURVIVAL;
    *codes_out = NULL;
    if ((data->n_outputs > 0 ? data->n_outputs : 1) != m)
        return sporf_set_error(err, SPORF_E_ARG, "choose_leaf_size: the forest has %d outputs, data %d", m,
                               data->n_outputs);
    if (classes ? !data->codes : !data->values || (survival && !data->events))
        return sporf_set_error(err, SPORF_E_ARG, "choose_leaf_size: data must hold the forest's kind of response");
    const double *sw = data->sample_weight;
    for (int64_t i = 0; sw && i < n; i++)
        if (!(sw[i] >= 0.0 && sw[i] <= SPORF_MAX_ABS_VALUE))
            return sporf_set_error(err, SPORF_E_ARG, "sample_weight[%lld] = %g: weights must be finite and >= 0",
                                   (long long)i, sw[i]);
    for (int64_t i = 0; !classes && i < n * (survival ? 1 : m); i++)
        if (!isfinite(data->values[i]) || fabs(data->values[i]) > SPORF_MAX_ABS_VALUE ||
            (survival && (data->events[i] < 0 || data->events[i] > 1)))
            return sporf_set_error(err, SPORF_E_ARG, "choose_leaf_size: row %lld's response is not finite (or its "
                                                     "event flag not 0 or 1)", (long long)(i / (survival ? 1 : m)));
    memset(p, 0, sizeof *p);
    p->n = n;
    p->m = m;
    p->values = classes ? NULL : (double *)data->values;
    p->events = survival ? (int32_t *)data->events : NULL;
    p->sample_weight = (double *)sw;
    if (!classes)
        return SPORF_OK;
    int32_t *codes = malloc((size_t)(n * m > 0 ? n * m : 1) * sizeof *codes);
    if (!codes)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++)
        for (int32_t o = 0, at = 0; o < m; at += m > 1 ? f->output_classes[o] : 0, o++) {
            const int32_t width = m > 1 ? f->output_classes[o] : f->n_classes, c = data->codes[i * m + o];
            if (c < 0 || c >= width) {
                free(codes);
                return sporf_set_error(err, SPORF_E_ARG, "choose_leaf_size: y[%lld] = %d is not a class code in "
                                                         "[0, %d)", (long long)i, c, width);
            }
            codes[i * m + o] = at + c;
        }
    p->codes = codes;
    *codes_out = codes;
    return SPORF_OK;
}

int sporf_forest_choose_leaf_size(sporf_forest *f, const sporf_fit_data *data, int64_t n_rows, const int64_t *sums,
                                  const int64_t *count, int32_t n_jobs, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !data || !sums || !count)
        return sporf_set_error(err, SPORF_E_ARG, "choose_leaf_size: forest, data, sums and count are required");
    if (!f->pending)
        return sporf_set_error(err, SPORF_E_ARG, "choose_leaf_size: the forest has no leaf size left to choose "
                                                 "(its leaf size is a count, or it chose already)");
    if (n_rows < 1 || n_rows > INT32_MAX)
        return sporf_set_error(err, SPORF_E_ARG, "choose_leaf_size: n_rows = %lld", (long long)n_rows);
    for (int64_t i = 0; i < n_rows; i++)
        if (count[i] < 0 || count[i] > f->n_trees)
            return sporf_set_error(err, SPORF_E_ARG, "choose_leaf_size: count[%lld] = %lld is not a number of the "
                                                     "forest's %lld trees", (long long)i, (long long)count[i],
                                   (long long)f->n_trees);
    sporf_leaf_pending p;
    int32_t *codes = NULL;
    int rc = choice_response(f, data, n_rows, &p, &codes, err);
    if (rc != SPORF_OK)
        return rc;
    p.first = f->pending->first;
    p.end = f->pending->end;
    p.width = f->pending->width;
    p.scale = sporf_leaf_sums_scale(f, f->task == SPORF_TASK_REGRESSION
                                           ? sporf_leaf_response_max(p.values, n_rows * p.m) : 0.0);
    p.sums = (uint64_t *)sums;
    p.count = (int64_t *)count;
    double scores[SPORF_LEAF_SCORE_WORDS];
    rc = sporf_leaf_scores(f, &p, NULL, NULL, sporf_pool_threads(n_jobs, n_rows), scores, err);
    free(codes);
    if (rc == SPORF_OK)
        rc = sporf_leaf_choose(f, scores, err);
    if (rc == SPORF_OK)
        rc = sporf_forest_pack(f, err);
    return rc;
}
