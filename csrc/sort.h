/*
 * sort.h -- sorting a node's projected values together with its sample ids.
 * This is the innermost loop of training, so it is tuned: introsort with
 * median-of-three pivots and three-way partitioning (many ties are common in
 * real data and in +-1 projections of discrete features), insertion sort for
 * short runs, heapsort when recursion gets too deep.
 */
#ifndef SPORF_SORT_H
#define SPORF_SORT_H

#include <stdint.h>

/* Sort v[0..n) ascending, applying the same permutation to ids[0..n).
 * The order among equal values is unspecified but deterministic. */
void sporf_sort_values(double *v, int32_t *ids, int64_t n);

#endif
