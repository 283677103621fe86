/*
 * sporf_r.c -- the R binding: .Call entry points over the core's public API.
 *
 * Thin by design: the R code validates and normalises arguments; this file
 * converts R objects to the core's types, calls one core function and converts
 * the result. Rules that keep R and the core safe together:
 *  - a forest handle is wrapped in an external pointer whose finalizer is
 *    registered BEFORE the core allocates it, so an R error can never leak it;
 *  - other scratch memory is R's (R_alloc, raw vectors), freed by R even when
 *    an error unwinds the stack; so R errors never strand native memory;
 *  - the core calls the progress callback on R's thread only; the callback
 *    checks for Ctrl-C through R_ToplevelExec so the interrupt cannot jump over
 *    the core's frames -- the core cancels cleanly and we raise afterwards.
 */
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include <R_ext/Visibility.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "params_r.h"
#include "sporf.h"

/* ---- forest handles ---- */

static SEXP forest_tag(void)
{
    return Rf_install("sporf_forest");
}

static void forest_finalizer(SEXP handle)
{
    sporf_forest *f = (sporf_forest *)R_ExternalPtrAddr(handle);
    if (f) {
        sporf_forest_free(f);
        R_ClearExternalPtr(handle);
    }
}

/* An empty handle with its finalizer in place, ready to receive a forest. */
static SEXP new_handle(void)
{
    SEXP h = PROTECT(R_MakeExternalPtr(NULL, forest_tag(), R_NilValue));
    R_RegisterCFinalizerEx(h, forest_finalizer, TRUE);
    UNPROTECT(1);
    return h;
}

static sporf_forest *get_forest(SEXP handle)
{
    if (TYPEOF(handle) != EXTPTRSXP || R_ExternalPtrTag(handle) != forest_tag())
        Rf_error("not a sporf forest handle");
    sporf_forest *f = (sporf_forest *)R_ExternalPtrAddr(handle);
    if (!f)
        Rf_error("the sporf forest handle is empty (it was saved and reloaded); "
                 "use the sporf object, which rebuilds it from its model bytes");
    return f;
}

/* Raise the core's error as an R error. Only called when no native memory
 * other than handle-owned forests is outstanding. */
static void raise_core_error(const sporf_error *err)
{
    Rf_error("%s", err->message[0] ? err->message : "sporf: unknown error");
}

static sporf_forest_info forest_info(const sporf_forest *f)
{
    sporf_forest_info info;
    sporf_error err;
    if (sporf_forest_get_info(f, &info, &err) != SPORF_OK)
        raise_core_error(&err);
    return info;
}

/* ---- conversions ---- */

/* A numeric R matrix (column-major) as a core matrix view, without a copy. */
static sporf_matrix matrix_view(SEXP x)
{
    if (TYPEOF(x) != REALSXP || !Rf_isMatrix(x))
        Rf_error("internal: x must be a double matrix");
    sporf_matrix m;
    m.data = REAL(x);
    m.data32 = NULL; /* R has no float matrices */
    m.nrow = Rf_nrows(x);
    m.ncol = Rf_ncols(x);
    m.row_stride = 1;
    m.col_stride = m.nrow;
    return m;
}

/* ---- progress and Ctrl-C ---- */

typedef struct progress_state {
    int verbose;
    int interrupted;
    int drawn;       /* characters of the bar last drawn, 0 = none yet */
    int64_t last;    /* last `done` drawn */
} progress_state;

static void check_interrupt(void *unused)
{
    (void)unused;
    R_CheckUserInterrupt();
}

static int progress_cb(void *user, int64_t done, int64_t total)
{
    progress_state *st = (progress_state *)user;
    /* R_ToplevelExec returns FALSE when the check jumped (a pending Ctrl-C):
     * tell the core to stop; R code signals the interrupt once it returns. */
    if (!R_ToplevelExec(check_interrupt, NULL)) {
        st->interrupted = 1;
        return 1;
    }
    if (st->verbose && total > 0 && (done != st->last || !st->drawn)) {
        const int width = 30;
        int filled = (int)((double)width * (double)done / (double)total);
        char bar[64];
        for (int i = 0; i < width; i++)
            bar[i] = i < filled ? '=' : ' ';
        bar[width] = '\0';
        REprintf("\rsporf: |%s| %lld/%lld trees", bar, (long long)done, (long long)total);
        st->drawn = 1;
        st->last = done;
    }
    return 0;
}

/* ---- entry points ---- */

/* The out-of-bag tuning report: list(candidates = list of parameter lists,
 * oob_error, n_trees, best (1-based)). */
static SEXP tuning_report(const sporf_tune_result *t)
{
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 4));
    SEXP names = PROTECT(Rf_allocVector(STRSXP, 4));
    const char *nm[4] = {"candidates", "oob_error", "n_trees", "best"};
    for (int i = 0; i < 4; i++) SET_STRING_ELT(names, i, Rf_mkChar(nm[i]));
    Rf_setAttrib(out, R_NamesSymbol, names);
    SEXP cands = Rf_allocVector(VECSXP, t->n_candidates);
    SET_VECTOR_ELT(out, 0, cands);
    SEXP errs = Rf_allocVector(REALSXP, t->n_candidates);
    SET_VECTOR_ELT(out, 1, errs);
    SEXP trees = Rf_allocVector(REALSXP, t->n_candidates);
    SET_VECTOR_ELT(out, 2, trees);
    for (int32_t i = 0; i < t->n_candidates; i++) {
        SET_VECTOR_ELT(cands, i, sporf_r_params_to_list(&t->candidates[i]));
        REAL(errs)[i] = t->oob_error[i];
        REAL(trees)[i] = (double)t->n_trees[i];
    }
    SET_VECTOR_ELT(out, 3, Rf_ScalarInteger(t->best + 1));
    UNPROTECT(2);
    return out;
}

/* The list a fit returns -- (handle, out-of-bag values n x K or NULL, their
 * counts or NULL, interrupted, tuning report or NULL) -- allocated before
 * the core allocates anything; *oob_dec and *oob_cnt point into it when
 * want_oob. Unprotected: the caller protects it. */
static SEXP new_fit_result(int64_t n, R_xlen_t K, int want_oob, double **oob_dec, int64_t **oob_cnt)
{
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 5));
    SET_VECTOR_ELT(out, 0, new_handle());
    if (want_oob) {
        SEXP dec = Rf_allocVector(REALSXP, (R_xlen_t)n * K);
        SET_VECTOR_ELT(out, 1, dec);
        SEXP cnt_raw = Rf_allocVector(RAWSXP, (R_xlen_t)n * (R_xlen_t)sizeof(int64_t));
        SET_VECTOR_ELT(out, 2, cnt_raw);
        *oob_dec = REAL(dec);
        *oob_cnt = (int64_t *)RAW(cnt_raw);
    }
    SEXP interrupted = Rf_allocVector(LGLSXP, 1);
    SET_VECTOR_ELT(out, 3, interrupted);
    LOGICAL(interrupted)[0] = FALSE;
    UNPROTECT(1);
    return out;
}

/* After the core's fit (rc, forest f): an interruption is flagged in the
 * result, an error raised; otherwise the handle takes the forest, a tuned
 * fit gets its report and its out-of-bag values (as a fit's would), and the
 * counts become doubles (R has no 64-bit integers). */
static void finish_fit(SEXP out, int rc, sporf_forest *f, sporf_error *err, const progress_state *st,
                       const sporf_tune_result *tuned, const sporf_matrix *m, int32_t n_jobs, double *oob_dec,
                       int64_t *oob_cnt)
{
    if (st->drawn)
        REprintf("\n");
    if (rc == SPORF_E_INTERRUPTED && st->interrupted) {
        LOGICAL(VECTOR_ELT(out, 3))[0] = TRUE;
        return;
    }
    if (rc != SPORF_OK)
        raise_core_error(err);
    R_SetExternalPtrAddr(VECTOR_ELT(out, 0), f); /* from here the handle owns the forest: R may raise */
    if (tuned) {
        SET_VECTOR_ELT(out, 4, tuning_report(tuned));
        if (oob_dec && sporf_forest_oob_predict(f, m, n_jobs, oob_dec, oob_cnt, err) != SPORF_OK)
            raise_core_error(err);
    }
    if (oob_dec) {
        SEXP cnt = PROTECT(Rf_allocVector(REALSXP, m->nrow));
        for (int64_t i = 0; i < m->nrow; i++)
            REAL(cnt)[i] = (double)oob_cnt[i];
        SET_VECTOR_ELT(out, 2, cnt);
        UNPROTECT(1);
    }
}

