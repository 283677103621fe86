/* builder.c -- see builder.h. */
#include "fit/builder.h"

#include "model/params.h"
#include "util/sort.h"
#include "fit/task.h"
#include "fit/guided.h"
#include "predict/traverse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Does X hold a NaN (a missing value)? */
static int any_missing(const sporf_columns *X)
{
    for (int64_t j = 0; j < X->p; j++)
        for (int64_t i = 0; i < X->n; i++)
            if (sporf_is_missing(sporf_columns_at(X, j, i)))
                return 1;
    return 0;
}

/* The table of a SPORF_TASK_* code and number of outputs: the builder is the
 * one file that knows every task (each task's file stands below it). */
static const sporf_task *task_for(int32_t task, int32_t n_outputs)
{
    switch (task) {
    case SPORF_TASK_REGRESSION: return n_outputs > 1 ? &sporf_task_multi_regression : &sporf_task_regression;
    case SPORF_TASK_UNSUPERVISED: return &sporf_task_unsupervised;
    case SPORF_TASK_SURVIVAL: return &sporf_task_survival;
    case SPORF_TASK_ISOLATION: return &sporf_task_isolation;
    default: return n_outputs > 1 ? &sporf_task_multi_classification : &sporf_task_classification;
    }
}

int sporf_builder_init(sporf_builder *b, const sporf_params *params, const sporf_fit_sizes *sizes,
                       const sporf_columns *X, const sporf_response *response, int has_missing, sporf_error *err)
{
    memset(b, 0, sizeof *b);
    const int64_t n = X->n, p = X->p;
    b->params = params;
    b->task = task_for(response->task, response->n_outputs);
    b->n_candidates = sizes->n_candidates;
    b->min_split_rows = sizes->min_split_rows;
    b->n_axis_extra = sizes->n_axis_extra;
    b->n_guided = sizes->n_guided;
    int rc = sporf_sampler_init(&b->sampler, params, p, b->n_candidates, err);
    if (rc != SPORF_OK)
        return rc;
    if (has_missing < 0)
        has_missing = any_missing(X);
    int ok = sporf_rows_init(&b->rows, X, has_missing);
    /* Histograms need the task's bin statistics and complete data (the
     * exact scan places missing rows, histogram.h). The random splitter's
     * scans need the statistics only: a candidate with a missing value is
     * scanned exactly. */
    const int32_t hist_width = b->task->hist_width(response->n_classes);
    const int random = hist_width > 0 && sporf_params_tree_random(params, 0); /* params: one kind's */
    const int32_t max_bins = hist_width > 0 && !has_missing ? (int32_t)params->max_bins : 0;
    ok = ok && sporf_task_state_init(&b->ts, b->task, params, response, n, sizes->min_leaf_rows, max_bins, random);
    if (ok && max_bins > 0) {
        /* Values read per row of a node: the candidates' non-zeros (at least
         * one each), the extra single features, the guided features (target
         * and slopes). The copy keeps the rows' weights and responses too
         * when there is one response (not several outputs, not none): its
         * tasks read it by position. */
        const int64_t nnz = b->sampler.nnz > b->n_candidates ? b->sampler.nnz : b->n_candidates;
        const int64_t reads = nnz + b->n_axis_extra + 2 * (int64_t)b->n_guided;
        /* (a survival forest's response, its residuals, changes from node to node) */
        sporf_rows_plan_copy(&b->rows, reads,
                             b->ts.n_outputs == 1 && (b->ts.y || b->ts.yr) && response->task != SPORF_TASK_SURVIVAL);
    }
    if (b->n_axis_extra > 0)
        ok = ok && sporf_sampler_enable_axis(&b->sampler);
    if (b->n_guided > 0) {
        b->guide_target = malloc((size_t)n * sizeof *b->guide_target);
        b->guide_w = malloc((size_t)n * sizeof *b->guide_w);
        b->rank = malloc(sizeof *b->rank);
        b->guided_weight = malloc(SPORF_GUIDED_MAX * sizeof *b->guided_weight);
        ok = ok && b->guide_target && b->guide_w && b->rank && b->guided_weight;
    }
    int64_t nnz = b->sampler.nnz > 0 ? b->sampler.nnz : 1;
    if (nnz < b->n_guided)
        nnz = b->n_guided; /* a guided projection has up to n_guided non-zeros */
    b->best_proj_feature = malloc((size_t)nnz * sizeof(int32_t));
    b->best_proj_weight = malloc((size_t)nnz * sizeof(double));
    if (b->task->first_cut_wins && params->projection != SPORF_PROJ_AXIS) {
        b->scaled_weight = malloc((size_t)(p > 0 ? p : 1) * sizeof *b->scaled_weight);
        ok = ok && b->scaled_weight;
        if (params->projection == SPORF_PROJ_SPARSE || params->projection == SPORF_PROJ_GAUSSIAN)
            ok = ok && sporf_sampler_enable_columns(&b->sampler); /* candidates one at a time (find_split) */
    }
    if (!ok || !b->best_proj_feature || !b->best_proj_weight) {
        sporf_builder_free(b);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory allocating tree-building buffers for %lld rows",
                               (long long)n);
    }
    return SPORF_OK;
}

