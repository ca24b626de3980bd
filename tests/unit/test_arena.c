/* SPDX-License-Identifier: MIT */
/*
 * Sessions in the caller's memory (onyx_session_options.arena): the size
 * onyx_session_arena_size() gives is enough and one byte less is not, a
 * session in an arena never calls the heap, and its rules (caller's output
 * buffers, one run at a time, shapes the model fixes for the size query)
 * are enforced with clear errors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "graph/session.h"
#include "model/pb.h"
#include "model_builder.h"
#include "model_file.h"
#include "onyx.h"

#define N 4096 /* elements: more than one scratch tile */

/* y = Floor(Clip(Ceil(x), lo)) with lo = Ceil(l): the computed bound is
 * a whole buffer and the chain runs through scratch tiles. With n_nodes
 * 1, just y = Ceil(x). dim -1 makes x's length symbolic. */
static onyx_model *load(int n_nodes, int64_t dim, onyx__pbw *bytes) {
  onyx__pbw g = {0};
  const int64_t dims[1] = {dim}, one[1] = {1};
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, 1, dims);
  if (n_nodes == 1) {
    mb_node(&g, "Ceil", "c", "x", NULL, NULL, "y", NULL);
  } else {
    mb_value(&g, 11, "l", ONYX_DTYPE_FLOAT, 1, one);
    mb_node(&g, "Ceil", "lo", "l", NULL, NULL, "lo", NULL);
    mb_node(&g, "Ceil", "c", "x", NULL, NULL, "c", NULL);
    mb_node(&g, "Clip", "k", "c", "lo", NULL, "k", NULL);
    mb_node(&g, "Floor", "y", "k", NULL, NULL, "y", NULL);
  }
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, dims);
  memset(bytes, 0, sizeof *bytes);
  mb_model(bytes, 8, 13, &g);
  onyx_model *m = NULL;
  onyx_error err = {0};
  if (onyx_model_load_memory(bytes->buf, bytes->len, &m, &err) != ONYX_OK)
    fail_msg("%s", err.message);
  return m;
}

static float x[N], y[N], l[1] = {-0.5f};

/* Creates a session of m in size bytes of a new arena and runs it once;
 * returns the first failing status, with *heap_calls the heap allocations
 * the two made. */
static onyx_status create_and_run(const onyx_model *m, int n_inputs, size_t size,
                                  unsigned long *heap_calls, onyx_error *err) {
  void *mem = malloc(size ? size : 1);
  assert_non_null(mem);
  onyx_session_options o;
  onyx_session_options_init(&o);
  o.arena = mem;
  o.arena_size = size;
  for (size_t i = 0; i < N; i++) x[i] = (float)i * 0.25f - 100.0f;
  onyx_tensor in[2] = {{ONYX_DTYPE_FLOAT, 1, {N}, x, sizeof x},
                       {ONYX_DTYPE_FLOAT, 1, {1}, l, sizeof l}};
  onyx_tensor out = {.data = y, .size = sizeof y};
  unsigned long before = onyx__alloc_count();
  onyx_session *s = NULL;
  onyx_status st = onyx_session_create(m, &o, &s, err);
  for (int r = 0; r < 3 && st == ONYX_OK; r++) st = onyx_session_run(s, in, n_inputs, &out, 1, err);
  onyx_session_free(s);
  *heap_calls = onyx__alloc_count() - before;
  free(mem);
  return st;
}

static void check_exact(int n_nodes) {
  onyx__pbw bytes;
  onyx_model *m = load(n_nodes, N, &bytes);
  onyx_error err = {0};
  size_t size = 0;
  assert_int_equal(onyx_session_arena_size(m, NULL, &size, &err), ONYX_OK);
  unsigned long heap;
  memset(y, 0xff, sizeof y);
  onyx_status st = create_and_run(m, n_nodes == 1 ? 1 : 2, size, &heap, &err);
  if (st != ONYX_OK) fail_msg("%zu bytes: %s", size, err.message);
  assert_int_equal(heap, 0);
  for (size_t i = 0; i < N; i++) {
    float want = (float)i * 0.25f - 100.0f, c = (float)(long)want;
    if (c < want) c += 1; /* ceil of x; Clip at 0 and Floor for the chain */
    if (n_nodes > 1 && c < 0) c = 0;
    if (y[i] != c) fail_msg("y[%zu] = %g, want %g", i, y[i], c);
  }
  st = create_and_run(m, n_nodes == 1 ? 1 : 2, size - 1, &heap, &err);
  assert_int_equal(st, ONYX_OUT_OF_MEMORY);
  assert_int_equal(heap, 0);
  assert_non_null(strstr(err.message, "arena"));
  printf("%d node(s): arena of %zu bytes\n", n_nodes, size);
  onyx_model_free(m);
  onyx__pbw_free(&bytes);
}

