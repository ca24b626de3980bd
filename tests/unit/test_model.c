/* SPDX-License-Identifier: MIT */
/*
 * ModelProto decoding and the model-level checks. Models are encoded here,
 * field by field, with the library's wire writer, from a description that
 * each test changes in one place; a few real models from Debian's
 * libonnx-testdata check that files written by ONNX itself decode.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "model/model.h"
#include "model/pb.h"
#include "model_builder.h"

#ifndef ONYX_TESTDATA_DIR
#define ONYX_TESTDATA_DIR "/usr/share/libonnx-testdata/data"
#endif

/* ---- Encoding helpers ------------------------------------------------------ */

static void put_str(onyx__pbw *w, uint32_t field, const char *s) {
  onyx__pbw_bytes(w, field, s, strlen(s));
}

/* Appends inner as a length-delimited field of w and frees it. */
static void put_msg(onyx__pbw *w, uint32_t field, onyx__pbw *inner) {
  onyx__pbw_bytes(w, field, inner->buf, inner->len);
  onyx__pbw_free(inner);
}

/* One unknown field of every wire type, which every level must skip. */
static void put_unknown(onyx__pbw *w) {
  onyx__pbw_uint(w, 1999, 12345);
  onyx__pbw_tag(w, 1998, ONYX__WIRE_FIXED64);
  onyx__pbw_fixed64(w, 1);
  onyx__pbw_bytes(w, 1997, "\x08\x01", 2);
  onyx__pbw_tag(w, 1996, ONYX__WIRE_FIXED32);
  onyx__pbw_fixed32(w, 2);
}

static void put_f32(onyx__pbw *w, uint32_t field, float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  onyx__pbw_tag(w, field, ONYX__WIRE_FIXED32);
  onyx__pbw_fixed32(w, bits);
}

/* A ValueInfoProto with a tensor type. rank < 0: no shape. A dim of -1 is
 * written as dim_param "N"; -2 as a dimension with neither field. */
static void put_value_info(onyx__pbw *g, uint32_t field, const char *name, int64_t elem, int rank,
                           const int64_t *dims, bool unknown) {
  onyx__pbw vi = {0}, type = {0}, tensor = {0};
  put_str(&vi, 1, name);
  onyx__pbw_uint(&tensor, 1, (uint64_t)elem);
  if (rank >= 0) {
    onyx__pbw shape = {0};
    for (int i = 0; i < rank; i++) {
      onyx__pbw dim = {0};
      if (dims[i] == -1) {
        put_str(&dim, 2, "N");
      } else if (dims[i] != -2) {
        onyx__pbw_uint(&dim, 1, (uint64_t)dims[i]);
      }
      if (unknown) put_unknown(&dim);
      put_msg(&shape, 1, &dim);
    }
    if (unknown) put_unknown(&shape);
    put_msg(&tensor, 2, &shape);
  }
  if (unknown) put_unknown(&tensor);
  put_msg(&type, 1, &tensor);
  if (unknown) put_unknown(&type);
  put_msg(&vi, 2, &type);
  if (unknown) put_unknown(&vi);
  put_msg(g, field, &vi);
}

/* A float tensor with raw_data. */
static void put_float_tensor(onyx__pbw *w, uint32_t field, const char *name, const int64_t *dims,
                             int rank, const float *v, size_t n, bool unknown) {
  onyx__pbw t = {0};
  for (int i = 0; i < rank; i++) onyx__pbw_uint(&t, 1, (uint64_t)dims[i]);
  onyx__pbw_uint(&t, 2, ONYX_DTYPE_FLOAT);
  if (name != NULL) put_str(&t, 8, name);
  if (unknown) put_unknown(&t);
  uint8_t *le = malloc(n * sizeof *v + 1); /* raw_data is little-endian */
  assert_non_null(le);
  host_to_le_elems(v, n, sizeof *v, le);
  onyx__pbw_bytes(&t, 9, le, n * sizeof *v);
  free(le);
  put_msg(w, field, &t);
}

/* What a test model looks like; each test changes a field or two. */
typedef struct spec {
  bool no_ir;
  int64_t ir;
  int n_opsets;
  const char *domains[4];
  int64_t versions[4];
  bool unknown; /* unknown fields at every level */
  bool no_graph;
  bool two_graphs;
  size_t bad_raw;    /* if non-zero: initializer 'w' gets this many raw bytes */
  int input_rank;    /* rank of graph input x (default 2) */
  int64_t input_dim; /* first dim of x (default -1: "N") */
  bool node_name_nul;
  bool deep_type;           /* a TypeProto nested past the cap in an attribute */
  int subgraphs;            /* graph attributes nested this deep */
  bool seq_input;           /* graph input 'lo' has a sequence type */
  bool extra_attr_fields;   /* an attribute with no type and two value fields */
  const char *ext_location; /* initializer 'w' uses external data */
  int64_t ext_count;        /* its element count (default 3), from byte 4 */
} spec;

static spec good_spec(void) {
  spec s;
  memset(&s, 0, sizeof s);
  s.ir = 8;
  s.n_opsets = 2;
  s.domains[0] = "";
  s.versions[0] = 13;
  s.domains[1] = "com.example";
  s.versions[1] = 1;
  s.input_rank = 2;
  s.input_dim = -1;
  s.ext_count = 3;
  return s;
}

static void put_subgraph(onyx__pbw *attr_owner, int depth) {
  /* A graph with one node whose attribute holds the next graph. */
  onyx__pbw g = {0}, node = {0};
  put_str(&node, 4, "Identity");
  if (depth > 0) {
    onyx__pbw attr = {0};
    put_str(&attr, 1, "body");
    onyx__pbw_uint(&attr, 20, ONYX__ATTR_GRAPH);
    put_subgraph(&attr, depth - 1);
    put_msg(&node, 5, &attr);
  }
  put_msg(&g, 1, &node);
  put_msg(attr_owner, 6, &g);
}

static void put_deep_type(onyx__pbw *w, uint32_t field, int depth) {
  onyx__pbw type = {0};
  if (depth == 0) {
    onyx__pbw tensor = {0};
    onyx__pbw_uint(&tensor, 1, ONYX_DTYPE_FLOAT);
    put_msg(&type, 1, &tensor);
  } else {
    onyx__pbw seq = {0};
    put_deep_type(&seq, 1, depth - 1);
    put_msg(&type, 4, &seq);
  }
  put_msg(w, field, &type);
}

