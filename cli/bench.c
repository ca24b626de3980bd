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
 * --per-node then runs the session as many times again with a profile
 * (onyx_run_options.profile) and reports what the session really ran, node
 * by node: its domain, op, output type and shape, whether onyx or a
 * registered operator ran it, and the times of the pass that ran it (nodes
 * fused into one pass share it).
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

/* One node's times over the profiled runs. */
typedef struct node_times {
  onyx_node_time first; /* as the first profiled run saw it */
  double *t;            /* seconds, per run */
  double median, p90, p99;
} node_times;

/* Prints the nodes that the session ran and their times. */
static void print_per_node(const onyx_model *model, const node_times *nt, size_t n,
                           long long warmup, size_t runs) {
  double total = 0; /* each pass counted once */
  for (size_t i = 0; i < n; i++)
    if (i == 0 || nt[i].first.pass != nt[i - 1].first.pass) total += nt[i].median;
  printf(
      "per-node: %zu profiled session runs after %lld warm-up runs, as the session ran\n"
      "  them (onyx_run_options.profile); nodes fused into one pass share its time\n",
      runs, warmup);
  for (size_t i = 0; i < n; i++) {
    const onyx_node_time *t = &nt[i].first;
    printf("  node %zu %s%s%s", t->node, cli_esc(t->domain), t->domain[0] ? ":" : "",
           cli_esc(t->op_type));
    if (t->name[0]) printf(" '%s'", cli_esc(t->name));
    printf(" %s ", onyx_dtype_name(t->dtype));
    print_dims(stdout, t->rank, t->dims);
    printf(" (%s", t->registered ? "registered op" : "onyx");
    if (t->pass_nodes > 1)
      printf(", pass %" PRIu32 " of %" PRIu32 " nodes", t->pass, t->pass_nodes);
    printf("): median %.3f us, p90 %.3f us, p99 %.3f us, %.1f%% of the passes' total\n",
           nt[i].median * 1e6, nt[i].p90 * 1e6, nt[i].p99 * 1e6,
           total > 0 ? 100.0 * nt[i].median / total : 0.0);
  }
  size_t n_model = onyx_model_node_count(model);
  if (n < n_model)
    printf("  %zu node%s folded when the session was created, not run\n", n_model - n,
           n_model - n == 1 ? "" : "s");
}

/* Runs the session `runs` more times with a profile and reports each
 * node's times from it. */
static int per_node(const cli_model *m, const onyx_tensor *inputs, onyx_tensor *outputs,
                    long long warmup, size_t runs) {
  onyx_profile p;
  if (!cli_profile_alloc(m->model, &p)) return CLI_ERROR;
  node_times *nt = NULL;
  size_t n = 0;
  int rc = CLI_OK;
  onyx_run_options ro;
  onyx_run_options_init(&ro);
  ro.profile = &p;
  for (size_t r = 0; r < runs && rc == CLI_OK; r++) {
    onyx_error err;
    cli_reset_error(&err);
    onyx_status st =
        onyx_session_run_with(m->session, inputs, m->n_in, outputs, m->n_out, &ro, &err);
    if (st != ONYX_OK) {
      cli_report(m->path, st, &err);
      rc = CLI_ERROR;
      break;
    }
    if (r == 0) {
      n = p.count < p.capacity ? p.count : p.capacity;
      nt = calloc(n ? n : 1, sizeof *nt);
      for (size_t i = 0; nt && i < n; i++) {
        nt[i].first = p.nodes[i];
        if (!(nt[i].t = malloc(runs * sizeof *nt[i].t))) rc = CLI_ERROR;
      }
      if (!nt || rc != CLI_OK) {
        cli_error_oom();
        rc = CLI_ERROR;
        break;
      }
    }
    for (size_t i = 0; i < n; i++) nt[i].t[r] = (double)p.nodes[i].duration_ns * 1e-9;
  }
  for (size_t i = 0; rc == CLI_OK && i < n; i++) {
    qsort(nt[i].t, runs, sizeof *nt[i].t, cmp_double);
    nt[i].median = quantile(nt[i].t, runs, 0.5);
    nt[i].p90 = quantile(nt[i].t, runs, 0.9);
    nt[i].p99 = quantile(nt[i].t, runs, 0.99);
  }
  if (rc == CLI_OK) print_per_node(m->model, nt, n, warmup, runs);
  for (size_t i = 0; nt && i < n; i++) free(nt[i].t);
  free(nt);
  free(p.nodes);
  return rc;
}

/* ---- The command -------------------------------------------------------- */

/* Where level stands in ONYX_ISA_MAP, and its architecture, or -1. */
static int isa_index(const char *name, const char **arch) {
  static const struct {
    const char *name, *arch;
  } levels[] = {
#define X(name, value, lname, arch, desc) {lname, #arch},
      ONYX_ISA_MAP(X)
#undef X
  };
  for (int i = 0; name != NULL && i < (int)(sizeof levels / sizeof levels[0]); i++) {
    if (strcmp(name, levels[i].name) == 0) {
      *arch = levels[i].arch;
      return i;
    }
  }
  return -1;
}

/* --isa also lowers the level of the whole process (the environment
 * variable ONYX_ISA), for the kernel API's calls. It is set only to lower
 * the level, and before the first call into onyx, which reads it once.
 * Levels are ordered only within one architecture (ONYX_ISA_MAP lists each
 * one's lowest first); two of different architectures leave scalar. */
static void cap_process_isa(onyx_isa cap) {
  if (cap == ONYX_ISA_BEST) return;
  const char *cap_arch = "", *env_arch = "";
  const int c = isa_index(onyx_isa_name(cap), &cap_arch);
  const int e = isa_index(getenv("ONYX_ISA"), &env_arch);
  if (e < 0 || strcmp(cap_arch, "ANY") == 0) {
    (void)cli_sys_setenv("ONYX_ISA", onyx_isa_name(cap));
  } else if (strcmp(env_arch, "ANY") == 0) {
    return; /* already scalar */
  } else if (strcmp(env_arch, cap_arch) != 0) {
    (void)cli_sys_setenv("ONYX_ISA", onyx_isa_name(ONYX_ISA_SCALAR));
  } else if (c < e) {
    (void)cli_sys_setenv("ONYX_ISA", onyx_isa_name(cap));
  }
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
  if (rc == CLI_OK && a->per_node) rc = per_node(&b.m, b.inputs, b.outputs, warmup, b.tm.n);
  bench_free(&b);
  return rc;
}
