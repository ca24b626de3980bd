/* SPDX-License-Identifier: MIT */
/*
 * An op library written for the tests: Abs, Neg, Relu, Add and Mul (with
 * numpy broadcasting), Identity, Cast between float and float16, Sum of
 * any number of inputs of one shape, and Split (opset 13 to 17) into equal
 * parts, one per output, as registered operators of the ai.onnx domain. Built as libtestops.so and
 * loaded with `onyx test --ops`, onyx_op_registry_load_library() or
 * Python's register_custom_ops_library(), it runs the official ONNX
 * backend-test folders of these ops bit for bit.
 *
 * Integer arithmetic wraps as numpy's does (computed on unsigned types, so
 * that no signed overflow is undefined); float16 conversion rounds to
 * nearest even and keeps NaNs NaN (core/half.h, onyx's own).
 */
#include <stdint.h>
#include <string.h>

#include "core/half.h"
#include "onyx.h"

#define ONYX__TRY_OP(expr)          \
  do {                              \
    onyx_status st_ = (expr);       \
    if (st_ != ONYX_OK) return st_; \
  } while (0)

/* ---- Shapes ---- */

/* Output k has input 0's shape: its dimensions are input 0's, so that
 * their symbolic names carry through (onyx_op_set_output_dim_from). */
static onyx_status set_output_like(onyx_op_context *ctx, size_t k, onyx_dtype dtype,
                                   const onyx_tensor *x) {
  ONYX__TRY_OP(onyx_op_set_output(ctx, k, dtype, x->rank, x->dims));
  for (uint32_t d = 0; d < x->rank; d++) ONYX__TRY_OP(onyx_op_set_output_dim_from(ctx, k, d, 0, d));
  return ONYX_OK;
}

/* Output 0 takes input 0's type and shape (Abs, Neg, Relu, Identity). */
static onyx_status infer_like_input(onyx_op_context *ctx) {
  onyx_tensor x;
  onyx_op_input(ctx, 0, &x);
  return set_output_like(ctx, 0, x.dtype, &x);
}

/* numpy broadcasting; a -1 (unknown at session creation) stays unknown
 * unless the other side fixes the size. */
static onyx_status infer_broadcast(onyx_op_context *ctx) {
  onyx_tensor a, b;
  onyx_op_input(ctx, 0, &a);
  onyx_op_input(ctx, 1, &b);
  uint32_t rank = a.rank > b.rank ? a.rank : b.rank;
  int64_t dims[ONYX_MAX_RANK];
  int from[ONYX_MAX_RANK]; /* the input whose dimension the output's is, or -1 */
  for (uint32_t i = 0; i < rank; i++) {
    int64_t da = i < rank - a.rank ? 1 : a.dims[i - (rank - a.rank)];
    int64_t db = i < rank - b.rank ? 1 : b.dims[i - (rank - b.rank)];
    /* Two unknown sizes: either may be 1 at a run, so neither is provably
     * the output's. */
    from[i] = da == 1 ? 1 : db == 1 ? 0 : da == -1 && db == -1 ? -1 : da == -1 ? 1 : 0;
    if (da == 1 || da == db)
      dims[i] = db;
    else if (db == 1)
      dims[i] = da;
    else if (da == -1 || db == -1)
      dims[i] = da == -1 ? db : da;
    else
      return onyx_op_fail(ctx, ONYX_SHAPE, "dimension %u: %lld and %lld do not broadcast", i,
                          (long long)da, (long long)db);
  }
  ONYX__TRY_OP(onyx_op_set_output(ctx, 0, a.dtype, rank, dims));
  for (uint32_t i = 0; i < rank; i++) {
    const onyx_tensor *x = from[i] == 0 ? &a : &b;
    if (from[i] >= 0 && i >= rank - x->rank)
      ONYX__TRY_OP(onyx_op_set_output_dim_from(ctx, 0, i, (size_t)from[i], i - (rank - x->rank)));
  }
  return ONYX_OK;
}

