/* SPDX-License-Identifier: MIT */
/*
 * The onyx command's .npy reader and writer (cli/npy.c): files numpy itself
 * wrote (every element type, scalar, empty and multi-dimensional shapes,
 * format versions 1.0, 2.0 and 3.0), read and written back byte for byte as
 * np.save writes them; big-endian ('>') files, read as host-order values;
 * files numpy writes that onyx refuses (Fortran order, object, bool,
 * complex, structured, unicode); and every way a file can be malformed
 * (magic, version, header grammar, keys, shape, truncation at every length,
 * extra bytes, sizes that overflow).
 *
 * The numpy files come from tests/python/make_fixtures.py, which the
 * build runs into ONYX_NPY_FIXTURES; value() below is its value().
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/half.h"
#include "host_bytes.h"
#include "onyx.h"

/* tests/ecosystem.cmake defines ONYX_NPY_FIXTURES and compiles cli/npy.c
 * into this test. Without it, the test only says so (and fails), rather
 * than breaking the build. */
#ifndef ONYX_NPY_FIXTURES
int main(void) {
  fprintf(stderr,
          "test_npy: tests/ecosystem.cmake is not included from tests/CMakeLists.txt, "
          "which builds cli/npy.c into this test\n");
  return 1;
}
#else

#include "npy.h"

/* ---- Helpers ------------------------------------------------------------ */

static unsigned char *read_all(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  size_t cap = 1 << 16, len = 0;
  unsigned char *buf = malloc(cap);
  assert_non_null(buf);
  size_t n;
  while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) {
      cap *= 2;
      buf = realloc(buf, cap);
      assert_non_null(buf);
    }
  }
  fclose(f);
  *size = len;
  return buf;
}

/* Whether the size bytes at p contain the text s. */
static int contains(const void *p, size_t size, const char *s) {
  size_t n = strlen(s);
  for (size_t i = 0; i + n <= size; i++)
    if (memcmp((const char *)p + i, s, n) == 0) return 1;
  return 0;
}

static char *fixture(const char *name) {
  static char path[4096];
  snprintf(path, sizeof path, "%s/%s", ONYX_NPY_FIXTURES, name);
  return path;
}

/* The i-th element the fixture script writes, for a type code. */
static double value(size_t i, const char *code) {
  double v = (double)((7 * i + 3) % 100);
  if (code[0] == 'f' || code[0] == 'i') v -= 50;
  if (code[0] == 'f') v += 0.5;
  return v;
}

/* Stores value v as one element of dtype at p (little-endian). */
static void store(onyx_dtype dt, unsigned char *p, double v) {
  switch (dt) {
    case ONYX_DTYPE_FLOAT: {
      float f = (float)v;
      memcpy(p, &f, 4);
      return;
    }
    case ONYX_DTYPE_DOUBLE:
      memcpy(p, &v, 8);
      return;
    case ONYX_DTYPE_FLOAT16: {
      onyx__f16 h = onyx__f32_to_f16((float)v);
      memcpy(p, &h.bits, 2);
      return;
    }
    default:
      store_host((uint64_t)(int64_t)v, onyx_dtype_size(dt), p);
      return;
  }
}

static const struct {
  const char *code;
  onyx_dtype dtype;
  const char *descr;
} TYPES[] = {
    {"f4", ONYX_DTYPE_FLOAT, "<f4"},   {"f8", ONYX_DTYPE_DOUBLE, "<f8"},
    {"f2", ONYX_DTYPE_FLOAT16, "<f2"}, {"i1", ONYX_DTYPE_INT8, "|i1"},
    {"u1", ONYX_DTYPE_UINT8, "|u1"},   {"i2", ONYX_DTYPE_INT16, "<i2"},
    {"u2", ONYX_DTYPE_UINT16, "<u2"},  {"i4", ONYX_DTYPE_INT32, "<i4"},
    {"u4", ONYX_DTYPE_UINT32, "<u4"},  {"i8", ONYX_DTYPE_INT64, "<i8"},
    {"u8", ONYX_DTYPE_UINT64, "<u8"},
};
#define N_TYPES  (sizeof TYPES / sizeof TYPES[0])

