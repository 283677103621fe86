/* predict.c -- batch prediction: class probabilities, leaf indices and the
 * out-of-bag pass, on the forest's packed layout (packed.h). Work is split
 * into blocks of rows; within a block the trees are visited in order (bin by
 * bin, tree-outer and row-inner, which keeps a bin's shared top levels and
 * one tree's walk in cache), so each row's sum is reduced in tree order for
 * any thread count. */
#include "forest.h"
#include "packed.h"

#include "pool.h"
#include "traverse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROW_BLOCK 2048

typedef struct predict_ctx {
    const sporf_forest *f;
    const sporf_matrix *X;
    double *proba;             /* n x K */
    int64_t *leaves;           /* n x T */
    int64_t *count;            /* OOB: n */
    const uint8_t *inbag;      /* OOB: T bitmaps */
    int64_t bitmap_bytes;
} predict_ctx;

static inline const double *row_ptr(const sporf_matrix *X, int64_t r)
{
    return X->data + r * X->row_stride;
}

/* Honest trees with honest_prior "ignore" store NaN in leaves that received
 * no estimation row: such a tree abstains on the rows that reach them. */
static int forest_abstains(const sporf_forest *f)
{
    return f->params.honest_fraction > 0.0 && f->params.honest_prior == SPORF_HONEST_IGNORE;
}

/* Add a packed leaf's values to o unless the tree abstains there; 1 if added. */
static inline int add_leaf(double *o, const sporf_tree *tr, const sporf_pnode *lf, int32_t K)
{
    if (lf->u.leaf.onehot >= 0) {
        o[lf->u.leaf.onehot] += 1.0; /* the other values are zeros */
        return 1;
    }
    const double *lv = sporf_packed_leaf_values(tr, lf, K);
    if (isnan(lv[0]))
        return 0;
    for (int32_t k = 0; k < K; k++)
        o[k] += lv[k];
    return 1;
}

/* Divide a row's sum by its number of voting trees; a row on which every
 * tree abstained gets the mean of the trees' priors. */
static void finish_row(const sporf_forest *f, double *o, int64_t votes)
{
    const int32_t K = f->n_classes;
    if (votes > 0) {
        for (int32_t k = 0; k < K; k++) o[k] /= (double)votes;
        return;
    }
    for (int32_t k = 0; k < K; k++) o[k] = 0.0;
    for (int64_t t = 0; t < f->n_trees; t++)
        for (int32_t k = 0; k < K; k++) o[k] += f->trees[t].prior[k];
    for (int32_t k = 0; k < K; k++) o[k] /= (double)f->n_trees;
}

static int proba_block(void *vctx, int64_t blk, int32_t worker, sporf_pool_ctl *ctl, sporf_error *err)
{
    (void)worker; (void)ctl; (void)err;
    predict_ctx *c = vctx;
    const sporf_forest *f = c->f;
    const sporf_packed *P = f->packed;
    const int32_t K = f->n_classes;
    const int64_t r0 = blk * ROW_BLOCK;
    int64_t r1 = r0 + ROW_BLOCK;
    if (r1 > c->X->nrow) r1 = c->X->nrow;
    const int64_t n = r1 - r0;
    int32_t leaf[ROW_BLOCK];
    int64_t votes[ROW_BLOCK];
    double *out = c->proba + r0 * K;
    memset(out, 0, (size_t)(n * K) * sizeof *out);
    memset(votes, 0, (size_t)n * sizeof *votes);
    for (int64_t b = 0; b < P->n_bins; b++) {
        const sporf_pnode *base = sporf_packed_bin_nodes(P, b);
        for (int64_t t = P->bin_first_tree[b]; t < P->bin_first_tree[b + 1]; t++) {
            const sporf_tree *tr = &f->trees[t];
            sporf_nodes_find_leaves(base, P->root[t], tr, row_ptr(c->X, r0), c->X->row_stride, c->X->col_stride,
                                    n, leaf);
            for (int64_t r = 0; r < n; r++)
                votes[r] += add_leaf(out + r * K, tr, &base[leaf[r]], K);
        }
    }
    if (forest_abstains(f)) {
        for (int64_t r = 0; r < n; r++)
            finish_row(f, out + r * K, votes[r]);
        return SPORF_OK;
    }
    const double inv = 1.0 / (double)f->n_trees;
    for (int64_t i = 0; i < n * K; i++)
        out[i] *= inv;
    return SPORF_OK;
}

