/* SPDX-License-Identifier: MIT */
/* Element types: the per-type facts the library needs, derived from the one
 * list in onyx.h (ONYX_DTYPE_MAP). */
#ifndef ONYX_CORE_DTYPE_H
#define ONYX_CORE_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "onyx.h"

/* How an element type computes: each class has one per-element semantic
 * function per op (see src/kernels/scalar.c). */
typedef enum onyx__dclass {
  ONYX__DCLASS_NONE = 0,
  ONYX__DCLASS_FLOAT, /* float, double: native IEEE arithmetic */
  ONYX__DCLASS_HALF,  /* float16, bfloat16: exactly through float32 */
  ONYX__DCLASS_SINT,  /* int8 .. int64 */
  ONYX__DCLASS_UINT   /* uint8 .. uint64 */
} onyx__dclass;

/* A dense index 0..ONYX__DTYPE_COUNT-1 for tables indexed by type. */
typedef enum onyx__dindex {
#define ONYX_X_(name, value, cname, size) ONYX__DI_##name,
  ONYX_DTYPE_MAP(ONYX_X_)
#undef ONYX_X_
      ONYX__DTYPE_COUNT
} onyx__dindex;

/* The widest element, in bytes: scratch tiles and kernel parameters hold
 * any type in this many bytes per element (checked in dtype.c). */
#define ONYX__MAX_DTYPE_SIZE 8

/* True for a type in ONYX_DTYPE_MAP. */
bool onyx__dtype_known(int dtype);
/* The dense index of a known type, or -1. */
int onyx__dtype_index(onyx_dtype dtype);
/* The type at a dense index. */
onyx_dtype onyx__dtype_at(int index);
onyx__dclass onyx__dtype_class(onyx_dtype dtype);

/* onyx_dtype_size() inlined for the run path: a switch the compiler turns
 * into a table lookup, generated from the same list. */
static inline size_t onyx__dtype_size(onyx_dtype dtype) {
  switch (dtype) {
#define ONYX_X_(name, value, cname, size) \
  case ONYX_DTYPE_##name:                 \
    return size;
    ONYX_DTYPE_MAP(ONYX_X_)
#undef ONYX_X_
    default:
      return 0;
  }
}

/* Bit masks over dense indices, for the allowed-type lists of op versions. */
typedef unsigned onyx__dmask;
#define ONYX__DM(name)  (1u << ONYX__DI_##name)
#define ONYX__DM_FLOATS (ONYX__DM(FLOAT16) | ONYX__DM(FLOAT) | ONYX__DM(DOUBLE))
#define ONYX__DM_INTS                                                                       \
  (ONYX__DM(INT8) | ONYX__DM(INT16) | ONYX__DM(INT32) | ONYX__DM(INT64) | ONYX__DM(UINT8) | \
   ONYX__DM(UINT16) | ONYX__DM(UINT32) | ONYX__DM(UINT64))
#define ONYX__DM_ALL ((1u << ONYX__DTYPE_COUNT) - 1u)

static inline bool onyx__dmask_has(onyx__dmask m, onyx_dtype t) {
  int i = onyx__dtype_index(t);
  return i >= 0 && (m >> i) & 1u;
}

/* The name of any ONNX element type number, including those onyx does not
 * support ("bool"), for messages. */
const char *onyx__onnx_type_name(int64_t type);

/* Writes the type names of a mask, comma separated, into buf. */
void onyx__dmask_format(onyx__dmask m, char *buf, size_t cap);

#endif
