/*
 * walk_partition.h -- the partition walk: a block's rows split node by
 * node, each node's rows kept together, so a node is loaded once per block
 * and its split's loop runs over many rows (on the rows, or on their float
 * copies: walk_f32.h). It reaches the leaves of sporf_nodes_find_leaf
 * (traverse.h).
 */
#ifndef SPORF_WALK_PARTITION_H
#define SPORF_WALK_PARTITION_H

#include "predict/split_vector.h"
#include "predict/walk_f32.h"

/* A range of a block's rows, waiting at node `node` of the partition walk:
 * entries lo..hi-1 of the walk's index buffer `buf` (0 or 1: each split
 * moves its rows from one buffer to the same range of the other). */
typedef struct sporf_part_frame {
    int32_t node, lo, hi, buf;
} sporf_part_frame;

/* Classes of splits the partition walk loops over separately. */
#define SPORF_PART_SINGLE 0 /* x[f0] */
#define SPORF_PART_INLINE 1 /* (x[f0] + c1 x[f1]) + c2 x[f2] */
#define SPORF_PART_OTHER 2  /* wide and side-buffer splits */
/* How many rows ahead a split's loop starts loading a row's features. A
 * block is megabytes, so those reads miss the core's caches; issued early
 * they overlap (8, 16 and 32 rows ahead: 16 best by a little; with the
 * children's prefetch below, sparse forests on 30-784 features took
 * 0.68-0.83x the time). Not on rows one double apart (rs 1: a block's
 * column copy), whose values share cache lines: there the loads to start
 * them cost more than they save (the default forests on 30 features, 5%). */
#define SPORF_PART_AHEAD 16

/* A range of this many rows or fewer finishes its walk row by row, in the
 * walk's pool (sporf_part_pool_walk): the partition's bookkeeping per split
 * costs more than it saves on a few rows (4 and 8 rows were measured; with
 * the rows finished in flight from their own range, 4 was 4-8% faster than
 * 1 and than 8 or 16; benchmarks/notes/architecture.md). */
#define SPORF_PART_FEW 4
/* Rows the pool walks together: enough that a round of steps outlasts a
 * slot's load from memory. */
#define SPORF_PART_POOL 64
/* Rows a general split projects together (sporf_part_split_general). */
#define SPORF_PART_CHUNK 64
/* Ranges of at least this many rows read the block's column copy, when
 * predict.c made one: such a range's rows share the cache lines of the
 * columns its split reads. Smaller ranges read the rows, whose few lines
 * the walk down a subtree keeps reusing (the copy for every range made
 * Friedman forests 6% slower, benchmarks/notes/speed.md "Prediction: the
 * large ranges of narrow rows by columns"). With the splits of eight rows
 * at a time and the pool, 4,096 rows beat 1,024 by 6-8% on a million rows
 * of the 20-tree forests and tied elsewhere; 256 was slower, 8,192 no
 * better ("Prediction: eight rows a split, the walk's order and its pool"). */
#define SPORF_PART_COL_MIN 4096

/* Row r goes left (to dst[*nl], the left rows filling dst from where the
 * range began) or right (to dst[*nr], the right rows filling it from where
 * the range ends, backwards). Both stores, one advance, no branch on the
 * side: the other store lands on the free end of the slots between the two
 * sides, which a later row's own store overwrites (the last row's two
 * stores meet on its slot). One store to an address chosen by the side was
 * 12% slower: each row's store then waited on its comparison. */
static inline void sporf_part_place(int32_t *dst, int32_t *nl, int32_t *nr, int32_t r, uint32_t go_right)
{
    dst[*nl] = r;
    dst[*nr] = r;
    *nl += (int32_t)(go_right ^ 1u);
    *nr -= (int32_t)go_right;
}

/* Move the rows src[lo..hi) waiting at split nd to dst[lo..hi): those going
 * left first (in order; their end is returned), then those going right (in
 * reverse order: no row's result depends on the order of its range). cls, a
 * constant, gives each class of split its own loop; every class computes the
 * projection exactly as sporf_pnode_project does. */
