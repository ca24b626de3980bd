#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The onyx command with numpy files and the bench command, checked with
numpy: `onyx run` reads .npy inputs (found by extension or by magic) and
writes .npy outputs that np.load reads and that are byte for byte what
np.save writes; bfloat16 goes through '<u2'; every kind of bad .npy is a
clear error; `onyx bench` on symbolic, unknown and undeclared shapes."""

import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import modelgen  # noqa: E402
from modelgen import EXAMPLE, EXAMPLE_X, TYPES  # noqa: E402

ONYX = os.environ["ONYX_CLI"]


def onyx(*args, cwd=None):
    return subprocess.run([ONYX] + [str(a) for a in args], capture_output=True, text=True,
                          cwd=cwd)


class InTempDir(unittest.TestCase):
    """A test case with a fresh temporary folder, self.dir."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)


class Npy(InTempDir):

    def save(self, name, array):
        np.save(self.path(name), array)
        return self.path(name)

    def test_same_output_as_pb(self):
        npy = self.save("x.npy", EXAMPLE_X)
        pb = self.path("x.pb")
        with open(pb, "wb") as f:
            f.write(numpy_helper.from_array(EXAMPLE_X, "x").SerializeToString())
        from_pb = onyx("run", EXAMPLE, "--input", "x=" + pb)
        from_npy = onyx("run", EXAMPLE, "--input", "x=" + npy)
        self.assertEqual(from_pb.returncode, 0, from_pb.stderr)
        self.assertEqual(from_npy.returncode, 0, from_npy.stderr)
        self.assertEqual(from_npy.stdout, from_pb.stdout)
        self.assertIn("sign: float [8]", from_npy.stdout)
        # Found by its first bytes too, whatever the file is called.
        os.rename(npy, self.path("x.data"))
        by_magic = onyx("run", EXAMPLE, "--input", "x=" + self.path("x.data"))
        self.assertEqual(by_magic.stdout, from_pb.stdout, by_magic.stderr)
        # --format npy without --output-dir prints as always.
        printed = onyx("run", EXAMPLE, "--input", "x=" + pb, "--format", "npy")
        self.assertEqual(printed.stdout, from_pb.stdout)

    def test_npy_outputs(self):
        npy = self.save("x.npy", EXAMPLE_X)
        out = self.path("out")
        r = onyx("run", EXAMPLE, "--input", "x=" + npy, "--output-dir", out, "--format", "npy")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertEqual(sorted(os.listdir(out)), ["clipped.npy", "floor.npy", "sign.npy"])
        floor = np.load(os.path.join(out, "floor.npy"))
        self.assertEqual(floor.dtype, np.float32)
        self.assertEqual(floor.tolist(), np.floor(EXAMPLE_X).tolist())
        # Byte for byte what np.save writes.
        ref = self.save("ref.npy", floor)
        with open(ref, "rb") as a, open(os.path.join(out, "floor.npy"), "rb") as b:
            self.assertEqual(a.read(), b.read())
        # The default format is still .pb.
        r = onyx("run", EXAMPLE, "--input", "x=" + npy, "--output-dir", self.path("pb"))
        self.assertEqual(sorted(os.listdir(self.path("pb"))),
                         ["clipped.pb", "floor.pb", "sign.pb"])

    def test_every_type(self):
        """Sign on every type: .npy in, .npy out, equal to np.sign (bfloat16
        as '<u2' bit patterns, with a note)."""
        for name, tp, np_type in TYPES:
            with self.subTest(type=name):
                model = self.path("sign_%s.onnx" % name)
                with open(model, "wb") as f:
                    f.write(modelgen.one_node("Sign", tp, [2, 3]))
                rng = np.random.default_rng(tp)
                x = modelgen.values(name, rng)[:6].reshape(2, 3)
                xin = self.save("x_%s.npy" % name, x)
                out = self.path("out_%s" % name)
                r = onyx("run", model, "--input", "x=" + xin, "--output-dir", out,
                         "--format=npy")
                self.assertEqual(r.returncode, 0, r.stderr)
                y = np.load(os.path.join(out, "y.npy"))
                self.assertEqual(y.dtype, np.dtype(np_type))
                if name == "bfloat16":
                    want = modelgen.f32_to_bf16(np.sign(modelgen.bf16_to_f32(x)))
                    self.assertIn("bfloat16 written as '<u2'", r.stderr)
                else:
                    with np.errstate(invalid="ignore"):
                        want = np.sign(x)
                    self.assertEqual(r.stderr, "")
                self.assertIsNone(modelgen.same_values(name, y, want))

    def test_scalar_and_empty(self):
        model = self.path("ceil.onnx")
        with open(model, "wb") as f:
            f.write(modelgen.one_node("Ceil", TensorProto.DOUBLE, None))
        for shape in [(), (0,), (2, 0, 3), (1, 1, 1, 5)]:
            x = (np.arange(int(np.prod(shape)), dtype=np.float64) - 2.5).reshape(shape)
            out = self.path("out%d" % len(shape))
            r = onyx("run", model, "--input", "x=" + self.save("x%d.npy" % len(shape), x),
                     "--output-dir", out, "--format", "npy")
            self.assertEqual(r.returncode, 0, r.stderr)
            y = np.load(os.path.join(out, "y.npy"))
            self.assertEqual(y.shape, shape)
            self.assertEqual(y.tolist(), np.ceil(x).tolist())

    def test_versions_2_and_3(self):
        from numpy.lib import format as npy_format
        for version in ((2, 0), (3, 0)):
            p = self.path("x%d.npy" % version[0])
            with open(p, "wb") as f:
                npy_format.write_array(f, EXAMPLE_X, version=version)
            r = onyx("run", EXAMPLE, "--input", "x=" + p)
            self.assertEqual(r.returncode, 0, r.stderr)

    def test_big_endian_input(self):
        """'>f4' data gives the same outputs as '<f4' data."""
        le = onyx("run", EXAMPLE, "--input", "x=" + self.save("le.npy", EXAMPLE_X))
        be = onyx("run", EXAMPLE, "--input",
                  "x=" + self.save("be.npy", EXAMPLE_X.astype(">f4")))
        self.assertEqual(be.returncode, 0, be.stderr)
        self.assertEqual(be.stdout, le.stdout)

    def test_refused(self):
        """Each is a one-line error naming the file and the reason, exit 3."""
        good = self.save("good.npy", EXAMPLE_X)
        with open(good, "rb") as f:
            data = f.read()
        cases = {
            "fortran.npy": (np.save, np.asfortranarray(EXAMPLE_X.reshape(2, 4)),
                            "Fortran-order"),
            "object.npy": (np.save, np.array([1, None], dtype=object), "object arrays"),
            "bool.npy": (np.save, np.ones(8, dtype=bool), "'|b1' is not supported"),
            "truncated.npy": (None, data[:-5], "the data is truncated: 27 bytes"),
            "extra.npy": (None, data + b"\0\0", "2 bytes after the data"),
            "header.npy": (None, data.replace(b"'fortran_order'", b"'fortran_ordex'"),
                           ".npy header: unknown key 'fortran_ordex'"),
            "magic.npy": (None, b"not numpy at all", "not a .npy file"),
            "version.npy": (None, data[:6] + b"\x04\x00" + data[8:], "format version 4.0"),
        }
        for name, (how, content, message) in cases.items():
            with self.subTest(file=name):
                p = self.path(name)
                if how is np.save:
                    np.save(p, content, allow_pickle=True)
                else:
                    with open(p, "wb") as f:
                        f.write(content)
                r = onyx("run", EXAMPLE, "--input", "x=" + p)
                self.assertEqual(r.returncode, 3, r.stderr)
                self.assertEqual(r.stdout, "")
                lines = r.stderr.splitlines()
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertTrue(lines[0].startswith("onyx: %s: " % p), lines[0])
                self.assertIn(message, lines[0])
        # Not a regular file: refused at once, as the .pb reader does, with
        # the memory capped so that the old, unbounded read could not take
        # the machine's (2 GiB: the message must be the reason, not memory).
        zero = self.path("zero.npy")
        os.symlink("/dev/zero", zero)
        fifo = self.path("fifo.npy")
        os.mkfifo(fifo)
        fifo_data = self.path("fifo.data")
        os.mkfifo(fifo_data)
        cap = lambda: resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
        for p, message in ((zero, "not a regular file"), (fifo, "not a regular file"),
                           (fifo_data, "is not a regular file (ONYX_IO)")):
            r = subprocess.run([ONYX, "run", EXAMPLE, "--input", "x=" + p], capture_output=True,
                               text=True, timeout=20, preexec_fn=cap)
            self.assertEqual(r.returncode, 3, r.stderr)
            self.assertEqual(r.stderr, "onyx: %s: %s\n" % (p, message))
        # A .npy of the wrong type or shape reaches the library's checks.
        r = onyx("run", EXAMPLE, "--input", "x=" + self.save("d.npy", EXAMPLE_X.astype("<f8")))
        self.assertEqual(r.returncode, 3)
        self.assertIn("type double given, float expected (ONYX_INPUT_TYPE)", r.stderr)
        r = onyx("run", EXAMPLE, "--input", "x=" + self.save("s.npy", EXAMPLE_X[:3]))
        self.assertIn("(ONYX_INPUT_SHAPE)", r.stderr)
        r = onyx("run", EXAMPLE, "--input", "x=" + good, "--format", "csv")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--format: 'csv' is not pb or npy", r.stderr)


