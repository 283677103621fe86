/* C unit tests of the fit layer: criterion arithmetic, the split search,
 * the projection samplers (sparse, axis, patch) and the unsupervised cuts. */
#include "fit_calls.h"
#include "util/bytes.h"
#include "model/model.h"
#include "fit/projection.h"
#include "fit/criterion.h"
#include "util/rng.h"
#include "util/sort.h"
#include "predict/traverse.h"
#include "predict/walk_partition.h" /* and the lane and float walks it builds on */
#include "fit/unsupervised.h"
#include "predict/packed.h"

#include <assert.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void test_criterion(void)
{
    double c1[2] = {3, 1};
    CHECK(NEAR(sporf_impurity(SPORF_CRIT_GINI, c1, 2, 4), 0.375, 1e-12), "gini(3,1)");
    double c2[3] = {2, 2, 0};
    CHECK(NEAR(sporf_impurity(SPORF_CRIT_ENTROPY, c2, 3, 4), 1.0, 1e-12), "entropy(2,2,0) = 1 bit");
    double c3[2] = {4, 0};
    CHECK(sporf_impurity(SPORF_CRIT_GINI, c3, 2, 4) == 0.0, "pure node gini");
    CHECK(sporf_impurity(SPORF_CRIT_ENTROPY, c3, 2, 4) == 0.0, "pure node entropy");
    double c4[4] = {1, 1, 1, 1};
    CHECK(NEAR(sporf_impurity(SPORF_CRIT_GINI, c4, 4, 4), 0.75, 1e-12), "gini uniform 4");
    CHECK(NEAR(sporf_impurity(SPORF_CRIT_ENTROPY, c4, 4, 4), 2.0, 1e-12), "entropy uniform 4");
    /* The scan's proxy ranks cuts as the exact weighted impurity does. */
    double L[2] = {3, 1}, R[2] = {0, 4};
    double sl = 9 + 1, sr = 0 + 16;
    double exact = 4 * sporf_impurity(0, L, 2, 4) + 4 * sporf_impurity(0, R, 2, 4);
    CHECK(NEAR(8.0 - sporf_crit_proxy(0, 4, sl, 4, sr), exact, 1e-12), "gini proxy = W - weighted impurity");
    double el = sporf_xlogx(3) + sporf_xlogx(1), er = sporf_xlogx(4);
    double exact_e = (4 * sporf_impurity(1, L, 2, 4) + 4 * sporf_impurity(1, R, 2, 4)) * log(2.0);
    CHECK(NEAR(sporf_xlogx(8) * 0 - sporf_crit_proxy(1, 4, el, 4, er), exact_e, 1e-12),
          "entropy proxy = -(weighted impurity) in nats");
}

static sporf_params axis_params(void)
{
    sporf_params p;
    sporf_params_init(&p);
    p.n_estimators = 1;
    p.bootstrap = 0;
    p.projection = SPORF_PROJ_AXIS;
    p.max_features.form = SPORF_FORM_ALL;
    p.random_state = 7;
    return p;
}

static void test_split_known_threshold(void)
{
    /* Feature 0 is noise-free: the best cut lies between 3 and 10; feature 1 is useless. */
    double X[12] = {1, 5, 2, 5, 3, 5, 10, 5, 11, 5, 12, 5};
    int32_t y[6] = {0, 0, 0, 1, 1, 1};
    sporf_params p = axis_params();
    sporf_matrix m = rowmajor(X, 6, 2);
    sporf_forest *f = NULL;
    sporf_error err;
    int rc = fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err);
    CHECK(rc == SPORF_OK, "fit: %s", err.message);
    if (rc != SPORF_OK) return;
    const sporf_tree *t = &f->trees[0];
    CHECK(t->n_nodes == 3 && t->n_leaves == 2, "one split, two leaves (got %d nodes)", t->n_nodes);
    CHECK(t->nodes[0].proj_len == 1 && t->proj_feature[0] == 0, "splits on feature 0");
    CHECK(t->nodes[0].threshold == 6.5, "threshold 6.5 (got %g)", t->nodes[0].threshold);
    CHECK(NEAR(t->nodes[0].gain, 6 * 0.5, 1e-12), "gain = W * gini = 3 (got %g)", t->nodes[0].gain);
    double imp[2];
    sporf_forest_feature_importances(f, imp, &err);
    CHECK(imp[0] == 1.0 && imp[1] == 0.0, "importance all on feature 0");
    sporf_forest_free(f);

    /* min_samples_leaf = 4 makes every cut of 6 samples invalid: a single leaf. */
    p.min_samples_leaf.value = 4;
    rc = fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err);
    CHECK(rc == SPORF_OK && f->trees[0].n_nodes == 1, "min_samples_leaf blocks the split");
    sporf_forest_free(f);
}

