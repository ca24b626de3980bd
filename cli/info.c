/* SPDX-License-Identifier: MIT */
/*
 * onyx info: describes any model the library loads, also one onyx cannot
 * run: its IR version and opset imports, its producer and metadata, its
 * nodes (each with why onyx cannot run it, where it cannot), and whether
 * onyx runs the whole model, with the library's reason when not. The inputs and outputs, and
 * the shape of every node output (onyx_session_value_info()), come from a session, so they are
 * shown only for a model onyx runs. The exit status
 * is 0 whenever the model loads. --json prints the same as one JSON object
 * (docs/cli.md lists its fields).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "onyx.h"

/* A loaded model and, when onyx runs it, its session; else why not. */
typedef struct info_model {
  cli_model m;                 /* m.session is NULL when onyx cannot run the model */
  onyx_status refused;         /* ONYX_OK, or the status of onyx_session_create() */
  onyx_error refused_err;      /* its message */
  const onyx_op_registry *ops; /* --ops, or NULL */
  size_t n_values;             /* the session's values, */
  onyx_value_info *values;     /* sorted by name (by_name) */
} info_model;

/* ---- One input or output, as text or JSON --------------------------------- */

/* "  NAME: TYPE [8, N, ?]", or {"name": N, "type": T, "shape": [8, "N", null]}
 * (symbolic dims by name, unknown ones as ? or null; no shape: the text
 * says no_shape, JSON null). */
static void put_value_info(const onyx_value_info *v, int json, const char *no_shape) {
  if (json) {
    fputs("{\"name\": ", stdout);
    cli_put_json(stdout, v->name);
    printf(", \"type\": \"%s\", \"shape\": ", onyx_dtype_name(v->dtype));
  } else {
    printf("  %s: %s ", cli_esc(v->name), onyx_dtype_name(v->dtype));
  }
  if (!v->has_shape) {
    if (json)
      fputs("null}", stdout);
    else
      printf("(%s)\n", no_shape);
    return;
  }
  putchar('[');
  for (uint32_t i = 0; i < v->rank && i < ONYX_MAX_RANK; i++) {
    if (i) fputs(", ", stdout);
    const char *name = v->dim_names[i];
    if (v->dims[i] >= 0)
      printf("%" PRId64, v->dims[i]);
    else if (name && name[0] && json)
      cli_put_json(stdout, name);
    else if (name && name[0])
      fputs(cli_esc(name), stdout);
    else
      fputs(json ? "null" : "?", stdout);
  }
  fputs(json ? "]}" : "]\n", stdout);
}

/* ---- The session's values, by name ------------------------------------ */

static int by_name(const void *a, const void *b) {
  return strcmp(((const onyx_value_info *)a)->name, ((const onyx_value_info *)b)->name);
}

/* The session's description of the value called name, or NULL. */
static const onyx_value_info *find_value(const info_model *im, const char *name) {
  onyx_value_info key = {.name = name};
  if (im->n_values == 0 || name == NULL) return NULL;
  return bsearch(&key, im->values, im->n_values, sizeof key, by_name);
}

/* Reads every value of the session, sorted by name for find_value;
 * CLI_ERROR after printing why not. */
static int read_values(info_model *im) {
  size_t n = onyx_session_value_count(im->m.session);
  im->values = calloc(n + 1, sizeof *im->values);
  if (im->values == NULL) {
    cli_error_oom();
    return CLI_ERROR;
  }
  onyx_error err;
  for (size_t i = 0; i < n; i++) {
    cli_reset_error(&err);
    onyx_status st = onyx_session_value_info(im->m.session, i, &im->values[i], &err);
    if (st != ONYX_OK) {
      cli_report(im->m.path, st, &err);
      return CLI_ERROR;
    }
  }
  qsort(im->values, n, sizeof *im->values, by_name);
  im->n_values = n;
  return CLI_OK;
}

/* An output's description: as declared, else as computed at creation. */
static const onyx_value_info *output_info(const info_model *im, const onyx_value_info *out) {
  const onyx_value_info *v = out->has_shape ? NULL : find_value(im, out->name);
  return v != NULL && v->has_shape ? v : out;
}

