/* SPDX-License-Identifier: MIT */
/*
 * Compiler and CPU specifics behind portable names, so that library code
 * holds no builtin or inline assembly of its own. Each has a plain C
 * fallback for compilers without the builtin.
 */
#ifndef ONYX_OS_COMPILER_H
#define ONYX_OS_COMPILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* onyx__mul_overflow_size, onyx__mul_overflow_u64: true if a * b
 * overflows T; else *r = a * b. */
#if defined(__GNUC__) || defined(__clang__)
#define ONYX__MUL_OVERFLOW_FN(name, T, MAX) \
  static inline bool name(T a, T b, T *r) { return __builtin_mul_overflow(a, b, r); }
#else
#define ONYX__MUL_OVERFLOW_FN(name, T, MAX)   \
  static inline bool name(T a, T b, T *r) {   \
    if (b != 0 && a > (MAX) / b) return true; \
    *r = a * b;                               \
    return false;                             \
  }
#endif
ONYX__MUL_OVERFLOW_FN(onyx__mul_overflow_size, size_t, SIZE_MAX)
ONYX__MUL_OVERFLOW_FN(onyx__mul_overflow_u64, uint64_t, UINT64_MAX)

/*
 * A hint inside a spin-wait loop: the CPU may save power and yield to its
 * sibling hyperthread (x86 PAUSE, ARM YIELD). Elsewhere nothing.
 */
static inline void onyx__spin_hint(void) {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  __asm__ __volatile__("pause");
#elif (defined(__aarch64__) || (defined(__arm__) && __ARM_ARCH >= 7)) && \
    (defined(__GNUC__) || defined(__clang__))
  __asm__ __volatile__("yield");
#endif
}

#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#endif
/*
 * XCR0 says which register states the OS saves on a context switch. A CPU
 * may support AVX while the OS does not save the YMM registers, and then
 * using them corrupts other threads' state, so both must agree. With GCC
 * and Clang the instruction is inline asm rather than the _xgetbv
 * intrinsic, so that callers need no -mxsave; MSVC's intrinsic needs no
 * flag. It may only run when CPUID says OSXSAVE.
 */
static inline uint64_t onyx__x86_xgetbv0(void) {
#if defined(__GNUC__) || defined(__clang__)
  uint32_t eax, edx;
  __asm__ __volatile__("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0u));
  return ((uint64_t)edx << 32) | eax;
#elif defined(_MSC_VER)
  return (uint64_t)_xgetbv(0);
#else
  return 0; /* no way to ask: no OS-saved vector state is assumed */
#endif
}
#endif

/* ONYX__OPAQUE(v): v, as a value the optimizer cannot see through, so it
 * neither folds nor rematerializes it (an empty asm that claims to change
 * v in a register); nothing where the compiler has no such asm. */
#if defined(__GNUC__) || defined(__clang__)
#define ONYX__OPAQUE(v) __asm__("" : "+r"(v))
#else
#define ONYX__OPAQUE(v) ((void)(v))
#endif

#endif