static void build_node0(onyx__pbw *g, const spec *s) {
  onyx__pbw n = {0}, a = {0};
  put_str(&n, 1, "x");
  if (s->unknown) put_unknown(&n);
  put_str(&n, 1, "lo");
  put_str(&n, 1, "");
  put_str(&n, 2, "y");
  if (s->node_name_nul) {
    onyx__pbw_bytes(&n, 3, "cl\0p", 4);
  } else {
    put_str(&n, 3, "clip0");
  }
  put_str(&n, 4, "Clip");
  put_str(&n, 6, "documentation");

  /* min: a float with its type. */
  put_str(&a, 1, "min");
  put_f32(&a, 2, -1.5f);
  onyx__pbw_uint(&a, 20, ONYX__ATTR_FLOAT);
  if (s->unknown) put_unknown(&a);
  put_msg(&n, 5, &a);
  /* ints: no type (inferred), packed then unpacked. */
  put_str(&a, 1, "ints");
  onyx__pbw packed = {0};
  onyx__pbw_varint(&packed, 1);
  onyx__pbw_varint(&packed, (uint64_t)INT64_C(-2));
  onyx__pbw_bytes(&a, 8, packed.buf, packed.len);
  onyx__pbw_free(&packed);
  onyx__pbw_uint(&a, 8, 3);
  put_msg(&n, 5, &a);
  /* floats: unpacked then packed, with the type before the values. */
  onyx__pbw_uint(&a, 20, ONYX__ATTR_FLOATS);
  put_f32(&a, 7, 0.5f);
  put_str(&a, 1, "floats");
  float two[2] = {1.5f, -2.0f};
  uint8_t two_le[8]; /* packed fixed32 values are little-endian */
  host_to_le_elems(two, 2, 4, two_le);
  onyx__pbw_bytes(&a, 7, two_le, 8);
  put_msg(&n, 5, &a);
  /* s: a string, type inferred. */
  put_str(&a, 1, "s");
  put_str(&a, 4, "hi");
  put_msg(&n, 5, &a);
  /* i, with a ref_attr_name. */
  put_str(&a, 1, "i");
  onyx__pbw_uint(&a, 3, (uint64_t)INT64_C(-7));
  put_str(&a, 21, "outer");
  put_msg(&n, 5, &a);
  /* g: a subgraph, walked but not decoded; also the nesting tests. */
  put_str(&a, 1, "g");
  put_subgraph(&a, s->subgraphs);
  put_msg(&n, 5, &a);
  if (s->deep_type) {
    put_str(&a, 1, "tp");
    put_deep_type(&a, 14, 80);
    put_msg(&n, 5, &a);
  }
  if (s->extra_attr_fields) {
    put_str(&a, 1, "both");
    onyx__pbw_uint(&a, 3, 1);
    put_f32(&a, 2, 1.0f);
    put_msg(&n, 5, &a);
  }
  put_msg(g, 1, &n);
}

static void build_node1(onyx__pbw *g, const spec *s) {
  onyx__pbw n = {0}, a = {0};
  put_str(&n, 2, "c");
  put_str(&n, 4, "Constant");
  put_str(&n, 7, "ai.onnx");
  put_str(&a, 1, "value");
  onyx__pbw_uint(&a, 20, ONYX__ATTR_TENSOR);
  static const int64_t two[] = {2};
  static const float v[] = {4.0f, 5.0f};
  put_float_tensor(&a, 5, "c_value", two, 1, v, 2, s->unknown);
  put_msg(&n, 5, &a);
  put_msg(g, 1, &n);
}

static void build_graph(onyx__pbw *m, const spec *s) {
  onyx__pbw g = {0};
  build_node0(&g, s);
  put_str(&g, 2, "test_graph");
  if (s->unknown) put_unknown(&g);
  static const float lo[] = {-1.0f};
  put_float_tensor(&g, 5, "lo", NULL, 0, lo, 1, s->unknown);
  int64_t xdims[ONYX_MAX_RANK + 1];
  for (int i = 0; i <= ONYX_MAX_RANK; i++) xdims[i] = 3;
  xdims[0] = s->input_dim;
  xdims[1] = -2;
  put_value_info(&g, 11, "x", ONYX_DTYPE_FLOAT, s->input_rank, xdims, s->unknown);
  if (s->seq_input) {
    onyx__pbw vi = {0};
    put_str(&vi, 1, "lo");
    put_deep_type(&vi, 2, 2);
    put_msg(&g, 11, &vi);
  } else {
    put_value_info(&g, 11, "lo", ONYX_DTYPE_FLOAT, 0, NULL, s->unknown);
  }
  build_node1(&g, s); /* nodes interleaved with other fields */
  put_value_info(&g, 12, "y", ONYX_DTYPE_FLOAT, -1, NULL, s->unknown);
  put_value_info(&g, 12, "c", ONYX_DTYPE_FLOAT, 1, (const int64_t[]){2}, s->unknown);
  put_value_info(&g, 13, "inner", ONYX_DTYPE_DOUBLE, 1, (const int64_t[]){7}, s->unknown);
  put_str(&g, 10, "graph documentation");
  if (s->bad_raw) {
    onyx__pbw t = {0};
    onyx__pbw_uint(&t, 1, 3);
    onyx__pbw_uint(&t, 2, ONYX_DTYPE_FLOAT);
    put_str(&t, 8, "w");
    onyx__pbw_bytes(&t, 9, "0123456789abcdef", s->bad_raw);
    put_msg(&g, 5, &t);
  }
  if (s->ext_location != NULL) {
    onyx__pbw t = {0}, e = {0};
    onyx__pbw_uint(&t, 1, (uint64_t)s->ext_count);
    onyx__pbw_uint(&t, 2, ONYX_DTYPE_FLOAT);
    put_str(&t, 8, "w");
    put_str(&e, 1, "location");
    put_str(&e, 2, s->ext_location);
    put_msg(&t, 13, &e);
    put_str(&e, 1, "offset");
    put_str(&e, 2, "4");
    put_msg(&t, 13, &e);
    onyx__pbw_uint(&t, 14, 1);
    put_msg(&g, 5, &t);
  }
  /* A sparse initializer: counted, walked, refused later by the session. */
  onyx__pbw sp = {0};
  put_float_tensor(&sp, 1, "sv", (const int64_t[]){1}, 1, lo, 1, false);
  onyx__pbw_uint(&sp, 3, 10);
  put_msg(&g, 15, &sp);
  put_msg(m, 7, &g);
}