static inline int32_t sporf_part_split_k(const sporf_pnode *nd, const sporf_tree *tree, const double *x0, int64_t rs,
                                         int64_t cs, const int32_t *src, int32_t *dst, int32_t lo, int32_t hi,
                                         const int cls)
{
    const uint32_t kind = nd->head >> SPORF_PN_KIND_SHIFT;
    const sporf_pnode *e = sporf_pnode_ext(nd, sporf_pnode_has_ext(kind, nd->link));
    const int64_t f0 = (int64_t)(nd->head & SPORF_PN_FEATURE_MASK) * cs;
    const int64_t f1 = (int64_t)e->u.ext.f1 * cs, f2 = (int64_t)e->u.ext.f2 * cs;
    const double c1 = sporf_pn_coef[0][kind], c2 = sporf_pn_coef[1][kind];
    const double t = nd->u.threshold;
    int32_t nl = lo, nr = hi - 1;
    for (int32_t i = lo; i < hi; i++) {
        const int32_t r = src[i];
        const double *x = x0 + r * rs;
        if (cls != SPORF_PART_OTHER && rs != 1 && i + SPORF_PART_AHEAD < hi) {
            const double *xa = x0 + src[i + SPORF_PART_AHEAD] * rs;
            sporf_prefetch(xa + f0);
            if (cls == SPORF_PART_INLINE) {
                sporf_prefetch(xa + f1);
                sporf_prefetch(xa + f2);
            }
        }
        double s;
        if (cls == SPORF_PART_SINGLE)
            s = x[f0];
        else if (cls == SPORF_PART_INLINE)
            s = (x[f0] + c1 * x[f1]) + c2 * x[f2];
        else
            s = sporf_pnode_project(nd, e, kind, tree, x, cs, 0);
        sporf_part_place(dst, &nl, &nr, r, s > t);
    }
    return nl;
}


/* sporf_part_split_k for a general split: the rows' projections are summed
 * term by term over chunks of rows, each row's sum in the fit's order, so
 * the sums of different rows overlap instead of each row's chain of adds
 * waiting on its own loop. A chunk's row addresses are computed once, not
 * once per term, and its sums start from the first term (0 + w x is w x up
 * to the sign of a zero, which the comparison with t does not see). */
static inline int32_t sporf_part_split_general(const sporf_pnode *nd, const sporf_tree *tree, const double *x0,
                                               int64_t rs, int64_t cs, const int32_t *src, int32_t *dst, int32_t lo,
                                               int32_t hi)
{
    const sporf_pnode *e = nd + 1;
    const int32_t len = e->u.ext.f2;
    const int32_t *f = e->u.ext.f1 < 0 ? NULL : tree->proj_feature + e->u.ext.f1;
    const double *w = e->u.ext.f1 < 0 ? NULL : tree->proj_weight + e->u.ext.f1;
    const double t = nd->u.threshold;
    double s[SPORF_PART_CHUNK];
    const double *xr[SPORF_PART_CHUNK];
    int32_t nl = lo, nr = hi - 1;
    for (int32_t c0 = lo; c0 < hi; c0 += SPORF_PART_CHUNK) {
        const int32_t m = hi - c0 < SPORF_PART_CHUNK ? hi - c0 : SPORF_PART_CHUNK;
        const int32_t *rows = src + c0;
        for (int32_t i = 0; i < m; i++)
            xr[i] = x0 + rows[i] * rs;
        for (int32_t k = 0; k < len; k++) {
            const double wk = f ? w[k] : e[1 + k].u.threshold;
            const int64_t fk = (int64_t)(f ? (uint32_t)f[k] : e[1 + k].head) * cs;
            if (k == 0) {
                for (int32_t i = 0; i < m; i++)
                    s[i] = wk * xr[i][fk];
            } else {
                for (int32_t i = 0; i < m; i++)
                    s[i] += wk * xr[i][fk];
            }
        }
        if (len == 0) /* no terms: every sum is 0 */
            for (int32_t i = 0; i < m; i++)
                s[i] = 0.0;
        for (int32_t i = 0; i < m; i++)
            sporf_part_place(dst, &nl, &nr, rows[i], s[i] > t);
    }
    return nl;
}

/* Longest general split projected by sporf_part_split_terms; longer ones
 * take sporf_part_split_general. */
#define SPORF_PART_TERMS 8

/* sporf_part_split_k for a general split of len terms (a constant, 1 to
 * SPORF_PART_TERMS: its loop unrolls), row by row: each row's sum in the
 * fit's order, from its first term (0 + w x is w x up to the sign of a
 * zero, which the comparison with t does not see), its features loaded
 * SPORF_PART_AHEAD rows ahead. fk holds the features times the column
 * stride, wk the weights. Measured against the chunks of
 * sporf_part_split_general, where the default forests' splits (2 to 3
 * terms on average) spent their time on the chunk's bookkeeping. */
static inline int32_t sporf_part_split_terms(const int64_t *fk, const double *wk, double t, const double *x0,
                                             int64_t rs, const int32_t *src, int32_t *dst, int32_t lo, int32_t hi,
                                             const int len)
{
    int32_t nl = lo, nr = hi - 1;
    for (int32_t i = lo; i < hi; i++) {
        const int32_t r = src[i];
        const double *x = x0 + r * rs;
        if (rs != 1 && i + SPORF_PART_AHEAD < hi) {
            const double *xa = x0 + src[i + SPORF_PART_AHEAD] * rs;
            for (int k = 0; k < len; k++)
                sporf_prefetch(xa + fk[k]);
        }
        double s = wk[0] * x[fk[0]];
        for (int k = 1; k < len; k++)
            s += wk[k] * x[fk[k]];
        sporf_part_place(dst, &nl, &nr, r, s > t);
    }
    return nl;
}

