/* SPDX-License-Identifier: MIT */
/*
 * onyx bench: times runs of a model on random inputs of its declared types.
 *
 * The inputs are filled once from a fixed-seed generator; the outputs are
 * allocated by one untimed first run and reused, so timed runs measure
 * onyx_session_run on caller buffers and nothing else. Each timed run is
 * timed on its own with CLOCK_MONOTONIC; the summary gives nearest-rank
 * percentiles of those times.
 *
 * --per-node cannot time the nodes inside a session run: the public API has
 * no per-node hook, and a run may fuse a chain of nodes into one pass. So it
 * measures each node in isolation instead, and says so in the output: the
 * node's kernel through the public kernel API (onyx_ceil, onyx_floor,
 * onyx_clip, onyx_sign), on one thread, on random buffers of the node's
 * input shape and type. Those come from the session's inputs (with the
 * shapes given on the command line) and outputs, carried through the graph:
 * every op onyx runs is element-wise, so a node's output has its data
 * input's type and shape.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "onyx.h"
#include "sys.h"

#define DEFAULT_WARMUP   5
#define DEFAULT_DURATION 1.0
/* Progress appears once the timed runs have taken this long... */
#define PROGRESS_AFTER 1.0
/* ...and is updated at most this often (seconds). */
#define PROGRESS_EVERY 0.2

static double now_seconds(void) { return (double)cli_sys_clock_ns() * 1e-9; }

/* ---- Random data -------------------------------------------------------- */

/* xorshift64*: fast, and plenty for filling benchmark inputs. */
typedef struct rng {
  uint64_t s;
} rng;

static uint64_t rng_next(rng *r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [-100, 100), with fractional parts. */
static double rng_real(rng *r) {
  return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0) * 200.0 - 100.0;
}

/* Stores v (a value every type can hold) as one element of type dt. */
static void store_value(onyx_dtype dt, void *p, double v) {
  switch (dt) {
    case ONYX_DTYPE_FLOAT: {
      float f = (float)v;
      memcpy(p, &f, sizeof f);
      return;
    }
    case ONYX_DTYPE_DOUBLE:
      memcpy(p, &v, sizeof v);
      return;
    case ONYX_DTYPE_FLOAT16: {
      uint16_t h = onyx_float_to_f16((float)v);
      memcpy(p, &h, sizeof h);
      return;
    }
    case ONYX_DTYPE_BFLOAT16: {
      uint16_t b = onyx_float_to_bf16((float)v);
      memcpy(p, &b, sizeof b);
      return;
    }
    default: {
      /* Integers: little-endian two's complement of the rounded value. */
      int64_t i = (int64_t)v;
      uint64_t u = (uint64_t)i;
      size_t size = onyx_dtype_size(dt);
      for (size_t k = 0; k < size; k++) ((unsigned char *)p)[k] = (unsigned char)(u >> (8 * k));
      return;
    }
  }
}

/* Fills n elements of type dt: floats uniform in [-100, 100), integers with
 * random bits over their whole range. */
static void fill_random(onyx_dtype dt, void *data, size_t n, rng *r) {
  size_t esize = onyx_dtype_size(dt);
  unsigned char *p = data;
  int is_real = dt == ONYX_DTYPE_FLOAT || dt == ONYX_DTYPE_DOUBLE || dt == ONYX_DTYPE_FLOAT16 ||
                dt == ONYX_DTYPE_BFLOAT16;
  for (size_t i = 0; i < n; i++, p += esize) {
    if (is_real) {
      store_value(dt, p, rng_real(r));
    } else {
      uint64_t u = rng_next(r);
      for (size_t k = 0; k < esize; k++) p[k] = (unsigned char)(u >> (8 * k));
    }
  }
}

/* A buffer aligned for any kernel (64 bytes), or NULL for 0 bytes. Sets
 * *ok to 0 when out of memory. */
static void *alloc_buffer(size_t bytes, int *ok) {
  *ok = 1;
  if (bytes == 0) return NULL;
  size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded < bytes) {
    *ok = 0;
    return NULL;
  }
  void *p = cli_sys_aligned_alloc(64, rounded);
  if (!p) *ok = 0;
  return p;
}

/* Elements and bytes of a shape; 0 on overflow (sets *ok). */
static size_t shape_bytes(onyx_dtype dt, uint32_t rank, const int64_t *dims, size_t *count,
                          int *ok) {
  size_t n = 1;
  *ok = 1;
  for (uint32_t i = 0; i < rank; i++) {
    uint64_t d = (uint64_t)dims[i];
    if (dims[i] < 0 || (d != 0 && n > SIZE_MAX / d)) {
      *ok = 0;
      return 0;
    }
    n *= (size_t)d;
  }
  size_t esize = onyx_dtype_size(dt);
  if (esize == 0 || n > SIZE_MAX / esize) {
    *ok = 0;
    return 0;
  }
  *count = n;
  return n * esize;
}

