/* C unit tests of the predict layer: every walk reaches the reference leaf,
 * the first bad value is named, unsupervised forests' neighbours and the
 * out-of-bag permutation importance. */
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

static void test_predict_names_first_nonfinite(void)
{
    enum { N = 200, M = 5000 };
    for (int wide = 0; wide < 2; wide++) {
        const int P = wide ? 300 : 4;
        double *X = malloc(sizeof(double) * N * P), *T = malloc(sizeof(double) * M * P);
        double *Tc = malloc(sizeof(double) * M * P), *out = malloc(sizeof(double) * M * 2);
        int64_t *leaves = malloc(sizeof(int64_t) * M * 5);
        int32_t y[N];
        sporf_rng r;
        sporf_rng_seed(&r, 4, 0);
        for (int i = 0; i < N * P; i++) X[i] = (double)sporf_rng_below(&r, 5);
        for (int i = 0; i < N; i++) y[i] = X[i * P] > 2.0;
        for (int i = 0; i < M * P; i++) T[i] = (double)sporf_rng_below(&r, 5);
        /* the first bad value in row order is T[2000, 1] (in the first of
         * two blocks with 2 threads); more in the second block */
        T[2000 * P + 2] = NAN;
        T[2000 * P + 1] = -INFINITY;
        T[4700 * P + 0] = INFINITY;
        T[4999 * P + 3] = INFINITY;
        T[4999 * P + 2] = NAN;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < P; j++) Tc[(int64_t)j * M + i] = T[(int64_t)i * P + j];
        sporf_params p;
        sporf_params_init(&p);
        p.n_estimators = 5;
        p.random_state = 2;
        sporf_matrix m = rowmajor(X, N, P), mt = rowmajor(T, M, P), mc = {Tc, M, P, 1, M, NULL};
        sporf_forest *f = NULL;
        sporf_error err;
        if (fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            CHECK(0, "fit: %s", err.message);
            continue;
        }
        for (int jobs = 1; jobs <= 2; jobs++) {
            CHECK(sporf_forest_predict_proba(f, &mt, jobs, out, NULL, NULL, &err) == SPORF_E_ARG &&
                      strstr(err.message, "X contains infinity (row 2000, column 1)"),
                  "%d features, %d thread(s): predict_proba names the first bad value: %s", P, jobs, err.message);
            CHECK(sporf_forest_predict_proba(f, &mc, jobs, out, NULL, NULL, &err) == SPORF_E_ARG &&
                      strstr(err.message, "(row 2000, column 1)"),
                  "%d features, column-major: %s", P, err.message);
            CHECK(sporf_forest_apply(f, &mt, jobs, leaves, NULL, NULL, &err) == SPORF_E_ARG &&
                      strstr(err.message, "(row 2000, column 1)"),
                  "%d features: apply names the first bad value: %s", P, err.message);
        }
        sporf_matrix few = rowmajor(T + 4698 * P, 3, P), tail = rowmajor(T + 2001 * P, 2999, P);
        CHECK(sporf_forest_predict_proba(f, &few, 1, out, NULL, NULL, &err) == SPORF_E_ARG &&
                  strstr(err.message, "(row 2, column 0)"),
              "%d features, 3 rows: %s", P, err.message);
        CHECK(sporf_forest_predict_proba(f, &tail, 2, out, NULL, NULL, &err) == SPORF_E_ARG &&
                  strstr(err.message, "(row 2699, column 0)"),
              "%d features, bad values in the last rows: %s", P, err.message);
        sporf_matrix clean = rowmajor(T, 2000, P);
        CHECK(sporf_forest_predict_proba(f, &clean, 2, out, NULL, NULL, &err) == SPORF_OK,
              "%d features: the rows before the first bad one predict", P);
        sporf_forest_free(f);
        free(X); free(T); free(Tc); free(out); free(leaves);
    }
}

/* The leaf of row x by the stored nodes and the fit's arithmetic, with no
 * inlining: the reference the prediction layout must reproduce exactly. */
static int32_t reference_leaf(const sporf_tree *t, const double *x)
{
    int32_t i = 0;
    while (t->nodes[i].left >= 0) {
        const sporf_node *nd = &t->nodes[i];
        double s = 0.0;
        for (int32_t k = 0; k < nd->proj_len; k++)
            s += t->proj_weight[nd->proj_start + k] * x[t->proj_feature[nd->proj_start + k]];
        i = s <= nd->threshold ? nd->left : nd->right;
    }
    return i;
}

/* The forest's K = n_classes values (class probabilities, or a regression's
 * mean) of the M rows of T (P columns, row-major) into the zeroed want
 * (M x K): each tree's reference leaf values summed in tree order, then
 * scaled by 1 / n_trees -- the arithmetic every walk of
 * sporf_forest_predict_proba must reproduce bit for bit. */
static void reference_proba(const sporf_forest *f, const double *T, int M, int P, double *want)
{
    const int K = f->n_classes;
    for (int64_t t = 0; t < f->n_trees; t++) {
        const sporf_tree *tr = &f->trees[t];
        for (int i = 0; i < M; i++) {
            const int32_t lf = reference_leaf(tr, T + (int64_t)i * P);
            for (int k = 0; k < K; k++)
                want[(int64_t)i * K + k] += tr->leaf_values[(int64_t)tr->nodes[lf].right * K + k];
        }
    }
    for (int i = 0; i < M * K; i++) want[i] *= 1.0 / (double)f->n_trees;
}

/* v[0..n) uniform on [-0.5, 0.5): the tests' rows. */
static void fill_centred(double *v, int64_t n, sporf_rng *r)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = sporf_rng_uniform(r) - 0.5;
}

/* Move a third of v's n values (on a grid of halves) off the grid by less
 * than float precision sees: by 1e-12, which rounds back to the grid value
 * in float (a tie for a float walk), or by 1-6 units of 2^-24 relative,
 * where the float sum of a projection may round to either side of the
 * threshold its double sum is just off. A float walk must decide them in
 * double. */
static void nudge_off_grid(double *v, int64_t n, sporf_rng *r)
{
    for (int64_t i = 0; i < n; i++) {
        if (sporf_rng_below(r, 3) != 0)
            continue;
        const double sign = sporf_rng_below(r, 2) ? 1.0 : -1.0;
        if (sporf_rng_below(r, 2))
            v[i] += sign * 1e-12;
        else
            v[i] *= 1.0 + sign * (double)(1 + sporf_rng_below(r, 6)) * 0x1p-24;
    }
}