static void test_exact_one_node(void **state) {
  (void)state;
  check_exact(1);
}

/* The chain needs a whole buffer and scratch tiles at run time: these come
 * from the arena on each run, which gives them back before the next. */
static void test_exact_chain(void **state) {
  (void)state;
  check_exact(4);
}

static void test_rules(void **state) {
  (void)state;
  onyx__pbw bytes;
  onyx_model *m = load(1, -1, &bytes);
  onyx_error err = {0};
  size_t size = 0;
  /* A symbolic length: no size can hold for every run. */
  assert_int_equal(onyx_session_arena_size(m, NULL, &size, &err), ONYX_SHAPE);
  assert_non_null(strstr(err.message, "'x'"));
  assert_int_equal(onyx_session_arena_size(NULL, NULL, &size, &err), ONYX_INVALID_ARGUMENT);

  static _Alignas(max_align_t) unsigned char mem[1 << 16];
  onyx_session_options o;
  onyx_session_options_init(&o);
  o.arena = mem;
  o.arena_size = 64;
  onyx_session *s = NULL;
  assert_int_equal(onyx_session_create(m, &o, &s, &err), ONYX_OUT_OF_MEMORY);
  assert_non_null(strstr(err.message, "the session's arena (64 bytes) is too small"));
  assert_null(s);
  o.arena_size = sizeof mem;
  assert_int_equal(onyx_session_create(m, &o, &s, &err), ONYX_OK);
  float in_data[3] = {0.5f, -1.5f, 2.0f}, out_data[3];
  onyx_tensor in = {ONYX_DTYPE_FLOAT, 1, {3}, in_data, sizeof in_data};
  onyx_tensor out = {0};
  assert_int_equal(onyx_session_run(s, &in, 1, &out, 1, &err), ONYX_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "needs the caller's buffer"));
  assert_null(out.data);
  /* A run in progress holds the one run context: a second run is refused,
   * not raced. */
  onyx__run_ctx *held = atomic_exchange(&s->cached_ctx, NULL);
  out = (onyx_tensor){.data = out_data, .size = sizeof out_data};
  assert_int_equal(onyx_session_run(s, &in, 1, &out, 1, &err), ONYX_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "one call at a time"));
  atomic_store(&s->cached_ctx, held);
  assert_int_equal(onyx_session_run(s, &in, 1, &out, 1, &err), ONYX_OK);
  assert_true(out_data[0] == 1.0f && out_data[1] == -1.0f && out_data[2] == 2.0f);
  onyx_session_free(s);
  onyx_model_free(m);
  onyx__pbw_free(&bytes);
}

static onyx_status compute_negate(onyx_op_context *ctx) {
  onyx_tensor x, out;
  onyx_op_input(ctx, 0, &x);
  onyx_op_output(ctx, 0, &out);
  for (size_t i = 0; i < out.size / sizeof(float); i++)
    ((float *)out.data)[i] = -((const float *)x.data)[i];
  return ONYX_OK;
}

/* y = Ceil(com.example:Neg(x)): a session in an arena with a registered
 * op calls the heap neither at creation nor at a run (creation took one
 * calloc for the ops' infer scratch). */