/* Does the parameter list grow a shard (first_tree given, not NULL: its
 * attribute "shard", set by .build_params)? A
 * shard whose leaf size is "auto" leaves the choice to merge_forests
 * (sporf_fit_data.shard). */
static int is_shard(SEXP params)
{
    return Rf_asLogical(Rf_getAttrib(params, Rf_install("shard"))) == TRUE;
}

/* A survival forest: y is list(times (double), event flags (integer 0/1)). */
static SEXP fit_survival(const sporf_params *p, const sporf_matrix *m, SEXP y, SEXP sample_weight, SEXP oob,
                         SEXP verbose, int shard)
{
    if (XLENGTH(y) != 2 || TYPEOF(VECTOR_ELT(y, 0)) != REALSXP || TYPEOF(VECTOR_ELT(y, 1)) != INTSXP ||
        XLENGTH(VECTOR_ELT(y, 0)) != m->nrow || XLENGTH(VECTOR_ELT(y, 1)) != m->nrow)
        Rf_error("internal: a survival y must be list(times (double), events (integer)) of nrow(x) values");
    const double *sw = NULL;
    if (!Rf_isNull(sample_weight)) {
        if (TYPEOF(sample_weight) != REALSXP || XLENGTH(sample_weight) != m->nrow)
            Rf_error("internal: sample_weight must be a double vector of length nrow(x)");
        sw = REAL(sample_weight);
    }
    double *oob_dec = NULL;
    int64_t *oob_cnt = NULL;
    SEXP out = PROTECT(new_fit_result(m->nrow, 1, Rf_asLogical(oob) == TRUE, &oob_dec, &oob_cnt));
    progress_state st = {Rf_asInteger(verbose) > 0, 0, 0, -1};
    sporf_forest *f = NULL;
    sporf_error err;
    sporf_fit_data data;
    memset(&data, 0, sizeof data);
    data.response = SPORF_RESPONSE_SURVIVAL;
    data.n_outputs = 1;
    data.values = REAL(VECTOR_ELT(y, 0));
    data.events = INTEGER(VECTOR_ELT(y, 1));
    data.sample_weight = sw;
    data.shard = shard;
    const int rc = sporf_forest_fit(p, m, &data, oob_dec, oob_cnt, progress_cb, &st, &f, &err);
    finish_fit(out, rc, f, &err, &st, NULL, m, p->n_jobs, oob_dec, oob_cnt);
    UNPROTECT(1);
    return out;
}

/* fit(x, y, n_outputs, n_classes, params, sample_weight, class_weight, oob, verbose, tune)
 * -> list(handle, oob_decision (n*K row-major) or NULL, oob_count or NULL, interrupted,
 *         tuning report or NULL).
 * y holds n x n_outputs values row by row: class codes (integer, with
 * n_classes a count per output) grow a classification forest, responses
 * (double, n_classes NULL) a regression forest, list(times, event flags) a
 * survival forest (fit_survival); class_weight (or NULL) is
 * for one output of class codes. tune: 0 no tuning, 1 SPORF_TUNE_DENSITY, 2
 * SPORF_TUNE_STRUCTURE; with tune > 0 the forest is sporf_forest_tune_oob's
 * (its OOB values then come from sporf_forest_oob_predict, as a fit's would). */
SEXP sporf_r_fit(SEXP x, SEXP y, SEXP n_outputs, SEXP n_classes, SEXP params, SEXP sample_weight, SEXP class_weight,
                 SEXP oob, SEXP verbose, SEXP tune)
{
    sporf_params p;
    sporf_r_params_from_list(params, &p);
    sporf_matrix m = matrix_view(x);
    if (TYPEOF(y) == VECSXP)
        return fit_survival(&p, &m, y, sample_weight, oob, verbose, is_shard(params));
    const int regression = TYPEOF(y) == REALSXP;
    const int n_out = Rf_asInteger(n_outputs);
    if ((TYPEOF(y) != INTSXP && !regression) || n_out < 1 || XLENGTH(y) != (R_xlen_t)m.nrow * n_out)
        Rf_error("internal: y must be an integer or double vector of nrow(x) * n_outputs values");
    if (regression != Rf_isNull(n_classes) || (!regression && (TYPEOF(n_classes) != INTSXP ||
                                                               XLENGTH(n_classes) != n_out)))
        Rf_error("internal: n_classes must be one count per output for class codes, NULL for responses");
    R_xlen_t K = 0;
    for (int j = 0; j < n_out; j++) K += regression ? 1 : INTEGER(n_classes)[j];
    const double *sw = NULL, *cw = NULL;
    if (!Rf_isNull(sample_weight)) {
        if (TYPEOF(sample_weight) != REALSXP || XLENGTH(sample_weight) != m.nrow)
            Rf_error("internal: sample_weight must be a double vector of length nrow(x)");
        sw = REAL(sample_weight);
    }
    if (!Rf_isNull(class_weight)) {
        if (regression || n_out != 1 || TYPEOF(class_weight) != REALSXP || XLENGTH(class_weight) != K)
            Rf_error("internal: class_weight must be a double vector of length n_classes, for one output of "
                     "class codes");
        cw = REAL(class_weight);
    }
    const int want_oob = Rf_asLogical(oob) == TRUE;

    /* Every R allocation happens before the core allocates anything. */
    const int tune_code = Rf_asInteger(tune);
    const int want_tune = tune_code == 1 || tune_code == 2;
    double *oob_dec = NULL;
    int64_t *oob_cnt = NULL;
    SEXP out = PROTECT(new_fit_result(m.nrow, K, want_oob, &oob_dec, &oob_cnt));
    progress_state st = {Rf_asInteger(verbose) > 0, 0, 0, -1};
    sporf_forest *f = NULL;
    sporf_error err;
    sporf_tune_result tuned;
    const sporf_fit_data data = {regression ? SPORF_RESPONSE_VALUES : SPORF_RESPONSE_CLASSES, n_out,
                                 regression ? NULL : INTEGER(y), regression ? NULL : INTEGER(n_classes),
                                 regression ? REAL(y) : NULL, sw, cw, NULL, 0, NULL, NULL, NULL, NULL, NULL,
                                 is_shard(params)};
    const int rc = want_tune ? sporf_forest_tune_oob(&p, tune_code == 2 ? SPORF_TUNE_STRUCTURE : SPORF_TUNE_DENSITY,
                                                     &m, &data, &tuned, progress_cb, &st, &f, &err)
                             : sporf_forest_fit(&p, &m, &data, oob_dec, oob_cnt, progress_cb, &st, &f, &err);
    finish_fit(out, rc, f, &err, &st, want_tune ? &tuned : NULL, &m, p.n_jobs, oob_dec, oob_cnt);
    UNPROTECT(1);
    return out;
}

/* outputs(handle) -> the widths of each output's block of leaf values. */
SEXP sporf_r_outputs(SEXP handle)
{
    const sporf_forest *f = get_forest(handle);
    int32_t n = 0;
    sporf_error err;
    if (sporf_forest_get_outputs(f, &n, NULL, &err) != SPORF_OK)
        raise_core_error(&err);
    SEXP out = PROTECT(Rf_allocVector(INTSXP, n));
    if (sporf_forest_get_outputs(f, &n, INTEGER(out), &err) != SPORF_OK)
        raise_core_error(&err);
    UNPROTECT(1);
    return out;
}

/* load(raw) -> handle; the core validates every byte. */
SEXP sporf_r_load(SEXP bytes)
{
    if (TYPEOF(bytes) != RAWSXP)
        Rf_error("a sporf model must be a raw vector");
    SEXP handle = PROTECT(new_handle());
    sporf_forest *f = NULL;
    sporf_error err;
    if (sporf_forest_load(RAW(bytes), (int64_t)XLENGTH(bytes), &f, &err) != SPORF_OK)
        raise_core_error(&err);
    R_SetExternalPtrAddr(handle, f);
    UNPROTECT(1);
    return handle;
}

/* merge(list of handles) -> handle: the forests' trees as one forest
 * (sporf_forest_merge checks that they are shards of one fit). */
