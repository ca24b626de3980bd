/*
 * onyx: a small C11 runtime for ONNX models.
 *
 * This header is the whole public API. The flow is:
 *
 *   onyx_model_load_file()      read and check a model (or _load_memory)
 *   onyx_session_create()       every check and every kernel choice happens here
 *   onyx_session_run()          as many times as wanted
 *   onyx_session_free(), onyx_model_free()
 *
 * Error handling: every call that can fail returns an onyx_status. When the
 * caller passes a non-NULL onyx_error, the same status and a one-line message
 * naming what was wrong (file, node, op, opset, input, dtype) are written
 * into it. The library never prints, never exits and never aborts on bad
 * input.
 *
 * Ownership: handles returned through an out-pointer belong to the caller,
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

#if defined(_WIN32) && defined(ONYX_BUILD_SHARED)
#define ONYX_API __declspec(dllexport)
#elif defined(__GNUC__)
#define ONYX_API __attribute__((visibility("default")))
#else
#define ONYX_API
#endif

#define ONYX_VERSION_MAJOR 0
#define ONYX_VERSION_MINOR 1
#define ONYX_VERSION_PATCH 0

/* The largest tensor rank onyx accepts; a model with more is an error. */
#define ONYX_MAX_RANK 16

/*
 * Status codes. The list exists once, here; the enum, the names returned by
 * onyx_status_name() and the short descriptions come from it.
 * X(NAME, value, description)
 */
#define ONYX_STATUS_MAP(X)                                                                  \
  X(OK, 0, "success")                                                                       \
  X(INVALID_ARGUMENT, 1, "an API argument is invalid (NULL pointer, bad index or option)") \
  X(OUT_OF_MEMORY, 2, "a memory allocation failed")                                         \
  X(IO, 3, "a file could not be opened, read, mapped or written")                           \
  X(PARSE, 4, "the bytes are not a well-formed protobuf message")                           \
  X(IR_VERSION, 5, "the model's ir_version is missing or not supported")                    \
  X(OPSET, 6, "the ai.onnx opset import is missing, duplicated or not supported")           \
  X(UNSUPPORTED_OP, 7, "an operator or domain is not supported")                            \
  X(ARITY, 8, "a node has the wrong number of inputs or outputs")                           \
  X(ATTRIBUTE, 9, "an attribute is unknown, missing or of the wrong type")                  \
  X(UNDEFINED_VALUE, 10, "a node input or graph output is produced by nothing")             \
  X(DUPLICATE_VALUE, 11, "a value has more than one producer")                              \
  X(CYCLE, 12, "the graph has a cycle")                                                     \
  X(TYPE, 13, "an element type is not allowed here")                                        \
  X(SHAPE, 14, "a shape is invalid (negative dim, overflow, or not a scalar)")              \
  X(TENSOR_DATA, 15, "tensor data does not match its type or shape")                        \
  X(EXTERNAL_DATA, 16, "external tensor data is unsafe or out of range")                    \
  X(LIMIT, 17, "a documented limit of onyx was exceeded")                                   \
  X(INPUT_MISSING, 18, "a run input is missing")                                            \
  X(INPUT_TYPE, 19, "a run input has the wrong element type")                               \
  X(INPUT_SHAPE, 20, "a run input has the wrong rank or dimension")                         \
  X(BUFFER_TOO_SMALL, 21, "a caller's output buffer is too small")                          \
  X(INTERNAL, 22, "an internal invariant failed (a bug in onyx)")

typedef enum onyx_status {
#define ONYX_X_(name, value, desc) ONYX_##name = value,
  ONYX_STATUS_MAP(ONYX_X_)
#undef ONYX_X_
} onyx_status;

/*
 * Element types, numbered as ONNX's TensorProto.DataType so that values read
 * from a model need no translation. X(NAME, onnx value, C type name, size)
 */
#define ONYX_DTYPE_MAP(X)            \
  X(FLOAT, 1, "float", 4)            \
  X(UINT8, 2, "uint8", 1)            \
  X(INT8, 3, "int8", 1)              \
  X(UINT16, 4, "uint16", 2)          \
  X(INT16, 5, "int16", 2)            \
  X(INT32, 6, "int32", 4)            \
  X(INT64, 7, "int64", 8)            \
  X(FLOAT16, 10, "float16", 2)       \
  X(DOUBLE, 11, "double", 8)         \
  X(UINT32, 12, "uint32", 4)         \
  X(UINT64, 13, "uint64", 8)         \
  X(BFLOAT16, 16, "bfloat16", 2)

