/* SPDX-License-Identifier: MIT */
/* Sessions: a checked, sorted, kernel-bound plan of a model's graph. */
#ifndef ONYX_GRAPH_SESSION_H
#define ONYX_GRAPH_SESSION_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "ops/op.h"
#include "thread/pool.h"

typedef enum onyx__value_kind {
  ONYX__VALUE_INPUT,    /* bound by the caller at run time */
  ONYX__VALUE_CONSTANT, /* an initializer, or a node folded when the session was made */
  ONYX__VALUE_COMPUTED  /* the output of a step */
} onyx__value_kind;

/* A named value of the graph. */
typedef struct onyx__value {
  const char *name;
  onyx__value_kind kind;
  onyx__value_desc desc;
  uint32_t input_index; /* ONYX__VALUE_INPUT: its position among run inputs */
  int32_t producer;     /* the model node index that defines it, or -1 */
} onyx__value;

/* onyx__prepared.runtime_inputs has a bit per node input. */
static_assert(ONYX__MAX_OP_INPUTS <= sizeof(unsigned) * 8, "a bit per op input");

/* Which outputs may take an input's place (tile or buffer) when that
 * input is read for the last time by the step. */
typedef enum onyx__in_place {
  ONYX__IN_PLACE_NONE, /* every output gets its own */
  /* output k may take input k's when the step reads it once (the op reads
   * each element before it writes the same element) */
  ONYX__IN_PLACE_SAME,
  /* the step reads every input before it writes (an element-wise kernel,
   * whose other inputs are bound into its parameters first): any input
   * read for the last time is free before the outputs are placed */
  ONYX__IN_PLACE_ANY
} onyx__in_place;

/*
 * One node to run, whoever serves it: n inputs and m outputs by value,
 * how it runs (fns), and where its outputs live. A step with a per-tile
 * kernel (prep.kernel, onyx's element-wise ops) is fusable: it reads
 * in[0] and writes out[0], of the same shape, and may share a group with
 * the step that produced in[0]; every other step is a group of its own.
 */
typedef struct onyx__step {
  uint32_t node; /* model node index, for messages */
  uint32_t n_in, n_out;
  int32_t *in;  /* value of node input i, or -1 when omitted */
  int32_t *out; /* value of node output k, or -1 when omitted */
  int32_t *buf; /* whole buffer of the run context holding output k when it
                 * is written whole but is no graph output, or -1 */
  const onyx__step_fns *fns;
  void *impl; /* what fns need besides the step (a registered op's node), or NULL */
  onyx__in_place in_place;
  onyx__prepared prep; /* the op's plan: kernel, parameters, run-time inputs */
  int32_t sx, sy;      /* scratch tile holding in[0] / out[0] inside a fused group, or -1 */
} onyx__step;

/* The value of step st's first named output (there is one). */
static inline uint32_t onyx__step_y(const onyx__step *st) {
  uint32_t k = 0;
  while (k + 1 < st->n_out && st->out[k] < 0) k++;
  return (uint32_t)st->out[k];
}

/*
 * A fused group: steps linked by their data input (each step's x is the
 * input of the group or the output of an earlier step of the group), so all
 * of them see the same number of elements. A run walks the group tile by
 * tile, running every step on a tile before the next, so that values only
 * the group reads live in per-worker scratch tiles and never reach main
 * memory. Values that are graph outputs or run-time inputs of a step
 * (such as bounds) are written whole.
 */
typedef struct onyx__group {
  uint32_t first, n_steps; /* steps[first .. first + n_steps) */
  uint32_t x;              /* the value whose element count the group has */
  uint32_t elem;           /* bytes per element (one type runs through a group) */
} onyx__group;

/* 0 in a build that leaves fusion out (!onyx_omit;fusion): there every
 * group is one step and every value is written whole (fusion.c), so the
 * planner and the run loop drop their tile paths. */
#ifdef ONYX_OMIT_FUSION
#define ONYX__FUSES 0
#else
#define ONYX__FUSES 1
#endif

/* Elements per scratch tile: 16 KiB of the widest type
 * (ONYX__MAX_DTYPE_SIZE), so a few streams of a fused chain stay in the
 * L1/L2 caches. A microcontroller (ONYX_PLATFORM=none) has no such caches
 * and counts its RAM in kilobytes: 2 KiB tiles there, which take a fused
 * chain's arena from about 22 KB to about 8 KB on Cortex-M3. */
#if defined(ONYX_PLATFORM_NONE)
#define ONYX__TILE_ELEMS 256
#else
#define ONYX__TILE_ELEMS 2048
#endif
#define ONYX__TILE_BYTES ((size_t)ONYX__TILE_ELEMS * ONYX__MAX_DTYPE_SIZE)

typedef struct onyx__run_ctx onyx__run_ctx;
/* Frees a run context (run.c). NULL is a no-op, and so is a context in a
 * session's arena. */
