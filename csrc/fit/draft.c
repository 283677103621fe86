/* draft.c -- see draft.h. */
#include "fit/draft.h"

#include <stdlib.h>
#include <string.h>

/* Room for need elements of elem bytes in *ptr (capacity *cap), doubling. */
static int grow_array(void **ptr, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    int64_t c = *cap > 0 ? *cap : 64;
    while (c < need) c *= 2;
    void *p = realloc(*ptr, (size_t)c * elem);
    if (!p)
        return 0;
    *ptr = p;
    *cap = c;
    return 1;
}

void sporf_draft_start(sporf_tree_draft *d, int32_t K, int32_t node_K)
{
    d->K = K;
    d->node_K = node_K;
    d->n_nodes = d->n_proj = d->n_leaves = d->top = 0;
    d->depth = 0;
}

int sporf_draft_push(sporf_tree_draft *d, sporf_stack_item item)
{
    if (!grow_array((void **)&d->stack, &d->stack_cap, d->top + 1, sizeof *d->stack))
        return 0;
    d->stack[d->top++] = item;
    return 1;
}

int sporf_draft_add_node(sporf_tree_draft *d, const sporf_stack_item *item, int32_t *id)
{
    if (!grow_array((void **)&d->nodes, &d->nodes_cap, d->n_nodes + 1, sizeof *d->nodes))
        return 0;
    *id = (int32_t)d->n_nodes++;
    memset(&d->nodes[*id], 0, sizeof d->nodes[*id]);
    if (item->parent >= 0) {
        if (item->is_left) d->nodes[item->parent].left = *id;
        else d->nodes[item->parent].right = *id;
    }
    return 1;
}

double *sporf_draft_node_values(sporf_tree_draft *d, int32_t id, int64_t n_rows)
{
    if (!grow_array((void **)&d->node_rows, &d->node_rows_cap, d->n_nodes, sizeof *d->node_rows) ||
        !grow_array((void **)&d->node_values, &d->node_values_cap, d->n_nodes * d->node_K, sizeof *d->node_values))
        return NULL;
    d->node_rows[id] = (int32_t)n_rows;
    return d->node_values + (int64_t)id * d->node_K;
}

double *sporf_draft_leaf(sporf_tree_draft *d, int32_t id, int32_t depth)
{
    if (!grow_array((void **)&d->leaf_values, &d->leaf_cap, (d->n_leaves + 1) * d->K, sizeof(double)))
        return NULL;
    sporf_node *nd = &d->nodes[id];
    nd->left = -1;
    nd->right = (int32_t)d->n_leaves;
    if (depth > d->depth) d->depth = depth;
    return d->leaf_values + d->n_leaves++ * d->K;
}

int sporf_draft_split(sporf_tree_draft *d, int32_t id, const int32_t *f, const double *w, int32_t len,
                      double threshold, double gain, int32_t missing)
{
    if (!grow_array((void **)&d->proj_feature, &d->proj_cap, d->n_proj + len, sizeof(int32_t)))
        return 0;
    /* proj_weight shares proj_cap: grow it to the same capacity. */
    double *pw = realloc(d->proj_weight, (size_t)d->proj_cap * sizeof(double));
    if (!pw)
        return 0;
    d->proj_weight = pw;
    memcpy(d->proj_feature + d->n_proj, f, (size_t)len * sizeof(int32_t));
    memcpy(d->proj_weight + d->n_proj, w, (size_t)len * sizeof(double));
    sporf_node *nd = &d->nodes[id];
    nd->proj_start = (int32_t)d->n_proj;
    nd->proj_len = len;
    nd->threshold = threshold;
    nd->gain = gain;
    nd->missing = missing;
    d->n_proj += len;
    return 1;
}

int sporf_draft_finish(const sporf_tree_draft *d, sporf_tree *tree)
{
    const int64_t n_nodes = d->n_nodes, n_proj = d->n_proj, n_leaves = d->n_leaves, K = d->K;
    tree->nodes = malloc((size_t)n_nodes * sizeof *tree->nodes);
    tree->proj_feature = malloc((size_t)(n_proj > 0 ? n_proj : 1) * sizeof(int32_t));
    tree->proj_weight = malloc((size_t)(n_proj > 0 ? n_proj : 1) * sizeof(double));
    tree->leaf_values = malloc((size_t)(n_leaves * K) * sizeof(double));
    if (!tree->nodes || !tree->proj_feature || !tree->proj_weight || !tree->leaf_values) {
        sporf_tree_release(tree);
        return 0;
    }
    memcpy(tree->nodes, d->nodes, (size_t)n_nodes * sizeof *tree->nodes);
    if (n_proj > 0) {
        memcpy(tree->proj_feature, d->proj_feature, (size_t)n_proj * sizeof(int32_t));
        memcpy(tree->proj_weight, d->proj_weight, (size_t)n_proj * sizeof(double));
    }
    memcpy(tree->leaf_values, d->leaf_values, (size_t)(n_leaves * K) * sizeof(double));
    if (d->keep_nodes) {
        tree->node_rows = malloc((size_t)n_nodes * sizeof *tree->node_rows);
        tree->node_values = malloc((size_t)(n_nodes * d->node_K) * sizeof *tree->node_values);
        tree->node_width = d->node_K;
        if (!tree->node_rows || !tree->node_values) {
            sporf_tree_release(tree);
            return 0;
        }
        memcpy(tree->node_rows, d->node_rows, (size_t)n_nodes * sizeof *tree->node_rows);
        memcpy(tree->node_values, d->node_values, (size_t)(n_nodes * d->node_K) * sizeof *tree->node_values);
    }
    tree->n_nodes = (int32_t)n_nodes;
    tree->n_leaves = (int32_t)n_leaves;
    tree->n_proj = (int32_t)n_proj;
    tree->depth = d->depth;
    return 1;
}

void sporf_draft_free(sporf_tree_draft *d)
{
    free(d->nodes);
    free(d->proj_feature);
    free(d->proj_weight);
    free(d->leaf_values);
    free(d->node_rows);
    free(d->node_values);
    free(d->stack);
    memset(d, 0, sizeof *d);
}
