/*
 * core.h -- internal types shared by the core's translation units.
 * Nothing here is visible to the bindings; sporf.h is the public surface.
 */
#ifndef SPORF_CORE_H
#define SPORF_CORE_H

#include "include/sporf.h"

#include <stdarg.h>

/* A node of a grown tree. Children always come after their parent in the
 * node array (trees are grown depth-first), which the loader relies on to
 * rule out cycles. */
typedef struct sporf_node {
    int32_t left;        /* index of the left child, or -1 for a leaf            */
    int32_t right;       /* index of the right child; for a leaf, its leaf slot  */
    int32_t proj_start;  /* first entry of this split's projection               */
    int32_t proj_len;    /* number of non-zeros (0 for a leaf)                   */
    double threshold;    /* go left when the projection is <= threshold          */
    double gain;         /* weighted impurity decrease W_t*i_t - W_l*i_l - W_r*i_r */
} sporf_node;

/* The node as prediction reads it; see traverse.h and packed.h. */
typedef struct sporf_pnode {
    int32_t left;        /* left child; a leaf points to itself */
    int32_t right;       /* right child; a leaf points to itself */
    int32_t f[3];        /* inlined features, or f[0] = first side-buffer entry, f[1] = count;
                            0 for a leaf (stepping from a leaf reads feature 0 harmlessly) */
    int32_t kind;        /* coefficient code, SPORF_PN_GENERAL, or -(slot + 1) for a leaf */
    union {
        double threshold;     /* a split's */
        struct {
            int32_t node;     /* a leaf's index in its tree's stored nodes (what apply returns) */
            int32_t onehot;   /* the class of a one-hot leaf, or -1: read leaf_values */
        } leaf;
    } u;                 /* a leaf's bits, compared as a threshold, choose between equal children */
} sporf_pnode;

static inline int32_t sporf_pnode_leaf_slot(const sporf_pnode *nd) { return -nd->kind - 1; }

typedef struct sporf_tree {
    int32_t n_nodes;
    int32_t n_leaves;
    int32_t n_proj;        /* total non-zeros over split nodes */
    int32_t depth;         /* depth of the deepest leaf (root = 0) */
    sporf_node *nodes;
    int32_t *proj_feature; /* n_proj feature indices */
    double *proj_weight;   /* n_proj weights */
    double *leaf_values;   /* n_leaves x n_classes: class distributions (rows sum to 1) or
                              regression means; NaN rows: honest leaves that abstain */
    double *prior;         /* honest trees: n_classes values (the estimation sample's class
                              distribution or mean); NULL otherwise */
    sporf_pnode *pnodes;   /* derived, while a tree grows (honest leaf estimation) and in
                              tests: see sporf_tree_prepare; prediction reads the
                              forest's packed layout instead */
} sporf_tree;

typedef struct sporf_strings {
    char *blob;
    int64_t len;
    int64_t count;
    int32_t kind;
} sporf_strings;

struct sporf_forest {
    sporf_params params;
    int32_t task;          /* SPORF_TASK_* */
    int64_t n_features;
    int32_t n_classes;
    int64_t n_trees;
    sporf_tree *trees;
    sporf_strings strings[2];
    struct sporf_packed *packed; /* derived prediction layout (packed.h); NULL until packed */
};

/* The model format version sporf_forest_save writes (io.c). */
#define SPORF_MODEL_FORMAT_VERSION 5

/* ---- errors (api.c) ---- */
int sporf_set_error(sporf_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void sporf_clear_error(sporf_error *err);

/* ---- trees and forests (api.c) ---- */
void sporf_tree_release(sporf_tree *tree);

/* Set a tree's sizes and allocate its arrays for n_nodes nodes (zeroed),
 * n_proj projection entries and n_leaves x K leaf values, as the model
 * readers fill them. Returns 1, or 0 when out of memory (what was allocated
 * stays in the tree for sporf_tree_release). */
int sporf_tree_alloc(sporf_tree *tree, int32_t n_nodes, int32_t n_leaves, int32_t n_proj, int32_t K);
sporf_forest *sporf_forest_alloc(void);

/* ---- prediction layout (traverse.c) ---- */
/* The prediction node of stored node i (children still tree indices). */
void sporf_pnode_from_node(const sporf_tree *tree, int32_t i, sporf_pnode *q);
/* Build tree->pnodes from the stored nodes; 0 on allocation failure. */
int sporf_tree_prepare(sporf_tree *tree);
/* The class of a leaf whose K values are, bit for bit, one 1.0 and +0.0
 * elsewhere (so adding 1 to that class sums exactly as adding the values),
 * or -1. Used by the prediction layout and the model format. */
int32_t sporf_leaf_onehot_class(const double *lv, int32_t K);
/* Free tree->pnodes (a grown tree keeps only the forest's packed layout). */
void sporf_tree_unprepare(sporf_tree *tree);

#endif
