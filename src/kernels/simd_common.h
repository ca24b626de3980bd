/* SPDX-License-Identifier: MIT */
/*
 * The body shared by the SIMD kernel files (x86/kernels_sse41.c,
 * kernels_avx2.c, kernels_avx512.c, kernels_avx512fp16.c,
 * arm/kernels_neon.c, kernels_neonfp16.c and wasm/kernels_simd128.c), in
 * two parts. Each file includes this header first, defines with its own
 * intrinsics a small vocabulary per element class, and includes
 * simd_generate.h last, which generates every kernel and the ISA's table
 * from one list of types: the loops, tails and streaming path are written
 * once and only the per-vector arithmetic differs between ISAs.
 *
 * What the including file defines (C is a storage class, K a computing
 * class; see the type list below):
 *
 *   ONYX__SIMD_ISA            the ISA's name token: sse41, avx2, avx512,
 *                             avx512fp16, neon, neonfp16, simd128
 *   ONYX__SIMD_MASKED         1 if tails use masked loads and stores
 *   ONYX__SIMD_STREAMS        (optional) 1 if the ISA has streaming
 *                             stores, with onyx__stnt_C and
 *                             onyx__stream_fence below; left undefined,
 *                             kernels have no streaming path
 *   onyx__v_K                 the vector type a class computes in
 *   ONYX__N_C                 elements per vector of storage class C
 *   onyx__ld_C(p), onyx__st_C(p, v)
 *                             load / store ONYX__N_C elements (unaligned),
 *                             widening and narrowing the halves
 *   onyx__stnt_C(p, v)        (ONYX__SIMD_STREAMS only) the same store,
 *                             non-temporal; p is aligned to
 *                             ONYX__SIMD_NT_ALIGN bytes
 *   onyx__stream_fence()      (ONYX__SIMD_STREAMS only) orders the
 *                             streaming stores before whatever the caller
 *                             does next (x86: SFENCE)
 *   onyx__ldm_C(p, r), onyx__stm_C(p, r, v)
 *                             (ONYX__SIMD_MASKED only) the first r < N
 *                             elements, touching no others
 *   onyx__cx_K                what a kernel of class K keeps for the
 *                             whole call: Clip's bounds as vectors, and
 *                             any constants of the class (tables)
 *   onyx__cx_set_K(c, p)      fills c from p, the op's own parameter
 *                             block (Clip's bounds) or NULL for an op
 *                             without parameters (see simd_generate.h);
 *                             false if the kernel must leave the call to
 *                             the scalar kernel
 *   onyx__ceil_K, onyx__floor_K (float classes), onyx__sign_K, onyx__clip_K
 *                             v -> op(v), each taking (v, const onyx__cx_K *)
 *   ONYX__SIMD_ROUNDING_TYPES(X), ONYX__SIMD_SIGN_TYPES(X),
 *   ONYX__SIMD_CLIP_TYPES(X)  (optional) the types, in the form of the
 *                             lists below, to generate Ceil and Floor,
 *                             Sign, and Clip for, when not all: the others
 *                             keep a NULL entry, so that dispatch uses the
 *                             level below (or the table a feature table
 *                             overlays; see dispatch.c)
 *
 * Semantics are those of src/kernels/scalar.c, bit for bit, NaN payloads
 * included; tests/unit/test_simd.c checks every kernel against it.
 */
#ifndef ONYX_KERNELS_X86_SIMD_COMMON_H
#define ONYX_KERNELS_X86_SIMD_COMMON_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/half.h"
#include "kernels/kernels.h"

#define ONYX__SIMD_CAT_(a, b) a##b
#define ONYX__SIMD_CAT(a, b)  ONYX__SIMD_CAT_(a, b)
/* onyx__f32_vceil__avx2 */
#define ONYX__SIMD_NAME(tn, op) ONYX__SIMD_CAT(onyx__##tn##_v##op##__, ONYX__SIMD_ISA)
#define ONYX__SIMD_TABLE        ONYX__SIMD_CAT(onyx__kernels_, ONYX__SIMD_ISA)