static void test_traversal_matches_reference(void)
{
    /* Integer training data puts thresholds on half-integers; test rows on a
     * half-integer grid then land exactly on thresholds, where a wrong sign
     * fold (<= against <) would send them the other way. */
    enum { N = 600, P = 6, M = 2003 };
    double *X = malloc(sizeof(double) * N * P), *T = malloc(sizeof(double) * M * P);
    int32_t *y = malloc(sizeof(int32_t) * N), *leaf = malloc(sizeof(int32_t) * M);
    sporf_rng r;
    sporf_rng_seed(&r, 7, 0);
    for (int i = 0; i < N; i++) {
        int s = 0;
        for (int j = 0; j < P; j++) {
            X[i * P + j] = (double)sporf_rng_below(&r, 4);
            s += (int)X[i * P + j] * (j % 2 ? -1 : 1);
        }
        y[i] = (s > 0) + (s > 2);
    }
    /* Rows 0..M/2: on the grid. The rest: a third of the values moved off
     * it, within float precision, so a float walk cannot tell the side. */
    for (int i = 0; i < M * P; i++)
        T[i] = 0.5 * (double)sporf_rng_below(&r, 8) - 0.5;
    nudge_off_grid(T + M / 2 * P, (int64_t)(M - M / 2) * P, &r);
    float *Tf = malloc(sizeof(float) * M * P);
    double *Tc = malloc(sizeof(double) * M * P); /* T by columns */
    for (int i = 0; i < M * P; i++) {
        Tf[i] = (float)T[i];
        Tc[(i % P) * M + i / P] = T[i];
    }
    int32_t *idx = malloc(sizeof(int32_t) * 2 * M);
    sporf_part_frame stack[64];
    int ok = 1, float_ok = 1, part_ok = 1, cols_ok = 1, vec_ok = 1, kinds_seen[4] = {0, 0, 0, 0};
    /* axis; sparse with 1-6 non-zeros per projection; sparse and near dense
     * (6 of 6 features: side-buffer splits) */
    for (int proj = 0; proj < 3; proj++) {
        sporf_params p;
        sporf_params_init(&p);
        p.n_estimators = 20;
        p.projection = proj ? SPORF_PROJ_SPARSE : SPORF_PROJ_AXIS;
        p.feature_combinations = proj == 2 ? 4.5 : 2.0;
        p.random_state = 11;
        sporf_matrix m = rowmajor(X, N, P);
        sporf_forest *f = NULL;
        sporf_error err;
        if (fit_classes(&p, &m, y, 3, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            CHECK(0, "fit: %s", err.message);
            continue;
        }
        const sporf_packed *pk = f->packed;
        /* The plain proba: reference leaves, summed in tree order. */
        double *want_proba = calloc((size_t)M * 3, sizeof(double)), *got_proba = malloc(sizeof(double) * M * 3);
        int64_t *got_apply = malloc(sizeof(int64_t) * M * (size_t)f->n_trees);
        for (int64_t t = 0; t < f->n_trees; t++) {
            sporf_tree *tr = &f->trees[t];
            ok &= tr->pnodes == NULL; /* a grown tree keeps only the packed layout */
            sporf_tree_prepare(tr);   /* the plain layout, for comparison */
            const sporf_pnode *base = pk->nodes + pk->bin_offset[pk->tree_bin[t]];
            for (int64_t i = pk->bin_offset[pk->tree_bin[t]]; i < pk->bin_offset[pk->tree_bin[t] + 1]; i++) {
                const sporf_pnode *q = &pk->nodes[i];
                const uint32_t kind = sporf_pnode_kind(q);
                /* the slots after a node with extensions are not nodes: skip them */
                if (kind == SPORF_PN_WIDE)
                    kinds_seen[3]++;
                else if (kind == SPORF_PN_GENERAL)
                    kinds_seen[2]++;
                else if (kind != SPORF_PN_LEAF)
                    kinds_seen[kind != SPORF_PN_SINGLE]++;
                if (kind != SPORF_PN_LEAF)
                    i += sporf_pnode_tail_slots(q);
            }
            sporf_nodes_find_leaves(tr->pnodes, 0, tr, T, P, 1, M, leaf, 0);
            for (int i = 0; i < M; i++) {
                const int32_t want = reference_leaf(tr, T + i * P);
                ok &= tr->pnodes[leaf[i]].link == want;
                ok &= tr->pnodes[sporf_tree_find_leaf(tr, T + i * P, 1)].link == want;
                ok &= sporf_pnode_leaf_slot(&tr->pnodes[leaf[i]]) == tr->nodes[want].right;
                ok &= base[sporf_nodes_find_leaf(base, pk->root[t], tr, T + i * P, 1)].link == want;
                for (int k = 0; k < 3; k++)
                    want_proba[i * 3 + k] += tr->leaf_values[(int64_t)tr->nodes[want].right * 3 + k];
            }
            for (int single = 0; single <= pk->single_only; single++) {
                sporf_nodes_find_leaves(base, pk->root[t], tr, T, P, 1, M, leaf, single);
                for (int i = 0; i < M; i++)
                    ok &= base[leaf[i]].link == reference_leaf(tr, T + i * P);
                /* the partition walk (predict takes it for narrow rows); a stack of 3
                 * frames makes it walk the ranges below depth 1 row by row */
                for (int cap = 3; cap <= 64; cap += 61) {
                    /* on the rows, on float copies, and on the rows' columns
                     * for every range (col_min 1) or the large ones */
                    for (int copy = 0; copy < 4; copy++) {
                        /* and with the splits of eight rows at a time, where the CPU has them */
                        for (int vec = 0; vec <= sporf_vec_enabled(); vec++) {
                            const int on_floats = copy == 1;
                            sporf_nodes_find_leaves_part(base, pk->root[t], tr, T, P, 1, M, leaf, idx, idx + M, stack,
                                                         cap, on_floats ? Tf : NULL, P, copy >= 2 ? Tc : NULL,
                                                         copy == 2 ? 1 : 512, NULL, vec);
                            int *walk_ok = vec ? &vec_ok : on_floats ? &float_ok : copy >= 2 ? &cols_ok : &part_ok;
                            for (int i = 0; i < M; i++)
                                *walk_ok &= base[leaf[i]].link == reference_leaf(tr, T + i * P);
                        }
                    }
                }
                /* the float lanes (axis forests; predict takes them on wide rows) */
                if (single) {
                    sporf_nodes_find_leaves_f32(base, pk->root[t], tr, Tf, P, T, P, 1, M, leaf);
                    for (int i = 0; i < M; i++)
                        float_ok &= base[leaf[i]].link == reference_leaf(tr, T + i * P);
                }
            }
            sporf_tree_unprepare(tr);
        }
        for (int i = 0; i < M * 3; i++) want_proba[i] *= 1.0 / (double)f->n_trees;
        sporf_matrix mt = rowmajor(T, M, P);
        CHECK(sporf_forest_predict_proba(f, &mt, 2, got_proba, NULL, NULL, &err) == SPORF_OK, "predict");
        CHECK(memcmp(got_proba, want_proba, sizeof(double) * M * 3) == 0,
              "packed predict_proba equals the plain traversal's sums bit for bit");
        /* one thread: a block of all M rows (too few for a column copy; the
         * general-split test's blocks of 16,384 rows read one) */
        CHECK(sporf_forest_predict_proba(f, &mt, 1, got_proba, NULL, NULL, &err) == SPORF_OK, "predict");
        CHECK(memcmp(got_proba, want_proba, sizeof(double) * M * 3) == 0,
              "predict_proba on one block of %d rows equals the plain traversal's sums", M);
        /* 1-7 rows take the walk of every tree at once */
        int small_ok = 1;
        for (int64_t nr = 1; nr < 8; nr++) {
            sporf_matrix ms = rowmajor(T + 5 * P, nr, P);
            small_ok &= sporf_forest_predict_proba(f, &ms, 1, got_proba, NULL, NULL, &err) == SPORF_OK &&
                        memcmp(got_proba, want_proba + 5 * 3, sizeof(double) * (size_t)nr * 3) == 0;
            small_ok &= sporf_forest_apply(f, &ms, 1, got_apply, NULL, NULL, &err) == SPORF_OK;
            for (int64_t i = 0; i < nr; i++)
                for (int64_t t = 0; t < f->n_trees; t++)
                    small_ok &= got_apply[i * f->n_trees + t] == reference_leaf(&f->trees[t], T + (5 + i) * P);
        }
        CHECK(small_ok, "1 to 7 rows: predict_proba and apply equal the plain traversal's");
        CHECK(sporf_forest_apply(f, &mt, 2, got_apply, NULL, NULL, &err) == SPORF_OK, "apply");
        int apply_ok = 1;
        for (int i = 0; i < M; i++)
            for (int64_t t = 0; t < f->n_trees; t++)
                apply_ok &= got_apply[i * f->n_trees + t] == reference_leaf(&f->trees[t], T + i * P);
        CHECK(apply_ok, "packed apply returns the reference leaves");
        CHECK(sporf_forest_apply(f, &mt, 1, got_apply, NULL, NULL, &err) == SPORF_OK, "apply");
        apply_ok = 1;
        for (int i = 0; i < M; i++)
            for (int64_t t = 0; t < f->n_trees; t++)
                apply_ok &= got_apply[i * f->n_trees + t] == reference_leaf(&f->trees[t], T + i * P);
        CHECK(apply_ok, "apply on one block of %d rows returns the reference leaves", M);
        CHECK(pk->n_bins == (f->n_trees + SPORF_BIN_TREES - 1) / SPORF_BIN_TREES, "%lld bins", (long long)pk->n_bins);
        CHECK(pk->single_only == !proj, "an axis forest (only) takes the single-feature step");
        free(want_proba);
        free(got_proba);
        free(got_apply);
        sporf_forest_free(f);
    }
    CHECK(ok, "inlined and lockstep traversal reach the reference leaf, ties included");
    CHECK(float_ok, "the float walks (lanes, partition) reach the reference leaf, rows that tie only in float included");
    CHECK(part_ok, "the partition walk reaches the reference leaf, ties included");
    CHECK(cols_ok, "the partition walk on the rows' columns reaches the reference leaf");
    CHECK(vec_ok, "the partition walk splitting eight rows at a time reaches the reference leaf, ties included");
    CHECK(kinds_seen[0] > 0 && kinds_seen[1] > 0 && kinds_seen[2] > 0 && kinds_seen[3] > 0,
          "test covers single, inlined multi-feature, general and wide nodes (%d %d %d %d)",
          kinds_seen[0], kinds_seen[1], kinds_seen[2], kinds_seen[3]);
    free(X); free(T); free(Tf); free(Tc); free(idx); free(y); free(leaf);
}

/* Rows wider than 1 KB are walked on float copies (predict.c): by the
 * partition walk, or by lanes in axis forests on rows over 4 KB. With P
 * features predict_proba still equals the plain traversal's, for rows on
 * the training grid (projections exactly on thresholds) and rows a hair
 * off it, which tie only in float. */
static void check_wide_rows_float_walk(const int P)
{
    enum { N = 400, M = 500, K = 2 };
    double *X = malloc(sizeof(double) * N * P), *T = malloc(sizeof(double) * M * P);
    double *want = calloc((size_t)M * K, sizeof(double)), *got = malloc(sizeof(double) * M * K);
    int32_t *y = malloc(sizeof(int32_t) * N);
    sporf_rng r;
    sporf_rng_seed(&r, 5, 0);
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < P; j++)
            X[i * P + j] = (double)sporf_rng_below(&r, 4);
        y[i] = X[i * P] + X[i * P + 1] - X[i * P + 2] > 2.0;
    }
    for (int i = 0; i < M * P; i++)
        T[i] = 0.5 * (double)sporf_rng_below(&r, 8) - 0.5;
    nudge_off_grid(T + M / 2 * P, (int64_t)(M - M / 2) * P, &r);
    /* values float cannot hold: beyond its range (the float sum of two such
     * values of opposite sign is NaN, the double sum finite) and below it */
    for (int i = 0; i < 60; i++)
        for (int j = 0; j < 3; j++) {
            const double tiny = sporf_rng_below(&r, 2) ? 1e-300 : -1e-300;
            const double huge = sporf_rng_below(&r, 2) ? 1e39 : -1e39;
            T[(int64_t)i * P + j] = i < 40 ? huge : tiny;
        }
    /* the same rows column-major (column stride M) */
    double *Tc = malloc(sizeof(double) * M * P);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < P; j++)
            Tc[(int64_t)j * M + i] = T[(int64_t)i * P + j];
    for (int proj = 0; proj < 2; proj++) {
        sporf_params p;
        sporf_params_init(&p);
        p.n_estimators = 12;
        p.projection = proj ? SPORF_PROJ_AXIS : SPORF_PROJ_SPARSE;
        p.feature_combinations = 2.0;
        p.random_state = 3;
        sporf_matrix m = rowmajor(X, N, P), mt = rowmajor(T, M, P), mc = {Tc, M, P, 1, M, NULL};
        sporf_forest *f = NULL;
        sporf_error err;
        if (fit_classes(&p, &m, y, K, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            CHECK(0, "fit: %s", err.message);
            continue;
        }
        memset(want, 0, sizeof(double) * M * K);
        for (int64_t t = 0; t < f->n_trees; t++)
            for (int i = 0; i < M; i++) {
                const sporf_tree *tr = &f->trees[t];
                const int32_t lf = reference_leaf(tr, T + i * P);
                for (int k = 0; k < K; k++)
                    want[i * K + k] += tr->leaf_values[(int64_t)tr->nodes[lf].right * K + k];
            }
        for (int i = 0; i < M * K; i++) want[i] *= 1.0 / (double)f->n_trees;
        CHECK(f->packed->single_only == proj, "%s forest", proj ? "an axis" : "a sparse");
        CHECK(sporf_forest_predict_proba(f, &mt, 2, got, NULL, NULL, &err) == SPORF_OK &&
                  memcmp(got, want, sizeof(double) * M * K) == 0,
              "rows of %d features: predict_proba equals the plain traversal's bit for bit (%s)", P,
              proj ? "axis" : "sparse");
        CHECK(sporf_forest_predict_proba(f, &mc, 2, got, NULL, NULL, &err) == SPORF_OK &&
                  memcmp(got, want, sizeof(double) * M * K) == 0,
              "the same rows column-major: the same probabilities (%s)", proj ? "axis" : "sparse");
        sporf_forest_free(f);
    }
    free(X); free(T); free(Tc); free(want); free(got); free(y);
}

