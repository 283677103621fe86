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
 * The walks, all reaching the same leaves:
 *   - sporf_nodes_find_leaf: one row, node by node (single rows, OOB);
 *   - sporf_nodes_find_leaves / sporf_bin_find_leaves: lanes, several rows
 *     (or row-tree pairs) in flight to hide the latency of node loads;
 *   - sporf_nodes_find_leaves_f32: lanes over float copies of the rows for
 *     forests of single-feature splits, deciding float ties in double;
 *   - sporf_nodes_find_leaves_part: a block's rows partitioned node by node,
 *     on the rows or on float copies of them.
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
 * explicit_near, one child must sit right after node i's slots. onehot is
 * the leaf's one-hot class or -1. */
void sporf_pnode_write(const sporf_tree *tree, int32_t i, const int32_t *pos, int explicit_near, int32_t onehot,
                       sporf_pnode *out);

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

static inline double sporf_pnode_general(const sporf_tree *tree, const sporf_pnode *ext, const double *x, int64_t cs)
{
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
 * double (row stride rs, column stride cs), thr_f each slot's threshold
 * rounded to float (packed.h). Rounding to float is monotone: float(x) <
 * float(t) implies x <= t and float(x) > float(t) implies x > t, so only
 * equal floats need the double comparison, and every row reaches the leaf
 * the double walk reaches. Half the bytes per row keep twice the rows in
 * cache: 30-60% faster on rows of 784 features. */
static inline void sporf_nodes_find_leaves_f32(const sporf_pnode *nodes, const float *thr_f, int32_t root,
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
            /* the far child's slot and threshold start loading while this step waits for its feature */
            sporf_prefetch(&nodes[nd->link & SPORF_PN_FAR_MASK]);
            sporf_prefetch(&thr_f[nd->link & SPORF_PN_FAR_MASK]);
            const int64_t feature = (int64_t)(nd->head & SPORF_PN_FEATURE_MASK);
            const float v = xf[row[j] * p + feature], t = thr_f[at[j]];
            uint32_t go_right = v > t;
            if (v == t) /* rare: decide in double */
                go_right = x0[row[j] * rs + feature * cs] > nd->u.threshold;
            const uint32_t explicit_near = (nd->link >> 30) & 1;
            at[j] = sporf_pnode_child(nd, at[j], nd + 1, explicit_near, SPORF_PN_SINGLE, go_right);
        }
    }
}

/* A range of a block's rows, idx[lo..hi), waiting at node `node` of the
 * partition walk. */
typedef struct sporf_part_frame {
    int32_t node, lo, hi;
} sporf_part_frame;

/* Classes of splits the partition walk loops over separately. */
#define SPORF_PART_SINGLE 0 /* x[f0] */
#define SPORF_PART_INLINE 1 /* (x[f0] + c1 x[f1]) + c2 x[f2] */
#define SPORF_PART_OTHER 2  /* wide and side-buffer splits */
/* How many rows ahead a split's loop starts loading a row's features. A
 * block is megabytes, so those reads miss the core's caches; issued early
 * they overlap (8, 16 and 32 rows ahead: 16 best by a little; with the
 * children's prefetch below, sparse forests on 30-784 features took
 * 0.68-0.83x the time). */
#define SPORF_PART_AHEAD 16

/* Row r goes left (to idx[*nl], kept in order where the range began) or
 * right (to tmp[*nr]): both stores, one advance, no branch on the side. */
static inline void sporf_part_place(int32_t *idx, int32_t *tmp, int32_t *nl, int32_t *nr, int32_t r,
                                    uint32_t go_right)
{
    idx[*nl] = r;
    tmp[*nr] = r;
    *nl += (int32_t)(go_right ^ 1u);
    *nr += (int32_t)go_right;
}

/* Move the rows idx[lo..hi) waiting at split nd into those going left (kept
 * in order at idx[lo..], whose end is returned) and right (after them, in
 * order; tmp is scratch). cls, a constant, gives each class of split its
 * own loop; every class computes the projection exactly as
 * sporf_pnode_project does. */