void sporf_builder_free(sporf_builder *b)
{
    sporf_sampler_free(&b->sampler);
    sporf_rows_free(&b->rows);
    sporf_task_state_free(&b->ts);
    sporf_draft_free(&b->draft);
    free(b->best_proj_feature);
    free(b->best_proj_weight);
    free(b->guide_target);
    free(b->guide_w);
    free(b->rank);
    free(b->guided_weight);
    free(b->scaled_weight);
    memset(b, 0, sizeof *b);
}

/* The third option for a candidate's missing rows, after the two sides the
 * task's scan tried: their projection with the missing features at their
 * training means, cut among the other rows'. Imputing the means is what wins
 * when values are missing at random (a row keeps what its other features
 * say); a learned side wins when missingness itself carries information
 * (benchmarks/notes/missing.md): the scan picks per split. Replaces
 * *local when better. */
static void try_imputed(sporf_builder *b, const int32_t *f, const double *w, int32_t len, int64_t start,
                        int64_t end, const sporf_node_stats *st, sporf_best_split *local)
{
    sporf_rows_project_imputed(&b->rows, f, w, len, start, end);
    sporf_sort_values_radix(b->rows.vals + start, b->rows.idx + start, end - start, &b->rows.sort_scratch);
    if (!(b->rows.vals[end - 1] > b->rows.vals[start]))
        return;
    sporf_best_split imp = *local;
    if (b->task->scan(&b->ts, &b->rows, start, end, 0, st, &imp)) {
        imp.imputed = 1;
        *local = imp;
    }
}


/* A candidate's best cut *local, found: offer a single feature to the
 * node's ranking, and keep the candidate in *best when it beats it.
 * Returns 1 (the candidate was tried). */
static int keep_candidate(sporf_builder *b, const int32_t *f, const double *w, int32_t len,
                          const sporf_best_split *local, sporf_best_split *best)
{
    if (!local->found)
        return 1;
    if (b->rank && len == 1 && (w[0] == 1.0 || w[0] == -1.0))
        sporf_rank_offer(b->rank, f[0], w[0], local->threshold, local->missing_left, local->proxy);
    if (best->found && !(local->proxy > best->proxy))
        return 1;
    *best = *local;
    best->len = len;
    memcpy(b->best_proj_feature, f, (size_t)len * sizeof *f);
    memcpy(b->best_proj_weight, w, (size_t)len * sizeof *w);
    return 1;
}

/* Try one candidate projection; keep it if it gives the best cut so far.
 * A single feature with weight +-1 is also offered, with its own best cut, to
 * the node's feature ranking when guided projections are on (guided.h).
 * Returns 0 if the projection is constant on the node. */
