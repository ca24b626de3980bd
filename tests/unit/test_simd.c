/* SPDX-License-Identifier: MIT */
/*
 * The SIMD kernels (src/kernels/x86/) against the scalar reference, bit for
 * bit, NaN payloads included. For every ISA level this CPU supports (as
 * lowered by ONYX_ISA), every op and every type:
 *   - dispatch returns a kernel of exactly that level, so a missing table
 *     entry cannot hide behind the fallback to a lower level;
 *   - special values, random bit patterns, and all 65,536 patterns of
 *     float16 and bfloat16;
 *   - every length from 1 to past four vectors and one (the main loop runs
 *     four vectors at a time), out of place, misaligned by one element, and
 *     in place; the input ends where a PROT_NONE page begins, so reading
 *     past it faults, and the output has guard bytes on both sides;
 *   - Clip with many bound pairs, through onyx__clip_params, and with
 *     hand-made params that the vector kernels must hand to the scalar one;
 *   - outputs large enough for the streaming-store path.
 * And every entry of the tables that overlay a level where the CPU has a
 * feature beyond it (onyx__kernels_avx512fp16), directly, wherever the CPU
 * can run them: the level tests reach them only through dispatch, and only
 * on such a CPU. tests/emu/test_simd_emulated.c runs that test on an
 * emulation of the table everywhere else.
 * Expected values come from onyx__kernels_scalar, which test_kernels.c
 * checks against independent references.
 */
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS */

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
/* cmocka.h uses size_t, va_list, jmp_buf and uintmax_t without including
 * the headers that declare them, so it comes after them. */
#include <cmocka.h>

#include "core/dtype.h"
#include "cpu/cpu.h"
#include "kernels/kernels.h"
#include "onyx.h"

/*
 * The AVX512-FP16 table, which only dispatch.c names otherwise. CMake
 * defines ONYX_HAVE_AVX512FP16_KERNELS for this test when the build has it.
 */
#if defined(__aarch64__) && defined(ONYX_HAVE_NEON_KERNELS)
extern const onyx__kernel_table onyx__kernels_neonfp16;
#endif
#if defined(ONYX_HAVE_X86) && defined(ONYX_HAVE_AVX512FP16_KERNELS)
extern const onyx__kernel_table onyx__kernels_avx512fp16;
#define HAVE_FP16_TABLE 1
#else
#define HAVE_FP16_TABLE 0
#endif

/* 1 in tests/emu/test_simd_emulated.c, whose onyx__kernels_avx512fp16 is
 * an emulation that runs on any CPU with AVX2: the table is checked there
 * whatever the CPU has. */
#ifndef ONYX_TEST_FP16_EMULATED
#define ONYX_TEST_FP16_EMULATED 0
#endif

#define COUNT(a)   (sizeof(a) / sizeof((a)[0]))
#define GUARD      64
#define GUARD_BYTE 0xa5

/* ---- Levels, ops, types ------------------------------------------------- */

#define N_SIMD_LEVELS ONYX_ISA_WASM_SIMD128 /* every level but scalar */

/* The SIMD levels this run tests: those the CPU (and ONYX_ISA) allows,
 * which are the levels of its own architecture that ONYX_ISA, set to the
 * level's name, would leave as they are. Each level left out is reported
 * once, with the reason. */
static size_t simd_levels(onyx_isa *out) {
  static bool reported;
  const char *env = getenv("ONYX_ISA");
  size_t k = 0;
  for (int l = ONYX_ISA_SCALAR + 1; l <= ONYX_ISA_WASM_SIMD128; l++) {
    if (onyx__cpu_isa_lower(onyx__cpu_isa(), onyx_isa_name((onyx_isa)l)) == (onyx_isa)l) {
      out[k++] = (onyx_isa)l;
    } else if (!reported) {
      printf("[  SKIP    ] level %s: %s\n", onyx_isa_name((onyx_isa)l),
             env != NULL ? "ONYX_ISA, this CPU or its architecture leaves it out"
                         : "this CPU, its OS or its architecture does not support it");
    }
  }
  reported = true;
  return k;
}

/* Lengths and alignments are derived from the widest vector (AVX-512's 64
 * bytes) at every level, which covers the narrower ones too. */
#define VECTOR_BYTES 64

static onyx__ukernel scalar_kernel(onyx__kop op, onyx_dtype dt) {
  return onyx__kernels_scalar.k[op][onyx__dtype_index(dt)];
}

static const char *op_name(onyx__kop op) {
  static const char *const names[] = {
#define ONYX_X_(name, lname) lname,
      ONYX__KOP_MAP(ONYX_X_)
#undef ONYX_X_
  };
  return (unsigned)op < COUNT(names) ? names[op] : "?";
}

static const char *dt_name(onyx_dtype dt) { return onyx_dtype_name(dt); }

static bool is_float(onyx_dtype dt) {
  return dt == ONYX_DTYPE_FLOAT || dt == ONYX_DTYPE_DOUBLE || dt == ONYX_DTYPE_FLOAT16 ||
         dt == ONYX_DTYPE_BFLOAT16;
}
static bool is_half(onyx_dtype dt) { return dt == ONYX_DTYPE_FLOAT16 || dt == ONYX_DTYPE_BFLOAT16; }
static bool is_signed(onyx_dtype dt) {
  return dt == ONYX_DTYPE_INT8 || dt == ONYX_DTYPE_INT16 || dt == ONYX_DTYPE_INT32 ||
         dt == ONYX_DTYPE_INT64;
}

