/* SPDX-License-Identifier: MIT */
/*
 * WebAssembly SIMD128 kernels (wasm_simd128.h), for every (op, type) the
 * x86 files cover. The toolchain builds every file with -msimd128 and wasm
 * has no run-time feature detection, so this table is chosen at build time
 * (src/cpu/cpu.c reports the level when __wasm_simd128__ is defined).
 * 128-bit vectors; the loops, tails and table come from simd_generate.h,
 * with the vocabulary simd_common.h lists defined here. Tails are one more
 * vector over the last N elements (every op is idempotent), or the scalar
 * kernel below N. There are no streaming stores.
 *
 * Exactness. wasm float arithmetic never flushes subnormals, and compares
 * and bit operations are exact, but the NaN a rounding instruction returns
 * may carry any payload (the spec leaves it to the engine). So Ceil and
 * Floor on float32 and float64 put back a NaN input with its quiet bit set,
 * as scalar.c returns it; Sign and Clip use compares and selects only.
 * float16 Ceil and Floor round on the 16-bit patterns with integer
 * operations (no float conversion: simd_common.h's "float16 Ceil and Floor
 * on the bits"); bfloat16 widens to float32 by moving bits, which is exact,
 * and narrows by taking the top halves. Sign and Clip of both halves work
 * on the bits (simd_common.h).
 *
 * Semantics are those of src/kernels/scalar.c, bit for bit;
 * tests/check_kernels.c checks every entry against it under Node.
 */
#include <stdbool.h>
#include <stdint.h>
#include <wasm_simd128.h>

#include "kernels/kernels.h"
#include "kernels/simd_common.h"

#define ONYX__SIMD_ISA    simd128
#define ONYX__SIMD_MASKED 0

/* Loads and stores of any class: unaligned is allowed. There are no
 * streaming stores (ONYX__SIMD_STREAMS is left undefined). */
#define ONYX__WASM_MEMORY(C, T)                                               \
  static inline v128_t onyx__ld_##C(const T *p) { return wasm_v128_load(p); } \
  static inline void onyx__st_##C(T *p, v128_t v) { wasm_v128_store(p, v); }

/* ---- float32 and float64 ------------------------------------------------- */

/*
 * Ceil and Floor with the rounding instructions, a NaN input put back with
 * its quiet bit (QUIET) set. Sign: +-1 with x's sign where x is a nonzero
 * number (ne is true for NaN too, which the last select puts back), +0 for
 * +-0. Clip: le and ge are false for a NaN x, which stays; bounds are never
 * NaN here (onyx__simd_fbounds_ok), and ties give the bound, as scalar.c.
 */
