/* libFuzzer target: the model loader (sporf_forest_load) and everything a
 * loaded forest offers. Build and run with tools/fuzz.sh.
 *
 * A random mutation almost never keeps the checksum and the header's payload
 * length right, and the loader rejects it at once; so the target repairs
 * both before loading (the checks themselves are covered by the unit tests)
 * and the fuzzer reaches the parser: counts, indices, varints, trees, leaf
 * values, strings, quantile leaf rows. A forest that loads must then predict
 * (quantiles too), apply, report and
 * re-save, and what it saves must load again and re-save identically. */
#include "util/bytes.h"
#include "sporf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Crash on a broken invariant, so the fuzzer records the input. */
#define REQUIRE(cond) do { if (!(cond)) abort(); } while (0)

static void exercise(sporf_forest *f)
{
    sporf_forest_info info;
    REQUIRE(sporf_forest_get_info(f, &info, NULL) == SPORF_OK);
    const int64_t p = info.n_features, K = info.n_classes, n = 3;
    if (p > 4096 || info.n_trees > 256) /* keep each run short; the parse was the point */
        return;
    double *X = malloc((size_t)(n * p) * sizeof *X);
    double *proba = malloc((size_t)(n * K) * sizeof *proba);
    int64_t *leaves = malloc((size_t)(n * info.n_trees) * sizeof *leaves);
    double *imp = malloc((size_t)p * sizeof *imp);
    if (X && proba && leaves && imp) {
        for (int64_t i = 0; i < n * p; i++) X[i] = (double)((i * 7919) % 13) - 6.0;
        sporf_matrix m = {X, n, p, p, 1, NULL};
        if (info.task != SPORF_TASK_UNSUPERVISED && sporf_forest_predict_proba(f, &m, 1, proba, NULL, NULL, NULL) == SPORF_OK)
            for (int64_t i = 0; i < n * K; i++) REQUIRE(!isinf(proba[i]));
        if (sporf_forest_apply(f, &m, 2, leaves, NULL, NULL, NULL) == SPORF_OK)
            for (int64_t i = 0; i < n * info.n_trees; i++) REQUIRE(leaves[i] >= 0);
        if (info.task == SPORF_TASK_REGRESSION) { /* a quantile forest's leaf rows, or a clean refusal */
            const double probs[3] = {1.0, 0.0, 0.5};
            double q[9];
            if (sporf_forest_predict_quantiles(f, &m, probs, 3, 2, q, NULL) == SPORF_OK)
                for (int64_t i = 0; i < n; i++)
                    REQUIRE(!isinf(q[3 * i]) && (isnan(q[3 * i]) || (q[3 * i + 1] <= q[3 * i + 2] &&
                                                                      q[3 * i + 2] <= q[3 * i])));
        }
        int64_t levels_len = 0;
        REQUIRE(sporf_forest_get_levels(f, NULL, NULL, 0, &levels_len, NULL) == SPORF_OK && levels_len >= 0);
        sporf_forest_feature_importances(f, imp, NULL);
        sporf_forest_feature_usage(f, imp, NULL);
        int64_t np = 0, nnz = 0;
        sporf_forest_projection_importances(f, &np, &nnz, NULL, NULL, NULL, NULL, NULL);
    }
    free(X);
    free(proba);
    free(leaves);
    free(imp);

    int64_t len = 0;
    REQUIRE(sporf_forest_save(f, NULL, 0, &len, NULL) == SPORF_OK);
    uint8_t *buf = malloc((size_t)len), *again = malloc((size_t)len);
    if (buf && again) {
        REQUIRE(sporf_forest_save(f, buf, len, &len, NULL) == SPORF_OK);
        sporf_forest *g = NULL;
        REQUIRE(sporf_forest_load(buf, len, &g, NULL) == SPORF_OK);
        int64_t len2 = 0;
        REQUIRE(sporf_forest_save(g, again, len, &len2, NULL) == SPORF_OK && len2 == len);
        REQUIRE(memcmp(buf, again, (size_t)len) == 0);
        const sporf_forest *both[2] = {f, g};
        sporf_forest *m = NULL;
        REQUIRE(sporf_forest_merge(both, 2, &m, NULL) == SPORF_E_ARG && m == NULL); /* the same trees twice */
        sporf_forest_free(g);
    }
    free(buf);
    free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 32)
        return 0;
    uint8_t *copy = malloc(size);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    sporf_reseal(copy, (int64_t)size); /* payload length and checksum */
    sporf_forest *f = NULL;
    sporf_error err;
    if (sporf_forest_load(copy, (int64_t)size, &f, &err) == SPORF_OK) {
        exercise(f);
        sporf_forest_free(f);
    } else {
        REQUIRE(f == NULL && err.message[0] != '\0');
    }
    free(copy);
    return 0;
}
