/* SPDX-License-Identifier: MIT */
/* Runs a one-input, one-output model on a TensorProto and compares the
 * output with the expected one: consumer MODEL INPUT.pb EXPECTED.pb */
#include <onyx.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  onyx_error e = {ONYX_OK, "usage: consumer MODEL INPUT.pb EXPECTED.pb"};
  onyx_model *m = NULL;
  onyx_session *s = NULL;
  onyx_tensor in = {0}, want = {0}, out = {0};
  if (argc != 4 || onyx_model_load_file(argv[1], &m, &e) || onyx_session_create(m, NULL, &s, &e) ||
      onyx_tensor_load_file(argv[2], &in, NULL, &e) ||
      onyx_tensor_load_file(argv[3], &want, NULL, &e) || onyx_session_run(s, &in, 1, &out, 1, &e))
    return fprintf(stderr, "%s (%s)\n", e.message, onyx_status_name(e.status)), 1;
  int same = out.size == want.size && memcmp(out.data, want.data, out.size) == 0;
  printf("onyx %s: output %s\n", onyx_version(), same ? "matches" : "differs");
  onyx_free(in.data), onyx_free(want.data), onyx_free(out.data), onyx_session_free(s),
      onyx_model_free(m);
  return !same;
}
