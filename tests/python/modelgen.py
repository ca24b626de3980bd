# SPDX-License-Identifier: MIT
"""Helpers shared by the Python tests: one-node models built with onnx, the
library's environment, and bfloat16 bit patterns."""

import os

import numpy as np
from onnx import TensorProto, helper

SOURCE_DIR = os.environ.get(
    "ONYX_SOURCE_DIR",
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
EXAMPLE = os.path.join(SOURCE_DIR, "examples", "chain.onnx")
EXAMPLE_X = np.array([-3.7, -1.2, -0.5, 0.0, 0.4, 1.5, 2.2, 5.9], dtype=np.float32)

# name, TensorProto type, numpy type (bfloat16: uint16 bit patterns)
TYPES = [
    ("float", TensorProto.FLOAT, np.float32),
    ("double", TensorProto.DOUBLE, np.float64),
    ("float16", TensorProto.FLOAT16, np.float16),
    ("bfloat16", TensorProto.BFLOAT16, np.uint16),
    ("int8", TensorProto.INT8, np.int8),
    ("int16", TensorProto.INT16, np.int16),
    ("int32", TensorProto.INT32, np.int32),
    ("int64", TensorProto.INT64, np.int64),
    ("uint8", TensorProto.UINT8, np.uint8),
    ("uint16", TensorProto.UINT16, np.uint16),
    ("uint32", TensorProto.UINT32, np.uint32),
    ("uint64", TensorProto.UINT64, np.uint64),
]
FLOAT_TYPES = ["float", "double", "float16", "bfloat16"]


def model_bytes(nodes, inputs, outputs, opset=13, initializers=()):
    """Serialized model. inputs/outputs: (name, TensorProto type, shape)."""
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model.SerializeToString()


def one_node(op, elem_type, shape, bounds=(), opset=13):
    """A model of one node op(x) -> y; for Clip, bounds lists the bound
    inputs the node has: "min", "max", or "" for an omitted one."""
    node_inputs = ["x"] + list(bounds)
    while node_inputs and node_inputs[-1] == "" and len(node_inputs) > 1:
        node_inputs.pop()
    inputs = [("x", elem_type, shape)] + [(b, elem_type, []) for b in bounds if b]
    return model_bytes([helper.make_node(op, node_inputs, ["y"], name=op.lower())], inputs,
                       [("y", elem_type, shape)], opset=opset)


def bf16_to_f32(bits):
    """bfloat16 bit patterns -> float32 (exact)."""
    b = np.asarray(bits, dtype=np.uint16)
    wide = np.atleast_1d(b).astype(np.uint32) << np.uint32(16)
    return wide.view(np.float32).reshape(b.shape)


def f32_to_bf16(values):
    """float32 -> bfloat16 bit patterns, rounding to nearest, ties to even;
    a NaN stays a (quiet) NaN."""
    f = np.asarray(values, dtype=np.float32)
    u = np.atleast_1d(f).view(np.uint32).astype(np.uint64)
    one, half = np.uint64(1), np.uint64(0x7FFF)
    rounded = (u + half + ((u >> np.uint64(16)) & one)) >> np.uint64(16)
    nan = (u & np.uint64(0x7FFFFFFF)) > np.uint64(0x7F800000)
    quiet = (u >> np.uint64(16)) | np.uint64(0x40)
    return np.where(nan, quiet, rounded).astype(np.uint16).reshape(f.shape)


# ---- Values ---------------------------------------------------------------

# Float formats: total bits, exponent bits, mantissa bits, unsigned type.
FLOAT_FORMATS = {
    "float": (8, 23, np.uint32),
    "double": (11, 52, np.uint64),
    "float16": (5, 10, np.uint16),
    "bfloat16": (8, 7, np.uint16),
}


def float_specials(name):
    """Bit patterns of the float type's special values: +-0, subnormals,
    values around 0.5, 1, 2 and 2^mantissa (where fractions end), the largest
    finite, infinities, quiet and signalling NaNs with payloads; every
    combination of sign, a set of exponents and a set of mantissas."""
    e, m, ut = FLOAT_FORMATS[name]
    bias, emax = (1 << (e - 1)) - 1, (1 << e) - 1
    exps = {0, 1, bias - 2, bias - 1, bias, bias + 1, bias + m - 1, bias + m, bias + m + 1,
            emax - 1, emax}
    mants = {0, 1, 2, 1 << (m - 1), (1 << (m - 1)) + 1, (1 << (m - 1)) - 1, (1 << m) - 2,
             (1 << m) - 1}
    out = []
    for sign in (0, 1):
        for ex in sorted(x for x in exps if 0 <= x <= emax):
            for man in sorted(mants):
                out.append((sign << (e + m)) | (ex << m) | man)
    return np.array(out, dtype=np.uint64).astype(ut)


def values(name, rng, n_random=300):
    """Test values of a type, as an array of its numpy type (bfloat16 as
    uint16 bit patterns): the special values, then random bit patterns,
    then random numbers with fractional parts over a wide range."""
    np_type = dict((t[0], t[2]) for t in TYPES)[name]
    if name in FLOAT_FORMATS:
        ut = FLOAT_FORMATS[name][2]
        specials = float_specials(name)
        info = np.iinfo(ut)
        random_bits = rng.integers(0, int(info.max), size=n_random, dtype=ut, endpoint=True)
        numbers = (rng.standard_normal(n_random) * 10.0 ** rng.integers(-3, 6, n_random))
        with np.errstate(over="ignore"):  # large values become inf in float16
            if name == "bfloat16":
                numbers = f32_to_bf16(numbers.astype(np.float32))
            else:
                numbers = numbers.astype(np_type).view(ut)
        bits = np.concatenate([specials, random_bits, numbers])
        return bits if name == "bfloat16" else bits.view(np_type)
    info = np.iinfo(np_type)
    specials = [info.min, info.min + 1, -1 if info.min < 0 else 2, 0, 1, info.max - 1, info.max]
    return np.concatenate([
        np.array(specials, dtype=np_type),
        rng.integers(info.min, info.max, size=n_random, dtype=np_type, endpoint=True),
        rng.integers(-100 if info.min < 0 else 0, 100, size=n_random, dtype=np_type)])


def same_values(name, got, want):
    """None if got equals want bit for bit (any NaN matching any NaN in a
    float type), else a description of the first difference."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype:
        return "type %s, expected %s" % (got.dtype, want.dtype)
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    if name in FLOAT_FORMATS:
        e, m, ut = FLOAT_FORMATS[name]
        g, w = got.view(ut).ravel(), want.view(ut).ravel()
        mask = np.iinfo(ut).max >> 1
        inf = ((1 << e) - 1) << m
        nan_both = ((g & mask) > inf) & ((w & mask) > inf)
        bad = np.nonzero((g != w) & ~nan_both)[0]
    else:
        g, w = got.ravel(), want.ravel()
        bad = np.nonzero(g != w)[0]
    if bad.size == 0:
        return None
    i = int(bad[0])
    return "%d of %d elements differ; first at %d: got %r, expected %r" % (
        bad.size, g.size, i, g[i], w[i])
