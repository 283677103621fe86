/* tree.c -- allocating and releasing trees and forests (model.h). */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

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
    free(tree->leaf_start);
    free(tree->leaf_rank);
    free(tree->node_rows);
    free(tree->node_values);
    memset(tree, 0, sizeof *tree);
}

sporf_forest *sporf_forest_alloc(void)
{
    sporf_forest *f = calloc(1, sizeof(sporf_forest));
    if (f)
        f->n_outputs = 1;
    return f;
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
    free(f->impute);
    free(f->note);
    free(f->qrf_y);
    free(f->n_levels);
    free(f->levels);
    free(f->qrf_w);
    free(f->qrf_event);
    free(f->output_classes);
    sporf_leaf_pending_free(f->pending);
    free(f);
}

void sporf_leaf_pending_free(sporf_leaf_pending *p)
{
    if (!p) return;
    free(p->sums);
    free(p->count);
    free(p->codes);
    free(p->values);
    free(p->events);
    free(p->sample_weight);
    free(p);
}

void sporf_packed_free(sporf_packed *p)
{
    if (!p) return;
    free(p->bin_first_tree);
    free(p->bin_offset);
    free(p->root);
    free(p->tree_bin);
    free(p->nodes);
    free(p);
}

void sporf_tree_unprepare(sporf_tree *tree)
{
    free(tree->pnodes);
    tree->pnodes = NULL;
}

int32_t sporf_leaf_onehot_class(const double *lv, int32_t K)
{
    static const double one = 1.0, zero = 0.0;
    int32_t c = -1;
    for (int32_t k = 0; k < K; k++) {
        if (memcmp(&lv[k], &one, sizeof one) == 0 && c < 0)
            c = k;
        else if (memcmp(&lv[k], &zero, sizeof zero) != 0) /* +0.0 only */
            return -1;
    }
    return c;
}
