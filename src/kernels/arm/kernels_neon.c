/* SPDX-License-Identifier: MIT */
/*
 * NEON kernels, for AArch64 (Advanced SIMD, always present) and 32-bit
 * ARMv7 with NEON (optional: dispatch uses this table only where
 * AT_HWCAP says NEON; see src/cpu/cpu.c). This file alone is compiled with
 * -mfpu=neon on 32-bit ARM. 128-bit vectors; the last n % N elements are
 * one more vector over the last N elements (as in the x86 files: every op
 * is idempotent, so recomputing elements gives the same bits, in place
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
 * kernels. float16 and bfloat16 use the bits classes on AArch64 as well:
 * they need no conversion there either.
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
  typedef VU vec_##c;                                                                        \
  enum { LANES_##c = 128 / (W) };                                                            \
  typedef struct {                                                                           \
    int unused;                                                                              \
  } bounds_##c;                                                                              \
  static inline bool bounds_set_##c(bounds_##c *cx, const onyx__kparams *p) {                \
    (void)cx;                                                                                \
    (void)p;                                                                                 \
    return true;                                                                             \
  }                                                                                          \
  static inline VU load_##c(const T *p) { return vld1q_##U((const void *)p); }               \
  static inline void store_##c(T *p, VU v) { vst1q_##U((void *)p, v); }                      \
  static inline VU round_##c(VU v, bool ceil_op) {                                           \
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
  static inline VU ceil_##c(VU v, const bounds_##c *cx) {                                    \
    (void)cx;                                                                                \
    return round_##c(v, true);                                                               \
  }                                                                                          \
  static inline VU floor_##c(VU v, const bounds_##c *cx) {                                   \
    (void)cx;                                                                                \
    return round_##c(v, false);                                                              \
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

static int32_t key_of(uint32_t bits, unsigned w) {
  const uint32_t sign = 1u << (w - 1);
  const int32_t mag = (int32_t)(bits & (sign - 1u));
  return (bits & sign) ? -mag : mag;
}

/*
 * The thresholds for bounds lo and hi, patterns of w bits; false when
 * either is NaN (never from onyx__clip_params: the scalar kernel then
 * decides).
 */
static bool clip_keys_set(uint32_t lo, uint32_t hi, unsigned w, bool ties_x, clip_keys *k) {
  const uint32_t inf = w == 32 ? 0x7f800000u : w == 16 && ties_x ? 0x7c00u : 0x7f80u;
  const uint32_t abs = (1u << (w - 1)) - 1u;
  if ((lo & abs) > inf || (hi & abs) > inf) return false;
  const int32_t klo = key_of(lo, w), khi = key_of(hi, w);
  const bool crossed = ties_x ? klo > khi : klo >= khi;
  k->lo = lo;
  k->hi = hi;
  k->below = ties_x ? klo : klo + 1;
  k->above = crossed ? -(int32_t)abs - 1 : ties_x ? khi : khi - 1;
  return true;
}

/* A float32 bound as a half pattern; false unless it is exactly a half
 * value (never NaN here: onyx__clip_params stores none). */
static bool half_bound(bool bf16, float f, uint32_t *bits) {
  uint16_t h;
  float back;
  if (bf16) {
    h = onyx__f32_to_bf16(f).bits;
    back = onyx__bf16_to_f32((onyx__bf16){h});
  } else {
    h = onyx__f32_to_f16(f).bits;
    back = onyx__f16_to_f32((onyx__f16){h});
  }
  *bits = h;
  return onyx__f32_bits(back) == onyx__f32_bits(f) && !isnan(f);
}

