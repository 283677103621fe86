/* builder.c -- see builder.h. */
#include "builder.h"

#include "criterion.h"
#include "params.h"
#include "sort.h"
#include "traverse.h"
#include "unsupervised.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The best split found so far at a node. */
typedef struct best_split {
    int found;
    double proxy;
    int64_t n_left;       /* samples that go left */
    double threshold;
    int32_t len;          /* non-zeros of its projection */
} best_split;

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

int sporf_builder_init(sporf_builder *b, const sporf_params *params, const double *Xc,
                       int64_t n, int64_t p, const int32_t *y, const double *yr, int32_t n_classes,
                       sporf_error *err)
{
    memset(b, 0, sizeof *b);
    b->params = params;
    b->Xc = Xc;
    b->n = n;
    b->p = p;
    b->y = y;
    b->yr = yr;
    b->n_classes = n_classes;
    b->n_candidates = sporf_params_resolve_max_features(params, p);
    b->min_samples_split = sporf_resolve_min_samples_split(params, n);
    b->min_samples_leaf = sporf_resolve_min_samples_leaf(params, n);
    int rc = sporf_sampler_init(&b->sampler, params, p, b->n_candidates, err);
    if (rc != SPORF_OK)
        return rc;
    size_t K = (size_t)n_classes;
    b->w = calloc((size_t)n, sizeof *b->w);
    b->idx = malloc((size_t)n * sizeof *b->idx);
    b->vals = malloc((size_t)n * sizeof *b->vals);
    b->wsorted = malloc((size_t)n * sizeof *b->wsorted);
    b->node_counts = malloc(K * sizeof(double));
    b->left_counts = malloc(K * sizeof(double));
    b->right_counts = malloc(K * sizeof(double));
    int64_t nnz = b->sampler.nnz > 0 ? b->sampler.nnz : 1;
    b->best_proj_feature = malloc((size_t)nnz * sizeof(int32_t));
    b->best_proj_weight = malloc((size_t)nnz * sizeof(double));
    int sort_ok = sporf_sort_scratch_init(&b->sort_scratch, n);
    if (!sort_ok || !b->w || !b->idx || !b->vals || !b->wsorted || !b->node_counts || !b->left_counts ||
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
    free(b->w);
    free(b->idx);
    free(b->vals);
    free(b->wsorted);
    free(b->node_counts);
    free(b->left_counts);
    free(b->right_counts);
    free(b->best_proj_feature);
    free(b->best_proj_weight);
    free(b->nodes);
    free(b->proj_feature);
    free(b->proj_weight);
    free(b->leaf_values);
    free(b->stack);
    memset(b, 0, sizeof *b);
}

/* vals[start..end) = projection of the node's samples, in the same
 * arithmetic order as sporf_tree_find_leaf so fit and predict agree exactly. */
static void project_slice(sporf_builder *b, const int32_t *f, const double *w, int32_t len,
                          int64_t start, int64_t end)
{
    const int32_t *idx = b->idx;
    double *v = b->vals;
    const int64_t n = b->n;
    if (len == 1 && w[0] == 1.0) {
        const double *col = b->Xc + (int64_t)f[0] * n;
        for (int64_t i = start; i < end; i++)
            v[i] = col[idx[i]];
        return;
    }
    for (int64_t i = start; i < end; i++)
        v[i] = 0.0;
    for (int32_t k = 0; k < len; k++) {
        const double *col = b->Xc + (int64_t)f[k] * n;
        const double wk = w[k];
        for (int64_t i = start; i < end; i++)
            v[i] += wk * col[idx[i]];
    }
}

/* Scan every cut of the sorted slice; update *best when a cut beats it.
 * Returns 1 when *best changed. */
static int scan_cuts(sporf_builder *b, int64_t start, int64_t end, double w_node, best_split *best)
{
    const int32_t K = b->n_classes;
    const int32_t crit = b->params->criterion;
    const int64_t msl = b->min_samples_leaf;
    const int32_t *idx = b->idx;
    const int32_t *y = b->y;
    const double *w = b->w;
    const double *v = b->vals;
    double *L = b->left_counts, *R = b->right_counts;
    memset(L, 0, (size_t)K * sizeof *L);
    memcpy(R, b->node_counts, (size_t)K * sizeof *R);
    double sl = 0.0, sr = 0.0, wl = 0.0, wr = w_node;
    for (int32_t k = 0; k < K; k++)
        sr += sporf_crit_term(crit, R[k]);

    const int64_t n = end - start;
    int changed = 0;
    for (int64_t i = 0; i < n - 1; i++) {
        const int32_t id = idx[start + i];
        const int32_t c = y[id];
        const double ww = w[id];
        if (crit == SPORF_CRIT_GINI) {
            sl += ww * (2.0 * L[c] + ww);
            sr += ww * (ww - 2.0 * R[c]);
        } else {
            sl += sporf_xlogx(L[c] + ww) - sporf_xlogx(L[c]);
            sr += sporf_xlogx(R[c] - ww) - sporf_xlogx(R[c]);
        }
        L[c] += ww;
        R[c] -= ww;
        wl += ww;
        wr -= ww;
        const int64_t nl = i + 1;
        if (nl < msl)
            continue;
        if (n - nl < msl)
            break;
        const double a = v[start + i], z = v[start + i + 1];
        if (!(z > a) || wl <= 0.0 || wr <= 0.0 || wl < b->min_weight_leaf || wr < b->min_weight_leaf)
            continue;
        const double proxy = sporf_crit_proxy(crit, wl, sl, wr, sr);
        if (!best->found || proxy > best->proxy) {
            double t = a * 0.5 + z * 0.5;
            if (!(t >= a && t < z))
                t = a; /* adjacent doubles, or overflow: keep the left value */
            best->found = 1;
            best->proxy = proxy;
            best->n_left = nl;
            best->threshold = t;
            changed = 1;
        }
    }
    return changed;
}

/* Regression: the same scan with running weighted sums of the responses,
 * centred on the node mean so the proxy sum_l^2/w_l + sum_r^2/w_r (the
 * children's SSE up to a node constant) keeps its precision when |mean| >> sd. */
static int scan_cuts_regression(sporf_builder *b, int64_t start, int64_t end, double w_node, double mean,
                                best_split *best)
{
    const int64_t msl = b->min_samples_leaf;
    const int32_t *idx = b->idx;
    const double *yr = b->yr, *w = b->w, *v = b->vals;
    double wl = 0.0, wr = w_node, sl = 0.0, sr = 0.0;
    for (int64_t i = start; i < end; i++)
        sr += w[idx[i]] * (yr[idx[i]] - mean);
    const int64_t n = end - start;
    int changed = 0;
    for (int64_t i = 0; i < n - 1; i++) {
        const int32_t id = idx[start + i];
        const double ww = w[id], wy = ww * (yr[id] - mean);
        wl += ww;
        wr -= ww;
        sl += wy;
        sr -= wy;
        const int64_t nl = i + 1;
        if (nl < msl)
            continue;
        if (n - nl < msl)
            break;
        const double a = v[start + i], z = v[start + i + 1];
        if (!(z > a) || wl <= 0.0 || wr <= 0.0 || wl < b->min_weight_leaf || wr < b->min_weight_leaf)
            continue;
        const double proxy = sl * sl / wl + sr * sr / wr;
        if (!best->found || proxy > best->proxy) {
            double t = a * 0.5 + z * 0.5;
            if (!(t >= a && t < z))
                t = a;
            best->found = 1;
            best->proxy = proxy;
            best->n_left = nl;
            best->threshold = t;
            changed = 1;
        }
    }
    return changed;
}

/* Unsupervised: the best cut of the sorted projected values themselves
 * (unsupervised.h). */
static int scan_cuts_unsupervised(sporf_builder *b, int64_t start, int64_t end, best_split *best)
{
    const int64_t n = end - start;
    for (int64_t i = 0; i < n; i++)
        b->wsorted[i] = b->w[b->idx[start + i]];
    sporf_unsup_cut cut;
    sporf_unsup_best_cut(b->params->criterion, b->vals + start, b->wsorted, n, b->min_samples_leaf,
                         b->min_weight_leaf, &cut);
    if (!cut.found || (best->found && !(cut.score > best->proxy)))
        return 0;
    best->found = 1;
    best->proxy = cut.score;
    best->n_left = cut.n_left;
    best->threshold = cut.threshold;
    return 1;
}

/* Weighted sum of squares of the projected values vals[start..end) about
 * their weighted mean: an unsupervised node's spread along its split. */
static double vals_sse(const sporf_builder *b, int64_t start, int64_t end)
{
    double W = 0.0, S = 0.0;
    for (int64_t i = start; i < end; i++) {
        W += b->w[b->idx[i]];
        S += b->w[b->idx[i]] * b->vals[i];
    }
    const double mean = W > 0.0 ? S / W : 0.0;
    double sse = 0.0;
    for (int64_t i = start; i < end; i++) {
        const double d = b->vals[i] - mean;
        sse += b->w[b->idx[i]] * d * d;
    }
    return sse;
}

/* Weighted sum of squared deviations from the weighted mean (two passes, so
 * it is exact for a constant response); writes the total weight and mean. */
static double node_sse(const sporf_builder *b, int64_t start, int64_t end, double *w_out, double *mean_out)
{
    double W = 0.0, S = 0.0;
    for (int64_t i = start; i < end; i++) {
        const int32_t id = b->idx[i];
        W += b->w[id];
        S += b->w[id] * b->yr[id];
    }
    const double mean = W > 0.0 ? S / W : 0.0;
    double sse = 0.0;
    for (int64_t i = start; i < end; i++) {
        const int32_t id = b->idx[i];
        const double d = b->yr[id] - mean;
        sse += b->w[id] * d * d;
    }
    *w_out = W;
    *mean_out = mean;
    return sse;
}

/* Try one candidate projection; keep it if it gives the best cut so far.
 * Returns 0 if the projection is constant on the node. */
static int try_candidate(sporf_builder *b, const int32_t *f, const double *w, int32_t len,
                         int64_t start, int64_t end, double w_node, double mean, best_split *best)
{
    project_slice(b, f, w, len, start, end);
    sporf_sort_values_radix(b->vals + start, b->idx + start, end - start, &b->sort_scratch);
    if (!(b->vals[end - 1] > b->vals[start]))
        return 0;
    int changed = b->yr ? scan_cuts_regression(b, start, end, w_node, mean, best)
                  : b->y ? scan_cuts(b, start, end, w_node, best)
                         : scan_cuts_unsupervised(b, start, end, best);
    if (changed) {
        best->len = len;
        memcpy(b->best_proj_feature, f, (size_t)len * sizeof *f);
        memcpy(b->best_proj_weight, w, (size_t)len * sizeof *w);
    }
    return 1;
}

static void find_split(sporf_builder *b, sporf_rng *rng, int64_t start, int64_t end,
                       double w_node, double mean, best_split *best)
{
    memset(best, 0, sizeof *best);
    sporf_sampler *s = &b->sampler;
    if (b->params->projection == SPORF_PROJ_AXIS) {
        /* Draw features until d non-constant ones were tried (or none is left). */
        sporf_sampler_axis_reset(s);
        const double one = 1.0;
        int64_t tried = 0;
        while (tried < b->n_candidates) {
            int32_t f = sporf_sampler_axis_next(s, rng);
            if (f < 0)
                break;
            tried += try_candidate(b, &f, &one, 1, start, end, w_node, mean, best);
        }
        return;
    }
    switch (b->params->projection) {
    case SPORF_PROJ_PATCH: sporf_sampler_draw_patch(s, rng); break;
    case SPORF_PROJ_FRC: case SPORF_PROJ_POISSON: sporf_sampler_draw_per_column(s, rng); break;
    default: sporf_sampler_draw_sparse(s, rng); break;
    }
    const sporf_candidates *c = &s->cand;
    for (int32_t j = 0; j < c->n_proj; j++) {
        int32_t a = c->start[j];
        try_candidate(b, c->feature + a, c->weight + a, c->start[j + 1] - a, start, end, w_node, mean, best);
    }
}

/* Reorder idx[start..end) so the samples going left come first; fill
 * left_counts/right_counts. Returns the number going left. */
static int64_t partition(sporf_builder *b, int64_t start, int64_t end, double threshold, int32_t len)
{
    project_slice(b, b->best_proj_feature, b->best_proj_weight, len, start, end);
    const int32_t K = b->n_classes;
    double *L = b->left_counts, *R = b->right_counts;
    memset(L, 0, (size_t)K * sizeof *L);
    memset(R, 0, (size_t)K * sizeof *R);
    int32_t *idx = b->idx;
    double *v = b->vals;
    int64_t i = start, j = end - 1;
    while (i <= j) {
        if (v[i] <= threshold) {
            L[b->y ? b->y[idx[i]] : 0] += b->w[idx[i]];
            i++;
        } else {
            int32_t t = idx[i]; idx[i] = idx[j]; idx[j] = t;
            double tv = v[i]; v[i] = v[j]; v[j] = tv;
            R[b->y ? b->y[idx[j]] : 0] += b->w[idx[j]];
            j--;
        }
    }
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

    sporf_stack_item root = {0, n_in_tree, 0, -1, 0};
    if (!push(b, &top, root))
        goto nomem;
    while (top > 0) {
        sporf_stack_item it = b->stack[--top];
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

        double *cnt = b->node_counts;
        memset(cnt, 0, (size_t)K * sizeof *cnt);
        double w_node = 0.0, mean = 0.0, imp, sse = 0.0;
        int pure;
        if (b->yr) {
            sse = node_sse(b, it.start, it.end, &w_node, &mean);
            cnt[0] = mean;
            imp = w_node > 0.0 ? sse / w_node : 0.0;
            pure = 1; /* a constant response cannot be split usefully */
            for (int64_t i = it.start + 1; i < it.end && pure; i++)
                pure = b->yr[b->idx[i]] == b->yr[b->idx[it.start]];
        } else if (!b->y) {
            /* Unsupervised: a node splits until the size limits, or until
             * every candidate projection is constant on it. */
            for (int64_t i = it.start; i < it.end; i++)
                w_node += b->w[b->idx[i]];
            imp = 0.0;
            pure = 0;
        } else {
            for (int64_t i = it.start; i < it.end; i++) {
                int32_t s = b->idx[i];
                cnt[b->y[s]] += b->w[s];
                w_node += b->w[s];
            }
            imp = sporf_impurity(P->criterion, cnt, K, w_node);
            pure = imp <= 1e-12;
        }
        const int64_t n_node = it.end - it.start;
        int is_leaf = (P->max_depth > 0 && it.depth >= P->max_depth) ||
                      n_node < b->min_samples_split || n_node < 2 * b->min_samples_leaf ||
                      pure || w_node <= 0.0 || w_node < 2.0 * b->min_weight_leaf;
        best_split best;
        best.found = 0;
        if (!is_leaf) {
            find_split(b, rng, it.start, it.end, w_node, mean, &best);
            is_leaf = !best.found;
        }
        int64_t n_left = 0;
        double gain = 0.0;
        if (!is_leaf) {
            n_left = partition(b, it.start, it.end, best.threshold, best.len);
            if (b->yr) {
                double wl, wr, ml, mr;
                gain = sse - node_sse(b, it.start, it.start + n_left, &wl, &ml) -
                       node_sse(b, it.start + n_left, it.end, &wr, &mr);
            } else if (!b->y) {
                gain = vals_sse(b, it.start, it.end) - vals_sse(b, it.start, it.start + n_left) -
                       vals_sse(b, it.start + n_left, it.end);
            } else {
                double wl = 0.0, wr = 0.0;
                for (int32_t k = 0; k < K; k++) {
                    wl += b->left_counts[k];
                    wr += b->right_counts[k];
                }
                gain = w_node * imp - wl * sporf_impurity(P->criterion, b->left_counts, K, wl) -
                       wr * sporf_impurity(P->criterion, b->right_counts, K, wr);
            }
            if (gain < 0.0) gain = 0.0;
            if (n_left <= 0 || n_left >= n_node ||
                gain / w_root + 1e-12 < P->min_impurity_decrease)
                is_leaf = 1;
        }
        if (is_leaf) {
            if (!grow_array((void **)&b->leaf_values, &b->leaf_cap, (n_leaves + 1) * K, sizeof(double)))
                goto nomem;
            double *lv = b->leaf_values + n_leaves * K;
            if (b->yr)
                lv[0] = mean;
            else if (!b->y)
                lv[0] = w_root > 0.0 ? w_node / w_root : 0.0;
            else
                for (int32_t k = 0; k < K; k++)
                    lv[k] = w_node > 0.0 ? cnt[k] / w_node : 1.0 / K;
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
        n_proj += best.len;
        sporf_stack_item right = {it.start + n_left, it.end, it.depth + 1, id, 0};
        sporf_stack_item left = {it.start, it.start + n_left, it.depth + 1, id, 1};
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
        if (b->yr) out[0] += w * b->yr[rows[i]];
        else out[b->y[rows[i]]] += w;
    }
    if (W > 0.0)
        for (int32_t k = 0; k < K; k++) out[k] /= W;
    return W;
}

int sporf_builder_estimate_leaves(sporf_builder *b, const int32_t *est, int64_t n_est, int64_t n_struct,
                                  sporf_tree *tree, sporf_error *err)
{
    const int32_t K = b->n_classes;
    const int64_t L = tree->n_leaves;
    double *acc = calloc((size_t)(L * K), sizeof *acc);
    double *wsum = calloc((size_t)L, sizeof *wsum);
    tree->prior = malloc((size_t)K * sizeof *tree->prior);
    /* The tree's own prediction nodes route the estimation rows (the
     * forest's packed layout does not exist yet); freed below. */
    if (!acc || !wsum || !tree->prior || !sporf_tree_prepare(tree)) {
        free(acc);
        free(wsum);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory estimating honest leaves");
    }
    if (!(rows_summary(b, est, n_est, tree->prior) > 0.0) &&
        !(rows_summary(b, b->idx, n_struct, tree->prior) > 0.0))
        for (int32_t k = 0; k < K; k++) tree->prior[k] = b->yr ? 0.0 : 1.0 / K;
    /* Route each estimation row through the tree; Xc is column-major, so row
     * i starts at Xc + i and its columns are n apart. */
    for (int64_t i = 0; i < n_est; i++) {
        const int32_t id = est[i];
        const int32_t node = sporf_tree_find_leaf(tree, b->Xc + id, b->n);
        const int64_t slot = sporf_pnode_leaf_slot(&tree->pnodes[node]);
        const double w = b->w[id];
        wsum[slot] += w;
        if (b->yr) acc[slot] += w * b->yr[id];
        else acc[slot * K + b->y[id]] += w;
    }
    const int32_t prior = b->params->honest_prior;
    for (int64_t l = 0; l < L; l++) {
        double *lv = tree->leaf_values + l * K;
        for (int32_t k = 0; k < K; k++) {
            if (wsum[l] > 0.0) lv[k] = acc[l * K + k] / wsum[l];
            else if (prior == SPORF_HONEST_UNIFORM) lv[k] = 1.0 / K;
            else if (prior == SPORF_HONEST_IGNORE) lv[k] = NAN;
            else lv[k] = tree->prior[k];
        }
    }
    free(acc);
    free(wsum);
    sporf_tree_unprepare(tree);
    return SPORF_OK;
}
