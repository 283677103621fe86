/* C tests of missing values (NaN in X): what the split search learns, where
 * splits send missing rows, and that every prediction path routes them the
 * same way. Run with `meson test` (prints "N passed, N failed"). */
#include "fit_calls.h"
#include "model/model.h"
#include "fit/criterion.h"
#include "predict/traverse.h"
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

static double unif(sporf_rng *r) { return (double)sporf_rng_below(r, 1000000) / 1e6; }

static const int32_t PROJECTIONS[3] = {SPORF_PROJ_AXIS, SPORF_PROJ_SPARSE, SPORF_PROJ_GAUSSIAN};
static const char *PROJ_NAME[3] = {"axis", "sparse", "gaussian"};

/* y is whether x0 is missing; x0 is otherwise noise, like x1..x3: only the
 * missingness itself can predict y, and every forest must learn it. */
static void test_missingness_is_learned(void)
{
    enum { N = 400, P = 4, M = 200 };
    double X[N * P], T[M * P], out[M * 2], reg[M];
    int32_t y[N];
    double yr[N];
    sporf_rng r;
    sporf_rng_seed(&r, 11, 0);
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < P; j++) X[i * P + j] = unif(&r);
        y[i] = sporf_rng_below(&r, 3) == 0;
        if (y[i]) X[i * P] = NAN;
        yr[i] = y[i] ? 5.0 : 0.0;
    }
    for (int i = 0; i < M * P; i++) T[i] = unif(&r);
    for (int i = 0; i < M; i += 2) T[i * P] = NAN;
    for (int k = 0; k < 3; k++) {
        sporf_params p;
        sporf_params_init(&p);
        p.n_estimators = 20;
        p.random_state = 3;
        p.projection = PROJECTIONS[k];
        sporf_matrix m = rowmajor(X, N, P), mt = rowmajor(T, M, P);
        sporf_forest *f = NULL;
        sporf_error err;
        if (fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            CHECK(0, "%s: fit: %s", PROJ_NAME[k], err.message);
            continue;
        }
        /* every row on its side, and on average close to certain (a noise
         * region holding only missing rows in training can still claim a few
         * trees' votes for a row with x0) */
        int ok = sporf_forest_predict_proba(f, &mt, 2, out, NULL, NULL, &err) == SPORF_OK;
        double miss = 0.0;
        for (int i = 0; ok && i < M; i++) {
            ok = (i % 2 == 0) ? out[i * 2 + 1] > 0.5 : out[i * 2 + 1] < 0.5;
            miss += fabs(out[i * 2 + 1] - (i % 2 == 0)) / M;
        }
        CHECK(ok && miss < 0.05, "%s classification: missing x0 predicts class 1, present x0 class 0 (mean error %g)",
              PROJ_NAME[k], miss);
        sporf_forest_free(f);

        p.criterion = SPORF_CRIT_SQUARED_ERROR;
        if (fit_values(&p, &m, yr, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            CHECK(0, "%s: fit regression: %s", PROJ_NAME[k], err.message);
            continue;
        }
        ok = sporf_forest_predict_proba(f, &mt, 1, reg, NULL, NULL, &err) == SPORF_OK;
        miss = 0.0;
        for (int i = 0; ok && i < M; i++) {
            ok = fabs(reg[i] - ((i % 2 == 0) ? 5.0 : 0.0)) < 2.5;
            miss += fabs(reg[i] - ((i % 2 == 0) ? 5.0 : 0.0)) / M;
        }
        CHECK(ok && miss < 0.25, "%s regression: missing x0 predicts 5, present x0 predicts 0 (mean error %g)",
              PROJ_NAME[k], miss);
        sporf_forest_free(f);
    }
}

/* Large values hidden (missing not at random): y = x0 > 0.5 and half of the
 * rows with y = 1 lose x0. A stump on x0 must send the missing rows with the
 * large values; mirrored (y = x0 < 0.5, small values hidden), to the left. */
