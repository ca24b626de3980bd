/* SPDX-License-Identifier: MIT */
/*
 * NEON kernels, for AArch64 (Advanced SIMD, always present) and 32-bit
 * ARMv7 with NEON (optional: dispatch uses this table only where
 * AT_HWCAP says NEON; see src/cpu/cpu.c). This file alone is compiled with
 * -mfpu=neon on 32-bit ARM. 128-bit vectors; the loops, tails and table
 * come from simd_generate.h, with the vocabulary simd_common.h lists
 * defined here. Tails are one more vector over the last N elements (every
 * op is idempotent, so recomputing elements gives the same bits, in place
 * too), or the scalar kernel when n < N. There are no streaming stores
 * here, so params->stream is ignored.
 *
 * Exactness. AArch64 float arithmetic follows FPCR, which Linux leaves at
 * IEEE behaviour (no flush to zero, NaNs propagated), so float32 and
 * float64 use the float instructions: FRINTP/FRINTM return a signalling
 * NaN quiet with its payload, as scalar.c does. ARMv7 NEON float
 * arithmetic always flushes subnormals to zero and returns the default
 * NaN, so on 32-bit ARM no float instruction is used at all: float32,
 * float16 and bfloat16 are rounded, compared and clipped as integers on
 * their bit patterns (the "bits" classes below), and float64 and the
 * 64-bit integers, for which ARMv7 NEON has no compares, keep the scalar
 * kernels. float16 and bfloat16 Sign and Clip use the bits classes on
 * AArch64 as well: they need no conversion there either. float16 Ceil and
 * Floor in half precision (FEAT_FP16) are kernels_neonfp16.c's.
 *
 * Semantics are those of src/kernels/scalar.c, bit for bit;
 * tests/unit/test_simd.c checks every entry against it.
 */
#include <arm_neon.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/half.h"
#include "kernels/kernels.h"
#include "kernels/simd_common.h"

#define ONYX__SIMD_ISA    neon
#define ONYX__SIMD_MASKED 0

/* ---- Rounding on the bits ------------------------------------------------ */

/*
 * Ceil and Floor of an IEEE pattern of W bits with M mantissa bits and
 * exponent bias B, in integer lanes (class c, unsigned vector VU, signed
 * VS, intrinsic suffixes U and S). On the magnitude a, with e = exponent - B:
 *   - e >= M (integral, or infinity): a itself; the mask below is 0 there;
 *   - 0 <= e < M: the fraction bits are mask = MANT >> e; rounding away
 *     from zero is (a + mask) & ~mask, whose carry correctly moves into the
 *     exponent, towards zero a & ~mask;
 *   - a < 1: 1 when rounding away from zero and a != 0, else 0;
 * then the sign goes back on (so ceil(-0.5) is -0). Away from zero is Ceil
 * on positive values, Floor on negative ones. A NaN comes back with its
 * quiet bit set, as scalar.c's quiet() and narrowing give.
 */
