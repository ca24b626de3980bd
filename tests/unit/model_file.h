/* SPDX-License-Identifier: MIT */
/*
 * Loading a test's model bytes from a file, for what only a model file
 * does (payloads of 64 KiB or more read after load). POSIX: the tests
 * that include it are built with _POSIX_C_SOURCE.
 */
#ifndef ONYX_TESTS_MODEL_FILE_H
#define ONYX_TESTS_MODEL_FILE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "model/pb.h"
#include "onyx.h"

/* Writes bytes to a file in a new temporary folder, loads it into *out,
 * and removes the file and the folder (the model keeps the file open). */
static inline onyx_status mb_load_via_file(const onyx__pbw *bytes, onyx_model **out,
                                           onyx_error *err) {
  char dir[] = "/tmp/onyx_test_model_XXXXXX", path[64];
  *out = NULL;
  if (mkdtemp(dir) == NULL) return ONYX_IO;
  snprintf(path, sizeof path, "%s/m.onnx", dir);
  FILE *f = fopen(path, "wb");
  bool written = f != NULL && fwrite(bytes->buf, 1, bytes->len, f) == bytes->len;
  if (f != NULL && fclose(f) != 0) written = false;
  onyx_status st = written ? onyx_model_load_file(path, out, err) : ONYX_IO;
  (void)remove(path);
  (void)rmdir(dir);
  return st;
}

#endif