static void test_missing_direction_is_learned(void)
{
    enum { N = 600 };
    for (int mirror = 0; mirror < 2; mirror++) {
        double X[N];
        int32_t y[N];
        sporf_rng r;
        sporf_rng_seed(&r, 5, (uint64_t)mirror);
        for (int i = 0; i < N; i++) {
            X[i] = unif(&r);
            y[i] = mirror ? X[i] < 0.5 : X[i] > 0.5;
            if (y[i] && sporf_rng_below(&r, 2)) X[i] = NAN;
        }
        sporf_params p;
        sporf_params_init(&p);
        p.n_estimators = 1;
        p.bootstrap = 0;
        p.max_depth = 1;
        p.projection = SPORF_PROJ_AXIS;
        sporf_matrix m = rowmajor(X, N, 1);
        sporf_forest *f = NULL;
        sporf_error err;
        if (fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            CHECK(0, "fit: %s", err.message);
            continue;
        }
        const sporf_node *root = &f->trees[0].nodes[0];
        const int want = mirror ? SPORF_MISSING_LEFT : SPORF_MISSING_RIGHT;
        CHECK(f->trees[0].n_nodes == 3 && fabs(root->threshold - 0.5) < 0.01 && root->missing == want,
              "mirror %d: the stump cuts at 0.5 (%g) and sends missing rows %s (got mode %d)", mirror, root->threshold,
              mirror ? "left" : "right", root->missing);
        /* and a missing row is predicted as the hidden class */
        double nan_row = NAN, proba[2];
        sporf_matrix one = rowmajor(&nan_row, 1, 1);
        CHECK(sporf_forest_predict_proba(f, &one, 1, proba, NULL, NULL, &err) == SPORF_OK && proba[1] == 1.0,
              "mirror %d: a missing x0 predicts class 1 (%g)", mirror, proba[1]);
        sporf_forest_free(f);
    }
}

/* Weighted gini of the partition: x <= t left; missing rows left, right, or
 * at fill (mode SPORF_MISSING_*); INFINITY if a side is empty. */
static double cut_impurity(const double *x, const int32_t *y, int n, double t, int mode, double fill)
{
    double L[2] = {0, 0}, R[2] = {0, 0};
    int nl = 0;
    for (int i = 0; i < n; i++) {
        const int left = !isnan(x[i]) ? x[i] <= t
                         : mode == SPORF_MISSING_IMPUTE ? fill <= t : mode == SPORF_MISSING_LEFT;
        if (left) { L[y[i]]++; nl++; } else R[y[i]]++;
    }
    if (nl == 0 || nl == n) return INFINITY;
    return nl * sporf_impurity(0, L, 2, nl) + (n - nl) * sporf_impurity(0, R, 2, n - nl);
}

/* The stump's cut is the best of every threshold (between values, or after
 * the last) with the missing rows on either side or at the feature's mean. */
static void test_scan_matches_brute_force(void)
{
    sporf_rng rng;
    sporf_rng_seed(&rng, 321, 0);
    int ok = 1, modes[3] = {0, 0, 0};
    for (int trial = 0; trial < 100; trial++) {
        enum { n = 40 };
        double x[n];
        int32_t y[n];
        const int miss_pct = (int)sporf_rng_below(&rng, 60);
        for (int i = 0; i < n; i++) {
            x[i] = (double)sporf_rng_below(&rng, 1000) / 10.0;
            y[i] = (x[i] + (double)sporf_rng_below(&rng, 400) / 10.0) > 60 ? 1 : 0;
            if ((int)sporf_rng_below(&rng, 100) < miss_pct) x[i] = NAN;
        }
        double fill = 0.0, best = INFINITY;
        int present = 0;
        for (int i = 0; i < n; i++)
            if (!isnan(x[i])) {
                fill += x[i];
                present++;
            }
        fill = present ? fill / present : 0.0;
        for (int a = 0; a < n; a++)
            for (int mode = 0; mode < 3; mode++)
                if (!isnan(x[a])) {
                    double s = cut_impurity(x, y, n, x[a], mode, fill);
                    if (s < best) best = s;
                    s = cut_impurity(x, y, n, fill, mode, fill); /* the imputed value's own cut */
                    if (s < best) best = s;
                }
        sporf_params p;
        sporf_params_init(&p);
        p.n_estimators = 1;
        p.bootstrap = 0;
        p.max_depth = 1;
        p.projection = SPORF_PROJ_AXIS;
        sporf_matrix m = rowmajor(x, n, 1);
        sporf_forest *f = NULL;
        sporf_error err;
        if (fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            ok = 0;
            printf("trial %d: %s\n", trial, err.message);
            break;
        }
        if (isfinite(best)) {
            const sporf_node *root = &f->trees[0].nodes[0];
            const double got = f->trees[0].n_nodes == 3
                                   ? cut_impurity(x, y, n, root->threshold, root->missing, f->impute ? f->impute[0] : 0.0)
                                   : INFINITY;
            modes[root->missing]++;
            if (fabs(got - best) > 1e-9) {
                printf("trial %d (%d%% missing): best %g, tree's cut %g\n", trial, miss_pct, best, got);
                ok = 0;
            }
        }
        sporf_forest_free(f);
    }
    CHECK(ok, "the split search finds the brute-force optimum over thresholds and missing sides on 100 problems");
    /* on one feature, imputing is a side (that of the mean): never better */
    CHECK(modes[0] > 0 && modes[1] > 0, "both sides win somewhere (right %d, left %d)", modes[0], modes[1]);
}

