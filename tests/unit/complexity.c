/* SPDX-License-Identifier: MIT */
/*
 * Bounded cost: loading a model, creating its session and running it once
 * must cost work linear (or n log n) in the model's size, for every
 * structure a model can hold many of.
 *
 * Work is counted, not timed: the models are built and run in a child
 * process under `valgrind --tool=callgrind`, whose count of executed
 * instructions is the same from run to run and does not depend on what
 * else the machine is doing. For each kind of model the child runs at size
 * 0 (the model without the repeated structure), n and 10 n, and dumps the
 * count of each; the work the structure adds, I(10 n) - I(0) against
 * I(n) - I(0), must grow by at most 20 times. Linear work grows 10 times,
 * n log n about 13, a quadratic path 100.
 *
 *   complexity         runs the child, prints the counts, fails on a ratio over 20
 *   complexity --all   the child: every kind at every size
 *
 * Without valgrind, or in a sanitizer build, it prints SKIP and exits 77.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>
#include <valgrind/callgrind.h>

#include "model_builder.h"
#include "onyx.h"

#define MAX_RATIO 20.0

/* ---- Models -------------------------------------------------------------- */

/* A ValueInfoProto (graph field `field`) of a float tensor whose dims are
 * the symbolic names prefix_0 .. prefix_{rank-1}, or fixed sizes of 1 when
 * prefix is NULL. */
static void value_info(onyx__pbw *g, uint32_t field, const char *name, int rank,
                       const char *prefix) {
  onyx__pbw shape = {0}, tt = {0}, type = {0}, vi = {0};
  for (int i = 0; i < rank; i++) {
    onyx__pbw d = {0};
    char dim[64];
    if (prefix != NULL) {
      snprintf(dim, sizeof dim, "%s_%d", prefix, i);
      mb_str(&d, 2, dim);
    } else {
      onyx__pbw_uint(&d, 1, 1);
    }
    mb_msg(&shape, 1, &d);
  }
  onyx__pbw_uint(&tt, 1, ONYX_DTYPE_FLOAT);
  mb_msg(&tt, 2, &shape);
  mb_msg(&type, 1, &tt);
  mb_str(&vi, 1, name);
  mb_msg(&vi, 2, &type);
  mb_msg(g, field, &vi);
}

/* What every kind of graph starts from: input x, float[1]. */
static void input_x(onyx__pbw *g) { value_info(g, 11, "x", 1, NULL); }

/* n inputs, each with 16 symbolic dimensions of names no other shares. */
static void build_dims(onyx__pbw *g, onyx__pbw *m, size_t n) {
  (void)m;
  mb_node(g, "Ceil", "c", "x", NULL, NULL, "y", NULL);
  value_info(g, 12, "y", 1, NULL);
  for (size_t i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "in%zu", i);
    value_info(g, 11, name, ONYX_MAX_RANK, name);
  }
}

/*
 * x -> n nodes of op -> Floor -> output y. Clip nodes take lo as their
 * lower bound, or, when lo is NULL, each its own Constant node c<i>.
 */
static void chain(onyx__pbw *g, size_t n, const char *op, const char *lo) {
  char in[32] = "x", out[32] = "x", c[32];
  const float minus_one = -1.0f;
  for (size_t i = 0; i < n; i++) {
    bool clip = strcmp(op, "Clip") == 0;
    if (clip && lo == NULL) {
      snprintf(c, sizeof c, "c%zu", i);
      onyx__pbw t = {0};
      mb_tensor(&t, c, ONYX_DTYPE_FLOAT, 0, NULL, &minus_one, sizeof minus_one);
      mb_node(g, "Constant", c, NULL, NULL, NULL, c, &t);
    }
    snprintf(out, sizeof out, "v%zu", i);
    mb_node(g, op, out, in, clip ? (lo != NULL ? lo : c) : NULL, NULL, out, NULL);
    memcpy(in, out, sizeof in);
  }
  mb_node(g, "Floor", "y", in, NULL, NULL, "y", NULL);
  value_info(g, 12, "y", 1, NULL);
}

