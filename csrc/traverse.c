/* traverse.c -- builds the prediction nodes (see traverse.h). */
#include "traverse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Row 0: c1, row 1: c2, indexed by kind & 15 with kind = c1 code + 3 * c2 code.
 * GENERAL never reads the table; a leaf's negative kind masks to any entry,
 * which is harmless because both its children are itself. */
const double sporf_pn_coef[2][16] = {
    {0, 1, -1, 0, 1, -1, 0, 1, -1, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 1, 1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0},
};

static int unit(double w) { return w == 1.0 || w == -1.0; }

void sporf_pnode_from_node(const sporf_tree *tree, int32_t i, sporf_pnode *q)
{
    const sporf_node *nd = &tree->nodes[i];
    memset(q, 0, sizeof *q);
    if (nd->left < 0) {
        q->left = q->right = i;
        q->kind = -nd->right - 1;
        q->u.leaf.node = i;
        q->u.leaf.onehot = -1;
        return;
    }
    const int32_t *f = tree->proj_feature + nd->proj_start;
    const double *w = tree->proj_weight + nd->proj_start;
    const int32_t len = nd->proj_len;
    q->left = nd->left;
    q->right = nd->right;
    q->u.threshold = nd->threshold;
    int inline_ok = len >= 1 && len <= 3;
    for (int32_t k = 0; k < len && inline_ok; k++)
        inline_ok = unit(w[k]);
    if (!inline_ok) {
        q->kind = SPORF_PN_GENERAL;
        q->f[0] = nd->proj_start;
        q->f[1] = len;
        return;
    }
    /* 0 + w0 x0 + w1 x1 + w2 x2 = w0 * ((x0 + (w1/w0) x1) + (w2/w0) x2) exactly;
     * absent terms use feature f0 with coefficient 0. */
    int32_t code[2] = {0, 0};
    for (int32_t k = 0; k < 3; k++)
        q->f[k] = f[k < len ? k : 0];
    for (int32_t k = 1; k < len; k++)
        code[k - 1] = w[k] == w[0] ? 1 : 2;
    q->kind = code[0] + 3 * code[1];
    if (w[0] < 0) {
        /* -s <= t  <=>  s >= -t  <=>  NOT s <= nextafter(-t, -inf) */
        q->u.threshold = nextafter(-nd->threshold, -HUGE_VAL);
        q->left = nd->right;
        q->right = nd->left;
    }
}

int sporf_tree_prepare(sporf_tree *tree)
{
    free(tree->pnodes);
    tree->pnodes = malloc((size_t)tree->n_nodes * sizeof *tree->pnodes);
    if (!tree->pnodes)
        return 0;
    for (int32_t i = 0; i < tree->n_nodes; i++)
        sporf_pnode_from_node(tree, i, &tree->pnodes[i]);
    return 1;
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
