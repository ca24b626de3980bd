/*
 * The onyx command: runs a model once (on .pb or .npy inputs), runs ONNX
 * backend-test folders, describes a model, or times it (bench.c). It uses
 * only the public API in onyx.h, plus the float16/bfloat16 conversions of
 * core/half.h to print half-float values; npy.c reads and writes numpy's
 * .npy files.
 *
 * Exit codes: 0 success, 1 a test case failed (or none was found), 2 a usage
 * error, 3 an onyx or I/O error. Every error is one line on stderr of the form
 * "onyx: FILE: message".
 *
 * Memory: nothing is kept in fixed-size buffers that a long name or path could
 * overflow; paths and messages are built on the heap, and every allocation is
 * freed on success and error paths alike.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli.h"
#include "core/half.h"
#include "npy.h"
#include "onyx.h"

/* Printing: more elements than this are summarized with "...", showing
 * EDGE_ITEMS items at each end of every long axis (numpy's defaults). */
#define SUMMARY_THRESHOLD 1000u
#define EDGE_ITEMS 3

/* Enough for any single formatted element ("%.17g" of a double, an int64,
 * or a hexadecimal bit pattern). Only ever written with snprintf. */
#define VALUE_CHARS 64

/* ---- Small helpers ------------------------------------------------------ */

void cli_error_oom(void) { fprintf(stderr, "onyx: out of memory\n"); }

/* Text that needs escaping is copied into one of a few slots per thread, so
 * that one printf can show several names; each slot keeps the largest copy
 * it held until cli_esc_release. */
#define ESC_SLOTS 8

static _Thread_local struct esc_slot {
  char *text;
  size_t cap;
} esc_slots[ESC_SLOTS];
static _Thread_local unsigned esc_next;

/* Whether byte c is printed as an escape: anything outside printable ASCII,
 * and the backslash that starts an escape. */
static int needs_escape(unsigned char c) { return c < 0x20 || c > 0x7e || c == '\\'; }

const char *cli_esc_n(const char *s, size_t len) {
  size_t need = 1;
  for (size_t i = 0; i < len; i++)
    need += needs_escape((unsigned char)s[i]) ? (s[i] == '\\' ? 2 : 4) : 1;
  struct esc_slot *slot = &esc_slots[esc_next++ % ESC_SLOTS];
  if (need > slot->cap) {
    char *text = realloc(slot->text, need);
    if (!text) return "<out of memory>";
    slot->text = text;
    slot->cap = need;
  }
  char *o = slot->text;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!needs_escape(c)) {
      *o++ = (char)c;
    } else if (c == '\\') {
      *o++ = '\\';
      *o++ = '\\';
    } else {
      o += snprintf(o, 5, "\\x%02x", c);
    }
  }
  *o = '\0';
  return slot->text;
}

const char *cli_esc(const char *s) {
  if (!s) return "";
  size_t len = 0;
  int clean = 1;
  for (; s[len]; len++)
    if (needs_escape((unsigned char)s[len])) clean = 0;
  return clean ? s : cli_esc_n(s, len);
}

void cli_esc_release(void) {
  for (unsigned i = 0; i < ESC_SLOTS; i++) {
    free(esc_slots[i].text);
    esc_slots[i].text = NULL;
    esc_slots[i].cap = 0;
  }
}

/* The message of a failed call, without a leading "FILE: " when it already
 * names file (so that lines do not repeat the path). */
static const char *error_text(const char *file, onyx_status st, const onyx_error *err) {
  if (!err || !err->message[0]) return onyx_status_description(st);
  const char *msg = err->message;
  size_t len = file ? strlen(file) : 0;
  if (len && strncmp(msg, file, len) == 0 && msg[len] == ':' && msg[len + 1] == ' ')
    msg += len + 2;
  return msg[0] ? msg : onyx_status_description(st);
}

/* Reports a failed onyx call: "onyx: FILE: message (ONYX_STATUS)". */
void cli_report(const char *file, onyx_status st, const onyx_error *err) {
  fprintf(stderr, "onyx: %s: %s (%s)\n", cli_esc(file), cli_esc(error_text(file, st, err)),
          onyx_status_name(st));
}

void cli_reset_error(onyx_error *err) {
  err->status = ONYX_OK;
  err->message[0] = '\0';
}

/* Returns a new string "a/b" (no doubled '/'), or NULL when out of memory. */
static char *path_join(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  int slash = la > 0 && a[la - 1] != '/';
  char *p = malloc(la + (size_t)slash + lb + 1);
  if (!p) return NULL;
  memcpy(p, a, la);
  if (slash) p[la] = '/';
  memcpy(p + la + (size_t)slash, b, lb + 1);
  return p;
}

/* Returns a new string formatted like printf, or NULL when out of memory. */
static char *str_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return NULL;
  char *s = malloc((size_t)n + 1);
  if (!s) return NULL;
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

/* A growable string. Once an allocation fails, oom is set and later appends
 * do nothing; the text stays NUL-terminated whenever data is not NULL. */
typedef struct strbuf {
  char *data;
  size_t len, cap;
  int oom;
} strbuf;

static void sb_printf(strbuf *sb, const char *fmt, ...) {
  if (sb->oom) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) {
    sb->oom = 1;
    return;
  }
  size_t need = sb->len + (size_t)n + 1;
  if (need > sb->cap) {
    size_t cap = sb->cap ? sb->cap : 128;
    while (cap < need) cap *= 2;
    char *d = realloc(sb->data, cap);
    if (!d) {
      sb->oom = 1;
      return;
    }
    sb->data = d;
    sb->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  sb->len += (size_t)n;
}

static const char *sb_str(const strbuf *sb) {
  if (sb->oom) return "out of memory";
  return sb->data ? sb->data : "";
}

static void sb_free(strbuf *sb) {
  free(sb->data);
  sb->data = NULL;
  sb->len = sb->cap = 0;
  sb->oom = 0;
}

/* Number of elements of t, or 0 with *ok = 0 on overflow or a negative dim. */
static size_t element_count(const onyx_tensor *t, int *ok) {
  size_t n = 1;
  *ok = 1;
  for (uint32_t i = 0; i < t->rank && i < ONYX_MAX_RANK; i++) {
    if (t->dims[i] < 0) {
      *ok = 0;
      return 0;
    }
    uint64_t d = (uint64_t)t->dims[i];
    if (d != 0 && n > SIZE_MAX / d) {
      *ok = 0;
      return 0;
    }
    n *= (size_t)d;
  }
  return n;
}

static int is_float_type(onyx_dtype dt) {
  return dt == ONYX_DTYPE_FLOAT || dt == ONYX_DTYPE_DOUBLE || dt == ONYX_DTYPE_FLOAT16 ||
         dt == ONYX_DTYPE_BFLOAT16;
}

/* ---- Element values ----------------------------------------------------- */

static void format_real(char *buf, size_t cap, double v, int precision) {
  if (isnan(v))
    snprintf(buf, cap, "nan");
  else if (isinf(v))
    snprintf(buf, cap, v < 0 ? "-inf" : "inf");
  else
    snprintf(buf, cap, "%.*g", precision, v); /* -0 prints as "-0" */
}

