/*
 * The platform layer: the calls the library makes to the operating system
 * go through this interface, with one implementation file per platform
 * (posix.c; a Windows and a freestanding one can sit beside it). The types
 * are the platform's own, named here, so that structures can hold them by
 * value, as libuv's uv_mutex_t does; only this header and the
 * implementation files name a platform header.
 *
 * So far the thread pool (src/thread/pool.c) and CPU detection
 * (src/cpu/cpu.c) use it; files, the clock and the name-hash seed of the
 * model and graph code are to follow.
 *
 * Errors: the calls that can fail for lack of resources (starting a
 * thread) return false; the others cannot fail when used as documented
 * (a mutex is locked only by one thread, unlocked by its owner, destroyed
 * unlocked), and abort nothing: they ignore the platform's status there.
 */
#ifndef ONYX_OS_OS_H
#define ONYX_OS_OS_H

#include <stdbool.h>
#include <stdint.h>

#include <pthread.h>

typedef pthread_t onyx__os_thread;
typedef pthread_mutex_t onyx__os_mutex;
typedef pthread_cond_t onyx__os_cond;
typedef pthread_once_t onyx__os_once;
#define ONYX__OS_ONCE_INIT PTHREAD_ONCE_INIT

/* Threads. fn(arg) runs on a new thread; false if none could be started. */
bool onyx__os_thread_start(onyx__os_thread *t, void *(*fn)(void *), void *arg);
/* Waits for t to return (once per started thread). */
void onyx__os_thread_join(onyx__os_thread t);

/* Mutexes (not recursive) and condition variables. */
void onyx__os_mutex_init(onyx__os_mutex *m);
void onyx__os_mutex_destroy(onyx__os_mutex *m);
void onyx__os_mutex_lock(onyx__os_mutex *m);
/* true if it took m; false if another thread holds it. */
bool onyx__os_mutex_trylock(onyx__os_mutex *m);
void onyx__os_mutex_unlock(onyx__os_mutex *m);
void onyx__os_cond_init(onyx__os_cond *c);
void onyx__os_cond_destroy(onyx__os_cond *c);
/* Releases m (held by the caller), sleeps until woken, retakes m. May
 * return spuriously: callers wait in a loop on their own condition. */
void onyx__os_cond_wait(onyx__os_cond *c, onyx__os_mutex *m);
void onyx__os_cond_signal(onyx__os_cond *c);
void onyx__os_cond_broadcast(onyx__os_cond *c);

/* Runs fn exactly once per once object, however many threads call; every
 * caller returns after fn has returned. */
void onyx__os_once_run(onyx__os_once *once, void (*fn)(void));

/* The number of CPUs online, from 1 to 1024 (1 where unknown). */
unsigned onyx__os_cpu_count(void);

/* A monotonic clock in nanoseconds (0 where there is none). */
uint64_t onyx__os_clock_ns(void);

/*
 * The kernel's hardware capability words (Linux: getauxval(AT_HWCAP) and
 * AT_HWCAP2), the way ARM Linux reports optional CPU features such as NEON
 * on 32-bit ARM. Both are 0 where the platform has no such words.
 */
void onyx__os_hwcap(unsigned long *hwcap, unsigned long *hwcap2);

#endif
