/* SPDX-License-Identifier: MIT */
/*
 * Running a session. A run only reads the session, so several threads may
 * run one session at once; everything a run writes lives in a run context.
 * One context is cached in the session between runs, so that a run whose
 * caller provides the output buffers allocates nothing; a run that finds
 * the cache empty (another thread holds it) builds its own.
 */
#include <stdatomic.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "graph/profile.h"
#include "graph/session.h"

typedef onyx__slot slot; /* one per value (ops/op.h) */

struct onyx__run_ctx {
  size_t n_values, n_outputs, n_steps, n_buffers;
  slot *slots;
  bool *allocated;        /* per output: onyx allocated it in this run; all false between runs */
  void **buffers;         /* the whole buffers of onyx__step.buf */
  size_t *capacity;       /* their sizes in bytes */
  size_t *need;           /* their sizes this run needs (bind_whole_buffers) */
  onyx__kparams *params;  /* per step, for this run */
  unsigned char *scratch; /* workers * n_scratch tiles */
  size_t scratch_stride;  /* bytes per worker */
  /* The session's arena when it has the caller's memory (else NULL), and
   * its mark after this context: each run gives back what it took. */
  onyx__arena *fixed;
  size_t mark;
  onyx_tensor *views; /* per value, what registered operators see; NULL without them */
};

void onyx__run_ctx_free(onyx__run_ctx *c) {
  if (c == NULL || c->fixed != NULL) return; /* an arena's memory goes with the arena */
  for (size_t b = 0; b < c->n_buffers; b++) onyx__free(c->buffers[b]);
  onyx__free(c->slots);
  onyx__free(c->allocated);
  onyx__free(c->buffers);
  onyx__free(c->capacity);
  onyx__free(c->need);
  onyx__free(c->params);
  onyx__free(c->scratch);
  onyx__free(c->views);
  onyx__free(c);
}

/* A new context, from the session's arena when it has the caller's memory
 * (which only the run holding the context touches), else from the heap. */
static onyx__run_ctx *run_ctx_new(onyx_session *s) {
  onyx__arena *a = &s->arena;
  onyx__run_ctx *c = onyx__arena_or_heap_calloc(a, 1, sizeof *c);
  if (c == NULL) return NULL;
  c->n_values = s->n_values;
  c->n_outputs = s->n_outputs;
  c->n_steps = s->n_steps;
  c->slots = onyx__arena_or_heap_calloc(a, s->n_values + 1, sizeof *c->slots);
  c->allocated = onyx__arena_or_heap_calloc(a, s->n_outputs + 1, sizeof *c->allocated);
  c->n_buffers = s->n_buffers;
  c->buffers = onyx__arena_or_heap_calloc(a, s->n_buffers + 1, sizeof *c->buffers);
  c->capacity = onyx__arena_or_heap_calloc(a, s->n_buffers + 1, sizeof *c->capacity);
  c->need = onyx__arena_or_heap_calloc(a, s->n_buffers + 1, sizeof *c->need);
  c->params = onyx__arena_or_heap_calloc(a, s->n_steps + 1, sizeof *c->params);
  c->scratch_stride = ONYX__FUSES ? (size_t)s->n_scratch * ONYX__TILE_BYTES : 0;
  if (c->scratch_stride > 0)
    c->scratch = onyx__arena_or_heap_calloc(a, c->scratch_stride, s->workers);
  if (s->views) c->views = onyx__arena_or_heap_calloc(a, s->n_values + 1, sizeof *c->views);
  c->fixed = a->fixed != NULL ? a : NULL;
  c->mark = onyx__arena_mark(a);
  if (!c->slots || !c->allocated || !c->buffers || !c->capacity || !c->need || !c->params ||
      (c->scratch_stride > 0 && !c->scratch) || (s->views && !c->views)) {
    c->n_buffers = 0; /* buffers are all NULL: nothing else to free */
    onyx__run_ctx_free(c);
    return NULL;
  }
  for (size_t v = 0; v < s->n_values; v++) {
    const onyx__value_desc *d = &s->values[v].desc;
    slot *sl = &c->slots[v];
    sl->written = -1;
    if (s->values[v].kind == ONYX__VALUE_CONSTANT && d->constant != NULL) {
      sl->data = (void *)d->constant->data;
      sl->dims = d->constant->dims;
      sl->rank = d->constant->rank;
      sl->count = d->constant->count;
      sl->nbytes = d->constant->nbytes;
    }
  }
  return c;
}

