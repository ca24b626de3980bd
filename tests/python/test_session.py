#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The Python package's InferenceSession: ONNX Runtime's shape (get_inputs,
get_outputs, run, SessionOptions), inputs passed without copying, bfloat16
as uint16, errors as exceptions with onyx's status and message, threads,
the status list against the library and the header, the version, and where
the package finds libonyx.so."""

import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import modelgen  # noqa: E402
from modelgen import EXAMPLE, EXAMPLE_X, SOURCE_DIR, TYPES  # noqa: E402

import onyx  # noqa: E402

F = TensorProto.FLOAT
CLIPPED = np.array([-2, -1, -0.0, 0, 1, 2, 2, 2], dtype=np.float32)
SIGN = np.array([-1, -1, 0, 0, 1, 1, 1, 1], dtype=np.float32)
FLOOR = np.array([-4, -2, -1, 0, 0, 1, 2, 5], dtype=np.float32)


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def bits_equal(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


class Session(unittest.TestCase):
    def test_example(self):
        sess = onyx.InferenceSession(EXAMPLE)
        clipped, sign, floor = sess.run(None, {"x": EXAMPLE_X})
        self.assertTrue(bits_equal(clipped, CLIPPED))
        self.assertTrue(bits_equal(sign, SIGN))
        self.assertTrue(bits_equal(floor, FLOOR))
        # Chosen outputs, in the order asked for; [] is all of them.
        floor2, clipped2 = sess.run(["floor", "clipped"], {"x": EXAMPLE_X})
        self.assertTrue(bits_equal(floor2, FLOOR) and bits_equal(clipped2, CLIPPED))
        self.assertEqual(len(sess.run([], {"x": EXAMPLE_X})), 3)
        # Outputs are ordinary, writable arrays that outlive the session.
        del sess
        floor2[0] = 7
        self.assertEqual(floor2[0], 7)
        self.assertTrue(bits_equal(sign, SIGN))

    def test_inputs_and_outputs(self):
        sess = onyx.InferenceSession(EXAMPLE)
        (x,) = sess.get_inputs()
        self.assertEqual((x.name, x.type, x.shape), ("x", "tensor(float)", [8]))
        self.assertEqual([(o.name, o.type, o.shape) for o in sess.get_outputs()],
                         [("clipped", "tensor(float)", [8]), ("sign", "tensor(float)", [8]),
                          ("floor", "tensor(float)", [8])])
        self.assertIn("NodeArg(name='x'", repr(x))

    def test_shapes(self):
        """Symbolic dimensions by name, unknown ones as None, no declared
        shape as None; every type in ONNX Runtime's spelling."""
        model = modelgen.model_bytes(
            [helper.make_node("Sign", ["x"], ["y"])],
            [("x", F, ["batch", 3, None])], [("y", F, ["batch", 3, None])])
        sess = onyx.InferenceSession(model)
        self.assertEqual(sess.get_inputs()[0].shape, ["batch", 3, None])
        self.assertEqual(sess.get_outputs()[0].shape, ["batch", 3, None])
        (y,) = sess.run(None, {"x": np.ones((2, 3, 4), dtype=np.float32)})
        self.assertEqual(y.shape, (2, 3, 4))
        no_shape = onyx.InferenceSession(modelgen.one_node("Sign", F, None))
        self.assertIsNone(no_shape.get_inputs()[0].shape)
        (y,) = no_shape.run(None, {"x": np.ones((2, 1, 2, 1), dtype=np.float32)})
        self.assertEqual(y.shape, (2, 1, 2, 1))
        scalar = onyx.InferenceSession(modelgen.one_node("Sign", F, []))
        self.assertEqual(scalar.get_inputs()[0].shape, [])
        (y,) = scalar.run(None, {"x": np.array(-2.5, dtype=np.float32)})
        self.assertEqual((y.shape, float(y)), ((), -1.0))
        for name, tp, np_type in TYPES:
            with self.subTest(type=name):
                sess = onyx.InferenceSession(modelgen.one_node("Sign", tp, [2]))
                self.assertEqual(sess.get_inputs()[0].type, "tensor(%s)" % name)
                self.assertEqual(sess.get_outputs()[0].type, "tensor(%s)" % name)
                (y,) = sess.run(None, {"x": np.zeros(2, dtype=np_type)})
                self.assertEqual(y.dtype, np.dtype(np_type))

    def test_from_bytes(self):
        data = read(EXAMPLE, "rb")
        for form in (data, bytearray(data), memoryview(data)):
            sess = onyx.InferenceSession(form)
            self.assertTrue(bits_equal(sess.run(["sign"], {"x": EXAMPLE_X})[0], SIGN))
        # A path-like object works as a path.
        import pathlib
        sess = onyx.InferenceSession(pathlib.Path(EXAMPLE))
        self.assertEqual(len(sess.get_outputs()), 3)

    def test_zero_copy(self):
        """C-contiguous, aligned arrays reach onyx in place; others are
        copied once and still give the right result."""
        sess = onyx.InferenceSession(modelgen.one_node("Floor", F, ["N"]))
        x = np.linspace(-5, 5, 1001, dtype=np.float32)
        (y,) = sess.run(None, {"x": x})
        self.assertEqual(sess._last_input_pointers, (x.ctypes.data,))
        self.assertTrue(bits_equal(y, np.floor(x)))

        strided = x[::2]  # not contiguous
        (y,) = sess.run(None, {"x": strided})
        self.assertNotEqual(sess._last_input_pointers[0], strided.ctypes.data)
        self.assertTrue(bits_equal(y, np.floor(strided)))

        raw = np.zeros(4 * 100 + 1, dtype=np.uint8)
        misaligned = raw[1:].view(np.float32)  # numpy marks it unaligned
        misaligned[:] = np.arange(100, dtype=np.float32) - 49.5
        self.assertFalse(misaligned.flags.aligned)
        (y,) = sess.run(None, {"x": misaligned})
        self.assertNotEqual(sess._last_input_pointers[0], misaligned.ctypes.data)
        self.assertTrue(bits_equal(y, np.floor(misaligned)))

        big_endian = x.astype(">f4")
        (y,) = sess.run(None, {"x": big_endian})
        self.assertTrue(bits_equal(y, np.floor(x)))

        model2d = onyx.InferenceSession(modelgen.one_node("Ceil", F, ["A", "B"]))
        fortran = np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4) / 3)
        (y,) = model2d.run(None, {"x": fortran})
        self.assertNotEqual(model2d._last_input_pointers[0], fortran.ctypes.data)
        self.assertTrue(bits_equal(y, np.ceil(np.ascontiguousarray(fortran))))
        c_order = np.ascontiguousarray(fortran)
        model2d.run(None, {"x": c_order})
        self.assertEqual(model2d._last_input_pointers[0], c_order.ctypes.data)

    def test_outputs_written_in_place(self):
        """Each output is a numpy array that owns its memory, and that
        memory is the buffer onyx wrote: numpy allocates it and onyx fills
        it as a caller-owned output, so nothing is copied after the run."""
        c = helper.make_tensor("v", F, [2, 3], [1.5, -2.5, 3, 4, 5, 6])
        graph = helper.make_graph(
            [helper.make_node("Constant", [], ["c"], value=c),
             helper.make_node("Ceil", ["c"], ["c_ceil"]),
             helper.make_node("Floor", ["x"], ["f"]),
             helper.make_node("Clip", ["f", "", "hi"], ["g"]),
             helper.make_node("Sign", ["g"], ["s"])],
            "g", [helper.make_tensor_value_info("x", F, ["N", None]),
                  helper.make_tensor_value_info("hi", F, [])],
            [helper.make_empty_tensor_value_info(n) for n in ("s", "c", "c_ceil", "g", "x")],
            initializer=[])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        sess = onyx.InferenceSession(model.SerializeToString())
        for shape in ((3, 5), (1, 0), (40000, 3)):
            x = (np.arange(np.prod(shape), dtype=np.float32).reshape(shape) - 7) / 3
            hi = np.array(2.0, dtype=np.float32)
            out = sess.run(None, {"x": x, "hi": hi})
            const = numpy_helper.to_array(c)
            want = [np.sign(np.minimum(np.floor(x), hi)), const, np.ceil(const),
                    np.minimum(np.floor(x), hi), x]
            for got, expected in zip(out, want):
                self.assertTrue(bits_equal(got, expected))
            self.assertEqual(sess._last_output_pointers, tuple(a.ctypes.data for a in out))
            for a in out:
                self.assertTrue(a.flags.owndata and a.base is None and a.flags.writeable)
        for name, tp, np_type in TYPES:
            with self.subTest(type=name):
                typed = onyx.InferenceSession(modelgen.one_node("Sign", tp, ["N"]))
                (y,) = typed.run(None, {"x": np.zeros(5, dtype=np_type)})
                self.assertEqual(y.dtype, np.dtype(np_type))
                self.assertTrue(y.flags.owndata)
                self.assertEqual(typed._last_output_pointers, (y.ctypes.data,))

    def test_output_shape_fallback(self):
        """Were a predicted output shape ever wrong, the run still returns
        the right arrays: too small, onyx allocates; too large, a view."""
        sess = onyx.InferenceSession(modelgen.one_node("Floor", F, ["N"]))
        x = np.linspace(-5, 5, 11, dtype=np.float32)
        for wrong in ((3,), (30,)):
            sess._output_shapes = lambda arrays, w=wrong: [w]
            (y,) = sess.run(None, {"x": x})
            self.assertTrue(bits_equal(y, np.floor(x)))
        # The same from a model: an output declared [8] computed from an
        # input that declares no shape, which the run does not hold to 8.
        graph = helper.make_graph([helper.make_node("Ceil", ["x"], ["y"])], "g",
                                  [helper.make_tensor_value_info("x", F, None)],
                                  [helper.make_tensor_value_info("y", F, [8])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        sess = onyx.InferenceSession(model.SerializeToString())
        for n in (5, 8, 10):
            x = np.arange(n, dtype=np.float32) / 3
            (y,) = sess.run(None, {"x": x})
            self.assertTrue(bits_equal(y, np.ceil(x)))

    def test_bfloat16(self):
        """bfloat16 tensors are uint16 bit patterns, read as bfloat16
        because the session declares the input bfloat16."""
        sess = onyx.InferenceSession(modelgen.one_node("Ceil", TensorProto.BFLOAT16, ["N"]))
        self.assertEqual(sess.get_inputs()[0].type, "tensor(bfloat16)")
        values = np.array([-1.5, -0.5, 0.25, 1.0, 2.5, np.inf], dtype=np.float32)
        bits = modelgen.f32_to_bf16(values)
        (y,) = sess.run(None, {"x": bits})
        self.assertEqual(y.dtype, np.uint16)
        self.assertTrue(bits_equal(y, modelgen.f32_to_bf16(np.ceil(values))))
        self.assertEqual(sess._last_input_pointers[0], bits.ctypes.data)
        self.assertIn("uint16", onyx.InferenceSession.run.__doc__)
        self.assertIn("bfloat16", onyx.InferenceSession.run.__doc__)
        with self.assertRaises(onyx.OnyxInputTypeError):
            sess.run(None, {"x": values})  # float32 is not bfloat16

    def test_threads_and_options(self):
        rng = np.random.default_rng(3)
        x = (rng.standard_normal(1 << 18) * 100).astype(np.float32)
        want = np.sign(np.clip(np.ceil(x), -2, 2))
        so = onyx.SessionOptions()
        so.intra_op_num_threads = 3
        so.graph_optimization_level = onyx.GraphOptimizationLevel.ORT_ENABLE_ALL
        model = modelgen.model_bytes(
            [helper.make_node("Ceil", ["x"], ["c"]),
             helper.make_node("Clip", ["c", "lo", "hi"], ["d"]),
             helper.make_node("Sign", ["d"], ["y"])],
            [("x", F, ["N"])], [("y", F, ["N"])],
            initializers=[helper.make_tensor("lo", F, [], [-2.0]),
                          helper.make_tensor("hi", F, [], [2.0])])
        for sess in (onyx.InferenceSession(model, so, providers=["CPUExecutionProvider"]),
                     onyx.InferenceSession(model, threads=2, isa="scalar"),
                     onyx.InferenceSession(model, isa="best")):
            self.assertEqual(sess.get_providers(), ["CPUExecutionProvider"])
            self.assertTrue(bits_equal(sess.run(None, {"x": x})[0], want))
        self.assertEqual(onyx.InferenceSession(model, so).get_session_options()
                         .intra_op_num_threads, 3)

        # Several Python threads running one session at once.
        sess = onyx.InferenceSession(model, threads=2)
        results, errors = [None] * 8, []

        def work(k):
            try:
                results[k] = sess.run(None, {"x": x[k:]})[0]
            except Exception as e:  # noqa: BLE001
                errors.append(e)
        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        for k in range(8):
            self.assertTrue(bits_equal(results[k], want[k:]))

    def test_ort_compatibility(self):
        self.assertEqual(onyx.get_available_providers(), ["CPUExecutionProvider"])
        self.assertEqual(onyx.get_device(), "CPU")
        meta = onyx.InferenceSession(EXAMPLE).get_modelmeta()
        self.assertEqual(meta.opset_import, {"ai.onnx": 13})
        self.assertEqual(meta.ir_version, 7)
        self.assertGreaterEqual(onyx.max_opset(), 13)
        self.assertIn(onyx.isa_detected(), ("scalar", "sse41", "avx2", "avx512"))
        sess = onyx.InferenceSession(EXAMPLE, onyx.SessionOptions(), ["CPUExecutionProvider"])
        self.assertEqual(len(sess.run(None, {"x": EXAMPLE_X}, onyx.RunOptions())), 3)


class Errors(unittest.TestCase):
    def assertOnyxError(self, cls, status_name, text, fn, *args, **kwargs):
        with self.assertRaises(cls) as cm:
            fn(*args, **kwargs)
        e = cm.exception
        self.assertIsInstance(e, onyx.OnyxError)
        self.assertIsInstance(e, RuntimeError)
        self.assertEqual(e.status_name, status_name)
        self.assertIn(text, e.message)
        self.assertIn("(%s)" % status_name, str(e))
        return e

    def test_model_errors(self):
        self.assertOnyxError(onyx.OnyxIoError, "ONYX_IO", "no_such_model.onnx",
                             onyx.InferenceSession, "no_such_model.onnx")
        self.assertOnyxError(onyx.OnyxParseError, "ONYX_PARSE", "",
                             onyx.InferenceSession, b"\x0a\xff\xff")
        add = modelgen.model_bytes([helper.make_node("Add", ["x", "x"], ["y"], name="my_add")],
                                   [("x", F, [2])], [("y", F, [2])])
        e = self.assertOnyxError(onyx.OnyxUnsupportedOpError, "ONYX_UNSUPPORTED_OP", "Add",
                                 onyx.InferenceSession, add)
        self.assertIn("my_add", e.message)
        self.assertEqual(e.status, 7)
        int_ceil = modelgen.one_node("Ceil", TensorProto.INT32, [2])
        self.assertOnyxError(onyx.OnyxTypeError, "ONYX_TYPE", "int32",
                             onyx.InferenceSession, int_ceil)
        self.assertOnyxError(onyx.OnyxInvalidArgumentError, "ONYX_INVALID_ARGUMENT", "isa",
                             onyx.InferenceSession, EXAMPLE, isa="fastest")

    def test_isa_cap_not_a_level_in_the_library(self):
        """Under the binding's check of isa names, the library refuses an
        isa_cap that is no level itself (it took one as scalar)."""
        from onyx import _capi
        lib, err, model = _capi.lib, _capi.Error(), ctypes.c_void_p()
        self.assertEqual(lib.onyx_model_load_file(EXAMPLE.encode(), ctypes.byref(model),
                                                  ctypes.byref(err)), 0)
        try:
            for bad in (-1, 99, 254, 256):
                opts, session = _capi.SessionOptionsC(), ctypes.c_void_p()
                lib.onyx_session_options_init(ctypes.byref(opts))
                opts.isa_cap = bad
                st = lib.onyx_session_create(model, ctypes.byref(opts), ctypes.byref(session),
                                             ctypes.byref(err))
                self.assertEqual(lib.onyx_status_name(st), b"ONYX_INVALID_ARGUMENT")
                self.assertIn(b"isa_cap %d is no ISA level" % bad, err.message)
                self.assertIsNone(session.value)
        finally:
            lib.onyx_model_free(model)

    def test_run_errors(self):
        sess = onyx.InferenceSession(EXAMPLE)
        self.assertOnyxError(onyx.OnyxInputTypeError, "ONYX_INPUT_TYPE", "double",
                             sess.run, None, {"x": EXAMPLE_X.astype(np.float64)})
        self.assertOnyxError(onyx.OnyxInputShapeError, "ONYX_INPUT_SHAPE", "'x'",
                             sess.run, None, {"x": EXAMPLE_X[:5]})
        self.assertOnyxError(onyx.OnyxInputMissingError, "ONYX_INPUT_MISSING", "'x'",
                             sess.run, None, {})
        self.assertOnyxError(onyx.OnyxInvalidArgumentError, "ONYX_INVALID_ARGUMENT", "'z'",
                             sess.run, None, {"x": EXAMPLE_X, "z": EXAMPLE_X})
        self.assertOnyxError(onyx.OnyxInvalidArgumentError, "ONYX_INVALID_ARGUMENT", "'nope'",
                             sess.run, ["nope"], {"x": EXAMPLE_X})
        self.assertOnyxError(onyx.OnyxInputTypeError, "ONYX_INPUT_TYPE", "bool",
                             sess.run, None, {"x": np.ones(8, dtype=bool)})
        # The session still works after errors.
        self.assertEqual(len(sess.run(None, {"x": EXAMPLE_X})), 3)

    def test_status_classes(self):
        """One class per status, matching the library's names and the
        header's ONYX_STATUS_MAP."""
        header = read(os.path.join(SOURCE_DIR, "include", "onyx.h"))
        status_map = re.search(r"#define ONYX_STATUS_MAP\(X\)((?:[^\n]*\\\n)*[^\n]*)", header)
        codes = [(name, int(v))
                 for name, v in re.findall(r"X\((\w+), (\d+), \"", status_map.group(1))]
        self.assertEqual(len(codes), 23)
        self.assertEqual(sorted(onyx.STATUS_ERRORS), [v for _, v in codes if v != 0])
        lib = ctypes.CDLL(onyx.library_path)
        lib.onyx_status_name.restype = ctypes.c_char_p
        for name, value in codes:
            self.assertEqual(lib.onyx_status_name(value).decode(), "ONYX_" + name)
            if value == 0:
                continue
            cls = onyx.STATUS_ERRORS[value]
            camel = "".join(w.capitalize() for w in name.split("_"))
            self.assertEqual(cls.__name__, "Onyx%sError" % camel)
            self.assertIs(getattr(onyx, cls.__name__), cls)
            self.assertEqual((cls.status, cls.status_name), (value, "ONYX_" + name))
            self.assertTrue(issubclass(cls, onyx.OnyxError))


class Package(unittest.TestCase):
    def test_version(self):
        header = read(os.path.join(SOURCE_DIR, "include", "onyx.h"))
        parts = [re.search(r"#define ONYX_VERSION_%s (\d+)" % p, header).group(1)
                 for p in ("MAJOR", "MINOR", "PATCH")]
        self.assertEqual(onyx.__version__, ".".join(parts))

    def run_python(self, code, env_changes, cwd=None):
        env = dict(os.environ)
        for k, v in env_changes.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        return subprocess.run([sys.executable, "-B", "-c", code], env=env, cwd=cwd,
                              capture_output=True, text=True)

    def test_library_lookup(self):
        """ONYX_LIBRARY, then next to the package, then build/ of the source
        tree, then the system."""
        built = os.environ["ONYX_LIBRARY"]
        package = os.path.dirname(onyx.__file__)
        show = "import onyx; print(onyx.library_path)"
        with tempfile.TemporaryDirectory() as tmp:
            # A source tree of our own: TMP/python/onyx and TMP/build.
            copy = os.path.join(tmp, "python", "onyx")
            shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__", "*.so*"))
            env = {"PYTHONPATH": os.path.join(tmp, "python"), "ONYX_LIBRARY": None}

            # Nothing anywhere (the system has no libonyx either): ImportError.
            r = self.run_python("import ctypes.util; ctypes.util.find_library = lambda n: None\n"
                                + show, env)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("libonyx.so not found", r.stderr)
            self.assertIn("ONYX_LIBRARY", r.stderr)

            # The system's, through ctypes.util.find_library.
            r = self.run_python("import ctypes.util\nctypes.util.find_library = "
                                "lambda n: %r if n == 'onyx' else None\n%s" % (built, show), env)
            self.assertEqual(r.stdout.strip(), built, r.stderr)

            # The build folder of the source tree.
            os.makedirs(os.path.join(tmp, "build"))
            in_build = os.path.join(tmp, "build", "libonyx.so")
            shutil.copy(built, in_build)
            r = self.run_python(show, env)
            self.assertEqual(r.stdout.strip(), in_build, r.stderr)

            # Next to the package wins over the build folder.
            beside = os.path.join(copy, "libonyx.so")
            shutil.copy(built, beside)
            r = self.run_python(show, env)
            self.assertEqual(r.stdout.strip(), beside, r.stderr)

            # ONYX_LIBRARY wins over everything; a bad one is an error.
            env["ONYX_LIBRARY"] = built
            r = self.run_python(show, env)
            self.assertEqual(r.stdout.strip(), built, r.stderr)
            env["ONYX_LIBRARY"] = os.path.join(tmp, "missing.so")
            r = self.run_python(show, env)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("ONYX_LIBRARY", r.stderr)
            self.assertIn("missing.so", r.stderr)

    def test_one_import_switch(self):
        """Code written for ONNX Runtime, with the import changed."""
        code = (
            "import numpy as np\n"
            "import onyx as ort\n"
            "so = ort.SessionOptions()\n"
            "so.intra_op_num_threads = 1\n"
            "so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL\n"
            "sess = ort.InferenceSession(%r, sess_options=so, providers=['CPUExecutionProvider'])\n"
            "inp = sess.get_inputs()[0]\n"
            "outs = [o.name for o in sess.get_outputs()]\n"
            "x = np.array(%r, dtype=np.float32)\n"
            "res = sess.run(outs, {inp.name: x})\n"
            "print(inp.name, inp.type, inp.shape, [r.tolist() for r in res])\n"
            % (EXAMPLE, EXAMPLE_X.tolist()))
        r = self.run_python(code, {})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(),
                         "x tensor(float) [8] [%s, %s, %s]" % (
                             CLIPPED.tolist(), SIGN.tolist(), FLOOR.tolist()))


if __name__ == "__main__":
    unittest.main()