static void test_wide_rows_float_walk(void)
{
    check_wide_rows_float_walk(300); /* 2.4 KB rows: the float partition walk */
    check_wide_rows_float_walk(600); /* 4.8 KB rows: axis forests take the float lanes */
}

static void test_unsupervised_forest(void)
{
    enum { N = 300, P = 6, K = 10 };
    static double X[N * P];
    sporf_rng rng;
    sporf_rng_seed(&rng, 9, 0);
    /* Three clusters in the first two features, four noise features. */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < P; j++)
            X[i * P + j] = normal(&rng) + (j < 2 ? 8.0 * (i % 3) : 0.0);
    sporf_matrix m = rowmajor(X, N, P);
    sporf_params p;
    sporf_params_init(&p);
    p.criterion = SPORF_CRIT_FASTBIC;
    p.n_estimators = 30;
    p.min_samples_split.value = 18;
    p.random_state = 3;
    sporf_error err;
    sporf_forest *f1 = NULL, *f2 = NULL;
    p.n_jobs = 1;
    CHECK(fit_no_response(&p, &m, NULL, NULL, NULL, &f1, &err) == SPORF_OK, "unsupervised fit: %s",
          err.message);
    p.n_jobs = 2;
    CHECK(fit_no_response(&p, &m, NULL, NULL, NULL, &f2, &err) == SPORF_OK, "unsupervised fit, 2 threads");
    if (!f1 || !f2) return;
    int64_t l1, l2;
    uint8_t *b1 = save(f1, &l1), *b2 = save(f2, &l2);
    CHECK(l1 == l2 && memcmp(b1, b2, (size_t)l1) == 0, "unsupervised: identical bytes for 1 and 2 threads");
    sporf_forest *g = NULL;
    CHECK(sporf_forest_load(b1, l1, &g, &err) == SPORF_OK, "unsupervised model loads: %s", err.message);
    sporf_forest_info info;
    sporf_forest_get_info(f1, &info, &err);
    CHECK(info.task == SPORF_TASK_UNSUPERVISED, "task is unsupervised");
    double dummy[N];
    CHECK(sporf_forest_predict_proba(f1, &m, 1, dummy, NULL, NULL, &err) == SPORF_E_ARG,
          "an unsupervised forest refuses predict_proba");

    int64_t *idx = malloc(N * K * sizeof *idx), *idx2 = malloc(N * K * sizeof *idx2);
    double *sim = malloc(N * K * sizeof *sim), *sim2 = malloc(N * K * sizeof *sim2);
    double *dense = malloc((size_t)N * N * sizeof *dense);
    CHECK(sporf_forest_neighbors(f1, &m, NULL, K, 1, idx, sim, NULL, NULL, &err) == SPORF_OK, "neighbors: %s",
          err.message);
    CHECK(sporf_forest_neighbors(g, &m, NULL, K, 2, idx2, sim2, NULL, NULL, &err) == SPORF_OK, "neighbors, 2 threads");
    CHECK(memcmp(idx, idx2, N * K * sizeof *idx) == 0 && memcmp(sim, sim2, N * K * sizeof *sim) == 0,
          "neighbors do not depend on threads or on a save/load round trip");
    int same = 0, self = 0, ordered = 1;
    for (int i = 0; i < N; i++)
        for (int a = 0; a < K; a++) {
            same += idx[i * K + a] % 3 == i % 3;
            self += idx[i * K + a] == i;
            if (a > 0 && sim[i * K + a] > sim[i * K + a - 1]) ordered = 0;
        }
    CHECK(same > 0.95 * N * K, "neighbours share the cluster: %d of %d", same, N * K);
    CHECK(self == 0 && ordered, "no row is its own neighbour; similarities descend");
    CHECK(sporf_forest_proximity_dense(f1, &m, NULL, 2, dense, NULL, NULL, &err) == SPORF_OK, "dense proximity");
    int sym = 1, diag = 1, agree = 1;
    for (int i = 0; i < N; i++) {
        diag &= dense[i * N + i] == 1.0;
        for (int j = 0; j < N; j++) sym &= dense[i * N + j] == dense[j * N + i];
        for (int a = 0; a < K; a++) agree &= dense[i * N + idx[i * K + a]] == sim[i * K + a];
        /* the k-th neighbour is at least as similar as any row not listed */
        for (int j = 0; j < N; j++) {
            int listed = j == i;
            for (int a = 0; a < K; a++) listed |= idx[i * K + a] == j;
            if (!listed && dense[i * N + j] > sim[i * K + K - 1]) agree = 0;
        }
    }
    CHECK(sym && diag && agree, "dense proximity: symmetric, ones on the diagonal, matches the neighbours");
    /* New rows: the training rows as queries give the self-similarity 1 first. */
    CHECK(sporf_forest_neighbors(f1, &m, &m, 1, 1, idx2, sim2, NULL, NULL, &err) == SPORF_OK && sim2[0] == 1.0,
          "query rows equal to reference rows are fully similar to themselves");
    CHECK(sporf_forest_neighbors(f1, &m, NULL, N, 1, idx2, sim2, NULL, NULL, &err) == SPORF_E_ARG,
          "k = n (the row itself excluded) is refused: %s", err.message);
    CHECK(sporf_forest_neighbors(f1, &m, NULL, 0, 1, idx2, sim2, NULL, NULL, &err) == SPORF_E_ARG, "k = 0 is refused");
    /* Parameters that do not fit an unsupervised forest. */
    sporf_forest *h = NULL;
    p.criterion = SPORF_CRIT_GINI;
    CHECK(fit_no_response(&p, &m, NULL, NULL, NULL, &h, &err) == SPORF_E_ARG && !h,
          "unsupervised fit with gini is refused");
    p.criterion = SPORF_CRIT_TWOMEANS;
    p.honest_fraction = 0.5;
    CHECK(fit_no_response(&p, &m, NULL, NULL, NULL, &h, &err) == SPORF_E_ARG && !h,
          "unsupervised honest forest is refused");
    int32_t y[N] = {0};
    p.honest_fraction = 0.0;
    CHECK(fit_classes(&p, &m, y, 1, NULL, NULL, NULL, NULL, NULL, NULL, &h, &err) == SPORF_E_ARG && !h,
          "a classifier with criterion twomeans is refused");
    free(idx); free(idx2); free(sim); free(sim2); free(dense);
    free(b1); free(b2);
    sporf_forest_free(f1); sporf_forest_free(f2); sporf_forest_free(g);
}

