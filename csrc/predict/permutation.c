/*
 * permutation.c -- out-of-bag permutation importance (Breiman 2001;
 * randomForest's importance(type = 1), ranger's "permutation").
 *
 * For each tree and each feature its splits use: the tree's error on its
 * out-of-bag rows, then again with that feature's values permuted among those
 * rows; the importance is the increase, averaged over trees. A feature the
 * tree does not use changes nothing there (0 for that tree). Oblique splits
 * are walked with the permuted value in place of the row's own, so a feature
 * that matters only inside projections is found too. Unlike the impurity
 * importance it is not biased towards features with many distinct values.
 * A survival forest's error is 1 - Harrell's C of the tree's risks on its
 * out-of-bag rows, so its importance is the drop in C.
 */
#include "model/params.h"
#include "predict/predict.h"
#include "predict/traverse.h"
#include "util/concordance.h"
#include "util/pool.h"
#include "util/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Salt of the permutations' streams, so they are not the trees' own draws. */
#define PERMUTATION_SALT 0x7065726d75746531ULL

typedef struct perm_ctx {
    const sporf_forest *f;
    const sporf_matrix *X;
    const uint8_t *inbag;
    const int32_t *y;       /* class codes, or NULL */
    const double *yr;       /* responses, or NULL */
    double scale;           /* regression: 1 / variance of y, so the unit is R^2 */
    double *per_tree;       /* n_trees x p: each tree's increase of error per feature */
    uint8_t *tree_has_oob;  /* n_trees: the tree left at least one row out */
    /* per worker scratch */
    int64_t **oob;          /* the tree's out-of-bag rows */
    int32_t **perm;         /* a permutation of them per used feature */
    int32_t **used;         /* the features the tree's splits use */
    uint8_t **is_used;
    double **row;           /* one row, its value of the feature being permuted replaced */
    int32_t **path;         /* the row's path: stored nodes ... */
    uint8_t **dir;          /* ... and whether it went left at each */
    double **err;           /* per used feature: the permuted error sum */
    /* survival (y the event flags, yr the times): per worker, the out-of-bag
     * rows' own risks (m), then each used feature's permuted risks (m each),
     * their times and flags, and the concordance's scratch */
    int survival;
    double **risk, **time;
    int32_t **event;
    int64_t **cscratch;     /* 3n + 1 */
} perm_ctx;

/* The error of tree tr's prediction from leaf values lv (the prior where an
 * honest leaf abstains) on row r: 0/1 for classification (the argmax), the
 * squared error for regression. */
static double row_error(const perm_ctx *c, const sporf_tree *tr, const double *lv, int64_t r)
{
    const int32_t K = c->f->n_classes;
    if (isnan(lv[0]))
        lv = tr->prior;
    if (c->yr) {
        const double d = lv[0] - c->yr[r];
        return d * d;
    }
    int32_t best = 0;
    for (int32_t k = 1; k < K; k++)
        if (lv[k] > lv[best]) best = k;
    return best != c->y[r];
}

/* Does row x (contiguous) go left at stored node nd? Missing projections
 * as sporf_tree_find_stored_leaf sends them. */
static inline int goes_left(const sporf_tree *tr, const sporf_node *nd, const double *impute, const double *x)
{
    const double v = sporf_node_project(tr, nd, x, 1);
    if (!isnan(v))
        return v <= nd->threshold;
    if (nd->missing == SPORF_MISSING_IMPUTE)
        return sporf_node_project_imputed(tr, nd, impute, x, 1) <= nd->threshold;
    return nd->missing == SPORF_MISSING_LEFT;
}

/* The stored leaf row x reaches from node i; with path, the nodes it passes
 * (path[0] = i) and where it went (left[q]), *depth of them. */
static int32_t walk_from(const sporf_tree *tr, const double *impute, const double *x, int32_t i, int32_t *path,
                         uint8_t *left, int32_t *depth)
{
    int32_t q = 0;
    for (;;) {
        const sporf_node *nd = &tr->nodes[i];
        if (nd->left < 0)
            break;
        const int l = goes_left(tr, nd, impute, x);
        if (path) {
            path[q] = i;
            left[q] = (uint8_t)l;
        }
        q++;
        i = l ? nd->left : nd->right;
    }
    if (depth) *depth = q;
    return i;
}

static inline int node_uses(const sporf_tree *tr, const sporf_node *nd, int32_t j)
{
    const int32_t *f = tr->proj_feature + nd->proj_start;
    for (int32_t k = 0; k < nd->proj_len; k++)
        if (f[k] == j) return 1;
    return 0;
}

/* The stored leaf the row reaches with feature j at its permuted value (in
 * x), given its own path: the decisions of nodes that do not use j are the
 * same, so the walk follows the path until a node using j sends the row the
 * other way, and only then walks on its own. */