static const struct {
  const char *name;
  uint32_t rank;
  int64_t dims[4];
} SHAPES[] = {
    {"2x3", 2, {2, 3}}, {"s", 0, {0}},           {"0", 1, {0}},
    {"5", 1, {5}},      {"2x0x3", 3, {2, 0, 3}}, {"1x2x1x3", 4, {1, 2, 1, 3}},
};
#define N_SHAPES (sizeof SHAPES / sizeof SHAPES[0])

/* Checks that t holds the fixture's values for code. */
static void check_values(const onyx_tensor *t, const char *code, size_t count) {
  size_t esize = onyx_dtype_size(t->dtype);
  assert_int_equal(t->size, count * esize);
  if (count == 0) return;
  assert_non_null(t->data);
  for (size_t i = 0; i < count; i++) {
    unsigned char want[8];
    store(t->dtype, want, value(i, code));
    if (memcmp((unsigned char *)t->data + i * esize, want, esize) != 0)
      fail_msg("%s: element %zu differs", code, i);
  }
}

/* A .npy file image, version 1.0, with the given header text (taken as is:
 * the caller adds the newline) and data. */
static unsigned char *make_npy(const char *header, const void *data, size_t data_len,
                               size_t *size) {
  size_t hlen = strlen(header);
  *size = 10 + hlen + data_len;
  unsigned char *b = malloc(*size ? *size : 1);
  assert_non_null(b);
  memcpy(b, "\x93NUMPY\x01\x00", 8);
  b[8] = (unsigned char)(hlen & 0xff);
  b[9] = (unsigned char)(hlen >> 8);
  memcpy(b + 10, header, hlen);
  if (data_len) memcpy(b + 10 + hlen, data, data_len);
  return b;
}

/* Decodes a header text with data_len bytes of data; returns the status and
 * leaves the message in why. */
static npy_status decode_header(const char *header, size_t data_len, char *why, size_t cap) {
  unsigned char zeros[64] = {0};
  assert_true(data_len <= sizeof zeros);
  size_t size;
  unsigned char *b = make_npy(header, zeros, data_len, &size);
  onyx_tensor t;
  why[0] = '\0';
  npy_status st = npy_decode(b, size, &t, why, cap);
  if (st == NPY_OK) free(t.data);
  free(b);
  return st;
}

static void expect_header(const char *header, size_t data_len, npy_status want,
                          const char *substring) {
  char why[512];
  npy_status st = decode_header(header, data_len, why, sizeof why);
  if (st != want) fail_msg("header %s: status %d, expected %d (%s)", header, st, want, why);
  if (substring && !strstr(why, substring))
    fail_msg("header %s: message '%s' lacks '%s'", header, why, substring);
}

/* ---- Files numpy wrote -------------------------------------------------- */

static void test_numpy_files_round_trip(void **state) {
  (void)state;
  for (size_t ti = 0; ti < N_TYPES; ti++) {
    for (size_t si = 0; si < N_SHAPES; si++) {
      char name[64];
      snprintf(name, sizeof name, "%s_%s.npy", TYPES[ti].code, SHAPES[si].name);
      char why[512] = "";
      onyx_tensor t;
      npy_status st = npy_load_file(fixture(name), &t, why, sizeof why);
      if (st != NPY_OK) fail_msg("%s: %s", name, why);
      assert_int_equal(t.dtype, TYPES[ti].dtype);
      assert_int_equal(t.rank, SHAPES[si].rank);
      size_t count = 1;
      for (uint32_t d = 0; d < t.rank; d++) {
        assert_int_equal(t.dims[d], SHAPES[si].dims[d]);
        count *= (size_t)t.dims[d];
      }
      check_values(&t, TYPES[ti].code, count);

      /* Written back, the bytes are numpy's own. */
      size_t file_size, size;
      unsigned char *file = read_all(fixture(name), &file_size);
      void *bytes;
      st = npy_encode(&t, &bytes, &size, why, sizeof why);
      if (st != NPY_OK) fail_msg("%s: encode: %s", name, why);
      if (size != file_size || memcmp(bytes, file, size) != 0)
        fail_msg("%s: written back, the bytes differ from numpy's", name);
      free(bytes);
      free(file);
      free(t.data);
    }
  }
}

