/*
 * params_r.h -- what the generated R list <-> sporf_params conversions
 * (params_r.c, from spec/params.toml) need: reading one element of the list
 * the R code builds (R/R/params.R), by name, and making the elements of the
 * list returned to it. The R code has validated every value; what arrives
 * here is only checked for shape, and the core checks the values again.
 */
#ifndef SPORF_PARAMS_R_H
#define SPORF_PARAMS_R_H

#include <R.h>
#include <Rinternals.h>

#include <string.h>

#include "sporf.h"

void sporf_r_params_from_list(SEXP list, sporf_params *p);
SEXP sporf_r_params_to_list(const sporf_params *p);

static inline SEXP sporf_r_elt(SEXP list, const char *name)
{
    SEXP names = Rf_getAttrib(list, R_NamesSymbol);
    if (TYPEOF(list) != VECSXP || TYPEOF(names) != STRSXP)
        Rf_error("internal: parameters must be a named list");
    for (R_xlen_t i = 0; i < XLENGTH(list); i++)
        if (strcmp(CHAR(STRING_ELT(names, i)), name) == 0)
            return VECTOR_ELT(list, i);
    Rf_error("internal: parameter '%s' is missing", name);
    return R_NilValue; /* not reached */
}

static inline double sporf_r_num(SEXP list, const char *name)
{
    SEXP v = sporf_r_elt(list, name);
    if (XLENGTH(v) != 1 || (TYPEOF(v) != REALSXP && TYPEOF(v) != INTSXP && TYPEOF(v) != LGLSXP))
        Rf_error("internal: parameter '%s' must be a single number", name);
    return Rf_asReal(v);
}

/* A whole number that fits the C field (<= 2^53, as R's doubles hold exactly). */
static inline double sporf_r_whole(SEXP list, const char *name)
{
    const double v = sporf_r_num(list, name);
    if (!(v >= -9007199254740992.0 && v <= 9007199254740992.0) || v != (double)(int64_t)v)
        Rf_error("internal: parameter '%s' must be a whole number in [-2^53, 2^53]", name);
    return v;
}

/* c(form, value) */
static inline void sporf_r_amount(SEXP list, const char *name, sporf_amount *a)
{
    SEXP v = sporf_r_elt(list, name);
    if (TYPEOF(v) != REALSXP || XLENGTH(v) != 2)
        Rf_error("internal: parameter '%s' must be c(form, value)", name);
    a->form = (int32_t)REAL(v)[0];
    a->value = REAL(v)[1];
}

static inline SEXP sporf_r_amount_sexp(const sporf_amount *a)
{
    SEXP v = Rf_allocVector(REALSXP, 2);
    REAL(v)[0] = a->form;
    REAL(v)[1] = a->value;
    return v;
}

/* Up to SPORF_MAX_DIMS whole numbers (exactly SPORF_MAX_DIMS unless
 * any_length); entries not given are 0. Returns how many were given. */
static inline int32_t sporf_r_axes_int(SEXP list, const char *name, int64_t *out, int any_length)
{
    SEXP v = sporf_r_elt(list, name);
    const R_xlen_t n = XLENGTH(v);
    if (TYPEOF(v) != REALSXP || n > SPORF_MAX_DIMS || (!any_length && n != SPORF_MAX_DIMS))
        Rf_error("internal: parameter '%s' must be a double vector of %s %d entries", name,
                 any_length ? "at most" : "", SPORF_MAX_DIMS);
    for (int k = 0; k < SPORF_MAX_DIMS; k++) {
        const double d = k < n ? REAL(v)[k] : 0.0;
        if (!(d >= 0.0 && d <= 9007199254740992.0))
            Rf_error("internal: parameter '%s' has an entry out of range", name);
        out[k] = (int64_t)d;
    }
    return (int32_t)n;
}

static inline void sporf_r_axes_i32(SEXP list, const char *name, int32_t *out)
{
    int64_t wide[SPORF_MAX_DIMS];
    (void)sporf_r_axes_int(list, name, wide, 0);
    /* Codes are small; a larger number is still refused by the core's check,
     * but must not overflow int32_t on the way there. */
    for (int k = 0; k < SPORF_MAX_DIMS; k++) out[k] = wide[k] > 1000 ? 1000 : (int32_t)wide[k];
}

static inline SEXP sporf_r_axes_sexp_i64(const int64_t *v, int32_t n)
{
    SEXP out = Rf_allocVector(REALSXP, n < 0 ? 0 : n);
    for (int32_t k = 0; k < n; k++) REAL(out)[k] = (double)v[k];
    return out;
}

static inline SEXP sporf_r_axes_sexp_i32(const int32_t *v, int32_t n)
{
    SEXP out = Rf_allocVector(REALSXP, n);
    for (int32_t k = 0; k < n; k++) REAL(out)[k] = v[k];
    return out;
}

#endif
