/* SPDX-License-Identifier: MIT */
/**
 * @file onyx.h
 * @brief onyx: a small C11 runtime for ONNX models. This header is the whole
 * public API.
 *
 * The flow is:
 *
 *     onyx_model_load_file()      read and check a model (or _load_memory)
 *     onyx_session_create()       every check and every kernel choice happens here
 *     onyx_session_run()          as many times as wanted
 *     onyx_session_free(), onyx_model_free()
 *
 * **Error handling**: every call that can fail returns an ::onyx_status. When
 * the caller passes a non-NULL ::onyx_error, the same status and a one-line
 * message naming what was wrong (file, node, op, opset, input, dtype) are
 * written into it. The library never prints, never exits and never aborts on
 * bad input. docs/errors.md lists every status, its causes and what to do.
 *
 * **Ownership**: handles returned through an out-pointer belong to the caller,
 * who frees them with the matching _free function. Strings and arrays that a
 * query returns stay valid until the handle they came from is freed.
 */
#ifndef ONYX_H
#define ONYX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Marks the functions the shared library exports; everything else in
 * it is hidden. On Windows, a program that links onyx.dll (through its
 * import library) defines ONYX_DLL before including this header, as the
 * CMake target onyx_shared does for it, so that calls go straight through
 * the DLL's import table; a program that links the static library does not.
 */
#if defined(_WIN32) && defined(ONYX_BUILD_SHARED)
#define ONYX_API __declspec(dllexport)
#elif defined(_WIN32) && defined(ONYX_DLL)
#define ONYX_API __declspec(dllimport)
#elif defined(__GNUC__)
#define ONYX_API __attribute__((visibility("default")))
#else
#define ONYX_API
#endif

/** @brief The major version: incompatible API changes (from 1.0 on). */
#define ONYX_VERSION_MAJOR 0
/** @brief The minor version: additions (and, before 1.0, API changes). */
#define ONYX_VERSION_MINOR 2
/** @brief The patch version: fixes. */
#define ONYX_VERSION_PATCH 0

/** @brief The largest tensor rank onyx accepts; a model with more is an error. */
#define ONYX_MAX_RANK 16

/**
 * @brief The status codes, as one list: X(NAME, value, description).
 *
 * The list exists once, here; the ::onyx_status enum (ONYX_OK,
 * ONYX_INVALID_ARGUMENT, ...), the names returned by onyx_status_name() and
 * the descriptions returned by onyx_status_description() come from it.
 */
#define ONYX_STATUS_MAP(X)                                                                 \
  X(OK, 0, "success")                                                                      \
  X(INVALID_ARGUMENT, 1, "an API argument is invalid (NULL pointer, bad index or option)") \
  X(OUT_OF_MEMORY, 2, "a memory allocation failed")                                        \
  X(IO, 3, "a file could not be opened, read, mapped or written")                          \
  X(PARSE, 4, "the bytes are not a well-formed protobuf message")                          \
  X(IR_VERSION, 5, "the model's ir_version is missing or not supported")                   \
  X(OPSET, 6, "the ai.onnx opset import is missing, duplicated or not supported")          \
  X(UNSUPPORTED_OP, 7, "an operator or domain is not supported")                           \
  X(ARITY, 8, "a node has the wrong number of inputs or outputs")                          \
  X(ATTRIBUTE, 9, "an attribute is unknown, missing or of the wrong type")                 \
  X(UNDEFINED_VALUE, 10, "a node input or graph output is produced by nothing")            \
  X(DUPLICATE_VALUE, 11, "a value has more than one producer")                             \
  X(CYCLE, 12, "the graph has a cycle")                                                    \
  X(TYPE, 13, "an element type is not allowed here")                                       \
  X(SHAPE, 14, "a shape is invalid (negative dim, overflow, or not a scalar)")             \
  X(TENSOR_DATA, 15, "tensor data does not match its type or shape")                       \
  X(EXTERNAL_DATA, 16, "external tensor data is unsafe or out of range")                   \
  X(LIMIT, 17, "a documented limit of onyx was exceeded")                                  \
  X(INPUT_MISSING, 18, "a run input is missing")                                           \
  X(INPUT_TYPE, 19, "a run input has the wrong element type")                              \
  X(INPUT_SHAPE, 20, "a run input has the wrong rank or dimension")                        \
  X(BUFFER_TOO_SMALL, 21, "a caller's output buffer is too small")                         \
  X(INTERNAL, 22, "an internal invariant failed (a bug in onyx)")

/**
 * @brief The result of every call that can fail: ONYX_OK (0) or an error.
 *
 * One enumerator ONYX_NAME = value per entry of ::ONYX_STATUS_MAP;
 * docs/errors.md explains each.
 */
typedef enum onyx_status {
#define ONYX_X_(name, value, desc) ONYX_##name = value,
  ONYX_STATUS_MAP(ONYX_X_)
#undef ONYX_X_
} onyx_status;

/**
 * @brief The element types, as one list: X(NAME, onnx value, name, size).
 *
 * Numbered as ONNX's TensorProto.DataType, so that values read from a model
 * need no translation.
 */
#define ONYX_DTYPE_MAP(X)      \
  X(FLOAT, 1, "float", 4)      \
  X(UINT8, 2, "uint8", 1)      \
  X(INT8, 3, "int8", 1)        \
  X(UINT16, 4, "uint16", 2)    \
  X(INT16, 5, "int16", 2)      \
  X(INT32, 6, "int32", 4)      \
  X(INT64, 7, "int64", 8)      \
  X(FLOAT16, 10, "float16", 2) \
  X(DOUBLE, 11, "double", 8)   \
  X(UINT32, 12, "uint32", 4)   \
  X(UINT64, 13, "uint64", 8)   \
  X(BFLOAT16, 16, "bfloat16", 2)

/**
 * @brief An element type: ONYX_DTYPE_UNDEFINED (0), or one enumerator
 * ONYX_DTYPE_NAME = onnx value per entry of ::ONYX_DTYPE_MAP.
 */
typedef enum onyx_dtype {
  ONYX_DTYPE_UNDEFINED = 0, /**< No type, or one onyx does not know. */
#define ONYX_X_(name, value, cname, size) ONYX_DTYPE_##name = value,
  ONYX_DTYPE_MAP(ONYX_X_)
#undef ONYX_X_
} onyx_dtype;

/**
 * @brief The instruction-set levels, as one list: X(NAME, value, name,
 * architecture, description).
 *
 * The list exists once, here; the ::onyx_isa enum, onyx_isa_name(), the
 * values ONYX_ISA accepts and the levels kernels report come from it. A
 * level names the kernels of one architecture (X86, ARM or WASM) or the
 * portable ones (scalar, ANY); values are names, not an order. Within one
 * architecture the list goes from lowest to highest, and a cap or an
 * ONYX_ISA value lets kernels use the named level and those below it on
 * that architecture: a CPU without the named level runs the best it has
 * under it. Levels of different architectures are not ordered: a level of
 * another architecture than the CPU's allows the portable kernels only, so
 * on an ARM CPU a cap of avx2 means scalar, and on x86-64 a cap of neon
 * means scalar too. WebAssembly has no run-time detection: a build with
 * SIMD128 supports it.
 *
 * Changed from onyx 0.1.0: ONYX_ISA_BEST is 0 (it was 255) and the levels
 * start at 1 (scalar was 0), so zero-initialised ::onyx_session_options
 * run the best kernels; a level of another architecture means scalar (neon
 * on x86-64 meant no cap). A program built against 0.1.0 keeps working
 * with this library (the soname stays libonyx.so.0) and gets the same
 * results: 255 is still taken as no cap, and its other values now name
 * the level below the one it meant, which every level computes bit for
 * bit the same; only the speed can differ.
 */
