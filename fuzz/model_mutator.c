/* SPDX-License-Identifier: MIT */
/*
 * A structure-aware mutator for fuzz_model_graph: libFuzzer's
 * LLVMFuzzerCustomMutator and LLVMFuzzerCustomCrossOver.
 *
 * A byte mutation of a protobuf almost always breaks a length prefix or a
 * tag, so the model dies in the parser and never reaches session planning,
 * fusion or the run. This mutator decodes the model with onyx's own wire
 * reader (src/model/pb.h) into a tree of fields, edits it as a graph (adds,
 * removes and rewires nodes; changes ops, opsets, element types, dims and
 * attributes; adds Constant nodes, initializers, inputs and symbolic dims)
 * and writes it back, so that most mutants load and get a session.
 *
 * It knows the ONNX schema only as far as which fields hold which messages
 * (the `children` table) and the field numbers it edits. Every other field,
 * and any payload that does not decode as the message it should be, is
 * written back as it was read. One time in FALLBACK_ODDS, when the input
 * does not decode, or when the mutant would not fit, it leaves the bytes to
 * libFuzzer's own mutator (LLVMFuzzerMutate) instead, so the parser's error
 * paths stay covered.
 *
 * Everything one call allocates lives in an arena freed at its end; field
 * payloads read from the input point into the caller's buffer, which is
 * only overwritten once the mutant is fully encoded.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "model/pb.h"
#include "onyx.h"

#define FALLBACK_ODDS 8  /* one call in 8 mutates bytes */
#define MAX_EDITS     4  /* edits per call: 1 .. MAX_EDITS */
#define MAX_DEPTH     24 /* nesting decoded as messages; deeper is kept raw */
#define MAX_NEW_RANK  4

/* ---- Arena and random choices --------------------------------------------- */

typedef struct ctx {
  void **blocks; /* every allocation of this call */
  size_t n_blocks, cap_blocks;
  uint64_t rng;
} ctx;

static void *alloc(ctx *c, size_t n) {
  if (c->n_blocks == c->cap_blocks) {
    size_t cap = c->cap_blocks ? 2 * c->cap_blocks : 64;
    void **grown = realloc(c->blocks, cap * sizeof *grown);
    if (grown == NULL) abort();
    c->blocks = grown;
    c->cap_blocks = cap;
  }
  void *p = calloc(1, n ? n : 1);
  if (p == NULL) abort();
  c->blocks[c->n_blocks++] = p;
  return p;
}

static void release(ctx *c) {
  for (size_t i = 0; i < c->n_blocks; i++) free(c->blocks[i]);
  free(c->blocks);
  c->blocks = NULL;
  c->n_blocks = c->cap_blocks = 0;
}

/* A number in [0, n); n > 0. */
static uint64_t below(ctx *c, uint64_t n) { return fuzz_next(&c->rng) % n; }

static int one_in(ctx *c, uint64_t n) { return below(c, n) == 0; }

#define PICK(c, list) ((list)[below((c), sizeof(list) / sizeof((list)[0]))])

/* ---- The tree ----------------------------------------------------------------- */

typedef enum kind {
  RAW,
  MODEL,
  OPSET,
  GRAPH,
  NODE,
  ATTR,
  TENSOR,
  VALUE,
  TYPE,
  TTYPE,
  SHAPE,
  DIM
} kind;

typedef struct msg msg;

/* One field as on the wire. A length-delimited field holds either a decoded
 * message (sub) or bytes; the others hold their value in u. */
typedef struct field {
  uint32_t num, wire;
  uint64_t u;
  const uint8_t *bytes;
  size_t len;
  msg *sub;
} field;

struct msg {
  kind kind;
  field *f;
  size_t n, cap;
};

/* Which fields hold which messages (onnx.proto's numbers). */
static const struct {
  kind parent;
  uint32_t num;
  kind child;
} children[] = {
    {MODEL, 7, GRAPH},  {MODEL, 8, OPSET},  {GRAPH, 1, NODE},   {GRAPH, 5, TENSOR},
    {GRAPH, 11, VALUE}, {GRAPH, 12, VALUE}, {GRAPH, 13, VALUE}, {NODE, 5, ATTR},
    {ATTR, 5, TENSOR},  {ATTR, 6, GRAPH},   {ATTR, 10, TENSOR}, {ATTR, 11, GRAPH},
    {VALUE, 2, TYPE},   {TYPE, 1, TTYPE},   {TTYPE, 2, SHAPE},  {SHAPE, 1, DIM},
};

/* Field numbers this file edits. */
enum {
  MODEL_IR_VERSION = 1,
  MODEL_GRAPH = 7,
  MODEL_OPSET = 8,
  OPSET_DOMAIN = 1,
  OPSET_VERSION = 2,
  GRAPH_NODE = 1,
  GRAPH_INITIALIZER = 5,
  GRAPH_INPUT = 11,
  GRAPH_OUTPUT = 12,
  GRAPH_VALUE_INFO = 13,
  NODE_INPUT = 1,
  NODE_OUTPUT = 2,
  NODE_OP_TYPE = 4,
  NODE_ATTRIBUTE = 5,
  NODE_DOMAIN = 7,
  ATTR_NAME = 1,
  ATTR_F = 2,
  ATTR_I = 3,
  ATTR_T = 5,
  ATTR_FLOATS = 7,
  ATTR_INTS = 8,
  ATTR_TYPE = 20,
  TENSOR_DIMS = 1,
  TENSOR_DATA_TYPE = 2,
  TENSOR_NAME = 8,
  TENSOR_RAW_DATA = 9,
  VALUE_NAME = 1,
  VALUE_TYPE = 2,
  TYPE_TENSOR = 1,
  TTYPE_ELEM = 1,
  TTYPE_SHAPE = 2,
  SHAPE_DIM = 1,
  DIM_VALUE = 1,
  DIM_PARAM = 2
};

