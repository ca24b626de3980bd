/* SPDX-License-Identifier: MIT */
#if defined(ONYX_NO_THREADS)
#define ONYX__POOL_OUT_OF_LINE /* pool.h's inline forms, as functions */
#endif
#include "thread/pool.h"

#include <stdatomic.h>
#include <stdbool.h>

#include "core/alloc.h"
#include "core/error.h"
#include "os/compiler.h"
#include "os/os.h"

#if defined(ONYX_NO_THREADS)
/* A build without threads: pool.h's inline forms, for code that does not
 * see them. */
onyx_status onyx__pool_create(unsigned n_threads, onyx__pool **out, onyx_error *err) {
  *out = NULL;
  return onyx__fail(err, ONYX_LIMIT, "could not start thread 2 of %u: this build has no threads",
                    n_threads);
}
void onyx__pool_free(onyx__pool *pool) { (void)pool; }
unsigned onyx__pool_size(const onyx__pool *pool) { return (void)pool, 1u; }
void onyx__pool_run(onyx__pool *pool, size_t n_tasks, onyx__task_fn fn, void *ctx) {
  (void)pool;
  for (size_t i = 0; fn != NULL && i < n_tasks; i++) fn(ctx, i, 0);
}
unsigned onyx__cpu_count(void) { return onyx__os_cpu_count(); }
unsigned onyx__pool_max_workers(void) { return 1u; }
#else

/*
 * Locking and waking: a job is published by storing its fields, then
 * bumping `generation`. A worker that finished the previous job spins on
 * `generation` for a short while (a back-to-back run then starts it in well
 * under a microsecond), and only then sleeps on `wake`, counting itself in
 * `sleepers` under `lock` before re-checking `generation`. The publisher
 * bumps `generation` before it reads `sleepers` (both sequentially
 * consistent), so either the worker sees the new generation or the
 * publisher sees the sleeper and broadcasts under the lock. The caller does
 * not return (and so does not let the job's context go out of scope) until
 * `active` drops to zero. `busy` is held by the one caller whose job the
 * pool is running.
 *
 * Fork: a child process has only the thread that called fork(), so the
 * pool's threads are not there, and a lock that one of them (or another of
 * the parent's threads) held at the fork stays locked in the child. The
 * pool therefore remembers the process that started its threads (`owner`).
 * A run in any other process first restarts the pool there: one caller
 * claims it (owner is 0 while it does, and concurrent callers run their
 * jobs inline meanwhile), sets up the locks anew without touching the
 * copies inherited, starts fresh threads and makes the pool its process's.
 * If no thread can be started, the child's pool has none and every job
 * runs on the caller. Freeing a pool in a process that is not its owner
 * frees the memory only: there is no thread to stop and nothing to unlock.
 */
/*
 * Each worker's share of a job: the tasks [next, end) of one contiguous
 * block, worker w's block being the w-th of n_threads + 1. A worker runs
 * its own block first, then takes what is left of the others', so that
 * the same worker runs the same tasks from one job to the next (their data
 * stays in its core's cache: on 2 cores, float16 Ceil on 1e5 elements
 * moved between the L2s every run when any thread took any task) while a
 * slow thread still cannot hold up a fast one for long. Padded to a cache
 * line so that workers taking tasks do not contend.
 */
typedef struct onyx__pool_share {
  atomic_size_t next;
  size_t end;
  unsigned char pad[64 - sizeof(atomic_size_t) - sizeof(size_t)];
} onyx__pool_share;

struct onyx__pool {
  onyx__os_mutex lock;
  onyx__os_cond wake;
  onyx__os_cond done;
  onyx__os_mutex busy;
  unsigned n_threads; /* started threads, not counting callers */
  onyx__os_thread *threads;
  atomic_ulong generation;
  atomic_uint sleepers;
  atomic_bool stop;
  onyx__task_fn fn;
  void *ctx;
  onyx__pool_share *shares; /* one per worker, the caller's first */
  atomic_uint active;       /* threads still working on the current job */
  atomic_ulong owner;       /* the process whose threads these are; 0 while restarting */
  unsigned capacity;        /* the workers asked for, the caller included */
  struct worker_arg *args;  /* one per started thread, read as it starts */
};

