/*
 * predict.h -- prediction helpers the fit layer calls (the out-of-bag pass).
 */
#ifndef SPORF_PREDICT_H
#define SPORF_PREDICT_H

#include "model/model.h"

/* The rows X a call on f reads, as the calls that walk the stored trees
 * check them once: f's width, no infinity (named by its row and column in
 * X), and no missing value when f's splits learned no missing direction. */
int sporf_check_query(const sporf_forest *f, const sporf_matrix *X, sporf_error *err);

/* Out-of-bag class probabilities: inbag is n_trees bitmaps of n bits. */
int sporf_forest_oob(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag,
                     int32_t n_threads, double *out, int64_t *count, sporf_error *err);

/* The out-of-bag error of the first t + 1 trees, for each t (sporf.h,
 * sporf_forest_oob_curve): inbag as above, y the class codes or yr the
 * responses; curve n_trees values; class_curve (classification, or NULL)
 * n_trees x n_classes, each class's error rate over its rows. One thread. */
int sporf_forest_oob_error_curve(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag,
                                 const int32_t *y, const double *yr, double *curve, double *class_curve,
                                 sporf_error *err);

/* Out-of-bag permutation importance (sporf.h,
 * sporf_forest_permutation_importance): inbag as above, y the class codes or
 * yr the responses; mean_out and std_out (std_out may be NULL) p values each.
 * Threaded over trees; the same result for any n_threads. */
int sporf_forest_oob_permutation(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag,
                                 const int32_t *y, const double *yr, int32_t n_threads,
                                 sporf_progress_fn progress, void *user_data, double *mean_out, double *std_out,
                                 sporf_error *err);

/* Conditional quantiles of a quantile regression forest (sporf.h,
 * sporf_forest_predict_quantiles): with inbag (n_trees bitmaps of X's rows,
 * X the training data) only the trees a row was out of bag for count, and a
 * row in every tree's bag gets NaN. */
int sporf_forest_quantiles(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag, const double *probs,
                           int64_t n_probs, int32_t n_jobs, double *out, sporf_error *err);

/* The conformity scores of calibrated intervals (sporf.h,
 * sporf_forest_interval_scores) of X's rows with responses y: with inbag as
 * above, out of bag (NaN for a row in every tree's bag). */
int sporf_forest_quantile_scores(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag, const double *y,
                                 int32_t n_jobs, double *scores, sporf_error *err);

/* Survival or cumulative hazard curves of a survival forest (sporf.h,
 * sporf_forest_predict_survival): with inbag as for quantiles, only the
 * trees a row was out of bag for count, and a row in every tree's bag gets
 * NaN. */
int sporf_forest_survival(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag, const double *times,
                          int64_t n_times, int32_t what, int32_t n_jobs, double *out, sporf_error *err);

/* Each row's survival just before and at its own time row_times[i] (out:
 * X's rows x 2), with inbag as above: what its conformity score reads. */
int sporf_forest_survival_own_times(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag,
                                    const double *row_times, int32_t n_jobs, double *out, sporf_error *err);

/* Each row's times at which its survival curve reaches F = 1 - S >= levels[0]
 * and >= levels[1] (out: X's rows x 2): 0 for a level of 0; past the last
 * event time, the last event time for the first and infinity for the second. */
int sporf_forest_survival_crossings(const sporf_forest *f, const sporf_matrix *X, const double *levels,
                                    int32_t n_jobs, double *out, sporf_error *err);

/* The conformity scores and weights of survival intervals (sporf.h,
 * sporf_forest_survival_interval_scores) of X's rows, with inbag as above. */
int sporf_forest_survival_scores(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag,
                                 const double *times, const int32_t *events, int32_t n_jobs, double *scores,
                                 double *weights, sporf_error *err);

#endif