/* ---- Elements as bit patterns ------------------------------------------- */

static uint64_t get_bits(size_t es, const void *p) {
  const unsigned char *b = p;
  uint64_t v = 0;
  for (size_t i = es; i-- > 0;) v = (v << 8) | b[i];
  return v;
}
static void put_bits(size_t es, uint64_t v, void *p) {
  unsigned char *b = p;
  for (size_t i = 0; i < es && i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);
static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static uint64_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
static uint64_t f64_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/* The bits of the float32 value v in dt (float16 and bfloat16 by
 * truncating float32 bits: only exactly representable values are used). */
static uint64_t float_value_bits(onyx_dtype dt, double v) {
  switch (dt) {
    case ONYX_DTYPE_FLOAT:
      return f32_bits((float)v);
    case ONYX_DTYPE_DOUBLE:
      return f64_bits(v);
    case ONYX_DTYPE_BFLOAT16:
      return f32_bits((float)v) >> 16;
    default: { /* float16: a normal, a subnormal, a zero or an infinity */
      uint32_t u = (uint32_t)f32_bits((float)v);
      uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
      if (a >= 0x7f800000u || a >= 0x47800000u) return sign | 0x7c00u;
      if (a < 0x38800000u) return sign | (uint32_t)(fabsf((float)v) * 16777216.0f);
      return sign | ((a - 0x38000000u) >> 13);
    }
  }
}

/* Values around which rounding and clipping change behaviour. */
static const double float_specials[] = {0.0,
                                        -0.0,
                                        INFINITY,
                                        -INFINITY,
                                        0.25,
                                        0.5,
                                        0.75,
                                        1.0,
                                        1.5,
                                        2.5,
                                        -0.25,
                                        -0.5,
                                        -0.75,
                                        -1.0,
                                        -1.5,
                                        -2.5,
                                        3.75,
                                        -3.75,
                                        100.5,
                                        -100.5,
                                        127.5,
                                        128.0,
                                        128.5,
                                        129.0,
                                        -127.5,
                                        -128.5,
                                        1023.5,
                                        1024.0,
                                        1024.5,
                                        1025.0,
                                        -1023.5,
                                        -1024.5,
                                        2047.0,
                                        2049.0,
                                        4096.5,
                                        8388607.5,
                                        8388608.0,
                                        8388609.0,
                                        -8388607.5,
                                        -8388608.0,
                                        16777215.0,
                                        16777216.0,
                                        4503599627370495.5,
                                        4503599627370496.0,
                                        -4503599627370495.5,
                                        9007199254740993.0,
                                        1e-3,
                                        -1e-3,
                                        65504.0,
                                        -65504.0,
                                        65520.0,
                                        3.0e38,
                                        -3.0e38,
                                        1e300,
                                        -1e300,
                                        5e-324,
                                        -5e-324,
                                        1e-310,
                                        -1e-310,
                                        1.17549435e-38,
                                        -1.17549435e-38,
                                        1.4e-45,
                                        -1.4e-45,
                                        6.1035156e-05,
                                        5.9604645e-08,
                                        -5.9604645e-08,
                                        6.0975552e-05};

/* NaNs: quiet and signalling, both signs, payloads high and low. */
static size_t nan_pool(onyx_dtype dt, uint64_t *out) {
  static const uint64_t f32[] = {0x7fc00000u, 0xffc00000u, 0x7fc12345u, 0xffc00001u, 0x7f800001u,
                                 0xffa5a5a5u, 0x7fffffffu, 0x7f800100u, 0xff802000u};
  static const uint64_t f64[] = {UINT64_C(0x7ff8000000000000), UINT64_C(0x7ff8000012345678),
                                 UINT64_C(0xfff8000000000001), UINT64_C(0x7ff0000000000001),
                                 UINT64_C(0xfff4000000000000), UINT64_C(0x7fffffffffffffff),
                                 UINT64_C(0x7ff0000100000000)};
  const uint64_t *src = dt == ONYX_DTYPE_FLOAT ? f32 : f64;
  size_t n = dt == ONYX_DTYPE_FLOAT ? COUNT(f32) : COUNT(f64);
  memcpy(out, src, n * sizeof *out);
  return n;
}

static void int_range(onyx_dtype dt, int64_t *smin, int64_t *smax, uint64_t *umax) {
  size_t bits = 8 * onyx_dtype_size(dt);
  *umax = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
  *smax = (int64_t)(*umax >> 1);
  *smin = -*smax - 1;
}

/* The bits of an integer value in dt (two's complement, truncated). */
static uint64_t int_bits(onyx_dtype dt, int64_t v) {
  size_t bits = 8 * onyx_dtype_size(dt);
  return bits == 64 ? (uint64_t)v : (uint64_t)v & ((UINT64_C(1) << bits) - 1);
}

/*
 * Fills out (room for max entries) with the input values for dt: every
 * pattern for the halves; special values and random patterns for the rest.
 * Returns the count.
 */
static size_t value_pool(onyx_dtype dt, uint64_t *out, size_t max) {
  size_t n = 0, es = onyx_dtype_size(dt);
  if (is_half(dt)) {
    for (uint64_t v = 0; v < 65536 && n < max; v++) out[n++] = v;
    return n;
  }
  if (is_float(dt)) {
    for (size_t i = 0; i < COUNT(float_specials); i++) {
      out[n++] = float_value_bits(dt, float_specials[i]);
    }
    n += nan_pool(dt, out + n);
    /* Subnormals and the largest finite values by bits. */
    uint64_t sign = UINT64_C(1) << (8 * es - 1);
    uint64_t expmask = dt == ONYX_DTYPE_FLOAT ? 0x7f800000u : UINT64_C(0x7ff0000000000000);
    uint64_t subs[] = {1, 2, 3, (expmask >> 1) & ~expmask, expmask - 1, expmask + 1};
    for (size_t i = 0; i < COUNT(subs); i++) {
      out[n++] = subs[i];
      out[n++] = subs[i] | sign;
    }
  } else {
    int64_t smin, smax;
    uint64_t umax;
    int_range(dt, &smin, &smax, &umax);
    const int64_t specials[] = {0, 1, 2, 3, -1, -2, -3, 100, -100, 127, 128, -128, -129, 255, 256};
    for (size_t i = 0; i < COUNT(specials); i++) out[n++] = int_bits(dt, specials[i]);
    const uint64_t ends[] = {
        (uint64_t)smin, (uint64_t)smin + 1, (uint64_t)smax, (uint64_t)smax - 1, umax, umax - 1};
    for (size_t i = 0; i < COUNT(ends); i++) out[n++] = int_bits(dt, (int64_t)ends[i]);
  }
  uint64_t mask = es == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * es)) - 1;
  while (n < max && n < 1000) {
    uint64_t r = rng() & mask;
    /* Half of the random floats are small, where rounding does something. */
    if (is_float(dt) && (r & 1)) {
      double v = (double)(int64_t)(rng() % 2000000) / 1000.0 - 1000.0;
      r = float_value_bits(dt, v);
    }
    out[n++] = r;
  }
  return n;
}

