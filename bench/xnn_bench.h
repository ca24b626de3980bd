/* SPDX-License-Identifier: MIT */
/*
 * The XNNPACK side of onyx_bench: XNNPACK's own operators on the same
 * buffers, in the same process, for the (op, type) pairs it has. Built only
 * where CMake finds XNNPACK (Debian's libxnnpack-dev, with pthreadpool and
 * cpuinfo); elsewhere xnn_bench_available() says why not and every other
 * call fails softly, so that onyx_bench runs without it.
 */
#ifndef ONYX_BENCH_XNN_BENCH_H
#define ONYX_BENCH_XNN_BENCH_H

#include <stddef.h>
#include <stdint.h>

/* What XNNPACK has of the benchmark's (op, type) pairs, and its copy. */
typedef enum xnn_kind {
  XNN_NONE = -1,
  XNN_CEIL_F32,  /* ceiling_nc_f32 */
  XNN_FLOOR_F32, /* floor_nc_f32 */
  XNN_CLAMP_F32, /* clamp_nc_f32 */
  XNN_CLAMP_F16, /* clamp_nc_f16 */
  XNN_COPY_X32   /* copy_nc_x32, on the same bytes as 32-bit words */
} xnn_kind;

/* One operator set up on caller-owned buffers; see xnn_job_open. */
typedef struct xnn_job {
  void *op;   /* xnn_operator_t */
  void *pool; /* pthreadpool_t; NULL for one thread */
  xnn_kind kind;
  size_t n; /* elements (32-bit words for the copy) */
  const void *x;
  void *y;
  int failed;
} xnn_job;

/* 1 if XNNPACK is built in and initialises; else 0 and why. Once. */
int xnn_bench_available(char *why, size_t why_size);
/* The kind for an ONNX op name and onyx type name, or XNN_NONE. */
xnn_kind xnn_kind_of(const char *op, const char *dtype);
/* Creates the operator for n elements of x -> y on `threads` threads and
 * sets it up once; Clip bounds lo, hi. 0 and why on failure. */
int xnn_job_open(xnn_job *j, xnn_kind kind, size_t n, const void *x, void *y, uint32_t threads,
                 float lo, float hi, char *why, size_t why_size);
/* xnn_run_operator on the set-up operator (a bench_fn). */
void xnn_job_run(void *job);
/* Setup, then xnn_run_operator: the cost of a call that does both. */
void xnn_job_setup_run(void *job);
void xnn_job_close(xnn_job *j);

#endif