static void test_numpy_versions_2_and_3(void **state) {
  (void)state;
  for (size_t ti = 0; ti < N_TYPES; ti++) {
    for (int version = 2; version <= 3; version++) {
      char name[64], v1[64], why[512] = "";
      snprintf(name, sizeof name, "%s_2x3_v%d.npy", TYPES[ti].code, version);
      snprintf(v1, sizeof v1, "%s_2x3.npy", TYPES[ti].code);
      size_t size;
      unsigned char *file = read_all(fixture(name), &size);
      assert_int_equal(file[6], version);
      onyx_tensor t;
      if (npy_decode(file, size, &t, why, sizeof why) != NPY_OK) fail_msg("%s: %s", name, why);
      assert_int_equal(t.dtype, TYPES[ti].dtype);
      assert_int_equal(t.rank, 2);
      assert_int_equal(t.dims[0], 2);
      assert_int_equal(t.dims[1], 3);
      check_values(&t, TYPES[ti].code, 6);
      /* The writer picks version 1.0, as np.save does for this array. */
      void *bytes;
      size_t out_size, v1_size;
      assert_int_equal(npy_encode(&t, &bytes, &out_size, why, sizeof why), NPY_OK);
      unsigned char *expected = read_all(fixture(v1), &v1_size);
      assert_int_equal(out_size, v1_size);
      assert_memory_equal(bytes, expected, v1_size);
      free(expected);
      free(bytes);
      free(file);
      free(t.data);
    }
  }
}

