/* SPDX-License-Identifier: MIT */
/*
 * Clip: y = min(max(x, min), max), element-wise.
 *
 * Versions 1 and 6 take the bounds as float attributes; from version 11 they
 * are optional scalar inputs 1 and 2 of the same type as x, found by
 * position, never by name. What a missing bound means differs:
 *   - Clip-1 declares no default: a missing attribute means no bound.
 *   - Clip-6 declares defaults of float lowest() and max(); the ONNX reference
 *     applies them, so -inf and +inf are clamped to -/+FLT_MAX (for float16
 *     that value rounds to infinity, so nothing changes).
 *   - Clip-11 and later: the text says the bounds "default to lowest() and
 *     max()", but the reference passes None to np.clip, which means no
 *     bound at all: infinities pass through. onyx follows the reference.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/half.h"
#include "ops/op.h"

static const onyx__attr_spec attrs_v1[] = {{"min", ONYX__ATTR_FLOAT},
                                           {"max", ONYX__ATTR_FLOAT},
                                           {"consumed_inputs", ONYX__ATTR_INTS},
                                           {NULL, 0}};
static const onyx__attr_spec attrs_v6[] = {
    {"min", ONYX__ATTR_FLOAT}, {"max", ONYX__ATTR_FLOAT}, {NULL, 0}};
static const onyx__attr_spec attrs_none[] = {{NULL, 0}};

static const onyx__op_version versions[] = {
    {.since = 1,
     .types = ONYX__DM_FLOATS,
     .min_inputs = 1,
     .max_inputs = 1,
     .n_outputs = 1,
     .attrs = attrs_v1},
    {.since = 6,
     .types = ONYX__DM_FLOATS,
     .min_inputs = 1,
     .max_inputs = 1,
     .n_outputs = 1,
     .attrs = attrs_v6},
    {.since = 11,
     .types = ONYX__DM_FLOATS,
     .min_inputs = 1,
     .max_inputs = 3,
     .n_outputs = 1,
     .attrs = attrs_none},
    {.since = 12,
     .types = ONYX__DM_FLOATS | ONYX__DM_INTS,
     .min_inputs = 1,
     .max_inputs = 3,
     .n_outputs = 1,
     .attrs = attrs_none},
    {.since = 13,
     .types = ONYX__DM_ALL,
     .min_inputs = 1,
     .max_inputs = 3,
     .n_outputs = 1,
     .attrs = attrs_none},
};

/*
 * Stores a float attribute bound as one element of the float type t, the way
 * numpy casts a Python float bound to the array's type: exactly for float and
 * double, rounded to nearest even for the half types.
 */
static void attr_bound(onyx_dtype t, float v, unsigned char elem[8]) {
  switch (t) {
    case ONYX_DTYPE_DOUBLE: {
      double d = v;
      memcpy(elem, &d, sizeof d);
      break;
    }
    case ONYX_DTYPE_FLOAT16: {
      onyx__f16 h = onyx__f32_to_f16(v);
      memcpy(elem, &h, sizeof h);
      break;
    }
    case ONYX_DTYPE_BFLOAT16: {
      onyx__bf16 b = onyx__f32_to_bf16(v);
      memcpy(elem, &b, sizeof b);
      break;
    }
    default:
      memcpy(elem, &v, sizeof v);
      break;
  }
}

static onyx_status prepare_attrs(onyx__prepare_ctx *ctx, onyx__prepared *prep) {
  onyx_dtype t = ctx->inputs[0]->dtype;
  bool v6 = ctx->version->since >= 6;
  const char *names[2] = {"min", "max"};
  const float defaults[2] = {-FLT_MAX, FLT_MAX};
  unsigned char elems[2][8];
  const void *bound[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++) {
    const onyx__attr *a = onyx__node_attr(ctx->node, names[i]);
    if (a == NULL && !v6) continue;
    attr_bound(t, a != NULL ? a->f : defaults[i], elems[i]);
    bound[i] = elems[i];
  }
  onyx__clip_params(t, bound[0], bound[1], &prep->params);
  return ONYX_OK;
}

/* A bound input must hold exactly one element: shape [] or [1]. A
 * dimension known now must be 1 (a fixed 0 would fail every run); a
 * symbolic one is checked at run time. */
static onyx_status check_bound_shape(onyx__prepare_ctx *ctx, size_t i, onyx_error *err) {
  const onyx__value_desc *b = ctx->inputs[i];
  bool ok = true;
  if (b->constant != NULL) {
    ok = b->constant->count == 1 && b->constant->rank <= 1;
  } else if (b->has_shape && !b->provisional) {
    ok = b->rank == 0 || (b->rank == 1 && (b->dims[0] == 1 || b->dims[0] < 0));
  }
  if (ok) return ONYX_OK;
  char label[300];
  ONYX__PREPARE_LABEL(ctx, label);
  return onyx__fail(err, ONYX_SHAPE,
                    "%s: input %zu ('%s', the %s bound) must be a scalar (shape [] or [1])", label,
                    i, ctx->node->inputs[i], i == 1 ? "min" : "max");
}

/* Run-time bounds must each hold one element. */
static onyx_status check_runtime(const onyx__runtime_inputs *in, onyx_error *err) {
  for (int i = 1; i <= 2; i++) {
    if (!((in->present >> i) & 1u) || in->count[i] == 1) continue;
    char label[300];
    return onyx__fail(err, ONYX_INPUT_SHAPE,
                      "%s: input %d '%s' (the %s bound) holds %zu elements; it must hold "
                      "exactly one",
                      onyx__node_label(in->node, in->node_index, 0, 0, label, sizeof label), i,
                      in->node->inputs[i], i == 2 ? "max" : "min", in->count[i]);
  }
  return ONYX_OK;
}

static void bind_runtime(const onyx__runtime_inputs *in, onyx__kparams *params) {
  onyx__clip_params(in->dtype, in->data[1], in->data[2], params);
}

static onyx_status prepare(onyx__prepare_ctx *ctx, onyx__prepared *prep, onyx_error *err) {
  ONYX__TRY(onyx__prepare_unary(ctx, prep, ONYX__KOP_CLIP, err));
  if (ctx->version->since < 11) return prepare_attrs(ctx, prep);

  const void *bound[2] = {NULL, NULL};
  unsigned runtime = 0;
  for (size_t i = 1; i <= 2; i++) {
    if (i >= ctx->node->n_inputs || ctx->inputs[i] == NULL) continue;
    ONYX__TRY(check_bound_shape(ctx, i, err));
    if (ctx->inputs[i]->constant != NULL) {
      bound[i - 1] = ctx->inputs[i]->constant->data;
    } else {
      runtime |= 1u << i;
    }
  }
  if (runtime == 0) {
    onyx__clip_params(ctx->inputs[0]->dtype, bound[0], bound[1], &prep->params);
    return ONYX_OK;
  }
  /* At least one bound is known only at run time: a run reads both bounds
   * then (a constant one too) and computes the parameters for that run. */
  for (size_t i = 1; i <= 2; i++)
    if (i < ctx->node->n_inputs && ctx->inputs[i] != NULL) runtime |= 1u << i;
  prep->fns = &onyx__elementwise_fns;
  prep->runtime_inputs = runtime;
  prep->check = check_runtime;
  prep->bind = bind_runtime;
  return ONYX_OK;
}

const onyx__op onyx__op_clip = {ONYX__OP_VERSIONS(versions), .prepare = prepare};
