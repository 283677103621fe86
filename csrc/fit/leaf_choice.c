/* leaf_choice.c -- see leaf_choice.h. */
#include "fit/leaf_choice.h"

#include "fit/task.h"
#include "model/params.h"
#include "model/survival.h"
#include "predict/traverse.h"
#include "util/exact.h"
#include "util/pool.h"
#include "util/sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const int64_t sporf_leaf_sizes[SPORF_LEAF_SIZES] = {1, 2, 3, 5, 8, 13, 21};

/* Rows per unit of work: the losses of a block join in block order. */
#define LEAF_CHOICE_BLOCK 256

/* A block's statistics: each candidate's loss, and for a forest choosing its
 * kinds, each kind alone's squared differences from all the trees' loss at
 * the same size, their products with the rows' weights, and the weights'
 * squares (the differences' standard errors, sporf_leaf_scores). */
#define BLOCK_STATS (3 * SPORF_LEAF_SCORES + 1)

/* The sums' headroom: 2^scale times any value stays below 2^SUMS_BITS, so
 * 2^30 trees' sums stay below 2^126. */
#define SUMS_BITS 96

int32_t sporf_leaf_sizes_first(const sporf_forest *f)
{
    int32_t j = 0;
    while (j + 1 < SPORF_LEAF_SIZES && sporf_leaf_sizes[j] < f->leaf_grown) j++;
    return j;
}

int32_t sporf_leaf_sizes_end(const sporf_forest *f)
{
    return f->task == SPORF_TASK_CLASSIFICATION ? SPORF_LEAF_SIZES - 2 : SPORF_LEAF_SIZES;
}

int32_t sporf_leaf_sums_width(const sporf_forest *f)
{
    if (f->task != SPORF_TASK_SURVIVAL)
        return f->n_classes;
    /* a node's risk, then its curve at the grid's times (fewer than
     * SPORF_SURV_GRID when the rows have fewer distinct event times) */
    return f->n_trees > 0 && f->trees[0].node_width > 1 ? f->trees[0].node_width - 1 : 0;
}

int sporf_leaf_chooses_kinds(const sporf_forest *f) { return sporf_params_chooses_kinds(&f->params); }

int32_t sporf_leaf_record_width(const sporf_forest *f)
{
    const int32_t V = sporf_leaf_sums_width(f);
    return sporf_leaf_chooses_kinds(f) ? 4 * V + 1 : V;
}

double sporf_leaf_response_max(const double *values, int64_t n)
{
    double m = 0.0;
    for (int64_t i = 0; values && i < n; i++)
        if (fabs(values[i]) > m) m = fabs(values[i]);
    return m;
}

int32_t sporf_leaf_sums_scale(const sporf_forest *f, double response_max)
{
    if (f->task != SPORF_TASK_REGRESSION || !(response_max > 0.0) || !isfinite(response_max))
        return SUMS_BITS;
    int e;
    frexp(response_max, &e); /* response_max < 2^e */
    return SUMS_BITS - e;
}

/* ---- the passes over blocks of rows ---- */

typedef struct leaf_ctx {
    const sporf_forest *f;
    const sporf_matrix *X;     /* the rows the sums are computed for (NULL: they are given) */
    const uint8_t *inbag;
    int64_t bitmap_bytes;
    int32_t j0, j1, V, off;    /* the sizes summed [j0, j1), values per size, first value summed */
    int32_t R;                 /* words of a row's record per size: V, or for a forest choosing its
                                  kinds of trees 4 V + 1 (each kind's sums and sums of squares,
                                  then the random-cut trees' count) */
    int kinds;                 /* 2: the forest chooses among its two kinds of trees (splitter "auto") */
    int64_t kind_trees[2];     /* the forest's trees of each kind */
    int32_t scale;
    uint64_t *sums;            /* nrow x (j1 - j0) x V exact sums, 2 words each (given or written) */
    int64_t *count;
    int score;                 /* 1: each block's losses too, against p's response */
    const sporf_leaf_pending *p;
    const int32_t *out_classes; /* classification: each output's classes (K for one output) */
    double *out_weight;        /* regression with several outputs: each one's weight, or NULL */
    double *class_w;           /* classification: each class's weight, 1 / its rows' weight */
    /* survival: the grid of times the curves are scored at, the censoring
     * distribution's survival G there and each event row's G just before
     * its time (the Brier score's inverse-probability-of-censoring weights) */
    int32_t n_grid;
    double grid[SPORF_SURV_GRID], g_grid[SPORF_SURV_GRID];
    double *g_row;
    double *block_loss;        /* n_blocks x BLOCK_STATS */
    double **target;           /* two kinds: per worker 2 V doubles, a row's weights and targets */
    double *block_weight;      /* n_blocks */
    void **scratch;            /* per worker: a block's sums and counts, a block of float rows as doubles */
} leaf_ctx;

/* The rows of a block as doubles: pointers into X, or the block's rows
 * copied into buf (float data); *cs their column stride. */
static void block_rows(const sporf_matrix *X, int64_t r0, int64_t r1, double *buf, const double **rows, int64_t *cs)
{
    const int64_t p = X->ncol;
    for (int64_t r = r0; r < r1; r++) {
        if (!X->data32) {
            rows[r - r0] = X->data + r * X->row_stride;
            continue;
        }
        double *row = buf + (r - r0) * p;
        for (int64_t j = 0; j < p; j++)
            row[j] = (double)X->data32[r * X->row_stride + j * X->col_stride];
        rows[r - r0] = row;
    }
    *cs = X->data32 ? 1 : X->col_stride;
}

