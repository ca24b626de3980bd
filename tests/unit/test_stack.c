/* SPDX-License-Identifier: MIT */
/*
 * Small stacks and the nesting limit. onyx's reader recurses once per
 * nested protobuf message and refuses more than ONYX__MAX_NESTING (64)
 * levels, so the deepest model it accepts must load, get a session and run
 * on a thread with a 256 KiB stack, and anything deeper, however deep, must
 * be a clean ONYX_LIMIT there too.
 *
 * The nesting is built where a model may legally have it and onyx only
 * checks it: a value_info entry whose type is a sequence of sequences of
 * ... Counting the model as depth 1, the graph is 2, the value_info 3 and
 * its TypeProto 4; each sequence_type adds a TypeProto.Sequence and a
 * TypeProto, 2 levels. With k sequences the innermost TypeProto is at
 * 4 + 2k; a tensor_type inside it is one more.
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

#include "model/model.h"
#include "model_builder.h"
#include "onyx.h"

#define SMALL_STACK (256 * 1024)

static size_t varint_len(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

/* Writes varint v so that it ends just before buf + *pos. */
static void put_back_varint(uint8_t *buf, size_t *pos, uint64_t v) {
  size_t n = varint_len(v);
  *pos -= n;
  for (size_t i = 0; i < n; i++) {
    buf[*pos + i] = (uint8_t)((v & 0x7f) | (i + 1 < n ? 0x80 : 0));
    v >>= 7;
  }
}

/*
 * A TypeProto of `levels` nested sequence types, written from the inside
 * out at the end of a buffer so that even millions of levels cost linear
 * time. The innermost TypeProto is empty, or holds an empty tensor_type
 * when tensor_inside is set. Returns the bytes (free with free()).
 */
static uint8_t *deep_type(size_t levels, int tensor_inside, size_t *len) {
  size_t cap = 16 + levels * 24;
  uint8_t *buf = malloc(cap);
  assert_non_null(buf);
  size_t pos = cap;
  if (tensor_inside) {
    put_back_varint(buf, &pos, 0);    /* empty TypeProto.Tensor */
    put_back_varint(buf, &pos, 0x0a); /* tensor_type: field 1, wire 2 */
  }
  for (size_t i = 0; i < levels; i++) {
    put_back_varint(buf, &pos, cap - pos);
    put_back_varint(buf, &pos, 0x0a); /* Sequence.elem_type: field 1 */
    put_back_varint(buf, &pos, cap - pos);
    put_back_varint(buf, &pos, 0x22); /* TypeProto.sequence_type: field 4 */
  }
  *len = cap - pos;
  memmove(buf, buf + pos, *len);
  return buf;
}

/* x[4] -> Ceil -> y, plus a value_info "deep" with the nested type. */
static void build_model(onyx__pbw *m, size_t levels, int tensor_inside) {
  onyx__pbw g = {0}, vi = {0};
  int64_t four = 4;
  mb_node(&g, "Ceil", "ceil", "x", NULL, NULL, "y", NULL);
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, 1, &four);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, &four);
  size_t len;
  uint8_t *type = deep_type(levels, tensor_inside, &len);
  mb_str(&vi, 1, "deep");
  onyx__pbw_bytes(&vi, 2, type, len);
  free(type);
  mb_msg(&g, 13, &vi);
  mb_model(m, 8, 13, &g);
  assert_false(m->failed);
}

/* Everything the small-stack thread does, and what came of it. */
typedef struct job {
  const uint8_t *bytes;
  size_t size;
  unsigned threads;
  onyx_status status;
  const char *stage;
  onyx_error err;
  float y[4];
} job;

static void *load_and_run(void *arg) {
  job *j = arg;
  onyx_model *m = NULL;
  onyx_session *s = NULL;
  memset(&j->err, 0, sizeof j->err);
  j->stage = "load";
  j->status = onyx_model_load_memory(j->bytes, j->size, &m, &j->err);
  if (j->status == ONYX_OK) {
    onyx_session_options opts;
    onyx_session_options_init(&opts);
    opts.threads = j->threads;
    j->stage = "session";
    j->status = onyx_session_create(m, &opts, &s, &j->err);
  }
  if (j->status == ONYX_OK) {
    float x[4] = {-1.5f, -0.25f, 0.25f, 7.0f};
    onyx_tensor in = {ONYX_DTYPE_FLOAT, 1, {4}, x, sizeof x};
    onyx_tensor out = {ONYX_DTYPE_UNDEFINED, 0, {0}, j->y, sizeof j->y};
    j->stage = "run";
    j->status = onyx_session_run(s, &in, 1, &out, 1, &j->err);
  }
  onyx_session_free(s);
  onyx_model_free(m);
  return NULL;
}

