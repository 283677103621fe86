/*
 * task.h -- what the tree builder asks of a learning task.
 *
 * The grow loop (builder.c) is the same for every forest: pop a node, take
 * its statistics, try candidate projections, partition, push the children or
 * make a leaf. Everything that depends on the response -- class counts,
 * regression sums, no response at all (URerF) -- sits behind this table,
 * chosen once when the builder is made (builder.c), so the loop has no
 * branch on the task. The calls are per node and per candidate, never per
 * row, so the indirection costs nothing measurable (benchmarks/speed/fit_ab.py).
 *
 * A task reads the node's rows (rows.h: r->idx[start..end), weights r->w by
 * row id, the candidate's values r->vals) and keeps its response and its
 * running sums in its own state (sporf_task_state, below); it never sees
 * the builder.
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

#include "fit/histogram.h"
#include "fit/rows.h"
#include "fit/split.h"
#include "model/model.h"
#include "util/rng.h"

#include <math.h>

/* The scans written once for every task (scan.h, hist_scan.h) are inlined
 * into each task's code, so their calls through the task's table of running
 * sums become direct. */
#if defined(__GNUC__)
#define SPORF_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define SPORF_ALWAYS_INLINE inline
#endif

/* The response a tree learns, by task. */
typedef struct sporf_response {
    int32_t task;           /* SPORF_TASK_* */
    const int32_t *y;       /* classification: class codes in [0, n_classes); survival: event
                               flags (1 = event, 0 = censored); else NULL */
    const double *yr;       /* regression: responses; survival: times; else NULL */
    int32_t n_classes;      /* classification: K >= 1; otherwise 1 (one value per leaf);
                               multi-output: the values of a leaf, summed over outputs */
    int32_t n_outputs;      /* 1, or the responses per row (multi-output y: y and yr are then
                               n x n_outputs row-major, class codes offset into the K values) */
    const int32_t *output_classes; /* multi-output classification: each output's classes */
    const double *output_weight;   /* multi-output regression: each output's weight in the
                                      summed squared error (task_multioutput.c) */
    /* survival, fit on a sample of the training rows: every row's times and
     * event flags (n_all), for what a tree counts over all of them (the
     * event times of its nodes' risks, the leaf-size choice's times);
     * NULL when y and yr hold every row */
    const double *all_yr;
    const int32_t *all_y;
    int64_t n_all;
} sporf_response;

/* A task's own state: its response, the limits a cut must respect, and
 * its running sums and histogram scratch (sporf_task_state_init). One per
 * builder, reused from tree to tree. */
typedef struct sporf_task_state {
    const sporf_params *params;
    const int32_t *y;       /* classification: class codes (NULL otherwise) */
    const double *yr;       /* regression: responses (NULL otherwise) */
    int32_t n_classes;      /* 1 unless classification: one value per leaf */
    int32_t n_outputs;      /* responses per row (sporf_response) */
    const int32_t *output_classes; /* multi-output classification: each output's classes */
    const double *output_weight;   /* multi-output regression: each output's weight */
    int64_t min_leaf_rows;  /* min_samples_leaf resolved against the training rows */
    double min_weight_leaf; /* per tree: min_weight_fraction_leaf * the tree's total weight */
    sporf_rng *rng;         /* the tree's stream, for the node being split */
    double *node_counts, *left_counts, *right_counts; /* K each: class weights */
    double *wsorted;        /* n: unsupervised, weights aligned with sorted values */
    sporf_histogram hist;   /* histogram scans of large nodes (histogram.h); max_bins 0: none */
    struct sporf_surv_state *surv; /* survival: the times, and each row's score at the node
                                      being split, which yr points to (task_survival.c) */
    const struct sporf_task *task; /* the table the state was made for (its state_free) */
} sporf_task_state;

