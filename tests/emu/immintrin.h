/* SPDX-License-Identifier: MIT */
/*
 * Why this file exists: on a machine with AVX2 and F16C but no AVX-512
 * (where onyx is often built and tested) the AVX-512 kernels
 * (src/kernels/x86/kernels_avx512.c) would never run in the test suite.
 * tests/emulation.cmake compiles that file, unmodified, for an AVX2 host
 * with this directory first on the system include path, so that its
 * `#include <immintrin.h>` lands here. This header includes the compiler's
 * own immintrin.h (for the AVX2 and F16C intrinsics the emulation runs on)
 * and then SIMDe (Debian's libsimde-dev) with its native aliases, which
 * turn every _mm512_* intrinsic and AVX-512 type into a portable emulation.
 *
 * SIMDe 0.7.4 (Debian 12) lacks some of the intrinsics the kernels use, and
 * its generic versions of others would not be faithful where it matters to
 * the tests, so this header replaces them below, lane by lane:
 *   - masked loads and stores, which on the hardware touch (and fault on)
 *     no masked-off element: tests/unit/test_simd.c puts inputs flush
 *     against a PROT_NONE page and guards both sides of the output, so an
 *     emulation that read or wrote a whole vector would crash or pass
 *     where the hardware does the opposite;
 *   - streaming stores and aligned loads and stores, which fault on the
 *     hardware when the address is not aligned: here they trap;
 *   - VCVTPH2PS / VCVTPS2PH (512-bit forms), done by the host's F16C
 *     instructions on each half, which is exactly what the AVX-512F forms
 *     compute;
 *   - VRNDSCALEPS/PD with scale 0, done by the host's VROUNDPS/PD on each
 *     half (the same rounding and the same NaN quieting); a scale other
 *     than 0 does not compile;
 *   - the 16-bit mask compares, tests, table lookups (VPERMW, VPERMI2W)
 *     and masked arithmetic that SIMDe
 *     lacks or, in its test_epi16_mask, computes with undefined behaviour
 *     (a signed 1 shifted into bit 31, which UBSan rejects);
 *   - the little of AVX512-FP16 that src/kernels/x86/kernels_avx512fp16.c
 *     uses, which SIMDe lacks entirely: the type __m512h, the casts to and
 *     from __m512i, and VRNDSCALEPH with scale 0 (see below for how).
 *     Any other _ph intrinsic is the compiler's own, which does not compile
 *     without -mavx512fp16, so an emulation that falls short fails to
 *     build rather than running something else.
 * Everything else comes from SIMDe as it is. Nothing here is used by the
 * library itself; it exists only for the test unit.test_simd.emulated_avx512.
 */
#ifndef ONYX_TESTS_EMU_IMMINTRIN_H
#define ONYX_TESTS_EMU_IMMINTRIN_H

/* SIMDe's headers and the #include_next below are not written for
 * -Wpedantic -Werror; this directory is also passed with -isystem. */
#pragma GCC system_header

#include_next <immintrin.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__AVX2__) || !defined(__F16C__)
#error "the AVX-512 emulation runs on AVX2 and F16C: compile with -mavx2 -mfma -mf16c"
#endif
#if defined(__AVX512F__)
#error "the AVX-512 emulation is for hosts without AVX-512: do not compile with -mavx512f"
#endif

/* ---- Host instructions, taken before SIMDe's aliases can shadow them ---- */

/* Integer immediates must be constants: one case per value. */
#define ONYX_EMU_CASES16(F) \
  F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15)

static inline __m256 onyx_emu_host_round_ps(__m256 v, int imm) {
  switch (imm & 15) {
#define ONYX_EMU_CASE(i) \
  case i:                \
    return _mm256_round_ps(v, i);
    ONYX_EMU_CASES16(ONYX_EMU_CASE)
#undef ONYX_EMU_CASE
  }
  abort();
}
static inline __m256d onyx_emu_host_round_pd(__m256d v, int imm) {
  switch (imm & 15) {
#define ONYX_EMU_CASE(i) \
  case i:                \
    return _mm256_round_pd(v, i);
    ONYX_EMU_CASES16(ONYX_EMU_CASE)
#undef ONYX_EMU_CASE
  }
  abort();
}
static inline __m256 onyx_emu_host_cvtph_ps(__m128i h) { return _mm256_cvtph_ps(h); }
/* Bits 2..0 of the immediate choose the rounding, as for VCVTPS2PH zmm;
 * bit 3 (suppress exceptions) changes no result. */