/* AttributeProto.AttributeType values. */
enum { AT_FLOAT = 1, AT_INT = 2, AT_TENSOR = 4, AT_FLOATS = 6, AT_INTS = 7 };

static kind child_kind(kind parent, uint32_t num) {
  for (size_t i = 0; i < sizeof children / sizeof children[0]; i++)
    if (children[i].parent == parent && children[i].num == num) return children[i].child;
  return RAW;
}

static msg *new_msg(ctx *c, kind k) {
  msg *m = alloc(c, sizeof *m);
  m->kind = k;
  return m;
}

static field *add_field(ctx *c, msg *m, uint32_t num, uint32_t wire) {
  if (m->n == m->cap) {
    size_t cap = m->cap ? 2 * m->cap : 4;
    field *f = alloc(c, cap * sizeof *f);
    if (m->n) memcpy(f, m->f, m->n * sizeof *f);
    m->f = f;
    m->cap = cap;
  }
  field *f = &m->f[m->n++];
  memset(f, 0, sizeof *f);
  f->num = num;
  f->wire = wire;
  return f;
}

/* Decodes n bytes at p as a message of kind k; NULL if they are not one. */
static msg *decode(ctx *c, kind k, const uint8_t *p, size_t n, int depth) {
  onyx__pb r;
  onyx__pb_init(&r, p, p, n);
  msg *m = new_msg(c, k);
  while (!onyx__pb_done(&r)) {
    onyx__pb_field pf;
    onyx_error err;
    if (onyx__pb_next(&r, &pf, &err) != ONYX_OK) return NULL;
    field *f = add_field(c, m, pf.number, pf.wire);
    f->u = pf.u;
    if (pf.wire != ONYX__WIRE_LEN) continue;
    kind ck = child_kind(k, pf.number);
    if (ck != RAW && depth < MAX_DEPTH) f->sub = decode(c, ck, pf.data, pf.len, depth + 1);
    if (f->sub == NULL) {
      f->bytes = pf.data;
      f->len = pf.len;
    }
  }
  return m;
}

static void encode(const msg *m, onyx__pbw *w) {
  for (size_t i = 0; i < m->n; i++) {
    const field *f = &m->f[i];
    if (f->wire == ONYX__WIRE_LEN && f->sub != NULL) {
      onyx__pbw inner = {0};
      encode(f->sub, &inner);
      onyx__pbw_bytes(w, f->num, inner.buf, inner.len);
      if (inner.failed) w->failed = true;
      onyx__pbw_free(&inner);
      continue;
    }
    onyx__pbw_tag(w, f->num, f->wire);
    switch (f->wire) {
      case ONYX__WIRE_VARINT:
        onyx__pbw_varint(w, f->u);
        break;
      case ONYX__WIRE_FIXED64:
        onyx__pbw_fixed64(w, f->u);
        break;
      case ONYX__WIRE_FIXED32:
        onyx__pbw_fixed32(w, (uint32_t)f->u);
        break;
      default:
        onyx__pbw_varint(w, f->len);
        onyx__pbw_raw(w, f->bytes, f->len);
    }
  }
}

/* Writes m to out if it fits in max bytes; returns whether it did. */
static int emit(const msg *m, uint8_t *out, size_t max, size_t *len) {
  onyx__pbw w = {0};
  encode(m, &w);
  int ok = !w.failed && w.len <= max;
  if (ok) {
    if (w.len) memcpy(out, w.buf, w.len);
    *len = w.len;
  }
  onyx__pbw_free(&w);
  return ok;
}

static msg *clone(ctx *c, const msg *m) {
  msg *copy = new_msg(c, m->kind);
  for (size_t i = 0; i < m->n; i++) {
    field *f = add_field(c, copy, m->f[i].num, m->f[i].wire);
    *f = m->f[i];
    if (f->sub != NULL) f->sub = clone(c, f->sub);
  }
  return copy;
}

/* ---- Field helpers ---------------------------------------------------------------- */

static size_t count_of(const msg *m, uint32_t num) {
  size_t k = 0;
  for (size_t i = 0; i < m->n; i++) k += m->f[i].num == num;
  return k;
}

/* A random field numbered num, or NULL when there is none. */
static field *pick_field(ctx *c, msg *m, uint32_t num) {
  size_t k = count_of(m, num);
  if (k == 0) return NULL;
  size_t want = (size_t)below(c, k);
  for (size_t i = 0; i < m->n; i++)
    if (m->f[i].num == num && want-- == 0) return &m->f[i];
  return NULL;
}

/* A random sub-message numbered num, or NULL. */
static msg *pick_sub(ctx *c, msg *m, uint32_t num) {
  field *f = pick_field(c, m, num);
  return f != NULL ? f->sub : NULL;
}

static void remove_field(msg *m, const field *f) {
  size_t i = (size_t)(f - m->f);
  memmove(&m->f[i], &m->f[i + 1], (m->n - i - 1) * sizeof *f);
  m->n--;
}