static void build_model(onyx__pbw *m, const spec *s) {
  memset(m, 0, sizeof *m);
  if (s->unknown) put_unknown(m);
  if (!s->no_ir) onyx__pbw_uint(m, 1, (uint64_t)s->ir);
  put_str(m, 2, "onyx-tests");
  put_str(m, 3, "0");
  if (!s->no_graph) build_graph(m, s);
  for (int i = 0; i < s->n_opsets; i++) {
    onyx__pbw o = {0};
    if (s->unknown) put_unknown(&o);
    put_str(&o, 1, s->domains[i]);
    onyx__pbw_uint(&o, 2, (uint64_t)s->versions[i]);
    put_msg(m, 8, &o);
  }
  if (s->two_graphs) build_graph(m, s);
  onyx__pbw_uint(m, 5, 3);
  onyx__pbw e = {0};
  put_str(&e, 1, "key");
  put_str(&e, 2, "value");
  put_msg(m, 14, &e);
  assert_false(m->failed);
}

/* Loads from a heap copy of exactly the model's bytes; the copy lives in
 * *buf until the caller frees it after the model. */
static onyx_status load(const onyx__pbw *w, size_t n, onyx_model **out, uint8_t **buf,
                        onyx_error *err) {
  *buf = malloc(n ? n : 1);
  assert_non_null(*buf);
  if (n) memcpy(*buf, w->buf, n);
  return onyx_model_load_memory(*buf, n, out, err);
}

/* Builds and loads a spec; expects status st and, on failure, text in the
 * message. */
static void expect(const spec *s, onyx_status st, const char *text) {
  onyx__pbw w;
  build_model(&w, s);
  onyx_model *m = (onyx_model *)1;
  uint8_t *buf;
  onyx_error err = {0};
  onyx_status got = load(&w, w.len, &m, &buf, &err);
  if (got != st || (text != NULL && strstr(err.message, text) == NULL)) {
    fail_msg("expected %s containing '%s', got %s: %s", onyx_status_name(st), text ? text : "",
             onyx_status_name(got), err.message);
  }
  if (st != ONYX_OK) {
    assert_null(m);
    assert_int_equal(err.status, st);
  }
  onyx_model_free(m);
  free(buf);
  onyx__pbw_free(&w);
}

/* ---- Tests ------------------------------------------------------------------ */

static void check_good_model(const onyx_model *m) {
  assert_int_equal(m->ir_version, 8);
  assert_int_equal(m->onnx_opset, 13);
  assert_int_equal(onyx_model_ir_version(m), 8);
  assert_int_equal(onyx_model_opset_count(m), 2);
  const char *domain = NULL;
  int64_t version = 0;
  assert_int_equal(onyx_model_opset(m, 0, &domain, &version, NULL), ONYX_OK);
  assert_string_equal(domain, "");
  assert_int_equal(version, 13);
  assert_int_equal(onyx_model_opset(m, 1, &domain, &version, NULL), ONYX_OK);
  assert_string_equal(domain, "com.example");
  assert_int_equal(version, 1);

  const onyx__graph *g = &m->graph;
  assert_string_equal(g->name, "test_graph");
  assert_int_equal(g->n_nodes, 2);
  assert_int_equal(onyx_model_node_count(m), 2);
  onyx_node_info info;
  assert_int_equal(onyx_model_node(m, 0, &info, NULL), ONYX_OK);
  assert_string_equal(info.op_type, "Clip");
  assert_string_equal(info.name, "clip0");
  assert_string_equal(info.domain, "");
  assert_int_equal(info.input_count, 3);
  assert_string_equal(info.inputs[0], "x");
  assert_string_equal(info.inputs[1], "lo");
  assert_string_equal(info.inputs[2], "");
  assert_int_equal(info.output_count, 1);
  assert_string_equal(info.outputs[0], "y");

  const onyx__node *n0 = &g->nodes[0];
  assert_int_equal(n0->n_attrs, 6);
  const onyx__attr *a = n0->attrs;
  assert_string_equal(a[0].name, "min");
  assert_int_equal(a[0].type, ONYX__ATTR_FLOAT);
  assert_true(a[0].f == -1.5f);
  assert_string_equal(a[1].name, "ints");
  assert_int_equal(a[1].type, ONYX__ATTR_INTS);
  assert_int_equal(a[1].n_ints, 3);
  assert_int_equal(a[1].ints[0], 1);
  assert_int_equal(a[1].ints[1], -2);
  assert_int_equal(a[1].ints[2], 3);
  assert_string_equal(a[2].name, "floats");
  assert_int_equal(a[2].type, ONYX__ATTR_FLOATS);
  assert_int_equal(a[2].n_floats, 3);
  assert_true(a[2].floats[0] == 0.5f && a[2].floats[1] == 1.5f && a[2].floats[2] == -2.0f);
  assert_string_equal(a[3].name, "s");
  assert_int_equal(a[3].type, ONYX__ATTR_STRING);
  assert_string_equal(a[3].s, "hi");
  assert_int_equal(a[3].s_len, 2);
  assert_string_equal(a[4].name, "i");
  assert_int_equal(a[4].type, ONYX__ATTR_INT);
  assert_int_equal(a[4].i, -7);
  assert_true(a[4].has_ref_attr_name);
  assert_string_equal(a[5].name, "g");
  assert_int_equal(a[5].type, ONYX__ATTR_GRAPH);

  const onyx__node *n1 = &g->nodes[1];
  assert_string_equal(n1->op_type, "Constant");
  assert_string_equal(n1->domain, ""); /* "ai.onnx" normalised */
  assert_string_equal(n1->name, "");
  assert_int_equal(n1->n_inputs, 0);
  assert_int_equal(n1->n_attrs, 1);
  assert_int_equal(n1->attrs[0].type, ONYX__ATTR_TENSOR);
  const onyx__tensor *t = n1->attrs[0].t;
  assert_non_null(t);
  assert_string_equal(t->name, "c_value");
  assert_int_equal(t->count, 2);
  float cv[2];
  memcpy(cv, t->data, 8);
  assert_true(cv[0] == 4.0f && cv[1] == 5.0f);

  assert_int_equal(g->n_initializers, 1);
  assert_string_equal(g->initializers[0].name, "lo");
  assert_int_equal(g->initializers[0].rank, 0);
  assert_int_equal(g->initializers[0].count, 1);
  assert_int_equal(g->n_sparse_initializers, 1);

  assert_int_equal(g->n_inputs, 2);
  const onyx__value_info *x = &g->inputs[0];
  assert_string_equal(x->name, "x");
  assert_true(x->has_type);
  assert_int_equal(x->dtype, ONYX_DTYPE_FLOAT);
  assert_true(x->has_shape);
  assert_int_equal(x->rank, 2);
  assert_int_equal(x->dims[0], -1);
  assert_string_equal(x->dim_params[0], "N");
  assert_int_equal(x->dims[1], -1); /* neither value nor param */
  assert_null(x->dim_params[1]);
  assert_true(g->inputs[1].has_shape);
  assert_int_equal(g->inputs[1].rank, 0);
  assert_int_equal(g->n_outputs, 2);
  assert_string_equal(g->outputs[0].name, "y");
  assert_true(g->outputs[0].has_type);
  assert_false(g->outputs[0].has_shape);
  assert_int_equal(g->outputs[1].rank, 1);
  assert_int_equal(g->outputs[1].dims[0], 2);
}

