/* SPDX-License-Identifier: MIT */
/*
 * onyx test, the command: selects the cases (--include, --exclude), runs
 * them on -j threads, and reports each in the order found, as text lines,
 * JSON records (--json) and a JUnit XML file (--junit), then the counts and
 * the skips by reason. The cases themselves are test.c.
 *
 * Threads only run cases; the calling thread prints, waiting for each case
 * in turn, so the output is the same for every -j.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "onyx.h"
#include "sys.h"
#include "test.h"

/* The compiled --include and --exclude expressions. */
typedef struct filters {
  cli_regex **include, **exclude;
  size_t n_include, n_exclude;
} filters;

static void filters_free(filters *f) {
  for (size_t i = 0; i < f->n_include; i++) cli_regex_free(f->include[i]);
  for (size_t i = 0; i < f->n_exclude; i++) cli_regex_free(f->exclude[i]);
  free(f->include);
  free(f->exclude);
}

/* Compiles n expressions into a new array *out; a bad one is a usage
 * error that quotes regerror's words. */
static int compile_all(const char *option, const char **exprs, size_t n, cli_regex ***out,
                       size_t *n_out) {
  *out = calloc(n ? n : 1, sizeof **out);
  if (!*out) {
    cli_error_oom();
    return CLI_ERROR;
  }
  for (*n_out = 0; *n_out < n; ++*n_out) {
    char why[256];
    if (cli_regex_compile(&(*out)[*n_out], exprs[*n_out], why, sizeof why) != 0) {
      cli_usage_error("test", "%s: '%s' is not a regular expression: %s", option, exprs[*n_out],
                      why);
      return CLI_USAGE;
    }
  }
  return CLI_OK;
}

/* The name filters match: a case folder's last path component. */
static const char *case_name(const char *path) {
  size_t len = strlen(path);
  while (len > 1 && path[len - 1] == '/') len--;
  const char *slash = NULL;
  for (size_t i = 0; i + 1 < len; i++)
    if (path[i] == '/') slash = path + i;
  return slash ? slash + 1 : path;
}

/* The index of the first expression of n that matches the case at path,
 * or n. A trailing '/' is not part of the name. */
static size_t first_match(cli_regex *const *res, size_t n, const char *path) {
  const char *name = case_name(path);
  size_t len = strlen(name);
  while (len > 1 && name[len - 1] == '/') len--;
  char *copy = cli_str_printf("%.*s", (int)len, name);
  size_t i = 0;
  while (copy && i < n && !cli_regex_matches(res[i], copy)) i++;
  free(copy);
  return i;
}

/* Keeps the cases that some --include matches (all without --include). */
static void apply_includes(const filters *f, str_list *cases) {
  if (f->n_include == 0) return;
  size_t kept = 0;
  for (size_t i = 0; i < cases->len; i++) {
    if (first_match(f->include, f->n_include, cases->items[i]) < f->n_include)
      cases->items[kept++] = cases->items[i];
    else
      free(cases->items[i]);
  }
  cases->len = kept;
}

/* ---- Running cases on threads ------------------------------------------- */

typedef struct test_job {
  const cli_args *a;
  const filters *f;
  char **cases;
  case_result *results;
  unsigned char *done; /* per case, under lock */
  size_t n, next;      /* next: the next case a thread takes, under lock */
  cli_lock *lock;      /* its condition: a case finished */
} test_job;

static double now_seconds(void) { return (double)cli_sys_clock_ns() * 1e-9; }

/* Runs case i, or skips it when an --exclude matches. */
static void run_one(const test_job *job, size_t i) {
  case_result *res = &job->results[i];
  size_t e = first_match(job->f->exclude, job->f->n_exclude, job->cases[i]);
  if (e < job->f->n_exclude) {
    res->outcome = CASE_SKIPPED;
    res->skip = cli_str_printf("excluded by --exclude '%s'", job->a->excludes[e]);
    cli_sb_printf(&res->why, "excluded by --exclude '%s'", job->a->excludes[e]);
    if (!res->skip) res->outcome = CASE_FAILED; /* out of memory, said in why */
    return;
  }
  double t0 = now_seconds();
  cli_run_case(job->cases[i], &job->a->opts, job->a->strict, res);
  res->seconds = now_seconds() - t0;
}

