/* C tests of sharded fits through the public API only: shards of every
 * forest kind merge into the single fit's exact bytes, merging refuses
 * incompatible forests with a message, and the regenerated out-of-bag
 * predictions equal the fit's own. Run with `meson test`. */
#include "sporf.h"
#include "fit_calls.h"
#include "test_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_pass = 0, n_fail = 0;
#define CHECK(cond, ...) do { \
    if (cond) n_pass++; \
    else { n_fail++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
} while (0)

enum { N = 240, P = 6, K = 3 };
static double X[N * P];
static int32_t y[N];
static double yr[N];


enum { KIND_CLASS, KIND_REGRESSION, KIND_PATCH, KIND_UNSUPERVISED, KIND_HONEST };

static sporf_params kind_params(int kind)
{
    sporf_params p;
    sporf_params_init(&p);
    p.random_state = 77;
    p.max_depth = 6;
    if (kind == KIND_REGRESSION) p.criterion = SPORF_CRIT_SQUARED_ERROR;
    if (kind == KIND_UNSUPERVISED) p.criterion = SPORF_CRIT_FASTBIC;
    if (kind == KIND_HONEST) { p.honest_fraction = 0.5; p.honest_prior = SPORF_HONEST_IGNORE; }
    if (kind == KIND_PATCH) {
        p.projection = SPORF_PROJ_PATCH;
        p.n_dims = 2;
        p.data_dims[0] = 2; p.data_dims[1] = 3;
        p.min_patch_dims[0] = 1; p.min_patch_dims[1] = 1;
        p.max_patch_dims[0] = 2; p.max_patch_dims[1] = 2;
        p.dim_contiguous[0] = p.dim_contiguous[1] = 1;
    }
    return p;
}

static sporf_forest *fit(int kind, sporf_params p, int64_t first, int64_t count)
{
    sporf_matrix m = {X, N, P, P, 1, NULL};
    sporf_error err;
    sporf_forest *f = NULL;
    p.first_tree = first;
    p.n_estimators = count;
    int rc;
    if (kind == KIND_REGRESSION)
        rc = fit_values(&p, &m, yr, NULL, NULL, NULL, NULL, NULL, &f, &err);
    else if (kind == KIND_UNSUPERVISED)
        rc = fit_no_response(&p, &m, NULL, NULL, NULL, &f, &err);
    else
        rc = fit_classes(&p, &m, y, K, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err);
    CHECK(rc == SPORF_OK, "fit kind %d trees %lld+%lld: %s", kind, (long long)first, (long long)count, err.message);
    return f;
}

static uint8_t *save(const sporf_forest *f, int64_t *len)
{
    sporf_forest_save(f, NULL, 0, len, NULL);
    uint8_t *buf = malloc((size_t)*len);
    sporf_forest_save(f, buf, *len, len, NULL);
    return buf;
}

static int same_bytes(const sporf_forest *a, const sporf_forest *b)
{
    int64_t la, lb;
    uint8_t *ba = save(a, &la), *bb = save(b, &lb);
    int same = la == lb && memcmp(ba, bb, (size_t)la) == 0;
    free(ba);
    free(bb);
    return same;
}

static void test_shards_merge_to_the_single_fit(void)
{
    for (int kind = KIND_CLASS; kind <= KIND_HONEST; kind++) {
        sporf_params p = kind_params(kind);
        sporf_forest *whole = fit(kind, p, 0, 10);
        /* Out of order and uneven: trees 7-9, 0-2, 3-6. */
        sporf_forest *shards[3] = {fit(kind, p, 7, 3), fit(kind, p, 0, 3), fit(kind, p, 3, 4)};
        sporf_forest *merged = NULL;
        sporf_error err;
        int rc = sporf_forest_merge((const sporf_forest *const *)shards, 3, &merged, &err);
        CHECK(rc == SPORF_OK && merged, "merge kind %d: %s", kind, err.message);
        if (merged && whole)
            CHECK(same_bytes(merged, whole), "kind %d: merged shards are the single fit, byte for byte", kind);
        /* A merged part (trees 3-9) merges again with the rest. */
        const sporf_forest *tail[2] = {shards[2], shards[0]};
        sporf_forest *t39 = NULL, *again = NULL;
        CHECK(sporf_forest_merge(tail, 2, &t39, &err) == SPORF_OK, "merge 3-9: %s", err.message);
        const sporf_forest *two[2] = {t39, shards[1]};
        CHECK(sporf_forest_merge(two, 2, &again, &err) == SPORF_OK, "merge 0-2 + 3-9: %s", err.message);
        if (again && whole)
            CHECK(same_bytes(again, whole), "kind %d: merging in two steps gives the same forest", kind);
        sporf_forest_free(t39);
        sporf_forest_free(again);
        sporf_forest_free(merged);
        sporf_forest_free(whole);
        for (int i = 0; i < 3; i++) sporf_forest_free(shards[i]);
    }
}