/* Streaming stores start once y is aligned to this many bytes. */
#define ONYX__SIMD_NT_ALIGN 64u

/*
 * The element types, one line each:
 *   X(NAME, short name, storage type, Ceil/Floor storage class, Ceil/Floor
 *     computing class, Sign/Clip storage class, Sign/Clip computing class)
 * Halves are stored as uint16_t. float16 Ceil and Floor work on the
 * 16-bit patterns with integer operations (class hr16, see "float16 Ceil
 * and Floor on the bits" below): without half-precision arithmetic that is
 * cheaper than converting to float32 and back, except at AVX2, where
 * F16C's conversions measured faster (kernels_avx2.c lists float16 with
 * the float32 classes h16, h32 instead). bfloat16 Ceil and Floor
 * compute in float32, like the scalar kernels (class b32), with two
 * savings:
 *   - they need not keep a NaN's bits, because narrowing sets the quiet bit
 *     anyway (as onyx__f32_to_bf16 does), which the rounding instruction's
 *     result already has;
 *   - rounding a half value to an integer gives a half value, so bfloat16
 *     narrows by taking the top 16 bits, and widens and narrows with
 *     in-lane unpacks and packs, which invert each other.
 * Sign and Clip of halves work on the bits directly (classes hi16, bi16;
 * see onyx__simd_half_bound). Every other type computes in vectors of
 * itself.
 */
#define ONYX__SIMD_FLOAT_TYPES(X) \
  ONYX__SIMD_FLOAT_TYPES_BUT_F16(X) X(FLOAT16, f16, uint16_t, u16, hr16, u16, hi16)
#define ONYX__SIMD_FLOAT_TYPES_BUT_F16(X)    \
  X(FLOAT, f32, float, f32, f32, f32, f32)   \
  X(DOUBLE, f64, double, f64, f64, f64, f64) \
  X(BFLOAT16, bf16, uint16_t, b16, b32, u16, bi16)
#define ONYX__SIMD_INT_TYPES_NARROW(X)         \
  X(INT8, s8, int8_t, s8, s8, s8, s8)          \
  X(INT16, s16, int16_t, s16, s16, s16, s16)   \
  X(INT32, s32, int32_t, s32, s32, s32, s32)   \
  X(UINT8, u8, uint8_t, u8, u8, u8, u8)        \
  X(UINT16, u16, uint16_t, u16, u16, u16, u16) \
  X(UINT32, u32, uint32_t, u32, u32, u32, u32)
#define ONYX__SIMD_INT_TYPES_64(X)           \
  X(INT64, s64, int64_t, s64, s64, s64, s64) \
  X(UINT64, u64, uint64_t, u64, u64, u64, u64)
#define ONYX__SIMD_INT_TYPES(X) ONYX__SIMD_INT_TYPES_NARROW(X) ONYX__SIMD_INT_TYPES_64(X)
#define ONYX__SIMD_ALL_TYPES(X) ONYX__SIMD_FLOAT_TYPES(X) ONYX__SIMD_INT_TYPES(X)

/* ---- Clip bounds --------------------------------------------------------- */

/*
 * The vector Clip of a float class uses one unordered compare per side,
 * which equals the scalar "x > lo || isnan(x)" only while the bound is not
 * NaN. onyx__clip_params never stores a NaN bound; hand-made params that
 * do go to the scalar kernel.
 */
static inline bool onyx__simd_fbounds_ok(double lo, double hi) { return !isnan(lo) && !isnan(hi); }

/*
 * The vector Clip of an integer type holds its bounds in that type. Bounds
 * from onyx__clip_params always fit; hand-made ones that do not (whose
 * scalar result is a truncated 64-bit value) go to the scalar kernel.
 */
static inline bool onyx__simd_sbounds_ok(const onyx__kparams *p, int64_t min, int64_t max) {
  return p->i64.lo >= min && p->i64.lo <= max && p->i64.hi >= min && p->i64.hi <= max;
}
static inline bool onyx__simd_ubounds_ok(const onyx__kparams *p, uint64_t max) {
  return p->u64.lo <= max && p->u64.hi <= max;
}