static void remove_all(msg *m, uint32_t num) {
  size_t k = 0;
  for (size_t i = 0; i < m->n; i++)
    if (m->f[i].num != num) m->f[k++] = m->f[i];
  m->n = k;
}

/* The first sub-message numbered num, made (empty) if there is none. */
static msg *sub_of(ctx *c, msg *m, uint32_t num, kind k) {
  for (size_t i = 0; i < m->n; i++)
    if (m->f[i].num == num && m->f[i].sub != NULL) return m->f[i].sub;
  field *f = add_field(c, m, num, ONYX__WIRE_LEN);
  f->sub = new_msg(c, k);
  return f->sub;
}

static msg *add_sub(ctx *c, msg *m, uint32_t num, kind k) {
  field *f = add_field(c, m, num, ONYX__WIRE_LEN);
  f->sub = new_msg(c, k);
  return f->sub;
}

static void set_bytes(ctx *c, field *f, const void *p, size_t n) {
  uint8_t *copy = alloc(c, n);
  if (n) memcpy(copy, p, n);
  f->bytes = copy;
  f->len = n;
  f->sub = NULL;
}

static void add_str(ctx *c, msg *m, uint32_t num, const char *s) {
  set_bytes(c, add_field(c, m, num, ONYX__WIRE_LEN), s, strlen(s));
}

static void set_str(ctx *c, msg *m, uint32_t num, const char *s) {
  remove_all(m, num);
  add_str(c, m, num, s);
}

static void set_uint(ctx *c, msg *m, uint32_t num, uint64_t v) {
  remove_all(m, num);
  add_field(c, m, num, ONYX__WIRE_VARINT)->u = v;
}

static void set_float(ctx *c, msg *m, uint32_t num, float v) {
  uint32_t bits;
  memcpy(&bits, &v, sizeof bits);
  remove_all(m, num);
  add_field(c, m, num, ONYX__WIRE_FIXED32)->u = bits;
}

/* Moves the last field of m to a random place among the fields. */
static void shuffle_last(ctx *c, msg *m) {
  if (m->n < 2) return;
  size_t to = (size_t)below(c, m->n);
  field last = m->f[m->n - 1];
  memmove(&m->f[to + 1], &m->f[to], (m->n - 1 - to) * sizeof last);
  m->f[to] = last;
}

/* ---- What the edits choose from ------------------------------------------------------ */

/* The ops onyx runs; ops it does not, which fuzz_model registers from
 * tests/custom/testops.c (Identity, Abs, Relu, Cast, and Sum and Split,
 * of any number of inputs and outputs: edit_wide_node); and an empty one. */
static const char *const ops[] = {"Ceil", "Floor", "Clip", "Sign", "Constant", "Identity",
                                  "Abs",  "Relu",  "Cast", "Sum",  "Split",    ""};
static const char *const unary_ops[] = {"Ceil", "Floor", "Clip", "Sign"};
static const char *const domains[] = {"", "ai.onnx", "ai.onnx.ml", "com.example"};
static const char *const dim_names[] = {"N", "M", "batch", "s", ""};
static const char *const attr_names[] = {
    "min", "max", "value", "value_float", "value_ints", "consumed_inputs", "to", ""};

/* Every element type onyx knows, then some it does not (string, bool,
 * complex, float8, int4 and out of range). */
static const uint64_t dtypes[] = {
#define ONYX_X_(name, value, cname, size) value,
    ONYX_DTYPE_MAP(ONYX_X_)
#undef ONYX_X_
        0,
    8,
    9,
    14,
    17,
    22,
    99};
#define KNOWN_DTYPES (sizeof dtypes / sizeof dtypes[0] - 7)

/* Small sizes mostly; 256 and 65536 make inputs large enough for a run
 * on two threads to split the work (fuzz_model runs up to 65536 elements
 * per input); -1 and 2^20 must be refused or skipped. */
static const int64_t dim_values[] = {0, 1, 1, 2, 3, 4, 7, 16, 256, 65536, -1, 1 << 20};

/* 0, -0, 1, -1, 0.5, -2.5, 1e30, inf, -inf, NaN */
static const uint32_t float_bits[] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f000000,
                                      0xc0200000, 0x7149f2ca, 0x7f800000, 0xff800000, 0x7fc00000};

