/* SPDX-License-Identifier: MIT */
/*
 * The cases of onyx test: finds ONNX backend-test case folders (each folder
 * visited once), runs every data set of a case and compares the outputs bit
 * for bit, NaN matching NaN, or tells why the case is skipped. The command
 * itself (filters, threads, reports) is test_cmd.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "onyx.h"
#include "sys.h"
#include "test.h"

/* Whether the element at p of type dt is a NaN (0 for integer types):
 * every exponent bit set and a non-zero mantissa. */
static int is_nan_value(onyx_dtype dt, const unsigned char *p) {
  static const struct {
    onyx_dtype dtype;
    uint64_t magnitude, infinity; /* bit masks */
  } FLOATS[] = {
      {ONYX_DTYPE_FLOAT, 0x7fffffffu, 0x7f800000u},
      {ONYX_DTYPE_DOUBLE, 0x7fffffffffffffffu, 0x7ff0000000000000u},
      {ONYX_DTYPE_FLOAT16, 0x7fffu, 0x7c00u},
      {ONYX_DTYPE_BFLOAT16, 0x7fffu, 0x7f80u},
  };
  for (size_t i = 0; i < sizeof FLOATS / sizeof FLOATS[0]; i++)
    if (FLOATS[i].dtype == dt)
      return (cli_load_bits(p, onyx_dtype_size(dt)) & FLOATS[i].magnitude) > FLOATS[i].infinity;
  return 0;
}

/* ---- Skips: what onyx does not implement --------------------------------- */

/* Returns a new "KIND NAME" for the NAME that follows `before` in msg and
 * ends at `end`, or NULL when msg has no such text. */
static char *name_after(const char *msg, const char *before, char end, const char *kind) {
  const char *p = strstr(msg, before);
  if (!p) return NULL;
  p += strlen(before);
  const char *q = strchr(p, end);
  return q ? cli_str_printf("%s %.*s", kind, (int)(q - p), p) : NULL;
}

/*
 * Why a model onyx refused is a skip rather than a failure, read from the
 * library's status and message: an element type onyx does not implement
 * (ops and domains are missing_op's). Returns a new "type bool", or NULL
 * when the refusal is a failure (a bad model, or a type mismatch).
 */
static char *skip_reason(onyx_status st, const char *msg) {
  char *r = NULL;
  if (st == ONYX_TYPE) {
    if (strstr(msg, "which onyx does not support"))
      r = name_after(msg, "has element type ", ' ', "type");
    else if (strstr(msg, ") is not supported"))
      r = name_after(msg, "data_type ", ')', "type");
    else if (strstr(msg, "string constants are not supported"))
      r = cli_str_printf("type string");
    else if (strstr(msg, "is not a tensor with a declared type"))
      r = cli_str_printf("type sequence, map or optional");
  }
  if (r && strncmp(r, "type ", 5) == 0 && strchr(r, '(')) { /* "data_type 9 (bool" */
    char *name = cli_str_printf("type %s", strchr(r, '(') + 1);
    free(r);
    r = name;
  }
  return r;
}

/*
 * The op onyx lacks that model uses, from the status of
 * onyx_model_node_check(): a new "op Reshape" (or "domain D" for a node of
 * another domain) for the first node it refuses as ONYX_UNSUPPORTED_OP and
 * no op of opts's registry serves, with that node's message in *err; or
 * NULL. Checked before the session, so that such a model is a skip whatever
 * else is wrong with it (a Constant of a type onyx lacks, say).
 */
static char *missing_op(const onyx_model *model, const onyx_session_options *opts,
                        onyx_error *err) {
  size_t n = onyx_model_node_count(model);
  for (size_t i = 0; i < n; i++) {
    onyx_node_info node;
    cli_reset_error(err);
    if (onyx_model_node_check(model, i, err) != ONYX_UNSUPPORTED_OP ||
        onyx_op_registry_serves(opts->ops, model, i, NULL) ||
        onyx_model_node(model, i, &node, NULL) != ONYX_OK)
      continue;
    return node.domain[0] ? cli_str_printf("domain %s", node.domain)
                          : cli_str_printf("op %s", node.op_type);
  }
  cli_reset_error(err);
  return NULL;
}

