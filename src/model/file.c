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
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/error.h"
#include "model/model.h"
#include "model/payloads.h"

const char *onyx__errno_text(int errnum) {
  /* strerror is not required to be thread-safe and strerror_r has two
   * incompatible forms, so the errors a load can meet are spelled here. */
  switch (errnum) {
    case ENOENT:
      return "no such file or folder";
    case EACCES:
      return "permission denied";
    case EPERM:
      return "operation not permitted";
    case ENOTDIR:
      return "a path component is not a folder";
    case EISDIR:
      return "is a folder";
    case ELOOP:
      return "too many symbolic links, or a refused symbolic link";
    case ENAMETOOLONG:
      return "name too long";
    case EMFILE:
    case ENFILE:
      return "too many open files";
    case ENOMEM:
      return "out of memory";
    case ENOSPC:
      return "no space left on device";
    case EROFS:
      return "read-only file system";
    case EIO:
      return "input/output error";
    case ENODEV:
      return "the file system does not support mapping";
    case EINVAL:
      return "invalid argument";
    default:
      return "system error";
  }
}

onyx_status onyx__map_file(const char *path, const uint8_t **bytes, size_t *size, int *fd_out,
                           onyx__file_id *id, onyx_error *err) {
  /* O_NONBLOCK keeps open from waiting on a FIFO or device; such files are
   * refused right after by the regular-file check. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    int e = errno;
    return onyx__fail(err, ONYX_IO, "cannot open: %s (errno %d)", onyx__errno_text(e), e);
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return onyx__fail(err, ONYX_IO, "cannot stat: %s (errno %d)", onyx__errno_text(e), e);
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return onyx__fail(err, ONYX_IO, "is a folder, not a file");
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return onyx__fail(err, ONYX_IO, "is not a regular file");
  }
  if (st.st_size <= 0) {
    close(fd);
    return onyx__fail(err, ONYX_PARSE, "the file is empty");
  }
  if ((uint64_t)st.st_size > (uint64_t)ONYX__MAX_FILE_SIZE || (uint64_t)st.st_size > SIZE_MAX) {
    close(fd);
    return onyx__fail(err, ONYX_LIMIT, "the file has %lld bytes; onyx reads at most %lld",
                      (long long)st.st_size, (long long)ONYX__MAX_FILE_SIZE);
  }
  size_t n = (size_t)st.st_size;
  if (id != NULL && onyx__file_identity(fd, "the file", id, err) != ONYX_OK) {
    close(fd);
    return ONYX_IO;
  }
  void *p = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
  int e = errno;
  if (p == MAP_FAILED) {
    close(fd);
    return onyx__fail(err, ONYX_IO, "cannot map: %s (errno %d)", onyx__errno_text(e), e);
  }
  if (fd_out != NULL) {
    *fd_out = fd;
  } else {
    close(fd); /* the mapping keeps the file open */
  }
  *bytes = p;
  *size = n;
  return ONYX_OK;
}

void onyx__unmap_file(const uint8_t *bytes, size_t size) {
  if (bytes != NULL) munmap((void *)(uintptr_t)bytes, size);
}

void onyx_model_free(onyx_model *model) {
  if (model == NULL) return;
  onyx__payloads_free(model->payloads);
  onyx__unmap_file(model->mapping, model->mapping_size);
  onyx__arena_free(&model->arena);
  onyx__free(model);
}

/* The folder part of path: "a/b/m.onnx" -> "a/b", "m.onnx" -> ".",
 * "/m.onnx" -> "/". */
static const char *dir_of(onyx__arena *arena, const char *path) {
  const char *slash = strrchr(path, '/');
  if (slash == NULL) return onyx__arena_strndup(arena, ".", 1);
  if (slash == path) return onyx__arena_strndup(arena, "/", 1);
  return onyx__arena_strndup(arena, path, (size_t)(slash - path));
}

/* Maps the file at path and parses it into m; unmaps it again unless
 * keep, when tensors point into the mapping. */
static onyx_status load_mapped(onyx_model *m, const char *path, bool keep, onyx_error *err) {
  const uint8_t *bytes = NULL;
  size_t size = 0;
  int fd = -1;
  onyx__file_id id;
  onyx_status mapped = onyx__map_file(path, &bytes, &size, &fd, &id, err);
  if (mapped != ONYX_OK) {
    onyx__sniff_model(NULL, 0, err); /* its one ONYX_PARSE: an empty file */
    return mapped;
  }
  m->path = onyx__arena_strndup(&m->arena, path, strlen(path));
  m->dir = dir_of(&m->arena, path);
  onyx_status st = ONYX_OK;
  if (m->path == NULL || m->dir == NULL) {
    close(fd);
    st = onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  } else {
    st = onyx__payloads_new(fd, &id, m->dir, &m->payloads, err); /* owns fd from here */
    if (st != ONYX_OK) close(fd);
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

static onyx_status load_file(const char *path, bool keep, onyx_model **out, onyx_error *err) {
  if (out != NULL) *out = NULL;
  if (path == NULL || out == NULL) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_model_load_file: %s is NULL",
                      path == NULL ? "path" : "out");
  }
  if (path[0] == '\0') return onyx__fail(err, ONYX_INVALID_ARGUMENT, "the path is empty");
  onyx_model *m = onyx__calloc(1, sizeof *m);
  onyx_status st = m != NULL ? load_mapped(m, path, keep, err)
                             : onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory allocating the model");
  if (st != ONYX_OK) {
    onyx__error_prefix(err, "%s", path);
    onyx_model_free(m);
    return st;
  }
  *out = m;
  return ONYX_OK;
}

onyx_status onyx_model_load_file(const char *path, onyx_model **out, onyx_error *err) {
  return load_file(path, false, out, err);
}

onyx_status onyx_model_load_file_mapped(const char *path, onyx_model **out, onyx_error *err) {
  return load_file(path, true, out, err);
}

onyx_status onyx__model_load_payloads(const onyx_model *model, onyx_error *err) {
  if (model == NULL) return ONYX_OK;
  onyx_status st = onyx__payloads_load(model->payloads, err);
  if (st != ONYX_OK) onyx__error_prefix(err, "%s", model->path);
  return st;
}

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