/* A block's sums (rows r0..r1): every tree in turn walks the block's rows
 * out of its bag (so a tree's nodes stay in the cache while it walks them),
 * adding to each row's sums the values of its deepest node of each size. */
static void block_sums(const leaf_ctx *c, int64_t r0, int64_t r1, double *buf, sporf_exact *sums, int64_t *count)
{
    const sporf_forest *f = c->f;
    const int32_t S = SPORF_LEAF_SIZES, W = (c->j1 - c->j0) * c->R, V = c->V;
    const int qscale = 2 * c->scale - SUMS_BITS; /* a square's: 2^qscale v^2 < 2^SUMS_BITS */
    const double *rows[LEAF_CHOICE_BLOCK];
    int64_t cs;
    block_rows(c->X, r0, r1, buf, rows, &cs);
    memset(sums, 0, (size_t)(r1 - r0) * (size_t)W * sizeof *sums);
    memset(count, 0, (size_t)(r1 - r0) * sizeof *count);
    for (int64_t t = 0; t < f->n_trees; t++) {
        const sporf_tree *tr = &f->trees[t];
        const uint8_t *bits = c->inbag + t * c->bitmap_bytes;
        const int kind = c->kinds == 2 ? sporf_params_tree_random(&f->params, t) : 0;
        for (int64_t r = r0; r < r1; r++) {
            if (bits[r >> 3] & (1u << (r & 7)))
                continue;
            count[r - r0]++;
            /* Down the row's path: the node of each size is the deepest with
             * at least that many rows. A node holds no more rows than its
             * parent, so the sizes a node holds (the first `held`) only
             * shrink on the way down: a size that the node no longer holds
             * takes the parent, once, and the sizes the leaf holds take it. */
            int32_t deep[SPORF_LEAF_SIZES], i = 0, parent = 0, held = S;
            for (;;) {
                const int64_t nrows = tr->node_rows[i];
                int32_t h = held;
                while (h > 0 && sporf_leaf_sizes[h - 1] > nrows) h--;
                for (int32_t j = h; j < held; j++) deep[j] = parent;
                held = h;
                const sporf_node *nd = &tr->nodes[i];
                if (nd->left < 0)
                    break;
                parent = i;
                i = sporf_tree_stored_child(tr, nd, f->impute, rows[r - r0], cs);
            }
            for (int32_t j = 0; j < held; j++) deep[j] = i;
            sporf_exact *s = sums + (r - r0) * W;
            for (int32_t j = c->j0; j < c->j1; j++) {
                const double *v = tr->node_values + (int64_t)deep[j] * tr->node_width + c->off;
                sporf_exact *sj = s + (j - c->j0) * c->R;
                if (c->kinds == 1) {
                    for (int32_t k = 0; k < V; k++) sporf_exact_add(&sj[k], sporf_exact_from(v[k], c->scale));
                    continue;
                }
                /* the tree's kind's sums and sums of squares (kind_loss reads them) */
                sporf_exact *sk = sj + kind * 2 * V;
                for (int32_t k = 0; k < V; k++) {
                    sporf_exact_add(&sk[k], sporf_exact_from(v[k], c->scale));
                    sporf_exact_add(&sk[V + k], sporf_exact_from(v[k] * v[k], qscale));
                }
                if (kind)
                    sporf_exact_add(&sj[4 * V], sporf_exact_from(1.0, 0));
            }
        }
    }
}

/* Row r's Brier score of the survival curve S[0..n_grid), over the grid's
 * times (their mean), weighted by the inverse probability of censoring: an
 * event before a time counts (S - 0)^2 / G(its time-), a row alive after it
 * (1 - S)^2 / G(the time), a row censored before it nothing. */
static double survival_brier(const leaf_ctx *c, int64_t r, const double *S)
{
    const double t = c->p->values[r];
    const int event = c->p->events[r] != 0;
    double b = 0.0;
    for (int32_t g = 0; g < c->n_grid; g++) {
        const double tau = c->grid[g];
        if (t <= tau && event && c->g_row[r] > 0.0)
            b += S[g] * S[g] / c->g_row[r];
        else if (t > tau && c->g_grid[g] > 0.0)
            b += (1.0 - S[g]) * (1.0 - S[g]) / c->g_grid[g];
    }
    return c->n_grid > 0 ? b / (double)c->n_grid : 0.0;
}

/* A block's losses at each size (loss[j], weight) from its rows' sums: each
 * row's loss at the averaged answer of its out-of-bag trees, added in row
 * order. */
