/* SPDX-License-Identifier: MIT */
#include <onyx.h>
#include <stdio.h>

int main(void) {
  onyx_error err;
  onyx_model *m;
  onyx_session *s;
  float x[8] = {-3.7f, -1.2f, -0.5f, 0.0f, 0.4f, 1.5f, 2.2f, 5.9f}, y[3][8];
  onyx_tensor in = {ONYX_DTYPE_FLOAT, 1, {8}, x, sizeof x};
  onyx_tensor out[3] = {{.data = y[0], .size = sizeof y[0]},
                        {.data = y[1], .size = sizeof y[1]},
                        {.data = y[2], .size = sizeof y[2]}};
  if (onyx_model_load_file("examples/chain.onnx", &m, &err) != ONYX_OK) goto fail;
  if (onyx_session_create(m, NULL, &s, &err) != ONYX_OK) goto fail;
  if (onyx_session_run(s, &in, 1, out, 3, &err) != ONYX_OK) goto fail;
  for (int i = 0; i < 8; i++) printf("%g ", y[0][i]); /* the first output, "clipped" */
  printf("\n");
  onyx_session_free(s);
  onyx_model_free(m);
  return 0;
fail:
  fprintf(stderr, "%s: %s\n", onyx_status_name(err.status), err.message);
  return 1;
}
