/* SPDX-License-Identifier: MIT */
/* Floor: y = floor(x), element-wise. Integral values, +-0, NaN and
 * infinities are returned unchanged. Its versions and types are Ceil's. */
#include "ops/op.h"

static onyx_status prepare(onyx__prepare_ctx *ctx, onyx__prepared *prep, onyx_error *err) {
  return onyx__prepare_unary(ctx, prep, ONYX__KOP_FLOOR, err);
}

const onyx__op onyx__op_floor = {ONYX__OP_VERSIONS(onyx__rounding_versions), .prepare = prepare};
