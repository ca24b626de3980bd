/* SPDX-License-Identifier: MIT */
/*
 * The protobuf wire reader: varints, tags, lengths, fixed-width values,
 * skipping, packed lists, and the writer. Every input lives in a heap buffer
 * of exactly its size, so that a read past the end is caught by the address
 * sanitizer or valgrind.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "model/pb.h"

/* A heap copy of exactly n bytes (one byte for n == 0, never read). */
static uint8_t *dup_bytes(const void *src, size_t n) {
  uint8_t *p = malloc(n ? n : 1);
  assert_non_null(p);
  if (n) memcpy(p, src, n);
  return p;
}

static onyx_status read_varint(const uint8_t *bytes, size_t n, uint64_t *v, size_t *used,
                               onyx_error *err) {
  uint8_t *b = dup_bytes(bytes, n);
  onyx__pb r;
  onyx__pb_init(&r, b, b, n);
  onyx_status st = onyx__pb_varint(&r, v, err);
  *used = (size_t)(r.p - b);
  free(b);
  return st;
}

/* The encoded length of v, computed independently of the writer. */
static size_t varint_len(uint64_t v) {
  size_t n = 1;
  while (v >= 128) {
    v >>= 7;
    n++;
  }
  return n;
}

static void test_varint_lengths(void **state) {
  (void)state;
  /* The smallest and largest value of every encoded length 1..10. */
  for (int len = 1; len <= 10; len++) {
    uint64_t lo = len == 1 ? 0 : UINT64_C(1) << (7 * (len - 1));
    uint64_t hi = len == 10 ? UINT64_MAX : (UINT64_C(1) << (7 * len)) - 1;
    uint64_t values[2] = {lo, hi};
    for (int k = 0; k < 2; k++) {
      onyx__pbw w = {0};
      onyx__pbw_varint(&w, values[k]);
      assert_false(w.failed);
      assert_int_equal(w.len, (size_t)len);
      assert_int_equal(varint_len(values[k]), (size_t)len);
      uint64_t v = 0;
      size_t used = 0;
      onyx_error err = {0};
      assert_int_equal(read_varint(w.buf, w.len, &v, &used, &err), ONYX_OK);
      assert_true(v == values[k]);
      assert_int_equal(used, (size_t)len);
      onyx__pbw_free(&w);
    }
  }
}

