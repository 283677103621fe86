/*
 * traverse.h -- walking rows down a tree for prediction.
 *
 * Prediction reads sporf_pnode (model/model.h), 16-byte nodes built from the stored
 * nodes (traverse.c) and laid out depth first with one child -- the "near"
 * one, normally the heavier -- right after its parent (packed.c). A split
 * keeps its first feature and its far child; projections with at most three
 * non-zeros of weight +-1 -- every axis-aligned split and nearly all
 * sparse-oblique ones -- are inlined as
 *
 *     go left iff  x[f0] + c1 * x[f1] + c2 * x[f2] <= threshold,   c1, c2 in {0, 1, -1}
 *
 * with f1, f2 in an extension slot after the node when present, and the sign
 * of the first weight folded into the threshold and children. Projections of
 * four or five such non-zeros ("wide") add a second extension slot holding
 * f3, f4 and the four coefficients' codes, and are evaluated as
 *
 *     (((x[f0] + c1 * x[f1]) + c2 * x[f2]) + c3 * x[f3]) + c4 * x[f4],
 *
 * the fit's order of summation, without a loop. Every rewrite
 * is exact in IEEE arithmetic (negation is exact, adding a zero changes
 * nothing a comparison sees, and s >= -t is NOT s <= nextafter(-t, -inf)),
 * so a row follows exactly the path it followed when the tree was grown.
 * Other projections read the side buffer in the fit's arithmetic order.
 *
 * This header holds the nodes' decoding, the one-row walk and the walk of
 * the stored nodes (rows with missing values). The other walks, all
 * reaching the same leaves, have a header each:
 *   - sporf_nodes_find_leaf (here): one row, node by node (single rows, OOB);
 *   - walk_lanes.h: sporf_nodes_find_leaves, several rows in flight down a
 *     tree to hide the latency of node loads, and
 *     sporf_forest_find_leaves_few, a few rows down every tree at once;
 *   - walk_f32.h: sporf_nodes_find_leaves_f32, lanes over float copies of the
 *     rows for forests of single-feature splits, deciding float ties in double;
 *   - walk_partition.h: sporf_nodes_find_leaves_part, a block's rows
 *     partitioned node by node, on the rows or on float copies of them.
 * predict.c chooses among them.
 */
#ifndef SPORF_TRAVERSE_H
#define SPORF_TRAVERSE_H

#include "model/model.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- building prediction nodes from stored ones (traverse.c) ---- */

/* Prediction slots stored node i takes: 1, 2 with an extension slot
 * (needed by a split of several features or not of weight +-1, and by one
 * whose near child is named explicitly), or 3 for a wide split (4 or 5
 * features of weight +-1: two extension slots, below). */
int32_t sporf_pnode_slots(const sporf_tree *tree, int32_t i, int explicit_near);
/* Write stored node i at out (1 to 3 slots, as sporf_pnode_slots says).
 * pos maps stored node indices to positions in the layout; unless
 * explicit_near, one child must sit right after node i's slots. A leaf
 * holds its value itself with value_leaves (a tree of one value per leaf:
 * prediction then reads no leaf_values, a cache miss per tree saved), else
 * its row of leaf_values and onehot (its one-hot class or -1). */
void sporf_pnode_write(const sporf_tree *tree, int32_t i, const int32_t *pos, int explicit_near, int32_t onehot,
                       int value_leaves, sporf_pnode *out);

/* The values leaf lf of tree tr stands for: in the leaf itself in a forest
 * of one value per leaf (K == 1, sporf_pnode_write), else its row of
 * leaf_values. */
static inline const double *sporf_pnode_leaf_values(const sporf_tree *tr, const sporf_pnode *lf, int32_t K)
{
    return K == 1 ? &lf->u.threshold : tr->leaf_values + (int64_t)sporf_pnode_leaf_slot(lf) * K;
}

/* A hint to start loading p's cache line (no effect where unsupported). */
#if defined(__GNUC__) || defined(__clang__)
#define sporf_prefetch(p) __builtin_prefetch(p)
#else
#define sporf_prefetch(p) ((void)(p))
#endif

/* kinds (head >> 28): a leaf, inlined splits 1 + c1 code + 3 * c2 code
 * (codes 0 -> absent, 1 -> +1, 2 -> -1), a side-buffer split and a wide
 * split (its second extension's head: the codes of c1..c4, 2 bits each) */
#define SPORF_PN_LEAF 0
#define SPORF_PN_SINGLE 1
#define SPORF_PN_GENERAL 10
#define SPORF_PN_WIDE 11

