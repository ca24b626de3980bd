/* SPDX-License-Identifier: MIT */
#include "core/dtype.h"

#include "core/format.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* Each type's class. The table below takes it by the type's name, so a type
 * added to ONYX_DTYPE_MAP without a line here does not compile. */
#define CLASS_OF_FLOAT    ONYX__DCLASS_FLOAT
#define CLASS_OF_DOUBLE   ONYX__DCLASS_FLOAT
#define CLASS_OF_FLOAT16  ONYX__DCLASS_HALF
#define CLASS_OF_BFLOAT16 ONYX__DCLASS_HALF
#define CLASS_OF_INT8     ONYX__DCLASS_SINT
#define CLASS_OF_INT16    ONYX__DCLASS_SINT
#define CLASS_OF_INT32    ONYX__DCLASS_SINT
#define CLASS_OF_INT64    ONYX__DCLASS_SINT
#define CLASS_OF_UINT8    ONYX__DCLASS_UINT
#define CLASS_OF_UINT16   ONYX__DCLASS_UINT
#define CLASS_OF_UINT32   ONYX__DCLASS_UINT
#define CLASS_OF_UINT64   ONYX__DCLASS_UINT

static const struct {
  onyx_dtype type;
  const char *name;
  size_t size;
  onyx__dclass dclass;
} dtypes[ONYX__DTYPE_COUNT] = {
#define ONYX_X_(name, value, cname, size) {ONYX_DTYPE_##name, cname, size, CLASS_OF_##name},
    ONYX_DTYPE_MAP(ONYX_X_)
#undef ONYX_X_
};

#define ONYX_X_(name, value, cname, size) \
  static_assert((size) <= ONYX__MAX_DTYPE_SIZE, #name " fits ONYX__MAX_DTYPE_SIZE");
ONYX_DTYPE_MAP(ONYX_X_)
#undef ONYX_X_

/* Type masks are bit sets over dense indices. */
static_assert(ONYX__DTYPE_COUNT <= sizeof(onyx__dmask) * 8, "onyx__dmask has a bit per type");

int onyx__dtype_index(onyx_dtype dtype) {
  switch (dtype) {
#define ONYX_X_(name, value, cname, size) \
  case ONYX_DTYPE_##name:                 \
    return ONYX__DI_##name;
    ONYX_DTYPE_MAP(ONYX_X_)
#undef ONYX_X_
    default:
      return -1;
  }
}

bool onyx__dtype_known(int dtype) { return onyx__dtype_index((onyx_dtype)dtype) >= 0; }

onyx_dtype onyx__dtype_at(int index) {
  return index >= 0 && index < ONYX__DTYPE_COUNT ? dtypes[index].type : ONYX_DTYPE_UNDEFINED;
}

const char *onyx_dtype_name(onyx_dtype dtype) {
  int i = onyx__dtype_index(dtype);
  return i < 0 ? "undefined" : dtypes[i].name;
}

size_t onyx_dtype_size(onyx_dtype dtype) {
  int i = onyx__dtype_index(dtype);
  return i < 0 ? 0 : dtypes[i].size;
}

onyx__dclass onyx__dtype_class(onyx_dtype dtype) {
  int i = onyx__dtype_index(dtype);
  return i < 0 ? ONYX__DCLASS_NONE : dtypes[i].dclass;
}

void onyx__dmask_format(onyx__dmask m, char *buf, size_t cap) {
  size_t used = 0;
  if (cap == 0) return;
  buf[0] = '\0';
  for (int i = 0; i < ONYX__DTYPE_COUNT; i++) {
    if (!((m >> i) & 1u)) continue;
    int w = onyx__format(buf + used, cap - used, "%s%s", used ? ", " : "", dtypes[i].name);
    if (w < 0 || (size_t)w >= cap - used) break;
    used += (size_t)w;
  }
}

const char *onyx__onnx_type_name(int64_t type) {
  /* ONNX element types onyx does not compute, named for error messages. */
  switch (type) {
    case 0:
      return "undefined";
    case 8:
      return "string";
    case 9:
      return "bool";
    case 14:
      return "complex64";
    case 15:
      return "complex128";
    case 17:
      return "float8e4m3fn";
    case 18:
      return "float8e4m3fnuz";
    case 19:
      return "float8e5m2";
    case 20:
      return "float8e5m2fnuz";
    case 21:
      return "uint4";
    case 22:
      return "int4";
    case 23:
      return "float4e2m1";
    case 24:
      return "float8e8m0";
    default:
      return type > 0 && type <= INT32_MAX && onyx__dtype_known((int)type)
                 ? onyx_dtype_name((onyx_dtype)type)
                 : "unknown";
  }
}
