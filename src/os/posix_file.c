/* SPDX-License-Identifier: MIT */
/*
 * The file part of the platform layer on POSIX systems. See os.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/os.h"

/* WASI has no mmap (wasi-libc's emulation copies the file anyway): "maps"
 * are reads into memory there, below. */
#if !defined(__wasi__)
#include <sys/mman.h>
#endif

const char *onyx__os_error_text(int error) {
  /* strerror is not required to be thread-safe and strerror_r has two
   * incompatible forms, so the errors a load can meet are spelled here. */
  switch (error) {
    case ENOENT:
      return "no such file or folder";
    case EACCES:
      return "permission denied";
    case EPERM:
      return "operation not permitted";
    case ENOTDIR:
    case ONYX__OS_E_NOT_FOLDER:
      return "a path component is not a folder";
    case EISDIR:
      return "is a folder";
    case ELOOP:
    case ONYX__OS_E_LINK:
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
    case ONYX__OS_E_UNSUPPORTED:
      return "not supported on this platform";
    default:
      return "system error";
  }
}

bool onyx__os_file_is_open(onyx__os_file f) { return f.fd >= 0; }

static int open_fd(int at, const char *path, int flags, onyx__os_file *out) {
  *out = ONYX__OS_FILE_NONE;
  int fd;
  do {
    fd = openat(at, path, flags, 0666); /* the mode counts only with O_CREAT */
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return errno;
  out->fd = fd;
  return 0;
}

int onyx__os_file_open(const char *path, onyx__os_file *out) {
  /* O_NONBLOCK keeps open from waiting on a FIFO or device. */
  return open_fd(AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, out);
}

int onyx__os_file_create(const char *path, onyx__os_file *out) {
  return open_fd(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, out);
}

int onyx__os_file_close(onyx__os_file f) {
  /* No retry on EINTR: on Linux the descriptor is gone whatever close
   * returns, and another thread may already have reused it. */
  if (f.fd < 0) return 0;
  return close(f.fd) != 0 ? errno : 0;
}

/* Refuses relative paths that could leave their folder. */
static int check_relative(const char *rel) {
  if (rel[0] == '\0') return ONYX__OS_E_EMPTY;
  if (rel[0] == '/') return ONYX__OS_E_ABSOLUTE;
  for (const char *p = rel; *p;) {
    size_t n = strcspn(p, "/");
    if (n == 2 && p[0] == '.' && p[1] == '.') return ONYX__OS_E_DOTDOT;
    p += n;
    if (*p == '/') p++;
  }
  return 0;
}

/* Why opening component name under folder fd failed with errno e. */
static int open_inside_error(int fd, const char *name, int e) {
  struct stat st;
  if ((e == ELOOP || e == ENOTDIR || e == EMLINK) &&
      fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
    return ONYX__OS_E_LINK;
  }
  return e == ENOTDIR ? ONYX__OS_E_NOT_FOLDER : e;
}

int onyx__os_file_open_inside(const char *dir, const char *rel, onyx__os_file *out, bool *in_dir,
                              size_t *at, size_t *len) {
  *out = ONYX__OS_FILE_NONE;
  *in_dir = false;
  *at = *len = 0;
  int e = check_relative(rel);
  if (e != 0) return e;
  onyx__os_file cur;
  e = open_fd(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, &cur);
  if (e != 0) {
    *in_dir = true;
    return e;
  }
  for (size_t i = 0;;) { /* ends at the last component */
    size_t n = strcspn(rel + i, "/");
    bool last = rel[i + n] == '\0';
    char name[1024];
    /* Empty and "." components name the folder we are in; a trailing
     * slash leaves the folder itself as the file, for the caller to
     * refuse as not regular. */
    if (n == 0 || (n == 1 && rel[i] == '.')) {
      if (last) break;
      i += n + 1;
      continue;
    }
    *at = i, *len = n;
    if (n >= sizeof name) {
      e = ENAMETOOLONG;
      break;
    }
    memcpy(name, rel + i, n);
    name[n] = '\0';
    /* O_NONBLOCK keeps a FIFO from blocking the open. */
    int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | (last ? O_NONBLOCK : O_DIRECTORY);
    onyx__os_file next;
#if defined(__wasi__)
    /* Node's WASI follows a link even when O_NOFOLLOW says not to, so a
     * link is refused by looking at the component first. A link swapped in
     * between the look and the open would be followed: WASI gives no way
     * to close that gap there. */
    struct stat st;
    if (fstatat(cur.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
      e = ONYX__OS_E_LINK;
      break;
    }
#endif
    e = open_fd(cur.fd, name, flags, &next);
    if (e != 0) {
      e = open_inside_error(cur.fd, name, e);
      break;
    }
    (void)onyx__os_file_close(cur);
    cur = next;
    if (last) break;
    i += n + 1;
  }
  if (e != 0) {
    (void)onyx__os_file_close(cur);
    return e;
  }
  *out = cur;
  return 0;
}

/* The fields of info from stat or fstat. */
static void info_from_stat(const struct stat *st, onyx__os_file_info *info) {
  info->kind = S_ISREG(st->st_mode)   ? ONYX__OS_REGULAR
               : S_ISDIR(st->st_mode) ? ONYX__OS_FOLDER
                                      : ONYX__OS_OTHER;
  info->links = (uint64_t)st->st_nlink;
  info->dev = (uint64_t)st->st_dev;
  info->ino = (uint64_t)st->st_ino;
  info->size = st->st_size < 0 ? 0 : (uint64_t)st->st_size;
  info->mtime_s = (int64_t)st->st_mtim.tv_sec;
  info->mtime_ns = (int64_t)st->st_mtim.tv_nsec;
}

int onyx__os_file_info_get(onyx__os_file f, onyx__os_file_info *info) {
  struct stat st;
  if (fstat(f.fd, &st) != 0) return errno;
  info_from_stat(&st, info);
  return 0;
}

int onyx__os_path_info(const char *path, onyx__os_file_info *info) {
  struct stat st;
  if (stat(path, &st) != 0) return errno;
  info_from_stat(&st, info);
  return 0;
}

int onyx__os_file_pread(onyx__os_file f, void *buf, size_t n, uint64_t offset, size_t *got) {
  *got = 0;
  while (*got < n) {
    uint64_t at = offset + *got;
    if (at > (uint64_t)INT64_MAX) return EOVERFLOW;
    ssize_t r = pread(f.fd, (uint8_t *)buf + *got, n - *got, (off_t)at);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno;
    if (r == 0) break;
    *got += (size_t)r;
  }
  return 0;
}

int onyx__os_file_write_all(onyx__os_file f, const void *p, size_t n) {
  const uint8_t *b = p;
  while (n > 0) {
    ssize_t w = write(f.fd, b, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return w < 0 ? errno : EIO;
    b += w;
    n -= (size_t)w;
  }
  return 0;
}

#if defined(__wasi__)
/* A copy of the bytes in memory, which onyx__os_unmap frees: the same
 * contract, since the mapping is read-only and private. */
int onyx__os_file_map(onyx__os_file f, uint64_t offset, size_t n, onyx__os_map *map,
                      const void **data) {
  void *addr = malloc(n);
  if (addr == NULL) return ENOMEM;
  size_t got;
  int e = onyx__os_file_pread(f, addr, n, offset, &got);
  if (e == 0 && got < n) e = EIO; /* the file shrank since it was measured */
  if (e != 0) {
    free(addr);
    return e;
  }
  map->addr = addr;
  map->size = n;
  *data = addr;
  return 0;
}

void onyx__os_unmap(onyx__os_map map) { free(map.addr); }
#else
int onyx__os_file_map(onyx__os_file f, uint64_t offset, size_t n, onyx__os_map *map,
                      const void **data) {
  /* mmap takes a page-aligned file offset: map from the page holding the
   * first byte. */
  long page = sysconf(_SC_PAGESIZE);
  uint64_t start = page > 0 ? offset - offset % (uint64_t)page : offset;
  uint64_t span = offset - start + n;
  if (span > SIZE_MAX || span < n || start > (uint64_t)INT64_MAX) return EOVERFLOW;
  void *addr = mmap(NULL, (size_t)span, PROT_READ, MAP_PRIVATE, f.fd, (off_t)start);
  if (addr == MAP_FAILED) return errno;
  map->addr = addr;
  map->size = (size_t)span;
  *data = (const uint8_t *)addr + (offset - start);
  return 0;
}

void onyx__os_unmap(onyx__os_map map) {
  if (map.addr != NULL) (void)munmap(map.addr, map.size);
}
#endif
