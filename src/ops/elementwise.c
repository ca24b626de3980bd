/* SPDX-License-Identifier: MIT */
/*
 * How the steps of onyx's element-wise ops run (Ceil, Clip, Floor, Sign):
 * y = kernel(x) with y of x's shape, and the op's run-time inputs (such as
 * a computed Clip bound) checked before a run writes anything and bound
 * into the kernel parameters just before the step runs.
 */
#include <string.h>

#include "graph/session.h"
#include "ops/op.h"

/* What the op of the step reads at run time besides x: counts always, and
 * the elements when with_data is set. */
static void runtime_inputs(const onyx__step_run *r, bool with_data, onyx__runtime_inputs *in) {
  const onyx__step *st = r->step;
  memset(in, 0, sizeof *in);
  in->node = &r->session->model->graph.nodes[st->node];
  in->node_index = st->node;
  in->dtype = r->session->values[st->in[0]].desc.dtype;
  in->present = st->prep.runtime_inputs;
  for (uint32_t i = 0; i < st->n_in && i < ONYX__MAX_OP_INPUTS; i++) {
    if (!((in->present >> i) & 1u) || st->in[i] < 0) continue;
    in->count[i] = r->slots[st->in[i]].count;
    in->data[i] = with_data ? r->slots[st->in[i]].data : NULL;
  }
}

static onyx_status shapes(const onyx__step_run *r, onyx_error *err) {
  const onyx__step *st = r->step;
  const onyx__slot *x = &r->slots[st->in[0]];
  onyx__slot *y = &r->slots[st->out[0]];
  y->dims = x->dims;
  y->rank = x->rank;
  y->count = x->count;
  y->nbytes = x->nbytes;
  if (st->prep.check == NULL) return ONYX_OK;
  onyx__runtime_inputs in;
  runtime_inputs(r, false, &in);
  return st->prep.check(&in, err);
}

static void params(const onyx__step_run *r, onyx__kparams *p) {
  const onyx__step *st = r->step;
  *p = st->prep.params;
  if (st->prep.bind == NULL) return;
  onyx__runtime_inputs in;
  runtime_inputs(r, true, &in);
  st->prep.bind(&in, p);
}

const onyx__step_fns onyx__elementwise_fns = {
    .shapes = shapes, .compute = NULL, .params = params, .views = false, .registered = false};
const onyx__step_fns onyx__elementwise_fixed_fns = {
    .shapes = NULL, .compute = NULL, .params = NULL, .views = false, .registered = false};
