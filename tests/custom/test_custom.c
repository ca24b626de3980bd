/* SPDX-License-Identifier: MIT */
/*
 * Registered operators through the C API: registration checks, a mixed
 * graph of registered and onyx's own ops, shapes known only at run time,
 * attributes, constant inputs, in-place reuse, the thread pool, overrides,
 * op libraries, and the errors of functions that fail or lie about shapes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "model_builder.h"
#include "model_file.h"

/* ---- Models ---- */

/* A node of any domain with any number of inputs and outputs ("" omits
 * one) and an optional float attribute "alpha". */
static void node(onyx__pbw *g, const char *domain, const char *op, const char *name,
                 const char *const *ins, size_t n_in, const char *const *outs, size_t n_out,
                 const float *alpha) {
  onyx__pbw n = {0};
  for (size_t i = 0; i < n_in; i++) mb_str(&n, 1, ins[i]);
  for (size_t k = 0; k < n_out; k++) mb_str(&n, 2, outs[k]);
  mb_str(&n, 3, name);
  mb_str(&n, 4, op);
  if (alpha != NULL) {
    onyx__pbw a = {0};
    uint32_t bits;
    memcpy(&bits, alpha, sizeof bits);
    mb_str(&a, 1, "alpha");
    onyx__pbw_tag(&a, 2, 5);
    onyx__pbw_fixed32(&a, bits);
    onyx__pbw_uint(&a, 20, 1); /* FLOAT */
    mb_msg(&n, 5, &a);
  }
  mb_str(&n, 7, domain);
  mb_msg(g, 1, &n);
}

/* The bytes of the model load() made last (one model at a time). */
static onyx__pbw loaded_bytes;

/* The bytes of a model around graph importing ai.onnx 13 and com.example 1. */
static onyx__pbw model_bytes(onyx__pbw *graph) {
  onyx__pbw m = {0}, os = {0};
  mb_str(&os, 1, "com.example");
  onyx__pbw_uint(&os, 2, 1);
  mb_msg(&m, 8, &os);
  mb_model(&m, 8, 13, graph);
  return m;
}

/* The model of model_bytes(graph), loaded from a file. */
static onyx_model *load_from_file(onyx__pbw *graph) {
  onyx__pbw m = model_bytes(graph);
  onyx_model *model = NULL;
  onyx_error err;
  if (mb_load_via_file(&m, &model, &err) != ONYX_OK)
    fail_msg("the test's model does not load: %s", err.message);
  onyx__pbw_free(&m);
  return model;
}

/* A model around graph importing ai.onnx 13 and com.example 1. */
static onyx_model *load(onyx__pbw *graph) {
  onyx__pbw m = model_bytes(graph);
  onyx_model *model = NULL;
  onyx_error err;
  if (onyx_model_load_memory(m.buf, m.len, &model, &err) != ONYX_OK)
    fail_msg("the test's model does not load: %s", err.message);
  /* The model reads its bytes in place: they are freed with it (release). */
  assert_null(loaded_bytes.buf);
  loaded_bytes = m;
  return model;
}

/* Frees the model load() made last, and its bytes. */
static void release(onyx_model *m) {
  onyx_model_free(m);
  onyx__pbw_free(&loaded_bytes);
  loaded_bytes = (onyx__pbw){0};
}

/* x (float, [n] where n < 0 is symbolic) -> op chain -> y. */
static onyx_model *chain(const char *const *ops, const char *const *domains, size_t n_ops,
                         int64_t n) {
  onyx__pbw g = {0};
  char names[8][8];
  for (size_t i = 0; i < n_ops; i++) {
    snprintf(names[i], sizeof names[i], i + 1 == n_ops ? "y" : "v%zu", i);
    const char *in = i == 0 ? "x" : names[i - 1], *out = names[i];
    node(&g, domains ? domains[i] : "", ops[i], ops[i], &in, 1, &out, 1, NULL);
  }
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, 1, &n);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, &n);
  return load(&g);
}

/* ---- Operators ---- */

static onyx_status infer_same(onyx_op_context *ctx) {
  onyx_tensor x;
  onyx_op_input(ctx, 0, &x);
  return onyx_op_set_output(ctx, 0, x.dtype, x.rank, x.dims);
}

/* Counts of calls and of in-place calls, in user_data. */
typedef struct counts {
  int infer, compute, in_place;
} counts;

static onyx_status infer_counted(onyx_op_context *ctx) {
  counts *c = onyx_op_user_data(ctx);
  if (c != NULL) c->infer++;
  return infer_same(ctx);
}

/* y = max(x, 0) * alpha (alpha 1 unless the node says). */
static onyx_status compute_relu(onyx_op_context *ctx) {
  onyx_tensor x, y;
  onyx_attribute_info a;
  float alpha = onyx_op_attribute(ctx, "alpha", &a) ? a.f : 1.0f;
  assert_int_equal(onyx_op_input(ctx, 0, &x), ONYX_OK);
  assert_int_equal(onyx_op_output(ctx, 0, &y), ONYX_OK);
  counts *c = onyx_op_user_data(ctx);
  if (c != NULL) {
    c->compute++;
    c->in_place += x.data == y.data;
  }
  for (size_t i = 0; i < y.size / 4; i++) {
    float v = ((const float *)x.data)[i];
    ((float *)y.data)[i] = (v < 0 ? 0 : v) * alpha; /* NaN stays NaN */
  }
  return ONYX_OK;
}

static onyx_custom_op relu_def(const char *domain, const char *name, void *user_data) {
  onyx_custom_op d;
  memset(&d, 0, sizeof d);
  d.domain = domain;
  d.name = name;
  d.since_min = 1;
  d.min_inputs = d.max_inputs = 1;
  d.min_outputs = d.max_outputs = 1;
  d.input_types[0] = ONYX_DTYPE_BIT(ONYX_DTYPE_FLOAT);
  d.n_input_types = 1;
  d.infer = infer_counted;
  d.compute = compute_relu;
  d.user_data = user_data;
  return d;
}

static onyx_op_registry *registry_with(const onyx_custom_op *defs, size_t n) {
  onyx_op_registry *reg = NULL;
  onyx_error err;
  assert_int_equal(onyx_op_registry_create(&reg, &err), ONYX_OK);
  for (size_t i = 0; i < n; i++)
    if (onyx_op_registry_add(reg, &defs[i], &err) != ONYX_OK) fail_msg("add: %s", err.message);
  return reg;
}

/* A session of m with reg's operators, else the failure. */
static onyx_status create(const onyx_model *m, const onyx_op_registry *reg, onyx_session **s,
                          onyx_error *err) {
  onyx_session_options opts;
  onyx_session_options_init(&opts);
  opts.ops = reg;
  return onyx_session_create(m, &opts, s, err);
}

