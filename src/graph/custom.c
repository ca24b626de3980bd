/* SPDX-License-Identifier: MIT */
/*
 * Nodes served by registered operators: the checks onyx makes for them at
 * session creation, the shapes of each run, the compute call, and the
 * context their functions read. Every value the user's functions give
 * back is checked before onyx relies on it: output types against the
 * definition, shapes against onyx's limits (no negative dimension, no
 * element count past ONYX__MAX_ELEMENTS) and, at run time, against the
 * types fixed at session creation; a failing function becomes an error
 * naming the node and op.
 */
#define ONYX__CUSTOM_IMPL /* the definitions, in any build (custom.h) */
#include "graph/custom.h"

#include <stdarg.h>
#include <string.h>

#include "core/error.h"
#include "core/format.h"
#include "graph/session.h"
#include "ops/op.h"

struct onyx_op_context {
  const onyx__custom_node *cn;
  const onyx__node *node;
  onyx_tensor *views;           /* one per session value; inputs and outputs by cn->in, cn->out */
  bool computing;               /* compute (outputs have buffers), not infer */
  bool partial;                 /* infer at creation with an input shape unknown: -1 dims allowed */
  const onyx_session *creating; /* the session, in infer at creation; else NULL */
  onyx__pool *pool;
  onyx_status failed; /* what onyx_op_fail recorded, ONYX_OK if nothing */
  char message[400];
};

void *onyx_op_user_data(const onyx_op_context *ctx) {
  return ctx != NULL ? ctx->cn->op->def.user_data : NULL;
}

const char *onyx_op_node_name(const onyx_op_context *ctx) {
  return ctx != NULL ? ctx->node->name : "";
}

int64_t onyx_op_opset(const onyx_op_context *ctx) { return ctx != NULL ? ctx->cn->opset : 0; }

size_t onyx_op_input_count(const onyx_op_context *ctx) { return ctx != NULL ? ctx->cn->n_in : 0; }

size_t onyx_op_output_count(const onyx_op_context *ctx) { return ctx != NULL ? ctx->cn->n_out : 0; }

onyx_status onyx_op_fail(onyx_op_context *ctx, onyx_status status, const char *fmt, ...) {
  if (ctx == NULL || fmt == NULL) return status;
  va_list ap;
  va_start(ap, fmt);
  onyx__vformat(ctx->message, sizeof ctx->message, fmt, ap);
  va_end(ap);
  ctx->failed = status;
  return status;
}

onyx_status onyx_op_input(const onyx_op_context *ctx, size_t i, onyx_tensor *out) {
  if (ctx == NULL || out == NULL || i >= ctx->cn->n_in)
    return ONYX_INVALID_ARGUMENT; /* the caller's own bug: no context to report it in */
  if (ctx->cn->in[i] < 0) {
    memset(out, 0, sizeof *out);
    return ONYX_OK;
  }
  *out = ctx->views[ctx->cn->in[i]];
  return ONYX_OK;
}

int onyx_op_input_rank_known(const onyx_op_context *ctx, size_t i) {
  if (ctx == NULL || i >= ctx->cn->n_in || ctx->cn->in[i] < 0) return 0;
  return ctx->creating == NULL || ctx->creating->values[ctx->cn->in[i]].desc.has_shape;
}

onyx_status onyx_op_output(const onyx_op_context *ctx, size_t k, onyx_tensor *out) {
  if (ctx == NULL || out == NULL || k >= ctx->cn->n_out || !ctx->computing)
    return ONYX_INVALID_ARGUMENT;
  if (ctx->cn->out[k] < 0) {
    memset(out, 0, sizeof *out);
    return ONYX_OK;
  }
  *out = ctx->views[ctx->cn->out[k]];
  return ONYX_OK;
}

/* Whether mask list (n entries, the last repeating) allows t at position i. */
static bool allowed(const uint32_t *masks, uint32_t n, size_t i, onyx_dtype t) {
  if (n == 0) return true;
  uint32_t m = masks[i < n ? i : n - 1];
  return m == ONYX_DTYPES_ALL || (m & ONYX_DTYPE_BIT(t)) != 0;
}

