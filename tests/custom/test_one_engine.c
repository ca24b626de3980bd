/* SPDX-License-Identifier: MIT */
/*
 * Registered ops and onyx's own through one engine, checked against numpy
 * bit for bit: a two-input op that broadcasts, a two-output op and a
 * variadic op, mixed with Ceil, Clip, Sign and Floor in one model whose
 * batch dimension N is symbolic, run at 1 and 3 threads on batches of
 * several sizes, a small one first. tests/custom/one_engine.py writes the
 * model and numpy's results (the ops' definitions are in its docstring);
 * this test uses only the public API.
 *
 *     test_one_engine DIR
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onyx.h"

static const char *dir; /* the generator's OUTDIR */

/* ---- Shapes ---- */

static int64_t element_count(const onyx_tensor *t) {
  int64_t n = 1;
  for (uint32_t i = 0; i < t->rank; i++) n *= t->dims[i];
  return n;
}

/* Two dimensions as numpy broadcasts them; -1 (not known yet) stays -1
 * unless the other side fixes it. Returns 0 when they cannot broadcast. */
static int broadcast_dim(int64_t a, int64_t b, int64_t *out) {
  if (a == b || b == 1)
    *out = a;
  else if (a == 1)
    *out = b;
  else if (a < 0 || b < 0)
    *out = a < 0 && b < 0 ? -1 : (a < 0 ? b : a); /* -1 is 1 or the other */
  else
    return 0;
  return 1;
}

/* What each infer saw at session creation: the Sum's inputs come after
 * two registered ops and must keep rank 2, N unknown and 4. */
static struct {
  int sum_infers, sum_rank_known, sum_rank;
  int64_t sum_dims[2];
} seen;

static void reset_seen(void) { memset(&seen, 0, sizeof seen); }

/* Every input's rank must be known, and the ranks equal; dims that are
 * known on both sides equal. Output 0 .. n_out-1 get input 0's shape with
 * the known dims of every input. */
static onyx_status infer_same_shape(onyx_op_context *ctx, size_t n_out) {
  onyx_tensor t0, t;
  onyx_op_input(ctx, 0, &t0);
  for (size_t i = 0; i < onyx_op_input_count(ctx); i++) {
    if (!onyx_op_input_rank_known(ctx, i))
      return onyx_op_fail(ctx, ONYX_SHAPE, "input %zu: rank not known", i);
    onyx_op_input(ctx, i, &t);
    if (t.rank != t0.rank)
      return onyx_op_fail(ctx, ONYX_SHAPE, "input %zu: rank %u, input 0 rank %u", i, t.rank,
                          t0.rank);
    for (uint32_t d = 0; d < t.rank; d++) {
      if (t.dims[d] >= 0 && t0.dims[d] >= 0 && t.dims[d] != t0.dims[d])
        return onyx_op_fail(ctx, ONYX_SHAPE, "input %zu: dimension %u differs", i, d);
      if (t0.dims[d] < 0) t0.dims[d] = t.dims[d];
    }
  }
  for (size_t k = 0; k < n_out; k++)
    if (onyx_op_set_output(ctx, k, t0.dtype, t0.rank, t0.dims) != ONYX_OK) return ONYX_SHAPE;
  return ONYX_OK;
}

/* ---- BroadcastAdd(a, b) = a + b ---- */

static onyx_status infer_badd(onyx_op_context *ctx) {
  onyx_tensor a, b;
  onyx_op_input(ctx, 0, &a);
  onyx_op_input(ctx, 1, &b);
  if (!onyx_op_input_rank_known(ctx, 0) || !onyx_op_input_rank_known(ctx, 1))
    return onyx_op_fail(ctx, ONYX_SHAPE, "rank not known");
  uint32_t rank = a.rank > b.rank ? a.rank : b.rank;
  int64_t dims[ONYX_MAX_RANK];
  for (uint32_t d = 0; d < rank; d++) {
    int64_t da = d + a.rank >= rank ? a.dims[d + a.rank - rank] : 1;
    int64_t db = d + b.rank >= rank ? b.dims[d + b.rank - rank] : 1;
    if (!broadcast_dim(da, db, &dims[d]))
      return onyx_op_fail(ctx, ONYX_SHAPE, "dimension %u does not broadcast", d);
  }
  return onyx_op_set_output(ctx, 0, a.dtype, rank, dims);
}

