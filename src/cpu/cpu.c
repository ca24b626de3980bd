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

/* One bit per onyx__cpu_feature. */
#define ONYX__FBIT(f) (1u << (unsigned)(f))

/*
 * What detection found. It is written once, inside onyx__os_once_run, and
 * only read afterwards; the once call orders the write before every read, so no
 * further locking is needed.
 */
static struct {
  onyx_isa isa;
  unsigned features;
} onyx__cpu_state;
static onyx__os_once onyx__cpu_once = ONYX__OS_ONCE_INIT;

#ifdef ONYX__CPU_X86

static void detect_hw(onyx_isa *isa, unsigned *features) {
  unsigned a, b, c, d;
  *isa = ONYX_ISA_SCALAR;
  *features = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return;
  const bool sse41 = (c >> 19) & 1u;
  const bool fma = (c >> 12) & 1u;
  const bool osxsave = (c >> 27) & 1u;
  const bool avx = (c >> 28) & 1u;
  const bool f16c = (c >> 29) & 1u;

  bool avx2 = false, avx512 = false, fp16 = false, bf16 = false;
  unsigned max_sub7 = 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
    max_sub7 = a;
    avx2 = (b >> 5) & 1u;
    /* AVX512F (16), AVX512DQ (17), AVX512BW (30), AVX512VL (31). */
    avx512 = ((b >> 16) & 1u) && ((b >> 17) & 1u) && ((b >> 30) & 1u) && ((b >> 31) & 1u);
    fp16 = (d >> 23) & 1u;
  }
  if (max_sub7 >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d)) bf16 = (a >> 5) & 1u;

  uint64_t xcr0 = osxsave ? onyx__x86_xgetbv0() : 0;
  /* XMM and YMM state (bits 1, 2); with opmask, ZMM_Hi256 and Hi16_ZMM (5-7). */
  const bool os_avx = (xcr0 & 0x6u) == 0x6u;
  const bool os_avx512 = (xcr0 & 0xe6u) == 0xe6u;

  if (!sse41) return;
  *isa = ONYX_ISA_SSE41;
  /* The AVX2 kernel files are compiled with -mavx2 -mfma -mf16c, so that
   * level needs all three, plus AVX and the OS's YMM state. */
  if (!(avx && avx2 && fma && f16c && os_avx)) return;
  *isa = ONYX_ISA_AVX2;
  *features |= ONYX__FBIT(ONYX__CPU_F16C);
  /* A build without AVX-512 kernels (32-bit x86: CMakeLists.txt says why)
   * reports the level it runs. */
#ifndef ONYX_HAVE_AVX512_KERNELS
  (void)avx512, (void)os_avx512, (void)fp16, (void)bf16;
  return;
#else
  if (!(avx512 && os_avx512)) return;
  *isa = ONYX_ISA_AVX512;
  if (fp16) *features |= ONYX__FBIT(ONYX__CPU_AVX512FP16);
  if (bf16) *features |= ONYX__FBIT(ONYX__CPU_AVX512BF16);
#endif
}
#elif defined(__aarch64__)
/*
 * Advanced SIMD (NEON) is part of every AArch64 CPU that Linux runs on.
 * Half-precision arithmetic (FEAT_FP16, Armv8.2) is optional; the kernel
 * reports its Advanced SIMD part as HWCAP_ASIMDHP, bit 10 of AT_HWCAP in
 * Linux's arch/arm64/include/uapi/asm/hwcap.h.
 */
#define ONYX__ARM64_HWCAP_ASIMDHP (1ul << 10)
static void detect_hw(onyx_isa *isa, unsigned *features) {
  unsigned long hwcap, hwcap2;
  onyx__os_hwcap(&hwcap, &hwcap2);
  *isa = ONYX_ISA_NEON;
  *features = (hwcap & ONYX__ARM64_HWCAP_ASIMDHP) ? ONYX__FBIT(ONYX__CPU_NEON_FP16) : 0u;
}
#elif defined(__arm__)
/*
 * On 32-bit ARM, NEON is optional (an ARMv7 CPU may have VFP only), and the
 * kernel reports it in AT_HWCAP: HWCAP_NEON, bit 12 of Linux's
 * arch/arm/include/uapi/asm/hwcap.h. The NEON kernel file is compiled with
 * -mfpu=neon on its own, so nothing else uses NEON before this check.
 */