/* Every node output's type and shape as the session knows them at
 * creation, in model order: "values:" then one line each, or
 * , "values": [...]; unknown without a session. */
static onyx_status put_node_values(const info_model *im, int json, onyx_error *err) {
  if (json)
    printf(", \"values\": %s", im->m.session ? "[" : "null");
  else if (!im->m.session)
    puts("values: (not known: onyx cannot run this model)");
  else
    puts("values:");
  if (!im->m.session) return ONYX_OK;
  size_t n = onyx_model_node_count(im->m.model), shown = 0;
  for (size_t i = 0; i < n; i++) {
    onyx_node_info node;
    cli_reset_error(err);
    onyx_status st = onyx_model_node(im->m.model, i, &node, err);
    if (st != ONYX_OK) return st;
    for (size_t k = 0; k < node.output_count; k++) {
      const onyx_value_info *v = find_value(im, node.outputs[k]);
      if (v == NULL) continue; /* an omitted optional output */
      if (json && shown) fputs(", ", stdout);
      put_value_info(v, json, "shape not known before a run");
      shown++;
    }
  }
  if (json) putchar(']');
  return ONYX_OK;
}

/* The inputs or outputs under title; unknown without a session. */
static void put_value_infos(const info_model *im, int json, const char *title, size_t n,
                            const onyx_value_info *infos) {
  if (json)
    printf(", \"%s\": %s", title, im->m.session ? "[" : "null");
  else if (!im->m.session)
    printf("%s: (not known: onyx cannot run this model)\n", title);
  else
    printf("%s:%s\n", title, n ? "" : " (none)");
  if (!im->m.session) return;
  for (size_t i = 0; i < n; i++) {
    if (json && i) fputs(", ", stdout);
    if (infos == im->m.in_info)
      put_value_info(&infos[i], json, "shape not declared");
    else
      put_value_info(output_info(im, &infos[i]), json, "shape not known before a run");
  }
  if (json) putchar(']');
}

/* ---- Text --------------------------------------------------------------- */

static void print_names(size_t n, const char *const *names) {
  for (size_t i = 0; i < n; i++) {
    if (i) fputs(", ", stdout);
    fputs(names[i] && names[i][0] ? cli_esc(names[i]) : "<none>", stdout);
  }
}

/* Prints "  I: DOMAIN.OP 'NAME': IN, ... -> OUT, ..." for node i. */
static void print_node(size_t i, const onyx_node_info *node) {
  printf("  %zu: ", i);
  if (node->domain && node->domain[0]) printf("%s.", cli_esc(node->domain));
  fputs(node->op_type ? cli_esc(node->op_type) : "?", stdout);
  if (node->name && node->name[0]) printf(" '%s'", cli_esc(node->name));
  fputs(": ", stdout);
  print_names(node->input_count, node->inputs);
  fputs(node->input_count ? " -> " : "-> ", stdout);
  print_names(node->output_count, node->outputs);
  putchar('\n');
}

/* ---- JSON (a node's object is closed after its attributes) ----------- */

static void json_names(size_t n, const char *const *names) {
  putchar('[');
  for (size_t i = 0; i < n; i++) {
    if (i) fputs(", ", stdout);
    cli_put_json(stdout, names[i] ? names[i] : "");
  }
  putchar(']');
}

static void json_node(size_t i, const onyx_node_info *node) {
  printf("%s{\"index\": %zu, \"domain\": ", i ? ", " : "", i);
  cli_put_json(stdout, node->domain && node->domain[0] ? node->domain : "ai.onnx");
  fputs(", \"op\": ", stdout);
  cli_put_json(stdout, node->op_type ? node->op_type : "");
  fputs(", \"name\": ", stdout);
  cli_put_json(stdout, node->name ? node->name : "");
  fputs(", \"inputs\": ", stdout);
  json_names(node->input_count, node->inputs);
  fputs(", \"outputs\": ", stdout);
  json_names(node->output_count, node->outputs);
}

/* ---- Both --------------------------------------------------------------- */

