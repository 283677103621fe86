/*
 * builder.h -- growing one tree, classification, regression or unsupervised
 * (the splitter and the depth-first tree builder). One builder per worker
 * thread; its buffers are sized for the full training set and reused from
 * tree to tree.
 */
#ifndef SPORF_BUILDER_H
#define SPORF_BUILDER_H

#include "model/model.h"
#include "util/pool.h"
#include "fit/projection.h"
#include "util/rng.h"
#include "util/sort.h"
#include "fit/histogram.h"
#include "fit/columns.h"

typedef struct sporf_stack_item {
    int64_t start, end;
    int32_t depth;
    int32_t parent;     /* -1 for the root */
    int32_t is_left;
    int32_t compact;    /* b->xnode holds the node's rows by position (builder.c) */
} sporf_stack_item;

/* The response a tree learns, by task. */
typedef struct sporf_response {
    int32_t task;           /* SPORF_TASK_* */
    const int32_t *y;       /* classification: class codes in [0, n_classes); else NULL */
    const double *yr;       /* regression: responses; else NULL */
    int32_t n_classes;      /* classification: K >= 1; otherwise 1 (one value per leaf);
                               multi-output: the values of a leaf, summed over outputs */
    int32_t n_outputs;      /* 1, or the responses per row (multi-output y: y and yr are then
                               n x n_outputs row-major, class codes offset into the K values) */
    const int32_t *output_classes; /* multi-output classification: each output's classes */
    const double *output_weight;   /* multi-output regression: each output's weight in the
                                      summed squared error (task_multioutput.c) */
} sporf_response;

struct sporf_task;

typedef struct sporf_builder {
    const sporf_params *params;
    const struct sporf_task *task; /* the task's statistics, scan, gain and leaves (task.h) */
    sporf_columns X;        /* the data: n x p, column-major, doubles or floats */
    int64_t n, p;
    const int32_t *y;       /* classification: class codes (NULL otherwise) */
    const double *yr;       /* regression: responses (NULL otherwise) */
    int32_t n_classes;      /* 1 unless classification: one value per leaf */
    int32_t n_outputs;      /* responses per row (sporf_response) */
    const int32_t *output_classes; /* multi-output classification: each output's classes */
    const double *output_weight;   /* multi-output regression: each output's weight (sporf_response) */
    int64_t n_candidates;   /* d */
    int64_t n_axis_extra;   /* axis_features resolved: single features searched besides the d */
    int32_t n_guided;       /* guided_features: longest guided projection (0 = none) */
    int64_t min_split_rows, min_leaf_rows; /* min_samples_split and min_samples_leaf resolved against n */
    int has_missing;        /* X holds a NaN (a missing value): projections may be missing */
    const double *impute;   /* p training means of the features (the forest's, set by fit.c) when
                               has_missing: the SPORF_MISSING_IMPUTE option; NULL otherwise */
    double min_weight_leaf; /* per tree: min_weight_fraction_leaf * total weight */
    sporf_histogram hist;   /* histogram scans of large nodes (histogram.h); max_bins 0: none */
    int64_t hist_min_rows;  /* the smallest node scanned by histogram */
    int hist_node;          /* the node being split is scanned by histogram */
    sporf_rng *rng;         /* the tree's stream, for the node being split (find_split) */
    int hist_stale;         /* its response by position (hist_prepare) is not laid out for
                               the rows' current order */

    /* per tree: filled by the caller before sporf_builder_grow */
    double *w;              /* n weights by sample id (0 = not in this tree) */
    int32_t *idx;           /* the tree's sample ids in [0, n_in_tree) */

    /* The node-ordered copy of X (histogram fits on many rows, builder.c):
     * column j of the rows idx[start..end) at xnode + j*xnode_rows + start,
     * moved with every partition of a node of compact_min_rows or more. */
    int64_t compact_min_rows; /* 0: the data is small or wide, no copy */
    double *xnode;          /* xnode_rows x p, allocated by the first tree that uses it */
    float *xnode32;         /* the same for float data (X.f32), instead of xnode */
    int64_t xnode_rows;
    int node_compact;       /* the node being split has its rows in xnode */
    /* With compact_responses (set by sporf_builder_init: one response --
     * classification or regression -- on data of many rows), the copy also
     * holds the rows' weights and responses (class code or value) by
     * position, moved with every split, so the tasks' per-node passes read
     * them in order (sporf_node_wy); NULL otherwise. */
    int compact_responses;
    double *wnode, *ynode;
    unsigned char *side;    /* partition's side of each position (1 = left) */

    /* scratch */
    double *vals;           /* projected values aligned with idx */
    double *vals_best;      /* with vals_best_ok: the best candidate's values of the node being
                               split, aligned with idx (a histogram scan's winner: swapped
                               with vals, so partition need not project it again) */
    int vals_best_ok;
    /* with range_ok: the minimum, maximum and whether a value is NaN of the
     * values project_slice just wrote (taken while gathering them) */
    int range_ok, range_nan;
    double range_lo, range_hi;
    double *xrow;           /* p: a row of float data as doubles (routing rows down a tree) */
    double *wsorted;        /* unsupervised: weights aligned with sorted vals */
    double *node_counts, *left_counts, *right_counts;
    sporf_sampler sampler;
    sporf_sort_scratch sort_scratch;
    int32_t best_feature[1];
    double best_weight[1];
    double *guide_target;   /* guided projections: the task's target by node position */
    double *guide_w;        /* guided projections: the rows' weights by node position */
    struct sporf_feature_rank *rank; /* guided projections: the node's best single features */
    double *guided_weight;  /* guided projections: slopes of the ranked features */
    int32_t *best_proj_feature; /* copy of the best candidate (sparse) */
    double *best_proj_weight;

    /* the tree being grown */
    sporf_node *nodes;
    int64_t nodes_cap;
    int32_t *proj_feature;
    double *proj_weight;
    int64_t proj_cap;
    double *leaf_values;
    int64_t leaf_cap;
    /* keep_nodes (min_samples_leaf "auto", leaf_choice.h): every node's rows
     * and values as a leaf, copied into the tree's node_rows / node_values */
    int keep_nodes;
    int32_t *node_rows;
    int64_t node_rows_cap;
    double *node_values;
    int64_t node_values_cap;
    sporf_stack_item *stack;
    int64_t stack_cap;
} sporf_builder;