static void block_loss(const leaf_ctx *c, int64_t r0, int64_t r1, const sporf_exact *sums, const int64_t *count,
                       double *loss, double *weight_out)
{
    const sporf_leaf_pending *p = c->p;
    const int32_t W = (c->j1 - c->j0) * c->V, m = p->m;
    double mean[SPORF_SURV_GRID > 1 ? SPORF_SURV_GRID : 1], weight = 0.0;
    for (int32_t j = 0; j < BLOCK_STATS; j++) loss[j] = NAN; /* the kinds' choices: none here */
    for (int32_t j = 0; j < SPORF_LEAF_SIZES; j++) loss[j] = 0.0;
    for (int64_t r = r0; r < r1; r++) {
        const int64_t nt = count[r - r0];
        if (nt == 0)
            continue;
        const double w = p->sample_weight ? p->sample_weight[r] : 1.0;
        const sporf_exact *s = sums + (r - r0) * W;
        if (c->f->task == SPORF_TASK_SURVIVAL) { /* the Brier scores of the curves */
            weight += w;
            for (int32_t j = c->j0; j < c->j1; j++) {
                for (int32_t g = 0; g < c->V; g++)
                    mean[g] = sporf_exact_to_double(s[(j - c->j0) * c->V + g], c->scale) / (double)nt;
                loss[j] += w * survival_brier(c, r, mean);
            }
            continue;
        }
        if (p->codes) /* the mean over rows weighted as their classes are */
            for (int32_t o = 0; o < m; o++) weight += w * c->class_w[p->codes[r * m + o]];
        else
            weight += w;
        for (int32_t j = c->j0; j < c->j1; j++) {
            const sporf_exact *v = s + (j - c->j0) * c->V;
            double e = 0.0;
            if (!p->codes) {
                for (int32_t o = 0; o < m; o++) {
                    const double d = sporf_exact_to_double(v[o], c->scale) / (double)nt - p->values[r * m + o];
                    e += (c->out_weight ? c->out_weight[o] : 1.0) * (d * d);
                }
            } else {
                /* each output's Brier score, sum_k (p_k - [k = class])^2 over its
                 * classes, times its class's weight */
                for (int32_t o = 0, at = 0; o < m; at += c->out_classes[o], o++) {
                    const int32_t yk = p->codes[r * m + o];
                    double b = 0.0;
                    for (int32_t k = at; k < at + c->out_classes[o]; k++) {
                        const double d = sporf_exact_to_double(v[k], c->scale) / (double)nt - (k == yk ? 1.0 : 0.0);
                        b += d * d;
                    }
                    e += c->class_w[yk] * b;
                }
            }
            loss[j] += w * e;
        }
    }
    *weight_out = weight;
}

/* A forest choosing its kinds of trees (splitter "auto"): row r's loss is a
 * weighted sum over its values v of (P_v - y_v)^2 -- y_v the class
 * indicator, the response or the survival target at a grid time -- and
 * P_v the stored forest's answer: w0 times the best-cut trees' mean plus w1
 * times the random-cut trees'. Each kind's trees are draws from one
 * distribution given the data, so with the row's m out-of-bag trees of a
 * kind summing S and squares Q, mu = S / m estimates their mean answer,
 * var = (Q - S mu) / (m - 1) its variance across trees, mu^2 - var / m the
 * square of the mean, all without bias; a forest of T such trees adds var / T.
 * So each candidate is scored at its own number of trees: the forest of both
 * kinds at all of them, a kind alone at its half -- the score of the forest
 * that would be stored, where the plain out-of-bag average would favour the
 * kind with more out-of-bag trees per row (bootstrap samples leave out 37%
 * of the rows, the random-cut trees' subsamples 10%). A row needs two
 * out-of-bag trees of each kind; the rows without are left out of every
 * candidate's score alike. Fills c->target[worker] with the row's weights
 * and targets. Returns the row's weight in the mean (0: left out). */
static double kinds_row_targets(const leaf_ctx *c, int64_t r, double w, double *omega, double *target)
{
    const sporf_leaf_pending *p = c->p;
    const int32_t V = c->V, m = p->m;
    if (c->f->task == SPORF_TASK_SURVIVAL) {
        const double t = p->values[r], inv = c->n_grid > 0 ? 1.0 / (double)c->n_grid : 0.0;
        const int event = p->events[r] != 0;
        for (int32_t g = 0; g < V; g++) {
            omega[g] = 0.0;
            target[g] = 0.0;
            if (t <= c->grid[g] && event && c->g_row[r] > 0.0) {
                omega[g] = inv / c->g_row[r];
            } else if (t > c->grid[g] && c->g_grid[g] > 0.0) {
                omega[g] = inv / c->g_grid[g];
                target[g] = 1.0;
            }
        }
        return w;
    }
    if (!p->codes) {
        for (int32_t o = 0; o < m; o++) {
            omega[o] = c->out_weight ? c->out_weight[o] : 1.0;
            target[o] = p->values[r * m + o];
        }
        return w;
    }
    double weight = 0.0;
    for (int32_t o = 0, at = 0; o < m; at += c->out_classes[o], o++) {
        const int32_t yk = p->codes[r * m + o];
        weight += w * c->class_w[yk];
        for (int32_t k = at; k < at + c->out_classes[o]; k++) {
            omega[k] = c->class_w[yk];
            target[k] = k == yk ? 1.0 : 0.0;
        }
    }
    return weight;
}

