/* task_survival.c -- the survival task (task.h): right-censored times, cut
 * by the log-rank score test.
 *
 * The log-rank statistic of a cut has as numerator, over the node's distinct
 * event times s, the sum of d_left(s) - Y_left(s) d(s) / Y(s) (events on the
 * left, minus those expected there under one hazard for both sides). Moving
 * a row of time t_i and event flag e_i to the left adds e_i to the first
 * term and 1 to Y_left at every s <= t_i, so the numerator is the sum over
 * the left rows of e_i - H(t_i), H the node's Nelson-Aalen cumulative
 * hazard: each row's martingale residual. Standardized by the permutation
 * variance of those residuals (the log-rank score test of Hothorn and
 * Lausen, randomForestSRC's "logrankscore"), the statistic orders cuts as
 * the decrease in the residuals' squared error does. So the node's
 * statistics compute every row's residual into the state's scores (which
 * the response yr points to), and the regression task's scans -- exact,
 * histogram and random cuts -- and guided projections run on them
 * unchanged: one Nelson-Aalen pass per node (a counting sort of its rows by
 * time), then scans as cheap as a regression forest's.
 *
 * The log-rank statistic itself (SPORF_CRIT_LOGRANK) divides the same
 * numerator U by its hypergeometric variance, V = sum over event times s of
 * c(s) (Y_l(s) - Y_l(s)^2 / Y(s)), c(s) = d(s) (Y(s) - d(s)) / (Y(s) (Y(s) -
 * 1)). Moving a row of time t (weight w) left adds w to Y_l(s) for every
 * s <= t: the first sum grows by w C(t) (C: the prefix sums of c), the second
 * by w^2 B(t) + 2 w (the left rows' w_i B(t_i) over t_i < t, plus B(t) times
 * the left rows' weight at t_i >= t) (B: the prefix sums of c / Y), which
 * two Fenwick trees over the node's distinct times keep: O(log) per row. The
 * exact scans score cuts this way; histogram scans and random cuts, which
 * move bins of rows, keep the score form.
 */
#include "fit/task.h"
#include "fit/scan.h"
#include "model/survival.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

typedef struct sporf_surv_state {
    const double *time;   /* n times by row */
    int32_t *time_rank;   /* n: each row's distinct time, 0 = the earliest */
    int64_t n_times;      /* distinct times */
    double *after;        /* n_times: the distinct event times at or after each distinct time */
    double *score;        /* n by row: the martingale residual at the node being split (t->yr) */
    int32_t *order;       /* a node's positions by time */
    uint64_t *keys;       /* n: (time rank << 32 | position) records, for small nodes */
    int32_t *count;       /* n_times + 1: the counting sort's, for large nodes */
    /* the exact log-rank statistic's (SPORF_CRIT_LOGRANK): the node being
     * split's prefix sums C and B over its event times, each row's bucket
     * (the stretch of time between two event times of the node that moved
     * C and B, over which both are constant), and two Fenwick trees over the
     * buckets. Buckets rather than distinct times: C(t) and B(t) change only
     * at event times, so rows of one bucket enter the statistic alike, and
     * a node of few events keeps small trees (censored data has many more
     * distinct times than event times). */
    int32_t *node_rank;   /* each row's bucket, by row */
    double *prefix_c, *prefix_b; /* node_times + 1: C and B in each bucket */
    double *fen;          /* 2 (node_times + 1): the Fenwick trees of w_i B(t_i) and of w_i, interleaved */
    int64_t node_times;   /* the node's buckets */
    double left_w;
    int hist_node;        /* the node is scanned by histogram: every cut there in the score form */
    /* the leaf-size choice's times (model/survival.h sporf_surv_grid), and
     * the node being split's Kaplan-Meier survival at them */
    int32_t n_grid;
    double grid[SPORF_SURV_GRID], curve[SPORF_SURV_GRID];
} sporf_surv_state;

/* The distinct event times of n rows (time, event), ascending, into out (n
 * entries); how many, or -1 when out of memory. */
static int64_t distinct_event_times(const double *time, const int32_t *event, int64_t n, double *out)
{
    int64_t *rows = malloc((size_t)(n > 0 ? n : 1) * sizeof *rows);
    if (rows)
        for (int64_t i = 0; i < n; i++) rows[i] = i;
    if (!rows || !sporf_order_rows_by_key(time, rows, n)) {
        free(rows);
        return -1;
    }
    int64_t E = 0;
    for (int64_t i = 0; i < n; i++)
        if (event[rows[i]] && (E == 0 || time[rows[i]] != out[E - 1]))
            out[E++] = time[rows[i]];
    free(rows);
    return E;
}

