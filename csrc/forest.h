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

/* Out-of-bag class probabilities: inbag is n_trees bitmaps of n bits. */
int sporf_forest_oob(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag,
                     int32_t n_threads, double *out, int64_t *count, sporf_error *err);

#endif
