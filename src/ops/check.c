/* SPDX-License-Identifier: MIT */
/*
 * The checks every one of onyx's own ops shares, driven by its version
 * table (the op and version at the model's opset, arity, attributes, input
 * types), and the plan of a node onyx serves: its op's prepare fills the
 * step's kernel and parameters and the output's description.
 */
#include <assert.h>
#include <string.h>

#include "config/config.h"
#include "core/error.h"
#include "core/format.h"
#include "graph/session.h"
#include "ops/op.h"

static const char *attr_type_name(onyx__attr_type t) {
  static const char *const names[] = {"UNDEFINED",      "FLOAT",      "INT",        "STRING",
                                      "TENSOR",         "GRAPH",      "FLOATS",     "INTS",
                                      "STRINGS",        "TENSORS",    "GRAPHS",     "SPARSE_TENSOR",
                                      "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"};
  static_assert(sizeof names / sizeof names[0] == ONYX__ATTR_TYPE_PROTOS + 1,
                "a name for every attribute type");
  return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "UNKNOWN";
}

/* The checks every op shares, driven by its version table. */

/* The op and version that serve node n at the model's ai.onnx opset, or
 * why none does. */
static onyx_status find_op(const onyx_model *m, size_t n, const onyx__op **op_out,
                           const onyx__op_version **ver_out, onyx_error *err) {
  const onyx__node *node = &m->graph.nodes[n];
  int64_t opset = m->onnx_opset;
  if (node->domain[0] != '\0')
    return onyx__fail(err, ONYX_UNSUPPORTED_OP,
                      "node %zu ('%s'): domain '%s' is not supported (op %s); onyx supports "
                      "only the ai.onnx domain",
                      n, node->name, node->domain, node->op_type);
  if (opset == 0)
    return onyx__fail(err, ONYX_OPSET,
                      "node %zu ('%s'): op %s: the model imports no ai.onnx opset; onyx supports "
                      "opsets 1 to %lld",
                      n, node->name, node->op_type, (long long)onyx_max_opset());
  *op_out = onyx__op_find(node->op_type);
  if (*op_out == NULL) {
    /* The build configuration's hook: an op a reduced build left out. */
    ONYX__TRY(onyx__config_check_op(node->op_type, NULL, NULL, n, node->name, err));
    return onyx__fail(err, ONYX_UNSUPPORTED_OP,
                      "node %zu ('%s'): op '%s' is not supported (onyx supports %s)", n, node->name,
                      node->op_type, onyx__op_names());
  }
  *ver_out = onyx__op_version_at(*op_out, opset);
  if (*ver_out == NULL)
    return onyx__fail(err, ONYX_UNSUPPORTED_OP,
                      "node %zu ('%s'): op %s does not exist at opset %lld; it was introduced "
                      "in opset %d",
                      n, node->name, node->op_type, (long long)opset, (*op_out)->versions[0].since);
  return onyx__config_check_op(node->op_type, *op_out, *ver_out, n, node->name, err);
}

/* Node n's inputs and outputs against what its op version takes. */
static onyx_status check_arity(const onyx__node *node, size_t n, const onyx__op_version *ver,
                               int64_t opset, onyx_error *err) {
  char label[300];
  if (ver->max_inputs > ONYX__MAX_OP_INPUTS)
    return onyx__fail(err, ONYX_INTERNAL, "op %s-%d takes up to %u inputs; onyx plans for %d",
                      node->op_type, ver->since, ver->max_inputs, ONYX__MAX_OP_INPUTS);
  if (node->n_inputs < ver->min_inputs || node->n_inputs > ver->max_inputs ||
      (ver->min_inputs > 0 && node->inputs[0][0] == '\0')) {
    return onyx__fail(
        err, ONYX_ARITY, "%s: takes %u to %u inputs, has %zu%s",
        onyx__node_label(node, n, ver->since, opset, label, sizeof label), ver->min_inputs,
        ver->max_inputs, node->n_inputs,
        node->n_inputs >= 1 && node->inputs[0][0] == '\0' ? " (input 0 is empty)" : "");
  }
  if (node->n_outputs != ver->n_outputs || node->outputs[0][0] == '\0')
    return onyx__fail(err, ONYX_ARITY,
                      "%s: has %zu outputs; it must have exactly %u, each with a name",
                      onyx__node_label(node, n, ver->since, opset, label, sizeof label),
                      node->n_outputs, ver->n_outputs);
  return ONYX_OK;
}

/* Node n's attributes against its op version's: known names of the right
 * type, each once. The pairwise duplicate check is bounded by the op's
 * few attributes, since an unknown name fails first. */
