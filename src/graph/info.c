/* SPDX-License-Identifier: MIT */
/*
 * What a session says of its values (include/onyx.h): its inputs and
 * outputs as declared or computed, and every named value as creation left
 * it, symbolic names included. The one file outside session creation that
 * reads the session's values; each public call is a bounds check and a
 * copy.
 */
#include <string.h>

#include "core/error.h"
#include "graph/session.h"

size_t onyx_session_input_count(const onyx_session *session) {
  return session ? session->n_inputs : 0;
}

size_t onyx_session_output_count(const onyx_session *session) {
  return session ? session->n_outputs : 0;
}

size_t onyx_session_value_count(const onyx_session *session) {
  return session ? session->n_values : 0;
}

onyx_status onyx_session_input_info(const onyx_session *session, size_t index, onyx_value_info *out,
                                    onyx_error *err) {
  if (session == NULL || out == NULL || index >= session->n_inputs)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_session_input_info: no input %zu", index);
  onyx__info_from_decl(out, session->input_decl[index]);
  return ONYX_OK;
}

onyx_status onyx_session_output_info(const onyx_session *session, size_t index,
                                     onyx_value_info *out, onyx_error *err) {
  if (session == NULL || out == NULL || index >= session->n_outputs)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_session_output_info: no output %zu", index);
  onyx__output_info(session, index, out);
  return ONYX_OK;
}

void onyx__info_from_decl(onyx_value_info *info, const onyx__value_info *vi) {
  memset(info, 0, sizeof *info);
  info->name = vi->name;
  info->dtype = vi->dtype;
  info->has_shape = vi->has_shape;
  info->rank = vi->rank;
  for (uint32_t d = 0; d < vi->rank; d++) {
    info->dims[d] = vi->dims[d];
    info->dim_names[d] = vi->dim_params[d];
  }
}

/* Creation checked the declaration against the computed value
 * (onyx__plan_outputs), so a declared shape is the better one: it keeps
 * the model's dimension names. */
void onyx__output_info(const onyx_session *s, size_t o, onyx_value_info *info) {
  const onyx__value_info *out = &s->model->graph.outputs[o];
  if (out->has_type && out->has_shape) {
    onyx__info_from_decl(info, out);
    return;
  }
  int32_t v = (int32_t)s->output_values[o];
  const onyx__value_desc *d = &s->values[v].desc;
  memset(info, 0, sizeof *info);
  info->name = out->name;
  info->dtype = d->dtype;
  info->has_shape = d->has_shape && !d->provisional;
  if (info->has_shape) {
    info->rank = d->rank;
    memcpy(info->dims, d->dims, sizeof d->dims);
    onyx__value_dim_names(s, v, info);
  }
}

void onyx__value_dim_names(const onyx_session *s, int32_t v, onyx_value_info *info) {
  const uint16_t *row = onyx__dim_name_row(s, v);
  for (uint32_t d = 0; row != NULL && d < info->rank && d < ONYX_MAX_RANK; d++)
    info->dim_names[d] = row[d] != 0 ? s->dim_names[row[d] - 1] : NULL;
}

/* Value v as creation left it: a graph input as the caller binds it (its
 * declaration), any other value from its description and name row. */
static void value_info(const onyx_session *s, size_t v, onyx_value_info *out) {
  const onyx__value *val = &s->values[v];
  if (val->kind == ONYX__VALUE_INPUT) {
    onyx__info_from_decl(out, s->input_decl[val->input_index]);
    return;
  }
  const onyx__value_desc *d = &val->desc;
  memset(out, 0, sizeof *out);
  out->name = val->name;
  out->dtype = d->dtype;
  out->has_shape = d->has_shape;
  if (d->has_shape) {
    out->rank = d->rank;
    memcpy(out->dims, d->dims, sizeof out->dims);
    onyx__value_dim_names(s, (int32_t)v, out);
  }
}

onyx_status onyx_session_value_info(const onyx_session *session, size_t index, onyx_value_info *out,
                                    onyx_error *err) {
  if (session == NULL || out == NULL || index >= session->n_values)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_session_value_info: no value %zu", index);
  value_info(session, index, out);
  return ONYX_OK;
}
