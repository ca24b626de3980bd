/* SPDX-License-Identifier: MIT */
/*
 * Deferred payloads: large tensor data left in its file at load and read
 * the first time a run needs it.
 *
 * Mapping a file and pointing tensors into the mapping costs no copy, but a
 * mapping faults (SIGBUS) when another process truncates the file, and
 * shows new bytes when one rewrites it. Reading with pread into memory the
 * model owns costs the same resident memory as touching the mapping would,
 * and a file that changed is then an error naming it: the identity recorded
 * at load (device, inode, size, modification time) is checked before each
 * read, and a short read is refused. Models loaded from memory do not come
 * here: their tensors point into the caller's bytes.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/byteorder.h"
#include "core/error.h"
#include "core/format.h"
#include "model/model.h"
#include "model/payloads.h"
#include "os/os.h"

/* A build without files has none of this (model.h). */
#ifndef ONYX_OMIT_FILES

onyx_status onyx__file_identity(onyx__os_file file, const char *what, onyx__file_id *id,
                                onyx_error *err) {
  onyx__os_file_info info;
  int e = onyx__os_file_info_get(file, &info);
  if (e != 0) {
    return onyx__fail(err, ONYX_IO, "cannot stat %s: %s (errno %d)", what, onyx__os_error_text(e),
                      e);
  }
  id->dev = info.dev;
  id->ino = info.ino;
  id->size = info.size;
  id->mtime_s = info.mtime_s;
  id->mtime_ns = info.mtime_ns;
  return ONYX_OK;
}

onyx_status onyx__pread_full(onyx__os_file file, void *buf, size_t n, uint64_t offset,
                             const char *what, onyx_error *err) {
  size_t got = 0;
  int e = onyx__os_file_pread(file, buf, n, offset, &got);
  if (e != 0) {
    return onyx__fail(err, ONYX_IO, "cannot read %s: %s (errno %d)", what, onyx__os_error_text(e),
                      e);
  }
  if (got < n) {
    return onyx__fail(err, ONYX_IO,
                      "cannot read %s: the file ends %llu bytes in, before the %zu "
                      "bytes wanted at offset %llu",
                      what, (unsigned long long)(offset + got), n, (unsigned long long)offset);
  }
  return ONYX_OK;
}

