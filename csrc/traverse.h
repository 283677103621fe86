/*
 * traverse.h -- walking rows down a tree for prediction.
 *
 * Prediction reads sporf_pnode, a 32-byte node built from the stored nodes by
 * sporf_tree_prepare (traverse.c). Projections with at most three non-zeros of
 * weight ±1 -- every axis-aligned split and nearly all sparse-oblique ones --
 * are inlined in the node as
 *
 *     go left iff  x[f0] + c1 * x[f1] + c2 * x[f2] <= threshold,   c1, c2 in {0, 1, -1}
 *
 * with the sign of the first weight folded into the threshold and children.
 * Every rewrite is exact in IEEE arithmetic (negation is exact, adding a zero
 * changes nothing a comparison sees, and s >= -t is NOT s <= nextafter(-t, -inf)),
 * so a row follows exactly the path it followed when the tree was grown. Other
 * projections read the side buffer in the fit's arithmetic order.
 *
 * A leaf points to itself with features 0 and coefficients 0, so stepping from
 * a leaf is harmless.
 */
#ifndef SPORF_TRAVERSE_H
#define SPORF_TRAVERSE_H

#include "core.h"

/* kind of a split pnode: c1 code + 3 * c2 code, codes 0 -> 0, 1 -> +1, 2 -> -1 */
#define SPORF_PN_GENERAL 9

/* coefficient of code k; a leaf's negative kind also maps into the table */
extern const double sporf_pn_coef[2][16];

static inline double sporf_pnode_project(const sporf_tree *tree, const sporf_pnode *nd, const double *x,
                                         int64_t cs)
{
    if (nd->kind != SPORF_PN_GENERAL) {
        const int32_t code = nd->kind & 15;
        return (x[(int64_t)nd->f[0] * cs] + sporf_pn_coef[0][code] * x[(int64_t)nd->f[1] * cs]) +
               sporf_pn_coef[1][code] * x[(int64_t)nd->f[2] * cs];
    }
    const int32_t *f = tree->proj_feature + nd->f[0];
    const double *w = tree->proj_weight + nd->f[0];
    double s = 0.0;
    for (int32_t k = 0; k < nd->f[1]; k++)
        s += w[k] * x[(int64_t)f[k] * cs];
    return s;
}

/* Index in nodes of the leaf reached by row x (column stride cs), walking
 * from node root. nodes is a tree's own pnodes (root 0) or a bin of the
 * forest's packed layout; tree supplies the projection side buffer. */
static inline int32_t sporf_nodes_find_leaf(const sporf_pnode *nodes, int32_t root, const sporf_tree *tree,
                                            const double *x, int64_t cs)
{
    int32_t i = root;
    while (nodes[i].kind >= 0) {
        const sporf_pnode *nd = &nodes[i];
        i = sporf_pnode_project(tree, nd, x, cs) <= nd->u.threshold ? nd->left : nd->right;
    }
    return i;
}

/* Rows walked down one tree together: enough independent work to hide the
 * latency of the dependent node loads. */
#define SPORF_LANES 8

/* Leaf (index in nodes) of each row x0 + r*rs (r = 0 .. n-1) into leaf[r].
 * SPORF_LANES rows are in flight; a lane whose row reaches a leaf takes the
 * next row at once, so no lane idles while a deeper row finishes (leaf
 * depths vary a lot in fully grown trees). */
static inline void sporf_nodes_find_leaves_cs(const sporf_pnode *nodes, int32_t root, const sporf_tree *tree,
                                              const double *x0, int64_t rs, int64_t cs, int64_t n,
                                              int32_t *leaf)
{
    if (n < SPORF_LANES || nodes[root].kind < 0) {
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
            const sporf_pnode *nd = &nodes[at[j]];
            if (nd->kind < 0) {
                leaf[row[j]] = at[j];
                if (next_row < n) {
                    row[j] = next_row;
                    x[j] = x0 + next_row * rs;
                    next_row++;
                    at[j] = root;
                } else {
                    row[j] = -1;
                    live--;
                }
                continue;
            }
            const double s = sporf_pnode_project(tree, nd, x[j], cs);
            /* select by mask, not by branch: the branch is a coin flip */
            const int32_t go_right = -(int32_t)(s > nd->u.threshold);
            at[j] = nd->left ^ ((nd->left ^ nd->right) & go_right);
        }
    }
}

static inline void sporf_nodes_find_leaves(const sporf_pnode *nodes, int32_t root, const sporf_tree *tree,
                                           const double *x0, int64_t rs, int64_t cs, int64_t n, int32_t *leaf)
{
    /* Row-major input (column stride 1) is the common case: a literal stride
     * lets the compiler drop a multiply per feature read. */
    if (cs == 1)
        sporf_nodes_find_leaves_cs(nodes, root, tree, x0, rs, 1, n, leaf);
    else
        sporf_nodes_find_leaves_cs(nodes, root, tree, x0, rs, cs, n, leaf);
}

/* The same on a tree's own pnodes (sporf_tree_prepare): the plain layout. */
static inline int32_t sporf_tree_find_leaf(const sporf_tree *tree, const double *x, int64_t cs)
{
    return sporf_nodes_find_leaf(tree->pnodes, 0, tree, x, cs);
}

#endif
