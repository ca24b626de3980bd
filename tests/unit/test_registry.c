/* SPDX-License-Identifier: MIT */
/*
 * The op registry against itself: every registered op, at every version in
 * its table, with every one of the twelve element types. A type the
 * version allows must give a session that runs; any other must be refused
 * with ONYX_TYPE when the session is created. The walk reads the tables,
 * so a version or type added to one is tested without a new test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "model_builder.h"
#include "ops/op.h"

/* A model of one node of op at opset: y = op(x), or, for an op without
 * inputs (Constant), y = a one-element value of type t. */
static onyx__pbw one_node_model(const char *op, const onyx__op_version *ver, onyx_dtype t) {
  onyx__pbw g = {0}, m = {0};
  const int64_t dims[1] = {1};
  static const unsigned char zeros[8];
  if (ver->min_inputs == 0) {
    onyx__pbw value = {0};
    mb_tensor(&value, "v", t, 1, dims, zeros, onyx_dtype_size(t));
    mb_node(&g, op, "n", NULL, NULL, NULL, "y", &value);
  } else {
    mb_value(&g, 11, "x", t, 1, dims);
    mb_node(&g, op, "n", "x", NULL, NULL, "y", NULL);
  }
  mb_value(&g, 12, "y", t, 1, dims);
  mb_model(&m, 8, ver->since, &g);
  return m;
}

/* Creates and runs the session; returns the first status that is not OK. */
static onyx_status create_and_run(const onyx__pbw *bytes, onyx_error *err) {
  onyx_model *m = NULL;
  onyx_session *s = NULL;
  onyx_status st = onyx_model_load_memory(bytes->buf, bytes->len, &m, err);
  if (st != ONYX_OK) fail_msg("the test's model does not load: %s", err->message);
  st = onyx_session_create(m, NULL, &s, err);
  if (st == ONYX_OK) {
    static unsigned char x[8], y[8];
    onyx_value_info info;
    assert_int_equal(onyx_session_output_info(s, 0, &info, NULL), ONYX_OK);
    onyx_tensor in = {info.dtype, 1, {1}, x, sizeof x};
    onyx_tensor out = {.data = y, .size = sizeof y};
    st = onyx_session_run(s, &in, onyx_session_input_count(s), &out, 1, err);
  }
  onyx_session_free(s);
  onyx_model_free(m);
  return st;
}

static void check_version(const char *name, const onyx__op_version *ver) {
  for (int i = 0; i < ONYX__DTYPE_COUNT; i++) {
    onyx_dtype t = onyx__dtype_at(i);
    bool allowed = onyx__dmask_has(ver->types, t);
    onyx__pbw bytes = one_node_model(name, ver, t);
    onyx_error err = {0};
    onyx_status st = create_and_run(&bytes, &err);
    onyx__pbw_free(&bytes);
    if (st != (allowed ? ONYX_OK : ONYX_TYPE))
      fail_msg("%s-%d on %s: %s (%s), expected %s", name, ver->since, onyx_dtype_name(t),
               onyx_status_name(st), err.message, allowed ? "ONYX_OK" : "ONYX_TYPE");
  }
}

static void test_every_op_version_type(void **state) {
  (void)state;
  size_t checked = 0;
  for (size_t i = 0; i < onyx__op_count(); i++) {
    const char *name = NULL;
    const onyx__op *op = onyx__op_at(i, &name);
    assert_ptr_equal(onyx__op_find(name), op);
    for (size_t v = 0; v < op->n_versions; v++) {
      const onyx__op_version *ver = &op->versions[v];
      /* The tables' own invariants, which the session relies on. */
      assert_true(ver->max_inputs <= ONYX__MAX_OP_INPUTS);
      assert_true(ver->min_inputs <= ver->max_inputs);
      assert_true(ver->since >= 1 && ver->since <= ONYX__MAX_OPSET);
      if (v > 0) assert_true(ver->since > op->versions[v - 1].since);
      assert_ptr_equal(onyx__op_version_at(op, ver->since), ver);
      check_version(name, ver);
      checked++;
    }
  }
  assert_null(onyx__op_at(onyx__op_count(), NULL));
  printf("%zu ops, %zu versions, %d types each\n", onyx__op_count(), checked, ONYX__DTYPE_COUNT);
}

/* The message that lists the supported ops is made from the same list. */
static void test_unsupported_op_message(void **state) {
  (void)state;
  const onyx__op_version ver = {.since = 13, .min_inputs = 1, .max_inputs = 1, .n_outputs = 1};
  onyx__pbw bytes = one_node_model("Abs", &ver, ONYX_DTYPE_FLOAT);
  onyx_error err = {0};
  assert_int_equal(create_and_run(&bytes, &err), ONYX_UNSUPPORTED_OP);
  onyx__pbw_free(&bytes);
  char want[256] = "(onyx supports ";
  for (size_t i = 0; i < onyx__op_count(); i++) {
    const char *name = NULL;
    onyx__op_at(i, &name);
    strcat(want, i ? ", " : "");
    strcat(want, name);
  }
  strcat(want, ")");
  assert_non_null(strstr(err.message, want));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_op_version_type),
      cmocka_unit_test(test_unsupported_op_message),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
