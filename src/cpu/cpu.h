/* SPDX-License-Identifier: MIT */
/*
 * CPU features. Each architecture fills one bitmask of the features its
 * kernels need, once per process (x86: CPUID and the OS's saved-register
 * state, XCR0; ARM: the architecture and the kernel's HWCAP; WebAssembly:
 * the build), next to its detection in cpu.c. The environment variable
 * ONYX_ISA then clears the features of the levels above the one it names,
 * so it lowers, never raises. Dispatch (src/kernels/dispatch.c) picks, per
 * kernel, the first table whose features the mask has. Everything here is
 * thread-safe.
 */
#ifndef ONYX_CPU_CPU_H
#define ONYX_CPU_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "onyx.h"

/*
 * The features, as one list: X(NAME, the ::onyx_isa level whose cap allows
 * it). A feature is reported only when the CPU has it and the OS saves the
 * registers it uses.
 */
#define ONYX__CPU_FEATURE_MAP(X)                                                      \
  X(SSE41, SSE41)          /* SSE4.1 */                                               \
  X(AVX2, AVX2)            /* AVX2, AVX and FMA, with the OS's YMM state */           \
  X(F16C, AVX2)            /* VCVTPH2PS/VCVTPS2PH, with the OS's YMM state */         \
  X(AVX512, AVX512)        /* AVX-512 F, DQ, BW and VL, with opmask and ZMM state */  \
  X(AVX512FP16, AVX512)    /* CPUID.(7,0):EDX[23], with the AVX-512 state */          \
  X(NEON, NEON)            /* Advanced SIMD: every AArch64 CPU, ARMv7's HWCAP_NEON */ \
  X(NEON_FP16, NEON)       /* AArch64 FEAT_FP16: half-precision arithmetic */         \
  X(SIMD128, WASM_SIMD128) /* WebAssembly SIMD128, chosen when built */

typedef enum onyx__cpu_feature {
#define ONYX_X_(name, level) ONYX__CPU_##name,
  ONYX__CPU_FEATURE_MAP(ONYX_X_)
#undef ONYX_X_
      ONYX__CPU_FEATURE_COUNT
} onyx__cpu_feature;

/* A set of features: bit f is feature f. */
typedef uint32_t onyx__cpu_mask;
#define ONYX__CPU_BIT(f) ((onyx__cpu_mask)1 << (unsigned)ONYX__CPU_##f)
#define ONYX__CPU_ALL    ((onyx__cpu_mask)((1ull << ONYX__CPU_FEATURE_COUNT) - 1u))

/* The features this CPU and OS have, less those ONYX_ISA switches off. */
onyx__cpu_mask onyx__cpu_features(void);

/* Whether feature is in onyx__cpu_features(). */
bool onyx__cpu_has(onyx__cpu_feature feature);

/* ONYX_ISA_BEST's value in onyx 0.1.0, still taken as no cap so that
 * programs built against it keep working (onyx.h, ::ONYX_ISA_MAP). */
#define ONYX__ISA_BEST_0_1 255

/*
 * The features a cap allows: those whose level is cap or below it on cap's
 * architecture (::ONYX_ISA_MAP lists each architecture's levels lowest
 * first). Every feature for ONYX_ISA_BEST and ONYX__ISA_BEST_0_1; none for
 * ONYX_ISA_SCALAR or a value that names no level. Pure.
 */
onyx__cpu_mask onyx__cpu_cap_mask(onyx_isa cap);

/* The level ONYX_ISA=name names: ONYX_ISA_BEST for NULL, "best" or a name
 * that is no level (ignored). Pure. */
onyx_isa onyx__cpu_isa_named(const char *name);

/*
 * The level kernels run at with no cap (onyx_isa_detected()): that of the
 * first kernel table onyx__cpu_features() allows. Defined in dispatch.c,
 * which holds the tables.
 */
onyx_isa onyx__cpu_isa(void);

/*
 * The level that ONYX_ISA=env makes of the level hw: hw itself when env is
 * NULL, no level's name, or a level at or above hw on hw's architecture;
 * the named level when it is below hw there; scalar when it is of another
 * architecture. Pure; for tests, which ask it which levels they can reach.
 */
onyx_isa onyx__cpu_isa_lower(onyx_isa hw, const char *env);

#endif
