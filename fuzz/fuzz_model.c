/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: model bytes -> onyx_model_load_memory -> onyx_session_create
 * -> onyx_session_run on small random inputs of the declared types.
 *
 * Every session has the element-wise ops of tests/custom/testops.c
 * registered (fuzz_ops), so that nodes onyx does not serve itself run as
 * registered operators with everything below checked for them too.
 *
 * Symbolic and unknown dimensions are set to 0..3 (a named one to the same
 * size in every input), an undeclared shape gets rank 0 or 1, and a model whose declared inputs
 * would need more than MAX_INPUT_ELEMS elements (or MAX_INPUT_BYTES in all) is loaded and checked
 * but not run, so that no input makes the harness allocate much.
 *
 * Beyond the checks of fuzz.h, a model that loads and creates a session
 * must run (the API promises that model errors surface at load or
 * creation; the only run error these inputs may cause is ONYX_INPUT_SHAPE,
 * for a Clip bound whose shape the model leaves open, or a registered op's
 * infer refusing the run's shapes), and:
 *   - every output's size matches its dtype and dims;
 *   - a second run into the caller's buffers gives the same bits;
 *   - a session capped at the scalar kernels gives the same values (NaN for
 *     NaN) as one at the ISA level and thread count the input selects, and
 *     so does one on two threads when the inputs are large enough
 *     (LARGE_INPUT_BYTES) for onyx to split the work;
 *   - an output buffer one byte short is ONYX_BUFFER_TOO_SMALL and no
 *     buffer is written;
 *   - an input of another element type is ONYX_INPUT_TYPE; one with a
 *     dimension more than the model declares, or a fixed dimension changed,
 *     ONYX_INPUT_SHAPE; one a byte short, or one input too many,
 *     ONYX_INVALID_ARGUMENT; one without data, or one input too few,
 *     ONYX_INPUT_MISSING; and none of these allocates an output.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "onyx.h"

/* Registered operators (tests/custom/testops.c): Abs, Neg, Relu,
 * Identity, Cast float<->float16, Sum (any number of inputs) and Split
 * (any number of outputs), which the model mutator also writes, so that
 * mutated models reach onyx's handling of registered ops of every arity.
 * Made once and kept for the process. */
onyx_status testops_register_elementwise(onyx_op_registry *reg, onyx_error *err);

static const onyx_op_registry *fuzz_ops(void) {
  static onyx_op_registry *reg;
  onyx_error err;
  if (reg == NULL && (onyx_op_registry_create(&reg, &err) != ONYX_OK ||
                      testops_register_elementwise(reg, &err) != ONYX_OK))
    fuzz_die("the test ops do not register: %.512s", err.message);
  return reg;
}

#define MAX_INPUT_ELEMS 65536
#define MAX_INPUT_BYTES (1u << 20)
#define POISON          0xa5
/* About where onyx starts to split a run among threads. */
#define LARGE_INPUT_BYTES (128u * 1024u)

/* Reads every string and list the model describes, so that a dangling or
 * unterminated one shows up under the sanitizers. */
static size_t describe_model(const onyx_model *m) {
  size_t sum = (size_t)onyx_model_ir_version(m);
  onyx_error err;
  for (size_t i = 0; i < onyx_model_opset_count(m); i++) {
    const char *domain = NULL;
    int64_t version = 0;
    if (fuzz_check("onyx_model_opset", onyx_model_opset(m, i, &domain, &version, &err), &err) !=
        ONYX_OK)
      fuzz_die("onyx_model_opset failed for index %zu", i);
    sum += strlen(domain) + (size_t)version;
  }
  for (size_t i = 0; i < onyx_model_node_count(m); i++) {
    onyx_node_info n;
    if (fuzz_check("onyx_model_node", onyx_model_node(m, i, &n, &err), &err) != ONYX_OK)
      fuzz_die("onyx_model_node failed for index %zu", i);
    sum += strlen(n.op_type) + strlen(n.domain) + strlen(n.name);
    for (size_t k = 0; k < n.input_count; k++) sum += strlen(n.inputs[k]);
    for (size_t k = 0; k < n.output_count; k++) sum += strlen(n.outputs[k]);
  }
  if (onyx_model_opset(m, onyx_model_opset_count(m), NULL, NULL, &err) != ONYX_INVALID_ARGUMENT)
    fuzz_die("onyx_model_opset accepted an index out of range");
  return sum;
}

static int is_float_type(onyx_dtype t) {
  return t == ONYX_DTYPE_FLOAT || t == ONYX_DTYPE_DOUBLE || t == ONYX_DTYPE_FLOAT16 ||
         t == ONYX_DTYPE_BFLOAT16;
}

/* Whether element i of a and b are the same value: the same bits, or both
 * NaN for the float types. */
static int same_element(onyx_dtype t, const unsigned char *a, const unsigned char *b, size_t i) {
  size_t es = onyx_dtype_size(t);
  if (memcmp(a + i * es, b + i * es, es) == 0) return 1;
  if (!is_float_type(t)) return 0;
  uint64_t x = 0, y = 0;
  memcpy(&x, a + i * es, es);
  memcpy(&y, b + i * es, es);
  switch (t) {
    case ONYX_DTYPE_FLOAT16:
      return (x & 0x7c00u) == 0x7c00u && (x & 0x3ffu) && (y & 0x7c00u) == 0x7c00u && (y & 0x3ffu);
    case ONYX_DTYPE_BFLOAT16:
      return (x & 0x7f80u) == 0x7f80u && (x & 0x7fu) && (y & 0x7f80u) == 0x7f80u && (y & 0x7fu);
    case ONYX_DTYPE_FLOAT:
      return (x & 0x7fffffffu) > 0x7f800000u && (y & 0x7fffffffu) > 0x7f800000u;
    default: {
      const uint64_t mag = 0x7fffffffffffffffu, inf = 0x7ff0000000000000u;
      return (x & mag) > inf && (y & mag) > inf;
    }
  }
}

typedef struct outputs {
  size_t n;
  onyx_tensor *t;
} outputs;

static void outputs_free(outputs *o) {
  if (o->t != NULL)
    for (size_t i = 0; i < o->n; i++) onyx_free(o->t[i].data);
  free(o->t);
  o->t = NULL;
}

/* Checks what a successful run reports about its outputs. */
static void check_outputs(const onyx_session *s, const onyx_tensor *out, size_t n) {
  for (size_t o = 0; o < n; o++) {
    onyx_value_info info;
    onyx_error err;
    if (onyx_session_output_info(s, o, &info, &err) != ONYX_OK) fuzz_die("no output info %zu", o);
    size_t es = onyx_dtype_size(out[o].dtype);
    if (es == 0) fuzz_die("output %zu has unknown dtype %d", o, (int)out[o].dtype);
    if (out[o].dtype != info.dtype)
      fuzz_die("output %zu is %s, described as %s", o, onyx_dtype_name(out[o].dtype),
               onyx_dtype_name(info.dtype));
    if (out[o].rank > ONYX_MAX_RANK) fuzz_die("output %zu has rank %u", o, out[o].rank);
    int ok;
    size_t count = fuzz_count(out[o].dims, out[o].rank, (size_t)-1 / 16, &ok);
    if (!ok) fuzz_die("output %zu has an invalid shape", o);
    if (out[o].size != count * es)
      fuzz_die("output %zu: size %zu for %zu elements of %s", o, out[o].size, count,
               onyx_dtype_name(out[o].dtype));
    if (out[o].size > 0 && out[o].data == NULL) fuzz_die("output %zu has no data", o);
  }
}

/* Runs s on in; on success *res holds the outputs (onyx
 * allocates them). */
static onyx_status run_alloc(onyx_session *s, const onyx_tensor *in, size_t ni, outputs *res) {
  onyx_error err;
  res->n = onyx_session_output_count(s);
  res->t = calloc(res->n + 1, sizeof *res->t);
  if (res->t == NULL) abort();
  onyx_status st =
      fuzz_check("onyx_session_run", onyx_session_run(s, in, ni, res->t, res->n, &err), &err);
  if (st != ONYX_OK) {
    for (size_t o = 0; o < res->n; o++)
      if (res->t[o].data != NULL) fuzz_die("a failed run left output %zu allocated", o);
    if (st != ONYX_INPUT_SHAPE)
      fuzz_die("a run of a valid session failed with %s: %.512s", onyx_status_name(st),
               err.message);
    outputs_free(res);
    return st;
  }
  check_outputs(s, res->t, res->n);
  return st;
}

/* The same values in a and b, output by output. */
static void compare(const outputs *a, const outputs *b, const char *what) {
  if (a->n != b->n) fuzz_die("%s: %zu outputs against %zu", what, a->n, b->n);
  for (size_t o = 0; o < a->n; o++) {
    const onyx_tensor *x = &a->t[o], *y = &b->t[o];
    if (x->dtype != y->dtype || x->rank != y->rank || x->size != y->size ||
        memcmp(x->dims, y->dims, sizeof x->dims[0] * x->rank) != 0)
      fuzz_die("%s: output %zu differs in type or shape", what, o);
    size_t es = onyx_dtype_size(x->dtype);
    for (size_t i = 0; i < x->size / es; i++)
      if (!same_element(x->dtype, x->data, y->data, i))
        fuzz_die("%s: output %zu differs at element %zu", what, o, i);
  }
}

/* Runs into the caller's buffers, sized from a successful run `ref`; with
 * `short_by` one byte less for output `which`. */
static void run_into_buffers(onyx_session *s, const onyx_tensor *in, size_t ni, const outputs *ref,
                             size_t which, int short_by) {
  onyx_error err;
  outputs mine = {ref->n, calloc(ref->n + 1, sizeof(onyx_tensor))};
  if (mine.t == NULL) abort();
  for (size_t o = 0; o < ref->n; o++) {
    size_t size = ref->t[o].size - (o == which && short_by ? 1 : 0);
    mine.t[o].data = malloc(size ? size : 1);
    if (mine.t[o].data == NULL) abort();
    memset(mine.t[o].data, POISON, size ? size : 1);
    mine.t[o].size = size;
  }
  onyx_status st =
      fuzz_check("onyx_session_run", onyx_session_run(s, in, ni, mine.t, mine.n, &err), &err);
  if (short_by) {
    if (st != ONYX_BUFFER_TOO_SMALL)
      fuzz_die("an output buffer one byte short gave %s", onyx_status_name(st));
    for (size_t o = 0; o < mine.n; o++) {
      const unsigned char *p = mine.t[o].data;
      for (size_t i = 0; i < ref->t[o].size - (o == which); i++)
        if (p[i] != POISON) fuzz_die("a run that failed wrote output %zu", o);
    }
  } else {
    if (st != ONYX_OK) fuzz_die("a second run failed: %.512s", err.message);
    check_outputs(s, mine.t, mine.n);
    compare(ref, &mine, "second run");
  }
  for (size_t o = 0; o < mine.n; o++) free(mine.t[o].data);
  free(mine.t);
}

/* Shapes and sizes for the session's inputs (data not yet allocated).
 * Returns 0 when they would need more than the harness allows. */
static int plan_inputs(onyx_session *s, onyx_tensor *in, size_t ni, uint64_t *rng) {
  size_t total = 0;
  onyx_error err;
  uint64_t dim_seed = fuzz_next(rng);
  for (size_t i = 0; i < ni; i++) {
    onyx_value_info info;
    if (fuzz_check("onyx_session_input_info", onyx_session_input_info(s, i, &info, &err), &err) !=
        ONYX_OK)
      fuzz_die("no input info %zu", i);
    size_t es = onyx_dtype_size(info.dtype);
    if (es == 0) fuzz_die("input %zu has unknown dtype %d", i, (int)info.dtype);
    if (info.rank > ONYX_MAX_RANK) fuzz_die("input %zu has rank %u", i, info.rank);
    if (strlen(info.name) > (size_t)-2) abort();
    in[i].dtype = info.dtype;
    in[i].rank = info.has_shape ? info.rank : (uint32_t)(fuzz_next(rng) % 2);
    for (uint32_t d = 0; d < in[i].rank; d++) {
      if (info.has_shape && info.dims[d] >= 0) {
        in[i].dims[d] = info.dims[d];
      } else if (info.has_shape && info.dim_names[d] != NULL) {
        /* A named dimension has one size across the inputs that share it. */
        const char *dn = info.dim_names[d];
        uint64_t h = dim_seed ^ fuzz_hash((const uint8_t *)dn, strlen(dn));
        in[i].dims[d] = (int64_t)(fuzz_next(&h) % 4);
      } else {
        in[i].dims[d] = (int64_t)(fuzz_next(rng) % 4);
      }
    }
    int ok;
    size_t count = fuzz_count(in[i].dims, in[i].rank, MAX_INPUT_ELEMS, &ok);
    if (!ok || count * es > MAX_INPUT_BYTES - total) return 0;
    total += count * es;
    in[i].size = count * es;
  }
  return 1;
}

/* A session with `threads` threads and kernels up to `isa` gives the same
 * values as the one that gave `first`. */
static void check_against(const onyx_model *m, const onyx_tensor *in, size_t ni,
                          const outputs *first, unsigned threads, onyx_isa isa, const char *what) {
  onyx_session_options opts;
  onyx_session_options_init(&opts);
  opts.threads = threads;
  opts.isa_cap = isa;
  opts.ops = fuzz_ops();
  onyx_session *ref = NULL;
  onyx_error err;
  if (fuzz_check("onyx_session_create", onyx_session_create(m, &opts, &ref, &err), &err) != ONYX_OK)
    fuzz_die("a %s failed where another succeeded: %.512s", what, err.message);
  outputs second = {0, NULL};
  if (run_alloc(ref, in, ni, &second) != ONYX_OK) fuzz_die("the %s's run failed", what);
  compare(first, &second, what);
  outputs_free(&second);
  onyx_session_free(ref);
}

/* A run on inputs that break the rules fails with `want`, allocating no
 * output. */
static void expect_run_error(onyx_session *s, const onyx_tensor *in, size_t ni, onyx_status want,
                             const char *what) {
  onyx_error err;
  outputs bad = {onyx_session_output_count(s), NULL};
  bad.t = calloc(bad.n + 1, sizeof *bad.t);
  if (bad.t == NULL) abort();
  onyx_status st =
      fuzz_check("onyx_session_run", onyx_session_run(s, in, ni, bad.t, bad.n, &err), &err);
  if (st != want)
    fuzz_die("%s gave %s, not %s", what, onyx_status_name(st), onyx_status_name(want));
  for (size_t o = 0; o < bad.n; o++)
    if (bad.t[o].data != NULL) fuzz_die("%s left output %zu allocated", what, o);
  free(bad.t);
}

/* Inputs that a valid run turn invalid, one rule at a time: another
 * element type, one dimension more than the model declares, a fixed
 * dimension one larger, one byte short, no data, one input too few or too
 * many. (in has room for ni + 1 inputs.) */
static void check_bad_inputs(onyx_session *s, onyx_tensor *in, size_t ni) {
  expect_run_error(s, in, ni + 1, ONYX_INVALID_ARGUMENT, "one input too many");
  if (ni == 0) return;
  onyx_tensor saved = in[0];
  onyx_value_info info;
  onyx_error err;
  if (onyx_session_input_info(s, 0, &info, &err) != ONYX_OK) fuzz_die("no input info 0");
  in[0].dtype = in[0].dtype == ONYX_DTYPE_FLOAT ? ONYX_DTYPE_INT32 : ONYX_DTYPE_FLOAT;
  expect_run_error(s, in, ni, ONYX_INPUT_TYPE, "an input of the wrong type");
  in[0] = saved;
  if (info.has_shape && in[0].rank < ONYX_MAX_RANK) {
    in[0].dims[in[0].rank++] = 1;
    expect_run_error(s, in, ni, ONYX_INPUT_SHAPE, "an input of one dimension more");
    in[0] = saved;
  }
  for (uint32_t d = 0; info.has_shape && d < info.rank; d++)
    if (info.dims[d] >= 0) {
      in[0].dims[d]++;
      expect_run_error(s, in, ni, ONYX_INPUT_SHAPE, "an input with a fixed dimension changed");
      in[0] = saved;
      break;
    }
  if (in[0].size > 0) {
    in[0].size--;
    expect_run_error(s, in, ni, ONYX_INVALID_ARGUMENT, "an input one byte short");
    in[0].size++;
    in[0].data = NULL;
    expect_run_error(s, in, ni, ONYX_INPUT_MISSING, "an input without data");
    in[0] = saved;
  }
  expect_run_error(s, in, ni - 1, ONYX_INPUT_MISSING, "one input too few");
}

static void exercise(const onyx_model *m, onyx_session *s, uint64_t *rng) {
  size_t ni = onyx_session_input_count(s);
  onyx_tensor *in = calloc(ni + 1, sizeof *in);
  if (in == NULL) abort();
  size_t total = 0;
  if (plan_inputs(s, in, ni, rng)) {
    for (size_t i = 0; i < ni; i++) total += in[i].size;
    int large = total >= LARGE_INPUT_BYTES;
    for (size_t i = 0; i < ni; i++) {
      in[i].data = malloc(in[i].size ? in[i].size : 1);
      if (in[i].data == NULL) abort();
      unsigned char *p = in[i].data;
      for (size_t k = 0; k < in[i].size; k++) p[k] = (unsigned char)fuzz_next(rng);
    }
    outputs first = {0, NULL};
    if (run_alloc(s, in, ni, &first) == ONYX_OK) {
      run_into_buffers(s, in, ni, &first, 0, 0);
      for (size_t o = 0; o < first.n; o++)
        if (first.t[o].size > 0) {
          run_into_buffers(s, in, ni, &first, o, 1);
          break;
        }
      /* The scalar kernels on one thread are the reference; inputs large
       * enough to be split among threads are run on two as well. */
      check_against(m, in, ni, &first, 1, ONYX_ISA_SCALAR, "scalar session");
      if (large) check_against(m, in, ni, &first, 2, ONYX_ISA_BEST, "two-thread session");
      check_bad_inputs(s, in, ni);
    }
    outputs_free(&first);
  }
  for (size_t i = 0; i < ni; i++) free(in[i].data);
  free(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint64_t rng = fuzz_hash(data, size);
  onyx_error err;
  memset(&err, 0, sizeof err);
  onyx_model *m = (onyx_model *)&err;
  onyx_status st =
      fuzz_check("onyx_model_load_memory", onyx_model_load_memory(data, size, &m, &err), &err);
  if (st != ONYX_OK) {
    if (m != NULL) fuzz_die("onyx_model_load_memory failed but set *out");
    return 0;
  }
  if (m == NULL) fuzz_die("onyx_model_load_memory succeeded with *out NULL");
  (void)describe_model(m);

  onyx_session_options opts;
  onyx_session_options_init(&opts);
  uint64_t pick = fuzz_next(&rng);
  opts.threads = (pick & 15) == 0 ? 2 : 1; /* pools are slow to start: now and then */
  static const onyx_isa caps[] = {
#define X(name, value, lname, arch, desc) ONYX_ISA_##name,
      ONYX_ISA_MAP(X)
#undef X
          ONYX_ISA_BEST};
  opts.isa_cap = caps[(pick >> 4) % (sizeof caps / sizeof caps[0])];
  opts.ops = fuzz_ops();
  onyx_session *s = (onyx_session *)&err;
  st = fuzz_check("onyx_session_create", onyx_session_create(m, &opts, &s, &err), &err);
  if (st != ONYX_OK) {
    if (s != NULL) fuzz_die("onyx_session_create failed but set *out");
  } else {
    if (s == NULL) fuzz_die("onyx_session_create succeeded with *out NULL");
    exercise(m, s, &rng);
    onyx_session_free(s);
  }
  onyx_model_free(m);
  return 0;
}
