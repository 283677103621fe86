/* The C tests' short forms of the one fit entry point (sporf_forest_fit) and
 * the tuning (sporf_forest_tune_oob), one per kind of response, so a test
 * reads as the fit it makes. Each fills a sporf_fit_data and calls the core. */
#ifndef SPORF_TEST_FIT_CALLS_H
#define SPORF_TEST_FIT_CALLS_H

#include "sporf.h"

/* A classification forest on n class codes y in [0, n_classes). */
static inline int fit_classes(const sporf_params *params, const sporf_matrix *X, const int32_t *y, int32_t n_classes,
                              const double *sample_weight, const double *class_weight, double *oob_decision,
                              int64_t *oob_count, sporf_progress_fn progress, void *user_data, sporf_forest **out,
                              sporf_error *err)
{
    const sporf_fit_data d = {SPORF_RESPONSE_CLASSES, 1, y, &n_classes, NULL, sample_weight, class_weight,
                              NULL, 0, NULL, NULL, NULL, NULL, NULL};
    return sporf_forest_fit(params, X, y ? &d : NULL, oob_decision, oob_count, progress, user_data, out, err);
}

/* A regression forest on n responses y. */
static inline int fit_values(const sporf_params *params, const sporf_matrix *X, const double *y,
                             const double *sample_weight, double *oob_prediction, int64_t *oob_count,
                             sporf_progress_fn progress, void *user_data, sporf_forest **out, sporf_error *err)
{
    const sporf_fit_data d = {SPORF_RESPONSE_VALUES, 1, NULL, NULL, y, sample_weight, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL};
    return sporf_forest_fit(params, X, y ? &d : NULL, oob_prediction, oob_count, progress, user_data, out, err);
}

/* A forest for n x n_outputs class codes y (with their counts) or responses
 * y_regression, row-major. */
static inline int fit_outputs(const sporf_params *params, const sporf_matrix *X, int32_t n_outputs, const int32_t *y,
                              const int32_t *n_classes, const double *y_regression, const double *sample_weight,
                              double *oob_decision, int64_t *oob_count, sporf_progress_fn progress,
                              void *user_data, sporf_forest **out, sporf_error *err)
{
    const sporf_fit_data d = {y ? SPORF_RESPONSE_CLASSES : SPORF_RESPONSE_VALUES, n_outputs, y, n_classes,
                              y_regression, sample_weight, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL};
    return sporf_forest_fit(params, X, &d, oob_decision, oob_count, progress, user_data, out, err);
}

/* An unsupervised forest (URerF). */
static inline int fit_no_response(const sporf_params *params, const sporf_matrix *X, const double *sample_weight,
                                  sporf_progress_fn progress, void *user_data, sporf_forest **out, sporf_error *err)
{
    const sporf_fit_data d = {SPORF_RESPONSE_NONE, 1, NULL, NULL, NULL, sample_weight, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL};
    return sporf_forest_fit(params, X, &d, NULL, NULL, progress, user_data, out, err);
}

/* A fit from X holding the rows `rows` of n_total training rows: class
 * codes y, responses y_regression, or neither. */
static inline int fit_from_rows(const sporf_params *params, const sporf_matrix *X, const int64_t *rows,
                                int64_t n_total, const int32_t *y, int32_t n_classes, const double *y_regression,
                                const double *sample_weight, const double *class_weight, const double *impute,
                                sporf_progress_fn progress, void *user_data, sporf_forest **out, sporf_error *err)
{
    const int32_t kind = y ? SPORF_RESPONSE_CLASSES : y_regression ? SPORF_RESPONSE_VALUES : SPORF_RESPONSE_NONE;
    const sporf_fit_data d = {kind, 1, y, y ? &n_classes : NULL, y_regression, sample_weight, class_weight,
                              rows, n_total, impute, NULL, NULL, NULL, NULL};
    return sporf_forest_fit(params, X, &d, NULL, NULL, progress, user_data, out, err);
}

/* The out-of-bag tuning on class codes y or responses y_regression. */
static inline int tune_response(const sporf_params *params, int32_t grid, const sporf_matrix *X, const int32_t *y,
                                int32_t n_classes, const double *y_regression, const double *sample_weight,
                                const double *class_weight, sporf_tune_result *result, sporf_progress_fn progress,
                                void *user_data, sporf_forest **out, sporf_error *err)
{
    const sporf_fit_data d = {y ? SPORF_RESPONSE_CLASSES : y_regression ? SPORF_RESPONSE_VALUES : SPORF_RESPONSE_NONE,
                              1, y, &n_classes, y_regression, sample_weight, class_weight, NULL, 0, NULL, NULL, NULL, NULL, NULL};
    return sporf_forest_tune_oob(params, grid, X, &d, result, progress, user_data, out, err);
}

/* The out-of-bag tuning on several outputs. */
static inline int tune_outputs(const sporf_params *params, int32_t grid, const sporf_matrix *X, int32_t n_outputs,
                               const int32_t *y, const int32_t *n_classes, const double *y_regression,
                               const double *sample_weight, sporf_tune_result *result, sporf_progress_fn progress,
                               void *user_data, sporf_forest **out, sporf_error *err)
{
    const sporf_fit_data d = {y ? SPORF_RESPONSE_CLASSES : SPORF_RESPONSE_VALUES, n_outputs, y, n_classes,
                              y_regression, sample_weight, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL};
    return sporf_forest_tune_oob(params, grid, X, &d, result, progress, user_data, out, err);
}

#endif
