// SPDX-License-Identifier: MIT
/*
 * A reduced build against the conformance cases (tests/buildconfig/):
 *
 *   check_config [--no-files] KEEP FOLDER...
 *
 * KEEP says, independently of the configuration file the library was built
 * from, what that build must keep: "all", or OPS:TYPES, where OPS is a
 * comma-separated list of ops, each optionally "@N" (kept at ai.onnx
 * opsets N and later only) or "@N-M" (opsets N to M), and TYPES a comma-separated list of element
 * types (onyx_dtype_name) or "*". Example: "Ceil@13:float".
 *
 * Each FOLDER holds case folders (model.onnx, test_data_set_N/input_K.pb,
 * output_K.pb). A case whose nodes and types the build keeps must create a
 * session and reproduce every expected output (bit for bit; any NaN for a
 * NaN). Every other case must be refused by onyx_session_create() with
 * ONYX_UNSUPPORTED_OP (an op or version left out) or ONYX_TYPE (a type
 * left out), and a message saying the build left it out; or, when the
 * model or its data holds a tensor of a type none of the kept ops takes,
 * by onyx_model_load_* or onyx_tensor_decode with ONYX_TYPE, saying the
 * same. Uses the public API alone. Exits 0 when every case is as expected.
 *
 * --no-files: the build leaves files out (!onyx_omit;files). Models and
 * tensors are then read here and handed over in memory
 * (onyx_model_load_memory, onyx_tensor_decode); onyx_model_load_file must
 * refuse every case with ONYX_IO, and a case whose model has external
 * data must be refused at load with ONYX_EXTERNAL_DATA.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onyx.h"

#define MAX_KEEP  32
#define MAX_IO    16
#define MAX_CASES 4096

/* snprintf that cuts, as the messages here may be cut. */
static void put(char *buf, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, cap, fmt, ap);
  va_end(ap);
}

static int no_files;

/* The whole file at path, malloc'd (NULL when it cannot be read). */
static unsigned char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char *buf = NULL;
  long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL &&
      fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *size = (size_t)(n < 0 ? 0 : n);
  return buf;
}

/* A tensor file, through onyx_tensor_load_file or, without files, from
 * memory. */
static onyx_status load_tensor(const char *path, onyx_tensor *t) {
  onyx_error err = {0};
  onyx_status st = ONYX_IO;
  if (!no_files) {
    st = onyx_tensor_load_file(path, t, NULL, &err);
  } else {
    size_t size;
    unsigned char *bytes = read_file(path, &size);
    if (!bytes) return ONYX_IO;
    st = onyx_tensor_decode(bytes, size, t, NULL, &err);
    free(bytes);
  }
  /* A reduced build refuses a tensor of a type none of its ops takes. */
  if (st == ONYX_TYPE && !strstr(err.message, "left out of this build")) st = ONYX_INTERNAL;
  return st;
}

static struct {
  int all;
  size_t n_ops;
  char op[MAX_KEEP][32];
  long long from[MAX_KEEP], to[MAX_KEEP];
  int any_type;
  size_t n_types;
  char type[MAX_KEEP][16];
} keep;

static int parse_keep(const char *s) {
  if (strcmp(s, "all") == 0) return keep.all = 1;
  const char *colon = strchr(s, ':');
  if (!colon) return 0;
  char buf[512];
  snprintf(buf, sizeof buf, "%.*s", (int)(colon - s), s);
  for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
    if (keep.n_ops == MAX_KEEP) return 0;
    char *at = strchr(t, '@');
    char *dash = at ? strchr(at, '-') : NULL;
    keep.from[keep.n_ops] = at ? atoll(at + 1) : 0;
    keep.to[keep.n_ops] = dash ? atoll(dash + 1) : 1000000;
    if (at) *at = '\0';
    snprintf(keep.op[keep.n_ops++], sizeof keep.op[0], "%s", t);
  }
  snprintf(buf, sizeof buf, "%s", colon + 1);
  if (strcmp(buf, "*") == 0) return keep.any_type = 1;
  for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
    if (keep.n_types == MAX_KEEP) return 0;
    snprintf(keep.type[keep.n_types++], sizeof keep.type[0], "%s", t);
  }
  return keep.n_ops > 0 && keep.n_types > 0;
}

static int op_kept(const char *op, long long opset) {
  if (keep.all) return 1;
  for (size_t i = 0; i < keep.n_ops; i++)
    if (strcmp(keep.op[i], op) == 0) return opset >= keep.from[i] && opset <= keep.to[i];
  return 0;
}

static int type_kept(onyx_dtype t) {
  if (keep.all || keep.any_type) return 1;
  for (size_t i = 0; i < keep.n_types; i++)
    if (strcmp(keep.type[i], onyx_dtype_name(t)) == 0) return 1;
  return 0;
}

/* Set when a tensor was refused as one of a type the build left out
 * (onyx_tensor_decode: ONYX_TYPE), which only types no kept op takes are. */
