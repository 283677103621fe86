/* test_multioutput.c -- multi-output y (sporf_forest_fit_multi): one output
 * is the single-output fit to the byte; a duplicated output grows the same
 * trees with the leaf values repeated; two different outputs are both
 * learned; the model format, merging, tuning and the refusals. */
#include "fit_calls.h"
#include "check.h"

#include <string.h>

enum { N = 400, P = 6 };

static double X[N * P];
static int32_t y1[N], y2[N], ydup[N * 2], yboth[N * 2];
static double r1[N], rdup[N * 2], rboth[N * 2];

static void make_data(void)
{
    sporf_rng rng;
    sporf_rng_seed(&rng, 11, 0);
    for (int i = 0; i < N * P; i++) X[i] = normal(&rng);
    for (int i = 0; i < N; i++) {
        const double *x = X + i * P;
        y1[i] = x[0] + x[1] > 0.0;
        y2[i] = x[2] > 0.5 ? 2 : x[2] > -0.5 ? 1 : 0; /* three classes */
        r1[i] = 2.0 * x[0] - x[3] + 0.1 * normal(&rng);
        ydup[2 * i] = ydup[2 * i + 1] = y1[i];
        yboth[2 * i] = y1[i];
        yboth[2 * i + 1] = y2[i];
        rdup[2 * i] = rdup[2 * i + 1] = r1[i];
        rboth[2 * i] = r1[i];
        rboth[2 * i + 1] = x[4] * x[4];
    }
}

static sporf_params params(int regression)
{
    sporf_params p;
    sporf_params_init(&p);
    p.n_estimators = 12;
    p.random_state = 5;
    p.n_jobs = 2;
    p.guided_features = 0; /* guided slopes scale with the number of outputs */
    if (regression) p.criterion = SPORF_CRIT_SQUARED_ERROR;
    return p;
}

static int same_bytes(const sporf_forest *a, const sporf_forest *b)
{
    int64_t la, lb;
    uint8_t *ba = save(a, &la), *bb = save(b, &lb);
    const int same = la == lb && memcmp(ba, bb, (size_t)la) == 0;
    free(ba);
    free(bb);
    return same;
}

static void test_one_output_is_the_single_fit(void)
{
    const sporf_matrix m = rowmajor(X, N, P);
    sporf_error err;
    for (int regression = 0; regression < 2; regression++) {
        const sporf_params p = params(regression);
        sporf_forest *a = NULL, *b = NULL;
        const int32_t k = 2;
        int rc = regression ? fit_outputs(&p, &m, 1, NULL, NULL, r1, NULL, NULL, NULL, NULL, NULL, &a, &err)
                            : fit_outputs(&p, &m, 1, y1, &k, NULL, NULL, NULL, NULL, NULL, NULL, &a, &err);
        CHECK(rc == SPORF_OK, "one output: %s", err.message);
        rc = regression ? fit_values(&p, &m, r1, NULL, NULL, NULL, NULL, NULL, &b, &err)
                        : fit_classes(&p, &m, y1, 2, NULL, NULL, NULL, NULL, NULL, NULL, &b, &err);
        CHECK(rc == SPORF_OK && a && b && same_bytes(a, b), "task %d: one output = the single-output fit", regression);
        sporf_forest_info info;
        sporf_forest_get_info(a, &info, &err);
        CHECK(info.n_outputs == 1 && info.format_version == 10, "one output keeps format 10 (%d)", info.format_version);
        sporf_forest_free(a);
        sporf_forest_free(b);
    }
}

/* Two copies of one output: every cut scores twice the single output's, so
 * the trees are the same and each leaf holds its values twice -- with the
 * exact scans, the histogram scans and the random splitter. */
static void test_duplicated_output_grows_the_same_trees(void)
{
    const sporf_matrix m = rowmajor(X, N, P);
    sporf_error err;
    for (int run = 0; run < 6; run++) {
        const int regression = run % 2, search = run / 2;
        sporf_params p = params(regression);
        p.honest_fraction = regression ? 0.0 : 0.3; /* the honest leaves too */
        p.max_bins = search == 1 ? 32 : 0;
        p.splitter = search == 2 ? SPORF_SPLITTER_RANDOM : SPORF_SPLITTER_BEST;
        sporf_forest *multi = NULL, *single = NULL;
        const int32_t k[2] = {2, 2};
        int rc = regression
                     ? fit_outputs(&p, &m, 2, NULL, NULL, rdup, NULL, NULL, NULL, NULL, NULL, &multi, &err)
                     : fit_outputs(&p, &m, 2, ydup, k, NULL, NULL, NULL, NULL, NULL, NULL, &multi, &err);
        CHECK(rc == SPORF_OK, "duplicated output: %s", err.message);
        rc = regression ? fit_values(&p, &m, r1, NULL, NULL, NULL, NULL, NULL, &single, &err)
                        : fit_classes(&p, &m, y1, 2, NULL, NULL, NULL, NULL, NULL, NULL, &single, &err);
        if (!multi || !single) {
            sporf_forest_free(multi);
            sporf_forest_free(single);
            continue;
        }
        const int32_t K1 = regression ? 1 : 2;
        double *pm = malloc(sizeof(double) * N * 2 * K1), *ps = malloc(sizeof(double) * N * K1);
        sporf_forest_predict_proba(multi, &m, 1, pm, NULL, NULL, &err);
        sporf_forest_predict_proba(single, &m, 1, ps, NULL, NULL, &err);
        int same = 1;
        for (int i = 0; i < N; i++)
            for (int k2 = 0; k2 < K1; k2++)
                same &= pm[i * 2 * K1 + k2] == ps[i * K1 + k2] && pm[i * 2 * K1 + K1 + k2] == ps[i * K1 + k2];
        CHECK(same, "task %d, search %d: a duplicated output predicts the single output's values twice", regression,
              search);
        sporf_forest_info a, b;
        sporf_forest_get_info(multi, &a, &err);
        sporf_forest_get_info(single, &b, &err);
        CHECK(a.n_nodes == b.n_nodes && a.n_outputs == 2 && a.n_classes == 2 * K1 && a.format_version == 11,
              "task %d: same trees (%lld, %lld nodes), 2 outputs, format 11", regression, (long long)a.n_nodes,
              (long long)b.n_nodes);
        free(pm);
        free(ps);
        sporf_forest_free(multi);
        sporf_forest_free(single);
    }
}

