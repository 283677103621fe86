/* merge.c -- joining forests grown as shards of one fit (sporf.h,
 * sporf_forest_merge). Shards are seeded by their global tree indices
 * (params.first_tree), so concatenating their trees in index order gives
 * exactly the forest one fit of the whole range grows. */
#include "model/model.h"
#include "model/merge.h"
#include "model/params.h"
#include "util/exact.h"

#include <stdlib.h>
#include <string.h>

static int same_strings(const sporf_strings *a, const sporf_strings *b)
{
    return a->kind == b->kind && a->count == b->count && a->len == b->len &&
           (a->len == 0 || memcmp(a->blob, b->blob, (size_t)a->len) == 0);
}

static int same_array(const void *a, const void *b, int64_t count, size_t size)
{
    return (!a) == (!b) && (!a || count <= 0 || memcmp(a, b, (size_t)count * size) == 0);
}

/* Two shards' pending leaf choices (model.h sporf_leaf_pending) join: both
 * hold sums or neither, of the same shape, against the same response. */
static int check_pending(const sporf_leaf_pending *a, const sporf_leaf_pending *b, sporf_error *err)
{
    if (!a || !b)
        return SPORF_OK;
    if ((a->n > 0) != (b->n > 0))
        return sporf_set_error(err, SPORF_E_ARG, "cannot merge: a shard holds its out-of-bag sums and another "
                                                 "(grown from a sample of the rows) does not");
    if (a->n != b->n || a->first != b->first || a->end != b->end || a->width != b->width || a->scale != b->scale ||
        a->m != b->m)
        return sporf_set_error(err, SPORF_E_ARG, "cannot merge: the shards were grown on different training data "
                                                 "(%lld and %lld rows)", (long long)a->n, (long long)b->n);
    const int64_t nm = a->n * a->m;
    if (!same_array(a->codes, b->codes, nm, sizeof *a->codes) ||
        !same_array(a->values, b->values, nm, sizeof *a->values) ||
        !same_array(a->events, b->events, a->n, sizeof *a->events) ||
        !same_array(a->sample_weight, b->sample_weight, a->n, sizeof *a->sample_weight))
        return sporf_set_error(err, SPORF_E_ARG, "cannot merge: the shards were grown on different training data "
                                                 "(their responses or sample weights differ)");
    return SPORF_OK;
}

