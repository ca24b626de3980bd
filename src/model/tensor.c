/*
 * TensorProto decoding and encoding.
 *
 * A tensor's elements come from exactly one source: raw_data, one typed
 * field that belongs to its type, or external data. Everything else (two
 * sources, a typed field of another type, a count that does not match the
 * shape, a value out of the element type's range) is refused, because a
 * runtime that guesses which data was meant computes with the wrong numbers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/dtype.h"
#include "core/error.h"
#include "model/model.h"
#include "model/pb.h"

/* Element payloads are stored and exchanged little-endian, and decoding
 * raw_data in place needs the host to agree. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "onyx assumes a little-endian host"
#endif

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
  int w = snprintf(buf, cap, "[");
  used = w > 0 ? (size_t)w : 0;
  for (uint32_t i = 0; i < rank && used < cap; i++) {
    w = snprintf(buf + used, cap - used, "%s%lld", i ? ", " : "", (long long)dims[i]);
    if (w < 0) return;
    used += (size_t)w;
  }
  if (used < cap) snprintf(buf + used, cap - used, "]");
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
    /* A checked multiply rather than max / c: it is on every run's path,
     * and a 64-bit division costs more than the rest of the check. */
    uint64_t p = 0;
    if (d > max || __builtin_mul_overflow(c, d, &p) || p > max) {
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

/* Parses a non-negative decimal integer with no sign, space or suffix. */
static bool parse_decimal(const char *s, uint64_t *v) {
  if (*s == '\0') return false;
  uint64_t x = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return false;
    unsigned d = (unsigned)(*s - '0');
    if (x > (UINT64_MAX - d) / 10) return false;
    x = x * 10 + d;
  }
  *v = x;
  return true;
}

/* Copies a length-delimited string field into the arena; ONYX_PARSE if it
 * holds a NUL byte, since every consumer treats it as a C string. */
static onyx_status copy_string(onyx__arena *arena, const onyx__pb_field *f, const char *what,
                               const char **out, onyx_error *err) {
  if (f->len && memchr(f->data, 0, f->len) != NULL) {
    return onyx__fail(err, ONYX_PARSE, "%s contains a NUL byte (field at byte %zu)", what,
                      f->offset);
  }
  char *s = onyx__arena_strndup(arena, (const char *)f->data, f->len);
  if (s == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory copying %s", what);
  *out = s;
  return ONYX_OK;
}

/* The external_data entries of a tensor. */
typedef struct ext_info {
  const char *location;
  bool has_offset, has_length;
  uint64_t offset, length;
} ext_info;

static onyx_status decode_ext_entry(const onyx__pb *r, const onyx__pb_field *f, onyx__arena *arena,
                                    int depth, ext_info *x, bool *seen, onyx_error *err) {
  if (depth > ONYX__MAX_NESTING) {
    return onyx__fail(err, ONYX_LIMIT, "protobuf messages nested more than %d deep at byte %zu",
                      ONYX__MAX_NESTING, f->offset);
  }
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
  if (has_key) ONYX__TRY(copy_string(arena, &key, "external_data key", &k, err));
  if (has_value) ONYX__TRY(copy_string(arena, &value, "external_data value", &v, err));
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

/* Decodes one value of a typed field into element i of dst. */
static onyx_status store_typed(int tf, onyx_dtype t, onyx__pb *vals, uint8_t *dst, size_t i,
                               onyx_error *err) {
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
      /* int32 values are sent sign-extended to 64 bits; anything that is not
       * a sign-extended int32 is refused rather than truncated. */
      int64_t v = as_int64(raw);
      int64_t lo, hi;
      switch (t) {
        case ONYX_DTYPE_INT8:
          lo = INT8_MIN, hi = INT8_MAX;
          break;
        case ONYX_DTYPE_UINT8:
          lo = 0, hi = UINT8_MAX;
          break;
        case ONYX_DTYPE_INT16:
          lo = INT16_MIN, hi = INT16_MAX;
          break;
        case ONYX_DTYPE_INT32:
          lo = INT32_MIN, hi = INT32_MAX;
          break;
        default: /* uint16, and the bit patterns of float16 and bfloat16 */
          lo = 0, hi = UINT16_MAX;
          break;
      }
      if (v < lo || v > hi) {
        return onyx__fail(err, ONYX_TENSOR_DATA,
                          "int32_data value %lld (index %zu) is out of range for %s", (long long)v,
                          i, onyx_dtype_name(t));
      }
      switch (t) {
        case ONYX_DTYPE_INT8: {
          int8_t x = (int8_t)v;
          memcpy(dst + i, &x, 1);
          break;
        }
        case ONYX_DTYPE_UINT8:
          dst[i] = (uint8_t)v;
          break;
        case ONYX_DTYPE_INT16: {
          int16_t x = (int16_t)v;
          memcpy(dst + 2 * i, &x, 2);
          break;
        }
        case ONYX_DTYPE_INT32: {
          int32_t x = (int32_t)v;
          memcpy(dst + 4 * i, &x, 4);
          break;
        }
        default: {
          uint16_t x = (uint16_t)v;
          memcpy(dst + 2 * i, &x, 2);
          break;
        }
      }
      return ONYX_OK;
    }
  }
}

