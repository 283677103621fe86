/* survival.c -- survival and cumulative hazard curves of a survival forest
 * (sporf.h, sporf_forest_predict_survival; what a leaf holds:
 * model/survival.h), and what its intervals read of them.
 *
 * Each tree's leaf gives its Kaplan-Meier S(t) or Nelson-Aalen H(t) at the
 * asked times, from its own rows' hazard steps; the forest's curve is the
 * mean over the trees that answer (an honest leaf without rows abstains). A
 * row on which every tree abstains gets the curve of all the training rows.
 * Sums run in tree order, whatever the thread count.
 *
 * The leaves' steps are computed once per call, for a group of trees at a
 * time (a leaf may hold hundreds of censored rows but has a step only at
 * each of its event times), and the rows then add their leaves' curves,
 * tree by tree: a row's sums keep the tree order, so the result is the
 * same for any thread count and group size. */
#include "predict/predict.h"
#include "model/survival.h"
#include "util/matrix.h"
#include "util/pool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rows per pass: their leaf indices (rows x trees int64) and their sums
 * stay below about 32 MB each. */
#define PASS_BYTES ((int64_t)32 << 20)
/* The leaves' steps of a group of trees stay below about 64 MB. */
#define CACHE_BYTES ((int64_t)64 << 20)
/* Rows per unit of the threads' work. */
#define UNIT_ROWS 16

/* The hazard steps of every leaf of trees t0 .. t1 - 1: tree t's leaf l has
 * steps off[t - t0][l] .. off[t - t0][l + 1] - 1 of time, h and (its index
 * among the forest's event times) pos, within the tree's stretch. */
typedef struct leaf_steps {
    int64_t t0, t1;
    int64_t **off;   /* per tree: n_leaves + 1 offsets (into offsets) */
    int64_t *offsets;
    double *time, *h;
    int32_t *pos;
    int64_t *base;   /* per tree: where its stretch starts */
} leaf_steps;

/* What a pass computes for each row: its curve at the asked times; its
 * survival just before and at its own time (row_times: conformity scores);
 * or the times at which its survival curve crosses two levels (levels:
 * interval ends, from the curve at the forest's event times, summed as
 * its steps' changes at their event times). */
typedef struct surv_ctx {
    const sporf_forest *f;
    const int64_t *leaves;     /* rows x n_trees stored node indices of this pass */
    int64_t r0, nrow;          /* the pass's rows within X */
    const uint8_t *inbag;      /* out of bag: the trees' in-bag bitmaps; else NULL */
    int64_t bitmap_bytes;
    const double *times;       /* the asked times, in the caller's order (levels: the event times) */
    const int64_t *by_time;    /* their indices, ascending by time */
    int64_t n_times;
    int32_t what;              /* SPORF_SURVIVAL_FUNCTION, SPORF_CUMULATIVE_HAZARD or SPORF_RESTRICTED_MEAN */
    const double *row_times;   /* X's rows' own times, or NULL */
    const double *levels;      /* two levels in [0, 1], or NULL */
    int64_t width;             /* sums per row: n_times, or 2 for own times */
    double *out;               /* X's rows x n_times (x 2 with row_times or levels) */
    leaf_steps steps;          /* the current group of trees' */
    const double *all_steps;   /* every training row's hazard steps: times, then h (2 x qrf_n) */
    int64_t n_all_steps;
    double *acc;               /* the pass's rows x width sums */
    int64_t *seen, *answered;  /* the pass's rows: trees met (out of bag) and trees that answered */
} surv_ctx;

/* Add the curve of the hazard steps (time[], h[], k of them) at the n asked
 * times (their indices ascending by time: by_time) to acc: S, H, or the
 * area under S from 0 to each time (the restricted mean), taken segment by
 * segment. */
