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

static int grow_array(void **ptr, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    int64_t c = *cap > 0 ? *cap : 64;
    while (c < need) c *= 2;
    void *p = realloc(*ptr, (size_t)c * elem);
    if (!p)
        return 0;
    *ptr = p;
    *cap = c;
    return 1;
}

/* The node-ordered copy of X. The stable partition keeps each node's rows in
 * increasing id order, but a node deep in a tree on millions of rows still
 * has them spread over whole columns: every value a candidate reads is then a
 * cache miss, and the fit grew faster than n log n (benchmarks/notes/speed.md). A large
 * node instead keeps its rows' values contiguous in xnode, and its split moves
 * them: p sequential passes, paid once, against the scattered reads of every
 * candidate. It pays when a column outgrows the cache and the candidates read
 * enough columns per node (compaction_pays), down to nodes of
 * SPORF_COMPACT_MIN_NODE_ROWS rows; smaller ones read Xc. A node of a few
 * thousand rows does not fit the cache either: its rows are a few thousand
 * lines of each column it reads, a line per row (the default forests on
 * 300,000 to 10,000,000 rows fit 12-16% faster with 128 than with 4,096;
 * of 32 to 512, 128 was the fastest or level on every size, benchmarks/notes/speed.md).
 * The values are the same, so is the forest (the exact scan's sort reorders
 * a node's rows: from then on the node reads Xc). */
#define SPORF_COMPACT_MIN_DATA_ROWS ((int64_t)1 << 18)
/* From this many rows the copy holds the rows' weights and responses too:
 * read through the row ids at every node (the node's statistics, the guided
 * target, the histograms' layout), their 12-16 bytes a row outgrow a 32 MB
 * cache at 2-3 million rows. The defaults fit 7-10% faster on 3,000,000 rows
 * and 16-19% on 10,000,000 with them; on 300,000 rows, where the ids' reads
 * still hit the cache, moving them cost 2-4% (benchmarks/notes/speed.md). */
#define SPORF_COMPACT_RESPONSE_MIN_ROWS ((int64_t)1 << 21)
#define SPORF_COMPACT_MIN_NODE_ROWS ((int64_t)128)

static int compaction_pays(const sporf_builder *b, int64_t n, int64_t p)
{
    /* Values read per row of a node: the candidates' non-zeros (at least one
     * each), the extra single features, the guided features (target and
     * slopes). A scattered read costs several sequential moves: measured on
     * one tree, 1,000,000 x 80 fit 10% faster with the copy (39 reads per
     * row), 300,000 x 200 16% slower (54). */
    const int64_t nnz = b->sampler.nnz > b->n_candidates ? b->sampler.nnz : b->n_candidates;
    const int64_t reads = nnz + b->n_axis_extra + 2 * (int64_t)b->n_guided;
    return n >= SPORF_COMPACT_MIN_DATA_ROWS && p <= 2 * reads;
}

/* Room in the node-ordered copy for a tree on `rows` rows (its columns
 * xnode_rows apart), 1% to spare for the next bootstrap sample. Returns 0
 * without the memory: a speed-up only, the tree then reads Xc. */
static int reserve_node_copy(sporf_builder *b, int64_t rows)
{
    if ((b->xnode || b->xnode32) && b->xnode_rows >= rows)
        return 1;
    free(b->xnode);
    free(b->xnode32);
    free(b->side);
    free(b->wnode);
    free(b->ynode);
    b->xnode = NULL;
    b->xnode32 = NULL;
    b->wnode = NULL;
    b->ynode = NULL;
    int64_t want = rows + rows / 100;
    if (want > b->n)
        want = b->n;
    /* in the data's own type: float data keep a float copy, half the bytes */
    if (b->X.f32)
        b->xnode32 = malloc((size_t)want * (size_t)b->p * sizeof *b->xnode32);
    else
        b->xnode = malloc((size_t)want * (size_t)b->p * sizeof *b->xnode);
    b->side = malloc((size_t)b->n);
    const int one_response = b->compact_responses;
    if (one_response) {
        b->wnode = malloc((size_t)want * sizeof *b->wnode);
        b->ynode = malloc((size_t)want * sizeof *b->ynode);
    }
    b->xnode_rows = want;
    if ((b->xnode || b->xnode32) && b->side && (!one_response || (b->wnode && b->ynode)))
        return 1;
    free(b->xnode);
    free(b->xnode32);
    free(b->side);
    free(b->wnode);
    free(b->ynode);
    b->xnode = NULL;
    b->xnode32 = NULL;
    b->side = NULL;
    b->wnode = NULL;
    b->ynode = NULL;
    b->xnode_rows = 0;
    return 0;
}

