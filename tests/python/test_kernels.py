#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""onyx.ceil, onyx.floor, onyx.sign and onyx.clip (the C kernel API, without
a model) against numpy on every type each takes, special and random values;
in place through out=; bfloat16 through bfloat16=True; errors."""

import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import modelgen  # noqa: E402
from modelgen import TYPES, FLOAT_TYPES  # noqa: E402
from test_numpy_compare import bound_pairs, reference  # noqa: E402

import onyx  # noqa: E402

FUNCS = {"Ceil": onyx.ceil, "Floor": onyx.floor, "Sign": onyx.sign}


class Kernels(unittest.TestCase):
    def same(self, name, got, want, what):
        problem = modelgen.same_values(name, got, want)
        if problem:
            self.fail("%s: %s" % (what, problem))

    def test_unary(self):
        for op, fn in FUNCS.items():
            types = FLOAT_TYPES if op != "Sign" else [t[0] for t in TYPES]
            for name in types:
                with self.subTest(op=op, type=name):
                    rng = np.random.default_rng(len(op) * 100 + len(name))
                    x = modelgen.values(name, rng)
                    bf = name == "bfloat16"
                    self.same(name, fn(x, bfloat16=bf), reference(op, name, x), op)
                    # Shapes are kept; in place through out=x.
                    x2 = x[: (x.size // 6) * 6].reshape(2, 3, -1).copy()
                    want = reference(op, name, x2)
                    self.same(name, fn(x2, bfloat16=bf), want, op + " 3-d")
                    self.assertIs(fn(x2, out=x2, bfloat16=bf), x2)
                    self.same(name, x2, want, op + " in place")

    def test_clip(self):
        for name, tp, _ in TYPES:
            with self.subTest(type=name):
                rng = np.random.default_rng(tp)
                x = modelgen.values(name, rng)
                bf = name == "bfloat16"
                for lo, hi in bound_pairs(name, rng) + [(None, None)]:
                    if bf:  # bounds are numbers, rounded to bfloat16
                        lo_arg = None if lo is None else float(modelgen.bf16_to_f32(lo))
                        hi_arg = None if hi is None else float(modelgen.bf16_to_f32(hi))
                    else:
                        lo_arg, hi_arg = lo, hi
                    want = reference("Clip", name, x, lo, hi)
                    self.same(name, onyx.clip(x, lo_arg, hi_arg, bfloat16=bf), want,
                              "clip(%r, %r)" % (lo, hi))
                    self.same(name, onyx.clip(x, min=lo_arg, bfloat16=bf),
                              reference("Clip", name, x, lo, None), "clip(min=%r)" % lo)
                    self.same(name, onyx.clip(x, max=hi_arg, bfloat16=bf),
                              reference("Clip", name, x, None, hi), "clip(max=%r)" % hi)

    def test_examples(self):
        x = np.array([-1.5, -0.5, -0.0, 0.5, 2.5, np.nan], dtype=np.float32)
        self.assertEqual(onyx.ceil(x)[:5].tolist(), [-1.0, -0.0, -0.0, 1.0, 3.0])
        self.assertTrue(np.signbit(onyx.ceil(x)[1]))
        self.assertEqual(onyx.floor(x)[:5].tolist(), [-2.0, -1.0, -0.0, 0.0, 2.0])
        self.assertEqual(onyx.sign(x)[:5].tolist(), [-1.0, -1.0, 0.0, 1.0, 1.0])
        self.assertFalse(np.signbit(onyx.sign(x)[2]))  # Sign(-0) is +0
        self.assertTrue(np.isnan(onyx.sign(x)[5]))
        self.assertEqual(onyx.clip(x, -1, 1)[:5].tolist(), [-1.0, -0.5, -0.0, 0.5, 1.0])
        self.assertEqual(onyx.clip(x, 2, 1)[:5].tolist(), [1.0] * 5)  # min > max: max
        self.assertEqual(onyx.clip(np.arange(-3, 4, dtype=np.int64), 0, None).tolist(),
                         [0, 0, 0, 0, 1, 2, 3])
        self.assertEqual(onyx.clip(np.array([0, 200, 255], dtype=np.uint8), 10, 250).tolist(),
                         [10, 200, 250])
        self.assertEqual(float(onyx.ceil(np.float64(2.1))), 3.0)  # 0-d
        self.assertEqual(onyx.ceil([1.25, 2.5]).tolist(), [2.0, 3.0])  # lists work
        self.assertEqual(onyx.ceil(np.zeros((0, 3), dtype=np.float16)).shape, (0, 3))
        strided = np.arange(10, dtype=np.float64)[::3] - 0.5
        self.assertEqual(onyx.floor(strided).tolist(), np.floor(strided).tolist())

    def test_errors(self):
        with self.assertRaises(onyx.OnyxTypeError) as cm:
            onyx.ceil(np.arange(3, dtype=np.int32))
        self.assertIn("int32", cm.exception.message)
        self.assertIn("Ceil", cm.exception.message)
        with self.assertRaises(onyx.OnyxTypeError):
            onyx.floor(np.arange(3, dtype=np.uint16))  # uint16 without bfloat16=True
        with self.assertRaises(onyx.OnyxTypeError):
            onyx.sign(np.array([True, False]))
        with self.assertRaises(onyx.OnyxTypeError):
            onyx.sign(np.array([1 + 2j]))
        x8 = np.arange(4, dtype=np.int8)
        with self.assertRaises(onyx.OnyxInvalidArgumentError):
            onyx.clip(x8, -200, 5)  # does not fit in int8
        with self.assertRaises(onyx.OnyxInvalidArgumentError):
            onyx.clip(x8, 0.5, 5)  # not an integer
        with self.assertRaises(onyx.OnyxInvalidArgumentError):
            onyx.clip(x8, [1, 2], 5)
        with self.assertRaises(onyx.OnyxInvalidArgumentError):
            onyx.ceil(np.zeros(4), out=np.zeros(4, dtype=np.float32))
        with self.assertRaises(onyx.OnyxInvalidArgumentError):
            onyx.ceil(np.zeros(4), out=np.zeros(8)[::2])
        x = np.zeros(8)
        with self.assertRaises(onyx.OnyxInvalidArgumentError):
            onyx.ceil(x[:4], out=x[2:6])  # overlapping, not the same


if __name__ == "__main__":
    unittest.main()