static int check_compatible(const sporf_forest *a, const sporf_forest *b, sporf_error *err)
{
    if (a->task != b->task)
        return sporf_set_error(err, SPORF_E_ARG, "cannot merge: the forests are of different kinds "
                                                 "(classification, regression, survival, unsupervised or "
                                                 "isolation)");
    if (a->n_features != b->n_features)
        return sporf_set_error(err, SPORF_E_ARG, "cannot merge: the forests were fitted on different numbers of features (%lld and %lld)",
                               (long long)a->n_features, (long long)b->n_features);
    if (a->n_classes != b->n_classes || !same_strings(&a->strings[SPORF_STR_CLASSES], &b->strings[SPORF_STR_CLASSES]))
        return sporf_set_error(err, SPORF_E_ARG, "cannot merge: the forests have different classes");
    if (a->n_outputs != b->n_outputs ||
        (a->n_outputs > 1 &&
         memcmp(a->output_classes, b->output_classes, (size_t)a->n_outputs * sizeof *a->output_classes) != 0))
        return sporf_set_error(err, SPORF_E_ARG, "cannot merge: the forests have different outputs");
    if (!same_strings(&a->strings[SPORF_STR_FEATURE_NAMES], &b->strings[SPORF_STR_FEATURE_NAMES]))
        return sporf_set_error(err, SPORF_E_ARG, "cannot merge: the forests have different feature names");
    if ((!a->pending) != (!b->pending))
        return sporf_set_error(err, SPORF_E_ARG, "cannot merge: one forest chose its leaf size out of bag from its "
                                                 "own trees and another has not (a shard of a larger forest); grow "
                                                 "every part of the forest as a shard, so the merge chooses for "
                                                 "all of them");
    int rc = check_pending(a->pending, b->pending, err);
    if (rc != SPORF_OK)
        return rc;
    const int64_t ka = sporf_params_leaf_chosen(&a->params), kb = sporf_params_leaf_chosen(&b->params);
    if (sporf_params_leaf_auto(&a->params) && sporf_params_leaf_auto(&b->params) && ka != kb)
        return sporf_set_error(err, SPORF_E_ARG, "cannot merge: the forests chose different leaf sizes out of bag "
                                                 "(%lld and %lld rows), each from its own trees; grow every part "
                                                 "as a shard, so the merge chooses for all of them",
                               (long long)ka, (long long)kb);
    const char *p = sporf_params_differing(&a->params, &b->params);
    if (!p && (!a->class_weights) != (!b->class_weights))
        p = "class_weight";
    if (!p && a->class_weights &&
        memcmp(a->class_weights, b->class_weights, (size_t)a->n_classes * sizeof *a->class_weights) != 0)
        p = "class_weight";
    if (!p && ((!a->impute) != (!b->impute) ||
               (a->impute && memcmp(a->impute, b->impute, (size_t)a->n_features * sizeof *a->impute) != 0)))
        return sporf_set_error(err, SPORF_E_ARG, "cannot merge: the forests were grown on different training "
                                                 "data (their missing values' feature means differ)");
    if (!p && (a->levels_len != b->levels_len ||
               (a->levels_len > 0 && (memcmp(a->levels, b->levels, (size_t)a->levels_len) != 0 ||
                                      memcmp(a->n_levels, b->n_levels, (size_t)a->n_features * sizeof *a->n_levels) != 0))))
        return sporf_set_error(err, SPORF_E_ARG, "cannot merge: the forests have different categorical levels");
    if (!p && (a->qrf_n != b->qrf_n || (!a->qrf_w) != (!b->qrf_w) ||
               (a->qrf_n > 0 && memcmp(a->qrf_y, b->qrf_y, (size_t)a->qrf_n * sizeof *a->qrf_y) != 0) ||
               (a->qrf_w && memcmp(a->qrf_w, b->qrf_w, (size_t)a->qrf_n * sizeof *a->qrf_w) != 0) ||
               (!a->qrf_event) != (!b->qrf_event) ||
               (a->qrf_event && memcmp(a->qrf_event, b->qrf_event, (size_t)a->qrf_n) != 0)))
        return sporf_set_error(err, SPORF_E_ARG, "cannot merge: the quantile or survival forests were grown on different "
                                                 "training data (their leaves list rows of different responses)");
    if (p)
        return sporf_set_error(err, SPORF_E_ARG,
                               "cannot merge: the forests were grown with different %s "
                               "(shards of one forest share every parameter but the tree range)",
                               p);
    return SPORF_OK;
}

static int copy_array(void **dst, const void *src, int64_t count, size_t size)
{
    *dst = NULL;
    if (!src || count <= 0)
        return 1;
    *dst = malloc((size_t)count * size);
    if (!*dst)
        return 0;
    memcpy(*dst, src, (size_t)count * size);
    return 1;
}

/* Deep copy of a grown tree (its derived pnodes are not copied). */
static int copy_tree(sporf_tree *dst, const sporf_tree *src, int32_t K)
{
    memset(dst, 0, sizeof *dst);
    dst->n_nodes = src->n_nodes;
    dst->n_leaves = src->n_leaves;
    dst->n_proj = src->n_proj;
    dst->depth = src->depth;
    return copy_array((void **)&dst->nodes, src->nodes, src->n_nodes, sizeof *src->nodes) &&
           copy_array((void **)&dst->proj_feature, src->proj_feature, src->n_proj, sizeof *src->proj_feature) &&
           copy_array((void **)&dst->proj_weight, src->proj_weight, src->n_proj, sizeof *src->proj_weight) &&
           copy_array((void **)&dst->leaf_values, src->leaf_values, (int64_t)src->n_leaves * K,
                      sizeof *src->leaf_values) &&
           copy_array((void **)&dst->prior, src->prior, K, sizeof *src->prior) &&
           copy_array((void **)&dst->leaf_start, src->leaf_start, src->leaf_start ? src->n_leaves + 1 : 0,
                      sizeof *src->leaf_start) &&
           copy_array((void **)&dst->leaf_rank, src->leaf_rank,
                      src->leaf_start ? (src->leaf_start[src->n_leaves] > 0 ? src->leaf_start[src->n_leaves] : 1) : 0,
                      sizeof *src->leaf_rank) &&
           copy_array((void **)&dst->node_rows, src->node_rows, src->node_rows ? src->n_nodes : 0,
                      sizeof *src->node_rows) &&
           copy_array((void **)&dst->node_values, src->node_values,
                      src->node_values ? (int64_t)src->n_nodes * src->node_width : 0, sizeof *src->node_values) &&
           ((dst->node_width = src->node_width), 1);
}

