/* task_classification.c -- the classification task (task.h): class counts,
 * Gini or entropy (criterion.h). */
#include "fit/criterion.h"
#include "fit/task.h"
#include "fit/scan.h"
#include "fit/hist_scan.h"

#include <string.h>

double sporf_impurity(int32_t criterion, const double *counts, int32_t n_classes, double w)
{
    if (w <= 0.0)
        return 0.0;
    double s = 0.0;
    if (criterion == SPORF_CRIT_GINI) {
        for (int32_t k = 0; k < n_classes; k++)
            s += counts[k] * counts[k];
        double g = 1.0 - s / (w * w);
        return g > 0.0 ? g : 0.0;
    }
    for (int32_t k = 0; k < n_classes; k++)
        if (counts[k] > 0.0) {
            double q = counts[k] / w;
            s -= q * log2(q);
        }
    return s > 0.0 ? s : 0.0;
}

static void node_stats(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, sporf_node_stats *st)
{
    const int32_t K = t->n_classes;
    double *cnt = t->node_counts;
    memset(cnt, 0, (size_t)K * sizeof *cnt);
    memset(st, 0, sizeof *st);
    const double *wn, *yn;
    if (sporf_rows_wy(r, start, &wn, &yn)) { /* in order, from the node-ordered copy */
        for (int64_t k = 0; k < end - start; k++) {
            cnt[(int32_t)yn[k]] += wn[k];
            st->w += wn[k];
        }
    } else if (K == 2) {
        /* two classes, the common case: the sums in registers, no store to
         * reload from row to row (w * 0 and w - w * 1 add 0.0, so the sums
         * are those of cnt[y] += w to the last bit) */
        double c0 = 0.0, c1 = 0.0, W = 0.0;
        for (int64_t i = start; i < end; i++) {
            const int32_t s = r->idx[i];
            const double ww = r->w[s], wy = ww * (double)t->y[s];
            c0 += ww - wy;
            c1 += wy;
            W += ww;
        }
        cnt[0] = c0;
        cnt[1] = c1;
        st->w = W;
    } else {
        for (int64_t i = start; i < end; i++) {
            const int32_t s = r->idx[i];
            cnt[t->y[s]] += r->w[s];
            st->w += r->w[s];
        }
    }
    st->impurity = sporf_impurity(t->params->criterion, cnt, K, st->w);
    st->pure = st->impurity <= 1e-12;
    /* pure children: sum_k n_k^2 = W^2 on each side (gini), sum_k n_k log n_k = W log W (entropy) */
    st->perfect = t->params->criterion == SPORF_CRIT_GINI ? st->w : 0.0;
}

/* Move row id (class c, weight ww) from the right side to the left,
 * updating the running sums of the class-count terms (criterion.h). */
static inline void move_left(int32_t crit, int32_t c, double ww, double *L, double *R, double *sl, double *sr)
{
    if (crit == SPORF_CRIT_GINI) {
        *sl += ww * (2.0 * L[c] + ww);
        *sr += ww * (ww - 2.0 * R[c]);
    } else {
        *sl += sporf_xlogx(L[c] + ww) - sporf_xlogx(L[c]);
        *sr += sporf_xlogx(R[c] - ww) - sporf_xlogx(R[c]);
    }
    L[c] += ww;
    R[c] -= ww;
}

/* The scan's class weights per side and the sums of their terms: O(1) per row. */
static inline void scan_start(const sporf_task_state *t, const sporf_rows *r, const sporf_node_stats *st, int64_t start, int64_t end,
                              int64_t n_miss, int missing_left, sporf_scan_sums *s)
{
    (void)start;
    const int32_t K = t->n_classes;
    const int32_t crit = t->params->criterion;
    const int32_t *idx = r->idx, *y = t->y;
    const double *w = r->w;
    double *L = t->left_counts, *R = t->right_counts;
    memset(L, 0, (size_t)K * sizeof *L);
    s->L = L;
    s->R = R;
    s->sl = s->sr = s->wl = 0.0;
    s->wr = st->w;
    if (missing_left) {
        for (int64_t i = end - n_miss; i < end; i++) {
            L[y[idx[i]]] += w[idx[i]];
            s->wl += w[idx[i]];
        }
        s->wr = st->w - s->wl;
        for (int32_t k = 0; k < K; k++) {
            R[k] = t->node_counts[k] - L[k];
            s->sl += sporf_crit_term(crit, L[k]);
        }
    } else {
        memcpy(R, t->node_counts, (size_t)K * sizeof *R);
    }
    for (int32_t k = 0; k < K; k++)
        s->sr += sporf_crit_term(crit, R[k]);
}

