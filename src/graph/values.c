/* SPDX-License-Identifier: MIT */
/*
 * Names and values of session creation: every graph input, initializer
 * and node output becomes a value; the graph outputs are checked against
 * their declarations; inputs that share a symbolic dimension are linked.
 */
#include "graph/build.h"

#include <string.h>

#include "core/error.h"
#include "core/format.h"

static const char *describe_producer(const onyx__value *v, char *buf, size_t cap) {
  if (v->kind == ONYX__VALUE_INPUT)
    onyx__format(buf, cap, "a graph input");
  else if (v->producer < 0)
    onyx__format(buf, cap, "an initializer");
  else
    onyx__format(buf, cap, "node %d", v->producer);
  return buf;
}

/* Adds a named value; two producers of one name are an error. */
static onyx_status add_value(onyx__builder *b, const char *name, onyx__value_kind kind,
                             int32_t producer, const char *what, uint32_t *index) {
  onyx__name_slot *slot = onyx__names_slot(&b->names, name);
  if (slot->key != NULL) {
    char prev[64];
    return onyx__fail(b->err, ONYX_DUPLICATE_VALUE, "%s defines '%s', which %s already defines",
                      what, name, describe_producer(&b->s->values[slot->index], prev, sizeof prev));
  }
  onyx__value *v = &b->s->values[b->s->n_values];
  v->name = name;
  v->kind = kind;
  v->producer = producer;
  slot->key = name;
  slot->index = (int32_t)b->s->n_values;
  *index = (uint32_t)b->s->n_values++;
  return ONYX_OK;
}

static void desc_from_tensor(onyx__value_desc *d, const onyx__tensor *t) {
  d->dtype = t->dtype;
  d->has_shape = true;
  d->rank = t->rank;
  memcpy(d->dims, t->dims, sizeof d->dims);
  d->constant = t;
}

static onyx_status check_declared_type(onyx__builder *b, const onyx__value_info *vi,
                                       const char *what, size_t index) {
  if (!vi->has_type)
    return onyx__fail(b->err, ONYX_TYPE, "%s %zu ('%s') is not a tensor with a declared type", what,
                      index, vi->name);
  if (!onyx__dtype_known(vi->raw_elem_type))
    return onyx__fail(
        b->err, ONYX_TYPE, "%s %zu ('%s') has element type %s (%d), which onyx does not support",
        what, index, vi->name, onyx__onnx_type_name(vi->raw_elem_type), (int)vi->raw_elem_type);
  return ONYX_OK;
}

/* Graph inputs that are not initializers become run inputs; initializers
 * become constants (an initializer listed as an input is a default that
 * onyx does not let the caller override, as ONNX test layouts expect). */
static onyx_status add_inputs_and_initializers(onyx__builder *b) {
  const onyx__graph *g = b->g;
  onyx_session *s = b->s;
  if (g->n_sparse_initializers > 0)
    return onyx__fail(b->err, ONYX_TENSOR_DATA, "sparse initializers are not supported");
  for (size_t i = 0; i < g->n_initializers; i++) {
    const onyx__tensor *t = &g->initializers[i];
    char what[64];
    onyx__format(what, sizeof what, "initializer %zu", i);
    uint32_t vi;
    ONYX__TRY(add_value(b, t->name, ONYX__VALUE_CONSTANT, -1, what, &vi));
    desc_from_tensor(&s->values[vi].desc, t);
  }
  s->input_values = onyx__arena_alloc(&s->arena, sizeof(uint32_t) * g->n_inputs);
  s->input_decl = onyx__arena_alloc(&s->arena, sizeof *s->input_decl * g->n_inputs);
  if (s->input_values == NULL || s->input_decl == NULL)
    return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < g->n_inputs; i++) {
    const onyx__value_info *in = &g->inputs[i];
    ONYX__TRY(check_declared_type(b, in, "graph input", i));
    int32_t existing = onyx__names_find(&b->names, in->name);
    if (existing >= 0 && s->values[existing].kind == ONYX__VALUE_CONSTANT) {
      const onyx__value *v = &s->values[existing];
      if (v->desc.dtype != in->dtype)
        return onyx__fail(b->err, ONYX_TYPE,
                          "graph input %zu ('%s') is declared %s but its initializer is %s", i,
                          in->name, onyx_dtype_name(in->dtype), onyx_dtype_name(v->desc.dtype));
      continue;
    }
    char what[64];
    onyx__format(what, sizeof what, "graph input %zu", i);
    uint32_t vi;
    ONYX__TRY(add_value(b, in->name, ONYX__VALUE_INPUT, -1, what, &vi));
    onyx__value *v = &s->values[vi];
    v->input_index = (uint32_t)s->n_inputs;
    v->desc.dtype = in->dtype;
    v->desc.has_shape = in->has_shape;
    v->desc.rank = in->rank;
    memcpy(v->desc.dims, in->dims, sizeof v->desc.dims);
    s->input_values[s->n_inputs] = vi;
    s->input_decl[s->n_inputs] = in;
    s->n_inputs++;
  }
  return ONYX_OK;
}

