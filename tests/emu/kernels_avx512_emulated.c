/* SPDX-License-Identifier: MIT */
/*
 * src/kernels/x86/kernels_avx512.c, unmodified, compiled for an AVX2 host:
 * its <immintrin.h> is tests/emu/immintrin.h, which emulates the AVX-512
 * intrinsics (see there). Its table, onyx__kernels_avx512, is renamed
 * onyx__kernels_avx2 so that the test program, linked without the real
 * AVX2 kernels, dispatches to these kernels at the avx2 level (the token
 * the kernel file pastes together is rescanned, so this macro applies).
 * The kernels themselves are static: nothing else clashes with the real
 * AVX-512 object, which the program also links but never selects.
 */
#define onyx__kernels_avx512 onyx__kernels_avx2
#include "kernels/x86/kernels_avx512.c"
