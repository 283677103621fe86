/* A fixed, reproducible data set for the C tests that use only the public
 * API: n rows of p features uniform in [-1, 1) from a linear congruential
 * sequence, three classes by the sum of the first two features, and a
 * regression response. */
#ifndef SPORF_TEST_DATA_H
#define SPORF_TEST_DATA_H

#include <stdint.h>

static void test_data(double *X, int32_t *y, double *yr, int n, int p, uint64_t seed)
{
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        double sum = 0.0;
        for (int j = 0; j < p; j++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            X[i * p + j] = (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
            if (j < 2) sum += X[i * p + j];
        }
        y[i] = sum < -0.3 ? 0 : sum < 0.3 ? 1 : 2;
        yr[i] = sum;
    }
}

#endif