/* Each tree grown from a gathered sample of just the rows it draws
 * (sporf_tree_draws, sporf_forest_fit_sample), the trees merged: the single
 * fit's forest, byte for byte -- with missing values (the means of all rows
 * given) and sample weights, for every kind. */
static void test_trees_from_samples_are_the_single_fit(void)
{
    static double Xm[N * P], w[N], impute[P], xs[N * P], ws[N], ys_r[N];
    static int32_t ys[N];
    static int64_t rows[N];
    static int32_t counts[N];
    memcpy(Xm, X, sizeof Xm);
    for (int i = 0; i < N; i += 7) Xm[i * P + (i % P)] = NAN;
    for (int i = 0; i < N; i++) w[i] = 0.5 + (i % 4);
    for (int j = 0; j < P; j++) { /* the fit's means: present values, in row order */
        double sum = 0.0;
        int64_t m = 0;
        for (int i = 0; i < N; i++)
            if (!isnan(Xm[i * P + j])) { sum += Xm[i * P + j]; m++; }
        impute[j] = sum / (double)m;
    }
    for (int kind = KIND_CLASS; kind <= KIND_HONEST; kind++) {
        sporf_params p = kind_params(kind);
        p.max_samples.form = SPORF_FORM_FRACTION;
        p.max_samples.value = 0.4;
        p.n_estimators = 6;
        const int unsupervised = kind == KIND_UNSUPERVISED, regression = kind == KIND_REGRESSION;
        sporf_matrix m = {Xm, N, P, P, 1, NULL};
        sporf_error err;
        sporf_forest *whole = NULL, *trees[6] = {NULL};
        int rc = regression ? fit_values(&p, &m, yr, w, NULL, NULL, NULL, NULL, &whole, &err)
                 : unsupervised ? fit_no_response(&p, &m, w, NULL, NULL, &whole, &err)
                 : fit_classes(&p, &m, y, K, w, NULL, NULL, NULL, NULL, NULL, &whole, &err);
        CHECK(rc == SPORF_OK, "kind %d: the whole fit: %s", kind, err.message);
        for (int t = 0; t < 6; t++) {
            sporf_params pt = p;
            pt.first_tree = t;
            pt.n_estimators = 1;
            int64_t n_rows = 0;
            int64_t room = 0;
            CHECK(sporf_tree_draws(&pt, N, 0, NULL, NULL, &room, &err) == SPORF_OK && room == (int64_t)(0.4 * N),
                  "the room for a tree's draws: %lld", (long long)room);
            CHECK(sporf_tree_draws(&pt, N, 0, rows, counts, &n_rows, &err) == SPORF_OK && n_rows <= room,
                  "draws: %s", err.message);
            for (int64_t r = 0; r < n_rows; r++) { /* gather the drawn rows */
                memcpy(xs + r * P, Xm + rows[r] * P, P * sizeof *xs);
                ws[r] = w[rows[r]];
                ys[r] = y[rows[r]];
                ys_r[r] = yr[rows[r]];
            }
            const sporf_matrix ms = {xs, n_rows, P, P, 1, NULL};
            rc = fit_from_rows(&pt, &ms, rows, N, unsupervised || regression ? NULL : ys, K,
                                         regression ? ys_r : NULL, ws, NULL, impute, NULL, NULL, &trees[t], &err);
            CHECK(rc == SPORF_OK, "kind %d tree %d from its %lld rows: %s", kind, t, (long long)n_rows, err.message);
        }
        sporf_forest *merged = NULL;
        if (whole && sporf_forest_merge((const sporf_forest *const *)trees, 6, &merged, &err) == SPORF_OK)
            CHECK(same_bytes(merged, whole), "kind %d: trees grown from their samples are the single fit", kind);
        else
            CHECK(0, "kind %d: merge: %s", kind, err.message);
        /* a sample without one of the rows a tree draws is refused, naming it */
        sporf_params p0 = p;
        p0.n_estimators = 1;
        int64_t n_rows = 0;
        sporf_tree_draws(&p0, N, 0, rows, NULL, &n_rows, &err);
        for (int64_t r = 1; r < n_rows; r++) memcpy(xs + (r - 1) * P, Xm + rows[r] * P, P * sizeof *xs);
        const sporf_matrix short_m = {xs, n_rows - 1, P, P, 1, NULL};
        sporf_forest *bad = NULL;
        rc = fit_from_rows(&p0, &short_m, rows + 1, N, NULL, K, regression ? ys_r : NULL, NULL, NULL, impute,
                                     NULL, NULL, &bad, &err);
        if (!regression && !unsupervised)
            rc = fit_from_rows(&p0, &short_m, rows + 1, N, ys, K, NULL, NULL, NULL, impute, NULL, NULL, &bad,
                                         &err);
        CHECK(rc == SPORF_E_ARG && bad == NULL && strstr(err.message, "does not hold"),
              "kind %d: a missing drawn row is refused: %s", kind, err.message);
        sporf_forest_free(merged);
        sporf_forest_free(whole);
        for (int t = 0; t < 6; t++) sporf_forest_free(trees[t]);
    }
}

