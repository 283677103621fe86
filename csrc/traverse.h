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
 * a leaf is harmless: a block of rows walks down together, branch-free, until
 * every row has reached its leaf.
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

/* Index of the leaf reached by row x (column stride cs). */
static inline int32_t sporf_tree_find_leaf(const sporf_tree *tree, const double *x, int64_t cs)
{
    const sporf_pnode *nodes = tree->pnodes;
    int32_t i = 0;
    while (nodes[i].kind >= 0) {
        const sporf_pnode *nd = &nodes[i];
        i = sporf_pnode_project(tree, nd, x, cs) <= nd->threshold ? nd->left : nd->right;
    }
    return i;
}

/* Rows walked down one tree together: enough independent work to hide the
 * latency of the dependent node loads. */
#define SPORF_LANES 8

/* Leaf of each row base + r*rs (r = 0 .. n-1) into leaf[r]. */
static inline void sporf_tree_find_leaves(const sporf_tree *tree, const double *base, int64_t rs, int64_t cs,
                                          int64_t n, int32_t *leaf)
{
    const sporf_pnode *nodes = tree->pnodes;
    int64_t r = 0;
    for (; r + SPORF_LANES <= n; r += SPORF_LANES) {
        int32_t at[SPORF_LANES];
        for (int j = 0; j < SPORF_LANES; j++)
            at[j] = 0;
        const double *x0 = base + r * rs;
        int active = 1;
        while (active) {
            active = 0;
            for (int j = 0; j < SPORF_LANES; j++) {
                const sporf_pnode *nd = &nodes[at[j]];
                const double s = sporf_pnode_project(tree, nd, x0 + j * rs, cs);
                /* select by mask, not by branch: the branch is a coin flip */
                const int32_t go_right = -(int32_t)(s > nd->threshold);
                const int32_t next = nd->left ^ ((nd->left ^ nd->right) & go_right);
                at[j] = next;
                active |= nodes[next].kind >= 0;
            }
        }
        for (int j = 0; j < SPORF_LANES; j++)
            leaf[r + j] = at[j];
    }
    for (; r < n; r++)
        leaf[r] = sporf_tree_find_leaf(tree, base + r * rs, cs);
}

#endif
