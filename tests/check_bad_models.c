/*
 * check_bad_models: runs the invalid-model cases that tests/gen/gen_cases.py
 * writes under OUTDIR/bad, through the public API only.
 *
 *   check_bad_models [-v] DIR
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
 * Without "stage run", onyx_model_load_file or onyx_session_create must fail
 * with the status. The call's onyx_error must carry the same status and a
 * non-empty message. Prints one line per failure and "N passed, N failed";
 * exits 0 when every case passed, 1 on any failure or when there is no
 * case at all, 2 on a usage error. -v also prints each passing case with
 * its message.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "onyx.h"

#define MAX_MESSAGES 16
#define MAX_INPUTS 16
#define LINE_CAP 512
#define PATH_CAP 4096

typedef struct expectation {
  onyx_status status;
  char messages[MAX_MESSAGES][LINE_CAP];
  int n_messages;
  int stage_run;
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
static void say(char *why, size_t cap, const char *fmt, ...) {
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
  while (fgets(line, sizeof line, f) != NULL) {
    strip_newline(line);
    if (line[0] == '\0') continue;
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
      say(why, cap, "input_%d.pb does not load: %s: %s", k, onyx_status_name(st),
               err.message);
      return -1 - k; /* the first k inputs are loaded and must be freed */
    }
  }
  return k;
}

/* Runs the session on the case's inputs; returns the run's status. */
static onyx_status run_stage(onyx_session *session, const char *case_dir, onyx_error *err,
                             int *setup_failed, char *why, size_t cap) {
  onyx_tensor inputs[MAX_INPUTS];
  onyx_tensor *outputs;
  size_t n_out = onyx_session_output_count(session);
  size_t i;
  int n_in;
  onyx_status st = ONYX_OK;

  memset(inputs, 0, sizeof inputs);
  n_in = load_inputs(case_dir, inputs, why, cap);
  if (n_in < 0) {
    int loaded = -1 - n_in;
    for (i = 0; i < (size_t)loaded; i++) onyx_free(inputs[i].data);
    *setup_failed = 1;
    return ONYX_OK;
  }
  outputs = calloc(n_out > 0 ? n_out : 1, sizeof *outputs);
  if (outputs == NULL) {
    for (i = 0; i < (size_t)n_in; i++) onyx_free(inputs[i].data);
    say(why, cap, "out of memory");
    *setup_failed = 1;
    return ONYX_OK;
  }
  st = onyx_session_run(session, inputs, (size_t)n_in, outputs, n_out, err);
  for (i = 0; i < n_out; i++) onyx_free(outputs[i].data);
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

/* Runs one case; returns 1 when it passed, else 0 with why filled in. */
static int check_case(const char *case_dir, int verbose, const char *name, char *why,
                      size_t cap) {
  expectation e;
  char path[PATH_CAP];
  char text[sizeof ((onyx_error *)0)->message];
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

  memset(&err, 0, sizeof err);
  err.status = ONYX_OK;
  if (!join_path(path, sizeof path, case_dir, "model.onnx")) {
    say(why, cap, "path too long");
    return 0;
  }
  st = onyx_model_load_file(path, &model, &err);
  if (st == ONYX_OK) {
    stage = "session";
    st = onyx_session_create(model, NULL, &session, &err);
  }
  if (e.stage_run) {
    if (st != ONYX_OK) {
      say(why, cap, "the %s stage failed (%s: %s) but only the run should fail", stage,
               onyx_status_name(st), err.message);
      goto done;
    }
    stage = "run";
    st = run_stage(session, case_dir, &err, &setup_failed, why, cap);
    if (setup_failed) goto done;
  }
  if (st == ONYX_OK) {
    say(why, cap, "expected %s, but every stage succeeded", onyx_status_name(e.status));
    goto done;
  }
  if (st != e.status) {
    say(why, cap, "expected %s, got %s at %s: %s", onyx_status_name(e.status),
             onyx_status_name(st), stage, err.message);
    goto done;
  }
  if (err.status != st) {
    say(why, cap, "%s returned %s but the error record says %s", stage,
             onyx_status_name(st), onyx_status_name(err.status));
    goto done;
  }
  if (memchr(err.message, '\0', sizeof err.message) == NULL || err.message[0] == '\0') {
    say(why, cap, "%s at %s with an empty or unterminated message",
             onyx_status_name(st), stage);
    goto done;
  }
  /* The model's path (it names the case) does not count. */
  without(err.message, case_dir, text, sizeof text);
  for (i = 0; i < e.n_messages; i++) {
    if (strstr(text, e.messages[i]) == NULL) {
      say(why, cap, "%s at %s, but the message lacks '%s': %s", onyx_status_name(st),
               stage, e.messages[i], err.message);
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

  if (argc == 3 && strcmp(argv[1], "-v") == 0) {
    verbose = 1;
    root = argv[2];
  } else if (argc == 2) {
    root = argv[1];
  } else {
    fprintf(stderr, "usage: %s [-v] DIR\n", argv[0]);
    return 2;
  }
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

  if (passed + failed == 0) {
    printf("no cases found in %s\n", root);
    failed = 1;
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed > 0 ? 1 : 0;
}