/* Gini of the partition of rows by projected value v (v <= t left; NaN:
 * left, right, or by vi, the imputed projection). */
static double proj_impurity(const double *v, const double *vi, const int32_t *y, int n, double t, int mode)
{
    double L[2] = {0, 0}, R[2] = {0, 0};
    int nl = 0;
    for (int i = 0; i < n; i++) {
        const int left = !isnan(v[i]) ? v[i] <= t
                         : mode == SPORF_MISSING_IMPUTE ? vi[i] <= t : mode == SPORF_MISSING_LEFT;
        if (left) { L[y[i]]++; nl++; } else R[y[i]]++;
    }
    if (nl == 0 || nl == n) return INFINITY;
    return nl * sporf_impurity(0, L, 2, nl) + (n - nl) * sporf_impurity(0, R, 2, n - nl);
}

/* Two features, one candidate per node (Forest-RC with two features): the
 * stump's cut is the best over thresholds with the missing rows on either
 * side or projected with the missing feature at its mean -- and with values
 * missing at random the imputed projection wins, as it keeps what the other
 * feature says. */
static void test_imputed_projection_matches_brute_force(void)
{
    sporf_rng rng;
    sporf_rng_seed(&rng, 99, 0);
    int ok = 1, imputed = 0;
    enum { n = 60, TRIALS = 60 };
    for (int trial = 0; trial < TRIALS; trial++) {
        double X[2 * n], v[n], vi[n];
        int32_t y[n];
        for (int i = 0; i < n; i++) {
            X[2 * i] = unif(&rng);
            X[2 * i + 1] = unif(&rng);
            y[i] = X[2 * i] + X[2 * i + 1] + 0.2 * unif(&rng) > 1.1;
            for (int j = 0; j < 2; j++)
                if (sporf_rng_below(&rng, 10) < 3) X[2 * i + j] = NAN;
        }
        sporf_params p;
        sporf_params_init(&p);
        p.n_estimators = 1;
        p.bootstrap = 0;
        p.max_depth = 1;
        p.projection = SPORF_PROJ_FRC;
        p.feature_combinations = 2.0;
        p.max_features.form = SPORF_FORM_COUNT;
        p.max_features.value = 1;
        p.axis_features.form = SPORF_FORM_COUNT;
        p.axis_features.value = 0;
        p.guided_features = 0;
        sporf_matrix m = rowmajor(X, n, 2);
        sporf_forest *f = NULL;
        sporf_error err;
        if (fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            printf("trial %d: %s\n", trial, err.message);
            ok = 0;
            break;
        }
        const sporf_tree *t = &f->trees[0];
        if (t->n_nodes != 3) {
            sporf_forest_free(f);
            continue;
        }
        const sporf_node *root = &t->nodes[0];
        for (int i = 0; i < n; i++) {
            v[i] = sporf_node_project(t, root, X + 2 * i, 1);
            vi[i] = sporf_node_project_imputed(t, root, f->impute, X + 2 * i, 1);
        }
        double best = INFINITY;
        for (int a = 0; a < n; a++)
            for (int mode = 0; mode < 3; mode++) {
                if (!isnan(v[a])) {
                    const double s = proj_impurity(v, vi, y, n, v[a], mode);
                    if (s < best) best = s;
                }
                const double s = proj_impurity(v, vi, y, n, vi[a], mode);
                if (s < best) best = s;
            }
        const double got = proj_impurity(v, vi, y, n, root->threshold, root->missing);
        if (fabs(got - best) > 1e-9) {
            printf("trial %d: best %g, tree's cut %g (mode %d)\n", trial, best, got, root->missing);
            ok = 0;
        }
        imputed += root->missing == SPORF_MISSING_IMPUTE;
        sporf_forest_free(f);
    }
    CHECK(ok, "a two-feature split finds the brute-force optimum over thresholds and the three missing options");
    CHECK(imputed >= TRIALS / 4, "with values missing at random the imputed projection wins often (%d of %d)",
          imputed, TRIALS);
}