static void print_header(const info_model *im, int json) {
  int64_t ir = onyx_model_ir_version(im->m.model);
  if (json) {
    fputs("{\"model\": ", stdout);
    cli_put_json(stdout, im->m.path);
    printf(", \"ir_version\": %" PRId64 ", \"opset_import\": [", ir);
  } else {
    printf("model: %s\nir_version: %" PRId64 "\nopset_import:\n", cli_esc(im->m.path), ir);
  }
}

/* One "name: value" line of text, or one ", \"name\": value" of JSON. */
static void put_field(const char *name, const char *value, int json) {
  if (json) {
    printf(", \"%s\": ", name);
    cli_put_json(stdout, value);
  } else if (value[0] != '\0') {
    printf("%s: %s\n", name, cli_esc(value));
  }
}

/* The producer, versions, doc string, graph name and metadata_props;
 * text leaves out the fields the model leaves empty. */
static onyx_status print_meta(const info_model *im, int json, onyx_error *err) {
  onyx_model_meta meta;
  cli_reset_error(err);
  onyx_status st = onyx_model_metadata(im->m.model, &meta, err);
  if (st != ONYX_OK) return st;
  put_field("producer_name", meta.producer_name, json);
  put_field("producer_version", meta.producer_version, json);
  put_field("domain", meta.domain, json);
  if (json || meta.model_version != 0)
    printf(json ? ", \"model_version\": %" PRId64 : "model_version: %" PRId64 "\n",
           meta.model_version);
  put_field("doc_string", meta.doc_string, json);
  put_field("graph_name", meta.graph_name, json);
  if (json) fputs(", \"metadata_props\": [", stdout);
  if (!json && meta.metadata_count > 0) puts("metadata_props:");
  for (size_t i = 0; i < meta.metadata_count; i++) {
    if (json) {
      fputs(i ? ", {\"key\": " : "{\"key\": ", stdout);
      cli_put_json(stdout, meta.metadata_keys[i]);
      fputs(", \"value\": ", stdout);
      cli_put_json(stdout, meta.metadata_values[i]);
      putchar('}');
    } else {
      printf("  %s = %s\n", cli_esc(meta.metadata_keys[i]), cli_esc(meta.metadata_values[i]));
    }
  }
  if (json) putchar(']');
  return ONYX_OK;
}

/* The opset imports; returns the status of a failed call. */
static onyx_status print_opsets(const info_model *im, int json, onyx_error *err) {
  size_t n = onyx_model_opset_count(im->m.model);
  for (size_t i = 0; i < n; i++) {
    const char *domain = NULL;
    int64_t version = 0;
    cli_reset_error(err);
    onyx_status st = onyx_model_opset(im->m.model, i, &domain, &version, err);
    if (st != ONYX_OK) return st;
    const char *d = domain && domain[0] ? domain : "ai.onnx";
    if (json) {
      fputs(i ? ", {\"domain\": " : "{\"domain\": ", stdout);
      cli_put_json(stdout, d);
      printf(", \"version\": %" PRId64 "}", version);
    } else {
      printf("  %s %" PRId64 "\n", cli_esc(d), version);
    }
  }
  if (json) putchar(']');
  return ONYX_OK;
}

/* Whether onyx serves node i on its own (op, version, arity, attributes),
 * and why not: text says only the refusals, JSON gives "served" for every
 * node, with "reason" null or the library's message. */
static void put_node_check(const info_model *im, size_t i, int json) {
  const char *library = NULL;
  if (onyx_op_registry_serves(im->ops, im->m.model, i, &library)) {
    if (json) {
      fputs(", \"served\": true, \"served_by\": \"registered\", \"library\": ", stdout);
      if (library != NULL)
        cli_put_json(stdout, library);
      else
        fputs("null", stdout);
      fputs(", \"reason\": null", stdout);
    } else {
      printf("    served by a registered op%s%s\n", library ? " from " : "",
             library ? cli_esc(library) : "");
    }
    return;
  }
  onyx_error err;
  cli_reset_error(&err);
  onyx_status st = onyx_model_node_check(im->m.model, i, &err);
  if (json) {
    printf(", \"served\": %s, \"served_by\": %s, \"reason\": ", st == ONYX_OK ? "true" : "false",
           st == ONYX_OK ? "\"onyx\"" : "null");
    if (st == ONYX_OK)
      fputs("null", stdout);
    else
      cli_put_json(stdout, err.message);
  } else if (st != ONYX_OK) {
    printf("    onyx cannot run it: %s (%s)\n", cli_esc(err.message), onyx_status_name(st));
  }
}

