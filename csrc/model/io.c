/*
 * io.c -- the model format (version 13 for survival forests, 11 for
 * multi-output forests, 10 for the others, so their bytes did not change
 * with multi-output y or survival; versions 12 (survival forests before
 * min_events_split), 1
 * (before patch forests), 2 (before regression and honesty), 3 (fixed-width
 * trees), 4 (before shards), 5 (sizes stored resolved), 6 (before
 * axis_features and guided_features), 7 (before missing values), 8 (before
 * histogram splits) and 9 (before quantile forests) are still read).
 * Little-endian, explicit widths:
 *
 *   "SPORFMDL"  u32 version  u32 reserved(0)  u64 payload_length
 *   payload:
 *     params      [version >= 6] every stored parameter of spec/params.toml in
 *                 the spec's order, those the version holds (params_gen.c: an amount is i32 form + f64
 *                 value, a per-axis parameter 8 entries, data_dims i32 n_dims +
 *                 8 x i64); [versions 1-5] the fixed layout of params.c
 *                 (n_jobs is a run-time choice and is not stored, so a model's
 *                 bytes do not depend on the thread count)
 *     i64 n_features, i32 n_classes, i64 n_trees, [version >= 3] i32 task
 *     [version 11] i32 n_outputs, n_outputs x i32: each output's leaf values
 *                 (its classes; 1 for regression), summing to n_classes
 *     2 x strings i32 kind, i64 count, i64 length, bytes (classes, feature names)
 *     [version >= 6] i64 count, count x f64: the custom class weights (count is
 *                 n_classes with class_weight "custom", else 0; 0 for custom
 *                 weights of a model converted from an older format, which did
 *                 not keep them)
 *     [version >= 8] i32 missing_learned: 1 when every split holds a learned
 *                 missing-value direction (a fitted forest), 0 for a model
 *                 converted from an older format (it refuses rows with NaN);
 *                 i64 count, count x f64: the features' training means that
 *                 imputing splits read (count n_features when the training data
 *                 had a missing value, else 0); i64 note length, note bytes: a
 *                 binding's opaque note (sporf_forest_set_note; R: a formula)
 *     [version >= 10] i64 levels length (0: no categorical feature), then when
 *                 not 0: n_features x i32 level counts (0: a numeric feature),
 *                 the level names (NUL-terminated, by feature and position)
 *     [version 15: isolation forests, which no other format holds] f64 the
 *                 outlier threshold, an anomaly score in [0, 1]
 *     [version >= 10, params.quantiles] i64 n_train, n_train x f64: the training
 *                 responses, ascending; i64 count, count x f64: their sample
 *                 weights in that order (n_train of them, or 0 when all are 1)
 *     [version >= 12, survival forests] the same block of the training times,
 *                 ascending, and their weights, then n_train x u8: the times'
 *                 event flags (1 = event, 0 = censored)
 *     per tree    [version >= 4] the compact encoding of tree_codec.h
 *                 (version >= 8: with each split's missing-value direction);
 *                 [versions 1-3] i32 n_nodes, i32 n_leaves, i32 n_proj, i32 depth,
 *                 n_nodes x (i32 left, i32 right, i32 proj_start, i32 proj_len,
 *                            f64 threshold, f64 gain),
 *                 n_proj x i32 feature, n_proj x f64 weight,
 *                 n_leaves x n_classes x f64 leaf values (class distribution, or
 *                 the mean for regression; NaN rows for honest leaves that abstain),
 *                 [honest_fraction > 0] n_classes x f64 prior;
 *                 [version >= 10, params.quantiles or a survival forest] then n_leaves varints: the
 *                 number of each leaf's rows, then each leaf's rows as ranks
 *                 into the responses, ascending, as varints (the first rank,
 *                 then the differences)
 *   u64 FNV-1a checksum of every byte before it
 *
 * The loader trusts nothing: it checks the checksum first, every count against
 * the bytes that remain before allocating, and every index and value. Trees
 * of every version must have the builder's layout (model.h: preorder, leaf
 * slots and projection entries numbered in node order), which is what lets
 * version 4 leave child indices out.
 */
#include "util/bytes.h"
#include "model/model.h"
#include "model/io.h"
#include "model/params.h"
#include "model/survival.h"
#include "model/tree_codec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_VERSION ((uint32_t)SPORF_MODEL_FORMAT_VERSION)
#define MAX_OUTPUTS 100000
#define HEADER_BYTES 24
static const char MAGIC[8] = {'S', 'P', 'O', 'R', 'F', 'M', 'D', 'L'};

/* ---- writing ---- */

/* A quantile forest's tree: its leaves' row counts, then their ranks as
 * differences (ascending within a leaf, so small and never negative). */
static void write_leaf_rows(const sporf_tree *tr, sporf_writer *w)
{
    for (int32_t l = 0; l < tr->n_leaves; l++)
        sporf_put_varint(w, (uint32_t)(tr->leaf_start[l + 1] - tr->leaf_start[l]));
    for (int32_t l = 0; l < tr->n_leaves; l++) {
        int32_t prev = 0;
        for (int32_t k = tr->leaf_start[l]; k < tr->leaf_start[l + 1]; k++) {
            sporf_put_varint(w, (uint32_t)(tr->leaf_rank[k] - prev));
            prev = tr->leaf_rank[k];
        }
    }
}
/* A tree of a forest whose leaf size is not chosen yet (format 14): what
 * each node would predict as a leaf, and its rows. */
