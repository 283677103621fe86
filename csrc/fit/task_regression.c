/* task_regression.c -- the regression task (task.h): squared error. */
#include "fit/task.h"
#include "fit/scan.h"
#include "fit/hist_scan.h"

/* Weighted sum of squared deviations of the responses of rows
 * idx[start..end) from their weighted mean (two passes, so it is exact for a
 * constant response); writes the total weight and the mean. */
static double rows_sse(const sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, double *w_out, double *mean_out)
{
    double W = 0.0, S = 0.0;
    const double *wn, *yn;
    const int in_order = sporf_rows_wy(r, start, &wn, &yn); /* from the node-ordered copy */
    for (int64_t i = start; i < end; i++) {
        const double w = in_order ? wn[i - start] : r->w[r->idx[i]];
        const double y = in_order ? yn[i - start] : t->yr[r->idx[i]];
        W += w;
        S += w * y;
    }
    const double mean = W > 0.0 ? S / W : 0.0;
    double sse = 0.0;
    for (int64_t i = start; i < end; i++) {
        const double w = in_order ? wn[i - start] : r->w[r->idx[i]];
        const double d = (in_order ? yn[i - start] : t->yr[r->idx[i]]) - mean;
        sse += w * d * d;
    }
    *w_out = W;
    *mean_out = mean;
    return sse;
}

static void node_stats(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, sporf_node_stats *st)
{
    st->sse = rows_sse(t, r, start, end, &st->w, &st->mean);
    st->impurity = st->w > 0.0 ? st->sse / st->w : 0.0;
    /* a constant response cannot be split usefully (nor a node without rows:
     * a tree whose draws all weigh 0) */
    st->pure = 1;
    st->perfect = st->sse;
    if (end <= start)
        return;
    int pure = 1;
    const double *wn, *yn;
    const int in_order = sporf_rows_wy(r, start, &wn, &yn);
    const double y0 = in_order ? yn[0] : t->yr[r->idx[start]];
    for (int64_t i = start + 1; i < end && pure; i++)
        pure = (in_order ? yn[i - start] : t->yr[r->idx[i]]) == y0;
    st->pure = pure;
    /* children of constant response: their SSE is 0, so the proxy is the node's */
    st->perfect = st->sse;
}

/* Running weighted sums of the responses, centred on the node mean so the
 * proxy sum_l^2/w_l + sum_r^2/w_r (the children's SSE up to a node
 * constant) keeps its precision when |mean| >> sd. */
static inline void scan_start(const sporf_task_state *t, const sporf_rows *r, const sporf_node_stats *st, int64_t start, int64_t end,
                              int64_t n_miss, int missing_left, sporf_scan_sums *s)
{
    const int32_t *idx = r->idx;
    const double *yr = t->yr, *w = r->w;
    const double mean = st->mean;
    const int64_t n_val = end - start - n_miss;
    s->wl = 0.0;
    s->wr = st->w;
    s->sl = s->sr = 0.0;
    if (missing_left) {
        for (int64_t i = end - n_miss; i < end; i++) {
            s->wl += w[idx[i]];
            s->sl += w[idx[i]] * (yr[idx[i]] - mean);
        }
        s->wr = st->w - s->wl;
    }
    for (int64_t i = start; i < (missing_left ? start + n_val : end); i++)
        s->sr += w[idx[i]] * (yr[idx[i]] - mean);
}

static inline void scan_move_left(const sporf_task_state *t, const sporf_node_stats *st, int32_t id, double ww,
                                  sporf_scan_sums *s)
{
    const double wy = ww * (t->yr[id] - st->mean);
    s->sl += wy;
    s->sr -= wy;
}

static inline double scan_proxy(const sporf_task_state *t, const sporf_scan_sums *s)
{
    (void)t;
    return s->sl * s->sl / s->wl + s->sr * s->sr / s->wr;
}

static const sporf_scan_ops scan_ops = {scan_start, scan_move_left, scan_proxy};

static int scan(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int64_t n_miss, const sporf_node_stats *st,
                sporf_best_split *best)
{
    return sporf_scan_sorted(t, r, start, end, n_miss, st, best, &scan_ops);
}

static double gain(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t mid, int64_t end, const sporf_node_stats *st,
                   double *w_side)
{
    double ml, mr;
    return st->sse - rows_sse(t, r, start, mid, &w_side[0], &ml) - rows_sse(t, r, mid, end, &w_side[1], &mr);
}

static void leaf(const sporf_task_state *t, const sporf_node_stats *st, double w_root, double *lv)
{
    (void)t;
    (void)w_root;
    lv[0] = st->mean;
}

static void add_row(const sporf_task_state *t, int32_t id, double w, double *acc)
{
    acc[0] += w * t->yr[id];
}

static void empty(const sporf_task_state *t, double *out)
{
    (void)t;
    out[0] = 0.0;
}

