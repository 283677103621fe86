/* C tests of the histogram split search (max_bins > 0, fit/histogram.h): the
 * cut it keeps is the best of the cuts between bins and sits midway between
 * two neighbouring values; long tails, ranges too narrow to bin and one bin
 * fall back safely; the forest is the same for any thread count, and with or
 * without the node-ordered copy of X that large data uses. Run with
 * `meson test` (prints "N passed, N failed"). */
#include "fit_calls.h"
#include "model/model.h"
#include "model/params.h"
#include "fit/criterion.h"
#include "fit/histogram.h"
#include "fit/task.h"
#include "fit/builder.h"
#include "util/rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_pass = 0, n_fail = 0;
#define CHECK(cond, ...) do { \
    if (cond) n_pass++; \
    else { n_fail++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
} while (0)

static sporf_matrix rowmajor(const double *X, int64_t n, int64_t p)
{
    sporf_matrix m = {X, n, p, p, 1, NULL};
    return m;
}

/* One axis-aligned stump on all rows, histogram search with max_bins bins. */
static sporf_params stump_params(int64_t max_bins)
{
    sporf_params p;
    sporf_params_init(&p);
    p.n_estimators = 1;
    p.bootstrap = 0;
    p.projection = SPORF_PROJ_AXIS;
    p.max_features.form = SPORF_FORM_ALL;
    p.max_depth = 1;
    p.max_bins = max_bins;
    p.random_state = 3;
    return p;
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
    return nl * sporf_impurity(SPORF_CRIT_GINI, L, 2, nl) + (n - nl) * sporf_impurity(SPORF_CRIT_GINI, R, 2, n - nl);
}

/* The root's cut of a stump fitted on x (one feature), or NAN when it made no split. */
static double stump_threshold(const double *x, const int32_t *y, int n, int64_t max_bins)
{
    sporf_params p = stump_params(max_bins);
    sporf_matrix m = rowmajor(x, n, 1);
    sporf_forest *f = NULL;
    sporf_error err;
    if (fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
        printf("fit: %s\n", err.message);
        return NAN;
    }
    double t = f->trees[0].n_nodes == 3 ? f->trees[0].nodes[0].threshold : NAN;
    sporf_forest_free(f);
    return t;
}

/* On random problems, the histogram cut is the best cut between the
 * equal-width bins of the values' range, placed midway between the largest
 * value on its left and the smallest on its right, and never better than the
 * exact search's optimum. */
static void test_cut_is_best_between_bins(void)
{
    enum { N = 300, B = 16 };
    double x[N];
    int32_t y[N];
    sporf_rng rng;
    sporf_rng_seed(&rng, 99, 0);
    int ok = 1;
    for (int trial = 0; trial < 40 && ok; trial++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < N; i++) {
            x[i] = (double)sporf_rng_below(&rng, 100000) / 1000.0;
            y[i] = x[i] + (double)sporf_rng_below(&rng, 4000) / 100.0 > 70.0;
            lo = x[i] < lo ? x[i] : lo;
            hi = x[i] > hi ? x[i] : hi;
        }
        /* the best of the cuts after each bin, as the scan bins them */
        const double scale = B / (hi - lo);
        double best = INFINITY;
        for (int k = 0; k < B - 1; k++) {
            double a = -INFINITY;
            for (int i = 0; i < N; i++)
                if (sporf_bin_of(x[i], lo, scale, B) <= k && x[i] > a) a = x[i];
            const double s = cut_impurity(x, y, N, a);
            if (s < best) best = s;
        }
        double exact = INFINITY;
        for (int i = 0; i < N; i++) {
            const double s = cut_impurity(x, y, N, x[i]);
            if (s < exact) exact = s;
        }
        const double t = stump_threshold(x, y, N, B);
        double below = -INFINITY, above = INFINITY;
        for (int i = 0; i < N; i++) {
            if (x[i] <= t && x[i] > below) below = x[i];
            if (x[i] > t && x[i] < above) above = x[i];
        }
        const double s = cut_impurity(x, y, N, t);
        if (!(fabs(s - best) <= 1e-9) || t != below * 0.5 + above * 0.5 || s < exact - 1e-9) {
            printf("trial %d: cut %g at %g, best between bins %g, exact %g\n", trial, s, t, best, exact);
            ok = 0;
        }
    }
    CHECK(ok, "the histogram cut is the best between bins, midway between neighbours (40 problems)");
}

