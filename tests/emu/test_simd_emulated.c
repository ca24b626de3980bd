/* SPDX-License-Identifier: MIT */
/*
 * The program of unit.test_simd.emulated_avx512: tests/unit/test_simd.c,
 * included verbatim with its main renamed, linked (tests/emulation.cmake)
 * so that the avx2 level's kernel table is the AVX-512 kernels of
 * src/kernels/x86/kernels_avx512.c emulated on AVX2 (see
 * kernels_avx512_emulated.c and immintrin.h here). With ONYX_ISA=avx2 the
 * levels test_simd.c checks are sse41 (the real SSE4.1 kernels) and avx2
 * (the emulated AVX-512 kernels). Where the build has the AVX512-FP16
 * kernels, onyx__kernels_avx512fp16 is their emulation
 * (kernels_avx512fp16_emulated.c), which test_fp16_table checks directly
 * (ONYX_TEST_FP16_EMULATED).
 *
 * Exits 77, which CTest reports as skipped, where the emulation is
 * pointless (the CPU has AVX-512 and AVX512-FP16: unit.test_simd runs
 * those kernels natively) or impossible (the CPU lacks the AVX2 level it
 * runs on). On a CPU with AVX-512 but not AVX512-FP16 it runs only
 * test_fp16_table.
 */
#define main onyx_test_simd_main
int onyx_test_simd_main(void);
#include "unit/test_simd.c"
#undef main

#define SKIP 77

int main(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
#if HAVE_FP16_TABLE
    /* onyx's own detection, which also honours an ONYX_ISA set outside. */
    if (!onyx__cpu_has(ONYX__CPU_AVX512FP16)) {
      printf(
          "This CPU has AVX-512, which unit.test_simd checks natively, but not AVX512-FP16:\n"
          "checking only the EMULATED AVX512-FP16 kernels, src/kernels/x86/\n"
          "kernels_avx512fp16.c compiled for AVX2 through tests/emu/immintrin.h, against\n"
          "the scalar kernels.\n");
      fflush(stdout);
      const struct CMUnitTest fp16_only[] = {cmocka_unit_test(test_fp16_table)};
      return cmocka_run_group_tests(fp16_only, NULL, NULL);
    }
    printf(
        "skipped: this CPU has AVX-512 and AVX512-FP16, so unit.test_simd checks the AVX-512 "
        "and AVX512-FP16 kernels natively\n");
#else
    printf(
        "skipped: this CPU has AVX-512, so unit.test_simd checks the AVX-512 kernels "
        "natively\n");
#endif
    return SKIP;
  }
  /* Before anything asks for the level, which is detected once. */
  if (setenv("ONYX_ISA", "avx2", 1) != 0) {
    perror("setenv");
    return 1;
  }
  if (onyx__cpu_isa() != ONYX_ISA_AVX2) {
    printf(
        "skipped: the AVX-512 emulation runs on the AVX2 level (AVX2, FMA, F16C), which "
        "this CPU lacks\n");
    return SKIP;
  }
  printf(
      "Checking EMULATED AVX-512 kernels: src/kernels/x86/kernels_avx512.c compiled for\n"
      "AVX2 through SIMDe (tests/emu/immintrin.h), against the scalar kernels, with\n"
      "ONYX_ISA=avx2. In the results below, level \"avx2\" is the emulated AVX-512 table\n"
      "and \"sse41\" the real SSE4.1 one.\n");
#if HAVE_FP16_TABLE
  printf(
      "test_fp16_table checks the EMULATED AVX512-FP16 kernels, src/kernels/x86/\n"
      "kernels_avx512fp16.c compiled the same way, entry by entry.\n");
#endif
  fflush(stdout);
  return onyx_test_simd_main();
}
