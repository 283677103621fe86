/*
 * sort.h -- sorting a node's projected values together with its sample ids.
 * This is the innermost loop of training, so it is tuned by size: an
 * introsort with median-of-three pivots and three-way partitioning (many
 * ties are common in real data and in +-1 projections of discrete features)
 * for short inputs, and sorts of (float key, position) records with an exact
 * fix-up for longer ones (sporf_sort_values_radix, what the builder uses).
 */
#ifndef SPORF_SORT_H
#define SPORF_SORT_H

#include <stdint.h>

/* Sort v[0..n) ascending, applying the same permutation to ids[0..n).
 * The order among equal values is unspecified but deterministic. */
void sporf_sort_values(double *v, int32_t *ids, int64_t n);

/* Scratch for sporf_sort_values_radix, sized for n elements. */
typedef struct sporf_sort_scratch {
    uint64_t *pairs;   /* 2n: (key << 32 | position) records, double-buffered */
    double *v;         /* n */
    int32_t *ids;      /* n */
    int64_t cap;
} sporf_sort_scratch;

int sporf_sort_scratch_init(sporf_sort_scratch *s, int64_t n);
void sporf_sort_scratch_free(sporf_sort_scratch *s);

/* The same as sporf_sort_values (ties in an unspecified but deterministic
 * order), faster: from 64 elements, records (value rounded to float,
 * position) are sorted -- by an LSD radix sort from 384 elements, by a
 * branch-free quicksort below -- and, as rounding is monotone, only values
 * with equal float keys can be out of order afterwards: an insertion pass on
 * the exact doubles fixes those short runs. */
void sporf_sort_values_radix(double *v, int32_t *ids, int64_t n, sporf_sort_scratch *s);

/* Sort n distinct values ascending in place: the records' branch-free
 * quicksort, insertion sort below 17 elements (the sparse sampler's drawn
 * positions: a few dozen per node, where libc's qsort through a callback
 * cost 3-4% of a regression fit). */
void sporf_sort_u64_distinct(uint64_t *a, int64_t n);

/* rows[0..n) reordered by ascending key[rows[i]], ties by row number: one
 * order on every platform (the survival forests' times, the concordance
 * index's risks). Returns 0 when out of memory, rows then unchanged. */
int sporf_order_rows_by_key(const double *key, int64_t *rows, int64_t n);

#endif
