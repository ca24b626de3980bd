/* SPDX-License-Identifier: MIT */
/*
 * The reference kernels the tests check every shipped kernel against, the
 * portable ones (src/kernels/scalar.c) and the SIMD ones alike: one simple
 * per-element function per (op, type class), written for clarity, not
 * speed, with the semantics the ONNX numpy reference gives, bit for bit.
 *
 * The semantics exist once per type class, as small per-element functions
 * on the class's computing type:
 *   native float (float, double)  on float and double themselves;
 *   half (float16, bfloat16)      on float32: convert exactly, apply the
 *                                 float32 function, round back;
 *   signed int (int8 .. int64)    on int64_t;
 *   unsigned int (uint8 .. uint64) on uint64_t.
 * Every kernel is generated from one list of types; ref_kernels is the
 * table (NULL where the op has no such type). Clip's parameters come from
 * the library's onyx__clip_params, the one place that reads bounds.
 */
#ifndef ONYX_TESTS_KERNELS_REF_H
#define ONYX_TESTS_KERNELS_REF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/half.h"
#include "kernels/kernels.h"

/* The computing types, named like the onyx__kparams members that hold
 * each class's Clip bounds, so that a macro can paste one name for both. */
typedef float onyx__c_f32;
typedef double onyx__c_f64;
typedef int64_t onyx__c_i64;
typedef uint64_t onyx__c_u64;

/*
 * The types, one line each. The float types take every op; the integer
 * types take Sign and Clip only.
 *   X(NAME, short name, storage type, class, computing type, Clip rule,
 *     no-bound low, no-bound high)
 * The short name spells the type in kernel names (onyx__s32_vsign__ref).
 * The class picks how an element is loaded into the computing type and
 * stored back (ONYX__LOAD_* and ONYX__RESULT_* below). A missing Clip bound
 * is the identity of its side, so "no bound" needs no separate code path.
 * The Clip rule names the element function: float16 has its own, because
 * numpy's float16 clip breaks ties between +0 and -0 the other way.
 */
#define REF_FLOAT_TYPES(X)                                                      \
  X(FLOAT, f32, float, NATIVE, f32, f32, -INFINITY, INFINITY)                   \
  X(DOUBLE, f64, double, NATIVE, f64, f64, -(double)INFINITY, (double)INFINITY) \
  X(FLOAT16, f16, onyx__f16, F16, f32, f32_ties_x, -INFINITY, INFINITY)         \
  X(BFLOAT16, bf16, onyx__bf16, BF16, f32, f32, -INFINITY, INFINITY)

#define REF_INT_TYPES(X)                                      \
  X(INT8, s8, int8_t, INT, i64, i64, INT8_MIN, INT8_MAX)      \
  X(INT16, s16, int16_t, INT, i64, i64, INT16_MIN, INT16_MAX) \
  X(INT32, s32, int32_t, INT, i64, i64, INT32_MIN, INT32_MAX) \
  X(INT64, s64, int64_t, INT, i64, i64, INT64_MIN, INT64_MAX) \
  X(UINT8, u8, uint8_t, INT, u64, u64, 0, UINT8_MAX)          \
  X(UINT16, u16, uint16_t, INT, u64, u64, 0, UINT16_MAX)      \
  X(UINT32, u32, uint32_t, INT, u64, u64, 0, UINT32_MAX)      \
  X(UINT64, u64, uint64_t, INT, u64, u64, 0, UINT64_MAX)

#define REF_ALL_TYPES(X) REF_FLOAT_TYPES(X) REF_INT_TYPES(X)

/*
 * Loading and storing, per class. Native floats compute in their own type.
 * Halves widen to float32 exactly and round back to nearest even. When the
 * float32 result is x itself, bit for bit, the half x is returned as it
 * was: that keeps a signalling NaN signalling through Sign and Clip, as
 * numpy's float16 loops do, where narrowing would set its quiet bit. Integers widen to 64 bits, in
 * which every value of the narrower types is exact, and narrow back: results are always in range,
 * because Sign gives -1, 0 or 1 and Clip gives x or one of the bounds.
 */