/* ---- Clip bounds -------------------------------------------------------- */

/* A bound: absent, or one element's bits. */
typedef struct {
  bool present;
  uint64_t bits;
} bound;

static size_t bound_pool(onyx_dtype dt, bound *out) {
  size_t n = 0;
  out[n++] = (bound){false, 0};
  if (is_float(dt)) {
    static const double v[] = {-INFINITY, INFINITY, -0.0, 0.0,   -1.5,    -1.0,
                               0.5,       1.0,      2.5,  128.0, -1024.5, 65504.0};
    for (size_t i = 0; i < COUNT(v); i++) out[n++] = (bound){true, float_value_bits(dt, v[i])};
    /* NaN bounds, which onyx__clip_params turns into no bound. */
    uint64_t qnan = dt == ONYX_DTYPE_FLOAT     ? 0x7fc00000u
                    : dt == ONYX_DTYPE_DOUBLE  ? UINT64_C(0x7ff8000000000000)
                    : dt == ONYX_DTYPE_FLOAT16 ? 0x7e00u
                                               : 0x7fc0u;
    out[n++] = (bound){true, qnan};
    out[n++] = (bound){true, qnan | (UINT64_C(1) << (8 * onyx_dtype_size(dt) - 1))};
  } else {
    int64_t smin, smax;
    uint64_t umax;
    int_range(dt, &smin, &smax, &umax);
    const int64_t v[] = {0, 1, -1, 5, -7, 100};
    for (size_t i = 0; i < COUNT(v); i++) out[n++] = (bound){true, int_bits(dt, v[i])};
    const uint64_t ends[] = {
        (uint64_t)smin, (uint64_t)smin + 1, (uint64_t)smax, (uint64_t)smax - 1, umax, umax - 1};
    for (size_t i = 0; i < COUNT(ends); i++) {
      out[n++] = (bound){true, int_bits(dt, (int64_t)ends[i])};
    }
  }
  return n;
}

static void make_params(onyx_dtype dt, const bound *lo, const bound *hi, onyx__kparams *p) {
  unsigned char lb[8], hb[8];
  size_t es = onyx_dtype_size(dt);
  put_bits(es, lo->bits, lb);
  put_bits(es, hi->bits, hb);
  onyx__clip_params(dt, lo->present ? lb : NULL, hi->present ? hb : NULL, p);
}

/* ---- Buffers ------------------------------------------------------------ */

/*
 * Memory whose last usable byte is followed by a PROT_NONE page: a kernel
 * that reads or writes past the end of a buffer placed flush against it
 * faults.
 */
typedef struct {
  unsigned char *map;
  size_t map_len;
  unsigned char *end; /* the first byte of the PROT_NONE page */
} fenced;