static int refused(const sporf_forest *a, const sporf_forest *b, const char *needle)
{
    const sporf_forest *two[2] = {a, b};
    sporf_forest *m = (sporf_forest *)&m; /* must come back NULL */
    sporf_error err;
    int rc = sporf_forest_merge(two, 2, &m, &err);
    int ok = rc == SPORF_E_ARG && m == NULL && strstr(err.message, needle) != NULL;
    if (!ok)
        printf("  merge gave rc %d, message \"%s\" (wanted \"%s\")\n", rc, err.message, needle);
    return ok;
}

static void test_merge_refuses_incompatible_forests(void)
{
    sporf_params p = kind_params(KIND_CLASS);
    sporf_forest *a = fit(KIND_CLASS, p, 0, 3);
    sporf_forest *overlap = fit(KIND_CLASS, p, 2, 3);
    sporf_forest *gap = fit(KIND_CLASS, p, 4, 3);
    CHECK(refused(a, overlap, "both hold trees 2-2"), "overlapping ranges are refused");
    CHECK(refused(a, a, "both hold trees 0-2"), "a forest merged with itself is refused");
    CHECK(refused(a, gap, "no forest holds trees 3-3"), "a gap between ranges is refused");

    sporf_params q = p;
    q.random_state = 78;
    sporf_forest *seed = fit(KIND_CLASS, q, 3, 3);
    CHECK(refused(a, seed, "random_state"), "another seed is refused");
    q = p;
    q.max_depth = 5;
    sporf_forest *depth = fit(KIND_CLASS, q, 3, 3);
    CHECK(refused(a, depth, "max_depth"), "another max_depth is refused");
    sporf_forest *reg = fit(KIND_REGRESSION, kind_params(KIND_REGRESSION), 3, 3);
    CHECK(refused(a, reg, "different kinds"), "a regression forest is refused");

    /* Other classes (labels), other features. */
    sporf_forest *labels = fit(KIND_CLASS, p, 3, 3);
    const char blob[] = "a\0b\0c";
    sporf_forest_set_strings(labels, SPORF_STR_CLASSES, 0, blob, sizeof blob, 3, NULL);
    CHECK(refused(a, labels, "different classes"), "other class labels are refused");
    sporf_matrix m = {X, N, P - 1, P, 1, NULL};
    sporf_forest *narrow = NULL;
    p.first_tree = 3;
    p.n_estimators = 3;
    fit_classes(&p, &m, y, K, NULL, NULL, NULL, NULL, NULL, NULL, &narrow, NULL);
    CHECK(narrow && refused(a, narrow, "features"), "another feature count is refused");

    sporf_forest *out = NULL;
    CHECK(sporf_forest_merge(NULL, 0, &out, NULL) == SPORF_E_ARG && !out, "no forests is refused");
    const sporf_forest *with_null[2] = {a, NULL};
    CHECK(sporf_forest_merge(with_null, 2, &out, NULL) == SPORF_E_ARG && !out, "a NULL forest is refused");

    sporf_params bad;
    sporf_params_init(&bad);
    bad.first_tree = -1;
    CHECK(sporf_params_check(&bad, P, NULL) == SPORF_E_ARG, "negative first_tree is refused");

    sporf_forest *all[] = {a, overlap, gap, seed, depth, reg, labels, narrow};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) sporf_forest_free(all[i]);
}

