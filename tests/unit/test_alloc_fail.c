/* SPDX-License-Identifier: MIT */
/*
 * Allocation failure: for N = 1, 2, ... the N-th allocation from the start
 * of onyx_model_load_* fails (onyx__alloc_fail_at), through
 * onyx_session_create and onyx_session_run, until all three succeed.
 * Every failing N must return ONYX_OUT_OF_MEMORY with a message, leave the
 * failing call's *out NULL and the outputs of a failed run unallocated, and
 * leave what was built before usable: after a failed run the session must
 * still run and give the right values (a run caches its context, so a
 * failure half-way through building or using one must not spoil it).
 * Leaks are the business of ASan and valgrind, which scripts/hardening.sh
 * runs this test under.
 *
 * The models: the bundled example chain, Debian's node/test_clip (bounds as
 * run inputs), a graph with Constant nodes and initializers, a model with
 * external data small enough to be read and one large enough to be mapped,
 * each with one thread and with a pool of three.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "model_builder.h"
#include "onyx.h"

#define MAX_INPUTS  4
#define MAX_OUTPUTS 4
#define MAX_N       100000

/* A model to load: from a file, or from bytes in memory. */
typedef struct subject {
  const char *name;
  const char *path;     /* or NULL */
  const uint8_t *bytes; /* when path is NULL */
  size_t size;
  size_t n_inputs;
  onyx_tensor inputs[MAX_INPUTS];
} subject;

static onyx_tensor load_pb(const char *path) {
  onyx_tensor t;
  onyx_error err = {0};
  memset(&t, 0, sizeof t);
  if (onyx_tensor_load_file(path, &t, NULL, &err) != ONYX_OK) fail_msg("%s", err.message);
  return t;
}

static onyx_status load(const subject *sub, onyx_model **m, onyx_error *err) {
  return sub->path != NULL ? onyx_model_load_file(sub->path, m, err)
                           : onyx_model_load_memory(sub->bytes, sub->size, m, err);
}

static void free_outputs(onyx_tensor *out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    onyx_free(out[i].data);
    out[i].data = NULL;
  }
}

static void assert_same_outputs(const onyx_tensor *a, const onyx_tensor *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(a[i].dtype, b[i].dtype);
    assert_int_equal(a[i].rank, b[i].rank);
    assert_int_equal(a[i].size, b[i].size);
    if (a[i].size > 0) assert_memory_equal(a[i].data, b[i].data, a[i].size);
  }
}

static void assert_oom(onyx_status st, const onyx_error *err, const char *what, unsigned long n) {
  if (st != ONYX_OUT_OF_MEMORY)
    fail_msg("%s with allocation %lu failing: %s: %s", what, n, onyx_status_name(st), err->message);
  assert_int_equal(err->status, ONYX_OUT_OF_MEMORY);
  assert_true(err->message[0] != '\0');
}

/* The outputs of one run without any failure. */
static size_t reference(const subject *sub, unsigned threads, onyx_tensor *out) {
  onyx_model *m = NULL;
  onyx_session *s = NULL;
  onyx_error err = {0};
  onyx_session_options opts;
  onyx_session_options_init(&opts);
  opts.threads = threads;
  if (load(sub, &m, &err) != ONYX_OK) fail_msg("%s: %s", sub->name, err.message);
  if (onyx_session_create(m, &opts, &s, &err) != ONYX_OK)
    fail_msg("%s: %s", sub->name, err.message);
  size_t n = onyx_session_output_count(s);
  assert_true(n <= MAX_OUTPUTS);
  memset(out, 0, sizeof(onyx_tensor) * MAX_OUTPUTS);
  if (onyx_session_run(s, sub->inputs, sub->n_inputs, out, n, &err) != ONYX_OK)
    fail_msg("%s: %s", sub->name, err.message);
  onyx_session_free(s);
  onyx_model_free(m);
  return n;
}

