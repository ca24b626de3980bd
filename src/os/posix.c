/* SPDX-License-Identifier: MIT */
/*
 * The platform layer on POSIX systems (Linux, and other Unixes where the
 * calls exist). See os.h.
 */
#include "os/os.h"

#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/auxv.h>
#endif

#if ONYX__OS_HAS_THREADS
bool onyx__os_thread_start(onyx__os_thread *t, void *(*fn)(void *), void *arg) {
  return pthread_create(t, NULL, fn, arg) == 0;
}

void onyx__os_thread_join(onyx__os_thread t) { (void)pthread_join(t, NULL); }

/* getpid cannot fail; a pid is positive. */
unsigned long onyx__os_process_id(void) { return (unsigned long)getpid(); }

/*
 * Default attributes: initialising cannot fail on Linux and the BSDs (the
 * only documented errors are for resources that default mutexes and
 * condition variables do not take).
 */
void onyx__os_mutex_init(onyx__os_mutex *m) { (void)pthread_mutex_init(m, NULL); }
void onyx__os_mutex_destroy(onyx__os_mutex *m) { (void)pthread_mutex_destroy(m); }
void onyx__os_mutex_lock(onyx__os_mutex *m) { (void)pthread_mutex_lock(m); }
bool onyx__os_mutex_trylock(onyx__os_mutex *m) { return pthread_mutex_trylock(m) == 0; }
void onyx__os_mutex_unlock(onyx__os_mutex *m) { (void)pthread_mutex_unlock(m); }
void onyx__os_cond_init(onyx__os_cond *c) { (void)pthread_cond_init(c, NULL); }
void onyx__os_cond_destroy(onyx__os_cond *c) { (void)pthread_cond_destroy(c); }
void onyx__os_cond_wait(onyx__os_cond *c, onyx__os_mutex *m) { (void)pthread_cond_wait(c, m); }
void onyx__os_cond_signal(onyx__os_cond *c) { (void)pthread_cond_signal(c); }
void onyx__os_cond_broadcast(onyx__os_cond *c) { (void)pthread_cond_broadcast(c); }

/* pthread_once cannot fail with a statically initialised once object. */
void onyx__os_once_run(onyx__os_once *once, void (*fn)(void)) { (void)pthread_once(once, fn); }
#endif

unsigned onyx__os_cpu_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1u : n > 1024 ? 1024u : (unsigned)n;
}

uint64_t onyx__os_clock_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void onyx__os_hwcap(unsigned long *hwcap, unsigned long *hwcap2) {
#if defined(__linux__) && defined(AT_HWCAP)
  /* getauxval returns 0 for a missing entry, which reads as "no feature". */
  *hwcap = getauxval(AT_HWCAP);
#ifdef AT_HWCAP2
  *hwcap2 = getauxval(AT_HWCAP2);
#else
  *hwcap2 = 0;
#endif
#else
  *hwcap = 0;
  *hwcap2 = 0;
#endif
}

uint64_t onyx__os_seed(void) {
  /* The clock differs from call to call; the addresses of a static and a
   * stack variable differ from run to run under ASLR. */
  static const char anchor = 0;
  struct timespec ts = {0, 0};
  (void)clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t z = onyx__os_mix64((uint64_t)(uintptr_t)&ts);
  z = onyx__os_mix64(z ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32));
  return onyx__os_mix64(z ^ (uint64_t)(uintptr_t)&anchor);
}

/* ---- Shared libraries --------------------------------------------------- */

/* WebAssembly (WASI) has no dynamic loader: library_none.c serves it. */
#if !defined(__wasi__)
#include <dlfcn.h>
#include <string.h>

int onyx__os_library_open(const char *path, onyx__os_library **out, char *why, size_t cap) {
  /* RTLD_LOCAL: an op library's symbols do not resolve another's. */
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  *out = (onyx__os_library *)h;
  if (h != NULL) return 0;
  const char *msg = dlerror();
  if (cap > 0) {
    size_t n = msg != NULL ? strlen(msg) : 0;
    if (n >= cap) n = cap - 1;
    if (n > 0) memcpy(why, msg, n);
    why[n] = '\0';
  }
  return ONYX__OS_E_UNSUPPORTED; /* dlopen reports through dlerror, not errno */
}

void (*onyx__os_library_symbol(onyx__os_library *lib, const char *name))(void) {
  void *p = dlsym((void *)lib, name);
  /* POSIX lets dlsym's object pointer hold a function's address; copying
   * the bits avoids the conversion ISO C leaves undefined. */
  void (*fn)(void) = NULL;
  if (p != NULL) memcpy(&fn, &p, sizeof fn);
  return fn;
}

void onyx__os_library_close(onyx__os_library *lib) {
  if (lib != NULL) (void)dlclose((void *)lib);
}
#endif
