/* SPDX-License-Identifier: MIT */
/*
 * src/kernels/x86/kernels_avx512fp16.c, unmodified, compiled for an AVX2
 * host: its <immintrin.h> is tests/emu/immintrin.h, which emulates the
 * AVX-512 and AVX512-FP16 intrinsics it uses (see there). Its table keeps
 * its name, onyx__kernels_avx512fp16: the test program links this object
 * instead of the real one (tests/emulation.cmake), so that both dispatch.c
 * and test_simd.c, which checks the table directly, reach the emulation.
 * Dispatch never picks it there: with ONYX_ISA=avx2, onyx__cpu_has hides
 * AVX512-FP16.
 */
#include "kernels/x86/kernels_avx512fp16.c"