/* One outlier stretches the range so that every other value falls in the
 * first bin: the crowded bin sends the candidate to the exact search, which
 * finds the cut among the bulk. */
static void test_long_tail_is_searched_exactly(void)
{
    enum { N = 200 };
    double x[N];
    int32_t y[N];
    for (int i = 0; i < N; i++) {
        x[i] = i;
        y[i] = i >= 120;
    }
    x[N - 1] = 1e9;
    const double t = stump_threshold(x, y, N, 32);
    CHECK(t == 119.5, "the cut among the bulk, 119.5 (got %g)", t);
}

/* Subnormal values: the bin width B / range overflows to infinity, no bin
 * exists, and the exact search splits them. */
static void test_narrow_range_is_searched_exactly(void)
{
    enum { N = 64 };
    double x[N];
    int32_t y[N];
    for (int i = 0; i < N; i++) {
        x[i] = i < 32 ? 0.0 : 4.9406564584124654e-324 * (i - 31);
        y[i] = i >= 32;
    }
    const double t = stump_threshold(x, y, N, 256);
    int ok = t == t;
    for (int i = 0; i < N && ok; i++)
        ok = (x[i] <= t) == (y[i] == 0);
    CHECK(ok, "zero and the subnormals are split (threshold %g)", t);
}

/* Long-tailed features (scanned exactly, which sorts the node's rows) drawn
 * among features whose every value has its own bin: the histogram search sees
 * every cut of those, so a regression tree must reach the exact search's
 * training error -- which it did not while a sort left the node's response,
 * laid out by row position, stale for the histogram scans after it. */
static void test_mixed_exact_and_binned_candidates(void)
{
    enum { N = 240, P = 6 };
    double X[N * P], y[N];
    sporf_rng rng;
    sporf_rng_seed(&rng, 17, 0);
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < P; j++)
            X[i * P + j] = j < 4 ? (double)sporf_rng_below(&rng, 1000) / 1000.0 : (double)((i * (7 + 4 * j)) % N);
        if (i % 40 == 0)
            for (int j = 0; j < 4; j++) X[i * P + j] = 1e6; /* the tails */
        y[i] = (X[i * P + 4] > 100.0 ? 1.0 : 0.0) + (X[i * P + 5] > 60.0 ? 2.0 : 0.0) + (X[i * P] < 0.5 ? 0.3 : 0.0);
    }
    sporf_matrix m = rowmajor(X, N, P);
    double sse[2];
    for (int v = 0; v < 2; v++) {
        sporf_params p = stump_params(v == 0 ? 0 : 4096);
        p.criterion = SPORF_CRIT_SQUARED_ERROR;
        p.max_depth = 3;
        sporf_forest *f = NULL;
        sporf_error err;
        int rc = fit_values(&p, &m, y, NULL, NULL, NULL, NULL, NULL, &f, &err);
        CHECK(rc == SPORF_OK, "fit: %s", err.message);
        if (rc != SPORF_OK) return;
        double out[N];
        sporf_forest_predict_proba(f, &m, 1, out, NULL, NULL, &err);
        sse[v] = 0.0;
        for (int i = 0; i < N; i++) sse[v] += (out[i] - y[i]) * (out[i] - y[i]);
        sporf_forest_free(f);
    }
    CHECK(fabs(sse[0] - sse[1]) <= 1e-9 * (1.0 + sse[0]), "training SSE exact %.12g, histograms %.12g", sse[0], sse[1]);
}

/* max_bins = 1 still cuts (a node gets at least two bins). */
static void test_one_bin(void)
{
    enum { N = 100 };
    double x[N];
    int32_t y[N];
    for (int i = 0; i < N; i++) {
        x[i] = i;
        y[i] = i >= 50;
    }
    const double t = stump_threshold(x, y, N, 1);
    CHECK(t == 49.5, "two bins of 0..99 cut at 49.5 (got %g)", t);
}

static uint8_t *save(const sporf_forest *f, int64_t *len)
{
    sporf_error err;
    sporf_forest_save(f, NULL, 0, len, &err);
    uint8_t *buf = malloc((size_t)*len);
    sporf_forest_save(f, buf, *len, len, &err);
    return buf;
}

