/* api.c -- errors and the forest handle's simple accessors (parameters: params.c). */
#include "core.h"
#include "packed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sporf_set_error(sporf_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void sporf_clear_error(sporf_error *err)
{
    if (err) {
        err->code = SPORF_OK;
        err->message[0] = '\0';
    }
}

int sporf_tree_alloc(sporf_tree *tree, int32_t n_nodes, int32_t n_leaves, int32_t n_proj, int32_t K)
{
    tree->n_nodes = n_nodes;
    tree->n_leaves = n_leaves;
    tree->n_proj = n_proj;
    tree->nodes = calloc((size_t)n_nodes, sizeof *tree->nodes);
    tree->proj_feature = malloc((size_t)(n_proj > 0 ? n_proj : 1) * sizeof *tree->proj_feature);
    tree->proj_weight = malloc((size_t)(n_proj > 0 ? n_proj : 1) * sizeof *tree->proj_weight);
    tree->leaf_values = malloc((size_t)n_leaves * (size_t)K * sizeof *tree->leaf_values);
    return tree->nodes && tree->proj_feature && tree->proj_weight && tree->leaf_values;
}

void sporf_tree_release(sporf_tree *tree)
{
    if (!tree) return;
    free(tree->nodes);
    free(tree->proj_feature);
    free(tree->proj_weight);
    free(tree->leaf_values);
    free(tree->prior);
    free(tree->pnodes);
    memset(tree, 0, sizeof *tree);
}

sporf_forest *sporf_forest_alloc(void)
{
    return calloc(1, sizeof(sporf_forest));
}

void sporf_forest_free(sporf_forest *f)
{
    if (!f) return;
    if (f->trees)
        for (int64_t t = 0; t < f->n_trees; t++) sporf_tree_release(&f->trees[t]);
    free(f->trees);
    sporf_packed_free(f->packed);
    for (int i = 0; i < 2; i++) free(f->strings[i].blob);
    free(f->class_weights);
    free(f);
}

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
    info->format_version = SPORF_MODEL_FORMAT_VERSION;
    for (int64_t t = 0; t < f->n_trees; t++) {
        info->n_nodes += f->trees[t].n_nodes;
        info->n_leaves += f->trees[t].n_leaves;
        if (f->trees[t].depth > info->max_depth_seen) info->max_depth_seen = f->trees[t].depth;
    }
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
