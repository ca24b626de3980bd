/* SPDX-License-Identifier: MIT */
/*
 * TensorProto decoding and encoding.
 *
 * A tensor's elements come from exactly one source: raw_data, one typed
 * field that belongs to its type, or external data. Everything else (two
 * sources, a typed field of another type, a count that does not match the
 * shape, a value out of the element type's range) is refused, because a
 * runtime that guesses which data was meant computes with the wrong numbers.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "core/alloc.h"
#include "core/byteorder.h"
#include "core/dtype.h"
#include "core/format.h"
#include "core/error.h"
#include "model/model.h"
#include "model/payloads.h"
#include "model/pb.h"
#include "os/compiler.h"
#include "os/os.h"

/* TensorProto field numbers. */
enum {
  T_DIMS = 1,
  T_DATA_TYPE = 2,
  T_SEGMENT = 3,
  T_FLOAT_DATA = 4,
  T_INT32_DATA = 5,
  T_STRING_DATA = 6,
  T_INT64_DATA = 7,
  T_NAME = 8,
  T_RAW_DATA = 9,
  T_DOUBLE_DATA = 10,
  T_UINT64_DATA = 11,
  T_DOC_STRING = 12,
  T_EXTERNAL_DATA = 13,
  T_DATA_LOCATION = 14
};

/* The typed value fields, in one table so that counting, checking and
 * decoding share it. */
enum { TF_FLOAT, TF_INT32, TF_INT64, TF_DOUBLE, TF_UINT64, TF_COUNT };
static const struct {
  uint32_t number;
  uint32_t wire;
  const char *name;
} typed_fields[TF_COUNT] = {
    {T_FLOAT_DATA, ONYX__WIRE_FIXED32, "float_data"},
    {T_INT32_DATA, ONYX__WIRE_VARINT, "int32_data"},
    {T_INT64_DATA, ONYX__WIRE_VARINT, "int64_data"},
    {T_DOUBLE_DATA, ONYX__WIRE_FIXED64, "double_data"},
    {T_UINT64_DATA, ONYX__WIRE_VARINT, "uint64_data"},
};

/* The typed field that may hold elements of type t, as ONNX assigns them. */
static int typed_field_for(onyx_dtype t) {
  switch (t) {
    case ONYX_DTYPE_FLOAT:
      return TF_FLOAT;
    case ONYX_DTYPE_INT8:
    case ONYX_DTYPE_INT16:
    case ONYX_DTYPE_UINT8:
    case ONYX_DTYPE_UINT16:
    case ONYX_DTYPE_INT32:
    case ONYX_DTYPE_FLOAT16:
    case ONYX_DTYPE_BFLOAT16:
      return TF_INT32;
    case ONYX_DTYPE_INT64:
      return TF_INT64;
    case ONYX_DTYPE_DOUBLE:
      return TF_DOUBLE;
    case ONYX_DTYPE_UINT32:
    case ONYX_DTYPE_UINT64:
      return TF_UINT64;
    default:
      return -1;
  }
}

static int64_t as_int64(uint64_t v) {
  int64_t s = 0;
  memcpy(&s, &v, sizeof s);
  return s;
}

/* "[2, 3]", or "[]" for a scalar; truncated to fit. */
static void format_shape(const int64_t *dims, uint32_t rank, char *buf, size_t cap) {
  size_t used = 0;
  int w = onyx__format(buf, cap, "[");
  used = w > 0 ? (size_t)w : 0;
  for (uint32_t i = 0; i < rank && used < cap; i++) {
    w = onyx__format(buf + used, cap - used, "%s%lld", i ? ", " : "", (long long)dims[i]);
    if (w < 0) return;
    used += (size_t)w;
  }
  if (used < cap) onyx__format(buf + used, cap - used, "]");
}

onyx_status onyx__shape_count(const int64_t *dims, uint32_t rank, size_t *count, onyx_error *err) {
  if (rank > ONYX_MAX_RANK) {
    return onyx__fail(err, ONYX_LIMIT, "rank %u exceeds the limit of %d", (unsigned)rank,
                      ONYX_MAX_RANK);
  }
  uint64_t c = 1;
  const uint64_t max = (uint64_t)ONYX__MAX_ELEMENTS;
  for (uint32_t i = 0; i < rank; i++) {
    if (dims[i] < 0) {
      return onyx__fail(err, ONYX_SHAPE, "dimension %u is %lld; dimensions must be >= 0",
                        (unsigned)i, (long long)dims[i]);
    }
    /* Each dimension is bounded on its own too, so that a zero elsewhere in
     * the shape cannot hide a dimension no stride computation can hold. */
    uint64_t d = (uint64_t)dims[i];
    /* No division (it is on every run's path, and a 64-bit division costs
     * more than the rest of the check) and no overflow-checked multiply
     * (a 128-bit product, libgcc's __multi3 on 32-bit targets and wasm):
     * c and d are at most 2^40, so when one is under 2^24 their product
     * fits 64 bits, and when neither is it is at least 2^48, over max. */
    _Static_assert(ONYX__MAX_ELEMENTS <= (INT64_C(1) << 40), "c * d must fit 64 bits");
    uint64_t p = c * d;
    bool both_large = c >= (UINT64_C(1) << 24) && d >= (UINT64_C(1) << 24);
    if (d > max || both_large || p > max) {
      char shape[400];
      format_shape(dims, rank, shape, sizeof shape);
      return onyx__fail(err, ONYX_LIMIT, "shape %s has more than %lld elements", shape,
                        (long long)ONYX__MAX_ELEMENTS);
    }
    c = p;
  }
  if (c > SIZE_MAX) {
    return onyx__fail(err, ONYX_LIMIT, "%llu elements do not fit in memory on this machine",
                      (unsigned long long)c);
  }
  *count = (size_t)c;
  return ONYX_OK;
}