/* Every node output becomes a value; a name defined twice is an error. */
static onyx_status add_node_outputs(onyx__builder *b) {
  for (size_t n = 0; n < b->g->n_nodes; n++) {
    const onyx__node *node = &b->g->nodes[n];
    for (size_t o = 0; o < node->n_outputs; o++) {
      if (node->outputs[o][0] == '\0') continue;
      char what[300];
      onyx__node_label(node, n, 0, 0, what, sizeof what);
      uint32_t vi;
      ONYX__TRY(add_value(b, node->outputs[o], ONYX__VALUE_COMPUTED, (int32_t)n, what, &vi));
    }
  }
  return ONYX_OK;
}

/* Whether dimension d of session input i has a symbolic name. */
static bool dim_named(const onyx_session *s, size_t i, size_t d) {
  const onyx__value_info *in = s->input_decl[i];
  return d < in->rank && in->dim_params[d] != NULL && in->dim_params[d][0] != '\0';
}

/*
 * The names of the inputs' dimensions, each once, with each input value's
 * row of name indices (onyx_session.dim_name); and, since inputs that
 * share a symbolic name must agree on its size, each named dimension's
 * link to the first one of its name, which every run checks. One table of
 * the names finds them, so that the cost is linear in the number of
 * dimensions (comparing each with every earlier one took 26 s for 8,000
 * inputs of 16 dimensions). Nothing is allocated for a model without any,
 * as every model whose arena size onyx_session_arena_size() measures (the
 * link tables were 648 of the one-Ceil model's 3,064 arena bytes on
 * Cortex-M3). Past 65,535 distinct names a dimension is still linked but
 * shows no name.
 */
static onyx_status link_dims(onyx__builder *b) {
  onyx_session *s = b->s;
  size_t named = 0;
  for (size_t i = 0; i < s->n_inputs; i++)
    for (size_t d = 0; d < s->input_decl[i]->rank; d++) named += dim_named(s, i, d);
  if (named == 0) return ONYX_OK;
  size_t row_bytes = sizeof(uint16_t) * ONYX_MAX_RANK;
  s->dim_name = onyx__arena_alloc(&s->arena, row_bytes * s->n_values);
  s->dim_names = onyx__arena_alloc(&s->arena, sizeof(const char *) * named);
  s->dim_link = onyx__arena_alloc(&s->arena, sizeof(uint32_t) * 2 * named);
  if (s->dim_name == NULL || s->dim_names == NULL || s->dim_link == NULL)
    return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");
  memset(s->dim_name, 0, row_bytes * s->n_values);
  onyx__name_table first; /* name -> its first dimension, input * ONYX_MAX_RANK + dim */
  ONYX__TRY(onyx__names_init(&first, &s->arena, named, b->err));
  for (size_t i = 0; i < s->n_inputs; i++) {
    uint16_t *row = onyx__dim_name_row(s, (int32_t)s->input_values[i]);
    for (size_t d = 0; d < s->input_decl[i]->rank; d++) {
      if (!dim_named(s, i, d)) continue;
      const char *name = s->input_decl[i]->dim_params[d];
      onyx__name_slot *slot = onyx__names_slot(&first, name);
      uint32_t k = (uint32_t)(i * ONYX_MAX_RANK + d);
      if (slot->key == NULL) {
        slot->key = name;
        slot->index = (int32_t)k;
        if (s->n_dim_names < UINT16_MAX) {
          s->dim_names[s->n_dim_names++] = name;
          row[d] = (uint16_t)s->n_dim_names;
        }
        continue;
      }
      uint32_t f = (uint32_t)slot->index;
      row[d] =
          onyx__dim_name_row(s, (int32_t)s->input_values[f / ONYX_MAX_RANK])[f % ONYX_MAX_RANK];
      s->dim_link[2 * s->n_dim_links] = k;
      s->dim_link[2 * s->n_dim_links + 1] = f;
      s->n_dim_links++;
    }
  }
  return ONYX_OK;
}

