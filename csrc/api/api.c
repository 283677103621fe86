/* api.c -- the public functions that join layers (loading and merging build
 * the prediction layout after the model layer's work) and the forest handle's
 * simple accessors. Fit, predict and proximity are defined in their layers. */
#include "model/io.h"
#include "model/merge.h"
#include "model/model.h"
#include "model/params.h"
#include "predict/packed.h"
#include "fit/leaf_choice.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sporf_forest_get_info(const sporf_forest *f, sporf_forest_info *info, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !info)
        return sporf_set_error(err, SPORF_E_ARG, "get_info: forest and info are required");
    memset(info, 0, sizeof *info);
    info->n_features = f->n_features;
    info->task = f->task;
    info->n_classes = f->n_classes;
    info->n_trees = f->n_trees;
    info->format_version = sporf_forest_format(f);
    info->n_outputs = f->n_outputs > 1 ? f->n_outputs : 1;
    for (int64_t t = 0; t < f->n_trees; t++) {
        info->n_nodes += f->trees[t].n_nodes;
        info->n_leaves += f->trees[t].n_leaves;
        if (f->trees[t].depth > info->max_depth_seen) info->max_depth_seen = f->trees[t].depth;
    }
    return SPORF_OK;
}

int sporf_forest_leaf_choice(const sporf_forest *f, int64_t *chosen, int32_t *n_sizes, int64_t *sizes,
                             double *scores, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !chosen || !n_sizes)
        return sporf_set_error(err, SPORF_E_ARG, "leaf_choice: forest, chosen and n_sizes are required");
    *chosen = sporf_params_leaf_chosen(&f->params);
    const int32_t first = sporf_leaf_sizes_first(f);
    *n_sizes = sporf_leaf_sizes_end(f) - first;
    for (int32_t j = 0; j < SPORF_LEAF_SIZES; j++) {
        if (sizes) sizes[j] = j < *n_sizes ? sporf_leaf_sizes[first + j] : 0;
        if (scores) scores[j] = f->leaf_scored && j < *n_sizes ? f->leaf_scores[first + j] : NAN;
    }
    return SPORF_OK;
}

int sporf_forest_kind_choice(const sporf_forest *f, int32_t *kept, double *scores, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !kept)
        return sporf_set_error(err, SPORF_E_ARG, "kind_choice: forest and kept are required");
    *kept = sporf_params_kinds_kept(&f->params);
    for (int32_t q = 0; scores && q < SPORF_KIND_CHOICES; q++)
        scores[q] = f->leaf_scored && *kept >= 0 ? f->kind_scores[q] : NAN;
    return SPORF_OK;
}

int sporf_forest_trees_to_add(const sporf_forest *f, int64_t tree_from, int64_t trees_grown, int64_t *n_add,
                              int64_t *n_grown, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !n_add)
        return sporf_set_error(err, SPORF_E_ARG, "trees_to_add: forest and n_add are required");
    if (tree_from < 0 || trees_grown < 0 || trees_grown > INT64_MAX / 4 || tree_from > INT64_MAX / 4)
        return sporf_set_error(err, SPORF_E_ARG, "trees_to_add: tree_from and trees_grown must be in [0, 2^61)");
    const int32_t kept = sporf_params_kinds_kept(&f->params);
    const int64_t held = f->n_trees;
    if (kept != 1 && kept != 2) {
        *n_add = trees_grown - held;
        if (n_grown) *n_grown = held;
        return SPORF_OK;
    }
    /* the kept kind's trees j, tree 2 j + k of the seed's forest, below tree_from + trees_grown; the
     * next one it would hold is tree 2 next + k */
    const int64_t k = kept - 1, end = tree_from + trees_grown;
    const int64_t next = (int64_t)(sporf_params_tree_stream(&f->params, held) / 2u);
    *n_add = (end - k + 1) / 2 - next;
    if (n_grown) *n_grown = 2 * next + k - 1 - tree_from;
    return SPORF_OK;
}

int sporf_forest_get_outputs(const sporf_forest *f, int32_t *n_outputs, int32_t *widths, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !n_outputs)
        return sporf_set_error(err, SPORF_E_ARG, "get_outputs: forest and n_outputs are required");
    *n_outputs = f->n_outputs;
    if (widths) {
        if (f->n_outputs > 1)
            memcpy(widths, f->output_classes, (size_t)f->n_outputs * sizeof *widths);
        else
            widths[0] = f->n_classes;
    }
    return SPORF_OK;
}

