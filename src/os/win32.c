/* SPDX-License-Identifier: MIT */
/*
 * The platform layer on Windows (Vista and later for SRWLOCK,
 * CONDITION_VARIABLE and INIT_ONCE; 7 for GetActiveProcessorCount and
 * TryAcquireSRWLockExclusive): threads, locks, once, the CPU count, the
 * clock and the seed. Files are win32_file.c. See os.h.
 */
#if !defined(_WIN32_WINNT) || _WIN32_WINNT < 0x0601
#undef _WIN32_WINNT
#define _WIN32_WINNT 0x0601
#endif
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <process.h>
#include <stdlib.h>

#include "os/os.h"

/* os.h holds each Windows object as one pointer, all zeros at first. */
_Static_assert(sizeof(SRWLOCK) == sizeof(void *), "SRWLOCK is one pointer");
_Static_assert(sizeof(CONDITION_VARIABLE) == sizeof(void *), "CONDITION_VARIABLE is one pointer");
_Static_assert(sizeof(INIT_ONCE) == sizeof(void *), "INIT_ONCE is one pointer");

#if ONYX__OS_HAS_THREADS
#define SRW(m)  ((PSRWLOCK)(void *)&(m)->srwlock)
#define COND(c) ((PCONDITION_VARIABLE)(void *)&(c)->condition_variable)

/* What a new thread runs: the os.h signature, behind the Win32 one. */
typedef struct thread_start {
  void *(*fn)(void *);
  void *arg;
} thread_start;

static unsigned __stdcall thread_main(void *p) {
  thread_start s = *(thread_start *)p;
  free(p);
  (void)s.fn(s.arg);
  return 0;
}

bool onyx__os_thread_start(onyx__os_thread *t, void *(*fn)(void *), void *arg) {
  /* _beginthreadex rather than CreateThread: the C runtime then sets up
   * its per-thread state (errno, strtok) for the new thread. */
  thread_start *s = malloc(sizeof *s);
  if (s == NULL) return false;
  s->fn = fn;
  s->arg = arg;
  uintptr_t h = _beginthreadex(NULL, 0, thread_main, s, 0, NULL);
  if (h == 0) {
    free(s);
    return false;
  }
  t->handle = (void *)h;
  return true;
}

void onyx__os_thread_join(onyx__os_thread t) {
  (void)WaitForSingleObject(t.handle, INFINITE);
  (void)CloseHandle(t.handle);
}

/* Windows has no fork; the id is that of a running process, never 0. */
unsigned long onyx__os_process_id(void) { return (unsigned long)GetCurrentProcessId(); }

/* SRW locks and condition variables need no cleanup and cannot fail. */
void onyx__os_mutex_init(onyx__os_mutex *m) { InitializeSRWLock(SRW(m)); }
void onyx__os_mutex_destroy(onyx__os_mutex *m) { (void)m; }
void onyx__os_mutex_lock(onyx__os_mutex *m) { AcquireSRWLockExclusive(SRW(m)); }
bool onyx__os_mutex_trylock(onyx__os_mutex *m) { return TryAcquireSRWLockExclusive(SRW(m)) != 0; }
void onyx__os_mutex_unlock(onyx__os_mutex *m) { ReleaseSRWLockExclusive(SRW(m)); }
void onyx__os_cond_init(onyx__os_cond *c) { InitializeConditionVariable(COND(c)); }
void onyx__os_cond_destroy(onyx__os_cond *c) { (void)c; }
void onyx__os_cond_wait(onyx__os_cond *c, onyx__os_mutex *m) {
  /* With INFINITE it returns only once woken (or spuriously). */
  (void)SleepConditionVariableSRW(COND(c), SRW(m), INFINITE, 0);
}
void onyx__os_cond_signal(onyx__os_cond *c) { WakeConditionVariable(COND(c)); }
void onyx__os_cond_broadcast(onyx__os_cond *c) { WakeAllConditionVariable(COND(c)); }

/* ISO C has no conversion between function and object pointers, so fn
 * travels to the callback inside a struct. */
typedef struct once_call {
  void (*fn)(void);
} once_call;

static BOOL CALLBACK once_main(PINIT_ONCE once, PVOID param, PVOID *context) {
  (void)once, (void)context;
  ((once_call *)param)->fn();
  return TRUE;
}

void onyx__os_once_run(onyx__os_once *once, void (*fn)(void)) {
  /* Fails only if the callback returns FALSE, which once_main never does. */
  once_call call = {fn};
  (void)InitOnceExecuteOnce((PINIT_ONCE)(void *)&once->init_once, once_main, &call, NULL);
}
#endif

unsigned onyx__os_cpu_count(void) {
  /* All processor groups: GetSystemInfo counts only the caller's group,
   * at most 64 CPUs. */
  DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
  if (n == 0) {
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    n = si.dwNumberOfProcessors;
  }
  return n < 1 ? 1u : n > 1024 ? 1024u : (unsigned)n;
}

uint64_t onyx__os_clock_ns(void) {
  /* Both calls always succeed on XP and later. The frequency is split
   * off so that counter * 1e9 cannot overflow. */
  LARGE_INTEGER f, c;
  if (!QueryPerformanceFrequency(&f) || f.QuadPart <= 0 || !QueryPerformanceCounter(&c)) return 0;
  uint64_t freq = (uint64_t)f.QuadPart, count = (uint64_t)c.QuadPart;
  return count / freq * 1000000000u + count % freq * 1000000000u / freq;
}

void onyx__os_hwcap(unsigned long *hwcap, unsigned long *hwcap2) {
  /* Windows reports CPU features through CPUID and
   * IsProcessorFeaturePresent, never as HWCAP words. */
  *hwcap = 0;
  *hwcap2 = 0;
}

uint64_t onyx__os_seed(void) {
  /* The counter differs from call to call; the addresses of a static and
   * a stack variable, and the process id, from run to run. */
  static const char anchor = 0;
  LARGE_INTEGER c = {0};
  (void)QueryPerformanceCounter(&c);
  uint64_t z = onyx__os_mix64((uint64_t)(uintptr_t)&c ^ ((uint64_t)GetCurrentProcessId() << 32));
  z = onyx__os_mix64(z ^ (uint64_t)c.QuadPart);
  return onyx__os_mix64(z ^ (uint64_t)(uintptr_t)&anchor);
}
