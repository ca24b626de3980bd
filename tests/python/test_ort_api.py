#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""ONNX Runtime's Python surface in onyx: a script written for onnxruntime
(ort_script.py) runs with only its import line changed; the exception
classes under onnxruntime's module path; providers that warn; options that
are used, accepted, warned about or refused, never silently dropped;
OrtValue; I/O binding into the caller's arrays without copies; build
information and logger settings."""

import os
import re
import subprocess
import sys
import unittest
import warnings

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import modelgen  # noqa: E402
from modelgen import EXAMPLE, EXAMPLE_X  # noqa: E402

import onyx  # noqa: E402
from onyx.capi import onnxruntime_pybind11_state as ort_state  # noqa: E402

F = TensorProto.FLOAT
HERE = os.path.dirname(os.path.abspath(__file__))


def bits_equal(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


class Warned:
    """Records warnings; .texts is their messages."""

    def __enter__(self):
        self._cm = warnings.catch_warnings(record=True)
        self.caught = self._cm.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        self._cm.__exit__(*exc)

    @property
    def texts(self):
        return [str(w.message) for w in self.caught]


class Script(unittest.TestCase):
    def test_onnxruntime_script_unchanged(self):
        with open(os.path.join(HERE, "ort_script.py")) as f:
            script = f.read()
        self.assertEqual(script.count("\nimport onnxruntime\n"), 1)
        script = script.replace("\nimport onnxruntime\n", "\nimport onyx as onnxruntime\n")
        r = subprocess.run([sys.executable, "-B", "-", EXAMPLE], input=script,
                           capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout), (0, "ok\n"), r.stderr)


class Exceptions(unittest.TestCase):
    EXPECTED = {
        "INVALID_ARGUMENT": "InvalidArgument", "INPUT_MISSING": "InvalidArgument",
        "INPUT_TYPE": "InvalidArgument", "INPUT_SHAPE": "InvalidArgument",
        "BUFFER_TOO_SMALL": "InvalidArgument", "IO": "NoSuchFile", "PARSE": "InvalidProtobuf",
        "UNSUPPORTED_OP": "NotImplemented", "INTERNAL": "RuntimeException",
        "ARITY": "InvalidGraph", "ATTRIBUTE": "InvalidGraph", "UNDEFINED_VALUE": "InvalidGraph",
        "DUPLICATE_VALUE": "InvalidGraph", "CYCLE": "InvalidGraph", "TYPE": "InvalidGraph",
        "SHAPE": "InvalidGraph", "OUT_OF_MEMORY": "Fail", "IR_VERSION": "Fail", "OPSET": "Fail",
        "TENSOR_DATA": "Fail", "EXTERNAL_DATA": "Fail", "LIMIT": "Fail",
    }

    def test_classes(self):
        """Every status class derives from the ONNX Runtime class for the
        same fault, which derives from OnyxError; all live under
        onyx.capi.onnxruntime_pybind11_state."""
        names = ("Fail", "InvalidArgument", "NoSuchFile", "NoModel", "EngineError",
                 "RuntimeException", "InvalidProtobuf", "ModelLoaded", "NotImplemented",
                 "InvalidGraph", "EPFail")
        self.assertEqual(sorted(ort_state.__all__), sorted(names))
        for name in names:
            cls = getattr(ort_state, name)
            self.assertIs(getattr(onyx.capi.onnxruntime_pybind11_state, name), cls)
            self.assertTrue(issubclass(cls, onyx.OnyxError))
            self.assertEqual(cls.__module__, "onyx.capi.onnxruntime_pybind11_state")
        self.assertEqual(len(onyx.STATUS_ERRORS), len(self.EXPECTED))
        for cls in onyx.STATUS_ERRORS.values():
            ort = getattr(ort_state, self.EXPECTED[cls.status_name[len("ONYX_"):]])
            self.assertTrue(issubclass(cls, ort), cls)
            others = [getattr(ort_state, n) for n in names if getattr(ort_state, n) is not ort]
            self.assertFalse(any(issubclass(cls, o) for o in others), cls)
        self.assertTrue(issubclass(onyx.OnyxInputMissingError, ValueError))

    def test_raised(self):
        """What is raised is today's class and ONNX Runtime's at once."""
        sess = onyx.InferenceSession(EXAMPLE)
        with self.assertRaises(ort_state.InvalidArgument) as cm:
            sess.run(None, {"x": EXAMPLE_X.astype(np.float64)})
        self.assertIsInstance(cm.exception, onyx.OnyxInputTypeError)
        self.assertEqual(cm.exception.status_name, "ONYX_INPUT_TYPE")
        add = modelgen.model_bytes([helper.make_node("Add", ["x", "x"], ["y"])],
                                   [("x", F, [2])], [("y", F, [2])])
        with self.assertRaises(ort_state.NotImplemented) as cm:
            onyx.InferenceSession(add)
        self.assertIsInstance(cm.exception, onyx.OnyxUnsupportedOpError)
        with self.assertRaises(ort_state.NoSuchFile):
            onyx.InferenceSession("no_such_model.onnx")
        with self.assertRaises(ort_state.InvalidGraph):
            onyx.InferenceSession(modelgen.one_node("Ceil", TensorProto.INT32, [2]))


class Providers(unittest.TestCase):
    def test_unknown_provider_warns(self):
        for providers in (["CUDAExecutionProvider"],
                          [("TensorrtExecutionProvider", {"device_id": 0}),
                           "CPUExecutionProvider"]):
            with Warned() as w:
                sess = onyx.InferenceSession(EXAMPLE, providers=providers)
            self.assertEqual(len(w.texts), 1, w.texts)
            self.assertIn("'%s'" % (providers[0] if isinstance(providers[0], str)
                                    else providers[0][0]), w.texts[0])
            self.assertIn("'CPUExecutionProvider'", w.texts[0])
            self.assertEqual(sess.get_providers(), ["CPUExecutionProvider"])
            self.assertTrue(bits_equal(sess.run(["floor"], {"x": EXAMPLE_X})[0],
                                       np.floor(EXAMPLE_X)))
        with Warned() as w:
            sess.set_providers(["ROCMExecutionProvider"])
        self.assertIn("ROCMExecutionProvider", w.texts[0])

    def test_cpu_provider(self):
        with Warned() as w:
            onyx.InferenceSession(EXAMPLE, providers=["CPUExecutionProvider"])
            onyx.InferenceSession(EXAMPLE, providers=[("CPUExecutionProvider", {})])
            onyx.InferenceSession(EXAMPLE)
        self.assertEqual(w.texts, [])
        with Warned() as w:
            onyx.InferenceSession(EXAMPLE, providers=["CPUExecutionProvider"],
                                  provider_options=[{"arena_extend_strategy": "x"}])
        self.assertIn("arena_extend_strategy", w.texts[0])
        with self.assertRaises(ValueError):
            onyx.InferenceSession(EXAMPLE, providers="CPUExecutionProvider")
        with self.assertRaises(ValueError):
            onyx.InferenceSession(EXAMPLE, providers=["CPUExecutionProvider"],
                                  provider_options=[{}, {}])


class Options(unittest.TestCase):
    def test_session_options(self):
        so = onyx.SessionOptions()
        with Warned() as w:
            so.intra_op_num_threads = 2
            so.inter_op_num_threads = 1
            so.graph_optimization_level = onyx.GraphOptimizationLevel.ORT_DISABLE_ALL
            so.execution_mode = onyx.ExecutionMode.ORT_SEQUENTIAL
            so.execution_order = onyx.ExecutionOrder.DEFAULT
            so.log_severity_level = 0
            so.log_verbosity_level = 3
            so.logid = "mine"
            so.use_deterministic_compute = True
            so.enable_profiling = False
            so.profile_file_prefix = "p"
            so.enable_mem_pattern = True
        self.assertEqual(w.texts, [])
        ignored = [("inter_op_num_threads", 4), ("execution_mode", onyx.ExecutionMode.ORT_PARALLEL),
                   ("execution_order", onyx.ExecutionOrder.PRIORITY_BASED),
                   ("enable_profiling", True), ("optimized_model_filepath", "opt.onnx"),
                   ("enable_mem_pattern", False), ("enable_mem_reuse", False),
                   ("enable_cpu_mem_arena", False)]
        for name, value in ignored:
            with self.subTest(field=name), Warned() as w:
                setattr(so, name, value)
                self.assertEqual(len(w.texts), 1)
                self.assertIn(name, w.texts[0])
                self.assertIn("ignored", w.texts[0])
        for name, value in (("intra_op_num_threads", -1), ("log_severity_level", 5),
                            ("execution_mode", 7), ("graph_optimization_level", 3)):
            with self.subTest(field=name), self.assertRaises(onyx.OnyxInvalidArgumentError):
                setattr(so, name, value)
        with self.assertRaises(AttributeError):
            so.intra_op_threads = 2  # a misspelling is not dropped
        for method in ("add_initializer", "add_free_dimension_override_by_name",
                       "add_external_initializers"):
            with self.subTest(method=method), self.assertRaises(ort_state.NotImplemented):
                getattr(so, method)("a", 1)
        with Warned() as w:
            so.add_session_config_entry("session.use_env_allocators", "1")
        self.assertIn("session.use_env_allocators", w.texts[0])
        self.assertEqual(so.get_session_config_entry("session.use_env_allocators"), "1")
        with self.assertRaises(ort_state.InvalidArgument):
            so.get_session_config_entry("nothing")

    def test_options_reach_the_session(self):
        so = onyx.SessionOptions()
        so.intra_op_num_threads = 3
        sess = onyx.InferenceSession(EXAMPLE, so)
        self.assertEqual(sess.get_session_options().intra_op_num_threads, 3)
        with Warned() as w:
            onyx.InferenceSession(EXAMPLE, disabled_optimizers=["ConstantFolding"])
        self.assertIn("disabled_optimizers", w.texts[0])
        with self.assertRaises(TypeError):
            onyx.InferenceSession(EXAMPLE, sess_option=so)  # misspelt keyword
        with self.assertRaises(TypeError):
            onyx.InferenceSession(EXAMPLE, {"intra_op_num_threads": 1})
        self.assertEqual(sess.end_profiling(), "")

    def test_run_options(self):
        sess = onyx.InferenceSession(EXAMPLE)
        ro = onyx.RunOptions()
        with Warned() as w:
            ro.log_severity_level = 4
            ro.log_verbosity_level = 1
            ro.logid = "run"
            ro.terminate = False
        self.assertEqual(w.texts, [])
        self.assertEqual(len(sess.run(None, {"x": EXAMPLE_X}, ro)), 3)
        with Warned() as w:
            ro.only_execute_path_to_fetches = True
            ro.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        self.assertEqual(len(w.texts), 2)
        with self.assertRaises(AttributeError):
            ro.timeout = 3
        ro.terminate = True
        sess._last_input_pointers = ()
        with self.assertRaises(ort_state.Fail):
            sess.run(None, {"x": EXAMPLE_X}, ro)
        self.assertEqual(sess._last_input_pointers, ())  # nothing ran
        with self.assertRaises(TypeError):
            sess.run(None, {"x": EXAMPLE_X}, {"terminate": False})

    def test_library_functions(self):
        info = onyx.get_build_info()
        self.assertIn(onyx.__version__, info)
        self.assertIn(onyx.library_path, info)
        self.assertEqual(onyx.get_version_string(), onyx.__version__)
        for level in range(5):
            onyx.set_default_logger_severity(level)
        with self.assertRaises(onyx.OnyxInvalidArgumentError):
            onyx.set_default_logger_severity(5)
        onyx.set_default_logger_verbosity(2)
        with self.assertRaises(onyx.OnyxInvalidArgumentError):
            onyx.set_default_logger_verbosity(-1)


class Values(unittest.TestCase):
    def test_ortvalue(self):
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        v = onyx.OrtValue.ortvalue_from_numpy(x)
        self.assertIs(v.numpy(), x)  # no copy
        self.assertEqual((v.shape(), v.data_type(), v.element_type()),
                         ([2, 3], "tensor(float)", TensorProto.FLOAT))
        self.assertEqual((v.device_name(), v.is_tensor(), v.has_value(), v.data_ptr()),
                         ("cpu", True, True, x.ctypes.data))
        strided = onyx.OrtValue.ortvalue_from_numpy(x[:, ::2])
        self.assertTrue(strided.numpy().flags.c_contiguous)
        self.assertTrue(bits_equal(strided.numpy(), x[:, ::2]))
        e = onyx.OrtValue.ortvalue_from_shape_and_type([4, 0], np.int64)
        self.assertEqual((e.shape(), e.data_type()), ([4, 0], "tensor(int64)"))
        with self.assertRaises(onyx.OnyxTypeError):
            onyx.OrtValue.ortvalue_from_numpy(np.ones(2, dtype=bool))
        with self.assertRaises(ort_state.InvalidArgument):
            onyx.OrtValue.ortvalue_from_numpy(x, "cuda", 0)

    def test_run_with_ort_values(self):
        sess = onyx.InferenceSession(modelgen.one_node("Ceil", TensorProto.BFLOAT16, ["N"]))
        bits = modelgen.f32_to_bf16(np.array([-1.5, 0.25, 2.5], dtype=np.float32))
        (y,) = sess.run_with_ort_values(None, {"x": onyx.OrtValue.ortvalue_from_numpy(bits)})
        self.assertEqual(y.data_type(), "tensor(bfloat16)")
        self.assertEqual(y.element_type(), TensorProto.BFLOAT16)
        self.assertTrue(bits_equal(y.numpy(), modelgen.f32_to_bf16(np.array([-1, 1, 3],
                                                                            np.float32))))
        self.assertEqual(sess._last_output_pointers, (y.data_ptr(),))


def header_struct_fields(header, struct):
    """The member names of a struct typedef in a C header, in order."""
    body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (struct, struct), header, re.S)
    if body is None:
        return None
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", body.group(1), flags=re.S)
    return [re.findall(r"(\w+)\s*$", piece.strip())[0]
            for decl in text.split(";") if decl.strip() for piece in decl.split(",")]


class Metadata(unittest.TestCase):
    def model(self):
        graph = helper.make_graph([helper.make_node("Floor", ["x"], ["y"])], "the_graph",
                                  [helper.make_tensor_value_info("x", F, [2])],
                                  [helper.make_tensor_value_info("y", F, [2])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                                  producer_name="maker", producer_version="1.2.3",
                                  domain="ai.example", model_version=7, doc_string="a doc")
        model.ir_version = 8
        helper.set_model_props(model, {"author": "someone", "licence": "MIT", "empty": ""})
        return model.SerializeToString()

    def test_modelmeta(self):
        """Every field, from the library's onyx_model_metadata; a
        library without it fills ir_version and opset_import only. A
        header that declares an accessor the package does not use fails."""
        meta = onyx.InferenceSession(self.model()).get_modelmeta()
        self.assertEqual((meta.ir_version, meta.opset_import), (8, {"ai.onnx": 13}))
        with open(os.path.join(modelgen.SOURCE_DIR, "include", "onyx.h")) as f:
            header = f.read()
        if not onyx._capi.HAS_METADATA:
            declared = re.search(r"ONYX_API[^;]*metadata[^;]*;", header)
            if declared:
                self.fail("include/onyx.h declares %r, but the library has no "
                          "onyx_model_metadata: align python/onyx/_capi.py with it"
                          % declared.group(0))
            self.assertEqual((meta.producer_name, meta.custom_metadata_map), ("", {}))
            print("SKIP: the library has no onyx_model_metadata, so get_modelmeta() "
                  "fills ir_version and opset_import only", file=sys.stderr)
            self.skipTest("the library has no onyx_model_metadata")
        self.assertEqual(header_struct_fields(header, "onyx_model_meta"),
                         [name for name, _ in onyx._capi.ModelMetadataC._fields_])
        self.assertEqual((meta.producer_name, meta.producer_version, meta.domain,
                          meta.description, meta.version, meta.graph_name,
                          meta.graph_description),
                         ("maker", "1.2.3", "ai.example", "a doc", 7, "the_graph", ""))
        self.assertEqual(meta.custom_metadata_map,
                         {"author": "someone", "licence": "MIT", "empty": ""})
        bare = onyx.InferenceSession(modelgen.one_node("Ceil", F, [2])).get_modelmeta()
        self.assertEqual((bare.producer_name, bare.version, bare.custom_metadata_map),
                         ("", 0, {}))


class Binding(unittest.TestCase):
    def setUp(self):
        self.sess = onyx.InferenceSession(EXAMPLE)
        self.want = self.sess.run(None, {"x": EXAMPLE_X})

    def test_outputs_in_place(self):
        """Bound arrays are read and written in place: the pointers onyx
        got are the arrays' own."""
        sess, b = self.sess, self.sess.io_binding()
        x = EXAMPLE_X.copy()
        floor = np.full(8, 7, dtype=np.float32)
        sign = onyx.OrtValue.ortvalue_from_shape_and_type([8], np.float32)
        b.bind_cpu_input("x", x)
        b.bind_output("floor", "cpu", 0, np.float32, [8], floor.ctypes.data)
        b.bind_ortvalue_output("sign", sign)
        b.bind_output("clipped")
        sess.run_with_iobinding(b)
        self.assertEqual(sess._last_input_pointers, (x.ctypes.data,))
        self.assertEqual(sess._last_output_pointers[1:],
                         (sign.data_ptr(), floor.ctypes.data))
        self.assertTrue(bits_equal(floor, self.want[2]))
        self.assertTrue(bits_equal(sign.numpy(), self.want[1]))
        outs = b.get_outputs()  # in binding order, over the same memory
        self.assertEqual([o.data_ptr() for o in outs[:2]], [floor.ctypes.data, sign.data_ptr()])
        self.assertTrue(bits_equal(outs[2].numpy(), self.want[0]))
        copies = b.copy_outputs_to_cpu()
        self.assertNotEqual(copies[0].ctypes.data, floor.ctypes.data)
        self.assertTrue(bits_equal(copies[0], floor))
        # A new input, the same bound outputs.
        x2 = EXAMPLE_X * 2
        b.bind_input("x", "cpu", 0, np.float32, [8], x2.ctypes.data)
        sess.run_with_iobinding(b)
        self.assertEqual(sess._last_input_pointers, (x2.ctypes.data,))
        self.assertTrue(bits_equal(floor, np.floor(x2)))
        b.bind_output("floor")  # rebinding replaces, keeping the order
        sess.run_with_iobinding(b)
        self.assertEqual(len(b.get_outputs()), 3)
        self.assertTrue(bits_equal(b.get_outputs()[0].numpy(), np.floor(x2)))
        b.clear_binding_outputs()
        sess.run_with_iobinding(b)
        self.assertEqual(b.get_outputs(), [])

    def test_symbolic_shapes(self):
        sess = onyx.InferenceSession(modelgen.one_node("Floor", F, ["N", 2]))
        b = sess.io_binding()
        for n in (3, 50):
            x = np.linspace(-9, 9, 2 * n, dtype=np.float32).reshape(n, 2)
            y = np.empty((n, 2), dtype=np.float32)
            b.bind_cpu_input("x", x)
            b.bind_output("y", "cpu", 0, np.float32, y.shape, y.ctypes.data)
            sess.run_with_iobinding(b)
            self.assertTrue(bits_equal(y, np.floor(x)))
        y = np.empty((50, 2), dtype=np.float32)
        b.bind_cpu_input("x", np.zeros((49, 2), dtype=np.float32))
        b.bind_ortvalue_output("y", onyx.OrtValue.ortvalue_from_numpy(y))
        with self.assertRaises(onyx.OnyxInvalidArgumentError) as cm:
            sess.run_with_iobinding(b)
        self.assertIn("(49, 2)", cm.exception.message)

    def test_errors(self):
        sess, b = self.sess, self.sess.io_binding()
        x = EXAMPLE_X.copy()
        with self.assertRaises(onyx.OnyxInputMissingError):
            sess.run_with_iobinding(b)
        with self.assertRaises(ort_state.InvalidArgument):
            b.bind_cpu_input("nope", x)
        with self.assertRaises(ort_state.InvalidArgument):
            b.bind_output("nope")
        with self.assertRaises(ort_state.InvalidArgument):
            b.bind_output("floor", "cuda", 0)
        with self.assertRaises(ort_state.InvalidArgument):
            b.bind_output("floor", "cpu", 0, None, None, x.ctypes.data)
        b.bind_cpu_input("x", x)
        bad = {"type": np.zeros(8, dtype=np.float64), "shape": np.zeros(7, dtype=np.float32),
               "layout": np.zeros(16, dtype=np.float32)[::2],
               "overlap": x}
        for why, arr in bad.items():
            with self.subTest(why=why):
                b.bind_output("floor", "cpu", 0, arr.dtype, arr.shape, arr.ctypes.data)
                if why == "layout":
                    b.bind_ortvalue_output("floor", _Raw(arr))
                with self.assertRaises(onyx.OnyxInvalidArgumentError):
                    sess.run_with_iobinding(b)
        self.assertTrue(bits_equal(x, EXAMPLE_X))
        other = onyx.InferenceSession(EXAMPLE)
        with self.assertRaises(onyx.OnyxInvalidArgumentError):
            other.run_with_iobinding(b)
        b.clear_binding_inputs()
        with self.assertRaises(onyx.OnyxInputMissingError):
            sess.run_with_iobinding(b)


class _Raw:
    """An OrtValue stand-in holding a strided array, which
    ortvalue_from_numpy would have made contiguous."""

    def __init__(self, a):
        self.a = a

    def numpy(self):
        return self.a


if __name__ == "__main__":
    unittest.main()