static void *worker(void *arg) {
  test_job *job = arg;
  for (;;) {
    cli_sys_lock(job->lock);
    size_t i = job->next++;
    cli_sys_unlock(job->lock);
    if (i >= job->n) return NULL;
    run_one(job, i);
    cli_sys_lock(job->lock);
    job->done[i] = 1;
    cli_sys_broadcast(job->lock);
    cli_sys_unlock(job->lock);
  }
}

/* Waits until case i has run (at once without threads). */
static void wait_for(test_job *job, size_t i, int threaded) {
  if (!threaded) {
    run_one(job, i);
    return;
  }
  cli_sys_lock(job->lock);
  while (!job->done[i]) cli_sys_wait(job->lock);
  cli_sys_unlock(job->lock);
}

/* Starts up to n - 1 threads (the caller prints meanwhile). Returns how
 * many started; with none, cases run on the calling thread. */
static size_t start_workers(test_job *job, cli_thread **threads, size_t n) {
  size_t started = 0;
  while (started < n && (threads[started] = cli_sys_thread_start(worker, job)) != NULL) started++;
  return started;
}

/* ---- Reports -------------------------------------------------------------- */

static const char *const OUTCOME_NAMES[] = {"passed", "failed", "skipped"};

/* Writes s for an XML attribute: cli_esc's printable ASCII, with & < > "
 * and ' as entities. */
static void put_xml(FILE *out, const char *s) {
  for (const char *p = cli_esc(s); *p; p++) {
    switch (*p) {
      case '&':
        fputs("&amp;", out);
        break;
      case '<':
        fputs("&lt;", out);
        break;
      case '>':
        fputs("&gt;", out);
        break;
      case '"':
        fputs("&quot;", out);
        break;
      case '\'':
        fputs("&apos;", out);
        break;
      default:
        fputc(*p, out);
    }
  }
}

static void print_case(const cli_args *a, const char *path, const case_result *res) {
  const char *why = cli_sb_str(&res->why);
  if (a->json) {
    fputs("{\"case\": ", stdout);
    cli_put_json(stdout, path);
    printf(", \"status\": \"%s\", \"seconds\": %.6f", OUTCOME_NAMES[res->outcome], res->seconds);
    if (res->outcome != CASE_PASSED) {
      fputs(", \"reason\": ", stdout);
      cli_put_json(stdout, why);
    }
    if (res->skip) {
      fputs(", \"skip\": ", stdout);
      cli_put_json(stdout, res->skip);
    }
    fputs("}\n", stdout);
  } else if (res->outcome == CASE_FAILED) {
    printf("FAIL %s: %s\n", cli_esc(path), cli_esc(why));
  } else if (a->verbose) {
    if (res->outcome == CASE_PASSED)
      printf("ok %s\n", cli_esc(path));
    else
      printf("SKIP %s: %s\n", cli_esc(path), cli_esc(why));
  }
}

/* The skips by reason, in name order (so that "domain", "excluded", "op"
 * and "type" reasons group), then the counts, last, so that the tail of a
 * CI log shows them: text lines, or with --json one last record. Sorts
 * skips. */
static void print_summary(const cli_args *a, const size_t *count, char **skips, size_t n) {
  if (n > 0) qsort(skips, n, sizeof *skips, cli_cmp_str);
  if (a->json)
    printf("{\"passed\": %zu, \"failed\": %zu, \"skipped\": %zu, \"skipped_by_reason\": {",
           count[CASE_PASSED], count[CASE_FAILED], count[CASE_SKIPPED]);
  else if (n)
    printf("skipped by reason:\n");
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && strcmp(skips[i], skips[j]) == 0;) j++;
    if (a->json) {
      fputs(i ? ", " : "", stdout);
      cli_put_json(stdout, skips[i]);
      printf(": %zu", j - i);
    } else {
      printf("  %s: %zu\n", cli_esc(skips[i]), j - i);
    }
  }
  if (a->json)
    fputs("}}\n", stdout);
  else
    printf("%zu passed, %zu failed, %zu skipped\n", count[CASE_PASSED], count[CASE_FAILED],
           count[CASE_SKIPPED]);
}

