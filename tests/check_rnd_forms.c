/* SPDX-License-Identifier: MIT */
/*
 * The portable Ceil and Floor of float, float16 and bfloat16 have three
 * forms (src/kernels/scalar.c): masks per exponent read from tables
 * (ONYX_RND_TABLES), the same masks computed from the exponent (a build
 * for size: firmware, the page's wasm module), and, where the compiler
 * vectorizes, arithmetic for float, bfloat16 and double (ONYX_RND_ARITH).
 * The library here has the tables or the arithmetic; the computed bit form
 * is compiled here from the same file, and both must give the same bits
 * on every pattern: all 65,536 of each half and all 2^32 of float, NaN
 * payloads included.
 *
 *   check_rnd_forms           prints one line per (op, type); exit 1 on a difference
 *
 * About a minute on one core of a 2-core AMD EPYC, most of it float's.
 */
#define ONYX_RND_TABLES      0
#define ONYX_RND_ARITH       0
#define onyx__kernels_scalar onyx__kernels_scalar_computed
#define onyx__clip_params    onyx__clip_params_computed
#include "kernels/scalar.c"
#undef onyx__kernels_scalar
#undef onyx__clip_params

#include <stdio.h>
#include <stdlib.h>

extern const onyx__kernel_table onyx__kernels_scalar;

/* Runs both forms of (op, dtype) over `count` patterns from `first`,
 * `chunk` at a time; returns the differences found (and prints the first). */
static uint64_t compare(onyx__kop op, onyx_dtype dt, uint64_t first, uint64_t count, size_t chunk,
                        void *in, void *a, void *b) {
  const int di = onyx__dtype_index(dt);
  const onyx__ukernel table = onyx__kernels_scalar.k[op][di];
  const onyx__ukernel computed = onyx__kernels_scalar_computed.k[op][di];
  const size_t es = onyx_dtype_size(dt);
  uint64_t bad = 0;
  if (table == NULL || computed == NULL) return 0; /* a reduced build without it */
  for (uint64_t p = first; p < first + count; p += chunk) {
    const size_t n = (size_t)(first + count - p < chunk ? first + count - p : chunk);
    for (size_t i = 0; i < n; i++) {
      if (es == 2)
        ((uint16_t *)in)[i] = (uint16_t)(p + i);
      else
        ((uint32_t *)in)[i] = (uint32_t)(p + i);
    }
    table(n, in, a, NULL);
    computed(n, in, b, NULL);
    if (memcmp(a, b, n * es) == 0) continue;
    for (size_t i = 0; i < n; i++) {
      if (memcmp((unsigned char *)a + i * es, (unsigned char *)b + i * es, es) == 0) continue;
      if (bad++ == 0) printf("FAIL pattern 0x%llx\n", (unsigned long long)(p + i));
    }
  }
  return bad;
}

int main(void) {
  const size_t chunk = (size_t)1 << 20;
  void *in = malloc(chunk * 4), *a = malloc(chunk * 4), *b = malloc(chunk * 4);
  if (in == NULL || a == NULL || b == NULL) return 2;
  static const onyx_dtype types[] = {ONYX_DTYPE_FLOAT16, ONYX_DTYPE_BFLOAT16, ONYX_DTYPE_FLOAT};
  static const onyx__kop ops[] = {ONYX__KOP_CEIL, ONYX__KOP_FLOOR};
  int failed = 0;
  for (size_t t = 0; t < 3; t++) {
    for (size_t o = 0; o < 2; o++) {
      const uint64_t count = onyx_dtype_size(types[t]) == 2 ? 65536u : UINT64_C(1) << 32;
      const uint64_t bad = compare(ops[o], types[t], 0, count, chunk, in, a, b);
      printf("%s %s %s: %llu patterns, %llu differ\n", bad ? "FAIL" : "ok  ",
             o == 0 ? "ceil" : "floor", onyx_dtype_name(types[t]), (unsigned long long)count,
             (unsigned long long)bad);
      failed |= bad != 0;
    }
  }
  free(in);
  free(a);
  free(b);
  return failed;
}
