/* SPDX-License-Identifier: MIT */
/*
 * check_bad_models: runs the invalid-model cases that tests/gen/gen_cases.py
 * writes under OUTDIR/bad, through the public API only.
 *
 *   check_bad_models [-v] [--ops LIB] DIR
 *
 * With --ops, every session has the op library LIB's operators registered
 * (tests/custom: cases of nodes that registered operators refuse).
 *
 * Each folder DIR/<case>/ holds model.onnx, expect.txt and, for run-stage
 * cases, input_0.pb, input_1.pb, ... expect.txt has the lines
 *
 *   status ONYX_<NAME>     the status the failing call must return
 *   message <text>         (any number) text the error message must contain
 *   stage run              (optional) loading and session creation must
 *                          succeed; onyx_session_run with the input files
 *                          must fail
 *
 *   mutate NAME            (with "stage run") the inputs load and are valid;
 *                          NAME changes one thing before the run (a NULL
 *                          pointer, a short buffer, a count, a dim; see
 *                          apply_mutation), and the run must fail
 *   truncate STATUS...     (instead of "status") model.onnx is valid, and
 *                          every strict prefix of it, from a file and from
 *                          memory, must fail with one of the STATUSes
 *   on32 LINE              on a host whose size_t has 32 bits, the on32
 *                          lines replace the status and messages above
 *                          (a tensor larger than the address space is
 *                          refused before its data is looked at); on
 *                          other hosts they are ignored
 *
 * Without "stage run", onyx_model_load_file or onyx_session_create must fail
 * with the status. The call's onyx_error must carry the same status and a
 * non-empty message. After the cases, the limits no generated file can
 * reach are checked (a model over the file size limit, from memory and as a
 * sparse file). Prints one line per failure and "N passed, N failed";
 * exits 0 when every case passed, 1 on any failure or when there is no
 * case at all, 2 on a usage error. -v also prints each passing case with
 * its message.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "onyx.h"

/* The options of every session: NULL, or with --ops the library's ops. */
static const onyx_session_options *session_opts;

#define MAX_MESSAGES 16
#define MAX_INPUTS   16
#define LINE_CAP     512
#define PATH_CAP     4096

#define MAX_STATUSES 8

typedef struct expectation {
  onyx_status status;
  char messages[MAX_MESSAGES][LINE_CAP];
  int n_messages;
  int stage_run;
  char mutation[64];
  onyx_status truncate[MAX_STATUSES];
  int n_truncate;
} expectation;

static int is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Formats a failure reason into why (cap bytes), cutting it if too long. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
say(char *why, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, cap, fmt, ap);
  va_end(ap);
}

/* Writes dir/name into out; returns 0 (and an empty out) if it does not fit. */
static int join_path(char *out, size_t cap, const char *dir, const char *name) {
  int n = snprintf(out, cap, "%s/%s", dir, name);
  if (n < 0 || (size_t)n >= cap) {
    out[0] = '\0';
    return 0;
  }
  return 1;
}

/* The status whose name is `name` ("ONYX_TYPE"); returns 0 if none is. */
static int status_from_name(const char *name, onyx_status *out) {
  int v;
  for (v = 0; v < 64; v++) {
    if (strcmp(onyx_status_name((onyx_status)v), name) == 0) {
      *out = (onyx_status)v;
      return 1;
    }
  }
  return 0;
}

static void strip_newline(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r')) s[--n] = '\0';
}

