/*
 * builder.h -- growing one tree, classification, regression or unsupervised
 * (the splitter and the depth-first tree builder). One builder per worker
 * thread; its buffers are sized for the full training set and reused from
 * tree to tree.
 */
#ifndef SPORF_BUILDER_H
#define SPORF_BUILDER_H

#include "fit/draft.h"
#include "fit/guided.h"
#include "fit/projection.h"
#include "fit/rows.h"
#include "fit/sizes.h"
#include "fit/task.h"
#include "model/model.h"
#include "util/pool.h"
#include "util/rng.h"

/* One builder: the three parts a tree grows from -- the rows (rows.h), the
 * task's state (task.h), the tree being drawn (draft.h) -- and the split
 * search that ties them: the candidates' sampler, the guided projections'
 * scratch and the best candidate so far. */
typedef struct sporf_builder {
    const sporf_params *params;
    const sporf_task *task;   /* the task's statistics, scans, gain and leaves (task.h) */
    sporf_rows rows;          /* the tree's rows and the node being split's (rows.h) */
    sporf_task_state ts;      /* the task's response and running sums (task.h) */
    sporf_tree_draft draft;   /* the tree being drawn (draft.h) */
    int64_t n_candidates;     /* d */
    int64_t n_axis_extra;     /* axis_features resolved: single features searched besides the d */
    int32_t n_guided;         /* guided_features: longest guided projection (0 = none) */
    int64_t min_split_rows;   /* min_samples_split resolved against the training rows */
    double *scaled_weight;    /* isolation forests with oblique projections: a candidate's
                                 weights over its features' spread in the node (p); else NULL */
    sporf_sampler sampler;
    int hist_node;            /* the node being split is scanned by histogram */
    int hist_stale;           /* its response by position (hist_prepare) is not laid out for
                                 the rows' current order */
    double *guide_target;     /* guided projections: the task's target by node position */
    double *guide_w;          /* guided projections: the rows' weights by node position */
    struct sporf_feature_rank *rank; /* guided projections: the node's best single features */
    double *guided_weight;    /* guided projections: slopes of the ranked features */
    int32_t *best_proj_feature; /* copy of the best candidate (sparse) */
    double *best_proj_weight;
} sporf_builder;

/* A builder for trees on X (its data borrowed, like params, sizes and the
 * response, for the builder's life): sizes are params resolved for the fit
 * (sizes.h), against all the training rows when X holds a sample of them.
 * NaN in X marks a missing value (task.h); has_missing says whether any
 * training row misses a value (the whole data's, when X holds a sample), or
 * is negative to have X scanned for one. */
int sporf_builder_init(sporf_builder *b, const sporf_params *params, const sporf_fit_sizes *sizes,
                       const sporf_columns *X, const sporf_response *response, int has_missing, sporf_error *err);
void sporf_builder_free(sporf_builder *b);

/* Grow a tree on idx[0..n_in_tree) with weights w, drawing from rng, into
 * *tree (which the caller releases with sporf_tree_release). Polls ctl for
 * cancellation (ctl may be NULL). */
int sporf_builder_grow(sporf_builder *b, int64_t n_in_tree, sporf_rng *rng,
                       sporf_pool_ctl *ctl, sporf_tree *tree, sporf_error *err);

/* Honesty: replace the leaf values of a tree grown by this builder with
 * those of the estimation rows est[0..n_est) (weights b->rows.w), and set
 * tree->prior to the estimation rows' class distribution or mean (the
 * structure rows idx[0..n_struct) stand in when there are none). Leaves that
 * receive no estimation row get the prior, 1/K or NaN (params->honest_prior). */
int sporf_builder_estimate_leaves(sporf_builder *b, const int32_t *est, int64_t n_est, int64_t n_struct,
                                  sporf_tree *tree, sporf_error *err);

#endif
