/* sizes.c -- see sizes.h. */
#include "fit/sizes.h"

#include "model/params.h"
#include "util/pool.h"

#include <string.h>

void sporf_fit_sizes_resolve(const sporf_params *params, int64_t n_rows, int64_t p, sporf_fit_sizes *s)
{
    memset(s, 0, sizeof *s);
    s->n_rows = n_rows;
    s->n_trees = sporf_params_n_trees(params);
    s->n_threads = sporf_pool_threads(params->n_jobs, s->n_trees);
    s->n_draws = sporf_resolve_draws(params, n_rows);
    s->n_candidates = sporf_params_resolve_max_features(params, p);
    s->n_axis_extra = sporf_params_resolve_axis_features(params, p);
    s->n_guided = params->projection == SPORF_PROJ_AXIS ? 0 : (int32_t)params->guided_features;
    s->min_split_rows = sporf_resolve_min_samples_split(params, n_rows);
    s->min_leaf_rows = sporf_resolve_min_samples_leaf(params, n_rows);
    s->leaf_auto = sporf_params_leaf_auto(params);
    s->leaf_grown = s->leaf_auto ? sporf_params_leaf_auto_grown(n_rows) : s->min_leaf_rows;
}