onyx_status onyx__tensor_decode_at(const uint8_t *base, const uint8_t *bytes, size_t size,
                                   onyx__arena *arena, const char *dir, onyx__mapping **mappings,
                                   int depth, onyx__tensor *out, onyx_error *err) {
  memset(out, 0, sizeof *out);
  onyx__pb r;
  onyx__pb_init(&r, base, bytes, size);
  if (depth > ONYX__MAX_NESTING) {
    return onyx__fail(err, ONYX_LIMIT, "protobuf messages nested more than %d deep at byte %zu",
                      ONYX__MAX_NESTING, onyx__pb_offset(&r));
  }

  /* Pass 1: the scalar fields, the shape, and which data fields appear. */
  int64_t data_type = 0;
  uint64_t location = 0;
  bool has_name = false, has_raw = false, has_segment = false, has_strings = false;
  onyx__pb_field name_f = {0}, raw_f = {0};
  size_t typed_count[TF_COUNT] = {0};
  bool typed_seen[TF_COUNT] = {false};
  size_t n_ext = 0;
  size_t rank = 0;
  int64_t dims[ONYX_MAX_RANK];
  while (!onyx__pb_done(&r)) {
    onyx__pb_field f;
    ONYX__TRY(onyx__pb_next(&r, &f, err));
    switch (f.number) {
      case T_DIMS: {
        onyx__pb vals = {0};
        size_t n = 0;
        ONYX__TRY(onyx__pb_values(&r, &f, ONYX__WIRE_VARINT, "dims", &vals, &n, err));
        for (size_t i = 0; i < n; i++) {
          uint64_t v = 0;
          ONYX__TRY(onyx__pb_varint(&vals, &v, err));
          if (rank < ONYX_MAX_RANK) dims[rank] = as_int64(v);
          rank++;
        }
        break;
      }
      case T_DATA_TYPE:
        if (f.wire != ONYX__WIRE_VARINT) {
          return onyx__pb_wire_error(&f, "data_type", ONYX__WIRE_VARINT, err);
        }
        data_type = as_int64(f.u);
        break;
      case T_SEGMENT:
        if (f.wire != ONYX__WIRE_LEN) return onyx__pb_wire_error(&f, "segment", 2, err);
        has_segment = true;
        break;
      case T_STRING_DATA:
        if (f.wire != ONYX__WIRE_LEN) return onyx__pb_wire_error(&f, "string_data", 2, err);
        has_strings = true;
        break;
      case T_NAME:
        if (f.wire != ONYX__WIRE_LEN) return onyx__pb_wire_error(&f, "name", 2, err);
        name_f = f;
        has_name = true;
        break;
      case T_RAW_DATA:
        if (f.wire != ONYX__WIRE_LEN) return onyx__pb_wire_error(&f, "raw_data", 2, err);
        raw_f = f; /* an optional field seen twice: the last one wins */
        has_raw = true;
        break;
      case T_DOC_STRING:
        if (f.wire != ONYX__WIRE_LEN) return onyx__pb_wire_error(&f, "doc_string", 2, err);
        break;
      case T_EXTERNAL_DATA:
        if (f.wire != ONYX__WIRE_LEN) return onyx__pb_wire_error(&f, "external_data", 2, err);
        n_ext++;
        break;
      case T_DATA_LOCATION:
        if (f.wire != ONYX__WIRE_VARINT) {
          return onyx__pb_wire_error(&f, "data_location", ONYX__WIRE_VARINT, err);
        }
        location = f.u;
        break;
      default:
        for (int k = 0; k < TF_COUNT; k++) {
          if (f.number != typed_fields[k].number) continue;
          onyx__pb vals = {0};
          size_t n = 0;
          ONYX__TRY(
              onyx__pb_values(&r, &f, typed_fields[k].wire, typed_fields[k].name, &vals, &n, err));
          typed_count[k] += n;
          typed_seen[k] = true;
        }
        break; /* unknown fields were skipped by onyx__pb_next */
    }
  }

  /* The name first, so that every later message can be attributed. */
  const char *name = "";
  if (has_name) ONYX__TRY(copy_string(arena, &name_f, "the tensor name", &name, err));
  out->name = name;

  if (data_type == 0) {
    return onyx__fail(err, ONYX_TYPE, "the tensor has no data_type");
  }
  if (data_type < 0 || data_type > INT32_MAX || !onyx__dtype_known((int)data_type)) {
    return onyx__fail(err, ONYX_TYPE, "data_type %lld (%s) is not supported", (long long)data_type,
                      onyx__onnx_type_name(data_type));
  }
  onyx_dtype dtype = (onyx_dtype)data_type;
  size_t esize = onyx_dtype_size(dtype);
  out->dtype = dtype;
  if (rank > ONYX_MAX_RANK) {
    return onyx__fail(err, ONYX_LIMIT, "rank %zu exceeds the limit of %d", rank, ONYX_MAX_RANK);
  }
  out->rank = (uint32_t)rank;
  memcpy(out->dims, dims, rank * sizeof dims[0]);
  size_t count = 0;
  ONYX__TRY(onyx__shape_count(out->dims, out->rank, &count, err));
  size_t nbytes = 0;
  if (!onyx__mul_size(count, esize, &nbytes)) {
    return onyx__fail(err, ONYX_LIMIT, "the tensor's byte size overflows");
  }
  out->count = count;
  char shape[400];
  format_shape(out->dims, out->rank, shape, sizeof shape);

  if (has_segment) {
    return onyx__fail(err, ONYX_TENSOR_DATA, "segmented tensors (field segment) are not supported");
  }
  if (location > 1) {
    return onyx__fail(err, ONYX_TENSOR_DATA, "data_location %llu is unknown",
                      (unsigned long long)location);
  }
  bool external = location == 1;

  /* Exactly one source of data, and one that belongs to the type. */
  const char *sources[TF_COUNT + 3];
  int n_sources = 0;
  if (has_raw) sources[n_sources++] = "raw_data";
  for (int k = 0; k < TF_COUNT; k++) {
    if (typed_seen[k]) sources[n_sources++] = typed_fields[k].name;
  }
  if (has_strings) sources[n_sources++] = "string_data";
  if (external) sources[n_sources++] = "external data";
  if (n_sources > 1) {
    return onyx__fail(err, ONYX_TENSOR_DATA, "the tensor has both %s and %s; expected one source",
                      sources[0], sources[1]);
  }
  if (has_strings) {
    return onyx__fail(err, ONYX_TENSOR_DATA, "string_data cannot hold %s elements",
                      onyx_dtype_name(dtype));
  }
  int want = typed_field_for(dtype);
  if (want < 0)
    return onyx__fail(err, ONYX_INTERNAL, "no typed field for %s", onyx_dtype_name(dtype));
  for (int k = 0; k < TF_COUNT; k++) {
    if (typed_seen[k] && k != want) {
      return onyx__fail(err, ONYX_TENSOR_DATA, "%s cannot hold %s elements; use %s or raw_data",
                        typed_fields[k].name, onyx_dtype_name(dtype), typed_fields[want].name);
    }
  }

  if (external) {
    if (dir == NULL) {
      return onyx__fail(err, ONYX_EXTERNAL_DATA,
                        "the tensor uses external data, which needs the model's folder; a "
                        "model or tensor loaded from memory or a standalone file cannot use it");
    }
    ext_info x = {0};
    bool seen[4] = {false};
    onyx__pb r2;
    onyx__pb_init(&r2, base, bytes, size);
    while (!onyx__pb_done(&r2)) {
      onyx__pb_field f;
      ONYX__TRY(onyx__pb_next(&r2, &f, err));
      if (f.number == T_EXTERNAL_DATA) {
        ONYX__TRY(decode_ext_entry(&r2, &f, arena, depth + 1, &x, seen, err));
      }
    }
    if (x.location == NULL) {
      return onyx__fail(err, ONYX_EXTERNAL_DATA, "external data has no 'location' entry");
    }
    onyx_status st = onyx__external_read(dir, x.location, x.offset, x.has_length, x.length, nbytes,
                                         esize, arena, mappings, &out->data, err);
    if (st != ONYX_OK) return st;
    out->nbytes = nbytes;
    if (count == 0) out->data = NULL;
    return ONYX_OK;
  }

  if (has_raw) {
    if (raw_f.len != nbytes) {
      return onyx__fail(err, ONYX_TENSOR_DATA, "raw_data has %zu bytes; shape %s of %s needs %zu",
                        raw_f.len, shape, onyx_dtype_name(dtype), nbytes);
    }
    out->nbytes = nbytes;
    if (nbytes == 0) return ONYX_OK;
    if ((uintptr_t)raw_f.data % esize == 0) {
      out->data = raw_f.data; /* zero-copy: the payload is aligned in place */
      return ONYX_OK;
    }
    void *copy = onyx__arena_alloc(arena, nbytes);
    if (copy == NULL) {
      return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory copying %zu bytes of raw_data",
                        nbytes);
    }
    memcpy(copy, raw_f.data, nbytes);
    out->data = copy;
    return ONYX_OK;
  }

  if (typed_seen[want]) {
    if (typed_count[want] != count) {
      return onyx__fail(err, ONYX_TENSOR_DATA, "%s has %zu values; shape %s of %s needs %zu",
                        typed_fields[want].name, typed_count[want], shape, onyx_dtype_name(dtype),
                        count);
    }
    out->nbytes = nbytes;
    if (count == 0) return ONYX_OK;
    uint8_t *dst = onyx__arena_alloc(arena, nbytes);
    if (dst == NULL) {
      return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory decoding %s",
                        typed_fields[want].name);
    }
    /* Pass 2: the values, across every occurrence of the field in order. */
    onyx__pb r2;
    onyx__pb_init(&r2, base, bytes, size);
    size_t i = 0;
    while (!onyx__pb_done(&r2)) {
      onyx__pb_field f;
      ONYX__TRY(onyx__pb_next(&r2, &f, err));
      if (f.number != typed_fields[want].number) continue;
      onyx__pb vals = {0};
      size_t n = 0;
      ONYX__TRY(onyx__pb_values(&r2, &f, typed_fields[want].wire, typed_fields[want].name, &vals,
                                &n, err));
      for (size_t j = 0; j < n; j++, i++) {
        ONYX__TRY(store_typed(want, dtype, &vals, dst, i, err));
      }
    }
    out->data = dst;
    return ONYX_OK;
  }

  if (count != 0) {
    return onyx__fail(err, ONYX_TENSOR_DATA,
                      "the tensor has no data for its %zu elements (shape %s)", count, shape);
  }
  return ONYX_OK;
}