static int32_t permuted_leaf(const sporf_tree *tr, const double *impute, const double *x, int32_t j,
                             const int32_t *path, const uint8_t *left, int32_t depth, int32_t leaf)
{
    for (int32_t q = 0; q < depth; q++) {
        const sporf_node *nd = &tr->nodes[path[q]];
        if (!node_uses(tr, nd, j))
            continue;
        const int l = goes_left(tr, nd, impute, x);
        if (l != left[q])
            return walk_from(tr, impute, x, l ? nd->left : nd->right, NULL, NULL, NULL);
    }
    return leaf;
}

static inline const double *leaf_values(const sporf_tree *tr, int32_t node, int32_t K)
{
    return tr->leaf_values + (int64_t)tr->nodes[node].right * K;
}

/* A tree's risk for a row at stored leaf `node` (the prior where an honest leaf abstains). */
static inline double leaf_risk(const sporf_tree *tr, int32_t node)
{
    const double v = tr->leaf_values[tr->nodes[node].right];
    return isnan(v) ? tr->prior[0] : v;
}

/* C of the risks risk[0..m) of the out-of-bag rows oob[0..m). */
static double oob_concordance(const perm_ctx *c, int32_t worker, const double *risk, int64_t m)
{
    int64_t *s = c->cscratch[worker];
    double conc, tied, comp;
    sporf_concordance_counts(c->time[worker], c->event[worker], risk, m, s, s + m, s + 2 * m, &conc, &tied, &comp);
    return comp > 0.0 ? (conc + 0.5 * tied) / comp : NAN;
}

/* A survival tree: every out-of-bag row's risk, its own and with each used
 * feature permuted, then each feature's drop in C. */
static int survival_tree(perm_ctx *c, const sporf_tree *tr, int32_t worker, const int64_t *oob, int64_t m,
                         const int32_t *used, int32_t n_used, const int32_t *perm, double *out)
{
    const sporf_forest *f = c->f;
    const sporf_matrix *X = c->X;
    const int64_t p = X->ncol, rs = X->row_stride, cs = X->col_stride;
    double *row = c->row[worker], *risk = c->risk[worker];
    int32_t *path = c->path[worker];
    uint8_t *dir = c->dir[worker];
    for (int64_t k = 0; k < m; k++) {
        const int64_t r = oob[k];
        c->time[worker][k] = c->yr[r];
        c->event[worker][k] = c->y[r];
        for (int64_t j = 0; j < p; j++) row[j] = X->data[r * rs + j * cs];
        int32_t depth = 0;
        const int32_t leaf = walk_from(tr, f->impute, row, 0, path, dir, &depth);
        risk[k] = leaf_risk(tr, leaf);
        for (int32_t u = 0; u < n_used; u++) {
            const int32_t j = used[u];
            const double own = row[j];
            row[j] = X->data[oob[perm[(int64_t)u * m + k]] * rs + j * cs];
            const int32_t pl = row[j] == own ? leaf : permuted_leaf(tr, f->impute, row, j, path, dir, depth, leaf);
            risk[(int64_t)(u + 1) * m + k] = leaf_risk(tr, pl);
            row[j] = own;
        }
    }
    const double base = oob_concordance(c, worker, risk, m);
    for (int32_t u = 0; u < n_used; u++) {
        const double cu = oob_concordance(c, worker, risk + (int64_t)(u + 1) * m, m);
        /* a tree whose out-of-bag rows hold no comparable pair changes nothing */
        out[used[u]] = isnan(base) || isnan(cu) ? 0.0 : base - cu;
    }
    return SPORF_OK;
}

