/* histogram.c -- see histogram.h. */
#include "fit/histogram.h"

#include "fit/builder.h"
#include "fit/task.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sporf_histogram_init(sporf_histogram *h, int32_t max_bins, int32_t width, int64_t n)
{
    memset(h, 0, sizeof *h);
    if (max_bins <= 0 || width <= 0)
        return 1;
    if (n < 1) n = 1;
    /* a node has at least 2 bins, even with max_bins = 1 */
    const size_t B = (size_t)(max_bins > 2 ? max_bins : 2), S = (size_t)width;
    h->max_bins = max_bins;
    h->width = width;
    h->bin = malloc((size_t)n * sizeof *h->bin);
    h->count = malloc(B * sizeof *h->count);
    h->wsum = malloc(B * sizeof *h->wsum);
    h->stats = malloc(B * S * sizeof *h->stats);
    h->left = malloc(S * sizeof *h->left);
    h->right = malloc(S * sizeof *h->right);
    h->total = malloc(S * sizeof *h->total);
    h->node_w = malloc((size_t)n * sizeof *h->node_w);
    h->node_r = malloc((size_t)n * sizeof *h->node_r);
    if (!h->bin || !h->count || !h->wsum || !h->stats || !h->left || !h->right || !h->total ||
        !h->node_w || !h->node_r) {
        sporf_histogram_free(h);
        return 0;
    }
    return 1;
}

void sporf_histogram_free(sporf_histogram *h)
{
    free(h->bin);
    free(h->count);
    free(h->wsum);
    free(h->stats);
    free(h->left);
    free(h->right);
    free(h->total);
    free(h->node_w);
    free(h->node_r);
    memset(h, 0, sizeof *h);
}

int sporf_hist_use(const sporf_builder *b, int64_t n_node)
{
    return b->hist.max_bins > 0 && n_node >= b->hist_min_rows;
}

/* The bin count for a node of n rows: max_bins, or fewer so that a bin
 * holds about SPORF_HIST_ROWS_PER_BIN rows (at least 2 bins). */
static int32_t bins_for(const sporf_histogram *h, int64_t n)
{
    int64_t B = n / SPORF_HIST_ROWS_PER_BIN;
    if (B > h->max_bins) B = h->max_bins;
    if (B < 2) B = 2;
    return (int32_t)B;
}

/* Does bin k hold two different values? */
static int has_two_values(const double *v, const uint16_t *bin, int64_t n, int32_t k)
{
    int64_t i = 0;
    while (i < n && bin[i] != k) i++;
    const double first = v[i];
    for (; i < n; i++)
        if (bin[i] == k && v[i] != first)
            return 1;
    return 0;
}

int sporf_hist_scan(sporf_builder *b, int64_t start, int64_t end, const sporf_node_stats *st,
                    sporf_best_split *best)
{
    sporf_histogram *h = &b->hist;
    const double *v = b->vals + start;
    const int64_t n = end - start;
    double vmin = v[0], vmax = v[0];
    int nan = 0;
    for (int64_t i = 1; i < n; i++) {
        vmin = v[i] < vmin ? v[i] : vmin;
        vmax = v[i] > vmax ? v[i] : vmax;
        nan |= v[i] != v[i];
    }
    /* a projection that overflowed (inf - inf) has no bin: the exact scan */
    if (nan || v[0] != v[0])
        return -2;
    if (!(vmax > vmin))
        return -1;
    const int32_t B = bins_for(h, n);
    /* (v - vmin) * scale is in [0, B] up to rounding, and monotone in v, so
     * bins hold disjoint, ordered value ranges. A range too wide or too
     * narrow for doubles gives a scale that is not finite: then the exact
     * scan decides (task.h), which any range allows. */
    const double scale = (double)B / (vmax - vmin);
    if (!isfinite(scale) || !(scale > 0.0))
        return -2;
    uint16_t *bin = h->bin;
    int64_t *count = h->count;
    double *wsum = h->wsum;
    const int32_t S = h->width;
    memset(count, 0, (size_t)B * sizeof *count);
    memset(wsum, 0, (size_t)B * sizeof *wsum);
    memset(h->stats, 0, (size_t)B * (size_t)S * sizeof *h->stats);
    b->task->hist_fill(b, v, n, vmin, scale, B);
    /* Equal-width bins suit the bulk of a projection's values, not a long
     * tail: when one bin holds most of the rows but more than one value
     * (outliers stretched the range), its cuts are out of reach of the
     * bins, and the exact scan decides. */
    int32_t crowded = 0;
    for (int32_t k = 1; k < B; k++)
        if (count[k] > count[crowded]) crowded = k;
    if (2 * count[crowded] > n && has_two_values(v, bin, n, crowded))
        return -2;

    /* The cuts between non-empty bins, left to right; the best is kept as
     * the bin it follows until the scan ends. */
    const int64_t msl = b->min_leaf_rows;
    const double mwl = b->min_weight_leaf;
    double *L = h->left, *R = h->right;
    memset(L, 0, (size_t)S * sizeof *L);
    int64_t nl = 0, best_nl = 0;
    double wl = 0.0, best_proxy = 0.0;
    int32_t best_k = -1;
    for (int32_t k = 0; k < B - 1; k++) {
        if (count[k] == 0)
            continue;
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
        const double proxy = b->task->hist_proxy(b, L, wl, R, wr);
        if (best_k < 0 || proxy > best_proxy) {
            best_k = k;
            best_proxy = proxy;
            best_nl = nl;
        }
    }
    if (best_k < 0 || (best->found && !(best_proxy > best->proxy)))
        return 1;
    best->found = 1;
    best->proxy = best_proxy;
    best->n_left = best_nl;
    best->missing_left = 0;
    best->imputed = 0;
    best->binned = 1;
    best->bin_count = B;
    best->bin_k = best_k;
    best->bin_lo = vmin;
    best->bin_scale = scale;
    /* the bins' edge, for the node's feature ranking (guided.h) */
    best->threshold = vmin + (double)(best_k + 1) / scale;
    return 1;
}

void sporf_hist_threshold(const double *v, int64_t n, sporf_best_split *best)
{
    double a = -INFINITY, z = INFINITY;
    for (int64_t i = 0; i < n; i++) {
        if (sporf_bin_of(v[i], best->bin_lo, best->bin_scale, best->bin_count) <= best->bin_k)
            a = v[i] > a ? v[i] : a;
        else
            z = v[i] < z ? v[i] : z;
    }
    best->threshold = sporf_cut_threshold(a, z);
    best->binned = 0;
}
