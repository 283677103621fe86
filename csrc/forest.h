/*
 * forest.h -- internal helpers shared by fit (forest.c) and prediction (predict.c).
 */
#ifndef SPORF_FOREST_H
#define SPORF_FOREST_H

#include "core.h"

/* Largest magnitude fit accepts in X, y and weights: squares and weighted sums
 * of such values over 2^31 rows stay finite, so every gain and threshold a
 * fit stores is a finite number (which the model loader requires). */
#define SPORF_MAX_ABS_VALUE 1e100

/* check_finite: 0 no value check, 1 every value finite (prediction), or
 * SPORF_CHECK_FIT finite and at most SPORF_MAX_ABS_VALUE in magnitude. */
#define SPORF_CHECK_FIT 2

/* Check a matrix view: shape, strides, and (when check_finite) every value. */
int sporf_check_matrix(const sporf_matrix *X, int64_t want_ncol, int check_finite,
                       const char *what, sporf_error *err);

/* The column of the first NaN or infinity among row x's ncol values (column
 * stride cs), or -1. */
int64_t sporf_row_first_nonfinite(const double *x, int64_t ncol, int64_t cs);

/* Sets err for a NaN or infinity at (row, col) of matrix `what`; returns SPORF_E_ARG. */
int sporf_nonfinite_error(sporf_error *err, const char *what, int64_t row, int64_t col);

/* Out-of-bag class probabilities: inbag is n_trees bitmaps of n bits. */
int sporf_forest_oob(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag,
                     int32_t n_threads, double *out, int64_t *count, sporf_error *err);

#endif
