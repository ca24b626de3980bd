/* SPDX-License-Identifier: MIT */
#include "cpu/cpu.h"

#include "os/compiler.h"
#include "os/os.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define ONYX__CPU_X86 1
#include <cpuid.h>
#endif

#define BIT ONYX__CPU_BIT

/*
 * What detection found, less what ONYX_ISA switches off. It is written
 * once, inside onyx__os_once_run, and only read afterwards; the once call
 * orders the write before every read, so no further locking is needed.
 */
static onyx__cpu_mask onyx__cpu_state;
static onyx__os_once onyx__cpu_once = ONYX__OS_ONCE_INIT;

/* ---- Detection: one section per architecture ---------------------------- */

#ifdef ONYX__CPU_X86
static onyx__cpu_mask detect_hw(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  const bool sse41 = (c >> 19) & 1u;
  const bool fma = (c >> 12) & 1u;
  const bool osxsave = (c >> 27) & 1u;
  const bool avx = (c >> 28) & 1u;
  const bool f16c = (c >> 29) & 1u;

  bool avx2 = false, avx512 = false, fp16 = false;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
    avx2 = (b >> 5) & 1u;
    /* AVX512F (16), AVX512DQ (17), AVX512BW (30), AVX512VL (31). */
    avx512 = ((b >> 16) & 1u) && ((b >> 17) & 1u) && ((b >> 30) & 1u) && ((b >> 31) & 1u);
    fp16 = (d >> 23) & 1u;
  }

  uint64_t xcr0 = osxsave ? onyx__x86_xgetbv0() : 0;
  /* XMM and YMM state (bits 1, 2); with opmask, ZMM_Hi256 and Hi16_ZMM (5-7). */
  const bool os_avx = (xcr0 & 0x6u) == 0x6u;
  const bool os_avx512 = (xcr0 & 0xe6u) == 0xe6u;

  onyx__cpu_mask m = 0;
  if (sse41) m |= BIT(SSE41);
  if (avx && avx2 && fma && os_avx) m |= BIT(AVX2);
  if (avx && f16c && os_avx) m |= BIT(F16C);
  if (avx512 && os_avx512) m |= BIT(AVX512);
  if (avx512 && os_avx512 && fp16) m |= BIT(AVX512FP16);
  return m;
}
#elif defined(__aarch64__)
/*
 * Advanced SIMD (NEON) is part of every AArch64 CPU that Linux runs on.
 * Half-precision arithmetic (FEAT_FP16, Armv8.2) is optional; the kernel
 * reports its Advanced SIMD part as HWCAP_ASIMDHP, bit 10 of AT_HWCAP in
 * Linux's arch/arm64/include/uapi/asm/hwcap.h.
 */
#define ONYX__ARM64_HWCAP_ASIMDHP (1ul << 10)
static onyx__cpu_mask detect_hw(void) {
  unsigned long hwcap, hwcap2;
  onyx__os_hwcap(&hwcap, &hwcap2);
  return BIT(NEON) | ((hwcap & ONYX__ARM64_HWCAP_ASIMDHP) ? BIT(NEON_FP16) : 0u);
}
#elif defined(__arm__)
/*
 * On 32-bit ARM, NEON is optional (an ARMv7 CPU may have VFP only), and the
 * kernel reports it in AT_HWCAP: HWCAP_NEON, bit 12 of Linux's
 * arch/arm/include/uapi/asm/hwcap.h. The NEON kernel file is compiled with
 * -mfpu=neon on its own, so nothing else uses NEON before this check.
 */
#define ONYX__ARM_HWCAP_NEON (1ul << 12)
static onyx__cpu_mask detect_hw(void) {
  unsigned long hwcap, hwcap2;
  onyx__os_hwcap(&hwcap, &hwcap2);
  return (hwcap & ONYX__ARM_HWCAP_NEON) ? BIT(NEON) : 0u;
}
#elif defined(__wasm_simd128__)
/*
 * WebAssembly has no run-time feature detection: a module built with
 * -msimd128 does not load where SIMD128 is missing, so a build with the
 * SIMD128 kernels (src/kernels/wasm/) always supports them.
 */
static onyx__cpu_mask detect_hw(void) { return BIT(SIMD128); }
#else
/* Other architectures have only the portable kernels. */
static onyx__cpu_mask detect_hw(void) { return 0; }
#endif

/* ---- Levels and caps ---------------------------------------------------- */