static void test_oob_regenerated(void)
{
    sporf_params p = kind_params(KIND_CLASS);
    p.n_estimators = 15;
    p.max_samples.form = SPORF_FORM_FRACTION;
    p.max_samples.value = 0.7;
    sporf_matrix m = {X, N, P, P, 1, NULL};
    static double want[N * K], got[N * K], got_merged[N * K];
    static int64_t want_c[N], got_c[N], got_mc[N];
    sporf_forest *f = NULL;
    sporf_error err;
    CHECK(fit_classes(&p, &m, y, K, NULL, NULL, want, want_c, NULL, NULL, &f, &err) == SPORF_OK, "fit");
    CHECK(sporf_forest_oob_predict(f, &m, 2, got, got_c, &err) == SPORF_OK, "oob_predict: %s", err.message);
    CHECK(memcmp(want, got, sizeof want) == 0 && memcmp(want_c, got_c, sizeof want_c) == 0,
          "regenerated OOB equals the fit's, bit for bit");
    /* by partitions of the rows (uneven), each knowing where its rows start */
    static double part[N * K];
    static int64_t part_c[N];
    const int64_t cuts[4] = {0, 37, 200, N};
    int parts_ok = 1;
    for (int k = 0; k < 3; k++) {
        const sporf_matrix mk = {X + cuts[k] * P, cuts[k + 1] - cuts[k], P, P, 1, NULL};
        parts_ok &= sporf_forest_oob_predict_rows(f, &mk, cuts[k], N, 1, part + cuts[k] * K, part_c + cuts[k],
                                                  &err) == SPORF_OK;
    }
    CHECK(parts_ok && memcmp(want, part, sizeof want) == 0 && memcmp(want_c, part_c, sizeof want_c) == 0,
          "OOB by partitions equals the fit's: %s", err.message);
    const sporf_matrix past = {X, 10, P, P, 1, NULL};
    CHECK(sporf_forest_oob_predict_rows(f, &past, N - 5, N, 1, part, part_c, &err) == SPORF_E_ARG,
          "rows past the training rows are refused");

    sporf_forest *s1 = fit(KIND_CLASS, p, 0, 6), *s2 = fit(KIND_CLASS, p, 6, 9), *merged = NULL;
    const sporf_forest *two[2] = {s1, s2};
    sporf_forest_merge(two, 2, &merged, NULL);
    CHECK(merged && sporf_forest_oob_predict(merged, &m, 1, got_merged, got_mc, &err) == SPORF_OK,
          "oob_predict on merged shards");
    CHECK(memcmp(want, got_merged, sizeof want) == 0 && memcmp(want_c, got_mc, sizeof want_c) == 0,
          "merged shards' OOB equals the single fit's");

    /* Regression: OOB means. */
    sporf_params r = kind_params(KIND_REGRESSION);
    r.n_estimators = 8;
    sporf_forest *fr = NULL;
    static double wr[N], gr[N];
    CHECK(fit_values(&r, &m, yr, NULL, wr, want_c, NULL, NULL, &fr, &err) == SPORF_OK, "fit reg");
    CHECK(sporf_forest_oob_predict(fr, &m, 1, gr, NULL, &err) == SPORF_OK && memcmp(wr, gr, sizeof wr) == 0,
          "regression OOB regenerated bit for bit");

    /* Refusals: fewer rows than each tree drew, no bootstrap, unsupervised, wrong width. */
    sporf_params drawn = kind_params(KIND_CLASS);
    drawn.max_samples.form = SPORF_FORM_COUNT;
    drawn.max_samples.value = 200;
    sporf_forest *f200 = fit(KIND_CLASS, drawn, 0, 2);
    sporf_matrix few = {X, 100, P, P, 1, NULL};
    CHECK(sporf_forest_oob_predict(f200, &few, 1, got, got_c, &err) == SPORF_E_ARG && strstr(err.message, "training"),
          "fewer rows than drawn is refused: %s", err.message);
    sporf_matrix narrow = {X, N, P - 1, P, 1, NULL};
    CHECK(sporf_forest_oob_predict(f, &narrow, 1, got, got_c, &err) == SPORF_E_ARG, "wrong width is refused");
    sporf_params nb = kind_params(KIND_CLASS);
    nb.bootstrap = 0;
    sporf_forest *fnb = fit(KIND_CLASS, nb, 0, 2);
    CHECK(sporf_forest_oob_predict(fnb, &m, 1, got, got_c, &err) == SPORF_E_ARG && strstr(err.message, "bootstrap"),
          "no bootstrap is refused");
    sporf_forest *fu = fit(KIND_UNSUPERVISED, kind_params(KIND_UNSUPERVISED), 0, 2);
    CHECK(sporf_forest_oob_predict(fu, &m, 1, got, got_c, &err) == SPORF_E_ARG, "unsupervised is refused");

    sporf_forest *all[] = {f, s1, s2, merged, fr, fnb, fu, f200};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) sporf_forest_free(all[i]);
}