static void test_registered_op_no_heap(void **state) {
  (void)state;
  onyx__pbw g = {0}, bytes = {0}, n = {0}, os = {0};
  const int64_t dims[1] = {N};
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, 1, dims);
  mb_str(&n, 1, "x");
  mb_str(&n, 2, "v");
  mb_str(&n, 3, "neg");
  mb_str(&n, 4, "Neg");
  mb_str(&n, 7, "com.example");
  mb_msg(&g, 1, &n);
  mb_node(&g, "Ceil", "c", "v", NULL, NULL, "y", NULL);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, dims);
  mb_str(&os, 1, "com.example");
  onyx__pbw_uint(&os, 2, 1);
  mb_msg(&bytes, 8, &os);
  mb_model(&bytes, 8, 13, &g);
  onyx_model *m = NULL;
  onyx_error err = {0};
  assert_int_equal(onyx_model_load_memory(bytes.buf, bytes.len, &m, &err), ONYX_OK);
  onyx_custom_op d;
  memset(&d, 0, sizeof d);
  d.domain = "com.example";
  d.name = "Neg";
  d.since_min = 1;
  d.min_inputs = d.max_inputs = d.min_outputs = d.max_outputs = 1;
  d.infer = mb_infer_like_input0;
  d.compute = compute_negate;
  onyx_op_registry *reg = NULL;
  assert_int_equal(onyx_op_registry_create(&reg, &err), ONYX_OK);
  assert_int_equal(onyx_op_registry_add(reg, &d, &err), ONYX_OK);
  onyx_session_options o;
  onyx_session_options_init(&o);
  o.ops = reg;
  size_t size = 0;
  if (onyx_session_arena_size(m, &o, &size, &err) != ONYX_OK) fail_msg("%s", err.message);
  void *mem = malloc(size);
  assert_non_null(mem);
  o.arena = mem;
  o.arena_size = size;
  for (size_t i = 0; i < N; i++) x[i] = (float)i * 0.25f - 100.0f;
  onyx_tensor in = {ONYX_DTYPE_FLOAT, 1, {N}, x, sizeof x};
  onyx_tensor out = {.data = y, .size = sizeof y};
  unsigned long before = onyx__alloc_count();
  onyx_session *s = NULL;
  onyx_status st = onyx_session_create(m, &o, &s, &err);
  for (int r = 0; r < 3 && st == ONYX_OK; r++) st = onyx_session_run(s, &in, 1, &out, 1, &err);
  onyx_session_free(s);
  unsigned long heap = onyx__alloc_count() - before;
  if (st != ONYX_OK) fail_msg("%s", err.message);
  assert_int_equal(heap, 0);
  for (size_t i = 0; i < N; i++) assert_true(y[i] == ceilf(-x[i]));
  free(mem);
  onyx_op_registry_free(reg);
  onyx_model_free(m);
  onyx__pbw_free(&bytes);
}

/* y = Floor(w) for an initializer w of 64 KiB, in a model loaded from a
 * file: such a payload is read after load, and an arena session's run
 * context, made at creation, must see it read. A second session of the
 * model, with its payload read, calls the heap neither at creation nor
 * at a run. */
#define M 16384 /* floats: 64 KiB, the size from which payloads wait */
static void test_deferred_payload(void **state) {
  (void)state;
  static float w[M], out_data[M];
  for (size_t i = 0; i < M; i++) w[i] = (float)i * 0.5f - 1000.25f;
  onyx__pbw g = {0}, bytes = {0};
  const int64_t dims[1] = {M};
  mb_initializer(&g, "w", ONYX_DTYPE_FLOAT, 1, dims, w, sizeof w);
  mb_node(&g, "Floor", "f", "w", NULL, NULL, "y", NULL);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, dims);
  mb_model(&bytes, 8, 13, &g);
  onyx_model *m = NULL;
  onyx_error err = {0};
  if (mb_load_via_file(&bytes, &m, &err) != ONYX_OK) fail_msg("%s", err.message);
  onyx__pbw_free(&bytes);
  /* A size of the caller's choosing: onyx_session_arena_size() runs the
   * model, which reads the payload. */
  size_t size = 1 << 20;
  void *mem = malloc(size);
  assert_non_null(mem);
  onyx_session_options o;
  onyx_session_options_init(&o);
  o.arena = mem;
  o.arena_size = size;
  onyx_tensor out = {.data = out_data, .size = sizeof out_data};
  for (int session = 0; session < 2; session++) {
    memset(out_data, 0xff, sizeof out_data);
    unsigned long before = onyx__alloc_count();
    onyx_session *s = NULL;
    onyx_status st = onyx_session_create(m, &o, &s, &err);
    for (int r = 0; r < 2 && st == ONYX_OK; r++) st = onyx_session_run(s, NULL, 0, &out, 1, &err);
    onyx_session_free(s);
    unsigned long heap = onyx__alloc_count() - before;
    if (st != ONYX_OK) fail_msg("session %d: %s", session, err.message);
    for (size_t i = 0; i < M; i++) assert_true(out_data[i] == floorf(w[i]));
    if (session == 1) assert_int_equal(heap, 0);
  }
  free(mem);
  onyx_model_free(m);
}

/* Every heap allocation of the size query failing in turn: each failure
 * is ONYX_OUT_OF_MEMORY, not a wrong size, and nothing leaks (the
 * sanitizer and valgrind builds check that). */
