/* SPDX-License-Identifier: MIT */
/*
 * The thread calls of a build without threads (ONYX_THREADS=OFF): WebAssembly
 * without shared memory, and microcontrollers. No thread ever starts, so
 * nothing can contend: the locks need do nothing, and once is a flag. See
 * os.h.
 */
#include "os/os.h"

#if !ONYX__OS_HAS_THREADS

bool onyx__os_thread_start(onyx__os_thread *t, void *(*fn)(void *), void *arg) {
  (void)t, (void)fn, (void)arg;
  return false;
}

void onyx__os_thread_join(onyx__os_thread t) { (void)t; }

/* No thread is ever started, so no pool needs to tell a fork apart. */
unsigned long onyx__os_process_id(void) { return 1; }

void onyx__os_mutex_init(onyx__os_mutex *m) { (void)m; }
void onyx__os_mutex_destroy(onyx__os_mutex *m) { (void)m; }
void onyx__os_mutex_lock(onyx__os_mutex *m) { (void)m; }
bool onyx__os_mutex_trylock(onyx__os_mutex *m) {
  (void)m;
  return true;
}
void onyx__os_mutex_unlock(onyx__os_mutex *m) { (void)m; }
void onyx__os_cond_init(onyx__os_cond *c) { (void)c; }
void onyx__os_cond_destroy(onyx__os_cond *c) { (void)c; }
/* Only the pool waits, and only for threads that a build without threads
 * never starts. */
void onyx__os_cond_wait(onyx__os_cond *c, onyx__os_mutex *m) { (void)c, (void)m; }
void onyx__os_cond_signal(onyx__os_cond *c) { (void)c; }
void onyx__os_cond_broadcast(onyx__os_cond *c) { (void)c; }

void onyx__os_once_run(onyx__os_once *once, void (*fn)(void)) {
  if (*once == 0) {
    *once = 1;
    fn();
  }
}

#else
/* ISO C forbids an empty translation unit. */
typedef int onyx__os_threads_none_unused;
#endif
