/* Allocation failure, everywhere: the core's malloc, calloc and realloc are
 * wrapped (linked with -Wl,--wrap=...) so that the k-th allocation of a call
 * fails, for every k until the call needs no more. Each call must then return
 * SPORF_E_NOMEM (never crash, never hand out a half-built forest) or succeed;
 * run under AddressSanitizer's leak checker or valgrind (make test-sanitize),
 * nothing may leak either. Covers fit (every task, 1 and 2 threads, OOB),
 * load, predict, apply, OOB regeneration, neighbours, merge and save. */
#include "sporf.h"
#include "fit_calls.h"
#include "test_data.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);

static long fail_at = -1; /* the allocation (0-based) that fails; -1: none */
static long count = 0;    /* allocations seen since arming */
static int armed = 0;

static int should_fail(void)
{
    if (!__atomic_load_n(&armed, __ATOMIC_SEQ_CST))
        return 0;
    return __atomic_fetch_add(&count, 1, __ATOMIC_SEQ_CST) == fail_at;
}

void *__wrap_malloc(size_t size) { return should_fail() ? NULL : __real_malloc(size); }
void *__wrap_calloc(size_t n, size_t size) { return should_fail() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t size) { return should_fail() ? NULL : __real_realloc(p, size); }

static void arm(long k)
{
    count = 0;
    fail_at = k;
    __atomic_store_n(&armed, 1, __ATOMIC_SEQ_CST);
}

static long disarm(void)
{
    __atomic_store_n(&armed, 0, __ATOMIC_SEQ_CST);
    return count;
}

static int n_pass = 0, n_fail = 0;
#define CHECK(cond, ...) do { \
    if (cond) n_pass++; \
    else { n_fail++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
} while (0)

enum { N = 80, P = 5, K = 3 };
static double X[N * P], yr[N];
static int32_t y[N];

typedef int (*call_fn)(void *ctx);

/* Run call with the k-th allocation failing, for k = 0, 1, ... until a run
 * makes fewer than k + 1 allocations (so none failed) and succeeds. */
static void every_failure(const char *what, call_fn call, void *ctx)
{
    int ok = 1;
    long k;
    for (k = 0; k < 100000; k++) {
        arm(k);
        int rc = call(ctx);
        long made = disarm();
        if (made <= k) { /* nothing failed this time: the call must have worked */
            if (rc != SPORF_OK) {
                printf("  %s: failed with rc %d without an allocation failure\n", what, rc);
                ok = 0;
            }
            break;
        }
        if (rc != SPORF_OK && rc != SPORF_E_NOMEM) {
            printf("  %s: allocation %ld failed, rc %d (wanted SPORF_E_NOMEM)\n", what, k, rc);
            ok = 0;
        }
    }
    CHECK(ok, "%s: every one of %ld allocation failures handled", what, k);
    if (getenv("SPORF_TEST_VERBOSE")) printf("  %s: %ld allocations\n", what, k);
}

typedef struct {
    sporf_params p;
    int task; /* 0 classification with OOB, 1 regression, 2 unsupervised, 3 two-output classification
                 with OOB, 4 two-output regression tuned by OOB, 5 survival with OOB and the leaf
                 size chosen out of bag */
    int floats; /* the fit reads X's values as floats (row-major: through a float copy) */
} fit_ctx;

static float Xf[N * P]; /* X's values as floats */

/* Two outputs per row: the classes and a shifted copy, the response and a scaled one. */
static int32_t y2[N * 2];
static double yr2[N * 2];
/* Survival: times and event flags. */
static double times[N];
static int32_t events[N];