static inline void scan_move_left(const sporf_task_state *t, const sporf_node_stats *st, int32_t id, double ww,
                                  sporf_scan_sums *s)
{
    (void)st;
    move_left(t->params->criterion, t->y[id], ww, s->L, s->R, &s->sl, &s->sr);
}

static inline double scan_proxy(const sporf_task_state *t, const sporf_scan_sums *s)
{
    return sporf_crit_proxy(t->params->criterion, s->wl, s->sl, s->wr, s->sr);
}

static const sporf_scan_ops scan_ops = {scan_start, scan_move_left, scan_proxy};

static int scan(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int64_t n_miss, const sporf_node_stats *st,
                sporf_best_split *best)
{
    return sporf_scan_sorted(t, r, start, end, n_miss, st, best, &scan_ops);
}

/* Class weights of rows idx[from..to) into out, added in the order of
 * `step` (+1 or -1: from the last row down); returns their total (the sum
 * over classes). The right side is summed from the end, the order in which
 * the partition used to count it, so weighted fits keep their gains to the
 * last bit. The weights and classes come in order from the node-ordered
 * copy when it has them (the partition moved them with the rows), else
 * through idx: on millions of rows a miss per row. */
static double side_counts(const sporf_task_state *t, const sporf_rows *r, int64_t from, int64_t to, int step, double *out)
{
    const int32_t K = t->n_classes;
    memset(out, 0, (size_t)K * sizeof *out);
    const double *wn, *yn;
    if (sporf_rows_wy(r, from, &wn, &yn)) {
        if (step > 0)
            for (int64_t k = 0; k < to - from; k++) out[(int32_t)yn[k]] += wn[k];
        else
            for (int64_t k = to - from - 1; k >= 0; k--) out[(int32_t)yn[k]] += wn[k];
    } else if (K == 2) { /* in registers, as node_stats */
        double c0 = 0.0, c1 = 0.0;
        for (int64_t k = 0; k < to - from; k++) {
            const int32_t s = r->idx[step > 0 ? from + k : to - 1 - k];
            const double ww = r->w[s], wy = ww * (double)t->y[s];
            c0 += ww - wy;
            c1 += wy;
        }
        out[0] = c0;
        out[1] = c1;
    } else if (step > 0) {
        for (int64_t i = from; i < to; i++) out[t->y[r->idx[i]]] += r->w[r->idx[i]];
    } else {
        for (int64_t i = to - 1; i >= from; i--) out[t->y[r->idx[i]]] += r->w[r->idx[i]];
    }
    double W = 0.0;
    for (int32_t k = 0; k < K; k++)
        W += out[k];
    return W;
}

static double gain(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t mid, int64_t end, const sporf_node_stats *st,
                   double *w_side)
{
    const int32_t K = t->n_classes, crit = t->params->criterion;
    const double wl = side_counts(t, r, start, mid, 1, t->left_counts);
    const double wr = side_counts(t, r, mid, end, -1, t->right_counts);
    w_side[0] = wl;
    w_side[1] = wr;
    return st->w * st->impurity - wl * sporf_impurity(crit, t->left_counts, K, wl) -
           wr * sporf_impurity(crit, t->right_counts, K, wr);
}

/* The node's class distribution (node_stats left its counts in node_counts). */
static void leaf(const sporf_task_state *t, const sporf_node_stats *st, double w_root, double *lv)
{
    (void)w_root;
    const int32_t K = t->n_classes;
    for (int32_t k = 0; k < K; k++)
        lv[k] = st->w > 0.0 ? t->node_counts[k] / st->w : 1.0 / K;
}

static void add_row(const sporf_task_state *t, int32_t id, double w, double *acc)
{
    acc[t->y[id]] += w;
}

static void empty(const sporf_task_state *t, double *out)
{
    const int32_t K = t->n_classes;
    for (int32_t k = 0; k < K; k++) out[k] = 1.0 / K;
}

/* Each class scores the share of its weight that the best single-feature cut
 * sends left: with two classes a two-valued target, so the slopes are the
 * diagonal discriminant; with more, the class contrast that cut separates. */