int sporf_builder_init(sporf_builder *b, const sporf_params *params, const sporf_columns *X,
                       const sporf_response *response, const sporf_sample_of *sample, sporf_error *err)
{
    memset(b, 0, sizeof *b);
    const int64_t n = X->n, p = X->p;
    b->params = params;
    b->task = sporf_task_for(response->task, response->n_outputs);
    b->X = *X;
    b->n = n;
    b->p = p;
    b->y = response->y;
    b->yr = response->yr;
    b->n_classes = response->n_classes;
    b->n_outputs = response->n_outputs > 1 ? response->n_outputs : 1;
    b->output_classes = response->output_classes;
    b->output_weight = response->output_weight;
    const int32_t n_classes = b->n_classes;
    b->n_candidates = sporf_params_resolve_max_features(params, p);
    const int64_t n_all = sample ? sample->n_total : n;
    b->min_split_rows = sporf_resolve_min_samples_split(params, n_all);
    b->min_leaf_rows = sporf_resolve_min_samples_leaf(params, n_all);
    b->n_axis_extra = sporf_params_resolve_axis_features(params, p);
    b->n_guided = params->projection == SPORF_PROJ_AXIS ? 0 : (int32_t)params->guided_features;
    if (sample)
        b->has_missing = sample->has_missing;
    for (int64_t j = 0; !sample && j < p && !b->has_missing; j++)
        for (int64_t i = 0; i < n && !b->has_missing; i++)
            b->has_missing = sporf_is_missing(sporf_columns_at(X, j, i));
    int rc = sporf_sampler_init(&b->sampler, params, p, b->n_candidates, err);
    if (rc != SPORF_OK)
        return rc;
    int guided_ok = 1;
    if (b->n_axis_extra > 0)
        guided_ok = sporf_sampler_enable_axis(&b->sampler);
    if (b->n_guided > 0) {
        b->guide_target = malloc((size_t)n * sizeof *b->guide_target);
        b->guide_w = malloc((size_t)n * sizeof *b->guide_w);
        b->rank = malloc(sizeof *b->rank);
        b->guided_weight = malloc(SPORF_GUIDED_MAX * sizeof *b->guided_weight);
        guided_ok = guided_ok && b->guide_target && b->guide_w && b->rank && b->guided_weight;
    }
    size_t K = (size_t)n_classes;
    b->w = calloc((size_t)n, sizeof *b->w);
    b->idx = malloc((size_t)n * sizeof *b->idx);
    b->vals = malloc((size_t)n * sizeof *b->vals);
    b->vals_best = malloc((size_t)n * sizeof *b->vals_best);
    b->xrow = malloc((size_t)p * sizeof *b->xrow);
    b->wsorted = malloc((size_t)n * sizeof *b->wsorted);
    b->node_counts = malloc(K * sizeof(double));
    b->left_counts = malloc(K * sizeof(double));
    b->right_counts = malloc(K * sizeof(double));
    int64_t nnz = b->sampler.nnz > 0 ? b->sampler.nnz : 1;
    if (nnz < b->n_guided)
        nnz = b->n_guided; /* a guided projection has up to n_guided non-zeros */
    b->best_proj_feature = malloc((size_t)nnz * sizeof(int32_t));
    b->best_proj_weight = malloc((size_t)nnz * sizeof(double));
    int sort_ok = sporf_sort_scratch_init(&b->sort_scratch, n);
    /* Histograms need the task's bin statistics and complete data (the
     * exact scan places missing rows, histogram.h). The random splitter's
     * scans need the statistics only: a candidate with a missing value is
     * scanned exactly. */
    const int32_t hist_width = b->task->hist_width(n_classes);
    const int random = hist_width > 0 && params->splitter == SPORF_SPLITTER_RANDOM;
    const int32_t max_bins = hist_width > 0 && !b->has_missing ? (int32_t)params->max_bins : 0;
    b->hist_min_rows = SPORF_HIST_MIN_ROWS;
    if (!sporf_histogram_init(&b->hist, max_bins, random, hist_width, n, b->n_outputs))
        sort_ok = 0;
    if (max_bins > 0 && compaction_pays(b, n, p))
        b->compact_min_rows = SPORF_COMPACT_MIN_NODE_ROWS; /* xnode: allocated by the first tree */
    /* one response (not several outputs, not none): its tasks read it by position */
    b->compact_responses = b->compact_min_rows > 0 && n >= SPORF_COMPACT_RESPONSE_MIN_ROWS && b->n_outputs == 1 &&
                           (b->y || b->yr);
    if (!sort_ok || !guided_ok || !b->w || !b->idx || !b->vals || !b->vals_best || !b->xrow || !b->wsorted || !b->node_counts || !b->left_counts ||
        !b->right_counts || !b->best_proj_feature || !b->best_proj_weight) {
        sporf_builder_free(b);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory allocating tree-building buffers for %lld rows",
                               (long long)n);
    }
    return SPORF_OK;
}

