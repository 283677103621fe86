/* histogram.c -- see histogram.h. */
#include "fit/histogram.h"

#include "fit/split.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sporf_histogram_init(sporf_histogram *h, int32_t max_bins, int random, int32_t width, int64_t n,
                         int32_t r_width)
{
    memset(h, 0, sizeof *h);
    if (random)
        max_bins = 2;
    if (max_bins <= 0 || width <= 0)
        return 1;
    h->random = random;
    h->min_rows = SPORF_HIST_MIN_ROWS;
    if (n < 1) n = 1;
    /* a node has at least 2 bins, even with max_bins = 1 */
    const size_t B = (size_t)(max_bins > 2 ? max_bins : 2), S = (size_t)width;
    h->max_bins = max_bins;
    h->width = width;
    h->filled = malloc(B * sizeof *h->filled);
    h->count = malloc(B * sizeof *h->count);
    h->wsum = malloc(B * sizeof *h->wsum);
    h->stats = malloc(B * S * sizeof *h->stats);
    h->left = malloc(S * sizeof *h->left);
    h->right = malloc(S * sizeof *h->right);
    h->total = malloc(S * sizeof *h->total);
    h->node_w = malloc((size_t)n * sizeof *h->node_w);
    h->node_r = malloc((size_t)n * (size_t)(r_width > 1 ? r_width : 1) * sizeof *h->node_r);
    if (!h->filled || !h->count || !h->wsum || !h->stats || !h->left || !h->right || !h->total ||
        !h->node_w || !h->node_r) {
        sporf_histogram_free(h);
        return 0;
    }
    return 1;
}

void sporf_histogram_free(sporf_histogram *h)
{
    free(h->filled);
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

int sporf_hist_use(const sporf_histogram *h, int64_t n_node)
{
    return h->max_bins > 0 && n_node >= (h->random ? 2 : h->min_rows);
}

int32_t sporf_hist_bins(const sporf_histogram *h, int64_t n)
{
    int64_t B = n / SPORF_HIST_ROWS_PER_BIN;
    if (B > h->max_bins) B = h->max_bins;
    if (B < 2) B = 2;
    return (int32_t)B;
}

int sporf_hist_has_two_values(const double *v, int64_t n, double lo, double scale, int32_t B, int32_t k)
{
    int64_t i = 0;
    while (i < n && sporf_bin_of(v[i], lo, scale, B) != k) i++;
    const double first = v[i];
    for (; i < n; i++)
        if (v[i] != first && sporf_bin_of(v[i], lo, scale, B) == k)
            return 1;
    return 0;
}

/* c ? x : y without a branch: the bits of one through a mask. */
static inline double select_double(int c, double x, double y)
{
    uint64_t bx, by;
    memcpy(&bx, &x, sizeof bx);
    memcpy(&by, &y, sizeof by);
    const uint64_t mask = (uint64_t)0 - (uint64_t)(c != 0), r = (bx & mask) | (by & ~mask);
    double out;
    memcpy(&out, &r, sizeof out);
    return out;
}

void sporf_hist_threshold(const double *v, int64_t n, sporf_best_split *best)
{
    /* Without a branch on the side, which is a coin flip from row to row: a
     * row of the other side stands in as the projection's minimum (for the
     * left's largest value, which is at least that) or maximum (for the
     * right's smallest). A row is in bins 0..k when sporf_bin_of's truncation
     * of (x - lo) * scale >= 0 is at most k, that is when it is below k + 1
     * (the last bin takes everything above). */
    const double lo = best->bin_lo, hi = best->bin_hi, scale = best->bin_scale;
    const double edge = best->bin_k >= best->bin_count - 1 ? INFINITY : (double)best->bin_k + 1.0;
    double a = lo, z = hi;
    for (int64_t i = 0; i < n; i++) {
        const double x = v[i];
        const int in = (x - lo) * scale < edge;
        const double l = select_double(in, x, lo), r = select_double(in, hi, x);
        a = l > a ? l : a;
        z = r < z ? r : z;
    }
    best->threshold = sporf_cut_threshold(a, z);
    best->binned = 0;
}
