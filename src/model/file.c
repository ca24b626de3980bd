/* SPDX-License-Identifier: MIT */
/*
 * Loading models from files and memory, and freeing them.
 *
 * A model file is mapped read-only only while it is parsed: parsing touches
 * the messages' headers and small fields, and records each large payload as
 * a (file offset, length) to read on first use (payload.c), so loading a
 * model with a 1 GiB initializer reads a few pages. The mapping is gone when
 * the load returns, so a file truncated afterwards cannot fault; the file
 * stays open while a deferred payload lies in it.
 */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "model/model.h"
#include "model/payloads.h"
#include "os/os.h"

#ifndef ONYX_OMIT_FILES /* a build without files loads from memory only */
/* Refuses what cannot be a model or tensor file, by its info. */
static onyx_status check_info(const onyx__os_file_info *info, onyx_error *err) {
  if (info->kind == ONYX__OS_FOLDER) return onyx__fail(err, ONYX_IO, "is a folder, not a file");
  if (info->kind != ONYX__OS_REGULAR) return onyx__fail(err, ONYX_IO, "is not a regular file");
  if (info->size == 0) return onyx__fail(err, ONYX_PARSE, "the file is empty");
  if (info->size > (uint64_t)ONYX__MAX_FILE_SIZE || info->size > SIZE_MAX) {
    return onyx__fail(err, ONYX_LIMIT, "the file has %lld bytes; onyx reads at most %lld",
                      (long long)info->size, (long long)ONYX__MAX_FILE_SIZE);
  }
  return ONYX_OK;
}

/* Maps the open file f, of info's size; fills id when not NULL. */
static onyx_status map_open(onyx__os_file f, const onyx__os_file_info *info, const uint8_t **bytes,
                            onyx__file_id *id, onyx_error *err) {
  ONYX__TRY(check_info(info, err));
  if (id != NULL && onyx__file_identity(f, "the file", id, err) != ONYX_OK) return ONYX_IO;
  onyx__os_map map;
  const void *data = NULL;
  int e = onyx__os_file_map(f, 0, (size_t)info->size, &map, &data);
  if (e != 0) {
    return onyx__fail(err, ONYX_IO, "cannot map: %s (errno %d)", onyx__os_error_text(e), e);
  }
  *bytes = data;
  return ONYX_OK;
}

onyx_status onyx__map_file(const char *path, const uint8_t **bytes, size_t *size,
                           onyx__os_file *file, onyx__file_id *id, onyx_error *err) {
  onyx__os_file f;
  int e = onyx__os_file_open(path, &f);
  if (e != 0) {
    return onyx__fail(err, ONYX_IO, "cannot open: %s (errno %d)", onyx__os_error_text(e), e);
  }
  onyx__os_file_info info;
  e = onyx__os_file_info_get(f, &info);
  onyx_status st =
      e != 0 ? onyx__fail(err, ONYX_IO, "cannot stat: %s (errno %d)", onyx__os_error_text(e), e)
             : map_open(f, &info, bytes, id, err);
  if (st != ONYX_OK || file == NULL) {
    (void)onyx__os_file_close(f); /* a mapping keeps its file open */
  } else {
    *file = f;
  }
  if (st == ONYX_OK) *size = (size_t)info.size;
  return st;
}

/* The mapping of a whole file starts at its first byte (see os.h). */
void onyx__unmap_file(const uint8_t *bytes, size_t size) {
  if (bytes != NULL) onyx__os_unmap((onyx__os_map){(void *)(uintptr_t)bytes, size});
}

#endif

void onyx_model_free(onyx_model *model) {
  if (model == NULL) return;
  onyx__payloads_free(model->payloads);
#ifndef ONYX_OMIT_FILES
  onyx__unmap_file(model->mapping, model->mapping_size);
#endif
  onyx__arena_free(&model->arena);
  onyx__free(model);
}

#ifndef ONYX_OMIT_FILES

/* The folder part of path: "a/b/m.onnx" -> "a/b", "m.onnx" -> ".",
 * "/m.onnx" -> "/"; on Windows also "a\m.onnx" -> "a" and "C:\m.onnx" ->
 * "C:\" (the root, not drive C's current folder). */
static const char *dir_of(onyx__arena *arena, const char *path) {
  const char *slash = NULL;
  for (const char *p = path; *p != '\0'; p++)
    if (onyx__os_is_sep(*p)) slash = p;
  if (slash == NULL) return onyx__arena_strndup(arena, ".", 1);
  size_t n = (size_t)(slash - path), root = onyx__os_root_len(path);
  return onyx__arena_strndup(arena, path, n < root ? root : n);
}

/* Maps the file at path and parses it into m; unmaps it again unless
 * keep, when tensors point into the mapping. */
