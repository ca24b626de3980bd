/* SPDX-License-Identifier: MIT */
#include "core/format.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#undef onyx__format /* defined here in every build (format.h) */

typedef struct out {
  char *buf;
  size_t cap, n; /* n counts every character, written or not */
} out;

static void put(out *o, char c) {
  if (o->n + 1 < o->cap) o->buf[o->n] = c;
  o->n++;
}

static void put_str(out *o, const char *s, size_t max) {
  if (s == NULL) s = "(null)";
  for (size_t i = 0; i < max && s[i] != '\0'; i++) put(o, s[i]);
}

static void put_number(out *o, unsigned long long v, unsigned base, bool negative) {
  char digits[24]; /* 2^64 has 20 decimal digits */
  size_t k = 0;
  do {
    digits[k++] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v != 0);
  if (negative) put(o, '-');
  while (k > 0) put(o, digits[--k]);
}

/* The precision at *p (after a '.'), advancing *p past it. */
static size_t precision(const char **p, va_list *ap) {
  if (**p == '*') {
    (*p)++;
    int v = va_arg(*ap, int);
    return v < 0 ? SIZE_MAX : (size_t)v;
  }
  size_t v = 0;
  while (**p >= '0' && **p <= '9') v = v * 10 + (size_t)(*(*p)++ - '0');
  return v;
}

/* One integer conversion c with length modifier len ('\0', 'l', 'L' for
 * ll, 'z'). */
static void put_integer(out *o, char c, char len, va_list *ap) {
  if (c == 'd' || c == 'i') {
    long long v = len == 'L'   ? va_arg(*ap, long long)
                  : len == 'l' ? va_arg(*ap, long)
                  : len == 'z' ? (long long)va_arg(*ap, ptrdiff_t)
                               : va_arg(*ap, int);
    /* The magnitude of LLONG_MIN does not fit a long long. */
    unsigned long long m = v < 0 ? (unsigned long long)-(v + 1) + 1 : (unsigned long long)v;
    put_number(o, m, 10, v < 0);
    return;
  }
  unsigned long long v = len == 'L'   ? va_arg(*ap, unsigned long long)
                         : len == 'l' ? va_arg(*ap, unsigned long)
                         : len == 'z' ? va_arg(*ap, size_t)
                                      : va_arg(*ap, unsigned);
  put_number(o, v, c == 'x' ? 16 : 10, false);
}

int onyx__vformat(char *buf, size_t cap, const char *fmt, va_list ap) {
  out o = {buf, cap, 0};
  va_list args;
  va_copy(args, ap);
  for (const char *p = fmt; *p != '\0'; p++) {
    const char *start = p;
    if (*p != '%') {
      put(&o, *p);
      continue;
    }
    p++;
    size_t prec = SIZE_MAX;
    if (*p == '.') p++, prec = precision(&p, &args);
    char len = '\0';
    if (*p == 'l' || *p == 'z') len = *p++;
    if (len == 'l' && *p == 'l') len = 'L', p++;
    if (*p == 'd' || *p == 'i' || *p == 'u' || *p == 'x') {
      put_integer(&o, *p, len, &args);
    } else if (*p == 's') {
      put_str(&o, va_arg(args, const char *), prec);
    } else if (*p == 'c') {
      put(&o, (char)va_arg(args, int));
    } else if (*p == '%' && p == start + 1) {
      put(&o, '%');
    } else { /* unknown: copy it, stopping at the end of fmt */
      for (const char *q = start; q <= p && *q != '\0'; q++) put(&o, *q);
      if (*p == '\0') break;
    }
  }
  va_end(args);
  if (cap > 0) buf[o.n < cap ? o.n : cap - 1] = '\0';
  return o.n > INT_MAX ? INT_MAX : (int)o.n;
}

int onyx__format(char *buf, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = onyx__vformat(buf, cap, fmt, ap);
  va_end(ap);
  return n;
}
