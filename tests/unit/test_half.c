/* SPDX-License-Identifier: MIT */
/*
 * float16 and bfloat16 conversions (src/core/half.h), checked exhaustively
 * where the input space is 16 bits and on a large, structured set of float32
 * inputs otherwise. Each result is compared with an arithmetic reference
 * written here in double precision (frexp/ldexp/nearbyint, no bit tricks),
 * and, for float16, with the compiler's _Float16 conversions and the CPU's
 * F16C instructions where those exist.
 *
 * NaN behaviour, pinned: float16 -> float32 keeps the payload exactly (a
 * signalling NaN stays signalling), while float32 -> float16/bfloat16 keeps
 * the top payload bits and sets the quiet bit. So a round trip is the
 * identity except that a signalling NaN gains the quiet bit. The compiler and
 * F16C quieten already on the way to float32; that is the one difference.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
/* cmocka.h uses size_t, va_list, jmp_buf and uintmax_t without including
 * the headers that declare them, so it comes after them. */
#include <cmocka.h>

#include "core/half.h"

/*
 * The compiler's own float16. GCC supports _Float16 on x86-64 from version
 * 12 and announces it with __FLT16_MAX__; under -std=c11 -Wpedantic it is an
 * extension, which __extension__ on the typedef acknowledges (the uses of
 * the typedef then draw no warning). Clang defines __FLT16_MAX__ even where
 * it rejects _Float16 (clang 14 on x86-64 without AVX512-FP16), so clang is
 * trusted only from version 15, which supports it on x86-64 with SSE2.
 */
#if defined(__FLT16_MAX__) && !defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 12
#define TEST_HAVE_FLOAT16 1
#elif defined(__clang__) && (__clang_major__ >= 15 || defined(__AVX512FP16__)) && \
    (defined(__x86_64__) || defined(__aarch64__))
#define TEST_HAVE_FLOAT16 1
#endif

#ifdef TEST_HAVE_FLOAT16
__extension__ typedef _Float16 test_float16;

static float cc_f16_to_f32(uint16_t bits) {
  test_float16 h;
  memcpy(&h, &bits, sizeof h);
  return (float)h;
}

static uint16_t cc_f32_to_f16(float f) {
  test_float16 h = (test_float16)f;
  uint16_t bits;
  memcpy(&bits, &h, sizeof bits);
  return bits;
}
#endif

/*
 * The CPU's F16C conversions, compiled for F16C in these two functions only
 * and called only when CPUID and XCR0 say they may run.
 */
#if defined(__x86_64__) && defined(__GNUC__)
#define TEST_HAVE_F16C_CODE 1
#include <cpuid.h>
#include <immintrin.h>

__attribute__((target("f16c"))) static float f16c_f16_to_f32(uint16_t bits) {
  return _cvtsh_ss(bits);
}

__attribute__((target("f16c"))) static uint16_t f16c_f32_to_f16(float f) {
  return (uint16_t)_cvtss_sh(f, 0); /* 0: round to nearest even */
}

static bool f16c_usable(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  if (!((c >> 29) & 1u) || !((c >> 28) & 1u) || !((c >> 27) & 1u)) return false;
  uint32_t lo, hi;
  __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0u));
  return (lo & 0x6u) == 0x6u;
}
#endif

/* ---- Independent references ------------------------------------------ */

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static bool f16_is_nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }
static bool bf16_is_nan(uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0; }

/* The value of a non-NaN float16 from its fields, in double. */
static double ref_f16_value(uint16_t h) {
  int e = (h >> 10) & 0x1f;
  int m = h & 0x3ff;
  double v;
  if (e == 0x1f) {
    v = INFINITY;
  } else if (e == 0) {
    v = ldexp((double)m, -24);
  } else {
    v = ldexp(1024.0 + m, e - 25);
  }
  return (h & 0x8000u) ? -v : v;
}

/* The value of a non-NaN bfloat16 from its fields, in double. */
static double ref_bf16_value(uint16_t b) {
  int e = (b >> 7) & 0xff;
  int m = b & 0x7f;
  double v;
  if (e == 0xff) {
    v = INFINITY;
  } else if (e == 0) {
    v = ldexp((double)m, -133);
  } else {
    v = ldexp(128.0 + m, e - 134);
  }
  return (b & 0x8000u) ? -v : v;
}

