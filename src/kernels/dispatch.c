/* SPDX-License-Identifier: MIT */
/*
 * Kernel selection. Each ISA level may provide a table; a lookup starts at
 * the lower of the caller's cap and the level the CPU supports and walks
 * down to scalar, so a table need only hold the kernels it improves on.
 * A level may also have tables that need a CPU feature beyond the level
 * (onyx__cpu_has): where the CPU has it, such a table's entries take
 * precedence over the level's own table, and are reported as that level.
 */
#include "cpu/cpu.h"
#include "kernels/kernels.h"

/*
 * The per-ISA tables live in src/kernels/x86/, which CMake compiles only on
 * x86-64 and which defines ONYX_HAVE_X86. A table joins the lookup when its
 * ONYX_HAVE_<ISA>_KERNELS macro is defined as well, so that it can be added
 * (one line here and one definition there) before its kernels are complete.
 */
#if defined(ONYX_HAVE_X86) && defined(ONYX_HAVE_SSE41_KERNELS)
extern const onyx__kernel_table onyx__kernels_sse41;
#endif
#if defined(ONYX_HAVE_X86) && defined(ONYX_HAVE_AVX2_KERNELS)
extern const onyx__kernel_table onyx__kernels_avx2;
#endif
#if defined(ONYX_HAVE_X86) && defined(ONYX_HAVE_AVX512_KERNELS)
extern const onyx__kernel_table onyx__kernels_avx512;
#endif
#if defined(ONYX_HAVE_X86) && defined(ONYX_HAVE_AVX512FP16_KERNELS)
extern const onyx__kernel_table onyx__kernels_avx512fp16;
#endif

#if defined(ONYX_HAVE_NEON_KERNELS)
extern const onyx__kernel_table onyx__kernels_neon;
#endif
#if defined(ONYX_HAVE_NEON_KERNELS) && defined(__aarch64__)
extern const onyx__kernel_table onyx__kernels_neonfp16;
#endif
#if defined(ONYX_HAVE_SIMD128_KERNELS)
extern const onyx__kernel_table onyx__kernels_simd128;
#endif

/* One table of a level, and the feature it needs on top of the level. */
typedef struct onyx__level_table {
  const onyx__kernel_table *table; /* NULL: an unused slot */
  bool needs_feature;
  onyx__cpu_feature feature; /* only if needs_feature */
} onyx__level_table;

#define ONYX__TABLE(t) \
  { &(t), false, (onyx__cpu_feature)0 }
#define ONYX__TABLE_IF(t, f) \
  { &(t), true, (f) }

/* The most tables one level has. */
#define ONYX__LEVEL_TABLES 2

/*
 * Indexed by onyx_isa: each level's tables, in order of precedence. A level
 * without a table in this build has only unused slots.
 */
#define ONYX_X_(name, value, lname, arch, desc) +1
enum { ONYX__ISA_LEVEL_COUNT = 0 ONYX_ISA_MAP(ONYX_X_) };
#undef ONYX_X_
static const onyx__level_table onyx__tables[ONYX__ISA_LEVEL_COUNT][ONYX__LEVEL_TABLES] = {
    [ONYX_ISA_SCALAR] = {ONYX__TABLE(onyx__kernels_scalar)},
#if defined(ONYX_HAVE_X86) && defined(ONYX_HAVE_SSE41_KERNELS)
    [ONYX_ISA_SSE41] = {ONYX__TABLE(onyx__kernels_sse41)},
#endif
#if defined(ONYX_HAVE_X86) && defined(ONYX_HAVE_AVX2_KERNELS)
    [ONYX_ISA_AVX2] = {ONYX__TABLE(onyx__kernels_avx2)},
#endif
#if defined(ONYX_HAVE_X86) && \
    (defined(ONYX_HAVE_AVX512_KERNELS) || defined(ONYX_HAVE_AVX512FP16_KERNELS))
    /* float16 Ceil and Floor in half precision where the CPU has
     * AVX512-FP16; the AVX-512 table's kernels for everything else. */
    [ONYX_ISA_AVX512] =
        {
#if defined(ONYX_HAVE_AVX512FP16_KERNELS)
            ONYX__TABLE_IF(onyx__kernels_avx512fp16, ONYX__CPU_AVX512FP16),
#endif
#if defined(ONYX_HAVE_AVX512_KERNELS)
            ONYX__TABLE(onyx__kernels_avx512),
#endif
        },
#endif
#if defined(ONYX_HAVE_NEON_KERNELS) && defined(__aarch64__)
    /* float16 Ceil and Floor in half precision where the CPU has FEAT_FP16. */
    [ONYX_ISA_NEON] = {ONYX__TABLE_IF(onyx__kernels_neonfp16, ONYX__CPU_NEON_FP16),
                       ONYX__TABLE(onyx__kernels_neon)},
#elif defined(ONYX_HAVE_NEON_KERNELS)
    [ONYX_ISA_NEON] = {ONYX__TABLE(onyx__kernels_neon)},
#endif
#if defined(ONYX_HAVE_SIMD128_KERNELS)
    [ONYX_ISA_WASM_SIMD128] = {ONYX__TABLE(onyx__kernels_simd128)},
#endif
};

/*
 * Finds the kernel and the level it came from. Returns false when the op
 * has no kernel for the type at any level, or op or type is unknown. A cap
 * above the highest level (ONYX_ISA_BEST) means no cap.
 */
static bool kernel_find(onyx__kop op, onyx_dtype dtype, onyx_isa cap, onyx__ukernel *kernel,
                        onyx_isa *isa) {
  int di = onyx__dtype_index(dtype);
  if ((int)op < 0 || (int)op >= ONYX__KOP_COUNT || di < 0) return false;
  onyx_isa top = onyx__cpu_isa();
  int level = (int)cap < (int)top ? (int)cap : (int)top;
  if (level < 0) level = ONYX_ISA_SCALAR; /* not an onyx_isa value: the safest level */
  for (; level >= 0; level--) {
    for (int j = 0; j < ONYX__LEVEL_TABLES; j++) {
      const onyx__level_table *lt = &onyx__tables[level][j];
      if (lt->table == NULL || lt->table->k[op][di] == NULL) continue;
      /* The level is at most onyx__cpu_isa(), so the level's own tables
       * are usable; a feature table only where the CPU has the feature
       * (which onyx__cpu_has hides where ONYX_ISA lowers the level). */
      if (lt->needs_feature && !onyx__cpu_has(lt->feature)) continue;
      *kernel = lt->table->k[op][di];
      *isa = (onyx_isa)level;
      return true;
    }
  }
  return false;
}

onyx__ukernel onyx__kernel_get(onyx__kop op, onyx_dtype dtype, onyx_isa cap) {
  onyx__ukernel kernel;
  onyx_isa isa;
  return kernel_find(op, dtype, cap, &kernel, &isa) ? kernel : NULL;
}

onyx_isa onyx__kernel_isa(onyx__kop op, onyx_dtype dtype, onyx_isa cap) {
  onyx__ukernel kernel;
  onyx_isa isa;
  /* With no kernel at all there is no level to report; scalar is the
   * level every lookup ends at. */
  return kernel_find(op, dtype, cap, &kernel, &isa) ? isa : ONYX_ISA_SCALAR;
}