/* Cast: the type named by attribute 'to', float <-> float16 only. */
static onyx_status infer_cast(onyx_op_context *ctx) {
  onyx_tensor x;
  onyx_attribute_info to;
  onyx_op_input(ctx, 0, &x);
  if (!onyx_op_attribute(ctx, "to", &to) || to.type != 2)
    return onyx_op_fail(ctx, ONYX_ATTRIBUTE, "Cast needs the int attribute 'to'");
  onyx_dtype from = x.dtype, dst = (onyx_dtype)to.i;
  if (!((from == ONYX_DTYPE_FLOAT && dst == ONYX_DTYPE_FLOAT16) ||
        (from == ONYX_DTYPE_FLOAT16 && dst == ONYX_DTYPE_FLOAT) || from == dst))
    return onyx_op_fail(ctx, ONYX_TYPE, "this Cast converts float <-> float16 only, not %s to %d",
                        onyx_dtype_name(from), (int)to.i);
  return set_output_like(ctx, 0, dst, &x);
}

/* ---- Element-wise unary ops ---- */

typedef enum { OP_ABS, OP_NEG, OP_RELU } unary_op;

/* One loop per element type; a signed type's negation runs on its unsigned
 * twin, so that negating the minimum wraps as numpy does. */
#define UNARY_FLOAT(T, n, x, y, op)                   \
  for (size_t i = 0; i < (n); i++) {                  \
    T v = ((const T *)(x))[i];                        \
    ((T *)(y))[i] = (op) == OP_ABS   ? (v < 0    ? -v \
                                        : v == 0 ? 0  \
                                                 : v) \
                    : (op) == OP_NEG ? -v             \
                                     : (v > 0   ? v   \
                                        : v < 0 ? 0   \
                                                : v); \
  }
#define UNARY_INT(T, U, n, x, y, op)                        \
  for (size_t i = 0; i < (n); i++) {                        \
    T v = ((const T *)(x))[i];                              \
    U neg = (U)(0u - (U)v);                                 \
    ((T *)(y))[i] = (op) == OP_ABS   ? (v < 0 ? (T)neg : v) \
                    : (op) == OP_NEG ? (T)neg               \
                                     : (v > 0 ? v : 0);     \
  }

static int unary_span(onyx_dtype t, unary_op op, size_t n, const void *x, void *y) {
  switch (t) {
    case ONYX_DTYPE_FLOAT:
      UNARY_FLOAT(float, n, x, y, op);
      return 1;
    case ONYX_DTYPE_DOUBLE:
      UNARY_FLOAT(double, n, x, y, op);
      return 1;
    case ONYX_DTYPE_INT8:
      UNARY_INT(int8_t, uint8_t, n, x, y, op);
      return 1;
    case ONYX_DTYPE_INT16:
      UNARY_INT(int16_t, uint16_t, n, x, y, op);
      return 1;
    case ONYX_DTYPE_INT32:
      UNARY_INT(int32_t, uint32_t, n, x, y, op);
      return 1;
    case ONYX_DTYPE_INT64:
      UNARY_INT(int64_t, uint64_t, n, x, y, op);
      return 1;
    default:
      return 0;
  }
}

/* Work for onyx_op_parallel_for: blocks of BLOCK elements. */
#define BLOCK 65536
typedef struct unary_job {
  onyx_dtype dtype;
  unary_op op;
  size_t n;
  const unsigned char *x;
  unsigned char *y;
} unary_job;

static void unary_block(void *arg, size_t i) {
  const unary_job *j = arg;
  size_t size = onyx_dtype_size(j->dtype), begin = i * BLOCK;
  size_t count = j->n - begin < BLOCK ? j->n - begin : BLOCK;
  unary_span(j->dtype, j->op, count, j->x + begin * size, j->y + begin * size);
}

static onyx_status compute_unary(onyx_op_context *ctx) {
  onyx_tensor x, y;
  onyx_op_input(ctx, 0, &x);
  onyx_op_output(ctx, 0, &y);
  unary_job j = {x.dtype, (unary_op)(intptr_t)onyx_op_user_data(ctx),
                 y.size / onyx_dtype_size(y.dtype), x.data, y.data};
  if (j.n > 0 && !unary_span(j.dtype, j.op, 0, x.data, y.data))
    return onyx_op_fail(ctx, ONYX_TYPE, "type %s is not implemented", onyx_dtype_name(x.dtype));
  onyx_op_parallel_for(ctx, (j.n + BLOCK - 1) / BLOCK, unary_block, &j);
  return ONYX_OK;
}

