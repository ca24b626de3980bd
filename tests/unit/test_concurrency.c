/* SPDX-License-Identifier: MIT */
/*
 * Several threads running one session at once get the same bits as one
 * thread alone. The sessions use pools of 2 to 4 threads and tensors of
 * more than 1e5 elements, so that each run also splits its work across the
 * pool (and a caller that finds the pool busy runs inline), over fused
 * chains whose intermediate values live in per-worker scratch tiles, chains
 * that also output their intermediate values, and Clip bounds given or
 * computed at run time (which turn fusion off). Several threads creating,
 * running and freeing their own sessions of one model is checked as well.
 *
 * scripts/hardening.sh runs this test under ThreadSanitizer, where a data
 * race fails it even when the bits come out right.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_builder.h"
#include "onyx.h"

#define N_ELEMS 262149 /* 2^18 + 5: not a whole number of tiles; int8 runs split over threads */
#define CALLERS 4
#define RUNS    6

typedef struct graph_case {
  const char *name;
  onyx_dtype dtype;
  size_t n_inputs;
} graph_case;

/* Writes n elements of type t, a spread of values (some NaN, +-0, ties). */
static void fill(onyx_dtype t, void *p, size_t n, unsigned seed) {
  uint32_t s = 2463534242u ^ seed;
  for (size_t i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    double v = (double)(int32_t)s / 2.5e8; /* about -8.6 .. 8.6 */
    if (i % 97 == 0) v = -0.0;
    if (i % 101 == 0) v = 0.5;
    switch (t) {
      case ONYX_DTYPE_FLOAT: {
        float f = (float)v;
        if (i % 89 == 0) memcpy(&f, &(uint32_t){0x7fc00123u}, 4);
        memcpy((char *)p + 4 * i, &f, 4);
        break;
      }
      case ONYX_DTYPE_DOUBLE:
        memcpy((char *)p + 8 * i, &v, 8);
        break;
      case ONYX_DTYPE_INT16: {
        int16_t x = (int16_t)(s & 0xffff);
        memcpy((char *)p + 2 * i, &x, 2);
        break;
      }
      default: { /* float16: any bit pattern */
        uint16_t x = (uint16_t)(s >> 7);
        memcpy((char *)p + 2 * i, &x, 2);
        break;
      }
    }
  }
}

/* Clip bound values as one element of type t. */
static void bound(onyx_dtype t, double v, void *out) {
  switch (t) {
    case ONYX_DTYPE_FLOAT: {
      float f = (float)v;
      memcpy(out, &f, 4);
      break;
    }
    case ONYX_DTYPE_DOUBLE:
      memcpy(out, &v, 8);
      break;
    case ONYX_DTYPE_INT16: {
      int16_t x = (int16_t)(v * 1000);
      memcpy(out, &x, 2);
      break;
    }
    default: { /* float16: -1.5 and 2.0 */
      uint16_t x = v < 0 ? 0xbe00 : 0x4000;
      memcpy(out, &x, 2);
      break;
    }
  }
}

/*
 * The models, x[n] of type t:
 *   fused:    Ceil -> Clip(Constant lo, initializer hi) -> Sign -> Floor -> y
 *             (float types; for int16 Clip -> Sign -> Clip -> Sign)
 *   outputs:  the same chain with every intermediate value an output too
 *   bounds:   Clip(x, lo, hi) with lo, hi graph inputs, then Sign, and a
 *             second Clip whose bound is computed (Sign of lo)
 */