/*
 * Sign and Clip of float16 and bfloat16 need no conversion at all: they
 * work on the 16-bit patterns (classes hi16, bi16, loaded as u16). A NaN
 * is a magnitude above the infinity's and comes out unchanged, as in
 * scalar.c; Sign gives +-1 by bits.
 *
 * Clip compares keys: the magnitude, negated where the sign bit is set.
 * Signed 16-bit compares of keys order the values as float compares do,
 * +0 and -0 equal. Rather than follow the scalar max-then-min step by
 * step, the kernel sorts each element into one of three cases with one
 * compare each, against thresholds worked out once per call here:
 *   below  key < below   the result is lo
 *   above  key > above   the result is hi (this wins over below)
 *   else                 the result is x (and always for a NaN x).
 * For float16, whose ties keep x (x >= lo, x <= hi), below = key(lo) and
 * above = key(hi); for bfloat16, whose ties go to the bound (x > lo,
 * x < hi), below = key(lo) + 1 and above = key(hi) - 1. When the bounds
 * cross (lo > hi, or lo >= hi for bfloat16) the scalar rule returns hi for
 * every number, so above becomes INT16_MIN, below every key (keys are at
 * least -0x7fff). tests/unit/test_simd.c checks all 65,536 patterns
 * against scalar.c for every pair of bounds that matters.
 *
 * Clip needs its bounds as half patterns: hand-made params whose bounds
 * are not half values (or are NaN) go to the scalar kernel.
 */
typedef struct onyx__simd_half_clip {
  uint16_t lo, hi;      /* the bounds' bits */
  int16_t below, above; /* the key thresholds */
} onyx__simd_half_clip;

static inline int16_t onyx__simd_half_key(uint16_t bits) {
  const int16_t mag = (int16_t)(bits & 0x7fff);
  return (bits & 0x8000) ? (int16_t)-mag : mag;
}

/* One bound: its half bits, and whether the float32 bound is exactly that
 * half value and not NaN. */
static inline bool onyx__simd_half_bound(bool bf16, float f, uint16_t *bits) {
  uint32_t fb, back;
  float w;
  if (bf16) {
    *bits = onyx__f32_to_bf16(f).bits;
    w = onyx__bf16_to_f32((onyx__bf16){*bits});
  } else {
    *bits = onyx__f32_to_f16(f).bits;
    w = onyx__f16_to_f32((onyx__f16){*bits});
  }
  memcpy(&fb, &f, sizeof fb);
  memcpy(&back, &w, sizeof back);
  return fb == back && !isnan(f);
}

/* Fills h from params p (NULL for Sign: zeros); false if the kernel must
 * leave the call to the scalar kernel. */
static inline bool onyx__simd_half_clip_set(bool bf16, const onyx__kparams *p,
                                            onyx__simd_half_clip *h) {
  memset(h, 0, sizeof *h);
  if (p == NULL) return true;
  if (!onyx__simd_half_bound(bf16, p->f32.lo, &h->lo) ||
      !onyx__simd_half_bound(bf16, p->f32.hi, &h->hi))
    return false;
  const int klo = onyx__simd_half_key(h->lo), khi = onyx__simd_half_key(h->hi);
  const bool ties_x = !bf16; /* numpy's float16 rule; see scalar.c */
  const bool crossed = ties_x ? klo > khi : klo >= khi;
  h->below = (int16_t)(ties_x ? klo : klo + 1);
  h->above = crossed ? INT16_MIN : (int16_t)(ties_x ? khi : khi - 1);
  return true;
}

/*
 * A class k whose kernels take no parameters and keep no constants (C11
 * has no empty struct), and Ceil and Floor of a class k in vectors V by the
 * ISA's rounding functions UP and DOWN (v -> rounded v).
 */
