/*
 * walk_lanes.h -- the lane walks: several rows (or row-tree pairs) in
 * flight down the trees at once, so the latency of one node load hides
 * behind the others' work. Every walk reaches the leaves of
 * sporf_nodes_find_leaf (traverse.h).
 */
#ifndef SPORF_WALK_LANES_H
#define SPORF_WALK_LANES_H

#include "predict/traverse.h"

/* Rows walked down one tree together: enough independent work to hide the
 * latency of the dependent node loads. */
#define SPORF_LANES 8

/* A lane's row reached leaf at[j]: record it, then give the lane the next
 * row from root, or retire it (row -1) when none is left. 1 if the lane
 * took a new row. */
static inline int sporf_lane_next_row(int32_t *at, int64_t *row, int j, int32_t *leaf, int32_t root,
                                      int64_t *next_row, int64_t n, int *live)
{
    leaf[row[j]] = at[j];
    if (*next_row < n) {
        row[j] = (*next_row)++;
        at[j] = root;
        return 1;
    }
    row[j] = -1;
    (*live)--;
    return 0;
}

/* Leaf (index in nodes) of each row x0 + r*rs (r = 0 .. n-1) into leaf[r].
 * SPORF_LANES rows are in flight; a lane whose row reaches a leaf takes the
 * next row at once, so no lane idles while a deeper row finishes (leaf
 * depths vary a lot in fully grown trees). */
static inline void sporf_nodes_find_leaves_k(const sporf_pnode *nodes, int32_t root, const sporf_tree *tree,
                                             const double *x0, int64_t rs, int64_t cs, int64_t n, int32_t *leaf,
                                             const int single_only)
{
    if (n < SPORF_LANES || sporf_pnode_is_leaf(&nodes[root])) {
        for (int64_t r = 0; r < n; r++)
            leaf[r] = sporf_nodes_find_leaf(nodes, root, tree, x0 + r * rs, cs);
        return;
    }
    int32_t at[SPORF_LANES];
    int64_t row[SPORF_LANES];
    const double *x[SPORF_LANES];
    for (int j = 0; j < SPORF_LANES; j++) {
        at[j] = root;
        row[j] = j;
        x[j] = x0 + j * rs;
    }
    int64_t next_row = SPORF_LANES;
    int live = SPORF_LANES;
    /* A fixed lane count (retired lanes are skipped, not compacted) lets the
     * compiler unroll the lane loop; measured faster than compaction. */
    while (live > 0) {
        for (int j = 0; j < SPORF_LANES; j++) {
            if (row[j] < 0)
                continue;
            if (sporf_pnode_is_leaf(&nodes[at[j]])) {
                if (sporf_lane_next_row(at, row, j, leaf, root, &next_row, n, &live))
                    x[j] = x0 + row[j] * rs;
                continue;
            }
            at[j] = sporf_pnode_step(nodes, at[j], tree, x[j], cs, single_only);
        }
    }
}

/* The same, specialised: row-major input (column stride 1, the common case:
 * a literal stride drops a multiply per feature read) and forests of
 * single-feature splits. */
static inline void sporf_nodes_find_leaves(const sporf_pnode *nodes, int32_t root, const sporf_tree *tree,
                                           const double *x0, int64_t rs, int64_t cs, int64_t n, int32_t *leaf,
                                           int single_only)
{
    if (cs == 1) {
        if (single_only)
            sporf_nodes_find_leaves_k(nodes, root, tree, x0, rs, 1, n, leaf, 1);
        else
            sporf_nodes_find_leaves_k(nodes, root, tree, x0, rs, 1, n, leaf, 0);
    } else if (single_only) {
        sporf_nodes_find_leaves_k(nodes, root, tree, x0, rs, cs, n, leaf, 1);
    } else {
        sporf_nodes_find_leaves_k(nodes, root, tree, x0, rs, cs, n, leaf, 0);
    }
}

/* coefficients of sporf_pn_coef and sporf_pn_unit as floats */
extern const float sporf_pn_coef_f[2][16];
extern const float sporf_pn_unit_f[4];


/* Walks in flight for a call of few rows: enough to cover a walk's memory
 * latency with the other walks' steps (forests larger than the caches miss
 * on most deep nodes). */
#define SPORF_FOREST_LANES 64

/* Leaves of a few rows in every tree of the forest: leaf[r * T + t] for
 * row x0 + r*rs (r < n) and tree t (in the bin P->tree_bin[t], from its
 * root P->root[t]). Every (row, tree) walk of the call is a lane, up to
 * SPORF_FOREST_LANES at once, stepped round-robin and refilled as walks
 * finish, so a row's walks down all trees wait for memory together rather
 * than a bin of trees after another. The live lanes are kept packed at the
 * front, so a step touches no finished lane. */
static inline void sporf_forest_find_leaves_few(const sporf_packed *P, const sporf_tree *trees, int64_t T,
                                                const double *x0, int64_t rs, int64_t cs, int64_t n, int32_t *leaf)
{
    const sporf_pnode *base[SPORF_FOREST_LANES];
    const sporf_tree *tree[SPORF_FOREST_LANES];
    const double *x[SPORF_FOREST_LANES];
    int32_t at[SPORF_FOREST_LANES];
    int64_t out[SPORF_FOREST_LANES];
    const int64_t pairs = n * T;
    int64_t next = 0;
    int live = 0;
    for (;;) {
        while (live < SPORF_FOREST_LANES && next < pairs) { /* refill: pair q is row q / T, tree q % T */
            const int64_t r = next / T, t = next - r * T;
            base[live] = P->nodes + P->bin_offset[P->tree_bin[t]];
            tree[live] = &trees[t];
            x[live] = x0 + r * rs;
            at[live] = P->root[t];
            out[live] = next++;
            live++;
        }
        if (live == 0)
            return;
        for (int j = 0; j < live; j++) {
            const sporf_pnode *nodes = base[j];
            if (sporf_pnode_is_leaf(&nodes[at[j]])) {
                leaf[out[j]] = at[j];
                live--; /* the last live lane takes this one's place */
                base[j] = base[live];
                tree[j] = tree[live];
                x[j] = x[live];
                at[j] = at[live];
                out[j] = out[live];
                j--;
                continue;
            }
            at[j] = sporf_pnode_step(nodes, at[j], tree[j], x[j], cs, 0);
            /* a prefetch retires at once, where a load that misses would
             * hold back the steps behind it: the other lanes' steps run
             * while this line arrives */
            sporf_prefetch(&nodes[at[j]]);
            sporf_prefetch((const void *)((uintptr_t)&nodes[at[j]] + 64)); /* extensions and terms */
        }
    }
}

#endif