static void kinds_block_loss(const leaf_ctx *c, int64_t r0, int64_t r1, const sporf_exact *sums, const int64_t *count,
                             double *scratch, double *loss, double *weight_out)
{
    const sporf_leaf_pending *p = c->p;
    const int32_t V = c->V, R = c->R, S = SPORF_LEAF_SIZES, W = (c->j1 - c->j0) * R;
    const int qscale = 2 * c->scale - SUMS_BITS;
    const double T0 = (double)c->kind_trees[0], T1 = (double)c->kind_trees[1], T = T0 + T1;
    /* each candidate's weights of the two kinds' means: all the trees, then each kind alone */
    const double wk[SPORF_KIND_CHOICES][2] = {{T0 / T, T1 / T}, {1.0, 0.0}, {0.0, 1.0}};
    double *omega = scratch, *target = scratch + V, weight = 0.0;
    double *dd = loss + SPORF_LEAF_SCORES, *dw = dd + SPORF_LEAF_SCORES, *ww = dw + SPORF_LEAF_SCORES;
    for (int32_t j = 0; j < BLOCK_STATS; j++) loss[j] = 0.0;
    for (int64_t r = r0; r < r1; r++) {
        const sporf_exact *s = sums + (r - r0) * W;
        const int64_t m1 = (int64_t)sporf_exact_to_double(s[4 * V], 0), m0 = count[r - r0] - m1;
        if (m0 < 2 || m1 < 2)
            continue;
        const double w = p->sample_weight ? p->sample_weight[r] : 1.0;
        const double row_weight = kinds_row_targets(c, r, w, omega, target);
        weight += row_weight;
        *ww += row_weight * row_weight;
        for (int32_t j = c->j0; j < c->j1; j++) {
            const sporf_exact *rec = s + (j - c->j0) * R;
            double e[SPORF_KIND_CHOICES] = {0.0, 0.0, 0.0};
            for (int32_t v = 0; v < V; v++) {
                if (omega[v] == 0.0)
                    continue;
                double mu[2], a[2];
                for (int k = 0; k < 2; k++) {
                    const double mk = (double)(k ? m1 : m0), Tk = k ? T1 : T0;
                    const double Sk = sporf_exact_to_double(rec[2 * k * V + v], c->scale);
                    const double Qk = sporf_exact_to_double(rec[2 * k * V + V + v], qscale);
                    mu[k] = Sk / mk;
                    const double var = (Qk - Sk * mu[k]) / (mk - 1.0);
                    a[k] = mu[k] * mu[k] - var / mk + var / Tk; /* the square of a forest of Tk trees' answer */
                }
                const double y = target[v];
                for (int32_t q = 0; q < SPORF_KIND_CHOICES; q++) {
                    const double w0 = wk[q][0], w1 = wk[q][1];
                    e[q] += omega[v] * (w0 * w0 * a[0] + w1 * w1 * a[1] + 2.0 * w0 * w1 * mu[0] * mu[1] -
                                        2.0 * y * (w0 * mu[0] + w1 * mu[1]) + y * y);
                }
            }
            for (int32_t q = 0; q < SPORF_KIND_CHOICES; q++) {
                loss[q * S + j] += w * e[q];
                const double delta = w * (e[q] - e[0]); /* a kind alone against all the trees */
                dd[q * S + j] += delta * delta;
                dw[q * S + j] += delta * row_weight;
            }
        }
    }
    *weight_out = weight;
}

/* A block's losses, from its rows' sums, into the context's block entry. */
static void score_block(const leaf_ctx *c, int64_t r0, int64_t r1, const sporf_exact *sums, const int64_t *count,
                        int32_t worker, int64_t unit)
{
    double *loss = c->block_loss + unit * BLOCK_STATS;
    if (c->kinds == 2)
        kinds_block_loss(c, r0, r1, sums, count, c->target[worker], loss, &c->block_weight[unit]);
    else
        block_loss(c, r0, r1, sums, count, loss, &c->block_weight[unit]);
}

/* One block: its sums (into c->sums, or the worker's scratch), and its
 * losses when scoring. */
static int leaf_block(void *vctx, int64_t unit, int32_t worker, sporf_pool_ctl *ctl, sporf_error *err)
{
    leaf_ctx *c = vctx;
    const int64_t n = c->X ? c->X->nrow : c->p->n, r0 = unit * LEAF_CHOICE_BLOCK;
    const int64_t r1 = r0 + LEAF_CHOICE_BLOCK < n ? r0 + LEAF_CHOICE_BLOCK : n;
    const int64_t W = (int64_t)(c->j1 - c->j0) * c->R;
    if (ctl && sporf_pool_cancelled(ctl))
        return sporf_set_error(err, SPORF_E_INTERRUPTED, "interrupted");
    sporf_exact *sums = (sporf_exact *)c->sums;
    int64_t *count = c->count;
    if (c->X) {
        sporf_exact *s = sums ? sums + r0 * W : (sporf_exact *)c->scratch[worker];
        int64_t *k = count ? count + r0 : (int64_t *)(s + LEAF_CHOICE_BLOCK * W);
        double *buf = (double *)((int64_t *)((sporf_exact *)c->scratch[worker] + LEAF_CHOICE_BLOCK * W) +
                                 LEAF_CHOICE_BLOCK);
        block_sums(c, r0, r1, buf, s, k);
        if (c->score)
            score_block(c, r0, r1, s, k, worker, unit);
        return SPORF_OK;
    }
    score_block(c, r0, r1, sums + r0 * W, count + r0, worker, unit);
    return SPORF_OK;
}

/* The censoring distribution's Kaplan-Meier survival G (censored rows are
 * its events; at a tie, events come first): each event row's G just before
 * its time, and G at the grid's times, into the context. */
static int censoring_weights(leaf_ctx *c, int64_t n, const int32_t *event, const double *time, const double *sw)
{
    int64_t *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    if (!order)
        return 0;
    for (int64_t i = 0; i < n; i++) order[i] = i;
    if (!sporf_order_rows_by_key(time, order, n)) {
        free(order);
        return 0;
    }
    double at_risk = 0.0, G = 1.0;
    for (int64_t i = 0; i < n; i++) at_risk += sw ? sw[i] : 1.0;
    int32_t g = 0;
    for (int64_t k = 0; k < n;) {
        const double t = time[order[k]];
        for (; g < c->n_grid && c->grid[g] < t; g++) c->g_grid[g] = G;
        double censored = 0.0, tied = 0.0;
        int64_t k1 = k;
        for (; k1 < n && time[order[k1]] == t; k1++) {
            const double w = sw ? sw[order[k1]] : 1.0;
            tied += w;
            if (!event[order[k1]]) censored += w;
            c->g_row[order[k1]] = G; /* just before t */
        }
        if (censored > 0.0 && at_risk > 0.0) G *= 1.0 - censored / at_risk;
        at_risk -= tied;
        k = k1;
    }
    for (; g < c->n_grid; g++) c->g_grid[g] = G;
    free(order);
    return 1;
}