static inline __m128i onyx_emu_host_cvtps_ph(__m256 v, int imm) {
  switch (imm & 7) {
#define ONYX_EMU_CASE(i) \
  case i:                \
    return _mm256_cvtps_ph(v, i);
    ONYX_EMU_CASE(0) ONYX_EMU_CASE(1) ONYX_EMU_CASE(2) ONYX_EMU_CASE(3) ONYX_EMU_CASE(4)
    ONYX_EMU_CASE(5) ONYX_EMU_CASE(6) ONYX_EMU_CASE(7)
#undef ONYX_EMU_CASE
  }
  abort();
}

/* ---- SIMDe ----------------------------------------------------------------- */

#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

/* ---- Masked loads and stores, lane by lane --------------------------------- */

/*
 * maskz_loadu: lane i is element i of p where bit i of k is set, else 0;
 * mask_loadu: else lane i of src; mask_storeu: writes element i of p only
 * where bit i of k is set. No other byte is read or written. Each lane
 * goes through memcpy, as an unaligned access may.
 */
#define ONYX_EMU_MASKED(pre, suf, VT, ET, N, MT)                                               \
  static inline VT onyx_emu##pre##_mask_loadu_##suf(VT src, MT k, const void *p) {            \
    ET a[N];                                                                                  \
    memcpy(a, &src, sizeof a);                                                                \
    for (int i = 0; i < N; i++) {                                                             \
      if ((k >> i) & 1) memcpy(&a[i], (const unsigned char *)p + (size_t)i * sizeof(ET), sizeof(ET)); \
    }                                                                                         \
    VT v;                                                                                     \
    memcpy(&v, a, sizeof v);                                                                  \
    return v;                                                                                 \
  }                                                                                           \
  static inline VT onyx_emu##pre##_maskz_loadu_##suf(MT k, const void *p) {                   \
    VT z;                                                                                     \
    memset(&z, 0, sizeof z);                                                                  \
    return onyx_emu##pre##_mask_loadu_##suf(z, k, p);                                         \
  }                                                                                           \
  static inline void onyx_emu##pre##_mask_storeu_##suf(void *p, MT k, VT v) {                 \
    ET a[N];                                                                                  \
    memcpy(a, &v, sizeof a);                                                                  \
    for (int i = 0; i < N; i++) {                                                             \
      if ((k >> i) & 1) memcpy((unsigned char *)p + (size_t)i * sizeof(ET), &a[i], sizeof(ET)); \
    }                                                                                         \
  }

ONYX_EMU_MASKED(_mm512, ps, simde__m512, float, 16, simde__mmask16)
ONYX_EMU_MASKED(_mm512, pd, simde__m512d, double, 8, simde__mmask8)
ONYX_EMU_MASKED(_mm512, epi8, simde__m512i, uint8_t, 64, simde__mmask64)
ONYX_EMU_MASKED(_mm512, epi16, simde__m512i, uint16_t, 32, simde__mmask32)
ONYX_EMU_MASKED(_mm512, epi32, simde__m512i, uint32_t, 16, simde__mmask16)
ONYX_EMU_MASKED(_mm512, epi64, simde__m512i, uint64_t, 8, simde__mmask8)
ONYX_EMU_MASKED(_mm256, ps, simde__m256, float, 8, simde__mmask8)
ONYX_EMU_MASKED(_mm256, pd, simde__m256d, double, 4, simde__mmask8)
ONYX_EMU_MASKED(_mm256, epi8, simde__m256i, uint8_t, 32, simde__mmask32)
ONYX_EMU_MASKED(_mm256, epi16, simde__m256i, uint16_t, 16, simde__mmask16)
ONYX_EMU_MASKED(_mm256, epi32, simde__m256i, uint32_t, 8, simde__mmask8)
ONYX_EMU_MASKED(_mm256, epi64, simde__m256i, uint64_t, 4, simde__mmask8)
ONYX_EMU_MASKED(_mm, ps, simde__m128, float, 4, simde__mmask8)
ONYX_EMU_MASKED(_mm, pd, simde__m128d, double, 2, simde__mmask8)
ONYX_EMU_MASKED(_mm, epi8, simde__m128i, uint8_t, 16, simde__mmask16)
ONYX_EMU_MASKED(_mm, epi16, simde__m128i, uint16_t, 8, simde__mmask8)
ONYX_EMU_MASKED(_mm, epi32, simde__m128i, uint32_t, 4, simde__mmask8)
ONYX_EMU_MASKED(_mm, epi64, simde__m128i, uint64_t, 2, simde__mmask8)

