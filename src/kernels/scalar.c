/* SPDX-License-Identifier: MIT */
/*
 * The portable kernels: one for every (op, type) the ops allow, in plain
 * C, what platforms without onyx SIMD run and what the SIMD kernels hand
 * their tails to. They follow the ONNX numpy reference bit for bit (numpy
 * 1.24 for Clip); the simple per-element reference they are tested
 * against lives in the tests (tests/kernels_ref.h).
 *
 * No kernel branches on an element, so a kernel's cost does not depend
 * on its data (tests/check_kernel_cost.c counts it): selections are masks
 * or conditional moves. The integer kernels compute in the element's own
 * type; Ceil and Floor on every float type (where the compiler
 * vectorizes, float's, double's and bfloat16's by float arithmetic on
 * masked bits instead), Sign on float16, bfloat16 and double, and Clip on
 * the halves work on the bit patterns; float's Sign and Clip and double's
 * Clip compare in their own type, which compilers turn into branch-free
 * selects. Element-aligned buffers are read and written as arrays, eight
 * elements a step.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config/config.h"
#include "core/half.h"
#include "kernels/kernels.h"
#include "os/compiler.h"

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
 * The class picks how a Clip bound is loaded into the computing type
 * (ONYX__LOAD_* below). A missing Clip bound
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
 * the bounds, minimum, maximum, Sign's form, Clip's form). A form names
 * how the op runs: S8 and S16 (signed) or U8 and U16 (unsigned) on every
 * lane of a 64-bit word at once (below), ELEM one element at a time. */
#define ONYX__SCALAR_INT_TYPES(X)                               \
  X(INT8, s8, int8_t, i64, INT8_MIN, INT8_MAX, S8, S8)          \
  X(INT16, s16, int16_t, i64, INT16_MIN, INT16_MAX, S16, ELEM)  \
  X(INT32, s32, int32_t, i64, INT32_MIN, INT32_MAX, ELEM, ELEM) \
  X(INT64, s64, int64_t, i64, INT64_MIN, INT64_MAX, ELEM, ELEM) \
  X(UINT8, u8, uint8_t, u64, 0, UINT8_MAX, U8, U8)              \
  X(UINT16, u16, uint16_t, u64, 0, UINT16_MAX, U16, ELEM)       \
  X(UINT32, u32, uint32_t, u64, 0, UINT32_MAX, ELEM, ELEM)      \
  X(UINT64, u64, uint64_t, u64, 0, UINT64_MAX, ELEM, ELEM)

/*
 * Loading, per class, for Clip's bounds and float's and double's own
 * kernels: native floats are themselves, halves widen to float32 exactly.
 */
#define ONYX__LOAD_NATIVE(c, v) (v)
#define ONYX__ISNAN_NATIVE(v)   isnan(v)
#define ONYX__LOAD_F16(c, v)    onyx__f16_to_f32(v)
#define ONYX__ISNAN_F16(v)      isnan(v)
#define ONYX__LOAD_BF16(c, v)   onyx__bf16_to_f32(v)
#define ONYX__ISNAN_BF16(v)     isnan(v)

/*
 * Native floats. Clip is numpy's max-then-min in which a NaN operand wins and a
 * tie returns the bound: clip(-0, lo = +0) is +0, clip(+0, hi = -0) is -0,
 * lo > hi gives hi. The comparisons become branch-free selects.
 */

/* ---- The loop ------------------------------------------------------------- */

/*
 * Runs ELEM(v, &prep) over n elements of the bit type U. A kernel reads
 * element i before it writes element i and touches no other element in
 * between, so x == y (in place) works; x and y are deliberately not
 * restrict-qualified. A step does eight elements, so that the loop's
 * own increment, compare and jump cost under half an instruction per
 * element, one after the other: the compiler then keeps its constants in
 * registers (loading all eight first made gcc reload them per element). x and y may have any
 * alignment (an initializer's raw_data is used where it lies in the caller's bytes): unaligned
 * buffers go element by element through memcpy, which compilers turn into a move.
 */
#define ONYX__LOOP(U, n, x, y, ELEM, prep)                      \
  do {                                                          \
    const unsigned char *src_ = (const unsigned char *)(x);     \
    unsigned char *dst_ = (unsigned char *)(y);                 \
    size_t i_ = 0;                                              \
    if (((uintptr_t)src_ | (uintptr_t)dst_) % sizeof(U) == 0) { \
      const U *xs_ = (const U *)(const void *)src_;             \
      U *ys_ = (U *)(void *)dst_;                               \
      for (; i_ + 8 <= (n); i_ += 8) {                          \
        ys_[i_] = ELEM(xs_[i_], prep);                          \
        ys_[i_ + 1] = ELEM(xs_[i_ + 1], prep);                  \
        ys_[i_ + 2] = ELEM(xs_[i_ + 2], prep);                  \
        ys_[i_ + 3] = ELEM(xs_[i_ + 3], prep);                  \
        ys_[i_ + 4] = ELEM(xs_[i_ + 4], prep);                  \
        ys_[i_ + 5] = ELEM(xs_[i_ + 5], prep);                  \
        ys_[i_ + 6] = ELEM(xs_[i_ + 6], prep);                  \
        ys_[i_ + 7] = ELEM(xs_[i_ + 7], prep);                  \
      }                                                         \
      for (; i_ < (n); i_++) ys_[i_] = ELEM(xs_[i_], prep);     \
    } else {                                                    \
      for (; i_ < (n); i_++) {                                  \
        U v_;                                                   \
        memcpy(&v_, src_ + i_ * sizeof v_, sizeof v_);          \
        v_ = ELEM(v_, prep);                                    \
        memcpy(dst_ + i_ * sizeof v_, &v_, sizeof v_);          \
      }                                                         \
    }                                                           \
  } while (0)

/* A mask of all ones where c (0 or 1) is 1. */
#define ONYX__MASK(U, c) ((U)0 - (U)(c))
/* All ones where d, as a signed number of the type B, is negative: a
 * compare as a subtraction, which SSE2 vectorizes for 64-bit lanes where
 * it has no 64-bit compare. */
#define ONYX__NEG_MASK(B, d) ((B)0 - (B)((B)(d) >> (sizeof(B) * 8 - 1)))
/* All ones where a > b, for a and b below the top bit: where the
 * compiler vectorizes, on 64-bit values by the subtraction (double's Sign
 * 0.13 against 0.29x memcpy at 1e5 elements, ONYX_ISA=scalar, x86-64),
 * and otherwise by the compare (SSE2 has it for narrower lanes: 0.39
 * against 0.36 for the halves' Sign; scalar cores have it in one
 * instruction). */
#define ONYX__GT_MASK(U, a, b)                                                 \
  (sizeof(U) == 8 && !ONYX__PORTABLE_SWAR ? ONYX__NEG_MASK(U, (U)(b) - (U)(a)) \
                                          : ONYX__MASK(U, (a) > (b)))

/*
 * Where the compiler vectorizes a plain loop with 16 or more lanes a
 * register (x86's SSE2, ARM's NEON, WebAssembly's SIMD128), one element at
 * a time is faster than 8 lanes of a 64-bit word: Clip int8 0.35 against
 * 2.50 instructions per element, Sign int8 0.47 against 1.13 (callgrind,
 * gcc 12 -O3, x86-64). The word forms below are for targets without such
 * SIMD (riscv64 without V, s390x's baseline, 32-bit ARM without NEON, i686
 * without SSE2, Cortex-M), and for ONYX_PORTABLE_SWAR, which
 * bench/kernel_cost.sh sets to measure them on x86-64 with the vectorizer
 * off, as a stand-in for such a core.
 */
#if defined(ONYX_PORTABLE_SWAR) || \
    !(defined(__SSE2__) || defined(__ARM_NEON) || defined(__wasm_simd128__))
#define ONYX__PORTABLE_SWAR 1
#else
#define ONYX__PORTABLE_SWAR 0
#endif

/*
 * ONYX__OPAQUE (os/compiler.h) hides a value from the optimizer, so that it
 * is kept in a register: gcc otherwise loads Sign's constants 1 and -1
 * afresh for every element (8.5 instructions per element for Sign int32
 * against 6.6, gcc 12 -O3 x86-64).
 */

/*
 * c ? a : b on values of an integer type U, without a branch. RISC-V
 * (before Zicond) has no conditional move, and gcc turns ?: into a branch
 * there, so it selects with a mask, hidden from the optimizer, which
 * would otherwise recognize the select and branch again; elsewhere ?:
 * becomes a conditional move (x86, ARM, s390x), one instruction where
 * the mask takes four.
 */
#if defined(__riscv)
static inline uint64_t onyx__sel(int c, uint64_t a, uint64_t b) {
  uint64_t m = (uint64_t)0 - (uint64_t)(c != 0);
  ONYX__OPAQUE(m);
  return b ^ ((a ^ b) & m);
}
#define ONYX__SEL(U, c, a, b) ((U)onyx__sel((c), (uint64_t)(a), (uint64_t)(b)))
#else
#define ONYX__SEL(U, c, a, b) ((U)((c) ? (a) : (b)))
#endif
/*
 * v = c ? a : 0, without a branch. RISC-V masks (three instructions).
 * Elsewhere a conditional move between registers, both hidden first: gcc
 * branches where one side is a load or the constant 0, and, on the last
 * element of an unrolled loop, where path splitting is on (CMakeLists.txt
 * builds this file with -fno-split-paths). Ceil float 10.5 instructions an
 * element against 11.5 with the mask (x86-64, vectorizer off).
 */
#if defined(__riscv)
#define ONYX__SEL0(U, v, c, a) ((v) = (U)((U)(a)&ONYX__MASK(U, (c) != 0)))
#else
#define ONYX__SEL0(U, v, c, a) \
  do {                         \
    U a_ = (a), z_ = 0;        \
    ONYX__OPAQUE(a_);          \
    ONYX__OPAQUE(z_);          \
    (v) = (U)((c) ? a_ : z_);  \
  } while (0)
