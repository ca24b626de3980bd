/* SPDX-License-Identifier: MIT */
/* The platform layer (src/os/os.h) and the compiler helpers
 * (src/os/compiler.h): threads, locks, condition variables, once, the CPU
 * count, the clock, HWCAP, overflow-checked multiplication. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdlib.h>

#include "cpu/cpu.h"
#include "os/compiler.h"
#include "os/os.h"

enum { THREADS = 4, ROUNDS = 200 };

/* Threads hand a token round a ring under one mutex and condition
 * variable: each round every thread must see its turn exactly once. */
typedef struct ring {
  onyx__os_mutex lock;
  onyx__os_cond turn;
  unsigned next; /* whose turn, guarded by lock */
  unsigned visits[THREADS];
} ring;

typedef struct ring_arg {
  ring *r;
  unsigned id;
} ring_arg;

static void *ring_main(void *arg) {
  ring_arg *a = arg;
  ring *r = a->r;
  for (int i = 0; i < ROUNDS; i++) {
    onyx__os_mutex_lock(&r->lock);
    while (r->next != a->id) onyx__os_cond_wait(&r->turn, &r->lock);
    r->visits[a->id]++;
    r->next = (a->id + 1) % THREADS;
    onyx__os_cond_broadcast(&r->turn);
    onyx__os_mutex_unlock(&r->lock);
  }
  return NULL;
}

static void test_threads_mutex_cond(void **state) {
  (void)state;
  static ring r;
  ring_arg args[THREADS];
  onyx__os_thread t[THREADS];
  onyx__os_mutex_init(&r.lock);
  onyx__os_cond_init(&r.turn);
  for (unsigned i = 0; i < THREADS; i++) {
    args[i] = (ring_arg){&r, i};
    assert_true(onyx__os_thread_start(&t[i], ring_main, &args[i]));
  }
  for (unsigned i = 0; i < THREADS; i++) onyx__os_thread_join(t[i]);
  for (unsigned i = 0; i < THREADS; i++) assert_int_equal(r.visits[i], ROUNDS);
  assert_int_equal(r.next, 0);
  onyx__os_cond_destroy(&r.turn);
  onyx__os_mutex_destroy(&r.lock);
}

static void test_trylock(void **state) {
  (void)state;
  onyx__os_mutex m;
  onyx__os_mutex_init(&m);
  assert_true(onyx__os_mutex_trylock(&m));
  assert_false(onyx__os_mutex_trylock(&m)); /* held: a default mutex is not recursive */
  onyx__os_mutex_unlock(&m);
  assert_true(onyx__os_mutex_trylock(&m));
  onyx__os_mutex_unlock(&m);
  onyx__os_mutex_destroy(&m);
}

/* Many threads race to run one once object; the function runs once, and
 * every caller sees its effect on return. */
static onyx__os_once once = ONYX__OS_ONCE_INIT;
static atomic_int once_runs;
static atomic_int once_bad;
static void once_fn(void) { atomic_fetch_add(&once_runs, 1); }
static void *once_main(void *arg) {
  (void)arg;
  onyx__os_once_run(&once, once_fn);
  if (atomic_load(&once_runs) != 1) atomic_store(&once_bad, 1);
  return NULL;
}

static void test_once(void **state) {
  (void)state;
  onyx__os_thread t[THREADS];
  for (unsigned i = 0; i < THREADS; i++) assert_true(onyx__os_thread_start(&t[i], once_main, NULL));
  once_main(NULL);
  for (unsigned i = 0; i < THREADS; i++) onyx__os_thread_join(t[i]);
  assert_int_equal(atomic_load(&once_runs), 1);
  assert_int_equal(atomic_load(&once_bad), 0);
}

static void test_cpu_count_clock(void **state) {
  (void)state;
  unsigned n = onyx__os_cpu_count();
  assert_true(n >= 1 && n <= 1024);
  uint64_t a = onyx__os_clock_ns();
  assert_true(a > 0);
  /* Spin until the clock moves: it must, and never backwards. */
  uint64_t b = a;
  for (long i = 0; i < 100000000L && b == a; i++) {
    onyx__spin_hint();
    b = onyx__os_clock_ns();
  }
  assert_true(b > a);
}

static void test_hwcap(void **state) {
  (void)state;
  unsigned long hwcap = 1, hwcap2 = 1;
  onyx__os_hwcap(&hwcap, &hwcap2);
#if defined(__linux__) && (defined(__aarch64__) || defined(__arm__))
  /* ARM Linux always reports some capability (FP on AArch64; on 32-bit
   * ARM hard-float at least VFP). */
  assert_true(hwcap != 0);
#endif
#if defined(__arm__)
  /* 32-bit ARM: NEON (HWCAP_NEON, bit 12) and the detected level agree,
   * unless ONYX_ISA lowered it. */
  if (getenv("ONYX_ISA") == NULL) {
    assert_int_equal((hwcap >> 12) & 1u, onyx__cpu_isa() == ONYX_ISA_NEON);
  }
#endif
  (void)hwcap2;
}

static void test_mul_overflow(void **state) {
  (void)state;
  size_t r = 7;
  assert_false(onyx__mul_overflow_size(0, SIZE_MAX, &r));
  assert_int_equal(r, 0);
  assert_false(onyx__mul_overflow_size(SIZE_MAX / 3, 3, &r));
  assert_true(r == SIZE_MAX / 3 * 3);
  assert_true(onyx__mul_overflow_size(SIZE_MAX / 2 + 1, 2, &r));
  assert_true(onyx__mul_overflow_size((size_t)1 << (sizeof(size_t) * 4),
                                      (size_t)1 << (sizeof(size_t) * 4), &r));
  uint64_t u = 7;
  assert_false(onyx__mul_overflow_u64(UINT64_C(1) << 31, UINT64_C(1) << 32, &u));
  assert_true(u == UINT64_C(1) << 63);
  assert_true(onyx__mul_overflow_u64(UINT64_C(1) << 32, UINT64_C(1) << 32, &u));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads_mutex_cond),
      cmocka_unit_test(test_trylock),
      cmocka_unit_test(test_once),
      cmocka_unit_test(test_cpu_count_clock),
      cmocka_unit_test(test_hwcap),
      cmocka_unit_test(test_mul_overflow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