/* Weighted gini of cutting x at t (x <= t goes left); INFINITY if a side is empty. */
static double cut_impurity(const double *x, const int32_t *y, int n, double t)
{
    double L[2] = {0, 0}, R[2] = {0, 0};
    int nl = 0;
    for (int i = 0; i < n; i++) {
        if (x[i] <= t) { L[y[i]]++; nl++; } else R[y[i]]++;
    }
    if (nl == 0 || nl == n) return INFINITY;
    return nl * sporf_impurity(0, L, 2, nl) + (n - nl) * sporf_impurity(0, R, 2, n - nl);
}

static void test_split_matches_brute_force(void)
{
    sporf_rng rng;
    sporf_rng_seed(&rng, 123, 0);
    int ok = 1;
    for (int trial = 0; trial < 50; trial++) {
        int n = 40;
        double x[40];
        int32_t y[40];
        for (int i = 0; i < n; i++) {
            x[i] = (double)sporf_rng_below(&rng, 1000) / 10.0;
            y[i] = (x[i] + (double)sporf_rng_below(&rng, 400) / 10.0) > 60 ? 1 : 0;
        }
        double best = INFINITY;
        for (int a = 0; a < n; a++) {
            double s = cut_impurity(x, y, n, x[a]);
            if (s < best) best = s;
        }
        sporf_params p = axis_params();
        p.max_depth = 1;
        sporf_matrix m = rowmajor(x, n, 1);
        sporf_forest *f = NULL;
        sporf_error err;
        if (fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            ok = 0;
            break;
        }
        if (isfinite(best)) {
            double t = f->trees[0].nodes[0].threshold;
            /* The threshold must be the midpoint between two adjacent values. */
            double below = -INFINITY, above = INFINITY;
            for (int i = 0; i < n; i++) {
                if (x[i] <= t && x[i] > below) below = x[i];
                if (x[i] > t && x[i] < above) above = x[i];
            }
            if (f->trees[0].n_nodes != 3 || !NEAR(cut_impurity(x, y, n, t), best, 1e-9) ||
                t != below * 0.5 + above * 0.5) {
                printf("trial %d: best %g, tree's cut %g at %g\n", trial, best, cut_impurity(x, y, n, t), t);
                ok = 0;
            }
        }
        sporf_forest_free(f);
    }
    CHECK(ok, "split search finds the brute-force optimum on 50 random problems");
}