static void build(const char *kind, onyx_dtype t, onyx__pbw *m) {
  onyx__pbw g = {0}, v = {0};
  int64_t n = -1, one = 1;
  unsigned char lo[8], hi[8];
  size_t es = onyx_dtype_size(t);
  bound(t, -1.5, lo);
  bound(t, 2.0, hi);
  int is_int = t == ONYX_DTYPE_INT16;
  const char *first = is_int ? "Sign" : "Ceil", *last = is_int ? "Sign" : "Floor";
  if (strcmp(kind, "bounds") == 0) {
    mb_node(&g, "Clip", "clip", "x", "lo", "hi", "a", NULL);
    mb_node(&g, "Sign", "sign", "a", NULL, NULL, "y", NULL);
    mb_node(&g, "Sign", "sign_lo", "lo", NULL, NULL, "slo", NULL);
    mb_node(&g, "Clip", "clip2", "x", "slo", NULL, "z", NULL);
    mb_value(&g, 11, "x", t, 1, &n);
    mb_value(&g, 11, "lo", t, 0, NULL);
    mb_value(&g, 11, "hi", t, 1, &one);
    mb_value(&g, 12, "y", t, 1, &n);
    mb_value(&g, 12, "z", t, 1, &n);
  } else {
    mb_tensor(&v, "lo_value", t, 0, NULL, lo, es);
    mb_node(&g, "Constant", "const_lo", NULL, NULL, NULL, "lo", &v);
    mb_initializer(&g, "hi", t, 1, &one, hi, es);
    mb_node(&g, first, "first", "x", NULL, NULL, "a", NULL);
    mb_node(&g, "Clip", "clip", "a", "lo", "hi", "b", NULL);
    mb_node(&g, "Sign", "sign", "b", NULL, NULL, "c", NULL);
    mb_node(&g, last, "last", "c", NULL, NULL, "y", NULL);
    mb_value(&g, 11, "x", t, 1, &n);
    mb_value(&g, 12, "y", t, 1, &n);
    if (strcmp(kind, "outputs") == 0) {
      mb_value(&g, 12, "a", t, 1, &n);
      mb_value(&g, 12, "b", t, 1, &n);
      mb_value(&g, 12, "c", t, 1, &n);
    }
  }
  mb_model(m, 8, 13, &g);
  assert_false(m->failed);
}

typedef struct fixture {
  onyx_model *model;
  size_t n_inputs, n_outputs;
  onyx_tensor inputs[3];
  onyx_tensor want[4]; /* from one thread, scalar kernels */
} fixture;

static void setup(fixture *f, const char *kind, onyx_dtype t, onyx__pbw *bytes) {
  onyx_error err = {0};
  memset(f, 0, sizeof *f);
  build(kind, t, bytes);
  if (onyx_model_load_memory(bytes->buf, bytes->len, &f->model, &err) != ONYX_OK)
    fail_msg("%s", err.message);
  size_t es = onyx_dtype_size(t);
  f->inputs[0] = (onyx_tensor){t, 1, {N_ELEMS}, malloc(N_ELEMS * es), N_ELEMS * es};
  assert_non_null(f->inputs[0].data);
  fill(t, f->inputs[0].data, N_ELEMS, (unsigned)t);
  f->n_inputs = 1;
  if (strcmp(kind, "bounds") == 0) {
    f->inputs[1] = (onyx_tensor){t, 0, {0}, malloc(8), es};
    f->inputs[2] = (onyx_tensor){t, 1, {1}, malloc(8), es};
    assert_non_null(f->inputs[1].data);
    assert_non_null(f->inputs[2].data);
    bound(t, -1.5, f->inputs[1].data);
    bound(t, 2.0, f->inputs[2].data);
    f->n_inputs = 3;
  }
  onyx_session_options opts;
  onyx_session_options_init(&opts);
  opts.threads = 1;
  opts.isa_cap = ONYX_ISA_SCALAR;
  onyx_session *s = NULL;
  if (onyx_session_create(f->model, &opts, &s, &err) != ONYX_OK) fail_msg("%s", err.message);
  f->n_outputs = onyx_session_output_count(s);
  if (onyx_session_run(s, f->inputs, f->n_inputs, f->want, f->n_outputs, &err) != ONYX_OK)
    fail_msg("%s", err.message);
  onyx_session_free(s);
}

static void teardown(fixture *f) {
  for (size_t i = 0; i < f->n_inputs; i++) free(f->inputs[i].data);
  for (size_t i = 0; i < f->n_outputs; i++) onyx_free(f->want[i].data);
  onyx_model_free(f->model);
}

typedef struct caller {
  onyx_session *session; /* NULL: make one's own from model */
  const fixture *f;
  unsigned threads;
  int index;
  int mismatches;
  onyx_status status;
  char message[512];
} caller;