#define ONYX__SIMD_NO_PARAMS(k)                                                  \
  typedef struct {                                                               \
    char unused;                                                                 \
  } onyx__cx_##k;                                                                \
  static inline bool onyx__cx_set_##k(onyx__cx_##k *c, const onyx__kparams *p) { \
    (void)p;                                                                     \
    c->unused = 0;                                                               \
    return true;                                                                 \
  }
#define ONYX__SIMD_ROUNDING_BY(k, V, UP, DOWN)                  \
  static inline V onyx__ceil_##k(V v, const onyx__cx_##k *c) {  \
    (void)c;                                                    \
    return UP(v);                                               \
  }                                                             \
  static inline V onyx__floor_##k(V v, const onyx__cx_##k *c) { \
    (void)c;                                                    \
    return DOWN(v);                                             \
  }

/*
 * bfloat16 held as a pair of float32 vectors (a, b), in the ISAs whose file
 * defines onyx__v_b32 so: Clip's bounds are float32's, and Ceil and Floor
 * round each half with the file's float32 rounding (onyx__hround_up/down).
 */
#define ONYX__SIMD_B32_BOUNDS                                                    \
  typedef onyx__cx_f32 onyx__cx_b32;                                             \
  static inline bool onyx__cx_set_b32(onyx__cx_b32 *c, const onyx__kparams *p) { \
    return onyx__cx_set_f32(c, p);                                               \
  }
#define ONYX__SIMD_B32_ROUNDING                                                     \
  static inline onyx__v_b32 onyx__ceil_b32(onyx__v_b32 v, const onyx__cx_b32 *c) {  \
    (void)c;                                                                        \
    onyx__v_b32 r = {onyx__hround_up(v.a), onyx__hround_up(v.b)};                   \
    return r;                                                                       \
  }                                                                                 \
  static inline onyx__v_b32 onyx__floor_b32(onyx__v_b32 v, const onyx__cx_b32 *c) { \
    (void)c;                                                                        \
    onyx__v_b32 r = {onyx__hround_down(v.a), onyx__hround_down(v.b)};               \
    return r;                                                                       \
  }

/* The Clip bounds of a half class (k, BF16) in vectors V made by SET1. */
#define ONYX__HALF_SET(k, V, SET1, BF16)                                         \
  typedef struct {                                                               \
    V lo, hi, below, above;                                                      \
  } onyx__cx_##k;                                                                \
  static inline bool onyx__cx_set_##k(onyx__cx_##k *c, const onyx__kparams *p) { \
    onyx__simd_half_clip h;                                                      \
    const bool ok = onyx__simd_half_clip_set(BF16, p, &h);                       \
    c->lo = SET1((short)h.lo);                                                   \
    c->hi = SET1((short)h.hi);                                                   \
    c->below = SET1(h.below);                                                    \
    c->above = SET1(h.above);                                                    \
    return ok;                                                                   \
  }

/*
 * The integer classes, one line each, which every ISA file instantiates
 * with its own vectors:
 *   X(class, lane type, lane bits, broadcast argument type, SINT or UINT,
 *     minimum, maximum)
 */
#define ONYX__SIMD_INT_CLASSES(X)                            \
  X(s8, int8_t, 8, char, SINT, INT8_MIN, INT8_MAX)           \
  X(s16, int16_t, 16, short, SINT, INT16_MIN, INT16_MAX)     \
  X(s32, int32_t, 32, int, SINT, INT32_MIN, INT32_MAX)       \
  X(s64, int64_t, 64, long long, SINT, INT64_MIN, INT64_MAX) \
  X(u8, uint8_t, 8, char, UINT, 0u, UINT8_MAX)               \
  X(u16, uint16_t, 16, short, UINT, 0u, UINT16_MAX)          \
  X(u32, uint32_t, 32, int, UINT, 0u, UINT32_MAX)            \
  X(u64, uint64_t, 64, long long, UINT, 0u, UINT64_MAX)