static void write_node_values(const sporf_tree *tr, sporf_writer *w)
{
    sporf_put_i32(w, tr->node_width);
    for (int32_t i = 0; i < tr->n_nodes; i++) sporf_put_varint(w, (uint32_t)tr->node_rows[i]);
    for (int64_t i = 0; i < (int64_t)tr->n_nodes * tr->node_width; i++) sporf_put_f64(w, tr->node_values[i]);
}

/* The pending leaf choice's record (model.h sporf_leaf_pending, format 14). */
static void write_pending(const sporf_leaf_pending *p, sporf_writer *w)
{
    sporf_put_i32(w, p->first);
    sporf_put_i32(w, p->end);
    sporf_put_i32(w, p->width);
    sporf_put_i32(w, p->scale);
    sporf_put_i32(w, p->m);
    sporf_put_i64(w, p->n);
    if (p->n == 0)
        return;
    const int64_t words = p->n * (int64_t)(p->end - p->first) * p->width * 2, nm = p->n * p->m;
    for (int64_t i = 0; i < words; i++) sporf_put_u64(w, p->sums[i]);
    for (int64_t i = 0; i < p->n; i++) sporf_put_i64(w, p->count[i]);
    for (int64_t i = 0; p->codes && i < nm; i++) sporf_put_i32(w, p->codes[i]);
    for (int64_t i = 0; p->values && i < (p->events ? p->n : nm); i++) sporf_put_f64(w, p->values[i]);
    for (int64_t i = 0; p->events && i < p->n; i++) sporf_put_u8(w, (uint8_t)p->events[i]);
    sporf_put_i64(w, p->sample_weight ? p->n : 0);
    for (int64_t i = 0; p->sample_weight && i < p->n; i++) sporf_put_f64(w, p->sample_weight[i]);
}

static void write_model(const sporf_forest *f, sporf_writer *w)
{
    const int32_t version = sporf_forest_format(f);
    sporf_put_bytes(w, MAGIC, 8);
    sporf_put_u32(w, (uint32_t)version);
    sporf_put_u32(w, 0);
    int64_t len_pos = w->pos;
    sporf_put_u64(w, 0); /* payload length, patched below */
    int64_t payload_start = w->pos;
    sporf_params_write(&f->params, w, (uint32_t)version);
    sporf_put_i64(w, f->n_features);
    sporf_put_i32(w, f->n_classes);
    sporf_put_i64(w, f->n_trees);
    sporf_put_i32(w, f->task);
    if (version == SPORF_MODEL_FORMAT_MULTI_OUTPUT || (version == SPORF_MODEL_FORMAT_PENDING && f->n_outputs > 1)) {
        sporf_put_i32(w, f->n_outputs);
        for (int32_t j = 0; j < f->n_outputs; j++) sporf_put_i32(w, f->output_classes[j]);
    } else if (version == SPORF_MODEL_FORMAT_PENDING) {
        sporf_put_i32(w, 1);
    }
    for (int s = 0; s < 2; s++) {
        sporf_put_i32(w, f->strings[s].kind);
        sporf_put_i64(w, f->strings[s].count);
        sporf_put_i64(w, f->strings[s].len);
        sporf_put_bytes(w, f->strings[s].blob, f->strings[s].len);
    }
    const int64_t n_cw = f->class_weights ? f->n_classes : 0;
    sporf_put_i64(w, n_cw);
    for (int64_t k = 0; k < n_cw; k++) sporf_put_f64(w, f->class_weights[k]);
    sporf_put_i32(w, f->missing_learned);
    const int64_t n_impute = f->impute ? f->n_features : 0;
    sporf_put_i64(w, n_impute);
    for (int64_t k = 0; k < n_impute; k++) sporf_put_f64(w, f->impute[k]);
    sporf_put_i64(w, f->note_len);
    sporf_put_bytes(w, f->note, f->note_len);
    sporf_put_i64(w, f->levels_len);
    if (f->levels_len > 0) {
        for (int64_t j = 0; j < f->n_features; j++) sporf_put_i32(w, f->n_levels[j]);
        sporf_put_bytes(w, f->levels, f->levels_len);
    }
    if (version == SPORF_MODEL_FORMAT_ISOLATION)
        sporf_put_f64(w, f->score_threshold);
    if (sporf_forest_keeps_rows(f)) {
        sporf_put_i64(w, f->qrf_n);
        for (int64_t r = 0; r < f->qrf_n; r++) sporf_put_f64(w, f->qrf_y[r]);
        const int64_t n_w = f->qrf_w ? f->qrf_n : 0;
        sporf_put_i64(w, n_w);
        for (int64_t r = 0; r < n_w; r++) sporf_put_f64(w, f->qrf_w[r]);
        if (f->qrf_event)
            sporf_put_bytes(w, f->qrf_event, f->qrf_n);
    }
    for (int64_t t = 0; t < f->n_trees; t++) {
        sporf_tree_encode(&f->trees[t], f, w);
        if (sporf_forest_keeps_rows(f))
            write_leaf_rows(&f->trees[t], w);
        if (f->pending)
            write_node_values(&f->trees[t], w);
    }
    if (f->pending)
        write_pending(f->pending, w);
    int64_t payload_len = w->pos - payload_start;
    if (w->buf) {
        sporf_writer patch = {w->buf, len_pos};
        sporf_put_u64(&patch, (uint64_t)payload_len);
        uint64_t h = sporf_fnv1a(w->buf, w->pos);
        sporf_put_u64(w, h);
    } else {
        w->pos += 8;
    }
}