def write_case(folder, op="Ceil"):
    """A backend-test case folder: model.onnx and test_data_set_0 with one
    input and the output numpy computes."""
    os.makedirs(os.path.join(folder, "test_data_set_0"))
    with open(os.path.join(folder, "model.onnx"), "wb") as f:
        f.write(modelgen.one_node(op, TensorProto.FLOAT, [3]))
    x = np.array([-1.5, 0.25, 2.5], dtype=np.float32)
    y = {"Ceil": np.ceil, "Floor": np.floor}[op](x)
    for name, value in (("input_0.pb", x), ("output_0.pb", y)):
        with open(os.path.join(folder, "test_data_set_0", name), "wb") as f:
            f.write(numpy_helper.from_array(value).SerializeToString())


class Walk(InTempDir):
    """`onyx test` visits each folder once, whatever the links, and copes with
    empty and unreadable folders."""

    def run_test(self, *args, timeout=60):
        return subprocess.run([ONYX, "test"] + [str(a) for a in args], capture_output=True,
                              text=True, timeout=timeout)

    def test_empty_folder(self):
        empty = os.path.join(self.dir, "empty")
        os.mkdir(empty)
        r = self.run_test(empty)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout, "0 passed, 0 failed, 0 skipped\n")
        # The only line: no sanitizer report ("runtime error: null pointer").
        self.assertEqual(r.stderr, "onyx: no test case found (a case folder holds model.onnx)\n")

    def test_unreadable_folder(self):
        write_case(os.path.join(self.dir, "a", "case"))
        locked = os.path.join(self.dir, "b")
        os.mkdir(locked)
        os.chmod(locked, 0)
        try:
            if os.access(locked, os.R_OK):
                print("SKIP unreadable folder: this user reads any folder (root)")
                return
            r = self.run_test(self.dir)
            self.assertEqual(r.returncode, 3, r.stderr)
            self.assertEqual(r.stdout, "1 passed, 0 failed, 0 skipped\n")
            self.assertEqual(r.stderr, "onyx: %s: Permission denied\n" % locked)
        finally:
            os.chmod(locked, 0o755)

    def test_diamond(self):
        """Folder i links twice to folder i+1: 2^30 paths to one case. Walked
        path by path, this takes hours; each folder once, milliseconds."""
        depth = 30
        for i in range(depth + 1):
            os.mkdir(os.path.join(self.dir, "d%d" % i))
        for i in range(depth):
            for link in ("a", "b"):
                os.symlink(os.path.join(self.dir, "d%d" % (i + 1)),
                           os.path.join(self.dir, "d%d" % i, link))
        write_case(os.path.join(self.dir, "d%d" % depth, "case"))
        start = time.monotonic()
        r = self.run_test("-v", os.path.join(self.dir, "d0"), timeout=30)
        seconds = time.monotonic() - start
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), [
            "ok %s" % os.path.join(self.dir, "d0", *(["a"] * depth), "case"),
            "1 passed, 0 failed, 0 skipped"])
        self.assertLess(seconds, 10)

    def test_loops(self):
        """A link to an ancestor, and two folders that link to each other."""
        root = os.path.join(self.dir, "root")
        write_case(os.path.join(root, "case"))
        os.symlink(root, os.path.join(root, "up"))
        os.makedirs(os.path.join(root, "x"))
        os.makedirs(os.path.join(root, "y"))
        os.symlink(os.path.join(root, "y"), os.path.join(root, "x", "to_y"))
        os.symlink(os.path.join(root, "x"), os.path.join(root, "y", "to_x"))
        write_case(os.path.join(root, "y", "case2"), "Floor")
        r = self.run_test("-v", root)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), [
            "ok %s" % os.path.join(root, "case"),
            "ok %s" % os.path.join(root, "x", "to_y", "case2"),
            "2 passed, 0 failed, 0 skipped"])
        # The same folder twice on the command line is run once.
        r = self.run_test(root, os.path.join(root, "up"))
        self.assertEqual(r.stdout, "2 passed, 0 failed, 0 skipped\n")


