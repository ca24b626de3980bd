/* SPDX-License-Identifier: MIT */
/*
 * TensorProto decoding and encoding: every element type from raw_data and
 * from its typed field (packed, unpacked and mixed), shapes and their
 * limits, every way the data can disagree with the type or shape, the
 * public encode/decode API, and external data with the unsafe locations a
 * hostile model could name. Tensors are built here with the library's own
 * wire writer, field by field, so that each test says exactly which bytes
 * it feeds the decoder.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/dtype.h"
#include "model/model.h"
#include "model/payloads.h"
#include "model/pb.h"
#include "host_bytes.h"

#ifndef ONYX_TESTDATA_DIR
#define ONYX_TESTDATA_DIR "/usr/share/libonnx-testdata/data"
#endif

/* ---- Building TensorProtos --------------------------------------------- */

static void put_dims(onyx__pbw *w, const int64_t *dims, size_t rank, bool packed) {
  if (packed) {
    onyx__pbw in = {0};
    for (size_t i = 0; i < rank; i++) onyx__pbw_varint(&in, (uint64_t)dims[i]);
    onyx__pbw_bytes(w, 1, in.buf, in.len);
    onyx__pbw_free(&in);
  } else {
    for (size_t i = 0; i < rank; i++) onyx__pbw_uint(w, 1, (uint64_t)dims[i]);
  }
}

static void put_value(onyx__pbw *w, uint32_t wire, uint64_t v) {
  if (wire == ONYX__WIRE_FIXED32) {
    onyx__pbw_fixed32(w, (uint32_t)v);
  } else if (wire == ONYX__WIRE_FIXED64) {
    onyx__pbw_fixed64(w, v);
  } else {
    onyx__pbw_varint(w, v);
  }
}

/* Values of a repeated scalar field, as one packed run or one field each. */
static void put_values(onyx__pbw *w, uint32_t field, uint32_t wire, const uint64_t *v, size_t n,
                       bool packed) {
  if (packed) {
    onyx__pbw in = {0};
    for (size_t i = 0; i < n; i++) put_value(&in, wire, v[i]);
    onyx__pbw_bytes(w, field, in.buf, in.len);
    onyx__pbw_free(&in);
  } else {
    for (size_t i = 0; i < n; i++) {
      onyx__pbw_tag(w, field, wire);
      put_value(w, wire, v[i]);
    }
  }
}

static void put_type(onyx__pbw *w, int64_t type) { onyx__pbw_uint(w, 2, (uint64_t)type); }

/* raw_data holding n host-order elements of `size` bytes at p, written
 * little-endian as ONNX stores them. */
static void put_raw(onyx__pbw *w, const void *p, size_t n, size_t size) {
  uint8_t le[64];
  assert_true(n * size <= sizeof le);
  host_to_le_elems(p, n, size, le);
  onyx__pbw_bytes(w, 9, le, n * size);
}

/* A decoded tensor and everything to free after. */
typedef struct decoded {
  uint8_t *buf;
  onyx__arena arena;
  onyx__tensor t;
  onyx_error err;
} decoded;

/* Decodes the writer's bytes from a heap buffer of exactly their size. */
static onyx_status decode(const onyx__pbw *w, decoded *d) {
  assert_false(w->failed);
  memset(d, 0, sizeof *d);
  d->buf = malloc(w->len ? w->len : 1);
  assert_non_null(d->buf);
  if (w->len) memcpy(d->buf, w->buf, w->len);
  return onyx__tensor_decode(d->buf, w->len, &d->arena, NULL, 1, &d->t, &d->err);
}

static void release(decoded *d) {
  onyx__arena_free(&d->arena);
  free(d->buf);
}

/* Decodes and expects a failure with status st whose message contains
 * text (when not NULL). */
static void expect_fail(onyx__pbw *w, onyx_status st, const char *text) {
  decoded d;
  onyx_status got = decode(w, &d);
  if (got != st || (text != NULL && strstr(d.err.message, text) == NULL)) {
    fail_msg("expected %s containing '%s', got %s: %s", onyx_status_name(st), text ? text : "",
             onyx_status_name(got), d.err.message);
  }
  assert_int_equal(d.err.status, st);
  release(&d);
  onyx__pbw_free(w);
}

/* ---- Per-type cases -------------------------------------------------------- */

typedef struct type_case {
  onyx_dtype dtype;
  uint32_t field; /* the typed field that holds this type */
  uint32_t wire;
  uint64_t values[4]; /* as on the wire */
} type_case;

#define I(v) ((uint64_t)(int64_t)(v))

static const type_case cases[] = {
    {ONYX_DTYPE_FLOAT, 4, ONYX__WIRE_FIXED32, {0x3fc00000u, 0xc0000000u, 0x7fc00001u, 0x80000000u}},
    {ONYX_DTYPE_UINT8, 5, ONYX__WIRE_VARINT, {0, 255, 7, 128}},
    {ONYX_DTYPE_INT8, 5, ONYX__WIRE_VARINT, {I(-128), 127, 0, I(-1)}},
    {ONYX_DTYPE_UINT16, 5, ONYX__WIRE_VARINT, {0, 65535, 1, 40000}},
    {ONYX_DTYPE_INT16, 5, ONYX__WIRE_VARINT, {I(-32768), 32767, I(-1), 5}},
    {ONYX_DTYPE_INT32, 5, ONYX__WIRE_VARINT, {I(INT32_MIN), INT32_MAX, I(-1), 0}},
    {ONYX_DTYPE_INT64, 7, ONYX__WIRE_VARINT, {I(INT64_MIN), INT64_MAX, I(-1), 0}},
    {ONYX_DTYPE_FLOAT16, 5, ONYX__WIRE_VARINT, {0x3c00, 0xffff, 0x7e01, 0}},
    {ONYX_DTYPE_DOUBLE,
     10,
     ONYX__WIRE_FIXED64,
     {UINT64_C(0x3ff8000000000000), UINT64_C(0x8000000000000000), UINT64_C(0x7ff8000000000001), 0}},
    {ONYX_DTYPE_UINT32, 11, ONYX__WIRE_VARINT, {0, UINT32_MAX, 1, 2}},
    {ONYX_DTYPE_UINT64, 11, ONYX__WIRE_VARINT, {UINT64_MAX, 0, 1, UINT64_C(1) << 63}},
    {ONYX_DTYPE_BFLOAT16, 5, ONYX__WIRE_VARINT, {0x3f80, 0xffff, 0x7fc1, 0}},
};
#define N_CASES (sizeof cases / sizeof cases[0])

/* The host-order elements the wire values stand for: the low `size` bytes
 * of each, which for every type here is the two's complement or bit
 * pattern. */
static void expected_bytes(const type_case *c, uint8_t *out) {
  size_t size = onyx_dtype_size(c->dtype);
  for (int i = 0; i < 4; i++) store_host(c->values[i], size, out + (size_t)i * size);
}

static void test_every_type_covered(void **state) {
  (void)state;
  assert_int_equal(N_CASES, ONYX__DTYPE_COUNT);
  for (int i = 0; i < ONYX__DTYPE_COUNT; i++) {
    bool found = false;
    for (size_t k = 0; k < N_CASES; k++) found |= cases[k].dtype == onyx__dtype_at(i);
    assert_true(found);
  }
}