/* The offset into t (right-aligned to rank) of the element at index. */
static size_t broadcast_offset(const onyx_tensor *t, uint32_t rank, const int64_t *index) {
  size_t off = 0;
  for (uint32_t d = rank - t->rank; d < rank; d++) {
    int64_t n = t->dims[d - (rank - t->rank)];
    off = off * (size_t)n + (size_t)(n == 1 ? 0 : index[d]);
  }
  return off;
}

static onyx_status compute_badd(onyx_op_context *ctx) {
  onyx_tensor a, b, y;
  onyx_op_input(ctx, 0, &a);
  onyx_op_input(ctx, 1, &b);
  onyx_op_output(ctx, 0, &y);
  const float *pa = a.data, *pb = b.data;
  float *py = y.data;
  int64_t index[ONYX_MAX_RANK] = {0}, n = element_count(&y);
  for (int64_t e = 0; e < n; e++) {
    py[e] = pa[broadcast_offset(&a, y.rank, index)] + pb[broadcast_offset(&b, y.rank, index)];
    for (uint32_t d = y.rank; d-- > 0;) { /* the next index, C order */
      if (++index[d] < y.dims[d]) break;
      index[d] = 0;
    }
  }
  return ONYX_OK;
}

/* ---- MinMax(a, b) = (a < b ? a : b, a > b ? a : b) ---- */

static onyx_status infer_minmax(onyx_op_context *ctx) { return infer_same_shape(ctx, 2); }

static onyx_status compute_minmax(onyx_op_context *ctx) {
  onyx_tensor a, b, lo, hi;
  onyx_op_input(ctx, 0, &a);
  onyx_op_input(ctx, 1, &b);
  onyx_op_output(ctx, 0, &lo);
  onyx_op_output(ctx, 1, &hi);
  const float *pa = a.data, *pb = b.data;
  float *pl = lo.data, *ph = hi.data;
  for (int64_t e = 0, n = element_count(&lo); e < n; e++) {
    pl[e] = pa[e] < pb[e] ? pa[e] : pb[e];
    ph[e] = pa[e] > pb[e] ? pa[e] : pb[e];
  }
  return ONYX_OK;
}

/* ---- Sum(x0, ..., xn), left to right, in blocks on the session's threads ---- */

static onyx_status infer_sum(onyx_op_context *ctx) {
  onyx_tensor t;
  seen.sum_infers++;
  seen.sum_rank_known = onyx_op_input_rank_known(ctx, 2);
  onyx_op_input(ctx, 2, &t); /* a2, after the two BroadcastAdds */
  seen.sum_rank = (int)t.rank;
  if (t.rank == 2) memcpy(seen.sum_dims, t.dims, sizeof seen.sum_dims);
  return infer_same_shape(ctx, 1);
}

#define SUM_BLOCK 1024

typedef struct sum_job {
  onyx_op_context *ctx;
  size_t n;
} sum_job;

static void sum_block(void *arg, size_t block) {
  sum_job *job = arg;
  onyx_tensor x, y;
  onyx_op_output(job->ctx, 0, &y);
  float *py = y.data;
  size_t end = (block + 1) * SUM_BLOCK < job->n ? (block + 1) * SUM_BLOCK : job->n;
  for (size_t i = 0; i < onyx_op_input_count(job->ctx); i++) {
    onyx_op_input(job->ctx, i, &x);
    const float *px = x.data;
    for (size_t e = block * SUM_BLOCK; e < end; e++) py[e] = i == 0 ? px[e] : py[e] + px[e];
  }
}

static onyx_status compute_sum(onyx_op_context *ctx) {
  onyx_tensor y;
  onyx_op_output(ctx, 0, &y);
  sum_job job = {ctx, (size_t)element_count(&y)};
  onyx_op_parallel_for(ctx, (job.n + SUM_BLOCK - 1) / SUM_BLOCK, sum_block, &job);
  return ONYX_OK;
}

/* ---- The registry ---- */

static onyx_custom_op def(const char *name, uint32_t min_in, uint32_t max_in, uint32_t n_out,
                          onyx_op_infer_fn infer, onyx_op_compute_fn compute) {
  onyx_custom_op d = {0};
  d.domain = "com.example";
  d.name = name;
  d.since_min = 1;
  d.min_inputs = min_in;
  d.max_inputs = max_in;
  d.min_outputs = d.max_outputs = n_out;
  d.input_types[0] = ONYX_DTYPE_BIT(ONYX_DTYPE_FLOAT);
  d.n_input_types = 1;
  d.infer = infer;
  d.compute = compute;
  return d;
}

