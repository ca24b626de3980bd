/* SPDX-License-Identifier: MIT */
/* The memory plan of a session: where every intermediate value lives. */
#include "graph/build.h"

#include "core/error.h"

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
  if (ONYX__FUSES) give(&p->tiles, p->tile_of[v]);
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
    if (!ONYX__FUSES || p->whole[y]) {
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
 * write, so those are given back after. The tables of the plan are the
 * builder's (temporary memory); the session keeps what it wrote into the steps.
 */
onyx_status onyx__plan_memory(onyx__builder *b, const bool *whole) {
  onyx_session *s = b->s;
  size_t n = s->n_steps, nv = s->n_values;
  onyx__arena *arena = &s->arena;
  uint32_t *last_use = onyx__arena_temp(arena, sizeof(uint32_t) * nv);
  bool *is_output = onyx__arena_temp(arena, sizeof(bool) * nv);
  places p = {last_use,
              whole,
              is_output,
              onyx__arena_temp(arena, sizeof(int32_t) * nv),
              onyx__arena_temp(arena, sizeof(int32_t) * nv),
              onyx__arena_temp(arena, sizeof(uint32_t) * nv),
              /* A tile or buffer holds one value at a time, so a list
               * never holds more numbers than there are values (a step may
               * write many). */
              {onyx__arena_temp(arena, sizeof(uint32_t) * nv), 0, 0},
              {onyx__arena_temp(arena, sizeof(uint32_t) * nv), 0, 0}};
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
      if (ONYX__FUSES && st->n_in > 0 && st->in[0] >= 0) st->sx = p.tile_of[st->in[0]];
      if (st->in_place == ONYX__IN_PLACE_ANY)
        for (uint32_t i = 0; i < st->n_in; i++) release(&p, k, st->in[i]);
      place_outputs(&p, st, k);
      for (uint32_t i = 0; i < st->n_in; i++) release(&p, k, st->in[i]);
      if (ONYX__FUSES && st->out[0] >= 0) st->sy = p.tile_of[st->out[0]];
      for (uint32_t o = 0; o < st->n_out; o++) release(&p, k, st->out[o]);
    }
    if (p.tiles.made > s->n_scratch) s->n_scratch = p.tiles.made;
  }
  s->n_buffers = p.bufs.made;
  return ONYX_OK;
}