static void add_curve(int32_t what, const double *times, const int64_t *by_time, int64_t n, const double *time,
                      const double *h, int64_t k, double *acc)
{
    if (what == SPORF_RESTRICTED_MEAN) {
        double S = 1.0, area = 0.0, last = 0.0;
        int64_t s = 0;
        for (int64_t j = 0; j < n; j++) {
            const int64_t at = by_time[j];
            while (s < k && time[s] < times[at]) {
                area += S * (time[s] - last);
                last = time[s];
                S *= 1.0 - h[s];
                s++;
            }
            acc[at] += area + S * (times[at] - last);
        }
        return;
    }
    double H = 0.0, S = 1.0;
    int64_t s = 0;
    for (int64_t j = 0; j < n; j++) {
        const int64_t at = by_time[j];
        while (s < k && time[s] <= times[at]) {
            H += h[s];
            S *= 1.0 - h[s];
            s++;
        }
        acc[at] += what == SPORF_SURVIVAL_FUNCTION ? S : H;
    }
}

/* The index of event time t among the ascending e[0..E) (t is one of them). */
static int32_t event_index(const double *e, int64_t E, double t)
{
    int64_t lo = 0, hi = E;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (e[mid] < t) lo = mid + 1;
        else hi = mid;
    }
    return (int32_t)lo;
}

static const int64_t two_by_time[2] = {0, 1};

/* Add one curve (k steps; pos their event indices, or NULL to look them up)
 * to a row's sums: at the asked times, at the row's own two times, or as
 * the survival's change at each event time (levels). */
static void add_leaf(const surv_ctx *c, const double *time, const double *h, const int32_t *pos, int64_t k,
                     const double *own, double *acc)
{
    if (c->levels) {
        double S = 1.0;
        for (int64_t s = 0; s < k; s++) {
            const double next = S * (1.0 - h[s]);
            acc[pos ? pos[s] : event_index(c->times, c->n_times, time[s])] += next - S;
            S = next;
        }
    } else if (own) {
        add_curve(c->what, own, two_by_time, 2, time, h, k, acc);
    } else {
        add_curve(c->what, c->times, c->by_time, c->n_times, time, h, k, acc);
    }
}

/* The time at which the survival curve S (at the ascending event times
 * e[0..E)) first reaches F = 1 - S >= level: 0 for a level of 0, the last
 * event time when the curve stays above 1 - level for the lower end (the
 * time lies past it) and infinity for the upper end. */
static double crossing(const double *S, const double *e, int64_t E, double level, int upper)
{
    if (level <= 0.0)
        return 0.0;
    for (int64_t j = 0; j < E; j++)
        if (1.0 - S[j] >= level)
            return e[j];
    return upper || E == 0 ? INFINITY : e[E - 1];
}

/* A row's own two times: just before its time, and its time. */
static void own_times(const surv_ctx *c, int64_t row, double *own)
{
    own[0] = nextafter(c->row_times[row], -INFINITY);
    own[1] = c->row_times[row];
}

/* One row's answer from its trees' summed curves acc: the mean curve, the
 * crossings of the levels, or its survival before and at its own time. */
static void row_answer(const surv_ctx *c, int64_t q, double *out)
{
    double *acc = c->acc + q * c->width;
    int64_t answered = c->answered[q];
    const int64_t n_out = c->levels ? 2 : c->width;
    if (c->seen[q] == 0) { /* out of bag and in every tree's bag */
        for (int64_t j = 0; j < n_out; j++) out[j] = NAN;
        return;
    }
    if (answered == 0) { /* every tree abstained: the training rows' curve */
        double own[2];
        if (c->row_times) own_times(c, c->r0 + q, own);
        add_leaf(c, c->all_steps, c->all_steps + c->f->qrf_n, NULL, c->n_all_steps, c->row_times ? own : NULL, acc);
        answered = 1;
    }
    if (c->levels) { /* the mean survival at each event time, from the summed changes */
        double cum = 0.0;
        for (int64_t j = 0; j < c->width; j++) {
            cum += acc[j];
            acc[j] = ((double)answered + cum) / (double)answered;
        }
        out[0] = crossing(acc, c->times, c->n_times, c->levels[0], 0);
        out[1] = crossing(acc, c->times, c->n_times, c->levels[1], 1);
        return;
    }
    for (int64_t j = 0; j < c->width; j++) out[j] = acc[j] / (double)answered;
}

