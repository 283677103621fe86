/*
 * sizes.h -- the sizes a fit's parameters resolve to against its data,
 * resolved once (sporf_fit_sizes_resolve) and read by every later step: the
 * forest's checks, the workers, the trees' builders and the leaf-size choice.
 */
#ifndef SPORF_SIZES_H
#define SPORF_SIZES_H

#include "model/model.h"

#include <stdint.h>

typedef struct sporf_fit_sizes {
    int64_t n_rows;         /* the training rows counts and fractions resolve against */
    int64_t n_trees;        /* the trees this fit grows */
    int32_t n_threads;      /* worker threads (n_jobs against the trees) */
    int64_t n_draws;        /* rows a tree draws (max_samples, or every row) */
    int64_t n_candidates;   /* d: candidate projections per node (max_features) */
    int64_t n_axis_extra;   /* single features searched besides them (axis_features) */
    int32_t n_guided;       /* the longest guided projection (guided_features; 0 = none) */
    int64_t min_split_rows; /* min_samples_split */
    int64_t min_leaf_rows;  /* min_samples_leaf (for "auto": the size the trees grow to) */
    int leaf_auto;          /* min_samples_leaf "auto": the forest chooses its leaf size */
    int64_t leaf_grown;     /* with leaf_auto: the leaf size the trees grow to before the choice */
} sporf_fit_sizes;

/* Resolve params' sizes for a fit on n_rows training rows of p features.
 * params must have passed sporf_params_check. Thread-safe. */
void sporf_fit_sizes_resolve(const sporf_params *params, int64_t n_rows, int64_t p, sporf_fit_sizes *s);

#endif