/* A chain of n Ceil nodes: one fused group. */
static void build_chain(onyx__pbw *g, onyx__pbw *m, size_t n) {
  (void)m;
  chain(g, n, "Ceil", NULL);
}

/* n Ceil nodes reading x, each a graph output. */
static void build_outputs(onyx__pbw *g, onyx__pbw *m, size_t n) {
  (void)m;
  mb_node(g, "Floor", "y", "x", NULL, NULL, "y", NULL);
  value_info(g, 12, "y", 1, NULL);
  for (size_t i = 0; i < n; i++) {
    char out[32];
    snprintf(out, sizeof out, "o%zu", i);
    mb_node(g, "Ceil", out, "x", NULL, NULL, out, NULL);
    value_info(g, 12, out, 1, NULL);
  }
}

/* n initializers, each also listed as a graph input (a default). */
static void build_initializers(onyx__pbw *g, onyx__pbw *m, size_t n) {
  (void)m;
  mb_node(g, "Ceil", "y", "x", NULL, NULL, "y", NULL);
  value_info(g, 12, "y", 1, NULL);
  const float one = 1.0f;
  const int64_t dims[1] = {1};
  for (size_t i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "w%zu", i);
    mb_initializer(g, name, ONYX_DTYPE_FLOAT, 1, dims, &one, sizeof one);
    value_info(g, 11, name, 1, NULL);
  }
}

/* A chain of n Clip nodes, each bounded below by its own Constant node. */
static void build_constants(onyx__pbw *g, onyx__pbw *m, size_t n) {
  (void)m;
  chain(g, n, "Clip", NULL);
}

/* A chain of n Clip nodes whose bound a node computes: no fusion, every
 * value is written whole. */
static void build_bounds(onyx__pbw *g, onyx__pbw *m, size_t n) {
  (void)m;
  mb_node(g, "Ceil", "lo", "x", NULL, NULL, "lo", NULL);
  chain(g, n, "Clip", "lo");
}

/* n value_info entries for values that exist. */
static void build_value_infos(onyx__pbw *g, onyx__pbw *m, size_t n) {
  build_outputs(g, m, 0);
  for (size_t i = 0; i < n; i++) value_info(g, 13, i % 2 ? "x" : "y", 1, NULL);
}

/* n imports of other domains besides ai.onnx. */
static void build_opsets(onyx__pbw *g, onyx__pbw *m, size_t n) {
  build_outputs(g, m, 0);
  for (size_t i = 0; i < n; i++) {
    char domain[48];
    snprintf(domain, sizeof domain, "com.example.d%zu", i);
    onyx__pbw os = {0};
    mb_str(&os, 1, domain);
    onyx__pbw_uint(&os, 2, 1);
    mb_msg(m, 8, &os);
  }
}

/* One Ceil-1 node with n attributes: a hostile model the session refuses
 * (unknown attribute), after the loader has read every attribute. */
static void build_attributes(onyx__pbw *g, onyx__pbw *m, size_t n) {
  (void)m;
  onyx__pbw node = {0};
  mb_str(&node, 1, "x");
  mb_str(&node, 2, "y");
  mb_str(&node, 4, "Ceil");
  for (size_t i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "a%zu", i);
    onyx__pbw a = {0};
    mb_str(&a, 1, name);
    onyx__pbw_uint(&a, 3, i);
    onyx__pbw_uint(&a, 20, 2); /* AttributeProto.INT */
    mb_msg(&node, 5, &a);
  }
  mb_msg(g, 1, &node);
  value_info(g, 12, "y", 1, NULL);
}

/* ---- Registered ops ---------------------------------------------------- */

/* com.example:R takes any number of inputs and gives any number of
 * outputs, in place where it can: output k is a copy of input k (of input
 * 0 past the inputs). */
static onyx_status compute_r(onyx_op_context *ctx) {
  size_t n_in = onyx_op_input_count(ctx);
  for (size_t k = 0; k < onyx_op_output_count(ctx); k++) {
    onyx_tensor x, y;
    onyx_op_input(ctx, k < n_in ? k : 0, &x);
    onyx_op_output(ctx, k, &y);
    if (y.size > 0) memmove(y.data, x.data, y.size);
  }
  return ONYX_OK;
}