/* Out-of-bag permutation importance through the public API: the features y
 * depends on stand out, the result is the same for 1 and 2 threads, with and
 * without the standard deviations, and what it cannot do is refused (X is
 * only checked to have at least the rows each tree drew: like the
 * out-of-bag predictions, it must be the training data). */
static void test_permutation_importance(void)
{
    enum { N = 400, P = 6 };
    static double X[N * P], yr[N];
    static int32_t y[N];
    sporf_rng rng;
    sporf_rng_seed(&rng, 17, 0);
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < P; j++) X[i * P + j] = (double)sporf_rng_below(&rng, 1000000) / 1e6 - 0.5;
        yr[i] = X[i * P] + X[i * P + 1];
        y[i] = yr[i] > 0.0;
    }
    X[5 * P + 3] = NAN; /* a missing value: walked as the splits learned */
    sporf_matrix m = rowmajor(X, N, P);
    sporf_params p;
    sporf_params_init(&p);
    p.n_estimators = 30;
    p.random_state = 5;
    sporf_error err;
    for (int task = 0; task < 2; task++) {
        sporf_forest *f = NULL;
        sporf_params q = p;
        if (task == 1) q.criterion = SPORF_CRIT_SQUARED_ERROR;
        int rc = task == 0 ? fit_classes(&q, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err)
                           : fit_values(&q, &m, yr, NULL, NULL, NULL, NULL, NULL, &f, &err);
        CHECK(rc == SPORF_OK, "task %d fit: %s", task, err.message);
        if (rc != SPORF_OK) continue;
        double mean1[P], sd1[P], mean2[P];
        const int32_t *yc = task == 0 ? y : NULL;
        const double *yv = task == 1 ? yr : NULL;
        rc = sporf_forest_permutation_importance(f, &m, yc, yv, 1, NULL, NULL, mean1, sd1, &err);
        CHECK(rc == SPORF_OK, "task %d: %s", task, err.message);
        rc = sporf_forest_permutation_importance(f, &m, yc, yv, 2, NULL, NULL, mean2, NULL, &err);
        CHECK(rc == SPORF_OK && memcmp(mean1, mean2, sizeof mean1) == 0, "task %d: the same for 1 and 2 threads",
              task);
        double noise = 0.0;
        for (int j = 2; j < P; j++) noise = fmax(noise, fabs(mean1[j]));
        CHECK(mean1[0] > 5 * noise && mean1[1] > 5 * noise && sd1[0] > 0.0,
              "task %d: informative %g %g, noise up to %g", task, mean1[0], mean1[1], noise);
        /* no response, the wrong rows, class codes out of range */
        CHECK(sporf_forest_permutation_importance(f, &m, NULL, NULL, 1, NULL, NULL, mean1, NULL, &err) == SPORF_E_ARG,
              "task %d: no response refused", task);
        if (task == 0) {
            static int32_t bad[N];
            memcpy(bad, y, sizeof bad);
            bad[0] = 7;
            CHECK(sporf_forest_permutation_importance(f, &m, bad, NULL, 1, NULL, NULL, mean1, NULL, &err) ==
                          SPORF_E_ARG && strstr(err.message, "not a class code"),
                  "a class code out of range refused: %s", err.message);
        }
        sporf_forest_free(f);
    }
    sporf_forest *nb = NULL;
    p.bootstrap = 0;
    CHECK(fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &nb, &err) == SPORF_OK, "fit");
    double mean[P];
    CHECK(sporf_forest_permutation_importance(nb, &m, y, NULL, 1, NULL, NULL, mean, NULL, &err) == SPORF_E_ARG &&
              strstr(err.message, "bootstrap"),
          "without the bootstrap: %s", err.message);
    sporf_forest_free(nb);
}


