/* SPDX-License-Identifier: MIT */
/*
 * ModelProto decoding: the graph, its nodes and attributes, initializers,
 * inputs and outputs, and the opset imports, into the structs of model.h.
 *
 * Repeated fields may arrive interleaved in any order, so every message with
 * repeated children is read twice: once to validate the wire format and
 * count, then, after one arena allocation per list, to fill. Messages onyx
 * does not use (value_info, functions, training_info, attribute graphs,
 * sparse tensors, type protos) are not decoded but still walked by skim(),
 * which checks their wire format and nesting depth, so that no part of the
 * file is accepted unread.
 *
 * Every nested message is entered with depth + 1 and refused past
 * ONYX__MAX_NESTING, which bounds recursion on hostile input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/alloc.h"
#include "core/error.h"
#include "core/opset.h"
#include "core/sort.h"
#include "model/model.h"
#include "model/pb.h"

/* Field numbers, from onnx.proto. */
enum {
  M_IR_VERSION = 1,
  M_PRODUCER_NAME = 2,
  M_PRODUCER_VERSION = 3,
  M_DOMAIN = 4,
  M_MODEL_VERSION = 5,
  M_DOC_STRING = 6,
  M_GRAPH = 7,
  M_OPSET_IMPORT = 8,
  M_METADATA = 14,
  M_TRAINING_INFO = 20,
  M_FUNCTIONS = 25
};
enum { OS_DOMAIN = 1, OS_VERSION = 2 };
enum {
  G_NODE = 1,
  G_NAME = 2,
  G_INITIALIZER = 5,
  G_INPUT = 11,
  G_OUTPUT = 12,
  G_SPARSE_INITIALIZER = 15
};
enum { N_INPUT = 1, N_OUTPUT = 2, N_NAME = 3, N_OP_TYPE = 4, N_ATTRIBUTE = 5, N_DOMAIN = 7 };
enum {
  A_NAME = 1,
  A_F = 2,
  A_I = 3,
  A_S = 4,
  A_T = 5,
  A_G = 6,
  A_FLOATS = 7,
  A_INTS = 8,
  A_STRINGS = 9,
  A_TENSORS = 10,
  A_GRAPHS = 11,
  A_TP = 14,
  A_TYPE_PROTOS = 15,
  A_TYPE = 20,
  A_REF_ATTR_NAME = 21,
  A_SPARSE_TENSOR = 22,
  A_SPARSE_TENSORS = 23
};
enum { VI_NAME = 1, VI_TYPE = 2 };
enum { TP_TENSOR = 1 };
enum { TT_ELEM_TYPE = 1, TT_SHAPE = 2 };
enum { SH_DIM = 1 };
enum { D_VALUE = 1, D_PARAM = 2 };

/* ---- Shared helpers -------------------------------------------------------- */

static onyx_status want_wire(const onyx__pb_field *f, uint32_t wire, const char *what,
                             onyx_error *err) {
  return f->wire == wire ? ONYX_OK : onyx__pb_wire_error(f, what, wire, err);
}

/* An arena array of n elements of size sz, or NULL for n == 0. */
static onyx_status alloc_array(onyx__arena *arena, size_t n, size_t sz, void **out,
                               onyx_error *err) {
  *out = NULL;
  if (n == 0) return ONYX_OK;
  size_t total = 0;
  if (!onyx__mul_size(n, sz, &total)) {
    return onyx__fail(err, ONYX_OUT_OF_MEMORY, "a list of %zu entries is too large", n);
  }
  *out = onyx__arena_alloc(arena, total);
  if (*out == NULL) {
    return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory for a list of %zu entries", n);
  }
  return ONYX_OK;
}

/* Allocates the list ptr of n elements from arena, returning on failure.
 * The pointer goes through a void * local so that no object is written
 * through an lvalue of another pointer type. */
#define ALLOC_LIST(arena, ptr, n, err)                                  \
  do {                                                                  \
    void *list_;                                                        \
    ONYX__TRY(alloc_array((arena), (n), sizeof *(ptr), &list_, (err))); \
    (ptr) = list_;                                                      \
  } while (0)

/* A field's string value for a message label, without copying: at most 64
 * bytes and never past a NUL. */
static int label_len(const onyx__pb_field *f) {
  size_t max = f->len < 64 ? f->len : 64, n = 0;
  while (n < max && f->data[n] != 0) n++;
  return (int)n;
}

/* ---- skim: validate messages onyx does not decode -------------------------- */

typedef enum skim_kind {
  SK_NONE,
  SK_LEAF, /* a message with no submessages onyx knows of */
  SK_GRAPH,
  SK_NODE,
  SK_ATTR,
  SK_TENSOR,
  SK_SPARSE,
  SK_VALUE_INFO,
  SK_TYPE,
  SK_TYPE_TENSOR,
  SK_TYPE_ELEM, /* Sequence and Optional: field 1 is a TypeProto */
  SK_TYPE_MAP,
  SK_SHAPE,
  SK_TRAINING,
  SK_FUNCTION,
  SK_ANNOTATION
} skim_kind;

/* The kind of message field `number` of a `kind` message holds, or SK_NONE
 * for a scalar, string or unknown field. */
