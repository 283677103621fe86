/* C unit tests of the sporf core: criterion arithmetic, the split search,
 * the projection samplers, sorting, determinism, the model format and error
 * handling. Run with `meson test` (prints "N passed, N failed"). */
#include "util/bytes.h"
#include "model/model.h"
#include "fit/projection.h"
#include "fit/criterion.h"
#include "util/rng.h"
#include "util/sort.h"
#include "predict/traverse.h"
#include "fit/unsupervised.h"
#include "predict/packed.h"

#include <assert.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_pass = 0, n_fail = 0;
#define CHECK(cond, ...) do { \
    if (cond) n_pass++; \
    else { n_fail++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
} while (0)
#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

static sporf_matrix rowmajor(const double *X, int64_t n, int64_t p)
{
    sporf_matrix m = {X, n, p, p, 1};
    return m;
}

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
    int rc = sporf_forest_fit(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err);
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
    rc = sporf_forest_fit(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err);
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
        if (sporf_forest_fit(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
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

static void test_sort(void)
{
    sporf_rng rng;
    sporf_rng_seed(&rng, 1, 1);
    int ok = 1;
    for (int trial = 0; trial < 200 && ok; trial++) {
        int n = (int)sporf_rng_below(&rng, 3000) + 1;
        int levels = (int)sporf_rng_below(&rng, 50) + 1; /* many ties */
        double *v = malloc(n * sizeof *v), *orig = malloc(n * sizeof *orig);
        int32_t *id = malloc(n * sizeof *id);
        for (int i = 0; i < n; i++) {
            orig[i] = v[i] = (double)sporf_rng_below(&rng, (uint64_t)levels) - levels / 2.0;
            id[i] = i;
        }
        sporf_sort_values(v, id, n);
        for (int i = 0; i < n; i++) {
            if (i > 0 && v[i - 1] > v[i]) ok = 0;
            if (orig[id[i]] != v[i]) ok = 0;
        }
        free(v); free(orig); free(id);
    }
    CHECK(ok, "sort orders values and carries ids");

    /* The builder's sort: every size path (introsort, quicksort, radix),
     * ties, values closer than float precision, negative and positive. */
    int ok_radix = 1;
    for (int trial = 0; trial < 400 && ok_radix; trial++) {
        int n = trial < 100 ? trial + 1 : (int)sporf_rng_below(&rng, 3000) + 1;
        int kind = trial % 3;
        sporf_sort_scratch sc;
        sporf_sort_scratch_init(&sc, n);
        double *v = malloc(n * sizeof *v), *orig = malloc(n * sizeof *orig);
        int32_t *id = malloc(n * sizeof *id);
        for (int i = 0; i < n; i++) {
            const double u = sporf_rng_uniform(&rng);
            orig[i] = v[i] = kind == 0 ? (double)sporf_rng_below(&rng, 7) - 3.0   /* many ties */
                           : kind == 1 ? 1.0 + 1e-12 * (double)sporf_rng_below(&rng, 50) /* one float key */
                                       : (u - 0.5) * 1e6;
            id[i] = i;
        }
        sporf_sort_values_radix(v, id, n, &sc);
        for (int i = 0; i < n; i++) {
            if (orig[id[i]] != v[i]) ok_radix = 0;
            if (i > 0 && v[i - 1] > v[i]) ok_radix = 0;
        }
        free(v); free(orig); free(id);
        sporf_sort_scratch_free(&sc);
    }
    CHECK(ok_radix, "the builder's sort orders values and carries ids on every size path");
}

static void test_rng(void)
{
    sporf_rng a, b, c;
    sporf_rng_seed(&a, 42, 7);
    sporf_rng_seed(&b, 42, 7);
    sporf_rng_seed(&c, 42, 8);
    int same = 1, differ = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = sporf_rng_next(&a), y = sporf_rng_next(&b), z = sporf_rng_next(&c);
        same &= x == y;
        differ += x != z;
    }
    CHECK(same && differ > 95, "streams: same seed same numbers, other stream other numbers");
    long long hist[6] = {0};
    for (int i = 0; i < 60000; i++) hist[sporf_rng_below(&a, 6)]++;
    int uniform = 1;
    for (int k = 0; k < 6; k++) uniform &= NEAR((double)hist[k], 10000.0, 400.0);
    CHECK(uniform, "below(6) is uniform");
}

/* A small 3-class problem used by the forest-level tests. */
static void make_data(double *X, int32_t *y, int n, int p, uint64_t seed)
{
    sporf_rng rng;
    sporf_rng_seed(&rng, seed, 0);
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < p; j++) {
            X[i * p + j] = sporf_rng_uniform(&rng) * 2 - 1;
            if (j < 3) s += X[i * p + j];
        }
        y[i] = s < -0.4 ? 0 : (s < 0.4 ? 1 : 2);
    }
}

static uint8_t *save(const sporf_forest *f, int64_t *len)
{
    sporf_error err;
    sporf_forest_save(f, NULL, 0, len, &err);
    uint8_t *buf = malloc((size_t)*len);
    sporf_forest_save(f, buf, *len, len, &err);
    return buf;
}

static int stop_now(void *user, int64_t done, int64_t total)
{
    (void)done; (void)total;
    (*(int *)user)++;
    return 1;
}

