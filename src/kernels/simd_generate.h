/* SPDX-License-Identifier: MIT */
/*
 * The second half of the SIMD kernel files' shared body (simd_common.h is
 * the first): included once, at the end of each ISA file, after that file
 * has defined the vocabulary simd_common.h lists. Generates every kernel
 * and the ISA's table. No include guard: it is meant to be included once
 * per translation unit.
 */
#ifndef ONYX__SIMD_ISA
#error "define the ISA vocabulary (see simd_common.h) before including simd_generate.h"
#endif

/* ---- Kernels ------------------------------------------------------------- */

/*
 * A kernel reads each vector before it writes the same positions and
 * touches nothing else in between, so x == y works. The main loop runs
 * four vectors at a time so that loads, arithmetic and stores of
 * independent vectors overlap.
 */
#define ONYX__SIMD_LOOP(C, K, OP, ST)                                        \
  for (; n - i >= 4 * (size_t)ONYX__N_##C; i += 4 * (size_t)ONYX__N_##C) {   \
    onyx__v_##K v0 = onyx__ld_##C(src + i);                                  \
    onyx__v_##K v1 = onyx__ld_##C(src + i + ONYX__N_##C);                    \
    onyx__v_##K v2 = onyx__ld_##C(src + i + 2 * ONYX__N_##C);                \
    onyx__v_##K v3 = onyx__ld_##C(src + i + 3 * ONYX__N_##C);                \
    onyx__##ST##_##C(dst + i, onyx__##OP##_##K(v0, &cx));                    \
    onyx__##ST##_##C(dst + i + ONYX__N_##C, onyx__##OP##_##K(v1, &cx));      \
    onyx__##ST##_##C(dst + i + 2 * ONYX__N_##C, onyx__##OP##_##K(v2, &cx));  \
    onyx__##ST##_##C(dst + i + 3 * ONYX__N_##C, onyx__##OP##_##K(v3, &cx));  \
  }                                                                          \
  for (; n - i >= (size_t)ONYX__N_##C; i += (size_t)ONYX__N_##C) {           \
    onyx__##ST##_##C(dst + i, onyx__##OP##_##K(onyx__ld_##C(src + i), &cx)); \
  }

#if ONYX__SIMD_MASKED
/* The last n - i < N elements, with masked loads and stores. */
#define ONYX__SIMD_TAIL(NAME, C, K, OP, KOP) \
  if (i < n) onyx__stm_##C(dst + i, n - i, onyx__##OP##_##K(onyx__ldm_##C(src + i, n - i), &cx));
#else
/*
 * The last n - i < N elements, as one more vector over the last N elements
 * when there are that many, else by the scalar reference kernel. The
 * vector overlaps elements already done; doing them again is harmless
 * because every op here is idempotent (f(f(x)) is f(x), bit for bit: Ceil
 * and Floor give integers or quiet NaNs, Sign gives +-1, 0 or x's NaN,
 * Clip gives x, lo or hi, each of which it keeps), so it gives the same
 * bits even in place, where it reads results. One vector costs far less
 * than up to N - 1 scalar elements, which for the halves each convert.
 */
#define ONYX__SIMD_TAIL(NAME, C, K, OP, KOP)                                     \
  if (i < n) {                                                                   \
    if (n >= (size_t)ONYX__N_##C) {                                              \
      const size_t last = n - (size_t)ONYX__N_##C;                               \
      onyx__st_##C(dst + last, onyx__##OP##_##K(onyx__ld_##C(src + last), &cx)); \
    } else {                                                                     \
      scalar(n - i, src + i, dst + i, params);                                   \
    }                                                                            \
  }
#endif

/*
 * The streaming path of an ISA with streaming stores (ONYX__SIMD_STREAMS).
 * Calls whose params ask for streaming (params->stream: an output of
 * ONYX__STREAM_MIN_BYTES or more, or a piece of one) take it when y is
 * element-aligned and n spans at least 128 bytes:
 *   - the elements before y's first ONYX__SIMD_NT_ALIGN boundary (under
 *     64 bytes) as whole vectors with ordinary stores; the last of them
 *     may reach past the boundary, which is harmless, as the tail's
 *     overlap is (every op is idempotent), and the 128 bytes keep its
 *     reads inside x;
 *   - streaming stores from the boundary on;
 *   - the ISA's fence (onyx__stream_fence), so that they are ordered
 *     before whatever the caller does next; then the tail as usual.
 * An ISA without streaming stores has no such path: its kernels ignore
 * params->stream.
 */
