#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the test fixtures of tests/ecosystem.cmake into the folder given as
the only argument (the build runs it): OUT/npy/ for tests/unit/test_npy.c,
and OUT/models/ for the `onyx bench` tests.

OUT/npy/: .npy files written by numpy itself.

Valid files, one per element type onyx reads and per shape in SHAPES:
    <code>_<shape>.npy    code: f4 f8 f2 i1 u1 i2 u2 i4 u4 i8 u8; shape: 2x3,
                          s (a scalar), 0 (empty), 5, 2x0x3, 1x2x1x3
written by np.save (format 1.0), and each type also as format 2.0 and 3.0:
    <code>_2x3_v2.npy, <code>_2x3_v3.npy
Element i (in C order) is value(i) below, converted to the type.

Files onyx must refuse, each as numpy writes it:
    big_endian.npy (>f4), fortran.npy (fortran_order True), object.npy
    (an object array, pickled), bool.npy (|b1), complex.npy (<c8),
    structured.npy (a list descr), unicode.npy (<U3)

OUT/models/: one-node Ceil models (opset 13) whose input x is
    symbolic.onnx   float [N, 3]  (N a symbolic dimension)
    unknown.onnx    float [?, 3]  (a dimension with neither size nor name)
    no_shape.onnx   float, no shape declared
"""

import os
import sys

import numpy as np
from numpy.lib import format as npy_format
from onnx import TensorProto, helper

CODES = ["f4", "f8", "f2", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"]
SHAPES = {"2x3": (2, 3), "s": (), "0": (0,), "5": (5,), "2x0x3": (2, 0, 3),
          "1x2x1x3": (1, 2, 1, 3)}


def value(i, code):
    """The i-th element: (7 i + 3) mod 100, less 50 for signed and float
    types, plus one half for float types (exact in every float type)."""
    v = (7 * i + 3) % 100
    if code[0] in "fi":
        v -= 50
    if code[0] == "f":
        return v + 0.5
    return v


def array(code, shape):
    n = int(np.prod(shape, dtype=np.int64))
    flat = np.array([value(i, code) for i in range(n)], dtype=np.dtype("<" + code))
    return flat.reshape(shape)


def ceil_model(shape):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)
    graph = helper.make_graph([helper.make_node("Ceil", ["x"], ["y"], name="ceil")], "ceil",
                              [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model.SerializeToString()


def write_models(out):
    os.makedirs(out, exist_ok=True)
    for name, shape in (("symbolic", ["N", 3]), ("unknown", [None, 3]), ("no_shape", None)):
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(ceil_model(shape))


def write_npy(out):
    os.makedirs(out, exist_ok=True)
    for code in CODES:
        for name, shape in SHAPES.items():
            np.save(os.path.join(out, "%s_%s.npy" % (code, name)), array(code, shape))
        for version in (2, 3):
            with open(os.path.join(out, "%s_2x3_v%d.npy" % (code, version)), "wb") as f:
                npy_format.write_array(f, array(code, (2, 3)), version=(version, 0))
    refused = {
        "big_endian": np.arange(4, dtype=">f4"),
        "fortran": np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)),
        "object": np.array([1, "a", None], dtype=object),
        "bool": np.array([True, False]),
        "complex": np.array([1 + 2j], dtype="<c8"),
        "structured": np.zeros(2, dtype=[("a", "<f4"), ("b", "<i4")]),
        "unicode": np.array(["abc"], dtype="<U3"),
    }
    for name, a in refused.items():
        np.save(os.path.join(out, name + ".npy"), a, allow_pickle=True)


def main():
    write_npy(os.path.join(sys.argv[1], "npy"))
    write_models(os.path.join(sys.argv[1], "models"))


if __name__ == "__main__":
    main()
