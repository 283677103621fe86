/*
 * merge.h -- joining shards (forests grown apart on tree ranges of one seed)
 * into one forest.
 */
#ifndef SPORF_MERGE_H
#define SPORF_MERGE_H

#include "model/model.h"

/* The trees of forests[0..n_forests) in tree-range order, checked to be
 * shards of one fit (merge.c), as a new forest *out without its prediction
 * layout (the API's sporf_forest_merge builds that). */
int sporf_model_merge(const sporf_forest *const *forests, int64_t n_forests, sporf_forest **out, sporf_error *err);

#endif
