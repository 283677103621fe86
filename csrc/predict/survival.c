/* survival.c -- survival and cumulative hazard curves of a survival forest
 * (sporf.h, sporf_forest_predict_survival; what a leaf holds:
 * model/survival.h).
 *
 * Each tree's leaf gives its Kaplan-Meier S(t) or Nelson-Aalen H(t) at the
 * asked times, from its own rows' hazard steps; the forest's curve is the
 * mean over the trees that answer (an honest leaf without rows abstains). A
 * row on which every tree abstains gets the curve of all the training rows.
 * Sums run in tree order, whatever the thread count. */
#include "predict/predict.h"
#include "model/survival.h"
#include "util/matrix.h"
#include "util/pool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rows per apply pass: their leaf indices (rows x trees int64) stay below
 * about 32 MB. */
#define LEAF_BYTES ((int64_t)32 << 20)
/* Rows per unit of the threads' work. */
#define UNIT_ROWS 16

/* What a pass computes for each row: its curve at the asked times; its
 * survival just before and at its own time (row_times: conformity scores);
 * or the times at which its survival curve crosses two levels (levels:
 * interval ends, from the curve at the forest's event times). */
typedef struct surv_ctx {
    const sporf_forest *f;
    const int64_t *leaves;     /* rows x n_trees stored node indices of this pass */
    int64_t r0, nrow;          /* the pass's rows within X */
    const uint8_t *inbag;      /* out of bag: the trees' in-bag bitmaps; else NULL */
    int64_t bitmap_bytes;
    const double *times;       /* the asked times, in the caller's order */
    const int64_t *by_time;    /* their indices, ascending by time */
    int64_t n_times;
    int32_t what;              /* SPORF_SURVIVAL_FUNCTION, SPORF_CUMULATIVE_HAZARD or SPORF_RESTRICTED_MEAN */
    const double *all_steps;   /* every training row's hazard steps: times, then h (2 x qrf_n) */
    int64_t n_all_steps;
    const double *row_times;   /* X's rows' own times, or NULL */
    const double *levels;      /* two levels in [0, 1], or NULL */
    double *out;               /* X's rows x n_times (x 2 with row_times or levels) */
    double **scratch;          /* per worker: n_times sums, then 2 x the largest leaf's steps */
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

static const int64_t two_by_time[2] = {0, 1};

/* One row's answer from its trees' summed curves acc (answered of seen
 * trees): the mean curve, or the crossings of the levels, or its survival
 * before and at its own time. */
static void row_answer(const surv_ctx *c, double *acc, int64_t seen, int64_t answered, const double *own, double *out)
{
    if (seen == 0) { /* out of bag and in every tree's bag */
        for (int64_t j = 0; j < (c->levels || c->row_times ? 2 : c->n_times); j++) out[j] = NAN;
        return;
    }
    const int64_t n = c->row_times ? 2 : c->n_times;
    if (answered == 0) { /* every tree abstained: the training rows' curve */
        add_curve(c->what, own ? own : c->times, own ? two_by_time : c->by_time, n, c->all_steps,
                  c->all_steps + c->f->qrf_n, c->n_all_steps, acc);
        answered = 1;
    }
    for (int64_t j = 0; j < n; j++) acc[j] /= (double)answered;
    if (c->levels) {
        out[0] = crossing(acc, c->times, c->n_times, c->levels[0], 0);
        out[1] = crossing(acc, c->times, c->n_times, c->levels[1], 1);
    } else {
        memcpy(out, acc, (size_t)n * sizeof *out);
    }
}

static int survival_unit(void *vctx, int64_t unit, int32_t worker, sporf_pool_ctl *ctl, sporf_error *err)
{
    (void)ctl, (void)err;
    const surv_ctx *c = vctx;
    const sporf_forest *f = c->f;
    const int64_t T = f->n_trees;
    double *acc = c->scratch[worker], *steps = acc + c->n_times;
    const int64_t first = unit * UNIT_ROWS;
    const int64_t last = first + UNIT_ROWS < c->nrow ? first + UNIT_ROWS : c->nrow;
    const int64_t n = c->row_times ? 2 : c->n_times, width = c->levels || c->row_times ? 2 : c->n_times;
    for (int64_t q = first; q < last; q++) {
        const int64_t row = c->r0 + q;
        double *out = c->out + row * width;
        /* a row's own time: its curve just before it and at it */
        const double own[2] = {c->row_times ? nextafter(c->row_times[row], -INFINITY) : 0.0,
                               c->row_times ? c->row_times[row] : 0.0};
        memset(acc, 0, (size_t)n * sizeof *acc);
        int64_t seen = 0, answered = 0;
        for (int64_t t = 0; t < T; t++) {
            if (c->inbag && (c->inbag[t * c->bitmap_bytes + (row >> 3)] & (1u << (row & 7))))
                continue;
            seen++;
            const sporf_tree *tr = &f->trees[t];
            const int32_t slot = tr->nodes[c->leaves[q * T + t]].right;
            const int32_t lo = tr->leaf_start[slot], m = tr->leaf_start[slot + 1] - lo;
            if (m == 0)
                continue; /* an honest leaf without rows abstains */
            const int64_t k = sporf_surv_leaf_steps(f, tr->leaf_rank + lo, m, steps, steps + m);
            if (c->row_times)
                add_curve(c->what, own, two_by_time, 2, steps, steps + m, k, acc);
            else
                add_curve(c->what, c->times, c->by_time, c->n_times, steps, steps + m, k, acc);
            answered++;
        }
        row_answer(c, acc, seen, answered, c->row_times ? own : NULL, out);
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

/* The most rows a leaf of f holds. */
static int64_t largest_leaf(const sporf_forest *f)
{
    int64_t most = 1;
    for (int64_t t = 0; t < f->n_trees; t++) {
        const sporf_tree *tr = &f->trees[t];
        for (int32_t l = 0; l < tr->n_leaves; l++)
            if (tr->leaf_start[l + 1] - tr->leaf_start[l] > most)
                most = tr->leaf_start[l + 1] - tr->leaf_start[l];
    }
    return most;
}

/* Every training row's hazard steps (the ranks all at once): 2 x qrf_n
 * doubles, times then h, malloc'ed; NULL when out of memory. */
static double *training_steps(const sporf_forest *f, int64_t *k)
{
    const int64_t n = f->qrf_n;
    int32_t *all = malloc((size_t)n * sizeof *all);
    double *steps = malloc((size_t)(2 * n) * sizeof *steps);
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

/* The passes over X's rows (blocks whose leaf indices stay small): each
 * block's leaves, then its rows in units on the threads. c holds what to
 * compute (surv_ctx); its leaves, scratch and steps are set here. */
static int survival_passes(surv_ctx *c, const sporf_matrix *X, int32_t n_jobs, sporf_error *err)
{
    const sporf_forest *f = c->f;
    const int64_t T = f->n_trees;
    int64_t pass = LEAF_BYTES / (T * (int64_t)sizeof(int64_t));
    if (pass < UNIT_ROWS) pass = UNIT_ROWS;
    if (pass > X->nrow) pass = X->nrow;
    const int32_t threads = sporf_pool_threads(n_jobs, (pass + UNIT_ROWS - 1) / UNIT_ROWS);
    const int64_t room = (c->row_times ? 2 : c->n_times) + 2 * largest_leaf(f);
    int64_t *leaves = malloc((size_t)(pass * T) * sizeof *leaves);
    double **scratch = calloc((size_t)threads, sizeof *scratch);
    double *all_steps = training_steps(f, &c->n_all_steps);
    int ok = leaves && scratch && all_steps;
    for (int32_t w = 0; ok && w < threads; w++)
        ok = (scratch[w] = malloc((size_t)room * sizeof **scratch)) != NULL;
    int rc = ok ? SPORF_OK : sporf_set_error(err, SPORF_E_NOMEM, "out of memory for survival curves");
    c->leaves = leaves;
    c->scratch = scratch;
    c->all_steps = all_steps;
    c->bitmap_bytes = (X->nrow + 7) / 8;
    for (int64_t r0 = 0; r0 < X->nrow && rc == SPORF_OK; r0 += pass) {
        const int64_t nrow = r0 + pass < X->nrow ? pass : X->nrow - r0;
        const int64_t off = r0 * X->row_stride;
        const sporf_matrix part = {X->data ? X->data + off : NULL, nrow, X->ncol, X->row_stride, X->col_stride,
                                   X->data32 ? X->data32 + off : NULL};
        if ((rc = sporf_forest_apply(f, &part, n_jobs, leaves, NULL, NULL, err)) != SPORF_OK)
            break;
        c->r0 = r0;
        c->nrow = nrow;
        rc = sporf_pool_run(threads, (nrow + UNIT_ROWS - 1) / UNIT_ROWS, survival_unit, c, NULL, NULL, err);
    }
    for (int32_t w = 0; scratch && w < threads; w++) free(scratch[w]);
    free(scratch);
    free(all_steps);
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
                  .out = out};
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
    surv_ctx c = {.f = f, .inbag = inbag, .n_times = 2, .what = SPORF_SURVIVAL_FUNCTION, .row_times = row_times,
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
    int64_t *by_time = malloc((size_t)(f->qrf_n > 0 ? f->qrf_n : 1) * sizeof *by_time);
    if (!e || !by_time) {
        free(e);
        free(by_time);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory for survival intervals");
    }
    const int64_t E = sporf_surv_event_times(f, e);
    for (int64_t j = 0; j < E; j++) by_time[j] = j;
    surv_ctx c = {.f = f, .times = e, .by_time = by_time, .n_times = E, .what = SPORF_SURVIVAL_FUNCTION,
                  .levels = levels, .out = out};
    rc = survival_passes(&c, X, n_jobs, err);
    free(e);
    free(by_time);
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