/* A node of com.example:R with n_in inputs, first_in then prefix_in<i>
 * for i >= 1, and n_out outputs named alike. */
static void r_node(onyx__pbw *g, const char *first_in, const char *prefix_in, size_t n_in,
                   const char *first_out, const char *prefix_out, size_t n_out) {
  onyx__pbw node = {0};
  char name[64];
  for (size_t i = 0; i < n_in; i++) {
    snprintf(name, sizeof name, "%s%zu", prefix_in, i);
    mb_str(&node, 1, i == 0 ? first_in : name);
  }
  for (size_t k = 0; k < n_out; k++) {
    snprintf(name, sizeof name, "%s%zu", prefix_out, k);
    mb_str(&node, 2, k == 0 ? first_out : name);
  }
  mb_str(&node, 4, "R");
  mb_str(&node, 7, "com.example");
  mb_msg(g, 1, &node);
}

static void import(onyx__pbw *m, const char *domain) {
  onyx__pbw os = {0};
  mb_str(&os, 1, domain);
  onyx__pbw_uint(&os, 2, 1);
  mb_msg(m, 8, &os);
}

/* n imports of other domains, then com.example, and a chain of n R nodes
 * x -> v0 -> ... -> y: each node's domain was searched through every
 * import. */
static void build_imports_nodes(onyx__pbw *g, onyx__pbw *m, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char domain[48];
    snprintf(domain, sizeof domain, "com.example.d%zu", i);
    import(m, domain);
  }
  import(m, "com.example");
  char in[48] = "x", out[48];
  for (size_t i = 0; i < n; i++) {
    snprintf(out, sizeof out, i + 1 == n ? "y" : "v%zu", i);
    r_node(g, in, "", 1, out, "", 1);
    memcpy(in, out, sizeof in);
  }
  if (n == 0) r_node(g, "x", "", 1, "y", "", 1);
  value_info(g, 12, "y", 1, NULL);
}

/* x -> R -> y and n more outputs o1.., which one R node reads as its n + 1
 * inputs, in place, giving y2 (the graph output) and n outputs p1.. that
 * nothing reads. The in-place check looked at every input per output. */
static void build_variadic(onyx__pbw *g, onyx__pbw *m, size_t n) {
  import(m, "com.example");
  r_node(g, "x", "", 1, "y", "o", n + 1);
  r_node(g, "y", "o", n + 1, "y2", "p", n + 1);
  value_info(g, 12, "y2", 1, NULL);
}

/* x -> R -> y and n outputs nothing reads, each a whole buffer given back
 * at once (the planner's free list was sized by nodes and overflowed). */
static void build_many_outputs(onyx__pbw *g, onyx__pbw *m, size_t n) {
  import(m, "com.example");
  r_node(g, "x", "", 1, "y", "o", n + 1);
  value_info(g, 12, "y", 1, NULL);
}

typedef struct kind {
  const char *name;
  void (*build)(onyx__pbw *g, onyx__pbw *m, size_t n);
  size_t n;           /* the smaller size tested; the larger is 10 n */
  onyx_status create; /* what session creation returns when n > 0 */
  bool ops;           /* the session registers com.example:R */
} kind;