typedef enum onyx_dtype {
  ONYX_DTYPE_UNDEFINED = 0,
#define ONYX_X_(name, value, cname, size) ONYX_DTYPE_##name = value,
  ONYX_DTYPE_MAP(ONYX_X_)
#undef ONYX_X_
} onyx_dtype;

/* Instruction-set levels, lowest first. Used to cap kernel selection. */
typedef enum onyx_isa {
  ONYX_ISA_SCALAR = 0,
  ONYX_ISA_SSE41 = 1,
  ONYX_ISA_AVX2 = 2,
  ONYX_ISA_AVX512 = 3,
  ONYX_ISA_BEST = 255 /* no cap: the best the CPU and OS support */
} onyx_isa;

/*
 * A caller-owned error record. onyx writes the status and a NUL-terminated
 * one-line message into it whenever a call fails; on success it is left as
 * it was. Passing NULL where an onyx_error* is expected is allowed.
 */
typedef struct onyx_error {
  onyx_status status;
  char message[512];
} onyx_error;

/*
 * A tensor as the API exchanges it: a view of memory onyx does not own
 * unless a call says otherwise.
 *   dtype, rank, dims: element type and shape (dims[0..rank-1]; rank 0 is a
 *                      scalar with one element).
 *   data:              the elements, densely packed in C order, little-endian.
 *   size:              bytes available at data. For inputs it must be at
 *                      least the byte size the shape implies.
 */
typedef struct onyx_tensor {
  onyx_dtype dtype;
  uint32_t rank;
  int64_t dims[ONYX_MAX_RANK];
  void *data;
  size_t size;
} onyx_tensor;

/* Opaque handles. */
typedef struct onyx_model onyx_model;
typedef struct onyx_session onyx_session;

/* ---- Library information ---------------------------------------------- */

/* The version as "MAJOR.MINOR.PATCH". Never fails; the string is static. */
ONYX_API const char *onyx_version(void);

/* The name of a status ("ONYX_TYPE"), or "ONYX_UNKNOWN_STATUS". Static. */
ONYX_API const char *onyx_status_name(onyx_status status);

/* A short description of a status. Static. */
ONYX_API const char *onyx_status_description(onyx_status status);

/* The name of an element type ("float16"), or "undefined". Static. */
ONYX_API const char *onyx_dtype_name(onyx_dtype dtype);

/* The size in bytes of one element, or 0 for a type onyx does not know. */
ONYX_API size_t onyx_dtype_size(onyx_dtype dtype);

/* The newest ai.onnx opset onyx supports. */
ONYX_API int64_t onyx_max_opset(void);

/* The ISA level kernels will use with no cap: detected once per process
 * from CPUID and the OS's saved-register state, then lowered by the
 * environment variable ONYX_ISA (scalar, sse41, avx2, avx512) if set. */
ONYX_API onyx_isa onyx_isa_detected(void);

/* The name of an ISA level ("avx2"). Static. */
ONYX_API const char *onyx_isa_name(onyx_isa isa);

/* Frees memory that onyx allocated for the caller (output buffers of
 * onyx_session_run and onyx_tensor_decode). NULL is a no-op. */
ONYX_API void onyx_free(void *ptr);

/* ---- Models ------------------------------------------------------------ */

/*
 * Loads the ONNX model at path. The file is memory-mapped read-only and
 * tensor payloads point into the mapping where alignment allows. The model
 * is parsed and its structure checked here (wire format, ir_version, opset
 * imports, tensor data, external data). Errors: ONYX_INVALID_ARGUMENT,
 * ONYX_IO, ONYX_OUT_OF_MEMORY, ONYX_PARSE, ONYX_IR_VERSION, ONYX_OPSET,
 * ONYX_TENSOR_DATA, ONYX_SHAPE, ONYX_TYPE, ONYX_EXTERNAL_DATA, ONYX_LIMIT.
 * On success *out is a new model the caller frees with onyx_model_free; on
 * failure *out is set to NULL.
 */
ONYX_API onyx_status onyx_model_load_file(const char *path, onyx_model **out, onyx_error *err);

/*
 * Like onyx_model_load_file, on size bytes at data. onyx does not copy the
 * bytes: they must stay valid and unchanged until onyx_model_free. A model
 * loaded from memory may not use external data (ONYX_EXTERNAL_DATA), since
 * it has no folder.
 */
