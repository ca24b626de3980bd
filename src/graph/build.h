/* SPDX-License-Identifier: MIT */
/*
 * What session creation (session.c) shares between its stages, each in a
 * file of its own job: names and values (names.c, values.c), node order
 * (order.c), the plan of each node (plan.c), fusion (fusion.c) and the
 * memory plan (memory.c). docs/internals.md walks through them in order.
 */
#ifndef ONYX_GRAPH_BUILD_H
#define ONYX_GRAPH_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/session.h"

/* ---- Names -> indices (names.c) ---------------------------------------- */

/*
 * Open addressing over a power-of-two table; built once, never resized,
 * keyed with a seed drawn for each table (names.c says why).
 */
typedef struct onyx__name_slot {
  const char *key; /* NULL when empty */
  int32_t index;
} onyx__name_slot;

typedef struct onyx__name_table {
  uint32_t cap; /* power of two, > 2 * entries */
  onyx__name_slot *slots;
  uint64_t seed;
} onyx__name_table;

/* A table for up to max_entries names, from arena's temporary memory:
 * names are looked up only while the session is built. */
onyx_status onyx__names_init(onyx__name_table *t, onyx__arena *arena, size_t max_entries,
                             onyx_error *err);
/* The slot holding name, or the empty slot where it would go. */
onyx__name_slot *onyx__names_slot(const onyx__name_table *t, const char *name);
/* The index stored under name, or -1. */
int32_t onyx__names_find(const onyx__name_table *t, const char *name);

/* ---- The stages of onyx_session_create, in order ----------------------- */

typedef struct onyx__builder {
  onyx_session *s;
  const onyx_model *m;
  const onyx__graph *g;
  onyx__name_table names;
  size_t max_values;
  onyx_error *err;
  onyx_tensor *views; /* scratch for registered ops' infer, one per value; made on first use */
  onyx__name_table
      domains; /* imported domain -> index in m->opsets, when there are registered ops */
} onyx__builder;

/* Values (values.c): the graph inputs, initializers and every node
 * output, by name; a name defined twice is an error. Then the inputs'
 * symbolic dimension names: indexed (onyx_session.dim_name), and the
 * pairs of input dimensions that share one, which every run checks are
 * equal. */
onyx_status onyx__add_values(onyx__builder *b);
/* Order (order.c): the nodes so that every producer runs before its
 * consumers; an undefined input or a cycle is an error. */
onyx_status onyx__sort_nodes(onyx__builder *b, uint32_t **order_out);
/* The plan of each node (plan.c), in order: its step, whoever serves it. */
onyx_status onyx__plan_nodes(onyx__builder *b, const uint32_t *order);
/* Outputs (values.c): every graph output defined and as declared. */
onyx_status onyx__plan_outputs(onyx__builder *b);
/* Fusion (fusion.c): the groups, then the memory plan. */
onyx_status onyx__plan_groups(onyx__builder *b);
/* Memory (memory.c): tiles and whole buffers by liveness; whole marks the
 * values written whole. */
onyx_status onyx__plan_memory(onyx__builder *b, const bool *whole);

#endif
