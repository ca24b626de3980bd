/* Sign: 1, -1 or 0 by the sign of x; Sign(-0) is +0 and Sign(NaN) is NaN. */
#include "ops/op.h"

static const onyx__attr_spec attrs_none[] = {{NULL, 0}};

static const onyx__op_version versions[] = {
    {9, ONYX__DM_FLOATS | ONYX__DM_INTS, 1, 1, 1, attrs_none},
    {13, ONYX__DM_ALL, 1, 1, 1, attrs_none},
};

static onyx_status prepare(onyx__prepare_ctx *ctx, onyx__prepared *prep, onyx_error *err) {
  return onyx__prepare_unary(ctx, prep, ONYX__KOP_SIGN, err);
}

const onyx__op onyx__op_sign = {"Sign", versions, sizeof versions / sizeof versions[0], prepare};