SEXP sporf_r_merge(SEXP handles)
{
    if (TYPEOF(handles) != VECSXP || XLENGTH(handles) < 1)
        Rf_error("internal: merge needs a non-empty list of forest handles");
    const R_xlen_t n = XLENGTH(handles);
    const sporf_forest **forests = (const sporf_forest **)R_alloc((size_t)n, sizeof *forests);
    for (R_xlen_t i = 0; i < n; i++)
        forests[i] = get_forest(VECTOR_ELT(handles, i));
    SEXP handle = PROTECT(new_handle());
    sporf_forest *f = NULL;
    sporf_error err;
    if (sporf_forest_merge(forests, (int64_t)n, &f, &err) != SPORF_OK)
        raise_core_error(&err);
    R_SetExternalPtrAddr(handle, f);
    UNPROTECT(1);
    return handle;
}

/* save(handle) -> raw: the model file's bytes. */
SEXP sporf_r_save(SEXP handle)
{
    sporf_forest *f = get_forest(handle);
    sporf_error err;
    int64_t len = 0;
    if (sporf_forest_save(f, NULL, 0, &len, &err) != SPORF_OK)
        raise_core_error(&err);
    SEXP out = PROTECT(Rf_allocVector(RAWSXP, (R_xlen_t)len));
    if (sporf_forest_save(f, RAW(out), len, &len, &err) != SPORF_OK)
        raise_core_error(&err);
    UNPROTECT(1);
    return out;
}

SEXP sporf_r_is_valid(SEXP handle)
{
    return Rf_ScalarLogical(TYPEOF(handle) == EXTPTRSXP && R_ExternalPtrTag(handle) == forest_tag() &&
                            R_ExternalPtrAddr(handle) != NULL);
}

/* predict_proba(handle, x, n_jobs) -> double n*K, row-major (R transposes). */
SEXP sporf_r_predict_proba(SEXP handle, SEXP x, SEXP n_jobs)
{
    sporf_forest *f = get_forest(handle);
    sporf_matrix m = matrix_view(x);
    const sporf_forest_info info = forest_info(f);
    sporf_error err;
    SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)m.nrow * info.n_classes));
    if (sporf_forest_predict_proba(f, &m, Rf_asInteger(n_jobs), REAL(out), NULL, NULL, &err) != SPORF_OK)
        raise_core_error(&err);
    UNPROTECT(1);
    return out;
}

/* apply(handle, x, n_jobs) -> integer matrix n x n_trees of leaf node indices. */
SEXP sporf_r_apply(SEXP handle, SEXP x, SEXP n_jobs)
{
    sporf_forest *f = get_forest(handle);
    sporf_matrix m = matrix_view(x);
    const sporf_forest_info info = forest_info(f);
    sporf_error err;
    const R_xlen_t n = (R_xlen_t)m.nrow, T = (R_xlen_t)info.n_trees;
    SEXP scratch = PROTECT(Rf_allocVector(RAWSXP, n * T * (R_xlen_t)sizeof(int64_t)));
    SEXP out = PROTECT(Rf_allocMatrix(INTSXP, (int)n, (int)T));
    int64_t *leaves = (int64_t *)RAW(scratch);
    if (sporf_forest_apply(f, &m, Rf_asInteger(n_jobs), leaves, NULL, NULL, &err) != SPORF_OK)
        raise_core_error(&err);
    int *o = INTEGER(out);
    for (R_xlen_t r = 0; r < n; r++)
        for (R_xlen_t t = 0; t < T; t++)
            o[r + t * n] = (int)leaves[r * T + t];
    UNPROTECT(2);
    return out;
}

/* get_tree(handle, t) -> list(left, right, proj_start, proj_len, missing
 * (integer, 0-based as the core gives them), threshold, gain, value (n_nodes
 * x n_classes, row-major), proj_feature (0-based), proj_weight). */
SEXP sporf_r_get_tree(SEXP handle, SEXP tree)
{
    sporf_forest *f = get_forest(handle);
    const sporf_forest_info info = forest_info(f);
    int32_t n = 0, m = 0;
    sporf_error err;
    if (sporf_forest_get_tree(f, (int64_t)Rf_asReal(tree), &n, &m, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                              NULL, NULL, &err) != SPORF_OK)
        raise_core_error(&err);
    const char *names[] = {"left", "right", "proj_start", "proj_len", "missing", "threshold", "gain", "value",
                           "proj_feature", "proj_weight"};
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 10));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, 10));
    for (int k = 0; k < 10; k++) {
        const int is_int = k < 5 || k == 8;
        const R_xlen_t len = k < 7 ? n : k == 7 ? (R_xlen_t)n * info.n_classes : (m > 0 ? m : 1);
        SET_VECTOR_ELT(out, k, Rf_allocVector(is_int ? INTSXP : REALSXP, len));
        SET_STRING_ELT(nm, k, Rf_mkChar(names[k]));
    }
    Rf_setAttrib(out, R_NamesSymbol, nm);
    if (sporf_forest_get_tree(f, (int64_t)Rf_asReal(tree), &n, &m, INTEGER(VECTOR_ELT(out, 0)),
                              INTEGER(VECTOR_ELT(out, 1)), INTEGER(VECTOR_ELT(out, 2)), INTEGER(VECTOR_ELT(out, 3)),
                              INTEGER(VECTOR_ELT(out, 8)), REAL(VECTOR_ELT(out, 9)), REAL(VECTOR_ELT(out, 5)),
                              INTEGER(VECTOR_ELT(out, 4)), REAL(VECTOR_ELT(out, 6)), REAL(VECTOR_ELT(out, 7)),
                              &err) != SPORF_OK)
        raise_core_error(&err);
    UNPROTECT(2);
    return out;
}

/* set_note(handle, raw): the binding note (R's formula, formula_note.R). */
SEXP sporf_r_set_note(SEXP handle, SEXP note)
{
    sporf_forest *f = get_forest(handle);
    if (TYPEOF(note) != RAWSXP)
        Rf_error("internal: a note is a raw vector");
    sporf_error err;
    if (sporf_forest_set_note(f, RAW(note), (int64_t)XLENGTH(note), &err) != SPORF_OK)
        raise_core_error(&err);
    return R_NilValue;
}

/* get_note(handle) -> raw */
SEXP sporf_r_get_note(SEXP handle)
{
    sporf_forest *f = get_forest(handle);
    sporf_error err;
    int64_t len = 0;
    if (sporf_forest_get_note(f, NULL, 0, &len, &err) != SPORF_OK)
        raise_core_error(&err);
    SEXP out = PROTECT(Rf_allocVector(RAWSXP, (R_xlen_t)len));
    if (len > 0 && sporf_forest_get_note(f, RAW(out), len, &len, &err) != SPORF_OK)
        raise_core_error(&err);
    UNPROTECT(1);
    return out;
}

/* The core writes a row's values side by side (row-major); R's matrices hold
 * a column's values together: dst (n x k, column-major) from src (n x k,
 * row-major). */
static void copy_row_major(double *dst, const double *src, R_xlen_t n, R_xlen_t k)
{
    for (R_xlen_t r = 0; r < n; r++)
        for (R_xlen_t j = 0; j < k; j++)
            dst[r + j * n] = src[r * k + j];
}

/* votes(handle, x, n_jobs) -> n x K matrix of vote shares (type = "vote"). */
SEXP sporf_r_votes(SEXP handle, SEXP x, SEXP n_jobs)
{
    sporf_forest *f = get_forest(handle);
    sporf_matrix m = matrix_view(x);
    const sporf_forest_info info = forest_info(f);
    const R_xlen_t n = (R_xlen_t)m.nrow, K = (R_xlen_t)info.n_classes;
    SEXP scratch = PROTECT(Rf_allocVector(REALSXP, n * K));
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)n, (int)K));
    sporf_error err;
    if (sporf_forest_predict_votes(f, &m, Rf_asInteger(n_jobs), REAL(scratch), &err) != SPORF_OK)
        raise_core_error(&err);
    copy_row_major(REAL(out), REAL(scratch), n, K);
    UNPROTECT(2);
    return out;
}

/* oob_predict(handle, x, n_jobs) -> list(values (n*K row-major), counts):
 * the out-of-bag values of the training rows x from the trees' regenerated
 * draws (grow() keeps a forest's out-of-bag results). */
SEXP sporf_r_oob_predict(SEXP handle, SEXP x, SEXP n_jobs)
{
    sporf_forest *f = get_forest(handle);
    sporf_matrix m = matrix_view(x);
    const sporf_forest_info info = forest_info(f);
    SEXP values = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)(m.nrow * info.n_classes)));
    SEXP counts = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)m.nrow));
    int64_t *cnt = (int64_t *)R_alloc((size_t)(m.nrow > 0 ? m.nrow : 1), sizeof *cnt);
    sporf_error err;
    if (sporf_forest_oob_predict(f, &m, Rf_asInteger(n_jobs), REAL(values), cnt, &err) != SPORF_OK)
        raise_core_error(&err);
    for (int64_t i = 0; i < m.nrow; i++) REAL(counts)[i] = (double)cnt[i];
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
    SET_VECTOR_ELT(out, 0, values);
    SET_VECTOR_ELT(out, 1, counts);
    UNPROTECT(3);
    return out;
}