static void test_numpy_files_refused(void **state) {
  (void)state;
  static const struct {
    const char *file;
    const char *message;
  } cases[] = {
      {"fortran.npy", "Fortran-order"},
      {"object.npy", "object arrays ('|O')"},
      {"bool.npy", "element type '|b1' is not supported"},
      {"complex.npy", "element type '<c8' is not supported"},
      {"structured.npy", "structured arrays"},
      {"unicode.npy", "element type '<U3' is not supported"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char why[512] = "";
    onyx_tensor t;
    npy_status st = npy_load_file(fixture(cases[i].file), &t, why, sizeof why);
    if (st != NPY_UNSUPPORTED) fail_msg("%s: status %d (%s)", cases[i].file, st, why);
    if (!strstr(why, cases[i].message))
      fail_msg("%s: message '%s' lacks '%s'", cases[i].file, why, cases[i].message);
    assert_null(t.data);
    assert_int_equal(t.rank, 0);
  }
}

/* numpy's big-endian file (np.arange(4, dtype='>f4')), and '>' headers of
 * other widths, give host-order values; what is written back says '<'. */
static void test_big_endian_read(void **state) {
  (void)state;
  char why[512] = "";
  onyx_tensor t;
  assert_int_equal(npy_load_file(fixture("big_endian.npy"), &t, why, sizeof why), NPY_OK);
  assert_int_equal(t.dtype, ONYX_DTYPE_FLOAT);
  assert_int_equal(t.rank, 1);
  assert_int_equal(t.dims[0], 4);
  const float want[4] = {0.0f, 1.0f, 2.0f, 3.0f};
  assert_memory_equal(t.data, want, sizeof want);
  void *bytes;
  size_t size;
  assert_int_equal(npy_encode(&t, &bytes, &size, why, sizeof why), NPY_OK);
  assert_non_null(strstr((const char *)bytes + 10, "'<f4'"));
  /* 1.0f little-endian is 00 00 80 3f. */
  assert_memory_equal((unsigned char *)bytes + size - 12, "\x00\x00\x80\x3f", 4);
  free(bytes);
  free(t.data);
  static const unsigned char be[] = {0x80, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                                     0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8};
  static const struct {
    const char *header;
    onyx_dtype dtype;
    size_t n;
  } cases[] = {
      {"{'descr': '>i2', 'fortran_order': False, 'shape': (8,), }\n", ONYX_DTYPE_INT16, 8},
      {"{'descr': '>u4', 'fortran_order': False, 'shape': (4,), }\n", ONYX_DTYPE_UINT32, 4},
      {"{'descr': '>i8', 'fortran_order': False, 'shape': (2,), }\n", ONYX_DTYPE_INT64, 2},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    size_t fsize, w = 16 / cases[c].n;
    unsigned char *file = make_npy(cases[c].header, be, sizeof be, &fsize);
    assert_int_equal(npy_decode(file, fsize, &t, why, sizeof why), NPY_OK);
    assert_int_equal(t.dtype, cases[c].dtype);
    for (size_t i = 0; i < cases[c].n; i++) {
      uint64_t v = 0;
      for (size_t b = 0; b < w; b++) v = v << 8 | be[i * w + b];
      unsigned char host[8];
      uint16_t u16 = (uint16_t)v;
      uint32_t u32 = (uint32_t)v;
      memcpy(host, w == 2 ? (void *)&u16 : w == 4 ? (void *)&u32 : (void *)&v, w);
      if (memcmp((unsigned char *)t.data + i * w, host, w) != 0)
        fail_msg("%s: element %zu differs", cases[c].header, i);
    }
    free(t.data);
    free(file);
  }
}

/* ---- Malformed files ---------------------------------------------------- */

static void test_magic_and_version(void **state) {
  (void)state;
  char why[512];
  onyx_tensor t;
  assert_int_equal(npy_decode("", 0, &t, why, sizeof why), NPY_BAD_MAGIC);
  assert_int_equal(npy_decode("hello world", 11, &t, why, sizeof why), NPY_BAD_MAGIC);
  assert_non_null(strstr(why, "not a .npy file"));
  assert_int_equal(npy_decode("\x93NUMPX\x01\x00\x00\x00", 10, &t, why, sizeof why), NPY_BAD_MAGIC);
  assert_int_equal(npy_decode(NULL, 0, &t, why, sizeof why), NPY_BAD_MAGIC);
  static const unsigned char versions[][2] = {{0, 0}, {4, 0}, {1, 1}, {2, 1}, {255, 0}};
  for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
    unsigned char b[16] = {0x93, 'N', 'U', 'M', 'P', 'Y', versions[i][0], versions[i][1]};
    assert_int_equal(npy_decode(b, sizeof b, &t, why, sizeof why), NPY_BAD_MAGIC);
    assert_non_null(strstr(why, "format version"));
  }
  assert_true(npy_has_magic("\x93NUMPY", 6));
  assert_false(npy_has_magic("\x93NUMP", 5));
}

static void test_truncated_everywhere(void **state) {
  (void)state;
  for (int version = 1; version <= 3; version++) {
    char name[32];
    if (version == 1)
      snprintf(name, sizeof name, "f8_2x3.npy");
    else
      snprintf(name, sizeof name, "f8_2x3_v%d.npy", version);
    size_t size;
    unsigned char *file = read_all(fixture(name), &size);
    for (size_t cut = 0; cut < size; cut++) {
      char why[512] = "";
      onyx_tensor t;
      npy_status st = npy_decode(file, cut, &t, why, sizeof why);
      npy_status want = cut < NPY_MAGIC_LEN ? NPY_BAD_MAGIC : NPY_TRUNCATED;
      if (st != want)
        fail_msg("%s cut at %zu: status %d, expected %d (%s)", name, cut, st, want, why);
      assert_null(t.data);
    }
    char why[512];
    onyx_tensor t;
    assert_int_equal(npy_decode(file, size - 1, &t, why, sizeof why), NPY_TRUNCATED);
    assert_non_null(strstr(why, "the data is truncated: 47 bytes, shape [2, 3] of '<f8' needs 48"));
    free(file);
  }
}