/* Each row's distinct time and, per distinct time, the event times from it
 * on among every training row's (all_time, all_event: n_all rows; the
 * builder's own rows unless it grows on a sample of them). */
static int rank_times(sporf_surv_state *s, int64_t n, const double *all_time, const int32_t *all_event, int64_t n_all)
{
    int64_t *rows = malloc((size_t)(n > 0 ? n : 1) * sizeof *rows);
    double *events = malloc((size_t)(n_all > 0 ? n_all : 1) * sizeof *events);
    const int64_t E = events ? distinct_event_times(all_time, all_event, n_all, events) : -1;
    if (rows)
        for (int64_t i = 0; i < n; i++) rows[i] = i;
    if (!rows || E < 0 || !sporf_order_rows_by_key(s->time, rows, n)) {
        free(rows);
        free(events);
        return 0;
    }
    int64_t k = -1, before = 0; /* before: the event times earlier than the current distinct time */
    for (int64_t i = 0; i < n; i++) {
        const double t = s->time[rows[i]];
        if (i == 0 || t != s->time[rows[i - 1]]) {
            k++;
            while (before < E && events[before] < t) before++;
            s->after[k] = (double)(E - before);
        }
        s->time_rank[rows[i]] = (int32_t)k;
    }
    s->n_times = k + 1;
    free(rows);
    free(events);
    return 1;
}

static int state_init(sporf_task_state *t, const sporf_response *response, int64_t n)
{
    sporf_surv_state *s = t->surv = calloc(1, sizeof *s);
    if (!s)
        return 0;
    const size_t m = (size_t)(n > 0 ? n : 1);
    s->time = response->yr;
    s->time_rank = malloc(m * sizeof *s->time_rank);
    s->after = malloc(m * sizeof *s->after);
    s->score = calloc(m, sizeof *s->score);
    s->order = malloc(m * sizeof *s->order);
    s->keys = malloc(m * sizeof *s->keys);
    s->count = malloc((m + 1) * sizeof *s->count);
    if (!s->time_rank || !s->after || !s->score || !s->order || !s->keys || !s->count)
        return 0;
    if (t->params->criterion == SPORF_CRIT_LOGRANK) {
        s->node_rank = malloc(m * sizeof *s->node_rank);
        s->prefix_c = malloc((m + 1) * sizeof *s->prefix_c);
        s->prefix_b = malloc((m + 1) * sizeof *s->prefix_b);
        s->fen = malloc(2 * (m + 2) * sizeof *s->fen); /* node_times <= m + 1 */
        if (!s->node_rank || !s->prefix_c || !s->prefix_b || !s->fen)
            return 0;
    }
    /* what counts every training row: its event times and their quantiles */
    const double *all_time = response->all_yr ? response->all_yr : response->yr;
    const int32_t *all_event = response->all_yr ? response->all_y : response->y;
    const int64_t n_all = response->all_yr ? response->n_all : n;
    if (!rank_times(s, n, all_time, all_event, n_all))
        return 0;
    s->n_grid = sporf_surv_grid(all_time, all_event, n_all, s->grid);
    if (s->n_grid < 0)
        return 0;
    t->yr = s->score; /* the regression scans read the residuals */
    return 1;
}

static void state_free(sporf_task_state *t)
{
    sporf_surv_state *s = t->surv;
    if (!s)
        return;
    free(s->time_rank);
    free(s->after);
    free(s->score);
    free(s->order);
    free(s->keys);
    free(s->count);
    free(s->node_rank);
    free(s->prefix_c);
    free(s->prefix_b);
    free(s->fen);
    free(s);
    t->surv = NULL;
}

/* The node's positions [start, end) by time, ties by position: a counting
 * sort when the node holds many rows for the distinct times, else a sort of
 * (time rank, position) records -- one order either way. */
static void order_by_time(sporf_surv_state *s, const sporf_rows *r, int64_t start, int64_t end)
{
    const int64_t m = end - start;
    const int32_t *idx = r->idx;
    if (s->n_times <= 4 * m) {
        int32_t *count = s->count;
        memset(count, 0, (size_t)(s->n_times + 1) * sizeof *count);
        for (int64_t i = start; i < end; i++) count[s->time_rank[idx[i]] + 1]++;
        for (int64_t j = 0; j < s->n_times; j++) count[j + 1] += count[j];
        for (int64_t i = start; i < end; i++) s->order[count[s->time_rank[idx[i]]]++] = (int32_t)(i - start);
        return;
    }
    for (int64_t i = start; i < end; i++)
        s->keys[i - start] = (uint64_t)(uint32_t)s->time_rank[idx[i]] << 32 | (uint64_t)(i - start);
    sporf_sort_u64_distinct(s->keys, m);
    for (int64_t k = 0; k < m; k++) s->order[k] = (int32_t)(s->keys[k] & 0xFFFFFFFFu);
}

