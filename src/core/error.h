/* SPDX-License-Identifier: MIT */
/* Error reporting shared by every part of the library. */
#ifndef ONYX_CORE_ERROR_H
#define ONYX_CORE_ERROR_H

#include "onyx.h"

#if defined(__MINGW32__) /* its "printf" format is msvcrt's, without %zu */
#define ONYX__PRINTF(a, b) __attribute__((format(gnu_printf, a, b)))
#elif defined(__GNUC__)
#define ONYX__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ONYX__PRINTF(a, b)
#endif

/*
 * Records status and a formatted message in err (which may be NULL) and
 * returns status, so that failing paths read `return onyx__fail(err, ...)`.
 * The message is truncated to fit; it never allocates.
 */
onyx_status onyx__fail(onyx_error *err, onyx_status status, const char *fmt, ...)
    ONYX__PRINTF(3, 4);

/*
 * Prefixes the message already in err with a context string, e.g. the file
 * name, so that inner layers need not know it. Does nothing if err is NULL.
 */
void onyx__error_prefix(onyx_error *err, const char *fmt, ...) ONYX__PRINTF(2, 3);

/*
 * A reduced build with ONYX_OMIT_MESSAGES (docs/build-config.md) keeps the
 * statuses and leaves the message text out: the calls above become inline
 * sinks that ignore the format and its arguments, so the compiler drops the
 * strings and the code that passes them, and err->message is one fixed
 * sentence saying so. (A sink function, not (void)sizeof, so that no
 * argument trips -Wunused-value.)
 */
#ifdef ONYX_BUILD_CONFIG_REDUCED
#include "onyx_build_config.h"
#endif
#ifdef ONYX_OMIT_MESSAGES
void onyx__fail_status(onyx_error *err, onyx_status status);
/* Returns status itself, so that the compiler sees the failure (and that
 * what a failing call leaves unset is not used). */
static inline ONYX__PRINTF(3, 4) onyx_status
    onyx__fail_sink(onyx_error *err, onyx_status status, const char *fmt, ...) {
  (void)fmt;
  onyx__fail_status(err, status);
  return status;
}
static inline ONYX__PRINTF(2, 3) void onyx__error_prefix_sink(onyx_error *err, const char *fmt,
                                                              ...) {
  (void)err, (void)fmt;
}
#define onyx__fail(err, ...)         onyx__fail_sink((err), __VA_ARGS__)
#define onyx__error_prefix(err, ...) onyx__error_prefix_sink((err), __VA_ARGS__)
#endif

#define ONYX__TRY(expr)                         \
  do {                                          \
    onyx_status onyx__st_ = (expr);             \
    if (onyx__st_ != ONYX_OK) return onyx__st_; \
  } while (0)

#endif
