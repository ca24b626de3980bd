/*
 * The decoded ONNX model: the part of the schema onyx needs, as plain
 * structs. Everything lives in the model's arena; strings are NUL-terminated
 * copies (they are small), tensor payloads point into the model's bytes
 * whenever their alignment allows (they can be large).
 */
#ifndef ONYX_MODEL_MODEL_H
#define ONYX_MODEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/alloc.h"
#include "onyx.h"

/* Limits; each is an ONYX_LIMIT error with its own message when exceeded. */
#define ONYX__MAX_NESTING 64               /* nested protobuf messages */
#define ONYX__MAX_ELEMENTS (INT64_C(1) << 40) /* elements in one tensor */
#define ONYX__MAX_FILE_SIZE (INT64_C(1) << 40)

/* A decoded TensorProto. */
typedef struct onyx__tensor {
  const char *name;
  onyx_dtype dtype;
  uint32_t rank;
  int64_t dims[ONYX_MAX_RANK];
  size_t count;      /* product of dims (1 for rank 0) */
  const void *data;  /* count * dtype size bytes, little-endian; NULL if count == 0 */
  size_t nbytes;
} onyx__tensor;

/* AttributeProto.AttributeType values that onyx reads. */
typedef enum onyx__attr_type {
  ONYX__ATTR_UNDEFINED = 0,
  ONYX__ATTR_FLOAT = 1,
  ONYX__ATTR_INT = 2,
  ONYX__ATTR_STRING = 3,
  ONYX__ATTR_TENSOR = 4,
  ONYX__ATTR_GRAPH = 5,
  ONYX__ATTR_FLOATS = 6,
  ONYX__ATTR_INTS = 7,
  ONYX__ATTR_STRINGS = 8,
  ONYX__ATTR_TENSORS = 9,
  ONYX__ATTR_GRAPHS = 10,
  ONYX__ATTR_SPARSE_TENSOR = 11,
  ONYX__ATTR_SPARSE_TENSORS = 12,
  ONYX__ATTR_TYPE_PROTO = 13,
  ONYX__ATTR_TYPE_PROTOS = 14
} onyx__attr_type;

/* A decoded AttributeProto. `type` is the declared type; when the model
 * omits it (old exporters), the decoder infers it from the one value field
 * present. Lists are decoded whether packed or not. */
typedef struct onyx__attr {
  const char *name;
  onyx__attr_type type;
  float f;
  int64_t i;
  const char *s; /* NUL-terminated copy */
  size_t s_len;
  onyx__tensor *t; /* NULL unless a tensor is present */
  size_t n_floats;
  float *floats;
  size_t n_ints;
  int64_t *ints;
  bool has_ref_attr_name; /* attribute references are for functions only */
} onyx__attr;

typedef struct onyx__node {
  const char *name;
  const char *op_type;
  const char *domain; /* "" for ai.onnx ("ai.onnx" is normalised to "") */
  size_t n_inputs;
  const char **inputs; /* "" marks an omitted optional input */
  size_t n_outputs;
  const char **outputs;
  size_t n_attrs;
  onyx__attr *attrs;
} onyx__node;

/* A decoded ValueInfoProto with a tensor type. */
typedef struct onyx__value_info {
  const char *name;
  bool has_type;   /* a tensor_type is present */
  onyx_dtype dtype; /* may be a value onyx does not know; checked later */
  int32_t raw_elem_type;
  bool has_shape;
  uint32_t rank;
  int64_t dims[ONYX_MAX_RANK];          /* -1 for symbolic or absent */
  const char *dim_params[ONYX_MAX_RANK]; /* NULL unless symbolic */
} onyx__value_info;

typedef struct onyx__graph {
  const char *name;
  size_t n_nodes;
  onyx__node *nodes;
  size_t n_initializers;
  onyx__tensor *initializers;
  size_t n_inputs;
  onyx__value_info *inputs;
  size_t n_outputs;
  onyx__value_info *outputs;
  size_t n_sparse_initializers; /* counted so they can be refused clearly */
} onyx__graph;

typedef struct onyx__opset {
  const char *domain; /* "" for ai.onnx */
  int64_t version;
} onyx__opset;

/* A read-only mapping of external tensor data. The records live in the
 * model's arena and are chained from onyx_model.mappings, which
 * onyx_model_free unmaps before it frees the arena. */
typedef struct onyx__mapping {
  struct onyx__mapping *next;
  void *addr;
  size_t size;
} onyx__mapping;