/* Formats the element at p (little-endian, any alignment) of type dt. */
static void format_value(char *buf, size_t cap, onyx_dtype dt, const unsigned char *p) {
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

/* Whether the element at p of a float type dt is a NaN. */
static int is_nan_value(onyx_dtype dt, const unsigned char *p) {
  switch (dt) {
  case ONYX_DTYPE_FLOAT: {
    uint32_t u;
    memcpy(&u, p, sizeof u);
    return (u & 0x7fffffffu) > 0x7f800000u;
  }
  case ONYX_DTYPE_DOUBLE: {
    uint64_t u;
    memcpy(&u, p, sizeof u);
    return (u & 0x7fffffffffffffffu) > 0x7ff0000000000000u;
  }
  case ONYX_DTYPE_FLOAT16: {
    uint16_t u;
    memcpy(&u, p, sizeof u);
    return (u & 0x7fffu) > 0x7c00u;
  }
  case ONYX_DTYPE_BFLOAT16: {
    uint16_t u;
    memcpy(&u, p, sizeof u);
    return (u & 0x7fffu) > 0x7f80u;
  }
  default:
    return 0;
  }
}

/* Formats the element's bit pattern as hexadecimal (little-endian read). */
static void format_bits(char *buf, size_t cap, const unsigned char *p, size_t esize) {
  uint64_t u = 0;
  for (size_t i = esize; i-- > 0;) u = (u << 8) | p[i];
  snprintf(buf, cap, "0x%0*" PRIx64, (int)(esize * 2), u);
}

/* Appends "[d0, d1, ...]" to sb. */
static void sb_dims(strbuf *sb, uint32_t rank, const int64_t *dims) {
  sb_printf(sb, "[");
  for (uint32_t i = 0; i < rank && i < ONYX_MAX_RANK; i++)
    sb_printf(sb, "%s%" PRId64, i ? ", " : "", dims[i]);
  sb_printf(sb, "]");
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
  char buf[VALUE_CHARS];
  format_value(buf, sizeof buf, p->t->dtype, p->data + index * p->esize);
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
static void print_values(FILE *out, const onyx_tensor *t) {
  printer p;
  memset(&p, 0, sizeof p);
  p.out = out;
  p.t = t;
  p.data = t->data;
  p.esize = onyx_dtype_size(t->dtype);
  int ok;
  size_t count = element_count(t, &ok);
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

/* ---- Command-line parsing ----------------------------------------------- */

/* Which options each command accepts. */
enum {
  OPT_THREADS = 1 << 0,
  OPT_ISA = 1 << 1,
  OPT_INPUT = 1 << 2,
  OPT_OUTPUT_DIR = 1 << 3,
  OPT_VERBOSE = 1 << 4,
  OPT_FORMAT = 1 << 5,
  OPT_SHAPE = 1 << 6,
  OPT_WARMUP = 1 << 7,
  OPT_RUNS = 1 << 8,
  OPT_DURATION = 1 << 9,
  OPT_PER_NODE = 1 << 10,
  OPT_PROGRESS = 1 << 11,
};

void cli_usage_error(const char *command, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *msg = n < 0 ? NULL : malloc((size_t)n + 1);
  if (msg) {
    va_start(ap, fmt);
    vsnprintf(msg, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  /* The arguments quote the command line, which may hold any bytes. */
  fprintf(stderr, "onyx: %s\n", msg ? cli_esc(msg) : "out of memory");
  free(msg);
  if (command)
    fprintf(stderr, "Try 'onyx %s --help'.\n", cli_esc(command));
  else
    fputs("Try 'onyx --help'.\n", stderr);
}

static const char HELP_MAIN[] =
    "Usage: onyx COMMAND [ARGS...]\n"
    "\n"
    "A runtime for ONNX models (operators Ceil, Floor, Clip, Sign, Constant).\n"
    "\n"
    "Commands:\n"
    "  run MODEL [--input NAME=FILE]... [--output-dir DIR] [--format FORMAT]\n"
    "                   run a model once on TensorProto (.pb) or numpy (.npy)\n"
    "                   inputs and print or save its outputs\n"
    "  test PATH...     run ONNX backend-test case folders and compare outputs\n"
    "  info MODEL       check a model and describe its inputs, outputs and nodes\n"
    "  bench MODEL [--shape NAME=DIMS]... [--runs N | --duration S]\n"
    "                   time runs of a model on random inputs\n"
    "  help [COMMAND]   show this help, or a command's help\n"
    "\n"
    "Options:\n"
    "  --threads N      worker threads for large tensors (0: the default)\n"
    "  --isa LEVEL      highest instruction set kernels may use: scalar, sse41,\n"
    "                   avx2, avx512, or best (the default: no cap)\n"
    "  -h, --help       show help\n"
    "  --version        show the version\n"
    "\n"
    "Exit codes:\n"
    "  0  success\n"
    "  1  a test case failed, or 'test' found no case\n"
    "  2  usage error (bad option or argument, unknown command, input names\n"
    "     that do not match the model)\n"
    "  3  onyx error: a model or tensor could not be loaded, a session could\n"
    "     not be created, a run failed, or an output could not be written\n";

static const char HELP_RUN[] =
    "Usage: onyx run MODEL [--input NAME=FILE]... [--output-dir DIR]\n"
    "                [--format FORMAT] [--threads N] [--isa LEVEL]\n"
    "\n"
    "Runs MODEL once. Each --input binds FILE to the model input called NAME;\n"
    "every input of the model must be given once. FILE is a serialized\n"
    "TensorProto (.pb) or a numpy array (.npy: recognized by its extension or\n"
    "its first bytes; C order, little-endian; a bfloat16 input takes '<u2'\n"
    "bit patterns).\n"
    "\n"
    "Without --output-dir, each output is printed as a line 'NAME: TYPE [DIMS]'\n"
    "followed by its values in nested brackets (tensors of more than 1000\n"
    "elements are summarized with '...'). With --output-dir, each output is\n"
    "written to DIR/NAME.pb as a TensorProto named NAME, or with --format npy\n"
    "to DIR/NAME.npy (bfloat16 as '<u2' bit patterns, since numpy has no\n"
    "bfloat16). DIR is created if missing.\n"
    "\n"
    "Options:\n"
    "  --input NAME=FILE  bind an input (repeatable)\n"
    "  --output-dir DIR   write outputs as files instead of printing them\n"
    "  --format FORMAT    file format for --output-dir: pb (the default) or npy\n"
    "  --threads N        worker threads for large tensors (0: the default)\n"
    "  --isa LEVEL        scalar, sse41, avx2, avx512 or best\n"
    "\n"
    "Exit codes: 0 success, 2 usage error (including an unknown, repeated or\n"
    "missing input name), 3 onyx or I/O error.\n";

static const char HELP_TEST[] =
    "Usage: onyx test [-v] [--threads N] [--isa LEVEL] PATH...\n"
    "\n"
    "Runs ONNX backend-test cases. A case folder holds model.onnx and\n"
    "test_data_set_N/ folders with input_K.pb and output_K.pb files. A PATH\n"
    "without model.onnx is searched recursively (in name order, skipping names\n"
    "that start with '.', following links but visiting each folder once) for\n"
    "case folders. Every output must match output_K.pb bit for bit (same\n"
    "type, shape and bytes), except that any NaN matches any NaN.\n"
    "\n"
    "Prints 'FAIL CASE: REASON' for each failing case ('ok CASE' too with -v)\n"
    "and ends with 'N passed, N failed'.\n"
    "\n"
    "Options:\n"
    "  -v, --verbose    also print passing cases\n"
    "  --threads N      worker threads for large tensors (0: the default)\n"
    "  --isa LEVEL      scalar, sse41, avx2, avx512 or best\n"
    "\n"
    "Exit codes: 0 all cases passed, 1 a case failed or no case was found,\n"
    "2 usage error, 3 a PATH could not be read.\n";

static const char HELP_INFO[] =
    "Usage: onyx info [--threads N] [--isa LEVEL] MODEL\n"
    "\n"
    "Loads MODEL and creates a session from it, so that every check runs, then\n"
    "prints its IR version, opset imports, inputs and outputs (with symbolic\n"
    "dimensions by name) and nodes.\n"
    "\n"
    "Exit codes: 0 success, 2 usage error, 3 the model is invalid or could\n"
    "not be loaded.\n";

static const char HELP_BENCH[] =
    "Usage: onyx bench MODEL [--shape NAME=DIMS]... [--warmup N] [--runs N]\n"
    "                  [--duration S] [--per-node] [--progress] [--threads N]\n"
    "                  [--isa LEVEL]\n"
    "\n"
    "Times runs of MODEL on random inputs of its declared types, and prints the\n"
    "median, 90th and 99th percentile latency and the throughput (runs per\n"
    "second, and gigabytes per second of inputs plus outputs).\n"
    "\n"
    "A symbolic or unknown input dimension needs a size: --shape NAME=DIMS\n"
    "gives the whole shape of the input NAME (DIMS such as 2x3x4; empty for a\n"
    "scalar), or --shape DIM=SIZE the size of the symbolic dimension DIM\n"
    "wherever it appears.\n"
    "\n"
    "Options:\n"
    "  --shape NAME=DIMS  an input's shape, or a symbolic dimension's size\n"
    "                     (repeatable)\n"
    "  --warmup N         untimed runs before timing (default 5)\n"
    "  --runs N           number of timed runs\n"
    "  --duration S       time runs for S seconds (default 1 without --runs);\n"
    "                     with --runs too, stop at whichever comes first\n"
    "  --per-node         also time each node alone (see below)\n"
    "  --progress         show the progress line even when stderr is not a\n"
    "                     terminal\n"
    "  --threads N        worker threads for large tensors (0: the default)\n"
    "  --isa LEVEL        scalar, sse41, avx2, avx512 or best\n"
    "\n"
    "--per-node times each node in isolation: its kernel through the kernel\n"
    "API (onyx_ceil, onyx_floor, onyx_clip, onyx_sign) on one thread, on\n"
    "random buffers of the node's input shape and type. A session run may fuse\n"
    "nodes and use threads, so these times need not add up to a run's latency.\n"
    "Constant nodes are folded when the session is created and are not timed.\n"
    "\n"
    "Runs that take longer than a second show a progress line on stderr when\n"
    "it is a terminal (or with --progress).\n"
    "\n"
    "Exit codes: 0 success, 2 usage error (including a symbolic dimension\n"
    "without --shape), 3 onyx error.\n";

static const char *command_help(const char *command) {
  if (!command) return HELP_MAIN;
  if (strcmp(command, "run") == 0) return HELP_RUN;
  if (strcmp(command, "test") == 0) return HELP_TEST;
  if (strcmp(command, "info") == 0) return HELP_INFO;
  if (strcmp(command, "bench") == 0) return HELP_BENCH;
  return NULL;
}

static int parse_threads(const char *command, const char *s, uint32_t *out) {
  if (*s < '0' || *s > '9') goto bad;
  uint64_t v = 0;
  for (const char *c = s; *c; c++) {
    if (*c < '0' || *c > '9') goto bad;
    v = v * 10 + (uint64_t)(*c - '0');
    if (v > UINT32_MAX) goto bad;
  }
  *out = (uint32_t)v;
  return 1;
bad:
  cli_usage_error(command, "--threads: '%s' is not a number from 0 to %" PRIu32, s, UINT32_MAX);
  return 0;
}

static int parse_isa(const char *command, const char *s, onyx_isa *out) {
  static const struct {
    const char *name;
    onyx_isa isa;
  } names[] = {{"scalar", ONYX_ISA_SCALAR},
               {"sse41", ONYX_ISA_SSE41},
               {"avx2", ONYX_ISA_AVX2},
               {"avx512", ONYX_ISA_AVX512},
               {"best", ONYX_ISA_BEST}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (strcmp(s, names[i].name) == 0) {
      *out = names[i].isa;
      return 1;
    }
  }
  cli_usage_error(command, "--isa: '%s' is not one of scalar, sse41, avx2, avx512, best", s);
  return 0;
}

/* A count option (--warmup, --runs): a decimal number from min to 10^12. */
static int parse_count(const char *command, const char *option, const char *s, long long min,
                       long long *out) {
  long long v = 0;
  if (*s < '0' || *s > '9') goto bad;
  for (const char *c = s; *c; c++) {
    if (*c < '0' || *c > '9') goto bad;
    v = v * 10 + (*c - '0');
    if (v > 1000000000000LL) goto bad;
  }
  if (v < min) goto bad;
  *out = v;
  return 1;
bad:
  cli_usage_error(command, "%s: '%s' is not a whole number from %lld to 10^12", option, s, min);
  return 0;
}

/* --duration: seconds, a positive decimal number of at most 10^6. */
static int parse_seconds(const char *command, const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (*s == '\0' || *end != '\0' || errno != 0 || !(v > 0) || v > 1e6 || (*s < '0' || *s > '9')) {
    cli_usage_error(command, "--duration: '%s' is not a number of seconds above 0", s);
    return 0;
  }
  *out = v;
  return 1;
}

/*
 * Parses argv[first..argc-1] for a command that accepts the options in
 * `allowed`. Options take "--opt VALUE" or "--opt=VALUE"; "--" ends them.
 * Returns CLI_OK, or CLI_USAGE after printing the problem.
 */
static int parse_args(int argc, char **argv, int first, unsigned allowed, cli_args *a) {
  size_t cap = (size_t)argc;
  a->inputs = malloc(cap * sizeof *a->inputs);
  a->shapes = malloc(cap * sizeof *a->shapes);
  a->positional = malloc(cap * sizeof *a->positional);
  if (!a->inputs || !a->shapes || !a->positional) {
    cli_error_oom();
    return CLI_ERROR;
  }
  int options_done = 0;
  for (int i = first; i < argc; i++) {
    const char *arg = argv[i];
    if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
      a->positional[a->n_positional++] = arg;
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      options_done = 1;
      continue;
    }
    if ((allowed & OPT_VERBOSE) && (strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0)) {
      a->verbose = 1;
      continue;
    }
    if ((allowed & OPT_PER_NODE) && strcmp(arg, "--per-node") == 0) {
      a->per_node = 1;
      continue;
    }
    if ((allowed & OPT_PROGRESS) && strcmp(arg, "--progress") == 0) {
      a->progress = 1;
      continue;
    }
    static const struct {
      const char *name;
      unsigned flag;
    } valued[] = {{"--threads", OPT_THREADS},
                  {"--isa", OPT_ISA},
                  {"--input", OPT_INPUT},
                  {"--output-dir", OPT_OUTPUT_DIR},
                  {"--format", OPT_FORMAT},
                  {"--shape", OPT_SHAPE},
                  {"--warmup", OPT_WARMUP},
                  {"--runs", OPT_RUNS},
                  {"--duration", OPT_DURATION}};
    unsigned flag = 0;
    const char *name = NULL;
    const char *value = NULL;
    for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) {
      size_t len = strlen(valued[k].name);
      if (strncmp(arg, valued[k].name, len) == 0 && (arg[len] == '\0' || arg[len] == '=')) {
        flag = valued[k].flag;
        name = valued[k].name;
        if (arg[len] == '=') value = arg + len + 1;
        break;
      }
    }
    if (!flag || !(allowed & flag)) {
      cli_usage_error(a->command, "%s: unknown option '%s'", a->command, arg);
      return CLI_USAGE;
    }
    if (!value) {
      if (i + 1 >= argc) {
        cli_usage_error(a->command, "%s needs a value", name);
        return CLI_USAGE;
      }
      value = argv[++i];
    }
    switch (flag) {
    case OPT_THREADS:
      if (!parse_threads(a->command, value, &a->opts.threads)) return CLI_USAGE;
      break;
    case OPT_ISA:
      if (!parse_isa(a->command, value, &a->opts.isa_cap)) return CLI_USAGE;
      break;
    case OPT_INPUT:
      if (!strchr(value, '=')) {
        cli_usage_error(a->command, "--input: '%s' is not NAME=FILE", value);
        return CLI_USAGE;
      }
      a->inputs[a->n_inputs++] = value;
      break;
    case OPT_OUTPUT_DIR:
      if (value[0] == '\0') {
        cli_usage_error(a->command, "--output-dir needs a folder name");
        return CLI_USAGE;
      }
      a->output_dir = value;
      break;
    case OPT_FORMAT:
      if (strcmp(value, "pb") != 0 && strcmp(value, "npy") != 0) {
        cli_usage_error(a->command, "--format: '%s' is not pb or npy", value);
        return CLI_USAGE;
      }
      a->format = value;
      break;
    case OPT_SHAPE:
      if (!strchr(value, '=')) {
        cli_usage_error(a->command, "--shape: '%s' is not NAME=DIMS", value);
        return CLI_USAGE;
      }
      a->shapes[a->n_shapes++] = value;
      break;
    case OPT_WARMUP:
      if (!parse_count(a->command, "--warmup", value, 0, &a->warmup)) return CLI_USAGE;
      break;
    case OPT_RUNS:
      if (!parse_count(a->command, "--runs", value, 1, &a->runs)) return CLI_USAGE;
      break;
    case OPT_DURATION:
      if (!parse_seconds(a->command, value, &a->duration)) return CLI_USAGE;
      break;
    default:
      break;
    }
  }
  return CLI_OK;
}

static void free_args(cli_args *a) {
  free(a->inputs);
  free(a->shapes);
  free(a->positional);
}

/* Whether argv[first..] asks for help (before any "--"). */
static int wants_help(int argc, char **argv, int first) {
  for (int i = first; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return 0;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
  }
  return 0;
}

/* ---- Shared model and session handling ---------------------------------- */

/* Loads the model at path and creates a session. On failure prints the
 * error, frees what it made and returns CLI_ERROR. */
int cli_open_model(const char *path, const onyx_session_options *opts, onyx_model **model,
                   onyx_session **session) {
  onyx_error err;
  cli_reset_error(&err);
  *model = NULL;
  *session = NULL;
  onyx_status st = onyx_model_load_file(path, model, &err);
  if (st != ONYX_OK) {
    cli_report(path, st, &err);
    return CLI_ERROR;
  }
  cli_reset_error(&err);
  st = onyx_session_create(*model, opts, session, &err);
  if (st != ONYX_OK) {
    cli_report(path, st, &err);
    onyx_model_free(*model);
    *model = NULL;
    *session = NULL;
    return CLI_ERROR;
  }
  return CLI_OK;
}

/* ---- onyx run ----------------------------------------------------------- */

/* The longest output name used as a file name as it is: with ".npy" it
 * stays within NAME_MAX (255 bytes) on the common file systems. */
#define MAX_FILE_NAME 250

/* Whether an output's name can be its file's name as it is: not empty, "."
 * or "..", at most MAX_FILE_NAME bytes, without '/' and without anything
 * cli_esc escapes (so that the name printed is the file's name, and no
 * file name holds a control character). */
static int safe_file_name(const char *name) {
  size_t len = strlen(name);
  if (len == 0 || len > MAX_FILE_NAME || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
    return 0;
  for (size_t i = 0; i < len; i++)
    if (name[i] == '/' || needs_escape((unsigned char)name[i])) return 0;
  return 1;
}

static int cmp_str_ptr(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void free_strings(char **s, size_t n) {
  if (s)
    for (size_t i = 0; i < n; i++) free(s[i]);
  free(s);
}

/*
 * The file names (without extension) of n outputs: an output's own name
 * when safe_file_name accepts it, else "output_K" with K its index, and '_'
 * added while another output has that name. The safe names are sorted for
 * that look-up, so this costs O(n log n). Returns NULL when out of memory.
 */
static char **output_file_names(const onyx_value_info *info, size_t n) {
  char **names = calloc(n ? n : 1, sizeof *names);
  const char **taken = calloc(n ? n : 1, sizeof *taken);
  size_t n_taken = 0;
  int ok = names && taken;
  for (size_t i = 0; ok && i < n; i++)
    if (safe_file_name(info[i].name)) taken[n_taken++] = info[i].name;
  if (ok && n_taken > 0) qsort(taken, n_taken, sizeof *taken, cmp_str_ptr);
  for (size_t i = 0; ok && i < n; i++) {
    if (safe_file_name(info[i].name)) {
      ok = (names[i] = str_printf("%s", info[i].name)) != NULL;
      continue;
    }
    strbuf sb = {0};
    sb_printf(&sb, "output_%zu", i);
    while (!sb.oom && n_taken > 0 &&
           bsearch(&sb.data, taken, n_taken, sizeof *taken, cmp_str_ptr))
      sb_printf(&sb, "_");
    ok = !sb.oom;
    names[i] = sb.data;
  }
  free(taken);
  if (ok) return names;
  free_strings(names, n);
  return NULL;
}

/* Creates dir and its missing parents, like "mkdir -p". */
static int make_dirs(const char *dir) {
  char *p = str_printf("%s", dir);
  if (!p) {
    cli_error_oom();
    return CLI_ERROR;
  }
  int rc = CLI_OK;
  size_t len = strlen(p);
  for (size_t i = 1; i <= len && rc == CLI_OK; i++) {
    if (p[i] != '/' && p[i] != '\0') continue;
    if (p[i - 1] == '/') continue;
    char saved = p[i];
    p[i] = '\0';
    if (mkdir(p, 0777) != 0) {
      int e = errno;
      struct stat sb;
      if (e != EEXIST) {
        fprintf(stderr, "onyx: %s: cannot create folder: %s\n", cli_esc(p), strerror(e));
        rc = CLI_ERROR;
      } else if (stat(p, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "onyx: %s: exists and is not a folder\n", cli_esc(p));
        rc = CLI_ERROR;
      }
    }
    p[i] = saved;
  }
  free(p);
  return rc;
}

/* Whether the input file at path is a .npy file: by its extension, or by
 * its first bytes (numpy's magic string). A file that cannot be opened is
 * left to the TensorProto reader, which reports it, and so is anything but
 * a regular file. */
static int is_npy_file(const char *path) {
  size_t len = strlen(path);
  if (len >= 4 && path[len - 4] == '.' && (path[len - 3] | 0x20) == 'n' &&
      (path[len - 2] | 0x20) == 'p' && (path[len - 1] | 0x20) == 'y')
    return 1;
  /* O_NONBLOCK: a FIFO must not block the look; it is no .npy file. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return 0;
  struct stat sb;
  unsigned char head[NPY_MAGIC_LEN];
  ssize_t n = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? read(fd, head, sizeof head) : 0;
  close(fd);
  return n > 0 && npy_has_magic(head, (size_t)n);
}

/* Finds the session input whose name is the part of spec before one of its
 * '=' signs (trying each from the left, so names may contain '='). */
static int match_input(const onyx_value_info *infos, size_t n, const char *spec, size_t *index,
                       const char **file) {
  for (const char *eq = strchr(spec, '='); eq; eq = strchr(eq + 1, '=')) {
    size_t len = (size_t)(eq - spec);
    for (size_t i = 0; i < n; i++) {
      if (strlen(infos[i].name) == len && memcmp(infos[i].name, spec, len) == 0) {
        *index = i;
        *file = eq + 1;
        return 1;
      }
    }
  }
  return 0;
}

static int cmd_run(cli_args *a) {
  if (a->n_positional != 1) {
    if (a->n_positional == 0)
      cli_usage_error("run", "run: missing MODEL");
    else
      cli_usage_error("run", "run: expected one MODEL, got %zu arguments", a->n_positional);
    return CLI_USAGE;
  }
  const char *model_path = a->positional[0];
  onyx_model *model = NULL;
  onyx_session *session = NULL;
  int rc = cli_open_model(model_path, &a->opts, &model, &session);
  if (rc != CLI_OK) return rc;

  onyx_error err;
  size_t n_in = onyx_session_input_count(session);
  size_t n_out = onyx_session_output_count(session);
  onyx_value_info *in_info = calloc(n_in ? n_in : 1, sizeof *in_info);
  onyx_value_info *out_info = calloc(n_out ? n_out : 1, sizeof *out_info);
  const char **in_file = calloc(n_in ? n_in : 1, sizeof *in_file);
  onyx_tensor *inputs = calloc(n_in ? n_in : 1, sizeof *inputs);
  unsigned char *in_npy = calloc(n_in ? n_in : 1, 1); /* data from malloc, not onyx */
  onyx_tensor *outputs = calloc(n_out ? n_out : 1, sizeof *outputs);
  char *path = NULL;
  char **files = NULL; /* with --output-dir: the outputs' file names */
  int npy_out = a->format && strcmp(a->format, "npy") == 0;
  if (!in_info || !out_info || !in_file || !inputs || !in_npy || !outputs) {
    cli_error_oom();
    rc = CLI_ERROR;
    goto done;
  }
  for (size_t i = 0; i < n_in; i++) {
    cli_reset_error(&err);
    onyx_status st = onyx_session_input_info(session, i, &in_info[i], &err);
    if (st != ONYX_OK) {
      cli_report(model_path, st, &err);
      rc = CLI_ERROR;
      goto done;
    }
  }
  for (size_t i = 0; i < n_out; i++) {
    cli_reset_error(&err);
    onyx_status st = onyx_session_output_info(session, i, &out_info[i], &err);
    if (st != ONYX_OK) {
      cli_report(model_path, st, &err);
      rc = CLI_ERROR;
      goto done;
    }
  }

  /* Bind --input NAME=FILE to input positions; report every problem. */
  for (size_t k = 0; k < a->n_inputs; k++) {
    size_t index;
    const char *file;
    if (!match_input(in_info, n_in, a->inputs[k], &index, &file)) {
      const char *spec = a->inputs[k];
      fprintf(stderr, "onyx: %s: the model has no input named '%s'\n", cli_esc(model_path),
              cli_esc_n(spec, (size_t)(strchr(spec, '=') - spec)));
      rc = CLI_USAGE;
    } else if (in_file[index]) {
      fprintf(stderr, "onyx: %s: input '%s' is given more than once\n", cli_esc(model_path),
              cli_esc(in_info[index].name));
      rc = CLI_USAGE;
    } else {
      in_file[index] = file;
    }
  }
  for (size_t i = 0; i < n_in; i++) {
    if (!in_file[i]) {
      const char *name = cli_esc(in_info[i].name);
      fprintf(stderr, "onyx: %s: input '%s' is missing (use --input %s=FILE)\n",
              cli_esc(model_path), name, name);
      rc = CLI_USAGE;
    }
  }
  if (rc != CLI_OK) goto done;

  if (a->output_dir && !(files = output_file_names(out_info, n_out))) {
    cli_error_oom();
    rc = CLI_ERROR;
    goto done;
  }

  for (size_t i = 0; i < n_in; i++) {
    if (is_npy_file(in_file[i])) {
      char why[512];
      if (npy_load_file(in_file[i], &inputs[i], why, sizeof why) != NPY_OK) {
        fprintf(stderr, "onyx: %s: %s\n", cli_esc(in_file[i]), cli_esc(why));
        rc = CLI_ERROR;
        goto done;
      }
      in_npy[i] = 1;
      /* numpy has no bfloat16: '<u2' bit patterns stand for it. */
      if (in_info[i].dtype == ONYX_DTYPE_BFLOAT16 && inputs[i].dtype == ONYX_DTYPE_UINT16)
        inputs[i].dtype = ONYX_DTYPE_BFLOAT16;
      continue;
    }
    cli_reset_error(&err);
    onyx_status st = onyx_tensor_load_file(in_file[i], &inputs[i], NULL, &err);
    if (st != ONYX_OK) {
      memset(&inputs[i], 0, sizeof inputs[i]);
      cli_report(in_file[i], st, &err);
      rc = CLI_ERROR;
      goto done;
    }
  }

  cli_reset_error(&err);
  onyx_status st = onyx_session_run(session, inputs, n_in, outputs, n_out, &err);
  if (st != ONYX_OK) {
    cli_report(model_path, st, &err);
    rc = CLI_ERROR;
    goto done;
  }

  if (a->output_dir) {
    rc = make_dirs(a->output_dir);
    for (size_t i = 0; i < n_out && rc == CLI_OK; i++) {
      free(path);
      path = str_printf("%s%s%s.%s", a->output_dir,
                        a->output_dir[strlen(a->output_dir) - 1] == '/' ? "" : "/", files[i],
                        npy_out ? "npy" : "pb");
      if (!path) {
        cli_error_oom();
        rc = CLI_ERROR;
        break;
      }
      if (strcmp(files[i], out_info[i].name) != 0)
        fprintf(stderr, "onyx: note: output %zu '%s' is not a safe file name: written to %s\n",
                i, cli_esc(out_info[i].name), cli_esc(path));
      if (npy_out) {
        char why[512];
        if (npy_save_file(path, &outputs[i], why, sizeof why) != NPY_OK) {
          fprintf(stderr, "onyx: %s: %s\n", cli_esc(path), cli_esc(why));
          rc = CLI_ERROR;
        } else if (outputs[i].dtype == ONYX_DTYPE_BFLOAT16) {
          fprintf(stderr,
                  "onyx: note: %s: bfloat16 written as '<u2' bit patterns (numpy has no "
                  "bfloat16)\n",
                  cli_esc(path));
        }
        continue;
      }
      cli_reset_error(&err);
      st = onyx_tensor_save_file(path, &outputs[i], out_info[i].name, &err);
      if (st != ONYX_OK) {
        cli_report(path, st, &err);
        rc = CLI_ERROR;
      }
    }
  } else {
    for (size_t i = 0; i < n_out; i++) {
      strbuf sb = {0};
      sb_dims(&sb, outputs[i].rank, outputs[i].dims);
      printf("%s: %s %s\n", cli_esc(out_info[i].name), onyx_dtype_name(outputs[i].dtype),
             sb_str(&sb));
      sb_free(&sb);
      print_values(stdout, &outputs[i]);
    }
  }

done:
  if (inputs)
    for (size_t i = 0; i < n_in; i++) {
      if (in_npy && in_npy[i])
        free(inputs[i].data);
      else
        onyx_free(inputs[i].data);
    }
  if (outputs)
    for (size_t i = 0; i < n_out; i++) onyx_free(outputs[i].data);
  free(path);
  free_strings(files, n_out);
  free(inputs);
  free(in_npy);
  free(outputs);
  free(in_file);
  free(in_info);
  free(out_info);
  onyx_session_free(session);
  onyx_model_free(model);
  return rc;
}

/* ---- onyx info ---------------------------------------------------------- */

static void print_value_info(const onyx_value_info *v) {
  printf("  %s: %s ", cli_esc(v->name), onyx_dtype_name(v->dtype));
  if (!v->has_shape) {
    printf("(shape not declared)\n");
    return;
  }
  putchar('[');
  for (uint32_t i = 0; i < v->rank && i < ONYX_MAX_RANK; i++) {
    if (i) fputs(", ", stdout);
    if (v->dims[i] >= 0)
      printf("%" PRId64, v->dims[i]);
    else if (v->dim_names[i] && v->dim_names[i][0])
      fputs(cli_esc(v->dim_names[i]), stdout);
    else
      putchar('?');
  }
  puts("]");
}

static void print_names(size_t n, const char *const *names) {
  for (size_t i = 0; i < n; i++) {
    if (i) fputs(", ", stdout);
    fputs(names[i] && names[i][0] ? cli_esc(names[i]) : "<none>", stdout);
  }
}

static int cmd_info(cli_args *a) {
  if (a->n_positional != 1) {
    if (a->n_positional == 0)
      cli_usage_error("info", "info: missing MODEL");
    else
      cli_usage_error("info", "info: expected one MODEL, got %zu arguments", a->n_positional);
    return CLI_USAGE;
  }
  const char *path = a->positional[0];
  onyx_model *model;
  onyx_session *session;
  int rc = cli_open_model(path, &a->opts, &model, &session);
  if (rc != CLI_OK) return rc;
  onyx_error err;
  onyx_status st;

  printf("model: %s\n", cli_esc(path));
  printf("ir_version: %" PRId64 "\n", onyx_model_ir_version(model));
  size_t n_opsets = onyx_model_opset_count(model);
  printf("opset_import:\n");
  for (size_t i = 0; i < n_opsets; i++) {
    const char *domain = NULL;
    int64_t version = 0;
    cli_reset_error(&err);
    st = onyx_model_opset(model, i, &domain, &version, &err);
    if (st != ONYX_OK) goto fail;
    printf("  %s %" PRId64 "\n", domain && domain[0] ? cli_esc(domain) : "ai.onnx", version);
  }

  size_t n_in = onyx_session_input_count(session);
  printf("inputs:%s\n", n_in ? "" : " (none)");
  for (size_t i = 0; i < n_in; i++) {
    onyx_value_info v;
    cli_reset_error(&err);
    st = onyx_session_input_info(session, i, &v, &err);
    if (st != ONYX_OK) goto fail;
    print_value_info(&v);
  }
  size_t n_out = onyx_session_output_count(session);
  printf("outputs:%s\n", n_out ? "" : " (none)");
  for (size_t i = 0; i < n_out; i++) {
    onyx_value_info v;
    cli_reset_error(&err);
    st = onyx_session_output_info(session, i, &v, &err);
    if (st != ONYX_OK) goto fail;
    print_value_info(&v);
  }

  size_t n_nodes = onyx_model_node_count(model);
  printf("nodes:\n");
  for (size_t i = 0; i < n_nodes; i++) {
    onyx_node_info node;
    cli_reset_error(&err);
    st = onyx_model_node(model, i, &node, &err);
    if (st != ONYX_OK) goto fail;
    printf("  %zu: ", i);
    if (node.domain && node.domain[0]) printf("%s.", cli_esc(node.domain));
    fputs(node.op_type ? cli_esc(node.op_type) : "?", stdout);
    if (node.name && node.name[0]) printf(" '%s'", cli_esc(node.name));
    fputs(": ", stdout);
    print_names(node.input_count, node.inputs);
    fputs(node.input_count ? " -> " : "-> ", stdout);
    print_names(node.output_count, node.outputs);
    putchar('\n');
  }
  goto done;

fail:
  cli_report(path, st, &err);
  rc = CLI_ERROR;
done:
  onyx_session_free(session);
  onyx_model_free(model);
  return rc;
}

/* ---- onyx test ---------------------------------------------------------- */

typedef struct str_list {
  char **items;
  size_t len, cap;
} str_list;

/* Takes ownership of s. Returns 0 (and frees s) when out of memory. */
static int list_push(str_list *l, char *s) {
  if (l->len == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    char **items = realloc(l->items, cap * sizeof *items);
    if (!items) {
      free(s);
      return 0;
    }
    l->items = items;
    l->cap = cap;
  }
  l->items[l->len++] = s;
  return 1;
}

static void list_free(str_list *l) {
  for (size_t i = 0; i < l->len; i++) free(l->items[i]);
  free(l->items);
  l->items = NULL;
  l->len = l->cap = 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entry names of folder dir, sorted, without "." and "..".
 * Returns 0 after printing the error. */
static int list_dir(const char *dir, str_list *out, int skip_hidden) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "onyx: %s: %s\n", cli_esc(dir), strerror(errno));
    return 0;
  }
  int ok = 1;
  struct dirent *e;
  errno = 0;
  while ((e = readdir(d)) != NULL) {
    const char *n = e->d_name;
    if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || (skip_hidden && n[0] == '.')) continue;
    char *copy = str_printf("%s", n);
    if (!copy || !list_push(out, copy)) { /* list_push frees copy on failure */
      cli_error_oom();
      ok = 0;
      break;
    }
    errno = 0;
  }
  if (ok && errno != 0) {
    fprintf(stderr, "onyx: %s: %s\n", cli_esc(dir), strerror(errno));
    ok = 0;
  }
  closedir(d);
  /* qsort's pointer must be valid even for no items: an empty folder has none. */
  if (ok && out->len > 0) qsort(out->items, out->len, sizeof *out->items, cmp_str);
  return ok;
}

static int is_case_dir(const char *dir) {
  char *m = path_join(dir, "model.onnx");
  if (!m) return 0;
  struct stat sb;
  int r = stat(m, &sb) == 0;
  free(m);
  return r;
}

/* The folders a walk has visited, by device and inode, so that each is
 * visited once however many paths (symbolic links) lead to it: a walk then
 * costs one visit per folder, even on link diamonds, and ends on loops.
 * Open addressing with linear probing, grown at half full. */
typedef struct dir_key {
  dev_t dev;
  ino_t ino;
  int used;
} dir_key;

typedef struct dir_set {
  dir_key *slots;
  size_t len, cap; /* cap: 0 or a power of two */
} dir_set;

static size_t dir_slot(const dir_set *s, dev_t dev, ino_t ino) {
  uint64_t h = ((uint64_t)ino ^ ((uint64_t)dev << 32 | (uint64_t)dev >> 32)) *
               0x9E3779B97F4A7C15ULL;
  size_t i = (size_t)(h >> 32) & (s->cap - 1);
  while (s->slots[i].used && (s->slots[i].dev != dev || s->slots[i].ino != ino))
    i = (i + 1) & (s->cap - 1);
  return i;
}

static int dir_set_grow(dir_set *s) {
  dir_set bigger = {calloc(s->cap ? s->cap * 2 : 64, sizeof(dir_key)), s->len,
                    s->cap ? s->cap * 2 : 64};
  if (!bigger.slots) return 0;
  for (size_t i = 0; i < s->cap; i++)
    if (s->slots[i].used) bigger.slots[dir_slot(&bigger, s->slots[i].dev, s->slots[i].ino)] =
        s->slots[i];
  free(s->slots);
  *s = bigger;
  return 1;
}

/* Adds the folder sb describes. Returns 1 if it is new, 0 if it was visited
 * already, -1 when out of memory. */
static int dir_set_add(dir_set *s, const struct stat *sb) {
  if (2 * (s->len + 1) > s->cap && !dir_set_grow(s)) return -1;
  dir_key *k = &s->slots[dir_slot(s, sb->st_dev, sb->st_ino)];
  if (k->used) return 0;
  k->dev = sb->st_dev;
  k->ino = sb->st_ino;
  k->used = 1;
  s->len++;
  return 1;
}

/* Adds the case folders under dir (sorted by name) to cases, skipping
 * folders in visited and adding those it walks. Returns 0 if some folder
 * could not be read (after reporting it). */
static int find_cases(const char *dir, dir_set *visited, str_list *cases) {
  struct stat sb;
  if (stat(dir, &sb) != 0) {
    fprintf(stderr, "onyx: %s: %s\n", cli_esc(dir), strerror(errno));
    return 0;
  }
  int added = dir_set_add(visited, &sb);
  if (added <= 0) {
    if (added < 0) cli_error_oom();
    return added == 0;
  }
  str_list names = {0};
  if (!list_dir(dir, &names, 1)) {
    list_free(&names);
    return 0;
  }
  int ok = 1;
  for (size_t i = 0; i < names.len; i++) {
    char *child = path_join(dir, names.items[i]);
    if (!child) {
      cli_error_oom();
      ok = 0;
      break;
    }
    struct stat cs;
    if (stat(child, &cs) != 0 || !S_ISDIR(cs.st_mode)) {
      free(child);
      continue;
    }
    if (is_case_dir(child)) {
      int fresh = dir_set_add(visited, &cs);
      if (fresh < 0 || (fresh && !list_push(cases, child))) {
        cli_error_oom();
        if (fresh < 0) free(child);
        ok = 0;
        break;
      }
      if (!fresh) free(child);
    } else {
      if (!find_cases(child, visited, cases)) ok = 0;
      free(child);
    }
  }
  list_free(&names);
  return ok;
}

typedef struct data_set {
  unsigned long long number;
  char *name;
} data_set;

static int cmp_data_set(const void *a, const void *b) {
  const data_set *x = a, *y = b;
  if (x->number != y->number) return x->number < y->number ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* Whether name is "test_data_set_" followed by digits; sets *number. */
static int parse_data_set_name(const char *name, unsigned long long *number) {
  static const char prefix[] = "test_data_set_";
  size_t plen = sizeof prefix - 1;
  if (strncmp(name, prefix, plen) != 0 || name[plen] == '\0') return 0;
  unsigned long long v = 0;
  for (const char *c = name + plen; *c; c++) {
    if (*c < '0' || *c > '9') return 0;
    unsigned d = (unsigned)(*c - '0');
    if (v > (ULLONG_MAX - d) / 10) return 0;
    v = v * 10 + d;
  }
  *number = v;
  return 1;
}

/* A growable array of loaded tensors. */
typedef struct tensor_list {
  onyx_tensor *items;
  size_t len, cap;
} tensor_list;

static void tensors_free(tensor_list *l) {
  for (size_t i = 0; i < l->len; i++) onyx_free(l->items[i].data);
  free(l->items);
  l->items = NULL;
  l->len = l->cap = 0;
}

/* Loads dir/PREFIX_K.pb for K = 0, 1, ... until one is missing. Returns 0
 * and writes the reason into why on failure. */
static int load_numbered(const char *dir, const char *set_name, const char *prefix,
                         tensor_list *out, strbuf *why) {
  for (size_t k = 0;; k++) {
    char *file = str_printf("%s/%s_%zu.pb", dir, prefix, k);
    if (!file) {
      sb_printf(why, "out of memory");
      return 0;
    }
    struct stat sb;
    if (stat(file, &sb) != 0 && errno == ENOENT) {
      free(file);
      return 1;
    }
    if (out->len == out->cap) {
      size_t cap = out->cap ? out->cap * 2 : 4;
      onyx_tensor *items = realloc(out->items, cap * sizeof *items);
      if (!items) {
        free(file);
        sb_printf(why, "out of memory");
        return 0;
      }
      out->items = items;
      out->cap = cap;
    }
    onyx_error err;
    cli_reset_error(&err);
    onyx_tensor *t = &out->items[out->len];
    onyx_status st = onyx_tensor_load_file(file, t, NULL, &err);
    if (st != ONYX_OK) {
      sb_printf(why, "%s/%s_%zu.pb: %s (%s)", set_name, prefix, k, error_text(file, st, &err),
                onyx_status_name(st));
      free(file);
      return 0;
    }
    out->len++;
    free(file);
  }
}

/* Appends "[i0, i1, ...]" for flat element index `flat` of shape dims. */
static void sb_index(strbuf *sb, uint32_t rank, const int64_t *dims, size_t flat) {
  size_t idx[ONYX_MAX_RANK];
  for (uint32_t i = rank; i-- > 0;) {
    size_t d = (size_t)dims[i];
    idx[i] = d ? flat % d : 0;
    flat = d ? flat / d : 0;
  }
  sb_printf(sb, "[");
  for (uint32_t i = 0; i < rank; i++) sb_printf(sb, "%s%zu", i ? ", " : "", idx[i]);
  sb_printf(sb, "]");
}

/* Compares got with expected; returns 1 when they match, else 0 with the
 * reason (after the "SET output K 'NAME': " prefix) appended to why. */
static int compare_output(const onyx_tensor *got, const onyx_tensor *exp, strbuf *why) {
  if (got->dtype != exp->dtype) {
    sb_printf(why, "got type %s, expected %s", onyx_dtype_name(got->dtype),
              onyx_dtype_name(exp->dtype));
    return 0;
  }
  int same_shape = got->rank == exp->rank && got->rank <= ONYX_MAX_RANK;
  for (uint32_t i = 0; same_shape && i < got->rank; i++)
    if (got->dims[i] != exp->dims[i]) same_shape = 0;
  if (!same_shape) {
    sb_printf(why, "got shape ");
    sb_dims(why, got->rank, got->dims);
    sb_printf(why, ", expected ");
    sb_dims(why, exp->rank, exp->dims);
    return 0;
  }
  size_t esize = onyx_dtype_size(exp->dtype);
  int ok;
  size_t count = element_count(exp, &ok);
  if (!ok || esize == 0 || count > SIZE_MAX / esize) {
    sb_printf(why, "expected tensor is too large");
    return 0;
  }
  size_t bytes = count * esize;
  if (exp->size < bytes || (bytes && !exp->data)) {
    sb_printf(why, "expected tensor holds %zu bytes, its shape needs %zu", exp->size, bytes);
    return 0;
  }
  if (got->size < bytes || (bytes && !got->data)) {
    sb_printf(why, "got %zu bytes of data, the shape needs %zu", got->size, bytes);
    return 0;
  }
  const unsigned char *g = got->data, *e = exp->data;
  int nan_equal = is_float_type(exp->dtype);
  for (size_t i = 0; i < count; i++) {
    const unsigned char *gp = g + i * esize, *ep = e + i * esize;
    if (memcmp(gp, ep, esize) == 0) continue;
    if (nan_equal && is_nan_value(exp->dtype, gp) && is_nan_value(exp->dtype, ep)) continue;
    char gs[VALUE_CHARS], es[VALUE_CHARS];
    format_value(gs, sizeof gs, exp->dtype, gp);
    format_value(es, sizeof es, exp->dtype, ep);
    if (strcmp(gs, es) == 0) {
      /* The same printed value with different bits (NaN against non-NaN
       * cannot print the same, so this is rare): show the bits. */
      format_bits(gs, sizeof gs, gp, esize);
      format_bits(es, sizeof es, ep, esize);
    }
    sb_printf(why, "element %zu (index ", i);
    sb_index(why, exp->rank, exp->dims, i);
    sb_printf(why, "): got %s, expected %s", gs, es);
    return 0;
  }
  return 1;
}

/* Runs one data set. Returns 1 when it passes, else 0 with the reason in why. */
static int run_data_set(onyx_session *session, const onyx_value_info *out_info, size_t n_in,
                        size_t n_out, const char *dir, const char *set_name, strbuf *why) {
  tensor_list inputs = {0}, expected = {0};
  onyx_tensor *got = NULL;
  int pass = 0;
  if (!load_numbered(dir, set_name, "input", &inputs, why)) goto done;
  if (!load_numbered(dir, set_name, "output", &expected, why)) goto done;
  if (inputs.len != n_in) {
    sb_printf(why, "%s: %zu input file%s, the model has %zu input%s", set_name, inputs.len,
              inputs.len == 1 ? "" : "s", n_in, n_in == 1 ? "" : "s");
    goto done;
  }
  if (expected.len != n_out) {
    sb_printf(why, "%s: %zu output file%s, the model has %zu output%s", set_name, expected.len,
              expected.len == 1 ? "" : "s", n_out, n_out == 1 ? "" : "s");
    goto done;
  }
  got = calloc(n_out ? n_out : 1, sizeof *got);
  if (!got) {
    sb_printf(why, "out of memory");
    goto done;
  }
  onyx_error err;
  cli_reset_error(&err);
  onyx_status st = onyx_session_run(session, inputs.items, n_in, got, n_out, &err);
  if (st != ONYX_OK) {
    sb_printf(why, "%s: %s (%s)", set_name, error_text(NULL, st, &err), onyx_status_name(st));
    goto done;
  }
  pass = 1;
  for (size_t k = 0; k < n_out && pass; k++) {
    strbuf detail = {0};
    if (!compare_output(&got[k], &expected.items[k], &detail)) {
      sb_printf(why, "%s output %zu '%s': %s", set_name, k, out_info[k].name, sb_str(&detail));
      pass = 0;
    }
    sb_free(&detail);
  }
done:
  if (got)
    for (size_t k = 0; k < n_out; k++) onyx_free(got[k].data);
  free(got);
  tensors_free(&inputs);
  tensors_free(&expected);
  return pass;
}

/* Runs one case folder. Returns 1 when it passes, else 0 with the reason. */
static int run_case(const char *dir, const onyx_session_options *opts, strbuf *why) {
  onyx_model *model = NULL;
  onyx_session *session = NULL;
  onyx_value_info *out_info = NULL;
  str_list names = {0};
  data_set *sets = NULL;
  size_t n_sets = 0;
  int pass = 0;
  onyx_error err;
  onyx_status st;

  char *model_path = path_join(dir, "model.onnx");
  if (!model_path) {
    sb_printf(why, "out of memory");
    goto done;
  }
  cli_reset_error(&err);
  st = onyx_model_load_file(model_path, &model, &err);
  if (st == ONYX_OK) {
    cli_reset_error(&err);
    st = onyx_session_create(model, opts, &session, &err);
  }
  if (st != ONYX_OK) {
    sb_printf(why, "model.onnx: %s (%s)", error_text(model_path, st, &err),
              onyx_status_name(st));
    goto done;
  }
  size_t n_in = onyx_session_input_count(session);
  size_t n_out = onyx_session_output_count(session);
  out_info = calloc(n_out ? n_out : 1, sizeof *out_info);
  if (!out_info) {
    sb_printf(why, "out of memory");
    goto done;
  }
  for (size_t k = 0; k < n_out; k++) {
    cli_reset_error(&err);
    st = onyx_session_output_info(session, k, &out_info[k], &err);
    if (st != ONYX_OK) {
      sb_printf(why, "%s (%s)", error_text(model_path, st, &err), onyx_status_name(st));
      goto done;
    }
  }

  DIR *d = opendir(dir);
  if (!d) {
    sb_printf(why, "%s", strerror(errno));
    goto done;
  }
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    unsigned long long number;
    if (!parse_data_set_name(e->d_name, &number)) continue;
    char *copy = str_printf("%s", e->d_name);
    if (!copy || !list_push(&names, copy)) {
      closedir(d);
      sb_printf(why, "out of memory");
      goto done;
    }
  }
  closedir(d);
  sets = calloc(names.len ? names.len : 1, sizeof *sets);
  if (!sets) {
    sb_printf(why, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < names.len; i++) {
    char *sub = path_join(dir, names.items[i]);
    if (!sub) {
      sb_printf(why, "out of memory");
      goto done;
    }
    struct stat sb;
    int is_dir = stat(sub, &sb) == 0 && S_ISDIR(sb.st_mode);
    free(sub);
    if (!is_dir) continue;
    parse_data_set_name(names.items[i], &sets[n_sets].number);
    sets[n_sets].name = names.items[i];
    n_sets++;
  }
  if (n_sets == 0) {
    sb_printf(why, "no test_data_set_N folder");
    goto done;
  }
  qsort(sets, n_sets, sizeof *sets, cmp_data_set);

  pass = 1;
  for (size_t i = 0; i < n_sets && pass; i++) {
    char *sub = path_join(dir, sets[i].name);
    if (!sub) {
      sb_printf(why, "out of memory");
      pass = 0;
      break;
    }
    pass = run_data_set(session, out_info, n_in, n_out, sub, sets[i].name, why);
    free(sub);
  }

done:
  free(sets);
  list_free(&names);
  free(out_info);
  onyx_session_free(session);
  onyx_model_free(model);
  free(model_path);
  return pass;
}

static int cmd_test(cli_args *a) {
  if (a->n_positional == 0) {
    cli_usage_error("test", "test: missing PATH");
    return CLI_USAGE;
  }
  str_list cases = {0};
  dir_set visited = {0};
  int read_error = 0;
  for (size_t i = 0; i < a->n_positional; i++) {
    const char *p = a->positional[i];
    struct stat sb;
    if (stat(p, &sb) != 0) {
      fprintf(stderr, "onyx: %s: %s\n", cli_esc(p), strerror(errno));
      read_error = 1;
    } else if (!S_ISDIR(sb.st_mode)) {
      fprintf(stderr, "onyx: %s: not a folder\n", cli_esc(p));
      read_error = 1;
    } else if (is_case_dir(p)) {
      int fresh = dir_set_add(&visited, &sb);
      char *copy = fresh > 0 ? str_printf("%s", p) : NULL;
      if (fresh < 0 || (fresh && (!copy || !list_push(&cases, copy)))) {
        cli_error_oom();
        list_free(&cases);
        free(visited.slots);
        return CLI_ERROR;
      }
    } else if (!find_cases(p, &visited, &cases)) {
      read_error = 1;
    }
  }
  free(visited.slots);

  size_t passed = 0, failed = 0;
  for (size_t i = 0; i < cases.len; i++) {
    strbuf why = {0};
    if (run_case(cases.items[i], &a->opts, &why)) {
      passed++;
      if (a->verbose) printf("ok %s\n", cli_esc(cases.items[i]));
    } else {
      failed++;
      printf("FAIL %s: %s\n", cli_esc(cases.items[i]), cli_esc(sb_str(&why)));
    }
    sb_free(&why);
    fflush(stdout);
  }
  printf("%zu passed, %zu failed\n", passed, failed);
  if (cases.len == 0) {
    fprintf(stderr, "onyx: no test case found (a case folder holds model.onnx)\n");
  }
  list_free(&cases);
  if (read_error) return CLI_ERROR;
  return (failed || passed == 0) ? CLI_TEST_FAILED : CLI_OK;
}

/* ---- main --------------------------------------------------------------- */

/* Flushes stdout; a write error (a full disk, a closed pipe) turns a
 * successful exit code into CLI_ERROR. */
static int finish_stdout(int rc) {
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "onyx: stdout: write error\n");
    if (rc == CLI_OK || rc == CLI_TEST_FAILED) rc = CLI_ERROR;
  }
  return rc;
}

static int run_command(int argc, char **argv) {
  if (argc < 2) {
    fputs(HELP_MAIN, stderr);
    return CLI_USAGE;
  }
  const char *command = argv[1];
  if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 ||
      strcmp(command, "help") == 0) {
    const char *topic = argc > 2 && argv[2][0] != '-' ? argv[2] : NULL;
    const char *text = command_help(topic);
    if (!text) {
      cli_usage_error(NULL, "help: unknown command '%s'", topic);
      return CLI_USAGE;
    }
    fputs(text, stdout);
    return finish_stdout(CLI_OK);
  }
  if (strcmp(command, "--version") == 0) {
    printf("onyx %s (ai.onnx opset up to %" PRId64 ", isa %s)\n", onyx_version(),
           onyx_max_opset(), onyx_isa_name(onyx_isa_detected()));
    return finish_stdout(CLI_OK);
  }

  int (*run)(cli_args *) = NULL;
  unsigned allowed = OPT_THREADS | OPT_ISA;
  if (strcmp(command, "run") == 0) {
    run = cmd_run;
    allowed |= OPT_INPUT | OPT_OUTPUT_DIR | OPT_FORMAT;
  } else if (strcmp(command, "test") == 0) {
    run = cmd_test;
    allowed |= OPT_VERBOSE;
  } else if (strcmp(command, "info") == 0) {
    run = cmd_info;
  } else if (strcmp(command, "bench") == 0) {
    run = cli_bench;
    allowed |= OPT_SHAPE | OPT_WARMUP | OPT_RUNS | OPT_DURATION | OPT_PER_NODE | OPT_PROGRESS;
  } else {
    cli_usage_error(NULL, command[0] == '-' ? "unknown option '%s'" : "unknown command '%s'",
                command);
    return CLI_USAGE;
  }
  if (wants_help(argc, argv, 2)) {
    fputs(command_help(command), stdout);
    return finish_stdout(CLI_OK);
  }

  cli_args a;
  memset(&a, 0, sizeof a);
  a.command = command;
  a.warmup = -1;
  a.runs = -1;
  a.duration = -1;
  onyx_session_options_init(&a.opts);
  int rc = parse_args(argc, argv, 2, allowed, &a);
  if (rc == CLI_OK) rc = run(&a);
  free_args(&a);
  return finish_stdout(rc);
}

int main(int argc, char **argv) {
  int rc = run_command(argc, argv);
  cli_esc_release();
  return rc;
}
