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
#include "core/half.h"
#include "onyx.h"

/* Printing: more elements than this are summarized with "...", showing
 * EDGE_ITEMS items at each end of every long axis (numpy's defaults). */
#define SUMMARY_THRESHOLD 1000u
#define EDGE_ITEMS 3

static void format_real(char *buf, size_t cap, double v, int precision) {
  if (isnan(v))
    snprintf(buf, cap, "nan");
  else if (isinf(v))
    snprintf(buf, cap, v < 0 ? "-inf" : "inf");
  else
    snprintf(buf, cap, "%.*g", precision, v); /* -0 prints as "-0" */
}

/* Formats the element at p (little-endian, any alignment) of type dt. */
void cli_format_value(char *buf, size_t cap, onyx_dtype dt, const unsigned char *p) {
  switch (dt) {
  case ONYX_DTYPE_FLOAT: {
    float v;
    memcpy(&v, p, sizeof v);
    format_real(buf, cap, v, 9);
    return;
  }
  case ONYX_DTYPE_DOUBLE: {
    double v;
    memcpy(&v, p, sizeof v);
    format_real(buf, cap, v, 17);
    return;
  }
  case ONYX_DTYPE_FLOAT16: {
    onyx_f16 h;
    memcpy(&h.bits, p, sizeof h.bits);
    format_real(buf, cap, onyx__f16_to_f32(h), 5);
    return;
  }
  case ONYX_DTYPE_BFLOAT16: {
    onyx_bf16 b;
    memcpy(&b.bits, p, sizeof b.bits);
    format_real(buf, cap, onyx__bf16_to_f32(b), 5);
    return;
  }
  case ONYX_DTYPE_INT8: {
    int8_t v;
    memcpy(&v, p, sizeof v);
    snprintf(buf, cap, "%" PRId64, (int64_t)v);
    return;
  }
  case ONYX_DTYPE_INT16: {
    int16_t v;
    memcpy(&v, p, sizeof v);
    snprintf(buf, cap, "%" PRId64, (int64_t)v);
    return;
  }
  case ONYX_DTYPE_INT32: {
    int32_t v;
    memcpy(&v, p, sizeof v);
    snprintf(buf, cap, "%" PRId64, (int64_t)v);
    return;
  }
  case ONYX_DTYPE_INT64: {
    int64_t v;
    memcpy(&v, p, sizeof v);
    snprintf(buf, cap, "%" PRId64, v);
    return;
  }
  case ONYX_DTYPE_UINT8: {
    uint8_t v;
    memcpy(&v, p, sizeof v);
    snprintf(buf, cap, "%" PRIu64, (uint64_t)v);
    return;
  }
  case ONYX_DTYPE_UINT16: {
    uint16_t v;
    memcpy(&v, p, sizeof v);
    snprintf(buf, cap, "%" PRIu64, (uint64_t)v);
    return;
  }
  case ONYX_DTYPE_UINT32: {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    snprintf(buf, cap, "%" PRIu64, (uint64_t)v);
    return;
  }
  case ONYX_DTYPE_UINT64: {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    snprintf(buf, cap, "%" PRIu64, v);
    return;
  }
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