/* Checks input i against its declaration and counts its elements. */
static onyx_status check_input(const onyx_session *s, size_t i, const onyx_tensor *t, size_t *count,
                               onyx_error *err) {
  const onyx__value_info *info = s->input_decl[i];
  if (t->dtype != info->dtype)
    return onyx__fail(err, ONYX_INPUT_TYPE, "input %zu ('%s'): type %s given, %s expected", i,
                      info->name, onyx_dtype_name(t->dtype), onyx_dtype_name(info->dtype));
  if (t->rank > ONYX_MAX_RANK)
    return onyx__fail(err, ONYX_INPUT_SHAPE, "input %zu ('%s'): rank %u is more than %d", i,
                      info->name, t->rank, ONYX_MAX_RANK);
  if (info->has_shape && t->rank != info->rank)
    return onyx__fail(err, ONYX_INPUT_SHAPE, "input %zu ('%s'): rank %u given, %u expected", i,
                      info->name, t->rank, info->rank);
  for (uint32_t d = 0; d < t->rank; d++) {
    if (t->dims[d] < 0)
      return onyx__fail(err, ONYX_INPUT_SHAPE, "input %zu ('%s'): dimension %u is negative (%lld)",
                        i, info->name, d, (long long)t->dims[d]);
    if (info->has_shape && info->dims[d] >= 0 && t->dims[d] != info->dims[d])
      return onyx__fail(err, ONYX_INPUT_SHAPE,
                        "input %zu ('%s'): dimension %u is %lld; the model fixes it at %lld", i,
                        info->name, d, (long long)t->dims[d], (long long)info->dims[d]);
  }
  /* The element limits every tensor has; shape_err is written only when
   * the count fails. */
  onyx_error shape_err;
  if (onyx__shape_count(t->dims, t->rank, count, &shape_err) != ONYX_OK)
    return onyx__fail(err, ONYX_INPUT_SHAPE, "input %zu ('%s'): %s", i, info->name,
                      shape_err.message);
  return ONYX_OK;
}

static onyx_status bind_input(const onyx_session *s, size_t i, const onyx_tensor *t, slot *sl,
                              onyx_error *err) {
  size_t count;
  ONYX__TRY(check_input(s, i, t, &count, err));
  size_t nbytes = count * onyx__dtype_size(t->dtype);
  if (count > 0 && t->data == NULL)
    return onyx__fail(err, ONYX_INPUT_MISSING, "input %zu ('%s'): data is NULL", i,
                      s->input_decl[i]->name);
  if (t->size < nbytes)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "input %zu ('%s'): size is %zu bytes; its shape needs %zu", i,
                      s->input_decl[i]->name, t->size, nbytes);
  sl->data = t->data;
  sl->dims = t->dims;
  sl->rank = t->rank;
  sl->count = count;
  sl->nbytes = nbytes;
  return ONYX_OK;
}

/* Everything one group's tasks need. */
typedef struct group_job {
  const onyx_session *s;
  const onyx__group *g;
  onyx__run_ctx *c;
  size_t count, chunk;
} group_job;

static unsigned char *at(const slot *sl, size_t elem, size_t i) {
  return (unsigned char *)sl->data + i * elem;
}

