/* SPDX-License-Identifier: MIT */
/*
 * SSE4.1 kernels. Compiled with -msse4.1 only (SSSE3's PSIGN and PSHUFB
 * come with it; SSE4.2's PCMPGTQ does not, so Clip on 64-bit integers is
 * left to the scalar kernel). 128-bit vectors; tails go to the scalar
 * kernel. There is no F16C at this level: float16 Ceil and Floor round
 * the 16-bit patterns with integer operations (simd_common.h); bfloat16
 * widens and narrows by moving bits (see simd_common.h for why that is
 * exact).
 */
#include <smmintrin.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernels/kernels.h"
#include "kernels/simd_common.h"

#define ONYX__SIMD_ISA    sse41
#define ONYX__SIMD_MASKED 0
/* Streaming stores, ordered by SFENCE. */
#define ONYX__SIMD_STREAMS 1
static inline void onyx__stream_fence(void) { _mm_sfence(); }
/*
 * No Clip on 64-bit integers at this level: without PCMPGTQ (SSE4.2) a
 * 64-bit compare takes six instructions, and the vector kernel measured
 * slower than the scalar one (which compiles to CMOVs), so dispatch uses
 * the scalar kernel there.
 */
#define ONYX__SIMD_CLIP_TYPES(X) ONYX__SIMD_FLOAT_TYPES(X) ONYX__SIMD_INT_TYPES_NARROW(X)

/* ---- float32 ------------------------------------------------------------- */

typedef __m128 onyx__v_f32;
#define ONYX__N_f32 4
static inline __m128 onyx__ld_f32(const float *p) { return _mm_loadu_ps(p); }
static inline void onyx__st_f32(float *p, __m128 v) { _mm_storeu_ps(p, v); }
static inline void onyx__stnt_f32(float *p, __m128 v) { _mm_stream_ps(p, v); }

typedef struct {
  __m128 lo, hi;
} onyx__cx_f32;
static inline bool onyx__cx_set_f32(onyx__cx_f32 *c, const onyx__kparams *p) {
  c->lo = _mm_set1_ps(p ? p->f32.lo : 0.0f);
  c->hi = _mm_set1_ps(p ? p->f32.hi : 0.0f);
  return p == NULL || onyx__simd_fbounds_ok(p->f32.lo, p->f32.hi);
}