static int do_fit(void *vctx)
{
    fit_ctx *c = vctx;
    sporf_matrix m = c->floats ? (sporf_matrix){NULL, N, P, P, 1, Xf} : (sporf_matrix){X, N, P, P, 1, NULL};
    sporf_forest *f = (sporf_forest *)&f;
    static double oob[N * K];
    static int64_t cnt[N];
    int rc;
    if (c->task == 0)
        rc = fit_classes(&c->p, &m, y, K, NULL, NULL, oob, cnt, NULL, NULL, &f, NULL);
    else if (c->task == 1)
        rc = fit_values(&c->p, &m, yr, NULL, NULL, NULL, NULL, NULL, &f, NULL);
    else if (c->task == 2)
        rc = fit_no_response(&c->p, &m, NULL, NULL, NULL, &f, NULL);
    else if (c->task == 3) {
        static double oob2[N * 2 * K];
        const int32_t classes[2] = {K, K};
        rc = fit_outputs(&c->p, &m, 2, y2, classes, NULL, NULL, oob2, cnt, NULL, NULL, &f, NULL);
    } else if (c->task == 5) {
        static double oob_risk[N];
        sporf_fit_data d;
        memset(&d, 0, sizeof d);
        d.response = SPORF_RESPONSE_SURVIVAL;
        d.values = times;
        d.events = events;
        rc = sporf_forest_fit(&c->p, &m, &d, oob_risk, cnt, NULL, NULL, &f, NULL);
    } else if (c->task == 6 || c->task == 7) {
        /* a fit on a "sample" of every row (the sample fits' path), with
         * every row's response: survival (6) or quantiles (7) */
        static int64_t rows[N];
        for (int64_t i = 0; i < N; i++) rows[i] = i;
        sporf_fit_data d;
        memset(&d, 0, sizeof d);
        d.response = c->task == 6 ? SPORF_RESPONSE_SURVIVAL : SPORF_RESPONSE_VALUES;
        d.values = d.all_values = c->task == 6 ? times : yr;
        d.events = d.all_events = c->task == 6 ? events : NULL;
        d.rows = rows;
        d.n_total = N;
        rc = sporf_forest_fit(&c->p, &m, &d, NULL, NULL, NULL, NULL, &f, NULL);
    } else {
        sporf_tune_result res;
        rc = tune_outputs(&c->p, SPORF_TUNE_DENSITY, &m, 2, NULL, NULL, yr2, NULL, &res, NULL, NULL,
                                         &f, NULL);
    }
    if (rc != SPORF_OK && f != NULL)
        return -100; /* a failed fit must not hand out a forest */
    sporf_forest_free(f);
    return rc;
}

typedef struct {
    const uint8_t *bytes;
    int64_t len;
    const sporf_forest *forest;
} model_ctx;

static int do_load(void *vctx)
{
    model_ctx *c = vctx;
    sporf_forest *f = (sporf_forest *)&f;
    int rc = sporf_forest_load(c->bytes, c->len, &f, NULL);
    if (rc != SPORF_OK && f != NULL)
        return -100;
    sporf_forest_free(f);
    return rc;
}

static int do_predict(void *vctx)
{
    model_ctx *c = vctx;
    sporf_matrix m = {X, N, P, P, 1, NULL};
    static double out[N * K];
    static int64_t leaves[N * 64];
    static int64_t idx[N * 3];
    static double sim[N * 3];
    int rc = sporf_forest_predict_proba(c->forest, &m, 2, out, NULL, NULL, NULL);
    if (rc == SPORF_OK) rc = sporf_forest_apply(c->forest, &m, 2, leaves, NULL, NULL, NULL);
    if (rc == SPORF_OK) rc = sporf_forest_oob_predict(c->forest, &m, 2, out, NULL, NULL);
    if (rc == SPORF_OK) rc = sporf_forest_neighbors(c->forest, &m, NULL, 3, 2, idx, sim, NULL, NULL, NULL);
    if (rc == SPORF_OK) {
        int64_t n = 0, nnz = 0;
        rc = sporf_forest_projection_importances(c->forest, &n, &nnz, NULL, NULL, NULL, NULL, NULL);
    }
    return rc;
}