/* The merged forest's pending leaf choice: the shards' sums and counts
 * added (exactly: util/exact.h), their common response copied. */
static int merge_pending(sporf_forest *m, const sporf_forest *const *forests, int64_t n_forests)
{
    const sporf_leaf_pending *a = forests[0]->pending;
    sporf_leaf_pending *p = calloc(1, sizeof *p);
    if (!(m->pending = p))
        return 0;
    *p = *a;
    p->sums = NULL;
    p->count = NULL;
    p->codes = NULL;
    p->values = NULL;
    p->events = NULL;
    p->sample_weight = NULL;
    if (a->n == 0)
        return 1;
    const int64_t n = a->n, words = n * (int64_t)(a->end - a->first) * a->width * 2;
    if (!copy_array((void **)&p->sums, a->sums, words, sizeof *p->sums) ||
        !copy_array((void **)&p->count, a->count, n, sizeof *p->count) ||
        !copy_array((void **)&p->codes, a->codes, a->codes ? n * a->m : 0, sizeof *p->codes) ||
        !copy_array((void **)&p->values, a->values, a->values ? n * a->m : 0, sizeof *p->values) ||
        !copy_array((void **)&p->events, a->events, a->events ? n : 0, sizeof *p->events) ||
        !copy_array((void **)&p->sample_weight, a->sample_weight, a->sample_weight ? n : 0,
                    sizeof *p->sample_weight))
        return 0;
    for (int64_t k = 1; k < n_forests; k++) {
        const sporf_leaf_pending *b = forests[k]->pending;
        sporf_exact *sum = (sporf_exact *)p->sums;
        const sporf_exact *add = (const sporf_exact *)b->sums;
        for (int64_t i = 0; i < words / 2; i++) sporf_exact_add(&sum[i], add[i]);
        for (int64_t i = 0; i < n; i++) p->count[i] += b->count[i];
    }
    return 1;
}

static int copy_strings(sporf_strings *dst, const sporf_strings *src)
{
    *dst = *src;
    dst->blob = NULL;
    return copy_array((void **)&dst->blob, src->blob, src->len, 1);
}