static float pick_float(ctx *c) {
  uint32_t bits = PICK(c, float_bits);
  float v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

static uint64_t pick_dtype(ctx *c) {
  return one_in(c, 8) ? PICK(c, dtypes) : dtypes[below(c, KNOWN_DTYPES)];
}

/* A name no model is likely to hold yet. */
static const char *fresh_name(ctx *c) {
  char *s = alloc(c, 16);
  snprintf(s, 16, "v%08x", (unsigned)below(c, 0xffffffffu));
  return s;
}

typedef struct name {
  const uint8_t *p;
  size_t n;
} name;

static void consider_names(ctx *c, const msg *m, uint32_t num, name *best, size_t *seen) {
  for (size_t i = 0; i < m->n; i++) {
    const field *f = &m->f[i];
    if (f->num != num || f->wire != ONYX__WIRE_LEN || f->sub != NULL) continue;
    if (one_in(c, ++*seen)) *best = (name){f->bytes, f->len};
  }
}

/* A random value of the graph: an input, an initializer or a node output
 * ("" when it has none). */
static name pick_name(ctx *c, const msg *g) {
  name best = {(const uint8_t *)"", 0};
  size_t seen = 0;
  for (size_t i = 0; i < g->n; i++) {
    const msg *s = g->f[i].sub;
    if (s == NULL) continue;
    if (g->f[i].num == GRAPH_INPUT) consider_names(c, s, VALUE_NAME, &best, &seen);
    if (g->f[i].num == GRAPH_INITIALIZER) consider_names(c, s, TENSOR_NAME, &best, &seen);
    if (g->f[i].num == GRAPH_NODE) consider_names(c, s, NODE_OUTPUT, &best, &seen);
  }
  return best;
}

static int same_name(name a, name b) { return a.n == b.n && (a.n == 0 || !memcmp(a.p, b.p, a.n)); }

static int has_name(const msg *m, uint32_t num, name v) {
  for (size_t i = 0; i < m->n; i++)
    if (m->f[i].num == num && m->f[i].sub == NULL &&
        same_name((name){m->f[i].bytes, m->f[i].len}, v))
      return 1;
  return 0;
}

/* Whether a graph input, an initializer or a node defines v. */
static int defines(const msg *g, name v) {
  for (size_t i = 0; i < g->n; i++) {
    const msg *s = g->f[i].sub;
    if (s == NULL) continue;
    if ((g->f[i].num == GRAPH_INPUT && has_name(s, VALUE_NAME, v)) ||
        (g->f[i].num == GRAPH_INITIALIZER && has_name(s, TENSOR_NAME, v)) ||
        (g->f[i].num == GRAPH_NODE && has_name(s, NODE_OUTPUT, v)))
      return 1;
  }
  return 0;
}

/* Whether part (a node, graph input or initializer) defines a value g
 * defines too. */
static int clashes(const msg *g, const msg *part) {
  for (size_t i = 0; i < part->n; i++) {
    const field *f = &part->f[i];
    int defining = part->kind == NODE    ? f->num == NODE_OUTPUT
                   : part->kind == VALUE ? f->num == VALUE_NAME
                                         : f->num == TENSOR_NAME;
    if (defining && f->sub == NULL && defines(g, (name){f->bytes, f->len})) return 1;
  }
  return 0;
}

static void add_name(ctx *c, msg *m, uint32_t num, name v) {
  set_bytes(c, add_field(c, m, num, ONYX__WIRE_LEN), v.p, v.n);
}

static name str_name(const char *s) { return (name){(const uint8_t *)s, strlen(s)}; }

/* The first name field numbered num of m ("" when none). */
static name name_of(const msg *m, uint32_t num) {
  for (size_t i = 0; i < m->n; i++)
    if (m->f[i].num == num && m->f[i].sub == NULL && m->f[i].wire == ONYX__WIRE_LEN)
      return (name){m->f[i].bytes, m->f[i].len};
  return str_name("");
}

/* A random graph input, output or value_info entry, or NULL. */
static field *pick_value(ctx *c, msg *g) {
  static const uint32_t lists[] = {GRAPH_INPUT, GRAPH_OUTPUT, GRAPH_VALUE_INFO};
  field *f = pick_field(c, g, PICK(c, lists));
  return f != NULL && f->sub != NULL ? f : NULL;
}

/* ---- Building blocks ------------------------------------------------------------------- */

static void set_dim(ctx *c, msg *dim) {
  remove_all(dim, DIM_VALUE);
  remove_all(dim, DIM_PARAM);
  if (one_in(c, 12)) return; /* neither: an unknown dimension */
  if (one_in(c, 3))
    add_str(c, dim, DIM_PARAM, PICK(c, dim_names));
  else
    add_field(c, dim, DIM_VALUE, ONYX__WIRE_VARINT)->u = (uint64_t)PICK(c, dim_values);
}

/* Makes t a TypeProto of a tensor with a random element type and shape
 * (one time in 8 none). */
static void fill_type(ctx *c, msg *t) {
  t->n = 0;
  msg *tt = add_sub(c, t, TYPE_TENSOR, TTYPE);
  set_uint(c, tt, TTYPE_ELEM, pick_dtype(c));
  if (one_in(c, 8)) return;
  msg *shape = add_sub(c, tt, TTYPE_SHAPE, SHAPE);
  for (uint64_t d = below(c, MAX_NEW_RANK); d > 0; d--)
    set_dim(c, add_sub(c, shape, SHAPE_DIM, DIM));
}

/* Gives the TensorProto t a random type, shape and raw data (one time in
 * 16 a byte too many or too few), keeping its name. */
static void fill_tensor(ctx *c, msg *t) {
  static const uint32_t data_fields[] = {TENSOR_DIMS, TENSOR_DATA_TYPE, 4,  5,
                                         7,           TENSOR_RAW_DATA,  10, 11};
  for (size_t i = 0; i < sizeof data_fields / sizeof data_fields[0]; i++)
    remove_all(t, data_fields[i]);
  uint64_t dtype = pick_dtype(c);
  size_t count = 1;
  for (uint64_t d = below(c, 3); d > 0; d--) {
    uint64_t n = below(c, 4);
    add_field(c, t, TENSOR_DIMS, ONYX__WIRE_VARINT)->u = n;
    count *= (size_t)n;
  }
  set_uint(c, t, TENSOR_DATA_TYPE, dtype);
  size_t es = onyx_dtype_size((onyx_dtype)dtype);
  size_t bytes = count * (es ? es : 1);
  if (one_in(c, 16)) bytes = bytes ? bytes - 1 : 1;
  uint8_t *p = alloc(c, bytes);
  for (size_t i = 0; i < bytes; i++) p[i] = (uint8_t)fuzz_next(&c->rng);
  field *raw = add_field(c, t, TENSOR_RAW_DATA, ONYX__WIRE_LEN);
  raw->bytes = p;
  raw->len = bytes;
}

/* Adds a graph output named v, typed one time in 2. */
static void add_output(ctx *c, msg *g, name v) {
  msg *out = add_sub(c, g, GRAPH_OUTPUT, VALUE);
  add_name(c, out, VALUE_NAME, v);
  if (one_in(c, 2)) fill_type(c, add_sub(c, out, VALUE_TYPE, TYPE));
}

/* Makes a random node read v (one of its inputs, or a new last input),
 * unless it defines v or is a Constant, which takes no inputs. */
static void feed(ctx *c, msg *g, name v) {
  msg *node = pick_sub(c, g, GRAPH_NODE);
  if (node == NULL || has_name(node, NODE_OUTPUT, v) ||
      same_name(name_of(node, NODE_OP_TYPE), str_name("Constant")))
    return;
  field *in = pick_field(c, node, NODE_INPUT);
  if (in != NULL && !one_in(c, 3))
    set_bytes(c, in, v.p, v.n);
  else
    add_name(c, node, NODE_INPUT, v);
}

/* A new node at a random place: op, inputs from the graph's values, and
 * one output with a new name, which it returns. */
static name add_node(ctx *c, msg *g, const char *op) {
  msg *node = add_sub(c, g, GRAPH_NODE, NODE);
  shuffle_last(c, g);
  set_str(c, node, NODE_OP_TYPE, op);
  uint64_t inputs = strcmp(op, "Clip") == 0 ? 1 + below(c, 3) : one_in(c, 8) ? below(c, 3) : 1;
  for (uint64_t i = 0; i < inputs; i++)
    add_name(c, node, NODE_INPUT, i > 0 && one_in(c, 4) ? str_name("") : pick_name(c, g));
  name out = str_name(fresh_name(c));
  add_name(c, node, NODE_OUTPUT, out);
  return out;
}

/* Gives node an output of a new name, made a graph output one time in
 * odds, else read by another node. */
static void add_used_output(ctx *c, msg *g, msg *node, uint64_t odds) {
  name out = str_name(fresh_name(c));
  add_name(c, node, NODE_OUTPUT, out);
  if (one_in(c, odds))
    add_output(c, g, out);
  else
    feed(c, g, out);
}

/* ---- The edits ------------------------------------------------------------------------ */

static void edit_op(ctx *c, msg *model, msg *g) {
  (void)model;
  msg *node = pick_sub(c, g, GRAPH_NODE);
  if (node == NULL) return;
  set_str(c, node, NODE_OP_TYPE, PICK(c, ops));
  if (one_in(c, 8)) set_str(c, node, NODE_DOMAIN, PICK(c, domains));
}

static void edit_add_node(ctx *c, msg *model, msg *g) {
  (void)model;
  name out = add_node(c, g, one_in(c, 4) ? PICK(c, ops) : PICK(c, unary_ops));
  if (one_in(c, 2)) add_output(c, g, out);
}

static void edit_remove_node(ctx *c, msg *model, msg *g) {
  (void)model;
  field *f = pick_field(c, g, GRAPH_NODE);
  if (f != NULL) remove_field(g, f);
}

/* Points a node input, a node output or a graph output at another value. */
static void edit_rewire(ctx *c, msg *model, msg *g) {
  (void)model;
  msg *node = pick_sub(c, g, GRAPH_NODE);
  field *f;
  switch (below(c, 3)) {
    case 0:
      if (node != NULL && (f = pick_field(c, node, NODE_INPUT)) != NULL) {
        name v = one_in(c, 8) ? str_name("") : pick_name(c, g);
        set_bytes(c, f, v.p, v.n);
      }
      break;
    case 1: /* mostly a clash, which onyx must refuse: now and then */
      if (node != NULL && one_in(c, 8) && (f = pick_field(c, node, NODE_OUTPUT)) != NULL) {
        name v = pick_name(c, g);
        set_bytes(c, f, v.p, v.n);
      }
      break;
    default: {
      msg *out = pick_sub(c, g, GRAPH_OUTPUT);
      if (out != NULL && node != NULL) {
        remove_all(out, VALUE_NAME);
        add_name(c, out, VALUE_NAME, name_of(node, NODE_OUTPUT));
      }
    }
  }
}

/* Appends a unary node to the chain that ends in a graph output, which it
 * then produces: long chains are what fusion plans. */
static void edit_extend_chain(ctx *c, msg *model, msg *g) {
  (void)model;
  msg *out = pick_sub(c, g, GRAPH_OUTPUT);
  if (out == NULL) return;
  const char *op = PICK(c, unary_ops);
  msg *node = add_sub(c, g, GRAPH_NODE, NODE);
  set_str(c, node, NODE_OP_TYPE, op);
  add_name(c, node, NODE_INPUT, name_of(out, VALUE_NAME));
  if (strcmp(op, "Clip") == 0)
    for (uint64_t i = below(c, 3); i > 0; i--) add_name(c, node, NODE_INPUT, pick_name(c, g));
  name next = str_name(fresh_name(c));
  add_name(c, node, NODE_OUTPUT, next);
  remove_all(out, VALUE_NAME);
  add_name(c, out, VALUE_NAME, next);
}

/* A Constant node with one of its value attributes, read by another node
 * or made a graph output. */
static void edit_constant(ctx *c, msg *model, msg *g) {
  (void)model;
  msg *node = add_sub(c, g, GRAPH_NODE, NODE);
  shuffle_last(c, g);
  set_str(c, node, NODE_OP_TYPE, "Constant");
  msg *attr = add_sub(c, node, NODE_ATTRIBUTE, ATTR);
  switch (below(c, 5)) {
    case 0:
      set_str(c, attr, ATTR_NAME, "value_float");
      set_float(c, attr, ATTR_F, pick_float(c));
      set_uint(c, attr, ATTR_TYPE, AT_FLOAT);
      break;
    case 1:
      set_str(c, attr, ATTR_NAME, "value_int");
      set_uint(c, attr, ATTR_I, (uint64_t)PICK(c, dim_values));
      set_uint(c, attr, ATTR_TYPE, AT_INT);
      break;
    case 2:
      set_str(c, attr, ATTR_NAME, "value_floats");
      for (uint64_t i = below(c, 4); i > 0; i--)
        add_field(c, attr, ATTR_FLOATS, ONYX__WIRE_FIXED32)->u = PICK(c, float_bits);
      set_uint(c, attr, ATTR_TYPE, AT_FLOATS);
      break;
    case 3:
      set_str(c, attr, ATTR_NAME, "value_ints");
      for (uint64_t i = below(c, 4); i > 0; i--)
        add_field(c, attr, ATTR_INTS, ONYX__WIRE_VARINT)->u = (uint64_t)PICK(c, dim_values);
      set_uint(c, attr, ATTR_TYPE, AT_INTS);
      break;
    default:
      set_str(c, attr, ATTR_NAME, "value");
      fill_tensor(c, add_sub(c, attr, ATTR_T, TENSOR));
      set_uint(c, attr, ATTR_TYPE, AT_TENSOR);
  }
  add_used_output(c, g, node, 3);
}

/* Adds, changes, retypes, renames or removes a node attribute. */
static void edit_attribute(ctx *c, msg *model, msg *g) {
  (void)model;
  msg *node = pick_sub(c, g, GRAPH_NODE);
  if (node == NULL) return;
  field *f = pick_field(c, node, NODE_ATTRIBUTE);
  msg *attr = f != NULL ? f->sub : NULL;
  if (attr == NULL || one_in(c, 3)) {
    attr = add_sub(c, node, NODE_ATTRIBUTE, ATTR);
    set_str(c, attr, ATTR_NAME, one_in(c, 2) ? "min" : "max");
    set_float(c, attr, ATTR_F, pick_float(c));
    set_uint(c, attr, ATTR_TYPE, AT_FLOAT);
    return;
  }
  switch (below(c, 5)) {
    case 0:
      set_uint(c, attr, ATTR_TYPE, below(c, 15));
      break;
    case 1:
      set_float(c, attr, ATTR_F, pick_float(c));
      break;
    case 2:
      set_uint(c, attr, ATTR_I, (uint64_t)PICK(c, dim_values));
      break;
    case 3:
      set_str(c, attr, ATTR_NAME, PICK(c, attr_names));
      break;
    default:
      remove_field(node, f);
  }
}

/* The opset import of domain d ("" and "ai.onnx" are one), or NULL. */
static msg *find_opset(msg *model, name d) {
  name std = str_name("ai.onnx");
  int standard = d.n == 0 || same_name(d, std);
  for (size_t i = 0; i < model->n; i++) {
    msg *o = model->f[i].sub;
    if (model->f[i].num != MODEL_OPSET || o == NULL) continue;
    name od = name_of(o, OPSET_DOMAIN);
    if (standard ? od.n == 0 || same_name(od, std) : same_name(od, d)) return o;
  }
  return NULL;
}

/* Sets the version of a domain's opset import (added if missing), now and
 * then imports a domain twice, or removes an import. */
static void edit_opset(ctx *c, msg *model, msg *g) {
  (void)g;
  uint64_t version = below(c, (uint64_t)onyx_max_opset() + 3);
  const char *domain = one_in(c, 2) ? "" : PICK(c, domains);
  msg *opset = find_opset(model, str_name(domain));
  if (one_in(c, 8)) {
    field *f = pick_field(c, model, MODEL_OPSET);
    if (f != NULL) remove_field(model, f);
    return;
  }
  if (opset == NULL || one_in(c, 16)) {
    opset = add_sub(c, model, MODEL_OPSET, OPSET);
    if (domain[0] != '\0') set_str(c, opset, OPSET_DOMAIN, domain);
  }
  set_uint(c, opset, OPSET_VERSION, version);
}

/* Mostly a version onyx reads (3 to 11 as this is written), else any. */
static void edit_ir_version(ctx *c, msg *model, msg *g) {
  (void)g;
  uint64_t v = one_in(c, 4) ? (one_in(c, 2) ? fuzz_next(&c->rng) : below(c, 16)) : 3 + below(c, 9);
  set_uint(c, model, MODEL_IR_VERSION, v);
}

/* Adds an initializer (a new value read by a node, or one with an
 * existing value's name), or gives an existing one new contents. */
static void edit_initializer(ctx *c, msg *model, msg *g) {
  (void)model;
  msg *t = pick_sub(c, g, GRAPH_INITIALIZER);
  if (t != NULL && one_in(c, 2)) {
    fill_tensor(c, t);
    return;
  }
  t = add_sub(c, g, GRAPH_INITIALIZER, TENSOR);
  fill_tensor(c, t);
  name v = one_in(c, 16) ? pick_name(c, g) : str_name(fresh_name(c));
  add_name(c, t, TENSOR_NAME, v);
  feed(c, g, v);
}

/* A new graph input of a random type, read by a node. */
static void edit_input(ctx *c, msg *model, msg *g) {
  (void)model;
  msg *in = add_sub(c, g, GRAPH_INPUT, VALUE);
  name v = str_name(fresh_name(c));
  add_name(c, in, VALUE_NAME, v);
  fill_type(c, add_sub(c, in, VALUE_TYPE, TYPE));
  feed(c, g, v);
}

/* Gives a shape 65536 elements: one dim of 65536, or two of 256, the
 * others 1. Large enough for a run on two threads to split the work. */
static void make_large(ctx *c, msg *shape) {
  size_t n = count_of(shape, SHAPE_DIM);
  if (n == 0) return;
  size_t big = (size_t)below(c, n), k = 0;
  int two = n > 1 && one_in(c, 2);
  for (size_t i = 0; i < shape->n; i++) {
    msg *dim = shape->f[i].sub;
    if (shape->f[i].num != SHAPE_DIM || dim == NULL) continue;
    int64_t v = k == big ? (two ? 256 : 65536) : k == (big + 1) % n && two ? 256 : 1;
    remove_all(dim, DIM_PARAM);
    set_uint(c, dim, DIM_VALUE, (uint64_t)v);
    k++;
  }
}

/* Changes the element type or shape of a graph input, output or
 * value_info entry: a dim's value or name, one dim more or less, no shape,
 * a large shape, or a new type altogether. */
static void edit_type(ctx *c, msg *model, msg *g) {
  (void)model;
  field *f = pick_value(c, g);
  if (f == NULL) return;
  msg *type = sub_of(c, f->sub, VALUE_TYPE, TYPE);
  msg *tt = sub_of(c, type, TYPE_TENSOR, TTYPE);
  msg *shape = sub_of(c, tt, TTYPE_SHAPE, SHAPE);
  msg *dim = pick_sub(c, shape, SHAPE_DIM);
  switch (below(c, 7)) {
    case 0:
      set_uint(c, tt, TTYPE_ELEM, pick_dtype(c));
      break;
    case 6:
      make_large(c, shape);
      break;
    case 1:
      if (count_of(shape, SHAPE_DIM) < 8) set_dim(c, add_sub(c, shape, SHAPE_DIM, DIM));
      break;
    case 2:
      if (dim != NULL) remove_field(shape, pick_field(c, shape, SHAPE_DIM));
      break;
    case 3:
      remove_all(tt, TTYPE_SHAPE);
      break;
    case 4:
      fill_type(c, type);
      break;
    default:
      if (dim != NULL) set_dim(c, dim);
  }
}

/* A copy of a node with new output names, at a random place. */
static void edit_clone_node(ctx *c, msg *model, msg *g) {
  (void)model;
  msg *node = pick_sub(c, g, GRAPH_NODE);
  if (node == NULL) return;
  msg *copy = clone(c, node);
  for (size_t i = 0; i < copy->n; i++)
    if (copy->f[i].num == NODE_OUTPUT) {
      const char *s = fresh_name(c);
      set_bytes(c, &copy->f[i], s, strlen(s));
    }
  add_field(c, g, GRAPH_NODE, ONYX__WIRE_LEN)->sub = copy;
  shuffle_last(c, g);
}

/* Drops a graph input, output, value_info entry or initializer. */
static void edit_remove_value(ctx *c, msg *model, msg *g) {
  (void)model;
  static const uint32_t lists[] = {GRAPH_INPUT, GRAPH_OUTPUT, GRAPH_VALUE_INFO, GRAPH_INITIALIZER};
  field *f = pick_field(c, g, PICK(c, lists));
  if (f != NULL) remove_field(g, f);
}

/* Output counts of a Split: mostly few (dims are mostly small, and must
 * divide), now and then hundreds, which the memory plan must hold; 65536
 * and 0 split into any of them. */
static const uint64_t split_counts[] = {1, 2, 2, 3, 4, 4, 8, 256, 1024};

/* A node of a registered op of many inputs or outputs: a Sum of values of
 * the graph, often one value several times (it may write over input 0),
 * now and then of hundreds; or a Split, with some outputs omitted ("")
 * and some made graph outputs or read by other nodes. */
static void edit_wide_node(ctx *c, msg *model, msg *g) {
  msg *node = add_sub(c, g, GRAPH_NODE, NODE);
  shuffle_last(c, g);
  name first = pick_name(c, g);
  if (one_in(c, 2)) {
    set_str(c, node, NODE_OP_TYPE, "Sum");
    uint64_t n = one_in(c, 8) ? 64 + below(c, 1024) : 1 + below(c, 6);
    for (uint64_t i = 0; i < n; i++)
      add_name(c, node, NODE_INPUT, i == 0 || !one_in(c, 4) ? first : pick_name(c, g));
    add_used_output(c, g, node, 2);
    return;
  }
  set_str(c, node, NODE_OP_TYPE, "Split");
  uint64_t n = PICK(c, split_counts);
  if (!one_in(c, 4)) { /* a new input that splits: n, 2n or no elements, or a symbolic size */
    msg *in = add_sub(c, g, GRAPH_INPUT, VALUE);
    first = str_name(fresh_name(c));
    add_name(c, in, VALUE_NAME, first);
    msg *tt = add_sub(c, add_sub(c, in, VALUE_TYPE, TYPE), TYPE_TENSOR, TTYPE);
    set_uint(c, tt, TTYPE_ELEM, pick_dtype(c));
    msg *dim = add_sub(c, add_sub(c, tt, TTYPE_SHAPE, SHAPE), SHAPE_DIM, DIM);
    if (one_in(c, 4))
      add_str(c, dim, DIM_PARAM, PICK(c, dim_names));
    else
      set_uint(c, dim, DIM_VALUE, n * below(c, 3));
  }
  add_name(c, node, NODE_INPUT, first);
  if (one_in(c, 4)) {
    msg *attr = add_sub(c, node, NODE_ATTRIBUTE, ATTR);
    set_str(c, attr, ATTR_NAME, "axis");
    set_uint(c, attr, ATTR_I, (uint64_t)((int64_t)below(c, 3) - 2)); /* -2 .. 0 */
    set_uint(c, attr, ATTR_TYPE, AT_INT);
  }
  /* The test op library's Split is Split-13 (opset 18 wants num_outputs). */
  msg *opset = find_opset(model, str_name(""));
  if (opset == NULL) opset = add_sub(c, model, MODEL_OPSET, OPSET);
  set_uint(c, opset, OPSET_VERSION, 13 + below(c, 5));
  int shown = 0;
  for (uint64_t k = 0; k < n; k++) {
    name out = k > 0 && one_in(c, 8) ? str_name("") : str_name(fresh_name(c));
    add_name(c, node, NODE_OUTPUT, out);
    if (out.n == 0) continue;
    if (!shown || one_in(c, 16)) {
      add_output(c, g, out);
      shown = 1;
    } else if (one_in(c, 16)) {
      feed(c, g, out);
    }
  }
}

typedef void (*edit_fn)(ctx *c, msg *model, msg *g);

/* The edits, each with a weight: how often it is picked against the rest. */
static const struct {
  edit_fn fn;
  unsigned weight;
} edits[] = {
    {edit_op, 6},           {edit_add_node, 5},     {edit_remove_node, 3}, {edit_rewire, 5},
    {edit_extend_chain, 6}, {edit_constant, 4},     {edit_attribute, 4},   {edit_opset, 3},
    {edit_ir_version, 1},   {edit_initializer, 3},  {edit_input, 3},       {edit_type, 8},
    {edit_clone_node, 3},   {edit_remove_value, 2}, {edit_wide_node, 6},
};

static void apply_edit(ctx *c, msg *model, msg *g) {
  unsigned total = 0;
  for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) total += edits[i].weight;
  unsigned r = (unsigned)below(c, total);
  size_t i = 0;
  while (r >= edits[i].weight) r -= edits[i++].weight;
  edits[i].fn(c, model, g);
}