/* Runs model with reg on x (count floats) into y; returns the status. */
static onyx_status run(onyx_model *m, const onyx_op_registry *reg, unsigned threads, const float *x,
                       size_t count, float *y, onyx_error *err) {
  onyx_session_options opts;
  onyx_session_options_init(&opts);
  opts.ops = reg;
  opts.threads = threads;
  onyx_session *s = NULL;
  onyx_status st = onyx_session_create(m, &opts, &s, err);
  if (st != ONYX_OK) return st;
  onyx_tensor in = {ONYX_DTYPE_FLOAT, 1, {(int64_t)count}, (void *)(uintptr_t)x, count * 4};
  onyx_tensor out = {.data = y, .size = count * 4};
  st = onyx_session_run(s, &in, 1, &out, 1, err);
  onyx_session_free(s);
  return st;
}

/* ---- Registration ---- */

static int destroyed;
static void count_destroy(void *p) { destroyed += p == &destroyed; }

static void expect_add_fails(const onyx_custom_op *d, const char *needle) {
  onyx_op_registry *reg = NULL;
  onyx_error err;
  assert_int_equal(onyx_op_registry_create(&reg, NULL), ONYX_OK);
  destroyed = 0;
  assert_int_equal(onyx_op_registry_add(reg, d, &err), ONYX_INVALID_ARGUMENT);
  if (strstr(err.message, needle) == NULL) fail_msg("'%s' does not say '%s'", err.message, needle);
  onyx_op_registry_free(reg);
  assert_int_equal(destroyed, 0); /* a refused op's user data stays the caller's */
}

static void test_registration_errors(void **state) {
  (void)state;
  onyx_custom_op d = relu_def("com.example", "R", &destroyed);
  d.destroy = count_destroy;
  onyx_custom_op e = d;
  e.name = NULL;
  expect_add_fails(&e, "no name");
  e = d, e.infer = NULL;
  expect_add_fails(&e, "infer is NULL");
  e = d, e.compute = NULL;
  expect_add_fails(&e, "compute is NULL");
  e = d, e.since_min = 0;
  expect_add_fails(&e, "no range");
  e = d, e.since_min = 5, e.since_max = 4;
  expect_add_fails(&e, "no range");
  e = d, e.min_inputs = 3, e.max_inputs = 2;
  expect_add_fails(&e, "takes 3 to 2 inputs");
  e = d, e.min_outputs = 0, e.max_outputs = 0;
  expect_add_fails(&e, "max_outputs at least 1");
  e = d, e.n_input_types = ONYX_OP_MAX_TYPED + 1;
  expect_add_fails(&e, "n_input_types");
  e = d, e.output_types[0] = ONYX_DTYPE_BIT(9), e.n_output_types = 1; /* 9: string */
  expect_add_fails(&e, "no type onyx knows");
  e = relu_def("", "Clip", NULL);
  expect_add_fails(&e, "override_builtin");
  e = relu_def("ai.onnx", "Sign", NULL);
  expect_add_fails(&e, "override_builtin");

  /* A second registration of a range that overlaps is refused; a
   * disjoint one is not. The registry calls destroy once per op. */
  onyx_op_registry *reg = NULL;
  onyx_error err;
  assert_int_equal(onyx_op_registry_create(&reg, NULL), ONYX_OK);
  destroyed = 0;
  d.since_max = 5;
  assert_int_equal(onyx_op_registry_add(reg, &d, &err), ONYX_OK);
  e = d, e.since_min = 5, e.since_max = 0;
  assert_int_equal(onyx_op_registry_add(reg, &e, &err), ONYX_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "already registered for versions 1 to 5"));
  e.since_min = 6;
  assert_int_equal(onyx_op_registry_add(reg, &e, &err), ONYX_OK);
  assert_int_equal(onyx_op_registry_add(NULL, &d, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_op_registry_add(reg, NULL, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_op_registry_create(NULL, &err), ONYX_INVALID_ARGUMENT);
  onyx_op_registry_free(reg);
  assert_int_equal(destroyed, 2);
  onyx_op_registry_free(NULL);
}

/* ---- Graphs ---- */

static float ref_mixed(float v) { /* Floor(Sign(Clip(Relu(v), -1, 2.5))) */
  float r = v < 0 ? 0 : v;
  float c = isnan(r) ? r : r < -1 ? -1 : r > 2.5f ? 2.5f : r;
  float s = isnan(c) ? c : c > 0 ? 1.0f : c < 0 ? -1.0f : 0.0f;
  return floorf(s);
}

/* Relu (registered) -> Clip -> Sign -> Floor (onyx's): a chain of onyx's
 * ops after a registered one, with Clip's bounds as initializers. */
static void test_mixed_graph(void **state) {
  (void)state;
  onyx__pbw g = {0};
  const char *relu_in[] = {"x"}, *relu_out[] = {"r"}, *clip_in[] = {"r", "lo", "hi"};
  const char *clip_out[] = {"c"}, *sign_out[] = {"s"}, *floor_out[] = {"y"};
  const float lo = -1, hi = 2.5f;
  const int64_t n = -1;
  node(&g, "", "Relu", "relu", relu_in, 1, relu_out, 1, NULL);
  node(&g, "", "Clip", "clip", clip_in, 3, clip_out, 1, NULL);
  node(&g, "", "Sign", "sign", clip_out, 1, sign_out, 1, NULL);
  node(&g, "", "Floor", "floor", sign_out, 1, floor_out, 1, NULL);
  mb_initializer(&g, "lo", ONYX_DTYPE_FLOAT, 0, NULL, &lo, 4);
  mb_initializer(&g, "hi", ONYX_DTYPE_FLOAT, 0, NULL, &hi, 4);
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, 1, &n);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, &n);
  onyx_model *m = load(&g);
  counts c = {0};
  onyx_custom_op d = relu_def("", "Relu", &c);
  onyx_op_registry *reg = registry_with(&d, 1);
  float x[] = {-3, -0.5f, 0, 0.25f, 1.5f, 3, NAN, -INFINITY, INFINITY, 2.5f, 1e-30f}, y[11];
  onyx_error err;
  for (unsigned threads = 1; threads <= 2; threads++) {
    assert_int_equal(run(m, reg, threads, x, 11, y, &err), ONYX_OK);
    for (size_t i = 0; i < 11; i++) {
      float want = ref_mixed(x[i]);
      if (isnan(want) ? !isnan(y[i]) : memcmp(&want, &y[i], 4) != 0)
        fail_msg("x = %g: %g, want %g", x[i], y[i], want);
    }
  }
  /* The input shape is symbolic: infer runs at creation and at each run. */
  assert_int_equal(c.infer, 4);
  assert_int_equal(c.compute, 2);
  /* Without the registration, onyx refuses the model as before. */
  onyx_session *s = NULL;
  assert_int_equal(onyx_session_create(m, NULL, &s, &err), ONYX_UNSUPPORTED_OP);
  assert_non_null(strstr(err.message, "'Relu' is not supported"));
  assert_int_equal(onyx_op_registry_serves(reg, m, 0, NULL), 1);
  assert_int_equal(onyx_op_registry_serves(reg, m, 1, NULL), 0);
  assert_int_equal(onyx_op_registry_serves(NULL, m, 0, NULL), 0);
  onyx_op_registry_free(reg);
  release(m);
}

/* A custom domain, an attribute, fixed shapes (infer only at creation),
 * and in-place reuse where the op allows it. */