#endif

/* ---- float's Sign and Clip, double's Clip, in their own type ------------ */

/*
 * Sign maps both zeros to +0 and returns a NaN itself, bits included:
 * the compares become branch-free selects (SSE's cmpss, and, andn, or).
 * double's Sign compares in double where the hardware has double
 * precision and the compiler does not vectorize (15.25 against 17.5
 * instructions an element on the bit pattern, x86-64); a vectorizing
 * build runs the bit form, whose masks SSE2 vectorizes. Soft-float cores would call a library
 * routine per compare (double's on single-precision-only ones, Cortex-M4F), and RISC-V branches on
 * each float select: they run the bit forms below. So does 32-bit x86: its calling convention
 * returns a float or double on the x87 stack, and the load quiets a signalling NaN that Sign must
 * return as it is (seen with -mfpmath=sse too).
 */
#define ONYX__NATIVE_SIGN_KERNEL(tn, T)                                    \
  static inline T onyx__sign_elem_##tn(T x, const void *q) {               \
    const T s = (T)((x > 0) - (x < 0));                                    \
    (void)q;                                                               \
    return isnan(x) ? x : s;                                               \
  }                                                                        \
  static void onyx__##tn##_vsign__scalar(size_t n, const void *x, void *y, \
                                         const onyx__kparams *params) {    \
    (void)params;                                                          \
    ONYX__LOOP(T, n, x, y, onyx__sign_elem_##tn, NULL);                    \
  }
#if !defined(__riscv) && !defined(__SOFTFP__) && !defined(__i386__)
#define ONYX__FLOAT_SELECTS 1
#else
#define ONYX__FLOAT_SELECTS 0
#endif
/* Whether a 64-bit word is one register. */
#if UINTPTR_MAX > 0xffffffffu
#define ONYX__WORD_IN_REG 1
#else
#define ONYX__WORD_IN_REG 0
#endif
/* float's and double's Sign on the lanes of a 64-bit word, where the word
 * forms run and a word is one register (below). */
#define ONYX__LANES_SIGN_WIDE (ONYX__PORTABLE_SWAR && ONYX__WORD_IN_REG)
#define ONYX__NATIVE_SIGN_F32 (ONYX__FLOAT_SELECTS && !ONYX__LANES_SIGN_WIDE)
#if ONYX__FLOAT_SELECTS && (!defined(__ARM_FP) || (__ARM_FP & 8)) && ONYX__PORTABLE_SWAR && \
    !ONYX__LANES_SIGN_WIDE
#define ONYX__NATIVE_SIGN_F64 1
#else
#define ONYX__NATIVE_SIGN_F64 0
#endif
#if ONYX__NATIVE_SIGN_F32
ONYX__NATIVE_SIGN_KERNEL(f32, float)
#endif
#if ONYX__NATIVE_SIGN_F64
ONYX__NATIVE_SIGN_KERNEL(f64, double)
#endif

/* Clip's bounds as compared (lo, hi) and as returned (lo_out, hi_out):
 * a NaN bound is returned for every x but a NaN, so it compares as the
 * infinity that every other x passes. */
typedef struct onyx__fprep_f32 {
  float lo, hi, lo_out, hi_out;
} onyx__fprep_f32;
typedef struct onyx__fprep_f64 {
  double lo, hi, lo_out, hi_out;
} onyx__fprep_f64;

/*
 * Clip runs one of two loops, chosen once per call by its bounds. Where
 * neither bound is a zero or NaN, a tie between x and a bound has the same
 * bits either way, so max(lo, x) and min(hi, x) in the form "lo > x ? lo
 * : x" (which returns a NaN x, as numpy does) give the result: x86's
 * maxss and minss, one instruction each. Otherwise the selects keep
 * numpy's rules, a tie returning the bound and a NaN bound winning, as
 * branch-free compares and masks.
 */
#define ONYX__NATIVE_CLIP_KERNEL(tn, T)                                                          \
  static inline T onyx__clip_fast_##tn(T v, onyx__fprep_##tn q) {                                \
    const T t = q.lo > v ? q.lo : v;                                                             \
    return q.hi < t ? q.hi : t;                                                                  \
  }                                                                                              \
  static inline T onyx__clip_exact_##tn(T v, onyx__fprep_##tn q) {                               \
    const T t = v <= q.lo ? q.lo_out : v;                                                        \
    return t >= q.hi ? q.hi_out : t;                                                             \
  }                                                                                              \
  static void onyx__##tn##_vclip__scalar(size_t n, const void *x, void *y,                       \
                                         const onyx__kparams *params) {                          \
    const T lo = params->tn.lo, hi = params->tn.hi;                                              \
    const onyx__fprep_##tn q = {isnan(lo) ? (T)INFINITY : lo, isnan(hi) ? -(T)INFINITY : hi, lo, \
                                hi};                                                             \
    if (lo != 0 && hi != 0 && !isnan(lo) && !isnan(hi))                                          \
      ONYX__LOOP(T, n, x, y, onyx__clip_fast_##tn, q);                                           \
    else                                                                                         \
      ONYX__LOOP(T, n, x, y, onyx__clip_exact_##tn, q);                                          \
  }
ONYX__NATIVE_CLIP_KERNEL(f32, float)
ONYX__NATIVE_CLIP_KERNEL(f64, double)

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
#define ONYX__INT_CLIP_PREP(c, tmin, tmax, params, q)                         \
  do {                                                                        \
    const onyx__c_##c lo_ = (params)->c.lo, hi_ = (params)->c.hi;             \
    const onyx__c_##c tlo_ = (onyx__c_##c)(tmin), thi_ = (onyx__c_##c)(tmax); \
    if (hi_ < tlo_ || lo_ > thi_) {                                           \
      (q).lo = (q).hi = lo_ < hi_ ? lo_ : hi_;                                \
    } else {                                                                  \
      (q).lo = lo_ < tlo_ ? tlo_ : lo_;                                       \
      (q).hi = hi_ > thi_ ? thi_ : hi_;                                       \
    }                                                                         \
  } while (0)

/*
 * 32- and 64-bit integers, one element at a time, in their own type.
 * Sign is Clip to [-1, 1], two compares and two conditional moves, and
 * on unsigned types min(x, 1), one of each (lo is a known 0 there, so
 * its compare folds away).
 */
#define ONYX__SIGN_LO_i64           (-1)
#define ONYX__SIGN_LO_u64           0u
#define ONYX__SIGN_OPAQUE_LO_i64(v) ONYX__OPAQUE(v)
#define ONYX__SIGN_OPAQUE_LO_u64(v) ((void)(v))

/*
 * Sign as two compares, (v > 0) - (v < 0), or (unsigned) v != 0, where
 * that is cheaper than the Clip: on RISC-V, which sets a register from a
 * compare (sgtz, sltz, snez), and 32-bit ARM, from conditional moves after
 * one compare (int32 5.5 instructions an element on riscv64 against 13.5
 * for the masked Clip to [-1, 1], 7.6 against 8.6 on armhf,
 * bench/qemu_cost.sh); and where the compiler vectorizes, for the types
 * whose min and max the SIMD lacks. SSE2 has min and max for int16 and
 * uint8 and no 64-bit compare, so those keep the Clip there. With
 * ONYX_ISA=scalar on x86-64 (1e5 elements, x memcpy, Clip against
 * compares): int8 0.47 against 0.83, int32 0.45 against 0.95, uint16 0.73
 * against 0.92, uint32 0.76 against 0.89, uint64 0.63 against 0.69, and
 * int16 1.01 against 0.72, int64 0.48 against 0.43.
 */
/* Whether the computing class is signed. */
#define ONYX__SIGNED_i64 1
#define ONYX__SIGNED_u64 0
#if defined(__riscv) || defined(__arm__)
#define ONYX__SIGN_BY_CMP(T, c) 1
#elif ONYX__PORTABLE_SWAR
#define ONYX__SIGN_BY_CMP(T, c) 0
#elif defined(__SSE2__)
#define ONYX__SIGN_BY_CMP(T, c)                                                       \
  (!(sizeof(T) == 2 && ONYX__SIGNED_##c) && !(sizeof(T) == 1 && !ONYX__SIGNED_##c) && \
   !(sizeof(T) == 8 && ONYX__SIGNED_##c))
#else
#define ONYX__SIGN_BY_CMP(T, c) 1
#endif
#define ONYX__SIGN_CMP_i64(v) ((v > 0) - (v < 0))
#define ONYX__SIGN_CMP_u64(v) (v != 0)
#define ONYX__SIGN_BODY(T, c, v, q)                             \
  if (ONYX__SIGN_BY_CMP(T, c)) return (T)ONYX__SIGN_CMP_##c(v); \
  const T t = ONYX__SEL(T, v < (T)q.lo, (T)q.lo, v);            \
  return ONYX__SEL(T, t > (T)q.hi, (T)q.hi, t);
#define ONYX__SIGN_KERNEL_ELEM(tn, T, c, form)                                            \
  static inline T onyx__sign_##tn(T v, onyx__iprep_##c q) { ONYX__SIGN_BODY(T, c, v, q) } \
  static void onyx__##tn##_vsign__scalar(size_t n, const void *x, void *y,                \
                                         const onyx__kparams *params) {                   \
    onyx__iprep_##c q = {ONYX__SIGN_LO_##c, 1};                                           \
    (void)params;                                                                         \
    ONYX__SIGN_OPAQUE_LO_##c(q.lo);                                                       \
    ONYX__OPAQUE(q.hi);                                                                   \
    ONYX__LOOP(T, n, x, y, onyx__sign_##tn, q);                                           \
  }
/* An integer Clip kernel over its element function onyx__clip_<tn>. */
#define ONYX__CLIP_LOOP(tn, T, c, tmin, tmax)                              \
  static void onyx__##tn##_vclip__scalar(size_t n, const void *x, void *y, \
                                         const onyx__kparams *params) {    \
    onyx__iprep_##c q;                                                     \
    ONYX__INT_CLIP_PREP(c, tmin, tmax, params, q);                         \
    ONYX__LOOP(T, n, x, y, onyx__clip_##tn, &q);                           \
  }
#define ONYX__CLIP_KERNEL_ELEM(tn, T, c, tmin, tmax, form)         \
  static inline T onyx__clip_##tn(T v, const onyx__iprep_##c *q) { \
    const T lo = (T)q->lo, hi = (T)q->hi;                          \
    const T t = ONYX__SEL(T, v < lo, lo, v);                       \
    return ONYX__SEL(T, t > hi, hi, t);                            \
  }                                                                \
  ONYX__CLIP_LOOP(tn, T, c, tmin, tmax)

#if ONYX__PORTABLE_SWAR
/*
 * 8- and 16-bit integers, on the W-bit lanes of a 64-bit word: 8 or 4
 * elements per step, with no carry or borrow crossing a lane, so that the
 * lanes' order in memory (the byte order) does not matter. h is the lanes'
 * top bits. The same functions run on a lone element (the tail, or a
 * buffer not aligned to a word) as lane 0 of a word. Clip on 16-bit lanes
 * (4 a word) costs more than one element at a time with conditional moves,
 * so only Sign uses them.
 */
/* A lane's all-ones, its lowest and its top bits on every lane, for lanes
 * of W bits, 64 (one lane) included. */
#define ONYX__LANE_MAX(W)  ((UINT64_C(2) << ((W)-1)) - 1u)
#define ONYX__LANE_ONES(W) (UINT64_MAX / ONYX__LANE_MAX(W))
#define ONYX__LANE_TOP(W)  (ONYX__LANE_ONES(W) << ((W)-1))

/* The lanes' top bits where a lane is not zero. */
static inline uint64_t onyx__lanes_nonzero(uint64_t x, uint64_t h) {
  return (((x & ~h) + ~h) | x) & h;
}
/* The lanes' top bits where a >= b, as unsigned lanes or (s) signed
 * ones: the low bits compare by the borrow into the top bit of
 * (a | h) - (b & ~h), which cannot cross into the next lane, and the top
 * bits decide where they differ. */
static inline uint64_t onyx__lanes_ge(uint64_t a, uint64_t b, uint64_t h, int s) {
  const uint64_t d = (a | h) - (b & ~h);
  return ((s ? ~a & b : a & ~b) | (~(a ^ b) & d)) & h;
}
/* max(a, b) per lane of w bits: the top bits g where a >= b spread to
 * whole-lane masks to select. */
static inline uint64_t onyx__lanes_max(uint64_t a, uint64_t b, unsigned w, int s) {
  const uint64_t h = (UINT64_MAX / ((UINT64_C(1) << w) - 1u)) << (w - 1);
  const uint64_t g = onyx__lanes_ge(a, b, h, s);
  return b ^ ((a ^ b) & ((g >> (w - 1)) * ((UINT64_C(1) << w) - 1u)));
}

/* Clip's bounds on every lane, hi complemented: min(t, hi) is
 * ~max(~t, ~hi), signed or unsigned, since ~ reverses either order. */
typedef struct onyx__lanes_clip {
  uint64_t lo, nhi;
} onyx__lanes_clip;

/* X(form, lane bits, signed): Sign on every form, Clip on the 8-bit ones
 * (the 16-bit Clip runs element by element: no unused lane code, which
 * clang's -Wunused-function rejects). */
#define ONYX__SWAR_SIGN_FORMS(X) X(S8, 8, 1) X(S16, 16, 1) X(U8, 8, 0) X(U16, 16, 0)
#define ONYX__SWAR_CLIP_FORMS(X) X(S8, 8, 1) X(U8, 8, 0)

#define ONYX__SWAR_SIGN_FORM(form, W, S)                              \
  static inline uint64_t onyx__lanes_sign_##form(uint64_t x, int q) { \
    const uint64_t h = ONYX__LANE_TOP(W);                             \
    (void)q;                                                          \
    return (onyx__lanes_nonzero(x, h) >> ((W)-1)) |                   \
           (S ? ((x & h) >> ((W)-1)) * ONYX__LANE_MAX(W) : 0);        \
  }
#define ONYX__SWAR_CLIP_FORM(form, W, S)                                                      \
  static inline uint64_t onyx__lanes_clip_##form(uint64_t x, onyx__lanes_clip q) {            \
    return ~onyx__lanes_max(~onyx__lanes_max(x, q.lo, W, S), q.nhi, W, S);                    \
  }                                                                                           \
  static inline void onyx__lanes_prep_##form(uint64_t lo, uint64_t hi, onyx__lanes_clip *l) { \
    l->lo = (lo & ONYX__LANE_MAX(W)) * ONYX__LANE_ONES(W);                                    \
    l->nhi = ~((hi & ONYX__LANE_MAX(W)) * ONYX__LANE_ONES(W));                                \
  }
