/* SPDX-License-Identifier: MIT */
/*
 * AVX-512 kernels (F, BW, DQ, VL; F16C and FMA come with the level).
 * Compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl -mf16c -mfma
 * only. 512-bit vectors; tails use masked loads and stores, which touch
 * (and fault on) no masked-off element. float16 Ceil and Floor round the
 * 16-bit patterns with integer operations and table lookups (no
 * conversion; the AVX512-FP16 and AVX512-BF16 extensions are not used, so
 * no feature beyond the level is needed); bfloat16 widens and narrows by
 * moving bits (see simd_common.h for why that is exact).
 */
#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernels/kernels.h"
#include "kernels/simd_common.h"

#define ONYX__SIMD_ISA    avx512
#define ONYX__SIMD_MASKED 1
/* Streaming stores, ordered by SFENCE. */
#define ONYX__SIMD_STREAMS 1
static inline void onyx__stream_fence(void) { _mm_sfence(); }

/* The mask of the first r lanes, r below the lane count. */
static inline __mmask8 onyx__m8(size_t r) { return (__mmask8)((1u << r) - 1u); }
static inline __mmask16 onyx__m16(size_t r) { return (__mmask16)((1u << r) - 1u); }
static inline __mmask32 onyx__m32(size_t r) { return (__mmask32)((UINT32_C(1) << r) - 1u); }
static inline __mmask64 onyx__m64(size_t r) { return (__mmask64)((UINT64_C(1) << r) - 1u); }

/* ---- float32 ------------------------------------------------------------- */

typedef __m512 onyx__v_f32;
#define ONYX__N_f32 16
static inline __m512 onyx__ld_f32(const float *p) { return _mm512_loadu_ps(p); }
static inline void onyx__st_f32(float *p, __m512 v) { _mm512_storeu_ps(p, v); }
static inline void onyx__stnt_f32(float *p, __m512 v) { _mm512_stream_ps(p, v); }
static inline __m512 onyx__ldm_f32(const float *p, size_t r) {
  return _mm512_maskz_loadu_ps(onyx__m16(r), p);
}
static inline void onyx__stm_f32(float *p, size_t r, __m512 v) {
  _mm512_mask_storeu_ps(p, onyx__m16(r), v);
}

typedef struct {
  __m512 lo, hi;
} onyx__cx_f32;
static inline bool onyx__cx_set_f32(onyx__cx_f32 *c, const onyx__kparams *p) {
  c->lo = _mm512_set1_ps(p ? p->f32.lo : 0.0f);
  c->hi = _mm512_set1_ps(p ? p->f32.hi : 0.0f);
  return p == NULL || onyx__simd_fbounds_ok(p->f32.lo, p->f32.hi);
}

/* VRNDSCALEPS with scale 0 is ROUNDPS, and returns a NaN quiet with its
 * payload, as scalar.c does. */
#define ONYX__ROUND_PS(v, MODE) \
  _mm512_roundscale_ps(v, _MM_FROUND_TO_##MODE##_INF | _MM_FROUND_NO_EXC)
static inline __m512 onyx__ceil_f32(__m512 v, const onyx__cx_f32 *c) {
  (void)c;
  return ONYX__ROUND_PS(v, POS);
}
static inline __m512 onyx__floor_f32(__m512 v, const onyx__cx_f32 *c) {
  (void)c;
  return ONYX__ROUND_PS(v, NEG);
}
/* +-1 with x's sign where x is a nonzero number, +0 for +-0, x for NaN. */
static inline __m512 onyx__sign_f32(__m512 v, const onyx__cx_f32 *c) {
  (void)c;
  const __mmask16 nz = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_NEQ_OQ);
  const __m512 r =
      _mm512_maskz_or_ps(nz, _mm512_and_ps(v, _mm512_set1_ps(-0.0f)), _mm512_set1_ps(1.0f));
  return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v);
}
/* VMAXPS / VMINPS return their second operand when the two are equal
 * (+0 and -0 included) or either is NaN: with bounds that are not NaN,
 * max(x, lo) is "x > lo ? x : lo" and min(t, hi) "t < hi ? t : hi", the
 * scalar rule but for a NaN x, which the mask of ordered lanes keeps as it
 * is. Three operations where compare-and-blend takes four. */
static inline __m512 onyx__clip_f32(__m512 v, const onyx__cx_f32 *c) {
  const __mmask16 num = _mm512_cmp_ps_mask(v, v, _CMP_ORD_Q);
  const __m512 t = _mm512_mask_max_ps(v, num, v, c->lo);
  return _mm512_mask_min_ps(t, num, t, c->hi);
}

