/* SPDX-License-Identifier: MIT */
/*
 * The operator registry. One ONNX op = one file in src/ops/ holding its
 * version table and its prepare function; registry.c lists the ops once.
 *
 * check.c does the checks every op shares (domain, version resolution,
 * input/output counts, attribute names and types, element types of inputs
 * constrained to T) from the version table, then calls prepare for the
 * rest, which fills the node's step (graph/session.h): how it runs
 * (onyx__step_fns; elementwise.c's for the element-wise ops) and, for
 * those, the per-tile kernel that fusion runs.
 */
#ifndef ONYX_OPS_OP_H
#define ONYX_OPS_OP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/dtype.h"
#include "core/opset.h"
#include "kernels/kernels.h"
#include "model/model.h"

typedef struct onyx__attr_spec {
  const char *name;
  onyx__attr_type type;
} onyx__attr_spec;

/* One version of an op: valid from `since` until the next entry's since. */
typedef struct onyx__op_version {
  int since;
  onyx__dmask types; /* allowed types of T (every input and the output) */
  unsigned min_inputs, max_inputs;
  unsigned n_outputs;
  const onyx__attr_spec *attrs; /* allowed attributes, terminated by {NULL} */
} onyx__op_version;

/* What the session knows about a value when it creates the session. */
typedef struct onyx__value_desc {
  onyx_dtype dtype;
  bool has_shape; /* rank and dims known (dims may be -1 = symbolic) */
  /* The rank and dims a registered op's infer gave at creation from an
   * input shape not fully known: for later infers at creation, which
   * then run again at each run; other checks treat the shape as unknown
   * (an infer may have put a placeholder where it read -1). */
  bool provisional;
  uint32_t rank;
  int64_t dims[ONYX_MAX_RANK];
  const onyx__tensor *constant; /* non-NULL when the value is known now */
} onyx__value_desc;

/* The most inputs any op takes (Clip: x, min, max). Arrays indexed by
 * node input are this long; tests check every version table against it. */
#define ONYX__MAX_OP_INPUTS 3

/*
 * A node's inputs that are known only at run time, besides input 0 (the
 * data every element-wise kernel reads), as an op's run-time hooks see
 * them. Inputs not in `present` have count 0 and data NULL.
 */
typedef struct onyx__runtime_inputs {
  const onyx__node *node; /* for messages */
  size_t node_index;
  onyx_dtype dtype;                      /* of input 0 */
  unsigned present;                      /* bit i: input i is a run-time input */
  size_t count[ONYX__MAX_OP_INPUTS];     /* elements of input i at this run */
  const void *data[ONYX__MAX_OP_INPUTS]; /* its elements; NULL in check */
} onyx__runtime_inputs;

/* Checks the run-time inputs' shapes before a run writes anything; the
 * error names the node and the input. */
typedef onyx_status (*onyx__runtime_check_fn)(const onyx__runtime_inputs *in, onyx_error *err);
/* Turns the run-time inputs' elements into the kernel parameters, just
 * before the step runs (an earlier step may compute them). Cannot fail:
 * check has passed. */
typedef void (*onyx__runtime_bind_fn)(const onyx__runtime_inputs *in, onyx__kparams *params);

/* The state of one value during one run (run.c keeps one per value).
 * Shapes are borrowed: an element-wise step's output has its input's
 * shape, so the pointer is copied along. */
typedef struct onyx__slot {
  void *data;
  const int64_t *dims;
  uint32_t rank;
  size_t count;
  size_t nbytes;
  int32_t written; /* output index whose buffer a step writes, or -1 */
} onyx__slot;

struct onyx_session;
struct onyx__step;

/* What a step's run-time functions see: the step (graph/session.h) and
 * this run's slots, one per session value. views (one per value) is set
 * for steps whose functions ask for it (onyx__step_fns.views). */
typedef struct onyx__step_run {
  const struct onyx_session *session;
  const struct onyx__step *step;
  onyx__slot *slots;
  onyx_tensor *views;
} onyx__step_run;

/*
 * How a step runs, the same for every node: onyx's own ops give theirs
 * (onyx__elementwise_fns for the element-wise ones) and a registered
 * op's node gets the adaptor that calls its infer and compute
 * (graph/custom.c).
 */
typedef struct onyx__step_fns {
  /* This run's output shapes (slots of step->out: dims, rank, count,
   * nbytes) from the inputs' shapes, before anything is written: fails
   * only on what the run's inputs are. NULL: the step's one output takes
   * input 0's shape and nothing is checked, which the run does inline
   * (the one-element run pays no call). */
  onyx_status (*shapes)(const onyx__step_run *r, onyx_error *err);
  /* Computes the outputs whole, their buffers bound. NULL for a step that
   * runs by its per-tile kernel (onyx__prepared.kernel). */
  onyx_status (*compute)(const onyx__step_run *r, onyx_error *err);
  /* Steps with a per-tile kernel: the kernel parameters of this run.
   * NULL: the prepared ones (onyx__prepared.params), as they are. */
  void (*params)(const onyx__step_run *r, onyx__kparams *params);
  bool views;      /* compute and shapes read step_run.views */
  bool registered; /* the node is served by a registered operator (profiles) */
} onyx__step_fns;

