/* libFuzzer target: fit with fuzzed small data and parameters, then every
 * call a fitted forest offers. Build and run with tools/fuzz.sh.
 *
 * The input is read as a parameter block followed by data: any parameter
 * value (valid or not), 1-48 rows of 1-9 features whose values may be NaN,
 * infinite, huge or repeated, labels, weights and the task (one output, or
 * now and then two; from a last byte, which older inputs lack, a survival
 * forest on the responses as times and the labels' parity as events). Errors are fine;
 * crashes, sanitizer reports, a forest from a failed fit, or a fitted forest
 * that cannot predict or round-trip through the model format are not. */
#include "sporf.h"
#include "../c/fit_calls.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REQUIRE(cond) do { if (!(cond)) abort(); } while (0)

typedef struct {
    const uint8_t *p;
    size_t n, i;
} bytes;

static uint8_t next(bytes *b) { return b->i < b->n ? b->p[b->i++] : 0; }

static double value(bytes *b)
{
    const uint8_t c = next(b);
    switch (c) {
    case 255: return NAN;
    case 254: return INFINITY;
    case 253: return -1e300;
    case 252: return 5e-324;
    default: return ((double)c - 128.0) / 8.0;
    }
}

/* A quantile or survival forest's first tree grown from just the rows it
 * draws, with every row's response (sporf_fit_data.all_*): it succeeds, or
 * fails cleanly (a leaf size chosen out of bag is refused, for one). */
static void sample_fit(const sporf_params *params, const double *X, int64_t n, int64_t d, int fortran,
                       const double *yr, const int32_t *ev, const double *w)
{
    sporf_params p = *params;
    p.n_estimators = 1;
    int64_t m = 0;
    if (sporf_tree_draws(&p, n, 0, NULL, NULL, &m, NULL) != SPORF_OK || m < 1)
        return;
    int64_t *rows = malloc((size_t)m * sizeof *rows);
    double *xs = malloc((size_t)(m * d) * sizeof *xs), *ys = malloc((size_t)m * sizeof *ys);
    double *ws = malloc((size_t)m * sizeof *ws), *impute = malloc((size_t)d * sizeof *impute);
    int32_t *es = malloc((size_t)m * sizeof *es);
    if (rows && xs && ys && ws && es && impute && sporf_tree_draws(&p, n, 0, rows, NULL, &m, NULL) == SPORF_OK) {
        for (int64_t j = 0; j < d; j++) impute[j] = 0.0;
        for (int64_t r = 0; r < m; r++) {
            for (int64_t j = 0; j < d; j++)
                xs[r * d + j] = fortran ? X[j * n + rows[r]] : X[rows[r] * d + j];
            ys[r] = yr[rows[r]];
            ws[r] = w ? w[rows[r]] : 1.0;
            es[r] = ev ? ev[rows[r]] : 0;
        }
        const sporf_matrix ms = {xs, m, d, d, 1, NULL};
        sporf_fit_data sd;
        memset(&sd, 0, sizeof sd);
        sd.response = ev ? SPORF_RESPONSE_SURVIVAL : SPORF_RESPONSE_VALUES;
        sd.values = ys;
        sd.events = ev ? es : NULL;
        sd.sample_weight = w ? ws : NULL;
        sd.rows = rows;
        sd.n_total = n;
        sd.impute = impute;
        sd.all_values = yr;
        sd.all_events = ev;
        sd.all_sample_weight = w;
        sporf_forest *f = (sporf_forest *)&f;
        sporf_error err;
        if (sporf_forest_fit(&p, &ms, &sd, NULL, NULL, NULL, NULL, &f, &err) == SPORF_OK)
            sporf_forest_free(f);
        else
            REQUIRE(f == NULL && err.message[0] != '\0');
    }
    free(rows), free(xs), free(ys), free(ws), free(es), free(impute);
}

/* A forest whose leaf size is "auto", grown again as two shards that leave
 * the choice to the merge (sporf_fit_data.shard), merged: the bytes of the
 * single fit `whole` (every path gives the local fit's forest). */
