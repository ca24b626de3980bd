/* SPDX-License-Identifier: MIT */
/*
 * CPU features and kernel dispatch: the feature mask this CPU reports, the
 * masks caps allow, the choice of table from a mask (with made-up masks, so
 * that every table line of this build is checked whatever the CPU has), and
 * the public levels: zero-initialised options run the best kernels, a cap
 * lowers dispatch on its own architecture, and a level of another
 * architecture means scalar.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* cmocka.h uses size_t, va_list, jmp_buf and uintmax_t without including
 * the headers that declare them, so it comes after them. */
#include <cmocka.h>

#include "cpu/cpu.h"
#include "graph/session.h"
#include "kernels/dispatch.h"
#include "kernels/kernels.h"
#include "model_builder.h"
#include "onyx.h"

#define BIT ONYX__CPU_BIT

static const onyx_isa LEVELS[] = {
#define ONYX_X_(name, value, lname, arch, desc) ONYX_ISA_##name,
    ONYX_ISA_MAP(ONYX_X_)
#undef ONYX_X_
};
#define N_LEVELS (sizeof LEVELS / sizeof LEVELS[0])

static const onyx_dtype TYPES[] = {
#define ONYX_X_(name, value, cname, size) ONYX_DTYPE_##name,
    ONYX_DTYPE_MAP(ONYX_X_)
#undef ONYX_X_
};
#define N_TYPES (sizeof TYPES / sizeof TYPES[0])

/* a's features are all in b's. */
static bool subset(onyx__cpu_mask a, onyx__cpu_mask b) { return (a & ~b) == 0; }

/* The level this build's best table reports: a level of the build's own
 * architecture, or scalar where it has no SIMD tables. */
static onyx_isa build_top(void) {
  size_t n;
  return onyx__kernel_lines(&n)[0].level;
}

/* Whether level is of the build's architecture (scalar is of every one). */
static bool own_arch(onyx_isa level) {
  return level == ONYX_ISA_SCALAR ||
         (onyx__cpu_cap_mask(level) & onyx__cpu_cap_mask(build_top())) != 0;
}

static void test_cap_masks(void **state) {
  (void)state;
  const onyx__cpu_mask x86 = BIT(SSE41) | BIT(AVX2) | BIT(F16C) | BIT(AVX512) | BIT(AVX512FP16);
  assert_int_equal(onyx__cpu_cap_mask(ONYX_ISA_BEST), ONYX__CPU_ALL);
  assert_int_equal(onyx__cpu_cap_mask(ONYX_ISA_SCALAR), 0);
  assert_int_equal(onyx__cpu_cap_mask((onyx_isa)99), 0);
  /* ONYX_ISA_BEST in onyx 0.1.0: still no cap, for programs built against it */
  assert_int_equal(onyx__cpu_cap_mask((onyx_isa)255), ONYX__CPU_ALL);
  assert_int_equal(onyx__cpu_cap_mask((onyx_isa)254), 0);
  assert_int_equal(onyx__cpu_cap_mask(ONYX_ISA_SSE41), BIT(SSE41));
  assert_int_equal(onyx__cpu_cap_mask(ONYX_ISA_AVX2), BIT(SSE41) | BIT(AVX2) | BIT(F16C));
  assert_int_equal(onyx__cpu_cap_mask(ONYX_ISA_AVX512), x86);
  assert_int_equal(onyx__cpu_cap_mask(ONYX_ISA_NEON), BIT(NEON) | BIT(NEON_FP16));
  assert_int_equal(onyx__cpu_cap_mask(ONYX_ISA_WASM_SIMD128), BIT(SIMD128));
  /* No level of one architecture allows a feature of another. */
  assert_int_equal(onyx__cpu_cap_mask(ONYX_ISA_AVX512) & onyx__cpu_cap_mask(ONYX_ISA_NEON), 0);
  /* Every feature belongs to some level. */
  onyx__cpu_mask all = 0;
  for (size_t i = 0; i < N_LEVELS; i++) all |= onyx__cpu_cap_mask(LEVELS[i]);
  assert_int_equal(all, ONYX__CPU_ALL);
}