static int do_quantiles(void *vctx)
{
    model_ctx *c = vctx;
    sporf_matrix m = {X, N, P, P, 1, NULL};
    static double out[N * 3];
    const double probs[3] = {0.9, 0.1, 0.5};
    int rc = sporf_forest_predict_quantiles(c->forest, &m, probs, 3, 2, out, NULL);
    if (rc == SPORF_OK) rc = sporf_forest_oob_quantiles(c->forest, &m, probs, 3, 2, out, NULL);
    /* calibrated intervals: out-of-bag and held-out scores, then intervals */
    static double scores[N];
    if (rc == SPORF_OK) rc = sporf_forest_oob_interval_scores(c->forest, &m, yr, 2, scores, NULL);
    if (rc == SPORF_OK) rc = sporf_forest_interval_scores(c->forest, &m, yr, 2, scores, NULL);
    if (rc == SPORF_OK) rc = sporf_forest_predict_interval(c->forest, &m, 0.8, scores, N, 2, out, NULL);
    return rc;
}

static int do_survival(void *vctx)
{
    model_ctx *c = vctx;
    const sporf_matrix m = {X, N, P, P, 1, NULL};
    static double out[N * 3], imp[P];
    const double at[3] = {0.5, 0.1, 2.0};
    int rc = sporf_forest_predict_survival(c->forest, &m, at, 3, SPORF_SURVIVAL_FUNCTION, 2, out, NULL);
    if (rc == SPORF_OK) rc = sporf_forest_oob_survival(c->forest, &m, at, 3, SPORF_RESTRICTED_MEAN, 2, out, NULL);
    if (rc == SPORF_OK) rc = sporf_forest_permutation_importance(c->forest, &m, events, times, 2, NULL, NULL, imp,
                                                                 NULL, NULL);
    static double sc[N], w[N], iv[N * 2];
    if (rc == SPORF_OK) rc = sporf_forest_oob_survival_interval_scores(c->forest, &m, times, events, 2, sc, w, NULL);
    if (rc == SPORF_OK) rc = sporf_forest_predict_survival_interval(c->forest, &m, 0.8, sc, w, N, 2, iv, NULL);
    double conc;
    if (rc == SPORF_OK) rc = sporf_concordance_index(times, events, yr, N, &conc, NULL);
    return rc;
}

static int do_merge(void *vctx)
{
    const sporf_forest *const *two = vctx;
    sporf_forest *m = (sporf_forest *)&m;
    int rc = sporf_forest_merge(two, 2, &m, NULL);
    if (rc != SPORF_OK && m != NULL)
        return -100;
    sporf_forest_free(m);
    return rc;
}

