/* The deferred-payload table of a model (payload.c); model.h has the rest. */
#ifndef ONYX_MODEL_PAYLOADS_H
#define ONYX_MODEL_PAYLOADS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "model/model.h"

struct onyx__payloads {
  pthread_mutex_t lock; /* held while payloads are read */
  atomic_bool done;     /* every payload has been read */
  int fd;               /* the model file, or -1 once no payload needs it */
  onyx__file_id id;     /* the model file's identity at load */
  const char *dir;      /* the folder external data is relative to */
  size_t n, cap;
  onyx__deferred *items;
  void **buffers; /* buffers[i] holds items[i]'s data once read, else NULL */
  /* External data mapped for onyx_model_load_file_mapped, unmapped by
   * onyx__payloads_free. */
  size_t n_maps, cap_maps;
  struct onyx__payload_map {
    void *addr;
    size_t size;
  } *maps;
};

/* A new, empty table for the model file open at fd (which it then owns). */
onyx_status onyx__payloads_new(int fd, const onyx__file_id *id, const char *dir,
                               onyx__payloads **out, onyx_error *err);
/* Frees the table, the buffers read, and closes the model file. */
void onyx__payloads_free(onyx__payloads *p);
size_t onyx__payloads_count(const onyx__payloads *p);
/* Whether a payload lies in the model file itself (else its fd can go). */
bool onyx__payloads_uses_model_file(const onyx__payloads *p);
void onyx__payloads_close_model_file(onyx__payloads *p);
/* Maps nbytes at offset of fd read-only for the table's life; *data points
 * at the first byte. ONYX_IO naming `what` if mmap fails. */
onyx_status onyx__payloads_map(onyx__payloads *p, int fd, uint64_t offset, size_t nbytes,
                               const char *what, const void **data, onyx_error *err);

#endif
