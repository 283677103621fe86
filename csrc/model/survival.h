/*
 * survival.h -- what a survival forest's leaves mean (SPORF_TASK_SURVIVAL).
 *
 * A survival forest keeps its training times in ascending order with their
 * event flags and sample weights (the forest's qrf_y, qrf_event, qrf_w: the
 * arrays quantile forests keep, plus the flags), and each leaf its training
 * rows as ranks into them (tree leaf_start / leaf_rank), a row repeated as
 * often as the bootstrap drew it. A leaf's hazard steps follow from its rows
 * alone: at each distinct time s at which a row of the leaf had its event,
 * h(s) = d / Y, d the weight of the leaf's rows with an event at s and Y the
 * weight of its rows still at risk (time >= s). The Nelson-Aalen cumulative
 * hazard is H(t) = sum of h(s) for s <= t, the Kaplan-Meier survival S(t) =
 * product of (1 - h(s)) for s <= t. A leaf's stored value is its risk, H
 * summed over the forest's distinct event times (the expected number of
 * events; randomForestSRC's and scikit-survival's risk score), so a forest's
 * risk is the mean of its trees' leaf values, as a regression forest's
 * prediction is.
 */
#ifndef SPORF_SURVIVAL_H
#define SPORF_SURVIVAL_H

#include "model/model.h"

/* Is f a survival forest (leaf values are risks, leaves keep their rows)? */
static inline int sporf_forest_is_survival(const sporf_forest *f) { return f->task == SPORF_TASK_SURVIVAL; }

/* The hazard steps of the leaf whose rows are ranks[0..m) (ascending, into
 * f's times): the distinct event times into time[] and their d / Y into h[]
 * (room for m each); returns how many. */
int64_t sporf_surv_leaf_steps(const sporf_forest *f, const int32_t *ranks, int64_t m, double *time, double *h);

/* The forest's distinct event times, ascending, into out (room for qrf_n);
 * returns how many. */
int64_t sporf_surv_event_times(const sporf_forest *f, double *out);

/* The risk of k hazard steps (time ascending): sum over the E event times
 * (ascending) of the cumulative hazard there, = sum of h[s] times the event
 * times at or after time[s]. */
double sporf_surv_steps_risk(const double *time, const double *h, int64_t k, const double *event_times, int64_t E);

/* The times at which the leaf-size choice scores survival curves
 * (fit/leaf_choice.h): the 10%, 20%, ..., 90% quantiles of the n rows' event
 * times (time[i] where event[i] is 1), ascending, into grid (room for
 * SPORF_SURV_GRID); returns how many (0 without events), or -1 when out of
 * memory. The builder and the scoring compute it alike. */
#define SPORF_SURV_GRID 9
int32_t sporf_surv_grid(const double *time, const int32_t *event, int64_t n, double *grid);

/* Every leaf value of tree (whose leaf rows are set) its risk: for a leaf
 * without rows NaN in an honest tree (a leaf that received no estimation row
 * abstains) and all_risk in another (the root of a tree whose every draw
 * weighed 0); the tree's prior (honest trees) the risk of every training
 * row's steps, all_risk. scratch: 2 x (the largest leaf's rows) doubles. */
void sporf_surv_tree_values(sporf_tree *tree, const sporf_forest *f, const double *event_times, int64_t E,
                            double all_risk, double *scratch);

#endif
