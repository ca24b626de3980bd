/* SPDX-License-Identifier: MIT */
/*
 * The element-wise kernels, their dispatch and the public kernel API.
 *
 * Expected results never come from the code under test. They come from
 * hand-written tables of bit patterns, and from references written here
 * another way: ceil and floor by integer truncation in double, Clip with
 * "<=" and ">=" (ties to the bound) instead of the kernels' NaN-aware
 * "max then min", float16 and bfloat16 fields decoded and encoded with
 * frexp/ldexp. Every test loops over registries (every op, every type,
 * every ISA cap), so a new per-ISA table is tested here without new tests.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* cmocka.h uses size_t, va_list, jmp_buf and uintmax_t without including
 * the headers that declare them, so it comes after them. */
#include <cmocka.h>

#include "core/dtype.h"
#include "cpu/cpu.h"
#include "kernels/kernels.h"
#include "onyx.h"
#include "host_bytes.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const onyx_isa caps[] = {
#define ONYX_X_(name, value, lname, arch, desc) ONYX_ISA_##name,
    ONYX_ISA_MAP(ONYX_X_)
#undef ONYX_X_
        ONYX_ISA_BEST};

/* The types each op must have a kernel for, written out by hand. */
static onyx__dmask want_types(onyx__kop op) {
  switch (op) {
    case ONYX__KOP_CEIL:
    case ONYX__KOP_FLOOR:
      return ONYX__DM(FLOAT) | ONYX__DM(DOUBLE) | ONYX__DM(FLOAT16) | ONYX__DM(BFLOAT16);
    case ONYX__KOP_CLIP:
    case ONYX__KOP_SIGN:
      return ONYX__DM(FLOAT) | ONYX__DM(DOUBLE) | ONYX__DM(FLOAT16) | ONYX__DM(BFLOAT16) |
             ONYX__DM(INT8) | ONYX__DM(INT16) | ONYX__DM(INT32) | ONYX__DM(INT64) |
             ONYX__DM(UINT8) | ONYX__DM(UINT16) | ONYX__DM(UINT32) | ONYX__DM(UINT64);
    default:
      return 0;
  }
}

static const char *op_name(onyx__kop op) {
  static const char *const names[] = {"ceil", "floor", "clip", "sign"};
  return (unsigned)op < COUNT(names) ? names[op] : "?";
}

/* ---- Elements as bit patterns ------------------------------------------ */

/* Elements are handled as their bit patterns in a uint64_t, little-endian
 * in memory as ONNX stores them. */
/* Kernels work on host-order elements. */
static uint64_t get_bits(onyx_dtype dt, const void *p) { return load_host(p, onyx_dtype_size(dt)); }

static void put_bits(onyx_dtype dt, uint64_t v, void *p) { store_host(v, onyx_dtype_size(dt), p); }

static bool is_float_type(onyx_dtype dt) {
  return dt == ONYX_DTYPE_FLOAT || dt == ONYX_DTYPE_DOUBLE || dt == ONYX_DTYPE_FLOAT16 ||
         dt == ONYX_DTYPE_BFLOAT16;
}

static bool is_signed_type(onyx_dtype dt) {
  return dt == ONYX_DTYPE_INT8 || dt == ONYX_DTYPE_INT16 || dt == ONYX_DTYPE_INT32 ||
         dt == ONYX_DTYPE_INT64;
}

/* Field layout of a binary float type: significand bits and exponent bias. */
static void float_layout(onyx_dtype dt, int *mbits, int *bias) {
  switch (dt) {
    case ONYX_DTYPE_FLOAT16:
      *mbits = 10, *bias = 15;
      return;
    case ONYX_DTYPE_BFLOAT16:
      *mbits = 7, *bias = 127;
      return;
    case ONYX_DTYPE_FLOAT:
      *mbits = 23, *bias = 127;
      return;
    default:
      *mbits = 52, *bias = 1023;
      return;
  }
}

static bool f_isnan(onyx_dtype dt, uint64_t bits) {
  int mbits, bias;
  float_layout(dt, &mbits, &bias);
  uint64_t emask = (uint64_t)(2 * bias + 1) << mbits;
  uint64_t mmask = ((uint64_t)1 << mbits) - 1;
  return (bits & emask) == emask && (bits & mmask) != 0;
}

/* The quiet bit of a type's NaNs: the top significand bit. */
static uint64_t f_quiet(onyx_dtype dt) {
  int mbits, bias;
  float_layout(dt, &mbits, &bias);
  return (uint64_t)1 << (mbits - 1);
}

/* The value of a non-NaN float element, from its fields. */
static double f_value(onyx_dtype dt, uint64_t bits) {
  int mbits, bias;
  float_layout(dt, &mbits, &bias);
  int ebits = dt == ONYX_DTYPE_FLOAT16 ? 5 : dt == ONYX_DTYPE_DOUBLE ? 11 : 8;
  uint64_t e = (bits >> mbits) & ((1u << ebits) - 1);
  uint64_t m = bits & (((uint64_t)1 << mbits) - 1);
  bool neg = (bits >> (mbits + ebits)) & 1u;
  double v;
  if (e == (uint64_t)(2 * bias + 1)) {
    v = INFINITY;
  } else if (e == 0) {
    v = ldexp((double)m, 1 - bias - mbits);
  } else {
    v = ldexp((double)(m | ((uint64_t)1 << mbits)), (int)e - bias - mbits);
  }
  return neg ? -v : v;
}

/* The bits of v in a float type; false when v is not exactly representable
 * (or is NaN, which has no single encoding). */
static bool f_bits(onyx_dtype dt, double v, uint64_t *out) {
  int mbits, bias;
  float_layout(dt, &mbits, &bias);
  int ebits = dt == ONYX_DTYPE_FLOAT16 ? 5 : dt == ONYX_DTYPE_DOUBLE ? 11 : 8;
  uint64_t sign = (uint64_t)(signbit(v) ? 1 : 0) << (mbits + ebits);
  double a = fabs(v);
  if (isnan(v)) return false;
  if (isinf(v)) {
    *out = sign | ((uint64_t)(2 * bias + 1) << mbits);
    return true;
  }
  if (a == 0) {
    *out = sign;
    return true;
  }
  int e;
  (void)frexp(a, &e);
  int exp = e - 1;
  if (exp > bias) return false;
  if (exp < 1 - bias) {
    double m = ldexp(a, bias - 1 + mbits); /* a in units of the smallest subnormal */
    if (m != floor(m)) return false;
    *out = sign | (uint64_t)m;
    return true;
  }
  double m = ldexp(a, mbits - exp); /* in [2^mbits, 2^(mbits+1)) */
  if (m != floor(m)) return false;
  *out = sign | ((uint64_t)(exp + bias) << mbits) | ((uint64_t)m - ((uint64_t)1 << mbits));
  return true;
}

static void int_range(onyx_dtype dt, int64_t *smin, int64_t *smax, uint64_t *umax) {
  size_t bits = 8 * onyx_dtype_size(dt);
  *umax = bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
  *smax = (int64_t)(*umax >> 1);
  *smin = -*smax - 1;
}

/* Two's complement bits of a signed value in a type of dt's width. */
static uint64_t s_bits(onyx_dtype dt, int64_t v) {
  size_t bits = 8 * onyx_dtype_size(dt);
  uint64_t u = (uint64_t)v;
  return bits == 64 ? u : u & (((uint64_t)1 << bits) - 1);
}

