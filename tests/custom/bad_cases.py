#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the bad-model cases of registered operators for check_bad_models
--ops libtestops.so (tests/check_bad_models.c describes the layout):
nodes the test op library's checks or functions refuse, each with the
status and the message onyx must give, naming the node and op.

    bad_cases.py OUTDIR
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F, I32, U8 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.UINT8


def model(nodes, inputs, outputs, opsets=(("", 13),)):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(*i) for i in inputs],
                          [helper.make_tensor_value_info(*o) for o in outputs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    m.ir_version = 8
    return m


def case(out, name, m, status, messages, inputs=None):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    lines = ["status " + status] + ["message " + t for t in messages]
    if inputs is not None:
        lines.append("stage run")
        for k, a in enumerate(inputs):
            with open(os.path.join(d, "input_%d.pb" % k), "wb") as f:
                f.write(numpy_helper.from_array(a).SerializeToString())
    with open(os.path.join(d, "expect.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main(out):
    add = helper.make_node("Add", ["x", "y"], ["z"], name="add")
    case(out, "custom_add_no_broadcast",
         model([add], [("x", F, [3]), ("y", F, [4])], [("z", F, [3])]),
         "ONYX_SHAPE", ["node 0 ('add', Add): dimension 0: 3 and 4 do not broadcast"])
    # The same refusal at a run blames the run's inputs, naming the node.
    case(out, "custom_add_no_broadcast_at_run",
         model([add], [("x", F, ["n"]), ("y", F, ["m"])], [("z", F, None)]),
         "ONYX_INPUT_SHAPE", ["node 0 ('add', Add): dimension 0: 3 and 4 do not broadcast"],
         inputs=[np.zeros(3, np.float32), np.zeros(4, np.float32)])
    case(out, "custom_add_two_types",
         model([add], [("x", F, [3]), ("y", I32, [3])], [("z", F, [3])]),
         "ONYX_TYPE", ["node 0 ('add', Add): input 1 'y' has type int32 but the inputs before "
                       "it float; the op takes one type"])
    case(out, "custom_abs_type",
         model([helper.make_node("Abs", ["x"], ["y"], name="abs")], [("x", U8, [2])],
               [("y", U8, [2])]),
         "ONYX_TYPE", ["node 0 ('abs', Abs): input 0 'x' has type uint8, which the op does not "
                       "allow"])
    case(out, "custom_abs_arity",
         model([helper.make_node("Abs", ["x", "x"], ["y"], name="abs")], [("x", F, [2])],
               [("y", F, [2])]),
         "ONYX_ARITY", ["node 0 ('abs', Abs): has 2 inputs; the registered op takes 1 to 1"])
    case(out, "custom_cast_to_double",
         model([helper.make_node("Cast", ["x"], ["y"], name="cast", to=TensorProto.DOUBLE)],
               [("x", F, [2])], [("y", TensorProto.DOUBLE, [2])]),
         "ONYX_TYPE", ["node 0 ('cast', Cast): this Cast converts float <-> float16 only"])
    case(out, "custom_cast_without_to",
         model([helper.make_node("Cast", ["x"], ["y"], name="cast")], [("x", F, [2])],
               [("y", F, [2])]),
         "ONYX_ATTRIBUTE", ["node 0 ('cast', Cast): Cast needs the int attribute 'to'"])
    # Declared outputs are checked against what infer gives, as for onyx's ops.
    case(out, "custom_relu_declared_shape",
         model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [("x", F, [2])],
               [("y", F, [3])]),
         "ONYX_SHAPE", ["graph output 0 'y': dimension 0 is declared 3 but is computed as 2"])
    # The library registers ai.onnx ops only: another domain is nobody's.
    case(out, "custom_relu_other_domain",
         model([helper.make_node("Relu", ["x"], ["y"], name="relu", domain="com.example")],
               [("x", F, [2])], [("y", F, [2])], opsets=(("", 13), ("com.example", 1))),
         "ONYX_UNSUPPORTED_OP", ["domain 'com.example' is not supported"])


if __name__ == "__main__":
    main(sys.argv[1])