static void test_varint_known_bytes(void **state) {
  (void)state;
  static const uint8_t b300[] = {0xac, 0x02};
  static const uint8_t nonminimal[] = {0x80, 0x80, 0x00}; /* zero, padded: valid */
  static const uint8_t minus1[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  uint64_t v = 0;
  size_t used = 0;
  onyx_error err = {0};
  assert_int_equal(read_varint(b300, sizeof b300, &v, &used, &err), ONYX_OK);
  assert_int_equal(v, 300);
  assert_int_equal(read_varint(nonminimal, sizeof nonminimal, &v, &used, &err), ONYX_OK);
  assert_int_equal(v, 0);
  assert_int_equal(used, 3);
  assert_int_equal(read_varint(minus1, sizeof minus1, &v, &used, &err), ONYX_OK);
  assert_true(v == UINT64_MAX);
}

static void test_varint_overlong(void **state) {
  (void)state;
  /* Eleven bytes: more than any 64-bit value needs. */
  uint8_t eleven[11];
  memset(eleven, 0x80, sizeof eleven);
  eleven[10] = 0x00;
  uint64_t v = 0;
  size_t used = 0;
  onyx_error err = {0};
  assert_int_equal(read_varint(eleven, sizeof eleven, &v, &used, &err), ONYX_PARSE);
  assert_int_equal(err.status, ONYX_PARSE);
  assert_non_null(strstr(err.message, "byte 0"));
  assert_int_equal(used, 0); /* the reader did not move */
  /* Ten bytes whose last carries more than bit 63. */
  uint8_t ten[10];
  memset(ten, 0xff, sizeof ten);
  ten[9] = 0x02;
  assert_int_equal(read_varint(ten, sizeof ten, &v, &used, &err), ONYX_PARSE);
  assert_non_null(strstr(err.message, "64 bits"));
  ten[9] = 0x7f;
  assert_int_equal(read_varint(ten, sizeof ten, &v, &used, &err), ONYX_PARSE);
}

static void test_varint_truncated_everywhere(void **state) {
  (void)state;
  for (int len = 1; len <= 10; len++) {
    uint64_t value = len == 10 ? UINT64_MAX : (UINT64_C(1) << (7 * len)) - 1;
    onyx__pbw w = {0};
    onyx__pbw_varint(&w, value);
    assert_int_equal(w.len, (size_t)len);
    for (size_t cut = 0; cut < w.len; cut++) {
      uint64_t v = 0;
      size_t used = 99;
      onyx_error err = {0};
      assert_int_equal(read_varint(w.buf, cut, &v, &used, &err), ONYX_PARSE);
      assert_non_null(strstr(err.message, "truncated varint"));
      assert_int_equal(used, 0);
    }
    onyx__pbw_free(&w);
  }
}

static onyx_status read_tag(const uint8_t *bytes, size_t n, uint32_t *number, uint32_t *wire,
                            onyx_error *err) {
  uint8_t *b = dup_bytes(bytes, n);
  onyx__pb r;
  onyx__pb_init(&r, b, b, n);
  onyx_status st = onyx__pb_tag(&r, number, wire, err);
  free(b);
  return st;
}

static onyx_status tag_of(uint64_t raw, uint32_t *number, uint32_t *wire, onyx_error *err) {
  onyx__pbw w = {0};
  onyx__pbw_varint(&w, raw);
  onyx_status st = read_tag(w.buf, w.len, number, wire, err);
  onyx__pbw_free(&w);
  return st;
}

static void test_tags(void **state) {
  (void)state;
  uint32_t number = 0, wire = 0;
  onyx_error err = {0};
  static const uint32_t good_wires[] = {0, 1, 2, 5};
  for (int i = 0; i < 4; i++) {
    assert_int_equal(tag_of((uint64_t)7 << 3 | good_wires[i], &number, &wire, &err), ONYX_OK);
    assert_int_equal(number, 7);
    assert_int_equal(wire, good_wires[i]);
  }
  /* The largest field number, and one past it. */
  assert_int_equal(tag_of((uint64_t)ONYX__PB_MAX_FIELD << 3, &number, &wire, &err), ONYX_OK);
  assert_int_equal(number, ONYX__PB_MAX_FIELD);
  assert_int_equal(tag_of((uint64_t)(ONYX__PB_MAX_FIELD + 1u) << 3, &number, &wire, &err),
                   ONYX_PARSE);
  assert_non_null(strstr(err.message, "out of range"));
  assert_int_equal(tag_of(UINT64_MAX, &number, &wire, &err), ONYX_PARSE);
  /* Field number 0. */
  assert_int_equal(tag_of(0, &number, &wire, &err), ONYX_PARSE);
  assert_int_equal(tag_of(2, &number, &wire, &err), ONYX_PARSE);
  /* Groups and the undefined wire types. */
  static const uint32_t bad_wires[] = {3, 4, 6, 7};
  for (int i = 0; i < 4; i++) {
    memset(&err, 0, sizeof err);
    assert_int_equal(tag_of((uint64_t)1 << 3 | bad_wires[i], &number, &wire, &err), ONYX_PARSE);
    assert_int_equal(err.status, ONYX_PARSE);
    assert_non_null(strstr(err.message, bad_wires[i] < 5 ? "groups" : "invalid wire type"));
  }
  /* A truncated tag. */
  static const uint8_t cut[] = {0x80};
  assert_int_equal(read_tag(cut, sizeof cut, &number, &wire, &err), ONYX_PARSE);
}

static void test_length_delimited(void **state) {
  (void)state;
  onyx_error err = {0};
  /* Field 1, length 4, four bytes: exactly fits. */
  static const uint8_t fits[] = {0x0a, 0x04, 'a', 'b', 'c', 'd'};
  uint8_t *b = dup_bytes(fits, sizeof fits);
  onyx__pb r;
  onyx__pb_init(&r, b, b, sizeof fits);
  onyx__pb_field f;
  assert_int_equal(onyx__pb_next(&r, &f, &err), ONYX_OK);
  assert_int_equal(f.number, 1);
  assert_int_equal(f.wire, ONYX__WIRE_LEN);
  assert_int_equal(f.len, 4);
  assert_ptr_equal(f.data, b + 2); /* zero-copy */
  assert_true(onyx__pb_done(&r));
  free(b);

  /* Length one past the end, and the same at every cut of the buffer. */
  for (size_t n = 0; n < sizeof fits; n++) {
    b = dup_bytes(fits, n);
    onyx__pb_init(&r, b, b, n);
    assert_int_equal(onyx__pb_next(&r, &f, &err), ONYX_PARSE);
    assert_ptr_equal(r.p, b);
    free(b);
  }
  static const uint8_t past[] = {0x0a, 0x05, 'a', 'b', 'c', 'd'};
  b = dup_bytes(past, sizeof past);
  onyx__pb_init(&r, b, b, sizeof past);
  assert_int_equal(onyx__pb_next(&r, &f, &err), ONYX_PARSE);
  assert_non_null(strstr(err.message, "past the end"));
  assert_non_null(strstr(err.message, "byte 1"));
  free(b);

  /* A length near 2^64 must not wrap any pointer arithmetic. */
  onyx__pbw w = {0};
  onyx__pbw_tag(&w, 1, ONYX__WIRE_LEN);
  onyx__pbw_varint(&w, UINT64_MAX - 1);
  onyx__pbw_raw(&w, "xy", 2);
  b = dup_bytes(w.buf, w.len);
  onyx__pb_init(&r, b, b, w.len);
  assert_int_equal(onyx__pb_next(&r, &f, &err), ONYX_PARSE);
  free(b);
  onyx__pbw_free(&w);

  /* An empty payload is fine. */
  static const uint8_t empty[] = {0x0a, 0x00};
  b = dup_bytes(empty, sizeof empty);
  onyx__pb_init(&r, b, b, sizeof empty);
  assert_int_equal(onyx__pb_next(&r, &f, &err), ONYX_OK);
  assert_int_equal(f.len, 0);
  free(b);
}

static void test_fixed(void **state) {
  (void)state;
  static const uint8_t bytes[] = {0x78, 0x56, 0x34, 0x12, 0xef, 0xcd,
                                  0xab, 0x90, 0x01, 0x02, 0x03, 0x04};
  onyx_error err = {0};
  uint8_t *b = dup_bytes(bytes, sizeof bytes);
  onyx__pb r;
  onyx__pb_init(&r, b, b, sizeof bytes);
  uint32_t v32 = 0;
  uint64_t v64 = 0;
  assert_int_equal(onyx__pb_fixed32(&r, &v32, &err), ONYX_OK);
  assert_int_equal(v32, 0x12345678u);
  assert_int_equal(onyx__pb_fixed64(&r, &v64, &err), ONYX_OK);
  assert_true(v64 == UINT64_C(0x0403020190abcdef));
  assert_true(onyx__pb_done(&r));
  free(b);
  for (size_t n = 0; n < 8; n++) {
    b = dup_bytes(bytes, n);
    onyx__pb_init(&r, b, b, n);
    if (n < 4) assert_int_equal(onyx__pb_fixed32(&r, &v32, &err), ONYX_PARSE);
    assert_int_equal(onyx__pb_fixed64(&r, &v64, &err), ONYX_PARSE);
    assert_ptr_equal(r.p, b);
    free(b);
  }
}

/* A message with an unknown field of every wire type before a known one. */
static void test_skip_unknown(void **state) {
  (void)state;
  onyx__pbw w = {0};
  onyx__pbw_uint(&w, 100, UINT64_MAX);
  onyx__pbw_tag(&w, 101, ONYX__WIRE_FIXED64);
  onyx__pbw_fixed64(&w, 42);
  onyx__pbw_bytes(&w, 102, "hello", 5);
  onyx__pbw_tag(&w, 103, ONYX__WIRE_FIXED32);
  onyx__pbw_fixed32(&w, 7);
  onyx__pbw_uint(&w, 1, 150);
  assert_false(w.failed);
  uint8_t *b = dup_bytes(w.buf, w.len);
  onyx_error err = {0};

  /* With onyx__pb_next, which reads each value whatever its field. */
  onyx__pb r;
  onyx__pb_init(&r, b, b, w.len);
  onyx__pb_field f;
  uint64_t found = 0;
  int fields = 0;
  while (!onyx__pb_done(&r)) {
    assert_int_equal(onyx__pb_next(&r, &f, &err), ONYX_OK);
    fields++;
    if (f.number == 1) found = f.u;
  }
  assert_int_equal(fields, 5);
  assert_int_equal(found, 150);

  /* With onyx__pb_tag and onyx__pb_skip. */
  onyx__pb_init(&r, b, b, w.len);
  for (int i = 0; i < 4; i++) {
    uint32_t number = 0, wire = 0;
    assert_int_equal(onyx__pb_tag(&r, &number, &wire, &err), ONYX_OK);
    assert_int_equal(number, 100u + (uint32_t)i);
    assert_int_equal(onyx__pb_skip(&r, wire, &err), ONYX_OK);
  }
  uint32_t number = 0, wire = 0;
  assert_int_equal(onyx__pb_tag(&r, &number, &wire, &err), ONYX_OK);
  assert_int_equal(number, 1);
  assert_int_equal(onyx__pb_skip(&r, 3, &err), ONYX_PARSE); /* groups cannot be skipped */

  /* Truncating the message anywhere inside a field fails cleanly. */
  for (size_t n = 1; n < w.len; n++) {
    uint8_t *c = dup_bytes(w.buf, n);
    onyx__pb_init(&r, c, c, n);
    onyx_status st = ONYX_OK;
    while (st == ONYX_OK && !onyx__pb_done(&r)) st = onyx__pb_next(&r, &f, &err);
    assert_true(r.p <= r.end);
    free(c);
  }
  free(b);
  onyx__pbw_free(&w);
}

static void test_packed_values(void **state) {
  (void)state;
  onyx_error err = {0};
  onyx__pbw inner = {0}, w = {0};
  onyx__pbw_varint(&inner, 1);
  onyx__pbw_varint(&inner, 300);
  onyx__pbw_varint(&inner, UINT64_MAX);
  onyx__pbw_bytes(&w, 8, inner.buf, inner.len);
  onyx__pbw_uint(&w, 8, 5); /* the same field unpacked */
  uint8_t *b = dup_bytes(w.buf, w.len);
  onyx__pb r;
  onyx__pb_init(&r, b, b, w.len);
  onyx__pb_field f;
  onyx__pb vals;
  size_t n = 0;
  uint64_t v = 0;
  assert_int_equal(onyx__pb_next(&r, &f, &err), ONYX_OK);
  assert_int_equal(onyx__pb_values(&r, &f, ONYX__WIRE_VARINT, "ints", &vals, &n, &err), ONYX_OK);
  assert_int_equal(n, 3);
  assert_int_equal(onyx__pb_varint(&vals, &v, &err), ONYX_OK);
  assert_int_equal(v, 1);
  assert_int_equal(onyx__pb_varint(&vals, &v, &err), ONYX_OK);
  assert_int_equal(v, 300);
  assert_int_equal(onyx__pb_varint(&vals, &v, &err), ONYX_OK);
  assert_true(v == UINT64_MAX);
  assert_true(onyx__pb_done(&vals));
  assert_int_equal(onyx__pb_next(&r, &f, &err), ONYX_OK);
  assert_int_equal(onyx__pb_values(&r, &f, ONYX__WIRE_VARINT, "ints", &vals, &n, &err), ONYX_OK);
  assert_int_equal(n, 1);
  assert_int_equal(onyx__pb_varint(&vals, &v, &err), ONYX_OK);
  assert_int_equal(v, 5);
  /* An unpacked value of the wrong wire type. */
  assert_int_equal(onyx__pb_values(&r, &f, ONYX__WIRE_FIXED32, "floats", &vals, &n, &err),
                   ONYX_PARSE);
  assert_non_null(strstr(err.message, "floats"));
  free(b);
  onyx__pbw_free(&w);
  onyx__pbw_free(&inner);

  /* A packed run whose last varint is cut. */
  static const uint8_t cut[] = {0x42, 0x02, 0x01, 0x80};
  b = dup_bytes(cut, sizeof cut);
  onyx__pb_init(&r, b, b, sizeof cut);
  assert_int_equal(onyx__pb_next(&r, &f, &err), ONYX_OK);
  assert_int_equal(onyx__pb_values(&r, &f, ONYX__WIRE_VARINT, "ints", &vals, &n, &err), ONYX_PARSE);
  free(b);

  /* Packed fixed-width runs must hold whole values. */
  static const uint8_t f5[] = {0x3a, 0x05, 0, 0, 0x80, 0x3f, 0};
  b = dup_bytes(f5, sizeof f5);
  onyx__pb_init(&r, b, b, sizeof f5);
  assert_int_equal(onyx__pb_next(&r, &f, &err), ONYX_OK);
  assert_int_equal(onyx__pb_values(&r, &f, ONYX__WIRE_FIXED32, "floats", &vals, &n, &err),
                   ONYX_PARSE);
  assert_non_null(strstr(err.message, "multiple of 4"));
  assert_int_equal(onyx__pb_values(&r, &f, ONYX__WIRE_FIXED64, "doubles", &vals, &n, &err),
                   ONYX_PARSE);
  free(b);
  static const uint8_t f8[] = {0x3a, 0x08, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40};
  b = dup_bytes(f8, sizeof f8);
  onyx__pb_init(&r, b, b, sizeof f8);
  assert_int_equal(onyx__pb_next(&r, &f, &err), ONYX_OK);
  assert_int_equal(onyx__pb_values(&r, &f, ONYX__WIRE_FIXED32, "floats", &vals, &n, &err), ONYX_OK);
  assert_int_equal(n, 2);
  uint32_t bits = 0;
  assert_int_equal(onyx__pb_fixed32(&vals, &bits, &err), ONYX_OK);
  assert_int_equal(bits, 0x3f800000u);
  assert_int_equal(onyx__pb_fixed32(&vals, &bits, &err), ONYX_OK);
  assert_int_equal(bits, 0x40000000u);
  assert_int_equal(onyx__pb_values(&r, &f, ONYX__WIRE_FIXED64, "doubles", &vals, &n, &err),
                   ONYX_OK);
  assert_int_equal(n, 1);
  free(b);
}

static void test_offsets_count_from_base(void **state) {
  (void)state;
  /* A nested message whose inner varint is cut: the offset in the message
   * counts from the outer buffer's start. */
  static const uint8_t bytes[] = {0x08, 0x01, 0x12, 0x02, 0x08, 0x80};
  uint8_t *b = dup_bytes(bytes, sizeof bytes);
  onyx_error err = {0};
  onyx__pb r;
  onyx__pb_init(&r, b, b, sizeof bytes);
  onyx__pb_field f;
  assert_int_equal(onyx__pb_next(&r, &f, &err), ONYX_OK);
  assert_int_equal(onyx__pb_next(&r, &f, &err), ONYX_OK);
  assert_int_equal(f.offset, 2);
  onyx__pb sub = onyx__pb_sub(&r, &f);
  assert_int_equal(onyx__pb_next(&sub, &f, &err), ONYX_PARSE);
  assert_non_null(strstr(err.message, "at byte 5"));
  free(b);
}

static void test_wire_error_message(void **state) {
  (void)state;
  onyx__pb_field f = {0};
  f.number = 3;
  f.wire = 0;
  f.offset = 17;
  onyx_error err = {0};
  assert_int_equal(onyx__pb_wire_error(&f, "name", 2, &err), ONYX_PARSE);
  assert_string_equal(err.message,
                      "protobuf: field 3 (name) has wire type 0; expected 2 at byte 17");
  /* A NULL error record is allowed everywhere. */
  assert_int_equal(onyx__pb_wire_error(&f, "name", 2, NULL), ONYX_PARSE);
}

static void test_writer_out_of_memory(void **state) {
  (void)state;
  onyx__pbw w = {0};
  onyx__alloc_fail_at(1);
  onyx__pbw_bytes(&w, 1, "abc", 3);
  assert_true(w.failed);
  onyx__pbw_uint(&w, 2, 5); /* a no-op once failed */
  assert_int_equal(w.len, 0);
  onyx__pbw_free(&w);
  onyx__alloc_fail_at(0);
  /* Growth past the first block keeps every byte. */
  for (int i = 0; i < 1000; i++) onyx__pbw_varint(&w, (uint64_t)i);
  assert_false(w.failed);
  onyx__pb r;
  onyx__pb_init(&r, w.buf, w.buf, w.len);
  for (int i = 0; i < 1000; i++) {
    uint64_t v = 0;
    assert_int_equal(onyx__pb_varint(&r, &v, NULL), ONYX_OK);
    assert_int_equal(v, (uint64_t)i);
  }
  onyx__pbw_free(&w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_varint_lengths),
      cmocka_unit_test(test_varint_known_bytes),
      cmocka_unit_test(test_varint_overlong),
      cmocka_unit_test(test_varint_truncated_everywhere),
      cmocka_unit_test(test_tags),
      cmocka_unit_test(test_length_delimited),
      cmocka_unit_test(test_fixed),
      cmocka_unit_test(test_skip_unknown),
      cmocka_unit_test(test_packed_values),
      cmocka_unit_test(test_offsets_count_from_base),
      cmocka_unit_test(test_wire_error_message),
      cmocka_unit_test(test_writer_out_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
