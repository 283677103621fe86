/*
 * scan.h -- the exact threshold scan, written once for every supervised task.
 *
 * A node's rows are sorted by a candidate's projected values; the scan moves
 * them one at a time from the right side to the left and scores the cut
 * between each pair of distinct neighbours. What a task adds is only its
 * running sums (class weights, or centred response sums) and the score of a
 * cut from them -- ydf separates its scanner from its label accumulators the
 * same way. Each task (task_classification.c, task_regression.c) defines a
 * static const sporf_scan_ops and calls sporf_scan_sorted with it; the scan
 * is always inlined, so the compiler turns the calls through the table into
 * direct, inlined code, as fast as a loop written out per task.
 *
 * Missing values (task.h): the n_miss rows at the end of the slice have no
 * value. The scan runs once with them on the right and, when there are any,
 * once with them on the left; the right-side pass also tries the cut after
 * the last value (every value left, the missing rows right).
 */
#ifndef SPORF_SCAN_H
#define SPORF_SCAN_H

#include "fit/task.h"

/* The two sides' running sums. */
typedef struct sporf_scan_sums {
    double wl, wr;   /* weights */
    double sl, sr;   /* the task's sums: class-count terms (criterion.h), or
                        weighted responses centred on the node mean */
    double *L, *R;   /* classification: class weights per side; unused otherwise */
    double q;        /* survival's log-rank statistic: its variance's second sum */
} sporf_scan_sums;

typedef struct sporf_scan_ops {
    /* Start a pass: every row of idx[start..end) on the right, except the
     * n_miss missing rows at the end when missing_left. */
    void (*start)(const sporf_task_state *t, const sporf_rows *r, const sporf_node_stats *st, int64_t start, int64_t end, int64_t n_miss,
                  int missing_left, sporf_scan_sums *s);
    /* Move row id (weight ww) from the right side to the left; the scan
     * updates the weights wl and wr itself. */
    void (*move_left)(const sporf_task_state *t, const sporf_node_stats *st, int32_t id, double ww,
                      sporf_scan_sums *s);
    /* The cut's score (larger is better; task.h's proxy). */
    double (*proxy)(const sporf_task_state *t, const sporf_scan_sums *s);
} sporf_scan_ops;

static SPORF_ALWAYS_INLINE int sporf_scan_side(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int64_t n_miss,
                                               int missing_left, const sporf_node_stats *st,
                                               sporf_best_split *best, const sporf_scan_ops *ops)
{
    const int64_t msl = t->min_leaf_rows;
    const double mwl = t->min_weight_leaf;
    const int32_t *idx = r->idx;
    const double *w = r->w, *v = r->vals;
    sporf_scan_sums s;
    ops->start(t, r, st, start, end, n_miss, missing_left, &s);
    const int64_t n = end - start, n_val = n - n_miss;
    const int64_t nl0 = missing_left ? n_miss : 0;
    int changed = 0;
    int64_t i = 0;
    for (; i < n_val - 1; i++) {
        const int32_t id = idx[start + i];
        const double ww = w[id];
        ops->move_left(t, st, id, ww, &s);
        s.wl += ww;
        s.wr -= ww;
        const int64_t nl = nl0 + i + 1;
        if (nl < msl)
            continue;
        if (n - nl < msl)
            break;
        const double a = v[start + i], z = v[start + i + 1];
        if (!(z > a) || s.wl <= 0.0 || s.wr <= 0.0 || s.wl < mwl || s.wr < mwl)
            continue;
        changed |= sporf_offer_cut(best, ops->proxy(t, &s), nl, a, z, missing_left);
    }
    /* every value left, the missing rows right (not after a break: the right
     * side was already too small) */
    if (n_miss > 0 && !missing_left && n_val >= 1 && i == n_val - 1) {
        const int32_t id = idx[start + i];
        const double ww = w[id];
        ops->move_left(t, st, id, ww, &s);
        s.wl += ww;
        s.wr -= ww;
        if (n_val >= msl && n_miss >= msl && s.wl > 0.0 && s.wr > 0.0 && s.wl >= mwl && s.wr >= mwl)
            changed |= sporf_offer_cut(best, ops->proxy(t, &s), n_val, v[start + i], INFINITY, 0);
    }
    return changed;
}

/* The task's scan (task.h): the cuts of rows [start, end - n_miss) sorted by
 * r->vals, the missing rows on the right, then on the left. */
static SPORF_ALWAYS_INLINE int sporf_scan_sorted(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int64_t n_miss,
                                                 const sporf_node_stats *st, sporf_best_split *best,
                                                 const sporf_scan_ops *ops)
{
    int changed = sporf_scan_side(t, r, start, end, n_miss, 0, st, best, ops);
    if (n_miss > 0)
        changed |= sporf_scan_side(t, r, start, end, n_miss, 1, st, best, ops);
    return changed;
}

#endif