static onyx_status compute_identity(onyx_op_context *ctx) {
  onyx_tensor x, y;
  onyx_op_input(ctx, 0, &x);
  onyx_op_output(ctx, 0, &y);
  if (y.size > 0 && x.data != y.data) memmove(y.data, x.data, y.size);
  return ONYX_OK;
}

static onyx_status compute_cast(onyx_op_context *ctx) {
  onyx_tensor x, y;
  onyx_op_input(ctx, 0, &x);
  onyx_op_output(ctx, 0, &y);
  size_t n = y.size / onyx_dtype_size(y.dtype);
  if (x.dtype == y.dtype) return compute_identity(ctx);
  for (size_t i = 0; i < n; i++) {
    if (x.dtype == ONYX_DTYPE_FLOAT) {
      ((onyx__f16 *)y.data)[i] = onyx__f32_to_f16(((const float *)x.data)[i]);
    } else {
      ((float *)y.data)[i] = onyx__f16_to_f32(((const onyx__f16 *)x.data)[i]);
    }
  }
  return ONYX_OK;
}

/* ---- Add and Mul with broadcasting ---- */

typedef enum { OP_ADD, OP_MUL } binary_op;

#define BINARY(T, a, b, op) ((op) == OP_ADD ? (T)((a) + (b)) : (T)((a) * (b)))
/* Integers on their unsigned twin: wrapping, as numpy's. */
#define BINARY_INT(T, U, a, b, op) ((T)BINARY(U, (U)(a), (U)(b), op))

static int binary_elem(onyx_dtype t, binary_op op, const void *a, const void *b, void *y) {
  switch (t) {
#define FLOAT_CASE(D, T)                               \
  case D: {                                            \
    T r = BINARY(T, *(const T *)a, *(const T *)b, op); \
    memcpy(y, &r, sizeof r);                           \
    return 1;                                          \
  }
#define INT_CASE(D, T, U)               \
  case D: {                             \
    T va, vb;                           \
    memcpy(&va, a, sizeof va);          \
    memcpy(&vb, b, sizeof vb);          \
    T r = BINARY_INT(T, U, va, vb, op); \
    memcpy(y, &r, sizeof r);            \
    return 1;                           \
  }
    FLOAT_CASE(ONYX_DTYPE_FLOAT, float)
    FLOAT_CASE(ONYX_DTYPE_DOUBLE, double)
    INT_CASE(ONYX_DTYPE_INT8, int8_t, uint8_t)
    INT_CASE(ONYX_DTYPE_INT16, int16_t, uint16_t)
    INT_CASE(ONYX_DTYPE_INT32, int32_t, uint32_t)
    INT_CASE(ONYX_DTYPE_INT64, int64_t, uint64_t)
    INT_CASE(ONYX_DTYPE_UINT8, uint8_t, uint8_t)
    INT_CASE(ONYX_DTYPE_UINT16, uint16_t, uint16_t)
    INT_CASE(ONYX_DTYPE_UINT32, uint32_t, uint32_t)
    INT_CASE(ONYX_DTYPE_UINT64, uint64_t, uint64_t)
#undef FLOAT_CASE
#undef INT_CASE
    default:
      return 0;
  }
}

/* Element strides of x as seen from an output of rank `rank`: 0 along a
 * broadcast dimension. */
static void broadcast_strides(const onyx_tensor *x, uint32_t rank, const int64_t *out_dims,
                              size_t *strides) {
  size_t s = 1;
  for (uint32_t i = rank; i-- > 0;) {
    uint32_t lead = rank - x->rank;
    int64_t d = i < lead ? 1 : x->dims[i - lead];
    strides[i] = d == 1 && out_dims[i] != 1 ? 0 : s;
    s *= (size_t)d;
  }
}