static void print_dims(FILE *out, uint32_t rank, const int64_t *dims) {
  fputc('[', out);
  for (uint32_t i = 0; i < rank && i < ONYX_MAX_RANK; i++)
    fprintf(out, "%s%" PRId64, i ? ", " : "", dims[i]);
  fputc(']', out);
}

/* ---- Shapes from --shape ------------------------------------------------ */

typedef struct shape_arg {
  const char *spec; /* NAME=DIMS as given */
  size_t name_len;  /* the name is spec[0 .. name_len) */
  const char *dims; /* after the last '=' */
  int used;
} shape_arg;

static int name_is(const shape_arg *s, const char *name) {
  return name && strlen(name) == s->name_len && memcmp(s->spec, name, s->name_len) == 0;
}

static shape_arg *find_shape(shape_arg *args, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (name_is(&args[i], name)) return &args[i];
  return NULL;
}

/* Parses "2x3x4" (or "" for a scalar). Returns 0 after reporting. */
static int parse_dims(const char *spec, const char *s, uint32_t *rank, int64_t *dims) {
  uint32_t n = 0;
  if (*s == '\0') {
    *rank = 0;
    return 1;
  }
  for (;;) {
    if (*s < '0' || *s > '9') goto bad;
    int64_t v = 0;
    while (*s >= '0' && *s <= '9') {
      v = v * 10 + (*s++ - '0');
      if (v > ((int64_t)1 << 48)) goto bad;
    }
    if (n == ONYX_MAX_RANK) {
      cli_usage_error("bench", "--shape %s: more than %d dimensions", spec, ONYX_MAX_RANK);
      return 0;
    }
    dims[n++] = v;
    if (*s == '\0') break;
    if (*s != 'x') goto bad;
    s++;
  }
  *rank = n;
  return 1;
bad:
  cli_usage_error("bench", "--shape %s: DIMS must be sizes joined by 'x', such as 2x3x4", spec);
  return 0;
}

/*
 * Resolves the shape of input v from the --shape arguments into rank/dims.
 * Returns CLI_OK, or CLI_USAGE after reporting every problem with it.
 */
static int resolve_shape(const char *model, const onyx_value_info *v, shape_arg *args,
                         size_t n_args, uint32_t *rank, int64_t *dims) {
  shape_arg *whole = find_shape(args, n_args, v->name);
  if (whole) {
    whole->used = 1;
    if (!parse_dims(whole->spec, whole->dims, rank, dims)) return CLI_USAGE;
    if (!v->has_shape) return CLI_OK;
    if (*rank != v->rank) {
      fprintf(stderr, "onyx: %s: --shape %s: input '%s' has rank %" PRIu32 ", not %" PRIu32 "\n",
              cli_esc(model), cli_esc(whole->spec), cli_esc(v->name), v->rank, *rank);
      return CLI_USAGE;
    }
    for (uint32_t d = 0; d < v->rank; d++) {
      if (v->dims[d] >= 0 && v->dims[d] != dims[d]) {
        fprintf(stderr,
                "onyx: %s: --shape %s: dimension %" PRIu32 " of input '%s' is %" PRId64
                " in the model\n",
                cli_esc(model), cli_esc(whole->spec), d, cli_esc(v->name), v->dims[d]);
        return CLI_USAGE;
      }
    }
    return CLI_OK;
  }
  const char *name = cli_esc(v->name);
  if (!v->has_shape) {
    fprintf(stderr,
            "onyx: %s: input '%s' declares no shape: give one with --shape %s=DIMS (such as "
            "2x3)\n",
            cli_esc(model), name, name);
    return CLI_USAGE;
  }
  int rc = CLI_OK;
  *rank = v->rank;
  for (uint32_t d = 0; d < v->rank; d++) {
    dims[d] = v->dims[d];
    if (v->dims[d] >= 0) continue;
    const char *dim_name = v->dim_names[d] && v->dim_names[d][0] ? v->dim_names[d] : NULL;
    shape_arg *one = dim_name ? find_shape(args, n_args, dim_name) : NULL;
    if (one) {
      one->used = 1;
      uint32_t r;
      int64_t size[ONYX_MAX_RANK];
      if (!parse_dims(one->spec, one->dims, &r, size)) return CLI_USAGE;
      if (r != 1) {
        cli_usage_error("bench", "--shape %s: the size of dimension '%s' is one number", one->spec,
                        dim_name);
        return CLI_USAGE;
      }
      dims[d] = size[0];
    } else if (dim_name) {
      fprintf(stderr,
              "onyx: %s: input '%s': dimension %" PRIu32
              " is the symbolic '%s': give its size "
              "with --shape %s=SIZE (or the input's shape with --shape %s=DIMS)\n",
              cli_esc(model), name, d, cli_esc(dim_name), cli_esc(dim_name), name);
      rc = CLI_USAGE;
    } else {
      fprintf(stderr,
              "onyx: %s: input '%s': dimension %" PRIu32
              " has no fixed size: give the input's "
              "shape with --shape %s=DIMS\n",
              cli_esc(model), name, d, name);
      rc = CLI_USAGE;
    }
  }
  return rc;
}