/* A shape infer sets: its checks, and its byte size. */
static onyx_status check_shape(onyx_op_context *ctx, size_t k, onyx_dtype dtype, uint32_t rank,
                               const int64_t *dims, size_t *nbytes) {
  if (rank > ONYX_MAX_RANK)
    return onyx_op_fail(ctx, ONYX_SHAPE, "output %zu: rank %u is more than %d", k, rank,
                        ONYX_MAX_RANK);
  if (rank > 0 && dims == NULL)
    return onyx_op_fail(ctx, ONYX_INVALID_ARGUMENT, "output %zu: dims is NULL", k);
  bool unknown = false;
  for (uint32_t d = 0; d < rank; d++) {
    if (dims[d] == -1 && ctx->partial) {
      unknown = true;
    } else if (dims[d] < 0) {
      return onyx_op_fail(ctx, ONYX_SHAPE, "output %zu: dimension %u is negative (%lld)", k, d,
                          (long long)dims[d]);
    }
  }
  *nbytes = 0;
  if (unknown) return ONYX_OK;
  size_t count;
  onyx_error e;
  if (onyx__shape_count(dims, rank, &count, &e) != ONYX_OK)
    return onyx_op_fail(ctx, e.status, "output %zu: %s", k, e.message);
  if (!onyx__mul_size(count, onyx_dtype_size(dtype), nbytes))
    return onyx_op_fail(ctx, ONYX_LIMIT,
                        "output %zu: %zu elements of %s overflow the address "
                        "space",
                        k, count, onyx_dtype_name(dtype));
  return ONYX_OK;
}

onyx_status onyx_op_set_output(onyx_op_context *ctx, size_t k, onyx_dtype dtype, uint32_t rank,
                               const int64_t *dims) {
  if (ctx == NULL) return ONYX_INVALID_ARGUMENT;
  if (ctx->computing || k >= ctx->cn->n_out)
    return onyx_op_fail(
        ctx, ONYX_INVALID_ARGUMENT, "onyx_op_set_output: output %zu %s", k,
        ctx->computing ? "set in compute (only infer sets outputs)" : "is out of range");
  if (ctx->cn->out[k] < 0) return ONYX_OK;
  if (onyx_dtype_size(dtype) == 0)
    return onyx_op_fail(ctx, ONYX_TYPE, "output %zu: type %d is no type onyx knows", k, (int)dtype);
  const onyx_custom_op *d = &ctx->cn->op->def;
  if (!allowed(d->output_types, d->n_output_types, k, dtype))
    return onyx_op_fail(ctx, ONYX_TYPE, "output %zu: type %s is not among the op's output types", k,
                        onyx_dtype_name(dtype));
  size_t nbytes;
  ONYX__TRY(check_shape(ctx, k, dtype, rank, dims, &nbytes));
  onyx_tensor *t = &ctx->views[ctx->cn->out[k]];
  t->dtype = dtype;
  t->rank = rank;
  for (uint32_t i = 0; i < ONYX_MAX_RANK; i++) t->dims[i] = i < rank ? dims[i] : 0;
  t->data = NULL;
  t->size = nbytes;
  uint16_t *names = ctx->creating ? onyx__dim_name_row(ctx->creating, ctx->cn->out[k]) : NULL;
  if (names != NULL) memset(names, 0, sizeof(uint16_t) * ONYX_MAX_RANK);
  return ONYX_OK;
}