static void check_chain_in_place(int allows, int want_in_place) {
  const char *ops[] = {"R", "R", "R"}, *dom[] = {"com.example", "com.example", "com.example"};
  onyx_model *m = chain(ops, dom, 3, 4);
  counts c = {0};
  onyx_custom_op d = relu_def("com.example", "R", &c);
  d.allows_in_place = allows;
  onyx_op_registry *reg = registry_with(&d, 1);
  float x[4] = {-1, 2, -3, 4}, y[4];
  onyx_error err;
  assert_int_equal(run(m, reg, 1, x, 4, y, &err), ONYX_OK);
  assert_true(y[0] == 0 && y[1] == 2 && y[2] == 0 && y[3] == 4);
  assert_int_equal(c.infer, 3);
  assert_int_equal(c.compute, 3);
  /* The middle node's input is the first's buffer, read by nothing else:
   * it may write there. The first reads the caller's input and the last
   * writes the caller's output, so neither is in place. */
  assert_int_equal(c.in_place, want_in_place);
  onyx_op_registry_free(reg);
  release(m);
}

static void test_in_place(void **state) {
  (void)state;
  check_chain_in_place(1, 1);
  check_chain_in_place(0, 0);
}

static void test_attribute(void **state) {
  (void)state;
  onyx__pbw g = {0};
  const char *in[] = {"x"}, *out[] = {"y"};
  const float alpha = 2.5f;
  const int64_t n = 3;
  node(&g, "com.example", "R", "scaled", in, 1, out, 1, &alpha);
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, 1, &n);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, &n);
  onyx_model *m = load(&g);
  onyx_custom_op d = relu_def("com.example", "R", NULL);
  onyx_op_registry *reg = registry_with(&d, 1);
  float x[3] = {-1, 2, 4}, y[3];
  assert_int_equal(run(m, reg, 1, x, 3, y, NULL), ONYX_OK);
  assert_true(y[0] == 0 && y[1] == 5 && y[2] == 10);
  /* The domain's version must be in the registered range. */
  onyx_op_registry_free(reg);
  d.since_min = 2;
  reg = registry_with(&d, 1);
  onyx_error err;
  assert_int_equal(run(m, reg, 1, x, 3, y, &err), ONYX_UNSUPPORTED_OP);
  assert_non_null(strstr(err.message, "domain 'com.example'"));
  onyx_op_registry_free(reg);
  release(m);
}

/* ---- The pool, constant inputs, overrides ---- */

typedef struct fill_job {
  float *y;
  size_t n;
  int *seen;
} fill_job;

static void fill_block(void *arg, size_t i) {
  fill_job *j = arg;
  j->seen[i]++;
  for (size_t k = i * 1000; k < (i + 1) * 1000 && k < j->n; k++) j->y[k] = (float)k;
}

static onyx_status compute_fill(onyx_op_context *ctx) {
  onyx_tensor y;
  onyx_op_output(ctx, 0, &y);
  fill_job j = {y.data, y.size / 4, onyx_op_user_data(ctx)};
  onyx_op_parallel_for(ctx, (j.n + 999) / 1000, fill_block, &j);
  return ONYX_OK;
}

static void test_parallel_for(void **state) {
  (void)state;
  const char *ops[] = {"Fill"}, *dom[] = {"com.example"};
  enum { N = 200000 };
  onyx_model *m = chain(ops, dom, 1, N);
  static int seen[N / 1000];
  onyx_custom_op d = relu_def("com.example", "Fill", seen);
  d.compute = compute_fill;
  d.infer = infer_same;
  onyx_op_registry *reg = registry_with(&d, 1);
  static float x[N], y[N];
  for (unsigned threads = 1; threads <= 4; threads *= 2) {
    memset(seen, 0, sizeof seen);
    assert_int_equal(run(m, reg, threads, x, N, y, NULL), ONYX_OK);
    for (size_t i = 0; i < N / 1000; i++) assert_int_equal(seen[i], 1);
    for (size_t k = 0; k < N; k++) assert_true(y[k] == (float)k);
  }
  onyx_op_registry_free(reg);
  release(m);
}

/* y = x + c, c an initializer that infer already sees. */
static onyx_status infer_add_const(onyx_op_context *ctx) {
  onyx_tensor c;
  onyx_op_input(ctx, 1, &c);
  if (c.data == NULL || c.size != 4) return onyx_op_fail(ctx, ONYX_TENSOR_DATA, "no constant");
  return infer_same(ctx);
}

static onyx_status compute_add_const(onyx_op_context *ctx) {
  onyx_tensor x, c, y;
  onyx_op_input(ctx, 0, &x);
  onyx_op_input(ctx, 1, &c);
  onyx_op_output(ctx, 0, &y);
  for (size_t i = 0; i < y.size / 4; i++)
    ((float *)y.data)[i] = ((const float *)x.data)[i] + *(const float *)c.data;
  return ONYX_OK;
}

/* y = com.example:AddC(x, c) for x of 2 floats and a constant c of
 * count floats (a scalar when count is 1), each c0, through infer: it
 * must give y = x + c0. The model comes from a file when via_file. */
static void check_add_const(const float *c, int64_t count, bool via_file, onyx_op_infer_fn infer) {
  onyx__pbw g = {0};
  const char *in[] = {"x", "c"}, *out[] = {"y"};
  const int64_t n = 2;
  node(&g, "com.example", "AddC", "addc", in, 2, out, 1, NULL);
  mb_initializer(&g, "c", ONYX_DTYPE_FLOAT, count > 1, &count, c, (size_t)count * 4);
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, 1, &n);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, &n);
  onyx_model *m = via_file ? load_from_file(&g) : load(&g);
  onyx_custom_op d = relu_def("com.example", "AddC", NULL);
  d.min_inputs = d.max_inputs = 2;
  d.same_input_types = 1;
  d.infer = infer;
  d.compute = compute_add_const;
  onyx_op_registry *reg = registry_with(&d, 1);
  float x[2] = {1, 2}, y[2];
  onyx_error err;
  if (run(m, reg, 1, x, 2, y, &err) != ONYX_OK) fail_msg("%s", err.message);
  assert_true(y[0] == 1 + c[0] && y[1] == 2 + c[0]);
  onyx_op_registry_free(reg);
  if (via_file)
    onyx_model_free(m);
  else
    release(m);
}

static void test_constant_input(void **state) {
  (void)state;
  const float cv = 0.5f;
  check_add_const(&cv, 1, false, infer_add_const);
}

/* As infer_add_const, for a constant c of W floats, all 0.5. */
enum { W = 16384 }; /* 64 KiB: a model file's payload read after load */
static onyx_status infer_add_large_const(onyx_op_context *ctx) {
  onyx_tensor c;
  onyx_op_input(ctx, 1, &c);
  if (c.data == NULL || c.size != W * 4) return onyx_op_fail(ctx, ONYX_TENSOR_DATA, "no constant");
  if (((const float *)c.data)[W - 1] != 0.5f)
    return onyx_op_fail(ctx, ONYX_TENSOR_DATA, "the constant's values are wrong");
  return infer_same(ctx);
}