/* order_levels(codes, n_levels, y, n_classes, sample_weight) -> the levels'
 * positions (NA for a level no row has); codes double (0-based, NaN
 * missing), y the 0-based class codes (integer), the responses (double) or
 * NULL (categorical.R). */
SEXP sporf_r_order_levels(SEXP codes, SEXP n_levels, SEXP y, SEXP n_classes, SEXP sample_weight)
{
    if (TYPEOF(codes) != REALSXP || (!Rf_isNull(sample_weight) && (TYPEOF(sample_weight) != REALSXP ||
                                                                   XLENGTH(sample_weight) != XLENGTH(codes))))
        Rf_error("internal: codes and sample_weight must be double vectors of one length");
    if (!Rf_isNull(y) && ((TYPEOF(y) != INTSXP && TYPEOF(y) != REALSXP) || XLENGTH(y) != XLENGTH(codes)))
        Rf_error("internal: y must be an integer or double vector as long as codes");
    const int L = Rf_asInteger(n_levels);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, L < 1 ? 1 : L));
    sporf_error err;
    const int classes = !Rf_isNull(y) && TYPEOF(y) == INTSXP;
    if (sporf_order_levels(REAL(codes), (int64_t)XLENGTH(codes), 1, L, classes ? INTEGER(y) : NULL,
                           classes ? Rf_asInteger(n_classes) : 0,
                           !Rf_isNull(y) && !classes ? REAL(y) : NULL,
                           Rf_isNull(sample_weight) ? NULL : REAL(sample_weight), REAL(out), &err) != SPORF_OK)
        raise_core_error(&err);
    for (R_xlen_t l = 0; l < XLENGTH(out); l++)
        if (ISNAN(REAL(out)[l])) REAL(out)[l] = NA_REAL;
    UNPROTECT(1);
    return out;
}

/* set_levels(handle, counts, names): keep the categorical features' level
 * names (counts per feature, 0 numeric; names by feature and position). */
SEXP sporf_r_set_levels(SEXP handle, SEXP counts, SEXP names)
{
    sporf_forest *f = get_forest(handle);
    if (TYPEOF(counts) != INTSXP || TYPEOF(names) != STRSXP)
        Rf_error("internal: counts must be integer and names character");
    R_xlen_t len = 0;
    for (R_xlen_t i = 0; i < XLENGTH(names); i++) len += (R_xlen_t)strlen(Rf_translateCharUTF8(STRING_ELT(names, i))) + 1;
    char *blob = R_alloc((size_t)(len > 0 ? len : 1), 1);
    R_xlen_t at = 0;
    for (R_xlen_t i = 0; i < XLENGTH(names); i++) {
        const char *s = Rf_translateCharUTF8(STRING_ELT(names, i));
        const size_t n = strlen(s) + 1;
        memcpy(blob + at, s, n);
        at += (R_xlen_t)n;
    }
    sporf_error err;
    if (sporf_forest_set_levels(f, INTEGER(counts), blob, (int64_t)len, &err) != SPORF_OK)
        raise_core_error(&err);
    return R_NilValue;
}

/* get_levels(handle) -> list(counts, names), or NULL when no feature is
 * categorical. */
SEXP sporf_r_get_levels(SEXP handle)
{
    sporf_forest *f = get_forest(handle);
    const sporf_forest_info info = forest_info(f);
    int64_t len = 0;
    sporf_error err;
    if (sporf_forest_get_levels(f, NULL, NULL, 0, &len, &err) != SPORF_OK)
        raise_core_error(&err);
    if (len == 0)
        return R_NilValue;
    SEXP counts = PROTECT(Rf_allocVector(INTSXP, (R_xlen_t)info.n_features));
    char *buf = R_alloc((size_t)len, 1);
    if (sporf_forest_get_levels(f, INTEGER(counts), buf, len, &len, &err) != SPORF_OK)
        raise_core_error(&err);
    R_xlen_t total = 0;
    for (R_xlen_t j = 0; j < XLENGTH(counts); j++) total += INTEGER(counts)[j];
    SEXP names = PROTECT(Rf_allocVector(STRSXP, total));
    int64_t at = 0;
    for (R_xlen_t i = 0; i < total; i++) {
        SET_STRING_ELT(names, i, Rf_mkCharCE(buf + at, CE_UTF8));
        at += (int64_t)strlen(buf + at) + 1;
    }
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
    SET_VECTOR_ELT(out, 0, counts);
    SET_VECTOR_ELT(out, 1, names);
    UNPROTECT(3);
    return out;
}

/* quantiles(handle, x, probs, n_jobs, oob) -> n x length(probs) matrix of
 * conditional quantiles (type = "quantiles"); oob: x is the training data
 * and each row counts only the trees it was out of bag for. */
SEXP sporf_r_quantiles(SEXP handle, SEXP x, SEXP probs, SEXP n_jobs, SEXP oob)
{
    sporf_forest *f = get_forest(handle);
    sporf_matrix m = matrix_view(x);
    if (TYPEOF(probs) != REALSXP)
        Rf_error("internal: probs must be a double vector");
    const R_xlen_t n = (R_xlen_t)m.nrow, k = XLENGTH(probs);
    SEXP scratch = PROTECT(Rf_allocVector(REALSXP, n * k));
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)n, (int)k));
    sporf_error err;
    const int rc = Rf_asLogical(oob) == TRUE
                       ? sporf_forest_oob_quantiles(f, &m, REAL(probs), (int64_t)k, Rf_asInteger(n_jobs),
                                                    REAL(scratch), &err)
                       : sporf_forest_predict_quantiles(f, &m, REAL(probs), (int64_t)k, Rf_asInteger(n_jobs),
                                                        REAL(scratch), &err);
    if (rc != SPORF_OK)
        raise_core_error(&err);
    copy_row_major(REAL(out), REAL(scratch), n, k);
    UNPROTECT(2);
    return out;
}

/* interval_scores(handle, x, y, n_jobs, oob) -> the rows' conformity
 * scores for calibrated intervals; oob: x, y are the training data, each
 * row under the trees it was out of bag for (NaN when none). */
SEXP sporf_r_interval_scores(SEXP handle, SEXP x, SEXP y, SEXP n_jobs, SEXP oob)
{
    sporf_forest *f = get_forest(handle);
    sporf_matrix m = matrix_view(x);
    if (TYPEOF(y) != REALSXP || XLENGTH(y) != (R_xlen_t)m.nrow)
        Rf_error("internal: y must be a double vector, one value per row");
    SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)m.nrow));
    sporf_error err;
    const int rc = Rf_asLogical(oob) == TRUE
                       ? sporf_forest_oob_interval_scores(f, &m, REAL(y), Rf_asInteger(n_jobs), REAL(out), &err)
                       : sporf_forest_interval_scores(f, &m, REAL(y), Rf_asInteger(n_jobs), REAL(out), &err);
    if (rc != SPORF_OK)
        raise_core_error(&err);
    UNPROTECT(1);
    return out;
}

/* predict_interval(handle, x, coverage, scores, n_jobs) -> n x 2 matrix
 * (lower, upper); scores NULL: the uncalibrated interval. */
SEXP sporf_r_predict_interval(SEXP handle, SEXP x, SEXP coverage, SEXP scores, SEXP n_jobs)
{
    sporf_forest *f = get_forest(handle);
    sporf_matrix m = matrix_view(x);
    if (scores != R_NilValue && TYPEOF(scores) != REALSXP)
        Rf_error("internal: scores must be a double vector or NULL");
    const R_xlen_t n = (R_xlen_t)m.nrow;
    SEXP scratch = PROTECT(Rf_allocVector(REALSXP, n * 2));
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)n, 2));
    sporf_error err;
    const int rc = sporf_forest_predict_interval(f, &m, Rf_asReal(coverage),
                                                 scores == R_NilValue ? NULL : REAL(scores),
                                                 scores == R_NilValue ? 0 : (int64_t)XLENGTH(scores),
                                                 Rf_asInteger(n_jobs), REAL(scratch), &err);
    if (rc != SPORF_OK)
        raise_core_error(&err);
    copy_row_major(REAL(out), REAL(scratch), n, 2);
    UNPROTECT(2);
    return out;
}

