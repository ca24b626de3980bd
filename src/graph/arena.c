/* SPDX-License-Identifier: MIT */
/*
 * Sessions in the caller's memory (onyx_session_options.arena), for
 * targets without a heap to spare: the session structure is carved from
 * the front of the arena and the rest backs the session's own arena, so
 * that creating and running the session never call malloc. The size a
 * model needs is measured rather than computed, so that it can never
 * drift from what the code allocates.
 */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "graph/session.h"

onyx_status onyx__session_new(const onyx_session_options *opts, onyx_session **out,
                              onyx_error *err) {
  if (opts == NULL || opts->arena == NULL) {
    *out = onyx__calloc(1, sizeof **out);
    return *out ? ONYX_OK : onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  }
  unsigned char *mem = opts->arena;
  size_t size = opts->arena_size;
  onyx_session *s = onyx__carve(&mem, &size, sizeof *s);
  if (s == NULL)
    return onyx__fail(err, ONYX_OUT_OF_MEMORY,
                      "the session's arena (%zu bytes) is too small for the session itself (%zu)",
                      opts->arena_size, sizeof *s);
  memset(s, 0, sizeof *s);
  onyx__arena_fixed(&s->arena, mem, size);
  *out = s;
  return ONYX_OK;
}

void onyx__session_arena_note(const onyx_session *s, onyx_status st, onyx_error *err) {
  if (st == ONYX_OUT_OF_MEMORY && s->arena.fixed != NULL)
    onyx__error_prefix(err, "the session's arena (%zu bytes) is too small", s->opts.arena_size);
}

/* Zeroed inputs of the shapes the model declares, on the heap: *data gets
 * the one buffer they share (the largest input's size). */
static onyx_status zero_inputs(const onyx_session *s, onyx_tensor *in, void **data,
                               onyx_error *err) {
  size_t most = 0;
  for (size_t i = 0; i < s->n_inputs; i++) {
    const onyx__value_info *info = s->input_decl[i];
    bool open = !info->has_shape;
    for (uint32_t d = 0; d < info->rank; d++) open = open || info->dims[d] < 0;
    if (open)
      return onyx__fail(err, ONYX_SHAPE,
                        "input %zu ('%s'): the model leaves its shape open, so the arena a run "
                        "needs depends on it",
                        i, info->name);
    in[i] = (onyx_tensor){.dtype = info->dtype, .rank = info->rank};
    memcpy(in[i].dims, info->dims, sizeof in[i].dims);
    size_t count;
    ONYX__TRY(onyx__shape_count(info->dims, info->rank, &count, err));
    in[i].size = count * onyx_dtype_size(info->dtype);
    if (most < in[i].size) most = in[i].size;
  }
  *data = onyx__calloc(1, most);
  if (*data == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < s->n_inputs; i++) in[i].data = *data;
  return ONYX_OK;
}

/* Creates and runs a session in an arena of cap bytes; *used receives the
 * most of it the two took. ONYX_OUT_OF_MEMORY with *grow set when cap is
 * too small; without, the heap had no room for the arena itself. */
static onyx_status try_arena(const onyx_model *m, onyx_session_options o, size_t cap,
                             const onyx_tensor *in, size_t n_in, onyx_tensor *out, size_t n_out,
                             size_t *used, bool *grow, onyx_error *err) {
  void *mem = onyx__malloc(cap);
  *grow = false;
  if (mem == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  o.arena = mem;
  o.arena_size = cap;
  onyx_session *s;
  onyx_status st = onyx_session_create(m, &o, &s, err);
  if (st == ONYX_OK) {
    st = onyx_session_run(s, in, n_in, out, n_out, err);
    *used = (size_t)(s->arena.fixed - (unsigned char *)mem) + s->arena.fixed_peak;
    onyx_session_free(s);
  }
  /* A session in an arena takes nothing from the heap, so running out of
   * memory there means the arena. */
  *grow = st == ONYX_OUT_OF_MEMORY;
  onyx__free(mem);
  return st;
}

/* Measures with the heap session h's inputs and outputs: tries arenas
 * twice as large each time until one is large enough. */
static onyx_status measure(const onyx_model *m, const onyx_session_options *o, onyx_session *h,
                           size_t *size, onyx_error *err) {
  size_t n_in = h->n_inputs, n_out = h->n_outputs;
  onyx_tensor *t = onyx__calloc(n_in + n_out + 1, sizeof *t);
  void *zeros = NULL;
  if (t == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  onyx_tensor *in = t, *out = t + n_in;
  onyx_status st = zero_inputs(h, in, &zeros, err);
  if (st == ONYX_OK) st = onyx_session_run(h, in, n_in, out, n_out, err);
  bool grow = true;
  for (size_t cap = 1024; st == ONYX_OK && grow; cap *= 2) {
    st = try_arena(m, *o, cap, in, n_in, out, n_out, size, &grow, err);
    if (grow && cap <= SIZE_MAX / 4) st = ONYX_OK;
  }
  for (size_t k = 0; k < n_out; k++) onyx_free(out[k].data);
  onyx__free(zeros);
  onyx__free(t);
  return st;
}

onyx_status onyx_session_arena_size(const onyx_model *model, const onyx_session_options *opts,
                                    size_t *size, onyx_error *err) {
  if (model == NULL || size == NULL)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "onyx_session_arena_size: model and size must not be NULL");
  onyx_session_options o;
  if (opts != NULL)
    o = *opts;
  else
    onyx_session_options_init(&o);
  o.arena = NULL;
  o.arena_size = 0;
  o.threads = 1;
  onyx_session *h;
  ONYX__TRY(onyx_session_create(model, &o, &h, err));
  onyx_status st = measure(model, &o, h, size, err);
  onyx_session_free(h);
  return st;
}