/* The loop the file is about. Returns the N at which everything worked. */
static unsigned long fail_each_allocation(const subject *sub, unsigned threads) {
  onyx_tensor want[MAX_OUTPUTS];
  size_t n_out = reference(sub, threads, want);
  onyx_session_options opts;
  onyx_session_options_init(&opts);
  opts.threads = threads;
  unsigned long n;
  for (n = 1; n < MAX_N; n++) {
    onyx_model *m = (onyx_model *)&n;
    onyx_session *s = (onyx_session *)&n;
    onyx_tensor out[MAX_OUTPUTS];
    onyx_error err = {0};
    memset(out, 0, sizeof out);

    onyx__alloc_fail_at(n);
    onyx_status st = load(sub, &m, &err);
    if (st != ONYX_OK) {
      onyx__alloc_fail_at(0);
      assert_oom(st, &err, "load", n);
      assert_null(m);
      continue;
    }
    st = onyx_session_create(m, &opts, &s, &err);
    if (st != ONYX_OK) {
      onyx__alloc_fail_at(0);
      assert_oom(st, &err, "session", n);
      assert_null(s);
      onyx_model_free(m);
      continue;
    }
    st = onyx_session_run(s, sub->inputs, sub->n_inputs, out, n_out, &err);
    onyx__alloc_fail_at(0);
    if (st != ONYX_OK) {
      assert_oom(st, &err, "run", n);
      for (size_t o = 0; o < n_out; o++) assert_null(out[o].data);
      /* The session survives a failed run: twice, so that the second run
       * uses the context the first one cached. */
      for (int again = 0; again < 2; again++) {
        st = onyx_session_run(s, sub->inputs, sub->n_inputs, out, n_out, &err);
        if (st != ONYX_OK) fail_msg("%s: a run after a failed run: %s", sub->name, err.message);
        assert_same_outputs(out, want, n_out);
        free_outputs(out, n_out);
      }
      onyx_session_free(s);
      onyx_model_free(m);
      continue;
    }
    assert_same_outputs(out, want, n_out);
    free_outputs(out, n_out);
    /* A later run of the same session, failing in its turn, after the
     * cached context exists: the output allocation is then the first. */
    for (unsigned long k = 1; k < 8; k++) {
      onyx__alloc_fail_at(k);
      st = onyx_session_run(s, sub->inputs, sub->n_inputs, out, n_out, &err);
      onyx__alloc_fail_at(0);
      if (st == ONYX_OK) {
        assert_same_outputs(out, want, n_out);
        free_outputs(out, n_out);
        break;
      }
      assert_oom(st, &err, "a second run", k);
      for (size_t o = 0; o < n_out; o++) assert_null(out[o].data);
    }
    onyx_session_free(s);
    onyx_model_free(m);
    break;
  }
  onyx__alloc_fail_at(0);
  free_outputs(want, n_out);
  assert_true(n < MAX_N);
  return n;
}

static void run_subject(const subject *sub) {
  for (unsigned threads = 1; threads <= 3; threads += 2) {
    unsigned long n = fail_each_allocation(sub, threads);
    print_message("%s, %u thread(s): %lu allocations until load, session and run succeed\n",
                  sub->name, threads, n - 1);
    assert_true(n > 3);
  }
}

static void free_subject(subject *sub) {
  for (size_t i = 0; i < sub->n_inputs; i++) onyx_free(sub->inputs[i].data);
}

static void test_example_chain(void **state) {
  (void)state;
  subject sub = {"examples/chain.onnx", ONYX_SOURCE_DIR "/examples/chain.onnx", NULL, 0, 1, {{0}}};
  sub.inputs[0] = load_pb(ONYX_SOURCE_DIR "/examples/chain_input_x.pb");
  run_subject(&sub);
  free_subject(&sub);
}

static void test_debian_clip(void **state) {
  (void)state;
  subject sub = {
      "node/test_clip", ONYX_TESTDATA_DIR "/node/test_clip/model.onnx", NULL, 0, 3, {{0}}};
  for (int i = 0; i < 3; i++) {
    char path[512];
    snprintf(path, sizeof path, ONYX_TESTDATA_DIR "/node/test_clip/test_data_set_0/input_%d.pb", i);
    sub.inputs[i] = load_pb(path);
  }
  run_subject(&sub);
  free_subject(&sub);
}

