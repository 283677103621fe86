/* tree_codec.c -- see tree_codec.h. */
#include "model/tree_codec.h"

#include <math.h>
#include <stdlib.h>

enum { TAG_LEAF_ONEHOT = 0, TAG_LEAF_VALUES = 1, TAG_SPLIT_UNIT = 2, TAG_SPLIT_REAL = 3 };
#define TAG_LEN_ESCAPE 63

static int is_bits(double v, double want)
{
    return memcmp(&v, &want, sizeof v) == 0; /* +0.0 only, never -0.0 */
}

static int unit_weights(const double *w, int32_t len)
{
    for (int32_t k = 0; k < len; k++)
        if (!is_bits(w[k], 1.0) && !is_bits(w[k], -1.0))
            return 0;
    return 1;
}

static int onehot_allowed(const sporf_forest *f)
{
    return f->task == SPORF_TASK_CLASSIFICATION && f->n_outputs == 1 && f->n_classes <= SPORF_ONEHOT_MAX_CLASSES;
}

void sporf_tree_encode(const sporf_tree *tr, const sporf_forest *f, sporf_writer *w)
{
    const int32_t K = f->n_classes;
    sporf_put_varint(w, (uint32_t)tr->n_nodes);
    sporf_put_varint(w, (uint32_t)tr->n_proj);
    for (int32_t i = 0; i < tr->n_nodes; i++) {
        const sporf_node *nd = &tr->nodes[i];
        if (nd->left < 0) {
            const double *lv = tr->leaf_values + (int64_t)nd->right * K;
            const int32_t c = onehot_allowed(f) ? sporf_leaf_onehot_class(lv, K) : -1;
            if (c >= 0) {
                sporf_put_u8(w, TAG_LEAF_ONEHOT);
                sporf_put_varint(w, (uint32_t)c);
            } else {
                sporf_put_u8(w, TAG_LEAF_VALUES);
                for (int32_t k = 0; k < K; k++) sporf_put_f64(w, lv[k]);
            }
            continue;
        }
        const int32_t len = nd->proj_len;
        const int32_t *feat = tr->proj_feature + nd->proj_start;
        const double *wt = tr->proj_weight + nd->proj_start;
        const int unit = unit_weights(wt, len);
        const uint8_t kind = unit ? TAG_SPLIT_UNIT : TAG_SPLIT_REAL;
        if (len < TAG_LEN_ESCAPE) {
            sporf_put_u8(w, (uint8_t)(kind | (len << 2)));
        } else {
            sporf_put_u8(w, (uint8_t)(kind | (TAG_LEN_ESCAPE << 2)));
            sporf_put_varint(w, (uint32_t)len);
        }
        for (int32_t k = 0; k < len; k++) sporf_put_varint(w, (uint32_t)feat[k]);
        if (unit) {
            for (int32_t k = 0; k < len; k += 8) {
                uint8_t signs = 0;
                for (int32_t b = 0; b < 8 && k + b < len; b++)
                    if (wt[k + b] < 0.0) signs |= (uint8_t)(1u << b);
                sporf_put_u8(w, signs);
            }
        } else {
            for (int32_t k = 0; k < len; k++) sporf_put_f64(w, wt[k]);
        }
        sporf_put_f64(w, nd->threshold);
        sporf_put_f64(w, nd->gain);
        sporf_put_u8(w, (uint8_t)nd->missing);
    }
    if (sporf_params_honest(&f->params))
        for (int32_t k = 0; k < K; k++) sporf_put_f64(w, tr->prior[k]);
}

static int value_ok(double v, int probability)
{
    return probability ? (v >= 0.0 && v <= 1.0) : isfinite(v);
}

int sporf_leaf_values_ok(const double *lv, const sporf_forest *f)
{
    const int32_t K = f->n_classes;
    const int probability = !sporf_task_values(f->task);
    const int may_abstain = sporf_params_abstain(&f->params);
    const int abstains = may_abstain && isnan(lv[0]);
    for (int32_t k = 0; k < K; k++)
        if (abstains ? !isnan(lv[k]) : !value_ok(lv[k], probability))
            return 0;
    /* an isolation leaf's path length over c(psi) is >= 0: the score 2^(-it) stays in (0, 1] */
    return f->task != SPORF_TASK_ISOLATION || lv[0] >= 0.0;
}

