/* SPDX-License-Identifier: MIT */
/* The deferred-payload table of a model (payload.c); model.h has the rest. */
#ifndef ONYX_MODEL_PAYLOADS_H
#define ONYX_MODEL_PAYLOADS_H

#include <stdatomic.h>
#include <stdbool.h>

#include "model/model.h"
#include "os/os.h"

struct onyx__payloads {
  onyx__os_mutex lock; /* held while payloads are read */
  atomic_bool done;    /* every payload has been read */
  onyx__os_file file;  /* the model file, or none once no payload needs it */
  onyx__file_id id;    /* the model file's identity at load */
  const char *dir;     /* the folder external data is relative to */
  size_t n, cap;
  onyx__deferred *items;
  void **buffers; /* buffers[i] holds items[i]'s data once read, else NULL */
  /* External data mapped for onyx_model_load_file_mapped, unmapped by
   * onyx__payloads_free. */
  size_t n_maps, cap_maps;
  onyx__os_map *maps;
};

#ifndef ONYX_OMIT_FILES /* model.h has what a build without files keeps */
/* A new, empty table for the open model file (which it then owns). */
onyx_status onyx__payloads_new(onyx__os_file file, const onyx__file_id *id, const char *dir,
                               onyx__payloads **out, onyx_error *err);
/* Frees the table, the buffers read, and closes the model file. */
void onyx__payloads_free(onyx__payloads *p);
size_t onyx__payloads_count(const onyx__payloads *p);
/* Whether a payload lies in the model file itself (else it can be closed). */
bool onyx__payloads_uses_model_file(const onyx__payloads *p);
void onyx__payloads_close_model_file(onyx__payloads *p);
/* Maps nbytes at offset of file read-only for the table's life; *data
 * points at the first byte. ONYX_IO naming `what` if it cannot be mapped. */
onyx_status onyx__payloads_map(onyx__payloads *p, onyx__os_file file, uint64_t offset,
                               size_t nbytes, const char *what, const void **data, onyx_error *err);
#endif

#endif