#ifndef ONYX_OMIT_FILES /* external data needs files */
/* Parses a non-negative decimal integer with no sign, space or suffix. */
static bool parse_decimal(const char *s, uint64_t *v) {
  if (*s == '\0') return false;
  uint64_t x = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return false;
    unsigned d = (unsigned)(*s - '0');
    /* x * 10 + d <= UINT64_MAX, in constants: a 32-bit target has no
     * 64-bit divide, and (UINT64_MAX - d) / 10 linked libgcc's (702 bytes
     * on Cortex-M3). */
    if (x > UINT64_MAX / 10 || (x == UINT64_MAX / 10 && d > UINT64_MAX % 10)) return false;
    x = x * 10 + d;
  }
  *v = x;
  return true;
}
#endif

onyx_status onyx__check_depth(int depth, size_t offset, onyx_error *err) {
  if (depth > ONYX__MAX_NESTING) {
    return onyx__fail(err, ONYX_LIMIT, "protobuf messages nested more than %d deep at byte %zu",
                      ONYX__MAX_NESTING, offset);
  }
  return ONYX_OK;
}

onyx_status onyx__copy_string(onyx__arena *arena, const onyx__pb_field *f, const char *what,
                              const char **out, onyx_error *err) {
  if (f->wire != ONYX__WIRE_LEN) return onyx__pb_wire_error(f, what, ONYX__WIRE_LEN, err);
  /* A loop rather than memchr: names are short, and a firmware then links
   * no memchr (newlib's is 150 bytes on Cortex-M3, wasi-libc's 372). */
  size_t nul = 0;
  while (nul < f->len && f->data[nul] != 0) nul++;
  if (nul < f->len) {
    return onyx__fail(err, ONYX_PARSE, "%s contains a NUL byte (field at byte %zu)", what,
                      f->offset);
  }
  char *s = onyx__arena_strndup(arena, (const char *)f->data, f->len);
  if (s == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory copying %s", what);
  *out = s;
  return ONYX_OK;
}

#ifndef ONYX_OMIT_FILES
/* The external_data entries of a tensor. */
typedef struct ext_info {
  const char *location;
  bool has_offset, has_length;
  uint64_t offset, length;
} ext_info;

static onyx_status decode_ext_entry(const onyx__pb *r, const onyx__pb_field *f, onyx__arena *arena,
                                    int depth, ext_info *x, bool *seen, onyx_error *err) {
  ONYX__TRY(onyx__check_depth(depth, f->offset, err));
  onyx__pb e = onyx__pb_sub(r, f);
  onyx__pb_field key = {0}, value = {0};
  bool has_key = false, has_value = false;
  while (!onyx__pb_done(&e)) {
    onyx__pb_field g;
    ONYX__TRY(onyx__pb_next(&e, &g, err));
    if (g.number == 1 || g.number == 2) {
      if (g.wire != ONYX__WIRE_LEN) {
        return onyx__pb_wire_error(&g, g.number == 1 ? "key" : "value", ONYX__WIRE_LEN, err);
      }
      if (g.number == 1) {
        key = g;
        has_key = true;
      } else {
        value = g;
        has_value = true;
      }
    }
  }
  const char *k = "", *v = "";
  if (has_key) ONYX__TRY(onyx__copy_string(arena, &key, "external_data key", &k, err));
  if (has_value) ONYX__TRY(onyx__copy_string(arena, &value, "external_data value", &v, err));
  static const char *const keys[] = {"location", "offset", "length", "checksum"};
  for (int i = 0; i < 4; i++) {
    if (strcmp(k, keys[i]) != 0) continue;
    if (seen[i]) {
      return onyx__fail(err, ONYX_EXTERNAL_DATA, "external_data key '%s' appears twice", k);
    }
    seen[i] = true;
    if (i == 0) {
      x->location = v;
    } else if (i == 1 || i == 2) {
      uint64_t n = 0;
      if (!parse_decimal(v, &n)) {
        return onyx__fail(err, ONYX_EXTERNAL_DATA,
                          "external_data %s '%.64s' is not a non-negative decimal integer", k, v);
      }
      if (i == 1) {
        x->offset = n;
        x->has_offset = true;
      } else {
        x->length = n;
        x->has_length = true;
      }
    }
    /* The checksum is informational; onyx does not verify it. Other keys
     * are ignored, as ONNX itself does. */
  }
  return ONYX_OK;
}
#endif

/* The range of the int32_data values of type t. */
static void int32_data_range(onyx_dtype t, int64_t *lo, int64_t *hi) {
  switch (t) {
    case ONYX_DTYPE_INT8:
      *lo = INT8_MIN, *hi = INT8_MAX;
      return;
    case ONYX_DTYPE_UINT8:
      *lo = 0, *hi = UINT8_MAX;
      return;
    case ONYX_DTYPE_INT16:
      *lo = INT16_MIN, *hi = INT16_MAX;
      return;
    case ONYX_DTYPE_INT32:
      *lo = INT32_MIN, *hi = INT32_MAX;
      return;
    default: /* uint16, and the bit patterns of float16 and bfloat16 */
      *lo = 0, *hi = UINT16_MAX;
      return;
  }
}

/* Stores int32_data value v as element i of type t. int32 values are sent
 * sign-extended to 64 bits; anything that is not a sign-extended value in
 * the type's range is refused rather than truncated. */
static onyx_status store_int32_data(onyx_dtype t, int64_t v, uint8_t *dst, size_t i,
                                    onyx_error *err) {
  int64_t lo, hi;
  int32_data_range(t, &lo, &hi);
  if (v < lo || v > hi) {
    return onyx__fail(err, ONYX_TENSOR_DATA,
                      "int32_data value %lld (index %zu) is out of range for %s", (long long)v, i,
                      onyx_dtype_name(t));
  }
  /* Conversion to an unsigned type keeps the two's complement bits. */
  switch (onyx_dtype_size(t)) {
    case 4: {
      int32_t x = (int32_t)v;
      memcpy(dst + 4 * i, &x, 4);
      break;
    }
    case 2: {
      uint16_t x = (uint16_t)v;
      memcpy(dst + 2 * i, &x, 2);
      break;
    }
    default:
      dst[i] = (uint8_t)v;
      break;
  }
  return ONYX_OK;
}

/* The types whose elements each typed field holds. A reduced build keeps
 * the decoding of a field only when it keeps one of them (config.h's
 * ONYX_TENSOR_TYPES: check_header refused any other type already). */
#define TF_INT32_TYPES                                                                       \
  (ONYX__DM(INT8) | ONYX__DM(INT16) | ONYX__DM(UINT8) | ONYX__DM(UINT16) | ONYX__DM(INT32) | \
   ONYX__DM(FLOAT16) | ONYX__DM(BFLOAT16))
#define TF_UINT64_TYPES (ONYX__DM(UINT32) | ONYX__DM(UINT64))

/* Decodes one value of a typed field into element i of dst. */
static onyx_status store_typed(int tf, onyx_dtype t, onyx__pb *vals, uint8_t *dst, size_t i,
                               onyx_error *err) {
  if ((tf == TF_FLOAT && !ONYX__KEEPS_TENSOR(ONYX__DM(FLOAT))) ||
      (tf == TF_DOUBLE && !ONYX__KEEPS_TENSOR(ONYX__DM(DOUBLE))) ||
      (tf == TF_INT64 && !ONYX__KEEPS_TENSOR(ONYX__DM(INT64))) ||
      (tf == TF_UINT64 && !ONYX__KEEPS_TENSOR(TF_UINT64_TYPES)) ||
      (tf == TF_INT32 && !ONYX__KEEPS_TENSOR(TF_INT32_TYPES)))
    return onyx__fail(err, ONYX_INTERNAL, "typed field %d of a type left out", tf);
  switch (tf) {
    case TF_FLOAT: {
      uint32_t bits = 0;
      ONYX__TRY(onyx__pb_fixed32(vals, &bits, err));
      memcpy(dst + 4 * i, &bits, 4); /* bit for bit, NaN payloads included */
      return ONYX_OK;
    }
    case TF_DOUBLE: {
      uint64_t bits = 0;
      ONYX__TRY(onyx__pb_fixed64(vals, &bits, err));
      memcpy(dst + 8 * i, &bits, 8);
      return ONYX_OK;
    }
    case TF_INT64: {
      uint64_t v = 0;
      ONYX__TRY(onyx__pb_varint(vals, &v, err));
      int64_t s = as_int64(v);
      memcpy(dst + 8 * i, &s, 8);
      return ONYX_OK;
    }
    case TF_UINT64: {
      uint64_t v = 0;
      ONYX__TRY(onyx__pb_varint(vals, &v, err));
      if (t == ONYX_DTYPE_UINT64) {
        memcpy(dst + 8 * i, &v, 8);
        return ONYX_OK;
      }
      if (v > UINT32_MAX) {
        return onyx__fail(err, ONYX_TENSOR_DATA,
                          "uint64_data value %llu (index %zu) is out of range for uint32",
                          (unsigned long long)v, i);
      }
      uint32_t u = (uint32_t)v;
      memcpy(dst + 4 * i, &u, 4);
      return ONYX_OK;
    }
    default: { /* TF_INT32 */
      uint64_t raw = 0;
      ONYX__TRY(onyx__pb_varint(vals, &raw, err));
      return store_int32_data(t, as_int64(raw), dst, i, err);
    }
  }
}

/* What one pass over a TensorProto found: the scalar fields, the shape,
 * and which data fields appear (their values are read later, if at all). */
typedef struct scan {
  int64_t data_type;
  uint64_t location;
  bool has_name, has_raw, has_segment, has_strings;
  onyx__pb_field name_f, raw_f;
  size_t typed_count[TF_COUNT];
  bool typed_seen[TF_COUNT];
  size_t n_ext;
  size_t rank;
  int64_t dims[ONYX_MAX_RANK];
} scan;

static onyx_status scan_dims(const onyx__pb *r, const onyx__pb_field *f, scan *sc,
                             onyx_error *err) {
  onyx__pb vals = {0};
  size_t n = 0;
  ONYX__TRY(onyx__pb_values(r, f, ONYX__WIRE_VARINT, "dims", &vals, &n, err));
  for (size_t i = 0; i < n; i++) {
    uint64_t v = 0;
    ONYX__TRY(onyx__pb_varint(&vals, &v, err));
    if (sc->rank < ONYX_MAX_RANK) sc->dims[sc->rank] = as_int64(v);
    sc->rank++;
  }
  return ONYX_OK;
}

/* Counts the values of a typed field, if f is one. */
static onyx_status scan_typed(const onyx__pb *r, const onyx__pb_field *f, scan *sc,
                              onyx_error *err) {
  for (int k = 0; k < TF_COUNT; k++) {
    if (f->number != typed_fields[k].number) continue;
    onyx__pb vals = {0};
    size_t n = 0;
    ONYX__TRY(onyx__pb_values(r, f, typed_fields[k].wire, typed_fields[k].name, &vals, &n, err));
    sc->typed_count[k] += n;
    sc->typed_seen[k] = true;
  }
  return ONYX_OK; /* unknown fields were skipped by onyx__pb_next */
}

/* The field's expected wire type and name, for the fields scan_field
 * reads; 0 and NULL for the others. */
static const char *scan_wire(uint32_t number, uint32_t *wire) {
  static const struct {
    uint32_t number, wire;
    const char *name;
  } known[] = {
      {T_DATA_TYPE, ONYX__WIRE_VARINT, "data_type"},
      {T_SEGMENT, ONYX__WIRE_LEN, "segment"},
      {T_STRING_DATA, ONYX__WIRE_LEN, "string_data"},
      {T_NAME, ONYX__WIRE_LEN, "name"},
      {T_RAW_DATA, ONYX__WIRE_LEN, "raw_data"},
      {T_DOC_STRING, ONYX__WIRE_LEN, "doc_string"},
      {T_EXTERNAL_DATA, ONYX__WIRE_LEN, "external_data"},
      {T_DATA_LOCATION, ONYX__WIRE_VARINT, "data_location"},
  };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
    if (known[i].number != number) continue;
    *wire = known[i].wire;
    return known[i].name;
  }
  return NULL;
}