/* ---- Statistics --------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* The nearest-rank p-quantile (0 < p <= 1) of n sorted values. */
static double quantile(const double *sorted, size_t n, double p) {
  size_t rank = (size_t)ceil(p * (double)n);
  if (rank < 1) rank = 1;
  if (rank > n) rank = n;
  return sorted[rank - 1];
}

typedef struct timings {
  double *t;
  size_t n, cap;
} timings;

static int timings_push(timings *tm, double v) {
  if (tm->n == tm->cap) {
    size_t cap = tm->cap ? tm->cap * 2 : 1024;
    double *t = realloc(tm->t, cap * sizeof *t);
    if (!t) return 0;
    tm->t = t;
    tm->cap = cap;
  }
  tm->t[tm->n++] = v;
  return 1;
}

/* ---- Per-node timing ---------------------------------------------------- */

/* What is known of a value: its type and shape. */
typedef struct value_shape {
  const char *name;
  onyx_dtype dtype;
  uint32_t rank;
  int64_t dims[ONYX_MAX_RANK];
} value_shape;

typedef struct value_table {
  value_shape *v;
  size_t n, cap;
} value_table;

static value_shape *vt_find(value_table *t, const char *name) {
  if (!name || !name[0]) return NULL;
  for (size_t i = 0; i < t->n; i++)
    if (strcmp(t->v[i].name, name) == 0) return &t->v[i];
  return NULL;
}

static int vt_add(value_table *t, const char *name, onyx_dtype dtype, uint32_t rank,
                  const int64_t *dims) {
  if (!name || !name[0] || vt_find(t, name)) return 1;
  if (t->n == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 16;
    value_shape *v = realloc(t->v, cap * sizeof *v);
    if (!v) return 0;
    t->v = v;
    t->cap = cap;
  }
  value_shape *s = &t->v[t->n++];
  memset(s, 0, sizeof *s);
  s->name = name;
  s->dtype = dtype;
  s->rank = rank;
  memcpy(s->dims, dims, rank * sizeof *dims);
  return 1;
}

/* The model's ai.onnx opset, or 0. */
static int64_t ai_onnx_opset(const onyx_model *model) {
  size_t n = onyx_model_opset_count(model);
  for (size_t i = 0; i < n; i++) {
    const char *domain = NULL;
    int64_t version = 0;
    if (onyx_model_opset(model, i, &domain, &version, NULL) == ONYX_OK && domain &&
        (domain[0] == '\0' || strcmp(domain, "ai.onnx") == 0))
      return version;
  }
  return 0;
}

typedef struct node_result {
  int timed;
  char note[sizeof(((onyx_error *)0)->message) + 64]; /* why it was not timed */
  onyx_dtype dtype;
  uint32_t rank;
  int64_t dims[ONYX_MAX_RANK];
  double median, p90, p99;
} node_result;