static int try_candidate(sporf_builder *b, const int32_t *f, const double *w, int32_t len,
                         int64_t start, int64_t end, const sporf_node_stats *st, sporf_best_split *best)
{
    sporf_rows_project(&b->rows, f, w, len, start, end);
    if (b->hist_node) {
        /* Large node: bins instead of a sort (histogram.h). The node's
         * response is laid out by row position: after an exact scan sorted
         * the rows, lay it out again. */
        if (b->hist_stale) {
            b->task->hist_prepare(&b->ts, &b->rows, start, end, st);
            b->hist_stale = 0;
        }
        sporf_best_split local;
        memset(&local, 0, sizeof local);
        if (b->ts.hist.random) /* in (0, 1): the cut leaves vmin left and vmax right */
            b->ts.hist.draw = sporf_rng_uniform_open(b->ts.rng);
        const int r = b->task->hist_scan(&b->ts, &b->rows, start, end, st, &local);
        if (r == -1)
            return 0;
        if (r == 1) {
            const int wins = local.found && (!best->found || local.proxy > best->proxy);
            keep_candidate(b, f, w, len, &local, best);
            if (wins) { /* keep its values for the partition */
                double *t = b->rows.vals;
                b->rows.vals = b->rows.vals_best;
                b->rows.vals_best = t;
                b->rows.vals_best_ok = 1;
            }
            return 1;
        }
        /* values the bins cannot resolve: the exact scan below, whose sort
         * reorders the node's rows */
        b->hist_stale = 1;
    }
    /* the sort reorders idx: the node's rows leave the node-ordered copy, and
     * values kept of an earlier candidate no longer line up with them */
    b->rows.node_compact = 0;
    b->rows.vals_best_ok = 0;
    const int64_t n_miss = b->rows.has_missing ? sporf_rows_missing_last(&b->rows, start, end) : 0;
    const int64_t end_val = end - n_miss; /* the sorted values end here; missing rows follow */
    int spread;
    if (b->task->first_cut_wins) { /* a random cut needs the values' range, not their order */
        double lo = INFINITY, hi = -INFINITY;
        for (int64_t i = start; i < end_val; i++) {
            const double v = b->rows.vals[i];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        spread = end_val - start >= 2 && hi > lo;
    } else {
        sporf_sort_values_radix(b->rows.vals + start, b->rows.idx + start, end_val - start, &b->rows.sort_scratch);
        /* constant: one value (or none), and no missing row to split off */
        spread = end_val - start >= 2 && b->rows.vals[end_val - 1] > b->rows.vals[start];
    }
    if (!spread && !(n_miss > 0 && end_val > start))
        return 0;
    const int single = len == 1 && (w[0] == 1.0 || w[0] == -1.0);
    if (n_miss > 0 && b->rows.impute) {
        /* missing rows left, right (the task's scan) or imputed */
        sporf_best_split local;
        memset(&local, 0, sizeof local);
        b->task->scan(&b->ts, &b->rows, start, end, n_miss, st, &local);
        try_imputed(b, f, w, len, start, end, st, &local);
        if (!local.found)
            return 1;
        if (b->rank && single) {
            /* the ranking's side for the feature's missing rows: where an imputed one lands */
            const int left = local.imputed ? w[0] * b->rows.impute[f[0]] <= local.threshold : local.missing_left;
            sporf_rank_offer(b->rank, f[0], w[0], local.threshold, left, local.proxy);
        }
        if (best->found && !(local.proxy > best->proxy))
            return 1;
        *best = local;
    } else if (b->rank && single) {
        /* The ranking needs this feature's cut even when it loses to best. */
        sporf_best_split local;
        memset(&local, 0, sizeof local);
        if (!b->task->scan(&b->ts, &b->rows, start, end, n_miss, st, &local))
            return 1;
        sporf_rank_offer(b->rank, f[0], w[0], local.threshold, local.missing_left, local.proxy);
        if (best->found && !(local.proxy > best->proxy))
            return 1;
        *best = local;
    } else if (!b->task->scan(&b->ts, &b->rows, start, end, n_miss, st, best)) {
        return 1;
    }
    best->len = len;
    memcpy(b->best_proj_feature, f, (size_t)len * sizeof *f);
    memcpy(b->best_proj_weight, w, (size_t)len * sizeof *w);
    return 1;
}

/* Has the search found a cut into pure children? No candidate can beat it
 * (a later one could only tie, and ties keep the first), so the node's
 * search stops there: on the deep, small nodes of a fully grown tree most
 * of the candidates would otherwise be scanned for nothing. The relative
 * margin absorbs the rounding of the scan's running sums. Only with
 * histograms on (max_bins > 0): stopping draws fewer single features from
 * the tree's stream, and max_bins = 0 keeps the exact search of model
 * format 8, draw for draw, so that older models refit to the same bytes. */
static int search_done(const sporf_builder *b, const sporf_node_stats *st, const sporf_best_split *best)
{
    if (b->task->first_cut_wins)
        return best->found;
    return b->ts.hist.max_bins > 0 && best->found && best->proxy >= st->perfect - 1e-12 * fabs(st->perfect);
}

/* An isolation forest's oblique candidate: a cut of a sum of raw features
 * at a uniform threshold would follow the feature with the largest units,
 * so each feature counts over its spread among the node's rows (the
 * standard deviation of its present values; a feature constant there drops
 * out), as isotree's extended forest standardizes at each node. The scaled
 * weights are what the split stores, so prediction reads raw rows. Returns
 * the weights to project with (b->scaled_weight), or NULL when every
 * feature is constant on the node. */
static const double *spread_weights(sporf_builder *b, const int32_t *f, const double *w, int32_t len,
                                    int64_t start, int64_t end)
{
    int any = 0;
    for (int32_t j = 0; j < len; j++) {
        /* two passes, the mean then the squares about it: no cancellation, and
         * no division in the loops (a one-pass update divides per row) */
        double n = 0.0, sum = 0.0, m2 = 0.0;
        for (int64_t i = start; i < end; i++) {
            const double x = sporf_columns_at(&b->rows.X, f[j], b->rows.idx[i]);
            if (!sporf_is_missing(x)) {
                n += 1.0;
                sum += x;
            }
        }
        const double mean = n > 0.0 ? sum / n : 0.0;
        for (int64_t i = start; i < end; i++) {
            const double x = sporf_columns_at(&b->rows.X, f[j], b->rows.idx[i]);
            if (!sporf_is_missing(x))
                m2 += (x - mean) * (x - mean);
        }
        const double sd = n > 1.0 && m2 > 0.0 ? sqrt(m2 / n) : 0.0;
        b->scaled_weight[j] = sd > 0.0 && isfinite(w[j] / sd) ? w[j] / sd : 0.0;
        any |= b->scaled_weight[j] != 0.0;
    }
    return any ? b->scaled_weight : NULL;
}

/* Draw single features until k non-constant ones were tried (or none is
 * left): the candidates of projection "axis", and the axis_features search. */
static void try_single_features(sporf_builder *b, sporf_rng *rng, int64_t k, int64_t start, int64_t end,
                                const sporf_node_stats *st, sporf_best_split *best)
{
    sporf_sampler *s = &b->sampler;
    sporf_sampler_axis_reset(s);
    const double one = 1.0;
    int64_t tried = 0;
    while (tried < k && !search_done(b, st, best)) {
        int32_t f = sporf_sampler_axis_next(s, rng);
        if (f < 0)
            break;
        tried += try_candidate(b, &f, &one, 1, start, end, st, best);
    }
}

/* The guided projections (guided.h): one per prefix length of the ranking. */
static void try_guided(sporf_builder *b, int64_t start, int64_t end, const sporf_node_stats *st,
                       sporf_best_split *best)
{
    const sporf_feature_rank *r = b->rank;
    if (r->n < 2)
        return;
    double *slope = b->guided_weight;
    sporf_guided_slopes(b->task, &b->ts, &b->rows, b->guide_target, b->guide_w, start, end, r, r->n, slope);
    int32_t f[SPORF_GUIDED_MAX];
    double w[SPORF_GUIDED_MAX];
    /* prefix lengths 2, 4, 8, ... and the whole ranking (1.4x steps measured
     * the same accuracy with more candidates) */
    int32_t m = 2, tried_len = 0;
    while (m <= r->n) {
        int32_t len = 0;
        for (int32_t j = 0; j < m; j++)
            if (slope[j] != 0.0) {
                f[len] = r->item[j].feature;
                w[len++] = slope[j];
            }
        if (len >= 2 && len > tried_len) /* a prefix that adds no feature repeats the last */
            try_candidate(b, f, w, len, start, end, st, best);
        if (len > tried_len) tried_len = len;
        if (m == r->n)
            break;
        m = 2 * m < r->n ? 2 * m : r->n;
    }
}

static void find_split(sporf_builder *b, sporf_rng *rng, int64_t start, int64_t end,
                       const sporf_node_stats *st, sporf_best_split *best)
{
    memset(best, 0, sizeof *best);
    sporf_sampler *s = &b->sampler;
    b->ts.rng = rng;
    b->rows.vals_best_ok = 0;
    b->hist_node = sporf_hist_use(&b->ts.hist, end - start);
    b->hist_stale = b->hist_node;
    if (b->params->projection == SPORF_PROJ_AXIS) {
        try_single_features(b, rng, b->n_candidates, start, end, st, best);
        return;
    }
    const int one_by_one = b->task->first_cut_wins &&
                           (b->params->projection == SPORF_PROJ_SPARSE || b->params->projection == SPORF_PROJ_GAUSSIAN);
    if (one_by_one) {
        /* the first candidate that is not constant is the cut: draw them one at a time */
        for (int64_t a = 0; a < b->n_candidates && !best->found; a++) {
            sporf_sampler_draw_sparse_column(s, rng);
            const sporf_candidates *c = &s->cand;
            const int32_t len = c->start[1];
            const double *w = c->weight;
            if (len > 1 && !(w = spread_weights(b, c->feature, w, len, start, end)))
                continue;
            try_candidate(b, c->feature, w, len, start, end, st, best);
        }
        return;
    }
    switch (b->params->projection) {
    case SPORF_PROJ_PATCH: sporf_sampler_draw_patch(s, rng); break;
    case SPORF_PROJ_FRC: case SPORF_PROJ_POISSON: sporf_sampler_draw_per_column(s, rng); break;
    default: sporf_sampler_draw_sparse(s, rng); break;
    }
    if (b->rank)
        sporf_rank_clear(b->rank, b->n_guided);
    const sporf_candidates *c = &s->cand;
    /* When every feature is searched alone as well (axis_features = all, the
     * regressors' default), an oblique candidate of one feature cuts the rows
     * exactly as that search will: with histograms on it is skipped (about a
     * sixth of a regressor's candidates at density 1.5). */
    const int skip_single = b->ts.hist.max_bins > 0 && b->n_axis_extra >= b->rows.p;
    for (int32_t j = 0; j < c->n_proj && !search_done(b, st, best); j++) {
        int32_t a = c->start[j];
        const int32_t len = c->start[j + 1] - a;
        if (skip_single && len == 1)
            continue;
        const double *w = c->weight + a;
        if (b->scaled_weight && len > 1 && !(w = spread_weights(b, c->feature + a, w, len, start, end)))
            continue;
        try_candidate(b, c->feature + a, w, len, start, end, st, best);
    }
    /* ydf's "also run the classical splitter": k more single features, drawn
     * after the oblique candidates so axis_features = 0 leaves the draws as
     * they were. */
    if (b->n_axis_extra > 0 && !search_done(b, st, best))
        try_single_features(b, rng, b->n_axis_extra, start, end, st, best);
    if (b->rank && !search_done(b, st, best))
        try_guided(b, start, end, st, best);
}





/* Reorder the node's rows (and vals) so the rows going left by the best cut
 * come first: those with a value <= the threshold, and those whose value is
 * missing when the split sends them left. Returns the number going left
 * and, in *n_miss, how many values were missing. */
static int64_t partition(sporf_builder *b, int64_t start, int64_t end, sporf_best_split *best, int64_t *n_miss)
{
    sporf_rows *r = &b->rows;
    if (best->imputed) {
        sporf_rows_project_imputed(r, b->best_proj_feature, b->best_proj_weight, best->len, start, end);
    } else if (r->vals_best_ok) { /* the winner's values, kept by try_candidate */
        double *t = r->vals;
        r->vals = r->vals_best;
        r->vals_best = t;
    } else {
        sporf_rows_project(r, b->best_proj_feature, b->best_proj_weight, best->len, start, end);
    }
    r->vals_best_ok = 0;
    if (best->binned)
        sporf_hist_threshold(r->vals + start, end - start, best);
    /* histogram fits keep each node's rows in order (rows.h) */
    return sporf_rows_partition(r, start, end, best->threshold, best->missing_left, b->ts.hist.max_bins > 0, n_miss);
}

/* Where a split sends rows whose projection is missing: as the search chose
 * when it saw some; a split that saw none sends them to the child holding
 * more of the node's training weight (left on a tie). */
static int32_t missing_side(const sporf_best_split *best, int64_t n_miss, const double *w_side)
{
    if (best->imputed)
        return SPORF_MISSING_IMPUTE;
    if (n_miss > 0)
        return best->missing_left ? SPORF_MISSING_LEFT : SPORF_MISSING_RIGHT;
    return w_side[0] >= w_side[1] ? SPORF_MISSING_LEFT : SPORF_MISSING_RIGHT;
}

/* Is the node too small, too shallow in gain, or pure, to split? */
static int stops_here(const sporf_builder *b, const sporf_stack_item *it, const sporf_node_stats *st)
{
    const sporf_params *P = b->params;
    const int64_t n_node = it->end - it->start;
    return (P->max_depth > 0 && it->depth >= P->max_depth) || n_node < b->min_split_rows ||
           n_node < 2 * b->ts.min_leaf_rows || st->pure || st->w <= 0.0 || st->w < 2.0 * b->ts.min_weight_leaf;
}

/* Node id, the stack's item it: a leaf, or a split whose children go on
 * the stack. Returns 0 when out of memory. */
static int grow_node(sporf_builder *b, const sporf_stack_item *it, int32_t id, sporf_rng *rng, double w_root)
{
    const sporf_task *task = b->task;
    sporf_tree_draft *d = &b->draft;
    const sporf_rows *r = &b->rows;
    const int64_t n_node = it->end - it->start;
    sporf_node_stats st;
    task->node_stats(&b->ts, r, it->start, it->end, &st);
    st.depth = it->depth;
    if (d->keep_nodes) { /* what the node would predict as a leaf (leaf_choice.h) */
        double *values = sporf_draft_node_values(d, id, n_node);
        if (!values)
            return 0;
        if (task->node_value)
            task->node_value(&b->ts, &st, w_root, values);
        else
            task->leaf(&b->ts, &st, w_root, values);
    }
    int is_leaf = stops_here(b, it, &st);
    sporf_best_split best;
    best.found = 0;
    if (!is_leaf) {
        find_split(b, rng, it->start, it->end, &st, &best);
        is_leaf = !best.found;
    }
    int64_t n_left = 0, n_miss = 0;
    double gain = 0.0, w_side[2] = {0.0, 0.0};
    if (!is_leaf) {
        n_left = partition(b, it->start, it->end, &best, &n_miss);
        gain = task->gain(&b->ts, r, it->start, it->start + n_left, it->end, &st, w_side);
        if (gain < 0.0) gain = 0.0;
        if (n_left <= 0 || n_left >= n_node || gain / w_root + 1e-12 < b->params->min_impurity_decrease)
            is_leaf = 1;
    }
    if (is_leaf) {
        double *values = sporf_draft_leaf(d, id, it->depth);
        if (!values)
            return 0;
        task->leaf(&b->ts, &st, w_root, values);
        return 1;
    }
    if (!sporf_draft_split(d, id, b->best_proj_feature, b->best_proj_weight, best.len, best.threshold, gain,
                           missing_side(&best, n_miss, w_side)))
        return 0;
    /* partition moved the node-ordered copy if the node still had it */
    const sporf_stack_item right = {it->start + n_left, it->end, it->depth + 1, id, 0,
                                    r->node_compact && n_node - n_left >= r->compact_min_rows};
    const sporf_stack_item left = {it->start, it->start + n_left, it->depth + 1, id, 1,
                                   r->node_compact && n_left >= r->compact_min_rows};
    return sporf_draft_push(d, right) && sporf_draft_push(d, left);
}

int sporf_builder_grow(sporf_builder *b, int64_t n_in_tree, sporf_rng *rng,
                       sporf_pool_ctl *ctl, sporf_tree *tree, sporf_error *err)
{
    sporf_rows *r = &b->rows;
    sporf_tree_draft *d = &b->draft;
    memset(tree, 0, sizeof *tree);
    sporf_draft_start(d, b->ts.n_classes, b->task->node_width ? b->task->node_width(&b->ts) : b->ts.n_classes);
    double w_root = 0.0;
    for (int64_t i = 0; i < n_in_tree; i++)
        w_root += r->w[r->idx[i]];
    b->ts.min_weight_leaf = b->params->min_weight_fraction_leaf * w_root;
    /* Each tree starts from the same sampler state, so a tree does not
     * depend on which trees its worker grew before (thread-count invariance). */
    sporf_sampler_reset(&b->sampler);
    sporf_stack_item root = {0, n_in_tree, 0, -1, 0, 0};
    if (r->compact_min_rows > 0 && n_in_tree >= r->compact_min_rows && sporf_rows_reserve_copy(r, n_in_tree)) {
        sporf_rows_fill_copy(r, n_in_tree, b->ts.y, b->ts.yr);
        root.compact = 1;
    }
    if (!sporf_draft_push(d, root))
        goto nomem;
    while (d->top > 0) {
        const sporf_stack_item it = d->stack[--d->top];
        r->node_compact = it.compact;
        if (ctl && sporf_pool_cancelled(ctl))
            return sporf_set_error(err, SPORF_E_INTERRUPTED, "interrupted");
        if (d->n_nodes >= SPORF_MAX_TREE_NODES - 1)
            return sporf_set_error(err, SPORF_E_ARG, "a tree would exceed %d nodes (the prediction layout's limit)",
                                   (int)SPORF_MAX_TREE_NODES - 1);
        int32_t id;
        if (!sporf_draft_add_node(d, &it, &id) || !grow_node(b, &it, id, rng, w_root))
            goto nomem;
    }
    if (!sporf_draft_finish(d, tree))
        goto nomem;
    return SPORF_OK;
nomem:
    return sporf_set_error(err, SPORF_E_NOMEM, "out of memory while growing a tree");
}

/* Class distribution (or mean) of rows[0..n) under weights b->rows.w into out;
 * returns the total weight. */
static double rows_summary(const sporf_builder *b, const int32_t *rows, int64_t n, double *out)
{
    const int32_t K = b->ts.n_classes;
    double W = 0.0;
    memset(out, 0, (size_t)K * sizeof *out);
    for (int64_t i = 0; i < n; i++) {
        const double w = b->rows.w[rows[i]];
        W += w;
        b->task->add_row(&b->ts, rows[i], w, out);
    }
    if (W > 0.0)
        for (int32_t k = 0; k < K; k++) out[k] /= W;
    return W;
}

/* Honest trees that keep their nodes (keep_nodes, leaf_choice.h): every
 * node's value and rows from the estimation rows that pass through it, as
 * the leaves' are; a node no estimation row reaches takes the prior (the
 * choice never answers from one: a node of at least one row is always
 * deeper). */
static int estimate_nodes(sporf_builder *b, const int32_t *est, int64_t n_est, sporf_tree *tree, sporf_error *err)
{
    const int32_t K = b->ts.n_classes, N = tree->n_nodes;
    double *acc = calloc((size_t)N * (size_t)K, sizeof *acc), *wsum = calloc((size_t)N, sizeof *wsum);
    if (!acc || !wsum) {
        free(acc);
        free(wsum);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory estimating honest nodes");
    }
    memset(tree->node_rows, 0, (size_t)N * sizeof *tree->node_rows);
    for (int64_t r = 0; r < n_est; r++) {
        const int32_t id = est[r];
        const double w = b->rows.w[id];
        const double *x = NULL;
        int64_t cs = b->rows.X.n;
        if (b->rows.X.f32) {
            for (int64_t j = 0; j < b->rows.p; j++) b->rows.xrow[j] = (double)b->rows.X.f32[j * b->rows.X.n + id];
            x = b->rows.xrow;
            cs = 1;
        } else {
            x = b->rows.X.f64 + id;
        }
        for (int32_t i = 0;;) {
            tree->node_rows[i]++;
            wsum[i] += w;
            b->task->add_row(&b->ts, id, w, acc + (int64_t)i * K);
            const sporf_node *nd = &tree->nodes[i];
            if (nd->left < 0)
                break;
            i = sporf_tree_stored_child(tree, nd, b->rows.impute, x, cs);
        }
    }
    for (int32_t i = 0; i < N; i++)
        for (int32_t k = 0; k < K; k++)
            tree->node_values[(int64_t)i * K + k] = wsum[i] > 0.0 ? acc[(int64_t)i * K + k] / wsum[i] : tree->prior[k];
    free(acc);
    free(wsum);
    return SPORF_OK;
}

int sporf_builder_estimate_leaves(sporf_builder *b, const int32_t *est, int64_t n_est, int64_t n_struct,
                                  sporf_tree *tree, sporf_error *err)
{
    const int32_t K = b->ts.n_classes;
    const int64_t L = tree->n_leaves;
    double *acc = calloc((size_t)(L * K), sizeof *acc);
    double *wsum = calloc((size_t)L, sizeof *wsum);
    tree->prior = malloc((size_t)K * sizeof *tree->prior);
    if (!acc || !wsum || !tree->prior) {
        free(acc);
        free(wsum);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory estimating honest leaves");
    }
    if (!(rows_summary(b, est, n_est, tree->prior) > 0.0) &&
        !(rows_summary(b, b->rows.idx, n_struct, tree->prior) > 0.0))
        b->task->empty(&b->ts, tree->prior);
    /* Route each estimation row through the stored tree (the forest's packed
     * layout does not exist yet), missing values as the fit sent them; Xc is
     * column-major, so row i starts at Xc + i and its columns are n apart. */
    for (int64_t i = 0; i < n_est; i++) {
        const int32_t id = est[i];
        const int64_t slot = tree->nodes[sporf_columns_stored_leaf(tree, b->rows.impute, &b->rows.X, id, b->rows.xrow)].right;
        const double w = b->rows.w[id];
        wsum[slot] += w;
        b->task->add_row(&b->ts, id, w, acc + slot * K);
    }
    const int32_t prior = b->params->honest_prior;
    for (int64_t l = 0; l < L; l++) {
        double *lv = tree->leaf_values + l * K;
        if (wsum[l] <= 0.0 && prior == SPORF_HONEST_UNIFORM) {
            b->task->empty(&b->ts, lv); /* each output's uniform distribution */
            continue;
        }
        for (int32_t k = 0; k < K; k++) {
            if (wsum[l] > 0.0) lv[k] = acc[l * K + k] / wsum[l];
            else if (prior == SPORF_HONEST_IGNORE) lv[k] = NAN;
            else lv[k] = tree->prior[k];
        }
    }
    free(acc);
    free(wsum);
    return tree->node_rows ? estimate_nodes(b, est, n_est, tree, err) : SPORF_OK;
}