static int64_t s_value(onyx_dtype dt, uint64_t bits) {
  size_t w = 8 * onyx_dtype_size(dt);
  if (w < 64 && ((bits >> (w - 1)) & 1u)) bits |= ~(uint64_t)0 << w; /* sign-extend */
  int64_t v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

/* ---- References ------------------------------------------------------ */

/* ceil and floor without libm's rounding functions: truncate through
 * int64 where the value has a fraction at all (|x| < 2^52), then step. A
 * zero result takes the sign of x, as ceil(-0.5) = -0 and floor(-0) = -0. */
static double ref_ceil(double x) {
  if (!(fabs(x) < 0x1p52)) return x;
  double t = (double)(int64_t)x;
  double r = t < x ? t + 1 : t;
  return r == 0 ? copysign(0.0, x) : r;
}

static double ref_floor(double x) {
  if (!(fabs(x) < 0x1p52)) return x;
  double t = (double)(int64_t)x;
  double r = t > x ? t - 1 : t;
  return r == 0 ? copysign(0.0, x) : r;
}

/* A Clip bound as a test gives it: absent, NaN, or a value. */
typedef struct bound {
  enum { B_NONE, B_NAN, B_VAL } kind;
  uint64_t bits; /* the element's bits, for B_VAL and B_NAN */
} bound;

/* What a kernel should write for one element: exact bits, or any NaN. */
typedef struct expect {
  uint64_t bits;
  bool any_nan;
} expect;

static expect ref_element(onyx__kop op, onyx_dtype dt, uint64_t x, const bound *lo,
                          const bound *hi) {
  expect e = {0, false};
  if (is_float_type(dt)) {
    bool half = dt == ONYX_DTYPE_FLOAT16 || dt == ONYX_DTYPE_BFLOAT16;
    (void)half;
    if (f_isnan(dt, x)) {
      /* numpy: ceil and floor return the NaN quiet (the rounding
       * instructions set the quiet bit); Sign and Clip return x itself,
       * bits included, for every float type. */
      e.bits = op == ONYX__KOP_CEIL || op == ONYX__KOP_FLOOR ? x | f_quiet(dt) : x;
      return e;
    }
    double v = f_value(dt, x), r = 0;
    switch (op) {
      case ONYX__KOP_CEIL:
        r = ref_ceil(v);
        break;
      case ONYX__KOP_FLOOR:
        r = ref_floor(v);
        break;
      case ONYX__KOP_SIGN:
        r = v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0; /* both zeros give +0 */
        break;
      case ONYX__KOP_CLIP:
        r = v;
        /* A NaN bound is no bound. A tie (+0 against -0) returns the bound,
         * except for float16, whose numpy clip keeps x. */
        if (dt == ONYX_DTYPE_FLOAT16) {
          if (lo->kind == B_VAL && r < f_value(dt, lo->bits)) r = f_value(dt, lo->bits);
          if (hi->kind == B_VAL && r > f_value(dt, hi->bits)) r = f_value(dt, hi->bits);
        } else {
          if (lo->kind == B_VAL && r <= f_value(dt, lo->bits)) r = f_value(dt, lo->bits);
          if (hi->kind == B_VAL && r >= f_value(dt, hi->bits)) r = f_value(dt, hi->bits);
        }
        break;
      default:
        fail();
    }
    if (!f_bits(dt, r, &e.bits)) fail_msg("reference result %.17g not representable", r);
    return e;
  }
  if (is_signed_type(dt)) {
    int64_t v = s_value(dt, x), r = v;
    if (op == ONYX__KOP_SIGN) r = v > 0 ? 1 : v < 0 ? -1 : 0;
    if (op == ONYX__KOP_CLIP) {
      if (lo->kind == B_VAL && r < s_value(dt, lo->bits)) r = s_value(dt, lo->bits);
      if (hi->kind == B_VAL && r > s_value(dt, hi->bits)) r = s_value(dt, hi->bits);
    }
    e.bits = s_bits(dt, r);
    return e;
  }
  uint64_t r = x;
  if (op == ONYX__KOP_SIGN) r = x != 0;
  if (op == ONYX__KOP_CLIP) {
    if (lo->kind == B_VAL && r < lo->bits) r = lo->bits;
    if (hi->kind == B_VAL && r > hi->bits) r = hi->bits;
  }
  e.bits = r;
  return e;
}

static bool matches(onyx_dtype dt, const expect *e, uint64_t got) {
  return e->any_nan ? f_isnan(dt, got) : got == e->bits;
}

/* ---- Value pools --------------------------------------------------------- */

/* Special float values; each type takes those it represents exactly. */
// clang-format off
static const double float_specials[] = {
    0.0, -0.0, INFINITY, -INFINITY, 0.5, -0.5, 1, -1, 1.5, -1.5, 2.5, -2.5, 3, -3,
    0.49999999999999994, -0.49999999999999994, /* the double just below 0.5 */
    0x1.fffffep-2, -0x1.fffffep-2,             /* the float just below 0.5 */
    0x1.ffcp-2, -0x1.ffcp-2,                   /* the float16 just below 0.5 */
    0x1.fcp-2, -0x1.fcp-2,                     /* the bfloat16 just below 0.5 */
    0.999, -0.999, 1.0009765625, -1.0009765625,
    /* subnormals */
    0x1p-1074, -0x1p-1074, 0x1p-1060, 0x1p-149, -0x1p-149, 0x1.8p-140, 0x1p-133, -0x1p-133,
    0x1p-24, -0x1p-24, 0x1.ff8p-15, -0x1.ff8p-15, 0x1p-126, 0x1p-1022, -0x1p-1022,
    /* around 128 (bfloat16), 1024 (float16), 2^23 (float), 2^52 (double) */
    127, 127.5, 128, 128.5, 129, 130, -127, -127.5, -128, -128.5, -129, -130,
    1023, 1023.5, 1024, 1024.5, 1025, 1026, -1023, -1023.5, -1024, -1024.5, -1025, -1026,
    0x1p23 - 1, 0x1p23 - 0.5, 0x1p23, 0x1p23 + 0.5, 0x1p23 + 1, 0x1p24,
    -0x1p23 + 1, -0x1p23 + 0.5, -0x1p23, -0x1p23 - 0.5, -0x1p23 - 1, -0x1p24,
    0x1p52 - 1, 0x1p52 - 0.5, 0x1p52, 0x1p52 + 0.5, 0x1p52 + 1, 0x1p53, 0x1p53 + 2,
    -0x1p52 + 1, -0x1p52 + 0.5, -0x1p52, -0x1p52 - 0.5, -0x1p52 - 1, -0x1p53,
    /* the largest finite values */
    65504, -65504, 0x1.fep127, -0x1.fep127, FLT_MAX, -FLT_MAX, DBL_MAX, -DBL_MAX, 1e300,
};
// clang-format on

/* NaNs with payloads, quiet and signalling, per float type. */
static size_t nan_pool(onyx_dtype dt, uint64_t *out) {
  static const uint64_t f32[] = {0x7fc12345u, 0xffc00001u, 0x7f800001u, 0xffa5a5a5u, 0x7fffffffu};
  static const uint64_t f64[] = {UINT64_C(0x7ff8000012345678), UINT64_C(0xfff8000000000001),
                                 UINT64_C(0x7ff0000000000001), UINT64_C(0xfff4a5a5a5a5a5a5)};
  static const uint64_t f16[] = {0x7e55u, 0xfe01u, 0x7c01u, 0xfd55u, 0x7fffu};
  static const uint64_t bf16[] = {0x7fc5u, 0xffc1u, 0x7f81u, 0xffa5u, 0x7fffu};
  const uint64_t *src;
  size_t n;
  switch (dt) {
    case ONYX_DTYPE_FLOAT:
      src = f32, n = COUNT(f32);
      break;
    case ONYX_DTYPE_DOUBLE:
      src = f64, n = COUNT(f64);
      break;
    case ONYX_DTYPE_FLOAT16:
      src = f16, n = COUNT(f16);
      break;
    default:
      src = bf16, n = COUNT(bf16);
      break;
  }
  memcpy(out, src, n * sizeof *src);
  return n;
}

// clang-format off
static const int64_t signed_specials[] = {
    0, 1, -1, 2, -2, 42, -42, 126, 127, 128, -127, -128, -129, 255, 256, 32767, -32768,
    32768, -32769, INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1, (int64_t)INT32_MIN - 1,
    INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, ((int64_t)1 << 53) + 1,
};
static const uint64_t unsigned_specials[] = {
    0, 1, 2, 42, 127, 128, 255, 256, 65535, 65536, UINT32_MAX, (uint64_t)UINT32_MAX + 1,
    UINT64_MAX, UINT64_MAX - 1, (uint64_t)1 << 63, ((uint64_t)1 << 53) + 1,
};
// clang-format on

#define POOL_MAX 256

/* The special elements of a type, as bits. */
static size_t value_pool(onyx_dtype dt, uint64_t *out) {
  size_t n = 0;
  if (is_float_type(dt)) {
    for (size_t i = 0; i < COUNT(float_specials); i++) {
      if (f_bits(dt, float_specials[i], &out[n])) n++;
    }
    n += nan_pool(dt, out + n);
  } else if (is_signed_type(dt)) {
    int64_t smin, smax;
    uint64_t umax;
    int_range(dt, &smin, &smax, &umax);
    for (size_t i = 0; i < COUNT(signed_specials); i++) {
      int64_t v = signed_specials[i];
      if (v >= smin && v <= smax) out[n++] = s_bits(dt, v);
    }
  } else {
    int64_t smin, smax;
    uint64_t umax;
    int_range(dt, &smin, &smax, &umax);
    for (size_t i = 0; i < COUNT(unsigned_specials); i++) {
      if (unsigned_specials[i] <= umax) out[n++] = unsigned_specials[i];
    }
  }
  assert_true(n <= POOL_MAX);
  return n;
}

/*
 * Clip bound pairs. For float types a value is a double (skipped where a
 * type cannot hold it); for integer types TMIN/TMAX stand for the type's
 * extremes and other values are skipped when out of range.
 */
#define TMIN (-1e300)
#define TMAX (1e300)
static const struct {
  int lo_kind, hi_kind;
  double lo, hi;
} bound_specs[] = {
    {B_NONE, B_NONE, 0, 0},
    {B_VAL, B_VAL, -1, 1},
    {B_VAL, B_VAL, -1.5, 2.5},
    {B_VAL, B_NONE, 0, 0},
    {B_NONE, B_VAL, 0, 0},
    {B_VAL, B_NONE, -0.0, 0},  /* ties at -0 */
    {B_NONE, B_VAL, 0, -0.0},  /* clip(+0, hi = -0) is -0 */
    {B_VAL, B_VAL, 0.0, -0.0}, /* lo > hi in sign only */
    {B_VAL, B_VAL, 3, -2},     /* lo > hi: everything is hi */
    {B_VAL, B_VAL, 5, 5},
    {B_NAN, B_VAL, 0, 2}, /* a NaN bound is no bound */
    {B_VAL, B_NAN, -2, 0},
    {B_NAN, B_NAN, 0, 0},
    {B_VAL, B_VAL, -INFINITY, INFINITY},
    {B_VAL, B_VAL, INFINITY, -INFINITY},
    {B_VAL, B_VAL, 1024, 128},
    {B_VAL, B_VAL, 127.5, 1023.5},
    {B_VAL, B_VAL, TMIN, TMAX},
    {B_VAL, B_VAL, TMAX, TMIN},
    {B_VAL, B_NONE, TMAX, 0},
    {B_NONE, B_VAL, 0, TMIN},
    {B_VAL, B_VAL, -128, 127},
    {B_VAL, B_VAL, 0x1p53, 0x1p53},
};

/* Makes the bounds of bound_specs[i] for dt; false when dt cannot hold them. */
static bool make_bound(onyx_dtype dt, int kind, double v, bound *b) {
  b->kind = kind;
  b->bits = 0;
  if (kind == B_NONE) return true;
  if (kind == B_NAN) {
    if (!is_float_type(dt)) return false;
    uint64_t nans[8];
    (void)nan_pool(dt, nans);
    b->bits = nans[0];
    return true;
  }
  if (is_float_type(dt)) return v != TMIN && v != TMAX && f_bits(dt, v, &b->bits);
  int64_t smin, smax;
  uint64_t umax;
  int_range(dt, &smin, &smax, &umax);
  if (is_signed_type(dt)) {
    if (v == TMIN)
      b->bits = s_bits(dt, smin);
    else if (v == TMAX)
      b->bits = s_bits(dt, smax);
    else if (v != floor(v) || v < (double)smin || v > (double)smax || (signbit(v) && v == 0))
      return false;
    else
      b->bits = s_bits(dt, (int64_t)v);
    return true;
  }
  if (v == TMIN)
    b->bits = 0;
  else if (v == TMAX)
    b->bits = umax;
  else if (v != floor(v) || v < 0 || signbit(v) || v > (double)umax)
    return false;
  else
    b->bits = (uint64_t)v;
  return true;
}

/* ---- Running kernels ------------------------------------------------------ */

static onyx__kparams params_for(onyx_dtype dt, const bound *lo, const bound *hi) {
  unsigned char lb[8], hb[8];
  put_bits(dt, lo->bits, lb);
  put_bits(dt, hi->bits, hb);
  onyx__kparams p;
  onyx__clip_params(dt, lo->kind == B_NONE ? NULL : lb, hi->kind == B_NONE ? NULL : hb, &p);
  return p;
}

static void report(onyx__kop op, onyx_dtype dt, onyx_isa isa, uint64_t x, const bound *lo,
                   const bound *hi, const expect *e, uint64_t got) {
  char lb[40] = "none", hb[40] = "none";
  if (op == ONYX__KOP_CLIP && lo->kind != B_NONE) snprintf(lb, sizeof lb, "0x%" PRIx64, lo->bits);
  if (op == ONYX__KOP_CLIP && hi->kind != B_NONE) snprintf(hb, sizeof hb, "0x%" PRIx64, hi->bits);
  fail_msg("%s %s (%s): x = 0x%" PRIx64 " lo = %s hi = %s: got 0x%" PRIx64 ", want %s0x%" PRIx64,
           op_name(op), onyx_dtype_name(dt), onyx_isa_name(isa), x, lb, hb, got,
           e->any_nan ? "any NaN, e.g. " : "", e->bits);
}

/* Runs kernel k on xs (n elements) and checks every element. */
static void check_kernel(onyx__ukernel k, onyx__kop op, onyx_dtype dt, onyx_isa isa,
                         const uint64_t *xs, size_t n, const bound *lo, const bound *hi) {
  size_t sz = onyx_dtype_size(dt);
  unsigned char *x = malloc(n * sz + 1), *y = malloc(n * sz + 1);
  assert_non_null(x);
  assert_non_null(y);
  for (size_t i = 0; i < n; i++) put_bits(dt, xs[i], x + i * sz);
  onyx__kparams p = params_for(dt, lo, hi);
  k(n, x, y, &p);
  for (size_t i = 0; i < n; i++) {
    expect e = ref_element(op, dt, xs[i], lo, hi);
    uint64_t got = get_bits(dt, y + i * sz);
    if (!matches(dt, &e, got)) report(op, dt, isa, xs[i], lo, hi, &e, got);
  }
  free(x);
  free(y);
}

/* Calls fn for every (op, type) that has a kernel, at every ISA cap, with
 * every bound pair the type can hold (one "no bounds" pair for non-Clip). */
typedef void (*kernel_visit)(onyx__ukernel k, onyx__kop op, onyx_dtype dt, onyx_isa isa,
                             const bound *lo, const bound *hi, void *ctx);
static void for_each_kernel(kernel_visit fn, void *ctx) {
  for (int o = 0; o < ONYX__KOP_COUNT; o++) {
    for (int d = 0; d < ONYX__DTYPE_COUNT; d++) {
      onyx__kop op = (onyx__kop)o;
      onyx_dtype dt = onyx__dtype_at(d);
      if (!onyx__dmask_has(want_types(op), dt)) continue;
      for (size_t c = 0; c < COUNT(caps); c++) {
        onyx__ukernel k = onyx__kernel_get(op, dt, caps[c]);
        assert_non_null(k);
        onyx_isa isa = onyx__kernel_isa(op, dt, caps[c]);
        size_t nb = op == ONYX__KOP_CLIP ? COUNT(bound_specs) : 1;
        for (size_t b = 0; b < nb; b++) {
          bound lo, hi;
          if (!make_bound(dt, bound_specs[b].lo_kind, bound_specs[b].lo, &lo)) continue;
          if (!make_bound(dt, bound_specs[b].hi_kind, bound_specs[b].hi, &hi)) continue;
          fn(k, op, dt, isa, &lo, &hi, ctx);
        }
      }
    }
  }
}

/* ---- Registry and dispatch ------------------------------------------------ */

static void test_scalar_table_is_complete(void **state) {
  (void)state;
  for (int o = 0; o < ONYX__KOP_COUNT; o++) {
    for (int d = 0; d < ONYX__DTYPE_COUNT; d++) {
      onyx__kop op = (onyx__kop)o;
      onyx_dtype dt = onyx__dtype_at(d);
      bool want = onyx__dmask_has(want_types(op), dt);
      onyx__ukernel k = onyx__kernels_scalar.k[o][d];
      if ((k != NULL) != want) {
        fail_msg("scalar %s %s: kernel %s", op_name(op), onyx_dtype_name(dt),
                 k ? "present but not allowed" : "missing");
      }
      /* A scalar cap always gives the scalar kernel. */
      assert_ptr_equal(onyx__kernel_get(op, dt, ONYX_ISA_SCALAR), k);
      assert_int_equal(onyx__kernel_isa(op, dt, ONYX_ISA_SCALAR), ONYX_ISA_SCALAR);
      for (size_t c = 0; c < COUNT(caps); c++) {
        onyx__ukernel kc = onyx__kernel_get(op, dt, caps[c]);
        assert_true((kc != NULL) == want);
        /* The level found is at most the cap and at most the CPU's (on
         * their architecture: what it allows, they allow). */
        onyx__cpu_mask allows = onyx__cpu_cap_mask(onyx__kernel_isa(op, dt, caps[c]));
        assert_true((allows & ~onyx__cpu_cap_mask(caps[c])) == 0);
        assert_true((allows & ~onyx__cpu_cap_mask(onyx__cpu_isa())) == 0);
      }
    }
  }
  /* Unknown types and ops have no kernel. */
  assert_null(onyx__kernel_get(ONYX__KOP_SIGN, ONYX_DTYPE_UNDEFINED, ONYX_ISA_BEST));
  assert_null(onyx__kernel_get(ONYX__KOP_SIGN, (onyx_dtype)99, ONYX_ISA_BEST));
  assert_null(onyx__kernel_get(ONYX__KOP_COUNT, ONYX_DTYPE_FLOAT, ONYX_ISA_BEST));
}

/* ---- Hand-written cases ------------------------------------------------------ */

/* One case: bits in, bits out. lo_kind and hi_kind (Clip only): 0 none,
 * 1 NaN, 2 the value that follows. */
static const struct {
  onyx__kop op;
  onyx_dtype dt;
  uint64_t x;
  int lo_kind;
  uint64_t lo;
  int hi_kind;
  uint64_t hi;
  uint64_t y;
} hand_cases[] = {
#define F32   ONYX_DTYPE_FLOAT
#define F64   ONYX_DTYPE_DOUBLE
#define F16   ONYX_DTYPE_FLOAT16
#define BF16  ONYX_DTYPE_BFLOAT16
#define CEIL  ONYX__KOP_CEIL
#define FLOOR ONYX__KOP_FLOOR
#define SIGN  ONYX__KOP_SIGN
#define CLIP  ONYX__KOP_CLIP
#define U(x)  UINT64_C(x)
    /* float: ceil */
    {CEIL, F32, 0x3f000000, 0, 0, 0, 0, 0x3f800000}, /* 0.5 -> 1 */
    {CEIL, F32, 0xbf000000, 0, 0, 0, 0, 0x80000000}, /* -0.5 -> -0 */
    {CEIL, F32, 0x80000000, 0, 0, 0, 0, 0x80000000}, /* -0 -> -0 */
    {CEIL, F32, 0x00000000, 0, 0, 0, 0, 0x00000000}, /* +0 -> +0 */
    {CEIL, F32, 0x00000001, 0, 0, 0, 0, 0x3f800000}, /* subnormal -> 1 */
    {CEIL, F32, 0x80000001, 0, 0, 0, 0, 0x80000000}, /* -subnormal -> -0 */
    {CEIL, F32, 0x4affffff, 0, 0, 0, 0, 0x4b000000}, /* 2^23 - 0.5 -> 2^23 */
    {CEIL, F32, 0xcaffffff, 0, 0, 0, 0, 0xcafffffe}, /* -(2^23 - 0.5) -> -(2^23 - 1) */
    {CEIL, F32, 0x4b000001, 0, 0, 0, 0, 0x4b000001}, /* 2^23 + 1: integral */
    {CEIL, F32, 0x7f800000, 0, 0, 0, 0, 0x7f800000}, /* inf */
    {CEIL, F32, 0xff800000, 0, 0, 0, 0, 0xff800000}, /* -inf */
    {CEIL, F32, 0x7f7fffff, 0, 0, 0, 0, 0x7f7fffff}, /* FLT_MAX */
    /* float: floor */
    {FLOOR, F32, 0x3f000000, 0, 0, 0, 0, 0x00000000}, /* 0.5 -> +0 */
    {FLOOR, F32, 0xbf000000, 0, 0, 0, 0, 0xbf800000}, /* -0.5 -> -1 */
    {FLOOR, F32, 0x80000000, 0, 0, 0, 0, 0x80000000}, /* -0 -> -0 */
    {FLOOR, F32, 0x80000001, 0, 0, 0, 0, 0xbf800000}, /* -subnormal -> -1 */
    {FLOOR, F32, 0x4affffff, 0, 0, 0, 0, 0x4afffffe}, /* 2^23 - 0.5 -> 2^23 - 1 */
    {FLOOR, F32, 0x44802000, 0, 0, 0, 0, 0x44802000}, /* 1025: integral */
    {FLOOR, F32, 0x44801000, 0, 0, 0, 0, 0x44800000}, /* 1024.5 -> 1024 */
    /* float: sign */
    {SIGN, F32, 0x80000000, 0, 0, 0, 0, 0x00000000}, /* -0 -> +0 */
    {SIGN, F32, 0x00000001, 0, 0, 0, 0, 0x3f800000},
    {SIGN, F32, 0x80000001, 0, 0, 0, 0, 0xbf800000},
    {SIGN, F32, 0xff800000, 0, 0, 0, 0, 0xbf800000},
    {SIGN, F32, 0x7fc12345, 0, 0, 0, 0, 0x7fc12345}, /* NaN payload kept */
    {SIGN, F32, 0xff800001, 0, 0, 0, 0, 0xff800001}, /* even a signalling NaN's */
    /* float: clip (lo_kind/hi_kind: 0 none, 1 NaN, 2 value) */
    {CLIP, F32, 0x80000000, 2, 0x00000000, 0, 0, 0x00000000},          /* clip(-0, lo=+0) = +0 */
    {CLIP, F32, 0x00000000, 0, 0, 2, 0x80000000, 0x80000000},          /* clip(+0, hi=-0) = -0 */
    {CLIP, F32, 0x40a00000, 2, 0x40400000, 2, 0x40000000, 0x40000000}, /* 5, lo 3 > hi 2: 2 */
    {CLIP, F32, 0xc0a00000, 2, 0x40400000, 2, 0x40000000, 0x40000000}, /* -5: 2 */
    {CLIP, F32, 0x7fc12345, 2, 0xbf800000, 2, 0x3f800000, 0x7fc12345}, /* NaN x stays */
    {CLIP, F32, 0x40a00000, 1, 0x7fc00000, 2, 0x40000000, 0x40000000}, /* clip(5, nan, 2) = 2 */
    {CLIP, F32, 0xc0a00000, 1, 0x7fc00000, 2, 0x40000000, 0xc0a00000}, /* clip(-5, nan, 2) = -5 */
    {CLIP, F32, 0x40a00000, 2, 0xc0000000, 1, 0xffc00000, 0x40a00000}, /* clip(5, -2, nan) = 5 */
    {CLIP, F32, 0x7f800000, 0, 0, 0, 0, 0x7f800000},                   /* no bounds: inf */
    {CLIP, F32, 0xff800000, 0, 0, 2, 0x3f800000, 0xff800000},          /* -inf */
    {CLIP, F32, 0x7f800000, 2, 0xbf800000, 0, 0, 0x7f800000},          /* inf */
    {CLIP, F32, 0x7f800000, 2, 0xbf800000, 2, 0x3f800000, 0x3f800000}, /* inf -> 1 */
    /* double */
    {CEIL, F64, U(0xbfe0000000000000), 0, 0, 0, 0, U(0x8000000000000000)},  /* -0.5 -> -0 */
    {CEIL, F64, U(0x432ffffffffffffe), 0, 0, 0, 0, U(0x432ffffffffffffe)},  /* 2^52-1: integral */
    {CEIL, F64, U(0x432fffffffffffff), 0, 0, 0, 0, U(0x4330000000000000)},  /* 2^52-0.5 -> 2^52 */
    {FLOOR, F64, U(0xc32fffffffffffff), 0, 0, 0, 0, U(0xc330000000000000)}, /* -(2^52-0.5) */
    {FLOOR, F64, U(0x8000000000000001), 0, 0, 0, 0, U(0xbff0000000000000)}, /* -subnormal -> -1 */
    {FLOOR, F64, U(0x3fdfffffffffffff), 0, 0, 0, 0, U(0x0000000000000000)}, /* 0.49.. -> +0 */
    {SIGN, F64, U(0x8000000000000000), 0, 0, 0, 0, U(0x0000000000000000)},
    {SIGN, F64, U(0x7ff0000000000001), 0, 0, 0, 0, U(0x7ff0000000000001)},
    {SIGN, F64, U(0x0000000000000001), 0, 0, 0, 0, U(0x3ff0000000000000)},
    {CLIP, F64, U(0x8000000000000000), 2, U(0x0000000000000000), 0, 0, U(0x0000000000000000)},
    /* float16 */
    {CEIL, F16, 0xb800, 0, 0, 0, 0, 0x8000},  /* -0.5 -> -0 */
    {CEIL, F16, 0x63ff, 0, 0, 0, 0, 0x6400},  /* 1023.5 -> 1024 */
    {CEIL, F16, 0x6401, 0, 0, 0, 0, 0x6401},  /* 1025: integral */
    {CEIL, F16, 0x0001, 0, 0, 0, 0, 0x3c00},  /* subnormal -> 1 */
    {FLOOR, F16, 0x8001, 0, 0, 0, 0, 0xbc00}, /* -subnormal -> -1 */
    {FLOOR, F16, 0xe3ff, 0, 0, 0, 0, 0xe400}, /* -1023.5 -> -1024 */
    {FLOOR, F16, 0x7bff, 0, 0, 0, 0, 0x7bff}, /* 65504 */
    {SIGN, F16, 0x8000, 0, 0, 0, 0, 0x0000},
    {SIGN, F16, 0x8001, 0, 0, 0, 0, 0xbc00},
    {SIGN, F16, 0x7e55, 0, 0, 0, 0, 0x7e55}, /* quiet NaN payload kept */
    {SIGN, F16, 0x7c01, 0, 0, 0, 0, 0x7c01}, /* signalling NaN kept, as numpy's */
    {CEIL, F16, 0x7c01, 0, 0, 0, 0, 0x7e01}, /* ceil quiets it, as numpy's */
    {CLIP, F16, 0x7c01, 2, 0x0000, 2, 0x3c00, 0x7c01},
    {CLIP, F16, 0x8000, 2, 0x0000, 0, 0, 0x8000}, /* numpy float16: a tie keeps x */
    {CLIP, F16, 0x0000, 0, 0, 2, 0x8000, 0x0000},
    {CLIP, F16, 0x7bff, 1, 0x7e00, 2, 0x4000, 0x4000},
    {CLIP, F16, 0x4500, 2, 0x4200, 2, 0x4000, 0x4000}, /* 5, lo 3 > hi 2: 2 */
    /* bfloat16 */
    {CEIL, BF16, 0xbf00, 0, 0, 0, 0, 0x8000}, /* -0.5 -> -0 */
    {CEIL, BF16, 0x42ff, 0, 0, 0, 0, 0x4300}, /* 127.5 -> 128 */
    {CEIL, BF16, 0x4301, 0, 0, 0, 0, 0x4301}, /* 129: integral */
    {CEIL, BF16, 0x0001, 0, 0, 0, 0, 0x3f80},
    {FLOOR, BF16, 0x8001, 0, 0, 0, 0, 0xbf80},
    {FLOOR, BF16, 0xc2ff, 0, 0, 0, 0, 0xc300}, /* -127.5 -> -128 */
    {SIGN, BF16, 0x8000, 0, 0, 0, 0, 0x0000},
    {SIGN, BF16, 0xff80, 0, 0, 0, 0, 0xbf80},
    {SIGN, BF16, 0x7fc5, 0, 0, 0, 0, 0x7fc5},
    {SIGN, BF16, 0x7f81, 0, 0, 0, 0, 0x7f81},
    {FLOOR, BF16, 0x7f81, 0, 0, 0, 0, 0x7fc1},
    {CLIP, BF16, 0x8000, 2, 0x0000, 0, 0, 0x0000}, /* bfloat16: a tie gives the bound */
    {CLIP, BF16, 0x40a0, 2, 0x4040, 2, 0x4000, 0x4000},
    {CLIP, BF16, 0xc0a0, 1, 0x7fc0, 2, 0x4000, 0xc0a0},
    /* integers */
    {SIGN, ONYX_DTYPE_INT8, 0x80, 0, 0, 0, 0, 0xff}, /* INT8_MIN -> -1 */
    {SIGN, ONYX_DTYPE_INT16, 0x8000, 0, 0, 0, 0, 0xffff},
    {SIGN, ONYX_DTYPE_INT32, 0x80000000, 0, 0, 0, 0, 0xffffffff},
    {SIGN, ONYX_DTYPE_INT64, U(0x8000000000000000), 0, 0, 0, 0, U(0xffffffffffffffff)},
    {SIGN, ONYX_DTYPE_INT64, U(0x7fffffffffffffff), 0, 0, 0, 0, 1},
    {SIGN, ONYX_DTYPE_UINT8, 0xff, 0, 0, 0, 0, 1},
    {SIGN, ONYX_DTYPE_UINT64, U(0xffffffffffffffff), 0, 0, 0, 0, 1},
    {SIGN, ONYX_DTYPE_UINT64, 0, 0, 0, 0, 0, 0},
    {CLIP, ONYX_DTYPE_INT8, 0x80, 2, 0x05, 2, 0xfb, 0xfb}, /* lo 5 > hi -5: -5 */
    {CLIP, ONYX_DTYPE_INT8, 0x80, 0, 0, 0, 0, 0x80},       /* no bounds: INT8_MIN */
    {CLIP, ONYX_DTYPE_INT32, 0x7fffffff, 2, 0x80000000, 0, 0, 0x7fffffff},
    /* int64 bounds that double cannot tell apart */
    {CLIP, ONYX_DTYPE_INT64, U(0x7ffffffffffffffe), 2, U(0x7fffffffffffffff), 0, 0,
     U(0x7fffffffffffffff)},
    {CLIP, ONYX_DTYPE_INT64, U(0x0020000000000001), 0, 0, 2, U(0x0020000000000000),
     U(0x0020000000000000)},
    {CLIP, ONYX_DTYPE_INT64, U(0x8000000000000000), 0, 0, 2, U(0x8000000000000001),
     U(0x8000000000000000)},
    {CLIP, ONYX_DTYPE_UINT64, U(0xffffffffffffffff), 2, 0, 2, U(0xfffffffffffffffe),
     U(0xfffffffffffffffe)},
    {CLIP, ONYX_DTYPE_UINT64, U(0x8000000000000000), 2, U(0x8000000000000001), 0, 0,
     U(0x8000000000000001)},
    {CLIP, ONYX_DTYPE_UINT32, 7, 2, 9, 2, 3, 3},
#undef F32
#undef F64
#undef F16
#undef BF16
#undef CEIL
#undef FLOOR
#undef SIGN
#undef CLIP
#undef U
};

static void test_hand_cases(void **state) {
  (void)state;
  for (size_t i = 0; i < COUNT(hand_cases); i++) {
    onyx_dtype dt = hand_cases[i].dt;
    onyx__kop op = hand_cases[i].op;
    static const int kinds[] = {B_NONE, B_NAN, B_VAL};
    bound lo = {kinds[hand_cases[i].lo_kind], hand_cases[i].lo};
    bound hi = {kinds[hand_cases[i].hi_kind], hand_cases[i].hi};
    expect e = {hand_cases[i].y, false};
    /* The table also checks the reference the other tests use. */
    expect r = ref_element(op, dt, hand_cases[i].x, &lo, &hi);
    if (!(r.bits == e.bits && !r.any_nan)) {
      fail_msg("case %zu: the test's reference gives 0x%" PRIx64, i, r.bits);
    }
    for (size_t c = 0; c < COUNT(caps); c++) {
      onyx__ukernel k = onyx__kernel_get(op, dt, caps[c]);
      assert_non_null(k);
      unsigned char x[8], y[8];
      put_bits(dt, hand_cases[i].x, x);
      onyx__kparams p = params_for(dt, &lo, &hi);
      k(1, x, y, &p);
      uint64_t got = get_bits(dt, y);
      if (got != e.bits)
        report(op, dt, onyx__kernel_isa(op, dt, caps[c]), hand_cases[i].x, &lo, &hi, &e, got);
    }
  }
}

/* NaN inputs to Ceil and Floor give a NaN (for any payload). */
static void test_nan_in_rounding(void **state) {
  (void)state;
  static const onyx_dtype types[] = {ONYX_DTYPE_FLOAT, ONYX_DTYPE_DOUBLE, ONYX_DTYPE_FLOAT16,
                                     ONYX_DTYPE_BFLOAT16};
  for (size_t t = 0; t < COUNT(types); t++) {
    uint64_t nans[8];
    size_t n = nan_pool(types[t], nans);
    bound none = {B_NONE, 0};
    for (size_t c = 0; c < COUNT(caps); c++) {
      check_kernel(onyx__kernel_get(ONYX__KOP_CEIL, types[t], caps[c]), ONYX__KOP_CEIL, types[t],
                   caps[c], nans, n, &none, &none);
      check_kernel(onyx__kernel_get(ONYX__KOP_FLOOR, types[t], caps[c]), ONYX__KOP_FLOOR, types[t],
                   caps[c], nans, n, &none, &none);
    }
  }
}

/* ---- Special values, every op x type x cap x bound pair -------------------- */

static void visit_specials(onyx__ukernel k, onyx__kop op, onyx_dtype dt, onyx_isa isa,
                           const bound *lo, const bound *hi, void *ctx) {
  uint64_t pool[POOL_MAX];
  size_t n = value_pool(dt, pool);
  /* Guard against a pool that the representability filter emptied. */
  assert_true(n >= 6);
  check_kernel(k, op, dt, isa, pool, n, lo, hi);
  ++*(size_t *)ctx;
}

static void test_special_values(void **state) {
  (void)state;
  size_t visits = 0;
  for_each_kernel(visit_specials, &visits);
  /* 4 ops, 12 types (4 for Ceil and Floor), 5 caps, and many bound pairs. */
  assert_true(visits > (4 + 4 + 12) * COUNT(caps));
}

/* Every float16 and bfloat16 bit pattern, through every op. */
static void visit_all_halves(onyx__ukernel k, onyx__kop op, onyx_dtype dt, onyx_isa isa,
                             const bound *lo, const bound *hi, void *ctx) {
  (void)ctx;
  if (dt != ONYX_DTYPE_FLOAT16 && dt != ONYX_DTYPE_BFLOAT16) return;
  static uint64_t all[65536];
  for (uint32_t i = 0; i < 65536; i++) all[i] = i;
  check_kernel(k, op, dt, isa, all, 65536, lo, hi);
}

static void test_all_half_patterns(void **state) {
  (void)state;
  for_each_kernel(visit_all_halves, NULL);
}

/* Random bit patterns of float and double, and of every integer type. */
static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static void visit_random(onyx__ukernel k, onyx__kop op, onyx_dtype dt, onyx_isa isa,
                         const bound *lo, const bound *hi, void *ctx) {
  (void)ctx;
  enum { n = 4099 };
  static uint64_t xs[n];
  uint64_t s = (uint64_t)op * 1000 + (uint64_t)dt;
  size_t w = 8 * onyx_dtype_size(dt);
  for (size_t i = 0; i < n; i++) {
    uint64_t r = splitmix64(&s);
    /* Half the float patterns get a small exponent, where ceil and floor
     * have fractions to round. */
    if (dt == ONYX_DTYPE_FLOAT && (i & 1)) r = (r & 0x807fffffu) | ((uint64_t)(118 + r % 36) << 23);
    if (dt == ONYX_DTYPE_DOUBLE && (i & 1)) {
      r = (r & UINT64_C(0x800fffffffffffff)) | ((uint64_t)(1013 + r % 66) << 52);
    }
    xs[i] = w == 64 ? r : r & (((uint64_t)1 << w) - 1);
  }
  check_kernel(k, op, dt, isa, xs, n, lo, hi);
}

static void test_random_patterns(void **state) {
  (void)state;
  for_each_kernel(visit_random, NULL);
}

/* ---- Lengths, alignment, in place, no writes outside ------------------------- */

static void visit_lengths(onyx__ukernel k, onyx__kop op, onyx_dtype dt, onyx_isa isa,
                          const bound *lo, const bound *hi, void *ctx) {
  (void)ctx;
  /* Lengths cross every tile a SIMD kernel might use (up to 64 elements)
   * and its tails. The run starts at every byte offset from 0 to one
   * element: kernels take inputs at any alignment, and one element in is
   * misaligned for any vector wider than one element. */
  enum { guard = 3, maxn = 67 };
  const unsigned char poison = 0xa5;
  size_t sz = onyx_dtype_size(dt);
  uint64_t pool[POOL_MAX];
  size_t np = value_pool(dt, pool);
  unsigned char x[(maxn + 2 * guard) * 8], y[(maxn + 2 * guard) * 8], z[(maxn + 2 * guard) * 8];
  onyx__kparams p = params_for(dt, lo, hi);
  for (size_t n = 1; n <= maxn; n++) {
    for (size_t off = 0; off <= sz; off++) {
      size_t start = guard * sz + off;
      uint64_t xs[maxn];
      for (size_t i = 0; i < n; i++) xs[i] = pool[(i * 7 + n) % np];
      memset(x, poison, sizeof x);
      memset(y, poison, sizeof y);
      for (size_t i = 0; i < n; i++) put_bits(dt, xs[i], x + start + i * sz);
      k(n, x + start, y + start, &p);
      for (size_t b = 0; b < sizeof y; b++) {
        if ((b < start || b >= start + n * sz) && y[b] != poison) {
          fail_msg("%s %s (%s) n = %zu: wrote byte %zu outside the output", op_name(op),
                   onyx_dtype_name(dt), onyx_isa_name(isa), n, b);
        }
        if ((b < start || b >= start + n * sz) && x[b] != poison) fail_msg("wrote into x's guard");
      }
      for (size_t i = 0; i < n; i++) {
        expect e = ref_element(op, dt, xs[i], lo, hi);
        uint64_t got = get_bits(dt, y + start + i * sz);
        if (!matches(dt, &e, got)) report(op, dt, isa, xs[i], lo, hi, &e, got);
      }
      /* In place gives the same bits as out of place. */
      memcpy(z, x, sizeof z);
      k(n, z + start, z + start, &p);
      if (memcmp(z + start, y + start, n * sz) != 0) {
        fail_msg("%s %s (%s) n = %zu: in place differs", op_name(op), onyx_dtype_name(dt),
                 onyx_isa_name(isa), n);
      }
      for (size_t b = 0; b < sizeof z; b++) {
        if ((b < start || b >= start + n * sz) && z[b] != poison)
          fail_msg("in place wrote outside");
      }
    }
  }
  /* n = 0 touches nothing, even through NULL pointers. */
  k(0, NULL, NULL, &p);
}

static void test_lengths_and_in_place(void **state) {
  (void)state;
  for_each_kernel(visit_lengths, NULL);
}

/* ---- Clip parameters ------------------------------------------------------ */

static void test_clip_params(void **state) {
  (void)state;
  onyx__kparams p;
  float f = 2.5f, fnan = NAN;
  onyx__clip_params(ONYX_DTYPE_FLOAT, NULL, &f, &p);
  assert_true(isinf(p.f32.lo) && p.f32.lo < 0);
  assert_true(p.f32.hi == 2.5f);
  onyx__clip_params(ONYX_DTYPE_FLOAT, &fnan, &fnan, &p);
  assert_true(isinf(p.f32.lo) && p.f32.lo < 0 && isinf(p.f32.hi) && p.f32.hi > 0);
  double d = -0.0;
  onyx__clip_params(ONYX_DTYPE_DOUBLE, &d, NULL, &p);
  assert_true(p.f64.lo == 0 && signbit(p.f64.lo) && isinf(p.f64.hi) && p.f64.hi > 0);
  uint16_t h = 0xc100; /* float16 -2.5 */
  onyx__clip_params(ONYX_DTYPE_FLOAT16, &h, NULL, &p);
  assert_true(p.f32.lo == -2.5f && isinf(p.f32.hi));
  h = 0x7e00; /* float16 NaN */
  onyx__clip_params(ONYX_DTYPE_FLOAT16, NULL, &h, &p);
  assert_true(isinf(p.f32.hi) && p.f32.hi > 0);
  h = 0xc020; /* bfloat16 -2.5 */
  onyx__clip_params(ONYX_DTYPE_BFLOAT16, &h, &h, &p);
  assert_true(p.f32.lo == -2.5f && p.f32.hi == -2.5f);
  /* Integers widen, and absent bounds are the type's extremes. */
  static const struct {
    onyx_dtype dt;
    int64_t lo, hi;
  } s[] = {{ONYX_DTYPE_INT8, INT8_MIN, INT8_MAX},
           {ONYX_DTYPE_INT16, INT16_MIN, INT16_MAX},
           {ONYX_DTYPE_INT32, INT32_MIN, INT32_MAX},
           {ONYX_DTYPE_INT64, INT64_MIN, INT64_MAX}};
  for (size_t i = 0; i < COUNT(s); i++) {
    onyx__clip_params(s[i].dt, NULL, NULL, &p);
    assert_true(p.i64.lo == s[i].lo && p.i64.hi == s[i].hi);
    unsigned char m1[9];
    memset(m1, 0xff, sizeof m1); /* -1 in every width, read unaligned */
    onyx__clip_params(s[i].dt, m1 + 1, m1 + 1, &p);
    assert_true(p.i64.lo == -1 && p.i64.hi == -1);
  }
  static const struct {
    onyx_dtype dt;
    uint64_t hi;
  } u[] = {{ONYX_DTYPE_UINT8, UINT8_MAX},
           {ONYX_DTYPE_UINT16, UINT16_MAX},
           {ONYX_DTYPE_UINT32, UINT32_MAX},
           {ONYX_DTYPE_UINT64, UINT64_MAX}};
  for (size_t i = 0; i < COUNT(u); i++) {
    onyx__clip_params(u[i].dt, NULL, NULL, &p);
    assert_true(p.u64.lo == 0 && p.u64.hi == u[i].hi);
    unsigned char ff[9];
    memset(ff, 0xff, sizeof ff);
    onyx__clip_params(u[i].dt, ff + 1, NULL, &p);
    assert_true(p.u64.lo == u[i].hi);
  }
}

/* ---- The public API --------------------------------------------------------- */

static void test_api_errors(void **state) {
  (void)state;
  onyx_error err;
  float x[3] = {0.5f, -0.5f, 2.0f}, y[3];
  int32_t i32[2] = {1, -1};

  memset(&err, 0, sizeof err);
  assert_int_equal(onyx_ceil(ONYX_DTYPE_INT32, 2, i32, i32, &err), ONYX_TYPE);
  assert_int_equal(err.status, ONYX_TYPE);
  assert_string_equal(
      err.message, "Ceil: type int32 is not supported; allowed: float, float16, double, bfloat16");
  assert_int_equal(onyx_floor(ONYX_DTYPE_UINT8, 2, i32, i32, &err), ONYX_TYPE);
  assert_non_null(strstr(err.message, "Floor: type uint8"));
  assert_int_equal(onyx_sign((onyx_dtype)99, 1, x, y, &err), ONYX_TYPE);
  assert_non_null(strstr(err.message, "Sign"));
  assert_non_null(strstr(err.message, "99"));
  assert_int_equal(onyx_clip(ONYX_DTYPE_UNDEFINED, 1, x, y, NULL, NULL, &err), ONYX_TYPE);
  assert_non_null(strstr(err.message, "Clip"));
  /* A NULL error record is allowed. */
  assert_int_equal(onyx_ceil(ONYX_DTYPE_INT64, 1, i32, i32, NULL), ONYX_TYPE);

  assert_int_equal(onyx_ceil(ONYX_DTYPE_FLOAT, 3, NULL, y, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(err.status, ONYX_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "Ceil"));
  assert_int_equal(onyx_floor(ONYX_DTYPE_FLOAT, 3, x, NULL, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_sign(ONYX_DTYPE_FLOAT, 1, NULL, NULL, NULL), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_clip(ONYX_DTYPE_FLOAT, 1, x, NULL, NULL, NULL, &err),
                   ONYX_INVALID_ARGUMENT);

  /* n = 0 with NULL buffers is fine, and success leaves err alone. */
  err.status = ONYX_INTERNAL;
  strcpy(err.message, "untouched");
  assert_int_equal(onyx_ceil(ONYX_DTYPE_FLOAT, 0, NULL, NULL, &err), ONYX_OK);
  assert_int_equal(onyx_clip(ONYX_DTYPE_UINT64, 0, NULL, NULL, NULL, NULL, &err), ONYX_OK);
  assert_int_equal(onyx_ceil(ONYX_DTYPE_FLOAT, 3, x, y, &err), ONYX_OK);
  assert_int_equal(err.status, ONYX_INTERNAL);
  assert_string_equal(err.message, "untouched");
}

static void test_api_results(void **state) {
  (void)state;
  float x[5] = {0.5f, -0.5f, 2.0f, -0.0f, NAN}, y[5];
  assert_int_equal(onyx_ceil(ONYX_DTYPE_FLOAT, 5, x, y, NULL), ONYX_OK);
  assert_true(y[0] == 1.0f && y[1] == 0 && signbit(y[1]) && y[2] == 2.0f && signbit(y[3]) &&
              isnan(y[4]));
  assert_int_equal(onyx_floor(ONYX_DTYPE_FLOAT, 5, x, y, NULL), ONYX_OK);
  assert_true(y[0] == 0 && !signbit(y[0]) && y[1] == -1.0f && y[2] == 2.0f && isnan(y[4]));
  assert_int_equal(onyx_sign(ONYX_DTYPE_FLOAT, 5, x, y, NULL), ONYX_OK);
  assert_true(y[0] == 1.0f && y[1] == -1.0f && y[2] == 1.0f && y[3] == 0 && !signbit(y[3]) &&
              isnan(y[4]));
  float lo = -0.25f, hi = 1.0f;
  assert_int_equal(onyx_clip(ONYX_DTYPE_FLOAT, 5, x, y, &lo, &hi, NULL), ONYX_OK);
  assert_true(y[0] == 0.5f && y[1] == -0.25f && y[2] == 1.0f && y[3] == 0 && signbit(y[3]) &&
              isnan(y[4]));

  /* In place, through the API, with integer bounds at the extremes. */
  int64_t v[4] = {INT64_MIN, -7, 7, INT64_MAX};
  int64_t vlo = INT64_MIN + 1, vhi = INT64_MAX - 1;
  assert_int_equal(onyx_clip(ONYX_DTYPE_INT64, 4, v, v, &vlo, &vhi, NULL), ONYX_OK);
  assert_true(v[0] == INT64_MIN + 1 && v[1] == -7 && v[2] == 7 && v[3] == INT64_MAX - 1);
  assert_int_equal(onyx_sign(ONYX_DTYPE_INT64, 4, v, v, NULL), ONYX_OK);
  assert_true(v[0] == -1 && v[1] == -1 && v[2] == 1 && v[3] == 1);

  /* float16 in place, bounds as float16; one bound absent. */
  uint16_t h[4] = {0xc500 /* -5 */, 0x3800 /* 0.5 */, 0x7c00 /* inf */, 0x7e55 /* NaN */};
  uint16_t hlo = 0xbc00; /* -1 */
  assert_int_equal(onyx_clip(ONYX_DTYPE_FLOAT16, 4, h, h, &hlo, NULL, NULL), ONYX_OK);
  assert_true(h[0] == 0xbc00 && h[1] == 0x3800 && h[2] == 0x7c00 && h[3] == 0x7e55);

  /* Odd lengths through the API agree with the kernel table. */
  for (size_t n = 1; n <= 67; n += 2) {
    double dx[67], dy[67];
    for (size_t i = 0; i < n; i++) dx[i] = (double)i * 0.75 - 20.0;
    assert_int_equal(onyx_floor(ONYX_DTYPE_DOUBLE, n, dx, dy, NULL), ONYX_OK);
    for (size_t i = 0; i < n; i++) assert_true(dy[i] == ref_floor(dx[i]));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scalar_table_is_complete),
      cmocka_unit_test(test_hand_cases),
      cmocka_unit_test(test_nan_in_rounding),
      cmocka_unit_test(test_special_values),
      cmocka_unit_test(test_all_half_patterns),
      cmocka_unit_test(test_random_patterns),
      cmocka_unit_test(test_lengths_and_in_place),
      cmocka_unit_test(test_clip_params),
      cmocka_unit_test(test_api_errors),
      cmocka_unit_test(test_api_results),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