/* Runs the group's steps on elements [begin, end). */
static void run_range(const group_job *j, size_t begin, size_t end, unsigned worker) {
  const onyx_session *s = j->s;
  const onyx__group *g = j->g;
  onyx__run_ctx *c = j->c;
  const onyx__step *steps = &s->steps[g->first];
  size_t elem = g->elem;
  if (!ONYX__FUSES || (g->n_steps == 1 && steps[0].sy < 0)) {
    /* A single step needs no tiles: one kernel call over the whole range
     * lets the kernel choose streaming stores for large outputs. */
    steps[0].prep.kernel(end - begin, at(&c->slots[steps[0].in[0]], elem, begin),
                         at(&c->slots[steps[0].out[0]], elem, begin), &c->params[g->first]);
    return;
  }
  /* A group whose values are all written whole has no scratch (NULL), and
   * arithmetic on a null pointer is undefined even with offset 0. */
  unsigned char *scratch =
      c->scratch != NULL ? c->scratch + (size_t)worker * c->scratch_stride : NULL;
  for (size_t t = begin; t < end; t += ONYX__TILE_ELEMS) {
    size_t n = end - t < ONYX__TILE_ELEMS ? end - t : ONYX__TILE_ELEMS;
    for (uint32_t k = 0; k < g->n_steps; k++) {
      const onyx__step *st = &steps[k];
      const void *x = st->sx >= 0 ? scratch + (size_t)st->sx * ONYX__TILE_BYTES
                                  : at(&c->slots[st->in[0]], elem, t);
      void *y = st->sy >= 0 ? scratch + (size_t)st->sy * ONYX__TILE_BYTES
                            : at(&c->slots[st->out[0]], elem, t);
      st->prep.kernel(n, x, y, &c->params[g->first + k]);
    }
  }
}

static void group_task(void *ctx, size_t task, unsigned worker) {
  const group_job *j = ctx;
  size_t begin = task * j->chunk;
  size_t end = begin + j->chunk < j->count ? begin + j->chunk : j->count;
  run_range(j, begin, end, worker);
}

/* Below this many bytes moved (read + written), a second thread costs more
 * than it saves. Measured on 2 cores (AMD EPYC, AVX-512) at 1e5 elements,
 * GB/s on 1 / 2 threads: 400 KB moved (float16, int16) 157-210 / 107-121,
 * 800 KB (float32, uint32) 161-184 / 181-210. */
#define PARALLEL_MIN_BYTES (512u * 1024u)

static void run_group(const onyx_session *s, const onyx__group *g, onyx__run_ctx *c) {
  group_job j = {s, g, c, c->slots[g->x].count, 0};
  if (j.count == 0) return;
  size_t elem = g->elem;
#if defined(ONYX_NO_THREADS)
  unsigned workers = 1; /* the caller (session.c) */
#else
  unsigned workers = s->workers;
#endif
  if (workers == 1 || j.count * elem * 2 < PARALLEL_MIN_BYTES) {
    run_range(&j, 0, j.count, 0);
    return;
  }
  /* A few chunks per worker balance uneven progress; chunks are whole
   * tiles, so that tiling does not depend on the thread count. */
  size_t tiles = (j.count + ONYX__TILE_ELEMS - 1) / ONYX__TILE_ELEMS;
  size_t tasks = (size_t)workers * 4;
  if (tasks > tiles) tasks = tiles;
  j.chunk = (tiles + tasks - 1) / tasks * ONYX__TILE_ELEMS;
  onyx__pool_run(s->pool, (j.count + j.chunk - 1) / j.chunk, group_task, &j);
}

/* Makes sure whole buffer b holds at least nbytes. */
static onyx_status reserve(onyx__run_ctx *c, size_t b, size_t nbytes, onyx_error *err) {
  if (c->capacity[b] >= nbytes && c->buffers[b] != NULL) return ONYX_OK;
  if (c->fixed != NULL) {
    /* Arena runs start with no buffer (see onyx__run_ctx_begin). */
    c->buffers[b] = onyx__arena_alloc(c->fixed, nbytes);
    c->capacity[b] = nbytes;
    if (c->buffers[b] != NULL) return ONYX_OK;
    return onyx__fail(err, ONYX_OUT_OF_MEMORY,
                      "the session's arena (%zu bytes) has no room for a value of %zu bytes",
                      c->fixed->fixed_size, nbytes);
  }
  void *p = onyx__malloc(nbytes ? nbytes : 1);
  if (p == NULL)
    return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory for a value of %zu bytes", nbytes);
  onyx__free(c->buffers[b]);
  c->buffers[b] = p;
  c->capacity[b] = nbytes;
  return ONYX_OK;
}