/* Every masked form above replaces SIMDe's, if it has one. */

#undef _mm512_mask_loadu_ps
#undef _mm512_maskz_loadu_ps
#undef _mm512_mask_storeu_ps
#undef _mm512_mask_loadu_pd
#undef _mm512_maskz_loadu_pd
#undef _mm512_mask_storeu_pd
#undef _mm512_mask_loadu_epi8
#undef _mm512_maskz_loadu_epi8
#undef _mm512_mask_storeu_epi8
#undef _mm512_mask_loadu_epi16
#undef _mm512_maskz_loadu_epi16
#undef _mm512_mask_storeu_epi16
#undef _mm512_mask_loadu_epi32
#undef _mm512_maskz_loadu_epi32
#undef _mm512_mask_storeu_epi32
#undef _mm512_mask_loadu_epi64
#undef _mm512_maskz_loadu_epi64
#undef _mm512_mask_storeu_epi64
#undef _mm256_mask_loadu_ps
#undef _mm256_maskz_loadu_ps
#undef _mm256_mask_storeu_ps
#undef _mm256_mask_loadu_pd
#undef _mm256_maskz_loadu_pd
#undef _mm256_mask_storeu_pd
#undef _mm256_mask_loadu_epi8
#undef _mm256_maskz_loadu_epi8
#undef _mm256_mask_storeu_epi8
#undef _mm256_mask_loadu_epi16
#undef _mm256_maskz_loadu_epi16
#undef _mm256_mask_storeu_epi16
#undef _mm256_mask_loadu_epi32
#undef _mm256_maskz_loadu_epi32
#undef _mm256_mask_storeu_epi32
#undef _mm256_mask_loadu_epi64
#undef _mm256_maskz_loadu_epi64
#undef _mm256_mask_storeu_epi64
#undef _mm_mask_loadu_ps
#undef _mm_maskz_loadu_ps
#undef _mm_mask_storeu_ps
#undef _mm_mask_loadu_pd
#undef _mm_maskz_loadu_pd
#undef _mm_mask_storeu_pd
#undef _mm_mask_loadu_epi8
#undef _mm_maskz_loadu_epi8
#undef _mm_mask_storeu_epi8
#undef _mm_mask_loadu_epi16
#undef _mm_maskz_loadu_epi16
#undef _mm_mask_storeu_epi16
#undef _mm_mask_loadu_epi32
#undef _mm_maskz_loadu_epi32
#undef _mm_mask_storeu_epi32
#undef _mm_mask_loadu_epi64
#undef _mm_maskz_loadu_epi64
#undef _mm_mask_storeu_epi64
#define _mm512_mask_loadu_ps onyx_emu_mm512_mask_loadu_ps
#define _mm512_maskz_loadu_ps onyx_emu_mm512_maskz_loadu_ps
#define _mm512_mask_storeu_ps onyx_emu_mm512_mask_storeu_ps
#define _mm512_mask_loadu_pd onyx_emu_mm512_mask_loadu_pd
#define _mm512_maskz_loadu_pd onyx_emu_mm512_maskz_loadu_pd
#define _mm512_mask_storeu_pd onyx_emu_mm512_mask_storeu_pd
#define _mm512_mask_loadu_epi8 onyx_emu_mm512_mask_loadu_epi8
#define _mm512_maskz_loadu_epi8 onyx_emu_mm512_maskz_loadu_epi8
#define _mm512_mask_storeu_epi8 onyx_emu_mm512_mask_storeu_epi8
#define _mm512_mask_loadu_epi16 onyx_emu_mm512_mask_loadu_epi16
#define _mm512_maskz_loadu_epi16 onyx_emu_mm512_maskz_loadu_epi16
#define _mm512_mask_storeu_epi16 onyx_emu_mm512_mask_storeu_epi16
#define _mm512_mask_loadu_epi32 onyx_emu_mm512_mask_loadu_epi32
#define _mm512_maskz_loadu_epi32 onyx_emu_mm512_maskz_loadu_epi32
#define _mm512_mask_storeu_epi32 onyx_emu_mm512_mask_storeu_epi32
#define _mm512_mask_loadu_epi64 onyx_emu_mm512_mask_loadu_epi64
#define _mm512_maskz_loadu_epi64 onyx_emu_mm512_maskz_loadu_epi64
#define _mm512_mask_storeu_epi64 onyx_emu_mm512_mask_storeu_epi64
#define _mm256_mask_loadu_ps onyx_emu_mm256_mask_loadu_ps
#define _mm256_maskz_loadu_ps onyx_emu_mm256_maskz_loadu_ps
#define _mm256_mask_storeu_ps onyx_emu_mm256_mask_storeu_ps
#define _mm256_mask_loadu_pd onyx_emu_mm256_mask_loadu_pd
#define _mm256_maskz_loadu_pd onyx_emu_mm256_maskz_loadu_pd
#define _mm256_mask_storeu_pd onyx_emu_mm256_mask_storeu_pd
#define _mm256_mask_loadu_epi8 onyx_emu_mm256_mask_loadu_epi8
#define _mm256_maskz_loadu_epi8 onyx_emu_mm256_maskz_loadu_epi8
#define _mm256_mask_storeu_epi8 onyx_emu_mm256_mask_storeu_epi8
#define _mm256_mask_loadu_epi16 onyx_emu_mm256_mask_loadu_epi16
#define _mm256_maskz_loadu_epi16 onyx_emu_mm256_maskz_loadu_epi16
#define _mm256_mask_storeu_epi16 onyx_emu_mm256_mask_storeu_epi16
#define _mm256_mask_loadu_epi32 onyx_emu_mm256_mask_loadu_epi32
#define _mm256_maskz_loadu_epi32 onyx_emu_mm256_maskz_loadu_epi32
#define _mm256_mask_storeu_epi32 onyx_emu_mm256_mask_storeu_epi32
#define _mm256_mask_loadu_epi64 onyx_emu_mm256_mask_loadu_epi64
#define _mm256_maskz_loadu_epi64 onyx_emu_mm256_maskz_loadu_epi64
#define _mm256_mask_storeu_epi64 onyx_emu_mm256_mask_storeu_epi64
#define _mm_mask_loadu_ps onyx_emu_mm_mask_loadu_ps
#define _mm_maskz_loadu_ps onyx_emu_mm_maskz_loadu_ps
#define _mm_mask_storeu_ps onyx_emu_mm_mask_storeu_ps
#define _mm_mask_loadu_pd onyx_emu_mm_mask_loadu_pd
#define _mm_maskz_loadu_pd onyx_emu_mm_maskz_loadu_pd
#define _mm_mask_storeu_pd onyx_emu_mm_mask_storeu_pd
#define _mm_mask_loadu_epi8 onyx_emu_mm_mask_loadu_epi8
#define _mm_maskz_loadu_epi8 onyx_emu_mm_maskz_loadu_epi8
#define _mm_mask_storeu_epi8 onyx_emu_mm_mask_storeu_epi8
#define _mm_mask_loadu_epi16 onyx_emu_mm_mask_loadu_epi16
#define _mm_maskz_loadu_epi16 onyx_emu_mm_maskz_loadu_epi16
#define _mm_mask_storeu_epi16 onyx_emu_mm_mask_storeu_epi16
#define _mm_mask_loadu_epi32 onyx_emu_mm_mask_loadu_epi32
#define _mm_maskz_loadu_epi32 onyx_emu_mm_maskz_loadu_epi32
#define _mm_mask_storeu_epi32 onyx_emu_mm_mask_storeu_epi32
#define _mm_mask_loadu_epi64 onyx_emu_mm_mask_loadu_epi64
#define _mm_maskz_loadu_epi64 onyx_emu_mm_maskz_loadu_epi64
#define _mm_mask_storeu_epi64 onyx_emu_mm_mask_storeu_epi64

