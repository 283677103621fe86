/*
 * hist_scan.h -- the histogram scan (histogram.h), written once for every task.
 *
 * A task (task_classification.c, task_regression.c) defines how a row adds to
 * its bin (fill) and how a cut is scored from the two sides' statistics
 * (proxy) in a static const sporf_hist_ops, and its hist_scan calls
 * sporf_hist_scan_with with it; the scan is always inlined, so the calls
 * through the table become direct, inlined code in each task.
 */
#ifndef SPORF_HIST_SCAN_H
#define SPORF_HIST_SCAN_H

#include "fit/histogram.h"
#include "fit/task.h"

#include <math.h>
#include <string.h>

typedef struct sporf_hist_ops {
    /* Drop the node's n values v into B bins (sporf_bin_of(v[i], lo, scale, B)):
     * add each row's count, weight and S statistics to the (zeroed) count,
     * wsum and stats[bin * S ...] of t->hist. */
    void (*fill)(sporf_task_state *t, const double *v, int64_t n, double lo, double scale, int32_t B);
    /* The proxy (as the exact scan's: larger is better) of the cut whose sides
     * have statistics left (weight wl) and right (weight wr). */
    double (*proxy)(const sporf_task_state *t, const double *left, double wl, const double *right, double wr);
    /* The random splitter's one cut (may be NULL: fill's two bins then): the
     * rows of bin 0 -- (v[i] - lo) * scale < 1, as sporf_bin_of puts them --
     * their count into *nl, weight into *wl and S statistics into the
     * (zeroed) left; one pass, no bin stored. */
    void (*left)(sporf_task_state *t, const double *v, int64_t n, double lo, double scale, double *left,
                 int64_t *nl, double *wl);
    /* The statistics' width S when the ops know it (regression's 1, two
     * classes' 2), else 0 for t->hist.width: a known width lets the
     * compiler unroll the scan's per-bin loops over S. */
    int32_t width;
} sporf_hist_ops;

#if defined(__GNUC__)
/* Two doubles in a vector register (GNU C vector types), for the random
 * cut's left side: two of its four chains at once, each chain doing the
 * scalar loop's arithmetic on its rows, so the sums are the same bits. */
typedef double sporf_pair __attribute__((vector_size(16)));
typedef int64_t sporf_pair_mask __attribute__((vector_size(16)));

static inline sporf_pair sporf_pair_load(const double *p)
{
    sporf_pair x;
    memcpy(&x, p, sizeof x);
    return x;
}

/* 1.0 where (v - lo) * scale < 1 (the row is left of the cut), else 0.0. */
static inline sporf_pair sporf_pair_left(sporf_pair v, sporf_pair lo, sporf_pair scale)
{
    const sporf_pair one = {1.0, 1.0};
    return (sporf_pair)((sporf_pair_mask)((v - lo) * scale < one) & (sporf_pair_mask)one);
}
#endif

/* Keep in *best the cut after bin k of B between vmin and vmax (bins of
 * width 1 / scale) with n_left rows left and score proxy. */
static inline void sporf_hist_keep(sporf_best_split *best, double proxy, int64_t n_left, int32_t B, int32_t k,
                                   double vmin, double vmax, double scale)
{
    best->found = 1;
    best->proxy = proxy;
    best->n_left = n_left;
    best->missing_left = 0;
    best->imputed = 0;
    best->binned = 1;
    best->bin_count = B;
    best->bin_k = k;
    best->bin_lo = vmin;
    best->bin_hi = vmax;
    best->bin_scale = scale;
    /* the bins' edge, for the node's feature ranking (guided.h) */
    best->threshold = vmin + (double)(k + 1) / scale;
}

/* The range of the node's n values v into *vmin, *vmax: 0, or -2 when a
 * value is NaN (a projection that overflowed, inf - inf, has no bin: the
 * exact scan). Taken while the values were gathered when it could be
 * (rows.c), else here in four independent chains (a minimum and a maximum
 * do not depend on the order they are taken in): one chain waits on each
 * comparison's latency, four keep the pipeline full. */
static SPORF_ALWAYS_INLINE int sporf_hist_range(const sporf_rows *r, const double *v, int64_t n, double *vmin_out,
                                                double *vmax_out)
{
    double lo[4] = {v[0], v[0], v[0], v[0]}, hi[4] = {v[0], v[0], v[0], v[0]};
    int nan = v[0] != v[0];
    int64_t i = r->range_ok ? n : 1;
    if (r->range_ok) {
        lo[0] = r->range_lo;
        hi[0] = r->range_hi;
        nan = r->range_nan;
    }
    for (; i + 4 <= n; i += 4)
        for (int u = 0; u < 4; u++) {
            const double x = v[i + u];
            lo[u] = x < lo[u] ? x : lo[u];
            hi[u] = x > hi[u] ? x : hi[u];
            nan |= x != x;
        }
    for (; i < n; i++) {
        lo[0] = v[i] < lo[0] ? v[i] : lo[0];
        hi[0] = v[i] > hi[0] ? v[i] : hi[0];
        nan |= v[i] != v[i];
    }
    if (nan)
        return -2;
    double vmin = lo[0], vmax = hi[0];
    for (int u = 1; u < 4; u++) {
        vmin = lo[u] < vmin ? lo[u] : vmin;
        vmax = hi[u] > vmax ? hi[u] : vmax;
    }
    *vmin_out = vmin;
    *vmax_out = vmax;
    return 0;
}

