/*
 * rng.h -- seeded random streams. Tree t of a forest with master seed s draws
 * only from the stream (s, t), so a tree does not depend on which thread grew
 * it, and R and Python grow the same trees from the same seed.
 */
#ifndef SPORF_RNG_H
#define SPORF_RNG_H

#include <stdint.h>

typedef struct sporf_rng {
    uint64_t s[4]; /* xoshiro256** state */
} sporf_rng;

/* Seed the stream `stream` of master seed `seed` (SplitMix64 mixing). */
void sporf_rng_seed(sporf_rng *rng, uint64_t seed, uint64_t stream);

uint64_t sporf_rng_next(sporf_rng *rng);

/* Uniform integer in [0, n), n >= 1, without modulo bias. */
uint64_t sporf_rng_below(sporf_rng *rng, uint64_t n);

/* Uniform double in [0, 1) with 53 random bits. */
double sporf_rng_uniform(sporf_rng *rng);

/* Uniform double in (0, 1): the same draw with its lowest bit set, never 0
 * nor 1 (the random splitter's place between a minimum and a maximum). */
double sporf_rng_uniform_open(sporf_rng *rng);

#endif
