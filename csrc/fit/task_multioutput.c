/* task_multioutput.c -- multi-output y (task.h), as scikit-learn's trees
 * define it: one tree for all outputs, whose cuts lower the impurity summed
 * over the outputs, and whose leaves hold each output's class distribution or
 * mean side by side (the K values of a leaf).
 *
 * Classification: fit.c hands the builder each row's n_outputs class codes
 * already offset into the K = sum of the outputs' classes, so a row adds its
 * weight to one count per output and the single-output sums still hold: with
 * every output's counts summing to the side's weight W, the summed Gini of a
 * side is n_outputs * W - sum_k n_k^2 / W and its summed entropy is
 * n_outputs * W log W - sum_k n_k log n_k (criterion.h's terms over all K).
 * Regression: the per-output sums of responses centred on the node's means,
 * scored by sum_j a_j (S_lj^2 / W_l + S_rj^2 / W_r), where a_j weighs output
 * j's squared error by the inverse of its variance over the training rows
 * (sporf_output_weights, below): scikit-learn sums the raw squared errors, which
 * lets a response of large scale decide nearly every cut.
 *
 * Reported impurities and gains are averaged over the outputs, as
 * scikit-learn's are, so a one-output forest would store the same numbers.
 * The histogram scans (and the random splitter, two bins) keep the same
 * statistics per bin: K class weights, or m centred sums. The single-output
 * tasks stay untouched, so single-output forests are unchanged to the bit
 * and pay nothing for this.
 */
#include "fit/criterion.h"
#include "fit/task.h"
#include "fit/scan.h"
#include "fit/hist_scan.h"

#include <stdlib.h>
#include <string.h>

/* ---- classification ---- */

/* Class counts (all outputs side by side) of rows idx[from..to) into out, in
 * the order of step (+1, or -1 from the last row down); returns their weight. */
static double mc_counts(const sporf_task_state *t, const sporf_rows *r, int64_t from, int64_t to, int step, double *out)
{
    const int32_t m = t->n_outputs;
    memset(out, 0, (size_t)t->n_classes * sizeof *out);
    double W = 0.0;
    for (int64_t k = 0; k < to - from; k++) {
        const int32_t id = r->idx[step > 0 ? from + k : to - 1 - k];
        const int32_t *codes = t->y + (int64_t)id * m;
        const double w = r->w[id];
        for (int32_t j = 0; j < m; j++) out[codes[j]] += w;
        W += w;
    }
    return W;
}

/* The mean over outputs of each output's impurity. */
static double mc_impurity(const sporf_task_state *t, const double *counts, double w)
{
    double s = 0.0;
    for (int32_t j = 0, at = 0; j < t->n_outputs; at += t->output_classes[j], j++)
        s += sporf_impurity(t->params->criterion, counts + at, t->output_classes[j], w);
    return s / t->n_outputs;
}

static void mc_node_stats(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, sporf_node_stats *st)
{
    memset(st, 0, sizeof *st);
    st->w = mc_counts(t, r, start, end, 1, t->node_counts);
    st->impurity = mc_impurity(t, t->node_counts, st->w);
    st->pure = st->impurity <= 1e-12;
    /* pure children: sum_k n_k^2 = m W^2 on each side (gini); entropy's proxy is then 0 */
    st->perfect = t->params->criterion == SPORF_CRIT_GINI ? t->n_outputs * st->w : 0.0;
}

