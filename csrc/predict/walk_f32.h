/*
 * walk_f32.h -- walks over float copies of the rows: half the bytes to
 * read for wide rows. A float sum decides a split only when it is clear of
 * the threshold by more than its rounding can move it; the rest are decided
 * in double, so every row reaches the leaf of the double walk (traverse.h).
 */
#ifndef SPORF_WALK_F32_H
#define SPORF_WALK_F32_H

#include "predict/walk_lanes.h"

/* Where a projection summed in float from float copies of the features
 * cannot tell the side of the threshold, it is summed again in double.
 * Each float conversion and each of the at most four float additions is off
 * by at most u = 2^-24 relative (plus 2^-150 absolute below FLT_MIN), so a
 * float sum s of terms whose magnitudes add to S differs from the double
 * sum by less than 6u * S + 2^-147, and the float threshold t from the
 * double one by u * |t|. Outside 16u * (S + |t|) + FLT_MIN of the float
 * threshold the float sum is on the same side as the double sum; NaN and
 * infinities (float overflow) never compare outside and go to double. */
static inline int sporf_f32_decided(float d, float S, float tf)
{
    return fabsf(d) > 0x1p-20f * (S + fabsf(tf)) + FLT_MIN;
}

/* May a weight be rounded to float in a float sum of terms? 0, or of
 * magnitude in [2^-60, 2^16]: rounding stays relative there, and products
 * that underflow add less than FLT_MIN (sporf_part_split_terms_f32's bound). */
static inline int sporf_f32_weight_ok(double w)
{
    return w == 0.0 || (fabs(w) >= 0x1p-60 && fabs(w) <= 0x1p16);
}

/* An inlined or wide split's terms for float sums, read from its slots once
 * per node so a loop over rows keeps them in registers: x[f[0]] + c[1] *
 * x[f[1]] + ... + c[4] * x[f[4]] (absent terms: feature 0, coefficient 0;
 * c[0] is always 1 and not multiplied, as in sporf_pnode_project). */
typedef struct sporf_f32_terms {
    int64_t f[5];
    float c[5];
} sporf_f32_terms;

static inline sporf_f32_terms sporf_f32_terms_of(const sporf_pnode *nd, const sporf_pnode *e, uint32_t kind)
{
    sporf_f32_terms T;
    T.f[0] = (int64_t)(nd->head & SPORF_PN_FEATURE_MASK);
    T.c[0] = 1.0f;
    if (kind == SPORF_PN_WIDE) {
        const uint32_t codes = nd[2].head;
        T.f[1] = nd[1].u.ext.f1;
        T.f[2] = nd[1].u.ext.f2;
        T.f[3] = nd[2].u.ext.f1;
        T.f[4] = nd[2].u.ext.f2;
        for (int k = 1; k < 5; k++)
            T.c[k] = sporf_pn_unit_f[(codes >> (2 * (k - 1))) & 3];
    } else {
        T.f[1] = e->u.ext.f1;
        T.f[2] = e->u.ext.f2;
        T.c[1] = sporf_pn_coef_f[0][kind];
        T.c[2] = sporf_pn_coef_f[1][kind];
        T.f[3] = T.f[4] = 0;
        T.c[3] = T.c[4] = 0.0f;
    }
    return T;
}

/* The float sum of an inlined (wide = 0) or wide (wide = 1) split's terms T
 * for the float row xr, and in *S the sum of the terms' magnitudes, for
 * sporf_f32_decided: the terms and order of sporf_pnode_project. */
static inline float sporf_f32_terms_sum(const sporf_f32_terms *T, const float *xr, float *S, const int wide)
{
    const float a0 = xr[T->f[0]];
    const float a1 = T->c[1] * xr[T->f[1]], a2 = T->c[2] * xr[T->f[2]];
    if (!wide) {
        *S = (fabsf(a0) + fabsf(a1)) + fabsf(a2);
        return (a0 + a1) + a2;
    }
    const float a3 = T->c[3] * xr[T->f[3]], a4 = T->c[4] * xr[T->f[4]];
    *S = (((fabsf(a0) + fabsf(a1)) + fabsf(a2)) + fabsf(a3)) + fabsf(a4);
    return (((a0 + a1) + a2) + a3) + a4;
}

/* The lane walk of a forest of single-feature splits over float copies of
 * the rows: xf holds row r's features at xf + r * p, x0 the same rows in
 * double (row stride rs, column stride cs); each split's threshold is
 * rounded to float from its slot. Rounding to float is monotone: float(x) <
 * float(t) implies x <= t and float(x) > float(t) implies x > t, so only
 * equal floats need the double comparison, and every row reaches the leaf
 * the double walk reaches. Half the bytes per row keep twice the rows in
 * cache: 30-60% faster on rows of 784 features. */
static inline void sporf_nodes_find_leaves_f32(const sporf_pnode *nodes, int32_t root,
                                               const sporf_tree *tree, const float *xf, int64_t p, const double *x0,
                                               int64_t rs, int64_t cs, int64_t n, int32_t *leaf)
{
    if (n < SPORF_LANES || sporf_pnode_is_leaf(&nodes[root])) {
        for (int64_t r = 0; r < n; r++)
            leaf[r] = sporf_nodes_find_leaf(nodes, root, tree, x0 + r * rs, cs);
        return;
    }
    int32_t at[SPORF_LANES];
    int64_t row[SPORF_LANES];
    for (int j = 0; j < SPORF_LANES; j++) {
        at[j] = root;
        row[j] = j;
    }
    int64_t next_row = SPORF_LANES;
    int live = SPORF_LANES;
    while (live > 0) {
        for (int j = 0; j < SPORF_LANES; j++) {
            if (row[j] < 0)
                continue;
            const sporf_pnode *nd = &nodes[at[j]];
            if (sporf_pnode_is_leaf(nd)) {
                sporf_lane_next_row(at, row, j, leaf, root, &next_row, n, &live);
                continue;
            }
            /* the far child's slot starts loading while this step waits for its feature */
            sporf_prefetch(&nodes[nd->link & SPORF_PN_FAR_MASK]);
            const int64_t feature = (int64_t)(nd->head & SPORF_PN_FEATURE_MASK);
            const float v = xf[row[j] * p + feature], t = (float)nd->u.threshold;
            uint32_t go_right = v > t;
            if (v == t) /* rare: decide in double */
                go_right = x0[row[j] * rs + feature * cs] > nd->u.threshold;
            const uint32_t explicit_near = (nd->link >> 30) & 1;
            at[j] = sporf_pnode_child(nd, at[j], nd + 1, explicit_near, SPORF_PN_SINGLE, go_right);
        }
    }
}


#endif
