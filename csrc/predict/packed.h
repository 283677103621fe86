/*
 * packed.h -- the forest's prediction layout (forest packing, Browne et al.,
 * SDM 2019).
 *
 * Trees are grouped in bins of up to SPORF_BIN_TREES consecutive trees, and
 * each bin's prediction nodes (16-byte sporf_pnode slots, model/model.h and
 * traverse.h) live in one contiguous block:
 *   - first the top SPORF_TOP_LEVELS levels of all the bin's trees,
 *     interleaved level by level (every row visits them, so they share a
 *     few kilobytes of cache across the bin's trees); these name both
 *     children;
 *   - then, tree by tree, the subtrees below, depth first with the heavier
 *     child (more leaves below it: more training rows reached it) right
 *     after its parent, so most steps of a walk read the next slots in
 *     memory and a node stores only its other ("far") child.
 * Child indices are relative to the bin's first slot. A leaf keeps its slot
 * in leaf_values, its index in the tree's stored nodes (for apply) and, for
 * a leaf whose class distribution is exactly one class, that class, so
 * prediction adds 1 to it without reading leaf_values (identical sums: the
 * stored distribution is that 1 and zeros).
 *
 * The layout is derived: built after fit and after load, never saved, and
 * results are identical to walking each tree's own nodes (tested). Each
 * split's threshold is also kept rounded to float, so blocks of rows can be
 * walked on float copies (half the bytes per row), deciding in double where
 * float precision cannot (traverse.h).
 */
#ifndef SPORF_PACKED_H
#define SPORF_PACKED_H

#include "model/model.h"
#include "predict/traverse.h"

#define SPORF_BIN_TREES 8
#define SPORF_TOP_LEVELS 4

/* Build f->packed from the trees' stored nodes (replacing any previous
 * layout). Returns SPORF_OK, SPORF_E_NOMEM, or SPORF_E_ARG for a tree of
 * SPORF_MAX_TREE_NODES nodes or more (f->packed is then NULL). */
int sporf_forest_pack(sporf_forest *f, sporf_error *err);

/* Build tree->pnodes (the tree alone, depth first, heavier child next; the
 * root at 0; leaves name their rows of leaf_values) from the stored nodes; 0
 * on allocation failure. The tests compare its walks with the packed
 * layout's. */
int sporf_tree_prepare(sporf_tree *tree);

/* The nodes of a bin. */
static inline const sporf_pnode *sporf_packed_bin_nodes(const sporf_packed *p, int64_t bin)
{
    return p->nodes + p->bin_offset[bin];
}

#endif
