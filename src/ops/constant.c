/* SPDX-License-Identifier: MIT */
/*
 * Constant: a node whose output is fixed by one attribute. Exporters use it
 * for Clip bounds, so onyx folds it when the session is created: its output
 * becomes a known value and no step runs for it.
 */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "ops/op.h"

static const onyx__attr_spec attrs_v1[] = {{"value", ONYX__ATTR_TENSOR}, {NULL, 0}};
static const onyx__attr_spec attrs_v11[] = {
    {"value", ONYX__ATTR_TENSOR}, {"sparse_value", ONYX__ATTR_SPARSE_TENSOR}, {NULL, 0}};
static const onyx__attr_spec attrs_v12[] = {{"value", ONYX__ATTR_TENSOR},
                                            {"sparse_value", ONYX__ATTR_SPARSE_TENSOR},
                                            {"value_float", ONYX__ATTR_FLOAT},
                                            {"value_floats", ONYX__ATTR_FLOATS},
                                            {"value_int", ONYX__ATTR_INT},
                                            {"value_ints", ONYX__ATTR_INTS},
                                            {"value_string", ONYX__ATTR_STRING},
                                            {"value_strings", ONYX__ATTR_STRINGS},
                                            {NULL, 0}};

#define ALL_BUT_BF16 (ONYX__DM_ALL & ~ONYX__DM(BFLOAT16))

/*
 * Versions 19 and later only add element types onyx does not have (float8,
 * int4, float4 and the like), so for every type onyx has they behave as
 * version 13; they are listed so that the version reported is the real one.
 */
/* Every version: no inputs, one output. */
#define CONSTANT_VERSION(v, t, a) \
  { .since = (v), .types = (t), .min_inputs = 0, .max_inputs = 0, .n_outputs = 1, .attrs = (a) }

static const onyx__op_version versions[] = {
    CONSTANT_VERSION(1, ONYX__DM_FLOATS, attrs_v1), CONSTANT_VERSION(9, ALL_BUT_BF16, attrs_v1),
    CONSTANT_VERSION(11, ALL_BUT_BF16, attrs_v11),  CONSTANT_VERSION(12, ALL_BUT_BF16, attrs_v12),
    CONSTANT_VERSION(13, ONYX__DM_ALL, attrs_v12),  CONSTANT_VERSION(19, ONYX__DM_ALL, attrs_v12),
    CONSTANT_VERSION(21, ONYX__DM_ALL, attrs_v12),  CONSTANT_VERSION(23, ONYX__DM_ALL, attrs_v12),
    CONSTANT_VERSION(24, ONYX__DM_ALL, attrs_v12),
};

/* Builds the tensor of a value_float(s) / value_int(s) attribute. */
static onyx_status list_tensor(onyx__prepare_ctx *ctx, const onyx__attr *a, onyx__tensor **out,
                               onyx_error *err) {
  onyx__tensor *t = onyx__arena_alloc(ctx->arena, sizeof *t);
  if (t == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  t->name = ctx->node->outputs[0];
  const void *src;
  size_t n, elem;
  switch (a->type) {
    case ONYX__ATTR_FLOAT:
      t->dtype = ONYX_DTYPE_FLOAT, src = &a->f, n = 1, elem = sizeof(float);
      break;
    case ONYX__ATTR_INT:
      t->dtype = ONYX_DTYPE_INT64, src = &a->i, n = 1, elem = sizeof(int64_t);
      break;
    case ONYX__ATTR_FLOATS:
      t->dtype = ONYX_DTYPE_FLOAT, src = a->floats, n = a->n_floats, elem = sizeof(float);
      t->rank = 1, t->dims[0] = (int64_t)n;
      break;
    default: /* ONYX__ATTR_INTS */
      t->dtype = ONYX_DTYPE_INT64, src = a->ints, n = a->n_ints, elem = sizeof(int64_t);
      t->rank = 1, t->dims[0] = (int64_t)n;
      break;
  }
  t->count = n;
  t->nbytes = n * elem;
  if (n > 0) {
    void *data = onyx__arena_alloc(ctx->arena, t->nbytes);
    if (data == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
    memcpy(data, src, t->nbytes);
    t->data = data;
  }
  *out = t;
  return ONYX_OK;
}

static onyx_status prepare(onyx__prepare_ctx *ctx, onyx__prepared *prep, onyx_error *err) {
  char label[300];
  ONYX__PREPARE_LABEL(ctx, label);
  if (ctx->node->n_attrs != 1)
    return onyx__fail(err, ONYX_ATTRIBUTE,
                      "%s: needs exactly one value attribute (value, value_float, ...), has %zu",
                      label, ctx->node->n_attrs);
  const onyx__attr *a = &ctx->node->attrs[0];
  onyx__tensor *t = NULL;
  switch (a->type) {
    case ONYX__ATTR_TENSOR:
      t = a->t;
      break;
    case ONYX__ATTR_FLOAT:
    case ONYX__ATTR_FLOATS:
    case ONYX__ATTR_INT:
    case ONYX__ATTR_INTS:
      ONYX__TRY(list_tensor(ctx, a, &t, err));
      break;
    case ONYX__ATTR_STRING:
    case ONYX__ATTR_STRINGS:
      return onyx__fail(err, ONYX_TYPE, "%s: attribute '%s': string constants are not supported",
                        label, a->name);
    default:
      return onyx__fail(err, ONYX_ATTRIBUTE, "%s: attribute '%s' is not supported", label, a->name);
  }
  if (t == NULL)
    return onyx__fail(err, ONYX_ATTRIBUTE, "%s: attribute '%s' holds no tensor", label, a->name);
  if (!onyx__dmask_has(ctx->version->types, t->dtype)) {
    char allowed[256];
    onyx__dmask_format(ctx->version->types, allowed, sizeof allowed);
    return onyx__fail(err, ONYX_TYPE, "%s: value of type %s is not allowed; allowed: %s", label,
                      onyx_dtype_name(t->dtype), allowed);
  }
  prep->constant = t;
  ctx->out->dtype = t->dtype;
  ctx->out->has_shape = true;
  ctx->out->rank = t->rank;
  memcpy(ctx->out->dims, t->dims, sizeof t->dims);
  ctx->out->constant = t;
  return ONYX_OK;
}

const onyx__op onyx__op_constant = {ONYX__OP_VERSIONS(versions), .prepare = prepare};