int sporf_forest_save(const sporf_forest *f, uint8_t *buf, int64_t cap, int64_t *size_out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !size_out)
        return sporf_set_error(err, SPORF_E_ARG, "save: forest and size_out are required");
    sporf_writer count = {NULL, 0};
    write_model(f, &count);
    *size_out = count.pos;
    if (!buf || cap < count.pos)
        return SPORF_OK;
    sporf_writer w = {buf, 0};
    write_model(f, &w);
    return SPORF_OK;
}

/* ---- reading ---- */
#define CORRUPT(...) do { rc = sporf_set_error(err, SPORF_E_FORMAT, __VA_ARGS__); goto fail; } while (0)

/* A tree of model versions 1-3: fixed-width fields. Its layout must be the
 * builder's (preorder, leaf slots and projection entries in node order),
 * checked with the same walk the version 4 decoder uses to rebuild it. */
static int read_tree_fixed(sporf_reader *r, sporf_tree *tr, const sporf_forest *f, int64_t t, sporf_error *err)
{
    const int64_t p = f->n_features;
    const int32_t K = f->n_classes;
    int rc = SPORF_OK;
    sporf_preorder walk;
    memset(&walk, 0, sizeof walk);
    int32_t n_nodes = sporf_get_i32(r), n_leaves = sporf_get_i32(r), n_proj = sporf_get_i32(r), depth = sporf_get_i32(r);
    if (r->bad) CORRUPT("model is truncated in tree %lld", (long long)t);
    if (n_nodes < 1 || n_leaves < 1 || (int64_t)n_nodes != 2 * (int64_t)n_leaves - 1 || n_proj < n_nodes - n_leaves ||
        depth < 0 ||
        depth >= n_nodes)
        CORRUPT("tree %lld has impossible sizes (nodes %d, leaves %d, non-zeros %d, depth %d)",
                (long long)t, n_nodes, n_leaves, n_proj, depth);
    /* Every count is checked against the bytes left before anything is allocated. */
    double bytes = (double)n_nodes * 32.0 + (double)n_proj * 12.0 + (double)n_leaves * (double)K * 8.0;
    if (bytes > (double)(r->len - r->pos))
        CORRUPT("model is truncated in tree %lld (needs %.0f more bytes)", (long long)t, bytes);
    tr->depth = depth;
    if (!sporf_preorder_init(&walk, n_nodes) || !sporf_tree_alloc(tr, n_nodes, n_leaves, n_proj, K)) {
        rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory loading tree %lld", (long long)t);
        goto fail;
    }
    int32_t leaves = 0, proj = 0;
    for (int32_t i = 0; i < n_nodes; i++) {
        sporf_node *nd = &tr->nodes[i];
        nd->left = sporf_get_i32(r);
        nd->right = sporf_get_i32(r);
        nd->proj_start = sporf_get_i32(r);
        nd->proj_len = sporf_get_i32(r);
        nd->threshold = sporf_get_f64(r);
        nd->gain = sporf_get_f64(r);
        const int32_t parent = sporf_preorder_enter(&walk, i, i > 0 && tr->nodes[i - 1].left == -1);
        if (parent == -2 || (parent >= 0 && tr->nodes[parent].right != i))
            CORRUPT("tree %lld, node %d: bad child index", (long long)t, i);
        if (nd->left == -1) {
            if (nd->right != leaves || nd->proj_len != 0)
                CORRUPT("tree %lld, node %d: bad leaf", (long long)t, i);
            leaves++;
        } else {
            if (nd->left != i + 1 || nd->right <= nd->left || nd->right >= n_nodes)
                CORRUPT("tree %lld, node %d: bad child index", (long long)t, i);
            if (nd->proj_len < 1 || nd->proj_start != proj || nd->proj_len > n_proj - proj)
                CORRUPT("tree %lld, node %d: projection out of range", (long long)t, i);
            if (!isfinite(nd->threshold) || !isfinite(nd->gain) || nd->gain < 0.0)
                CORRUPT("tree %lld, node %d: threshold or gain is not a finite number", (long long)t, i);
            proj += nd->proj_len;
            sporf_preorder_open(&walk, i); /* cap n_nodes: always room */
        }
    }
    if (r->bad) CORRUPT("model is truncated in tree %lld", (long long)t);
    if (walk.top != 0 || leaves != n_leaves || proj != n_proj || walk.max_depth != depth)
        CORRUPT("tree %lld: its nodes do not form the tree its sizes describe", (long long)t);
    for (int32_t k = 0; k < n_proj; k++) {
        tr->proj_feature[k] = sporf_get_i32(r);
        if (tr->proj_feature[k] < 0 || tr->proj_feature[k] >= p)
            CORRUPT("tree %lld: feature index %d out of range [0, %lld)", (long long)t,
                    tr->proj_feature[k], (long long)p);
    }
    for (int32_t k = 0; k < n_proj; k++) {
        tr->proj_weight[k] = sporf_get_f64(r);
        if (!isfinite(tr->proj_weight[k]))
            CORRUPT("tree %lld: a projection weight is not finite", (long long)t);
    }
    for (int64_t l = 0; l < n_leaves; l++) {
        double *lv = tr->leaf_values + l * K;
        for (int32_t k = 0; k < K; k++) lv[k] = sporf_get_f64(r);
        if (!sporf_leaf_values_ok(lv, f))
            CORRUPT(sporf_task_values(f->task) ? "tree %lld: a leaf value is not a finite number"
                                                     : "tree %lld: a leaf probability is outside [0, 1]",
                    (long long)t);
    }
    if (r->bad) CORRUPT("model is truncated in tree %lld", (long long)t);
    if ((rc = sporf_read_prior(r, tr, f, t, err)) != SPORF_OK)
        goto fail;
    sporf_preorder_free(&walk);
    return SPORF_OK;
fail:
    sporf_preorder_free(&walk);
    return rc;
}