static skim_kind skim_child(skim_kind kind, uint32_t number) {
  switch (kind) {
    case SK_GRAPH:
      switch (number) {
        case 1:
          return SK_NODE;
        case 5:
          return SK_TENSOR;
        case 11:
        case 12:
        case 13:
          return SK_VALUE_INFO;
        case 14:
          return SK_ANNOTATION;
        case 15:
          return SK_SPARSE;
        default:
          return SK_NONE;
      }
    case SK_NODE:
      return number == 5 ? SK_ATTR : SK_NONE;
    case SK_ATTR:
      switch (number) {
        case 5:
        case 10:
          return SK_TENSOR;
        case 6:
        case 11:
          return SK_GRAPH;
        case 14:
        case 15:
          return SK_TYPE;
        case 22:
        case 23:
          return SK_SPARSE;
        default:
          return SK_NONE;
      }
    case SK_TENSOR:
      return number == 3 || number == 13 ? SK_LEAF : SK_NONE;
    case SK_SPARSE:
      return number == 1 || number == 2 ? SK_TENSOR : SK_NONE;
    case SK_VALUE_INFO:
      return number == 2 ? SK_TYPE : SK_NONE;
    case SK_TYPE:
      switch (number) {
        case 1:
        case 8:
          return SK_TYPE_TENSOR;
        case 4:
        case 9:
          return SK_TYPE_ELEM;
        case 5:
          return SK_TYPE_MAP;
        default:
          return SK_NONE;
      }
    case SK_TYPE_TENSOR:
      return number == 2 ? SK_SHAPE : SK_NONE;
    case SK_TYPE_ELEM:
      return number == 1 ? SK_TYPE : SK_NONE;
    case SK_TYPE_MAP:
      return number == 2 ? SK_TYPE : SK_NONE;
    case SK_SHAPE:
      return number == 1 ? SK_LEAF : SK_NONE;
    case SK_TRAINING:
      return number == 1 || number == 2 ? SK_GRAPH : number == 3 || number == 4 ? SK_LEAF : SK_NONE;
    case SK_FUNCTION:
      return number == 7 ? SK_NODE : number == 9 ? SK_LEAF : SK_NONE;
    case SK_ANNOTATION:
      return number == 2 ? SK_LEAF : SK_NONE;
    default:
      return SK_NONE;
  }
}

static onyx_status skim(const onyx__pb *r, const onyx__pb_field *f, skim_kind kind, int depth,
                        onyx_error *err) {
  ONYX__TRY(want_wire(f, ONYX__WIRE_LEN, "message", err));
  ONYX__TRY(onyx__check_depth(depth, f->offset, err));
  onyx__pb s = onyx__pb_sub(r, f);
  while (!onyx__pb_done(&s)) {
    onyx__pb_field g;
    ONYX__TRY(onyx__pb_next(&s, &g, err));
    skim_kind child = skim_child(kind, g.number);
    if (child != SK_NONE) ONYX__TRY(skim(&s, &g, child, depth + 1, err));
  }
  return ONYX_OK;
}

/* ---- Tensor types and value infos ------------------------------------------ */

typedef struct parser {
  onyx_model *m;
  onyx__arena *arena;
  onyx__tensor_src src; /* for initializers and attribute tensors */
} parser;

static onyx_status decode_dim(parser *ps, const onyx__pb *r, const onyx__pb_field *f, int depth,
                              uint32_t index, onyx__value_info *vi, onyx_error *err) {
  ONYX__TRY(want_wire(f, ONYX__WIRE_LEN, "dim", err));
  ONYX__TRY(onyx__check_depth(depth, f->offset, err));
  onyx__pb s = onyx__pb_sub(r, f);
  /* dim_value and dim_param are a oneof: the last one present wins. */
  vi->dims[index] = -1;
  vi->dim_params[index] = NULL;
  while (!onyx__pb_done(&s)) {
    onyx__pb_field g;
    ONYX__TRY(onyx__pb_next(&s, &g, err));
    if (g.number == D_VALUE) {
      ONYX__TRY(want_wire(&g, ONYX__WIRE_VARINT, "dim_value", err));
      int64_t v = (int64_t)g.u;
      if (v < 0) {
        return onyx__fail(err, ONYX_SHAPE, "dimension %u is %lld; dimensions must be >= 0",
                          (unsigned)index, (long long)v);
      }
      vi->dims[index] = v;
      vi->dim_params[index] = NULL;
    } else if (g.number == D_PARAM) {
      ONYX__TRY(onyx__copy_string(ps->arena, &g, "dim_param", &vi->dim_params[index], err));
      vi->dims[index] = -1;
    }
  }
  return ONYX_OK;
}

static onyx_status decode_shape(parser *ps, const onyx__pb *r, const onyx__pb_field *f, int depth,
                                onyx__value_info *vi, onyx_error *err) {
  ONYX__TRY(want_wire(f, ONYX__WIRE_LEN, "shape", err));
  ONYX__TRY(onyx__check_depth(depth, f->offset, err));
  onyx__pb s = onyx__pb_sub(r, f);
  uint32_t rank = 0;
  while (!onyx__pb_done(&s)) {
    onyx__pb_field g;
    ONYX__TRY(onyx__pb_next(&s, &g, err));
    if (g.number != SH_DIM) continue;
    if (rank == ONYX_MAX_RANK) {
      return onyx__fail(err, ONYX_LIMIT, "the shape has more than %d dimensions", ONYX_MAX_RANK);
    }
    ONYX__TRY(decode_dim(ps, &s, &g, depth + 1, rank, vi, err));
    rank++;
  }
  vi->has_shape = true;
  vi->rank = rank;
  return ONYX_OK;
}

static onyx_status decode_tensor_type(parser *ps, const onyx__pb *r, const onyx__pb_field *f,
                                      int depth, onyx__value_info *vi, onyx_error *err) {
  ONYX__TRY(onyx__check_depth(depth, f->offset, err));
  onyx__pb s = onyx__pb_sub(r, f);
  onyx__pb_field shape = {0};
  bool has_shape = false;
  vi->raw_elem_type = 0;
  while (!onyx__pb_done(&s)) {
    onyx__pb_field g;
    ONYX__TRY(onyx__pb_next(&s, &g, err));
    if (g.number == TT_ELEM_TYPE) {
      ONYX__TRY(want_wire(&g, ONYX__WIRE_VARINT, "elem_type", err));
      vi->raw_elem_type = (int32_t)(uint32_t)g.u; /* protobuf int32 semantics */
    } else if (g.number == TT_SHAPE) {
      ONYX__TRY(want_wire(&g, ONYX__WIRE_LEN, "shape", err));
      shape = g;
      has_shape = true;
    }
  }
  vi->has_type = true;
  vi->dtype = (onyx_dtype)vi->raw_elem_type;
  vi->has_shape = false;
  vi->rank = 0;
  if (has_shape) ONYX__TRY(decode_shape(ps, &s, &shape, depth + 1, vi, err));
  return ONYX_OK;
}

