/*
 * guided.h -- guided projections: the node's best single features, combined.
 *
 * Sparse random projections rarely put two useful features of a noisy,
 * high-dimensional problem in one candidate: with d = sqrt(p) candidates of
 * 1.5 non-zeros each, a projection of two given features is drawn about once
 * in p nodes. The node's single-feature candidates (the sparse draw's
 * one-feature columns and the `axis_features` search) already measure how well
 * each feature splits the node. A guided projection takes the best m of them
 * and weights each by its marginal slope on the node,
 *
 *     w_j = cov(x_j, t) / var(x_j),
 *
 * where t is the task's target (task.h guide_target): the response in
 * regression, the class contrast of the best single-feature split in
 * classification, the side of that split for unsupervised forests. For two
 * classes this is the diagonal linear discriminant of the m features (LDA with
 * the covariance's off-diagonal set to zero); in regression, the sum of the
 * univariate least-squares fits. One candidate per prefix length m = 2, 4, 8,
 * ... (up to `guided_features`) lets the split search choose how
 * many features to combine. benchmarks/notes/suite.md ("Accuracy out of the box") has the
 * measurements that chose this form.
 */
#ifndef SPORF_GUIDED_H
#define SPORF_GUIDED_H

#include "fit/rows.h"
#include "fit/task.h"

#define SPORF_GUIDED_MAX 64

/* One single-feature candidate's best cut: rows with sign * x[feature] <=
 * threshold go left, and rows missing the feature when missing_left; proxy
 * is the task's score of the cut. */
typedef struct sporf_ranked_feature {
    int32_t feature;
    double sign;
    double threshold;
    int missing_left;
    double proxy;
} sporf_ranked_feature;

/* The best `cap` single-feature candidates of a node, best first. */
typedef struct sporf_feature_rank {
    int32_t cap, n;
    sporf_ranked_feature item[SPORF_GUIDED_MAX];
} sporf_feature_rank;

/* Start a node's ranking keeping the best cap (<= SPORF_GUIDED_MAX) features. */
void sporf_rank_clear(sporf_feature_rank *r, int32_t cap);

/* Offer a single-feature candidate's best cut; a feature offered twice keeps
 * its better cut. Ties keep the earlier offer, so the ranking depends only on
 * the order of the draws. */
void sporf_rank_offer(sporf_feature_rank *r, int32_t feature, double sign, double threshold, int missing_left,
                      double proxy);

/* Slopes w[0..m) of the ranking r's first m features on the node's rows
 * rows->idx[start..end), against the target the task (its state ts) gives
 * them; target and wn are scratch for end - start values each. A feature
 * whose slope is zero or not finite gets 0 (the caller leaves it out). With
 * missing values in the data, each slope is fitted on the rows that have
 * its feature. */
void sporf_guided_slopes(const sporf_task *task, sporf_task_state *ts, const sporf_rows *rows, double *target,
                         double *wn, int64_t start, int64_t end, const sporf_feature_rank *r, int32_t m, double *w);

#endif
