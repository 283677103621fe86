/*
 * quantile_leaves.h -- what a quantile regression forest keeps while it
 * grows (params.quantiles; Meinshausen 2006): the training responses in
 * ascending order with their sample weights (the forest's qrf_y and qrf_w),
 * and in each tree every leaf's training rows as ranks into them.
 * predict/quantiles.c reads both.
 */
#ifndef SPORF_QUANTILE_LEAVES_H
#define SPORF_QUANTILE_LEAVES_H

#include "model/model.h"
#include "fit/columns.h"

/* Fill f->qrf_n, f->qrf_y and f->qrf_w from the n responses yr and the
 * sample weights sw (NULL: all 1), and return in *order_out the rows by rank
 * (ascending response, ties by row) and in *rank_out each row's rank; both
 * n entries, the caller's to free. */
int sporf_qrf_prepare(sporf_forest *f, const double *yr, const double *sw, int64_t n, int32_t **order_out,
                      int32_t **rank_out, sporf_error *err);

/* Set tree->leaf_start and tree->leaf_rank from the rows rows[0..m) that
 * give the grown tree its leaf values, each count[row] times (its bootstrap
 * multiplicity). Each row of X is routed down the stored tree (impute as
 * the builder's) as the fit sent it. order is X's rows by ascending rank,
 * rank each row's rank among the forest's responses (sporf_qrf_prepare's;
 * for a fit on a sample of the rows, the sample's rows in that order with
 * their ranks among every row's). leaf_by_row is X->n entries of the
 * caller's scratch, xrow X->p doubles of scratch. */
int sporf_qrf_collect(sporf_tree *tree, const sporf_columns *X, double *xrow, const double *impute, const int32_t *rows,
                      int64_t m, const int32_t *count, const int32_t *order, const int32_t *rank,
                      int32_t *leaf_by_row, sporf_error *err);

#endif