static void test_raw_every_type(void **state) {
  (void)state;
  static const int64_t dims[] = {3, 2};
  for (size_t k = 0; k < N_CASES; k++) {
    size_t size = onyx_dtype_size(cases[k].dtype);
    uint8_t raw[6 * 8];
    for (size_t i = 0; i < sizeof raw; i++) raw[i] = (uint8_t)(i * 37 + 1);
    for (int packed = 0; packed < 2; packed++) {
      onyx__pbw w = {0};
      put_dims(&w, dims, 2, packed);
      put_type(&w, cases[k].dtype);
      onyx__pbw_bytes(&w, 8, "t", 1);
      onyx__pbw_bytes(&w, 9, raw, 6 * size);
      decoded d;
      assert_int_equal(decode(&w, &d), ONYX_OK);
      assert_int_equal(d.t.dtype, cases[k].dtype);
      assert_int_equal(d.t.rank, 2);
      assert_int_equal(d.t.dims[0], 3);
      assert_int_equal(d.t.dims[1], 2);
      assert_int_equal(d.t.count, 6);
      assert_int_equal(d.t.nbytes, 6 * size);
      assert_string_equal(d.t.name, "t");
      uint8_t want[6 * 8];
      le_to_host_elems(raw, 6, size, want);
      assert_memory_equal(d.t.data, want, 6 * size);
      assert_int_equal((uintptr_t)d.t.data % size, 0);
      release(&d);
      onyx__pbw_free(&w);
    }
  }
}

static void test_typed_every_type(void **state) {
  (void)state;
  static const int64_t dims[] = {2, 2};
  for (size_t k = 0; k < N_CASES; k++) {
    const type_case *c = &cases[k];
    uint8_t want[4 * 8];
    expected_bytes(c, want);
    size_t size = onyx_dtype_size(c->dtype);
    /* 0: one packed run; 1: one field per value; 2: mixed, with the
     * dims between the data fields, as protobuf allows. */
    for (int form = 0; form < 3; form++) {
      onyx__pbw w = {0};
      put_type(&w, c->dtype);
      if (form == 2) {
        put_values(&w, c->field, c->wire, c->values, 1, false);
        put_dims(&w, dims, 2, true);
        put_values(&w, c->field, c->wire, c->values + 1, 2, true);
        put_values(&w, c->field, c->wire, c->values + 3, 1, false);
      } else {
        put_dims(&w, dims, 2, form == 1);
        put_values(&w, c->field, c->wire, c->values, 4, form == 0);
      }
      decoded d;
      onyx_status st = decode(&w, &d);
      if (st != ONYX_OK) fail_msg("%s form %d: %s", onyx_dtype_name(c->dtype), form, d.err.message);
      assert_int_equal(d.t.count, 4);
      assert_int_equal(d.t.nbytes, 4 * size);
      assert_memory_equal(d.t.data, want, 4 * size);
      assert_int_equal((uintptr_t)d.t.data % size, 0);
      release(&d);
      onyx__pbw_free(&w);
    }
  }
}

/*
 * The same values as raw_data (little-endian bytes) and in the type's
 * typed field decode to the same host-order elements, bit for bit, on
 * either byte order.
 */
static void test_raw_equals_typed(void **state) {
  (void)state;
  static const int64_t four[] = {4};
  for (size_t k = 0; k < N_CASES; k++) {
    const type_case *c = &cases[k];
    size_t size = onyx_dtype_size(c->dtype);
    uint8_t want[4 * 8], le[4 * 8];
    expected_bytes(c, want);
    values_to_le(c->values, 4, size, le);
    onyx__pbw raw = {0}, typed = {0};
    put_dims(&raw, four, 1, false);
    put_type(&raw, c->dtype);
    onyx__pbw_bytes(&raw, 9, le, 4 * size);
    put_dims(&typed, four, 1, false);
    put_type(&typed, c->dtype);
    put_values(&typed, c->field, c->wire, c->values, 4, true);
    decoded a, b;
    assert_int_equal(decode(&raw, &a), ONYX_OK);
    assert_int_equal(decode(&typed, &b), ONYX_OK);
    if (memcmp(a.t.data, want, 4 * size) != 0 || memcmp(b.t.data, want, 4 * size) != 0) {
      fail_msg("%s: raw_data and %s disagree with the host values", onyx_dtype_name(c->dtype),
               c->field == 4 ? "float_data" : "its typed field");
    }
    release(&a);
    release(&b);
    onyx__pbw_free(&raw);
    onyx__pbw_free(&typed);
  }
}

static void test_rank0(void **state) {
  (void)state;
  float one = 1.0f;
  onyx__pbw w = {0};
  put_type(&w, ONYX_DTYPE_FLOAT);
  put_raw(&w, &one, 1, 4);
  decoded d;
  assert_int_equal(decode(&w, &d), ONYX_OK);
  assert_int_equal(d.t.rank, 0);
  assert_int_equal(d.t.count, 1);
  assert_int_equal(d.t.nbytes, 4);
  assert_memory_equal(d.t.data, &one, 4);
  assert_string_equal(d.t.name, "");
  release(&d);
  onyx__pbw_free(&w);

  static const uint64_t v[] = {UINT64_C(0xfffffffffffffffb)}; /* -5 */
  put_type(&w, ONYX_DTYPE_INT64);
  put_values(&w, 7, ONYX__WIRE_VARINT, v, 1, false);
  assert_int_equal(decode(&w, &d), ONYX_OK);
  int64_t x;
  memcpy(&x, d.t.data, 8);
  assert_int_equal(x, -5);
  release(&d);
  onyx__pbw_free(&w);
}

static void test_zero_size(void **state) {
  (void)state;
  static const int64_t dims[] = {0, 3};
  /* No data at all, an empty raw_data, and an empty packed run: all fine. */
  for (int form = 0; form < 3; form++) {
    onyx__pbw w = {0};
    put_dims(&w, dims, 2, false);
    put_type(&w, ONYX_DTYPE_FLOAT);
    if (form == 1) onyx__pbw_bytes(&w, 9, "", 0);
    if (form == 2) onyx__pbw_bytes(&w, 4, "", 0);
    decoded d;
    assert_int_equal(decode(&w, &d), ONYX_OK);
    assert_int_equal(d.t.count, 0);
    assert_int_equal(d.t.nbytes, 0);
    assert_null(d.t.data);
    release(&d);
    onyx__pbw_free(&w);
  }
  /* Data for a tensor that has no elements. */
  onyx__pbw w = {0};
  put_dims(&w, dims, 2, false);
  put_type(&w, ONYX_DTYPE_FLOAT);
  onyx__pbw_bytes(&w, 9, "abcd", 4);
  expect_fail(&w, ONYX_TENSOR_DATA, "raw_data has 4 bytes; shape [0, 3] of float needs 0");
}