static void test_sparse_sampler(void)
{
    sporf_params params;
    sporf_params_init(&params);
    params.feature_combinations = 2.3;
    const int64_t p = 20, d = 50;
    sporf_sampler s;
    sporf_error err;
    CHECK(sporf_sampler_init(&s, &params, p, d, &err) == SPORF_OK, "sampler init");
    sporf_rng rng;
    sporf_rng_seed(&rng, 99, 3);
    long long plus = 0, total = 0, projections = 0, feature_hits[20] = {0}, fill = 0;
    int distinct_ok = 1, range_ok = 1;
    const int draws = 4000;
    for (int r = 0; r < draws; r++) {
        sporf_sampler_draw_sparse(&s, &rng);
        sporf_candidates *c = &s.cand;
        projections += c->n_proj;
        for (int32_t j = 0; j < c->n_proj; j++) {
            for (int32_t a = c->start[j]; a < c->start[j + 1]; a++) {
                if (c->feature[a] < 0 || c->feature[a] >= p) range_ok = 0;
                else feature_hits[c->feature[a]]++;
                if (a > c->start[j] && c->feature[a] <= c->feature[a - 1]) distinct_ok = 0;
                plus += c->weight[a] > 0;
                fill += c->start[j + 1] - c->start[j] == 1 && c->weight[a] > 0;
                total++;
            }
        }
    }
    double mean_nnz = (double)total / ((double)draws * d);
    /* ceil(2.3 * 50) = 115 placed non-zeros, plus one per column left empty
     * (probability (49/50)^115 ~ 0.098): the mean is ~2.40. */
    CHECK(NEAR(mean_nnz, 2.3, 0.15), "mean non-zeros per projection %.3f ~ feature_combinations 2.3", mean_nnz);
    CHECK(total >= (long long)draws * 115, "at least ceil(2.3 * 50) = 115 non-zeros per node");
    /* Signs of the placed non-zeros are balanced (filled columns are +1). */
    double placed_plus = (double)(plus - (total - (long long)draws * 115));
    CHECK(NEAR(placed_plus / ((double)draws * 115), 0.5, 0.01), "balanced signs: %.4f", placed_plus / ((double)draws * 115));
    (void)fill;
    CHECK(distinct_ok && range_ok, "positions distinct within a projection and in range");
    int uniform = 1;
    for (int j = 0; j < p; j++)
        if (!NEAR((double)feature_hits[j] / total, 1.0 / p, 0.01)) uniform = 0;
    CHECK(uniform, "every feature equally likely");
    CHECK(projections == (long long)draws * d, "exactly d projections per node");
    sporf_sampler_free(&s);

    /* A dense request (max_features = p^2) must still be fast and exact. */
    params.feature_combinations = 1.5;
    CHECK(sporf_sampler_init(&s, &params, 20, 400, &err) == SPORF_OK, "p^2 sampler init");
    sporf_sampler_draw_sparse(&s, &rng);
    CHECK(s.cand.n_proj == 400 && s.cand.start[s.cand.n_proj] >= 600, "d=400 projections, >= 600 non-zeros");
    sporf_sampler_free(&s);
}

static void test_axis_sampler(void)
{
    sporf_params params = axis_params();
    sporf_sampler s;
    sporf_error err;
    sporf_sampler_init(&s, &params, 13, 13, &err);
    sporf_rng rng;
    sporf_rng_seed(&rng, 5, 0);
    int ok = 1;
    for (int node = 0; node < 200; node++) {
        int seen[13] = {0};
        sporf_sampler_axis_reset(&s);
        for (int k = 0; k < 13; k++) {
            int32_t f = sporf_sampler_axis_next(&s, &rng);
            if (f < 0 || f >= 13 || seen[f]) ok = 0;
            else seen[f] = 1;
        }
        if (sporf_sampler_axis_next(&s, &rng) != -1) ok = 0;
    }
    CHECK(ok, "axis mode never repeats a feature within a node");
    sporf_sampler_free(&s);
}

static sporf_params patch_params(int64_t H, int64_t W, int32_t boundary)
{
    sporf_params p;
    sporf_params_init(&p);
    p.projection = SPORF_PROJ_PATCH;
    p.n_dims = 2;
    p.data_dims[0] = H; p.data_dims[1] = W;
    p.min_patch_dims[0] = 1; p.max_patch_dims[0] = 2;
    p.min_patch_dims[1] = 2; p.max_patch_dims[1] = 5;
    p.boundary[0] = p.boundary[1] = boundary;
    p.dim_contiguous[0] = p.dim_contiguous[1] = 1;
    return p;
}