struct onyx_model {
  onyx__arena arena;
  /* The bytes: either a read-only mapping we own, or the caller's buffer. */
  const uint8_t *bytes;
  size_t size;
  void *mapping; /* non-NULL when bytes is our mmap */
  size_t mapping_size;
  const char *dir; /* folder of the model file, for external data; NULL from memory */
  const char *path; /* for messages; "<memory>" when loaded from memory */

  int64_t ir_version;
  size_t n_opsets;
  onyx__opset *opsets;
  int64_t onnx_opset; /* the ai.onnx version (validated at load) */
  onyx__graph graph;
  onyx__mapping *mappings; /* external data mapped for this model */
};

/*
 * Decodes a TensorProto message at bytes[0..size) into *out, allocating in
 * arena. Payloads from raw_data point into bytes when suitably aligned,
 * otherwise they are copied into the arena; typed fields are always decoded
 * into the arena. dir is the folder external data is relative to, or NULL to
 * refuse external data. depth is the current nesting depth. Messages do not
 * name the tensor: callers prefix them with what the tensor is.
 */
onyx_status onyx__tensor_decode(const uint8_t *bytes, size_t size, onyx__arena *arena,
                                const char *dir, int depth, onyx__tensor *out, onyx_error *err);

/* Parses a whole ModelProto into model (whose bytes/size/dir/path are set).
 * Checks wire format, ir_version and opset imports and decodes every tensor;
 * graph-level checks are the session's. */
onyx_status onyx__model_parse(onyx_model *model, onyx_error *err);

/* Checked product of dims into *count; ONYX_SHAPE on a negative dim,
 * ONYX_LIMIT on overflow or more than ONYX__MAX_ELEMENTS elements. */
onyx_status onyx__shape_count(const int64_t *dims, uint32_t rank, size_t *count, onyx_error *err);

/*
 * onyx__tensor_decode with two more parameters. base is the start of the
 * buffer bytes lies in, so that byte offsets in messages count from the
 * start of the file. mappings, when not NULL, receives a record for every
 * external data slice that is memory-mapped (the owner unmaps them); when
 * NULL, external data is read into the arena instead. On failure out->name
 * is set if the tensor's name could be decoded, so callers can name the
 * tensor in their message (onyx__tensor_decode behaves the same).
 */
onyx_status onyx__tensor_decode_at(const uint8_t *base, const uint8_t *bytes, size_t size,
                                   onyx__arena *arena, const char *dir, onyx__mapping **mappings,
                                   int depth, onyx__tensor *out, onyx_error *err);

/* External data slices smaller than this are read into the arena rather
 * than mapped: a mapping costs at least a page and one of the process's
 * limited map entries, which a model with many small tensors would exhaust. */
#define ONYX__EXTERNAL_MAP_MIN 65536

/*
 * Reads the external data of one tensor: the file `location` relative to
 * the folder dir, from byte offset, length bytes (or to the end of the file
 * when has_length is false), which must be exactly nbytes. The location may
 * not be absolute, contain "..", or pass through a symbolic link; the file
 * must be a regular file with no other hard link (see external.c). The
 * slice is mapped (recorded in *mappings) when mappings is not NULL, offset
 * is a multiple of align and the slice has at least ONYX__EXTERNAL_MAP_MIN
 * bytes; otherwise it is read into the arena.
 * *data is NULL when nbytes is 0. Errors: ONYX_EXTERNAL_DATA, ONYX_IO,
 * ONYX_OUT_OF_MEMORY.
 */
onyx_status onyx__external_read(const char *dir, const char *location, uint64_t offset,
                                bool has_length, uint64_t length, size_t nbytes, size_t align,
                                onyx__arena *arena, onyx__mapping **mappings, const void **data,
                                onyx_error *err);

/*
 * Maps the whole regular file at path read-only. Errors (messages without
 * the path, which the caller prefixes): ONYX_IO for a file that cannot be
 * opened or mapped, a folder or another non-regular file; ONYX_PARSE for an
 * empty file; ONYX_LIMIT above ONYX__MAX_FILE_SIZE. Unmap with
 * onyx__unmap_file.
 */
onyx_status onyx__map_file(const char *path, const uint8_t **bytes, size_t *size,
                           onyx_error *err);
void onyx__unmap_file(const uint8_t *bytes, size_t size);

/* A short, thread-safe description of an errno value for messages. */
const char *onyx__errno_text(int errnum);

/* The IR versions onyx reads. */
#define ONYX__MIN_IR_VERSION 3
#define ONYX__MAX_IR_VERSION 11

#endif