/*
 * Rounds a finite double to the nearest value of a binary format with p
 * significand bits, minimum normal exponent emin and largest finite value
 * max, ties to even, overflowing to infinity. Scaling by a power of two is
 * exact and the scaled value has at most p + 30 bits, so nearbyint in the
 * default rounding mode does the one rounding.
 */
static double ref_round(double x, int p, int emin, double max) {
  double a = fabs(x);
  if (a == 0) return x;
  int e;
  (void)frexp(a, &e); /* a = m * 2^e with m in [0.5, 1) */
  int exp = e - 1;
  if (exp < emin) exp = emin; /* subnormal: fixed spacing */
  double ulp = ldexp(1.0, exp - (p - 1));
  double r = nearbyint(a / ulp) * ulp;
  if (r > max) r = INFINITY;
  return x < 0 ? -r : r;
}

#define F16_MAX  65504.0
#define BF16_MAX (ldexp(255.0, 120)) /* (2 - 2^-7) * 2^127 */

/* The pinned float16 NaN encoding of a float32 NaN. */
static uint16_t pinned_f16_nan(uint32_t u) {
  return (uint16_t)(((u >> 16) & 0x8000u) | 0x7e00u | ((u >> 13) & 0x3ffu));
}

/* ---- float16 ---------------------------------------------------------- */

static void test_f16_to_f32_exhaustive(void **state) {
  (void)state;
#ifdef TEST_HAVE_F16C_CODE
  const bool f16c = f16c_usable();
#endif
  for (uint32_t i = 0; i < 65536; i++) {
    uint16_t h = (uint16_t)i;
    onyx__f16 x = {h};
    uint32_t got = f32_bits(onyx__f16_to_f32(x));
    if (f16_is_nan(h)) {
      /* The payload moves up unchanged; nothing is added. */
      uint32_t want =
          ((uint32_t)(h & 0x8000u) << 16) | 0x7f800000u | ((uint32_t)(h & 0x3ffu) << 13);
      assert_int_equal(got, want);
    } else {
      assert_int_equal(got, f32_bits((float)ref_f16_value(h)));
    }
#ifdef TEST_HAVE_FLOAT16
    /* The compiler quietens a signalling NaN; otherwise the same bits. */
    uint32_t cc = f32_bits(cc_f16_to_f32(h));
    assert_int_equal(f16_is_nan(h) ? (got | 0x400000u) : got, cc);
#endif
#ifdef TEST_HAVE_F16C_CODE
    if (f16c) {
      uint32_t hw = f32_bits(f16c_f16_to_f32(h));
      assert_int_equal(f16_is_nan(h) ? (got | 0x400000u) : got, hw);
    }
#endif
  }
}

static void test_f16_round_trip_exhaustive(void **state) {
  (void)state;
  for (uint32_t i = 0; i < 65536; i++) {
    uint16_t h = (uint16_t)i;
    onyx__f16 x = {h};
    uint16_t back = onyx__f32_to_f16(onyx__f16_to_f32(x)).bits;
    /* A signalling NaN (quiet bit 0x200 clear) gains the quiet bit. */
    assert_int_equal(back, f16_is_nan(h) ? (h | 0x200u) : h);
  }
}

/* Checks one float32 -> float16 conversion against every reference. */
static void check_f32_to_f16(uint32_t u, bool f16c) {
  float f = f32_from_bits(u);
  uint16_t got = onyx__f32_to_f16(f).bits;
  (void)f16c;
  if (isnan(f)) {
    assert_int_equal(got, pinned_f16_nan(u));
  } else {
    double want = ref_round((double)f, 11, -14, F16_MAX);
    double have = ref_f16_value(got);
    if (have != want || signbit(have) != signbit(want) || f16_is_nan(got)) {
      fail_msg("f32 0x%08x -> f16 0x%04x (%.17g), want %.17g", u, got, have, want);
    }
  }
#ifdef TEST_HAVE_FLOAT16
  if (cc_f32_to_f16(f) != got) {
    fail_msg("f32 0x%08x -> f16 0x%04x, _Float16 gives 0x%04x", u, got, cc_f32_to_f16(f));
  }
#endif
#ifdef TEST_HAVE_F16C_CODE
  if (f16c && f16c_f32_to_f16(f) != got) {
    fail_msg("f32 0x%08x -> f16 0x%04x, F16C gives 0x%04x", u, got, f16c_f32_to_f16(f));
  }
#endif
}