static void test_patch_sampler(void)
{
    enum { H = 6, W = 10, D = 7, DRAWS = 4000 };
    sporf_error err;
    int ok_shape = 1, ok_inside = 1, wrapped = 0;
    double cover_pad[H * W] = {0};
    for (int32_t boundary = 0; boundary < 3; boundary++) {
        sporf_params p = patch_params(H, W, boundary);
        CHECK(sporf_params_check(&p, H * W, &err) == SPORF_OK, "patch params valid: %s", err.message);
        sporf_sampler s;
        CHECK(sporf_sampler_init(&s, &p, H * W, D, &err) == SPORF_OK, "patch sampler init");
        sporf_rng r;
        sporf_rng_seed(&r, 5, (uint64_t)boundary);
        for (int t = 0; t < DRAWS; t++) {
            sporf_sampler_draw_patch(&s, &r);
            ok_shape &= s.cand.n_proj == D;
            for (int32_t j = 0; j < s.cand.n_proj; j++) {
                int32_t a = s.cand.start[j], len = s.cand.start[j + 1] - a;
                int rmin = H, rmax = -1, cmin = W, cmax = -1;
                for (int32_t q = a; q < a + len; q++) {
                    int f = s.cand.feature[q], row = f / W, col = f % W;
                    ok_shape &= f >= 0 && f < H * W && s.cand.weight[q] == 1.0;
                    if (row < rmin) rmin = row;
                    if (row > rmax) rmax = row;
                    if (col < cmin) cmin = col;
                    if (col > cmax) cmax = col;
                    if (boundary == SPORF_BOUNDARY_PAD) cover_pad[f] += 1.0;
                }
                if (boundary == SPORF_BOUNDARY_INSIDE)
                    ok_inside &= len >= 2 && len <= 10 && rmax - rmin <= 1 && cmax - cmin <= 4 && cmax - cmin >= 1;
                if (boundary == SPORF_BOUNDARY_WRAP && cmax - cmin > 4)
                    wrapped++; /* a run that went round the cyclic axis */
            }
        }
        sporf_sampler_free(&s);
    }
    CHECK(ok_shape, "patch candidates: d patches of in-grid features with weight 1");
    CHECK(ok_inside, "inside boundary: patch sizes within [min, max], runs contiguous");
    CHECK(wrapped > 0, "wrap boundary: some runs wrap around the cyclic axis (%d)", wrapped);
    double lo = 1e300, hi = 0;
    for (int f = 0; f < H * W; f++) {
        if (cover_pad[f] < lo) lo = cover_pad[f];
        if (cover_pad[f] > hi) hi = cover_pad[f];
    }
    CHECK(hi / lo < 1.15, "pad boundary: every cell about equally covered (max/min %.3f)", hi / lo);

    /* Unordered axis: random subsets of distinct rows. */
    sporf_params p = patch_params(H, W, SPORF_BOUNDARY_INSIDE);
    p.dim_contiguous[0] = 0;
    p.min_patch_dims[0] = 3; p.max_patch_dims[0] = 3;
    p.min_patch_dims[1] = 1; p.max_patch_dims[1] = 1;
    p.patch_weights = SPORF_PATCH_GAUSSIAN;
    sporf_sampler s;
    CHECK(sporf_sampler_init(&s, &p, H * W, D, &err) == SPORF_OK, "subset sampler init");
    sporf_rng r;
    sporf_rng_seed(&r, 9, 0);
    int ok_subset = 1, gapped = 0;
    for (int t = 0; t < 500; t++) {
        sporf_sampler_draw_patch(&s, &r);
        for (int32_t j = 0; j < s.cand.n_proj; j++) {
            int32_t a = s.cand.start[j];
            ok_subset &= s.cand.start[j + 1] - a == 3;
            int r0 = s.cand.feature[a] / W, r1 = s.cand.feature[a + 1] / W, r2 = s.cand.feature[a + 2] / W;
            int col = s.cand.feature[a] % W;
            ok_subset &= r0 != r1 && r1 != r2 && r0 != r2 && s.cand.feature[a + 1] % W == col;
            /* Gaussian kernel over 3 cells: edges exp(-8/9), centre 1 */
            ok_subset &= NEAR(s.cand.weight[a], exp(-8.0 / 9.0), 1e-15) && s.cand.weight[a + 1] == 1.0;
            int mn = r0 < r1 ? (r0 < r2 ? r0 : r2) : (r1 < r2 ? r1 : r2);
            int mx = r0 > r1 ? (r0 > r2 ? r0 : r2) : (r1 > r2 ? r1 : r2);
            gapped += mx - mn > 2;
        }
    }
    sporf_sampler_free(&s);
    CHECK(ok_subset && gapped > 0, "dim_contiguous = 0: distinct, not necessarily adjacent rows; Gaussian weights");

    /* Bad patch parameters. */
    p = patch_params(H, W, SPORF_BOUNDARY_PAD);
    CHECK(sporf_params_check(&p, H * W + 1, &err) == SPORF_E_ARG && strstr(err.message, "data_dims"),
          "data_dims product must be p: %s", err.message);
    p.max_patch_dims[1] = W + 1;
    CHECK(sporf_params_check(&p, H * W, &err) == SPORF_E_ARG && strstr(err.message, "outside the grid"),
          "patch larger than the grid: %s", err.message);
    p = patch_params(H, W, SPORF_BOUNDARY_PAD);
    p.min_patch_dims[1] = 4; p.max_patch_dims[1] = 3;
    CHECK(sporf_params_check(&p, H * W, &err) == SPORF_E_ARG && strstr(err.message, "below"), "min > max: %s",
          err.message);
    p = patch_params(1, W, SPORF_BOUNDARY_WRAP);
    p.max_patch_dims[0] = 1;
    CHECK(sporf_params_check(&p, W, &err) == SPORF_E_ARG && strstr(err.message, "wrap"),
          "wrap on an axis of length 1: %s", err.message);
}



