/*
 * draws.h -- the rows a tree grows on, drawn first in the tree's stream.
 *
 * Three ways, by the parameters:
 *   bootstrap                    m draws with replacement (m = max_samples
 *                                resolved, n by default), in draw order;
 *   no bootstrap, max_samples    m distinct rows without replacement, in
 *                                ascending order (ranger's replace = FALSE,
 *                                sample.fraction): the rows not drawn are the
 *                                tree's out-of-bag rows;
 *   neither                      every row once, no draw from the stream.
 *
 * The fit, the regenerated in-bag bitmaps (out-of-bag results after a fit)
 * and sporf_tree_draws (trees grown from partitions) all read the draws
 * through this one iterator, so they agree row for row.
 *
 * Sampling without replacement is Knuth's selection sampling (TAOCP vol. 2,
 * Algorithm S): row i of the N is taken with probability (m - taken) / (N -
 * i), one integer draw per row until m are taken, and the rows left once
 * every remaining row is needed are taken without a draw. It needs no memory
 * and no sort, and it lists global row numbers, so a tree grown on a
 * partition's rows draws exactly what a fit on all the rows draws.
 */
#ifndef SPORF_DRAWS_H
#define SPORF_DRAWS_H

#include "model/params.h"
#include "util/rng.h"

#include <stdint.h>

/* Seed rng for tree t of a fit with these parameters: tree first_tree + t of
 * the seed's forest (its stream: the draws first, then the tree's growth). */
static inline void sporf_seed_tree(sporf_rng *rng, const sporf_params *params, int64_t t)
{
    sporf_rng_seed(rng, params->random_state, sporf_params_tree_stream(params, t));
}

typedef struct sporf_draws {
    sporf_rng *rng;
    uint64_t n_total; /* N: the rows drawn from */
    uint64_t m;       /* draws (bootstrap) or rows (subsample) */
    uint64_t done;    /* draws made, or rows taken */
    uint64_t next;    /* subsample: the next row to decide on */
    int replace;      /* 1: bootstrap draws */
} sporf_draws;

/* Begin the draws of one tree from rng (seeded for that tree) over n_total
 * rows; m = sporf_resolve_draws(p, n_total) (at most n_total without the
 * bootstrap: the caller checks). Only for p that samples rows. */
static inline void sporf_draws_begin(sporf_draws *d, const sporf_params *p, sporf_rng *rng, int64_t n_total,
                                     int64_t m)
{
    d->rng = rng;
    d->n_total = (uint64_t)n_total;
    d->m = (uint64_t)m;
    d->done = 0;
    d->next = 0;
    d->replace = p->bootstrap != 0;
}

/* The next drawn row (a bootstrap draw, or the next row of the subsample,
 * ascending), or -1 when the tree has all its rows. */
static inline int64_t sporf_draws_next(sporf_draws *d)
{
    if (d->done >= d->m)
        return -1;
    d->done++;
    if (d->replace)
        return (int64_t)sporf_rng_below(d->rng, d->n_total);
    for (;;) {
        const uint64_t i = d->next++;
        const uint64_t left = d->n_total - i, need = d->m - (d->done - 1);
        if (need >= left || sporf_rng_below(d->rng, left) < need)
            return (int64_t)i;
    }
}

#endif
