/* SPDX-License-Identifier: MIT */
/* Per-node profiling of a run (onyx_run_options.profile): run.c's hooks. */
#ifndef ONYX_GRAPH_PROFILE_H
#define ONYX_GRAPH_PROFILE_H

#include <stdint.h>

#include "onyx.h"
#include "os/os.h"

/* The clock the profile reads; 0 without a profile (no clock read).
 * Inline, as begin and end, so that a run without a profile pays a test
 * of p and no call. */
static inline uint64_t onyx__profile_now(const onyx_profile *p) {
  return p != NULL ? onyx__os_clock_ns() : 0;
}
/* Starts a run's record: no nodes yet. */
static inline void onyx__profile_begin(onyx_profile *p) {
  if (p == NULL) return;
  p->count = 0;
  p->duration_ns = 0;
}
/* Records that the pass-th pass, which began at pass_start (ns since the
 * run began) and ended now, ran model node `node` of s, one of
 * pass_nodes, with its output of type dtype and shape rank/dims. */
void onyx__profile_node(onyx_profile *p, const onyx_session *s, uint32_t node, int registered,
                        onyx_dtype dtype, uint32_t rank, const int64_t *dims, uint32_t pass,
                        uint32_t pass_nodes, uint64_t pass_start, uint64_t pass_end);
/* Ends the run's record at time t1. */
static inline void onyx__profile_end(onyx_profile *p, uint64_t t0, uint64_t t1) {
  if (p != NULL) p->duration_ns = t1 - t0;
}

#endif