static void test_extra_bytes(void **state) {
  (void)state;
  size_t size;
  unsigned char *file = read_all(fixture("i2_5.npy"), &size);
  unsigned char *longer = malloc(size + 3);
  assert_non_null(longer);
  memcpy(longer, file, size);
  memset(longer + size, 0, 3);
  char why[512];
  onyx_tensor t;
  assert_int_equal(npy_decode(longer, size + 3, &t, why, sizeof why), NPY_SIZE);
  assert_non_null(strstr(why, "3 bytes after the data"));
  free(longer);
  free(file);
}

static void test_header_grammar_accepted(void **state) {
  (void)state;
  /* Python literal forms numpy's reader accepts and onyx does too. */
  expect_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n", 24, NPY_OK, NULL);
  expect_header("{'shape': (2,3,), 'descr': \"<f4\", 'fortran_order': False}\n", 24, NPY_OK, NULL);
  expect_header("  {\n 'descr' : '<i8' ,\n 'fortran_order' : False ,\n 'shape' : ( 3 , ) }\t \n",
                24, NPY_OK, NULL);
  expect_header("{'descr': '|u1', 'fortran_order': False, 'shape': ()}\n", 1, NPY_OK, NULL);
  expect_header("{'descr': '|u1', 'fortran_order': False, 'shape': (0, 5)}   \n", 0, NPY_OK, NULL);
}

static void test_header_grammar_refused(void **state) {
  (void)state;
  static const struct {
    const char *header;
    const char *message;
  } cases[] = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", "newline"},
      {"", "newline"},
      {"\n", "expected '{'"},
      {"[1, 2]\n", "expected '{'"},
      {"{'descr': '<f4', 'fortran_order': False}\n", "missing key 'shape'"},
      {"{'descr': '<f4', 'shape': (2,)}\n", "missing key 'fortran_order'"},
      {"{'fortran_order': False, 'shape': (2,)}\n", "missing key 'descr'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}\n", "unknown key 'x'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}\n",
       "appears twice"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}\n", "True or False"},
      {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,)}\n", "True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2)}\n", "(N,)"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}\n", "negative"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (02,)}\n", "leading zero"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2.0,)}\n", "expected ',' or ')'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1_0,)}\n", "not a decimal"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2L,)}\n", "not a decimal"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2]}\n", "must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}\n", "expected ',' or ')'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (,)}\n", "expected a dimension"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}\n", "too large"},
      {"{'descr': 5, 'fortran_order': False, 'shape': (2,)}\n", "quoted string"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}\n", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)\n", "expected ',' or '}'"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}\n", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x\n", "text after"},
      {"{'descr': '<\\f4', 'fortran_order': False, 'shape': (2,)}\n", "unsupported character"},
      {"{'descr': '<f4\n', 'fortran_order': False, 'shape': (2,)}\n", "unsupported character"},
      {"{'descr: '<f4'}\n", "expected ':'"},
      {"{descr: '<f4'}\n", "expected a quoted string"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", "newline"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ,}\n", "expected a quoted"},
      {"{'descr': 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'fortran_order': False, "
       "'shape': (2,)}\n",
       "too long"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}\n\x01\n", "text after"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    expect_header(cases[i].header, 8, NPY_BAD_HEADER, cases[i].message);
}