static inline int32_t sporf_part_split_k(const sporf_pnode *nd, const sporf_tree *tree, const double *x0, int64_t rs,
                                         int64_t cs, int32_t *idx, int32_t *tmp, int32_t lo, int32_t hi,
                                         const int cls)
{
    const uint32_t kind = nd->head >> SPORF_PN_KIND_SHIFT;
    const sporf_pnode *e = sporf_pnode_ext(nd, sporf_pnode_has_ext(kind, nd->link));
    const int64_t f0 = (int64_t)(nd->head & SPORF_PN_FEATURE_MASK) * cs;
    const int64_t f1 = (int64_t)e->u.ext.f1 * cs, f2 = (int64_t)e->u.ext.f2 * cs;
    const double c1 = sporf_pn_coef[0][kind], c2 = sporf_pn_coef[1][kind];
    const double t = nd->u.threshold;
    int32_t nl = lo, nr = 0;
    for (int32_t i = lo; i < hi; i++) {
        const int32_t r = idx[i];
        const double *x = x0 + r * rs;
        if (cls != SPORF_PART_OTHER && i + SPORF_PART_AHEAD < hi) {
            const double *xa = x0 + idx[i + SPORF_PART_AHEAD] * rs;
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
        sporf_part_place(idx, tmp, &nl, &nr, r, s > t);
    }
    memcpy(idx + nl, tmp, (size_t)nr * sizeof *idx);
    return nl;
}

static inline int32_t sporf_part_split(const sporf_pnode *nd, const sporf_tree *tree, const double *x0, int64_t rs,
                                       int64_t cs, int32_t *idx, int32_t *tmp, int32_t lo, int32_t hi)
{
    const uint32_t kind = sporf_pnode_kind(nd);
    if (kind == SPORF_PN_SINGLE)
        return sporf_part_split_k(nd, tree, x0, rs, cs, idx, tmp, lo, hi, SPORF_PART_SINGLE);
    if (kind < SPORF_PN_GENERAL)
        return sporf_part_split_k(nd, tree, x0, rs, cs, idx, tmp, lo, hi, SPORF_PART_INLINE);
    return sporf_part_split_k(nd, tree, x0, rs, cs, idx, tmp, lo, hi, SPORF_PART_OTHER);
}

/* The same over float copies of the rows (row r at xf + r * p; tf the
 * split's float threshold): sums in float, and in double from the rows at
 * x0 where float cannot decide (sporf_f32_decided; single-feature splits
 * where the floats tie); cls OTHER is a wide split here (side-buffer splits
 * take sporf_part_split_k). */
static inline int32_t sporf_part_split_f32_k(const sporf_pnode *nd, float tf, const sporf_tree *tree,
                                             const float *xf, int64_t p, const double *x0, int64_t rs, int64_t cs,
                                             int32_t *idx, int32_t *tmp, int32_t lo, int32_t hi, const int cls)
{
    const uint32_t kind = nd->head >> SPORF_PN_KIND_SHIFT;
    const sporf_pnode *e = sporf_pnode_ext(nd, sporf_pnode_has_ext(kind, nd->link));
    const sporf_f32_terms T = sporf_f32_terms_of(nd, e, kind);
    const int64_t f0 = T.f[0];
    const double t = nd->u.threshold;
    int32_t nl = lo, nr = 0;
    for (int32_t i = lo; i < hi; i++) {
        const int32_t r = idx[i];
        const float *xr = xf + r * p;
        if (i + SPORF_PART_AHEAD < hi) {
            const float *xa = xf + idx[i + SPORF_PART_AHEAD] * p;
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
        sporf_part_place(idx, tmp, &nl, &nr, r, go_right);
    }
    memcpy(idx + nl, tmp, (size_t)nr * sizeof *idx);
    return nl;
}

static inline int32_t sporf_part_split_f32(const sporf_pnode *nd, float tf, const sporf_tree *tree,
                                           const float *xf, int64_t p, const double *x0, int64_t rs, int64_t cs,
                                           int32_t *idx, int32_t *tmp, int32_t lo, int32_t hi)
{
    const uint32_t kind = sporf_pnode_kind(nd);
    if (kind == SPORF_PN_SINGLE)
        return sporf_part_split_f32_k(nd, tf, tree, xf, p, x0, rs, cs, idx, tmp, lo, hi, SPORF_PART_SINGLE);
    if (kind < SPORF_PN_GENERAL)
        return sporf_part_split_f32_k(nd, tf, tree, xf, p, x0, rs, cs, idx, tmp, lo, hi, SPORF_PART_INLINE);
    if (kind == SPORF_PN_WIDE)
        return sporf_part_split_f32_k(nd, tf, tree, xf, p, x0, rs, cs, idx, tmp, lo, hi, SPORF_PART_OTHER);
    return sporf_part_split_k(nd, tree, x0, rs, cs, idx, tmp, lo, hi, SPORF_PART_OTHER);
}

/* Leaf (index in nodes) of each row x0 + r*rs (r = 0 .. n-1, n < 2^31) into
 * leaf[r], by partitioning: the rows at a split are projected together and
 * split into the children's ranges, depth first. Every row of a range runs
 * the same instructions, so nothing mispredicts but the rare loop exit, and
 * the rows' loads are independent, which beats the lane walk once a block
 * has thousands of rows (BENCHMARKS.md). The loads are started early: a
 * split's children's slots before its loop (the walk otherwise waits on
 * them), the rows' features SPORF_PART_AHEAD rows ahead. idx and tmp hold n entries, stack `cap` frames (a tree's depth +
 * 1 suffice; deeper ranges are walked row by row). With xf (row r's features
 * at xf + r * p; thr_f the slots' float thresholds) the splits are decided
 * on float copies (sporf_part_split_f32_k). Leaves are those of
 * sporf_nodes_find_leaf. */
static inline void sporf_nodes_find_leaves_part(const sporf_pnode *nodes, int32_t root, const sporf_tree *tree,
                                                const double *x0, int64_t rs, int64_t cs, int64_t n, int32_t *leaf,
                                                int32_t *idx, int32_t *tmp, sporf_part_frame *stack, int32_t cap,
                                                const float *thr_f, const float *xf, int64_t p)
{
    for (int64_t i = 0; i < n; i++)
        idx[i] = (int32_t)i;
    int32_t sp = 0;
    stack[sp++] = (sporf_part_frame){root, 0, (int32_t)n};
    while (sp > 0) {
        const sporf_part_frame fr = stack[--sp];
        const sporf_pnode *nd = &nodes[fr.node];
        if (sporf_pnode_is_leaf(nd)) {
            for (int32_t i = fr.lo; i < fr.hi; i++)
                leaf[idx[i]] = fr.node;
            continue;
        }
        if (sp + 2 > cap) { /* not for trees as deep as the caller said */
            for (int32_t i = fr.lo; i < fr.hi; i++)
                leaf[idx[i]] = sporf_nodes_find_leaf(nodes, fr.node, tree, x0 + idx[i] * rs, cs);
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
        if (xf) {
            sporf_prefetch(&thr_f[left]);
            sporf_prefetch(&thr_f[right]);
        }
        const int32_t mid = xf ? sporf_part_split_f32(nd, thr_f[fr.node], tree, xf, p, x0, rs, cs, idx, tmp, fr.lo, fr.hi)
                               : sporf_part_split(nd, tree, x0, rs, cs, idx, tmp, fr.lo, fr.hi);
        if (mid < fr.hi)
            stack[sp++] = (sporf_part_frame){right, mid, fr.hi};
        if (mid > fr.lo)
            stack[sp++] = (sporf_part_frame){left, fr.lo, mid};
    }
}

/* Leaves of a few rows in every tree of one bin: leaf[r * nt + j] for row
 * x0 + r*rs (r < n) and the bin's tree j (roots[j], trees[j], j < nt). The
 * lanes take (row, tree) pairs, so a single row still has SPORF_LANES
 * independent walks in flight: one-row prediction waits for the memory
 * latency of one tree's path per lane group, not of every tree's in turn. */
static inline void sporf_bin_find_leaves(const sporf_pnode *nodes, const int32_t *roots, const sporf_tree *trees,
                                         int32_t nt, const double *x0, int64_t rs, int64_t cs, int64_t n,
                                         int32_t *leaf, int single_only)
{
    const int64_t pairs = n * nt;
    int32_t at[SPORF_LANES];
    int64_t pair[SPORF_LANES];
    for (int j = 0; j < SPORF_LANES; j++) {
        pair[j] = j < pairs ? j : -1;
        at[j] = j < pairs ? roots[j % nt] : 0;
    }
    int64_t next_pair = SPORF_LANES;
    int live = pairs < SPORF_LANES ? (int)pairs : SPORF_LANES;
    while (live > 0) {
        for (int j = 0; j < SPORF_LANES; j++) {
            const int64_t q = pair[j];
            if (q < 0)
                continue;
            if (sporf_pnode_is_leaf(&nodes[at[j]])) {
                leaf[q] = at[j];
                if (next_pair < pairs) {
                    pair[j] = next_pair;
                    at[j] = roots[next_pair % nt];
                    next_pair++;
                } else {
                    pair[j] = -1;
                    live--;
                }
                continue;
            }
            const int64_t r = q / nt;
            at[j] = sporf_pnode_step(nodes, at[j], &trees[q - r * nt], x0 + r * rs, cs, single_only);
        }
    }
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
static inline int32_t sporf_tree_find_stored_leaf(const sporf_tree *tree, const double *impute, const double *x,
                                                  int64_t cs)
{
    int32_t i = 0;
    for (;;) {
        const sporf_node *nd = &tree->nodes[i];
        if (nd->left < 0)
            return i;
        double v = sporf_node_project(tree, nd, x, cs);
        int left;
        if (!isnan(v))
            left = v <= nd->threshold;
        else if (nd->missing == SPORF_MISSING_IMPUTE)
            left = sporf_node_project_imputed(tree, nd, impute, x, cs) <= nd->threshold;
        else
            left = nd->missing == SPORF_MISSING_LEFT;
        i = left ? nd->left : nd->right;
    }
}

/* The same on a tree's own pnodes (sporf_tree_prepare): the plain layout. */
static inline int32_t sporf_tree_find_leaf(const sporf_tree *tree, const double *x, int64_t cs)
{
    return sporf_nodes_find_leaf(tree->pnodes, 0, tree, x, cs);
}

#endif