/* ---- Aligned and streaming stores and loads: the hardware's fault ---------- */

/* VMOVNTPS and VMOVAPS zmm fault on an address not aligned to 64 bytes. */
static inline void onyx_emu_need_align64(const void *p) {
  if ((uintptr_t)p % 64u != 0) __builtin_trap();
}
static inline void onyx_emu_mm512_stream_ps(void *p, simde__m512 v) {
  onyx_emu_need_align64(p);
  memcpy(p, &v, 64);
}
static inline void onyx_emu_mm512_stream_pd(void *p, simde__m512d v) {
  onyx_emu_need_align64(p);
  memcpy(p, &v, 64);
}
static inline void onyx_emu_mm512_stream_si512(void *p, simde__m512i v) {
  onyx_emu_need_align64(p);
  memcpy(p, &v, 64);
}
static inline void onyx_emu_mm512_store_ps(void *p, simde__m512 v) { onyx_emu_mm512_stream_ps(p, v); }
static inline void onyx_emu_mm512_store_pd(void *p, simde__m512d v) { onyx_emu_mm512_stream_pd(p, v); }
static inline void onyx_emu_mm512_store_si512(void *p, simde__m512i v) {
  onyx_emu_mm512_stream_si512(p, v);
}
static inline simde__m512 onyx_emu_mm512_load_ps(const void *p) {
  simde__m512 v;
  onyx_emu_need_align64(p);
  memcpy(&v, p, 64);
  return v;
}
static inline simde__m512d onyx_emu_mm512_load_pd(const void *p) {
  simde__m512d v;
  onyx_emu_need_align64(p);
  memcpy(&v, p, 64);
  return v;
}
static inline simde__m512i onyx_emu_mm512_load_si512(const void *p) {
  simde__m512i v;
  onyx_emu_need_align64(p);
  memcpy(&v, p, 64);
  return v;
}
#undef _mm512_stream_ps
#undef _mm512_stream_pd
#undef _mm512_stream_si512
#undef _mm512_store_ps
#undef _mm512_store_pd
#undef _mm512_store_si512
#undef _mm512_load_ps
#undef _mm512_load_pd
#undef _mm512_load_si512
#define _mm512_stream_ps onyx_emu_mm512_stream_ps
#define _mm512_stream_pd onyx_emu_mm512_stream_pd
#define _mm512_stream_si512 onyx_emu_mm512_stream_si512
#define _mm512_store_ps onyx_emu_mm512_store_ps
#define _mm512_store_pd onyx_emu_mm512_store_pd
#define _mm512_store_si512 onyx_emu_mm512_store_si512
#define _mm512_load_ps onyx_emu_mm512_load_ps
#define _mm512_load_pd onyx_emu_mm512_load_pd
#define _mm512_load_si512 onyx_emu_mm512_load_si512

