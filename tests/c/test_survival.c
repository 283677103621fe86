/* test_survival.c -- survival forests (SPORF_TASK_SURVIVAL): Harrell's C
 * against its definition, a proportional-hazards simulation learned, the
 * curves and the risk agreeing, the same forest for any thread count, the
 * model format and merging, honest trees, permutation importance, and the
 * refusals of bad survival data, and min_events_split. */
#include "fit_calls.h"
#include "model/model.h"
#include "check.h"

#include <string.h>

enum { N = 600, P = 6, N_TEST = 400 };

static double X[N * P], XT[N_TEST * P], times[N], times_t[N_TEST], lp[N], lp_t[N_TEST];
static int32_t events[N], events_t[N_TEST];

/* Hazard exp(x0 + x1 - 0.5 x2) (the other features noise), exponential
 * times, uniform censoring of about a third of the rows. */
static void simulate(double *x, double *t, int32_t *e, double *eta, int n, sporf_rng *rng)
{
    for (int i = 0; i < n; i++) {
        double *xi = x + i * P;
        for (int j = 0; j < P; j++) xi[j] = normal(rng);
        eta[i] = xi[0] + xi[1] - 0.5 * xi[2];
        double u = sporf_rng_uniform(rng);
        if (u <= 0.0) u = 1e-12;
        const double event_time = -log(u) / exp(eta[i]);
        const double censor = 4.0 * sporf_rng_uniform(rng);
        t[i] = event_time < censor ? event_time : censor;
        e[i] = event_time < censor;
    }
}

static double brute_concordance(const double *t, const int32_t *e, const double *r, int n)
{
    double conc = 0.0, comp = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (!e[i] || !(t[j] > t[i] || (t[j] == t[i] && !e[j])) || i == j)
                continue;
            comp += 1.0;
            conc += r[i] > r[j] ? 1.0 : r[i] == r[j] ? 0.5 : 0.0;
        }
    return conc / comp;
}

static sporf_params params(void)
{
    sporf_params p;
    sporf_params_init(&p);
    p.criterion = SPORF_CRIT_LOGRANK;
    p.n_estimators = 40;
    p.random_state = 7;
    p.n_jobs = 2;
    return p;
}

static int fit_surv(const sporf_params *p, const double *t, const int32_t *e, double *oob, sporf_forest **out,
                    sporf_error *err)
{
    const sporf_matrix m = rowmajor(X, N, P);
    sporf_fit_data d;
    memset(&d, 0, sizeof d);
    d.response = SPORF_RESPONSE_SURVIVAL;
    d.values = t;
    d.events = e;
    return sporf_forest_fit(p, &m, &d, oob, NULL, NULL, NULL, out, err);
}

static void test_concordance(void)
{
    sporf_rng rng;
    sporf_rng_seed(&rng, 3, 0);
    double t[200], r[200];
    int32_t e[200];
    for (int i = 0; i < 200; i++) { /* ties in times and in risks */
        t[i] = (double)(sporf_rng_below(&rng, 30));
        e[i] = sporf_rng_uniform(&rng) < 0.6;
        r[i] = (double)(sporf_rng_below(&rng, 15)) + (i % 7 == 0 ? 0.5 : 0.0);
    }
    double c;
    sporf_error err;
    CHECK(sporf_concordance_index(t, e, r, 200, &c, &err) == SPORF_OK, "%s", err.message);
    CHECK(NEAR(c, brute_concordance(t, e, r, 200), 1e-12), "C %.15f vs brute force %.15f", c,
          brute_concordance(t, e, r, 200));
    t[3] = -1.0;
    CHECK(sporf_concordance_index(t, e, r, 200, &c, &err) == SPORF_E_ARG && strstr(err.message, "time[3]"),
          "a negative time is refused: %s", err.message);
}

