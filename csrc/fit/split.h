/*
 * split.h -- a node's statistics and the best cut found so far: what the
 * tree builder, the tasks' scans and the histogram share about a split.
 */
#ifndef SPORF_SPLIT_H
#define SPORF_SPLIT_H

#include <math.h>
#include <stdint.h>

/* What a node's statistics tell the grow loop. */
typedef struct sporf_node_stats {
    double w;         /* total weight of the node's rows */
    double mean;      /* regression: the weighted mean response (its leaf value, and
                         the centre of the scan's running sums) */
    double impurity;  /* classification: gini or entropy; regression: SSE / w;
                         unsupervised: 0 */
    double sse;       /* regression: the weighted sum of squares about mean */
    int pure;         /* no split can lower the impurity: make a leaf */
    double perfect;   /* the proxy of a cut into pure children, which no cut can beat:
                         the search stops at the first cut that reaches it (builder.c);
                         +infinity where there is none (unsupervised) */
    double risk;      /* survival: the node's risk, its value as a leaf (model/survival.h) */
    int32_t depth;    /* the node's depth (root 0), set by the builder after node_stats:
                         an isolation leaf's value counts it */
} sporf_node_stats;

/* The best cut found so far at a node. proxy is the task's score for
 * comparing cuts (larger is better), not a gain. */
typedef struct sporf_best_split {
    int found;
    double proxy;
    int64_t n_left;       /* rows that go left */
    double threshold;
    int missing_left;     /* rows whose projection is missing go left (else right) */
    int imputed;          /* instead, missing rows take their projection with each missing
                             feature at its training mean (builder.c; tasks leave it 0) */
    int32_t len;          /* non-zeros of its projection */
    /* A histogram scan's cut (histogram.h): the rows in bins <= bin_k of the
     * projection's B = bin_count bins from bin_lo (index (v - bin_lo) *
     * bin_scale) go left; bin_hi is the projection's maximum. The threshold
     * is then only the bins' edge, until sporf_hist_threshold places it
     * between the neighbouring values. */
    int binned;
    int32_t bin_count, bin_k;
    double bin_lo, bin_hi, bin_scale;
} sporf_best_split;

/* The threshold of a cut between sorted neighbours a < z: their midpoint,
 * or a when no double lies strictly between (adjacent doubles) or the sum
 * overflows. Every task stores cuts this way, so rows equal to a go left. */
static inline double sporf_cut_threshold(double a, double z)
{
    double t = a * 0.5 + z * 0.5;
    if (!(t >= a && t < z))
        t = a;
    return t;
}

/* Keep the cut between sorted values a and z at n_left rows (missing rows
 * on the side missing_left says) if its proxy beats *best (or nothing was
 * found yet); returns 1 when it did. z = +infinity: the cut after the last
 * value (threshold a). */
static inline int sporf_offer_cut(sporf_best_split *best, double proxy, int64_t n_left, double a, double z,
                                  int missing_left)
{
    if (best->found && !(proxy > best->proxy))
        return 0;
    best->found = 1;
    best->proxy = proxy;
    best->n_left = n_left;
    best->threshold = sporf_cut_threshold(a, z);
    best->missing_left = missing_left;
    best->imputed = 0;
    best->binned = 0;
    return 1;
}

/* Is the projected value v missing (NaN)? */
static inline int sporf_is_missing(double v) { return isnan(v); }

#endif