static void *caller_main(void *arg) {
  caller *c = arg;
  const fixture *f = c->f;
  onyx_error err = {0};
  onyx_session *s = c->session;
  if (s == NULL) {
    onyx_session_options opts;
    onyx_session_options_init(&opts);
    opts.threads = c->threads;
    c->status = onyx_session_create(f->model, &opts, &s, &err);
    if (c->status != ONYX_OK) {
      snprintf(c->message, sizeof c->message, "%s", err.message);
      return NULL;
    }
  }
  for (int r = 0; r < RUNS; r++) {
    onyx_tensor out[4];
    memset(out, 0, sizeof out);
    /* Every other run into the caller's buffers. */
    int own = (r + c->index) % 2;
    for (size_t o = 0; own && o < f->n_outputs; o++) {
      out[o].data = malloc(f->want[o].size);
      out[o].size = f->want[o].size;
      if (out[o].data == NULL) abort();
    }
    c->status = onyx_session_run(s, f->inputs, f->n_inputs, out, f->n_outputs, &err);
    if (c->status != ONYX_OK) {
      snprintf(c->message, sizeof c->message, "%s", err.message);
    } else {
      for (size_t o = 0; o < f->n_outputs; o++)
        if (out[o].size != f->want[o].size ||
            memcmp(out[o].data, f->want[o].data, f->want[o].size) != 0)
          c->mismatches++;
    }
    for (size_t o = 0; o < f->n_outputs; o++) {
      if (own)
        free(out[o].data);
      else
        onyx_free(out[o].data);
    }
    if (c->status != ONYX_OK) break;
  }
  if (c->session == NULL) onyx_session_free(s);
  return NULL;
}

/* CALLERS threads on one session (or, shared = 0, each on its own). */
static void race(const char *kind, onyx_dtype t, unsigned threads, int shared) {
  fixture f;
  onyx__pbw bytes = {0};
  setup(&f, kind, t, &bytes);
  onyx_session *s = NULL;
  onyx_error err = {0};
  if (shared) {
    onyx_session_options opts;
    onyx_session_options_init(&opts);
    opts.threads = threads;
    if (onyx_session_create(f.model, &opts, &s, &err) != ONYX_OK) fail_msg("%s", err.message);
  }
  pthread_t th[CALLERS];
  caller c[CALLERS];
  for (int i = 0; i < CALLERS; i++) {
    c[i] = (caller){s, &f, threads, i, 0, ONYX_OK, {0}};
    assert_int_equal(pthread_create(&th[i], NULL, caller_main, &c[i]), 0);
  }
  for (int i = 0; i < CALLERS; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
  for (int i = 0; i < CALLERS; i++) {
    if (c[i].status != ONYX_OK)
      fail_msg("%s %s, %u threads: %s", kind, onyx_dtype_name(t), threads, c[i].message);
    if (c[i].mismatches != 0)
      fail_msg("%s %s, %u threads: caller %d got other bits %d times", kind, onyx_dtype_name(t),
               threads, i, c[i].mismatches);
  }
  onyx_session_free(s);
  teardown(&f);
  onyx__pbw_free(&bytes);
}

static void test_fused_chains(void **state) {
  (void)state;
  race("fused", ONYX_DTYPE_FLOAT, 2, 1);
  race("fused", ONYX_DTYPE_FLOAT16, 3, 1);
  race("fused", ONYX_DTYPE_DOUBLE, 4, 1);
  race("fused", ONYX_DTYPE_INT16, 4, 1);
}

static void test_intermediate_outputs(void **state) {
  (void)state;
  race("outputs", ONYX_DTYPE_FLOAT, 3, 1);
  race("outputs", ONYX_DTYPE_DOUBLE, 2, 1);
}

static void test_runtime_bounds(void **state) {
  (void)state;
  race("bounds", ONYX_DTYPE_FLOAT, 4, 1);
  race("bounds", ONYX_DTYPE_INT16, 2, 1);
}

static void test_sessions_per_thread(void **state) {
  (void)state;
  race("fused", ONYX_DTYPE_FLOAT, 2, 0);
  race("bounds", ONYX_DTYPE_DOUBLE, 3, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fused_chains),
      cmocka_unit_test(test_intermediate_outputs),
      cmocka_unit_test(test_runtime_bounds),
      cmocka_unit_test(test_sessions_per_thread),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