#define ONYX__NEON_BITS_ROUND(c, T, VU, VS, U, S, W, M, B)                                   \
  typedef VU onyx__v_##c;                                                                    \
  enum { ONYX__N_##c = 128 / (W) };                                                          \
  ONYX__SIMD_NO_PARAMS(c)                                                                    \
  static inline VU onyx__ld_##c(const T *p) { return vld1q_##U((const void *)p); }           \
  static inline void onyx__st_##c(T *p, VU v) { vst1q_##U((void *)p, v); }                   \
  static inline VU onyx__round_##c(VU v, bool ceil_op) {                                     \
    const VU sign = vandq_##U(v, vdupq_n_##U(1u << ((W)-1)));                                \
    const VU a = veorq_##U(v, sign);                                                         \
    const VU one = vdupq_n_##U((B) << (M));                                                  \
    const VS e = vsubq_##S(vreinterpretq_##S##_##U(vshrq_n_##U(a, M)), vdupq_n_##S(B));      \
    const VU mask = vshlq_##U(vdupq_n_##U((1u << (M)) - 1u), vnegq_##S(e));                  \
    const VU away = ceil_op ? vceqq_##U(sign, vdupq_n_##U(0)) : vtstq_##U(sign, sign);       \
    const VU mid = vbslq_##U(away, vbicq_##U(vaddq_##U(a, mask), mask), vbicq_##U(a, mask)); \
    const VU small = vandq_##U(vandq_##U(away, vtstq_##U(a, a)), one);                       \
    const VU mag = vbslq_##U(vcltq_##U(a, one), small, mid);                                 \
    const VU inf = vdupq_n_##U(((1u << ((W)-1 - (M))) - 1u) << (M));                         \
    return vbslq_##U(vcgtq_##U(a, inf), vorrq_##U(v, vdupq_n_##U(1u << ((M)-1))),            \
                     vorrq_##U(sign, mag));                                                  \
  }                                                                                          \
  static inline VU onyx__ceil_##c(VU v, const onyx__cx_##c *cx) {                            \
    (void)cx;                                                                                \
    return onyx__round_##c(v, true);                                                         \
  }                                                                                          \
  static inline VU onyx__floor_##c(VU v, const onyx__cx_##c *cx) {                           \
    (void)cx;                                                                                \
    return onyx__round_##c(v, false);                                                        \
  }

#if !defined(__aarch64__)
ONYX__NEON_BITS_ROUND(hr16, uint16_t, uint16x8_t, int16x8_t, u16, s16, 16, 10, 15)
ONYX__NEON_BITS_ROUND(br16, uint16_t, uint16x8_t, int16x8_t, u16, s16, 16, 7, 127)
ONYX__NEON_BITS_ROUND(fr32, float, uint32x4_t, int32x4_t, u32, s32, 32, 23, 127)
#endif

/* ---- Sign and Clip on the bits ------------------------------------------- */

/*
 * As the x86 files do for the halves: a NaN is a magnitude above the
 * infinity's and comes back unchanged; Sign gives +-1 by bits; Clip
 * compares keys, the magnitude negated where the sign bit is set, which
 * signed compares order as float compares do (+0 and -0 equal). Each
 * element falls in one of three cases, against thresholds worked out once
 * per call:
 *   key < below   the result is lo
 *   key > above   the result is hi (this wins over below)
 *   otherwise     the result is x (and always for a NaN x).
 * float16's clip keeps x on a tie (numpy 1.24 compares with >= and <=):
 * below = key(lo), above = key(hi). float32 and bfloat16 return the bound
 * on a tie: below = key(lo) + 1, above = key(hi) - 1. Crossed bounds (lo >
 * hi; lo >= hi where ties go to the bound) give hi for every number, so
 * above becomes the smallest key.
 */
typedef struct clip_keys {
  uint32_t lo, hi;      /* the bounds' bits */
  int32_t below, above; /* the key thresholds */
} clip_keys;

/* The Clip keys of the halves, from simd_common.h's thresholds: float16
 * (ties keep x) and bfloat16; false when a bound is not a half value or is
 * NaN (never from onyx__clip_params: the scalar kernel then decides). */
static bool keys_half(bool bf16, const onyx__kparams *p, clip_keys *k) {
  onyx__simd_half_clip h;
  if (!onyx__simd_half_clip_set(bf16, p, &h)) return false;
  k->lo = h.lo;
  k->hi = h.hi;
  k->below = h.below;
  k->above = h.above;
  return true;
}
static bool keys_h16(const onyx__kparams *p, clip_keys *k) { return keys_half(false, p, k); }
static bool keys_b16(const onyx__kparams *p, clip_keys *k) { return keys_half(true, p, k); }

#if !defined(__aarch64__)
/* The Clip keys of float32 on the bits (32-bit ARM), whose ties go to the
 * bound; false when a bound is NaN. */