/* The node's Nelson-Aalen hazard: each row's residual e_i - H(t_i) into the
 * scores, and the node's risk (its hazard summed over the forest's event
 * times: h(s) times the event times at or after s); its Kaplan-Meier
 * survival at the grid's times into s->curve. */
static double node_residuals(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end)
{
    sporf_surv_state *s = t->surv;
    const int32_t *idx = r->idx, *event = t->y;
    const double *w = r->w;
    order_by_time(s, r, start, end);
    const int64_t m = end - start;
    double at_risk = 0.0;
    for (int64_t i = start; i < end; i++) at_risk += w[idx[i]];
    double H = 0.0, risk = 0.0, S = 1.0, C = 0.0, B = 0.0;
    int32_t g = 0;
    int64_t j = 0; /* the bucket: C and B moved j times so far */
    if (s->node_rank)
        s->prefix_c[0] = s->prefix_b[0] = 0.0;
    for (int64_t k = 0; k < m;) {
        const int32_t rank = s->time_rank[idx[start + s->order[k]]];
        for (const double t_k = s->time[idx[start + s->order[k]]]; g < s->n_grid && s->grid[g] < t_k; g++)
            s->curve[g] = S;
        int64_t k1 = k;
        double d = 0.0, tied = 0.0;
        for (; k1 < m && s->time_rank[idx[start + s->order[k1]]] == rank; k1++) {
            const int32_t id = idx[start + s->order[k1]];
            tied += w[id];
            d += event[id] ? w[id] : 0.0;
        }
        if (d > 0.0 && at_risk > 0.0) {
            const double h = d / at_risk;
            H += h;
            risk += h * s->after[rank];
            S *= 1.0 - h;
            if (s->node_rank && at_risk > 1.0) {
                const double c = d * (at_risk - d) / (at_risk * (at_risk - 1.0));
                C += c;
                B += c / at_risk;
                j++; /* a new bucket from this time on */
                s->prefix_c[j] = C;
                s->prefix_b[j] = B;
            }
        }
        for (; k < k1; k++) {
            const int32_t id = idx[start + s->order[k]];
            s->score[id] = (event[id] ? 1.0 : 0.0) - H;
            if (s->node_rank) s->node_rank[id] = (int32_t)j;
        }
        at_risk -= tied;
    }
    for (; g < s->n_grid; g++) s->curve[g] = S;
    s->node_times = j + 1;
    return risk;
}

/* ---- the exact log-rank statistic's scan (scan.h) ---- */

/* The two Fenwick trees walk the same indices: one loop for both. */
static inline void fenwick_add(double *f, int64_t size, int64_t at, double b, double w)
{
    for (int64_t i = at + 1; i <= size; i += i & -i) {
        f[2 * i] += b;
        f[2 * i + 1] += w;
    }
}

/* the sums over ranks [0, at) */
static inline void fenwick_below(const double *f, int64_t at, double *b, double *w)
{
    double sb = 0.0, sw = 0.0;
    for (int64_t i = at; i > 0; i -= i & -i) {
        sb += f[2 * i];
        sw += f[2 * i + 1];
    }
    *b = sb;
    *w = sw;
}

static inline void logrank_move_left(const sporf_task_state *t, const sporf_node_stats *st, int32_t id, double ww,
                                     sporf_scan_sums *s)
{
    (void)st;
    sporf_surv_state *v = t->surv;
    const int32_t j = v->node_rank[id];
    const double Bj = v->prefix_b[j];
    double below, w_below;
    fenwick_below(v->fen, j, &below, &w_below);
    const double at_or_after = v->left_w - w_below;
    s->sl += ww * t->yr[id];                   /* U: the residuals */
    s->sr += ww * v->prefix_c[j];              /* the variance's first sum */
    s->q += ww * ww * Bj + 2.0 * ww * (below + Bj * at_or_after);
    fenwick_add(v->fen, v->node_times, j, ww * Bj, ww);
    v->left_w += ww;
}