static const kind kinds[] = {
    {"dims", build_dims, 40, ONYX_OK, false},
    {"chain", build_chain, 1000, ONYX_OK, false},
    {"outputs", build_outputs, 1000, ONYX_OK, false},
    {"initializers", build_initializers, 1000, ONYX_OK, false},
    {"constants", build_constants, 500, ONYX_OK, false},
    {"bounds", build_bounds, 1000, ONYX_OK, false},
    {"value_infos", build_value_infos, 1000, ONYX_OK, false},
    {"opsets", build_opsets, 1000, ONYX_OK, false},
    {"attributes", build_attributes, 1000, ONYX_ATTRIBUTE, false},
    {"imports_nodes", build_imports_nodes, 500, ONYX_OK, true},
    {"variadic", build_variadic, 1000, ONYX_OK, true},
    {"many_outputs", build_many_outputs, 1000, ONYX_OK, true},
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

/* ---- The child: build, load, create, run ------------------------------- */

/* Runs s once on inputs of ones, every symbolic dimension 1. */
static onyx_status run_once(onyx_session *s, onyx_error *err) {
  size_t ni = onyx_session_input_count(s), no = onyx_session_output_count(s);
  onyx_tensor *in = calloc(ni + 1, sizeof *in), *out = calloc(no + 1, sizeof *out);
  static double ones[1];
  ones[0] = 1.0;
  onyx_status st = in && out ? ONYX_OK : ONYX_OUT_OF_MEMORY;
  for (size_t i = 0; i < ni && st == ONYX_OK; i++) {
    onyx_value_info info;
    st = onyx_session_input_info(s, i, &info, err);
    in[i].dtype = info.dtype;
    in[i].rank = info.rank;
    for (uint32_t d = 0; d < info.rank; d++) in[i].dims[d] = 1;
    in[i].data = ones;
    in[i].size = sizeof ones;
  }
  if (st == ONYX_OK) st = onyx_session_run(s, in, ni, out, no, err);
  for (size_t o = 0; st == ONYX_OK && o < no; o++) onyx_free(out[o].data);
  free(in);
  free(out);
  return st;
}

/* Builds, loads, creates and runs kind at size n; 0 when every step gave
 * the status the kind expects. */
static int work(const kind *k, size_t n) {
  onyx__pbw g = {0}, m = {0};
  input_x(&g);
  k->build(&g, &m, n);
  mb_model(&m, 8, 13, &g);
  onyx_error err = {0};
  onyx_model *model = NULL;
  onyx_session *s = NULL;
  onyx_op_registry *reg = NULL;
  onyx_session_options opts;
  onyx_session_options_init(&opts);
  onyx_status st = onyx_model_load_memory(m.buf, m.len, &model, &err);
  if (st == ONYX_OK && k->ops) {
    onyx_custom_op d;
    memset(&d, 0, sizeof d);
    d.domain = "com.example";
    d.name = "R";
    d.since_min = 1;
    d.min_inputs = d.min_outputs = 1;
    d.max_inputs = d.max_outputs = ONYX_OP_VARIADIC;
    d.allows_in_place = 1;
    d.infer = mb_infer_like_input0;
    d.compute = compute_r;
    st = onyx_op_registry_create(&reg, &err);
    if (st == ONYX_OK) st = onyx_op_registry_add(reg, &d, &err);
    opts.ops = reg;
  }
  if (st == ONYX_OK) st = onyx_session_create(model, &opts, &s, &err);
  onyx_status want = n > 0 ? k->create : ONYX_OK;
  if (st == ONYX_OK) st = run_once(s, &err);
  onyx_session_free(s);
  onyx_op_registry_free(reg);
  onyx_model_free(model);
  onyx__pbw_free(&m);
  if (st != want) {
    fprintf(stderr, "%s at %zu: %s, expected %s: %s\n", k->name, n, onyx_status_name(st),
            onyx_status_name(want), err.message);
    return 1;
  }
  return 0;
}

/* The sizes each kind runs at: the model without the repeated structure,
 * n and 10 n. */
#define N_SIZES 3
static size_t size_at(const kind *k, int i) { return i == 0 ? 0 : i == 1 ? k->n : 10 * k->n; }

/*
 * The child, under callgrind: every kind at every size, each between a
 * reset of the counters and a dump labelled "KIND SIZE", so that one
 * valgrind start-up serves them all (start-up costs more than most of the
 * work measured).
 */
static int child(void) {
  int failed = 0;
  for (size_t i = 0; i < N_KINDS; i++)
    for (int j = 0; j < N_SIZES; j++) {
      char label[64];
      snprintf(label, sizeof label, "%s %zu", kinds[i].name, size_at(&kinds[i], j));
      CALLGRIND_ZERO_STATS;
      failed |= work(&kinds[i], size_at(&kinds[i], j));
      CALLGRIND_DUMP_STATS_AT(label);
    }
  return failed;
}

/* ---- The parent: count and compare ------------------------------------- */

/* Reads one callgrind dump: its label and its instruction total. */
static bool read_dump(const char *path, char *label, size_t cap, uint64_t *total) {
  FILE *f = fopen(path, "r");
  if (f == NULL) return false;
  char line[1024];
  const char *trigger = "desc: Trigger: Client Request: ";
  bool have_label = false, have_total = false;
  while (fgets(line, sizeof line, f) != NULL) {
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, trigger, strlen(trigger)) == 0) {
      snprintf(label, cap, "%s", line + strlen(trigger));
      have_label = true;
    } else if (strncmp(line, "totals: ", 8) == 0 || strncmp(line, "summary: ", 9) == 0) {
      *total = strtoull(strchr(line, ' ') + 1, NULL, 10);
      have_total = true;
    }
  }
  fclose(f);
  return have_label && have_total;
}