/* In a model file, a constant of 64 KiB or more is read after load, yet
 * infer at session creation sees its values. */
static void test_large_constant_from_file(void **state) {
  (void)state;
  static float cv[W];
  for (size_t i = 0; i < W; i++) cv[i] = 0.5f;
  check_add_const(cv, W, true, infer_add_large_const);
}

static onyx_status compute_42(onyx_op_context *ctx) {
  onyx_tensor y;
  onyx_op_output(ctx, 0, &y);
  for (size_t i = 0; i < y.size / 4; i++) ((float *)y.data)[i] = 42;
  return ONYX_OK;
}

/* Registering an op onyx serves replaces onyx's kernel, when asked. */
static void test_override(void **state) {
  (void)state;
  const char *ops[] = {"Sign", "Floor"};
  onyx_model *m = chain(ops, NULL, 2, 2);
  onyx_custom_op d = relu_def("", "Sign", NULL);
  d.compute = compute_42;
  d.override_builtin = 1;
  onyx_op_registry *reg = registry_with(&d, 1);
  float x[2] = {-1, 2}, y[2];
  assert_int_equal(run(m, reg, 1, x, 2, y, NULL), ONYX_OK);
  assert_true(y[0] == 42 && y[1] == 42);
  assert_int_equal(run(m, NULL, 1, x, 2, y, NULL), ONYX_OK);
  assert_true(y[0] == -1 && y[1] == 1);
  onyx_op_registry_free(reg);
  release(m);
}

/* ---- Functions that fail or lie ---- */

/* What a lying infer does, chosen by user_data. */
enum lie { NEGATIVE, HUGE, UNSET, WRONG_TYPE, TYPE_AT_RUN, FAILS, NO_STATUS, SET_IN_COMPUTE };

static onyx_status infer_lie(onyx_op_context *ctx) {
  enum lie how = (enum lie)(intptr_t)onyx_op_user_data(ctx);
  onyx_tensor x;
  onyx_op_input(ctx, 0, &x);
  const int64_t negative[1] = {-5}, huge[2] = {INT64_C(1) << 40, INT64_C(1) << 20};
  switch (how) {
    case NEGATIVE:
      return onyx_op_set_output(ctx, 0, ONYX_DTYPE_FLOAT, 1, negative);
    case HUGE:
      return onyx_op_set_output(ctx, 0, ONYX_DTYPE_FLOAT, 2, huge);
    case UNSET:
      return ONYX_OK;
    case WRONG_TYPE:
      return onyx_op_set_output(ctx, 0, ONYX_DTYPE_INT32, x.rank, x.dims);
    case TYPE_AT_RUN: /* float while the shape is unknown, then int32 */
      return onyx_op_set_output(ctx, 0, x.dims[0] < 0 ? ONYX_DTYPE_FLOAT : ONYX_DTYPE_INT32, x.rank,
                                x.dims);
    case FAILS:
      return onyx_op_fail(ctx, ONYX_ATTRIBUTE, "needs attribute 'k'");
    case NO_STATUS:
      return (onyx_status)99;
    default:
      return infer_same(ctx);
  }
}

static onyx_status compute_lie(onyx_op_context *ctx) {
  onyx_tensor y;
  /* Outputs are infer's to set; compute may not. */
  assert_int_equal(onyx_op_set_output(ctx, 0, ONYX_DTYPE_FLOAT, 0, NULL), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_op_output(ctx, 0, &y), ONYX_OK);
  assert_int_equal(onyx_op_output(ctx, 1, &y), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_op_input(ctx, 1, &y), ONYX_INVALID_ARGUMENT);
  return onyx_op_fail(ctx, ONYX_INVALID_ARGUMENT, "bad data at %d", 3);
}

/* Creates (n < 0: symbolic) and runs x -> Lie -> y; the first failure. */
static onyx_status lie(enum lie how, int64_t n, onyx_error *err) {
  const char *ops[] = {"Lie"}, *dom[] = {"com.example"};
  onyx_model *m = chain(ops, dom, 1, n);
  onyx_custom_op d = relu_def("com.example", "Lie", (void *)(intptr_t)how);
  d.infer = infer_lie;
  d.compute = compute_lie;
  d.output_types[0] = ONYX_DTYPE_BIT(ONYX_DTYPE_FLOAT) | ONYX_DTYPE_BIT(ONYX_DTYPE_INT32);
  d.n_output_types = how == WRONG_TYPE ? 1 : 0;
  if (how == WRONG_TYPE) d.output_types[0] = ONYX_DTYPE_BIT(ONYX_DTYPE_FLOAT);
  onyx_op_registry *reg = registry_with(&d, 1);
  onyx_session_options opts;
  onyx_session_options_init(&opts);
  opts.ops = reg;
  onyx_session *s = NULL;
  onyx_status st = onyx_session_create(m, &opts, &s, err);
  if (st == ONYX_OK) {
    float x[2] = {1, 2};
    onyx_tensor in = {ONYX_DTYPE_FLOAT, 1, {2}, x, sizeof x};
    onyx_tensor out = {0}; /* onyx allocates, and frees again on failure */
    st = onyx_session_run(s, &in, 1, &out, 1, err);
    assert_int_not_equal(st, ONYX_OK);
    assert_null(out.data);
  }
  onyx_session_free(s);
  onyx_op_registry_free(reg);
  release(m);
  return st;
}

static void expect(onyx_status got, onyx_status want, const onyx_error *err, const char *needle) {
  assert_int_equal(got, want);
  if (strstr(err->message, needle) == NULL ||
      strstr(err->message, "('Lie', com.example:Lie)") == NULL)
    fail_msg("'%s' does not name the node and op and say '%s'", err->message, needle);
}

static void test_lying_functions(void **state) {
  (void)state;
  onyx_error err;
  expect(lie(NEGATIVE, 2, &err), ONYX_SHAPE, &err, "dimension 0 is negative (-5)");
  expect(lie(NEGATIVE, -1, &err), ONYX_SHAPE, &err, "negative (-5)"); /* -1 only is unknown */
  expect(lie(HUGE, 2, &err), ONYX_LIMIT, &err, "output 0");
  expect(lie(UNSET, 2, &err), ONYX_SHAPE, &err, "infer did not set output 0");
  expect(lie(WRONG_TYPE, 2, &err), ONYX_TYPE, &err, "int32 is not among the op's output types");
  expect(lie(TYPE_AT_RUN, -1, &err), ONYX_TYPE, &err, "int32 at this run but float at session");
  expect(lie(FAILS, 2, &err), ONYX_ATTRIBUTE, &err, "needs attribute 'k'");
  expect(lie(NO_STATUS, 2, &err), ONYX_INVALID_ARGUMENT, &err, "returned 99");
  /* A compute function that fails: its status and message, and the
   * outputs onyx allocated for the run are freed (checked in lie()). */
  expect(lie(SET_IN_COMPUTE, 2, &err), ONYX_INVALID_ARGUMENT, &err, "bad data at 3");
  expect(lie(SET_IN_COMPUTE, -1, &err), ONYX_INVALID_ARGUMENT, &err, "bad data at 3");
}

