/* SPDX-License-Identifier: MIT */
/*
 * The build configuration (docs/build-config.md). A full build, the
 * default, has every op, version, type, kernel and feature. A reduced build
 * (cmake -DONYX_BUILD_CONFIG=FILE) compiles with ONYX_BUILD_CONFIG_REDUCED
 * and the header cmake/buildconfig.cmake generated from FILE,
 * onyx_build_config.h, which defines, for what the file selects:
 *
 *   ONYX_WITH_OP_<Op>               the op (ONNX name: ONYX_WITH_OP_Ceil)
 *   ONYX_BUILD_CONFIG_OPSETS(X)     X(<Op>, opset) per listed opset: the op
 *                                   versions in force at those opsets
 *   ONYX_TYPES_<Op>                 the op's element types, an onyx__dmask
 *   ONYX_WITH_KERNEL_<KOP>_<TYPE>   a kernel table entry (CEIL, FLOAT), or
 *   ONYX_WITH_KERNEL_<KOP>_ALL      every type of a kernel op
 *   ONYX_OMIT_FILES, ONYX_OMIT_THREADS, ONYX_OMIT_CUSTOM_OPS,
 *   ONYX_OMIT_FUSION, ONYX_OMIT_MESSAGES, ONYX_OMIT_METADATA
 *   ONYX_ATTR_TYPES                 the attribute types the kept op versions
 *                                   take (ONYX__OP_ATTR_TYPES below)
 *   ONYX_BUILD_CONFIG_NAME          the file's name, for messages
 *
 * The tables (the op registry, the kernel tables) select from these at one
 * point each, with ONYX__WITH below: a reduced build is a subset of the same
 * tables. What a build leaves out is refused when a session is created
 * (src/config/config.c), never a link error or a wrong result.
 */
#ifndef ONYX_CONFIG_CONFIG_H
#define ONYX_CONFIG_CONFIG_H

#include <stdbool.h>

#include "core/dtype.h"

#ifdef ONYX_BUILD_CONFIG_REDUCED
#include "onyx_build_config.h"
#endif

/* Token pasting after expansion. */
#define ONYX__CAT_(a, b) a##b
#define ONYX__CAT(a, b)  ONYX__CAT_(a, b)

/*
 * ONYX__WITH(MACRO): 1 when MACRO is defined as 1, else 0, as a token the
 * preprocessor can paste (the trick Linux's IS_ENABLED uses), so that a
 * table entry can depend on it inside an X-macro. In a full build every
 * selection is 1.
 */
#define ONYX__PROBE_1                  0,
#define ONYX__SECOND_(ignored, v, ...) v
#define ONYX__SECOND(...)              ONYX__SECOND_(__VA_ARGS__)
#define ONYX__ENABLED_(probe)          ONYX__SECOND(probe 1, 0, 0)
#define ONYX__ENABLED(x)               ONYX__ENABLED_(ONYX__CAT(ONYX__PROBE_, x))
#ifdef ONYX_BUILD_CONFIG_REDUCED
#define ONYX__WITH(x) ONYX__ENABLED(x)
#else
#define ONYX__WITH(x) 1
#endif

/* ONYX__IF(c)(a, b): a when c is 1, b when 0. ONYX__OR(c, d) of two. */
#define ONYX__IF_1(a, b) a
#define ONYX__IF_0(a, b) b
#define ONYX__IF(c)      ONYX__CAT(ONYX__IF_, c)
#define ONYX__OR(c, d)   ONYX__IF(c)(1, d)

/*
 * A kernel table entry: fn when the build has kernel op KOP (CEIL) for
 * type NAME (FLOAT), else NULL. The dead reference keeps a static kernel
 * "used" for the compiler, which then drops it.
 */