/* The Clip keys of a class: float16 (ties keep x), bfloat16, float32. */
static bool keys_h16(const onyx__kparams *p, clip_keys *k) {
  uint32_t lo, hi;
  return half_bound(false, p->f32.lo, &lo) && half_bound(false, p->f32.hi, &hi) &&
         clip_keys_set(lo, hi, 16, true, k);
}
static bool keys_b16(const onyx__kparams *p, clip_keys *k) {
  uint32_t lo, hi;
  return half_bound(true, p->f32.lo, &lo) && half_bound(true, p->f32.hi, &hi) &&
         clip_keys_set(lo, hi, 16, false, k);
}
#if !defined(__aarch64__)
static bool keys_f32(const onyx__kparams *p, clip_keys *k) {
  return clip_keys_set(onyx__f32_bits(p->f32.lo), onyx__f32_bits(p->f32.hi), 32, false, k);
}
#endif

/* Sign and Clip of class c on W-bit patterns; KEYS fills the thresholds,
 * INF and ONE are the infinity's and 1's patterns. */
#define ONYX__NEON_BITS_SIGNCLIP(c, T, VU, VS, U, S, W, KEYS, INF, ONE)        \
  typedef VU vec_##c;                                                          \
  enum { LANES_##c = 128 / (W) };                                              \
  typedef struct {                                                             \
    VU lo, hi;                                                                 \
    VS below, above;                                                           \
  } bounds_##c;                                                                \
  static inline bool bounds_set_##c(bounds_##c *cx, const onyx__kparams *p) {  \
    clip_keys k = {0, 0, 0, 0};                                                \
    const bool ok = p == NULL || KEYS(p, &k);                                  \
    cx->lo = vdupq_n_##U(k.lo);                                                \
    cx->hi = vdupq_n_##U(k.hi);                                                \
    cx->below = vdupq_n_##S(k.below);                                          \
    cx->above = vdupq_n_##S(k.above);                                          \
    return ok;                                                                 \
  }                                                                            \
  static inline VU load_##c(const T *p) { return vld1q_##U((const void *)p); } \
  static inline void store_##c(T *p, VU v) { vst1q_##U((void *)p, v); }        \
  static inline VU sign_##c(VU v, const bounds_##c *cx) {                      \
    (void)cx;                                                                  \
    const VU signbit = vdupq_n_##U(1u << ((W)-1));                             \
    const VU a = vbicq_##U(v, signbit);                                        \
    const VU one = vorrq_##U(vandq_##U(v, signbit), vdupq_n_##U(ONE));         \
    const VU r = vandq_##U(one, vtstq_##U(a, a));                              \
    return vbslq_##U(vcgtq_##U(a, vdupq_n_##U(INF)), v, r);                    \
  }                                                                            \
  static inline VU clip_##c(VU v, const bounds_##c *cx) {                      \
    const VU a = vbicq_##U(v, vdupq_n_##U(1u << ((W)-1)));                     \
    const VS neg = vshrq_n_##S(vreinterpretq_##S##_##U(v), (W)-1);             \
    const VS key = vsubq_##S(veorq_##S(vreinterpretq_##S##_##U(a), neg), neg); \
    VU y = vbslq_##U(vcltq_##S(key, cx->below), cx->lo, v);                    \
    y = vbslq_##U(vcgtq_##S(key, cx->above), cx->hi, y);                       \
    return vbslq_##U(vcgtq_##U(a, vdupq_n_##U(INF)), v, y);                    \
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
#define ONYX__NEON_CLASS(c, T, V)      \
  typedef V vec_##c;                   \
  enum { LANES_##c = 16 / sizeof(T) }; \
  typedef struct {                     \
    V lo, hi;                          \
  } bounds_##c;

/* ---- float32 and float64 with float instructions (AArch64) ---------------- */

#if defined(__aarch64__)
/*
 * Sign: 1 with x's sign bit, cleared where x == +-0, x itself where x is
 * NaN (x != x). Clip: "x <= lo" is false for a NaN x, so x stays; then
 * "t >= hi" likewise. Bounds are never NaN from onyx__clip_params; NaN
 * bounds go to the scalar kernel.
 */
#define ONYX__NEON_FLOAT(c, T, V, VM, F, M, ONE, SIGNBIT)                       \
  ONYX__NEON_CLASS(c, T, V)                                                     \
  static inline bool bounds_set_##c(bounds_##c *cx, const onyx__kparams *p) {   \
    cx->lo = vdupq_n_##F(p ? p->c.lo : 0);                                      \
    cx->hi = vdupq_n_##F(p ? p->c.hi : 0);                                      \
    return p == NULL || (!isnan(p->c.lo) && !isnan(p->c.hi));                   \
  }                                                                             \
  static inline V load_##c(const T *p) { return vld1q_##F(p); }                 \
  static inline void store_##c(T *p, V v) { vst1q_##F(p, v); }                  \
  static inline V ceil_##c(V v, const bounds_##c *cx) {                         \
    (void)cx;                                                                   \
    return vrndpq_##F(v);                                                       \
  }                                                                             \
  static inline V floor_##c(V v, const bounds_##c *cx) {                        \
    (void)cx;                                                                   \
    return vrndmq_##F(v);                                                       \
  }                                                                             \
  static inline V sign_##c(V v, const bounds_##c *cx) {                         \
    (void)cx;                                                                   \
    const V one = vbslq_##F(vdupq_n_##M(SIGNBIT), v, vdupq_n_##F(ONE));         \
    const V r = vreinterpretq_##F##_##M(                                        \
        vbicq_##M(vreinterpretq_##M##_##F(one), vceqq_##F(v, vdupq_n_##F(0)))); \
    return vbslq_##F(vceqq_##F(v, v), r, v);                                    \
  }                                                                             \
  static inline V clip_##c(V v, const bounds_##c *cx) {                         \
    const V t = vbslq_##F(vcleq_##F(v, cx->lo), cx->lo, v);                     \
    return vbslq_##F(vcgeq_##F(t, cx->hi), cx->hi, t);                          \
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
} vec_hw32;
typedef vec_hw32 vec_bw32;
typedef struct {
  int unused;
} bounds_hw32;
typedef bounds_hw32 bounds_bw32;
enum { LANES_hw32 = 8, LANES_bw32 = 8 };
static inline bool bounds_set_hw32(bounds_hw32 *cx, const onyx__kparams *p) {
  (void)cx;
  (void)p;
  return true;
}
#define bounds_set_bw32 bounds_set_hw32
static inline vec_hw32 load_hw32(const uint16_t *p) {
  const float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(p));
  const vec_hw32 v = {vcvt_f32_f16(vget_low_f16(h)), vcvt_high_f32_f16(h)};
  return v;
}
static inline void store_hw32(uint16_t *p, vec_hw32 v) {
  vst1q_u16(p, vreinterpretq_u16_f16(vcvt_high_f16_f32(vcvt_f16_f32(v.a), v.b)));
}
static inline vec_bw32 load_bw32(const uint16_t *p) {
  const uint16x8_t u = vld1q_u16(p);
  const vec_bw32 v = {vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(u), 16)),
                      vreinterpretq_f32_u32(vshll_high_n_u16(u, 16))};
  return v;
}
static inline void store_bw32(uint16_t *p, vec_bw32 v) {
  vst1q_u16(p, vuzp2q_u16(vreinterpretq_u16_f32(v.a), vreinterpretq_u16_f32(v.b)));
}
static inline vec_hw32 ceil_hw32(vec_hw32 v, const bounds_hw32 *cx) {
  (void)cx;
  const vec_hw32 r = {vrndpq_f32(v.a), vrndpq_f32(v.b)};
  return r;
}
static inline vec_hw32 floor_hw32(vec_hw32 v, const bounds_hw32 *cx) {
  (void)cx;
  const vec_hw32 r = {vrndmq_f32(v.a), vrndmq_f32(v.b)};
  return r;
}
#define ceil_bw32  ceil_hw32
#define floor_bw32 floor_hw32
#endif