static void test_types_refused(void **state) {
  (void)state;
  static const struct {
    const char *header;
    const char *message;
  } cases[] = {
      {"{'descr': '|O', 'fortran_order': False, 'shape': (1,)}\n", "object arrays"},
      {"{'descr': 'O', 'fortran_order': False, 'shape': (1,)}\n", "object arrays"},
      {"{'descr': '|b1', 'fortran_order': False, 'shape': (2,)}\n", "'|b1' is not supported"},
      {"{'descr': '=f4', 'fortran_order': False, 'shape': (2,)}\n", "'=f4' is not supported"},
      {"{'descr': '<f16', 'fortran_order': False, 'shape': (2,)}\n", "is not supported"},
      {"{'descr': '<c16', 'fortran_order': False, 'shape': (2,)}\n", "is not supported"},
      {"{'descr': '', 'fortran_order': False, 'shape': (2,)}\n", "'' is not supported"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}\n", "structured"},
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (2,)}\n", "Fortran-order"},
      {"{'descr': '<f4', 'fortran_order': False, "
       "'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)}\n",
       "more than 16 dimensions"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    expect_header(cases[i].header, 8, NPY_UNSUPPORTED, cases[i].message);
  /* Rank 16 is the limit, and fine. */
  expect_header(
      "{'descr': '<f4', 'fortran_order': False, "
      "'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2)}\n",
      8, NPY_OK, NULL);
}

static void test_sizes(void **state) {
  (void)state;
  expect_header("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}\n", 0,
                NPY_SIZE, "too many elements");
  expect_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,)}\n", 0,
                NPY_SIZE, "too many elements");
  /* At most 2^40 elements, counting the non-zero dimensions of an empty
   * array too: a zero may not hide a huge dimension. */
  expect_header("{'descr': '|u1', 'fortran_order': False, 'shape': (9223372036854775807, 0)}\n", 0,
                NPY_SIZE, "shape [9223372036854775807, 0] has too many elements");
  expect_header("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 1048576, 1048577)}\n", 0,
                NPY_SIZE, "at most 2^40");
  expect_header("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 1048576, 1048576)}\n", 0,
                NPY_OK, NULL);
  expect_header("{'descr': '|u1', 'fortran_order': False, 'shape': (1099511627776, 0)}\n", 0,
                NPY_OK, NULL);
  expect_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}\n", 8, NPY_TRUNCATED,
                "8 bytes, shape [3] of '<f4' needs 12");
  expect_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}\n", 8, NPY_SIZE,
                "4 bytes after the data");
  expect_header("{'descr': '<f4', 'fortran_order': False, 'shape': (0,)}\n", 1, NPY_SIZE,
                "1 bytes after the data");
  expect_header("{'descr': '<f4', 'fortran_order': False, 'shape': ()}\n", 0, NPY_TRUNCATED,
                "needs 4");
}

/* ---- Writing ------------------------------------------------------------ */

static void test_encode(void **state) {
  (void)state;
  char why[512];
  void *bytes;
  size_t size;
  uint16_t bits[3] = {0x3f80, 0xbf80, 0x7fc0};
  onyx_tensor t = {ONYX_DTYPE_BFLOAT16, 1, {3}, bits, sizeof bits};
  assert_int_equal(npy_encode(&t, &bytes, &size, why, sizeof why), NPY_OK);
  assert_true(contains(bytes, size, "'descr': '<u2'"));
  assert_int_equal(size % 64, sizeof bits % 64); /* the data starts 64-aligned */
  onyx_tensor back;
  assert_int_equal(npy_decode(bytes, size, &back, why, sizeof why), NPY_OK);
  assert_int_equal(back.dtype, ONYX_DTYPE_UINT16);
  assert_memory_equal(back.data, bits, sizeof bits);
  free(back.data);
  free(bytes);

  t.size = 4; /* smaller than the shape needs */
  assert_int_equal(npy_encode(&t, &bytes, &size, why, sizeof why), NPY_SIZE);
  assert_null(bytes);
  t.size = sizeof bits;
  t.data = NULL;
  assert_int_equal(npy_encode(&t, &bytes, &size, why, sizeof why), NPY_SIZE);
  t.data = bits;
  t.dtype = ONYX_DTYPE_UNDEFINED;
  assert_int_equal(npy_encode(&t, &bytes, &size, why, sizeof why), NPY_UNSUPPORTED);
  t.dtype = ONYX_DTYPE_FLOAT16;
  t.dims[0] = -1;
  assert_int_equal(npy_encode(&t, &bytes, &size, why, sizeof why), NPY_SIZE);
  t.dims[0] = 3;
  t.rank = ONYX_MAX_RANK + 1;
  assert_int_equal(npy_encode(&t, &bytes, &size, why, sizeof why), NPY_UNSUPPORTED);

  /* Rank 16 with the largest dimension allowed, in an empty array. */
  onyx_tensor big = {ONYX_DTYPE_UINT64, ONYX_MAX_RANK, {0}, NULL, 0};
  for (int d = 0; d < ONYX_MAX_RANK; d++) big.dims[d] = d == 0 ? (int64_t)NPY_MAX_ELEMENTS : 0;
  assert_int_equal(npy_encode(&big, &bytes, &size, why, sizeof why), NPY_OK);
  assert_int_equal(npy_decode(bytes, size, &back, why, sizeof why), NPY_OK);
  assert_int_equal(back.rank, ONYX_MAX_RANK);
  assert_int_equal(back.dims[0], (int64_t)NPY_MAX_ELEMENTS);
  free(bytes);
  /* One more, or a huge dimension beside the zero, is refused both ways. */
  big.dims[0] = (int64_t)NPY_MAX_ELEMENTS + 1;
  assert_int_equal(npy_encode(&big, &bytes, &size, why, sizeof why), NPY_SIZE);
  big.dims[0] = INT64_MAX;
  assert_int_equal(npy_encode(&big, &bytes, &size, why, sizeof why), NPY_SIZE);

  assert_string_equal(npy_descr(ONYX_DTYPE_BFLOAT16), "<u2");
  assert_string_equal(npy_descr(ONYX_DTYPE_INT8), "|i1");
  assert_null(npy_descr(ONYX_DTYPE_UNDEFINED));
}