/* ---- libFuzzer's hooks ------------------------------------------------------------------ */

/* Decodes a model whose graph, if it has one, decodes too: edits need it. */
static msg *decode_model(ctx *c, const uint8_t *data, size_t size) {
  msg *m = decode(c, MODEL, data, size, 0);
  if (m == NULL) return NULL;
  for (size_t i = 0; i < m->n; i++)
    if (m->f[i].num == MODEL_GRAPH && m->f[i].sub == NULL) return NULL;
  return m;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  ctx c = {NULL, 0, 0, seed};
  msg *model = one_in(&c, FALLBACK_ODDS) ? NULL : decode_model(&c, data, size);
  size_t len = 0;
  int ok = 0;
  if (model != NULL) {
    msg *g = sub_of(&c, model, MODEL_GRAPH, GRAPH);
    for (uint64_t n = 1 + below(&c, MAX_EDITS); n > 0; n--) apply_edit(&c, model, g);
    ok = emit(model, data, max_size, &len);
  }
  release(&c);
  return ok ? len : LLVMFuzzerMutate(data, size, max_size);
}

/* Copies one to three nodes, graph inputs or initializers of the second
 * model into the first (those that define no value the first does), and
 * now and then an opset import of a domain the first does not import. */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
                                 size_t size2, uint8_t *out, size_t max_out, unsigned int seed) {
  static const uint32_t parts[] = {GRAPH_NODE, GRAPH_INPUT, GRAPH_INITIALIZER};
  ctx c = {NULL, 0, 0, seed};
  msg *m1 = decode_model(&c, data1, size1), *m2 = decode_model(&c, data2, size2);
  size_t len = 0;
  int ok = 0;
  if (m1 != NULL && m2 != NULL) {
    msg *g1 = sub_of(&c, m1, MODEL_GRAPH, GRAPH), *g2 = sub_of(&c, m2, MODEL_GRAPH, GRAPH);
    for (uint64_t n = 1 + below(&c, 3); n > 0; n--) {
      size_t p = one_in(&c, 2) ? 0 : (size_t)below(&c, 3);
      msg *part = pick_sub(&c, g2, parts[p]);
      if (part == NULL || clashes(g1, part)) continue;
      add_field(&c, g1, parts[p], ONYX__WIRE_LEN)->sub = clone(&c, part);
      shuffle_last(&c, g1);
    }
    msg *opset = one_in(&c, 4) ? pick_sub(&c, m2, MODEL_OPSET) : NULL;
    if (opset != NULL && find_opset(m1, name_of(opset, OPSET_DOMAIN)) == NULL)
      add_field(&c, m1, MODEL_OPSET, ONYX__WIRE_LEN)->sub = clone(&c, opset);
    ok = emit(m1, out, max_out, &len);
  }
  release(&c);
  return ok ? len : 0;
}
