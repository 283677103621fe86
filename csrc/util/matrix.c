/* matrix.c -- see matrix.h. */
#include "util/matrix.h"

#include <math.h>
#include <string.h>

int sporf_check_matrix(const sporf_matrix *X, int64_t want_ncol, int check,
                       const char *what, sporf_error *err)
{
    if (!X || (!X->data && !X->data32))
        return sporf_set_error(err, SPORF_E_ARG, "%s: no data", what);
    if (X->data32 && check != SPORF_CHECK_FIT)
        return sporf_set_error(err, SPORF_E_ARG, "%s: float values are read by the fit functions only; pass doubles",
                               what);
    if (X->nrow < 1)
        return sporf_set_error(err, SPORF_E_ARG, "%s has 0 rows; at least 1 is required", what);
    if (X->ncol < 1)
        return sporf_set_error(err, SPORF_E_ARG, "%s has 0 columns; at least 1 is required", what);
    if (want_ncol > 0 && X->ncol != want_ncol)
        return sporf_set_error(err, SPORF_E_ARG, "%s has %lld columns but the forest was fitted with %lld",
                               what, (long long)X->ncol, (long long)want_ncol);
    if (X->nrow >= INT32_MAX || X->ncol > SPORF_MAX_FEATURES)
        return sporf_set_error(err, SPORF_E_ARG, "%s is too large (rows must be < 2^31 and columns < 2^28)", what);
    if ((X->nrow > 1 && X->row_stride == 0) || (X->ncol > 1 && X->col_stride == 0))
        return sporf_set_error(err, SPORF_E_ARG, "%s has a zero stride", what);
    if (X->data32) { /* a float's magnitude is below 1e100: only infinity is refused */
        for (int64_t i = 0; i < X->nrow; i++)
            for (int64_t j = 0; j < X->ncol; j++)
                if (isinf(X->data32[i * X->row_stride + j * X->col_stride]))
                    return sporf_infinite_error(err, what, i, j);
        return SPORF_OK;
    }
    if (check != SPORF_CHECK_SHAPE) {
        for (int64_t i = 0; i < X->nrow; i++) {
            const double *row = X->data + i * X->row_stride;
            if (sporf_row_first_nonfinite(row, X->ncol, X->col_stride) >= 0) {
                const int64_t bad = sporf_row_first_infinite(row, X->ncol, X->col_stride);
                if (bad >= 0)
                    return sporf_infinite_error(err, what, i, bad);
            }
            if (check != SPORF_CHECK_FIT)
                continue;
            for (int64_t j = 0; j < X->ncol; j++) {
                const double v = row[j * X->col_stride];
                if (fabs(v) > SPORF_MAX_ABS_VALUE)
                    return sporf_set_error(err, SPORF_E_ARG,
                                           "%s[%lld, %lld] = %g is too large: fitting takes values up to 1e100 in "
                                           "magnitude (squared sums would overflow); rescale the data",
                                           what, (long long)i, (long long)j, v);
            }
        }
    }
    return SPORF_OK;
}

/* 1 for NaN and infinities: their exponent bits are all ones. */
static inline uint64_t nonfinite_bit(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return (u & UINT64_C(0x7ff0000000000000)) == UINT64_C(0x7ff0000000000000);
}

int64_t sporf_row_first_nonfinite(const double *x, int64_t ncol, int64_t cs)
{
    /* OR-ing the test over the row, with no branch per value, lets the
     * compiler vectorize the common all-finite row; only a row with a bad
     * value is searched again. */
    uint64_t any = 0;
    if (cs == 1) {
        for (int64_t j = 0; j < ncol; j++)
            any |= nonfinite_bit(x[j]);
    } else {
        for (int64_t j = 0; j < ncol; j++)
            any |= nonfinite_bit(x[j * cs]);
    }
    if (!any)
        return -1;
    for (int64_t j = 0; j < ncol; j++)
        if (!isfinite(x[j * cs]))
            return j;
    return -1;
}

int64_t sporf_row_first_infinite(const double *x, int64_t ncol, int64_t cs)
{
    for (int64_t j = 0; j < ncol; j++)
        if (isinf(x[j * cs]))
            return j;
    return -1;
}

int64_t sporf_matrix_first_missing(const sporf_matrix *X)
{
    for (int64_t i = 0; i < X->nrow; i++) {
        const double *row = X->data + i * X->row_stride;
        if (sporf_row_first_nonfinite(row, X->ncol, X->col_stride) < 0)
            continue;
        for (int64_t j = 0; j < X->ncol; j++)
            if (isnan(row[j * X->col_stride]))
                return i * X->ncol + j;
    }
    return -1;
}

int sporf_infinite_error(sporf_error *err, const char *what, int64_t row, int64_t col)
{
    return sporf_set_error(err, SPORF_E_ARG,
                           "%s contains infinity (row %lld, column %lld); missing values are NaN, but an "
                           "infinite value has no place on a split's axis",
                           what, (long long)row, (long long)col);
}

int sporf_missing_unlearned_error(sporf_error *err, const char *what, int64_t row, int64_t col)
{
    return sporf_set_error(err, SPORF_E_ARG,
                           "%s contains NaN (row %lld, column %lld), but this model was saved in format 7 or "
                           "earlier, before sporf learned where missing values go; refit it to predict rows "
                           "with missing values",
                           what, (long long)row, (long long)col);
}

/* One 64-bit word into the running hash: a multiply-xorshift mix (each bit
 * of w reaches every bit of h), cheaper per word than a byte-wise hash. */
static uint64_t mix(uint64_t h, uint64_t w)
{
    h ^= w + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 31);
}

/* The bits of a value as the fingerprint reads it: every NaN one NaN (R's
 * NA and numpy's NaN alike), -0 as 0, float data as its doubles. */
static uint64_t value_bits(double v)
{
    if (v != v) v = NAN;
    if (v == 0.0) v = 0.0;
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

uint64_t sporf_matrix_fingerprint(const sporf_matrix *X)
{
    /* n, p and up to 1,024 rows spread evenly over the rows (all of them
     * when fewer): a fit on millions of rows pays for a few thousand values,
     * and other data, or the same rows in another order, almost surely gives
     * another fingerprint */
    const int64_t n = X->nrow, p = X->ncol, m = n < 1024 ? n : 1024;
    uint64_t h = mix(mix(0x5350524F46ULL, (uint64_t)n), (uint64_t)p);
    for (int64_t k = 0; k < m; k++) {
        const int64_t i = m == n ? k : (int64_t)((double)k * (double)n / (double)m);
        h = mix(h, (uint64_t)i);
        for (int64_t j = 0; j < p; j++) {
            const int64_t at = i * X->row_stride + j * X->col_stride;
            h = mix(h, value_bits(X->data32 ? (double)X->data32[at] : X->data[at]));
        }
    }
    return h;
}