static onyx_op_registry *make_registry(void) {
  const onyx_custom_op defs[] = {
      def("BroadcastAdd", 2, 2, 1, infer_badd, compute_badd),
      def("MinMax", 2, 2, 2, infer_minmax, compute_minmax),
      def("Sum", 1, ONYX_OP_VARIADIC, 1, infer_sum, compute_sum),
  };
  onyx_op_registry *reg = NULL;
  onyx_error err;
  assert_int_equal(onyx_op_registry_create(&reg, &err), ONYX_OK);
  for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
    if (onyx_op_registry_add(reg, &defs[i], &err) != ONYX_OK) fail_msg("add: %s", err.message);
  return reg;
}

/* ---- The generator's files ---- */

static void load_tensor(const char *path, onyx_tensor *t) {
  onyx_error err;
  if (onyx_tensor_load_file(path, t, NULL, &err) != ONYX_OK)
    fail_msg("%s: %s (run one_engine.py first)", path, err.message);
}

static size_t batch_count(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/batches.txt", dir);
  FILE *f = fopen(path, "r");
  if (f == NULL) fail_msg("%s: cannot open (run one_engine.py first)", path);
  size_t n = 0;
  int ok = fscanf(f, "%zu", &n) == 1;
  fclose(f);
  if (!ok || n == 0) fail_msg("%s: no batch count", path);
  return n;
}

/* Checks got against the expected tensor bit for bit, naming the first
 * element that differs. */
static void check_same(const onyx_tensor *got, const onyx_tensor *want, const char *what) {
  assert_int_equal(got->dtype, want->dtype);
  if (got->rank != want->rank) fail_msg("%s: rank %u, numpy %u", what, got->rank, want->rank);
  for (uint32_t d = 0; d < want->rank; d++)
    if (got->dims[d] != want->dims[d])
      fail_msg("%s: dimension %u is %lld, numpy %lld", what, d, (long long)got->dims[d],
               (long long)want->dims[d]);
  size_t n = (size_t)element_count(want);
  const uint32_t *g = got->data, *w = want->data;
  for (size_t e = 0; e < n; e++)
    if (g[e] != w[e]) {
      float gf, wf;
      memcpy(&gf, &g[e], 4);
      memcpy(&wf, &w[e], 4);
      fail_msg("%s: element %zu is %a (0x%08x), numpy %a (0x%08x)", what, e, (double)gf,
               (unsigned)g[e], (double)wf, (unsigned)w[e]);
    }
}

/* The value called name, as onyx_session_value_info() gives it. */
static onyx_value_info value_named(const onyx_session *s, const char *name) {
  onyx_value_info info;
  onyx_error err;
  for (size_t i = 0; i < onyx_session_value_count(s); i++) {
    assert_int_equal(onyx_session_value_info(s, i, &info, &err), ONYX_OK);
    if (strcmp(info.name, name) == 0) return info;
  }
  fail_msg("no value '%s'", name);
  return info;
}

/* The shapes the session knows at creation: N by name on the input, and
 * [?, 4] through onyx's ops and the registered ones alike. N's name
 * follows onyx's element-wise ops (c, f); this test's registered ops never
 * say which input dimension an output's is (onyx_op_set_output_dim_from),
 * so after them the dimension has no name, and neither has what follows. */
