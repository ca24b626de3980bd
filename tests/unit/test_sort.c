/* SPDX-License-Identifier: MIT */
/*
 * onyx__sort_ptrs (src/core/sort.h), the heap sort that stands in for
 * qsort: every length up to 70 (the heap's shapes around each power of
 * two), in order, reversed, all equal, few distinct values and a
 * pseudo-random order, against the sorted result, and the comparison count
 * against its n log n bound on a large input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka.h uses size_t, va_list, jmp_buf and uintmax_t without including
 * the headers that declare them, so it comes after them. */
#include <cmocka.h>

#include "core/sort.h"

static size_t comparisons;

static int cmp_int(const void *a, const void *b) {
  comparisons++;
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

enum { MAX_N = 70, BIG = 1 << 14 };

static int pattern(int kind, size_t i, size_t n) {
  uint32_t h = (uint32_t)i * 2654435761u;
  switch (kind) {
    case 0:
      return (int)i;
    case 1:
      return (int)(n - i);
    case 2:
      return 7;
    case 3:
      return (int)(h >> 30); /* four distinct values */
    default:
      return (int)(h >> 8) - (1 << 23);
  }
}

static void sort_and_check(int *values, const void **items, size_t n) {
  for (size_t i = 0; i < n; i++) items[i] = &values[i];
  onyx__sort_ptrs(items, n, cmp_int);
  /* Sorted, and a permutation of the input (each pointer once). */
  for (size_t i = 1; i < n; i++) assert_true(*(const int *)items[i - 1] <= *(const int *)items[i]);
  static unsigned char seen[BIG];
  for (size_t i = 0; i < n; i++) seen[i] = 0;
  for (size_t i = 0; i < n; i++) {
    size_t k = (size_t)((const int *)items[i] - values);
    assert_true(k < n);
    assert_int_equal(seen[k], 0);
    seen[k] = 1;
  }
}

static void test_sort_lengths(void **state) {
  (void)state;
  int values[MAX_N];
  const void *items[MAX_N];
  for (int kind = 0; kind < 5; kind++)
    for (size_t n = 0; n <= MAX_N; n++) {
      for (size_t i = 0; i < n; i++) values[i] = pattern(kind, i, n);
      sort_and_check(values, items, n);
    }
}

static void test_sort_bound(void **state) {
  (void)state;
  static int values[BIG];
  static const void *items[BIG];
  for (int kind = 0; kind < 5; kind++) {
    for (size_t i = 0; i < BIG; i++) values[i] = pattern(kind, i, BIG);
    comparisons = 0;
    sort_and_check(values, items, BIG);
    /* A heap sort compares at most about 2 n log2 n times; the checks above
     * made n - 1 more. */
    assert_true(comparisons <= 2u * BIG * 14u + 2u * BIG);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sort_lengths),
      cmocka_unit_test(test_sort_bound),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