static fenced fenced_alloc(size_t bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t usable = (bytes + 512 + page - 1) / page * page;
  fenced f;
  f.map_len = usable + page;
  void *m = mmap(NULL, f.map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(m != MAP_FAILED);
  f.map = m;
  f.end = f.map + usable;
  assert_int_equal(mprotect(f.end, page, PROT_NONE), 0);
  return f;
}

static void fenced_free(fenced *f) { munmap(f->map, f->map_len); }

/* An output buffer with GUARD bytes of GUARD_BYTE on both sides. */
typedef struct {
  unsigned char *mem;
  size_t cap;
} guarded;

static guarded guarded_alloc(size_t bytes) {
  guarded g;
  g.cap = bytes + 4 * GUARD;
  g.mem = aligned_alloc(64, (g.cap + 63) / 64 * 64);
  assert_non_null(g.mem);
  return g;
}

/* Checks that nothing outside [y, y + bytes) changed. */
static void check_guards(const guarded *g, const unsigned char *y, size_t bytes, const char *what) {
  for (const unsigned char *p = g->mem; p < y; p++) {
    if (*p != GUARD_BYTE) fail_msg("%s: byte %td before the output written", what, y - p);
  }
  for (const unsigned char *p = y + bytes; p < g->mem + g->cap; p++) {
    if (*p != GUARD_BYTE) fail_msg("%s: byte %td after the output written", what, p - (y + bytes));
  }
}

/* Compares got with want, n elements, and fails naming the first
 * difference. */
static void check_equal(size_t es, size_t n, const void *in, const void *got, const void *want,
                        const char *what) {
  if (memcmp(got, want, n * es) == 0) return;
  for (size_t i = 0; i < n; i++) {
    uint64_t g = get_bits(es, (const unsigned char *)got + i * es);
    uint64_t w = get_bits(es, (const unsigned char *)want + i * es);
    if (g != w) {
      fail_msg("%s: n=%zu element %zu: input 0x%llx gives 0x%llx, scalar gives 0x%llx", what, n, i,
               (unsigned long long)get_bits(es, (const unsigned char *)in + i * es),
               (unsigned long long)g, (unsigned long long)w);
    }
  }
}

/*
 * Runs kernel k on the n elements at in (es bytes each) in three ways and
 * compares each with the scalar kernel s: out of place from an input that
 * ends at a PROT_NONE page (so its alignment varies with n), out of place
 * from input and output misaligned by one element from a vector boundary,
 * and in place at the page end. vb is the level's vector size in bytes.
 */
static void check_run(onyx__ukernel k, onyx__ukernel s, size_t es, size_t n, const void *in,
                      const onyx__kparams *p, size_t vb, fenced *f, guarded *g, unsigned char *want,
                      const char *what) {
  size_t bytes = n * es;
  s(n, in, want, p);

  /* 1. Input flush against the fence, output between guards. */
  unsigned char *x = f->end - bytes;
  memcpy(x, in, bytes);
  memset(g->mem, GUARD_BYTE, g->cap);
  unsigned char *y = g->mem + GUARD;
  k(n, x, y, p);
  check_equal(es, n, in, y, want, what);
  check_guards(g, y, bytes, what);
  assert_memory_equal(x, in, bytes); /* the input is left alone */

  /* 2. Both misaligned by one element from a vector boundary. */
  memset(g->mem, GUARD_BYTE, g->cap);
  y = g->mem + GUARD + es;
  x = f->end - bytes - GUARD - vb;
  x = x - (uintptr_t)x % vb + es;
  memmove(x, in, bytes);
  k(n, x, y, p);
  check_equal(es, n, in, y, want, what);
  check_guards(g, y, bytes, what);

  /* 3. In place, flush against the fence, with guards before it. */
  x = f->end - bytes;
  memset(x - GUARD, GUARD_BYTE, GUARD);
  memcpy(x, in, bytes);
  k(n, x, x, p);
  check_equal(es, n, in, x, want, what);
  for (unsigned char *q = x - GUARD; q < x; q++) {
    if (*q != GUARD_BYTE) fail_msg("%s: in place wrote before the buffer", what);
  }
}

/* ---- Tests ---------------------------------------------------------------- */

/*
 * The level onyx__kernel_isa must report for (op, type) at cap level: the
 * level itself, except where a table deliberately leaves an entry out
 * (SSE4.1 has no Clip on 64-bit integers: see kernels_sse41.c; 32-bit
 * NEON none for float64 and the 64-bit integers).
 */
static onyx_isa expected_level(onyx__kop op, onyx_dtype dt, onyx_isa level) {
  if (level == ONYX_ISA_SSE41 && op == ONYX__KOP_CLIP &&
      (dt == ONYX_DTYPE_INT64 || dt == ONYX_DTYPE_UINT64)) {
    return ONYX_ISA_SCALAR;
  }
#if defined(__arm__)
  /* ARMv7 NEON has no 64-bit compares, and its float arithmetic flushes
   * subnormals: float64 and the 64-bit integers stay scalar (see
   * kernels_neon.c). */
  if (level == ONYX_ISA_NEON &&
      (dt == ONYX_DTYPE_DOUBLE || dt == ONYX_DTYPE_INT64 || dt == ONYX_DTYPE_UINT64)) {
    return ONYX_ISA_SCALAR;
  }
#endif
  return level;
}

/* Each (op, type) with a scalar kernel has one of exactly the expected
 * level; each without has none at any level. */
static void test_dispatch_levels(void **state) {
  (void)state;
  onyx_isa levels[N_SIMD_LEVELS];
  size_t nl = simd_levels(levels);
  for (size_t li = 0; li < nl; li++) {
    for (int op = 0; op < ONYX__KOP_COUNT; op++) {
      for (int di = 0; di < ONYX__DTYPE_COUNT; di++) {
        onyx_dtype dt = onyx__dtype_at(di);
        onyx__ukernel k = onyx__kernel_get((onyx__kop)op, dt, levels[li]);
        if (scalar_kernel((onyx__kop)op, dt) == NULL) {
          if (k != NULL) fail_msg("%s %s has a kernel but no scalar one", op_name(op), dt_name(dt));
          continue;
        }
        onyx_isa got = onyx__kernel_isa((onyx__kop)op, dt, levels[li]);
        onyx_isa want = expected_level((onyx__kop)op, dt, levels[li]);
        if (got != want || (k == scalar_kernel((onyx__kop)op, dt)) != (want == ONYX_ISA_SCALAR)) {
          fail_msg("%s %s at cap %s: kernel of level %s", op_name(op), dt_name(dt),
                   onyx_isa_name(levels[li]), onyx_isa_name(got));
        }
#if defined(__aarch64__) && defined(ONYX_HAVE_NEON_KERNELS)
        /* Where the CPU has FEAT_FP16, the NEON level's float16 Ceil and
         * Floor are the half-precision kernels. */
        onyx__ukernel hp = onyx__kernels_neonfp16.k[op][di];
        if (levels[li] == ONYX_ISA_NEON && hp != NULL && onyx__cpu_has(ONYX__CPU_NEON_FP16) &&
            k != hp) {
          fail_msg("%s %s at cap neon on a FEAT_FP16 CPU: not the half-precision kernel",
                   op_name(op), dt_name(dt));
        }
#endif
#if HAVE_FP16_TABLE
        /* Where the CPU has AVX512-FP16, the AVX512-FP16 table's entries
         * are the AVX-512 level's kernels (and reported as that level,
         * checked above). */
        onyx__ukernel fp16 = onyx__kernels_avx512fp16.k[op][di];
        if (levels[li] == ONYX_ISA_AVX512 && fp16 != NULL && onyx__cpu_has(ONYX__CPU_AVX512FP16) &&
            k != fp16) {
          fail_msg("%s %s at cap avx512 on an AVX512-FP16 CPU: not the AVX512-FP16 kernel",
                   op_name(op), dt_name(dt));
        }
#endif
      }
    }
  }
}

/* Every value of the pool, with every pair of bounds for Clip. */
static void test_values(void **state) {
  (void)state;
  onyx_isa levels[N_SIMD_LEVELS];
  size_t nl = simd_levels(levels);
  uint64_t *pool = malloc(65536 * sizeof *pool);
  unsigned char *in = malloc(65536 * 8), *want = malloc(65536 * 8);
  assert_true(pool && in && want);
  fenced f = fenced_alloc(65536 * 8 + 2 * GUARD + 64);
  guarded g = guarded_alloc(65536 * 8 + 64);
  bound bounds[24];
  char what[160];
  for (size_t li = 0; li < nl; li++) {
    for (int di = 0; di < ONYX__DTYPE_COUNT; di++) {
      onyx_dtype dt = onyx__dtype_at(di);
      size_t es = onyx_dtype_size(dt);
      size_t n = value_pool(dt, pool, 65536);
      for (size_t i = 0; i < n; i++) put_bits(es, pool[i], in + i * es);
      size_t nb = bound_pool(dt, bounds);
      for (int op = 0; op < ONYX__KOP_COUNT; op++) {
        onyx__ukernel s = scalar_kernel((onyx__kop)op, dt);
        if (s == NULL) continue;
        onyx__ukernel k = onyx__kernel_get((onyx__kop)op, dt, levels[li]);
        if (op != ONYX__KOP_CLIP) {
          snprintf(what, sizeof what, "%s %s %s", onyx_isa_name(levels[li]), op_name(op),
                   dt_name(dt));
          check_run(k, s, es, n, in, NULL, VECTOR_BYTES, &f, &g, want, what);
          continue;
        }
        /* Halves have 65,536 inputs: fewer pairs keep the run short, but
         * every pair of neighbours in the pool runs, which includes the
         * ties (-0, +0) and (+0, -0) and the crossed pair (+inf, -inf).
         * Under an emulator (ONYX_TEST_EMULATED, set for cross builds),
         * which runs this loop 10 to 50 times slower, fewer still. */
        size_t step = is_half(dt) ? (getenv("ONYX_TEST_EMULATED") ? 8 : 3) : 1;
        for (size_t a = 0; a < nb; a++) {
          for (size_t b = 0; b < nb; b++) {
            if (b % step != a % step && b + 1 != a && a + 1 != b) continue;
            onyx__kparams p;
            make_params(dt, &bounds[a], &bounds[b], &p);
            snprintf(what, sizeof what, "%s clip %s lo=%s0x%llx hi=%s0x%llx",
                     onyx_isa_name(levels[li]), dt_name(dt), bounds[a].present ? "" : "none ",
                     (unsigned long long)bounds[a].bits, bounds[b].present ? "" : "none ",
                     (unsigned long long)bounds[b].bits);
            check_run(k, s, es, n, in, &p, VECTOR_BYTES, &f, &g, want, what);
          }
        }
      }
    }
  }
  fenced_free(&f);
  free(g.mem);
  free(pool);
  free(in);
  free(want);
}

/* Every length from 1 to five vectors and one, so that every path (four
 * vectors, one vector, tail) runs alone and after the others; then again
 * with the streaming hint (params->stream), up to 128 bytes further, so
 * that the streaming path's vector head, its loops and the tail run at
 * every alignment check_run gives, in place too. */
static void test_lengths(void **state) {
  (void)state;
  onyx_isa levels[N_SIMD_LEVELS];
  size_t nl = simd_levels(levels);
  uint64_t pool[1200];
  unsigned char in[5 * 64 + 128 + 8 + 1][8], want[(5 * 64 + 128 + 8) * 8];
  fenced f = fenced_alloc(sizeof in + 2 * GUARD + 64);
  guarded g = guarded_alloc(sizeof want + 64);
  bound bounds[24];
  char what[160];
  for (size_t li = 0; li < nl; li++) {
    size_t vb = VECTOR_BYTES;
    for (int di = 0; di < ONYX__DTYPE_COUNT; di++) {
      onyx_dtype dt = onyx__dtype_at(di);
      size_t es = onyx_dtype_size(dt);
      size_t w = vb / es, maxn = 5 * w + 1, maxn_stream = maxn + 128 / es;
      size_t np = value_pool(dt, pool, COUNT(pool));
      /* Specials first and then random ones, shuffled through the lengths. */
      for (size_t i = 0; i < maxn_stream; i++) {
        put_bits(es, pool[is_half(dt) ? rng() % np : (i * 7) % np], (unsigned char *)in + i * es);
      }
      size_t nb = bound_pool(dt, bounds);
      for (int op = 0; op < ONYX__KOP_COUNT; op++) {
        onyx__ukernel s = scalar_kernel((onyx__kop)op, dt);
        if (s == NULL) continue;
        onyx__ukernel k = onyx__kernel_get((onyx__kop)op, dt, levels[li]);
        for (int stream = 0; stream < 2; stream++) {
          for (size_t n = 1; n <= (stream ? maxn_stream : maxn); n++) {
            onyx__kparams p;
            memset(&p, 0, sizeof p);
            const onyx__kparams *pp = NULL;
            if (op == ONYX__KOP_CLIP) {
              /* A pair that clips on both sides: two bounds inside the pool. */
              bound lo = bounds[1 + n % (nb - 1)], hi = bounds[1 + (n * 5 + 3) % (nb - 1)];
              make_params(dt, &lo, &hi, &p);
              pp = &p;
            }
            if (stream) {
              p.stream = true;
              pp = &p;
            }
            snprintf(what, sizeof what, "%s %s %s%s", onyx_isa_name(levels[li]), op_name(op),
                     dt_name(dt), stream ? " streaming" : "");
            check_run(k, s, es, n, in, pp, vb, &f, &g, want, what);
          }
        }
      }
    }
  }
  fenced_free(&f);
  free(g.mem);
}

/*
 * Hand-made Clip params that onyx__clip_params never makes: NaN bounds
 * (the vector kernels compare assuming none) and integer bounds outside
 * the type. The kernels must still agree with the scalar ones.
 */
static void test_handmade_params(void **state) {
  (void)state;
  onyx_isa levels[N_SIMD_LEVELS];
  size_t nl = simd_levels(levels);
  uint64_t pool[1200];
  unsigned char in[1000 * 8], want[1000 * 8];
  fenced f = fenced_alloc(sizeof in + 2 * GUARD + 64);
  guarded g = guarded_alloc(sizeof want + 64);
  char what[160];
  for (size_t li = 0; li < nl; li++) {
    for (int di = 0; di < ONYX__DTYPE_COUNT; di++) {
      onyx_dtype dt = onyx__dtype_at(di);
      size_t es = onyx_dtype_size(dt);
      size_t n = value_pool(dt, pool, 1000);
      for (size_t i = 0; i < n; i++) put_bits(es, pool[i], in + i * es);
      onyx__ukernel s = scalar_kernel(ONYX__KOP_CLIP, dt);
      onyx__ukernel k = onyx__kernel_get(ONYX__KOP_CLIP, dt, levels[li]);
      onyx__kparams ps[4];
      size_t np = 0;
      if (dt == ONYX_DTYPE_DOUBLE) {
        ps[np++] = (onyx__kparams){.f64 = {NAN, 1.0}};
        ps[np++] = (onyx__kparams){.f64 = {-1.0, NAN}};
        ps[np++] = (onyx__kparams){.f64 = {-NAN, NAN}};
      } else if (is_float(dt)) {
        ps[np++] = (onyx__kparams){.f32 = {NAN, 1.0f}};
        ps[np++] = (onyx__kparams){.f32 = {-1.0f, NAN}};
        ps[np++] = (onyx__kparams){.f32 = {-NAN, NAN}};
      } else if (is_signed(dt)) {
        ps[np++] = (onyx__kparams){.i64 = {-1000000000000, 5}};
        ps[np++] = (onyx__kparams){.i64 = {-5, 70000}};
        ps[np++] = (onyx__kparams){.i64 = {INT64_MIN, INT64_MAX}};
      } else {
        ps[np++] = (onyx__kparams){.u64 = {3, 70000}};
        ps[np++] = (onyx__kparams){.u64 = {5000000000, UINT64_MAX}};
        ps[np++] = (onyx__kparams){.u64 = {0, UINT64_MAX}};
      }
      for (size_t i = 0; i < np; i++) {
        snprintf(what, sizeof what, "%s clip %s hand-made params %zu", onyx_isa_name(levels[li]),
                 dt_name(dt), i);
        check_run(k, s, es, n, in, &ps[i], VECTOR_BYTES, &f, &g, want, what);
      }
    }
  }
  fenced_free(&f);
  free(g.mem);
}

/*
 * Outputs large enough for streaming stores (16 MiB and more, with the
 * hint set as a session would set it), with the output one element off a
 * 64-byte boundary so that the head runs, and an odd length so that a tail
 * follows. One op per type (Clip, which
 * has the most lanes of logic) plus Ceil for float32.
 */
static void test_large(void **state) {
  (void)state;
  onyx_isa levels[N_SIMD_LEVELS];
  size_t nl = simd_levels(levels);
  /* Under an emulator 1 MiB: the kernels stream on params->stream, not on
   * the size, and every path at every alignment ran in test_lengths. */
  const size_t bytes = ((size_t)(getenv("ONYX_TEST_EMULATED") ? 1 : 16) << 20) + 4096;
  unsigned char *in = aligned_alloc(64, bytes + 64), *want = aligned_alloc(64, bytes + 64);
  unsigned char *got = aligned_alloc(64, bytes + 128);
  assert_true(in && want && got);
  uint64_t pool[1000];
  char what[160];
  for (int di = 0; di < ONYX__DTYPE_COUNT; di++) {
    onyx_dtype dt = onyx__dtype_at(di);
    size_t es = onyx_dtype_size(dt);
    size_t n = bytes / es - 3;
    size_t np = value_pool(dt, pool, COUNT(pool));
    for (size_t i = 0; i < n; i++) put_bits(es, pool[rng() % np], in + i * es);
    bound bounds[24];
    size_t nb = bound_pool(dt, bounds);
    onyx__kparams p;
    make_params(dt, &bounds[3], &bounds[nb - 5], &p);
    p.stream = true; /* as a session or onyx_ceil() would ask at this size */
    const onyx__kop ops[] = {ONYX__KOP_CLIP, ONYX__KOP_CEIL, ONYX__KOP_SIGN};
    for (size_t oi = 0; oi < (dt == ONYX_DTYPE_FLOAT ? 3u : 1u); oi++) {
      onyx__ukernel s = scalar_kernel(ops[oi], dt);
      s(n, in, want, &p);
      for (size_t li = 0; li < nl; li++) {
        onyx__ukernel k = onyx__kernel_get(ops[oi], dt, levels[li]);
        unsigned char *y = got + es;
        memset(got, GUARD_BYTE, bytes + 128);
        k(n, in, y, &p);
        snprintf(what, sizeof what, "%s %s %s large", onyx_isa_name(levels[li]), op_name(ops[oi]),
                 dt_name(dt));
        check_equal(es, n, in, y, want, what);
        for (size_t i = 0; i < es; i++) assert_int_equal(got[i], GUARD_BYTE);
        for (size_t i = es + n * es; i < bytes + 128; i++) assert_int_equal(got[i], GUARD_BYTE);
      }
    }
  }
  free(in);
  free(want);
  free(got);
}

#if HAVE_FP16_TABLE || (defined(__aarch64__) && defined(ONYX_HAVE_NEONFP16_KERNELS))
/*
 * One kernel k of a feature table against the scalar kernel s, as the level
 * tests check a level's: every value of the pool (all 65,536 patterns of a
 * half), every length from 1 to five vectors and one, and with the
 * streaming hint 128 bytes further, out of place, misaligned and in place
 * (check_run), with and without the hint; then a large output with it.
 * Lengths draw their inputs from the whole pool.
 */
static void check_table_kernel(onyx__ukernel k, onyx__ukernel s, onyx__kop op, onyx_dtype dt,
                               const char *label) {
  const size_t es = onyx_dtype_size(dt);
  uint64_t *pool = malloc(65536 * sizeof *pool);
  unsigned char *in = malloc(65536 * 8), *want = malloc(65536 * 8);
  assert_true(pool && in && want);
  fenced f = fenced_alloc(65536 * 8 + 2 * GUARD + 64);
  guarded g = guarded_alloc(65536 * 8 + 64);
  char what[160];
  onyx__kparams p;
  memset(&p, 0, sizeof p);
  p.stream = true;

  const size_t np = value_pool(dt, pool, 65536);
  for (size_t i = 0; i < np; i++) put_bits(es, pool[i], in + i * es);
  for (int stream = 0; stream < 2; stream++) {
    snprintf(what, sizeof what, "%s %s %s values%s", label, op_name(op), dt_name(dt),
             stream ? " streaming" : "");
    check_run(k, s, es, np, in, stream ? &p : NULL, VECTOR_BYTES, &f, &g, want, what);
  }

  const size_t w = VECTOR_BYTES / es, maxn = 5 * w + 1, maxn_stream = maxn + 128 / es;
  for (size_t i = 0; i < maxn_stream; i++) put_bits(es, pool[rng() % np], in + i * es);
  for (int stream = 0; stream < 2; stream++) {
    snprintf(what, sizeof what, "%s %s %s lengths%s", label, op_name(op), dt_name(dt),
             stream ? " streaming" : "");
    for (size_t n = 1; n <= (stream ? maxn_stream : maxn); n++) {
      check_run(k, s, es, n, in, stream ? &p : NULL, VECTOR_BYTES, &f, &g, want, what);
    }
  }
  fenced_free(&f);
  free(g.mem);
  free(in);
  free(want);

  /* As test_large: the output one element off a 64-byte boundary, an odd
   * length, guards on both sides. */
  const size_t bytes = ((size_t)16 << 20) + 4096, n = bytes / es - 3;
  unsigned char *big = aligned_alloc(64, bytes + 64), *bwant = aligned_alloc(64, bytes + 64);
  unsigned char *got = aligned_alloc(64, bytes + 128);
  assert_true(big && bwant && got);
  for (size_t i = 0; i < n; i++) put_bits(es, pool[rng() % np], big + i * es);
  s(n, big, bwant, &p);
  memset(got, GUARD_BYTE, bytes + 128);
  k(n, big, got + es, &p);
  snprintf(what, sizeof what, "%s %s %s large", label, op_name(op), dt_name(dt));
  check_equal(es, n, big, got + es, bwant, what);
  for (size_t i = 0; i < es; i++) assert_int_equal(got[i], GUARD_BYTE);
  for (size_t i = es + n * es; i < bytes + 128; i++) assert_int_equal(got[i], GUARD_BYTE);
  free(big);
  free(bwant);
  free(got);
  free(pool);
}
#endif

/*
 * Every entry of onyx__kernels_avx512fp16, which overlays the AVX-512
 * level's table where the CPU has AVX512-FP16, checked directly. Natively
 * it runs only on such a CPU; elsewhere it is skipped, and says why. In
 * the emulated program (ONYX_TEST_FP16_EMULATED) the table is an emulation
 * and runs on any CPU that runs the program.
 */
static void test_fp16_table(void **state) {
  (void)state;
#if !HAVE_FP16_TABLE
  printf(
      "[  SKIP    ] test_fp16_table: this build has no AVX512-FP16 kernels "
      "(src/kernels/x86/kernels_avx512fp16.c missing, or the compiler cannot build it)\n");
  fflush(stdout);
  skip();
#else
  const bool native = onyx__cpu_has(ONYX__CPU_AVX512FP16);
  if (!ONYX_TEST_FP16_EMULATED && !native) {
    printf(
        "[  SKIP    ] test_fp16_table: onyx__kernels_avx512fp16 NOT checked: this CPU lacks "
        "AVX512-FP16 (or ONYX_ISA is below avx512); unit.test_simd.emulated_avx512 checks "
        "an emulation of it\n");
    fflush(stdout);
    skip();
  }
  const char *label = ONYX_TEST_FP16_EMULATED ? "avx512fp16 (emulated)" : "avx512fp16";
  size_t entries = 0;
  for (int op = 0; op < ONYX__KOP_COUNT; op++) {
    for (int di = 0; di < ONYX__DTYPE_COUNT; di++) {
      onyx__ukernel k = onyx__kernels_avx512fp16.k[op][di];
      if (k == NULL) continue;
      onyx_dtype dt = onyx__dtype_at(di);
      onyx__ukernel s = scalar_kernel((onyx__kop)op, dt);
      if (s == NULL)
        fail_msg("%s %s has an AVX512-FP16 kernel but no scalar one", op_name(op), dt_name(dt));
      if (native && !ONYX_TEST_FP16_EMULATED &&
          (onyx__kernel_get((onyx__kop)op, dt, ONYX_ISA_BEST) != k ||
           onyx__kernel_isa((onyx__kop)op, dt, ONYX_ISA_BEST) != ONYX_ISA_AVX512)) {
        fail_msg("%s %s: dispatch does not pick the AVX512-FP16 kernel at level avx512",
                 op_name(op), dt_name(dt));
      }
      check_table_kernel(k, s, (onyx__kop)op, dt, label);
      entries++;
    }
  }
  if (entries == 0) fail_msg("onyx__kernels_avx512fp16 has no entries");
  printf("[          ] test_fp16_table: %zu entries of onyx__kernels_avx512fp16%s checked\n",
         entries, ONYX_TEST_FP16_EMULATED ? " (EMULATED)" : " (native)");
  fflush(stdout);
#endif
}

/*
 * The FEAT_FP16 table (kernels_neonfp16.c) of a 64-bit ARM build whose
 * compiler built it with its own flags, GCC or Clang: it must hold float16
 * Ceil and Floor, each equal to the scalar kernel. The table's kernels run
 * only on a CPU with FEAT_FP16 (qemu-aarch64's default CPU has it).
 */
static void test_neonfp16_table(void **state) {
  (void)state;
#if !defined(__aarch64__) || !defined(ONYX_HAVE_NEONFP16_KERNELS)
  printf(
      "[  SKIP    ] test_neonfp16_table: not a 64-bit ARM build whose compiler builds "
      "FEAT_FP16 code (kernels_neonfp16.c)\n");
  fflush(stdout);
  skip();
#else
  size_t entries = 0;
  for (int op = 0; op < ONYX__KOP_COUNT; op++) {
    for (int di = 0; di < ONYX__DTYPE_COUNT; di++) {
      onyx__ukernel k = onyx__kernels_neonfp16.k[op][di];
      if (k == NULL) continue;
      onyx_dtype dt = onyx__dtype_at(di);
      onyx__ukernel s = scalar_kernel((onyx__kop)op, dt);
      if (s == NULL)
        fail_msg("%s %s has a FEAT_FP16 kernel but no scalar one", op_name(op), dt_name(dt));
      if (onyx__cpu_has(ONYX__CPU_NEON_FP16))
        check_table_kernel(k, s, (onyx__kop)op, dt, "neonfp16");
      entries++;
    }
  }
  const onyx_dtype f16 = ONYX_DTYPE_FLOAT16;
  const int di = onyx__dtype_index(f16);
  if (onyx__kernels_neonfp16.k[ONYX__KOP_CEIL][di] == NULL ||
      onyx__kernels_neonfp16.k[ONYX__KOP_FLOOR][di] == NULL)
    fail_msg("onyx__kernels_neonfp16 lacks float16 Ceil or Floor (%zu entries)", entries);
  printf("[          ] test_neonfp16_table: %zu entries%s\n", entries,
         onyx__cpu_has(ONYX__CPU_NEON_FP16) ? ", each checked against scalar"
                                            : "; NOT run: this CPU lacks FEAT_FP16");
  fflush(stdout);
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dispatch_levels), cmocka_unit_test(test_values),
      cmocka_unit_test(test_lengths),         cmocka_unit_test(test_handmade_params),
      cmocka_unit_test(test_large),           cmocka_unit_test(test_fp16_table),
      cmocka_unit_test(test_neonfp16_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