static void leaf_ctx_free(leaf_ctx *c, int32_t n_threads)
{
    if (c->scratch)
        for (int32_t w = 0; w < n_threads; w++) free(c->scratch[w]);
    free(c->scratch);
    if (c->target)
        for (int32_t w = 0; w < n_threads; w++) free(c->target[w]);
    free(c->target);
    free(c->block_loss);
    free(c->block_weight);
    free(c->class_w);
    free(c->g_row);
    free(c->out_weight);
}

/* The context of a pass over X's rows (X NULL: over p's given sums), and
 * with score the losses' setup from p's response. */
static int leaf_ctx_init(leaf_ctx *c, const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag,
                         const sporf_leaf_pending *p, int score, int32_t n_threads, sporf_error *err)
{
    memset(c, 0, sizeof *c);
    c->f = f;
    c->X = X;
    c->inbag = inbag;
    c->p = p;
    c->score = score;
    c->j0 = sporf_leaf_sizes_first(f);
    c->j1 = sporf_leaf_sizes_end(f);
    c->V = sporf_leaf_sums_width(f);
    c->R = sporf_leaf_record_width(f);
    c->kinds = sporf_leaf_chooses_kinds(f) ? 2 : 1;
    for (int64_t t = 0; c->kinds == 2 && t < f->n_trees; t++) c->kind_trees[sporf_params_tree_random(&f->params, t)]++;
    c->off = f->task == SPORF_TASK_SURVIVAL ? 1 : 0;
    c->out_classes = f->n_outputs > 1 ? f->output_classes : &f->n_classes;
    const int64_t n = X ? X->nrow : p->n, n_blocks = (n + LEAF_CHOICE_BLOCK - 1) / LEAF_CHOICE_BLOCK;
    const int64_t W = (int64_t)(c->j1 - c->j0) * c->R;
    if (X) {
        c->bitmap_bytes = (n + 7) / 8;
        for (int64_t t = 0; t < f->n_trees; t++)
            if (!f->trees[t].node_rows || !f->trees[t].node_values ||
                f->trees[t].node_width < c->off + c->V)
                return sporf_set_error(err, SPORF_E_ARG, "leaf choice: tree %lld keeps no node values",
                                       (long long)t);
        if (!(c->scratch = calloc((size_t)n_threads, sizeof *c->scratch)))
            return sporf_set_error(err, SPORF_E_NOMEM, "out of memory scoring the leaf sizes");
        const size_t room = (size_t)LEAF_CHOICE_BLOCK * ((size_t)W * sizeof(sporf_exact) + sizeof(int64_t) +
                                                         (X->data32 ? (size_t)X->ncol * sizeof(double) : 0));
        for (int32_t w = 0; w < n_threads; w++)
            if (!(c->scratch[w] = malloc(room)))
                return sporf_set_error(err, SPORF_E_NOMEM, "out of memory scoring the leaf sizes");
    }
    if (!score)
        return SPORF_OK;
    c->block_loss = malloc((size_t)(n_blocks > 0 ? n_blocks : 1) * BLOCK_STATS * sizeof *c->block_loss);
    c->block_weight = malloc((size_t)(n_blocks > 0 ? n_blocks : 1) * sizeof *c->block_weight);
    if (!c->block_loss || !c->block_weight)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory scoring the leaf sizes");
    if (c->kinds == 2) {
        if (!(c->target = calloc((size_t)n_threads, sizeof *c->target)))
            return sporf_set_error(err, SPORF_E_NOMEM, "out of memory scoring the leaf sizes");
        for (int32_t w = 0; w < n_threads; w++)
            if (!(c->target[w] = malloc((size_t)(2 * c->V > 0 ? 2 * c->V : 1) * sizeof(double))))
                return sporf_set_error(err, SPORF_E_NOMEM, "out of memory scoring the leaf sizes");
    }
    const int32_t m = p->m;
    if (f->task == SPORF_TASK_SURVIVAL) {
        c->n_grid = sporf_surv_grid(p->values, p->events, n, c->grid);
        if (c->n_grid < 0 || !(c->g_row = malloc((size_t)(n > 0 ? n : 1) * sizeof *c->g_row)) ||
            !censoring_weights(c, n, p->events, p->values, p->sample_weight))
            return sporf_set_error(err, SPORF_E_NOMEM, "out of memory scoring the leaf sizes");
    } else if (p->codes) { /* the classes' weights: a rare class counts as much as a common one */
        if (!(c->class_w = calloc((size_t)f->n_classes, sizeof *c->class_w)))
            return sporf_set_error(err, SPORF_E_NOMEM, "out of memory scoring the leaf sizes");
        for (int64_t i = 0; i < n; i++)
            for (int32_t o = 0; o < m; o++)
                c->class_w[p->codes[i * m + o]] += p->sample_weight ? p->sample_weight[i] : 1.0;
        for (int32_t k = 0; k < f->n_classes; k++)
            c->class_w[k] = c->class_w[k] > 0.0 ? 1.0 / c->class_w[k] : 0.0;
    } else if (m > 1 && !(c->out_weight = sporf_output_weights(p->values, p->sample_weight, n, m))) {
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory scoring the leaf sizes");
    }
    return SPORF_OK;
}