/* Values written whole that are no graph output (run-time inputs of a
 * step that a step computes, and every value when one turns fusion off) share the
 * whole buffers the session planned by liveness. Each buffer is first
 * grown to its largest value of this run, then handed out, so that no
 * value's pointer is left to a buffer reallocated after it. */
static onyx_status bind_whole_buffers(const onyx_session *s, onyx__run_ctx *c, onyx_error *err) {
  if (c->n_buffers == 0) return ONYX_OK; /* every output is a graph output or a tile */
  size_t *need = c->need;
  for (size_t b = 0; b < c->n_buffers; b++) need[b] = 0;
  for (size_t k = 0; k < s->n_steps; k++) {
    const onyx__step *st = &s->steps[k];
    for (uint32_t o = 0; o < st->n_out; o++) {
      int32_t b = st->buf[o];
      if (b >= 0 && need[b] < c->slots[st->out[o]].nbytes) need[b] = c->slots[st->out[o]].nbytes;
    }
  }
  for (size_t b = 0; b < c->n_buffers; b++) ONYX__TRY(reserve(c, b, need[b], err));
  for (size_t k = 0; k < s->n_steps; k++) {
    const onyx__step *st = &s->steps[k];
    for (uint32_t o = 0; o < st->n_out; o++)
      if (st->buf[o] >= 0) c->slots[st->out[o]].data = c->buffers[st->buf[o]];
  }
  return ONYX_OK;
}

void onyx__run_ctx_begin(onyx__run_ctx *c) {
  if (c->fixed == NULL) return;
  onyx__arena_reset(c->fixed, c->mark);
  for (size_t b = 0; b < c->n_buffers; b++) {
    c->buffers[b] = NULL;
    c->capacity[b] = 0;
  }
}

onyx_status onyx__run_ctx_attach(onyx_session *s, onyx_error *err) {
  onyx__run_ctx *c = run_ctx_new(s);
  if (c == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory for the run context");
  atomic_store(&s->cached_ctx, c);
  return ONYX_OK;
}

size_t onyx__session_working_bytes(onyx_session *s) {
  onyx__run_ctx *c = atomic_load(&s->cached_ctx);
  if (c == NULL) return 0;
  size_t bytes = c->scratch_stride * s->workers;
  for (size_t b = 0; b < c->n_buffers; b++) bytes += c->capacity[b];
  return bytes;
}

static onyx_status prepare_run(const onyx_session *s, onyx__run_ctx *c, const onyx_tensor *inputs,
                               onyx_tensor *outputs, onyx_error *err) {
  slot *slots = c->slots;
  /* 1. Shapes of every value, before anything is written. Constants were
   * filled in when the context was made. */
  for (size_t o = 0; o < s->n_outputs; o++) slots[s->output_values[o]].written = -1;
  for (size_t i = 0; i < s->n_inputs; i++)
    ONYX__TRY(bind_input(s, i, &inputs[i], &slots[s->input_values[i]], err));
  for (size_t l = 0; l < s->n_dim_links; l++) {
    size_t k = s->dim_link[2 * l], j = s->dim_link[2 * l + 1];
    size_t i = k / ONYX_MAX_RANK, d = k % ONYX_MAX_RANK;
    size_t i2 = j / ONYX_MAX_RANK, d2 = j % ONYX_MAX_RANK;
    if (inputs[i].dims[d] != inputs[i2].dims[d2])
      return onyx__fail(err, ONYX_INPUT_SHAPE,
                        "input %zu ('%s'): dimension %zu ('%s') is %lld, but input %zu ('%s') "
                        "gives '%s' the size %lld",
                        i, s->input_decl[i]->name, d, s->input_decl[i]->dim_params[d],
                        (long long)inputs[i].dims[d], i2, s->input_decl[i2]->name,
                        s->input_decl[i]->dim_params[d], (long long)inputs[i2].dims[d2]);
  }
  /* In step order, each step's outputs get this run's shapes. */
  for (size_t k = 0; k < s->n_steps; k++) {
    const onyx__step *st = &s->steps[k];
    if (st->fns->shapes == NULL) { /* output 0 takes input 0's shape */
      const slot *x = &slots[st->in[0]];
      slot *y = &slots[st->out[0]];
      y->dims = x->dims;
      y->rank = x->rank;
      y->count = x->count;
      y->nbytes = x->nbytes;
      continue;
    }
    const onyx__step_run r = {s, st, slots, c->views};
    ONYX__TRY(st->fns->shapes(&r, err));
  }

  /* 2. Output buffers: the caller's, checked for size first so that a
   * failing run writes nothing, or new ones. A step whose output is a
   * graph output writes straight into that buffer. */
  for (size_t o = 0; o < s->n_outputs; o++) {
    const slot *sl = &slots[s->output_values[o]];
    if (outputs[o].data != NULL && outputs[o].size < sl->nbytes)
      return onyx__fail(err, ONYX_BUFFER_TOO_SMALL,
                        "output %zu ('%s'): the buffer has %zu bytes; %zu are needed", o,
                        s->model->graph.outputs[o].name, outputs[o].size, sl->nbytes);
  }
  for (size_t o = 0; o < s->n_outputs; o++) {
    slot *sl = &slots[s->output_values[o]];
    if (outputs[o].data == NULL && c->fixed != NULL)
      return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                        "output %zu ('%s'): a session with an arena needs the caller's buffer", o,
                        s->model->graph.outputs[o].name);
    if (outputs[o].data == NULL) {
      outputs[o].data = onyx__malloc(sl->nbytes ? sl->nbytes : 1);
      if (outputs[o].data == NULL)
        return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory for output %zu", o);
      outputs[o].size = sl->nbytes;
      c->allocated[o] = true;
    }
    if (s->values[s->output_values[o]].kind == ONYX__VALUE_COMPUTED && sl->written < 0) {
      sl->written = (int32_t)o;
      sl->data = outputs[o].data;
    }
  }
  return bind_whole_buffers(s, c, err);
}

