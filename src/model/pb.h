/* SPDX-License-Identifier: MIT */
/*
 * A bounds-checked, zero-copy reader of the protobuf wire format, and the
 * small writer onyx_tensor_encode needs.
 *
 * The reader never looks at a byte outside [p, end). Every failure is
 * ONYX_PARSE with a message that names what was wrong and the byte offset,
 * counted from `base`, the start of the outermost buffer, so that offsets in
 * messages about nested fields still point into the file.
 *
 * Groups (wire types 3 and 4) are refused: ONNX does not use them, and
 * skipping them correctly needs a nesting-aware scan that buys nothing.
 */
#ifndef ONYX_MODEL_PB_H
#define ONYX_MODEL_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "onyx.h"

enum {
  ONYX__WIRE_VARINT = 0,
  ONYX__WIRE_FIXED64 = 1,
  ONYX__WIRE_LEN = 2,
  ONYX__WIRE_SGROUP = 3,
  ONYX__WIRE_EGROUP = 4,
  ONYX__WIRE_FIXED32 = 5
};

/* The largest field number protobuf allows (2^29 - 1). */
#define ONYX__PB_MAX_FIELD 536870911u

/* The longest varint: ten bytes hold 64 bits. */
#define ONYX__PB_MAX_VARINT 10

typedef struct onyx__pb {
  const uint8_t *base; /* start of the outermost buffer, for offsets */
  const uint8_t *p;    /* next byte to read */
  const uint8_t *end;  /* one past the last readable byte */
} onyx__pb;

/* One field as read from the wire. For wire type 2, data/len are the
 * payload (pointing into the buffer); for the others, `u` holds the value
 * (fixed32 zero-extended). value/value_end always delimit the encoded value
 * after the tag, so that a scalar field can be re-read as a one-element
 * list (see onyx__pb_values). */
typedef struct onyx__pb_field {
  uint32_t number;
  uint32_t wire;
  size_t offset; /* of the tag, from base */
  uint64_t u;
  const uint8_t *data;
  size_t len;
  const uint8_t *value;
  const uint8_t *value_end;
} onyx__pb_field;

/* A reader over n bytes at p whose offsets count from base. */
static inline void onyx__pb_init(onyx__pb *r, const uint8_t *base, const uint8_t *p, size_t n) {
  r->base = base;
  r->p = p;
  r->end = p + n;
}

/* A reader over the payload of a length-delimited field read by r. */
static inline onyx__pb onyx__pb_sub(const onyx__pb *r, const onyx__pb_field *f) {
  onyx__pb s;
  onyx__pb_init(&s, r->base, f->data, f->len);
  return s;
}

static inline bool onyx__pb_done(const onyx__pb *r) { return r->p >= r->end; }

static inline size_t onyx__pb_offset(const onyx__pb *r) { return (size_t)(r->p - r->base); }

/* The primitive reads. Each advances r only on success. */
onyx_status onyx__pb_varint(onyx__pb *r, uint64_t *v, onyx_error *err);
onyx_status onyx__pb_fixed32(onyx__pb *r, uint32_t *v, onyx_error *err);
onyx_status onyx__pb_fixed64(onyx__pb *r, uint64_t *v, onyx_error *err);
/* A tag: field number 1 .. 2^29-1 and wire type 0, 1, 2 or 5. */
onyx_status onyx__pb_tag(onyx__pb *r, uint32_t *number, uint32_t *wire, onyx_error *err);
/* A length prefix and that many bytes, which must all be in the buffer. */
onyx_status onyx__pb_bytes(onyx__pb *r, const uint8_t **data, size_t *len, onyx_error *err);
/* Skips one value of the given wire type. */
onyx_status onyx__pb_skip(onyx__pb *r, uint32_t wire, onyx_error *err);

/* Reads the next whole field (tag and value) into *f. */
onyx_status onyx__pb_next(onyx__pb *r, onyx__pb_field *f, onyx_error *err);

/*
 * A repeated scalar field occurrence as a list: either one value encoded
 * with elem_wire (0, 1 or 5), or a packed run (wire type 2). Sets *vals to a
 * reader over the encoded values and *count to their number, checking that
 * the run holds whole values. Then read *count values from *vals with
 * onyx__pb_varint / _fixed32 / _fixed64. `what` names the field in messages.
 */
onyx_status onyx__pb_values(const onyx__pb *r, const onyx__pb_field *f, uint32_t elem_wire,
                            const char *what, onyx__pb *vals, size_t *count, onyx_error *err);

/* ONYX_PARSE naming a field whose wire type is not the one its schema
 * gives, e.g. "field 3 (name) has wire type 0; expected 2 at byte 17". */
onyx_status onyx__pb_wire_error(const onyx__pb_field *f, const char *what, uint32_t expected,
                                onyx_error *err);

/*
 * A growable output buffer. Every write is a no-op once an allocation has
 * failed, so that a sequence of writes needs one check at the end.
 */
typedef struct onyx__pbw {
  uint8_t *buf;
  size_t len;
  size_t cap;
  bool failed;
} onyx__pbw;

void onyx__pbw_raw(onyx__pbw *w, const void *data, size_t n);
void onyx__pbw_varint(onyx__pbw *w, uint64_t v);
void onyx__pbw_tag(onyx__pbw *w, uint32_t number, uint32_t wire);
void onyx__pbw_fixed32(onyx__pbw *w, uint32_t v);
void onyx__pbw_fixed64(onyx__pbw *w, uint64_t v);
/* A whole length-delimited field: tag, length, bytes. */
void onyx__pbw_bytes(onyx__pbw *w, uint32_t number, const void *data, size_t n);
/* A whole varint field: tag and value. */
void onyx__pbw_uint(onyx__pbw *w, uint32_t number, uint64_t v);
void onyx__pbw_free(onyx__pbw *w);

#endif