/* Runs load_and_run on a new thread with a SMALL_STACK stack. */
static void on_small_stack(job *j) {
  pthread_attr_t attr;
  pthread_t t;
  assert_int_equal(pthread_attr_init(&attr), 0);
  assert_int_equal(pthread_attr_setstacksize(&attr, SMALL_STACK), 0);
  assert_int_equal(pthread_create(&t, &attr, load_and_run, j), 0);
  assert_int_equal(pthread_join(t, NULL), 0);
  pthread_attr_destroy(&attr);
}

static void check_limit(size_t levels, int tensor_inside) {
  onyx__pbw m = {0};
  build_model(&m, levels, tensor_inside);
  job j = {m.buf, m.len, 1, ONYX_OK, NULL, {ONYX_OK, {0}}, {0}};
  on_small_stack(&j);
  if (j.status != ONYX_LIMIT)
    fail_msg("%zu levels: %s at %s: %s", levels, onyx_status_name(j.status), j.stage,
             j.err.message);
  assert_string_equal(j.stage, "load");
  assert_int_equal(j.err.status, ONYX_LIMIT);
  char want[64];
  snprintf(want, sizeof want, "nested more than %d deep", ONYX__MAX_NESTING);
  assert_non_null(strstr(j.err.message, want));
  onyx__pbw_free(&m);
}

/* The deepest model onyx accepts loads, gets a session and runs. */
static void test_deepest_allowed(void **state) {
  (void)state;
  size_t levels = (ONYX__MAX_NESTING - 4) / 2;
  assert_int_equal(4 + 2 * levels, ONYX__MAX_NESTING);
  onyx__pbw m = {0};
  build_model(&m, levels, 0);
  for (unsigned threads = 1; threads <= 2; threads++) {
    job j = {m.buf, m.len, threads, ONYX_OK, NULL, {ONYX_OK, {0}}, {0}};
    on_small_stack(&j);
    if (j.status != ONYX_OK)
      fail_msg("%s at %s: %s", onyx_status_name(j.status), j.stage, j.err.message);
    const float want[4] = {-1.0f, -0.0f, 1.0f, 7.0f};
    assert_memory_equal(j.y, want, sizeof want);
  }
  onyx__pbw_free(&m);
}

/* One level more is ONYX_LIMIT, on the small stack too. */
static void test_one_too_deep(void **state) {
  (void)state;
  check_limit((ONYX__MAX_NESTING - 4) / 2, 1);
  check_limit((ONYX__MAX_NESTING - 4) / 2 + 1, 0);
}

/* Far deeper input stops at the limit: the recursion never goes past it. */
static void test_far_too_deep(void **state) {
  (void)state;
  check_limit(1000, 0);
  check_limit(200000, 1);
}

/* The other limits each have their own error and message: a rank above
 * ONYX_MAX_RANK, more than 2^40 elements, and (check_bad_models) the file
 * size. Here through the small stack too. */
static void test_rank_and_elements(void **state) {
  (void)state;
  onyx__pbw g = {0}, m = {0};
  int64_t dims[ONYX_MAX_RANK + 1];
  for (int i = 0; i <= ONYX_MAX_RANK; i++) dims[i] = 1;
  mb_node(&g, "Ceil", "ceil", "x", NULL, NULL, "y", NULL);
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, ONYX_MAX_RANK + 1, dims);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, dims);
  mb_model(&m, 8, 13, &g);
  job j = {m.buf, m.len, 1, ONYX_OK, NULL, {ONYX_OK, {0}}, {0}};
  on_small_stack(&j);
  assert_int_equal(j.status, ONYX_LIMIT);
  assert_non_null(strstr(j.err.message, "more than 16 dimensions"));
  onyx__pbw_free(&m);

  g = (onyx__pbw){0};
  m = (onyx__pbw){0};
  int64_t big[3] = {INT64_C(1) << 20, INT64_C(1) << 20, 2};
  mb_node(&g, "Ceil", "ceil", "w", NULL, NULL, "y", NULL);
  mb_initializer(&g, "w", ONYX_DTYPE_FLOAT, 3, big, NULL, 0);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 3, big);
  mb_model(&m, 8, 13, &g);
  j = (job){m.buf, m.len, 1, ONYX_OK, NULL, {ONYX_OK, {0}}, {0}};
  on_small_stack(&j);
  assert_int_equal(j.status, ONYX_LIMIT);
  assert_non_null(strstr(j.err.message, "more than 1099511627776 elements"));
  onyx__pbw_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_deepest_allowed),
      cmocka_unit_test(test_one_too_deep),
      cmocka_unit_test(test_far_too_deep),
      cmocka_unit_test(test_rank_and_elements),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
