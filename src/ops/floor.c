/* Floor: y = floor(x), element-wise. Integral values, +-0, NaN and
 * infinities are returned unchanged. */
#include "ops/op.h"

/* Version 1 still carried the legacy `consumed_inputs` attribute. */
static const onyx__attr_spec attrs_v1[] = {{"consumed_inputs", ONYX__ATTR_INTS}, {NULL, 0}};
static const onyx__attr_spec attrs_none[] = {{NULL, 0}};

static const onyx__op_version versions[] = {
    {1, ONYX__DM_FLOATS, 1, 1, 1, attrs_v1},
    {6, ONYX__DM_FLOATS, 1, 1, 1, attrs_none},
    {13, ONYX__DM_FLOATS | ONYX__DM(BFLOAT16), 1, 1, 1, attrs_none},
};

static onyx_status prepare(onyx__prepare_ctx *ctx, onyx__prepared *prep, onyx_error *err) {
  return onyx__prepare_unary(ctx, prep, ONYX__KOP_FLOOR, err);
}

const onyx__op onyx__op_floor = {"Floor", versions, sizeof versions / sizeof versions[0], prepare};
