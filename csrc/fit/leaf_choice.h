/*
 * leaf_choice.h -- min_samples_leaf "auto": the leaf size chosen out of bag,
 * from one fit.
 *
 * No fixed leaf size suits every data set: fully grown trees win on small,
 * nearly noiseless data, leaves of several rows on noisy responses, where
 * they average the noise away (benchmarks/notes/defaults.md). A fit with "auto" grows its
 * trees to leaves of one row and keeps, for every node, its rows and the
 * value it would predict as a leaf (builder.h keep_nodes). A tree then
 * answers a row at leaf size k from the deepest node on the row's path that
 * holds at least k of the tree's rows -- its leaves of k rows, grown once.
 * The out-of-bag rows score the sizes with a proper score: accuracy would
 * count a row right or wrong and, on a few hundred rows, be noisier than the
 * differences it decides (benchmarks/notes/defaults.md). Regression forests score the sizes
 * 1 to 21 by the squared error of the values. On more than 5,000 rows the
 * trees grow to leaves of 2 rows, and 1 is not among the sizes
 * (sporf_params_leaf_auto_grown says why). Classification forests score
 * 1 to 8 by the Brier score of the class probabilities with every class
 * weighing alike (each row 1 / its class's rows): the plain Brier score
 * rewards the smooth probabilities of large leaves, which on unbalanced,
 * noisy classes predict the common class everywhere (kappa 0.06 where leaves
 * of 3 rows scored 0.31); weighted by class, and without 13 and 21, the
 * choice ranked first among the leaf rules on the suite. Survival forests
 * score 1 to 21 by the integrated Brier score of their curves: each kept node
 * holds its risk and its Kaplan-Meier survival at nine quantiles of the
 * training event times (task.h node_value), scored with inverse-probability-
 * of-censoring weights (benchmarks/notes/survival.md says why it is not their
 * default). The best size wins
 * (the smaller one on a tie), and every tree is pruned to it, so the forest
 * stored is the forest of that size, smaller and faster to walk than the one
 * grown.
 *
 * A forest of splitter "auto" grows both kinds of trees, as "mixed" does
 * (best cuts on the bootstrap's rows, random cuts on subsamples of 0.8 of
 * them, alternating), and chooses with the leaf size which of its kinds to
 * keep: all its trees, the best-cut trees alone or the random-cut trees
 * alone, each at every size. Its sums hold each kind's sums and sums of
 * squares apart, so each candidate is scored, without bias, at the number
 * of trees it would keep (kinds_block_loss says how): a kind alone is kept
 * only when it beats both kinds together at half the trees. The trees of a
 * kind not kept are dropped, and the forest numbers its trees in the kind it
 * kept (model/params.h SPORF_SPLITTER_CHOSE_*).
 *
 * The choice is a step of its own, on sums that add up from anywhere: a
 * row's answer at each size is the sum of its out-of-bag trees' node values,
 * kept as exact integers (util/exact.h), so the sums of any set of trees (a
 * shard, a cluster task) add up to the whole forest's to the bit, and any
 * set of rows (a partition) gives its rows' sums. A shard (sporf_fit_data
 * .shard) keeps its sums and its trees' nodes (model.h sporf_leaf_pending)
 * instead of choosing; sporf_forest_merge adds the shards' sums and chooses;
 * trees grown from a sample of the rows keep only their nodes, and each
 * partition then gives its rows' sums (sporf_forest_leaf_sums_rows). The
 * rows' losses are summed in blocks of a fixed number of rows, in row order,
 * so the scores are the same bits for any thread count and any path.
 */
#ifndef SPORF_LEAF_CHOICE_H
#define SPORF_LEAF_CHOICE_H

#include "model/model.h"

/* The leaf sizes "auto" chooses among, ascending (SPORF_LEAF_SIZES of them). */
extern const int64_t sporf_leaf_sizes[SPORF_LEAF_SIZES];

/* The sizes of sporf_leaf_sizes f chooses among, [first, end): from the
 * leaves its trees grew to (f->leaf_grown, sporf_params_leaf_auto_grown) up
 * to 8 rows for a classification forest, 21 for a regression forest. */
int32_t sporf_leaf_sizes_first(const sporf_forest *f);
int32_t sporf_leaf_sizes_end(const sporf_forest *f);