/* coefficients c1, c2 of each kind (0 for the others) */
extern const double sporf_pn_coef[2][16];
/* The extension a single-feature split without one reads: features 0 with
 * coefficients 0, so every split is evaluated by the same instructions. */
extern const sporf_pnode sporf_pn_no_ext;

static inline uint32_t sporf_pnode_kind(const sporf_pnode *nd) { return nd->head >> SPORF_PN_KIND_SHIFT; }

static inline int sporf_pnode_is_leaf(const sporf_pnode *nd) { return nd->head == 0; }

/* General splits of at most this many non-zeros keep them in the slots
 * after their extension (a term per slot: head the feature, u.threshold the
 * weight), where the walk finds them beside the split; longer ones read the
 * tree's side buffer. With the terms beside the split, the default forests'
 * one-row walks took about half the time: a side-buffer read is a cache miss
 * the walk waits on. */
#define SPORF_PN_INLINE_TERMS 8

/* Slots after split nd that are not nodes (its extensions and inline terms). */
static inline int32_t sporf_pnode_tail_slots(const sporf_pnode *nd)
{
    const uint32_t kind = nd->head >> SPORF_PN_KIND_SHIFT;
    if (kind == SPORF_PN_WIDE)
        return 2;
    if (kind == SPORF_PN_GENERAL)
        return 1 + (nd[1].u.ext.f1 < 0 ? nd[1].u.ext.f2 : 0);
    return kind != SPORF_PN_SINGLE || (nd->link & SPORF_PN_EXPLICIT) ? 1 : 0;
}

/* Slots every array of prediction nodes keeps, zeroed, after its last
 * node: sporf_pnode_general_short reads up to SPORF_PN_SHORT_TERMS term
 * slots after a split whatever its length. */
#define SPORF_PN_PAD_SLOTS 4
/* General splits of at most this many inline terms are summed without a
 * loop (sporf_pnode_general_short). */
#define SPORF_PN_SHORT_TERMS 4

/* The projection of a general split of at most SPORF_PN_SHORT_TERMS inline
 * terms (term: the first; len of them), summed in the fit's order without
 * a loop whose length varies from split to split (a mispredicted exit at
 * nearly every general split of a walk: one-row walks of the default
 * forests took 7% less time without it). The slots read past the split's
 * terms (its children, or SPORF_PN_PAD_SLOTS) count as weight 0 on feature
 * 0, selected by masks, not branches: each adds 0 * x[0], a zero, which
 * changes no sum a comparison sees (x is finite here: rows with missing
 * values walk the stored nodes, infinities are refused). The first term
 * starts the sum (0 + w x is w x up to the sign of a zero). */
static inline double sporf_pnode_general_short(const sporf_pnode *term, uint32_t len, const double *x, int64_t cs)
{
    double w[SPORF_PN_SHORT_TERMS];
    int64_t f[SPORF_PN_SHORT_TERMS];
    for (uint32_t k = 0; k < SPORF_PN_SHORT_TERMS; k++) {
        const uint64_t keep = (uint64_t)0 - (uint64_t)(k < len);
        uint64_t bits;
        memcpy(&bits, &term[k].u.threshold, sizeof bits);
        bits &= keep; /* a masked weight is +0 whatever the slot holds */
        memcpy(&w[k], &bits, sizeof bits);
        f[k] = (int64_t)(term[k].head & (uint32_t)keep) * cs;
    }
    return ((w[0] * x[f[0]] + w[1] * x[f[1]]) + w[2] * x[f[2]]) + w[3] * x[f[3]];
}

/* A general split's projection (ext its extension: u.ext.f2 terms, inline
 * after it when u.ext.f1 < 0, else from u.ext.f1 in the side buffer), summed
 * in the fit's order. */
static inline double sporf_pnode_general(const sporf_tree *tree, const sporf_pnode *ext, const double *x, int64_t cs)
{
    if (ext->u.ext.f1 < 0 && ext->u.ext.f2 <= SPORF_PN_SHORT_TERMS)
        return sporf_pnode_general_short(ext + 1, (uint32_t)ext->u.ext.f2, x, cs);
    if (ext->u.ext.f1 < 0) {
        const sporf_pnode *term = ext + 1;
        double s = 0.0;
        for (int32_t k = 0; k < ext->u.ext.f2; k++)
            s += term[k].u.threshold * x[(int64_t)term[k].head * cs];
        return s;
    }
    const int32_t *f = tree->proj_feature + ext->u.ext.f1;
    const double *w = tree->proj_weight + ext->u.ext.f1;
    double s = 0.0;
    for (int32_t k = 0; k < ext->u.ext.f2; k++)
        s += w[k] * x[(int64_t)f[k] * cs];
    return s;
}

