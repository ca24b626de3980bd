/* SPDX-License-Identifier: MIT */
/* The public list of onyx's own operators (onyx.h), from the registry. */
#include "onyx.h"
#include "ops/op.h"

size_t onyx_op_builtin_count(void) { return onyx__op_count(); }

const char *onyx_op_builtin_name(size_t index) {
  const char *name = NULL;
  return onyx__op_at(index, &name) != NULL ? name : NULL;
}