/* Times one node's kernel alone, runs times after warmup untimed calls. */
static int time_node(const onyx_node_info *node, const value_shape *in, int64_t opset,
                     long long warmup, size_t runs, rng *r, node_result *res) {
  size_t count;
  int ok;
  size_t bytes = shape_bytes(in->dtype, in->rank, in->dims, &count, &ok);
  if (!ok) {
    snprintf(res->note, sizeof res->note, "not timed: its input is too large");
    return CLI_OK;
  }
  int is_clip = strcmp(node->op_type, "Clip") == 0;
  int ok_x, ok_y;
  void *x = alloc_buffer(bytes, &ok_x);
  void *y = alloc_buffer(bytes, &ok_y);
  double *t = malloc(runs * sizeof *t);
  if (!ok_x || !ok_y || !t) {
    cli_sys_aligned_free(x);
    cli_sys_aligned_free(y);
    free(t);
    cli_error_oom();
    return CLI_ERROR;
  }
  fill_random(in->dtype, x, count, r);
  /* Clip's bounds: where the node has a bound input, a value in the middle
   * of the random data's range; before opset 11 the bounds are attributes
   * the API does not show, so both are set. */
  unsigned char lo[8], hi[8];
  int has_lo = 1, has_hi = 1;
  if (is_clip && opset >= 11) {
    has_lo = node->input_count > 1 && node->inputs[1] && node->inputs[1][0];
    has_hi = node->input_count > 2 && node->inputs[2] && node->inputs[2][0];
  }
  int is_unsigned = in->dtype == ONYX_DTYPE_UINT8 || in->dtype == ONYX_DTYPE_UINT16 ||
                    in->dtype == ONYX_DTYPE_UINT32 || in->dtype == ONYX_DTYPE_UINT64;
  store_value(in->dtype, lo, is_unsigned ? 50 : -50);
  store_value(in->dtype, hi, is_unsigned ? 200 : 50);

  onyx_error err;
  onyx_status st = ONYX_OK;
  for (long long i = 0; i < warmup + (long long)runs && st == ONYX_OK; i++) {
    cli_reset_error(&err);
    double t0 = now_seconds();
    if (strcmp(node->op_type, "Ceil") == 0)
      st = onyx_ceil(in->dtype, count, x, y, &err);
    else if (strcmp(node->op_type, "Floor") == 0)
      st = onyx_floor(in->dtype, count, x, y, &err);
    else if (strcmp(node->op_type, "Sign") == 0)
      st = onyx_sign(in->dtype, count, x, y, &err);
    else
      st = onyx_clip(in->dtype, count, x, y, has_lo ? lo : NULL, has_hi ? hi : NULL, &err);
    double t1 = now_seconds();
    if (i >= warmup) t[i - warmup] = t1 - t0;
  }
  if (st != ONYX_OK) {
    snprintf(res->note, sizeof res->note, "not timed: %s (%s)", err.message, onyx_status_name(st));
  } else {
    qsort(t, runs, sizeof *t, cmp_double);
    res->timed = 1;
    res->dtype = in->dtype;
    res->rank = in->rank;
    memcpy(res->dims, in->dims, sizeof res->dims);
    res->median = quantile(t, runs, 0.5);
    res->p90 = quantile(t, runs, 0.9);
    res->p99 = quantile(t, runs, 0.99);
  }
  cli_sys_aligned_free(x);
  cli_sys_aligned_free(y);
  free(t);
  return CLI_OK;
}

/* Reads the model's nodes into a new array (*nodes). */
static int read_nodes(const onyx_model *model, onyx_node_info **nodes, size_t *n) {
  *n = onyx_model_node_count(model);
  *nodes = calloc(*n ? *n : 1, sizeof **nodes);
  if (!*nodes) {
    cli_error_oom();
    return CLI_ERROR;
  }
  for (size_t i = 0; i < *n; i++) {
    if (onyx_model_node(model, i, &(*nodes)[i], NULL) != ONYX_OK) {
      fprintf(stderr, "onyx: cannot read node %zu\n", i);
      return CLI_ERROR;
    }
  }
  return CLI_OK;
}

/* The type and shape of every value that can be known: the session's
 * inputs and outputs as run, carried through the element-wise nodes in
 * both directions until nothing changes. */
static int known_shapes(const onyx_session *session, const onyx_tensor *inputs,
                        const onyx_tensor *outputs, const onyx_node_info *nodes, size_t n_nodes,
                        value_table *vt) {
  size_t n_in = onyx_session_input_count(session), n_out = onyx_session_output_count(session);
  for (size_t i = 0; i < n_in + n_out; i++) {
    onyx_value_info v;
    onyx_status st = i < n_in ? onyx_session_input_info(session, i, &v, NULL)
                              : onyx_session_output_info(session, i - n_in, &v, NULL);
    const onyx_tensor *t = i < n_in ? &inputs[i] : &outputs[i - n_in];
    if (st != ONYX_OK || !vt_add(vt, v.name, t->dtype, t->rank, t->dims)) goto oom;
  }
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = 0; i < n_nodes; i++) {
      const onyx_node_info *nd = &nodes[i];
      if (strcmp(nd->op_type, "Constant") == 0 || nd->input_count < 1 || nd->output_count < 1)
        continue;
      value_shape *a = vt_find(vt, nd->inputs[0]), *b = vt_find(vt, nd->outputs[0]);
      if ((a == NULL) == (b == NULL)) continue;
      value_shape copy = a ? *a : *b; /* vt_add may move the table */
      if (!vt_add(vt, a ? nd->outputs[0] : nd->inputs[0], copy.dtype, copy.rank, copy.dims))
        goto oom;
      changed = 1;
    }
  }
  return CLI_OK;
