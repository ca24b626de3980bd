/* SPDX-License-Identifier: MIT */
/*
 * The plan of each node: one step per node, onyx's own or registered,
 * filled by the plan of whoever serves it.
 */
#include "graph/build.h"

#include <string.h>

#include "core/error.h"
#include "graph/custom.h"

#ifndef ONYX_OMIT_CUSTOM_OPS /* the domains are indexed for registered operators only */
/* Makes b->domains, so that a node's domain version costs a probe, not a
 * search of the imports (K imports x N nodes took 8.3 s for a 2.1 MB
 * model). The first import of a domain wins, as the search found it. */
static onyx_status index_domains(onyx__builder *b) {
  if (b->s->opts.ops == NULL) return ONYX_OK;
  ONYX__TRY(onyx__names_init(&b->domains, &b->s->arena, b->m->n_opsets, b->err));
  for (size_t i = 0; i < b->m->n_opsets; i++) {
    onyx__name_slot *slot = onyx__names_slot(&b->domains, b->m->opsets[i].domain);
    if (slot->key != NULL) continue;
    slot->key = b->m->opsets[i].domain;
    slot->index = (int32_t)i;
  }
  return ONYX_OK;
}

/* The opset version node's domain has in the model ("" is ai.onnx), or 0. */
static int64_t node_domain_version(const onyx__builder *b, const onyx__node *node) {
  if (node->domain[0] == '\0') return b->m->onnx_opset;
  int32_t i = onyx__names_find(&b->domains, node->domain);
  return i >= 0 ? b->m->opsets[i].version : 0;
}
#endif

/* Step st for node n: its inputs and outputs by value, no buffers yet. */
static onyx_status step_io(onyx__builder *b, size_t n, onyx__step *st) {
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
    st->in[i] = node->inputs[i][0] != '\0' ? onyx__names_find(&b->names, node->inputs[i]) : -1;
  for (size_t k = 0; k < node->n_outputs; k++) {
    st->out[k] = node->outputs[k][0] != '\0' ? onyx__names_find(&b->names, node->outputs[k]) : -1;
    st->buf[k] = -1;
  }
  st->sx = st->sy = -1;
  return ONYX_OK;
}

/* A step for every node, in order: a registered operator serves a node
 * its domain, op type and the domain's version match (onyx__custom_lookup),
 * else onyx's own op does. Either plan fills the same step. */
onyx_status onyx__plan_nodes(onyx__builder *b, const uint32_t *order) {
#ifndef ONYX_OMIT_CUSTOM_OPS
  ONYX__TRY(index_domains(b));
#endif
  onyx_session *s = b->s;
  const onyx__graph *g = b->g;
  /* In model order: fusion keeps a copy in its order (onyx__plan_groups). */
  s->steps = onyx__arena_temp(&s->arena, sizeof(onyx__step) * g->n_nodes);
  if (s->steps == NULL) return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");
  for (size_t k = 0; k < g->n_nodes; k++) {
    size_t n = order[k];
    onyx__step *st = &s->steps[s->n_steps];
    ONYX__TRY(step_io(b, n, st));
    const onyx__custom_entry *custom = NULL;
    int64_t opset = 0;
#ifndef ONYX_OMIT_CUSTOM_OPS /* else no registry serves a node (custom.h) */
    if (s->opts.ops != NULL) {
      opset = node_domain_version(b, &g->nodes[n]);
      custom = onyx__custom_lookup(s->opts.ops, &g->nodes[n], opset);
    }
#endif
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
