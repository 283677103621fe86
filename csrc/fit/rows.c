/* rows.c -- see rows.h. */
#include "fit/rows.h"
#include "fit/split.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The node-ordered copy of X. The stable partition keeps each node's rows in
 * increasing id order, but a node deep in a tree on millions of rows still
 * has them spread over whole columns: every value a candidate reads is then a
 * cache miss, and the fit grew faster than n log n (benchmarks/notes/speed.md). A large
 * node instead keeps its rows' values contiguous in xnode, and its split moves
 * them: p sequential passes, paid once, against the scattered reads of every
 * candidate. It pays when a column outgrows the cache and the candidates read
 * enough columns per node (sporf_rows_compaction_pays), down to nodes of
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

int sporf_rows_compaction_pays(int64_t n, int64_t p, int64_t reads)
{
    /* reads: values read per row of a node -- the candidates' non-zeros (at
     * least one each), the extra single features, the guided features
     * (target and slopes). A scattered read costs several sequential moves:
     * measured on one tree, 1,000,000 x 80 fit 10% faster with the copy (39
     * reads per row), 300,000 x 200 16% slower (54). */
    return n >= SPORF_COMPACT_MIN_DATA_ROWS && p <= 2 * reads;
}

void sporf_rows_plan_copy(sporf_rows *r, int64_t reads, int one_response)
{
    if (!sporf_rows_compaction_pays(r->n, r->p, reads))
        return;
    r->compact_min_rows = SPORF_COMPACT_MIN_NODE_ROWS; /* xnode: allocated by the first tree */
    r->compact_responses = one_response && r->n >= SPORF_COMPACT_RESPONSE_MIN_ROWS;
}

/* Room in the node-ordered copy for a tree on `rows` rows (its columns
 * xnode_rows apart), 1% to spare for the next bootstrap sample. Returns 0
 * without the memory: a speed-up only, the tree then reads Xc. */
/* Release the node-ordered copy (the tree then reads X). */
static void release_copy(sporf_rows *r)
{
    free(r->xnode);
    free(r->xnode32);
    free(r->side);
    free(r->wnode);
    free(r->ynode);
    r->xnode = NULL;
    r->xnode32 = NULL;
    r->side = NULL;
    r->wnode = NULL;
    r->ynode = NULL;
    r->xnode_rows = 0;
}

int sporf_rows_reserve_copy(sporf_rows *r, int64_t rows)
{
    if ((r->xnode || r->xnode32) && r->xnode_rows >= rows)
        return 1;
    release_copy(r);
    int64_t want = rows + rows / 100;
    if (want > r->n)
        want = r->n;
    /* in the data's own type: float data keep a float copy, half the bytes */
    if (r->X.f32)
        r->xnode32 = malloc((size_t)want * (size_t)r->p * sizeof *r->xnode32);
    else
        r->xnode = malloc((size_t)want * (size_t)r->p * sizeof *r->xnode);
    r->side = malloc((size_t)r->n);
    const int one_response = r->compact_responses;
    if (one_response) {
        r->wnode = malloc((size_t)want * sizeof *r->wnode);
        r->ynode = malloc((size_t)want * sizeof *r->ynode);
    }
    r->xnode_rows = want;
    if ((r->xnode || r->xnode32) && r->side && (!one_response || (r->wnode && r->ynode)))
        return 1;
    release_copy(r);
    return 0;
}

void sporf_rows_fill_copy(sporf_rows *r, int64_t n_in_tree, const int32_t *y, const double *yr)
{
    for (int64_t j = 0; j < r->p; j++) {
        if (r->xnode32) {
            const float *src = r->X.f32 + j * r->n;
            float *dst = r->xnode32 + j * r->xnode_rows;
            for (int64_t i = 0; i < n_in_tree; i++)
                dst[i] = src[r->idx[i]];
        } else {
            sporf_columns_gather(&r->X, j, r->idx, n_in_tree, r->xnode + j * r->xnode_rows);
        }
    }
    for (int64_t i = 0; r->wnode && i < n_in_tree; i++) {
        const int32_t id = r->idx[i];
        r->wnode[i] = r->w[id];
        r->ynode[i] = yr ? yr[id] : (double)y[id];
    }
}

/* out[k] = col[rows[k]] for k < m (double data), taking the values' range
 * into r->range_* on the way: the gather waits on memory, so the
 * comparisons, in four chains, cost nothing next to it, and the histogram
 * scan need not read the values once more for their range (hist_scan.h). */