#define ONYX_ISA_MAP(X)                                                       \
  X(SCALAR, 1, "scalar", ANY, "portable C only")                              \
  X(SSE41, 2, "sse41", X86, "x86 with SSE4.1")                                \
  X(AVX2, 3, "avx2", X86, "x86 with AVX2, FMA and F16C")                      \
  X(AVX512, 4, "avx512", X86, "x86-64 with AVX-512 F, BW, DQ and VL")         \
  X(NEON, 5, "neon", ARM, "AArch64 Advanced SIMD, or 32-bit ARMv7 with NEON") \
  X(WASM_SIMD128, 6, "wasm-simd128", WASM, "WebAssembly SIMD128, chosen when built")

/**
 * @brief Instruction-set levels, used to cap kernel selection.
 *
 * ONYX_ISA_BEST (0): no cap, the best the CPU and OS support; then one
 * enumerator ONYX_ISA_NAME = value per entry of ::ONYX_ISA_MAP. A value that
 * names no level caps to scalar.
 */
typedef enum onyx_isa {
  ONYX_ISA_BEST = 0,
#define ONYX_X_(name, value, lname, arch, desc) ONYX_ISA_##name = value,
  ONYX_ISA_MAP(ONYX_X_)
#undef ONYX_X_
} onyx_isa;

/**
 * @brief A caller-owned error record.
 *
 * onyx writes the status and a NUL-terminated one-line message into it
 * whenever a call fails; on success it is left as it was. Passing NULL where
 * an onyx_error* is expected is allowed.
 */
typedef struct onyx_error {
  onyx_status status; /**< The status the failed call returned. */
  char message[512];  /**< What went wrong, naming the file, node, input or type. */
} onyx_error;

/**
 * @brief A tensor as the API exchanges it: a view of memory onyx does not
 * own unless a call says otherwise.
 */
typedef struct onyx_tensor {
  onyx_dtype dtype;            /**< The element type. */
  uint32_t rank;               /**< The number of dimensions; 0 is a scalar with one element. */
  int64_t dims[ONYX_MAX_RANK]; /**< The shape: dims[0 .. rank-1]. */
  void *data;                  /**< The elements, densely packed in C order, in the host's byte
                                    order (files are little-endian; onyx converts on big-endian
                                    hosts). */
  size_t size; /**< Bytes available at data; for inputs at least the byte size the shape implies. */
} onyx_tensor;

/** @brief A loaded and checked model (opaque). */
typedef struct onyx_model onyx_model;
/** @brief A session: a model ready to run, with every kernel chosen (opaque). */
typedef struct onyx_session onyx_session;

/* ---- Library information ---------------------------------------------- */

/**
 * @brief The library's version.
 * @return "MAJOR.MINOR.PATCH", as the ONYX_VERSION_ macros. Never fails; the
 *         string is static.
 */
ONYX_API const char *onyx_version(void);

/**
 * @brief The name of a status.
 * @param status Any value.
 * @return "ONYX_TYPE" and so on, or "ONYX_UNKNOWN_STATUS". Static.
 */
ONYX_API const char *onyx_status_name(onyx_status status);

/**
 * @brief A short description of a status.
 * @param status Any value.
 * @return The description from ::ONYX_STATUS_MAP. Static.
 */
ONYX_API const char *onyx_status_description(onyx_status status);

/**
 * @brief The name of an element type.
 * @param dtype Any value.
 * @return "float16" and so on, or "undefined". Static.
 */
ONYX_API const char *onyx_dtype_name(onyx_dtype dtype);

/**
 * @brief The size in bytes of one element.
 * @param dtype Any value.
 * @return The size, or 0 for a type onyx does not know.
 */
ONYX_API size_t onyx_dtype_size(onyx_dtype dtype);

/**
 * @brief The newest ai.onnx opset onyx supports.
 * @return The opset version.
 */
ONYX_API int64_t onyx_max_opset(void);

/**
 * @brief The ISA level kernels will use with no cap.
 *
 * Detected once per process from the CPU's features (x86: CPUID and the
 * OS's saved-register state; ARM: the architecture, and on 32-bit ARM the
 * kernel's HWCAP) and the kernels this build has, then lowered by the
 * environment variable ONYX_ISA (a name of ::ONYX_ISA_MAP; a name of
 * another architecture means scalar, one that is no level is ignored) if
 * set. Equal to onyx_isa_capped(ONYX_ISA_BEST).
 * @return The level, never ONYX_ISA_BEST.
 */
ONYX_API onyx_isa onyx_isa_detected(void);

/**
 * @brief The best ISA level kernels will use under a cap.
 * @param cap A level, or ONYX_ISA_BEST for none.
 * @return The highest level at most cap (on cap's architecture, see
 *         ::ONYX_ISA_MAP) that this CPU and build have; ONYX_ISA_SCALAR
 *         for a cap of another architecture or a value that is no level.
 */
ONYX_API onyx_isa onyx_isa_capped(onyx_isa cap);

/**
 * @brief The name of an ISA level.
 * @param isa A level.
 * @return "avx2" and so on; "best" for ONYX_ISA_BEST, "unknown" for a value
 *         that is no level. Static.
 */
ONYX_API const char *onyx_isa_name(onyx_isa isa);

/**
 * @brief Frees memory that onyx allocated for the caller: output buffers of
 * onyx_session_run(), tensors and names of onyx_tensor_decode(), bytes of
 * onyx_tensor_encode().
 * @param ptr The memory, or NULL (a no-op).
 */
ONYX_API void onyx_free(void *ptr);

/* ---- Helpers: half floats, the built-in operators ---------------------- */

/**
 * @brief A float16 value (its IEEE 754 binary16 bits) as a float.
 *
 * Exact, NaN payloads included. One exception is the calling convention's:
 * 32-bit x86 returns a float on the x87 stack, which sets the quiet bit of
 * a signalling NaN, so there a signalling NaN comes back quiet, its payload
 * otherwise kept. Tensors never pass through these functions.
 * @param bits The float16 bits, as a float16 tensor stores them.
 * @return The value.
 */
ONYX_API float onyx_f16_to_float(uint16_t bits);

/**
 * @brief A float rounded to float16, to nearest even.
 *
 * Too large a value becomes an infinity; a NaN stays a NaN, with the top of
 * its payload and the quiet bit set, as onyx's kernels convert.
 * @param value Any float.
 * @return The float16 bits.
 */
ONYX_API uint16_t onyx_float_to_f16(float value);

/**
 * @brief A bfloat16 value (the top 16 bits of a float) as a float.
 *
 * Exact, but for a signalling NaN on 32-bit x86 (see onyx_f16_to_float()).
 * @param bits The bfloat16 bits.
 * @return The value.
 */
ONYX_API float onyx_bf16_to_float(uint16_t bits);

/**
 * @brief A float rounded to bfloat16, to nearest even; a NaN stays a
 * (quiet) NaN.
 * @param value Any float.
 * @return The bfloat16 bits.
 */
ONYX_API uint16_t onyx_float_to_bf16(float value);

/**
 * @brief The number of ai.onnx operators onyx runs with its own kernels.
 * @return The count.
 */
ONYX_API size_t onyx_op_builtin_count(void);

/**
 * @brief The name of one of onyx's own ai.onnx operators.
 * @param index From 0 to onyx_op_builtin_count() - 1, in the order
 *              messages list them.
 * @return The ONNX name ("Ceil" and so on), or NULL past the end. Static.
 */
ONYX_API const char *onyx_op_builtin_name(size_t index);

/* ---- Models ------------------------------------------------------------ */

/**
 * @brief Loads and checks the ONNX model at path.
 *
 * The file is memory-mapped read-only while it is parsed and its structure
 * checked (wire format, ir_version, opset imports, tensor data, external
 * data), then unmapped. Tensor payloads of 64 KiB or more, in the model
 * file or in external data, are not read here but when a session first
 * needs them (pread, into memory the model owns until onyx_model_free()):
 * at its first onyx_session_run(), or at onyx_session_create() for a
 * session with an arena or one whose registered operator has such a
 * constant input. Each file is first checked to be still the one loaded
 * (device, inode, size, modification time): a file truncated or replaced
 * after load therefore makes that run or creation fail with ONYX_IO
 * naming it; it never faults, and a session never computes
 * with weights other than those loaded. The model keeps the file open
 * while a payload in it is unread. Smaller payloads are copied here.
 * @param path The model file; external data files are found relative to its
 *             folder.
 * @param out  Receives a new model the caller frees with onyx_model_free(),
 *             or NULL on failure.
 * @param err  Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT, ONYX_IO, ONYX_OUT_OF_MEMORY,
 *         ONYX_PARSE, ONYX_IR_VERSION, ONYX_OPSET, ONYX_TENSOR_DATA,
 *         ONYX_SHAPE, ONYX_TYPE, ONYX_EXTERNAL_DATA, ONYX_LIMIT.
 */
