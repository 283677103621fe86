/* traverse.c -- builds the prediction nodes (see traverse.h). */
#include "predict/traverse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Row 0: c1, row 1: c2, indexed by kind = 1 + c1 code + 3 * c2 code
 * (codes 0 -> absent, 1 -> +1, 2 -> -1); 0 for leaves and general splits. */
const double sporf_pn_coef[2][16] = {
    {0, 0, 1, -1, 0, 1, -1, 0, 1, -1, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 1, 1, 1, -1, -1, -1, 0, 0, 0, 0, 0, 0},
};

const sporf_pnode sporf_pn_no_ext = {{0}, 0, 0};

const double sporf_pn_unit[4] = {0, 1, -1, 0};

const float sporf_pn_coef_f[2][16] = {
    {0, 0, 1, -1, 0, 1, -1, 0, 1, -1, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 1, 1, 1, -1, -1, -1, 0, 0, 0, 0, 0, 0},
};
const float sporf_pn_unit_f[4] = {0, 1, -1, 0};

static int unit(double w) { return w == 1.0 || w == -1.0; }

/* Non-zeros of split nd when all have weight +-1, else 0. */
static int32_t unit_terms(const sporf_tree *tree, const sporf_node *nd)
{
    for (int32_t k = 0; k < nd->proj_len; k++)
        if (!unit(tree->proj_weight[nd->proj_start + k]))
            return 0;
    return nd->proj_len;
}

/* Can split i be inlined (at most 3 non-zeros, all of weight +-1)? */
static int inlinable(const sporf_tree *tree, const sporf_node *nd)
{
    const int32_t n = unit_terms(tree, nd);
    return n >= 1 && n <= 3;
}

/* Is it wide (4 or 5 non-zeros of weight +-1)? Sparse projections with
 * feature_combinations 1.5 put about one split in ten here, where the
 * side-buffer loop's unpredictable length cost a fifth of prediction. */
static int wide(const sporf_tree *tree, const sporf_node *nd)
{
    const int32_t n = unit_terms(tree, nd);
    return n == 4 || n == 5;
}

/* Does general split nd keep its terms inline (traverse.h)? Not in a tree
 * so large that its slots, up to 2 + SPORF_PN_INLINE_TERMS per node, might
 * not fit a bin's child field. */
static int general_inline(const sporf_tree *tree, const sporf_node *nd)
{
    return nd->proj_len <= SPORF_PN_INLINE_TERMS &&
           tree->n_nodes <= (int32_t)(SPORF_PN_FAR_MASK / (2 + SPORF_PN_INLINE_TERMS));
}

int32_t sporf_pnode_slots(const sporf_tree *tree, int32_t i, int explicit_near)
{
    const sporf_node *nd = &tree->nodes[i];
    if (nd->left < 0)
        return 1;
    if (wide(tree, nd))
        return 3;
    if (!inlinable(tree, nd))
        return 2 + (general_inline(tree, nd) ? nd->proj_len : 0);
    return explicit_near || nd->proj_len > 1 ? 2 : 1;
}

void sporf_pnode_write(const sporf_tree *tree, int32_t i, const int32_t *pos, int explicit_near, int32_t onehot,
                       int value_leaves, sporf_pnode *out)
{
    const sporf_node *nd = &tree->nodes[i];
    memset(out, 0, sizeof *out);
    if (nd->left < 0) {
        out->link = (uint32_t)i;
        if (value_leaves) {
            out->u.threshold = tree->leaf_values[nd->right];
        } else {
            out->u.leaf.slot = nd->right;
            out->u.leaf.onehot = onehot;
        }
        return;
    }
    const int32_t nslots = sporf_pnode_slots(tree, i, explicit_near);
    sporf_pnode *ext = &out[1];
    if (nslots > 1)
        memset(ext, 0, (size_t)(nslots - 1) * sizeof *ext);
    const int32_t *f = tree->proj_feature + nd->proj_start;
    const double *w = tree->proj_weight + nd->proj_start;
    const int32_t len = nd->proj_len;
    int32_t left = nd->left, right = nd->right;
    out->u.threshold = nd->threshold;
    if (!inlinable(tree, nd) && !wide(tree, nd)) {
        out->head = (uint32_t)SPORF_PN_GENERAL << SPORF_PN_KIND_SHIFT;
        ext->u.ext.f1 = nd->proj_start;
        ext->u.ext.f2 = len;
        if (general_inline(tree, nd)) {
            /* the terms follow the extension, so the near child cannot: name it */
            ext->u.ext.f1 = -1;
            for (int32_t k = 0; k < len; k++) {
                ext[1 + k].head = (uint32_t)f[k];
                ext[1 + k].u.threshold = w[k];
            }
            explicit_near = 1;
        }
    } else {
        /* 0 + w0 x0 + w1 x1 + ... = w0 * ((x0 + (w1/w0) x1) + (w2/w0) x2 ...) exactly;
         * absent terms read feature 0 with coefficient 0. */
        if (len > 3) {
            /* wide: the codes of c1..c4 in the second extension's head */
            uint32_t codes = 0;
            for (int32_t k = 1; k < len; k++)
                codes |= (uint32_t)(w[k] == w[0] ? 1 : 2) << (2 * (k - 1));
            out->head = ((uint32_t)SPORF_PN_WIDE << SPORF_PN_KIND_SHIFT) | (uint32_t)f[0];
            ext[0].u.ext.f1 = f[1];
            ext[0].u.ext.f2 = f[2];
            ext[1].u.ext.f1 = f[3];
            ext[1].u.ext.f2 = len > 4 ? f[4] : 0;
            ext[1].head = codes;
        } else {
            int32_t code[2] = {0, 0};
            for (int32_t k = 1; k < len; k++)
                code[k - 1] = w[k] == w[0] ? 1 : 2;
            out->head = ((uint32_t)(1 + code[0] + 3 * code[1]) << SPORF_PN_KIND_SHIFT) | (uint32_t)f[0];
            if (len > 1) ext->u.ext.f1 = f[1];
            if (len > 2) ext->u.ext.f2 = f[2];
        }
        if (w[0] < 0) {
            /* -s <= t  <=>  s >= -t  <=>  NOT s <= nextafter(-t, -inf) */
            out->u.threshold = nextafter(-nd->threshold, -HUGE_VAL);
            left = nd->right;
            right = nd->left;
        }
    }
    if (explicit_near) {
        ext->head = (uint32_t)pos[left];
        out->link = SPORF_PN_EXPLICIT | (uint32_t)pos[right];
    } else if (pos[left] == pos[i] + nslots) {
        out->link = (uint32_t)pos[right];
    } else {
        /* the layout put the right child next (packed.c guarantees one of them) */
        out->link = SPORF_PN_NEAR_RIGHT | (uint32_t)pos[left];
    }
}