onyx_status onyx_op_set_output_dim_from(onyx_op_context *ctx, size_t k, uint32_t j, size_t i,
                                        uint32_t d) {
  if (ctx == NULL) return ONYX_INVALID_ARGUMENT;
  const onyx__custom_node *cn = ctx->cn;
  if (ctx->computing || k >= cn->n_out || i >= cn->n_in || cn->in[i] < 0)
    return onyx_op_fail(ctx, ONYX_INVALID_ARGUMENT, "onyx_op_set_output_dim_from: %s",
                        ctx->computing   ? "called in compute (only infer sets outputs)"
                        : k >= cn->n_out ? "no such output"
                                         : "no such input, or an omitted one");
  if (cn->out[k] < 0) return ONYX_OK;
  onyx_tensor *t = &ctx->views[cn->out[k]];
  if (t->dtype == ONYX_DTYPE_UNDEFINED || j >= t->rank)
    return onyx_op_fail(ctx, ONYX_INVALID_ARGUMENT,
                        "onyx_op_set_output_dim_from: output %zu has no dimension %u (set its "
                        "shape with onyx_op_set_output first)",
                        k, j);
  /* An input of unknown rank: the output's shape waits for a run anyway. */
  if (!onyx_op_input_rank_known(ctx, i)) return ONYX_OK;
  const onyx_tensor *x = &ctx->views[cn->in[i]];
  if (d >= x->rank)
    return onyx_op_fail(ctx, ONYX_INVALID_ARGUMENT,
                        "onyx_op_set_output_dim_from: input %zu has rank %u, no dimension %u", i,
                        x->rank, d);
  t->dims[j] = x->dims[d];
  size_t nbytes;
  ONYX__TRY(check_shape(ctx, k, t->dtype, t->rank, t->dims, &nbytes));
  t->size = nbytes;
  uint16_t *names = ctx->creating ? onyx__dim_name_row(ctx->creating, cn->out[k]) : NULL;
  if (names != NULL) names[j] = onyx__dim_name_row(ctx->creating, cn->in[i])[d];
  return ONYX_OK;
}

int onyx_op_attribute(const onyx_op_context *ctx, const char *name, onyx_attribute_info *out) {
  if (ctx == NULL || name == NULL || out == NULL) return 0;
  const onyx__attr *a = onyx__node_attr(ctx->node, name);
  if (a == NULL) {
    /* Cleared, so that `found && a.type == T ? a.i : default` reads no
     * undefined bytes where a compiler evaluates both sides first. */
    memset(out, 0, sizeof *out);
    return 0;
  }
  onyx__attr_view(a, out);
  return 1;
}

typedef struct parallel_job {
  void (*fn)(void *arg, size_t i);
  void *arg;
} parallel_job;

static void parallel_task(void *ctx, size_t task, unsigned worker) {
  (void)worker;
  const parallel_job *j = ctx;
  j->fn(j->arg, task);
}

void onyx_op_parallel_for(onyx_op_context *ctx, size_t n, void (*fn)(void *arg, size_t i),
                          void *arg) {
  if (ctx == NULL || fn == NULL || n == 0) return;
  parallel_job j = {fn, arg};
  onyx__pool_run(ctx->computing ? ctx->pool : NULL, n, parallel_task, &j);
}

/* The message of a failed infer or compute: the user's, after the node.
 * The call fails with as (st, or what st means there). */
static onyx_status report(const onyx_op_context *ctx, onyx_status st, onyx_status as,
                          const char *fn, onyx_error *err) {
  char where[300];
  onyx__node_label(ctx->node, ctx->cn->node, 0, 0, where, sizeof where);
  if (strcmp(onyx_status_name(st), "ONYX_UNKNOWN_STATUS") == 0)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "%s: %s returned %d, which is no onyx_status",
                      where, fn, (int)st);
  if (ctx->failed != ONYX_OK && ctx->message[0] != '\0')
    return onyx__fail(err, as, "%s: %s", where, ctx->message);
  return onyx__fail(err, as, "%s: %s failed (%s)", where, fn, onyx_status_name(st));
}