/* survival_interval_scores(handle, x, time, status, n_jobs, oob) ->
 * list(scores, weights) of a survival forest's calibration rows (oob: the
 * training data, each row over the trees it was out of bag for). */
SEXP sporf_r_survival_interval_scores(SEXP handle, SEXP x, SEXP time, SEXP status, SEXP n_jobs, SEXP oob)
{
    sporf_forest *f = get_forest(handle);
    sporf_matrix m = matrix_view(x);
    if (TYPEOF(time) != REALSXP || TYPEOF(status) != INTSXP || XLENGTH(time) != (R_xlen_t)m.nrow ||
        XLENGTH(status) != (R_xlen_t)m.nrow)
        Rf_error("internal: time (double) and status (integer) must have one value per row");
    SEXP scores = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)m.nrow));
    SEXP weights = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)m.nrow));
    sporf_error err;
    const int rc = Rf_asLogical(oob) == TRUE
                       ? sporf_forest_oob_survival_interval_scores(f, &m, REAL(time), INTEGER(status),
                                                                   Rf_asInteger(n_jobs), REAL(scores), REAL(weights),
                                                                   &err)
                       : sporf_forest_survival_interval_scores(f, &m, REAL(time), INTEGER(status),
                                                               Rf_asInteger(n_jobs), REAL(scores), REAL(weights),
                                                               &err);
    if (rc != SPORF_OK)
        raise_core_error(&err);
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
    SET_VECTOR_ELT(out, 0, scores);
    SET_VECTOR_ELT(out, 1, weights);
    UNPROTECT(3);
    return out;
}

/* predict_survival_interval(handle, x, coverage, scores, weights, n_jobs) ->
 * n x 2 matrix of times (lower, upper; upper may be Inf); scores NULL: the
 * uncalibrated interval. */
SEXP sporf_r_predict_survival_interval(SEXP handle, SEXP x, SEXP coverage, SEXP scores, SEXP weights, SEXP n_jobs)
{
    sporf_forest *f = get_forest(handle);
    sporf_matrix m = matrix_view(x);
    if (scores != R_NilValue && (TYPEOF(scores) != REALSXP || TYPEOF(weights) != REALSXP ||
                                 XLENGTH(scores) != XLENGTH(weights)))
        Rf_error("internal: scores and weights must be double vectors of one length, or NULL");
    const R_xlen_t n = (R_xlen_t)m.nrow;
    SEXP scratch = PROTECT(Rf_allocVector(REALSXP, n * 2));
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)n, 2));
    sporf_error err;
    const int given = scores != R_NilValue;
    const int rc = sporf_forest_predict_survival_interval(f, &m, Rf_asReal(coverage), given ? REAL(scores) : NULL,
                                                          given ? REAL(weights) : NULL,
                                                          given ? (int64_t)XLENGTH(scores) : 0,
                                                          Rf_asInteger(n_jobs), REAL(scratch), &err);
    if (rc != SPORF_OK)
        raise_core_error(&err);
    copy_row_major(REAL(out), REAL(scratch), n, 2);
    UNPROTECT(2);
    return out;
}

/* survival(handle, x, times, what, n_jobs, oob) -> n x length(times)
 * matrix of survival S(t) (what 0), cumulative hazard H(t) (1) or the
 * restricted mean to each time (2);
 * oob: x is the training data, each row over the trees it was out of bag for. */
SEXP sporf_r_survival(SEXP handle, SEXP x, SEXP times, SEXP what_code, SEXP n_jobs, SEXP oob)
{
    sporf_forest *f = get_forest(handle);
    sporf_matrix m = matrix_view(x);
    if (TYPEOF(times) != REALSXP)
        Rf_error("internal: times must be a double vector");
    const R_xlen_t n = (R_xlen_t)m.nrow, k = XLENGTH(times);
    SEXP scratch = PROTECT(Rf_allocVector(REALSXP, n * k));
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)n, (int)k));
    sporf_error err;
    const int code = Rf_asInteger(what_code);
    const int32_t what = code == 1 ? SPORF_CUMULATIVE_HAZARD : code == 2 ? SPORF_RESTRICTED_MEAN : SPORF_SURVIVAL_FUNCTION;
    const int rc = Rf_asLogical(oob) == TRUE
                       ? sporf_forest_oob_survival(f, &m, REAL(times), (int64_t)k, what, Rf_asInteger(n_jobs),
                                                   REAL(scratch), &err)
                       : sporf_forest_predict_survival(f, &m, REAL(times), (int64_t)k, what, Rf_asInteger(n_jobs),
                                                       REAL(scratch), &err);
    if (rc != SPORF_OK)
        raise_core_error(&err);
    copy_row_major(REAL(out), REAL(scratch), n, k);
    UNPROTECT(2);
    return out;
}

/* unique_times(handle) -> list(times, is_event): a survival forest's distinct
 * training times, ascending, and whether a row had its event at each. */
SEXP sporf_r_unique_times(SEXP handle)
{
    sporf_forest *f = get_forest(handle);
    int64_t n = 0;
    sporf_error err;
    if (sporf_forest_unique_times(f, NULL, NULL, 0, &n, &err) != SPORF_OK)
        raise_core_error(&err);
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
    SEXP times = Rf_allocVector(REALSXP, (R_xlen_t)n);
    SET_VECTOR_ELT(out, 0, times);
    SEXP flags = Rf_allocVector(LGLSXP, (R_xlen_t)n);
    SET_VECTOR_ELT(out, 1, flags);
    if (sporf_forest_unique_times(f, REAL(times), LOGICAL(flags), n, &n, &err) != SPORF_OK)
        raise_core_error(&err);
    UNPROTECT(1);
    return out;
}

/* concordance(time, event, risk) -> Harrell's C (sporf_concordance_index). */
SEXP sporf_r_concordance(SEXP time, SEXP event, SEXP risk)
{
    if (TYPEOF(time) != REALSXP || TYPEOF(event) != INTSXP || TYPEOF(risk) != REALSXP ||
        XLENGTH(event) != XLENGTH(time) || XLENGTH(risk) != XLENGTH(time))
        Rf_error("internal: concordance takes double times, integer events and double risks of one length");
    double c = 0.0;
    sporf_error err;
    if (sporf_concordance_index(REAL(time), INTEGER(event), REAL(risk), (int64_t)XLENGTH(time), &c, &err) != SPORF_OK)
        raise_core_error(&err);
    return Rf_ScalarReal(c);
}

/* oob_curve(handle, x, y) -> the out-of-bag error after each tree (plot());
 * y the 0-based class codes (integer), the responses (double), or a survival
 * forest's list(times, event flags). */
SEXP sporf_r_oob_curve(SEXP handle, SEXP x, SEXP y)
{
    sporf_forest *f = get_forest(handle);
    sporf_matrix m = matrix_view(x);
    const sporf_forest_info info = forest_info(f);
    if (TYPEOF(y) == VECSXP) { /* survival: list(times, event flags) -> 1 - Harrell's C */
        if (XLENGTH(y) != 2 || TYPEOF(VECTOR_ELT(y, 0)) != REALSXP || TYPEOF(VECTOR_ELT(y, 1)) != INTSXP ||
            XLENGTH(VECTOR_ELT(y, 0)) != m.nrow || XLENGTH(VECTOR_ELT(y, 1)) != m.nrow)
            Rf_error("internal: y must be list(double times, integer events) of nrow(x) each");
        SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)info.n_trees, 1));
        sporf_error err;
        if (sporf_forest_oob_curve(f, &m, INTEGER(VECTOR_ELT(y, 1)), REAL(VECTOR_ELT(y, 0)), REAL(out), NULL, &err) !=
            SPORF_OK)
            raise_core_error(&err);
        UNPROTECT(1);
        return out;
    }
    if ((TYPEOF(y) != INTSXP && TYPEOF(y) != REALSXP) || XLENGTH(y) != m.nrow)
        Rf_error("internal: y must be an integer or double vector of length nrow(x)");
    const int regression = TYPEOF(y) == REALSXP;
    /* classification: a column for the whole error, then one per class
     * (randomForest's err.rate), filled from the core's row-major table */
    const int cols = regression ? 1 : 1 + (int)info.n_classes;
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)info.n_trees, cols));
    SEXP by_class = PROTECT(Rf_allocVector(REALSXP, regression ? 1 : (R_xlen_t)(info.n_trees * info.n_classes)));
    sporf_error err;
    if (sporf_forest_oob_curve(f, &m, regression ? NULL : INTEGER(y), regression ? REAL(y) : NULL, REAL(out),
                               regression ? NULL : REAL(by_class), &err) != SPORF_OK)
        raise_core_error(&err);
    for (int64_t t = 0; !regression && t < info.n_trees; t++)
        for (int k = 0; k < (int)info.n_classes; k++)
            REAL(out)[(int64_t)(k + 1) * info.n_trees + t] = REAL(by_class)[t * info.n_classes + k];
    UNPROTECT(2);
    return out;
}

