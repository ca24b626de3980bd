/* SPDX-License-Identifier: MIT */
/*
 * The registry of operators the caller implements: definitions checked
 * and copied, op libraries loaded through the platform layer, and the
 * lookup that decides which nodes they serve.
 */
#include <stdio.h>
#include <string.h>

#define ONYX__CUSTOM_IMPL /* the definitions, in any build (custom.h) */
#include "core/alloc.h"
#include "core/error.h"
#include "graph/custom.h"
#include "ops/op.h"
#include "os/os.h"

typedef struct loaded_library {
  onyx__os_library *handle;
  char *path;
  struct loaded_library *next;
} loaded_library;

struct onyx_op_registry {
  onyx__custom_entry *first, *last;
  loaded_library *libraries;
  const char *loading; /* the library whose onyx_register_ops is running */
};

onyx_status onyx_op_registry_create(onyx_op_registry **out, onyx_error *err) {
  if (out == NULL)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_op_registry_create: out is NULL");
#ifdef ONYX_OMIT_CUSTOM_OPS /* the build configuration's hook (custom.h) */
  *out = NULL;
  return onyx__fail(err, ONYX_UNSUPPORTED_OP, "custom operators are left out of this build");
#endif
  *out = onyx__calloc(1, sizeof **out);
  if (*out == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  return ONYX_OK;
}

static void entry_free(onyx__custom_entry *e) {
  if (e->def.destroy != NULL) e->def.destroy(e->def.user_data);
  onyx__free((void *)(uintptr_t)e->def.domain);
  onyx__free((void *)(uintptr_t)e->def.name);
  onyx__free(e);
}

/* Frees the entries after `keep` (all when NULL): their destroy functions
 * run before any library holding them is closed. */
static void entries_free_after(onyx_op_registry *reg, onyx__custom_entry *keep) {
  onyx__custom_entry *e = keep != NULL ? keep->next : reg->first;
  while (e != NULL) {
    onyx__custom_entry *next = e->next;
    entry_free(e);
    e = next;
  }
  if (keep != NULL)
    keep->next = NULL;
  else
    reg->first = NULL;
  reg->last = keep;
}

void onyx_op_registry_free(onyx_op_registry *reg) {
  if (reg == NULL) return;
  entries_free_after(reg, NULL);
  for (loaded_library *l = reg->libraries, *next; l != NULL; l = next) {
    next = l->next;
    onyx__os_library_close(l->handle);
    onyx__free(l->path);
    onyx__free(l);
  }
  onyx__free(reg);
}

static char *copy_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = onyx__malloc(n);
  if (p != NULL) memcpy(p, s, n);
  return p;
}

/* The bits of every type onyx knows. */
static uint32_t known_types(void) {
#define ONYX_X_(name, value, cname, size) | ONYX_DTYPE_BIT(ONYX_DTYPE_##name)
  return 0 ONYX_DTYPE_MAP(ONYX_X_);
#undef ONYX_X_
}

static onyx_status check_masks(const char *op, const char *what, const uint32_t *masks, uint32_t n,
                               onyx_error *err) {
  if (n > ONYX_OP_MAX_TYPED)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "op '%s': n_%s_types is %u; at most %d", op, what,
                      n, ONYX_OP_MAX_TYPED);
  for (uint32_t i = 0; i < n; i++)
    if ((masks[i] & ~known_types()) != 0)
      return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                        "op '%s': %s_types[%u] is 0x%x, which has bits of no type onyx knows", op,
                        what, i, (unsigned)masks[i]);
  return ONYX_OK;
}

/* Whether [a0, a1] and [b0, b1] share a version; 0 as the top is none. */
static bool overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1) {
  return (a1 == 0 || b0 <= a1) && (b1 == 0 || a0 <= b1);
}

static onyx_status check_def(const onyx_op_registry *reg, const onyx_custom_op *d,
                             const char *domain, onyx_error *err) {
  if (d->name == NULL || d->name[0] == '\0')
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_op_registry_add: the op has no name");
  const char *op = d->name;
  if (d->infer == NULL || d->compute == NULL)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "op '%s': %s is NULL", op,
                      d->infer == NULL ? "infer" : "compute");
  if (d->since_min < 1 || (d->since_max != 0 && d->since_max < d->since_min))
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "op '%s': versions %lld to %lld are no range (since_min >= 1, since_max "
                      "0 or >= since_min)",
                      op, (long long)d->since_min, (long long)d->since_max);
  if (d->min_inputs > d->max_inputs || d->min_outputs > d->max_outputs || d->max_outputs == 0)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "op '%s': takes %u to %u inputs and %u to %u outputs; each minimum must "
                      "be at most its maximum, and max_outputs at least 1",
                      op, d->min_inputs, d->max_inputs, d->min_outputs, d->max_outputs);
  ONYX__TRY(check_masks(op, "input", d->input_types, d->n_input_types, err));
  ONYX__TRY(check_masks(op, "output", d->output_types, d->n_output_types, err));
  if (domain[0] == '\0' && onyx__op_find(op) != NULL && !d->override_builtin)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "op '%s': onyx implements it; set override_builtin to serve it instead", op);
  for (const onyx__custom_entry *e = reg->first; e != NULL; e = e->next)
    if (strcmp(e->def.domain, domain) == 0 && strcmp(e->def.name, op) == 0 &&
        overlap(e->def.since_min, e->def.since_max, d->since_min, d->since_max))
      return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                        "op '%s' of domain '%s' is already registered for versions %lld to "
                        "%lld%s",
                        op, domain, (long long)e->def.since_min, (long long)e->def.since_max,
                        e->def.since_max == 0 ? " (no upper bound)" : "");
  return ONYX_OK;
}

