/* SPDX-License-Identifier: MIT */
/*
 * AVX2 kernels (with FMA and F16C, which the AVX2 level requires; see
 * src/cpu/cpu.c). Compiled with -mavx2 -mfma -mf16c only. 256-bit vectors;
 * tails go to the scalar kernel. float16 converts with F16C, whose
 * VCVTPS2PH keeps a NaN's top payload bits and sets the quiet bit exactly
 * as onyx__f32_to_f16 does; bfloat16 widens and narrows by moving bits
 * (see simd_common.h for why that is exact).
 */
#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernels/kernels.h"
#include "kernels/simd_common.h"

#define ONYX__SIMD_ISA    avx2
#define ONYX__SIMD_MASKED 0
/* Streaming stores, ordered by SFENCE. */
#define ONYX__SIMD_STREAMS 1
static inline void onyx__stream_fence(void) { _mm_sfence(); }

/* ---- float32 ------------------------------------------------------------- */

typedef __m256 onyx__v_f32;
#define ONYX__N_f32 8
static inline __m256 onyx__ld_f32(const float *p) { return _mm256_loadu_ps(p); }
static inline void onyx__st_f32(float *p, __m256 v) { _mm256_storeu_ps(p, v); }
static inline void onyx__stnt_f32(float *p, __m256 v) { _mm256_stream_ps(p, v); }

typedef struct {
  __m256 lo, hi;
} onyx__cx_f32;
static inline bool onyx__cx_set_f32(onyx__cx_f32 *c, const onyx__kparams *p) {
  c->lo = _mm256_set1_ps(p ? p->f32.lo : 0.0f);
  c->hi = _mm256_set1_ps(p ? p->f32.hi : 0.0f);
  return p == NULL || onyx__simd_fbounds_ok(p->f32.lo, p->f32.hi);
}