/* coefficient of code 0, 1, 2 (absent, +1, -1) */
extern const double sporf_pn_unit[4];

/* A wide split's projection (nd the split, nd + 1 and nd + 2 its extensions). */
static inline double sporf_pnode_wide(const sporf_pnode *nd, const double *x, int64_t cs)
{
    const sporf_pnode *e1 = nd + 1, *e2 = nd + 2;
    const uint32_t codes = e2->head;
    double s = x[(int64_t)(nd->head & SPORF_PN_FEATURE_MASK) * cs];
    s += sporf_pn_unit[codes & 3] * x[(int64_t)e1->u.ext.f1 * cs];
    s += sporf_pn_unit[(codes >> 2) & 3] * x[(int64_t)e1->u.ext.f2 * cs];
    s += sporf_pn_unit[(codes >> 4) & 3] * x[(int64_t)e2->u.ext.f1 * cs];
    s += sporf_pn_unit[(codes >> 6) & 3] * x[(int64_t)e2->u.ext.f2 * cs];
    return s;
}

/* The child of split nd (at its index `at`, e its first extension or
 * sporf_pn_no_ext, has_ext whether it has one) on the side go_right says:
 * the near child follows the split's slots unless named explicitly. */
static inline int32_t sporf_pnode_child(const sporf_pnode *nd, int32_t at, const sporf_pnode *e, uint32_t has_ext,
                                        uint32_t kind, uint32_t go_right)
{
    const uint32_t link = nd->link;
    const int32_t explicit_mask = -(int32_t)((link >> 30) & 1);
    const int32_t next = at + 1 + (int32_t)has_ext + (kind == SPORF_PN_WIDE);
    const int32_t near = next ^ ((next ^ (int32_t)e->head) & explicit_mask);
    const int32_t far = (int32_t)(link & SPORF_PN_FAR_MASK);
    const int32_t to_far = -(int32_t)(go_right ^ (link >> 31));
    return near ^ ((near ^ far) & to_far);
}

/* A split's first extension (nd + 1), or sporf_pn_no_ext when it has none.
 * Selects by mask, not branches (the compiler turns ?: on pointers and
 * loads into jumps): successive nodes' kinds are a coin flip. */
static inline const sporf_pnode *sporf_pnode_ext(const sporf_pnode *nd, uint32_t has_ext)
{
    const uintptr_t ext_mask = (uintptr_t)0 - has_ext;
    return (const sporf_pnode *)(((uintptr_t)(nd + 1) & ext_mask) | ((uintptr_t)&sporf_pn_no_ext & ~ext_mask));
}

/* Does split nd have an extension slot (several features, or an explicit near child)? */
static inline uint32_t sporf_pnode_has_ext(uint32_t kind, uint32_t link)
{
    return (kind != SPORF_PN_SINGLE) | ((link >> 30) & 1);
}

/* The projection of split nd (e its first extension, kind its kind) for
 * row x (column stride cs): the one arithmetic every double walk uses. With
 * single_only (a forest of single-feature splits only) it is just x[f0]. */
static inline double sporf_pnode_project(const sporf_pnode *nd, const sporf_pnode *e, uint32_t kind,
                                         const sporf_tree *tree, const double *x, int64_t cs, const int single_only)
{
    const int64_t f0 = (int64_t)(nd->head & SPORF_PN_FEATURE_MASK);
    if (single_only)
        return x[f0 * cs];
    if (kind < SPORF_PN_GENERAL)
        return (x[f0 * cs] + sporf_pn_coef[0][kind] * x[(int64_t)e->u.ext.f1 * cs]) +
               sporf_pn_coef[1][kind] * x[(int64_t)e->u.ext.f2 * cs];
    if (kind == SPORF_PN_WIDE)
        return sporf_pnode_wide(nd, x, cs);
    return sporf_pnode_general(tree, e, x, cs);
}

/* One step from split `at`: the index of the child row x goes to. With
 * single_only (a forest of single-feature splits only, e.g. axis-aligned),
 * the projection is just x[f0]. */