static void guide_target(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int32_t f, double sign,
                         double threshold, int missing_left, double *out)
{
    const int32_t K = t->n_classes;
    double *L = t->left_counts, *T = t->right_counts;
    memset(L, 0, (size_t)K * sizeof *L);
    memset(T, 0, (size_t)K * sizeof *T);
    const double *wn, *yn;
    const int in_order = sporf_rows_wy(r, start, &wn, &yn);
    for (int64_t i = start; i < end; i++) {
        const int32_t id = r->idx[i];
        const int32_t c = in_order ? (int32_t)yn[i - start] : t->y[id];
        const double ww = in_order ? wn[i - start] : r->w[id];
        T[c] += ww;
        const double x = sporf_rows_x(r, f, i);
        if (sign * x <= threshold || (missing_left && sporf_is_missing(x)))
            L[c] += ww;
    }
    for (int32_t k = 0; k < K; k++)
        L[k] = T[k] > 0.0 ? L[k] / T[k] : 0.0;
    for (int64_t i = start; i < end; i++)
        out[i - start] = L[in_order ? (int32_t)yn[i - start] : t->y[r->idx[i]]];
}

static int32_t hist_width(int32_t n_classes) { return n_classes; }

static void hist_prepare(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, const sporf_node_stats *st)
{
    (void)st;
    double *nw = t->hist.node_w, *nr = t->hist.node_r;
    const double *wn, *yn;
    if (sporf_rows_wy(r, start, &wn, &yn)) {
        memcpy(nw, wn, (size_t)(end - start) * sizeof *nw);
        memcpy(nr, yn, (size_t)(end - start) * sizeof *nr);
    } else {
        for (int64_t i = start; i < end; i++) {
            const int32_t id = r->idx[i];
            nw[i - start] = r->w[id];
            nr[i - start] = (double)t->y[id];
        }
    }
    memcpy(t->hist.total, t->node_counts, (size_t)t->n_classes * sizeof(double));
}

/* Class weights per bin: stats[bin * K + class]; inlined with K a constant
 * for two classes (hist_fill_two). */
static SPORF_ALWAYS_INLINE void fill_classes(sporf_task_state *t, const double *v, int64_t n, double lo, double scale,
                                             int32_t B, int64_t K)
{
    sporf_histogram *h = &t->hist;
    const double *nw = h->node_w, *nr = h->node_r;
    int64_t *count = h->count;
    double *wsum = h->wsum, *stats = h->stats;
    for (int64_t i = 0; i < n; i++) {
        const int32_t k = sporf_bin_of(v[i], lo, scale, B);
        count[k]++;
        wsum[k] += nw[i];
        stats[k * K + (int64_t)nr[i]] += nw[i];
    }
}

static void hist_fill(sporf_task_state *t, const double *v, int64_t n, double lo, double scale, int32_t B)
{
    fill_classes(t, v, n, lo, scale, B, t->n_classes);
}

/* The random splitter's left side (hist_scan.h), without a branch: a row's
 * side is a coin flip, which a branch would mispredict half the time (a
 * weight times 1.0 or 0.0 is the weight or 0.0). Two classes, the common
 * case, keep their sums in registers, in four chains so that no add waits on
 * the one before: the sums of whole weights (bootstrap counts) are exact in
 * any order, others may differ from fill's in the last bit. */