class Names(InTempDir):
    """Names from a model are printed escaped (bytes outside printable ASCII
    as \\xNN; a backslash as it is, as in a Windows path) and become file
    names only when safe."""

    CLEAR = "y\x1b[2J"  # an escape sequence that clears a terminal
    FORGED = "z\nw: float [1]"  # a newline that would forge an output line

    def model(self, names):
        ops = ["Ceil", "Floor", "Sign"]
        nodes = [helper.make_node(ops[i % 3], ["x"], [n]) for i, n in enumerate(names)]
        path = self.path("names.onnx")
        with open(path, "wb") as f:
            f.write(modelgen.model_bytes(nodes, [("x", TensorProto.FLOAT, [3])],
                                         [(n, TensorProto.FLOAT, [3]) for n in names]))
        return path

    def input(self):
        return "x=" + self.save_x()

    def save_x(self):
        p = self.path("x.npy")
        np.save(p, np.array([-1.5, 0.25, 2.5], dtype=np.float32))
        return p

    def assert_clean(self, text):
        self.assertIsNone(re.search(r"[^\n\x20-\x7e]", text), repr(text))

    def test_run_prints_escaped(self):
        r = onyx("run", self.model([self.CLEAR, self.FORGED]), "--input", self.input())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_clean(r.stdout)
        self.assertEqual(r.stdout.splitlines(), [
            "y\\x1b[2J: float [3]", "[-1,  1,  3]",
            "z\\x0aw: float [1]: float [3]", "[-2,  0,  2]"])

    def test_bench_and_test_print_escaped(self):
        model = self.model([self.CLEAR])
        r = onyx("bench", model, "--runs", "2", "--per-node")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_clean(r.stdout)
        self.assertIn("\noutputs: y\\x1b[2J float [3]\n", r.stdout)
        # A failing case whose folder and output names hold escapes.
        case = self.path("case\x1b[2J")
        write_case(case, "Floor")  # expects Floor, the model computes Ceil
        with open(os.path.join(case, "model.onnx"), "wb") as f:
            f.write(open(model, "rb").read())
        r = subprocess.run([ONYX, "test", case], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assert_clean(r.stdout)
        self.assertEqual(r.stdout.splitlines()[0],
                         "FAIL %s: test_data_set_0 output 0 'y\\x1b[2J': element 0 (index [0]): "
                         "got -1, expected -2" % self.path("case\\x1b[2J"))

    def test_info_prints_escaped(self):
        r = onyx("info", self.model([self.CLEAR, "back\\slash", "caf\u00e9"]))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_clean(r.stdout)
        self.assertIn("  y\\x1b[2J: float [3]\n", r.stdout)
        self.assertIn("  back\\slash: float [3]\n", r.stdout)
        self.assertIn("  caf\\xc3\\xa9: float [3]\n", r.stdout)
        self.assertIn(": x -> y\\x1b[2J\n", r.stdout)

    def test_errors_print_escaped(self):
        model = self.model([self.CLEAR])
        r = onyx("run", model, "--input", "q\x1b[2J=" + self.save_x())
        self.assertEqual(r.returncode, 2)
        self.assert_clean(r.stderr)
        self.assertIn("the model has no input named 'q\\x1b[2J'", r.stderr)
        r = onyx("run", model, "--input", "x=no\nsuch.pb")
        self.assertEqual(r.returncode, 3)
        self.assert_clean(r.stderr)
        self.assertIn("onyx: no\\x0asuch.pb: ", r.stderr)

    def test_output_dir_fallback(self):
        """A name that is no safe file name is written as output_K (K its
        index, with '_' added while that is taken), and a note says so."""
        names = [self.CLEAR, "output_0", self.FORGED, "..", "ok", "a/b", "n" * 300]
        model = self.model(names)
        for fmt in ("pb", "npy"):
            with self.subTest(format=fmt):
                out = self.path("out_" + fmt)
                r = onyx("run", model, "--input", self.input(), "--output-dir", out,
                         "--format", fmt)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assert_clean(r.stderr)
                files = ["output_0_", "output_0", "output_2", "output_3", "ok", "output_5",
                         "output_6"]
                self.assertEqual(sorted(os.listdir(out)), sorted(f + "." + fmt for f in files))
                self.assertEqual(r.stderr.splitlines(), [
                    "onyx: note: output %d '%s' is not a safe file name: written to %s" % (
                        i, shown, os.path.join(out, files[i] + "." + fmt))
                    for i, shown in ((0, "y\\x1b[2J"), (2, "z\\x0aw: float [1]"), (3, ".."),
                                     (5, "a/b"), (6, "n" * 300))])
                if fmt == "npy":
                    self.assertEqual(np.load(os.path.join(out, "output_0_.npy")).tolist(),
                                     [-1, 1, 3])
                else:
                    from onnx import TensorProto as TP
                    t = TP()
                    with open(os.path.join(out, "output_2.pb"), "rb") as f:
                        t.ParseFromString(f.read())
                    self.assertEqual(t.name, self.FORGED)  # the name itself is kept inside
                    self.assertEqual(numpy_helper.to_array(t).tolist(), [-1, 1, 1])


class TestRunner(InTempDir):
    """`onyx test` for CI: a case that uses an op, type or domain onyx does
    not implement is skipped (a failure with --strict), the skips are
    summed up by reason, and the last line counts passed, failed and skipped
    cases, so that the tail of a CI log shows it."""

    def case(self, name, model=None, op="Ceil"):
        folder = self.path(name)
        write_case(folder, op)
        if model is not None:
            with open(os.path.join(folder, "model.onnx"), "wb") as f:
                f.write(model)
        return folder

    def cases(self, failing=True):
        self.case("a_pass")
        self.case("b_abs", modelgen.one_node("Abs", TensorProto.FLOAT, [3]))
        self.case("c_abs", modelgen.one_node("Abs", TensorProto.FLOAT, [3]))
        # An op onyx has, of a type it lacks.
        self.case("d_bool", modelgen.one_node("Ceil", TensorProto.BOOL, [3]))
        if failing:
            # Expects Floor, the model computes Ceil.
            self.case("e_fail", modelgen.one_node("Ceil", TensorProto.FLOAT, [3]), op="Floor")
            # A wrong type is a failure, not a skip: Sign declared to give int8.
            bad = modelgen.model_bytes([helper.make_node("Sign", ["x"], ["y"])],
                                       [("x", TensorProto.FLOAT, [3])],
                                       [("y", TensorProto.INT8, [3])])
            self.case("f_type", bad)

    def test_skips(self):
        self.cases()
        r = onyx("test", self.dir)
        self.assertEqual(r.returncode, 1, r.stderr)
        lines = r.stdout.splitlines()
        self.assertRegex(lines[0], r"^FAIL .*/e_fail: test_data_set_0 output 0 'y': ")
        self.assertRegex(lines[1], r"^FAIL .*/f_type: model.onnx: .*\(ONYX_TYPE\)$")
        self.assertEqual(lines[2:], ["skipped by reason:", "  op Abs: 2", "  type bool: 1",
                                     "1 passed, 2 failed, 3 skipped"])
        # Without the failures, exit 0; -v names each case.
        for name in ("e_fail", "f_type"):
            subprocess.run(["rm", "-r", self.path(name)], check=True)
        r = onyx("test", "-v", self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], "ok %s" % self.path("a_pass"))
        self.assertRegex(lines[1], r"^SKIP .*/b_abs: model.onnx: .*op 'Abs' is not supported")
        self.assertEqual(lines[4:], ["skipped by reason:", "  op Abs: 2", "  type bool: 1",
                                     "1 passed, 0 failed, 3 skipped"])

    def test_missing_op_first(self):
        """A model that uses an op onyx lacks is skipped for that op, even
        when something else in it (here Sign declared to give int8, which
        alone is a failure) would refuse it first; the reason comes from
        onyx_model_node_check's status."""
        nodes = [helper.make_node("Sign", ["x"], ["s"]),
                 helper.make_node("Ceil", ["x"], ["c"]),
                 helper.make_node("Reshape", ["c", "shape"], ["y"])]
        shape = helper.make_tensor("shape", TensorProto.INT64, [1], [3])
        model = modelgen.model_bytes(nodes, [("x", TensorProto.FLOAT, [3])],
                                     [("y", TensorProto.FLOAT, [3]), ("s", TensorProto.INT8, [3])],
                                     initializers=[shape])
        self.case("reshape", model)
        r = onyx("test", "-v", self.dir)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertEqual(r.stdout.splitlines()[1:], ["skipped by reason:", "  op Reshape: 1",
                                                     "0 passed, 0 failed, 1 skipped"])
        self.assertRegex(r.stdout, r"^SKIP .*/reshape: model.onnx: node 2 \(''\): op 'Reshape' "
                                   r"is not supported .*\(ONYX_UNSUPPORTED_OP\)\n")

    def test_strict(self):
        self.cases(failing=False)
        r = onyx("test", "--strict", self.dir)
        self.assertEqual(r.returncode, 1, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 4)
        self.assertRegex(lines[0], r"^FAIL .*/b_abs: model.onnx: .*\(ONYX_UNSUPPORTED_OP\)$")
        self.assertEqual(lines[3], "1 passed, 3 failed, 0 skipped")

    def test_filters(self):
        """--include keeps the cases whose folder name an expression matches;
        --exclude skips them, with the expression as the reason."""
        self.cases()
        r = onyx("test", "-v", "--include", "^[abc]_", "--include", "_fail$", "--exclude", "abs$",
                 self.dir)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual([l.split(":")[0] for l in r.stdout.splitlines()], [
            "ok %s" % self.path("a_pass"), "SKIP %s" % self.path("b_abs"),
            "SKIP %s" % self.path("c_abs"), "FAIL %s" % self.path("e_fail"),
            "skipped by reason", "  excluded by --exclude 'abs$'", "1 passed, 1 failed, 2 skipped"])
        r = onyx("test", "--include", "zzz", self.dir)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no test case found", r.stderr)
        r = onyx("test", "--exclude", "a(", self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--exclude: 'a(' is not a regular expression", r.stderr)

    def test_jobs_keep_order(self):
        for i in range(12):
            self.case("case_%02d" % i, op="Floor" if i % 3 else "Ceil")
        self.cases()
        one = onyx("test", "-v", self.dir)
        for jobs in ("2", "5", "64"):
            many = onyx("test", "-v", "-j", jobs, self.dir)
            self.assertEqual((many.returncode, many.stdout), (one.returncode, one.stdout))
        self.assertIn("13 passed, 2 failed, 3 skipped\n", one.stdout)
        for bad in ("0", "257", "x"):
            self.assertEqual(onyx("test", "-j", bad, self.dir).returncode, 2)

    def test_progress(self):
        """--progress (a terminal without it) shows "K of N cases" on stderr,
        rewritten in place, erased before each case line and at the end."""
        self.case("a_pass")
        self.case("b_fail", modelgen.one_node("Ceil", TensorProto.FLOAT, [3]), op="Floor")
        plain = subprocess.run([ONYX, "test", self.dir], capture_output=True)
        self.assertEqual(plain.stderr, b"")  # not a terminal
        r = subprocess.run([ONYX, "test", "--progress", self.dir], capture_output=True)
        self.assertEqual((r.returncode, r.stdout), (plain.returncode, plain.stdout))
        self.assertRegex(r.stderr, rb"^\ronyx test: 1 of 2 cases\r {23}\r"
                                   rb"\ronyx test: 2 of 2 cases\r {23}\r$")

    def test_json(self):
        self.cases()
        r = onyx("test", "--json", "-j", "3", self.dir)
        self.assertEqual(r.returncode, 1, r.stderr)
        records = [json.loads(line) for line in r.stdout.splitlines()]
        self.assertEqual([rec.get("status") for rec in records[:-1]],
                         ["passed", "skipped", "skipped", "skipped", "failed", "failed"])
        self.assertEqual(records[0]["case"], self.path("a_pass"))
        self.assertGreaterEqual(records[0]["seconds"], 0)
        self.assertEqual(records[1]["skip"], "op Abs")
        self.assertIn("op 'Abs' is not supported", records[1]["reason"])
        self.assertIn("(ONYX_TYPE)", records[5]["reason"])
        self.assertEqual(records[-1], {"passed": 1, "failed": 2, "skipped": 3,
                                       "skipped_by_reason": {"op Abs": 2, "type bool": 1}})

    def test_junit(self):
        """The report has the elements and attributes of the JUnit XML format
        that GitLab, Jenkins and GitHub read: testsuites > testsuite >
        testcase, with failure or skipped and its message."""
        import xml.etree.ElementTree as ET
        self.cases()
        self.case("g_\x1b&<\"'")  # a name XML must escape
        report = self.path("report.xml")
        r = onyx("test", "--junit", report, self.dir)
        self.assertEqual(r.returncode, 1, r.stderr)
        root = ET.parse(report).getroot()
        self.assertEqual(root.tag, "testsuites")
        suites = list(root)
        self.assertEqual([s.tag for s in suites], ["testsuite"])
        suite = suites[0]
        for element in (root, suite):
            self.assertEqual({k: element.get(k) for k in ("tests", "failures", "errors",
                                                          "skipped")},
                             {"tests": "7", "failures": "1", "errors": "1", "skipped": "3"})
            float(element.get("time"))
        self.assertEqual(suite.get("name"), "onyx test")
        cases = list(suite)
        self.assertEqual([c.tag for c in cases], ["testcase"] * 7)
        # The classname is the folder given, the name each case's folder
        # relative to it; a model that does not load is an error.
        for c in cases:
            self.assertEqual(c.get("classname"), self.dir)
            self.assertGreaterEqual(float(c.get("time")), 0)
            self.assertTrue(all(child.tag in ("failure", "error", "skipped") and
                                child.get("message") for child in c))
        by_name = {c.get("name"): c for c in cases}
        self.assertEqual(list(by_name["a_pass"]), [])
        self.assertEqual([x.tag for x in by_name["b_abs"]], ["skipped"])
        self.assertEqual([x.tag for x in by_name["e_fail"]], ["failure"])
        self.assertEqual([x.tag for x in by_name["f_type"]], ["error"])
        self.assertIn("g_\\x1b&<\"'", by_name)
        # A case folder given itself: its parent folder and its name.
        r = onyx("test", "--junit", report, self.path("a_pass"), self.dir + "/")
        self.assertEqual(r.returncode, 1, r.stderr)
        cases = list(ET.parse(report).getroot()[0])
        self.assertEqual([(c.get("classname"), c.get("name")) for c in cases[:2]],
                         [(self.dir, "a_pass"), (self.dir, "b_abs")])
        self.check_schema(report)
        r = onyx("test", "--junit", self.path("no/such/dir/r.xml"), self.dir)
        self.assertEqual(r.returncode, 3)
        self.assertIn("cannot create", r.stderr)

    def check_schema(self, report):
        """Validates report against tests/python/junit.xsd, the JUnit format
        CI systems read, with xmllint; and checks that the schema refuses a
        testcase without a name, so that it can fail."""
        import shutil
        xmllint = shutil.which("xmllint")
        if not xmllint:
            print("SKIP JUnit schema check: no xmllint (Debian: libxml2-utils)")
            return
        schema = os.path.join(os.path.dirname(os.path.abspath(__file__)), "junit.xsd")
        r = subprocess.run([xmllint, "--noout", "--schema", schema, report],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        broken = self.path("broken.xml")
        with open(report) as f, open(broken, "w") as g:
            g.write(re.sub(r'<testcase classname="[^"]*" name="[^"]*"', "<testcase",
                           f.read(), count=1))
        r = subprocess.run([xmllint, "--noout", "--schema", schema, broken],
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("'name' is required", r.stderr)

    def test_debian_node_cases(self):
        node = os.path.join(os.environ.get("ONYX_TESTDATA_DIR", ""), "node")
        if not os.path.isdir(node):
            print("SKIP Debian's backend-test cases: no folder %s (libonnx-testdata)" % node)
            return
        r = onyx("test", node)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:])
        # The counts are the last line, after the skips by reason.
        m = re.search(r"(?:^|\n)skipped by reason:\n(?:  .*\n)+"
                      r"([0-9]+) passed, 0 failed, ([0-9]+) skipped\n$", r.stdout)
        self.assertTrue(m, r.stdout[-2000:])
        self.assertGreater(int(m.group(1)), 0)
        self.assertIn("\n  op Abs: 1\n", r.stdout)
        self.assertIn("\n  type bool: ", r.stdout)
        self.assertIn("\n  domain ai.onnx.preview.training: 7\n", r.stdout)
        summed = sum(int(n) for n in re.findall(r"^  .*: ([0-9]+)$", r.stdout, re.M))
        self.assertEqual(summed, int(m.group(2)))
        r = onyx("test", "--strict", node)
        self.assertEqual(r.returncode, 1)
        self.assertRegex(r.stdout, r"\n[0-9]+ passed, [0-9]+ failed, 0 skipped\n$")


class Bench(unittest.TestCase):
    US = r"[0-9]+\.[0-9]{3} us"

    def models(self, tmp):
        paths = {}
        for name, shape in (("symbolic", ["N", 3]), ("unknown", [None, 3]),
                            ("no_shape", None), ("two", ["N", "M"])):
            paths[name] = os.path.join(tmp, name + ".onnx")
            with open(paths[name], "wb") as f:
                f.write(modelgen.one_node("Ceil", TensorProto.FLOAT, shape))
        paths["clip_bf16"] = os.path.join(tmp, "clip_bf16.onnx")
        with open(paths["clip_bf16"], "wb") as f:
            f.write(modelgen.one_node("Clip", TensorProto.BFLOAT16, ["N"], ("min", "")))
        return paths

    def test_output(self):
        r = onyx("bench", EXAMPLE, "--runs", "30", "--warmup", "0")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], "model: " + EXAMPLE)
        self.assertEqual(lines[1], "inputs: x float [8]")
        self.assertRegex(lines[4], r"^runs: 30 timed in [0-9.]+ s, after 0 warm-up runs$")
        self.assertRegex(lines[5], r"^latency: median {0}, p90 {0}, p99 {0} \(min {0}, mean {0}, "
                                   r"max {0}\)$".format(self.US))
        m = re.match(r"^throughput: ([0-9.]+) runs/s, ([0-9.]+) GB/s \(128 bytes", lines[6])
        self.assertTrue(m, lines[6])
        self.assertGreater(float(m.group(1)), 0)
        self.assertEqual(r.stderr, "")  # no progress for a short run off a terminal
        values = [float(v) for v in re.findall(r"([0-9.]+) us", lines[5])]
        median, p90, p99, low, _, high = values
        self.assertTrue(low <= median <= p90 <= p99 <= high, values)

    def test_shapes(self):
        with tempfile.TemporaryDirectory() as tmp:
            m = self.models(tmp)
            r = onyx("bench", m["symbolic"], "--runs", "3")
            self.assertEqual(r.returncode, 2)
            self.assertIn("input 'x': dimension 0 is the symbolic 'N': give its size with "
                          "--shape N=SIZE (or the input's shape with --shape x=DIMS)", r.stderr)
            for args, shape in ((["--shape", "N=5"], "[5, 3]"), (["--shape", "x=4x3"], "[4, 3]"),
                                (["--shape=N=0"], "[0, 3]")):
                r = onyx("bench", m["symbolic"], "--runs", "3", *args)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("inputs: x float %s\n" % shape, r.stdout)
            r = onyx("bench", m["two"], "--runs", "3")
            self.assertEqual(r.returncode, 2)
            self.assertIn("'N'", r.stderr)
            self.assertIn("'M'", r.stderr)
            r = onyx("bench", m["two"], "--runs", "3", "--shape", "N=2", "--shape", "M=3")
            self.assertIn("inputs: x float [2, 3]\n", r.stdout)
            r = onyx("bench", m["unknown"], "--runs", "3")
            self.assertEqual(r.returncode, 2)
            self.assertIn("dimension 0 has no fixed size: give the input's shape with "
                          "--shape x=DIMS", r.stderr)
            r = onyx("bench", m["no_shape"], "--runs", "3")
            self.assertEqual(r.returncode, 2)
            self.assertIn("input 'x' declares no shape", r.stderr)
            r = onyx("bench", m["no_shape"], "--runs", "3", "--shape", "x=")
            self.assertIn("inputs: x float []\n", r.stdout)
            r = onyx("bench", m["no_shape"], "--runs", "3", "--shape", "x=2x1x2")
            self.assertIn("inputs: x float [2, 1, 2]\n", r.stdout)
            for bad, message in ((["--shape", "x=4x4"], "dimension 1 of input 'x' is 3"),
                                 (["--shape", "x=4"], "has rank 2, not 1"),
                                 (["--shape", "x=4xy"], "DIMS must be sizes joined by 'x'"),
                                 (["--shape", "Q=4"], "no input or symbolic dimension named 'Q'"),
                                 (["--shape", "N=4", "--shape", "N=5"], "given more than once"),
                                 (["--shape", "N=2x2"], "is one number"),
                                 (["--shape", "N"], "is not NAME=DIMS")):
                r = onyx("bench", m["symbolic"], "--runs", "3", *bad)
                self.assertEqual(r.returncode, 2, (bad, r.stderr))
                self.assertIn(message, r.stderr)

    def test_options(self):
        for bad, message in ((["--runs", "0"], "--runs: '0'"), (["--runs", "x"], "--runs"),
                             (["--duration", "0"], "--duration"),
                             (["--duration", "-1"], "--duration"),
                             (["--warmup", "-1"], "--warmup"), (["--bogus"], "unknown option"),
                             (["--input", "x=y"], "unknown option '--input'")):
            r = onyx("bench", EXAMPLE, *bad)
            self.assertEqual(r.returncode, 2, (bad, r.stderr))
            self.assertIn(message, r.stderr)
        r = onyx("bench")
        self.assertEqual(r.returncode, 2)
        r = onyx("bench", "no_such.onnx", "--runs", "1")
        self.assertEqual(r.returncode, 3)
        self.assertIn("(ONYX_IO)", r.stderr)
        r = onyx("bench", EXAMPLE, "--duration", "0.2", "--threads", "2", "--isa", "sse41")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("session: threads 2, isa cap sse41", r.stdout)
        # --runs and --duration: whichever comes first.
        r = onyx("bench", EXAMPLE, "--duration", "30", "--runs", "5")
        self.assertIn("runs: 5 timed", r.stdout)

    def test_per_node(self):
        with tempfile.TemporaryDirectory() as tmp:
            m = self.models(tmp)
            r = onyx("bench", m["clip_bf16"], "--shape", "N=1000", "--runs", "10", "--per-node")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("as the session ran", r.stdout)
            self.assertRegex(r.stdout, r"\n  node 0 Clip 'clip' bfloat16 \[1000\] \(onyx\): "
                                       r"median {0}, p90 {0}, p99 {0}, 100\.0% of the passes' "
                                       r"total\n".format(self.US))

    def test_progress(self):
        # Bytes: text mode would turn the '\r' into newlines.
        r = subprocess.run([ONYX, "bench", EXAMPLE, "--duration", "1.3", "--progress"],
                           capture_output=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stderr, rb"^\ronyx bench: [0-9]+ runs, 1\.[0-9] s\r")
        self.assertNotIn(b"\n", r.stderr[:-1])  # one line, rewritten in place
        self.assertTrue(r.stderr.endswith(b" s, done\n"), r.stderr[-40:])
        self.assertNotIn(b"\r", r.stdout)
        # A run under a second shows none.
        r = subprocess.run([ONYX, "bench", EXAMPLE, "--duration", "0.3", "--progress"],
                           capture_output=True)
        self.assertEqual(r.stderr, b"")