static inline void mc_scan_start(const sporf_task_state *t, const sporf_rows *r, const sporf_node_stats *st, int64_t start, int64_t end,
                                 int64_t n_miss, int missing_left, sporf_scan_sums *s)
{
    (void)start;
    const int32_t K = t->n_classes, m = t->n_outputs, crit = t->params->criterion;
    double *L = t->left_counts, *R = t->right_counts;
    memset(L, 0, (size_t)K * sizeof *L);
    s->L = L;
    s->R = R;
    s->sl = s->sr = s->wl = 0.0;
    s->wr = st->w;
    if (missing_left)
        for (int64_t i = end - n_miss; i < end; i++) {
            const int32_t id = r->idx[i];
            for (int32_t j = 0; j < m; j++) L[t->y[(int64_t)id * m + j]] += r->w[id];
            s->wl += r->w[id];
        }
    s->wr = st->w - s->wl;
    for (int32_t k = 0; k < K; k++) {
        R[k] = t->node_counts[k] - L[k];
        s->sl += sporf_crit_term(crit, L[k]);
        s->sr += sporf_crit_term(crit, R[k] > 0.0 ? R[k] : 0.0);
    }
}

static inline void mc_scan_move_left(const sporf_task_state *t, const sporf_node_stats *st, int32_t id, double ww,
                                     sporf_scan_sums *s)
{
    (void)st;
    const int32_t m = t->n_outputs, crit = t->params->criterion;
    const int32_t *codes = t->y + (int64_t)id * m;
    double *L = s->L, *R = s->R;
    for (int32_t j = 0; j < m; j++) {
        const int32_t c = codes[j];
        if (crit == SPORF_CRIT_GINI) {
            s->sl += ww * (2.0 * L[c] + ww);
            s->sr += ww * (ww - 2.0 * R[c]);
        } else {
            s->sl += sporf_xlogx(L[c] + ww) - sporf_xlogx(L[c]);
            s->sr += sporf_xlogx(R[c] - ww) - sporf_xlogx(R[c]);
        }
        L[c] += ww;
        R[c] -= ww;
    }
}

static inline double mc_scan_proxy(const sporf_task_state *t, const sporf_scan_sums *s)
{
    if (t->params->criterion == SPORF_CRIT_GINI)
        return s->sl / s->wl + s->sr / s->wr;
    return s->sl + s->sr - t->n_outputs * (sporf_xlogx(s->wl) + sporf_xlogx(s->wr));
}

static const sporf_scan_ops mc_scan_ops = {mc_scan_start, mc_scan_move_left, mc_scan_proxy};

static int mc_scan(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int64_t n_miss, const sporf_node_stats *st,
                   sporf_best_split *best)
{
    return sporf_scan_sorted(t, r, start, end, n_miss, st, best, &mc_scan_ops);
}

static double mc_gain(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t mid, int64_t end, const sporf_node_stats *st,
                      double *w_side)
{
    const double wl = mc_counts(t, r, start, mid, 1, t->left_counts);
    const double wr = mc_counts(t, r, mid, end, -1, t->right_counts);
    w_side[0] = wl;
    w_side[1] = wr;
    return st->w * st->impurity - wl * mc_impurity(t, t->left_counts, wl) - wr * mc_impurity(t, t->right_counts, wr);
}

static void mc_empty(const sporf_task_state *t, double *out)
{
    for (int32_t j = 0, at = 0; j < t->n_outputs; at += t->output_classes[j], j++)
        for (int32_t k = 0; k < t->output_classes[j]; k++) out[at + k] = 1.0 / t->output_classes[j];
}

/* Each output's class distribution (node_stats left the counts in node_counts). */
static void mc_leaf(const sporf_task_state *t, const sporf_node_stats *st, double w_root, double *lv)
{
    (void)w_root;
    if (!(st->w > 0.0)) {
        mc_empty(t, lv);
        return;
    }
    for (int32_t k = 0; k < t->n_classes; k++) lv[k] = t->node_counts[k] / st->w;
}

static void mc_add_row(const sporf_task_state *t, int32_t id, double w, double *acc)
{
    const int32_t m = t->n_outputs;
    for (int32_t j = 0; j < m; j++) acc[t->y[(int64_t)id * m + j]] += w;
}

/* Summed over outputs, the share of each row's class that the best single
 * feature's cut sends left (task_classification.c's target, per output).
 * Drawing one output per node instead, as regression does, raised the test
 * error of both outputs (benchmarks/notes/multioutput.md). */
