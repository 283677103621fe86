/*
 * model.h -- what a fitted forest is inside the core: its stored trees, its
 * strings and weights, and the derived prediction layout it owns. Every layer
 * above util reads these types; the model layer (this folder) allocates,
 * frees, saves, loads, merges and inspects them. Nothing here is visible to
 * the bindings; sporf.h is the public surface.
 */
#ifndef SPORF_MODEL_H
#define SPORF_MODEL_H

#include "include/sporf.h"
#include "util/error.h"
#include "util/matrix.h"

/* A node of a grown tree. Children always come after their parent in the
 * node array (trees are grown depth-first), which the loader relies on to
 * rule out cycles. */
typedef struct sporf_node {
    int32_t left;        /* index of the left child, or -1 for a leaf            */
    int32_t right;       /* index of the right child; for a leaf, its leaf slot  */
    int32_t proj_start;  /* first entry of this split's projection               */
    int32_t proj_len;    /* number of non-zeros (0 for a leaf)                   */
    int32_t missing;     /* where a row whose projection is missing (a feature of the
                            split is NaN) goes: SPORF_MISSING_* (builder.c learns it) */
    double threshold;    /* go left when the projection is <= threshold          */
    double gain;         /* weighted impurity decrease W_t*i_t - W_l*i_l - W_r*i_r */
} sporf_node;

/* Where a split sends a row whose projection is missing: to the right or
 * left child, or by its projection with each missing feature at its
 * training mean (the forest's impute values). Learned where the split saw
 * missing rows; a split that saw none sends them to the child that held more
 * training weight. */
#define SPORF_MISSING_RIGHT 0
#define SPORF_MISSING_LEFT 1
#define SPORF_MISSING_IMPUTE 2

/* The node as prediction reads it: 16 bytes, so a tree's hot nodes take
 * half the cache of the stored nodes; see traverse.h and packed.h. A split
 * that needs more than one feature, or that names its near child
 * explicitly, is followed by an extension slot (u.ext, and head = the near
 * child when explicit); a wide split (4-5 features) by a second one (u.ext:
 * its 4th and 5th features, head: the coefficients' codes); a general split
 * of at most SPORF_PN_INLINE_TERMS features by a slot per feature (head: the
 * feature, u.threshold: its weight; traverse.h). */
typedef struct sporf_pnode {
    union {
        double threshold;     /* a split's; a leaf's value in a forest of one value per leaf
                                 (n_classes == 1: read there, not from leaf_values) */
        struct {
            int32_t slot;     /* a leaf's row of leaf_values (forests of several values per leaf) */
            int32_t onehot;   /* the class of a one-hot leaf, or -1: read leaf_values */
        } leaf;
        struct {
            int32_t f1, f2;   /* extension slot: 2nd and 3rd feature (0 when absent), or for a
                                 general split the side-buffer start (-1: its terms
                                 follow inline) and count */
        } ext;
    } u;
    uint32_t head;   /* kind << 28 | first feature; 0 for a leaf */
    uint32_t link;   /* split: near child is right << 31 | near child explicit << 30 | far child;
                        leaf: its index in its tree's stored nodes (what apply returns) */
} sporf_pnode;

#define SPORF_PN_KIND_SHIFT 28
#define SPORF_PN_FEATURE_MASK 0x0FFFFFFFu /* features < 2^28 */
#define SPORF_PN_NEAR_RIGHT 0x80000000u
#define SPORF_PN_EXPLICIT 0x40000000u
#define SPORF_PN_FAR_MASK 0x3FFFFFFFu     /* slots of a bin < 2^30 */
/* Limits those fields put on fitted and loaded forests (SPORF_MAX_FEATURES,
 * util/matrix.h, is the feature field's). */
/* a tree's slots (at most 3 per node, traverse.h) must fit the far-child field */
#define SPORF_MAX_TREE_NODES ((int32_t)(SPORF_PN_FAR_MASK / 3))

/* A leaf's row of leaf_values: only in the layout of several values per leaf
 * (in a forest of one value per leaf, u.threshold is the value itself). */