class Json(InTempDir):
    """--json output parses with Python's json: onyx --version --json,
    onyx info --json, onyx bench --json (docs/cli.md lists the fields)."""

    def load(self, *args):
        r = onyx(*args)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_version(self):
        v = self.load("--version", "--json")
        self.assertRegex(v["version"], r"^[0-9]+\.[0-9]+")
        self.assertEqual(list(v["opsets"]), ["ai.onnx"])
        low, high = v["opsets"]["ai.onnx"]
        self.assertEqual(low, 1)
        self.assertGreaterEqual(high, 13)
        self.assertIn(v["isa"], ("scalar", "sse41", "avx2", "avx512"))
        self.assertEqual(onyx("--version").stdout, "onyx %s (ai.onnx opset up to %d, isa %s)\n"
                         % (v["version"], high, v["isa"]))
        r = onyx("--version", "--bogus")
        self.assertEqual(r.returncode, 2)

    def test_info(self):
        d = self.load("info", EXAMPLE, "--json")
        self.assertEqual(d["model"], EXAMPLE)
        self.assertIsInstance(d["ir_version"], int)
        self.assertIn({"domain": "ai.onnx", "version": 13}, d["opset_import"])
        self.assertEqual(d["inputs"], [{"name": "x", "type": "float", "shape": [8]}])
        self.assertEqual([o["name"] for o in d["outputs"]], ["clipped", "sign", "floor"])
        self.assertTrue(d["runnable"])
        self.assertIsNone(d["reason"])
        ops = [n["op"] for n in d["nodes"]]
        self.assertIn("Clip", ops)
        for n in d["nodes"]:
            self.assertEqual(set(n), {"index", "domain", "op", "name", "inputs", "outputs",
                                      "attributes", "served", "served_by", "reason"})
            self.assertEqual((n["served"], n["served_by"], n["reason"]), (True, "onyx", None))
        self.assertEqual(d["nodes"][0]["attributes"], [
            {"name": "value", "type": 4, "value": {"type": "float", "shape": [], "values": [-2]}}])
        # Symbolic, unknown and undeclared shapes.
        for shape, want in ((["N", 3], ["N", 3]), ([None, 3], [None, 3]), (None, None)):
            path = self.path("m.onnx")
            with open(path, "wb") as f:
                f.write(modelgen.one_node("Ceil", TensorProto.FLOAT, shape))
            d = self.load("info", "--json", path)
            self.assertEqual(d["inputs"][0]["shape"], want)

    def test_info_escapes(self):
        names = ["y\x1b[2J", 'q"uote', "back\\slash"]
        nodes = [helper.make_node("Ceil", ["x"], [n]) for n in names]
        path = self.path("names.onnx")
        with open(path, "wb") as f:
            f.write(modelgen.model_bytes(nodes, [("x", TensorProto.FLOAT, [3])],
                                         [(n, TensorProto.FLOAT, [3]) for n in names]))
        d = self.load("info", "--json", path)
        self.assertEqual([o["name"] for o in d["outputs"]],
                         ["y\\x1b[2J", 'q"uote', "back\\slash"])

    def test_bench(self):
        d = self.load("bench", EXAMPLE, "--runs", "20", "--warmup", "0", "--json")
        self.assertEqual(d["model"], EXAMPLE)
        self.assertEqual(d["inputs"], [{"name": "x", "type": "float", "shape": [8]}])
        self.assertEqual(d["runs"], 20)
        self.assertEqual(d["warmup"], 0)
        lat = d["latency_us"]
        self.assertTrue(lat["min"] <= lat["median"] <= lat["p90"] <= lat["p99"] <= lat["max"],
                        lat)
        self.assertGreater(d["runs_per_second"], 0)
        self.assertEqual(d["bytes_per_run"], 128)
        self.assertIn("isa", d["session"])
        r = onyx("bench", EXAMPLE, "--json", "--per-node")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--json", r.stderr)

    def test_json_only_where_documented(self):
        r = onyx("run", EXAMPLE, "--json")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--json", r.stderr)


