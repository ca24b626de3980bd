/* SPDX-License-Identifier: MIT */
/* The list of supported ops, and helpers every op file shares. */
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "core/error.h"
#include "core/format.h"
#include "ops/op.h"

static const struct {
  const char *name;
  const onyx__op *op;
} ops[] = {
/* The build configuration selects here: ops a reduced build left out are
 * not in the table, so nothing links their code. */
#define ONYX_X_(name, cname) ONYX__OP_ENTRY(name, {#name, &onyx__op_##cname}, )
    ONYX__OP_MAP(ONYX_X_)
#undef ONYX_X_
};

#define N_OPS (sizeof ops / sizeof ops[0])

/* A handful of ops: a linear search costs less than hashing the name. */
const onyx__op *onyx__op_find(const char *op_type) {
  for (size_t i = 0; i < N_OPS; i++)
    if (strcmp(ops[i].name, op_type) == 0) return ops[i].op;
  return NULL;
}

size_t onyx__op_count(void) { return N_OPS; }

const onyx__op *onyx__op_at(size_t i, const char **name) {
  if (i >= N_OPS) return NULL;
  if (name != NULL) *name = ops[i].name;
  return ops[i].op;
}

const char *onyx__op_names(void) {
#define ONYX_X_(name, cname) ONYX__OP_ENTRY(name, ", " #name)
  static const char names[] = ONYX__OP_MAP(ONYX_X_);
#undef ONYX_X_
  return names + 2; /* past the first ", " */
}

const onyx__op_version *onyx__op_version_at(const onyx__op *op, int64_t opset) {
  const onyx__op_version *found = NULL;
  for (size_t i = 0; i < op->n_versions; i++)
    if (op->versions[i].since <= opset) found = &op->versions[i];
  return found;
}

const char *onyx__node_label(const onyx__node *node, size_t index, int since, int64_t opset,
                             char *buf, size_t cap) {
  const char *domain = node->domain != NULL ? node->domain : "";
  if (since > 0)
    onyx__format(buf, cap, "node %zu ('%s', %s%s%s-%d at opset %lld)", index, node->name, domain,
                 domain[0] != '\0' ? ":" : "", node->op_type, since, (long long)opset);
  else
    onyx__format(buf, cap, "node %zu ('%s', %s%s%s)", index, node->name, domain,
                 domain[0] != '\0' ? ":" : "", node->op_type);
  return buf;
}

const onyx__attr *onyx__node_attr(const onyx__node *node, const char *name) {
  for (size_t i = 0; i < node->n_attrs; i++)
    if (strcmp(node->attrs[i].name, name) == 0) return &node->attrs[i];
  return NULL;
}

onyx_status onyx__prepare_unary(onyx__prepare_ctx *ctx, onyx__prepared *prep, onyx__kop kop,
                                onyx_error *err) {
  const onyx__value_desc *x = ctx->inputs[0];
  prep->fns = &onyx__elementwise_fixed_fns; /* an op with run-time inputs changes it */
  prep->kop = kop;
  prep->kernel = onyx__kernel_get(kop, x->dtype, ctx->isa_cap);
  if (prep->kernel == NULL) {
    /* The version table and the kernel table disagree: a bug, not bad input. */
    char label[300];
    ONYX__PREPARE_LABEL(ctx, label);
    return onyx__fail(err, ONYX_INTERNAL, "%s: no kernel for type %s", label,
                      onyx_dtype_name(x->dtype));
  }
  *ctx->out = *x;
  ctx->out->constant = NULL;
  return ONYX_OK;
}