/* Count the training rows reaching each node of tree t (weights 1). */
static void count_rows(const sporf_tree *t, const double *X, int n, int p, int *count)
{
    memset(count, 0, (size_t)t->n_nodes * sizeof *count);
    for (int i = 0; i < n; i++) {
        int32_t k = 0;
        count[0]++;
        while (t->nodes[k].left >= 0) {
            const sporf_node *nd = &t->nodes[k];
            double s = 0.0;
            for (int32_t q = 0; q < nd->proj_len; q++)
                s += t->proj_weight[nd->proj_start + q] * X[i * p + t->proj_feature[nd->proj_start + q]];
            k = s <= nd->threshold ? nd->left : nd->right;
            count[k]++;
        }
    }
}

/* A split that saw no missing value sends missing ones to the child that
 * held more training weight (left on a tie). */
static void test_unseen_missing_goes_to_heavier_child(void)
{
    enum { N = 300, P = 5 };
    double X[N * P];
    int32_t y[N];
    sporf_rng r;
    sporf_rng_seed(&r, 9, 0);
    for (int i = 0; i < N; i++) {
        double s = 0.0;
        for (int j = 0; j < P; j++) {
            X[i * P + j] = unif(&r);
            s += X[i * P + j];
        }
        y[i] = s + 0.3 * unif(&r) > 2.6;
    }
    sporf_params p;
    sporf_params_init(&p);
    p.n_estimators = 3;
    p.bootstrap = 0;
    sporf_matrix m = rowmajor(X, N, P);
    sporf_forest *f = NULL;
    sporf_error err;
    if (fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
        CHECK(0, "fit: %s", err.message);
        return;
    }
    int ok = 1, splits = 0, left = 0;
    for (int t = 0; t < 3; t++) {
        const sporf_tree *tr = &f->trees[t];
        int *count = malloc((size_t)tr->n_nodes * sizeof *count);
        count_rows(tr, X, N, P, count);
        for (int32_t k = 0; k < tr->n_nodes; k++) {
            const sporf_node *nd = &tr->nodes[k];
            if (nd->left < 0) continue;
            splits++;
            left += nd->missing == SPORF_MISSING_LEFT;
            ok &= nd->missing == (count[nd->left] >= count[nd->right] ? SPORF_MISSING_LEFT : SPORF_MISSING_RIGHT);
        }
        free(count);
    }
    CHECK(ok && left > 0 && left < splits, "each of %d splits sends missing rows to its heavier child (%d left)",
          splits, left);
    sporf_forest_free(f);
}

/* A forest fitted on data with missing values, and rows with and without
 * them: every prediction path -- batches large and small, one and two
 * threads, row- and column-major, apply -- agrees with the stored walk. */
