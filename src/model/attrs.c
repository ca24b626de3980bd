/* SPDX-License-Identifier: MIT */
/*
 * The attributes of a model's nodes, for callers that describe a model
 * (onyx info): a read-only view of what the loader decoded, nothing
 * allocated. The checks that an op's attributes are the ones it takes
 * belong to session creation, not here.
 */
#include <string.h>

#include "config/config.h"
#include "core/error.h"
#include "model/model.h"

size_t onyx_model_node_attribute_count(const onyx_model *model, size_t node) {
  if (model == NULL || node >= model->graph.n_nodes) return 0;
  return model->graph.nodes[node].n_attrs;
}

/* The fields of a TENSOR attribute's value. */
static void view_tensor(const onyx__tensor *t, onyx_attribute_info *out) {
  out->has_tensor = 1;
  out->tensor.dtype = t->dtype;
  out->tensor.rank = t->rank;
  memcpy(out->tensor.dims, t->dims, sizeof t->dims);
  out->tensor.data = (void *)(uintptr_t)t->data; /* read-only, as documented */
  out->tensor.size = t->data != NULL ? t->nbytes : 0;
}

void onyx__attr_view(const onyx__attr *a, onyx_attribute_info *out) {
  memset(out, 0, sizeof *out);
  out->name = a->name;
  out->type = (int)a->type;
  if (a->type == ONYX__ATTR_FLOAT) out->f = a->f;
  if (a->type == ONYX__ATTR_INT) out->i = a->i;
  if (a->type == ONYX__ATTR_STRING) out->s = a->s;
  if (a->type == ONYX__ATTR_FLOATS) {
    out->count = a->n_floats;
    out->floats = a->floats;
  }
  if (a->type == ONYX__ATTR_INTS) {
    out->count = a->n_ints;
    out->ints = a->ints;
  }
  if (a->type == ONYX__ATTR_TENSOR && a->t != NULL) view_tensor(a->t, out);
}

onyx_status onyx_model_node_attribute(const onyx_model *model, size_t node, size_t index,
                                      onyx_attribute_info *out, onyx_error *err) {
  if (model == NULL || out == NULL)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_model_node_attribute: %s is NULL",
                      model == NULL ? "model" : "out");
  if (node >= model->graph.n_nodes)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "onyx_model_node_attribute: node %zu is out of range (the graph has %zu "
                      "nodes)",
                      node, model->graph.n_nodes);
  const onyx__node *n = &model->graph.nodes[node];
  if (index >= n->n_attrs)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "onyx_model_node_attribute: index %zu is out of range (node %zu has %zu "
                      "attributes)",
                      index, node, n->n_attrs);
  /* A reduced build decodes the values of the types its op versions take
   * only (config.h): the view of another would be one without its value. */
  const onyx__attr *a = &n->attrs[index];
  unsigned decoded =
      ONYX__A_FLOAT | ONYX__A_INT | ONYX__A_STRING | ONYX__A_TENSOR | ONYX__A_FLOATS | ONYX__A_INTS;
  if (a->type < 32 && ((decoded >> a->type) & 1u) && !ONYX__KEEPS_ATTR(a->type))
    return onyx__fail(err, ONYX_TYPE,
                      "onyx_model_node_attribute: node %zu, attribute '%s': its type (%d) is left "
                      "out of this build",
                      node, a->name, (int)a->type);
  onyx__attr_view(a, out);
  return ONYX_OK;
}