ONYX_API onyx_status onyx_model_load_file(const char *path, onyx_model **out, onyx_error *err);

/**
 * @brief Like onyx_model_load_file(), keeping the model file mapped for the
 * model's life so that its tensor payloads are used in place (zero-copy,
 * at any alignment) instead of read on the first run.
 *
 * Opt in only when the file cannot change while the model lives: if it is
 * truncated, a run that reads a lost page kills the process with SIGBUS,
 * and if it is written to, runs compute with the new bytes. External data
 * is read on the first run as with onyx_model_load_file().
 * @param path The model file.
 * @param out  Receives a new model the caller frees with onyx_model_free(),
 *             which unmaps the file, or NULL on failure.
 * @param err  Receives the status and message on failure; may be NULL.
 * @return As onyx_model_load_file().
 */
ONYX_API onyx_status onyx_model_load_file_mapped(const char *path, onyx_model **out,
                                                 onyx_error *err);

/**
 * @brief Like onyx_model_load_file(), on bytes in memory.
 *
 * onyx does not copy the bytes: they must stay valid and unchanged until
 * onyx_model_free(). Tensor payloads are used where they lie, at any
 * alignment (only payloads under 64 KiB that are not aligned to their
 * element size are copied). A model loaded from memory may not use
 * external data (ONYX_EXTERNAL_DATA), since it has no folder.
 * @param data The serialized ModelProto.
 * @param size Its length in bytes.
 * @param out  Receives a new model, or NULL on failure.
 * @param err  Receives the status and message on failure; may be NULL.
 * @return As onyx_model_load_file(), without ONYX_IO.
 */
ONYX_API onyx_status onyx_model_load_memory(const void *data, size_t size, onyx_model **out,
                                            onyx_error *err);

/**
 * @brief Frees a model. Sessions created from it must be freed first.
 * @param model The model, or NULL (a no-op).
 */
ONYX_API void onyx_model_free(onyx_model *model);

/**
 * @brief The model's ir_version.
 * @param model A loaded model.
 * @return The IR version.
 */
ONYX_API int64_t onyx_model_ir_version(const onyx_model *model);

/**
 * @brief The number of opset imports of the model.
 * @param model A loaded model.
 * @return The count.
 */
ONYX_API size_t onyx_model_opset_count(const onyx_model *model);
/**
 * @brief The index-th opset import.
 * @param model   A loaded model.
 * @param index   From 0 to onyx_model_opset_count() - 1.
 * @param domain  Receives the domain ("" is ai.onnx); valid until
 *                onyx_model_free().
 * @param version Receives the opset version.
 * @param err     Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT for a bad index or NULL pointer.
 */
ONYX_API onyx_status onyx_model_opset(const onyx_model *model, size_t index, const char **domain,
                                      int64_t *version, onyx_error *err);

/**
 * @brief The number of nodes in the model's graph.
 * @param model A loaded model.
 * @return The count.
 */
ONYX_API size_t onyx_model_node_count(const onyx_model *model);
/**
 * @brief A node as onyx_model_node() describes it. Strings stay valid until
 * onyx_model_free().
 */
typedef struct onyx_node_info {
  const char *op_type;        /**< The operator ("Clip"). */
  const char *domain;         /**< The operator's domain ("" is ai.onnx). */
  const char *name;           /**< The node's name; may be "". */
  size_t input_count;         /**< The number of entries in inputs. */
  const char *const *inputs;  /**< Input value names; "" is an omitted optional input. */
  size_t output_count;        /**< The number of entries in outputs. */
  const char *const *outputs; /**< Output value names. */
} onyx_node_info;
/**
 * @brief Describes the index-th node of the graph, in model order.
 * @param model A loaded model.
 * @param index From 0 to onyx_model_node_count() - 1.
 * @param out   Receives the node's op type, domain, name, inputs and outputs.
 * @param err   Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT for a bad index or NULL pointer.
 */
ONYX_API onyx_status onyx_model_node(const onyx_model *model, size_t index, onyx_node_info *out,
                                     onyx_error *err);

/**
 * @brief Whether onyx can serve the index-th node on its own: its domain,
 * op and version at the model's ai.onnx opset, its number of inputs and
 * outputs, and its attributes. What depends on the rest of the graph
 * (element types, shapes, names) is checked by onyx_session_create(),
 * which may still refuse a model all of whose nodes pass.
 * @param model A loaded model.
 * @param index From 0 to onyx_model_node_count() - 1.
 * @param err   Receives the status and message when the node cannot be
 *              served; may be NULL.
 * @return ONYX_OK; ONYX_UNSUPPORTED_OP, ONYX_OPSET, ONYX_ARITY or
 *         ONYX_ATTRIBUTE with the same message session creation gives;
 *         ONYX_INVALID_ARGUMENT for a NULL model or a bad index.
 */
ONYX_API onyx_status onyx_model_node_check(const onyx_model *model, size_t index, onyx_error *err);

/**
 * @brief The model's descriptive fields, as onyx_model_metadata() gives
 * them. Every string belongs to the model and stays valid until
 * onyx_model_free(); a field the model omits is "" (model_version 0). A
 * value holding a NUL byte reads, as a C string, up to the NUL.
 */
typedef struct onyx_model_meta {
  const char *producer_name;          /**< ModelProto.producer_name ("pytorch"). */
  const char *producer_version;       /**< ModelProto.producer_version. */
  const char *domain;                 /**< ModelProto.domain (the model's namespace). */
  int64_t model_version;              /**< ModelProto.model_version. */
  const char *doc_string;             /**< ModelProto.doc_string. */
  const char *graph_name;             /**< GraphProto.name. */
  size_t metadata_count;              /**< Entries in metadata_props. */
  const char *const *metadata_keys;   /**< metadata_props keys, in model order. */
  const char *const *metadata_values; /**< metadata_props values, in model order. */
} onyx_model_meta;
/**
 * @brief Describes the model: producer, versions, doc string, graph name
 * and metadata_props (a key may appear more than once, as in the file).
 * @param model A loaded model.
 * @param out   Receives the fields; nothing is allocated.
 * @param err   Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT for a NULL pointer.
 */
ONYX_API onyx_status onyx_model_metadata(const onyx_model *model, onyx_model_meta *out,
                                         onyx_error *err);

/**
 * @brief One attribute of a node, as onyx_model_node_attribute() gives it.
 * Pointers stay valid until onyx_model_free(); the fields that the type
 * does not use are 0 or NULL.
 */
typedef struct onyx_attribute_info {
  const char *name;    /**< The attribute's name ("min"). */
  int type;            /**< AttributeProto.AttributeType: 1 FLOAT, 2 INT, 3 STRING, 4 TENSOR,
                            6 FLOATS, 7 INTS; other types (graphs, lists of strings or
                            tensors, ...) carry no value here. */
  float f;             /**< A FLOAT's value. */
  int64_t i;           /**< An INT's value. */
  const char *s;       /**< A STRING's value, read as a C string (up to a NUL it holds). */
  size_t count;        /**< The number of entries of a FLOATS or INTS. */
  const float *floats; /**< A FLOATS' entries. */
  const int64_t *ints; /**< An INTS' entries. */
  int has_tensor;      /**< 1 when tensor holds a TENSOR's value. */
  onyx_tensor tensor;  /**< A TENSOR's type and shape; data (read-only) and size are its
                            bytes, data NULL for an empty tensor or, for a large one,
                            before the model's first session run reads it. */
} onyx_attribute_info;
/**
 * @brief The number of attributes of the node-th node (0 for a bad index).
 * @param model A loaded model.
 * @param node  From 0 to onyx_model_node_count() - 1.
 * @return The count.
 */