/*
 * A case's JUnit classname and name: the PATH argument it was found under,
 * as typed, and its folder relative to that PATH. A PATH that is itself a
 * case folder is split into its parent folder ("." when it has none) and
 * its last name. Sets *root_len (the classname is path's first *root_len
 * bytes, or "." when *root_len is 0) and returns the name.
 */
static const char *junit_names(const cli_args *a, const char *path, size_t *root_len) {
  size_t best = 0;
  int found = 0;
  for (size_t i = 0; i < a->n_positional; i++) {
    const char *p = a->positional[i];
    size_t lp = strlen(p);
    while (lp > 1 && p[lp - 1] == '/') lp--;
    if (strncmp(path, p, lp) != 0 || path[lp] != '/' || (found && lp <= best)) continue;
    best = lp;
    found = 1;
  }
  if (found) {
    const char *name = path + best;
    while (*name == '/') name++;
    if (*name) {
      *root_len = best;
      return name;
    }
  }
  const char *name = case_name(path);
  size_t len = (size_t)(name - path);
  while (len > 1 && path[len - 1] == '/') len--;
  *root_len = name == path ? 0 : len;
  return name;
}

/* Writes the JUnit XML report: one testsuite, one testcase per case
 * (classname and name from junit_names), with a failure, error (a file
 * that did not load) or skipped element and its reason. */
static int write_junit(const char *path, const test_job *job, const size_t *count) {
  FILE *out = cli_sys_fopen(path, "wb");
  if (!out) {
    fprintf(stderr, "onyx: %s: cannot create: %s\n", cli_esc(path), strerror(errno));
    return CLI_ERROR;
  }
  double total = 0;
  size_t errors = 0;
  for (size_t i = 0; i < job->n; i++) {
    total += job->results[i].seconds;
    errors += job->results[i].outcome == CASE_FAILED && job->results[i].error;
  }
  size_t failures = count[CASE_FAILED] - errors;
  fprintf(out,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<testsuites tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
          "time=\"%.6f\">\n"
          "  <testsuite name=\"onyx test\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
          "skipped=\"%zu\" time=\"%.6f\">\n",
          job->n, failures, errors, count[CASE_SKIPPED], total, job->n, failures, errors,
          count[CASE_SKIPPED], total);
  for (size_t i = 0; i < job->n; i++) {
    const case_result *res = &job->results[i];
    size_t root_len;
    const char *name = junit_names(job->a, job->cases[i], &root_len);
    char *root = root_len ? cli_str_printf("%.*s", (int)root_len, job->cases[i]) : NULL;
    fputs("    <testcase classname=\"", out);
    put_xml(out, root ? root : root_len ? "<out of memory>" : ".");
    free(root);
    fputs("\" name=\"", out);
    put_xml(out, name);
    fprintf(out, "\" time=\"%.6f\"", res->seconds);
    if (res->outcome == CASE_PASSED) {
      fputs("/>\n", out);
      continue;
    }
    fprintf(out, ">\n      <%s message=\"",
            res->outcome == CASE_SKIPPED ? "skipped"
            : res->error                 ? "error"
                                         : "failure");
    put_xml(out, cli_sb_str(&res->why));
    fputs("\"/>\n    </testcase>\n", out);
  }
  fputs("  </testsuite>\n</testsuites>\n", out);
  if (ferror(out) | (fclose(out) != 0)) {
    fprintf(stderr, "onyx: %s: write error\n", cli_esc(path));
    return CLI_ERROR;
  }
  return CLI_OK;
}

/*
 * The progress line on stderr, on a terminal or with --progress: "onyx
 * test: K of N cases", rewritten in place at most every PROGRESS_EVERY
 * seconds (and for the last case), and erased before each line a case
 * prints and at the end, so that it never mixes with stdout's lines when
 * both go to one terminal.
 */
#define PROGRESS_EVERY 0.1

typedef struct progress {
  int on;
  size_t width; /* of the line shown; 0: none */
  double next;  /* the earliest time to rewrite it */
} progress;

static void progress_erase(progress *p) {
  if (p->width == 0) return;
  fprintf(stderr, "\r%*s\r", (int)p->width, "");
  p->width = 0;
}