static void test_good_model(void **state) {
  (void)state;
  spec s = good_spec();
  for (int unknown = 0; unknown < 2; unknown++) {
    s.unknown = unknown;
    onyx__pbw w;
    build_model(&w, &s);
    onyx_model *m = NULL;
    uint8_t *buf;
    onyx_error err = {0};
    onyx_status st = load(&w, w.len, &m, &buf, &err);
    if (st != ONYX_OK) fail_msg("%s", err.message);
    check_good_model(m);
    assert_string_equal(m->path, "<memory>");
    assert_null(m->dir);
    onyx_model_free(m);
    free(buf);
    onyx__pbw_free(&w);
  }
}

static void test_ir_version(void **state) {
  (void)state;
  spec s = good_spec();
  s.no_ir = true;
  expect(&s, ONYX_IR_VERSION, "no ir_version");
  s.no_ir = false;
  s.ir = 0;
  expect(&s, ONYX_IR_VERSION, "no ir_version");
  s.ir = 2;
  expect(&s, ONYX_IR_VERSION, "ir_version 2 is not supported; onyx reads 3 to 11");
  s.ir = 12;
  expect(&s, ONYX_IR_VERSION, "ir_version 12 is not supported");
  s.ir = -1;
  expect(&s, ONYX_IR_VERSION, "ir_version -1");
  s.ir = 3;
  expect(&s, ONYX_OK, NULL);
  s.ir = 11;
  expect(&s, ONYX_OK, NULL);
}