/* The rows of one unit add the leaves of the group's trees they reach. */
static int rows_unit(void *vctx, int64_t unit, int32_t worker, sporf_pool_ctl *ctl, sporf_error *err)
{
    (void)worker, (void)ctl, (void)err;
    const surv_ctx *c = vctx;
    const sporf_forest *f = c->f;
    const leaf_steps *ls = &c->steps;
    const int64_t T = f->n_trees, first = unit * UNIT_ROWS;
    const int64_t last = first + UNIT_ROWS < c->nrow ? first + UNIT_ROWS : c->nrow;
    for (int64_t q = first; q < last; q++) {
        const int64_t row = c->r0 + q;
        double *acc = c->acc + q * c->width, own[2];
        if (c->row_times) own_times(c, row, own);
        for (int64_t t = ls->t0; t < ls->t1; t++) {
            if (c->inbag && (c->inbag[t * c->bitmap_bytes + (row >> 3)] & (1u << (row & 7))))
                continue;
            c->seen[q]++;
            const sporf_tree *tr = &f->trees[t];
            const int32_t slot = tr->nodes[c->leaves[q * T + t]].right;
            if (tr->leaf_start[slot + 1] == tr->leaf_start[slot])
                continue; /* an honest leaf without rows abstains */
            const int64_t *off = ls->off[t - ls->t0], at = ls->base[t - ls->t0] + off[slot];
            add_leaf(c, ls->time + at, ls->h + at, ls->pos + at, off[slot + 1] - off[slot],
                     c->row_times ? own : NULL, acc);
            c->answered[q]++;
        }
        if (ls->t1 == T)
            row_answer(c, q, c->out + row * (c->levels ? 2 : c->width));
    }
    return SPORF_OK;
}

/* One tree of the group: its leaves' steps, each leaf's at the offsets. */
static int steps_unit(void *vctx, int64_t unit, int32_t worker, sporf_pool_ctl *ctl, sporf_error *err)
{
    (void)worker, (void)ctl, (void)err;
    const surv_ctx *c = vctx;
    const leaf_steps *ls = &c->steps;
    const sporf_tree *tr = &c->f->trees[ls->t0 + unit];
    int64_t *off = ls->off[unit];
    double *time = ls->time + ls->base[unit], *h = ls->h + ls->base[unit];
    int32_t *pos = ls->pos + ls->base[unit];
    off[0] = 0;
    for (int32_t l = 0; l < tr->n_leaves; l++) {
        const int32_t lo = tr->leaf_start[l], m = tr->leaf_start[l + 1] - lo;
        const int64_t k = sporf_surv_leaf_steps(c->f, tr->leaf_rank + lo, m, time + off[l], h + off[l]);
        for (int64_t s = 0; c->levels && s < k; s++)
            pos[off[l] + s] = event_index(c->times, c->n_times, time[off[l] + s]);
        off[l + 1] = off[l] + k;
    }
    return SPORF_OK;
}

typedef struct indexed_time {
    double time;
    int64_t at;
} indexed_time;

static int by_time_then_index(const void *a, const void *b)
{
    const indexed_time *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* The asked times' indices by ascending time (ties in the caller's order). */
static int sort_times(const double *times, int64_t n, int64_t *by_time)
{
    indexed_time *t = malloc((size_t)n * sizeof *t);
    if (!t)
        return 0;
    for (int64_t k = 0; k < n; k++) t[k] = (indexed_time){times[k], k};
    qsort(t, (size_t)n, sizeof *t, by_time_then_index);
    for (int64_t k = 0; k < n; k++) by_time[k] = t[k].at;
    free(t);
    return 1;
}