static void test_learns_and_agrees(void)
{
    sporf_params p = params();
    sporf_forest *f = NULL;
    sporf_error err;
    double *oob = malloc(N * sizeof *oob);
    CHECK(fit_surv(&p, times, events, oob, &f, &err) == SPORF_OK, "fit: %s", err.message);
    if (!f) return;
    sporf_forest_info info;
    sporf_forest_get_info(f, &info, &err);
    CHECK(info.task == SPORF_TASK_SURVIVAL && info.n_classes == 1 && info.format_version == 13, "info: task %d, %d classes, format %d",
          (int)info.task, (int)info.n_classes, (int)info.format_version);
    const double oracle = brute_concordance(times_t, events_t, lp_t, N_TEST);
    double risk[N_TEST], c_test, c_oob;
    const sporf_matrix mt = rowmajor(XT, N_TEST, P);
    CHECK(sporf_forest_predict_proba(f, &mt, 2, risk, NULL, NULL, &err) == SPORF_OK, "risk: %s", err.message);
    sporf_concordance_index(times_t, events_t, risk, N_TEST, &c_test, &err);
    sporf_concordance_index(times, events, oob, N, &c_oob, &err);
    printf("test C %.4f, out-of-bag C %.4f, true hazard's C %.4f\n", c_test, c_oob, oracle);
    CHECK(c_test > oracle - 0.06 && c_oob > oracle - 0.08, "C %.4f / oob %.4f against the truth's %.4f", c_test,
          c_oob, oracle);

    /* the curves: S in [0, 1] falling, H rising, and the risk H summed over the event times */
    int64_t n_u = 0;
    CHECK(sporf_forest_unique_times(f, NULL, NULL, 0, &n_u, &err) == SPORF_OK && n_u == N, "%lld times", (long long)n_u);
    double *ut = malloc((size_t)n_u * sizeof *ut);
    int32_t *is_ev = malloc((size_t)n_u * sizeof *is_ev);
    sporf_forest_unique_times(f, ut, is_ev, n_u, &n_u, &err);
    double *H = malloc((size_t)(N_TEST * n_u) * sizeof *H), *S = malloc((size_t)(N_TEST * n_u) * sizeof *S);
    CHECK(sporf_forest_predict_survival(f, &mt, ut, n_u, SPORF_CUMULATIVE_HAZARD, 2, H, &err) == SPORF_OK, "%s",
          err.message);
    CHECK(sporf_forest_predict_survival(f, &mt, ut, n_u, SPORF_SURVIVAL_FUNCTION, 1, S, &err) == SPORF_OK, "%s",
          err.message);
    int monotone = 1, summed = 1;
    for (int i = 0; i < N_TEST; i++) {
        double sum = 0.0;
        for (int64_t k = 0; k < n_u; k++) {
            const double h = H[i * n_u + k], s = S[i * n_u + k];
            monotone &= s >= 0.0 && s <= 1.0 && h >= 0.0;
            if (k > 0) monotone &= s <= S[i * n_u + k - 1] && h >= H[i * n_u + k - 1];
            if (is_ev[k]) sum += h;
        }
        summed &= NEAR(sum, risk[i], 1e-9 * (1.0 + risk[i]));
    }
    CHECK(monotone, "S falls within [0, 1] and H rises");
    CHECK(summed, "the risk is H summed over the event times");
    /* one time, asked in any order, gives the same column */
    double two[2] = {ut[n_u / 2], ut[10]}, S2[N_TEST * 2];
    sporf_forest_predict_survival(f, &mt, two, 2, SPORF_SURVIVAL_FUNCTION, 2, S2, &err);
    CHECK(S2[0] == S[n_u / 2] && S2[1] == S[10] && S2[2 * 7 + 1] == S[7 * n_u + 10], "times in any order");

    /* the same bytes for one thread; the model file round trip */
    sporf_params p1 = params();
    p1.n_jobs = 1;
    sporf_forest *g = NULL;
    fit_surv(&p1, times, events, NULL, &g, &err);
    int64_t la, lb;
    uint8_t *ba = save(f, &la), *bb = save(g, &lb);
    CHECK(g && la == lb && memcmp(ba, bb, (size_t)la) == 0, "one thread grows the same forest");
    sporf_forest *h = NULL;
    CHECK(sporf_forest_load(ba, la, &h, &err) == SPORF_OK, "load: %s", err.message);
    double *S3 = malloc((size_t)(N_TEST * n_u) * sizeof *S3);
    if (h) sporf_forest_predict_survival(h, &mt, ut, n_u, SPORF_SURVIVAL_FUNCTION, 2, S3, &err);
    CHECK(h && memcmp(S3, S, (size_t)(N_TEST * n_u) * sizeof *S) == 0, "the loaded forest's curves");
    /* a flipped event flag breaks nothing but the load */
    int64_t at = -1;
    for (int64_t k = 0; h && k + 1 < la; k++) ; /* (the format's checks are fuzzed; here a truncation) */
    sporf_forest *bad = NULL;
    CHECK(sporf_forest_load(ba, la - 9, &bad, &err) == SPORF_E_FORMAT && !bad, "a truncated model is refused");
    (void)at;

    /* permutation importance: the three features of the hazard first */
    double imp[P];
    const sporf_matrix m = rowmajor(X, N, P);
    CHECK(sporf_forest_permutation_importance(f, &m, events, times, 2, NULL, NULL, imp, NULL, &err) == SPORF_OK,
          "importance: %s", err.message);
    CHECK(imp[0] > imp[3] && imp[1] > imp[4] && imp[2] > imp[5] && imp[0] > 0.0, "importance %.4f %.4f %.4f | %.4f %.4f %.4f",
          imp[0], imp[1], imp[2], imp[3], imp[4], imp[5]);
    /* out-of-bag curves: rows of the training data only */
    double *So = malloc((size_t)(N * 3) * sizeof *So);
    CHECK(sporf_forest_oob_survival(f, &m, ut, 3, SPORF_SURVIVAL_FUNCTION, 2, So, &err) == SPORF_OK, "%s",
          err.message);
    CHECK(sporf_forest_oob_survival(f, &mt, ut, 3, SPORF_SURVIVAL_FUNCTION, 2, So, &err) == SPORF_E_ARG,
          "out-of-bag curves refuse other rows");
    free(So);
    free(ba);
    free(bb);
    free(S3);
    free(H);
    free(S);
    free(ut);
    free(is_ev);
    free(oob);
    sporf_forest_free(f);
    sporf_forest_free(g);
    sporf_forest_free(h);
}