/* A general split's terms (e its extension: inline after it, or in the
 * tree's side buffer) as features times cs in fk and weights in wk, in the
 * fit's order; returns their count, or 0 when there are none or more than
 * max. */
static inline int32_t sporf_part_general_terms(const sporf_pnode *e, const sporf_tree *tree, int64_t cs, int32_t max,
                                               int64_t *fk, double *wk)
{
    const int32_t len = e->u.ext.f2;
    if (len < 1 || len > max)
        return 0;
    for (int32_t k = 0; k < len; k++) {
        if (e->u.ext.f1 < 0) {
            fk[k] = (int64_t)e[1 + k].head * cs;
            wk[k] = e[1 + k].u.threshold;
        } else {
            fk[k] = (int64_t)tree->proj_feature[e->u.ext.f1 + k] * cs;
            wk[k] = tree->proj_weight[e->u.ext.f1 + k];
        }
    }
    return len;
}

/* A general split's rows: sporf_part_split_terms for up to SPORF_PART_TERMS
 * terms, else sporf_part_split_general. */
static inline int32_t sporf_part_split_any_general(const sporf_pnode *nd, const sporf_tree *tree, const double *x0,
                                                   int64_t rs, int64_t cs, const int32_t *src, int32_t *dst, int32_t lo,
                                                   int32_t hi)
{
    int64_t fk[SPORF_PART_TERMS];
    double wk[SPORF_PART_TERMS];
    const int32_t len = sporf_part_general_terms(nd + 1, tree, cs, SPORF_PART_TERMS, fk, wk);
    if (len == 0)
        return sporf_part_split_general(nd, tree, x0, rs, cs, src, dst, lo, hi);
    const double t = nd->u.threshold;
    switch (len) {
    case 1: return sporf_part_split_terms(fk, wk, t, x0, rs, src, dst, lo, hi, 1);
    case 2: return sporf_part_split_terms(fk, wk, t, x0, rs, src, dst, lo, hi, 2);
    case 3: return sporf_part_split_terms(fk, wk, t, x0, rs, src, dst, lo, hi, 3);
    case 4: return sporf_part_split_terms(fk, wk, t, x0, rs, src, dst, lo, hi, 4);
    case 5: return sporf_part_split_terms(fk, wk, t, x0, rs, src, dst, lo, hi, 5);
    case 6: return sporf_part_split_terms(fk, wk, t, x0, rs, src, dst, lo, hi, 6);
    case 7: return sporf_part_split_terms(fk, wk, t, x0, rs, src, dst, lo, hi, 7);
    default: return sporf_part_split_terms(fk, wk, t, x0, rs, src, dst, lo, hi, 8);
    }
}

/* Split nd's projection as the terms sporf_vec_split_terms sums (fk the
 * features times cs, wk the weights, in the order the row-by-row splits
 * add them); returns their count, or 0 for a split of more than
 * SPORF_VEC_TERMS terms. A single-feature split is 1 x[f0] and an inlined
 * one 1 x[f0] + c1 x[f1] + c2 x[f2]: a product by 1 is exact, and a last
 * term of coefficient 0 (dropped here) adds a zero, which changes no
 * comparison with the threshold. */
static inline int32_t sporf_part_terms_of(const sporf_pnode *nd, const sporf_tree *tree, int64_t cs, int64_t *fk,
                                          double *wk)
{
    const uint32_t kind = sporf_pnode_kind(nd);
    fk[0] = (int64_t)(nd->head & SPORF_PN_FEATURE_MASK) * cs;
    wk[0] = 1.0;
    if (kind == SPORF_PN_SINGLE)
        return 1;
    const sporf_pnode *e = nd + 1;
    if (kind < SPORF_PN_GENERAL) {
        fk[1] = (int64_t)e->u.ext.f1 * cs;
        fk[2] = (int64_t)e->u.ext.f2 * cs;
        wk[1] = sporf_pn_coef[0][kind];
        wk[2] = sporf_pn_coef[1][kind];
        return wk[2] != 0.0 ? 3 : wk[1] != 0.0 ? 2 : 1;
    }
    if (kind == SPORF_PN_WIDE) { /* sporf_pnode_wide's five terms */
        const uint32_t codes = nd[2].head;
        fk[1] = (int64_t)e->u.ext.f1 * cs;
        fk[2] = (int64_t)e->u.ext.f2 * cs;
        fk[3] = (int64_t)nd[2].u.ext.f1 * cs;
        fk[4] = (int64_t)nd[2].u.ext.f2 * cs;
        for (int k = 1; k <= 4; k++)
            wk[k] = sporf_pn_unit[(codes >> (2 * (k - 1))) & 3];
        return 5;
    }
    return sporf_part_general_terms(e, tree, cs, SPORF_VEC_TERMS, fk, wk);
}