static int check_request(const sporf_forest *f, const sporf_matrix *X, const double *times, int64_t n_times,
                         int32_t what, sporf_error *err)
{
    if (f->task != SPORF_TASK_SURVIVAL || !f->qrf_event)
        return sporf_set_error(err, SPORF_E_ARG, "survival curves are for survival forests");
    if (what != SPORF_SURVIVAL_FUNCTION && what != SPORF_CUMULATIVE_HAZARD && what != SPORF_RESTRICTED_MEAN)
        return sporf_set_error(err, SPORF_E_ARG, "survival curves: unknown curve %d", (int)what);
    if (!times || n_times < 1)
        return sporf_set_error(err, SPORF_E_ARG, "survival curves: at least one time is required");
    for (int64_t k = 0; k < n_times; k++)
        if (!isfinite(times[k]) || (what == SPORF_RESTRICTED_MEAN && times[k] < 0.0))
            return sporf_set_error(err, SPORF_E_ARG, "survival curves: time %lld is not a finite number%s",
                                   (long long)k, what == SPORF_RESTRICTED_MEAN ? " >= 0" : "");
    return sporf_check_query(f, X, err);
}

/* Every training row's hazard steps (the ranks all at once): 2 x qrf_n
 * doubles, times then h, malloc'ed; NULL when out of memory. */
static double *training_steps(const sporf_forest *f, int64_t *k)
{
    const int64_t n = f->qrf_n;
    int32_t *all = malloc((size_t)(n > 0 ? n : 1) * sizeof *all);
    double *steps = malloc((size_t)(2 * (n > 0 ? n : 1)) * sizeof *steps);
    if (all && steps) {
        for (int64_t r = 0; r < n; r++) all[r] = (int32_t)r;
        *k = sporf_surv_leaf_steps(f, all, n, steps, steps + n);
    }
    free(all);
    if (!all) {
        free(steps);
        return NULL;
    }
    return steps;
}

/* The end of the group of trees from t0 whose leaves' steps (at most a
 * step per leaf row: 20 bytes) fit CACHE_BYTES; at least one tree. */
static int64_t group_end(const sporf_forest *f, int64_t t0)
{
    int64_t bytes = 0, t = t0;
    do {
        const sporf_tree *tr = &f->trees[t];
        bytes += 20 * (int64_t)tr->leaf_start[tr->n_leaves] + 8 * ((int64_t)tr->n_leaves + 1);
        t++;
    } while (t < f->n_trees && bytes < CACHE_BYTES);
    return t;
}

/* The leaves' steps of trees t0 .. t1 - 1 into c->steps (allocated here,
 * freed by free_steps), on the threads. */
static int build_steps(surv_ctx *c, int64_t t0, int64_t t1, int32_t n_jobs, sporf_error *err)
{
    leaf_steps *ls = &c->steps;
    const int64_t n = t1 - t0;
    int64_t ranks = 0, leaves = 0;
    for (int64_t t = t0; t < t1; t++) {
        ranks += c->f->trees[t].leaf_start[c->f->trees[t].n_leaves];
        leaves += c->f->trees[t].n_leaves + 1;
    }
    *ls = (leaf_steps){t0, t1, malloc((size_t)n * sizeof *ls->off), malloc((size_t)leaves * sizeof *ls->offsets),
                       malloc((size_t)(ranks + 1) * sizeof *ls->time), malloc((size_t)(ranks + 1) * sizeof *ls->h),
                       malloc((size_t)(ranks + 1) * sizeof *ls->pos), malloc((size_t)n * sizeof *ls->base)};
    if (!ls->off || !ls->offsets || !ls->time || !ls->h || !ls->pos || !ls->base)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory for survival curves");
    for (int64_t t = t0, r = 0, l = 0; t < t1; t++) {
        ls->off[t - t0] = ls->offsets + l;
        ls->base[t - t0] = r;
        r += c->f->trees[t].leaf_start[c->f->trees[t].n_leaves];
        l += c->f->trees[t].n_leaves + 1;
    }
    return sporf_pool_run(sporf_pool_threads(n_jobs, n), n, steps_unit, c, NULL, NULL, err);
}