/* Error rate of output j's most probable class (classification) on the training rows. */
static double train_error(const double *prob, int K, int at, int width, const int32_t *y, int stride, int j)
{
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        int best = 0;
        for (int c = 1; c < width; c++)
            if (prob[i * K + at + c] > prob[i * K + at + best]) best = c;
        wrong += best != y[i * stride + j];
    }
    return (double)wrong / N;
}

static void test_two_outputs_are_learned(void)
{
    const sporf_matrix m = rowmajor(X, N, P);
    sporf_error err;
    sporf_params p = params(0);
    p.n_estimators = 30;
    const int32_t k[2] = {2, 3};
    sporf_forest *f = NULL;
    double *oob = malloc(sizeof(double) * N * 5);
    int64_t *count = malloc(sizeof(int64_t) * N);
    int rc = fit_outputs(&p, &m, 2, yboth, k, NULL, NULL, oob, count, NULL, NULL, &f, &err);
    CHECK(rc == SPORF_OK, "two outputs: %s", err.message);
    if (!f) { free(oob); free(count); return; }
    int32_t n_out = 0, widths[2] = {0, 0};
    sporf_forest_get_outputs(f, &n_out, widths, &err);
    CHECK(n_out == 2 && widths[0] == 2 && widths[1] == 3, "outputs %d: %d and %d classes", n_out, widths[0], widths[1]);
    double *prob = malloc(sizeof(double) * N * 5);
    sporf_forest_predict_proba(f, &m, 2, prob, NULL, NULL, &err);
    int sums_ok = 1;
    for (int i = 0; i < N; i++) {
        sums_ok &= NEAR(prob[i * 5] + prob[i * 5 + 1], 1.0, 1e-9);
        sums_ok &= NEAR(prob[i * 5 + 2] + prob[i * 5 + 3] + prob[i * 5 + 4], 1.0, 1e-9);
    }
    CHECK(sums_ok, "each output's probabilities sum to 1");
    const double e0 = train_error(oob, 5, 0, 2, yboth, 2, 0), e1 = train_error(oob, 5, 2, 3, yboth, 2, 1);
    CHECK(e0 < 0.15 && e1 < 0.12, "out-of-bag error per output: %.3f and %.3f", e0, e1);
    CHECK(train_error(prob, 5, 2, 3, yboth, 2, 1) < 0.02, "output 2 fits its training rows");

    /* the format round trip, and shards merge into the same forest */
    int64_t len;
    uint8_t *bytes = save(f, &len);
    sporf_forest *g = NULL;
    CHECK(sporf_forest_load(bytes, len, &g, &err) == SPORF_OK && g && same_bytes(f, g), "format 11 round trip: %s",
          err.message);
    bytes[24 + 8] ^= 1; /* inside the parameters: the checksum catches it */
    sporf_forest *bad = NULL;
    CHECK(sporf_forest_load(bytes, len, &bad, &err) == SPORF_E_FORMAT && !bad, "a flipped byte is refused");
    free(bytes);
    sporf_forest *parts[2] = {NULL, NULL};
    sporf_params a = p, b = p;
    a.n_estimators = 13;
    b.first_tree = 13;
    b.n_estimators = 17;
    fit_outputs(&a, &m, 2, yboth, k, NULL, NULL, NULL, NULL, NULL, NULL, &parts[0], &err);
    fit_outputs(&b, &m, 2, yboth, k, NULL, NULL, NULL, NULL, NULL, NULL, &parts[1], &err);
    sporf_forest *merged = NULL;
    rc = parts[0] && parts[1] ? sporf_forest_merge((const sporf_forest *const *)parts, 2, &merged, &err) : -1;
    CHECK(rc == SPORF_OK && merged && same_bytes(merged, f), "shards merge into the single fit");
    /* a one-output forest does not merge with a two-output one */
    sporf_forest *one = NULL, *mixed = NULL;
    fit_classes(&b, &m, y1, 2, NULL, NULL, NULL, NULL, NULL, NULL, &one, &err);
    const sporf_forest *pair[2] = {parts[0], one};
    CHECK(sporf_forest_merge(pair, 2, &mixed, &err) == SPORF_E_ARG && !mixed, "different outputs do not merge");
    /* the out-of-bag values of the merged forest are the single fit's */
    double *oob2 = malloc(sizeof(double) * N * 5);
    int64_t *count2 = malloc(sizeof(int64_t) * N);
    rc = merged ? sporf_forest_oob_predict(merged, &m, 2, oob2, count2, &err) : -1;
    CHECK(rc == SPORF_OK && memcmp(oob, oob2, sizeof(double) * N * 5) == 0, "regenerated out-of-bag values");
    CHECK(sporf_forest_predict_votes(f, &m, 1, prob, &err) == SPORF_E_ARG, "votes are refused");
    free(oob2);
    free(count2);
    sporf_forest_free(one);
    sporf_forest_free(parts[0]);
    sporf_forest_free(parts[1]);
    sporf_forest_free(merged);
    sporf_forest_free(g);
    sporf_forest_free(f);
    free(prob);
    free(oob);
    free(count);
}