oom:
  cli_error_oom();
  return CLI_ERROR;
}

/* Times node nd alone into *res, or notes why it is not timed. */
static int time_one(const onyx_node_info *nd, value_table *vt, int64_t opset, long long warmup,
                    size_t runs, rng *r, node_result *res) {
  if (strcmp(nd->op_type, "Constant") == 0) {
    snprintf(res->note, sizeof res->note, "folded when the session is created, not run");
    return CLI_OK;
  }
  if (strcmp(nd->op_type, "Ceil") != 0 && strcmp(nd->op_type, "Floor") != 0 &&
      strcmp(nd->op_type, "Sign") != 0 && strcmp(nd->op_type, "Clip") != 0) {
    snprintf(res->note, sizeof res->note, "not timed: no kernel for this op");
    return CLI_OK;
  }
  const value_shape *in = nd->input_count ? vt_find(vt, nd->inputs[0]) : NULL;
  if (!in) {
    snprintf(res->note, sizeof res->note,
             "not timed: the type and shape of its input are not known (an initializer?)");
    return CLI_OK;
  }
  return time_node(nd, in, opset, warmup, runs, r, res);
}

static void print_per_node(const onyx_node_info *nodes, const node_result *res, size_t n_nodes,
                           long long warmup, size_t runs) {
  double total = 0;
  for (size_t i = 0; i < n_nodes; i++)
    if (res[i].timed) total += res[i].median;
  printf(
      "per-node: each node timed alone, %zu runs after %lld warm-up runs, through the\n"
      "  kernel API on one thread, on random buffers of its input's shape and type\n"
      "  (a session run may fuse nodes and use threads: these times are not a breakdown\n"
      "  of the latency above)\n",
      runs, warmup);
  for (size_t i = 0; i < n_nodes; i++) {
    const onyx_node_info *nd = &nodes[i];
    printf("  node %zu %s", i, cli_esc(nd->op_type));
    if (nd->name && nd->name[0]) printf(" '%s'", cli_esc(nd->name));
    if (!res[i].timed) {
      printf(": %s\n", cli_esc(res[i].note));
      continue;
    }
    printf(" %s ", onyx_dtype_name(res[i].dtype));
    print_dims(stdout, res[i].rank, res[i].dims);
    printf(": median %.3f us, p90 %.3f us, p99 %.3f us, %.1f%% of the node total\n",
           res[i].median * 1e6, res[i].p90 * 1e6, res[i].p99 * 1e6,
           total > 0 ? 100.0 * res[i].median / total : 0.0);
  }
}

static int per_node(const onyx_model *model, const onyx_session *session, const onyx_tensor *inputs,
                    const onyx_tensor *outputs, long long warmup, size_t runs, rng *r) {
  value_table vt = {0};
  onyx_node_info *nodes = NULL;
  node_result *res = NULL;
  size_t n_nodes;
  int rc = read_nodes(model, &nodes, &n_nodes);
  if (rc == CLI_OK) rc = known_shapes(session, inputs, outputs, nodes, n_nodes, &vt);
  if (rc == CLI_OK && !(res = calloc(n_nodes ? n_nodes : 1, sizeof *res))) {
    cli_error_oom();
    rc = CLI_ERROR;
  }
  int64_t opset = ai_onnx_opset(model);
  for (size_t i = 0; i < n_nodes && rc == CLI_OK; i++)
    rc = time_one(&nodes[i], &vt, opset, warmup, runs, r, &res[i]);
  if (rc == CLI_OK) print_per_node(nodes, res, n_nodes, warmup, runs);
  free(vt.v);
  free(nodes);
  free(res);
  return rc;
}

/* ---- The command -------------------------------------------------------- */

/* --isa also caps the per-node kernels, which the kernel API runs at the
 * level onyx_isa_detected() gives; the environment variable ONYX_ISA lowers
 * that level for the whole process. It is set only to lower the level, and
 * before the first call into onyx, which reads it once. */
static void cap_process_isa(onyx_isa cap) {
  if (cap == ONYX_ISA_BEST) return;
  const char *env = getenv("ONYX_ISA");
  for (int i = 0; env && i <= (int)cap; i++)
    if (strcmp(env, onyx_isa_name((onyx_isa)i)) == 0) return; /* already as low */
  (void)cli_sys_setenv("ONYX_ISA", onyx_isa_name(cap));
}