static void progress_show(progress *p, size_t done, size_t n) {
  double t = now_seconds();
  if (!p->on || (t < p->next && done < n)) return;
  int w = fprintf(stderr, "\ronyx test: %zu of %zu cases", done, n);
  fflush(stderr);
  p->width = w > 1 ? (size_t)w - 1 : 0;
  p->next = t + PROGRESS_EVERY;
}

/* Whether print_case prints a line for res. */
static int prints_line(const cli_args *a, const case_result *res) {
  return a->json || a->verbose || res->outcome == CASE_FAILED;
}

/* ---- The command ------------------------------------------------------------ */

/* Runs every case and prints each as it is its turn; collects the skip
 * reasons and counts. Returns 0 when out of memory. */
static int run_all(test_job *job, size_t *count, str_list *skips) {
  size_t want = job->a->jobs > 1 ? job->a->jobs : 1;
  if (want > job->n) want = job->n;
  cli_thread **threads = want > 1 ? calloc(want, sizeof *threads) : NULL;
  size_t started = threads ? start_workers(job, threads, want) : 0;
  progress p = {job->a->progress || cli_sys_stderr_is_terminal(), 0, 0};
  int ok = 1;
  for (size_t i = 0; i < job->n; i++) {
    wait_for(job, i, started > 0);
    case_result *res = &job->results[i];
    count[res->outcome]++;
    if (prints_line(job->a, res)) {
      progress_erase(&p);
      print_case(job->a, job->cases[i], res);
      fflush(stdout);
    }
    progress_show(&p, i + 1, job->n);
    if (res->skip && !cli_list_push(skips, res->skip)) ok = 0; /* it frees res->skip */
    res->skip = NULL;
  }
  progress_erase(&p);
  for (size_t t = 0; t < started; t++) cli_sys_thread_join(threads[t]);
  free(threads);
  return ok;
}

static int test_cases(const cli_args *a, const filters *f, str_list *cases) {
  test_job job = {.a = a, .f = f, .cases = cases->items, .n = cases->len};
  job.lock = cli_sys_lock_new();
  job.results = calloc(job.n ? job.n : 1, sizeof *job.results);
  job.done = calloc(job.n ? job.n : 1, 1);
  str_list skips = {0};
  size_t count[3] = {0, 0, 0};
  int rc = CLI_OK;
  if (!job.lock || !job.results || !job.done || !run_all(&job, count, &skips)) {
    cli_error_oom();
    rc = CLI_ERROR;
  }
  if (job.results) {
    print_summary(a, count, skips.items, skips.len);
    if (a->junit && write_junit(a->junit, &job, count) != CLI_OK) rc = CLI_ERROR;
    for (size_t i = 0; i < job.n; i++) cli_sb_free(&job.results[i].why);
  }
  if (rc == CLI_OK && count[CASE_FAILED]) rc = CLI_TEST_FAILED;
  cli_list_free(&skips);
  free(job.results);
  free(job.done);
  cli_sys_lock_free(job.lock);
  return rc;
}

int cli_test(cli_args *a) {
  if (a->n_positional == 0) {
    cli_usage_error("test", "test: missing PATH");
    return CLI_USAGE;
  }
  filters f = {0};
  int rc = compile_all("--include", a->includes, a->n_includes, &f.include, &f.n_include);
  if (rc == CLI_OK)
    rc = compile_all("--exclude", a->excludes, a->n_excludes, &f.exclude, &f.n_exclude);
  str_list cases = {0};
  int read_error = 0;
  if (rc == CLI_OK) rc = cli_collect_cases(a, &cases, &read_error);
  if (rc == CLI_OK) {
    apply_includes(&f, &cases);
    rc = test_cases(a, &f, &cases);
    if (cases.len == 0) {
      fprintf(stderr, "onyx: no test case found (a case folder holds model.onnx)\n");
      if (rc == CLI_OK) rc = CLI_TEST_FAILED;
    }
    if (read_error && rc != CLI_USAGE) rc = CLI_ERROR;
  }
  cli_list_free(&cases);
  filters_free(&f);
  return rc;
}
