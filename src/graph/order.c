/* SPDX-License-Identifier: MIT */
/* Node order for session creation. */
#include "graph/build.h"

#include <string.h>

#include "core/error.h"

/*
 * Orders the nodes so that every producer runs before its consumers (Kahn's
 * algorithm, taking ready nodes in model order so that a sorted model keeps
 * its order). A node input nothing defines, or a cycle, is an error here.
 */
onyx_status onyx__sort_nodes(onyx__builder *b, uint32_t **order_out) {
  char label[300];
  const onyx__graph *g = b->g;
  size_t n = g->n_nodes;
  onyx__arena *arena = &b->s->arena;
  /* order is the caller's; the rest is given back here (temporary
   * memory is a stack), before the steps are planned. */
  uint32_t *order = onyx__arena_temp(arena, sizeof(uint32_t) * n);
  size_t mark = onyx__arena_temp_mark(arena);
  uint32_t *pending = onyx__arena_temp(arena, sizeof(uint32_t) * n);
  /* consumers of node i: edges[first[i] .. first[i+1]) (CSR layout) */
  size_t n_edges = 0;
  for (size_t i = 0; i < n; i++) n_edges += g->nodes[i].n_inputs;
  uint32_t *first = onyx__arena_temp(arena, sizeof(uint32_t) * (n + 1));
  uint32_t *edges = onyx__arena_temp(arena, sizeof(uint32_t) * n_edges);
  if (!pending || !order || !first || !edges)
    return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");

  for (size_t i = 0; i < n; i++) {
    const onyx__node *node = &g->nodes[i];
    for (size_t k = 0; k < node->n_inputs; k++) {
      const char *name = node->inputs[k];
      if (name[0] == '\0') continue;
      int32_t v = onyx__names_find(&b->names, name);
      if (v < 0)
        return onyx__fail(b->err, ONYX_UNDEFINED_VALUE,
                          "%s: input %zu '%s' is not defined by any graph input, initializer or "
                          "node",
                          onyx__node_label(node, i, 0, 0, label, sizeof label), k, name);
      int32_t p = b->s->values[v].producer;
      if (p >= 0) {
        pending[i]++;
        first[p + 1]++;
      }
    }
  }
  for (size_t i = 0; i < n; i++) first[i + 1] += first[i];
  uint32_t *fill = onyx__arena_temp(arena, sizeof(uint32_t) * n);
  if (fill == NULL) return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");
  memcpy(fill, first, sizeof(uint32_t) * n);
  for (size_t i = 0; i < n; i++) {
    const onyx__node *node = &g->nodes[i];
    for (size_t k = 0; k < node->n_inputs; k++) {
      if (node->inputs[k][0] == '\0') continue;
      int32_t p = b->s->values[onyx__names_find(&b->names, node->inputs[k])].producer;
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
        return onyx__fail(b->err, ONYX_CYCLE, "%s is part of a cycle",
                          onyx__node_label(&g->nodes[i], i, 0, 0, label, sizeof label));
  }
  onyx__arena_temp_reset(arena, mark);
  *order_out = order;
  return ONYX_OK;
}