static void gather_with_range(sporf_rows *r, const double *col, const int32_t *rows, int64_t m, double *out,
                              double wk, int add)
{
    double lo[4], hi[4];
    int nan = 0;
    int64_t k = 0;
    for (int u = 0; u < 4; u++) {
        lo[u] = INFINITY;
        hi[u] = -INFINITY;
    }
    for (; k + 4 <= m; k += 4) {
        /* the lines a few groups ahead (columns.h) */
        if (k + SPORF_GATHER_AHEAD + 4 <= m)
            for (int u = 0; u < 4; u++)
                SPORF_PREFETCH(col + rows[k + SPORF_GATHER_AHEAD + u]);
        for (int u = 0; u < 4; u++) {
            const double x = add ? out[k + u] + wk * col[rows[k + u]] : col[rows[k + u]];
            out[k + u] = x;
            lo[u] = x < lo[u] ? x : lo[u];
            hi[u] = x > hi[u] ? x : hi[u];
            nan |= x != x;
        }
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
    r->range_lo = lo[0];
    r->range_hi = hi[0];
    r->range_nan = nan;
    r->range_ok = 1;
}

/* vals[start..end) = projection of the node's samples, in the same
 * arithmetic order as sporf_tree_find_leaf so fit and predict agree exactly.
 * A node in the node-ordered copy reads its columns forwards; any other
 * gathers them through idx. */
void sporf_rows_project(sporf_rows *r, const int32_t *f, const double *w, int32_t len,
                          int64_t start, int64_t end)
{
    const int32_t *idx = r->idx;
    double *v = r->vals;
    const int compact = r->node_compact;
    r->range_ok = 0;
    if (len == 1 && w[0] == 1.0) {
        if (!compact && r->X.f64) {
            gather_with_range(r, r->X.f64 + (int64_t)f[0] * r->n, idx + start, end - start, v + start, 1.0, 0);
        } else if (compact && r->xnode32) {
            const float *col = r->xnode32 + (int64_t)f[0] * r->xnode_rows;
            for (int64_t i = start; i < end; i++)
                v[i] = (double)col[i];
        } else if (compact) {
            memcpy(v + start, r->xnode + (int64_t)f[0] * r->xnode_rows + start, (size_t)(end - start) * sizeof *v);
        } else {
            sporf_columns_gather(&r->X, f[0], idx + start, end - start, v + start);
        }
        return;
    }
    for (int64_t i = start; i < end; i++)
        v[i] = 0.0;
    for (int32_t k = 0; k < len; k++) {
        const double wk = w[k];
        if (!compact && r->X.f64 && k == len - 1) { /* the last term: the values are final */
            gather_with_range(r, r->X.f64 + (int64_t)f[k] * r->n, idx + start, end - start, v + start, wk, 1);
        } else if (compact && r->xnode32) {
            const float *col = r->xnode32 + (int64_t)f[k] * r->xnode_rows;
            for (int64_t i = start; i < end; i++)
                v[i] += wk * (double)col[i];
        } else if (compact) {
            const double *col = r->xnode + (int64_t)f[k] * r->xnode_rows;
            for (int64_t i = start; i < end; i++)
                v[i] += wk * col[i];
        } else {
            sporf_columns_gather_add(&r->X, f[k], wk, idx + start, end - start, v + start);
        }
    }
}

/* project_slice with each missing feature at its training mean (r->impute):
 * the projection SPORF_MISSING_IMPUTE splits send missing rows by, in the
 * arithmetic of sporf_node_project_imputed. */
void sporf_rows_project_imputed(sporf_rows *r, const int32_t *f, const double *w, int32_t len,
                                  int64_t start, int64_t end)
{
    const int32_t *idx = r->idx;
    double *v = r->vals;
    if (len == 1 && w[0] == 1.0) {
        const double fill = r->impute[f[0]];
        for (int64_t i = start; i < end; i++) {
            const double x = sporf_columns_at(&r->X, f[0], idx[i]);
            v[i] = sporf_is_missing(x) ? fill : x;
        }
        return;
    }
    for (int64_t i = start; i < end; i++)
        v[i] = 0.0;
    for (int32_t k = 0; k < len; k++) {
        const double wk = w[k], fill = r->impute[f[k]];
        for (int64_t i = start; i < end; i++) {
            const double x = sporf_columns_at(&r->X, f[k], idx[i]);
            v[i] += wk * (sporf_is_missing(x) ? fill : x);
        }
    }
}

/* Move the rows of idx[start..end) whose projected value is missing to the
 * end of the slice, in order, the others keeping theirs; returns how many. */
int64_t sporf_rows_missing_last(sporf_rows *r, int64_t start, int64_t end)
{
    int32_t *idx = r->idx;
    double *v = r->vals;
    int32_t *miss = r->sort_scratch.ids; /* free until the sort */
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
 * by r->side, as partition_stable moved idx (scratch: end - start doubles). */
static void move_node_columns(sporf_rows *r, int64_t start, int64_t end, double *scratch)
{
    for (int64_t j = 0; j < r->p; j++) {
        if (r->xnode32)
            move_node_floats(r->side, r->xnode32 + j * r->xnode_rows, start, end, (float *)scratch);
        else
            move_node_doubles(r->side, r->xnode + j * r->xnode_rows, start, end, scratch);
    }
}

/* partition's split with histograms on: each side keeps its rows in the
 * node's order. The root's rows are in increasing id order, so every node's
 * are, and a candidate's projection reads each column of Xc forwards instead
 * of at random -- on large data the difference between streaming a column
 * through the cache and a miss per row. (max_bins = 0 keeps the swapping
 * partition of model format 8, whose row orders the exact search's ties
 * depend on.) */
static int64_t partition_stable(sporf_rows *r, int64_t start, int64_t end, double threshold, int missing_left,
                                int64_t *n_miss)
{
    int32_t *idx = r->idx, *right_idx = r->sort_scratch.ids;
    double *v = r->vals, *right_v = r->sort_scratch.v;
    int64_t nl = start, nr = 0, miss = 0;
    for (int64_t i = start; i < end; i++) {
        int go_left = v[i] <= threshold;
        if (r->has_missing && sporf_is_missing(v[i])) {
            miss++;
            go_left = missing_left;
        }
        if (r->node_compact)
            r->side[i] = (unsigned char)go_left;
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
    if (r->node_compact && r->wnode) {
        move_node_doubles(r->side, r->wnode, start, end, right_v);
        move_node_doubles(r->side, r->ynode, start, end, right_v);
    }
    if (r->node_compact && (nl - start >= r->compact_min_rows || nr >= r->compact_min_rows))
        move_node_columns(r, start, end, right_v);
    *n_miss = miss;
    return nl - start;
}

/* The swapping partition of model format 8 (max_bins = 0), whose row orders
 * the exact search's ties depend on. */
static int64_t partition_swap(sporf_rows *r, int64_t start, int64_t end, double threshold, int missing_left,
                              int64_t *n_miss)
{
    int32_t *idx = r->idx;
    double *v = r->vals;
    int64_t i = start, j = end - 1, miss = 0;
    while (i <= j) {
        int go_left = v[i] <= threshold;
        if (r->has_missing && sporf_is_missing(v[i])) {
            miss++;
            go_left = missing_left;
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

int64_t sporf_rows_partition(sporf_rows *r, int64_t start, int64_t end, double threshold, int missing_left,
                             int stable, int64_t *n_miss)
{
    return stable ? partition_stable(r, start, end, threshold, missing_left, n_miss)
                  : partition_swap(r, start, end, threshold, missing_left, n_miss);
}

int sporf_rows_init(sporf_rows *r, const sporf_columns *X, int has_missing)
{
    memset(r, 0, sizeof *r);
    r->X = *X;
    r->n = X->n;
    r->p = X->p;
    r->has_missing = has_missing;
    const size_t n = (size_t)X->n;
    r->w = calloc(n, sizeof *r->w);
    r->idx = malloc(n * sizeof *r->idx);
    r->vals = malloc(n * sizeof *r->vals);
    r->vals_best = malloc(n * sizeof *r->vals_best);
    r->xrow = malloc((size_t)X->p * sizeof *r->xrow);
    const int sort_ok = sporf_sort_scratch_init(&r->sort_scratch, X->n);
    if (sort_ok && r->w && r->idx && r->vals && r->vals_best && r->xrow)
        return 1;
    sporf_rows_free(r);
    return 0;
}

void sporf_rows_free(sporf_rows *r)
{
    sporf_sort_scratch_free(&r->sort_scratch);
    free(r->w);
    free(r->idx);
    free(r->vals);
    free(r->vals_best);
    free(r->xrow);
    release_copy(r);
    memset(r, 0, sizeof *r);
}