static void test_names(void **state) {
  (void)state;
  assert_int_equal(ONYX_ISA_BEST, 0);
  for (size_t i = 0; i < N_LEVELS; i++) {
    assert_int_not_equal(LEVELS[i], 0);
    assert_int_equal(onyx__cpu_isa_named(onyx_isa_name(LEVELS[i])), LEVELS[i]);
  }
  assert_int_equal(onyx__cpu_isa_named(NULL), ONYX_ISA_BEST);
  assert_int_equal(onyx__cpu_isa_named("best"), ONYX_ISA_BEST);
  assert_int_equal(onyx__cpu_isa_named("avx3"), ONYX_ISA_BEST);
  assert_int_equal(onyx__cpu_isa_named(""), ONYX_ISA_BEST);
  assert_int_equal(onyx__cpu_isa_named("AVX2"), ONYX_ISA_BEST);

  assert_string_equal(onyx_isa_name(ONYX_ISA_SCALAR), "scalar");
  assert_string_equal(onyx_isa_name(ONYX_ISA_SSE41), "sse41");
  assert_string_equal(onyx_isa_name(ONYX_ISA_AVX2), "avx2");
  assert_string_equal(onyx_isa_name(ONYX_ISA_AVX512), "avx512");
  assert_string_equal(onyx_isa_name(ONYX_ISA_NEON), "neon");
  assert_string_equal(onyx_isa_name(ONYX_ISA_WASM_SIMD128), "wasm-simd128");
  assert_string_equal(onyx_isa_name(ONYX_ISA_BEST), "best");
  assert_string_equal(onyx_isa_name((onyx_isa)17), "unknown");
  assert_string_equal(onyx_isa_name((onyx_isa)255), "unknown");
}

static void test_isa_lower(void **state) {
  (void)state;
  /* The environment lowers and never raises; unknown values are ignored. */
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_AVX512, NULL), ONYX_ISA_AVX512);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_AVX512, "scalar"), ONYX_ISA_SCALAR);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_AVX512, "sse41"), ONYX_ISA_SSE41);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_AVX512, "avx2"), ONYX_ISA_AVX2);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_AVX512, "avx512"), ONYX_ISA_AVX512);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_AVX512, "best"), ONYX_ISA_AVX512);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_SSE41, "avx512"), ONYX_ISA_SSE41);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_SCALAR, "avx2"), ONYX_ISA_SCALAR);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_AVX2, "avx3"), ONYX_ISA_AVX2);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_AVX2, ""), ONYX_ISA_AVX2);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_AVX2, "AVX2x"), ONYX_ISA_AVX2);
  /* A level of another architecture leaves the portable kernels only, in
   * either direction: no architecture is above another. */
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_NEON, "neon"), ONYX_ISA_NEON);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_NEON, "scalar"), ONYX_ISA_SCALAR);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_NEON, "avx2"), ONYX_ISA_SCALAR);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_NEON, "avx512"), ONYX_ISA_SCALAR);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_AVX512, "neon"), ONYX_ISA_SCALAR);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_SSE41, "neon"), ONYX_ISA_SCALAR);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_SCALAR, "neon"), ONYX_ISA_SCALAR);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_WASM_SIMD128, "wasm-simd128"),
                   ONYX_ISA_WASM_SIMD128);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_WASM_SIMD128, "avx2"), ONYX_ISA_SCALAR);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_WASM_SIMD128, "neon"), ONYX_ISA_SCALAR);
  assert_int_equal(onyx__cpu_isa_lower(ONYX_ISA_AVX512, "wasm-simd128"), ONYX_ISA_SCALAR);
}

