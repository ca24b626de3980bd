/* SPDX-License-Identifier: MIT */
/* The public half-float conversions (onyx.h), over core/half.h's. */
#include "core/half.h"

#include "onyx.h"

float onyx_f16_to_float(uint16_t bits) { return onyx__f16_to_f32((onyx__f16){bits}); }

uint16_t onyx_float_to_f16(float value) { return onyx__f32_to_f16(value).bits; }

float onyx_bf16_to_float(uint16_t bits) { return onyx__bf16_to_f32((onyx__bf16){bits}); }

uint16_t onyx_float_to_bf16(float value) { return onyx__f32_to_bf16(value).bits; }