/* The random splitter's one cut: the rows left of the drawn threshold, no
 * bins. vmin is always left and vmax right (draw < 1), so both sides have
 * rows. Returns 1 (task.h hist_scan). */
static SPORF_ALWAYS_INLINE int sporf_hist_random_cut(sporf_task_state *t, const double *v, int64_t n,
                                                     const sporf_node_stats *st, sporf_best_split *best,
                                                     const sporf_hist_ops *ops, double vmin, double vmax,
                                                     double scale)
{
    sporf_histogram *h = &t->hist;
    const int32_t S = ops->width ? ops->width : h->width;
    double *L = h->left, *R = h->right, wl = 0.0;
    int64_t nl = 0;
    memset(L, 0, (size_t)S * sizeof *L);
    ops->left(t, v, n, vmin, scale, L, &nl, &wl);
    const double wr = st->w - wl;
    if (nl < t->min_leaf_rows || n - nl < t->min_leaf_rows || wl <= 0.0 || wr <= 0.0 ||
        wl < t->min_weight_leaf || wr < t->min_weight_leaf || nl == n)
        return 1;
    for (int32_t s = 0; s < S; s++)
        R[s] = h->total[s] - L[s];
    const double proxy = ops->proxy(t, L, wl, R, wr);
    if (!best->found || proxy > best->proxy)
        sporf_hist_keep(best, proxy, nl, 2, 0, vmin, vmax, scale);
    return 1;
}

/* The scan of task.h's hist_scan: see there. */
static SPORF_ALWAYS_INLINE int sporf_hist_scan_with(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end,
                                                     const sporf_node_stats *st, sporf_best_split *best,
                                                     const sporf_hist_ops *ops)
{
    sporf_histogram *h = &t->hist;
    const double *v = r->vals + start;
    const int64_t n = end - start;
    double vmin, vmax;
    if (sporf_hist_range(r, v, n, &vmin, &vmax) != 0)
        return -2;
    if (!(vmax > vmin))
        return -1;
    /* The random splitter's two bins meet at vmin + draw * (vmax - vmin):
     * vmin is always left, vmax right (draw < 1). */
    const int32_t B = h->random ? 2 : sporf_hist_bins(h, n);
    /* (v - vmin) * scale is in [0, B] up to rounding, and monotone in v, so
     * bins hold disjoint, ordered value ranges. A range too wide or too
     * narrow for doubles gives a scale that is not finite: then the exact
     * scan decides (task.h), which any range allows. */
    const double scale = h->random ? 1.0 / (h->draw * (vmax - vmin)) : (double)B / (vmax - vmin);
    if (!isfinite(scale) || !(scale > 0.0))
        return -2;
    const int32_t S = ops->width ? ops->width : h->width;
    if (h->random && ops->left)
        return sporf_hist_random_cut(t, v, n, st, best, ops, vmin, vmax, scale);
    int64_t *count = h->count;
    double *wsum = h->wsum;
    memset(count, 0, (size_t)B * sizeof *count);
    memset(wsum, 0, (size_t)B * sizeof *wsum);
    memset(h->stats, 0, (size_t)B * (size_t)S * sizeof *h->stats);
    ops->fill(t, v, n, vmin, scale, B);
    /* Equal-width bins suit the bulk of a projection's values, not a long
     * tail: when one bin holds most of the rows but more than one value
     * (outliers stretched the range), its cuts are out of reach of the
     * bins, and the exact scan decides. */
    int32_t crowded = 0;
    for (int32_t k = 1; k < B; k++)
        if (count[k] > count[crowded]) crowded = k;
    if (!h->random && 2 * count[crowded] > n && sporf_hist_has_two_values(v, n, vmin, scale, B, crowded))
        return -2;

    /* The cuts between non-empty bins, left to right; the best is kept as
     * the bin it follows until the scan ends. */
    const int64_t msl = t->min_leaf_rows;
    const double mwl = t->min_weight_leaf;
    double *L = h->left, *R = h->right;
    memset(L, 0, (size_t)S * sizeof *L);
    int64_t nl = 0, best_nl = 0;
    double wl = 0.0, best_proxy = 0.0;
    int32_t best_k = -1;
    /* The non-empty bins first, without a branch: on a node of fewer rows
     * than max_bins a third of the bins are empty, at random, and a branch
     * on each would be mispredicted that often. A cut after an empty bin is
     * the cut after the bin before it. */
    int32_t *filled = h->filled, n_filled = 0;
    for (int32_t k = 0; k < B - 1; k++) {
        filled[n_filled] = k;
        n_filled += count[k] != 0;
    }
    for (int32_t j = 0; j < n_filled; j++) {
        const int32_t k = filled[j];
        const double *sk = h->stats + (size_t)k * S;
        for (int32_t s = 0; s < S; s++)
            L[s] += sk[s];
        nl += count[k];
        wl += wsum[k];
        if (nl < msl)
            continue;
        if (n - nl < msl)
            break;
        const double wr = st->w - wl;
        if (wl <= 0.0 || wr <= 0.0 || wl < mwl || wr < mwl || nl == n)
            continue;
        for (int32_t s = 0; s < S; s++)
            R[s] = h->total[s] - L[s];
        const double proxy = ops->proxy(t, L, wl, R, wr);
        if (best_k < 0 || proxy > best_proxy) {
            best_k = k;
            best_proxy = proxy;
            best_nl = nl;
        }
    }
    if (best_k < 0 || (best->found && !(best_proxy > best->proxy)))
        return 1;
    sporf_hist_keep(best, best_proxy, best_nl, B, best_k, vmin, vmax, scale);
    return 1;
}


#endif
