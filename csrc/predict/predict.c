/* predict.c -- batch prediction: class probabilities, leaf indices and the
 * out-of-bag pass, on the forest's packed layout (packed.h). Work is split
 * into blocks of rows; within a block the trees are visited in order (bin by
 * bin, tree-outer and row-inner, which keeps a bin's shared top levels and
 * one tree's walk in cache), so each row's sum is reduced in tree order for
 * any thread count. Rows partition down each tree, on float copies when wide;
 * forests of single-feature splits on wide rows walk in lanes (see
 * PARTITION_BLOCK_BYTES and the walk_*.h headers). Rows with a missing value (NaN)
 * walk the stored trees instead, each split sending them where it learned
 * to (sporf_tree_find_stored_leaf); the packed walks, and so the speed of
 * complete rows, do not change. */
#include "predict/predict.h"
#include "predict/packed.h"

#include "util/concordance.h"
#include "util/matrix.h"
#include "util/pool.h"
#include "predict/traverse.h"
#include "predict/walk_partition.h" /* and the lane and float walks it builds on */

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How a block's rows walk the trees, and rows per block. A block walks down
 * one tree after another, so each tree's nodes are fetched once per block
 * and reused by its rows.
 *
 * Most blocks take the partition walk (sporf_nodes_find_leaves_part),
 * whose cost per row falls as more rows share each node: blocks of
 * PARTITION_BLOCK_BYTES / threads of rows, up to MAX_BLOCK rows and to
 * an even share of the rows per thread, as large as stays in the
 * last-level cache. Rows wider than FLOAT_ROW_BYTES are walked on float
 * copies (half the bytes to read), and so are large blocks of narrower
 * rows where the splits take eight rows at a time (MAX_FLOAT_WALK_BLOCK;
 * split row by row, narrow rows' floats and doubles tie). Other narrow
 * rows are copied by columns instead (col_scratch): the large ranges near a tree's root, where most of a
 * block's steps are, then read one column's values of the block's rows
 * (80 KB for 10,000 rows, within the core's L2) instead of a cache line of
 * each row, wherever the block is; smaller ranges read the rows as they
 * are (SPORF_PART_COL_MIN, walk_partition.h).
 *
 * Forests of single-feature splits on rows wider than LANES_ROW_BYTES walk
 * in lanes instead (sporf_nodes_find_leaves_f32): their steps are cheap and
 * the lanes keep a row's few reads per tree in cache; lane blocks are
 * LANES_BLOCK_BYTES, about half an L2.
 *
 * Every constant here was chosen by measurement; the numbers, the CPU they
 * were measured on and what else was tried are in benchmarks/notes/architecture.md ("How
 * prediction walks the trees"). */
#define PARTITION_BLOCK_BYTES ((int64_t)16 << 20)
#define FLOAT_ROW_BYTES ((int64_t)1024)
#define LANES_ROW_BYTES ((int64_t)4096)
#define LANES_BLOCK_BYTES ((int64_t)640 << 10)
#define MIN_BLOCK 64
/* At most 16,384 rows a block: larger blocks of narrow rows no longer stay
 * in a core's L2, and on a 2 MB-L2 EPYC blocks of 32,768 rows of 30
 * features took 1.2-1.6x the time (benchmarks/notes/architecture.md). */
#define MAX_BLOCK 16384
/* Where the splits take eight rows at a time (split_vector.h), narrow rows
 * are walked on float copies too, in blocks of up to 32,768 rows: half the
 * bytes a row keep twice the rows in the same cache, and a block's larger
 * ranges leave fewer few-row ranges at the bottom of the trees, whose
 * bookkeeping costs the most a row. The 20-tree forests' batches of 100,000
 * and 1,000,000 rows took 0.87-0.93x the time. Only when a batch fills
 * blocks of 24,576 rows or more: smaller float blocks were 2-7% slower
 * than the double rows with their column copy
 * (benchmarks/notes/speed.md, "Prediction: narrow rows on float copies"). */
#define MAX_FLOAT_WALK_BLOCK 32768
#define MIN_FLOAT_WALK_BLOCK 24576
/* Largest float or column copy of a block per worker; larger blocks walk the double rows. */
#define MAX_FLOAT_BLOCK_BYTES ((int64_t)8 << 20)

typedef struct predict_ctx {
    const sporf_forest *f;
    const sporf_matrix *X;
    int64_t block;             /* rows per block */
    int32_t *leaf_scratch;     /* leaf_stride per worker */
    int64_t leaf_stride;
    int64_t *vote_scratch;     /* 2 * block per worker */
    float *float_scratch;      /* block * ncol per worker, or NULL: float copies of the rows */
    double *col_scratch;       /* block * ncol per worker, or NULL: the block's columns (feature k of
                                  block row r at k * n + r, n the block's rows) */
    int32_t *part_scratch;     /* 2 * block per worker, or NULL: the partition walk's row indices */
    sporf_part_frame *part_stack; /* part_cap per worker */
    int32_t part_cap;
    int vec;                   /* the partition walk splits eight rows at a time (split_vector.h) */
    double *proba;             /* n x K */
    int64_t *leaves;           /* n x T */
    int64_t *count;            /* OOB: n */
    const uint8_t *inbag;      /* OOB: T bitmaps */
    int64_t bitmap_bytes;
    int64_t *first_bad;        /* per block: its first bad value (an infinity, or a NaN the forest
                                  cannot route) as row * ncol + column, or -1; NULL when X was
                                  checked before (OOB) */
    int32_t *missing_rows;     /* block per worker: the block's rows with a missing value */
} predict_ctx;

static inline const double *row_ptr(const sporf_matrix *X, int64_t r)
{
    return X->data + r * X->row_stride;
}

/* Honest trees with prior "ignore" store NaN in leaves that received
 * no estimation row: such a tree abstains on the rows that reach them. */
static int forest_abstains(const sporf_forest *f)
{
    return sporf_params_abstain(&f->params);
}

/* Add a packed leaf's values to o unless the tree abstains there; 1 if added. */
static inline int add_leaf(double *o, const sporf_tree *tr, const sporf_pnode *lf, int32_t K)
{
    if (K > 1 && lf->u.leaf.onehot >= 0) {
        o[lf->u.leaf.onehot] += 1.0; /* the other values are zeros */
        return 1;
    }
    const double *lv = sporf_pnode_leaf_values(tr, lf, K);
    if (isnan(lv[0]))
        return 0;
    for (int32_t k = 0; k < K; k++)
        o[k] += lv[k];
    return 1;
}

/* The same for row x (column stride cs) walked down tree tr's stored nodes:
 * the rows with missing values. The values are those of the packed leaf
 * (a one-hot leaf's zeros add nothing). */
static inline int add_stored_leaf(double *o, const sporf_tree *tr, const double *impute, const double *x, int64_t cs,
                                  int32_t K)
{
    const int32_t node = sporf_tree_find_stored_leaf(tr, impute, x, cs);
    const double *lv = tr->leaf_values + (int64_t)tr->nodes[node].right * K;
    if (isnan(lv[0]))
        return 0;
    for (int32_t k = 0; k < K; k++)
        o[k] += lv[k];
    return 1;
}

/* Divide a row's sum by its number of voting trees; a row on which every
 * tree abstained gets the mean of the trees' priors (honest trees have one),
 * or NaN when no tree has one: a tree grown without rows of positive weight
 * (every draw weighted 0) is a root that abstains, and out of bag a row can
 * meet only such trees. */
static void finish_row(const sporf_forest *f, double *o, int64_t votes)
{
    const int32_t K = f->n_classes;
    if (votes > 0) {
        for (int32_t k = 0; k < K; k++) o[k] /= (double)votes;
        return;
    }
    int64_t priors = 0;
    for (int32_t k = 0; k < K; k++) o[k] = 0.0;
    for (int64_t t = 0; t < f->n_trees; t++) {
        if (!f->trees[t].prior)
            continue;
        priors++;
        for (int32_t k = 0; k < K; k++) o[k] += f->trees[t].prior[k];
    }
    for (int32_t k = 0; k < K; k++) o[k] = priors > 0 ? o[k] / (double)priors : NAN;
}

/* The worker's column copy of a block of n rows, or NULL: only blocks with
 * ranges large enough to read it (SPORF_PART_COL_MIN) have one, so
 * ready_block fills it exactly when the walk reads it. */
static double *block_columns(const predict_ctx *c, int32_t worker, int64_t n)
{
    return c->col_scratch && n >= SPORF_PART_COL_MIN ? c->col_scratch + worker * c->block * c->X->ncol : NULL;
}

/* The block's rows [*r0, r0 + n). */
static int64_t block_rows(const predict_ctx *c, int64_t blk, int64_t *r0)
{
    *r0 = blk * c->block;
    const int64_t r1 = *r0 + c->block;
    return (r1 < c->X->nrow ? r1 : c->X->nrow) - *r0;
}

/* The packed leaves of bin b's trees for the block's rows [r0, r0 + n), n
 * at least SPORF_LANES: the leaf of row r in the bin's j-th tree is
 * leaf[j * n + r]. The bin's trees are walked one after another (each
 * tree's nodes stay hot for all rows) by the walk run_blocks prepared
 * scratch for: partition (xf: on float copies), else float lanes (xf),
 * else double lanes. With out (the partition walk only), the partition
 * walk adds each leaf's values to its rows' sums at out + r * K and counts
 * their votes instead, tree after tree: each row's sum in tree order, as
 * visit_leaves adds them, with each leaf and its values loaded once per
 * range of rows instead of once per row. */
static void bin_leaves(const predict_ctx *c, int32_t worker, int64_t b, int64_t r0, int64_t n, const float *xf,
                       int32_t *leaf, double *out, int64_t *votes)
{
    const sporf_forest *f = c->f;
    const sporf_packed *P = f->packed;
    const sporf_pnode *base = sporf_packed_bin_nodes(P, b);
    const int64_t t0 = P->bin_first_tree[b];
    const int32_t nt = (int32_t)(P->bin_first_tree[b + 1] - t0);
    const double *x = row_ptr(c->X, r0);
    const double *cols = block_columns(c, worker, n);
    for (int32_t j = 0; j < nt; j++) {
        if (c->part_scratch) {
            int32_t *idx = c->part_scratch + 2 * worker * c->block;
            /* votes only where trees may abstain: elsewhere every tree votes */
            const sporf_part_sums sums = {out, forest_abstains(f) ? votes : NULL, f->n_classes};
            sporf_nodes_find_leaves_part(base, P->root[t0 + j], &f->trees[t0 + j], x, c->X->row_stride,
                                         c->X->col_stride, n, leaf + j * n, idx, idx + c->block,
                                         c->part_stack + worker * c->part_cap, c->part_cap,
                                         xf, c->X->ncol, cols, SPORF_PART_COL_MIN,
                                         out ? &sums : NULL, c->vec);
        } else if (xf)
            sporf_nodes_find_leaves_f32(base, P->root[t0 + j], &f->trees[t0 + j], xf,
                                        c->X->ncol, x, c->X->row_stride, c->X->col_stride, n, leaf + j * n);
        else
            sporf_nodes_find_leaves(base, P->root[t0 + j], &f->trees[t0 + j], x, c->X->row_stride,
                                    c->X->col_stride, n, leaf + j * n, P->single_only);
    }
}

/* The packed leaves of every tree for a block of fewer than SPORF_LANES
 * rows, walked all at once (sporf_forest_find_leaves_few): row r's leaf in
 * tree t is few_leaf(P, leaf, T, r, t). */
static void few_leaves(const predict_ctx *c, int64_t r0, int64_t n, int32_t *leaf)
{
    const sporf_forest *f = c->f;
    sporf_forest_find_leaves_few(f->packed, f->trees, f->n_trees, row_ptr(c->X, r0), c->X->row_stride,
                                 c->X->col_stride, n, leaf);
}

static inline const sporf_pnode *few_leaf(const sporf_packed *P, const int32_t *leaf, int64_t T, int64_t r, int64_t t)
{
    return &sporf_packed_bin_nodes(P, P->tree_bin[t])[leaf[r * T + t]];
}

/* Walk the block's rows [r0, r0 + n) down every tree (few_leaves or bin by
 * bin) and hand each (row, tree)'s packed leaf, trees in order for each row,
 * to one of two actions: with `leaves`, store its node index at
 * leaves[(r0 + r) * T + t] (apply); otherwise add its values to out + r * K
 * and count the voting trees in votes[r] (proba). Inlined into each caller,
 * where the action is known, so the loops stay as written out. */
static inline void visit_leaves(const predict_ctx *c, int32_t worker, int64_t r0, int64_t n, const float *xf,
                                int32_t *leaf, int64_t *leaves, double *out, int64_t *votes)
{
    const sporf_forest *f = c->f;
    const sporf_packed *P = f->packed;
    const int64_t T = f->n_trees;
    const int32_t K = f->n_classes;
    if (n < SPORF_LANES) {
        few_leaves(c, r0, n, leaf);
        for (int64_t r = 0; r < n; r++)
            for (int64_t t = 0; t < T; t++) {
                const sporf_pnode *lf = few_leaf(P, leaf, T, r, t);
                if (leaves)
                    leaves[(r0 + r) * T + t] = sporf_pnode_leaf_node(lf);
                else
                    votes[r] += add_leaf(out + r * K, &f->trees[t], lf, K);
            }
        return;
    }
    for (int64_t b = 0; b < P->n_bins; b++) {
        const sporf_pnode *base = sporf_packed_bin_nodes(P, b);
        const int64_t t0 = P->bin_first_tree[b];
        const int32_t nt = (int32_t)(P->bin_first_tree[b + 1] - t0);
        if (out && c->part_scratch) {
            bin_leaves(c, worker, b, r0, n, xf, leaf, out, votes);
            continue;
        }
        bin_leaves(c, worker, b, r0, n, xf, leaf, NULL, NULL);
        for (int64_t r = 0; r < n; r++)
            for (int32_t j = 0; j < nt; j++) { /* tree order, for any block size */
                const sporf_pnode *lf = &base[leaf[j * n + r]];
                if (leaves)
                    leaves[(r0 + r) * T + t0 + j] = sporf_pnode_leaf_node(lf);
                else
                    votes[r] += add_leaf(out + r * K, &f->trees[t0 + j], lf, K);
            }
    }
}

/* Ready the block's rows: check their values (prediction checks X here,
 * per block on the workers, not in a serial pass before), list the rows
 * with a missing value in the worker's missing_rows (block positions; their
 * count in *n_missing) and, when the block takes the float walk, write the
 * rows' float copies to the worker's scratch (row r at r * ncol; else *xf
 * is NULL), or when it takes the column copy, the rows' values to that.
 * Row by row, so the check and the copy share the row's cache lines. 0 if
 * a value is infinite, or missing where the forest has no directions for
 * it (a model from format < 8): the first is recorded for run_blocks to
 * report and the block is not walked. */
static int ready_block(const predict_ctx *c, int32_t worker, int64_t blk, int64_t r0, int64_t n, const float **xf,
                       int64_t *n_missing)
{
    const sporf_matrix *X = c->X;
    float *copy = c->float_scratch && n >= SPORF_LANES ? c->float_scratch + worker * c->block * X->ncol : NULL;
    double *cols = block_columns(c, worker, n);
    int32_t *missing = c->missing_rows + worker * c->block;
    *xf = copy;
    *n_missing = 0;
    if (c->first_bad)
        c->first_bad[blk] = -1;
    for (int64_t r = 0; r < n; r++) {
        const double *x = row_ptr(X, r0 + r);
        if (c->first_bad && sporf_row_first_nonfinite(x, X->ncol, X->col_stride) >= 0) {
            int64_t bad = sporf_row_first_infinite(x, X->ncol, X->col_stride);
            if (bad < 0 && !c->f->missing_learned)
                bad = sporf_row_first_nonfinite(x, X->ncol, X->col_stride);
            if (bad >= 0) {
                c->first_bad[blk] = (r0 + r) * X->ncol + bad;
                return 0;
            }
            missing[(*n_missing)++] = (int32_t)r;
        }
        if (cols)
            for (int64_t k = 0; k < X->ncol; k++)
                cols[k * n + r] = x[k * X->col_stride];
        if (copy) {
            float *o = copy + r * X->ncol;
            for (int64_t k = 0; k < X->ncol; k++)
                o[k] = (float)x[k * X->col_stride];
        }
    }
    return 1;
}

static int proba_block(void *vctx, int64_t blk, int32_t worker, sporf_pool_ctl *ctl, sporf_error *err)
{
    (void)ctl; (void)err;
    predict_ctx *c = vctx;
    const sporf_forest *f = c->f;
    const int32_t K = f->n_classes;
    int64_t r0;
    const int64_t n = block_rows(c, blk, &r0);
    int32_t *leaf = c->leaf_scratch + worker * c->leaf_stride;
    int64_t *votes = c->vote_scratch + 2 * worker * c->block;
    double *out = c->proba + r0 * K;
    const float *xf;
    int64_t n_missing;
    if (!ready_block(c, worker, blk, r0, n, &xf, &n_missing))
        return SPORF_OK;
    memset(out, 0, (size_t)(n * K) * sizeof *out);
    memset(votes, 0, (size_t)n * sizeof *votes);
    visit_leaves(c, worker, r0, n, xf, leaf, NULL, out, votes);
    /* Rows with a missing value: their packed walks are discarded and redone
     * on the stored trees, in the same tree order. */
    const int32_t *missing = c->missing_rows + worker * c->block;
    for (int64_t m = 0; m < n_missing; m++) {
        const int64_t r = missing[m];
        memset(out + r * K, 0, (size_t)K * sizeof *out);
        votes[r] = 0;
        for (int64_t t = 0; t < f->n_trees; t++)
            votes[r] += add_stored_leaf(out + r * K, &f->trees[t], f->impute, row_ptr(c->X, r0 + r), c->X->col_stride, K);
    }
    if (forest_abstains(f)) {
        for (int64_t r = 0; r < n; r++)
            finish_row(f, out + r * K, votes[r]);
        return SPORF_OK;
    }
    const double inv = 1.0 / (double)f->n_trees;
    if (f->task == SPORF_TASK_ISOLATION) { /* the paper's score of the mean normalized path length */
        for (int64_t i = 0; i < n * K; i++)
            out[i] = exp2(-out[i] * inv);
        return SPORF_OK;
    }
    for (int64_t i = 0; i < n * K; i++)
        out[i] *= inv;
    return SPORF_OK;
}

static int apply_block(void *vctx, int64_t blk, int32_t worker, sporf_pool_ctl *ctl, sporf_error *err)
{
    (void)ctl; (void)err;
    predict_ctx *c = vctx;
    const sporf_forest *f = c->f;
    const int64_t T = f->n_trees;
    int64_t r0;
    const int64_t n = block_rows(c, blk, &r0);
    int32_t *leaf = c->leaf_scratch + worker * c->leaf_stride;
    const float *xf;
    int64_t n_missing;
    if (!ready_block(c, worker, blk, r0, n, &xf, &n_missing))
        return SPORF_OK;
    visit_leaves(c, worker, r0, n, xf, leaf, c->leaves, NULL, NULL);
    const int32_t *missing = c->missing_rows + worker * c->block;
    for (int64_t m = 0; m < n_missing; m++) {
        const int64_t r = r0 + missing[m];
        for (int64_t t = 0; t < T; t++)
            c->leaves[r * T + t] = sporf_tree_find_stored_leaf(&f->trees[t], f->impute, row_ptr(c->X, r), c->X->col_stride);
    }
    return SPORF_OK;
}

static int oob_block(void *vctx, int64_t blk, int32_t worker, sporf_pool_ctl *ctl, sporf_error *err)
{
    (void)ctl; (void)err;
    predict_ctx *c = vctx;
    const sporf_forest *f = c->f;
    const sporf_packed *P = f->packed;
    const int32_t K = f->n_classes;
    int64_t r0;
    const int64_t n = block_rows(c, blk, &r0);
    double *out = c->proba;
    int64_t *cnt = c->vote_scratch + 2 * worker * c->block;
    int64_t *votes = cnt + c->block; /* trees that did not abstain */
    memset(cnt, 0, (size_t)(2 * c->block) * sizeof *cnt);
    memset(out + r0 * K, 0, (size_t)(n * K) * sizeof *out);
    /* the rows with a missing value walk the stored trees (X is the training
     * data: it has no infinity) */
    int32_t *missing = c->missing_rows + worker * c->block;
    for (int64_t r = 0; r < n; r++)
        missing[r] = sporf_row_first_nonfinite(row_ptr(c->X, r0 + r), c->X->ncol, c->X->col_stride) >= 0;
    for (int64_t t = 0; t < f->n_trees; t++) {
        const sporf_tree *tr = &f->trees[t];
        const sporf_pnode *base = sporf_packed_bin_nodes(P, P->tree_bin[t]);
        const uint8_t *bits = c->inbag + t * c->bitmap_bytes;
        for (int64_t r = r0; r < r0 + n; r++) {
            if (bits[r >> 3] & (1u << (r & 7)))
                continue;
            cnt[r - r0]++;
            if (missing[r - r0]) {
                votes[r - r0] += add_stored_leaf(out + r * K, tr, f->impute, row_ptr(c->X, r), c->X->col_stride, K);
                continue;
            }
            const int32_t leaf = sporf_nodes_find_leaf(base, P->root[t], tr, row_ptr(c->X, r), c->X->col_stride);
            votes[r - r0] += add_leaf(out + r * K, tr, &base[leaf], K);
        }
    }
    for (int64_t r = r0; r < r0 + n; r++) {
        /* A row out of bag for no tree keeps zeros (its oob_count says so). */
        if (cnt[r - r0] > 0)
            finish_row(f, out + r * K, votes[r - r0]);
        if (c->count)
            c->count[r] = cnt[r - r0];
    }
    return SPORF_OK;
}

static int check_predict(const sporf_forest *f, const sporf_matrix *X, const void *out, sporf_error *err)
{
    if (!f)
        return sporf_set_error(err, SPORF_E_ARG, "the forest is NULL");
    if (!out)
        return sporf_set_error(err, SPORF_E_ARG, "the output buffer is NULL");
    /* the values are checked block by block (ready_block) */
    return sporf_check_matrix(X, f->n_features, SPORF_CHECK_SHAPE, "X", err);
}

static int64_t row_bytes(const sporf_matrix *X)
{
    return (X->ncol > 0 ? X->ncol : 1) * (int64_t)sizeof(double);
}

/* Does X take the partition walk, or the lanes (see PARTITION_BLOCK_BYTES)? */
static int takes_partition_walk(const sporf_forest *f, const sporf_matrix *X)
{
    return !f->packed->single_only || row_bytes(X) <= LANES_ROW_BYTES;
}

/* Rows per block for X. With several threads, partition blocks hold at
 * most an even share of the rows per thread (they want to be large), lane
 * blocks half of that, so threads finish together. */
static int64_t choose_block(const sporf_forest *f, const sporf_matrix *X, int32_t n_jobs, int64_t max_block)
{
    const int partition = takes_partition_walk(f, X);
    const int32_t threads = sporf_pool_threads(n_jobs, X->nrow);
    /* The threads share the last-level cache, so partition blocks split
     * PARTITION_BLOCK_BYTES between them. */
    int64_t b = (partition ? PARTITION_BLOCK_BYTES / threads : LANES_BLOCK_BYTES) / row_bytes(X);
    if (b < MIN_BLOCK) b = MIN_BLOCK;
    if (b > max_block) b = max_block;
    if (b > X->nrow) b = X->nrow; /* scratch for the rows there are (one-row calls stay cheap) */
    if (threads > 1) {
        const int64_t parts = partition ? threads : 2 * (int64_t)threads;
        const int64_t even = (X->nrow + parts - 1) / parts;
        if (even < b) b = even < MIN_BLOCK ? MIN_BLOCK : even;
        /* as many partition blocks as a multiple of the threads, of even
         * sizes, so the threads finish together: 100,000 rows on 2 threads
         * in six blocks of 16,667, not six of 16,384 and one of 1,696 (one
         * thread would walk a third more rows than the other). Fewer blocks
         * up to a quarter over MAX_BLOCK rather than more smaller ones:
         * eight blocks of 12,500 took 4-6% more time. */
        if (partition && b >= MIN_BLOCK) {
            int64_t nb = (X->nrow + b - 1) / b;
            nb = (nb + threads - 1) / threads * threads;
            const int64_t fewer = X->nrow / b / threads * threads;
            if (fewer >= threads && (X->nrow + fewer - 1) / fewer <= b + b / 4)
                nb = fewer;
            const int64_t even_b = (X->nrow + nb - 1) / nb;
            if (even_b >= MIN_BLOCK) b = even_b;
        }
    }
    return b;
}

int sporf_check_query(const sporf_forest *f, const sporf_matrix *X, sporf_error *err)
{
    const int rc = sporf_check_matrix(X, f->n_features, SPORF_CHECK_NO_INF, "X", err);
    if (rc != SPORF_OK)
        return rc;
    const int64_t first_missing = f->missing_learned ? -1 : sporf_matrix_first_missing(X);
    if (first_missing >= 0)
        return sporf_missing_unlearned_error(err, "X", first_missing / X->ncol, first_missing % X->ncol);
    return SPORF_OK;
}

/* The error for X's value at (row, col) that ready_block refused. */
static int bad_value_error(const predict_ctx *c, int64_t row, int64_t col, sporf_error *err)
{
    if (isinf(row_ptr(c->X, row)[col * c->X->col_stride]))
        return sporf_infinite_error(err, "X", row, col);
    return sporf_missing_unlearned_error(err, "X", row, col);
}

/* Split X into blocks and run unit on n_jobs threads with per-worker scratch. */
static int run_blocks(predict_ctx *c, int32_t n_jobs, sporf_unit_fn unit, sporf_progress_fn progress,
                      void *user_data, sporf_error *err)
{
    const int partition = takes_partition_walk(c->f, c->X);
    /* the eight-row splits, and with them large blocks of narrow rows on
     * float copies (MAX_FLOAT_WALK_BLOCK) */
    const int vec = unit != oob_block && partition && sporf_vec_enabled();
    int narrow_floats = vec && row_bytes(c->X) <= FLOAT_ROW_BYTES;
    c->block = choose_block(c->f, c->X, n_jobs, narrow_floats ? MAX_FLOAT_WALK_BLOCK : MAX_BLOCK);
    if (narrow_floats && (c->block < MIN_FLOAT_WALK_BLOCK ||
                          c->block * c->X->ncol * (int64_t)sizeof(float) > MAX_FLOAT_BLOCK_BYTES)) {
        narrow_floats = 0;
        c->block = choose_block(c->f, c->X, n_jobs, MAX_BLOCK);
    }
    const int64_t nb = (c->X->nrow + c->block - 1) / c->block;
    const int32_t threads = sporf_pool_threads(n_jobs, nb);
    /* a leaf per (row of the block, tree of a bin), or per (row, tree) of
     * the forest for a block of fewer than SPORF_LANES rows (few_leaves; a
     * call's short last block too) */
    const int64_t few = (c->block < SPORF_LANES ? c->block : SPORF_LANES - 1) * c->f->n_trees;
    c->leaf_stride = c->block * SPORF_BIN_TREES > few ? c->block * SPORF_BIN_TREES : few;
    c->leaf_scratch = malloc((size_t)(threads * c->leaf_stride) * sizeof *c->leaf_scratch);
    c->vote_scratch = malloc((size_t)(2 * threads * c->block) * sizeof *c->vote_scratch);
    /* the walks' scratch (not for OOB, which walks row by row) */
    const int64_t float_bytes = c->block * c->X->ncol * (int64_t)sizeof(float);
    int float_ok = 1;
    if (unit != oob_block && c->block >= SPORF_LANES && (row_bytes(c->X) > FLOAT_ROW_BYTES || narrow_floats) &&
        float_bytes <= MAX_FLOAT_BLOCK_BYTES) {
        c->float_scratch = malloc((size_t)(threads * float_bytes));
        float_ok = c->float_scratch != NULL;
    }
    int part_ok = 1;
    const int64_t col_bytes = c->block * c->X->ncol * (int64_t)sizeof(double);
    if (unit != oob_block && partition && c->block >= SPORF_PART_COL_MIN && !c->float_scratch &&
        row_bytes(c->X) <= FLOAT_ROW_BYTES && col_bytes <= MAX_FLOAT_BLOCK_BYTES) {
        c->col_scratch = malloc((size_t)(threads * col_bytes));
        part_ok = c->col_scratch != NULL;
    }
    if (unit != oob_block && partition && c->block >= SPORF_LANES) {
        c->part_cap = c->f->packed->max_depth + 2;
        c->vec = vec;
        c->part_scratch = malloc((size_t)(2 * threads * c->block) * sizeof *c->part_scratch);
        c->part_stack = malloc((size_t)(threads * c->part_cap) * sizeof *c->part_stack);
        part_ok = part_ok && c->part_scratch && c->part_stack;
    }
    int bad_ok = 1;
    if (unit != oob_block) {
        c->first_bad = malloc((size_t)nb * sizeof *c->first_bad);
        bad_ok = c->first_bad != NULL;
    }
    c->missing_rows = malloc((size_t)(threads * c->block) * sizeof *c->missing_rows);
    int rc = c->leaf_scratch && c->vote_scratch && float_ok && part_ok && bad_ok && c->missing_rows
                 ? sporf_pool_run(threads, nb, unit, c, progress, user_data, err)
                 : sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    /* the first bad value in X, whichever worker found it */
    for (int64_t b = 0; rc == SPORF_OK && c->first_bad && b < nb; b++)
        if (c->first_bad[b] >= 0)
            rc = bad_value_error(c, c->first_bad[b] / c->X->ncol, c->first_bad[b] % c->X->ncol, err);
    free(c->first_bad);
    free(c->missing_rows);
    free(c->leaf_scratch);
    free(c->vote_scratch);
    free(c->float_scratch);
    free(c->col_scratch);
    free(c->part_scratch);
    free(c->part_stack);
    return rc;
}

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
    return run_blocks(&c, n_jobs, proba_block, progress, user_data, err);
}

int sporf_forest_predict_proba_rows(const sporf_forest *f, const double *data, int64_t nrow, int64_t ncol,
                                    int32_t n_jobs, double *out, sporf_error *err)
{
    const sporf_matrix X = {data, nrow, ncol, ncol, 1, NULL};
    return sporf_forest_predict_proba(f, &X, n_jobs, out, NULL, NULL, err);
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
    return run_blocks(&c, n_jobs, apply_block, progress, user_data, err);
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
    return run_blocks(&c, n_threads, oob_block, NULL, NULL, err);
}

/* A survival forest's error over the rows seen so far: 1 - Harrell's C of
 * their risks (risk NaN for the rows not yet out of bag, which the count
 * leaves out), NaN while no pair is comparable. scratch: 3n + 1 int64. */
static double survival_error(const double *time, const int32_t *event, const double *risk, int64_t n,
                             int64_t *scratch)
{
    double concordant, tied, comparable;
    sporf_concordance_counts(time, event, risk, n, scratch, scratch + n, scratch + 2 * n, &concordant, &tied,
                             &comparable);
    return comparable > 0 ? 1.0 - (concordant + 0.5 * tied) / comparable : NAN;
}

/* One pass over the trees in order, each adding its leaves to the rows out
 * of its bag (as oob_block does, so the last point is the full OOB error to
 * the bit), then the error of every row seen so far. A survival forest (y:
 * event flags, yr: times) keeps the rows' risks for survival_error. */
int sporf_forest_oob_error_curve(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag,
                                 const int32_t *y, const double *yr, double *curve, double *class_curve,
                                 sporf_error *err)
{
    const int64_t n = X->nrow, T = f->n_trees, bitmap_bytes = (n + 7) / 8;
    const int32_t K = f->n_classes;
    const sporf_packed *P = f->packed;
    double *sum = calloc((size_t)(n * K), sizeof *sum), *o = malloc((size_t)K * sizeof *o);
    int64_t *cnt = calloc((size_t)n, sizeof *cnt), *votes = calloc((size_t)n, sizeof *votes);
    uint8_t *missing = malloc((size_t)n);
    /* each class's errors and rows seen (class_curve) */
    double *class_e = calloc((size_t)K, sizeof *class_e);
    int64_t *class_m = calloc((size_t)K, sizeof *class_m);
    const int survival = f->task == SPORF_TASK_SURVIVAL;
    double *risk = survival ? malloc((size_t)n * sizeof *risk) : NULL;
    int64_t *scratch = survival ? malloc((size_t)(3 * n + 1) * sizeof *scratch) : NULL;
    int rc = SPORF_OK;
    if (!sum || !o || !cnt || !votes || !missing || !class_e || !class_m || (survival && (!risk || !scratch))) {
        rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory for the out-of-bag error curve");
        goto done;
    }
    for (int64_t r = 0; r < n; r++)
        missing[r] = sporf_row_first_nonfinite(row_ptr(X, r), X->ncol, X->col_stride) >= 0;
    for (int64_t t = 0; t < T; t++) {
        const sporf_tree *tr = &f->trees[t];
        const sporf_pnode *base = sporf_packed_bin_nodes(P, P->tree_bin[t]);
        const uint8_t *bits = inbag + t * bitmap_bytes;
        for (int64_t r = 0; r < n; r++) {
            if (bits[r >> 3] & (1u << (r & 7)))
                continue;
            cnt[r]++;
            if (missing[r]) {
                votes[r] += add_stored_leaf(sum + r * K, tr, f->impute, row_ptr(X, r), X->col_stride, K);
                continue;
            }
            const int32_t leaf = sporf_nodes_find_leaf(base, P->root[t], tr, row_ptr(X, r), X->col_stride);
            votes[r] += add_leaf(sum + r * K, tr, &base[leaf], K);
        }
        double e = 0.0;
        int64_t m = 0;
        for (int32_t k = 0; class_curve && k < K; k++) {
            class_e[k] = 0.0;
            class_m[k] = 0;
        }
        for (int64_t r = 0; r < n; r++) {
            if (cnt[r] == 0) {
                if (risk) risk[r] = NAN;
                continue;
            }
            memcpy(o, sum + r * K, (size_t)K * sizeof *o);
            finish_row(f, o, votes[r]);
            if (risk) {
                risk[r] = o[0];
            } else if (yr) {
                const double d = o[0] - yr[r];
                e += d * d;
            } else {
                int32_t best = 0;
                for (int32_t k = 1; k < K; k++)
                    if (o[k] > o[best]) best = k;
                e += best != y[r];
                if (class_curve) {
                    class_e[y[r]] += best != y[r];
                    class_m[y[r]]++;
                }
            }
            m++;
        }
        curve[t] = risk ? survival_error(yr, y, risk, n, scratch) : m > 0 ? e / (double)m : NAN;
        for (int32_t k = 0; class_curve && k < K; k++)
            class_curve[t * K + k] = class_m[k] > 0 ? class_e[k] / (double)class_m[k] : NAN;
    }
done:
    free(risk);
    free(scratch);
    free(class_e);
    free(class_m);
    free(sum);
    free(o);
    free(cnt);
    free(votes);
    free(missing);
    return rc;
}

int sporf_forest_predict_votes(const sporf_forest *f, const sporf_matrix *X, int32_t n_jobs, double *out,
                               sporf_error *err)
{
    sporf_clear_error(err);
    if (f && f->task != SPORF_TASK_CLASSIFICATION)
        return sporf_set_error(err, SPORF_E_ARG, "votes are a classification forest's");
    if (f && f->n_outputs > 1)
        return sporf_set_error(err, SPORF_E_ARG, "votes are a single-output forest's");
    int rc = check_predict(f, X, out, err);
    if (rc != SPORF_OK)
        return rc;
    const int64_t n = X->nrow, T = f->n_trees;
    const int32_t K = f->n_classes;
    int64_t *leaves = malloc((size_t)(n * T) * sizeof *leaves);
    if (!leaves)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory for %lld x %lld leaves", (long long)n, (long long)T);
    if ((rc = sporf_forest_apply(f, X, n_jobs, leaves, NULL, NULL, err)) == SPORF_OK) {
        for (int64_t r = 0; r < n; r++) {
            double *o = out + r * K;
            int64_t voters = 0;
            memset(o, 0, (size_t)K * sizeof *o);
            for (int64_t t = 0; t < T; t++) {
                const sporf_tree *tr = &f->trees[t];
                const double *lv = tr->leaf_values + (int64_t)tr->nodes[leaves[r * T + t]].right * K;
                if (isnan(lv[0]))
                    continue; /* an honest leaf that abstains */
                int32_t best = 0;
                for (int32_t k = 1; k < K; k++)
                    if (lv[k] > lv[best]) best = k;
                o[best] += 1.0;
                voters++;
            }
            for (int32_t k = 0; voters > 0 && k < K; k++)
                o[k] /= (double)voters;
        }
    }
    free(leaves);
    return rc;
}