int sporf_forest_get_tree(const sporf_forest *f, int64_t t, int32_t *n_nodes, int32_t *n_proj, int32_t *left,
                          int32_t *right, int32_t *proj_start, int32_t *proj_len, int32_t *proj_feature,
                          double *proj_weight, double *threshold, int32_t *missing, double *gain, double *value,
                          sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !n_nodes || !n_proj)
        return sporf_set_error(err, SPORF_E_ARG, "get_tree: forest, n_nodes and n_proj are required");
    if (t < 0 || t >= f->n_trees)
        return sporf_set_error(err, SPORF_E_ARG, "tree %lld does not exist: the forest has %lld trees (0 to %lld)",
                               (long long)t, (long long)f->n_trees, (long long)f->n_trees - 1);
    const sporf_tree *tr = &f->trees[t];
    *n_nodes = tr->n_nodes;
    *n_proj = tr->n_proj;
    void *arrays[] = {left, right, proj_start, proj_len, proj_feature, proj_weight, threshold, missing, gain, value};
    int given = 0;
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        given += arrays[k] != NULL;
    if (given == 0)
        return SPORF_OK; /* the size query */
    if (given != (int)(sizeof arrays / sizeof arrays[0]))
        return sporf_set_error(err, SPORF_E_ARG, "get_tree: give every array, or none for the sizes");
    const int32_t K = f->n_classes;
    for (int32_t i = 0; i < tr->n_nodes; i++) {
        const sporf_node *nd = &tr->nodes[i];
        const int leaf = nd->left < 0;
        left[i] = leaf ? -1 : nd->left;
        right[i] = leaf ? -1 : nd->right;
        proj_start[i] = leaf ? 0 : nd->proj_start;
        proj_len[i] = nd->proj_len;
        threshold[i] = leaf ? NAN : nd->threshold;
        missing[i] = leaf ? SPORF_MISSING_LEFT : nd->missing;
        gain[i] = leaf ? 0.0 : nd->gain;
        const double *lv = leaf ? tr->leaf_values + (int64_t)nd->right * K : NULL;
        if (lv && isnan(lv[0]) && tr->prior)
            lv = tr->prior;
        for (int32_t k = 0; k < K; k++)
            value[(int64_t)i * K + k] = lv ? lv[k] : NAN;
    }
    memcpy(proj_feature, tr->proj_feature, (size_t)tr->n_proj * sizeof *proj_feature);
    memcpy(proj_weight, tr->proj_weight, (size_t)tr->n_proj * sizeof *proj_weight);
    return SPORF_OK;
}

int sporf_forest_get_params(const sporf_forest *f, sporf_params *params, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !params)
        return sporf_set_error(err, SPORF_E_ARG, "get_params: forest and params are required");
    *params = f->params;
    return SPORF_OK;
}

int sporf_forest_get_class_weights(const sporf_forest *f, double *out, int32_t *stored, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !stored)
        return sporf_set_error(err, SPORF_E_ARG, "get_class_weights: forest and stored are required");
    *stored = f->class_weights != NULL;
    if (f->class_weights) {
        if (!out)
            return sporf_set_error(err, SPORF_E_ARG, "get_class_weights: out is required");
        memcpy(out, f->class_weights, (size_t)f->n_classes * sizeof *out);
    }
    return SPORF_OK;
}

/* Count NUL-terminated strings in a blob; -1 if it does not end with NUL. */
static int64_t count_strings(const char *blob, int64_t len)
{
    if (len == 0) return 0;
    if (blob[len - 1] != '\0') return -1;
    int64_t c = 0;
    for (int64_t i = 0; i < len; i++) c += blob[i] == '\0';
    return c;
}

int sporf_forest_set_strings(sporf_forest *f, int32_t which, int32_t kind,
                             const char *blob, int64_t len, int64_t count, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || which < 0 || which > 1 || len < 0 || (len > 0 && !blob))
        return sporf_set_error(err, SPORF_E_ARG, "set_strings: bad arguments");
    if (count_strings(blob, len) != count)
        return sporf_set_error(err, SPORF_E_ARG, "set_strings: the blob does not hold %lld NUL-terminated strings",
                               (long long)count);
    int64_t want = which == SPORF_STR_CLASSES ? f->n_classes : f->n_features;
    if (count != want && count != 0)
        return sporf_set_error(err, SPORF_E_ARG, "set_strings: expected %lld strings, got %lld",
                               (long long)want, (long long)count);
    char *copy = NULL;
    if (len > 0) {
        copy = malloc((size_t)len);
        if (!copy) return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
        memcpy(copy, blob, (size_t)len);
    }
    free(f->strings[which].blob);
    f->strings[which].blob = copy;
    f->strings[which].len = len;
    f->strings[which].count = count;
    f->strings[which].kind = kind;
    return SPORF_OK;
}

