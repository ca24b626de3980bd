#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Regenerates examples/custom_op.onnx, the model of examples/custom_op.c
(run from anywhere; needs onnx, e.g. Debian's /usr/bin/python3 with
python3-onnx).

A float32 vector x of 8 elements through an op onyx lacks and two it has,
at opset 13:

    leaky = LeakyRelu(x, alpha=0.1)   served by the example's registered op
    y     = Clip(leaky, lo, hi)       lo = -0.25, hi = 6, initializers (onyx)
    z     = Floor(y)                  (onyx)

outputs: y, z.
"""

import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def build():
    f = TensorProto.FLOAT
    inits = [numpy_helper.from_array(np.array(-0.25, dtype=np.float32), "lo"),
             numpy_helper.from_array(np.array(6.0, dtype=np.float32), "hi")]
    nodes = [
        helper.make_node("LeakyRelu", ["x"], ["leaky"], name="leaky", alpha=0.1),
        helper.make_node("Clip", ["leaky", "lo", "hi"], ["y"], name="clip"),
        helper.make_node("Floor", ["y"], ["z"], name="floor"),
    ]
    graph = helper.make_graph(
        nodes, "custom_op", [helper.make_tensor_value_info("x", f, [8])],
        [helper.make_tensor_value_info("y", f, [8]),
         helper.make_tensor_value_info("z", f, [8])], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="onyx-example")
    model.ir_version = 7
    return model


if __name__ == "__main__":
    with open(os.path.join(HERE, "custom_op.onnx"), "wb") as out:
        out.write(build().SerializeToString())
