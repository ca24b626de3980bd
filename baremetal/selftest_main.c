/* SPDX-License-Identifier: MIT */
/*
 * The self-test image: onyx_selftest() on the Cortex-M3, as `onyx selftest
 * --quick` runs it on a host: every bit pattern of the 8- and 16-bit types
 * and float32's documented subset through Ceil, Floor, Sign and Clip, each
 * output's SHA-256 against the digest numpy computed. The target has no
 * threads, so one worker. Prints each case that differs and a summary
 * line in the host command's words; exits 0 only when every case passed.
 */
#include <stdio.h>

#include "onyx.h"

static int report(void *arg, const onyx_selftest_case *c) {
  unsigned long *cases = arg;
  ++*cases;
  if (!c->pass)
    printf("FAIL %s %s %s (isa %s): %s, numpy %s\n", c->op, onyx_dtype_name(c->dtype), c->bounds,
           onyx_isa_name(c->isa), c->digest, c->expected);
  return 0;
}

int main(void) {
  onyx_selftest_options o = {ONYX_SELFTEST_QUICK, 1};
  unsigned long cases = 0;
  size_t failed = 0;
  onyx_error err;
  if (onyx_selftest(&o, report, &cases, &failed, &err) != ONYX_OK) {
    printf("selftest: %s\n", err.message);
    return 2;
  }
  printf("selftest: %lu kernel runs, %lu failed (float32 subset)\n", cases, (unsigned long)failed);
  return failed == 0 ? 0 : 1;
}
