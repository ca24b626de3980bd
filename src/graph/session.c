/* SPDX-License-Identifier: MIT */
/*
 * Session creation: every check a model needs before it can run, and every
 * kernel choice, in stages that each have a file (graph/build.h). After
 * onyx_session_create succeeds, a run can fail only on what the caller
 * passes to it. Also onyx_session_free; info.c describes a session.
 */
#include <stdatomic.h>
#include <string.h>

#include "core/error.h"
#include "cpu/cpu.h"
#include "graph/build.h"
#include "os/os.h"

void onyx_session_options_init(onyx_session_options *opts) {
  if (opts == NULL) return;
  memset(opts, 0, sizeof *opts);
  opts->isa_cap = ONYX_ISA_BEST;
}

/* Whether isa is ONYX_ISA_BEST (or its 0.1.0 value) or a level of
 * ONYX_ISA_MAP (of any architecture: another's means scalar, as onyx.h
 * says). */
static bool isa_level(onyx_isa isa) {
  if ((int)isa == ONYX__ISA_BEST_0_1) return true;
  switch (isa) {
    case ONYX_ISA_BEST:
#define ONYX_X_(name, value, lname, arch, desc) case ONYX_ISA_##name:
      ONYX_ISA_MAP(ONYX_X_)
#undef ONYX_X_
      return true;
    default:
      return false;
  }
}

/* "best (0), scalar (1), ...", for the message. */
#define ONYX_STR_(x)                            #x
#define ONYX_X_(name, value, lname, arch, desc) ", " lname " (" ONYX_STR_(value) ")"
static const char isa_levels[] = "best (0)" ONYX_ISA_MAP(ONYX_X_);
#undef ONYX_X_
#undef ONYX_STR_

onyx_status onyx_session_create(const onyx_model *model, const onyx_session_options *opts,
                                onyx_session **out, onyx_error *err) {
  if (out != NULL) *out = NULL;
  if (model == NULL || out == NULL)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "onyx_session_create: model and out must not be NULL");
  /* A value past the map (a stale build's, or garbage in options not
   * filled by onyx_session_options_init) would silently mean scalar. */
  if (opts != NULL && !isa_level(opts->isa_cap))
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "onyx_session_create: isa_cap %d is no ISA level (onyx_isa); the levels are "
                      "%s",
                      (int)opts->isa_cap, isa_levels);
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

  onyx__builder b = {s, model, &model->graph, {0, NULL, 0}, 0, err, NULL, {0, NULL, 0}};
  const onyx__graph *g = &model->graph;
  b.max_values = g->n_inputs + g->n_initializers;
  for (size_t i = 0; i < g->n_nodes; i++) b.max_values += g->nodes[i].n_outputs;
  onyx_status st = ONYX_OK;
  s->values = onyx__arena_alloc(&s->arena, sizeof(onyx__value) * b.max_values);
  if (s->values == NULL) st = onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  if (st == ONYX_OK) st = onyx__names_init(&b.names, &s->arena, b.max_values, err);
  uint32_t *order = NULL;
  if (st == ONYX_OK) st = onyx__add_values(&b);
  if (st == ONYX_OK) st = onyx__sort_nodes(&b, &order);
  if (st == ONYX_OK) st = onyx__plan_nodes(&b, order);
  onyx__arena_or_heap_free(&s->arena, b.views);
  if (st == ONYX_OK) st = onyx__plan_outputs(&b);
  if (st == ONYX_OK) st = onyx__plan_groups(&b);
  onyx__arena_temp_free(&s->arena); /* the names, order and plan tables */
  /* A build without threads has one worker, the caller: no CPU count to
   * ask the system for (sysconf is 117 bytes of onyx-lib.wasm). */
#if defined(ONYX_NO_THREADS)
  s->opts.threads = s->workers = 1;
#else
  if (st == ONYX_OK) {
    unsigned threads = s->opts.threads ? s->opts.threads : onyx__cpu_count();
    if (s->arena.fixed != NULL) threads = 1; /* a pool would take heap memory */
    if (threads > onyx__pool_max_workers()) threads = onyx__pool_max_workers();
    s->opts.threads = threads;
    if (threads > 1) st = onyx__pool_create(threads, &s->pool, err);
    s->workers = onyx__pool_size(s->pool);
  }
#endif
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