ONYX_API size_t onyx_model_node_attribute_count(const onyx_model *model, size_t node);
/**
 * @brief Describes the index-th attribute of the node-th node, in model
 * order (for a Constant its value, for Clip before opset 11 its bounds).
 * @param model A loaded model.
 * @param node  From 0 to onyx_model_node_count() - 1.
 * @param index From 0 to onyx_model_node_attribute_count() - 1.
 * @param out   Receives the attribute; nothing is allocated.
 * @param err   Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT for a bad index or NULL pointer.
 */
ONYX_API onyx_status onyx_model_node_attribute(const onyx_model *model, size_t node, size_t index,
                                               onyx_attribute_info *out, onyx_error *err);

/* ---- Sessions ---------------------------------------------------------- */

/**
 * @brief Session options. Fill them with onyx_session_options_init(), or
 * pass NULL for the defaults.
 */
typedef struct onyx_session_options {
  uint32_t threads; /**< Worker threads for large tensors; 0 means the default. */
  /** The highest ISA level kernels may use (see ::ONYX_ISA_MAP). 0
   * (ONYX_ISA_BEST, as in zero-initialised options) is no cap; a value
   * that is no level is ONYX_INVALID_ARGUMENT at onyx_session_create(). */
  onyx_isa isa_cap;
  /** Caller memory for the session, or NULL (the default) for the heap.
   * When set, the session and every run allocate only from these
   * arena_size bytes, never from the heap: the session structures, its
   * plan, the run context, scratch tiles and intermediate values. The
   * memory must stay valid and untouched until onyx_session_free(). Such
   * a session runs on the calling thread (threads is ignored), one run at
   * a time (a run that overlaps another fails with ONYX_INVALID_ARGUMENT),
   * and every output needs a caller's buffer. onyx_session_arena_size()
   * says how much a model needs. A model loaded from a file has its large
   * payloads read when such a session is created, into the model's own
   * memory (see onyx_model_load_file()), so that no run reads them. */
  void *arena;
  size_t arena_size; /**< The bytes at arena. */
  /** Operators registered by the caller (see "Custom operators"), or NULL.
   * The registry must outlive every session created with it. */
  const struct onyx_op_registry *ops;
} onyx_session_options;

/**
 * @brief Fills *opts with the defaults: threads 0, isa_cap ONYX_ISA_BEST (0),
 * no arena, ops NULL.
 * @param opts The options to fill.
 */
ONYX_API void onyx_session_options_init(onyx_session_options *opts);

/**
 * @brief The arena a session of model needs (see
 * onyx_session_options.arena) to be created and run with inputs of the
 * shapes the model declares.
 *
 * The size is measured: a session is made in heap memory and run on
 * zeroed inputs, so this call itself uses the heap, and time of the order
 * of a few runs. It holds for an arena aligned for any type (as malloc()
 * aligns); add alignof(max_align_t) - 1 bytes for one that may not be.
 * With fewer bytes, onyx_session_create() or onyx_session_run() fails
 * with ONYX_OUT_OF_MEMORY, naming the arena.
 * @param model A loaded model.
 * @param opts  Options as for onyx_session_create() (the arena fields are
 *              ignored), or NULL for the defaults.
 * @param size  Receives the size in bytes.
 * @param err   Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT (NULL model or size), ONYX_SHAPE
 *         (an input whose shape the model leaves open: the size depends on
 *         it), ONYX_OUT_OF_MEMORY, or an error of onyx_session_create().
 */
ONYX_API onyx_status onyx_session_arena_size(const onyx_model *model,
                                             const onyx_session_options *opts, size_t *size,
                                             onyx_error *err);

/**
 * @brief Creates a session, ready to run.
 *
 * Resolves each node's operator version from the model's ai.onnx opset,
 * sorts the nodes, checks every value, type, attribute and bound, folds
 * Constant nodes, and chooses every kernel. All model errors surface here or
 * at load, never at run.
 * @param model A loaded model, which must outlive the session.
 * @param opts  Options, or NULL for the defaults.
 * @param out   Receives a new session the caller frees with
 *              onyx_session_free().
 * @param err   Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or an error of loading, or ONYX_INVALID_ARGUMENT (NULL
 *         model or out, or an isa_cap that is no level of ::ONYX_ISA_MAP
 *         nor ONYX_ISA_BEST), ONYX_UNSUPPORTED_OP, ONYX_ARITY,
 *         ONYX_ATTRIBUTE, ONYX_UNDEFINED_VALUE, ONYX_DUPLICATE_VALUE,
 *         ONYX_CYCLE, ONYX_TYPE, ONYX_SHAPE.
 */
ONYX_API onyx_status onyx_session_create(const onyx_model *model, const onyx_session_options *opts,
                                         onyx_session **out, onyx_error *err);

/**
 * @brief Frees a session. No run of it may be in progress.
 * @param session The session, or NULL (a no-op).
 */
ONYX_API void onyx_session_free(onyx_session *session);

/**
 * @brief Describes a session input or output.
 *
 * Inputs are the graph inputs that are not initializers, in graph order;
 * outputs are the graph outputs in order.
 */
typedef struct onyx_value_info {
  const char *name;            /**< The value's name. */
  onyx_dtype dtype;            /**< Its declared element type. */
  int has_shape;               /**< 0 when the model declares no shape: any rank is accepted. */
  uint32_t rank;               /**< The declared rank. */
  int64_t dims[ONYX_MAX_RANK]; /**< Declared sizes; -1 for a symbolic or unknown dimension. */
  const char *dim_names[ONYX_MAX_RANK]; /**< The name of a symbolic dimension, else NULL. */
} onyx_value_info;

/**
 * @brief The number of session inputs (graph inputs without initializers).
 * @param session A session.
 * @return The count.
 */
ONYX_API size_t onyx_session_input_count(const onyx_session *session);
/**
 * @brief The number of session outputs (the graph outputs).
 * @param session A session.
 * @return The count.
 */
ONYX_API size_t onyx_session_output_count(const onyx_session *session);
/**
 * @brief Describes the index-th session input.
 * @param session A session.
 * @param index   From 0 to onyx_session_input_count() - 1.
 * @param out     Receives the description; its strings stay valid until the
 *                session is freed.
 * @param err     Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT for a bad index.
 */
ONYX_API onyx_status onyx_session_input_info(const onyx_session *session, size_t index,
                                             onyx_value_info *out, onyx_error *err);
/**
 * @brief Describes the index-th session output.
 * @param session A session.
 * @param index   From 0 to onyx_session_output_count() - 1.
 * @param out     Receives the description; its strings stay valid until the
 *                session is freed.
 * @param err     Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT for a bad index.
 */
ONYX_API onyx_status onyx_session_output_info(const onyx_session *session, size_t index,
                                              onyx_value_info *out, onyx_error *err);

/**
 * @brief The number of named values of the session's graph: its inputs,
 * initializers and node outputs (onyx_session_value_info()).
 * @param session A session.
 * @return The count; 0 for NULL.
 */
ONYX_API size_t onyx_session_value_count(const onyx_session *session);
/**
 * @brief Describes the index-th named value of the session's graph, as the
 * session knows it from its creation: the type, and the shape where its
 * rank is known, with -1 for a dimension known only at run time.
 *
 * Every value appears once, in no promised order. A graph input is as
 * onyx_session_input_info() describes it, symbolic names included. A
 * computed value's dimension has the name of an input's where it is
 * provably that dimension: through onyx's element-wise operators, and
 * where a registered operator's infer says so (onyx_op_set_output_dim_from());
 * else dim_names[d] is NULL. A value a registered operator computes from
 * an input with an unknown dimension has the shape that operator's infer
 * set (see onyx_op_input()); one computed from an input of unknown rank
 * has has_shape 0, as has a value whose shape comes only at run time.
 * @param session A session.
 * @param index   From 0 to onyx_session_value_count() - 1.
 * @param out     Receives the description; its strings stay valid until the
 *                session is freed.
 * @param err     Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT for a bad index or NULL.
 */