/* Split the rows src[lo..hi) waiting at nd into dst (sporf_part_split_k's
 * contract): eight rows at a time when vec (sporf_vec_enabled) and the
 * range is long enough, else row by row. */
static inline int32_t sporf_part_split(const sporf_pnode *nd, const sporf_tree *tree, const double *x0, int64_t rs,
                                       int64_t cs, const int32_t *src, int32_t *dst, int32_t lo, int32_t hi, int vec)
{
    if (vec && hi - lo >= SPORF_VEC_MIN_ROWS) {
        int64_t fk[SPORF_VEC_TERMS];
        double wk[SPORF_VEC_TERMS];
        const int32_t len = sporf_part_terms_of(nd, tree, cs, fk, wk);
        if (len > 0)
            return sporf_vec_split_terms(fk, wk, len, nd->u.threshold, x0, rs, src, dst, lo, hi);
    }
    const uint32_t kind = sporf_pnode_kind(nd);
    if (kind == SPORF_PN_GENERAL)
        return sporf_part_split_any_general(nd, tree, x0, rs, cs, src, dst, lo, hi);
    if (kind == SPORF_PN_SINGLE)
        return sporf_part_split_k(nd, tree, x0, rs, cs, src, dst, lo, hi, SPORF_PART_SINGLE);
    if (kind < SPORF_PN_GENERAL)
        return sporf_part_split_k(nd, tree, x0, rs, cs, src, dst, lo, hi, SPORF_PART_INLINE);
    return sporf_part_split_k(nd, tree, x0, rs, cs, src, dst, lo, hi, SPORF_PART_OTHER);
}

/* The same over float copies of the rows (row r at xf + r * p; tf the
 * split's float threshold): sums in float, and in double from the rows at
 * x0 where float cannot decide (sporf_f32_decided; single-feature splits
 * where the floats tie); cls OTHER is a wide split here (side-buffer splits
 * take sporf_part_split_k). */
static inline int32_t sporf_part_split_f32_k(const sporf_pnode *nd, float tf, const sporf_tree *tree,
                                             const float *xf, int64_t p, const double *x0, int64_t rs, int64_t cs,
                                             const int32_t *src, int32_t *dst, int32_t lo, int32_t hi, const int cls)
{
    const uint32_t kind = nd->head >> SPORF_PN_KIND_SHIFT;
    const sporf_pnode *e = sporf_pnode_ext(nd, sporf_pnode_has_ext(kind, nd->link));
    const sporf_f32_terms T = sporf_f32_terms_of(nd, e, kind);
    const int64_t f0 = T.f[0];
    const double t = nd->u.threshold;
    int32_t nl = lo, nr = hi - 1;
    for (int32_t i = lo; i < hi; i++) {
        const int32_t r = src[i];
        const float *xr = xf + r * p;
        if (i + SPORF_PART_AHEAD < hi) {
            const float *xa = xf + src[i + SPORF_PART_AHEAD] * p;
            sporf_prefetch(xa + f0);
            if (cls != SPORF_PART_SINGLE) {
                sporf_prefetch(xa + T.f[1]);
                sporf_prefetch(xa + T.f[2]);
            }
            if (cls == SPORF_PART_OTHER) {
                sporf_prefetch(xa + T.f[3]);
                sporf_prefetch(xa + T.f[4]);
            }
        }
        uint32_t go_right;
        if (cls == SPORF_PART_SINGLE) {
            const float v = xr[f0];
            go_right = v > tf;
            if (v == tf) /* rare: decide in double */
                go_right = x0[r * rs + f0 * cs] > t;
        } else {
            float S;
            const float d = sporf_f32_terms_sum(&T, xr, &S, cls == SPORF_PART_OTHER) - tf;
            go_right = d > 0.0f;
            if (!sporf_f32_decided(d, S, tf)) /* rare: decide in double */
                go_right = sporf_pnode_project(nd, e, kind, tree, x0 + r * rs, cs, 0) > t;
        }
        sporf_part_place(dst, &nl, &nr, r, go_right);
    }
    return nl;
}

/* sporf_part_split_terms over float copies of the rows (row r at xf + r *
 * p; fk the features, wf the weights rounded to float, tf the threshold):
 * each row's float sum decides where sporf_f32_decided says it can, and
 * the rest are projected in double from the rows at x0 (nd, e: the split
 * and its extension). The float sum of len <= SPORF_PART_TERMS products is
 * off the double one by less than (len + 3) u of the sum of their
 * magnitudes (a rounding for the weight, the feature and the product, one
 * per addition), within sporf_f32_decided's 16 u; weights are kept in
 * [2^-60, 2^16] (sporf_part_split_general_f32), so rounding them stays
 * relative and underflowing products add less than FLT_MIN. */