static inline int32_t sporf_pnode_step(const sporf_pnode *nodes, int32_t at, const sporf_tree *tree, const double *x,
                                       int64_t cs, const int single_only)
{
    const sporf_pnode *nd = &nodes[at];
    const uint32_t head = nd->head, link = nd->link;
    const uint32_t kind = head >> SPORF_PN_KIND_SHIFT;
    const uint32_t has_ext = sporf_pnode_has_ext(kind, link);
    const sporf_pnode *e = sporf_pnode_ext(nd, has_ext);
    /* near when the row goes to the side the near child is on */
    return sporf_pnode_child(nd, at, e, has_ext, kind,
                             sporf_pnode_project(nd, e, kind, tree, x, cs, single_only) > nd->u.threshold);
}

/* Index in nodes of the leaf reached by row x (column stride cs), walking
 * from node root. nodes is a tree's own pnodes (root 0) or a bin of the
 * forest's packed layout; tree supplies the projection side buffer. */
static inline int32_t sporf_nodes_find_leaf(const sporf_pnode *nodes, int32_t root, const sporf_tree *tree,
                                            const double *x, int64_t cs)
{
    int32_t i = root;
    while (!sporf_pnode_is_leaf(&nodes[i]))
        i = sporf_pnode_step(nodes, i, tree, x, cs, 0);
    return i;
}

/* ---- rows with missing values: the stored nodes' walk ---- */

/* The projection of stored split nd for row x (column stride cs) in the
 * fit's arithmetic (builder.c, project_slice): NaN when one of its features
 * is missing. The packed walks' rewrites read absent terms as 0 * x[0],
 * which a missing x[0] turns into NaN, so rows with missing values take
 * this walk instead. */
static inline double sporf_node_project(const sporf_tree *tree, const sporf_node *nd, const double *x, int64_t cs)
{
    const int32_t *f = tree->proj_feature + nd->proj_start;
    const double *w = tree->proj_weight + nd->proj_start;
    if (nd->proj_len == 1 && w[0] == 1.0)
        return x[(int64_t)f[0] * cs];
    double v = 0.0;
    for (int32_t k = 0; k < nd->proj_len; k++)
        v += w[k] * x[(int64_t)f[k] * cs];
    return v;
}

/* The same with each missing feature at its training mean (impute): how a
 * SPORF_MISSING_IMPUTE split projects a row with missing values, in the
 * arithmetic of the builder's project_slice_imputed. */
static inline double sporf_node_project_imputed(const sporf_tree *tree, const sporf_node *nd, const double *impute,
                                                const double *x, int64_t cs)
{
    const int32_t *f = tree->proj_feature + nd->proj_start;
    const double *w = tree->proj_weight + nd->proj_start;
    if (nd->proj_len == 1 && w[0] == 1.0) {
        const double v = x[(int64_t)f[0] * cs];
        return isnan(v) ? impute[f[0]] : v;
    }
    double s = 0.0;
    for (int32_t k = 0; k < nd->proj_len; k++) {
        const double v = x[(int64_t)f[k] * cs];
        s += w[k] * (isnan(v) ? impute[f[k]] : v);
    }
    return s;
}

/* The stored leaf (index in tree->nodes) row x reaches, a missing
 * projection going where its split learned to send it (nd->missing; impute:
 * the forest's training means, which SPORF_MISSING_IMPUTE splits read): the
 * path the fit sent the row along. On a row without missing values it is
 * the leaf every packed walk reaches. */
/* The child of split nd (a stored node of tree) that row x goes to, as
 * sporf_tree_find_stored_leaf takes it. */
static inline int32_t sporf_tree_stored_child(const sporf_tree *tree, const sporf_node *nd, const double *impute,
                                              const double *x, int64_t cs)
{
    double v = sporf_node_project(tree, nd, x, cs);
    int left;
    if (!isnan(v))
        left = v <= nd->threshold;
    else if (nd->missing == SPORF_MISSING_IMPUTE)
        left = sporf_node_project_imputed(tree, nd, impute, x, cs) <= nd->threshold;
    else
        left = nd->missing == SPORF_MISSING_LEFT;
    return left ? nd->left : nd->right;
}

static inline int32_t sporf_tree_find_stored_leaf(const sporf_tree *tree, const double *impute, const double *x,
                                                  int64_t cs)
{
    int32_t i = 0;
    for (;;) {
        const sporf_node *nd = &tree->nodes[i];
        if (nd->left < 0)
            return i;
        i = sporf_tree_stored_child(tree, nd, impute, x, cs);
    }
}

/* The same on a tree's own pnodes (sporf_tree_prepare): the plain layout. */
static inline int32_t sporf_tree_find_leaf(const sporf_tree *tree, const double *x, int64_t cs)
{
    return sporf_nodes_find_leaf(tree->pnodes, 0, tree, x, cs);
}

#endif
