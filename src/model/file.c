/*
 * Loading models from files and memory, and freeing them.
 *
 * A model file is mapped read-only and privately: tensor payloads then point
 * into the mapping, so that a large model costs no copy. If another process
 * truncates the file while it is mapped, reads of the lost pages fault
 * (SIGBUS); that is the usual price of mapping, and the reason the mapping
 * is private and read-only is only that onyx never writes to it.
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

onyx_status onyx__map_file(const char *path, const uint8_t **bytes, size_t *size, onyx_error *err) {
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
  void *p = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
  int e = errno;
  close(fd); /* the mapping keeps the file open */
  if (p == MAP_FAILED) {
    return onyx__fail(err, ONYX_IO, "cannot map: %s (errno %d)", onyx__errno_text(e), e);
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
  /* The mapping records live in the arena, so they are walked first. */
  for (onyx__mapping *m = model->mappings; m != NULL; m = m->next) munmap(m->addr, m->size);
  model->mappings = NULL;
  if (model->mapping != NULL) munmap(model->mapping, model->mapping_size);
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

onyx_status onyx_model_load_file(const char *path, onyx_model **out, onyx_error *err) {
  if (out != NULL) *out = NULL;
  if (path == NULL || out == NULL) {
    return onyx__fail(err, ONYX_INVALID_ARGUMENT, "onyx_model_load_file: %s is NULL",
                      path == NULL ? "path" : "out");
  }
  if (path[0] == '\0') return onyx__fail(err, ONYX_INVALID_ARGUMENT, "the path is empty");
  onyx_model *m = onyx__calloc(1, sizeof *m);
  if (m == NULL) {
    onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory allocating the model");
    onyx__error_prefix(err, "%s", path);
    return ONYX_OUT_OF_MEMORY;
  }
  const uint8_t *bytes = NULL;
  size_t size = 0;
  onyx_status st = onyx__map_file(path, &bytes, &size, err);
  if (st == ONYX_OK) {
    m->bytes = bytes;
    m->size = size;
    m->mapping = (void *)(uintptr_t)bytes;
    m->mapping_size = size;
    m->path = onyx__arena_strndup(&m->arena, path, strlen(path));
    m->dir = dir_of(&m->arena, path);
    if (m->path == NULL || m->dir == NULL) {
      st = onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
    } else {
      st = onyx__model_parse(m, err);
    }
  }
  if (st != ONYX_OK) {
    onyx__error_prefix(err, "%s", path);
    onyx_model_free(m);
    return st;
  }
  *out = m;
  return ONYX_OK;
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
  if (size == 0) return onyx__fail(err, ONYX_PARSE, "the model is empty (0 bytes)");
  if ((uint64_t)size > (uint64_t)ONYX__MAX_FILE_SIZE) {
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
    onyx_model_free(m);
    return st;
  }
  *out = m;
  return ONYX_OK;
}
