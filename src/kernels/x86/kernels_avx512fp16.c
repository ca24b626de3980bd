/* SPDX-License-Identifier: MIT */
/*
 * AVX512-FP16 kernels: float16 Ceil and Floor rounded in half precision.
 * Compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl -mavx512fp16
 * -mf16c -mfma only. This is not an ISA level of its own: its table
 * overlays the AVX-512 level's where onyx__cpu_has(ONYX__CPU_AVX512FP16)
 * (see dispatch.c), and every entry it leaves NULL (every op and type but
 * float16 Ceil and Floor) is the AVX-512 table's.
 *
 * kernels_avx512.c rounds float16 through float32: widen 16 halves with
 * VCVTPH2PS, round with VRNDSCALEPS, narrow with VCVTPS2PH. Here
 * VRNDSCALEPH rounds 32 halves in one instruction with the same result:
 *   - every half value rounds to an integral half value, so rounding in
 *     half precision and rounding the exact float32 widening give the same
 *     number, +-0 and +-inf unchanged and the sign of a zero result kept;
 *   - a NaN comes back with its payload and the quiet bit set, which is
 *     what scalar.c returns (the float32 rounding quiets it and narrowing
 *     keeps the payload); VRNDSCALEPH converts a signalling NaN source to
 *     a quiet one, and returns a quiet NaN as it is;
 *   - subnormal halves are rounded as the numbers they are, with the
 *     default MXCSR (DAZ and FTZ clear) that every float kernel here
 *     assumes and the tests run with. (Whether VRNDSCALEPH honours DAZ
 *     could not be confirmed from Intel's text; on the float32 path every
 *     half widens to a normal float32 or a zero, so a caller who sets DAZ
 *     could see the two paths differ on subnormal halves, as float32
 *     kernels already differ from numpy on subnormal float32 then.)
 *
 * Halves are stored as uint16_t and move through integer loads and stores
 * (cast to and from __m512h, which costs no instruction), so that tails
 * use the same masked 16-bit loads and stores as kernels_avx512.c, which
 * touch (and fault on) no masked-off element.
 */
#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernels/kernels.h"
#include "kernels/simd_common.h"

#define ONYX__SIMD_ISA    avx512fp16
#define ONYX__SIMD_MASKED 1
/* Streaming stores, ordered by SFENCE. */
#define ONYX__SIMD_STREAMS 1
static inline void onyx__stream_fence(void) { _mm_sfence(); }

/*
 * Only float16 Ceil and Floor, in the class p16 (stored as 32 halves per
 * vector) computing in ph (__m512h); no Sign or Clip, which kernels_avx512.c
 * already does on the bits without any conversion.
 */
#define ONYX__SIMD_ROUNDING_TYPES(X) X(FLOAT16, f16, uint16_t, p16, ph, p16, ph)
#define ONYX__SIMD_SIGN_TYPES(X)
#define ONYX__SIMD_CLIP_TYPES(X)

/* The mask of the first r lanes, r below the lane count. */
static inline __mmask32 onyx__m32(size_t r) { return (__mmask32)((UINT32_C(1) << r) - 1u); }

/* ---- float16, in half precision ---------------------------------------- */

typedef __m512h onyx__v_ph;
#define ONYX__N_p16 32
static inline __m512h onyx__ld_p16(const uint16_t *p) {
  return _mm512_castsi512_ph(_mm512_loadu_si512(p));
}
static inline void onyx__st_p16(uint16_t *p, __m512h v) {
  _mm512_storeu_si512(p, _mm512_castph_si512(v));
}
static inline void onyx__stnt_p16(uint16_t *p, __m512h v) {
  _mm512_stream_si512((void *)p, _mm512_castph_si512(v));
}
static inline __m512h onyx__ldm_p16(const uint16_t *p, size_t r) {
  return _mm512_castsi512_ph(_mm512_maskz_loadu_epi16(onyx__m32(r), p));
}
static inline void onyx__stm_p16(uint16_t *p, size_t r, __m512h v) {
  _mm512_mask_storeu_epi16(p, onyx__m32(r), _mm512_castph_si512(v));
}

ONYX__SIMD_NO_PARAMS(ph)

/*
 * VRNDSCALEPH with scale 0 (imm8[7:4]) rounds to an integral value in the
 * direction imm8[1:0] gives; _MM_FROUND_NO_EXC (imm8[3]) suppresses the
 * precision exception, as the float32 and float64 kernels do.
 */
static inline __m512h onyx__round_up_ph(__m512h v) {
  return _mm512_roundscale_ph(v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
}
static inline __m512h onyx__round_down_ph(__m512h v) {
  return _mm512_roundscale_ph(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
ONYX__SIMD_ROUNDING_BY(ph, __m512h, onyx__round_up_ph, onyx__round_down_ph)

#include "kernels/simd_generate.h"
