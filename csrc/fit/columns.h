/*
 * columns.h -- the training data as a fit reads it: n x p values, column
 * major (column j's rows contiguous), held as doubles or as floats. A float
 * is read as the double it is exactly, so float data grow the forest the
 * same values in doubles grow, without a double copy of the data (half the
 * memory on float32 data).
 */
#ifndef SPORF_COLUMNS_H
#define SPORF_COLUMNS_H

#include "model/model.h"
#include "predict/traverse.h"

#include <stdint.h>

typedef struct sporf_columns {
    const double *f64; /* column j at f64 + j * n; NULL when the data are floats */
    const float *f32;  /* column j at f32 + j * n; NULL when the data are doubles */
    int64_t n, p;
} sporf_columns;

/* Deep in a tree a node's rows lie far apart in each column, a cache line
 * apiece; a gather asks for the line SPORF_GATHER_AHEAD rows ahead, which
 * out-of-order execution cannot reach by itself (10% off the default fit on
 * 10,000 x 784, benchmarks/notes/speed.md). A hint only: values unchanged. */
#if defined(__GNUC__)
#define SPORF_PREFETCH(a) __builtin_prefetch(a)
#else
#define SPORF_PREFETCH(a) ((void)(a))
#endif
#define SPORF_GATHER_AHEAD 32

/* Row i's value in column j. */
static inline double sporf_columns_at(const sporf_columns *X, int64_t j, int64_t i)
{
    const int64_t at = j * X->n + i;
    return X->f32 ? (double)X->f32[at] : X->f64[at];
}

/* out[k] = column j's value of row rows[k], for k < m. */
static inline void sporf_columns_gather(const sporf_columns *X, int64_t j, const int32_t *rows, int64_t m,
                                        double *out)
{
    if (X->f32) {
        const float *col = X->f32 + j * X->n;
        int64_t k = 0;
        for (; k + SPORF_GATHER_AHEAD < m; k++) {
            SPORF_PREFETCH(col + rows[k + SPORF_GATHER_AHEAD]);
            out[k] = (double)col[rows[k]];
        }
        for (; k < m; k++)
            out[k] = (double)col[rows[k]];
    } else {
        const double *col = X->f64 + j * X->n;
        int64_t k = 0;
        for (; k + SPORF_GATHER_AHEAD < m; k++) {
            SPORF_PREFETCH(col + rows[k + SPORF_GATHER_AHEAD]);
            out[k] = col[rows[k]];
        }
        for (; k < m; k++)
            out[k] = col[rows[k]];
    }
}

/* out[k] += w * (column j's value of row rows[k]), for k < m: one term of a
 * projection, in the fit's arithmetic. */
static inline void sporf_columns_gather_add(const sporf_columns *X, int64_t j, double w, const int32_t *rows,
                                            int64_t m, double *out)
{
    if (X->f32) {
        const float *col = X->f32 + j * X->n;
        int64_t k = 0;
        for (; k + SPORF_GATHER_AHEAD < m; k++) {
            SPORF_PREFETCH(col + rows[k + SPORF_GATHER_AHEAD]);
            out[k] += w * (double)col[rows[k]];
        }
        for (; k < m; k++)
            out[k] += w * (double)col[rows[k]];
    } else {
        const double *col = X->f64 + j * X->n;
        int64_t k = 0;
        for (; k + SPORF_GATHER_AHEAD < m; k++) {
            SPORF_PREFETCH(col + rows[k + SPORF_GATHER_AHEAD]);
            out[k] += w * col[rows[k]];
        }
        for (; k < m; k++)
            out[k] += w * col[rows[k]];
    }
}

/* The stored leaf of tree row i reaches (sporf_tree_find_stored_leaf, impute
 * as there); row is scratch for p doubles, used for float data. */
static inline int32_t sporf_columns_stored_leaf(const sporf_tree *tree, const double *impute, const sporf_columns *X,
                                                int64_t i, double *row)
{
    if (!X->f32)
        return sporf_tree_find_stored_leaf(tree, impute, X->f64 + i, X->n);
    for (int64_t j = 0; j < X->p; j++)
        row[j] = (double)X->f32[j * X->n + i];
    return sporf_tree_find_stored_leaf(tree, impute, row, 1);
}

#endif
