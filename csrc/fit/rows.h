/*
 * rows.h -- the rows a tree grows on, and the node being split's share of
 * them: the first of the tree builder's three parts (the rows; each task's
 * own state, task.h; the tree being drawn, draft.h).
 *
 * A node is a slice [start, end) of idx, the tree's row ids. Its candidates'
 * projected values go to vals, aligned with idx; a split reorders the slice
 * (and vals) so the rows going left come first. On many rows a node also
 * keeps its rows' values in a node-ordered copy (xnode), moved with every
 * split of a node of compact_min_rows or more, so a candidate reads its
 * columns forwards instead of through idx (rows.c).
 */
#ifndef SPORF_ROWS_H
#define SPORF_ROWS_H

#include "fit/columns.h"
#include "util/sort.h"

#include <stdint.h>

typedef struct sporf_rows {
    sporf_columns X;        /* the data: n x p, column-major, doubles or floats */
    int64_t n, p;
    double *w;              /* per tree: n weights by row id (0 = not in this tree) */
    int32_t *idx;           /* per tree: the tree's row ids in [0, n_in_tree), by node */
    int has_missing;        /* X holds a NaN (a missing value): projections may be missing */
    const double *impute;   /* p training means of the features (the forest's, set by fit.c) when
                               has_missing: the SPORF_MISSING_IMPUTE option; NULL otherwise */

    /* The node-ordered copy of X (histogram fits on many rows, rows.c):
     * column j of the rows idx[start..end) at xnode + j*xnode_rows + start,
     * moved with every partition of a node of compact_min_rows or more. */
    int64_t compact_min_rows; /* 0: the data is small or wide, no copy */
    double *xnode;          /* xnode_rows x p, allocated by the first tree that uses it */
    float *xnode32;         /* the same for float data (X.f32), instead of xnode */
    int64_t xnode_rows;
    int node_compact;       /* the node being split has its rows in xnode */
    /* With compact_responses (one response -- classification or regression
     * -- on data of many rows), the copy also holds the rows' weights and
     * responses (class code or value) by position, moved with every split,
     * so the tasks' per-node passes read them in order (sporf_rows_wy);
     * NULL otherwise. */
    int compact_responses;
    double *wnode, *ynode;
    unsigned char *side;    /* partition's side of each position (1 = left) */

    double *vals;           /* projected values aligned with idx */
    double *vals_best;      /* with vals_best_ok: the best candidate's values of the node being
                               split, aligned with idx (a histogram scan's winner: swapped
                               with vals, so partition need not project it again) */
    int vals_best_ok;
    /* with range_ok: the minimum, maximum and whether a value is NaN of the
     * values sporf_rows_project just wrote (taken while gathering them) */
    int range_ok, range_nan;
    double range_lo, range_hi;
    double *xrow;           /* p: a row of float data as doubles (routing rows down a tree) */
    sporf_sort_scratch sort_scratch;
} sporf_rows;

/* Value of feature f for the row at position pos of the node being split:
 * from the node-ordered copy when it has the node, else from X. */
static inline double sporf_rows_x(const sporf_rows *r, int32_t f, int64_t pos)
{
    if (!r->node_compact)
        return sporf_columns_at(&r->X, f, r->idx[pos]);
    const int64_t at = (int64_t)f * r->xnode_rows + pos;
    return r->xnode32 ? (double)r->xnode32[at] : r->xnode[at];
}

/* The weights and responses of the node being split by position, from
 * start (*wn, *yn: row idx[start + k] at index k), when the node-ordered
 * copy has them: 1, else 0 (read them through idx). */
static inline int sporf_rows_wy(const sporf_rows *r, int64_t start, const double **wn, const double **yn)
{
    if (!r->node_compact || !r->wnode)
        return 0;
    *wn = r->wnode + start;
    *yn = r->ynode + start;
    return 1;
}

/* Rows for trees on X (borrowed for the rows' life): the weights, ids,
 * values and sort scratch for all of X's rows. Returns 0 when out of
 * memory (nothing to free then). */
int sporf_rows_init(sporf_rows *r, const sporf_columns *X, int has_missing);

/* Should trees on n x p data keep a node-ordered copy (histogram fits,
 * reading `reads` values per row of a node)? */
int sporf_rows_compaction_pays(int64_t n, int64_t p, int64_t reads);

/* Plan the node-ordered copy for histogram fits reading `reads` values per
 * row of a node: sets compact_min_rows (0: no copy) and, when the tree
 * learns one response (one_response), compact_responses. */
void sporf_rows_plan_copy(sporf_rows *r, int64_t reads, int one_response);

/* Room in the node-ordered copy for a tree on `rows` rows; returns 0
 * without the memory (a speed-up only: the tree then reads X). */
int sporf_rows_reserve_copy(sporf_rows *r, int64_t rows);

/* Fill the node-ordered copy with the tree's rows idx[0..n_in_tree), their
 * weights and responses (y class codes or yr values) when it keeps them. */
void sporf_rows_fill_copy(sporf_rows *r, int64_t n_in_tree, const int32_t *y, const double *yr);

/* vals[start..end) = the projection (features f, weights w, len terms) of
 * the node's rows, in the arithmetic of sporf_tree_find_leaf so fit and
 * predict agree exactly; sets range_* when it can take the range on the way. */
void sporf_rows_project(sporf_rows *r, const int32_t *f, const double *w, int32_t len, int64_t start, int64_t end);

/* The same with each missing feature at its training mean (r->impute). */
void sporf_rows_project_imputed(sporf_rows *r, const int32_t *f, const double *w, int32_t len, int64_t start,
                                int64_t end);

/* Move the rows of idx[start..end) whose projected value is missing to the
 * end of the slice, in order, the others keeping theirs; returns how many. */
int64_t sporf_rows_missing_last(sporf_rows *r, int64_t start, int64_t end);

/* Reorder the slice by the values in vals: rows with a value <= threshold
 * first (and missing values first when missing_left), each side in the
 * node's order (stable: histogram fits) or swapped into place (stable = 0,
 * the exact search of model format 8). Moves the node-ordered copy along.
 * Returns the rows going left; *n_miss the missing values. */
int64_t sporf_rows_partition(sporf_rows *r, int64_t start, int64_t end, double threshold, int missing_left,
                             int stable, int64_t *n_miss);

/* Release what sporf_rows_init and the node-ordered copy allocated. */
void sporf_rows_free(sporf_rows *r);

#endif