static void test_every_path_routes_missing_rows_alike(void)
{
    enum { N = 500, P = 6, M = 3000 };
    double *X = malloc(sizeof(double) * N * P), *T = malloc(sizeof(double) * M * P);
    double *Tc = malloc(sizeof(double) * M * P);
    double *out = malloc(sizeof(double) * M * 3), *out2 = malloc(sizeof(double) * M * 3);
    int32_t y[N];
    sporf_rng r;
    sporf_rng_seed(&r, 17, 0);
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < P; j++) X[i * P + j] = sporf_rng_below(&r, 5) == 0 ? NAN : unif(&r);
        const double a = isnan(X[i * P]) ? 0.7 : X[i * P], b = isnan(X[i * P + 1]) ? 0.2 : X[i * P + 1];
        y[i] = (a + b > 0.8) + (a - b > 0.3);
    }
    for (int i = 0; i < M * P; i++) T[i] = sporf_rng_below(&r, 4) == 0 ? NAN : unif(&r);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < P; j++) Tc[(int64_t)j * M + i] = T[(int64_t)i * P + j];
    for (int k = 0; k < 3; k++) {
        sporf_params p;
        sporf_params_init(&p);
        p.n_estimators = 12;
        p.random_state = 4;
        p.projection = PROJECTIONS[k];
        sporf_matrix m = rowmajor(X, N, P), mt = rowmajor(T, M, P), mc = {Tc, M, P, 1, M, NULL};
        sporf_forest *f = NULL;
        sporf_error err;
        if (fit_classes(&p, &m, y, 3, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            CHECK(0, "%s: fit: %s", PROJ_NAME[k], err.message);
            continue;
        }
        /* reference: each row's stored leaves, averaged in tree order */
        int ok = 1;
        double *ref = calloc((size_t)M * 3, sizeof *ref);
        for (int i = 0; i < M; i++)
            for (int64_t t = 0; t < f->n_trees; t++) {
                const sporf_tree *tr = &f->trees[t];
                const double *lv = tr->leaf_values + (int64_t)tr->nodes[sporf_tree_find_stored_leaf(tr, f->impute, T + i * P, 1)].right * 3;
                for (int c = 0; c < 3; c++) ref[i * 3 + c] += lv[c];
            }
        const double inv = 1.0 / (double)f->n_trees; /* predict.c's scaling */
        for (int i = 0; i < M * 3; i++) ref[i] *= inv;
        for (int jobs = 1; jobs <= 2; jobs++) {
            ok &= sporf_forest_predict_proba(f, &mt, jobs, out, NULL, NULL, &err) == SPORF_OK;
            ok &= memcmp(out, ref, sizeof(double) * M * 3) == 0;
            ok &= sporf_forest_predict_proba(f, &mc, jobs, out2, NULL, NULL, &err) == SPORF_OK;
            ok &= memcmp(out2, ref, sizeof(double) * M * 3) == 0;
        }
        CHECK(ok, "%s: batch predictions (row- and column-major, 1-2 threads) equal the stored walk's", PROJ_NAME[k]);
        ok = 1;
        for (int i = 0; i < 40 && ok; i++) {
            sporf_matrix one = rowmajor(T + i * P, 1, P);
            ok = sporf_forest_predict_proba(f, &one, 1, out2, NULL, NULL, &err) == SPORF_OK &&
                 memcmp(out2, ref + i * 3, sizeof(double) * 3) == 0;
        }
        CHECK(ok, "%s: one-row predictions equal the batch's", PROJ_NAME[k]);
        int64_t *leaves = malloc(sizeof(int64_t) * M * 12);
        ok = sporf_forest_apply(f, &mt, 2, leaves, NULL, NULL, &err) == SPORF_OK;
        for (int i = 0; ok && i < M; i++)
            for (int t = 0; ok && t < 12; t++)
                ok = leaves[i * 12 + t] == sporf_tree_find_stored_leaf(&f->trees[t], f->impute, T + i * P, 1);
        CHECK(ok, "%s: apply gives the stored walk's leaves", PROJ_NAME[k]);
        free(leaves);
        free(ref);

        /* the format keeps the directions: a loaded copy predicts the same */
        int64_t size = 0;
        sporf_forest_save(f, NULL, 0, &size, &err);
        uint8_t *buf = malloc((size_t)size);
        sporf_forest *g = NULL;
        ok = sporf_forest_save(f, buf, size, &size, &err) == SPORF_OK &&
             sporf_forest_load(buf, size, &g, &err) == SPORF_OK &&
             sporf_forest_predict_proba(g, &mt, 2, out2, NULL, NULL, &err) == SPORF_OK &&
             memcmp(out2, out, sizeof(double) * M * 3) == 0;
        CHECK(ok, "%s: a loaded copy predicts rows with missing values exactly: %s", PROJ_NAME[k], err.message);
        sporf_forest_free(g);
        free(buf);
        sporf_forest_free(f);
    }
    free(X); free(T); free(Tc); free(out); free(out2);
}