/* Reads path into *e; on failure writes why and returns 0. */
static int read_expectation(const char *path, expectation *e, char *why, size_t cap) {
  char line[LINE_CAP + 16];
  int have_status = 0;
  FILE *f = fopen(path, "r");
  memset(e, 0, sizeof *e);
  if (f == NULL) {
    say(why, cap, "cannot open %s", path);
    return 0;
  }
  int on32_seen = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    strip_newline(line);
    if (line[0] == '\0') continue;
    if (strncmp(line, "on32 ", 5) == 0) {
      if (SIZE_MAX > UINT32_MAX) continue;
      if (!on32_seen) e->n_messages = 0, have_status = 0, on32_seen = 1;
      memmove(line, line + 5, strlen(line + 5) + 1);
    }
    if (strncmp(line, "status ", 7) == 0) {
      if (!status_from_name(line + 7, &e->status)) {
        say(why, cap, "expect.txt: unknown status '%s'", line + 7);
        fclose(f);
        return 0;
      }
      have_status = 1;
    } else if (strncmp(line, "message ", 8) == 0 && strlen(line + 8) < LINE_CAP) {
      if (e->n_messages == MAX_MESSAGES) {
        say(why, cap, "expect.txt: more than %d message lines", MAX_MESSAGES);
        fclose(f);
        return 0;
      }
      strcpy(e->messages[e->n_messages++], line + 8);
    } else if (strcmp(line, "stage run") == 0) {
      e->stage_run = 1;
    } else if (strncmp(line, "mutate ", 7) == 0 && strlen(line + 7) < sizeof e->mutation) {
      strcpy(e->mutation, line + 7);
    } else if (strncmp(line, "truncate ", 9) == 0) {
      char *save = NULL;
      for (char *tok = strtok_r(line + 9, " ", &save); tok != NULL;
           tok = strtok_r(NULL, " ", &save)) {
        if (e->n_truncate == MAX_STATUSES || !status_from_name(tok, &e->truncate[e->n_truncate])) {
          say(why, cap, "expect.txt: bad truncate status '%s'", tok);
          fclose(f);
          return 0;
        }
        e->n_truncate++;
      }
      have_status = e->n_truncate > 0;
    } else {
      say(why, cap, "expect.txt: cannot read the line '%.200s'", line);
      fclose(f);
      return 0;
    }
  }
  fclose(f);
  if (!have_status) {
    say(why, cap, "expect.txt: no status line");
    return 0;
  }
  return 1;
}

/* Loads input_0.pb, input_1.pb, ... of case_dir into inputs; returns the
 * count, or -1 (with why) when a file exists but does not load. */
static int load_inputs(const char *case_dir, onyx_tensor *inputs, char *why, size_t cap) {
  int k;
  for (k = 0; k < MAX_INPUTS; k++) {
    char path[PATH_CAP];
    char file[32];
    onyx_error err;
    onyx_status st;
    snprintf(file, sizeof file, "input_%d.pb", k);
    if (!join_path(path, sizeof path, case_dir, file) || !is_file(path)) break;
    memset(&err, 0, sizeof err);
    st = onyx_tensor_load_file(path, &inputs[k], NULL, &err);
    if (st != ONYX_OK) {
      say(why, cap, "input_%d.pb does not load: %s: %s", k, onyx_status_name(st), err.message);
      return -1 - k; /* the first k inputs are loaded and must be freed */
    }
  }
  return k;
}

/* One onyx_session_run call, as a mutation may change it. */
typedef struct run_call {
  onyx_session *session;
  const onyx_tensor *inputs;
  size_t n_inputs;
  onyx_tensor *outputs;
  size_t n_outputs;
} run_call;

/*
 * Changes one thing about a valid run. The inputs are the case's (input 0
 * at least); *own is set when the outputs are caller buffers that
 * run_stage must free with free() rather than onyx_free(). Returns 0 (with
 * why) for an unknown mutation or a failed set-up.
 */
static int apply_mutation(const char *name, run_call *c, onyx_tensor *inputs, int *own, char *why,
                          size_t cap) {
  if (strcmp(name, "null_input_data") == 0) {
    inputs[0].data = NULL; /* the caller of run_stage keeps the real pointer */
  } else if (strcmp(name, "short_input") == 0) {
    inputs[0].size -= 1;
  } else if (strcmp(name, "short_output") == 0) {
    /* A first run tells the sizes; then output 0 gets one byte less. */
    onyx_error err;
    size_t o;
    if (onyx_session_run(c->session, c->inputs, c->n_inputs, c->outputs, c->n_outputs, &err) !=
        ONYX_OK) {
      say(why, cap, "the unmutated run failed: %s", err.message);
      return 0;
    }
    for (o = 0; o < c->n_outputs; o++) {
      size_t size = c->outputs[o].size - (o == 0 && c->outputs[o].size > 0 ? 1 : 0);
      onyx_free(c->outputs[o].data);
      c->outputs[o].data = malloc(size + 1);
      c->outputs[o].size = size;
      if (c->outputs[o].data == NULL) {
        say(why, cap, "out of memory");
        return 0;
      }
    }
    *own = 1;
  } else if (strcmp(name, "null_inputs") == 0) {
    c->inputs = NULL;
  } else if (strcmp(name, "null_outputs") == 0) {
    c->outputs = NULL;
  } else if (strcmp(name, "null_session") == 0) {
    c->session = NULL;
  } else if (strcmp(name, "no_inputs") == 0) {
    c->n_inputs = 0;
  } else if (strcmp(name, "extra_input") == 0) {
    /* inputs has room for one more than load_inputs reads */
    inputs[c->n_inputs] = inputs[0];
    c->n_inputs++;
  } else if (strcmp(name, "extra_output") == 0) {
    c->n_outputs++; /* run_stage allocates one spare output */
  } else if (strcmp(name, "negative_dim") == 0) {
    inputs[0].dims[0] = -1;
  } else if (strcmp(name, "huge_dim") == 0) {
    inputs[0].dims[0] = INT64_C(1) << 62;
  } else if (strcmp(name, "rank_17") == 0) {
    inputs[0].rank = ONYX_MAX_RANK + 1;
  } else if (strcmp(name, "unknown_dtype") == 0) {
    inputs[0].dtype = (onyx_dtype)999;
  } else {
    say(why, cap, "expect.txt: unknown mutation '%s'", name);
    return 0;
  }
  return 1;
}