#define ONYX__ARM_HWCAP_NEON (1ul << 12)
static void detect_hw(onyx_isa *isa, unsigned *features) {
  unsigned long hwcap, hwcap2;
  onyx__os_hwcap(&hwcap, &hwcap2);
  *isa = (hwcap & ONYX__ARM_HWCAP_NEON) ? ONYX_ISA_NEON : ONYX_ISA_SCALAR;
  *features = 0;
}
#elif defined(__wasm_simd128__)
/*
 * WebAssembly has no run-time feature detection: a module built with
 * -msimd128 does not load where SIMD128 is missing, so a build with the
 * SIMD128 kernels (src/kernels/wasm/) always supports them.
 */
static void detect_hw(onyx_isa *isa, unsigned *features) {
  *isa = ONYX_ISA_WASM_SIMD128;
  *features = 0;
}
#else
/* Other architectures have only the scalar kernels. */
static void detect_hw(onyx_isa *isa, unsigned *features) {
  *isa = ONYX_ISA_SCALAR;
  *features = 0;
}
#endif

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

static int isa_arch(onyx_isa isa) {
  for (size_t i = 0; i < ONYX__ISA_LEVELS; i++) {
    if (onyx__isa_levels[i].isa == isa) return onyx__isa_levels[i].arch;
  }
  return ONYX__ARCH_ANY;
}

onyx_isa onyx__cpu_isa_lower(onyx_isa hw, const char *env) {
  if (env == NULL) return hw;
  for (size_t i = 0; i < ONYX__ISA_LEVELS; i++) {
    if (strcmp(env, onyx__isa_levels[i].name) != 0) continue;
    const onyx_isa want = onyx__isa_levels[i].isa;
    if (want >= hw) return hw;
    /* Below hw: a level of hw's own architecture (or scalar) is one this
     * CPU supports; a level of another architecture is not, and the
     * highest supported level under it is scalar. */
    const int arch = onyx__isa_levels[i].arch;
    return arch == ONYX__ARCH_ANY || arch == isa_arch(hw) ? want : ONYX_ISA_SCALAR;
  }
  return hw;
}

static void cpu_init(void) {
  onyx_isa hw;
  unsigned features;
  detect_hw(&hw, &features);
#if defined(ONYX_PLATFORM_NONE) /* no environment: the C library's getenv is dead weight */
  onyx_isa isa = onyx__cpu_isa_lower(hw, NULL);
#else
  onyx_isa isa = onyx__cpu_isa_lower(hw, getenv("ONYX_ISA"));
#endif
  /* Hide the features of levels the environment switched off, so that a
   * test run with ONYX_ISA=avx2 cannot reach an AVX-512 path through them. */
  if (isa < ONYX_ISA_AVX512) {
    features &= ~(ONYX__FBIT(ONYX__CPU_AVX512FP16) | ONYX__FBIT(ONYX__CPU_AVX512BF16));
  }
  if (isa < ONYX_ISA_AVX2) features &= ~ONYX__FBIT(ONYX__CPU_F16C);
  if (isa < ONYX_ISA_NEON) features &= ~ONYX__FBIT(ONYX__CPU_NEON_FP16);
  onyx__cpu_state.isa = isa;
  onyx__cpu_state.features = features;
}

onyx_isa onyx__cpu_isa(void) {
  onyx__os_once_run(&onyx__cpu_once, cpu_init);
  return onyx__cpu_state.isa;
}

bool onyx__cpu_has(onyx__cpu_feature feature) {
  onyx__os_once_run(&onyx__cpu_once, cpu_init);
  return (onyx__cpu_state.features & ONYX__FBIT(feature)) != 0;
}

onyx_isa onyx_isa_detected(void) { return onyx__cpu_isa(); }

const char *onyx_isa_name(onyx_isa isa) {
  if (isa == ONYX_ISA_BEST) return "best";
  for (size_t i = 0; i < ONYX__ISA_LEVELS; i++) {
    if (onyx__isa_levels[i].isa == isa) return onyx__isa_levels[i].name;
  }
  return "unknown";
}