ONYX__SWAR_SIGN_FORMS(ONYX__SWAR_SIGN_FORM)
ONYX__SWAR_CLIP_FORMS(ONYX__SWAR_CLIP_FORM)

/*
 * Runs ELEM(word, prep) over n elements of the type T, a word of 8 bytes
 * at a time where x and y are both aligned to one, and element by element
 * (as lane 0) otherwise and for the tail. In place works as for
 * ONYX__LOOP.
 */
#define ONYX__SWAR_LOOP(T, n, x, y, ELEM, prep)                        \
  do {                                                                 \
    const unsigned char *src_ = (const unsigned char *)(x);            \
    unsigned char *dst_ = (unsigned char *)(y);                        \
    const size_t per_ = sizeof(uint64_t) / sizeof(T);                  \
    size_t i_ = 0;                                                     \
    if (((uintptr_t)src_ | (uintptr_t)dst_) % sizeof(uint64_t) == 0) { \
      const uint64_t *xs_ = (const uint64_t *)(const void *)src_;      \
      uint64_t *ys_ = (uint64_t *)(void *)dst_;                        \
      const size_t words_ = (n) / per_;                                \
      size_t w_ = 0;                                                   \
      for (; w_ + 2 <= words_; w_ += 2) {                              \
        const uint64_t a0_ = xs_[w_], a1_ = xs_[w_ + 1];               \
        ys_[w_] = ELEM(a0_, prep);                                     \
        ys_[w_ + 1] = ELEM(a1_, prep);                                 \
      }                                                                \
      for (; w_ < words_; w_++) ys_[w_] = ELEM(xs_[w_], prep);         \
      i_ = words_ * per_;                                              \
    }                                                                  \
    for (; i_ < (n); i_++) {                                           \
      T v_;                                                            \
      memcpy(&v_, src_ + i_ * sizeof v_, sizeof v_);                   \
      v_ = (T)ELEM((uint64_t)(onyx__lane_bits_##T)v_, prep);           \
      memcpy(dst_ + i_ * sizeof v_, &v_, sizeof v_);                   \
    }                                                                  \
  } while (0)
/* An element's bits, zero-extended into lane 0. */
typedef uint8_t onyx__lane_bits_int8_t;
typedef uint8_t onyx__lane_bits_uint8_t;
typedef uint16_t onyx__lane_bits_int16_t;
typedef uint16_t onyx__lane_bits_uint16_t;
typedef uint32_t onyx__lane_bits_uint32_t;
typedef uint64_t onyx__lane_bits_uint64_t;

#define ONYX__SIGN_KERNEL_SWAR(tn, T, c, form)                             \
  static void onyx__##tn##_vsign__scalar(size_t n, const void *x, void *y, \
                                         const onyx__kparams *params) {    \
    (void)params;                                                          \
    ONYX__SWAR_LOOP(T, n, x, y, onyx__lanes_sign_##form, 0);               \
  }
#define ONYX__CLIP_KERNEL_SWAR(tn, T, c, tmin, tmax, form)                 \
  static void onyx__##tn##_vclip__scalar(size_t n, const void *x, void *y, \
                                         const onyx__kparams *params) {    \
    onyx__iprep_##c q;                                                     \
    onyx__lanes_clip l;                                                    \
    ONYX__INT_CLIP_PREP(c, tmin, tmax, params, q);                         \
    onyx__lanes_prep_##form((uint64_t)q.lo, (uint64_t)q.hi, &l);           \
    ONYX__SWAR_LOOP(T, n, x, y, onyx__lanes_clip_##form, l);               \
  }

/* Each form's generators: the words where they pay (above), else one
 * element at a time. */
#define ONYX__SIGN_KERNEL_S8  ONYX__SIGN_KERNEL_SWAR
#define ONYX__SIGN_KERNEL_S16 ONYX__SIGN_KERNEL_SWAR
#define ONYX__SIGN_KERNEL_U8  ONYX__SIGN_KERNEL_SWAR
#define ONYX__SIGN_KERNEL_U16 ONYX__SIGN_KERNEL_SWAR
#define ONYX__CLIP_KERNEL_S8  ONYX__CLIP_KERNEL_SWAR
#define ONYX__CLIP_KERNEL_U8  ONYX__CLIP_KERNEL_SWAR
#else
#define ONYX__SIGN_KERNEL_S8  ONYX__SIGN_KERNEL_ELEM
#define ONYX__SIGN_KERNEL_S16 ONYX__SIGN_KERNEL_ELEM
#define ONYX__SIGN_KERNEL_U8  ONYX__SIGN_KERNEL_ELEM
#define ONYX__SIGN_KERNEL_U16 ONYX__SIGN_KERNEL_ELEM
#if defined(__SSE2__)
/*
 * int8 where SSE2 vectorizes: it has the unsigned byte min and max
 * (pminub, pmaxub) and no signed ones, which gcc emulates with compares
 * and masks, so the bytes clip as unsigned with their top bits flipped,
 * which maps int8's order onto uint8's: 0.47x memcpy against 0.75x at
 * 1e5 elements, ONYX_ISA=scalar, x86-64.
 */
#define ONYX__CLIP_KERNEL_S8(tn, T, c, tmin, tmax, form)           \
  static inline T onyx__clip_##tn(T v, const onyx__iprep_##c *q) { \
    const uint8_t lo = (uint8_t)((uint8_t)q->lo ^ 0x80u);          \
    const uint8_t hi = (uint8_t)((uint8_t)q->hi ^ 0x80u);          \
    uint8_t b = (uint8_t)((uint8_t)v ^ 0x80u);                     \
    b = b < lo ? lo : b;                                           \
    b = b > hi ? hi : b;                                           \
    return (T)(uint8_t)(b ^ 0x80u);                                \
  }                                                                \
  ONYX__CLIP_LOOP(tn, T, c, tmin, tmax)
#else
#define ONYX__CLIP_KERNEL_S8 ONYX__CLIP_KERNEL_ELEM
#endif
#define ONYX__CLIP_KERNEL_U8 ONYX__CLIP_KERNEL_ELEM
#endif
#define ONYX__INT_KERNELS(NAME, tn, T, c, tmin, tmax, sform, cform) \
  ONYX__SIGN_KERNEL_##sform(tn, T, c, sform) ONYX__CLIP_KERNEL_##cform(tn, T, c, tmin, tmax, cform)
ONYX__SCALAR_INT_TYPES(ONYX__INT_KERNELS)

/* ---- Ceil and Floor on bit patterns ---------------------------------------- */

/*
 * float16, bfloat16 and float round on the pattern u. For its exponent e,
 * m masks the fraction bits (every bit but the sign where |x| < 1, none
 * from 2^M on) and f = u & m is the fraction: u ^ f truncates toward
 * zero, and where f is not zero and the sign is the rounding direction's,
 * adding an increment rounds away from zero, by one unit of the lowest
 * integer bit (m + 1, whose carry into the exponent is right) or to 1.0
 * where |x| < 1. A NaN comes back with its quiet bit set, as numpy's ceil
 * and floor give it; infinity comes back as it was.
 */
#define ONYX__RND_M(U, MB, BIAS, e)                  \
  ((e) < (BIAS) ? (U) ~((U)1 << (sizeof(U) * 8 - 1)) \
   : (e) >= (BIAS) + (MB)                            \
       ? (U)0                                        \
       : (U)((((U)1 << (MB)) - 1u) >> (((e) - (BIAS)) & (sizeof(U) > 4 ? 63 : 31))))

/*
 * A build for size (-Os, -Oz: the page's wasm module) and a bare-metal
 * build (microcontroller firmware, whatever its -O) compute m and the
 * increment from the exponent, so that no tables ride along: a Cortex-M3
 * firmware that runs one Ceil on float would spend 16 KiB, its whole 16 KB
 * budget, on float Ceil's table. Other builds look the rounding up (below).
 * ONYX_RND_TABLES=0 or 1 chooses either way (tests/check_rnd_forms.c
 * compares the two on every pattern).
 */
#ifndef ONYX_RND_TABLES
#if defined(__OPTIMIZE_SIZE__) || defined(ONYX_PLATFORM_NONE)
#define ONYX_RND_TABLES 0
#else
#define ONYX_RND_TABLES 1
#endif
#endif
/* The arithmetic form below; float.h's FLT_EVAL_METHOD tells. */
#ifndef ONYX_RND_ARITH
#if !ONYX__PORTABLE_SWAR && defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define ONYX_RND_ARITH 1
#else
#define ONYX_RND_ARITH 0
#endif
#endif

/* Runs a format's Ceil and Floor element functions over the buffer. */
#define ONYX__RND_LOOP(tn, U)                                               \
  static void onyx__##tn##_vceil__scalar(size_t n, const void *x, void *y,  \
                                         const onyx__kparams *params) {     \
    (void)params;                                                           \
    ONYX__LOOP(U, n, x, y, onyx__ceil_bits_##tn, NULL);                     \
  }                                                                         \
  static void onyx__##tn##_vfloor__scalar(size_t n, const void *x, void *y, \
                                          const onyx__kparams *params) {    \
    (void)params;                                                           \
    ONYX__LOOP(U, n, x, y, onyx__floor_bits_##tn, NULL);                    \
  }

#if ONYX_RND_TABLES
/*
 * The tables hold the rounding per class of patterns, named by the top
 * bits of u - 1 (sign, exponent and the fraction's top bit): the result
 * is ((u + add) & keep) * mul | set, an entry's four fields, with no
 * select. A class k holds the patterns from k * 2^(M-1) + 1 up to
 * (k + 1) * 2^(M-1) (M the mantissa bits, wrapping): each zero falls in
 * the class of the other sign's quiet NaNs, which keeps both as they are;
 * infinity falls below the signalling NaNs, which set the quiet bit; and
 * the top of a class is either inside its exponent or the next power of
 * two, which every rounding keeps. So for an exponent with a fraction
 * mask m, the direction's side (positive for Ceil) adds m and keeps ~m,
 * and the other side only keeps ~m. Where |x| < 1 the direction's side
 * sets 1.0 with its sign (keep 0) and the other keeps the sign alone,
 * except in the class whose top is 1.0 there (-1.0 for Ceil): it keeps
 * the sign and the exponent's low bit, which only 1.0 has, and mul (the
 * bias, odd) makes of that bit 1.0's exponent and leaves the sign.
 * Ceil float 8.5 instructions an element and the halves 9.5, against 10.5
 * and 11.5 for a conditional increment (x86-64, vectorizer off,
 * bench/kernel_cost.sh). The arrays take 2 KiB (float16), 16 KiB
 * (bfloat16) and 32 KiB (float) for both directions; four arrays rather
 * than an array of entries, so that an index needs no multiply.
 *   ONYX__RND_<field>(bit type, mantissa bits, largest exponent,
 *                     exponent bits, quiet bit, bias, one, direction, k)
 * where the direction is the sign that rounds away from zero (0 Ceil).
 */
#define ONYX__RND_E(EMAX, k)        (((unsigned)(k) >> 1) & (EMAX))
#define ONYX__RND_H(k)              ((unsigned)(k)&1u)
#define ONYX__RND_SIDE(EB, dir, k)  (((unsigned)(k) >> ((EB) + 1)) == (dir))
#define ONYX__RND_SIGN(U)           ((U)((U)1 << (sizeof(U) * 8 - 1)))
#define ONYX__RND_BOUND(BIAS, E, H) ((E) == (BIAS)-1u && (H))
#define ONYX__RND_ADD(U, MB, EMAX, EB, QUIET, BIAS, ONE, dir, k)                                  \
  (ONYX__RND_E(EMAX, k) == (EMAX) || ONYX__RND_E(EMAX, k) < (BIAS) || !ONYX__RND_SIDE(EB, dir, k) \
       ? (U)0                                                                                     \
       : ONYX__RND_M(U, MB, BIAS, ONYX__RND_E(EMAX, k)))
#define ONYX__RND_KEEP(U, MB, EMAX, EB, QUIET, BIAS, ONE, dir, k)                        \
  (ONYX__RND_E(EMAX, k) == (EMAX)   ? (U) ~(U)0                                          \
   : ONYX__RND_E(EMAX, k) >= (BIAS) ? (U)~ONYX__RND_M(U, MB, BIAS, ONYX__RND_E(EMAX, k)) \
   : ONYX__RND_SIDE(EB, dir, k)     ? (U)0                                               \
   : ONYX__RND_BOUND(BIAS, ONYX__RND_E(EMAX, k), ONYX__RND_H(k))                         \
       ? (U)(ONYX__RND_SIGN(U) | (U)((U)1 << (MB)))                                      \
       : ONYX__RND_SIGN(U))
#define ONYX__RND_MUL(U, MB, EMAX, EB, QUIET, BIAS, ONE, dir, k)                              \
  (ONYX__RND_BOUND(BIAS, ONYX__RND_E(EMAX, k), ONYX__RND_H(k)) && !ONYX__RND_SIDE(EB, dir, k) \
       ? (U)((U)(ONE) >> (MB))                                                                \
       : (U)1)
#define ONYX__RND_SET(U, MB, EMAX, EB, QUIET, BIAS, ONE, dir, k)                  \
  (ONYX__RND_E(EMAX, k) == (EMAX) ? (ONYX__RND_H(k) ? (U)0 : (U)(QUIET))          \
   : ONYX__RND_E(EMAX, k) < (BIAS) && ONYX__RND_SIDE(EB, dir, k)                  \
       ? (U)((U)(ONE) | ((unsigned)(k) >> ((EB) + 1) ? ONYX__RND_SIGN(U) : (U)0)) \
       : (U)0)
/* The fields of each direction's arrays: C for Ceil, F for Floor. */
#define ONYX__RND_CADD(...)  ONYX__RND_ADD(__VA_ARGS__)
#define ONYX__RND_CKEEP(...) ONYX__RND_KEEP(__VA_ARGS__)
#define ONYX__RND_CMUL(...)  ONYX__RND_MUL(__VA_ARGS__)
#define ONYX__RND_CSET(...)  ONYX__RND_SET(__VA_ARGS__)
#define ONYX__RND_FADD(...)  ONYX__RND_ADD(__VA_ARGS__)
#define ONYX__RND_FKEEP(...) ONYX__RND_KEEP(__VA_ARGS__)
#define ONYX__RND_FMUL(...)  ONYX__RND_MUL(__VA_ARGS__)
#define ONYX__RND_FSET(...)  ONYX__RND_SET(__VA_ARGS__)
/* One entry of a format's array `field` (CADD ... FSET), for class k. */
#define ONYX__RND_ENTRY(field, ...) ONYX__RND_##field(__VA_ARGS__)
#define ONYX__F16_RND(field, k) \
  ONYX__RND_ENTRY(field, uint16_t, 10, 31u, 5, 0x0200u, 15, 0x3c00u, ONYX__RND_DIR_OF(field), k),
#define ONYX__BF16_RND(field, k) \
  ONYX__RND_ENTRY(field, uint16_t, 7, 255u, 8, 0x0040u, 127, 0x3f80u, ONYX__RND_DIR_OF(field), k),
#define ONYX__F32_RND(field, k)                                                \
  ONYX__RND_ENTRY(field, uint32_t, 23, 255u, 8, 0x00400000u, 127, 0x3f800000u, \
                  ONYX__RND_DIR_OF(field), k),
/* A field's direction, from its first letter's array name. */
#define ONYX__RND_DIR_OF(field) ONYX__RND_DIR_##field
#define ONYX__RND_DIR_CADD      0u
#define ONYX__RND_DIR_CKEEP     0u
#define ONYX__RND_DIR_CMUL      0u
#define ONYX__RND_DIR_CSET      0u
#define ONYX__RND_DIR_FADD      1u
#define ONYX__RND_DIR_FKEEP     1u
#define ONYX__RND_DIR_FMUL      1u
#define ONYX__RND_DIR_FSET      1u
#define ONYX__R2(F, a, b)       F(a, b) F(a, (b) + 1)
#define ONYX__R8(F, a, b) \
  ONYX__R2(F, a, b) ONYX__R2(F, a, (b) + 2) ONYX__R2(F, a, (b) + 4) ONYX__R2(F, a, (b) + 6)
#define ONYX__R32(F, a, b) \
  ONYX__R8(F, a, b) ONYX__R8(F, a, (b) + 8) ONYX__R8(F, a, (b) + 16) ONYX__R8(F, a, (b) + 24)
#define ONYX__R64(F, a, b)  ONYX__R32(F, a, b) ONYX__R32(F, a, (b) + 32)
#define ONYX__R128(F, a, b) ONYX__R64(F, a, b) ONYX__R64(F, a, (b) + 64)
#define ONYX__R512(F, a, b) \
  ONYX__R128(F, a, b)       \
  ONYX__R128(F, a, (b) + 128) ONYX__R128(F, a, (b) + 256) ONYX__R128(F, a, (b) + 384)
#define ONYX__R1024(F, a, b) ONYX__R512(F, a, b) ONYX__R512(F, a, (b) + 512)
#define ONYX__R4096(F, a, b)    \
  ONYX__R1024(F, a, b)          \
  ONYX__R1024(F, a, (b) + 1024) \
  ONYX__R1024(F, a, (b) + 2048) ONYX__R1024(F, a, (b) + 3072)
#define ONYX__R8192(F, a, b) ONYX__R4096(F, a, b) ONYX__R4096(F, a, (b) + 4096)
/* A format's arrays, one set a direction: (short name, bit type,
 * entries, entry macro, repeat macro). */
#define ONYX__RND_TABLE_DEF(tn, U, N, E, R)                                 \
  typedef struct onyx__rnd_##tn##_t {                                       \
    U add[N], keep[N], mul[N], set[N];                                      \
  } onyx__rnd_##tn##_t;                                                     \
  static const onyx__rnd_##tn##_t onyx__rnd_ceil_##tn = {                   \
      {R(E, CADD, 0)}, {R(E, CKEEP, 0)}, {R(E, CMUL, 0)}, {R(E, CSET, 0)}}; \
  static const onyx__rnd_##tn##_t onyx__rnd_floor_##tn = {                  \
      {R(E, FADD, 0)}, {R(E, FKEEP, 0)}, {R(E, FMUL, 0)}, {R(E, FSET, 0)}};