int sporf_leaf_sums(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag, int32_t scale,
                    int32_t n_threads, uint64_t *sums, int64_t *count, sporf_error *err)
{
    if (n_threads < 1)
        n_threads = 1;
    leaf_ctx c;
    int rc = leaf_ctx_init(&c, f, X, inbag, NULL, 0, n_threads, err);
    c.scale = scale;
    c.sums = sums;
    c.count = count;
    const int64_t n_blocks = (X->nrow + LEAF_CHOICE_BLOCK - 1) / LEAF_CHOICE_BLOCK;
    if (rc == SPORF_OK)
        rc = sporf_pool_run(n_threads, n_blocks, leaf_block, &c, NULL, NULL, err);
    leaf_ctx_free(&c, n_threads);
    return rc;
}

int sporf_leaf_scores(const sporf_forest *f, const sporf_leaf_pending *p, const sporf_matrix *X,
                      const uint8_t *inbag, int32_t n_threads, double *scores, sporf_error *err)
{
    if (n_threads < 1)
        n_threads = 1;
    const int64_t n = p->n, n_blocks = (n + LEAF_CHOICE_BLOCK - 1) / LEAF_CHOICE_BLOCK;
    if (!p->sums && (!X || !inbag || X->nrow != n))
        return sporf_set_error(err, SPORF_E_ARG, "leaf choice: the rows' sums, or the rows to compute them from");
    leaf_ctx c;
    int rc = leaf_ctx_init(&c, f, p->sums ? NULL : X, inbag, p, 1, n_threads, err);
    c.scale = p->scale;
    c.sums = p->sums;
    c.count = p->count;
    if (rc == SPORF_OK && f->task == SPORF_TASK_SURVIVAL && c.V != c.n_grid)
        rc = sporf_set_error(err, SPORF_E_ARG, "leaf choice: the trees keep curves at %d times, the rows' event "
                                               "times give %d", (int)c.V, (int)c.n_grid);
    if (rc == SPORF_OK)
        rc = sporf_pool_run(n_threads, n_blocks, leaf_block, &c, NULL, NULL, err);
    if (rc == SPORF_OK) {
        double total = 0.0, sums[BLOCK_STATS];
        for (int32_t j = 0; j < BLOCK_STATS; j++) sums[j] = 0.0;
        for (int64_t u = 0; u < n_blocks; u++) {
            total += c.block_weight[u];
            for (int32_t j = 0; j < BLOCK_STATS; j++) sums[j] += c.block_loss[u * BLOCK_STATS + j];
        }
        const double *dd = sums + SPORF_LEAF_SCORES, *dw = dd + SPORF_LEAF_SCORES, ww = dw[SPORF_LEAF_SCORES];
        for (int32_t j = 0; j < SPORF_LEAF_SCORES; j++) {
            const int32_t size = j % SPORF_LEAF_SIZES;
            const int ok = total > 0.0 && size >= c.j0 && size < c.j1 && (j < SPORF_LEAF_SIZES || c.kinds == 2);
            scores[j] = ok ? sums[j] / total : NAN;
            /* the standard error of the difference from all the trees' score at this size: the
             * rows' differences about their mean, as a ratio estimate's */
            const double D = ok ? (sums[j] - sums[size]) / total : NAN;
            const double var = (dd[j] - 2.0 * D * dw[j] + D * D * ww) / (total * total);
            scores[SPORF_LEAF_SCORES + j] = ok && j >= SPORF_LEAF_SIZES ? sqrt(var > 0.0 ? var : 0.0) : NAN;
        }
    }
    leaf_ctx_free(&c, n_threads);
    return rc;
}

int32_t sporf_leaf_choice_best(const double *scores, int32_t first, int32_t end)
{
    int32_t best = first;
    for (int32_t j = first + 1; j < end; j++)
        if (scores[j] < scores[best] || (isnan(scores[best]) && !isnan(scores[j])))
            best = j;
    return best;
}

/* ---- pruning ---- */

/* A node of the pruned tree to write: original node o, its parent's index
 * in the new tree, and whose values it takes if it is a leaf. */
typedef struct prune_item {
    int32_t orig, parent, is_left, depth, value_of;
} prune_item;

static int ascending_int32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The leaf slots under each node of a tree (preorder: a subtree's leaves
 * are consecutive slots), [lo[i], hi[i]). */
static void leaf_ranges(const sporf_tree *t, int32_t *lo, int32_t *hi)
{
    for (int32_t i = t->n_nodes - 1; i >= 0; i--) {
        const sporf_node *nd = &t->nodes[i];
        if (nd->left < 0) {
            lo[i] = nd->right;
            hi[i] = nd->right + 1;
        } else {
            lo[i] = lo[nd->left];
            hi[i] = hi[nd->right];
        }
    }
}

/* *old replaced by *new (a pointer to any array), the old array freed and
 * *new cleared. */
#define swap_free(old, new) do { free(*(old)); *(old) = *(new); *(new) = NULL; } while (0)

/* The rows of new leaf `leaf` (ls, lr: the pruned tree's leaf_start and
 * leaf_rank, filled up to it): those of the original leaves under node o,
 * ascending, as routing the rows to it would list them. */