/* permutation_importance(handle, x, y, n_jobs, verbose) -> list(mean, sd,
 * interrupted): the out-of-bag permutation importance on the training rows x
 * with y the 0-based class codes (integer) or the responses (double). */
SEXP sporf_r_permutation_importance(SEXP handle, SEXP x, SEXP y, SEXP n_jobs, SEXP verbose)
{
    sporf_forest *f = get_forest(handle);
    sporf_matrix m = matrix_view(x);
    const int ok_y = TYPEOF(y) == VECSXP ? XLENGTH(y) == 2 && TYPEOF(VECTOR_ELT(y, 0)) == REALSXP &&
                                               TYPEOF(VECTOR_ELT(y, 1)) == INTSXP &&
                                               XLENGTH(VECTOR_ELT(y, 0)) == m.nrow &&
                                               XLENGTH(VECTOR_ELT(y, 1)) == m.nrow
                                         : (TYPEOF(y) == INTSXP || TYPEOF(y) == REALSXP) && XLENGTH(y) == m.nrow;
    if (!ok_y)
        Rf_error("internal: y must be an integer or double vector of length nrow(x), or list(times, events)");
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 3));
    SEXP mean = Rf_allocVector(REALSXP, (R_xlen_t)m.ncol);
    SET_VECTOR_ELT(out, 0, mean);
    SEXP sd = Rf_allocVector(REALSXP, (R_xlen_t)m.ncol);
    SET_VECTOR_ELT(out, 1, sd);
    SEXP interrupted = Rf_allocVector(LGLSXP, 1);
    SET_VECTOR_ELT(out, 2, interrupted);
    LOGICAL(interrupted)[0] = FALSE;
    progress_state st = {Rf_asInteger(verbose) > 0, 0, 0, -1};
    sporf_error err;
    const int survival = TYPEOF(y) == VECSXP, regression = TYPEOF(y) == REALSXP;
    const int32_t *codes = survival ? INTEGER(VECTOR_ELT(y, 1)) : regression ? NULL : INTEGER(y);
    const double *values = survival ? REAL(VECTOR_ELT(y, 0)) : regression ? REAL(y) : NULL;
    const int rc = sporf_forest_permutation_importance(f, &m, codes, values, Rf_asInteger(n_jobs), progress_cb, &st,
                                                       REAL(mean), REAL(sd), &err);
    if (st.drawn)
        REprintf("\n");
    if (rc == SPORF_E_INTERRUPTED && st.interrupted)
        LOGICAL(interrupted)[0] = TRUE;
    else if (rc != SPORF_OK)
        raise_core_error(&err);
    UNPROTECT(1);
    return out;
}

/* One double per feature from a core function such as the importances. */
static SEXP per_feature(SEXP handle, int (*fn)(const sporf_forest *, double *, sporf_error *))
{
    sporf_forest *f = get_forest(handle);
    const sporf_forest_info info = forest_info(f);
    sporf_error err;
    SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)info.n_features));
    if (fn(f, REAL(out), &err) != SPORF_OK)
        raise_core_error(&err);
    UNPROTECT(1);
    return out;
}

SEXP sporf_r_importances(SEXP handle)
{
    return per_feature(handle, sporf_forest_feature_importances);
}

SEXP sporf_r_usage(SEXP handle)
{
    return per_feature(handle, sporf_forest_feature_usage);
}

/* projection_importances(handle) -> list(start (0-based offsets, double),
 * feature (0-based, integer), weight, importance), as the core returns them. */
SEXP sporf_r_projection_importances(SEXP handle)
{
    sporf_forest *f = get_forest(handle);
    sporf_error err;
    int64_t n = 0, nnz = 0;
    if (sporf_forest_projection_importances(f, &n, &nnz, NULL, NULL, NULL, NULL, &err) != SPORF_OK)
        raise_core_error(&err);
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 4));
    SEXP start = Rf_allocVector(REALSXP, (R_xlen_t)n + 1);
    SET_VECTOR_ELT(out, 0, start);
    SEXP feature = Rf_allocVector(INTSXP, (R_xlen_t)nnz);
    SET_VECTOR_ELT(out, 1, feature);
    SEXP weight = Rf_allocVector(REALSXP, (R_xlen_t)nnz);
    SET_VECTOR_ELT(out, 2, weight);
    SEXP importance = Rf_allocVector(REALSXP, (R_xlen_t)n);
    SET_VECTOR_ELT(out, 3, importance);
    int64_t *st = (int64_t *)R_alloc((size_t)n + 1, sizeof(int64_t));
    if (sporf_forest_projection_importances(f, &n, &nnz, st, INTEGER(feature), REAL(weight), REAL(importance),
                                            &err) != SPORF_OK)
        raise_core_error(&err);
    for (int64_t i = 0; i <= n; i++)
        REAL(start)[i] = (double)st[i];
    UNPROTECT(1);
    return out;
}

SEXP sporf_r_info(SEXP handle)
{
    const sporf_forest_info info = forest_info(get_forest(handle));
    const char *names[] = {"n_features", "n_classes", "n_trees", "n_nodes", "n_leaves", "max_depth_seen",
                           "format_version", "task", "n_outputs"};
    double values[] = {(double)info.n_features, info.n_classes, (double)info.n_trees, (double)info.n_nodes,
                       (double)info.n_leaves, (double)info.max_depth_seen, info.format_version, info.task,
                       info.n_outputs};
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 9));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, 9));
    for (int i = 0; i < 9; i++) {
        SET_VECTOR_ELT(out, i, Rf_ScalarReal(values[i]));
        SET_STRING_ELT(nm, i, Rf_mkChar(names[i]));
    }
    Rf_setAttrib(out, R_NamesSymbol, nm);
    UNPROTECT(2);
    return out;
}

/* What a fit with min_samples_leaf "auto" chose: NULL, or a list of the
 * chosen size and the out-of-bag score of every size (named by size). */
SEXP sporf_r_leaf_choice(SEXP handle)
{
    int64_t chosen = 0, sizes[SPORF_LEAF_SIZES];
    int32_t n_sizes = 0;
    double scores[SPORF_LEAF_SIZES];
    sporf_error err;
    if (sporf_forest_leaf_choice(get_forest(handle), &chosen, &n_sizes, sizes, scores, &err) != SPORF_OK)
        raise_core_error(&err);
    if (chosen == 0)
        return R_NilValue;
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
    SEXP sc = PROTECT(Rf_allocVector(REALSXP, n_sizes));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, n_sizes));
    for (int j = 0; j < n_sizes; j++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", (long long)sizes[j]);
        REAL(sc)[j] = scores[j];
        SET_STRING_ELT(nm, j, Rf_mkChar(buf));
    }
    Rf_setAttrib(sc, R_NamesSymbol, nm);
    SET_VECTOR_ELT(out, 0, Rf_ScalarReal((double)chosen));
    SET_VECTOR_ELT(out, 1, sc);
    UNPROTECT(3);
    return out;
}

/* What a fit with splitter "auto" chose: NULL, or a list of the trees kept
 * ("mixed", "best" or "random") and each choice's out-of-bag score (named). */
SEXP sporf_r_kind_choice(SEXP handle)
{
    static const char *names[SPORF_KIND_CHOICES] = {"mixed", "best", "random"};
    int32_t kept = -1;
    double scores[SPORF_KIND_CHOICES];
    sporf_error err;
    if (sporf_forest_kind_choice(get_forest(handle), &kept, scores, &err) != SPORF_OK)
        raise_core_error(&err);
    if (kept < 0)
        return R_NilValue;
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
    SEXP sc = PROTECT(Rf_allocVector(REALSXP, SPORF_KIND_CHOICES));
    SEXP nm = PROTECT(Rf_allocVector(STRSXP, SPORF_KIND_CHOICES));
    for (int q = 0; q < SPORF_KIND_CHOICES; q++) {
        REAL(sc)[q] = scores[q];
        SET_STRING_ELT(nm, q, Rf_mkChar(names[q]));
    }
    Rf_setAttrib(sc, R_NamesSymbol, nm);
    SET_VECTOR_ELT(out, 0, Rf_mkString(names[kept]));
    SET_VECTOR_ELT(out, 1, sc);
    UNPROTECT(3);
    return out;
}