static inline int32_t sporf_part_split_terms_f32(const sporf_pnode *nd, const sporf_tree *tree, const int64_t *fk,
                                                 const float *wf, float tf, const float *xf, int64_t p,
                                                 const double *x0, int64_t rs, int64_t cs, const int32_t *src, int32_t *dst,
                                                 int32_t lo, int32_t hi, const int len)
{
    const sporf_pnode *e = nd + 1;
    const double t = nd->u.threshold;
    int32_t nl = lo, nr = hi - 1;
    for (int32_t i = lo; i < hi; i++) {
        const int32_t r = src[i];
        const float *xr = xf + r * p;
        if (i + SPORF_PART_AHEAD < hi) {
            const float *xa = xf + src[i + SPORF_PART_AHEAD] * p;
            for (int k = 0; k < len; k++)
                sporf_prefetch(xa + fk[k]);
        }
        float a = wf[0] * xr[fk[0]];
        float sum = a, mag = fabsf(a);
        for (int k = 1; k < len; k++) {
            a = wf[k] * xr[fk[k]];
            sum += a;
            mag += fabsf(a);
        }
        const float d = sum - tf;
        uint32_t go_right = d > 0.0f;
        if (!sporf_f32_decided(d, mag, tf)) /* rare: decide in double */
            go_right = sporf_pnode_project(nd, e, SPORF_PN_GENERAL, tree, x0 + r * rs, cs, 0) > t;
        sporf_part_place(dst, &nl, &nr, r, go_right);
    }
    return nl;
}

/* A general split's rows over float copies: sporf_part_split_terms_f32 for
 * up to SPORF_PART_TERMS terms whose weights are 0 or of magnitude in
 * [2^-60, 2^16], else the double rows (sporf_part_split_any_general). */
static inline int32_t sporf_part_split_general_f32(const sporf_pnode *nd, float tf, const sporf_tree *tree,
                                                   const float *xf, int64_t p, const double *x0, int64_t rs,
                                                   int64_t cs, const int32_t *src, int32_t *dst, int32_t lo, int32_t hi)
{
    const sporf_pnode *e = nd + 1;
    const int32_t len = e->u.ext.f2;
    int ok = len >= 1 && len <= SPORF_PART_TERMS;
    int64_t fk[SPORF_PART_TERMS];
    float wf[SPORF_PART_TERMS];
    for (int32_t k = 0; ok && k < len; k++) {
        const int inline_terms = e->u.ext.f1 < 0;
        const double w = inline_terms ? e[1 + k].u.threshold : tree->proj_weight[e->u.ext.f1 + k];
        fk[k] = inline_terms ? (int64_t)e[1 + k].head : (int64_t)tree->proj_feature[e->u.ext.f1 + k];
        wf[k] = (float)w;
        ok = sporf_f32_weight_ok(w);
    }
    if (!ok)
        return sporf_part_split_any_general(nd, tree, x0, rs, cs, src, dst, lo, hi);
    switch (len) {
    case 1: return sporf_part_split_terms_f32(nd, tree, fk, wf, tf, xf, p, x0, rs, cs, src, dst, lo, hi, 1);
    case 2: return sporf_part_split_terms_f32(nd, tree, fk, wf, tf, xf, p, x0, rs, cs, src, dst, lo, hi, 2);
    case 3: return sporf_part_split_terms_f32(nd, tree, fk, wf, tf, xf, p, x0, rs, cs, src, dst, lo, hi, 3);
    case 4: return sporf_part_split_terms_f32(nd, tree, fk, wf, tf, xf, p, x0, rs, cs, src, dst, lo, hi, 4);
    case 5: return sporf_part_split_terms_f32(nd, tree, fk, wf, tf, xf, p, x0, rs, cs, src, dst, lo, hi, 5);
    case 6: return sporf_part_split_terms_f32(nd, tree, fk, wf, tf, xf, p, x0, rs, cs, src, dst, lo, hi, 6);
    case 7: return sporf_part_split_terms_f32(nd, tree, fk, wf, tf, xf, p, x0, rs, cs, src, dst, lo, hi, 7);
    default: return sporf_part_split_terms_f32(nd, tree, fk, wf, tf, xf, p, x0, rs, cs, src, dst, lo, hi, 8);
    }
}

static inline int32_t sporf_part_split_f32(const sporf_pnode *nd, float tf, const sporf_tree *tree,
                                           const float *xf, int64_t p, const double *x0, int64_t rs, int64_t cs,
                                           const int32_t *src, int32_t *dst, int32_t lo, int32_t hi)
{
    const uint32_t kind = sporf_pnode_kind(nd);
    if (kind == SPORF_PN_SINGLE)
        return sporf_part_split_f32_k(nd, tf, tree, xf, p, x0, rs, cs, src, dst, lo, hi, SPORF_PART_SINGLE);
    if (kind < SPORF_PN_GENERAL)
        return sporf_part_split_f32_k(nd, tf, tree, xf, p, x0, rs, cs, src, dst, lo, hi, SPORF_PART_INLINE);
    if (kind == SPORF_PN_WIDE)
        return sporf_part_split_f32_k(nd, tf, tree, xf, p, x0, rs, cs, src, dst, lo, hi, SPORF_PART_OTHER);
    return sporf_part_split_general_f32(nd, tf, tree, xf, p, x0, rs, cs, src, dst, lo, hi);
}