static onyx_status load_mapped(onyx_model *m, const char *path, bool keep, onyx_error *err) {
  const uint8_t *bytes = NULL;
  size_t size = 0;
  onyx__os_file file = ONYX__OS_FILE_NONE;
  onyx__file_id id;
  onyx_status mapped = onyx__map_file(path, &bytes, &size, &file, &id, err);
  if (mapped != ONYX_OK) {
    onyx__sniff_model(NULL, 0, err); /* its one ONYX_PARSE: an empty file */
    return mapped;
  }
  m->path = onyx__arena_strndup(&m->arena, path, strlen(path));
  m->dir = dir_of(&m->arena, path);
  onyx_status st = ONYX_OK;
  if (m->path == NULL || m->dir == NULL) {
    (void)onyx__os_file_close(file);
    st = onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  } else {
    st = onyx__payloads_new(file, &id, m->dir, &m->payloads, err); /* owns file from here */
    if (st != ONYX_OK) (void)onyx__os_file_close(file);
  }
  if (st == ONYX_OK) {
    m->bytes = bytes;
    m->size = size;
    if (keep) m->mapping = bytes, m->mapping_size = size;
    st = onyx__model_parse(m, err);
    if (st != ONYX_OK) onyx__sniff_model(bytes, size, err); /* while still mapped */
  }
  /* Without keep nothing points into the mapping after a parse: strings
   * and small payloads were copied, large ones deferred. */
  if (m->mapping == NULL) onyx__unmap_file(bytes, size);
  m->bytes = NULL;
  if (st == ONYX_OK && !onyx__payloads_uses_model_file(m->payloads)) {
    onyx__payloads_close_model_file(m->payloads);
  }
  return st;
}
#endif

static onyx_status load_file(const char *path, bool keep, onyx_model **out, onyx_error *err) {
  if (out != NULL) *out = NULL;
  if (path == NULL || out == NULL) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_model_load_file: %s is NULL",
                      path == NULL ? "path" : "out");
  }
  if (path[0] == '\0') return onyx__fail(err, ONYX_INVALID_ARGUMENT, "the path is empty");
#ifdef ONYX_OMIT_FILES
  (void)keep;
  return onyx__fail(err, ONYX_IO,
                    "%s: files are left out of this build; load the model with "
                    "onyx_model_load_memory()",
                    path);
#else
  onyx_model *m = onyx__calloc(1, sizeof *m);
  onyx_status st = m != NULL
                       ? load_mapped(m, path, keep, err)
                       : onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory allocating the model");
  if (st != ONYX_OK) {
    onyx__error_prefix(err, "%s", path);
    onyx_model_free(m);
    return st;
  }
  *out = m;
  return ONYX_OK;
#endif
}

onyx_status onyx_model_load_file(const char *path, onyx_model **out, onyx_error *err) {
  return load_file(path, false, out, err);
}

onyx_status onyx_model_load_file_mapped(const char *path, onyx_model **out, onyx_error *err) {
  return load_file(path, true, out, err);
}

#ifndef ONYX_OMIT_FILES
onyx_status onyx__model_load_payloads(const onyx_model *model, onyx_error *err) {
  if (model == NULL) return ONYX_OK;
  onyx_status st = onyx__payloads_load(model->payloads, err);
  if (st != ONYX_OK) onyx__error_prefix(err, "%s", model->path);
  return st;
}
#endif

onyx_status onyx_model_load_memory(const void *data, size_t size, onyx_model **out,
                                   onyx_error *err) {
  if (out != NULL) *out = NULL;
  if (out == NULL) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_model_load_memory: out is NULL");
  }
  if (data == NULL && size != 0) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT,
                      "onyx_model_load_memory: data is NULL but size is %zu", size);
  }
  if (size == 0) return onyx__fail(err, ONYX_PARSE, "not an ONNX model: it is empty (0 bytes)");
  if ((uint64_t)size - 1u >= (uint64_t)ONYX__MAX_FILE_SIZE) { /* size > max; size != 0 here */
    return onyx__fail(err, ONYX_LIMIT, "the model has %zu bytes; onyx reads at most %lld", size,
                      (long long)ONYX__MAX_FILE_SIZE);
  }
  onyx_model *m = onyx__calloc(1, sizeof *m);
  if (m == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory allocating the model");
  m->bytes = data;
  m->size = size;
  m->dir = NULL;
  m->path = "<memory>";
  onyx_status st = onyx__model_parse(m, err);
  if (st != ONYX_OK) {
    onyx__sniff_model(m->bytes, m->size, err);
    onyx_model_free(m);
    return st;
  }
  *out = m;
  return ONYX_OK;
}