static void test_regression_outputs_and_tuning(void)
{
    const sporf_matrix m = rowmajor(X, N, P);
    sporf_error err;
    sporf_params p = params(1);
    p.n_estimators = 16;
    sporf_forest *f = NULL;
    sporf_tune_result res;
    int rc = tune_outputs(&p, SPORF_TUNE_STRUCTURE, &m, 2, NULL, NULL, rboth, NULL, &res, NULL, NULL,
                                         &f, &err);
    CHECK(rc == SPORF_OK && f, "structure tuning of two outputs: %s", err.message);
    if (!f) return;
    int random = 0;
    for (int i = 0; i < res.n_candidates; i++) random |= res.candidates[i].splitter != SPORF_SPLITTER_BEST;
    CHECK(random && res.n_candidates == 8, "%d candidates, random cuts among them", res.n_candidates);
    /* the winner's forest is the plain fit of its parameters */
    sporf_forest *g = NULL;
    fit_outputs(&res.candidates[res.best], &m, 2, NULL, NULL, rboth, NULL, NULL, NULL, NULL, NULL, &g, &err);
    CHECK(g && same_bytes(f, g), "the tuned forest is the winner's fit");
    double *pred = malloc(sizeof(double) * N * 2);
    sporf_forest_predict_proba(f, &m, 1, pred, NULL, NULL, &err);
    double se0 = 0.0, se1 = 0.0, v1 = 0.0, m1 = 0.0;
    for (int i = 0; i < N; i++) m1 += rboth[2 * i + 1] / N;
    for (int i = 0; i < N; i++) {
        se0 += (pred[2 * i] - rboth[2 * i]) * (pred[2 * i] - rboth[2 * i]);
        se1 += (pred[2 * i + 1] - rboth[2 * i + 1]) * (pred[2 * i + 1] - rboth[2 * i + 1]);
        v1 += (rboth[2 * i + 1] - m1) * (rboth[2 * i + 1] - m1);
    }
    CHECK(se1 / v1 < 0.25 && se0 / N < 0.5, "both outputs fitted (%.3f, %.3f)", se0 / N, se1 / v1);
    free(pred);
    sporf_forest_free(g);
    sporf_forest_free(f);
}

static void test_refusals(void)
{
    const sporf_matrix m = rowmajor(X, N, P);
    sporf_error err;
    const int32_t k[2] = {2, 2}, k_small[2] = {2, 1};
    sporf_forest *f = NULL;
    sporf_params p = params(0);
    CHECK(fit_outputs(&p, &m, 2, yboth, k_small, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) ==
                  SPORF_E_ARG && !f && strstr(err.message, "y[") != NULL,
          "a class code out of its output's range: %s", err.message);
    p.class_weight = SPORF_CW_BALANCED;
    CHECK(fit_outputs(&p, &m, 2, ydup, k, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG &&
              strstr(err.message, "class_weight") != NULL, "class weights refused: %s", err.message);
    p = params(1);
    p.quantiles = 1;
    CHECK(fit_outputs(&p, &m, 2, NULL, NULL, rdup, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG,
          "quantiles refused: %s", err.message);
    p = params(1);
    double bad[N * 2];
    memcpy(bad, rdup, sizeof bad);
    bad[2 * 7 + 1] = NAN;
    CHECK(fit_outputs(&p, &m, 2, NULL, NULL, bad, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG &&
              strstr(err.message, "y[7, 1]") != NULL, "NaN in an output: %s", err.message);
    CHECK(fit_outputs(&p, &m, 2, ydup, k, rdup, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG,
          "codes and responses together refused");
    CHECK(!f, "no forest after a refusal");
}

int main(void)
{
    make_data();
    test_one_output_is_the_single_fit();
    test_duplicated_output_grows_the_same_trees();
    test_two_outputs_are_learned();
    test_regression_outputs_and_tuning();
    test_refusals();
    return check_summary();
}
