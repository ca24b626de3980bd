/* SPDX-License-Identifier: MIT */
/* Sign: 1, -1 or 0 by the sign of x; Sign(-0) is +0 and Sign(NaN) is NaN. */
#include "ops/op.h"

static const onyx__attr_spec attrs_none[] = {{NULL, 0}};

static const onyx__op_version versions[] = {
    {.since = 9,
     .types = ONYX__DM_FLOATS | ONYX__DM_INTS,
     .min_inputs = 1,
     .max_inputs = 1,
     .n_outputs = 1,
     .attrs = attrs_none},
    {.since = 13,
     .types = ONYX__DM_ALL,
     .min_inputs = 1,
     .max_inputs = 1,
     .n_outputs = 1,
     .attrs = attrs_none},
};

static onyx_status prepare(onyx__prepare_ctx *ctx, onyx__prepared *prep, onyx_error *err) {
  return onyx__prepare_unary(ctx, prep, ONYX__KOP_SIGN, err);
}

const onyx__op onyx__op_sign = {ONYX__OP_VERSIONS(versions), .prepare = prepare};
