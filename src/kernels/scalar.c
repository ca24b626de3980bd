/* SPDX-License-Identifier: MIT */
/*
 * The portable kernels: one for every (op, type) the ops allow, in plain
 * C, what platforms without onyx SIMD run and what the SIMD kernels hand
 * their tails to. They follow the ONNX numpy reference bit for bit (numpy
 * 1.24 for Clip); the simple per-element reference they are tested
 * against lives in the tests (tests/kernels_ref.h).
 *
 * The integer kernels compute in the element's own type, with no branch
 * on an element (selections are conditional moves), and read and write
 * element-aligned buffers as arrays, four elements a step. The float
 * kernels still compute per class:
 *   native float (float, double)  on float and double themselves;
 *   half (float16, bfloat16)      on float32: convert exactly, apply the
 *                                 float32 function, round back.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "config/config.h"
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
 * The short name spells the type in kernel names (onyx__s32_vsign__scalar).
 * The class picks how an element is loaded into the computing type and
 * stored back (ONYX__LOAD_* and ONYX__RESULT_* below). A missing Clip bound
 * is the identity of its side, so "no bound" needs no separate code path.
 * The Clip rule names the element function: float16 has its own, because
 * numpy's float16 clip breaks ties between +0 and -0 the other way.
 */
#define ONYX__SCALAR_FLOAT_TYPES(X)                                             \
  X(FLOAT, f32, float, NATIVE, f32, f32, -INFINITY, INFINITY)                   \
  X(DOUBLE, f64, double, NATIVE, f64, f64, -(double)INFINITY, (double)INFINITY) \
  X(FLOAT16, f16, onyx__f16, F16, f32, f32_ties_x, -INFINITY, INFINITY)         \
  X(BFLOAT16, bf16, onyx__bf16, BF16, f32, f32, -INFINITY, INFINITY)

/* The integer types: X(NAME, short name, storage type, computing type of
 * the bounds, minimum, maximum). */
#define ONYX__SCALAR_INT_TYPES(X)                   \
  X(INT8, s8, int8_t, i64, INT8_MIN, INT8_MAX)      \
  X(INT16, s16, int16_t, i64, INT16_MIN, INT16_MAX) \
  X(INT32, s32, int32_t, i64, INT32_MIN, INT32_MAX) \
  X(INT64, s64, int64_t, i64, INT64_MIN, INT64_MAX) \
  X(UINT8, u8, uint8_t, u64, 0, UINT8_MAX)          \
  X(UINT16, u16, uint16_t, u64, 0, UINT16_MAX)      \
  X(UINT32, u32, uint32_t, u64, 0, UINT32_MAX)      \
  X(UINT64, u64, uint64_t, u64, 0, UINT64_MAX)

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

/* ---- Kernels, generated from the type lists ----------------------------- */

/*
 * A kernel reads element i before it writes element i and touches no other
 * element in between, so x == y (in place) works; x and y are deliberately
 * not restrict-qualified. x and y may have any alignment (an initializer's
 * raw_data is used where it lies in the caller's bytes), so elements are
 * loaded and stored with memcpy, which compilers turn into one move.
 */
#define ONYX__UNARY_KERNEL(tn, T, K, c, op)                                  \
  static void onyx__##tn##_v##op##__scalar(size_t n, const void *x, void *y, \
                                           const onyx__kparams *params) {    \
    const unsigned char *src = x;                                            \
    unsigned char *dst = y;                                                  \
    (void)params;                                                            \
    for (size_t i = 0; i < n; i++) {                                         \
      T v;                                                                   \
      memcpy(&v, src + i * sizeof v, sizeof v);                              \
      const onyx__c_##c xc = ONYX__LOAD_##K(c, v);                           \
      const T r = ONYX__RESULT_##K(T, v, xc, onyx__##op##_##c(xc));          \
      memcpy(dst + i * sizeof r, &r, sizeof r);                              \
    }                                                                        \
  }