static inline __m128 onyx__ceil_f32(__m128 v, const onyx__cx_f32 *c) {
  (void)c;
  return _mm_round_ps(v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
}
static inline __m128 onyx__floor_f32(__m128 v, const onyx__cx_f32 *c) {
  (void)c;
  return _mm_round_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
/* +-1 with x's sign where x is a nonzero number, +0 for +-0, x for NaN
 * (CMPNEQPS is true for NaN too; the blend then puts x back). */
static inline __m128 onyx__sign_f32(__m128 v, const onyx__cx_f32 *c) {
  (void)c;
  const __m128 one = _mm_or_ps(_mm_and_ps(v, _mm_set1_ps(-0.0f)), _mm_set1_ps(1.0f));
  const __m128 r = _mm_and_ps(one, _mm_cmpneq_ps(v, _mm_setzero_ps()));
  return _mm_blendv_ps(r, v, _mm_cmpunord_ps(v, v));
}
/* With bounds that are not NaN, CMPNLEPS ("!(x <= lo)") is "x > lo ||
 * isnan(x)" and CMPNGEPS ("!(t >= hi)") is "t < hi || isnan(t)". */
static inline __m128 onyx__clip_f32(__m128 v, const onyx__cx_f32 *c) {
  const __m128 t = _mm_blendv_ps(c->lo, v, _mm_cmpnle_ps(v, c->lo));
  return _mm_blendv_ps(c->hi, t, _mm_cmpnge_ps(t, c->hi));
}

/* ---- float64 ------------------------------------------------------------- */

typedef __m128d onyx__v_f64;
#define ONYX__N_f64 2
static inline __m128d onyx__ld_f64(const double *p) { return _mm_loadu_pd(p); }
static inline void onyx__st_f64(double *p, __m128d v) { _mm_storeu_pd(p, v); }
static inline void onyx__stnt_f64(double *p, __m128d v) { _mm_stream_pd(p, v); }

typedef struct {
  __m128d lo, hi;
} onyx__cx_f64;
static inline bool onyx__cx_set_f64(onyx__cx_f64 *c, const onyx__kparams *p) {
  c->lo = _mm_set1_pd(p ? p->f64.lo : 0.0);
  c->hi = _mm_set1_pd(p ? p->f64.hi : 0.0);
  return p == NULL || onyx__simd_fbounds_ok(p->f64.lo, p->f64.hi);
}

static inline __m128d onyx__ceil_f64(__m128d v, const onyx__cx_f64 *c) {
  (void)c;
  return _mm_round_pd(v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
}
static inline __m128d onyx__floor_f64(__m128d v, const onyx__cx_f64 *c) {
  (void)c;
  return _mm_round_pd(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
static inline __m128d onyx__sign_f64(__m128d v, const onyx__cx_f64 *c) {
  (void)c;
  const __m128d one = _mm_or_pd(_mm_and_pd(v, _mm_set1_pd(-0.0)), _mm_set1_pd(1.0));
  const __m128d r = _mm_and_pd(one, _mm_cmpneq_pd(v, _mm_setzero_pd()));
  return _mm_blendv_pd(r, v, _mm_cmpunord_pd(v, v));
}
static inline __m128d onyx__clip_f64(__m128d v, const onyx__cx_f64 *c) {
  const __m128d t = _mm_blendv_pd(c->lo, v, _mm_cmpnle_pd(v, c->lo));
  return _mm_blendv_pd(c->hi, t, _mm_cmpnge_pd(t, c->hi));
}

/* ---- float16 Ceil and Floor, on the bits --------------------------------- */

/*
 * The rounding of simd_common.h ("float16 Ceil and Floor on the bits") on
 * eight patterns a vector. There is no per-lane 16-bit shift: mask + 1 =
 * 2^k, k = 25 - e (0 from e = 25 on), comes from one PSHUFB in a table of
 * 2^0 .. 2^7 followed by zeros, indexed by k in the low byte of each lane
 * and k + 8 in the high byte: for k < 8 the high byte reads a zero, for
 * k = 8 .. 10 the low byte reads a zero and the high byte 1, 2 or 4. The
 * |x| < 1 case (whose k, 11 .. 25, reads junk) is blended in. About twenty
 * integer operations per eight elements, where the exact integer
 * conversion to float32 and back took about thirty-five per four.
 */
typedef __m128i onyx__v_hr16;
typedef struct {
  __m128i pow2;
} onyx__cx_hr16;
static inline bool onyx__cx_set_hr16(onyx__cx_hr16 *c, const onyx__kparams *p) {
  (void)p;
  c->pow2 = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, (char)128, 0, 0, 0, 0, 0, 0, 0, 0);
  return true;
}
/* The result for |x| < 1 (a: the magnitude; sgn: x < 0 in every bit). */
static inline __m128i onyx__hround_small(__m128i x, __m128i a, __m128i sgn, bool ceil) {
  const __m128i one = _mm_sign_epi16(_mm_set1_epi16(0x3c00), a); /* 0 for +-0 */
  const __m128i away = ceil ? _mm_andnot_si128(sgn, one) : _mm_and_si128(sgn, one);
  return _mm_or_si128(away, _mm_and_si128(x, _mm_set1_epi16((short)0x8000)));
}
static inline __m128i onyx__hround(__m128i x, const onyx__cx_hr16 *c, bool ceil) {
  const __m128i a = _mm_and_si128(x, _mm_set1_epi16(0x7fff));
  const __m128i k = _mm_subs_epu16(_mm_set1_epi16(25), _mm_srli_epi16(a, 10));
  const __m128i idx =
      _mm_add_epi16(_mm_mullo_epi16(k, _mm_set1_epi16(0x0101)), _mm_set1_epi16(0x0800));
  const __m128i mask = _mm_sub_epi16(_mm_shuffle_epi8(c->pow2, idx), _mm_set1_epi16(1));
  const __m128i sgn = _mm_srai_epi16(x, 15);
  const __m128i add = ceil ? _mm_andnot_si128(sgn, mask) : _mm_and_si128(sgn, mask);
  __m128i r = _mm_andnot_si128(mask, _mm_add_epi16(x, add));
  const __m128i nan = _mm_cmpgt_epi16(a, _mm_set1_epi16(0x7c00));
  r = _mm_or_si128(r, _mm_and_si128(nan, _mm_set1_epi16(0x200)));
  const __m128i small = _mm_cmpgt_epi16(_mm_set1_epi16(0x3c00), a);
  return _mm_blendv_epi8(r, onyx__hround_small(x, a, sgn, ceil), small);
}
static inline __m128i onyx__ceil_hr16(__m128i v, const onyx__cx_hr16 *c) {
  return onyx__hround(v, c, true);
}
static inline __m128i onyx__floor_hr16(__m128i v, const onyx__cx_hr16 *c) {
  return onyx__hround(v, c, false);
}

/* ---- bfloat16, through float32 --------------------------------------------- */

/* Eight elements as two float32 vectors: unpacking against zero puts each
 * element in the top half of a float32 lane (exactly onyx__bf16_to_f32);
 * shifting back down and packing restores them. */
typedef struct {
  __m128 a, b;
} onyx__v_b32;
typedef onyx__cx_f32 onyx__cx_b32;
#define ONYX__N_b16 8
static inline bool onyx__cx_set_b32(onyx__cx_b32 *c, const onyx__kparams *p) {
  return onyx__cx_set_f32(c, p);
}
static inline onyx__v_b32 onyx__ld_b16(const uint16_t *p) {
  const __m128i v = _mm_loadu_si128((const __m128i *)p), z = _mm_setzero_si128();
  onyx__v_b32 r = {_mm_castsi128_ps(_mm_unpacklo_epi16(z, v)),
                   _mm_castsi128_ps(_mm_unpackhi_epi16(z, v))};
  return r;
}
/* Ceil and Floor of a bfloat16 value are bfloat16 values, NaNs quiet
 * already (the rounding instruction quiets them): narrowing is taking the
 * top halves. */
static inline __m128i onyx__narrow_b16(onyx__v_b32 v) {
  return _mm_packus_epi32(_mm_srli_epi32(_mm_castps_si128(v.a), 16),
                          _mm_srli_epi32(_mm_castps_si128(v.b), 16));
}
static inline void onyx__st_b16(uint16_t *p, onyx__v_b32 v) {
  _mm_storeu_si128((__m128i *)p, onyx__narrow_b16(v));
}
static inline void onyx__stnt_b16(uint16_t *p, onyx__v_b32 v) {
  _mm_stream_si128((__m128i *)p, onyx__narrow_b16(v));
}
/* ROUNDPS quiets NaNs itself, which is what narrowing does too. */
static inline onyx__v_b32 onyx__ceil_b32(onyx__v_b32 v, const onyx__cx_b32 *c) {
  (void)c;
  onyx__v_b32 r = {_mm_round_ps(v.a, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC),
                   _mm_round_ps(v.b, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)};
  return r;
}
static inline onyx__v_b32 onyx__floor_b32(onyx__v_b32 v, const onyx__cx_b32 *c) {
  (void)c;
  onyx__v_b32 r = {_mm_round_ps(v.a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC),
                   _mm_round_ps(v.b, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)};
  return r;
}

/* ---- Integers -------------------------------------------------------------- */

#define ONYX__INT_CLASS(c, T, BITS, LT, KIND, MIN, MAX)                                          \
  typedef __m128i onyx__v_##c;                                                                   \
  enum { ONYX__N_##c = 128 / BITS };                                                             \
  static inline __m128i onyx__ld_##c(const T *p) { return _mm_loadu_si128((const __m128i *)p); } \
  static inline void onyx__st_##c(T *p, __m128i v) { _mm_storeu_si128((__m128i *)p, v); }        \
  static inline void onyx__stnt_##c(T *p, __m128i v) { _mm_stream_si128((__m128i *)p, v); }      \
  typedef struct {                                                                               \
    __m128i lo, hi;                                                                              \
  } onyx__cx_##c;
ONYX__SIMD_INT_CLASSES(ONYX__INT_CLASS)

/* Bounds in the lane type (set for Sign too, which ignores them). */
#define ONYX__SET1_8   _mm_set1_epi8
#define ONYX__SET1_16  _mm_set1_epi16
#define ONYX__SET1_32  _mm_set1_epi32
#define ONYX__SET1_64  _mm_set1_epi64x
#define ONYX__U64_FLIP 0u
ONYX__SIMD_INT_CLASSES(ONYX__INT_SET)

/* Sign and Clip of the 8- to 32-bit classes (simd_common.h); the 64-bit
 * ones below. */
ONYX__SIMD_NARROW_INT_OPS(__m128i, _mm)

/* (x >> 63) | (x != 0): the high half's sign copied down, or 1. */
static inline __m128i onyx__sign_s64(__m128i v, const onyx__cx_s64 *cx) {
  (void)cx;
  const __m128i neg = _mm_shuffle_epi32(_mm_srai_epi32(v, 31), _MM_SHUFFLE(3, 3, 1, 1));
  const __m128i nz = _mm_andnot_si128(_mm_cmpeq_epi64(v, _mm_setzero_si128()), _mm_set1_epi64x(1));
  return _mm_or_si128(neg, nz);
}
static inline __m128i onyx__sign_u64(__m128i v, const onyx__cx_u64 *cx) {
  (void)cx;
  return _mm_andnot_si128(_mm_cmpeq_epi64(v, _mm_setzero_si128()), _mm_set1_epi64x(1));
}

/* ---- float16 and bfloat16 Sign and Clip, on the bits (simd_common.h) ---- */

ONYX__SIMD_HALF_BITS_CLASSES(__m128i, _mm, si128)

#include "kernels/simd_generate.h"