/* General splits (weights not +-1) keep up to SPORF_PN_INLINE_TERMS terms
 * beside the split and read longer ones from the tree's side buffer; a call
 * of few rows walks every tree at once, and a call's short last block too.
 * Every way reaches the reference leaves, and the probabilities are the
 * reference sums bit for bit, for every length of projection the walks
 * treat apart (1 to SPORF_PN_SHORT_TERMS terms without a loop, each length
 * up to SPORF_PN_INLINE_TERMS its own loop in the partition walk, longer
 * ones from the side buffer). */
static void test_general_splits_and_few_rows(void)
{
    enum { N = 500, P = 14, M = 32768 + 3 }; /* M: one full block and a short one, with one thread */
    double *X = malloc(sizeof(double) * N * P), *T = malloc(sizeof(double) * M * P);
    int32_t *y = malloc(sizeof(int32_t) * N);
    sporf_rng r;
    sporf_rng_seed(&r, 3, 0);
    fill_centred(X, (int64_t)N * P, &r);
    for (int i = 0; i < N; i++)
        y[i] = X[i * P] + X[i * P + 1] - X[i * P + 2] > 0.0;
    fill_centred(T, (int64_t)M * P, &r);
    static const double lengths[] = {1.0, 2.0, 3.0, 4.0, 5.0, 8.0, 12.0};
    for (size_t c = 0; c < sizeof lengths / sizeof lengths[0]; c++) {
        const int dense = lengths[c] > SPORF_PN_INLINE_TERMS;
        sporf_params p;
        sporf_params_init(&p);
        p.n_estimators = 30; /* several bins, and more trees than a bin in one few-rows walk */
        p.projection = SPORF_PROJ_FRC;
        p.feature_combinations = lengths[c]; /* terms of every projection (random weights) */
        p.random_state = 5;
        sporf_matrix m = rowmajor(X, N, P);
        sporf_forest *f = NULL;
        sporf_error err;
        if (fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            CHECK(0, "fit: %s", err.message);
            continue;
        }
        const sporf_packed *pk = f->packed;
        int64_t inline_terms = 0, side_buffer = 0;
        for (int64_t i = 0; i < pk->bin_offset[pk->n_bins]; i++) {
            const sporf_pnode *q = &pk->nodes[i];
            if (sporf_pnode_kind(q) == SPORF_PN_GENERAL) {
                if (q[1].u.ext.f1 < 0) inline_terms++;
                else side_buffer++;
            }
            if (!sporf_pnode_is_leaf(q))
                i += sporf_pnode_tail_slots(q);
        }
        if (dense)
            CHECK(side_buffer > 0 && inline_terms == 0, "%g-term splits read the side buffer (%lld)", lengths[c],
                  (long long)side_buffer);
        else
            CHECK(inline_terms > 0 && side_buffer == 0, "%g-term splits keep their terms inline (%lld)", lengths[c],
                  (long long)inline_terms);
        double *want = calloc((size_t)M * 2, sizeof(double)), *got = malloc(sizeof(double) * M * 2);
        int64_t *leaves = malloc(sizeof(int64_t) * 7 * (size_t)f->n_trees);
        reference_proba(f, T, M, P, want);
        sporf_matrix mt = rowmajor(T, M, P);
        CHECK(sporf_forest_predict_proba(f, &mt, 1, got, NULL, NULL, &err) == SPORF_OK &&
                  memcmp(got, want, sizeof(double) * M * 2) == 0,
              "%g-term general splits: a full and a short last block give the reference sums bit for bit",
              lengths[c]);
        CHECK(sporf_forest_predict_proba_rows(f, T, M, P, 2, got, &err) == SPORF_OK &&
                  memcmp(got, want, sizeof(double) * M * 2) == 0 &&
                  sporf_forest_predict_proba_rows(f, T + 11 * P, 1, P, 1, got, NULL) == SPORF_OK &&
                  memcmp(got, want + 11 * 2, sizeof(double) * 2) == 0,
              "%g-term general splits: the row-major entry point gives the same sums, with or without an error record",
              lengths[c]);
        int few_ok = 1;
        for (int64_t nr = 1; nr < 8; nr++) {
            sporf_matrix ms = rowmajor(T + 11 * P, nr, P);
            few_ok &= sporf_forest_predict_proba(f, &ms, 2, got, NULL, NULL, &err) == SPORF_OK &&
                      memcmp(got, want + 11 * 2, sizeof(double) * (size_t)nr * 2) == 0;
            few_ok &= sporf_forest_apply(f, &ms, 1, leaves, NULL, NULL, &err) == SPORF_OK;
            for (int64_t i = 0; i < nr; i++)
                for (int64_t t = 0; t < f->n_trees; t++)
                    few_ok &= leaves[i * f->n_trees + t] == reference_leaf(&f->trees[t], T + (11 + i) * P);
        }
        CHECK(few_ok, "%g-term general splits: 1 to 7 rows walk every tree at once to the reference leaves",
              lengths[c]);
        const double keep = T[3 * P + 5];
        T[3 * P + 5] = INFINITY;
        CHECK(sporf_forest_predict_proba_rows(f, T, 8, P, 1, got, NULL) == SPORF_E_ARG &&
                  sporf_forest_predict_proba_rows(f, T, 8, P, 1, got, &err) == SPORF_E_ARG &&
                  strstr(err.message, "row 3") != NULL,
              "the row-major entry point refuses an infinity, naming its row (%s)", err.message);
        T[3 * P + 5] = keep;
        free(want); free(got); free(leaves);
        sporf_forest_free(f);
    }
    free(X); free(T); free(y);
}