static onyx_status scan_field(const onyx__pb *r, const onyx__pb_field *f, scan *sc,
                              onyx_error *err) {
  if (f->number == T_DIMS) return scan_dims(r, f, sc, err);
  uint32_t wire = 0;
  const char *name = scan_wire(f->number, &wire);
  if (name == NULL) return scan_typed(r, f, sc, err);
  if (f->wire != wire) return onyx__pb_wire_error(f, name, wire, err);
  switch (f->number) {
    case T_DATA_TYPE:
      sc->data_type = as_int64(f->u);
      break;
    case T_SEGMENT:
      sc->has_segment = true;
      break;
    case T_STRING_DATA:
      sc->has_strings = true;
      break;
    case T_NAME:
      sc->name_f = *f;
      sc->has_name = true;
      break;
    case T_RAW_DATA:
      sc->raw_f = *f; /* an optional field seen twice: the last one wins */
      sc->has_raw = true;
      break;
    case T_EXTERNAL_DATA:
      sc->n_ext++;
      break;
    case T_DATA_LOCATION:
      sc->location = f->u;
      break;
    default: /* doc_string: checked, not kept */
      break;
  }
  return ONYX_OK;
}

static onyx_status scan_tensor(onyx__pb *r, scan *sc, onyx_error *err) {
  memset(sc, 0, sizeof *sc);
  while (!onyx__pb_done(r)) {
    onyx__pb_field f;
    ONYX__TRY(onyx__pb_next(r, &f, err));
    ONYX__TRY(scan_field(r, &f, sc, err));
  }
  return ONYX_OK;
}