/* A tree of a quantile or survival forest grown from its sample with every
 * row's response (sporf_fit_data.all_*): the leaves rank their rows among
 * every row's responses and a survival tree's node risks count every row's
 * event times, so the merged trees are the single fit byte for byte, with
 * missing values and weights; the out-of-bag interval scores by partitions
 * are the single fit's; a sample fit without every row's response, or with
 * a row that disagrees with it, is refused. */
static void test_quantile_and_survival_trees_from_samples(void)
{
    static double Xm[N * P], w[N], impute[P], xs[N * P], ws[N], ts[N], times[N], want[N], got[N];
    static int32_t ev[N], es[N];
    static int64_t rows[N];
    memcpy(Xm, X, sizeof Xm);
    for (int i = 0; i < N; i += 9) Xm[i * P + (i % P)] = NAN;
    for (int j = 0; j < P; j++) {
        double sum = 0.0;
        int64_t m = 0;
        for (int i = 0; i < N; i++)
            if (!isnan(Xm[i * P + j])) { sum += Xm[i * P + j]; m++; }
        impute[j] = sum / (double)m;
    }
    for (int i = 0; i < N; i++) {
        w[i] = 0.5 + (i % 3);
        times[i] = floor(10.0 * exp(0.5 * yr[i])) / 10.0 + 0.1; /* ties, as real times have */
        ev[i] = (i % 5) != 0;
    }
    for (int survival = 0; survival <= 1; survival++) {
        sporf_params p;
        sporf_params_init(&p);
        p.random_state = 91;
        p.n_estimators = 5;
        p.max_samples.form = SPORF_FORM_FRACTION;
        p.max_samples.value = 0.5;
        p.min_samples_leaf.form = SPORF_FORM_COUNT;
        p.min_samples_leaf.value = 3;
        p.criterion = survival ? SPORF_CRIT_LOGRANK : SPORF_CRIT_SQUARED_ERROR;
        p.quantiles = !survival;
        if (survival) p.min_events_split = 6;
        const double *resp = survival ? times : yr;
        const sporf_matrix m = {Xm, N, P, P, 1, NULL};
        sporf_fit_data d = {survival ? SPORF_RESPONSE_SURVIVAL : SPORF_RESPONSE_VALUES, 1, NULL, NULL, resp, w,
                            NULL, NULL, 0, NULL, survival ? ev : NULL, NULL, NULL, NULL};
        sporf_error err;
        sporf_forest *whole = NULL, *trees[5] = {NULL};
        CHECK(sporf_forest_fit(&p, &m, &d, NULL, NULL, NULL, NULL, &whole, &err) == SPORF_OK, "whole fit: %s",
              err.message);
        int64_t n_rows = 0;
        for (int t = 0; t < 5; t++) {
            sporf_params pt = p;
            pt.first_tree = t;
            pt.n_estimators = 1;
            sporf_tree_draws(&pt, N, 0, rows, NULL, &n_rows, &err);
            for (int64_t r = 0; r < n_rows; r++) {
                memcpy(xs + r * P, Xm + rows[r] * P, P * sizeof *xs);
                ws[r] = w[rows[r]];
                ts[r] = resp[rows[r]];
                es[r] = ev[rows[r]];
            }
            const sporf_matrix ms = {xs, n_rows, P, P, 1, NULL};
            sporf_fit_data ds = {d.response, 1, NULL, NULL, ts, ws, NULL, rows, N, impute, survival ? es : NULL,
                                 resp, survival ? ev : NULL, w};
            CHECK(sporf_forest_fit(&pt, &ms, &ds, NULL, NULL, NULL, NULL, &trees[t], &err) == SPORF_OK,
                  "survival %d tree %d from its sample: %s", survival, t, err.message);
        }
        sporf_forest *merged = NULL;
        if (whole && sporf_forest_merge((const sporf_forest *const *)trees, 5, &merged, &err) == SPORF_OK)
            CHECK(same_bytes(merged, whole), "survival %d: trees grown from their samples are the single fit",
                  survival);
        else
            CHECK(0, "survival %d: merge: %s", survival, err.message);

        if (!survival && whole) { /* the out-of-bag interval scores, by partitions */
            CHECK(sporf_forest_oob_interval_scores(whole, &m, yr, 1, want, &err) == SPORF_OK, "scores: %s",
                  err.message);
            const int64_t cuts[4] = {0, 61, 62, N};
            int ok = 1;
            for (int k = 0; k < 3; k++) {
                const sporf_matrix mk = {Xm + cuts[k] * P, cuts[k + 1] - cuts[k], P, P, 1, NULL};
                ok &= sporf_forest_oob_interval_scores_rows(whole, &mk, cuts[k], yr + cuts[k], 1, got + cuts[k],
                                                            &err) == SPORF_OK;
            }
            CHECK(ok && memcmp(want, got, sizeof want) == 0, "interval scores by partitions: %s", err.message);
            const sporf_matrix past = {Xm, 10, P, P, 1, NULL};
            CHECK(sporf_forest_oob_interval_scores_rows(whole, &past, N - 5, yr, 1, got, &err) == SPORF_E_ARG,
                  "interval scores past the training rows are refused");
        }

        /* refusals, on the last tree's sample */
        sporf_params pt = p;
        pt.first_tree = 4;
        pt.n_estimators = 1;
        const sporf_matrix ms = {xs, n_rows, P, P, 1, NULL};
        sporf_forest *bad = NULL;
        sporf_fit_data none = {d.response, 1, NULL, NULL, ts, ws, NULL, rows, N, impute, survival ? es : NULL,
                               NULL, NULL, NULL};
        CHECK(sporf_forest_fit(&pt, &ms, &none, NULL, NULL, NULL, NULL, &bad, &err) == SPORF_E_ARG && !bad &&
                  strstr(err.message, survival ? "every row's times" : "all_values"),
              "survival %d: a sample fit without every row's response is refused: %s", survival, err.message);
        sporf_fit_data no_w = {d.response, 1, NULL, NULL, ts, ws, NULL, rows, N, impute, survival ? es : NULL,
                               resp, survival ? ev : NULL, NULL};
        CHECK(sporf_forest_fit(&pt, &ms, &no_w, NULL, NULL, NULL, NULL, &bad, &err) == SPORF_E_ARG && !bad &&
                  strstr(err.message, "all_sample_weight"),
              "survival %d: weights without every row's are refused: %s", survival, err.message);
        ts[3] += 1.0;
        sporf_fit_data differs = {d.response, 1, NULL, NULL, ts, ws, NULL, rows, N, impute, survival ? es : NULL,
                                  resp, survival ? ev : NULL, w};
        CHECK(sporf_forest_fit(&pt, &ms, &differs, NULL, NULL, NULL, NULL, &bad, &err) == SPORF_E_ARG && !bad &&
                  strstr(err.message, "X's row 3"),
              "survival %d: a row whose response differs from every row's is refused: %s", survival, err.message);
        ts[3] -= 1.0;
        sporf_forest_free(merged);
        sporf_forest_free(whole);
        for (int t = 0; t < 5; t++) sporf_forest_free(trees[t]);
    }
    /* every row's response is for quantile and survival forests, and for sample fits */
    sporf_params c = kind_params(KIND_CLASS);
    c.n_estimators = 1;
    const sporf_matrix m = {X, N, P, P, 1, NULL};
    int32_t k = K;
    sporf_fit_data d = {SPORF_RESPONSE_CLASSES, 1, y, &k, NULL, NULL, NULL, NULL, 0, NULL, NULL, yr, NULL, NULL};
    sporf_forest *bad = NULL;
    sporf_error err;
    CHECK(sporf_forest_fit(&c, &m, &d, NULL, NULL, NULL, NULL, &bad, &err) == SPORF_E_ARG && !bad &&
              strstr(err.message, "a fit on a sample"),
          "every row's response without a sample is refused: %s", err.message);
    static int64_t all_rows[N];
    for (int i = 0; i < N; i++) all_rows[i] = i;
    d.rows = all_rows;
    d.n_total = N;
    CHECK(sporf_forest_fit(&c, &m, &d, NULL, NULL, NULL, NULL, &bad, &err) == SPORF_E_ARG && !bad &&
              strstr(err.message, "quantile and survival"),
          "every row's response for a classifier is refused: %s", err.message);
}