/* Node arity and input types against the definition, at creation. */
static onyx_status check_node(const onyx_session *s, const onyx__custom_node *cn,
                              const onyx__node *node, onyx_error *err) {
  const onyx_custom_op *d = &cn->op->def;
  char where[300];
  onyx__node_label(node, cn->node, 0, 0, where, sizeof where);
  if (cn->n_in < d->min_inputs || cn->n_in > d->max_inputs)
    return onyx__fail(err, ONYX_ARITY, "%s: has %u inputs; the registered op takes %u to %u", where,
                      cn->n_in, d->min_inputs, d->max_inputs);
  if (cn->n_out < d->min_outputs || cn->n_out > d->max_outputs)
    return onyx__fail(err, ONYX_ARITY, "%s: has %u outputs; the registered op gives %u to %u",
                      where, cn->n_out, d->min_outputs, d->max_outputs);
  for (uint32_t i = 0; i < d->min_inputs; i++)
    if (cn->in[i] < 0)
      return onyx__fail(err, ONYX_ARITY, "%s: input %u is required but empty", where, i);
  bool named = false;
  for (uint32_t k = 0; k < cn->n_out; k++) {
    if (cn->out[k] >= 0) named = true;
    if (cn->out[k] < 0 && k < d->min_outputs)
      return onyx__fail(err, ONYX_ARITY, "%s: output %u is required but empty", where, k);
  }
  if (!named) return onyx__fail(err, ONYX_ARITY, "%s: has no named output", where);
  onyx_dtype first = ONYX_DTYPE_UNDEFINED;
  for (uint32_t i = 0; i < cn->n_in; i++) {
    if (cn->in[i] < 0) continue;
    onyx_dtype t = s->values[cn->in[i]].desc.dtype;
    if (!allowed(d->input_types, d->n_input_types, i, t))
      return onyx__fail(err, ONYX_TYPE,
                        "%s: input %u '%s' has type %s, which the op does not "
                        "allow",
                        where, i, node->inputs[i], onyx_dtype_name(t));
    if (first == ONYX_DTYPE_UNDEFINED) first = t;
    if (d->same_input_types && t != first)
      return onyx__fail(err, ONYX_TYPE,
                        "%s: input %u '%s' has type %s but the inputs before it "
                        "%s; the op takes one type",
                        where, i, node->inputs[i], onyx_dtype_name(t), onyx_dtype_name(first));
  }
  return ONYX_OK;
}

/* The tensor infer sees for a value at creation; true if its shape is known. */
static bool view_from_desc(const onyx__value_desc *d, onyx_tensor *t) {
  memset(t, 0, sizeof *t);
  t->dtype = d->dtype;
  bool known = d->has_shape && !d->provisional;
  if (d->has_shape) {
    t->rank = d->rank;
    for (uint32_t i = 0; i < d->rank; i++) {
      t->dims[i] = d->dims[i];
      if (d->dims[i] < 0) known = false;
    }
  }
  if (d->constant != NULL) {
    t->data = (void *)(uintptr_t)d->constant->data; /* read-only, as documented */
    t->size = d->constant->data != NULL ? d->constant->nbytes : 0;
  }
  return known;
}

/* Calls infer with every named output unset, then checks that it set each. */
static onyx_status run_infer(onyx_op_context *ctx, onyx_error *err) {
  const onyx__custom_node *cn = ctx->cn;
  for (uint32_t k = 0; k < cn->n_out; k++)
    if (cn->out[k] >= 0) ctx->views[cn->out[k]].dtype = ONYX_DTYPE_UNDEFINED;
  onyx_status st = cn->op->def.infer(ctx);
  /* At a run the model has passed every check: a shape infer refuses now
   * is the shape of the caller's inputs, ONYX_INPUT_SHAPE (onyx.h keeps
   * ONYX_SHAPE for the model's faults, which creation reports). */
  if (st != ONYX_OK)
    return report(ctx, st, st == ONYX_SHAPE && ctx->creating == NULL ? ONYX_INPUT_SHAPE : st,
                  "infer", err);
  for (uint32_t k = 0; k < cn->n_out; k++)
    if (cn->out[k] >= 0 && ctx->views[cn->out[k]].dtype == ONYX_DTYPE_UNDEFINED) {
      char where[300];
      onyx__node_label(ctx->node, cn->node, 0, 0, where, sizeof where);
      return onyx__fail(err, ONYX_SHAPE, "%s: infer did not set output %u", where, k);
    }
  return ONYX_OK;
}