/* ---- float16 conversions on the host's F16C -------------------------------- */

static inline simde__m512 onyx_emu_mm512_cvtph_ps(simde__m256i h) {
  __m128i in[2];
  __m256 out[2];
  simde__m512 r;
  memcpy(in, &h, sizeof in);
  out[0] = onyx_emu_host_cvtph_ps(in[0]);
  out[1] = onyx_emu_host_cvtph_ps(in[1]);
  memcpy(&r, out, sizeof r);
  return r;
}
static inline simde__m256i onyx_emu_mm512_cvtps_ph(simde__m512 f, int imm) {
  __m256 in[2];
  __m128i out[2];
  simde__m256i r;
  memcpy(in, &f, sizeof in);
  out[0] = onyx_emu_host_cvtps_ph(in[0], imm);
  out[1] = onyx_emu_host_cvtps_ph(in[1], imm);
  memcpy(&r, out, sizeof r);
  return r;
}
#undef _mm512_cvtph_ps
#undef _mm512_cvtps_ph
#define _mm512_cvtph_ps onyx_emu_mm512_cvtph_ps
#define _mm512_cvtps_ph onyx_emu_mm512_cvtps_ph

/* ---- VRNDSCALE with scale 0 on the host's VROUNDPS/PD ---------------------- */

/* The immediate, or a compile-time error when it asks for a scale. */
#define ONYX_EMU_SCALE0(imm) ((int)(imm) + 0 * (int)sizeof(char[((imm) >> 4) == 0 ? 1 : -1]))