int sporf_model_merge(const sporf_forest *const *forests, int64_t n_forests, sporf_forest **out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!out)
        return sporf_set_error(err, SPORF_E_ARG, "merge: out must not be NULL");
    *out = NULL;
    if (!forests || n_forests < 1)
        return sporf_set_error(err, SPORF_E_ARG, "merge: at least one forest is required");
    for (int64_t i = 0; i < n_forests; i++) {
        if (!forests[i])
            return sporf_set_error(err, SPORF_E_ARG, "merge: forest %lld is NULL", (long long)i);
        int rc = check_compatible(forests[0], forests[i], err);
        if (rc != SPORF_OK)
            return rc;
    }
    /* Order the forests by first tree (insertion sort: few shards). */
    int64_t *order = malloc((size_t)n_forests * sizeof *order);
    if (!order)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    for (int64_t i = 0; i < n_forests; i++) {
        int64_t j = i;
        while (j > 0 && sporf_params_first_tree(&forests[order[j - 1]]->params) >
                            sporf_params_first_tree(&forests[i]->params)) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    int64_t total = 0;
    for (int64_t k = 0; k < n_forests; k++) {
        const sporf_forest *f = forests[order[k]];
        if (k > 0) {
            const sporf_forest *prev = forests[order[k - 1]];
            const int64_t end = sporf_params_first_tree(&prev->params) + prev->n_trees;
            const int64_t start = sporf_params_first_tree(&f->params);
            int rc = SPORF_OK;
            if (start < end)
                rc = sporf_set_error(err, SPORF_E_ARG,
                                     "cannot merge: two of the forests both hold trees %lld-%lld "
                                     "(shards must have disjoint tree ranges)",
                                     (long long)start,
                                     (long long)(end < start + f->n_trees ? end : start + f->n_trees) - 1);
            else if (start > end)
                rc = sporf_set_error(err, SPORF_E_ARG,
                                     "cannot merge: no forest holds trees %lld-%lld (the shards' tree "
                                     "ranges must join without a gap)",
                                     (long long)end, (long long)start - 1);
            if (rc != SPORF_OK) {
                free(order);
                return rc;
            }
        }
        total += f->n_trees;
    }
    if (total > 100000000) {
        free(order);
        return sporf_set_error(err, SPORF_E_ARG, "cannot merge: %lld trees in all is too many", (long long)total);
    }

    const sporf_forest *first = forests[order[0]];
    sporf_forest *m = sporf_forest_alloc();
    int ok = m != NULL;
    if (ok) {
        m->params = first->params; /* with "auto", the size the first chose: the others were pruned to it */
        sporf_params_set_n_trees(&m->params, total);
        m->leaf_scored = first->leaf_scored;
        m->leaf_grown = first->leaf_grown;
        memcpy(m->leaf_scores, first->leaf_scores, sizeof m->leaf_scores);
        m->task = first->task;
        m->n_features = first->n_features;
        m->n_classes = first->n_classes;
        m->n_outputs = first->n_outputs;
        m->score_threshold = first->score_threshold;
        /* rows with NaN need every tree's directions */
        m->missing_learned = 1;
        for (int64_t k = 0; k < n_forests; k++)
            m->missing_learned &= forests[k]->missing_learned;
        m->trees = calloc((size_t)total, sizeof *m->trees);
        ok = m->trees != NULL;
    }
    if (ok)
        m->n_trees = total; /* sporf_forest_free then releases what was copied */
    for (int s = 0; s < 2 && ok; s++)
        ok = copy_strings(&m->strings[s], &first->strings[s]);
    if (ok && first->pending)
        ok = merge_pending(m, forests, n_forests);
    if (ok)
        ok = copy_array((void **)&m->class_weights, first->class_weights, first->class_weights ? first->n_classes : 0,
                        sizeof *first->class_weights);
    if (ok)
        ok = copy_array((void **)&m->output_classes, first->output_classes,
                        first->n_outputs > 1 ? first->n_outputs : 0, sizeof *first->output_classes);
    if (ok && first->note_len > 0) {
        ok = copy_array((void **)&m->note, first->note, first->note_len, 1);
        m->note_len = ok ? first->note_len : 0;
    }
    if (ok)
        ok = copy_array((void **)&m->impute, first->impute, first->impute ? first->n_features : 0,
                        sizeof *first->impute);
    if (ok && first->levels_len > 0) {
        ok = copy_array((void **)&m->n_levels, first->n_levels, first->n_features, sizeof *first->n_levels) &&
             copy_array((void **)&m->levels, first->levels, first->levels_len, 1);
        m->levels_len = ok ? first->levels_len : 0;
    }
    if (ok && first->qrf_n > 0) {
        ok = copy_array((void **)&m->qrf_y, first->qrf_y, first->qrf_n, sizeof *first->qrf_y) &&
             copy_array((void **)&m->qrf_w, first->qrf_w, first->qrf_w ? first->qrf_n : 0, sizeof *first->qrf_w) &&
             copy_array((void **)&m->qrf_event, first->qrf_event, first->qrf_event ? first->qrf_n : 0, 1);
        m->qrf_n = ok ? first->qrf_n : 0;
    }
    int64_t t = 0;
    for (int64_t k = 0; k < n_forests && ok; k++) {
        const sporf_forest *f = forests[order[k]];
        for (int64_t i = 0; i < f->n_trees && ok; i++)
            ok = copy_tree(&m->trees[t++], &f->trees[i], f->n_classes);
    }
    free(order);
    if (!ok) {
        sporf_forest_free(m);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory merging forests");
    }
    *out = m;
    return SPORF_OK;
}
