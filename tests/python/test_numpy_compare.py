#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""InferenceSession.run against numpy's own np.ceil, np.floor, np.clip and
np.sign, for every element type each op takes, on special values (+-0,
subnormals, values around 0.5, 1 and 2^mantissa, the largest finite,
infinities, NaNs with payloads; integer minimum and maximum) and random
ones, at lengths that reach every SIMD body and tail.

Each (op, type) is a one-node model built here with onnx, opset 13, whose
input x has the symbolic shape [N]. The comparison is bit for bit, except
that any NaN matches any NaN.

bfloat16 has no numpy type: its tensors are uint16 bit patterns, and the
reference computes in float32 (exact for these ops) and rounds back with
round-to-nearest-even. float16 is numpy's own float16: note that numpy's
float16 clip keeps x where x and a bound tie as +0 and -0, while its
float32 and float64 clips return the bound; onyx follows each.
"""

import os
import sys
import unittest
import warnings
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import modelgen  # noqa: E402
from modelgen import TYPES, FLOAT_TYPES  # noqa: E402

import onyx  # noqa: E402

TYPE_OF = {name: (tp, np_type) for name, tp, np_type in TYPES}
LENGTHS = (0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 63, 65)


def reference(op, name, x, lo=None, hi=None):
    """numpy's result for op on x (bit patterns for bfloat16)."""
    if name == "bfloat16":
        x32 = modelgen.bf16_to_f32(x)
        lo32 = None if lo is None else modelgen.bf16_to_f32(lo)
        hi32 = None if hi is None else modelgen.bf16_to_f32(hi)
        return modelgen.f32_to_bf16(reference(op, "float", x32, lo32, hi32))
    with np.errstate(invalid="ignore", over="ignore"), warnings.catch_warnings():
        # numpy 1.24 deprecates a NaN bound meaning "no bound", which is
        # what it (and onyx) does.
        warnings.simplefilter("ignore", DeprecationWarning)
        if op == "Ceil":
            return np.ceil(x)
        if op == "Floor":
            return np.floor(x)
        if op == "Sign":
            return np.sign(x)
        if lo is None and hi is None:
            return x.copy()
        return np.clip(x, lo, hi)


def bound_pairs(name, rng):
    """(min, max) pairs of the type: random ordered, reversed (min > max),
    equal, and the extremes; for floats also +-0 against each other,
    infinities and NaN (no bound in np.clip)."""
    np_type = TYPE_OF[name][1]
    v = modelgen.values(name, rng, n_random=40)
    if name in modelgen.FLOAT_FORMATS:
        with np.errstate(invalid="ignore"):
            x = modelgen.bf16_to_f32(v) if name == "bfloat16" else v.astype(np.float64)
        finite = v[np.isfinite(x)]
        order = np.argsort(modelgen.bf16_to_f32(finite) if name == "bfloat16" else finite)
        finite = finite[order]
        pairs = []
        for _ in range(6):
            i, j = sorted(rng.integers(0, finite.size, 2))
            pairs += [(finite[i], finite[j]), (finite[j], finite[i])]

        def f(value):
            if name == "bfloat16":
                return modelgen.f32_to_bf16(np.float32(value)).reshape(())[()]
            return np_type(value)
        pairs += [(f(0.0), f(-0.0)), (f(-0.0), f(0.0)), (f(-0.0), f(-0.0)), (f(-1.5), f(2.5)),
                  (f(-np.inf), f(np.inf)), (f(np.nan), f(1.0)), (f(-1.0), f(np.nan)),
                  (f(np.nan), f(np.nan)), (f(3.0), f(3.0))]
        return pairs
    info = np.iinfo(np_type)
    pairs = [(np_type(info.min), np_type(info.max)), (np_type(info.max), np_type(info.min)),
             (np_type(0), np_type(0)), (np_type(1), np_type(info.max - 1))]
    for _ in range(6):
        a, b = sorted(rng.integers(info.min, info.max, 2, dtype=np_type, endpoint=True))
        pairs += [(a, b), (b, a)]
    return pairs


class NumpyCompare(unittest.TestCase):
    def check(self, op, name, sess, x, lo=None, hi=None, bounds=()):
        for n in LENGTHS + (x.size,):
            xs = np.ascontiguousarray(x[:n])
            feed = {"x": xs}
            if "min" in bounds:
                feed["min"] = np.array(lo, dtype=xs.dtype)
            if "max" in bounds:
                feed["max"] = np.array(hi, dtype=xs.dtype)
            (got,) = sess.run(None, feed)
            want = reference(op, name, xs, lo if "min" in bounds else None,
                             hi if "max" in bounds else None)
            problem = modelgen.same_values(name, got, want)
            if problem:
                self.fail("%s %s, length %d, bounds %r %r: %s"
                          % (op, name, n, lo, hi, problem))

    def unary(self, op, types):
        for name in types:
            with self.subTest(op=op, type=name):
                rng = np.random.default_rng(zlib.crc32((op + name).encode()))
                tp, _ = TYPE_OF[name]
                sess = onyx.InferenceSession(modelgen.one_node(op, tp, ["N"]))
                x = modelgen.values(name, rng)
                self.check(op, name, sess, x)
                self.check(op, name, sess, rng.permutation(x))

    def test_ceil(self):
        self.unary("Ceil", FLOAT_TYPES)

    def test_floor(self):
        self.unary("Floor", FLOAT_TYPES)

    def test_sign(self):
        self.unary("Sign", [t[0] for t in TYPES])

    def test_clip(self):
        for name, tp, _ in TYPES:
            rng = np.random.default_rng(1234 + tp)
            x = modelgen.values(name, rng)
            pairs = bound_pairs(name, rng)
            for bounds in (("min", "max"), ("min",), ("", "max"), ()):
                with self.subTest(type=name, bounds=bounds):
                    sess = onyx.InferenceSession(modelgen.one_node("Clip", tp, ["N"], bounds))
                    for lo, hi in (pairs if bounds else [(None, None)]):
                        self.check("Clip", name, sess, x, lo, hi, bounds)

    def test_threads(self):
        """A large tensor, split across worker threads."""
        rng = np.random.default_rng(7)
        x = (rng.standard_normal(300001) * 1000).astype(np.float32)
        x[::1000] = -0.0
        for op in ("Ceil", "Floor", "Sign"):
            sess = onyx.InferenceSession(modelgen.one_node(op, 1, ["N"]), threads=3)
            (got,) = sess.run(None, {"x": x})
            self.assertIsNone(modelgen.same_values("float", got, reference(op, "float", x)))
        sess = onyx.InferenceSession(modelgen.one_node("Clip", 1, ["N"], ("min", "max")),
                                     threads=3)
        lo, hi = np.float32(-100.5), np.float32(250.25)
        (got,) = sess.run(None, {"x": x, "min": np.array(lo), "max": np.array(hi)})
        self.assertIsNone(modelgen.same_values("float", got, np.clip(x, lo, hi)))


if __name__ == "__main__":
    unittest.main()