static inline simde__m512 onyx_emu_mm512_roundscale_ps(simde__m512 a, int imm) {
  __m256 h[2];
  simde__m512 r;
  memcpy(h, &a, sizeof h);
  h[0] = onyx_emu_host_round_ps(h[0], imm);
  h[1] = onyx_emu_host_round_ps(h[1], imm);
  memcpy(&r, h, sizeof r);
  return r;
}
static inline simde__m512d onyx_emu_mm512_roundscale_pd(simde__m512d a, int imm) {
  __m256d h[2];
  simde__m512d r;
  memcpy(h, &a, sizeof h);
  h[0] = onyx_emu_host_round_pd(h[0], imm);
  h[1] = onyx_emu_host_round_pd(h[1], imm);
  memcpy(&r, h, sizeof r);
  return r;
}
#undef _mm512_roundscale_ps
#undef _mm512_roundscale_pd
#undef _mm512_mask_roundscale_ps
#undef _mm512_mask_roundscale_pd
#undef _mm512_maskz_roundscale_ps
#undef _mm512_maskz_roundscale_pd
#define _mm512_roundscale_ps(a, imm) onyx_emu_mm512_roundscale_ps(a, ONYX_EMU_SCALE0(imm))
#define _mm512_roundscale_pd(a, imm) onyx_emu_mm512_roundscale_pd(a, ONYX_EMU_SCALE0(imm))
#define _mm512_mask_roundscale_ps(src, k, a, imm) \
  simde_mm512_mask_mov_ps(src, k, _mm512_roundscale_ps(a, imm))
#define _mm512_mask_roundscale_pd(src, k, a, imm) \
  simde_mm512_mask_mov_pd(src, k, _mm512_roundscale_pd(a, imm))
#define _mm512_maskz_roundscale_ps(k, a, imm) simde_mm512_maskz_mov_ps(k, _mm512_roundscale_ps(a, imm))
#define _mm512_maskz_roundscale_pd(k, a, imm) simde_mm512_maskz_mov_pd(k, _mm512_roundscale_pd(a, imm))

/* ---- AVX512-FP16: __m512h and VRNDSCALEPH ------------------------------------ */

/*
 * __m512h as a struct around the 32 halves' bits rather than the integer
 * vector type itself, so that a kernel that mixes __m512h and __m512i
 * without a cast fails to compile here, as it does on the hardware. The
 * casts only wrap and unwrap the bits, as the real ones compile to nothing.
 */
typedef struct {
  simde__m512i bits;
} onyx_emu_m512h;
static inline onyx_emu_m512h onyx_emu_mm512_castsi512_ph(simde__m512i a) {
  onyx_emu_m512h h = {a};
  return h;
}
static inline simde__m512i onyx_emu_mm512_castph_si512(onyx_emu_m512h a) { return a.bits; }

/*
 * VRNDSCALEPH with scale 0, eight halves at a time on the host: VCVTPH2PS
 * widens each exactly (a signalling NaN comes out quiet, its payload in the
 * top bits), VROUNDPS rounds with the same immediate (bits 1..0 the
 * direction, bit 2 MXCSR's instead, bit 3 no precision exception: the same
 * encoding), and VCVTPS2PH narrows back exactly, because an integral value
 * of a half is a half, +-0 and +-inf stay as they are, and a NaN keeps the
 * payload it had with the quiet bit set. That is what VRNDSCALEPH returns:
 * the rounded value, the sign of a zero kept, a NaN converted to a quiet
 * one. Subnormal halves widen to normal float32 values, so MXCSR.DAZ
 * could not flush them here either.
 */
static inline onyx_emu_m512h onyx_emu_mm512_roundscale_ph(onyx_emu_m512h a, int imm) {
  __m128i h[4];
  memcpy(h, &a.bits, sizeof h);
  for (int i = 0; i < 4; i++) {
    h[i] = onyx_emu_host_cvtps_ph(onyx_emu_host_round_ps(onyx_emu_host_cvtph_ps(h[i]), imm),
                                  0 /* to nearest even: exact here */);
  }
  memcpy(&a.bits, h, sizeof h);
  return a;
}

