/*
 * pool.h -- run independent units of work (trees, blocks of rows) on a few
 * pthreads while the calling thread waits, reports progress and relays
 * cancellation. Units are handed out from a shared counter; results must not
 * depend on which worker ran a unit (each unit writes only its own outputs).
 */
#ifndef SPORF_POOL_H
#define SPORF_POOL_H

#include "util/error.h"

typedef struct sporf_pool_ctl sporf_pool_ctl;

/* A unit of work. `worker` in [0, n_threads) indexes per-worker scratch.
 * Long units should poll sporf_pool_cancelled and return SPORF_E_INTERRUPTED. */
typedef int (*sporf_unit_fn)(void *ctx, int64_t unit, int32_t worker,
                             sporf_pool_ctl *ctl, sporf_error *err);

/* Thread-safe: has the run been cancelled (by the host or by a failed unit)? */
int sporf_pool_cancelled(sporf_pool_ctl *ctl);

/* Threads to use for n_jobs (<= 0: all cores), never more than n_units, at least 1. */
int32_t sporf_pool_threads(int32_t n_jobs, int64_t n_units);

/* Run units [0, n_units) on n_threads workers. The calling thread polls
 * `progress` about every 100 ms; a non-zero return cancels the run. Without
 * a progress callback and with one thread, units run on the calling thread.
 * Returns the first unit's error, SPORF_E_INTERRUPTED, or SPORF_OK. */
int sporf_pool_run(int32_t n_threads, int64_t n_units, sporf_unit_fn fn, void *ctx,
                   sporf_progress_fn progress, void *user_data, sporf_error *err);

#endif
