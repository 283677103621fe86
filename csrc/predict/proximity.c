/* proximity.c -- forest proximities: each query row's most similar reference
 * rows, or the dense matrix. Two rows are similar in a tree when they reach
 * the same leaf. Per tree the reference rows are bucketed by leaf, so a query
 * row meets only its leaf-mates: the work is the sum of the leaf sizes it
 * visits, and no n x n array exists unless the dense matrix is asked for. */
#include "predict/predict.h"

#include "util/matrix.h"
#include "util/pool.h"

#include <stdlib.h>
#include <string.h>

#define QUERY_BLOCK 256

typedef struct prox_ctx {
    const sporf_forest *f;
    int64_t T, n_ref, n_query, k;
    int self;                 /* query rows are the reference rows */
    const int32_t *qleaf;     /* n_query x T leaf slots */
    const int64_t *leaf_base; /* per tree: offset of its first leaf in leaf_start */
    const int64_t *leaf_start;/* per tree and leaf: first member (relative to t * n_ref); one past the last leaf too */
    const int32_t *members;   /* per tree: n_ref reference rows ordered by leaf */
    int32_t **count;          /* per worker: n_ref co-occurrence counts (zero between rows) */
    int32_t **touched;        /* per worker: reference rows with a count > 0 */
    int64_t *index_out;
    double *sim_out;          /* neighbors: n_query x k; dense: n_query x n_ref */
} prox_ctx;

/* Leaf slot of every row of X in every tree (n x T, row-major). */
static int leaf_slots(const sporf_forest *f, const sporf_matrix *X, int32_t n_jobs, int32_t **out, sporf_error *err)
{
    const int64_t n = X->nrow, T = f->n_trees;
    int64_t *nodes = malloc((size_t)n * (size_t)T * sizeof *nodes);
    int32_t *slots = malloc((size_t)n * (size_t)T * sizeof *slots);
    if (!nodes || !slots) {
        free(nodes);
        free(slots);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory for the leaves of %lld rows x %lld trees",
                               (long long)n, (long long)T);
    }
    int rc = sporf_forest_apply(f, X, n_jobs, nodes, NULL, NULL, err);
    if (rc == SPORF_OK)
        for (int64_t i = 0; i < n; i++)
            for (int64_t t = 0; t < T; t++)
                slots[i * T + t] = f->trees[t].nodes[nodes[i * T + t]].right; /* a leaf's slot */
    free(nodes);
    if (rc != SPORF_OK) {
        free(slots);
        return rc;
    }
    *out = slots;
    return SPORF_OK;
}

/* Count, for query row q, the trees it shares a leaf with each reference row;
 * returns the number of distinct reference rows met (listed in touched). */
static int64_t count_row(const prox_ctx *c, int64_t q, int32_t *count, int32_t *touched)
{
    int64_t m = 0;
    for (int64_t t = 0; t < c->T; t++) {
        const int64_t *ls = c->leaf_start + c->leaf_base[t];
        const int32_t slot = c->qleaf[q * c->T + t];
        const int32_t *mem = c->members + t * c->n_ref;
        for (int64_t a = ls[slot]; a < ls[slot + 1]; a++) {
            const int32_t j = mem[a];
            if (count[j]++ == 0) touched[m++] = j;
        }
    }
    return m;
}

/* Heap order for the k best: a is "worse" than b when it has fewer shared
 * trees, or as many and a larger index. */
static inline int worse(int32_t ca, int32_t ia, int32_t cb, int32_t ib) { return ca < cb || (ca == cb && ia > ib); }

static void sift_down(int32_t *hc, int32_t *hi, int64_t n, int64_t i)
{
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && worse(hc[l], hi[l], hc[m], hi[m])) m = l;
        if (r < n && worse(hc[r], hi[r], hc[m], hi[m])) m = r;
        if (m == i) return;
        int32_t tc = hc[i], ti = hi[i];
        hc[i] = hc[m]; hi[i] = hi[m];
        hc[m] = tc; hi[m] = ti;
        i = m;
    }
}