static int32_t key_of32(uint32_t bits) {
  const int32_t mag = (int32_t)(bits & 0x7fffffffu);
  return (bits & 0x80000000u) ? -mag : mag;
}
static bool keys_f32(const onyx__kparams *p, clip_keys *k) {
  const uint32_t lo = onyx__f32_bits(p->f32.lo), hi = onyx__f32_bits(p->f32.hi);
  if ((lo & 0x7fffffffu) > 0x7f800000u || (hi & 0x7fffffffu) > 0x7f800000u) return false;
  const int32_t klo = key_of32(lo), khi = key_of32(hi);
  k->lo = lo;
  k->hi = hi;
  k->below = klo + 1;
  k->above = klo >= khi ? INT32_MIN : khi - 1;
  return true;
}
#endif

/* Sign and Clip of class c on W-bit patterns; KEYS fills the thresholds,
 * INF and ONE are the infinity's and 1's patterns. */
#define ONYX__NEON_BITS_SIGNCLIP(c, T, VU, VS, U, S, W, KEYS, INF, ONE)            \
  typedef VU onyx__v_##c;                                                          \
  enum { ONYX__N_##c = 128 / (W) };                                                \
  typedef struct {                                                                 \
    VU lo, hi;                                                                     \
    VS below, above;                                                               \
  } onyx__cx_##c;                                                                  \
  static inline bool onyx__cx_set_##c(onyx__cx_##c *cx, const onyx__kparams *p) {  \
    clip_keys k = {0, 0, 0, 0};                                                    \
    const bool ok = p == NULL || KEYS(p, &k);                                      \
    cx->lo = vdupq_n_##U(k.lo);                                                    \
    cx->hi = vdupq_n_##U(k.hi);                                                    \
    cx->below = vdupq_n_##S(k.below);                                              \
    cx->above = vdupq_n_##S(k.above);                                              \
    return ok;                                                                     \
  }                                                                                \
  static inline VU onyx__ld_##c(const T *p) { return vld1q_##U((const void *)p); } \
  static inline void onyx__st_##c(T *p, VU v) { vst1q_##U((void *)p, v); }         \
  static inline VU onyx__sign_##c(VU v, const onyx__cx_##c *cx) {                  \
    (void)cx;                                                                      \
    const VU signbit = vdupq_n_##U(1u << ((W)-1));                                 \
    const VU a = vbicq_##U(v, signbit);                                            \
    const VU one = vorrq_##U(vandq_##U(v, signbit), vdupq_n_##U(ONE));             \
    const VU r = vandq_##U(one, vtstq_##U(a, a));                                  \
    return vbslq_##U(vcgtq_##U(a, vdupq_n_##U(INF)), v, r);                        \
  }                                                                                \
  static inline VU onyx__clip_##c(VU v, const onyx__cx_##c *cx) {                  \
    const VU a = vbicq_##U(v, vdupq_n_##U(1u << ((W)-1)));                         \
    const VS neg = vshrq_n_##S(vreinterpretq_##S##_##U(v), (W)-1);                 \
    const VS key = vsubq_##S(veorq_##S(vreinterpretq_##S##_##U(a), neg), neg);     \
    VU y = vbslq_##U(vcltq_##S(key, cx->below), cx->lo, v);                        \
    y = vbslq_##U(vcgtq_##S(key, cx->above), cx->hi, y);                           \
    return vbslq_##U(vcgtq_##U(a, vdupq_n_##U(INF)), v, y);                        \
  }

ONYX__NEON_BITS_SIGNCLIP(hk16, uint16_t, uint16x8_t, int16x8_t, u16, s16, 16, keys_h16, 0x7c00,
                         0x3c00)
ONYX__NEON_BITS_SIGNCLIP(bk16, uint16_t, uint16x8_t, int16x8_t, u16, s16, 16, keys_b16, 0x7f80,
                         0x3f80)
#if !defined(__aarch64__)
ONYX__NEON_BITS_SIGNCLIP(fk32, float, uint32x4_t, int32x4_t, u32, s32, 32, keys_f32, 0x7f800000u,
                         0x3f800000u)
#endif

/* A class c of element type T computed in vectors V, with Clip bounds held
 * as two vectors. */