void onyx__run_ctx_free(onyx__run_ctx *ctx);
/* Makes the session's run context now and caches it: a session with an
 * arena has its one context from the start, so that running it allocates
 * only the values of that run. */
onyx_status onyx__run_ctx_attach(onyx_session *session, onyx_error *err);
/* Starts a run on c: in an arena, gives back what the last run took. */
void onyx__run_ctx_begin(onyx__run_ctx *c);

/* A new zeroed session (arena.c): in the caller's arena when opts has
 * one, which then backs the session's own arena, else on the heap. */
onyx_status onyx__session_new(const onyx_session_options *opts, onyx_session **out,
                              onyx_error *err);
/* Says in err that the caller's arena was too small when creating s
 * failed with ONYX_OUT_OF_MEMORY in one. */
void onyx__session_arena_note(const onyx_session *s, onyx_status st, onyx_error *err);

/* The bytes of scratch tiles and whole buffers that the session's cached
 * run context holds: after a run, the working memory that run needed
 * besides inputs, outputs and per-value bookkeeping. 0 before the first
 * run or while a run holds the context. For tests. */
size_t onyx__session_working_bytes(onyx_session *session);

/*
 * The plan of node st->node, whoever serves it, into st (whose node, n_in,
 * n_out, in, out and buf the caller set): checks the node, sets its
 * outputs' descriptions, fns, impl, in_place and prep. fns NULL: the
 * outputs are known now (constants) and no step runs.
 *   - onyx__builtin_plan (ops/check.c): onyx's own ops, by the version
 *     table and the op's prepare;
 *   - onyx__custom_plan (graph/custom.h): a registered operator's node.
 */
onyx_status onyx__builtin_plan(struct onyx_session *s, onyx__step *st, onyx_error *err);

struct onyx_session {
  onyx__arena arena;
  const onyx_model *model;
  onyx_session_options opts;
  size_t n_values;
  onyx__value *values;
  size_t n_steps;
  onyx__step *steps;
  size_t n_groups;
  onyx__group *groups;
  uint32_t n_scratch;      /* scratch tiles each worker needs */
  uint32_t n_buffers;      /* whole buffers a run needs (see onyx__step.buf) */
  bool views;              /* a step's functions read per-value views (onyx__step_fns.views) */
  struct onyx__pool *pool; /* NULL when running on one thread */
  unsigned workers;        /* onyx__pool_size(pool), kept for the run path */
  /* A run context kept between runs so that a run allocates nothing; a
   * concurrent run that finds it taken builds its own. */
  _Atomic(onyx__run_ctx *) cached_ctx;
  size_t n_inputs;
  uint32_t *input_values;
  /* Each run input's declaration (a graph input that is no initializer),
   * which runs check inputs against: the model's, not a copy, since the
   * model outlives the session (an onyx_value_info is 208 bytes on
   * Cortex-M3, a fifth of a 1 KB arena). */
  const onyx__value_info **input_decl;
  /* Pairs of input dimensions (input * ONYX_MAX_RANK + dim) that share a
   * symbolic name and so must have the same size at run time: dim_link[2k]
   * must equal dim_link[2k + 1]. */
  size_t n_dim_links;
  uint32_t *dim_link;
  /* The symbolic names of values' dimensions, kept beside the values so
   * that a model without any (every microcontroller model) pays nothing:
   * NULL when no input names a dimension. Else dim_name[v * ONYX_MAX_RANK
   * + d] is 0 when dimension d of value v has no name, or 1 + the index in
   * dim_names of its name. The names are the inputs' (input_decl), each
   * once; a computed value's dimension has one only where it provably is
   * a dimension of that name (onyx__dim_names_like, onyx_op_set_output_dim_from). */
  uint16_t *dim_name;
  const char **dim_names;
  size_t n_dim_names;
  size_t n_outputs;
  uint32_t *output_values; /* described on demand (onyx__output_info) */
};

/* The name indices of value v's dimensions (see onyx_session.dim_name),
 * or NULL when the session has no named dimension. */
static inline uint16_t *onyx__dim_name_row(const onyx_session *s, int32_t v) {
  return s->dim_name != NULL ? s->dim_name + (size_t)v * ONYX_MAX_RANK : NULL;
}

/* Value y's dimensions take value x's names (y has x's shape). */
void onyx__dim_names_like(onyx_session *s, int32_t y, int32_t x);
/* The public description of a declaration: the model's own, or an input's
 * (info.c). */
void onyx__info_from_decl(onyx_value_info *info, const onyx__value_info *vi);
/* Output o as declared with a shape, else as computed (info.c). */
void onyx__output_info(const onyx_session *s, size_t o, onyx_value_info *info);
/* The names of value v's dimensions 0 .. info->rank - 1 into
 * info->dim_names (info.c). */
void onyx__value_dim_names(const onyx_session *s, int32_t v, onyx_value_info *info);

#endif