/* ---- Integers ------------------------------------------------------------ */

/* Whether Clip bounds fit the lane type (functions, so that the test is
 * no "always true" comparison for the 64-bit types). */
static bool sbounds_ok(const onyx__kparams *p, int64_t min, int64_t max) {
  return p->i64.lo >= min && p->i64.lo <= max && p->i64.hi >= min && p->i64.hi <= max;
}
static bool ubounds_ok(const onyx__kparams *p, uint64_t max) {
  return p->u64.lo <= max && p->u64.hi <= max;
}

/* Vectors, loads and stores, and bounds in the lane type, which must hold
 * them (hand-made params whose bounds do not fit go to the scalar kernel). */
#define ONYX__NEON_INT(c, T, V, S, SIGNED, MIN, MAX)                          \
  ONYX__NEON_CLASS(c, T, V)                                                   \
  static inline bool bounds_set_##c(bounds_##c *cx, const onyx__kparams *p) { \
    bool ok = true;                                                           \
    T lo = 0, hi = 0;                                                         \
    if (p != NULL && SIGNED) {                                                \
      ok = sbounds_ok(p, MIN, MAX);                                           \
      lo = (T)p->i64.lo;                                                      \
      hi = (T)p->i64.hi;                                                      \
    } else if (p != NULL) {                                                   \
      ok = ubounds_ok(p, MAX);                                                \
      lo = (T)p->u64.lo;                                                      \
      hi = (T)p->u64.hi;                                                      \
    }                                                                         \
    cx->lo = vdupq_n_##S(lo);                                                 \
    cx->hi = vdupq_n_##S(hi);                                                 \
    return ok;                                                                \
  }                                                                           \
  static inline V load_##c(const T *p) { return vld1q_##S(p); }               \
  static inline void store_##c(T *p, V v) { vst1q_##S(p, v); }

