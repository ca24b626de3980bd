/* SPDX-License-Identifier: MIT */
/*
 * A few lines of ONNX protobuf writing for the hardening unit tests
 * (test_alloc_fail.c, test_stack.c, test_concurrency.c), on top of the
 * library's own writer (model/pb.h). Each mb_* call appends one field to a
 * message being written; messages are written inside out and handed to
 * their parent with mb_msg, which frees them.
 */
#ifndef ONYX_TESTS_MODEL_BUILDER_H
#define ONYX_TESTS_MODEL_BUILDER_H

#include <stdint.h>
#include <string.h>

#include "host_bytes.h"
#include "model/pb.h"
#include "onyx.h"

/* Appends inner as the length-delimited field `field` of w; frees inner. */
static inline void mb_msg(onyx__pbw *w, uint32_t field, onyx__pbw *inner) {
  onyx__pbw_bytes(w, field, inner->buf, inner->len);
  onyx__pbw_free(inner);
}

static inline void mb_str(onyx__pbw *w, uint32_t field, const char *s) {
  onyx__pbw_bytes(w, field, s, strlen(s));
}

/* TensorProto fields: name, type, dims and raw_data (raw may be NULL when
 * nbytes is 0). */
static inline void mb_tensor(onyx__pbw *t, const char *name, onyx_dtype dtype, uint32_t rank,
                             const int64_t *dims, const void *raw, size_t nbytes) {
  for (uint32_t i = 0; i < rank; i++) onyx__pbw_uint(t, 1, (uint64_t)dims[i]);
  onyx__pbw_uint(t, 2, (uint64_t)dtype);
  mb_str(t, 8, name);
  onyx__pbw_bytes(t, 9, raw, nbytes);
  /* raw holds host-order elements; raw_data is little-endian. */
  size_t size = onyx_dtype_size(dtype);
  if (!t->failed && size > 0) {
    uint8_t *at = t->buf + t->len - nbytes;
    host_to_le_elems(at, nbytes / size, size, at);
  }
}

/* TensorProto fields of a tensor whose data is external: location,
 * offset and length. */
static inline void mb_tensor_external(onyx__pbw *t, const char *name, onyx_dtype dtype,
                                      uint32_t rank, const int64_t *dims, const char *location,
                                      const char *offset, const char *length) {
  for (uint32_t i = 0; i < rank; i++) onyx__pbw_uint(t, 1, (uint64_t)dims[i]);
  onyx__pbw_uint(t, 2, (uint64_t)dtype);
  mb_str(t, 8, name);
  const char *kv[3][2] = {{"location", location}, {"offset", offset}, {"length", length}};
  for (int i = 0; i < 3; i++) {
    onyx__pbw e = {0};
    mb_str(&e, 1, kv[i][0]);
    mb_str(&e, 2, kv[i][1]);
    mb_msg(t, 13, &e);
  }
  onyx__pbw_uint(t, 14, 1);
}

/* A graph initializer (GraphProto field 5) with raw data. */
static inline void mb_initializer(onyx__pbw *g, const char *name, onyx_dtype dtype, uint32_t rank,
                                  const int64_t *dims, const void *raw, size_t nbytes) {
  onyx__pbw t = {0};
  mb_tensor(&t, name, dtype, rank, dims, raw, nbytes);
  mb_msg(g, 5, &t);
}

/* A node with up to three inputs ("" for an omitted one) and one output. A
 * Constant node gets its `value` attribute from value (raw TensorProto
 * fields), others pass NULL. */
static inline void mb_node(onyx__pbw *g, const char *op, const char *name, const char *in0,
                           const char *in1, const char *in2, const char *out, onyx__pbw *value) {
  onyx__pbw n = {0};
  const char *ins[3] = {in0, in1, in2};
  for (int i = 0; i < 3; i++)
    if (ins[i] != NULL) mb_str(&n, 1, ins[i]);
  mb_str(&n, 2, out);
  mb_str(&n, 3, name);
  mb_str(&n, 4, op);
  if (value != NULL) {
    onyx__pbw a = {0};
    mb_str(&a, 1, "value");
    mb_msg(&a, 5, value);
    onyx__pbw_uint(&a, 20, 4); /* AttributeProto.TENSOR */
    mb_msg(&n, 5, &a);
  }
  mb_msg(g, 1, &n);
}

/* A ValueInfoProto as graph field `field` (11 input, 12 output, 13
 * value_info): a tensor of dtype with rank dims, where a dim of -1 is the
 * symbolic "n"; rank < 0 declares no shape. */
static inline void mb_value(onyx__pbw *g, uint32_t field, const char *name, onyx_dtype dtype,
                            int rank, const int64_t *dims) {
  onyx__pbw shape = {0}, tt = {0}, type = {0}, vi = {0};
  for (int i = 0; i < rank; i++) {
    onyx__pbw d = {0};
    if (dims[i] >= 0)
      onyx__pbw_uint(&d, 1, (uint64_t)dims[i]);
    else
      mb_str(&d, 2, "n");
    mb_msg(&shape, 1, &d);
  }
  onyx__pbw_uint(&tt, 1, (uint64_t)dtype);
  if (rank >= 0)
    mb_msg(&tt, 2, &shape);
  else
    onyx__pbw_free(&shape);
  mb_msg(&type, 1, &tt);
  mb_str(&vi, 1, name);
  mb_msg(&vi, 2, &type);
  mb_msg(g, field, &vi);
}

/* A ModelProto around graph (freed): ir_version, one ai.onnx opset import. */
static inline void mb_model(onyx__pbw *m, int64_t ir, int64_t opset, onyx__pbw *graph) {
  onyx__pbw os = {0};
  onyx__pbw_uint(m, 1, (uint64_t)ir);
  onyx__pbw_uint(&os, 2, (uint64_t)opset);
  mb_msg(m, 8, &os);
  mb_str(graph, 2, "g");
  mb_msg(m, 7, graph);
}

/* A registered op's infer for tests: every output has input 0's type and
 * shape. */
static inline onyx_status mb_infer_like_input0(onyx_op_context *ctx) {
  onyx_tensor x;
  onyx_op_input(ctx, 0, &x);
  onyx_status st = ONYX_OK;
  for (size_t k = 0; k < onyx_op_output_count(ctx) && st == ONYX_OK; k++)
    st = onyx_op_set_output(ctx, k, x.dtype, x.rank, x.dims);
  return st;
}

#endif