onyx_status onyx__payloads_new(onyx__os_file file, const onyx__file_id *id, const char *dir,
                               onyx__payloads **out, onyx_error *err) {
  onyx__payloads *p = onyx__calloc(1, sizeof *p);
  if (p == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
  onyx__os_mutex_init(&p->lock);
  atomic_init(&p->done, false);
  p->file = file;
  p->id = *id;
  p->dir = dir;
  *out = p;
  return ONYX_OK;
}

void onyx__payloads_free(onyx__payloads *p) {
  if (p == NULL) return;
  for (size_t i = 0; i < p->n; i++) onyx__free(p->buffers[i]);
  onyx__free(p->buffers);
  onyx__free(p->items);
  for (size_t i = 0; i < p->n_maps; i++) onyx__os_unmap(p->maps[i]);
  onyx__free(p->maps);
  (void)onyx__os_file_close(p->file);
  onyx__os_mutex_destroy(&p->lock);
  onyx__free(p);
}

onyx_status onyx__payloads_add(onyx__payloads *p, const onyx__deferred *d, onyx_error *err) {
  if (p->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 8;
    size_t bytes = 0;
    if (!onyx__mul_size(cap, sizeof *p->items, &bytes)) {
      return onyx__fail(err, ONYX_OUT_OF_MEMORY, "too many tensors");
    }
    onyx__deferred *items = onyx__realloc(p->items, bytes);
    if (items == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
    p->items = items;
    void **buffers = onyx__realloc(p->buffers, cap * sizeof *buffers);
    if (buffers == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
    p->buffers = buffers;
    p->cap = cap;
  }
  p->items[p->n] = *d;
  p->buffers[p->n] = NULL;
  p->n++;
  return ONYX_OK;
}

size_t onyx__payloads_count(const onyx__payloads *p) { return p != NULL ? p->n : 0; }

bool onyx__payloads_uses_model_file(const onyx__payloads *p) {
  for (size_t i = 0; p != NULL && i < p->n; i++) {
    if (p->items[i].location == NULL) return true;
  }
  return false;
}

void onyx__payloads_close_model_file(onyx__payloads *p) {
  (void)onyx__os_file_close(p->file);
  p->file = ONYX__OS_FILE_NONE;
}

onyx_status onyx__payloads_map(onyx__payloads *p, onyx__os_file file, uint64_t offset,
                               size_t nbytes, const char *what, const void **data,
                               onyx_error *err) {
  if (p->n_maps == p->cap_maps) {
    size_t cap = p->cap_maps ? 2 * p->cap_maps : 4;
    onyx__os_map *maps = onyx__realloc(p->maps, cap * sizeof *maps);
    if (maps == NULL) return onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory");
    p->maps = maps;
    p->cap_maps = cap;
  }
  int e = onyx__os_file_map(file, offset, nbytes, &p->maps[p->n_maps], data);
  if (e != 0) {
    return onyx__fail(err, ONYX_IO, "cannot map %s: %s (errno %d)", what, onyx__os_error_text(e),
                      e);
  }
  p->n_maps++;
  return ONYX_OK;
}

/* ONYX_IO unless the file's identity now is the one recorded at load. */
static onyx_status check_unchanged(const onyx__file_id *was, const onyx__file_id *now,
                                   const char *what, onyx_error *err) {
  if (was->dev == now->dev && was->ino == now->ino && was->size == now->size &&
      was->mtime_s == now->mtime_s && was->mtime_ns == now->mtime_ns) {
    return ONYX_OK;
  }
  if (was->size != now->size) {
    return onyx__fail(err, ONYX_IO,
                      "%s changed after the model was loaded: it has %llu bytes, "
                      "it had %llu; load the model again",
                      what, (unsigned long long)now->size, (unsigned long long)was->size);
  }
  return onyx__fail(err, ONYX_IO,
                    "%s changed after the model was loaded (it was replaced or "
                    "written to); load the model again",
                    what);
}

/* Reads item i into a new buffer and points its tensor at it. */
static onyx_status load_one(onyx__payloads *p, size_t i, onyx_error *err) {
  const onyx__deferred *d = &p->items[i];
  char what[300];
  onyx__os_file file = p->file;
  onyx__file_id now;
  onyx_status st = ONYX_OK;
  if (d->location == NULL) {
    onyx__format(what, sizeof what, "the model file");
    st = onyx__file_identity(file, what, &now, err);
    if (st == ONYX_OK) st = check_unchanged(&p->id, &now, what, err);
  } else {
    onyx__format(what, sizeof what, "external data '%.200s'", d->location);
    /* An empty slice at 0 always fits: whether the file still holds the
     * payload is for the identity check to say, as for the model file. */
    st = onyx__external_open(p->dir, d->location, 0, true, 0, 0, &file, &now, err);
    if (st == ONYX_OK) st = check_unchanged(&d->id, &now, what, err);
  }
  void *buf = NULL;
  if (st == ONYX_OK && (buf = onyx__malloc(d->tensor->nbytes)) == NULL) {
    st = onyx__fail(err, ONYX_OUT_OF_MEMORY, "out of memory reading %zu bytes of %s",
                    d->tensor->nbytes, what);
  }
  if (st == ONYX_OK) st = onyx__pread_full(file, buf, d->tensor->nbytes, d->offset, what, err);
  if (d->location != NULL) (void)onyx__os_file_close(file);
  if (st != ONYX_OK) {
    onyx__free(buf);
    if (d->tensor->name[0] != '\0') onyx__error_prefix(err, "tensor '%.64s'", d->tensor->name);
    return st;
  }
  onyx__le_to_host(buf, d->tensor->nbytes, onyx_dtype_size(d->tensor->dtype));
  p->buffers[i] = buf;
  d->tensor->data = buf;
  return ONYX_OK;
}

onyx_status onyx__payloads_load(onyx__payloads *p, onyx_error *err) {
  if (p == NULL || atomic_load_explicit(&p->done, memory_order_acquire)) return ONYX_OK;
  onyx__os_mutex_lock(&p->lock);
  onyx_status st = ONYX_OK;
  for (size_t i = 0; i < p->n && st == ONYX_OK; i++) {
    if (p->buffers[i] == NULL) st = load_one(p, i, err);
  }
  /* After a failure the next run tries again: the payloads read stay. */
  if (st == ONYX_OK) atomic_store_explicit(&p->done, true, memory_order_release);
  onyx__os_mutex_unlock(&p->lock);
  return st;
}

#endif