int sporf_read_prior(sporf_reader *r, sporf_tree *tr, const sporf_forest *f, int64_t t, sporf_error *err)
{
    if (!sporf_params_honest(&f->params))
        return SPORF_OK;
    const int32_t K = f->n_classes;
    tr->prior = malloc((size_t)K * sizeof *tr->prior);
    if (!tr->prior)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory loading tree %lld", (long long)t);
    for (int32_t k = 0; k < K; k++) tr->prior[k] = sporf_get_f64(r);
    if (r->bad)
        return sporf_set_error(err, SPORF_E_FORMAT, "model is truncated in tree %lld", (long long)t);
    for (int32_t k = 0; k < K; k++)
        if (!value_ok(tr->prior[k], !sporf_task_values(f->task)))
            return sporf_set_error(err, SPORF_E_FORMAT, "tree %lld: its honest prior is not valid", (long long)t);
    return SPORF_OK;
}

int sporf_preorder_init(sporf_preorder *w, int32_t cap)
{
    memset(w, 0, sizeof *w);
    w->cap = cap;
    w->open_node = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *w->open_node);
    w->open_depth = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *w->open_depth);
    return w->open_node && w->open_depth;
}

void sporf_preorder_free(sporf_preorder *w)
{
    free(w->open_node);
    free(w->open_depth);
    w->open_node = w->open_depth = NULL;
}

int32_t sporf_preorder_enter(sporf_preorder *w, int32_t i, int prev_is_leaf)
{
    int32_t parent = -1;
    if (i > 0 && prev_is_leaf) {
        /* After a leaf comes the right child of the innermost open split. */
        if (w->top == 0)
            return -2;
        w->top--;
        parent = w->open_node[w->top];
        w->depth = w->open_depth[w->top] + 1;
    } else if (i > 0) {
        w->depth++; /* the left child of node i - 1 */
    }
    if (w->depth > w->max_depth) w->max_depth = w->depth;
    return parent;
}

int sporf_preorder_open(sporf_preorder *w, int32_t i)
{
    if (w->top >= w->cap)
        return 0;
    w->open_node[w->top] = i;
    w->open_depth[w->top] = w->depth;
    w->top++;
    return 1;
}

#define CORRUPT(...) do { rc = sporf_set_error(err, SPORF_E_FORMAT, __VA_ARGS__); goto fail; } while (0)

