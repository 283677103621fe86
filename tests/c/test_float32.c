/* test_float32.c -- fits on float data (sporf_matrix.data32): the forest of
 * the same values as doubles, byte for byte, read in place (column-major)
 * or through a float copy (row-major); what refuses floats, refuses them. */
#include "fit_calls.h"
#include "check.h"

#include <string.h>

enum { N = 700, P = 7 };

/* Float-exact data with a signal in the first three features, NaN (missing)
 * in some rows when `missing`; y and yr its classes and responses. */
static void make_data(float *Xf, double *X, int32_t *y, double *yr, int missing)
{
    sporf_rng r;
    sporf_rng_seed(&r, 21, 0);
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < P; j++) {
            Xf[i * P + j] = (float)(sporf_rng_uniform(&r) * 4.0 - 2.0);
            if (missing && j < 2 && sporf_rng_below(&r, 10) == 0)
                Xf[i * P + j] = NAN;
            X[i * P + j] = (double)Xf[i * P + j];
        }
        const double a = isnan(X[i * P]) ? 0.0 : X[i * P], b = isnan(X[i * P + 1]) ? 0.0 : X[i * P + 1];
        yr[i] = a + b * X[i * P + 2] + 0.1 * sporf_rng_uniform(&r);
        y[i] = yr[i] > 0.0;
    }
}

/* Fit kind k (0 classification, 1 regression with quantiles and honest
 * trees, 2 unsupervised, 3 two outputs) on X; NULL on error. */
static sporf_forest *fit_kind(int k, const sporf_matrix *X, const int32_t *y, const double *yr)
{
    sporf_params p;
    sporf_params_init(&p);
    p.n_estimators = 12;
    p.random_state = 4;
    p.guided_features = 3; /* guided projections read the data too */
    sporf_forest *f = NULL;
    sporf_error err;
    int rc;
    if (k == 0) {
        rc = fit_classes(&p, X, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err);
    } else if (k == 1) {
        p.criterion = SPORF_CRIT_SQUARED_ERROR;
        p.quantiles = 1;
        p.honest_fraction = 0.5;
        rc = fit_values(&p, X, yr, NULL, NULL, NULL, NULL, NULL, &f, &err);
    } else if (k == 2) {
        p.criterion = SPORF_CRIT_FASTBIC;
        p.guided_features = 0;
        rc = fit_no_response(&p, X, NULL, NULL, NULL, &f, &err);
    } else {
        int32_t y2[2 * N], classes[2] = {2, 2};
        for (int i = 0; i < N; i++) {
            y2[2 * i] = y[i];
            y2[2 * i + 1] = !y[i] ^ (i % 7 == 0);
        }
        rc = fit_outputs(&p, X, 2, y2, classes, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err);
    }
    if (rc != SPORF_OK)
        printf("fit kind %d: %s\n", k, err.message);
    return rc == SPORF_OK ? f : NULL;
}

static void test_float_fits_equal_double_fits(void)
{
    float *Xf = malloc(sizeof(float) * N * P), *Xfc = malloc(sizeof(float) * N * P);
    double *X = malloc(sizeof(double) * N * P), *yr = malloc(sizeof(double) * N);
    int32_t *y = malloc(sizeof(int32_t) * N);
    for (int missing = 0; missing < 2; missing++) {
        make_data(Xf, X, y, yr, missing);
        for (int i = 0; i < N; i++) /* the column-major copy, read in place */
            for (int j = 0; j < P; j++)
                Xfc[j * N + i] = Xf[i * P + j];
        const sporf_matrix md = rowmajor(X, N, P);
        const sporf_matrix mrow = {NULL, N, P, P, 1, Xf};
        const sporf_matrix mcol = {NULL, N, P, 1, N, Xfc};
        for (int k = 0; k < 4; k++) {
            sporf_forest *fd = fit_kind(k, &md, y, yr), *fr = fit_kind(k, &mrow, y, yr),
                         *fc = fit_kind(k, &mcol, y, yr);
            int same = fd && fr && fc;
            if (same) {
                int64_t ld, lr, lc;
                uint8_t *bd = save(fd, &ld), *br = save(fr, &lr), *bc = save(fc, &lc);
                same = ld == lr && ld == lc && memcmp(bd, br, (size_t)ld) == 0 && memcmp(bd, bc, (size_t)ld) == 0;
                free(bd); free(br); free(bc);
            }
            CHECK(same, "kind %d%s: float rows and float columns grow the doubles' forest byte for byte", k,
                  missing ? " with missing values" : "");
            sporf_forest_free(fd); sporf_forest_free(fr); sporf_forest_free(fc);
        }
    }
    free(Xf); free(Xfc); free(X); free(yr); free(y);
}

static void test_what_refuses_floats(void)
{
    float *Xf = malloc(sizeof(float) * N * P);
    double *X = malloc(sizeof(double) * N * P), *yr = malloc(sizeof(double) * N), *out = malloc(sizeof(double) * N * 2);
    int32_t *y = malloc(sizeof(int32_t) * N);
    int64_t *count = malloc(sizeof(int64_t) * N);
    make_data(Xf, X, y, yr, 0);
    const sporf_matrix mf = {NULL, N, P, P, 1, Xf};
    sporf_params p;
    sporf_params_init(&p);
    p.n_estimators = 5;
    sporf_forest *f = NULL;
    sporf_error err;
    CHECK(fit_classes(&p, &mf, y, 2, NULL, NULL, out, count, NULL, NULL, &f, &err) == SPORF_E_ARG && !f &&
              strstr(err.message, "out-of-bag") != NULL,
          "a float fit refuses out-of-bag outputs: %s", err.message);
    sporf_tune_result tr;
    CHECK(tune_response(&p, SPORF_TUNE_DENSITY, &mf, y, 2, NULL, NULL, NULL, &tr, NULL, NULL, &f, &err) ==
                  SPORF_E_ARG && !f && strstr(err.message, "doubles") != NULL,
          "tune_oob refuses floats: %s", err.message);
    CHECK(fit_classes(&p, &mf, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_OK, "float fit");
    CHECK(sporf_forest_predict_proba(f, &mf, 1, out, NULL, NULL, &err) == SPORF_E_ARG &&
              strstr(err.message, "fit functions only") != NULL,
          "prediction refuses floats: %s", err.message);
    CHECK(sporf_forest_oob_predict(f, &mf, 1, out, count, &err) == SPORF_E_ARG, "the OOB pass refuses floats");
    const sporf_matrix md = rowmajor(X, N, P);
    CHECK(sporf_forest_oob_predict(f, &md, 1, out, count, &err) == SPORF_OK,
          "its out-of-bag results come from the doubles afterwards");
    sporf_forest_free(f);
    Xf[3 * P + 4] = INFINITY;
    f = NULL;
    CHECK(fit_classes(&p, &mf, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) == SPORF_E_ARG && !f &&
              strstr(err.message, "row 3, column 4") != NULL,
          "an infinite float is named: %s", err.message);
    free(Xf); free(X); free(yr); free(out); free(y); free(count);
}

int main(void)
{
    test_float_fits_equal_double_fits();
    test_what_refuses_floats();
    return check_summary();
}