static inline void logrank_start(const sporf_task_state *t, const sporf_rows *r, const sporf_node_stats *st,
                                 int64_t start, int64_t end, int64_t n_miss, int missing_left, sporf_scan_sums *s)
{
    (void)start; /* the missing rows are the slice's last n_miss */
    sporf_surv_state *v = t->surv;
    memset(v->fen, 0, 2 * (size_t)(v->node_times + 1) * sizeof *v->fen);
    v->left_w = 0.0;
    s->wl = 0.0;
    s->wr = st->w;
    s->sl = s->sr = s->q = 0.0;
    if (!missing_left)
        return;
    for (int64_t i = end - n_miss; i < end; i++) {
        const int32_t id = r->idx[i];
        logrank_move_left(t, st, id, r->w[id], s);
        s->wl += r->w[id];
    }
    s->wr = st->w - s->wl;
}

static inline double logrank_proxy(const sporf_task_state *t, const sporf_scan_sums *s)
{
    (void)t;
    const double var = s->sr - s->q;
    return var > 1e-12 * s->sr ? s->sl * s->sl / var : 0.0;
}

static const sporf_scan_ops logrank_ops = {logrank_start, logrank_move_left, logrank_proxy};

static void node_stats(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, sporf_node_stats *st)
{
    const double risk = node_residuals(t, r, start, end);
    sporf_task_regression.node_stats(t, r, start, end, st);
    st->risk = risk;
    t->surv->hist_node = 0;
    if (t->surv->node_rank)
        st->perfect = INFINITY; /* no cut is known to beat all others */
    /* min_events_split: a node of fewer events is a leaf (its curve and its
     * log-rank statistics rest on its events, not its rows) */
    const int64_t min_events = t->params->min_events_split;
    if (min_events > 0 && !st->pure) {
        int64_t events = 0;
        for (int64_t i = start; i < end && events < min_events; i++)
            events += t->y[r->idx[i]] != 0;
        if (events < min_events)
            st->pure = 1;
    }
}

static int scan(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int64_t n_miss,
                const sporf_node_stats *st, sporf_best_split *best)
{
    /* a histogram node's cuts compare in the score form, so its candidates
     * that the bins cannot resolve are scanned in it too */
    if (t->surv->node_rank && !t->surv->hist_node)
        return sporf_scan_sorted(t, r, start, end, n_miss, st, best, &logrank_ops);
    return sporf_task_regression.scan(t, r, start, end, n_miss, st, best);
}

static double gain(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t mid, int64_t end,
                   const sporf_node_stats *st, double *w_side)
{
    return sporf_task_regression.gain(t, r, start, mid, end, st, w_side);
}

/* The node's risk; the leaves' final values come from the rows each leaf
 * keeps, once the tree is grown (model/survival.h). */
static void leaf(const sporf_task_state *t, const sporf_node_stats *st, double w_root, double *lv)
{
    (void)t;
    (void)w_root;
    lv[0] = st->risk;
}

/* Honest leaves are valued from their estimation rows' times (model/survival.h);
 * the builder's running sums are not read. */
static void add_row(const sporf_task_state *t, int32_t id, double w, double *acc)
{
    (void)t, (void)id, (void)w, (void)acc;
}

/* A kept node: its risk, then its survival at the grid's times (the
 * leaf-size choice's Brier scores read them). */
static int32_t node_width(const sporf_task_state *t)
{
    return 1 + t->surv->n_grid;
}

static void node_value(const sporf_task_state *t, const sporf_node_stats *st, double w_root, double *out)
{
    (void)w_root;
    out[0] = st->risk;
    memcpy(out + 1, t->surv->curve, (size_t)t->surv->n_grid * sizeof *out);
}

static void empty(const sporf_task_state *t, double *out)
{
    (void)t;
    out[0] = 0.0;
}

static void guide_target(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, int32_t f, double sign,
                         double threshold, int missing_left, double *out)
{
    sporf_task_regression.guide_target(t, r, start, end, f, sign, threshold, missing_left, out);
}

static int32_t hist_width(int32_t n_classes)
{
    return sporf_task_regression.hist_width(n_classes);
}

static void hist_prepare(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, const sporf_node_stats *st)
{
    t->surv->hist_node = 1;
    sporf_task_regression.hist_prepare(t, r, start, end, st);
}

static int hist_scan(sporf_task_state *t, const sporf_rows *r, int64_t start, int64_t end, const sporf_node_stats *st,
                     sporf_best_split *best)
{
    return sporf_task_regression.hist_scan(t, r, start, end, st, best);
}

const sporf_task sporf_task_survival = {node_stats, scan,       gain,         leaf,     add_row, empty,
                                        guide_target, hist_width, hist_prepare, hist_scan, node_width,
                                        node_value, 0, state_init, state_free};