/* onyx bench's state: the model, its random inputs, the outputs the
 * first run allocates and reuses, and the timings. */
typedef struct bench_state {
  cli_model m;
  onyx_tensor *inputs, *outputs;
  shape_arg *shapes;
  size_t n_shapes;
  timings tm;
  size_t bytes_per_run; /* inputs and outputs */
  double wall;          /* seconds the timed runs took */
} bench_state;

static void bench_free(bench_state *b) {
  for (size_t i = 0; b->inputs && i < b->m.n_in; i++) cli_sys_aligned_free(b->inputs[i].data);
  for (size_t i = 0; b->outputs && i < b->m.n_out; i++) onyx_free(b->outputs[i].data);
  free(b->tm.t);
  free(b->inputs);
  free(b->outputs);
  free(b->shapes);
  cli_model_close(&b->m);
}

/* Splits each --shape NAME=DIMS (at its last '='); a name given twice is
 * a usage error. */
static int parse_shape_args(bench_state *b, const cli_args *a) {
  b->n_shapes = a->n_shapes;
  b->shapes = calloc(a->n_shapes ? a->n_shapes : 1, sizeof *b->shapes);
  if (!b->shapes) {
    cli_error_oom();
    return CLI_ERROR;
  }
  for (size_t k = 0; k < a->n_shapes; k++) {
    shape_arg *s = &b->shapes[k];
    const char *eq = strrchr(a->shapes[k], '=');
    s->spec = a->shapes[k];
    s->name_len = (size_t)(eq - a->shapes[k]);
    s->dims = eq + 1;
    for (size_t j = 0; j < k; j++) {
      if (b->shapes[j].name_len == s->name_len &&
          memcmp(b->shapes[j].spec, s->spec, s->name_len) == 0) {
        cli_usage_error("bench", "--shape: '%.*s' is given more than once", (int)s->name_len,
                        s->spec);
        return CLI_USAGE;
      }
    }
  }
  return CLI_OK;
}

/* Whether --shape s names a symbolic dimension of an input (one whose
 * shape was given whole, so that resolve_shape did not mark it used). */
static int names_symbolic_dim(const cli_model *m, const shape_arg *s) {
  for (size_t i = 0; i < m->n_in; i++)
    for (uint32_t d = 0; d < m->in_info[i].rank; d++)
      if (m->in_info[i].dims[d] < 0 && name_is(s, m->in_info[i].dim_names[d])) return 1;
  return 0;
}

/* Every input's type and shape, from the model and --shape; reports every
 * problem (CLI_USAGE), including a --shape that names nothing. */
static int resolve_shapes(bench_state *b) {
  int rc = CLI_OK;
  for (size_t i = 0; i < b->m.n_in; i++) {
    b->inputs[i].dtype = b->m.in_info[i].dtype;
    int r = resolve_shape(b->m.path, &b->m.in_info[i], b->shapes, b->n_shapes, &b->inputs[i].rank,
                          b->inputs[i].dims);
    if (r != CLI_OK) rc = r;
  }
  for (size_t k = 0; k < b->n_shapes; k++) {
    const shape_arg *s = &b->shapes[k];
    if (s->used || names_symbolic_dim(&b->m, s)) continue;
    fprintf(stderr,
            "onyx: %s: --shape %s: the model has no input or symbolic dimension "
            "named '%s'\n",
            cli_esc(b->m.path), cli_esc(s->spec), cli_esc_n(s->spec, s->name_len));
    rc = CLI_USAGE;
  }
  return rc;
}

/* Allocates the inputs and fills them once with random values. */
static int make_inputs(bench_state *b, rng *r) {
  for (size_t i = 0; i < b->m.n_in; i++) {
    onyx_tensor *t = &b->inputs[i];
    size_t count;
    int ok;
    size_t bytes = shape_bytes(t->dtype, t->rank, t->dims, &count, &ok);
    if (!ok) {
      fprintf(stderr, "onyx: %s: input '%s' is too large\n", cli_esc(b->m.path),
              cli_esc(b->m.in_info[i].name));
      return CLI_ERROR;
    }
    t->data = alloc_buffer(bytes, &ok);
    if (!ok) {
      cli_error_oom();
      return CLI_ERROR;
    }
    t->size = bytes;
    fill_random(t->dtype, t->data, count, r);
    b->bytes_per_run += bytes;
  }
  return CLI_OK;
}