/* Value of feature f for the row at position pos of the node being split:
 * from the node-ordered copy when it has the node, else from X. */
static inline double sporf_node_x(const sporf_builder *b, int32_t f, int64_t pos)
{
    if (!b->node_compact)
        return sporf_columns_at(&b->X, f, b->idx[pos]);
    const int64_t at = (int64_t)f * b->xnode_rows + pos;
    return b->xnode32 ? (double)b->xnode32[at] : b->xnode[at];
}

/* The weights and responses of the node being split by position, from
 * start (*wn, *yn: row idx[start + k] at index k), when the node-ordered
 * copy has them: 1, else 0 (read them through idx). */
static inline int sporf_node_wy(const sporf_builder *b, int64_t start, const double **wn, const double **yn)
{
    if (!b->node_compact || !b->wnode)
        return 0;
    *wn = b->wnode + start;
    *yn = b->ynode + start;
    return 1;
}

/* The training rows a builder's data stand for, when X holds a sample of
 * them (a tree's drawn rows, gathered from partitions): counts given as
 * fractions resolve against all n_total rows, and whether any row misses a
 * value is the whole data's, so a tree grows as it would on all the rows. */
typedef struct sporf_sample_of {
    int64_t n_total;
    int has_missing;
} sporf_sample_of;

/* A builder for trees on X (its data borrowed, like params and the
 * response, for the builder's life). NaN in X marks a missing value
 * (task.h). sample: NULL when X holds every training row, else what the
 * rows stand for. */
int sporf_builder_init(sporf_builder *b, const sporf_params *params, const sporf_columns *X,
                       const sporf_response *response, const sporf_sample_of *sample, sporf_error *err);
void sporf_builder_free(sporf_builder *b);

/* Grow a tree on idx[0..n_in_tree) with weights w, drawing from rng, into
 * *tree (which the caller releases with sporf_tree_release). Polls ctl for
 * cancellation (ctl may be NULL). */
int sporf_builder_grow(sporf_builder *b, int64_t n_in_tree, sporf_rng *rng,
                       sporf_pool_ctl *ctl, sporf_tree *tree, sporf_error *err);

/* Honesty: replace the leaf values of a tree grown by this builder with
 * those of the estimation rows est[0..n_est) (weights b->w), and set
 * tree->prior to the estimation rows' class distribution or mean (the
 * structure rows idx[0..n_struct) stand in when there are none). Leaves that
 * receive no estimation row get the prior, 1/K or NaN (params->honest_prior). */
int sporf_builder_estimate_leaves(sporf_builder *b, const int32_t *est, int64_t n_est, int64_t n_struct,
                                  sporf_tree *tree, sporf_error *err);

#endif