/* Node arity and types against the definition, at session creation. */
static void test_node_checks(void **state) {
  (void)state;
  onyx__pbw g = {0};
  const char *in[] = {"x", "x"}, *out[] = {"y"};
  const int64_t n = 2;
  node(&g, "com.example", "R", "two", in, 2, out, 1, NULL);
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, 1, &n);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, &n);
  onyx_model *m = load(&g);
  onyx_custom_op d = relu_def("com.example", "R", NULL);
  onyx_op_registry *reg = registry_with(&d, 1);
  float x[2] = {0}, y[2];
  onyx_error err;
  assert_int_equal(run(m, reg, 1, x, 2, y, &err), ONYX_ARITY);
  assert_non_null(strstr(err.message, "has 2 inputs; the registered op takes 1 to 1"));
  onyx_op_registry_free(reg);
  d.max_inputs = 2;
  d.input_types[1] = ONYX_DTYPE_BIT(ONYX_DTYPE_INT64);
  d.n_input_types = 2;
  reg = registry_with(&d, 1);
  assert_int_equal(run(m, reg, 1, x, 2, y, &err), ONYX_TYPE);
  assert_non_null(strstr(err.message, "input 1 'x' has type float, which the op does not allow"));
  onyx_op_registry_free(reg);
  release(m);
}

/* ---- Op libraries ---- */

static void test_library(void **state) {
  (void)state;
  onyx_op_registry *reg = NULL;
  onyx_error err;
  assert_int_equal(onyx_op_registry_create(&reg, NULL), ONYX_OK);
  assert_int_equal(onyx_op_registry_load_library(reg, ONYX_TESTOPS_PATH, &err), ONYX_OK);
  const char *ops[] = {"Abs", "Neg", "Relu", "Identity"};
  onyx_model *m = chain(ops, NULL, 4, 3);
  float x[3] = {-2, 0.5f, 3}, y[3];
  assert_int_equal(run(m, reg, 1, x, 3, y, &err), ONYX_OK);
  assert_true(y[0] == 0 && y[1] == 0 && y[2] == 0); /* -|x| is never positive */
  const char *lib = NULL;
  assert_int_equal(onyx_op_registry_serves(reg, m, 1, &lib), 1);
  assert_string_equal(lib, ONYX_TESTOPS_PATH);
  /* Loading it twice registers its ops twice: refused, and nothing of the
   * second load stays. */
  assert_int_equal(onyx_op_registry_load_library(reg, ONYX_TESTOPS_PATH, &err),
                   ONYX_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "onyx_register_ops failed: op 'Abs'"));
  assert_int_equal(run(m, reg, 1, x, 3, y, &err), ONYX_OK);
  assert_int_equal(onyx_op_registry_load_library(reg, "/nonexistent/libnone.so", &err), ONYX_IO);
  assert_non_null(strstr(err.message, "cannot load the op library"));
  assert_int_equal(onyx_op_registry_load_library(reg, "libm.so.6", &err), ONYX_IO);
  assert_non_null(strstr(err.message, "exports no function onyx_register_ops"));
  assert_int_equal(onyx_op_registry_load_library(reg, NULL, &err), ONYX_INVALID_ARGUMENT);
  onyx_op_registry_free(reg);
  release(m);
}

/* A FIFO or a folder given as an op library is refused at once, with
 * the path in the message: the loader would wait on a FIFO for a writer.
 * The alarm ends the test (as a failure) if the load waits. */