/* Fit `base` (task 0: classification on y, 1: regression on yr) with 1 and
 * with 2 threads, and `other` with 1: check the same bytes for any thread
 * count, another forest from `other`, and a training error (misclassified
 * share or MSE) below max_err. what names the case in the messages. */
static void check_forests(const sporf_matrix *m, const int32_t *y, const double *yr, int task,
                          const sporf_params *base, const sporf_params *other, const char *what, double max_err)
{
    const int64_t n = m->nrow;
    uint8_t *bytes[3];
    int64_t len[3];
    double fit_err = 0.0;
    for (int v = 0; v < 3; v++) {
        sporf_params p = v == 2 ? *other : *base;
        p.n_jobs = v == 1 ? 2 : 1;
        if (task == 1) p.criterion = SPORF_CRIT_SQUARED_ERROR;
        sporf_forest *f = NULL;
        sporf_error err;
        int rc = task == 0 ? fit_classes(&p, m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err)
                           : fit_values(&p, m, yr, NULL, NULL, NULL, NULL, NULL, &f, &err);
        CHECK(rc == SPORF_OK, "%s fit: %s", what, err.message);
        if (rc != SPORF_OK) {
            for (int u = 0; u < v; u++) free(bytes[u]);
            return;
        }
        bytes[v] = save(f, &len[v]);
        if (v == 0) {
            double *out = malloc((size_t)n * 2 * sizeof *out);
            sporf_forest_predict_proba(f, m, 1, out, NULL, NULL, &err);
            for (int64_t i = 0; i < n; i++)
                fit_err += task == 0 ? ((out[i * 2 + 1] > 0.5) != y[i]) : (out[i] - yr[i]) * (out[i] - yr[i]);
            free(out);
        }
        sporf_forest_free(f);
    }
    CHECK(len[0] == len[1] && memcmp(bytes[0], bytes[1], (size_t)len[0]) == 0,
          "%s, task %d: the same bytes for 1 and 2 threads", what, task);
    CHECK(len[0] != len[2] || memcmp(bytes[0], bytes[2], (size_t)len[0]) != 0,
          "%s, task %d: another forest than the other search", what, task);
    CHECK(fit_err / (double)n < max_err, "%s, task %d: training error %g", what, task, fit_err / (double)n);
    for (int v = 0; v < 3; v++) free(bytes[v]);
}

/* Sparse oblique forests, classification and regression, with histograms:
 * the same bytes for 1 and 2 threads, a useful fit, and a different forest
 * from the exact search (the histograms are in use). */
static void test_forests_deterministic_and_accurate(void)
{
    enum { N = 2000, P = 6 };
    double *X = malloc(N * P * sizeof *X), *yr = malloc(N * sizeof *yr);
    int32_t *y = malloc(N * sizeof *y);
    sporf_rng rng;
    sporf_rng_seed(&rng, 5, 0);
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < P; j++) X[i * P + j] = (double)sporf_rng_below(&rng, 1000000) / 1e6 - 0.5;
        yr[i] = X[i * P] + X[i * P + 1] + 0.1 * X[i * P + 2];
        y[i] = yr[i] > 0.0;
    }
    sporf_matrix m = rowmajor(X, N, P);
    sporf_params hist, exact;
    sporf_params_init(&hist);
    hist.n_estimators = 8;
    hist.random_state = 77;
    hist.max_bins = 64;
    exact = hist;
    exact.max_bins = 0;
    for (int task = 0; task < 2; task++)
        check_forests(&m, y, yr, task, &hist, &exact, "histograms", task == 0 ? 0.02 : 0.01);
    free(X);
    free(yr);
    free(y);
}

/* The random splitter (splitter "random"): a stump's cut on one feature is
 * a draw between the values' minimum and maximum, placed midway between the
 * real neighbours on either side, so it differs from seed to seed, lies
 * inside the range and is not the best cut; forests are the same for any
 * thread count, learn a smooth boundary, and refuse an unsupervised fit. */
