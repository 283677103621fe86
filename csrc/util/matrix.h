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

/* What sporf_check_matrix checks of the values. NaN is a missing value
 * everywhere (the forest learns where it goes); infinity is an error. */
#define SPORF_CHECK_SHAPE 0   /* shape and strides only */
#define SPORF_CHECK_NO_INF 1  /* and no infinity (prediction) */
#define SPORF_CHECK_FIT 2     /* and no magnitude above SPORF_MAX_ABS_VALUE (fit) */

/* Check a matrix view: shape, strides, and the values as `check` says. */
int sporf_check_matrix(const sporf_matrix *X, int64_t want_ncol, int check,
                       const char *what, sporf_error *err);

/* The column of the first NaN or infinity among row x's ncol values (column
 * stride cs), or -1: one vectorized pass for a complete row. */
int64_t sporf_row_first_nonfinite(const double *x, int64_t ncol, int64_t cs);

/* The column of the first infinity among row x's ncol values, or -1. */
int64_t sporf_row_first_infinite(const double *x, int64_t ncol, int64_t cs);

/* The first NaN of X as row * ncol + column, or -1. */
int64_t sporf_matrix_first_missing(const sporf_matrix *X);

/* The training rows' fingerprint (sporf_rows_fingerprint, sporf.h). */
uint64_t sporf_matrix_fingerprint(const sporf_matrix *X);

/* Sets err for an infinity at (row, col) of matrix `what`; returns SPORF_E_ARG. */
int sporf_infinite_error(sporf_error *err, const char *what, int64_t row, int64_t col);

/* Sets err for a NaN at (row, col) of matrix `what` given to a forest that
 * has no missing-value directions (a model saved in format 7 or earlier);
 * returns SPORF_E_ARG. */
int sporf_missing_unlearned_error(sporf_error *err, const char *what, int64_t row, int64_t col);

#endif