/* Every name becomes a value: initializers and graph inputs, then node
 * outputs; then the inputs' dimension names are indexed and linked. */
onyx_status onyx__add_values(onyx__builder *b) {
  ONYX__TRY(add_inputs_and_initializers(b));
  ONYX__TRY(add_node_outputs(b));
  return link_dims(b);
}

void onyx__dim_names_like(onyx_session *s, int32_t y, int32_t x) {
  if (s->dim_name == NULL) return;
  memcpy(onyx__dim_name_row(s, y), onyx__dim_name_row(s, x), sizeof(uint16_t) * ONYX_MAX_RANK);
}

onyx_status onyx__plan_outputs(onyx__builder *b) {
  onyx_session *s = b->s;
  const onyx__graph *g = b->g;
  s->output_values = onyx__arena_alloc(&s->arena, sizeof(uint32_t) * g->n_outputs);
  if (s->output_values == NULL) return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");
  if (g->n_outputs == 0)
    return onyx__fail(b->err, ONYX_UNDEFINED_VALUE, "the graph has no outputs");
  for (size_t i = 0; i < g->n_outputs; i++) {
    const onyx__value_info *out = &g->outputs[i];
    int32_t v = onyx__names_find(&b->names, out->name);
    if (v < 0)
      return onyx__fail(b->err, ONYX_UNDEFINED_VALUE,
                        "graph output %zu '%s' is not defined by any graph input, initializer "
                        "or node",
                        i, out->name);
    const onyx__value_desc *d = &s->values[v].desc;
    if (out->has_type && out->dtype != d->dtype)
      return onyx__fail(b->err, ONYX_TYPE,
                        "graph output %zu '%s' is declared %s but is computed as %s", i, out->name,
                        onyx__onnx_type_name(out->raw_elem_type), onyx_dtype_name(d->dtype));
    /* A declared output shape that contradicts the computed one is a broken
     * model; dimensions unknown on either side are left to the run. */
    if (out->has_type && out->has_shape && d->has_shape && !d->provisional) {
      if (out->rank != d->rank)
        return onyx__fail(b->err, ONYX_SHAPE,
                          "graph output %zu '%s' is declared with rank %u but is computed with "
                          "rank %u",
                          i, out->name, out->rank, d->rank);
      for (uint32_t k = 0; k < d->rank; k++)
        if (out->dims[k] >= 0 && d->dims[k] >= 0 && out->dims[k] != d->dims[k])
          return onyx__fail(b->err, ONYX_SHAPE,
                            "graph output %zu '%s': dimension %u is declared %lld but is "
                            "computed as %lld",
                            i, out->name, k, (long long)out->dims[k], (long long)d->dims[k]);
    }
    s->output_values[i] = (uint32_t)v;
  }
  s->n_outputs = g->n_outputs;
  return ONYX_OK;
}
