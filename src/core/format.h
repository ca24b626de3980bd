/* SPDX-License-Identifier: MIT */
/*
 * The library's own snprintf, for its messages. C libraries for small
 * targets differ in what their printf knows: Debian's newlib prints "zu"
 * for %zu, and newlib-nano has no %lld either. With this one, messages
 * read the same everywhere, and a firmware that prints nothing links no
 * printf at all.
 */
#ifndef ONYX_CORE_FORMAT_H
#define ONYX_CORE_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

#include "core/error.h"

/*
 * Like vsnprintf for the conversions onyx's messages use: %d %i %u %x with
 * no length modifier or l, ll or z, %c, %s with an optional precision (.N
 * or .*), and %%. No flags or widths: a conversion it does not know is
 * copied as it stands. Writes at most cap bytes, NUL included (nothing
 * when cap is 0); returns the length the whole text would have.
 */
int onyx__vformat(char *buf, size_t cap, const char *fmt, va_list ap);
int onyx__format(char *buf, size_t cap, const char *fmt, ...) ONYX__PRINTF(3, 4);

/* With ONYX_OMIT_MESSAGES (core/error.h) the parts of messages made here
 * are left out too: an empty text, and the formatter is not linked. */
#ifdef ONYX_OMIT_MESSAGES
static inline ONYX__PRINTF(3, 4) int onyx__format_sink(char *buf, size_t cap, const char *fmt,
                                                       ...) {
  (void)fmt;
  if (cap > 0) buf[0] = '\0';
  return 0;
}
#define onyx__format(buf, cap, ...) onyx__format_sink((buf), (cap), __VA_ARGS__)
#endif

#endif
