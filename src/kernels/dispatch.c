/* SPDX-License-Identifier: MIT */
/*
 * Kernel selection, once per (op, type) when a session is created: the
 * first table of this architecture's list (below) whose features the CPU
 * has, that the caller's cap and ONYX_ISA allow, and that has the kernel.
 * A table need hold only the kernels it improves on; the ones it lacks
 * come from the next line that has them, ending at scalar.
 *
 * Adding an ISA is adding its kernel file (with its ONYX_HAVE_<ISA>_KERNELS
 * definition in CMake), its line here, and its detection: a feature in
 * ONYX__CPU_FEATURE_MAP (src/cpu/cpu.h) set by its architecture's section
 * of src/cpu/cpu.c, and, for a new level name, an entry of ONYX_ISA_MAP
 * (include/onyx.h).
 */
#include "kernels/dispatch.h"

#define ONYX__KERNEL_LINE(table, needs, level) {&(table), (needs), ONYX_ISA_##level},

#define BIT ONYX__CPU_BIT

/*
 * Each table, its features and level: one line per table, best first within
 * an architecture. A table joins when its ONYX_HAVE_<ISA>_KERNELS macro is
 * defined (CMake defines it where it compiles the table's file). The x86
 * tables' needs are their files' compiler flags (CMakeLists.txt).
 */
#define ONYX__X86_AVX512 (BIT(AVX512) | BIT(AVX2) | BIT(F16C) | BIT(SSE41))

#if defined(ONYX_HAVE_X86) && defined(ONYX_HAVE_AVX512FP16_KERNELS)
extern const onyx__kernel_table onyx__kernels_avx512fp16;
#define ONYX__LINE_AVX512FP16 \
  ONYX__KERNEL_LINE(onyx__kernels_avx512fp16, ONYX__X86_AVX512 | BIT(AVX512FP16), AVX512)
#else
#define ONYX__LINE_AVX512FP16
#endif
#if defined(ONYX_HAVE_X86) && defined(ONYX_HAVE_AVX512_KERNELS)
extern const onyx__kernel_table onyx__kernels_avx512;
#define ONYX__LINE_AVX512 ONYX__KERNEL_LINE(onyx__kernels_avx512, ONYX__X86_AVX512, AVX512)
#else
#define ONYX__LINE_AVX512
#endif
#if defined(ONYX_HAVE_X86) && defined(ONYX_HAVE_AVX2_KERNELS)
extern const onyx__kernel_table onyx__kernels_avx2;
#define ONYX__LINE_AVX2 \
  ONYX__KERNEL_LINE(onyx__kernels_avx2, BIT(AVX2) | BIT(F16C) | BIT(SSE41), AVX2)
#else
#define ONYX__LINE_AVX2
#endif
#if defined(ONYX_HAVE_X86) && defined(ONYX_HAVE_SSE41_KERNELS)
extern const onyx__kernel_table onyx__kernels_sse41;
#define ONYX__LINE_SSE41 ONYX__KERNEL_LINE(onyx__kernels_sse41, BIT(SSE41), SSE41)
#else
#define ONYX__LINE_SSE41
#endif
#if defined(ONYX_HAVE_NEON_KERNELS) && defined(__aarch64__)
extern const onyx__kernel_table onyx__kernels_neonfp16;
#define ONYX__LINE_NEONFP16 \
  ONYX__KERNEL_LINE(onyx__kernels_neonfp16, BIT(NEON) | BIT(NEON_FP16), NEON)
#else
#define ONYX__LINE_NEONFP16
#endif
#if defined(ONYX_HAVE_NEON_KERNELS)
extern const onyx__kernel_table onyx__kernels_neon;
#define ONYX__LINE_NEON ONYX__KERNEL_LINE(onyx__kernels_neon, BIT(NEON), NEON)
#else
#define ONYX__LINE_NEON
#endif
#if defined(ONYX_HAVE_SIMD128_KERNELS)
extern const onyx__kernel_table onyx__kernels_simd128;
#define ONYX__LINE_SIMD128 ONYX__KERNEL_LINE(onyx__kernels_simd128, BIT(SIMD128), WASM_SIMD128)
#else
#define ONYX__LINE_SIMD128
#endif

/*
 * The precedence lists. Only one architecture's tables are compiled into a
 * build, so the lists never mix: levels of different architectures are
 * never compared. Where the CPU has AVX512-FP16 or FEAT_FP16, float16 Ceil
 * and Floor run in half precision, reported as the level they extend.
 */
static const onyx__kernel_line onyx__lines[] = {
    /* x86 */
    ONYX__LINE_AVX512FP16 ONYX__LINE_AVX512 ONYX__LINE_AVX2 ONYX__LINE_SSE41
        /* ARM */
        ONYX__LINE_NEONFP16 ONYX__LINE_NEON
            /* WebAssembly */
            ONYX__LINE_SIMD128
                /* Every architecture: complete, needs nothing. */
                ONYX__KERNEL_LINE(onyx__kernels_scalar, 0, SCALAR)};
#define ONYX__LINES (sizeof onyx__lines / sizeof onyx__lines[0])

const onyx__kernel_line *onyx__kernel_lines(size_t *n) {
  *n = ONYX__LINES;
  return onyx__lines;
}

const onyx__kernel_line *onyx__kernel_pick(onyx__cpu_mask features, onyx__kop op,
                                           onyx_dtype dtype) {
  const int di = onyx__dtype_index(dtype);
  if ((int)op < 0 || (int)op >= ONYX__KOP_COUNT || di < 0) return NULL;
  for (size_t i = 0; i < ONYX__LINES; i++) {
    const onyx__kernel_line *l = &onyx__lines[i];
    if ((l->needs & ~features) == 0 && l->table->k[op][di] != NULL) return l;
  }
  return NULL;
}

onyx_isa onyx__kernel_best_level(onyx__cpu_mask features) {
  for (size_t i = 0; i < ONYX__LINES; i++) {
    if ((onyx__lines[i].needs & ~features) == 0) return onyx__lines[i].level;
  }
  return ONYX_ISA_SCALAR; /* not reached: the scalar line needs nothing */
}

onyx__ukernel onyx__kernel_get(onyx__kop op, onyx_dtype dtype, onyx_isa cap) {
  const onyx__kernel_line *l =
      onyx__kernel_pick(onyx__cpu_features() & onyx__cpu_cap_mask(cap), op, dtype);
  return l != NULL ? l->table->k[op][onyx__dtype_index(dtype)] : NULL;
}

onyx_isa onyx__kernel_isa(onyx__kop op, onyx_dtype dtype, onyx_isa cap) {
  const onyx__kernel_line *l =
      onyx__kernel_pick(onyx__cpu_features() & onyx__cpu_cap_mask(cap), op, dtype);
  /* With no kernel at all there is no level to report; scalar is the
   * level every lookup ends at. */
  return l != NULL ? l->level : ONYX_ISA_SCALAR;
}

onyx_isa onyx__cpu_isa(void) { return onyx__kernel_best_level(onyx__cpu_features()); }

onyx_isa onyx_isa_capped(onyx_isa cap) {
  return onyx__kernel_best_level(onyx__cpu_features() & onyx__cpu_cap_mask(cap));
}

onyx_isa onyx_isa_detected(void) { return onyx__cpu_isa(); }
