/* task_isolation.c -- the isolation forest's task (task.h): no response and
 * no search. A node is cut by the first candidate projection that is not
 * constant on it, at a threshold drawn uniformly between its smallest and
 * largest projected value (Liu, Ting and Zhou, 2008); a leaf holds the path
 * length the paper counts, its depth plus c(its rows), over c(the tree's
 * rows), so that the regression walk's mean over trees is E(h) / c(psi) and
 * the forest's score 2^(-mean) (predict.c) is comparable across sample sizes. */
#include "fit/isolation.h"
#include "fit/task.h"

#include <math.h>

/* Euler's constant */
#define EULER_GAMMA 0.57721566490153286061

/* H(x) = psi(x + 1) + gamma for x >= 0: the recurrence H(x) = H(x + 1) -
 * 1 / (x + 1) up to x >= 16, then the asymptotic series of the digamma
 * function (error below 1e-15 there). */
static double harmonic(double x)
{
    double shift = 0.0;
    while (x < 16.0) {
        x += 1.0;
        shift -= 1.0 / x;
    }
    const double y = x + 1.0, inv2 = 1.0 / (y * y);
    const double psi = log(y) - 0.5 / y - inv2 * (1.0 / 12.0 - inv2 * (1.0 / 120.0 - inv2 / 252.0));
    return psi + EULER_GAMMA + shift;
}

double sporf_isolation_c(double n)
{
    if (!(n > 1.0))
        return 0.0;
    if (n <= 2.0)
        return n - 1.0; /* 1 at n = 2; the weight between 1 and 2 rows, linearly */
    return 2.0 * harmonic(n - 1.0) - 2.0 * (n - 1.0) / n;
}

/* Every node may split until it is one row (or the depth limit): it has no
 * response to be pure in. */
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

/* A threshold uniform between the values' smallest and largest (the
 * builder does not sort them for this task: first_cut_wins); the rows <= it
 * go left. Rows whose projection is missing are left to the builder's
 * imputed form of the projection (their features at the training means):
 * return 0 so that it is tried. */
static int scan(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int64_t n_miss,
                const sporf_node_stats *st, sporf_best_split *best)
{
    (void)st;
    const int64_t n = end - start - n_miss;
    const double *v = r->vals + start;
    if (n_miss > 0 || n < 2 || best->found)
        return 0;
    double lo = v[0], hi = v[0];
    for (int64_t i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    if (!(hi > lo))
        return 0;
    double threshold = lo + sporf_rng_uniform_open(t->rng) * (hi - lo);
    if (!(threshold >= lo && threshold < hi))
        threshold = lo; /* rounding at the top: one row still goes right */
    int64_t n_left = 0;
    for (int64_t i = 0; i < n; i++)
        n_left += v[i] <= threshold;
    best->found = 1;
    best->proxy = 1.0;
    best->n_left = n_left;
    best->threshold = threshold;
    best->missing_left = 0;
    best->imputed = 0;
    best->binned = 0;
    return 1;
}

/* A split's "gain" is the weight it separates (impurity importance then
 * counts, by feature, the rows its cuts isolated from one another); the
 * sides' weights tell where a missing row goes when no training row was. */
static double gain(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t mid, int64_t end,
                   const sporf_node_stats *st, double *w_side)
{
    (void)t;
    w_side[0] = w_side[1] = 0.0;
    for (int64_t i = start; i < end; i++)
        w_side[i >= mid] += r->w[r->idx[i]];
    return st->w;
}

/* The paper's path length h of a row that ends here: the leaf's depth plus
 * c(size) for the rows the depth limit left together, over c(psi). */
static void leaf(const sporf_task_state *t, const sporf_node_stats *st, double w_root, double *lv)
{
    (void)t;
    const double c_root = sporf_isolation_c(w_root);
    lv[0] = c_root > 0.0 ? ((double)st->depth + sporf_isolation_c(st->w)) / c_root : 0.0;
}

static void empty(const sporf_task_state *t, double *out)
{
    (void)t;
    out[0] = 0.0;
}

static int32_t hist_width(int32_t n_classes)
{
    (void)n_classes;
    return 0;
}

/* No histograms: a node of at most psi rows sorts its one candidate's values. */
/* No guided projections either: they rank features by their cuts' quality,
 * which random cuts do not have (fit.c refuses guided_features). */
const sporf_task sporf_task_isolation = {node_stats, scan, gain, leaf, NULL, empty, NULL,
                                         hist_width, NULL, NULL, NULL, NULL, 1};