static inline int32_t sporf_pnode_leaf_slot(const sporf_pnode *nd) { return nd->u.leaf.slot; }
/* A leaf's index in its tree's stored nodes. */
static inline int32_t sporf_pnode_leaf_node(const sporf_pnode *nd) { return (int32_t)nd->link; }

typedef struct sporf_tree {
    int32_t n_nodes;
    int32_t n_leaves;
    int32_t n_proj;        /* total non-zeros over split nodes */
    int32_t depth;         /* depth of the deepest leaf (root = 0) */
    sporf_node *nodes;
    int32_t *proj_feature; /* n_proj feature indices */
    double *proj_weight;   /* n_proj weights */
    double *leaf_values;   /* n_leaves x n_classes: class distributions (rows sum to 1) or
                              regression means; NaN rows: honest leaves that abstain */
    double *prior;         /* honest trees: n_classes values (the estimation sample's class
                              distribution or mean); NULL otherwise */
    int32_t *leaf_start;   /* quantile forests (params.quantiles): n_leaves + 1 offsets into
                              leaf_rank; NULL otherwise */
    int32_t *leaf_rank;    /* quantile forests: each leaf's training rows as ranks into the
                              forest's qrf_y, ascending, a row repeated as often as the
                              bootstrap drew it (leaf_start[n_leaves] entries) */
    sporf_pnode *pnodes;   /* derived, in tests only: see sporf_tree_prepare; prediction
                              reads the forest's packed layout */
    /* A fit that chooses its leaf size (min_samples_leaf "auto", fit/leaf_choice.h)
     * keeps, until it prunes the tree, what every node would predict as a leaf;
     * NULL otherwise (never saved): */
    int32_t *node_rows;    /* n_nodes: the tree's rows in each node */
    double *node_values;   /* n_nodes x node_width: each node's values as a leaf (n_classes
                              of them) and, for survival, its curve (fit/task.h node_value) */
    int32_t node_width;
} sporf_tree;

/* A forest whose leaf size is "auto" and not yet chosen (fit/leaf_choice.h):
 * a shard's (sporf_fit_data.shard) or trees grown from a sample of the rows.
 * Its trees are grown to the smallest size and keep their nodes' rows and
 * values; with n > 0 it also holds, for every training row, the exact sums
 * (util/exact.h) of its trees' answers at each candidate size over the trees
 * that left the row out, and the response the sizes are scored against. The
 * sums of shards add up (sporf_forest_merge) to the whole forest's, to the
 * bit; the choice and the pruning then follow. */
/* splitter "auto" (fit/leaf_choice.h): the forests it chooses among -- all
 * its trees, its best-cut trees alone, its random-cut trees alone -- each
 * scored at every leaf size: SPORF_LEAF_SCORES scores, choice by choice. */
#define SPORF_LEAF_SCORES (SPORF_KIND_CHOICES * SPORF_LEAF_SIZES)
/* The scores, then each one's standard error against all the trees' at the
 * same size (fit/leaf_choice.h sporf_leaf_scores). */
#define SPORF_LEAF_SCORE_WORDS (2 * SPORF_LEAF_SCORES)

typedef struct sporf_leaf_pending {
    int64_t n;             /* training rows; 0 when the sums are not here (trees grown from
                              a sample: sporf_forest_leaf_sums_rows computes them) */
    int32_t first, end;    /* the sizes scored: sporf_leaf_sizes[first .. end) */
    int32_t width;         /* values summed per row and size */
    int32_t scale;         /* the sums' fixed point: value x 2^scale */
    uint64_t *sums;        /* n x (end - first) x width 128-bit integers (lo, hi words) */
    int64_t *count;        /* n: the trees that left each row out */
    /* the response of every row (n of them): */
    int32_t m;             /* responses per row */
    int32_t *codes;        /* classification: n x m class codes, offset into the K values */
    double *values;        /* regression: n x m responses; survival: n times */
    int32_t *events;       /* survival: n event flags (1 = event, 0 = censored) */
    double *sample_weight; /* n weights, or NULL */
} sporf_leaf_pending;

typedef struct sporf_strings {
    char *blob;
    int64_t len;
    int64_t count;
    int32_t kind;
} sporf_strings;