#define ONYX__LOAD_NATIVE(c, v)          (v)
#define ONYX__RESULT_NATIVE(T, x, xc, r) (r)
#define ONYX__ISNAN_NATIVE(v)            isnan(v)
#define ONYX__LOAD_F16(c, v)             onyx__f16_to_f32(v)
#define ONYX__RESULT_F16(T, x, xc, r)    (onyx__same_f32(r, xc) ? (x) : onyx__f32_to_f16(r))
#define ONYX__ISNAN_F16(v)               isnan(v)
#define ONYX__LOAD_BF16(c, v)            onyx__bf16_to_f32(v)
#define ONYX__RESULT_BF16(T, x, xc, r)   (onyx__same_f32(r, xc) ? (x) : onyx__f32_to_bf16(r))
#define ONYX__ISNAN_BF16(v)              isnan(v)
#define ONYX__LOAD_INT(c, v)             ((onyx__c_##c)(v))
#define ONYX__RESULT_INT(T, x, xc, r)    ((T)(r))
#define ONYX__ISNAN_INT(v)               ((void)(v), 0)

/* ---- Per-element semantics, once per class ---------------------------- */

/*
 * Native floats (and, through float32, the halves). ceil and floor return
 * integral values, +-0 and +-inf unchanged and keep a NaN a NaN. Sign maps
 * both zeros to +0 and returns a NaN itself, bits included. Clip is numpy's
 * max-then-min in which a NaN operand wins and a tie returns the bound:
 * clip(-0, lo = +0) is +0, clip(+0, hi = -0) is -0, lo > hi gives hi.
 */
#define ONYX__NATIVE_FLOAT_ELEMENTS(T, c, CEIL, FLOOR, QUIET)                     \
  static inline T onyx__ceil_##c(T x) { return isnan(x) ? QUIET(x) : CEIL(x); }   \
  static inline T onyx__floor_##c(T x) { return isnan(x) ? QUIET(x) : FLOOR(x); } \
  static inline T onyx__sign_##c(T x) {                                           \
    if (x > 0) return (T)1;                                                       \
    if (x < 0) return (T)-1;                                                      \
    if (x == 0) return (T)0;                                                      \
    return x; /* NaN */                                                           \
  }                                                                               \
  static inline T onyx__clip_##c(T x, T lo, T hi) {                               \
    T t = (x > lo || isnan(x)) ? x : lo;                                          \
    return (t < hi || isnan(t)) ? t : hi;                                         \
  }

/*
 * numpy's ceil and floor give a signalling NaN back quiet (the rounding
 * instructions set the quiet bit), while an inlined ceilf may return it
 * unchanged; setting the bit by hand makes the result independent of how
 * the compiler expands ceilf.
 */
static inline float onyx__quiet_f32(float x) {
  return onyx__f32_from_bits(onyx__f32_bits(x) | 0x00400000u);
}
static inline double onyx__quiet_f64(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  u |= UINT64_C(0x0008000000000000);
  memcpy(&x, &u, sizeof x);
  return x;
}
static inline int onyx__same_f32(float a, float b) {
  return onyx__f32_bits(a) == onyx__f32_bits(b);
}

ONYX__NATIVE_FLOAT_ELEMENTS(float, f32, ceilf, floorf, onyx__quiet_f32)
ONYX__NATIVE_FLOAT_ELEMENTS(double, f64, ceil, floor, onyx__quiet_f64)

/*
 * numpy 1.24's float16 clip compares with >= and <=, so a tie between x
 * and a bound (+0 against -0) keeps x; its float32 and float64 clips
 * return the bound. min > max still gives max.
 */
static inline float onyx__clip_f32_ties_x(float x, float lo, float hi) {
  float t = (x >= lo || isnan(x)) ? x : lo;
  return (t <= hi || isnan(t)) ? t : hi;
}

/* Signed integers. Sign compares, never negates, so the minimum gives -1. */
static inline int64_t onyx__sign_i64(int64_t x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }
static inline int64_t onyx__clip_i64(int64_t x, int64_t lo, int64_t hi) {
  int64_t t = x > lo ? x : lo;
  return t < hi ? t : hi;
}

