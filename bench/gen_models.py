# SPDX-License-Identifier: MIT
"""Writes the benchmark's models: one single-node model per (op, element type)
and the Ceil -> Clip -> Sign chain, all at ai.onnx opset 13 with a
one-dimensional input of symbolic length N, so that one model serves every
size. Clip's bounds are scalar initializers. onyx and ONNX Runtime load the
same files.

Usage: python3 gen_models.py OUTDIR
Needs onnx (1.12) and numpy, as Debian packages them (/usr/bin/python3).
"""

import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
IR_VERSION = 8

# name -> (TensorProto data_type, numpy type; None for bfloat16)
TYPES = {
    "float16": (TensorProto.FLOAT16, np.float16),
    "float": (TensorProto.FLOAT, np.float32),
    "double": (TensorProto.DOUBLE, np.float64),
    "bfloat16": (TensorProto.BFLOAT16, None),
    "int8": (TensorProto.INT8, np.int8),
    "int16": (TensorProto.INT16, np.int16),
    "int32": (TensorProto.INT32, np.int32),
    "int64": (TensorProto.INT64, np.int64),
    "uint8": (TensorProto.UINT8, np.uint8),
    "uint16": (TensorProto.UINT16, np.uint16),
    "uint32": (TensorProto.UINT32, np.uint32),
    "uint64": (TensorProto.UINT64, np.uint64),
}
FLOAT_TYPES = ["float16", "float", "double", "bfloat16"]
OPS = {"Ceil": FLOAT_TYPES, "Floor": FLOAT_TYPES, "Clip": list(TYPES), "Sign": list(TYPES)}


def clip_bounds(dtype):
    """Bounds that clip about half of the benchmark's inputs: floats are
    uniform in [-100, 100), integers uniform over the whole type."""
    if dtype in FLOAT_TYPES:
        return -50.0, 50.0
    info = np.iinfo(TYPES[dtype][1])
    quarter = (int(info.max) - int(info.min) + 1) // 4
    return int(info.min) + quarter, int(info.max) - quarter


def bf16_bits(value):
    """float32 -> bfloat16 bits, round to nearest even (no NaN here)."""
    (bits,) = struct.unpack("<I", struct.pack("<f", value))
    return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16


def scalar(name, dtype, value):
    if dtype == "bfloat16":
        # onnx 1.12's helpers do not write bfloat16: build the proto by hand.
        t = TensorProto()
        t.name = name
        t.data_type = TensorProto.BFLOAT16
        t.raw_data = struct.pack("<H", bf16_bits(value))
        return t
    return numpy_helper.from_array(np.array(value, dtype=TYPES[dtype][1]), name)


def model(nodes, dtype, initializers=()):
    elem = TYPES[dtype][0]
    graph = helper.make_graph(
        nodes,
        "bench",
        [helper.make_tensor_value_info("x", elem, ["N"])],
        [helper.make_tensor_value_info("y", elem, ["N"])],
        initializer=list(initializers),
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                          producer_name="onyx-bench")
    m.ir_version = IR_VERSION
    onnx.checker.check_model(m)
    return m


def single(op, dtype):
    if op == "Clip":
        lo, hi = clip_bounds(dtype)
        node = helper.make_node("Clip", ["x", "lo", "hi"], ["y"], name="clip")
        return model([node], dtype, [scalar("lo", dtype, lo), scalar("hi", dtype, hi)])
    return model([helper.make_node(op, ["x"], ["y"], name=op.lower())], dtype)


def chain():
    lo, hi = clip_bounds("float")
    nodes = [
        helper.make_node("Ceil", ["x"], ["c"], name="ceil"),
        helper.make_node("Clip", ["c", "lo", "hi"], ["k"], name="clip"),
        helper.make_node("Sign", ["k"], ["y"], name="sign"),
    ]
    return model(nodes, "float", [scalar("lo", "float", lo), scalar("hi", "float", hi)])


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_models.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    count = 0
    for op, dtypes in OPS.items():
        for dtype in dtypes:
            onnx.save(single(op, dtype), os.path.join(out, f"{op.lower()}_{dtype}.onnx"))
            count += 1
    onnx.save(chain(), os.path.join(out, "chain_float.onnx"))
    print(f"gen_models: wrote {count + 1} models to {out}")


if __name__ == "__main__":
    main()
