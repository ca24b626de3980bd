/* SPDX-License-Identifier: MIT */
/* The XNNPACK side of onyx_bench; see xnn_bench.h. */
#include "xnn_bench.h"

#include <stdio.h>
#include <string.h>

#ifdef ONYX_BENCH_XNNPACK

#include <pthreadpool.h>
#include <xnnpack.h>

static const struct {
  const char *op, *dtype;
} NAMES[] = {{"Ceil", "float"}, {"Floor", "float"}, {"Clip", "float"}, {"Clip", "float16"}};

int xnn_bench_available(char *why, size_t why_size) {
  static int state; /* 0: not tried, 1: ready, -1: failed */
  static enum xnn_status status;
  if (state == 0) {
    status = xnn_initialize(NULL);
    state = status == xnn_status_success ? 1 : -1;
  }
  if (state < 0) snprintf(why, why_size, "xnn_initialize failed (status %d)", (int)status);
  return state > 0;
}

xnn_kind xnn_kind_of(const char *op, const char *dtype) {
  for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
    if (!strcmp(op, NAMES[i].op) && !strcmp(dtype, NAMES[i].dtype)) return (xnn_kind)i;
  return XNN_NONE;
}

/* One channel, n rows: XNNPACK treats the whole buffer as one contiguous
 * range and splits it into tiles for the thread pool. */
static enum xnn_status create(xnn_kind kind, float lo, float hi, xnn_operator_t *op) {
  switch (kind) {
    case XNN_CEIL_F32:
      return xnn_create_ceiling_nc_f32(1, 1, 1, 0, op);
    case XNN_FLOOR_F32:
      return xnn_create_floor_nc_f32(1, 1, 1, 0, op);
    case XNN_CLAMP_F32:
      return xnn_create_clamp_nc_f32(1, 1, 1, lo, hi, 0, op);
    case XNN_CLAMP_F16:
      return xnn_create_clamp_nc_f16(1, 1, 1, lo, hi, 0, op);
    case XNN_COPY_X32:
      return xnn_create_copy_nc_x32(1, 1, 1, 0, op);
    default:
      return xnn_status_invalid_parameter;
  }
}

static enum xnn_status setup(const xnn_job *j) {
  xnn_operator_t op = j->op;
  pthreadpool_t pool = j->pool;
  switch (j->kind) {
    case XNN_CEIL_F32:
      return xnn_setup_ceiling_nc_f32(op, j->n, j->x, j->y, pool);
    case XNN_FLOOR_F32:
      return xnn_setup_floor_nc_f32(op, j->n, j->x, j->y, pool);
    case XNN_CLAMP_F32:
      return xnn_setup_clamp_nc_f32(op, j->n, j->x, j->y, pool);
    case XNN_CLAMP_F16:
      return xnn_setup_clamp_nc_f16(op, j->n, j->x, j->y, pool);
    case XNN_COPY_X32:
      return xnn_setup_copy_nc_x32(op, j->n, j->x, j->y, pool);
    default:
      return xnn_status_invalid_parameter;
  }
}

int xnn_job_open(xnn_job *j, xnn_kind kind, size_t n, const void *x, void *y, uint32_t threads,
                 float lo, float hi, char *why, size_t why_size) {
  memset(j, 0, sizeof *j);
  if (!xnn_bench_available(why, why_size)) return 0;
  j->kind = kind;
  j->n = n;
  j->x = x;
  j->y = y;
  if (threads > 1 && !(j->pool = pthreadpool_create(threads))) {
    snprintf(why, why_size, "pthreadpool_create(%u) failed", threads);
    return 0;
  }
  xnn_operator_t op = NULL;
  enum xnn_status st = create(kind, lo, hi, &op);
  j->op = op;
  if (st == xnn_status_success) st = setup(j);
  if (st != xnn_status_success) {
    snprintf(why, why_size, "XNNPACK operator %d: status %d%s", (int)kind, (int)st,
             st == xnn_status_unsupported_hardware ? " (unsupported hardware)" : "");
    xnn_job_close(j);
    return 0;
  }
  return 1;
}

void xnn_job_run(void *job) {
  xnn_job *j = job;
  if (xnn_run_operator(j->op, j->pool) != xnn_status_success) j->failed = 1;
}

void xnn_job_setup_run(void *job) {
  xnn_job *j = job;
  if (setup(j) != xnn_status_success || xnn_run_operator(j->op, j->pool) != xnn_status_success)
    j->failed = 1;
}

void xnn_job_close(xnn_job *j) {
  if (j->op) xnn_delete_operator(j->op);
  if (j->pool) pthreadpool_destroy(j->pool);
  memset(j, 0, sizeof *j);
}

#else /* built without XNNPACK */

int xnn_bench_available(char *why, size_t why_size) {
  snprintf(why, why_size, "onyx_bench was built without XNNPACK (libxnnpack-dev not found)");
  return 0;
}
xnn_kind xnn_kind_of(const char *op, const char *dtype) {
  (void)op;
  (void)dtype;
  return XNN_NONE;
}
int xnn_job_open(xnn_job *j, xnn_kind kind, size_t n, const void *x, void *y, uint32_t threads,
                 float lo, float hi, char *why, size_t why_size) {
  (void)kind, (void)n, (void)x, (void)y, (void)threads, (void)lo, (void)hi;
  memset(j, 0, sizeof *j);
  return xnn_bench_available(why, why_size);
}
void xnn_job_run(void *job) { ((xnn_job *)job)->failed = 1; }
void xnn_job_setup_run(void *job) { ((xnn_job *)job)->failed = 1; }
void xnn_job_close(xnn_job *j) { memset(j, 0, sizeof *j); }

#endif