/* A forest of one value per leaf (regression) keeps each leaf's value in
 * the prediction layout instead of reading leaf_values: every walk (a full
 * block partitioned, a short one, 1 to 7 rows down every tree at once)
 * gives the reference sums bit for bit, and apply still names the stored
 * leaves. */
static void test_regression_values_in_layout(void)
{
    enum { N = 400, P = 9, M = 32768 + 5 };
    double *X = malloc(sizeof(double) * N * P), *T = malloc(sizeof(double) * M * P);
    double *y = malloc(sizeof(double) * N);
    sporf_rng r;
    sporf_rng_seed(&r, 11, 0);
    fill_centred(X, (int64_t)N * P, &r);
    for (int i = 0; i < N; i++)
        y[i] = 3.0 * X[i * P] - X[i * P + 1] * X[i * P + 2] + 0.1 * sporf_rng_uniform(&r);
    fill_centred(T, (int64_t)M * P, &r);
    sporf_params p;
    sporf_params_init(&p);
    p.n_estimators = 20;
    p.random_state = 8;
    p.criterion = SPORF_CRIT_SQUARED_ERROR;
    sporf_matrix m = rowmajor(X, N, P);
    sporf_forest *f = NULL;
    sporf_error err;
    if (fit_values(&p, &m, y, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
        CHECK(0, "regression fit: %s", err.message);
        free(X); free(T); free(y);
        return;
    }
    CHECK(f->n_classes == 1, "a regression forest has one value per leaf (%d)", f->n_classes);
    int64_t leaves_seen = 0, values_ok = 1;
    for (int64_t t = 0; t < f->n_trees; t++) {
        const sporf_tree *tr = &f->trees[t];
        const sporf_pnode *base = sporf_packed_bin_nodes(f->packed, f->packed->tree_bin[t]);
        for (int i = 0; i < M && i < 64; i++) {
            const sporf_pnode *lf = &base[sporf_nodes_find_leaf(base, f->packed->root[t], tr, T + (int64_t)i * P, 1)];
            const int32_t want = reference_leaf(tr, T + (int64_t)i * P);
            values_ok &= sporf_pnode_leaf_node(lf) == want &&
                         memcmp(&lf->u.threshold, &tr->leaf_values[tr->nodes[want].right], sizeof(double)) == 0;
            leaves_seen++;
        }
    }
    CHECK(leaves_seen > 0 && values_ok, "each packed leaf holds its stored node and its value (%lld leaves)",
          (long long)leaves_seen);
    double *want = calloc((size_t)M, sizeof(double)), *got = malloc(sizeof(double) * M);
    int64_t *leaves = malloc(sizeof(int64_t) * 7 * (size_t)f->n_trees);
    reference_proba(f, T, M, P, want);
    sporf_matrix mt = rowmajor(T, M, P);
    CHECK(sporf_forest_predict_proba(f, &mt, 2, got, NULL, NULL, &err) == SPORF_OK &&
              memcmp(got, want, sizeof(double) * M) == 0,
          "regression: a full and a short last block give the reference means bit for bit");
    int few_ok = 1;
    for (int64_t nr = 1; nr < 8; nr++) {
        few_ok &= sporf_forest_predict_proba_rows(f, T + 5 * P, nr, P, 1, got, NULL) == SPORF_OK &&
                  memcmp(got, want + 5, sizeof(double) * (size_t)nr) == 0;
        sporf_matrix ms = rowmajor(T + 5 * P, nr, P);
        few_ok &= sporf_forest_apply(f, &ms, 1, leaves, NULL, NULL, &err) == SPORF_OK;
        for (int64_t i = 0; i < nr; i++)
            for (int64_t t = 0; t < f->n_trees; t++)
                few_ok &= leaves[i * f->n_trees + t] == reference_leaf(&f->trees[t], T + (5 + i) * P);
    }
    CHECK(few_ok, "regression: 1 to 7 rows give the reference means and leaves");
    free(want); free(got); free(leaves);
    sporf_forest_free(f);
    free(X); free(T); free(y);
}

/* Rows wider than 1 KB are walked on float copies, general splits too: a
 * float sum decides where it is clear of the threshold by more than its
 * rounding, the double sum elsewhere. Every length of projection reaches
 * the reference leaves, and the probabilities are the reference sums bit for
 * bit, also for rows built to land on a general root split's threshold with
 * terms of 1e3 to 1e7, whose float sums cannot decide. */
static void test_general_splits_on_float_rows(void)
{
    enum { N = 400, P = 160, M = 3000 };
    double *X = malloc(sizeof(double) * N * P), *T = malloc(sizeof(double) * M * P);
    int32_t *y = malloc(sizeof(int32_t) * N);
    sporf_rng r;
    sporf_rng_seed(&r, 11, 0);
    fill_centred(X, (int64_t)N * P, &r);
    for (int i = 0; i < N; i++)
        y[i] = X[i * P] - X[i * P + 1] + X[i * P + 2] > 0.0;
    static const double lengths[] = {1.0, 2.0, 3.0, 5.0, 8.0, 12.0};
    for (size_t c = 0; c < sizeof lengths / sizeof lengths[0]; c++) {
        fill_centred(T, (int64_t)M * P, &r);
        sporf_params p;
        sporf_params_init(&p);
        p.n_estimators = 12;
        p.projection = SPORF_PROJ_FRC;
        p.feature_combinations = lengths[c];
        p.random_state = 7;
        sporf_matrix m = rowmajor(X, N, P);
        sporf_forest *f = NULL;
        sporf_error err;
        if (fit_classes(&p, &m, y, 2, NULL, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
            CHECK(0, "fit: %s", err.message);
            continue;
        }
        /* rows on tree 0's root split: its other terms large, the first solving for the threshold */
        const sporf_tree *t0 = &f->trees[0];
        const sporf_node *root = &t0->nodes[0];
        int built = 0;
        for (int i = 0; i < 40 && root->left >= 0 && root->proj_len >= 2; i++) {
            double *row = T + (int64_t)i * P, rest = 0.0;
            const int32_t *fs = t0->proj_feature + root->proj_start;
            const double *ws = t0->proj_weight + root->proj_start;
            for (int32_t k = 1; k < root->proj_len; k++) {
                row[fs[k]] = (k % 2 ? 1.0 : -1.0) * pow(10.0, 3 + i % 5) * (1.0 + 0.01 * k);
                rest += ws[k] * row[fs[k]];
            }
            row[fs[0]] = (root->threshold - rest) / ws[0] + (double)(i % 3 - 1) * 1e-9;
            built++;
        }
        double *want = calloc((size_t)M * 2, sizeof(double)), *got = malloc(sizeof(double) * M * 2);
        reference_proba(f, T, M, P, want);
        sporf_matrix mt = rowmajor(T, M, P);
        CHECK(sporf_forest_predict_proba(f, &mt, 1, got, NULL, NULL, &err) == SPORF_OK &&
                  memcmp(got, want, sizeof(double) * M * 2) == 0,
              "%g-term general splits on float rows (%d rows on a root threshold): the reference sums bit for bit",
              lengths[c], built);
        free(want); free(got);
        sporf_forest_free(f);
    }
    free(X); free(T); free(y);
}

/* Calibrated intervals: the conformal levels from scores, and a quantile
 * forest's intervals at them -- calibrated on held-out rows, they hold at
 * least ceil(c (n + 1)) of those rows, exactly the rows whose score is at
 * most the chosen one. */
static void test_calibrated_intervals(void)
{
    double levels[2];
    sporf_error err;
    /* 9 scores 0.05 .. 0.45 and a NaN (skipped): c = 0.8 takes the 8th smallest */
    const double scores[10] = {0.25, 0.05, NAN, 0.45, 0.15, 0.35, 0.1, 0.2, 0.3, 0.4};
    CHECK(sporf_interval_levels(scores, 10, 0.8, levels, &err) == SPORF_OK &&
              fabs(levels[0] - (0.5 - 0.4)) < 1e-8 && fabs(levels[1] - (0.5 + 0.4)) < 1e-8,
          "levels 1/2 -+ the 8th smallest score (%g, %g)", levels[0], levels[1]);
    CHECK(sporf_interval_levels(scores, 10, 0.95, levels, &err) == SPORF_OK && levels[0] == 0.0 &&
              levels[1] == 1.0, "past the last score: the whole distribution");
    CHECK(sporf_interval_levels(NULL, 0, 0.9, levels, &err) == SPORF_OK && fabs(levels[0] - 0.05) < 1e-15 &&
              fabs(levels[1] - 0.95) < 1e-15, "no scores: the raw levels");
    CHECK(sporf_interval_levels(scores, 10, 1.0, levels, &err) == SPORF_E_ARG && strstr(err.message, "coverage"),
          "coverage 1 refused: %s", err.message);
    CHECK(sporf_interval_levels(scores, 10, NAN, levels, &err) == SPORF_E_ARG, "coverage NaN refused");
    const double nan_only[2] = {NAN, NAN}, wrong[1] = {0.7};
    CHECK(sporf_interval_levels(nan_only, 2, 0.8, levels, &err) == SPORF_E_ARG &&
              strstr(err.message, "no interval scores"), "no usable score refused: %s", err.message);
    CHECK(sporf_interval_levels(wrong, 1, 0.8, levels, &err) == SPORF_E_ARG, "a score past 1/2 refused");
    /* negative scores (responses that are atoms spanning the middle, on few
     * rows) never cross the levels */
    const double atoms[4] = {-0.3, -0.4, -0.2, -0.45};
    CHECK(sporf_interval_levels(atoms, 4, 0.5, levels, &err) == SPORF_OK && levels[0] < 0.5 && levels[1] > 0.5 &&
              levels[1] - levels[0] < 1e-8, "negative scores: levels %g, %g", levels[0], levels[1]);

    enum { N = 600, NC = 301, P = 3 };
    double *X = malloc(sizeof(double) * (N + NC) * P), *y = malloc(sizeof(double) * (N + NC));
    double *s = malloc(sizeof(double) * (N + NC)), *iv = malloc(sizeof(double) * 2 * NC);
    sporf_rng r;
    sporf_rng_seed(&r, 5, 0);
    for (int i = 0; i < N + NC; i++) {
        for (int j = 0; j < P; j++)
            X[i * P + j] = 6.0 * sporf_rng_uniform(&r) - 3.0;
        y[i] = X[i * P] + (1.0 + fabs(X[i * P])) * (sporf_rng_uniform(&r) - 0.5);
    }
    sporf_params p;
    sporf_params_init(&p);
    p.n_estimators = 30;
    p.random_state = 3;
    p.criterion = SPORF_CRIT_SQUARED_ERROR;
    p.quantiles = 1;
    sporf_matrix m = rowmajor(X, N, P), cal = rowmajor(X + (int64_t)N * P, NC, P);
    sporf_forest *f = NULL;
    if (fit_values(&p, &m, y, NULL, NULL, NULL, NULL, NULL, &f, &err) != SPORF_OK) {
        CHECK(0, "quantile fit: %s", err.message);
        free(X); free(y); free(s); free(iv);
        return;
    }
    /* out of bag: a score per training row, the same for any thread count */
    double *s1 = malloc(sizeof(double) * N);
    CHECK(sporf_forest_oob_interval_scores(f, &m, y, 1, s1, &err) == SPORF_OK &&
              sporf_forest_oob_interval_scores(f, &m, y, 2, s, &err) == SPORF_OK &&
              memcmp(s, s1, sizeof(double) * N) == 0, "out-of-bag scores do not depend on threads");
    int in_range = 1;
    for (int i = 0; i < N; i++)
        in_range &= isnan(s[i]) || (s[i] >= -0.5 && s[i] <= 0.5);
    CHECK(in_range, "scores lie in [-1/2, 1/2]");
    /* held out: coverage on the calibration rows is exactly their scores' */
    CHECK(sporf_forest_interval_scores(f, &cal, y + N, 2, s, &err) == SPORF_OK &&
              sporf_forest_predict_interval(f, &cal, 0.8, s, NC, 2, iv, &err) == SPORF_OK, "held-out interval: %s",
          err.message);
    CHECK(sporf_interval_levels(s, NC, 0.8, levels, &err) == SPORF_OK, "levels");
    const double q = levels[1] - 0.5 - 1e-9;
    int covered = 0, agree = 1;
    for (int i = 0; i < NC; i++) {
        const int in = iv[2 * i] <= y[N + i] && y[N + i] <= iv[2 * i + 1];
        covered += in;
        agree &= in == (s[i] <= q + 1e-12);
    }
    CHECK(agree && covered >= (int)ceil(0.8 * (NC + 1)), "the interval holds %d of %d rows, exactly those scored "
                                                        "at most q", covered, NC);
    /* the raw interval is the quantiles at 1/2 -+ c/2 */
    double *qv = malloc(sizeof(double) * 2 * NC);
    const double probs[2] = {0.05, 0.95};
    CHECK(sporf_forest_predict_interval(f, &cal, 0.9, NULL, 0, 2, iv, &err) == SPORF_OK &&
              sporf_forest_predict_quantiles(f, &cal, probs, 2, 2, qv, &err) == SPORF_OK &&
              memcmp(iv, qv, sizeof(double) * 2 * NC) == 0, "uncalibrated: the 5%% and 95%% quantiles");
    double bad_y[1] = {NAN};
    sporf_matrix one = rowmajor(X, 1, P);
    CHECK(sporf_forest_interval_scores(f, &one, bad_y, 1, s, &err) == SPORF_E_ARG, "a missing response refused");
    CHECK(sporf_forest_oob_interval_scores(f, &cal, y, 1, s, &err) == SPORF_E_ARG &&
              strstr(err.message, "training data"), "out-of-bag scores need the training rows: %s", err.message);
    free(qv);
    free(s1);
    sporf_forest_free(f);
    free(X); free(y); free(s); free(iv);
}

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The split of eight rows at a time (split_vector.h) against the row-by-row
 * one, on rows whose projections tie with the threshold: the same rows on
 * each side, the same boundary, and no slot written outside the range. */
static void test_vector_split_matches_row_by_row(void)
{
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    const char *scalar = getenv("SPORF_SCALAR");
    if (!scalar || !scalar[0] || strcmp(scalar, "0") == 0) {
        __builtin_cpu_init();
        CHECK(sporf_vec_enabled() == (__builtin_cpu_supports("avx2") != 0),
              "the eight-row splits are on exactly where the CPU has AVX2");
    }
#endif
    if (!sporf_vec_enabled()) {
        printf("# the eight-row splits are off here: only the row-by-row split runs\n");
        return;
    }
    enum { P = 9, M = 700, PAD = 16 };
    double *X = malloc(sizeof(double) * M * P), *C = malloc(sizeof(double) * M * P);
    float *Xf = malloc(sizeof(float) * M * P), *Cf = malloc(sizeof(float) * M * P);
    int32_t *c = malloc(sizeof(int32_t) * (M + 2 * PAD));
    int32_t *src = malloc(sizeof(int32_t) * (M + 2 * PAD)), *a = malloc(sizeof(int32_t) * (M + 2 * PAD)),
            *b = malloc(sizeof(int32_t) * (M + 2 * PAD));
    sporf_rng r;
    sporf_rng_seed(&r, 17, 0);
    for (int i = 0; i < M * P; i++) {
        X[i] = 0.25 * (double)sporf_rng_below(&r, 9) - 1.0; /* few values: many ties */
        if (sporf_rng_below(&r, 4) == 0) /* apart in double, the same in float: only double can tell */
            X[i] += 0x1p-30;
        C[(i % P) * M + i / P] = X[i]; /* the same rows by columns */
        Xf[i] = (float)X[i];
        Cf[(i % P) * M + i / P] = (float)X[i];
    }
    static const double weights[] = {1.0, -1.0, 0.5, -2.0, 0.0, 3.25};
    static const int32_t sizes[] = {16, 17, 23, 24, 31, 32, 33, 40, 100, 257, M - 2 * PAD};
    int same = 1, same_f = 1, untouched = 1, cases = 0;
    for (int32_t len = 1; len <= SPORF_VEC_TERMS; len++)
        for (int by_cols = 0; by_cols < 2; by_cols++)
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
                const int32_t n = sizes[z], lo = PAD + (int32_t)sporf_rng_below(&r, (uint64_t)(M - n - PAD));
                const int32_t hi = lo + n;
                int64_t fk[SPORF_VEC_TERMS];
                double wk[SPORF_VEC_TERMS];
                for (int32_t k = 0; k < len; k++) {
                    fk[k] = (int64_t)sporf_rng_below(&r, P) * (by_cols ? M : 1);
                    wk[k] = weights[sporf_rng_below(&r, sizeof weights / sizeof weights[0])];
                }
                for (int32_t i = 0; i < M + 2 * PAD; i++)
                    src[i] = a[i] = b[i] = c[i] = -7; /* slots outside the range must keep this */
                for (int32_t i = lo; i < hi; i++)
                    src[i] = (int32_t)sporf_rng_below(&r, M);
                const double *x0 = by_cols ? C : X;
                const int64_t rs = by_cols ? 1 : P;
                /* a threshold some rows' projections equal */
                const double *xt = x0 + src[lo + n / 2] * rs;
                double t = wk[0] * xt[fk[0]];
                for (int32_t k = 1; k < len; k++)
                    t += wk[k] * xt[fk[k]];
                const int32_t mid_a = sporf_part_split_terms(fk, wk, t, x0, rs, src, a, lo, hi, len);
                const int32_t mid_b = sporf_vec_split_terms(fk, wk, len, t, x0, rs, src, b, lo, hi);
                /* on float copies: the float sums decide only where clear of the threshold */
                int64_t ff[SPORF_VEC_TERMS];
                float wf[SPORF_VEC_TERMS];
                for (int32_t k = 0; k < len; k++) {
                    ff[k] = fk[k]; /* the float copies are laid out as the rows (or columns) */
                    wf[k] = (float)wk[k];
                }
                const sporf_vec_exact exact = {fk, wk, len, t, x0, rs};
                const int32_t mid_c =
                    sporf_vec_split_terms_f32(ff, wf, (float)t, by_cols ? Cf : Xf, rs, &exact, src, c, lo, hi);
                same &= mid_a == mid_b;
                same_f &= mid_a == mid_c;
                qsort(a + lo, (size_t)(mid_a - lo), sizeof *a, cmp_i32);
                qsort(a + mid_a, (size_t)(hi - mid_a), sizeof *a, cmp_i32);
                qsort(b + lo, (size_t)(mid_b - lo), sizeof *b, cmp_i32);
                qsort(b + mid_b, (size_t)(hi - mid_b), sizeof *b, cmp_i32);
                qsort(c + lo, (size_t)(mid_c - lo), sizeof *c, cmp_i32);
                qsort(c + mid_c, (size_t)(hi - mid_c), sizeof *c, cmp_i32);
                same &= memcmp(a + lo, b + lo, sizeof *a * (size_t)n) == 0;
                same_f &= memcmp(a + lo, c + lo, sizeof *a * (size_t)n) == 0;
                for (int32_t i = 0; i < M + 2 * PAD; i++)
                    untouched &= (i >= lo && i < hi) || (b[i] == -7 && c[i] == -7);
                cases++;
            }
    CHECK(same, "eight rows at a time: the same rows go each way as row by row, ties included (%d cases)", cases);
    CHECK(same_f, "eight rows at a time on float copies: the same rows go each way, near-ties decided in double "
                  "(%d cases)", cases);
    CHECK(untouched, "eight rows at a time: no slot outside the range is written");
    free(X); free(C); free(Xf); free(Cf); free(src); free(a); free(b); free(c);
}

int main(void)
{
    test_predict_names_first_nonfinite();
    test_traversal_matches_reference();
    test_vector_split_matches_row_by_row();
    test_wide_rows_float_walk();
    test_general_splits_and_few_rows();
    test_general_splits_on_float_rows();
    test_regression_values_in_layout();
    test_unsupervised_forest();
    test_permutation_importance();
    test_calibrated_intervals();
    return check_summary();
}