/* Fits with missing values are deterministic and independent of the thread
 * count; honest trees route their estimation rows the fit's way; URerF
 * learns on them. */
static void test_fits_with_missing_values(void)
{
    enum { N = 400, P = 5 };
    double X[N * P], yr[N];
    int32_t y[N];
    sporf_rng r;
    sporf_rng_seed(&r, 23, 0);
    for (int i = 0; i < N; i++) {
        const int cluster = i % 2;
        for (int j = 0; j < P; j++) X[i * P + j] = 4.0 * cluster + unif(&r);
        y[i] = cluster;
        yr[i] = sporf_rng_below(&r, 4) == 0 ? 10.0 : 0.0;
        if (yr[i] > 0.0) X[i * P + 2] = NAN;
        if (sporf_rng_below(&r, 10) == 0) X[i * P + sporf_rng_below(&r, P)] = NAN;
    }
    sporf_matrix m = rowmajor(X, N, P);
    sporf_error err;
    uint8_t *bytes[2] = {NULL, NULL};
    int64_t sizes[2] = {0, 0};
    for (int jobs = 1; jobs <= 2; jobs++) {
        sporf_params p;
        sporf_params_init(&p);
        p.n_estimators = 8;
        p.random_state = 6;
        p.n_jobs = jobs;
        sporf_forest *f = NULL;
        if (fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            CHECK(0, "fit: %s", err.message);
            return;
        }
        sporf_forest_save(f, NULL, 0, &sizes[jobs - 1], &err);
        bytes[jobs - 1] = malloc((size_t)sizes[jobs - 1]);
        sporf_forest_save(f, bytes[jobs - 1], sizes[jobs - 1], &sizes[jobs - 1], &err);
        sporf_forest_free(f);
    }
    CHECK(sizes[0] == sizes[1] && memcmp(bytes[0], bytes[1], (size_t)sizes[0]) == 0,
          "a fit with missing values gives the same model bytes on 1 and 2 threads");
    free(bytes[0]);
    free(bytes[1]);

    /* honest regression: y = 10 exactly where x2 is missing */
    sporf_params p;
    sporf_params_init(&p);
    p.n_estimators = 20;
    p.random_state = 2;
    p.criterion = SPORF_CRIT_SQUARED_ERROR;
    p.honest_fraction = 0.5;
    sporf_forest *f = NULL;
    double row[P] = {0.5, 0.5, NAN, 0.5, 0.5}, pred = 0.0;
    sporf_matrix one = rowmajor(row, 1, P);
    CHECK(fit_values(&p, &m, yr, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_OK &&
              sporf_forest_predict_proba(f, &one, 1, &pred, NULL, NULL, &err) == SPORF_OK && pred > 8.0,
          "honest regression learns y = 10 where x2 is missing (%g): %s", pred, err.message);
    sporf_forest_free(f);

    /* URerF with Fast-BIC and two-means: the two clusters stay apart */
    for (int crit = 0; crit < 2; crit++) {
        sporf_params_init(&p);
        p.n_estimators = 20;
        p.random_state = 1;
        p.criterion = crit ? SPORF_CRIT_TWOMEANS : SPORF_CRIT_FASTBIC;
        p.min_samples_split.value = 20;
        if (fit_no_response(&p, &m, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            CHECK(0, "unsupervised fit: %s", err.message);
            continue;
        }
        int64_t idx[N * 5];
        double sim[N * 5];
        int same = 0;
        if (sporf_forest_neighbors(f, &m, NULL, 5, 2, idx, sim, NULL, NULL, &err) == SPORF_OK)
            for (int i = 0; i < N * 5; i++) same += y[idx[i]] == y[i / 5];
        CHECK(same >= (int)(0.98 * N * 5), "%s with missing values: %d of %d nearest neighbours share the cluster",
              crit ? "two-means" : "Fast-BIC", same, N * 5);
        sporf_forest_free(f);
    }
}

int main(void)
{
    test_missingness_is_learned();
    test_missing_direction_is_learned();
    test_scan_matches_brute_force();
    test_imputed_projection_matches_brute_force();
    test_unseen_missing_goes_to_heavier_child();
    test_every_path_routes_missing_rows_alike();
    test_fits_with_missing_values();
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