#define ONYX__NEON_CLASS(c, T, V)        \
  typedef V onyx__v_##c;                 \
  enum { ONYX__N_##c = 16 / sizeof(T) }; \
  typedef struct {                       \
    V lo, hi;                            \
  } onyx__cx_##c;

/* ---- float32 and float64 with float instructions (AArch64) ---------------- */

#if defined(__aarch64__)
/*
 * Sign: 1 with x's sign bit, cleared where x == +-0, x itself where x is
 * NaN (x != x). Clip: "x <= lo" is false for a NaN x, so x stays; then
 * "t >= hi" likewise. Bounds are never NaN from onyx__clip_params; NaN
 * bounds go to the scalar kernel.
 */
#define ONYX__NEON_FLOAT(c, T, V, VM, F, M, ONE, SIGNBIT)                         \
  ONYX__NEON_CLASS(c, T, V)                                                       \
  static inline bool onyx__cx_set_##c(onyx__cx_##c *cx, const onyx__kparams *p) { \
    cx->lo = vdupq_n_##F(p ? p->c.lo : 0);                                        \
    cx->hi = vdupq_n_##F(p ? p->c.hi : 0);                                        \
    return p == NULL || (!isnan(p->c.lo) && !isnan(p->c.hi));                     \
  }                                                                               \
  static inline V onyx__ld_##c(const T *p) { return vld1q_##F(p); }               \
  static inline void onyx__st_##c(T *p, V v) { vst1q_##F(p, v); }                 \
  static inline V onyx__ceil_##c(V v, const onyx__cx_##c *cx) {                   \
    (void)cx;                                                                     \
    return vrndpq_##F(v);                                                         \
  }                                                                               \
  static inline V onyx__floor_##c(V v, const onyx__cx_##c *cx) {                  \
    (void)cx;                                                                     \
    return vrndmq_##F(v);                                                         \
  }                                                                               \
  static inline V onyx__sign_##c(V v, const onyx__cx_##c *cx) {                   \
    (void)cx;                                                                     \
    const V one = vbslq_##F(vdupq_n_##M(SIGNBIT), v, vdupq_n_##F(ONE));           \
    const V r = vreinterpretq_##F##_##M(                                          \
        vbicq_##M(vreinterpretq_##M##_##F(one), vceqq_##F(v, vdupq_n_##F(0))));   \
    return vbslq_##F(vceqq_##F(v, v), r, v);                                      \
  }                                                                               \
  static inline V onyx__clip_##c(V v, const onyx__cx_##c *cx) {                   \
    const V t = vbslq_##F(vcleq_##F(v, cx->lo), cx->lo, v);                       \
    return vbslq_##F(vcgeq_##F(t, cx->hi), cx->hi, t);                            \
  }
ONYX__NEON_FLOAT(f32, float, float32x4_t, uint32x4_t, f32, u32, 1.0f, 0x80000000u)
ONYX__NEON_FLOAT(f64, double, float64x2_t, uint64x2_t, f64, u64, 1.0, UINT64_C(0x8000000000000000))

/*
 * float16 and bfloat16 Ceil and Floor through float32 (AArch64). FCVTL and
 * a 16-bit shift (SHLL) widen exactly, FRINTP/FRINTM round, FCVTN and
 * taking the top halves (UZP2) narrow. Narrowing is exact: the ceiling or
 * floor of a half value is a half value (below 2^M in magnitude it is an
 * integer of at most M + 1 bits, above it is the value itself). A
 * signalling NaN comes out quiet with its payload, as scalar.c's quiet()
 * and narrowing give; a quiet one unchanged.
 */