/* The features this CPU reports, and the level they give. */
static void test_cpu(void **state) {
  (void)state;
  const onyx__cpu_mask m = onyx__cpu_features();
  assert_int_equal(onyx__cpu_features(), m); /* detected once, stable */
  for (int f = 0; f < ONYX__CPU_FEATURE_COUNT; f++) {
    assert_int_equal(onyx__cpu_has((onyx__cpu_feature)f), (m >> f) & 1u);
  }
  assert_false(onyx__cpu_has(ONYX__CPU_FEATURE_COUNT));
  const onyx_isa isa = onyx__cpu_isa();
  assert_int_equal(onyx_isa_detected(), isa);
  assert_int_equal(onyx_isa_capped(ONYX_ISA_BEST), isa);
  assert_int_equal(onyx__kernel_best_level(m), isa);
  assert_true(own_arch(isa));
  /* Only features of this build's architecture. */
  assert_true(subset(m, onyx__cpu_cap_mask(build_top())));
  /* ONYX_ISA, if set, switched off what lies above the level it names. */
  const char *env = getenv("ONYX_ISA");
  assert_true(subset(m, onyx__cpu_cap_mask(onyx__cpu_isa_named(env))));
  if (env != NULL && strcmp(env, "scalar") == 0) assert_int_equal(isa, ONYX_ISA_SCALAR);
#if defined(__aarch64__)
  /* Advanced SIMD is part of every AArch64 CPU. */
  if (env == NULL) assert_true(m & BIT(NEON));
#elif defined(__arm__)
  assert_true(isa == ONYX_ISA_NEON || isa == ONYX_ISA_SCALAR);
#elif defined(__i386__)
  /* 32-bit x86 builds the SSE4.1 and AVX2 kernels, not AVX-512's. */
  assert_true(isa == ONYX_ISA_SCALAR || isa == ONYX_ISA_SSE41 || isa == ONYX_ISA_AVX2);
#elif !defined(__x86_64__) && !defined(__wasm__)
  assert_int_equal(m, 0);
  assert_int_equal(isa, ONYX_ISA_SCALAR);
#endif
  printf("features 0x%x, level %s\n", (unsigned)m, onyx_isa_name(isa));
}

/* The lines themselves: scalar last and complete, and each line reachable
 * under the cap of the level it reports, not under the one below. */
static void test_lines(void **state) {
  (void)state;
  size_t n;
  const onyx__kernel_line *lines = onyx__kernel_lines(&n);
  assert_true(n >= 1);
  assert_ptr_equal(lines[n - 1].table, &onyx__kernels_scalar);
  assert_int_equal(lines[n - 1].needs, 0);
  assert_int_equal(lines[n - 1].level, ONYX_ISA_SCALAR);
  for (size_t i = 0; i < n; i++) {
    assert_true(own_arch(lines[i].level));
    assert_true(subset(lines[i].needs, onyx__cpu_cap_mask(lines[i].level)));
    if (lines[i].level != ONYX_ISA_SCALAR) assert_int_not_equal(lines[i].needs, 0);
    /* Precedence: a line never needs less than a later one of a higher
     * level (which it would then hide). */
    for (size_t j = i + 1; j < n; j++) {
      if (subset(lines[i].needs, lines[j].needs)) {
        assert_true(subset(onyx__cpu_cap_mask(lines[i].level), onyx__cpu_cap_mask(lines[j].level)));
      }
    }
  }
}

/* Table choice from made-up masks: with each line's own needs, with none,
 * with every feature, and under every cap. */