static onyx_status compute_binary(onyx_op_context *ctx) {
  onyx_tensor a, b, y;
  onyx_op_input(ctx, 0, &a);
  onyx_op_input(ctx, 1, &b);
  onyx_op_output(ctx, 0, &y);
  binary_op op = (binary_op)(intptr_t)onyx_op_user_data(ctx);
  size_t size = onyx_dtype_size(y.dtype), n = y.size / size;
  size_t sa[ONYX_MAX_RANK], sb[ONYX_MAX_RANK], idx[ONYX_MAX_RANK] = {0};
  broadcast_strides(&a, y.rank, y.dims, sa);
  broadcast_strides(&b, y.rank, y.dims, sb);
  size_t ia = 0, ib = 0;
  for (size_t i = 0; i < n; i++) {
    if (!binary_elem(y.dtype, op, (const char *)a.data + ia * size,
                     (const char *)b.data + ib * size, (char *)y.data + i * size))
      return onyx_op_fail(ctx, ONYX_TYPE, "type %s is not implemented", onyx_dtype_name(y.dtype));
    /* The next output index, odometer-style, moving both input offsets. */
    for (uint32_t d = y.rank; d-- > 0;) {
      ia += sa[d];
      ib += sb[d];
      if (++idx[d] < (size_t)y.dims[d]) break;
      ia -= sa[d] * idx[d];
      ib -= sb[d] * idx[d];
      idx[d] = 0;
    }
  }
  return ONYX_OK;
}

/* ---- Sum: any number of inputs, of one shape (no broadcasting) ---- */

/* Every input has input 0's rank and, where both are known, its dims; a
 * -1 (unknown at session creation) takes another input's size. */
static onyx_status infer_sum(onyx_op_context *ctx) {
  onyx_tensor x0, x;
  onyx_op_input(ctx, 0, &x0);
  int ranks_known = 1;
  for (size_t i = 0; i < onyx_op_input_count(ctx); i++) {
    /* Inputs past min_inputs may be omitted by the API's rule; ONNX's Sum
     * has none to omit, so an empty name is the model's error. */
    onyx_op_input(ctx, i, &x);
    if (x.dtype == ONYX_DTYPE_UNDEFINED)
      return onyx_op_fail(ctx, ONYX_ARITY, "input %zu is omitted: Sum adds every input", i);
    ranks_known &= onyx_op_input_rank_known(ctx, i);
  }
  for (size_t i = 1; ranks_known && i < onyx_op_input_count(ctx); i++) {
    onyx_op_input(ctx, i, &x);
    if (x.rank != x0.rank)
      return onyx_op_fail(ctx, ONYX_SHAPE,
                          "input %zu has rank %u, input 0 rank %u: this Sum "
                          "does not broadcast",
                          i, x.rank, x0.rank);
    for (uint32_t d = 0; d < x.rank; d++) {
      if (x0.dims[d] < 0) x0.dims[d] = x.dims[d];
      if (x.dims[d] >= 0 && x.dims[d] != x0.dims[d])
        return onyx_op_fail(ctx, ONYX_SHAPE,
                            "input %zu: dimension %u is %lld, input 0's %lld: "
                            "this Sum does not broadcast",
                            i, d, (long long)x.dims[d], (long long)x0.dims[d]);
    }
  }
  ONYX__TRY_OP(onyx_op_set_output(ctx, 0, x0.dtype, x0.rank, x0.dims));
  /* Every input has one shape: a size no input knows is input 0's. */
  for (uint32_t d = 0; ranks_known && d < x0.rank; d++)
    if (x0.dims[d] < 0) ONYX__TRY_OP(onyx_op_set_output_dim_from(ctx, 0, d, 0, d));
  return ONYX_OK;
}

/* y = x0, then y += xi for each later input, element by element (in place
 * over input 0 when onyx gives its buffer). */
static onyx_status compute_sum(onyx_op_context *ctx) {
  onyx_tensor x, y;
  onyx_op_output(ctx, 0, &y);
  onyx_op_input(ctx, 0, &x);
  size_t size = onyx_dtype_size(y.dtype), n = y.size / size;
  if (y.size > 0 && x.data != y.data) memmove(y.data, x.data, y.size);
  for (size_t i = 1; i < onyx_op_input_count(ctx); i++) {
    onyx_op_input(ctx, i, &x);
    for (size_t e = 0; e < n; e++) {
      char *p = (char *)y.data + e * size;
      if (!binary_elem(y.dtype, OP_ADD, p, (const char *)x.data + e * size, p))
        return onyx_op_fail(ctx, ONYX_TYPE, "type %s is not implemented", onyx_dtype_name(y.dtype));
    }
  }
  return ONYX_OK;
}

/* ---- Split into equal parts along 'axis' (default 0), one per output ---- */