static int neighbors_block(void *vctx, int64_t blk, int32_t worker, sporf_pool_ctl *ctl, sporf_error *err)
{
    (void)ctl;
    (void)err;
    const prox_ctx *c = vctx;
    int32_t *count = c->count[worker], *touched = c->touched[worker];
    const int64_t k = c->k;
    /* The heap lives in the output row: counts in a scratch of k, indices in place. */
    int32_t *hc = touched + c->n_ref, *hi = hc + k;
    int64_t q1 = (blk + 1) * QUERY_BLOCK;
    if (q1 > c->n_query) q1 = c->n_query;
    for (int64_t q = blk * QUERY_BLOCK; q < q1; q++) {
        const int64_t m = count_row(c, q, count, touched);
        if (c->self) count[q] = 0; /* a row is not its own neighbour */
        int64_t h = 0;
        for (int64_t a = 0; a < m; a++) {
            const int32_t j = touched[a], cj = count[j];
            if (cj == 0) continue;
            if (h < k) {
                hc[h] = cj;
                hi[h] = j;
                /* sift up */
                for (int64_t i = h++; i > 0;) {
                    int64_t p = (i - 1) / 2;
                    if (!worse(hc[i], hi[i], hc[p], hi[p])) break;
                    int32_t tc = hc[i], ti = hi[i];
                    hc[i] = hc[p]; hi[i] = hi[p];
                    hc[p] = tc; hi[p] = ti;
                    i = p;
                }
            } else if (worse(hc[0], hi[0], cj, j)) {
                hc[0] = cj;
                hi[0] = j;
                sift_down(hc, hi, h, 0);
            }
        }
        /* Pop worst-first into the row's tail so it ends best-first. */
        int64_t *io = c->index_out + q * k;
        double *so = c->sim_out + q * k;
        const int64_t found = h;
        for (int64_t pos = found - 1; pos >= 0; pos--) {
            io[pos] = hi[0];
            so[pos] = (double)hc[0] / (double)c->T;
            hc[0] = hc[h - 1];
            hi[0] = hi[h - 1];
            h--;
            sift_down(hc, hi, h, 0);
        }
        /* Complete with unrelated rows, in index order. */
        int64_t pos = found;
        for (int64_t j = 0; j < c->n_ref && pos < k; j++) {
            if (count[j] > 0 || (c->self && j == q)) continue;
            io[pos] = j;
            so[pos++] = 0.0;
        }
        for (int64_t a = 0; a < m; a++) count[touched[a]] = 0;
        if (c->self) count[q] = 0;
    }
    return SPORF_OK;
}

static int dense_block(void *vctx, int64_t blk, int32_t worker, sporf_pool_ctl *ctl, sporf_error *err)
{
    (void)ctl;
    (void)err;
    const prox_ctx *c = vctx;
    int32_t *count = c->count[worker], *touched = c->touched[worker];
    int64_t q1 = (blk + 1) * QUERY_BLOCK;
    if (q1 > c->n_query) q1 = c->n_query;
    for (int64_t q = blk * QUERY_BLOCK; q < q1; q++) {
        double *row = c->sim_out + q * c->n_ref;
        memset(row, 0, (size_t)c->n_ref * sizeof *row);
        const int64_t m = count_row(c, q, count, touched);
        for (int64_t a = 0; a < m; a++) {
            row[touched[a]] = (double)count[touched[a]] / (double)c->T;
            count[touched[a]] = 0;
        }
    }
    return SPORF_OK;
}

