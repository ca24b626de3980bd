/* SPDX-License-Identifier: MIT */
/*
 * The portable Ceil and Floor of float, float16, bfloat16 and double have
 * three forms (src/kernels/scalar.c): masks per exponent (per class of
 * exponents for double) read from tables (ONYX_RND_TABLES), the same
 * masks computed from the exponent (a build for size: firmware, the
 * page's wasm module), and, where the compiler vectorizes, arithmetic for
 * float, bfloat16 and double (ONYX_RND_ARITH). The library here has the
 * tables or the arithmetic; the computed bit form is compiled here from
 * the same file, and the table form in check_rnd_forms_tables.c. All must
 * give the same bits on every pattern of the halves and of float, NaN
 * payloads included, and on double's sweep: every sign and exponent with
 * 160 fractions (zero, each bit alone, each low mask, their complements,
 * pseudo-random ones).
 *
 *   check_rnd_forms           prints one line per (op, type, form); exit 1 on a difference
 *
 * About a minute and a half on one core of a 2-core AMD EPYC, most of it float's.
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

extern const onyx__kernel_table onyx__kernels_scalar, onyx__kernels_scalar_tables;

/* Pattern p of a sweep from `first`: for 8-byte types, the sign and
 * exponent p / 160 with fraction p % 160 of the set above. */
static uint64_t pattern(size_t es, uint64_t p) {
  static const uint64_t frac = UINT64_C(0x000fffffffffffff);
  uint64_t top, k, f;
  if (es != 8) return p;
  top = p / 160u;
  k = p % 160u;
  if (k == 0)
    f = 0;
  else if (k <= 52)
    f = UINT64_C(1) << (k - 1);
  else if (k <= 104)
    f = (UINT64_C(1) << (k - 52)) - 1u;
  else if (k <= 130)
    f = ~(UINT64_C(1) << ((k - 105) * 2)) & frac;
  else
    f = (p * UINT64_C(0x9e3779b97f4a7c15)) >> 12;
  return (top << 52) | (f & frac);
}

/* Runs both forms of (op, dtype) over `count` patterns from `first`,
 * `chunk` at a time; returns the differences found (and prints the first). */
static uint64_t compare(const onyx__kernel_table *other, onyx__kop op, onyx_dtype dt,
                        uint64_t first, uint64_t count, size_t chunk, void *in, void *a, void *b) {
  const int di = onyx__dtype_index(dt);
  const onyx__ukernel table = other->k[op][di];
  const onyx__ukernel computed = onyx__kernels_scalar_computed.k[op][di];
  const size_t es = onyx_dtype_size(dt);
  uint64_t bad = 0;
  if (table == NULL || computed == NULL) return 0; /* a reduced build without it */
  for (uint64_t p = first; p < first + count; p += chunk) {
    const size_t n = (size_t)(first + count - p < chunk ? first + count - p : chunk);
    for (size_t i = 0; i < n; i++) {
      if (es == 2)
        ((uint16_t *)in)[i] = (uint16_t)(p + i);
      else if (es == 4)
        ((uint32_t *)in)[i] = (uint32_t)(p + i);
      else
        ((uint64_t *)in)[i] = pattern(es, p + i);
    }
    table(n, in, a, NULL);
    computed(n, in, b, NULL);
    if (memcmp(a, b, n * es) == 0) continue;
    for (size_t i = 0; i < n; i++) {
      if (memcmp((unsigned char *)a + i * es, (unsigned char *)b + i * es, es) == 0) continue;
      if (bad++ == 0) printf("FAIL pattern 0x%llx\n", (unsigned long long)pattern(es, p + i));
    }
  }
  return bad;
}

int main(void) {
  const size_t chunk = (size_t)1 << 20;
  void *in = malloc(chunk * 8), *a = malloc(chunk * 8), *b = malloc(chunk * 8);
  if (in == NULL || a == NULL || b == NULL) return 2;
  static const onyx_dtype types[] = {ONYX_DTYPE_FLOAT16, ONYX_DTYPE_BFLOAT16, ONYX_DTYPE_FLOAT,
                                     ONYX_DTYPE_DOUBLE};
  static const onyx__kop ops[] = {ONYX__KOP_CEIL, ONYX__KOP_FLOOR};
  const onyx__kernel_table *forms[] = {&onyx__kernels_scalar, &onyx__kernels_scalar_tables};
  static const char *const form_names[] = {"library's", "tables"};
  int failed = 0;
  for (size_t t = 0; t < 4; t++) {
    const size_t es = onyx_dtype_size(types[t]);
    const uint64_t count = es == 2 ? 65536u : es == 4 ? UINT64_C(1) << 32 : 4096u * 160u;
    for (size_t o = 0; o < 2; o++) {
      for (size_t f = 0; f < 2; f++) {
        const uint64_t bad = compare(forms[f], ops[o], types[t], 0, count, chunk, in, a, b);
        printf("%s %s %s, %s form: %llu patterns, %llu differ\n", bad ? "FAIL" : "ok  ",
               o == 0 ? "ceil" : "floor", onyx_dtype_name(types[t]), form_names[f],
               (unsigned long long)count, (unsigned long long)bad);
        failed |= bad != 0;
      }
    }
  }
  free(in);
  free(a);
  free(b);
  return failed;
}