/* Split the rows src[lo..hi) waiting at nd (hi - lo >= SPORF_VEC_MIN_ROWS;
 * only where sporf_vec_enabled) by their float copies (row r's features at
 * xf + r * p; tf the split's threshold rounded to float), eight rows at a
 * time (sporf_vec_split_terms_f32): the rows whose float sums cannot tell
 * their side are projected in double from the rows at x0, so every row
 * goes where sporf_part_split sends it. Returns -1, having moved nothing,
 * for a split of more than SPORF_VEC_TERMS terms or with a weight outside
 * [2^-60, 2^16] (sporf_part_split_terms_f32's bound). */
static inline int32_t sporf_part_split_vec_f32(const sporf_pnode *nd, float tf, const sporf_tree *tree,
                                               const float *xf, int64_t p, const double *x0, int64_t rs, int64_t cs,
                                               const int32_t *src, int32_t *dst, int32_t lo, int32_t hi)
{
    int64_t f[SPORF_VEC_TERMS], fd[SPORF_VEC_TERMS];
    double w[SPORF_VEC_TERMS];
    float wf[SPORF_VEC_TERMS];
    const int32_t len = sporf_part_terms_of(nd, tree, 1, f, w);
    if (len == 0)
        return -1;
    for (int32_t k = 0; k < len; k++) {
        if (!sporf_f32_weight_ok(w[k]))
            return -1;
        wf[k] = (float)w[k];
        fd[k] = f[k] * cs;
    }
    const sporf_vec_exact exact = {fd, w, len, nd->u.threshold, x0, rs};
    return sporf_vec_split_terms_f32(f, wf, tf, xf, p, &exact, src, dst, lo, hi);
}

/* One step from split `at` (sporf_pnode_step's contract) for the row whose
 * float copy is xr (features at stride 1) and double row x (column stride
 * cs): decided in float, against the threshold rounded to float, where
 * the float sum is clear of it (sporf_f32_decided; a single feature where
 * the floats differ), else in double, so it reaches sporf_pnode_step's
 * child. The walk's pool steps this way on float copies: the double rows
 * there are the caller's, not in cache. */
static inline int32_t sporf_part_step_f32(const sporf_pnode *nodes, int32_t at,
                                          const sporf_tree *tree, const float *xr, const double *x, int64_t cs)
{
    const sporf_pnode *nd = &nodes[at];
    const uint32_t kind = sporf_pnode_kind(nd);
    const uint32_t has_ext = sporf_pnode_has_ext(kind, nd->link);
    const sporf_pnode *e = sporf_pnode_ext(nd, has_ext);
    const float tf = (float)nd->u.threshold;
    int decided;
    uint32_t go_right;
    if (kind == SPORF_PN_SINGLE) {
        const float v = xr[nd->head & SPORF_PN_FEATURE_MASK];
        go_right = v > tf;
        decided = v != tf;
    } else if (kind != SPORF_PN_GENERAL) {
        const sporf_f32_terms T = sporf_f32_terms_of(nd, e, kind);
        float S;
        const float d = sporf_f32_terms_sum(&T, xr, &S, kind == SPORF_PN_WIDE) - tf;
        go_right = d > 0.0f;
        decided = sporf_f32_decided(d, S, tf);
    } else {
        int64_t f[SPORF_PART_TERMS];
        double w[SPORF_PART_TERMS];
        const int32_t len = sporf_part_general_terms(e, tree, 1, SPORF_PART_TERMS, f, w);
        float sum = 0.0f, mag = 0.0f;
        decided = len > 0;
        for (int32_t k = 0; k < len; k++) {
            decided &= sporf_f32_weight_ok(w[k]);
            const float a = (float)w[k] * xr[f[k]];
            sum = k ? sum + a : a;
            mag = k ? mag + fabsf(a) : fabsf(a);
        }
        const float d = sum - tf;
        go_right = d > 0.0f;
        decided = decided && sporf_f32_decided(d, mag, tf);
    }
    if (!decided) /* rare: decide in double */
        go_right = sporf_pnode_project(nd, e, kind, tree, x, cs, 0) > nd->u.threshold;
    return sporf_pnode_child(nd, at, e, has_ext, kind, go_right);
}

/* Where the partition walk's leaves go when it sums them itself (sporf_part_add_leaf). */
typedef struct sporf_part_sums {
    double *out;    /* row r's K values at out + r * K */
    int64_t *votes; /* row r's count of trees that did not abstain; NULL for a forest
                       whose trees never abstain (every tree votes) */
    int32_t K;
} sporf_part_sums;

/* Add leaf lf's values (tree's leaf_values; one 1 for a one-hot leaf) to
 * the sums of the rows[0..n) that reached it and count its vote, unless the
 * tree abstains there (NaN values): what predict.c's add_leaf does for each
 * row, with the leaf and its values loaded once for all of them. */