static void mc_guide_target(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int32_t f, double sign, double threshold,
                            int missing_left, double *out)
{
    const int32_t K = t->n_classes, m = t->n_outputs;
    double *L = t->left_counts, *T = t->right_counts;
    memset(L, 0, (size_t)K * sizeof *L);
    memset(T, 0, (size_t)K * sizeof *T);
    for (int64_t i = start; i < end; i++) {
        const int32_t id = r->idx[i];
        const double x = sporf_rows_x(r, f, i);
        const int left = sign * x <= threshold || (missing_left && sporf_is_missing(x));
        for (int32_t j = 0; j < m; j++) {
            const int32_t c = t->y[(int64_t)id * m + j];
            T[c] += r->w[id];
            if (left) L[c] += r->w[id];
        }
    }
    for (int32_t k = 0; k < K; k++)
        L[k] = T[k] > 0.0 ? L[k] / T[k] : 0.0;
    for (int64_t i = start; i < end; i++) {
        const int32_t *codes = t->y + (int64_t)r->idx[i] * m;
        double s = 0.0;
        for (int32_t j = 0; j < m; j++) s += L[codes[j]];
        out[i - start] = s;
    }
}

/* Histograms: K statistics per bin (every output's class weights), the
 * width for regression too (K = m there). */
static int32_t hist_width(int32_t n_classes) { return n_classes; }

/* Each row's weight and its m class codes by position; the node's counts. */
static void mc_hist_prepare(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, const sporf_node_stats *st)
{
    (void)st;
    const int32_t m = t->n_outputs;
    double *nw = t->hist.node_w, *nr = t->hist.node_r;
    for (int64_t i = start; i < end; i++) {
        const int32_t id = r->idx[i];
        nw[i - start] = r->w[id];
        for (int32_t j = 0; j < m; j++) nr[(i - start) * m + j] = (double)t->y[(int64_t)id * m + j];
    }
    memcpy(t->hist.total, t->node_counts, (size_t)t->n_classes * sizeof(double));
}

static void mc_hist_fill(sporf_task_state *t, const double *v, int64_t n, double lo, double scale, int32_t B)
{
    sporf_histogram *h = &t->hist;
    const int64_t K = t->n_classes, m = t->n_outputs;
    const double *nw = h->node_w, *nr = h->node_r;
    for (int64_t i = 0; i < n; i++) {
        const int32_t k = sporf_bin_of(v[i], lo, scale, B);
        h->count[k]++;
        h->wsum[k] += nw[i];
        for (int64_t j = 0; j < m; j++) h->stats[k * K + (int64_t)nr[i * m + j]] += nw[i];
    }
}

static double mc_hist_proxy(const sporf_task_state *t, const double *left, double wl, const double *right, double wr)
{
    const int32_t crit = t->params->criterion;
    sporf_scan_sums s = {wl, wr, 0.0, 0.0, NULL, NULL};
    for (int32_t k = 0; k < t->n_classes; k++) {
        s.sl += sporf_crit_term(crit, left[k]);
        s.sr += sporf_crit_term(crit, right[k] > 0.0 ? right[k] : 0.0);
    }
    return mc_scan_proxy(t, &s);
}

static const sporf_hist_ops mc_hist_ops = {mc_hist_fill, mc_hist_proxy, NULL, 0};

static int mc_hist_scan(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, const sporf_node_stats *st,
                        sporf_best_split *best)
{
    return sporf_hist_scan_with(t, r, start, end, st, best, &mc_hist_ops);
}

const sporf_task sporf_task_multi_classification = {mc_node_stats, mc_scan,    mc_gain,         mc_leaf,
                                                    mc_add_row,    mc_empty,   mc_guide_target, hist_width,
                                                    mc_hist_prepare, mc_hist_scan, NULL, NULL, 0};

/* ---- regression ---- */