/* The element type, shape and sizes into out; *nbytes is the payload size. */
static onyx_status check_header(const scan *sc, onyx__tensor *out, size_t *nbytes,
                                onyx_error *err) {
  int64_t data_type = sc->data_type;
  if (data_type == 0) return onyx__fail(err, ONYX_TYPE, "the tensor has no data_type");
  if (data_type < 0 || data_type > INT32_MAX || !onyx__dtype_known((int)data_type)) {
    return onyx__fail(err, ONYX_TYPE, "data_type %lld (%s) is not supported", (long long)data_type,
                      onyx__onnx_type_name(data_type));
  }
  out->dtype = (onyx_dtype)data_type;
  ONYX__TRY(onyx__config_check_tensor_type(out->dtype, err)); /* a reduced build's */
  if (sc->rank > ONYX_MAX_RANK) {
    return onyx__fail(err, ONYX_LIMIT, "rank %zu exceeds the limit of %d", sc->rank, ONYX_MAX_RANK);
  }
  out->rank = (uint32_t)sc->rank;
  memcpy(out->dims, sc->dims, sc->rank * sizeof sc->dims[0]);
  ONYX__TRY(onyx__shape_count(out->dims, out->rank, &out->count, err));
  if (!onyx__mul_size(out->count, onyx_dtype_size(out->dtype), nbytes)) {
    return onyx__fail(err, ONYX_LIMIT, "the tensor's byte size overflows");
  }
  return ONYX_OK;
}

/* Exactly one source of data, and one that belongs to the type; *want is
 * the typed field the type may use. */