/* The axis, from -rank .. rank-1; -1 (after a message) when out of range. */
static int split_axis(onyx_op_context *ctx, uint32_t rank) {
  onyx_attribute_info a;
  int64_t axis = onyx_op_attribute(ctx, "axis", &a) && a.type == 2 ? a.i : 0;
  if (axis < -(int64_t)rank || axis >= (int64_t)rank) {
    /* ONYX_SHAPE, not ONYX_ATTRIBUTE: with a rank known only at run time
     * the fault shows at a run, in the shape of that run's input. */
    onyx_op_fail(ctx, ONYX_SHAPE, "axis %lld is out of range for an input of rank %u",
                 (long long)axis, rank);
    return -1;
  }
  return (int)(axis < 0 ? axis + rank : axis);
}

static onyx_status infer_split(onyx_op_context *ctx) {
  onyx_tensor x;
  onyx_op_input(ctx, 0, &x);
  if (!onyx_op_input_rank_known(ctx, 0)) { /* any shape will do: infer runs again */
    for (size_t k = 0; k < onyx_op_output_count(ctx); k++)
      if (onyx_op_set_output(ctx, k, x.dtype, 0, NULL) != ONYX_OK) return ONYX_SHAPE;
    return ONYX_OK;
  }
  int axis = split_axis(ctx, x.rank);
  if (axis < 0) return ONYX_SHAPE;
  int64_t parts = (int64_t)onyx_op_output_count(ctx), n = x.dims[axis];
  if (n >= 0 && n % parts != 0)
    return onyx_op_fail(ctx, ONYX_SHAPE,
                        "dimension %d of %lld does not split into %lld equal "
                        "parts",
                        axis, (long long)n, (long long)parts);
  x.dims[axis] = n < 0 ? -1 : n / parts;
  for (size_t k = 0; k < (size_t)parts; k++) {
    if (onyx_op_set_output(ctx, k, x.dtype, x.rank, x.dims) != ONYX_OK) return ONYX_SHAPE;
    for (uint32_t d = 0; d < x.rank; d++)
      if (d != (uint32_t)axis) ONYX__TRY_OP(onyx_op_set_output_dim_from(ctx, k, d, 0, d));
  }
  return ONYX_OK;
}

/* Output k holds rows [k * part, (k + 1) * part) of the axis, for every
 * index of the dims before it. */
static onyx_status compute_split(onyx_op_context *ctx) {
  onyx_tensor x, y;
  onyx_op_input(ctx, 0, &x);
  int axis = split_axis(ctx, x.rank);
  if (axis < 0) return ONYX_SHAPE;
  size_t parts = onyx_op_output_count(ctx), outer = 1, inner = onyx_dtype_size(x.dtype);
  for (int d = 0; d < axis; d++) outer *= (size_t)x.dims[d];
  for (uint32_t d = (uint32_t)axis + 1; d < x.rank; d++) inner *= (size_t)x.dims[d];
  size_t row = (size_t)x.dims[axis] / parts * inner; /* bytes of one part per outer index */
  for (size_t k = 0; k < parts; k++) {
    onyx_op_output(ctx, k, &y);
    if (y.data == NULL || row == 0) continue; /* an omitted output */
    for (size_t o = 0; o < outer; o++)
      memcpy((char *)y.data + o * row, (const char *)x.data + (o * parts + k) * row, row);
  }
  return ONYX_OK;
}

/* ---- Registration ---- */

#define NUMERIC                                                           \
  (ONYX_DTYPE_BIT(ONYX_DTYPE_FLOAT) | ONYX_DTYPE_BIT(ONYX_DTYPE_DOUBLE) | \
   ONYX_DTYPE_BIT(ONYX_DTYPE_INT8) | ONYX_DTYPE_BIT(ONYX_DTYPE_INT16) |   \
   ONYX_DTYPE_BIT(ONYX_DTYPE_INT32) | ONYX_DTYPE_BIT(ONYX_DTYPE_INT64))
#define UNSIGNED                                                          \
  (ONYX_DTYPE_BIT(ONYX_DTYPE_UINT8) | ONYX_DTYPE_BIT(ONYX_DTYPE_UINT16) | \
   ONYX_DTYPE_BIT(ONYX_DTYPE_UINT32) | ONYX_DTYPE_BIT(ONYX_DTYPE_UINT64))