static void test_length_mismatch(void **state) {
  (void)state;
  static const int64_t three[] = {3};
  onyx__pbw w = {0};
  put_dims(&w, three, 1, false);
  put_type(&w, ONYX_DTYPE_FLOAT);
  onyx__pbw_bytes(&w, 9, "0123456789", 10);
  expect_fail(&w, ONYX_TENSOR_DATA, "raw_data has 10 bytes; shape [3] of float needs 12");

  put_dims(&w, three, 1, false);
  put_type(&w, ONYX_DTYPE_FLOAT);
  onyx__pbw_bytes(&w, 9, "0123456789abcdef", 16);
  expect_fail(&w, ONYX_TENSOR_DATA, "raw_data has 16 bytes");

  static const uint64_t two[] = {1, 2};
  put_dims(&w, three, 1, false);
  put_type(&w, ONYX_DTYPE_FLOAT);
  put_values(&w, 4, ONYX__WIRE_FIXED32, two, 2, true);
  expect_fail(&w, ONYX_TENSOR_DATA, "float_data has 2 values; shape [3] of float needs 3");

  static const uint64_t four[] = {1, 2, 3, 4};
  put_dims(&w, three, 1, false);
  put_type(&w, ONYX_DTYPE_INT64);
  put_values(&w, 7, ONYX__WIRE_VARINT, four, 4, false);
  expect_fail(&w, ONYX_TENSOR_DATA, "int64_data has 4 values");

  /* Elements but no data. */
  put_dims(&w, three, 1, false);
  put_type(&w, ONYX_DTYPE_FLOAT);
  expect_fail(&w, ONYX_TENSOR_DATA, "no data for its 3 elements");
  put_type(&w, ONYX_DTYPE_INT8); /* a scalar needs one element too */
  expect_fail(&w, ONYX_TENSOR_DATA, "no data");
}

static void test_wrong_field(void **state) {
  (void)state;
  static const struct {
    onyx_dtype dtype;
    uint32_t field, wire;
    const char *text;
  } bad[] = {
      {ONYX_DTYPE_INT32, 4, ONYX__WIRE_FIXED32, "float_data cannot hold int32"},
      {ONYX_DTYPE_INT32, 7, ONYX__WIRE_VARINT, "int64_data cannot hold int32"},
      {ONYX_DTYPE_INT64, 5, ONYX__WIRE_VARINT, "int32_data cannot hold int64"},
      {ONYX_DTYPE_INT64, 11, ONYX__WIRE_VARINT, "uint64_data cannot hold int64"},
      {ONYX_DTYPE_FLOAT, 5, ONYX__WIRE_VARINT, "int32_data cannot hold float"},
      {ONYX_DTYPE_FLOAT, 10, ONYX__WIRE_FIXED64, "double_data cannot hold float"},
      {ONYX_DTYPE_DOUBLE, 4, ONYX__WIRE_FIXED32, "float_data cannot hold double"},
      {ONYX_DTYPE_UINT32, 5, ONYX__WIRE_VARINT, "int32_data cannot hold uint32"},
      {ONYX_DTYPE_UINT64, 7, ONYX__WIRE_VARINT, "int64_data cannot hold uint64"},
      {ONYX_DTYPE_FLOAT16, 4, ONYX__WIRE_FIXED32, "float_data cannot hold float16"},
      {ONYX_DTYPE_BFLOAT16, 11, ONYX__WIRE_VARINT, "uint64_data cannot hold bfloat16"},
      {ONYX_DTYPE_UINT8, 7, ONYX__WIRE_VARINT, "int64_data cannot hold uint8"},
  };
  static const uint64_t one[] = {1};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    onyx__pbw w = {0};
    put_type(&w, bad[i].dtype);
    put_values(&w, bad[i].field, bad[i].wire, one, 1, i % 2 == 0);
    expect_fail(&w, ONYX_TENSOR_DATA, bad[i].text);
  }
  onyx__pbw w = {0};
  put_type(&w, ONYX_DTYPE_FLOAT);
  onyx__pbw_bytes(&w, 6, "abcd", 4);
  expect_fail(&w, ONYX_TENSOR_DATA, "string_data cannot hold float");
}

static void test_two_sources(void **state) {
  (void)state;
  static const uint64_t one[] = {0x3f800000u};
  float f = 1.0f;
  onyx__pbw w = {0};
  put_type(&w, ONYX_DTYPE_FLOAT);
  put_raw(&w, &f, 1, 4);
  put_values(&w, 4, ONYX__WIRE_FIXED32, one, 1, false);
  expect_fail(&w, ONYX_TENSOR_DATA, "both raw_data and float_data");

  /* Two typed fields, even if one would fit. */
  put_type(&w, ONYX_DTYPE_INT64);
  put_values(&w, 7, ONYX__WIRE_VARINT, one, 1, false);
  put_values(&w, 5, ONYX__WIRE_VARINT, one, 1, false);
  expect_fail(&w, ONYX_TENSOR_DATA, "both int32_data and int64_data");

  /* raw_data and external data. */
  put_type(&w, ONYX_DTYPE_FLOAT);
  put_raw(&w, &f, 1, 4);
  onyx__pbw_uint(&w, 14, 1);
  expect_fail(&w, ONYX_TENSOR_DATA, "both raw_data and external data");
}

static void test_bad_shapes(void **state) {
  (void)state;
  onyx__pbw w = {0};
  static const int64_t negative[] = {2, -3};
  put_dims(&w, negative, 2, false);
  put_type(&w, ONYX_DTYPE_FLOAT);
  expect_fail(&w, ONYX_SHAPE, "dimension 1 is -3");

  static const int64_t big[] = {INT64_C(1) << 40, 2};
  put_dims(&w, big, 2, true);
  put_type(&w, ONYX_DTYPE_FLOAT);
  expect_fail(&w, ONYX_LIMIT, "more than");

  static const int64_t wrap[] = {INT64_C(1) << 62, INT64_C(1) << 62, 4};
  put_dims(&w, wrap, 3, false);
  put_type(&w, ONYX_DTYPE_UINT8);
  expect_fail(&w, ONYX_LIMIT, NULL);

  /* A zero elsewhere does not excuse a dimension no stride can hold. */
  static const int64_t hidden[] = {0, INT64_MAX};
  put_dims(&w, hidden, 2, false);
  put_type(&w, ONYX_DTYPE_UINT8);
  expect_fail(&w, ONYX_LIMIT, NULL);

  int64_t ones[ONYX_MAX_RANK + 1];
  for (int i = 0; i <= ONYX_MAX_RANK; i++) ones[i] = 1;
  put_dims(&w, ones, ONYX_MAX_RANK + 1, false);
  put_type(&w, ONYX_DTYPE_FLOAT);
  expect_fail(&w, ONYX_LIMIT, "rank 17 exceeds the limit of 16");

  /* Rank 16 itself is fine. */
  float f = 2.0f;
  put_dims(&w, ones, ONYX_MAX_RANK, true);
  put_type(&w, ONYX_DTYPE_FLOAT);
  put_raw(&w, &f, 1, 4);
  decoded d;
  assert_int_equal(decode(&w, &d), ONYX_OK);
  assert_int_equal(d.t.rank, 16);
  release(&d);
  onyx__pbw_free(&w);
}

