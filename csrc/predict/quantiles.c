/* quantiles.c -- conditional quantiles of a quantile regression forest
 * (Meinshausen 2006; sporf.h, sporf_forest_predict_quantiles).
 *
 * A tree gives each training row in the query's leaf the weight
 * w_i / W_leaf (w_i: the row's sample weight times its bootstrap draws, the
 * weight its leaf mean gave it; W_leaf: the leaf's total), so the forest's
 * weights, averaged over the trees, sum to 1 and their weighted mean is
 * the forest's prediction. The conditional distribution function is
 * F(y | x) = sum of the weights of the rows with response <= y, and the
 * alpha quantile is the smallest training response at which F reaches
 * alpha. A leaf's rows are stored as ranks into the sorted responses, in
 * ascending order, so a query's rows are the trees' lists merged; the
 * merge and the sums run in tree order, whatever the thread count. */
#include "predict/predict.h"
#include "util/matrix.h"
#include "util/pool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rows per apply pass: their leaf indices (rows x trees int64) stay below
 * about 32 MB. */
#define LEAF_BYTES ((int64_t)32 << 20)
/* Rows per unit of the threads' work. */
#define UNIT_ROWS 64

/* A worker's merge buffers, grown as queries need. */
typedef struct qrf_scratch {
    int32_t *rank[2];
    double *weight[2];
    int64_t cap;
    int64_t *run;   /* run starts (sorted runs of buffer 0), and one past the last */
    int64_t run_cap;
    double *dense;  /* qrf_n weights by rank, zero between queries (allocated on first use) */
} qrf_scratch;

typedef struct qrf_ctx {
    const sporf_forest *f;
    const int64_t *leaves;     /* rows x n_trees stored node indices of this pass */
    int64_t r0, nrow;          /* the pass's rows within X */
    const uint8_t *inbag;      /* out-of-bag quantiles: the trees' in-bag bitmaps; else NULL */
    int64_t bitmap_bytes;
    const double *probs;
    const int64_t *by_prob;    /* the probabilities' indices, ascending */
    int64_t n_probs;
    const double *y;           /* interval scores: X's responses (then n_probs is 1); else NULL */
    double *out;               /* X's rows x n_probs */
    qrf_scratch *scratch;      /* per worker */
} qrf_ctx;

static int grow_scratch(qrf_scratch *s, int64_t need, int64_t runs)
{
    if (runs + 1 > s->run_cap) {
        int64_t cap = s->run_cap > 0 ? s->run_cap : 256;
        while (cap < runs + 1) cap *= 2;
        int64_t *r = realloc(s->run, (size_t)cap * sizeof *r);
        if (!r)
            return 0;
        s->run = r;
        s->run_cap = cap;
    }
    if (need <= s->cap)
        return 1;
    int64_t cap = s->cap > 0 ? s->cap : 1024;
    while (cap < need) cap *= 2;
    for (int k = 0; k < 2; k++) {
        int32_t *r = realloc(s->rank[k], (size_t)cap * sizeof *r);
        if (r) s->rank[k] = r;
        double *w = realloc(s->weight[k], (size_t)cap * sizeof *w);
        if (w) s->weight[k] = w;
        if (!r || !w)
            return 0;
    }
    s->cap = cap;
    return 1;
}

/* Append the training rows a tree's leaf (a stored node index) gives a
 * query to the worker's buffer 0 as a sorted run, each with its share of
 * their total weight. Returns 1 if the tree contributed, 0 if it abstained
 * (an honest leaf that received no held-out row has no rows to give, whatever
 * honest_prior puts in its mean), -1 when out of memory. */