static void check_values(const onyx_session *s) {
  static const char *const computed[] = {"c", "a", "a2", "f", "mn", "mx", "cl", "s", "t", "z"};
  onyx_value_info info;
  onyx_error err;
  assert_int_equal(onyx_session_value_count(s), 2 + 3 + 10);
  assert_int_equal(onyx_session_value_info(s, 15, &info, &err), ONYX_INVALID_ARGUMENT);
  assert_int_equal(onyx_session_value_info(NULL, 0, &info, &err), ONYX_INVALID_ARGUMENT);
  info = value_named(s, "x");
  assert_true(info.has_shape);
  assert_int_equal(info.rank, 2);
  assert_int_equal(info.dims[0], -1);
  assert_string_equal(info.dim_names[0], "N");
  assert_int_equal(info.dims[1], 4);
  info = value_named(s, "bias");
  assert_true(info.has_shape);
  assert_int_equal(info.rank, 1);
  assert_int_equal(info.dims[0], 4);
  info = value_named(s, "lo");
  assert_true(info.has_shape);
  assert_int_equal(info.rank, 0);
  for (size_t i = 0; i < sizeof computed / sizeof computed[0]; i++) {
    info = value_named(s, computed[i]);
    if (!info.has_shape || info.rank != 2 || info.dims[0] != -1 || info.dims[1] != 4)
      fail_msg("value '%s': has_shape %d, rank %u, dims %lld, %lld; want [-1, 4]", computed[i],
               info.has_shape, info.rank, (long long)info.dims[0], (long long)info.dims[1]);
    assert_int_equal(info.dtype, ONYX_DTYPE_FLOAT);
    if (strcmp(computed[i], "c") == 0 || strcmp(computed[i], "f") == 0) {
      if (info.dim_names[0] == NULL || strcmp(info.dim_names[0], "N") != 0)
        fail_msg("value '%s': dimension 0 is not named N", computed[i]);
    } else if (info.dim_names[0] != NULL) {
      fail_msg("value '%s': dimension 0 is named %s", computed[i], info.dim_names[0]);
    }
    assert_null(info.dim_names[1]);
  }
}

/* Runs every batch in order on one session of threads threads. */
static void check_threads(onyx_model *model, const onyx_op_registry *reg, unsigned threads) {
  onyx_session_options opts;
  onyx_session_options_init(&opts);
  opts.ops = reg;
  opts.threads = threads;
  onyx_session *s = NULL;
  onyx_error err;
  reset_seen();
  if (onyx_session_create(model, &opts, &s, &err) != ONYX_OK)
    fail_msg("session: %s (%s)", err.message, onyx_status_name(err.status));
  /* At creation the Sum saw a2 as [?, 4]: the shape came through two
   * registered ops with N unknown. */
  assert_int_equal(seen.sum_infers, 1);
  assert_int_equal(seen.sum_rank_known, 1);
  assert_int_equal(seen.sum_rank, 2);
  assert_int_equal(seen.sum_dims[0], -1);
  assert_int_equal(seen.sum_dims[1], 4);
  assert_int_equal(onyx_session_input_count(s), 2);
  assert_int_equal(onyx_session_output_count(s), 3);

  check_values(s);

  size_t n_batches = batch_count();
  for (size_t b = 0; b < n_batches; b++) {
    onyx_tensor in[2], want[3], out[3];
    char path[512], what[600];
    for (int k = 0; k < 2; k++) {
      snprintf(path, sizeof path, "%s/batch_%zu/input_%d.pb", dir, b, k);
      load_tensor(path, &in[k]);
    }
    for (int k = 0; k < 3; k++) {
      snprintf(path, sizeof path, "%s/batch_%zu/output_%d.pb", dir, b, k);
      load_tensor(path, &want[k]);
    }
    memset(out, 0, sizeof out);
    if (onyx_session_run(s, in, 2, out, 3, &err) != ONYX_OK)
      fail_msg("batch %zu (N=%lld), %u threads: %s", b, (long long)in[0].dims[0], threads,
               err.message);
    for (int k = 0; k < 3; k++) {
      snprintf(what, sizeof what, "batch %zu (N=%lld), %u threads, output %d", b,
               (long long)in[0].dims[0], threads, k);
      check_same(&out[k], &want[k], what);
      onyx_free(out[k].data);
      onyx_free(want[k].data);
    }
    for (int k = 0; k < 2; k++) onyx_free(in[k].data);
  }
  onyx_session_free(s);
}

static void test_one_engine(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  onyx_model *model = NULL;
  onyx_error err;
  if (onyx_model_load_file(path, &model, &err) != ONYX_OK)
    fail_msg("%s: %s (run one_engine.py first)", path, err.message);
  onyx_op_registry *reg = make_registry();
  check_threads(model, reg, 1);
  check_threads(model, reg, 3);
  onyx_model_free(model);
  onyx_op_registry_free(reg);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_one_engine DIR (written by tests/custom/one_engine.py)\n");
    return 2;
  }
  dir = argv[1];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_engine),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