void sporf_builder_free(sporf_builder *b)
{
    sporf_sampler_free(&b->sampler);
    sporf_sort_scratch_free(&b->sort_scratch);
    sporf_histogram_free(&b->hist);
    free(b->w);
    free(b->idx);
    free(b->vals);
    free(b->vals_best);
    free(b->xrow);
    free(b->xnode);
    free(b->xnode32);
    free(b->wnode);
    free(b->ynode);
    free(b->side);
    free(b->wsorted);
    free(b->node_counts);
    free(b->left_counts);
    free(b->right_counts);
    free(b->best_proj_feature);
    free(b->best_proj_weight);
    free(b->guide_target);
    free(b->guide_w);
    free(b->rank);
    free(b->guided_weight);
    free(b->nodes);
    free(b->proj_feature);
    free(b->proj_weight);
    free(b->leaf_values);
    free(b->node_rows);
    free(b->node_values);
    free(b->stack);
    memset(b, 0, sizeof *b);
}

/* out[k] = col[rows[k]] for k < m (double data), taking the values' range
 * into b->range_* on the way: the gather waits on memory, so the
 * comparisons, in four chains, cost nothing next to it, and the histogram
 * scan need not read the values once more for their range (hist_scan.h). */
static void gather_with_range(sporf_builder *b, const double *col, const int32_t *rows, int64_t m, double *out,
                              double wk, int add)
{
    double lo[4], hi[4];
    int nan = 0;
    int64_t k = 0;
    for (int u = 0; u < 4; u++) {
        lo[u] = INFINITY;
        hi[u] = -INFINITY;
    }
    for (; k + 4 <= m; k += 4)
        for (int u = 0; u < 4; u++) {
            const double x = add ? out[k + u] + wk * col[rows[k + u]] : col[rows[k + u]];
            out[k + u] = x;
            lo[u] = x < lo[u] ? x : lo[u];
            hi[u] = x > hi[u] ? x : hi[u];
            nan |= x != x;
        }
    for (; k < m; k++) {
        const double x = add ? out[k] + wk * col[rows[k]] : col[rows[k]];
        out[k] = x;
        lo[0] = x < lo[0] ? x : lo[0];
        hi[0] = x > hi[0] ? x : hi[0];
        nan |= x != x;
    }
    for (int u = 1; u < 4; u++) {
        lo[0] = lo[u] < lo[0] ? lo[u] : lo[0];
        hi[0] = hi[u] > hi[0] ? hi[u] : hi[0];
    }
    b->range_lo = lo[0];
    b->range_hi = hi[0];
    b->range_nan = nan;
    b->range_ok = 1;
}

/* vals[start..end) = projection of the node's samples, in the same
 * arithmetic order as sporf_tree_find_leaf so fit and predict agree exactly.
 * A node in the node-ordered copy reads its columns forwards; any other
 * gathers them through idx. */
static void project_slice(sporf_builder *b, const int32_t *f, const double *w, int32_t len,
                          int64_t start, int64_t end)
{
    const int32_t *idx = b->idx;
    double *v = b->vals;
    const int compact = b->node_compact;
    b->range_ok = 0;
    if (len == 1 && w[0] == 1.0) {
        if (!compact && b->X.f64) {
            gather_with_range(b, b->X.f64 + (int64_t)f[0] * b->n, idx + start, end - start, v + start, 1.0, 0);
        } else if (compact && b->xnode32) {
            const float *col = b->xnode32 + (int64_t)f[0] * b->xnode_rows;
            for (int64_t i = start; i < end; i++)
                v[i] = (double)col[i];
        } else if (compact) {
            memcpy(v + start, b->xnode + (int64_t)f[0] * b->xnode_rows + start, (size_t)(end - start) * sizeof *v);
        } else {
            sporf_columns_gather(&b->X, f[0], idx + start, end - start, v + start);
        }
        return;
    }
    for (int64_t i = start; i < end; i++)
        v[i] = 0.0;
    for (int32_t k = 0; k < len; k++) {
        const double wk = w[k];
        if (!compact && b->X.f64 && k == len - 1) { /* the last term: the values are final */
            gather_with_range(b, b->X.f64 + (int64_t)f[k] * b->n, idx + start, end - start, v + start, wk, 1);
        } else if (compact && b->xnode32) {
            const float *col = b->xnode32 + (int64_t)f[k] * b->xnode_rows;
            for (int64_t i = start; i < end; i++)
                v[i] += wk * (double)col[i];
        } else if (compact) {
            const double *col = b->xnode + (int64_t)f[k] * b->xnode_rows;
            for (int64_t i = start; i < end; i++)
                v[i] += wk * col[i];
        } else {
            sporf_columns_gather_add(&b->X, f[k], wk, idx + start, end - start, v + start);
        }
    }
}

/* project_slice with each missing feature at its training mean (b->impute):
 * the projection SPORF_MISSING_IMPUTE splits send missing rows by, in the
 * arithmetic of sporf_node_project_imputed. */