/* Each output's weighted mean of rows idx[from..to) into mean, and the sum
 * over outputs of the weighted squared deviations from them, output j's
 * times a_j (two passes, exact for constant responses); writes the rows'
 * weight. */
static double mr_sse(const sporf_task_state *t, const sporf_rows *r, int64_t from, int64_t to, double *w_out, double *mean)
{
    const int32_t m = t->n_outputs;
    double W = 0.0;
    memset(mean, 0, (size_t)m * sizeof *mean);
    for (int64_t i = from; i < to; i++) {
        const int32_t id = r->idx[i];
        const double *y = t->yr + (int64_t)id * m;
        W += r->w[id];
        for (int32_t j = 0; j < m; j++) mean[j] += r->w[id] * y[j];
    }
    for (int32_t j = 0; j < m; j++) mean[j] = W > 0.0 ? mean[j] / W : 0.0;
    double sse = 0.0;
    for (int64_t i = from; i < to; i++) {
        const int32_t id = r->idx[i];
        const double *y = t->yr + (int64_t)id * m;
        for (int32_t j = 0; j < m; j++) {
            const double d = y[j] - mean[j];
            sse += t->output_weight[j] * (r->w[id] * d * d);
        }
    }
    *w_out = W;
    return sse;
}

/* node_counts holds the node's means, the centres of the scan's sums. */
static void mr_node_stats(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, sporf_node_stats *st)
{
    const int32_t m = t->n_outputs;
    memset(st, 0, sizeof *st);
    st->sse = mr_sse(t, r, start, end, &st->w, t->node_counts);
    st->impurity = st->w > 0.0 ? st->sse / st->w / m : 0.0;
    int pure = 1;
    const double *first = end > start ? t->yr + (int64_t)r->idx[start] * m : NULL; /* a node without rows */
    for (int64_t i = start + 1; i < end && pure; i++) {
        const double *y = t->yr + (int64_t)r->idx[i] * m;
        for (int32_t j = 0; j < m && pure; j++) pure = y[j] == first[j];
    }
    st->pure = pure;
    st->perfect = st->sse;
}

/* L and R: each output's weighted responses centred on the node's means. */
static inline void mr_scan_start(const sporf_task_state *t, const sporf_rows *r, const sporf_node_stats *st, int64_t start, int64_t end,
                                 int64_t n_miss, int missing_left, sporf_scan_sums *s)
{
    const int32_t m = t->n_outputs;
    const double *mean = t->node_counts;
    double *L = t->left_counts, *R = t->right_counts;
    memset(L, 0, (size_t)m * sizeof *L);
    memset(R, 0, (size_t)m * sizeof *R);
    s->L = L;
    s->R = R;
    s->sl = s->sr = s->wl = 0.0;
    const int64_t split = missing_left ? end - n_miss : end;
    for (int64_t i = start; i < end; i++) {
        const int32_t id = r->idx[i];
        const double *y = t->yr + (int64_t)id * m;
        double *side = i < split ? R : L;
        for (int32_t j = 0; j < m; j++) side[j] += r->w[id] * (y[j] - mean[j]);
        if (i >= split) s->wl += r->w[id];
    }
    s->wr = st->w - s->wl;
}

static inline void mr_scan_move_left(const sporf_task_state *t, const sporf_node_stats *st, int32_t id, double ww,
                                     sporf_scan_sums *s)
{
    (void)st;
    const int32_t m = t->n_outputs;
    const double *y = t->yr + (int64_t)id * m, *mean = t->node_counts;
    for (int32_t j = 0; j < m; j++) {
        const double wy = ww * (y[j] - mean[j]);
        s->L[j] += wy;
        s->R[j] -= wy;
    }
}

static inline double mr_scan_proxy(const sporf_task_state *t, const sporf_scan_sums *s)
{
    const double *a = t->output_weight;
    double l = 0.0, r = 0.0;
    for (int32_t j = 0; j < t->n_outputs; j++) {
        l += a[j] * (s->L[j] * s->L[j]);
        r += a[j] * (s->R[j] * s->R[j]);
    }
    return l / s->wl + r / s->wr;
}