static inline void sporf_part_add_leaf(const sporf_pnode *lf, const sporf_tree *tree, const sporf_part_sums *S,
                                       const int32_t *rows, int32_t n)
{
    const int32_t K = S->K;
    if (K > 1 && lf->u.leaf.onehot >= 0) {
        const int32_t k = lf->u.leaf.onehot;
        for (int32_t i = 0; i < n; i++)
            S->out[(int64_t)rows[i] * K + k] += 1.0; /* the other values are zeros */
    } else {
        const double *lv = sporf_pnode_leaf_values(tree, lf, K);
        if (isnan(lv[0])) /* the tree abstains: no sum, no vote */
            return;
        for (int32_t i = 0; i < n; i++) {
            double *o = S->out + (int64_t)rows[i] * K;
            for (int32_t k = 0; k < K; k++)
                o[k] += lv[k];
        }
    }
    if (S->votes)
        for (int32_t i = 0; i < n; i++)
            S->votes[rows[i]]++;
}

/* Rows waiting to finish their walk one by one (sporf_part_pool_walk): a
 * row's current slot (with SPORF_PART_POOL_VALUES set once it stands on a
 * leaf whose values are on their way) and the row. */
typedef struct sporf_part_pool {
    int32_t node[SPORF_PART_POOL], row[SPORF_PART_POOL];
    int32_t n;
} sporf_part_pool;
#define SPORF_PART_POOL_VALUES ((int32_t)0x40000000) /* above every slot index (< 2^30) */

/* Walk the pool's rows to their leaves, round-robin: each round moves every
 * row one step and starts loading the slot it moved to, which has arrived
 * by the time the round comes back to it; a row reaching a leaf whose values
 * live in leaf_values starts loading them and adds them a round later. The
 * steps of many rows overlap instead of each waiting on its own slot
 * (benchmarks/notes/speed.md: rows finished in flight four at a time from
 * their own range cost 200 cycles of the time counter each on the forest of
 * a million rows, pooled 120). Each leaf's values are added to its row's
 * sums, or the leaf recorded in leaf[row] (sporf_part_add_leaf's contract);
 * the pool is empty after. */
static inline void sporf_part_pool_walk(sporf_part_pool *P, const sporf_pnode *nodes, const sporf_tree *tree,
                                        const double *x0, int64_t rs, int64_t cs,
                                        const float *xf, int64_t p, int32_t *leaf, const sporf_part_sums *sums)
{
    int32_t live = P->n;
    int32_t *node = P->node, *row = P->row;
    const int values_later = sums && sums->K > 1;
    while (live > 0) {
        for (int32_t j = 0; j < live; j++) {
            const int32_t at = node[j] & ~SPORF_PART_POOL_VALUES;
            const sporf_pnode *nd = &nodes[at];
            if (!sporf_pnode_is_leaf(nd)) {
                if (xf) {
                    node[j] = sporf_part_step_f32(nodes, at, tree, xf + row[j] * p, x0 + row[j] * rs, cs);
                } else {
                    node[j] = sporf_pnode_step(nodes, at, tree, x0 + row[j] * rs, cs, 0);
                }
                sporf_prefetch(&nodes[node[j]]);
                continue;
            }
            if (values_later && node[j] == at && nd->u.leaf.onehot < 0) {
                sporf_prefetch(sporf_pnode_leaf_values(tree, nd, sums->K));
                node[j] |= SPORF_PART_POOL_VALUES;
                continue;
            }
            if (sums)
                sporf_part_add_leaf(nd, tree, sums, &row[j], 1);
            else
                leaf[row[j]] = at;
            live--; /* the last live row takes this one's place */
            node[j] = node[live];
            row[j] = row[live];
            j--;
        }
    }
    P->n = 0;
}

/* Put row r, waiting at slot at, in the pool, walking the pool when full. */
static inline void sporf_part_pool_add(sporf_part_pool *P, int32_t at, int32_t r, const sporf_pnode *nodes,
                                       const sporf_tree *tree, const double *x0, int64_t rs, int64_t cs,
                                       const float *xf, int64_t p, int32_t *leaf,
                                       const sporf_part_sums *sums)
{
    P->node[P->n] = at;
    P->row[P->n++] = r;
    if (P->n == SPORF_PART_POOL)
        sporf_part_pool_walk(P, nodes, tree, x0, rs, cs, xf, p, leaf, sums);
}

