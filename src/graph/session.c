/* SPDX-License-Identifier: MIT */
/*
 * Session creation: every check a model needs before it can run, and every
 * kernel choice. After onyx_session_create succeeds, a run can fail only on
 * what the caller passes to it.
 */
#include "graph/session.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/error.h"
#include "core/format.h"
#include "graph/custom.h"
#include "ops/op.h"
#include "os/os.h"

/* ---- Names -> value indices ------------------------------------------- */

/*
 * Open addressing over a power-of-two table; built once, never resized.
 *
 * The names come from the model, so the hash is keyed with a seed drawn for
 * each table: with a fixed hash, a hostile model can give all its values
 * names that land in one probe sequence and make session creation
 * quadratic (40,000 such names, a 1.2 MB model, took 17 s instead of
 * 50 ms). The seed mixes the platform's (onyx__os_seed: the clock and
 * addresses under ASLR) with the table's address; nothing iterates
 * the table, so results do not depend on it.
 */
typedef struct name_slot {
  const char *key; /* NULL when empty */
  int32_t index;
} name_slot;

typedef struct name_table {
  uint32_t cap; /* power of two, > 2 * entries */
  name_slot *slots;
  uint64_t seed;
} name_table;

static uint64_t mix64(uint64_t z) { /* splitmix64's finalizer */
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static uint64_t table_seed(const void *t) {
  return mix64(onyx__os_seed() ^ (uint64_t)(uintptr_t)t);
}

/* FNV-1a over 64 bits from the seed, then mixed so that every bit of the
 * state reaches the low bits the table uses. */
static uint32_t hash_name(const char *s, uint64_t seed) {
  uint64_t h = seed ^ 14695981039346656037u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
  return (uint32_t)mix64(h);
}

static onyx_status table_init(name_table *t, onyx__arena *arena, size_t max_entries,
                              onyx_error *err) {
  uint32_t cap = 16;
  while (cap < 2 * max_entries + 1) {
    if (cap > UINT32_MAX / 2) return onyx__fail(err, ONYX_LIMIT, "the graph has too many names");
    cap *= 2;
  }
  t->cap = cap;
  t->seed = table_seed(t);
  t->slots = onyx__arena_alloc(arena, sizeof(name_slot) * cap);
  if (t->slots == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  memset(t->slots, 0, sizeof(name_slot) * cap);
  return ONYX_OK;
}

/* The slot holding name, or the empty slot where it would go. */
static name_slot *table_slot(const name_table *t, const char *name) {
  uint32_t i = hash_name(name, t->seed) & (t->cap - 1);
  while (t->slots[i].key != NULL && strcmp(t->slots[i].key, name) != 0) i = (i + 1) & (t->cap - 1);
  return &t->slots[i];
}

/* The index stored under name, or -1. */
static int32_t table_find(const name_table *t, const char *name) {
  const name_slot *slot = table_slot(t, name);
  return slot->key != NULL ? slot->index : -1;
}

/* ---- Building --------------------------------------------------------- */

typedef struct builder {
  onyx_session *s;
  const onyx_model *m;
  const onyx__graph *g;
  name_table names;
  size_t max_values;
  onyx_error *err;
  onyx_tensor *views; /* scratch for registered ops' infer, one per value; made on first use */
  name_table domains; /* imported domain -> index in m->opsets, when there are registered ops */
} builder;

/* Makes b->domains, so that a node's domain version costs a probe, not a
 * search of the imports (K imports x N nodes took 8.3 s for a 2.1 MB
 * model). The first import of a domain wins, as the search found it. */
static onyx_status index_domains(builder *b) {
  if (b->s->opts.ops == NULL) return ONYX_OK;
  ONYX__TRY(table_init(&b->domains, &b->s->arena, b->m->n_opsets, b->err));
  for (size_t i = 0; i < b->m->n_opsets; i++) {
    name_slot *slot = table_slot(&b->domains, b->m->opsets[i].domain);
    if (slot->key != NULL) continue;
    slot->key = b->m->opsets[i].domain;
    slot->index = (int32_t)i;
  }
  return ONYX_OK;
}

/* The opset version node's domain has in the model ("" is ai.onnx), or 0. */
static int64_t node_domain_version(const builder *b, const onyx__node *node) {
  if (node->domain[0] == '\0') return b->m->onnx_opset;
  int32_t i = table_find(&b->domains, node->domain);
  return i >= 0 ? b->m->opsets[i].version : 0;
}

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
static onyx_status add_value(builder *b, const char *name, onyx__value_kind kind, int32_t producer,
                             const char *what, uint32_t *index) {
  name_slot *slot = table_slot(&b->names, name);
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

static onyx_status check_declared_type(builder *b, const onyx__value_info *vi, const char *what,
                                       size_t index) {
  if (!vi->has_type)
    return onyx__fail(b->err, ONYX_TYPE, "%s %zu ('%s') is not a tensor with a declared type", what,
                      index, vi->name);
  if (!onyx__dtype_known(vi->raw_elem_type))
    return onyx__fail(
        b->err, ONYX_TYPE, "%s %zu ('%s') has element type %s (%d), which onyx does not support",
        what, index, vi->name, onyx__onnx_type_name(vi->raw_elem_type), (int)vi->raw_elem_type);
  return ONYX_OK;
}

static void info_from_value_info(onyx_value_info *info, const onyx__value_info *vi) {
  memset(info, 0, sizeof *info);
  info->name = vi->name;
  info->dtype = vi->dtype;
  info->has_shape = vi->has_shape;
  info->rank = vi->rank;
  for (uint32_t d = 0; d < vi->rank; d++) {
    info->dims[d] = vi->dims[d];
    info->dim_names[d] = vi->dim_params[d];
  }
}

/* Graph inputs that are not initializers become run inputs; initializers
 * become constants (an initializer listed as an input is a default that
 * onyx does not let the caller override, as ONNX test layouts expect). */
static onyx_status add_inputs_and_initializers(builder *b) {
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
  s->input_values = onyx__arena_alloc(&s->arena, sizeof(uint32_t) * (g->n_inputs + 1));
  s->input_info = onyx__arena_alloc(&s->arena, sizeof(onyx_value_info) * (g->n_inputs + 1));
  if (s->input_values == NULL || s->input_info == NULL)
    return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < g->n_inputs; i++) {
    const onyx__value_info *in = &g->inputs[i];
    ONYX__TRY(check_declared_type(b, in, "graph input", i));
    int32_t existing = table_find(&b->names, in->name);
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
    info_from_value_info(&s->input_info[s->n_inputs], in);
    s->n_inputs++;
  }
  return ONYX_OK;
}

/* Every node output becomes a value; a name defined twice is an error. */
static onyx_status add_node_outputs(builder *b) {
  for (size_t n = 0; n < b->g->n_nodes; n++) {
    const onyx__node *node = &b->g->nodes[n];
    for (size_t o = 0; o < node->n_outputs; o++) {
      if (node->outputs[o][0] == '\0') continue;
      char what[300];
      onyx__format(what, sizeof what, "node %zu ('%s', %s)", n, node->name, node->op_type);
      uint32_t vi;
      ONYX__TRY(add_value(b, node->outputs[o], ONYX__VALUE_COMPUTED, (int32_t)n, what, &vi));
    }
  }
  return ONYX_OK;
}

/*
 * Orders the nodes so that every producer runs before its consumers (Kahn's
 * algorithm, taking ready nodes in model order so that a sorted model keeps
 * its order). A node input nothing defines, or a cycle, is an error here.
 */
static onyx_status sort_nodes(builder *b, uint32_t **order_out) {
  const onyx__graph *g = b->g;
  size_t n = g->n_nodes;
  onyx__arena *arena = &b->s->arena;
  uint32_t *pending = onyx__arena_alloc(arena, sizeof(uint32_t) * (n + 1));
  uint32_t *order = onyx__arena_alloc(arena, sizeof(uint32_t) * (n + 1));
  /* consumers of node i: edges[first[i] .. first[i+1]) (CSR layout) */
  size_t n_edges = 0;
  for (size_t i = 0; i < n; i++) n_edges += g->nodes[i].n_inputs;
  uint32_t *first = onyx__arena_alloc(arena, sizeof(uint32_t) * (n + 2));
  uint32_t *edges = onyx__arena_alloc(arena, sizeof(uint32_t) * (n_edges + 1));
  if (!pending || !order || !first || !edges)
    return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");

  for (size_t i = 0; i < n; i++) {
    const onyx__node *node = &g->nodes[i];
    for (size_t k = 0; k < node->n_inputs; k++) {
      const char *name = node->inputs[k];
      if (name[0] == '\0') continue;
      int32_t v = table_find(&b->names, name);
      if (v < 0)
        return onyx__fail(b->err, ONYX_UNDEFINED_VALUE,
                          "node %zu ('%s', %s): input %zu '%s' is not defined by any graph "
                          "input, initializer or node",
                          i, node->name, node->op_type, k, name);
      int32_t p = b->s->values[v].producer;
      if (p >= 0) {
        pending[i]++;
        first[p + 1]++;
      }
    }
  }
  for (size_t i = 0; i < n; i++) first[i + 1] += first[i];
  uint32_t *fill = onyx__arena_alloc(arena, sizeof(uint32_t) * (n + 1));
  if (fill == NULL) return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");
  memcpy(fill, first, sizeof(uint32_t) * n);
  for (size_t i = 0; i < n; i++) {
    const onyx__node *node = &g->nodes[i];
    for (size_t k = 0; k < node->n_inputs; k++) {
      if (node->inputs[k][0] == '\0') continue;
      int32_t p = b->s->values[table_find(&b->names, node->inputs[k])].producer;
      if (p >= 0) edges[fill[p]++] = (uint32_t)i;
    }
  }
  /* order[] doubles as the FIFO of ready nodes. */
  size_t head = 0, tail = 0;
  for (size_t i = 0; i < n; i++)
    if (pending[i] == 0) order[tail++] = (uint32_t)i;
  while (head < tail) {
    uint32_t i = order[head++];
    for (uint32_t e = first[i]; e < first[i + 1]; e++)
      if (--pending[edges[e]] == 0) order[tail++] = edges[e];
  }
  if (tail < n) {
    for (size_t i = 0; i < n; i++)
      if (pending[i] != 0)
        return onyx__fail(b->err, ONYX_CYCLE, "node %zu ('%s', %s) is part of a cycle", i,
                          g->nodes[i].name, g->nodes[i].op_type);
  }
  *order_out = order;
  return ONYX_OK;
}

/* Step st for node n: its inputs and outputs by value, no buffers yet. */
static onyx_status step_io(builder *b, size_t n, onyx__step *st) {
  const onyx__node *node = &b->g->nodes[n];
  memset(st, 0, sizeof *st);
  st->node = (uint32_t)n;
  st->n_in = (uint32_t)node->n_inputs;
  st->n_out = (uint32_t)node->n_outputs;
  int32_t *io =
      onyx__arena_alloc(&b->s->arena, sizeof(int32_t) * (node->n_inputs + 2 * node->n_outputs + 1));
  if (io == NULL) return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");
  st->in = io;
  st->out = io + node->n_inputs;
  st->buf = io + node->n_inputs + node->n_outputs;
  for (size_t i = 0; i < node->n_inputs; i++)
    st->in[i] = node->inputs[i][0] != '\0' ? table_find(&b->names, node->inputs[i]) : -1;
  for (size_t k = 0; k < node->n_outputs; k++) {
    st->out[k] = node->outputs[k][0] != '\0' ? table_find(&b->names, node->outputs[k]) : -1;
    st->buf[k] = -1;
  }
  st->sx = st->sy = -1;
  return ONYX_OK;
}

/* A step for every node, in order: a registered operator serves a node
 * its domain, op type and the domain's version match (onyx__custom_lookup),
 * else onyx's own op does. Either plan fills the same step. */
static onyx_status plan_nodes(builder *b, const uint32_t *order) {
  onyx_session *s = b->s;
  const onyx__graph *g = b->g;
  s->steps = onyx__arena_alloc(&s->arena, sizeof(onyx__step) * (g->n_nodes + 1));
  if (s->steps == NULL) return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");
  for (size_t k = 0; k < g->n_nodes; k++) {
    size_t n = order[k];
    const onyx__node *node = &g->nodes[n];
    onyx__step *st = &s->steps[s->n_steps];
    ONYX__TRY(step_io(b, n, st));
    const onyx__custom_entry *custom = NULL;
    int64_t opset = 0;
    if (s->opts.ops != NULL) {
      opset = node_domain_version(b, node);
      custom = onyx__custom_lookup(s->opts.ops, node, opset);
    }
    if (custom != NULL)
      ONYX__TRY(onyx__custom_plan(s, custom, opset, st, &b->views, b->err));
    else
      ONYX__TRY(onyx__builtin_plan(s, st, b->err));
    if (st->fns == NULL) continue; /* its outputs are constants now */
    if (st->fns->views) s->views = true;
    s->n_steps++;
  }
  return ONYX_OK;
}

/* Whether dimension k (input k / ONYX_MAX_RANK) has a symbolic name. */
static bool dim_named(const onyx_session *s, size_t k) {
  const onyx_value_info *in = &s->input_info[k / ONYX_MAX_RANK];
  size_t d = k % ONYX_MAX_RANK;
  return d < in->rank && in->dim_names[d] != NULL && in->dim_names[d][0] != '\0';
}

/*
 * Inputs that share a symbolic dimension name must agree on its size: each
 * named dimension is linked to the first one of its name, found through a
 * table of the names, so that the cost is linear in the number of
 * dimensions (comparing each with every earlier one took 26 s for 8,000
 * inputs of 16 dimensions). The tables are sized by the named dimensions,
 * so a model without any, as every model whose arena size
 * onyx_session_arena_size() measures, takes none (they were 648 of the
 * one-Ceil model's 3,064 arena bytes on Cortex-M3).
 */
static onyx_status link_symbolic_dims(builder *b) {
  onyx_session *s = b->s;
  size_t n = s->n_inputs * ONYX_MAX_RANK, named = 0;
  for (size_t k = 0; k < n; k++) named += dim_named(s, k);
  if (named == 0) return ONYX_OK;
  name_table first;
  s->dim_link = onyx__arena_alloc(&s->arena, sizeof(uint32_t) * 2 * named);
  if (s->dim_link == NULL) return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");
  ONYX__TRY(table_init(&first, &s->arena, named, b->err));
  for (size_t k = 0; k < n; k++) {
    if (!dim_named(s, k)) continue;
    const onyx_value_info *in = &s->input_info[k / ONYX_MAX_RANK];
    size_t d = k % ONYX_MAX_RANK;
    name_slot *slot = table_slot(&first, in->dim_names[d]);
    if (slot->key == NULL) {
      slot->key = in->dim_names[d];
      slot->index = (int32_t)k;
      continue;
    }
    s->dim_link[2 * s->n_dim_links] = (uint32_t)k;
    s->dim_link[2 * s->n_dim_links + 1] = (uint32_t)slot->index;
    s->n_dim_links++;
  }
  return ONYX_OK;
}

static onyx_status plan_outputs(builder *b) {
  onyx_session *s = b->s;
  const onyx__graph *g = b->g;
  s->output_values = onyx__arena_alloc(&s->arena, sizeof(uint32_t) * (g->n_outputs + 1));
  s->output_info = onyx__arena_alloc(&s->arena, sizeof(onyx_value_info) * (g->n_outputs + 1));
  if (s->output_values == NULL || s->output_info == NULL)
    return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");
  if (g->n_outputs == 0)
    return onyx__fail(b->err, ONYX_UNDEFINED_VALUE, "the graph has no outputs");
  for (size_t i = 0; i < g->n_outputs; i++) {
    const onyx__value_info *out = &g->outputs[i];
    int32_t v = table_find(&b->names, out->name);
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
    onyx_value_info *info = &s->output_info[i];
    if (out->has_type && out->has_shape) {
      info_from_value_info(info, out);
    } else {
      memset(info, 0, sizeof *info);
      info->name = out->name;
      info->dtype = d->dtype;
      info->has_shape = d->has_shape && !d->provisional;
      if (info->has_shape) {
        info->rank = d->rank;
        memcpy(info->dims, d->dims, sizeof d->dims);
      }
    }
  }
  s->n_outputs = g->n_outputs;
  return ONYX_OK;
}

static uint32_t group_root(uint32_t *parent, uint32_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

/* A stack of free tile or buffer numbers; numbers are made as needed. */
typedef struct free_list {
  uint32_t *free;
  uint32_t n_free, made;
} free_list;

static int32_t take(free_list *f) {
  return (int32_t)(f->n_free > 0 ? f->free[--f->n_free] : f->made++);
}

static void give(free_list *f, int32_t i) {
  if (i >= 0) f->free[f->n_free++] = (uint32_t)i;
}

/* Where the values live while planning. */
typedef struct places {
  const uint32_t *last_use; /* the last step that reads (or, unread, writes) a value */
  const bool *whole, *is_output;
  int32_t *tile_of, *buf_of;
  uint32_t *reads; /* how often the current step reads a value; 0 between steps */
  free_list tiles, bufs;
} places;

/* Gives back the tile and buffer of value v when step k is its last use. */
static void release(places *p, uint32_t k, int32_t v) {
  if (v < 0 || p->last_use[v] != k) return;
  give(&p->tiles, p->tile_of[v]);
  give(&p->bufs, p->buf_of[v]);
  p->tile_of[v] = p->buf_of[v] = -1;
}

/* Places step k's outputs: a tile for a value only its group reads, a
 * whole buffer for one written whole that is no graph output (graph
 * outputs are written in the caller's buffers), nothing else. Output o
 * takes input o's place when the step allows it, input o is read for the
 * last time, once, and holds the same kind of place. */
static void place_outputs(places *p, onyx__step *st, uint32_t k) {
  /* reads[v] makes the check one look per output, not a pass over the
   * inputs (120,000 inputs of a variadic op took 9.4 s). */
  for (uint32_t i = 0; i < st->n_in; i++)
    if (st->in[i] >= 0) p->reads[st->in[i]]++;
  for (uint32_t o = 0; o < st->n_out; o++) {
    int32_t y = st->out[o], x = o < st->n_in ? st->in[o] : -1;
    if (y < 0 || p->is_output[y]) continue;
    bool reuse =
        st->in_place == ONYX__IN_PLACE_SAME && x >= 0 && p->last_use[x] == k && p->reads[x] == 1;
    if (p->whole[y]) {
      if (reuse && p->buf_of[x] >= 0) {
        p->buf_of[y] = p->buf_of[x];
        p->buf_of[x] = -1;
      } else {
        p->buf_of[y] = take(&p->bufs);
      }
    } else if (reuse && p->tile_of[x] >= 0) {
      p->tile_of[y] = p->tile_of[x];
      p->tile_of[x] = -1;
    } else {
      p->tile_of[y] = take(&p->tiles);
    }
    st->buf[o] = p->buf_of[y];
  }
  for (uint32_t i = 0; i < st->n_in; i++)
    if (st->in[i] >= 0) p->reads[st->in[i]] = 0;
}

/*
 * Where every intermediate value lives, planned by liveness as ONNX
 * Runtime's allocation planner does, over each step's inputs and outputs:
 * a value's tile (inside a fused group) or whole buffer (a value written
 * whole that is no graph output) is given back after the last step that
 * reads it, and the next value placed takes it. A step that reads its
 * inputs before writing (ONYX__IN_PLACE_ANY: element-wise kernels run in
 * place) gives them back before its outputs are placed, so a chain needs
 * one tile per worker however long it is, and memory follows the graph's
 * widest point, not its length. Other steps read their inputs while they
 * write, so those are given back after.
 */
static onyx_status plan_memory(builder *b, const bool *whole) {
  onyx_session *s = b->s;
  size_t n = s->n_steps, nv = s->n_values;
  onyx__arena *arena = &s->arena;
  uint32_t *last_use = onyx__arena_alloc(arena, sizeof(uint32_t) * (nv + 1));
  bool *is_output = onyx__arena_alloc(arena, sizeof(bool) * (nv + 1));
  places p = {last_use,
              whole,
              is_output,
              onyx__arena_alloc(arena, sizeof(int32_t) * (nv + 1)),
              onyx__arena_alloc(arena, sizeof(int32_t) * (nv + 1)),
              onyx__arena_alloc(arena, sizeof(uint32_t) * (nv + 1)),
              /* A tile or buffer holds one value at a time, so a list
               * never holds more numbers than there are values (a step may
               * write many). */
              {onyx__arena_alloc(arena, sizeof(uint32_t) * (nv + 1)), 0, 0},
              {onyx__arena_alloc(arena, sizeof(uint32_t) * (nv + 1)), 0, 0}};
  if (!last_use || !is_output || !p.tile_of || !p.buf_of || !p.reads || !p.tiles.free ||
      !p.bufs.free)
    return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");
  for (size_t v = 0; v < nv; v++) {
    last_use[v] = UINT32_MAX;
    p.tile_of[v] = p.buf_of[v] = -1;
    is_output[v] = false;
    p.reads[v] = 0;
  }
  for (size_t o = 0; o < s->n_outputs; o++) is_output[s->output_values[o]] = true;
  /* A value no step reads is dead after the step that writes it. */
  for (uint32_t k = 0; k < n; k++)
    for (uint32_t o = 0; o < s->steps[k].n_out; o++)
      if (s->steps[k].out[o] >= 0) last_use[s->steps[k].out[o]] = k;
  for (uint32_t k = 0; k < n; k++)
    for (uint32_t i = 0; i < s->steps[k].n_in; i++)
      if (s->steps[k].in[i] >= 0) last_use[s->steps[k].in[i]] = k;
  for (size_t g = 0; g < s->n_groups; g++) {
    p.tiles.n_free = p.tiles.made = 0; /* tiles are reused from group to group */
    for (uint32_t k = s->groups[g].first; k < s->groups[g].first + s->groups[g].n_steps; k++) {
      onyx__step *st = &s->steps[k];
      if (st->n_in > 0 && st->in[0] >= 0) st->sx = p.tile_of[st->in[0]];
      if (st->in_place == ONYX__IN_PLACE_ANY)
        for (uint32_t i = 0; i < st->n_in; i++) release(&p, k, st->in[i]);
      place_outputs(&p, st, k);
      for (uint32_t i = 0; i < st->n_in; i++) release(&p, k, st->in[i]);
      if (st->out[0] >= 0) st->sy = p.tile_of[st->out[0]];
      for (uint32_t o = 0; o < st->n_out; o++) release(&p, k, st->out[o]);
    }
    if (p.tiles.made > s->n_scratch) s->n_scratch = p.tiles.made;
  }
  s->n_buffers = p.bufs.made;
  return ONYX_OK;
}

/*
 * Fusion: splits the steps into groups (see onyx__group), then plans where
 * their values live. A step with a per-tile kernel joins the group of the
 * step that produced its in[0] when that one has a per-tile kernel too;
 * every other step is a group of its own, and what it reads and writes is
 * whole, as are graph outputs and a fusable step's other inputs (such as
 * Clip's bounds). Steps are reordered so that a group's steps are
 * contiguous; that keeps every dependency, because steps of different
 * groups are linked only through whole values, and when a fusable step's
 * other input is computed by a step, fusion is turned off: every step is
 * then its own group and every value is written whole, in model order.
 */
static onyx_status plan_groups(builder *b) {
  onyx_session *s = b->s;
  size_t n = s->n_steps;
  onyx__arena *arena = &s->arena;
  bool *whole = onyx__arena_alloc(arena, sizeof(bool) * (s->n_values + 1));
  int32_t *producer = onyx__arena_alloc(arena, sizeof(int32_t) * (s->n_values + 1));
  uint32_t *parent = onyx__arena_alloc(arena, sizeof(uint32_t) * (n + 1));
  int32_t *group_of_root = onyx__arena_alloc(arena, sizeof(int32_t) * (n + 1));
  onyx__step *sorted = onyx__arena_alloc(arena, sizeof(onyx__step) * (n + 1));
  s->groups = onyx__arena_alloc(arena, sizeof(onyx__group) * (n + 1));
  if (!whole || !producer || !parent || !group_of_root || !sorted || !s->groups)
    return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");

#ifdef ONYX_OMIT_FUSION /* the build configuration's hook: every step alone */
  bool fuse = false;
#else
  bool fuse = true;
#endif
  for (size_t v = 0; v < s->n_values; v++) producer[v] = -1;
  for (size_t i = 0; i < n; i++)
    for (uint32_t k = 0; k < s->steps[i].n_out; k++)
      if (s->steps[i].out[k] >= 0) producer[s->steps[i].out[k]] = (int32_t)i;
  for (size_t o = 0; o < s->n_outputs; o++) whole[s->output_values[o]] = true;
  for (size_t i = 0; i < n; i++) {
    const onyx__step *st = &s->steps[i];
    bool tiled = st->prep.kernel != NULL;
    for (uint32_t k = tiled ? 1 : 0; k < st->n_in; k++) {
      if (st->in[k] < 0) continue;
      whole[st->in[k]] = true;
      if (tiled && producer[st->in[k]] >= 0) fuse = false;
    }
    for (uint32_t k = 0; !tiled && k < st->n_out; k++)
      if (st->out[k] >= 0) whole[st->out[k]] = true;
  }

  for (size_t i = 0; i < n; i++) {
    parent[i] = (uint32_t)i;
    group_of_root[i] = -1;
  }
  if (fuse)
    for (size_t i = 0; i < n; i++) {
      const onyx__step *st = &s->steps[i];
      int32_t p = st->prep.kernel != NULL ? producer[st->in[0]] : -1;
      if (p >= 0 && s->steps[p].prep.kernel != NULL)
        parent[group_root(parent, (uint32_t)i)] = group_root(parent, (uint32_t)p);
    }
  else
    for (size_t v = 0; v < s->n_values; v++) whole[v] = true;

  /* Number the groups by their first step, then lay their steps out
   * contiguously, keeping model order inside each group. */
  size_t *sizes = onyx__arena_alloc(arena, sizeof(size_t) * (n + 1));
  if (sizes == NULL) return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < n; i++) {
    uint32_t r = group_root(parent, (uint32_t)i);
    if (group_of_root[r] < 0) group_of_root[r] = (int32_t)s->n_groups++;
    sizes[group_of_root[r]]++;
  }
  for (size_t g = 0, first = 0; g < s->n_groups; g++) {
    s->groups[g].first = (uint32_t)first;
    first += sizes[g];
  }
  for (size_t i = 0; i < n; i++) {
    onyx__group *g = &s->groups[group_of_root[group_root(parent, (uint32_t)i)]];
    if (g->n_steps == 0) {
      const onyx__step *st = &s->steps[i];
      g->x = st->prep.kernel != NULL ? (uint32_t)st->in[0] : onyx__step_y(st);
      g->elem = (uint32_t)onyx_dtype_size(s->values[g->x].desc.dtype);
    }
    sorted[g->first + g->n_steps++] = s->steps[i];
  }
  s->steps = sorted;

  return plan_memory(b, whole);
}

void onyx_session_options_init(onyx_session_options *opts) {
  if (opts == NULL) return;
  memset(opts, 0, sizeof *opts);
  opts->isa_cap = ONYX_ISA_BEST;
}

onyx_status onyx_session_create(const onyx_model *model, const onyx_session_options *opts,
                                onyx_session **out, onyx_error *err) {
  if (out != NULL) *out = NULL;
  if (model == NULL || out == NULL)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "onyx_session_create: model and out must not be NULL");
  /* An arena session's run context, made here, keeps the constants'
   * pointers, and its runs take no heap memory: the model's large
   * payloads are read now, into the model's memory, not at a first run. */
  if (opts != NULL && opts->arena != NULL) ONYX__TRY(onyx__model_load_payloads(model, err));
  onyx_session *s = NULL;
  ONYX__TRY(onyx__session_new(opts, &s, err));
  s->model = model;
  if (opts != NULL)
    s->opts = *opts;
  else
    onyx_session_options_init(&s->opts);

  builder b = {s, model, &model->graph, {0, NULL, 0}, 0, err, NULL, {0, NULL, 0}};
  const onyx__graph *g = &model->graph;
  b.max_values = g->n_inputs + g->n_initializers;
  for (size_t i = 0; i < g->n_nodes; i++) b.max_values += g->nodes[i].n_outputs;
  onyx_status st = ONYX_OK;
  s->values = onyx__arena_alloc(&s->arena, sizeof(onyx__value) * (b.max_values + 1));
  if (s->values == NULL) st = onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  if (st == ONYX_OK) st = table_init(&b.names, &s->arena, b.max_values, err);
  uint32_t *order = NULL;
  if (st == ONYX_OK) st = add_inputs_and_initializers(&b);
  if (st == ONYX_OK) st = add_node_outputs(&b);
  if (st == ONYX_OK) st = sort_nodes(&b, &order);
  if (st == ONYX_OK) st = index_domains(&b);
  if (st == ONYX_OK) st = plan_nodes(&b, order);
  onyx__arena_or_heap_free(&s->arena, b.views);
  if (st == ONYX_OK) st = plan_outputs(&b);
  if (st == ONYX_OK) st = plan_groups(&b);
  if (st == ONYX_OK) st = link_symbolic_dims(&b);
  if (st == ONYX_OK) {
    unsigned threads = s->opts.threads ? s->opts.threads : onyx__cpu_count();
    if (s->arena.fixed != NULL) threads = 1; /* a pool would take heap memory */
    if (threads > onyx__pool_max_workers()) threads = onyx__pool_max_workers();
    s->opts.threads = threads;
    if (threads > 1) st = onyx__pool_create(threads, &s->pool, err);
    s->workers = onyx__pool_size(s->pool);
  }
  if (st == ONYX_OK && s->arena.fixed != NULL) st = onyx__run_ctx_attach(s, err);
  if (st != ONYX_OK) {
    onyx__session_arena_note(s, st, err);
    if (model->path != NULL) onyx__error_prefix(err, "%s", model->path);
    onyx_session_free(s);
    return st;
  }
  *out = s;
  return ONYX_OK;
}

void onyx_session_free(onyx_session *session) {
  if (session == NULL) return;
  onyx__pool_free(session->pool);
  onyx__run_ctx_free(atomic_load(&session->cached_ctx));
  onyx__arena_free(&session->arena);
  if (session->arena.fixed == NULL) onyx__free(session); /* else it is in the caller's arena */
}

size_t onyx_session_input_count(const onyx_session *session) {
  return session ? session->n_inputs : 0;
}

size_t onyx_session_output_count(const onyx_session *session) {
  return session ? session->n_outputs : 0;
}

onyx_status onyx_session_input_info(const onyx_session *session, size_t index, onyx_value_info *out,
                                    onyx_error *err) {
  if (session == NULL || out == NULL || index >= session->n_inputs)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_session_input_info: no input %zu", index);
  *out = session->input_info[index];
  return ONYX_OK;
}

onyx_status onyx_session_output_info(const onyx_session *session, size_t index,
                                     onyx_value_info *out, onyx_error *err) {
  if (session == NULL || out == NULL || index >= session->n_outputs)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_session_output_info: no output %zu", index);
  *out = session->output_info[index];
  return ONYX_OK;
}