static const sporf_scan_ops mr_scan_ops = {mr_scan_start, mr_scan_move_left, mr_scan_proxy};

static int mr_scan(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int64_t n_miss, const sporf_node_stats *st,
                   sporf_best_split *best)
{
    return sporf_scan_sorted(t, r, start, end, n_miss, st, best, &mr_scan_ops);
}

static double mr_gain(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t mid, int64_t end, const sporf_node_stats *st,
                      double *w_side)
{
    const double sl = mr_sse(t, r, start, mid, &w_side[0], t->left_counts);
    const double sr = mr_sse(t, r, mid, end, &w_side[1], t->right_counts);
    return (st->sse - sl - sr) / t->n_outputs;
}

static void mr_leaf(const sporf_task_state *t, const sporf_node_stats *st, double w_root, double *lv)
{
    (void)st;
    (void)w_root;
    memcpy(lv, t->node_counts, (size_t)t->n_outputs * sizeof *lv);
}

static void mr_add_row(const sporf_task_state *t, int32_t id, double w, double *acc)
{
    const int32_t m = t->n_outputs;
    for (int32_t j = 0; j < m; j++) acc[j] += w * t->yr[(int64_t)id * m + j];
}

static void mr_empty(const sporf_task_state *t, double *out)
{
    memset(out, 0, (size_t)t->n_outputs * sizeof *out);
}

/* Guided projections follow one output per node, drawn from the tree's
 * stream, with its response as the target (the slopes are its univariate
 * least-squares fits): a projection fitted to one output serves it as a
 * single-output forest's would. On the benchmark's problems the test error
 * was 1-6% lower than with the sum of the standardised outputs as target. */
static void mr_guide_target(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int32_t f, double sign, double threshold,
                            int missing_left, double *out)
{
    (void)f, (void)sign, (void)threshold, (void)missing_left;
    const int32_t m = t->n_outputs, j = (int32_t)sporf_rng_below(t->rng, (uint64_t)m);
    for (int64_t i = start; i < end; i++) out[i - start] = t->yr[(int64_t)r->idx[i] * m + j];
}

/* Each row's weight and weighted responses centred on the node's means, by
 * position; their sums over the node. */
static void mr_hist_prepare(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, const sporf_node_stats *st)
{
    (void)st;
    const int32_t m = t->n_outputs;
    const double *mean = t->node_counts;
    double *nw = t->hist.node_w, *nr = t->hist.node_r, *total = t->hist.total;
    memset(total, 0, (size_t)m * sizeof *total);
    for (int64_t i = start; i < end; i++) {
        const int32_t id = r->idx[i];
        const double w = r->w[id];
        nw[i - start] = w;
        for (int32_t j = 0; j < m; j++) {
            const double wy = w * (t->yr[(int64_t)id * m + j] - mean[j]);
            nr[(i - start) * m + j] = wy;
            total[j] += wy;
        }
    }
}

static void mr_hist_fill(sporf_task_state *t, const double *v, int64_t n, double lo, double scale, int32_t B)
{
    sporf_histogram *h = &t->hist;
    const int64_t m = t->n_outputs;
    const double *nw = h->node_w, *nr = h->node_r;
    for (int64_t i = 0; i < n; i++) {
        const int32_t k = sporf_bin_of(v[i], lo, scale, B);
        h->count[k]++;
        h->wsum[k] += nw[i];
        for (int64_t j = 0; j < m; j++) h->stats[k * m + j] += nr[i * m + j];
    }
}

/* The random splitter's left side (hist_scan.h), summed as the single
 * output's (task_regression.c): four chains of every fourth row, the last
 * rows on the first, joined as (0 + 1) + (2 + 3). So an output repeated
 * scores each cut exactly as often as it is there. */
