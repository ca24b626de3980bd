/*
 * onyx run (one run on .pb or .npy inputs; outputs printed or written to
 * files) and onyx info (a model's description).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli.h"
#include "npy.h"
#include "onyx.h"

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
    if (name[i] == '/' || cli_needs_escape((unsigned char)name[i])) return 0;
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
      ok = (names[i] = cli_str_printf("%s", info[i].name)) != NULL;
      continue;
    }
    cli_strbuf sb = {0};
    cli_sb_printf(&sb, "output_%zu", i);
    while (!sb.oom && n_taken > 0 &&
           bsearch(&sb.data, taken, n_taken, sizeof *taken, cmp_str_ptr))
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

int cli_run(cli_args *a) {
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
      path = cli_str_printf("%s%s%s.%s", a->output_dir,
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
      cli_strbuf sb = {0};
      cli_sb_dims(&sb, outputs[i].rank, outputs[i].dims);
      printf("%s: %s %s\n", cli_esc(out_info[i].name), onyx_dtype_name(outputs[i].dtype),
             cli_sb_str(&sb));
      cli_sb_free(&sb);
      cli_print_values(stdout, &outputs[i]);
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

int cli_info(cli_args *a) {
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