static void test_forest_determinism_and_format(void)
{
    enum { N = 300, P = 8 };
    static double X[N * P];
    static int32_t y[N];
    make_data(X, y, N, P, 11);
    sporf_params p;
    sporf_params_init(&p);
    p.n_estimators = 12;
    p.random_state = 2024;
    sporf_matrix m = rowmajor(X, N, P);
    sporf_error err;
    sporf_forest *f1 = NULL, *f2 = NULL;
    p.n_jobs = 1;
    CHECK(sporf_forest_fit(&p, &m, y, 3, NULL, NULL, NULL, NULL, NULL, NULL, &f1, &err) == SPORF_OK, "fit 1 thread");
    p.n_jobs = 2;
    CHECK(sporf_forest_fit(&p, &m, y, 3, NULL, NULL, NULL, NULL, NULL, NULL, &f2, &err) == SPORF_OK, "fit 2 threads");
    int64_t l1, l2;
    uint8_t *b1 = save(f1, &l1), *b2 = save(f2, &l2);
    CHECK(l1 == l2 && memcmp(b1, b2, (size_t)l1) == 0, "same seed: identical bytes for 1 and 2 threads");

    double *proba = malloc(N * 3 * sizeof *proba);
    CHECK(sporf_forest_predict_proba(f1, &m, 2, proba, NULL, NULL, &err) == SPORF_OK, "predict");
    int sums = 1, correct = 0;
    for (int i = 0; i < N; i++) {
        double s = proba[i * 3] + proba[i * 3 + 1] + proba[i * 3 + 2];
        sums &= NEAR(s, 1.0, 1e-12);
        int arg = 0;
        for (int k = 1; k < 3; k++) if (proba[i * 3 + k] > proba[i * 3 + arg]) arg = k;
        correct += arg == y[i];
    }
    CHECK(sums, "probabilities sum to 1");
    CHECK(correct > N * 0.95, "training accuracy %d/%d", correct, N);

    /* Round trip. */
    sporf_forest *g = NULL;
    CHECK(sporf_forest_load(b1, l1, &g, &err) == SPORF_OK, "load: %s", err.message);
    if (g) {
        int64_t lg;
        uint8_t *bg = save(g, &lg);
        CHECK(lg == l1 && memcmp(bg, b1, (size_t)l1) == 0, "save(load(bytes)) == bytes");
        free(bg);
        sporf_forest_free(g);
    }
    /* Every truncation and every single bit flip in a sample of positions is refused cleanly. */
    int trunc_ok = 1;
    for (int64_t len = 0; len < l1; len += (len < 200 ? 1 : 97)) {
        g = NULL;
        if (sporf_forest_load(b1, len, &g, &err) != SPORF_E_FORMAT || g) trunc_ok = 0;
    }
    CHECK(trunc_ok, "truncated models are refused");
    int flip_ok = 1;
    for (int64_t pos = 0; pos < l1; pos += 13) {
        for (int bit = 0; bit < 8; bit += 3) {
            b1[pos] ^= (uint8_t)(1u << bit);
            g = NULL;
            if (sporf_forest_load(b1, l1, &g, &err) != SPORF_E_FORMAT || g) flip_ok = 0;
            b1[pos] ^= (uint8_t)(1u << bit);
        }
    }
    CHECK(flip_ok, "bit flips are refused");

    /* Cancellation from the progress callback. */
    int calls = 0;
    p.n_estimators = 2000;
    sporf_forest *h = NULL;
    int rc = sporf_forest_fit(&p, &m, y, 3, NULL, NULL, NULL, NULL, stop_now, &calls, &h, &err);
    CHECK(rc == SPORF_E_INTERRUPTED && h == NULL && calls >= 1, "cancel: rc %d after %d calls", rc, calls);

    /* OOB: every row's decision is a distribution, accuracy is sensible. */
    p.n_estimators = 40;
    double *oob = malloc(N * 3 * sizeof *oob);
    int64_t cnt[N];
    CHECK(sporf_forest_fit(&p, &m, y, 3, NULL, NULL, oob, cnt, NULL, NULL, &h, &err) == SPORF_OK, "fit with oob");
    int oob_correct = 0;
    for (int i = 0; i < N; i++) {
        int arg = 0;
        for (int k = 1; k < 3; k++) if (oob[i * 3 + k] > oob[i * 3 + arg]) arg = k;
        oob_correct += arg == y[i];
    }
    CHECK(oob_correct > N * 0.7, "oob accuracy %d/%d", oob_correct, N);
    sporf_forest_free(h);
    free(oob);
    free(proba);
    free(b1);
    free(b2);
    sporf_forest_free(f1);
    sporf_forest_free(f2);
}

/* ---- model format 4 (tree_codec.c) ---- */

/* Re-seal a mutated model so the loader's parser, not its checksum, sees it. */
static void reseal(uint8_t *b, int64_t len) { sporf_reseal(b, len); }

/* Save, load, save again: identical bytes and identical predictions; then
 * mutations of the payload (checksum repaired) never crash the loader, and
 * what it accepts predicts finite values. Returns bytes per node. */
static double check_format_round_trip(const char *what, sporf_forest *f, const sporf_matrix *m, int32_t outputs)
{
    sporf_error err;
    int64_t len;
    uint8_t *b = save(f, &len);
    sporf_forest *g = NULL;
    CHECK(sporf_forest_load(b, len, &g, &err) == SPORF_OK, "%s: load: %s", what, err.message);
    if (!g) { free(b); return 0; }
    int64_t len2;
    uint8_t *b2 = save(g, &len2);
    CHECK(len2 == len && memcmp(b, b2, (size_t)len) == 0, "%s: save(load(bytes)) == bytes", what);
    free(b2);
    sporf_forest_info info;
    sporf_forest_get_info(f, &info, &err);
    CHECK(info.format_version == SPORF_MODEL_FORMAT_VERSION, "%s: format version %d", what, info.format_version);
    if (outputs > 0) {
        const int64_t n = m->nrow;
        double *a = malloc((size_t)(n * outputs) * sizeof *a), *c = malloc((size_t)(n * outputs) * sizeof *c);
        sporf_forest_predict_proba(f, m, 1, a, NULL, NULL, &err);
        sporf_forest_predict_proba(g, m, 1, c, NULL, NULL, &err);
        CHECK(memcmp(a, c, (size_t)(n * outputs) * sizeof *a) == 0, "%s: loaded forest predicts identically", what);
        free(a);
        free(c);
    }
    sporf_forest_free(g);
    /* Mutations past the fixed header. */
    int survived = 1, accepted = 0, tried = 0;
    uint8_t *mut = malloc((size_t)len);
    sporf_rng rng;
    sporf_rng_seed(&rng, 99, 1);
    for (int trial = 0; trial < 3000; trial++) {
        memcpy(mut, b, (size_t)len);
        const int edits = 1 + (int)sporf_rng_below(&rng, 3);
        for (int e = 0; e < edits; e++) {
            int64_t pos = 24 + (int64_t)sporf_rng_below(&rng, (uint64_t)(len - 32));
            mut[pos] = trial % 2 ? (uint8_t)sporf_rng_below(&rng, 256) : (uint8_t)(mut[pos] ^ (1u << (trial / 2 % 8)));
        }
        reseal(mut, len);
        g = NULL;
        int rc = sporf_forest_load(mut, len, &g, &err);
        tried++;
        if (rc == SPORF_OK) {
            accepted++;
            sporf_forest_info gi;
            if (outputs > 0 && sporf_forest_get_info(g, &gi, &err) == SPORF_OK) {
                /* sized by the loaded forest: a mutation may have changed its class count */
                double *out = malloc((size_t)gi.n_classes * sizeof *out);
                sporf_matrix one = *m;
                one.nrow = 1;
                if (out && sporf_forest_predict_proba(g, &one, 1, out, NULL, NULL, &err) == SPORF_OK)
                    for (int32_t k = 0; k < gi.n_classes; k++)
                        if (!isfinite(out[k])) survived = 0;
                free(out);
            }
            sporf_forest_free(g);
        } else if (rc != SPORF_E_FORMAT || g) {
            survived = 0;
        }
    }
    CHECK(survived, "%s: %d mutated models are refused or load into a working forest (%d loaded)", what, tried,
          accepted);
    free(mut);
    free(b);
    return (double)len / (double)info.n_nodes;
}