static int one_tree(void *vctx, int64_t t, int32_t worker, sporf_pool_ctl *ctl, sporf_error *err)
{
    (void)ctl;
    (void)err;
    perm_ctx *c = vctx;
    const sporf_forest *f = c->f;
    const sporf_matrix *X = c->X;
    const sporf_tree *tr = &f->trees[t];
    const int64_t n = X->nrow, p = X->ncol, bitmap_bytes = (n + 7) / 8;
    const uint8_t *bits = c->inbag + t * bitmap_bytes;
    double *out = c->per_tree + t * p;
    memset(out, 0, (size_t)p * sizeof *out);

    int64_t *oob = c->oob[worker], m = 0;
    for (int64_t r = 0; r < n; r++)
        if (!(bits[r >> 3] & (1u << (r & 7))))
            oob[m++] = r;
    c->tree_has_oob[t] = m > 0;
    if (m == 0)
        return SPORF_OK;

    int32_t *used = c->used[worker], n_used = 0;
    uint8_t *is_used = c->is_used[worker];
    memset(is_used, 0, (size_t)p);
    for (int32_t k = 0; k < tr->n_proj; k++)
        if (!is_used[tr->proj_feature[k]]) {
            is_used[tr->proj_feature[k]] = 1;
            used[n_used++] = tr->proj_feature[k];
        }
    if (n_used == 0)
        return SPORF_OK;

    /* One permutation of the out-of-bag rows per used feature, drawn from
     * the tree's own salted stream: the same whatever thread runs the tree. */
    sporf_rng rng;
    sporf_rng_seed(&rng, f->params.random_state ^ PERMUTATION_SALT, sporf_params_tree_stream(&f->params, t));
    int32_t *perm = c->perm[worker];
    for (int32_t u = 0; u < n_used; u++) {
        int32_t *pu = perm + (int64_t)u * m;
        for (int64_t k = 0; k < m; k++) pu[k] = (int32_t)k;
        for (int64_t k = m - 1; k > 0; k--) {
            const int64_t j = (int64_t)sporf_rng_below(&rng, (uint64_t)(k + 1));
            const int32_t tmp = pu[k];
            pu[k] = pu[j];
            pu[j] = tmp;
        }
    }

    /* Row by row: the row's own path and error once, then each used
     * feature's value from its permuted row. */
    double *row = c->row[worker], *perr = c->err[worker], base = 0.0;
    int32_t *path = c->path[worker];
    uint8_t *dir = c->dir[worker];
    memset(perr, 0, (size_t)n_used * sizeof *perr);
    const double *data = X->data;
    const int64_t rs = X->row_stride, cs = X->col_stride;
    const int32_t K = f->n_classes;
    if (c->survival)
        return survival_tree(c, tr, worker, oob, m, used, n_used, perm, out);
    for (int64_t k = 0; k < m; k++) {
        const int64_t r = oob[k];
        for (int64_t j = 0; j < p; j++) row[j] = data[r * rs + j * cs];
        int32_t depth = 0;
        const int32_t leaf = walk_from(tr, f->impute, row, 0, path, dir, &depth);
        const double own_err = row_error(c, tr, leaf_values(tr, leaf, K), r);
        base += own_err;
        for (int32_t u = 0; u < n_used; u++) {
            const int32_t j = used[u];
            const double own = row[j];
            row[j] = data[oob[perm[(int64_t)u * m + k]] * rs + j * cs];
            const int32_t pl = row[j] == own ? leaf : permuted_leaf(tr, f->impute, row, j, path, dir, depth, leaf);
            perr[u] += pl == leaf ? own_err : row_error(c, tr, leaf_values(tr, pl, K), r);
            row[j] = own;
        }
    }
    for (int32_t u = 0; u < n_used; u++)
        out[used[u]] = (perr[u] - base) / (double)m * c->scale;
    return SPORF_OK;
}

/* A worker's scratch: rows, permutations, features, a row and its path; a
 * survival forest's risks, times, flags and concordance scratch. */
static int worker_scratch(perm_ctx *c, int32_t w, int64_t n, int64_t p, int64_t max_used, int32_t max_depth)
{
    const size_t rows = (size_t)(n > 0 ? n : 1), cols = (size_t)(p > 0 ? p : 1);
    c->oob[w] = malloc(rows * sizeof **c->oob);
    c->perm[w] = malloc((size_t)(max_used > 0 ? max_used : 1) * rows * sizeof **c->perm);
    c->used[w] = malloc(cols * sizeof **c->used);
    c->is_used[w] = malloc(cols);
    c->row[w] = malloc(cols * sizeof **c->row);
    c->err[w] = malloc(cols * sizeof **c->err);
    c->path[w] = malloc((size_t)(max_depth + 1) * sizeof **c->path);
    c->dir[w] = malloc((size_t)(max_depth + 1));
    int ok = c->oob[w] && c->perm[w] && c->used[w] && c->is_used[w] && c->row[w] && c->err[w] && c->path[w] &&
             c->dir[w];
    if (ok && c->survival) {
        c->risk[w] = malloc((size_t)(max_used + 1) * rows * sizeof **c->risk);
        c->time[w] = malloc(rows * sizeof **c->time);
        c->event[w] = malloc(rows * sizeof **c->event);
        c->cscratch[w] = malloc((3 * rows + 1) * sizeof **c->cscratch);
        ok = c->risk[w] && c->time[w] && c->event[w] && c->cscratch[w];
    }
    return ok;
}

