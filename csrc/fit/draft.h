/*
 * draft.h -- the tree being drawn: the third of the tree builder's parts
 * (the rows, rows.h; each task's state, task.h). Its nodes, the projections
 * of its splits and its leaves' values grow in buffers a builder reuses from
 * tree to tree, and are copied out, exactly sized, into a sporf_tree when the
 * tree is done (sporf_draft_finish). The depth-first stack of nodes still to
 * split lives here too.
 */
#ifndef SPORF_DRAFT_H
#define SPORF_DRAFT_H

#include "model/model.h"

#include <stdint.h>

typedef struct sporf_stack_item {
    int64_t start, end;
    int32_t depth;
    int32_t parent;     /* -1 for the root */
    int32_t is_left;
    int32_t compact;    /* the node-ordered copy holds the node's rows by position (rows.h) */
} sporf_stack_item;

typedef struct sporf_tree_draft {
    int32_t K;              /* values per leaf */
    int32_t node_K;         /* values per node with keep_nodes (the first K its leaf values) */
    sporf_node *nodes;
    int64_t n_nodes, nodes_cap;
    int32_t *proj_feature;  /* the splits' projections, n_proj terms */
    double *proj_weight;
    int64_t n_proj, proj_cap;
    double *leaf_values;    /* n_leaves x K */
    int64_t n_leaves, leaf_cap;
    int32_t depth;          /* the deepest leaf's depth */
    /* keep_nodes (min_samples_leaf "auto", leaf_choice.h): every node's rows
     * and values as a leaf, copied into the tree's node_rows / node_values */
    int keep_nodes;
    int32_t *node_rows;
    int64_t node_rows_cap;
    double *node_values;
    int64_t node_values_cap;
    sporf_stack_item *stack;
    int64_t top, stack_cap;
} sporf_tree_draft;

/* Start a tree of K values per leaf and node_K per kept node (the buffers
 * stay from earlier trees). */
void sporf_draft_start(sporf_tree_draft *d, int32_t K, int32_t node_K);

/* Push a node still to split; 0 when out of memory. */
int sporf_draft_push(sporf_tree_draft *d, sporf_stack_item item);

/* A new node, child of item.parent (none for the root), zeroed; its id in
 * *id. 0 when out of memory. */
int sporf_draft_add_node(sporf_tree_draft *d, const sporf_stack_item *item, int32_t *id);

/* With keep_nodes: node id holds n_rows rows; its node_K values are to be
 * written at the address returned (NULL when out of memory). */
double *sporf_draft_node_values(sporf_tree_draft *d, int32_t id, int64_t n_rows);

/* Node id at the given depth becomes a leaf; its K values are to be written
 * at the address returned (NULL when out of memory). */
double *sporf_draft_leaf(sporf_tree_draft *d, int32_t id, int32_t depth);

/* Node id splits by the projection (features f, weights w, len terms) at
 * threshold, with the given gain and the side missing values take; 0 when
 * out of memory. */
int sporf_draft_split(sporf_tree_draft *d, int32_t id, const int32_t *f, const double *w, int32_t len,
                      double threshold, double gain, int32_t missing);

/* Copy the drawn tree, exactly sized, into *tree (the caller releases it with
 * sporf_tree_release); 0 when out of memory (*tree is then released). */
int sporf_draft_finish(const sporf_tree_draft *d, sporf_tree *tree);

void sporf_draft_free(sporf_tree_draft *d);

#endif