static onyx_status check_sources(const scan *sc, onyx_dtype dtype, int *want, onyx_error *err) {
  if (sc->has_segment) {
    return onyx__fail(err, ONYX_TENSOR_DATA, "segmented tensors (field segment) are not supported");
  }
  if (sc->location > 1) {
    return onyx__fail(err, ONYX_TENSOR_DATA, "data_location %llu is unknown",
                      (unsigned long long)sc->location);
  }
  const char *sources[TF_COUNT + 3];
  int n_sources = 0;
  if (sc->has_raw) sources[n_sources++] = "raw_data";
  for (int k = 0; k < TF_COUNT; k++) {
    if (sc->typed_seen[k]) sources[n_sources++] = typed_fields[k].name;
  }
  if (sc->has_strings) sources[n_sources++] = "string_data";
  if (sc->location == 1) sources[n_sources++] = "external data";
  if (n_sources > 1) {
    return onyx__fail(err, ONYX_TENSOR_DATA, "the tensor has both %s and %s; expected one source",
                      sources[0], sources[1]);
  }
  if (sc->has_strings) {
    return onyx__fail(err, ONYX_TENSOR_DATA, "string_data cannot hold %s elements",
                      onyx_dtype_name(dtype));
  }
  *want = typed_field_for(dtype);
  if (*want < 0) {
    return onyx__fail(err, ONYX_INTERNAL, "no typed field for %s", onyx_dtype_name(dtype));
  }
  for (int k = 0; k < TF_COUNT; k++) {
    if (sc->typed_seen[k] && k != *want) {
      return onyx__fail(err, ONYX_TENSOR_DATA, "%s cannot hold %s elements; use %s or raw_data",
                        typed_fields[k].name, onyx_dtype_name(dtype), typed_fields[*want].name);
    }
  }
  return ONYX_OK;
}

/* Copies the n bytes of little-endian elements width bytes wide into the
 * arena, in host order. */
static onyx_status copy_payload(onyx__arena *arena, const void *p, size_t n, size_t width,
                                const char *what, const void **out, onyx_error *err) {
  void *copy = onyx__arena_alloc(arena, n);
  if (copy == NULL) {
    return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory copying %zu bytes of %s", n, what);
  }
  memcpy(copy, p, n);
  onyx__le_to_host(copy, n, width);
  *out = copy;
  return ONYX_OK;
}

/*
 * raw_data. Where the bytes outlive the tensor (in_place), the payload is
 * used where it lies at any alignment (kernels read unaligned inputs); only
 * a small unaligned one is copied, so that scalar readers such as Clip's
 * bounds see aligned data. In a file being parsed, a large payload is
 * deferred and a small one copied, so that nothing points into the file's
 * mapping after load. A big-endian host never uses a payload in place: it
 * copies and converts it, since the bytes it lies in are read-only.
 */
static onyx_status decode_raw(const onyx__tensor_src *src, const onyx__pb_field *raw,
                              onyx__tensor *out, onyx_error *err) {
  char shape[400];
  if (raw->len != out->nbytes) {
    format_shape(out->dims, out->rank, shape, sizeof shape);
    return onyx__fail(err, ONYX_TENSOR_DATA, "raw_data has %zu bytes; shape %s of %s needs %zu",
                      raw->len, shape, onyx_dtype_name(out->dtype), out->nbytes);
  }
  if (out->nbytes == 0) return ONYX_OK;
  bool large = out->nbytes >= ONYX__DEFER_MIN;
  size_t width = onyx_dtype_size(out->dtype);
  bool aligned = (uintptr_t)raw->data % width == 0;
  if (src->in_place && (large || aligned) && !onyx__host_big_endian()) {
    out->data = raw->data;
    return ONYX_OK;
  }
#ifndef ONYX_OMIT_FILES /* else nothing is deferred */
  if (!src->in_place && src->deferred != NULL && large) {
    onyx__deferred d = {out, NULL, (uint64_t)(raw->data - src->base), {0}};
    return onyx__payloads_add(src->deferred, &d, err);
  }
#endif
  return copy_payload(src->arena, raw->data, out->nbytes, width, "raw_data", &out->data, err);
}

/* The typed field `want`, across every occurrence in order. */
static onyx_status decode_typed(const onyx__tensor_src *src, const uint8_t *bytes, size_t size,
                                const scan *sc, int want, onyx__tensor *out, onyx_error *err) {
  if (sc->typed_count[want] != out->count) {
    char shape[400];
    format_shape(out->dims, out->rank, shape, sizeof shape);
    return onyx__fail(err, ONYX_TENSOR_DATA, "%s has %zu values; shape %s of %s needs %zu",
                      typed_fields[want].name, sc->typed_count[want], shape,
                      onyx_dtype_name(out->dtype), out->count);
  }
  if (out->count == 0) return ONYX_OK;
  uint8_t *dst = onyx__arena_alloc(src->arena, out->nbytes);
  if (dst == NULL) {
    return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory decoding %s",
                      typed_fields[want].name);
  }
  onyx__pb r;
  onyx__pb_init(&r, src->base, bytes, size);
  size_t i = 0;
  while (!onyx__pb_done(&r)) {
    onyx__pb_field f;
    ONYX__TRY(onyx__pb_next(&r, &f, err));
    if (f.number != typed_fields[want].number) continue;
    onyx__pb vals = {0};
    size_t n = 0;
    ONYX__TRY(
        onyx__pb_values(&r, &f, typed_fields[want].wire, typed_fields[want].name, &vals, &n, err));
    for (size_t j = 0; j < n; j++, i++) {
      ONYX__TRY(store_typed(want, out->dtype, &vals, dst, i, err));
    }
  }
  out->data = dst;
  return ONYX_OK;
}