static void test_library_not_a_file(void **state) {
  (void)state;
  char dir[] = "/tmp/onyx_test_custom_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char fifo[64];
  snprintf(fifo, sizeof fifo, "%s/ops.so", dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  onyx_op_registry *reg = NULL;
  onyx_error err;
  assert_int_equal(onyx_op_registry_create(&reg, NULL), ONYX_OK);
  alarm(20);
  onyx_status st = onyx_op_registry_load_library(reg, fifo, &err);
  alarm(0);
  assert_int_equal(st, ONYX_IO);
  assert_non_null(strstr(err.message, fifo));
  assert_non_null(strstr(err.message, "is not a regular file"));
  alarm(20);
  st = onyx_op_registry_load_library(reg, dir, &err);
  alarm(0);
  assert_int_equal(st, ONYX_IO);
  assert_non_null(strstr(err.message, dir));
  assert_non_null(strstr(err.message, "is a folder"));
  onyx_op_registry_free(reg);
  assert_int_equal(unlink(fifo), 0);
  assert_int_equal(rmdir(dir), 0);
}

/* ---- Concurrent runs ---- */

typedef struct runner {
  onyx_session *s;
  size_t n;
  int bad;
} runner;

static void *run_many(void *arg) {
  runner *r = arg;
  float x[64], y[64];
  for (int k = 0; k < 50; k++) {
    size_t n = 1 + (r->n + (size_t)k) % 64;
    for (size_t i = 0; i < n; i++) x[i] = (float)i - 20.5f;
    onyx_tensor in = {ONYX_DTYPE_FLOAT, 1, {(int64_t)n}, x, n * 4};
    onyx_tensor out = {.data = y, .size = sizeof y};
    if (onyx_session_run(r->s, &in, 1, &out, 1, NULL) != ONYX_OK || out.dims[0] != (int64_t)n)
      r->bad++;
    for (size_t i = 0; i < n; i++) r->bad += y[i] != (floorf(x[i]) > 0 ? 1.0f : 0.0f);
  }
  return NULL;
}

/* Several threads run one session whose registered op has a symbolic
 * shape (infer at each run) and takes an intermediate buffer in place. */
static void test_concurrent_runs(void **state) {
  (void)state;
  const char *ops[] = {"Floor", "R", "R", "Sign"};
  const char *dom[] = {"", "com.example", "com.example", ""};
  onyx_model *m = chain(ops, dom, 4, -1);
  onyx_custom_op d = relu_def("com.example", "R", NULL);
  d.allows_in_place = 1;
  onyx_op_registry *reg = registry_with(&d, 1);
  onyx_session_options opts;
  onyx_session_options_init(&opts);
  opts.ops = reg;
  onyx_session *s = NULL;
  assert_int_equal(onyx_session_create(m, &opts, &s, NULL), ONYX_OK);
  pthread_t t[4];
  runner r[4];
  for (int i = 0; i < 4; i++) {
    r[i] = (runner){s, (size_t)i * 13, 0};
    assert_int_equal(pthread_create(&t[i], NULL, run_many, &r[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(t[i], NULL);
    assert_int_equal(r[i].bad, 0);
  }
  onyx_session_free(s);
  onyx_op_registry_free(reg);
  release(m);
}

/* ---- Many outputs, and what a run-time infer sees ---- */

/* Every output a copy of input 0. */
static onyx_status compute_fan(onyx_op_context *ctx) {
  onyx_tensor x, y;
  onyx_op_input(ctx, 0, &x);
  for (size_t k = 0; k < onyx_op_output_count(ctx); k++) {
    onyx_op_output(ctx, k, &y);
    if (y.size > 0) memcpy(y.data, x.data, y.size);
  }
  return ONYX_OK;
}

/* A registered op with thousands of outputs, only the first a graph
 * output: each of the others takes a whole buffer and gives it back at
 * once. The planner's free list was sized by nodes and overflowed
 * (SIGSEGV, or an ASan heap-buffer-overflow in give). */
static void test_many_outputs(void **state) {
  (void)state;
  enum { OUTS = 5000 };
  static char names[OUTS][16];
  static const char *outs[OUTS];
  for (size_t k = 0; k < OUTS; k++) {
    snprintf(names[k], sizeof names[k], k == 0 ? "y" : "o%zu", k);
    outs[k] = names[k];
  }
  onyx__pbw g = {0};
  const char *in[] = {"x"};
  const int64_t n = 3;
  node(&g, "com.example", "Fan", "fan", in, 1, outs, OUTS, NULL);
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, 1, &n);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, &n);
  onyx_model *m = load(&g);
  onyx_custom_op d = relu_def("com.example", "Fan", NULL);
  d.max_outputs = ONYX_OP_VARIADIC;
  d.infer = mb_infer_like_input0;
  d.compute = compute_fan;
  onyx_op_registry *reg = registry_with(&d, 1);
  float x[3] = {-1, 2, 3.5f}, y[3];
  onyx_error err;
  for (unsigned threads = 1; threads <= 2; threads++) {
    memset(y, 0, sizeof y);
    if (run(m, reg, threads, x, 3, y, &err) != ONYX_OK) fail_msg("%s", err.message);
    assert_memory_equal(x, y, sizeof x);
  }
  onyx_op_registry_free(reg);
  release(m);
}

/* Counts infer calls that saw data for an input that is no constant. */
static onyx_status infer_no_data(onyx_op_context *ctx) {
  onyx_tensor x;
  onyx_op_input(ctx, 0, &x);
  int *saw_data = onyx_op_user_data(ctx);
  *saw_data += x.data != NULL || x.size != 0;
  return onyx_op_set_output(ctx, 0, x.dtype, x.rank, x.dims);
}

static onyx_status compute_copy(onyx_op_context *ctx) {
  onyx_tensor x, y;
  onyx_op_input(ctx, 0, &x);
  onyx_op_output(ctx, 0, &y);
  memcpy(y.data, x.data, y.size);
  return ONYX_OK;
}

/* infer at run time (a symbolic shape) sees no data for a graph input or
 * a computed value: it used to get the computed value's buffer of the
 * last run with this run's size, a use after free or a read past a small
 * block when a later batch was larger. */
static void test_runtime_infer_sees_no_data(void **state) {
  (void)state;
  const char *ops[] = {"P", "R", "P"}, *dom[] = {"com.example", "com.example", "com.example"};
  onyx_model *m = chain(ops, dom, 3, -1);
  int saw_data = 0;
  onyx_custom_op d[2] = {relu_def("com.example", "R", NULL),
                         relu_def("com.example", "P", &saw_data)};
  d[1].infer = infer_no_data;
  d[1].compute = compute_copy;
  onyx_op_registry *reg = registry_with(d, 2);
  static float x[4096], y[4096];
  for (size_t i = 0; i < 4096; i++) x[i] = (float)i - 5.0f;
  onyx_error err;
  const size_t sizes[] = {2, 4096, 3, 1000};
  for (size_t r = 0; r < 4; r++) {
    if (run(m, reg, 1, x, sizes[r], y, &err) != ONYX_OK) fail_msg("%s", err.message);
    for (size_t i = 0; i < sizes[r]; i++) assert_true(y[i] == (x[i] < 0 ? 0 : x[i]));
  }
  assert_int_equal(saw_data, 0);
  onyx_op_registry_free(reg);
  release(m);
}

/* ---- Profiles ---- */

/* y = Ceil(com.example:Ceil(x)): the profile names each node as what ran
 * it, the registered op (by domain, not just the name) and onyx's own. */
static void test_profile_names_registered_op(void **state) {
  (void)state;
  const char *ops[] = {"Ceil", "Ceil"}, *dom[] = {"com.example", ""};
  onyx_model *m = chain(ops, dom, 2, 4);
  onyx_custom_op d = relu_def("com.example", "Ceil", NULL);
  d.compute = compute_42;
  onyx_op_registry *reg = registry_with(&d, 1);
  onyx_session *s = NULL;
  onyx_error err;
  if (create(m, reg, &s, &err) != ONYX_OK) fail_msg("%s", err.message);
  float x[4] = {-1.5f, 0.25f, 2, 3.5f}, y[4];
  onyx_tensor in = {ONYX_DTYPE_FLOAT, 1, {4}, x, sizeof x};
  onyx_tensor out = {.data = y, .size = sizeof y};
  onyx_node_time times[3];
  onyx_profile prof = {times, 3, 0, 0};
  onyx_run_options ro;
  onyx_run_options_init(&ro);
  ro.profile = &prof;
  if (onyx_session_run_with(s, &in, 1, &out, 1, &ro, &err) != ONYX_OK) fail_msg("%s", err.message);
  for (size_t i = 0; i < 4; i++) assert_true(y[i] == 42); /* the registered op ran first */
  assert_int_equal(prof.count, 2);
  const char *want_domain[] = {"com.example", ""};
  for (size_t k = 0; k < 2; k++) {
    const onyx_node_time *t = &times[k];
    assert_int_equal(t->node, k);
    assert_string_equal(t->op_type, "Ceil");
    assert_string_equal(t->domain, want_domain[k]);
    assert_int_equal(t->registered, k == 0);
    assert_int_equal(t->pass, k);
    assert_int_equal(t->pass_nodes, 1);
    assert_int_equal(t->dtype, ONYX_DTYPE_FLOAT);
    assert_int_equal(t->rank, 1);
    assert_int_equal(t->dims[0], 4);
    assert_true(t->start_ns + t->duration_ns <= prof.duration_ns);
  }
  onyx_session_free(s);
  onyx_op_registry_free(reg);
  release(m);
}

/* ---- Shapes through registered ops ---- */

/* What an infer saw of input 0 at its first call (session creation). */
typedef struct seen_shape {
  int calls, rank_known;
  uint32_t rank;
  int64_t dim0;
} seen_shape;

/* Two inputs of the same rank, as a variadic Sum's infer checks; records
 * input 0; the output is shaped as input 0. */
static onyx_status infer_same_rank(onyx_op_context *ctx) {
  onyx_tensor a, b;
  onyx_op_input(ctx, 0, &a);
  onyx_op_input(ctx, 1, &b);
  seen_shape *seen = onyx_op_user_data(ctx);
  if (seen->calls++ == 0) {
    seen->rank_known = onyx_op_input_rank_known(ctx, 0);
    seen->rank = a.rank;
    seen->dim0 = a.dims[0];
  }
  if (onyx_op_input_rank_known(ctx, 0) && onyx_op_input_rank_known(ctx, 1) && a.rank != b.rank)
    return onyx_op_fail(ctx, ONYX_SHAPE, "input 1 rank differs");
  return onyx_op_set_output(ctx, 0, a.dtype, a.rank, a.dims);
}

/* As the Python probe does, an unknown dimension becomes 1. */
static onyx_status infer_unknown_as_one(onyx_op_context *ctx) {
  onyx_tensor x;
  onyx_op_input(ctx, 0, &x);
  for (uint32_t d = 0; d < x.rank; d++)
    if (x.dims[d] < 0) x.dims[d] = 1;
  return onyx_op_set_output(ctx, 0, x.dtype, x.rank, x.dims);
}

/* x -> com.example:A (infer first; max(x, 0)) -> a; y = com.example:S(a, x)
 * (a copy of a), x of shape [n]
 * (x_rank 1) or of no declared shape (x_rank -1); runs of 3 and 5 elements
 * give y = max(x, 0). What S's infer saw at creation goes to *seen. */
static void check_shapes_after(onyx_op_infer_fn first, int x_rank, seen_shape *seen) {
  onyx__pbw g = {0};
  const char *a_in[] = {"x"}, *a_out[] = {"a"}, *s_in[] = {"a", "x"}, *s_out[] = {"y"};
  const int64_t n = -1;
  node(&g, "com.example", "A", "a", a_in, 1, a_out, 1, NULL);
  node(&g, "com.example", "S", "s", s_in, 2, s_out, 1, NULL);
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, x_rank, &n);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, x_rank, &n);
  onyx_model *m = load(&g);
  onyx_custom_op d[2] = {relu_def("com.example", "A", NULL), relu_def("com.example", "S", seen)};
  d[0].infer = first;
  d[1].min_inputs = d[1].max_inputs = 2;
  d[1].infer = infer_same_rank;
  d[1].compute = compute_copy;
  onyx_op_registry *reg = registry_with(d, 2);
  memset(seen, 0, sizeof *seen);
  float x[5] = {-1, 2, -3, 4, 0.5f}, y[5];
  onyx_error err;
  for (size_t count = 3; count <= 5; count += 2) {
    if (run(m, reg, 1, x, count, y, &err) != ONYX_OK) fail_msg("%s", err.message);
    for (size_t i = 0; i < count; i++) assert_true(y[i] == (x[i] < 0 ? 0 : x[i]));
  }
  onyx_op_registry_free(reg);
  release(m);
}

