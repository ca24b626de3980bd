/* SPDX-License-Identifier: MIT */
/*
 * CPU feature detection. The ISA level is detected once per process (on
 * x86-64 from CPUID and the OS's saved-register state, XCR0; on ARM from
 * the architecture and the kernel's HWCAP), then lowered, never
 * raised, by the environment variable ONYX_ISA. Everything here is
 * thread-safe.
 */
#ifndef ONYX_CPU_CPU_H
#define ONYX_CPU_CPU_H

#include <stdbool.h>

#include "onyx.h"

/*
 * Single features that a kernel of some ISA level may want to test on top of
 * its level, e.g. an AVX-512 table that has a faster float16 path where the
 * CPU converts float16 natively.
 */
typedef enum onyx__cpu_feature {
  ONYX__CPU_F16C,       /* VCVTPH2PS/VCVTPS2PH (usable only with AVX state) */
  ONYX__CPU_AVX512FP16, /* CPUID.(7,0):EDX[23] (usable only with AVX-512 state) */
  ONYX__CPU_AVX512BF16, /* CPUID.(7,1):EAX[5] (usable only with AVX-512 state) */
  ONYX__CPU_NEON_FP16   /* AArch64 FEAT_FP16: half-precision arithmetic (HWCAP_ASIMDHP) */
} onyx__cpu_feature;

/* The ISA level the CPU and OS support, lowered by ONYX_ISA if set. */
onyx_isa onyx__cpu_isa(void);

/*
 * Whether feature is usable. A feature is reported only when the CPU has it,
 * the OS saves the registers it uses, and the ISA level it needs is not above
 * onyx__cpu_isa(): F16C needs ONYX_ISA_AVX2, the AVX-512 features need
 * ONYX_ISA_AVX512, NEON_FP16 ONYX_ISA_NEON. So ONYX_ISA=avx2 also hides
 * AVX512_FP16, and ONYX_ISA=scalar NEON_FP16.
 */
bool onyx__cpu_has(onyx__cpu_feature feature);

/*
 * The level that the value of ONYX_ISA (env, may be NULL) makes of the
 * hardware level hw: hw itself when env is NULL, not a name of
 * ONYX_ISA_MAP, or names a level at or above hw; else the named level if it
 * is scalar or of hw's architecture, and scalar if it is of another one (an
 * ARM CPU asked for avx2 has no level between). Pure; exposed for tests.
 */
onyx_isa onyx__cpu_isa_lower(onyx_isa hw, const char *env);

#endif
