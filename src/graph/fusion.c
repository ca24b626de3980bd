/* SPDX-License-Identifier: MIT */
/* Fusion: runs of fusable same-shape element-wise steps become groups. */
#include "graph/build.h"

#include "core/error.h"

/* Starts group g with step st: the value its tiles run over (x) and that
 * value's element size. */
static void group_start(const onyx_session *s, onyx__group *g, const onyx__step *st) {
  g->x = st->prep.kernel != NULL ? (uint32_t)st->in[0] : onyx__step_y(st);
  g->elem = (uint32_t)onyx_dtype_size(s->values[g->x].desc.dtype);
}

#ifdef ONYX_OMIT_FUSION /* the build configuration's hook */
/* Without fusion, every step is a group of its own, in model order, and
 * every value is written whole: what the planner below makes when it
 * turns fusion off, without its tables. */
onyx_status onyx__plan_groups(onyx__builder *b) {
  onyx_session *s = b->s;
  size_t n = s->n_steps;
  bool *whole = onyx__arena_temp(&s->arena, sizeof(bool) * s->n_values);
  onyx__step *kept = onyx__arena_alloc(&s->arena, sizeof(onyx__step) * n);
  s->groups = onyx__arena_alloc(&s->arena, sizeof(onyx__group) * n);
  if (!whole || !kept || !s->groups) return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");
  for (size_t v = 0; v < s->n_values; v++) whole[v] = true;
  for (size_t i = 0; i < n; i++) {
    kept[i] = s->steps[i];
    s->groups[i] = (onyx__group){(uint32_t)i, 1, 0, 0};
    group_start(s, &s->groups[i], &kept[i]);
  }
  s->n_groups = n;
  s->steps = kept;
  return onyx__plan_memory(b, whole);
}
#else
static uint32_t group_root(uint32_t *parent, uint32_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
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
onyx_status onyx__plan_groups(onyx__builder *b) {
  onyx_session *s = b->s;
  size_t n = s->n_steps;
  onyx__arena *arena = &s->arena;
  /* The session keeps only the groups and the steps in their order; the
   * rest is the builder's (temporary memory). */
  bool *whole = onyx__arena_temp(arena, sizeof(bool) * s->n_values);
  int32_t *producer = onyx__arena_temp(arena, sizeof(int32_t) * s->n_values);
  uint32_t *parent = onyx__arena_temp(arena, sizeof(uint32_t) * n);
  int32_t *group_of_root = onyx__arena_temp(arena, sizeof(int32_t) * n);
  size_t *sizes = onyx__arena_temp(arena, sizeof(size_t) * n);
  onyx__step *sorted = onyx__arena_alloc(arena, sizeof(onyx__step) * n);
  if (!whole || !producer || !parent || !group_of_root || !sizes || !sorted)
    return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");

  bool fuse = true;
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
  for (size_t i = 0; i < n; i++) {
    uint32_t r = group_root(parent, (uint32_t)i);
    if (group_of_root[r] < 0) group_of_root[r] = (int32_t)s->n_groups++;
    sizes[group_of_root[r]]++;
  }
  s->groups = onyx__arena_alloc(arena, sizeof(onyx__group) * s->n_groups);
  if (s->groups == NULL) return onyx__fail(b->err, ONYX_OUT_OF_MEMORY, "out of memory");
  for (size_t g = 0, first = 0; g < s->n_groups; g++) {
    s->groups[g].first = (uint32_t)first;
    first += sizes[g];
  }
  for (size_t i = 0; i < n; i++) {
    onyx__group *g = &s->groups[group_of_root[group_root(parent, (uint32_t)i)]];
    if (g->n_steps == 0) group_start(s, g, &s->steps[i]);
    sorted[g->first + g->n_steps++] = s->steps[i];
  }
  s->steps = sorted;

  return onyx__plan_memory(b, whole);
}
#endif