ONYX_API onyx_status onyx_session_value_info(const onyx_session *session, size_t index,
                                             onyx_value_info *out, onyx_error *err);

/**
 * @brief Runs the session once.
 *
 * Input data is read in place, never copied or modified, and must not
 * overlap outputs. For each output, if data is NULL onyx allocates the
 * buffer (free it with onyx_free()); otherwise size must be at least the
 * output's byte size (else ONYX_BUFFER_TOO_SMALL and nothing is written).
 * onyx sets dtype, rank and dims of every output. A caller's buffer keeps
 * its size (its capacity, so the same tensor can be reused for a larger
 * run); a buffer onyx allocates gets size = the bytes written.
 * On failure, buffers onyx allocated in this call are freed again and their
 * data pointers reset to NULL.
 *
 * Concurrency: several threads may call onyx_session_run() on one session
 * at once, each with its own outputs: a run only reads the session (a
 * session with an arena runs one call at a time: see
 * onyx_session_options.arena). Creating
 * and freeing a session must not overlap any run of it.
 * @param session   A session.
 * @param inputs    inputs[i] binds to the i-th session input (by position,
 *                  never by name).
 * @param n_inputs  Must equal onyx_session_input_count().
 * @param outputs   One tensor per session output, filled by the run.
 * @param n_outputs Must equal onyx_session_output_count().
 * @param err       Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT, ONYX_INPUT_MISSING (fewer
 *         inputs, or a NULL data pointer for a non-empty tensor),
 *         ONYX_INPUT_TYPE, ONYX_INPUT_SHAPE (also when a registered
 *         operator's infer refuses the run's shapes), ONYX_BUFFER_TOO_SMALL,
 *         ONYX_OUT_OF_MEMORY, ONYX_LIMIT, or ONYX_IO when a large initializer
 *         cannot be read from its file on the first run (see
 *         onyx_model_load_file()).
 */
ONYX_API onyx_status onyx_session_run(onyx_session *session, const onyx_tensor *inputs,
                                      size_t n_inputs, onyx_tensor *outputs, size_t n_outputs,
                                      onyx_error *err);

/* ---- Profiling: per-node times of a run ------------------------------- */

/**
 * @brief What one node of a run was, and how long the pass that ran it
 * took.
 *
 * onyx runs a chain of element-wise nodes of one shape as one fused pass
 * over cache-sized tiles: such nodes share pass, start_ns and duration_ns,
 * and pass_nodes says how many share them. A node alone in its pass
 * (pass_nodes 1) has its own time.
 */
typedef struct onyx_node_time {
  size_t node;                 /**< The model node index (onyx_model_node()). */
  const char *name;            /**< The node's name, "" if it has none. */
  const char *op_type;         /**< Its operator, e.g. "Ceil". */
  const char *domain;          /**< Its operator's domain, "" for ai.onnx. */
  int registered;              /**< 1: a registered operator ran it; 0: onyx's own kernel. */
  onyx_dtype dtype;            /**< The type of its (first) output. */
  uint32_t rank;               /**< The rank of that output in this run. */
  int64_t dims[ONYX_MAX_RANK]; /**< Its dimensions in this run. */
  uint32_t pass;               /**< The pass that ran it, from 0, in run order. */
  uint32_t pass_nodes;         /**< The nodes that pass ran. */
  uint64_t start_ns;           /**< When the pass began, in ns after the run began. */
  uint64_t duration_ns;        /**< How long the pass took, in ns. */
} onyx_node_time;

/**
 * @brief The caller's record of one run's node times (see
 * onyx_run_options.profile). The strings point into the session's model
 * and stay valid while the model lives.
 */
typedef struct onyx_profile {
  onyx_node_time *nodes; /**< The caller's array of capacity entries. */
  size_t capacity;       /**< onyx_model_node_count() entries always suffice. */
  size_t count;          /**< Set by the run: the nodes it ran, in run order (folded
                          * Constant nodes do not run). Only the first capacity are
                          * written. */
  uint64_t duration_ns;  /**< Set by the run: how long it took. */
} onyx_profile;

/**
 * @brief Options of one run. Fill them with onyx_run_options_init().
 */
typedef struct onyx_run_options {
  /** Receives the run's per-node times, or NULL (the default) for none.
   * Profiling costs two clock reads per pass; it allocates nothing, so an
   * arena session can profile too. */
  onyx_profile *profile;
} onyx_run_options;

/**
 * @brief Fills *opts with the defaults: no profile.
 * @param opts The options to fill.
 */
ONYX_API void onyx_run_options_init(onyx_run_options *opts);

/**
 * @brief onyx_session_run() with options.
 * @param session   A session.
 * @param inputs    As for onyx_session_run().
 * @param n_inputs  As for onyx_session_run().
 * @param outputs   As for onyx_session_run().
 * @param n_outputs As for onyx_session_run().
 * @param opts      Options, or NULL for the defaults.
 * @param err       Receives the status and message on failure; may be NULL.
 * @return As onyx_session_run(). A failed run leaves opts->profile's
 *         count at the nodes it ran.
 */
ONYX_API onyx_status onyx_session_run_with(onyx_session *session, const onyx_tensor *inputs,
                                           size_t n_inputs, onyx_tensor *outputs, size_t n_outputs,
                                           const onyx_run_options *opts, onyx_error *err);

/* ---- Serialized tensors (TensorProto .pb files) ------------------------ */

/**
 * @brief Decodes a serialized ONNX TensorProto.
 * @param bytes The serialized tensor.
 * @param size  Its length in bytes.
 * @param out   Receives the tensor: a new buffer the caller frees with
 *              onyx_free(out->data) (data may be NULL for an empty tensor).
 * @param name  If not NULL, receives a new NUL-terminated copy of the
 *              tensor's name, freed with onyx_free().
 * @param err   Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT, ONYX_OUT_OF_MEMORY, ONYX_PARSE,
 *         ONYX_TYPE, ONYX_SHAPE, ONYX_TENSOR_DATA, ONYX_EXTERNAL_DATA
 *         (external data is not accepted here), ONYX_LIMIT.
 */
ONYX_API onyx_status onyx_tensor_decode(const void *bytes, size_t size, onyx_tensor *out,
                                        char **name, onyx_error *err);

/**
 * @brief Like onyx_tensor_decode(), on the contents of a file.
 *
 * The header is decoded from a temporary mapping; a payload of 64 KiB or
 * more is then read into the new buffer directly, so the tensor is held
 * once.
 * @param path The file (a .pb file as in the ONNX test folders).
 * @param out  Receives the tensor, as onyx_tensor_decode().
 * @param name If not NULL, receives a copy of the tensor's name.
 * @param err  Receives the status and message on failure; may be NULL.
 * @return As onyx_tensor_decode(), plus ONYX_IO.
 */
ONYX_API onyx_status onyx_tensor_load_file(const char *path, onyx_tensor *out, char **name,
                                           onyx_error *err);

/**
 * @brief Serializes a tensor as a TensorProto with raw_data.
 * @param tensor The tensor.
 * @param name   The name to give it, or NULL for none.
 * @param bytes  Receives a new buffer, freed with onyx_free().
 * @param size   Receives its length in bytes.
 * @param err    Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT, ONYX_TYPE, ONYX_OUT_OF_MEMORY.
 */
ONYX_API onyx_status onyx_tensor_encode(const onyx_tensor *tensor, const char *name, void **bytes,
                                        size_t *size, onyx_error *err);

/**
 * @brief Like onyx_tensor_encode(), writing the bytes to a file.
 *
 * The small protobuf header is encoded, then the data is written from
 * tensor->data itself: saving allocates no copy of the tensor.
 * @param path   The file to create or replace.
 * @param tensor The tensor.
 * @param name   The name to give it, or NULL for none.
 * @param err    Receives the status and message on failure; may be NULL.
 * @return As onyx_tensor_encode(), plus ONYX_IO.
 */
