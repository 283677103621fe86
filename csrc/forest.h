/*
 * forest.h -- internal helpers shared by fit (forest.c) and prediction (predict.c).
 */
#ifndef SPORF_FOREST_H
#define SPORF_FOREST_H

#include "core.h"

/* Check a matrix view: shape, strides, and (when check_finite) every value. */
int sporf_check_matrix(const sporf_matrix *X, int64_t want_ncol, int check_finite,
                       const char *what, sporf_error *err);

/* Out-of-bag class probabilities: inbag is n_trees bitmaps of n bits. */
int sporf_forest_oob(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag,
                     int32_t n_threads, double *out, int64_t *count, sporf_error *err);

#endif