/* After a registered op whose input has a symbolic dimension, the next
 * registered op's infer at creation sees the rank and dimensions infer
 * gave (-1 where unknown), not rank 0; an input of unknown rank is told
 * from a scalar by onyx_op_input_rank_known(). Dimensions an infer gave
 * from unknown ones (the Python probe's 1s) serve the next infer at
 * creation only: runs take their shapes from the run's infer. */
static void test_shapes_through_registered_ops(void **state) {
  (void)state;
  seen_shape seen;
  check_shapes_after(infer_same, 1, &seen);
  assert_int_equal(seen.rank_known, 1);
  assert_int_equal(seen.rank, 1);
  assert_int_equal(seen.dim0, -1);
  assert_int_equal(seen.calls, 4); /* creation and run, twice */
  check_shapes_after(infer_unknown_as_one, 1, &seen);
  assert_int_equal(seen.rank, 1);
  assert_int_equal(seen.dim0, 1);
  assert_int_equal(seen.calls, 4);
  check_shapes_after(infer_same, -1, &seen);
  assert_int_equal(seen.rank_known, 0);
  assert_int_equal(seen.rank, 0);
  assert_int_equal(seen.calls, 4);
}

/* ---- Symbolic dimension names ---- */

/* How infer_keep says whose dimension output 0's is (in user_data). */
enum keep_how { KEEP_DIM, KEEP_BEFORE_SET, KEEP_BAD_DIM, KEEP_REFUSE_ODD };

/* Output 0 is input 0's shape; onyx_op_set_output_dim_from says so. */
static onyx_status infer_keep(onyx_op_context *ctx) {
  onyx_tensor x;
  onyx_op_input(ctx, 0, &x);
  enum keep_how how = (enum keep_how)(intptr_t)onyx_op_user_data(ctx);
  if (how == KEEP_BEFORE_SET) return onyx_op_set_output_dim_from(ctx, 0, 0, 0, 0);
  if (how == KEEP_REFUSE_ODD && x.rank == 1 && x.dims[0] >= 0 && x.dims[0] % 2 != 0)
    return onyx_op_fail(ctx, ONYX_SHAPE, "takes an even count, not %lld", (long long)x.dims[0]);
  onyx_status st = onyx_op_set_output(ctx, 0, x.dtype, x.rank, x.dims);
  for (uint32_t d = 0; st == ONYX_OK && d < x.rank; d++)
    st = onyx_op_set_output_dim_from(ctx, 0, d, 0, how == KEEP_BAD_DIM ? x.rank : d);
  /* At a run the dimension is the input's size again. */
  if (st == ONYX_OK && onyx_op_input_rank_known(ctx, 0) && x.rank == 1 && x.dims[0] >= 0) {
    onyx_tensor y;
    onyx_op_input(ctx, 0, &y);
    assert_int_equal(y.dims[0], x.dims[0]);
  }
  return st;
}

/* The dimension names session s knows of value name (rank 1), or NULL for
 * no shape; *dim gets its size. */
static const char *value_dim_name(const onyx_session *s, const char *name, int64_t *dim) {
  onyx_value_info info;
  for (size_t i = 0; i < onyx_session_value_count(s); i++) {
    assert_int_equal(onyx_session_value_info(s, i, &info, NULL), ONYX_OK);
    if (strcmp(info.name, name) != 0) continue;
    assert_true(info.has_shape);
    assert_int_equal(info.rank, 1);
    *dim = info.dims[0];
    return info.dim_names[0];
  }
  fail_msg("no value '%s'", name);
  return NULL;
}

/* x[n] -> com.example:K (says its output's dimension is x's) -> v0 ->
 * Ceil -> v1 -> com.example:R (says nothing) -> y: n follows K and Ceil,
 * then R's output dimension is unknown (-1) without a name, as the API
 * promises: onyx cannot know that it is n. Runs give the right sizes. */
