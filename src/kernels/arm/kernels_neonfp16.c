/* SPDX-License-Identifier: MIT */
/*
 * float16 Ceil and Floor with FRINTP/FRINTM on eight halves at a time
 * (AArch64 FEAT_FP16), where the CPU has half-precision arithmetic
 * (ONYX__CPU_NEON_FP16, from HWCAP_ASIMDHP): dispatch.c puts this table's
 * entries before the NEON table's at the NEON level, and every entry it
 * leaves NULL is kernels_neon.c's. CMake compiles this file alone with
 * -march=armv8.2-a+fp16, with GCC and Clang alike; a compiler that cannot
 * (or any build without __ARM_FEATURE_FP16_VECTOR_ARITHMETIC) gets an
 * empty table, and float16 then rounds through float32 in kernels_neon.c.
 *
 * Linux leaves FPCR.FZ16 and DN clear, so subnormal halves round exactly
 * and a signalling NaN comes back quiet with its payload, as in scalar.c.
 * The loops and tails are simd_generate.h's: one more vector over the last
 * eight elements, or the scalar kernel below eight.
 */
#include <stdbool.h>
#include <stdint.h>

#include "kernels/kernels.h"

extern const onyx__kernel_table onyx__kernels_neonfp16;

#if defined(__aarch64__) && defined(__ARM_FEATURE_FP16_VECTOR_ARITHMETIC)
#include <arm_neon.h>

#include "kernels/simd_common.h"

#define ONYX__SIMD_ISA    neonfp16
#define ONYX__SIMD_MASKED 0

/* Only float16 Ceil and Floor, in the class hp16 (eight halves a vector);
 * Sign and Clip stay kernels_neon.c's, which work on the bits. */
#define ONYX__SIMD_ROUNDING_TYPES(X) X(FLOAT16, f16, uint16_t, hp16, hp16, hp16, hp16)
#define ONYX__SIMD_SIGN_TYPES(X)
#define ONYX__SIMD_CLIP_TYPES(X)

typedef float16x8_t onyx__v_hp16;
enum { ONYX__N_hp16 = 8 };
ONYX__SIMD_NO_PARAMS(hp16)
static inline float16x8_t onyx__ld_hp16(const uint16_t *p) {
  return vreinterpretq_f16_u16(vld1q_u16(p));
}
static inline void onyx__st_hp16(uint16_t *p, float16x8_t v) {
  vst1q_u16(p, vreinterpretq_u16_f16(v));
}
ONYX__SIMD_ROUNDING_BY(hp16, float16x8_t, vrndpq_f16, vrndmq_f16)

#include "kernels/simd_generate.h"
#else
const onyx__kernel_table onyx__kernels_neonfp16 = {.k[0][0] = NULL};
#endif
