/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: TensorProto bytes -> onyx_tensor_decode.
 *
 * Beyond the checks of fuzz.h: a decoded tensor has a known dtype, a rank
 * of at most ONYX_MAX_RANK, non-negative dims and exactly the bytes its
 * shape needs; decoding without asking for the name gives the same result;
 * and onyx_tensor_encode followed by onyx_tensor_decode gives back the same
 * type, shape, bytes and name.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
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

static void same_tensor(const onyx_tensor *a, const onyx_tensor *b, const char *what) {
  if (a->dtype != b->dtype || a->rank != b->rank || a->size != b->size ||
      memcmp(a->dims, b->dims, sizeof a->dims[0] * a->rank) != 0 ||
      (a->size > 0 && memcmp(a->data, b->data, a->size) != 0))
    fuzz_die("%s: the tensors differ", what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  onyx_error err;
  memset(&err, 0, sizeof err);
  onyx_tensor t;
  char *name = (char *)&err;
  onyx_status st =
      fuzz_check("onyx_tensor_decode", onyx_tensor_decode(data, size, &t, &name, &err), &err);

  /* Without the name: the same outcome. */
  onyx_tensor t2;
  onyx_error err2;
  onyx_status st2 =
      fuzz_check("onyx_tensor_decode", onyx_tensor_decode(data, size, &t2, NULL, &err2), &err2);
  if (st2 != st)
    fuzz_die("decoding without the name gave %s, with it %s", onyx_status_name(st2),
             onyx_status_name(st));
  if (st != ONYX_OK) {
    if (name != NULL) fuzz_die("a failed decode set *name");
    if (t.data != NULL || t2.data != NULL) fuzz_die("a failed decode set data");
    if (strcmp(err.message, err2.message) != 0) fuzz_die("two decodes, two messages");
    return 0;
  }
  if (name == NULL) fuzz_die("a decode succeeded without a name");
  check_tensor(&t, "decoded");
  same_tensor(&t, &t2, "decoded without the name");
  onyx_free(t2.data);

  void *bytes = NULL;
  size_t n = 0;
  st = fuzz_check("onyx_tensor_encode", onyx_tensor_encode(&t, name, &bytes, &n, &err), &err);
  if (st != ONYX_OK) fuzz_die("a decoded tensor does not encode: %.512s", err.message);
  onyx_tensor back;
  char *name_back = NULL;
  st =
      fuzz_check("onyx_tensor_decode", onyx_tensor_decode(bytes, n, &back, &name_back, &err), &err);
  if (st != ONYX_OK) fuzz_die("an encoded tensor does not decode: %.512s", err.message);
  check_tensor(&back, "re-decoded");
  same_tensor(&t, &back, "encoded and decoded again");
  if (strcmp(name, name_back) != 0) fuzz_die("the name changed in a round trip");

  onyx_free(back.data);
  onyx_free(name_back);
  onyx_free(bytes);
  onyx_free(t.data);
  onyx_free(name);
  return 0;
}
