/*
 * Running a session. A run only reads the session, so several threads may
 * run one session at once; everything a run needs lives in its own frame.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "graph/session.h"

/* The state of one value during one run. Shapes are borrowed: a computed
 * value has the shape of its step's x, so the pointer is copied along. */
typedef struct slot {
  void *data;
  const int64_t *dims;
  uint32_t rank;
  size_t count;
  size_t nbytes;
  bool owned;      /* an intermediate buffer this run allocated */
  int32_t written; /* output index whose buffer a step writes, or -1 */
} slot;

static onyx_status check_input(const onyx_session *s, size_t i, const onyx_tensor *t,
                               onyx_error *err) {
  const onyx_value_info *info = &s->input_info[i];
  if (t->dtype != info->dtype)
    return onyx__fail(err, ONYX_INPUT_TYPE, "input %zu ('%s'): type %s given, %s expected", i,
                      info->name, onyx_dtype_name(t->dtype), onyx_dtype_name(info->dtype));
  if (t->rank > ONYX_MAX_RANK)
    return onyx__fail(err, ONYX_INPUT_SHAPE, "input %zu ('%s'): rank %u is more than %d", i,
                      info->name, t->rank, ONYX_MAX_RANK);
  if (info->has_shape && t->rank != info->rank)
    return onyx__fail(err, ONYX_INPUT_SHAPE, "input %zu ('%s'): rank %u given, %u expected", i,
                      info->name, t->rank, info->rank);
  for (uint32_t d = 0; d < t->rank; d++) {
    if (t->dims[d] < 0)
      return onyx__fail(err, ONYX_INPUT_SHAPE, "input %zu ('%s'): dimension %u is negative (%lld)",
                        i, info->name, d, (long long)t->dims[d]);
    if (info->has_shape && info->dims[d] >= 0 && t->dims[d] != info->dims[d])
      return onyx__fail(err, ONYX_INPUT_SHAPE,
                        "input %zu ('%s'): dimension %u is %lld; the model fixes it at %lld", i,
                        info->name, d, (long long)t->dims[d], (long long)info->dims[d]);
  }
  return ONYX_OK;
}

static onyx_status bind_input(const onyx_session *s, size_t i, const onyx_tensor *t, slot *sl,
                              onyx_error *err) {
  ONYX__TRY(check_input(s, i, t, err));
  size_t count;
  onyx_error shape_err;
  if (onyx__shape_count(t->dims, t->rank, &count, &shape_err) != ONYX_OK)
    return onyx__fail(err, ONYX_INPUT_SHAPE, "input %zu ('%s'): %s", i, s->input_info[i].name,
                      shape_err.message);
  size_t nbytes = count * onyx_dtype_size(t->dtype);
  if (count > 0 && t->data == NULL)
    return onyx__fail(err, ONYX_INPUT_MISSING, "input %zu ('%s'): data is NULL", i,
                      s->input_info[i].name);
  if (t->size < nbytes)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "input %zu ('%s'): size is %zu bytes; its shape needs %zu", i,
                      s->input_info[i].name, t->size, nbytes);
  sl->data = t->data;
  sl->dims = t->dims;
  sl->rank = t->rank;
  sl->count = count;
  sl->nbytes = nbytes;
  return ONYX_OK;
}

/* Reads Clip's run-time bounds into params. Each must hold one element. */
static onyx_status runtime_params(const onyx_session *s, const onyx__step *st, const slot *slots,
                                  onyx__kparams *params, onyx_error *err) {
  const void *bound[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++) {
    if (st->bound[i] < 0) continue;
    const slot *b = &slots[st->bound[i]];
    if (b->count != 1) {
      const onyx__node *node = &s->model->graph.nodes[st->node];
      return onyx__fail(err, ONYX_INPUT_SHAPE,
                        "node %u ('%s', Clip): input %d '%s' (the %s bound) holds %zu elements; "
                        "it must hold exactly one",
                        st->node, node->name, i + 1, node->inputs[i + 1], i ? "max" : "min",
                        b->count);
    }
    bound[i] = b->data;
  }
  onyx__clip_params(s->values[st->x].desc.dtype, bound[0], bound[1], params);
  return ONYX_OK;
}

static void release(slot *slots, size_t n_values, onyx_tensor *outputs, size_t n_outputs,
                    const bool *allocated) {
  for (size_t v = 0; v < n_values; v++)
    if (slots[v].owned) onyx__free(slots[v].data);
  for (size_t o = 0; o < n_outputs; o++)
    if (allocated[o]) {
      onyx__free(outputs[o].data);
      outputs[o].data = NULL;
      outputs[o].size = 0;
    }
}