int main(void)
{
    test_data(X, y, yr, N, P, 99);
    for (int i = 0; i < N; i++) {
        y2[2 * i] = y[i];
        y2[2 * i + 1] = (y[i] + 1) % K;
        yr2[2 * i] = yr[i];
        yr2[2 * i + 1] = -3.0 * yr[i] + 1.0;
        times[i] = 0.5 + fabs(yr[i]) + 0.01 * i;
        events[i] = i % 4 != 0;
    }

    for (int i = 0; i < N * P; i++)
        Xf[i] = (float)X[i];
    fit_ctx fc;
    fc.floats = 0;
    sporf_params_init(&fc.p);
    fc.p.n_estimators = 3;
    fc.p.random_state = 5;
    fc.task = 0;
    every_failure("fit, 1 thread, OOB", do_fit, &fc);
    fc.p.n_jobs = 2;
    every_failure("fit, 2 threads, OOB", do_fit, &fc);
    fc.p.honest_fraction = 0.5;
    every_failure("honest fit", do_fit, &fc);
    fc.p.honest_fraction = 0.0;
    fc.p.projection = SPORF_PROJ_PATCH;
    fc.p.n_dims = 1;
    fc.p.data_dims[0] = P;
    fc.p.min_patch_dims[0] = 1;
    fc.p.max_patch_dims[0] = 3;
    fc.p.dim_contiguous[0] = 1;
    every_failure("patch fit", do_fit, &fc);
    sporf_params_init(&fc.p);
    fc.p.n_estimators = 3;
    fc.p.criterion = SPORF_CRIT_SQUARED_ERROR;
    fc.task = 1;
    every_failure("regression fit", do_fit, &fc);
    fc.p.quantiles = 1;
    every_failure("quantile regression fit", do_fit, &fc);
    fc.p.honest_fraction = 0.5;
    every_failure("honest quantile regression fit", do_fit, &fc);
    fc.floats = 1;
    every_failure("honest quantile regression fit on floats", do_fit, &fc);
    fc.floats = 0;
    fc.p.honest_fraction = 0.0;
    fc.p.quantiles = 0;
    fc.task = 4;
    fc.p.n_estimators = 4;
    every_failure("two-output regression, tuned", do_fit, &fc);
    fc.p.criterion = SPORF_CRIT_FASTBIC;
    fc.task = 2;
    every_failure("unsupervised fit", do_fit, &fc);
    fc.p.criterion = SPORF_CRIT_ISOLATION; /* oblique candidates scaled by their spread in the node */
    fc.p.bootstrap = 0;
    fc.p.max_samples = (sporf_amount){SPORF_FORM_COUNT, 40};
    every_failure("isolation fit", do_fit, &fc);
    fc.p.bootstrap = 1;
    fc.p.max_samples = (sporf_amount){SPORF_FORM_ALL, 0};
    sporf_params_init(&fc.p);
    fc.p.n_estimators = 3;
    fc.p.n_jobs = 2;
    fc.p.max_bins = 16;
    fc.task = 3;
    every_failure("two-output classification, OOB", do_fit, &fc);
    sporf_params_init(&fc.p);
    fc.p.n_estimators = 3;
    fc.p.n_jobs = 2;
    fc.p.criterion = SPORF_CRIT_LOGRANK;
    fc.p.min_samples_leaf = (sporf_amount){SPORF_FORM_AUTO, 0};
    fc.task = 5;
    every_failure("survival fit, OOB, leaf size chosen", do_fit, &fc);
    fc.p.min_samples_leaf = (sporf_amount){SPORF_FORM_COUNT, 3};
    fc.p.honest_fraction = 0.5;
    fc.p.honest_prior = SPORF_HONEST_IGNORE;
    fc.p.criterion = SPORF_CRIT_LOGRANKSCORE;
    fc.p.max_bins = 16;
    every_failure("honest survival fit, histograms", do_fit, &fc);
    sporf_params_init(&fc.p);
    fc.p.n_estimators = 3;
    fc.p.n_jobs = 2;
    fc.p.criterion = SPORF_CRIT_LOGRANK;
    fc.p.min_events_split = 4;
    fc.task = 6;
    every_failure("survival fit on a sample, every row's response", do_fit, &fc);
    fc.p.criterion = SPORF_CRIT_SQUARED_ERROR;
    fc.p.min_events_split = 0;
    fc.p.quantiles = 1;
    fc.task = 7;
    every_failure("quantile fit on a sample, every row's response", do_fit, &fc);

    /* A forest and its bytes, made without failures. */
    sporf_params p;
    sporf_params_init(&p);
    p.n_estimators = 4;
    p.random_state = 1;
    sporf_matrix m = {X, N, P, P, 1, NULL};
    sporf_forest *f = NULL, *shard = NULL;
    fit_classes(&p, &m, y, K, NULL, NULL, NULL, NULL, NULL, NULL, &f, NULL);
    p.first_tree = 4;
    fit_classes(&p, &m, y, K, NULL, NULL, NULL, NULL, NULL, NULL, &shard, NULL);
    int64_t len = 0;
    sporf_forest_save(f, NULL, 0, &len, NULL);
    uint8_t *bytes = malloc((size_t)len);
    sporf_forest_save(f, bytes, len, &len, NULL);
    model_ctx mc = {bytes, len, f};
    every_failure("load", do_load, &mc);
    every_failure("predict, apply, OOB, neighbours, projection importances", do_predict, &mc);
    const sporf_forest *two[2] = {f, shard};
    every_failure("merge", do_merge, (void *)two);
    free(bytes);
    sporf_forest_free(f);
    sporf_forest_free(shard);

    /* A two-output forest: its file (format 11) and its shards. */
    sporf_params_init(&p);
    p.n_estimators = 3;
    p.random_state = 3;
    const int32_t classes2[2] = {K, K};
    fit_outputs(&p, &m, 2, y2, classes2, NULL, NULL, NULL, NULL, NULL, NULL, &f, NULL);
    p.first_tree = 3;
    fit_outputs(&p, &m, 2, y2, classes2, NULL, NULL, NULL, NULL, NULL, NULL, &shard, NULL);
    sporf_forest_save(f, NULL, 0, &len, NULL);
    bytes = malloc((size_t)len);
    sporf_forest_save(f, bytes, len, &len, NULL);
    model_ctx oc = {bytes, len, f};
    every_failure("load a two-output forest", do_load, &oc);
    const sporf_forest *otwo[2] = {f, shard};
    every_failure("merge two-output forests", do_merge, (void *)otwo);
    free(bytes);
    sporf_forest_free(f);
    sporf_forest_free(shard);

    /* A quantile regression forest: its file, its quantiles and its shards. */
    sporf_params_init(&p);
    p.n_estimators = 3;
    p.random_state = 2;
    p.criterion = SPORF_CRIT_SQUARED_ERROR;
    p.quantiles = 1;
    fit_values(&p, &m, yr, NULL, NULL, NULL, NULL, NULL, &f, NULL);
    p.first_tree = 3;
    fit_values(&p, &m, yr, NULL, NULL, NULL, NULL, NULL, &shard, NULL);
    /* ... with a categorical feature's level names, which load and merge copy */
    int32_t counts[P] = {0};
    counts[0] = 3;
    static const char level_names[] = "low\0mid\0high";
    CHECK(sporf_forest_set_levels(f, counts, level_names, sizeof level_names, NULL) == SPORF_OK &&
              sporf_forest_set_levels(shard, counts, level_names, sizeof level_names, NULL) == SPORF_OK,
          "level names kept");
    sporf_forest_save(f, NULL, 0, &len, NULL);
    bytes = malloc((size_t)len);
    sporf_forest_save(f, bytes, len, &len, NULL);
    model_ctx qc = {bytes, len, f};
    every_failure("load a quantile forest", do_load, &qc);
    every_failure("quantiles, in and out of bag", do_quantiles, &qc);
    const sporf_forest *qtwo[2] = {f, shard};
    every_failure("merge quantile forests", do_merge, (void *)qtwo);
    free(bytes);
    sporf_forest_free(f);
    sporf_forest_free(shard);

    /* A survival forest: its file (format 13), its curves and its shards. */
    sporf_params_init(&p);
    p.n_estimators = 3;
    p.random_state = 4;
    p.criterion = SPORF_CRIT_LOGRANK;
    sporf_fit_data sd;
    memset(&sd, 0, sizeof sd);
    sd.response = SPORF_RESPONSE_SURVIVAL;
    sd.values = times;
    sd.events = events;
    sporf_forest_fit(&p, &m, &sd, NULL, NULL, NULL, NULL, &f, NULL);
    p.first_tree = 3;
    sporf_forest_fit(&p, &m, &sd, NULL, NULL, NULL, NULL, &shard, NULL);
    sporf_forest_save(f, NULL, 0, &len, NULL);
    bytes = malloc((size_t)len);
    sporf_forest_save(f, bytes, len, &len, NULL);
    model_ctx sc = {bytes, len, f};
    every_failure("load a survival forest", do_load, &sc);
    every_failure("survival curves, importance, concordance", do_survival, &sc);
    const sporf_forest *stwo[2] = {f, shard};
    every_failure("merge survival forests", do_merge, (void *)stwo);
    free(bytes);
    sporf_forest_free(f);
    sporf_forest_free(shard);

    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail == 0 ? 0 : 1;
}
