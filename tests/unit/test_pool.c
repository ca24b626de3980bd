/* SPDX-License-Identifier: MIT */
/* The fork-join pool: every task runs exactly once, on a valid worker, for
 * any pool size, including when two callers share one pool. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "thread/pool.h"

enum { TASKS = 1000 };

typedef struct job {
  atomic_int hits[TASKS];
  unsigned workers;
  atomic_int bad_worker;
} job;

static void task(void *ctx, size_t i, unsigned worker) {
  job *j = ctx;
  atomic_fetch_add(&j->hits[i], 1);
  if (worker >= j->workers) atomic_store(&j->bad_worker, 1);
}

static void check_job(onyx__pool *p, size_t n) {
  static job j;
  memset(&j, 0, sizeof j);
  j.workers = onyx__pool_size(p);
  onyx__pool_run(p, n, task, &j);
  for (size_t i = 0; i < TASKS; i++) assert_int_equal(atomic_load(&j.hits[i]), i < n ? 1 : 0);
  assert_int_equal(atomic_load(&j.bad_worker), 0);
}

static void test_sizes(void **state) {
  (void)state;
  check_job(NULL, TASKS);
  for (unsigned threads = 2; threads <= 9; threads++) {
    onyx__pool *p = NULL;
    assert_int_equal(onyx__pool_create(threads, &p, NULL), ONYX_OK);
    assert_int_equal(onyx__pool_size(p), threads);
    for (size_t n = 0; n <= TASKS; n += 97) check_job(p, n);
    check_job(p, TASKS);
    onyx__pool_free(p);
  }
}

typedef struct caller {
  onyx__pool *pool;
  job j;
} caller;

static void *call_many(void *arg) {
  caller *c = arg;
  for (int r = 0; r < 50; r++) onyx__pool_run(c->pool, TASKS, task, &c->j);
  return NULL;
}

/* Two callers at once: one gets the pool, the other runs inline; both
 * jobs complete exactly. */
static void test_two_callers(void **state) {
  (void)state;
  onyx__pool *p = NULL;
  assert_int_equal(onyx__pool_create(3, &p, NULL), ONYX_OK);
  static caller c[2];
  memset(c, 0, sizeof c);
  pthread_t th[2];
  for (int i = 0; i < 2; i++) {
    c[i].pool = p;
    c[i].j.workers = onyx__pool_size(p);
    assert_int_equal(pthread_create(&th[i], NULL, call_many, &c[i]), 0);
  }
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 2; i++) {
    for (size_t t = 0; t < TASKS; t++) assert_int_equal(atomic_load(&c[i].j.hits[t]), 50);
    assert_int_equal(atomic_load(&c[i].j.bad_worker), 0);
  }
  onyx__pool_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sizes),
      cmocka_unit_test(test_two_callers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
