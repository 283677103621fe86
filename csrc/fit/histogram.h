/*
 * histogram.h -- the split scan of large nodes: projected values binned, not sorted.
 *
 * The exact scan sorts a candidate's projected values (sort.h) and tries the cut
 * between every pair of neighbours. On a large node that sort is most of the
 * work of a candidate (benchmarks/notes/speed.md, "Where the exact search spent its time"), and the
 * cuts it separates are finer than a random forest needs. A histogram scan
 * instead drops the node's rows into B equal-width bins between the projected
 * minimum and maximum (one pass, no sort), adds the task's statistics per bin,
 * and tries the B - 1 cuts between bins -- the histogram scans of LightGBM,
 * ydf and scikit-learn's HistGradientBoosting, with the bins drawn per
 * candidate from its own range, so any projection kind (single features,
 * sparse and guided projections, patches) is scanned the same way.
 *
 * The winning cut between two bins is placed at the midpoint of the real
 * neighbouring values on either side (sporf_cut_threshold: the largest value
 * of the left bins, the smallest of the right), exactly as the exact scan
 * would place it, so rows with a value <= the threshold are the bins on the
 * left, to the last row. A histogram cut is therefore one
 * of the exact scan's cuts, scored by the same statistics; the search just
 * looks at fewer of them.
 *
 * Used when the builder's data has no missing value and the task has
 * histogram statistics (classification and regression; URerF's Fast-BIC and
 * two-means scans stay exact), at nodes of at least SPORF_HIST_MIN_ROWS rows:
 * the bin count is max_bins, fewer on a node too small to fill them (about
 * SPORF_HIST_ROWS_PER_BIN rows per bin). A candidate whose values crowd into
 * one bin (a long tail stretched the range) is scanned exactly.
 *
 * The random splitter (splitter "random", Extremely Randomized Trees) is the
 * same scan with two bins whose edge is a threshold drawn uniformly between
 * the projection's minimum and maximum: one fused pass gives the one cut's
 * statistics, on every node of two rows or more and whatever the values'
 * spread. Its cut is placed between real neighbours like any other.
 */
#ifndef SPORF_HISTOGRAM_H
#define SPORF_HISTOGRAM_H

#include "fit/split.h"

#include <stdint.h>


/* Rows per bin on nodes of fewer than max_bins rows: one, so that a small
 * node keeps (nearly) every cut -- with 4 the orthant problem, whose classes
 * turn on exact thresholds, lost 3 points of accuracy (benchmarks/notes/speed.md). */
#define SPORF_HIST_ROWS_PER_BIN 1
/* Nodes smaller than this are sorted (the exact scan): below it a sort of
 * a few rows costs less than clearing bins. From 16 rows on, the suite and
 * the speed cells (benchmarks/notes/speed.md) measured no accuracy lost to the coarser
 * search of small nodes, and the fit of fully grown trees, whose small
 * nodes hold most of the work, about twice as fast. */
#define SPORF_HIST_MIN_ROWS 16

/* Scratch of one builder's histogram scans: max_bins bins of width S doubles
 * (the task's statistics per bin), the non-empty bins' indices, and the
 * node's response by position (task.h hist_prepare). A row's bin is not
 * stored: the fill computes it once, and the rare check that needs it again
 * (sporf_hist_has_two_values) computes it the same way. */
typedef struct sporf_histogram {
    int32_t max_bins;   /* B; 0 = never bin */
    int64_t min_rows;   /* the smallest node scanned by histogram (SPORF_HIST_MIN_ROWS) */
    int random;         /* splitter "random": two bins, cut at a drawn threshold */
    double draw;        /* with random: the candidate's draw in (0, 1), the threshold's
                           place between the projection's minimum and maximum */
    int32_t width;      /* S: the task's statistics per bin */
    int32_t *filled;    /* B: the non-empty bins of a scan, in order */
    int64_t *count;     /* B: rows per bin */
    double *wsum;       /* B: weight per bin */
    double *stats;      /* B * S: the task's statistics per bin */
    double *left, *right; /* S: running statistics of the two sides */
    double *total;      /* S: the node's statistics (hist_prepare) */
    double *node_w;     /* n: weight of each row of the node, by position */
    double *node_r;     /* n x r_width: the task's response of each row (class codes or centred
                           responses; r_width of them, one per output) */
} sporf_histogram;

/* The bin of value x: (x - lo) * scale truncated, the last bin taking x =
 * the maximum. Monotone in x, so bins hold disjoint, ordered value ranges;
 * the fill and the partition compute it the same way. */
static inline int32_t sporf_bin_of(double x, double lo, double scale, int32_t B)
{
    const int32_t k = (int32_t)((x - lo) * scale);
    return k < B ? k : B - 1;
}

/* Scratch for histogram scans of up to n rows with r_width responses each;
 * max_bins = 0 leaves it empty (every scan exact). random: the random
 * splitter's scans (two bins each). Returns 0 when out of memory. */
int sporf_histogram_init(sporf_histogram *h, int32_t max_bins, int random, int32_t width, int64_t n,
                         int32_t r_width);
void sporf_histogram_free(sporf_histogram *h);

/* Should a node of n_node rows be scanned by histogram? */
int sporf_hist_use(const sporf_histogram *h, int64_t n_node);

/* The bin count for a node of n rows: max_bins, or fewer so that a bin
 * holds about SPORF_HIST_ROWS_PER_BIN rows (at least 2 bins). */
int32_t sporf_hist_bins(const sporf_histogram *h, int64_t n);

/* Does bin k of the n values v (B bins of width 1 / scale from lo, as
 * sporf_bin_of puts them) hold two different values? */
int sporf_hist_has_two_values(const double *v, int64_t n, double lo, double scale, int32_t B, int32_t k);

/* Place a histogram scan's cut (best->binned) between the largest value of
 * its left bins and the smallest of the right ones, v[0..n) being the
 * node's values of the winning projection (computed again by the partition). */
void sporf_hist_threshold(const double *v, int64_t n, sporf_best_split *best);

#endif