static void free_steps(leaf_steps *ls)
{
    free(ls->off);
    free(ls->offsets);
    free(ls->time);
    free(ls->h);
    free(ls->pos);
    free(ls->base);
    memset(ls, 0, sizeof *ls);
}

/* The passes over X's rows: each pass's leaves, then for each group of
 * trees their leaves' steps (once, when one group holds every tree) and
 * the rows adding them, on the threads. c holds what to compute
 * (surv_ctx); the rest is set here. */
static int survival_passes(surv_ctx *c, const sporf_matrix *X, int32_t n_jobs, sporf_error *err)
{
    const sporf_forest *f = c->f;
    const int64_t T = f->n_trees;
    int64_t pass = PASS_BYTES / (T * (int64_t)sizeof(int64_t));
    const int64_t by_sums = PASS_BYTES / ((c->width + 2) * (int64_t)sizeof(double));
    if (by_sums < pass) pass = by_sums;
    if (pass < UNIT_ROWS) pass = UNIT_ROWS;
    if (pass > X->nrow) pass = X->nrow;
    const int32_t threads = sporf_pool_threads(n_jobs, (pass + UNIT_ROWS - 1) / UNIT_ROWS);
    int64_t *leaves = malloc((size_t)(pass * T) * sizeof *leaves);
    double *acc = malloc((size_t)(pass * c->width) * sizeof *acc);
    int64_t *counts = malloc((size_t)(2 * pass) * sizeof *counts);
    double *all_steps = training_steps(f, &c->n_all_steps);
    int rc = leaves && acc && counts && all_steps ? SPORF_OK
                                                 : sporf_set_error(err, SPORF_E_NOMEM, "out of memory for survival "
                                                                                         "curves");
    c->leaves = leaves;
    c->acc = acc;
    c->seen = counts;
    c->answered = counts ? counts + pass : NULL;
    c->all_steps = all_steps;
    c->bitmap_bytes = (X->nrow + 7) / 8;
    const int one_group = group_end(f, 0) == T;
    if (rc == SPORF_OK && one_group)
        rc = build_steps(c, 0, T, n_jobs, err);
    for (int64_t r0 = 0; r0 < X->nrow && rc == SPORF_OK; r0 += pass) {
        const int64_t nrow = r0 + pass < X->nrow ? pass : X->nrow - r0;
        const int64_t off = r0 * X->row_stride;
        const sporf_matrix part = {X->data ? X->data + off : NULL, nrow, X->ncol, X->row_stride, X->col_stride,
                                   X->data32 ? X->data32 + off : NULL};
        if ((rc = sporf_forest_apply(f, &part, n_jobs, leaves, NULL, NULL, err)) != SPORF_OK)
            break;
        c->r0 = r0;
        c->nrow = nrow;
        memset(acc, 0, (size_t)(nrow * c->width) * sizeof *acc);
        memset(counts, 0, (size_t)(2 * pass) * sizeof *counts);
        for (int64_t t0 = 0; t0 < T && rc == SPORF_OK;) {
            const int64_t t1 = one_group ? T : group_end(f, t0);
            if (!one_group) {
                free_steps(&c->steps);
                rc = build_steps(c, t0, t1, n_jobs, err);
            }
            if (rc == SPORF_OK)
                rc = sporf_pool_run(threads, (nrow + UNIT_ROWS - 1) / UNIT_ROWS, rows_unit, c, NULL, NULL, err);
            t0 = t1;
        }
    }
    free_steps(&c->steps);
    free(all_steps);
    free(counts);
    free(acc);
    free(leaves);
    return rc;
}

