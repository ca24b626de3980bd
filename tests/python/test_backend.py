#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""onyx.backend: its interface (prepare, run_model, run_node,
supports_device, BackendRep.run), the package without onnx, and ONNX's own
backend test harness
(onnx.backend.test.BackendTest), with plain unittest: every bundled node,
simple and PyTorch test. A test whose model uses only the ops onyx serves
(Ceil, Floor, Clip, Sign, Constant) must run and pass; every other test
must be skipped, because onyx does not serve it (prepare raises SkipTest
with onyx's status), never failed. The real-model tests download their
models, and there is no network here: they are excluded by name."""

import collections
import os
import subprocess
import sys
import unittest

import numpy as np

# Debian's onnx 1.12 harness compares outputs with `np.object`, an alias
# numpy 1.24 removed (it raises AttributeError). Give it back, here in the
# test only: onyx.backend itself never names it.
if "object" not in np.__dict__:
    np.object = object

import onnx  # noqa: E402
import onnx.backend.test  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402
from onnx.backend.test.loader import load_model_tests  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import modelgen  # noqa: E402
from modelgen import EXAMPLE, EXAMPLE_X  # noqa: E402

import onyx  # noqa: E402
import onyx.backend  # noqa: E402

F = TensorProto.FLOAT

SERVED_OPS = {"Ceil", "Floor", "Clip", "Sign", "Constant"}
KINDS = ("node", "simple", "pytorch-converted", "pytorch-operator")
# onyx's statuses for "not served": a skip reason names one of them.
NOT_SERVED = ("(ONYX_UNSUPPORTED_OP)", "(ONYX_TYPE)", "(ONYX_OPSET)")


def served(model_dir):
    """True when every node of the case's model is an ai.onnx op onyx
    serves."""
    model = onnx.load(os.path.join(model_dir, "model.onnx"))
    return all(n.op_type in SERVED_OPS and n.domain in ("", "ai.onnx") for n in model.graph.node)


def bits_equal(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


class Interface(unittest.TestCase):
    def test_prepare_and_run(self):
        """A ModelProto, bytes or a path; inputs as a list, a dict or one
        array; outputs in model order, also by name."""
        want = onyx.InferenceSession(EXAMPLE).run(None, {"x": EXAMPLE_X})
        with open(EXAMPLE, "rb") as f:
            data = f.read()
        for model in (onnx.load(EXAMPLE), data, EXAMPLE):
            rep = onyx.backend.prepare(model)
            for inputs in ([EXAMPLE_X], {"x": EXAMPLE_X}, EXAMPLE_X):
                out = rep.run(inputs)
                self.assertEqual(len(out), 3)
                for got, expected in zip(out, want):
                    self.assertTrue(bits_equal(got, expected))
                self.assertTrue(bits_equal(out["floor"], want[2]))
        out = onyx.backend.run_model(onnx.load(EXAMPLE), [EXAMPLE_X], "CPU")
        self.assertTrue(bits_equal(out[1], want[1]))
        with self.assertRaises(onyx.OnyxInvalidArgumentError):
            rep.run([EXAMPLE_X, EXAMPLE_X])

    def test_options(self):
        """Keywords set SessionOptions attributes or InferenceSession's
        threads and isa; anything else is an error, not ignored."""
        rep = onyx.backend.prepare(EXAMPLE, "CPU", intra_op_num_threads=2)
        self.assertEqual(rep.session.get_session_options().intra_op_num_threads, 2)
        rep = onyx.backend.prepare(EXAMPLE, isa="scalar", threads=1)
        self.assertTrue(bits_equal(rep.run([EXAMPLE_X])[2], np.floor(EXAMPLE_X)))
        with self.assertRaises(TypeError):
            onyx.backend.prepare(EXAMPLE, no_such_option=1)
        with self.assertRaises(onyx.OnyxInvalidArgumentError):
            onyx.backend.prepare(EXAMPLE, "CUDA")

    def test_devices(self):
        self.assertTrue(onyx.backend.supports_device("CPU"))
        self.assertTrue(onyx.backend.supports_device("cpu:0"))
        self.assertFalse(onyx.backend.supports_device("CUDA"))
        self.assertFalse(onyx.backend.supports_device("CUDA:1"))

    def test_run_node(self):
        x = np.array([-2.5, -0.5, 0.5, 7.25], dtype=np.float32)
        (y,) = onyx.backend.run_node(helper.make_node("Ceil", ["x"], ["y"]), [x])
        self.assertTrue(bits_equal(y, np.ceil(x)))
        # An omitted optional input; inputs by name; declared outputs.
        clip = helper.make_node("Clip", ["x", "", "hi"], ["y"])
        hi = np.array(0.25, dtype=np.float32)
        (y,) = onyx.backend.run_node(clip, {"x": x, "hi": hi},
                                     outputs_info=[(np.float32, (4,))])
        self.assertTrue(bits_equal(y, np.minimum(x, hi)))
        # Clip-6 takes its bounds as attributes.
        clip6 = helper.make_node("Clip", ["x"], ["y"], min=-1.0, max=1.0)
        (y,) = onyx.backend.run_node(clip6, [x], opset_version=6)
        self.assertTrue(bits_equal(y, np.clip(x, -1, 1)))
        (y,) = onyx.backend.run_node(helper.make_node("Sign", ["x"], ["y"]),
                                     [np.array([-3, 0, 9], dtype=np.int64)])
        self.assertTrue(bits_equal(y, np.array([-1, 0, 1], dtype=np.int64)))
        with self.assertRaises(onyx.OnyxInvalidArgumentError):
            onyx.backend.run_node(clip, [x])

    def test_not_served_is_skipped(self):
        """An op, a type or an opset onyx does not serve: SkipTest with
        onyx's message. A broken model is an error, not a skip."""
        add = modelgen.model_bytes([helper.make_node("Add", ["x", "x"], ["y"], name="my_add")],
                                   [("x", F, [2])], [("y", F, [2])])
        with self.assertRaises(unittest.SkipTest) as cm:
            onyx.backend.prepare(add)
        self.assertIn("'Add'", str(cm.exception))
        self.assertIn("(ONYX_UNSUPPORTED_OP)", str(cm.exception))
        self.assertIsInstance(cm.exception.__cause__, onyx.OnyxUnsupportedOpError)
        with self.assertRaises(unittest.SkipTest) as cm:
            onyx.backend.prepare(modelgen.one_node("Ceil", TensorProto.INT32, [2]))
        self.assertIn("(ONYX_TYPE)", str(cm.exception))
        with self.assertRaises(unittest.SkipTest) as cm:
            onyx.backend.run_node(helper.make_node("Ceil", ["x"], ["y"]),
                                  [np.ones(2, dtype=np.int32)])
        self.assertIn("int32", str(cm.exception))
        with self.assertRaises(onyx.OnyxParseError):
            onyx.backend.prepare(b"\x0a\xff\xff")
        with self.assertRaises(onyx.OnyxIoError):
            onyx.backend.prepare("no_such_model.onnx")

    def test_package_without_onnx(self):
        """onnx is imported by onyx.backend alone: without it the package
        runs models, and only onyx.backend fails to import."""
        code = ("import sys\n"
                "class Block:\n"
                "    def find_spec(self, name, path=None, target=None):\n"
                "        if name == 'onnx' or name.startswith('onnx.'):\n"
                "            raise ImportError('no onnx here')\n"
                "sys.meta_path.insert(0, Block())\n"
                "import numpy as np, onyx\n"
                "s = onyx.InferenceSession(%r)\n"
                "print(s.run(['floor'], {'x': np.array(%r, np.float32)})[0].tolist())\n"
                "print(sorted(m for m in sys.modules if m.split('.')[0] == 'onnx'))\n"
                "try:\n"
                "    import onyx.backend\n"
                "except ImportError as e:\n"
                "    print('ImportError', e)\n" % (EXAMPLE, EXAMPLE_X.tolist()))
        r = subprocess.run([sys.executable, "-B", "-c", code], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(),
                         [str(np.floor(EXAMPLE_X).tolist()), "[]", "ImportError no onnx here"])


class Outcomes(unittest.TestResult):
    """Each harness test's outcome by name: 'passed', 'failed' (with the
    traceback) or 'skipped' (with the reason)."""

    def __init__(self):
        super().__init__()
        self.outcome = {}

    @staticmethod
    def name(test):
        return test.id().rsplit(".", 1)[-1]

    def addSuccess(self, test):
        self.outcome[self.name(test)] = ("passed", "")

    def addFailure(self, test, err):
        self.outcome[self.name(test)] = ("failed", self._exc_info_to_string(err, test))

    addError = addFailure

    def addSkip(self, test, reason):
        self.outcome[self.name(test)] = ("skipped", reason)

    def addExpectedFailure(self, test, err):
        self.outcome[self.name(test)] = ("failed", "expected failure")

    def addUnexpectedSuccess(self, test):
        self.outcome[self.name(test)] = ("failed", "unexpected success")


class Harness(unittest.TestCase):
    def test_backend_harness(self):
        real = [t.name for t in load_model_tests(kind="real")]
        self.assertTrue(real)
        cases = {t.name: t.model_dir for kind in KINDS for t in load_model_tests(kind=kind)}
        expect_pass = {name for name, d in cases.items() if served(d)}
        # Tests of the four ops and Constant from the node folder, as a floor.
        for name in ("test_ceil", "test_floor_example", "test_sign", "test_clip_splitbounds",
                     "test_constant", "test_operator_clip"):
            self.assertIn(name, expect_pass)

        harness = onnx.backend.test.BackendTest(onyx.backend, __name__)
        for name in real:
            harness.exclude("^%s_" % name)
        # BackendTest.test_suite sorts classes, which Python 3 refuses;
        # test_cases gives the same tests.
        suite = unittest.TestSuite(unittest.defaultTestLoader.loadTestsFromTestCase(case)
                                   for _, case in sorted(harness.test_cases.items()))
        result = Outcomes()
        suite.run(result)
        self.assertEqual(result.testsRun, len(result.outcome))

        counts = collections.Counter()
        for test, (outcome, detail) in sorted(result.outcome.items()):
            case, device = test.rsplit("_", 1)
            with self.subTest(test=test):
                self.assertIn(device, ("cpu", "cuda"))
                if device == "cuda":
                    self.assertEqual(outcome, "skipped", detail)
                    counts["skipped: CUDA"] += 1
                elif case in real:
                    self.assertEqual(outcome, "skipped", detail)
                    self.assertIn("exclude pattern", detail)
                    counts["skipped: real model, excluded"] += 1
                elif case in expect_pass:
                    self.assertEqual(outcome, "passed", detail)
                    counts["passed"] += 1
                else:
                    self.assertIn(case, cases)
                    self.assertEqual(outcome, "skipped", detail)
                    self.assertTrue(any(s in detail for s in NOT_SERVED), detail)
                    counts["skipped: not served by onyx"] += 1
        self.assertEqual(counts["passed"], len(expect_pass))
        print("\nONNX backend harness (onnx %s): %d tests: %s" % (
            onnx.__version__, result.testsRun,
            ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items()))), file=sys.stderr)
        print("passed: %s" % " ".join(sorted(expect_pass)), file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