static void test_size_query_out_of_memory(void **state) {
  (void)state;
  onyx__pbw bytes;
  onyx_model *m = load(4, N, &bytes);
  size_t want = 0, size;
  unsigned long before = onyx__alloc_count();
  assert_int_equal(onyx_session_arena_size(m, NULL, &want, NULL), ONYX_OK);
  unsigned long calls = onyx__alloc_count() - before;
  assert_true(calls > 5);
  for (unsigned long n = 1; n <= calls; n++) {
    onyx_error err = {0};
    onyx__alloc_fail_at(n);
    onyx_status st = onyx_session_arena_size(m, NULL, &size, &err);
    onyx__alloc_fail_at(0);
    if (st != ONYX_OUT_OF_MEMORY) fail_msg("allocation %lu failing: %s", n, onyx_status_name(st));
  }
  assert_int_equal(onyx_session_arena_size(m, NULL, &size, NULL), ONYX_OK);
  assert_int_equal(size, want);
  onyx_model_free(m);
  onyx__pbw_free(&bytes);
}

/* Temporary memory: a fixed arena's comes off its top end, below the end
 * rounded down to whole units, never meets the front, counts in the peak
 * with it and goes back at once; neither end calls the heap. A heap
 * arena's lives in blocks of its own (memcheck sees them freed). */
static void test_temp_from_top(void **state) {
  (void)state;
  static _Alignas(max_align_t) unsigned char mem[256 + 3];
  size_t unit = _Alignof(max_align_t);
  onyx__arena a;
  onyx__arena_fixed(&a, mem, sizeof mem);
  assert_int_equal(a.fixed_size, 256);
  unsigned long before = onyx__alloc_count();
  unsigned char *front = onyx__arena_alloc(&a, 1);
  unsigned char *top = onyx__arena_temp(&a, unit + 1);
  assert_ptr_equal(front, mem);
  assert_ptr_equal(top, mem + 256 - 2 * unit);
  assert_int_equal(a.fixed_peak, 3 * unit);
  size_t mark = onyx__arena_temp_mark(&a);
  assert_non_null(onyx__arena_temp(&a, unit));
  assert_null(onyx__arena_alloc(&a, 256 - 3 * unit + 1)); /* would meet the top */
  onyx__arena_temp_reset(&a, mark);
  assert_non_null(onyx__arena_alloc(&a, 256 - 3 * unit));
  assert_null(onyx__arena_temp(&a, 1));
  assert_int_equal(a.fixed_peak, 256);
  onyx__arena_temp_free(&a);
  assert_int_equal(onyx__arena_temp_mark(&a), 0);
  assert_non_null(onyx__arena_alloc(&a, 2 * unit));
  assert_int_equal(onyx__alloc_count(), before);

  onyx__arena h = {0};
  assert_non_null(onyx__arena_alloc(&h, 8));
  assert_non_null(onyx__arena_temp(&h, 20000)); /* larger than a block */
  assert_non_null(onyx__arena_temp(&h, 8));
  assert_non_null(h.temp_head);
  onyx__arena_temp_free(&h);
  assert_null(h.temp_head);
  assert_non_null(h.head);
  assert_non_null(onyx__arena_temp(&h, 8)); /* onyx__arena_free gives back both */
  onyx__arena_free(&h);
  assert_null(h.head);
  assert_null(h.temp_head);
}

/* Session creation gives its build-time tables (names, order, plans)
 * back: nothing temporary is left in an arena session or a heap one. */
static void test_build_tables_given_back(void **state) {
  (void)state;
  onyx__pbw bytes;
  onyx_model *m = load(4, N, &bytes);
  onyx_error err = {0};
  static _Alignas(max_align_t) unsigned char mem[1 << 16];
  onyx_session_options o;
  onyx_session_options_init(&o);
  o.arena = mem;
  o.arena_size = sizeof mem;
  onyx_session *s = NULL;
  if (onyx_session_create(m, &o, &s, &err) != ONYX_OK) fail_msg("%s", err.message);
  assert_int_equal(onyx__arena_temp_mark(&s->arena), 0);
  assert_true(s->arena.fixed_used < s->arena.fixed_peak);
  onyx_session_free(s);
  if (onyx_session_create(m, NULL, &s, &err) != ONYX_OK) fail_msg("%s", err.message);
  assert_null(s->arena.temp_head);
  onyx_session_free(s);
  onyx_model_free(m);
  onyx__pbw_free(&bytes);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exact_one_node),
      cmocka_unit_test(test_exact_chain),
      cmocka_unit_test(test_rules),
      cmocka_unit_test(test_registered_op_no_heap),
      cmocka_unit_test(test_deferred_payload),
      cmocka_unit_test(test_size_query_out_of_memory),
      cmocka_unit_test(test_temp_from_top),
      cmocka_unit_test(test_build_tables_given_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
