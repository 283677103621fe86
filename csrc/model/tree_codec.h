/*
 * tree_codec.h -- the compact encoding of one tree in model formats 4 and later.
 *
 * Trees are stored in the layout the builder grows them in (model/model.h): nodes in
 * preorder, so a split's left child is the next node and its right child is
 * the node after the left subtree; leaf slots and projection entries are
 * numbered in the same order. That layout lets the encoding drop every child
 * index, leaf slot and projection offset and keep only, per node:
 *
 *   tag byte   low 2 bits: 0 leaf with a one-hot class distribution,
 *              1 leaf with n_classes f64 values, 2 split with weights +-1,
 *              3 split with f64 weights; high 6 bits: a split's number of
 *              non-zeros when below 63, else 63 and a varint follows
 *   one-hot leaf   varint class
 *   values leaf    n_classes x f64
 *   split          [varint non-zeros], non-zeros x varint feature,
 *                  unit weights: ceil(non-zeros / 8) bytes of signs (bit k
 *                  set: weight k is -1), else non-zeros x f64 weight;
 *                  f64 threshold, f64 gain,
 *                  [format >= 8] u8 missing-value direction (SPORF_MISSING_*: 0 right,
 *                  1 left, 2 by the imputed projection, only in a forest with impute values)
 *
 * preceded by varint n_nodes and varint n_proj, and followed (honest trees)
 * by n_classes x f64 prior. A classification leaf of a forest with at most
 * SPORF_ONEHOT_MAX_CLASSES classes is one-hot when its values are exactly one
 * 1.0 and zeros -- every leaf of a fully grown tree on distinct rows -- so a
 * leaf costs 2 bytes instead of 8 x n_classes. Floating-point values are
 * written bit for bit, so a loaded forest predicts exactly as the saved one.
 */
#ifndef SPORF_TREE_CODEC_H
#define SPORF_TREE_CODEC_H

#include "util/bytes.h"
#include "model/model.h"

/* Above this many classes leaves are always written as values, which keeps
 * the decoder's allocation within a fixed multiple of the bytes read. */
#define SPORF_ONEHOT_MAX_CLASSES 2048

/* A walk over a tree's nodes in preorder, the builder's layout, as a loader
 * reads them one by one: it says which split each node is the right child
 * of and how deep it is, so format 4 can rebuild child indices and formats
 * 1-3 can check theirs. */
typedef struct sporf_preorder {
    int32_t *open_node;  /* splits still waiting for their right child */
    int32_t *open_depth;
    int32_t cap, top, depth, max_depth;
} sporf_preorder;

/* Room for cap open splits; 0 on allocation failure. */
int sporf_preorder_init(sporf_preorder *w, int32_t cap);
void sporf_preorder_free(sporf_preorder *w);
/* Enter node i (prev_is_leaf: whether node i - 1 is a leaf). Returns the
 * split node i is the right child of; -1 for the root or a left child (of
 * node i - 1); -2 if the tree was already complete. Sets w->depth. */
int32_t sporf_preorder_enter(sporf_preorder *w, int32_t i, int prev_is_leaf);
/* The entered node i is a split; 0 if more than cap splits are open. */
int sporf_preorder_open(sporf_preorder *w, int32_t i);
/* Append tree tr of forest f (for its task, classes and honesty) to w. */
void sporf_tree_encode(const sporf_tree *tr, const sporf_forest *f, sporf_writer *w);

/* Read tree t of forest f (task, n_classes, n_features and params already
 * set) from r into tr, checking every count against the bytes left and every
 * index and value; with_missing: the splits hold missing-value directions
 * (format >= 8; else they read as 0, right). tr's arrays are owned by tr
 * (freed by sporf_tree_release even on failure). Returns SPORF_OK or an
 * error status with err filled. */
int sporf_tree_decode(sporf_reader *r, sporf_tree *tr, const sporf_forest *f, int64_t t, int with_missing,
                      sporf_error *err);

/* 1 if a leaf's n_classes values are valid for forest f: probabilities in
 * [0, 1] (classification, and an unsupervised leaf's share of the tree's
 * weight), finite numbers for regression, or all NaN for an
 * honest leaf that abstains (honest_prior "ignore"). */
int sporf_leaf_values_ok(const double *lv, const sporf_forest *f);

/* Honest forests (any model version): read and check tree t's prior of
 * n_classes values into tr->prior (owned by tr). Nothing for other forests. */
int sporf_read_prior(sporf_reader *r, sporf_tree *tr, const sporf_forest *f, int64_t t, sporf_error *err);

#endif
