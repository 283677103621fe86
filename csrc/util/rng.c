/* rng.c -- SplitMix64-seeded xoshiro256** (Blackman & Vigna), integers only
 * so every platform produces the same streams. */
#include "util/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void sporf_rng_seed(sporf_rng *rng, uint64_t seed, uint64_t stream)
{
    /* Mix seed and stream through two SplitMix64 rounds so that nearby
     * seeds and nearby tree indices give unrelated streams. */
    uint64_t x = seed;
    uint64_t a = splitmix64(&x);
    uint64_t y = a ^ (stream * 0xD1342543DE82EF95ULL + 0x2545F4914F6CDD1DULL);
    for (int i = 0; i < 4; i++)
        rng->s[i] = splitmix64(&y);
    if ((rng->s[0] | rng->s[1] | rng->s[2] | rng->s[3]) == 0)
        rng->s[0] = 1; /* the all-zero state is the one fixed point */
}

uint64_t sporf_rng_next(sporf_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t sporf_rng_below(sporf_rng *rng, uint64_t n)
{
    if (n <= 1)
        return 0;
    /* Reject the top partial range so every residue is equally likely. */
    uint64_t limit = UINT64_MAX - (UINT64_MAX % n);
    uint64_t x;
    do {
        x = sporf_rng_next(rng);
    } while (x >= limit);
    return x % n;
}

double sporf_rng_uniform(sporf_rng *rng)
{
    return (double)(sporf_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
}

double sporf_rng_uniform_open(sporf_rng *rng)
{
    return (double)((sporf_rng_next(rng) >> 11) | 1) * (1.0 / 9007199254740992.0);
}