static int apply_block(void *vctx, int64_t blk, int32_t worker, sporf_pool_ctl *ctl, sporf_error *err)
{
    (void)worker; (void)ctl; (void)err;
    predict_ctx *c = vctx;
    const sporf_forest *f = c->f;
    const sporf_packed *P = f->packed;
    const int64_t T = f->n_trees;
    const int64_t r0 = blk * ROW_BLOCK;
    int64_t r1 = r0 + ROW_BLOCK;
    if (r1 > c->X->nrow) r1 = c->X->nrow;
    const int64_t n = r1 - r0;
    int32_t leaf[ROW_BLOCK];
    for (int64_t b = 0; b < P->n_bins; b++) {
        const sporf_pnode *base = sporf_packed_bin_nodes(P, b);
        for (int64_t t = P->bin_first_tree[b]; t < P->bin_first_tree[b + 1]; t++) {
            sporf_nodes_find_leaves(base, P->root[t], &f->trees[t], row_ptr(c->X, r0), c->X->row_stride,
                                    c->X->col_stride, n, leaf);
            for (int64_t r = 0; r < n; r++)
                c->leaves[(r0 + r) * T + t] = base[leaf[r]].u.leaf.node;
        }
    }
    return SPORF_OK;
}

static int oob_block(void *vctx, int64_t blk, int32_t worker, sporf_pool_ctl *ctl, sporf_error *err)
{
    (void)worker; (void)ctl;
    predict_ctx *c = vctx;
    const sporf_forest *f = c->f;
    const sporf_packed *P = f->packed;
    const int32_t K = f->n_classes;
    const int64_t r0 = blk * ROW_BLOCK;
    int64_t r1 = r0 + ROW_BLOCK;
    if (r1 > c->X->nrow) r1 = c->X->nrow;
    double *out = c->proba;
    int64_t *cnt = calloc(2 * ROW_BLOCK, sizeof *cnt);
    if (!cnt)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    int64_t *votes = cnt + ROW_BLOCK; /* trees that did not abstain */
    memset(out + r0 * K, 0, (size_t)((r1 - r0) * K) * sizeof *out);
    for (int64_t t = 0; t < f->n_trees; t++) {
        const sporf_tree *tr = &f->trees[t];
        const sporf_pnode *base = sporf_packed_bin_nodes(P, P->tree_bin[t]);
        const uint8_t *bits = c->inbag + t * c->bitmap_bytes;
        for (int64_t r = r0; r < r1; r++) {
            if (bits[r >> 3] & (1u << (r & 7)))
                continue;
            const int32_t leaf = sporf_nodes_find_leaf(base, P->root[t], tr, row_ptr(c->X, r), c->X->col_stride);
            cnt[r - r0]++;
            votes[r - r0] += add_leaf(out + r * K, tr, &base[leaf], K);
        }
    }
    for (int64_t r = r0; r < r1; r++) {
        /* A row out of bag for no tree keeps zeros (its oob_count says so). */
        if (cnt[r - r0] > 0)
            finish_row(f, out + r * K, votes[r - r0]);
        if (c->count)
            c->count[r] = cnt[r - r0];
    }
    free(cnt);
    return SPORF_OK;
}

static int check_predict(const sporf_forest *f, const sporf_matrix *X, const void *out, sporf_error *err)
{
    if (!f)
        return sporf_set_error(err, SPORF_E_ARG, "the forest is NULL");
    if (!out)
        return sporf_set_error(err, SPORF_E_ARG, "the output buffer is NULL");
    return sporf_check_matrix(X, f->n_features, 1, "X", err);
}

static int64_t n_blocks(int64_t n) { return (n + ROW_BLOCK - 1) / ROW_BLOCK; }

int sporf_forest_predict_proba(const sporf_forest *f, const sporf_matrix *X,
                               int32_t n_jobs, double *out,
                               sporf_progress_fn progress, void *user_data,
                               sporf_error *err)
{
    sporf_clear_error(err);
    int rc = check_predict(f, X, out, err);
    if (rc != SPORF_OK)
        return rc;
    if (f->task == SPORF_TASK_UNSUPERVISED)
        return sporf_set_error(err, SPORF_E_ARG, "an unsupervised forest predicts no response; "
                                                 "use apply, neighbors or proximity");
    predict_ctx c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.X = X;
    c.proba = out;
    int64_t nb = n_blocks(X->nrow);
    return sporf_pool_run(sporf_pool_threads(n_jobs, nb), nb, proba_block, &c, progress, user_data, err);
}

int sporf_forest_apply(const sporf_forest *f, const sporf_matrix *X,
                       int32_t n_jobs, int64_t *out,
                       sporf_progress_fn progress, void *user_data,
                       sporf_error *err)
{
    sporf_clear_error(err);
    int rc = check_predict(f, X, out, err);
    if (rc != SPORF_OK)
        return rc;
    predict_ctx c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.X = X;
    c.leaves = out;
    int64_t nb = n_blocks(X->nrow);
    return sporf_pool_run(sporf_pool_threads(n_jobs, nb), nb, apply_block, &c, progress, user_data, err);
}

int sporf_forest_oob(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag,
                     int32_t n_threads, double *out, int64_t *count, sporf_error *err)
{
    predict_ctx c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.X = X;
    c.proba = out;
    c.count = count;
    c.inbag = inbag;
    c.bitmap_bytes = (X->nrow + 7) / 8;
    int64_t nb = n_blocks(X->nrow);
    if (n_threads > nb) n_threads = (int32_t)nb;
    return sporf_pool_run(n_threads, nb, oob_block, &c, NULL, NULL, err);
}
