/* leaf_choice.c -- see leaf_choice.h. */
#include "fit/leaf_choice.h"

#include "model/survival.h"
#include "predict/traverse.h"
#include "util/pool.h"
#include "util/sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const int64_t sporf_leaf_sizes[SPORF_LEAF_SIZES] = {1, 2, 3, 5, 8, 13, 21};

/* Rows per unit of work: the sums of a block join in block order. */
#define LEAF_CHOICE_BLOCK 256

typedef struct score_ctx {
    const sporf_forest *f;
    const sporf_matrix *X;
    const uint8_t *inbag;
    int64_t bitmap_bytes;
    const int32_t *y;          /* n x m class codes, offset into the K values (several outputs) */
    const double *yr;          /* n x m responses */
    const double *sw;
    int32_t m;                 /* outputs */
    int32_t j0, j1;            /* the sizes scored: sporf_leaf_sizes[j0..j1) */
    const int32_t *out_classes; /* classification: each output's classes (K for one output) */
    const double *out_weight;  /* regression: each output's weight in the summed squared error, or NULL */
    double *class_w; /* classification: each output's classes' weights, 1 / their rows' weight
                             (the K values' order), so every class counts alike */
    /* survival (y the event flags, yr the times): the grid of times the
     * curves are scored at, the censoring distribution's survival G there
     * and each event row's G just before its time (the Brier score's
     * inverse-probability-of-censoring weights) */
    int32_t n_grid;
    double grid[SPORF_SURV_GRID], g_grid[SPORF_SURV_GRID];
    double *g_row;
    double *block_loss;   /* n_blocks x SPORF_LEAF_SIZES */
    double *block_weight; /* n_blocks */
    double **scratch;     /* per worker: sums, node per size, a row as doubles */
} score_ctx;

static double survival_brier(const struct score_ctx *c, int64_t r, const double *sum, double trees);

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

/* One block of rows: every tree in turn walks the block's rows out of its
 * bag (so a tree's nodes stay in the cache while it walks them), adding to
 * each row's sums the values of its deepest node of each size; then each
 * row's loss at each size. A row's sums are added in tree order, the block's
 * losses in row order: the same for any number of threads. */
static int score_block(void *vctx, int64_t unit, int32_t worker, sporf_pool_ctl *ctl, sporf_error *err)
{
    score_ctx *c = vctx;
    const sporf_forest *f = c->f;
    const int32_t K = f->trees[0].node_width, S = SPORF_LEAF_SIZES; /* K: the values a node keeps */
    const int64_t n = c->X->nrow, r0 = unit * LEAF_CHOICE_BLOCK;
    const int64_t r1 = r0 + LEAF_CHOICE_BLOCK < n ? r0 + LEAF_CHOICE_BLOCK : n, m = r1 - r0;
    double *sums = c->scratch[worker];                                  /* m x S x K */
    double *buf = sums + (size_t)LEAF_CHOICE_BLOCK * S * (size_t)K;      /* m x p (float data) */
    const double *rows[LEAF_CHOICE_BLOCK];
    int64_t trees[LEAF_CHOICE_BLOCK], cs;
    double *loss = c->block_loss + unit * S, weight = 0.0;
    if (ctl && sporf_pool_cancelled(ctl))
        return sporf_set_error(err, SPORF_E_INTERRUPTED, "interrupted");
    block_rows(c->X, r0, r1, buf, rows, &cs);
    memset(sums, 0, (size_t)m * S * (size_t)K * sizeof *sums);
    memset(trees, 0, sizeof trees);
    for (int64_t t = 0; t < f->n_trees; t++) {
        const sporf_tree *tr = &f->trees[t];
        const uint8_t *bits = c->inbag + t * c->bitmap_bytes;
        for (int64_t r = r0; r < r1; r++) {
            if (bits[r >> 3] & (1u << (r & 7)))
                continue;
            trees[r - r0]++;
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
            double *s = sums + (r - r0) * S * K;
            for (int32_t j = c->j0; j < c->j1; j++) {
                const double *v = tr->node_values + (int64_t)deep[j] * K;
                for (int32_t k = 0; k < K; k++) s[j * K + k] += v[k];
            }
        }
    }
    for (int32_t j = 0; j < S; j++) loss[j] = 0.0;
    if (c->g_row) { /* survival: the Brier scores of the curves */
        for (int64_t r = r0; r < r1; r++) {
            if (trees[r - r0] == 0)
                continue;
            const double w = c->sw ? c->sw[r] : 1.0;
            weight += w;
            for (int32_t j = c->j0; j < c->j1; j++)
                loss[j] += w * survival_brier(c, r, sums + (r - r0) * S * K + j * K + 1, (double)trees[r - r0]);
        }
        c->block_weight[unit] = weight;
        return SPORF_OK;
    }
    for (int64_t r = r0; r < r1; r++) {
        const int64_t nt = trees[r - r0];
        if (nt == 0)
            continue;
        const double w = c->sw ? c->sw[r] : 1.0;
        const double *s = sums + (r - r0) * S * K;
        if (c->y) /* the mean over rows weighted as their classes are */
            for (int32_t o = 0; o < c->m; o++) weight += w * c->class_w[c->y[r * c->m + o]];
        else
            weight += w;
        for (int32_t j = c->j0; j < c->j1; j++) {
            const double *v = s + j * K;
            double e = 0.0;
            if (c->yr) {
                for (int32_t o = 0; o < c->m; o++) {
                    const double d = v[o] / (double)nt - c->yr[r * c->m + o];
                    e += (c->out_weight ? c->out_weight[o] : 1.0) * (d * d);
                }
            } else {
                /* each output's Brier score, sum_k (p_k - [k = class])^2 over its
                 * classes, times its class's weight */
                for (int32_t o = 0, at = 0; o < c->m; at += c->out_classes[o], o++) {
                    const int32_t yk = c->y[r * c->m + o];
                    double b = 0.0;
                    for (int32_t k = at; k < at + c->out_classes[o]; k++) {
                        const double d = v[k] / (double)nt - (k == yk ? 1.0 : 0.0);
                        b += d * d;
                    }
                    e += c->class_w[yk] * b;
                }
            }
            loss[j] += w * e;
        }
    }
    c->block_weight[unit] = weight;
    return SPORF_OK;
}