/* How long a thread spins before it sleeps: about 50 microseconds. */
enum { SPIN_ITERATIONS = 20000 };

typedef struct worker_arg {
  onyx__pool *pool;
  unsigned id;
} worker_arg;

/* Runs the worker's own block, then what is left of the others'. */
static void drain(onyx__pool *p, onyx__task_fn fn, void *ctx, unsigned worker) {
  unsigned workers = p->n_threads + 1;
  for (unsigned k = 0; k < workers; k++) {
    onyx__pool_share *sh = &p->shares[(worker + k) % workers];
    for (;;) {
      size_t i = atomic_fetch_add_explicit(&sh->next, 1, memory_order_relaxed);
      if (i >= sh->end) break;
      fn(ctx, i, worker);
    }
  }
}

static void *worker_main(void *arg) {
  onyx__pool *p = ((worker_arg *)arg)->pool;
  unsigned id = ((worker_arg *)arg)->id;
  unsigned long seen = 0;
  for (;;) {
    for (int i = 0; i < SPIN_ITERATIONS && atomic_load(&p->generation) == seen; i++) {
      onyx__spin_hint();
    }
    if (atomic_load(&p->generation) == seen) {
      onyx__os_mutex_lock(&p->lock);
      atomic_fetch_add(&p->sleepers, 1);
      while (!atomic_load(&p->stop) && atomic_load(&p->generation) == seen)
        onyx__os_cond_wait(&p->wake, &p->lock);
      atomic_fetch_sub(&p->sleepers, 1);
      onyx__os_mutex_unlock(&p->lock);
    }
    if (atomic_load(&p->stop)) return NULL;
    /* The job's fields were written before generation was bumped. */
    seen = atomic_load(&p->generation);
    drain(p, p->fn, p->ctx, id);

    if (atomic_fetch_sub_explicit(&p->active, 1, memory_order_acq_rel) == 1) {
      onyx__os_mutex_lock(&p->lock);
      onyx__os_cond_signal(&p->done);
      onyx__os_mutex_unlock(&p->lock);
    }
  }
}

/* Sets up the locks and counters for this process and starts up to
 * capacity - 1 threads; p->n_threads says how many started. false if one
 * could not be started: those started are then stopped again. */
static bool start(onyx__pool *p) {
  onyx__os_mutex_init(&p->lock);
  onyx__os_mutex_init(&p->busy);
  onyx__os_cond_init(&p->wake);
  onyx__os_cond_init(&p->done);
  for (unsigned i = 0; i < p->capacity; i++) atomic_init(&p->shares[i].next, 0);
  atomic_init(&p->active, 0);
  atomic_init(&p->generation, 0);
  atomic_init(&p->sleepers, 0);
  atomic_init(&p->stop, false);
  p->n_threads = 0;
  for (unsigned i = 0; i + 1 < p->capacity; i++) {
    p->args[i].pool = p;
    p->args[i].id = i + 1;
    if (!onyx__os_thread_start(&p->threads[i], worker_main, &p->args[i])) return false;
    p->n_threads++;
  }
  return true;
}

/* Stops and joins the threads this process started. */
static void stop(onyx__pool *p) {
  onyx__os_mutex_lock(&p->lock);
  atomic_store(&p->stop, true);
  onyx__os_cond_broadcast(&p->wake);
  onyx__os_mutex_unlock(&p->lock);
  for (unsigned i = 0; i < p->n_threads; i++) onyx__os_thread_join(p->threads[i]);
  p->n_threads = 0;
}

static void destroy_locks(onyx__pool *p) {
  onyx__os_mutex_destroy(&p->lock);
  onyx__os_mutex_destroy(&p->busy);
  onyx__os_cond_destroy(&p->wake);
  onyx__os_cond_destroy(&p->done);
}

static void free_memory(onyx__pool *p) {
  onyx__free(p->threads);
  onyx__free(p->shares);
  onyx__free(p->args);
  onyx__free(p);
}

