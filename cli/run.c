/* SPDX-License-Identifier: MIT */
/*
 * onyx run (one run on .pb or .npy inputs; outputs printed or written to
 * files) and onyx info (a model's description).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "npy.h"
#include "onyx.h"
#include "sys.h"

/* The longest output name used as a file name as it is: with ".npy" it
 * stays within NAME_MAX (255 bytes) on the common file systems. */
#define MAX_FILE_NAME 250

/* Whether an output's name can be its file's name as it is: not empty, "."
 * or "..", at most MAX_FILE_NAME bytes, without '/' or '\\' (a folder
 * separator on Windows) and without anything cli_esc escapes (so that the
 * name printed is the file's name, and no file name holds a control
 * character). */
static int safe_file_name(const char *name) {
  size_t len = strlen(name);
  if (len == 0 || len > MAX_FILE_NAME || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
    return 0;
  for (size_t i = 0; i < len; i++)
    if (cli_needs_escape((unsigned char)name[i]) || name[i] == '\\') return 0;
  return cli_sys_file_name_ok(name);
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
      ok = (names[i] = cli_str_printf("%s", info[i].name)) != NULL;
      continue;
    }
    cli_strbuf sb = {0};
    cli_sb_printf(&sb, "output_%zu", i);
    while (!sb.oom && n_taken > 0 && bsearch(&sb.data, taken, n_taken, sizeof *taken, cmp_str_ptr))
      cli_sb_printf(&sb, "_");
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
  char *p = cli_str_printf("%s", dir);
  if (!p) {
    cli_error_oom();
    return CLI_ERROR;
  }
  int rc = CLI_OK;
  size_t len = strlen(p), root = cli_sys_root_len(p);
  for (size_t i = root > 1 ? root : 1; i <= len && rc == CLI_OK; i++) {
    if (!cli_sys_is_sep(p[i]) && p[i] != '\0') continue;
    if (cli_sys_is_sep(p[i - 1])) continue;
    char saved = p[i];
    p[i] = '\0';
    int e = cli_sys_mkdir(p);
    if (e != 0) {
      cli_stat sb;
      if (e != EEXIST) {
        fprintf(stderr, "onyx: %s: cannot create folder: %s\n", cli_esc(p), strerror(e));
        rc = CLI_ERROR;
      } else if (cli_sys_stat(p, &sb) != 0 || sb.kind != CLI_KIND_FOLDER) {
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
  /* A FIFO must not block the look; it is no .npy file. */
  cli_stat sb;
  int e;
  FILE *f = cli_sys_open_regular(path, &sb, &e);
  if (!f) return 0;
  unsigned char head[NPY_MAGIC_LEN];
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  return n > 0 && npy_has_magic(head, n);
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

/* onyx run's state: the model, the files bound to its inputs, and the
 * input and output tensors. */
typedef struct run_state {
  cli_model m;
  const char **in_file; /* per input: the FILE of its --input */
  onyx_tensor *inputs;
  unsigned char *in_npy; /* per input: 1 if its data is from malloc (.npy), not onyx */
  onyx_tensor *outputs;
  char **files; /* with --output-dir: the outputs' file names */
} run_state;

static int run_state_alloc(run_state *r) {
  size_t n_in = r->m.n_in ? r->m.n_in : 1, n_out = r->m.n_out ? r->m.n_out : 1;
  r->in_file = calloc(n_in, sizeof *r->in_file);
  r->inputs = calloc(n_in, sizeof *r->inputs);
  r->in_npy = calloc(n_in, 1);
  r->outputs = calloc(n_out, sizeof *r->outputs);
  if (r->in_file && r->inputs && r->in_npy && r->outputs) return CLI_OK;
  cli_error_oom();
  return CLI_ERROR;
}

static void run_state_free(run_state *r) {
  for (size_t i = 0; r->inputs && i < r->m.n_in; i++) {
    if (r->in_npy && r->in_npy[i])
      free(r->inputs[i].data);
    else
      onyx_free(r->inputs[i].data);
  }
  for (size_t i = 0; r->outputs && i < r->m.n_out; i++) onyx_free(r->outputs[i].data);
  free_strings(r->files, r->m.n_out);
  free(r->inputs);
  free(r->in_npy);
  free(r->outputs);
  free(r->in_file);
  cli_model_close(&r->m);
}

/* Binds each --input NAME=FILE to its input position, and reports every
 * unknown, repeated or missing name (CLI_USAGE). */
static int bind_inputs(run_state *r, const cli_args *a) {
  const cli_model *m = &r->m;
  int rc = CLI_OK;
  for (size_t k = 0; k < a->n_inputs; k++) {
    size_t index;
    const char *file;
    if (!match_input(m->in_info, m->n_in, a->inputs[k], &index, &file)) {
      const char *spec = a->inputs[k];
      fprintf(stderr, "onyx: %s: the model has no input named '%s'\n", cli_esc(m->path),
              cli_esc_n(spec, (size_t)(strchr(spec, '=') - spec)));
      rc = CLI_USAGE;
    } else if (r->in_file[index]) {
      fprintf(stderr, "onyx: %s: input '%s' is given more than once\n", cli_esc(m->path),
              cli_esc(m->in_info[index].name));
      rc = CLI_USAGE;
    } else {
      r->in_file[index] = file;
    }
  }
  for (size_t i = 0; i < m->n_in; i++) {
    if (!r->in_file[i]) {
      const char *name = cli_esc(m->in_info[i].name);
      fprintf(stderr, "onyx: %s: input '%s' is missing (use --input %s=FILE)\n", cli_esc(m->path),
              name, name);
      rc = CLI_USAGE;
    }
  }
  return rc;
}

/* Loads input i from its file: .npy or TensorProto. */
static int load_input(run_state *r, size_t i) {
  const char *file = r->in_file[i];
  onyx_tensor *t = &r->inputs[i];
  if (is_npy_file(file)) {
    char why[512];
    if (npy_load_file(file, t, why, sizeof why) != NPY_OK) {
      fprintf(stderr, "onyx: %s: %s\n", cli_esc(file), cli_esc(why));
      return CLI_ERROR;
    }
    r->in_npy[i] = 1;
    /* numpy has no bfloat16: '<u2' bit patterns stand for it. */
    if (r->m.in_info[i].dtype == ONYX_DTYPE_BFLOAT16 && t->dtype == ONYX_DTYPE_UINT16)
      t->dtype = ONYX_DTYPE_BFLOAT16;
    return CLI_OK;
  }
  onyx_error err;
  cli_reset_error(&err);
  onyx_status st = onyx_tensor_load_file(file, t, NULL, &err);
  if (st == ONYX_OK) return CLI_OK;
  memset(t, 0, sizeof *t);
  cli_report(file, st, &err);
  return CLI_ERROR;
}

/* Writes output i to path, as .npy or as a TensorProto named after it. */
static int write_output(const run_state *r, size_t i, const char *path, int npy) {
  const onyx_tensor *t = &r->outputs[i];
  if (npy) {
    char why[512];
    if (npy_save_file(path, t, why, sizeof why) != NPY_OK) {
      fprintf(stderr, "onyx: %s: %s\n", cli_esc(path), cli_esc(why));
      return CLI_ERROR;
    }
    if (t->dtype == ONYX_DTYPE_BFLOAT16)
      fprintf(stderr,
              "onyx: note: %s: bfloat16 written as '<u2' bit patterns (numpy has no "
              "bfloat16)\n",
              cli_esc(path));
    return CLI_OK;
  }
  onyx_error err;
  cli_reset_error(&err);
  onyx_status st = onyx_tensor_save_file(path, t, r->m.out_info[i].name, &err);
  if (st == ONYX_OK) return CLI_OK;
  cli_report(path, st, &err);
  return CLI_ERROR;
}

/* Writes every output to DIR/FILE.pb or .npy; FILE is the output's name,
 * or the fallback output_file_names chose, which a note then gives. */
static int write_outputs(const run_state *r, const cli_args *a) {
  int npy = a->format && strcmp(a->format, "npy") == 0;
  const char *dir = a->output_dir;
  int rc = make_dirs(dir);
  for (size_t i = 0; i < r->m.n_out && rc == CLI_OK; i++) {
    char *path = cli_str_printf("%s%s%s.%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/",
                                r->files[i], npy ? "npy" : "pb");
    if (!path) {
      cli_error_oom();
      return CLI_ERROR;
    }
    const char *name = r->m.out_info[i].name;
    if (strcmp(r->files[i], name) != 0)
      fprintf(stderr, "onyx: note: output %zu '%s' is not a safe file name: written to %s\n", i,
              cli_esc(name), cli_esc(path));
    rc = write_output(r, i, path, npy);
    free(path);
  }
  return rc;
}

/* Prints each output as "NAME: TYPE [DIMS]" and its values. */
static void print_outputs(const run_state *r) {
  for (size_t i = 0; i < r->m.n_out; i++) {
    const onyx_tensor *t = &r->outputs[i];
    cli_strbuf sb = {0};
    cli_sb_dims(&sb, t->rank, t->dims);
    printf("%s: %s %s\n", cli_esc(r->m.out_info[i].name), onyx_dtype_name(t->dtype),
           cli_sb_str(&sb));
    cli_sb_free(&sb);
    cli_print_values(stdout, t);
  }
}

int cli_run(cli_args *a) {
  int rc = cli_one_model(a);
  if (rc != CLI_OK) return rc;
  run_state r;
  memset(&r, 0, sizeof r);
  rc = cli_model_open(a->positional[0], &a->opts, &r.m);
  if (rc == CLI_OK) rc = run_state_alloc(&r);
  if (rc == CLI_OK) rc = bind_inputs(&r, a);
  if (rc == CLI_OK && a->output_dir && !(r.files = output_file_names(r.m.out_info, r.m.n_out))) {
    cli_error_oom();
    rc = CLI_ERROR;
  }
  for (size_t i = 0; i < r.m.n_in && rc == CLI_OK; i++) rc = load_input(&r, i);
  if (rc == CLI_OK) {
    onyx_error err;
    cli_reset_error(&err);
    onyx_profile profile = {0};
    onyx_run_options ro;
    onyx_run_options_init(&ro);
    if (a->profile && !cli_profile_alloc(r.m.model, &profile)) rc = CLI_ERROR;
    ro.profile = a->profile ? &profile : NULL;
    onyx_status st = rc == CLI_OK ? onyx_session_run_with(r.m.session, r.inputs, r.m.n_in,
                                                          r.outputs, r.m.n_out, &ro, &err)
                                  : ONYX_OK;
    if (st != ONYX_OK) {
      cli_report(r.m.path, st, &err);
      rc = CLI_ERROR;
    }
    if (rc == CLI_OK && a->profile) rc = cli_profile_write(a->profile, r.m.path, &profile);
    free(profile.nodes);
  }
  if (rc == CLI_OK) {
    if (a->output_dir)
      rc = write_outputs(&r, a);
    else
      print_outputs(&r);
  }
  run_state_free(&r);
  return rc;
}