/*
 * The Clip bound setters of the integer classes, the same for every ISA but
 * for the broadcasts, which the ISA file names ONYX__SET1_8 .. ONYX__SET1_64,
 * and ONYX__U64_FLIP. Bounds are kept in the lane type (LT); the unsigned
 * 64-bit ones of ISAs without unsigned 64-bit compares are stored with the
 * sign bit flipped (ONYX__U64_FLIP), the domain in which signed compares
 * order them. Instantiated by ONYX__SIMD_INT_CLASSES(ONYX__INT_SET).
 */
#define ONYX__SINT_SET(c, SET1, LT, MIN, MAX)                                     \
  static inline bool onyx__cx_set_##c(onyx__cx_##c *cx, const onyx__kparams *p) { \
    bool ok = p == NULL || onyx__simd_sbounds_ok(p, MIN, MAX);                    \
    cx->lo = SET1(ok && p ? (LT)p->i64.lo : 0);                                   \
    cx->hi = SET1(ok && p ? (LT)p->i64.hi : 0);                                   \
    return ok;                                                                    \
  }
#define ONYX__UINT_SET(c, SET1, LT, MAX, FLIP)                                    \
  static inline bool onyx__cx_set_##c(onyx__cx_##c *cx, const onyx__kparams *p) { \
    bool ok = p == NULL || onyx__simd_ubounds_ok(p, MAX);                         \
    cx->lo = SET1((LT)((ok && p ? p->u64.lo : 0) ^ (FLIP)));                      \
    cx->hi = SET1((LT)((ok && p ? p->u64.hi : 0) ^ (FLIP)));                      \
    return ok;                                                                    \
  }
#define ONYX__INT_SET(c, T, BITS, LT, KIND, MIN, MAX) ONYX__INT_SET_##KIND(c, BITS, LT, MIN, MAX)
#define ONYX__INT_SET_SINT(c, BITS, LT, MIN, MAX)     ONYX__SINT_SET(c, ONYX__SET1_##BITS, LT, MIN, MAX)
#define ONYX__INT_SET_UINT(c, BITS, LT, MIN, MAX) \
  ONYX__UINT_SET(c, ONYX__SET1_##BITS, LT, MAX, (BITS) == 64 ? ONYX__U64_FLIP : 0u)

/*
 * Per-vector operations that SSE4.1 and AVX2 spell alike but for the vector
 * type V, the intrinsic prefix P (_mm, _mm256) and the whole-register
 * suffix SI (si128, si256), generated here once for both files; each calls
 * them with its own names, so the intrinsics still appear only in files
 * compiled for their ISA. AVX-512 computes with masks and has its own.
 */

/* Sign and Clip of the 8- to 32-bit integer classes. Sign: PSIGN gives -1,
 * 0 or 1 times its first operand; unsigned: min(x, 1). Clip: max then min.
 * (The 64-bit classes differ between the two ISAs.) */
#define ONYX__SIGN_PSIGN(V, P, c, BITS)                         \
  static inline V onyx__sign_##c(V v, const onyx__cx_##c *cx) { \
    (void)cx;                                                   \
    return P##_sign_epi##BITS(P##_set1_epi##BITS(1), v);        \
  }
#define ONYX__SIGN_UMIN(V, P, c, BITS)                          \
  static inline V onyx__sign_##c(V v, const onyx__cx_##c *cx) { \
    (void)cx;                                                   \
    return P##_min_epu##BITS(v, P##_set1_epi##BITS(1));         \
  }
#define ONYX__CLIP_MAXMIN(V, P, c, SU, BITS)                          \
  static inline V onyx__clip_##c(V v, const onyx__cx_##c *cx) {       \
    return P##_min_##SU##BITS(P##_max_##SU##BITS(v, cx->lo), cx->hi); \
  }