#if defined(ONYX__SIMD_STREAMS) && ONYX__SIMD_STREAMS
#define ONYX__SIMD_STREAM_PATH(T, C, K, OP)                                                        \
  if (params != NULL && params->stream && n >= 128 / sizeof(T) && (uintptr_t)y % sizeof(T) == 0) { \
    const size_t head = ((0u - (uintptr_t)y) & (ONYX__SIMD_NT_ALIGN - 1u)) / sizeof(T);            \
    for (; i < head; i += (size_t)ONYX__N_##C)                                                     \
      onyx__st_##C(dst + i, onyx__##OP##_##K(onyx__ld_##C(src + i), &cx));                         \
    i = head;                                                                                      \
    ONYX__SIMD_LOOP(C, K, OP, stnt)                                                                \
    onyx__stream_fence();                                                                          \
  }
#else
#define ONYX__SIMD_STREAM_PATH(T, C, K, OP)
#endif

/*
 * Each op's own parameter block in params, which its kernels give the
 * class's onyx__cx_set_K: Clip's bounds; NULL for the ops that have no
 * parameters, whose kernels then read nothing from params but stream.
 */
#define ONYX__SIMD_PARAMS_ceil(params)  NULL
#define ONYX__SIMD_PARAMS_floor(params) NULL
#define ONYX__SIMD_PARAMS_sign(params)  NULL
#define ONYX__SIMD_PARAMS_clip(params)  (params)

/* One kernel: the streaming path where the ISA has one, the main loop,
 * the tail. */
#define ONYX__SIMD_KERNEL(NAME, tn, T, C, K, OP, KOP)                                      \
  static void ONYX__SIMD_NAME(tn, OP)(size_t n, const void *x, void *y,                    \
                                      const onyx__kparams *params) {                       \
    const T *src = x;                                                                      \
    T *dst = y;                                                                            \
    onyx__cx_##K cx;                                                                       \
    const onyx__ukernel scalar = onyx__kernels_scalar.k[ONYX__KOP_##KOP][ONYX__DI_##NAME]; \
    if (!onyx__cx_set_##K(&cx, ONYX__SIMD_PARAMS_##OP(params))) {                          \
      scalar(n, x, y, params);                                                             \
      return;                                                                              \
    }                                                                                      \
    (void)scalar;                                                                          \
    size_t i = 0;                                                                          \
    ONYX__SIMD_STREAM_PATH(T, C, K, OP)                                                    \
    ONYX__SIMD_LOOP(C, K, OP, st)                                                          \
    ONYX__SIMD_TAIL(NAME, C, K, OP, KOP)                                                   \
  }

/*
 * The types each op is generated for. A file may define any of these lists
 * before including this header to generate fewer kernels (or to describe
 * its own classes for a type); the types a list leaves out keep a NULL
 * entry, so that dispatch uses the level below (or, for a table that
 * overlays a level, the level's own table: see dispatch.c). Left
 * undefined, they are every type that has the op, which is what the
 * SSE4.1, AVX2 and AVX-512 files generate.
 */
#ifndef ONYX__SIMD_ROUNDING_TYPES
#define ONYX__SIMD_ROUNDING_TYPES ONYX__SIMD_FLOAT_TYPES
#endif
#ifndef ONYX__SIMD_SIGN_TYPES
#define ONYX__SIMD_SIGN_TYPES ONYX__SIMD_ALL_TYPES
#endif
#ifndef ONYX__SIMD_CLIP_TYPES
#define ONYX__SIMD_CLIP_TYPES ONYX__SIMD_ALL_TYPES
#endif

#define ONYX__SIMD_ROUNDING_KERNELS(NAME, tn, T, RC, RK, C, K) \
  ONYX__SIMD_KERNEL(NAME, tn, T, RC, RK, ceil, CEIL)           \
  ONYX__SIMD_KERNEL(NAME, tn, T, RC, RK, floor, FLOOR)
#define ONYX__SIMD_SIGN_KERNEL(NAME, tn, T, RC, RK, C, K) \
  ONYX__SIMD_KERNEL(NAME, tn, T, C, K, sign, SIGN)
#define ONYX__SIMD_CLIP_KERNEL(NAME, tn, T, RC, RK, C, K) \
  ONYX__SIMD_KERNEL(NAME, tn, T, C, K, clip, CLIP)

ONYX__SIMD_ROUNDING_TYPES(ONYX__SIMD_ROUNDING_KERNELS)
ONYX__SIMD_SIGN_TYPES(ONYX__SIMD_SIGN_KERNEL)
ONYX__SIMD_CLIP_TYPES(ONYX__SIMD_CLIP_KERNEL)

#define ONYX__SIMD_ROUNDING_ENTRIES(NAME, tn, T, RC, RK, C, K)     \
  .k[ONYX__KOP_CEIL][ONYX__DI_##NAME] = ONYX__SIMD_NAME(tn, ceil), \
  .k[ONYX__KOP_FLOOR][ONYX__DI_##NAME] = ONYX__SIMD_NAME(tn, floor),
#define ONYX__SIMD_SIGN_ENTRY(NAME, tn, T, RC, RK, C, K) \
  .k[ONYX__KOP_SIGN][ONYX__DI_##NAME] = ONYX__SIMD_NAME(tn, sign),
#define ONYX__SIMD_CLIP_ENTRY(NAME, tn, T, RC, RK, C, K) \
  .k[ONYX__KOP_CLIP][ONYX__DI_##NAME] = ONYX__SIMD_NAME(tn, clip),

/* The table dispatch.c declares; it has an entry wherever the scalar table
 * has one, except on the types the ONYX__SIMD_*_TYPES lists leave out. */
extern const onyx__kernel_table ONYX__SIMD_TABLE;
const onyx__kernel_table ONYX__SIMD_TABLE = {ONYX__SIMD_ROUNDING_TYPES(ONYX__SIMD_ROUNDING_ENTRIES)
                                                 ONYX__SIMD_SIGN_TYPES(ONYX__SIMD_SIGN_ENTRY)
                                                     ONYX__SIMD_CLIP_TYPES(ONYX__SIMD_CLIP_ENTRY)};
