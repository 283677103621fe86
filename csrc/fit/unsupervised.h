/*
 * unsupervised.h -- split scores for unsupervised trees (URerF): the best cut
 * of one candidate's sorted projected values, with no response.
 *
 * Both criteria read the same running sums (weight, weighted sum and sum of
 * squares of the values, centred on the node mean for precision) and score
 * each cut in O(1):
 *   twomeans  exact one-dimensional two-means: minimise the within-side sum
 *             of squares SSE_l + SSE_r.
 *   fastbic   the URerF paper's Algorithm 3: one Gaussian per side fitted by
 *             maximum likelihood; the better (lower) BIC of the
 *             unequal-variance form (5 parameters) and the equal-variance form
 *             (4 parameters).
 * Candidates of one node are compared by a score relative to the node on the
 * same projection (the fraction of the spread a cut explains, or the BIC
 * gained over one Gaussian), because a raw SSE or BIC depends on the scale
 * of the projection, and would favour projections with a small spread.
 */
#ifndef SPORF_UNSUPERVISED_H
#define SPORF_UNSUPERVISED_H

#include <stdint.h>

typedef struct sporf_unsup_cut {
    int found;
    int64_t n_left;     /* values v[0..n_left) go left */
    double threshold;   /* midpoint between v[n_left - 1] and v[n_left] */
    double score;       /* larger is better; comparable across candidates */
    double bic;         /* fastbic: the cut's BIC (lower is better), up to a
                           constant of the node; twomeans: SSE_l + SSE_r */
} sporf_unsup_cut;

/* Best cut of sorted values v[0..n) with weights w[0..n) (w NULL: all 1).
 * Each side keeps at least max(min_leaf, ceil(n / 200)) values and min_weight
 * of weight (the 0.5% floor stops Fast-BIC from peeling single rows off
 * structureless nodes; see task_unsupervised.c).
 * criterion is SPORF_CRIT_FASTBIC or SPORF_CRIT_TWOMEANS. A side whose spread
 * is below 1e-12 of the node's counts as constant (zero variance): it has no
 * unequal-variance fit, so the equal-variance form scores that cut; when both
 * sides are constant the cut separates two point masses and scores +inf
 * (the first such cut wins). cut->found is 0 when no cut is allowed. */
void sporf_unsup_best_cut(int32_t criterion, const double *v, const double *w, int64_t n,
                          int64_t min_leaf, double min_weight, sporf_unsup_cut *cut);

#endif
