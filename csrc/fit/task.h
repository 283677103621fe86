/*
 * task.h -- what the tree builder asks of a learning task.
 *
 * The grow loop (builder.c) is the same for every forest: pop a node, take
 * its statistics, try candidate projections, partition, push the children or
 * make a leaf. Everything that depends on the response -- class counts,
 * regression sums, no response at all (URerF) -- sits behind this table,
 * chosen once when the builder is made (sporf_task_for), so the loop has no
 * branch on the task. The calls are per node and per candidate, never per
 * row, so the indirection costs nothing measurable (benchmarks/fit_ab.py).
 *
 * Each task reads the builder's rows (b->idx[start..end), weights b->w by
 * row id) and its own response (b->y or b->yr).
 *
 * Missing values: a row whose projection is NaN (a feature with a non-zero
 * weight is missing) is "missing" at that split. The builder moves a
 * candidate's missing rows to the end of the node's slice, after the sorted
 * values, and the task's scan chooses the side they go to with the cut. The
 * builder then tries the candidate with the missing features imputed (their
 * training means) and no row missing, and keeps the better (builder.c).
 */
#ifndef SPORF_TASK_H
#define SPORF_TASK_H

#include "fit/builder.h"

#include <math.h>

/* The scans written once for every task (scan.h, hist_scan.h) are inlined
 * into each task's code, so their calls through the task's table of running
 * sums become direct. */
#if defined(__GNUC__)
#define SPORF_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define SPORF_ALWAYS_INLINE inline
#endif

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

typedef struct sporf_task {
    /* Statistics of rows idx[start..end); classification also leaves the
     * class weights in b->node_counts for scan and leaf. */
    void (*node_stats)(sporf_builder *b, int64_t start, int64_t end, sporf_node_stats *st);
    /* Scan every cut of the slice: rows [start, end - n_miss) sorted by
     * b->vals, then the n_miss rows whose projection is missing. Supervised
     * tasks try the missing rows on each side of every cut (and a cut of
     * their own: every value left, the missing rows right), as scikit-learn
     * does for axis splits; unsupervised forests send them where the mean of
     * the node's projected values falls. Update *best when a cut beats it and
     * return 1, else 0. With n_miss = 0 the scan is the one of a complete
     * column, to the last bit. */
    int (*scan)(sporf_builder *b, int64_t start, int64_t end, int64_t n_miss, const sporf_node_stats *st,
                sporf_best_split *best);
    /* Weighted impurity decrease of the partition idx[start..mid) |
     * idx[mid..end) (b->vals holds the split's projection, aligned); the
     * sides' total weights go to w_side[0] (left) and w_side[1] (right),
     * unsupervised forests counting the rows with a projected value. */
    double (*gain)(sporf_builder *b, int64_t start, int64_t mid, int64_t end, const sporf_node_stats *st,
                   double *w_side);
    /* The K values of a leaf of this node (w_root: the tree's total weight). */
    void (*leaf)(const sporf_builder *b, const sporf_node_stats *st, double w_root, double *lv);
    /* Honest estimation: add row id with weight w to the K sums acc (the
     * leaf value is then acc / total weight). NULL for unsupervised forests,
     * which have no response to estimate. */
    void (*add_row)(const sporf_builder *b, int32_t id, double w, double *acc);
    /* The K values for an estimation sample that is empty (uniform class
     * distributions, or 0). */
    void (*empty)(const sporf_builder *b, double *out);
    /* Guided projections (guided.h): the target t[i - start] of each row
     * idx[i], i in [start, end), whose marginal slopes weight the node's best
     * features; (f, sign, threshold, missing_left) is the node's best
     * single-feature cut (rows with sign * x[f] <= threshold go left, and
     * rows missing x[f] when missing_left). */
    void (*guide_target)(sporf_builder *b, int64_t start, int64_t end, int32_t f, double sign,
                         double threshold, int missing_left, double *t);

    /* Histogram scans (histogram.h); hist_width is 0 and the rest NULL for a
     * task without them (URerF), whose scans stay exact. */
    /* S: the statistics a bin keeps for K classes. */
    int32_t (*hist_width)(int32_t n_classes);
    /* Once per node: each row's weight and response by position into
     * b->hist.node_w and node_r, the node's S statistics into b->hist.total. */
    void (*hist_prepare)(sporf_builder *b, int64_t start, int64_t end, const sporf_node_stats *st);
    /* The histogram scan (hist_scan.h) of the candidate whose values are in
     * b->vals[start..end) (no sort; hist_prepare has run for this node).
     * Returns -1 when the values are constant (the candidate does not count
     * as tried), -2 when the bins cannot resolve them (the caller scans
     * exactly), else 1, having updated *best when a cut between bins beats it. */
    int (*hist_scan)(sporf_builder *b, int64_t start, int64_t end, const sporf_node_stats *st,
                     sporf_best_split *best);
} sporf_task;

extern const sporf_task sporf_task_classification;
extern const sporf_task sporf_task_regression;
extern const sporf_task sporf_task_unsupervised;
extern const sporf_task sporf_task_multi_classification;
extern const sporf_task sporf_task_multi_regression;

/* The table of a SPORF_TASK_* code and number of outputs. */
const sporf_task *sporf_task_for(int32_t task, int32_t n_outputs);

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