static int run(const sporf_forest *f, const sporf_matrix *reference, const sporf_matrix *query, int64_t k,
               int32_t n_jobs, int64_t *index_out, double *sim_out, sporf_progress_fn progress, void *user_data,
               sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !reference || !sim_out || (k > 0 && !index_out))
        return sporf_set_error(err, SPORF_E_ARG, "proximity: forest, reference and outputs are required");
    int rc = sporf_check_matrix(reference, f->n_features, SPORF_CHECK_NO_INF, "reference", err);
    if (rc == SPORF_OK && query)
        rc = sporf_check_matrix(query, f->n_features, SPORF_CHECK_NO_INF, "X", err);
    if (rc != SPORF_OK)
        return rc;
    prox_ctx c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.T = f->n_trees;
    c.n_ref = reference->nrow;
    c.self = query == NULL;
    c.n_query = query ? query->nrow : c.n_ref;
    c.k = k;
    c.index_out = index_out;
    c.sim_out = sim_out;
    const int64_t max_k = c.self ? c.n_ref - 1 : c.n_ref;
    if (k > 0 && (k > max_k))
        return sporf_set_error(err, SPORF_E_ARG,
                               "n_neighbors = %lld, but there %s only %lld reference row%s%s", (long long)k,
                               max_k == 1 ? "is" : "are", (long long)max_k, max_k == 1 ? "" : "s",
                               c.self ? " other than the row itself" : "");

    const int64_t nb = (c.n_query + QUERY_BLOCK - 1) / QUERY_BLOCK;
    const int32_t n_threads = sporf_pool_threads(n_jobs, nb);
    int32_t *ref_leaf = NULL, *query_leaf = NULL, *members = NULL;
    int64_t *leaf_base = NULL, *leaf_start = NULL;
    int64_t n_leaf_entries = 0;
    for (int64_t t = 0; t < c.T; t++) n_leaf_entries += f->trees[t].n_leaves + 1;
    c.count = calloc((size_t)n_threads, sizeof *c.count);
    c.touched = calloc((size_t)n_threads, sizeof *c.touched);
    leaf_base = malloc((size_t)c.T * sizeof *leaf_base);
    leaf_start = calloc((size_t)n_leaf_entries, sizeof *leaf_start);
    members = malloc((size_t)c.T * (size_t)c.n_ref * sizeof *members);
    if (!c.count || !c.touched || !leaf_base || !leaf_start || !members) {
        rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory for the proximity of %lld rows", (long long)c.n_ref);
        goto done;
    }
    for (int32_t w = 0; w < n_threads; w++) {
        c.count[w] = calloc((size_t)c.n_ref, sizeof(int32_t));
        /* touched (n_ref) + the heap's counts and indices (2k) */
        c.touched[w] = malloc((size_t)(c.n_ref + 2 * (k > 0 ? k : 0)) * sizeof(int32_t));
        if (!c.count[w] || !c.touched[w]) {
            rc = sporf_set_error(err, SPORF_E_NOMEM, "out of memory for the proximity scratch");
            goto done;
        }
    }
    if ((rc = leaf_slots(f, reference, n_jobs, &ref_leaf, err)) != SPORF_OK)
        goto done;
    if (query && (rc = leaf_slots(f, query, n_jobs, &query_leaf, err)) != SPORF_OK)
        goto done;
    c.qleaf = query ? query_leaf : ref_leaf;

    /* Bucket the reference rows by leaf, per tree (a counting sort, so each
     * leaf lists its rows in increasing order). */
    int64_t base = 0;
    for (int64_t t = 0; t < c.T; t++) {
        const int64_t L = f->trees[t].n_leaves;
        int64_t *ls = leaf_start + base;
        leaf_base[t] = base;
        for (int64_t i = 0; i < c.n_ref; i++) ls[ref_leaf[i * c.T + t] + 1]++;
        for (int64_t l = 0; l < L; l++) ls[l + 1] += ls[l];
        int32_t *mem = members + t * c.n_ref;
        for (int64_t i = 0; i < c.n_ref; i++) mem[ls[ref_leaf[i * c.T + t]]++] = (int32_t)i;
        for (int64_t l = L; l > 0; l--) ls[l] = ls[l - 1]; /* the fill advanced each start to the next */
        ls[0] = 0;
        base += L + 1;
    }
    c.leaf_base = leaf_base;
    c.leaf_start = leaf_start;
    c.members = members;
    rc = sporf_pool_run(n_threads, nb, k > 0 ? neighbors_block : dense_block, &c, progress, user_data, err);

done:
    if (c.count)
        for (int32_t w = 0; w < n_threads; w++) free(c.count[w]);
    if (c.touched)
        for (int32_t w = 0; w < n_threads; w++) free(c.touched[w]);
    free(c.count);
    free(c.touched);
    free(ref_leaf);
    free(query_leaf);
    free(members);
    free(leaf_base);
    free(leaf_start);
    return rc;
}

int sporf_forest_neighbors(const sporf_forest *forest, const sporf_matrix *reference,
                           const sporf_matrix *query, int64_t k, int32_t n_jobs,
                           int64_t *index_out, double *similarity_out,
                           sporf_progress_fn progress, void *user_data, sporf_error *err)
{
    if (k < 1) {
        sporf_clear_error(err);
        return sporf_set_error(err, SPORF_E_ARG, "n_neighbors must be >= 1, got %lld", (long long)k);
    }
    return run(forest, reference, query, k, n_jobs, index_out, similarity_out, progress, user_data, err);
}

int sporf_forest_proximity_dense(const sporf_forest *forest, const sporf_matrix *reference,
                                 const sporf_matrix *query, int32_t n_jobs, double *out,
                                 sporf_progress_fn progress, void *user_data, sporf_error *err)
{
    return run(forest, reference, query, 0, n_jobs, NULL, out, progress, user_data, err);
}