onyx_status onyx__pool_create(unsigned n_threads, onyx__pool **out, onyx_error *err) {
  *out = NULL;
  onyx__pool *p = onyx__calloc(1, sizeof *p);
  if (p != NULL) {
    p->threads = onyx__calloc(n_threads, sizeof *p->threads);
    p->shares = onyx__calloc(n_threads, sizeof *p->shares);
    p->args = onyx__calloc(n_threads, sizeof *p->args);
  }
  if (p == NULL || p->threads == NULL || p->shares == NULL || p->args == NULL) {
    if (p != NULL) free_memory(p);
    return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory for the thread pool");
  }
  p->capacity = n_threads;
  atomic_init(&p->owner, onyx__os_process_id());
  if (!start(p)) {
    unsigned started = p->n_threads;
    stop(p);
    destroy_locks(p);
    free_memory(p);
    return onyx__fail(err, ONYX_LIMIT, "could not start thread %u of %u", started + 2, n_threads);
  }
  *out = p;
  return ONYX_OK;
}

void onyx__pool_free(onyx__pool *p) {
  if (p == NULL) return;
  /* In a forked child that never ran a job the threads and the locks'
   * state are the parent's: leave them alone. */
  if (atomic_load(&p->owner) == onyx__os_process_id()) {
    stop(p);
    destroy_locks(p);
  }
  free_memory(p);
}

/* true when the pool's threads are this process's, after restarting them
 * if this is a forked child's first run; false while another thread of
 * this process restarts it (the caller then runs its job inline). */
static bool adopt(onyx__pool *p) {
  unsigned long me = onyx__os_process_id();
  unsigned long owner = atomic_load(&p->owner);
  if (owner == me) return true;
  if (owner == 0 || !atomic_compare_exchange_strong(&p->owner, &owner, 0)) return false;
  /* Only this thread of the child's (only) copy of the pool gets here. */
  if (!start(p)) stop(p); /* then no threads: jobs run on the caller */
  atomic_store(&p->owner, me);
  return true;
}

unsigned onyx__pool_size(const onyx__pool *p) { return p == NULL ? 1 : p->n_threads + 1; }

static void noop(void *ctx, size_t task, unsigned worker) { (void)ctx, (void)task, (void)worker; }

void onyx__pool_run(onyx__pool *p, size_t n_tasks, onyx__task_fn fn, void *ctx) {
  if (fn == NULL) fn = noop;
  if (p == NULL || !adopt(p) || p->n_threads == 0 || !onyx__os_mutex_trylock(&p->busy)) {
    for (size_t i = 0; i < n_tasks; i++) fn(ctx, i, 0);
    return;
  }
  p->fn = fn;
  p->ctx = ctx;
  unsigned workers = p->n_threads + 1;
  for (unsigned w = 0; w < workers; w++) {
    atomic_store_explicit(&p->shares[w].next, n_tasks * w / workers, memory_order_relaxed);
    p->shares[w].end = n_tasks * (w + 1) / workers;
  }
  atomic_store_explicit(&p->active, p->n_threads, memory_order_relaxed);
  atomic_fetch_add(&p->generation, 1);
  if (atomic_load(&p->sleepers) > 0) {
    onyx__os_mutex_lock(&p->lock);
    onyx__os_cond_broadcast(&p->wake);
    onyx__os_mutex_unlock(&p->lock);
  }

  drain(p, fn, ctx, 0);

  for (int i = 0; i < SPIN_ITERATIONS && atomic_load(&p->active) != 0; i++) onyx__spin_hint();
  if (atomic_load(&p->active) != 0) {
    onyx__os_mutex_lock(&p->lock);
    while (atomic_load_explicit(&p->active, memory_order_acquire) != 0)
      onyx__os_cond_wait(&p->done, &p->lock);
    onyx__os_mutex_unlock(&p->lock);
  }
  onyx__os_mutex_unlock(&p->busy);
}

unsigned onyx__cpu_count(void) { return onyx__os_cpu_count(); }

unsigned onyx__pool_max_workers(void) { return ONYX__OS_HAS_THREADS ? 256u : 1u; }

#endif
