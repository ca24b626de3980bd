/* SPDX-License-Identifier: MIT */
#include "core/error.h"
#include "core/format.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifdef ONYX_OMIT_MESSAGES
void onyx__fail_status(onyx_error *err, onyx_status status) {
  static const char text[] = "this build leaves messages out (ONYX_OMIT_MESSAGES)";
  if (err != NULL) {
    err->status = status;
    memcpy(err->message, text, sizeof text);
  }
}
#undef onyx__fail
#undef onyx__error_prefix
#endif

onyx_status onyx__fail(onyx_error *err, onyx_status status, const char *fmt, ...) {
  if (err != NULL) {
    va_list ap;
    va_start(ap, fmt);
    err->status = status;
    onyx__vformat(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return status;
}

void onyx__error_prefix(onyx_error *err, const char *fmt, ...) {
  if (err == NULL) return;
  char prefix[256];
  char old[sizeof err->message];
  va_list ap;
  va_start(ap, fmt);
  onyx__vformat(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, err->message, sizeof old);
  old[sizeof old - 1] = '\0';
  /* Compose "prefix: old" by hand: the message is meant to be cut when it
   * does not fit, which snprintf warnings would flag. */
  size_t cap = sizeof err->message - 1, n = 0;
  const char *parts[3] = {prefix, ": ", old};
  for (int i = 0; i < 3 && n < cap; i++) {
    size_t len = strlen(parts[i]);
    if (len > cap - n) len = cap - n;
    memcpy(err->message + n, parts[i], len);
    n += len;
  }
  err->message[n] = '\0';
}

const char *onyx_status_name(onyx_status status) {
  switch (status) {
#define ONYX_X_(name, value, desc) \
  case ONYX_##name:                \
    return "ONYX_" #name;
    ONYX_STATUS_MAP(ONYX_X_)
#undef ONYX_X_
  }
  return "ONYX_UNKNOWN_STATUS";
}

const char *onyx_status_description(onyx_status status) {
  switch (status) {
#define ONYX_X_(name, value, desc) \
  case ONYX_##name:                \
    return desc;
    ONYX_STATUS_MAP(ONYX_X_)
#undef ONYX_X_
  }
  return "unknown status";
}

const char *onyx_version(void) {
#define ONYX_STR2_(x) #x
#define ONYX_STR_(x)  ONYX_STR2_(x)
  return ONYX_STR_(ONYX_VERSION_MAJOR) "." ONYX_STR_(ONYX_VERSION_MINOR) "." ONYX_STR_(
      ONYX_VERSION_PATCH);
}