#define ONYX__KSEL(KOP, NAME, fn)                                \
  ONYX__IF(ONYX__OR(ONYX__WITH(ONYX_WITH_KERNEL_##KOP##_##NAME), \
                    ONYX__WITH(ONYX_WITH_KERNEL_##KOP##_ALL)))   \
  (fn, (0 ? (fn) : NULL))

/* An op registry entry, the tokens given, when the build has the op. */
#define ONYX__KEEP_1(...) __VA_ARGS__
#define ONYX__KEEP_0(...)
#define ONYX__OP_ENTRY(name, ...) \
  ONYX__CAT(ONYX__KEEP_, ONYX__WITH(ONYX_WITH_OP_##name))(__VA_ARGS__)

/*
 * The attribute types each version of each op takes: an entry per version
 * of the op's version table (src/ops/), X(Op, since, mask), the mask a bit
 * per onyx__attr_type (model/model.h) of ONYX__A_ below. cmake/buildconfig.cmake
 * reads this table to give a reduced build ONYX_ATTR_TYPES, the types of
 * the op versions the configuration keeps; the model reader decodes the
 * values of those types only (the others are validated as unread fields,
 * and session creation refuses the node, as any build would: none of its
 * op versions takes such an attribute). tests/buildconfig/check_attr_table.c
 * checks the table against the op registry, so that it cannot drift.
 */
#define ONYX__A_FLOAT         (1u << 1)
#define ONYX__A_INT           (1u << 2)
#define ONYX__A_STRING        (1u << 3)
#define ONYX__A_TENSOR        (1u << 4)
#define ONYX__A_FLOATS        (1u << 6)
#define ONYX__A_INTS          (1u << 7)
#define ONYX__A_STRINGS       (1u << 8)
#define ONYX__A_SPARSE_TENSOR (1u << 11)
#define ONYX__A_CONSTANT_VALUE                                                             \
  (ONYX__A_TENSOR | ONYX__A_SPARSE_TENSOR | ONYX__A_FLOAT | ONYX__A_FLOATS | ONYX__A_INT | \
   ONYX__A_INTS | ONYX__A_STRING | ONYX__A_STRINGS)
// clang-format off
#define ONYX__OP_ATTR_TYPES(X)                            \
  X(Ceil, 1, ONYX__A_INTS)                                \
  X(Ceil, 6, 0)                                           \
  X(Ceil, 13, 0)                                          \
  X(Clip, 1, ONYX__A_FLOAT | ONYX__A_INTS)                \
  X(Clip, 6, ONYX__A_FLOAT)                               \
  X(Clip, 11, 0)                                          \
  X(Clip, 12, 0)                                          \
  X(Clip, 13, 0)                                          \
  X(Constant, 1, ONYX__A_TENSOR)                          \
  X(Constant, 9, ONYX__A_TENSOR)                          \
  X(Constant, 11, ONYX__A_TENSOR | ONYX__A_SPARSE_TENSOR) \
  X(Constant, 12, ONYX__A_CONSTANT_VALUE)                 \
  X(Constant, 13, ONYX__A_CONSTANT_VALUE)                 \
  X(Constant, 19, ONYX__A_CONSTANT_VALUE)                 \
  X(Constant, 21, ONYX__A_CONSTANT_VALUE)                 \
  X(Constant, 23, ONYX__A_CONSTANT_VALUE)                 \
  X(Constant, 24, ONYX__A_CONSTANT_VALUE)                 \
  X(Floor, 1, ONYX__A_INTS)                               \
  X(Floor, 6, 0)                                          \
  X(Floor, 13, 0)                                         \
  X(Sign, 9, 0)                                           \
  X(Sign, 13, 0)
// clang-format on

/* Whether the build decodes attribute values of onyx__attr_type t: every
 * type in a full build, and in a reduced one that keeps custom operators
 * (a registered op may take any attribute). */
#ifndef ONYX_ATTR_TYPES
#define ONYX_ATTR_TYPES 0xffffffffu
#endif
#define ONYX__KEEPS_ATTR(t) ((((unsigned)ONYX_ATTR_TYPES) >> (unsigned)(t)) & 1u)

/* True in a reduced build. */
#ifdef ONYX_BUILD_CONFIG_REDUCED
#define ONYX__REDUCED 1
#else
#define ONYX__REDUCED 0
#endif

typedef struct onyx__op onyx__op;
typedef struct onyx__op_version onyx__op_version;

/*
 * Session creation's checks of what a reduced build left out, as a
 * status and a message saying so; ONYX_OK in a full build.
 *   - the op version that serves node n: ONYX_UNSUPPORTED_OP;
 *   - an element type t of the op's: ONYX_TYPE.
 * op_type names the op; op and ver are what the registry resolved.
 */
onyx_status onyx__config_check_op(const char *op_type, const onyx__op *op,
                                  const onyx__op_version *ver, size_t n, const char *node_name,
                                  onyx_error *err);
onyx_status onyx__config_check_type(const char *op_type, onyx_dtype t, size_t n,
                                    const char *node_name, onyx_error *err);

/*
 * The element types a tensor may have (ONYX_TENSOR_TYPES: those of every
 * kept op), for the tensor decoder: every type in a full build. A reduced
 * build refuses a tensor of another type when it decodes it, with
 * onyx__config_check_tensor_type's ONYX_TYPE: no op of the build could
 * take it.
 */
#ifndef ONYX_TENSOR_TYPES
#define ONYX_TENSOR_TYPES ONYX__DM_ALL
#endif
#define ONYX__KEEPS_TENSOR(mask) ((ONYX_TENSOR_TYPES & (mask)) != 0)
onyx_status onyx__config_check_tensor_type(onyx_dtype t, onyx_error *err);

/* The element types the build keeps for op_type: every type in a full build. */
onyx__dmask onyx__config_types(const char *op_type);

#endif