#undef __m512h
#undef _mm512_castsi512_ph
#undef _mm512_castph_si512
#undef _mm512_roundscale_ph
#define __m512h onyx_emu_m512h
#define _mm512_castsi512_ph onyx_emu_mm512_castsi512_ph
#define _mm512_castph_si512 onyx_emu_mm512_castph_si512
#define _mm512_roundscale_ph(a, imm) onyx_emu_mm512_roundscale_ph(a, ONYX_EMU_SCALE0(imm))

/* ---- 16-bit lanes: compares and masked arithmetic SIMDe lacks -------------- */

#define ONYX_EMU_I16(name, v) \
  int16_t name[32];           \
  memcpy(name, &(v), sizeof name)

static inline simde__mmask32 onyx_emu_mm512_cmpgt_epi16_mask(simde__m512i a, simde__m512i b) {
  ONYX_EMU_I16(x, a);
  ONYX_EMU_I16(y, b);
  simde__mmask32 k = 0;
  for (int i = 0; i < 32; i++) {
    if (x[i] > y[i]) k |= (simde__mmask32)1 << i;
  }
  return k;
}
static inline simde__mmask32 onyx_emu_mm512_cmplt_epi16_mask(simde__m512i a, simde__m512i b) {
  return onyx_emu_mm512_cmpgt_epi16_mask(b, a);
}
static inline simde__mmask32 onyx_emu_mm512_cmple_epi16_mask(simde__m512i a, simde__m512i b) {
  return ~onyx_emu_mm512_cmpgt_epi16_mask(a, b);
}
static inline simde__mmask32 onyx_emu_mm512_cmpge_epi16_mask(simde__m512i a, simde__m512i b) {
  return ~onyx_emu_mm512_cmpgt_epi16_mask(b, a);
}
/* The sign bit of each lane. */
static inline simde__mmask32 onyx_emu_mm512_movepi16_mask(simde__m512i a) {
  ONYX_EMU_I16(x, a);
  simde__mmask32 k = 0;
  for (int i = 0; i < 32; i++) {
    if (x[i] < 0) k |= (simde__mmask32)1 << i;
  }
  return k;
}
/* Lane i: a - b (wrapping) where bit i of k is set, else src. */
static inline simde__m512i onyx_emu_mm512_mask_sub_epi16(simde__m512i src, simde__mmask32 k,
                                                         simde__m512i a, simde__m512i b) {
  uint16_t s[32], x[32], y[32];
  simde__m512i r;
  memcpy(s, &src, sizeof s);
  memcpy(x, &a, sizeof x);
  memcpy(y, &b, sizeof y);
  for (int i = 0; i < 32; i++) {
    if ((k >> i) & 1) s[i] = (uint16_t)(x[i] - y[i]);
  }
  memcpy(&r, s, sizeof r);
  return r;
}
static inline simde__m512i onyx_emu_mm512_maskz_sub_epi16(simde__mmask32 k, simde__m512i a,
                                                          simde__m512i b) {
  return onyx_emu_mm512_mask_sub_epi16(simde_mm512_setzero_si512(), k, a, b);
}
static inline simde__m512i onyx_emu_mm512_mask_add_epi16(simde__m512i src, simde__mmask32 k,
                                                         simde__m512i a, simde__m512i b) {
  uint16_t s[32], x[32], y[32];
  simde__m512i r;
  memcpy(s, &src, sizeof s);
  memcpy(x, &a, sizeof x);
  memcpy(y, &b, sizeof y);
  for (int i = 0; i < 32; i++) {
    if ((k >> i) & 1) s[i] = (uint16_t)(x[i] + y[i]);
  }
  memcpy(&r, s, sizeof r);
  return r;
}
/* Bit i: lane i of a AND b is nonzero (test) or zero (testn). SIMDe's
 * versions shift a signed 1 into bit 31, which UBSan rejects. */