static int tensor_left_out;

/* The tensors PREFIX_0.pb, PREFIX_1.pb, ... of a data set folder. */
static size_t load_tensors(const char *set, const char *prefix, onyx_tensor *t) {
  size_t n = 0;
  char path[4096];
  for (; n < MAX_IO; n++) {
    put(path, sizeof path, "%s/%s_%zu.pb", set, prefix, n);
    FILE *f = fopen(path, "rb");
    if (!f) break;
    fclose(f);
    onyx_status st = load_tensor(path, &t[n]);
    if (st == ONYX_TYPE) tensor_left_out = 1;
    if (st != ONYX_OK) break;
  }
  return n;
}

static void free_tensors(onyx_tensor *t, size_t n) {
  for (size_t i = 0; i < n; i++) onyx_free(t[i].data);
}

static int is_nan(onyx_dtype t, const unsigned char *p) {
  uint16_t h;
  switch (t) {
    case ONYX_DTYPE_FLOAT: {
      float v;
      memcpy(&v, p, sizeof v);
      return v != v;
    }
    case ONYX_DTYPE_DOUBLE: {
      double v;
      memcpy(&v, p, sizeof v);
      return v != v;
    }
    case ONYX_DTYPE_FLOAT16:
      memcpy(&h, p, sizeof h);
      return (h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0;
    case ONYX_DTYPE_BFLOAT16:
      memcpy(&h, p, sizeof h);
      return (h & 0x7f80) == 0x7f80 && (h & 0x007f) != 0;
    default:
      return 0;
  }
}

/* Bit for bit, except that any NaN matches a NaN. */
static int same(const onyx_tensor *got, const onyx_tensor *exp) {
  if (got->dtype != exp->dtype || got->rank != exp->rank) return 0;
  size_t n = 1;
  for (uint32_t d = 0; d < got->rank; d++) {
    if (got->dims[d] != exp->dims[d]) return 0;
    n *= (size_t)got->dims[d];
  }
  size_t es = onyx_dtype_size(got->dtype);
  const unsigned char *g = got->data, *e = exp->data;
  for (size_t i = 0; i < n; i++, g += es, e += es)
    if (memcmp(g, e, es) != 0 && !(is_nan(got->dtype, g) && is_nan(got->dtype, e))) return 0;
  return 1;
}

typedef enum { RAN, REFUSED, FAILED } outcome;

/* Runs the data sets of a kept case. */
static outcome run_sets(const char *dir, onyx_session *s, char *why, size_t cap) {
  char set[4096];
  size_t n_sets = 0;
  for (;; n_sets++) {
    put(set, sizeof set, "%s/test_data_set_%zu", dir, n_sets);
    onyx_tensor in[MAX_IO] = {0}, exp[MAX_IO] = {0}, got[MAX_IO] = {0};
    tensor_left_out = 0;
    size_t n_in = load_tensors(set, "input", in), n_exp = load_tensors(set, "output", exp);
    if (tensor_left_out) { /* a graph without nodes, on a type no kept op takes */
      free_tensors(in, n_in);
      free_tensors(exp, n_exp);
      return REFUSED;
    }
    if (n_exp == 0) {
      free_tensors(in, n_in);
      break;
    }
    onyx_error err = {0};
    outcome o = RAN;
    if (onyx_session_run(s, in, n_in, got, n_exp, &err) != ONYX_OK) {
      put(why, cap, "%s: run: %s", set, err.message);
      o = FAILED;
    }
    for (size_t k = 0; k < n_exp && o == RAN; k++)
      if (!same(&got[k], &exp[k])) {
        put(why, cap, "%s: output %zu differs", set, k);
        o = FAILED;
      }
    free_tensors(in, n_in);
    free_tensors(exp, n_exp);
    free_tensors(got, n_exp);
    if (o != RAN) return o;
  }
  if (n_sets == 0) put(why, cap, "no data set");
  return n_sets ? RAN : FAILED;
}

static outcome check_case(const char *dir, char *why, size_t cap) {
  char path[4096];
  put(path, sizeof path, "%s/model.onnx", dir);
  onyx_model *m = NULL;
  onyx_error err = {0};
  unsigned char *bytes = NULL; /* the model's, without files; outlives it */
  if (no_files) {
    onyx_status st = onyx_model_load_file(path, &m, &err);
    if (st != ONYX_IO || m != NULL) {
      put(why, cap, "model.onnx: loading the file gave %s, not ONYX_IO", onyx_status_name(st));
      onyx_model_free(m);
      return FAILED;
    }
    size_t size;
    bytes = read_file(path, &size);
    st = bytes ? onyx_model_load_memory(bytes, size, &m, &err) : ONYX_IO;
    if (st == ONYX_EXTERNAL_DATA) {
      free(bytes);
      return REFUSED; /* its data lies in files, which the build left out */
    }
    if (st == ONYX_TYPE && strstr(err.message, "left out of this build") && !keep.all &&
        !keep.any_type) {
      free(bytes);
      return REFUSED; /* a tensor of a type no kept op takes */
    }
    if (st != ONYX_OK) {
      put(why, cap, "model.onnx: %s (%s)", err.message, onyx_status_name(st));
      free(bytes);
      return FAILED;
    }
  } else {
    onyx_status st = onyx_model_load_file(path, &m, &err);
    if (st == ONYX_TYPE && strstr(err.message, "left out of this build") && !keep.all &&
        !keep.any_type)
      return REFUSED; /* a tensor of a type no kept op takes */
    if (st != ONYX_OK) {
      put(why, cap, "model.onnx: %s", err.message);
      return FAILED;
    }
  }
  /* What the build must keep for this case: its ops at its opset, and the
   * types of its inputs and outputs (onyx's ops keep their input type). */
  long long opset = 0;
  for (size_t i = 0; i < onyx_model_opset_count(m); i++) {
    const char *domain;
    int64_t v;
    if (onyx_model_opset(m, i, &domain, &v, NULL) == ONYX_OK && domain[0] == '\0') opset = v;
  }
  int ops_in = 1, types_in = 1;
  for (size_t i = 0; i < onyx_model_node_count(m); i++) {
    onyx_node_info node;
    if (onyx_model_node(m, i, &node, NULL) == ONYX_OK && !op_kept(node.op_type, opset)) ops_in = 0;
  }
  put(path, sizeof path, "%s/test_data_set_0", dir);
  onyx_tensor t[2 * MAX_IO] = {0};
  tensor_left_out = 0;
  size_t n = load_tensors(path, "input", t);
  n += load_tensors(path, "output", t + n);
  /* A graph without nodes (inputs passed through) uses no op or type. */
  for (size_t i = 0; i < n && onyx_model_node_count(m) > 0; i++)
    if (!type_kept(t[i].dtype)) types_in = 0;
  if (tensor_left_out && onyx_model_node_count(m) > 0) types_in = 0;
  free_tensors(t, n);

  onyx_session *s = NULL;
  onyx_status st = onyx_session_create(m, NULL, &s, &err);
  outcome o;
  if (ops_in && types_in) {
    if (st != ONYX_OK) {
      put(why, cap, "kept, but refused: %s (%s)", err.message, onyx_status_name(st));
      o = FAILED;
    } else {
      o = run_sets(dir, s, why, cap);
    }
  } else if (st == ONYX_OK) {
    put(why, cap, "left out (%s%s), but the session was created", ops_in ? "" : "op",
        types_in ? "" : " type");
    o = FAILED;
  } else {
    /* An op left out is refused as one; a type only when every op is in.
     * With both out, the first node decides. */
    int status_ok = (!ops_in && st == ONYX_UNSUPPORTED_OP) || (!types_in && st == ONYX_TYPE);
    if (ops_in && st != ONYX_TYPE) status_ok = 0;
    if (types_in && st != ONYX_UNSUPPORTED_OP) status_ok = 0;
    if (!status_ok || !strstr(err.message, "left out of this build")) {
      put(why, cap, "refused with %s: %s", onyx_status_name(st), err.message);
      o = FAILED;
    } else {
      o = REFUSED;
    }
  }
  onyx_session_free(s);
  onyx_model_free(m);
  free(bytes);
  return o;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--no-files") == 0) {
    no_files = 1;
    argv++;
    argc--;
  }
  if (argc < 3 || !parse_keep(argv[1])) {
    fprintf(stderr, "usage: check_config [--no-files] all|OP[@N],...:TYPE,...|* FOLDER...\n");
    return 2;
  }
  size_t counts[3] = {0};
  for (int a = 2; a < argc; a++) {
    DIR *d = opendir(argv[a]);
    if (!d) {
      fprintf(stderr, "check_config: cannot read %s\n", argv[a]);
      return 1;
    }
    static char *names[MAX_CASES];
    size_t n = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL && n < MAX_CASES)
      if (ent->d_name[0] != '.') names[n++] = strdup(ent->d_name);
    closedir(d);
    qsort(names, n, sizeof names[0], cmp_str);
    size_t group[3] = {0};
    for (size_t i = 0; i < n; i++) {
      char dir[4096], why[8192] = "";
      put(dir, sizeof dir, "%s/%s", argv[a], names[i]);
      outcome o = check_case(dir, why, sizeof why);
      if (o == FAILED) printf("FAIL %s: %s\n", dir, why);
      group[o]++;
      free(names[i]);
    }
    printf("%s: %zu ran and matched, %zu refused as left out, %zu failed\n", argv[a], group[RAN],
           group[REFUSED], group[FAILED]);
    for (int k = 0; k < 3; k++) counts[k] += group[k];
  }
  printf("%zu ran and matched, %zu refused as left out, %zu failed\n", counts[RAN], counts[REFUSED],
         counts[FAILED]);
  return counts[FAILED] != 0 || counts[RAN] == 0;
}