ONYX_API onyx_status onyx_model_load_memory(const void *data, size_t size, onyx_model **out,
                                            onyx_error *err);

/* Frees a model. Sessions created from it must be freed first. NULL is a
 * no-op. */
ONYX_API void onyx_model_free(onyx_model *model);

/* The model's ir_version. */
ONYX_API int64_t onyx_model_ir_version(const onyx_model *model);

/* The number of opset imports, and the i-th one's domain ("" is ai.onnx)
 * and version. Returns ONYX_INVALID_ARGUMENT for a bad index. */
ONYX_API size_t onyx_model_opset_count(const onyx_model *model);
ONYX_API onyx_status onyx_model_opset(const onyx_model *model, size_t index, const char **domain,
                                      int64_t *version, onyx_error *err);

/* The number of nodes in the graph, and the i-th node's op type, domain
 * and name, and its input and output names (an empty string is an omitted
 * optional input). Strings stay valid until onyx_model_free. */
ONYX_API size_t onyx_model_node_count(const onyx_model *model);
typedef struct onyx_node_info {
  const char *op_type;
  const char *domain;
  const char *name;
  size_t input_count;
  const char *const *inputs;
  size_t output_count;
  const char *const *outputs;
} onyx_node_info;
ONYX_API onyx_status onyx_model_node(const onyx_model *model, size_t index, onyx_node_info *out,
                                     onyx_error *err);

/* ---- Sessions ---------------------------------------------------------- */

/*
 * Session options. Zero-initialise, or pass NULL for the defaults.
 *   threads: worker threads for large tensors; 0 means the default.
 *   isa_cap: the highest ISA level kernels may use; 0 (ONYX_ISA_SCALAR) is a
 *            real cap, so set ONYX_ISA_BEST for no cap. onyx_session_options_init
 *            fills the defaults.
 */
typedef struct onyx_session_options {
  uint32_t threads;
  onyx_isa isa_cap;
} onyx_session_options;

/* Fills *opts with the defaults (threads 0, isa_cap ONYX_ISA_BEST). */
ONYX_API void onyx_session_options_init(onyx_session_options *opts);

/*
 * Creates a session: resolves each node's operator version from the
 * model's ai.onnx opset, sorts the nodes, checks every value, type,
 * attribute and bound, folds Constant nodes, and chooses every kernel. All
 * model errors surface here or at load, never at run. Errors: those of
 * loading plus ONYX_UNSUPPORTED_OP, ONYX_ARITY, ONYX_ATTRIBUTE,
 * ONYX_UNDEFINED_VALUE, ONYX_DUPLICATE_VALUE, ONYX_CYCLE, ONYX_TYPE,
 * ONYX_SHAPE. The model must outlive the session.
 */
ONYX_API onyx_status onyx_session_create(const onyx_model *model, const onyx_session_options *opts,
                                         onyx_session **out, onyx_error *err);

/* Frees a session. NULL is a no-op. */
ONYX_API void onyx_session_free(onyx_session *session);

/*
 * Describes a session input or output. Inputs are the graph inputs that are
 * not initializers, in graph order; outputs are the graph outputs in order.
 * dims[i] is -1 for a symbolic or unknown dimension, whose name (if any) is
 * in dim_names[i] (else NULL). has_shape is 0 when the model declares no
 * shape, in which case any rank is accepted.
 */
typedef struct onyx_value_info {
  const char *name;
  onyx_dtype dtype;
  int has_shape;
  uint32_t rank;
  int64_t dims[ONYX_MAX_RANK];
  const char *dim_names[ONYX_MAX_RANK];
} onyx_value_info;

ONYX_API size_t onyx_session_input_count(const onyx_session *session);
ONYX_API size_t onyx_session_output_count(const onyx_session *session);
/* Fills *out for the index-th input or output. ONYX_INVALID_ARGUMENT for a
 * bad index. Strings stay valid until the session is freed. */
ONYX_API onyx_status onyx_session_input_info(const onyx_session *session, size_t index,
                                             onyx_value_info *out, onyx_error *err);
ONYX_API onyx_status onyx_session_output_info(const onyx_session *session, size_t index,
                                              onyx_value_info *out, onyx_error *err);

