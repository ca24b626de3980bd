#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Pickled InferenceSessions: a round trip in this process and in a child
process gives bit-identical outputs; the model travels as bytes (restoring
reads no file) or, with pickle_model='path' or external data, by path, with
a clear error where the path cannot be read; options, threads, isa and the
Python ops the model uses travel with it, and an op whose function cannot
be pickled raises TypeError naming the op."""

import functools
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np
from onnx import TensorProto, external_data_helper, helper, numpy_helper
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import modelgen  # noqa: E402
from modelgen import EXAMPLE, EXAMPLE_X  # noqa: E402

import onyx  # noqa: E402

F = TensorProto.FLOAT
PYTHON_DIR = os.path.join(modelgen.SOURCE_DIR, "python")

# The child process: reads a pickled (session, feed), runs it, and writes
# the pickled outputs, or the error's class name, status and message.
CHILD = r"""
import pickle, sys
try:
    sess, feed = pickle.loads(sys.stdin.buffer.read())
    out = ("ok", sess.run(None, feed))
except Exception as e:
    out = ("error", type(e).__name__, getattr(e, "status", None), str(e))
sys.stdout.buffer.write(pickle.dumps(out))
"""


def child_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = PYTHON_DIR + os.pathsep + env.get("PYTHONPATH", "")
    return env


def in_child(payload, cwd=None):
    """Runs CHILD on a pickled (session, feed) in a new interpreter."""
    p = subprocess.run([sys.executable, "-c", CHILD], input=payload, capture_output=True,
                       timeout=120, env=child_env(), cwd=cwd)
    if p.returncode != 0:
        raise AssertionError("child failed (%d): %s" % (p.returncode, p.stderr.decode()))
    return pickle.loads(p.stdout)


def bits_equal(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def all_bits_equal(xs, ys):
    return len(xs) == len(ys) and all(bits_equal(x, y) for x, y in zip(xs, ys))


def describe(sess):
    return ([(i.name, i.type, i.shape) for i in sess.get_inputs()],
            [(o.name, o.type, o.shape) for o in sess.get_outputs()])


def clip_model(lo, hi):
    """Clip(x, lo, hi) -> Sign, the bounds as initializers."""
    m = helper.make_model(helper.make_graph(
        [helper.make_node("Clip", ["x", "lo", "hi"], ["c"]), helper.make_node("Sign", ["c"], ["s"]),
         helper.make_node("Floor", ["x"], ["f"])], "g",
        [helper.make_tensor_value_info("x", F, ["n"])],
        [helper.make_tensor_value_info("c", F, ["n"]), helper.make_tensor_value_info("s", F, ["n"]),
         helper.make_tensor_value_info("f", F, ["n"])],
        initializer=[numpy_helper.from_array(np.array(lo, np.float32), "lo"),
                     numpy_helper.from_array(np.array(hi, np.float32), "hi")]),
        opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


class RoundTrip(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="onyx_pickle_")
        self.x = np.random.default_rng(7).standard_normal(1000).astype(np.float32) * 4

    def tearDown(self):
        shutil.rmtree(self.tmp)
        for name, domain in (("Neg", ""), ("Twice", "com.example"), ("Unused", "")):
            onyx.unregister_op(name, domain=domain)

    def copy_example(self):
        path = os.path.join(self.tmp, "chain.onnx")
        shutil.copy(EXAMPLE, path)
        return path

    def test_bytes_mode_in_process(self):
        """Every protocol; the restored session reads no file: the model
        file is gone before it is restored."""
        path = self.copy_example()
        sess = onyx.InferenceSession(path)
        want = sess.run(None, {"x": EXAMPLE_X})
        blobs = [pickle.dumps(sess, protocol=p) for p in range(2, pickle.HIGHEST_PROTOCOL + 1)]
        os.remove(path)
        for blob in blobs:
            again = pickle.loads(blob)
            self.assertEqual(describe(again), describe(sess))
            self.assertTrue(all_bits_equal(again.run(None, {"x": EXAMPLE_X}), want))
            # The size cost: the model's bytes and little else.
            self.assertLess(len(blob), os.path.getsize(EXAMPLE) + 2048)
        # A session from bytes, and one restored, pickle again.
        with open(EXAMPLE, "rb") as f:
            sess2 = onyx.InferenceSession(f.read())
        again = pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(sess2))))
        self.assertTrue(all_bits_equal(again.run(None, {"x": EXAMPLE_X}), want))
        # Protocol 5 out of band: the model's bytes are one buffer, not copied
        # into the pickle.
        buffers = []
        blob = pickle.dumps(sess2, protocol=5, buffer_callback=buffers.append)
        self.assertEqual([len(b.raw()) for b in buffers], [os.path.getsize(EXAMPLE)])
        self.assertLess(len(blob), 1024)
        for given in (buffers, [bytearray(b.raw()) for b in buffers]):
            again = pickle.loads(blob, buffers=given)
            self.assertTrue(all_bits_equal(again.run(None, {"x": EXAMPLE_X}), want))

    def test_options_travel(self):
        so = onyx.SessionOptions()
        so.intra_op_num_threads = 3
        so.graph_optimization_level = onyx.GraphOptimizationLevel.ORT_ENABLE_BASIC
        so.logid = "worker"
        model = clip_model(-2.5, 2.5).SerializeToString()
        for sess in (onyx.InferenceSession(model, so),
                     onyx.InferenceSession(model, threads=2, isa="scalar")):
            again = pickle.loads(pickle.dumps(sess))
            a, b = sess.get_session_options(), again.get_session_options()
            self.assertEqual(repr(a), repr(b))
            self.assertEqual(again._isa, sess._isa)
            x = np.random.default_rng(1).standard_normal(1 << 17).astype(np.float32) * 3
            self.assertTrue(all_bits_equal(again.run(None, {"x": x}), sess.run(None, {"x": x})))
        self.assertEqual(pickle.loads(pickle.dumps(onyx.InferenceSession(model, so)))
                         .get_session_options().intra_op_num_threads, 3)

    def test_child_process(self):
        """Restored in a new interpreter, in another working folder."""
        for source in (self.copy_example(), open(EXAMPLE, "rb").read()):
            sess = onyx.InferenceSession(source, threads=2)
            want = sess.run(None, {"x": EXAMPLE_X})
            kind, got = in_child(pickle.dumps((sess, {"x": EXAMPLE_X})), cwd=self.tmp)
            self.assertEqual(kind, "ok")
            self.assertTrue(all_bits_equal(got, want))

    def test_python_ops(self):
        """Ops pickle by name (numpy's functions, partials of them, and
        functions of importable modules); only the ops the model uses
        travel, so an unused lambda does no harm."""
        onyx.register_op("Neg", np.negative)
        onyx.register_op("Twice", functools.partial(np.multiply, np.float32(2)),
                         domain="com.example")
        onyx.register_op("Unused", lambda x: x)
        m = helper.make_model(helper.make_graph(
            [helper.make_node("Neg", ["x"], ["n"]),
             helper.make_node("Twice", ["n"], ["t"], domain="com.example"),
             helper.make_node("Floor", ["t"], ["y"])], "g",
            [helper.make_tensor_value_info("x", F, ["n"])],
            [helper.make_tensor_value_info("y", F, ["n"])]),
            opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)])
        m.ir_version = 8
        sess = onyx.InferenceSession(m.SerializeToString())
        want = sess.run(None, {"x": self.x})
        self.assertTrue(bits_equal(want[0], np.floor(-self.x * np.float32(2))))
        blob = pickle.dumps((sess, {"x": self.x}))
        # The restored session has its own ops: unregistering changes nothing.
        onyx.unregister_op("Neg")
        onyx.unregister_op("Twice", domain="com.example")
        again, _ = pickle.loads(blob)
        self.assertTrue(all_bits_equal(again.run(None, {"x": self.x}), want))
        kind, got = in_child(blob)
        self.assertEqual(kind, "ok")
        self.assertTrue(all_bits_equal(got, want))

    def test_unpicklable_op(self):
        onyx.register_op("Neg", lambda x: -x)
        m = helper.make_model(helper.make_graph(
            [helper.make_node("Neg", ["x"], ["y"])], "g",
            [helper.make_tensor_value_info("x", F, ["n"])],
            [helper.make_tensor_value_info("y", F, ["n"])]),
            opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 8
        sess = onyx.InferenceSession(m.SerializeToString())
        with self.assertRaises(TypeError) as cm:
            pickle.dumps(sess)
        self.assertIn("Python op 'Neg' of domain 'ai.onnx'", str(cm.exception))
        self.assertIn("<lambda>", str(cm.exception))
        # The session itself still runs.
        self.assertTrue(bits_equal(sess.run(None, {"x": self.x})[0], -self.x))

    def test_path_mode(self):
        path = self.copy_example()
        sess = onyx.InferenceSession(os.path.relpath(path), pickle_model="path")
        blob = pickle.dumps(sess)
        self.assertLess(len(blob), 1024)  # the path, not the model
        self.assertIn(os.fsencode(os.path.abspath(path)), blob)
        want = sess.run(None, {"x": EXAMPLE_X})
        kind, got = in_child(pickle.dumps((sess, {"x": EXAMPLE_X})), cwd=self.tmp)
        self.assertTrue(kind == "ok" and all_bits_equal(got, want))
        # Restoring reads the path: a file replaced meanwhile is read anew.
        onnx.save(clip_model(-1, 1), path)
        again = pickle.loads(blob)
        self.assertEqual([o.name for o in again.get_outputs()], ["c", "s", "f"])
        # A path the restoring process cannot read: onyx's error, saying why.
        os.remove(path)
        with self.assertRaises(onyx.OnyxError) as cm:
            pickle.loads(blob)
        self.assertEqual(cm.exception.status_name, "ONYX_IO")
        self.assertIn("travels by its path, '%s'" % os.path.abspath(path), str(cm.exception))
        kind, name, status, message = in_child(pickle.dumps((sess, {"x": EXAMPLE_X})))
        self.assertEqual((kind, name, status), ("error", "OnyxIoError", cm.exception.status))
        self.assertIn("every process that restores it must be able to read", message)

    def test_mode_errors(self):
        with self.assertRaises(ValueError):
            onyx.InferenceSession(EXAMPLE, pickle_model="file")
        with self.assertRaises(ValueError) as cm:
            onyx.InferenceSession(open(EXAMPLE, "rb").read(), pickle_model="path")
        self.assertIn("made from bytes", str(cm.exception))
        # Bytes mode reads the file when pickling, and refuses a changed one.
        path = self.copy_example()
        sess = onyx.InferenceSession(path)
        onnx.save(clip_model(-1, 1), path)
        with self.assertRaises(onyx.OnyxError) as cm:
            pickle.dumps(sess)
        self.assertIn("changed after the session was made", str(cm.exception))
        # A pickle of another format is refused by name.
        reduce, (cls, state) = onyx.InferenceSession(EXAMPLE).__reduce_ex__(4)
        state["format"] = 99
        with self.assertRaises(ValueError) as cm:
            reduce(cls, state)
        self.assertIn("format 99", str(cm.exception))

    def test_external_data(self):
        """A model whose tensors live in another file travels by path, in
        either mode; a worker without the data file gets onyx's error."""
        m = clip_model(-1.5, 2.5)
        external_data_helper.convert_model_to_external_data(
            m, all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
        path = os.path.join(self.tmp, "external.onnx")
        onnx.save(m, path)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "weights.bin")))
        sess = onyx.InferenceSession(path)
        want = sess.run(None, {"x": self.x})
        self.assertTrue(bits_equal(want[0], np.clip(self.x, np.float32(-1.5), np.float32(2.5))))
        for blob in (pickle.dumps(sess), pickle.dumps(sess, protocol=5)):
            self.assertLess(len(blob), 1024)
            self.assertTrue(all_bits_equal(pickle.loads(blob).run(None, {"x": self.x}), want))
        kind, got = in_child(pickle.dumps((sess, {"x": self.x})))
        self.assertTrue(kind == "ok" and all_bits_equal(got, want))
        os.remove(os.path.join(self.tmp, "weights.bin"))
        kind, name, status, message = in_child(pickle.dumps((sess, {"x": self.x})))
        self.assertEqual(kind, "error")
        self.assertIn(name, ("OnyxIoError", "OnyxExternalDataError"))
        self.assertIn("travels by its path, '%s'" % path, message)
        self.assertIn("external data", message)


if __name__ == "__main__":
    unittest.main()
