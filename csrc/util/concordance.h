/*
 * concordance.h -- Harrell's concordance index of risk scores against
 * right-censored times (sporf.h, sporf_concordance_index): a survival
 * forest's score, out-of-bag score, leaf-size choice and permutation
 * importance all count pairs this one way.
 */
#ifndef SPORF_CONCORDANCE_H
#define SPORF_CONCORDANCE_H

#include <stdint.h>

/* The pairs of n rows (time[i], event[i] 0/1, risk[i]) whose order the
 * risks can be judged on, and how many of them they judge right: row i with
 * an event and row j with a later time, or with the same time and no event,
 * are comparable; the pair is concordant when risk[i] > risk[j], and counts
 * one half when the risks are equal (scikit-survival's
 * concordance_index_censored with exact ties). Rows with a NaN risk are
 * left out. C = (*concordant + *tied / 2) / *comparable. rows: scratch of n
 * int64, ranks: scratch of n int64, tree: scratch of n + 1 int64. */
void sporf_concordance_counts(const double *time, const int32_t *event, const double *risk, int64_t n,
                              int64_t *rows, int64_t *ranks, int64_t *tree, double *concordant, double *tied,
                              double *comparable);

/* The same with its own scratch: C, or NaN when no pair is comparable (or
 * memory runs out: *oom is then set to 1, when oom is not NULL). */
double sporf_concordance(const double *time, const int32_t *event, const double *risk, int64_t n, int *oom);

#endif