static void test_shards_and_honest(void)
{
    sporf_params p = params();
    p.min_samples_leaf = (sporf_amount){SPORF_FORM_COUNT, 5};
    sporf_forest *whole = NULL, *a = NULL, *b = NULL, *m = NULL;
    sporf_error err;
    fit_surv(&p, times, events, NULL, &whole, &err);
    sporf_params pa = p, pb = p;
    pa.n_estimators = 15;
    pb.first_tree = 15;
    pb.n_estimators = 25;
    fit_surv(&pa, times, events, NULL, &a, &err);
    fit_surv(&pb, times, events, NULL, &b, &err);
    const sporf_forest *parts[2] = {b, a};
    CHECK(a && b && sporf_forest_merge(parts, 2, &m, &err) == SPORF_OK, "merge: %s", err.message);
    int64_t la, lb;
    uint8_t *ba = save(whole, &la), *bb = m ? save(m, &lb) : NULL;
    CHECK(bb && la == lb && memcmp(ba, bb, (size_t)la) == 0, "two shards merge into the one fit");
    free(ba);
    free(bb);

    sporf_params ph = params();
    ph.honest_fraction = 0.5;
    ph.min_samples_leaf = (sporf_amount){SPORF_FORM_COUNT, 3};
    sporf_forest *hf = NULL;
    CHECK(fit_surv(&ph, times, events, NULL, &hf, &err) == SPORF_E_ARG && strstr(err.message, "ignore"),
          "honest survival trees need honest_prior 'ignore': %s", err.message);
    ph.honest_prior = SPORF_HONEST_IGNORE;
    CHECK(fit_surv(&ph, times, events, NULL, &hf, &err) == SPORF_OK, "honest: %s", err.message);
    double risk[N_TEST], c;
    const sporf_matrix mt = rowmajor(XT, N_TEST, P);
    if (hf) sporf_forest_predict_proba(hf, &mt, 2, risk, NULL, NULL, &err);
    sporf_concordance_index(times_t, events_t, risk, N_TEST, &c, &err);
    CHECK(hf && c > 0.65, "honest survival forest C %.4f", c);
    sporf_forest_free(hf);
    sporf_forest_free(whole);
    sporf_forest_free(a);
    sporf_forest_free(b);
    sporf_forest_free(m);
}

