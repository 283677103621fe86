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
 * Deterministic: the rows are scored in fixed blocks whose sums join in
 * block order, so the choice is the same for any number of threads.
 */
#ifndef SPORF_LEAF_CHOICE_H
#define SPORF_LEAF_CHOICE_H

#include "model/model.h"

/* The leaf sizes "auto" chooses among, ascending (SPORF_LEAF_SIZES of them). */
extern const int64_t sporf_leaf_sizes[SPORF_LEAF_SIZES];

/* The out-of-bag score of each leaf size of f's trees, which keep their
 * node values (tree node_rows / node_values): scores[j] is the mean over
 * the rows out of bag for at least one tree (weighted by sample_weight,
 * NULL for ones) of the Brier score of the averaged class distribution
 * against class y[i] (times 1 / the class's weight over all rows), or of
 * the squared error of the averaged value against
 * yr[i], or (a survival forest: y the event flags, yr the times) the
 * averaged curve's integrated Brier score -- the trees answering from their
 * nodes of at least
 * sporf_leaf_sizes[j] rows. Several outputs (f->n_outputs): y holds each
 * row's codes offset into the K values and the Brier scores of the outputs
 * add up, or yr each row's responses and their squared errors add up, each
 * times output_weight[o] (NULL for ones). X is the training data (doubles or floats),
 * inbag the trees' in-bag bitmaps (n_trees x ceil(n / 8) bytes); NaN
 * scores when no row is out of bag, and for the sizes f does not choose
 * among (sporf_leaf_sizes_first, _end: set f->leaf_grown first). Threads as
 * sporf_pool_run. */
int sporf_leaf_choice_score(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag, const int32_t *y,
                            const double *yr, const double *output_weight, const double *sample_weight,
                            int32_t n_threads, double *scores, sporf_error *err);

/* The sizes of sporf_leaf_sizes f chooses among, [first, end): from the
 * leaves its trees grew to (f->leaf_grown, sporf_params_leaf_auto_grown) up
 * to 8 rows for a classification forest, 21 for a regression forest. */
int32_t sporf_leaf_sizes_first(const sporf_forest *f);
int32_t sporf_leaf_sizes_end(const sporf_forest *f);

/* The index of the lowest of scores[first..end) (the first on a tie; the
 * smallest size when every score is NaN). */
int32_t sporf_leaf_choice_best(const double *scores, int32_t first, int32_t end);

/* Prune tree (grown with its node values, K values a node) to leaves of at
 * least k rows: a node of fewer rows becomes a leaf with its parent's values,
 * a split whose children both have fewer becomes a leaf with its own, and
 * the rest is kept as it was. Frees the node values either way. */
int sporf_tree_prune(sporf_tree *tree, int32_t K, int64_t k, sporf_error *err);

#endif