static onyx_status decode_type(parser *ps, const onyx__pb *r, const onyx__pb_field *f, int depth,
                               onyx__value_info *vi, onyx_error *err) {
  ONYX__TRY(onyx__check_depth(depth, f->offset, err));
  onyx__pb s = onyx__pb_sub(r, f);
  /* The value is a oneof: the last member present wins. Members other than
   * tensor_type are only validated; the session refuses them. */
  onyx__pb_field last = {0};
  bool is_tensor = false;
  while (!onyx__pb_done(&s)) {
    onyx__pb_field g;
    ONYX__TRY(onyx__pb_next(&s, &g, err));
    skim_kind child = skim_child(SK_TYPE, g.number);
    if (child == SK_NONE) continue;
    ONYX__TRY(skim(&s, &g, child, depth + 1, err));
    is_tensor = g.number == TP_TENSOR;
    last = g;
  }
  vi->has_type = false;
  if (is_tensor) ONYX__TRY(decode_tensor_type(ps, &s, &last, depth + 1, vi, err));
  return ONYX_OK;
}

static onyx_status decode_value_info(parser *ps, const onyx__pb *r, const onyx__pb_field *f,
                                     int depth, onyx__value_info *vi, onyx_error *err) {
  ONYX__TRY(want_wire(f, ONYX__WIRE_LEN, "value info", err));
  ONYX__TRY(onyx__check_depth(depth, f->offset, err));
  onyx__pb s = onyx__pb_sub(r, f);
  onyx__pb_field type = {0};
  bool has_type = false;
  vi->name = "";
  while (!onyx__pb_done(&s)) {
    onyx__pb_field g;
    ONYX__TRY(onyx__pb_next(&s, &g, err));
    if (g.number == VI_NAME) {
      ONYX__TRY(onyx__copy_string(ps->arena, &g, "the name", &vi->name, err));
    } else if (g.number == VI_TYPE) {
      ONYX__TRY(want_wire(&g, ONYX__WIRE_LEN, "type", err));
      type = g;
      has_type = true;
    }
  }
  if (has_type) ONYX__TRY(decode_type(ps, &s, &type, depth + 1, vi, err));
  return ONYX_OK;
}

/* ---- Attributes ------------------------------------------------------------- */

/* Presence bits of the value fields, indexed by onyx__attr_type. */
static onyx__attr_type attr_type_of_field(uint32_t number) {
  switch (number) {
    case A_F:
      return ONYX__ATTR_FLOAT;
    case A_I:
      return ONYX__ATTR_INT;
    case A_S:
      return ONYX__ATTR_STRING;
    case A_T:
      return ONYX__ATTR_TENSOR;
    case A_G:
      return ONYX__ATTR_GRAPH;
    case A_FLOATS:
      return ONYX__ATTR_FLOATS;
    case A_INTS:
      return ONYX__ATTR_INTS;
    case A_STRINGS:
      return ONYX__ATTR_STRINGS;
    case A_TENSORS:
      return ONYX__ATTR_TENSORS;
    case A_GRAPHS:
      return ONYX__ATTR_GRAPHS;
    case A_SPARSE_TENSOR:
      return ONYX__ATTR_SPARSE_TENSOR;
    case A_SPARSE_TENSORS:
      return ONYX__ATTR_SPARSE_TENSORS;
    case A_TP:
      return ONYX__ATTR_TYPE_PROTO;
    case A_TYPE_PROTOS:
      return ONYX__ATTR_TYPE_PROTOS;
    default:
      return ONYX__ATTR_UNDEFINED;
  }
}

/* What pass 1 over an attribute keeps besides the scalars it stores. */
typedef struct attr_scan {
  int64_t type;
  bool has_type;
  uint32_t present; /* bit per onyx__attr_type with a value field */
  onyx__pb_field t; /* the last tensor */
  bool has_t;
} attr_scan;

/* Counts the values of a packed or unpacked list field into *count. */
static onyx_status count_values(const onyx__pb *s, const onyx__pb_field *g, uint32_t wire,
                                const char *what, size_t *count, onyx_error *err) {
  onyx__pb vals = {0};
  size_t n = 0;
  ONYX__TRY(onyx__pb_values(s, g, wire, what, &vals, &n, err));
  *count += n;
  return ONYX_OK;
}

/* A field onyx does not read: a message is validated by skim(). */
static onyx_status skim_attr_field(const onyx__pb *s, const onyx__pb_field *g, int depth,
                                   onyx_error *err) {
  skim_kind child = skim_child(SK_ATTR, g->number);
  return child != SK_NONE ? skim(s, g, child, depth + 1, err) : ONYX_OK;
}

/* Whether the build decodes values of attribute type t (config.h): a
 * constant, so that the decoding of the others is compiled out. */
#define KEEPS(t) ONYX__KEEPS_ATTR(ONYX__ATTR_##t)
_Static_assert(ONYX__A_FLOAT == 1u << ONYX__ATTR_FLOAT && ONYX__A_INTS == 1u << ONYX__ATTR_INTS &&
                   ONYX__A_SPARSE_TENSOR == 1u << ONYX__ATTR_SPARSE_TENSOR,
               "config.h's ONYX__A_ bits are onyx__attr_type's");

/* One field of an attribute in pass 1: scalars stored, the tensor kept,
 * list sizes counted, everything else validated. A value of a type the
 * build leaves out is validated as an unread field; its presence bit still
 * gives the attribute its type, so that session creation refuses it. */