/* infer sees a constant input's data: a payload large enough to be read
 * after load (a model file's) is read now. By size, which never changes,
 * not by a NULL pointer, which another thread's read may be setting. */
static onyx_status read_constant_inputs(const onyx_session *s, const onyx__custom_node *cn,
                                        onyx_error *err) {
  for (uint32_t i = 0; i < cn->n_in; i++) {
    const onyx__tensor *t = cn->in[i] >= 0 ? s->values[cn->in[i]].desc.constant : NULL;
    if (t != NULL && t->nbytes >= ONYX__DEFER_MIN)
      return onyx__payloads_load(s->model->payloads, err);
  }
  return ONYX_OK;
}

onyx_status onyx__custom_prepare(onyx_session *s, onyx__custom_node *cn, onyx_tensor *views,
                                 onyx_error *err) {
  const onyx__node *node = &s->model->graph.nodes[cn->node];
  ONYX__TRY(check_node(s, cn, node, err));
  ONYX__TRY(read_constant_inputs(s, cn, err));
  bool known = true, ranks_known = true;
  for (uint32_t i = 0; i < cn->n_in; i++) {
    if (cn->in[i] < 0) continue;
    const onyx__value_desc *d = &s->values[cn->in[i]].desc;
    if (!view_from_desc(d, &views[cn->in[i]])) known = false;
    if (!d->has_shape) ranks_known = false;
  }
  onyx_op_context ctx = {cn, node, views, false, !known, s, NULL, ONYX_OK, ""};
  ONYX__TRY(run_infer(&ctx, err));
  cn->shapes_known = known;
  /* With every input's rank known (so whenever every shape is), the
   * outputs keep the ranks and dims infer gave: final, or provisional
   * while an input dimension is unknown. Else only their types: the
   * shapes come at run time. */
  bool keep = ranks_known;
  for (uint32_t k = 0; k < cn->n_out; k++) {
    if (cn->out[k] < 0) continue;
    const onyx_tensor *t = &views[cn->out[k]];
    onyx__value_desc *d = &s->values[cn->out[k]].desc;
    memset(d, 0, sizeof *d);
    d->dtype = t->dtype;
    d->has_shape = keep;
    d->provisional = keep && !known;
    d->rank = keep ? t->rank : 0;
    for (uint32_t i = 0; keep && i < t->rank; i++) d->dims[i] = t->dims[i];
    uint16_t *names = onyx__dim_name_row(s, cn->out[k]);
    if (!keep && names != NULL) memset(names, 0, sizeof(uint16_t) * ONYX_MAX_RANK);
  }
  return ONYX_OK;
}

onyx_status onyx__custom_shapes(const onyx_session *s, const onyx__custom_node *cn,
                                onyx_tensor *views, onyx_error *err) {
  const onyx__node *node = &s->model->graph.nodes[cn->node];
  if (!cn->shapes_known) {
    onyx_op_context ctx = {cn, node, views, false, false, NULL, NULL, ONYX_OK, ""};
    ONYX__TRY(run_infer(&ctx, err));
  }
  for (uint32_t k = 0; k < cn->n_out; k++) {
    if (cn->out[k] < 0) continue;
    const onyx__value_desc *d = &s->values[cn->out[k]].desc;
    onyx_tensor *t = &views[cn->out[k]];
    if (!cn->shapes_known) {
      if (t->dtype == d->dtype) continue;
      char where[300];
      onyx__node_label(node, cn->node, 0, 0, where, sizeof where);
      return onyx__fail(err, ONYX_TYPE,
                        "%s: infer gives output %u the type %s at this run but %s at session "
                        "creation",
                        where, k, onyx_dtype_name(t->dtype), onyx_dtype_name(d->dtype));
    }
    /* Fixed at creation, where infer's sizes were checked. */
    t->dtype = d->dtype;
    t->rank = d->rank;
    memcpy(t->dims, d->dims, sizeof t->dims);
    size_t count = 1;
    for (uint32_t i = 0; i < d->rank; i++) count *= (size_t)d->dims[i];
    t->size = count * onyx_dtype_size(d->dtype);
  }
  return ONYX_OK;
}