/* Sign and Clip of the 8- to 32-bit classes: clamping to [-1, 1] (or
 * min(x, 1)) is Sign; max then min is Clip. */
#define ONYX__NEON_NARROW_INT(c, T, V, S, SIGNED, MIN, MAX)                     \
  ONYX__NEON_INT(c, T, V, S, SIGNED, MIN, MAX)                                  \
  static inline V sign_##c(V v, const bounds_##c *cx) {                         \
    (void)cx;                                                                   \
    return SIGNED ? vminq_##S(vmaxq_##S(v, vdupq_n_##S((T)-1)), vdupq_n_##S(1)) \
                  : vminq_##S(v, vdupq_n_##S(1));                               \
  }                                                                             \
  static inline V clip_##c(V v, const bounds_##c *cx) {                         \
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
static inline int64x2_t sign_s64(int64x2_t v, const bounds_s64 *cx) {
  (void)cx;
  const int64x2_t nz = vreinterpretq_s64_u64(vshrq_n_u64(vtstq_s64(v, v), 63));
  return vorrq_s64(vshrq_n_s64(v, 63), nz);
}
static inline int64x2_t clip_s64(int64x2_t v, const bounds_s64 *cx) {
  const int64x2_t t = vbslq_s64(vcgtq_s64(v, cx->lo), v, cx->lo);
  return vbslq_s64(vcltq_s64(t, cx->hi), t, cx->hi);
}
static inline uint64x2_t sign_u64(uint64x2_t v, const bounds_u64 *cx) {
  (void)cx;
  return vshrq_n_u64(vtstq_u64(v, v), 63);
}
static inline uint64x2_t clip_u64(uint64x2_t v, const bounds_u64 *cx) {
  const uint64x2_t t = vbslq_u64(vcgtq_u64(v, cx->lo), v, cx->lo);
  return vbslq_u64(vcltq_u64(t, cx->hi), t, cx->hi);
}
#endif

/* ---- Kernels and the table ------------------------------------------------ */

/*
 * One kernel of class c: four vectors at a time, then one at a time, then
 * the overlapping last vector (or the scalar kernel below one vector).
 */
#define ONYX__NEON_KERNEL(NAME, tn, T, c, op, KOP) \
  ONYX__NEON_KERNEL_ISA(NAME, tn, T, c, op, KOP, neon)