ONYX_API onyx_status onyx_tensor_save_file(const char *path, const onyx_tensor *tensor,
                                           const char *name, onyx_error *err);

/* ---- Kernels on the caller's buffers ----------------------------------- */

/**
 * @brief Ceil on n elements: y[i] = ceil(x[i]), as the ONNX operator.
 *
 * x and y may be the same buffer (in place) but must not otherwise overlap.
 * @param dtype ONYX_DTYPE_FLOAT16, _FLOAT, _DOUBLE or _BFLOAT16.
 * @param n     The number of elements.
 * @param x     The input elements.
 * @param y     The output elements.
 * @param err   Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT (NULL pointer with n > 0),
 *         ONYX_TYPE (a type Ceil does not take).
 */
ONYX_API onyx_status onyx_ceil(onyx_dtype dtype, size_t n, const void *x, void *y, onyx_error *err);
/**
 * @brief Floor on n elements: y[i] = floor(x[i]), as the ONNX operator.
 *
 * x and y may be the same buffer (in place) but must not otherwise overlap.
 * @param dtype ONYX_DTYPE_FLOAT16, _FLOAT, _DOUBLE or _BFLOAT16.
 * @param n     The number of elements.
 * @param x     The input elements.
 * @param y     The output elements.
 * @param err   Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT (NULL pointer with n > 0),
 *         ONYX_TYPE (a type Floor does not take).
 */
ONYX_API onyx_status onyx_floor(onyx_dtype dtype, size_t n, const void *x, void *y,
                                onyx_error *err);
/**
 * @brief Sign on n elements: 1, -1 or 0 (NaN stays NaN), as the ONNX
 * operator.
 *
 * x and y may be the same buffer (in place) but must not otherwise overlap.
 * @param dtype Any type onyx knows.
 * @param n     The number of elements.
 * @param x     The input elements.
 * @param y     The output elements.
 * @param err   Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT (NULL pointer with n > 0),
 *         ONYX_TYPE (a type onyx does not know).
 */
ONYX_API onyx_status onyx_sign(onyx_dtype dtype, size_t n, const void *x, void *y, onyx_error *err);

/**
 * @brief Clip on n elements: y = min(max(x, *lo), *hi), as ONNX Clip-11 and
 * later define it.
 *
 * When *lo > *hi every element becomes *hi; NaN in x stays NaN. x and y may
 * be the same buffer (in place) but must not otherwise overlap.
 * @param dtype Any type onyx knows.
 * @param n     The number of elements.
 * @param x     The input elements.
 * @param y     The output elements.
 * @param lo    One element of dtype, or NULL for no lower bound.
 * @param hi    One element of dtype, or NULL for no upper bound.
 * @param err   Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT (NULL pointer with n > 0),
 *         ONYX_TYPE (a type onyx does not know).
 */
ONYX_API onyx_status onyx_clip(onyx_dtype dtype, size_t n, const void *x, void *y, const void *lo,
                               const void *hi, onyx_error *err);

/* ---- Self-test ------------------------------------------------------------ */

/**
 * @brief One result of onyx_selftest(): an (op, type, Clip bounds) case run
 * through the kernel of one ISA level.
 */
typedef struct onyx_selftest_case {
  const char *op;       /**< "Ceil", "Floor", "Clip" or "Sign". Static. */
  onyx_dtype dtype;     /**< The element type. */
  const char *bounds;   /**< Clip's bounds, e.g. "lo=-0 hi=+inf" ("none": absent);
                             "" for the other ops. Valid during the callback. */
  const char *patterns; /**< The inputs: "all" (every bit pattern of the type)
                             or "subset" (float32's documented subset). Static. */
  uint64_t count;       /**< The number of input patterns. */
  onyx_isa isa;         /**< The level of the kernel that ran. */
  char digest[65];      /**< SHA-256 of the outputs as little-endian bytes, in hex. */
  const char *expected; /**< numpy's digest for the case, in hex. Static. */
  int pass;             /**< Non-zero when digest equals expected. */
} onyx_selftest_case;

/** @brief For onyx_selftest_options::flags: float32 on its documented
 * subset of 327,680 patterns instead of all 2^32 (for slow machines and
 * emulators). */
#define ONYX_SELFTEST_QUICK 1u

/**
 * @brief Options of onyx_selftest(). Zero-initialised (or NULL) means: all
 * patterns, every level the CPU has, as many threads as CPUs.
 */
typedef struct onyx_selftest_options {
  unsigned flags;   /**< ONYX_SELFTEST_QUICK or 0. */
  unsigned threads; /**< Threads to use; 0 for one per CPU. */
} onyx_selftest_options;

/**
 * @brief Called by onyx_selftest() once per case and level, in a fixed
 * order (the cases' order, then the levels best first), on the calling
 * thread.
 * @return 0 to go on, non-zero to stop the self-test.
 */
typedef int (*onyx_selftest_fn)(void *arg, const onyx_selftest_case *result);

/**
 * @brief Runs every bit pattern of int8, uint8, int16, uint16, float16 and
 * bfloat16, and all 2^32 float32 patterns (or a subset), through Ceil,
 * Floor, Sign and Clip (over a grid of bounds) where ONNX allows the type,
 * with the kernel of every ISA level this CPU has, and compares the SHA-256
 * of each output with the digest numpy computes for it. README.md says
 * what the digests cover and how they are made.
 * @param opts   Options, or NULL for the defaults.
 * @param fn     Receives each result; may be NULL.
 * @param arg    Passed to fn.
 * @param failed If not NULL, receives the number of results that did not
 *               pass.
 * @param err    Receives the status and message on failure; may be NULL.
 * @return ONYX_OK when the self-test ran (whether or not every case
 *         passed: see *failed), also when fn stopped it;
 *         ONYX_OUT_OF_MEMORY; ONYX_LIMIT if threads cannot be started;
 *         ONYX_INVALID_ARGUMENT for unknown flags.
 */
ONYX_API onyx_status onyx_selftest(const onyx_selftest_options *opts, onyx_selftest_fn fn,
                                   void *arg, size_t *failed, onyx_error *err);

/* ---- Custom operators --------------------------------------------------- */

/**
 * @brief A set of operators the caller implements, registered before
 * sessions are created and given to them through
 * onyx_session_options::ops (opaque). docs/custom-ops.md explains the
 * whole mechanism with an example.
 *
 * A node whose domain, op type and opset version match a registered
 * operator runs the operator's functions; every other node is onyx's.
 * Registered operators take part in the whole graph: topological order,
 * Constant inputs, value lifetimes and buffer reuse. onyx's fused
 * element-wise chains stop at them.
 *
 * Thread safety: adding to a registry must not overlap a session creation
 * that uses it. Sessions only read it, and may run the operators' functions
 * from several threads at once (concurrent onyx_session_run() calls).
 */
typedef struct onyx_op_registry onyx_op_registry;

/**
 * @brief What a registered operator's functions receive (opaque): the node,
 * its inputs, outputs and attributes. Valid only during the call.
 */
typedef struct onyx_op_context onyx_op_context;

/** @brief The bit of one element type in a type mask. */
#define ONYX_DTYPE_BIT(dtype) (UINT32_C(1) << (unsigned)(dtype))
/** @brief A type mask allowing every type onyx knows. */
#define ONYX_DTYPES_ALL UINT32_C(0)
/** @brief For onyx_custom_op::max_inputs and max_outputs: no upper bound. */
#define ONYX_OP_VARIADIC UINT32_MAX
/** @brief The most input or output type masks a definition may give. */
#define ONYX_OP_MAX_TYPED 16

