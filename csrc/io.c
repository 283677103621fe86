/*
 * io.c -- the model format (version 3; versions 1 (before patch forests)
 * and 2 (before regression and honesty) are still read). Little-endian, explicit widths:
 *
 *   "SPORFMDL"  u32 version  u32 reserved(0)  u64 payload_length
 *   payload:
 *     params      i64 n_estimators, i32 projection, f64 feature_combinations,
 *                 i32 max_features_mode, f64 max_features_value, i32 criterion,
 *                 i64 max_depth, i64 min_samples_split, i64 min_samples_leaf,
 *                 f64 min_impurity_decrease, f64 min_weight_fraction_leaf, i32 bootstrap, i64 max_samples_count,
 *                 f64 max_samples_fraction, i32 class_weight_mode, u64 random_state,
 *                 [version >= 2] i32 n_dims, 8 x (i64 data_dims, i64 min_patch_dims,
 *                 i64 max_patch_dims, i32 boundary, i32 dim_contiguous), i32 patch_weights,
 *                 [version >= 3] f64 honest_fraction, i32 honest_prior
 *                 (n_jobs is a run-time choice and is not stored, so a model's
 *                 bytes do not depend on the thread count)
 *     i64 n_features, i32 n_classes, i64 n_trees, [version >= 3] i32 task
 *     2 x strings i32 kind, i64 count, i64 length, bytes (classes, feature names)
 *     per tree    i32 n_nodes, i32 n_leaves, i32 n_proj, i32 depth,
 *                 n_nodes x (i32 left, i32 right, i32 proj_start, i32 proj_len,
 *                            f64 threshold, f64 gain),
 *                 n_proj x i32 feature, n_proj x f64 weight,
 *                 n_leaves x n_classes x f64 leaf values (class distribution, or
 *                 the mean for regression; NaN rows for honest leaves that abstain),
 *                 [honest_fraction > 0] n_classes x f64 prior
 *   u64 FNV-1a checksum of every byte before it
 *
 * The loader trusts nothing: it checks the checksum first, every count against
 * the bytes that remain before allocating, and every index and value.
 */
#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_VERSION 3u
#define HEADER_BYTES 24
static const char MAGIC[8] = {'S', 'P', 'O', 'R', 'F', 'M', 'D', 'L'};

/* ---- writing ---- */
typedef struct writer {
    uint8_t *buf; /* NULL: only count */
    int64_t pos;
} writer;

static void put_u64(writer *w, uint64_t v)
{
    if (w->buf)
        for (int i = 0; i < 8; i++) w->buf[w->pos + i] = (uint8_t)(v >> (8 * i));
    w->pos += 8;
}
static void put_u32(writer *w, uint32_t v)
{
    if (w->buf)
        for (int i = 0; i < 4; i++) w->buf[w->pos + i] = (uint8_t)(v >> (8 * i));
    w->pos += 4;
}
static void put_i64(writer *w, int64_t v) { put_u64(w, (uint64_t)v); }
static void put_i32(writer *w, int32_t v) { put_u32(w, (uint32_t)v); }
static void put_f64(writer *w, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    put_u64(w, u);
}
static void put_bytes(writer *w, const void *p, int64_t n)
{
    if (w->buf && n > 0) memcpy(w->buf + w->pos, p, (size_t)n);
    w->pos += n;
}

