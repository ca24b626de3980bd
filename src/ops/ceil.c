/* SPDX-License-Identifier: MIT */
/* Ceil: y = ceil(x), element-wise. Integral values, +-0, NaN and infinities
 * are returned unchanged. */
#include "ops/op.h"

/* Version 1 still carried the legacy `consumed_inputs` attribute. */
static const onyx__attr_spec attrs_v1[] = {{"consumed_inputs", ONYX__ATTR_INTS}, {NULL, 0}};
static const onyx__attr_spec attrs_none[] = {{NULL, 0}};

/* Floor's history is the same (floor.c uses this table). */
const onyx__op_version onyx__rounding_versions[ONYX__ROUNDING_VERSIONS] = {
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
     .attrs = attrs_none},
    {.since = 13,
     .types = ONYX__DM_FLOATS | ONYX__DM(BFLOAT16),
     .min_inputs = 1,
     .max_inputs = 1,
     .n_outputs = 1,
     .attrs = attrs_none},
};

static onyx_status prepare(onyx__prepare_ctx *ctx, onyx__prepared *prep, onyx_error *err) {
  return onyx__prepare_unary(ctx, prep, ONYX__KOP_CEIL, err);
}

const onyx__op onyx__op_ceil = {ONYX__OP_VERSIONS(onyx__rounding_versions), .prepare = prepare};