/* Unsigned integers. */
static inline uint64_t onyx__sign_u64(uint64_t x) { return x != 0; }
static inline uint64_t onyx__clip_u64(uint64_t x, uint64_t lo, uint64_t hi) {
  uint64_t t = x > lo ? x : lo;
  return t < hi ? t : hi;
}

/* ---- Kernels, generated from the type lists ----------------------------- */

/*
 * A kernel reads element i before it writes element i and touches no other
 * element in between, so x == y (in place) works; x and y are deliberately
 * not restrict-qualified. x and y may have any alignment (an initializer's
 * raw_data is used where it lies in the caller's bytes), so elements are
 * loaded and stored with memcpy, which compilers turn into one move.
 */
#define ONYX__UNARY_KERNEL(tn, T, K, c, op)                               \
  static void onyx__##tn##_v##op##__ref(size_t n, const void *x, void *y, \
                                        const onyx__kparams *params) {    \
    const unsigned char *src = x;                                         \
    unsigned char *dst = y;                                               \
    (void)params;                                                         \
    for (size_t i = 0; i < n; i++) {                                      \
      T v;                                                                \
      memcpy(&v, src + i * sizeof v, sizeof v);                           \
      const onyx__c_##c xc = ONYX__LOAD_##K(c, v);                        \
      const T r = ONYX__RESULT_##K(T, v, xc, onyx__##op##_##c(xc));       \
      memcpy(dst + i * sizeof r, &r, sizeof r);                           \
    }                                                                     \
  }

#define ONYX__CLIP_KERNEL(tn, T, K, c, rule)                                 \
  static void onyx__##tn##_vclip__ref(size_t n, const void *x, void *y,      \
                                      const onyx__kparams *params) {         \
    const unsigned char *src = x;                                            \
    unsigned char *dst = y;                                                  \
    const onyx__c_##c lo = params->c.lo, hi = params->c.hi;                  \
    for (size_t i = 0; i < n; i++) {                                         \
      T v;                                                                   \
      memcpy(&v, src + i * sizeof v, sizeof v);                              \
      const onyx__c_##c xc = ONYX__LOAD_##K(c, v);                           \
      const T r = ONYX__RESULT_##K(T, v, xc, onyx__clip_##rule(xc, lo, hi)); \
      memcpy(dst + i * sizeof r, &r, sizeof r);                              \
    }                                                                        \
  }

#define ONYX__ROUNDING_KERNELS(NAME, tn, T, K, c, rule, nlo, nhi) \
  ONYX__UNARY_KERNEL(tn, T, K, c, ceil)                           \
  ONYX__UNARY_KERNEL(tn, T, K, c, floor)
#define ONYX__COMMON_KERNELS(NAME, tn, T, K, c, rule, nlo, nhi) \
  ONYX__UNARY_KERNEL(tn, T, K, c, sign)                         \
  ONYX__CLIP_KERNEL(tn, T, K, c, rule)

REF_FLOAT_TYPES(ONYX__ROUNDING_KERNELS)
REF_ALL_TYPES(ONYX__COMMON_KERNELS)

#define ONYX__ROUNDING_ENTRIES(NAME, tn, T, K, c, rule, nlo, nhi) \
  .k[ONYX__KOP_CEIL][ONYX__DI_##NAME] = onyx__##tn##_vceil__ref,  \
  .k[ONYX__KOP_FLOOR][ONYX__DI_##NAME] = onyx__##tn##_vfloor__ref,
#define ONYX__COMMON_ENTRIES(NAME, tn, T, K, c, rule, nlo, nhi)  \
  .k[ONYX__KOP_SIGN][ONYX__DI_##NAME] = onyx__##tn##_vsign__ref, \
  .k[ONYX__KOP_CLIP][ONYX__DI_##NAME] = onyx__##tn##_vclip__ref,

/* Entries the lists do not name stay NULL: Ceil and Floor on integers. */
static const onyx__kernel_table ref_kernels = {REF_FLOAT_TYPES(ONYX__ROUNDING_ENTRIES)
                                                   REF_ALL_TYPES(ONYX__COMMON_ENTRIES)};

#endif
