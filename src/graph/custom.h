/* SPDX-License-Identifier: MIT */
/*
 * Operators the caller registers (onyx_op_registry): the registry, the
 * plan of a node one of them serves, and the calls session.c and run.c
 * make into them. No ONNX op is named here: the mechanism is generic.
 */
#ifndef ONYX_GRAPH_CUSTOM_H
#define ONYX_GRAPH_CUSTOM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "model/model.h"
#include "onyx.h"

/* One registered operator; def's strings are the entry's own copies. */
typedef struct onyx__custom_entry {
  onyx_custom_op def;
  const char *library; /* the op library that registered it, or NULL */
  struct onyx__custom_entry *next;
} onyx__custom_entry;

/* A node that a registered operator serves, as a session plans it. */
typedef struct onyx__custom_node {
  const onyx__custom_entry *op;
  uint32_t node; /* model node index */
  int64_t opset; /* of the node's domain */
  uint32_t n_in, n_out;
  const int32_t *in;  /* value of input i, or -1 when omitted (the step's) */
  const int32_t *out; /* value of output k, or -1 when omitted (the step's) */
  bool shapes_known;  /* output shapes were fixed at session creation */
} onyx__custom_node;

/* The registered operator serving node n of m, or NULL (reg may be NULL). */
const onyx__custom_entry *onyx__custom_find(const onyx_op_registry *reg, const onyx_model *m,
                                            size_t n);

/* The registered operator serving node at its domain's opset version, or
 * NULL (reg may be NULL): the lookup without the search of m's imports. */
const onyx__custom_entry *onyx__custom_lookup(const onyx_op_registry *reg, const onyx__node *node,
                                              int64_t version);

struct onyx_session;
struct onyx__step;

/*
 * The adaptor that makes a registered operator's node a step like any
 * other (graph/session.h, onyx__builtin_plan's counterpart): checks and
 * infers it at creation (onyx__custom_prepare), and gives the step the
 * functions that call the operator's infer and compute at run time.
 * *views is scratch of one tensor per session value, made on first use,
 * which the caller frees after planning (onyx__arena_or_heap_free).
 */
onyx_status onyx__custom_plan(struct onyx_session *s, const onyx__custom_entry *op, int64_t opset,
                              struct onyx__step *st, onyx_tensor **views, onyx_error *err);

/*
 * At session creation: checks node cn->node's arity and input types
 * against its operator (cn->in, cn->out and opset set by the caller), runs
 * the operator's infer on the inputs' descriptions and sets the outputs'
 * descriptions. views is scratch of one tensor per session value.
 */
onyx_status onyx__custom_prepare(struct onyx_session *s, onyx__custom_node *cn, onyx_tensor *views,
                                 onyx_error *err);

/*
 * At run time, before anything runs: the outputs' types and shapes of this
 * run into views[cn->out[k]] (size: bytes), from the inputs' in
 * views[cn->in[i]] (type and shape), calling infer again when the shapes
 * were not known at creation.
 */
onyx_status onyx__custom_shapes(const struct onyx_session *s, const onyx__custom_node *cn,
                                onyx_tensor *views, onyx_error *err);

/* Runs the operator's compute on views (inputs with data, outputs with
 * their buffers); a failure names the node and op. */
onyx_status onyx__custom_compute(const struct onyx_session *s, const onyx__custom_node *cn,
                                 onyx_tensor *views, onyx_error *err);

/*
 * A reduced build with !onyx_omit;custom_ops (docs/build-config.md): no
 * registry can be made (onyx_op_registry_create says the build left them
 * out), so no registered operator serves a node. Outside the two files that
 * define the calls above (ONYX__CUSTOM_IMPL), they become these inline
 * stand-ins, and the compiler drops every path into registered operators.
 */
#if defined(ONYX_OMIT_CUSTOM_OPS) && !defined(ONYX__CUSTOM_IMPL)
static inline const onyx__custom_entry *onyx__custom_none(const onyx_op_registry *reg) {
  (void)reg;
  return NULL;
}
static inline onyx_status onyx__custom_unreached(const struct onyx_session *s,
                                                 const onyx__custom_node *cn, onyx_error *err) {
  (void)s, (void)cn;
  return onyx__fail(err, ONYX_INTERNAL, "custom operators are left out of this build");
}
#define onyx__custom_find(reg, m, n)        onyx__custom_none(reg)
#define onyx__custom_lookup(reg, node, v)   onyx__custom_none(reg)
#define onyx__custom_prepare(s, cn, v, err) onyx__custom_unreached(s, cn, err)
#define onyx__custom_plan(s, op, opset, st, v, err) \
  ((void)(opset), onyx__custom_unreached(s, NULL, err))
#define onyx__custom_shapes(s, cn, v, err)  onyx__custom_unreached(s, cn, err)
#define onyx__custom_compute(s, cn, v, err) onyx__custom_unreached(s, cn, err)
#endif

#endif