static void join_leaf_rows(const sporf_tree *t, const int32_t *lo, const int32_t *hi, int32_t o, int32_t leaf,
                           int32_t *ls, int32_t *lr)
{
    const int32_t a = t->leaf_start[lo[o]], b = t->leaf_start[hi[o]];
    memcpy(lr + ls[leaf], t->leaf_rank + a, (size_t)(b - a) * sizeof *lr);
    qsort(lr + ls[leaf], (size_t)(b - a), sizeof *lr, ascending_int32);
    ls[leaf + 1] = ls[leaf] + (b - a);
}

/* Prune tree (grown with its node values, K values a node) to leaves of at
 * least k rows: a node of fewer rows becomes a leaf with its parent's values,
 * a split whose children both have fewer becomes a leaf with its own, and
 * the rest is kept as it was. A tree that keeps its leaves' rows (quantile
 * and survival forests) gives each new leaf the rows of the leaves under it,
 * ascending, as routing the rows to it would. Frees the node values either
 * way. */
static int prune_tree(sporf_tree *t, int32_t K, int64_t k, sporf_error *err)
{
    int rc = SPORF_OK;
    const int32_t *rows = t->node_rows;
    sporf_node *nodes = NULL;
    int32_t *pf = NULL, *lo = NULL, *hi = NULL, *ls = NULL, *lr = NULL;
    double *pw = NULL, *lv = NULL;
    prune_item *stack = NULL;
    if (k <= 1 || !rows || !t->node_values)
        goto release; /* every node holds a row: nothing to prune */
    const int32_t N = t->n_nodes;
    const int keeps_rows = t->leaf_start != NULL;
    nodes = malloc((size_t)N * sizeof *nodes);
    pf = malloc((size_t)(t->n_proj > 0 ? t->n_proj : 1) * sizeof *pf);
    pw = malloc((size_t)(t->n_proj > 0 ? t->n_proj : 1) * sizeof *pw);
    lv = malloc((size_t)N * (size_t)K * sizeof *lv);
    stack = malloc((size_t)N * sizeof *stack);
    if (keeps_rows) {
        const int32_t total = t->leaf_start[t->n_leaves];
        lo = malloc((size_t)N * sizeof *lo);
        hi = malloc((size_t)N * sizeof *hi);
        ls = malloc((size_t)(N + 1) * sizeof *ls);
        lr = malloc((size_t)(total > 0 ? total : 1) * sizeof *lr);
    }
    if (!nodes || !pf || !pw || !lv || !stack || (keeps_rows && (!lo || !hi || !ls || !lr))) {
        rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory pruning a tree");
        goto release;
    }
    if (keeps_rows) {
        leaf_ranges(t, lo, hi);
        ls[0] = 0;
    }
    int32_t n_nodes = 0, n_leaves = 0, n_proj = 0, depth = 0, top = 0;
    stack[top++] = (prune_item){0, -1, 0, 0, 0};
    /* Depth first, left child first, as the builder writes nodes. */
    while (top > 0) {
        const prune_item it = stack[--top];
        const sporf_node *o = &t->nodes[it.orig];
        const int32_t id = n_nodes++;
        if (it.parent >= 0) {
            if (it.is_left) nodes[it.parent].left = id;
            else nodes[it.parent].right = id;
        }
        sporf_node *nd = &nodes[id];
        const int small_node = it.value_of != it.orig; /* fewer than k rows: its parent's values */
        const int split = !small_node && o->left >= 0 && (rows[o->left] >= k || rows[o->right] >= k);
        if (!split) {
            memset(nd, 0, sizeof *nd);
            nd->left = -1;
            nd->right = n_leaves;
            memcpy(lv + (int64_t)n_leaves * K, t->node_values + (int64_t)it.value_of * t->node_width,
                   (size_t)K * sizeof *lv);
            if (keeps_rows)
                join_leaf_rows(t, lo, hi, it.orig, n_leaves, ls, lr);
            n_leaves++;
            if (it.depth > depth) depth = it.depth;
            continue;
        }
        *nd = *o;
        nd->proj_start = n_proj;
        memcpy(pf + n_proj, t->proj_feature + o->proj_start, (size_t)o->proj_len * sizeof *pf);
        memcpy(pw + n_proj, t->proj_weight + o->proj_start, (size_t)o->proj_len * sizeof *pw);
        n_proj += o->proj_len;
        const int32_t r = o->right, l = o->left;
        stack[top++] = (prune_item){r, id, 0, it.depth + 1, rows[r] >= k ? r : it.orig};
        stack[top++] = (prune_item){l, id, 1, it.depth + 1, rows[l] >= k ? l : it.orig};
    }
    swap_free(&t->nodes, &nodes);
    swap_free(&t->proj_feature, &pf);
    swap_free(&t->proj_weight, &pw);
    swap_free(&t->leaf_values, &lv);
    if (keeps_rows) {
        swap_free(&t->leaf_start, &ls);
        swap_free(&t->leaf_rank, &lr);
    }
    t->n_nodes = n_nodes;
    t->n_leaves = n_leaves;
    t->n_proj = n_proj;
    t->depth = depth;
release:
    free(nodes);
    free(pf);
    free(pw);
    free(lv);
    free(stack);
    free(lo);
    free(hi);
    free(ls);
    free(lr);
    free(t->node_rows);
    free(t->node_values);
    t->node_rows = NULL;
    t->node_values = NULL;
    t->node_width = 0;
    return rc;
}

/* A survival forest's leaf risks from its leaves' rows, after pruning: the
 * forest's event times and the risk of all its rows, as the fit computes
 * them (fit.c prepare_survival). */