static void check_auto_shards(const sporf_params *params, const sporf_matrix *X, const sporf_fit_data *data,
                              const sporf_forest *whole)
{
    if (params->n_estimators < 2)
        return;
    sporf_params pa = *params, pb = *params;
    pa.n_estimators = params->n_estimators / 2;
    pb.first_tree = params->first_tree + pa.n_estimators;
    pb.n_estimators = params->n_estimators - pa.n_estimators;
    sporf_fit_data d = *data;
    d.shard = 1;
    sporf_forest *parts[2] = {NULL, NULL}, *merged = NULL;
    sporf_error err;
    REQUIRE(sporf_forest_fit(&pb, X, &d, NULL, NULL, NULL, NULL, &parts[0], &err) == SPORF_OK);
    REQUIRE(sporf_forest_fit(&pa, X, &d, NULL, NULL, NULL, NULL, &parts[1], &err) == SPORF_OK);
    /* a shard survives its model file with its sums */
    int64_t len = 0;
    sporf_forest_save(parts[0], NULL, 0, &len, NULL);
    uint8_t *buf = malloc((size_t)len);
    if (buf && sporf_forest_save(parts[0], buf, len, &len, NULL) == SPORF_OK) {
        sporf_forest *g = NULL;
        REQUIRE(sporf_forest_load(buf, len, &g, &err) == SPORF_OK);
        sporf_forest_free(parts[0]);
        parts[0] = g;
    }
    free(buf);
    REQUIRE(sporf_forest_merge((const sporf_forest *const *)parts, 2, &merged, &err) == SPORF_OK);
    int64_t la = 0, lb = 0;
    sporf_forest_save(whole, NULL, 0, &la, NULL);
    sporf_forest_save(merged, NULL, 0, &lb, NULL);
    uint8_t *ba = malloc((size_t)la), *bb = malloc((size_t)lb);
    if (ba && bb && sporf_forest_save(whole, ba, la, &la, NULL) == SPORF_OK &&
        sporf_forest_save(merged, bb, lb, &lb, NULL) == SPORF_OK)
        REQUIRE(la == lb && memcmp(ba, bb, (size_t)la) == 0);
    free(ba);
    free(bb);
    sporf_forest_free(parts[0]);
    sporf_forest_free(parts[1]);
    sporf_forest_free(merged);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bytes b = {data, size, 0};
    sporf_params p;
    sporf_params_init(&p);
    p.n_estimators = 1 + next(&b) % 4;
    p.projection = next(&b) % 7 - 1;             /* includes invalid codes */
    p.feature_combinations = (double)next(&b) / 16.0;
    p.max_features.form = next(&b) % 6;         /* includes an invalid form */
    p.max_features.value = (double)next(&b) / 8.0;
    const uint8_t task = next(&b) % 3;           /* classification, regression, unsupervised */
    const uint8_t crit = next(&b);
    p.criterion = task == 1 ? SPORF_CRIT_SQUARED_ERROR : task == 2 ? SPORF_CRIT_FASTBIC + crit % 2 : crit % 3;
    p.max_depth = (int64_t)(next(&b) % 10) - 1;
    p.min_samples_split.value = next(&b) % 8;
    p.min_samples_leaf.value = next(&b) % 5;
    if (p.min_samples_split.value == 7) { /* the other forms */
        p.min_samples_split.form = SPORF_FORM_FRACTION;
        p.min_samples_split.value = 0.1;
    } else if (p.min_samples_split.value == 6) {
        p.min_samples_split.form = SPORF_FORM_SQRT;
        p.min_samples_split.value = 0.0;
    }
    if (p.min_samples_leaf.value == 4) {
        p.min_samples_leaf.form = SPORF_FORM_FRACTION;
        p.min_samples_leaf.value = 0.2;
    }
    p.min_impurity_decrease = (double)(next(&b) % 4) / 10.0;
    p.min_weight_fraction_leaf = (double)(next(&b) % 8) / 10.0;
    p.bootstrap = next(&b) % 3;
    p.max_samples.value = (double)(next(&b) % 12) / 10.0;
    p.max_samples.form = p.max_samples.value == 0.0 ? SPORF_FORM_ALL : SPORF_FORM_FRACTION;
    p.class_weight = next(&b) % 4;
    p.honest_fraction = (double)(next(&b) % 11) / 10.0;
    p.honest_prior = next(&b) % 4;
    p.random_state = next(&b);
    /* from bits already drawn, so the kept inputs keep their meaning: a
     * regression forest keeps quantiles half the time; now and then another
     * task asks for them and must be refused */
    p.quantiles = (task == 1 && (p.random_state & 2)) || p.random_state % 17 == 0;
    p.first_tree = next(&b) % 3;
    if (p.random_state % 11 == 6) { /* from bits already drawn: the leaf size chosen out of bag */
        p.min_samples_leaf.form = SPORF_FORM_AUTO;
        p.min_samples_leaf.value = 0.0;
    }
    p.n_jobs = 1 + next(&b) % 2;
    const uint8_t bins = next(&b); /* histograms (nodes of 16+ rows) or the exact search */
    p.max_bins = bins % 4 == 0 ? 0 : 1 + bins % 40;
    p.splitter = next(&b) % 8;                   /* best, random, mixed, auto, auto as chosen (3), an invalid code */
    const uint8_t patch = next(&b);
    const int64_t n = 1 + next(&b) % 48, d = 1 + next(&b) % 9;
    if (patch % 4 == 0) { /* a patch forest on a grid of d features */
        p.projection = SPORF_PROJ_PATCH;
        p.n_dims = 1 + patch / 4 % 2;
        p.patch_weights = next(&b) % 4;          /* uniform, gaussian, haar, an invalid code */
        p.data_dims[0] = p.n_dims == 1 ? d : 1;
        p.data_dims[1] = d;
        for (int k = 0; k < p.n_dims; k++) {
            p.min_patch_dims[k] = next(&b) % 3;  /* 0: the default */
            p.max_patch_dims[k] = next(&b) % 5;
            p.boundary[k] = next(&b) % 4;
            p.dim_contiguous[k] = next(&b) % 2;
        }
    }
    const int32_t K = 1 + next(&b) % 4;
    double *X = malloc((size_t)(n * d) * sizeof *X), *yr = malloc((size_t)n * sizeof *yr);
    float *Xf = NULL; /* the float copy, when the fit reads floats */
    double *w = malloc((size_t)n * sizeof *w), *cw = malloc((size_t)K * sizeof *cw);
    int32_t *y = malloc((size_t)n * sizeof *y), *ev = malloc((size_t)n * sizeof *ev);
    if (!X || !yr || !w || !cw || !y || !ev)
        goto done;
    for (int64_t i = 0; i < n * d; i++) X[i] = value(&b);
    for (int64_t i = 0; i < n; i++) {
        const uint8_t c = next(&b);
        y[i] = (int32_t)(c % (K + 1)) - (c == 7); /* occasionally out of range */
        yr[i] = value(&b);
        w[i] = (double)(next(&b) % 4);
    }
    for (int32_t k = 0; k < K; k++) cw[k] = (double)(next(&b) % 3);
    const int use_w = next(&b) % 2;
    const int fortran = next(&b) % 2;
    /* read last, so the kept inputs keep their meaning: a survival forest */
    const uint8_t surv_byte = next(&b);
    const int survival = task == 1 && surv_byte % 4 == 1;
    for (int64_t i = 0; i < n; i++) ev[i] = surv_byte % 8 == 5 ? y[i] : (y[i] & 1); /* now and then not 0/1 */
    if (survival)
        p.criterion = SPORF_CRIT_LOGRANK + crit % 2;
    /* from bits already drawn: a survival forest's events to split (0-3);
     * now and then another forest asks for them and must be refused */
    p.min_events_split = survival ? surv_byte / 8 % 4 : p.random_state % 23 == 0;
    sporf_matrix m = fortran ? (sporf_matrix){X, n, d, 1, n, NULL} : (sporf_matrix){X, n, d, d, 1, NULL};
    /* from bits already drawn: now and then the fit reads floats (X rounded
     * to them, so the other calls read the same values as doubles; a value
     * beyond float's range becomes infinity, which the fit must refuse) */
    const int floats = p.random_state % 7 == 4;
    if (floats)
        Xf = malloc((size_t)(n * d) * sizeof *Xf);
    if (floats && !Xf)
        goto done;
    for (int64_t i = 0; floats && i < n * d; i++) {
        Xf[i] = (float)X[i];
        X[i] = (double)Xf[i];
    }
    sporf_matrix mfit = m;
    if (floats) {
        mfit.data = NULL;
        mfit.data32 = Xf;
    }

    sporf_forest *f = (sporf_forest *)&f;
    sporf_error err;
    /* from bits already drawn: now and then two outputs per row (the labels
     * and a shifted copy, the response and the weights) */
    const int two = task != 2 && p.random_state % 5 == 3;
    double *oob = malloc((size_t)(n * K * 2) * sizeof *oob);
    int64_t *cnt = malloc((size_t)n * sizeof *cnt);
    int32_t *y2 = malloc((size_t)(2 * n) * sizeof *y2);
    double *yr2 = malloc((size_t)(2 * n) * sizeof *yr2);
    if (!oob || !cnt || !y2 || !yr2) {
        free(oob), free(cnt), free(y2), free(yr2);
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        y2[2 * i] = y[i];
        y2[2 * i + 1] = y[i] >= 0 ? (y[i] + 1) % K : y[i];
        yr2[2 * i] = yr[i];
        yr2[2 * i + 1] = w[i];
    }
    const int32_t classes2[2] = {K, K};
    int rc;
    /* a float fit asks for out-of-bag outputs now and then, which it must refuse */
    double *oob_out = floats && p.random_state % 3 != 0 ? NULL : oob;
    int64_t *cnt_out = oob_out ? cnt : NULL;
    if (survival) {
        sporf_fit_data sd;
        memset(&sd, 0, sizeof sd);
        sd.response = SPORF_RESPONSE_SURVIVAL;
        sd.values = yr;
        sd.events = ev;
        sd.sample_weight = use_w ? w : NULL;
        rc = sporf_forest_fit(&p, &mfit, &sd, oob_out, cnt_out, NULL, NULL, &f, &err);
    } else if (two)
        rc = fit_outputs(&p, &mfit, 2, task == 0 ? y2 : NULL, task == 0 ? classes2 : NULL,
                                    task == 1 ? yr2 : NULL, use_w ? w : NULL, oob_out, cnt_out, NULL, NULL, &f, &err);
    else if (task == 0)
        rc = fit_classes(&p, &mfit, y, K, use_w ? w : NULL, cw, oob_out, cnt_out, NULL, NULL, &f, &err);
    else if (task == 1)
        rc = fit_values(&p, &mfit, yr, use_w ? w : NULL, oob_out, cnt_out, NULL, NULL, &f, &err);
    else
        rc = fit_no_response(&p, &mfit, use_w ? w : NULL, NULL, NULL, &f, &err);
    if (rc == SPORF_OK && (survival || (task == 1 && p.quantiles)) && !two && !floats)
        sample_fit(&p, X, n, d, fortran, yr, survival ? ev : NULL, use_w ? w : NULL);
    if (rc == SPORF_OK && task != 2 && p.min_samples_leaf.form == SPORF_FORM_AUTO) {
        /* the same response, as the fit above read it */
        sporf_fit_data fd;
        memset(&fd, 0, sizeof fd);
        fd.n_outputs = two ? 2 : 1;
        fd.sample_weight = use_w ? w : NULL;
        if (survival) {
            fd.response = SPORF_RESPONSE_SURVIVAL;
            fd.values = yr;
            fd.events = ev;
        } else if (task == 0) {
            fd.response = SPORF_RESPONSE_CLASSES;
            fd.codes = two ? y2 : y;
            fd.n_classes = two ? classes2 : &K;
            fd.class_weights = two ? NULL : cw;
        } else {
            fd.response = SPORF_RESPONSE_VALUES;
            fd.values = two ? yr2 : yr;
        }
        check_auto_shards(&p, &mfit, &fd, f);
    }
    if (rc != SPORF_OK) {
        REQUIRE(f == NULL && err.message[0] != '\0');
    } else {
        sporf_forest_info info;
        REQUIRE(sporf_forest_get_info(f, &info, NULL) == SPORF_OK);
        double *proba = malloc((size_t)(n * info.n_classes) * sizeof *proba);
        int64_t *leaves = malloc((size_t)(n * info.n_trees) * sizeof *leaves);
        if (proba && leaves) {
            if (task != 2 && sporf_forest_predict_proba(f, &m, 2, proba, NULL, NULL, NULL) == SPORF_OK && task == 0)
                for (int64_t i = 0; i < n * info.n_classes; i++) REQUIRE(proba[i] >= 0.0 && proba[i] <= 1.0 + 1e-12);
            sporf_forest_apply(f, &m, 1, leaves, NULL, NULL, NULL);
            if (task != 2 && p.bootstrap)
                sporf_forest_oob_predict(f, &m, 1, proba, NULL, NULL);
            if (survival) {
                const double at[3] = {1.0, 0.0, 4.0};
                double *sc = malloc((size_t)(3 * n) * sizeof *sc);
                if (sc && sporf_forest_predict_survival(f, &m, at, 3, SPORF_SURVIVAL_FUNCTION, 2, sc, NULL) == SPORF_OK)
                    for (int64_t i = 0; i < n; i++)
                        REQUIRE(sc[3 * i + 1] >= sc[3 * i] && sc[3 * i] >= sc[3 * i + 2] && sc[3 * i + 2] >= 0.0);
                if (sc && p.bootstrap)
                    sporf_forest_oob_survival(f, &m, at, 3, SPORF_RESTRICTED_MEAN, 1, sc, NULL);
                /* event-time intervals: scores in [-1/2, 1/2] or NaN, weights >= 0, ordered ends */
                double *ws = malloc((size_t)(2 * n) * sizeof *ws);
                if (ws && sc && p.bootstrap &&
                    sporf_forest_oob_survival_interval_scores(f, &m, yr, ev, 1, ws, ws + n, NULL) == SPORF_OK) {
                    for (int64_t i = 0; i < n; i++)
                        REQUIRE((isnan(ws[i]) || (ws[i] >= -0.5 && ws[i] <= 0.5)) && ws[n + i] >= 0.0);
                    if (sporf_forest_predict_survival_interval(f, &m, 0.8, ws, ws + n, n, 2, sc, NULL) == SPORF_OK)
                        for (int64_t i = 0; i < n; i++) REQUIRE(isnan(sc[2 * i]) || sc[2 * i] <= sc[2 * i + 1]);
                }
                free(ws);
                int64_t n_times = 0;
                REQUIRE(sporf_forest_unique_times(f, NULL, NULL, 0, &n_times, NULL) == SPORF_OK && n_times >= 1);
                free(sc);
            }
            if (p.quantiles) {
                const double probs[2] = {0.75, 0.25};
                double *q = malloc((size_t)(2 * n) * sizeof *q);
                if (q && sporf_forest_predict_quantiles(f, &m, probs, 2, 2, q, NULL) == SPORF_OK)
                    for (int64_t i = 0; i < n; i++) REQUIRE(isnan(q[2 * i]) || q[2 * i + 1] <= q[2 * i]);
                if (q && p.bootstrap)
                    sporf_forest_oob_quantiles(f, &m, probs, 2, 1, q, NULL);
                /* calibrated intervals: scores in [-1/2, 1/2] (or NaN), ordered ends */
                double *s = malloc((size_t)n * sizeof *s);
                if (q && s && p.bootstrap && sporf_forest_oob_interval_scores(f, &m, yr, 1, s, NULL) == SPORF_OK) {
                    for (int64_t i = 0; i < n; i++) REQUIRE(isnan(s[i]) || (s[i] >= -0.5 && s[i] <= 0.5));
                    if (sporf_forest_predict_interval(f, &m, 0.8, s, n, 2, q, NULL) == SPORF_OK)
                        for (int64_t i = 0; i < n; i++) REQUIRE(isnan(q[2 * i]) || q[2 * i] <= q[2 * i + 1]);
                    /* the last rows as a partition: their scores are the whole data's */
                    const int64_t first = n / 2;
                    const sporf_matrix part = fortran ? (sporf_matrix){X + first, n - first, d, 1, n, NULL}
                                                      : (sporf_matrix){X + first * d, n - first, d, d, 1, NULL};
                    double *sp = malloc((size_t)n * sizeof *sp);
                    if (sp && sporf_forest_oob_interval_scores_rows(f, &part, first, yr + first, 1, sp, NULL) == SPORF_OK)
                        REQUIRE(memcmp(sp, s + first, (size_t)(n - first) * sizeof *sp) == 0);
                    free(sp);
                }
                free(s);
                free(q);
            }
        }
        free(proba);
        free(leaves);
        int64_t *idx = malloc((size_t)n * sizeof *idx);
        double *sim = malloc((size_t)n * sizeof *sim);
        if (idx && sim && n > 1)
            sporf_forest_neighbors(f, &m, NULL, 1, 1, idx, sim, NULL, NULL, NULL);
        free(idx);
        free(sim);
        int64_t len = 0;
        sporf_forest_save(f, NULL, 0, &len, NULL);
        uint8_t *buf = malloc((size_t)len);
        if (buf) {
            REQUIRE(sporf_forest_save(f, buf, len, &len, NULL) == SPORF_OK);
            sporf_forest *g = NULL;
            REQUIRE(sporf_forest_load(buf, len, &g, &err) == SPORF_OK);
            sporf_forest_free(g);
        }
        free(buf);
        sporf_forest_free(f);
    }
    free(oob);
    free(cnt);
    free(y2);
    free(yr2);
done:
    free(Xf);
    free(X);
    free(yr);
    free(w);
    free(cw);
    free(y);
    free(ev);
    return 0;
}