static void sort_plain(double *v, int64_t n)
{
    static int32_t ids[4096];
    assert(n <= 4096);
    for (int64_t i = 0; i < n; i++) ids[i] = (int32_t)i;
    sporf_sort_values(v, ids, n);
}

/* ---- unsupervised splits (URerF) ---- */

/* The BIC of a cut computed directly from its definition (two passes per
 * side, no running sums): the reference the one-pass scan must match. */
static double direct_score(int32_t crit, const double *v, const double *w, int64_t n, int64_t nl)
{
    double W = 0, S = 0, Wl = 0, Sl = 0, Wr = 0, Sr = 0;
    for (int64_t i = 0; i < n; i++) {
        double wi = w ? w[i] : 1.0;
        W += wi; S += wi * v[i];
        if (i < nl) { Wl += wi; Sl += wi * v[i]; } else { Wr += wi; Sr += wi * v[i]; }
    }
    double m = S / W, ml = Sl / Wl, mr = Sr / Wr, sse = 0, sl = 0, sr = 0;
    int const_l = 1, const_r = 1;
    for (int64_t i = 0; i < n; i++) {
        double wi = w ? w[i] : 1.0;
        sse += wi * (v[i] - m) * (v[i] - m);
        if (i < nl) { sl += wi * (v[i] - ml) * (v[i] - ml); const_l &= v[i] == v[0]; }
        else { sr += wi * (v[i] - mr) * (v[i] - mr); const_r &= v[i] == v[n - 1]; }
    }
    if (const_l) sl = 0;
    if (const_r) sr = 0;
    if (crit == SPORF_CRIT_TWOMEANS)
        return 1.0 - (sl + sr) / sse;
    if (sl + sr == 0)
        return INFINITY;
    /* -2 log L of one Gaussian per side by maximum likelihood, dropping the
     * N log(2 pi) + N every model shares; BIC adds (parameters) x log N. */
    double mix = -2.0 * (Wl * log(Wl / W) + Wr * log(Wr / W));
    double same = mix + W * log((sl + sr) / W) + 4 * log(W);
    double best = same;
    if (sl > 0 && sr > 0) {
        double diff = mix + Wl * log(sl / Wl) + Wr * log(sr / Wr) + 5 * log(W);
        if (diff < best) best = diff;
    }
    double one = W * log(sse / W) + 2 * log(W);
    return one - best;
}

static void test_unsupervised_cut_separates_clusters(void)
{
    double v[40];
    sporf_rng rng;
    sporf_rng_seed(&rng, 5, 0);
    for (int i = 0; i < 40; i++) v[i] = (i < 25 ? 0.0 : 10.0) + sporf_rng_uniform(&rng);
    sort_plain(v, 40); /* values are already ascending per cluster */
    for (int32_t crit = SPORF_CRIT_FASTBIC; crit <= SPORF_CRIT_TWOMEANS; crit++) {
        sporf_unsup_cut cut;
        sporf_unsup_best_cut(crit, v, NULL, 40, 1, 0.0, &cut);
        CHECK(cut.found && cut.n_left == 25 && cut.threshold > 1.0 && cut.threshold < 10.0,
              "criterion %d: the cut lies between the clusters (n_left %lld, threshold %g)", crit,
              (long long)cut.n_left, cut.threshold);
    }
    /* Unequal spreads: a tight cluster next to a wide one. Fast-BIC puts the
     * cut at the gap; two-means would rather split the wide cluster. */
    double u[60];
    for (int i = 0; i < 60; i++)
        u[i] = i < 20 ? 0.01 * sporf_rng_uniform(&rng) : 1.0 + 30.0 * sporf_rng_uniform(&rng);
    sort_plain(u, 60);
    sporf_unsup_cut cut;
    sporf_unsup_best_cut(SPORF_CRIT_FASTBIC, u, NULL, 60, 1, 0.0, &cut);
    CHECK(cut.found && cut.n_left == 20, "fastbic: a tight cluster is cut off at the gap (n_left %lld)",
          (long long)cut.n_left);
    /* Constant input: no cut. Two point masses: the first cut between them. */
    double c[6] = {2, 2, 2, 2, 2, 2}, two[6] = {1, 1, 1, 4, 4, 4};
    sporf_unsup_best_cut(SPORF_CRIT_FASTBIC, c, NULL, 6, 1, 0.0, &cut);
    CHECK(!cut.found, "a constant projection has no cut");
    sporf_unsup_best_cut(SPORF_CRIT_FASTBIC, two, NULL, 6, 1, 0.0, &cut);
    CHECK(cut.found && cut.n_left == 3 && cut.threshold == 2.5 && isinf(cut.score),
          "two point masses: cut between them with an unbounded score");
    sporf_unsup_best_cut(SPORF_CRIT_FASTBIC, two, NULL, 6, 4, 0.0, &cut);
    CHECK(!cut.found, "min_leaf 4 of 6 rows: no cut is allowed");
    /* Pure Gaussian noise: Fast-BIC's unconstrained best cut peels one or two
     * extreme rows off; each side must keep 0.5% of the rows. */
    static double g[2000];
    for (int i = 0; i < 2000; i++) g[i] = normal(&rng);
    sort_plain(g, 2000);
    sporf_unsup_best_cut(SPORF_CRIT_FASTBIC, g, NULL, 2000, 1, 0.0, &cut);
    CHECK(cut.found && cut.n_left >= 10 && cut.n_left <= 1990,
          "fastbic on noise keeps 0.5%% of the rows on each side (n_left %lld of 2000)", (long long)cut.n_left);
}