/* Runs the session on the case's inputs; returns the run's status. */
static onyx_status run_stage(onyx_session *session, const char *case_dir, const char *mutation,
                             onyx_error *err, int *setup_failed, char *why, size_t cap) {
  onyx_tensor inputs[MAX_INPUTS + 1], given[MAX_INPUTS + 1];
  onyx_tensor *outputs;
  size_t n_out = onyx_session_output_count(session);
  size_t i;
  int n_in, own = 0;
  onyx_status st = ONYX_OK;
  run_call call;

  memset(inputs, 0, sizeof inputs);
  n_in = load_inputs(case_dir, inputs, why, cap);
  if (n_in < 0) {
    int loaded = -1 - n_in;
    for (i = 0; i < (size_t)loaded; i++) onyx_free(inputs[i].data);
    *setup_failed = 1;
    return ONYX_OK;
  }
  outputs = calloc(n_out + 1, sizeof *outputs);
  if (outputs == NULL) {
    for (i = 0; i < (size_t)n_in; i++) onyx_free(inputs[i].data);
    say(why, cap, "out of memory");
    *setup_failed = 1;
    return ONYX_OK;
  }
  /* The run sees copies, so that a mutation cannot lose a buffer. */
  memcpy(given, inputs, sizeof given);
  call.session = session;
  call.inputs = given;
  call.n_inputs = (size_t)n_in;
  call.outputs = outputs;
  call.n_outputs = n_out;
  if (mutation[0] != '\0') {
    if (n_in < 1) {
      say(why, cap, "a mutation needs input_0.pb");
      *setup_failed = 1;
    } else if (!apply_mutation(mutation, &call, given, &own, why, cap)) {
      *setup_failed = 1;
    }
  }
  if (!*setup_failed) {
    st = onyx_session_run(call.session, call.inputs, call.n_inputs, call.outputs, call.n_outputs,
                          err);
  }
  for (i = 0; i < n_out; i++) {
    if (own)
      free(outputs[i].data);
    else
      onyx_free(outputs[i].data);
  }
  free(outputs);
  for (i = 0; i < (size_t)n_in; i++) onyx_free(inputs[i].data);
  return st;
}

/* Copies message into out with every occurrence of `remove` cut out, so
 * that the expected text cannot match the case's own folder name. */
static void without(const char *message, const char *remove, char *out, size_t cap) {
  size_t n = 0, rlen = strlen(remove);
  while (*message != '\0' && n + 1 < cap) {
    if (rlen > 0 && strncmp(message, remove, rlen) == 0) {
      message += rlen;
      continue;
    }
    out[n++] = *message++;
  }
  out[n] = '\0';
}

/* Checks a failure of `what`: a status from the list, the same status in
 * the error record, a message. Returns 1 if it is right. */
static int failed_cleanly(const char *what, onyx_status st, const onyx_error *err,
                          const onyx_status *allowed, int n_allowed, char *why, size_t cap) {
  int i, ok = 0;
  if (st == ONYX_OK) {
    say(why, cap, "%s succeeded", what);
    return 0;
  }
  for (i = 0; i < n_allowed; i++) ok |= st == allowed[i];
  if (!ok) {
    say(why, cap, "%s: unexpected %s: %s", what, onyx_status_name(st), err->message);
    return 0;
  }
  if (err->status != st || memchr(err->message, '\0', sizeof err->message) == NULL ||
      err->message[0] == '\0') {
    say(why, cap, "%s: %s with a wrong error record", what, onyx_status_name(st));
    return 0;
  }
  return 1;
}

