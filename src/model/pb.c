/* SPDX-License-Identifier: MIT */
#include "model/pb.h"

#include <string.h>

#include "core/alloc.h"
#include "core/error.h"

static size_t offset_of(const onyx__pb *r, const uint8_t *p) { return (size_t)(p - r->base); }

onyx_status onyx__pb_varint(onyx__pb *r, uint64_t *v, onyx_error *err) {
  const uint8_t *p = r->p;
  uint64_t value = 0;
  for (int i = 0; i < ONYX__PB_MAX_VARINT; i++) {
    if ((size_t)(r->end - p) <= (size_t)i) {
      return onyx__fail(err, ONYX_PARSE, "protobuf: truncated varint at byte %zu", offset_of(r, p));
    }
    uint8_t b = p[i];
    /* The tenth byte carries bit 63 only; anything more cannot be a 64-bit
     * value, so it is refused rather than silently dropped. */
    if (i == ONYX__PB_MAX_VARINT - 1 && b > 1) {
      return onyx__fail(err, ONYX_PARSE, "protobuf: varint overflows 64 bits at byte %zu",
                        offset_of(r, p));
    }
    value |= (uint64_t)(b & 0x7fu) << (7 * i);
    if (!(b & 0x80u)) {
      r->p = p + i + 1;
      *v = value;
      return ONYX_OK;
    }
  }
  return onyx__fail(err, ONYX_PARSE, "protobuf: varint longer than %d bytes at byte %zu",
                    ONYX__PB_MAX_VARINT, offset_of(r, p));
}

onyx_status onyx__pb_fixed32(onyx__pb *r, uint32_t *v, onyx_error *err) {
  if (r->end - r->p < 4) {
    return onyx__fail(err, ONYX_PARSE, "protobuf: truncated fixed32 at byte %zu",
                      onyx__pb_offset(r));
  }
  const uint8_t *p = r->p;
  *v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  r->p += 4;
  return ONYX_OK;
}

onyx_status onyx__pb_fixed64(onyx__pb *r, uint64_t *v, onyx_error *err) {
  if (r->end - r->p < 8) {
    return onyx__fail(err, ONYX_PARSE, "protobuf: truncated fixed64 at byte %zu",
                      onyx__pb_offset(r));
  }
  uint64_t value = 0;
  for (int i = 7; i >= 0; i--) value = value << 8 | r->p[i];
  *v = value;
  r->p += 8;
  return ONYX_OK;
}

onyx_status onyx__pb_tag(onyx__pb *r, uint32_t *number, uint32_t *wire, onyx_error *err) {
  size_t at = onyx__pb_offset(r);
  onyx__pb tmp = *r;
  uint64_t v = 0;
  ONYX__TRY(onyx__pb_varint(&tmp, &v, err));
  uint64_t n = v >> 3;
  uint32_t w = (uint32_t)(v & 7u);
  if (n == 0 || n > ONYX__PB_MAX_FIELD) {
    return onyx__fail(err, ONYX_PARSE, "protobuf: field number %llu out of range at byte %zu",
                      (unsigned long long)n, at);
  }
  if (w == ONYX__WIRE_SGROUP || w == ONYX__WIRE_EGROUP) {
    return onyx__fail(err, ONYX_PARSE,
                      "protobuf: field %u uses groups (wire type %u), which onyx does not "
                      "read, at byte %zu",
                      (unsigned)n, (unsigned)w, at);
  }
  if (w > ONYX__WIRE_FIXED32) {
    return onyx__fail(err, ONYX_PARSE, "protobuf: field %u has invalid wire type %u at byte %zu",
                      (unsigned)n, (unsigned)w, at);
  }
  *number = (uint32_t)n;
  *wire = w;
  *r = tmp;
  return ONYX_OK;
}

onyx_status onyx__pb_bytes(onyx__pb *r, const uint8_t **data, size_t *len, onyx_error *err) {
  size_t at = onyx__pb_offset(r);
  onyx__pb tmp = *r;
  uint64_t n = 0;
  ONYX__TRY(onyx__pb_varint(&tmp, &n, err));
  /* Compare as 64-bit before any conversion so that a huge length cannot
   * wrap when size_t is narrower. */
  uint64_t left = (uint64_t)(tmp.end - tmp.p);
  if (n > left) {
    return onyx__fail(err, ONYX_PARSE,
                      "protobuf: length %llu at byte %zu runs past the end (%llu bytes left)",
                      (unsigned long long)n, at, (unsigned long long)left);
  }
  *data = tmp.p;
  *len = (size_t)n;
  tmp.p += n;
  *r = tmp;
  return ONYX_OK;
}

onyx_status onyx__pb_skip(onyx__pb *r, uint32_t wire, onyx_error *err) {
  switch (wire) {
    case ONYX__WIRE_VARINT: {
      uint64_t v = 0;
      return onyx__pb_varint(r, &v, err);
    }
    case ONYX__WIRE_FIXED64: {
      uint64_t v = 0;
      return onyx__pb_fixed64(r, &v, err);
    }
    case ONYX__WIRE_LEN: {
      const uint8_t *d = NULL;
      size_t n = 0;
      return onyx__pb_bytes(r, &d, &n, err);
    }
    case ONYX__WIRE_FIXED32: {
      uint32_t v = 0;
      return onyx__pb_fixed32(r, &v, err);
    }
    default:
      return onyx__fail(err, ONYX_PARSE, "protobuf: cannot skip wire type %u at byte %zu",
                        (unsigned)wire, onyx__pb_offset(r));
  }
}

