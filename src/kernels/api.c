/* SPDX-License-Identifier: MIT */
/*
 * The public kernel API (onyx_ceil, onyx_floor, onyx_sign, onyx_clip): the
 * element-wise kernels on the caller's buffers, with the argument checks
 * that the kernels themselves do not make.
 */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/format.h"
#include "kernels/kernels.h"

/* The ONNX spelling of an op ("Ceil"), made from the one op list. */
static void kop_onnx_name(onyx__kop op, char *buf, size_t cap) {
  static const char *const names[ONYX__KOP_COUNT] = {
#define ONYX_X_(name, lname) lname,
      ONYX__KOP_MAP(ONYX_X_)
#undef ONYX_X_
  };
  onyx__format(buf, cap, "%s", names[op]);
  if (buf[0] >= 'a' && buf[0] <= 'z') buf[0] = (char)(buf[0] - 'a' + 'A');
}

/* The types op has a kernel for. The scalar table is complete, so it is
 * the one place that says which types an op allows. */
static onyx__dmask kop_types(onyx__kop op) {
  onyx__dmask m = 0;
  for (int i = 0; i < ONYX__DTYPE_COUNT; i++) {
    if (onyx__kernels_scalar.k[op][i] != NULL) m |= 1u << i;
  }
  return m;
}

/*
 * Runs op's kernel on n elements. op_params is the op's own parameter
 * block, filled by the op's entry point (Clip's bounds), or NULL for an op
 * without parameters; this function adds only what every op shares.
 */
static onyx_status kernel_call(onyx__kop op, onyx_dtype dtype, size_t n, const void *x, void *y,
                               const onyx__kparams *op_params, onyx_error *err) {
  char name[16];
  if (n > 0 && (x == NULL || y == NULL)) {
    kop_onnx_name(op, name, sizeof name);
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "%s: %s is NULL with n = %zu", name,
                      x == NULL ? "x" : "y", n);
  }
  onyx__ukernel kernel = onyx__kernel_get(op, dtype, ONYX_ISA_BEST);
  if (kernel == NULL) {
    /* The name is formatted only here, on the error paths: the success
     * path of a one-element call must cost little more than the kernel. */
    kop_onnx_name(op, name, sizeof name);
    char allowed[256];
    onyx__dmask_format(kop_types(op), allowed, sizeof allowed);
    if (onyx__dtype_known((int)dtype)) {
      return onyx__fail(err, ONYX_TYPE, "%s: type %s is not supported; allowed: %s", name,
                        onyx_dtype_name(dtype), allowed);
    }
    return onyx__fail(err, ONYX_TYPE, "%s: unknown type %d; allowed: %s", name, (int)dtype,
                      allowed);
  }
  if (n == 0) return ONYX_OK;
  /* The op's parameters (zeroes for an op without any, which its kernels
   * never read) and whether the output is large enough to stream. */
  onyx__kparams params;
  if (op_params != NULL) {
    params = *op_params;
  } else {
    memset(&params, 0, sizeof params);
  }
  params.stream = n >= ONYX__STREAM_MIN_BYTES / onyx__dtype_size(dtype);
  kernel(n, x, y, &params);
  return ONYX_OK;
}

onyx_status onyx_ceil(onyx_dtype dtype, size_t n, const void *x, void *y, onyx_error *err) {
  return kernel_call(ONYX__KOP_CEIL, dtype, n, x, y, NULL, err);
}

onyx_status onyx_floor(onyx_dtype dtype, size_t n, const void *x, void *y, onyx_error *err) {
  return kernel_call(ONYX__KOP_FLOOR, dtype, n, x, y, NULL, err);
}

onyx_status onyx_sign(onyx_dtype dtype, size_t n, const void *x, void *y, onyx_error *err) {
  return kernel_call(ONYX__KOP_SIGN, dtype, n, x, y, NULL, err);
}

onyx_status onyx_clip(onyx_dtype dtype, size_t n, const void *x, void *y, const void *lo,
                      const void *hi, onyx_error *err) {
  /* Clip's parameter block: its bounds, in the kernel's computing type
   * (zeroes for a type without a kernel, which kernel_call reports). */
  onyx__kparams params;
  onyx__clip_params(dtype, lo, hi, &params);
  return kernel_call(ONYX__KOP_CLIP, dtype, n, x, y, &params, err);
}