/* The values a row's sums hold per size: the K leaf values (classification,
 * regression), or a survival node's curve at the grid's times. */
int32_t sporf_leaf_sums_width(const sporf_forest *f);

/* Does f choose among its kinds of trees too (splitter "auto", not yet
 * chosen)? */
int sporf_leaf_chooses_kinds(const sporf_forest *f);

/* The sums' words (128-bit integers) of a row per size: the values
 * (sporf_leaf_sums_width), or for a forest choosing its kinds 4 x values + 1:
 * the best-cut trees' sums and sums of squares, the random-cut trees', and
 * the number of random-cut trees that left the row out. */
int32_t sporf_leaf_record_width(const sporf_forest *f);

/* The sums' fixed point for f's task: 2^scale times a value stays below
 * 2^96 -- values in [0, 1] for classes and curves; for regression, up to
 * response_max, the largest |response| of the training rows. */
int32_t sporf_leaf_sums_scale(const sporf_forest *f, double response_max);

/* The largest |value| of n x m responses (0 for NULL). */
double sporf_leaf_response_max(const double *values, int64_t n);

/* The out-of-bag sums of X's rows (rows of the training data, in their
 * order) over f's trees, which keep their node values: inbag the trees'
 * in-bag bitmaps of these rows (n_trees x ceil(nrow / 8) bytes); sums
 * (nrow x (end - first) x width 128-bit integers, 2 words each) and count
 * (nrow) are written. f->leaf_grown must be set. Threads as sporf_pool_run. */
int sporf_leaf_sums(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag, int32_t scale,
                    int32_t n_threads, uint64_t *sums, int64_t *count, sporf_error *err);

/* The out-of-bag score of each leaf size (scores: SPORF_LEAF_SCORE_WORDS, the
 * first SPORF_LEAF_SIZES those of the forest's trees as grown; then, for a
 * forest choosing its kinds, those of its best-cut and its random-cut trees
 * alone; then each score's standard error against all the trees' at the same
 * size; NaN for the sizes and choices not chosen among): the mean over the rows out of bag for at
 * least one tree (weighted by the sample weights) of the Brier score of the
 * averaged class distribution against the row's class (times 1 / the
 * class's weight over all rows), of the squared error of the averaged values
 * (each output's times its weight, sporf_output_weights), or of the averaged
 * survival curve's integrated Brier score (inverse-probability-of-censoring
 * weights) -- the trees answering from their nodes of at least that many
 * rows. p holds every row's response and, when p->sums is set, its sums;
 * otherwise they are computed here from X (the training rows) and inbag, a
 * block of rows at a time, with the same bits. Threads as sporf_pool_run. */
int sporf_leaf_scores(const sporf_forest *f, const sporf_leaf_pending *p, const sporf_matrix *X,
                      const uint8_t *inbag, int32_t n_threads, double *scores, sporf_error *err);

/* The index of the lowest of scores[first..end) (the first on a tie; the
 * smallest size when every score is NaN). */
int32_t sporf_leaf_choice_best(const double *scores, int32_t first, int32_t end);

/* The choice made: the best of scores (SPORF_LEAF_SCORE_WORDS; on a tie
 * the earlier: the smaller size; a kind alone only when it beats all the
 * trees by more than the standard error of the difference), every tree of f
 * (grown with its node values) pruned to it (a quantile or survival forest's
 * leaves keep the rows of the leaves they join), the trees of a kind not
 * kept dropped, the size and the kinds kept in f's parameters and the scores
 * with the forest; f->pending is released. */
int sporf_leaf_choose(sporf_forest *f, const double *scores, sporf_error *err);

/* The choice of a forest whose pending record holds every row's sums
 * (f->pending->n > 0: merged shards): scored from them, chosen, pruned. The
 * caller rebuilds the prediction layout. */
int sporf_leaf_choose_pending(sporf_forest *f, int32_t n_threads, sporf_error *err);

/* Every tree of f pruned to leaves of k rows (trees without node values are
 * left as they are, grown to k already), and k recorded as the size "auto"
 * chose: trees added to the forest later are pruned alike. */
int sporf_leaf_prune_forest(sporf_forest *f, int64_t k, sporf_error *err);

#endif
