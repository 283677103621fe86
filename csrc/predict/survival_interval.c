/* survival_interval.c -- prediction intervals for the event times of a
 * survival forest, calibrated by weighted conformal prediction (sporf.h,
 * sporf_forest_predict_survival_interval).
 *
 * The calibration is interval.c's, on the levels of each row's own survival
 * curve S (F = 1 - S): a calibration row whose event was observed at T
 * scores max(1/2 - F(T), F(T-) - 1/2), how far into a tail of its curve its
 * time lies. A censored row's event time is unknown, so it gives no score;
 * leaving it out would favour short times (the long ones are censored more
 * often), so each event row weighs 1 / G(T-), G the Kaplan-Meier curve of
 * the censoring times of the calibration rows -- inverse probability of
 * censoring weighting, which makes the weighted scores stand for every
 * row's had none been censored when the censoring is independent of the
 * event time. The interval at coverage c runs between the times at which a
 * row's curve reaches F = 1/2 - q and F = 1/2 + q, q the weighted quantile of
 * the scores (interval.c); its upper end is infinite when the curve stays
 * above 1/2 - q over the training follow-up. The coverage is approximate,
 * as G is estimated. */
#include "predict/predict.h"
#include "util/matrix.h"
#include "util/sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 1 / G(T_i-) for each row i with an event (0 for censored rows): G the
 * Kaplan-Meier curve of the n rows' censoring times (a censoring at the
 * time of an event comes after it, as usual). */
static int censoring_weights(const double *times, const int32_t *events, int64_t n, double *weights)
{
    int64_t *rows = malloc((size_t)(n > 0 ? n : 1) * sizeof *rows);
    if (!rows)
        return 0;
    for (int64_t i = 0; i < n; i++) rows[i] = i;
    if (!sporf_order_rows_by_key(times, rows, n)) {
        free(rows);
        return 0;
    }
    double G = 1.0;
    for (int64_t k = 0; k < n;) {
        int64_t k1 = k, censored = 0;
        for (; k1 < n && times[rows[k1]] == times[rows[k]]; k1++) censored += events[rows[k1]] == 0;
        for (int64_t j = k; j < k1; j++) weights[rows[j]] = events[rows[j]] ? 1.0 / G : 0.0;
        G *= 1.0 - (double)censored / (double)(n - k); /* n - k rows at risk at this time */
        k = k1;
    }
    free(rows);
    return 1;
}

int sporf_forest_survival_scores(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag,
                                 const double *times, const int32_t *events, int32_t n_jobs, double *scores,
                                 double *weights, sporf_error *err)
{
    if (!f || !X || !times || !events || !scores || !weights)
        return sporf_set_error(err, SPORF_E_ARG, "survival interval scores: forest, X, times, events, scores "
                                                 "and weights are required");
    if (f->task != SPORF_TASK_SURVIVAL)
        return sporf_set_error(err, SPORF_E_ARG, "survival interval scores are for survival forests");
    const int64_t n = X->nrow;
    /* the times and flags checked, and the weights, in one go */
    int rc = sporf_survival_censoring_weights(times, events, n, weights, err);
    if (rc != SPORF_OK)
        return rc;
    int64_t n_events = 0;
    for (int64_t i = 0; i < n; i++) n_events += events[i];
    if (n > 0 && n_events == 0)
        return sporf_set_error(err, SPORF_E_ARG, "no calibration row has an event: the scores need observed "
                                                 "event times");
    double *own = malloc((size_t)(2 * (n > 0 ? n : 1)) * sizeof *own);
    if (!own)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory for survival interval scores");
    rc = sporf_forest_survival_own_times(f, X, inbag, times, n_jobs, own, err);
    for (int64_t i = 0; rc == SPORF_OK && i < n; i++) {
        const double F_before = 1.0 - own[2 * i], F_at = 1.0 - own[2 * i + 1];
        if (!events[i] || isnan(F_at)) { /* censored, or in every tree's bag */
            scores[i] = NAN;
            weights[i] = 0.0;
            continue;
        }
        const double a = 0.5 - F_at, b = F_before - 0.5;
        const double s = a > b ? a : b;
        scores[i] = s < -0.5 ? -0.5 : s > 0.5 ? 0.5 : s;
    }
    free(own);
    return rc;
}

int sporf_survival_censoring_weights(const double *times, const int32_t *events, int64_t n, double *weights,
                                     sporf_error *err)
{
    sporf_clear_error(err);
    if (n < 0 || (n > 0 && (!times || !events || !weights)))
        return sporf_set_error(err, SPORF_E_ARG, "censoring_weights: times, events and weights are required");
    for (int64_t i = 0; i < n; i++) {
        if (!(times[i] >= 0.0 && times[i] <= SPORF_MAX_ABS_VALUE))
            return sporf_set_error(err, SPORF_E_ARG, "time[%lld] = %g: survival times must be finite numbers >= 0",
                                   (long long)i, times[i]);
        if (events[i] != 0 && events[i] != 1)
            return sporf_set_error(err, SPORF_E_ARG, "event[%lld] = %d: an event flag is 1 or 0", (long long)i,
                                   events[i]);
    }
    return censoring_weights(times, events, n, weights) ? SPORF_OK
                                                        : sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
}

int sporf_forest_survival_interval_scores(const sporf_forest *f, const sporf_matrix *X, const double *times,
                                          const int32_t *events, int32_t n_jobs, double *scores, double *weights,
                                          sporf_error *err)
{
    sporf_clear_error(err);
    return sporf_forest_survival_scores(f, X, NULL, times, events, n_jobs, scores, weights, err);
}

int sporf_forest_predict_survival_interval(const sporf_forest *f, const sporf_matrix *X, double coverage,
                                           const double *scores, const double *weights, int64_t n_scores,
                                           int32_t n_jobs, double *out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !X || !out)
        return sporf_set_error(err, SPORF_E_ARG, "predict_survival_interval: forest, X and out are required");
    if (scores && !weights)
        return sporf_set_error(err, SPORF_E_ARG, "predict_survival_interval: scores come with their weights");
    double levels[2];
    int rc = sporf_interval_levels_weighted(scores, weights, n_scores, coverage, levels, err);
    if (rc != SPORF_OK)
        return rc;
    return sporf_forest_survival_crossings(f, X, levels, n_jobs, out, err);
}