static inline simde__mmask32 onyx_emu_mm512_test_epi16_mask(simde__m512i a, simde__m512i b) {
  ONYX_EMU_I16(x, a);
  ONYX_EMU_I16(y, b);
  simde__mmask32 k = 0;
  for (int i = 0; i < 32; i++) {
    if ((x[i] & y[i]) != 0) k |= (simde__mmask32)1 << i;
  }
  return k;
}
static inline simde__mmask32 onyx_emu_mm512_testn_epi16_mask(simde__m512i a, simde__m512i b) {
  return ~onyx_emu_mm512_test_epi16_mask(a, b);
}
#undef _mm512_test_epi16_mask
#undef _mm512_testn_epi16_mask
#undef _mm512_mask_test_epi16_mask
#undef _mm512_mask_testn_epi16_mask
#define _mm512_test_epi16_mask onyx_emu_mm512_test_epi16_mask
#define _mm512_testn_epi16_mask onyx_emu_mm512_testn_epi16_mask
#define _mm512_mask_test_epi16_mask(k, a, b) ((k) & onyx_emu_mm512_test_epi16_mask(a, b))
#define _mm512_mask_testn_epi16_mask(k, a, b) ((k) & onyx_emu_mm512_testn_epi16_mask(a, b))

/* Unsigned 16-bit a < b, which SIMDe 0.7.4 lacks. */
static inline simde__mmask32 onyx_emu_mm512_cmplt_epu16_mask(simde__m512i a, simde__m512i b) {
  uint16_t x[32], y[32];
  memcpy(x, &a, sizeof x);
  memcpy(y, &b, sizeof y);
  simde__mmask32 k = 0;
  for (int i = 0; i < 32; i++) {
    if (x[i] < y[i]) k |= (simde__mmask32)1 << i;
  }
  return k;
}
/* VPERMI2W / VPERMT2W: lane i is entry idx[i] & 63 of the 64-entry table
 * a (entries 0-31) then b (32-63). */
static inline simde__m512i onyx_emu_mm512_permutex2var_epi16(simde__m512i a, simde__m512i idx,
                                                             simde__m512i b) {
  uint16_t t[64], j[32], r16[32];
  simde__m512i r;
  memcpy(t, &a, 64);
  memcpy(t + 32, &b, 64);
  memcpy(j, &idx, sizeof j);
  for (int i = 0; i < 32; i++) r16[i] = t[j[i] & 63];
  memcpy(&r, r16, sizeof r);
  return r;
}
/* VPERMW with zero masking: lane i is entry idx[i] & 31 of a where bit i
 * of k is set, else 0. */
static inline simde__m512i onyx_emu_mm512_maskz_permutexvar_epi16(simde__mmask32 k, simde__m512i idx,
                                                                  simde__m512i a) {
  uint16_t t[32], j[32], r16[32];
  simde__m512i r;
  memcpy(t, &a, sizeof t);
  memcpy(j, &idx, sizeof j);
  for (int i = 0; i < 32; i++) r16[i] = ((k >> i) & 1) ? t[j[i] & 31] : 0;
  memcpy(&r, r16, sizeof r);
  return r;
}
#undef _mm512_cmplt_epu16_mask
#undef _mm512_permutex2var_epi16
#undef _mm512_maskz_permutexvar_epi16
#define _mm512_cmplt_epu16_mask onyx_emu_mm512_cmplt_epu16_mask
#define _mm512_permutex2var_epi16 onyx_emu_mm512_permutex2var_epi16
#define _mm512_maskz_permutexvar_epi16 onyx_emu_mm512_maskz_permutexvar_epi16

#undef _mm512_cmpgt_epi16_mask
#undef _mm512_cmplt_epi16_mask
#undef _mm512_cmple_epi16_mask
#undef _mm512_cmpge_epi16_mask
#undef _mm512_movepi16_mask
#undef _mm512_mask_sub_epi16
#undef _mm512_maskz_sub_epi16
#undef _mm512_mask_add_epi16
#define _mm512_cmpgt_epi16_mask onyx_emu_mm512_cmpgt_epi16_mask
#define _mm512_cmplt_epi16_mask onyx_emu_mm512_cmplt_epi16_mask
#define _mm512_cmple_epi16_mask onyx_emu_mm512_cmple_epi16_mask
#define _mm512_cmpge_epi16_mask onyx_emu_mm512_cmpge_epi16_mask
#define _mm512_movepi16_mask onyx_emu_mm512_movepi16_mask
#define _mm512_mask_sub_epi16 onyx_emu_mm512_mask_sub_epi16
#define _mm512_maskz_sub_epi16 onyx_emu_mm512_maskz_sub_epi16
#define _mm512_mask_add_epi16 onyx_emu_mm512_mask_add_epi16

#endif