/* ---- float64 ------------------------------------------------------------- */

typedef __m512d onyx__v_f64;
#define ONYX__N_f64 8
static inline __m512d onyx__ld_f64(const double *p) { return _mm512_loadu_pd(p); }
static inline void onyx__st_f64(double *p, __m512d v) { _mm512_storeu_pd(p, v); }
static inline void onyx__stnt_f64(double *p, __m512d v) { _mm512_stream_pd(p, v); }
static inline __m512d onyx__ldm_f64(const double *p, size_t r) {
  return _mm512_maskz_loadu_pd(onyx__m8(r), p);
}
static inline void onyx__stm_f64(double *p, size_t r, __m512d v) {
  _mm512_mask_storeu_pd(p, onyx__m8(r), v);
}

typedef struct {
  __m512d lo, hi;
} onyx__cx_f64;
static inline bool onyx__cx_set_f64(onyx__cx_f64 *c, const onyx__kparams *p) {
  c->lo = _mm512_set1_pd(p ? p->f64.lo : 0.0);
  c->hi = _mm512_set1_pd(p ? p->f64.hi : 0.0);
  return p == NULL || onyx__simd_fbounds_ok(p->f64.lo, p->f64.hi);
}

#define ONYX__ROUND_PD(v, MODE) \
  _mm512_roundscale_pd(v, _MM_FROUND_TO_##MODE##_INF | _MM_FROUND_NO_EXC)
static inline __m512d onyx__ceil_f64(__m512d v, const onyx__cx_f64 *c) {
  (void)c;
  return ONYX__ROUND_PD(v, POS);
}
static inline __m512d onyx__floor_f64(__m512d v, const onyx__cx_f64 *c) {
  (void)c;
  return ONYX__ROUND_PD(v, NEG);
}
static inline __m512d onyx__sign_f64(__m512d v, const onyx__cx_f64 *c) {
  (void)c;
  const __mmask8 nz = _mm512_cmp_pd_mask(v, _mm512_setzero_pd(), _CMP_NEQ_OQ);
  const __m512d r =
      _mm512_maskz_or_pd(nz, _mm512_and_pd(v, _mm512_set1_pd(-0.0)), _mm512_set1_pd(1.0));
  return _mm512_mask_mov_pd(r, _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q), v);
}
static inline __m512d onyx__clip_f64(__m512d v, const onyx__cx_f64 *c) {
  const __mmask8 num = _mm512_cmp_pd_mask(v, v, _CMP_ORD_Q);
  const __m512d t = _mm512_mask_max_pd(v, num, v, c->lo);
  return _mm512_mask_min_pd(t, num, t, c->hi);
}

/* ---- float16 and bfloat16: the shared float32 arithmetic ---------------- */