static onyx_status check_attrs(const onyx__node *node, size_t n, const onyx__op_version *ver,
                               int64_t opset, onyx_error *err) {
  char label[300];
  for (size_t a = 0; a < node->n_attrs; a++) {
    const onyx__attr *attr = &node->attrs[a];
    const onyx__attr_spec *spec = ver->attrs;
    while (spec->name != NULL && strcmp(spec->name, attr->name) != 0) spec++;
    if (spec->name == NULL)
      return onyx__fail(err, ONYX_ATTRIBUTE, "%s: unknown attribute '%s'",
                        onyx__node_label(node, n, ver->since, opset, label, sizeof label),
                        attr->name);
    if (spec->type != attr->type)
      return onyx__fail(err, ONYX_ATTRIBUTE, "%s: attribute '%s' has type %s; it must have type %s",
                        onyx__node_label(node, n, ver->since, opset, label, sizeof label),
                        attr->name, attr_type_name(attr->type), attr_type_name(spec->type));
    for (size_t p = 0; p < a; p++)
      if (strcmp(node->attrs[p].name, attr->name) == 0)
        return onyx__fail(err, ONYX_ATTRIBUTE, "%s: attribute '%s' is given twice",
                          onyx__node_label(node, n, ver->since, opset, label, sizeof label),
                          attr->name);
    if (attr->has_ref_attr_name)
      return onyx__fail(err, ONYX_ATTRIBUTE,
                        "node %zu ('%s'): attribute '%s' refers to a function attribute, which "
                        "only functions may do",
                        n, node->name, attr->name);
  }
  return ONYX_OK;
}

/* Everything about node n that does not depend on the rest of the graph:
 * its op and version, arity and attributes. */
static onyx_status check_node(const onyx_model *m, size_t n, const onyx__op **op_out,
                              const onyx__op_version **ver_out, onyx_error *err) {
  const onyx__node *node = &m->graph.nodes[n];
  ONYX__TRY(find_op(m, n, op_out, ver_out, err));
  ONYX__TRY(check_arity(node, n, *ver_out, m->onnx_opset, err));
  return check_attrs(node, n, *ver_out, m->onnx_opset, err);
}

onyx_status onyx_model_node_check(const onyx_model *model, size_t index, onyx_error *err) {
  if (model == NULL)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_model_node_check: model is NULL");
  if (index >= model->graph.n_nodes)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "onyx_model_node_check: index %zu is out of range (the graph has %zu nodes)",
                      index, model->graph.n_nodes);
  const onyx__op *op = NULL;
  const onyx__op_version *ver = NULL;
  return check_node(model, index, &op, &ver, err);
}

/* Every input of these ops is of type T: allowed by the version, and the
 * same for all inputs. */
static onyx_status check_input_types(const onyx_model *m, size_t n, const onyx__op_version *ver,
                                     const onyx__value_desc *const *inputs, onyx_error *err) {
  const onyx__node *node = &m->graph.nodes[n];
  char label[300];
  for (size_t k = 0; k < node->n_inputs; k++) {
    if (inputs[k] == NULL) continue;
    onyx_dtype t = inputs[k]->dtype;
    if (!onyx__dmask_has(ver->types, t)) {
      char allowed[256];
      onyx__dmask_format(ver->types, allowed, sizeof allowed);
      return onyx__fail(err, ONYX_TYPE,
                        "%s: input %zu '%s' has type %s, which %s-%d does not allow; allowed: %s",
                        onyx__node_label(node, n, ver->since, m->onnx_opset, label, sizeof label),
                        k, node->inputs[k], onyx_dtype_name(t), node->op_type, ver->since, allowed);
    }
    ONYX__TRY(onyx__config_check_type(node->op_type, t, n, node->name, err));
    if (t != inputs[0]->dtype)
      return onyx__fail(err, ONYX_TYPE,
                        "%s: input %zu '%s' has type %s but input 0 '%s' has type %s; they must "
                        "be the same",
                        onyx__node_label(node, n, ver->since, m->onnx_opset, label, sizeof label),
                        k, node->inputs[k], onyx_dtype_name(t), node->inputs[0],
                        onyx_dtype_name(inputs[0]->dtype));
  }
  return ONYX_OK;
}

onyx_status onyx__builtin_plan(onyx_session *s, onyx__step *st, onyx_error *err) {
  const onyx_model *m = s->model;
  size_t n = st->node;
  const onyx__node *node = &m->graph.nodes[n];
  const onyx__op *op = NULL;
  const onyx__op_version *ver = NULL;
  ONYX__TRY(check_node(m, n, &op, &ver, err));
  /* check_arity made sure of at most ONYX__MAX_OP_INPUTS inputs and one
   * named output. */
  const onyx__value_desc *inputs[ONYX__MAX_OP_INPUTS] = {NULL};
  for (uint32_t i = 0; i < st->n_in; i++)
    if (st->in[i] >= 0) inputs[i] = &s->values[st->in[i]].desc;
  ONYX__TRY(check_input_types(m, n, ver, inputs, err));
  onyx__value *y = &s->values[st->out[0]];
  memset(&st->prep, 0, sizeof st->prep);
  onyx__prepare_ctx ctx = {node,      n,       ver, m->onnx_opset, inputs, s->opts.isa_cap,
                           &s->arena, &y->desc};
  ONYX__TRY(op->prepare(&ctx, &st->prep, err));
  if (st->prep.constant != NULL) {
    /* Known now: a constant, and no step. */
    y->kind = ONYX__VALUE_CONSTANT;
    y->desc.constant = st->prep.constant;
    st->fns = NULL;
    return ONYX_OK;
  }
  if (st->prep.fns == NULL)
    return onyx__fail(err, ONYX_INTERNAL, "op %s gives no run-time functions", node->op_type);
  st->fns = st->prep.fns;
  st->in_place = ONYX__IN_PLACE_ANY;
  /* A step with a per-tile kernel (element-wise) gives its output its
   * input 0's shape, and so the names of its symbolic dimensions. */
  if (st->prep.kernel != NULL) onyx__dim_names_like(s, st->out[0], st->in[0]);
  return ONYX_OK;
}