static onyx_status scan_attr_field(parser *ps, const onyx__pb *s, const onyx__pb_field *g,
                                   int depth, onyx__attr *a, attr_scan *sc, onyx_error *err) {
  onyx__attr_type vt = attr_type_of_field(g->number);
  if (vt != ONYX__ATTR_UNDEFINED) sc->present |= 1u << vt;
  switch (g->number) {
    case A_NAME:
      return ONYX_OK; /* copied by the caller */
    case A_TYPE:
      ONYX__TRY(want_wire(g, ONYX__WIRE_VARINT, "type", err));
      sc->type = (int32_t)(uint32_t)g->u; /* an enum is an int32 on the wire */
      sc->has_type = true;
      return ONYX_OK;
    case A_F: {
      if (!KEEPS(FLOAT)) return skim_attr_field(s, g, depth, err);
      ONYX__TRY(want_wire(g, ONYX__WIRE_FIXED32, "f", err));
      uint32_t bits = (uint32_t)g->u;
      memcpy(&a->f, &bits, sizeof a->f);
      return ONYX_OK;
    }
    case A_I:
      if (!KEEPS(INT)) return skim_attr_field(s, g, depth, err);
      ONYX__TRY(want_wire(g, ONYX__WIRE_VARINT, "i", err));
      a->i = (int64_t)g->u;
      return ONYX_OK;
    case A_S:
      /* s is declared bytes: a NUL inside is kept, and s_len says how
       * long the value really is. */
      if (!KEEPS(STRING)) return skim_attr_field(s, g, depth, err);
      ONYX__TRY(want_wire(g, ONYX__WIRE_LEN, "s", err));
      a->s = onyx__arena_strndup(ps->arena, (const char *)g->data, g->len);
      if (a->s == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory copying s");
      a->s_len = g->len;
      return ONYX_OK;
    case A_T:
      if (!KEEPS(TENSOR)) return skim_attr_field(s, g, depth, err);
      ONYX__TRY(want_wire(g, ONYX__WIRE_LEN, "t", err));
      sc->t = *g;
      sc->has_t = true;
      return ONYX_OK;
    case A_FLOATS:
      if (!KEEPS(FLOATS)) return skim_attr_field(s, g, depth, err);
      return count_values(s, g, ONYX__WIRE_FIXED32, "floats", &a->n_floats, err);
    case A_INTS:
      if (!KEEPS(INTS)) return skim_attr_field(s, g, depth, err);
      return count_values(s, g, ONYX__WIRE_VARINT, "ints", &a->n_ints, err);
    case A_STRINGS:
      if (!KEEPS(STRINGS)) return skim_attr_field(s, g, depth, err);
      return want_wire(g, ONYX__WIRE_LEN, "strings", err);
    case A_REF_ATTR_NAME:
      a->has_ref_attr_name = true;
      return want_wire(g, ONYX__WIRE_LEN, "ref_attr_name", err);
    default:
      return skim_attr_field(s, g, depth, err);
  }
}

/* Old exporters omit `type`; then the one value field present names it.
 * With none or several, it stays undefined and the session refuses it. */
static onyx__attr_type attr_type(const attr_scan *sc) {
  if (sc->has_type && sc->type != ONYX__ATTR_UNDEFINED) {
    return sc->type < 0 || sc->type > 255 ? (onyx__attr_type)255 : (onyx__attr_type)sc->type;
  }
  uint32_t present = sc->present;
  if (present == 0 || (present & (present - 1)) != 0) return ONYX__ATTR_UNDEFINED;
  int bit = 0;
  while (!((present >> bit) & 1u)) bit++;
  return (onyx__attr_type)bit;
}

static onyx_status decode_attr_tensor(parser *ps, const onyx__pb_field *t, int depth, onyx__attr *a,
                                      onyx_error *err) {
  a->t = onyx__arena_alloc(ps->arena, sizeof *a->t);
  if (a->t == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  onyx_status st = onyx__tensor_decode_at(&ps->src, t->data, t->len, depth + 1, a->t, err);
  if (st != ONYX_OK) onyx__error_prefix(err, "tensor");
  return st;
}

/* Pass 2: the values of floats and ints, across every occurrence. */
static onyx_status decode_attr_lists(parser *ps, const onyx__pb *r, const onyx__pb_field *f,
                                     onyx__attr *a, onyx_error *err) {
  if (!KEEPS(FLOATS) && !KEEPS(INTS)) return ONYX_OK;
  ALLOC_LIST(ps->arena, a->floats, a->n_floats, err);
  ALLOC_LIST(ps->arena, a->ints, a->n_ints, err);
  if (a->n_floats == 0 && a->n_ints == 0) return ONYX_OK;
  size_t nf = 0, ni = 0;
  onyx__pb s = onyx__pb_sub(r, f);
  while (!onyx__pb_done(&s)) {
    onyx__pb_field g;
    ONYX__TRY(onyx__pb_next(&s, &g, err));
    onyx__pb vals = {0};
    size_t n = 0;
    if (KEEPS(FLOATS) && g.number == A_FLOATS) {
      ONYX__TRY(onyx__pb_values(&s, &g, ONYX__WIRE_FIXED32, "floats", &vals, &n, err));
      for (size_t k = 0; k < n; k++) {
        uint32_t bits = 0;
        ONYX__TRY(onyx__pb_fixed32(&vals, &bits, err));
        memcpy(&a->floats[nf++], &bits, sizeof bits);
      }
    } else if (KEEPS(INTS) && g.number == A_INTS) {
      ONYX__TRY(onyx__pb_values(&s, &g, ONYX__WIRE_VARINT, "ints", &vals, &n, err));
      for (size_t k = 0; k < n; k++) {
        uint64_t v = 0;
        ONYX__TRY(onyx__pb_varint(&vals, &v, err));
        a->ints[ni++] = (int64_t)v;
      }
    }
  }
  return ONYX_OK;
}

static onyx_status decode_attr_body(parser *ps, const onyx__pb *r, const onyx__pb_field *f,
                                    int depth, onyx__attr *a, onyx_error *err) {
  attr_scan sc = {0};
  onyx__pb s = onyx__pb_sub(r, f);
  while (!onyx__pb_done(&s)) {
    onyx__pb_field g;
    ONYX__TRY(onyx__pb_next(&s, &g, err));
    ONYX__TRY(scan_attr_field(ps, &s, &g, depth, a, &sc, err));
  }
  a->type = attr_type(&sc);
  if (KEEPS(TENSOR) && sc.has_t) ONYX__TRY(decode_attr_tensor(ps, &sc.t, depth, a, err));
  return decode_attr_lists(ps, r, f, a, err);
}

static onyx_status decode_attr(parser *ps, const onyx__pb *r, const onyx__pb_field *f, int depth,
                               size_t index, onyx__attr *a, onyx_error *err) {
  ONYX__TRY(want_wire(f, ONYX__WIRE_LEN, "attribute", err));
  onyx_status st = onyx__check_depth(depth, f->offset, err);
  /* The name first, so that every message about the attribute names it. */
  a->name = "";
  onyx__pb s = onyx__pb_sub(r, f);
  while (st == ONYX_OK && !onyx__pb_done(&s)) {
    onyx__pb_field g;
    st = onyx__pb_next(&s, &g, err);
    if (st == ONYX_OK && g.number == A_NAME) {
      st = onyx__copy_string(ps->arena, &g, "the attribute name", &a->name, err);
    }
  }
  if (st != ONYX_OK) {
    onyx__error_prefix(err, "attribute %zu", index);
    return st;
  }
  st = decode_attr_body(ps, r, f, depth, a, err);
  if (st != ONYX_OK) {
    if (a->name[0] != '\0') {
      onyx__error_prefix(err, "attribute '%.64s'", a->name);
    } else {
      onyx__error_prefix(err, "attribute %zu", index);
    }
  }
  return st;
}

/* ---- Nodes ------------------------------------------------------------------- */

static onyx_status decode_node_body(parser *ps, const onyx__pb *r, const onyx__pb_field *f,
                                    int depth, onyx__node *n, onyx_error *err) {
  ALLOC_LIST(ps->arena, n->inputs, n->n_inputs, err);
  ALLOC_LIST(ps->arena, n->outputs, n->n_outputs, err);
  ALLOC_LIST(ps->arena, n->attrs, n->n_attrs, err);
  size_t ni = 0, no = 0, na = 0;
  onyx__pb s = onyx__pb_sub(r, f);
  while (!onyx__pb_done(&s)) {
    onyx__pb_field g;
    ONYX__TRY(onyx__pb_next(&s, &g, err));
    switch (g.number) {
      case N_INPUT:
        ONYX__TRY(onyx__copy_string(ps->arena, &g, "an input name", &n->inputs[ni++], err));
        break;
      case N_OUTPUT:
        ONYX__TRY(onyx__copy_string(ps->arena, &g, "an output name", &n->outputs[no++], err));
        break;
      case N_ATTRIBUTE:
        ONYX__TRY(decode_attr(ps, &s, &g, depth + 1, na, &n->attrs[na], err));
        na++;
        break;
      default:
        break;
    }
  }
  return ONYX_OK;
}

static onyx_status decode_node(parser *ps, const onyx__pb *r, const onyx__pb_field *f, int depth,
                               size_t index, onyx__node *n, onyx_error *err) {
  onyx_status st = want_wire(f, ONYX__WIRE_LEN, "node", err);
  if (st == ONYX_OK) st = onyx__check_depth(depth, f->offset, err);
  /* Pass 1: counts, and the name, op type and domain for messages. */
  n->name = n->op_type = n->domain = "";
  onyx__pb s = onyx__pb_sub(r, f);
  onyx__pb_field name = {0}, op = {0};
  while (st == ONYX_OK && !onyx__pb_done(&s)) {
    onyx__pb_field g;
    st = onyx__pb_next(&s, &g, err);
    if (st != ONYX_OK) break;
    switch (g.number) {
      case N_INPUT:
        st = want_wire(&g, ONYX__WIRE_LEN, "input", err);
        n->n_inputs++;
        break;
      case N_OUTPUT:
        st = want_wire(&g, ONYX__WIRE_LEN, "output", err);
        n->n_outputs++;
        break;
      case N_ATTRIBUTE:
        st = want_wire(&g, ONYX__WIRE_LEN, "attribute", err);
        n->n_attrs++;
        break;
      case N_NAME:
        st = onyx__copy_string(ps->arena, &g, "the node name", &n->name, err);
        name = g;
        break;
      case N_OP_TYPE:
        st = onyx__copy_string(ps->arena, &g, "op_type", &n->op_type, err);
        op = g;
        break;
      case N_DOMAIN:
        st = onyx__copy_string(ps->arena, &g, "domain", &n->domain, err);
        break;
      default:
        break;
    }
  }
  if (st != ONYX_OK) {
    if (name.len) {
      onyx__error_prefix(err, "node %zu ('%.*s')", index, label_len(&name),
                         (const char *)name.data);
    } else {
      onyx__error_prefix(err, "node %zu", index);
    }
    return st;
  }
  if (strcmp(n->domain, "ai.onnx") == 0) n->domain = "";
  st = decode_node_body(ps, r, f, depth, n, err);
  if (st != ONYX_OK) {
    if (n->name[0] != '\0') {
      onyx__error_prefix(err, "node %zu ('%.64s')", index, n->name);
    } else if (op.len) {
      onyx__error_prefix(err, "node %zu (%.64s)", index, n->op_type);
    } else {
      onyx__error_prefix(err, "node %zu", index);
    }
  }
  return st;
}

/* ---- Graph ------------------------------------------------------------------- */

/* Prefixes err with "what index ('name')" or "what index". */
static void name_prefix(onyx_error *err, const char *what, size_t index, const char *name) {
  if (name != NULL && name[0] != '\0') {
    onyx__error_prefix(err, "%s %zu ('%.64s')", what, index, name);
  } else {
    onyx__error_prefix(err, "%s %zu", what, index);
  }
}

/* One field of a graph in pass 1: lists counted, the name copied, the
 * messages onyx does not decode validated. */
static onyx_status count_graph_field(parser *ps, const onyx__pb *s, const onyx__pb_field *h,
                                     int depth, onyx__graph *g, onyx_error *err) {
  switch (h->number) {
    case G_NODE:
      g->n_nodes++;
      return want_wire(h, ONYX__WIRE_LEN, "node", err);
    case G_INITIALIZER:
      g->n_initializers++;
      return want_wire(h, ONYX__WIRE_LEN, "initializer", err);
    case G_INPUT:
      g->n_inputs++;
      return want_wire(h, ONYX__WIRE_LEN, "input", err);
    case G_OUTPUT:
      g->n_outputs++;
      return want_wire(h, ONYX__WIRE_LEN, "output", err);
    case G_SPARSE_INITIALIZER:
      g->n_sparse_initializers++;
      return skim(s, h, SK_SPARSE, depth + 1, err);
    case G_NAME:
      return onyx__copy_string(ps->arena, h, "the graph name", &g->name, err);
    default: {
      skim_kind child = skim_child(SK_GRAPH, h->number);
      return child != SK_NONE ? skim(s, h, child, depth + 1, err) : ONYX_OK;
    }
  }
}

static onyx_status decode_initializer(parser *ps, const onyx__pb_field *h, int depth, size_t index,
                                      onyx__tensor *t, onyx_error *err) {
  onyx_status st = onyx__tensor_decode_at(&ps->src, h->data, h->len, depth, t, err);
  if (st != ONYX_OK) {
    if (t->name != NULL && t->name[0] != '\0') {
      onyx__error_prefix(err, "initializer '%.64s'", t->name);
    } else {
      onyx__error_prefix(err, "initializer %zu", index);
    }
  }
  return st;
}

static onyx_status decode_io(parser *ps, const onyx__pb *s, const onyx__pb_field *h, int depth,
                             const char *what, size_t index, onyx__value_info *vi,
                             onyx_error *err) {
  onyx_status st = decode_value_info(ps, s, h, depth, vi, err);
  if (st != ONYX_OK) name_prefix(err, what, index, vi->name);
  return st;
}

/* How many entries of each list pass 2 has filled. */
typedef struct graph_fill {
  size_t nodes, initializers, inputs, outputs;
} graph_fill;

/* One field of a graph in pass 2: nodes, initializers, inputs, outputs. */
static onyx_status decode_graph_field(parser *ps, const onyx__pb *s, const onyx__pb_field *h,
                                      int depth, onyx__graph *g, graph_fill *n, onyx_error *err) {
  switch (h->number) {
    case G_NODE:
      n->nodes++;
      return decode_node(ps, s, h, depth + 1, n->nodes - 1, &g->nodes[n->nodes - 1], err);
    case G_INITIALIZER:
      n->initializers++;
      return decode_initializer(ps, h, depth + 1, n->initializers - 1,
                                &g->initializers[n->initializers - 1], err);
    case G_INPUT:
      n->inputs++;
      return decode_io(ps, s, h, depth + 1, "graph input", n->inputs - 1, &g->inputs[n->inputs - 1],
                       err);
    case G_OUTPUT:
      n->outputs++;
      return decode_io(ps, s, h, depth + 1, "graph output", n->outputs - 1,
                       &g->outputs[n->outputs - 1], err);
    default:
      return ONYX_OK;
  }
}

static onyx_status decode_graph(parser *ps, const onyx__pb *r, const onyx__pb_field *f, int depth,
                                onyx__graph *g, onyx_error *err) {
  ONYX__TRY(want_wire(f, ONYX__WIRE_LEN, "graph", err));
  ONYX__TRY(onyx__check_depth(depth, f->offset, err));
  g->name = "";
  onyx__pb s = onyx__pb_sub(r, f);
  while (!onyx__pb_done(&s)) {
    onyx__pb_field h;
    ONYX__TRY(onyx__pb_next(&s, &h, err));
    ONYX__TRY(count_graph_field(ps, &s, &h, depth, g, err));
  }
  ALLOC_LIST(ps->arena, g->nodes, g->n_nodes, err);
  ALLOC_LIST(ps->arena, g->initializers, g->n_initializers, err);
  ALLOC_LIST(ps->arena, g->inputs, g->n_inputs, err);
  ALLOC_LIST(ps->arena, g->outputs, g->n_outputs, err);
  graph_fill n = {0};
  s = onyx__pb_sub(r, f);
  while (!onyx__pb_done(&s)) {
    onyx__pb_field h;
    ONYX__TRY(onyx__pb_next(&s, &h, err));
    ONYX__TRY(decode_graph_field(ps, &s, &h, depth, g, &n, err));
  }
  return ONYX_OK;
}

/* ---- Model --------------------------------------------------------------- */

static onyx_status decode_opset(parser *ps, const onyx__pb *r, const onyx__pb_field *f, int depth,
                                onyx__opset *o, onyx_error *err) {
  ONYX__TRY(onyx__check_depth(depth, f->offset, err));
  onyx__pb s = onyx__pb_sub(r, f);
  o->domain = "";
  o->version = 0;
  while (!onyx__pb_done(&s)) {
    onyx__pb_field g;
    ONYX__TRY(onyx__pb_next(&s, &g, err));
    if (g.number == OS_DOMAIN) {
      ONYX__TRY(onyx__copy_string(ps->arena, &g, "the opset domain", &o->domain, err));
    } else if (g.number == OS_VERSION) {
      ONYX__TRY(want_wire(&g, ONYX__WIRE_VARINT, "version", err));
      o->version = (int64_t)g.u;
    }
  }
  if (strcmp(o->domain, "ai.onnx") == 0) o->domain = "";
  return ONYX_OK;
}

static int compare_domains(const void *a, const void *b) {
  const onyx__opset *x = a, *y = b;
  return strcmp(x->domain, y->domain);
}

static onyx_status check_opsets(parser *ps, onyx_error *err) {
  onyx_model *m = ps->m;
  /* Duplicates are found by sorting, so that a hostile model with many
   * imports costs n log n, not n squared. */
  if (m->n_opsets > 1) {
    const void **sorted; /* of const onyx__opset */
    ALLOC_LIST(ps->arena, sorted, m->n_opsets, err);
    for (size_t i = 0; i < m->n_opsets; i++) sorted[i] = &m->opsets[i];
    onyx__sort_ptrs(sorted, m->n_opsets, compare_domains);
    for (size_t i = 1; i < m->n_opsets; i++) {
      const char *d = ((const onyx__opset *)sorted[i])->domain;
      if (strcmp(((const onyx__opset *)sorted[i - 1])->domain, d) == 0) {
        return onyx__fail(err, ONYX_OPSET, "the model imports domain '%.64s' more than once",
                          d[0] ? d : "ai.onnx");
      }
    }
  }
  const onyx__opset *onnx = NULL;
  for (size_t i = 0; i < m->n_opsets; i++) {
    if (m->opsets[i].domain[0] == '\0') onnx = &m->opsets[i];
  }
  int64_t max = ONYX__MAX_OPSET;
  if (onnx == NULL) {
    /* Valid ONNX (a model of training ops, say): it loads, so that it can
     * be described, and session creation refuses its nodes (check_node). */
    m->onnx_opset = 0;
    return ONYX_OK;
  }
  if (onnx->version < 1 || onnx->version > max) {
    return onyx__fail(err, ONYX_OPSET,
                      "ai.onnx opset %lld is not supported; onyx supports opsets 1 to %lld",
                      (long long)onnx->version, (long long)max);
  }
  m->onnx_opset = onnx->version;
  return ONYX_OK;
}

/* The model's top-level fields: what pass 1 keeps. */
typedef struct top {
  onyx__pb_field graph;
  bool has_graph, has_ir;
} top;

#ifndef ONYX_OMIT_METADATA
/* A descriptive string field (producer_name, ...): copied whole; a value
 * holding a NUL byte reads, as a C string, up to the NUL. */
static onyx_status copy_text(parser *ps, const onyx__pb_field *f, const char *what,
                             const char **out, onyx_error *err) {
  ONYX__TRY(want_wire(f, ONYX__WIRE_LEN, what, err));
  *out = onyx__arena_strndup(ps->arena, (const char *)f->data, f->len);
  if (*out == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory copying %s", what);
  return ONYX_OK;
}
#endif

/* One top-level field in pass 1: scalars and descriptive strings are
 * kept, lists counted, and messages onyx does not decode validated. */
static onyx_status top_field(parser *ps, const onyx__pb *r, const onyx__pb_field *f, top *t,
                             onyx_error *err) {
  onyx_model *m = ps->m;
  switch (f->number) {
    case M_IR_VERSION:
      ONYX__TRY(want_wire(f, ONYX__WIRE_VARINT, "ir_version", err));
      m->ir_version = (int64_t)f->u;
      t->has_ir = true;
      return ONYX_OK;
    case M_OPSET_IMPORT:
      ONYX__TRY(want_wire(f, ONYX__WIRE_LEN, "opset_import", err));
      m->n_opsets++;
      return ONYX_OK;
    case M_GRAPH:
      ONYX__TRY(want_wire(f, ONYX__WIRE_LEN, "graph", err));
      /* protobuf would merge two graphs; no writer produces that, and
       * guessing what was meant is worse than saying so. */
      if (t->has_graph) {
        return onyx__fail(err, ONYX_PARSE, "the model has more than one graph (at byte %zu)",
                          f->offset);
      }
      t->graph = *f;
      t->has_graph = true;
      return ONYX_OK;
#ifdef ONYX_OMIT_METADATA /* the descriptive fields are read as unknown ones */
    case M_METADATA:
      return skim(r, f, SK_LEAF, 2, err);
#else
    case M_PRODUCER_NAME:
      return copy_text(ps, f, "producer_name", &m->meta.producer_name, err);
    case M_PRODUCER_VERSION:
      return copy_text(ps, f, "producer_version", &m->meta.producer_version, err);
    case M_DOMAIN:
      return copy_text(ps, f, "domain", &m->meta.domain, err);
    case M_DOC_STRING:
      return copy_text(ps, f, "doc_string", &m->meta.doc_string, err);
    case M_MODEL_VERSION:
      ONYX__TRY(want_wire(f, ONYX__WIRE_VARINT, "model_version", err));
      m->meta.model_version = (int64_t)f->u;
      return ONYX_OK;
    case M_METADATA:
      m->meta.n_props++;
      return skim(r, f, SK_LEAF, 2, err);
#endif
    case M_TRAINING_INFO:
      return skim(r, f, SK_TRAINING, 2, err);
    case M_FUNCTIONS:
      return skim(r, f, SK_FUNCTION, 2, err);
    default:
      return ONYX_OK; /* unknown fields are skipped, as protobuf requires */
  }
}

static onyx_status check_ir_version(const onyx_model *m, bool has_ir, onyx_error *err) {
  if (!has_ir || m->ir_version == 0) {
    return onyx__fail(err, ONYX_IR_VERSION, "the model has no ir_version; onyx reads %d to %d",
                      ONYX__MIN_IR_VERSION, ONYX__MAX_IR_VERSION);
  }
  if (m->ir_version < ONYX__MIN_IR_VERSION || m->ir_version > ONYX__MAX_IR_VERSION) {
    return onyx__fail(err, ONYX_IR_VERSION, "ir_version %lld is not supported; onyx reads %d to %d",
                      (long long)m->ir_version, ONYX__MIN_IR_VERSION, ONYX__MAX_IR_VERSION);
  }
  return ONYX_OK;
}

#ifndef ONYX_OMIT_METADATA
/* One metadata_props entry (StringStringEntryProto: key 1, value 2). */
static onyx_status decode_prop(parser *ps, const onyx__pb *r, const onyx__pb_field *f, size_t index,
                               onyx_error *err) {
  onyx__meta *meta = &ps->m->meta;
  meta->keys[index] = meta->values[index] = "";
  onyx__pb s = onyx__pb_sub(r, f);
  while (!onyx__pb_done(&s)) {
    onyx__pb_field g;
    ONYX__TRY(onyx__pb_next(&s, &g, err));
    if (g.number == 1) ONYX__TRY(copy_text(ps, &g, "key", &meta->keys[index], err));
    if (g.number == 2) ONYX__TRY(copy_text(ps, &g, "value", &meta->values[index], err));
  }
  return ONYX_OK;
}
#endif

/* Pass 2 over the top level: the opset imports and metadata_props, each
 * list in one allocation sized by pass 1. */
static onyx_status decode_top_lists(parser *ps, onyx_error *err) {
  onyx_model *m = ps->m;
  ALLOC_LIST(ps->arena, m->opsets, m->n_opsets, err);
  ALLOC_LIST(ps->arena, m->meta.keys, m->meta.n_props, err);
  ALLOC_LIST(ps->arena, m->meta.values, m->meta.n_props, err);
  size_t k = 0, p = 0;
  (void)p; /* unused without metadata */
  onyx__pb r;
  onyx__pb_init(&r, m->bytes, m->bytes, m->size);
  while (!onyx__pb_done(&r)) {
    onyx__pb_field f;
    ONYX__TRY(onyx__pb_next(&r, &f, err));
    onyx_status st = ONYX_OK;
    if (f.number == M_OPSET_IMPORT) {
      st = decode_opset(ps, &r, &f, 2, &m->opsets[k], err);
      if (st != ONYX_OK) onyx__error_prefix(err, "opset import %zu", k);
      k++;
    }
#ifndef ONYX_OMIT_METADATA
    else if (f.number == M_METADATA) {
      st = decode_prop(ps, &r, &f, p, err);
      if (st != ONYX_OK) onyx__error_prefix(err, "metadata_props %zu", p);
      p++;
    }
#endif
    if (st != ONYX_OK) return st;
  }
  return ONYX_OK;
}

onyx_status onyx__model_parse(onyx_model *m, onyx_error *err) {
  if (m == NULL || (m->bytes == NULL && m->size != 0)) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx__model_parse: no bytes");
  }
  /* Payloads stay where they lie in memory the model keeps: the caller's
   * bytes or a mapping kept for the model's life. */
  bool in_place = m->payloads == NULL || m->mapping != NULL;
  parser ps = {m, &m->arena, {m->bytes, &m->arena, m->dir, m->payloads, in_place}};
  m->ir_version = 0;
  m->n_opsets = 0;
  m->meta = (onyx__meta){"", "", "", "", 0, 0, NULL, NULL};
  top t = {0};
  /* Pass 1: the top level, validating everything onyx does not decode.
   * The model is depth 1, its fields' messages depth 2. */
  onyx__pb r;
  onyx__pb_init(&r, m->bytes, m->bytes, m->size);
  while (!onyx__pb_done(&r)) {
    onyx__pb_field f;
    ONYX__TRY(onyx__pb_next(&r, &f, err));
    ONYX__TRY(top_field(&ps, &r, &f, &t, err));
  }
  ONYX__TRY(check_ir_version(m, t.has_ir, err));
  ONYX__TRY(decode_top_lists(&ps, err));
  ONYX__TRY(check_opsets(&ps, err));
  if (!t.has_graph) return onyx__fail(err, ONYX_PARSE, "the model has no graph");
  onyx__pb_init(&r, m->bytes, m->bytes, m->size);
  return decode_graph(&ps, &r, &t.graph, 2, &m->graph, err);
}

/* ---- Public getters ------------------------------------------------------- */

int64_t onyx_model_ir_version(const onyx_model *model) {
  return model != NULL ? model->ir_version : 0;
}

size_t onyx_model_opset_count(const onyx_model *model) {
  return model != NULL ? model->n_opsets : 0;
}

onyx_status onyx_model_opset(const onyx_model *model, size_t index, const char **domain,
                             int64_t *version, onyx_error *err) {
  if (model == NULL)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_model_opset: model is NULL");
  if (index >= model->n_opsets) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "onyx_model_opset: index %zu is out of range (the model has %zu imports)",
                      index, model->n_opsets);
  }
  if (domain != NULL) *domain = model->opsets[index].domain;
  if (version != NULL) *version = model->opsets[index].version;
  return ONYX_OK;
}