static void test_random_splitter(void)
{
    enum { N = 400, SEEDS = 12 };
    double x[N];
    int32_t y[N];
    sporf_rng rng;
    sporf_rng_seed(&rng, 11, 0);
    for (int i = 0; i < N; i++) {
        x[i] = (double)sporf_rng_below(&rng, 1000000) / 1e6;
        y[i] = x[i] > 0.3;
    }
    double lo = x[0], hi = x[0];
    for (int i = 1; i < N; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    sporf_matrix m = rowmajor(x, N, 1);
    int distinct = 0, inside = 1, between = 1;
    double first = NAN;
    for (int seed = 0; seed < SEEDS; seed++) {
        sporf_params p = stump_params(0);
        p.splitter = SPORF_SPLITTER_RANDOM;
        p.random_state = 100 + seed;
        sporf_forest *f = NULL;
        sporf_error err;
        int rc = fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err);
        CHECK(rc == SPORF_OK, "random stump: %s", err.message);
        if (rc != SPORF_OK) return;
        const double t = f->trees[0].nodes[0].threshold;
        sporf_forest_free(f);
        inside &= t >= lo && t < hi;
        /* midway between the largest value <= t and the smallest above it */
        double a = -INFINITY, z = INFINITY;
        for (int i = 0; i < N; i++) {
            if (x[i] <= t) a = x[i] > a ? x[i] : a;
            else z = x[i] < z ? x[i] : z;
        }
        between &= t == sporf_cut_threshold(a, z);
        if (seed == 0) first = t;
        else distinct += t != first;
    }
    CHECK(inside, "random cuts lie inside the values' range");
    CHECK(between, "random cuts are placed midway between neighbouring values");
    CHECK(distinct >= SEEDS - 2, "random cuts differ across seeds (%d of %d differ)", distinct, SEEDS - 1);

    /* forests: thread-count invariant, another forest than the best-cut
     * search, and accurate on a smooth two-feature boundary */
    enum { NF = 1500, P = 4 };
    double *X = malloc(NF * P * sizeof *X), *yr = malloc(NF * sizeof *yr);
    int32_t *yc = malloc(NF * sizeof *yc);
    for (int i = 0; i < NF; i++) {
        for (int j = 0; j < P; j++) X[i * P + j] = (double)sporf_rng_below(&rng, 1000000) / 1e6 - 0.5;
        yr[i] = X[i * P] - X[i * P + 1];
        yc[i] = yr[i] > 0.0;
    }
    sporf_matrix mf = rowmajor(X, NF, P);
    sporf_params rnd, best;
    sporf_params_init(&rnd);
    rnd.n_estimators = 10;
    rnd.random_state = 5;
    rnd.splitter = SPORF_SPLITTER_RANDOM;
    best = rnd;
    best.splitter = SPORF_SPLITTER_BEST;
    for (int task = 0; task < 2; task++)
        check_forests(&mf, yc, yr, task, &rnd, &best, "random splitter", task == 0 ? 0.02 : 0.002);
    sporf_params p;
    sporf_params_init(&p);
    p.criterion = SPORF_CRIT_FASTBIC;
    p.splitter = SPORF_SPLITTER_RANDOM;
    sporf_forest *f = NULL;
    sporf_error err;
    CHECK(fit_no_response(&p, &mf, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG && !f &&
              strstr(err.message, "splitter") != NULL,
          "an unsupervised random-splitter fit is refused: %s", err.message);

    /* splitter "mixed": both kinds of trees, thread-count invariant, another
     * forest than either kind alone, accurate; even trees draw the
     * bootstrap's n rows, odd trees 0.8 n distinct rows */
    sporf_params mixed = rnd;
    mixed.splitter = SPORF_SPLITTER_MIXED;
    for (int task = 0; task < 2; task++) {
        check_forests(&mf, yc, yr, task, &mixed, &best, "mixed splitter", task == 0 ? 0.02 : 0.002);
        check_forests(&mf, yc, yr, task, &mixed, &rnd, "mixed splitter", task == 0 ? 0.02 : 0.002);
    }
    for (int64_t t = 0; t < 4; t++) {
        int64_t rows[NF], m = 0;
        int32_t counts[NF], most = 0, total = 0;
        CHECK(sporf_tree_draws(&mixed, NF, t, rows, counts, &m, &err) == SPORF_OK, "mixed draws: %s", err.message);
        for (int64_t k = 0; k < m; k++) {
            total += counts[k];
            if (counts[k] > most) most = counts[k];
        }
        CHECK(t % 2 == 0 ? total == NF && most > 1 : total == (int32_t)(0.8 * NF) && most == 1,
              "mixed tree %lld draws %d rows (most %d times)", (long long)t, (int)total, (int)most);
    }
    p.splitter = SPORF_SPLITTER_MIXED;
    CHECK(fit_no_response(&p, &mf, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG && !f &&
              strstr(err.message, "splitter") != NULL,
          "an unsupervised mixed fit is refused: %s", err.message);
    p.splitter = SPORF_SPLITTER_CHOSE_BOTH + 1;
    CHECK(sporf_params_check(&p, P, &err) == SPORF_E_ARG && strstr(err.message, "splitter") != NULL,
          "an unknown splitter code is refused: %s", err.message);

    /* splitter "auto": it chooses with the leaf size; with a size given it grows best cuts */
    sporf_params autop = rnd;
    autop.splitter = SPORF_SPLITTER_AUTO;
    autop.n_estimators = 16;
    autop.min_samples_leaf.form = SPORF_FORM_COUNT;
    autop.min_samples_leaf.value = 3.0;
    {
        int32_t kept = 0;
        sporf_params got;
        CHECK(fit_classes(&autop, &mf, yc, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_OK &&
                  sporf_forest_kind_choice(f, &kept, NULL, &err) == SPORF_OK && kept == -1 &&
                  sporf_forest_get_params(f, &got, &err) == SPORF_OK && got.splitter == SPORF_SPLITTER_BEST,
              "splitter auto with a leaf size given grows best cuts: %s", err.message);
        sporf_forest_free(f);
        f = NULL;
    }
    /* with "auto" leaves: the forest keeps all its trees or one kind's; the
     * trees of a kind kept are that kind's trees of the seed's forest, and
     * their draws follow them (the out-of-bag rows of a loaded forest) */
    autop.min_samples_leaf.form = SPORF_FORM_AUTO;
    autop.min_samples_leaf.value = 0.0;
    for (int task = 0; task < 2; task++) {
        sporf_params q = autop;
        if (task == 1) q.criterion = SPORF_CRIT_SQUARED_ERROR;
        int rc = task == 0 ? fit_classes(&q, &mf, yc, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err)
                           : fit_values(&q, &mf, yr, NULL, NULL, NULL, NULL, NULL, &f, &err);
        CHECK(rc == SPORF_OK, "auto fit: %s", err.message);
        if (rc != SPORF_OK)
            continue;
        sporf_params got;
        sporf_forest_info info;
        int32_t kept = -1;
        double scores[SPORF_KIND_CHOICES];
        sporf_forest_get_params(f, &got, &err);
        sporf_forest_get_info(f, &info, &err);
        sporf_forest_kind_choice(f, &kept, scores, &err);
        CHECK(kept >= 0 && kept < 3 && info.n_trees == (kept == 0 ? 16 : 8) && !isnan(scores[0]) &&
                  !isnan(scores[1]) && !isnan(scores[2]),
              "auto kept %d: %lld trees", (int)kept, (long long)info.n_trees);
        CHECK(kept == 0 || (scores[kept] < scores[0] && scores[kept] <= scores[3 - kept]),
              "auto keeps one kind only when it scores best (%g %g %g, kept %d)", scores[0], scores[1], scores[2],
              (int)kept);
        sporf_params grown = mixed; /* the 16 trees grown, of which the kept kind's are 8 */
        grown.n_estimators = autop.n_estimators;
        for (int64_t t = 0; kept > 0 && t < info.n_trees; t++) {
            int64_t a[NF], b[NF], ma = 0, mb = 0;
            sporf_tree_draws(&got, NF, t, a, NULL, &ma, &err);
            sporf_tree_draws(&grown, NF, 2 * t + (kept == 2), b, NULL, &mb, &err);
            CHECK(ma == mb && memcmp(a, b, (size_t)ma * sizeof *a) == 0, "kept tree %lld draws as its kind's",
                  (long long)t);
        }
        /* a warm start to 21 trees grown adds the kept kind's among trees 16..20 (3 best-cut, 2
         * random-cut), or 5 to a forest of both kinds; fewer than the 16 grown is negative */
        int64_t n_add = -9, n_grown = -9;
        CHECK(sporf_forest_trees_to_add(f, 0, 21, &n_add, &n_grown, &err) == SPORF_OK &&
                  n_add == (kept == 0 ? 5 : kept == 1 ? 3 : 2) && n_grown == (kept == 0 ? 16 : 14 + kept),
              "trees to add to a forest that kept %d: %lld (grown %lld)", (int)kept, (long long)n_add,
              (long long)n_grown);
        CHECK(sporf_forest_trees_to_add(f, 0, 10, &n_add, NULL, &err) == SPORF_OK && n_add < 0,
              "fewer trees than grown: %lld to add", (long long)n_add);
        CHECK(sporf_forest_trees_to_add(f, -1, 10, &n_add, NULL, &err) == SPORF_E_ARG &&
                  strstr(err.message, "tree_from") != NULL,
              "a negative first tree is refused: %s", err.message);
        sporf_forest_free(f);
        f = NULL;
    }
    free(X);
    free(yr);
    free(yc);
}

/* Grow one tree of `params` on Xc (n x p column-major; or its floats Xf when
 * not NULL) with a builder, with the node-ordered copy of X as the builder
 * chose (use_copy 1; *compacted says whether the tree used it), with the
 * rows' weights and responses in the copy too (use_copy 2, which the builder
 * chooses only on millions of rows) or with it switched off (0);
 * bootstrap-like weights (0, 1 or 2). */
static int grow_tree(const sporf_params *params, const double *Xc, const float *Xf, int64_t n, int64_t p,
                     const sporf_response *resp, int use_copy, int *compacted, sporf_tree *tree)
{
    sporf_builder b;
    sporf_error err;
    const sporf_columns X = {Xf ? NULL : Xc, Xf, n, p};
    sporf_fit_sizes sizes;
    sporf_fit_sizes_resolve(params, n, p, &sizes);
    if (sporf_builder_init(&b, params, &sizes, &X, resp, -1, &err) != SPORF_OK)
        return 0;
    if (!use_copy)
        b.rows.compact_min_rows = 0;
    b.rows.compact_responses = use_copy == 2 ? 1 : use_copy == 1 ? 0 : b.rows.compact_responses;
    sporf_rng rng;
    sporf_rng_seed(&rng, 11, 0);
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        b.rows.w[i] = (double)sporf_rng_below(&rng, 3);
        if (b.rows.w[i] > 0.0) b.rows.idx[m++] = (int32_t)i;
    }
    int rc = sporf_builder_grow(&b, m, &rng, NULL, tree, &err);
    *compacted = (b.rows.xnode != NULL || b.rows.xnode32 != NULL) && (use_copy != 2 || (b.rows.wnode && b.rows.ynode));
    sporf_builder_free(&b);
    return rc == SPORF_OK;
}

/* On many rows a node keeps its rows' values in node order and moves them at
 * each split (builder.c); the tree must be the one grown reading X through
 * the row ids: the same nodes, projections, thresholds and leaves. The same
 * values held as floats grow the same tree too. */
static void test_node_ordered_copy_grows_the_same_tree(void)
{
    const int64_t n = ((int64_t)1 << 18) + 1000, p = 6;
    double *Xc = malloc((size_t)(n * p) * sizeof *Xc), *yr = malloc((size_t)n * sizeof *yr);
    float *Xf = malloc((size_t)(n * p) * sizeof *Xf);
    int32_t *y = malloc((size_t)n * sizeof *y);
    sporf_rng rng;
    sporf_rng_seed(&rng, 9, 0);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < p; j++) {
            Xf[j * n + i] = (float)((double)sporf_rng_below(&rng, 1000000) / 1e6 - 0.5);
            Xc[j * n + i] = (double)Xf[j * n + i];
        }
        yr[i] = Xc[i] + Xc[n + i] * Xc[2 * n + i] + 0.3 * ((double)sporf_rng_below(&rng, 1000) / 1e3 - 0.5);
        y[i] = yr[i] > 0.0;
    }
    for (int task = 0; task < 2; task++) {
        sporf_params params;
        sporf_params_init(&params);
        params.max_depth = 14;
        /* the estimators' defaults: single features and guided projections
         * read the copy too */
        params.axis_features.form = SPORF_FORM_SQRT;
        params.guided_features = 8;
        params.max_bins = 256;
        if (task == 1) {
            params.criterion = SPORF_CRIT_SQUARED_ERROR;
            params.max_features.form = SPORF_FORM_ALL;
        }
        const sporf_response resp = {task == 0 ? SPORF_TASK_CLASSIFICATION : SPORF_TASK_REGRESSION,
                                     task == 0 ? y : NULL, task == 1 ? yr : NULL, task == 0 ? 2 : 1, 1, NULL, NULL,
                                     NULL, NULL, 0};
        sporf_tree with, without, floats, responses;
        int compacted = 0, ignored = 0, float_compacted = 0, responses_compacted = 0;
        int ok = grow_tree(&params, Xc, NULL, n, p, &resp, 1, &compacted, &with);
        ok = ok && grow_tree(&params, Xc, NULL, n, p, &resp, 2, &responses_compacted, &responses);
        ok = ok && grow_tree(&params, Xc, NULL, n, p, &resp, 0, &ignored, &without);
        ok = ok && grow_tree(&params, Xc, Xf, n, p, &resp, 1, &float_compacted, &floats);
        CHECK(ok, "task %d: the trees grow", task);
        if (!ok) continue;
        CHECK(compacted, "task %d: %lld x %lld rows use the node-ordered copy", task, (long long)n, (long long)p);
        const int same = with.n_nodes == without.n_nodes && with.n_leaves == without.n_leaves &&
                         with.n_proj == without.n_proj && with.n_nodes > 1000 &&
                         memcmp(with.nodes, without.nodes, (size_t)with.n_nodes * sizeof *with.nodes) == 0 &&
                         memcmp(with.proj_feature, without.proj_feature, (size_t)with.n_proj * sizeof(int32_t)) == 0 &&
                         memcmp(with.proj_weight, without.proj_weight, (size_t)with.n_proj * sizeof(double)) == 0 &&
                         memcmp(with.leaf_values, without.leaf_values,
                                (size_t)(with.n_leaves * resp.n_classes) * sizeof(double)) == 0;
        CHECK(same, "task %d: the same tree with and without the node-ordered copy (%d and %d nodes)", task,
              (int)with.n_nodes, (int)without.n_nodes);
        const int same_floats = float_compacted && floats.n_nodes == with.n_nodes && floats.n_proj == with.n_proj &&
                                memcmp(floats.nodes, with.nodes, (size_t)with.n_nodes * sizeof *with.nodes) == 0 &&
                                memcmp(floats.proj_weight, with.proj_weight, (size_t)with.n_proj * sizeof(double)) == 0 &&
                                memcmp(floats.leaf_values, with.leaf_values,
                                       (size_t)(with.n_leaves * resp.n_classes) * sizeof(double)) == 0;
        CHECK(same_floats, "task %d: the values as floats grow the same tree, through the node-ordered copy", task);
        const int same_responses =
            responses_compacted && responses.n_nodes == with.n_nodes && responses.n_proj == with.n_proj &&
            memcmp(responses.nodes, with.nodes, (size_t)with.n_nodes * sizeof *with.nodes) == 0 &&
            memcmp(responses.proj_weight, with.proj_weight, (size_t)with.n_proj * sizeof(double)) == 0 &&
            memcmp(responses.leaf_values, with.leaf_values, (size_t)(with.n_leaves * resp.n_classes) * sizeof(double)) == 0;
        CHECK(same_responses, "task %d: the weights and responses in the node-ordered copy grow the same tree", task);
        sporf_tree_release(&responses);
        sporf_tree_release(&with);
        sporf_tree_release(&without);
        sporf_tree_release(&floats);
    }
    free(Xf);
    free(Xc);
    free(yr);
    free(y);
}

int main(void)
{
    test_cut_is_best_between_bins();
    test_long_tail_is_searched_exactly();
    test_narrow_range_is_searched_exactly();
    test_one_bin();
    test_mixed_exact_and_binned_candidates();
    test_forests_deterministic_and_accurate();
    test_random_splitter();
    test_node_ordered_copy_grows_the_same_tree();
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail == 0 ? 0 : 1;
}