static void mr_hist_left(sporf_task_state *t, const double *v, int64_t n, double lo, double scale, double *left,
                         int64_t *nl_out, double *wl_out)
{
    const sporf_histogram *h = &t->hist;
    const int64_t m = t->n_outputs;
    const double *nw = h->node_w, *nr = h->node_r;
    int64_t nl = 0;
    double ws[4] = {0.0, 0.0, 0.0, 0.0};
    for (int64_t i = 0; i < n; i++) {
        const int in = (v[i] - lo) * scale < 1.0;
        nl += in;
        ws[i < (n & ~(int64_t)3) ? (i & 3) : 0] += nw[i] * (double)in;
    }
    for (int64_t j = 0; j < m; j++) {
        double s[4] = {0.0, 0.0, 0.0, 0.0};
        for (int64_t i = 0; i < n; i++)
            s[i < (n & ~(int64_t)3) ? (i & 3) : 0] += nr[i * m + j] * (double)((v[i] - lo) * scale < 1.0);
        left[j] = (s[0] + s[1]) + (s[2] + s[3]);
    }
    *nl_out = nl;
    *wl_out = (ws[0] + ws[1]) + (ws[2] + ws[3]);
}

static double mr_hist_proxy(const sporf_task_state *t, const double *left, double wl, const double *right, double wr)
{
    sporf_scan_sums s = {wl, wr, 0.0, 0.0, (double *)left, (double *)right};
    return mr_scan_proxy(t, &s);
}

static const sporf_hist_ops mr_hist_ops = {mr_hist_fill, mr_hist_proxy, mr_hist_left, 0};

static int mr_hist_scan(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, const sporf_node_stats *st,
                        sporf_best_split *best)
{
    return sporf_hist_scan_with(t, r, start, end, st, best, &mr_hist_ops);
}

const sporf_task sporf_task_multi_regression = {mr_node_stats, mr_scan,    mr_gain,         mr_leaf,
                                                mr_add_row,    mr_empty,   mr_guide_target, hist_width,
                                                mr_hist_prepare, mr_hist_scan, NULL, NULL, 0};

/* Each regression output's weight in the squared error a split lowers: the
 * inverse of its (sample-weighted) variance over the training rows, scaled so
 * the smallest weight is 1 -- so every output counts in units of its own
 * spread, and outputs of one variance keep weight 1 exactly (their scores are
 * then the plain summed ones, to the bit). Without it a response of large
 * scale decides nearly every cut (benchmarks/notes/multioutput.md).
 * malloc'ed; NULL when out of memory. The leaf-size choice weighs the
 * outputs' squared errors alike (leaf_choice.c). */
double *sporf_output_weights(const double *y, const double *sw, int64_t n, int32_t m)
{
    double *v = malloc((size_t)m * sizeof *v);
    if (!v)
        return NULL;
    double W = 0.0;
    for (int64_t i = 0; i < n; i++) W += sw ? sw[i] : 1.0;
    for (int32_t j = 0; j < m; j++) {
        double mean = 0.0, ss = 0.0;
        for (int64_t i = 0; i < n; i++) mean += (sw ? sw[i] : 1.0) * y[i * m + j];
        mean = W > 0.0 ? mean / W : 0.0;
        for (int64_t i = 0; i < n; i++) {
            const double d = y[i * m + j] - mean;
            ss += (sw ? sw[i] : 1.0) * d * d;
        }
        v[j] = ss; /* W times the variance: the factor W cancels in the ratios below */
    }
    double largest = 0.0;
    for (int32_t j = 0; j < m; j++) largest = v[j] > largest ? v[j] : largest;
    for (int32_t j = 0; j < m; j++) {
        v[j] = v[j] > 0.0 && largest > 0.0 ? largest / v[j] : 1.0; /* a constant output adds nothing anyway */
        if (!(v[j] <= 1e12))
            v[j] = 1e12; /* a nearly constant output: bounded, so the weighted sums cannot overflow */
    }
    return v;
}
