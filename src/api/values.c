/* SPDX-License-Identifier: MIT */
/* Every named value of a session, as the caller reads it: what the session
 * knows at creation about each one's type and shape (include/onyx.h,
 * onyx_session_value_info()). */
#include <string.h>

#include "core/error.h"
#include "graph/session.h"

size_t onyx_session_value_count(const onyx_session *session) {
  return session ? session->n_values : 0;
}

onyx_status onyx_session_value_info(const onyx_session *session, size_t index, onyx_value_info *out,
                                    onyx_error *err) {
  if (session == NULL || out == NULL || index >= session->n_values)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_session_value_info: no value %zu", index);
  const onyx__value *v = &session->values[index];
  if (v->kind == ONYX__VALUE_INPUT) {
    *out = session->input_info[v->input_index];
    return ONYX_OK;
  }
  const onyx__value_desc *d = &v->desc;
  memset(out, 0, sizeof *out);
  out->name = v->name;
  out->dtype = d->dtype;
  out->has_shape = d->has_shape;
  if (d->has_shape) {
    out->rank = d->rank;
    memcpy(out->dims, d->dims, sizeof out->dims);
    onyx__value_dim_names(session, (int32_t)index, out);
  }
  return ONYX_OK;
}
