/* SPDX-License-Identifier: MIT */
/*
 * Whether bytes that failed to load are an ONNX model at all. A file given
 * by mistake (text, a numpy .npy file, a TensorProto .pb, an empty file)
 * fails deep in the protobuf reader with a message about wire types; the
 * user needs to hear first that the file is not a model, and the reader's
 * detail after that. Only the first bytes and fields are read, so the cost
 * is bounded whatever the input.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/error.h"
#include "model/model.h"

#ifndef ONYX_OMIT_MESSAGES /* else model.h's no-op: there is no message to prefix */

enum { TEXT_BYTES = 512, SNIFF_FIELDS = 8 };
enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2, WIRE_I32 = 5 };

/* Printable ASCII, whitespace or UTF-8 bytes, and no NUL, at the start. */
static bool looks_like_text(const uint8_t *b, size_t n) {
  if (n > TEXT_BYTES) n = TEXT_BYTES;
  for (size_t i = 0; i < n; i++) {
    uint8_t c = b[i];
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return false;
    if (c == 0x7f) return false;
  }
  return true;
}

/* Reads a varint at b[*at..n); false when truncated or over 10 bytes. */
static bool read_varint(const uint8_t *b, size_t n, size_t *at, uint64_t *v) {
  *v = 0;
  for (unsigned shift = 0; shift < 70 && *at < n; shift += 7) {
    uint8_t c = b[(*at)++];
    *v |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) return true;
  }
  return false;
}

/* Whether (field, wire) is a ModelProto field with its own wire type. */
static bool model_field(uint64_t field, unsigned wire) {
  if (field == 1 || field == 5) return wire == WIRE_VARINT; /* ir_version, model_version */
  if ((field >= 2 && field <= 4) || (field >= 6 && field <= 8) || field == 14 || field == 20 ||
      field == 25)
    return wire == WIRE_LEN; /* strings, graph, opsets, metadata, training, functions */
  return false;
}

/* Whether (field, wire) is a TensorProto field that no ModelProto has:
 * packed dims, data_type as a varint, raw_data. */
static bool tensor_field(uint64_t field, unsigned wire) {
  return (field == 1 && wire == WIRE_LEN) || (field == 2 && wire == WIRE_VARINT) ||
         (field == 9 && wire == WIRE_LEN);
}

/* Skips a field's value; false when it runs past the end. */
static bool skip_value(const uint8_t *b, size_t n, size_t *at, unsigned wire) {
  uint64_t len;
  switch (wire) {
    case WIRE_VARINT:
      return read_varint(b, n, at, &len);
    case WIRE_I64:
      len = 8;
      break;
    case WIRE_I32:
      len = 4;
      break;
    case WIRE_LEN:
      if (!read_varint(b, n, at, &len)) return false;
      break;
    default:
      return false;
  }
  if (len > n - *at) return false;
  *at += (size_t)len;
  return true;
}

/* What the bytes look like when they are not a ModelProto, or NULL when
 * their first field is one of a ModelProto's and no TensorProto field
 * follows among the first few. */
static const char *what_instead(const uint8_t *b, size_t n) {
  if (n == 0) return "";
  if (n >= 6 && memcmp(b, "\x93NUMPY", 6) == 0) return "it is a numpy .npy file";
  if (looks_like_text(b, n)) return "it looks like text";
  size_t at = 0;
  bool first_is_model = false;
  for (int k = 0; k < SNIFF_FIELDS && at < n; k++) {
    uint64_t tag;
    if (!read_varint(b, n, &at, &tag)) break;
    unsigned wire = (unsigned)(tag & 7);
    if (tensor_field(tag >> 3, wire)) return "it looks like a TensorProto, a .pb tensor";
    if (k == 0) first_is_model = model_field(tag >> 3, wire);
    if (!skip_value(b, n, &at, wire)) break;
  }
  return first_is_model ? NULL : "it does not start with a ModelProto field";
}

void onyx__sniff_model(const uint8_t *bytes, size_t size, onyx_error *err) {
  if (err == NULL || (bytes == NULL && size != 0)) return;
  if (err->status != ONYX_PARSE && err->status != ONYX_IR_VERSION && err->status != ONYX_OPSET)
    return;
  const char *what = what_instead(bytes, size);
  if (what == NULL) return;
  if (what[0])
    onyx__error_prefix(err, "not an ONNX model (%s)", what);
  else
    onyx__error_prefix(err, "not an ONNX model");
}

#endif