static uint64_t fnv1a(const uint8_t *p, int64_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int64_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static void write_model(const sporf_forest *f, writer *w)
{
    const sporf_params *P = &f->params;
    put_bytes(w, MAGIC, 8);
    put_u32(w, FORMAT_VERSION);
    put_u32(w, 0);
    int64_t len_pos = w->pos;
    put_u64(w, 0); /* payload length, patched below */
    int64_t payload_start = w->pos;
    put_i64(w, P->n_estimators);
    put_i32(w, P->projection);
    put_f64(w, P->feature_combinations);
    put_i32(w, P->max_features_mode);
    put_f64(w, P->max_features_value);
    put_i32(w, P->criterion);
    put_i64(w, P->max_depth);
    put_i64(w, P->min_samples_split);
    put_i64(w, P->min_samples_leaf);
    put_f64(w, P->min_impurity_decrease);
    put_f64(w, P->min_weight_fraction_leaf);
    put_i32(w, P->bootstrap);
    put_i64(w, P->max_samples_count);
    put_f64(w, P->max_samples_fraction);
    put_i32(w, P->class_weight_mode);
    put_u64(w, P->random_state);
    put_i32(w, P->n_dims);
    for (int k = 0; k < SPORF_MAX_DIMS; k++) {
        put_i64(w, P->data_dims[k]);
        put_i64(w, P->min_patch_dims[k]);
        put_i64(w, P->max_patch_dims[k]);
        put_i32(w, P->boundary[k]);
        put_i32(w, P->dim_contiguous[k]);
    }
    put_i32(w, P->patch_weights);
    put_f64(w, P->honest_fraction);
    put_i32(w, P->honest_prior);
    put_i64(w, f->n_features);
    put_i32(w, f->n_classes);
    put_i64(w, f->n_trees);
    put_i32(w, f->task);
    for (int s = 0; s < 2; s++) {
        put_i32(w, f->strings[s].kind);
        put_i64(w, f->strings[s].count);
        put_i64(w, f->strings[s].len);
        put_bytes(w, f->strings[s].blob, f->strings[s].len);
    }
    const int32_t K = f->n_classes;
    for (int64_t t = 0; t < f->n_trees; t++) {
        const sporf_tree *tr = &f->trees[t];
        put_i32(w, tr->n_nodes);
        put_i32(w, tr->n_leaves);
        put_i32(w, tr->n_proj);
        put_i32(w, tr->depth);
        for (int32_t i = 0; i < tr->n_nodes; i++) {
            const sporf_node *nd = &tr->nodes[i];
            put_i32(w, nd->left);
            put_i32(w, nd->right);
            put_i32(w, nd->proj_start);
            put_i32(w, nd->proj_len);
            put_f64(w, nd->threshold);
            put_f64(w, nd->gain);
        }
        for (int32_t k = 0; k < tr->n_proj; k++) put_i32(w, tr->proj_feature[k]);
        for (int32_t k = 0; k < tr->n_proj; k++) put_f64(w, tr->proj_weight[k]);
        for (int64_t k = 0; k < (int64_t)tr->n_leaves * K; k++) put_f64(w, tr->leaf_values[k]);
        if (P->honest_fraction > 0.0)
            for (int32_t k = 0; k < K; k++) put_f64(w, tr->prior[k]);
    }
    int64_t payload_len = w->pos - payload_start;
    if (w->buf) {
        writer patch = {w->buf, len_pos};
        put_u64(&patch, (uint64_t)payload_len);
        uint64_t h = fnv1a(w->buf, w->pos);
        put_u64(w, h);
    } else {
        w->pos += 8;
    }
}

int sporf_forest_save(const sporf_forest *f, uint8_t *buf, int64_t cap, int64_t *size_out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !size_out)
        return sporf_set_error(err, SPORF_E_ARG, "save: forest and size_out are required");
    writer count = {NULL, 0};
    write_model(f, &count);
    *size_out = count.pos;
    if (!buf || cap < count.pos)
        return SPORF_OK;
    writer w = {buf, 0};
    write_model(f, &w);
    return SPORF_OK;
}

/* ---- reading ---- */
typedef struct reader {
    const uint8_t *p;
    int64_t len, pos;
    int bad;
} reader;

