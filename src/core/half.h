/* SPDX-License-Identifier: MIT */
/*
 * float16 and bfloat16. They are distinct struct types so that one cannot be
 * passed where the other is expected. Conversions to float32 are exact;
 * conversions from float32 round to nearest even, keep infinities, and keep
 * a NaN a NaN with as much of its payload as fits (the quiet bit is set), so
 * that a half value survives a round trip through float32 bit for bit, except
 * that a signalling NaN comes back quiet (as F16C's VCVTPS2PH does; numpy
 * would keep it signalling). tests/unit/test_half.c pins this.
 */
#ifndef ONYX_CORE_HALF_H
#define ONYX_CORE_HALF_H

#include <stdint.h>
#include <string.h>

typedef struct onyx__f16 {
  uint16_t bits;
} onyx__f16;
typedef struct onyx__bf16 {
  uint16_t bits;
} onyx__bf16;

static inline uint32_t onyx__f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
static inline float onyx__f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static inline float onyx__f16_to_f32(onyx__f16 h) {
  uint32_t sign = (uint32_t)(h.bits & 0x8000u) << 16;
  uint32_t exp = (h.bits >> 10) & 0x1fu;
  uint32_t man = h.bits & 0x3ffu;
  if (exp == 0x1f) return onyx__f32_from_bits(sign | 0x7f800000u | (man << 13));
  if (exp != 0) return onyx__f32_from_bits(sign | ((exp + 112u) << 23) | (man << 13));
  if (man == 0) return onyx__f32_from_bits(sign);
  /* A subnormal half is man * 2^-24, exactly representable as a float. */
  float v = (float)man * (1.0f / 16777216.0f);
  return sign ? -v : v;
}

static inline onyx__f16 onyx__f32_to_f16(float f) {
  uint32_t u = onyx__f32_bits(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7fffffffu;
  onyx__f16 h;
  if (a >= 0x7f800000u) {
    /* Infinity, or NaN: keep the top payload bits and force the quiet bit so
     * that a NaN whose payload lies only in the low bits stays a NaN. */
    h.bits = (uint16_t)(sign | 0x7c00u | (a > 0x7f800000u ? (0x200u | ((a >> 13) & 0x3ffu)) : 0));
    return h;
  }
  if (a >= 0x477ff000u) { /* rounds to 65520 or above: overflow to infinity */
    h.bits = (uint16_t)(sign | 0x7c00u);
    return h;
  }
  if (a < 0x38800000u) {   /* below the smallest normal half (2^-14) */
    if (a < 0x33000000u) { /* below half the smallest subnormal: rounds to zero */
      h.bits = sign;
      return h;
    }
    uint32_t exp = a >> 23;
    uint32_t man = (a & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - exp; /* 14..24 */
    uint32_t q = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (q & 1u))) q++;
    h.bits = (uint16_t)(sign | q);
    return h;
  }
  uint32_t r = a - 0x38000000u; /* rebias exponent from 127 to 15 */
  uint32_t q = r >> 13;
  uint32_t rem = r & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) q++;
  h.bits = (uint16_t)(sign | q);
  return h;
}

static inline float onyx__bf16_to_f32(onyx__bf16 b) {
  return onyx__f32_from_bits((uint32_t)b.bits << 16);
}

static inline onyx__bf16 onyx__f32_to_bf16(float f) {
  uint32_t u = onyx__f32_bits(f);
  onyx__bf16 b;
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    b.bits = (uint16_t)((u >> 16) | 0x40u); /* NaN: keep it a (quiet) NaN */
    return b;
  }
  uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  b.bits = (uint16_t)((u + rounding) >> 16);
  return b;
}

#endif