static void test_model_format(void)
{
    enum { N = 300, P = 8, PW = 80 };
    static double X[N * P], XW[N * PW], yr[N];
    static int32_t y[N];
    make_data(X, y, N, P, 21);
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < PW; j++) XW[i * PW + j] = X[i * P + j % P] + 0.01 * j;
        yr[i] = X[i * P] * 2.0 - X[i * P + 1];
    }
    sporf_matrix m = rowmajor(X, N, P), mw = rowmajor(XW, N, PW);
    sporf_params p;
    sporf_error err;
    sporf_forest *f = NULL;

    sporf_params_init(&p);
    p.n_estimators = 6;
    p.random_state = 5;
    CHECK(sporf_forest_fit(&p, &m, y, 3, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_OK, "fit sparse");
    double per_node = check_format_round_trip("sparse, fully grown", f, &m, 3);
    CHECK(per_node < 14.0, "a fully grown sparse forest takes %.1f bytes per node (< 14)", per_node);
    sporf_forest_free(f);

    p.min_samples_leaf.value = 7; /* mixed leaves: stored as values */
    p.projection = SPORF_PROJ_GAUSSIAN; /* real weights */
    CHECK(sporf_forest_fit(&p, &m, y, 3, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_OK, "fit gaussian");
    check_format_round_trip("gaussian weights, mixed leaves", f, &m, 3);
    sporf_forest_free(f);

    sporf_params_init(&p);
    p.n_estimators = 3;
    p.random_state = 6;
    p.feature_combinations = 70.0; /* projections of more than 63 non-zeros: the length escape */
    p.max_features.form = SPORF_FORM_COUNT;
    p.max_features.value = 2;
    CHECK(sporf_forest_fit(&p, &mw, y, 3, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_OK,
          "fit long projections: %s", err.message);
    check_format_round_trip("long projections", f, &mw, 3);
    sporf_forest_free(f);

    sporf_params_init(&p);
    p.n_estimators = 5;
    p.random_state = 7;
    p.criterion = SPORF_CRIT_SQUARED_ERROR;
    CHECK(sporf_forest_fit_regression(&p, &m, yr, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_OK, "fit regression");
    check_format_round_trip("regression", f, &m, 1);
    sporf_forest_free(f);

    sporf_params_init(&p);
    p.n_estimators = 5;
    p.random_state = 8;
    p.honest_fraction = 0.5;
    p.honest_prior = SPORF_HONEST_IGNORE;
    CHECK(sporf_forest_fit(&p, &m, y, 3, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_OK, "fit honest");
    check_format_round_trip("honest, abstaining leaves", f, &m, 3);
    sporf_forest_free(f);

    sporf_params_init(&p);
    p.n_estimators = 5;
    p.random_state = 9;
    p.criterion = SPORF_CRIT_FASTBIC;
    p.min_samples_split.value = 20;
    CHECK(sporf_forest_fit_unsupervised(&p, &m, NULL, NULL, NULL, &f, &err) == SPORF_OK, "fit unsupervised");
    check_format_round_trip("unsupervised", f, &m, 0);
    sporf_forest_free(f);
}

static void test_bad_input(void)
{
    double X[6] = {1, 2, INFINITY, 4, 5, 6};
    int32_t y[3] = {0, 1, 0};
    sporf_params p;
    sporf_params_init(&p);
    sporf_matrix m = rowmajor(X, 3, 2);
    sporf_forest *f = NULL;
    sporf_error err;
    CHECK(sporf_forest_fit(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG &&
          strstr(err.message, "X contains infinity (row 1, column 0)"), "infinity refused: %s", err.message);
    X[2] = NAN; /* a missing value: learned, not refused */
    CHECK(sporf_forest_fit(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_OK,
          "NaN accepted: %s", err.message);
    sporf_forest_free(f);
    f = NULL;
    X[2] = 3;
    int32_t bad_y[3] = {0, 2, 0};
    CHECK(sporf_forest_fit(&p, &m, bad_y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG,
          "class code out of range refused");
    p.feature_combinations = 0;
    CHECK(sporf_forest_fit(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG &&
          strstr(err.message, "feature_combinations"), "feature_combinations <= 0 refused");
    sporf_params_init(&p);
    p.n_estimators = 0;
    CHECK(sporf_forest_fit(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG &&
          strstr(err.message, "n_estimators"), "n_estimators < 1 refused");
    sporf_matrix empty = rowmajor(X, 0, 2);
    sporf_params_init(&p);
    CHECK(sporf_forest_fit(&p, &empty, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG,
          "zero rows refused");
    double sw[3] = {0, 0, 0};
    CHECK(sporf_forest_fit(&p, &m, y, 2, sw, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG,
          "all-zero weights refused");
    CHECK(f == NULL, "no forest on failure");
    uint8_t junk[64] = {0};
    CHECK(sporf_forest_load(junk, sizeof junk, &f, &err) == SPORF_E_FORMAT, "junk refused");
}

/* Prediction checks X's values block by block on its workers (predict.c);
 * the error must still name the first infinity in row order (NaN, a missing
 * value, is predicted), for
 * narrow rows (double walk) and wide ones (float copies), row- and
 * column-major, in a later block, and for a few rows. */
static void test_predict_names_first_nonfinite(void)
{
    enum { N = 200, M = 5000 };
    for (int wide = 0; wide < 2; wide++) {
        const int P = wide ? 300 : 4;
        double *X = malloc(sizeof(double) * N * P), *T = malloc(sizeof(double) * M * P);
        double *Tc = malloc(sizeof(double) * M * P), *out = malloc(sizeof(double) * M * 2);
        int64_t *leaves = malloc(sizeof(int64_t) * M * 5);
        int32_t y[N];
        sporf_rng r;
        sporf_rng_seed(&r, 4, 0);
        for (int i = 0; i < N * P; i++) X[i] = (double)sporf_rng_below(&r, 5);
        for (int i = 0; i < N; i++) y[i] = X[i * P] > 2.0;
        for (int i = 0; i < M * P; i++) T[i] = (double)sporf_rng_below(&r, 5);
        /* the first bad value in row order is T[2000, 1] (in the first of
         * two blocks with 2 threads); more in the second block */
        T[2000 * P + 2] = NAN;
        T[2000 * P + 1] = -INFINITY;
        T[4700 * P + 0] = INFINITY;
        T[4999 * P + 3] = INFINITY;
        T[4999 * P + 2] = NAN;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < P; j++) Tc[(int64_t)j * M + i] = T[(int64_t)i * P + j];
        sporf_params p;
        sporf_params_init(&p);
        p.n_estimators = 5;
        p.random_state = 2;
        sporf_matrix m = rowmajor(X, N, P), mt = rowmajor(T, M, P), mc = {Tc, M, P, 1, M};
        sporf_forest *f = NULL;
        sporf_error err;
        if (sporf_forest_fit(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            CHECK(0, "fit: %s", err.message);
            continue;
        }
        for (int jobs = 1; jobs <= 2; jobs++) {
            CHECK(sporf_forest_predict_proba(f, &mt, jobs, out, NULL, NULL, &err) == SPORF_E_ARG &&
                      strstr(err.message, "X contains infinity (row 2000, column 1)"),
                  "%d features, %d thread(s): predict_proba names the first bad value: %s", P, jobs, err.message);
            CHECK(sporf_forest_predict_proba(f, &mc, jobs, out, NULL, NULL, &err) == SPORF_E_ARG &&
                      strstr(err.message, "(row 2000, column 1)"),
                  "%d features, column-major: %s", P, err.message);
            CHECK(sporf_forest_apply(f, &mt, jobs, leaves, NULL, NULL, &err) == SPORF_E_ARG &&
                      strstr(err.message, "(row 2000, column 1)"),
                  "%d features: apply names the first bad value: %s", P, err.message);
        }
        sporf_matrix few = rowmajor(T + 4698 * P, 3, P), tail = rowmajor(T + 2001 * P, 2999, P);
        CHECK(sporf_forest_predict_proba(f, &few, 1, out, NULL, NULL, &err) == SPORF_E_ARG &&
                  strstr(err.message, "(row 2, column 0)"),
              "%d features, 3 rows: %s", P, err.message);
        CHECK(sporf_forest_predict_proba(f, &tail, 2, out, NULL, NULL, &err) == SPORF_E_ARG &&
                  strstr(err.message, "(row 2699, column 0)"),
              "%d features, bad values in the last rows: %s", P, err.message);
        sporf_matrix clean = rowmajor(T, 2000, P);
        CHECK(sporf_forest_predict_proba(f, &clean, 2, out, NULL, NULL, &err) == SPORF_OK,
              "%d features: the rows before the first bad one predict", P);
        sporf_forest_free(f);
        free(X); free(T); free(Tc); free(out); free(leaves);
    }
}

/* The leaf of row x by the stored nodes and the fit's arithmetic, with no
 * inlining: the reference the prediction layout must reproduce exactly. */
static int32_t reference_leaf(const sporf_tree *t, const double *x)
{
    int32_t i = 0;
    while (t->nodes[i].left >= 0) {
        const sporf_node *nd = &t->nodes[i];
        double s = 0.0;
        for (int32_t k = 0; k < nd->proj_len; k++)
            s += t->proj_weight[nd->proj_start + k] * x[t->proj_feature[nd->proj_start + k]];
        i = s <= nd->threshold ? nd->left : nd->right;
    }
    return i;
}

/* Move a third of v's n values (on a grid of halves) off the grid by less
 * than float precision sees: by 1e-12, which rounds back to the grid value
 * in float (a tie for a float walk), or by 1-6 units of 2^-24 relative,
 * where the float sum of a projection may round to either side of the
 * threshold its double sum is just off. A float walk must decide them in
 * double. */
static void nudge_off_grid(double *v, int64_t n, sporf_rng *r)
{
    for (int64_t i = 0; i < n; i++) {
        if (sporf_rng_below(r, 3) != 0)
            continue;
        const double sign = sporf_rng_below(r, 2) ? 1.0 : -1.0;
        if (sporf_rng_below(r, 2))
            v[i] += sign * 1e-12;
        else
            v[i] *= 1.0 + sign * (double)(1 + sporf_rng_below(r, 6)) * 0x1p-24;
    }
}

static void test_traversal_matches_reference(void)
{
    /* Integer training data puts thresholds on half-integers; test rows on a
     * half-integer grid then land exactly on thresholds, where a wrong sign
     * fold (<= against <) would send them the other way. */
    enum { N = 600, P = 6, M = 2003 };
    double *X = malloc(sizeof(double) * N * P), *T = malloc(sizeof(double) * M * P);
    int32_t *y = malloc(sizeof(int32_t) * N), *leaf = malloc(sizeof(int32_t) * M);
    sporf_rng r;
    sporf_rng_seed(&r, 7, 0);
    for (int i = 0; i < N; i++) {
        int s = 0;
        for (int j = 0; j < P; j++) {
            X[i * P + j] = (double)sporf_rng_below(&r, 4);
            s += (int)X[i * P + j] * (j % 2 ? -1 : 1);
        }
        y[i] = (s > 0) + (s > 2);
    }
    /* Rows 0..M/2: on the grid. The rest: a third of the values moved off
     * it, within float precision, so a float walk cannot tell the side. */
    for (int i = 0; i < M * P; i++)
        T[i] = 0.5 * (double)sporf_rng_below(&r, 8) - 0.5;
    nudge_off_grid(T + M / 2 * P, (int64_t)(M - M / 2) * P, &r);
    float *Tf = malloc(sizeof(float) * M * P);
    for (int i = 0; i < M * P; i++)
        Tf[i] = (float)T[i];
    int32_t *idx = malloc(sizeof(int32_t) * 2 * M);
    sporf_part_frame stack[64];
    int ok = 1, float_ok = 1, part_ok = 1, kinds_seen[4] = {0, 0, 0, 0};
    /* axis; sparse with 1-6 non-zeros per projection; sparse and near dense
     * (6 of 6 features: side-buffer splits) */
    for (int proj = 0; proj < 3; proj++) {
        sporf_params p;
        sporf_params_init(&p);
        p.n_estimators = 20;
        p.projection = proj ? SPORF_PROJ_SPARSE : SPORF_PROJ_AXIS;
        p.feature_combinations = proj == 2 ? 4.5 : 2.0;
        p.random_state = 11;
        sporf_matrix m = rowmajor(X, N, P);
        sporf_forest *f = NULL;
        sporf_error err;
        if (sporf_forest_fit(&p, &m, y, 3, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            CHECK(0, "fit: %s", err.message);
            continue;
        }
        const sporf_packed *pk = f->packed;
        /* The plain proba: reference leaves, summed in tree order. */
        double *want_proba = calloc((size_t)M * 3, sizeof(double)), *got_proba = malloc(sizeof(double) * M * 3);
        int64_t *got_apply = malloc(sizeof(int64_t) * M * (size_t)f->n_trees);
        for (int64_t t = 0; t < f->n_trees; t++) {
            sporf_tree *tr = &f->trees[t];
            ok &= tr->pnodes == NULL; /* a grown tree keeps only the packed layout */
            sporf_tree_prepare(tr);   /* the plain layout, for comparison */
            const sporf_pnode *base = pk->nodes + pk->bin_offset[pk->tree_bin[t]];
            for (int64_t i = pk->bin_offset[pk->tree_bin[t]]; i < pk->bin_offset[pk->tree_bin[t] + 1]; i++) {
                const sporf_pnode *q = &pk->nodes[i];
                const uint32_t kind = sporf_pnode_kind(q);
                /* the slots after a node with extensions are not nodes: skip them */
                if (kind == SPORF_PN_WIDE) {
                    kinds_seen[3]++;
                    i += 2;
                } else if (kind != SPORF_PN_LEAF &&
                           (kind != SPORF_PN_SINGLE || (q->link & SPORF_PN_EXPLICIT))) {
                    kinds_seen[kind == SPORF_PN_GENERAL ? 2 : kind != SPORF_PN_SINGLE]++;
                    i++;
                } else if (kind == SPORF_PN_SINGLE) {
                    kinds_seen[0]++;
                }
            }
            sporf_nodes_find_leaves(tr->pnodes, 0, tr, T, P, 1, M, leaf, 0);
            for (int i = 0; i < M; i++) {
                const int32_t want = reference_leaf(tr, T + i * P);
                ok &= tr->pnodes[leaf[i]].u.leaf.node == want;
                ok &= tr->pnodes[sporf_tree_find_leaf(tr, T + i * P, 1)].u.leaf.node == want;
                ok &= sporf_pnode_leaf_slot(&tr->pnodes[leaf[i]]) == tr->nodes[want].right;
                ok &= base[sporf_nodes_find_leaf(base, pk->root[t], tr, T + i * P, 1)].u.leaf.node == want;
                for (int k = 0; k < 3; k++)
                    want_proba[i * 3 + k] += tr->leaf_values[(int64_t)tr->nodes[want].right * 3 + k];
            }
            for (int single = 0; single <= pk->single_only; single++) {
                sporf_nodes_find_leaves(base, pk->root[t], tr, T, P, 1, M, leaf, single);
                for (int i = 0; i < M; i++)
                    ok &= base[leaf[i]].u.leaf.node == reference_leaf(tr, T + i * P);
                /* the partition walk (predict takes it for narrow rows); a stack of 3
                 * frames makes it walk the ranges below depth 1 row by row */
                const float *thr_f = pk->thr_f + pk->bin_offset[pk->tree_bin[t]];
                for (int cap = 3; cap <= 64; cap += 61) {
                    for (int on_floats = 0; on_floats < 2; on_floats++) {
                        sporf_nodes_find_leaves_part(base, pk->root[t], tr, T, P, 1, M, leaf, idx, idx + M, stack,
                                                     cap, thr_f, on_floats ? Tf : NULL, P);
                        int *walk_ok = on_floats ? &float_ok : &part_ok;
                        for (int i = 0; i < M; i++)
                            *walk_ok &= base[leaf[i]].u.leaf.node == reference_leaf(tr, T + i * P);
                    }
                }
                /* the float lanes (axis forests; predict takes them on wide rows) */
                if (single) {
                    sporf_nodes_find_leaves_f32(base, thr_f, pk->root[t], tr, Tf, P, T, P, 1, M, leaf);
                    for (int i = 0; i < M; i++)
                        float_ok &= base[leaf[i]].u.leaf.node == reference_leaf(tr, T + i * P);
                }
            }
            sporf_tree_unprepare(tr);
        }
        for (int i = 0; i < M * 3; i++) want_proba[i] *= 1.0 / (double)f->n_trees;
        sporf_matrix mt = rowmajor(T, M, P);
        CHECK(sporf_forest_predict_proba(f, &mt, 2, got_proba, NULL, NULL, &err) == SPORF_OK, "predict");
        CHECK(memcmp(got_proba, want_proba, sizeof(double) * M * 3) == 0,
              "packed predict_proba equals the plain traversal's sums bit for bit");
        /* 1-7 rows take the kernel that walks a bin's trees together */
        int small_ok = 1;
        for (int64_t nr = 1; nr < 8; nr++) {
            sporf_matrix ms = rowmajor(T + 5 * P, nr, P);
            small_ok &= sporf_forest_predict_proba(f, &ms, 1, got_proba, NULL, NULL, &err) == SPORF_OK &&
                        memcmp(got_proba, want_proba + 5 * 3, sizeof(double) * (size_t)nr * 3) == 0;
            small_ok &= sporf_forest_apply(f, &ms, 1, got_apply, NULL, NULL, &err) == SPORF_OK;
            for (int64_t i = 0; i < nr; i++)
                for (int64_t t = 0; t < f->n_trees; t++)
                    small_ok &= got_apply[i * f->n_trees + t] == reference_leaf(&f->trees[t], T + (5 + i) * P);
        }
        CHECK(small_ok, "1 to 7 rows: predict_proba and apply equal the plain traversal's");
        CHECK(sporf_forest_apply(f, &mt, 2, got_apply, NULL, NULL, &err) == SPORF_OK, "apply");
        int apply_ok = 1;
        for (int i = 0; i < M; i++)
            for (int64_t t = 0; t < f->n_trees; t++)
                apply_ok &= got_apply[i * f->n_trees + t] == reference_leaf(&f->trees[t], T + i * P);
        CHECK(apply_ok, "packed apply returns the reference leaves");
        CHECK(pk->n_bins == (f->n_trees + SPORF_BIN_TREES - 1) / SPORF_BIN_TREES, "%lld bins", (long long)pk->n_bins);
        CHECK(pk->single_only == !proj, "an axis forest (only) takes the single-feature step");
        CHECK(pk->thr_f != NULL, "every forest keeps float thresholds for the float walk");
        free(want_proba);
        free(got_proba);
        free(got_apply);
        sporf_forest_free(f);
    }
    CHECK(ok, "inlined and lockstep traversal reach the reference leaf, ties included");
    CHECK(float_ok, "the float walks (lanes, partition) reach the reference leaf, rows that tie only in float included");
    CHECK(part_ok, "the partition walk reaches the reference leaf, ties included");
    CHECK(kinds_seen[0] > 0 && kinds_seen[1] > 0 && kinds_seen[2] > 0 && kinds_seen[3] > 0,
          "test covers single, inlined multi-feature, general and wide nodes (%d %d %d %d)",
          kinds_seen[0], kinds_seen[1], kinds_seen[2], kinds_seen[3]);
    free(X); free(T); free(Tf); free(idx); free(y); free(leaf);
}

/* Rows wider than 1 KB are walked on float copies (predict.c): by the
 * partition walk, or by lanes in axis forests on rows over 4 KB. With P
 * features predict_proba still equals the plain traversal's, for rows on
 * the training grid (projections exactly on thresholds) and rows a hair
 * off it, which tie only in float. */
static void check_wide_rows_float_walk(const int P)
{
    enum { N = 400, M = 500, K = 2 };
    double *X = malloc(sizeof(double) * N * P), *T = malloc(sizeof(double) * M * P);
    double *want = calloc((size_t)M * K, sizeof(double)), *got = malloc(sizeof(double) * M * K);
    int32_t *y = malloc(sizeof(int32_t) * N);
    sporf_rng r;
    sporf_rng_seed(&r, 5, 0);
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < P; j++)
            X[i * P + j] = (double)sporf_rng_below(&r, 4);
        y[i] = X[i * P] + X[i * P + 1] - X[i * P + 2] > 2.0;
    }
    for (int i = 0; i < M * P; i++)
        T[i] = 0.5 * (double)sporf_rng_below(&r, 8) - 0.5;
    nudge_off_grid(T + M / 2 * P, (int64_t)(M - M / 2) * P, &r);
    /* values float cannot hold: beyond its range (the float sum of two such
     * values of opposite sign is NaN, the double sum finite) and below it */
    for (int i = 0; i < 60; i++)
        for (int j = 0; j < 3; j++) {
            const double tiny = sporf_rng_below(&r, 2) ? 1e-300 : -1e-300;
            const double huge = sporf_rng_below(&r, 2) ? 1e39 : -1e39;
            T[(int64_t)i * P + j] = i < 40 ? huge : tiny;
        }
    /* the same rows column-major (column stride M) */
    double *Tc = malloc(sizeof(double) * M * P);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < P; j++)
            Tc[(int64_t)j * M + i] = T[(int64_t)i * P + j];
    for (int proj = 0; proj < 2; proj++) {
        sporf_params p;
        sporf_params_init(&p);
        p.n_estimators = 12;
        p.projection = proj ? SPORF_PROJ_AXIS : SPORF_PROJ_SPARSE;
        p.feature_combinations = 2.0;
        p.random_state = 3;
        sporf_matrix m = rowmajor(X, N, P), mt = rowmajor(T, M, P), mc = {Tc, M, P, 1, M};
        sporf_forest *f = NULL;
        sporf_error err;
        if (sporf_forest_fit(&p, &m, y, K, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            CHECK(0, "fit: %s", err.message);
            continue;
        }
        memset(want, 0, sizeof(double) * M * K);
        for (int64_t t = 0; t < f->n_trees; t++)
            for (int i = 0; i < M; i++) {
                const sporf_tree *tr = &f->trees[t];
                const int32_t lf = reference_leaf(tr, T + i * P);
                for (int k = 0; k < K; k++)
                    want[i * K + k] += tr->leaf_values[(int64_t)tr->nodes[lf].right * K + k];
            }
        for (int i = 0; i < M * K; i++) want[i] *= 1.0 / (double)f->n_trees;
        CHECK(f->packed->single_only == proj, "%s forest", proj ? "an axis" : "a sparse");
        CHECK(sporf_forest_predict_proba(f, &mt, 2, got, NULL, NULL, &err) == SPORF_OK &&
                  memcmp(got, want, sizeof(double) * M * K) == 0,
              "rows of %d features: predict_proba equals the plain traversal's bit for bit (%s)", P,
              proj ? "axis" : "sparse");
        CHECK(sporf_forest_predict_proba(f, &mc, 2, got, NULL, NULL, &err) == SPORF_OK &&
                  memcmp(got, want, sizeof(double) * M * K) == 0,
              "the same rows column-major: the same probabilities (%s)", proj ? "axis" : "sparse");
        sporf_forest_free(f);
    }
    free(X); free(T); free(Tc); free(want); free(got); free(y);
}

static void test_wide_rows_float_walk(void)
{
    check_wide_rows_float_walk(300); /* 2.4 KB rows: the float partition walk */
    check_wide_rows_float_walk(600); /* 4.8 KB rows: axis forests take the float lanes */
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


static double normal(sporf_rng *rng)
{
    double u1 = sporf_rng_uniform(rng), u2 = sporf_rng_uniform(rng);
    if (u1 <= 0.0) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
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

static void test_unsupervised_forest(void)
{
    enum { N = 300, P = 6, K = 10 };
    static double X[N * P];
    sporf_rng rng;
    sporf_rng_seed(&rng, 9, 0);
    /* Three clusters in the first two features, four noise features. */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < P; j++)
            X[i * P + j] = normal(&rng) + (j < 2 ? 8.0 * (i % 3) : 0.0);
    sporf_matrix m = rowmajor(X, N, P);
    sporf_params p;
    sporf_params_init(&p);
    p.criterion = SPORF_CRIT_FASTBIC;
    p.n_estimators = 30;
    p.min_samples_split.value = 18;
    p.random_state = 3;
    sporf_error err;
    sporf_forest *f1 = NULL, *f2 = NULL;
    p.n_jobs = 1;
    CHECK(sporf_forest_fit_unsupervised(&p, &m, NULL, NULL, NULL, &f1, &err) == SPORF_OK, "unsupervised fit: %s",
          err.message);
    p.n_jobs = 2;
    CHECK(sporf_forest_fit_unsupervised(&p, &m, NULL, NULL, NULL, &f2, &err) == SPORF_OK, "unsupervised fit, 2 threads");
    if (!f1 || !f2) return;
    int64_t l1, l2;
    uint8_t *b1 = save(f1, &l1), *b2 = save(f2, &l2);
    CHECK(l1 == l2 && memcmp(b1, b2, (size_t)l1) == 0, "unsupervised: identical bytes for 1 and 2 threads");
    sporf_forest *g = NULL;
    CHECK(sporf_forest_load(b1, l1, &g, &err) == SPORF_OK, "unsupervised model loads: %s", err.message);
    sporf_forest_info info;
    sporf_forest_get_info(f1, &info, &err);
    CHECK(info.task == SPORF_TASK_UNSUPERVISED, "task is unsupervised");
    double dummy[N];
    CHECK(sporf_forest_predict_proba(f1, &m, 1, dummy, NULL, NULL, &err) == SPORF_E_ARG,
          "an unsupervised forest refuses predict_proba");

    int64_t *idx = malloc(N * K * sizeof *idx), *idx2 = malloc(N * K * sizeof *idx2);
    double *sim = malloc(N * K * sizeof *sim), *sim2 = malloc(N * K * sizeof *sim2);
    double *dense = malloc((size_t)N * N * sizeof *dense);
    CHECK(sporf_forest_neighbors(f1, &m, NULL, K, 1, idx, sim, NULL, NULL, &err) == SPORF_OK, "neighbors: %s",
          err.message);
    CHECK(sporf_forest_neighbors(g, &m, NULL, K, 2, idx2, sim2, NULL, NULL, &err) == SPORF_OK, "neighbors, 2 threads");
    CHECK(memcmp(idx, idx2, N * K * sizeof *idx) == 0 && memcmp(sim, sim2, N * K * sizeof *sim) == 0,
          "neighbors do not depend on threads or on a save/load round trip");
    int same = 0, self = 0, ordered = 1;
    for (int i = 0; i < N; i++)
        for (int a = 0; a < K; a++) {
            same += idx[i * K + a] % 3 == i % 3;
            self += idx[i * K + a] == i;
            if (a > 0 && sim[i * K + a] > sim[i * K + a - 1]) ordered = 0;
        }
    CHECK(same > 0.95 * N * K, "neighbours share the cluster: %d of %d", same, N * K);
    CHECK(self == 0 && ordered, "no row is its own neighbour; similarities descend");
    CHECK(sporf_forest_proximity_dense(f1, &m, NULL, 2, dense, NULL, NULL, &err) == SPORF_OK, "dense proximity");
    int sym = 1, diag = 1, agree = 1;
    for (int i = 0; i < N; i++) {
        diag &= dense[i * N + i] == 1.0;
        for (int j = 0; j < N; j++) sym &= dense[i * N + j] == dense[j * N + i];
        for (int a = 0; a < K; a++) agree &= dense[i * N + idx[i * K + a]] == sim[i * K + a];
        /* the k-th neighbour is at least as similar as any row not listed */
        for (int j = 0; j < N; j++) {
            int listed = j == i;
            for (int a = 0; a < K; a++) listed |= idx[i * K + a] == j;
            if (!listed && dense[i * N + j] > sim[i * K + K - 1]) agree = 0;
        }
    }
    CHECK(sym && diag && agree, "dense proximity: symmetric, ones on the diagonal, matches the neighbours");
    /* New rows: the training rows as queries give the self-similarity 1 first. */
    CHECK(sporf_forest_neighbors(f1, &m, &m, 1, 1, idx2, sim2, NULL, NULL, &err) == SPORF_OK && sim2[0] == 1.0,
          "query rows equal to reference rows are fully similar to themselves");
    CHECK(sporf_forest_neighbors(f1, &m, NULL, N, 1, idx2, sim2, NULL, NULL, &err) == SPORF_E_ARG,
          "k = n (the row itself excluded) is refused: %s", err.message);
    CHECK(sporf_forest_neighbors(f1, &m, NULL, 0, 1, idx2, sim2, NULL, NULL, &err) == SPORF_E_ARG, "k = 0 is refused");
    /* Parameters that do not fit an unsupervised forest. */
    sporf_forest *h = NULL;
    p.criterion = SPORF_CRIT_GINI;
    CHECK(sporf_forest_fit_unsupervised(&p, &m, NULL, NULL, NULL, &h, &err) == SPORF_E_ARG && !h,
          "unsupervised fit with gini is refused");
    p.criterion = SPORF_CRIT_TWOMEANS;
    p.honest_fraction = 0.5;
    CHECK(sporf_forest_fit_unsupervised(&p, &m, NULL, NULL, NULL, &h, &err) == SPORF_E_ARG && !h,
          "unsupervised honest forest is refused");
    int32_t y[N] = {0};
    p.honest_fraction = 0.0;
    CHECK(sporf_forest_fit(&p, &m, y, 1, NULL, NULL, NULL, NULL, NULL, NULL, &h, &err) == SPORF_E_ARG && !h,
          "a classifier with criterion twomeans is refused");
    free(idx); free(idx2); free(sim); free(sim2); free(dense);
    free(b1); free(b2);
    sporf_forest_free(f1); sporf_forest_free(f2); sporf_forest_free(g);
}

/* Out-of-bag permutation importance through the public API: the features y
 * depends on stand out, the result is the same for 1 and 2 threads, with and
 * without the standard deviations, and what it cannot do is refused (X is
 * only checked to have at least the rows each tree drew: like the
 * out-of-bag predictions, it must be the training data). */
static void test_permutation_importance(void)
{
    enum { N = 400, P = 6 };
    static double X[N * P], yr[N];
    static int32_t y[N];
    sporf_rng rng;
    sporf_rng_seed(&rng, 17, 0);
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < P; j++) X[i * P + j] = (double)sporf_rng_below(&rng, 1000000) / 1e6 - 0.5;
        yr[i] = X[i * P] + X[i * P + 1];
        y[i] = yr[i] > 0.0;
    }
    X[5 * P + 3] = NAN; /* a missing value: walked as the splits learned */
    sporf_matrix m = rowmajor(X, N, P);
    sporf_params p;
    sporf_params_init(&p);
    p.n_estimators = 30;
    p.random_state = 5;
    sporf_error err;
    for (int task = 0; task < 2; task++) {
        sporf_forest *f = NULL;
        sporf_params q = p;
        if (task == 1) q.criterion = SPORF_CRIT_SQUARED_ERROR;
        int rc = task == 0 ? sporf_forest_fit(&q, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err)
                           : sporf_forest_fit_regression(&q, &m, yr, NULL, NULL, NULL, NULL, NULL, &f, &err);
        CHECK(rc == SPORF_OK, "task %d fit: %s", task, err.message);
        if (rc != SPORF_OK) continue;
        double mean1[P], sd1[P], mean2[P];
        const int32_t *yc = task == 0 ? y : NULL;
        const double *yv = task == 1 ? yr : NULL;
        rc = sporf_forest_permutation_importance(f, &m, yc, yv, 1, NULL, NULL, mean1, sd1, &err);
        CHECK(rc == SPORF_OK, "task %d: %s", task, err.message);
        rc = sporf_forest_permutation_importance(f, &m, yc, yv, 2, NULL, NULL, mean2, NULL, &err);
        CHECK(rc == SPORF_OK && memcmp(mean1, mean2, sizeof mean1) == 0, "task %d: the same for 1 and 2 threads",
              task);
        double noise = 0.0;
        for (int j = 2; j < P; j++) noise = fmax(noise, fabs(mean1[j]));
        CHECK(mean1[0] > 5 * noise && mean1[1] > 5 * noise && sd1[0] > 0.0,
              "task %d: informative %g %g, noise up to %g", task, mean1[0], mean1[1], noise);
        /* no response, the wrong rows, class codes out of range */
        CHECK(sporf_forest_permutation_importance(f, &m, NULL, NULL, 1, NULL, NULL, mean1, NULL, &err) == SPORF_E_ARG,
              "task %d: no response refused", task);
        if (task == 0) {
            static int32_t bad[N];
            memcpy(bad, y, sizeof bad);
            bad[0] = 7;
            CHECK(sporf_forest_permutation_importance(f, &m, bad, NULL, 1, NULL, NULL, mean1, NULL, &err) ==
                          SPORF_E_ARG && strstr(err.message, "not a class code"),
                  "a class code out of range refused: %s", err.message);
        }
        sporf_forest_free(f);
    }
    sporf_forest *nb = NULL;
    p.bootstrap = 0;
    CHECK(sporf_forest_fit(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &nb, &err) == SPORF_OK, "fit");
    double mean[P];
    CHECK(sporf_forest_permutation_importance(nb, &m, y, NULL, 1, NULL, NULL, mean, NULL, &err) == SPORF_E_ARG &&
              strstr(err.message, "bootstrap"),
          "without the bootstrap: %s", err.message);
    sporf_forest_free(nb);
}

int main(void)
{
    test_criterion();
    test_split_known_threshold();
    test_split_matches_brute_force();
    test_sparse_sampler();
    test_axis_sampler();
    test_sort();
    test_rng();
    test_forest_determinism_and_format();
    test_model_format();
    test_traversal_matches_reference();
    test_wide_rows_float_walk();
    test_patch_sampler();
    test_bad_input();
    test_predict_names_first_nonfinite();
    test_unsupervised_cut_separates_clusters();
    test_unsupervised_cut_matches_direct();
    test_unsupervised_forest();
    test_permutation_importance();
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail == 0 ? 0 : 1;
}