int cli_list_push(str_list *l, char *s) {
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

void cli_list_free(str_list *l) {
  for (size_t i = 0; i < l->len; i++) free(l->items[i]);
  free(l->items);
  l->items = NULL;
  l->len = l->cap = 0;
}

int cli_cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reports a failure to read folder dir: into why when given (a case's
 * reason), else on stderr. */
static void dir_error(const char *dir, const char *what, cli_strbuf *why) {
  if (why)
    cli_sb_printf(why, "%s", what);
  else
    fprintf(stderr, "onyx: %s: %s\n", cli_esc(dir), what);
}

/* The entry names of folder dir, sorted, without "." and "..". Returns 0
 * after reporting the error (see dir_error). */
typedef struct listing {
  str_list *out;
  int skip_hidden, oom;
} listing;

static int list_one(void *ctx, const char *n) {
  listing *l = ctx;
  if (l->skip_hidden && n[0] == '.') return 1;
  char *copy = cli_str_printf("%s", n);
  /* cli_list_push frees copy on failure */
  l->oom = !copy || !cli_list_push(l->out, copy);
  return !l->oom;
}

static int list_dir(const char *dir, str_list *out, int skip_hidden, cli_strbuf *why) {
  listing l = {out, skip_hidden, 0};
  int e = cli_sys_list_dir(dir, list_one, &l);
  int ok = e == 0 && !l.oom;
  if (l.oom) {
    if (why)
      cli_sb_printf(why, "out of memory");
    else
      cli_error_oom();
  } else if (e != 0) {
    dir_error(dir, strerror(e), why);
  }
  /* qsort's pointer must be valid even for no items: an empty folder has none. */
  if (ok && out->len > 0) qsort(out->items, out->len, sizeof *out->items, cli_cmp_str);
  return ok;
}

static int is_case_dir(const char *dir) {
  char *m = cli_path_join(dir, "model.onnx");
  if (!m) return 0;
  cli_stat sb;
  int r = cli_sys_stat(m, &sb) == 0;
  free(m);
  return r;
}

/* The folders a walk has visited, by device and inode, so that each is
 * visited once however many paths (symbolic links) lead to it: a walk then
 * costs one visit per folder, even on link diamonds, and ends on loops.
 * Open addressing with linear probing, grown at half full. */
typedef struct dir_key {
  uint64_t dev, ino;
  int used;
} dir_key;

typedef struct dir_set {
  dir_key *slots;
  size_t len, cap; /* cap: 0 or a power of two */
} dir_set;

static size_t dir_slot(const dir_set *s, uint64_t dev, uint64_t ino) {
  uint64_t h =
      ((uint64_t)ino ^ ((uint64_t)dev << 32 | (uint64_t)dev >> 32)) * 0x9E3779B97F4A7C15ULL;
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
    if (s->slots[i].used)
      bigger.slots[dir_slot(&bigger, s->slots[i].dev, s->slots[i].ino)] = s->slots[i];
  free(s->slots);
  *s = bigger;
  return 1;
}

/* Adds the folder sb describes. Returns 1 if it is new, 0 if it was visited
 * already, -1 when out of memory. */
static int dir_set_add(dir_set *s, const cli_stat *sb) {
  if (2 * (s->len + 1) > s->cap && !dir_set_grow(s)) return -1;
  dir_key *k = &s->slots[dir_slot(s, sb->dev, sb->ino)];
  if (k->used) return 0;
  k->dev = sb->dev;
  k->ino = sb->ino;
  k->used = 1;
  s->len++;
  return 1;
}

/* Adds the case folder path (taken: freed unless kept), which sb
 * describes, to cases unless it was visited. Returns 0 when out of memory
 * (after reporting it). */
static int add_case(dir_set *visited, const cli_stat *sb, char *path, str_list *cases) {
  int fresh = dir_set_add(visited, sb);
  if (fresh == 0) free(path);
  /* cli_list_push frees path when it fails. */
  if (fresh == 0 || (fresh > 0 && cli_list_push(cases, path))) return 1;
  if (fresh < 0) free(path);
  cli_error_oom();
  return 0;
}

/* Adds the case folders under dir (sorted by name) to cases, skipping
 * folders in visited and adding those it walks. Returns 0 if some folder
 * could not be read (after reporting it). */
static int find_cases(const char *dir, dir_set *visited, str_list *cases) {
  cli_stat sb;
  int e = cli_sys_stat(dir, &sb);
  if (e != 0) {
    fprintf(stderr, "onyx: %s: %s\n", cli_esc(dir), strerror(e));
    return 0;
  }
  int added = dir_set_add(visited, &sb);
  if (added <= 0) {
    if (added < 0) cli_error_oom();
    return added == 0;
  }
  str_list names = {0};
  int ok = list_dir(dir, &names, 1, NULL);
  for (size_t i = 0; ok && i < names.len; i++) {
    char *child = cli_path_join(dir, names.items[i]);
    cli_stat cs;
    if (!child) {
      cli_error_oom();
      ok = 0;
    } else if (cli_sys_stat(child, &cs) != 0 || cs.kind != CLI_KIND_FOLDER) {
      free(child);
    } else if (is_case_dir(child)) {
      if (!add_case(visited, &cs, child, cases)) ok = 0;
    } else {
      /* A folder that cannot be read is reported; the walk goes on. */
      if (!find_cases(child, visited, cases)) ok = -1;
      free(child);
    }
  }
  cli_list_free(&names);
  return ok > 0;
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
                         tensor_list *out, cli_strbuf *why) {
  for (size_t k = 0;; k++) {
    char *file = cli_str_printf("%s/%s_%zu.pb", dir, prefix, k);
    if (!file) {
      cli_sb_printf(why, "out of memory");
      return 0;
    }
    cli_stat sb;
    if (cli_sys_stat(file, &sb) == ENOENT) {
      free(file);
      return 1;
    }
    if (out->len == out->cap) {
      size_t cap = out->cap ? out->cap * 2 : 4;
      onyx_tensor *items = realloc(out->items, cap * sizeof *items);
      if (!items) {
        free(file);
        cli_sb_printf(why, "out of memory");
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
      cli_sb_printf(why, "%s/%s_%zu.pb: %s (%s)", set_name, prefix, k,
                    cli_error_text(file, st, &err), onyx_status_name(st));
      free(file);
      return 0;
    }
    out->len++;
    free(file);
  }
}

/* Appends "[i0, i1, ...]" for flat element index `flat` of shape dims. */
static void sb_index(cli_strbuf *sb, uint32_t rank, const int64_t *dims, size_t flat) {
  size_t idx[ONYX_MAX_RANK];
  for (uint32_t i = rank; i-- > 0;) {
    size_t d = (size_t)dims[i];
    idx[i] = d ? flat % d : 0;
    flat = d ? flat / d : 0;
  }
  cli_sb_printf(sb, "[");
  for (uint32_t i = 0; i < rank; i++) cli_sb_printf(sb, "%s%zu", i ? ", " : "", idx[i]);
  cli_sb_printf(sb, "]");
}

/* Compares got with expected; returns 1 when they match, else 0 with the
 * reason (after the "SET output K 'NAME': " prefix) appended to why. */
static int compare_output(const onyx_tensor *got, const onyx_tensor *exp, cli_strbuf *why) {
  if (got->dtype != exp->dtype) {
    cli_sb_printf(why, "got type %s, expected %s", onyx_dtype_name(got->dtype),
                  onyx_dtype_name(exp->dtype));
    return 0;
  }
  int same_shape = got->rank == exp->rank && got->rank <= ONYX_MAX_RANK;
  for (uint32_t i = 0; same_shape && i < got->rank; i++)
    if (got->dims[i] != exp->dims[i]) same_shape = 0;
  if (!same_shape) {
    cli_sb_printf(why, "got shape ");
    cli_sb_dims(why, got->rank, got->dims);
    cli_sb_printf(why, ", expected ");
    cli_sb_dims(why, exp->rank, exp->dims);
    return 0;
  }
  size_t esize = onyx_dtype_size(exp->dtype);
  int ok;
  size_t count = cli_element_count(exp, &ok);
  if (!ok || esize == 0 || count > SIZE_MAX / esize) {
    cli_sb_printf(why, "expected tensor is too large");
    return 0;
  }
  size_t bytes = count * esize;
  if (exp->size < bytes || (bytes && !exp->data)) {
    cli_sb_printf(why, "expected tensor holds %zu bytes, its shape needs %zu", exp->size, bytes);
    return 0;
  }
  if (got->size < bytes || (bytes && !got->data)) {
    cli_sb_printf(why, "got %zu bytes of data, the shape needs %zu", got->size, bytes);
    return 0;
  }
  const unsigned char *g = got->data, *e = exp->data;
  for (size_t i = 0; i < count; i++) {
    const unsigned char *gp = g + i * esize, *ep = e + i * esize;
    if (memcmp(gp, ep, esize) == 0) continue;
    if (is_nan_value(exp->dtype, gp) && is_nan_value(exp->dtype, ep)) continue;
    char gs[CLI_VALUE_CHARS], es[CLI_VALUE_CHARS];
    cli_format_value(gs, sizeof gs, exp->dtype, gp);
    cli_format_value(es, sizeof es, exp->dtype, ep);
    if (strcmp(gs, es) == 0) {
      /* The same printed value with different bits (NaN against non-NaN
       * cannot print the same, so this is rare): show the bits. */
      cli_format_bits(gs, sizeof gs, gp, esize);
      cli_format_bits(es, sizeof es, ep, esize);
    }
    cli_sb_printf(why, "element %zu (index ", i);
    sb_index(why, exp->rank, exp->dims, i);
    cli_sb_printf(why, "): got %s, expected %s", gs, es);
    return 0;
  }
  return 1;
}

/* Runs one data set. Returns 1 when it passes, else 0 with the reason in
 * why, and *error set when an input or output file did not load. */
static int run_data_set(onyx_session *session, const onyx_value_info *out_info, size_t n_in,
                        size_t n_out, const char *dir, const char *set_name, cli_strbuf *why,
                        int *error) {
  tensor_list inputs = {0}, expected = {0};
  onyx_tensor *got = NULL;
  int pass = 0;
  *error = 1; /* until the files have loaded */
  if (!load_numbered(dir, set_name, "input", &inputs, why)) goto done;
  if (!load_numbered(dir, set_name, "output", &expected, why)) goto done;
  *error = 0;
  if (inputs.len != n_in) {
    cli_sb_printf(why, "%s: %zu input file%s, the model has %zu input%s", set_name, inputs.len,
                  inputs.len == 1 ? "" : "s", n_in, n_in == 1 ? "" : "s");
    goto done;
  }
  if (expected.len != n_out) {
    cli_sb_printf(why, "%s: %zu output file%s, the model has %zu output%s", set_name, expected.len,
                  expected.len == 1 ? "" : "s", n_out, n_out == 1 ? "" : "s");
    goto done;
  }
  got = calloc(n_out ? n_out : 1, sizeof *got);
  if (!got) {
    cli_sb_printf(why, "out of memory");
    goto done;
  }
  onyx_error err;
  cli_reset_error(&err);
  onyx_status st = onyx_session_run(session, inputs.items, n_in, got, n_out, &err);
  if (st != ONYX_OK) {
    cli_sb_printf(why, "%s: %s (%s)", set_name, cli_error_text(NULL, st, &err),
                  onyx_status_name(st));
    goto done;
  }
  pass = 1;
  for (size_t k = 0; k < n_out && pass; k++) {
    cli_strbuf detail = {0};
    if (!compare_output(&got[k], &expected.items[k], &detail)) {
      cli_sb_printf(why, "%s output %zu '%s': %s", set_name, k, out_info[k].name,
                    cli_sb_str(&detail));
      pass = 0;
    }
    cli_sb_free(&detail);
  }
done:
  if (got)
    for (size_t k = 0; k < n_out; k++) onyx_free(got[k].data);
  free(got);
  tensors_free(&inputs);
  tensors_free(&expected);
  return pass;
}

/* Loads a case's model.onnx and creates its session, without printing:
 * a failure becomes the case's reason, and *skip what onyx lacks when
 * that is the cause (see skip_reason). Sets *out_info to a new array of
 * the output descriptions. Returns 1 on success. */
static int open_case_model(const char *model_path, const onyx_session_options *opts,
                           onyx_model **model, onyx_session **session, onyx_value_info **out_info,
                           cli_strbuf *why, char **skip) {
  onyx_error err;
  cli_reset_error(&err);
  onyx_status st = onyx_model_load_file(model_path, model, &err);
  if (st == ONYX_OK) {
    cli_reset_error(&err);
    if ((*skip = missing_op(*model, opts, &err)) != NULL)
      st = ONYX_UNSUPPORTED_OP;
    else
      st = onyx_session_create(*model, opts, session, &err);
  }
  if (st != ONYX_OK) {
    cli_sb_printf(why, "model.onnx: %s (%s)", cli_error_text(model_path, st, &err),
                  onyx_status_name(st));
    if (!*skip) *skip = skip_reason(st, err.message);
    return 0;
  }
  size_t n_out = onyx_session_output_count(*session);
  if (!(*out_info = calloc(n_out ? n_out : 1, sizeof **out_info))) {
    cli_sb_printf(why, "out of memory");
    return 0;
  }
  for (size_t k = 0; k < n_out; k++) {
    cli_reset_error(&err);
    st = onyx_session_output_info(*session, k, &(*out_info)[k], &err);
    if (st != ONYX_OK) {
      cli_sb_printf(why, "%s (%s)", cli_error_text(model_path, st, &err), onyx_status_name(st));
      return 0;
    }
  }
  return 1;
}

/* The case's test_data_set_N folders, in numeric order: *sets (new array;
 * names point into *names) and *n_sets. Returns 1 when there is one. */
static int list_data_sets(const char *dir, str_list *names, data_set **sets, size_t *n_sets,
                          cli_strbuf *why) {
  unsigned long long number;
  if (!list_dir(dir, names, 0, why)) return 0;
  *n_sets = 0;
  if (!(*sets = calloc(names->len ? names->len : 1, sizeof **sets))) {
    cli_sb_printf(why, "out of memory");
    return 0;
  }
  for (size_t i = 0; i < names->len; i++) {
    if (!parse_data_set_name(names->items[i], &number)) continue;
    char *sub = cli_path_join(dir, names->items[i]);
    if (!sub) {
      cli_sb_printf(why, "out of memory");
      return 0;
    }
    cli_stat sb;
    int is_dir = cli_sys_stat(sub, &sb) == 0 && sb.kind == CLI_KIND_FOLDER;
    free(sub);
    if (!is_dir) continue;
    (*sets)[*n_sets].number = number;
    (*sets)[(*n_sets)++].name = names->items[i];
  }
  if (*n_sets == 0) {
    cli_sb_printf(why, "no test_data_set_N folder");
    return 0;
  }
  qsort(*sets, *n_sets, sizeof **sets, cmp_data_set);
  return 1;
}

void cli_run_case(const char *dir, const onyx_session_options *opts, int strict, case_result *res) {
  onyx_model *model = NULL;
  onyx_session *session = NULL;
  onyx_value_info *out_info = NULL;
  str_list names = {0};
  data_set *sets = NULL;
  size_t n_sets = 0;
  cli_strbuf *why = &res->why;
  char *model_path = cli_path_join(dir, "model.onnx");
  int pass = model_path &&
             open_case_model(model_path, opts, &model, &session, &out_info, why, &res->skip) &&
             list_data_sets(dir, &names, &sets, &n_sets, why);
  if (!model_path) cli_sb_printf(why, "out of memory");
  res->error = !pass; /* the model, or its data set folders, did not load */
  for (size_t i = 0; i < n_sets && pass; i++) {
    char *sub = cli_path_join(dir, sets[i].name);
    if (!sub) {
      cli_sb_printf(why, "out of memory");
      pass = 0;
      break;
    }
    pass = run_data_set(session, out_info, onyx_session_input_count(session),
                        onyx_session_output_count(session), sub, sets[i].name, why, &res->error);
    free(sub);
  }
  if (res->skip && strict) {
    free(res->skip);
    res->skip = NULL;
  }
  res->outcome = pass ? CASE_PASSED : res->skip ? CASE_SKIPPED : CASE_FAILED;
  if (res->outcome != CASE_FAILED) res->error = 0;
  free(sets);
  cli_list_free(&names);
  free(out_info);
  onyx_session_free(session);
  onyx_model_free(model);
  free(model_path);
}

int cli_collect_cases(const cli_args *a, str_list *cases, int *read_error) {
  dir_set visited = {0};
  int rc = CLI_OK;
  for (size_t i = 0; i < a->n_positional && rc == CLI_OK; i++) {
    const char *p = a->positional[i];
    cli_stat sb;
    int e = cli_sys_stat(p, &sb);
    if (e != 0) {
      fprintf(stderr, "onyx: %s: %s\n", cli_esc(p), strerror(e));
      *read_error = 1;
    } else if (sb.kind != CLI_KIND_FOLDER) {
      fprintf(stderr, "onyx: %s: not a folder\n", cli_esc(p));
      *read_error = 1;
    } else if (is_case_dir(p)) {
      char *copy = cli_str_printf("%s", p);
      if (!copy) cli_error_oom();
      if (!copy || !add_case(&visited, &sb, copy, cases)) rc = CLI_ERROR;
    } else if (!find_cases(p, &visited, cases)) {
      *read_error = 1;
    }
  }
  free(visited.slots);
  return rc;
}
