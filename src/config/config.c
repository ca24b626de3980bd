/* SPDX-License-Identifier: MIT */
/* What a reduced build left out, refused at session creation (config.h). */
#include <string.h>

#include "config/config.h"
#include "core/error.h"
#include "ops/op.h"

#ifdef ONYX_BUILD_CONFIG_REDUCED

/* Every op onyx has, with the types this build keeps for it (0: none). */
static const struct {
  const char *name;
  onyx__dmask types;
} all_ops[] = {
#define ONYX_X_(name, cname) \
  {#name, ONYX__IF(ONYX__WITH(ONYX_WITH_OP_##name))(ONYX_TYPES_##name, 0)},
    ONYX__OP_MAP(ONYX_X_)
#undef ONYX_X_
};

/* The opsets the configuration lists per op. */
static const struct {
  const char *name;
  int opset;
} opsets[] = {
#define ONYX_X_(name, opset) {#name, opset},
    ONYX_BUILD_CONFIG_OPSETS(ONYX_X_)
#undef ONYX_X_
};

#ifdef ONYX_OMIT_MESSAGES
/* Without message text a refusal still says what the build left out, in
 * fixed words around the names: "op Floor is left out of this build". */
static onyx_status left_out(onyx_error *err, onyx_status st, const char *a, const char *b,
                            const char *c, const char *d) {
  if (err == NULL) return st;
  const char *parts[] = {a, b, c, d, " is left out of this build"};
  size_t n = 0, cap = sizeof err->message - 1;
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    for (const char *p = parts[i]; *p != '\0' && n < cap; p++) err->message[n++] = *p;
  err->message[n] = '\0';
  err->status = st;
  return st;
}
#endif

static int op_index(const char *op_type) {
  for (size_t i = 0; i < sizeof all_ops / sizeof all_ops[0]; i++)
    if (strcmp(all_ops[i].name, op_type) == 0) return (int)i;
  return -1;
}

onyx__dmask onyx__config_types(const char *op_type) {
  int i = op_index(op_type);
  return i < 0 ? 0 : all_ops[i].types;
}

onyx_status onyx__config_check_op(const char *op_type, const onyx__op *op,
                                  const onyx__op_version *ver, size_t n, const char *node_name,
                                  onyx_error *err) {
  if (op == NULL) {
    /* Not in the registry: an op onyx has, which this build left out, or
     * one onyx does not have at all (the caller says so). */
    if (op_index(op_type) < 0) return ONYX_OK;
#ifdef ONYX_OMIT_MESSAGES
    (void)n, (void)node_name;
    return left_out(err, ONYX_UNSUPPORTED_OP, "op ", op_type, "", "");
#endif
    return onyx__fail(err, ONYX_UNSUPPORTED_OP,
                      "node %zu ('%s'): op %s is left out of this build (build configuration "
                      "%s, which has %s)",
                      n, node_name, op_type, ONYX_BUILD_CONFIG_NAME, onyx__op_names());
  }
  /* A version is in when one of the listed opsets resolves to it. */
  for (size_t i = 0; i < sizeof opsets / sizeof opsets[0]; i++)
    if (strcmp(opsets[i].name, op_type) == 0 && onyx__op_version_at(op, opsets[i].opset) == ver)
      return ONYX_OK;
#ifdef ONYX_OMIT_MESSAGES
  return left_out(err, ONYX_UNSUPPORTED_OP, "a version of op ", op_type, "", "");
#endif
  return onyx__fail(err, ONYX_UNSUPPORTED_OP,
                    "node %zu ('%s'): version %s-%d is left out of this build (build "
                    "configuration %s)",
                    n, node_name, op_type, ver->since, ONYX_BUILD_CONFIG_NAME);
}

onyx_status onyx__config_check_type(const char *op_type, onyx_dtype t, size_t n,
                                    const char *node_name, onyx_error *err) {
  if (onyx__dmask_has(onyx__config_types(op_type), t)) return ONYX_OK;
#ifdef ONYX_OMIT_MESSAGES
  (void)n, (void)node_name;
  return left_out(err, ONYX_TYPE, "type ", onyx_dtype_name(t), " of op ", op_type);
#endif
  return onyx__fail(err, ONYX_TYPE,
                    "node %zu ('%s'): type %s of op %s is left out of this build (build "
                    "configuration %s)",
                    n, node_name, onyx_dtype_name(t), op_type, ONYX_BUILD_CONFIG_NAME);
}

onyx_status onyx__config_check_tensor_type(onyx_dtype t, onyx_error *err) {
  if (onyx__dmask_has(ONYX_TENSOR_TYPES, t)) return ONYX_OK;
#ifdef ONYX_OMIT_MESSAGES
  return left_out(err, ONYX_TYPE, "tensor type ", onyx_dtype_name(t), "", "");
#endif
  return onyx__fail(err, ONYX_TYPE,
                    "tensor type %s is left out of this build (build configuration %s: none "
                    "of its ops takes it)",
                    onyx_dtype_name(t), ONYX_BUILD_CONFIG_NAME);
}

#else /* the full build has everything */

onyx_status onyx__config_check_tensor_type(onyx_dtype t, onyx_error *err) {
  (void)t, (void)err;
  return ONYX_OK;
}

onyx__dmask onyx__config_types(const char *op_type) {
  (void)op_type;
  return ONYX__DM_ALL;
}

onyx_status onyx__config_check_op(const char *op_type, const onyx__op *op,
                                  const onyx__op_version *ver, size_t n, const char *node_name,
                                  onyx_error *err) {
  (void)op_type, (void)op, (void)ver, (void)n, (void)node_name, (void)err;
  return ONYX_OK;
}

onyx_status onyx__config_check_type(const char *op_type, onyx_dtype t, size_t n,
                                    const char *node_name, onyx_error *err) {
  (void)op_type, (void)t, (void)n, (void)node_name, (void)err;
  return ONYX_OK;
}

#endif
