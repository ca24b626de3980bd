/*
 * The operator registry. One ONNX op = one file in src/ops/ holding its
 * version table and its prepare function; registry.c lists the ops once.
 *
 * The session does the checks every op shares (domain, version resolution,
 * input/output counts, attribute names and types, element types of inputs
 * constrained to T) from the version table, then calls prepare for the rest.
 */
#ifndef ONYX_OPS_OP_H
#define ONYX_OPS_OP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/dtype.h"
#include "kernels/kernels.h"
#include "model/model.h"

/* The newest ai.onnx opset onyx knows: no op it supports changed after it. */
#define ONYX__MAX_OPSET 28

typedef struct onyx__attr_spec {
  const char *name;
  onyx__attr_type type;
} onyx__attr_spec;

/* One version of an op: valid from `since` until the next entry's since. */
typedef struct onyx__op_version {
  int since;
  onyx__dmask types; /* allowed types of T (every input and the output) */
  unsigned min_inputs, max_inputs;
  unsigned n_outputs;
  const onyx__attr_spec *attrs; /* allowed attributes, terminated by {NULL} */
} onyx__op_version;

/* What the session knows about a value when it creates the session. */
typedef struct onyx__value_desc {
  onyx_dtype dtype;
  bool has_shape; /* rank and dims known (dims may be -1 = symbolic) */
  uint32_t rank;
  int64_t dims[ONYX_MAX_RANK];
  const onyx__tensor *constant; /* non-NULL when the value is known now */
} onyx__value_desc;

/* How a node runs, filled by prepare. */
typedef struct onyx__prepared {
  /* Element-wise nodes: out = kernel(input 0). */
  onyx__kop kop;
  onyx__ukernel kernel;
  onyx__kparams params;
  /* Clip's bounds that are only known at run time: input index or -1. They
   * are read from the value then and turned into params. */
  int runtime_bound[2];
  /* Nodes whose output is known now (Constant): the value. */
  const onyx__tensor *constant;
} onyx__prepared;

typedef struct onyx__prepare_ctx {
  const onyx__node *node;
  size_t node_index;
  const onyx__op_version *version;
  int64_t opset;
  /* inputs[i] describes node input i, or is NULL for an omitted one. */
  const onyx__value_desc *const *inputs;
  onyx_isa isa_cap;
  onyx__arena *arena; /* the session's, for anything prepare allocates */
  onyx__value_desc *out; /* output 0: prepare sets dtype and shape */
} onyx__prepare_ctx;

typedef onyx_status (*onyx__prepare_fn)(onyx__prepare_ctx *ctx, onyx__prepared *prep,
                                        onyx_error *err);

typedef struct onyx__op {
  const char *name;
  const onyx__op_version *versions; /* ascending by since */
  size_t n_versions;
  onyx__prepare_fn prepare;
} onyx__op;

/* The registered op of this ai.onnx name, or NULL. */
const onyx__op *onyx__op_find(const char *op_type);

/* The version of op in force at opset, or NULL if op did not exist yet. */
const onyx__op_version *onyx__op_version_at(const onyx__op *op, int64_t opset);

/* Shared by op files: a message prefix naming the node, e.g.
 * "node 2 ('clip1', Clip-11)". */
void onyx__node_label(const onyx__prepare_ctx *ctx, char *buf, size_t cap);

/* Shared prepare for single-input element-wise ops (Ceil, Floor, Sign). */
onyx_status onyx__prepare_unary(onyx__prepare_ctx *ctx, onyx__prepared *prep, onyx__kop kop,
                                onyx_error *err);

/* The attribute of that name on the node, or NULL. */
const onyx__attr *onyx__node_attr(const onyx__node *node, const char *name);

extern const onyx__op onyx__op_ceil, onyx__op_floor, onyx__op_clip, onyx__op_sign,
    onyx__op_constant;

#endif