/* Records group g's steps in the profile (graph/profile.h). */
static void profile_group(const onyx_session *s, const onyx__run_ctx *c, onyx_profile *prof,
                          size_t g, uint64_t start, uint64_t end) {
  const onyx__group *grp = &s->groups[g];
  for (size_t k = grp->first; k < grp->first + grp->n_steps; k++) {
    const onyx__step *st = &s->steps[k];
    uint32_t y = onyx__step_y(st);
    onyx__profile_node(prof, s, st->node, st->fns->registered, s->values[y].desc.dtype,
                       c->slots[y].rank, c->slots[y].dims, (uint32_t)g, grp->n_steps, start, end);
  }
}

/* 3. The groups in order, each after its kernel parameters: a run-time
 * input may be computed by an earlier group. Only a step computed whole
 * (a registered operator's compute) can fail here. */
static onyx_status run_steps(const onyx_session *s, onyx__run_ctx *c, onyx_profile *prof,
                             uint64_t t0, onyx_error *err) {
  for (size_t g = 0; g < s->n_groups; g++) {
    const onyx__group *grp = &s->groups[g];
    uint64_t pass_start = onyx__profile_now(prof);
    const onyx__step *first = &s->steps[grp->first];
    if (first->prep.kernel == NULL) { /* a group of one step, computed whole */
      const onyx__step_run r = {s, first, c->slots, c->views};
      ONYX__TRY(first->fns->compute(&r, err));
      if (prof != NULL) profile_group(s, c, prof, g, pass_start - t0, onyx__profile_now(prof) - t0);
      continue;
    }
    for (size_t k = grp->first; k < grp->first + grp->n_steps; k++) {
      const onyx__step *step = &s->steps[k];
      const onyx__step_run r = {s, step, c->slots, c->views};
      if (step->fns->params != NULL)
        step->fns->params(&r, &c->params[k]);
      else
        c->params[k] = step->prep.params;
      /* A value written whole that is too large for the caches is
       * streamed, though each kernel call sees only a tile or a thread's
       * share of it. With several threads the bar is twice as high: they
       * pull more from the shared L3 together, so a working set that still
       * half fits there keeps paying. Measured with the float32
       * rounding-up kernel on 2 threads, streaming vs ordinary stores
       * (GB/s): 16 MB of output 43-48 vs 53-69, 32 MB 45-47 vs 24-34. */
      c->params[k].stream = step->sy < 0 && c->slots[step->out[0]].nbytes >=
                                                (s->workers > 1 ? 2 : 1) * ONYX__STREAM_MIN_BYTES;
    }
    run_group(s, grp, c);
    if (prof != NULL) profile_group(s, c, prof, g, pass_start - t0, onyx__profile_now(prof) - t0);
  }
  return ONYX_OK;
}