/**
 * @brief The shape-and-type function of a registered operator.
 *
 * Reads the inputs' types and shapes with onyx_op_input() and sets every
 * named output's type and shape with onyx_op_set_output(). onyx calls it
 * when a session is created and, for a node some of whose input shapes
 * were unknown then, again on each run with the run's shapes, before
 * anything of that run is computed. At session creation an unknown
 * dimension reads -1, and an input of unknown rank reads rank 0, which
 * onyx_op_input_rank_known() tells from a scalar (see onyx_op_input()).
 * onyx_op_set_output_dim_from() says which input dimension an output's
 * is, so that its symbolic name carries through.
 * @return ONYX_OK, or an error status after onyx_op_fail(): the session
 *         creation or run fails with it, naming the node. At a run,
 *         ONYX_SHAPE becomes ONYX_INPUT_SHAPE: the model passed creation,
 *         so the shapes refused are those of the caller's inputs.
 */
typedef onyx_status (*onyx_op_infer_fn)(onyx_op_context *ctx);

/**
 * @brief The compute function of a registered operator: reads the inputs
 * with onyx_op_input(), writes the outputs whose buffers onyx allocated
 * from the shapes the infer function gave (onyx_op_output()).
 *
 * It runs on the thread that called onyx_session_run(); it may spread work
 * over the session's threads with onyx_op_parallel_for(). It must write no
 * more than each output's size: onyx cannot stop a write out of bounds.
 * @return ONYX_OK, or an error status (after onyx_op_fail() for a message):
 *         the run fails with it, naming the node and op.
 */
typedef onyx_status (*onyx_op_compute_fn)(onyx_op_context *ctx);

/**
 * @brief The definition of an operator, given to onyx_op_registry_add(),
 * which copies it (strings included). Zero-initialise it and fill the
 * fields needed.
 */
typedef struct onyx_custom_op {
  const char *domain;   /**< "" (or NULL) for ai.onnx, else e.g. "com.example". */
  const char *name;     /**< The op type, e.g. "Relu". */
  int64_t since_min;    /**< The lowest opset version of the domain served (>= 1). */
  int64_t since_max;    /**< The highest one served; 0 for no upper bound. */
  uint32_t min_inputs;  /**< Inputs 0 .. min_inputs-1 are required (named). */
  uint32_t max_inputs;  /**< Up to this many inputs, or ONYX_OP_VARIADIC; later
                             optional inputs may be omitted (empty names). */
  uint32_t min_outputs; /**< At least this many outputs, each named. */
  uint32_t max_outputs; /**< At most this many (>= 1), or ONYX_OP_VARIADIC;
                             optional outputs may be omitted (empty names). */
  /** Allowed types of input i: a mask of ONYX_DTYPE_BIT(), ONYX_DTYPES_ALL
   * for any. Inputs past n_input_types use the last entry; 0 entries allow
   * any type everywhere. */
  uint32_t input_types[ONYX_OP_MAX_TYPED];
  uint32_t n_input_types; /**< Entries of input_types used (0 .. ONYX_OP_MAX_TYPED). */
  /** Allowed types of output k, checked against what infer sets; as
   * input_types. */
  uint32_t output_types[ONYX_OP_MAX_TYPED];
  uint32_t n_output_types; /**< Entries of output_types used. */
  int same_input_types;    /**< Non-zero: every present input has input 0's type. */
  /** Non-zero: output k may be written into input k's buffer when nothing
   * else reads input k afterwards (compute must allow x == y then). */
  int allows_in_place;
  /** Non-zero: serve this op even though onyx implements it (domain ""
   * and an op onyx serves); without it registering such an op is an
   * error. */
  int override_builtin;
  onyx_op_infer_fn infer;     /**< Required. */
  onyx_op_compute_fn compute; /**< Required. */
  void *user_data;            /**< Passed through (onyx_op_user_data()). */
  /** Called with user_data when the registry is freed, if not NULL. */
  void (*destroy)(void *user_data);
} onyx_custom_op;

/**
 * @brief Creates an empty registry.
 * @param out Receives it; free it with onyx_op_registry_free().
 * @param err Receives the status and message on failure; may be NULL.
 * @return ONYX_OK, ONYX_INVALID_ARGUMENT (out NULL), ONYX_OUT_OF_MEMORY.
 */
ONYX_API onyx_status onyx_op_registry_create(onyx_op_registry **out, onyx_error *err);

/**
 * @brief Frees a registry: calls each operator's destroy(user_data), then
 * closes the libraries it loaded. Sessions created with it must be freed
 * first.
 * @param reg The registry, or NULL (a no-op).
 */
ONYX_API void onyx_op_registry_free(onyx_op_registry *reg);

/**
 * @brief Registers an operator.
 *
 * On success the registry owns def->user_data (destroy is called when the
 * registry is freed); on failure nothing is kept and destroy is not
 * called.
 * @param reg The registry.
 * @param def The definition; copied.
 * @param err Receives the status and message on failure; may be NULL.
 * @return ONYX_OK; ONYX_INVALID_ARGUMENT, naming the op and field, for a
 *         NULL or empty name, a NULL infer or compute, since_min < 1 or
 *         since_max below it, min > max inputs or outputs, max_outputs 0,
 *         more than ONYX_OP_MAX_TYPED type masks, a mask with a bit that is
 *         no type, an op onyx implements without override_builtin, or one
 *         already registered for an overlapping version range;
 *         ONYX_OUT_OF_MEMORY.
 */
ONYX_API onyx_status onyx_op_registry_add(onyx_op_registry *reg, const onyx_custom_op *def,
                                          onyx_error *err);

/**
 * @brief The registration function an op library exports under the name
 * onyx_register_ops (mark it ONYX_OP_LIBRARY_EXPORT): it adds the
 * library's operators with onyx_op_registry_add() and returns ONYX_OK, or
 * an error with a message in err.
 */
typedef onyx_status (*onyx_register_ops_fn)(onyx_op_registry *reg, onyx_error *err);

/** @brief Exports an op library's onyx_register_ops from its shared library. */
#if defined(_WIN32)
#define ONYX_OP_LIBRARY_EXPORT __declspec(dllexport)
#elif defined(__GNUC__)
#define ONYX_OP_LIBRARY_EXPORT __attribute__((visibility("default")))
#else
#define ONYX_OP_LIBRARY_EXPORT
#endif

/**
 * @brief Loads an op library: a shared library exporting
 * `onyx_status onyx_register_ops(onyx_op_registry *reg, onyx_error *err)`,
 * which onyx calls once to let it add its operators. The library stays
 * loaded until the registry is freed.
 * @param reg  The registry.
 * @param path The library's file (as dlopen takes it: a name without '/'
 *             is searched on the library path).
 * @param err  Receives the status and message on failure; may be NULL.
 * @return ONYX_OK; ONYX_IO when the library cannot be loaded or lacks
 *         onyx_register_ops, or when path (with a separator) names a
 *         FIFO, a folder or a device (refused without opening it); the status of onyx_register_ops
 * when it fails (its message prefixed with the path); ONYX_INVALID_ARGUMENT for NULL arguments;
 * ONYX_OUT_OF_MEMORY.
 */
ONYX_API onyx_status onyx_op_registry_load_library(onyx_op_registry *reg, const char *path,
                                                   onyx_error *err);

/**
 * @brief Whether a registered operator serves the node-th node of a
 * model (its domain, op type and opset version), as session creation
 * would decide.
 * @param reg     The registry, or NULL (nothing registered).
 * @param model   A loaded model.
 * @param node    From 0 to onyx_model_node_count() - 1.
 * @param library If not NULL, receives the path given to
 *                onyx_op_registry_load_library() for an operator a
 *                library registered, else NULL; valid until the registry
 *                is freed.
 * @return 1 if one does, 0 if not (or for bad arguments).
 */
ONYX_API int onyx_op_registry_serves(const onyx_op_registry *reg, const onyx_model *model,
                                     size_t node, const char **library);

/**
 * @brief The user_data of the operator whose function is running.
 * @param ctx The context the function received.
 * @return onyx_custom_op::user_data as registered (NULL for a NULL ctx).
 */
