/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: .npy file bytes -> npy_decode (cli/npy.c, the onyx command's
 * reader of numpy files).
 *
 * Beyond the sanitizers' checks: a status from npy.h's list and a message
 * on failure, a zeroed tensor after a failure; after a success a known
 * dtype, a rank of at most ONYX_MAX_RANK and exactly the bytes the shape
 * needs; and npy_encode followed by npy_decode gives back the same type,
 * shape and bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "npy.h"
#include "onyx.h"

static void check_tensor(const onyx_tensor *t, const char *what) {
  size_t es = onyx_dtype_size(t->dtype);
  if (es == 0) fuzz_die("%s: unknown dtype %d", what, (int)t->dtype);
  if (t->rank > ONYX_MAX_RANK) fuzz_die("%s: rank %u", what, t->rank);
  int ok;
  size_t count = fuzz_count(t->dims, t->rank, (size_t)-1 / 16, &ok);
  if (!ok) fuzz_die("%s: invalid shape", what);
  if (t->size != count * es) fuzz_die("%s: %zu bytes for %zu elements", what, t->size, count);
  if (t->size > 0 && t->data == NULL) fuzz_die("%s: no data", what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char why[256];
  onyx_tensor t;
  memset(why, 0, sizeof why);
  npy_status st = npy_decode(data, size, &t, why, sizeof why);
  if ((unsigned)st > (unsigned)NPY_SIZE) fuzz_die("npy_decode returned %d", (int)st);
  if (st != NPY_OK) {
    if (st == NPY_IO) fuzz_die("npy_decode on memory returned NPY_IO: %s", why);
    if (why[0] == '\0' || memchr(why, '\0', sizeof why) == NULL)
      fuzz_die("npy_decode failed (%d) without a message", (int)st);
    static const onyx_tensor zero;
    if (memcmp(&t, &zero, sizeof t) != 0) fuzz_die("a failed npy_decode left *out set");
    return 0;
  }
  check_tensor(&t, "decoded");

  void *bytes = NULL;
  size_t n = 0;
  st = npy_encode(&t, &bytes, &n, why, sizeof why);
  if (st != NPY_OK) fuzz_die("a decoded array does not encode: %s", why);
  if (!npy_has_magic(bytes, n)) fuzz_die("an encoded array lacks the magic string");
  onyx_tensor back;
  st = npy_decode(bytes, n, &back, why, sizeof why);
  if (st != NPY_OK) fuzz_die("an encoded array does not decode: %s", why);
  check_tensor(&back, "re-decoded");
  if (back.dtype != t.dtype || back.rank != t.rank || back.size != t.size ||
      memcmp(back.dims, t.dims, sizeof t.dims[0] * t.rank) != 0 ||
      (t.size > 0 && memcmp(back.data, t.data, t.size) != 0))
    fuzz_die("encoded and decoded again, the array differs");
  free(back.data);
  free(bytes);
  free(t.data);
  return 0;
}
