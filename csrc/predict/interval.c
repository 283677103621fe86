/* interval.c -- prediction intervals of a quantile regression forest,
 * calibrated by conformal prediction (sporf.h, sporf_forest_predict_interval).
 *
 * The calibration is conformal prediction on the quantile levels, as
 * distributional conformal prediction (Chernozhukov, Wuthrich and Zhu,
 * PNAS 2021) does it: each calibration row's score is how far into a tail
 * of its own conditional distribution its response lies (quantiles.c,
 * interval_score), and the interval at coverage c takes the central levels
 * 1/2 - q and 1/2 + q, q the ceil(c (n + 1))-th smallest of the n scores.
 * The levels stretch where the forest's distributions are too narrow (a
 * forest's own training rows sit closer to a query than new rows do) and
 * shrink where they are too wide, one adjustment for every query, so the
 * interval keeps the forest's shape: wider where the response is noisier.
 * One score per calibration row, kept by the binding, serves every coverage. */
#include "predict/predict.h"
#include "util/matrix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A level's margin: y lies in [Q(a), Q(b)] when F(y) >= a and F(y-) < b, a
 * strict inequality, and the scores' sums round differently from the
 * quantile walk's; 1e-9 of probability covers both and widens nothing
 * measurable. */
#define LEVEL_MARGIN 1e-9

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int check_coverage(double coverage, sporf_error *err)
{
    if (!(coverage > 0.0 && coverage < 1.0))
        return sporf_set_error(err, SPORF_E_ARG, "coverage must be in (0, 1), got %g", coverage);
    return SPORF_OK;
}

/* The calibrated q of n kept scores (ascending) with their weights (NULL:
 * all alike): the ceil(c (n + 1))-th smallest, or with weights the smallest
 * score whose cumulative weight reaches c (W + w) -- W their total, w their
 * mean standing in for the new row's -- which is the same rule when the
 * weights are equal. Past the last, the whole distribution (conformal
 * prediction would give an unbounded interval: a forest's reaches no
 * further than its training responses). */
static double calibrated_q(const double *kept, const double *w, int64_t n, double coverage)
{
    if (!w) {
        const int64_t k = (int64_t)ceil(coverage * (double)(n + 1) - 1e-9);
        return k > n ? 0.5 : kept[k - 1 > 0 ? k - 1 : 0];
    }
    double W = 0.0;
    for (int64_t i = 0; i < n; i++) W += w[i];
    const double target = coverage * (W + W / (double)n) * (1.0 - 1e-12);
    double cum = 0.0;
    for (int64_t i = 0; i < n; i++) {
        cum += w[i];
        if (cum >= target)
            return kept[i];
    }
    return 0.5;
}

typedef struct weighted_score {
    double score, weight;
} weighted_score;

static int by_score(const void *a, const void *b)
{
    const weighted_score *x = a, *y = b;
    return (x->score > y->score) - (x->score < y->score);
}

int sporf_interval_levels_weighted(const double *scores, const double *weights, int64_t n_scores, double coverage,
                                   double *levels, sporf_error *err)
{
    sporf_clear_error(err);
    if (!levels || (n_scores > 0 && !scores) || n_scores < 0)
        return sporf_set_error(err, SPORF_E_ARG, "interval_levels: scores and levels are required");
    int rc = check_coverage(coverage, err);
    if (rc != SPORF_OK)
        return rc;
    if (!scores) {
        levels[0] = 0.5 - 0.5 * coverage;
        levels[1] = 0.5 + 0.5 * coverage;
        return SPORF_OK;
    }
    double *kept = malloc((size_t)(n_scores > 0 ? n_scores : 1) * 2 * sizeof *kept);
    weighted_score *pairs = weights ? malloc((size_t)(n_scores > 0 ? n_scores : 1) * sizeof *pairs) : NULL;
    if (!kept || (weights && !pairs)) {
        free(kept);
        free(pairs);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory sorting the interval scores");
    }
    int64_t n = 0;
    for (int64_t i = 0; i < n_scores; i++) {
        if (isnan(scores[i]) || (weights && weights[i] == 0.0)) /* a row no tree held out, or censored */
            continue;
        if (!(scores[i] >= -0.5 && scores[i] <= 0.5) || (weights && !(weights[i] > 0.0 && weights[i] < INFINITY))) {
            free(kept);
            free(pairs);
            return sporf_set_error(err, SPORF_E_ARG, "interval score %lld is %g (weight %g): scores lie in "
                                                     "[-1/2, 1/2] and weights are finite and >= 0, as the "
                                                     "interval_scores functions give them", (long long)i, scores[i],
                                   weights ? weights[i] : 1.0);
        }
        if (weights)
            pairs[n] = (weighted_score){scores[i], weights[i]};
        kept[n++] = scores[i];
    }
    if (n == 0) {
        free(kept);
        free(pairs);
        return sporf_set_error(err, SPORF_E_ARG, "no interval scores to calibrate with (every row was in every "
                                                 "tree's bag, or none was given)");
    }
    double *w = NULL;
    if (weights) {
        /* scores with their weights, ascending (ties: a stable order of equal scores sums alike) */
        qsort(pairs, (size_t)n, sizeof *pairs, by_score);
        w = kept + n;
        for (int64_t i = 0; i < n; i++) {
            kept[i] = pairs[i].score;
            w[i] = pairs[i].weight;
        }
    } else {
        qsort(kept, (size_t)n, sizeof *kept, by_value);
    }
    double q = calibrated_q(kept, w, n, coverage);
    free(kept);
    free(pairs);
    /* A score is negative when the row's response is an atom of its
     * distribution that spans the middle (F(y-) < 1/2 < F(y)): on few rows
     * the q-th score can be. The set the scores promise is then that atom
     * alone, and the levels would cross; 0 keeps them ordered and the
     * interval a superset (the median's neighbourhood). */
    if (q < 0.0)
        q = 0.0;
    levels[0] = 0.5 - q - LEVEL_MARGIN;
    levels[1] = 0.5 + q + LEVEL_MARGIN;
    levels[0] = levels[0] < 0.0 ? 0.0 : levels[0] > 1.0 ? 1.0 : levels[0];
    levels[1] = levels[1] < 0.0 ? 0.0 : levels[1] > 1.0 ? 1.0 : levels[1];
    return SPORF_OK;
}

int sporf_interval_levels(const double *scores, int64_t n_scores, double coverage, double *levels, sporf_error *err)
{
    return sporf_interval_levels_weighted(scores, NULL, n_scores, coverage, levels, err);
}

int sporf_forest_interval_scores(const sporf_forest *f, const sporf_matrix *X, const double *y, int32_t n_jobs,
                                 double *scores, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !X || !y || !scores)
        return sporf_set_error(err, SPORF_E_ARG, "interval_scores: forest, X, y and scores are required");
    return sporf_forest_quantile_scores(f, X, NULL, y, n_jobs, scores, err);
}

int sporf_forest_predict_interval(const sporf_forest *f, const sporf_matrix *X, double coverage, const double *scores,
                                  int64_t n_scores, int32_t n_jobs, double *out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !X || !out)
        return sporf_set_error(err, SPORF_E_ARG, "predict_interval: forest, X and out are required");
    double levels[2];
    int rc = sporf_interval_levels(scores, n_scores, coverage, levels, err);
    if (rc != SPORF_OK)
        return rc;
    return sporf_forest_quantiles(f, X, NULL, levels, 2, n_jobs, out, err);
}