typedef struct {
  float32x4_t a, b;
} onyx__v_hw32;
typedef onyx__v_hw32 onyx__v_bw32;
ONYX__SIMD_NO_PARAMS(hw32)
typedef onyx__cx_hw32 onyx__cx_bw32;
#define onyx__cx_set_bw32 onyx__cx_set_hw32
enum { ONYX__N_hw32 = 8, ONYX__N_bw32 = 8 };
static inline onyx__v_hw32 onyx__ld_hw32(const uint16_t *p) {
  const float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(p));
  const onyx__v_hw32 v = {vcvt_f32_f16(vget_low_f16(h)), vcvt_high_f32_f16(h)};
  return v;
}
static inline void onyx__st_hw32(uint16_t *p, onyx__v_hw32 v) {
  vst1q_u16(p, vreinterpretq_u16_f16(vcvt_high_f16_f32(vcvt_f16_f32(v.a), v.b)));
}
static inline onyx__v_bw32 onyx__ld_bw32(const uint16_t *p) {
  const uint16x8_t u = vld1q_u16(p);
  const onyx__v_bw32 v = {vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(u), 16)),
                          vreinterpretq_f32_u32(vshll_high_n_u16(u, 16))};
  return v;
}
static inline void onyx__st_bw32(uint16_t *p, onyx__v_bw32 v) {
  vst1q_u16(p, vuzp2q_u16(vreinterpretq_u16_f32(v.a), vreinterpretq_u16_f32(v.b)));
}
static inline onyx__v_hw32 onyx__ceil_hw32(onyx__v_hw32 v, const onyx__cx_hw32 *cx) {
  (void)cx;
  const onyx__v_hw32 r = {vrndpq_f32(v.a), vrndpq_f32(v.b)};
  return r;
}
static inline onyx__v_hw32 onyx__floor_hw32(onyx__v_hw32 v, const onyx__cx_hw32 *cx) {
  (void)cx;
  const onyx__v_hw32 r = {vrndmq_f32(v.a), vrndmq_f32(v.b)};
  return r;
}
#define onyx__ceil_bw32  onyx__ceil_hw32
#define onyx__floor_bw32 onyx__floor_hw32
#endif

/* ---- Integers ------------------------------------------------------------ */

/* Vectors, loads and stores, and bounds in the lane type, which must hold
 * them (hand-made params whose bounds do not fit go to the scalar kernel). */
#define ONYX__NEON_INT(c, T, V, S, SIGNED, MIN, MAX)                              \
  ONYX__NEON_CLASS(c, T, V)                                                       \
  static inline bool onyx__cx_set_##c(onyx__cx_##c *cx, const onyx__kparams *p) { \
    bool ok = true;                                                               \
    T lo = 0, hi = 0;                                                             \
    if (p != NULL && SIGNED) {                                                    \
      ok = onyx__simd_sbounds_ok(p, MIN, MAX);                                    \
      lo = (T)p->i64.lo;                                                          \
      hi = (T)p->i64.hi;                                                          \
    } else if (p != NULL) {                                                       \
      ok = onyx__simd_ubounds_ok(p, MAX);                                         \
      lo = (T)p->u64.lo;                                                          \
      hi = (T)p->u64.hi;                                                          \
    }                                                                             \
    cx->lo = vdupq_n_##S(lo);                                                     \
    cx->hi = vdupq_n_##S(hi);                                                     \
    return ok;                                                                    \
  }                                                                               \
  static inline V onyx__ld_##c(const T *p) { return vld1q_##S(p); }               \
  static inline void onyx__st_##c(T *p, V v) { vst1q_##S(p, v); }

/* Sign and Clip of the 8- to 32-bit classes: clamping to [-1, 1] (or
 * min(x, 1)) is Sign; max then min is Clip. */
#define ONYX__NEON_NARROW_INT(c, T, V, S, SIGNED, MIN, MAX)                     \
  ONYX__NEON_INT(c, T, V, S, SIGNED, MIN, MAX)                                  \
  static inline V onyx__sign_##c(V v, const onyx__cx_##c *cx) {                 \
    (void)cx;                                                                   \
    return SIGNED ? vminq_##S(vmaxq_##S(v, vdupq_n_##S((T)-1)), vdupq_n_##S(1)) \
                  : vminq_##S(v, vdupq_n_##S(1));                               \
  }                                                                             \
  static inline V onyx__clip_##c(V v, const onyx__cx_##c *cx) {                 \
    return vminq_##S(vmaxq_##S(v, cx->lo), cx->hi);                             \
  }