static inline __m256 onyx__ceil_f32(__m256 v, const onyx__cx_f32 *c) {
  (void)c;
  return _mm256_round_ps(v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
}
static inline __m256 onyx__floor_f32(__m256 v, const onyx__cx_f32 *c) {
  (void)c;
  return _mm256_round_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
/* +-1 with x's sign where x is a nonzero number, +0 for +-0, x for NaN. */
static inline __m256 onyx__sign_f32(__m256 v, const onyx__cx_f32 *c) {
  (void)c;
  const __m256 one = _mm256_or_ps(_mm256_and_ps(v, _mm256_set1_ps(-0.0f)), _mm256_set1_ps(1.0f));
  const __m256 r = _mm256_and_ps(one, _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_NEQ_OQ));
  return _mm256_blendv_ps(r, v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}
/* With bounds that are not NaN, "!(x <= lo)" is "x > lo || isnan(x)". */
static inline __m256 onyx__clip_f32(__m256 v, const onyx__cx_f32 *c) {
  const __m256 t = _mm256_blendv_ps(c->lo, v, _mm256_cmp_ps(v, c->lo, _CMP_NLE_UQ));
  return _mm256_blendv_ps(c->hi, t, _mm256_cmp_ps(t, c->hi, _CMP_NGE_UQ));
}

/* ---- float64 ------------------------------------------------------------- */

typedef __m256d onyx__v_f64;
#define ONYX__N_f64 4
static inline __m256d onyx__ld_f64(const double *p) { return _mm256_loadu_pd(p); }
static inline void onyx__st_f64(double *p, __m256d v) { _mm256_storeu_pd(p, v); }
static inline void onyx__stnt_f64(double *p, __m256d v) { _mm256_stream_pd(p, v); }

typedef struct {
  __m256d lo, hi;
} onyx__cx_f64;
static inline bool onyx__cx_set_f64(onyx__cx_f64 *c, const onyx__kparams *p) {
  c->lo = _mm256_set1_pd(p ? p->f64.lo : 0.0);
  c->hi = _mm256_set1_pd(p ? p->f64.hi : 0.0);
  return p == NULL || onyx__simd_fbounds_ok(p->f64.lo, p->f64.hi);
}

static inline __m256d onyx__ceil_f64(__m256d v, const onyx__cx_f64 *c) {
  (void)c;
  return _mm256_round_pd(v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
}
static inline __m256d onyx__floor_f64(__m256d v, const onyx__cx_f64 *c) {
  (void)c;
  return _mm256_round_pd(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
static inline __m256d onyx__sign_f64(__m256d v, const onyx__cx_f64 *c) {
  (void)c;
  const __m256d one = _mm256_or_pd(_mm256_and_pd(v, _mm256_set1_pd(-0.0)), _mm256_set1_pd(1.0));
  const __m256d r = _mm256_and_pd(one, _mm256_cmp_pd(v, _mm256_setzero_pd(), _CMP_NEQ_OQ));
  return _mm256_blendv_pd(r, v, _mm256_cmp_pd(v, v, _CMP_UNORD_Q));
}
static inline __m256d onyx__clip_f64(__m256d v, const onyx__cx_f64 *c) {
  const __m256d t = _mm256_blendv_pd(c->lo, v, _mm256_cmp_pd(v, c->lo, _CMP_NLE_UQ));
  return _mm256_blendv_pd(c->hi, t, _mm256_cmp_pd(t, c->hi, _CMP_NGE_UQ));
}

/* ---- float16 and bfloat16: the shared float32 arithmetic ---------------- */

/* VROUNDPS quiets NaNs itself, which is what narrowing does too. */
static inline __m256 onyx__hround_up(__m256 v) {
  return _mm256_round_ps(v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
}
static inline __m256 onyx__hround_down(__m256 v) {
  return _mm256_round_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}

/* ---- float16, through float32 with F16C ---------------------------------- */

typedef __m256 onyx__v_h32;
typedef onyx__cx_f32 onyx__cx_h32;
#define ONYX__N_h16 8
static inline bool onyx__cx_set_h32(onyx__cx_h32 *c, const onyx__kparams *p) {
  return onyx__cx_set_f32(c, p);
}
static inline __m256 onyx__ld_h16(const uint16_t *p) {
  return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
}
/* VCVTPS2PH rounds to nearest even and keeps a NaN's top payload bits with
 * the quiet bit set, as onyx__f32_to_f16 does. */
static inline __m128i onyx__narrow_h16(__m256 v) {
  return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
static inline void onyx__st_h16(uint16_t *p, __m256 v) {
  _mm_storeu_si128((__m128i *)p, onyx__narrow_h16(v));
}
static inline void onyx__stnt_h16(uint16_t *p, __m256 v) {
  _mm_stream_si128((__m128i *)p, onyx__narrow_h16(v));
}
ONYX__SIMD_ROUNDING_BY(h32, __m256, onyx__hround_up, onyx__hround_down)

/*
 * float16 Ceil and Floor stay with F16C here rather than the integer
 * rounding of kernels_sse41.c on 256-bit vectors (twenty operations per
 * sixteen elements against six): on the AMD EPYC of bench/README.md the
 * integer form measured 36 GB/s at 1e5 elements on one thread, F16C 66.
 */
#define ONYX__SIMD_ROUNDING_TYPES(X) \
  ONYX__SIMD_FLOAT_TYPES_BUT_F16(X) X(FLOAT16, f16, uint16_t, h16, h32, u16, hi16)

/* ---- bfloat16, through float32 --------------------------------------------- */

/*
 * Sixteen elements as two float32 vectors: unpacking the bits against zero
 * puts each element in the top half of a float32 lane (exactly
 * onyx__bf16_to_f32), elements 0-3 and 8-11 in a, 4-7 and 12-15 in b;
 * shifting back down and packing restores the order.
 */
typedef struct {
  __m256 a, b;
} onyx__v_b32;
#define ONYX__N_b16 16
ONYX__SIMD_B32_BOUNDS
static inline onyx__v_b32 onyx__ld_b16(const uint16_t *p) {
  const __m256i v = _mm256_loadu_si256((const __m256i *)p), z = _mm256_setzero_si256();
  onyx__v_b32 r = {_mm256_castsi256_ps(_mm256_unpacklo_epi16(z, v)),
                   _mm256_castsi256_ps(_mm256_unpackhi_epi16(z, v))};
  return r;
}
/* Ceil and Floor of a bfloat16 value are bfloat16 values, NaNs quiet
 * already (the rounding instruction quiets them): narrowing is taking the
 * top halves. */
static inline __m256i onyx__narrow_b16(onyx__v_b32 v) {
  return _mm256_packus_epi32(_mm256_srli_epi32(_mm256_castps_si256(v.a), 16),
                             _mm256_srli_epi32(_mm256_castps_si256(v.b), 16));
}
static inline void onyx__st_b16(uint16_t *p, onyx__v_b32 v) {
  _mm256_storeu_si256((__m256i *)p, onyx__narrow_b16(v));
}
static inline void onyx__stnt_b16(uint16_t *p, onyx__v_b32 v) {
  _mm256_stream_si256((__m256i *)p, onyx__narrow_b16(v));
}
ONYX__SIMD_B32_ROUNDING

/* ---- Integers -------------------------------------------------------------- */

/* Every integer class computes in a __m256i of its own lane width. */
#define ONYX__INT_CLASS(c, T, BITS, LT, KIND, MIN, MAX)                                        \
  typedef __m256i onyx__v_##c;                                                                 \
  enum { ONYX__N_##c = 256 / BITS };                                                           \
  static inline __m256i onyx__ld_##c(const T *p) {                                             \
    return _mm256_loadu_si256((const __m256i *)p);                                             \
  }                                                                                            \
  static inline void onyx__st_##c(T *p, __m256i v) { _mm256_storeu_si256((__m256i *)p, v); }   \
  static inline void onyx__stnt_##c(T *p, __m256i v) { _mm256_stream_si256((__m256i *)p, v); } \
  typedef struct {                                                                             \
    __m256i lo, hi;                                                                            \
  } onyx__cx_##c;
ONYX__SIMD_INT_CLASSES(ONYX__INT_CLASS)

/* Bounds in the lane type. The unsigned 64-bit bounds are stored with the
 * sign bit flipped, the domain in which its signed compares order them. */
#define ONYX__SET1_8   _mm256_set1_epi8
#define ONYX__SET1_16  _mm256_set1_epi16
#define ONYX__SET1_32  _mm256_set1_epi32
#define ONYX__SET1_64  _mm256_set1_epi64x
#define ONYX__U64_FLIP UINT64_C(0x8000000000000000)
ONYX__SIMD_INT_CLASSES(ONYX__INT_SET)

/* Sign and Clip of the 8- to 32-bit classes (simd_common.h); the 64-bit
 * ones below. */
ONYX__SIMD_NARROW_INT_OPS(__m256i, _mm256)

/* 64-bit lanes: Sign is (x < 0) - (x > 0) in compare masks, or (x != 0);
 * Clip is compare and blend, as AVX2 has no 64-bit max or min. */
static inline __m256i onyx__sign_s64(__m256i v, const onyx__cx_s64 *cx) {
  (void)cx;
  const __m256i z = _mm256_setzero_si256();
  return _mm256_sub_epi64(_mm256_cmpgt_epi64(z, v), _mm256_cmpgt_epi64(v, z));
}
static inline __m256i onyx__sign_u64(__m256i v, const onyx__cx_u64 *cx) {
  (void)cx;
  return _mm256_andnot_si256(_mm256_cmpeq_epi64(v, _mm256_setzero_si256()), _mm256_set1_epi64x(1));
}
static inline __m256i onyx__clip_s64(__m256i v, const onyx__cx_s64 *cx) {
  const __m256i t = _mm256_blendv_epi8(cx->lo, v, _mm256_cmpgt_epi64(v, cx->lo));
  return _mm256_blendv_epi8(cx->hi, t, _mm256_cmpgt_epi64(cx->hi, t));
}
static inline __m256i onyx__clip_u64(__m256i v, const onyx__cx_u64 *cx) {
  const __m256i flip = _mm256_set1_epi64x((long long)UINT64_C(0x8000000000000000));
  const __m256i f = _mm256_xor_si256(v, flip);
  const __m256i t = _mm256_blendv_epi8(cx->lo, f, _mm256_cmpgt_epi64(f, cx->lo));
  return _mm256_xor_si256(_mm256_blendv_epi8(cx->hi, t, _mm256_cmpgt_epi64(cx->hi, t)), flip);
}

/* ---- float16 and bfloat16 Sign and Clip, on the bits (simd_common.h) ---- */

ONYX__SIMD_HALF_BITS_CLASSES(__m256i, _mm256, si256)

#include "kernels/simd_generate.h"