/* Warm start (grow()): the trees to grow onto the forest so that it holds
 * what one fit of trees_grown trees from tree_from holds
 * (sporf_forest_trees_to_add), as a double. */
SEXP sporf_r_trees_to_add(SEXP handle, SEXP tree_from, SEXP trees_grown)
{
    int64_t n_add = 0;
    sporf_error err;
    if (sporf_forest_trees_to_add(get_forest(handle), (int64_t)Rf_asReal(tree_from),
                                  (int64_t)Rf_asReal(trees_grown), &n_add, NULL, &err) != SPORF_OK)
        raise_core_error(&err);
    return Rf_ScalarReal((double)n_add);
}

SEXP sporf_r_params(SEXP handle)
{
    sporf_forest *f = get_forest(handle);
    sporf_params p;
    sporf_error err;
    if (sporf_forest_get_params(f, &p, &err) != SPORF_OK)
        raise_core_error(&err);
    return sporf_r_params_to_list(&p);
}

/* The custom class weights the forest keeps (one per class), or NULL. */
SEXP sporf_r_class_weights(SEXP handle)
{
    sporf_forest *f = get_forest(handle);
    sporf_forest_info info = forest_info(f);
    double *buf = (double *)R_alloc((size_t)info.n_classes, sizeof(double));
    int32_t stored = 0;
    sporf_error err;
    if (sporf_forest_get_class_weights(f, buf, &stored, &err) != SPORF_OK)
        raise_core_error(&err);
    if (!stored)
        return R_NilValue;
    SEXP out = Rf_allocVector(REALSXP, info.n_classes);
    memcpy(REAL(out), buf, (size_t)info.n_classes * sizeof(double));
    return out;
}

/* Check a params list for data with n_features columns; returns the number
 * of candidate projections per node it resolves to, or raises the core's message. */
SEXP sporf_r_check_params(SEXP params, SEXP n_features)
{
    sporf_params p;
    sporf_r_params_from_list(params, &p);
    sporf_error err;
    const int64_t nf = (int64_t)Rf_asReal(n_features);
    if (sporf_params_check(&p, nf, &err) != SPORF_OK)
        raise_core_error(&err);
    return Rf_ScalarReal((double)sporf_params_resolve_max_features(&p, nf));
}

/* set_strings(handle, which, kind, values): labels or feature names as UTF-8. */
SEXP sporf_r_set_strings(SEXP handle, SEXP which, SEXP kind, SEXP values)
{
    sporf_forest *f = get_forest(handle);
    if (TYPEOF(values) != STRSXP)
        Rf_error("internal: values must be a character vector");
    const R_xlen_t n = XLENGTH(values);
    size_t len = 0;
    for (R_xlen_t i = 0; i < n; i++)
        len += strlen(Rf_translateCharUTF8(STRING_ELT(values, i))) + 1;
    char *blob = R_alloc(len + 1, 1);
    size_t pos = 0;
    for (R_xlen_t i = 0; i < n; i++) {
        const char *s = Rf_translateCharUTF8(STRING_ELT(values, i));
        size_t l = strlen(s);
        memcpy(blob + pos, s, l + 1);
        pos += l + 1;
    }
    sporf_error err;
    if (sporf_forest_set_strings(f, Rf_asInteger(which), Rf_asInteger(kind), blob, (int64_t)len, (int64_t)n,
                                 &err) != SPORF_OK)
        raise_core_error(&err);
    return R_NilValue;
}

/* get_strings(handle, which) -> list(kind, values) */
SEXP sporf_r_get_strings(SEXP handle, SEXP which)
{
    sporf_forest *f = get_forest(handle);
    sporf_error err;
    int64_t len = 0, count = 0;
    int32_t kind = 0;
    const int32_t w = Rf_asInteger(which);
    if (sporf_forest_get_strings(f, w, NULL, 0, &len, &count, &kind, &err) != SPORF_OK)
        raise_core_error(&err);
    char *buf = R_alloc((size_t)len + 1, 1);
    if (sporf_forest_get_strings(f, w, buf, len + 1, &len, &count, &kind, &err) != SPORF_OK)
        raise_core_error(&err);
    SEXP values = PROTECT(Rf_allocVector(STRSXP, (R_xlen_t)count));
    int64_t pos = 0;
    for (int64_t i = 0; i < count; i++) {
        const char *s = buf + pos;
        size_t l = strlen(s);
        SET_STRING_ELT(values, (R_xlen_t)i, Rf_mkCharLenCE(s, (int)l, CE_UTF8));
        pos += (int64_t)l + 1;
    }
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
    SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(kind));
    SET_VECTOR_ELT(out, 1, values);
    UNPROTECT(2);
    return out;
}

SEXP sporf_r_num_cores(void)
{
    return Rf_ScalarInteger(sporf_num_cores());
}

/* fit_unsupervised(x, params, verbose) -> list(handle, interrupted). */
SEXP sporf_r_fit_unsupervised(SEXP x, SEXP params, SEXP sample_weight, SEXP verbose)
{
    if (!Rf_isNull(sample_weight) && (TYPEOF(sample_weight) != REALSXP || XLENGTH(sample_weight) != Rf_nrows(x)))
        Rf_error("internal: sample_weight must be a double vector with one value per row");
    sporf_params p;
    sporf_r_params_from_list(params, &p);
    sporf_matrix m = matrix_view(x);
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
    SEXP handle = new_handle();
    SET_VECTOR_ELT(out, 0, handle);
    SEXP interrupted = Rf_allocVector(LGLSXP, 1);
    SET_VECTOR_ELT(out, 1, interrupted);
    LOGICAL(interrupted)[0] = FALSE;
    progress_state st = {Rf_asInteger(verbose) > 0, 0, 0, -1};
    sporf_forest *f = NULL;
    sporf_error err;
    const sporf_fit_data data = {SPORF_RESPONSE_NONE, 1, NULL, NULL, NULL,
                                 Rf_isNull(sample_weight) ? NULL : REAL(sample_weight), NULL, NULL, 0, NULL, NULL,
                                 NULL, NULL, NULL, 0};
    int rc = sporf_forest_fit(&p, &m, &data, NULL, NULL, progress_cb, &st, &f, &err);
    if (st.drawn)
        REprintf("\n");
    if (rc == SPORF_E_INTERRUPTED && st.interrupted) {
        LOGICAL(interrupted)[0] = TRUE;
        UNPROTECT(1);
        return out;
    }
    if (rc != SPORF_OK)
        raise_core_error(&err);
    R_SetExternalPtrAddr(handle, f);
    UNPROTECT(1);
    return out;
}

/* An isolation forest's outlier threshold (sporf_forest_set_score_threshold). */
SEXP sporf_r_set_score_threshold(SEXP handle, SEXP value)
{
    sporf_error err;
    if (sporf_forest_set_score_threshold(get_forest(handle), Rf_asReal(value), &err) != SPORF_OK)
        raise_core_error(&err);
    return R_NilValue;
}

SEXP sporf_r_set_outlier_share(SEXP handle, SEXP scores, SEXP share)
{
    if (TYPEOF(scores) != REALSXP)
        Rf_error("internal: scores must be a double vector");
    sporf_error err;
    if (sporf_forest_set_outlier_share(get_forest(handle), REAL(scores), (int64_t)XLENGTH(scores),
                                       Rf_asReal(share), &err) != SPORF_OK)
        raise_core_error(&err);
    return R_NilValue;
}

/* fingerprint(x) -> the training rows' fingerprint as 16 hex digits (R has
 * no 64-bit integers): sporf_rows_fingerprint, Python's same number. */
SEXP sporf_r_fingerprint(SEXP x)
{
    sporf_matrix m = matrix_view(x);
    uint64_t fp = 0;
    sporf_error err;
    if (sporf_rows_fingerprint(&m, &fp, &err) != SPORF_OK)
        raise_core_error(&err);
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)fp);
    return Rf_mkString(hex);
}

SEXP sporf_r_score_threshold(SEXP handle)
{
    sporf_error err;
    double v = 0.0;
    if (sporf_forest_get_score_threshold(get_forest(handle), &v, &err) != SPORF_OK)
        raise_core_error(&err);
    return Rf_ScalarReal(v);
}

