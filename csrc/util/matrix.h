/*
 * matrix.h -- checks of the matrices the API receives (sporf_matrix, strided
 * views of the host's data), shared by fit, prediction and proximity.
 */
#ifndef SPORF_MATRIX_H
#define SPORF_MATRIX_H

#include "util/error.h"

#include <stdint.h>

/* The most features a forest may have: the prediction layout keeps a
 * feature index in 28 bits (model.h). */
#define SPORF_MAX_FEATURES ((int64_t)0x0FFFFFFF)

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

#endif
