/*
 * criterion.h -- classification impurity (Gini, entropy).
 *
 * The split scan never recomputes an impurity from K class counts per cut:
 * it keeps running sums that change in O(1) when one sample moves left.
 *   gini:    W * gini(n)  = W - sum_k n_k^2 / W      -> keep S = sum_k n_k^2
 *   entropy: W * H(n)     = W log W - sum_k n_k log n_k (the scan uses the
 *            natural log; reported impurities use log2, as scikit-learn does)
 *                                                    -> keep S = sum_k n_k log n_k
 * The children's weighted impurity is then a function of (W_l, S_l, W_r, S_r)
 * and the scan maximizes the "proxy" that differs from minus that sum by a
 * constant of the node.
 */
#ifndef SPORF_CRITERION_H
#define SPORF_CRITERION_H

#include "include/sporf.h"

#include <math.h>
#include <stdint.h>

static inline double sporf_xlogx(double x) { return x > 0.0 ? x * log(x) : 0.0; }

/* Contribution of one class count to S. */
static inline double sporf_crit_term(int32_t criterion, double n)
{
    return criterion == SPORF_CRIT_GINI ? n * n : sporf_xlogx(n);
}

/* Proxy to maximize: -(W_l i_l + W_r i_r) up to a node constant. */
static inline double sporf_crit_proxy(int32_t criterion, double wl, double sl, double wr, double sr)
{
    if (criterion == SPORF_CRIT_GINI)
        return sl / wl + sr / wr;
    return sl + sr - sporf_xlogx(wl) - sporf_xlogx(wr);
}

/* Impurity of a node with class weights counts[0..K) summing to w (task_classification.c). */
double sporf_impurity(int32_t criterion, const double *counts, int32_t n_classes, double w);

#endif
