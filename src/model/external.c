/*
 * External tensor data: files next to the model that hold tensor payloads.
 *
 * A model is untrusted input, and its external data locations are paths it
 * chooses. onyx therefore only opens files inside the model's folder: the
 * location must be relative, may not contain a ".." component, and is
 * opened one component at a time with openat and O_NOFOLLOW, so that no
 * symbolic link is followed anywhere below the model's folder (the folder
 * itself may be reached through links, since the caller chose it). Opening
 * component by component from a folder descriptor leaves no window between
 * a check and the open in which the path could be swapped.
 *
 * Hard links cannot be told apart by path: a hard link inside the folder to
 * a file outside it is, to every check above, a file inside. Whoever
 * unpacks a downloaded model (tar, zip and cpio all create hard links) can
 * thus be made to place a link to, say, a private key beside the model,
 * and onyx would read it as tensor data, which a model's outputs can then
 * reveal. onyx therefore refuses an external data file with more than one
 * link (st_nlink > 1). The price is that deduplicated copies made with
 * `cp -l` or some package caches must be copied properly instead; a file
 * that needs to be shared can be a copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/error.h"
#include "model/model.h"

/* Refuses locations that could leave the model's folder. */
static onyx_status check_location(const char *loc, onyx_error *err) {
  if (loc[0] == '\0') {
    return onyx__fail(err, ONYX_EXTERNAL_DATA, "external data location is empty");
  }
  if (loc[0] == '/') {
    return onyx__fail(err, ONYX_EXTERNAL_DATA,
                      "external data location '%.200s' is absolute; it must be relative to the "
                      "model's folder",
                      loc);
  }
  for (const char *p = loc; *p;) {
    const char *slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    if (n == 2 && p[0] == '.' && p[1] == '.') {
      return onyx__fail(err, ONYX_EXTERNAL_DATA,
                        "external data location '%.200s' contains '..'; it must stay inside the "
                        "model's folder",
                        loc);
    }
    p += n;
    if (*p == '/') p++;
  }
  return ONYX_OK;
}

/* Why an openat of component `name` under folder fd failed, as a status. */
static onyx_status open_error(int fd, const char *name, const char *loc, int e, onyx_error *err) {
  struct stat st;
  if ((e == ELOOP || e == ENOTDIR || e == EMLINK) &&
      fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
    return onyx__fail(err, ONYX_EXTERNAL_DATA,
                      "external data location '%.200s': '%.100s' is a symbolic link, which onyx "
                      "does not follow",
                      loc, name);
  }
  if (e == ENOTDIR) {
    return onyx__fail(err, ONYX_EXTERNAL_DATA,
                      "external data location '%.200s': '%.100s' is not a folder", loc, name);
  }
  return onyx__fail(err, ONYX_IO, "cannot open external data '%.200s': %s (errno %d)", loc,
                    onyx__errno_text(e), e);
}

/* Opens the regular file at loc under dir without following any link. */
static onyx_status open_inside(const char *dir, const char *loc, int *out, onyx_error *err) {
  size_t n = strlen(loc);
  char *copy = onyx__malloc(n + 1);
  if (copy == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  memcpy(copy, loc, n + 1);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    onyx__free(copy);
    return onyx__fail(err, ONYX_IO, "cannot open the model's folder '%.200s': %s (errno %d)", dir,
                      onyx__errno_text(e), e);
  }
  onyx_status st = ONYX_OK;
  char *p = copy;
  for (;;) {
    char *slash = strchr(p, '/');
    if (slash != NULL) *slash = '\0';
    bool last = slash == NULL;
    /* Empty and "." components name the folder we are in. A trailing
     * slash leaves the folder itself as the "file", refused below. */
    if (p[0] == '\0' || strcmp(p, ".") == 0) {
      if (last) break;
      p = slash + 1;
      continue;
    }
    /* O_NONBLOCK keeps a FIFO from blocking the open; it is refused by the
     * regular-file check after. */
    int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | (last ? O_NONBLOCK : O_DIRECTORY);
    int next = openat(fd, p, flags);
    if (next < 0) {
      st = open_error(fd, p, loc, errno, err);
      break;
    }
    close(fd);
    fd = next;
    if (last) break;
    p = slash + 1;
  }
  onyx__free(copy);
  if (st != ONYX_OK) {
    close(fd);
    return st;
  }
  *out = fd;
  return ONYX_OK;
}

/* Refuses anything but a regular file with one link. */
static onyx_status check_file(int fd, const char *location, onyx__file_id *id, onyx_error *err) {
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    int e = errno;
    return onyx__fail(err, ONYX_IO, "cannot stat external data '%.200s': %s (errno %d)", location,
                      onyx__errno_text(e), e);
  }
  if (!S_ISREG(sb.st_mode)) {
    return onyx__fail(err, ONYX_EXTERNAL_DATA,
                      "external data location '%.200s' is not a regular file", location);
  }
  if (sb.st_nlink > 1) {
    return onyx__fail(err, ONYX_EXTERNAL_DATA,
                      "external data file '%.200s' has %llu hard links; onyx reads external data "
                      "only from files with one link, since another link could bring a file "
                      "from outside the model's folder into it",
                      location, (unsigned long long)sb.st_nlink);
  }
  char what[300];
  snprintf(what, sizeof what, "external data '%.200s'", location);
  return onyx__file_identity(fd, what, id, err);
}

/* Checks that the slice [offset, offset + length) lies in the file and
 * holds exactly nbytes. */
static onyx_status check_slice(const char *location, uint64_t fsize, uint64_t offset,
                               bool has_length, uint64_t length, size_t nbytes, onyx_error *err) {
  if (offset > fsize) {
    return onyx__fail(err, ONYX_EXTERNAL_DATA,
                      "external data offset %llu is past the end of '%.200s' (%llu bytes)",
                      (unsigned long long)offset, location, (unsigned long long)fsize);
  }
  if (has_length && length > fsize - offset) {
    return onyx__fail(err, ONYX_EXTERNAL_DATA,
                      "external data offset %llu + length %llu runs past the end of '%.200s' "
                      "(%llu bytes)",
                      (unsigned long long)offset, (unsigned long long)length, location,
                      (unsigned long long)fsize);
  }
  uint64_t have = has_length ? length : fsize - offset;
  if (have != (uint64_t)nbytes) {
    return onyx__fail(err, ONYX_EXTERNAL_DATA,
                      "external data in '%.200s' has %llu bytes%s; the tensor needs %zu", location,
                      (unsigned long long)have,
                      has_length ? " (length)" : " (offset to end of file)", nbytes);
  }
  return ONYX_OK;
}

onyx_status onyx__external_open(const char *dir, const char *location, uint64_t offset,
                                bool has_length, uint64_t length, size_t nbytes, int *fd,
                                onyx__file_id *id, onyx_error *err) {
  *fd = -1;
  ONYX__TRY(check_location(location, err));
  int f = -1;
  ONYX__TRY(open_inside(dir, location, &f, err));
  onyx_status st = check_file(f, location, id, err);
  if (st == ONYX_OK) st = check_slice(location, id->size, offset, has_length, length, nbytes, err);
  if (st != ONYX_OK) {
    close(f);
    return st;
  }
  *fd = f;
  return ONYX_OK;
}