onyx_status onyx__custom_compute(const onyx_session *s, const onyx__custom_node *cn,
                                 onyx_tensor *views, onyx_error *err) {
  const onyx__node *node = &s->model->graph.nodes[cn->node];
  onyx_op_context ctx = {cn, node, views, true, false, NULL, s->pool, ONYX_OK, ""};
  onyx_status st = cn->op->def.compute(&ctx);
  return st == ONYX_OK ? ONYX_OK : report(&ctx, st, st, "compute", err);
}

/* What a registered operator sees of value v at a run: its type, shape
 * and data. */
static void view_value(const onyx__step_run *r, int32_t v) {
  const onyx__slot *sl = &r->slots[v];
  onyx_tensor *t = &r->views[v];
  t->dtype = r->session->values[v].desc.dtype;
  t->rank = sl->rank;
  for (uint32_t d = 0; d < ONYX_MAX_RANK; d++) t->dims[d] = d < sl->rank ? sl->dims[d] : 0;
  t->data = sl->data;
  t->size = sl->nbytes;
}

/* The shapes of the outputs at this run. Their dims live in the views,
 * which later steps' slots borrow. */
static onyx_status step_shapes(const onyx__step_run *r, onyx_error *err) {
  const onyx__custom_node *cn = r->step->impl;
  for (uint32_t i = 0; i < cn->n_in; i++) {
    int32_t v = cn->in[i];
    if (v < 0) continue;
    view_value(r, v);
    /* infer sees data only for constants: a computed input's slot still
     * points at the last run's buffer, sized for that run. */
    if (r->session->values[v].kind != ONYX__VALUE_CONSTANT) {
      r->views[v].data = NULL;
      r->views[v].size = 0;
    }
  }
  ONYX__TRY(onyx__custom_shapes(r->session, cn, r->views, err));
  for (uint32_t k = 0; k < cn->n_out; k++) {
    int32_t v = cn->out[k];
    if (v < 0) continue;
    onyx__slot *y = &r->slots[v];
    y->dims = r->views[v].dims;
    y->rank = r->views[v].rank;
    y->nbytes = r->views[v].size;
    y->count = y->nbytes / onyx__dtype_size(r->views[v].dtype);
  }
  return ONYX_OK;
}

/* The operator's compute: its inputs' data and its outputs' buffers are
 * known now. */
static onyx_status step_compute(const onyx__step_run *r, onyx_error *err) {
  const onyx__custom_node *cn = r->step->impl;
  for (uint32_t i = 0; i < cn->n_in; i++)
    if (cn->in[i] >= 0) view_value(r, cn->in[i]);
  for (uint32_t k = 0; k < cn->n_out; k++)
    if (cn->out[k] >= 0) view_value(r, cn->out[k]);
  return onyx__custom_compute(r->session, cn, r->views, err);
}

static const onyx__step_fns custom_fns = {.shapes = step_shapes,
                                          .compute = step_compute,
                                          .params = NULL,
                                          .views = true,
                                          .registered = true};

onyx_status onyx__custom_plan(onyx_session *s, const onyx__custom_entry *op, int64_t opset,
                              onyx__step *st, onyx_tensor **views, onyx_error *err) {
  onyx__custom_node *cn = onyx__arena_alloc(&s->arena, sizeof *cn);
  if (*views == NULL) /* in a session's arena, from the arena: no heap call */
    *views = onyx__arena_or_heap_calloc(&s->arena, s->n_values + 1, sizeof **views);
  if (cn == NULL || *views == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  *cn = (onyx__custom_node){op, st->node, opset, st->n_in, st->n_out, st->in, st->out, false};
  ONYX__TRY(onyx__custom_prepare(s, cn, *views, err));
  memset(&st->prep, 0, sizeof st->prep);
  st->fns = &custom_fns;
  st->impl = cn;
  st->in_place = op->def.allows_in_place ? ONYX__IN_PLACE_SAME : ONYX__IN_PLACE_NONE;
  return ONYX_OK;
}
