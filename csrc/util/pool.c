/* pool.c -- see pool.h. */
#define _POSIX_C_SOURCE 200809L
#include "util/pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct sporf_pool_ctl {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t next, done, n_units;
    int cancel;
    int32_t running;
    int status;
    sporf_error err;
    sporf_unit_fn fn;
    void *ctx;
};

typedef struct worker_arg {
    sporf_pool_ctl *ctl;
    int32_t id;
} worker_arg;

int sporf_pool_cancelled(sporf_pool_ctl *ctl)
{
    pthread_mutex_lock(&ctl->mu);
    int c = ctl->cancel;
    pthread_mutex_unlock(&ctl->mu);
    return c;
}

int32_t sporf_num_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 1 ? (int32_t)(n > 1024 ? 1024 : n) : 1;
}

int32_t sporf_pool_threads(int32_t n_jobs, int64_t n_units)
{
    int64_t t = n_jobs <= 0 ? sporf_num_cores() : n_jobs;
    if (t > n_units) t = n_units;
    if (t > 1024) t = 1024;
    return t < 1 ? 1 : (int32_t)t;
}

/* Take units until none is left or the run is cancelled. */
static void work_loop(sporf_pool_ctl *ctl, int32_t id)
{
    for (;;) {
        pthread_mutex_lock(&ctl->mu);
        if (ctl->cancel || ctl->next >= ctl->n_units) {
            pthread_mutex_unlock(&ctl->mu);
            return;
        }
        int64_t unit = ctl->next++;
        pthread_mutex_unlock(&ctl->mu);

        sporf_error e;
        e.code = SPORF_OK;
        e.message[0] = '\0';
        int rc = ctl->fn(ctl->ctx, unit, id, ctl, &e);

        pthread_mutex_lock(&ctl->mu);
        ctl->done++;
        if (rc != SPORF_OK && ctl->status == SPORF_OK) {
            ctl->status = rc;
            ctl->err = e;
            ctl->err.code = rc;
        }
        if (rc != SPORF_OK)
            ctl->cancel = 1;
        pthread_cond_broadcast(&ctl->cv);
        pthread_mutex_unlock(&ctl->mu);
    }
}

static void *worker_main(void *p)
{
    worker_arg *a = p;
    work_loop(a->ctl, a->id);
    pthread_mutex_lock(&a->ctl->mu);
    a->ctl->running--;
    pthread_cond_broadcast(&a->ctl->cv);
    pthread_mutex_unlock(&a->ctl->mu);
    return NULL;
}

static int finish(sporf_pool_ctl *ctl, sporf_error *err)
{
    int status = ctl->status;
    if (status == SPORF_OK && ctl->cancel)
        status = SPORF_E_INTERRUPTED;
    if (status == SPORF_E_INTERRUPTED && ctl->status == SPORF_OK)
        sporf_set_error(err, status, "interrupted: the computation was cancelled");
    else if (status != SPORF_OK && err)
        *err = ctl->err;
    pthread_cond_destroy(&ctl->cv);
    pthread_mutex_destroy(&ctl->mu);
    return status;
}

int sporf_pool_run(int32_t n_threads, int64_t n_units, sporf_unit_fn fn, void *ctx,
                   sporf_progress_fn progress, void *user_data, sporf_error *err)
{
    sporf_pool_ctl ctl;
    memset(&ctl, 0, sizeof ctl);
    ctl.n_units = n_units;
    ctl.fn = fn;
    ctl.ctx = ctx;
    if (pthread_mutex_init(&ctl.mu, NULL) != 0)
        return sporf_set_error(err, SPORF_E_THREAD, "could not create a mutex");
    if (pthread_cond_init(&ctl.cv, NULL) != 0) {
        pthread_mutex_destroy(&ctl.mu);
        return sporf_set_error(err, SPORF_E_THREAD, "could not create a condition variable");
    }
    if (n_units <= 0)
        return finish(&ctl, err);
    if (n_threads < 1)
        n_threads = 1;

    if (progress == NULL && n_threads == 1) {
        work_loop(&ctl, 0);
        return finish(&ctl, err);
    }

    pthread_t *threads = malloc((size_t)n_threads * sizeof *threads);
    worker_arg *args = malloc((size_t)n_threads * sizeof *args);
    if (!threads || !args) {
        free(threads);
        free(args);
        pthread_cond_destroy(&ctl.cv);
        pthread_mutex_destroy(&ctl.mu);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory starting worker threads");
    }
    int32_t started = 0;
    pthread_mutex_lock(&ctl.mu);
    for (int32_t i = 0; i < n_threads; i++) {
        args[i].ctl = &ctl;
        args[i].id = i;
        if (pthread_create(&threads[i], NULL, worker_main, &args[i]) != 0)
            break;
        started++;
        ctl.running++;
    }
    pthread_mutex_unlock(&ctl.mu);
    if (started == 0) {
        free(threads);
        free(args);
        pthread_cond_destroy(&ctl.cv);
        pthread_mutex_destroy(&ctl.mu);
        return sporf_set_error(err, SPORF_E_THREAD, "could not start a worker thread");
    }

    /* Wait, waking every 100 ms to report progress and relay a stop request.
     * The callback runs without the lock held, on this (the host's) thread. */
    pthread_mutex_lock(&ctl.mu);
    while (ctl.running > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100L * 1000L * 1000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec += 1;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&ctl.cv, &ctl.mu, &ts);
        if (progress && ctl.running > 0 && !ctl.cancel) {
            int64_t done = ctl.done;
            pthread_mutex_unlock(&ctl.mu);
            int stop = progress(user_data, done, n_units);
            pthread_mutex_lock(&ctl.mu);
            if (stop)
                ctl.cancel = 1;
        }
    }
    pthread_mutex_unlock(&ctl.mu);
    for (int32_t i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    free(args);
    if (progress && !ctl.cancel && ctl.status == SPORF_OK) {
        if (progress(user_data, ctl.done, n_units))
            ctl.cancel = 1;
    }
    return finish(&ctl, err);
}