/* A small deterministic generator, so that failures reproduce. */
static uint32_t xorshift32(uint32_t *s) {
  uint32_t x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *s = x;
}

static void test_f32_to_f16_structured(void **state) {
  (void)state;
  bool f16c = false;
#ifdef TEST_HAVE_F16C_CODE
  f16c = f16c_usable();
#endif
  /* Every float32 whose low 13 bits (those float16 drops) are exactly
   * representable, a tie, just above a tie, just below a tie, or the
   * largest; over every sign, exponent and kept significand. */
  static const uint32_t lows[] = {0x0000u, 0x1000u, 0x1001u, 0x0fffu, 0x1fffu, 0x0001u};
  for (uint32_t hi = 0; hi < (1u << 19); hi++) {
    for (size_t k = 0; k < sizeof lows / sizeof lows[0]; k++) {
      check_f32_to_f16((hi << 13) | lows[k], f16c);
    }
  }
  /* Random float32 patterns. */
  uint32_t s = 0x9e3779b9u;
  for (int i = 0; i < 1000000; i++) check_f32_to_f16(xorshift32(&s), f16c);
  /* Every float32 between 2^-26 and 2^-13 with random low bits, the range
   * in which results are float16 subnormals or round into the normals. */
  for (uint32_t u = 0x32800000u; u < 0x39000000u; u += 0x1f3u) check_f32_to_f16(u, f16c);
}

