/* quantile_leaves.c -- the training rows of each leaf of a quantile
 * regression forest (quantile_leaves.h). */
#include "fit/quantile_leaves.h"
#include "predict/traverse.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

int sporf_qrf_prepare(sporf_forest *f, const double *yr, const double *sw, int64_t n, int32_t **order_out,
                      int32_t **rank_out, sporf_error *err)
{
    *order_out = NULL;
    *rank_out = NULL;
    int64_t *rows = malloc((size_t)(n > 0 ? n : 1) * sizeof *rows);
    int32_t *order = malloc((size_t)n * sizeof *order);
    int32_t *rank = malloc((size_t)n * sizeof *rank);
    f->qrf_y = malloc((size_t)n * sizeof *f->qrf_y);
    if (sw)
        f->qrf_w = malloc((size_t)n * sizeof *f->qrf_w);
    if (rows)
        for (int64_t i = 0; i < n; i++) rows[i] = i;
    /* ascending response, ties by row: one order on every platform, so both
     * bindings and every thread count store the same ranks */
    if (!rows || !order || !rank || !f->qrf_y || (sw && !f->qrf_w) || !sporf_order_rows_by_key(yr, rows, n)) {
        free(rows);
        free(order);
        free(rank);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory keeping the responses for quantiles");
    }
    for (int64_t r = 0; r < n; r++) {
        order[r] = (int32_t)rows[r];
        rank[rows[r]] = (int32_t)r;
        f->qrf_y[r] = yr[rows[r]];
        if (sw)
            f->qrf_w[r] = sw[rows[r]];
    }
    free(rows);
    f->qrf_n = n;
    *order_out = order;
    *rank_out = rank;
    return SPORF_OK;
}

int sporf_qrf_collect(sporf_tree *tree, const sporf_columns *X, double *xrow, const double *impute, const int32_t *rows,
                      int64_t m, const int32_t *count, const int32_t *order, const int32_t *rank,
                      int32_t *leaf_by_row, sporf_error *err)
{
    const int32_t L = tree->n_leaves;
    tree->leaf_start = calloc((size_t)L + 1, sizeof *tree->leaf_start);
    if (!tree->leaf_start)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory keeping the leaves' rows for quantiles");
    const int64_t n = X->n;
    for (int64_t r = 0; r < n; r++)
        leaf_by_row[r] = -1;
    /* Route each row as the fit did and count its draws in its leaf. */
    int64_t total = 0;
    for (int64_t k = 0; k < m; k++) {
        const int32_t id = rows[k];
        const int32_t slot = tree->nodes[sporf_columns_stored_leaf(tree, impute, X, id, xrow)].right;
        leaf_by_row[id] = slot;
        tree->leaf_start[slot + 1] += count[id];
        total += count[id];
    }
    if (total > INT32_MAX)
        return sporf_set_error(err, SPORF_E_ARG, "a tree drew more than 2^31 rows: too many to keep for quantiles");
    for (int32_t l = 0; l < L; l++)
        tree->leaf_start[l + 1] += tree->leaf_start[l];
    tree->leaf_rank = malloc((size_t)(total > 0 ? total : 1) * sizeof *tree->leaf_rank);
    int32_t *fill = malloc((size_t)L * sizeof *fill);
    if (!tree->leaf_rank || !fill) {
        free(fill);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory keeping the leaves' rows for quantiles");
    }
    memcpy(fill, tree->leaf_start, (size_t)L * sizeof *fill);
    /* Visiting the rows by rank leaves each leaf's list ascending. */
    for (int64_t r = 0; r < n; r++) {
        const int32_t row = order[r], slot = leaf_by_row[row];
        if (slot < 0)
            continue;
        for (int32_t c = count[row]; c > 0; c--)
            tree->leaf_rank[fill[slot]++] = rank[row];
    }
    free(fill);
    return SPORF_OK;
}