/* One session run; *t receives its time in seconds. */
static int run_once(bench_state *b, double *t) {
  onyx_error err;
  cli_reset_error(&err);
  double t0 = now_seconds();
  onyx_status st =
      onyx_session_run(b->m.session, b->inputs, b->m.n_in, b->outputs, b->m.n_out, &err);
  *t = now_seconds() - t0;
  if (st == ONYX_OK) return CLI_OK;
  cli_report(b->m.path, st, &err);
  return CLI_ERROR;
}

/* Times runs until max_runs (if > 0) or duration seconds (if > 0), with
 * a progress line on stderr once they take longer than PROGRESS_AFTER. */
static int time_runs(bench_state *b, long long max_runs, double duration, int show_progress) {
  double start = now_seconds(), next_progress = start + PROGRESS_AFTER, end = start;
  int progress_shown = 0;
  for (;;) {
    double t;
    if (run_once(b, &t) != CLI_OK) return CLI_ERROR;
    end = now_seconds();
    if (!timings_push(&b->tm, t)) {
      cli_error_oom();
      return CLI_ERROR;
    }
    if (max_runs > 0 && (long long)b->tm.n >= max_runs) break;
    if (duration > 0 && end - start >= duration) break;
    if (show_progress && end >= next_progress) {
      fprintf(stderr, "\ronyx bench: %zu runs, %.1f s", b->tm.n, end - start);
      fflush(stderr);
      progress_shown = 1;
      next_progress = end + PROGRESS_EVERY;
    }
  }
  if (progress_shown)
    fprintf(stderr, "\ronyx bench: %zu runs, %.1f s, done\n", b->tm.n, end - start);
  b->wall = end - start;
  return CLI_OK;
}

/* Prints " NAME TYPE [DIMS]" for each of n values, comma-separated. */
static void print_values_line(size_t n, const onyx_value_info *infos, const onyx_tensor *t) {
  for (size_t i = 0; i < n; i++) {
    printf("%s %s %s ", i ? "," : "", cli_esc(infos[i].name), onyx_dtype_name(t[i].dtype));
    print_dims(stdout, t[i].rank, t[i].dims);
  }
}

/* The timed runs' latencies (seconds, sorted) and rate. */
typedef struct bench_summary {
  double median, p90, p99, min, mean, max, per_s;
} bench_summary;

static bench_summary summarize(const bench_state *b) {
  const double *t = b->tm.t;
  size_t n = b->tm.n;
  double sum = 0;
  for (size_t i = 0; i < n; i++) sum += t[i];
  bench_summary s = {quantile(t, n, 0.5),
                     quantile(t, n, 0.9),
                     quantile(t, n, 0.99),
                     t[0],
                     sum / (double)n,
                     t[n - 1],
                     b->wall > 0 ? (double)n / b->wall : 0};
  return s;
}

static const char *isa_cap_name(const cli_args *a) {
  return a->opts.isa_cap == ONYX_ISA_BEST ? "best" : onyx_isa_name(a->opts.isa_cap);
}

static void print_report(const bench_state *b, const cli_args *a, long long warmup) {
  bench_summary s = summarize(b);
  printf("model: %s\n", cli_esc(b->m.path));
  printf("inputs:");
  print_values_line(b->m.n_in, b->m.in_info, b->inputs);
  printf("%s\noutputs:", b->m.n_in ? "" : " (none)");
  print_values_line(b->m.n_out, b->m.out_info, b->outputs);
  printf("\nsession: threads %" PRIu32 "%s, isa cap %s (detected %s)\n", a->opts.threads,
         a->opts.threads ? "" : " (onyx's default)", isa_cap_name(a),
         onyx_isa_name(onyx_isa_detected()));
  printf("runs: %zu timed in %.6f s, after %lld warm-up runs\n", b->tm.n, b->wall, warmup);
  printf(
      "latency: median %.3f us, p90 %.3f us, p99 %.3f us (min %.3f us, mean %.3f us, "
      "max %.3f us)\n",
      s.median * 1e6, s.p90 * 1e6, s.p99 * 1e6, s.min * 1e6, s.mean * 1e6, s.max * 1e6);
  printf("throughput: %.1f runs/s, %.3f GB/s (%zu bytes of inputs and outputs per run)\n", s.per_s,
         s.per_s * (double)b->bytes_per_run / 1e9, b->bytes_per_run);
}