static void hist_left(sporf_task_state *t, const double *v, int64_t n, double lo, double scale, double *left,
                      int64_t *nl_out, double *wl_out)
{
    const sporf_histogram *h = &t->hist;
    const double *nw = h->node_w, *nr = h->node_r;
    int64_t nl = 0;
    double wl = 0.0;
    if (t->n_classes == 2) {
        double l0[4] = {0.0, 0.0, 0.0, 0.0}, l1[4] = {0.0, 0.0, 0.0, 0.0}, ws[4] = {0.0, 0.0, 0.0, 0.0};
        int64_t i = 0;
#if defined(__GNUC__)
        /* chains 0-1 and 2-3 as pairs (hist_scan.h) */
        const sporf_pair lo2 = {lo, lo}, scale2 = {scale, scale};
        sporf_pair c_a = {0.0, 0.0}, c_b = c_a, w_a = c_a, w_b = c_a, z_a = c_a, z_b = c_a, o_a = c_a, o_b = c_a;
        for (; i + 4 <= n; i += 4) {
            const sporf_pair in_a = sporf_pair_left(sporf_pair_load(v + i), lo2, scale2);
            const sporf_pair in_b = sporf_pair_left(sporf_pair_load(v + i + 2), lo2, scale2);
            const sporf_pair wa = sporf_pair_load(nw + i) * in_a, wb = sporf_pair_load(nw + i + 2) * in_b;
            const sporf_pair wya = wa * sporf_pair_load(nr + i), wyb = wb * sporf_pair_load(nr + i + 2);
            c_a += in_a;
            c_b += in_b;
            w_a += wa;
            w_b += wb;
            z_a += wa - wya;
            z_b += wb - wyb;
            o_a += wya;
            o_b += wyb;
        }
        /* whole numbers below 2^53: exact */
        nl = (int64_t)(c_a[0] + c_a[1] + c_b[0] + c_b[1]);
        ws[0] = w_a[0], ws[1] = w_a[1], ws[2] = w_b[0], ws[3] = w_b[1];
        l0[0] = z_a[0], l0[1] = z_a[1], l0[2] = z_b[0], l0[3] = z_b[1];
        l1[0] = o_a[0], l1[1] = o_a[1], l1[2] = o_b[0], l1[3] = o_b[1];
#else
        for (; i + 4 <= n; i += 4)
            for (int u = 0; u < 4; u++) {
                const int in = (v[i + u] - lo) * scale < 1.0;
                const double w = nw[i + u] * (double)in, wy = w * nr[i + u]; /* class code 0 or 1 */
                nl += in;
                ws[u] += w;
                l0[u] += w - wy;
                l1[u] += wy;
            }
#endif
        for (; i < n; i++) {
            const int in = (v[i] - lo) * scale < 1.0;
            const double w = nw[i] * (double)in, wy = w * nr[i];
            nl += in;
            ws[0] += w;
            l0[0] += w - wy;
            l1[0] += wy;
        }
        wl = (ws[0] + ws[1]) + (ws[2] + ws[3]);
        left[0] = (l0[0] + l0[1]) + (l0[2] + l0[3]);
        left[1] = (l1[0] + l1[1]) + (l1[2] + l1[3]);
    } else {
        for (int64_t i = 0; i < n; i++) {
            const int in = (v[i] - lo) * scale < 1.0;
            const double w = nw[i] * (double)in;
            nl += in;
            wl += w;
            left[(int64_t)nr[i]] += w;
        }
    }
    *nl_out = nl;
    *wl_out = wl;
}

static double hist_proxy(const sporf_task_state *t, const double *left, double wl, const double *right, double wr)
{
    const int32_t K = t->n_classes, crit = t->params->criterion;
    double sl = 0.0, sr = 0.0;
    for (int32_t k = 0; k < K; k++) {
        sl += sporf_crit_term(crit, left[k]);
        sr += sporf_crit_term(crit, right[k] > 0.0 ? right[k] : 0.0);
    }
    return sporf_crit_proxy(crit, wl, sl, wr, sr);
}

static const sporf_hist_ops hist_ops = {hist_fill, hist_proxy, hist_left, 0};

/* Two classes under Gini, the common case, with the class count known to
 * the compiler: the fill and the proxy inline into the scan, and each does
 * exactly the general ones' arithmetic in the same order (0.0 + a square is
 * the square), so the cuts are the same bits. */
static void hist_fill_two(sporf_task_state *t, const double *v, int64_t n, double lo, double scale, int32_t B)
{
    fill_classes(t, v, n, lo, scale, B, 2);
}

static double hist_proxy_gini_two(const sporf_task_state *t, const double *left, double wl, const double *right,
                                  double wr)
{
    (void)t;
    const double r0 = right[0] > 0.0 ? right[0] : 0.0, r1 = right[1] > 0.0 ? right[1] : 0.0;
    return (left[0] * left[0] + left[1] * left[1]) / wl + (r0 * r0 + r1 * r1) / wr;
}

static const sporf_hist_ops hist_ops_gini_two = {hist_fill_two, hist_proxy_gini_two, hist_left, 2};

static int hist_scan(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, const sporf_node_stats *st,
                     sporf_best_split *best)
{
    if (t->n_classes == 2 && t->params->criterion == SPORF_CRIT_GINI)
        return sporf_hist_scan_with(t, r, start, end, st, best, &hist_ops_gini_two);
    return sporf_hist_scan_with(t, r, start, end, st, best, &hist_ops);
}

const sporf_task sporf_task_classification = {node_stats, scan,       gain,         leaf,     add_row, empty,
                                  guide_target, hist_width, hist_prepare, hist_scan, NULL, NULL, 0};