static void test_unsupervised_cut_matches_direct(void)
{
    sporf_rng rng;
    sporf_rng_seed(&rng, 77, 0);
    int ok_score = 1, ok_choice = 1;
    for (int trial = 0; trial < 400; trial++) {
        /* One trial in 8 is large enough for the 1% side floor to bind. */
        int64_t n = trial % 8 == 7 ? 150 + (int64_t)sporf_rng_below(&rng, 150) : 4 + (int64_t)sporf_rng_below(&rng, 40);
        double v[320], w[320];
        int ties = trial % 2; /* half the trials have few distinct values: constant sides */
        for (int64_t i = 0; i < n; i++) {
            v[i] = ties ? (double)sporf_rng_below(&rng, 5) : 100.0 + normal(&rng) * (1 + trial % 7);
            w[i] = 1.0 + (double)sporf_rng_below(&rng, 3);
        }
        sort_plain(v, n);
        const double *wp = trial % 3 ? w : NULL;
        int64_t msl = 1 + (int64_t)(trial % 4 == 0);
        const int64_t floor_side = (n + 199) / 200;
        for (int32_t crit = SPORF_CRIT_FASTBIC; crit <= SPORF_CRIT_TWOMEANS; crit++) {
            sporf_unsup_cut cut;
            sporf_unsup_best_cut(crit, v, wp, n, msl, 0.0, &cut);
            double best = -INFINITY;
            int any = 0;
            const int64_t side = msl > floor_side ? msl : floor_side;
            for (int64_t nl = side; nl <= n - side; nl++) {
                if (!(v[nl] > v[nl - 1])) continue;
                double s = direct_score(crit, v, wp, n, nl);
                any = 1;
                if (s > best) best = s;
            }
            if (any != cut.found) { ok_choice = 0; continue; }
            if (!any) continue;
            double at = direct_score(crit, v, wp, n, cut.n_left);
            /* Running sums lose relative precision on a side whose spread is
             * small next to the node's (log of a difference), so allow 1e-7;
             * a wrong formula is off by O(1). */
            const double tol = 1e-7 * (1 + fabs(best));
            if (!(at == best || NEAR(at, best, tol))) ok_choice = 0;
            if (!(cut.score == best || NEAR(cut.score, best, tol))) ok_score = 0;
        }
    }
    CHECK(ok_choice, "the one-pass scan picks a cut whose direct BIC / two-means score is the best");
    CHECK(ok_score, "the one-pass scores equal the direct computation");
}


int main(void)
{
    test_criterion();
    test_split_known_threshold();
    test_split_matches_brute_force();
    test_sparse_sampler();
    test_axis_sampler();
    test_patch_sampler();
    test_unsupervised_cut_separates_clusters();
    test_unsupervised_cut_matches_direct();
    return check_summary();
}
