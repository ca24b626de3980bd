/* SPDX-License-Identifier: MIT */
/*
 * onyx_model_node_attribute: every value type it shows (FLOAT, INT,
 * STRING, TENSOR, FLOATS, INTS), a type it does not, and bad arguments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model_builder.h"
#include "onyx.h"

/* Starts an AttributeProto: name, then the caller's value field, then type. */
static void attr_end(onyx__pbw *node, onyx__pbw *a, int type) {
  onyx__pbw_uint(a, 20, (uint64_t)type);
  mb_msg(node, 5, a);
}

static void attr_float(onyx__pbw *node, const char *name, float v) {
  onyx__pbw a = {0};
  uint32_t bits;
  memcpy(&bits, &v, sizeof bits);
  mb_str(&a, 1, name);
  onyx__pbw_tag(&a, 2, 5);
  onyx__pbw_fixed32(&a, bits);
  attr_end(node, &a, 1);
}

/* Clip-6 with its bounds as attributes; then Foo (a custom op) with one
 * attribute of each other type; then a Constant of three floats. */
static onyx_model *load_model(uint8_t **bytes) {
  onyx__pbw g = {0}, clip = {0}, foo = {0}, a = {0}, m = {0}, value = {0};
  mb_str(&clip, 1, "x");
  mb_str(&clip, 2, "y");
  mb_str(&clip, 4, "Clip");
  attr_float(&clip, "min", -1.5f);
  attr_float(&clip, "max", 2.0f);
  mb_msg(&g, 1, &clip);

  mb_str(&foo, 1, "y");
  mb_str(&foo, 2, "z");
  mb_str(&foo, 4, "Foo");
  mb_str(&foo, 7, "com.example");
  mb_str(&a, 1, "count");
  onyx__pbw_uint(&a, 3, 7);
  attr_end(&foo, &a, 2);
  mb_str(&a, 1, "mode");
  mb_str(&a, 4, "fast");
  attr_end(&foo, &a, 3);
  mb_str(&a, 1, "axes");
  for (uint64_t v = 0; v < 3; v++) onyx__pbw_uint(&a, 8, v * 2);
  attr_end(&foo, &a, 7);
  mb_str(&a, 1, "scales");
  for (int k = 0; k < 2; k++) {
    float f = 0.5f * (float)(k + 1);
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    onyx__pbw_tag(&a, 7, 5);
    onyx__pbw_fixed32(&a, bits);
  }
  attr_end(&foo, &a, 6);
  mb_str(&a, 1, "names");
  mb_str(&a, 9, "p");
  attr_end(&foo, &a, 8);
  mb_msg(&g, 1, &foo);

  const float three[3] = {1, 2, 3};
  const int64_t dims[1] = {3};
  mb_tensor(&value, "", ONYX_DTYPE_FLOAT, 1, dims, three, sizeof three);
  mb_node(&g, "Constant", "c", NULL, NULL, NULL, "k", &value);
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, 1, dims);
  mb_value(&g, 12, "z", ONYX_DTYPE_FLOAT, 1, dims);
  mb_model(&m, 8, 6, &g);
  assert_false(m.failed);
  *bytes = m.buf;
  onyx_model *model = NULL;
  onyx_error err = {0};
  if (onyx_model_load_memory(m.buf, m.len, &model, &err) != ONYX_OK) fail_msg("%s", err.message);
  return model;
}

static void get(const onyx_model *model, size_t node, size_t index, onyx_attribute_info *out) {
  onyx_error err = {0};
  if (onyx_model_node_attribute(model, node, index, out, &err) != ONYX_OK)
    fail_msg("%s", err.message);
}

static void test_values(void **state) {
  (void)state;
  uint8_t *bytes;
  onyx_model *model = load_model(&bytes);
  onyx_attribute_info a;
  assert_int_equal(onyx_model_node_attribute_count(model, 0), 2);
  get(model, 0, 0, &a);
  assert_string_equal(a.name, "min");
  assert_int_equal(a.type, 1);
  assert_true(a.f == -1.5f);
  assert_false(a.has_tensor);
  get(model, 0, 1, &a);
  assert_string_equal(a.name, "max");
  assert_true(a.f == 2.0f);

  assert_int_equal(onyx_model_node_attribute_count(model, 1), 5);
  get(model, 1, 0, &a);
  assert_int_equal(a.type, 2);
  assert_int_equal(a.i, 7);
  get(model, 1, 1, &a);
  assert_int_equal(a.type, 3);
  assert_string_equal(a.s, "fast");
  get(model, 1, 2, &a);
  assert_int_equal(a.type, 7);
  assert_int_equal(a.count, 3);
  assert_int_equal(a.ints[2], 4);
  get(model, 1, 3, &a);
  assert_int_equal(a.type, 6);
  assert_int_equal(a.count, 2);
  assert_true(a.floats[0] == 0.5f && a.floats[1] == 1.0f);
  get(model, 1, 4, &a); /* STRINGS: its type, no value */
  assert_string_equal(a.name, "names");
  assert_int_equal(a.type, 8);
  assert_int_equal(a.count, 0);
  assert_null(a.s);

  assert_int_equal(onyx_model_node_attribute_count(model, 2), 1);
  get(model, 2, 0, &a);
  assert_string_equal(a.name, "value");
  assert_int_equal(a.type, 4);
  assert_true(a.has_tensor);
  assert_int_equal(a.tensor.dtype, ONYX_DTYPE_FLOAT);
  assert_int_equal(a.tensor.rank, 1);
  assert_int_equal(a.tensor.dims[0], 3);
  assert_int_equal(a.tensor.size, 12);
  const float want[3] = {1, 2, 3};
  assert_memory_equal(a.tensor.data, want, sizeof want);
  onyx_model_free(model);
  free(bytes);
}

static void test_bad_arguments(void **state) {
  (void)state;
  uint8_t *bytes;
  onyx_model *model = load_model(&bytes);
  onyx_attribute_info a;
  onyx_error err = {0};
  assert_int_equal(onyx_model_node_attribute_count(model, 3), 0);
  assert_int_equal(onyx_model_node_attribute_count(NULL, 0), 0);
  assert_int_equal(onyx_model_node_attribute(model, 3, 0, &a, &err), ONYX_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "node 3 is out of range (the graph has 3 nodes)"));
  assert_int_equal(onyx_model_node_attribute(model, 0, 2, &a, &err), ONYX_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "index 2 is out of range (node 0 has 2 attributes)"));
  assert_int_equal(onyx_model_node_attribute(model, 0, 0, NULL, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_model_node_attribute(NULL, 0, 0, &a, NULL), ONYX_INVALID_ARGUMENT);
  onyx_model_free(model);
  free(bytes);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_values),
      cmocka_unit_test(test_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