ONYX_API void *onyx_op_user_data(const onyx_op_context *ctx);
/**
 * @brief The node's name, for messages.
 * @param ctx The context the function received.
 * @return The name, "" if the node has none; valid during the call.
 */
ONYX_API const char *onyx_op_node_name(const onyx_op_context *ctx);
/**
 * @brief The opset version of the node's domain that the model imports.
 * @param ctx The context the function received.
 * @return The version (within the operator's registered range).
 */
ONYX_API int64_t onyx_op_opset(const onyx_op_context *ctx);
/**
 * @brief The node's number of inputs.
 * @param ctx The context the function received.
 * @return The count, omitted optional inputs included.
 */
ONYX_API size_t onyx_op_input_count(const onyx_op_context *ctx);
/**
 * @brief The node's number of outputs.
 * @param ctx The context the function received.
 * @return The count, omitted optional outputs included.
 */
ONYX_API size_t onyx_op_output_count(const onyx_op_context *ctx);

/**
 * @brief Describes input i: type, rank and dims, and in compute its data
 * (read-only) and size in bytes. In infer, data is set only for a
 * constant input (an initializer or a Constant node's value), always with
 * its values: a payload of 64 KiB or more that a model file left unread
 * is read before infer first runs. An omitted optional input has
 * dtype ONYX_DTYPE_UNDEFINED and data NULL.
 *
 * Shapes in infer at session creation:
 * - A dimension not known yet (a symbolic one) reads -1.
 * - An input of unknown rank (the model declares no shape for it) reads
 *   rank 0, as a scalar does: onyx_op_input_rank_known() tells them apart.
 * - After a registered op whose inputs had an unknown dimension, the
 *   output keeps the rank and dims that op's infer set (its -1s stay -1)
 *   when every one of its inputs had a known rank; else its rank is
 *   unknown. Such an infer should set -1 for a dimension it cannot know.
 * - A node with any input dimension unknown has infer called again at
 *   each run, with that run's shapes, all known.
 * @param ctx The context the function received.
 * @param i   From 0 to onyx_op_input_count() - 1.
 * @param out Receives the description; data belongs to onyx.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT for a bad index or NULL.
 */
ONYX_API onyx_status onyx_op_input(const onyx_op_context *ctx, size_t i, onyx_tensor *out);

/**
 * @brief Whether input i's rank is known: always in compute and at run
 * time; in infer at session creation, unless the model declares no shape
 * for the value (see onyx_op_input()).
 * @param ctx The context the function received.
 * @param i   From 0 to onyx_op_input_count() - 1.
 * @return 1 if known; 0 if not, and for an omitted input, a bad index or
 *         NULL.
 */
ONYX_API int onyx_op_input_rank_known(const onyx_op_context *ctx, size_t i);

/**
 * @brief In compute: output k's type, shape and buffer (data, size in
 * bytes), as infer set them. An omitted optional output has dtype
 * ONYX_DTYPE_UNDEFINED and data NULL.
 * @param ctx The context compute received.
 * @param k   From 0 to onyx_op_output_count() - 1.
 * @param out Receives the description; compute writes size bytes at data.
 * @return ONYX_OK, or ONYX_INVALID_ARGUMENT for a bad index, a NULL
 *         pointer, or a call from infer.
 */
ONYX_API onyx_status onyx_op_output(const onyx_op_context *ctx, size_t k, onyx_tensor *out);

/**
 * @brief In infer: sets output k's type and shape (a call for an omitted
 * output is accepted and ignored).
 * @param ctx   The context infer received.
 * @param k     From 0 to onyx_op_output_count() - 1.
 * @param dtype The output's element type.
 * @param rank  Its rank, at most ONYX_MAX_RANK.
 * @param dims  Its rank dimensions (may be NULL for rank 0).
 * @return ONYX_OK; ONYX_TYPE for a type onyx does not know or the
 *         definition's output_types do not allow; ONYX_SHAPE for rank above
 *         ONYX_MAX_RANK or a negative dimension (-1 is accepted at session
 *         creation while an input shape is unknown); ONYX_LIMIT when the
 *         element count overflows or exceeds onyx's limit;
 *         ONYX_INVALID_ARGUMENT for a bad index or a call from compute.
 *         A failure is also recorded in ctx, so that infer may simply
 *         return the status.
 */
ONYX_API onyx_status onyx_op_set_output(onyx_op_context *ctx, size_t k, onyx_dtype dtype,
                                        uint32_t rank, const int64_t *dims);

/**
 * @brief In infer: says that output k's dimension j is input i's dimension
 * d, and makes it so: it sets that dimension to the input's (its size at
 * a run, -1 at session creation where the size is not known yet), and
 * output k's dimension j then carries the symbolic name input i's
 * dimension d has (N of a graph input declared [N, 4], say), which
 * onyx_session_value_info() and onyx_session_output_info() report.
 *
 * The name travels only this way: a dimension onyx_op_set_output() sets
 * has none, even when it is -1 where an input's named dimension is -1, for
 * onyx cannot know that the two are the same size (NonZero's output is -1
 * too). An unknown dimension stays unknown: -1, no name. Call it after
 * onyx_op_set_output(k), which clears output k's names; for an input of
 * unknown rank at session creation (see onyx_op_input_rank_known()) it does
 * nothing, since the output's shape then comes only at a run. onyx's own
 * element-wise operators keep their input's names.
 * @param ctx The context infer received.
 * @param k   The output, from 0 to onyx_op_output_count() - 1.
 * @param j   Its dimension, below the rank onyx_op_set_output() gave it.
 * @param i   The input, from 0 to onyx_op_input_count() - 1 (not omitted).
 * @param d   Its dimension, below its rank.
 * @return ONYX_OK; ONYX_INVALID_ARGUMENT for a bad index or dimension, an
 *         output not set yet, or a call from compute; ONYX_LIMIT as for
 *         onyx_op_set_output(). A failure is also recorded in ctx.
 */
ONYX_API onyx_status onyx_op_set_output_dim_from(onyx_op_context *ctx, size_t k, uint32_t j,
                                                 size_t i, uint32_t d);

/**
 * @brief Finds the node's attribute called name, in the representation of
 * onyx_model_node_attribute().
 * @param ctx  The context the function received.
 * @param name The attribute's name.
 * @param out  Receives the attribute; its pointers stay valid until the
 *             model is freed.
 * @return 1 and *out filled when the node has it, else 0 and *out
 *         cleared (all zero).
 */
ONYX_API int onyx_op_attribute(const onyx_op_context *ctx, const char *name,
                               onyx_attribute_info *out);

/**
 * @brief Calls fn(arg, i) for every i in [0, n) on the session's threads,
 * the calling one included, and returns when all calls are done. Calls may
 * run in any order and at once; each i is called exactly once.
 * @param ctx A compute context (from infer, the calls run on the calling
 *            thread).
 * @param n   The number of calls.
 * @param fn  The function, called as fn(arg, i).
 * @param arg Passed to fn.
 */
ONYX_API void onyx_op_parallel_for(onyx_op_context *ctx, size_t n, void (*fn)(void *arg, size_t i),
                                   void *arg);

/**
 * @brief Records why the operator failed: status and a printf-style
 * message, which onyx reports prefixed with the node and op. onyx formats
 * it itself, the same on every platform and without linking a printf on
 * microcontrollers: %d %i %u %x, each bare or with l, ll or z; %c; %s,
 * with an optional precision (.N or .*); and %%. Flags, widths and the
 * floating-point conversions are not supported (they are copied as they
 * stand), and the message is cut at 399 bytes.
 * @param ctx    The context the function received.
 * @param status The error status the function will return.
 * @param fmt    A printf format, then its arguments.
 * @return status, so that a function can `return onyx_op_fail(ctx, ...)`.
 */
ONYX_API onyx_status onyx_op_fail(onyx_op_context *ctx, onyx_status status, const char *fmt, ...)
#if defined(__MINGW32__) /* %zu included: not msvcrt's printf */
    __attribute__((format(gnu_printf, 3, 4)))
#elif defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif /* ONYX_H */
