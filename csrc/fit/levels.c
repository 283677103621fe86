/* levels.c -- the order in which a categorical feature's levels enter the
 * trees (sporf.h, sporf_order_levels): by the response, once per forest,
 * as ranger's respect.unordered.factors = "order" does, so the trees split
 * a categorical feature into sets of levels with the threshold search they
 * use for every feature, and rows walk them as numbers. */
#include "include/sporf.h"
#include "util/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Power iterations for the first principal component (several classes):
 * K is small, so a fixed count converges far past double precision for any
 * eigenvalue gap worth ordering by, and keeps the result reproducible. */
#define PC_ITERATIONS 200

typedef struct level_score {
    double score;
    int32_t level;
} level_score;

static int by_score_then_level(const void *a, const void *b)
{
    const level_score *x = a, *y = b;
    if (x->score != y->score)
        return x->score < y->score ? -1 : 1;
    return (x->level > y->level) - (x->level < y->level);
}

/* The first principal component of the levels' class distributions
 * (rows of p, L x K, weights w), Coppersmith, Hong and Hosking's order for
 * several classes: each level's score is its distribution projected on it. */
static void first_component_scores(const double *p, const double *w, int32_t L, int32_t K, double *score,
                                   double *scratch)
{
    double *mean = scratch, *cov = scratch + K, *v = cov + (int64_t)K * K, *next = v + K;
    double W = 0.0;
    memset(mean, 0, (size_t)K * sizeof *mean);
    for (int32_t l = 0; l < L; l++) {
        W += w[l];
        for (int32_t k = 0; k < K; k++) mean[k] += w[l] * p[(int64_t)l * K + k];
    }
    for (int32_t k = 0; k < K; k++) mean[k] /= W;
    memset(cov, 0, (size_t)K * (size_t)K * sizeof *cov);
    for (int32_t l = 0; l < L; l++)
        for (int32_t a = 0; a < K; a++)
            for (int32_t b = 0; b < K; b++)
                cov[a * K + b] += w[l] * (p[(int64_t)l * K + a] - mean[a]) * (p[(int64_t)l * K + b] - mean[b]);
    /* a start that no symmetric class layout makes orthogonal to the component */
    for (int32_t k = 0; k < K; k++) v[k] = 1.0 + k;
    for (int it = 0; it < PC_ITERATIONS; it++) {
        double norm = 0.0;
        for (int32_t a = 0; a < K; a++) {
            double s = 0.0;
            for (int32_t b = 0; b < K; b++) s += cov[a * K + b] * v[b];
            next[a] = s;
            norm += s * s;
        }
        if (!(norm > 0.0))
            break; /* all levels alike: every score ties */
        norm = sqrt(norm);
        for (int32_t k = 0; k < K; k++) v[k] = next[k] / norm;
    }
    for (int32_t l = 0; l < L; l++) {
        double s = 0.0;
        for (int32_t k = 0; k < K; k++) s += p[(int64_t)l * K + k] * v[k];
        score[l] = s;
    }
}

int sporf_order_levels(const double *codes, int64_t n, int64_t stride, int32_t n_levels, const int32_t *y,
                       int32_t n_classes, const double *y_regression, const double *sample_weight,
                       double *position, sporf_error *err)
{
    sporf_clear_error(err);
    if (!codes || !position || n < 0 || stride < 1 || n_levels < 1)
        return sporf_set_error(err, SPORF_E_ARG, "order_levels: codes, position and n_levels >= 1 are required");
    if (y && (n_classes < 1 || y_regression))
        return sporf_set_error(err, SPORF_E_ARG, "order_levels: give class codes with n_classes, or responses");
    const int32_t K = y ? n_classes : 1;
    double *sum = calloc((size_t)n_levels * (size_t)K, sizeof *sum);
    double *w = calloc((size_t)n_levels, sizeof *w);
    double *score = malloc((size_t)n_levels * sizeof *score);
    double *scratch = malloc(((size_t)K * (size_t)K + 3 * (size_t)K) * sizeof *scratch);
    level_score *order = malloc((size_t)n_levels * sizeof *order);
    int rc = SPORF_OK;
    if (!sum || !w || !score || !scratch || !order) {
        rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory ordering levels");
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        const double c = codes[i * stride];
        if (isnan(c))
            continue; /* missing: no level */
        if (!(c >= 0.0 && c < (double)n_levels && c == floor(c))) {
            rc = sporf_set_error(err, SPORF_E_ARG, "row %lld: level code %g is not a whole number in [0, %d)",
                                 (long long)i, c, n_levels);
            goto done;
        }
        const int32_t l = (int32_t)c;
        const double wi = sample_weight ? sample_weight[i] : 1.0;
        w[l] += wi;
        if (y) {
            if (y[i] < 0 || y[i] >= K) {
                rc = sporf_set_error(err, SPORF_E_ARG, "y[%lld] = %d is not a class code in [0, %d)", (long long)i,
                                     y[i], K);
                goto done;
            }
            sum[(int64_t)l * K + y[i]] += wi;
        } else if (y_regression) {
            sum[l] += wi * y_regression[i];
        }
    }
    int32_t seen = 0;
    for (int32_t l = 0; l < n_levels; l++) {
        if (w[l] > 0.0)
            for (int32_t k = 0; k < K; k++) sum[(int64_t)l * K + k] /= w[l];
        score[l] = 0.0;
    }
    if (y_regression || (y && K == 2)) {
        /* the mean response, or the share of the second class */
        for (int32_t l = 0; l < n_levels; l++) score[l] = sum[(int64_t)l * K + (K == 2 ? 1 : 0)];
    } else if (y && K > 2) {
        /* observed levels only: w is 0 for the others */
        first_component_scores(sum, w, n_levels, K, score, scratch);
    } /* else: no response (unsupervised) or one class: the levels' own order */
    for (int32_t l = 0; l < n_levels; l++)
        if (w[l] > 0.0) {
            order[seen].score = score[l];
            order[seen].level = l;
            seen++;
        }
    qsort(order, (size_t)seen, sizeof *order, by_score_then_level);
    for (int32_t l = 0; l < n_levels; l++) position[l] = NAN; /* a level no row has */
    for (int32_t r = 0; r < seen; r++) position[order[r].level] = (double)r;
done:
    free(sum);
    free(w);
    free(score);
    free(scratch);
    free(order);
    return rc;
}