static void test_dim_names(void **state) {
  (void)state;
  const char *ops[] = {"K", "Ceil", "R"}, *dom[] = {"com.example", "", "com.example"};
  onyx_model *m = chain(ops, dom, 3, -1);
  onyx_custom_op d[2] = {relu_def("com.example", "R", NULL),
                         relu_def("com.example", "K", (void *)(intptr_t)KEEP_DIM)};
  d[1].infer = infer_keep;
  d[1].compute = compute_copy;
  onyx_op_registry *reg = registry_with(d, 2);
  onyx_session *s = NULL;
  onyx_error err;
  if (create(m, reg, &s, &err) != ONYX_OK) fail_msg("%s", err.message);
  int64_t dim = 0;
  assert_string_equal(value_dim_name(s, "x", &dim), "n");
  assert_string_equal(value_dim_name(s, "v0", &dim), "n");
  assert_int_equal(dim, -1);
  assert_string_equal(value_dim_name(s, "v1", &dim), "n");
  assert_null(value_dim_name(s, "y", &dim));
  assert_int_equal(dim, -1);
  float x[3] = {-1.5f, 0.5f, 2.5f}, y[3];
  onyx_tensor in = {ONYX_DTYPE_FLOAT, 1, {3}, x, sizeof x}, out = {.data = y, .size = sizeof y};
  if (onyx_session_run(s, &in, 1, &out, 1, &err) != ONYX_OK) fail_msg("%s", err.message);
  assert_int_equal(out.rank, 1);
  assert_int_equal(out.dims[0], 3);
  assert_true(y[0] == 0 && y[1] == 1 && y[2] == 3);
  onyx_session_free(s);
  /* Misuse fails the creation, naming the node and the fault. */
  const enum keep_how bad[] = {KEEP_BEFORE_SET, KEEP_BAD_DIM};
  const char *says[] = {"set its shape with onyx_op_set_output first", "no dimension 1"};
  for (size_t b = 0; b < 2; b++) {
    onyx_op_registry_free(reg);
    d[1].user_data = (void *)(intptr_t)bad[b];
    reg = registry_with(d, 2);
    assert_int_equal(create(m, reg, &s, &err), ONYX_INVALID_ARGUMENT);
    if (strstr(err.message, says[b]) == NULL || strstr(err.message, "com.example:K") == NULL)
      fail_msg("'%s' does not name the node and say '%s'", err.message, says[b]);
  }
  onyx_op_registry_free(reg);
  release(m);
}

/* x of no declared shape: K's infer reads rank 0 at creation, and its
 * onyx_op_set_output_dim_from calls do nothing (there are none to make for
 * rank 0); y has no shape until a run. Its rank is known at a run. */
static void test_dim_names_unknown_rank(void **state) {
  (void)state;
  onyx__pbw g = {0};
  const char *in[] = {"x"}, *out[] = {"y"};
  node(&g, "com.example", "K", "k", in, 1, out, 1, NULL);
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, -1, NULL);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, -1, NULL);
  onyx_model *m = load(&g);
  onyx_custom_op d = relu_def("com.example", "K", (void *)(intptr_t)KEEP_DIM);
  d.infer = infer_keep;
  d.compute = compute_copy;
  onyx_op_registry *reg = registry_with(&d, 1);
  float x[2] = {-1, 2}, y[2];
  onyx_error err;
  if (run(m, reg, 1, x, 2, y, &err) != ONYX_OK) fail_msg("%s", err.message);
  assert_true(y[0] == -1 && y[1] == 2);
  onyx_op_registry_free(reg);
  release(m);
}

/* A registered op's infer that refuses a run's input shapes fails the run
 * with ONYX_INPUT_SHAPE, the caller's fault, naming the node: it was
 * ONYX_SHAPE, which onyx.h keeps for a model's faults at creation. */
static void test_run_infer_refuses_input_shape(void **state) {
  (void)state;
  const char *ops[] = {"K"}, *dom[] = {"com.example"};
  onyx_model *m = chain(ops, dom, 1, -1);
  onyx_custom_op d = relu_def("com.example", "K", (void *)(intptr_t)KEEP_REFUSE_ODD);
  d.infer = infer_keep;
  d.compute = compute_copy;
  onyx_op_registry *reg = registry_with(&d, 1);
  float x[3] = {-1, 2, 3}, y[3];
  onyx_error err;
  if (run(m, reg, 1, x, 2, y, &err) != ONYX_OK) fail_msg("%s", err.message);
  assert_int_equal(run(m, reg, 1, x, 3, y, &err), ONYX_INPUT_SHAPE);
  assert_int_equal(err.status, ONYX_INPUT_SHAPE);
  if (strstr(err.message, "node 0 ('K', com.example:K)") == NULL ||
      strstr(err.message, "takes an even count, not 3") == NULL)
    fail_msg("'%s' does not name the node and say why", err.message);
  onyx_op_registry_free(reg);
  release(m);
}

/* ---- Allocation failures ---- */

/* Every allocation of registration, session creation and a run with a
 * registered op (before and after onyx's own, with symbolic shapes) fails
 * in turn: each such call fails cleanly with ONYX_OUT_OF_MEMORY, leaking
 * nothing (the sanitizer and valgrind builds check that), until one
 * pass needs no failing allocation and gives the right values. */
static void test_allocation_failures(void **state) {
  (void)state;
  const char *ops[] = {"Floor", "R", "Sign"}, *dom[] = {"", "com.example", ""};
  onyx_model *m = chain(ops, dom, 3, -1);
  onyx_custom_op d = relu_def("com.example", "R", NULL);
  float x[3] = {-1.5f, 0.5f, 2.5f}, y[3];
  for (unsigned long n = 1;; n++) {
    assert_true(n < 10000);
    onyx_op_registry *reg = NULL;
    onyx_session *s = NULL;
    onyx_session_options opts;
    onyx_session_options_init(&opts);
    onyx_error err = {0};
    onyx__alloc_fail_at(n);
    onyx_status st = onyx_op_registry_create(&reg, &err);
    if (st == ONYX_OK) st = onyx_op_registry_add(reg, &d, &err);
    opts.ops = reg;
    if (st == ONYX_OK) st = onyx_session_create(m, &opts, &s, &err);
    onyx_tensor in = {ONYX_DTYPE_FLOAT, 1, {3}, x, sizeof x}, out = {0};
    if (st == ONYX_OK) st = onyx_session_run(s, &in, 1, &out, 1, &err);
    onyx__alloc_fail_at(0);
    onyx_session_free(s);
    onyx_op_registry_free(reg);
    if (st != ONYX_OK) {
      assert_int_equal(st, ONYX_OUT_OF_MEMORY);
      assert_int_equal(err.status, ONYX_OUT_OF_MEMORY);
      assert_null(out.data);
      continue;
    }
    memcpy(y, out.data, sizeof y);
    onyx_free(out.data);
    assert_true(y[0] == 0 && y[1] == 0 && y[2] == 1); /* Sign(Relu(Floor(x))) */
    break;
  }
  release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_registration_errors),
      cmocka_unit_test(test_mixed_graph),
      cmocka_unit_test(test_in_place),
      cmocka_unit_test(test_attribute),
      cmocka_unit_test(test_parallel_for),
      cmocka_unit_test(test_constant_input),
      cmocka_unit_test(test_large_constant_from_file),
      cmocka_unit_test(test_override),
      cmocka_unit_test(test_lying_functions),
      cmocka_unit_test(test_node_checks),
      cmocka_unit_test(test_library),
      cmocka_unit_test(test_library_not_a_file),
      cmocka_unit_test(test_allocation_failures),
      cmocka_unit_test(test_concurrent_runs),
      cmocka_unit_test(test_many_outputs),
      cmocka_unit_test(test_runtime_infer_sees_no_data),
      cmocka_unit_test(test_shapes_through_registered_ops),
      cmocka_unit_test(test_dim_names),
      cmocka_unit_test(test_dim_names_unknown_rank),
      cmocka_unit_test(test_run_infer_refuses_input_shape),
      cmocka_unit_test(test_profile_names_registered_op),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