struct sporf_forest {
    sporf_params params;
    int32_t task;          /* SPORF_TASK_* */
    int64_t n_features;
    int32_t n_classes;     /* K: the values of a leaf (multi-output: summed over outputs) */
    int32_t n_outputs;     /* responses per row: 1, or more for multi-output y */
    int32_t *output_classes; /* multi-output: n_outputs counts of each output's values (its
                                classes; 1 for regression), summing to n_classes; NULL
                                for one output */
    int64_t n_trees;
    sporf_tree *trees;
    sporf_strings strings[2];
    double *class_weights; /* n_classes weights when params.class_weight is SPORF_CW_CUSTOM, else NULL */
    int32_t missing_learned; /* 1: every split holds a learned missing-value direction (fitted
                                by this version, or loaded from format >= 8), so rows with NaN
                                can be predicted; 0: a model from an older format */
    double score_threshold; /* isolation forests: the anomaly score above which a row is an
                               outlier (sporf_forest_set_score_threshold; 0.5 until set) */
    uint8_t *note;         /* a binding's opaque note (sporf_forest_set_note), or NULL */
    int64_t note_len;
    double *impute;        /* n_features training means over each feature's present values,
                              read by SPORF_MISSING_IMPUTE splits; NULL when the training data
                              had no missing value */
    int32_t *n_levels;     /* categorical features (sporf_forest_set_levels): n_features level
                              counts (0: numeric), or NULL when none is categorical */
    char *levels;          /* their level names, NUL-terminated, by feature and position */
    int64_t levels_len;
    int64_t qrf_n;         /* quantile and survival forests: the training rows; 0 otherwise */
    double *qrf_y;         /* quantile forests: the qrf_n training responses, ascending (ties
                              in row order): a row's rank is its index here */
    double *qrf_w;         /* quantile forests: the rows' sample weights by rank, or NULL
                              when all are 1 */
    uint8_t *qrf_event;    /* survival forests (model/survival.h): qrf_n event flags by rank
                              (qrf_y then holds the times), 1 = event, 0 = censored; NULL
                              otherwise */
    struct sporf_packed *packed; /* derived prediction layout (packed.h); NULL until packed */
    int leaf_scored;       /* min_samples_leaf "auto": this fit scored the leaf sizes (the size
                              it chose is in params; the scores are not saved) */
    double leaf_scores[SPORF_LEAF_SIZES]; /* the out-of-bag score of each size */
    double kind_scores[SPORF_KIND_CHOICES]; /* splitter "auto": the best score of all the trees, the
                                               best-cut trees alone, the random-cut trees alone */
    int64_t leaf_grown;    /* the leaves the trees grew to before the choice (0 or 1: one row) */
    sporf_leaf_pending *pending; /* min_samples_leaf "auto" not chosen yet (its trees keep their
                                    node_rows and node_values), or NULL */
};

/* The most levels a categorical feature may have. */
#define SPORF_MAX_LEVELS 1000000

/* The longest binding note a forest keeps (sporf_forest_set_note). */
#define SPORF_MAX_NOTE_BYTES ((int64_t)16 << 20)

/* The model format version sporf_forest_save writes (io.c): 14 for a
 * forest whose leaf size is "auto" and not yet chosen (a shard's: its trees'
 * nodes and its out-of-bag sums, sporf_leaf_pending), 13 for a survival
 * forest (12 before min_events_split), 11 for a multi-output forest; the
 * others keep format 10, so their bytes are those of the versions before
 * multi-output y. */
#define SPORF_MODEL_FORMAT_VERSION 15
#define SPORF_MODEL_FORMAT_ISOLATION 15
#define SPORF_MODEL_FORMAT_PENDING 14
#define SPORF_MODEL_FORMAT_SURVIVAL 13
#define SPORF_MODEL_FORMAT_SURVIVAL_FIRST 12
#define SPORF_MODEL_FORMAT_MULTI_OUTPUT 11
#define SPORF_MODEL_FORMAT_SINGLE_OUTPUT 10
static inline int32_t sporf_forest_format(const sporf_forest *f)
{
    if (f->pending)
        return SPORF_MODEL_FORMAT_PENDING;
    if (f->task == SPORF_TASK_SURVIVAL)
        return SPORF_MODEL_FORMAT_SURVIVAL;
    if (f->task == SPORF_TASK_ISOLATION)
        return SPORF_MODEL_FORMAT_ISOLATION;
    return f->n_outputs > 1 ? SPORF_MODEL_FORMAT_MULTI_OUTPUT : SPORF_MODEL_FORMAT_SINGLE_OUTPUT;
}

