/* SPDX-License-Identifier: MIT */
/*
 * The self-test's own checks, without cmocka, so that every platform runs
 * them (cross targets under qemu, Windows under wine):
 *   - SHA-256 on the FIPS 180-4 examples and a million 'a's, and on
 *     5,000 bytes fed in pieces of every length from 1 to 65 and of 130
 *     (block boundaries);
 *   - onyx_selftest() on the quick set: no result fails, and every
 *     (op, type) that has a kernel, among int8, uint8, int16, uint16,
 *     float16, bfloat16 and float, is there with the level dispatch picks
 *     for it; the same results on 1 and on 3 threads;
 *   - a callback's non-zero return stops it; unknown flags are refused.
 * With the argument --full, the first run covers all 2^32 float32
 * patterns too. Prints "N passed, N failed"; exits 1 on a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "kernels/kernels.h"
#include "onyx.h"
#include "verify/sha256.h"

static int passed, failed;

static void check(int ok, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("FAIL %s\n", what);
  }
}

static void sha_hex(const void *data, size_t n, size_t piece, char hex[65]) {
  onyx__sha256 s;
  unsigned char d[ONYX__SHA256_BYTES];
  const unsigned char *p = data;
  onyx__sha256_init(&s);
  for (size_t at = 0; at < n; at += piece)
    onyx__sha256_update(&s, p + at, n - at < piece ? n - at : piece);
  onyx__sha256_final(&s, d);
  onyx__sha256_hex(d, hex);
}

static void check_sha256(void) {
  static const struct {
    const char *msg, *hex;
  } V[] = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmn"
       "opqrsmnopqrstnopqrstu",
       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
  };
  char hex[65];
  for (size_t i = 0; i < sizeof V / sizeof V[0]; i++) {
    sha_hex(V[i].msg, strlen(V[i].msg), 64, hex);
    check(strcmp(hex, V[i].hex) == 0, "sha256 of a FIPS 180-4 example");
  }
  size_t n = 1000000;
  char *a = malloc(n);
  if (!a) {
    check(0, "sha256: out of memory");
    return;
  }
  memset(a, 'a', n);
  sha_hex(a, n, n, hex);
  check(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0,
        "sha256 of 10^6 'a'");
  /* The same 5,000 bytes in pieces of every length up to 65 and 130. */
  char whole[65];
  for (size_t i = 0; i < 5000; i++) a[i] = (char)(i * 37 + 11);
  sha_hex(a, 5000, 5000, whole);
  for (size_t piece = 1; piece <= 130; piece += piece < 65 ? 1 : 65) {
    sha_hex(a, 5000, piece, hex);
    if (strcmp(hex, whole) != 0) {
      printf("FAIL sha256 of 5000 bytes in pieces of %zu\n", piece);
      failed++;
      free(a);
      return;
    }
  }
  passed++;
  free(a);
}

/* What the results of one run were. */
typedef struct seen {
  size_t results, failed_results;
  /* per (op, type index): a result of the level dispatch picks was seen */
  int best[ONYX__KOP_COUNT][ONYX__DTYPE_COUNT];
  unsigned long long sum; /* a checksum of all digests, order included */
  int stop_after;         /* stop after this many results (0: never) */
} seen;

static int op_index(const char *op) {
  static const char *const names[ONYX__KOP_COUNT] = {"Ceil", "Floor", "Clip", "Sign"};
  for (int i = 0; i < ONYX__KOP_COUNT; i++) {
    if (strcmp(op, names[i]) == 0) return i;
  }
  return -1;
}

static int on_result(void *arg, const onyx_selftest_case *r) {
  seen *s = arg;
  s->results++;
  if (!r->pass) {
    s->failed_results++;
    printf("FAIL %s %s %s %s at %s: %s, numpy %s\n", r->op, onyx_dtype_name(r->dtype), r->bounds,
           r->patterns, onyx_isa_name(r->isa), r->digest, r->expected);
  }
  int op = op_index(r->op), di = onyx__dtype_index(r->dtype);
  if (op >= 0 && di >= 0 && onyx__kernel_isa((onyx__kop)op, r->dtype, ONYX_ISA_BEST) == r->isa) {
    s->best[op][di] = 1;
  }
  for (const char *c = r->digest; *c; c++) s->sum = s->sum * 131 + (unsigned char)*c;
  return s->stop_after && s->results >= (size_t)s->stop_after;
}

static void check_run(int full) {
  static const onyx_dtype TYPES[] = {ONYX_DTYPE_INT8,   ONYX_DTYPE_UINT8,   ONYX_DTYPE_INT16,
                                     ONYX_DTYPE_UINT16, ONYX_DTYPE_FLOAT16, ONYX_DTYPE_BFLOAT16,
                                     ONYX_DTYPE_FLOAT};
  onyx_selftest_options o = {full ? 0u : ONYX_SELFTEST_QUICK, 1};
  seen a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  size_t nfail = 99;
  onyx_error err;
  check(onyx_selftest(&o, on_result, &a, &nfail, &err) == ONYX_OK, "selftest runs");
  check(nfail == 0 && a.failed_results == 0, "every digest is numpy's");
  check(a.results > 400, "more than 400 results");
  for (int op = 0; op < ONYX__KOP_COUNT; op++) {
    for (size_t t = 0; t < sizeof TYPES / sizeof TYPES[0]; t++) {
      if (onyx__kernel_get((onyx__kop)op, TYPES[t], ONYX_ISA_BEST) == NULL) continue;
      if (!a.best[op][onyx__dtype_index(TYPES[t])]) {
        printf("FAIL op %d on %s: no result of the level dispatch picks\n", op,
               onyx_dtype_name(TYPES[t]));
        failed++;
      } else {
        passed++;
      }
    }
  }
  if (full) return;
  o.threads = 3;
  check(onyx_selftest(&o, on_result, &b, &nfail, &err) == ONYX_OK && nfail == 0, "3 threads");
  check(a.results == b.results && a.sum == b.sum, "the same results on 1 and 3 threads");
  seen c;
  memset(&c, 0, sizeof c);
  c.stop_after = 2;
  check(onyx_selftest(&o, on_result, &c, NULL, NULL) == ONYX_OK && c.results == 2,
        "a callback stops it");
  o.flags = 0x80;
  check(onyx_selftest(&o, NULL, NULL, NULL, &err) == ONYX_INVALID_ARGUMENT &&
            err.status == ONYX_INVALID_ARGUMENT,
        "unknown flags are refused");
}

int main(int argc, char **argv) {
  int full = argc > 1 && strcmp(argv[1], "--full") == 0;
  check_sha256();
  check_run(full);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
