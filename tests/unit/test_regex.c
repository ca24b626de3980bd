/* SPDX-License-Identifier: MIT */
/* cli/ere.c, the regular expressions onyx test uses where the C library
 * has none (Windows), against the C library's regcomp/regexec
 * (REG_EXTENDED | REG_NOSUB): every expression below on every text below
 * must match exactly where regexec matches. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "ere.h"

static const char *const EXPRS[] = {
    "ceil",
    "^ceil",
    "ceil$",
    "^ceil$",
    "c.il",
    "ce*il",
    "ce+il",
    "ce?il",
    "(ab)+",
    "(ab)*c",
    "a|b",
    "^(ceil|floor)_",
    "clip_v1[13]",
    "[^a-z]",
    "[a-c]+$",
    "[[:digit:]]+",
    "[[:alpha:]_]+$",
    "[]a]",
    "[a-]",
    "[-a]",
    "x{2}",
    "x{2,}",
    "x{1,3}y",
    "^x{0,2}$",
    "(a|b){3}",
    "a\\.b",
    "\\(",
    "float(16|32|64)?$",
    "_v[0-9]+_",
    "^$",
    "",
    ".*",
    "(a*)*b",
    "((a|b)*c)+d",
    "^(x|xy)(z|yz)$",
    "[[:upper:]]",
    "[[:space:]]",
    "[[:punct:]]+",
    "[[:xdigit:]]{4}",
    "^[^_]*_[^_]*$",
    "a{0}b",
    "(^a|b$)",
    "x(y|)z",
    "ab|cd|ef",
    "[.]",
    "[*+?]",
    "^.{5}$",
};

static const char *const TEXTS[] = {
    "",
    "ceil",
    "ceil_float16",
    "test_ceil",
    "cil",
    "ceeeil",
    "ceiling",
    "abab",
    "ababc",
    "c",
    "floor_v13",
    "clip_v11_int8",
    "clip_v13",
    "clip_v12",
    "ABC",
    "abc",
    "abcA",
    "12345",
    "x_1",
    "]",
    "-",
    "xx",
    "xxx",
    "xy",
    "xxxy",
    "xxxxy",
    "aab",
    "bbb",
    "a.b",
    "axb",
    "(",
    "float",
    "float16",
    "float64x",
    "op_v7_",
    "b",
    "aaab",
    "abcabcd",
    "xyz",
    "xz",
    "Upper",
    "a b",
    "!?",
    "beef",
    "dead",
    "one_two",
    "one_two_three",
    "a",
    "ef",
    "x.y",
    "*",
    "12345",
    "1234",
    "d",
};

static void test_regex_equals_libc(void **state) {
  (void)state;
  for (size_t e = 0; e < sizeof EXPRS / sizeof *EXPRS; e++) {
    regex_t libc;
    cli_ere *ours = NULL;
    char why[128];
    assert_int_equal(regcomp(&libc, EXPRS[e], REG_EXTENDED | REG_NOSUB), 0);
    if (cli_ere_compile(&ours, EXPRS[e], why, sizeof why) != 0) fail_msg("'%s': %s", EXPRS[e], why);
    for (size_t t = 0; t < sizeof TEXTS / sizeof *TEXTS; t++) {
      int want = regexec(&libc, TEXTS[t], 0, NULL, 0) == 0;
      if (cli_ere_matches(ours, TEXTS[t]) != want)
        fail_msg("'%s' on '%s': regexec says %d", EXPRS[e], TEXTS[t], want);
    }
    cli_ere_free(ours);
    regfree(&libc);
  }
}

/* What regcomp refuses, ours refuses, with a message. */
static void test_regex_errors(void **state) {
  (void)state;
  static const char *const bad[] = {"(",      "a)",     "(a))",     "[a",         "*a",
                                    "a{3,2}", "a{300}", "a{40000}", "[[:nope:]]", "\\",
                                    "[z-a]",  "+",      "a|*"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    regex_t libc;
    int libc_bad = regcomp(&libc, bad[i], REG_EXTENDED | REG_NOSUB) != 0;
    if (!libc_bad) regfree(&libc);
    cli_ere *ours = NULL;
    char why[128] = "";
    int ours_bad = cli_ere_compile(&ours, bad[i], why, sizeof why) != 0;
    if (ours_bad) {
      assert_null(ours);
      assert_true(why[0] != '\0');
    }
    cli_ere_free(ours);
    if (ours_bad != libc_bad)
      fail_msg("'%s': regcomp refuses: %d, ours: %d", bad[i], libc_bad, ours_bad);
  }
}

/* No backtracking: (a*)*b on 4000 'a's without a 'b' is quick (a
 * backtracking matcher takes exponential time), and a large {m,n} is
 * bounded by the program cap instead of memory. */
static void test_regex_bounded(void **state) {
  (void)state;
  static char text[4001];
  memset(text, 'a', sizeof text - 1);
  cli_ere *re = NULL;
  char why[128];
  assert_int_equal(cli_ere_compile(&re, "(a*)*b", why, sizeof why), 0);
  assert_false(cli_ere_matches(re, text));
  cli_ere_free(re);
  assert_int_not_equal(cli_ere_compile(&re, "((((a{255}){255}){255}){255})", why, sizeof why), 0);
  assert_null(re);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_regex_equals_libc),
      cmocka_unit_test(test_regex_errors),
      cmocka_unit_test(test_regex_bounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