static int add_tree(const sporf_forest *f, const sporf_tree *tr, int64_t node, qrf_scratch *s, int64_t *n_e,
                    int64_t *n_runs)
{
    const int32_t slot = tr->nodes[node].right;
    const int32_t lo = tr->leaf_start[slot], hi = tr->leaf_start[slot + 1];
    double W = 0.0;
    for (int32_t k = lo; k < hi; k++)
        W += f->qrf_w ? f->qrf_w[tr->leaf_rank[k]] : 1.0;
    if (!(W > 0.0))
        return 0;
    if (!grow_scratch(s, *n_e + (hi - lo), *n_runs + 1))
        return -1;
    s->run[(*n_runs)++] = *n_e;
    for (int32_t k = lo; k < hi; k++, (*n_e)++) {
        const int32_t r = tr->leaf_rank[k];
        s->rank[0][*n_e] = r;
        s->weight[0][*n_e] = (f->qrf_w ? f->qrf_w[r] : 1.0) / W;
    }
    return 1;
}

/* Merge the sorted runs of (rank, weight) in buffer 0 pairwise until one is
 * left; returns the buffer that holds it. */
static int merge_runs(qrf_scratch *s, int64_t n_runs)
{
    int from = 0;
    while (n_runs > 1) {
        const int to = 1 - from;
        int64_t out_runs = 0;
        for (int64_t k = 0; k < n_runs; k += 2) {
            const int64_t a0 = s->run[k], a1 = s->run[k + 1];
            const int64_t b1 = k + 2 <= n_runs ? s->run[k + 2] : a1;
            int64_t i = a0, j = a1, o = a0;
            while (i < a1 && j < b1) {
                const int take_left = s->rank[from][i] <= s->rank[from][j];
                const int64_t src = take_left ? i++ : j++;
                s->rank[to][o] = s->rank[from][src];
                s->weight[to][o++] = s->weight[from][src];
            }
            for (; i < a1; i++, o++) {
                s->rank[to][o] = s->rank[from][i];
                s->weight[to][o] = s->weight[from][i];
            }
            for (; j < b1; j++, o++) {
                s->rank[to][o] = s->rank[from][j];
                s->weight[to][o] = s->weight[from][j];
            }
            s->run[out_runs++] = a0;
        }
        s->run[out_runs] = s->run[n_runs];
        n_runs = out_runs;
        from = to;
    }
    return from;
}

/* A row's conformity score for calibrated intervals (sporf.h,
 * sporf_forest_interval_scores): how far into either tail of its conditional
 * distribution F its response y lies, max(1/2 - F(y), F(y-) - 1/2), so that
 * y lies in [Q(1/2 - q), Q(1/2 + q)] exactly when q reaches the score (Q the
 * quantile function of quantile_unit; the upper end needs F(y-) < 1/2 + q,
 * which the levels' margin of sporf_interval_levels secures). The sums run
 * in tree order, whatever the thread count. */
static double interval_score(const sporf_forest *f, const qrf_scratch *s, int64_t n_e, double total, double y)
{
    double below = 0.0, at_or_below = 0.0;
    for (int64_t e = 0; e < n_e; e++) {
        const double v = f->qrf_y[s->rank[0][e]], w = s->weight[0][e];
        below += v < y ? w : 0.0;
        at_or_below += v <= y ? w : 0.0;
    }
    const double lower_tail = 0.5 - at_or_below / total, upper_tail = below / total - 0.5;
    const double score = lower_tail > upper_tail ? lower_tail : upper_tail;
    return score > 0.5 ? 0.5 : score < -0.5 ? -0.5 : score; /* the sums' rounding */
}