/* The censoring distribution's Kaplan-Meier survival G (censored rows are
 * its events; at a tie, events come first): each event row's G just before
 * its time, and G at the grid's times, into the context. */
static int censoring_weights(score_ctx *c, int64_t n, const int32_t *event, const double *time)
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
    for (int64_t i = 0; i < n; i++) at_risk += c->sw ? c->sw[i] : 1.0;
    int32_t g = 0;
    for (int64_t k = 0; k < n;) {
        const double t = time[order[k]];
        for (; g < c->n_grid && c->grid[g] < t; g++) c->g_grid[g] = G;
        double censored = 0.0, tied = 0.0;
        int64_t k1 = k;
        for (; k1 < n && time[order[k1]] == t; k1++) {
            const double w = c->sw ? c->sw[order[k1]] : 1.0;
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

/* Row r's Brier score of the survival curve sum[0..n_grid) / trees, over the
 * grid's times (their mean), weighted by the inverse probability of
 * censoring: an event before a time counts (S - 0)^2 / G(its time-), a row
 * alive after it (1 - S)^2 / G(the time), a row censored before it nothing. */
static double survival_brier(const score_ctx *c, int64_t r, const double *sum, double trees)
{
    const double t = c->yr[r];
    const int event = c->y[r] != 0;
    double b = 0.0;
    for (int32_t g = 0; g < c->n_grid; g++) {
        const double S = sum[g] / trees, tau = c->grid[g];
        if (t <= tau && event && c->g_row[r] > 0.0)
            b += S * S / c->g_row[r];
        else if (t > tau && c->g_grid[g] > 0.0)
            b += (1.0 - S) * (1.0 - S) / c->g_grid[g];
    }
    return c->n_grid > 0 ? b / (double)c->n_grid : 0.0;
}

int sporf_leaf_choice_score(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag, const int32_t *y,
                            const double *yr, const double *output_weight, const double *sample_weight,
                            int32_t n_threads, double *scores, sporf_error *err)
{
    const int64_t n = X->nrow, n_blocks = (n + LEAF_CHOICE_BLOCK - 1) / LEAF_CHOICE_BLOCK;
    const int32_t S = SPORF_LEAF_SIZES;
    for (int64_t t = 0; t < f->n_trees; t++)
        if (!f->trees[t].node_rows || !f->trees[t].node_values)
            return sporf_set_error(err, SPORF_E_ARG, "leaf choice: tree %lld keeps no node values", (long long)t);
    if (n_threads < 1)
        n_threads = 1;
    score_ctx c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.X = X;
    c.inbag = inbag;
    c.bitmap_bytes = (n + 7) / 8;
    c.y = f->task == SPORF_TASK_SURVIVAL ? NULL : y;
    c.yr = yr;
    c.sw = sample_weight;
    c.m = f->n_outputs > 1 ? f->n_outputs : 1;
    c.j0 = sporf_leaf_sizes_first(f);
    c.j1 = sporf_leaf_sizes_end(f);
    c.out_weight = output_weight;
    const int32_t K = f->n_classes;
    c.out_classes = f->n_outputs > 1 ? f->output_classes : &f->n_classes;
    c.block_loss = malloc((size_t)(n_blocks > 0 ? n_blocks : 1) * (size_t)S * sizeof *c.block_loss);
    c.block_weight = malloc((size_t)(n_blocks > 0 ? n_blocks : 1) * sizeof *c.block_weight);
    c.scratch = calloc((size_t)n_threads, sizeof *c.scratch);
    const int survival = f->task == SPORF_TASK_SURVIVAL; /* y: the event flags, yr: the times */
    const int32_t *codes = survival ? NULL : y;
    c.class_w = codes ? calloc((size_t)K, sizeof *c.class_w) : NULL;
    int rc = SPORF_OK;
    if (!c.block_loss || !c.block_weight || !c.scratch || (codes && !c.class_w)) {
        rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory scoring the leaf sizes");
        goto done;
    }
    for (int32_t w = 0; w < n_threads; w++)
        if (!(c.scratch[w] = malloc((size_t)LEAF_CHOICE_BLOCK *
                                    ((size_t)S * (size_t)f->trees[0].node_width + (X->data32 ? (size_t)X->ncol : 0)) *
                                    sizeof(double)))) {
            rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory scoring the leaf sizes");
            goto done;
        }
    if (codes) { /* the classes' weights: a rare class counts as much as a common one */
        for (int64_t i = 0; i < n; i++)
            for (int32_t o = 0; o < c.m; o++)
                c.class_w[y[i * c.m + o]] += sample_weight ? sample_weight[i] : 1.0;
        for (int32_t k = 0; k < K; k++)
            c.class_w[k] = c.class_w[k] > 0.0 ? 1.0 / c.class_w[k] : 0.0;
    }
    if (survival) {
        c.y = y; /* the event flags */
        c.n_grid = sporf_surv_grid(yr, y, n, c.grid);
        if (c.n_grid >= 0 && f->trees[0].node_width != 1 + c.n_grid) {
            rc = sporf_set_error(err, SPORF_E_ARG, "leaf choice: the trees keep %d values a node, not %d",
                                 (int)f->trees[0].node_width, 1 + c.n_grid);
            goto done;
        }
        if (c.n_grid < 0 || !(c.g_row = malloc((size_t)(n > 0 ? n : 1) * sizeof *c.g_row)) ||
            !censoring_weights(&c, n, y, yr)) {
            rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory scoring the leaf sizes");
            goto done;
        }
    }
    rc = sporf_pool_run(n_threads, n_blocks, score_block, &c, NULL, NULL, err);
    if (rc != SPORF_OK)
        goto done;
    double W = 0.0;
    for (int32_t j = 0; j < S; j++) scores[j] = 0.0;
    for (int64_t u = 0; u < n_blocks; u++) {
        W += c.block_weight[u];
        for (int32_t j = 0; j < S; j++) scores[j] += c.block_loss[u * S + j];
    }
    for (int32_t j = 0; j < S; j++) scores[j] = W > 0.0 && j >= c.j0 && j < c.j1 ? scores[j] / W : NAN;
done:
    if (c.scratch)
        for (int32_t w = 0; w < n_threads; w++) free(c.scratch[w]);
    free(c.scratch);
    free(c.block_loss);
    free(c.block_weight);
    free(c.class_w);
    free(c.g_row);
    return rc;
}

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

int32_t sporf_leaf_choice_best(const double *scores, int32_t first, int32_t end)
{
    int32_t best = first;
    for (int32_t j = first + 1; j < end; j++)
        if (scores[j] < scores[best] || (isnan(scores[best]) && !isnan(scores[j])))
            best = j;
    return best;
}

/* A node of the pruned tree to write: original node o, its parent's index
 * in the new tree, and whose values it takes if it is a leaf. */
typedef struct prune_item {
    int32_t orig, parent, is_left, depth, value_of;
} prune_item;

int sporf_tree_prune(sporf_tree *t, int32_t K, int64_t k, sporf_error *err)
{
    int rc = SPORF_OK;
    const int32_t *rows = t->node_rows;
    sporf_node *nodes = NULL;
    int32_t *pf = NULL;
    double *pw = NULL, *lv = NULL;
    prune_item *stack = NULL;
    if (k <= 1 || !rows || !t->node_values)
        goto release; /* every node holds a row: nothing to prune */
    const int32_t N = t->n_nodes;
    nodes = malloc((size_t)N * sizeof *nodes);
    pf = malloc((size_t)(t->n_proj > 0 ? t->n_proj : 1) * sizeof *pf);
    pw = malloc((size_t)(t->n_proj > 0 ? t->n_proj : 1) * sizeof *pw);
    lv = malloc((size_t)N * (size_t)K * sizeof *lv);
    stack = malloc((size_t)N * sizeof *stack);
    if (!nodes || !pf || !pw || !lv || !stack) {
        rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory pruning a tree");
        goto release;
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
    free(t->nodes);
    free(t->proj_feature);
    free(t->proj_weight);
    free(t->leaf_values);
    t->nodes = nodes;
    t->proj_feature = pf;
    t->proj_weight = pw;
    t->leaf_values = lv;
    nodes = NULL;
    pf = NULL;
    pw = NULL;
    lv = NULL;
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
    free(t->node_rows);
    free(t->node_values);
    t->node_rows = NULL;
    t->node_values = NULL;
    return rc;
}