#ifdef ONYX_OMIT_FILES
/* External data lies in files, which this build leaves out. */
static onyx_status decode_external(const onyx__tensor_src *src, const uint8_t *bytes, size_t size,
                                   int depth, onyx__tensor *out, onyx_error *err) {
  (void)src, (void)bytes, (void)size, (void)depth, (void)out;
  return onyx__fail(err, ONYX_EXTERNAL_DATA,
                    "the tensor uses external data, and files are left out of this build");
}
#else
/* The external_data entries, into *x. */
static onyx_status scan_external(const onyx__tensor_src *src, const uint8_t *bytes, size_t size,
                                 int depth, ext_info *x, onyx_error *err) {
  bool seen[4] = {false};
  onyx__pb r;
  onyx__pb_init(&r, src->base, bytes, size);
  while (!onyx__pb_done(&r)) {
    onyx__pb_field f;
    ONYX__TRY(onyx__pb_next(&r, &f, err));
    if (f.number == T_EXTERNAL_DATA) {
      ONYX__TRY(decode_ext_entry(&r, &f, src->arena, depth + 1, x, seen, err));
    }
  }
  if (x->location == NULL) {
    return onyx__fail(err, ONYX_EXTERNAL_DATA, "external data has no 'location' entry");
  }
  return ONYX_OK;
}

/* External data: checked now; when large in a file being parsed, deferred,
 * or mapped when the model keeps its file mapped (in_place) on a
 * little-endian host; else read into the arena now, and converted to host
 * order. */
static onyx_status decode_external(const onyx__tensor_src *src, const uint8_t *bytes, size_t size,
                                   int depth, onyx__tensor *out, onyx_error *err) {
  if (src->dir == NULL) {
    return onyx__fail(err, ONYX_EXTERNAL_DATA,
                      "the tensor uses external data, which needs the model's folder; a "
                      "model or tensor loaded from memory or a standalone file cannot use it");
  }
  ext_info x = {0};
  ONYX__TRY(scan_external(src, bytes, size, depth, &x, err));
  onyx__os_file file;
  onyx__deferred d = {out, x.location, x.offset, {0}};
  ONYX__TRY(onyx__external_open(src->dir, x.location, x.offset, x.has_length, x.length, out->nbytes,
                                &file, &d.id, err));
  onyx_status st = ONYX_OK;
  bool large = src->deferred != NULL && out->nbytes >= ONYX__DEFER_MIN;
  char what[300];
  onyx__format(what, sizeof what, "external data '%.200s'", x.location);
  if (out->nbytes == 0) {
    /* nothing to read */
  } else if (large && src->in_place && !onyx__host_big_endian()) {
    st = onyx__payloads_map(src->deferred, file, x.offset, out->nbytes, what, &out->data, err);
  } else if (large && !src->in_place) {
    st = onyx__payloads_add(src->deferred, &d, err);
  } else {
    uint8_t *buf = onyx__arena_alloc(src->arena, out->nbytes);
    st = buf == NULL ? onyx__fail(err, ONYX_OUT_OF_MEMORY,
                                  "out of memory reading %zu bytes of external data", out->nbytes)
                     : onyx__pread_full(file, buf, out->nbytes, x.offset, what, err);
    if (st == ONYX_OK) {
      onyx__le_to_host(buf, out->nbytes, onyx_dtype_size(out->dtype));
      out->data = buf;
    }
  }
  (void)onyx__os_file_close(file);
  return st;
}
#endif

onyx_status onyx__tensor_decode_at(const onyx__tensor_src *src, const uint8_t *bytes, size_t size,
                                   int depth, onyx__tensor *out, onyx_error *err) {
  memset(out, 0, sizeof *out);
  onyx__pb r;
  onyx__pb_init(&r, src->base, bytes, size);
  ONYX__TRY(onyx__check_depth(depth, onyx__pb_offset(&r), err));
  scan sc;
  ONYX__TRY(scan_tensor(&r, &sc, err));
  /* The name first, so that every later message can be attributed. */
  out->name = "";
  if (sc.has_name) {
    ONYX__TRY(onyx__copy_string(src->arena, &sc.name_f, "the tensor name", &out->name, err));
  }
  ONYX__TRY(check_header(&sc, out, &out->nbytes, err));
  int want = -1;
  ONYX__TRY(check_sources(&sc, out->dtype, &want, err));
  if (sc.location == 1) return decode_external(src, bytes, size, depth, out, err);
  if (sc.has_raw) return decode_raw(src, &sc.raw_f, out, err);
  if (sc.typed_seen[want]) return decode_typed(src, bytes, size, &sc, want, out, err);
  if (out->count != 0) {
    char shape[400];
    format_shape(out->dims, out->rank, shape, sizeof shape);
    return onyx__fail(err, ONYX_TENSOR_DATA,
                      "the tensor has no data for its %zu elements (shape %s)", out->count, shape);
  }
  return ONYX_OK;
}

onyx_status onyx__tensor_decode(const uint8_t *bytes, size_t size, onyx__arena *arena,
                                const char *dir, int depth, onyx__tensor *out, onyx_error *err) {
  onyx__tensor_src src = {bytes, arena, dir, NULL, true};
  return onyx__tensor_decode_at(&src, bytes, size, depth, out, err);
}

/* ---- Public API ---------------------------------------------------------- */

/*
 * Hands decoded tensor t to the caller as out (and a copy of its name):
 * the payload is copied from t.data, or, when t's payload was deferred
 * (p holds it), read from p's file straight into the caller's buffer.
 */
