/* SPDX-License-Identifier: MIT */
/*
 * Every kernel dispatch chooses at the best level this build and CPU allow,
 * and every portable kernel (the scalar table, what platforms without onyx
 * SIMD run), against the reference of tests/kernels_ref.h, bit for bit,
 * NaN payloads included: a
 * plain C program (no cmocka), for targets where the cmocka unit tests
 * (tests/unit/test_simd.c) cannot be built, as WebAssembly, where it runs
 * under Node. For every (op, type):
 *   - the kernel is of the detected level (or the scalar one where the
 *     level's table has no entry, which is reported), so that a missing
 *     entry cannot pass as the scalar kernel;
 *   - a pool of special values (+-0, +-inf, NaNs with payloads, quiet and
 *     signalling, subnormals, values around 2^M, 1, 0.5, integer minima
 *     and maxima) and random patterns, and all 65,536 patterns of float16
 *     and bfloat16; every pattern of the 8- and 16-bit integer types too;
 *   - every length from 0 to 257, out of place, misaligned by one element,
 *     and in place, with guard bytes after the output;
 *   - Clip with bound pairs from the pool through onyx__clip_params, and
 *     hand-made params the vector kernels must hand to the scalar one.
 * Prints one line per failing (op, type) and "N passed, N failed"; exits 1
 * on any failure.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "cpu/cpu.h"
#include "kernels/kernels.h"
#include "kernels_ref.h"
#include "onyx.h"

#define MAX_LEN 257
#define GUARD   16
#define POOL    70000 /* at least 65,536 halves */

static const onyx_dtype TYPES[] = {
#define ONYX_X_(name, value, cname, size) ONYX_DTYPE_##name,
    ONYX_DTYPE_MAP(ONYX_X_)
#undef ONYX_X_
};
static const char *const OPS[] = {
#define ONYX_X_(name, lname) lname,
    ONYX__KOP_MAP(ONYX_X_)
#undef ONYX_X_
};

static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);
static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static void put(size_t es, uint64_t v, unsigned char *p) { memcpy(p, &v, es); }

static bool is_float(onyx_dtype t) {
  return t == ONYX_DTYPE_FLOAT || t == ONYX_DTYPE_DOUBLE || t == ONYX_DTYPE_FLOAT16 ||
         t == ONYX_DTYPE_BFLOAT16;
}

/* Float patterns of w bits with m mantissa bits: every sign, exponents at
 * the ends and around the bias up to past 2^m, mantissas at the ends, the
 * middle and the quiet bit. Returns the count written at p. */
static size_t float_specials(unsigned w, unsigned m, unsigned char *p) {
  const unsigned ebits = w - 1 - m, bias = (1u << (ebits - 1)) - 1;
  const uint64_t emax = (UINT64_C(1) << ebits) - 1, top = UINT64_C(1) << (m - 1);
  const uint64_t mants[] = {0, 1, 2, top - 1, top, top + 1, (top << 1) - 1, top >> 1, 3};
  size_t n = 0;
  for (uint64_t e = 0; e <= emax; e++) {
    if (e > 2 && e + 2 < bias && e + 2 < emax) continue; /* tiny exponents: a few */
    if (e > bias + m + 2 && e + 2 < emax) continue;      /* beyond 2^m: only the top */
    for (size_t k = 0; k < sizeof mants / sizeof mants[0]; k++) {
      for (uint64_t s = 0; s < 2; s++) {
        put(w / 8, (s << (w - 1)) | (e << m) | mants[k], p + n * (w / 8));
        n++;
      }
    }
  }
  return n;
}

/* The pool of element patterns for t: specials first, then random ones;
 * for halves every pattern. Returns the count. */
static size_t make_pool(onyx_dtype t, unsigned char *p) {
  const size_t es = onyx_dtype_size(t);
  size_t n = 0;
  if (es <= 2) { /* every pattern */
    const uint32_t count = UINT32_C(1) << (8 * es);
    for (uint32_t v = 0; v < count; v++) put(es, v, p + es * (size_t)v);
    return count;
  }
  if (t == ONYX_DTYPE_FLOAT) n = float_specials(32, 23, p);
  if (t == ONYX_DTYPE_DOUBLE) n = float_specials(64, 52, p);
  if (!is_float(t)) {
    const uint64_t sign = UINT64_C(1) << (8 * es - 1);
    const uint64_t v[] = {0, 1, 2, 3, sign, sign - 1, sign + 1, ~UINT64_C(0), ~UINT64_C(1)};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) put(es, v[k], p + es * n++);
  }
  while (n < 4000) put(es, rng(), p + es * n++);
  return n;
}

typedef struct check {
  onyx__ukernel kernel, scalar;
  onyx_dtype t;
  const onyx__kparams *params;
  const unsigned char *pool;
  size_t pool_n;
  char why[200];
} check;

/* Runs both kernels on n elements of the pool from start, at element
 * offset off, out of place or in place; false (with why) on a difference. */