static void project_slice_imputed(sporf_builder *b, const int32_t *f, const double *w, int32_t len,
                                  int64_t start, int64_t end)
{
    const int32_t *idx = b->idx;
    double *v = b->vals;
    if (len == 1 && w[0] == 1.0) {
        const double fill = b->impute[f[0]];
        for (int64_t i = start; i < end; i++) {
            const double x = sporf_columns_at(&b->X, f[0], idx[i]);
            v[i] = sporf_is_missing(x) ? fill : x;
        }
        return;
    }
    for (int64_t i = start; i < end; i++)
        v[i] = 0.0;
    for (int32_t k = 0; k < len; k++) {
        const double wk = w[k], fill = b->impute[f[k]];
        for (int64_t i = start; i < end; i++) {
            const double x = sporf_columns_at(&b->X, f[k], idx[i]);
            v[i] += wk * (sporf_is_missing(x) ? fill : x);
        }
    }
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
    project_slice_imputed(b, f, w, len, start, end);
    sporf_sort_values_radix(b->vals + start, b->idx + start, end - start, &b->sort_scratch);
    if (!(b->vals[end - 1] > b->vals[start]))
        return;
    sporf_best_split imp = *local;
    if (b->task->scan(b, start, end, 0, st, &imp)) {
        imp.imputed = 1;
        *local = imp;
    }
}

/* Move the rows of idx[start..end) whose projected value is missing to the
 * end of the slice, in order, the others keeping theirs; returns how many. */