/* Element-wise steps y = kernel(x): y has x's shape; the run-time inputs
 * are checked (prepared.check) and bound (prepared.bind). The fixed form
 * is for steps whose parameters are complete when the session is made
 * (no run-time inputs): nothing to call at run time but the kernel. */
extern const onyx__step_fns onyx__elementwise_fns;
extern const onyx__step_fns onyx__elementwise_fixed_fns;

/* How a node runs, filled by prepare. */
typedef struct onyx__prepared {
  const onyx__step_fns *fns; /* the step's run-time functions */
  /* Element-wise nodes: out = kernel(input 0). */
  onyx__kop kop;
  onyx__ukernel kernel;
  onyx__kparams params;
  /* Inputs known only at run time (bit i for node input i > 0), which a
   * run hands to check and then to bind; 0 when params are complete. */
  unsigned runtime_inputs;
  onyx__runtime_check_fn check;
  onyx__runtime_bind_fn bind;
  /* Nodes whose output is known now (Constant): the value. */
  const onyx__tensor *constant;
} onyx__prepared;

typedef struct onyx__prepare_ctx {
  const onyx__node *node;
  size_t node_index;
  const onyx__op_version *version;
  int64_t opset;
  /* inputs[i] describes node input i, or is NULL for an omitted one. */
  const onyx__value_desc *const *inputs;
  onyx_isa isa_cap;
  onyx__arena *arena;    /* the session's, for anything prepare allocates */
  onyx__value_desc *out; /* output 0: prepare sets dtype and shape */
} onyx__prepare_ctx;

typedef onyx_status (*onyx__prepare_fn)(onyx__prepare_ctx *ctx, onyx__prepared *prep,
                                        onyx_error *err);

typedef struct onyx__op {
  const onyx__op_version *versions; /* ascending by since */
  size_t n_versions;
  onyx__prepare_fn prepare;
} onyx__op;

/*
 * Every supported ai.onnx op, once, in the order messages list them:
 * X(ONNX name, C name). It declares onyx__op_<C name>, which the op's file
 * in src/ops/ defines, and makes the registry, the list in messages and the
 * tests' tables.
 */
#define ONYX__OP_MAP(X) \
  X(Ceil, ceil)         \
  X(Clip, clip)         \
  X(Constant, constant) \
  X(Floor, floor)       \
  X(Sign, sign)

#define ONYX_X_(name, cname) extern const onyx__op onyx__op_##cname;
ONYX__OP_MAP(ONYX_X_)
#undef ONYX_X_

/* The fields of onyx__op that name its version table v (an array). */
#define ONYX__OP_VERSIONS(v) .versions = (v), .n_versions = sizeof(v) / sizeof((v)[0])

/* The registered op of this ai.onnx name, or NULL. */
const onyx__op *onyx__op_find(const char *op_type);

/* The number of registered ops, and op i of them (its ONNX name in *name),
 * or NULL past the end: for listings and tests. */
size_t onyx__op_count(void);
const onyx__op *onyx__op_at(size_t i, const char **name);

/* The supported ops' names, "Ceil, Clip, ...", for messages. */
const char *onyx__op_names(void);

/* The versions of Ceil and Floor, which changed together (ceil.c). */
#define ONYX__ROUNDING_VERSIONS 3
extern const onyx__op_version onyx__rounding_versions[ONYX__ROUNDING_VERSIONS];

/* The version of op in force at opset, or NULL if op did not exist yet. */
const onyx__op_version *onyx__op_version_at(const onyx__op *op, int64_t opset);

/* The prefix of every message about a node, into buf (returned):
 * "node 2 ('clip1', Clip-11 at opset 13)" for a version of one of onyx's
 * ops (since > 0), else "node 2 ('clip1', Clip); a domain other than
 * ai.onnx comes before the op type ("com.example:Op"). */
const char *onyx__node_label(const onyx__node *node, size_t index, int since, int64_t opset,
                             char *buf, size_t cap);
/* The label of the node ctx prepares, as onyx__node_label gives it. */
#define ONYX__PREPARE_LABEL(ctx, buf)                                                        \
  onyx__node_label((ctx)->node, (ctx)->node_index, (ctx)->version->since, (ctx)->opset, buf, \
                   sizeof(buf))

/* Shared prepare for single-input element-wise ops (Ceil, Floor, Sign). */
onyx_status onyx__prepare_unary(onyx__prepare_ctx *ctx, onyx__prepared *prep, onyx__kop kop,
                                onyx_error *err);

/* The attribute of that name on the node, or NULL. */
const onyx__attr *onyx__node_attr(const onyx__node *node, const char *name);

#endif
