/* SPDX-License-Identifier: MIT */
/*
 * onyx run --profile FILE: the run's per-node times (onyx_profile) as the
 * Chrome-trace JSON that ONNX Runtime's profiler writes, an array of
 * complete ("ph": "X") events in microseconds: one "Session" event for the
 * run, then one "Node" event per node run, in run order. Nodes that onyx
 * fused into one pass share that pass's ts and dur (args "pass",
 * "pass_nodes"). Opens in chrome://tracing and Perfetto.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "onyx.h"
#include "sys.h"

int cli_profile_alloc(const onyx_model *model, onyx_profile *p) {
  memset(p, 0, sizeof *p);
  p->capacity = onyx_model_node_count(model);
  p->nodes = calloc(p->capacity ? p->capacity : 1, sizeof *p->nodes);
  if (!p->nodes) cli_error_oom();
  return p->nodes != NULL;
}

static void put_us(FILE *f, const char *key, uint64_t ns) {
  fprintf(f, "\"%s\": %" PRIu64 ".%03" PRIu64, key, ns / 1000, ns % 1000);
}

static void put_node(FILE *f, const onyx_node_time *t) {
  fputs(",\n{\"cat\": \"Node\", \"pid\": 1, \"tid\": 0, ", f);
  put_us(f, "dur", t->duration_ns);
  fputs(", ", f);
  put_us(f, "ts", t->start_ns);
  fputs(", \"ph\": \"X\", \"name\": ", f);
  char *fallback = NULL;
  if (!t->name[0]) fallback = cli_str_printf("%s_%zu", t->op_type, t->node);
  cli_put_json(f, fallback ? fallback : t->name[0] ? t->name : t->op_type);
  free(fallback);
  fputs(", \"args\": {\"op_name\": ", f);
  cli_put_json(f, t->op_type);
  fputs(", \"domain\": ", f);
  cli_put_json(f, t->domain);
  fprintf(f,
          ", \"provider\": \"%s\", \"node_index\": %zu, \"output_type\": \"%s\", "
          "\"output_shape\": ",
          t->registered ? "registered" : "onyx", t->node, onyx_dtype_name(t->dtype));
  cli_put_json_dims(f, t->rank, t->dims);
  fprintf(f, ", \"pass\": %" PRIu32 ", \"pass_nodes\": %" PRIu32 "}}", t->pass, t->pass_nodes);
}

int cli_profile_write(const char *path, const char *model, const onyx_profile *p) {
  FILE *f = cli_sys_fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "onyx: %s: %s\n", cli_esc(path), strerror(errno));
    return CLI_ERROR;
  }
  fputs("[\n{\"cat\": \"Session\", \"pid\": 1, \"tid\": 0, ", f);
  put_us(f, "dur", p->duration_ns);
  fputs(", \"ts\": 0, \"ph\": \"X\", \"name\": \"model_run\", \"args\": {\"model\": ", f);
  cli_put_json(f, model);
  fputs("}}", f);
  size_t n = p->count < p->capacity ? p->count : p->capacity;
  for (size_t i = 0; i < n; i++) put_node(f, &p->nodes[i]);
  fputs("\n]\n", f);
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) {
    fprintf(stderr, "onyx: %s: write error\n", cli_esc(path));
    return CLI_ERROR;
  }
  return CLI_OK;
}
