#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the model and the numpy results of onyx.custom.one_engine
(tests/custom/test_one_engine.c): registered ops with two inputs that
broadcast, with two outputs and with any number of inputs, mixed with
onyx's Ceil, Clip, Sign and Floor, under a symbolic batch dimension N.

    one_engine.py OUTDIR

OUTDIR/model.onnx, and for each batch size B (a small one first)
OUTDIR/batch_I/input_K.pb and output_K.pb; also OUTDIR/info.onnx for
onyx.custom.info (see info_model) and the backend-test folder
OUTDIR/sum_repeated for onyx.custom.sum_repeated. The registered ops, in the
domain com.example, are defined here as the C test implements them:
  BroadcastAdd(a, b) = a + b, numpy broadcasting;
  MinMax(a, b)       = (a < b ? a : b, a > b ? a : b), elementwise;
  Sum(x0, ..., xn)   = ((x0 + x1) + ...) + xn, same shapes, float32.
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

BATCHES = (1, 6, 3001, 2)
F = TensorProto.FLOAT
EX = "com.example"


def make_model():
    nodes = [
        helper.make_node("Ceil", ["x"], ["c"], name="ceil"),
        helper.make_node("BroadcastAdd", ["c", "y"], ["a"], name="add_col", domain=EX),
        helper.make_node("BroadcastAdd", ["a", "bias"], ["a2"], name="add_row", domain=EX),
        helper.make_node("Floor", ["x"], ["f"], name="floor"),
        helper.make_node("MinMax", ["a2", "f"], ["mn", "mx"], name="minmax", domain=EX),
        helper.make_node("Clip", ["mn", "lo", "hi"], ["cl"], name="clip"),
        helper.make_node("Sign", ["mx"], ["s"], name="sign"),
        helper.make_node("Sum", ["cl", "s", "a2", "f"], ["t"], name="sum", domain=EX),
        helper.make_node("Floor", ["t"], ["z"], name="floor_t"),
    ]
    inits = [
        numpy_helper.from_array(np.array([0.5, -1.25, 2.0, -0.0], np.float32), "bias"),
        numpy_helper.from_array(np.array(-2.0, np.float32), "lo"),
        numpy_helper.from_array(np.array(3.0, np.float32), "hi"),
    ]
    g = helper.make_graph(
        nodes, "one_engine",
        [helper.make_tensor_value_info("x", F, ["N", 4]),
         helper.make_tensor_value_info("y", F, ["N", 1])],
        # z's shape is declared; mx's and t's are left to onyx.
        [helper.make_tensor_value_info("z", F, ["N", 4]),
         helper.make_tensor_value_info("mx", F, None),
         helper.make_tensor_value_info("t", F, None)],
        initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13),
                                            helper.make_opsetid(EX, 1)])
    m.ir_version = 8
    return m


def info_model():
    """For onyx info --ops libtestops.so (tests/custom/testops.c): shapes
    through its Add (broadcasting a symbolic [N, 4] with [4]), onyx's Ceil
    and its Abs, and its Neg on an input that declares no shape."""
    nodes = [helper.make_node("Add", ["x", "y"], ["a"], name="add"),
             helper.make_node("Ceil", ["a"], ["c"], name="ceil"),
             helper.make_node("Abs", ["c"], ["z"], name="abs"),
             helper.make_node("Neg", ["u"], ["w"], name="neg")]
    g = helper.make_graph(
        nodes, "info",
        [helper.make_tensor_value_info("x", F, ["N", 4]),
         helper.make_tensor_value_info("y", F, [4]),
         helper.make_tensor_value_info("u", F, None)],
        [helper.make_tensor_value_info("a", F, ["N", 4]),
         helper.make_tensor_value_info("z", F, None),
         helper.make_tensor_value_info("w", F, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def sum_repeated(out):
    """A backend-test folder for onyx test --ops libtestops.so: its Sum,
    which may write over input 0, reading one value several times, and
    Split's two halves summed again, after onyx's Ceil."""
    nodes = [helper.make_node("Ceil", ["x"], ["c"], name="ceil"),
             helper.make_node("Sum", ["c", "c", "c"], ["s"], name="sum3"),
             helper.make_node("Split", ["s"], ["h0", "h1"], name="halves", axis=-1),
             helper.make_node("Sum", ["h0", "h1", "h0", "h1"], ["y"], name="sum4")]
    g = helper.make_graph(nodes, "sum_repeated",
                          [helper.make_tensor_value_info("x", F, [3, 2])],
                          [helper.make_tensor_value_info("y", F, [3, 1]),
                           helper.make_tensor_value_info("h1", F, [3, 1])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    x = np.array([[0.5, 1.5], [-2.25, 3], [4.75, -0.5]], np.float32)
    s = np.ceil(x) + np.ceil(x) + np.ceil(x)
    h0, h1 = s[:, :1], s[:, 1:]
    d = os.path.join(out, "sum_repeated", "test_data_set_0")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(out, "sum_repeated", "model.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    for name, a in (("input_0", x), ("output_0", h0 + h1 + h0 + h1), ("output_1", h1)):
        with open(os.path.join(d, name + ".pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.ascontiguousarray(a)).SerializeToString())


def reference(x, y):
    bias = np.array([0.5, -1.25, 2.0, -0.0], np.float32)
    a2 = (np.ceil(x) + y) + bias
    f = np.floor(x)
    mn = np.where(a2 < f, a2, f)
    mx = np.where(a2 > f, a2, f)
    cl = np.clip(mn, np.float32(-2.0), np.float32(3.0))
    s = np.sign(mx)
    t = ((cl + s) + a2) + f
    return [np.floor(t), mx, t]


def inputs(rng, batch):
    # Halves, quarters, signed zeros and values near 2^22, where float32
    # still has a fraction bit.
    x = (rng.integers(-40, 41, size=(batch, 4)) / 8).astype(np.float32)
    special = np.array([-0.0, 0.0, -0.5, 0.5, 2.5, -2.5, 4194304.5, -4194304.5], np.float32)
    flat = x.reshape(-1)
    k = min(flat.size, special.size)
    flat[:k] = special[:k]
    y = (rng.integers(-20, 21, size=(batch, 1)) / 4).astype(np.float32)
    return [x, y]


def main(out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "model.onnx"), "wb") as f:
        f.write(make_model().SerializeToString())
    with open(os.path.join(out, "info.onnx"), "wb") as f:
        f.write(info_model().SerializeToString())
    sum_repeated(out)
    rng = np.random.default_rng(21)
    for i, batch in enumerate(BATCHES):
        d = os.path.join(out, "batch_%d" % i)
        os.makedirs(d, exist_ok=True)
        ins = inputs(rng, batch)
        outs = reference(*ins)
        for kind, arrays in (("input", ins), ("output", outs)):
            for k, a in enumerate(arrays):
                assert a.dtype == np.float32, (kind, k, a.dtype)
                with open(os.path.join(d, "%s_%d.pb" % (kind, k)), "wb") as f:
                    f.write(numpy_helper.from_array(a).SerializeToString())
    with open(os.path.join(out, "batches.txt"), "w") as f:
        f.write("%d\n" % len(BATCHES))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