/* VRNDSCALEPS quiets NaNs itself, which is what narrowing does too. */
static inline __m512 onyx__hround_up(__m512 v) {
  return _mm512_roundscale_ps(v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
}
static inline __m512 onyx__hround_down(__m512 v) {
  return _mm512_roundscale_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}

/* ---- float16 Ceil and Floor, on the bits ---------------------------------- */

/*
 * No conversion: the rounding of simd_common.h ("float16 Ceil and Floor on
 * the bits") on 32 patterns a vector. The index of an element is its top
 * six bits, sign and exponent (x >> 10), looked up with VPERMI2W in
 * 64-entry tables that also fold in the |x| < 1 case:
 *   mask  the bits to clear: the fraction mask; for |x| < 1, 0xffff if
 *         x >= 0 (the result is +0) and 0x7fff if x < 0 (-0);
 *   add   what to add first: mask where the op rounds away from zero, else
 *         0; for |x| < 1, a value that leaves s = x + add below
 *         ONYX__HR_SMALL_S exactly for the nonzero x rounding away (Ceil,
 *         x > 0: add -1; Floor, x < 0: add 0x7fff) and at or above it for
 *         every other x (Floor, x >= 0: add 0x8000; no other lane wraps);
 * so that the result is s & ~mask, then 0x3c00 (Ceil) or 0xbc00 (Floor)
 * where s < ONYX__HR_SMALL_S, and the quiet bit (VPERMW, which reads five
 * index bits, in a 32-entry table by exponent) where the fraction is
 * nonzero and e = 31. Per vector: a shift, three lookups, an add, a test
 * and a compare into masks, a ternary-logic op and a masked move; on the
 * AMD EPYC of bench/README.md this is about 20% faster than VCVTPH2PS,
 * VRNDSCALEPS and VCVTPS2PH per 32 elements.
 */
#define ONYX__HR_SMALL_S 0x3bff
/* The fraction mask of exponent e >= 15. */
#define ONYX__HR_FRAC(e)    ((e) < 25 ? 0x3ffu >> ((e) < 15 ? 0 : (e)-15) : 0u)
#define ONYX__HR_MASK(s, e) ((e) < 15 ? ((s) ? 0x7fffu : 0xffffu) : ONYX__HR_FRAC(e))
/* add for sign s, exponent e, given the |x| < 1 value for each sign and
 * whether the op rounds away from zero for each sign. */
#define ONYX__HR_ADD(s, e, SMALL0, SMALL1, AWAY0, AWAY1) \
  ((e) < 15 ? ((s) ? (SMALL1) : (SMALL0)) : (((s) ? (AWAY1) : (AWAY0)) ? ONYX__HR_FRAC(e) : 0u))
/* A table: clang-format does not settle on one layout for it. */
/* clang-format off */
#define ONYX__HR_E32(F, s)                                                                  \
  F(s, 0) F(s, 1) F(s, 2) F(s, 3) F(s, 4) F(s, 5) F(s, 6) F(s, 7) F(s, 8) F(s, 9) F(s, 10) \
  F(s, 11) F(s, 12) F(s, 13) F(s, 14) F(s, 15) F(s, 16) F(s, 17) F(s, 18) F(s, 19)         \
  F(s, 20) F(s, 21) F(s, 22) F(s, 23) F(s, 24) F(s, 25) F(s, 26) F(s, 27) F(s, 28)         \
  F(s, 29) F(s, 30) F(s, 31)
/* clang-format on */
#define ONYX__HR_MASK_ENTRY(s, e)  ONYX__HR_MASK(s, e),
#define ONYX__HR_CEIL_ENTRY(s, e)  ONYX__HR_ADD(s, e, 0xffffu, 0u, 1, 0),
#define ONYX__HR_FLOOR_ENTRY(s, e) ONYX__HR_ADD(s, e, 0x8000u, 0x7fffu, 0, 1),
#define ONYX__HR_QUIET_ENTRY(s, e) ((e) == 31 ? 0x200u : 0u),
static const uint16_t onyx__hr_mask[64] = {ONYX__HR_E32(ONYX__HR_MASK_ENTRY, 0)
                                               ONYX__HR_E32(ONYX__HR_MASK_ENTRY, 1)};
static const uint16_t onyx__hr_add_ceil[64] = {ONYX__HR_E32(ONYX__HR_CEIL_ENTRY, 0)
                                                   ONYX__HR_E32(ONYX__HR_CEIL_ENTRY, 1)};
static const uint16_t onyx__hr_add_floor[64] = {ONYX__HR_E32(ONYX__HR_FLOOR_ENTRY, 0)
                                                    ONYX__HR_E32(ONYX__HR_FLOOR_ENTRY, 1)};
static const uint16_t onyx__hr_quiet[32] = {ONYX__HR_E32(ONYX__HR_QUIET_ENTRY, 0)};

typedef __m512i onyx__v_hr16;
typedef struct {
  __m512i mask0, mask1, up0, up1, down0, down1, quiet;
} onyx__cx_hr16;
static inline bool onyx__cx_set_hr16(onyx__cx_hr16 *c, const onyx__kparams *p) {
  (void)p;
  c->mask0 = _mm512_loadu_si512(onyx__hr_mask);
  c->mask1 = _mm512_loadu_si512(onyx__hr_mask + 32);
  c->up0 = _mm512_loadu_si512(onyx__hr_add_ceil);
  c->up1 = _mm512_loadu_si512(onyx__hr_add_ceil + 32);
  c->down0 = _mm512_loadu_si512(onyx__hr_add_floor);
  c->down1 = _mm512_loadu_si512(onyx__hr_add_floor + 32);
  c->quiet = _mm512_loadu_si512(onyx__hr_quiet);
  return true;
}
/* add0/add1: the op's add table; away: its |x| < 1 result away from 0. */
static inline __m512i onyx__hround(__m512i x, const onyx__cx_hr16 *c, __m512i add0, __m512i add1,
                                   short away) {
  const __m512i idx = _mm512_srli_epi16(x, 10);
  const __m512i mask = _mm512_permutex2var_epi16(c->mask0, idx, c->mask1);
  const __m512i s = _mm512_add_epi16(x, _mm512_permutex2var_epi16(add0, idx, add1));
  const __mmask32 payload = _mm512_test_epi16_mask(x, _mm512_set1_epi16(0x3ff));
  const __m512i quiet = _mm512_maskz_permutexvar_epi16(payload, idx, c->quiet);
  const __m512i r = _mm512_ternarylogic_epi32(s, mask, quiet, 0xba); /* (s & ~mask) | quiet */
  const __mmask32 small = _mm512_cmplt_epu16_mask(s, _mm512_set1_epi16(ONYX__HR_SMALL_S));
  return _mm512_mask_mov_epi16(r, small, _mm512_set1_epi16(away));
}
static inline __m512i onyx__ceil_hr16(__m512i v, const onyx__cx_hr16 *c) {
  return onyx__hround(v, c, c->up0, c->up1, ONYX__HR_AWAY_CEIL);
}
static inline __m512i onyx__floor_hr16(__m512i v, const onyx__cx_hr16 *c) {
  return onyx__hround(v, c, c->down0, c->down1, (short)ONYX__HR_AWAY_FLOOR);
}

/* ---- bfloat16, through float32 --------------------------------------------- */

/* Thirty-two elements as two float32 vectors: unpacking against zero puts
 * each element in the top half of a float32 lane (exactly
 * onyx__bf16_to_f32); shifting back down and packing, both within 128-bit
 * lanes as the unpacks are, restores the order. */
typedef struct {
  __m512 a, b;
} onyx__v_b32;
#define ONYX__N_b16 32
ONYX__SIMD_B32_BOUNDS
static inline onyx__v_b32 onyx__widen_b16(__m512i v) {
  const __m512i z = _mm512_setzero_si512();
  onyx__v_b32 r = {_mm512_castsi512_ps(_mm512_unpacklo_epi16(z, v)),
                   _mm512_castsi512_ps(_mm512_unpackhi_epi16(z, v))};
  return r;
}
static inline onyx__v_b32 onyx__ld_b16(const uint16_t *p) {
  return onyx__widen_b16(_mm512_loadu_si512(p));
}
static inline onyx__v_b32 onyx__ldm_b16(const uint16_t *p, size_t r) {
  return onyx__widen_b16(_mm512_maskz_loadu_epi16(onyx__m32(r), p));
}
/* Ceil and Floor of a bfloat16 value are bfloat16 values, NaNs quiet
 * already (the rounding instruction quiets them): narrowing is taking the
 * top halves. */
static inline __m512i onyx__narrow_b16(onyx__v_b32 v) {
  return _mm512_packus_epi32(_mm512_srli_epi32(_mm512_castps_si512(v.a), 16),
                             _mm512_srli_epi32(_mm512_castps_si512(v.b), 16));
}
static inline void onyx__st_b16(uint16_t *p, onyx__v_b32 v) {
  _mm512_storeu_si512(p, onyx__narrow_b16(v));
}
static inline void onyx__stnt_b16(uint16_t *p, onyx__v_b32 v) {
  _mm512_stream_si512((void *)p, onyx__narrow_b16(v));
}
static inline void onyx__stm_b16(uint16_t *p, size_t r, onyx__v_b32 v) {
  _mm512_mask_storeu_epi16(p, onyx__m32(r), onyx__narrow_b16(v));
}
ONYX__SIMD_B32_ROUNDING

/* ---- Integers -------------------------------------------------------------- */

/* Every integer class computes in a __m512i of its own lane width BITS,
 * with masks of 512 / BITS lanes (ONYX__MASK_<BITS>). */
#define ONYX__MASK_8  onyx__m64
#define ONYX__MASK_16 onyx__m32
#define ONYX__MASK_32 onyx__m16
#define ONYX__MASK_64 onyx__m8
#define ONYX__INT_CLASS(c, T, BITS, LT, KIND, MIN, MAX)                                     \
  typedef __m512i onyx__v_##c;                                                              \
  enum { ONYX__N_##c = 512 / BITS };                                                        \
  static inline __m512i onyx__ld_##c(const T *p) { return _mm512_loadu_si512(p); }          \
  static inline void onyx__st_##c(T *p, __m512i v) { _mm512_storeu_si512(p, v); }           \
  static inline void onyx__stnt_##c(T *p, __m512i v) { _mm512_stream_si512((void *)p, v); } \
  static inline __m512i onyx__ldm_##c(const T *p, size_t r) {                               \
    return _mm512_maskz_loadu_epi##BITS(ONYX__MASK_##BITS(r), p);                           \
  }                                                                                         \
  static inline void onyx__stm_##c(T *p, size_t r, __m512i v) {                             \
    _mm512_mask_storeu_epi##BITS(p, ONYX__MASK_##BITS(r), v);                               \
  }                                                                                         \
  typedef struct {                                                                          \
    __m512i lo, hi;                                                                         \
  } onyx__cx_##c;