/* A forest of kind (classification or regression) whose leaf size is
 * "auto", grown as a shard that leaves the choice to the merge. */
static sporf_forest *fit_shard(int kind, sporf_params p, int64_t first, int64_t count)
{
    sporf_matrix m = {X, N, P, P, 1, NULL};
    sporf_error err;
    sporf_forest *f = NULL;
    const int32_t classes = K;
    p.first_tree = first;
    p.n_estimators = count;
    sporf_fit_data d;
    memset(&d, 0, sizeof d);
    d.response = kind == KIND_REGRESSION ? SPORF_RESPONSE_VALUES : SPORF_RESPONSE_CLASSES;
    d.n_outputs = 1;
    d.codes = kind == KIND_REGRESSION ? NULL : y;
    d.n_classes = kind == KIND_REGRESSION ? NULL : &classes;
    d.values = kind == KIND_REGRESSION ? yr : NULL;
    d.shard = 1;
    const int rc = sporf_forest_fit(&p, &m, &d, NULL, NULL, NULL, NULL, &f, &err);
    CHECK(rc == SPORF_OK, "shard kind %d trees %lld+%lld: %s", kind, (long long)first, (long long)count, err.message);
    return f;
}

/* min_samples_leaf "auto" from anywhere: shards keep their rows' sums and
 * the merge chooses; a forest that has not chosen is chosen from its rows'
 * sums computed partition by partition -- the single fit's bytes both ways. */
