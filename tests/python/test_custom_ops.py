#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Operators onyx lacks, from Python: numpy functions (onyx.register_op)
and op libraries (SessionOptions.register_custom_ops_library), in graphs
with onyx's own ops, against ONNX's reference (onnx.reference where the
installed onnx has it, else numpy), with their errors and threads."""

import os
import sys
import tempfile
import threading
import unittest

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import onyx

F = TensorProto.FLOAT
TESTOPS = os.environ.get("ONYX_TESTOPS", "")
X = np.array([-3, -0.5, 0, 0.25, 1.5, 3, np.nan, -np.inf, np.inf, 2.5, 1e-30, -1e-30],
             dtype=np.float32)


def model(nodes, inits=(), n="n", opsets=(("", 13),), out_type=F):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, [n])],
                          [helper.make_tensor_value_info("y", out_type, [n])],
                          initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    m.ir_version = 8
    return m


def mixed_model():
    """Relu -> Clip(-1, 2.5) -> Sign -> Floor."""
    inits = [numpy_helper.from_array(np.array(-1, np.float32), "lo"),
             numpy_helper.from_array(np.array(2.5, np.float32), "hi")]
    return model([helper.make_node("Relu", ["x"], ["r"], name="relu"),
                  helper.make_node("Clip", ["r", "lo", "hi"], ["c"], name="clip"),
                  helper.make_node("Sign", ["c"], ["s"], name="sign"),
                  helper.make_node("Floor", ["s"], ["y"], name="floor")], inits)


def reference(m, x):
    """ONNX's reference implementation where onnx has one (1.13 and
    later), else the same ops in numpy."""
    try:
        from onnx.reference import ReferenceEvaluator
    except ImportError:
        with np.errstate(invalid="ignore"):
            return np.floor(np.sign(np.clip(np.maximum(x, 0), -1, 2.5)))
    return ReferenceEvaluator(m).run(None, {"x": x})[0]


def same(a, b):
    """Bit for bit, with any NaN matching any NaN (as onyx test compares)."""
    a, b = np.asarray(a), np.asarray(b)
    nan = np.isnan(a) & np.isnan(b)
    return (a.dtype == b.dtype and a.shape == b.shape and
            a[~nan].tobytes() == b[~nan].tobytes())


def value_dims(session, name):
    """The (size, name) of each dimension of the session's value called
    name, as session creation knows them (onyx_session_value_info)."""
    import ctypes
    from onyx import _capi
    lib = _capi.lib
    lib.onyx_session_value_count.restype = ctypes.c_size_t
    lib.onyx_session_value_count.argtypes = [ctypes.c_void_p]
    lib.onyx_session_value_info.argtypes = [ctypes.c_void_p, ctypes.c_size_t,
                                            ctypes.POINTER(_capi.ValueInfo),
                                            ctypes.POINTER(_capi.Error)]
    for v in range(lib.onyx_session_value_count(session._session)):
        vi, err = _capi.ValueInfo(), _capi.Error()
        assert lib.onyx_session_value_info(session._session, v, ctypes.byref(vi),
                                           ctypes.byref(err)) == 0
        if vi.name == name.encode():
            return [(vi.dims[d], vi.dim_names[d]) for d in range(vi.rank)]
    raise KeyError(name)


class PythonOps(unittest.TestCase):
    def tearDown(self):
        for name in ("Relu", "LeakyRelu", "Twice", "Boom", "Grow", "Clip"):
            onyx.unregister_op(name)
        onyx.unregister_op("Twice", domain="com.example")

    def test_without_registration_onyx_refuses(self):
        with self.assertRaises(onyx.OnyxUnsupportedOpError) as cm:
            onyx.InferenceSession(mixed_model().SerializeToString())
        self.assertIn("'Relu' is not supported", str(cm.exception))

    def test_mixed_graph_matches_the_reference(self):
        m = mixed_model()
        onyx.register_op("Relu", lambda x: np.maximum(x, np.float32(0)))
        for threads in (1, 2):
            s = onyx.InferenceSession(m.SerializeToString(), threads=threads)
            (y,) = s.run(None, {"x": X})
            want = reference(m, X)
            self.assertTrue(same(y, want), "%r vs %r" % (y, want))
            (y,) = s.run(None, {"x": X[:5]})  # another size: the shape comes again
            self.assertTrue(same(y, reference(m, X[:5])))

    def test_attributes_and_a_custom_domain(self):
        m = model([helper.make_node("LeakyRelu", ["x"], ["y"], alpha=0.25)], n=4)
        onyx.register_op("LeakyRelu", lambda x, alpha=0.01: np.where(x >= 0, x, x * alpha),
                         since=6, inputs=1, attributes=("alpha",))
        x = np.array([-4, -1, 0, 2], np.float32)
        (y,) = onyx.InferenceSession(m.SerializeToString()).run(None, {"x": x})
        self.assertTrue(same(y, np.array([-1, -0.25, 0, 2], np.float32)))
        m = model([helper.make_node("Twice", ["x"], ["y"], domain="com.example")], n=2,
                  opsets=(("", 13), ("com.example", 1)))
        onyx.register_op("Twice", lambda x: x * 2, domain="com.example")
        (y,) = onyx.InferenceSession(m.SerializeToString()).run(
            None, {"x": np.array([1, 2], np.float32)})
        self.assertTrue(same(y, np.array([2, 4], np.float32)))

    def test_errors_name_the_node_and_op(self):
        def boom(x):
            raise ValueError("bad input at 3")
        onyx.register_op("Boom", boom)
        m = model([helper.make_node("Boom", ["x"], ["y"], name="b")], n=2)
        with self.assertRaises(onyx.OnyxInvalidArgumentError) as cm:
            onyx.InferenceSession(m.SerializeToString())
        self.assertIn("node 0 ('b', Boom): ValueError: bad input at 3", str(cm.exception))
        # A shape that depends on the values: the probe on zeros gives one
        # element, the real call more.
        onyx.register_op("Grow", lambda x: np.repeat(x, int(abs(x).sum()) + 1))
        m = model([helper.make_node("Grow", ["x"], ["y"], name="g")], n=2)
        s = onyx.InferenceSession(m.SerializeToString())
        with self.assertRaises(onyx.OnyxShapeError) as cm:
            s.run(None, {"x": np.array([1, 2], np.float32)})
        self.assertIn("node 0 ('g', Grow): output 0: the function returned", str(cm.exception))
        self.assertEqual(s.run(None, {"x": np.zeros(2, np.float32)})[0].shape, (2,))

    def test_inputs_are_read_only(self):
        def scribble(x):
            x[...] = 0
            return x
        onyx.register_op("Boom", scribble)
        m = model([helper.make_node("Boom", ["x"], ["y"], name="b")], n=2)
        x = np.array([1, 2], np.float32)
        with self.assertRaises(onyx.OnyxInvalidArgumentError) as cm:
            onyx.InferenceSession(m.SerializeToString()).run(None, {"x": x})
        self.assertIn("ValueError", str(cm.exception))
        self.assertTrue(same(x, np.array([1, 2], np.float32)))

    def test_registration_is_checked(self):
        with self.assertRaises(onyx.OnyxInvalidArgumentError) as cm:
            onyx.register_op("Clip", np.clip)
        self.assertIn("override_builtin", str(cm.exception))
        with self.assertRaises(onyx.OnyxInvalidArgumentError):
            onyx.register_op("Relu", np.abs, since=0)
        with self.assertRaises(onyx.OnyxInvalidArgumentError):
            onyx.register_op("Relu", np.abs, inputs=(2, 1))
        # An override is explicit, and then serves every such node.
        onyx.register_op("Clip", lambda x, lo, hi: np.full_like(x, 7), override=True)
        onyx.register_op("Relu", lambda x: x)
        (y,) = onyx.InferenceSession(mixed_model().SerializeToString()).run(None, {"x": X})
        self.assertTrue(same(y, np.ones_like(X)))

    def test_ai_onnx_is_the_default_domain(self):
        # "ai.onnx" and "" are one domain: registering under both replaces,
        # and sessions of models without the op still work.
        onyx.register_op("Relu", lambda x: x * 0, domain="ai.onnx")
        onyx.register_op("Relu", lambda x: np.maximum(x, 0))
        (y,) = onyx.InferenceSession(mixed_model().SerializeToString()).run(None, {"x": X})
        self.assertTrue(same(y, reference(mixed_model(), X)))
        plain = model([helper.make_node("Floor", ["x"], ["y"])])
        (y,) = onyx.InferenceSession(plain.SerializeToString()).run(None, {"x": X})
        self.assertTrue(same(y, np.floor(X)))
        onyx.unregister_op("Relu", domain="ai.onnx")
        with self.assertRaises(onyx.OnyxError):
            onyx.InferenceSession(mixed_model().SerializeToString())

    def test_the_probe_sees_a_large_constant_of_a_model_file(self):
        # A model file's initializer of 64 KiB or more is read after load;
        # the shape probe at session creation still gets its values.
        w = np.full(16384, 3, np.float32)
        seen = []

        def add_last(x, w):
            seen.append(float(w[-1]))
            return x + w[-1]
        onyx.register_op("Twice", add_last, domain="com.example", inputs=2)
        m = model([helper.make_node("Twice", ["x", "w"], ["y"], domain="com.example")],
                  [numpy_helper.from_array(w, "w")], n=2, opsets=(("", 13), ("com.example", 1)))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.onnx")
            with open(path, "wb") as f:
                f.write(m.SerializeToString())
            s = onyx.InferenceSession(path)
        self.assertEqual(seen, [3.0])
        (y,) = s.run(None, {"x": np.array([1, 2], np.float32)})
        self.assertTrue(same(y, np.array([4, 5], np.float32)))

    def test_an_unknown_rank_is_not_a_scalar(self):
        # x declares no shape: at session creation the probe gets one
        # element of rank 1, not a 0-d array, so a function that indexes
        # an axis works; a declared scalar is probed as one. The second op
        # reads the first's output, of unknown rank too.
        seen = []

        def flip(x):
            seen.append(x.ndim)
            return x[..., ::-1] * np.float32(2)
        onyx.register_op("Twice", flip, domain="com.example", inputs=1)

        def flip_model(shape):
            nodes = [helper.make_node("Twice", ["x"], ["t"], domain="com.example"),
                     helper.make_node("Twice", ["t"], ["y"], domain="com.example")]
            g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, shape)],
                                  [helper.make_tensor_value_info("y", F, None)])
            m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13),
                                                    helper.make_opsetid("com.example", 1)])
            m.ir_version = 8
            return m.SerializeToString()
        s = onyx.InferenceSession(flip_model(None))
        self.assertEqual(seen, [1, 1])
        x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
        (y,) = s.run(None, {"x": x})
        self.assertTrue(same(y, x * 4), "%r" % y)
        del seen[:]
        with self.assertRaises(onyx.OnyxInvalidArgumentError) as cm:
            onyx.InferenceSession(flip_model([]))
        self.assertEqual(seen, [0])
        self.assertIn("IndexError", str(cm.exception))
        # A function that needs two axes fails on the probe of an unknown
        # rank, and the message says what it was given.
        onyx.register_op("Twice", lambda x: x[:, ::-1], domain="com.example", inputs=1)
        with self.assertRaises(onyx.OnyxInvalidArgumentError) as cm:
            onyx.InferenceSession(flip_model(None))
        self.assertIn("input 0 of unknown rank given as shape (1,)", str(cm.exception))

    def test_symbolic_dims_at_creation(self):
        # x is [N, 4]: at session creation the probe's 1 for N is no size
        # of the output. A dimension that follows N is unknown (-1), and
        # named N where it is N itself; a fixed one stays fixed. onyx's
        # Ceil after the op keeps what it gets.
        onyx.register_op("Twice", lambda x: x * 2, domain="com.example")
        onyx.register_op("Dup", lambda x: np.concatenate([x, x]), domain="com.example")
        onyx.register_op("Sum0", lambda x: x.sum(axis=0), domain="com.example")
        try:
            for op, want in (("Twice", [(-1, b"N"), (4, None)]),
                             ("Dup", [(-1, None), (4, None)]),
                             ("Sum0", [(4, None)])):
                nodes = [helper.make_node(op, ["x"], ["a"], domain="com.example"),
                         helper.make_node("Ceil", ["a"], ["y"])]
                g = helper.make_graph(nodes, "g",
                                      [helper.make_tensor_value_info("x", F, ["N", 4])],
                                      [helper.make_tensor_value_info("y", F, None)])
                m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13),
                                                        helper.make_opsetid("com.example", 1)])
                m.ir_version = 8
                s = onyx.InferenceSession(m.SerializeToString())
                self.assertEqual(value_dims(s, "a"), want, op)
                self.assertEqual(value_dims(s, "y"), want, op)
                x = np.arange(12, dtype=np.float32).reshape(3, 4) / 3
                (y,) = s.run(None, {"x": x})
                self.assertTrue(same(y, np.ceil({"Twice": x * 2, "Dup": np.concatenate([x, x]),
                                                 "Sum0": x.sum(axis=0)}[op])), op)
        finally:
            onyx.unregister_op("Dup", domain="com.example")
            onyx.unregister_op("Sum0", domain="com.example")

    def test_threads(self):
        """Python ops run on the threads that call run, each taking the GIL."""
        onyx.register_op("Relu", lambda x: np.maximum(x, np.float32(0)))
        m = mixed_model()
        s = onyx.InferenceSession(m.SerializeToString())
        want = reference(m, X)
        bad = []

        def work():
            for _ in range(50):
                (y,) = s.run(None, {"x": X})
                if not same(y, want):
                    bad.append(y)
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(bad, [])


@unittest.skipUnless(TESTOPS, "ONYX_TESTOPS (the test op library's path) is not set")
class OpLibraries(unittest.TestCase):
    def test_add_and_mul_broadcast(self):
        a = numpy_helper.from_array(np.arange(3, dtype=np.float32).reshape(3, 1), "a")
        g = helper.make_graph(
            [helper.make_node("Add", ["x", "a"], ["s"]), helper.make_node("Mul", ["s", "x"], ["m"]),
             helper.make_node("Floor", ["m"], ["y"])], "g",
            [helper.make_tensor_value_info("x", F, [4])],
            [helper.make_tensor_value_info("y", F, [3, 4])], initializer=[a])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 8
        with self.assertRaises(onyx.OnyxUnsupportedOpError):
            onyx.InferenceSession(m.SerializeToString())
        opts = onyx.SessionOptions()
        opts.register_custom_ops_library(TESTOPS)
        x = np.array([-1.5, 0.5, 2.25, 3], np.float32)
        (y,) = onyx.InferenceSession(m.SerializeToString(), opts).run(None, {"x": x})
        self.assertTrue(same(y, np.floor((x + np.arange(3, dtype=np.float32)[:, None]) * x)))

    def test_a_library_that_does_not_load(self):
        opts = onyx.SessionOptions()
        opts.register_custom_ops_library("/nonexistent/libnone.so")
        with self.assertRaises(onyx.OnyxIoError) as cm:
            onyx.InferenceSession(mixed_model().SerializeToString(), opts)
        self.assertIn("cannot load the op library", str(cm.exception))


class Profiles(unittest.TestCase):
    """onyx bench --per-node and onyx run --profile report what the session
    ran, from the library's profile: a Ceil after a registered Cast to
    float16 is a float16 Ceil, and the Cast is the registered op's."""

    def setUp(self):
        import subprocess
        import tempfile
        self.run_cli = lambda *a: subprocess.run([os.environ["ONYX_CLI"], *a],
                                                 capture_output=True, text=True)
        self.tmp = tempfile.TemporaryDirectory()
        m = model([helper.make_node("Cast", ["x"], ["h"], name="cast", to=TensorProto.FLOAT16),
                   helper.make_node("Ceil", ["h"], ["y"], name="ceil")],
                  out_type=TensorProto.FLOAT16)
        self.path = os.path.join(self.tmp.name, "cast_ceil.onnx")
        with open(self.path, "wb") as f:
            f.write(m.SerializeToString())

    def tearDown(self):
        self.tmp.cleanup()

    def test_bench_per_node(self):
        r = self.run_cli("bench", self.path, "--ops", TESTOPS, "--shape", "n=1000", "--runs", "5",
                         "--per-node")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\n  node 0 Cast 'cast' float16 \[1000\] \(registered op\): "
                                   r"median ")
        self.assertRegex(r.stdout, r"\n  node 1 Ceil 'ceil' float16 \[1000\] \(onyx\): median ")

    def test_run_profile(self):
        import json
        x = os.path.join(self.tmp.name, "x.npy")
        np.save(x, X)
        trace = os.path.join(self.tmp.name, "trace.json")
        r = self.run_cli("run", self.path, "--ops", TESTOPS, "--input", "x=" + x,
                         "--profile", trace)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(trace) as f:
            events = json.load(f)
        self.assertEqual([e["cat"] for e in events], ["Session", "Node", "Node"])
        for e in events:
            self.assertEqual(e["ph"], "X")
            self.assertGreaterEqual(e["dur"], 0)
        cast, ceil = events[1], events[2]
        self.assertEqual((cast["name"], cast["args"]["op_name"], cast["args"]["provider"]),
                         ("cast", "Cast", "registered"))
        self.assertEqual((ceil["name"], ceil["args"]["op_name"], ceil["args"]["provider"],
                          ceil["args"]["output_type"], ceil["args"]["output_shape"]),
                         ("ceil", "Ceil", "onyx", "float16", [len(X)]))
        self.assertLessEqual(cast["ts"] + cast["dur"], ceil["ts"])
        self.assertLessEqual(ceil["ts"] + ceil["dur"], events[0]["dur"])


if __name__ == "__main__":
    unittest.main()
