/* task_unsupervised.c -- the unsupervised task of URerF (task.h): the cut
 * scores of unsupervised.h on the projected values themselves. */
#include "fit/task.h"
#include "fit/unsupervised.h"

#include <math.h>

/* Relative spread under which a side counts as constant: running sums lose
 * about this much to rounding, and a log of a rounding residue would make a
 * spurious "perfect" cluster. */
#define CONSTANT_SIDE 1e-12

/* Each side of a cut keeps at least this share of the node's rows. A Gaussian
 * fitted by maximum likelihood to a handful of rows has a tiny variance and so
 * a huge likelihood: on a node with no cluster structure (pure noise), Fast-BIC's
 * best cut peels one or two extreme rows off, again and again, and a tree grows
 * O(n) deep: 100 trees on 100,000 rows took 4,200 s. With 0.5% per side a chain
 * of peels shrinks the node geometrically, so a tree's work is O(n log n / 0.005).
 * 1% was twice as fast again but lost up to 0.08 of precision with 1,000 noise
 * dimensions; 0.5% kept the URerF simulations' precisions within 0.025 of the
 * unconstrained cut (benchmarks/notes/papers.md). */
#define MIN_SIDE_SHARE 0.005

static double weight_at(const double *w, int64_t i) { return w ? w[i] : 1.0; }

void sporf_unsup_best_cut(int32_t criterion, const double *v, const double *w, int64_t n,
                          int64_t min_leaf, double min_weight, sporf_unsup_cut *cut)
{
    cut->found = 0;
    cut->n_left = 0;
    cut->threshold = 0.0;
    cut->score = -INFINITY;
    cut->bic = INFINITY;
    if (n < 2 || !(v[n - 1] > v[0]))
        return;
    /* Node totals in two passes (exact for a constant node). */
    double W = 0.0, S = 0.0;
    for (int64_t i = 0; i < n; i++) {
        W += weight_at(w, i);
        S += weight_at(w, i) * v[i];
    }
    if (!(W > 0.0))
        return;
    const double mean = S / W;
    double sse = 0.0;
    for (int64_t i = 0; i < n; i++) {
        const double d = v[i] - mean;
        sse += weight_at(w, i) * d * d;
    }
    if (!(sse > 0.0))
        return;
    const double tiny = CONSTANT_SIDE * sse;
    const int64_t min_side = (int64_t)ceil(MIN_SIDE_SHARE * (double)n);
    if (min_leaf < min_side)
        min_leaf = min_side;
    const double logN = log(W);
    const double bic_one = W * log(sse / W) + 2.0 * logN;

    double wl = 0.0, sl = 0.0, ql = 0.0;
    double wr = W, sr = 0.0, qr = sse; /* sums of w*d and w*d^2, d = v - mean */
    for (int64_t i = 0; i < n; i++)
        sr += weight_at(w, i) * (v[i] - mean);
    for (int64_t i = 0; i < n - 1; i++) {
        const double wi = weight_at(w, i), d = v[i] - mean;
        wl += wi;
        wr -= wi;
        sl += wi * d;
        sr -= wi * d;
        ql += wi * d * d;
        qr -= wi * d * d;
        const int64_t nl = i + 1;
        if (nl < min_leaf)
            continue;
        if (n - nl < min_leaf)
            break;
        const double a = v[i], z = v[i + 1];
        if (!(z > a) || !(wl > 0.0) || !(wr > 0.0) || wl < min_weight || wr < min_weight)
            continue;
        double sse_l = v[0] == a ? 0.0 : ql - sl * sl / wl;
        double sse_r = z == v[n - 1] ? 0.0 : qr - sr * sr / wr;
        if (sse_l < tiny) sse_l = 0.0;
        if (sse_r < tiny) sse_r = 0.0;
        const double within = sse_l + sse_r;
        double score, bic;
        if (criterion == SPORF_CRIT_TWOMEANS) {
            bic = within;
            score = 1.0 - within / sse;
        } else if (within == 0.0) {
            bic = -INFINITY; /* two point masses: the likelihood is unbounded */
            score = INFINITY;
        } else {
            const double mix = -2.0 * (wl * log(wl / W) + wr * log(wr / W));
            bic = mix + W * log(within / W) + 4.0 * logN; /* equal variances */
            if (sse_l > 0.0 && sse_r > 0.0) {
                const double unequal = mix + wl * log(sse_l / wl) + wr * log(sse_r / wr) + 5.0 * logN;
                if (unequal < bic) bic = unequal;
            }
            score = bic_one - bic;
        }
        if (!cut->found || score > cut->score) {
            cut->found = 1;
            cut->n_left = nl;
            cut->threshold = sporf_cut_threshold(a, z);
            cut->score = score;
            cut->bic = bic;
        }
    }
}

