#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Regenerates the bundled example: examples/chain.onnx and
examples/chain_input_x.pb (run from anywhere; needs numpy and onnx, e.g.
Debian's /usr/bin/python3 with python3-onnx).

The model chains all four operators on a float32 vector x of 8 elements,
at opset 13:

    ceil    = Ceil(x)
    clipped = Clip(ceil, lo, hi)     lo = -2, hi = 2, from Constant nodes
    sign    = Sign(clipped)
    floor   = Floor(x)

outputs: clipped, sign, floor. Try it with

    onyx run examples/chain.onnx --input x=examples/chain_input_x.pb
"""

import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
X = np.array([-3.7, -1.2, -0.5, 0.0, 0.4, 1.5, 2.2, 5.9], dtype=np.float32)


def scalar(v):
    return numpy_helper.from_array(np.array(v, dtype=np.float32), "")


def build():
    f = TensorProto.FLOAT
    nodes = [
        helper.make_node("Constant", [], ["lo"], name="const_lo", value=scalar(-2.0)),
        helper.make_node("Constant", [], ["hi"], name="const_hi", value=scalar(2.0)),
        helper.make_node("Ceil", ["x"], ["ceil"], name="ceil_x"),
        helper.make_node("Clip", ["ceil", "lo", "hi"], ["clipped"], name="clip_ceil"),
        helper.make_node("Sign", ["clipped"], ["sign"], name="sign_clipped"),
        helper.make_node("Floor", ["x"], ["floor"], name="floor_x"),
    ]
    graph = helper.make_graph(
        nodes, "chain",
        [helper.make_tensor_value_info("x", f, [8])],
        [helper.make_tensor_value_info("clipped", f, [8]),
         helper.make_tensor_value_info("sign", f, [8]),
         helper.make_tensor_value_info("floor", f, [8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="onyx-example")
    model.ir_version = 7
    return model


def main():
    with open(os.path.join(HERE, "chain.onnx"), "wb") as out:
        out.write(build().SerializeToString())
    with open(os.path.join(HERE, "chain_input_x.pb"), "wb") as out:
        out.write(numpy_helper.from_array(X, "x").SerializeToString())
    clipped = np.clip(np.ceil(X), np.float32(-2), np.float32(2))
    print("x       ", X.tolist())
    print("clipped ", clipped.tolist())
    print("sign    ", np.sign(clipped).tolist())
    print("floor   ", np.floor(X).tolist())


if __name__ == "__main__":
    main()
