/* SPDX-License-Identifier: MIT */
/*
 * Printing values: one element as text (the shortest form that reads back
 * the same, as numpy prints it), and a whole tensor in numpy's nested
 * brackets, summarized with "..." past SUMMARY_THRESHOLD elements.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "onyx.h"

/* Printing: more elements than this are summarized with "...", showing
 * EDGE_ITEMS items at each end of every long axis (numpy's defaults). */
#define SUMMARY_THRESHOLD 1000u
#define EDGE_ITEMS        3

static void format_real(char *buf, size_t cap, double v, int precision) {
  if (isnan(v))
    snprintf(buf, cap, "nan");
  else if (isinf(v))
    snprintf(buf, cap, v < 0 ? "-inf" : "inf");
  else
    snprintf(buf, cap, "%.*g", precision, v); /* -0 prints as "-0" */
}

uint64_t cli_load_bits(const unsigned char *p, size_t size) {
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;
  switch (size) {
    case 1:
      memcpy(&u8, p, sizeof u8);
      return u8;
    case 2:
      memcpy(&u16, p, sizeof u16);
      return u16;
    case 4:
      memcpy(&u32, p, sizeof u32);
      return u32;
    default:
      memcpy(&u64, p, sizeof u64);
      return u64;
  }
}

/* The value of a size-byte two's complement bit pattern, without relying
 * on implementation-defined conversions. */
static int64_t to_signed(uint64_t u, size_t size) {
  uint64_t sign = (uint64_t)1 << (8 * size - 1);
  if (!(u & sign)) return (int64_t)u;
  uint64_t extended = u | ~((sign << 1) - 1); /* for size 8, (sign << 1) - 1 is all ones */
  return -(int64_t)~extended - 1;
}

/* Formats a float element with the digits that read back the same value. */
static void format_float(char *buf, size_t cap, onyx_dtype dt, uint64_t bits) {
  float f;
  double d;
  switch (dt) {
    case ONYX_DTYPE_FLOAT: {
      uint32_t u = (uint32_t)bits;
      memcpy(&f, &u, sizeof f);
      format_real(buf, cap, f, 9);
      return;
    }
    case ONYX_DTYPE_DOUBLE:
      memcpy(&d, &bits, sizeof d);
      format_real(buf, cap, d, 17);
      return;
    case ONYX_DTYPE_FLOAT16:
      format_real(buf, cap, onyx_f16_to_float((uint16_t)bits), 5);
      return;
    default: /* bfloat16 */
      format_real(buf, cap, onyx_bf16_to_float((uint16_t)bits), 5);
      return;
  }
}

/* Formats the element at p (little-endian, any alignment) of type dt. */
void cli_format_value(char *buf, size_t cap, onyx_dtype dt, const unsigned char *p) {
  size_t size = onyx_dtype_size(dt);
  uint64_t bits = size ? cli_load_bits(p, size) : 0;
  switch (dt) {
    case ONYX_DTYPE_FLOAT:
    case ONYX_DTYPE_DOUBLE:
    case ONYX_DTYPE_FLOAT16:
    case ONYX_DTYPE_BFLOAT16:
      format_float(buf, cap, dt, bits);
      return;
    case ONYX_DTYPE_INT8:
    case ONYX_DTYPE_INT16:
    case ONYX_DTYPE_INT32:
    case ONYX_DTYPE_INT64:
      snprintf(buf, cap, "%" PRId64, to_signed(bits, size));
      return;
    case ONYX_DTYPE_UINT8:
    case ONYX_DTYPE_UINT16:
    case ONYX_DTYPE_UINT32:
    case ONYX_DTYPE_UINT64:
      snprintf(buf, cap, "%" PRIu64, bits);
      return;
    default:
      snprintf(buf, cap, "?");
      return;
  }
}