static int64_t move_missing_last(sporf_builder *b, int64_t start, int64_t end)
{
    int32_t *idx = b->idx;
    double *v = b->vals;
    int32_t *miss = b->sort_scratch.ids; /* free until the sort */
    int64_t kept = start, n_miss = 0;
    for (int64_t i = start; i < end; i++) {
        if (sporf_is_missing(v[i])) {
            miss[n_miss++] = idx[i];
        } else {
            idx[kept] = idx[i];
            v[kept++] = v[i];
        }
    }
    for (int64_t k = 0; k < n_miss; k++) {
        idx[kept + k] = miss[k];
        v[kept + k] = NAN;
    }
    return n_miss;
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
    project_slice(b, f, w, len, start, end);
    if (b->hist_node) {
        /* Large node: bins instead of a sort (histogram.h). The node's
         * response is laid out by row position: after an exact scan sorted
         * the rows, lay it out again. */
        if (b->hist_stale) {
            b->task->hist_prepare(b, start, end, st);
            b->hist_stale = 0;
        }
        sporf_best_split local;
        memset(&local, 0, sizeof local);
        if (b->hist.random) /* in (0, 1): the cut leaves vmin left and vmax right */
            b->hist.draw = sporf_rng_uniform_open(b->rng);
        const int r = b->task->hist_scan(b, start, end, st, &local);
        if (r == -1)
            return 0;
        if (r == 1) {
            const int wins = local.found && (!best->found || local.proxy > best->proxy);
            keep_candidate(b, f, w, len, &local, best);
            if (wins) { /* keep its values for the partition */
                double *t = b->vals;
                b->vals = b->vals_best;
                b->vals_best = t;
                b->vals_best_ok = 1;
            }
            return 1;
        }
        /* values the bins cannot resolve: the exact scan below, whose sort
         * reorders the node's rows */
        b->hist_stale = 1;
    }
    /* the sort reorders idx: the node's rows leave the node-ordered copy, and
     * values kept of an earlier candidate no longer line up with them */
    b->node_compact = 0;
    b->vals_best_ok = 0;
    const int64_t n_miss = b->has_missing ? move_missing_last(b, start, end) : 0;
    const int64_t end_val = end - n_miss; /* the sorted values end here; missing rows follow */
    sporf_sort_values_radix(b->vals + start, b->idx + start, end_val - start, &b->sort_scratch);
    /* constant: one value (or none), and no missing row to split off */
    const int spread = end_val - start >= 2 && b->vals[end_val - 1] > b->vals[start];
    if (!spread && !(n_miss > 0 && end_val > start))
        return 0;
    const int single = len == 1 && (w[0] == 1.0 || w[0] == -1.0);
    if (n_miss > 0 && b->impute) {
        /* missing rows left, right (the task's scan) or imputed */
        sporf_best_split local;
        memset(&local, 0, sizeof local);
        b->task->scan(b, start, end, n_miss, st, &local);
        try_imputed(b, f, w, len, start, end, st, &local);
        if (!local.found)
            return 1;
        if (b->rank && single) {
            /* the ranking's side for the feature's missing rows: where an imputed one lands */
            const int left = local.imputed ? w[0] * b->impute[f[0]] <= local.threshold : local.missing_left;
            sporf_rank_offer(b->rank, f[0], w[0], local.threshold, left, local.proxy);
        }
        if (best->found && !(local.proxy > best->proxy))
            return 1;
        *best = local;
    } else if (b->rank && single) {
        /* The ranking needs this feature's cut even when it loses to best. */
        sporf_best_split local;
        memset(&local, 0, sizeof local);
        if (!b->task->scan(b, start, end, n_miss, st, &local))
            return 1;
        sporf_rank_offer(b->rank, f[0], w[0], local.threshold, local.missing_left, local.proxy);
        if (best->found && !(local.proxy > best->proxy))
            return 1;
        *best = local;
    } else if (!b->task->scan(b, start, end, n_miss, st, best)) {
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
    return b->hist.max_bins > 0 && best->found && best->proxy >= st->perfect - 1e-12 * fabs(st->perfect);
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
    sporf_guided_slopes(b, start, end, r, r->n, slope);
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
    b->rng = rng;
    b->vals_best_ok = 0;
    b->hist_node = sporf_hist_use(b, end - start);
    b->hist_stale = b->hist_node;
    if (b->params->projection == SPORF_PROJ_AXIS) {
        try_single_features(b, rng, b->n_candidates, start, end, st, best);
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
    const int skip_single = b->hist.max_bins > 0 && b->n_axis_extra >= b->p;
    for (int32_t j = 0; j < c->n_proj && !search_done(b, st, best); j++) {
        int32_t a = c->start[j];
        if (skip_single && c->start[j + 1] - a == 1)
            continue;
        try_candidate(b, c->feature + a, c->weight + a, c->start[j + 1] - a, start, end, st, best);
    }
    /* ydf's "also run the classical splitter": k more single features, drawn
     * after the oblique candidates so axis_features = 0 leaves the draws as
     * they were. */
    if (b->n_axis_extra > 0 && !search_done(b, st, best))
        try_single_features(b, rng, b->n_axis_extra, start, end, st, best);
    if (b->rank && !search_done(b, st, best))
        try_guided(b, start, end, st, best);
}

/* Stable-partition a double column of the node-ordered copy over [start,
 * end) by side (scratch: end - start doubles). Each value is stored to both
 * sides and one side's end advances: no branch on the side, which is a coin
 * flip from row to row (a mispredicted branch per row and column cost the
 * fits on millions of rows more than the extra store). */
static void move_node_doubles(const unsigned char *side, double *col, int64_t start, int64_t end, double *scratch)
{
    int64_t l = start, r = 0;
    for (int64_t i = start; i < end; i++) {
        const double v = col[i];
        const int64_t s = side[i];
        col[l] = v; /* l <= i: a value already read */
        scratch[r] = v;
        l += s;
        r += 1 - s;
    }
    memcpy(col + l, scratch, (size_t)r * sizeof *col);
}

/* The same for a float column (scratch: end - start floats). */
static void move_node_floats(const unsigned char *side, float *col, int64_t start, int64_t end, float *scratch)
{
    int64_t l = start, r = 0;
    for (int64_t i = start; i < end; i++) {
        const float v = col[i];
        const int64_t s = side[i];
        col[l] = v;
        scratch[r] = v;
        l += s;
        r += 1 - s;
    }
    memcpy(col + l, scratch, (size_t)r * sizeof *col);
}

/* Stable-partition every column of the node-ordered copy over [start, end)
 * by b->side, as partition_stable moved idx (scratch: end - start doubles). */
static void move_node_columns(sporf_builder *b, int64_t start, int64_t end, double *scratch)
{
    for (int64_t j = 0; j < b->p; j++) {
        if (b->xnode32)
            move_node_floats(b->side, b->xnode32 + j * b->xnode_rows, start, end, (float *)scratch);
        else
            move_node_doubles(b->side, b->xnode + j * b->xnode_rows, start, end, scratch);
    }
}

/* partition's split with histograms on: each side keeps its rows in the
 * node's order. The root's rows are in increasing id order, so every node's
 * are, and a candidate's projection reads each column of Xc forwards instead
 * of at random -- on large data the difference between streaming a column
 * through the cache and a miss per row. (max_bins = 0 keeps the swapping
 * partition of model format 8, whose row orders the exact search's ties
 * depend on.) */
static int64_t partition_stable(sporf_builder *b, int64_t start, int64_t end, const sporf_best_split *best,
                                double threshold, int64_t *n_miss)
{
    int32_t *idx = b->idx, *right_idx = b->sort_scratch.ids;
    double *v = b->vals, *right_v = b->sort_scratch.v;
    int64_t nl = start, nr = 0, miss = 0;
    for (int64_t i = start; i < end; i++) {
        int go_left = v[i] <= threshold;
        if (b->has_missing && sporf_is_missing(v[i])) {
            miss++;
            go_left = best->missing_left;
        }
        if (b->node_compact)
            b->side[i] = (unsigned char)go_left;
        /* both sides written, one advanced (as move_node_doubles) */
        const int32_t id = idx[i];
        const double vi = v[i];
        idx[nl] = id;
        v[nl] = vi;
        right_idx[nr] = id;
        right_v[nr] = vi;
        nl += go_left;
        nr += 1 - go_left;
    }
    memcpy(idx + nl, right_idx, (size_t)nr * sizeof *idx);
    memcpy(v + nl, right_v, (size_t)nr * sizeof *v);
    /* the rows' weights and responses move with every split of a node that
     * has them: the task's gain reads the children's by position */
    if (b->node_compact && b->wnode) {
        move_node_doubles(b->side, b->wnode, start, end, right_v);
        move_node_doubles(b->side, b->ynode, start, end, right_v);
    }
    if (b->node_compact && (nl - start >= b->compact_min_rows || nr >= b->compact_min_rows))
        move_node_columns(b, start, end, right_v);
    *n_miss = miss;
    return nl - start;
}

/* Reorder idx[start..end) (and vals, the best projection) so the samples
 * going left come first: those with a value <= the threshold, and those
 * whose value is missing when the split sends them left. Returns the number
 * going left and, in *n_miss, how many values were missing. */
static int64_t partition(sporf_builder *b, int64_t start, int64_t end, sporf_best_split *best,
                         int64_t *n_miss)
{
    if (best->imputed) {
        project_slice_imputed(b, b->best_proj_feature, b->best_proj_weight, best->len, start, end);
    } else if (b->vals_best_ok) { /* the winner's values, kept by try_candidate */
        double *t = b->vals;
        b->vals = b->vals_best;
        b->vals_best = t;
    } else {
        project_slice(b, b->best_proj_feature, b->best_proj_weight, best->len, start, end);
    }
    b->vals_best_ok = 0;
    int32_t *idx = b->idx;
    double *v = b->vals;
    if (best->binned)
        sporf_hist_threshold(v + start, end - start, best);
    const double threshold = best->threshold;
    if (b->hist.max_bins > 0)
        return partition_stable(b, start, end, best, threshold, n_miss);
    int64_t i = start, j = end - 1, miss = 0;
    while (i <= j) {
        int go_left = v[i] <= threshold;
        if (b->has_missing && sporf_is_missing(v[i])) {
            miss++;
            go_left = best->missing_left;
        }
        if (go_left) {
            i++;
        } else {
            int32_t t = idx[i]; idx[i] = idx[j]; idx[j] = t;
            double tv = v[i]; v[i] = v[j]; v[j] = tv;
            j--;
        }
    }
    *n_miss = miss;
    return i - start;
}


static int push(sporf_builder *b, int64_t *top, sporf_stack_item item)
{
    if (!grow_array((void **)&b->stack, &b->stack_cap, *top + 1, sizeof *b->stack))
        return 0;
    b->stack[(*top)++] = item;
    return 1;
}

int sporf_builder_grow(sporf_builder *b, int64_t n_in_tree, sporf_rng *rng,
                       sporf_pool_ctl *ctl, sporf_tree *tree, sporf_error *err)
{
    const sporf_params *P = b->params;
    const sporf_task *task = b->task;
    const int32_t K = b->n_classes;
    int64_t n_nodes = 0, n_leaves = 0, n_proj = 0, top = 0;
    int32_t max_depth_seen = 0;
    double w_root = 0.0;
    for (int64_t i = 0; i < n_in_tree; i++)
        w_root += b->w[b->idx[i]];
    memset(tree, 0, sizeof *tree);
    b->min_weight_leaf = P->min_weight_fraction_leaf * w_root;
    /* Each tree starts from the same sampler state, so a tree does not
     * depend on which trees its worker grew before (thread-count invariance). */
    sporf_sampler_reset(&b->sampler);

    sporf_stack_item root = {0, n_in_tree, 0, -1, 0, 0};
    if (b->compact_min_rows > 0 && n_in_tree >= b->compact_min_rows && reserve_node_copy(b, n_in_tree)) {
        for (int64_t j = 0; j < b->p; j++) {
            if (b->xnode32) {
                const float *src = b->X.f32 + j * b->n;
                float *dst = b->xnode32 + j * b->xnode_rows;
                for (int64_t i = 0; i < n_in_tree; i++)
                    dst[i] = src[b->idx[i]];
            } else {
                sporf_columns_gather(&b->X, j, b->idx, n_in_tree, b->xnode + j * b->xnode_rows);
            }
        }
        for (int64_t i = 0; b->wnode && i < n_in_tree; i++) {
            const int32_t id = b->idx[i];
            b->wnode[i] = b->w[id];
            b->ynode[i] = b->yr ? b->yr[id] : (double)b->y[id];
        }
        root.compact = 1;
    }
    if (!push(b, &top, root))
        goto nomem;
    while (top > 0) {
        sporf_stack_item it = b->stack[--top];
        b->node_compact = it.compact;
        if (ctl && sporf_pool_cancelled(ctl))
            return sporf_set_error(err, SPORF_E_INTERRUPTED, "interrupted");
        if (n_nodes >= SPORF_MAX_TREE_NODES - 1)
            return sporf_set_error(err, SPORF_E_ARG, "a tree would exceed %d nodes (the prediction layout's limit)",
                                   (int)SPORF_MAX_TREE_NODES - 1);
        if (!grow_array((void **)&b->nodes, &b->nodes_cap, n_nodes + 1, sizeof *b->nodes))
            goto nomem;
        const int32_t id = (int32_t)n_nodes++;
        sporf_node *nd = &b->nodes[id];
        memset(nd, 0, sizeof *nd);
        if (it.parent >= 0) {
            if (it.is_left) b->nodes[it.parent].left = id;
            else b->nodes[it.parent].right = id;
        }

        sporf_node_stats st;
        task->node_stats(b, it.start, it.end, &st);
        const int64_t n_node = it.end - it.start;
        if (b->keep_nodes) { /* what the node would predict as a leaf (leaf_choice.h) */
            if (!grow_array((void **)&b->node_rows, &b->node_rows_cap, n_nodes, sizeof *b->node_rows) ||
                !grow_array((void **)&b->node_values, &b->node_values_cap, n_nodes * K, sizeof *b->node_values))
                goto nomem;
            b->node_rows[id] = (int32_t)n_node;
            task->leaf(b, &st, w_root, b->node_values + (int64_t)id * K);
        }
        int is_leaf = (P->max_depth > 0 && it.depth >= P->max_depth) ||
                      n_node < b->min_split_rows || n_node < 2 * b->min_leaf_rows ||
                      st.pure || st.w <= 0.0 || st.w < 2.0 * b->min_weight_leaf;
        sporf_best_split best;
        best.found = 0;
        if (!is_leaf) {
            find_split(b, rng, it.start, it.end, &st, &best);
            is_leaf = !best.found;
        }
        int64_t n_left = 0, n_miss = 0;
        double gain = 0.0, w_side[2] = {0.0, 0.0};
        if (!is_leaf) {
            n_left = partition(b, it.start, it.end, &best, &n_miss);
            gain = task->gain(b, it.start, it.start + n_left, it.end, &st, w_side);
            if (gain < 0.0) gain = 0.0;
            if (n_left <= 0 || n_left >= n_node ||
                gain / w_root + 1e-12 < P->min_impurity_decrease)
                is_leaf = 1;
        }
        if (is_leaf) {
            if (!grow_array((void **)&b->leaf_values, &b->leaf_cap, (n_leaves + 1) * K, sizeof(double)))
                goto nomem;
            task->leaf(b, &st, w_root, b->leaf_values + n_leaves * K);
            nd = &b->nodes[id];
            nd->left = -1;
            nd->right = (int32_t)n_leaves++;
            if (it.depth > max_depth_seen) max_depth_seen = it.depth;
            continue;
        }
        if (!grow_array((void **)&b->proj_feature, &b->proj_cap, n_proj + best.len, sizeof(int32_t)))
            goto nomem;
        int64_t pcap = b->proj_cap;
        /* proj_weight shares proj_cap: grow it to the same capacity. */
        double *pw = realloc(b->proj_weight, (size_t)pcap * sizeof(double));
        if (!pw)
            goto nomem;
        b->proj_weight = pw;
        memcpy(b->proj_feature + n_proj, b->best_proj_feature, (size_t)best.len * sizeof(int32_t));
        memcpy(b->proj_weight + n_proj, b->best_proj_weight, (size_t)best.len * sizeof(double));
        nd = &b->nodes[id];
        nd->proj_start = (int32_t)n_proj;
        nd->proj_len = best.len;
        nd->threshold = best.threshold;
        nd->gain = gain;
        /* A split that saw no missing value sends missing ones to the child
         * holding more of the node's training weight (left on a tie). */
        if (best.imputed)
            nd->missing = SPORF_MISSING_IMPUTE;
        else if (n_miss > 0)
            nd->missing = best.missing_left ? SPORF_MISSING_LEFT : SPORF_MISSING_RIGHT;
        else
            nd->missing = w_side[0] >= w_side[1] ? SPORF_MISSING_LEFT : SPORF_MISSING_RIGHT;
        n_proj += best.len;
        /* partition moved the node-ordered copy if the node still had it */
        sporf_stack_item right = {it.start + n_left, it.end, it.depth + 1, id, 0,
                                  b->node_compact && n_node - n_left >= b->compact_min_rows};
        sporf_stack_item left = {it.start, it.start + n_left, it.depth + 1, id, 1,
                                 b->node_compact && n_left >= b->compact_min_rows};
        if (!push(b, &top, right) || !push(b, &top, left))
            goto nomem;
    }

    /* Copy out exactly-sized arrays; the builder keeps its buffers. */
    tree->nodes = malloc((size_t)n_nodes * sizeof *tree->nodes);
    tree->proj_feature = malloc((size_t)(n_proj > 0 ? n_proj : 1) * sizeof(int32_t));
    tree->proj_weight = malloc((size_t)(n_proj > 0 ? n_proj : 1) * sizeof(double));
    tree->leaf_values = malloc((size_t)(n_leaves * K) * sizeof(double));
    if (!tree->nodes || !tree->proj_feature || !tree->proj_weight || !tree->leaf_values) {
        sporf_tree_release(tree);
        goto nomem;
    }
    memcpy(tree->nodes, b->nodes, (size_t)n_nodes * sizeof *tree->nodes);
    if (n_proj > 0) {
        memcpy(tree->proj_feature, b->proj_feature, (size_t)n_proj * sizeof(int32_t));
        memcpy(tree->proj_weight, b->proj_weight, (size_t)n_proj * sizeof(double));
    }
    memcpy(tree->leaf_values, b->leaf_values, (size_t)(n_leaves * K) * sizeof(double));
    if (b->keep_nodes) {
        tree->node_rows = malloc((size_t)n_nodes * sizeof *tree->node_rows);
        tree->node_values = malloc((size_t)(n_nodes * K) * sizeof *tree->node_values);
        if (!tree->node_rows || !tree->node_values) {
            sporf_tree_release(tree);
            goto nomem;
        }
        memcpy(tree->node_rows, b->node_rows, (size_t)n_nodes * sizeof *tree->node_rows);
        memcpy(tree->node_values, b->node_values, (size_t)(n_nodes * K) * sizeof *tree->node_values);
    }
    tree->n_nodes = (int32_t)n_nodes;
    tree->n_leaves = (int32_t)n_leaves;
    tree->n_proj = (int32_t)n_proj;
    tree->depth = max_depth_seen;
    return SPORF_OK;
nomem:
    return sporf_set_error(err, SPORF_E_NOMEM, "out of memory while growing a tree");
}

/* Class distribution (or mean) of rows[0..n) under weights b->w into out;
 * returns the total weight. */
static double rows_summary(const sporf_builder *b, const int32_t *rows, int64_t n, double *out)
{
    const int32_t K = b->n_classes;
    double W = 0.0;
    memset(out, 0, (size_t)K * sizeof *out);
    for (int64_t i = 0; i < n; i++) {
        const double w = b->w[rows[i]];
        W += w;
        b->task->add_row(b, rows[i], w, out);
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
    const int32_t K = b->n_classes, N = tree->n_nodes;
    double *acc = calloc((size_t)N * (size_t)K, sizeof *acc), *wsum = calloc((size_t)N, sizeof *wsum);
    if (!acc || !wsum) {
        free(acc);
        free(wsum);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory estimating honest nodes");
    }
    memset(tree->node_rows, 0, (size_t)N * sizeof *tree->node_rows);
    for (int64_t r = 0; r < n_est; r++) {
        const int32_t id = est[r];
        const double w = b->w[id];
        const double *x = NULL;
        int64_t cs = b->X.n;
        if (b->X.f32) {
            for (int64_t j = 0; j < b->p; j++) b->xrow[j] = (double)b->X.f32[j * b->X.n + id];
            x = b->xrow;
            cs = 1;
        } else {
            x = b->X.f64 + id;
        }
        for (int32_t i = 0;;) {
            tree->node_rows[i]++;
            wsum[i] += w;
            b->task->add_row(b, id, w, acc + (int64_t)i * K);
            const sporf_node *nd = &tree->nodes[i];
            if (nd->left < 0)
                break;
            i = sporf_tree_stored_child(tree, nd, b->impute, x, cs);
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
    const int32_t K = b->n_classes;
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
        !(rows_summary(b, b->idx, n_struct, tree->prior) > 0.0))
        b->task->empty(b, tree->prior);
    /* Route each estimation row through the stored tree (the forest's packed
     * layout does not exist yet), missing values as the fit sent them; Xc is
     * column-major, so row i starts at Xc + i and its columns are n apart. */
    for (int64_t i = 0; i < n_est; i++) {
        const int32_t id = est[i];
        const int64_t slot = tree->nodes[sporf_columns_stored_leaf(tree, b->impute, &b->X, id, b->xrow)].right;
        const double w = b->w[id];
        wsum[slot] += w;
        b->task->add_row(b, id, w, acc + slot * K);
    }
    const int32_t prior = b->params->honest_prior;
    for (int64_t l = 0; l < L; l++) {
        double *lv = tree->leaf_values + l * K;
        if (wsum[l] <= 0.0 && prior == SPORF_HONEST_UNIFORM) {
            b->task->empty(b, lv); /* each output's uniform distribution */
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

const sporf_task *sporf_task_for(int32_t task, int32_t n_outputs)
{
    switch (task) {
    case SPORF_TASK_REGRESSION: return n_outputs > 1 ? &sporf_task_multi_regression : &sporf_task_regression;
    case SPORF_TASK_UNSUPERVISED: return &sporf_task_unsupervised;
    default: return n_outputs > 1 ? &sporf_task_multi_classification : &sporf_task_classification;
    }
}