static void test_files(void **state) {
  (void)state;
  char why[512], path[4096];
  onyx_tensor t;
  assert_int_equal(npy_load_file(fixture("no_such_file.npy"), &t, why, sizeof why), NPY_IO);
  assert_non_null(strstr(why, "cannot open"));
  double v[2] = {1.5, -2.5};
  onyx_tensor d = {ONYX_DTYPE_DOUBLE, 1, {2}, v, sizeof v};
  assert_int_equal(npy_save_file(fixture("no_such_folder/x.npy"), &d, why, sizeof why), NPY_IO);
  snprintf(path, sizeof path, "%s/written_by_test.npy", ONYX_NPY_FIXTURES);
  assert_int_equal(npy_save_file(path, &d, why, sizeof why), NPY_OK);
  assert_int_equal(npy_load_file(path, &t, why, sizeof why), NPY_OK);
  assert_int_equal(t.dtype, ONYX_DTYPE_DOUBLE);
  assert_memory_equal(t.data, v, sizeof v);
  free(t.data);
  remove(path);
}

/* Writes size bytes to a new file in the fixtures folder; returns its path. */
static const char *write_temp(const char *name, const void *bytes, size_t size) {
  static char path[4096];
  snprintf(path, sizeof path, "%s/%s", ONYX_NPY_FIXTURES, name);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, size, f), size);
  assert_int_equal(fclose(f), 0);
  return path;
}

/* The file reader reads the header and data straight from the file; it
 * must give the status and message that npy_decode gives on the same bytes,
 * at every length and with extra bytes. */
static void test_file_matches_memory(void **state) {
  (void)state;
  for (int version = 1; version <= 3; version++) {
    char name[32];
    snprintf(name, sizeof name, version == 1 ? "f8_2x3.npy" : "f8_2x3_v%d.npy", version);
    size_t size;
    unsigned char *file = read_all(fixture(name), &size);
    unsigned char *longer = malloc(size + 3);
    assert_non_null(longer);
    memcpy(longer, file, size);
    memset(longer + size, 0, 3);
    for (size_t cut = 0; cut <= size + 3; cut++) {
      char why_mem[512] = "", why_file[512] = "";
      onyx_tensor a, b;
      npy_status st_mem = npy_decode(longer, cut, &a, why_mem, sizeof why_mem);
      const char *path = write_temp("cut_by_test.npy", longer, cut);
      npy_status st_file = npy_load_file(path, &b, why_file, sizeof why_file);
      if (st_mem != st_file || (st_mem != NPY_OK && strcmp(why_mem, why_file) != 0))
        fail_msg("%s cut at %zu: memory %d '%s', file %d '%s'", name, cut, st_mem, why_mem, st_file,
                 why_file);
      if (st_mem == NPY_OK) {
        assert_int_equal(a.size, b.size);
        assert_memory_equal(a.data, b.data, a.size);
        assert_memory_equal(a.dims, b.dims, sizeof a.dims);
      }
      free(a.data);
      free(b.data);
      remove(path);
    }
    free(longer);
    free(file);
  }
}

