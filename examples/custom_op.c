/* SPDX-License-Identifier: MIT */
/*
 * A registered operator: onyx has no LeakyRelu, so this program gives it
 * one, then runs examples/custom_op.onnx (LeakyRelu -> Clip -> Floor), in
 * which onyx's own kernels serve Clip and Floor. Run it from the
 * repository root. docs/custom-ops.md explains each step.
 */
#include <onyx.h>
#include <stdio.h>

/* Shape and type: those of the input. */
static onyx_status leaky_infer(onyx_op_context *ctx) {
  onyx_tensor x;
  onyx_op_input(ctx, 0, &x);
  return onyx_op_set_output(ctx, 0, x.dtype, x.rank, x.dims);
}

/* y = x >= 0 ? x : alpha * x, with alpha from the node (0.01 by default). */
static onyx_status leaky_compute(onyx_op_context *ctx) {
  onyx_tensor x, y;
  onyx_attribute_info alpha;
  float a = onyx_op_attribute(ctx, "alpha", &alpha) ? alpha.f : 0.01f;
  onyx_op_input(ctx, 0, &x);
  onyx_op_output(ctx, 0, &y);
  const float *in = x.data;
  float *out = y.data;
  for (size_t i = 0; i < y.size / sizeof(float); i++) out[i] = in[i] >= 0 ? in[i] : a * in[i];
  return ONYX_OK;
}

int main(void) {
  onyx_error err;
  onyx_op_registry *ops = NULL;
  onyx_model *m = NULL;
  onyx_session *s = NULL;
  onyx_custom_op leaky = {
      .domain = "",
      .name = "LeakyRelu",
      .since_min = 6, /* LeakyRelu-6 and later */
      .min_inputs = 1,
      .max_inputs = 1,
      .min_outputs = 1,
      .max_outputs = 1,
      .input_types = {ONYX_DTYPE_BIT(ONYX_DTYPE_FLOAT)},
      .n_input_types = 1,
      .allows_in_place = 1, /* y[i] depends on x[i] only */
      .infer = leaky_infer,
      .compute = leaky_compute,
  };
  float x[8] = {-8, -3, -1, -0.5f, 0, 0.5f, 3.5f, 7}, y[8], z[8];
  onyx_tensor in = {ONYX_DTYPE_FLOAT, 1, {8}, x, sizeof x};
  onyx_tensor out[2] = {{.data = y, .size = sizeof y}, {.data = z, .size = sizeof z}};
  onyx_session_options opts;
  onyx_session_options_init(&opts);
  if (onyx_op_registry_create(&ops, &err) != ONYX_OK) goto fail;
  if (onyx_op_registry_add(ops, &leaky, &err) != ONYX_OK) goto fail;
  opts.ops = ops;
  if (onyx_model_load_file("examples/custom_op.onnx", &m, &err) != ONYX_OK) goto fail;
  if (onyx_session_create(m, &opts, &s, &err) != ONYX_OK) goto fail;
  if (onyx_session_run(s, &in, 1, out, 2, &err) != ONYX_OK) goto fail;
  for (int i = 0; i < 8; i++) printf("%g%s", y[i], i < 7 ? " " : "\n");
  for (int i = 0; i < 8; i++) printf("%g%s", z[i], i < 7 ? " " : "\n");
  onyx_session_free(s);
  onyx_model_free(m);
  onyx_op_registry_free(ops);
  return 0;
fail:
  fprintf(stderr, "%s: %s\n", onyx_status_name(err.status), err.message);
  onyx_session_free(s);
  onyx_model_free(m);
  onyx_op_registry_free(ops);
  return 1;
}