static void test_shape_count(void **state) {
  (void)state;
  size_t n = 0;
  onyx_error err = {0};
  int64_t dims[3] = {2, 3, 4};
  assert_int_equal(onyx__shape_count(dims, 3, &n, &err), ONYX_OK);
  assert_int_equal(n, 24);
  assert_int_equal(onyx__shape_count(dims, 0, &n, &err), ONYX_OK);
  assert_int_equal(n, 1);
  dims[1] = 0;
  assert_int_equal(onyx__shape_count(dims, 3, &n, &err), ONYX_OK);
  assert_int_equal(n, 0);
  dims[1] = -1;
  assert_int_equal(onyx__shape_count(dims, 3, &n, &err), ONYX_SHAPE);
  dims[0] = INT64_C(1) << 20;
  dims[1] = INT64_C(1) << 20;
  dims[2] = 1;
#if SIZE_MAX > UINT32_MAX
  assert_int_equal(onyx__shape_count(dims, 3, &n, &err), ONYX_OK);
  assert_true(n == (size_t)1 << 40);
#else /* 2^40 elements cannot be addressed: refused, not wrapped */
  assert_int_equal(onyx__shape_count(dims, 3, &n, &err), ONYX_LIMIT);
  assert_non_null(strstr(err.message, "do not fit in memory on this machine"));
#endif
  dims[2] = 2;
  assert_int_equal(onyx__shape_count(dims, 3, &n, &err), ONYX_LIMIT);
  assert_int_equal(onyx__shape_count(dims, ONYX_MAX_RANK + 1, &n, &err), ONYX_LIMIT);
}

static void test_out_of_range_values(void **state) {
  (void)state;
  static const struct {
    onyx_dtype dtype;
    uint32_t field;
    int64_t value;
  } bad[] = {
      {ONYX_DTYPE_INT8, 5, 128},
      {ONYX_DTYPE_INT8, 5, -129},
      {ONYX_DTYPE_UINT8, 5, -1},
      {ONYX_DTYPE_UINT8, 5, 256},
      {ONYX_DTYPE_INT16, 5, 32768},
      {ONYX_DTYPE_INT16, 5, -32769},
      {ONYX_DTYPE_UINT16, 5, 65536},
      {ONYX_DTYPE_UINT16, 5, -1},
      {ONYX_DTYPE_FLOAT16, 5, 65536},
      {ONYX_DTYPE_FLOAT16, 5, -1},
      {ONYX_DTYPE_BFLOAT16, 5, 70000},
      {ONYX_DTYPE_INT32, 5, INT64_C(2147483648)},
      {ONYX_DTYPE_INT32, 5, INT64_C(-2147483649)},
      {ONYX_DTYPE_UINT32, 11, INT64_C(4294967296)},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    uint64_t v[2] = {0, (uint64_t)bad[i].value};
    static const int64_t two[] = {2};
    onyx__pbw w = {0};
    put_dims(&w, two, 1, false);
    put_type(&w, bad[i].dtype);
    put_values(&w, bad[i].field, ONYX__WIRE_VARINT, v, 2, i % 2 == 1);
    char text[64];
    snprintf(text, sizeof text, "(index 1) is out of range for %s", onyx_dtype_name(bad[i].dtype));
    expect_fail(&w, ONYX_TENSOR_DATA, text);
  }
}