#define ONYX__CLIP_KERNEL(tn, T, K, c, rule)                                 \
  static void onyx__##tn##_vclip__scalar(size_t n, const void *x, void *y,   \
                                         const onyx__kparams *params) {      \
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

ONYX__SCALAR_FLOAT_TYPES(ONYX__ROUNDING_KERNELS)
ONYX__SCALAR_FLOAT_TYPES(ONYX__COMMON_KERNELS)

/* ---- The loop ------------------------------------------------------------- */

/*
 * Runs ELEM(v, &prep) over n elements of the bit type U. A kernel reads
 * element i before it writes element i and touches no other element in
 * between, so x == y (in place) works; x and y are deliberately not
 * restrict-qualified. Each step of four reads its four elements before
 * writing any. x and y may have any alignment (an initializer's raw_data
 * is used where it lies in the caller's bytes): unaligned buffers go
 * element by element through memcpy, which compilers turn into a move.
 */
#define ONYX__LOOP(U, n, x, y, ELEM, prep)                           \
  do {                                                               \
    const unsigned char *src_ = (const unsigned char *)(x);          \
    unsigned char *dst_ = (unsigned char *)(y);                      \
    size_t i_ = 0;                                                   \
    if (((uintptr_t)src_ | (uintptr_t)dst_) % sizeof(U) == 0) {      \
      const U *xs_ = (const U *)(const void *)src_;                  \
      U *ys_ = (U *)(void *)dst_;                                    \
      for (; i_ + 4 <= (n); i_ += 4) {                               \
        const U a0_ = xs_[i_], a1_ = xs_[i_ + 1], a2_ = xs_[i_ + 2]; \
        const U a3_ = xs_[i_ + 3];                                   \
        ys_[i_] = ELEM(a0_, prep);                                   \
        ys_[i_ + 1] = ELEM(a1_, prep);                               \
        ys_[i_ + 2] = ELEM(a2_, prep);                               \
        ys_[i_ + 3] = ELEM(a3_, prep);                               \
      }                                                              \
      for (; i_ < (n); i_++) ys_[i_] = ELEM(xs_[i_], prep);          \
    } else {                                                         \
      for (; i_ < (n); i_++) {                                       \
        U v_;                                                        \
        memcpy(&v_, src_ + i_ * sizeof v_, sizeof v_);               \
        v_ = ELEM(v_, prep);                                         \
        memcpy(dst_ + i_ * sizeof v_, &v_, sizeof v_);               \
      }                                                              \
    }                                                                \
  } while (0)

/* A mask of all ones where c (0 or 1) is 1. */
#define ONYX__MASK(U, c) ((U)0 - (U)(c))

/* ---- Integers ------------------------------------------------------------- */

/* Clip's bounds in the element type. The widened bounds may lie outside
 * the type (hand-made parameters): max(x, lo) then min(., hi) in 64 bits
 * and narrowing is then clip to the clamped bounds, or a constant where
 * the bounds leave no element alone. */
typedef struct onyx__iprep_i64 {
  int64_t lo, hi;
} onyx__iprep_i64;
typedef struct onyx__iprep_u64 {
  uint64_t lo, hi;
} onyx__iprep_u64;

#define ONYX__SIGN_i64(v) (((v) > 0) - ((v) < 0))
#define ONYX__SIGN_u64(v) ((v) != 0)

#define ONYX__INT_KERNELS(NAME, tn, T, c, tmin, tmax)                       \
  static inline T onyx__sign_##tn(T v, const void *q) {                     \
    (void)q;                                                                \
    return (T)ONYX__SIGN_##c(v);                                            \
  }                                                                         \
  static inline T onyx__clip_##tn(T v, const onyx__iprep_##c *q) {          \
    const T lo = (T)q->lo, hi = (T)q->hi;                                   \
    const T t = v < lo ? lo : v;                                            \
    return t > hi ? hi : t;                                                 \
  }                                                                         \
  static void onyx__##tn##_vsign__scalar(size_t n, const void *x, void *y,  \
                                         const onyx__kparams *params) {     \
    (void)params;                                                           \
    ONYX__LOOP(T, n, x, y, onyx__sign_##tn, NULL);                          \
  }                                                                         \
  static void onyx__##tn##_vclip__scalar(size_t n, const void *x, void *y,  \
                                         const onyx__kparams *params) {     \
    const onyx__c_##c lo = params->c.lo, hi = params->c.hi;                 \
    const onyx__c_##c tlo = (onyx__c_##c)(tmin), thi = (onyx__c_##c)(tmax); \
    onyx__iprep_##c q;                                                      \
    if (hi < tlo || lo > thi) {                                             \
      q.lo = q.hi = lo < hi ? lo : hi;                                      \
    } else {                                                                \
      q.lo = lo < tlo ? tlo : lo;                                           \
      q.hi = hi > thi ? thi : hi;                                           \
    }                                                                       \
    ONYX__LOOP(T, n, x, y, onyx__clip_##tn, &q);                            \
  }

ONYX__SCALAR_INT_TYPES(ONYX__INT_KERNELS)

/* The build configuration selects here (ONYX__KSEL, src/config/config.h):
 * a kernel a reduced build left out is NULL, and not linked. */
#define ONYX__ROUNDING_ENTRIES(NAME, tn, T, K, c, rule, nlo, nhi)                           \
  .k[ONYX__KOP_CEIL][ONYX__DI_##NAME] = ONYX__KSEL(CEIL, NAME, onyx__##tn##_vceil__scalar), \
  .k[ONYX__KOP_FLOOR][ONYX__DI_##NAME] = ONYX__KSEL(FLOOR, NAME, onyx__##tn##_vfloor__scalar),
#define ONYX__COMMON_ENTRIES(NAME, tn, T, K, c, rule, nlo, nhi)                             \
  .k[ONYX__KOP_SIGN][ONYX__DI_##NAME] = ONYX__KSEL(SIGN, NAME, onyx__##tn##_vsign__scalar), \
  .k[ONYX__KOP_CLIP][ONYX__DI_##NAME] = ONYX__KSEL(CLIP, NAME, onyx__##tn##_vclip__scalar),

#define ONYX__INT_ENTRIES(NAME, tn, T, c, tmin, tmax)               \
  .k[ONYX__KOP_SIGN][ONYX__DI_##NAME] = onyx__##tn##_vsign__scalar, \
  .k[ONYX__KOP_CLIP][ONYX__DI_##NAME] = onyx__##tn##_vclip__scalar,

/* Entries the lists do not name stay NULL: Ceil and Floor on integers. */
const onyx__kernel_table onyx__kernels_scalar = {ONYX__SCALAR_FLOAT_TYPES(ONYX__ROUNDING_ENTRIES)
                                                     ONYX__SCALAR_FLOAT_TYPES(ONYX__COMMON_ENTRIES)
                                                         ONYX__SCALAR_INT_TYPES(ONYX__INT_ENTRIES)};

/* ---- Clip parameters ---------------------------------------------------- */

/*
 * Reads one bound of a type: none when p is NULL, and also when the bound
 * is NaN, because numpy 1.24's np.clip replaces a scalar NaN bound by -inf
 * or +inf (np.clip([5, -5], nan, 2) is [2, -5]). Integers are read with
 * memcpy, as the caller's pointer need not be aligned, and widened.
 */
#define ONYX__BOUND_READER(NAME, tn, T, K, c, rule, nlo, nhi)            \
  static onyx__c_##c onyx__bound_##tn(const void *p, onyx__c_##c none) { \
    T v;                                                                 \
    if (p == NULL) return none;                                          \
    memcpy(&v, p, sizeof v);                                             \
    onyx__c_##c w = ONYX__LOAD_##K(c, v);                                \
    return ONYX__ISNAN_##K(w) ? none : w;                                \
  }
ONYX__SCALAR_FLOAT_TYPES(ONYX__BOUND_READER)
#define ONYX__INT_BOUND_READER(NAME, tn, T, c, tmin, tmax)               \
  static onyx__c_##c onyx__bound_##tn(const void *p, onyx__c_##c none) { \
    T v;                                                                 \
    if (p == NULL) return none;                                          \
    memcpy(&v, p, sizeof v);                                             \
    return (onyx__c_##c)v;                                               \
  }
ONYX__SCALAR_INT_TYPES(ONYX__INT_BOUND_READER)

void onyx__clip_params(onyx_dtype dtype, const void *lo, const void *hi, onyx__kparams *params) {
  memset(params, 0, sizeof *params);
  switch (dtype) {
#define ONYX__CLIP_CASE(NAME, tn, T, K, c, rule, nlo, nhi) \
  case ONYX_DTYPE_##NAME:                                  \
    params->c.lo = onyx__bound_##tn(lo, nlo);              \
    params->c.hi = onyx__bound_##tn(hi, nhi);              \
    return;
    ONYX__SCALAR_FLOAT_TYPES(ONYX__CLIP_CASE)
#undef ONYX__CLIP_CASE
#define ONYX__INT_CLIP_CASE(NAME, tn, T, c, tmin, tmax) \
  case ONYX_DTYPE_##NAME:                               \
    params->c.lo = onyx__bound_##tn(lo, tmin);          \
    params->c.hi = onyx__bound_##tn(hi, tmax);          \
    return;
    ONYX__SCALAR_INT_TYPES(ONYX__INT_CLIP_CASE)
#undef ONYX__INT_CLIP_CASE
    default:
      /* An unknown type has no kernel, so its parameters are never used. */
      return;
  }
}