static int need(reader *r, int64_t n)
{
    if (r->bad || n < 0 || r->len - r->pos < n) {
        r->bad = 1;
        return 0;
    }
    return 1;
}
static uint64_t get_u64(reader *r)
{
    if (!need(r, 8)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)r->p[r->pos + i] << (8 * i);
    r->pos += 8;
    return v;
}
static uint32_t get_u32(reader *r)
{
    if (!need(r, 4)) return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)r->p[r->pos + i] << (8 * i);
    r->pos += 4;
    return v;
}
static int64_t get_i64(reader *r) { return (int64_t)get_u64(r); }
static int32_t get_i32(reader *r) { return (int32_t)get_u32(r); }
static double get_f64(reader *r)
{
    uint64_t u = get_u64(r);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

#define CORRUPT(...) do { rc = sporf_set_error(err, SPORF_E_FORMAT, __VA_ARGS__); goto fail; } while (0)

/* A leaf value or prior: a probability for classification, finite for
 * regression; NaN (a whole leaf) only where honest trees may abstain. */
static int value_ok(double v, int regression)
{
    return regression ? isfinite(v) : (v >= 0.0 && v <= 1.0);
}

static int read_tree(reader *r, sporf_tree *tr, const sporf_forest *f, int64_t t, sporf_error *err)
{
    const int64_t p = f->n_features;
    const int32_t K = f->n_classes;
    const int regression = f->task == SPORF_TASK_REGRESSION;
    const int honest = f->params.honest_fraction > 0.0;
    const int may_abstain = honest && f->params.honest_prior == SPORF_HONEST_IGNORE;
    int rc = SPORF_OK;
    uint8_t *seen = NULL;
    int32_t n_nodes = get_i32(r), n_leaves = get_i32(r), n_proj = get_i32(r), depth = get_i32(r);
    if (r->bad) CORRUPT("model is truncated in tree %lld", (long long)t);
    if (n_nodes < 1 || n_leaves < 1 || n_leaves > n_nodes || n_proj < 0 || depth < 0 || depth >= n_nodes)
        CORRUPT("tree %lld has impossible sizes (nodes %d, leaves %d, non-zeros %d, depth %d)",
                (long long)t, n_nodes, n_leaves, n_proj, depth);
    /* Every count is checked against the bytes left before anything is allocated. */
    double bytes = (double)n_nodes * 32.0 + (double)n_proj * 12.0 + (double)n_leaves * (double)K * 8.0;
    if (bytes > (double)(r->len - r->pos))
        CORRUPT("model is truncated in tree %lld (needs %.0f more bytes)", (long long)t, bytes);
    tr->n_nodes = n_nodes;
    tr->n_leaves = n_leaves;
    tr->n_proj = n_proj;
    tr->depth = depth;
    tr->nodes = malloc((size_t)n_nodes * sizeof *tr->nodes);
    tr->proj_feature = malloc((size_t)(n_proj > 0 ? n_proj : 1) * sizeof(int32_t));
    tr->proj_weight = malloc((size_t)(n_proj > 0 ? n_proj : 1) * sizeof(double));
    tr->leaf_values = malloc((size_t)n_leaves * (size_t)K * sizeof(double));
    seen = calloc((size_t)n_nodes + (size_t)n_leaves, 1);
    if (!tr->nodes || !tr->proj_feature || !tr->proj_weight || !tr->leaf_values || !seen) {
        rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory loading tree %lld", (long long)t);
        goto fail;
    }
    uint8_t *has_parent = seen, *leaf_used = seen + n_nodes;
    for (int32_t i = 0; i < n_nodes; i++) {
        sporf_node *nd = &tr->nodes[i];
        nd->left = get_i32(r);
        nd->right = get_i32(r);
        nd->proj_start = get_i32(r);
        nd->proj_len = get_i32(r);
        nd->threshold = get_f64(r);
        nd->gain = get_f64(r);
        if (nd->left == -1) {
            if (nd->right < 0 || nd->right >= n_leaves || leaf_used[nd->right] || nd->proj_len != 0)
                CORRUPT("tree %lld, node %d: bad leaf", (long long)t, i);
            leaf_used[nd->right] = 1;
        } else {
            /* Children come after their parent and have exactly one parent: a tree, no cycles. */
            if (nd->left <= i || nd->right <= i || nd->left >= n_nodes || nd->right >= n_nodes ||
                nd->left == nd->right || has_parent[nd->left] || has_parent[nd->right])
                CORRUPT("tree %lld, node %d: bad child index", (long long)t, i);
            has_parent[nd->left] = has_parent[nd->right] = 1;
            if (nd->proj_len < 1 || nd->proj_start < 0 || nd->proj_start > n_proj - nd->proj_len)
                CORRUPT("tree %lld, node %d: projection out of range", (long long)t, i);
            if (!isfinite(nd->threshold) || !isfinite(nd->gain) || nd->gain < 0.0)
                CORRUPT("tree %lld, node %d: threshold or gain is not a finite number", (long long)t, i);
        }
    }
    for (int32_t i = 1; i < n_nodes; i++)
        if (!has_parent[i])
            CORRUPT("tree %lld, node %d is unreachable", (long long)t, i);
    for (int32_t i = 0; i < n_leaves; i++)
        if (!leaf_used[i])
            CORRUPT("tree %lld: leaf slot %d is unused", (long long)t, i);
    for (int32_t k = 0; k < n_proj; k++) {
        tr->proj_feature[k] = get_i32(r);
        if (tr->proj_feature[k] < 0 || tr->proj_feature[k] >= p)
            CORRUPT("tree %lld: feature index %d out of range [0, %lld)", (long long)t,
                    tr->proj_feature[k], (long long)p);
    }
    for (int32_t k = 0; k < n_proj; k++) {
        tr->proj_weight[k] = get_f64(r);
        if (!isfinite(tr->proj_weight[k]))
            CORRUPT("tree %lld: a projection weight is not finite", (long long)t);
    }
    for (int64_t l = 0; l < n_leaves; l++) {
        double *lv = tr->leaf_values + l * K;
        for (int32_t k = 0; k < K; k++) lv[k] = get_f64(r);
        const int abstains = may_abstain && isnan(lv[0]);
        for (int32_t k = 0; k < K; k++)
            if (abstains ? !isnan(lv[k]) : !value_ok(lv[k], regression))
                CORRUPT(regression ? "tree %lld: a leaf value is not a finite number"
                                   : "tree %lld: a leaf probability is outside [0, 1]", (long long)t);
    }
    if (honest) {
        tr->prior = malloc((size_t)K * sizeof *tr->prior);
        if (!tr->prior) {
            rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory loading tree %lld", (long long)t);
            goto fail;
        }
        for (int32_t k = 0; k < K; k++) {
            tr->prior[k] = get_f64(r);
            if (!value_ok(tr->prior[k], regression))
                CORRUPT("tree %lld: its honest prior is not valid", (long long)t);
        }
    }
    if (r->bad) CORRUPT("model is truncated in tree %lld", (long long)t);
    if (!sporf_tree_prepare(tr)) {
        rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory loading tree %lld", (long long)t);
        goto fail;
    }
    free(seen);
    return SPORF_OK;
fail:
    free(seen);
    return rc;
}

static int read_strings(reader *r, sporf_strings *s, int64_t want, int allow_empty, const char *what,
                        sporf_error *err)
{
    int rc = SPORF_OK;
    s->kind = get_i32(r);
    s->count = get_i64(r);
    s->len = get_i64(r);
    if (r->bad || s->len < 0 || s->len > r->len - r->pos)
        CORRUPT("model is truncated in the %s", what);
    if (s->count != want && !(allow_empty && s->count == 0))
        CORRUPT("model holds %lld %s, expected %lld", (long long)s->count, what, (long long)want);
    if (s->len > 0) {
        s->blob = malloc((size_t)s->len);
        if (!s->blob) return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
        memcpy(s->blob, r->p + r->pos, (size_t)s->len);
        r->pos += s->len;
        if (s->blob[s->len - 1] != '\0')
            CORRUPT("the %s are not NUL-terminated", what);
    }
    int64_t c = 0;
    for (int64_t i = 0; i < s->len; i++) c += s->blob[i] == '\0';
    if (c != s->count)
        CORRUPT("the %s hold %lld strings, expected %lld", what, (long long)c, (long long)s->count);
    return SPORF_OK;
fail:
    return rc;
}

int sporf_forest_load(const uint8_t *buf, int64_t len, sporf_forest **out, sporf_error *err)
{
    sporf_clear_error(err);
    int rc = SPORF_OK;
    sporf_forest *f = NULL;
    if (!out)
        return sporf_set_error(err, SPORF_E_ARG, "load: out must not be NULL");
    *out = NULL;
    if (!buf || len < HEADER_BYTES + 8)
        return sporf_set_error(err, SPORF_E_FORMAT, "not a sporf model: only %lld bytes", (long long)len);
    if (memcmp(buf, MAGIC, 8) != 0)
        return sporf_set_error(err, SPORF_E_FORMAT, "not a sporf model (bad magic bytes)");
    reader r = {buf, len, 8, 0};
    uint32_t version = get_u32(&r);
    (void)get_u32(&r);
    uint64_t payload_len = get_u64(&r);
    if (version < 1 || version > FORMAT_VERSION)
        return sporf_set_error(err, SPORF_E_FORMAT, "model format version %u is not supported (this build reads %u)",
                               version, FORMAT_VERSION);
    if (payload_len != (uint64_t)(len - HEADER_BYTES - 8))
        return sporf_set_error(err, SPORF_E_FORMAT,
                               "model is truncated or has trailing bytes (%lld bytes, header says %llu)",
                               (long long)len, (unsigned long long)(payload_len + HEADER_BYTES + 8));
    reader tail = {buf, len, len - 8, 0};
    if (get_u64(&tail) != fnv1a(buf, len - 8))
        return sporf_set_error(err, SPORF_E_FORMAT, "model checksum mismatch: the file is corrupt");
    r.len = len - 8; /* the checksum is not payload */

    f = sporf_forest_alloc();
    if (!f)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    sporf_params *P = &f->params;
    sporf_params_init(P);
    P->n_estimators = get_i64(&r);
    P->projection = get_i32(&r);
    P->feature_combinations = get_f64(&r);
    P->max_features_mode = get_i32(&r);
    P->max_features_value = get_f64(&r);
    P->criterion = get_i32(&r);
    P->max_depth = get_i64(&r);
    P->min_samples_split = get_i64(&r);
    P->min_samples_leaf = get_i64(&r);
    P->min_impurity_decrease = get_f64(&r);
    P->min_weight_fraction_leaf = get_f64(&r);
    P->bootstrap = get_i32(&r);
    P->max_samples_count = get_i64(&r);
    P->max_samples_fraction = get_f64(&r);
    P->class_weight_mode = get_i32(&r);
    P->random_state = get_u64(&r);
    if (version >= 2) {
        P->n_dims = get_i32(&r);
        for (int k = 0; k < SPORF_MAX_DIMS; k++) {
            P->data_dims[k] = get_i64(&r);
            P->min_patch_dims[k] = get_i64(&r);
            P->max_patch_dims[k] = get_i64(&r);
            P->boundary[k] = get_i32(&r);
            P->dim_contiguous[k] = get_i32(&r);
        }
        P->patch_weights = get_i32(&r);
    }
    if (version >= 3) {
        P->honest_fraction = get_f64(&r);
        P->honest_prior = get_i32(&r);
    }
    f->n_features = get_i64(&r);
    f->n_classes = get_i32(&r);
    int64_t n_trees = get_i64(&r);
    f->task = version >= 3 ? get_i32(&r) : SPORF_TASK_CLASSIFICATION;
    if (r.bad)
        CORRUPT("model is truncated in its parameters");
    if (f->task != SPORF_TASK_CLASSIFICATION && f->task != SPORF_TASK_REGRESSION &&
        f->task != SPORF_TASK_UNSUPERVISED)
        CORRUPT("model has an unknown task code %d", f->task);
    if ((f->task == SPORF_TASK_REGRESSION) != (P->criterion == SPORF_CRIT_SQUARED_ERROR) ||
        (f->task == SPORF_TASK_UNSUPERVISED) !=
            (P->criterion == SPORF_CRIT_FASTBIC || P->criterion == SPORF_CRIT_TWOMEANS) ||
        (f->task != SPORF_TASK_CLASSIFICATION && f->n_classes != 1) ||
        (f->task == SPORF_TASK_UNSUPERVISED && P->honest_fraction > 0.0))
        CORRUPT("model's task, criterion and number of outputs disagree");
    if (f->n_features < 1 || f->n_features >= INT32_MAX || f->n_classes < 1 || f->n_classes > 100000000)
        CORRUPT("model has impossible sizes (%lld features, %d classes)", (long long)f->n_features, f->n_classes);
    /* Each tree takes at least 16 + 32 + 8 bytes. */
    if (n_trees < 1 || n_trees > (r.len - r.pos) / 56)
        CORRUPT("model claims %lld trees, impossible for its size", (long long)n_trees);
    {
        sporf_error perr;
        if (sporf_params_check(P, f->n_features, &perr) != SPORF_OK)
            CORRUPT("model parameters are invalid: %s", perr.message);
    }
    if ((rc = read_strings(&r, &f->strings[0], f->n_classes, 1, "class labels", err)) != SPORF_OK)
        goto fail;
    if ((rc = read_strings(&r, &f->strings[1], f->n_features, 1, "feature names", err)) != SPORF_OK)
        goto fail;
    f->trees = calloc((size_t)n_trees, sizeof *f->trees);
    if (!f->trees) {
        rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
        goto fail;
    }
    f->n_trees = n_trees;
    for (int64_t t = 0; t < n_trees; t++)
        if ((rc = read_tree(&r, &f->trees[t], f, t, err)) != SPORF_OK)
            goto fail;
    if (r.pos != r.len)
        CORRUPT("model has %lld unexpected bytes after the last tree", (long long)(r.len - r.pos));
    *out = f;
    return SPORF_OK;
fail:
    sporf_forest_free(f);
    return rc;
}