onyx_status onyx__tensor_decode(const uint8_t *bytes, size_t size, onyx__arena *arena,
                                const char *dir, int depth, onyx__tensor *out, onyx_error *err) {
  return onyx__tensor_decode_at(bytes, bytes, size, arena, dir, NULL, depth, out, err);
}

/* ---- Public API ---------------------------------------------------------- */

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
  const uint8_t *b = bytes != NULL ? bytes : empty;
  onyx__arena arena = {0};
  onyx__tensor t;
  onyx_status st = onyx__tensor_decode_at(b, b, size, &arena, NULL, NULL, 1, &t, err);
  if (st != ONYX_OK) {
    if (t.name != NULL && t.name[0] != '\0') onyx__error_prefix(err, "tensor '%.64s'", t.name);
    onyx__arena_free(&arena);
    return st;
  }
  void *data = NULL;
  char *copy = NULL;
  if (t.nbytes > 0) {
    data = onyx__malloc(t.nbytes);
    if (data == NULL) goto oom;
    memcpy(data, t.data, t.nbytes);
  }
  if (name != NULL) {
    size_t n = strlen(t.name);
    copy = onyx__malloc(n + 1);
    if (copy == NULL) goto oom;
    memcpy(copy, t.name, n + 1);
  }
  out->dtype = t.dtype;
  out->rank = t.rank;
  memcpy(out->dims, t.dims, sizeof out->dims);
  out->data = data;
  out->size = t.nbytes;
  if (name != NULL) *name = copy;
  onyx__arena_free(&arena);
  return ONYX_OK;