onyx_status onyx__pb_next(onyx__pb *r, onyx__pb_field *f, onyx_error *err) {
  onyx__pb tmp = *r;
  memset(f, 0, sizeof *f);
  f->offset = onyx__pb_offset(r);
  ONYX__TRY(onyx__pb_tag(&tmp, &f->number, &f->wire, err));
  f->value = tmp.p;
  switch (f->wire) {
    case ONYX__WIRE_VARINT:
      ONYX__TRY(onyx__pb_varint(&tmp, &f->u, err));
      break;
    case ONYX__WIRE_FIXED64:
      ONYX__TRY(onyx__pb_fixed64(&tmp, &f->u, err));
      break;
    case ONYX__WIRE_LEN:
      ONYX__TRY(onyx__pb_bytes(&tmp, &f->data, &f->len, err));
      break;
    default: { /* onyx__pb_tag admits only 0, 1, 2 and 5 */
      uint32_t v = 0;
      ONYX__TRY(onyx__pb_fixed32(&tmp, &v, err));
      f->u = v;
      break;
    }
  }
  f->value_end = tmp.p;
  *r = tmp;
  return ONYX_OK;
}

onyx_status onyx__pb_wire_error(const onyx__pb_field *f, const char *what, uint32_t expected,
                                onyx_error *err) {
  return onyx__fail(err, ONYX_PARSE,
                    "protobuf: field %u (%s) has wire type %u; expected %u at byte %zu",
                    (unsigned)f->number, what, (unsigned)f->wire, (unsigned)expected, f->offset);
}

onyx_status onyx__pb_values(const onyx__pb *r, const onyx__pb_field *f, uint32_t elem_wire,
                            const char *what, onyx__pb *vals, size_t *count, onyx_error *err) {
  if (f->wire == elem_wire) {
    onyx__pb_init(vals, r->base, f->value, (size_t)(f->value_end - f->value));
    *count = 1;
    return ONYX_OK;
  }
  if (f->wire != ONYX__WIRE_LEN) return onyx__pb_wire_error(f, what, elem_wire, err);
  onyx__pb_init(vals, r->base, f->data, f->len);
  size_t width = elem_wire == ONYX__WIRE_FIXED32 ? 4 : elem_wire == ONYX__WIRE_FIXED64 ? 8 : 0;
  if (width != 0) {
    if (f->len % width != 0) {
      return onyx__fail(err, ONYX_PARSE,
                        "protobuf: packed field %u (%s) at byte %zu has %zu bytes, not a "
                        "multiple of %zu",
                        (unsigned)f->number, what, f->offset, f->len, width);
    }
    *count = f->len / width;
    return ONYX_OK;
  }
  /* Varints: walk the run once so that a truncated last value is found
   * here, and the caller's second walk cannot fail. */
  onyx__pb scan = *vals;
  size_t n = 0;
  while (!onyx__pb_done(&scan)) {
    uint64_t v = 0;
    ONYX__TRY(onyx__pb_varint(&scan, &v, err));
    n++;
  }
  *count = n;
  return ONYX_OK;
}

/* ---- Writer ------------------------------------------------------------ */

static bool pbw_reserve(onyx__pbw *w, size_t n) {
  if (w->failed) return false;
  if (w->cap - w->len >= n) return true;
  size_t need = w->len + n;
  if (need < w->len) {
    w->failed = true;
    return false;
  }
  size_t cap = w->cap ? w->cap : 64;
  while (cap < need) {
    if (cap > (size_t)-1 / 2) {
      cap = need;
      break;
    }
    cap *= 2;
  }
  uint8_t *b = onyx__realloc(w->buf, cap);
  if (b == NULL) {
    w->failed = true;
    return false;
  }
  w->buf = b;
  w->cap = cap;
  return true;
}

void onyx__pbw_raw(onyx__pbw *w, const void *data, size_t n) {
  if (!pbw_reserve(w, n)) return;
  if (n) memcpy(w->buf + w->len, data, n);
  w->len += n;
}

void onyx__pbw_varint(onyx__pbw *w, uint64_t v) {
  uint8_t b[ONYX__PB_MAX_VARINT];
  size_t n = 0;
  do {
    b[n] = (uint8_t)(v & 0x7fu);
    v >>= 7;
    if (v) b[n] |= 0x80u;
    n++;
  } while (v);
  onyx__pbw_raw(w, b, n);
}

void onyx__pbw_tag(onyx__pbw *w, uint32_t number, uint32_t wire) {
  onyx__pbw_varint(w, (uint64_t)number << 3 | wire);
}

void onyx__pbw_fixed32(onyx__pbw *w, uint32_t v) {
  uint8_t b[4];
  for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
  onyx__pbw_raw(w, b, 4);
}

void onyx__pbw_fixed64(onyx__pbw *w, uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
  onyx__pbw_raw(w, b, 8);
}

void onyx__pbw_bytes(onyx__pbw *w, uint32_t number, const void *data, size_t n) {
  onyx__pbw_tag(w, number, ONYX__WIRE_LEN);
  onyx__pbw_varint(w, n);
  onyx__pbw_raw(w, data, n);
}

void onyx__pbw_uint(onyx__pbw *w, uint32_t number, uint64_t v) {
  onyx__pbw_tag(w, number, ONYX__WIRE_VARINT);
  onyx__pbw_varint(w, v);
}

void onyx__pbw_free(onyx__pbw *w) {
  onyx__free(w->buf);
  w->buf = NULL;
  w->len = w->cap = 0;
  w->failed = false;
}
