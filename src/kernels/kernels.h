/* SPDX-License-Identifier: MIT */
/*
 * Element-wise micro-kernels. Every kernel has one signature, cannot fail,
 * and allows x == y (in place); x and y must not otherwise overlap. A kernel
 * touches only the n elements of x and of y, never memory past the caller's
 * buffers. It may compute an element twice (a vector tail overlapping the
 * last full vector), which gives the same bits because every op is
 * idempotent; see simd_generate.h.
 *
 * Names spell type, op and ISA: onyx__f32_vceil__scalar,
 * onyx__f16_vclip__avx2. Each ISA provides a table, and dispatch.c a line
 * for it: the CPU features the table needs and the level it reports as
 * (onyx__kernels_avx512fp16 needs AVX512-FP16 on top of AVX-512 and reports
 * as avx512). Dispatch picks, per (op, type), the kernel of the first line
 * whose features the CPU has and the cap allows, falling back along this
 * architecture's lines to scalar (kernels/dispatch.h). The scalar table is
 * complete and is the reference every other table is tested against, bit
 * for bit.
 */
#ifndef ONYX_KERNELS_KERNELS_H
#define ONYX_KERNELS_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dtype.h"
#include "onyx.h"

/* The element-wise ops. X(NAME, lower-case name) */
#define ONYX__KOP_MAP(X) \
  X(CEIL, "ceil")        \
  X(FLOOR, "floor")      \
  X(CLIP, "clip")        \
  X(SIGN, "sign")

typedef enum onyx__kop {
#define ONYX_X_(name, lname) ONYX__KOP_##name,
  ONYX__KOP_MAP(ONYX_X_)
#undef ONYX_X_
      ONYX__KOP_COUNT
} onyx__kop;

/*
 * Kernel parameters. Clip's two bounds, stored in the kernel's computing
 * type. float16 and bfloat16 bounds are held as float32 (exact). A missing
 * bound is stored as the identity of its side (-inf/+inf for floats, the
 * type's minimum/maximum for integers), which gives bit-identical results
 * to "no bound".
 *
 * And for every op, stream: the caller's decision that y is (a piece of)
 * an output too large to stay cached, ONYX__STREAM_MIN_BYTES or more, which
 * the kernel then writes with non-temporal stores. The caller decides,
 * because a kernel may see only a tile of a fused group or a thread's
 * share of the output. Results are the same either way, and a kernel
 * without streaming stores ignores it. params may be NULL for every op but
 * Clip: no streaming.
 */
typedef struct onyx__kparams {
  union {
    struct {
      float lo, hi;
    } f32; /* float, float16, bfloat16 */
    struct {
      double lo, hi;
    } f64;
    struct {
      int64_t lo, hi;
    } i64; /* every signed integer type, widened */
    struct {
      uint64_t lo, hi;
    } u64; /* every unsigned integer type, widened */
  };
  bool stream;
} onyx__kparams;

/*
 * Outputs at least this large are written with non-temporal stores, which
 * bypass the caches: an output that cannot stay cached anyway then costs
 * no read-for-ownership and evicts nothing useful. Measured on a machine
 * with a 32 MiB L3, Ceil on float32 with 1 thread, streaming against
 * ordinary stores (GB/s): 6 MiB out 46 vs 64, 8 MiB 47 vs 36-44, 12 MiB
 * 41-45 vs 26-29, 64 MiB 28 vs 17-19; on float64, 7.6 MiB out 46-47 vs
 * 35-58. The threshold sits where input and output together fill about
 * three quarters of that L3. (The L3 the OS reports is no guide: on that
 * machine sysconf gives the 256 MiB of the whole package, of which one
 * core's complex sees 32.)
 */
#ifndef ONYX__STREAM_MIN_BYTES
#define ONYX__STREAM_MIN_BYTES ((size_t)12 << 20)
#endif

typedef void (*onyx__ukernel)(size_t n, const void *x, void *y, const onyx__kparams *params);

/* One ISA's kernels: NULL where it has none (the next line that has one is used). */
typedef struct onyx__kernel_table {
  onyx__ukernel k[ONYX__KOP_COUNT][ONYX__DTYPE_COUNT];
} onyx__kernel_table;

extern const onyx__kernel_table onyx__kernels_scalar;

/*
 * The kernel for (op, type) of the best table this CPU supports that cap
 * allows (cap and the levels below it on its architecture; ONYX_ISA_BEST:
 * every one), or NULL if the op has no kernel for that type at all.
 * Thread-safe.
 */
onyx__ukernel onyx__kernel_get(onyx__kop op, onyx_dtype dtype, onyx_isa cap);

/* The ISA level of the kernel onyx__kernel_get would return (for reports
 * and tests). */
onyx_isa onyx__kernel_isa(onyx__kop op, onyx_dtype dtype, onyx_isa cap);

/*
 * Fills params for Clip on dtype from the bounds lo and hi, each pointing to
 * one element of dtype, or NULL for no bound on that side. Never fails.
 */
void onyx__clip_params(onyx_dtype dtype, const void *lo, const void *hi, onyx__kparams *params);

#endif