static int survival_leaf_values(sporf_forest *f, sporf_error *err)
{
    const int64_t n = f->qrf_n;
    int64_t room = n;
    for (int64_t t = 0; t < f->n_trees; t++)
        for (int32_t l = 0; l < f->trees[t].n_leaves; l++) {
            const int64_t m = f->trees[t].leaf_start[l + 1] - f->trees[t].leaf_start[l];
            if (m > room) room = m;
        }
    double *times = malloc((size_t)(n > 0 ? n : 1) * sizeof *times);
    double *scratch = malloc((size_t)(2 * (room > 0 ? room : 1)) * sizeof *scratch);
    int32_t *all = malloc((size_t)(n > 0 ? n : 1) * sizeof *all);
    if (!times || !scratch || !all) {
        free(times);
        free(scratch);
        free(all);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory for the survival leaves");
    }
    for (int64_t r = 0; r < n; r++) all[r] = (int32_t)r;
    const int64_t E = sporf_surv_event_times(f, times);
    const int64_t k = sporf_surv_leaf_steps(f, all, n, scratch, scratch + n);
    const double all_risk = sporf_surv_steps_risk(scratch, scratch + n, k, times, E);
    for (int64_t t = 0; t < f->n_trees; t++) sporf_surv_tree_values(&f->trees[t], f, times, E, all_risk, scratch);
    free(times);
    free(scratch);
    free(all);
    return SPORF_OK;
}

int sporf_leaf_prune_forest(sporf_forest *f, int64_t k, sporf_error *err)
{
    int pruned = 0;
    for (int64_t t = 0; t < f->n_trees; t++) {
        if (!f->trees[t].node_values)
            continue; /* grown to the size chosen: nothing to prune */
        pruned = 1;
        const int rc = prune_tree(&f->trees[t], f->n_classes, k, err);
        if (rc != SPORF_OK)
            return rc;
    }
    if (pruned && k > 1 && f->task == SPORF_TASK_SURVIVAL) {
        const int rc = survival_leaf_values(f, err);
        if (rc != SPORF_OK)
            return rc;
    }
    sporf_params_set_leaf_chosen(&f->params, k);
    sporf_leaf_pending_free(f->pending);
    f->pending = NULL;
    return SPORF_OK;
}

/* A forest that chose one kind of its trees (choice 1: the best-cut trees,
 * 2: the random-cut trees): the others dropped, and its parameters number
 * its trees in that kind (model/params.h SPORF_SPLITTER_CHOSE_*): its tree
 * t was tree first + t of the seed's forest, its kept trees are trees
 * 2 t' (+ 1) of it. */
static void keep_one_kind(sporf_forest *f, int32_t choice)
{
    const int keep_random = choice == 2;
    int64_t kept = 0, first_kept = -1;
    for (int64_t t = 0; t < f->n_trees; t++) {
        if (sporf_params_tree_random(&f->params, t) != keep_random) {
            sporf_tree_release(&f->trees[t]);
            continue;
        }
        if (first_kept < 0)
            first_kept = t;
        f->trees[kept++] = f->trees[t];
    }
    f->n_trees = kept;
    sporf_params_keep_kinds(&f->params, keep_random ? 2 : 1, kept, first_kept < 0 ? 0 : first_kept);
}

int sporf_leaf_choose(sporf_forest *f, const double *scores, sporf_error *err)
{
    const int32_t first = sporf_leaf_sizes_first(f), end = sporf_leaf_sizes_end(f);
    const int kinds = sporf_leaf_chooses_kinds(f);
    int32_t choice = 0, best = sporf_leaf_choice_best(scores, first, end);
    const double all_trees = scores[best];
    for (int32_t q = 0; q < SPORF_KIND_CHOICES; q++) {
        const int32_t j = kinds ? sporf_leaf_choice_best(scores + q * SPORF_LEAF_SIZES, first, end) : best;
        const double s = scores[q * SPORF_LEAF_SIZES + j], se = scores[SPORF_LEAF_SCORES + q * SPORF_LEAF_SIZES + j];
        f->kind_scores[q] = kinds ? s : NAN;
        /* a kind alone must beat all the trees by more than the standard error of the difference
         * (at its size): all the trees, averaging both kinds' errors, are rarely much worse */
        if (kinds && q > 0 && s < all_trees - se && s < scores[choice * SPORF_LEAF_SIZES + best]) {
            choice = q;
            best = j;
        }
    }
    memcpy(f->leaf_scores, scores + choice * SPORF_LEAF_SIZES, sizeof f->leaf_scores);
    f->leaf_scored = 1;
    const int rc = sporf_leaf_prune_forest(f, sporf_leaf_sizes[best], err);
    if (rc == SPORF_OK && kinds && choice > 0)
        keep_one_kind(f, choice);
    else if (rc == SPORF_OK && kinds)
        sporf_params_keep_kinds(&f->params, 0, f->n_trees, 0);
    return rc;
}

int sporf_leaf_choose_pending(sporf_forest *f, int32_t n_threads, sporf_error *err)
{
    if (!f->pending || f->pending->n == 0)
        return sporf_set_error(err, SPORF_E_ARG, "leaf choice: the forest holds no out-of-bag sums to choose from");
    double scores[SPORF_LEAF_SCORE_WORDS];
    const int rc = sporf_leaf_scores(f, f->pending, NULL, NULL, n_threads, scores, err);
    return rc == SPORF_OK ? sporf_leaf_choose(f, scores, err) : rc;
}