/* " \"inputs\": [{\"name\": N, \"type\": T, \"shape\": [..]}, ...]" as run. */
static void json_values(const char *title, size_t n, const onyx_value_info *infos,
                        const onyx_tensor *t) {
  printf(", \"%s\": [", title);
  for (size_t i = 0; i < n; i++) {
    fputs(i ? ", {\"name\": " : "{\"name\": ", stdout);
    cli_put_json(stdout, infos[i].name);
    printf(", \"type\": \"%s\", \"shape\": ", onyx_dtype_name(t[i].dtype));
    cli_put_json_dims(stdout, t[i].rank, t[i].dims);
    putchar('}');
  }
  putchar(']');
}

/* The report of print_report as one JSON object (fields in docs/cli.md). */
static void print_report_json(const bench_state *b, const cli_args *a, long long warmup) {
  bench_summary s = summarize(b);
  fputs("{\"model\": ", stdout);
  cli_put_json(stdout, b->m.path);
  json_values("inputs", b->m.n_in, b->m.in_info, b->inputs);
  json_values("outputs", b->m.n_out, b->m.out_info, b->outputs);
  printf(", \"session\": {\"threads\": %" PRIu32 ", \"isa_cap\": \"%s\", \"isa\": \"%s\"}",
         a->opts.threads, isa_cap_name(a), onyx_isa_name(onyx_isa_detected()));
  printf(", \"runs\": %zu, \"seconds\": %.6f, \"warmup\": %lld", b->tm.n, b->wall, warmup);
  printf(
      ", \"latency_us\": {\"median\": %.3f, \"p90\": %.3f, \"p99\": %.3f, \"min\": %.3f, "
      "\"mean\": %.3f, \"max\": %.3f}",
      s.median * 1e6, s.p90 * 1e6, s.p99 * 1e6, s.min * 1e6, s.mean * 1e6, s.max * 1e6);
  printf(", \"runs_per_second\": %.1f, \"gb_per_second\": %.3f, \"bytes_per_run\": %zu}\n", s.per_s,
         s.per_s * (double)b->bytes_per_run / 1e9, b->bytes_per_run);
}

/* Inputs, one untimed run that lets onyx allocate the outputs (the others
 * reuse them), the warm-up runs, then the timed ones, sorted. */
static int measure(bench_state *b, const cli_args *a, long long warmup, rng *r) {
  long long max_runs = a->runs; /* -1: no limit */
  double duration = a->duration > 0 ? a->duration : (a->runs > 0 ? -1 : DEFAULT_DURATION);
  double t;
  int rc = make_inputs(b, r);
  if (rc == CLI_OK) rc = run_once(b, &t);
  if (rc != CLI_OK) return rc;
  for (size_t i = 0; i < b->m.n_out; i++) b->bytes_per_run += b->outputs[i].size;
  for (long long i = 0; i < warmup && rc == CLI_OK; i++) rc = run_once(b, &t);
  if (rc == CLI_OK)
    rc = time_runs(b, max_runs, duration, a->progress || cli_sys_stderr_is_terminal());
  if (rc == CLI_OK) qsort(b->tm.t, b->tm.n, sizeof *b->tm.t, cmp_double);
  return rc;
}

int cli_bench(cli_args *a) {
  int rc = cli_one_model(a);
  if (rc != CLI_OK) return rc;
  if (a->json && a->per_node) {
    cli_usage_error(a->command, "--json does not describe --per-node timings; give one of them");
    return CLI_USAGE;
  }
  long long warmup = a->warmup >= 0 ? a->warmup : DEFAULT_WARMUP;
  cap_process_isa(a->opts.isa_cap);
  bench_state b;
  memset(&b, 0, sizeof b);
  rc = cli_model_open(a->positional[0], &a->opts, &b.m);
  if (rc != CLI_OK) return rc;
  b.inputs = calloc(b.m.n_in ? b.m.n_in : 1, sizeof *b.inputs);
  b.outputs = calloc(b.m.n_out ? b.m.n_out : 1, sizeof *b.outputs);
  if (!b.inputs || !b.outputs) {
    cli_error_oom();
    rc = CLI_ERROR;
  }
  if (rc == CLI_OK) rc = parse_shape_args(&b, a);
  if (rc == CLI_OK) rc = resolve_shapes(&b);
  rng r = {0x9E3779B97F4A7C15ULL};
  if (rc == CLI_OK) rc = measure(&b, a, warmup, &r);
  if (rc == CLI_OK) (a->json ? print_report_json : print_report)(&b, a, warmup);
  if (rc == CLI_OK && a->per_node)
    rc = per_node(b.m.model, b.m.session, b.inputs, b.outputs, warmup, b.tm.n, &r);
  bench_free(&b);
  return rc;
}