/* Leaf (index in nodes) of each row x0 + r*rs (r = 0 .. n-1, n < 2^31) into
 * leaf[r], by partitioning: the rows at a split are projected together and
 * split into the children's ranges, depth first. Every row of a range runs
 * the same instructions, so nothing mispredicts but the rare loop exit, and
 * the rows' loads are independent, which beats the lane walk once a block
 * has thousands of rows (benchmarks/notes/speed.md). The loads are started
 * early: a split's children's slots before its loop (the walk otherwise
 * waits on them), and in the row-by-row splits the rows' features
 * SPORF_PART_AHEAD rows ahead. idx and tmp hold n entries (the rows'
 * indices move between them), stack `cap` frames (a tree's depth + 1
 * suffice; deeper ranges are walked row by row). With xf (row r's features
 * at xf + r * p) the splits are decided on float copies against each
 * threshold rounded to float (sporf_part_split_f32_k); else with cols
 * (feature k of row r at cols[k * n + r]: the same values by columns)
 * ranges of at least col_min rows read those (SPORF_PART_COL_MIN). Leaves
 * are those of sporf_nodes_find_leaf. With sums, leaf is not written: each
 * leaf's values are added to the sums of the rows that reach it
 * (sporf_part_add_leaf), so a caller walking the trees in order sums each
 * row's leaves in tree order. */
static inline void sporf_nodes_find_leaves_part(const sporf_pnode *nodes, int32_t root, const sporf_tree *tree,
                                                const double *x0, int64_t rs, int64_t cs, int64_t n, int32_t *leaf,
                                                int32_t *idx, int32_t *tmp, sporf_part_frame *stack, int32_t cap,
                                                const float *xf, int64_t p, const double *cols, int32_t col_min,
                                                const sporf_part_sums *sums, int vec)
{
    int32_t *const buf[2] = {idx, tmp};
    for (int64_t i = 0; i < n; i++)
        idx[i] = (int32_t)i;
    int32_t sp = 0;
    sporf_part_pool pool;
    pool.n = 0;
    stack[sp++] = (sporf_part_frame){root, 0, (int32_t)n, 0};
    while (sp > 0) {
        const sporf_part_frame fr = stack[--sp];
        const sporf_pnode *nd = &nodes[fr.node];
        const int32_t *rows = buf[fr.buf];
        if (sporf_pnode_is_leaf(nd)) {
            if (sums)
                sporf_part_add_leaf(nd, tree, sums, rows + fr.lo, fr.hi - fr.lo);
            else
                for (int32_t i = fr.lo; i < fr.hi; i++)
                    leaf[rows[i]] = fr.node;
            continue;
        }
        if (sp + 2 > cap || fr.hi - fr.lo <= SPORF_PART_FEW) { /* few rows, or deeper than the caller said */
            for (int32_t i = fr.lo; i < fr.hi; i++)
                sporf_part_pool_add(&pool, fr.node, rows[i], nodes, tree, x0, rs, cs, xf, p, leaf, sums);
            continue;
        }
        const uint32_t kind = sporf_pnode_kind(nd);
        const uint32_t has_ext = sporf_pnode_has_ext(kind, nd->link);
        const sporf_pnode *e = sporf_pnode_ext(nd, has_ext);
        const int32_t left = sporf_pnode_child(nd, fr.node, e, has_ext, kind, 0);
        const int32_t right = sporf_pnode_child(nd, fr.node, e, has_ext, kind, 1);
        /* the children's slots load while this split's rows are read */
        sporf_prefetch(&nodes[left]);
        sporf_prefetch(&nodes[right]);
        const int by_cols = cols && fr.hi - fr.lo >= col_min;
        int32_t *const to = buf[fr.buf ^ 1];
        int32_t mid = -1;
        if (xf && vec && fr.hi - fr.lo >= SPORF_VEC_MIN_ROWS)
            mid = sporf_part_split_vec_f32(nd, (float)nd->u.threshold, tree, xf, p, x0, rs, cs, rows, to, fr.lo, fr.hi);
        if (mid < 0)
            mid = xf ? sporf_part_split_f32(nd, (float)nd->u.threshold, tree, xf, p, x0, rs, cs, rows, to, fr.lo, fr.hi)
                     : sporf_part_split(nd, tree, by_cols ? cols : x0, by_cols ? 1 : rs, by_cols ? n : cs, rows, to,
                                        fr.lo, fr.hi, vec);
        /* the near child's range first: the walk then reads the slots in
         * the order they are laid out (a split, its near child's subtree,
         * then the far one), which the memory system streams ahead of it
         * (left first instead: 5% more time on a million rows of a forest
         * larger than the last-level cache, 3% on smaller ones) */
        const sporf_part_frame lf = {left, fr.lo, mid, fr.buf ^ 1}, rf = {right, mid, fr.hi, fr.buf ^ 1};
        const int near_is_left = !(nd->link >> 31);
        if (near_is_left ? mid < fr.hi : mid > fr.lo)
            stack[sp++] = near_is_left ? rf : lf;
        if (near_is_left ? mid > fr.lo : mid < fr.hi)
            stack[sp++] = near_is_left ? lf : rf;
    }
    sporf_part_pool_walk(&pool, nodes, tree, x0, rs, cs, xf, p, leaf, sums);
}


#endif
