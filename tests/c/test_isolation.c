/* test_isolation.c -- isolation forests in the core: the path-length
 * correction c(n), the scores' definition, the depth limit and sample size,
 * the first non-constant candidate, the outlier threshold and its format. */
#include "check.h"
#include "fit_calls.h"
#include "fit/isolation.h"
#include "fit/projection.h"

#include <string.h>

/* c(n) with the exact harmonic number, the definition's. */
static double c_exact(int n)
{
    if (n <= 1) return 0.0;
    double h = 0.0;
    for (int k = 1; k < n; k++) h += 1.0 / k;
    return 2.0 * h - 2.0 * (n - 1) / (double)n;
}

static void test_path_length_correction(void)
{
    CHECK(sporf_isolation_c(0.0) == 0.0 && sporf_isolation_c(1.0) == 0.0, "c(0) = c(1) = 0");
    CHECK(sporf_isolation_c(2.0) == 1.0, "c(2) = 1");
    for (int n = 3; n <= 5000; n += n < 40 ? 1 : 97)
        CHECK(NEAR(sporf_isolation_c((double)n), c_exact(n), 1e-12 * c_exact(n)), "c(%d) = %.15g, exact %.15g", n,
              sporf_isolation_c((double)n), c_exact(n));
    /* the paper's asymptotic form at 256: 2 (ln 255 + gamma) - 2 * 255 / 256 */
    CHECK(NEAR(sporf_isolation_c(256.0), 2.0 * (log(255.0) + 0.5772156649015329) - 2.0 * 255.0 / 256.0, 5e-3),
          "c(256) near the paper's approximation");
    double last = 0.0;
    for (double w = 1.0; w < 40.0; w += 0.37) { /* weights between whole numbers: increasing */
        CHECK(sporf_isolation_c(w) >= last, "c increases at %g", w);
        last = sporf_isolation_c(w);
    }
}

static sporf_forest *fit_isolation(sporf_params *p, const double *X, int64_t n, int64_t d, sporf_error *err)
{
    p->criterion = SPORF_CRIT_ISOLATION;
    sporf_matrix m = rowmajor(X, n, d);
    sporf_forest *f = NULL;
    if (fit_no_response(p, &m, NULL, NULL, NULL, &f, err) != SPORF_OK)
        return NULL;
    return f;
}

static void test_scores(void)
{
    enum { N = 300, D = 4 };
    static double X[N * D];
    sporf_rng rng;
    sporf_rng_seed(&rng, 11, 0);
    for (int i = 0; i < N * D; i++) X[i] = normal(&rng);
    for (int j = 0; j < D; j++) X[j] = 8.0; /* row 0: far out */
    sporf_params p;
    sporf_params_init(&p);
    p.n_estimators = 50;
    p.bootstrap = 0;
    p.max_samples.form = SPORF_FORM_COUNT;
    p.max_samples.value = 256;
    p.random_state = 3;
    p.max_depth = 8; /* the paper's limit for psi = 256 */
    sporf_error err;
    sporf_forest *f = fit_isolation(&p, X, N, D, &err);
    CHECK(f != NULL, "isolation fit: %s", err.message);
    if (!f) return;
    sporf_forest_info info;
    sporf_forest_get_info(f, &info, &err);
    CHECK(info.task == SPORF_TASK_ISOLATION && info.n_classes == 1 && info.format_version == 15,
          "task %d, %d values, format %d", info.task, info.n_classes, info.format_version);
    CHECK(info.max_depth_seen <= 8, "depth limit ceil(log2(256)) = 8, deepest %lld", (long long)info.max_depth_seen);
    static double s[N];
    sporf_matrix m = rowmajor(X, N, D);
    CHECK(sporf_forest_predict_proba(f, &m, 1, s, NULL, NULL, &err) == SPORF_OK, "scores: %s", err.message);
    int top = 1;
    for (int i = 1; i < N; i++) top &= s[0] > s[i] && s[i] > 0.0 && s[i] <= 1.0;
    CHECK(top && s[0] > 0.6, "the far row scores highest (%g), every score in (0, 1]", s[0]);
    double t = 0.0;
    CHECK(sporf_forest_get_score_threshold(f, &t, &err) == SPORF_OK && t == 0.5, "a new forest's threshold 0.5");
    CHECK(sporf_forest_set_outlier_share(f, s, N, 0.1, &err) == SPORF_OK, "contamination: %s", err.message);
    sporf_forest_get_score_threshold(f, &t, &err);
    int above = 0;
    for (int i = 0; i < N; i++) above += s[i] > t;
    CHECK(above == 29 || above == 30, "a tenth of the rows above the threshold (%d)", above);
    CHECK(sporf_forest_set_outlier_share(f, s, N, 0.7, &err) == SPORF_E_ARG, "contamination 0.7 refused");
    CHECK(sporf_forest_set_score_threshold(f, 1.5, &err) == SPORF_E_ARG, "threshold 1.5 refused");
    /* the threshold travels with the model, and a format that disagrees is refused */
    int64_t len = 0;
    uint8_t *bytes = save(f, &len);
    sporf_forest *g = NULL;
    CHECK(sporf_forest_load(bytes, len, &g, &err) == SPORF_OK, "load: %s", err.message);
    double tg = -1.0;
    if (g) sporf_forest_get_score_threshold(g, &tg, &err);
    CHECK(tg == t, "the threshold is saved (%g, %g)", tg, t);
    sporf_forest_free(g);
    g = NULL;
    bytes[8] = 14; /* the format of other forests */
    CHECK(sporf_forest_load(bytes, len, &g, &err) == SPORF_E_FORMAT, "format 14 refused for an isolation forest");
    free(bytes);
    /* not an isolation forest: no threshold */
    sporf_params q;
    sporf_params_init(&q);
    q.n_estimators = 2;
    q.criterion = SPORF_CRIT_FASTBIC;
    sporf_forest *u = NULL;
    CHECK(fit_no_response(&q, &m, NULL, NULL, NULL, &u, &err) == SPORF_OK, "URerF fit");
    CHECK(sporf_forest_get_score_threshold(u, &t, &err) == SPORF_E_ARG, "a URerF forest has no threshold");
    sporf_forest_free(u);
    sporf_forest_free(f);
}