static onyx_status export_tensor(const onyx__tensor *t, onyx__payloads *p, onyx_tensor *out,
                                 char **name, onyx_error *err) {
  void *data = NULL;
  char *copy = NULL;
  if (t->nbytes > 0 && (data = onyx__malloc(t->nbytes)) == NULL) goto oom;
  if (name != NULL && (copy = onyx__malloc(strlen(t->name) + 1)) == NULL) goto oom;
  if (t->nbytes > 0 && t->data != NULL) memcpy(data, t->data, t->nbytes);
#ifndef ONYX_OMIT_FILES /* else no payload is deferred */
  if (t->nbytes > 0 && t->data == NULL) {
    onyx_status st =
        onyx__pread_full(p->file, data, t->nbytes, p->items[0].offset, "the tensor's data", err);
    if (st != ONYX_OK) {
      onyx__free(data);
      onyx__free(copy);
      return st;
    }
    onyx__le_to_host(data, t->nbytes, onyx_dtype_size(t->dtype));
  }
#else
  (void)p;
#endif
  if (copy != NULL) memcpy(copy, t->name, strlen(t->name) + 1);
  out->dtype = t->dtype;
  out->rank = t->rank;
  memcpy(out->dims, t->dims, sizeof out->dims);
  out->data = data;
  out->size = t->nbytes;
  if (name != NULL) *name = copy;
  return ONYX_OK;
oom:
  onyx__free(data);
  onyx__free(copy);
  return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory copying the tensor");
}

/* Decodes bytes (lying in a file held by p, or in memory when p is NULL)
 * and exports the tensor; messages name the tensor when it has a name. */
static onyx_status decode_export(const uint8_t *bytes, size_t size, onyx__payloads *p,
                                 onyx_tensor *out, char **name, onyx_error *err) {
  onyx__arena arena = {0};
  onyx__tensor t;
  onyx__tensor_src src = {bytes, &arena, NULL, p, p == NULL};
  onyx_status st = onyx__tensor_decode_at(&src, bytes, size, 1, &t, err);
  if (st == ONYX_OK) st = export_tensor(&t, p, out, name, err);
  if (st != ONYX_OK && t.name != NULL && t.name[0] != '\0') {
    onyx__error_prefix(err, "tensor '%.64s'", t.name);
  }
  onyx__arena_free(&arena);
  return st;
}

onyx_status onyx_tensor_decode(const void *bytes, size_t size, onyx_tensor *out, char **name,
                               onyx_error *err) {
  if (name != NULL) *name = NULL;
  if (out == NULL) return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_tensor_decode: out is NULL");
  memset(out, 0, sizeof *out);
  if (bytes == NULL && size != 0) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "onyx_tensor_decode: bytes is NULL but size is %zu", size);
  }
  static const uint8_t empty[1] = {0};
  return decode_export(bytes != NULL ? bytes : empty, size, NULL, out, name, err);
}

/* The header is decoded from a mapping; a payload of ONYX__DEFER_MIN bytes
 * or more is deferred and then read with pread into the caller's buffer,
 * so that loading a tensor holds it once, and a file truncated meanwhile
 * is an error rather than a fault. */
static onyx_status load_tensor_file(const char *path, onyx_tensor *out, char **name,
                                    onyx_error *err) {
#ifdef ONYX_OMIT_FILES
  (void)path, (void)out, (void)name;
  return onyx__fail(
      err, ONYX_IO,
      "files are left out of this build; decode the tensor with onyx_tensor_decode()");
#else
  const uint8_t *bytes = NULL;
  size_t size = 0;
  onyx__os_file file;
  onyx__file_id id;
  ONYX__TRY(onyx__map_file(path, &bytes, &size, &file, &id, err));
  onyx__payloads *p = NULL;
  onyx_status st = onyx__payloads_new(file, &id, NULL, &p, err);
  if (st != ONYX_OK) {
    (void)onyx__os_file_close(file);
  } else {
    st = decode_export(bytes, size, p, out, name, err);
  }
  onyx__unmap_file(bytes, size);
  onyx__payloads_free(p);
  return st;
#endif
}

onyx_status onyx_tensor_load_file(const char *path, onyx_tensor *out, char **name,
                                  onyx_error *err) {
  if (name != NULL) *name = NULL;
  if (path == NULL || out == NULL) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_tensor_load_file: %s is NULL",
                      path == NULL ? "path" : "out");
  }
  memset(out, 0, sizeof *out);
  onyx_status st = load_tensor_file(path, out, name, err);
  if (st != ONYX_OK) onyx__error_prefix(err, "%s", path);
  return st;
}

/* Checks a caller's tensor for encoding; *nbytes is its payload size. */
static onyx_status check_encodable(const onyx_tensor *tensor, size_t *nbytes, onyx_error *err) {
  if (!onyx__dtype_known((int)tensor->dtype)) {
    return onyx__fail(err, ONYX_TYPE, "onyx_tensor_encode: element type %d is not supported",
                      (int)tensor->dtype);
  }
  if (tensor->rank > ONYX_MAX_RANK) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_tensor_encode: rank %u exceeds %d",
                      (unsigned)tensor->rank, ONYX_MAX_RANK);
  }
  size_t count;
  if (onyx__shape_count(tensor->dims, tensor->rank, &count, err) != ONYX_OK) {
    if (err != NULL) err->status = ONYX_INVALID_ARGUMENT;
    onyx__error_prefix(err, "onyx_tensor_encode");
    return ONYX_INVALID_ARGUMENT;
  }
  if (!onyx__mul_size(count, onyx_dtype_size(tensor->dtype), nbytes)) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_tensor_encode: the byte size overflows");
  }
  if (*nbytes > 0 && tensor->data == NULL) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_tensor_encode: data is NULL");
  }
  if (tensor->size < *nbytes) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "onyx_tensor_encode: size is %zu bytes; the shape needs %zu", tensor->size,
                      *nbytes);
  }
  return ONYX_OK;
}

