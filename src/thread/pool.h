/* SPDX-License-Identifier: MIT */
/*
 * A fork-join thread pool: onyx__pool_run(pool, n, fn, ctx) calls fn(ctx, i,
 * worker) for every i in [0, n) and returns when all calls are done. The
 * calling thread takes part as worker 0; the pool's threads are workers 1..
 * Tasks are handed out one at a time from a shared counter, so a slow
 * thread never holds up a fast one for long.
 *
 * One job runs at a time. A caller that finds the pool busy (another
 * thread's run of the same session) runs its whole job inline as worker 0;
 * results are the same either way because tasks never depend on which
 * worker runs them.
 *
 * A pool survives fork(): in the child, its first run starts the pool's
 * threads anew (the parent's are not copied), and a pool freed in a child
 * before it ran frees its memory only (see pool.c).
 */
#ifndef ONYX_THREAD_POOL_H
#define ONYX_THREAD_POOL_H

#include <stddef.h>

#include "onyx.h"

typedef struct onyx__pool onyx__pool;
typedef void (*onyx__task_fn)(void *ctx, size_t task, unsigned worker);

#if defined(ONYX_NO_THREADS) && !defined(ONYX__POOL_OUT_OF_LINE)
/*
 * A build without threads (ONYX__OS_HAS_THREADS 0) has no pool: these
 * inline forms let the compiler drop the pool's code from every image,
 * also without link-time optimisation (pool.c cost a Cortex-M3 image
 * 1,453 bytes). Sessions clamp their thread count to
 * onyx__pool_max_workers(), so onyx__pool_create is never reached there;
 * it fails as starting a thread does. pool.c defines the same out of line
 * (ONYX__POOL_OUT_OF_LINE), for code built without ONYX_NO_THREADS, such
 * as the unit tests.
 */
#include "core/error.h"
#include "os/os.h"

static inline onyx_status onyx__pool_create(unsigned n_threads, onyx__pool **out, onyx_error *err) {
  *out = NULL;
  return onyx__fail(err, ONYX_LIMIT, "could not start thread 2 of %u: this build has no threads",
                    n_threads);
}
static inline void onyx__pool_free(onyx__pool *pool) { (void)pool; }
static inline unsigned onyx__pool_size(const onyx__pool *pool) { return (void)pool, 1u; }
static inline void onyx__pool_run(onyx__pool *pool, size_t n_tasks, onyx__task_fn fn, void *ctx) {
  (void)pool;
  for (size_t i = 0; fn != NULL && i < n_tasks; i++) fn(ctx, i, 0);
}
static inline unsigned onyx__cpu_count(void) { return onyx__os_cpu_count(); }
static inline unsigned onyx__pool_max_workers(void) { return 1u; }
#else
/* Starts n_threads - 1 threads (n_threads >= 2). ONYX_OUT_OF_MEMORY, or
 * ONYX_LIMIT if the system refuses a thread. */
onyx_status onyx__pool_create(unsigned n_threads, onyx__pool **out, onyx_error *err);

/* Stops and joins the threads. NULL is a no-op. No job may be running. */
void onyx__pool_free(onyx__pool *pool);

/* The number of workers including the caller (1 for a NULL pool). */
unsigned onyx__pool_size(const onyx__pool *pool);

/* Runs the job; a NULL pool runs it inline. */
void onyx__pool_run(onyx__pool *pool, size_t n_tasks, onyx__task_fn fn, void *ctx);

/* The number of CPUs this process may use, at least 1. */
unsigned onyx__cpu_count(void);

/* The most workers a pool may have: 256, or 1 in a build without threads,
 * where sessions clamp their thread count to it (threads never change
 * results, so asking for more is not an error). */
unsigned onyx__pool_max_workers(void);

#endif

#endif