static void test_pick(void **state) {
  (void)state;
  size_t n;
  const onyx__kernel_line *lines = onyx__kernel_lines(&n);
  assert_int_equal(onyx__kernel_best_level(0), ONYX_ISA_SCALAR);
  assert_int_equal(onyx__kernel_best_level(ONYX__CPU_ALL), lines[0].level);
  for (int op = 0; op < ONYX__KOP_COUNT; op++) {
    for (size_t t = 0; t < N_TYPES; t++) {
      const int di = onyx__dtype_index(TYPES[t]);
      const onyx__ukernel scalar = onyx__kernels_scalar.k[op][di];
      const onyx__kernel_line *none = onyx__kernel_pick(0, (onyx__kop)op, TYPES[t]);
      if (scalar == NULL) {
        /* No level has a kernel the portable table lacks. */
        for (size_t i = 0; i < n; i++) assert_null(lines[i].table->k[op][di]);
        assert_null(onyx__kernel_pick(ONYX__CPU_ALL, (onyx__kop)op, TYPES[t]));
        continue;
      }
      assert_ptr_equal(none, &lines[n - 1]);
      for (size_t i = 0; i < n; i++) {
        /* A CPU with exactly line i's features gets line i's kernel where
         * the line has one, and else that of a later line. */
        const onyx__kernel_line *got = onyx__kernel_pick(lines[i].needs, (onyx__kop)op, TYPES[t]);
        assert_non_null(got);
        assert_true(subset(got->needs, lines[i].needs));
        assert_non_null(got->table->k[op][di]);
        if (lines[i].table->k[op][di] != NULL) assert_true(got <= &lines[i]);
        /* Without one of its features, never line i. */
        for (int f = 0; f < ONYX__CPU_FEATURE_COUNT; f++) {
          const onyx__cpu_mask less = lines[i].needs & ~((onyx__cpu_mask)1 << f);
          if (less == lines[i].needs) continue;
          const onyx__kernel_line *l = onyx__kernel_pick(less, (onyx__kop)op, TYPES[t]);
          assert_ptr_not_equal(l, &lines[i]);
        }
      }
      /* Every feature: the first line with the kernel. */
      const onyx__kernel_line *best = onyx__kernel_pick(ONYX__CPU_ALL, (onyx__kop)op, TYPES[t]);
      for (const onyx__kernel_line *l = lines; l < best; l++) assert_null(l->table->k[op][di]);
      /* A cap: a line of the cap's architecture at or below it, or scalar
       * for a cap of another architecture. */
      for (size_t c = 0; c < N_LEVELS; c++) {
        const onyx__cpu_mask cap = onyx__cpu_cap_mask(LEVELS[c]);
        const onyx__kernel_line *got =
            onyx__kernel_pick(ONYX__CPU_ALL & cap, (onyx__kop)op, TYPES[t]);
        assert_true(subset(onyx__cpu_cap_mask(got->level), cap));
        if (!own_arch(LEVELS[c])) assert_int_equal(got->level, ONYX_ISA_SCALAR);
      }
    }
  }
  /* Unknown ops and types have no line. */
  assert_null(onyx__kernel_pick(ONYX__CPU_ALL, ONYX__KOP_COUNT, ONYX_DTYPE_FLOAT));
  assert_null(onyx__kernel_pick(ONYX__CPU_ALL, ONYX__KOP_CEIL, ONYX_DTYPE_UNDEFINED));
  assert_null(onyx__kernel_pick(ONYX__CPU_ALL, ONYX__KOP_CEIL, (onyx_dtype)99));
}

/* The public caps on this CPU. */
static void test_caps(void **state) {
  (void)state;
  const onyx_isa top = onyx_isa_detected();
  for (size_t c = 0; c < N_LEVELS; c++) {
    const onyx_isa got = onyx_isa_capped(LEVELS[c]);
    /* At most the cap on its architecture, and at most what the CPU has. */
    assert_true(subset(onyx__cpu_cap_mask(got), onyx__cpu_cap_mask(LEVELS[c])));
    assert_true(subset(onyx__cpu_cap_mask(got), onyx__cpu_cap_mask(top)));
    if (!own_arch(LEVELS[c])) {
      printf("cap %s: scalar, another architecture's level\n", onyx_isa_name(LEVELS[c]));
      assert_int_equal(got, ONYX_ISA_SCALAR);
    }
    /* The detected level and any above it on its architecture run the best
     * kernels. */
    if (own_arch(LEVELS[c]) && subset(onyx__cpu_cap_mask(top), onyx__cpu_cap_mask(LEVELS[c]))) {
      assert_int_equal(got, top);
    }
    for (int op = 0; op < ONYX__KOP_COUNT; op++) {
      for (size_t t = 0; t < N_TYPES; t++) {
        const onyx_isa level = onyx__kernel_isa((onyx__kop)op, TYPES[t], LEVELS[c]);
        assert_true(subset(onyx__cpu_cap_mask(level), onyx__cpu_cap_mask(got)));
      }
    }
  }
  /* A cap lowers dispatch on its own architecture: each level of this
   * build's below the detected one gives some kernel of its own. */
  size_t n;
  const onyx__kernel_line *lines = onyx__kernel_lines(&n);
  for (size_t i = 0; i < n; i++) {
    if (!subset(lines[i].needs, onyx__cpu_features())) continue;
    assert_int_equal(onyx_isa_capped(lines[i].level), lines[i].level);
    bool found = false;
    for (int op = 0; op < ONYX__KOP_COUNT && !found; op++) {
      for (size_t t = 0; t < N_TYPES && !found; t++) {
        found = onyx__kernel_isa((onyx__kop)op, TYPES[t], lines[i].level) == lines[i].level;
      }
    }
    assert_true(found);
  }
  assert_int_equal(onyx_isa_capped(ONYX_ISA_SCALAR), ONYX_ISA_SCALAR);
  assert_int_equal(onyx_isa_capped((onyx_isa)77), ONYX_ISA_SCALAR);
  assert_int_equal(onyx_isa_capped((onyx_isa)255), onyx_isa_capped(ONYX_ISA_BEST));
}