/* Loads (and, if that works, creates a session for) a model. */
static onyx_status load_and_create(const char *path, const void *bytes, size_t size,
                                   onyx_error *err) {
  onyx_model *model = (onyx_model *)err;
  onyx_session *session = (onyx_session *)err;
  onyx_status st = path != NULL ? onyx_model_load_file(path, &model, err)
                                : onyx_model_load_memory(bytes, size, &model, err);
  if (st != ONYX_OK) {
    if (model != NULL) err->status = ONYX_INTERNAL; /* *out must be NULL */
    return st;
  }
  st = onyx_session_create(model, session_opts, &session, err);
  if (st != ONYX_OK && session != NULL) err->status = ONYX_INTERNAL;
  if (st == ONYX_OK) onyx_session_free(session);
  onyx_model_free(model);
  return st;
}

/* Reads a whole file into a new buffer; returns NULL on failure. */
static unsigned char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  unsigned char *buf = NULL;
  long n;
  if (f == NULL) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
    buf = malloc((size_t)n + 1);
    if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
      free(buf);
      buf = NULL;
    }
    *size = (size_t)n;
  }
  fclose(f);
  return buf;
}

static int write_file(const char *path, const void *bytes, size_t size) {
  FILE *f = fopen(path, "wb");
  int ok;
  if (f == NULL) return 0;
  ok = size == 0 || fwrite(bytes, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

#if defined(_WIN32)
#include <direct.h>
#include <io.h>
/* Windows' C runtime has no mkdtemp: _mktemp names, _mkdir creates (and
 * fails if another process took the name meanwhile). */
static char *mkdtemp(char *templ) {
  return _mktemp(templ) != NULL && _mkdir(templ) == 0 ? templ : NULL;
}
#endif

/* A new empty folder for temporary files, in TMPDIR or /tmp. */
static int make_temp_dir(char *out, size_t cap) {
  const char *tmp = getenv("TMPDIR");
  const char *base = tmp != NULL && tmp[0] ? tmp : "/tmp";
#if defined(__wasi__)
  /* WASI has no mkdtemp: names from the clock, until mkdir makes a new
   * folder (it fails with EEXIST on an existing one). */
  for (unsigned k = 0; k < 100; k++) {
    struct timespec ts = {0, 0};
    (void)clock_gettime(CLOCK_REALTIME, &ts);
    int n = snprintf(out, cap, "%s/onyx_bad_%ld_%u", base, (long)ts.tv_nsec, k);
    if (n <= 0 || (size_t)n >= cap) return 0;
    if (mkdir(out, 0700) == 0) return 1;
    if (errno != EEXIST) return 0;
  }
  return 0;
#else
  int n = snprintf(out, cap, "%s/onyx_bad_XXXXXX", base);
  return n > 0 && (size_t)n < cap && mkdtemp(out) != NULL;
#endif
}

/* The "truncate" cases: model.onnx works, and each of its strict prefixes,
 * from memory (a buffer of exactly that size) and from a file, fails. */
static int check_truncations(const char *case_dir, const expectation *e, int verbose,
                             const char *name, char *why, size_t cap) {
  char path[PATH_CAP], dir[PATH_CAP], file[PATH_CAP], what[128];
  size_t size = 0, len;
  unsigned char *bytes;
  onyx_error err;
  int ok = 1;
  if (!join_path(path, sizeof path, case_dir, "model.onnx") ||
      (bytes = read_file(path, &size)) == NULL) {
    say(why, cap, "cannot read model.onnx");
    return 0;
  }
  memset(&err, 0, sizeof err);
  if (load_and_create(path, NULL, 0, &err) != ONYX_OK) {
    say(why, cap, "the whole model fails: %s", err.message);
    free(bytes);
    return 0;
  }
  if (!make_temp_dir(dir, sizeof dir) || !join_path(file, sizeof file, dir, "cut.onnx")) {
    say(why, cap, "cannot make a temporary folder");
    free(bytes);
    return 0;
  }
  for (len = 0; len < size && ok; len++) {
    unsigned char *prefix = malloc(len ? len : 1);
    onyx_status st;
    if (prefix == NULL) {
      say(why, cap, "out of memory");
      ok = 0;
      break;
    }
    if (len) memcpy(prefix, bytes, len);
    memset(&err, 0, sizeof err);
    st = load_and_create(NULL, prefix, len, &err);
    snprintf(what, sizeof what, "the first %zu of %zu bytes, from memory,", len, size);
    ok = failed_cleanly(what, st, &err, e->truncate, e->n_truncate, why, cap);
    free(prefix);
    if (!ok) break;
    if (!write_file(file, bytes, len)) {
      say(why, cap, "cannot write %s", file);
      ok = 0;
      break;
    }
    memset(&err, 0, sizeof err);
    st = load_and_create(file, NULL, 0, &err);
    snprintf(what, sizeof what, "the first %zu of %zu bytes, from a file,", len, size);
    ok = failed_cleanly(what, st, &err, e->truncate, e->n_truncate, why, cap);
  }
  unlink(file);
  rmdir(dir);
  free(bytes);
  if (ok && verbose) printf("ok %s: all %zu prefixes fail\n", name, size);
  return ok;
}

/*
 * The file size limit (ONYX__MAX_FILE_SIZE, 2^40 bytes), which no generated
 * file can reach: from memory with a size just over it (onyx refuses before
 * reading a byte), and as a sparse file just over it, where the file system
 * allows one. Adds to the counts.
 */
static void check_file_size_limit(int verbose, int *passed, int *failed) {
  const uint64_t limit = UINT64_C(1) << 40;
  static const onyx_status want[1] = {ONYX_LIMIT};
  char why[512], dir[PATH_CAP], file[PATH_CAP];
  onyx_error err;
  onyx_model *model = NULL;
  unsigned char byte = 0;
  onyx_status st;

  memset(&err, 0, sizeof err);
  if (sizeof(size_t) >= 8) {
    st = onyx_model_load_memory(&byte, (size_t)(limit + 1), &model, &err);
    if (failed_cleanly("a model of 2^40 + 1 bytes in memory", st, &err, want, 1, why, sizeof why) &&
        strstr(err.message, "1099511627776") != NULL && model == NULL) {
      (*passed)++;
      if (verbose) printf("ok limit_file_size_memory: %s\n", err.message);
    } else {
      printf("FAIL limit_file_size_memory: %s (%s)\n", why, err.message);
      (*failed)++;
    }
  }
  if (make_temp_dir(dir, sizeof dir) && join_path(file, sizeof file, dir, "huge.onnx")) {
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0 && ftruncate(fd, (off_t)(limit + 1)) == 0) {
      close(fd);
      memset(&err, 0, sizeof err);
      st = onyx_model_load_file(file, &model, &err);
      if (failed_cleanly("a sparse file of 2^40 + 1 bytes", st, &err, want, 1, why, sizeof why) &&
          strstr(err.message, "1099511627776") != NULL && model == NULL) {
        (*passed)++;
        if (verbose) printf("ok limit_file_size_file: %s\n", err.message);
      } else {
        printf("FAIL limit_file_size_file: %s (%s)\n", why, err.message);
        (*failed)++;
      }
    } else {
      if (fd >= 0) close(fd);
      if (verbose) printf("skip limit_file_size_file: no sparse file of 2^40 + 1 bytes here\n");
    }
    unlink(file);
    rmdir(dir);
  }
}

/* Runs one case; returns 1 when it passed, else 0 with why filled in. */
static int check_case(const char *case_dir, int verbose, const char *name, char *why, size_t cap) {
  expectation e;
  char path[PATH_CAP];
  char text[sizeof((onyx_error *)0)->message];
  onyx_error err;
  onyx_model *model = NULL;
  onyx_session *session = NULL;
  onyx_status st;
  const char *stage = "load";
  int setup_failed = 0;
  int ok = 0;
  int i;

  if (!join_path(path, sizeof path, case_dir, "expect.txt") ||
      !read_expectation(path, &e, why, cap))
    return 0;
  if (e.n_truncate > 0) return check_truncations(case_dir, &e, verbose, name, why, cap);

  memset(&err, 0, sizeof err);
  err.status = ONYX_OK;
  if (!join_path(path, sizeof path, case_dir, "model.onnx")) {
    say(why, cap, "path too long");
    return 0;
  }
  st = onyx_model_load_file(path, &model, &err);
  if (st == ONYX_OK) {
    stage = "session";
    st = onyx_session_create(model, session_opts, &session, &err);
  }
  if (e.stage_run) {
    if (st != ONYX_OK) {
      say(why, cap, "the %s stage failed (%s: %s) but only the run should fail", stage,
          onyx_status_name(st), err.message);
      goto done;
    }
    stage = "run";
    st = run_stage(session, case_dir, e.mutation, &err, &setup_failed, why, cap);
    if (setup_failed) goto done;
  }
  if (st == ONYX_OK) {
    say(why, cap, "expected %s, but every stage succeeded", onyx_status_name(e.status));
    goto done;
  }
  if (st != e.status) {
    say(why, cap, "expected %s, got %s at %s: %s", onyx_status_name(e.status), onyx_status_name(st),
        stage, err.message);
    goto done;
  }
  if (err.status != st) {
    say(why, cap, "%s returned %s but the error record says %s", stage, onyx_status_name(st),
        onyx_status_name(err.status));
    goto done;
  }
  if (memchr(err.message, '\0', sizeof err.message) == NULL || err.message[0] == '\0') {
    say(why, cap, "%s at %s with an empty or unterminated message", onyx_status_name(st), stage);
    goto done;
  }
  /* The model's path (it names the case) does not count. */
  without(err.message, case_dir, text, sizeof text);
  for (i = 0; i < e.n_messages; i++) {
    if (strstr(text, e.messages[i]) == NULL) {
      say(why, cap, "%s at %s, but the message lacks '%s': %s", onyx_status_name(st), stage,
          e.messages[i], err.message);
      goto done;
    }
  }
  ok = 1;
  if (verbose) printf("ok %s: %s at %s: %s\n", name, onyx_status_name(st), stage, err.message);
done:
  onyx_session_free(session);
  onyx_model_free(model);
  return ok;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(int argc, char **argv) {
  const char *root;
  int verbose = 0;
  DIR *d;
  struct dirent *ent;
  char **names = NULL;
  size_t n_names = 0, cap_names = 0, i;
  int passed = 0, failed = 0;

  onyx_op_registry *ops = NULL;
  onyx_session_options opts;
  int a = 1;
  if (a < argc && strcmp(argv[a], "-v") == 0) verbose = 1, a++;
  if (a + 1 < argc && strcmp(argv[a], "--ops") == 0) {
    onyx_error err;
    onyx_session_options_init(&opts);
    if (onyx_op_registry_create(&ops, &err) != ONYX_OK ||
        onyx_op_registry_load_library(ops, argv[a + 1], &err) != ONYX_OK) {
      fprintf(stderr, "%s: %s\n", argv[0], err.message);
      return 2;
    }
    opts.ops = ops;
    session_opts = &opts;
    a += 2;
  }
  if (a + 1 != argc) {
    fprintf(stderr, "usage: %s [-v] [--ops LIB] DIR\n", argv[0]);
    return 2;
  }
  root = argv[a];
  d = opendir(root);
  if (d == NULL) {
    fprintf(stderr, "%s: cannot open the folder %s\n", argv[0], root);
    printf("0 passed, 1 failed\n");
    return 1;
  }
  while ((ent = readdir(d)) != NULL) {
    char *copy;
    if (ent->d_name[0] == '.') continue;
    if (n_names == cap_names) {
      size_t ncap = cap_names ? cap_names * 2 : 64;
      char **grown = realloc(names, ncap * sizeof *grown);
      if (grown == NULL) break;
      names = grown;
      cap_names = ncap;
    }
    copy = malloc(strlen(ent->d_name) + 1);
    if (copy == NULL) break;
    strcpy(copy, ent->d_name);
    names[n_names++] = copy;
  }
  closedir(d);
  if (n_names > 0) qsort(names, n_names, sizeof *names, compare_names);

  for (i = 0; i < n_names; i++) {
    char case_dir[PATH_CAP];
    char why[2 * LINE_CAP + 256];
    if (!join_path(case_dir, sizeof case_dir, root, names[i])) {
      printf("FAIL %s: path too long\n", names[i]);
      failed++;
      continue;
    }
    if (!is_dir(case_dir)) continue;
    why[0] = '\0';
    if (check_case(case_dir, verbose, names[i], why, sizeof why)) {
      passed++;
    } else {
      printf("FAIL %s: %s\n", names[i], why);
      failed++;
    }
  }
  for (i = 0; i < n_names; i++) free(names[i]);
  free(names);
  if (passed + failed > 0) check_file_size_limit(verbose, &passed, &failed);

  if (passed + failed == 0) {
    printf("no cases found in %s\n", root);
    failed = 1;
  }
  onyx_op_registry_free(ops);
  printf("%d passed, %d failed\n", passed, failed);
  return failed > 0 ? 1 : 0;
}
