/* SPDX-License-Identifier: MIT */
/*
 * External tensor data: files next to the model that hold tensor payloads.
 *
 * A model is untrusted input, and its external data locations are paths it
 * chooses. onyx therefore only opens files inside the model's folder: the
 * location must be relative, may not contain a ".." component, and is
 * opened one component at a time without following links (on POSIX,
 * openat with O_NOFOLLOW; see onyx__os_file_open_inside), so that no
 * symbolic link is followed anywhere below the model's folder (the folder
 * itself may be reached through links, since the caller chose it). Opening
 * component by component from a folder handle leaves no window between
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
#include <stdio.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/format.h"
#include "model/model.h"
#include "os/os.h"

/* A build without files has none of this (model.h). */
#ifndef ONYX_OMIT_FILES

/* The message for a failure to open loc inside dir (onyx__os_file_open_inside's
 * error e, in_dir, and the component at [at, at + len) of loc). */
static onyx_status open_error(const char *dir, const char *loc, int e, bool in_dir, size_t at,
                              size_t len, onyx_error *err) {
  int n = len > 100 ? 100 : (int)len; /* the component, as '%.100s' */
  switch (e) {
    case ONYX__OS_E_EMPTY:
      return onyx__fail(err, ONYX_EXTERNAL_DATA, "external data location is empty");
    case ONYX__OS_E_ABSOLUTE:
      return onyx__fail(err, ONYX_EXTERNAL_DATA,
                        "external data location '%.200s' is absolute; it must be relative to the "
                        "model's folder",
                        loc);
    case ONYX__OS_E_DOTDOT:
      return onyx__fail(err, ONYX_EXTERNAL_DATA,
                        "external data location '%.200s' contains '..'; it must stay inside the "
                        "model's folder",
                        loc);
    case ONYX__OS_E_LINK:
      return onyx__fail(err, ONYX_EXTERNAL_DATA,
                        "external data location '%.200s': '%.*s' is a symbolic link, which onyx "
                        "does not follow",
                        loc, n, loc + at);
    case ONYX__OS_E_NOT_FOLDER:
      return onyx__fail(err, ONYX_EXTERNAL_DATA,
                        "external data location '%.200s': '%.*s' is not a folder", loc, n,
                        loc + at);
    default:
      break;
  }
  if (in_dir) {
    return onyx__fail(err, ONYX_IO, "cannot open the model's folder '%.200s': %s (errno %d)", dir,
                      onyx__os_error_text(e), e);
  }
  return onyx__fail(err, ONYX_IO, "cannot open external data '%.200s': %s (errno %d)", loc,
                    onyx__os_error_text(e), e);
}

/* Refuses anything but a regular file with one link. */
static onyx_status check_file(onyx__os_file file, const char *location, onyx__file_id *id,
                              onyx_error *err) {
  onyx__os_file_info info;
  int e = onyx__os_file_info_get(file, &info);
  if (e != 0) {
    return onyx__fail(err, ONYX_IO, "cannot stat external data '%.200s': %s (errno %d)", location,
                      onyx__os_error_text(e), e);
  }
  if (info.kind != ONYX__OS_REGULAR) {
    return onyx__fail(err, ONYX_EXTERNAL_DATA,
                      "external data location '%.200s' is not a regular file", location);
  }
  if (info.links > 1) {
    return onyx__fail(err, ONYX_EXTERNAL_DATA,
                      "external data file '%.200s' has %llu hard links; onyx reads external data "
                      "only from files with one link, since another link could bring a file "
                      "from outside the model's folder into it",
                      location, (unsigned long long)info.links);
  }
  char what[300];
  onyx__format(what, sizeof what, "external data '%.200s'", location);
  return onyx__file_identity(file, what, id, err);
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
                                bool has_length, uint64_t length, size_t nbytes,
                                onyx__os_file *file, onyx__file_id *id, onyx_error *err) {
  *file = ONYX__OS_FILE_NONE;
  onyx__os_file f;
  bool in_dir = false;
  size_t at = 0, len = 0;
  int e = onyx__os_file_open_inside(dir, location, &f, &in_dir, &at, &len);
  if (e != 0) return open_error(dir, location, e, in_dir, at, len, err);
  onyx_status st = check_file(f, location, id, err);
  if (st == ONYX_OK) st = check_slice(location, id->size, offset, has_length, length, nbytes, err);
  if (st != ONYX_OK) {
    (void)onyx__os_file_close(f);
    return st;
  }
  *file = f;
  return ONYX_OK;
}

#endif