/*
 * Everything of the TensorProto up to the payload: the fields, then the
 * raw_data tag and length. The payload itself follows, so that a writer
 * can send it from the tensor's own memory.
 */
static onyx_status encode_header(const onyx_tensor *tensor, const char *name, onyx__pbw *w,
                                 size_t *nbytes, onyx_error *err) {
  ONYX__TRY(check_encodable(tensor, nbytes, err));
  /* Dims are written unpacked, one varint each, as ONNX's own writer does
   * for this proto2 field; readers accept both forms. */
  for (uint32_t i = 0; i < tensor->rank; i++) {
    onyx__pbw_uint(w, T_DIMS, (uint64_t)tensor->dims[i]);
  }
  onyx__pbw_uint(w, T_DATA_TYPE, (uint64_t)tensor->dtype);
  if (name != NULL) onyx__pbw_bytes(w, T_NAME, name, strlen(name));
  onyx__pbw_tag(w, T_RAW_DATA, ONYX__WIRE_LEN);
  onyx__pbw_varint(w, (uint64_t)*nbytes);
  if (w->failed) {
    onyx__pbw_free(w);
    return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory encoding the tensor");
  }
  return ONYX_OK;
}

onyx_status onyx_tensor_encode(const onyx_tensor *tensor, const char *name, void **bytes,
                               size_t *size, onyx_error *err) {
  if (bytes != NULL) *bytes = NULL;
  if (size != NULL) *size = 0;
  if (tensor == NULL || bytes == NULL || size == NULL) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_tensor_encode: %s is NULL",
                      tensor == NULL  ? "tensor"
                      : bytes == NULL ? "bytes"
                                      : "size");
  }
  onyx__pbw w = {0};
  size_t nbytes = 0;
  ONYX__TRY(encode_header(tensor, name, &w, &nbytes, err));
  onyx__pbw_raw(&w, tensor->data, nbytes);
  if (w.failed) {
    onyx__pbw_free(&w);
    return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory encoding the tensor");
  }
  /* raw_data is little-endian whatever the host. */
  onyx__le_to_host(w.buf + (w.len - nbytes), nbytes, onyx_dtype_size(tensor->dtype));
  *bytes = w.buf;
  *size = w.len;
  return ONYX_OK;
}

#ifndef ONYX_OMIT_FILES
/* Writes all n bytes of p to file; ONYX_IO naming path otherwise. */
static onyx_status write_full(onyx__os_file file, const void *p, size_t n, const char *path,
                              onyx_error *err) {
  int e = onyx__os_file_write_all(file, p, n);
  if (e != 0) {
    return onyx__fail(err, ONYX_IO, "%s: cannot write: %s (errno %d)", path, onyx__os_error_text(e),
                      e);
  }
  return ONYX_OK;
}

/* Writes the n bytes of host-order elements width bytes wide at p to file,
 * little-endian: as they are on a little-endian host, else converted a
 * block at a time, so that saving never copies the whole tensor. */
static onyx_status write_le(onyx__os_file file, const void *p, size_t n, size_t width,
                            const char *path, onyx_error *err) {
  if (!onyx__host_big_endian() || width < 2) return write_full(file, p, n, path, err);
  uint8_t block[4096]; /* a multiple of every element size */
  const uint8_t *b = p;
  while (n > 0) {
    size_t k = n < sizeof block ? n : sizeof block;
    memcpy(block, b, k);
    onyx__le_to_host(block, k, width);
    ONYX__TRY(write_full(file, block, k, path, err));
    b += k;
    n -= k;
  }
  return ONYX_OK;
}
#endif

onyx_status onyx_tensor_save_file(const char *path, const onyx_tensor *tensor, const char *name,
                                  onyx_error *err) {
  if (path == NULL || tensor == NULL) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_tensor_save_file: %s is NULL",
                      path == NULL ? "path" : "tensor");
  }
#ifdef ONYX_OMIT_FILES
  (void)name;
  return onyx__fail(err, ONYX_IO, "%s: files are left out of this build", path);
#else
  /* The header is encoded, the payload written from the tensor's memory:
   * saving a tensor costs no copy of it. */
  onyx__pbw w = {0};
  size_t nbytes = 0;
  ONYX__TRY(encode_header(tensor, name, &w, &nbytes, err));
  onyx__os_file file;
  int e = onyx__os_file_create(path, &file);
  if (e != 0) {
    onyx__pbw_free(&w);
    return onyx__fail(err, ONYX_IO, "%s: cannot create: %s (errno %d)", path,
                      onyx__os_error_text(e), e);
  }
  onyx_status st = write_full(file, w.buf, w.len, path, err);
  if (st == ONYX_OK) {
    st = write_le(file, tensor->data, nbytes, onyx_dtype_size(tensor->dtype), path, err);
  }
  onyx__pbw_free(&w);
  e = onyx__os_file_close(file);
  if (e != 0 && st == ONYX_OK) {
    st = onyx__fail(err, ONYX_IO, "%s: cannot write: %s (errno %d)", path, onyx__os_error_text(e),
                    e);
  }
  return st;
#endif
}