/* The architecture each level of ONYX_ISA_MAP belongs to. */
enum { ONYX__ARCH_ANY, ONYX__ARCH_X86, ONYX__ARCH_ARM, ONYX__ARCH_WASM };
static const struct {
  onyx_isa isa;
  const char *name;
  int arch;
} onyx__isa_levels[] = {
#define ONYX_X_(name, value, lname, arch, desc) {ONYX_ISA_##name, lname, ONYX__ARCH_##arch},
    ONYX_ISA_MAP(ONYX_X_)
#undef ONYX_X_
};
#define ONYX__ISA_LEVELS (sizeof onyx__isa_levels / sizeof onyx__isa_levels[0])

/* The level each feature's cap is, by onyx__cpu_feature. */
static const onyx_isa onyx__feature_level[ONYX__CPU_FEATURE_COUNT] = {
#define ONYX_X_(name, level) ONYX_ISA_##level,
    ONYX__CPU_FEATURE_MAP(ONYX_X_)
#undef ONYX_X_
};

/* isa's position in ONYX_ISA_MAP, or -1 if it names no level. */
static int level_index(onyx_isa isa) {
  for (size_t i = 0; i < ONYX__ISA_LEVELS; i++) {
    if (onyx__isa_levels[i].isa == isa) return (int)i;
  }
  return -1;
}

onyx__cpu_mask onyx__cpu_cap_mask(onyx_isa cap) {
  if (cap == ONYX_ISA_BEST || (int)cap == ONYX__ISA_BEST_0_1) return ONYX__CPU_ALL;
  const int ci = level_index(cap);
  if (ci < 0 || onyx__isa_levels[ci].arch == ONYX__ARCH_ANY) return 0;
  onyx__cpu_mask m = 0;
  for (int f = 0; f < ONYX__CPU_FEATURE_COUNT; f++) {
    /* The map lists each architecture's levels lowest first. */
    const int fi = level_index(onyx__feature_level[f]);
    if (fi >= 0 && fi <= ci && onyx__isa_levels[fi].arch == onyx__isa_levels[ci].arch) {
      m |= (onyx__cpu_mask)1 << (unsigned)f;
    }
  }
  return m;
}

onyx_isa onyx__cpu_isa_named(const char *name) {
  if (name == NULL) return ONYX_ISA_BEST;
  for (size_t i = 0; i < ONYX__ISA_LEVELS; i++) {
    if (strcmp(name, onyx__isa_levels[i].name) == 0) return onyx__isa_levels[i].isa;
  }
  return ONYX_ISA_BEST;
}

onyx_isa onyx__cpu_isa_lower(onyx_isa hw, const char *env) {
  const onyx_isa want = onyx__cpu_isa_named(env);
  /* Each architecture's caps are nested, so the two caps together allow
   * what hw allows, what want allows, or (across architectures) neither. */
  const onyx__cpu_mask both = onyx__cpu_cap_mask(hw) & onyx__cpu_cap_mask(want);
  if (both == onyx__cpu_cap_mask(hw)) return hw;
  if (both == onyx__cpu_cap_mask(want)) return want;
  return ONYX_ISA_SCALAR;
}

static void cpu_init(void) {
  onyx__cpu_mask m = detect_hw();
  /* No environment (bare metal), or no SIMD table for ONYX_ISA to rule
   * out (a reduced build of the portable kernels only): the C library's
   * getenv, and wasm's environment set-up with it, would be dead weight
   * (0.8 KB of the one-op onyx-lib.wasm). */
#if !defined(ONYX_PLATFORM_NONE) && defined(ONYX_HAVE_ISA_KERNELS)
  /* So that a test run with ONYX_ISA=avx2 cannot reach an AVX-512 table. */
  m &= onyx__cpu_cap_mask(onyx__cpu_isa_named(getenv("ONYX_ISA")));
#endif
  onyx__cpu_state = m;
}

onyx__cpu_mask onyx__cpu_features(void) {
  onyx__os_once_run(&onyx__cpu_once, cpu_init);
  return onyx__cpu_state;
}

bool onyx__cpu_has(onyx__cpu_feature feature) {
  return (unsigned)feature < ONYX__CPU_FEATURE_COUNT &&
         (onyx__cpu_features() >> (unsigned)feature & 1u) != 0;
}

const char *onyx_isa_name(onyx_isa isa) {
  if (isa == ONYX_ISA_BEST) return "best";
  const int i = level_index(isa);
  return i < 0 ? "unknown" : onyx__isa_levels[i].name;
}