oom:
  onyx__free(data);
  onyx__free(copy);
  onyx__arena_free(&arena);
  return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory copying the tensor");
}

onyx_status onyx_tensor_load_file(const char *path, onyx_tensor *out, char **name,
                                  onyx_error *err) {
  if (name != NULL) *name = NULL;
  if (path == NULL || out == NULL) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_tensor_load_file: %s is NULL",
                      path == NULL ? "path" : "out");
  }
  memset(out, 0, sizeof *out);
  const uint8_t *bytes = NULL;
  size_t size = 0;
  onyx_status st = onyx__map_file(path, &bytes, &size, err);
  if (st == ONYX_OK) {
    st = onyx_tensor_decode(bytes, size, out, name, err);
    onyx__unmap_file(bytes, size);
  }
  if (st != ONYX_OK) onyx__error_prefix(err, "%s", path);
  return st;
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
  if (!onyx__dtype_known((int)tensor->dtype)) {
    return onyx__fail(err, ONYX_TYPE, "onyx_tensor_encode: element type %d is not supported",
                      (int)tensor->dtype);
  }
  if (tensor->rank > ONYX_MAX_RANK) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_tensor_encode: rank %u exceeds %d",
                      (unsigned)tensor->rank, ONYX_MAX_RANK);
  }
  size_t count, nbytes;
  if (onyx__shape_count(tensor->dims, tensor->rank, &count, err) != ONYX_OK) {
    if (err != NULL) err->status = ONYX_INVALID_ARGUMENT;
    onyx__error_prefix(err, "onyx_tensor_encode");
    return ONYX_INVALID_ARGUMENT;
  }
  if (!onyx__mul_size(count, onyx_dtype_size(tensor->dtype), &nbytes)) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_tensor_encode: the byte size overflows");
  }
  if (nbytes > 0 && tensor->data == NULL) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_tensor_encode: data is NULL");
  }
  if (tensor->size < nbytes) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "onyx_tensor_encode: size is %zu bytes; the shape needs %zu", tensor->size,
                      nbytes);
  }
  /* Dims are written unpacked, one varint each, as ONNX's own writer does
   * for this proto2 field; readers accept both forms. */
  onyx__pbw w = {0};
  for (uint32_t i = 0; i < tensor->rank; i++) {
    onyx__pbw_uint(&w, T_DIMS, (uint64_t)tensor->dims[i]);
  }
  onyx__pbw_uint(&w, T_DATA_TYPE, (uint64_t)tensor->dtype);
  if (name != NULL) onyx__pbw_bytes(&w, T_NAME, name, strlen(name));
  onyx__pbw_bytes(&w, T_RAW_DATA, tensor->data, nbytes);
  if (w.failed) {
    onyx__pbw_free(&w);
    return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory encoding the tensor");
  }
  *bytes = w.buf;
  *size = w.len;
  return ONYX_OK;
}

onyx_status onyx_tensor_save_file(const char *path, const onyx_tensor *tensor, const char *name,
                                  onyx_error *err) {
  if (path == NULL) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_tensor_save_file: path is NULL");
  }
  void *bytes;
  size_t size = 0;
  onyx_status st = onyx_tensor_encode(tensor, name, &bytes, &size, err);
  if (st != ONYX_OK) return st;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0666);
  if (fd < 0) {
    int e = errno;
    onyx__free(bytes);
    return onyx__fail(err, ONYX_IO, "%s: cannot create: %s (errno %d)", path, onyx__errno_text(e),
                      e);
  }
  const uint8_t *p = bytes;
  size_t left = size;
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = n < 0 ? errno : EIO;
      close(fd);
      onyx__free(bytes);
      return onyx__fail(err, ONYX_IO, "%s: cannot write: %s (errno %d)", path, onyx__errno_text(e),
                        e);
    }
    p += n;
    left -= (size_t)n;
  }
  onyx__free(bytes);
  if (close(fd) != 0) {
    int e = errno;
    return onyx__fail(err, ONYX_IO, "%s: cannot write: %s (errno %d)", path, onyx__errno_text(e),
                      e);
  }
  return ONYX_OK;
}
