/* C unit tests of the model layer through the API: determinism across
 * threads, the model format (round trips, corrupt and truncated files) and
 * bad input. */
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
    CHECK(fit_classes(&p, &m, y, 3, NULL, NULL, NULL, NULL, NULL, NULL, &f1, &err) == SPORF_OK, "fit 1 thread");
    p.n_jobs = 2;
    CHECK(fit_classes(&p, &m, y, 3, NULL, NULL, NULL, NULL, NULL, NULL, &f2, &err) == SPORF_OK, "fit 2 threads");
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
    int rc = fit_classes(&p, &m, y, 3, NULL, NULL, NULL, NULL, stop_now, &calls, &h, &err);
    CHECK(rc == SPORF_E_INTERRUPTED && h == NULL && calls >= 1, "cancel: rc %d after %d calls", rc, calls);

    /* OOB: every row's decision is a distribution, accuracy is sensible. */
    p.n_estimators = 40;
    double *oob = malloc(N * 3 * sizeof *oob);
    int64_t cnt[N];
    CHECK(fit_classes(&p, &m, y, 3, NULL, NULL, oob, cnt, NULL, NULL, &h, &err) == SPORF_OK, "fit with oob");
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
    CHECK(info.format_version == (info.n_outputs > 1 ? SPORF_MODEL_FORMAT_MULTI_OUTPUT : SPORF_MODEL_FORMAT_SINGLE_OUTPUT),
          "%s: format version %d", what, info.format_version);
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
    CHECK(fit_classes(&p, &m, y, 3, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_OK, "fit sparse");
    double per_node = check_format_round_trip("sparse, fully grown", f, &m, 3);
    CHECK(per_node < 14.0, "a fully grown sparse forest takes %.1f bytes per node (< 14)", per_node);
    sporf_forest_free(f);

    p.min_samples_leaf.value = 7; /* mixed leaves: stored as values */
    p.projection = SPORF_PROJ_GAUSSIAN; /* real weights */
    CHECK(fit_classes(&p, &m, y, 3, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_OK, "fit gaussian");
    check_format_round_trip("gaussian weights, mixed leaves", f, &m, 3);
    sporf_forest_free(f);

    sporf_params_init(&p);
    p.n_estimators = 3;
    p.random_state = 6;
    p.feature_combinations = 70.0; /* projections of more than 63 non-zeros: the length escape */
    p.max_features.form = SPORF_FORM_COUNT;
    p.max_features.value = 2;
    CHECK(fit_classes(&p, &mw, y, 3, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_OK,
          "fit long projections: %s", err.message);
    check_format_round_trip("long projections", f, &mw, 3);
    sporf_forest_free(f);

    sporf_params_init(&p);
    p.n_estimators = 5;
    p.random_state = 7;
    p.criterion = SPORF_CRIT_SQUARED_ERROR;
    CHECK(fit_values(&p, &m, yr, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_OK, "fit regression");
    check_format_round_trip("regression", f, &m, 1);
    sporf_forest_free(f);

    sporf_params_init(&p);
    p.n_estimators = 5;
    p.random_state = 8;
    p.honest_fraction = 0.5;
    p.honest_prior = SPORF_HONEST_IGNORE;
    CHECK(fit_classes(&p, &m, y, 3, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_OK, "fit honest");
    check_format_round_trip("honest, abstaining leaves", f, &m, 3);
    sporf_forest_free(f);

    sporf_params_init(&p);
    p.n_estimators = 5;
    p.random_state = 9;
    p.criterion = SPORF_CRIT_FASTBIC;
    p.min_samples_split.value = 20;
    CHECK(fit_no_response(&p, &m, NULL, NULL, NULL, &f, &err) == SPORF_OK, "fit unsupervised");
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
    CHECK(fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG &&
          strstr(err.message, "X contains infinity (row 1, column 0)"), "infinity refused: %s", err.message);
    X[2] = NAN; /* a missing value: learned, not refused */
    CHECK(fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_OK,
          "NaN accepted: %s", err.message);
    sporf_forest_free(f);
    f = NULL;
    X[2] = 3;
    int32_t bad_y[3] = {0, 2, 0};
    CHECK(fit_classes(&p, &m, bad_y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG,
          "class code out of range refused");
    p.feature_combinations = 0;
    CHECK(fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG &&
          strstr(err.message, "feature_combinations"), "feature_combinations <= 0 refused");
    sporf_params_init(&p);
    p.n_estimators = 0;
    CHECK(fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG &&
          strstr(err.message, "n_estimators"), "n_estimators < 1 refused");
    sporf_matrix empty = rowmajor(X, 0, 2);
    sporf_params_init(&p);
    CHECK(fit_classes(&p, &empty, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG,
          "zero rows refused");
    double sw[3] = {0, 0, 0};
    CHECK(fit_classes(&p, &m, y, 2, sw, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG,
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

int main(void)
{
    test_forest_determinism_and_format();
    test_model_format();
    test_bad_input();
    return check_summary();
}