static void test_refusals(void)
{
    sporf_params p = params();
    sporf_forest *f = NULL;
    sporf_error err;
    double t[N];
    int32_t e[N];
    memcpy(t, times, sizeof t);
    memcpy(e, events, sizeof e);
    t[5] = -2.0;
    CHECK(fit_surv(&p, t, e, NULL, &f, &err) == SPORF_E_ARG && strstr(err.message, "time[5]"), "%s", err.message);
    t[5] = NAN;
    CHECK(fit_surv(&p, t, e, NULL, &f, &err) == SPORF_E_ARG && strstr(err.message, "time[5]"), "%s", err.message);
    t[5] = times[5];
    e[9] = 2;
    CHECK(fit_surv(&p, t, e, NULL, &f, &err) == SPORF_E_ARG && strstr(err.message, "event[9]"), "%s", err.message);
    memset(e, 0, sizeof e);
    CHECK(fit_surv(&p, t, e, NULL, &f, &err) == SPORF_E_ARG && strstr(err.message, "no row has an event"), "%s",
          err.message);
    sporf_params q = params();
    q.criterion = SPORF_CRIT_SQUARED_ERROR;
    CHECK(fit_surv(&q, times, events, NULL, &f, &err) == SPORF_E_ARG && strstr(err.message, "logrank"), "%s",
          err.message);
    const sporf_matrix one = rowmajor(X, 1, P);
    sporf_fit_data d;
    memset(&d, 0, sizeof d);
    d.response = SPORF_RESPONSE_SURVIVAL;
    d.values = times;
    d.events = events;
    CHECK(sporf_forest_fit(&p, &one, &d, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG &&
              strstr(err.message, "at least 2 rows"), "%s", err.message);
    q.criterion = SPORF_CRIT_LOGRANK;
    const double y[3] = {1, 2, 3};
    CHECK(fit_values(&q, &one, y, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG &&
              strstr(err.message, "survival"), "logrank on a regression: %s", err.message);
    CHECK(f == NULL, "no forest on a refusal");
    sporf_params r = params();
    r.criterion = SPORF_CRIT_SQUARED_ERROR;
    r.min_events_split = 2;
    CHECK(fit_values(&r, &one, y, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG &&
              strstr(err.message, "min_events_split"), "min_events_split on a regression: %s", err.message);
    r = params();
    r.min_events_split = -1;
    CHECK(fit_surv(&r, times, events, NULL, &f, &err) == SPORF_E_ARG && strstr(err.message, "min_events_split"),
          "a negative min_events_split: %s", err.message);
}

/* min_events_split: with every row in bag, a split node holds at least that
 * many events (each leaf's parent did), and a root of fewer events than asked
 * is every tree. The events reaching a node are counted by routing the rows. */
static void test_min_events_split(void)
{
    sporf_params p = params();
    p.n_estimators = 3;
    p.bootstrap = 0;
    p.min_samples_leaf.value = 1.0;
    int64_t all_events = 0;
    for (int i = 0; i < N; i++) all_events += events[i];
    for (int k = 0; k < 3; k++) {
        p.min_events_split = k == 0 ? 0 : k == 1 ? 20 : all_events + 1;
        sporf_forest *f = NULL;
        sporf_error err;
        CHECK(fit_surv(&p, times, events, NULL, &f, &err) == SPORF_OK, "fit: %s", err.message);
        if (!f) return;
        int64_t fewest = INT64_MAX, splits = 0;
        for (int64_t t = 0; t < f->n_trees; t++) {
            const sporf_tree *tr = &f->trees[t];
            int64_t *ev = calloc((size_t)tr->n_nodes, sizeof *ev);
            for (int i = 0; ev && i < N; i++) {
                int32_t node = 0; /* walk row i, counting its event at every node it passes */
                const double *xi = X + i * P;
                for (;;) {
                    const sporf_node *nd = &tr->nodes[node];
                    ev[node] += events[i];
                    if (nd->left < 0) break;
                    double v = 0.0; /* the builder's projection: its terms added in order */
                    for (int32_t q = 0; q < nd->proj_len; q++)
                        v += tr->proj_weight[nd->proj_start + q] * xi[tr->proj_feature[nd->proj_start + q]];
                    node = v <= nd->threshold ? nd->left : nd->right;
                }
            }
            for (int32_t j = 0; ev && j < tr->n_nodes; j++)
                if (tr->nodes[j].left >= 0) {
                    splits++;
                    fewest = ev[j] < fewest ? ev[j] : fewest;
                }
            free(ev);
        }
        if (k == 0)
            CHECK(splits > 0 && fewest < 20, "without the rule some split holds fewer than 20 events (%lld)",
                  (long long)fewest);
        else if (k == 1)
            CHECK(splits > 0 && fewest >= 20, "every split holds 20 events or more (fewest %lld)", (long long)fewest);
        else
            CHECK(splits == 0, "a root of too few events is every tree (%lld splits)", (long long)splits);
        sporf_forest_free(f);
    }
}

/* Survival intervals: scores in [-1/2, 1/2] for event rows and NaN with
 * weight 0 for censored ones, weights 1 / G(T-) >= 1 (all 1 without
 * censoring, where the weighted levels are the unweighted ones); a held-out
 * row's interval holds its time exactly when its score is at most the
 * calibrated q; out of bag the same for any n_jobs; calibrated intervals
 * cover about the coverage of new rows' true event times (the simulation's,
 * before censoring); refusals. */
static void test_intervals(void)
{
    enum { M = 600 };
    static double xt[M * P], true_t[M], eta[M], sc[N], w[N], sc2[N], w2[N], ivl[M * 2], hs[N_TEST], hw[N_TEST];
    sporf_rng rng;
    sporf_rng_seed(&rng, 77, 0);
    for (int i = 0; i < M; i++) { /* the simulation's model, the event times before censoring */
        double *xi = xt + i * P;
        for (int j = 0; j < P; j++) xi[j] = normal(&rng);
        eta[i] = xi[0] + xi[1] - 0.5 * xi[2];
        double u = sporf_rng_uniform(&rng);
        true_t[i] = -log(u > 0.0 ? u : 1e-12) / exp(eta[i]);
    }
    sporf_params p = params();
    p.n_estimators = 100;
    sporf_forest *f = NULL;
    sporf_error err;
    CHECK(fit_surv(&p, times, events, NULL, &f, &err) == SPORF_OK, "fit: %s", err.message);
    const sporf_matrix m = rowmajor(X, N, P), mt = rowmajor(XT, N_TEST, P), mx = rowmajor(xt, M, P);
    CHECK(sporf_forest_oob_survival_interval_scores(f, &m, times, events, 1, sc, w, &err) == SPORF_OK, "oob scores: %s",
          err.message);
    CHECK(sporf_forest_oob_survival_interval_scores(f, &m, times, events, 2, sc2, w2, &err) == SPORF_OK &&
              memcmp(sc, sc2, sizeof sc) == 0 && memcmp(w, w2, sizeof w) == 0,
          "out-of-bag scores and weights are the same for any n_jobs");
    int ok = 1, n_scored = 0;
    for (int i = 0; i < N; i++) {
        if (!events[i])
            ok &= isnan(sc[i]) && w[i] == 0.0;
        else if (!isnan(sc[i]))
            ok &= sc[i] >= -0.5 && sc[i] <= 0.5 && w[i] >= 1.0, n_scored++;
    }
    CHECK(ok && n_scored > N / 3, "event rows score in [-1/2, 1/2] with weights >= 1, censored ones NaN and 0 (%d)",
          n_scored);

    /* coverage of new rows' true event times, calibrated out of bag */
    for (int k = 0; k < 2; k++) {
        const double c = k == 0 ? 0.8 : 0.9;
        int covered = 0, raw_covered = 0;
        CHECK(sporf_forest_predict_survival_interval(f, &mx, c, sc, w, N, 2, ivl, &err) == SPORF_OK, "interval: %s",
              err.message);
        for (int i = 0; i < M; i++) covered += ivl[2 * i] <= true_t[i] && true_t[i] <= ivl[2 * i + 1];
        CHECK(sporf_forest_predict_survival_interval(f, &mx, c, NULL, NULL, 0, 2, ivl, &err) == SPORF_OK, "raw: %s",
              err.message);
        for (int i = 0; i < M; i++) raw_covered += ivl[2 * i] <= true_t[i] && true_t[i] <= ivl[2 * i + 1];
        const double cov = (double)covered / M, raw = (double)raw_covered / M;
        printf("  survival intervals at %.1f: calibrated cover %.3f of new rows, uncalibrated %.3f\n", c, cov, raw);
        CHECK(fabs(cov - c) < 0.06, "calibrated out of bag, the intervals cover about %.1f of new rows' times: %.3f",
              c, cov);
    }

    /* held out: a row's interval holds its time exactly when its score is at most q */
    CHECK(sporf_forest_survival_interval_scores(f, &mt, times_t, events_t, 2, hs, hw, &err) == SPORF_OK,
          "held-out scores: %s", err.message);
    double levels[2];
    CHECK(sporf_interval_levels_weighted(hs, hw, N_TEST, 0.8, levels, &err) == SPORF_OK, "levels: %s", err.message);
    const double q = 0.5 - levels[0] - 1e-9;
    CHECK(sporf_forest_predict_survival_interval(f, &mt, 0.8, hs, hw, N_TEST, 1, ivl, &err) == SPORF_OK, "ivl");
    int agree = 1, n_ev = 0;
    for (int i = 0; i < N_TEST; i++) {
        if (!events_t[i])
            continue;
        n_ev++;
        const int inside = ivl[2 * i] <= times_t[i] && times_t[i] <= ivl[2 * i + 1];
        if (fabs(hs[i] - q) > 1e-7)
            agree &= inside == (hs[i] <= q);
        agree &= ivl[2 * i] <= ivl[2 * i + 1];
    }
    CHECK(agree && n_ev > 0, "a held-out event row is inside its interval exactly when its score is at most q");

    /* without censoring the weights are 1 and the levels the unweighted ones */
    static int32_t all_events[N_TEST];
    for (int i = 0; i < N_TEST; i++) all_events[i] = 1;
    double lw[2], lu[2];
    CHECK(sporf_forest_survival_interval_scores(f, &mt, times_t, all_events, 1, hs, hw, &err) == SPORF_OK, "scores");
    int ones = 1;
    for (int i = 0; i < N_TEST; i++) ones &= hw[i] == 1.0;
    sporf_interval_levels_weighted(hs, hw, N_TEST, 0.9, lw, NULL);
    sporf_interval_levels(hs, N_TEST, 0.9, lu, NULL);
    CHECK(ones && lw[0] == lu[0] && lw[1] == lu[1], "no censoring: weights 1, the unweighted levels");

    /* refusals */
    CHECK(sporf_forest_predict_survival_interval(f, &mt, 0.8, hs, NULL, N_TEST, 1, ivl, &err) == SPORF_E_ARG &&
              strstr(err.message, "weights"), "scores without weights are refused: %s", err.message);
    CHECK(sporf_forest_predict_survival_interval(f, &mt, 1.0, NULL, NULL, 0, 1, ivl, &err) == SPORF_E_ARG &&
              strstr(err.message, "coverage"), "coverage 1 is refused: %s", err.message);
    static int32_t none[N_TEST];
    CHECK(sporf_forest_survival_interval_scores(f, &mt, times_t, none, 1, hs, hw, &err) == SPORF_E_ARG &&
              strstr(err.message, "no calibration row has an event"), "no event is refused: %s", err.message);
    const double neg = times_t[0];
    times_t[0] = -1.0;
    CHECK(sporf_forest_survival_interval_scores(f, &mt, times_t, events_t, 1, hs, hw, &err) == SPORF_E_ARG &&
              strstr(err.message, "time[0]"), "a negative time is refused: %s", err.message);
    times_t[0] = neg;
    CHECK(sporf_forest_oob_survival_interval_scores(f, &mt, times_t, events_t, 1, hs, hw, &err) == SPORF_E_ARG &&
              strstr(err.message, "training data"), "out of bag on other rows is refused: %s", err.message);
    sporf_params whole = params();
    whole.n_estimators = 3;
    whole.bootstrap = 0;
    sporf_forest *fw = NULL;
    CHECK(fit_surv(&whole, times, events, NULL, &fw, &err) == SPORF_OK &&
              sporf_forest_oob_survival_interval_scores(fw, &m, times, events, 1, sc, w, &err) == SPORF_OK &&
              isnan(sc[0]) && isnan(sc[N - 1]) && w[0] == 0.0 && w[N - 1] == 0.0,
          "trees that draw every row score no row out of bag: %s", err.message);
    sporf_forest_free(fw);
    sporf_params r;
    sporf_params_init(&r);
    r.criterion = SPORF_CRIT_SQUARED_ERROR;
    r.n_estimators = 2;
    sporf_forest *reg = NULL;
    fit_values(&r, &m, times, NULL, NULL, NULL, NULL, NULL, &reg, NULL);
    CHECK(reg && sporf_forest_survival_interval_scores(reg, &m, times, events, 1, sc, w, &err) == SPORF_E_ARG &&
              strstr(err.message, "survival forests"), "a regression forest is refused: %s", err.message);
    CHECK(sporf_forest_predict_survival_interval(reg, &m, 0.8, NULL, NULL, 0, 1, ivl, &err) == SPORF_E_ARG,
          "a regression forest has no survival intervals");
    sporf_forest_free(reg);
    sporf_forest_free(f);
}

int main(void)
{
    sporf_rng rng;
    sporf_rng_seed(&rng, 2024, 0);
    simulate(X, times, events, lp, N, &rng);
    simulate(XT, times_t, events_t, lp_t, N_TEST, &rng);
    test_concordance();
    test_learns_and_agrees();
    test_shards_and_honest();
    test_refusals();
    test_min_events_split();
    test_intervals();
    return check_summary();
}