/* Ctrl-C during a proximity query: no forest to hand back, so an R error. */
static void raise_proximity_error(int rc, const progress_state *st, const sporf_error *err)
{
    if (rc == SPORF_E_INTERRUPTED && st->interrupted)
        Rf_error("sporf: the proximity computation was interrupted (Ctrl-C)");
    raise_core_error(err);
}

/* neighbors(handle, reference, query or NULL, k, n_jobs) ->
 * list(index: integer n_query x k, 1-based; similarity: double n_query x k). */
SEXP sporf_r_neighbors(SEXP handle, SEXP reference, SEXP query, SEXP k, SEXP n_jobs)
{
    sporf_forest *f = get_forest(handle);
    sporf_matrix ref = matrix_view(reference), q;
    const int self = Rf_isNull(query);
    if (!self) q = matrix_view(query);
    const R_xlen_t n = self ? (R_xlen_t)ref.nrow : (R_xlen_t)q.nrow, kk = (R_xlen_t)Rf_asReal(k);
    if (kk < 1)
        Rf_error("n_neighbors must be >= 1");
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
    SEXP index = Rf_allocMatrix(INTSXP, (int)n, (int)kk);
    SET_VECTOR_ELT(out, 0, index);
    SEXP sim = Rf_allocMatrix(REALSXP, (int)n, (int)kk);
    SET_VECTOR_ELT(out, 1, sim);
    SEXP scratch = PROTECT(Rf_allocVector(RAWSXP, n * kk * (R_xlen_t)(sizeof(int64_t) + sizeof(double))));
    int64_t *idx = (int64_t *)RAW(scratch);
    double *s = (double *)(idx + n * kk);
    progress_state st = {0, 0, 0, -1};
    sporf_error err;
    int rc = sporf_forest_neighbors(f, &ref, self ? NULL : &q, (int64_t)kk, Rf_asInteger(n_jobs), idx, s,
                                    progress_cb, &st, &err);
    if (rc != SPORF_OK)
        raise_proximity_error(rc, &st, &err);
    copy_row_major(REAL(sim), s, n, kk);
    int *io = INTEGER(index);
    for (R_xlen_t i = 0; i < n; i++) /* 1-based row numbers, by column */
        for (R_xlen_t a = 0; a < kk; a++)
            io[i + a * n] = (int)idx[i * kk + a] + 1;
    UNPROTECT(2);
    return out;
}

/* proximity_dense(handle, reference, query or NULL, n_jobs) -> n_query x n_ref matrix. */
SEXP sporf_r_proximity_dense(SEXP handle, SEXP reference, SEXP query, SEXP n_jobs)
{
    sporf_forest *f = get_forest(handle);
    sporf_matrix ref = matrix_view(reference), q;
    const int self = Rf_isNull(query);
    if (!self) q = matrix_view(query);
    const R_xlen_t n = self ? (R_xlen_t)ref.nrow : (R_xlen_t)q.nrow, m = (R_xlen_t)ref.nrow;
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)n, (int)m));
    SEXP scratch = PROTECT(Rf_allocVector(RAWSXP, n * m * (R_xlen_t)sizeof(double)));
    double *rowmajor = (double *)RAW(scratch);
    progress_state st = {0, 0, 0, -1};
    sporf_error err;
    int rc = sporf_forest_proximity_dense(f, &ref, self ? NULL : &q, Rf_asInteger(n_jobs), rowmajor, progress_cb,
                                          &st, &err);
    if (rc != SPORF_OK)
        raise_proximity_error(rc, &st, &err);
    copy_row_major(REAL(out), rowmajor, n, m);
    UNPROTECT(2);
    return out;
}

SEXP sporf_r_physical_memory(void)
{
    return Rf_ScalarReal((double)sporf_physical_memory());
}

static const R_CallMethodDef call_methods[] = {
    {"sporf_r_fit", (DL_FUNC)&sporf_r_fit, 10},
    {"sporf_r_quantiles", (DL_FUNC)&sporf_r_quantiles, 5},
    {"sporf_r_interval_scores", (DL_FUNC)&sporf_r_interval_scores, 5},
    {"sporf_r_predict_interval", (DL_FUNC)&sporf_r_predict_interval, 5},
    {"sporf_r_survival", (DL_FUNC)&sporf_r_survival, 6},
    {"sporf_r_survival_interval_scores", (DL_FUNC)&sporf_r_survival_interval_scores, 6},
    {"sporf_r_predict_survival_interval", (DL_FUNC)&sporf_r_predict_survival_interval, 6},
    {"sporf_r_unique_times", (DL_FUNC)&sporf_r_unique_times, 1},
    {"sporf_r_concordance", (DL_FUNC)&sporf_r_concordance, 3},
    {"sporf_r_order_levels", (DL_FUNC)&sporf_r_order_levels, 5},
    {"sporf_r_oob_predict", (DL_FUNC)&sporf_r_oob_predict, 3},
    {"sporf_r_set_levels", (DL_FUNC)&sporf_r_set_levels, 3},
    {"sporf_r_get_levels", (DL_FUNC)&sporf_r_get_levels, 1},
    {"sporf_r_load", (DL_FUNC)&sporf_r_load, 1},
    {"sporf_r_save", (DL_FUNC)&sporf_r_save, 1},
    {"sporf_r_merge", (DL_FUNC)&sporf_r_merge, 1},
    {"sporf_r_is_valid", (DL_FUNC)&sporf_r_is_valid, 1},
    {"sporf_r_predict_proba", (DL_FUNC)&sporf_r_predict_proba, 3},
    {"sporf_r_apply", (DL_FUNC)&sporf_r_apply, 3},
    {"sporf_r_get_tree", (DL_FUNC)&sporf_r_get_tree, 2},
    {"sporf_r_oob_curve", (DL_FUNC)&sporf_r_oob_curve, 3},
    {"sporf_r_permutation_importance", (DL_FUNC)&sporf_r_permutation_importance, 5},
    {"sporf_r_votes", (DL_FUNC)&sporf_r_votes, 3},
    {"sporf_r_set_note", (DL_FUNC)&sporf_r_set_note, 2},
    {"sporf_r_get_note", (DL_FUNC)&sporf_r_get_note, 1},
    {"sporf_r_importances", (DL_FUNC)&sporf_r_importances, 1},
    {"sporf_r_info", (DL_FUNC)&sporf_r_info, 1},
    {"sporf_r_outputs", (DL_FUNC)&sporf_r_outputs, 1},
    {"sporf_r_usage", (DL_FUNC)&sporf_r_usage, 1},
    {"sporf_r_projection_importances", (DL_FUNC)&sporf_r_projection_importances, 1},
    {"sporf_r_params", (DL_FUNC)&sporf_r_params, 1},
    {"sporf_r_leaf_choice", (DL_FUNC)&sporf_r_leaf_choice, 1},
    {"sporf_r_kind_choice", (DL_FUNC)&sporf_r_kind_choice, 1},
    {"sporf_r_trees_to_add", (DL_FUNC)&sporf_r_trees_to_add, 3},
    {"sporf_r_check_params", (DL_FUNC)&sporf_r_check_params, 2},
    {"sporf_r_class_weights", (DL_FUNC)&sporf_r_class_weights, 1},
    {"sporf_r_set_strings", (DL_FUNC)&sporf_r_set_strings, 4},
    {"sporf_r_get_strings", (DL_FUNC)&sporf_r_get_strings, 2},
    {"sporf_r_num_cores", (DL_FUNC)&sporf_r_num_cores, 0},
    {"sporf_r_fit_unsupervised", (DL_FUNC)&sporf_r_fit_unsupervised, 4},
    {"sporf_r_set_score_threshold", (DL_FUNC)&sporf_r_set_score_threshold, 2},
    {"sporf_r_score_threshold", (DL_FUNC)&sporf_r_score_threshold, 1},
    {"sporf_r_fingerprint", (DL_FUNC)&sporf_r_fingerprint, 1},
    {"sporf_r_set_outlier_share", (DL_FUNC)&sporf_r_set_outlier_share, 3},
    {"sporf_r_neighbors", (DL_FUNC)&sporf_r_neighbors, 5},
    {"sporf_r_proximity_dense", (DL_FUNC)&sporf_r_proximity_dense, 4},
    {"sporf_r_physical_memory", (DL_FUNC)&sporf_r_physical_memory, 0},
    {NULL, NULL, 0}};

void attribute_visible R_init_sporf(DllInfo *dll)
{
    R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
    R_useDynamicSymbols(dll, FALSE);
    R_forceSymbols(dll, TRUE);
}