/* The response itself: the slopes are the univariate least-squares fits. */
static void guide_target(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int32_t f, double sign,
                         double threshold, int missing_left, double *out)
{
    (void)f, (void)sign, (void)threshold, (void)missing_left;
    const double *wn, *yn;
    if (sporf_rows_wy(r, start, &wn, &yn)) {
        memcpy(out, yn, (size_t)(end - start) * sizeof *out);
        return;
    }
    for (int64_t i = start; i < end; i++)
        out[i - start] = t->yr[r->idx[i]];
}

static int32_t hist_width(int32_t n_classes)
{
    (void)n_classes;
    return 1;
}

/* Weighted responses centred on the node mean, as the exact scan keeps them. */
static void hist_prepare(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, const sporf_node_stats *st)
{
    double *nw = t->hist.node_w, *nr = t->hist.node_r, total = 0.0;
    const double *wn, *yn;
    const int in_order = sporf_rows_wy(r, start, &wn, &yn); /* from the node-ordered copy */
    for (int64_t i = start; i < end; i++) {
        const double w = in_order ? wn[i - start] : r->w[r->idx[i]];
        const double wy = w * ((in_order ? yn[i - start] : t->yr[r->idx[i]]) - st->mean);
        nw[i - start] = w;
        nr[i - start] = wy;
        total += wy;
    }
    t->hist.total[0] = total;
}

/* Centred weighted responses per bin. */
static void hist_fill(sporf_task_state *t, const double *v, int64_t n, double lo, double scale, int32_t B)
{
    sporf_histogram *h = &t->hist;
    const double *nw = h->node_w, *nr = h->node_r;
    int64_t *count = h->count;
    double *wsum = h->wsum, *stats = h->stats;
    for (int64_t i = 0; i < n; i++) {
        const int32_t k = sporf_bin_of(v[i], lo, scale, B);
        count[k]++;
        wsum[k] += nw[i];
        stats[k] += nr[i];
    }
}

/* The random splitter's left side (hist_scan.h): its centred responses,
 * without a branch (a row's side is a coin flip; a value times 1.0 or 0.0 is
 * the value or a zero), in four chains so that no add waits on the one
 * before. */
static void hist_left(sporf_task_state *t, const double *v, int64_t n, double lo, double scale, double *left,
                      int64_t *nl_out, double *wl_out)
{
    const sporf_histogram *h = &t->hist;
    const double *nw = h->node_w, *nr = h->node_r;
    int64_t nl = 0, i = 0;
    double ws[4] = {0.0, 0.0, 0.0, 0.0}, s[4] = {0.0, 0.0, 0.0, 0.0};
#if defined(__GNUC__)
    /* chains 0-1 and 2-3 as pairs (hist_scan.h) */
    const sporf_pair lo2 = {lo, lo}, scale2 = {scale, scale};
    sporf_pair c_a = {0.0, 0.0}, c_b = c_a, w_a = c_a, w_b = c_a, s_a = c_a, s_b = c_a;
    for (; i + 4 <= n; i += 4) {
        const sporf_pair in_a = sporf_pair_left(sporf_pair_load(v + i), lo2, scale2);
        const sporf_pair in_b = sporf_pair_left(sporf_pair_load(v + i + 2), lo2, scale2);
        c_a += in_a;
        c_b += in_b;
        w_a += sporf_pair_load(nw + i) * in_a;
        w_b += sporf_pair_load(nw + i + 2) * in_b;
        s_a += sporf_pair_load(nr + i) * in_a;
        s_b += sporf_pair_load(nr + i + 2) * in_b;
    }
    nl = (int64_t)(c_a[0] + c_a[1] + c_b[0] + c_b[1]); /* whole numbers below 2^53: exact */
    ws[0] = w_a[0], ws[1] = w_a[1], ws[2] = w_b[0], ws[3] = w_b[1];
    s[0] = s_a[0], s[1] = s_a[1], s[2] = s_b[0], s[3] = s_b[1];
#else
    for (; i + 4 <= n; i += 4)
        for (int u = 0; u < 4; u++) {
            const int in = (v[i + u] - lo) * scale < 1.0;
            nl += in;
            ws[u] += nw[i + u] * (double)in;
            s[u] += nr[i + u] * (double)in;
        }
#endif
    for (; i < n; i++) {
        const int in = (v[i] - lo) * scale < 1.0;
        nl += in;
        ws[0] += nw[i] * (double)in;
        s[0] += nr[i] * (double)in;
    }
    left[0] = (s[0] + s[1]) + (s[2] + s[3]);
    *nl_out = nl;
    *wl_out = (ws[0] + ws[1]) + (ws[2] + ws[3]);
}

static double hist_proxy(const sporf_task_state *t, const double *left, double wl, const double *right, double wr)
{
    (void)t;
    return left[0] * left[0] / wl + right[0] * right[0] / wr;
}

static const sporf_hist_ops hist_ops = {hist_fill, hist_proxy, hist_left, 1};

static int hist_scan(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, const sporf_node_stats *st,
                     sporf_best_split *best)
{
    return sporf_hist_scan_with(t, r, start, end, st, best, &hist_ops);
}

const sporf_task sporf_task_regression = {node_stats, scan,       gain,         leaf,     add_row, empty,
                                  guide_target, hist_width, hist_prepare, hist_scan, NULL, NULL, 0};
