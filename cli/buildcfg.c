/* SPDX-License-Identifier: MIT */
/*
 * onyx info --build-config MODEL...: writes on stdout the build
 * configuration (docs/build-config.md) that a set of models needs, in ONNX
 * Runtime's required_operators_and_types.config format, which
 * -DONYX_BUILD_CONFIG reads:
 *
 *   ai.onnx;13;Ceil,Clip        the ops each model uses, at its opset
 *   !globally_allowed_types;float
 *
 * The types are those of the models' inputs, outputs and constants, as a
 * session of this build sees them (onyx's ops keep their input's type). A
 * model this build cannot make a session of keeps every type, with a
 * warning on stderr: the configuration is then correct but larger.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "onyx.h"

/* One "domain;opset;op" the models use. */
typedef struct {
  char *domain; /* "ai.onnx" for the default domain */
  int64_t opset;
  char *op;
} cfg_entry;

typedef struct {
  cfg_entry *items;
  size_t len, cap;
  uint64_t types; /* bit per onyx_dtype value */
  int all_types;
} cfg_set;

static int cfg_add(cfg_set *s, const char *domain, int64_t opset, const char *op) {
  for (size_t i = 0; i < s->len; i++)
    if (s->items[i].opset == opset && strcmp(s->items[i].domain, domain) == 0 &&
        strcmp(s->items[i].op, op) == 0)
      return 1;
  if (s->len == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 16;
    cfg_entry *p = realloc(s->items, cap * sizeof *p);
    if (!p) return 0;
    s->items = p;
    s->cap = cap;
  }
  char *d = cli_str_printf("%s", domain), *o = cli_str_printf("%s", op);
  if (!d || !o) {
    free(d);
    free(o);
    return 0;
  }
  s->items[s->len++] = (cfg_entry){d, opset, o};
  return 1;
}

static int cfg_cmp(const void *pa, const void *pb) {
  const cfg_entry *a = pa, *b = pb;
  int c = strcmp(a->domain, b->domain);
  if (c != 0) return c;
  if (a->opset != b->opset) return a->opset < b->opset ? -1 : 1;
  return strcmp(a->op, b->op);
}

static void cfg_type(cfg_set *s, onyx_dtype t) {
  if ((unsigned)t < 64) s->types |= (uint64_t)1 << (unsigned)t;
}

/* onyx's type name as ONNX Runtime's configuration files write it. */
static void put_ort_type(const char *name) {
  if (strcmp(name, "float16") == 0)
    fputs("MLFloat16", stdout);
  else if (strcmp(name, "bfloat16") == 0)
    fputs("BFloat16", stdout);
  else
    printf("%s%s", name, strncmp(name, "int", 3) == 0 || strncmp(name, "uint", 4) == 0 ? "_t" : "");
}

/* The domain's opset that model imports (0 when none). */
static int64_t model_opset(const onyx_model *m, const char *domain) {
  for (size_t i = 0; i < onyx_model_opset_count(m); i++) {
    const char *d;
    int64_t v;
    if (onyx_model_opset(m, i, &d, &v, NULL) == ONYX_OK && strcmp(d, domain) == 0) return v;
  }
  return 0;
}

/* Adds one model's ops and types to s. */
static int add_model(cfg_set *s, const char *path, const onyx_session_options *opts) {
  cli_model cm;
  memset(&cm, 0, sizeof cm);
  cm.path = path;
  onyx_error err;
  cli_reset_error(&err);
  onyx_status st = onyx_model_load_file(path, &cm.model, &err);
  if (st != ONYX_OK) {
    cli_report(path, st, &err);
    return CLI_ERROR;
  }
  for (size_t n = 0; n < onyx_model_node_count(cm.model); n++) {
    onyx_node_info node;
    if (onyx_model_node(cm.model, n, &node, NULL) != ONYX_OK) continue;
    const char *domain = node.domain[0] == '\0' ? "ai.onnx" : node.domain;
    if (!cfg_add(s, domain, model_opset(cm.model, node.domain), node.op_type)) {
      cli_error_oom();
      onyx_model_free(cm.model);
      return CLI_ERROR;
    }
    for (size_t k = 0; k < onyx_model_node_attribute_count(cm.model, n); k++) {
      onyx_attribute_info at;
      if (onyx_model_node_attribute(cm.model, n, k, &at, NULL) == ONYX_OK && at.has_tensor)
        cfg_type(s, at.tensor.dtype);
    }
  }
  cli_reset_error(&err);
  st = onyx_session_create(cm.model, opts, &cm.session, &err);
  if (st != ONYX_OK) {
    fprintf(stderr, "onyx: %s: no session (%s), so the configuration keeps every type: %s\n",
            cli_esc(path), onyx_status_name(st), cli_esc(err.message));
    s->all_types = 1;
    onyx_model_free(cm.model);
    return CLI_OK;
  }
  if (cli_model_read_infos(&cm) != CLI_OK) return CLI_ERROR;
  for (size_t i = 0; i < cm.n_in; i++) cfg_type(s, cm.in_info[i].dtype);
  for (size_t i = 0; i < cm.n_out; i++) cfg_type(s, cm.out_info[i].dtype);
  cli_model_close(&cm);
  return CLI_OK;
}

static void put_config(cfg_set *s, const cli_args *a) {
  printf(
      "# Written by onyx %s info --build-config (docs/build-config.md): the ops\n"
      "# and types of\n",
      onyx_version());
  for (size_t i = 0; i < a->n_positional; i++) printf("#   %s\n", cli_esc(a->positional[i]));
  qsort(s->items, s->len, sizeof *s->items, cfg_cmp);
  for (size_t i = 0; i < s->len; i++) {
    const cfg_entry *e = &s->items[i];
    int first = i == 0 || strcmp(e[-1].domain, e->domain) != 0 || e[-1].opset != e->opset;
    int last = i + 1 == s->len || strcmp(e[1].domain, e->domain) != 0 || e[1].opset != e->opset;
    if (first) printf("%s;%" PRId64 ";", e->domain, e->opset);
    printf("%s%s", e->op, last ? "\n" : ",");
  }
  if (s->all_types || s->types == 0) return;
  fputs("!globally_allowed_types;", stdout);
  const char *sep = "";
  for (unsigned t = 1; t < 64; t++) {
    if (!(s->types >> t & 1)) continue;
    fputs(sep, stdout);
    put_ort_type(onyx_dtype_name((onyx_dtype)t));
    sep = ",";
  }
  putchar('\n');
}

int cli_build_config(cli_args *a) {
  if (a->n_positional == 0) {
    cli_usage_error(a->command, "--build-config needs at least one MODEL");
    return CLI_USAGE;
  }
  cfg_set s;
  memset(&s, 0, sizeof s);
  int rc = CLI_OK;
  for (size_t i = 0; i < a->n_positional && rc == CLI_OK; i++)
    rc = add_model(&s, a->positional[i], &a->opts);
  if (rc == CLI_OK) put_config(&s, a);
  for (size_t i = 0; i < s.len; i++) {
    free(s.items[i].domain);
    free(s.items[i].op);
  }
  free(s.items);
  return rc;
}