int sporf_forest_set_levels(sporf_forest *f, const int32_t *n_levels, const char *blob, int64_t len,
                            sporf_error *err)
{
    sporf_clear_error(err);
    if (!f)
        return sporf_set_error(err, SPORF_E_ARG, "set_levels: the forest is NULL");
    if (!n_levels) {
        free(f->n_levels);
        free(f->levels);
        f->n_levels = NULL;
        f->levels = NULL;
        f->levels_len = 0;
        return SPORF_OK;
    }
    int64_t total = 0;
    for (int64_t j = 0; j < f->n_features; j++) {
        if (n_levels[j] < 0 || n_levels[j] > SPORF_MAX_LEVELS)
            return sporf_set_error(err, SPORF_E_ARG, "set_levels: feature %lld has %d levels (at most %d)",
                                   (long long)j, n_levels[j], SPORF_MAX_LEVELS);
        total += n_levels[j];
    }
    if (len < 0 || (len > 0 && !blob) || total < 1 || count_strings(blob, len) != total)
        return sporf_set_error(err, SPORF_E_ARG, "set_levels: the blob does not hold the %lld level names the "
                                                 "counts add up to", (long long)total);
    int32_t *counts = malloc((size_t)f->n_features * sizeof *counts);
    char *copy = malloc((size_t)len);
    if (!counts || !copy) {
        free(counts);
        free(copy);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    }
    memcpy(counts, n_levels, (size_t)f->n_features * sizeof *counts);
    memcpy(copy, blob, (size_t)len);
    free(f->n_levels);
    free(f->levels);
    f->n_levels = counts;
    f->levels = copy;
    f->levels_len = len;
    return SPORF_OK;
}

int sporf_forest_get_levels(const sporf_forest *f, int32_t *n_levels, char *buf, int64_t cap, int64_t *len_out,
                            sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !len_out)
        return sporf_set_error(err, SPORF_E_ARG, "get_levels: forest and len_out are required");
    *len_out = f->levels_len;
    if (f->levels_len > 0 && n_levels)
        memcpy(n_levels, f->n_levels, (size_t)f->n_features * sizeof *n_levels);
    if (f->levels_len > 0 && buf && cap >= f->levels_len)
        memcpy(buf, f->levels, (size_t)f->levels_len);
    return SPORF_OK;
}

int sporf_forest_get_strings(const sporf_forest *f, int32_t which, char *buf, int64_t cap,
                             int64_t *len_out, int64_t *count_out, int32_t *kind_out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || which < 0 || which > 1)
        return sporf_set_error(err, SPORF_E_ARG, "get_strings: bad arguments");
    const sporf_strings *s = &f->strings[which];
    if (len_out) *len_out = s->len;
    if (count_out) *count_out = s->count;
    if (kind_out) *kind_out = s->kind;
    if (buf && cap >= s->len && s->len > 0)
        memcpy(buf, s->blob, (size_t)s->len);
    return SPORF_OK;
}

int sporf_forest_set_note(sporf_forest *f, const uint8_t *note, int64_t len, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || len < 0 || (len > 0 && !note))
        return sporf_set_error(err, SPORF_E_ARG, "set_note: bad arguments");
    if (len > SPORF_MAX_NOTE_BYTES)
        return sporf_set_error(err, SPORF_E_ARG, "set_note: a note holds at most %lld bytes, got %lld",
                               (long long)SPORF_MAX_NOTE_BYTES, (long long)len);
    uint8_t *copy = NULL;
    if (len > 0) {
        copy = malloc((size_t)len);
        if (!copy) return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
        memcpy(copy, note, (size_t)len);
    }
    free(f->note);
    f->note = copy;
    f->note_len = len;
    return SPORF_OK;
}

int sporf_forest_set_score_threshold(sporf_forest *f, double value, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || f->task != SPORF_TASK_ISOLATION)
        return sporf_set_error(err, SPORF_E_ARG, "set_score_threshold: only an isolation forest has an outlier "
                                                 "threshold");
    if (!(value >= 0.0 && value <= 1.0))
        return sporf_set_error(err, SPORF_E_ARG, "set_score_threshold: %g is not an anomaly score in [0, 1]", value);
    f->score_threshold = value;
    return SPORF_OK;
}