/* 4. Outputs no step wrote directly (inputs, constants, repeats), and every
 * output's type and shape. */
static void finish_outputs(const onyx_session *s, onyx__run_ctx *c, onyx_tensor *outputs) {
  for (size_t o = 0; o < s->n_outputs; o++) {
    const slot *sl = &c->slots[s->output_values[o]];
    if (sl->written != (int32_t)o && sl->nbytes > 0) memcpy(outputs[o].data, sl->data, sl->nbytes);
    c->allocated[o] = false; /* every run starts with none (see onyx_session_run) */
    outputs[o].dtype = s->values[s->output_values[o]].desc.dtype;
    outputs[o].rank = sl->rank;
    for (uint32_t d = 0; d < ONYX_MAX_RANK; d++)
      outputs[o].dims[d] = d < sl->rank ? sl->dims[d] : 0;
  }
}

onyx_status onyx_session_run_with(onyx_session *s, const onyx_tensor *inputs, size_t n_inputs,
                                  onyx_tensor *outputs, size_t n_outputs,
                                  const onyx_run_options *opts, onyx_error *err) {
  onyx_profile *prof = opts != NULL ? opts->profile : NULL;
  uint64_t t0 = onyx__profile_now(prof);
  onyx__profile_begin(prof);
  if (s == NULL || (n_inputs > 0 && inputs == NULL) || (n_outputs > 0 && outputs == NULL))
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "onyx_session_run: NULL session, inputs or outputs");
  if (n_inputs < s->n_inputs)
    return onyx__fail(err, ONYX_INPUT_MISSING, "%zu inputs given; the model takes %zu (next: '%s')",
                      n_inputs, s->n_inputs, s->input_decl[n_inputs]->name);
  if (n_inputs > s->n_inputs)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "%zu inputs given; the model takes %zu", n_inputs,
                      s->n_inputs);
  if (n_outputs != s->n_outputs)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "%zu outputs given; the model has %zu", n_outputs,
                      s->n_outputs);

  /* Large constants are read from their files on the first run. */
  ONYX__TRY(onyx__model_load_payloads(s->model, err));
  onyx__run_ctx *c = atomic_exchange_explicit(&s->cached_ctx, NULL, memory_order_acquire);
  if (c == NULL && s->arena.fixed != NULL)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "a session with an arena runs one call at a time; another is running");
  if (c == NULL && (c = run_ctx_new(s)) == NULL)
    return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory for a run");
  onyx__run_ctx_begin(c);

  onyx_status st = prepare_run(s, c, inputs, outputs, err);
  if (st == ONYX_OK) st = run_steps(s, c, prof, t0, err);
  if (st == ONYX_OK) {
    finish_outputs(s, c, outputs);
  } else {
    /* Frees what this run allocated; the flags go back to false, as a
     * context's flags are false whenever no run holds it. */
    for (size_t o = 0; o < n_outputs; o++) {
      if (c->allocated[o]) {
        onyx__free(outputs[o].data);
        outputs[o].data = NULL;
        outputs[o].size = 0;
      }
      c->allocated[o] = false;
    }
  }

  onyx__run_ctx *expected = NULL;
  if (!atomic_compare_exchange_strong_explicit(&s->cached_ctx, &expected, c, memory_order_release,
                                               memory_order_relaxed))
    onyx__run_ctx_free(c);
  onyx__profile_end(prof, t0, onyx__profile_now(prof));
  return st;
}

onyx_status onyx_session_run(onyx_session *session, const onyx_tensor *inputs, size_t n_inputs,
                             onyx_tensor *outputs, size_t n_outputs, onyx_error *err) {
  return onyx_session_run_with(session, inputs, n_inputs, outputs, n_outputs, NULL, err);
}