static void test_unsupported_types(void **state) {
  (void)state;
  static const struct {
    int64_t type;
    const char *text;
  } bad[] = {
      {8, "data_type 8 (string)"},
      {9, "data_type 9 (bool)"},
      {14, "data_type 14 (complex64)"},
      {15, "data_type 15 (complex128)"},
      {17, "data_type 17 (float8e4m3fn)"},
      {19, "data_type 19 (float8e5m2)"},
      {99, "data_type 99 (unknown)"},
      {-1, "data_type -1"},
      {INT64_C(1) << 40, "is not supported"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    onyx__pbw w = {0};
    put_type(&w, bad[i].type);
    onyx__pbw_bytes(&w, 9, "a", 1);
    expect_fail(&w, ONYX_TYPE, bad[i].text);
  }
  onyx__pbw w = {0};
  onyx__pbw_bytes(&w, 9, "a", 1);
  expect_fail(&w, ONYX_TYPE, "no data_type");
}

static void test_other_refusals(void **state) {
  (void)state;
  float f = 0;
  onyx__pbw w = {0};
  /* Segments. */
  put_type(&w, ONYX_DTYPE_FLOAT);
  put_raw(&w, &f, 1, 4);
  onyx__pbw_bytes(&w, 3, "\x08\x00\x10\x01", 4);
  expect_fail(&w, ONYX_TENSOR_DATA, "segment");
  /* An unknown data_location. */
  put_type(&w, ONYX_DTYPE_FLOAT);
  put_raw(&w, &f, 1, 4);
  onyx__pbw_uint(&w, 14, 2);
  expect_fail(&w, ONYX_TENSOR_DATA, "data_location 2");
  /* A name with a NUL byte. */
  put_type(&w, ONYX_DTYPE_FLOAT);
  put_raw(&w, &f, 1, 4);
  onyx__pbw_bytes(&w, 8, "a\0b", 3);
  expect_fail(&w, ONYX_PARSE, "NUL");
  /* A known field with the wrong wire type. */
  onyx__pbw_uint(&w, 9, 4);
  expect_fail(&w, ONYX_PARSE, "raw_data");
  /* A truncated message. */
  put_type(&w, ONYX_DTYPE_FLOAT);
  onyx__pbw_tag(&w, 9, ONYX__WIRE_LEN);
  onyx__pbw_varint(&w, 4);
  onyx__pbw_raw(&w, "ab", 2);
  expect_fail(&w, ONYX_PARSE, "past the end");
  /* Too deep: the decoder is told it is already at the cap. */
  put_type(&w, ONYX_DTYPE_FLOAT);
  put_raw(&w, &f, 1, 4);
  decoded d;
  memset(&d, 0, sizeof d);
  assert_int_equal(
      onyx__tensor_decode(w.buf, w.len, &d.arena, NULL, ONYX__MAX_NESTING + 1, &d.t, &d.err),
      ONYX_LIMIT);
  assert_non_null(strstr(d.err.message, "64"));
  onyx__arena_free(&d.arena);
  onyx__pbw_free(&w);
}

static void test_name_kept_on_failure(void **state) {
  (void)state;
  onyx__pbw w = {0};
  onyx__pbw_bytes(&w, 9, "abc", 3);
  put_type(&w, ONYX_DTYPE_FLOAT);
  onyx__pbw_bytes(&w, 8, "weights", 7);
  decoded d;
  assert_int_equal(decode(&w, &d), ONYX_TENSOR_DATA);
  assert_non_null(d.t.name);
  assert_string_equal(d.t.name, "weights");
  release(&d);
  onyx__pbw_free(&w);
}

static void test_unknown_fields_skipped(void **state) {
  (void)state;
  float f = 3.0f;
  onyx__pbw w = {0};
  onyx__pbw_uint(&w, 99, 7);
  onyx__pbw_tag(&w, 98, ONYX__WIRE_FIXED64);
  onyx__pbw_fixed64(&w, 1);
  onyx__pbw_bytes(&w, 12, "documentation", 13);
  put_type(&w, ONYX_DTYPE_FLOAT);
  onyx__pbw_bytes(&w, 97, "zz", 2);
  onyx__pbw_tag(&w, 96, ONYX__WIRE_FIXED32);
  onyx__pbw_fixed32(&w, 1);
  put_raw(&w, &f, 1, 4);
  /* external_data entries without data_location EXTERNAL are ignored, as
   * ONNX ignores them. */
  onyx__pbw_bytes(&w, 13, "\x0a\x08location\x12\x01x", 13);
  decoded d;
  assert_int_equal(decode(&w, &d), ONYX_OK);
  assert_memory_equal(d.t.data, &f, 4);
  release(&d);
  onyx__pbw_free(&w);
}

static void test_zero_copy(void **state) {
  (void)state;
  double v[3] = {1.0, -2.5, 1e300};
  uint64_t bits[3];
  uint8_t le[sizeof v];
  memcpy(bits, v, sizeof v);
  values_to_le(bits, 3, 8, le);
  static const int64_t three[] = {3};
  onyx__pbw w = {0};
  put_dims(&w, three, 1, false);
  put_type(&w, ONYX_DTYPE_DOUBLE);
  onyx__pbw_bytes(&w, 9, le, sizeof le);
  size_t payload = w.len - sizeof v; /* raw_data is the last field */
  uint8_t *big = malloc(w.len + 16);
  assert_non_null(big);
  for (size_t shift = 0; shift < 16; shift++) {
    memcpy(big + shift, w.buf, w.len);
    onyx__arena arena = {0};
    onyx__tensor t;
    onyx_error err = {0};
    assert_int_equal(onyx__tensor_decode(big + shift, w.len, &arena, NULL, 1, &t, &err), ONYX_OK);
    const uint8_t *in_place = big + shift + payload;
    /* A big-endian host converts, so it always copies. */
    if ((uintptr_t)in_place % 8 == 0 && !host_is_big_endian()) {
      assert_ptr_equal(t.data, in_place);
    } else {
      /* Copied into the arena, aligned, with the same bytes. */
      assert_true((const uint8_t *)t.data < big || (const uint8_t *)t.data >= big + w.len + 16);
      assert_int_equal((uintptr_t)t.data % 8, 0);
    }
    assert_memory_equal(t.data, v, sizeof v);
    onyx__arena_free(&arena);
  }
  free(big);
  onyx__pbw_free(&w);
}

static void test_out_of_memory(void **state) {
  (void)state;
  static const int64_t dims[] = {2, 2};
  onyx__pbw w = {0};
  put_dims(&w, dims, 2, false);
  put_type(&w, ONYX_DTYPE_INT16);
  onyx__pbw_bytes(&w, 8, "name", 4);
  put_values(&w, 5, ONYX__WIRE_VARINT, cases[4].values, 4, true);
  assert_false(w.failed);
  bool succeeded = false;
  for (unsigned long k = 1; k < 100 && !succeeded; k++) {
    onyx__arena arena = {0};
    onyx__tensor t;
    onyx_error err = {0};
    onyx__alloc_fail_at(k);
    onyx_status st = onyx__tensor_decode(w.buf, w.len, &arena, NULL, 1, &t, &err);
    onyx__alloc_fail_at(0);
    if (st == ONYX_OK) {
      succeeded = true;
    } else {
      assert_int_equal(st, ONYX_OUT_OF_MEMORY);
    }
    onyx__arena_free(&arena);

    onyx_tensor pt;
    char *name = NULL;
    onyx__alloc_fail_at(k);
    st = onyx_tensor_decode(w.buf, w.len, &pt, &name, &err);
    onyx__alloc_fail_at(0);
    if (st == ONYX_OK) {
      onyx_free(pt.data);
      onyx_free(name);
    } else {
      assert_int_equal(st, ONYX_OUT_OF_MEMORY);
      assert_null(name);
    }
  }
  assert_true(succeeded);
  onyx__pbw_free(&w);
}

/* ---- Public API ------------------------------------------------------------ */

static void test_public_round_trip(void **state) {
  (void)state;
  for (size_t k = 0; k < N_CASES; k++) {
    onyx_dtype dt = cases[k].dtype;
    size_t size = onyx_dtype_size(dt);
    static const struct {
      uint32_t rank;
      int64_t dims[3];
      size_t count;
    } shapes[] = {{0, {0}, 1}, {1, {5}, 5}, {3, {2, 1, 3}, 6}, {2, {0, 4}, 0}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      uint8_t data[6 * 8];
      for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 11 + k);
      onyx_tensor in = {0};
      in.dtype = dt;
      in.rank = shapes[s].rank;
      memcpy(in.dims, shapes[s].dims, sizeof shapes[s].dims);
      in.data = shapes[s].count ? data : NULL;
      in.size = shapes[s].count * size;
      void *bytes = NULL;
      size_t n = 0;
      onyx_error err = {0};
      assert_int_equal(onyx_tensor_encode(&in, s == 1 ? NULL : "x", &bytes, &n, &err), ONYX_OK);
      onyx_tensor out;
      char *name = NULL;
      assert_int_equal(onyx_tensor_decode(bytes, n, &out, &name, &err), ONYX_OK);
      assert_int_equal(out.dtype, dt);
      assert_int_equal(out.rank, in.rank);
      for (uint32_t i = 0; i < in.rank; i++) assert_int_equal(out.dims[i], in.dims[i]);
      assert_int_equal(out.size, shapes[s].count * size);
      if (shapes[s].count) {
        assert_memory_equal(out.data, data, out.size);
      } else {
        assert_null(out.data);
      }
      assert_string_equal(name, s == 1 ? "" : "x");
      onyx_free(out.data);
      onyx_free(name);
      onyx_free(bytes);
    }
  }
}