/* Like the .pb reader, the .npy reader refuses what is not a regular file
 * at once: a link to /dev/zero would otherwise be read until memory runs
 * out, and a FIFO without a writer would block the open forever. */
static void test_not_regular_file(void **state) {
  (void)state;
  char why[512], path[4096];
  onyx_tensor t;
  snprintf(path, sizeof path, "%s/zero_by_test.npy", ONYX_NPY_FIXTURES);
  remove(path);
  assert_int_equal(symlink("/dev/zero", path), 0);
  assert_int_equal(npy_load_file(path, &t, why, sizeof why), NPY_IO);
  assert_string_equal(why, "not a regular file");
  assert_null(t.data);
  remove(path);
  snprintf(path, sizeof path, "%s/fifo_by_test.npy", ONYX_NPY_FIXTURES);
  remove(path);
  assert_int_equal(mkfifo(path, 0600), 0);
  assert_int_equal(npy_load_file(path, &t, why, sizeof why), NPY_IO);
  assert_string_equal(why, "not a regular file");
  remove(path);
  assert_int_equal(npy_load_file(ONYX_NPY_FIXTURES, &t, why, sizeof why), NPY_IO);
  assert_string_equal(why, "is a folder, not a file");
}

/* The header is read with a bounded buffer: a version 2.0 header length of
 * up to 4 GiB is refused before anything of that size is allocated, in
 * memory and in files alike. */
static void test_header_length_bounded(void **state) {
  (void)state;
  size_t hlen = (size_t)NPY_MAX_HEADER + 1;
  size_t size = 12 + hlen;
  unsigned char *b = malloc(size);
  assert_non_null(b);
  memcpy(b, "\x93NUMPY\x02\x00", 8);
  for (int i = 0; i < 4; i++) b[8 + i] = (unsigned char)(hlen >> (8 * i));
  memset(b + 12, ' ', hlen);
  b[size - 1] = '\n';
  char why[512];
  onyx_tensor t;
  assert_int_equal(npy_decode(b, size, &t, why, sizeof why), NPY_BAD_HEADER);
  assert_non_null(strstr(why, "header of 65537 bytes: onyx reads at most 65536"));
  const char *path = write_temp("long_header_by_test.npy", b, size);
  assert_int_equal(npy_load_file(path, &t, why, sizeof why), NPY_BAD_HEADER);
  assert_non_null(strstr(why, "header of 65537 bytes: onyx reads at most 65536"));
  remove(path);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_numpy_files_round_trip),
      cmocka_unit_test(test_numpy_versions_2_and_3),
      cmocka_unit_test(test_numpy_files_refused),
      cmocka_unit_test(test_big_endian_read),
      cmocka_unit_test(test_magic_and_version),
      cmocka_unit_test(test_truncated_everywhere),
      cmocka_unit_test(test_extra_bytes),
      cmocka_unit_test(test_header_grammar_accepted),
      cmocka_unit_test(test_header_grammar_refused),
      cmocka_unit_test(test_types_refused),
      cmocka_unit_test(test_sizes),
      cmocka_unit_test(test_encode),
      cmocka_unit_test(test_files),
      cmocka_unit_test(test_file_matches_memory),
      cmocka_unit_test(test_not_regular_file),
      cmocka_unit_test(test_header_length_bounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif /* ONYX_NPY_FIXTURES */