static void test_opsets(void **state) {
  (void)state;
  spec s = good_spec();
  s.n_opsets = 1;
  s.domains[0] = "com.example";
  /* Valid ONNX: it loads; session creation refuses an ai.onnx node. */
  expect(&s, ONYX_OK, NULL);
  s.n_opsets = 0;
  expect(&s, ONYX_OK, NULL);

  s = good_spec();
  s.domains[1] = "";
  expect(&s, ONYX_OPSET, "imports domain 'ai.onnx' more than once");
  s.domains[1] = "ai.onnx";
  expect(&s, ONYX_OPSET, "more than once");
  s.domains[0] = "com.example";
  s.domains[1] = "com.example";
  expect(&s, ONYX_OPSET, "'com.example' more than once");

  s = good_spec();
  s.versions[0] = 0;
  expect(&s, ONYX_OPSET, "ai.onnx opset 0 is not supported; onyx supports opsets 1 to 28");
  s.versions[0] = 1000;
  expect(&s, ONYX_OPSET, "ai.onnx opset 1000 is not supported");
  s.versions[0] = -3;
  expect(&s, ONYX_OPSET, "opset -3");
  s.versions[0] = onyx_max_opset();
  expect(&s, ONYX_OK, NULL);
  s.versions[0] = 1;
  expect(&s, ONYX_OK, NULL);

  /* "ai.onnx" spelled out is the same domain, stored as "". */
  s = good_spec();
  s.domains[0] = "ai.onnx";
  onyx__pbw w;
  build_model(&w, &s);
  onyx_model *m = NULL;
  uint8_t *buf;
  assert_int_equal(load(&w, w.len, &m, &buf, NULL), ONYX_OK);
  const char *domain = NULL;
  assert_int_equal(onyx_model_opset(m, 0, &domain, NULL, NULL), ONYX_OK);
  assert_string_equal(domain, "");
  assert_int_equal(m->onnx_opset, 13);
  onyx_error err = {0};
  assert_int_equal(onyx_model_opset(m, 2, &domain, NULL, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_model_opset(NULL, 0, &domain, NULL, &err), ONYX_INVALID_ARGUMENT);
  onyx_node_info info;
  assert_int_equal(onyx_model_node(m, 2, &info, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_model_node(m, 0, NULL, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_model_node_count(NULL), 0);
  assert_int_equal(onyx_model_opset_count(NULL), 0);
  assert_int_equal(onyx_model_ir_version(NULL), 0);
  onyx_model_free(m);
  onyx_model_free(NULL);
  free(buf);
  onyx__pbw_free(&w);
}

static void test_structure_errors(void **state) {
  (void)state;
  spec s = good_spec();
  s.no_graph = true;
  expect(&s, ONYX_PARSE, "no graph");
  s = good_spec();
  s.two_graphs = true;
  expect(&s, ONYX_PARSE, "more than one graph");

  s = good_spec();
  s.bad_raw = 10;
  expect(&s, ONYX_TENSOR_DATA,
         "initializer 'w': raw_data has 10 bytes; shape [3] of float needs 12");

  s = good_spec();
  s.input_rank = ONYX_MAX_RANK + 1;
  expect(&s, ONYX_LIMIT, "graph input 0 ('x'): the shape has more than 16 dimensions");
  s.input_rank = ONYX_MAX_RANK;
  expect(&s, ONYX_OK, NULL);

  s = good_spec();
  s.input_dim = -5;
  expect(&s, ONYX_SHAPE, "graph input 0 ('x'): dimension 0 is -5");

  s = good_spec();
  s.node_name_nul = true;
  expect(&s, ONYX_PARSE, "node 0 ('cl'): the node name contains a NUL byte");

  /* Inputs of other kinds decode with has_type false for the session. */
  s = good_spec();
  s.seq_input = true;
  onyx__pbw w;
  build_model(&w, &s);
  onyx_model *m = NULL;
  uint8_t *buf;
  assert_int_equal(load(&w, w.len, &m, &buf, NULL), ONYX_OK);
  assert_string_equal(m->graph.inputs[1].name, "lo");
  assert_false(m->graph.inputs[1].has_type);
  onyx_model_free(m);
  free(buf);
  onyx__pbw_free(&w);

  /* No type and two value fields: left undefined for the session. */
  s = good_spec();
  s.extra_attr_fields = true;
  build_model(&w, &s);
  assert_int_equal(load(&w, w.len, &m, &buf, NULL), ONYX_OK);
  const onyx__node *n0 = &m->graph.nodes[0];
  assert_string_equal(n0->attrs[n0->n_attrs - 1].name, "both");
  assert_int_equal(n0->attrs[n0->n_attrs - 1].type, ONYX__ATTR_UNDEFINED);
  onyx_model_free(m);
  free(buf);
  onyx__pbw_free(&w);
}

/* Hand-written bytes for errors the spec cannot express. */
static onyx_status load_bytes(const void *bytes, size_t n, onyx_error *err) {
  onyx__pbw w = {0};
  onyx__pbw_raw(&w, bytes, n);
  onyx_model *m = NULL;
  uint8_t *buf;
  onyx_status st = load(&w, n, &m, &buf, err);
  onyx_model_free(m);
  free(buf);
  onyx__pbw_free(&w);
  return st;
}

static void test_wire_errors(void **state) {
  (void)state;
  onyx_error err = {0};
  /* ir_version as a string. */
  assert_int_equal(load_bytes("\x0a\x01x", 3, &err), ONYX_PARSE);
  assert_non_null(strstr(err.message, "ir_version"));
  /* A group at the top level. */
  assert_int_equal(load_bytes("\x08\x08\x0b", 3, &err), ONYX_PARSE);
  assert_non_null(strstr(err.message, "groups"));
  /* A graph whose length runs past the end. */
  assert_int_equal(load_bytes("\x08\x08\x3a\x05\x0a", 5, &err), ONYX_PARSE);
  assert_non_null(strstr(err.message, "past the end"));
  /* Field number 0. */
  assert_int_equal(load_bytes("\x08\x08\x00", 3, &err), ONYX_PARSE);
  /* A node input given as a varint: names the node. */
  static const uint8_t node_bad[] = {
      0x08, 0x08,             /* ir_version 8 */
      0x42, 0x02, 0x10, 0x0d, /* opset_import { version 13 } */
      0x3a, 0x06,             /* graph { */
      0x0a, 0x04,             /*   node { */
      0x1a, 0x00,             /*     name "" */
      0x08, 0x01              /*     input as varint 1 } } */
  };
  assert_int_equal(load_bytes(node_bad, sizeof node_bad, &err), ONYX_PARSE);
  assert_non_null(strstr(err.message, "node 0: protobuf: field 1 (input) has wire type 0"));
  /* Empty and NULL. */
  onyx_model *m = (onyx_model *)1;
  assert_int_equal(onyx_model_load_memory("", 0, &m, &err), ONYX_PARSE);
  assert_null(m);
  assert_int_equal(onyx_model_load_memory(NULL, 4, &m, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_model_load_memory("x", 1, NULL, &err), ONYX_INVALID_ARGUMENT);
}

static void test_nesting(void **state) {
  (void)state;
  spec s = good_spec();
  s.deep_type = true;
  expect(&s, ONYX_LIMIT, "nested more than 64 deep");
  s = good_spec();
  s.subgraphs = 30; /* three levels each: graph, node, attribute */
  expect(&s, ONYX_LIMIT, "nested more than 64 deep");
  s.subgraphs = 10;
  expect(&s, ONYX_OK, NULL);
}

/* Every prefix of a valid model must load or fail cleanly, never crash or
 * read past the end (the sanitizers and valgrind see the exact-size
 * buffers). */
static void test_truncated_everywhere(void **state) {
  (void)state;
  spec s = good_spec();
  onyx__pbw w;
  build_model(&w, &s);
  size_t ok = 0;
  for (size_t n = 0; n <= w.len; n++) {
    onyx_model *m = (onyx_model *)1;
    uint8_t *buf;
    onyx_error err = {0};
    onyx_status st = load(&w, n, &m, &buf, &err);
    if (st == ONYX_OK) {
      assert_non_null(m);
      ok++;
    } else {
      assert_null(m);
      assert_int_equal(err.status, st);
      assert_true(err.message[0] != '\0');
    }
    onyx_model_free(m);
    free(buf);
  }
  assert_true(ok >= 1); /* at least the whole model */
  onyx__pbw_free(&w);
}

/* Each byte of a valid model replaced by a few values: no crash, no leak. */
static void test_mutations(void **state) {
  (void)state;
  spec s = good_spec();
  onyx__pbw w;
  build_model(&w, &s);
  static const uint8_t values[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
  for (size_t i = 0; i < w.len; i++) {
    uint8_t saved = w.buf[i];
    for (size_t k = 0; k < sizeof values; k++) {
      w.buf[i] = values[k];
      onyx_model *m = NULL;
      uint8_t *buf;
      onyx_status st = load(&w, w.len, &m, &buf, NULL);
      assert_true(st == ONYX_OK ? m != NULL : m == NULL);
      onyx_model_free(m);
      free(buf);
    }
    w.buf[i] = saved;
  }
  onyx__pbw_free(&w);
}

static void test_out_of_memory(void **state) {
  (void)state;
  spec s = good_spec();
  onyx__pbw w;
  build_model(&w, &s);
  bool succeeded = false;
  for (unsigned long k = 1; k < 1000 && !succeeded; k++) {
    onyx_model *m = (onyx_model *)1;
    onyx_error err = {0};
    onyx__alloc_fail_at(k);
    onyx_status st = onyx_model_load_memory(w.buf, w.len, &m, &err);
    onyx__alloc_fail_at(0);
    if (st == ONYX_OK) {
      succeeded = true;
      check_good_model(m);
    } else {
      assert_int_equal(st, ONYX_OUT_OF_MEMORY);
      assert_null(m);
    }
    onyx_model_free(m);
  }
  assert_true(succeeded);
  onyx__pbw_free(&w);
}

/* ---- Files ------------------------------------------------------------------ */

static void write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  if (n) assert_int_equal(fwrite(data, 1, n, f), n);
  assert_int_equal(fclose(f), 0);
}

static void test_load_file_errors(void **state) {
  (void)state;
  char dir[] = "/tmp/onyx_model_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[128];
  onyx_model *m = (onyx_model *)1;
  onyx_error err = {0};

  snprintf(path, sizeof path, "%s/missing.onnx", dir);
  assert_int_equal(onyx_model_load_file(path, &m, &err), ONYX_IO);
  assert_null(m);
  assert_non_null(strstr(err.message, path));
  assert_int_equal(onyx_model_load_file(dir, &m, &err), ONYX_IO);
  assert_non_null(strstr(err.message, "folder"));
  assert_true(strncmp(err.message, dir, strlen(dir)) == 0);
  assert_int_equal(onyx_model_load_file("/dev/null", &m, &err), ONYX_IO);
  assert_string_equal(err.message, "/dev/null: is not a regular file");

  snprintf(path, sizeof path, "%s/empty.onnx", dir);
  write_file(path, "", 0);
  assert_int_equal(onyx_model_load_file(path, &m, &err), ONYX_PARSE);
  assert_non_null(strstr(err.message, "empty"));
  assert_true(strncmp(err.message, path, strlen(path)) == 0);
  unlink(path);

  spec s = good_spec();
  s.ir = 2;
  onyx__pbw w;
  build_model(&w, &s);
  snprintf(path, sizeof path, "%s/old.onnx", dir);
  write_file(path, w.buf, w.len);
  onyx__pbw_free(&w);
  assert_int_equal(onyx_model_load_file(path, &m, &err), ONYX_IR_VERSION);
  char want[256];
  snprintf(want, sizeof want, "%s: ir_version 2 is not supported; onyx reads 3 to 11", path);
  assert_string_equal(err.message, want);
  unlink(path);

  assert_int_equal(onyx_model_load_file(NULL, &m, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_model_load_file(path, NULL, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_model_load_file("", &m, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(rmdir(dir), 0);
}

static void test_load_file_good_and_oom(void **state) {
  (void)state;
  char dir[] = "/tmp/onyx_model_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof path, "%s/good.onnx", dir);
  spec s = good_spec();
  onyx__pbw w;
  build_model(&w, &s);
  write_file(path, w.buf, w.len);
  onyx__pbw_free(&w);
  bool succeeded = false;
  for (unsigned long k = 1; k < 1000 && !succeeded; k++) {
    onyx_model *m = (onyx_model *)1;
    onyx_error err = {0};
    onyx__alloc_fail_at(k);
    onyx_status st = onyx_model_load_file(path, &m, &err);
    onyx__alloc_fail_at(0);
    if (st == ONYX_OK) {
      succeeded = true;
      check_good_model(m);
      assert_string_equal(m->path, path);
      assert_string_equal(m->dir, dir);
    } else {
      assert_int_equal(st, ONYX_OUT_OF_MEMORY);
      assert_true(strncmp(err.message, path, strlen(path)) == 0);
      assert_null(m);
    }
    onyx_model_free(m);
  }
  assert_true(succeeded);
  unlink(path);
  assert_int_equal(rmdir(dir), 0);
}

static void test_external_through_model(void **state) {
  (void)state;
  char dir[] = "/tmp/onyx_model_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[128], weights[128], link[128];
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  snprintf(weights, sizeof weights, "%s/weights.bin", dir);
  snprintf(link, sizeof link, "%s/link.bin", dir);
  static const float v[4] = {0.0f, 7.0f, 8.0f, 9.0f}; /* offset 4: 7, 8, 9 */
  uint8_t v_le[sizeof v];
  host_to_le_elems(v, 4, 4, v_le);
  write_file(weights, v_le, sizeof v);
  assert_int_equal(symlink("/etc/passwd", link), 0);

  spec s = good_spec();
  s.ext_location = "weights.bin";
  onyx__pbw w;
  build_model(&w, &s);
  write_file(path, w.buf, w.len);

  onyx_model *m = NULL;
  onyx_error err = {0};
  onyx_status st = onyx_model_load_file(path, &m, &err);
  if (st != ONYX_OK) fail_msg("%s", err.message);
  const onyx__tensor *t = &m->graph.initializers[1];
  assert_string_equal(t->name, "w");
  assert_int_equal(t->count, 3);
  assert_memory_equal(t->data, v + 1, 12);
  onyx_model_free(m);

  /* A large slice is checked at load but read on the first use. */
  enum { BIG = ONYX__DEFER_MIN / 4 + 1 };
  float *big = malloc((BIG + 1) * sizeof *big);
  assert_non_null(big);
  for (int i = 0; i <= BIG; i++) big[i] = (float)i;
  uint8_t *big_le = malloc((BIG + 1) * sizeof *big);
  assert_non_null(big_le);
  host_to_le_elems(big, BIG + 1, sizeof *big, big_le);
  write_file(weights, big_le, (BIG + 1) * sizeof *big);
  free(big_le);
  spec sb = s;
  sb.ext_count = BIG;
  onyx__pbw wb;
  build_model(&wb, &sb);
  write_file(path, wb.buf, wb.len);
  onyx__pbw_free(&wb);
  st = onyx_model_load_file(path, &m, &err);
  if (st != ONYX_OK) fail_msg("%s", err.message);
  t = &m->graph.initializers[1];
  assert_int_equal(t->count, BIG);
  assert_null(t->data);
  st = onyx__model_load_payloads(m, &err);
  if (st != ONYX_OK) fail_msg("%s", err.message);
  assert_memory_equal(t->data, big + 1, BIG * sizeof *big);
  onyx_model_free(m);
  /* With the file kept mapped, the slice is mapped at load. */
  st = onyx_model_load_file_mapped(path, &m, &err);
  if (st != ONYX_OK) fail_msg("%s", err.message);
  t = &m->graph.initializers[1];
  assert_non_null(t->data);
  assert_memory_equal(t->data, big + 1, BIG * sizeof *big);
  onyx_model_free(m);
  free(big);

  /* The same bytes from memory have no folder. */
  m = (onyx_model *)1;
  assert_int_equal(onyx_model_load_memory(w.buf, w.len, &m, &err), ONYX_EXTERNAL_DATA);
  assert_null(m);
  assert_non_null(strstr(err.message, "initializer 'w': "));
  onyx__pbw_free(&w);

  /* A link out of the folder is refused, with the path and the tensor. */
  s.ext_location = "link.bin";
  build_model(&w, &s);
  write_file(path, w.buf, w.len);
  onyx__pbw_free(&w);
  assert_int_equal(onyx_model_load_file(path, &m, &err), ONYX_EXTERNAL_DATA);
  assert_null(m);
  assert_true(strncmp(err.message, path, strlen(path)) == 0);
  assert_non_null(strstr(err.message, "initializer 'w': "));
  assert_non_null(strstr(err.message, "symbolic link"));

  unlink(path);
  unlink(weights);
  unlink(link);
  assert_int_equal(rmdir(dir), 0);
}

static void test_conformance_models(void **state) {
  (void)state;
  const char *clip = ONYX_TESTDATA_DIR "/node/test_clip/model.onnx";
  const char *constant = ONYX_TESTDATA_DIR "/node/test_constant/model.onnx";
  if (access(clip, R_OK) != 0 || access(constant, R_OK) != 0) skip();
  onyx_model *m = NULL;
  onyx_error err = {0};
  assert_int_equal(onyx_model_load_file(clip, &m, &err), ONYX_OK);
  assert_true(m->ir_version >= 3 && m->ir_version <= 11);
  assert_true(m->onnx_opset >= 11);
  assert_int_equal(m->graph.n_nodes, 1);
  onyx_node_info info;
  assert_int_equal(onyx_model_node(m, 0, &info, &err), ONYX_OK);
  assert_string_equal(info.op_type, "Clip");
  assert_string_equal(info.domain, "");
  assert_int_equal(info.input_count, 3);
  assert_string_equal(info.inputs[0], "x");
  assert_string_equal(info.inputs[1], "min");
  assert_string_equal(info.inputs[2], "max");
  assert_string_equal(info.outputs[0], "y");
  assert_int_equal(m->graph.n_inputs, 3);
  const onyx__value_info *x = &m->graph.inputs[0];
  assert_true(x->has_type && x->has_shape);
  assert_int_equal(x->dtype, ONYX_DTYPE_FLOAT);
  assert_int_equal(x->rank, 3);
  assert_int_equal(x->dims[0], 3);
  assert_int_equal(x->dims[1], 4);
  assert_int_equal(x->dims[2], 5);
  assert_string_equal(m->dir, ONYX_TESTDATA_DIR "/node/test_clip");
  onyx_model_free(m);

  assert_int_equal(onyx_model_load_file(constant, &m, &err), ONYX_OK);
  assert_int_equal(m->graph.n_nodes, 1);
  const onyx__node *n = &m->graph.nodes[0];
  assert_string_equal(n->op_type, "Constant");
  assert_int_equal(n->n_attrs, 1);
  assert_string_equal(n->attrs[0].name, "value");
  assert_int_equal(n->attrs[0].type, ONYX__ATTR_TENSOR);
  assert_non_null(n->attrs[0].t);
  assert_int_equal(n->attrs[0].t->dtype, ONYX_DTYPE_FLOAT);
  assert_int_equal(n->attrs[0].t->count, 25);
  onyx_model_free(m);
}

enum { CEIL_N = ONYX__DEFER_MIN / 4 + 3 }; /* floats: a payload that is not copied */

/* y = Ceil(w) with w's CEIL_N values as raw_data of an initializer named
 * name (whose length moves the payload's offset). */
static void ceil_model(onyx__pbw *m, const char *name, const float *w) {
  int64_t n = CEIL_N;
  onyx__pbw g = {0};
  mb_initializer(&g, name, ONYX_DTYPE_FLOAT, 1, &n, w, CEIL_N * sizeof *w);
  mb_node(&g, "Ceil", "ceil", name, NULL, NULL, "y", NULL);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, &n);
  mb_model(m, 8, 13, &g);
}

static float *ceil_weights(void) {
  float *w = malloc(CEIL_N * sizeof *w);
  assert_non_null(w);
  for (int i = 0; i < CEIL_N; i++) w[i] = (float)i * 0.37f - 100.0f;
  return w;
}

/* Checks that the initializer lies in [lo, hi), and that a run computes
 * Ceil of it bit for bit; frees the model. */
static void check_in_place_run(onyx_model *model, const float *w, const void *lo, const void *hi) {
  const uint8_t *data = model->graph.initializers[0].data;
  /* A big-endian host converts the payload, so it never lies in place. */
  bool inside = data >= (const uint8_t *)lo && data < (const uint8_t *)hi;
  assert_true(inside == !host_is_big_endian());
  onyx_session *s = NULL;
  onyx_error err = {0};
  if (onyx_session_create(model, NULL, &s, &err) != ONYX_OK) fail_msg("%s", err.message);
  onyx_tensor y;
  memset(&y, 0, sizeof y);
  if (onyx_session_run(s, NULL, 0, &y, 1, &err) != ONYX_OK) fail_msg("%s", err.message);
  const float *v = y.data;
  for (int i = 0; i < CEIL_N; i++) assert_true(v[i] == ceilf(w[i]));
  onyx_free(y.data);
  onyx_session_free(s);
  onyx_model_free(model);
}

/* A model in memory keeps its large raw_data where it lies, at every
 * alignment, and kernels read it there: y = Ceil(w) is right bit for bit. */
static void test_memory_payload_in_place(void **state) {
  (void)state;
  float *w = ceil_weights();
  onyx__pbw m = {0};
  ceil_model(&m, "w", w);
  for (size_t shift = 0; shift < 4; shift++) {
    unsigned char *buf = malloc(m.len + 4);
    assert_non_null(buf);
    memcpy(buf + shift, m.buf, m.len); /* moves the payload by shift bytes */
    onyx_model *model = NULL;
    onyx_error err = {0};
    if (onyx_model_load_memory(buf + shift, m.len, &model, &err) != ONYX_OK) {
      fail_msg("%s", err.message);
    }
    check_in_place_run(model, w, buf, buf + m.len + 4);
    free(buf);
  }
  onyx__pbw_free(&m);
  free(w);
}

/* onyx_model_load_file_mapped keeps the file mapped and the payload in it,
 * at every offset modulo 4; onyx_model_load_file defers the same payload. */
static void test_file_mapped(void **state) {
  (void)state;
  char dir[] = "/tmp/onyx_model_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  float *w = ceil_weights();
  static const char *const names[] = {"w", "wx", "wxy", "wxyz"};
  for (size_t k = 0; k < 4; k++) {
    onyx__pbw m = {0};
    ceil_model(&m, names[k], w);
    write_file(path, m.buf, m.len);
    onyx__pbw_free(&m);
    onyx_model *model = NULL;
    onyx_error err = {0};
    if (onyx_model_load_file(path, &model, &err) != ONYX_OK) fail_msg("%s", err.message);
    assert_null(model->graph.initializers[0].data);
    onyx_model_free(model);
    if (onyx_model_load_file_mapped(path, &model, &err) != ONYX_OK) fail_msg("%s", err.message);
    assert_non_null(model->mapping);
    check_in_place_run(model, w, model->mapping, model->mapping + model->mapping_size);
  }
  free(w);
  unlink(path);
  assert_int_equal(rmdir(dir), 0);
}

/* A metadata_props entry as ModelProto field 14. */
static void put_prop(onyx__pbw *m, const char *key, const char *value) {
  onyx__pbw e = {0};
  mb_str(&e, 1, key);
  mb_str(&e, 2, value);
  mb_msg(m, 14, &e);
}

static void test_metadata(void **state) {
  (void)state;
  int64_t n = 2;
  onyx__pbw g = {0}, m = {0};
  mb_node(&g, "Ceil", "ceil", "x", NULL, NULL, "y", NULL);
  mb_value(&g, 11, "x", ONYX_DTYPE_FLOAT, 1, &n);
  mb_value(&g, 12, "y", ONYX_DTYPE_FLOAT, 1, &n);
  mb_str(&m, 2, "exporter");
  mb_str(&m, 3, "1.2.3");
  put_prop(&m, "author", "someone");
  mb_str(&m, 4, "org.example");
  onyx__pbw_uint(&m, 5, 42);
  onyx__pbw_bytes(&m, 6, "doc\0hidden", 10);
  mb_model(&m, 8, 13, &g); /* the graph is named "g" */
  put_prop(&m, "author", "someone else");
  put_prop(&m, "", "");

  onyx_model *model = NULL;
  onyx_error err = {0};
  if (onyx_model_load_memory(m.buf, m.len, &model, &err) != ONYX_OK) fail_msg("%s", err.message);
  onyx_model_meta meta;
  assert_int_equal(onyx_model_metadata(model, &meta, &err), ONYX_OK);
  assert_string_equal(meta.producer_name, "exporter");
  assert_string_equal(meta.producer_version, "1.2.3");
  assert_string_equal(meta.domain, "org.example");
  assert_int_equal(meta.model_version, 42);
  assert_string_equal(meta.doc_string, "doc");
  assert_string_equal(meta.graph_name, "g");
  assert_int_equal(meta.metadata_count, 3);
  static const char *const keys[] = {"author", "author", ""};
  static const char *const values[] = {"someone", "someone else", ""};
  for (size_t i = 0; i < 3; i++) {
    assert_string_equal(meta.metadata_keys[i], keys[i]);
    assert_string_equal(meta.metadata_values[i], values[i]);
  }
  assert_int_equal(onyx_model_metadata(model, NULL, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_model_metadata(NULL, &meta, &err), ONYX_INVALID_ARGUMENT);
  onyx_model_free(model);

  /* A model without them: "" and 0. A value of the wrong wire type is
   * refused. */
  onyx__pbw g2 = {0}, m2 = {0};
  mb_node(&g2, "Ceil", "ceil", "x", NULL, NULL, "y", NULL);
  mb_model(&m2, 8, 13, &g2);
  if (onyx_model_load_memory(m2.buf, m2.len, &model, &err) != ONYX_OK) fail_msg("%s", err.message);
  assert_int_equal(onyx_model_metadata(model, &meta, &err), ONYX_OK);
  assert_string_equal(meta.producer_name, "");
  assert_string_equal(meta.doc_string, "");
  assert_int_equal(meta.model_version, 0);
  assert_int_equal(meta.metadata_count, 0);
  onyx_model_free(model);
  onyx__pbw_uint(&m2, 2, 7);
  assert_int_equal(onyx_model_load_memory(m2.buf, m2.len, &model, &err), ONYX_PARSE);
  assert_non_null(strstr(err.message, "producer_name"));
  onyx__pbw_free(&m);
  onyx__pbw_free(&m2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_good_model),
      cmocka_unit_test(test_ir_version),
      cmocka_unit_test(test_opsets),
      cmocka_unit_test(test_structure_errors),
      cmocka_unit_test(test_wire_errors),
      cmocka_unit_test(test_nesting),
      cmocka_unit_test(test_truncated_everywhere),
      cmocka_unit_test(test_mutations),
      cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test(test_load_file_errors),
      cmocka_unit_test(test_load_file_good_and_oom),
      cmocka_unit_test(test_external_through_model),
      cmocka_unit_test(test_memory_payload_in_place),
      cmocka_unit_test(test_file_mapped),
      cmocka_unit_test(test_metadata),
      cmocka_unit_test(test_conformance_models),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
