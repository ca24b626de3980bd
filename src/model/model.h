/* SPDX-License-Identifier: MIT */
/*
 * The decoded ONNX model: the part of the schema onyx needs, as plain
 * structs. Everything lives in the model's arena; strings are NUL-terminated
 * copies (they are small). Tensor payloads (they can be large) are copied
 * when small, point into the caller's bytes for a model loaded from memory,
 * and for a model file are read on first use (onyx__payloads).
 */
#ifndef ONYX_MODEL_MODEL_H
#define ONYX_MODEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/alloc.h"
#include "core/error.h"
#include "model/pb.h"
#include "onyx.h"
#include "os/os.h"

/* Limits; each is an ONYX_LIMIT error with its own message when exceeded. */
#define ONYX__MAX_NESTING   64                 /* nested protobuf messages */
#define ONYX__MAX_ELEMENTS  (INT64_C(1) << 40) /* elements in one tensor */
#define ONYX__MAX_FILE_SIZE (INT64_C(1) << 40)

/* A decoded TensorProto. */
typedef struct onyx__tensor {
  const char *name;
  onyx_dtype dtype;
  uint32_t rank;
  int64_t dims[ONYX_MAX_RANK];
  size_t count;     /* product of dims (1 for rank 0) */
  const void *data; /* count * dtype size bytes, host order, any alignment; NULL if
                     * count == 0, or until a deferred payload is read */
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
  bool has_type;    /* a tensor_type is present */
  onyx_dtype dtype; /* may be a value onyx does not know; checked later */
  int32_t raw_elem_type;
  bool has_shape;
  uint32_t rank;
  int64_t dims[ONYX_MAX_RANK];           /* -1 for symbolic or absent */
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

/* The ModelProto's descriptive fields (onyx_model_metadata). */
typedef struct onyx__meta {
  const char *producer_name, *producer_version, *domain, *doc_string;
  int64_t model_version;
  size_t n_props;
  const char **keys, **values;
} onyx__meta;

typedef struct onyx__opset {
  const char *domain; /* "" for ai.onnx */
  int64_t version;
} onyx__opset;

/* Identity of a file, to notice that it changed between load and use. */
typedef struct onyx__file_id {
  uint64_t dev, ino, size;
  int64_t mtime_s, mtime_ns;
} onyx__file_id;

/* Payloads of at least this many bytes are left in their file at load and
 * read on first use (onyx__payloads_load); smaller ones are copied at load,
 * so that nothing small points into a file. */
#define ONYX__DEFER_MIN 65536

/* A payload left in its file at load: bytes [offset, offset + nbytes) of
 * the model file (location NULL) or of external data file location. */
typedef struct onyx__deferred {
  onyx__tensor *tensor; /* its data is set once read */
  const char *location; /* external data location, or NULL for the model file */
  uint64_t offset;
  onyx__file_id id; /* the external file's identity at load */
} onyx__deferred;

/*
 * A model's deferred payloads. After load nothing touches a mapping: each
 * payload is read with pread into memory the model owns, the first time a
 * run needs it, after checking that the file is still the one loaded (same
 * device, inode, size and modification time). A file truncated or rewritten
 * after load therefore gives ONYX_IO naming it, never a fault, and never
 * other weights. Loading takes `lock`, so runs of several sessions of one
 * model may start at once; `done` lets later runs skip the lock.
 */
typedef struct onyx__payloads onyx__payloads;

#ifdef ONYX_OMIT_FILES
/* A build without files (docs/build-config.md) loads models from memory
 * only, so no model has deferred payloads: payload.c, external.c and the
 * file half of file.c compile to nothing, and these are what is left. */
static inline onyx_status onyx__payloads_load(onyx__payloads *p, onyx_error *err) {
  return (void)p, (void)err, ONYX_OK;
}
static inline void onyx__payloads_free(onyx__payloads *p) { (void)p; }
#else
/* Records a deferred payload (its own copy of location is made). */
onyx_status onyx__payloads_add(onyx__payloads *p, const onyx__deferred *d, onyx_error *err);
/* Reads every payload not yet read; ONYX_OK at once after the first success. */
onyx_status onyx__payloads_load(onyx__payloads *p, onyx_error *err);
#endif

struct onyx_model {
  onyx__arena arena;
  /* The bytes: the caller's buffer, or a read-only mapping of the file that
   * lives only while the model is parsed (NULL after). */
  const uint8_t *bytes;
  size_t size;
  /* A mapping of the file kept for the model's life (NULL but with
   * onyx_model_load_file_mapped); tensors point into it. */
  const uint8_t *mapping;
  size_t mapping_size;
  const char *dir;  /* folder of the model file, for external data; NULL from memory */
  const char *path; /* for messages; "<memory>" when loaded from memory */

  int64_t ir_version;
  size_t n_opsets;
  onyx__opset *opsets;
  int64_t onnx_opset; /* the ai.onnx version (validated at load); 0: none imported */
  onyx__graph graph;
  onyx__payloads *payloads; /* NULL when loaded from memory */
  onyx__meta meta;
};

/* Where a tensor message comes from, and what becomes of its payload. */
typedef struct onyx__tensor_src {
  const uint8_t *base; /* start of the buffer the message lies in; offsets count from it */
  onyx__arena *arena;  /* receives the tensor's name, small payloads and typed fields */
  const char *dir;     /* folder external data is relative to, or NULL to refuse it */
  /* When not NULL, base is a file being parsed: external payloads of
   * ONYX__DEFER_MIN bytes or more are recorded here and read on first use,
   * and so are such raw_data payloads unless in_place. When NULL, external
   * data is read into the arena. */
  onyx__payloads *deferred;
  /* raw_data payloads are used where they lie, because base outlives the
   * tensor (the caller's bytes, or a mapping kept by the model); only
   * small unaligned ones are copied. */
  bool in_place;
} onyx__tensor_src;

/*
 * Decodes a TensorProto message at bytes[0..size), which lies in src->base,
 * into *out. depth is the current nesting depth. Messages do not name the
 * tensor: callers prefix them with what the tensor is; on failure out->name
 * is set if the name could be decoded. A deferred tensor has data NULL
 * until onyx__payloads_load reads it.
 */
onyx_status onyx__tensor_decode_at(const onyx__tensor_src *src, const uint8_t *bytes, size_t size,
                                   int depth, onyx__tensor *out, onyx_error *err);

/* onyx__tensor_decode_at of a whole buffer with nothing deferred. */
onyx_status onyx__tensor_decode(const uint8_t *bytes, size_t size, onyx__arena *arena,
                                const char *dir, int depth, onyx__tensor *out, onyx_error *err);

/* Parses a whole ModelProto into model (whose bytes/size/dir/path are set,
 * and payloads when the bytes are a file's). Checks wire format, ir_version
 * and opset imports and decodes every tensor; graph-level checks are the
 * session's. */
onyx_status onyx__model_parse(onyx_model *model, onyx_error *err);

/* Reads the model's deferred payloads if a run needs them for the first
 * time; the message names the file. Safe to call from several threads. */
#ifdef ONYX_OMIT_FILES
static inline onyx_status onyx__model_load_payloads(const onyx_model *model, onyx_error *err) {
  return (void)model, (void)err, ONYX_OK; /* no payload is deferred without files */
}
#else
onyx_status onyx__model_load_payloads(const onyx_model *model, onyx_error *err);
#endif
/* After a failed load of bytes[0..size) (size 0: an empty file): when err
 * holds ONYX_PARSE, ONYX_IR_VERSION or ONYX_OPSET and the first bytes are
 * not those of a ModelProto (text, .npy, a TensorProto), prefixes the
 * message with "not an ONNX model (what it looks like)". sniff.c. A build
 * without messages (ONYX_OMIT_MESSAGES) has nothing to prefix: the status
 * is the reader's either way, and the sniffer is left out. */
#ifdef ONYX_OMIT_MESSAGES
static inline void onyx__sniff_model(const uint8_t *bytes, size_t size, onyx_error *err) {
  (void)bytes, (void)size, (void)err;
}
#else
void onyx__sniff_model(const uint8_t *bytes, size_t size, onyx_error *err);
#endif

/* Checked product of dims into *count; ONYX_SHAPE on a negative dim,
 * ONYX_LIMIT on overflow or more than ONYX__MAX_ELEMENTS elements. */
onyx_status onyx__shape_count(const int64_t *dims, uint32_t rank, size_t *count, onyx_error *err);

/* ONYX_LIMIT when depth exceeds ONYX__MAX_NESTING; offset is where the
 * message starts, for the message. */
onyx_status onyx__check_depth(int depth, size_t offset, onyx_error *err);

/* Copies a length-delimited string field into the arena. Strings are used
 * as C strings, so one holding a NUL byte is ONYX_PARSE. */
onyx_status onyx__copy_string(onyx__arena *arena, const onyx__pb_field *f, const char *what,
                              const char **out, onyx_error *err);

/*
 * Opens the external data file `location` relative to the folder dir and
 * checks that bytes [offset, offset + length) (to the end of the file when
 * has_length is false) exist and are exactly nbytes. The location may not
 * be absolute, contain "..", or pass through a symbolic link; the file must
 * be a regular file with no other hard link (see external.c). On success
 * *file is open (the caller closes it) and *id is the file's identity.
 * Errors: ONYX_EXTERNAL_DATA, ONYX_IO, ONYX_OUT_OF_MEMORY.
 */
onyx_status onyx__external_open(const char *dir, const char *location, uint64_t offset,
                                bool has_length, uint64_t length, size_t nbytes,
                                onyx__os_file *file, onyx__file_id *id, onyx_error *err);

/* Reads exactly n bytes at offset of file into buf. ONYX_IO naming `what`
 * when the file is shorter than that or cannot be read. */
onyx_status onyx__pread_full(onyx__os_file file, void *buf, size_t n, uint64_t offset,
                             const char *what, onyx_error *err);

/* The identity of an open file; ONYX_IO naming `what` if it cannot be had. */
onyx_status onyx__file_identity(onyx__os_file file, const char *what, onyx__file_id *id,
                                onyx_error *err);

/*
 * Maps the whole regular file at path read-only. Errors (messages without
 * the path, which the caller prefixes): ONYX_IO for a file that cannot be
 * opened or mapped, a folder or another non-regular file; ONYX_PARSE for an
 * empty file; ONYX_LIMIT above ONYX__MAX_FILE_SIZE. When file is not NULL it
 * receives the open file (the caller closes it) and id its identity. Unmap
 * with onyx__unmap_file.
 */
onyx_status onyx__map_file(const char *path, const uint8_t **bytes, size_t *size,
                           onyx__os_file *file, onyx__file_id *id, onyx_error *err);
void onyx__unmap_file(const uint8_t *bytes, size_t size);

/* The attribute as the API describes it (onyx_attribute_info), pointing
 * into the model. attrs.c. */
void onyx__attr_view(const onyx__attr *a, onyx_attribute_info *out);

/* The IR versions onyx reads. */
#define ONYX__MIN_IR_VERSION 3
#define ONYX__MAX_IR_VERSION 11

#endif