onyx_status onyx_op_registry_add(onyx_op_registry *reg, const onyx_custom_op *def,
                                 onyx_error *err) {
  if (reg == NULL || def == NULL)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_op_registry_add: %s is NULL",
                      reg == NULL ? "reg" : "def");
  /* The loader reads "ai.onnx" as "", and so does the registry. */
  const char *domain =
      def->domain == NULL || strcmp(def->domain, "ai.onnx") == 0 ? "" : def->domain;
  ONYX__TRY(check_def(reg, def, domain, err));
  onyx__custom_entry *e = onyx__calloc(1, sizeof *e);
  char *dom = copy_string(domain), *name = copy_string(def->name);
  if (e == NULL || dom == NULL || name == NULL) {
    onyx__free(e);
    onyx__free(dom);
    onyx__free(name);
    return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  }
  e->def = *def;
  e->def.domain = dom;
  e->def.name = name;
  e->library = reg->loading;
  if (reg->last != NULL)
    reg->last->next = e;
  else
    reg->first = e;
  reg->last = e;
  return ONYX_OK;
}

/* The function an op library exports. */
#define REGISTER_SYMBOL "onyx_register_ops"

/* Calls the library's registration; on failure the operators it added go
 * again, so that nothing points into a library that is closed. */
static onyx_status register_from(onyx_op_registry *reg, loaded_library *lib, onyx_error *err) {
  void (*sym)(void) = onyx__os_library_symbol(lib->handle, REGISTER_SYMBOL);
  if (sym == NULL)
    return onyx__fail(err, ONYX_IO, "%s: exports no function " REGISTER_SYMBOL, lib->path);
  onyx_register_ops_fn fn = (onyx_register_ops_fn)sym;
  onyx__custom_entry *before = reg->last;
  onyx_error inner = {ONYX_OK, ""};
  reg->loading = lib->path;
  onyx_status st = fn(reg, &inner);
  reg->loading = NULL;
  if (st == ONYX_OK) return ONYX_OK;
  entries_free_after(reg, before);
  return onyx__fail(err, st, "%s: " REGISTER_SYMBOL " failed: %s", lib->path,
                    inner.message[0] != '\0' ? inner.message : onyx_status_description(st));
}

/* Refuses a path to something other than a regular file before the
 * loader opens it: the loader would wait on a FIFO for a writer. A name
 * without a separator is the loader's to search for on the library path;
 * a path that cannot be looked at is left to the loader to report. */
static onyx_status check_library_file(const char *path, onyx_error *err) {
  bool has_sep = false;
  for (const char *c = path; *c != '\0'; c++) has_sep |= onyx__os_is_sep(*c);
  onyx__os_file_info info;
  if (!has_sep || onyx__os_path_info(path, &info) != 0 || info.kind == ONYX__OS_REGULAR)
    return ONYX_OK;
  return onyx__fail(
      err, ONYX_IO, "%s: cannot load the op library: %s", path,
      info.kind == ONYX__OS_FOLDER ? "is a folder, not a file" : "is not a regular file");
}

onyx_status onyx_op_registry_load_library(onyx_op_registry *reg, const char *path,
                                          onyx_error *err) {
  if (reg == NULL || path == NULL)
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_op_registry_load_library: %s is NULL",
                      reg == NULL ? "reg" : "path");
  loaded_library *lib = onyx__calloc(1, sizeof *lib);
  if (lib == NULL || (lib->path = copy_string(path)) == NULL) {
    onyx__free(lib);
    return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  }
  char why[256];
  onyx_status st = check_library_file(path, err);
  if (st == ONYX_OK && onyx__os_library_open(path, &lib->handle, why, sizeof why) != 0)
    st = onyx__fail(err, ONYX_IO, "%s: cannot load the op library: %s", path, why);
  if (st == ONYX_OK) st = register_from(reg, lib, err);
  if (st != ONYX_OK) {
    onyx__os_library_close(lib->handle);
    onyx__free(lib->path);
    onyx__free(lib);
    return st;
  }
  lib->next = reg->libraries;
  reg->libraries = lib;
  return ONYX_OK;
}

/* The opset version of domain the model imports, or 0. */
static int64_t domain_version(const onyx_model *m, const char *domain) {
  if (domain[0] == '\0') return m->onnx_opset;
  for (size_t i = 0; i < m->n_opsets; i++)
    if (strcmp(m->opsets[i].domain, domain) == 0) return m->opsets[i].version;
  return 0;
}

/* A linear search: the registry is the caller's, of a size the caller
 * chose, so the cost per node is not the model's to raise. */
const onyx__custom_entry *onyx__custom_lookup(const onyx_op_registry *reg, const onyx__node *node,
                                              int64_t v) {
  if (reg == NULL) return NULL;
  for (const onyx__custom_entry *e = reg->first; e != NULL; e = e->next)
    if (strcmp(e->def.name, node->op_type) == 0 && strcmp(e->def.domain, node->domain) == 0 &&
        v >= e->def.since_min && (e->def.since_max == 0 || v <= e->def.since_max))
      return e;
  return NULL;
}

const onyx__custom_entry *onyx__custom_find(const onyx_op_registry *reg, const onyx_model *m,
                                            size_t n) {
  if (reg == NULL) return NULL;
  const onyx__node *node = &m->graph.nodes[n];
  return onyx__custom_lookup(reg, node, domain_version(m, node->domain));
}

int onyx_op_registry_serves(const onyx_op_registry *reg, const onyx_model *model, size_t node,
                            const char **library) {
  if (library != NULL) *library = NULL;
  if (reg == NULL || model == NULL || node >= model->graph.n_nodes) return 0;
  const onyx__custom_entry *e = onyx__custom_find(reg, model, node);
  if (e == NULL) return 0;
  if (library != NULL) *library = e->library;
  return 1;
}