/* A node splits until the size limits, or until every candidate projection
 * is constant on it: it has no response to be pure in. */
static void node_stats(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, sporf_node_stats *st)
{
    (void)t;
    st->w = 0.0;
    for (int64_t i = start; i < end; i++)
        st->w += r->w[r->idx[i]];
    st->mean = st->impurity = st->sse = 0.0;
    st->pure = 0;
    st->perfect = INFINITY;
}

/* The cut is Fast-BIC's (or two-means') on the values the node has; the
 * rows whose projection is missing carry no value to cluster, so they go to
 * the side holding the weighted mean of the node's values: at each split a
 * missing projection is imputed by the node's mean, which lands it with the
 * bulk of the rows rather than with a peeled-off tail. */
static int scan(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int64_t n_miss, const sporf_node_stats *st,
                sporf_best_split *best)
{
    (void)st;
    const int64_t n = end - start - n_miss;
    for (int64_t i = 0; i < n; i++)
        t->wsorted[i] = r->w[r->idx[start + i]];
    sporf_unsup_cut cut;
    sporf_unsup_best_cut(t->params->criterion, r->vals + start, t->wsorted, n, t->min_leaf_rows,
                         t->min_weight_leaf, &cut);
    if (!cut.found || (best->found && !(cut.score > best->proxy)))
        return 0;
    int missing_left = 0;
    if (n_miss > 0) {
        double W = 0.0, S = 0.0;
        for (int64_t i = 0; i < n; i++) {
            W += t->wsorted[i];
            S += t->wsorted[i] * r->vals[start + i];
        }
        missing_left = W > 0.0 && S / W <= cut.threshold;
    }
    best->found = 1;
    best->proxy = cut.score;
    best->n_left = cut.n_left + (missing_left ? n_miss : 0);
    best->threshold = cut.threshold;
    best->missing_left = missing_left;
    best->imputed = 0;
    best->binned = 0; /* an exact cut: partition must not place it between bins */
    return 1;
}

/* Weighted sum of squares of the projected values vals[start..end) about
 * their weighted mean: a node's spread along its split (missing values left
 * out). */
static double vals_sse(const sporf_rows *r, int64_t start, int64_t end, double *w_out)
{
    double W = 0.0, S = 0.0;
    for (int64_t i = start; i < end; i++) {
        if (sporf_is_missing(r->vals[i]))
            continue;
        W += r->w[r->idx[i]];
        S += r->w[r->idx[i]] * r->vals[i];
    }
    const double mean = W > 0.0 ? S / W : 0.0;
    double sse = 0.0;
    for (int64_t i = start; i < end; i++) {
        if (sporf_is_missing(r->vals[i]))
            continue;
        const double d = r->vals[i] - mean;
        sse += r->w[r->idx[i]] * d * d;
    }
    *w_out = W;
    return sse;
}

/* The spread the split explains along its own projection. */
static double gain(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t mid, int64_t end, const sporf_node_stats *st,
                   double *w_side)
{
    (void)t;
    (void)st;
    double w_all;
    return vals_sse(r, start, end, &w_all) - vals_sse(r, start, mid, &w_side[0]) - vals_sse(r, mid, end, &w_side[1]);
}

/* A leaf's value is its share of the tree's weight. */
static void leaf(const sporf_task_state *t, const sporf_node_stats *st, double w_root, double *lv)
{
    (void)t;
    lv[0] = w_root > 0.0 ? st->w / w_root : 0.0;
}

static void empty(const sporf_task_state *t, double *out)
{
    (void)t;
    out[0] = 0.0;
}

/* The side of the best single-feature cut: the slopes are then the
 * difference of the two sides' means over each feature's variance, one step
 * of the two-means direction on the node's best features. */
static void guide_target(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int32_t f, double sign,
                         double threshold, int missing_left, double *out)
{
    (void)t;
    for (int64_t i = start; i < end; i++) {
        const double x = sporf_columns_at(&r->X, f, r->idx[i]);
        out[i - start] = sign * x <= threshold || (missing_left && sporf_is_missing(x)) ? 1.0 : 0.0;
    }
}

static int32_t hist_width(int32_t n_classes)
{
    (void)n_classes;
    return 0;
}

/* No histogram statistics: Fast-BIC and two-means scans stay exact. */
const sporf_task sporf_task_unsupervised = {node_stats, scan, gain, leaf, NULL, empty, guide_target,
                                            hist_width, NULL, NULL, NULL, NULL, 0};