size_t onyx_model_node_count(const onyx_model *model) {
  return model != NULL ? model->graph.n_nodes : 0;
}

onyx_status onyx_model_node(const onyx_model *model, size_t index, onyx_node_info *out,
                            onyx_error *err) {
  if (model == NULL || out == NULL) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_model_node: %s is NULL",
                      model == NULL ? "model" : "out");
  }
  if (index >= model->graph.n_nodes) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "onyx_model_node: index %zu is out of range (the graph has %zu nodes)", index,
                      model->graph.n_nodes);
  }
  const onyx__node *n = &model->graph.nodes[index];
  out->op_type = n->op_type;
  out->domain = n->domain;
  out->name = n->name;
  out->input_count = n->n_inputs;
  out->inputs = (const char *const *)n->inputs;
  out->output_count = n->n_outputs;
  out->outputs = (const char *const *)n->outputs;
  return ONYX_OK;
}

onyx_status onyx_model_metadata(const onyx_model *model, onyx_model_meta *out, onyx_error *err) {
  if (model == NULL || out == NULL) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_model_metadata: %s is NULL",
                      model == NULL ? "model" : "out");
  }
#ifdef ONYX_OMIT_METADATA
  return onyx__fail(err, ONYX_UNSUPPORTED_OP,
                    "onyx_model_metadata: the model's metadata is left out of this build");
#endif
  const onyx__meta *m = &model->meta;
  out->producer_name = m->producer_name;
  out->producer_version = m->producer_version;
  out->domain = m->domain;
  out->model_version = m->model_version;
  out->doc_string = m->doc_string;
  out->graph_name = model->graph.name;
  out->metadata_count = m->n_props;
  out->metadata_keys = (const char *const *)m->keys;
  out->metadata_values = (const char *const *)m->values;
  return ONYX_OK;
}