static void free_scratch(perm_ctx *c, int32_t n_threads)
{
    for (int32_t w = 0; w < n_threads; w++) {
        if (c->oob) free(c->oob[w]);
        if (c->perm) free(c->perm[w]);
        if (c->used) free(c->used[w]);
        if (c->is_used) free(c->is_used[w]);
        if (c->row) free(c->row[w]);
        if (c->err) free(c->err[w]);
        if (c->path) free(c->path[w]);
        if (c->dir) free(c->dir[w]);
        if (c->risk) free(c->risk[w]);
        if (c->time) free(c->time[w]);
        if (c->event) free(c->event[w]);
        if (c->cscratch) free(c->cscratch[w]);
    }
    free(c->oob);
    free(c->perm);
    free(c->used);
    free(c->is_used);
    free(c->row);
    free(c->err);
    free(c->path);
    free(c->dir);
    free(c->risk);
    free(c->time);
    free(c->event);
    free(c->cscratch);
}

int sporf_forest_oob_permutation(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag,
                                 const int32_t *y, const double *yr, int32_t n_threads,
                                 sporf_progress_fn progress, void *user_data, double *mean_out, double *std_out,
                                 sporf_error *err)
{
    const int64_t n = X->nrow, p = X->ncol, T = f->n_trees;
    perm_ctx c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.X = X;
    c.inbag = inbag;
    c.y = y;
    c.yr = yr;
    c.scale = 1.0;
    c.survival = f->task == SPORF_TASK_SURVIVAL;
    if (yr && !c.survival) {
        double mean = 0.0, ss = 0.0;
        for (int64_t r = 0; r < n; r++) mean += yr[r];
        mean /= (double)n;
        for (int64_t r = 0; r < n; r++) ss += (yr[r] - mean) * (yr[r] - mean);
        if (ss > 0.0)
            c.scale = (double)n / ss;
    }
    int rc = SPORF_OK;
    c.per_tree = malloc((size_t)(T * p) * sizeof *c.per_tree);
    c.tree_has_oob = calloc((size_t)T, 1);
    c.oob = calloc((size_t)n_threads, sizeof *c.oob);
    c.perm = calloc((size_t)n_threads, sizeof *c.perm);
    c.used = calloc((size_t)n_threads, sizeof *c.used);
    c.is_used = calloc((size_t)n_threads, sizeof *c.is_used);
    c.row = calloc((size_t)n_threads, sizeof *c.row);
    c.err = calloc((size_t)n_threads, sizeof *c.err);
    c.path = calloc((size_t)n_threads, sizeof *c.path);
    c.dir = calloc((size_t)n_threads, sizeof *c.dir);
    if (c.survival) {
        c.risk = calloc((size_t)n_threads, sizeof *c.risk);
        c.time = calloc((size_t)n_threads, sizeof *c.time);
        c.event = calloc((size_t)n_threads, sizeof *c.event);
        c.cscratch = calloc((size_t)n_threads, sizeof *c.cscratch);
    }
    int ok = c.per_tree && c.tree_has_oob && c.oob && c.perm && c.used && c.is_used && c.row && c.err &&
             c.path && c.dir && (!c.survival || (c.risk && c.time && c.event && c.cscratch));
    int32_t max_depth = 0;
    for (int64_t t = 0; t < T; t++)
        if (f->trees[t].depth > max_depth) max_depth = f->trees[t].depth;
    /* a tree uses at most min(p, its number of projection entries) features */
    int64_t max_used = 0;
    for (int64_t t = 0; t < T; t++)
        if (f->trees[t].n_proj > max_used) max_used = f->trees[t].n_proj;
    if (max_used > p) max_used = p;
    for (int32_t w = 0; ok && w < n_threads; w++)
        ok = worker_scratch(&c, w, n, p, max_used, max_depth);
    if (!ok) {
        rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory for the permutation importance");
        goto done;
    }
    rc = sporf_pool_run(n_threads, T, one_tree, &c, progress, user_data, err);
    if (rc != SPORF_OK)
        goto done;
    /* Mean and standard deviation over the trees that left a row out, in
     * tree order (the same sums for any thread count). */
    for (int64_t j = 0; j < p; j++) {
        double s = 0.0, ss = 0.0;
        int64_t k = 0;
        for (int64_t t = 0; t < T; t++)
            if (c.tree_has_oob[t]) {
                s += c.per_tree[t * p + j];
                k++;
            }
        const double mean = k > 0 ? s / (double)k : NAN;
        for (int64_t t = 0; t < T; t++)
            if (c.tree_has_oob[t]) {
                const double d = c.per_tree[t * p + j] - mean;
                ss += d * d;
            }
        mean_out[j] = mean;
        if (std_out)
            std_out[j] = k > 1 ? sqrt(ss / (double)(k - 1)) : k == 1 ? 0.0 : NAN;
    }
done:
    free_scratch(&c, n_threads);
    free(c.per_tree);
    free(c.tree_has_oob);
    return rc;
}
