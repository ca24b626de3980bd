/*
 * Kernel selection. Each ISA level may provide a table; a lookup starts at
 * the lower of the caller's cap and the level the CPU supports and walks
 * down to scalar, so a table need only hold the kernels it improves on.
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

/* Indexed by onyx_isa; NULL where a level has no table in this build. */
static const onyx__kernel_table *const onyx__tables[ONYX_ISA_AVX512 + 1] = {
    [ONYX_ISA_SCALAR] = &onyx__kernels_scalar,
#if defined(ONYX_HAVE_X86) && defined(ONYX_HAVE_SSE41_KERNELS)
    [ONYX_ISA_SSE41] = &onyx__kernels_sse41,
#endif
#if defined(ONYX_HAVE_X86) && defined(ONYX_HAVE_AVX2_KERNELS)
    [ONYX_ISA_AVX2] = &onyx__kernels_avx2,
#endif
#if defined(ONYX_HAVE_X86) && defined(ONYX_HAVE_AVX512_KERNELS)
    [ONYX_ISA_AVX512] = &onyx__kernels_avx512,
#endif
};

/*
 * Finds the kernel and the level it came from. Returns false when the op
 * has no kernel for the type at any level, or op or type is unknown. A cap
 * above the highest level (ONYX_ISA_BEST) means no cap.
 */
static bool onyx__kernel_find(onyx__kop op, onyx_dtype dtype, onyx_isa cap, onyx__ukernel *kernel,
                              onyx_isa *isa) {
  int di = onyx__dtype_index(dtype);
  if ((int)op < 0 || (int)op >= ONYX__KOP_COUNT || di < 0) return false;
  onyx_isa top = onyx__cpu_isa();
  int level = (int)cap < (int)top ? (int)cap : (int)top;
  if (level < 0) level = ONYX_ISA_SCALAR; /* not an onyx_isa value: the safest level */
  for (; level >= 0; level--) {
    const onyx__kernel_table *t = onyx__tables[level];
    if (t != NULL && t->k[op][di] != NULL) {
      *kernel = t->k[op][di];
      *isa = (onyx_isa)level;
      return true;
    }
  }
  return false;
}

onyx__ukernel onyx__kernel_get(onyx__kop op, onyx_dtype dtype, onyx_isa cap) {
  onyx__ukernel kernel;
  onyx_isa isa;
  return onyx__kernel_find(op, dtype, cap, &kernel, &isa) ? kernel : NULL;
}

onyx_isa onyx__kernel_isa(onyx__kop op, onyx_dtype dtype, onyx_isa cap) {
  onyx__ukernel kernel;
  onyx_isa isa;
  /* With no kernel at all there is no level to report; scalar is the
   * level every lookup ends at. */
  return onyx__kernel_find(op, dtype, cap, &kernel, &isa) ? isa : ONYX_ISA_SCALAR;
}