ONYX__SIMD_INT_CLASSES(ONYX__INT_CLASS)

/* Bounds in the lane type. */
#define ONYX__SET1_8   _mm512_set1_epi8
#define ONYX__SET1_16  _mm512_set1_epi16
#define ONYX__SET1_32  _mm512_set1_epi32
#define ONYX__SET1_64  _mm512_set1_epi64
#define ONYX__U64_FLIP 0u
ONYX__SIMD_INT_CLASSES(ONYX__INT_SET)

/* Sign: max(min(x, 1), -1) for signed lanes, min(x, 1) for unsigned ones.
 * Clip: max then min. AVX-512 has both for every lane width. */
#define ONYX__INT_OPS(c, SU, BITS, SIGN)                                    \
  static inline __m512i onyx__sign_##c(__m512i v, const onyx__cx_##c *cx) { \
    (void)cx;                                                               \
    return SIGN(v, BITS);                                                   \
  }                                                                         \
  static inline __m512i onyx__clip_##c(__m512i v, const onyx__cx_##c *cx) { \
    return _mm512_min_##SU##BITS(_mm512_max_##SU##BITS(v, cx->lo), cx->hi); \
  }
#define ONYX__SIGN_S(v, BITS) \
  _mm512_max_epi##BITS(_mm512_min_epi##BITS(v, _mm512_set1_epi##BITS(1)), _mm512_set1_epi##BITS(-1))