static void test_public_encode_errors(void **state) {
  (void)state;
  float f[2] = {1, 2};
  onyx_tensor t = {0};
  t.dtype = ONYX_DTYPE_FLOAT;
  t.rank = 1;
  t.dims[0] = 2;
  t.data = f;
  t.size = sizeof f;
  void *bytes = NULL;
  size_t n = 0;
  onyx_error err = {0};
  assert_int_equal(onyx_tensor_encode(NULL, NULL, &bytes, &n, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_tensor_encode(&t, NULL, NULL, &n, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_tensor_encode(&t, NULL, &bytes, NULL, &err), ONYX_INVALID_ARGUMENT);
  t.size = 7;
  assert_int_equal(onyx_tensor_encode(&t, NULL, &bytes, &n, &err), ONYX_INVALID_ARGUMENT);
  t.size = sizeof f;
  t.dims[0] = -2;
  assert_int_equal(onyx_tensor_encode(&t, NULL, &bytes, &n, &err), ONYX_INVALID_ARGUMENT);
  t.dims[0] = 2;
  t.rank = ONYX_MAX_RANK + 1;
  assert_int_equal(onyx_tensor_encode(&t, NULL, &bytes, &n, &err), ONYX_INVALID_ARGUMENT);
  t.rank = 1;
  t.dtype = (onyx_dtype)9;
  assert_int_equal(onyx_tensor_encode(&t, NULL, &bytes, &n, &err), ONYX_TYPE);
  t.dtype = ONYX_DTYPE_FLOAT;
  t.data = NULL;
  assert_int_equal(onyx_tensor_encode(&t, NULL, &bytes, &n, &err), ONYX_INVALID_ARGUMENT);
  assert_null(bytes);
  /* Out of memory at each allocation. */
  t.data = f;
  onyx__alloc_fail_at(1);
  assert_int_equal(onyx_tensor_encode(&t, "n", &bytes, &n, &err), ONYX_OUT_OF_MEMORY);
  onyx__alloc_fail_at(0);
  assert_null(bytes);
}

static void test_public_decode_errors(void **state) {
  (void)state;
  onyx_tensor t;
  char *name = NULL;
  onyx_error err = {0};
  assert_int_equal(onyx_tensor_decode("x", 1, NULL, NULL, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_tensor_decode(NULL, 3, &t, &name, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_tensor_decode(NULL, 0, &t, &name, &err), ONYX_TYPE);
  /* External data needs a model folder. */
  onyx__pbw w = {0};
  put_type(&w, ONYX_DTYPE_FLOAT);
  onyx__pbw_bytes(&w, 8, "ext", 3);
  onyx__pbw_bytes(&w, 13, "\x0a\x08location\x12\x01x", 13);
  onyx__pbw_uint(&w, 14, 1);
  assert_int_equal(onyx_tensor_decode(w.buf, w.len, &t, &name, &err), ONYX_EXTERNAL_DATA);
  assert_null(name);
  assert_non_null(strstr(err.message, "tensor 'ext': "));
  onyx__pbw_free(&w);
}

/* ---- Files ------------------------------------------------------------------ */

static void write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  if (n) assert_int_equal(fwrite(data, 1, n, f), n);
  assert_int_equal(fclose(f), 0);
}

/* dir/name in one of 16 rotating buffers: enough for the paths one test
 * holds at once. */
static char *join(const char *dir, const char *name) {
  static char buf[16][512];
  static int next;
  char *p = buf[next++ % 16];
  snprintf(p, 512, "%s/%s", dir, name);
  return p;
}

static void test_files(void **state) {
  (void)state;
  char dir[] = "/tmp/onyx_tensor_XXXXXX";
  assert_non_null(mkdtemp(dir));
  int16_t v[3] = {-1, 2, 300};
  onyx_tensor t = {0};
  t.dtype = ONYX_DTYPE_INT16;
  t.rank = 1;
  t.dims[0] = 3;
  t.data = v;
  t.size = sizeof v;
  onyx_error err = {0};
  const char *path = join(dir, "t.pb");
  assert_int_equal(onyx_tensor_save_file(path, &t, "v", &err), ONYX_OK);
  onyx_tensor out;
  char *name = NULL;
  assert_int_equal(onyx_tensor_load_file(path, &out, &name, &err), ONYX_OK);
  assert_int_equal(out.dtype, ONYX_DTYPE_INT16);
  assert_memory_equal(out.data, v, sizeof v);
  assert_string_equal(name, "v");
  onyx_free(out.data);
  onyx_free(name);

  /* A missing file, a folder, an empty file, a device: each names the path. */
  const char *missing = join(dir, "missing.pb");
  assert_int_equal(onyx_tensor_load_file(missing, &out, &name, &err), ONYX_IO);
  assert_non_null(strstr(err.message, missing));
  assert_int_equal(onyx_tensor_load_file(dir, &out, &name, &err), ONYX_IO);
  assert_non_null(strstr(err.message, "folder"));
  assert_non_null(strstr(err.message, dir));
  const char *empty = join(dir, "empty.pb");
  write_file(empty, "", 0);
  assert_int_equal(onyx_tensor_load_file(empty, &out, &name, &err), ONYX_PARSE);
  assert_non_null(strstr(err.message, "empty"));
  assert_int_equal(onyx_tensor_load_file("/dev/null", &out, &name, &err), ONYX_IO);
  assert_non_null(strstr(err.message, "/dev/null: "));
  /* A bad tensor file: the path, then the tensor, then the problem. */
  const char *bad = join(dir, "bad.pb");
  write_file(bad, "\x10\x01\x42\x01x\x4a\x01y", 8);
  assert_int_equal(onyx_tensor_load_file(bad, &out, &name, &err), ONYX_TENSOR_DATA);
  assert_non_null(strstr(err.message, "tensor 'x': raw_data has 1 bytes"));
  assert_non_null(strstr(err.message, bad));
  /* Saving into a folder that does not exist. */
  assert_int_equal(onyx_tensor_save_file(join(dir, "no/such.pb"), &t, NULL, &err), ONYX_IO);
  assert_int_equal(onyx_tensor_save_file(NULL, &t, NULL, &err), ONYX_INVALID_ARGUMENT);

  unlink(path);
  unlink(empty);
  unlink(bad);
  assert_int_equal(rmdir(dir), 0);
}

/* A large tensor saved and loaded again: the header written then the data
 * from the tensor's memory, the data read back with pread (it is deferred
 * at decode), at an offset in the file that is not a multiple of 4. */
static void test_large_file(void **state) {
  (void)state;
  enum { N = ONYX__DEFER_MIN / 4 * 2 + 1 };
  char dir[] = "/tmp/onyx_tensor_XXXXXX";
  assert_non_null(mkdtemp(dir));
  float *v = malloc(N * sizeof *v);
  assert_non_null(v);
  for (int i = 0; i < N; i++) v[i] = (float)i * 0.25f - 7.0f;
  onyx_tensor t = {ONYX_DTYPE_FLOAT, 2, {1, N}, v, N * sizeof *v};
  onyx_error err = {0};
  const char *path = join(dir, "big.pb");
  for (size_t len = 1; len <= 4; len++) {
    char name[8] = "abcd";
    name[len] = '\0';
    assert_int_equal(onyx_tensor_save_file(path, &t, name, &err), ONYX_OK);
    void *bytes = NULL;
    size_t size = 0;
    assert_int_equal(onyx_tensor_encode(&t, name, &bytes, &size, &err), ONYX_OK);
    /* The file holds exactly the bytes onyx_tensor_encode gives. */
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *file = malloc(size + 1);
    assert_non_null(file);
    assert_int_equal(fread(file, 1, size + 1, f), size);
    fclose(f);
    assert_memory_equal(file, bytes, size);
    free(file);
    onyx_tensor out;
    char *got = NULL;
    if (onyx_tensor_load_file(path, &out, &got, &err) != ONYX_OK) fail_msg("%s", err.message);
    assert_string_equal(got, name);
    assert_int_equal(out.rank, 2);
    assert_int_equal(out.dims[1], N);
    assert_int_equal(out.size, N * sizeof *v);
    assert_memory_equal(out.data, v, N * sizeof *v);
    onyx_free(out.data);
    onyx_free(got);
    onyx_free(bytes);
  }
  free(v);
  unlink(path);
  assert_int_equal(rmdir(dir), 0);
}

static void test_conformance_file(void **state) {
  (void)state;
  const char *path = ONYX_TESTDATA_DIR "/node/test_clip/test_data_set_0/input_0.pb";
  if (access(path, R_OK) != 0) skip();
  onyx_tensor t;
  char *name = NULL;
  onyx_error err = {0};
  assert_int_equal(onyx_tensor_load_file(path, &t, &name, &err), ONYX_OK);
  assert_int_equal(t.dtype, ONYX_DTYPE_FLOAT);
  assert_int_equal(t.rank, 3);
  assert_int_equal(t.dims[0], 3);
  assert_int_equal(t.dims[1], 4);
  assert_int_equal(t.dims[2], 5);
  assert_int_equal(t.size, 60 * 4);
  assert_string_equal(name, "x");
  onyx_free(t.data);
  onyx_free(name);
}

/* ---- External data ------------------------------------------------------- */

typedef struct ext_dir {
  char dir[64];
  char outside[64];
} ext_dir;

static const float ext_values[3] = {1.0f, 2.0f, 3.0f};

/* dir: w.bin (16 header bytes, three floats, 4 tail bytes), exact.bin (the
 * three floats), sub/w2.bin (likewise), empty.bin, link.bin -> outside,
 * linkdir -> outside folder, inner.bin -> w.bin, pipe (a FIFO). outside:
 * secret.bin (three floats). */
static void ext_setup(ext_dir *e) {
  strcpy(e->dir, "/tmp/onyx_ext_XXXXXX");
  strcpy(e->outside, "/tmp/onyx_out_XXXXXX");
  assert_non_null(mkdtemp(e->dir));
  assert_non_null(mkdtemp(e->outside));
  uint8_t file[32], le[12];
  host_to_le_elems(ext_values, 3, 4, le); /* external data is little-endian */
  memset(file, 0xaa, sizeof file);
  memcpy(file + 16, le, 12);
  write_file(join(e->dir, "w.bin"), file, sizeof file);
  write_file(join(e->dir, "exact.bin"), le, 12);
  write_file(join(e->dir, "empty.bin"), "", 0);
  assert_int_equal(mkdir(join(e->dir, "sub"), 0700), 0);
  write_file(join(e->dir, "sub/w2.bin"), le, 12);
  write_file(join(e->outside, "secret.bin"), le, 12);
  assert_int_equal(symlink(join(e->outside, "secret.bin"), join(e->dir, "link.bin")), 0);
  assert_int_equal(symlink(e->outside, join(e->dir, "linkdir")), 0);
  assert_int_equal(symlink("w.bin", join(e->dir, "inner.bin")), 0);
  assert_int_equal(mkfifo(join(e->dir, "pipe"), 0600), 0);
}

static void ext_teardown(ext_dir *e) {
  static const char *const files[] = {"w.bin",    "exact.bin", "empty.bin", "sub/w2.bin",
                                      "link.bin", "linkdir",   "inner.bin", "pipe"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) unlink(join(e->dir, files[i]));
  rmdir(join(e->dir, "sub"));
  assert_int_equal(rmdir(e->dir), 0);
  unlink(join(e->outside, "secret.bin"));
  assert_int_equal(rmdir(e->outside), 0);
}

static void put_entry(onyx__pbw *w, const char *key, const char *value) {
  onyx__pbw in = {0};
  onyx__pbw_bytes(&in, 1, key, strlen(key));
  onyx__pbw_bytes(&in, 2, value, strlen(value));
  onyx__pbw_bytes(w, 13, in.buf, in.len);
  onyx__pbw_free(&in);
}

/* A float tensor of shape [n] with external data; NULL skips an entry. */
static void ext_tensor(onyx__pbw *w, int64_t n, const char *location, const char *offset,
                       const char *length) {
  put_dims(w, &n, 1, false);
  put_type(w, ONYX_DTYPE_FLOAT);
  onyx__pbw_bytes(w, 8, "w", 1);
  if (location != NULL) put_entry(w, "location", location);
  if (offset != NULL) put_entry(w, "offset", offset);
  if (length != NULL) put_entry(w, "length", length);
  onyx__pbw_uint(w, 14, 1);
}

typedef struct ext_result {
  onyx_status status;
  onyx_error err;
  float values[3];
} ext_result;

static ext_result ext_decode(const char *dir, onyx__pbw *w) {
  ext_result res;
  memset(&res, 0, sizeof res);
  onyx__arena arena = {0};
  onyx__tensor t;
  res.status = onyx__tensor_decode(w->buf, w->len, &arena, dir, 1, &t, &res.err);
  if (res.status == ONYX_OK && t.count == 3) memcpy(res.values, t.data, 12);
  onyx__arena_free(&arena);
  onyx__pbw_free(w);
  return res;
}

static void expect_ext_fail(const char *dir, onyx__pbw *w, onyx_status st, const char *text) {
  ext_result r = ext_decode(dir, w);
  if (r.status != st || (text != NULL && strstr(r.err.message, text) == NULL)) {
    fail_msg("expected %s containing '%s', got %s: %s", onyx_status_name(st), text ? text : "",
             onyx_status_name(r.status), r.err.message);
  }
}

static void test_external_good(void **state) {
  (void)state;
  ext_dir e;
  ext_setup(&e);
  onyx__pbw w = {0};
  ext_result r;

  ext_tensor(&w, 3, "w.bin", "16", "12");
  r = ext_decode(e.dir, &w);
  assert_int_equal(r.status, ONYX_OK);
  assert_memory_equal(r.values, ext_values, 12);

  /* Read when the offset is not aligned to the element. */
  ext_tensor(&w, 3, "w.bin", "15", "12");
  r = ext_decode(e.dir, &w);
  assert_int_equal(r.status, ONYX_OK);

  /* No offset and no length: the whole file. Sub folders and "." work. */
  ext_tensor(&w, 3, "exact.bin", NULL, NULL);
  r = ext_decode(e.dir, &w);
  assert_int_equal(r.status, ONYX_OK);
  assert_memory_equal(r.values, ext_values, 12);
  ext_tensor(&w, 3, "./sub//w2.bin", "0", NULL);
  r = ext_decode(e.dir, &w);
  assert_int_equal(r.status, ONYX_OK);
  assert_memory_equal(r.values, ext_values, 12);

  /* A tensor with no elements takes no bytes. */
  ext_tensor(&w, 0, "empty.bin", NULL, NULL);
  r = ext_decode(e.dir, &w);
  assert_int_equal(r.status, ONYX_OK);
  ext_teardown(&e);
}

/* Decodes w with a deferred-payload table, as a model file's parse does. */
static onyx_status decode_deferred(const char *dir, const onyx__pbw *w, onyx__arena *arena,
                                   onyx__payloads **p, onyx__tensor *t, onyx_error *err) {
  onyx__file_id id = {0};
  assert_int_equal(onyx__payloads_new(ONYX__OS_FILE_NONE, &id, dir, p, err), ONYX_OK);
  onyx__tensor_src src = {w->buf, arena, dir, *p, false};
  return onyx__tensor_decode_at(&src, w->buf, w->len, 1, t, err);
}

/* A slice of at least ONYX__DEFER_MIN bytes is checked at decode and read
 * on the first load, at any offset; a smaller one is read at once. */
static void test_external_deferred(void **state) {
  (void)state;
  ext_dir e;
  ext_setup(&e);
  enum { N = ONYX__DEFER_MIN / 4 + 3 };
  size_t file_size = 20 + (size_t)N * 4;
  uint8_t *file = malloc(file_size);
  assert_non_null(file);
  for (size_t i = 0; i < file_size; i++) file[i] = (uint8_t)(i * 7);
  const char *big = join(e.dir, "big.bin");
  write_file(big, file, file_size);
  static const char *const offsets[] = {"20", "17"};
  char len[32];
  snprintf(len, sizeof len, "%d", N * 4);
  for (int k = 0; k < 3; k++) {
    onyx__pbw w = {0};
    ext_tensor(&w, k == 2 ? 3 : N, "big.bin", offsets[k % 2], k == 2 ? "12" : len);
    onyx__arena arena = {0};
    onyx__payloads *p = NULL;
    onyx__tensor t;
    onyx_error err = {0};
    if (decode_deferred(e.dir, &w, &arena, &p, &t, &err) != ONYX_OK) fail_msg("%s", err.message);
    size_t off = k % 2 == 0 ? 20 : 17, n = k == 2 ? 12 : (size_t)N * 4;
    assert_int_equal(onyx__payloads_count(p), k == 2 ? 0 : 1);
    if (k < 2) assert_null(t.data);
    if (onyx__payloads_load(p, &err) != ONYX_OK) fail_msg("%s", err.message);
    uint8_t *want = malloc(n);
    assert_non_null(want);
    le_to_host_elems(file + off, n / 4, 4, want);
    assert_memory_equal(t.data, want, n);
    free(want);
    onyx__payloads_free(p);
    onyx__arena_free(&arena);
    onyx__pbw_free(&w);
  }
  free(file);
  unlink(big);
  ext_teardown(&e);
}

static void test_external_unsafe(void **state) {
  (void)state;
  ext_dir e;
  ext_setup(&e);
  onyx__pbw w = {0};
  char abs_path[128];
  snprintf(abs_path, sizeof abs_path, "%s/w.bin", e.dir);

  ext_tensor(&w, 3, abs_path, "16", "12");
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "absolute");
  ext_tensor(&w, 3, "/etc/passwd", NULL, NULL);
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "absolute");
  ext_tensor(&w, 3, "../w.bin", NULL, NULL);
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "'..'");
  ext_tensor(&w, 3, "sub/../w.bin", "16", "12");
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "'..'");
  ext_tensor(&w, 3, "sub/..", NULL, NULL);
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "'..'");
  ext_tensor(&w, 3, "", NULL, NULL);
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "empty");
  ext_tensor(&w, 3, NULL, "0", "12");
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "no 'location'");

  /* Symbolic links, escaping or not, are not followed. */
  ext_tensor(&w, 3, "link.bin", NULL, NULL);
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "symbolic link");
  ext_tensor(&w, 3, "linkdir/secret.bin", NULL, NULL);
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "symbolic link");
  ext_tensor(&w, 3, "inner.bin", "16", "12");
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "symbolic link");

  /* Not regular files, without blocking on the FIFO. */
  ext_tensor(&w, 3, "pipe", NULL, NULL);
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "not a regular file");
  ext_tensor(&w, 3, "sub", NULL, NULL);
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "not a regular file");
  ext_tensor(&w, 3, "w.bin/x", NULL, NULL);
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "not a folder");
  ext_tensor(&w, 3, "missing.bin", NULL, NULL);
  expect_ext_fail(e.dir, &w, ONYX_IO, "missing.bin");

  /* Ranges. */
  ext_tensor(&w, 3, "w.bin", "40", NULL);
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "past the end");
  ext_tensor(&w, 3, "w.bin", "16", "20");
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "runs past the end");
  ext_tensor(&w, 3, "w.bin", "18446744073709551615", "12");
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "past the end");
  ext_tensor(&w, 3, "w.bin", "16", "18446744073709551615");
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "runs past the end");
  ext_tensor(&w, 3, "w.bin", "16", "8");
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "has 8 bytes (length); the tensor needs 12");
  ext_tensor(&w, 3, "w.bin", "16", NULL);
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "has 16 bytes");
  ext_tensor(&w, 3, "empty.bin", NULL, NULL);
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "has 0 bytes");

  /* Numbers: decimal, non-negative, no sign, no suffix, no overflow. */
  static const char *const bad_numbers[] = {
      "-1", "+1", "1x", "", " 1", "0x10", "18446744073709551616"};
  for (size_t i = 0; i < sizeof bad_numbers / sizeof bad_numbers[0]; i++) {
    ext_tensor(&w, 3, "w.bin", bad_numbers[i], "12");
    expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "not a non-negative decimal integer");
  }
  /* A key given twice. */
  ext_tensor(&w, 3, "w.bin", "16", "12");
  put_entry(&w, "offset", "0");
  expect_ext_fail(e.dir, &w, ONYX_EXTERNAL_DATA, "appears twice");
  /* A NUL in the location. */
  ext_tensor(&w, 3, NULL, NULL, NULL);
  onyx__pbw_bytes(&w, 13, "\x0a\x08location\x12\x03w\0b", 15);
  expect_ext_fail(e.dir, &w, ONYX_PARSE, "NUL");
  /* No folder at all (memory loads, standalone tensors). */
  ext_tensor(&w, 3, "w.bin", "16", "12");
  expect_ext_fail(NULL, &w, ONYX_EXTERNAL_DATA, "folder");
  ext_teardown(&e);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_type_covered),
      cmocka_unit_test(test_raw_every_type),
      cmocka_unit_test(test_typed_every_type),
      cmocka_unit_test(test_raw_equals_typed),
      cmocka_unit_test(test_rank0),
      cmocka_unit_test(test_zero_size),
      cmocka_unit_test(test_length_mismatch),
      cmocka_unit_test(test_wrong_field),
      cmocka_unit_test(test_two_sources),
      cmocka_unit_test(test_bad_shapes),
      cmocka_unit_test(test_shape_count),
      cmocka_unit_test(test_out_of_range_values),
      cmocka_unit_test(test_unsupported_types),
      cmocka_unit_test(test_other_refusals),
      cmocka_unit_test(test_name_kept_on_failure),
      cmocka_unit_test(test_unknown_fields_skipped),
      cmocka_unit_test(test_zero_copy),
      cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test(test_public_round_trip),
      cmocka_unit_test(test_public_encode_errors),
      cmocka_unit_test(test_public_decode_errors),
      cmocka_unit_test(test_files),
      cmocka_unit_test(test_large_file),
      cmocka_unit_test(test_conformance_file),
      cmocka_unit_test(test_external_good),
      cmocka_unit_test(test_external_deferred),
      cmocka_unit_test(test_external_unsafe),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