typedef struct sporf_task {
    /* Statistics of rows idx[start..end); classification also leaves the
     * class weights in t->node_counts for scan and leaf. */
    void (*node_stats)(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, sporf_node_stats *st);
    /* Scan every cut of the slice: rows [start, end - n_miss) sorted by
     * r->vals, then the n_miss rows whose projection is missing. Supervised
     * tasks try the missing rows on each side of every cut (and a cut of
     * their own: every value left, the missing rows right), as scikit-learn
     * does for axis splits; unsupervised forests send them where the mean of
     * the node's projected values falls. Update *best when a cut beats it and
     * return 1, else 0. With n_miss = 0 the scan is the one of a complete
     * column, to the last bit. */
    int (*scan)(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int64_t n_miss,
                const sporf_node_stats *st, sporf_best_split *best);
    /* Weighted impurity decrease of the partition idx[start..mid) |
     * idx[mid..end) (r->vals holds the split's projection, aligned); the
     * sides' total weights go to w_side[0] (left) and w_side[1] (right),
     * unsupervised forests counting the rows with a projected value. */
    double (*gain)(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t mid, int64_t end,
                   const sporf_node_stats *st, double *w_side);
    /* The K values of a leaf of this node (w_root: the tree's total weight). */
    void (*leaf)(const sporf_task_state *t, const sporf_node_stats *st, double w_root, double *lv);
    /* Honest estimation: add row id with weight w to the K sums acc (the
     * leaf value is then acc / total weight). NULL for unsupervised forests,
     * which have no response to estimate. */
    void (*add_row)(const sporf_task_state *t, int32_t id, double w, double *acc);
    /* The K values for an estimation sample that is empty (uniform class
     * distributions, or 0). */
    void (*empty)(const sporf_task_state *t, double *out);
    /* Guided projections (guided.h): the target out[i - start] of each row
     * idx[i], i in [start, end), whose marginal slopes weight the node's best
     * features; (f, sign, threshold, missing_left) is the node's best
     * single-feature cut (rows with sign * x[f] <= threshold go left, and
     * rows missing x[f] when missing_left). */
    void (*guide_target)(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int32_t f,
                         double sign, double threshold, int missing_left, double *out);

    /* Histogram scans (histogram.h); hist_width is 0 and the rest NULL for a
     * task without them (URerF), whose scans stay exact. */
    /* S: the statistics a bin keeps for K classes. */
    int32_t (*hist_width)(int32_t n_classes);
    /* Once per node: each row's weight and response by position into
     * t->hist.node_w and node_r, the node's S statistics into t->hist.total. */
    void (*hist_prepare)(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end,
                         const sporf_node_stats *st);
    /* The histogram scan (hist_scan.h) of the candidate whose values are in
     * r->vals[start..end) (no sort; hist_prepare has run for this node).
     * Returns -1 when the values are constant (the candidate does not count
     * as tried), -2 when the bins cannot resolve them (the caller scans
     * exactly), else 1, having updated *best when a cut between bins beats it. */
    int (*hist_scan)(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end,
                     const sporf_node_stats *st, sporf_best_split *best);

    /* What a node keeps for the leaf-size choice (min_samples_leaf "auto",
     * leaf_choice.h), when it is more than its K leaf values: node_width
     * values, the first K of them its values as a leaf. NULL for the tasks
     * whose nodes keep their leaf values (leaf, K of them). */
    int32_t (*node_width)(const sporf_task_state *t);
    void (*node_value)(const sporf_task_state *t, const sporf_node_stats *st, double w_root, double *out);

    /* 1: the first candidate that cuts the node is its split (isolation:
     * random cuts have no quality to compare, and the paper draws until a
     * feature is not constant), and its scan receives the values unsorted
     * (a random cut needs their range only); 0: every candidate is scanned,
     * its values sorted. */
    int first_cut_wins;

    /* A task's state beyond the shared one (survival's times and scores),
     * made with the state for n rows (0 when out of memory) and freed with
     * it; NULL for the tasks that need none. A hook rather than a call from
     * task.c, so that the state's file knows no task and every task's file
     * stands above it. state_free must accept a partly made state. */
    int (*state_init)(struct sporf_task_state *t, const sporf_response *response, int64_t n);
    void (*state_free)(struct sporf_task_state *t);
} sporf_task;

extern const sporf_task sporf_task_classification;
extern const sporf_task sporf_task_regression;
extern const sporf_task sporf_task_unsupervised;
extern const sporf_task sporf_task_multi_classification;
extern const sporf_task sporf_task_multi_regression;
extern const sporf_task sporf_task_survival;
extern const sporf_task sporf_task_isolation;

/* The state of `task` for trees on n rows (task.c): the response (borrowed
 * for the state's life, as params), the resolved leaf size, the running sums'
 * buffers and the histogram scratch (at most `bins` bins, none for 0; random: the
 * random splitter's two). Returns 0 when out of memory (the state is then
 * freed). */
int sporf_task_state_init(sporf_task_state *t, const sporf_task *task, const sporf_params *params,
                          const sporf_response *response, int64_t n, int64_t min_leaf_rows, int32_t bins,
                          int random);
void sporf_task_state_free(sporf_task_state *t);

/* Each regression output's weight in the squared error: the inverse of its
 * (sample-weighted) variance over the n rows of y (n x m, row-major),
 * scaled so the smallest is 1 (task_multioutput.c says why). malloc'ed;
 * NULL when out of memory. */
double *sporf_output_weights(const double *y, const double *sw, int64_t n, int32_t m);

#endif