int sporf_forest_survival(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag, const double *times,
                          int64_t n_times, int32_t what, int32_t n_jobs, double *out, sporf_error *err)
{
    int rc = check_request(f, X, times, n_times, what, err);
    if (rc != SPORF_OK || X->nrow == 0)
        return rc;
    int64_t *by_time = malloc((size_t)n_times * sizeof *by_time);
    if (!by_time || !sort_times(times, n_times, by_time)) {
        free(by_time);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory for survival curves");
    }
    surv_ctx c = {.f = f, .inbag = inbag, .times = times, .by_time = by_time, .n_times = n_times, .what = what,
                  .width = n_times, .out = out};
    rc = survival_passes(&c, X, n_jobs, err);
    free(by_time);
    return rc;
}

int sporf_forest_survival_own_times(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag,
                                    const double *row_times, int32_t n_jobs, double *out, sporf_error *err)
{
    const double one = 0.0;
    int rc = check_request(f, X, &one, 1, SPORF_SURVIVAL_FUNCTION, err);
    if (rc != SPORF_OK || X->nrow == 0)
        return rc;
    surv_ctx c = {.f = f, .inbag = inbag, .what = SPORF_SURVIVAL_FUNCTION, .row_times = row_times, .width = 2,
                  .out = out};
    return survival_passes(&c, X, n_jobs, err);
}

int sporf_forest_survival_crossings(const sporf_forest *f, const sporf_matrix *X, const double *levels,
                                    int32_t n_jobs, double *out, sporf_error *err)
{
    const double one = 0.0;
    int rc = check_request(f, X, &one, 1, SPORF_SURVIVAL_FUNCTION, err);
    if (rc != SPORF_OK || X->nrow == 0)
        return rc;
    /* the curve at the forest's event times, where it steps */
    double *e = malloc((size_t)(f->qrf_n > 0 ? f->qrf_n : 1) * sizeof *e);
    if (!e)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory for survival intervals");
    const int64_t E = sporf_surv_event_times(f, e);
    surv_ctx c = {.f = f, .times = e, .n_times = E, .what = SPORF_SURVIVAL_FUNCTION, .levels = levels,
                  .width = E > 0 ? E : 1, .out = out};
    rc = survival_passes(&c, X, n_jobs, err);
    free(e);
    return rc;
}

int sporf_forest_predict_survival(const sporf_forest *f, const sporf_matrix *X, const double *times,
                                  int64_t n_times, int32_t what, int32_t n_jobs, double *out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !X || !out)
        return sporf_set_error(err, SPORF_E_ARG, "predict_survival: forest, X and out are required");
    return sporf_forest_survival(f, X, NULL, times, n_times, what, n_jobs, out, err);
}

int sporf_forest_unique_times(const sporf_forest *f, double *times, int32_t *is_event, int64_t cap, int64_t *n_out,
                              sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !n_out)
        return sporf_set_error(err, SPORF_E_ARG, "unique_times: forest and n_out are required");
    if (f->task != SPORF_TASK_SURVIVAL || !f->qrf_event)
        return sporf_set_error(err, SPORF_E_ARG, "unique_times: this is not a survival forest");
    int64_t k = 0;
    for (int64_t r = 0; r < f->qrf_n; r++) {
        const int fresh = r == 0 || f->qrf_y[r] != f->qrf_y[r - 1];
        if (fresh) k++;
        if (!times)
            continue;
        if (k > cap)
            return sporf_set_error(err, SPORF_E_ARG, "unique_times: room for %lld times, the forest has more",
                                   (long long)cap);
        if (fresh) {
            times[k - 1] = f->qrf_y[r];
            if (is_event) is_event[k - 1] = 0;
        }
        if (is_event && f->qrf_event[r]) is_event[k - 1] = 1;
    }
    *n_out = k;
    return SPORF_OK;
}