static void test_constant_and_tiny_data(void)
{
    double X[20];
    for (int i = 0; i < 20; i++) X[i] = 3.0;
    sporf_params p;
    sporf_params_init(&p);
    p.n_estimators = 4;
    p.bootstrap = 0;
    p.max_samples.form = SPORF_FORM_COUNT;
    p.max_samples.value = 256; /* more than the rows: every row */
    sporf_error err;
    sporf_forest *f = fit_isolation(&p, X, 10, 2, &err);
    CHECK(f != NULL, "constant data fits: %s", f ? "" : err.message);
    if (f) {
        double s[10];
        sporf_matrix m = rowmajor(X, 10, 2);
        sporf_forest_predict_proba(f, &m, 1, s, NULL, NULL, &err);
        int same = 1;
        for (int i = 0; i < 10; i++) same &= s[i] == 0.5;
        CHECK(same, "constant data: every score 0.5 (a root leaf of psi rows)");
        sporf_forest_free(f);
    }
    f = fit_isolation(&p, X, 1, 2, &err);
    CHECK(!f && strstr(err.message, "at least 2 rows"), "one row refused: %s", err.message);
    p.max_samples.value = 1;
    f = fit_isolation(&p, X, 10, 2, &err);
    CHECK(!f && strstr(err.message, "max_samples"), "max_samples 1 refused: %s", err.message);
    sporf_params_init(&p);
    p.splitter = SPORF_SPLITTER_RANDOM;
    f = fit_isolation(&p, X, 10, 2, &err);
    CHECK(!f && strstr(err.message, "random already"), "splitter random refused: %s", err.message);
    sporf_params_init(&p);
    p.guided_features = 4;
    f = fit_isolation(&p, X, 10, 2, &err);
    CHECK(!f && strstr(err.message, "guided_features"), "guided projections refused: %s", err.message);
}

/* One column of the sparse matrix at a time: the count's law (hypergeometric,
 * an empty column becoming one feature), distinct features, +-1 weights. */
static void test_column_draws(void)
{
    enum { P = 10, D = 8, DRAWS = 40000 };
    sporf_params params;
    sporf_params_init(&params); /* sparse, feature_combinations 1.5: 12 non-zeros in a 10 x 8 grid */
    sporf_sampler s;
    sporf_error err;
    CHECK(sporf_sampler_init(&s, &params, P, D, &err) == SPORF_OK && sporf_sampler_enable_columns(&s),
          "sampler: %s", err.message);
    sporf_rng rng;
    sporf_rng_seed(&rng, 5, 0);
    double total = 0.0;
    int empty_like = 0, distinct = 1, signs = 1;
    for (int t = 0; t < DRAWS; t++) {
        sporf_sampler_draw_sparse_column(&s, &rng);
        const int32_t k = s.cand.start[1];
        total += k;
        empty_like += k == 1;
        for (int32_t i = 0; i < k; i++) {
            signs &= s.cand.weight[i] == 1.0 || s.cand.weight[i] == -1.0;
            for (int32_t j = 0; j < i; j++) distinct &= s.cand.feature[i] != s.cand.feature[j];
        }
    }
    /* E[max(k, 1)] = E[k] + P(k = 0), k ~ hypergeometric(80 cells, 10 in the column, 12 drawn) */
    double p0 = 1.0;
    for (int i = 0; i < 12; i++) p0 *= (70.0 - i) / (80.0 - i);
    const double want = 12.0 / 8.0 + p0;
    CHECK(NEAR(total / DRAWS, want, 0.02), "mean count %.4f, hypergeometric %.4f", total / DRAWS, want);
    CHECK(distinct && signs, "distinct features, weights +-1");
    CHECK(empty_like > DRAWS / 5, "single features are common (%d of %d)", empty_like, DRAWS);
    sporf_sampler_free(&s);
}

int main(void)
{
    test_column_draws();
    test_path_length_correction();
    test_scores();
    test_constant_and_tiny_data();
    return check_summary();
}