#define HALVES (ONYX_DTYPE_BIT(ONYX_DTYPE_FLOAT) | ONYX_DTYPE_BIT(ONYX_DTYPE_FLOAT16))

static onyx_custom_op op_def(const char *name, uint32_t n_in, uint32_t types,
                             onyx_op_infer_fn infer, onyx_op_compute_fn compute, intptr_t which) {
  onyx_custom_op def;
  memset(&def, 0, sizeof def);
  def.domain = "";
  def.name = name;
  def.since_min = 1;
  def.min_inputs = def.max_inputs = n_in;
  def.min_outputs = def.max_outputs = 1;
  def.input_types[0] = types;
  def.n_input_types = 1;
  def.same_input_types = 1;
  /* Element-wise ops of one type can write over their input; Add and Mul
   * may read a broadcast element again, Cast changes the element size. */
  def.allows_in_place = infer == infer_like_input;
  def.infer = infer;
  def.compute = compute;
  def.user_data = (void *)which;
  return def;
}

static onyx_status add_op(onyx_op_registry *reg, const char *name, uint32_t n_in, uint32_t types,
                          onyx_op_infer_fn infer, onyx_op_compute_fn compute, intptr_t which,
                          onyx_error *err) {
  onyx_custom_op def = op_def(name, n_in, types, infer, compute, which);
  return onyx_op_registry_add(reg, &def, err);
}

/* The ops whose outputs are as large as their inputs: all but Add and Mul.
 * The fuzz target registers only these, so that no mutated model makes it
 * broadcast two large inputs into a huge output; Sum (any number of
 * inputs, in place) and Split (any number of outputs) take its mutants
 * through onyx's handling of those. */
onyx_status testops_register_elementwise(onyx_op_registry *reg, onyx_error *err);

onyx_status testops_register_elementwise(onyx_op_registry *reg, onyx_error *err) {
  onyx_status st = add_op(reg, "Abs", 1, NUMERIC, infer_like_input, compute_unary, OP_ABS, err);
  if (st == ONYX_OK)
    st = add_op(reg, "Neg", 1, NUMERIC, infer_like_input, compute_unary, OP_NEG, err);
  if (st == ONYX_OK)
    st = add_op(reg, "Relu", 1, NUMERIC, infer_like_input, compute_unary, OP_RELU, err);
  if (st == ONYX_OK)
    st = add_op(reg, "Identity", 1, ONYX_DTYPES_ALL, infer_like_input, compute_identity, 0, err);
  if (st == ONYX_OK) st = add_op(reg, "Cast", 1, HALVES, infer_cast, compute_cast, 0, err);
  if (st == ONYX_OK) {
    onyx_custom_op def = op_def("Sum", 1, NUMERIC | UNSIGNED, infer_sum, compute_sum, 0);
    def.since_min = 6; /* Sum-6 and later; this one does not broadcast (Sum-8 does) */
    def.max_inputs = ONYX_OP_VARIADIC;
    def.allows_in_place = 1;
    st = onyx_op_registry_add(reg, &def, err);
  }
  if (st == ONYX_OK) {
    onyx_custom_op def = op_def("Split", 1, ONYX_DTYPES_ALL, infer_split, compute_split, 0);
    def.since_min = 13; /* no 'split' input (equal parts); opset 18 adds num_outputs */
    def.since_max = 17;
    def.max_outputs = ONYX_OP_VARIADIC;
    st = onyx_op_registry_add(reg, &def, err);
  }
  return st;
}

ONYX_OP_LIBRARY_EXPORT onyx_status onyx_register_ops(onyx_op_registry *reg, onyx_error *err);

onyx_status onyx_register_ops(onyx_op_registry *reg, onyx_error *err) {
  onyx_status st = testops_register_elementwise(reg, err);
  if (st == ONYX_OK)
    st = add_op(reg, "Add", 2, NUMERIC | UNSIGNED, infer_broadcast, compute_binary, OP_ADD, err);
  if (st == ONYX_OK)
    st = add_op(reg, "Mul", 2, NUMERIC | UNSIGNED, infer_broadcast, compute_binary, OP_MUL, err);
  return st;
}
