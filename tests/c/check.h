/* check.h -- what the C unit tests share: the CHECK counter, a row-major
 * view, and the summary line `meson test` reads ("N passed, N failed"). */
#ifndef SPORF_TEST_CHECK_H
#define SPORF_TEST_CHECK_H

#include <math.h>
#include <stdio.h>

#include "sporf.h"
#include "util/rng.h"

#include <stdlib.h>

static int n_pass = 0, n_fail = 0;
#define CHECK(cond, ...) do { \
    if (cond) n_pass++; \
    else { n_fail++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
} while (0)
#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

static inline sporf_matrix rowmajor(const double *X, int64_t n, int64_t p)
{
    sporf_matrix m = {X, n, p, p, 1, NULL};
    return m;
}

/* A standard normal draw (tests that make Gaussian data). */
static inline double normal(sporf_rng *rng)
{
    double u1 = sporf_rng_uniform(rng), u2 = sporf_rng_uniform(rng);
    if (u1 <= 0.0) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* A forest's model bytes (malloc'ed; the caller frees them), *len their count. */
static inline uint8_t *save(const sporf_forest *f, int64_t *len)
{
    sporf_error err;
    sporf_forest_save(f, NULL, 0, len, &err);
    uint8_t *buf = malloc((size_t)*len);
    sporf_forest_save(f, buf, *len, len, &err);
    return buf;
}

/* Print the summary; the exit status of main. */
static inline int check_summary(void)
{
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail == 0 ? 0 : 1;
}

#endif
