/* SPDX-License-Identifier: MIT */
/*
 * onyx__format, the library's own snprintf for its messages, against the
 * C library's snprintf on every conversion the messages use, at the
 * limits of each type, cut short at every buffer size.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/format.h"

/* Formats with both at every capacity from 0 to past the text's end. */
static void same(const char *fmt, ...) ONYX__PRINTF(1, 2);
static void same(const char *fmt, ...) {
  char want[256], got[256];
  va_list ap, aq;
  va_start(ap, fmt);
  va_copy(aq, ap);
  int n_want = vsnprintf(want, sizeof want, fmt, ap);
  va_end(ap);
  for (size_t cap = 0; cap <= (size_t)n_want + 1; cap++) {
    va_list ar;
    va_copy(ar, aq);
    memset(got, 'X', sizeof got);
    int n_got = onyx__vformat(got, cap, fmt, ar);
    va_end(ar);
    assert_int_equal(n_got, n_want);
    if (cap == 0) {
      assert_int_equal(got[0], 'X');
    } else {
      size_t k = cap - 1 < (size_t)n_want ? cap - 1 : (size_t)n_want;
      assert_memory_equal(got, want, k);
      assert_int_equal(got[k], '\0');
    }
  }
  va_end(aq);
}

static void test_like_snprintf(void **state) {
  (void)state;
  same("plain text");
  same("%d %d %d %i", 0, -1, INT_MIN, INT_MAX);
  same("%u %u %x %x", 0u, UINT_MAX, 0xabcdefu, 0u);
  same("%ld %lu %lx", LONG_MIN, ULONG_MAX, 0x7fffffffUL);
  same("%lld %lld %lld %llu", LLONG_MIN, LLONG_MAX, -42LL, ULLONG_MAX);
  same("%zu %zu %zu", (size_t)0, (size_t)12345, SIZE_MAX);
  same("%s|%s|%.3s|%.0s|%.200s", "", "abc", "abcdef", "x", "short");
  same("%.*s|%.*s", 2, "hello", 10, "hi");
  same("%c%c 100%% done", 'o', 'k');
  same("node %zu ('%s', %s-%d at opset %lld)", (size_t)7, "n", "Clip", 13, 21LL);
}

/* What it does not know is copied, not misread, and fmt's end is safe. */
static void test_unknown(void **state) {
  (void)state;
  char buf[64];
  /* Through a variable, so that the compiler's format check lets them by. */
  const char *unknown = "a %q b", *cut = "end %";
  assert_int_equal(onyx__format(buf, sizeof buf, unknown, 0), 6);
  assert_string_equal(buf, "a %q b");
  assert_int_equal(onyx__format(buf, sizeof buf, cut, 0), 5);
  assert_string_equal(buf, "end %");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_like_snprintf),
      cmocka_unit_test(test_unknown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