#define ONYX__WASM_FLOAT(c, T, F, N, FIELD, ONE, QUIET)                                  \
  typedef v128_t onyx__v_##c;                                                            \
  enum { ONYX__N_##c = N };                                                              \
  ONYX__WASM_MEMORY(c, T)                                                                \
  typedef struct {                                                                       \
    v128_t lo, hi;                                                                       \
  } onyx__cx_##c;                                                                        \
  static inline bool onyx__cx_set_##c(onyx__cx_##c *cx, const onyx__kparams *p) {        \
    cx->lo = F##_splat(p ? p->FIELD.lo : (T)0);                                          \
    cx->hi = F##_splat(p ? p->FIELD.hi : (T)0);                                          \
    return p == NULL || onyx__simd_fbounds_ok(p->FIELD.lo, p->FIELD.hi);                 \
  }                                                                                      \
  static inline v128_t onyx__keep_nan_##c(v128_t r, v128_t v) {                          \
    return wasm_v128_bitselect(wasm_v128_or(v, QUIET), r, F##_ne(v, v));                 \
  }                                                                                      \
  static inline v128_t onyx__ceil_##c(v128_t v, const onyx__cx_##c *cx) {                \
    (void)cx;                                                                            \
    return onyx__keep_nan_##c(F##_ceil(v), v);                                           \
  }                                                                                      \
  static inline v128_t onyx__floor_##c(v128_t v, const onyx__cx_##c *cx) {               \
    (void)cx;                                                                            \
    return onyx__keep_nan_##c(F##_floor(v), v);                                          \
  }                                                                                      \
  static inline v128_t onyx__sign_##c(v128_t v, const onyx__cx_##c *cx) {                \
    (void)cx;                                                                            \
    const v128_t one = wasm_v128_or(wasm_v128_and(v, F##_splat(-(T)0)), F##_splat(ONE)); \
    const v128_t r = wasm_v128_and(one, F##_ne(v, F##_splat((T)0)));                     \
    return wasm_v128_bitselect(v, r, F##_ne(v, v));                                      \
  }                                                                                      \
  static inline v128_t onyx__clip_##c(v128_t v, const onyx__cx_##c *cx) {                \
    const v128_t t = wasm_v128_bitselect(cx->lo, v, F##_le(v, cx->lo));                  \
    return wasm_v128_bitselect(cx->hi, t, F##_ge(t, cx->hi));                            \
  }
ONYX__WASM_FLOAT(f32, float, wasm_f32x4, 4, f32, 1.0f, wasm_i32x4_splat(0x00400000))
ONYX__WASM_FLOAT(f64, double, wasm_f64x2, 2, f64, 1.0,
                 wasm_i64x2_splat(INT64_C(0x0008000000000000)))

/* ---- float16 Ceil and Floor, on the bits --------------------------------- */

/*
 * The rounding of simd_common.h on eight patterns a vector. There is no
 * per-lane shift: mask + 1 = 2^k, k = 25 - e (0 from e = 25 on), comes from
 * one swizzle of a table of 2^0 .. 2^7 followed by zeros, indexed by k in
 * the low byte of each lane and k - 8 in the high byte; a swizzle index of
 * 16 or more reads 0, so for k < 8 the high byte (k - 8 wraps to 248 and
 * up) is 0, and for k = 8 .. 10 the low byte reads a zero and the high
 * byte 1, 2 or 4. The |x| < 1 case (k = 11 .. 25, which reads junk) is
 * selected in.
 */
typedef v128_t onyx__v_hr16;
typedef struct {
  v128_t pow2;
} onyx__cx_hr16;
static inline bool onyx__cx_set_hr16(onyx__cx_hr16 *c, const onyx__kparams *p) {
  (void)p;
  c->pow2 = wasm_i8x16_make(1, 2, 4, 8, 16, 32, 64, (int8_t)128, 0, 0, 0, 0, 0, 0, 0, 0);
  return true;
}
static inline v128_t onyx__hround(v128_t x, const onyx__cx_hr16 *c, bool ceil) {
  const v128_t a = wasm_v128_and(x, wasm_i16x8_splat(0x7fff));
  const v128_t k = wasm_u16x8_sub_sat(wasm_i16x8_splat(25), wasm_u16x8_shr(a, 10));
  const v128_t idx =
      wasm_i16x8_sub(wasm_i16x8_mul(k, wasm_i16x8_splat(0x0101)), wasm_i16x8_splat(0x0800));
  const v128_t mask = wasm_i16x8_sub(wasm_i8x16_swizzle(c->pow2, idx), wasm_i16x8_splat(1));
  const v128_t sgn = wasm_i16x8_shr(x, 15);
  /* Away from zero: Ceil where x > 0, Floor where x < 0. */
  const v128_t away = ceil ? wasm_v128_not(sgn) : sgn;
  v128_t r = wasm_v128_andnot(wasm_i16x8_add(x, wasm_v128_and(away, mask)), mask);
  const v128_t nan = wasm_i16x8_gt(a, wasm_i16x8_splat(0x7c00));
  r = wasm_v128_or(r, wasm_v128_and(nan, wasm_i16x8_splat(0x200)));
  /* |x| < 1: +-0 stays, else +-0 towards zero or +-1 away from it. */
  const v128_t one =
      wasm_v128_andnot(wasm_i16x8_splat(0x3c00), wasm_i16x8_eq(a, wasm_i16x8_splat(0)));
  const v128_t small_r =
      wasm_v128_or(wasm_v128_and(away, one), wasm_v128_and(x, wasm_i16x8_splat((int16_t)0x8000)));
  return wasm_v128_bitselect(small_r, r, wasm_i16x8_gt(wasm_i16x8_splat(0x3c00), a));
}
static inline v128_t onyx__ceil_hr16(v128_t v, const onyx__cx_hr16 *c) {
  return onyx__hround(v, c, true);
}
static inline v128_t onyx__floor_hr16(v128_t v, const onyx__cx_hr16 *c) {
  return onyx__hround(v, c, false);
}

/* ---- bfloat16 Ceil and Floor, through float32 ------------------------------ */

/* Eight elements as two float32 vectors: interleaving with zeros puts each
 * element in the top half of a float32 lane (exactly onyx__bf16_to_f32);
 * the rounding of a bfloat16 value is one (its NaN quiet, see f32), so
 * taking the top halves back narrows exactly. */
typedef struct {
  v128_t a, b;
} onyx__v_b32;
#define ONYX__N_b16 8
ONYX__SIMD_B32_BOUNDS
static inline onyx__v_b32 onyx__ld_b16(const uint16_t *p) {
  const v128_t v = wasm_v128_load(p), z = wasm_i16x8_splat(0);
  const onyx__v_b32 r = {wasm_i16x8_shuffle(z, v, 0, 8, 1, 9, 2, 10, 3, 11),
                         wasm_i16x8_shuffle(z, v, 4, 12, 5, 13, 6, 14, 7, 15)};
  return r;
}
static inline void onyx__st_b16(uint16_t *p, onyx__v_b32 v) {
  wasm_v128_store(p, wasm_i16x8_shuffle(v.a, v.b, 1, 3, 5, 7, 9, 11, 13, 15));
}
static inline v128_t onyx__hround_up(v128_t v) { return onyx__ceil_f32(v, NULL); }
static inline v128_t onyx__hround_down(v128_t v) { return onyx__floor_f32(v, NULL); }
ONYX__SIMD_B32_ROUNDING

/* ---- Integers -------------------------------------------------------------- */

#define ONYX__INT_CLASS(c, T, BITS, LT, KIND, MIN, MAX) \
  typedef v128_t onyx__v_##c;                           \
  enum { ONYX__N_##c = 128 / BITS };                    \
  ONYX__WASM_MEMORY(c, T)                               \
  typedef struct {                                      \
    v128_t lo, hi;                                      \
  } onyx__cx_##c;
ONYX__SIMD_INT_CLASSES(ONYX__INT_CLASS)

/* Bounds in the lane type; the unsigned 64-bit ones with the sign bit
 * flipped, since wasm has only signed 64-bit compares. */
#define ONYX__SET1_8   wasm_i8x16_splat
#define ONYX__SET1_16  wasm_i16x8_splat
#define ONYX__SET1_32  wasm_i32x4_splat
#define ONYX__SET1_64  wasm_i64x2_splat
#define ONYX__U64_FLIP UINT64_C(0x8000000000000000)
ONYX__SIMD_INT_CLASSES(ONYX__INT_SET)

/* 8 to 32 bits: Sign clamps to [-1, 1] (unsigned: min(x, 1)); Clip is max
 * then min. */
#define ONYX__WASM_NARROW_INT(c, S, U)                                                      \
  static inline v128_t onyx__sign_##c(v128_t v, const onyx__cx_##c *cx) {                   \
    (void)cx;                                                                               \
    return U ? S##_min(v, S##_splat(1)) : S##_min(S##_max(v, S##_splat(-1)), S##_splat(1)); \
  }                                                                                         \
  static inline v128_t onyx__clip_##c(v128_t v, const onyx__cx_##c *cx) {                   \
    return S##_min(S##_max(v, cx->lo), cx->hi);                                             \
  }
ONYX__WASM_NARROW_INT(s8, wasm_i8x16, 0)
ONYX__WASM_NARROW_INT(s16, wasm_i16x8, 0)
ONYX__WASM_NARROW_INT(s32, wasm_i32x4, 0)
ONYX__WASM_NARROW_INT(u8, wasm_u8x16, 1)
ONYX__WASM_NARROW_INT(u16, wasm_u16x8, 1)
ONYX__WASM_NARROW_INT(u32, wasm_u32x4, 1)

/* 64 bits: no min or max, so compares and selects; Sign is the sign bit
 * copied down, or 1 where x != 0. */
static inline v128_t onyx__nonzero64(v128_t v) {
  return wasm_u64x2_shr(wasm_i64x2_ne(v, wasm_i64x2_splat(0)), 63);
}
static inline v128_t onyx__clip64(v128_t v, v128_t lo, v128_t hi) {
  const v128_t t = wasm_v128_bitselect(lo, v, wasm_i64x2_lt(v, lo));
  return wasm_v128_bitselect(hi, t, wasm_i64x2_gt(t, hi));
}
static inline v128_t onyx__sign_s64(v128_t v, const onyx__cx_s64 *cx) {
  (void)cx;
  return wasm_v128_or(wasm_i64x2_shr(v, 63), onyx__nonzero64(v));
}
static inline v128_t onyx__clip_s64(v128_t v, const onyx__cx_s64 *cx) {
  return onyx__clip64(v, cx->lo, cx->hi);
}
static inline v128_t onyx__sign_u64(v128_t v, const onyx__cx_u64 *cx) {
  (void)cx;
  return onyx__nonzero64(v);
}
static inline v128_t onyx__clip_u64(v128_t v, const onyx__cx_u64 *cx) {
  const v128_t flip = wasm_i64x2_splat(INT64_MIN);
  return wasm_v128_xor(onyx__clip64(wasm_v128_xor(v, flip), cx->lo, cx->hi), flip);
}

/* ---- float16 and bfloat16 Sign and Clip, on the bits (simd_common.h) ---- */

/* Sign by bits; Clip by the three cases against keys (the magnitude,
 * negated where the sign bit is set), selected in the order below, above,
 * NaN, so that above wins over below and a NaN x is returned as it is. */
#define ONYX__WASM_HALF_BITS(k, BF16, INF, ONE)                                                   \
  typedef v128_t onyx__v_##k;                                                                     \
  ONYX__HALF_SET(k, v128_t, wasm_i16x8_splat, BF16)                                               \
  static inline v128_t onyx__sign_##k(v128_t v, const onyx__cx_##k *c) {                          \
    (void)c;                                                                                      \
    const v128_t a = wasm_v128_and(v, wasm_i16x8_splat(0x7fff));                                  \
    const v128_t nan = wasm_i16x8_gt(a, wasm_i16x8_splat(INF));                                   \
    const v128_t zero = wasm_i16x8_eq(a, wasm_i16x8_splat(0));                                    \
    const v128_t one =                                                                            \
        wasm_v128_or(wasm_v128_and(v, wasm_i16x8_splat((int16_t)0x8000)), wasm_i16x8_splat(ONE)); \
    return wasm_v128_bitselect(v, wasm_v128_andnot(one, zero), nan);                              \
  }                                                                                               \
  static inline v128_t onyx__clip_##k(v128_t v, const onyx__cx_##k *c) {                          \
    const v128_t a = wasm_v128_and(v, wasm_i16x8_splat(0x7fff));                                  \
    const v128_t sgn = wasm_i16x8_shr(v, 15);                                                     \
    const v128_t key = wasm_i16x8_sub(wasm_v128_xor(a, sgn), sgn);                                \
    const v128_t nan = wasm_i16x8_gt(a, wasm_i16x8_splat(INF));                                   \
    v128_t y = wasm_v128_bitselect(c->lo, v, wasm_i16x8_gt(c->below, key));                       \
    y = wasm_v128_bitselect(c->hi, y, wasm_i16x8_gt(key, c->above));                              \
    return wasm_v128_bitselect(v, y, nan);                                                        \
  }
ONYX__WASM_HALF_BITS(hi16, false, 0x7c00, 0x3c00)
ONYX__WASM_HALF_BITS(bi16, true, 0x7f80, 0x3f80)

#include "kernels/simd_generate.h"
