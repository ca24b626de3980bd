/* SPDX-License-Identifier: MIT */
/*
 * onyx selftest: runs onyx_selftest() and prints one line per (op, type,
 * Clip bounds, input set): the result, the ISA levels whose kernels ran,
 * and the SHA-256 of the output, which is numpy's when the line says ok.
 * A level whose digest differs gets a line of its own with both digests.
 * Exit code 0 when every digest is numpy's, 1 when one is not.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "onyx.h"
#include "sys.h"

const char CLI_HELP_SELFTEST[] =
    "Usage: onyx selftest [--quick] [--threads N] [--verbose]\n"
    "\n"
    "Checks that onyx is bit-exact on this machine: every bit pattern of\n"
    "int8, uint8, int16, uint16, float16 and bfloat16, and all 2^32 float32\n"
    "patterns, through Ceil, Floor, Sign and Clip (over a grid of bounds:\n"
    "both zeros and infinities, NaN, the type's extremes, -1, 1, min > max)\n"
    "allows the type, with the kernels of every ISA level this CPU has. Each\n"
    "output's SHA-256 (every NaN payload and sign included) is compared\n"
    "with the digest numpy, the ONNX reference, gives. One line per case:\n"
    "  ok|FAIL OP TYPE [BOUNDS] all|subset PATTERNS LEVELS SHA-256\n"
    "\n"
    "Options:\n"
    "  --quick          float32 on a fixed subset of 327,680 patterns instead\n"
    "                   of all 2^32 (for emulators and slow machines)\n"
    "  --threads N      threads to use (0: one per CPU, the default)\n"
    "  --verbose        one line per ISA level instead of per case\n"
    "\n"
    "Exit codes: 0 every digest is numpy's, 1 one is not, 2 usage error,\n"
    "3 onyx error.\n";

typedef struct selftest_printer {
  int verbose;
  size_t cases, runs;
  onyx_selftest_case last; /* the case being collected */
  char last_bounds[64];
  char levels[128]; /* its levels that passed, "avx2,sse41,scalar" */
  int have_last;
} selftest_printer;

static void print_case(const onyx_selftest_case *r, const char *bounds, const char *result,
                       const char *levels, const char *digest) {
  printf("%-4s %-5s %-8s %-19s %-6s %10" PRIu64 " %-17s %s\n", result, r->op,
         onyx_dtype_name(r->dtype), bounds, r->patterns, r->count, levels, digest);
}

static void flush_case(selftest_printer *p) {
  if (!p->have_last || p->levels[0] == '\0') return;
  print_case(&p->last, p->last_bounds, "ok", p->levels, p->last.digest);
}

static int same_case(const onyx_selftest_case *a, const char *a_bounds,
                     const onyx_selftest_case *b) {
  return strcmp(a->op, b->op) == 0 && a->dtype == b->dtype && strcmp(a_bounds, b->bounds) == 0 &&
         strcmp(a->patterns, b->patterns) == 0;
}

static int on_result(void *arg, const onyx_selftest_case *r) {
  selftest_printer *p = arg;
  p->runs++;
  if (!p->have_last || !same_case(&p->last, p->last_bounds, r)) {
    flush_case(p);
    p->cases++;
    p->last = *r;
    snprintf(p->last_bounds, sizeof p->last_bounds, "%s", r->bounds);
    p->last.bounds = p->last_bounds;
    p->levels[0] = '\0';
    p->have_last = 1;
  }
  if (r->digest[0] == '\0') {
    print_case(r, r->bounds, "FAIL", "-", "onyx has no kernel for it");
    return 0;
  }
  if (!r->pass) {
    char got[160];
    snprintf(got, sizeof got, "%s (numpy: %s)", r->digest, r->expected);
    print_case(r, r->bounds, "FAIL", onyx_isa_name(r->isa), got);
  } else if (p->verbose) {
    print_case(r, r->bounds, "ok", onyx_isa_name(r->isa), r->digest);
  } else {
    size_t len = strlen(p->levels);
    snprintf(p->levels + len, sizeof p->levels - len, "%s%s", len ? "," : "",
             onyx_isa_name(r->isa));
    p->last = *r;
    p->last.bounds = p->last_bounds;
  }
  return 0;
}

static int parse_uint(const char *s, unsigned *out) {
  unsigned long long v = 0;
  if (*s == '\0') return 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return 0;
    v = v * 10 + (unsigned)(*s - '0');
    if (v > 65535) return 0;
  }
  *out = (unsigned)v;
  return 1;
}

int cli_selftest(int argc, char **argv) {
  onyx_selftest_options opts;
  memset(&opts, 0, sizeof opts);
  selftest_printer p;
  memset(&p, 0, sizeof p);
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(CLI_HELP_SELFTEST, stdout);
      return CLI_OK;
    } else if (strcmp(a, "--quick") == 0) {
      opts.flags |= ONYX_SELFTEST_QUICK;
    } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
      p.verbose = 1;
    } else if (strcmp(a, "--threads") == 0 || strncmp(a, "--threads=", 10) == 0) {
      const char *v = a[9] == '=' ? a + 10 : (i + 1 < argc ? argv[++i] : NULL);
      if (v == NULL || !parse_uint(v, &opts.threads)) {
        cli_usage_error("selftest", "--threads: '%s' is not a number from 0 to 65535", v ? v : "");
        return CLI_USAGE;
      }
    } else {
      cli_usage_error("selftest", "unknown option '%s'", a);
      return CLI_USAGE;
    }
  }
  uint64_t t0 = cli_sys_clock_ns();
  size_t failed = 0;
  onyx_error err;
  onyx_status st = onyx_selftest(&opts, on_result, &p, &failed, &err);
  if (st != ONYX_OK) {
    fprintf(stderr, "onyx: selftest: %s\n", err.message);
    return CLI_ERROR;
  }
  flush_case(&p);
  double seconds = (double)(cli_sys_clock_ns() - t0) * 1e-9;
  printf("selftest: %zu cases, %zu kernel runs, %zu failed, %.2f s (isa %s, float32 %s)\n", p.cases,
         p.runs, failed, seconds, onyx_isa_name(onyx_isa_detected()),
         opts.flags & ONYX_SELFTEST_QUICK ? "subset" : "all 2^32 and subset");
  return failed ? CLI_TEST_FAILED : CLI_OK;
}