static int quantile_unit(void *vctx, int64_t unit, int32_t worker, sporf_pool_ctl *ctl, sporf_error *err)
{
    (void)ctl;
    qrf_ctx *c = vctx;
    const sporf_forest *f = c->f;
    const int64_t T = f->n_trees;
    qrf_scratch *s = &c->scratch[worker];
    const int64_t first = unit * UNIT_ROWS;
    const int64_t last = first + UNIT_ROWS < c->nrow ? first + UNIT_ROWS : c->nrow;
    for (int64_t q = first; q < last; q++) {
        const int64_t row = c->r0 + q;
        double *out = c->out + row * c->n_probs;
        int64_t n_e = 0, n_runs = 0, n_trees = 0;
        for (int64_t t = 0; t < T; t++) {
            if (c->inbag && (c->inbag[t * c->bitmap_bytes + (row >> 3)] & (1u << (row & 7))))
                continue;
            const int added = add_tree(f, &f->trees[t], c->leaves[q * T + t], s, &n_e, &n_runs);
            if (added < 0)
                return sporf_set_error(err, SPORF_E_NOMEM, "out of memory merging the leaves' rows");
            n_trees += added;
        }
        if (n_runs == 0) { /* every tree abstained, or (out of bag) held the row */
            for (int64_t k = 0; k < c->n_probs; k++) out[k] = NAN;
            continue;
        }
        s->run[n_runs] = n_e;
        /* Each contributing tree's weights sum to 1: the total is their count.
         * Rounding must not push F past the last row of an exact boundary
         * (two rows of weight 1/2 and alpha 0.5 give the first). */
        const double total = (double)n_trees, slack = 1e-12 * total;
        if (c->y) {
            out[0] = interval_score(f, s, n_e, total, c->y[row]);
            continue;
        }
        if ((double)n_e * log2((double)n_runs + 1.0) <= (double)f->qrf_n) {
            /* few rows: merge the runs, then walk the distribution */
            const int b = merge_runs(s, n_runs);
            const int32_t *rank = s->rank[b];
            const double *weight = s->weight[b];
            int64_t e = 0;
            double F = weight[0];
            for (int64_t k = 0; k < c->n_probs; k++) {
                const int64_t j = c->by_prob[k];
                const double target = c->probs[j] * total - slack;
                while (F < target && e + 1 < n_e)
                    F += weight[++e];
                out[j] = f->qrf_y[rank[e]];
            }
            continue;
        }
        /* many rows (large leaves, or a small training set): add the weights
         * up by rank and walk the ranks */
        if (!s->dense && !(s->dense = calloc((size_t)f->qrf_n, sizeof *s->dense)))
            return sporf_set_error(err, SPORF_E_NOMEM, "out of memory adding the leaves' rows up");
        int64_t lowest = f->qrf_n;
        for (int64_t e = 0; e < n_e; e++) {
            s->dense[s->rank[0][e]] += s->weight[0][e];
            if (s->rank[0][e] < lowest) lowest = s->rank[0][e];
        }
        int64_t r = lowest;
        double F = s->dense[r];
        for (int64_t k = 0; k < c->n_probs; k++) {
            const int64_t j = c->by_prob[k];
            const double target = c->probs[j] * total - slack;
            while (F < target && r + 1 < f->qrf_n)
                F += s->dense[++r];
            /* stop at a rank a row holds (ranks past the last weigh nothing) */
            while (s->dense[r] == 0.0 && r > lowest)
                r--;
            out[j] = f->qrf_y[r];
        }
        for (int64_t e = 0; e < n_e; e++)
            s->dense[s->rank[0][e]] = 0.0;
    }
    return SPORF_OK;
}

static int by_probability(const void *a, const void *b, const double *probs)
{
    const double x = probs[*(const int64_t *)a], y = probs[*(const int64_t *)b];
    return (x > y) - (x < y);
}

static int no_quantiles(const sporf_forest *f, sporf_error *err)
{
    if (f->qrf_y && f->task == SPORF_TASK_REGRESSION)
        return SPORF_OK;
    if (f->task == SPORF_TASK_SURVIVAL)
        return sporf_set_error(err, SPORF_E_ARG, "a survival forest has survival curves, not quantiles of a response");
    return sporf_set_error(err, SPORF_E_ARG, "this forest keeps no quantiles: grow it with quantiles=True "
                                             "(R: quantiles = TRUE)");
}

/* The quantiles (y NULL) or the interval scores (y X's responses, probs
 * unused, out one value a row) of X's rows. */
static int quantile_passes(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag, const double *probs,
                           int64_t n_probs, const double *y, int32_t n_jobs, double *out, sporf_error *err);

int sporf_forest_quantiles(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag, const double *probs,
                           int64_t n_probs, int32_t n_jobs, double *out, sporf_error *err)
{
    int rc = no_quantiles(f, err);
    if (rc != SPORF_OK)
        return rc;
    if (!probs || n_probs < 1)
        return sporf_set_error(err, SPORF_E_ARG, "quantiles: at least one probability is required");
    for (int64_t k = 0; k < n_probs; k++)
        if (!(probs[k] >= 0.0 && probs[k] <= 1.0))
            return sporf_set_error(err, SPORF_E_ARG, "quantiles: %g is not a probability in [0, 1]", probs[k]);
    return quantile_passes(f, X, inbag, probs, n_probs, NULL, n_jobs, out, err);
}

