/*
 * tune.c -- out-of-bag tuning (sporf.h, sporf_forest_tune_oob).
 *
 * The SPORF paper chose d and lambda by out-of-bag error. Growing a full
 * forest per candidate costs the grid's size in forests; successive halving
 * spends most trees on the candidates that look best: every candidate grows
 * a few trees, the better half grows on, and so on until one candidate is
 * left, which grows the full forest. Three facts make this cheap and exact:
 *   - tree t of a forest depends only on (random_state, t) and the
 *     parameters, so candidates share bootstrap samples (their OOB errors
 *     differ by the parameters, not by the draws) and a candidate's trees
 *     grown round by round are the trees of one fit (shards, first_tree);
 *   - shards merge into the forest a single fit grows (sporf_forest_merge),
 *     so the winner's forest is byte for byte the forest of
 *     sporf_forest_fit with the winner's parameters; with min_samples_leaf
 *     "auto" each round is a shard that keeps its out-of-bag sums, the
 *     candidate's rounds add them up, each round's error is that of a
 *     copy that chooses from them, and the winner chooses from all its
 *     trees' sums, as its single fit does (fit/leaf_choice.h);
 *   - sporf_forest_oob_predict scores a merged forest exactly.
 */
#include "fit/leaf_choice.h"
#include "model/merge.h"
#include "model/model.h"
#include "model/params.h"
#include "predict/packed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What the forests learn: m responses per row (1 but for multi-output y),
 * class codes y (n x m, output j's in [0, n_classes[j])) or responses yr
 * (n x m); scale: regression, each output's squared-error unit (1 for one
 * output, else its variance, so no output's scale outweighs the others). */
typedef struct tune_targets {
    int32_t m;
    const int32_t *y;
    const int32_t *n_classes;
    const double *yr;
    const double *class_weights;
    double *scale;
} tune_targets;

/* The error of out-of-bag values out (n x K, outputs side by side) against
 * the response, averaged over the outputs: the misclassification rate of the
 * first most probable class, or the mean squared error (over the output's
 * scale); rows that were never out of bag are left out. */
static double oob_error(const double *out, const int64_t *count, int64_t n, int32_t K, const tune_targets *tg)
{
    const int32_t m = tg->m;
    double err = 0.0;
    int64_t used = 0;
    for (int64_t i = 0; i < n; i++) {
        if (count[i] == 0)
            continue;
        used++;
        const double *o = out + i * K;
        double e = 0.0;
        for (int32_t j = 0, at = 0; j < m; j++) {
            if (tg->yr) {
                const double d = o[j] - tg->yr[i * m + j];
                e += d * d / tg->scale[j];
                continue;
            }
            int32_t best = 0;
            for (int32_t k = 1; k < tg->n_classes[j]; k++)
                if (o[at + k] > o[at + best]) best = k;
            e += best != tg->y[i * m + j];
            at += tg->n_classes[j];
        }
        err += m == 1 ? e : e / m;
    }
    return used > 0 ? err / (double)used : INFINITY;
}

typedef struct progress_span {
    sporf_progress_fn fn;
    void *user;
    int64_t offset, units, total;
} progress_span;

/* A shard's progress (its trees) as a share of the whole tuning run. */
static int span_progress(void *vs, int64_t done, int64_t total)
{
    (void)total;
    progress_span *s = vs;
    return s->fn(s->user, s->offset + (done < s->units ? done : s->units), s->total);
}

/* Grow trees [from, to) of candidate params and append them to *forest. */
static int grow_on(const sporf_params *params, int64_t from, int64_t to, const sporf_matrix *X,
                   const tune_targets *tg, const double *sample_weight, progress_span *span, sporf_forest **forest,
                   sporf_error *err)
{
    const sporf_params q = sporf_params_shard(params, from, to);
    sporf_forest *shard = NULL;
    span->units = to - from;
    sporf_progress_fn fn = span->fn ? span_progress : NULL;
    /* min_samples_leaf "auto": every round a shard that keeps its sums */
    const sporf_fit_data data = {tg->y ? SPORF_RESPONSE_CLASSES : SPORF_RESPONSE_VALUES, tg->m, tg->y, tg->n_classes,
                                 tg->yr, sample_weight, tg->class_weights, NULL, 0, NULL, NULL, NULL, NULL, NULL, 1};
    int rc = sporf_forest_fit(&q, X, &data, NULL, NULL, fn, span, &shard, err);
    span->offset += to - from;
    if (rc != SPORF_OK)
        return rc;
    if (!*forest) {
        *forest = shard;
        return SPORF_OK;
    }
    const sporf_forest *parts[2] = {*forest, shard};
    sporf_forest *joined = NULL;
    /* rounds that keep their sums stay unchosen when joined */
    rc = shard->pending ? sporf_model_merge(parts, 2, &joined, err) : sporf_forest_merge(parts, 2, &joined, err);
    sporf_forest_free(shard);
    if (rc != SPORF_OK)
        return rc;
    sporf_forest_free(*forest);
    *forest = joined;
    return SPORF_OK;
}

static int tune(const sporf_params *params, int32_t grid, const sporf_matrix *X, tune_targets *tg,
                const double *sample_weight, sporf_tune_result *result, sporf_progress_fn progress, void *user_data,
                sporf_forest **out, sporf_error *err);

/* A candidate's forest that has not chosen its leaf size (its rounds'
 * sums added up), chosen and laid out for prediction: in place (the
 * winner's), or a copy (*chosen, the caller's to free) to score a round. */
static int choose_now(sporf_forest *f, sporf_forest **chosen, int32_t n_jobs, sporf_error *err)
{
    sporf_forest *c = f;
    int rc = chosen ? sporf_model_merge((const sporf_forest *const *)&f, 1, &c, err) : SPORF_OK;
    if (rc == SPORF_OK)
        rc = sporf_leaf_choose_pending(c, n_jobs > 0 ? n_jobs : 1, err);
    if (rc == SPORF_OK)
        rc = sporf_forest_pack(c, err);
    if (chosen)
        *chosen = c;
    return rc;
}

/* The out-of-bag values of a candidate's forest (chosen from its sums first
 * when it has not chosen its leaf size). */
static int candidate_oob(sporf_forest *f, const sporf_matrix *X, int32_t n_jobs, double *oob, int64_t *count,
                         sporf_error *err)
{
    sporf_forest *chosen = NULL;
    int rc = f->pending ? choose_now(f, &chosen, n_jobs, err) : SPORF_OK;
    if (rc == SPORF_OK)
        rc = sporf_forest_oob_predict(chosen ? chosen : f, X, n_jobs, oob, count, err);
    sporf_forest_free(chosen);
    return rc;
}

int sporf_forest_tune_oob(const sporf_params *params, int32_t grid, const sporf_matrix *X, const sporf_fit_data *data,
                          sporf_tune_result *result, sporf_progress_fn progress, void *user_data,
                          sporf_forest **out, sporf_error *err)
{
    sporf_clear_error(err);
    if (out)
        *out = NULL; /* on every error, as the fits do */
    if (!data)
        return sporf_set_error(err, SPORF_E_ARG, "sporf_forest_tune_oob: data is required");
    if (data->rows)
        return sporf_set_error(err, SPORF_E_ARG, "sporf_forest_tune_oob: the tuning reads every training row "
                                                 "(data->rows must be NULL)");
    if (data->response == SPORF_RESPONSE_SURVIVAL)
        return sporf_set_error(err, SPORF_E_ARG, "sporf_forest_tune_oob: the tuning is for classification and "
                                                 "regression forests");
    const int32_t n_outputs = data->n_outputs > 0 ? data->n_outputs : 1;
    const int32_t *y = data->response == SPORF_RESPONSE_CLASSES ? data->codes : NULL;
    const double *y_regression = data->response == SPORF_RESPONSE_VALUES ? data->values : NULL;
    if ((y && !data->n_classes) || (n_outputs > 1 && X && X->nrow < 1))
        return sporf_set_error(err, SPORF_E_ARG, "sporf_forest_tune_oob: class counts with class codes, and rows, "
                                                 "are required");
    double one = 1.0;
    if (n_outputs == 1) {
        tune_targets tg = {1, y, data->n_classes, y_regression, data->class_weights, &one};
        return tune(params, grid, X, &tg, data->sample_weight, result, progress, user_data, out, err);
    }
    double *scale = NULL;
    if (y_regression && X) {
        /* each output's variance over the rows: its unit of squared error */
        const int64_t n = X->nrow, m = n_outputs;
        if (!(scale = calloc((size_t)n_outputs, sizeof *scale)))
            return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
        for (int32_t j = 0; j < n_outputs; j++) {
            double mean = 0.0, ss = 0.0;
            for (int64_t i = 0; i < n; i++) mean += y_regression[i * m + j];
            mean /= (double)n;
            for (int64_t i = 0; i < n; i++) ss += (y_regression[i * m + j] - mean) * (y_regression[i * m + j] - mean);
            scale[j] = ss > 0.0 ? ss / (double)n : 1.0;
        }
    }
    tune_targets tg = {n_outputs, y, data->n_classes, y_regression, data->class_weights, scale};
    const int rc = tune(params, grid, X, &tg, data->sample_weight, result, progress, user_data, out, err);
    free(scale);
    return rc;
}

static int tune(const sporf_params *params, int32_t grid, const sporf_matrix *X, tune_targets *tg,
                const double *sample_weight, sporf_tune_result *result, sporf_progress_fn progress, void *user_data,
                sporf_forest **out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!out || !result || !params || !X)
        return sporf_set_error(err, SPORF_E_ARG, "sporf_forest_tune_oob: params, X, result and out are required");
    *out = NULL;
    memset(result, 0, sizeof *result);
    if ((tg->y == NULL) == (tg->yr == NULL))
        return sporf_set_error(err, SPORF_E_ARG,
                               "sporf_forest_tune_oob: give class codes or a numeric response, not both");
    if (grid != SPORF_TUNE_DENSITY && grid != SPORF_TUNE_STRUCTURE)
        return sporf_set_error(err, SPORF_E_ARG, "sporf_forest_tune_oob: unknown grid %d", (int)grid);
    if (X->data32)
        return sporf_set_error(err, SPORF_E_ARG, "sporf_forest_tune_oob: the out-of-bag errors are computed on X "
                                                 "as doubles; pass doubles");
    int rc = sporf_params_check(params, X->ncol, err);
    if (rc == SPORF_OK)
        rc = sporf_params_check_tunable(params, err);
    if (rc != SPORF_OK)
        return rc;
    int32_t K = 0;
    for (int32_t j = 0; j < tg->m; j++) K += tg->y ? tg->n_classes[j] : 1;
    const int32_t n_cand = grid == SPORF_TUNE_STRUCTURE
                         ? sporf_params_tune_structure_grid(params, X->ncol, result->candidates)
                         : sporf_params_tune_grid(params, X->ncol, result->candidates);
    result->n_candidates = n_cand;

    /* The schedule: R halvings; round r grows every survivor to
     * sporf_params_tune_trees(params, R - r) trees, the last one all. */
    const int64_t n = X->nrow;
    int32_t R = 0;
    while ((1 << R) < n_cand) R++;
    int64_t total = 0;
    {
        int64_t grown = 0;
        for (int32_t r = 0, alive = n_cand; r <= R; r++, alive = (alive + 1) / 2) {
            const int64_t t = sporf_params_tune_trees(params, R - r);
            total += alive * (t - grown);
            grown = t;
        }
    }
    sporf_forest *forest[SPORF_TUNE_MAX_CANDIDATES] = {0};
    int32_t alive[SPORF_TUNE_MAX_CANDIDATES];
    for (int32_t i = 0; i < n_cand; i++) {
        alive[i] = i;
        result->oob_error[i] = INFINITY;
    }
    double *oob = malloc((size_t)n * (size_t)K * sizeof *oob);
    int64_t *count = malloc((size_t)(n > 0 ? n : 1) * sizeof *count);
    if (!oob || !count) {
        rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory for the out-of-bag values of %lld rows", (long long)n);
        goto done;
    }
    progress_span span = {progress, user_data, 0, 0, total};
    int32_t n_alive = n_cand;
    int64_t grown = 0;
    for (int32_t r = 0; r <= R; r++) {
        const int64_t t = sporf_params_tune_trees(params, R - r);
        for (int32_t a = 0; a < n_alive && t > grown; a++) {
            const int32_t i = alive[a];
            rc = grow_on(&result->candidates[i], grown, t, X, tg, sample_weight, &span, &forest[i], err);
            if (rc != SPORF_OK)
                goto done;
            result->n_trees[i] = t;
        }
        grown = t;
        if (n_alive == 1)
            break;
        for (int32_t a = 0; a < n_alive; a++) {
            const int32_t i = alive[a];
            rc = candidate_oob(forest[i], X, params->n_jobs, oob, count, err);
            if (rc != SPORF_OK)
                goto done;
            result->oob_error[i] = oob_error(oob, count, n, K, tg);
        }
        /* keep the better half: lower error first, then the earlier candidate
         * (insertion sort of at most SPORF_TUNE_MAX_CANDIDATES) */
        for (int32_t a = 1; a < n_alive; a++) {
            const int32_t i = alive[a];
            int32_t b = a;
            while (b > 0 && (result->oob_error[alive[b - 1]] > result->oob_error[i] ||
                             (result->oob_error[alive[b - 1]] == result->oob_error[i] && alive[b - 1] > i))) {
                alive[b] = alive[b - 1];
                b--;
            }
            alive[b] = i;
        }
        const int32_t keep = (n_alive + 1) / 2;
        for (int32_t a = keep; a < n_alive; a++) {
            sporf_forest_free(forest[alive[a]]);
            forest[alive[a]] = NULL;
        }
        n_alive = keep;
    }
    /* the winner's error is its full forest's (the OOB score a fit reports),
     * after it chose from all its trees' sums */
    if (forest[alive[0]]->pending && (rc = choose_now(forest[alive[0]], NULL, params->n_jobs, err)) != SPORF_OK)
        goto done;
    rc = sporf_forest_oob_predict(forest[alive[0]], X, params->n_jobs, oob, count, err);
    if (rc != SPORF_OK)
        goto done;
    result->oob_error[alive[0]] = oob_error(oob, count, n, K, tg);
    result->best = alive[0];
    *out = forest[alive[0]];
    forest[alive[0]] = NULL;
    if (progress)
        (void)progress(user_data, total, total); /* the work is done: nothing left to cancel */
done:
    for (int32_t i = 0; i < n_cand; i++)
        sporf_forest_free(forest[i]);
    free(oob);
    free(count);
    if (rc != SPORF_OK && *out) {
        sporf_forest_free(*out);
        *out = NULL;
    }
    return rc;
}