/* Runs the child under callgrind and fills counts[kind][size]; false when
 * the child failed or a dump is missing. */
static bool measure(const char *self, uint64_t counts[][N_SIZES]) {
  char dir[] = "/tmp/onyx-complexity-XXXXXX";
  if (mkdtemp(dir) == NULL) return false;
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "'%s' --tool=callgrind --log-file='%s/log' --callgrind-out-file='%s/cg' '%s' --all",
           ONYX_VALGRIND, dir, dir, self);
  bool ok = system(cmd) == 0;
  memset(counts, 0, sizeof(uint64_t) * N_KINDS * N_SIZES);
  for (int d = 1; d <= (int)(N_KINDS * N_SIZES); d++) {
    char path[256], label[1024];
    uint64_t total = 0;
    snprintf(path, sizeof path, "%s/cg.%d", dir, d);
    if (read_dump(path, label, sizeof label, &total))
      for (size_t i = 0; i < N_KINDS; i++)
        for (int j = 0; j < N_SIZES; j++) {
          char want[64];
          snprintf(want, sizeof want, "%s %zu", kinds[i].name, size_at(&kinds[i], j));
          if (strcmp(label, want) == 0) counts[i][j] = total;
        }
    remove(path);
  }
  const char *left[] = {"cg", "log"};
  for (int i = 0; i < 2; i++) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, left[i]);
    remove(path);
  }
  rmdir(dir);
  return ok;
}

static int parent(const char *self) {
  uint64_t counts[N_KINDS][N_SIZES];
  int failed = !measure(self, counts);
  if (failed) printf("FAIL the child under valgrind failed (see above)\n");
  for (size_t i = 0; i < N_KINDS; i++) {
    const kind *k = &kinds[i];
    uint64_t base = counts[i][0], small = counts[i][1], large = counts[i][2];
    if (base == 0 || small <= base || large <= base) {
      printf("FAIL %-13s no count, or no work (%" PRIu64 ", %" PRIu64 ", %" PRIu64
             " instructions)\n",
             k->name, base, small, large);
      failed = 1;
      continue;
    }
    double ratio = (double)(large - base) / (double)(small - base);
    bool bad = ratio > MAX_RATIO;
    printf("%s %-13s n=%-6zu %12" PRIu64 " instr; 10n: %12" PRIu64 " instr; base %" PRIu64
           "; growth %.1fx (limit %.0fx)\n",
           bad ? "FAIL" : "ok  ", k->name, k->n, small, large, base, ratio, MAX_RATIO);
    failed |= bad;
  }
  return failed;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--all") == 0) return child();
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(SANITIZED)
  const char *skip = "valgrind cannot run a sanitizer build";
#else
  const char *skip = ONYX_VALGRIND[0] == '\0'
                         ? "no valgrind for this build: none was found, or it is a cross build"
                         : NULL;
#endif
  if (skip != NULL) {
    printf("SKIP: %s\n", skip);
    return 77;
  }
  return parent(argv[0]);
}
