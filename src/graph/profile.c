/* SPDX-License-Identifier: MIT */
/*
 * Per-node profiling of a run: the caller's onyx_profile is filled as the
 * run's passes end. A fused group is one pass, so its nodes share its
 * times (onyx.h). Nothing here allocates: an arena session profiles too.
 */
#include "graph/profile.h"

#include <string.h>

#include "graph/session.h"
#include "os/os.h"

void onyx__profile_node(onyx_profile *p, const onyx_session *s, uint32_t node, int registered,
                        onyx_dtype dtype, uint32_t rank, const int64_t *dims, uint32_t pass,
                        uint32_t pass_nodes, uint64_t pass_start, uint64_t pass_end) {
  if (p == NULL) return;
  size_t k = p->count++;
  if (k >= p->capacity || p->nodes == NULL) return;
  const onyx__node *nd = &s->model->graph.nodes[node];
  onyx_node_time *t = &p->nodes[k];
  memset(t, 0, sizeof *t);
  t->node = node;
  t->name = nd->name ? nd->name : "";
  t->op_type = nd->op_type;
  t->domain = nd->domain ? nd->domain : "";
  t->registered = registered;
  t->dtype = dtype;
  t->rank = rank <= ONYX_MAX_RANK ? rank : ONYX_MAX_RANK;
  if (dims != NULL) memcpy(t->dims, dims, t->rank * sizeof *dims);
  t->pass = pass;
  t->pass_nodes = pass_nodes;
  t->start_ns = pass_start;
  t->duration_ns = pass_end - pass_start;
}

void onyx_run_options_init(onyx_run_options *opts) {
  if (opts != NULL) memset(opts, 0, sizeof *opts);
}