#define ONYX__SIMD_NARROW_INT_OPS(V, P) \
  ONYX__SIGN_PSIGN(V, P, s8, 8)         \
  ONYX__SIGN_PSIGN(V, P, s16, 16)       \
  ONYX__SIGN_PSIGN(V, P, s32, 32)       \
  ONYX__SIGN_UMIN(V, P, u8, 8)          \
  ONYX__SIGN_UMIN(V, P, u16, 16)        \
  ONYX__SIGN_UMIN(V, P, u32, 32)        \
  ONYX__CLIP_MAXMIN(V, P, s8, epi, 8)   \
  ONYX__CLIP_MAXMIN(V, P, s16, epi, 16) \
  ONYX__CLIP_MAXMIN(V, P, s32, epi, 32) \
  ONYX__CLIP_MAXMIN(V, P, u8, epu, 8)   \
  ONYX__CLIP_MAXMIN(V, P, u16, epu, 16) \
  ONYX__CLIP_MAXMIN(V, P, u32, epu, 32)

/* float16 and bfloat16 Sign and Clip on the bits (see above): Sign by bits;
 * Clip by the three cases, blended in the order below, above, NaN, so that
 * above wins over below and a NaN x is returned as it is. */
#define ONYX__HALF_BITS_CLASS(V, P, SI, k, BF16, INF, ONE)                                \
  typedef V onyx__v_##k;                                                                  \
  ONYX__HALF_SET(k, V, P##_set1_epi16, BF16)                                              \
  static inline V onyx__sign_##k(V v, const onyx__cx_##k *c) {                            \
    (void)c;                                                                              \
    const V a = P##_and_##SI(v, P##_set1_epi16(0x7fff));                                  \
    const V nan = P##_cmpgt_epi16(a, P##_set1_epi16(INF));                                \
    const V zero = P##_cmpeq_epi16(a, P##_setzero_##SI());                                \
    const V one =                                                                         \
        P##_or_##SI(P##_and_##SI(v, P##_set1_epi16((short)0x8000)), P##_set1_epi16(ONE)); \
    return P##_blendv_epi8(P##_andnot_##SI(zero, one), v, nan);                           \
  }                                                                                       \
  static inline V onyx__clip_##k(V v, const onyx__cx_##k *c) {                            \
    const V a = P##_and_##SI(v, P##_set1_epi16(0x7fff));                                  \
    const V key = P##_sign_epi16(a, v);                                                   \
    const V nan = P##_cmpgt_epi16(a, P##_set1_epi16(INF));                                \
    V y = P##_blendv_epi8(v, c->lo, P##_cmpgt_epi16(c->below, key));                      \
    y = P##_blendv_epi8(y, c->hi, P##_cmpgt_epi16(key, c->above));                        \
    return P##_blendv_epi8(y, v, nan);                                                    \
  }
#define ONYX__SIMD_HALF_BITS_CLASSES(V, P, SI)                 \
  ONYX__HALF_BITS_CLASS(V, P, SI, hi16, false, 0x7c00, 0x3c00) \
  ONYX__HALF_BITS_CLASS(V, P, SI, bi16, true, 0x7f80, 0x3f80)

/*
 * float16 Ceil and Floor on the bits (class hr16, kernels_sse41.c and
 * kernels_avx512.c). A half x with sign s, exponent e (bias 15) and
 * magnitude a = x & 0x7fff is one of:
 *   e >= 25      an integer, an infinity or a NaN: x, a NaN with the quiet
 *                bit (0x200) set, as scalar.c returns it;
 *   15 <= e < 25 1 <= |x| < 1024, whose last 25 - e bits are fraction:
 *                with mask = 0x3ff >> (e - 15), truncation is x & ~mask
 *                and rounding away from zero is (x + mask) & ~mask (a
 *                carry out of the fraction bumps the exponent, which is the
 *                right result: 1.5 -> 2);
 *   e < 15       |x| < 1: +-0 stays, any other value gives +-0 towards
 *                zero, or +-1 (0x3c00 with x's sign) away from zero.
 * Ceil rounds away from zero where x > 0, Floor where x < 0. The ISA
 * files differ in how they find mask and fold in the other cases;
 * tests/unit/test_simd.c checks all 65,536 patterns against scalar.c.
 */
#define ONYX__HR_AWAY_CEIL  0x3c00
#define ONYX__HR_AWAY_FLOOR 0xbc00

#endif
