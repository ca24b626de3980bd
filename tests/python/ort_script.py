# SPDX-License-Identifier: MIT
"""A script written for ONNX Runtime's Python API, as its users write it:
sessions and options, providers, OrtValue, I/O binding, run options and the
exception classes. tests/python/test_ort_api.py runs it with the import
line changed to `import onyx as onnxruntime` and nothing else changed.

Usage: python3 ort_script.py MODEL, where MODEL is examples/chain.onnx
(x: float[8] -> clipped = Clip(Ceil(x), -2, 2), sign = Sign(clipped),
floor = Floor(x)). Prints "ok" at the end; any failed check raises."""

import sys
import warnings

import numpy as np
import onnxruntime

MODEL = sys.argv[1]
x = np.array([-3.7, -1.2, -0.5, 0.0, 0.4, 1.5, 2.2, 5.9], dtype=np.float32)
CLIPPED = np.clip(np.ceil(x), -2, 2)
SIGN = np.sign(CLIPPED)
FLOOR = np.floor(x)
state = onnxruntime.capi.onnxruntime_pybind11_state

# Library information.
assert isinstance(onnxruntime.__version__, str)
assert isinstance(onnxruntime.get_build_info(), str)
assert "CPUExecutionProvider" in onnxruntime.get_available_providers()
assert onnxruntime.get_device() == "CPU"
onnxruntime.set_default_logger_severity(3)

# Options, and a provider that is not there: a warning, and the CPU.
so = onnxruntime.SessionOptions()
so.intra_op_num_threads = 1
so.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
so.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
so.log_severity_level = 3
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    sess = onnxruntime.InferenceSession(
        MODEL, sess_options=so, providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
assert any("CUDAExecutionProvider" in str(w.message) for w in caught), caught
assert sess.get_providers() == ["CPUExecutionProvider"]

# Metadata of inputs and outputs, and a plain run.
inp = sess.get_inputs()[0]
assert (inp.name, inp.type, inp.shape) == ("x", "tensor(float)", [8])
names = [o.name for o in sess.get_outputs()]
assert names == ["clipped", "sign", "floor"]
ro = onnxruntime.RunOptions()
ro.log_severity_level = 3
ro.logid = "script"
clipped, sign, floor = sess.run(None, {"x": x}, ro)
assert np.array_equal(clipped, CLIPPED) and np.array_equal(sign, SIGN)
assert np.array_equal(floor, FLOOR)
(floor2,) = sess.run(["floor"], {inp.name: x})
assert np.array_equal(floor2, FLOOR)

# OrtValue.
xv = onnxruntime.OrtValue.ortvalue_from_numpy(x)
assert xv.shape() == [8] and xv.data_type() == "tensor(float)"
assert xv.device_name() == "cpu" and xv.is_tensor()
assert np.array_equal(xv.numpy(), x)
outs = sess.run_with_ort_values(["sign", "floor"], {"x": xv})
assert [o.data_type() for o in outs] == ["tensor(float)", "tensor(float)"]
assert np.array_equal(outs[0].numpy(), SIGN) and np.array_equal(outs[1].numpy(), FLOOR)

# I/O binding: a CPU input, an output into a preallocated array, an output
# into an OrtValue, and one onnxruntime allocates.
y = np.zeros(8, dtype=np.float32)
yv = onnxruntime.OrtValue.ortvalue_from_shape_and_type([8], np.float32)
binding = sess.io_binding()
binding.bind_cpu_input("x", x)
binding.bind_output(name="floor", device_type="cpu", device_id=0, element_type=np.float32,
                    shape=tuple(y.shape), buffer_ptr=y.ctypes.data)
binding.bind_ortvalue_output("sign", yv)
binding.bind_output("clipped")
binding.synchronize_inputs()
sess.run_with_iobinding(binding)
binding.synchronize_outputs()
assert np.array_equal(y, FLOOR)  # written in place
assert np.array_equal(yv.numpy(), SIGN)
floor3, sign3, clipped3 = binding.copy_outputs_to_cpu()
assert np.array_equal(floor3, FLOOR) and np.array_equal(sign3, SIGN)
assert np.array_equal(clipped3, CLIPPED)
assert [v.shape() for v in binding.get_outputs()] == [[8], [8], [8]]
x1 = x + 1
binding.bind_input("x", "cpu", 0, np.float32, [8], x1.ctypes.data)
sess.run_with_iobinding(binding)
assert np.array_equal(y, np.floor(x1))

# Errors, by ONNX Runtime's class names.
def raises(cls, fn, *args):
    try:
        fn(*args)
    except cls:
        return
    raise AssertionError("%s not raised" % cls.__name__)


raises(state.InvalidArgument, sess.run, None, {"x": x.astype(np.float64)})
raises(state.InvalidArgument, sess.run, None, {"x": x[:5]})
raises(state.InvalidArgument, sess.run, None, {"x": x, "z": x})
raises(state.InvalidArgument, sess.run, ["nope"], {"x": x})
raises(ValueError, sess.run, None, {})
raises(state.NoSuchFile, onnxruntime.InferenceSession, "no_such_model.onnx")
raises(state.InvalidProtobuf, onnxruntime.InferenceSession, b"\x0a\xff\xff")
stop = onnxruntime.RunOptions()
stop.terminate = True
raises(state.Fail, sess.run, None, {"x": x}, stop)
for cls in (state.Fail, state.InvalidArgument, state.NoSuchFile, state.InvalidGraph,
            state.NotImplemented, state.InvalidProtobuf, state.RuntimeException):
    assert issubclass(cls, Exception)

meta = sess.get_modelmeta()
assert isinstance(meta.producer_name, str) and isinstance(meta.graph_name, str)
assert isinstance(meta.custom_metadata_map, dict) and isinstance(meta.version, int)
assert sess.end_profiling() == ""
print("ok")