#define ONYX__SIGN_U(v, BITS) _mm512_min_epu##BITS(v, _mm512_set1_epi##BITS(1))
ONYX__INT_OPS(s8, epi, 8, ONYX__SIGN_S)
ONYX__INT_OPS(s16, epi, 16, ONYX__SIGN_S)
ONYX__INT_OPS(s32, epi, 32, ONYX__SIGN_S)
ONYX__INT_OPS(s64, epi, 64, ONYX__SIGN_S)
ONYX__INT_OPS(u8, epu, 8, ONYX__SIGN_U)
ONYX__INT_OPS(u16, epu, 16, ONYX__SIGN_U)
ONYX__INT_OPS(u32, epu, 32, ONYX__SIGN_U)
ONYX__INT_OPS(u64, epu, 64, ONYX__SIGN_U)

/* ---- float16 and bfloat16 Sign and Clip, on the bits (simd_common.h) ---- */

/* Sign by bits; Clip by the three cases of simd_common.h, in masks: a NaN
 * x is in neither, and above wins over below. */
#define ONYX__HALF_INT_CLASS(k, BF16, INF, ONE)                                                \
  typedef __m512i onyx__v_##k;                                                                 \
  ONYX__HALF_SET(k, __m512i, _mm512_set1_epi16, BF16)                                          \
  static inline __m512i onyx__sign_##k(__m512i v, const onyx__cx_##k *c) {                     \
    (void)c;                                                                                   \
    const __m512i a = _mm512_and_si512(v, _mm512_set1_epi16(0x7fff));                          \
    const __mmask32 nan = _mm512_cmpgt_epi16_mask(a, _mm512_set1_epi16(INF));                  \
    const __mmask32 nz = _mm512_test_epi16_mask(a, a);                                         \
    const __m512i one = _mm512_or_si512(_mm512_and_si512(v, _mm512_set1_epi16((short)0x8000)), \
                                        _mm512_set1_epi16(ONE));                               \
    return _mm512_mask_mov_epi16(_mm512_maskz_mov_epi16(nz, one), nan, v);                     \
  }                                                                                            \
  static inline __m512i onyx__clip_##k(__m512i v, const onyx__cx_##k *c) {                     \
    const __m512i a = _mm512_and_si512(v, _mm512_set1_epi16(0x7fff));                          \
    const __m512i key =                                                                        \
        _mm512_mask_sub_epi16(a, _mm512_movepi16_mask(v), _mm512_setzero_si512(), a);          \
    const __mmask32 num = _mm512_cmple_epi16_mask(a, _mm512_set1_epi16(INF));                  \
    const __mmask32 below = _mm512_cmpgt_epi16_mask(c->below, key) & num;                      \
    const __mmask32 above = _mm512_cmpgt_epi16_mask(key, c->above) & num;                      \
    return _mm512_mask_mov_epi16(_mm512_mask_mov_epi16(v, below, c->lo), above, c->hi);        \
  }
ONYX__HALF_INT_CLASS(hi16, false, 0x7c00, 0x3c00)
ONYX__HALF_INT_CLASS(bi16, true, 0x7f80, 0x3f80)

#include "kernels/simd_generate.h"