int sporf_forest_quantile_scores(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag, const double *y,
                                 int32_t n_jobs, double *scores, sporf_error *err)
{
    int rc = no_quantiles(f, err);
    if (rc != SPORF_OK)
        return rc;
    for (int64_t i = 0; i < X->nrow; i++)
        if (!isfinite(y[i]))
            return sporf_set_error(err, SPORF_E_ARG, "y[%lld] is not a finite number", (long long)i);
    const double half = 0.5;
    return quantile_passes(f, X, inbag, &half, 1, y, n_jobs, scores, err);
}

static int quantile_passes(const sporf_forest *f, const sporf_matrix *X, const uint8_t *inbag, const double *probs,
                           int64_t n_probs, const double *y, int32_t n_jobs, double *out, sporf_error *err)
{
    /* X's values are checked here, once, so a bad one is named by its row in X */
    int rc = sporf_check_query(f, X, err);
    if (rc != SPORF_OK)
        return rc;
    if (X->nrow == 0)
        return SPORF_OK;
    const int64_t T = f->n_trees;
    int64_t pass = LEAF_BYTES / (T * (int64_t)sizeof(int64_t));
    if (pass < UNIT_ROWS) pass = UNIT_ROWS;
    if (pass > X->nrow) pass = X->nrow;
    const int32_t threads = sporf_pool_threads(n_jobs, (pass + UNIT_ROWS - 1) / UNIT_ROWS);
    int64_t *by_prob = malloc((size_t)n_probs * sizeof *by_prob);
    int64_t *leaves = malloc((size_t)((pass > 0 ? pass : 1) * T) * sizeof *leaves);
    qrf_scratch *scratch = calloc((size_t)threads, sizeof *scratch);
    if (!by_prob || !leaves || !scratch) {
        rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
        goto done;
    }
    /* insertion sort of the (few) probabilities, stable */
    for (int64_t k = 0; k < n_probs; k++) {
        int64_t j = k;
        while (j > 0 && by_probability(&by_prob[j - 1], &k, probs) > 0) {
            by_prob[j] = by_prob[j - 1];
            j--;
        }
        by_prob[j] = k;
    }
    for (int64_t r0 = 0; r0 < X->nrow && rc == SPORF_OK; r0 += pass) {
        const int64_t nrow = r0 + pass < X->nrow ? pass : X->nrow - r0;
        const sporf_matrix part = {X->data + r0 * X->row_stride, nrow, X->ncol, X->row_stride, X->col_stride, NULL};
        if ((rc = sporf_forest_apply(f, &part, n_jobs, leaves, NULL, NULL, err)) != SPORF_OK)
            break;
        qrf_ctx c = {f, leaves, r0, nrow, inbag, (X->nrow + 7) / 8, probs, by_prob, n_probs, y, out, scratch};
        rc = sporf_pool_run(threads, (nrow + UNIT_ROWS - 1) / UNIT_ROWS, quantile_unit, &c, NULL, NULL, err);
    }
done:
    for (int32_t w = 0; scratch && w < threads; w++) {
        for (int k = 0; k < 2; k++) {
            free(scratch[w].rank[k]);
            free(scratch[w].weight[k]);
        }
        free(scratch[w].dense);
        free(scratch[w].run);
    }
    free(scratch);
    free(leaves);
    free(by_prob);
    return rc;
}

int sporf_forest_predict_quantiles(const sporf_forest *f, const sporf_matrix *X, const double *probs, int64_t n_probs,
                                   int32_t n_jobs, double *out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !X || !out)
        return sporf_set_error(err, SPORF_E_ARG, "predict_quantiles: forest, X and out are required");
    return sporf_forest_quantiles(f, X, NULL, probs, n_probs, n_jobs, out, err);
}