int sporf_tree_decode(sporf_reader *r, sporf_tree *tr, const sporf_forest *f, int64_t t, int with_missing,
                      sporf_error *err)
{
    const int64_t p = f->n_features;
    const int32_t K = f->n_classes;
    int rc = SPORF_OK;
    sporf_preorder walk;
    memset(&walk, 0, sizeof walk);
    const int32_t n_nodes = sporf_get_varint(r), n_proj = sporf_get_varint(r);
    if (r->bad) CORRUPT("model is truncated in tree %lld", (long long)t);
    /* in 64 bits: a corrupt count may be INT32_MAX */
    const int32_t n_leaves = (int32_t)(((int64_t)n_nodes + 1) / 2), n_splits = n_nodes - n_leaves;
    /* A full binary tree has an odd node count; each split has a non-zero. */
    if (n_nodes < 1 || n_nodes % 2 == 0 || n_proj < n_splits)
        CORRUPT("tree %lld has impossible sizes (%d nodes, %d non-zeros)", (long long)t, n_nodes, n_proj);
    /* Every count is checked against the bytes left before anything is
     * allocated: a split takes at least 19 bytes (20 with its missing-value
     * direction, format >= 8) plus one per further non-zero, a leaf at least
     * 2 (one-hot) and its values at most SPORF_ONEHOT_MAX_CLASSES / 2 doubles
     * per byte. */
    const double left = (double)(r->len - r->pos);
    const double split_bytes = with_missing ? 20.0 : 19.0;
    const double least = split_bytes * n_splits + (double)(n_proj - n_splits) + 2.0 * n_leaves;
    if (least > left || (double)n_leaves * (double)K > (SPORF_ONEHOT_MAX_CLASSES / 2.0) * left)
        CORRUPT("model is truncated in tree %lld (its sizes need more bytes than remain)", (long long)t);
    if (!sporf_preorder_init(&walk, n_splits) || !sporf_tree_alloc(tr, n_nodes, n_leaves, n_proj, K)) {
        rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory loading tree %lld", (long long)t);
        goto fail;
    }
    int32_t leaves = 0, proj = 0;
    for (int32_t i = 0; i < n_nodes; i++) {
        const int32_t parent = sporf_preorder_enter(&walk, i, i > 0 && tr->nodes[i - 1].left < 0);
        if (parent == -2) CORRUPT("tree %lld: nodes continue after the tree is complete", (long long)t);
        if (parent >= 0) tr->nodes[parent].right = i;
        sporf_node *nd = &tr->nodes[i];
        const uint8_t tag = sporf_get_u8(r);
        const int kind = tag & 3;
        if (r->bad) CORRUPT("model is truncated in tree %lld", (long long)t);
        if (kind == TAG_LEAF_ONEHOT || kind == TAG_LEAF_VALUES) {
            if (tag >> 2) CORRUPT("tree %lld, node %d: bad leaf tag", (long long)t, i);
            if (leaves >= n_leaves) CORRUPT("tree %lld has more leaves than its size allows", (long long)t);
            double *lv = tr->leaf_values + (int64_t)leaves * K;
            if (kind == TAG_LEAF_ONEHOT) {
                const int32_t c = sporf_get_varint(r);
                if (r->bad || !onehot_allowed(f) || c >= K)
                    CORRUPT("tree %lld, node %d: bad one-hot leaf", (long long)t, i);
                for (int32_t k = 0; k < K; k++) lv[k] = k == c ? 1.0 : 0.0;
            } else {
                for (int32_t k = 0; k < K; k++) lv[k] = sporf_get_f64(r);
                if (r->bad) CORRUPT("model is truncated in tree %lld", (long long)t);
                if (!sporf_leaf_values_ok(lv, f))
                    CORRUPT(sporf_task_values(f->task)
                                ? "tree %lld: a leaf value is not a finite number"
                                : "tree %lld: a leaf probability is outside [0, 1]", (long long)t);
            }
            nd->left = -1;
            nd->right = leaves++;
            continue;
        }
        int32_t len = tag >> 2;
        if (len == TAG_LEN_ESCAPE) {
            len = sporf_get_varint(r);
            if (!r->bad && len < TAG_LEN_ESCAPE) r->bad = 1; /* one byte form per length */
        }
        if (r->bad || len < 1 || len > n_proj - proj || i == n_nodes - 1 || !sporf_preorder_open(&walk, i))
            CORRUPT("tree %lld, node %d: bad split", (long long)t, i);
        for (int32_t k = 0; k < len; k++) {
            const int32_t fk = sporf_get_varint(r);
            if (r->bad || fk >= p)
                CORRUPT("tree %lld: feature index out of range [0, %lld)", (long long)t, (long long)p);
            tr->proj_feature[proj + k] = fk;
        }
        if (kind == TAG_SPLIT_UNIT) {
            for (int32_t k = 0; k < len; k += 8) {
                const uint8_t signs = sporf_get_u8(r);
                const int32_t in_byte = len - k < 8 ? len - k : 8;
                if (in_byte < 8 && (signs >> in_byte))
                    CORRUPT("tree %lld, node %d: stray sign bits", (long long)t, i);
                for (int32_t b = 0; b < in_byte; b++)
                    tr->proj_weight[proj + k + b] = (signs >> b) & 1 ? -1.0 : 1.0;
            }
        } else {
            for (int32_t k = 0; k < len; k++) {
                const double wk = sporf_get_f64(r);
                if (!isfinite(wk) && !r->bad)
                    CORRUPT("tree %lld: a projection weight is not finite", (long long)t);
                tr->proj_weight[proj + k] = wk;
            }
            /* The encoder writes +-1 weights as signs: one form per forest. */
            if (!r->bad && unit_weights(tr->proj_weight + proj, len))
                CORRUPT("tree %lld, node %d: unit weights stored as numbers", (long long)t, i);
        }
        nd->threshold = sporf_get_f64(r);
        nd->gain = sporf_get_f64(r);
        if (with_missing) {
            const uint8_t dir = sporf_get_u8(r);
            if (!r->bad && (dir > SPORF_MISSING_IMPUTE || (dir == SPORF_MISSING_IMPUTE && !f->impute)))
                CORRUPT("tree %lld, node %d: bad missing-value direction %u", (long long)t, i, (unsigned)dir);
            nd->missing = dir;
        }
        if (r->bad) CORRUPT("model is truncated in tree %lld", (long long)t);
        if (!isfinite(nd->threshold) || !isfinite(nd->gain) || nd->gain < 0.0)
            CORRUPT("tree %lld, node %d: threshold or gain is not a finite number", (long long)t, i);
        nd->left = i + 1;
        nd->proj_start = proj;
        nd->proj_len = len;
        proj += len;
    }
    if (walk.top != 0 || leaves != n_leaves || proj != n_proj)
        CORRUPT("tree %lld ends before its last subtree (%d open splits)", (long long)t, walk.top);
    tr->depth = walk.max_depth;
    if ((rc = sporf_read_prior(r, tr, f, t, err)) != SPORF_OK)
        goto fail;
    sporf_preorder_free(&walk);
    return SPORF_OK;
fail:
    sporf_preorder_free(&walk);
    return rc;
}