/*
 * x[n] -> Ceil -> Clip(lo = Constant, hi = initializer) -> Sign -> y, with
 * the Clip output and a Floor of x as outputs too, and a second Constant
 * that is itself an output. Loaded from memory.
 */
static void build_constants_model(onyx__pbw *m) {
  onyx__pbw g = {0}, v = {0};
  int64_t n = -1, one = 1;
  float lo = -1.5f, hi = 2.0f, c[3] = {1.0f, -0.0f, 4.0f};
  mb_tensor(&v, "lo_value", ONYX_DTYPE_FLOAT, 0, NULL, &lo, sizeof lo);
  mb_node(&g, "Constant", "const_lo", NULL, NULL, NULL, "lo", &v);
  int64_t three = 3;
  v = (onyx__pbw){0};
  mb_tensor(&v, "c_value", ONYX_DTYPE_FLOAT, 1, &three, c, sizeof c);
  mb_node(&g, "Constant", "const_c", NULL, NULL, NULL, "c", &v);
  mb_node(&g, "Ceil", "ceil", "x", NULL, NULL, "a", NULL);
  mb_node(&g, "Clip", "clip", "a", "lo", "hi", "b", NULL);
  mb_node(&g, "Sign", "sign", "b", NULL, NULL, "y", NULL);
  mb_node(&g, "Floor", "floor", "x", NULL, NULL, "f", NULL);
  mb_initializer(&g, "hi", ONYX_DTYPE_FLOAT, 1, &one, &hi, sizeof hi);
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, 1, &n);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, &n);
  mb_value(&g, 12, "b", ONYX_DTYPE_FLOAT, 1, &n);
  mb_value(&g, 12, "f", ONYX_DTYPE_FLOAT, 1, &n);
  mb_value(&g, 12, "c", ONYX_DTYPE_FLOAT, 1, &three);
  mb_model(m, 8, 13, &g);
  assert_false(m->failed);
}

static void test_constants_and_initializers(void **state) {
  (void)state;
  onyx__pbw m = {0};
  build_constants_model(&m);
  float x[7] = {-3.5f, -1.25f, -0.0f, 0.5f, 1.5f, 2.5f, 100.0f};
  subject sub = {"Constant nodes and initializers", NULL, m.buf, m.len, 1, {{0}}};
  sub.inputs[0] = (onyx_tensor){ONYX_DTYPE_FLOAT, 1, {7}, x, sizeof x};
  run_subject(&sub);
  onyx__pbw_free(&m);
}

/*
 * A model with external data in a temporary folder: Clip bounds small
 * enough to be read into the model's memory, and an initializer of
 * `big` floats, input of a Ceil, which onyx maps when it is at least
 * ONYX__EXTERNAL_MAP_MIN bytes.
 */