#define ONYX__NEON_KERNEL_ISA(NAME, tn, T, c, op, KOP, isa)                                  \
  static void onyx__##tn##_v##op##__##isa(size_t n, const void *x, void *y,                  \
                                          const onyx__kparams *params) {                     \
    const T *src = x;                                                                        \
    T *dst = y;                                                                              \
    const onyx__ukernel scalar = onyx__kernels_scalar.k[ONYX__KOP_##KOP][ONYX__DI_##NAME];   \
    bounds_##c cx;                                                                           \
    if (!bounds_set_##c(&cx, ONYX__KOP_##KOP == ONYX__KOP_CLIP ? params : NULL)) {           \
      scalar(n, x, y, params);                                                               \
      return;                                                                                \
    }                                                                                        \
    const size_t lanes = (size_t)LANES_##c;                                                  \
    size_t i = 0;                                                                            \
    for (; n - i >= 4 * lanes; i += 4 * lanes) {                                             \
      const vec_##c v0 = load_##c(src + i), v1 = load_##c(src + i + lanes);                  \
      const vec_##c v2 = load_##c(src + i + 2 * lanes), v3 = load_##c(src + i + 3 * lanes);  \
      store_##c(dst + i, op##_##c(v0, &cx));                                                 \
      store_##c(dst + i + lanes, op##_##c(v1, &cx));                                         \
      store_##c(dst + i + 2 * lanes, op##_##c(v2, &cx));                                     \
      store_##c(dst + i + 3 * lanes, op##_##c(v3, &cx));                                     \
    }                                                                                        \
    for (; n - i >= lanes; i += lanes) store_##c(dst + i, op##_##c(load_##c(src + i), &cx)); \
    if (i < n && n >= lanes) {                                                               \
      store_##c(dst + n - lanes, op##_##c(load_##c(src + n - lanes), &cx));                  \
    } else if (i < n) {                                                                      \
      scalar(n - i, src + i, dst + i, params);                                               \
    }                                                                                        \
  }

/*
 * The types, per op: X(NAME, short name, storage type, class). Types left
 * out keep a NULL entry, so dispatch uses the scalar kernel: on 32-bit ARM,
 * float64 and the 64-bit integers.
 */
#if defined(__aarch64__)
#define ONYX__NEON_ROUNDING_TYPES(X) \
  X(FLOAT, f32, float, f32)          \
  X(DOUBLE, f64, double, f64)        \
  X(FLOAT16, f16, uint16_t, hw32)    \
  X(BFLOAT16, bf16, uint16_t, bw32)
#define ONYX__NEON_WIDE_TYPES(X) \
  X(FLOAT, f32, float, f32)      \
  X(DOUBLE, f64, double, f64)    \
  X(INT64, s64, int64_t, s64)    \
  X(UINT64, u64, uint64_t, u64)
#else
#define ONYX__NEON_ROUNDING_TYPES(X) \
  X(FLOAT, f32, float, fr32)         \
  X(FLOAT16, f16, uint16_t, hr16)    \
  X(BFLOAT16, bf16, uint16_t, br16)
#define ONYX__NEON_WIDE_TYPES(X) X(FLOAT, f32, float, fk32)
#endif
#define ONYX__NEON_SIGNCLIP_TYPES(X) \
  ONYX__NEON_WIDE_TYPES(X)           \
  X(FLOAT16, f16, uint16_t, hk16)    \
  X(BFLOAT16, bf16, uint16_t, bk16)  \
  X(INT8, s8, int8_t, s8)            \
  X(INT16, s16, int16_t, s16)        \
  X(INT32, s32, int32_t, s32)        \
  X(UINT8, u8, uint8_t, u8)          \
  X(UINT16, u16, uint16_t, u16)      \
  X(UINT32, u32, uint32_t, u32)

#define ONYX__NEON_ROUNDING_KERNELS(NAME, tn, T, c) \
  ONYX__NEON_KERNEL(NAME, tn, T, c, ceil, CEIL)     \
  ONYX__NEON_KERNEL(NAME, tn, T, c, floor, FLOOR)
#define ONYX__NEON_SIGNCLIP_KERNELS(NAME, tn, T, c) \
  ONYX__NEON_KERNEL(NAME, tn, T, c, sign, SIGN)     \
  ONYX__NEON_KERNEL(NAME, tn, T, c, clip, CLIP)
ONYX__NEON_ROUNDING_TYPES(ONYX__NEON_ROUNDING_KERNELS)
ONYX__NEON_SIGNCLIP_TYPES(ONYX__NEON_SIGNCLIP_KERNELS)

#define ONYX__NEON_ROUNDING_ENTRIES(NAME, tn, T, c)               \
  .k[ONYX__KOP_CEIL][ONYX__DI_##NAME] = onyx__##tn##_vceil__neon, \
  .k[ONYX__KOP_FLOOR][ONYX__DI_##NAME] = onyx__##tn##_vfloor__neon,
#define ONYX__NEON_SIGNCLIP_ENTRIES(NAME, tn, T, c)               \
  .k[ONYX__KOP_SIGN][ONYX__DI_##NAME] = onyx__##tn##_vsign__neon, \
  .k[ONYX__KOP_CLIP][ONYX__DI_##NAME] = onyx__##tn##_vclip__neon,

extern const onyx__kernel_table onyx__kernels_neon;
const onyx__kernel_table onyx__kernels_neon = {ONYX__NEON_ROUNDING_TYPES(
    ONYX__NEON_ROUNDING_ENTRIES) ONYX__NEON_SIGNCLIP_TYPES(ONYX__NEON_SIGNCLIP_ENTRIES)};

/* ---- float16 in half precision (AArch64 FEAT_FP16) -------------------------- */

/*
 * float16 Ceil and Floor with FRINTP/FRINTM on eight halves at a time,
 * where the CPU has half-precision arithmetic (ONYX__CPU_NEON_FP16, from
 * HWCAP_ASIMDHP): dispatch.c puts this table's entries before the NEON
 * table's at the NEON level. Linux leaves FPCR.FZ16 and DN clear, so
 * subnormal halves round exactly and a signalling NaN comes back quiet with
 * its payload, as in scalar.c. Only these functions are compiled for
 * Armv8.2-A with FP16 (GCC's target pragma); with other compilers the table
 * stays empty and the float32 path above is used.
 */
extern const onyx__kernel_table onyx__kernels_neonfp16;
#if defined(__aarch64__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC target("arch=armv8.2-a+fp16")
ONYX__NEON_CLASS(hp16, uint16_t, float16x8_t)
static inline bool bounds_set_hp16(bounds_hp16 *cx, const onyx__kparams *p) {
  (void)cx;
  (void)p;
  return true;
}
static inline float16x8_t load_hp16(const uint16_t *p) {
  return vreinterpretq_f16_u16(vld1q_u16(p));
}
static inline void store_hp16(uint16_t *p, float16x8_t v) {
  vst1q_u16(p, vreinterpretq_u16_f16(v));
}
static inline float16x8_t ceil_hp16(float16x8_t v, const bounds_hp16 *cx) {
  (void)cx;
  return vrndpq_f16(v);
}
static inline float16x8_t floor_hp16(float16x8_t v, const bounds_hp16 *cx) {
  (void)cx;
  return vrndmq_f16(v);
}
ONYX__NEON_KERNEL_ISA(FLOAT16, f16, uint16_t, hp16, ceil, CEIL, neonfp16)
ONYX__NEON_KERNEL_ISA(FLOAT16, f16, uint16_t, hp16, floor, FLOOR, neonfp16)
#pragma GCC pop_options
const onyx__kernel_table onyx__kernels_neonfp16 = {
    .k[ONYX__KOP_CEIL][ONYX__DI_FLOAT16] = onyx__f16_vceil__neonfp16,
    .k[ONYX__KOP_FLOOR][ONYX__DI_FLOAT16] = onyx__f16_vfloor__neonfp16};
#else
const onyx__kernel_table onyx__kernels_neonfp16 = {.k[0][0] = NULL};
#endif