/* A one-node Ceil model on float of any length. */
static onyx_model *ceil_model(void) {
  onyx__pbw g = {0}, m = {0};
  int64_t n = -1;
  mb_node(&g, "Ceil", "ceil", "x", NULL, NULL, "y", NULL);
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, 1, &n);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, &n);
  mb_model(&m, 8, 13, &g);
  assert_false(m.failed);
  onyx_model *model = NULL;
  onyx_error err = {0};
  if (onyx_model_load_memory(m.buf, m.len, &model, &err) != ONYX_OK) fail_msg("%s", err.message);
  onyx__pbw_free(&m);
  return model;
}

/* Zero-initialised options (no onyx_session_options_init) run the best
 * kernels, as the defaults do: not scalar on a CPU with SIMD kernels. */
static void test_zero_options(void **state) {
  (void)state;
  onyx_session_options zero, init;
  memset(&zero, 0, sizeof zero);
  onyx_session_options_init(&init);
  assert_int_equal(zero.isa_cap, ONYX_ISA_BEST);
  assert_int_equal(init.isa_cap, ONYX_ISA_BEST);
  for (int op = 0; op < ONYX__KOP_COUNT; op++) {
    for (size_t t = 0; t < N_TYPES; t++) {
      assert_ptr_equal(onyx__kernel_get((onyx__kop)op, TYPES[t], zero.isa_cap),
                       onyx__kernel_get((onyx__kop)op, TYPES[t], ONYX_ISA_BEST));
    }
  }
  const onyx__ukernel best = onyx__kernel_get(ONYX__KOP_CEIL, ONYX_DTYPE_FLOAT, ONYX_ISA_BEST);
  const onyx__ukernel scalar =
      onyx__kernels_scalar.k[ONYX__KOP_CEIL][onyx__dtype_index(ONYX_DTYPE_FLOAT)];
  const onyx_isa level = onyx__kernel_isa(ONYX__KOP_CEIL, ONYX_DTYPE_FLOAT, ONYX_ISA_BEST);
  /* Every SIMD table has Ceil on float. */
  assert_int_equal(level, onyx_isa_detected());

  onyx_model *model = ceil_model();
  onyx_session *s = NULL;
  onyx_error err = {0};
  if (onyx_session_create(model, &zero, &s, &err) != ONYX_OK) fail_msg("%s", err.message);
  assert_int_equal(s->n_steps, 1);
  assert_ptr_equal(s->steps[0].prep.kernel, best);
  if (level != ONYX_ISA_SCALAR) {
    assert_ptr_not_equal(s->steps[0].prep.kernel, scalar);
  } else {
    printf("[  SKIP    ] zero options vs scalar: this CPU (or ONYX_ISA) has only scalar\n");
  }
  float x[5] = {-1.5f, -0.5f, 0.25f, 1.0f, 2.5f}, want[5] = {-1.0f, -0.0f, 1.0f, 1.0f, 3.0f};
  onyx_tensor in = {ONYX_DTYPE_FLOAT, 1, {5}, x, sizeof x}, out;
  memset(&out, 0, sizeof out);
  if (onyx_session_run(s, &in, 1, &out, 1, &err) != ONYX_OK) fail_msg("%s", err.message);
  assert_memory_equal(out.data, want, sizeof want);
  onyx_free(out.data);
  onyx_session_free(s);

  /* A scalar cap reaches the step too. */
  onyx_session_options capped = zero;
  capped.isa_cap = ONYX_ISA_SCALAR;
  if (onyx_session_create(model, &capped, &s, &err) != ONYX_OK) fail_msg("%s", err.message);
  assert_ptr_equal(s->steps[0].prep.kernel, scalar);
  onyx_session_free(s);
  onyx_model_free(model);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cap_masks), cmocka_unit_test(test_names),
      cmocka_unit_test(test_isa_lower), cmocka_unit_test(test_cpu),
      cmocka_unit_test(test_lines),     cmocka_unit_test(test_pick),
      cmocka_unit_test(test_caps),      cmocka_unit_test(test_zero_options),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