onyx_status onyx_session_run(onyx_session *s, const onyx_tensor *inputs, size_t n_inputs,
                             onyx_tensor *outputs, size_t n_outputs, onyx_error *err) {
  if (s == NULL || (n_inputs > 0 && inputs == NULL) || (n_outputs > 0 && outputs == NULL))
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_session_run: NULL session, inputs or outputs");
  if (n_inputs < s->n_inputs)
    return onyx__fail(err, ONYX_INPUT_MISSING, "%zu inputs given; the model takes %zu (next: '%s')",
                      n_inputs, s->n_inputs, s->input_info[n_inputs].name);
  if (n_inputs > s->n_inputs)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "%zu inputs given; the model takes %zu", n_inputs,
                      s->n_inputs);
  if (n_outputs != s->n_outputs)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "%zu outputs given; the model has %zu", n_outputs,
                      s->n_outputs);

  slot *slots = onyx__calloc(s->n_values + 1, sizeof *slots);
  bool *allocated = onyx__calloc(n_outputs + 1, sizeof *allocated);
  if (slots == NULL || allocated == NULL) {
    onyx__free(slots);
    onyx__free(allocated);
    return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  }
  onyx_status st = ONYX_OK;

  /* 1. Shapes of every value, before anything is written. */
  for (size_t v = 0; v < s->n_values; v++) {
    slots[v].written = -1;
    const onyx__value_desc *d = &s->values[v].desc;
    if (s->values[v].kind == ONYX__VALUE_CONSTANT && d->constant != NULL) {
      slots[v].data = (void *)d->constant->data;
      slots[v].dims = d->constant->dims;
      slots[v].rank = d->constant->rank;
      slots[v].count = d->constant->count;
      slots[v].nbytes = d->constant->nbytes;
    }
  }
  for (size_t i = 0; i < s->n_inputs && st == ONYX_OK; i++)
    st = bind_input(s, i, &inputs[i], &slots[s->input_values[i]], err);
  for (size_t k = 0; k < s->n_steps && st == ONYX_OK; k++) {
    const onyx__step *step = &s->steps[k];
    slot *x = &slots[step->x], *y = &slots[step->y];
    y->dims = x->dims;
    y->rank = x->rank;
    y->count = x->count;
    y->nbytes = x->nbytes;
  }

  /* 2. Output buffers: the caller's, checked for size, or new ones. A step
   * whose output is a graph output writes straight into that buffer. */
  for (size_t o = 0; o < n_outputs && st == ONYX_OK; o++) {
    const slot *sl = &slots[s->output_values[o]];
    if (outputs[o].data != NULL && outputs[o].size < sl->nbytes)
      st = onyx__fail(err, ONYX_BUFFER_TOO_SMALL,
                      "output %zu ('%s'): the buffer has %zu bytes; %zu are needed", o,
                      s->output_info[o].name, outputs[o].size, sl->nbytes);
  }
  for (size_t o = 0; o < n_outputs && st == ONYX_OK; o++) {
    slot *sl = &slots[s->output_values[o]];
    if (outputs[o].data == NULL) {
      outputs[o].data = onyx__malloc(sl->nbytes ? sl->nbytes : 1);
      if (outputs[o].data == NULL) {
        st = onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory for output %zu", o);
        break;
      }
      outputs[o].size = sl->nbytes;
      allocated[o] = true;
    }
    if (s->values[s->output_values[o]].kind == ONYX__VALUE_COMPUTED && sl->written < 0) {
      sl->written = (int32_t)o;
      sl->data = outputs[o].data;
    }
  }
  for (size_t k = 0; k < s->n_steps && st == ONYX_OK; k++) {
    slot *y = &slots[s->steps[k].y];
    if (y->written >= 0) continue;
    y->data = onyx__malloc(y->nbytes ? y->nbytes : 1);
    if (y->data == NULL) {
      st = onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory for an intermediate value");
      break;
    }
    y->owned = true;
  }

  /* 3. The steps, in order. */
  for (size_t k = 0; k < s->n_steps && st == ONYX_OK; k++) {
    const onyx__step *step = &s->steps[k];
    const slot *x = &slots[step->x];
    onyx__kparams params = step->prep.params;
    if (step->bound[0] >= 0 || step->bound[1] >= 0) {
      st = runtime_params(s, step, slots, &params, err);
      if (st != ONYX_OK) break;
    }
    if (x->count > 0) step->prep.kernel(x->count, x->data, slots[step->y].data, &params);
  }

  /* 4. Outputs no step wrote directly: inputs, constants, repeats. */
  for (size_t o = 0; o < n_outputs && st == ONYX_OK; o++) {
    const slot *sl = &slots[s->output_values[o]];
    if (sl->written != (int32_t)o && sl->nbytes > 0) memcpy(outputs[o].data, sl->data, sl->nbytes);
    outputs[o].dtype = s->values[s->output_values[o]].desc.dtype;
    outputs[o].rank = sl->rank;
    memset(outputs[o].dims, 0, sizeof outputs[o].dims);
    if (sl->rank > 0) memcpy(outputs[o].dims, sl->dims, sizeof(int64_t) * sl->rank);
    outputs[o].size = sl->nbytes;
  }

  if (st != ONYX_OK) {
    release(slots, s->n_values, outputs, n_outputs, allocated);
  } else {
    for (size_t v = 0; v < s->n_values; v++)
      if (slots[v].owned) onyx__free(slots[v].data);
  }
  onyx__free(slots);
  onyx__free(allocated);
  return st;
}