/*
 * Runs the session. inputs[i] binds to the i-th session input (by position,
 * never by name); n_inputs must equal onyx_session_input_count. Input data
 * is read in place, never copied or modified, and must not overlap outputs.
 *
 * outputs has n_outputs == onyx_session_output_count entries. For each, if
 * data is NULL onyx allocates the buffer (free it with onyx_free); otherwise
 * size must be at least the output's byte size (else ONYX_BUFFER_TOO_SMALL
 * and nothing is written). onyx sets dtype, rank, dims and size (the bytes
 * written) of every output.
 *
 * Errors: ONYX_INVALID_ARGUMENT, ONYX_INPUT_MISSING (fewer inputs, or a
 * NULL data pointer for a non-empty tensor), ONYX_INPUT_TYPE,
 * ONYX_INPUT_SHAPE, ONYX_BUFFER_TOO_SMALL, ONYX_OUT_OF_MEMORY, ONYX_LIMIT.
 * On failure, buffers onyx allocated in this call are freed again and their
 * data pointers reset to NULL.
 *
 * Concurrency: several threads may call onyx_session_run on one session at
 * once, each with its own outputs: a run only reads the session. Creating
 * and freeing a session must not overlap any run of it.
 */
ONYX_API onyx_status onyx_session_run(onyx_session *session, const onyx_tensor *inputs,
                                      size_t n_inputs, onyx_tensor *outputs, size_t n_outputs,
                                      onyx_error *err);

/* ---- Serialized tensors (TensorProto .pb files) ------------------------ */

/*
 * Decodes a serialized ONNX TensorProto. On success *out describes a new
 * buffer the caller frees with onyx_free(out->data) (data may be NULL for
 * an empty tensor), and *name (if name is not NULL) receives a new
 * NUL-terminated copy of the tensor's name, freed with onyx_free. Errors:
 * ONYX_INVALID_ARGUMENT, ONYX_OUT_OF_MEMORY, ONYX_PARSE, ONYX_TYPE,
 * ONYX_SHAPE, ONYX_TENSOR_DATA, ONYX_EXTERNAL_DATA (external data is not
 * accepted here), ONYX_LIMIT.
 */
ONYX_API onyx_status onyx_tensor_decode(const void *bytes, size_t size, onyx_tensor *out,
                                        char **name, onyx_error *err);

/* Like onyx_tensor_decode, on the contents of the file at path. */
ONYX_API onyx_status onyx_tensor_load_file(const char *path, onyx_tensor *out, char **name,
                                           onyx_error *err);

/*
 * Serializes a tensor as a TensorProto with the given name (NULL for none)
 * and raw_data. *bytes receives a new buffer (free with onyx_free) of *size
 * bytes. Errors: ONYX_INVALID_ARGUMENT, ONYX_TYPE, ONYX_OUT_OF_MEMORY.
 */
ONYX_API onyx_status onyx_tensor_encode(const onyx_tensor *tensor, const char *name, void **bytes,
                                        size_t *size, onyx_error *err);

/* Like onyx_tensor_encode, writing the bytes to the file at path. */
ONYX_API onyx_status onyx_tensor_save_file(const char *path, const onyx_tensor *tensor,
                                           const char *name, onyx_error *err);

/* ---- Kernels on the caller's buffers ----------------------------------- */

/*
 * Element-wise kernels with the same semantics as the ONNX operators, on n
 * elements of type dtype. x and y may be the same buffer (in place) but must
 * not otherwise overlap. Ceil and Floor take float types; Sign and Clip
 * every type onyx knows. Errors: ONYX_INVALID_ARGUMENT (NULL pointer with
 * n > 0), ONYX_TYPE (type not allowed for the op).
 */
ONYX_API onyx_status onyx_ceil(onyx_dtype dtype, size_t n, const void *x, void *y, onyx_error *err);
ONYX_API onyx_status onyx_floor(onyx_dtype dtype, size_t n, const void *x, void *y,
                                onyx_error *err);
ONYX_API onyx_status onyx_sign(onyx_dtype dtype, size_t n, const void *x, void *y, onyx_error *err);

/*
 * Clip: y = min(max(x, *lo), *hi) as ONNX Clip-11 and later define it. lo and
 * hi each point to one element of dtype, or are NULL for no bound on that
 * side. When *lo > *hi every element becomes *hi; NaN in x stays NaN.
 */
ONYX_API onyx_status onyx_clip(onyx_dtype dtype, size_t n, const void *x, void *y, const void *lo,
                               const void *hi, onyx_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ONYX_H */