int sporf_rows_fingerprint(const sporf_matrix *X, uint64_t *out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!out)
        return sporf_set_error(err, SPORF_E_ARG, "fingerprint: out is required");
    /* float data only as the fits read it (their checks), doubles for their shape */
    const int rc = sporf_check_matrix(X, 0, X && X->data32 ? SPORF_CHECK_FIT : SPORF_CHECK_SHAPE, "X", err);
    if (rc != SPORF_OK)
        return rc;
    *out = sporf_matrix_fingerprint(X);
    return SPORF_OK;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int sporf_forest_set_outlier_share(sporf_forest *f, const double *scores, int64_t n, double share,
                                   sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !scores || n < 1)
        return sporf_set_error(err, SPORF_E_ARG, "set_outlier_share: a forest and at least one score are required");
    if (!(share > 0.0 && share <= 0.5))
        return sporf_set_error(err, SPORF_E_ARG, "the share of outliers must be a number in (0, 0.5], got %g", share);
    double *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++) {
        if (!(scores[i] >= 0.0 && scores[i] <= 1.0)) {
            free(v);
            return sporf_set_error(err, SPORF_E_ARG, "set_outlier_share: scores[%lld] = %g is not an anomaly score "
                                                     "in [0, 1]", (long long)i, scores[i]);
        }
        v[i] = scores[i];
    }
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    const double h = (double)(n - 1) * (1.0 - share);
    const int64_t lo = (int64_t)floor(h);
    const double t = h - (double)lo;
    const double q = lo + 1 < n ? v[lo] + t * (v[lo + 1] - v[lo]) : v[lo];
    free(v);
    return sporf_forest_set_score_threshold(f, q < 0.0 ? 0.0 : q > 1.0 ? 1.0 : q, err);
}

int sporf_forest_get_score_threshold(const sporf_forest *f, double *out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !out || f->task != SPORF_TASK_ISOLATION)
        return sporf_set_error(err, SPORF_E_ARG, "get_score_threshold: only an isolation forest has an outlier "
                                                 "threshold");
    *out = f->score_threshold;
    return SPORF_OK;
}

int sporf_forest_get_note(const sporf_forest *f, uint8_t *buf, int64_t cap, int64_t *len_out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !len_out)
        return sporf_set_error(err, SPORF_E_ARG, "get_note: bad arguments");
    *len_out = f->note_len;
    if (buf && cap >= f->note_len && f->note_len > 0)
        memcpy(buf, f->note, (size_t)f->note_len);
    return SPORF_OK;
}

/* The model layer's forest, given its prediction layout; freed on failure. */
static int with_layout(int rc, sporf_forest **out, sporf_error *err)
{
    if (rc == SPORF_OK && (rc = sporf_forest_pack(*out, err)) != SPORF_OK) {
        sporf_forest_free(*out);
        *out = NULL;
    }
    return rc;
}

int sporf_forest_load(const uint8_t *buf, int64_t len, sporf_forest **out, sporf_error *err)
{
    return with_layout(sporf_model_read(buf, len, out, err), out, err);
}

/* Shards that left the leaf size to the merge (leaf_choice.h): their sums,
 * added by the model layer, choose for the whole forest and its trees are
 * pruned to the choice. */
static int choose_merged(int rc, sporf_forest **out, int32_t n_threads, sporf_error *err)
{
    sporf_forest *f = rc == SPORF_OK ? *out : NULL;
    if (!f || !f->pending || f->pending->n == 0)
        return rc;
    if ((rc = sporf_leaf_choose_pending(f, n_threads, err)) != SPORF_OK) {
        sporf_forest_free(f);
        *out = NULL;
    }
    return rc;
}

int sporf_forest_merge(const sporf_forest *const *forests, int64_t n_forests, sporf_forest **out, sporf_error *err)
{
    return with_layout(choose_merged(sporf_model_merge(forests, n_forests, out, err), out, 1, err), out, err);
}

int sporf_forest_leaf_state(const sporf_forest *f, int32_t *state, int64_t *words_per_row, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !state)
        return sporf_set_error(err, SPORF_E_ARG, "leaf_state: forest and state are required");
    *state = !f->pending ? SPORF_LEAF_CHOSEN : f->pending->n > 0 ? SPORF_LEAF_PENDING_SUMS : SPORF_LEAF_PENDING;
    if (words_per_row)
        *words_per_row = f->pending ? 2 * (int64_t)(f->pending->end - f->pending->first) * f->pending->width : 0;
    return SPORF_OK;
}