/* Formats the element's bit pattern as hexadecimal (little-endian read). */
void cli_format_bits(char *buf, size_t cap, const unsigned char *p, size_t esize) {
  uint64_t u = 0;
  for (size_t i = esize; i-- > 0;) u = (u << 8) | p[i];
  snprintf(buf, cap, "0x%0*" PRIx64, (int)(esize * 2), u);
}

/* Appends "[d0, d1, ...]" to sb. */
void cli_sb_dims(cli_strbuf *sb, uint32_t rank, const int64_t *dims) {
  cli_sb_printf(sb, "[");
  for (uint32_t i = 0; i < rank && i < ONYX_MAX_RANK; i++)
    cli_sb_printf(sb, "%s%" PRId64, i ? ", " : "", dims[i]);
  cli_sb_printf(sb, "]");
}

/* ---- Printing a tensor like numpy --------------------------------------- */

typedef struct printer {
  FILE *out;
  const onyx_tensor *t;
  const unsigned char *data;
  size_t esize;
  size_t strides[ONYX_MAX_RANK]; /* in elements */
  int summarize;
  int measuring; /* 1: only compute width; 0: print */
  size_t width;  /* widest element printed */
} printer;

static void pr_put(printer *p, const char *s) {
  if (!p->measuring) fputs(s, p->out);
}

static void pr_elem(printer *p, size_t index) {
  char buf[CLI_VALUE_CHARS];
  cli_format_value(buf, sizeof buf, p->t->dtype, p->data + index * p->esize);
  size_t len = strlen(buf);
  if (p->measuring) {
    if (len > p->width) p->width = len;
    return;
  }
  for (size_t i = len; i < p->width; i++) fputc(' ', p->out);
  fputs(buf, p->out);
}

/* Separator between items of axis `axis`: ", " on the last axis, else a
 * line break, one blank line per axis below the next, and an indent. */
static void pr_sep(printer *p, uint32_t axis) {
  if (p->measuring) return;
  uint32_t rank = p->t->rank;
  if (axis + 1 == rank) {
    fputs(", ", p->out);
    return;
  }
  fputs(",\n", p->out);
  for (uint32_t i = axis + 2; i < rank; i++) fputc('\n', p->out);
  for (uint32_t i = 0; i <= axis; i++) fputc(' ', p->out);
}

static void pr_axis(printer *p, uint32_t axis, size_t base) {
  size_t n = (size_t)p->t->dims[axis];
  pr_put(p, "[");
  for (size_t i = 0; i < n; i++) {
    if (p->summarize && n > 2 * EDGE_ITEMS && i == EDGE_ITEMS) {
      pr_put(p, "...");
      pr_sep(p, axis);
      i = n - EDGE_ITEMS;
    }
    if (axis + 1 == p->t->rank)
      pr_elem(p, base + i);
    else
      pr_axis(p, axis + 1, base + i * p->strides[axis]);
    if (i + 1 < n) pr_sep(p, axis);
  }
  pr_put(p, "]");
}

/* Prints the values of t (header excluded) followed by a newline. */
void cli_print_values(FILE *out, const onyx_tensor *t) {
  printer p;
  memset(&p, 0, sizeof p);
  p.out = out;
  p.t = t;
  p.data = t->data;
  p.esize = onyx_dtype_size(t->dtype);
  int ok;
  size_t count = cli_element_count(t, &ok);
  if (!ok || p.esize == 0 || t->rank > ONYX_MAX_RANK ||
      (count > 0 && (!t->data || count > t->size / p.esize))) {
    fprintf(out, "<values unavailable>\n");
    return;
  }
  if (t->rank == 0) {
    pr_elem(&p, 0);
    fputc('\n', out);
    return;
  }
  size_t stride = 1;
  for (uint32_t i = t->rank; i-- > 0;) {
    p.strides[i] = stride;
    stride *= (size_t)t->dims[i];
  }
  p.summarize = count > SUMMARY_THRESHOLD;
  p.measuring = 1;
  pr_axis(&p, 0, 0);
  p.measuring = 0;
  pr_axis(&p, 0, 0);
  fputc('\n', out);
}
