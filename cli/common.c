/* SPDX-License-Identifier: MIT */
/*
 * What the commands share: error lines, escaping for printing, paths and
 * growable strings, and opening a model with its session.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "onyx.h"

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
int cli_needs_escape(unsigned char c) { return c < 0x20 || c > 0x7e; }

const char *cli_esc_n(const char *s, size_t len) {
  size_t need = 1;
  for (size_t i = 0; i < len; i++) need += cli_needs_escape((unsigned char)s[i]) ? 4 : 1;
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
    if (!cli_needs_escape(c)) {
      *o++ = (char)c;
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
    if (cli_needs_escape((unsigned char)s[len])) clean = 0;
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
const char *cli_error_text(const char *file, onyx_status st, const onyx_error *err) {
  if (!err || !err->message[0]) return onyx_status_description(st);
  const char *msg = err->message;
  size_t len = file ? strlen(file) : 0;
  if (len && strncmp(msg, file, len) == 0 && msg[len] == ':' && msg[len + 1] == ' ') msg += len + 2;
  return msg[0] ? msg : onyx_status_description(st);
}

/* Reports a failed onyx call: "onyx: FILE: message (ONYX_STATUS)". */
void cli_report(const char *file, onyx_status st, const onyx_error *err) {
  fprintf(stderr, "onyx: %s: %s (%s)\n", cli_esc(file), cli_esc(cli_error_text(file, st, err)),
          onyx_status_name(st));
}

void cli_reset_error(onyx_error *err) {
  err->status = ONYX_OK;
  err->message[0] = '\0';
}

/* Returns a new string "a/b" (no doubled '/'), or NULL when out of memory. */
char *cli_path_join(const char *a, const char *b) {
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
char *cli_str_printf(const char *fmt, ...) {
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

void cli_sb_printf(cli_strbuf *sb, const char *fmt, ...) {
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

const char *cli_sb_str(const cli_strbuf *sb) {
  if (sb->oom) return "out of memory";
  return sb->data ? sb->data : "";
}

void cli_sb_free(cli_strbuf *sb) {
  free(sb->data);
  sb->data = NULL;
  sb->len = sb->cap = 0;
  sb->oom = 0;
}

/* Number of elements of t, or 0 with *ok = 0 on overflow or a negative dim. */
size_t cli_element_count(const onyx_tensor *t, int *ok) {
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

void cli_put_json(FILE *out, const char *s) {
  fputc('"', out);
  for (const char *p = cli_esc(s); *p; p++) {
    if (*p == '"' || *p == '\\') fputc('\\', out);
    fputc(*p, out);
  }
  fputc('"', out);
}

void cli_put_json_dims(FILE *out, uint32_t rank, const int64_t *dims) {
  fputc('[', out);
  for (uint32_t i = 0; i < rank && i < ONYX_MAX_RANK; i++)
    fprintf(out, "%s%" PRId64, i ? ", " : "", dims[i]);
  fputc(']', out);
}

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

/* Reads the session's input (in = 1) or output descriptions into m. */
static int read_infos(cli_model *m, int in) {
  size_t n = in ? m->n_in : m->n_out;
  onyx_value_info *infos = calloc(n ? n : 1, sizeof *infos);
  if (!infos) {
    cli_error_oom();
    return CLI_ERROR;
  }
  if (in)
    m->in_info = infos;
  else
    m->out_info = infos;
  for (size_t i = 0; i < n; i++) {
    onyx_error err;
    cli_reset_error(&err);
    onyx_status st = in ? onyx_session_input_info(m->session, i, &infos[i], &err)
                        : onyx_session_output_info(m->session, i, &infos[i], &err);
    if (st != ONYX_OK) {
      cli_report(m->path, st, &err);
      return CLI_ERROR;
    }
  }
  return CLI_OK;
}

int cli_model_open(const char *path, const onyx_session_options *opts, cli_model *m) {
  memset(m, 0, sizeof *m);
  m->path = path;
  int rc = cli_open_model(path, opts, &m->model, &m->session);
  return rc == CLI_OK ? cli_model_read_infos(m) : rc;
}

int cli_model_read_infos(cli_model *m) {
  m->n_in = onyx_session_input_count(m->session);
  m->n_out = onyx_session_output_count(m->session);
  int rc = read_infos(m, 1);
  if (rc == CLI_OK) rc = read_infos(m, 0);
  if (rc != CLI_OK) cli_model_close(m);
  return rc;
}

void cli_model_close(cli_model *m) {
  free(m->in_info);
  free(m->out_info);
  onyx_session_free(m->session);
  onyx_model_free(m->model);
  memset(m, 0, sizeof *m);
}