static onyx_status print_nodes(const info_model *im, int json, onyx_error *err) {
  size_t n = onyx_model_node_count(im->m.model);
  fputs(json ? ", \"nodes\": [" : "nodes:\n", stdout);
  for (size_t i = 0; i < n; i++) {
    onyx_node_info node;
    cli_reset_error(err);
    onyx_status st = onyx_model_node(im->m.model, i, &node, err);
    if (st != ONYX_OK) return st;
    if (json)
      json_node(i, &node);
    else
      print_node(i, &node);
    st = cli_put_attributes(im->m.model, i, json, err);
    if (st != ONYX_OK) return st;
    put_node_check(im, i, json);
    if (json) putchar('}');
  }
  if (json) putchar(']');
  return ONYX_OK;
}

/* Whether onyx runs the model, and the library's reason when it does not. */
static void print_runnable(const info_model *im, int json) {
  const char *why = cli_error_text(im->m.path, im->refused, &im->refused_err);
  if (json) {
    printf(", \"runnable\": %s, \"status\": ", im->m.session ? "true" : "false");
    if (im->m.session) {
      fputs("null, \"reason\": null}\n", stdout);
      return;
    }
    printf("\"%s\", \"reason\": ", onyx_status_name(im->refused));
    cli_put_json(stdout, why);
    fputs("}\n", stdout);
  } else if (im->m.session) {
    puts("runnable: yes");
  } else {
    printf("runnable: no: %s (%s)\n", cli_esc(why), onyx_status_name(im->refused));
  }
}

/* Prints the model's description; returns the status of a failed call. */
static onyx_status describe(const info_model *im, int json, onyx_error *err) {
  print_header(im, json);
  onyx_status st = print_opsets(im, json, err);
  if (st == ONYX_OK) st = print_meta(im, json, err);
  if (st != ONYX_OK) return st;
  put_value_infos(im, json, "inputs", im->m.n_in, im->m.in_info);
  put_value_infos(im, json, "outputs", im->m.n_out, im->m.out_info);
  st = put_node_values(im, json, err);
  if (st == ONYX_OK) st = print_nodes(im, json, err);
  if (st == ONYX_OK) print_runnable(im, json);
  return st;
}

/* Loads the model, and makes a session when onyx can (else keeps why). */
static int open_info(const char *path, const onyx_session_options *opts, info_model *im) {
  memset(im, 0, sizeof *im);
  im->m.path = path;
  im->ops = opts->ops;
  onyx_error err;
  cli_reset_error(&err);
  onyx_status st = onyx_model_load_file(path, &im->m.model, &err);
  if (st != ONYX_OK) {
    cli_report(path, st, &err);
    return CLI_ERROR;
  }
  cli_reset_error(&im->refused_err);
  im->refused = onyx_session_create(im->m.model, opts, &im->m.session, &im->refused_err);
  if (im->refused != ONYX_OK) {
    im->m.session = NULL;
    return CLI_OK;
  }
  int rc = cli_model_read_infos(&im->m);
  if (rc != CLI_OK) return rc;
  rc = read_values(im);
  if (rc != CLI_OK) {
    free(im->values);
    cli_model_close(&im->m);
    return CLI_ERROR;
  }
  return CLI_OK;
}

int cli_info(cli_args *a) {
  if (a->build_config) return cli_build_config(a);
  int rc = cli_one_model(a);
  if (rc != CLI_OK) return rc;
  info_model im;
  rc = open_info(a->positional[0], &a->opts, &im);
  if (rc != CLI_OK) return rc;
  onyx_error err;
  onyx_status st = describe(&im, a->json, &err);
  if (st != ONYX_OK) {
    cli_report(im.m.path, st, &err);
    rc = CLI_ERROR;
  }
  free(im.values);
  cli_model_close(&im.m);
  return rc;
}