class InfoAnyModel(InTempDir):
    """onyx info describes any model the library loads, also one onyx
    cannot run, and says why it cannot; the exit status is then 0."""

    def test_unsupported_op(self):
        path = self.path("abs.onnx")
        with open(path, "wb") as f:
            f.write(modelgen.one_node("Abs", TensorProto.FLOAT, [3]))
        r = onyx("info", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("nodes:\n  0: Abs 'abs': x -> y\n", r.stdout)
        self.assertRegex(r.stdout, r"\nrunnable: no: .*'Abs'.*\(ONYX_UNSUPPORTED_OP\)\n")
        d = json.loads(onyx("info", "--json", path).stdout)
        self.assertFalse(d["runnable"])
        self.assertEqual(d["status"], "ONYX_UNSUPPORTED_OP")
        self.assertTrue(d["reason"].startswith("node 0 ('abs'): op 'Abs'"), d["reason"])
        self.assertIsNone(d["inputs"])
        self.assertEqual(d["nodes"][0]["op"], "Abs")

    def test_each_node(self):
        # Every node is checked on its own: the reason for each one onyx
        # cannot run, not only for the first.
        vi = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in "xy"]
        nodes = [helper.make_node("Abs", ["x"], ["a"], name="abs"),
                 helper.make_node("Ceil", ["a"], ["b"]),
                 helper.make_node("Clip", ["b"], ["y"], foo=1.0)]
        model = helper.make_model(helper.make_graph(nodes, "g", vi[:1], vi[1:]),
                                  opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        path = self.path("mixed.onnx")
        with open(path, "wb") as f:
            f.write(model.SerializeToString())
        r = onyx("info", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("  0: Abs 'abs': x -> a\n    onyx cannot run it: node 0 ('abs'): op 'Abs' is "
                      "not supported", r.stdout)
        self.assertIn("  1: Ceil: a -> b\n  2: Clip: b -> y\n      foo = 1\n    onyx cannot run "
                      "it: node 2 ('', Clip-13 at opset 13): unknown attribute 'foo' "
                      "(ONYX_ATTRIBUTE)\n", r.stdout)
        d = json.loads(onyx("info", "--json", path).stdout)
        self.assertEqual([(n["served"], n["reason"] is None) for n in d["nodes"]],
                         [(False, False), (True, True), (False, False)])
        self.assertIn("unknown attribute 'foo'", d["nodes"][2]["reason"])

    def test_metadata(self):
        # The producer, versions, doc string, graph name and metadata_props,
        # escaped in text; a field the model leaves empty is left out there
        # and is "" (0, []) in JSON.
        node = helper.make_node("Ceil", ["x"], ["y"])
        vi = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in "xy"]
        model = helper.make_model(helper.make_graph([node], "g1", vi[:1], vi[1:]),
                                  opset_imports=[helper.make_opsetid("", 13)],
                                  producer_name="pytorch", producer_version="2.1")
        model.ir_version = 8
        model.model_version = 7
        model.doc_string = "doc\x1b[2J"
        helper.set_model_props(model, {"author": "me", "license": "MIT"})
        path = self.path("meta.onnx")
        with open(path, "wb") as f:
            f.write(model.SerializeToString())
        r = onyx("info", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("  ai.onnx 13\nproducer_name: pytorch\nproducer_version: 2.1\n"
                      "model_version: 7\ndoc_string: doc\\x1b[2J\ngraph_name: g1\n"
                      "metadata_props:\n  author = me\n  license = MIT\ninputs:\n", r.stdout)
        self.assertNotIn("domain:", r.stdout)
        d = json.loads(onyx("info", "--json", path).stdout)
        self.assertEqual((d["producer_name"], d["producer_version"], d["domain"],
                          d["model_version"], d["doc_string"], d["graph_name"]),
                         ("pytorch", "2.1", "", 7, "doc\\x1b[2J", "g1"))
        self.assertEqual(d["metadata_props"], [{"key": "author", "value": "me"},
                                               {"key": "license", "value": "MIT"}])

    def opset_model(self, name, domain, opsets):
        node = helper.make_node("Adagrad", ["x"], ["y"], domain=domain, name="ada")
        graph = helper.make_graph([node], "g",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v)
                                                        for d, v in opsets])
        model.ir_version = 8
        path = self.path(name)
        with open(path, "wb") as f:
            f.write(model.SerializeToString())
        return path

    def test_other_domain_only(self):
        # A training op, in a model that imports only its own domain (as
        # ONNX's backend tests test_adagrad and test_adam do): it loads, and
        # the reason names the op and its domain.
        training = "ai.onnx.preview.training"
        path = self.opset_model("adagrad.onnx", training, [(training, 1)])
        r = onyx("info", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("  ai.onnx.preview.training 1\n", r.stdout)
        self.assertIn("  0: ai.onnx.preview.training.Adagrad 'ada': x -> y\n", r.stdout)
        self.assertRegex(r.stdout, r"\nrunnable: no: node 0 \('ada'\): domain "
                                   r"'ai\.onnx\.preview\.training' is not supported \(op Adagrad\)"
                                   r".*\(ONYX_UNSUPPORTED_OP\)\n$")
        # onyx test skips it for its domain.
        case = self.path("case")
        write_case(case)
        os.replace(path, os.path.join(case, "model.onnx"))
        r = onyx("test", case)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("skipped by reason:\n  domain ai.onnx.preview.training: 1\n", r.stdout)

    def test_ai_onnx_op_without_import(self):
        # An ai.onnx node in a model that imports no ai.onnx opset is invalid:
        # it loads (to be described), and session creation says why not.
        path = self.opset_model("bad.onnx", "", [("com.example", 1)])
        r = onyx("info", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\nrunnable: no: node 0 \('ada'\): op Adagrad: the model "
                                   r"imports no ai\.onnx opset; onyx supports opsets 1 to [0-9]+ "
                                   r"\(ONYX_OPSET\)\n$")
        r = onyx("run", path)
        self.assertEqual(r.returncode, 3)
        self.assertIn("imports no ai.onnx opset", r.stderr)

    def test_attributes(self):
        # Clip-6 takes its bounds as attributes; Constants show their values
        # (text: the first 8 and a count; JSON: up to 16, else null).
        big = np.arange(100, dtype=np.int64).reshape(10, 10)
        nodes = [helper.make_node("Clip", ["x"], ["y"], name="clip", min=-1.5, max=float("nan")),
                 helper.make_node("Constant", [], ["k"], name="big",
                                  value=numpy_helper.from_array(big)),
                 helper.make_node("Constant", [], ["v"], name="small",
                                  value=numpy_helper.from_array(
                                      np.array([0.5, -np.inf], dtype=np.float32))),
                 helper.make_node("Foo", ["y"], ["z"], domain="com.example", name="foo",
                                  axes=[1, 2], mode="fast\x1b", count=3, scales=[0.25])]
        path = self.path("attrs.onnx")
        with open(path, "wb") as f:
            f.write(modelgen.model_bytes(nodes, [("x", TensorProto.FLOAT, [3])],
                                         [("z", TensorProto.FLOAT, [3])], opset=6))
        r = onyx("info", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("  0: Clip 'clip': x -> y\n      max = nan\n      min = -1.5\n",
                      r.stdout)
        self.assertIn("      value = int64 [10, 10] = [0, 1, 2, 3, 4, 5, 6, 7, ... (100 in all)]\n",
                      r.stdout)
        self.assertIn("      value = float [2] = [0.5, -inf]\n", r.stdout)
        self.assertIn("      axes = [1, 2]\n", r.stdout)
        self.assertIn("      mode = 'fast\\x1b'\n", r.stdout)
        self.assertIn("      count = 3\n", r.stdout)
        self.assertIn("      scales = [0.25]\n", r.stdout)
        d = json.loads(onyx("info", "--json", path).stdout)
        attrs = [{a["name"]: a["value"] for a in n["attributes"]} for n in d["nodes"]]
        self.assertEqual(attrs[0], {"min": -1.5, "max": "nan"})
        self.assertEqual(attrs[1], {"value": {"type": "int64", "shape": [10, 10], "values": None}})
        self.assertEqual(attrs[2], {"value": {"type": "float", "shape": [2],
                                              "values": [0.5, "-inf"]}})
        self.assertEqual(attrs[3], {"axes": [1, 2], "mode": "fast\\x1b", "count": 3,
                                    "scales": [0.25]})
        self.assertEqual(d["nodes"][0]["attributes"][0]["type"], 1)

    def test_runnable(self):
        r = onyx("info", EXAMPLE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.endswith("\nrunnable: yes\n"), r.stdout[-80:])


class NotAModel(InTempDir):
    """A file that is not an ONNX model says so first, then the detail."""

    def check(self, name, data):
        path = self.path(name)
        with open(path, "wb") as f:
            f.write(data)
        r = onyx("info", path)
        self.assertEqual(r.returncode, 3, r.stdout)
        self.assertRegex(r.stderr, r"^onyx: [^\n]*: not an ONNX model( \(|:)", r.stderr)
        return r.stderr

    def test_kinds(self):
        self.check("empty.onnx", b"")
        self.assertIn("text", self.check("text.onnx", b"graph {\n  node { op_type: 'Abs' }\n}\n"))
        npy = self.path("x.npy")
        np.save(npy, np.arange(4, dtype=np.float32))
        self.assertIn(".npy", self.check("x.onnx", open(npy, "rb").read()))
        tensor = numpy_helper.from_array(np.arange(4, dtype=np.float32), "x")
        self.assertIn("TensorProto", self.check("t.pb", tensor.SerializeToString()))

    def test_model_still_loads(self):
        r = onyx("info", EXAMPLE)
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