/* The element function of one direction (op: ceil or floor). RISC-V has
 * no indexed addressing, so it reads the fields at fixed offsets from the
 * entry's one address, hidden from the optimizer, which would otherwise
 * split it into one base per array again. Elsewhere an array and a scaled
 * index are one operand (x86's base + index * 4, ARM's register offset
 * with a shift), and the one address would cost an instruction more. */
#if defined(__riscv)
#define ONYX__RND_AT(tab, U, i) ((const unsigned char *)&(tab) + (i) * sizeof(U))
#define ONYX__RND_HIDE(at)      ONYX__OPAQUE(at)
#define ONYX__RND_AT_TYPE       const unsigned char *
#define ONYX__RND_FIELD(tab, tn, U, at, field) \
  (*(const U *)(const void *)((at) + offsetof(onyx__rnd_##tn##_t, field)))
#else
#define ONYX__RND_AT(tab, U, i)                (i)
#define ONYX__RND_HIDE(at)                     ((void)0)
#define ONYX__RND_AT_TYPE                      const size_t
#define ONYX__RND_FIELD(tab, tn, U, at, field) ((tab).field[at])
#endif
/* ix: the entry's index, an expression of the pattern u. The multiply is
 * unsigned whatever U promotes to. */
#define ONYX__RND_TABLE_BITS(tn, U, ix, op)                                           \
  static inline U onyx__##op##_bits_##tn(U u, const void *q) {                        \
    ONYX__RND_AT_TYPE at = ONYX__RND_AT(onyx__rnd_##op##_##tn, U, (size_t)(ix));      \
    ONYX__RND_HIDE(at);                                                               \
    const U k = (U)((U)(u + ONYX__RND_FIELD(onyx__rnd_##op##_##tn, tn, U, at, add)) & \
                    ONYX__RND_FIELD(onyx__rnd_##op##_##tn, tn, U, at, keep));         \
    (void)q;                                                                          \
    return (U)((U)(1u * k * ONYX__RND_FIELD(onyx__rnd_##op##_##tn, tn, U, at, mul)) | \
               ONYX__RND_FIELD(onyx__rnd_##op##_##tn, tn, U, at, set));               \
  }
/* The class of u: the top bits of u - 1, in U's width. */
#define ONYX__RND_CLASS(U, MB) ((U)(u - 1u) >> ((MB)-1))
/* X(short name, bit type, mantissa bits, largest exponent, entries,
 * entry macro, repeat macro) */
#define ONYX__RND_TABLE_KERNELS(tn, U, MB, EMAX, N, E, R)    \
  ONYX__RND_TABLE_DEF(tn, U, N, E, R)                        \
  ONYX__RND_TABLE_BITS(tn, U, ONYX__RND_CLASS(U, MB), ceil)  \
  ONYX__RND_TABLE_BITS(tn, U, ONYX__RND_CLASS(U, MB), floor) \
  ONYX__RND_LOOP(tn, U)
#define ONYX__RND_TABLE_F16(X)  X(f16, uint16_t, 10, 31u, 128, ONYX__F16_RND, ONYX__R128)
#define ONYX__RND_TABLE_BF16(X) X(bf16, uint16_t, 7, 255u, 1024, ONYX__BF16_RND, ONYX__R1024)
#define ONYX__RND_TABLE_F32(X)  X(f32, uint32_t, 23, 255u, 1024, ONYX__F32_RND, ONYX__R1024)
#else
/* The same rounding computed from the exponent, one element at a time.
 *   X(short name, bit type, mantissa bits, largest exponent, infinity,
 *     quiet bit, exponent bias, one) */
#define ONYX__RND_FORMATS(X)                                 \
  X(f16, uint16_t, 10, 31u, 0x7c00u, 0x0200u, 15, 0x3c00u)   \
  X(bf16, uint16_t, 7, 255u, 0x7f80u, 0x0040u, 127, 0x3f80u) \
  X(f32, uint32_t, 23, 255u, 0x7f800000u, 0x00400000u, 127, 0x3f800000u)
#define ONYX__RND_KERNEL(tn, U, MB, EMAX, INF, QUIET, BIAS, ONE, op, neg)               \
  static inline U onyx__##op##_bits_##tn(U u, const void *q) {                          \
    const unsigned e = (unsigned)((u >> (MB)) & (EMAX));                                \
    const U m = ONYX__RND_M(U, MB, BIAS, e), inc = e < (BIAS) ? (U)(ONE) : (U)(m + 1u); \
    const U f = (U)(u & m), sign = (U)(u >> (sizeof(U) * 8 - 1));                       \
    const U r = (U)((U)(u ^ f) + (U)(inc & ONYX__MASK(U, (f != 0) & (sign == (neg))))); \
    const U a = (U)(u & (U)((U)(INF) | (U)((U)(INF)-1u)));                              \
    (void)q;                                                                            \
    return (U)(r | (U)((QUIET)&ONYX__MASK(U, a > (U)(INF))));                           \
  }
#define ONYX__RND_KERNELS(tn, U, MB, EMAX, INF, QUIET, BIAS, ONE)     \
  ONYX__RND_KERNEL(tn, U, MB, EMAX, INF, QUIET, BIAS, ONE, ceil, 0u)  \
  ONYX__RND_KERNEL(tn, U, MB, EMAX, INF, QUIET, BIAS, ONE, floor, 1u) \
  ONYX__RND_LOOP(tn, U)
#endif

/*
 * Where the compiler vectorizes (no word forms: SSE2, NEON, SIMD128) and
 * computes floats in their own type (FLT_EVAL_METHOD 0: not x87), float,
 * bfloat16 and double round by arithmetic instead, which vectorizes where
 * the table lookup (a gather) does not: Ceil float 7.4 GB/s with the
 * table, ONYX_ISA=scalar, 1e5 elements, x86-64. ONYX_RND_ARITH=0 or 1
 * chooses (tests/check_rnd_forms.c compares the forms on every pattern).
 * For |x| < 2^M (M the mantissa bits), (x + c) - c with c = 2^M carrying
 * x's sign is x rounded to an integer in the default rounding mode (which
 * onyx's float kernels assume, as they assume no flush to zero), and one
 * step up where that lies below x gives Ceil; x's sign (ceil(-0.5) is -0)
 * completes it. Floor is -ceil(-x), on the sign bit. Any other x (from
 * 2^M on, infinity, NaN) enters the arithmetic as 0 and comes out as
 * itself, a NaN quieted, on its bits, so no float operation sees a NaN.
 * The masks come from integer subtractions, which SSE2 vectorizes for
 * 64-bit lanes where it has no 64-bit compare. bfloat16 runs float's
 * arithmetic on its upper half: the results are bfloat16 values, so the
 * low half stays zero.
 */
/* double's bit patterns: sign, fraction, infinity, 1.0, quiet bit, 2^52. */
#define ONYX__F64_SIGN  UINT64_C(0x8000000000000000)
#define ONYX__F64_FRAC  UINT64_C(0x000fffffffffffff)
#define ONYX__F64_INF   UINT64_C(0x7ff0000000000000)
#define ONYX__F64_ONE   UINT64_C(0x3ff0000000000000)
#define ONYX__F64_QUIET UINT64_C(0x0008000000000000)
#define ONYX__F64_2P52  UINT64_C(0x4330000000000000)
#if ONYX_RND_ARITH
/* X(short name, float type, bit type, sign, 2^M, infinity, quiet bit) */
#define ONYX__RND_ARITH_FORMATS(X)                                            \
  X(f32, float, uint32_t, 0x80000000u, 0x4b000000u, 0x7f800000u, 0x00400000u) \
  X(f64, double, uint64_t, ONYX__F64_SIGN, ONYX__F64_2P52, ONYX__F64_INF, ONYX__F64_QUIET)
#define ONYX__RND_ARITH_CEIL(tn, F, B, S, BIG, INF, QUIET)     \
  static inline B onyx__ceil_arith_##tn(B u) {                 \
    const B ab = u & (B) ~(B)(S);                              \
    const B small = ONYX__NEG_MASK(B, ab - (B)(BIG));          \
    const B nan = ONYX__NEG_MASK(B, (B)(INF)-ab);              \
    const B w = u & small, cb = (B)(BIG) | (u & (B)(S));       \
    F v, c, r;                                                 \
    B rb;                                                      \
    memcpy(&v, &w, sizeof v);                                  \
    memcpy(&c, &cb, sizeof c);                                 \
    r = (v + c) - c;                                           \
    r = r + (r < v ? (F)1 : (F)0);                             \
    memcpy(&rb, &r, sizeof rb);                                \
    return rb | (u & (B)(~small | (B)(S))) | ((B)(QUIET)&nan); \
  }                                                            \
  static inline B onyx__ceil_bits_##tn(B u, const void *q) {   \
    (void)q;                                                   \
    return onyx__ceil_arith_##tn(u);                           \
  }                                                            \
  static inline B onyx__floor_bits_##tn(B u, const void *q) {  \
    (void)q;                                                   \
    return onyx__ceil_arith_##tn(u ^ (B)(S)) ^ (B)(S);         \
  }
ONYX__RND_ARITH_FORMATS(ONYX__RND_ARITH_CEIL)
/* bfloat16 as float's upper half. */
static inline uint16_t onyx__ceil_bits_bf16(uint16_t u, const void *q) {
  return (uint16_t)(onyx__ceil_bits_f32((uint32_t)u << 16, q) >> 16);
}
static inline uint16_t onyx__floor_bits_bf16(uint16_t u, const void *q) {
  return (uint16_t)(onyx__floor_bits_f32((uint32_t)u << 16, q) >> 16);
}
ONYX__RND_LOOP(f32, uint32_t)
ONYX__RND_LOOP(f64, uint64_t)
ONYX__RND_LOOP(bf16, uint16_t)
/* float16 keeps its table: its halves would widen through float32. */
#if ONYX_RND_TABLES
ONYX__RND_TABLE_F16(ONYX__RND_TABLE_KERNELS)
#else
ONYX__RND_KERNELS(f16, uint16_t, 10, 31u, 0x7c00u, 0x0200u, 15, 0x3c00u)
#endif
#elif ONYX_RND_TABLES
ONYX__RND_TABLE_F16(ONYX__RND_TABLE_KERNELS)
ONYX__RND_TABLE_BF16(ONYX__RND_TABLE_KERNELS)
ONYX__RND_TABLE_F32(ONYX__RND_TABLE_KERNELS)
#else
ONYX__RND_FORMATS(ONYX__RND_KERNELS)
#endif

/* ---- double Ceil and Floor on bit patterns --------------------------------- */

/*
 * The same rounding as above, where double does not round by arithmetic:
 * e < 1023 is |x| < 1; a NaN keeps its pattern, quieted.
 */
#if !ONYX_RND_ARITH && ONYX_RND_TABLES
/*
 * Where the build has tables, double's are float's form (above) with one
 * more step: its 8,192 classes (the top 13 bits of u - 1) fall into 57 a
 * sign (|x| < 1; the class whose top is 1.0; the 52 exponents with a
 * fraction; whole numbers; the signalling and the quiet NaNs' halves), and
 * a byte per class names its entry. One entry per class would take 256
 * KiB; the entries take 4 KiB a direction and the names 8 KiB. 9.5
 * instructions an element against 11.5 for a conditional increment and
 * 34.5 computed (x86-64, vectorizer off).
 */
/* The entry c of a class k's exponent e and fraction top bit h, and a k
 * of entry c (of the 64 a sign has room for, 57 to 63 are unused: the
 * quiet NaNs' entry fills them). */
#define ONYX__F64_CLS(e, h)                          \
  ((e) < 1022u || ((e) == 1022u && !(h)) ? 0u        \
   : (e) == 1022u                        ? 1u        \
   : (e) < 1075u                         ? (e)-1021u \
   : (e) < 2047u                         ? 54u       \
                                         : 55u + (h))
#define ONYX__F64_REP(c)             \
  ((c) == 0u    ? 0u                 \
   : (c) == 1u  ? (1022u << 1) | 1u  \
   : (c) <= 53u ? ((c) + 1021u) << 1 \
   : (c) == 54u ? 1075u << 1         \
   : (c) == 55u ? 2047u << 1         \
                : (2047u << 1) | 1u)
#define ONYX__F64_CLASS_OF(a, k)                 \
  (unsigned char)((((unsigned)(k) >> 12) << 6) | \
                  ONYX__F64_CLS(((unsigned)(k) >> 1) & 2047u, (unsigned)(k)&1u)),
static const unsigned char onyx__rnd_f64_class[8192] = {ONYX__R8192(ONYX__F64_CLASS_OF, 0, 0)};
#define ONYX__F64_RND(field, c)                                                         \
  ONYX__RND_ENTRY(field, uint64_t, 52, 2047u, 11, ONYX__F64_QUIET, 1023, ONYX__F64_ONE, \
                  ONYX__RND_DIR_OF(field),                                              \
                  (((unsigned)(c) >> 6) << 12) | ONYX__F64_REP((unsigned)(c)&63u)),
ONYX__RND_TABLE_DEF(f64, uint64_t, 128, ONYX__F64_RND, ONYX__R128)
ONYX__RND_TABLE_BITS(f64, uint64_t, onyx__rnd_f64_class[ONYX__RND_CLASS(uint64_t, 52)], ceil)
ONYX__RND_TABLE_BITS(f64, uint64_t, onyx__rnd_f64_class[ONYX__RND_CLASS(uint64_t, 52)], floor)
ONYX__RND_LOOP(f64, uint64_t)
#elif !ONYX_RND_ARITH
/* Without tables (a build for size, firmware), the fraction mask and the
 * increment are computed. */
#if (defined(__LP64__) || defined(_WIN64) || defined(__wasm__)) && !defined(__SOFTFP__)
/*
 * Where the hardware has double precision and converts it to and from
 * int64 in one instruction (64-bit targets; 32-bit ARM and x86 call a
 * library routine for each conversion), double rounds through int64:
 * for |x| < 2^52, t = (double)(int64_t)x truncates toward zero, one step
 * (neg ? -1 : +1) where t is on the wrong side of x rounds it, and the
 * result takes x's sign (ceil(-0.5) is -0). From 2^52 on x is its own
 * result, a NaN quieted on its bits; such an x is converted as 0 (its
 * conversion would be undefined). Every select is a mask on the bits, so
 * no float operation sees a NaN, and its payload cannot depend on the
 * hardware. 34.5 instructions an element against 44.5 (x86-64).
 */
static inline uint64_t onyx__round_bits_f64(uint64_t u, uint64_t neg) {
  const uint64_t a = u & ~ONYX__F64_SIGN;
  const uint64_t part = ONYX__MASK(uint64_t, a < ONYX__F64_2P52), v = u & part;
  double xs, t, step;
  uint64_t r, s;
  memcpy(&xs, &v, sizeof xs);
  t = (double)(int64_t)xs;
  s = (neg ? ONYX__F64_SIGN | ONYX__F64_ONE : ONYX__F64_ONE) &
      ONYX__MASK(uint64_t, neg ? t > xs : t < xs);
  memcpy(&step, &s, sizeof step);
  t += step;
  memcpy(&r, &t, sizeof r);
  r |= u & ONYX__F64_SIGN;
  s = u | (ONYX__F64_QUIET & ONYX__MASK(uint64_t, a > ONYX__F64_INF));
  return (r & part) | (s & ~part);
}
#else
static inline uint64_t onyx__round_bits_f64(uint64_t u, uint64_t neg) {
  const uint64_t e = (u >> 52) & 0x7ffu;
  const uint64_t small = ONYX__MASK(uint64_t, e < 1023u);
  /* From 2^52 on (infinity and NaN too) there is no fraction. */
  const uint64_t whole = ONYX__MASK(uint64_t, e >= 1075u);
  const uint64_t part = ONYX__F64_FRAC >> ((e - 1023u) & 63u);
  const uint64_t m = (small & ~ONYX__F64_SIGN) | (~small & ~whole & part);
  const uint64_t inc = (small & ONYX__F64_ONE) | (~small & (m + 1u));
  const uint64_t f = u & m;
  const uint64_t r = (u ^ f) + (inc & ONYX__MASK(uint64_t, (f != 0) & ((u >> 63) == neg)));
  return r | (ONYX__F64_QUIET & ONYX__MASK(uint64_t, (u & ~ONYX__F64_SIGN) > ONYX__F64_INF));
}
#endif
static inline uint64_t onyx__ceil_bits_f64(uint64_t u, const void *q) {
  (void)q;
  return onyx__round_bits_f64(u, 0);
}
static inline uint64_t onyx__floor_bits_f64(uint64_t u, const void *q) {
  (void)q;
  return onyx__round_bits_f64(u, 1);
}
static void onyx__f64_vceil__scalar(size_t n, const void *x, void *y, const onyx__kparams *params) {
  (void)params;
  ONYX__LOOP(uint64_t, n, x, y, onyx__ceil_bits_f64, NULL);
}
static void onyx__f64_vfloor__scalar(size_t n, const void *x, void *y,
                                     const onyx__kparams *params) {
  (void)params;
  ONYX__LOOP(uint64_t, n, x, y, onyx__floor_bits_f64, NULL);
}
#endif

/* ---- Sign on bit patterns --------------------------------------------------- */

/*
 * Sign of the pattern u: a NaN is itself, bits included; either zero is
 * +0; anything else is 1 with u's sign. The selects are masks: as
 * conditional moves (11 instructions an element on x86-64) gcc 12 turned
 * them into branches on the element, whatever the form.
 *   X(short name, bit type, sign bit, infinity, one)
 */
#define ONYX__SIGN_FORMATS_WIDE(X) X(f64, uint64_t, ONYX__F64_SIGN, ONYX__F64_INF, ONYX__F64_ONE)
#define ONYX__SIGN_FORMATS_HALF(X)            \
  X(f16, uint16_t, 0x8000u, 0x7c00u, 0x3c00u) \
  X(bf16, uint16_t, 0x8000u, 0x7f80u, 0x3f80u)

#define ONYX__SIGN_BITS_KERNEL(tn, U, S, INF, ONE)                                    \
  static inline U onyx__sign_bits_##tn(U u, const void *q) {                          \
    const U a = (U)(u & (U) ~(U)(S));                                                 \
    const U nan = ONYX__GT_MASK(U, a, (U)(INF)), nonzero = ONYX__GT_MASK(U, a, (U)0); \
    const U r = (U)((U)((u & (U)(S)) | (U)(ONE)) & nonzero);                          \
    (void)q;                                                                          \
    return (U)((r & (U)~nan) | (u & nan));                                            \
  }                                                                                   \
  static void onyx__##tn##_vsign__scalar(size_t n, const void *x, void *y,            \
                                         const onyx__kparams *params) {               \
    (void)params;                                                                     \
    ONYX__LOOP(U, n, x, y, onyx__sign_bits_##tn, NULL);                               \
  }
#if !ONYX__NATIVE_SIGN_F32 && !ONYX__LANES_SIGN_WIDE
ONYX__SIGN_BITS_KERNEL(f32, uint32_t, 0x80000000u, 0x7f800000u, 0x3f800000u)
#endif
#if !ONYX__NATIVE_SIGN_F64 && !ONYX__LANES_SIGN_WIDE
ONYX__SIGN_FORMATS_WIDE(ONYX__SIGN_BITS_KERNEL)
#endif

#if ONYX__PORTABLE_SWAR
/*
 * Sign on the lanes of a 64-bit word, each lane one element of the bit
 * type U (W bits): a lane is not zero where |u| + (2^(W-1) - 1) reaches
 * the lane's top bit, and NaN where |u| + (2^(W-1) - 1 - INF) does
 * (neither sum carries into the next lane). A lane's result is u's sign
 * and 1.0 where it is not zero, and u itself where it is NaN: u masked to
 * its sign, or to all of it, ORed with 1.0, whose bits a NaN has. The
 * halves, four lanes a word, 4.0 instructions an element against 6.1 for
 * two whole-lane selects; float, two lanes, 8.0 against 15.25 for compares
 * in float; double, one lane, 13.5 against 15.25 (x86-64, vectorizer off,
 * bench/kernel_cost.sh), which only RISC-V keeps: cores with a conditional
 * move take double by three selects instead (below). A word of two
 * registers (32-bit cores) would double every step, so those run float
 * and double one at a time.
 */
/* The multipliers that spread a lane's top bit into 1.0 and into the whole
 * lane, hidden from the optimizer (ONYX__OPAQUE) where a word is one
 * register, so that each stays one multiply: gcc otherwise turns them into
 * shifts and subtractions. A 32-bit core multiplies a word in three
 * steps, so there the compiler chooses. */
typedef struct onyx__lanes_spread {
  uint64_t one, all;
} onyx__lanes_spread;
#define ONYX__SIGN_LANES_KERNEL(tn, U, S, INF, ONE)                                     \
  static inline uint64_t onyx__lanes_fsign_##tn(uint64_t u, onyx__lanes_spread m) {     \
    enum { W_ = sizeof(U) * 8 };                                                        \
    const uint64_t l = ONYX__LANE_ONES(W_), h = ONYX__LANE_TOP(W_), a = u & ~h;         \
    const uint64_t nonzero = (a + ~h) & h;                                              \
    const uint64_t nan = (a + (((U) ~(U)(S)) - (U)(INF)) * l) & h;                      \
    return (u & (nonzero | (nan >> (W_ - 1)) * m.all)) | (nonzero >> (W_ - 1)) * m.one; \
  }                                                                                     \
  static void onyx__##tn##_vsign__scalar(size_t n, const void *x, void *y,              \
                                         const onyx__kparams *params) {                 \
    onyx__lanes_spread m = {(U)(ONE), ONYX__LANE_MAX(sizeof(U) * 8)};                   \
    (void)params;                                                                       \
    if (ONYX__WORD_IN_REG) {                                                            \
      ONYX__OPAQUE(m.one);                                                              \
      ONYX__OPAQUE(m.all);                                                              \
    }                                                                                   \
    if (sizeof(U) == 8) /* one lane a word: the loop of eight */                        \
      ONYX__LOOP(uint64_t, n, x, y, onyx__lanes_fsign_##tn, m);                         \
    else                                                                                \
      ONYX__SWAR_LOOP(U, n, x, y, onyx__lanes_fsign_##tn, m);                           \
  }
ONYX__SIGN_FORMATS_HALF(ONYX__SIGN_LANES_KERNEL)
#if ONYX__LANES_SIGN_WIDE
ONYX__SIGN_LANES_KERNEL(f32, uint32_t, 0x80000000u, 0x7f800000u, 0x3f800000u)
#if defined(__riscv)
ONYX__SIGN_FORMATS_WIDE(ONYX__SIGN_LANES_KERNEL)
#else
/*
 * double's Sign, one lane a word, by three conditional moves where the
 * core has them (RISC-V branches on a select, so it keeps the lanes):
 * a = u + u drops the sign, so a == 0 is either zero and a above
 * infinity's a is a NaN. Each select's result is hidden before the next,
 * and the NaN test reads a hidden copy of a: gcc otherwise knows that
 * a == 0 rules out a NaN and threads the zero test into a branch on the
 * element. 10.63 instructions an element against 13.5 for the lanes
 * (x86-64, vectorizer off, bench/kernel_cost.sh), the same on every input.
 */
typedef struct onyx__sign_sel_f64 {
  uint64_t one, neg, nan_above;
} onyx__sign_sel_f64;
static inline uint64_t onyx__sign_sel_elem_f64(uint64_t u, onyx__sign_sel_f64 k) {
  const uint64_t a = u + u;
  uint64_t r = (int64_t)u < 0 ? k.neg : k.one, a2 = a;
  ONYX__OPAQUE(r);
  r = a == 0 ? a : r;
  ONYX__OPAQUE(r);
  ONYX__OPAQUE(a2);
  return a2 > k.nan_above ? u : r;
}
static void onyx__f64_vsign__scalar(size_t n, const void *x, void *y, const onyx__kparams *params) {
  onyx__sign_sel_f64 k = {ONYX__F64_ONE, ONYX__F64_ONE | ONYX__F64_SIGN, ONYX__F64_INF << 1};
  (void)params;
  ONYX__OPAQUE(k.one);
  ONYX__OPAQUE(k.neg);
  ONYX__OPAQUE(k.nan_above);
  ONYX__LOOP(uint64_t, n, x, y, onyx__sign_sel_elem_f64, k);
}
#endif
#endif
#else
ONYX__SIGN_FORMATS_HALF(ONYX__SIGN_BITS_KERNEL)
#endif

/* ---- Half Clip on bit patterns ---------------------------------------------- */

/*
 * Halves compare as integer keys: |x| with x's sign, so that -0 and +0
 * are equal and consecutive halves differ by one. The float32 bounds need
 * not be halves (hand-made parameters), so the preparation turns "x >= lo"
 * (float16's ties-keep-x rule) or "x > lo" (bfloat16's, as float32's) into
 * "key(x) >= klo" for the first half that passes, and likewise for hi.
 * Where x fails the first step the second compares lo itself, once, in
 * float32: lo_keeps. A chosen bound comes out rounded to nearest (lo_out,
 * hi_out), as the reference rounds its float32 result; a kept x comes
 * out as it was. A NaN x is kept; a NaN bound lets no x pass its side.
 */
typedef struct onyx__hclip {
  int32_t klo, khi;
  uint16_t lo_out, hi_out, lo_keeps;
} onyx__hclip;

/* The key of the half u: +-|u|, within int16 (the thresholds that the
 * preparation derives from it are int32). */
static inline int16_t onyx__half_key(uint16_t u) {
  const int16_t a = (int16_t)(u & 0x7fffu), neg = (int16_t)(0 - (int16_t)(u >> 15));
  return (int16_t)((a ^ neg) - neg);
}

/*
 * X(short name, storage type, infinity, ties keep x (1) or the bound (0)).
 * Clip's rule: x passes lo where x >= lo (ties keep x) or x > lo, and
 * passes hi likewise.
 */
#define ONYX__HCLIP_FORMATS(X) X(f16, onyx__f16, 0x7c00u, 1) X(bf16, onyx__bf16, 0x7f80u, 0)

#define ONYX__HCLIP_KERNEL(tn, H, INF, TIES)                                \
  static void onyx__hclip_prep_##tn(float lo, float hi, onyx__hclip *q) {   \
    const H hl = onyx__f32_to_##tn(lo), hh = onyx__f32_to_##tn(hi);         \
    const float fl = onyx__##tn##_to_f32(hl), fh = onyx__##tn##_to_f32(hh); \
    q->lo_out = hl.bits, q->hi_out = hh.bits;                               \
    q->klo = onyx__half_key(hl.bits) + (TIES ? fl < lo : fl <= lo);         \
    q->khi = onyx__half_key(hh.bits) - (TIES ? fh > hi : fh >= hi);         \
    if (isnan(lo)) q->klo = INT32_MAX;                                      \
    if (isnan(hi)) q->khi = INT32_MIN;                                      \
    q->lo_keeps = (uint16_t)(isnan(lo) || (TIES ? lo <= hi : lo < hi));     \
  }
ONYX__HCLIP_FORMATS(ONYX__HCLIP_KERNEL)
#if !ONYX__PORTABLE_SWAR
/*
 * One element at a time in 16-bit lanes, which the compiler vectorizes
 * eight to a 128-bit register: the key and the thresholds as int16 (every
 * key of a half that is not NaN lies within +-INF, so a threshold clamped
 * into int16 decides the same), the selects as masks.
 */
typedef struct onyx__hclip16 {
  int16_t klo, khi;
  uint16_t lo_out, hi_out, lo_keeps;
} onyx__hclip16;
static inline int16_t onyx__key_clamp16(int32_t k) {
  return (int16_t)(k < INT16_MIN ? INT16_MIN : k > INT16_MAX ? INT16_MAX : k);
}
#define ONYX__HCLIP_ELEM_KERNEL(tn, H, INF, TIES)                                   \
  static inline uint16_t onyx__clip_bits_##tn(uint16_t u, const onyx__hclip16 *q) { \
    const int16_t k = onyx__half_key(u);                                            \
    const uint16_t nan = ONYX__MASK(uint16_t, (u & 0x7fffu) > (INF));               \
    const uint16_t lo = (uint16_t)(nan | ONYX__MASK(uint16_t, k >= q->klo));        \
    const uint16_t hi = (uint16_t)(nan | ONYX__MASK(uint16_t, k <= q->khi));        \
    const uint16_t t = (uint16_t)((u & lo) | (q->lo_out & ~lo));                    \
    const uint16_t keep = (uint16_t)((lo & hi) | (q->lo_keeps & ~lo));              \
    return (uint16_t)((t & keep) | (q->hi_out & ~keep));                            \
  }                                                                                 \
  static void onyx__##tn##_vclip__scalar(size_t n, const void *x, void *y,          \
                                         const onyx__kparams *params) {             \
    onyx__hclip q;                                                                  \
    onyx__hclip16 w;                                                                \
    onyx__hclip_prep_##tn(params->f32.lo, params->f32.hi, &q);                      \
    w.klo = onyx__key_clamp16(q.klo), w.khi = onyx__key_clamp16(q.khi);             \
    w.lo_out = q.lo_out, w.hi_out = q.hi_out;                                       \
    w.lo_keeps = ONYX__MASK(uint16_t, q.lo_keeps != 0);                             \
    ONYX__LOOP(uint16_t, n, x, y, onyx__clip_bits_##tn, &w);                        \
  }
ONYX__HCLIP_FORMATS(ONYX__HCLIP_ELEM_KERNEL)
#else
/*
 * The halves' Clip on the four 16-bit lanes of a word. The lanes compare
 * as unsigned keys in which the halves are in order: u ^ 0x8000 where u
 * is positive, ~u where negative (-0 is 0x7fff, +0 is 0x8000, one apart;
 * the thresholds below take either zero in or out as the rule says). A
 * lane passes lo where its key >= klo and hi where its key <= khi (NaN
 * lanes pass both), and a lane failing lo gives lo_res, the bound that
 * the second step then keeps (lo_out or hi_out).
 */
typedef struct onyx__hclip_lanes {
  uint64_t klo, khi, hi_out, lo_res;
} onyx__hclip_lanes;

/* The key threshold of "key(x) >= klo" and "key(x) <= khi" for the
 * thresholds on signed keys (+-|x|, both zeros 0), clamped into the keys
 * of non-NaN halves of infinity inf, so that each fits a lane. */
static uint64_t onyx__hclip_threshold(int32_t k, int hi, uint32_t inf) {
  const int32_t c = k < -0x8000 ? -0x8000 : k > 0x8000 ? 0x8000 : k;
  int32_t t = (hi ? c >= 0 : c >= 1) ? 0x8000 + c : 0x7fff + c;
  const int32_t min = 0x7fff - (int32_t)inf - hi, max = 0x8000 + (int32_t)inf + !hi;
  t = t < min ? min : t > max ? max : t;
  return (uint64_t)t * ONYX__LANE_ONES(16);
}

#define ONYX__HCLIP_LANES_KERNEL(tn, H, INF, TIES)                                        \
  static inline uint64_t onyx__lanes_hclip_##tn(uint64_t u, const onyx__hclip_lanes *q) { \
    const uint64_t l = ONYX__LANE_ONES(16), h = ONYX__LANE_TOP(16);                       \
    const uint64_t key = u ^ ((((u & h) >> 15) * 0x7fffu) | h);                           \
    const uint64_t nan = ((u & ~h) + (0x7fffu - (INF)) * l) & h;                          \
    const uint64_t lo = ((onyx__lanes_ge(key, q->klo, h, 0) | nan) >> 15) * 0xffffu;      \
    const uint64_t hi = ((onyx__lanes_ge(q->khi, key, h, 0) | nan) >> 15) * 0xffffu;      \
    const uint64_t t = q->hi_out ^ ((u ^ q->hi_out) & hi);                                \
    return q->lo_res ^ ((t ^ q->lo_res) & lo);                                            \
  }                                                                                       \
  static void onyx__##tn##_vclip__scalar(size_t n, const void *x, void *y,                \
                                         const onyx__kparams *params) {                   \
    onyx__hclip q;                                                                        \
    onyx__hclip_lanes w;                                                                  \
    onyx__hclip_prep_##tn(params->f32.lo, params->f32.hi, &q);                            \
    w.klo = onyx__hclip_threshold(q.klo, 0, (INF));                                       \
    w.khi = onyx__hclip_threshold(q.khi, 1, (INF));                                       \
    w.hi_out = q.hi_out * ONYX__LANE_ONES(16);                                            \
    w.lo_res = (q.lo_keeps ? q.lo_out : q.hi_out) * ONYX__LANE_ONES(16);                  \
    ONYX__SWAR_LOOP(uint16_t, n, x, y, onyx__lanes_hclip_##tn, &w);                       \
  }
ONYX__HCLIP_FORMATS(ONYX__HCLIP_LANES_KERNEL)
#endif

/* The build configuration selects here (ONYX__KSEL, src/config/config.h):
 * a kernel a reduced build left out is NULL, and not linked. */
#define ONYX__ROUNDING_ENTRIES(NAME, tn, T, K, c, rule, nlo, nhi)                           \
  .k[ONYX__KOP_CEIL][ONYX__DI_##NAME] = ONYX__KSEL(CEIL, NAME, onyx__##tn##_vceil__scalar), \
  .k[ONYX__KOP_FLOOR][ONYX__DI_##NAME] = ONYX__KSEL(FLOOR, NAME, onyx__##tn##_vfloor__scalar),
#define ONYX__COMMON_ENTRIES(NAME, tn, T, K, c, rule, nlo, nhi)                             \
  .k[ONYX__KOP_SIGN][ONYX__DI_##NAME] = ONYX__KSEL(SIGN, NAME, onyx__##tn##_vsign__scalar), \
  .k[ONYX__KOP_CLIP][ONYX__DI_##NAME] = ONYX__KSEL(CLIP, NAME, onyx__##tn##_vclip__scalar),

#define ONYX__INT_ENTRIES(NAME, tn, T, c, tmin, tmax, sform, cform)                         \
  .k[ONYX__KOP_SIGN][ONYX__DI_##NAME] = ONYX__KSEL(SIGN, NAME, onyx__##tn##_vsign__scalar), \
  .k[ONYX__KOP_CLIP][ONYX__DI_##NAME] = ONYX__KSEL(CLIP, NAME, onyx__##tn##_vclip__scalar),

/* Entries the lists do not name stay NULL: Ceil and Floor on
 * integers. */
const onyx__kernel_table onyx__kernels_scalar = {ONYX__SCALAR_FLOAT_TYPES(ONYX__ROUNDING_ENTRIES)
                                                     ONYX__SCALAR_FLOAT_TYPES(ONYX__COMMON_ENTRIES)
                                                         ONYX__SCALAR_INT_TYPES(ONYX__INT_ENTRIES)};

/* ---- Clip parameters
 * ---------------------------------------------------- */

/*
 * Reads one bound of a type: none when p is NULL, and also
 * when the bound is NaN, because numpy 1.24's np.clip
 * replaces a scalar NaN bound by -inf or +inf (np.clip([5,
 * -5], nan, 2) is [2, -5]). Integers are read with memcpy,
 * as the caller's pointer need not be aligned, and widened.
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
#define ONYX__INT_BOUND_READER(NAME, tn, T, c, tmin, tmax, sform, cform) \
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
#define ONYX__INT_CLIP_CASE(NAME, tn, T, c, tmin, tmax, sform, cform) \
  case ONYX_DTYPE_##NAME:                                             \
    params->c.lo = onyx__bound_##tn(lo, tmin);                        \
    params->c.hi = onyx__bound_##tn(hi, tmax);                        \
    return;
    ONYX__SCALAR_INT_TYPES(ONYX__INT_CLIP_CASE)
#undef ONYX__INT_CLIP_CASE
    default:
      /* An unknown type has no kernel, so its parameters are
       * never used. */
      return;
  }
}