ONYX__NEON_NARROW_INT(s8, int8_t, int8x16_t, s8, 1, INT8_MIN, INT8_MAX)
ONYX__NEON_NARROW_INT(s16, int16_t, int16x8_t, s16, 1, INT16_MIN, INT16_MAX)
ONYX__NEON_NARROW_INT(s32, int32_t, int32x4_t, s32, 1, INT32_MIN, INT32_MAX)
ONYX__NEON_NARROW_INT(u8, uint8_t, uint8x16_t, u8, 0, 0, UINT8_MAX)
ONYX__NEON_NARROW_INT(u16, uint16_t, uint16x8_t, u16, 0, 0, UINT16_MAX)
ONYX__NEON_NARROW_INT(u32, uint32_t, uint32x4_t, u32, 0, 0, UINT32_MAX)

#if defined(__aarch64__)
/* 64-bit lanes have compares but no min/max: select. Sign is the sign bit
 * copied down, or 1 where x != 0. */
ONYX__NEON_INT(s64, int64_t, int64x2_t, s64, 1, INT64_MIN, INT64_MAX)
ONYX__NEON_INT(u64, uint64_t, uint64x2_t, u64, 0, 0, UINT64_MAX)
static inline int64x2_t onyx__sign_s64(int64x2_t v, const onyx__cx_s64 *cx) {
  (void)cx;
  const int64x2_t nz = vreinterpretq_s64_u64(vshrq_n_u64(vtstq_s64(v, v), 63));
  return vorrq_s64(vshrq_n_s64(v, 63), nz);
}
static inline int64x2_t onyx__clip_s64(int64x2_t v, const onyx__cx_s64 *cx) {
  const int64x2_t t = vbslq_s64(vcgtq_s64(v, cx->lo), v, cx->lo);
  return vbslq_s64(vcltq_s64(t, cx->hi), t, cx->hi);
}
static inline uint64x2_t onyx__sign_u64(uint64x2_t v, const onyx__cx_u64 *cx) {
  (void)cx;
  return vshrq_n_u64(vtstq_u64(v, v), 63);
}
static inline uint64x2_t onyx__clip_u64(uint64x2_t v, const onyx__cx_u64 *cx) {
  const uint64x2_t t = vbslq_u64(vcgtq_u64(v, cx->lo), v, cx->lo);
  return vbslq_u64(vcltq_u64(t, cx->hi), t, cx->hi);
}
#endif

/* ---- The types ------------------------------------------------------------ */

/*
 * The types and their classes, in the form of simd_common.h's lists. Types
 * left out keep a NULL entry, so dispatch uses the scalar kernel: on 32-bit
 * ARM, float64 and the 64-bit integers.
 */
#if defined(__aarch64__)
#define ONYX__NEON_FLOAT_TYPES(X)                   \
  X(FLOAT, f32, float, f32, f32, f32, f32)          \
  X(DOUBLE, f64, double, f64, f64, f64, f64)        \
  X(FLOAT16, f16, uint16_t, hw32, hw32, hk16, hk16) \
  X(BFLOAT16, bf16, uint16_t, bw32, bw32, bk16, bk16)
#define ONYX__NEON_INT_TYPES(X) ONYX__SIMD_INT_TYPES(X)
#else
#define ONYX__NEON_FLOAT_TYPES(X)                   \
  X(FLOAT, f32, float, fr32, fr32, fk32, fk32)      \
  X(FLOAT16, f16, uint16_t, hr16, hr16, hk16, hk16) \
  X(BFLOAT16, bf16, uint16_t, br16, br16, bk16, bk16)
#define ONYX__NEON_INT_TYPES(X) ONYX__SIMD_INT_TYPES_NARROW(X)
#endif
#define ONYX__SIMD_ROUNDING_TYPES(X) ONYX__NEON_FLOAT_TYPES(X)
#define ONYX__SIMD_SIGN_TYPES(X)     ONYX__NEON_FLOAT_TYPES(X) ONYX__NEON_INT_TYPES(X)
#define ONYX__SIMD_CLIP_TYPES(X)     ONYX__SIMD_SIGN_TYPES(X)

#include "kernels/simd_generate.h"