static void external_subject(size_t big) {
  char dir[] = "/tmp/onyx_alloc_fail_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char data_path[128], model_path[128];
  snprintf(data_path, sizeof data_path, "%s/weights.bin", dir);
  snprintf(model_path, sizeof model_path, "%s/model.onnx", dir);

  /* weights.bin: 64 bytes of padding, lo, hi, then the big tensor at a
   * page-aligned offset. */
  size_t off_big = 4096, total = off_big + big * sizeof(float);
  unsigned char *blob = calloc(1, total);
  assert_non_null(blob);
  float lo = -0.5f, hi = 3.0f;
  memcpy(blob + 64, &lo, 4);
  memcpy(blob + 68, &hi, 4);
  for (size_t i = 0; i < big; i++) {
    float v = (float)i * 0.37f - 100.0f;
    memcpy(blob + off_big + 4 * i, &v, 4);
  }
  FILE *f = fopen(data_path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(blob, 1, total, f), total);
  assert_int_equal(fclose(f), 0);
  free(blob);

  onyx__pbw g = {0}, t = {0}, m = {0};
  char off[32], len[32];
  int64_t n = -1, nbig = (int64_t)big;
  mb_tensor_external(&t, "lo", ONYX_DTYPE_FLOAT, 0, NULL, "weights.bin", "64", "4");
  mb_msg(&g, 5, &t);
  t = (onyx__pbw){0};
  mb_tensor_external(&t, "hi", ONYX_DTYPE_FLOAT, 0, NULL, "weights.bin", "68", "4");
  mb_msg(&g, 5, &t);
  t = (onyx__pbw){0};
  snprintf(off, sizeof off, "%zu", off_big);
  snprintf(len, sizeof len, "%zu", big * sizeof(float));
  mb_tensor_external(&t, "w", ONYX_DTYPE_FLOAT, 1, &nbig, "weights.bin", off, len);
  mb_msg(&g, 5, &t);
  mb_node(&g, "Clip", "clip", "x", "lo", "hi", "y", NULL);
  mb_node(&g, "Ceil", "ceil_w", "w", NULL, NULL, "cw", NULL);
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, 1, &n);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, &n);
  mb_value(&g, 12, "cw", ONYX_DTYPE_FLOAT, 1, &nbig);
  mb_model(&m, 8, 13, &g);
  assert_false(m.failed);
  f = fopen(model_path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(m.buf, 1, m.len, f), m.len);
  assert_int_equal(fclose(f), 0);
  onyx__pbw_free(&m);

  float x[5] = {-2.0f, -0.25f, 0.0f, 2.5f, 9.0f};
  subject sub = {big * sizeof(float) >= 65536 ? "external data, mapped" : "external data, read",
                 model_path,
                 NULL,
                 0,
                 1,
                 {{0}}};
  sub.inputs[0] = (onyx_tensor){ONYX_DTYPE_FLOAT, 1, {5}, x, sizeof x};
  run_subject(&sub);
  assert_int_equal(unlink(data_path), 0);
  assert_int_equal(unlink(model_path), 0);
  assert_int_equal(rmdir(dir), 0);
}

static void test_external_data_read(void **state) {
  (void)state;
  external_subject(100);
}

static void test_external_data_mapped(void **state) {
  (void)state;
  external_subject(40000);
}

/* Decoding a tensor file fails cleanly at every allocation too. */
static void test_tensor_decode(void **state) {
  (void)state;
  onyx__pbw t = {0};
  int64_t dims[2] = {2, 3};
  double v[6] = {1, 2, 3, 4, 5, 6};
  mb_tensor(&t, "a_name", ONYX_DTYPE_DOUBLE, 2, dims, v, sizeof v);
  assert_false(t.failed);
  unsigned long n;
  for (n = 1; n < 1000; n++) {
    onyx_tensor out;
    char *name = (char *)&n;
    onyx_error err = {0};
    onyx__alloc_fail_at(n);
    onyx_status st = onyx_tensor_decode(t.buf, t.len, &out, &name, &err);
    onyx__alloc_fail_at(0);
    if (st == ONYX_OK) {
      assert_memory_equal(out.data, v, sizeof v);
      assert_string_equal(name, "a_name");
      onyx_free(out.data);
      onyx_free(name);
      break;
    }
    assert_oom(st, &err, "onyx_tensor_decode", n);
    assert_null(name);
    assert_null(out.data);
  }
  assert_true(n > 1 && n < 1000);
  for (n = 1; n < 1000; n++) {
    void *bytes = (void *)&n;
    size_t size = 1;
    onyx_error err = {0};
    onyx_tensor in = {ONYX_DTYPE_DOUBLE, 2, {2, 3}, v, sizeof v};
    onyx__alloc_fail_at(n);
    onyx_status st = onyx_tensor_encode(&in, "a_name", &bytes, &size, &err);
    onyx__alloc_fail_at(0);
    if (st == ONYX_OK) {
      assert_int_equal(size, t.len);
      onyx_free(bytes);
      break;
    }
    assert_oom(st, &err, "onyx_tensor_encode", n);
    assert_null(bytes);
    assert_int_equal(size, 0);
  }
  assert_true(n < 1000);
  onyx__pbw_free(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_example_chain),
      cmocka_unit_test(test_debian_clip),
      cmocka_unit_test(test_constants_and_initializers),
      cmocka_unit_test(test_external_data_read),
      cmocka_unit_test(test_external_data_mapped),
      cmocka_unit_test(test_tensor_decode),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