static void test_auto_leaf_size_from_anywhere(void)
{
    for (int kind = KIND_CLASS; kind <= KIND_REGRESSION; kind++) {
        sporf_params p = kind_params(kind);
        p.max_depth = 0;
        p.min_samples_leaf.form = SPORF_FORM_AUTO;
        p.min_samples_leaf.value = 0.0;
        sporf_forest *whole = fit(kind, p, 0, 10);
        sporf_forest *shards[3] = {fit_shard(kind, p, 7, 3), fit_shard(kind, p, 0, 3), fit_shard(kind, p, 3, 4)};
        sporf_forest *merged = NULL;
        sporf_error err;
        int32_t state = -1;
        int64_t words = 0;
        CHECK(sporf_forest_leaf_state(shards[0], &state, &words, &err) == SPORF_OK &&
                  state == SPORF_LEAF_PENDING_SUMS && words > 0, "kind %d: a shard keeps its sums", kind);
        CHECK(sporf_forest_merge((const sporf_forest *const *)shards, 3, &merged, &err) == SPORF_OK,
              "merge: %s", err.message);
        CHECK(merged && whole && same_bytes(merged, whole), "kind %d: the merge chose as the single fit", kind);
        CHECK(merged && sporf_forest_leaf_state(merged, &state, NULL, &err) == SPORF_OK && state == SPORF_LEAF_CHOSEN,
              "kind %d: the merged forest has chosen", kind);
        /* one shard of every tree, chosen from two partitions' sums */
        sporf_forest *all = fit_shard(kind, p, 0, 10);
        int64_t *sums = malloc((size_t)(N * words) * sizeof *sums), count[N];
        const sporf_matrix top = {X, 100, P, P, 1, NULL}, rest = {X + 100 * P, N - 100, P, P, 1, NULL};
        double ymax = 0.0;
        for (int i = 0; i < N; i++) ymax = fabs(yr[i]) > ymax ? fabs(yr[i]) : ymax;
        const double rmax = kind == KIND_REGRESSION ? ymax : 0.0;
        CHECK(sporf_forest_leaf_sums_rows(all, &rest, 100, N, rmax, 2, sums + 100 * words, count + 100, &err) ==
                  SPORF_OK && sporf_forest_leaf_sums_rows(all, &top, 0, N, rmax, 1, sums, count, &err) == SPORF_OK,
              "partition sums: %s", err.message);
        const int32_t classes = K;
        sporf_fit_data d;
        memset(&d, 0, sizeof d);
        d.codes = kind == KIND_REGRESSION ? NULL : y;
        d.n_classes = kind == KIND_REGRESSION ? NULL : &classes;
        d.values = kind == KIND_REGRESSION ? yr : NULL;
        count[0] = 11;
        CHECK(sporf_forest_choose_leaf_size(all, &d, N, sums, count, 1, &err) != SPORF_OK &&
                  strstr(err.message, "count[0]"), "a count beyond the trees is refused: %s", err.message);
        CHECK(sporf_forest_leaf_sums_rows(all, &top, 0, N, rmax, 1, sums, count, &err) == SPORF_OK, "%s",
              err.message);
        CHECK(sporf_forest_choose_leaf_size(all, &d, N, sums, count, 2, &err) == SPORF_OK, "choose: %s", err.message);
        CHECK(whole && same_bytes(all, whole), "kind %d: chosen from the partitions' sums as the single fit", kind);
        CHECK(sporf_forest_choose_leaf_size(all, &d, N, sums, count, 1, &err) != SPORF_OK &&
                  strstr(err.message, "no leaf size left"), "a forest that chose is refused: %s", err.message);
        CHECK(sporf_forest_leaf_sums_rows(whole, &top, 0, N, 0.0, 1, sums, count, &err) != SPORF_OK,
              "sums of a forest that chose are refused");
        /* a forest that chose does not join a shard */
        const sporf_forest *mixed[2] = {whole, shards[0]};
        sporf_forest *no = NULL;
        CHECK(sporf_forest_merge(mixed, 2, &no, &err) != SPORF_OK && !no &&
                  strstr(err.message, "one forest chose its leaf size"), "mixed: %s", err.message);
        free(sums);
        sporf_forest_free(all);
        sporf_forest_free(merged);
        sporf_forest_free(whole);
        for (int i = 0; i < 3; i++) sporf_forest_free(shards[i]);
    }
}

int main(void)
{
    test_data(X, y, yr, N, P, 12345);
    test_shards_merge_to_the_single_fit();
    test_merge_refuses_incompatible_forests();
    test_oob_regenerated();
    test_trees_from_samples_are_the_single_fit();
    test_quantile_and_survival_trees_from_samples();
    test_auto_leaf_size_from_anywhere();
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail == 0 ? 0 : 1;
}