static bool run_one(check *c, size_t start, size_t n, size_t off, bool in_place) {
  static unsigned char x[(MAX_LEN + 2) * 8], y[(MAX_LEN + 2) * 8 + GUARD], want[(MAX_LEN + 2) * 8];
  const size_t es = onyx_dtype_size(c->t);
  for (size_t i = 0; i < n; i++) {
    memcpy(x + (off + i) * es, c->pool + ((start + i) % c->pool_n) * es, es);
  }
  c->scalar(n, x + off * es, want, c->params);
  unsigned char *out = in_place ? x + off * es : y + off * es;
  memset(y, 0xa5, sizeof y);
  c->kernel(n, x + off * es, out, c->params);
  for (size_t i = 0; i < n * es; i++) {
    if (out[i] == want[i]) continue;
    uint64_t in = 0, got = 0, exp = 0;
    memcpy(&in, c->pool + ((start + i / es) % c->pool_n) * es, es);
    memcpy(&got, out + i / es * es, es);
    memcpy(&exp, want + i / es * es, es);
    snprintf(c->why, sizeof c->why, "n %zu, offset %zu%s: x 0x%llx gives 0x%llx, want 0x%llx", n,
             off, in_place ? ", in place" : "", (unsigned long long)in, (unsigned long long)got,
             (unsigned long long)exp);
    return false;
  }
  for (size_t i = (off + n) * es; !in_place && i < sizeof y; i++) {
    if (y[i] != 0xa5) {
      snprintf(c->why, sizeof c->why, "n %zu, offset %zu: wrote past the output", n, off);
      return false;
    }
  }
  return true;
}

/* Every length 0..MAX_LEN, three ways, then the whole pool in chunks. */
static bool run_all(check *c) {
  for (size_t n = 0; n <= MAX_LEN; n++) {
    const size_t start = (n * 131) % c->pool_n;
    if (!run_one(c, start, n, 0, false) || !run_one(c, start, n, 1, false) ||
        !run_one(c, start, n, 1, true))
      return false;
  }
  for (size_t start = 0; start < c->pool_n; start += MAX_LEN) {
    if (!run_one(c, start, MAX_LEN, 0, false)) return false;
  }
  return true;
}

/* Clip: bounds from pairs of pool elements (and no bound on one side),
 * through onyx__clip_params, and params whose bounds a vector kernel cannot
 * take (NaN, or out of the integer type's range). */
static bool run_clip(check *c) {
  const size_t es = onyx_dtype_size(c->t);
  onyx__kparams p;
  for (int k = 0; k < 60; k++) {
    const size_t a = (size_t)(rng() % c->pool_n), b = (size_t)(rng() % c->pool_n);
    const void *lo = k % 10 == 1 ? NULL : c->pool + a * es;
    const void *hi = k % 10 == 2 ? NULL : c->pool + b * es;
    onyx__clip_params(c->t, lo, hi, &p);
    c->params = &p;
    if (!run_all(c)) return false;
  }
  memset(&p, 0, sizeof p);
  p.i64.lo = INT64_MIN + 1; /* fits no narrower type; not a half value */
  p.i64.hi = (int64_t)(rng() >> 1);
  if (c->t == ONYX_DTYPE_FLOAT) p.f32.lo = p.f32.hi = (float)NAN;
  if (c->t == ONYX_DTYPE_DOUBLE) p.f64.hi = NAN;
  c->params = &p;
  return run_all(c);
}

/* One kernel against the reference; false on a difference (printed). */
static bool check_one(const char *what, onyx__ukernel kernel, int op, onyx_dtype t,
                      unsigned char *pool) {
  check c = {kernel, NULL, t, NULL, pool, 0, ""};
  c.scalar = ref_kernels.k[op][onyx__dtype_index(t)];
  c.pool_n = make_pool(t, pool);
  bool ok = c.kernel != NULL;
  ok = ok && (op == ONYX__KOP_CLIP ? run_clip(&c) : run_all(&c));
  if (!ok) printf("FAIL %s %s %s: %s\n", what, OPS[op], onyx_dtype_name(t), c.why);
  return ok;
}

int main(void) {
  static unsigned char pool[POOL * 8];
  const onyx_isa level = onyx__cpu_isa();
  unsigned passed = 0, failed = 0;
  printf("level %s\n", onyx_isa_name(level));
  for (size_t ti = 0; ti < sizeof TYPES / sizeof TYPES[0]; ti++) {
    for (int op = 0; op < ONYX__KOP_COUNT; op++) {
      const onyx_dtype t = TYPES[ti];
      if (ref_kernels.k[op][onyx__dtype_index(t)] == NULL) continue; /* the op has no such type */
      const onyx__ukernel best = onyx__kernel_get((onyx__kop)op, t, ONYX_ISA_BEST);
      const onyx_isa got = onyx__kernel_isa((onyx__kop)op, t, ONYX_ISA_BEST);
      if (best != NULL && got != level) {
        printf("SKIP %s %s: no %s kernel, the %s one is used\n", OPS[op], onyx_dtype_name(t),
               onyx_isa_name(level), onyx_isa_name(got));
      }
      check_one("best", best, op, t, pool) ? passed++ : failed++;
      check_one("portable", onyx__kernels_scalar.k[op][onyx__dtype_index(t)], op, t, pool)
          ? passed++
          : failed++;
    }
  }
  printf("%u passed, %u failed\n", passed, failed);
  return failed ? 1 : 0;
}