/* Does the forest keep its leaves' training rows (quantile and survival
 * forests: tree leaf_start / leaf_rank, forest qrf_*)? */
static inline int sporf_forest_keeps_rows(const sporf_forest *f)
{
    return f->params.quantiles || f->task == SPORF_TASK_SURVIVAL;
}

/* Is the criterion a survival forest's? */
static inline int sporf_criterion_survival(int32_t c) { return c == SPORF_CRIT_LOGRANK || c == SPORF_CRIT_LOGRANKSCORE; }

/* Does the forest hold one number per leaf and output (regression,
 * survival, isolation) rather than class distributions or shares
 * (classification, unsupervised)? */
static inline int sporf_task_values(int32_t task)
{
    return task == SPORF_TASK_REGRESSION || task == SPORF_TASK_SURVIVAL || task == SPORF_TASK_ISOLATION;
}

/* The prediction layout (forest packing, predict/packed.h): derived from
 * the stored trees after fit, load and merge, never saved. The forest owns
 * it; predict/packed.c builds it. */
typedef struct sporf_packed {
    int64_t n_bins;
    int64_t *bin_first_tree; /* n_bins + 1 */
    int64_t *bin_offset;     /* n_bins + 1: first node of each bin in nodes */
    int32_t *root;           /* n_trees: each tree's root within its bin */
    int64_t *tree_bin;       /* n_trees: the bin holding each tree */
    int single_only;         /* no split reads more than one feature: a simpler step */
    int32_t max_depth;       /* the deepest leaf's depth over all trees (root 0) */
    sporf_pnode *nodes;
} sporf_packed;

/* Honest trees: structure from part of each tree's rows, leaf values
 * estimated from the rest (honest_fraction > 0); each stores a prior. */
static inline int sporf_params_honest(const sporf_params *p) { return p->honest_fraction > 0.0; }
/* Honest leaves that received no estimation row hold NaN and abstain from
 * the forest's average (honest_prior "ignore"). */
static inline int sporf_params_abstain(const sporf_params *p)
{
    return sporf_params_honest(p) && p->honest_prior == SPORF_HONEST_IGNORE;
}

/* ---- trees and forests (tree.c) ---- */

/* Free a tree's arrays (its pnodes too) and zero it; NULL is a no-op. */
void sporf_tree_release(sporf_tree *tree);

/* Set a tree's sizes and allocate its arrays for n_nodes nodes (zeroed),
 * n_proj projection entries and n_leaves x K leaf values, as the model
 * readers fill them. Returns 1, or 0 when out of memory (what was allocated
 * stays in the tree for sporf_tree_release). */
int sporf_tree_alloc(sporf_tree *tree, int32_t n_nodes, int32_t n_leaves, int32_t n_proj, int32_t K);
/* Free a pending leaf choice's record; NULL is a no-op. */
void sporf_leaf_pending_free(sporf_leaf_pending *p);
/* A zeroed forest, or NULL when out of memory; sporf_forest_free releases it. */
sporf_forest *sporf_forest_alloc(void);
/* Free a prediction layout; NULL is a no-op. */
void sporf_packed_free(sporf_packed *p);
/* Free tree->pnodes (a grown tree keeps only the forest's packed layout). */
void sporf_tree_unprepare(sporf_tree *tree);
/* The class of a leaf whose K values are, bit for bit, one 1.0 and +0.0
 * elsewhere (so adding 1 to that class sums exactly as adding the values),
 * or -1. Used by the prediction layout and the model format. */
int32_t sporf_leaf_onehot_class(const double *lv, int32_t K);

#endif