static void test_f32_to_f16_edges(void **state) {
  (void)state;
  static const struct {
    float in;
    uint16_t out;
  } cases[] = {
      {0.0f, 0x0000},
      {-0.0f, 0x8000},
      {1.0f, 0x3c00},
      {-2.0f, 0xc000},
      {65504.0f, 0x7bff},        /* the largest finite float16 */
      {65519.99609375f, 0x7bff}, /* just below the overflow tie */
      {65520.0f, 0x7c00},        /* the tie between 65504 and 65536 overflows */
      {-65520.0f, 0xfc00},
      {1e10f, 0x7c00},
      {INFINITY, 0x7c00},
      {-INFINITY, 0xfc00},
      {0x1p-24f, 0x0001},        /* the smallest subnormal */
      {0x1p-25f, 0x0000},        /* a tie between 0 and 2^-24: to even, 0 */
      {0x1.000002p-25f, 0x0001}, /* just above that tie */
      {-0x1p-25f, 0x8000},
      {0x1.8p-24f, 0x0002},      /* 1.5 units: a tie, to even 2 */
      {0x1.4p-23f, 0x0002},      /* 2.5 units: a tie, to even 2 */
      {0x1p-14f, 0x0400},        /* the smallest normal */
      {0x1.ffcp-15f, 0x0400},    /* between the largest subnormal and 2^-14: to even */
      {0x1p-149f, 0x0000},       /* float32 subnormals all round to zero */
      {1.0f + 0x1p-11f, 0x3c00}, /* a tie at 1: to even */
      {1.0f + 0x3p-11f, 0x3c02}, /* a tie at 1 + 2^-10: to even */
      {2048.0f + 1.0f, 0x6800},  /* 2049 is a tie: to even 2048 */
      {2048.0f + 3.0f, 0x6802},  /* 2051 is a tie: to even 2052 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint16_t got = onyx__f32_to_f16(cases[i].in).bits;
    if (got != cases[i].out) {
      fail_msg("%a -> 0x%04x, want 0x%04x", (double)cases[i].in, got, cases[i].out);
    }
  }
  /* NaNs: quiet and signalling, both signs, payload only in low bits. */
  assert_int_equal(onyx__f32_to_f16(f32_from_bits(0x7fc00000u)).bits, 0x7e00u);
  assert_int_equal(onyx__f32_to_f16(f32_from_bits(0xffc00000u)).bits, 0xfe00u);
  assert_int_equal(onyx__f32_to_f16(f32_from_bits(0x7f800001u)).bits, 0x7e00u);
  assert_int_equal(onyx__f32_to_f16(f32_from_bits(0x7fa02000u)).bits, 0x7f01u);
  assert_int_equal(onyx__f32_to_f16(f32_from_bits(0xff802000u)).bits, 0xfe01u);
}

/* ---- bfloat16 --------------------------------------------------------- */

static void test_bf16_exhaustive(void **state) {
  (void)state;
  for (uint32_t i = 0; i < 65536; i++) {
    uint16_t b = (uint16_t)i;
    onyx__bf16 x = {b};
    float f = onyx__bf16_to_f32(x);
    /* float32 -> bfloat16 drops the low 16 bits, so the exact conversion
     * puts the bits on top, NaNs included. */
    assert_int_equal(f32_bits(f), (uint32_t)b << 16);
    if (!bf16_is_nan(b)) assert_true(f == (float)ref_bf16_value(b));
    uint16_t back = onyx__f32_to_bf16(f).bits;
    /* A signalling NaN (quiet bit 0x40 clear) gains the quiet bit. */
    assert_int_equal(back, bf16_is_nan(b) ? (b | 0x40u) : b);
  }
}

static void check_f32_to_bf16(uint32_t u) {
  float f = f32_from_bits(u);
  uint16_t got = onyx__f32_to_bf16(f).bits;
  if (isnan(f)) {
    assert_true(bf16_is_nan(got));
    assert_int_equal(got, (uint16_t)((u >> 16) | 0x40u));
    return;
  }
  double want = ref_round((double)f, 8, -126, BF16_MAX);
  double have = ref_bf16_value(got);
  if (have != want || signbit(have) != signbit(want) || bf16_is_nan(got)) {
    fail_msg("f32 0x%08x -> bf16 0x%04x (%.17g), want %.17g", u, got, have, want);
  }
}

static void test_f32_to_bf16_structured(void **state) {
  (void)state;
  static const uint32_t lows[] = {0x0000u, 0x8000u, 0x8001u, 0x7fffu, 0xffffu, 0x0001u};
  for (uint32_t hi = 0; hi < 65536; hi++) {
    for (size_t k = 0; k < sizeof lows / sizeof lows[0]; k++)
      check_f32_to_bf16((hi << 16) | lows[k]);
  }
  uint32_t s = 0x12345678u;
  for (int i = 0; i < 1000000; i++) check_f32_to_bf16(xorshift32(&s));
}

static void test_f32_to_bf16_edges(void **state) {
  (void)state;
  static const struct {
    uint32_t in;
    uint16_t out;
  } cases[] = {
      {0x00000000u, 0x0000}, {0x80000000u, 0x8000}, {0x3f800000u, 0x3f80}, /* 1 */
      {0x3f808000u, 0x3f80}, /* 1 + 2^-8, a tie: to even 1 */
      {0x3f818000u, 0x3f82}, /* 1 + 3 * 2^-8, a tie: to even */
      {0x3f808001u, 0x3f81}, /* just above a tie */
      {0x3f807fffu, 0x3f80}, /* just below a tie */
      {0x7f7f7fffu, 0x7f7f}, /* just below the overflow tie */
      {0x7f7f8000u, 0x7f80}, /* the overflow tie: to even, infinity */
      {0x7f7fffffu, 0x7f80}, /* FLT_MAX overflows */
      {0xff7fffffu, 0xff80}, {0x7f800000u, 0x7f80}, {0xff800000u, 0xff80}, /* infinities */
      {0x00000001u, 0x0000}, /* the smallest float32 subnormal */
      {0x00008000u, 0x0000}, /* a tie between 0 and the smallest bf16 subnormal */
      {0x00018000u, 0x0002}, /* a tie between bf16 subnormals 1 and 2: to even */
      {0x007fffffu, 0x0080}, /* the largest float32 subnormal rounds to the smallest normal */
      {0x7fc00000u, 0x7fc0}, {0xffc00001u, 0xffc0}, /* quiet NaNs */
      {0x7f800001u, 0x7fc0},                        /* signalling NaN, payload in the low bits */
      {0x7f810000u, 0x7fc1}, /* signalling NaN, payload kept, quiet bit set */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint16_t got = onyx__f32_to_bf16(f32_from_bits(cases[i].in)).bits;
    if (got != cases[i].out)
      fail_msg("0x%08x -> 0x%04x, want 0x%04x", cases[i].in, got, cases[i].out);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_f16_to_f32_exhaustive),
      cmocka_unit_test(test_f16_round_trip_exhaustive),
      cmocka_unit_test(test_f32_to_f16_structured),
      cmocka_unit_test(test_f32_to_f16_edges),
      cmocka_unit_test(test_bf16_exhaustive),
      cmocka_unit_test(test_f32_to_bf16_structured),
      cmocka_unit_test(test_f32_to_bf16_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