static int read_tree(sporf_reader *r, uint32_t version, sporf_tree *tr, const sporf_forest *f, int64_t t,
                     sporf_error *err)
{
    return version >= 4 ? sporf_tree_decode(r, tr, f, t, version >= 8, err) : read_tree_fixed(r, tr, f, t, err);
}

static int read_strings(sporf_reader *r, sporf_strings *s, int64_t want, int allow_empty, const char *what,
                        sporf_error *err)
{
    int rc = SPORF_OK;
    s->kind = sporf_get_i32(r);
    s->count = sporf_get_i64(r);
    s->len = sporf_get_i64(r);
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

/* The custom class weights (format >= 6): none, or one finite weight in
 * [0, 1e100] per class when the forest was grown with custom weights. */
static int read_class_weights(sporf_reader *r, sporf_forest *f, sporf_error *err)
{
    int rc = SPORF_OK;
    const int64_t count = sporf_get_i64(r);
    if (r->bad)
        CORRUPT("model is truncated in the class weights");
    if (count != 0 && (f->params.class_weight != SPORF_CW_CUSTOM || count != f->n_classes))
        CORRUPT("model holds %lld class weights, expected %s", (long long)count,
                f->params.class_weight == SPORF_CW_CUSTOM ? "one per class" : "none");
    if (count > (r->len - r->pos) / 8)
        CORRUPT("model is truncated in the class weights");
    if (count == 0)
        return SPORF_OK;
    f->class_weights = malloc((size_t)count * sizeof *f->class_weights);
    if (!f->class_weights)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    for (int64_t k = 0; k < count; k++) {
        f->class_weights[k] = sporf_get_f64(r);
        if (!(f->class_weights[k] >= 0.0 && f->class_weights[k] <= 1e100))
            CORRUPT("model's class weight %lld is not a number in [0, 1e100]", (long long)k);
    }
    return SPORF_OK;
fail:
    return rc;
}

/* The training means of imputing splits (format >= 8): none, or one finite
 * value in [-1e100, 1e100] per feature. */
static int read_impute(sporf_reader *r, sporf_forest *f, sporf_error *err)
{
    int rc = SPORF_OK;
    const int64_t count = sporf_get_i64(r);
    if (r->bad)
        CORRUPT("model is truncated in the impute values");
    if (count != 0 && count != f->n_features)
        CORRUPT("model holds %lld impute values, expected 0 or one per feature", (long long)count);
    if (count > (r->len - r->pos) / 8)
        CORRUPT("model is truncated in the impute values");
    if (count == 0)
        return SPORF_OK;
    f->impute = malloc((size_t)count * sizeof *f->impute);
    if (!f->impute)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    for (int64_t k = 0; k < count; k++) {
        f->impute[k] = sporf_get_f64(r);
        if (!(fabs(f->impute[k]) <= 1e100))
            CORRUPT("model's impute value %lld is not a number in [-1e100, 1e100]", (long long)k);
    }
    return SPORF_OK;
fail:
    return rc;
}

/* The categorical features' level counts and names (format >= 10): counts
 * in [0, SPORF_MAX_LEVELS], as many NUL-terminated names as they add up to. */
static int read_levels(sporf_reader *r, sporf_forest *f, sporf_error *err)
{
    int rc = SPORF_OK;
    const int64_t len = sporf_get_i64(r);
    if (r->bad || len < 0 || len > r->len - r->pos)
        CORRUPT("model is truncated or corrupt in its categorical levels");
    if (len == 0)
        return SPORF_OK;
    if (f->n_features > (r->len - r->pos - len) / 4)
        CORRUPT("model is truncated in its categorical levels");
    f->n_levels = malloc((size_t)f->n_features * sizeof *f->n_levels);
    f->levels = malloc((size_t)len);
    if (!f->n_levels || !f->levels)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    f->levels_len = len;
    int64_t total = 0;
    for (int64_t j = 0; j < f->n_features; j++) {
        f->n_levels[j] = sporf_get_i32(r);
        if (f->n_levels[j] < 0 || f->n_levels[j] > SPORF_MAX_LEVELS)
            CORRUPT("model's feature %lld has %d levels", (long long)j, f->n_levels[j]);
        total += f->n_levels[j];
    }
    memcpy(f->levels, r->p + r->pos, (size_t)len);
    r->pos += len;
    int64_t names = 0;
    for (int64_t i = 0; i < len; i++) names += f->levels[i] == '\0';
    if (f->levels[len - 1] != '\0' || names != total || total < 1)
        CORRUPT("model's categorical levels hold %lld names, expected %lld", (long long)names, (long long)total);
    return SPORF_OK;
fail:
    return rc;
}

/* A quantile forest's training responses and weights (format >= 10):
 * ascending finite responses, finite non-negative weights. */
static int read_quantile_responses(sporf_reader *r, sporf_forest *f, sporf_error *err)
{
    int rc = SPORF_OK;
    const int64_t n = sporf_get_i64(r);
    if (r->bad || n < 1 || n > (r->len - r->pos) / 8 || n > INT32_MAX)
        CORRUPT("model is truncated or corrupt in its quantile responses");
    f->qrf_y = malloc((size_t)n * sizeof *f->qrf_y);
    if (!f->qrf_y)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    f->qrf_n = n;
    for (int64_t k = 0; k < n; k++) {
        f->qrf_y[k] = sporf_get_f64(r);
        if (!(fabs(f->qrf_y[k]) <= 1e100) || (k > 0 && !(f->qrf_y[k] >= f->qrf_y[k - 1])))
            CORRUPT("model's quantile responses are not finite numbers in ascending order (at %lld)", (long long)k);
    }
    const int64_t n_w = sporf_get_i64(r);
    if (r->bad || (n_w != 0 && n_w != n) || n_w > (r->len - r->pos) / 8)
        CORRUPT("model is truncated or corrupt in its quantile weights");
    if (n_w == 0)
        return SPORF_OK;
    f->qrf_w = malloc((size_t)n * sizeof *f->qrf_w);
    if (!f->qrf_w)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    for (int64_t k = 0; k < n; k++) {
        f->qrf_w[k] = sporf_get_f64(r);
        if (!(f->qrf_w[k] >= 0.0 && f->qrf_w[k] <= 1e100))
            CORRUPT("model's quantile weight %lld is not a number in [0, 1e100]", (long long)k);
    }
    return SPORF_OK;
fail:
    return rc;
}

/* A survival forest's event flags (formats 12 and 13): one byte per time, 0 or 1,
 * and at least one event. */
static int read_events(sporf_reader *r, sporf_forest *f, sporf_error *err)
{
    int rc = SPORF_OK;
    const int64_t n = f->qrf_n;
    if (n > r->len - r->pos)
        CORRUPT("model is truncated in its event flags");
    f->qrf_event = malloc((size_t)n);
    if (!f->qrf_event)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    int64_t events = 0;
    for (int64_t k = 0; k < n; k++) {
        f->qrf_event[k] = r->p[r->pos + k];
        if (f->qrf_event[k] > 1)
            CORRUPT("model's event flag %lld is %d, not 0 or 1", (long long)k, f->qrf_event[k]);
        events += f->qrf_event[k];
        if (!(f->qrf_y[k] >= 0.0))
            CORRUPT("model's survival time %lld is negative", (long long)k);
    }
    r->pos += n;
    if (events == 0)
        CORRUPT("model's survival times hold no event");
    return SPORF_OK;
fail:
    return rc;
}

/* A quantile forest's tree's leaf rows (write_leaf_rows): every rank below
 * n_train and ascending within its leaf; counts checked against the bytes
 * left (a rank takes at least one) before anything is allocated. */
static int read_leaf_rows(sporf_reader *r, sporf_tree *tr, const sporf_forest *f, int64_t t, sporf_error *err)
{
    int rc = SPORF_OK;
    const int32_t L = tr->n_leaves;
    if (L > r->len - r->pos)
        CORRUPT("model is truncated in tree %lld's leaf rows", (long long)t);
    tr->leaf_start = malloc(((size_t)L + 1) * sizeof *tr->leaf_start);
    if (!tr->leaf_start)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    int64_t total = 0;
    tr->leaf_start[0] = 0;
    for (int32_t l = 0; l < L; l++) {
        total += sporf_get_varint(r);
        if (r->bad || total > r->len - r->pos || total > INT32_MAX)
            CORRUPT("model is truncated or corrupt in tree %lld's leaf rows", (long long)t);
        tr->leaf_start[l + 1] = (int32_t)total;
    }
    tr->leaf_rank = malloc((size_t)(total > 0 ? total : 1) * sizeof *tr->leaf_rank);
    if (!tr->leaf_rank)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    for (int32_t l = 0; l < L; l++) {
        int64_t rank = 0;
        for (int32_t k = tr->leaf_start[l]; k < tr->leaf_start[l + 1]; k++) {
            rank += sporf_get_varint(r);
            if (r->bad || rank >= f->qrf_n)
                CORRUPT("tree %lld: a leaf's row is truncated or out of range", (long long)t);
            tr->leaf_rank[k] = (int32_t)rank;
        }
    }
    return SPORF_OK;
fail:
    return rc;
}

/* A tree's node rows and values (format 14, write_node_values): a width of
 * the forest's leaf values (survival: a node's risk and its curve at up to
 * SPORF_SURV_GRID times), sizes checked against the bytes left. */
static int read_node_values(sporf_reader *r, sporf_tree *tr, const sporf_forest *f, int64_t t, sporf_error *err)
{
    int rc = SPORF_OK;
    const int32_t width = sporf_get_i32(r), N = tr->n_nodes;
    const int survival = f->task == SPORF_TASK_SURVIVAL;
    if (r->bad || (survival ? width < 2 || width > 1 + SPORF_SURV_GRID : width != f->n_classes) ||
        (t > 0 && width != f->trees[0].node_width))
        CORRUPT("tree %lld: its nodes' values are of a bad width (%d)", (long long)t, width);
    if ((int64_t)N * (1 + 8 * (int64_t)width) > r->len - r->pos)
        CORRUPT("model is truncated in tree %lld's node values", (long long)t);
    tr->node_width = width;
    tr->node_rows = malloc((size_t)N * sizeof *tr->node_rows);
    tr->node_values = malloc((size_t)N * (size_t)width * sizeof *tr->node_values);
    if (!tr->node_rows || !tr->node_values)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    for (int32_t i = 0; i < N; i++) {
        tr->node_rows[i] = sporf_get_varint(r);
        if (r->bad || tr->node_rows[i] < 0)
            CORRUPT("model is truncated or corrupt in tree %lld's node rows", (long long)t);
    }
    for (int64_t i = 0; i < (int64_t)N * width; i++) tr->node_values[i] = sporf_get_f64(r);
    if (r->bad)
        CORRUPT("model is truncated in tree %lld's node values", (long long)t);
    return SPORF_OK;
fail:
    return rc;
}

/* The pending leaf choice's record (format 14, write_pending): its sizes
 * those the task chooses among, its width the trees' values, every count a
 * number of the forest's trees, the response valid for the task. */
static int read_pending(sporf_reader *r, sporf_forest *f, sporf_error *err)
{
    int rc = SPORF_OK;
    sporf_leaf_pending *p = calloc(1, sizeof *p);
    if (!(f->pending = p))
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    p->first = sporf_get_i32(r);
    p->end = sporf_get_i32(r);
    p->width = sporf_get_i32(r);
    p->scale = sporf_get_i32(r);
    p->m = sporf_get_i32(r);
    p->n = sporf_get_i64(r);
    const int classes = f->task == SPORF_TASK_CLASSIFICATION, survival = f->task == SPORF_TASK_SURVIVAL;
    const int32_t values = survival ? f->trees[0].node_width - 1 : f->n_classes;
    /* a forest choosing its kinds of trees keeps each kind's sums and squares, and a count (leaf_choice.h) */
    const int32_t width = sporf_params_chooses_kinds(&f->params) ? 4 * values + 1 : values;
    if (r->bad || (p->first != 0 && p->first != 1) || p->end != (classes ? SPORF_LEAF_SIZES - 2 : SPORF_LEAF_SIZES) ||
        p->width != width || p->scale < -300 || p->scale > 1200 || p->m != (f->n_outputs > 1 ? f->n_outputs : 1) ||
        f->task == SPORF_TASK_UNSUPERVISED || f->task == SPORF_TASK_ISOLATION || !sporf_params_leaf_auto(&f->params) ||
        sporf_params_leaf_chosen(&f->params) != 0)
        CORRUPT("model's pending leaf choice is corrupt");
    f->leaf_grown = p->first + 1; /* the size the trees grew to: 1 or 2 rows */
    const int64_t n = p->n, W = (int64_t)(p->end - p->first) * p->width, nm = n * p->m;
    if (n < 0 || n > INT32_MAX ||
        (n > 0 && n * (16 * W + 8 + (classes ? 4 * p->m : survival ? 9 : 8 * p->m)) + 8 > r->len - r->pos))
        CORRUPT("model is truncated in its pending leaf choice (%lld rows)", (long long)n);
    if (n == 0)
        return SPORF_OK;
    p->sums = malloc((size_t)(n * W) * 2 * sizeof *p->sums);
    p->count = malloc((size_t)n * sizeof *p->count);
    if (classes) p->codes = malloc((size_t)nm * sizeof *p->codes);
    else p->values = malloc((size_t)(survival ? n : nm) * sizeof *p->values);
    if (survival) p->events = malloc((size_t)n * sizeof *p->events);
    if (!p->sums || !p->count || (classes && !p->codes) || (!classes && !p->values) || (survival && !p->events))
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    for (int64_t i = 0; i < n * W * 2; i++) p->sums[i] = sporf_get_u64(r);
    for (int64_t i = 0; i < n; i++)
        if ((p->count[i] = sporf_get_i64(r)) < 0 || p->count[i] > f->n_trees)
            CORRUPT("model's pending leaf choice has a bad count of trees");
    for (int64_t i = 0; classes && i < nm; i++) {
        const int32_t o = (int32_t)(i % p->m), c = sporf_get_i32(r);
        int32_t at = 0;
        for (int32_t j = 0; j < o; j++) at += f->output_classes[j];
        if (c < at || c >= at + (p->m > 1 ? f->output_classes[o] : f->n_classes))
            CORRUPT("model's pending leaf choice has a bad class code");
        p->codes[i] = c;
    }
    for (int64_t i = 0; !classes && i < (survival ? n : nm); i++)
        if (!(fabs(p->values[i] = sporf_get_f64(r)) <= SPORF_MAX_ABS_VALUE))
            CORRUPT("model's pending leaf choice has a bad response");
    for (int64_t i = 0; survival && i < n; i++)
        if ((p->events[i] = sporf_get_u8(r)) > 1)
            CORRUPT("model's pending leaf choice has a bad event flag");
    const int64_t n_sw = sporf_get_i64(r);
    if (r->bad || (n_sw != 0 && n_sw != n) || n_sw * 8 > r->len - r->pos)
        CORRUPT("model is truncated or corrupt in its pending leaf choice's weights");
    if (n_sw > 0 && !(p->sample_weight = malloc((size_t)n * sizeof *p->sample_weight)))
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    for (int64_t i = 0; i < n_sw; i++) {
        p->sample_weight[i] = sporf_get_f64(r);
        if (!(p->sample_weight[i] >= 0.0 && p->sample_weight[i] <= SPORF_MAX_ABS_VALUE))
            CORRUPT("model's pending leaf choice has a bad sample weight");
    }
    if (r->bad)
        CORRUPT("model is truncated in its pending leaf choice");
    return SPORF_OK;
fail:
    return rc;
}

/* A multi-output forest's outputs (format 11): at least two, each with at
 * least one value (one for regression), summing to n_classes. */
static int read_outputs(sporf_reader *r, sporf_forest *f, sporf_error *err)
{
    const int32_t m = sporf_get_i32(r);
    if (r->bad || m < 2 || m > MAX_OUTPUTS || (int64_t)m * 4 > r->len - r->pos)
        return sporf_set_error(err, SPORF_E_FORMAT, "model is truncated or corrupt in its outputs (%d)", m);
    f->output_classes = malloc((size_t)m * sizeof *f->output_classes);
    if (!f->output_classes)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    f->n_outputs = m;
    int64_t K = 0;
    for (int32_t j = 0; j < m; j++) {
        const int32_t c = sporf_get_i32(r);
        if (c < 1 || (f->task != SPORF_TASK_CLASSIFICATION && c != 1))
            return sporf_set_error(err, SPORF_E_FORMAT, "model's output %d has %d values", j, c);
        f->output_classes[j] = c;
        K += c;
    }
    if (K != f->n_classes)
        return sporf_set_error(err, SPORF_E_FORMAT, "model's outputs have %lld values in all, its leaves %d",
                               (long long)K, f->n_classes);
    return SPORF_OK;
}

int sporf_model_read(const uint8_t *buf, int64_t len, sporf_forest **out, sporf_error *err)
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
    sporf_reader r = {buf, len, 8, 0};
    uint32_t version = sporf_get_u32(&r);
    (void)sporf_get_u32(&r);
    uint64_t payload_len = sporf_get_u64(&r);
    if (version < 1 || version > FORMAT_VERSION)
        return sporf_set_error(err, SPORF_E_FORMAT, "model format version %u is not supported (this build reads %u)",
                               version, FORMAT_VERSION);
    if (payload_len != (uint64_t)(len - HEADER_BYTES - 8))
        return sporf_set_error(err, SPORF_E_FORMAT,
                               "model is truncated or has trailing bytes (%lld bytes, header says %llu)",
                               (long long)len, (unsigned long long)(payload_len + HEADER_BYTES + 8));
    sporf_reader tail = {buf, len, len - 8, 0};
    if (sporf_get_u64(&tail) != sporf_fnv1a(buf, len - 8))
        return sporf_set_error(err, SPORF_E_FORMAT, "model checksum mismatch: the file is corrupt");
    r.len = len - 8; /* the checksum is not payload */

    f = sporf_forest_alloc();
    if (!f)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    sporf_params *P = &f->params;
    if (version >= 6)
        sporf_params_read(P, &r, version);
    else
        sporf_params_read_legacy(P, &r, version);
    f->n_features = sporf_get_i64(&r);
    f->n_classes = sporf_get_i32(&r);
    int64_t n_trees = sporf_get_i64(&r);
    f->task = version >= 3 ? sporf_get_i32(&r) : SPORF_TASK_CLASSIFICATION;
    if (r.bad)
        CORRUPT("model is truncated in its parameters");
    if (version == SPORF_MODEL_FORMAT_PENDING) { /* 1, or the outputs of format 11 */
        const int32_t m = sporf_get_i32(&r);
        if (m != 1) {
            r.pos -= 4;
            if ((rc = read_outputs(&r, f, err)) != SPORF_OK)
                goto fail;
        }
    }
    if (version == SPORF_MODEL_FORMAT_MULTI_OUTPUT && (rc = read_outputs(&r, f, err)) != SPORF_OK)
        goto fail;
    if (f->task != SPORF_TASK_CLASSIFICATION && f->task != SPORF_TASK_REGRESSION &&
        f->task != SPORF_TASK_UNSUPERVISED && f->task != SPORF_TASK_SURVIVAL && f->task != SPORF_TASK_ISOLATION)
        CORRUPT("model has an unknown task code %d", f->task);
    /* format 15 holds exactly the isolation forests: no reader before it knows their scores */
    const int isolation = f->task == SPORF_TASK_ISOLATION;
    if (isolation != (version == SPORF_MODEL_FORMAT_ISOLATION) ||
        isolation != (P->criterion == SPORF_CRIT_ISOLATION) ||
        (isolation && (sporf_params_honest(P) || P->quantiles || f->n_outputs != 1 || f->n_classes != 1 ||
                       sporf_params_leaf_auto(P))))
        CORRUPT("model's format, task and criterion disagree (isolation forest)");
    if ((version != SPORF_MODEL_FORMAT_PENDING && !isolation &&
         (f->task == SPORF_TASK_SURVIVAL) != (version >= SPORF_MODEL_FORMAT_SURVIVAL_FIRST)) ||
        (f->task == SPORF_TASK_SURVIVAL) != sporf_criterion_survival(P->criterion) ||
        (f->task == SPORF_TASK_SURVIVAL && (P->quantiles || (sporf_params_honest(P) && !sporf_params_abstain(P)))))
        CORRUPT("model's format, task and criterion disagree");
    if ((f->task == SPORF_TASK_REGRESSION) != (P->criterion == SPORF_CRIT_SQUARED_ERROR) ||
        (f->task == SPORF_TASK_UNSUPERVISED) !=
            (P->criterion == SPORF_CRIT_FASTBIC || P->criterion == SPORF_CRIT_TWOMEANS) ||
        (f->task != SPORF_TASK_CLASSIFICATION && f->n_classes != f->n_outputs) ||
        (f->task == SPORF_TASK_UNSUPERVISED && (sporf_params_honest(P) || f->n_outputs != 1)))
        CORRUPT("model's task, criterion and number of outputs disagree");
    if (f->n_features < 1 || f->n_features > SPORF_MAX_FEATURES || f->n_classes < 1 || f->n_classes > 100000000)
        CORRUPT("model has impossible sizes (%lld features, %d classes)", (long long)f->n_features, f->n_classes);
    /* Each tree takes at least 16 + 32 + 8 bytes (versions 1-3) or 4 (a
     * one-leaf tree in version 4). */
    if (n_trees < 1 || n_trees > (r.len - r.pos) / (version >= 4 ? 4 : 56))
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
    if (version >= 6 && (rc = read_class_weights(&r, f, err)) != SPORF_OK)
        goto fail;
    if (version >= 8) {
        f->missing_learned = sporf_get_i32(&r);
        if (r.bad)
            CORRUPT("model is truncated before its trees");
        if (f->missing_learned != 0 && f->missing_learned != 1)
            CORRUPT("model has a bad missing-value flag %d", f->missing_learned);
        if ((rc = read_impute(&r, f, err)) != SPORF_OK)
            goto fail;
        const int64_t note_len = sporf_get_i64(&r);
        if (r.bad || note_len < 0 || note_len > SPORF_MAX_NOTE_BYTES || note_len > r.len - r.pos)
            CORRUPT("model is truncated or corrupt in its note (%lld bytes)", (long long)note_len);
        if (note_len > 0) {
            f->note = malloc((size_t)note_len);
            if (!f->note) {
                rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
                goto fail;
            }
            memcpy(f->note, r.p + r.pos, (size_t)note_len);
            r.pos += note_len;
            f->note_len = note_len;
        }
    }
    if (version >= 10 && (rc = read_levels(&r, f, err)) != SPORF_OK)
        goto fail;
    if (version == SPORF_MODEL_FORMAT_ISOLATION) {
        f->score_threshold = sporf_get_f64(&r);
        if (r.bad || !(f->score_threshold >= 0.0 && f->score_threshold <= 1.0))
            CORRUPT("model's outlier threshold is truncated or not a score in [0, 1]");
    }
    if (P->quantiles && version < 10)
        CORRUPT("model's parameters ask for quantiles its format cannot hold");
    if (P->quantiles && (f->task != SPORF_TASK_REGRESSION || f->n_outputs != 1))
        CORRUPT("model keeps quantiles but is not a single-output regression forest");
    if (f->n_outputs > 1 && P->class_weight != SPORF_CW_NONE)
        CORRUPT("model has several outputs and class weights, which a multi-output forest cannot have");
    if (sporf_forest_keeps_rows(f) && (rc = read_quantile_responses(&r, f, err)) != SPORF_OK)
        goto fail;
    if (f->task == SPORF_TASK_SURVIVAL && (rc = read_events(&r, f, err)) != SPORF_OK)
        goto fail;
    f->trees = calloc((size_t)n_trees, sizeof *f->trees);
    if (!f->trees) {
        rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
        goto fail;
    }
    f->n_trees = n_trees;
    for (int64_t t = 0; t < n_trees; t++) {
        if ((rc = read_tree(&r, version, &f->trees[t], f, t, err)) != SPORF_OK)
            goto fail;
        if (sporf_forest_keeps_rows(f) && (rc = read_leaf_rows(&r, &f->trees[t], f, t, err)) != SPORF_OK)
            goto fail;
        if (version == SPORF_MODEL_FORMAT_PENDING && (rc = read_node_values(&r, &f->trees[t], f, t, err)) != SPORF_OK)
            goto fail;
    }
    if (version == SPORF_MODEL_FORMAT_PENDING && (rc = read_pending(&r, f, err)) != SPORF_OK)
        goto fail;
    if (r.pos != r.len)
        CORRUPT("model has %lld unexpected bytes after the last tree", (long long)(r.len - r.pos));
    *out = f;
    return SPORF_OK;
fail:
    sporf_forest_free(f);
    return rc;
}
