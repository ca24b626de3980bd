#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generates onyx's conformance cases.

    gen_cases.py OUTDIR OPS_LIST

reads the ops' version tables and the newest opset from OPS_LIST, the
library's registry as the built program tests/gen/list_ops.c prints it,
and writes (after removing what OUTDIR held before):
  OUTDIR/spec/<name>/     the examples on the operator pages
  OUTDIR/ops/<case>/      every (op, version, element type), Clip variants
  OUTDIR/graphs/<case>/   multi-node graphs, shapes, encodings, data sets
  OUTDIR/bad/<case>/      invalid models: model.onnx, expect.txt, input_K.pb
  OUTDIR/runner/{pass,fail}/<case>/  checks of the comparison `onyx test`
                          makes: each fail case has a wrong expected output

spec/, ops/ and graphs/ are ONNX backend-test folders for `onyx test`;
bad/ is read by tests/check_bad_models.c. Everything is deterministic: the
random values come from fixed seeds, so two runs write the same bytes.
Expected outputs come from the numpy reference in casegen.py.
"""

import ast
import os
import re
import shutil
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from casegen import (FLOAT_FORMATS, FLOATS, INTS, SIGNED, Graph, Node,  # noqa: E402
                     Tens, attr_bound, f32_to_bf16, is_float, onnx_type,
                     ref_ceil, ref_clip, ref_floor, ref_sign, storage, tens, tensor_proto,
                     write_case, write_dataset, write_pb)
from spec_examples import EXAMPLES  # noqa: E402

# Filled from the registry by load_tables(): the newest ai.onnx opset onyx
# supports, and {op: {since: [element type names]}} for every op.
NEWEST_OPSET = None
VERSIONS = {}

COUNTS = {}


def count(group):
    COUNTS[group] = COUNTS.get(group, 0) + 1


def seed_of(name):
    """A fixed seed per case name (not Python's randomized hash)."""
    h = 2166136261
    for c in name.encode():
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h


# ---- Self-checks of the reference -------------------------------------------

def self_check():
    """The numpy facts the expected outputs rely on."""
    f = np.float32
    x = np.array([-1.0, 0.5, 3.0, np.nan], f)
    # A NaN bound acts as no bound; NaN input stays NaN.
    y = np.clip(x, f(np.nan), f(1.0))
    assert y[0] == -1.0 and y[2] == 1.0 and np.isnan(y[3]), y
    y = np.clip(x, f(0.0), f(np.nan))
    assert y[0] == 0.0 and y[2] == 3.0, y
    # min > max gives max.
    assert (np.clip(x[:3], f(2.0), f(-1.0)) == -1.0).all()
    # Ties go to the bound (visible on signed zeros).
    z = np.array([-0.0, 0.0], f)
    assert np.clip(z, f(0.0), None).view(np.uint32).tolist() == [0, 0]
    assert np.clip(z, None, f(-0.0)).view(np.uint32).tolist() == [0x80000000] * 2
    assert np.clip(z, f(0.0), f(1.0)).view(np.uint32).tolist() == [0, 0]
    # Sign(-0) is +0, Sign(NaN) is NaN.
    assert np.sign(f(-0.0)).view(np.uint32) == 0 and np.isnan(np.sign(f(np.nan)))
    # bfloat16 rounding: nearest even, NaN kept.
    rounded = f32_to_bf16(np.array([1.00390625, 1.01171875, np.nan], f)).tolist()
    assert rounded[:2] == [0x3F80, 0x3F82], rounded
    assert np.isnan(np.array(f32_to_bf16(np.array([np.nan], f)).astype(np.uint32) << 16,
                             np.uint32).view(f))[0]
    # Clip-6 default converted to float16 is infinite.
    assert np.isinf(attr_bound("float16", -3.4028234663852886e38))


# ---- Values -------------------------------------------------------------------

def float_bits(dtype, v):
    """The bit pattern of float64 v rounded to dtype."""
    if dtype == "bfloat16":
        return int(f32_to_bf16(np.array([v], np.float64).astype(np.float32))[0])
    ut = FLOAT_FORMATS[dtype][2]
    return int(np.array([v], np.float64).astype(storage(dtype)).view(ut)[0])


def bits_to_tens(dtype, bits):
    ut = FLOAT_FORMATS[dtype][2]
    arr = np.array(bits, dtype=ut)
    if dtype != "bfloat16":
        arr = arr.view(storage(dtype))
    return Tens(dtype, arr)


def float_specials(dtype):
    e, m, _ = FLOAT_FORMATS[dtype]
    sign = 1 << (e + m)
    expmask = ((1 << e) - 1) << m
    quiet = 1 << (m - 1)
    bits = [0, sign, expmask, sign | expmask,            # +-0, +-inf
            expmask | quiet, sign | expmask | quiet,     # quiet NaNs
            expmask | 1, expmask | quiet | 5,            # NaNs with payloads
            1, sign | 1, (1 << m) - 1, sign | ((1 << m) - 1),  # subnormals
            1 << m, sign | (1 << m),                     # smallest normal
            expmask - 1, sign | (expmask - 1)]           # largest finite
    anchors = [0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.5, 127.5, 128.0, 1024.0,
               2.0 ** 23, 2.0 ** 52, 2.0 ** m, 2.0 ** (m + 1), 1e5, 1e30, 1e300]
    for a in anchors:
        for s in (1.0, -1.0):
            for d in (0.0, -0.5, 0.5, -1.0, 1.0):
                bits.append(float_bits(dtype, s * (a + d)))
            b = float_bits(dtype, s * a)
            if b & ~sign and (b & expmask) != expmask:
                bits += [b - 1, b + 1]  # the neighbours of a
    # Random values in several ranges.
    rng = np.random.default_rng(seed_of("specials-" + dtype))
    for scale in (1.0, 3.0, 100.0, 2.0 ** m):
        for v in rng.standard_normal(12) * scale:
            bits.append(float_bits(dtype, v))
    if len(bits) % 2 == 0:
        bits.append(float_bits(dtype, 0.75))
    return bits_to_tens(dtype, bits)


def int_limits(dtype):
    info = np.iinfo(storage(dtype))
    return int(info.min), int(info.max)


def int_specials(dtype):
    lo, hi = int_limits(dtype)
    cand = [lo, lo + 1, lo + 2, lo // 2, -2, -1, 0, 1, 2, 3, hi // 2, hi // 2 + 1,
            hi - 2, hi - 1, hi, 100, -100, 127, -128, 128, -129, 255, 256, 32767, -32768,
            65535, 65536, 2 ** 31 - 1, -2 ** 31, 2 ** 31, 2 ** 32 - 1, 2 ** 32,
            2 ** 53 + 1, -(2 ** 53 + 1), 2 ** 62 + 1, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1]
    vals = [v for v in cand if lo <= v <= hi]
    rng = np.random.default_rng(seed_of("specials-" + dtype))
    vals += [int(v) for v in rng.integers(lo, hi, size=40, endpoint=True, dtype=storage(dtype))]
    vals += [int(v) for v in rng.integers(max(lo, -50), min(hi, 50), size=20, endpoint=True)]
    if len(vals) % 2 == 0:
        vals.append(hi // 3)
    return tens(dtype, vals)


def specials(dtype):
    return float_specials(dtype) if is_float(dtype) else int_specials(dtype)


def around(dtype, values):
    """Each value and its neighbours in dtype (a list to append to data)."""
    out = []
    for v in values:
        if is_float(dtype):
            b = float_bits(dtype, v)
            out += [b]
            if np.isfinite(v) and v != 0:
                out += [b - 1, b + 1]
        else:
            lo, hi = int_limits(dtype)
            out += [w for w in (v - 1, v, v + 1) if lo <= w <= hi]
    return out


def with_values(base, dtype, extra):
    """base tensor plus extra values (float bit patterns or ints), odd length."""
    if is_float(dtype):
        more = bits_to_tens(dtype, extra).arr
    else:
        more = tens(dtype, extra).arr
    arr = np.concatenate([base.arr, more])
    if arr.size % 2 == 0:
        arr = np.concatenate([arr, arr[:1]])
    return Tens(dtype, arr)


LENGTHS = [None, 0, 1, 2, 3, 31, 33, 65]  # None: the whole data


def length_sets(x):
    """The data at several lengths (SIMD bodies and tails), rotated."""
    out = []
    for k, n in enumerate(LENGTHS):
        if n is None:
            out.append(x)
        else:
            out.append(Tens(x.dtype, np.roll(x.arr, -7 * k)[:n].copy()))
    return out


# ---- spec/ --------------------------------------------------------------------

def parse_printed(text, dtype):
    """A printed numpy array; for float types "-0" is negative zero."""
    if is_float(dtype):
        text = re.sub(r"(?<![\w.])(-?\d+)(?![\d.eE])", r"\1.0", text)
    return ast.literal_eval(text.strip())


def gen_spec(root):
    d = os.path.join(root, "spec")
    os.makedirs(d)
    for name, (op, dtype, shape, xs, ys) in EXAMPLES.items():
        x = tens(dtype, parse_printed(xs, dtype), shape)
        want = tens(dtype, parse_printed(ys, dtype), shape)
        g = Graph(name, 13, [Node(op, ["x"], ["y"], name=op.lower())],
                  [("x", dtype, list(shape))], [("y", dtype, list(shape))])
        got = g.evaluate([x])[0]
        if not got.same_bits(want):
            raise AssertionError("%s: numpy gives %r, the page %r" % (name, got.arr, want.arr))
        # The case is written from the page's values.
        case = os.path.join(d, name)
        os.makedirs(case)
        with open(os.path.join(case, "model.onnx"), "wb") as f:
            f.write(g.model().SerializeToString())
        write_dataset(case, 0, [("x", x)], [("y", want)])
        count("spec")


# ---- ops/ ---------------------------------------------------------------------

UNARY_OPS = ("Ceil", "Floor", "Sign")


def load_tables(ops_list):
    """Reads the version tables and the newest opset from list_ops's output."""
    global NEWEST_OPSET
    with open(ops_list) as f:
        text = f.read()
    for line in text.splitlines():
        key, value, *types = line.split(" ")
        if key == "max_opset":
            NEWEST_OPSET = int(value)
        else:
            VERSIONS.setdefault(key, {})[int(value)] = types[0].split(",")
    assert NEWEST_OPSET is not None, text
    assert set(UNARY_OPS + ("Clip", "Constant")) == set(VERSIONS), VERSIONS


def unary_graph(op, v, dtype, attrs=None, name=None):
    return Graph(name or op, v, [Node(op, ["x"], ["y"], name="the_" + op.lower(), attrs=attrs)],
                 [("x", dtype, ["n"])], [("y", dtype, ["n"])])


def gen_unary(root):
    for op in UNARY_OPS:
        for v, types in VERSIONS[op].items():
            for dtype in types:
                name = "%s_v%d_%s" % (op.lower(), v, dtype)
                write_case(root, name, unary_graph(op, v, dtype),
                           [[x] for x in length_sets(specials(dtype))])
                count("ops")
                if v == 1:  # the legacy attribute is part of version 1
                    write_case(root, name + "_consumed_inputs",
                               unary_graph(op, v, dtype, {"consumed_inputs": [0]}),
                               [[specials(dtype)]])
                    count("ops")


def clip_bounds(dtype):
    """(lo, hi) and (lo, hi) with lo > hi, as Python numbers."""
    if is_float(dtype):
        return (-2.5, 1.5), (2.0, -1.0)
    lo, hi = int_limits(dtype)
    if dtype in SIGNED:
        return (-(hi // 3) - 1, hi // 2 + 3), (5, -5)
    return (3, hi // 2 + 3), (10, 5)


def scalar_tens(dtype, v, shape=()):
    kind = object if dtype in INTS else np.float64
    return tens(dtype, np.full(shape, v, dtype=kind), list(shape))


def clip_case(v, dtype, variant):
    """Returns (graph, datasets) for Clip version v (>= 11) on dtype."""
    (lo, hi), (glo, ghi) = clip_bounds(dtype)
    x_in = ("x", dtype, ["n"])
    y_out = ("y", dtype, ["n"])
    inits = {}
    nodes = []
    inputs = [x_in]
    bound_feeds = []
    if variant == "min_gt_max":
        lo, hi = glo, ghi
    elif variant == "nan_min":
        lo = float("nan")
    elif variant == "nan_max":
        hi = float("nan")
    elif variant == "zero_min":
        lo, hi = 0.0, None
    elif variant == "zero_max":
        lo, hi = None, -0.0
    elif variant == "inf_bounds":
        lo, hi = float("-inf"), float("inf")
    elif variant == "extreme":
        lo, hi = int_limits(dtype)
    if variant in ("min_only", "min_only_empty_max"):
        hi = None
    if variant == "max_only":
        lo = None
    if variant in ("none", "none_empty_names"):
        lo = hi = None

    def bound(name, value):
        if value is None:
            return ""
        if variant == "const":
            nodes.append(Node("Constant", [], [name], name="const_" + name,
                              attrs={"value": scalar_tens(dtype, value)}))
        elif variant == "const_value_float":
            nodes.append(Node("Constant", [], [name], name="const_" + name,
                              attrs={"value_float": float(value)}))
        elif variant == "const_value_int":
            nodes.append(Node("Constant", [], [name], name="const_" + name,
                              attrs={"value_int": int(value)}))
        elif variant in ("inputs_scalar", "inputs_1"):
            shape = [] if variant == "inputs_scalar" else [1]
            inputs.append((name, dtype, shape))
            bound_feeds.append(scalar_tens(dtype, value, tuple(shape)))
        else:
            inits[name] = scalar_tens(dtype, value)
        return name

    lo_name = bound("clip_lo", lo)
    hi_name = bound("clip_hi", hi)
    if variant == "none":
        clip_inputs = ["x"]
    elif variant == "none_empty_names":
        clip_inputs = ["x", "", ""]
    elif variant == "min_only":
        clip_inputs = ["x", lo_name]
    elif variant == "min_only_empty_max":
        clip_inputs = ["x", lo_name, ""]
    elif variant == "max_only":
        clip_inputs = ["x", "", hi_name]
    else:
        clip_inputs = ["x", lo_name, hi_name]
    nodes.append(Node("Clip", clip_inputs, ["y"], name="the_clip"))
    g = Graph("clip_" + variant, v, nodes, inputs, [y_out], inits)
    base = specials(dtype)
    edges = [b for b in (lo, hi, glo, ghi) if b is not None and not
             (isinstance(b, float) and np.isnan(b))]
    x = with_values(base, dtype, around(dtype, edges))
    datasets = [[t] + bound_feeds for t in length_sets(x)]
    return g, datasets


def clip_variants(v, dtype):
    out = ["both", "min_only", "min_only_empty_max", "max_only", "none", "none_empty_names",
           "min_gt_max", "inputs_scalar", "inputs_1", "const"]
    if v >= 12 and dtype == "float":
        out.append("const_value_float")
    if v >= 12 and dtype == "int64":
        out.append("const_value_int")
    if is_float(dtype):
        out += ["nan_min", "nan_max", "zero_min", "zero_max", "inf_bounds"]
    else:
        out.append("extreme")
    return out


def clip_attr_case(v, dtype, variant):
    attrs = {}
    if variant in ("attrs", "min_attr", "consumed_inputs"):
        attrs["min"] = -2.5
    if variant in ("attrs", "max_attr", "consumed_inputs"):
        attrs["max"] = 1.5
    if variant == "min_gt_max":
        attrs = {"min": 2.0, "max": -1.0}
    if variant == "attrs_round":  # not exact in float16 / beyond its range
        attrs = {"min": -1.1, "max": 65520.0}
    if variant == "nan_attrs":  # a NaN bound is no bound (no default either)
        attrs = {"min": float("nan"), "max": float("nan")}
    if variant == "consumed_inputs":
        attrs["consumed_inputs"] = [0]
    g = Graph("clip_" + variant, v, [Node("Clip", ["x"], ["y"], name="the_clip", attrs=attrs)],
              [("x", dtype, ["n"])], [("y", dtype, ["n"])])
    edges = [-2.5, 1.5, 2.0, -1.0, -1.1, float(np.float32(-1.1)), 65504.0, 65519.0, 65520.0,
             65536.0, 3.4028234663852886e38, -3.4028234663852886e38, 1e39, -1e39]
    x = with_values(specials(dtype), dtype, around(dtype, edges))
    return g, [[t] for t in length_sets(x)]


def gen_clip(root):
    for v, types in VERSIONS["Clip"].items():
        for dtype in types:
            if v == 1:
                variants = ["attrs", "min_attr", "max_attr", "no_attrs", "consumed_inputs",
                            "attrs_round"]
            elif v == 6:
                variants = ["attrs", "min_attr", "max_attr", "no_attrs", "min_gt_max",
                            "attrs_round", "nan_attrs"]
            else:
                variants = clip_variants(v, dtype)
            for variant in variants:
                if v < 11:
                    g, ds = clip_attr_case(v, dtype, variant)
                else:
                    g, ds = clip_case(v, dtype, variant)
                write_case(root, "clip_v%d_%s_%s" % (v, dtype, variant), g, ds)
                count("ops")


def gen_constant(root):
    """Constant at each of its versions (1, 9, 11, 12, 13) feeding ops."""
    cases = []
    # Constant-1 and -9 come before Clip takes inputs: they feed Ceil/Sign.
    for opset, dtype in [(1, "float"), (6, "float16"), (9, "double"), (9, "int16"),
                         (10, "uint32")]:
        op = "Ceil" if is_float(dtype) and opset < 9 else "Sign"
        c = tens(dtype, [1, 0, 3] if dtype in INTS else [-1.5, 0.5, 2.25], [3])
        g = Graph("const", opset,
                  [Node("Constant", [], ["c"], name="the_const", attrs={"value": c}),
                   Node(op, ["c"], ["y"], name="use_const"),
                   Node(op, ["x"], ["z"], name="use_x")],
                  [("x", dtype, [3])], [("y", dtype, [3]), ("z", dtype, [3])])
        cases.append(("constant_opset%d_%s_%s" % (opset, dtype, op.lower()), g,
                      [[tens(dtype, [5, 0, 2] if dtype in INTS else [-0.5, 7.25, -3.0])]]))
    # Constant-11/12/13 as Clip bounds, by 'value', 'value_float', 'value_int'.
    for opset in (11, 12, 13):
        for dtype in (["float", "float16", "double"] + (["int64", "uint8"] if opset >= 12 else [])
                      + (["bfloat16"] if opset >= 13 else [])):
            kinds = ["value"]
            if opset >= 12 and dtype == "float":
                kinds.append("value_float")
            if opset >= 12 and dtype == "int64":
                kinds.append("value_int")
            for kind in kinds:
                if kind == "value":
                    a_lo = {"value": scalar_tens(dtype, -1 if dtype in INTS else -1.25)}
                    a_hi = {"value": scalar_tens(dtype, 3 if dtype in INTS else 3.5)}
                elif kind == "value_float":
                    a_lo, a_hi = {"value_float": -1.25}, {"value_float": 3.5}
                else:
                    a_lo, a_hi = {"value_int": -1}, {"value_int": 3}
                g = Graph("const", opset,
                          [Node("Constant", [], ["lo"], name="const_lo", attrs=a_lo),
                           Node("Constant", [], ["hi"], name="const_hi", attrs=a_hi),
                           Node("Clip", ["x", "lo", "hi"], ["y"], name="the_clip")],
                          [("x", dtype, [7])], [("y", dtype, [7])])
                xs = ([-5, -1, 0, 2, 3, 4, 9] if dtype == "int64" else
                      [0, 1, 2, 3, 4, 200, 255] if dtype == "uint8" else
                      [-9.5, -1.25, -1.0, 0.0, 3.5, 3.75, float("nan")])
                cases.append(("constant_opset%d_%s_%s" % (opset, dtype, kind), g,
                              [[tens(dtype, xs)]]))
    for name, g, ds in cases:
        write_case(root, name, g, ds)
        count("ops")


def gen_ops(root):
    d = os.path.join(root, "ops")
    os.makedirs(d)
    gen_unary(d)
    gen_clip(d)
    gen_constant(d)


# ---- graphs/ ------------------------------------------------------------------

def rand_floats(dtype, shape, seed, scale=3.0):
    rng = np.random.default_rng(seed_of(seed))
    v = rng.standard_normal(int(np.prod(shape, dtype=np.int64))) * scale
    return tens(dtype, v, shape)


def chain_nodes(x="x", lo="lo", hi="hi", out="y", prefix=""):
    return [Node("Ceil", [x], [prefix + "c"], name=prefix + "chain_ceil"),
            Node("Clip", [prefix + "c", lo, hi], [prefix + "k"], name=prefix + "chain_clip"),
            Node("Sign", [prefix + "k"], [out], name=prefix + "chain_sign")]


def f32_bounds(lo=-1.0, hi=2.0, dtype="float"):
    return {"lo": scalar_tens(dtype, lo), "hi": scalar_tens(dtype, hi)}


def const_bounds(dtype="float", lo=-1.0, hi=2.0):
    return [Node("Constant", [], ["lo"], name="const_lo", attrs={"value": scalar_tens(dtype, lo)}),
            Node("Constant", [], ["hi"], name="const_hi", attrs={"value": scalar_tens(dtype, hi)})]


def graph_cases():
    """Yields (name, graph, datasets[, encoding])."""
    S = [2, 3, 5]
    x = ("x", "float", S)

    # Ceil -> Clip -> Sign with Constant bounds, and with initializer bounds.
    yield ("chain_const_bounds",
           Graph("g", 13, const_bounds() + chain_nodes(), [x], [("y", "float", S)]),
           [[rand_floats("float", S, "chain1")]])
    yield ("chain_initializer_bounds",
           Graph("g", 13, chain_nodes(), [x], [("y", "float", S)], f32_bounds()),
           [[rand_floats("float", S, "chain2")]])
    # Every op, each Clip output also an output.
    yield ("all_four_ops",
           Graph("g", 13, const_bounds() + chain_nodes() +
                 [Node("Floor", ["k"], ["f"], name="floor_k")],
                 [x], [("y", "float", S), ("k", "float", S), ("f", "float", S)]),
           [[rand_floats("float", S, "all4")]])
    # One value used by several nodes (and by one node twice).
    yield ("fanout",
           Graph("g", 13,
                 [Node("Ceil", ["x"], ["a"], name="ceil_x"),
                  Node("Sign", ["a"], ["s"], name="sign_a"),
                  Node("Floor", ["a"], ["f"], name="floor_a"),
                  Node("Sign", ["x"], ["sx"], name="sign_x"),
                  Node("Clip", ["x", "lo", "lo"], ["same"], name="clip_same_bound")],
                 [x], [("s", "float", S), ("f", "float", S), ("sx", "float", S),
                       ("same", "float", S)],
                 {"lo": scalar_tens("float", 0.5)}),
           [[rand_floats("float", S, "fanout")]])
    # An intermediate value that is also a graph output (listed first).
    yield ("intermediate_output",
           Graph("g", 13, chain_nodes(), [x],
                 [("c", "float", S), ("y", "float", S), ("k", "float", S)], f32_bounds()),
           [[rand_floats("float", S, "inter")]])
    # Nodes listed out of order: the session must sort them.
    yield ("unsorted_nodes",
           Graph("g", 13, list(reversed(const_bounds() + chain_nodes() +
                                        [Node("Floor", ["y"], ["z"], name="floor_y")])),
                 [x], [("z", "float", S)]),
           [[rand_floats("float", S, "unsorted")]])
    # Bounds computed at run time by other nodes from graph inputs.
    yield ("computed_bounds",
           Graph("g", 13,
                 [Node("Clip", ["x", "flo", "chi"], ["y"], name="clip_computed"),
                  Node("Floor", ["lo_in"], ["flo"], name="floor_lo"),
                  Node("Ceil", ["hi_in"], ["chi"], name="ceil_hi")],
                 [x, ("lo_in", "float", []), ("hi_in", "float", [])], [("y", "float", S)]),
           [[rand_floats("float", S, "computed"), scalar_tens("float", -1.5),
             scalar_tens("float", 0.25)],
            [rand_floats("float", S, "computed2"), scalar_tens("float", 0.5),
             scalar_tens("float", -0.5)]])
    # Bounds as Constant of shape [1] and graph-input bounds of shape [1].
    yield ("bounds_shape1",
           Graph("g", 13,
                 [Node("Constant", [], ["lo"], name="const_lo1",
                       attrs={"value": tens("float", [-0.75], [1])}),
                  Node("Clip", ["x", "lo", "hi"], ["y"], name="clip_shape1")],
                 [x, ("hi", "float", [1])], [("y", "float", S)]),
           [[rand_floats("float", S, "shape1"), tens("float", [0.3], [1])]])
    yield ("bound_input_no_shape",
           Graph("g", 13, [Node("Clip", ["x", "lo"], ["y"], name="clip_unshaped")],
                 [x, ("lo", "float", None)], [("y", "float", S)]),
           [[rand_floats("float", S, "unsh1"), scalar_tens("float", -0.5)],
            [rand_floats("float", S, "unsh2"), tens("float", [0.5], [1])]])
    # Shapes: rank 0, zero-size, rank 8, rank 16 (ONYX_MAX_RANK).
    for name, shape in [("rank0", []), ("zero_size", [2, 0, 3]), ("zero_size_1d", [0]),
                        ("rank8", [2, 1, 3, 1, 2, 1, 1, 2]),
                        ("rank16", [1, 2, 1, 1, 3, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 2])]:
        for dtype in ("float", "float16", "bfloat16", "int32"):
            nodes = ([Node("Clip", ["x", "lo", "hi"], ["k"], name="clip_int"),
                      Node("Sign", ["k"], ["y"], name="sign_int")] if dtype == "int32"
                     else chain_nodes() + [Node("Floor", ["x"], ["f"], name="floor_x")])
            outs = [("y", dtype, shape)] + ([] if dtype == "int32" else [("f", dtype, shape)])
            if dtype == "int32":
                n = int(np.prod(shape, dtype=np.int64))
                xs = tens(dtype, [((i * 7919) % 201) - 100 for i in range(n)], shape)
                b = {"lo": scalar_tens(dtype, -20), "hi": scalar_tens(dtype, 50)}
            else:
                xs = rand_floats(dtype, shape, name + dtype)
                b = f32_bounds(dtype=dtype)
            datasets = [[xs]]
            if name == "rank0":
                datasets += [[scalar_tens(dtype, v)] for v in
                             ([-7, 0, 99] if dtype == "int32" else [-0.5, 2.5, float("nan")])]
            yield ("%s_%s" % (name, dtype), Graph("g", 13, nodes, [("x", dtype, shape)], outs, b),
                   datasets)
    # Symbolic dims: one model, data sets of different sizes (0 included).
    sym = ["N", 3]
    yield ("symbolic_dims",
           Graph("g", 13, chain_nodes() + [Node("Floor", ["x"], ["f"], name="floor_x")],
                 [("x", "float", sym)], [("y", "float", sym), ("f", "float", sym)], f32_bounds()),
           [[rand_floats("float", [n, 3], "sym%d" % n)] for n in (2, 5, 0, 1, 33)])
    yield ("symbolic_dims_two_inputs",
           Graph("g", 13, [Node("Ceil", ["a"], ["ca"], name="ceil_a"),
                           Node("Floor", ["b"], ["fb"], name="floor_b")],
                 [("a", "float", ["B", "T"]), ("b", "double", ["T"])],
                 [("ca", "float", ["B", "T"]), ("fb", "double", ["T"])]),
           [[rand_floats("float", [2, 4], "ab1"), rand_floats("double", [4], "ab2")],
            [rand_floats("float", [3, 1], "ab3"), rand_floats("double", [1], "ab4")]])
    # Unknown dims (neither value nor name), and no shape at all.
    yield ("unknown_dims",
           Graph("g", 13, [Node("Ceil", ["x"], ["y"], name="ceil_x")],
                 [("x", "float", [None, 4])], [("y", "float", [None, 4])]),
           [[rand_floats("float", [n, 4], "unk%d" % n)] for n in (1, 3)])
    yield ("no_shape",
           Graph("g", 13, chain_nodes(), [("x", "float", None)], [("y", "float", None)],
                 f32_bounds()),
           [[rand_floats("float", s, "noshape%d" % len(s))] for s in ([], [5], [2, 3, 4], [0])])
    # Graph outputs that are a graph input, a Constant and an initializer.
    yield ("passthrough_input",
           Graph("g", 13, [Node("Ceil", ["x"], ["y"], name="ceil_x")], [x],
                 [("y", "float", S), ("x", "float", S)]),
           [[rand_floats("float", S, "pass")]])
    yield ("passthrough_only",
           Graph("g", 13, [], [("x", "int8", [4])], [("x", "int8", [4])]),
           [[tens("int8", [-128, 0, 5, 127])]])
    yield ("constant_output",
           Graph("g", 13, [Node("Constant", [], ["c"], name="const_c",
                                attrs={"value": tens("int16", [3, -4, 0], [3])}),
                           Node("Sign", ["x"], ["y"], name="sign_x")],
                 [("x", "int16", [3])], [("y", "int16", [3]), ("c", "int16", [3])]),
           [[tens("int16", [-32768, 0, 32767])]])
    yield ("initializer_output",
           Graph("g", 13, [Node("Sign", ["x"], ["y"], name="sign_x")],
                 [("x", "double", [2])], [("w", "double", [2]), ("y", "double", [2])],
                 {"w": tens("double", [1.5, -2.0])}),
           [[tens("double", [-0.0, 3.0])]])
    # Several data sets with a fixed shape.
    yield ("several_datasets",
           Graph("g", 13, chain_nodes(), [x], [("y", "float", S), ("c", "float", S)],
                 f32_bounds()),
           [[rand_floats("float", S, "sev%d" % i, scale=1.0 + i)] for i in range(4)])
    # Version resolution: the same op types at older and the newest opsets.
    yield ("opset%d_chain" % NEWEST_OPSET,
           Graph("g", NEWEST_OPSET, const_bounds() + chain_nodes() +
                 [Node("Floor", ["x"], ["f"], name="floor_x")], [x],
                 [("y", "float", S), ("f", "float", S)]),
           [[rand_floats("float", S, "o28")]])
    yield ("opset17_bfloat16_chain",
           Graph("g", 17, const_bounds("bfloat16") + chain_nodes() +
                 [Node("Floor", ["x"], ["f"], name="floor_x")], [("x", "bfloat16", S)],
                 [("y", "bfloat16", S), ("f", "bfloat16", S)]),
           [[rand_floats("bfloat16", S, "o17")]])
    yield ("opset10_chain",
           Graph("g", 10, [Node("Ceil", ["x"], ["c"], name="ceil6"),
                           Node("Clip", ["c"], ["k"], name="clip6", attrs={"min": -1.0}),
                           Node("Sign", ["k"], ["y"], name="sign9"),
                           Node("Floor", ["x"], ["f"], name="floor6"),
                           Node("Clip", ["x"], ["d"], name="clip6_default")],
                 [("x", "double", S)], [("y", "double", S), ("f", "double", S),
                                        ("d", "double", S)]),
           [[rand_floats("double", S, "o10", scale=1e38)]])
    yield ("opset7_chain",
           Graph("g", 7, [Node("Ceil", ["x"], ["c"], name="ceil6"),
                          Node("Clip", ["c"], ["y"], name="clip6", attrs={"max": 2.0})],
                 [("x", "float16", S)], [("y", "float16", S)]),
           [[rand_floats("float16", S, "o7")]])
    yield ("int_chain_opset12",
           Graph("g", 12, [Node("Clip", ["x", "lo"], ["k"], name="clip12"),
                           Node("Sign", ["k"], ["y"], name="sign9")],
                 [("x", "uint8", [6])], [("y", "uint8", [6]), ("k", "uint8", [6])],
                 {"lo": scalar_tens("uint8", 0)}),
           [[tens("uint8", [0, 1, 2, 128, 254, 255])]])
    # Large tensors (threads, SIMD bodies).
    big = [(1 << 18) + 7]
    yield ("large_float",
           Graph("g", 13, chain_nodes() + [Node("Floor", ["x"], ["f"], name="floor_x")],
                 [("x", "float", big)], [("y", "float", big), ("k", "float", big)],
                 f32_bounds(-2.0, 3.0)),
           [[rand_floats("float", big, "bigf", scale=10.0)]])
    yield ("large_int16",
           Graph("g", 13, [Node("Clip", ["x", "lo", "hi"], ["k"], name="clip_big"),
                           Node("Sign", ["k"], ["y"], name="sign_big")],
                 [("x", "int16", big)], [("y", "int16", big), ("k", "int16", big)],
                 {"lo": scalar_tens("int16", -1000), "hi": scalar_tens("int16", 20000)}),
           [[Tens("int16", np.random.default_rng(seed_of("bigi")).integers(
               -32768, 32767, size=big, endpoint=True, dtype=np.int16))]])
    # Node domain written out as "ai.onnx"; an unused extra opset import.
    g = Graph("g", 13, chain_nodes(), [x], [("y", "float", S)], f32_bounds())
    for n in g.nodes:
        n.domain = "ai.onnx"
    yield ("domain_ai_onnx", g, [[rand_floats("float", S, "dom")]])
    yield ("extra_domain_import",
           Graph("g", 13, chain_nodes(), [x], [("y", "float", S)], f32_bounds(),
                 extra_opsets=[("com.example", 1)]),
           [[rand_floats("float", S, "extra")]])
    # Input binding is by position among the non-initializer inputs.
    yield ("unused_input",
           Graph("g", 13, [Node("Floor", ["b"], ["y"], name="floor_b")],
                 [("a", "float", [2]), ("b", "float", [3])], [("y", "float", [3])]),
           [[tens("float", [1.5, 2.5]), tens("float", [-0.5, 0.5, 9.75])]])
    yield ("initializer_listed_as_input",
           Graph("g", 13, [Node("Clip", ["x", "lo", "hi"], ["y"], name="clip_x"),
                           Node("Sign", ["z"], ["s"], name="sign_z")],
                 [x, ("lo", "float", []), ("z", "int64", [2]), ("hi", "float", [])],
                 [("y", "float", S), ("s", "int64", [2])], f32_bounds(-0.5, 0.5)),
           [[rand_floats("float", S, "initin"), tens("int64", [-(2 ** 63), 2 ** 63 - 1])]])
    # Nodes whose outputs nothing uses.
    yield ("dead_nodes",
           Graph("g", 13, chain_nodes() + [
               Node("Floor", ["c"], ["dead1"], name="dead_floor"),
               Node("Sign", ["dead1"], ["dead2"], name="dead_sign"),
               Node("Constant", [], ["dead3"], name="dead_const",
                    attrs={"value": tens("float", [1.0, 2.0])})],
                 [x], [("y", "float", S)], f32_bounds()),
           [[rand_floats("float", S, "dead")]])
    # No run inputs at all: everything comes from initializers and Constants.
    yield ("no_inputs",
           Graph("g", 13, [Node("Clip", ["w", "lo", "hi"], ["y"], name="clip_w"),
                           Node("Constant", [], ["c"], name="const_c",
                                attrs={"value": tens("float16", [-1.5, 0.25, 7.5])}),
                           Node("Ceil", ["c"], ["z"], name="ceil_c")],
                 [], [("y", "float", [4]), ("z", "float16", [3])],
                 {"w": tens("float", [-3.0, -0.0, 0.5, 9.0]), **f32_bounds()}),
           [[]])
    # A long chain (buffer reuse).
    nodes, prev = [], "x"
    for i in range(12):
        op = ["Ceil", "Sign", "Floor", "Clip"][i % 4]
        ins = [prev, "lo"] if op == "Clip" else [prev]
        nodes.append(Node(op, ins, ["v%d" % i], name="long_%d" % i))
        prev = "v%d" % i
    yield ("long_chain",
           Graph("g", 13, nodes, [x], [(prev, "float", S)], {"lo": scalar_tens("float", 0.0)}),
           [[rand_floats("float", S, "long")]])
    # Typed protobuf fields (float_data, int32_data, ...) instead of raw_data,
    # in the initializers and in the .pb files.
    for dtype in FLOATS + ["bfloat16"] + INTS:
        (lo, hi), _ = clip_bounds(dtype)
        xs = with_values(specials(dtype), dtype, around(dtype, [lo, hi]))
        yield ("typed_fields_%s" % dtype,
               Graph("g", 13, [Node("Clip", ["x", "lo", "hi"], ["k"], name="clip_typed"),
                               Node("Sign", ["x"], ["y"], name="sign_typed")],
                     [("x", dtype, ["n"])], [("k", dtype, ["n"]), ("y", dtype, ["n"])],
                     {"lo": scalar_tens(dtype, lo), "hi": scalar_tens(dtype, hi)},
                     init_encoding="typed"),
               [[xs]], "typed")


def gen_graphs(root):
    d = os.path.join(root, "graphs")
    os.makedirs(d)
    for case in graph_cases():
        name, g, ds = case[:3]
        enc = case[3] if len(case) > 3 else "raw"
        write_case(d, name, g, ds, enc)
        count("graphs")
    gen_unpacked(d)
    gen_external(d)


def varint(v):
    out = bytearray()
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire):
    return varint((field << 3) | wire)


def unpacked_float_tensor(name, values, dims):
    """A TensorProto whose float_data is written unpacked (one tag per
    element), which protobuf parsers must accept."""
    b = b"".join(key(1, 0) + varint(d) for d in dims)
    b += key(2, 0) + varint(TensorProto.FLOAT)
    for v in values:
        b += key(4, 5) + struct.pack("<f", v)
    nb = name.encode()
    b += key(8, 2) + varint(len(nb)) + nb
    return b


def gen_unpacked(d):
    g = Graph("g", 13, [Node("Floor", ["x"], ["y"], name="floor_x")],
              [("x", "float", [5])], [("y", "float", [5])])
    xs = [-2.5, -0.0, 0.5, 1e30, 7.75]
    case = write_case(d, "unpacked_float_data", g, [])
    ds = os.path.join(case, "test_data_set_0")
    os.makedirs(ds)
    with open(os.path.join(ds, "input_0.pb"), "wb") as f:
        f.write(unpacked_float_tensor("x", xs, [5]))
    y = ref_floor(tens("float", xs))
    with open(os.path.join(ds, "output_0.pb"), "wb") as f:
        f.write(unpacked_float_tensor("y", [float(v) for v in y.arr], [5]))
    count("graphs")


def external(t, name, location, offset, length):
    p = tensor_proto(t, name)
    p.ClearField("raw_data")
    p.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", str(offset)), ("length", str(length))):
        e = p.external_data.add()
        e.key, e.value = k, v
    return p


def gen_external(d):
    """Clip bounds stored in an external data file next to the model."""
    case = os.path.join(d, "external_data_bounds")
    os.makedirs(case)
    lo, hi = tens("double", -1.5, []), tens("double", 2.0, [])
    blob = b"ONYX" * 4 + lo.arr.tobytes() + hi.arr.tobytes() + b"tail"
    with open(os.path.join(case, "bounds.bin"), "wb") as f:
        f.write(blob)
    g = Graph("g", 13, [Node("Clip", ["x", "lo", "hi"], ["y"], name="clip_ext")],
              [("x", "double", [6])], [("y", "double", [6])])
    m = g.model()
    m.graph.initializer.extend([external(lo, "lo", "bounds.bin", 16, 8),
                                external(hi, "hi", "bounds.bin", 24, 8)])
    with open(os.path.join(case, "model.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    x = tens("double", [-3.0, -1.5, 0.0, 2.0, 2.5, float("nan")])
    write_dataset(case, 0, [("x", x)], [("y", ref_clip(x, np.float64(-1.5), np.float64(2.0)))])
    count("graphs")


# ---- bad/ ---------------------------------------------------------------------

def vi(name, dtype, shape):
    et = dtype if isinstance(dtype, int) else onnx_type(dtype)
    return helper.make_tensor_value_info(name, et, shape)


def model(nodes, inputs, outputs, inits=(), opset=13, ir=7, opsets=None):
    g = helper.make_graph(nodes, "bad", inputs, outputs, list(inits))
    ops = opsets if opsets is not None else [helper.make_opsetid("", opset)]
    m = helper.make_model(g, opset_imports=ops, producer_name="onyx-tests")
    m.ir_version = ir
    return m


def ceil_model(**kw):
    return model([helper.make_node("Ceil", ["x"], ["y"], name="bad_ceil")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])], **kw)


def clip_with_bound(lo_proto, dtype="float", opset=13):
    return model([helper.make_node("Clip", ["x", lo_proto.name], ["y"], name="bad_clip")],
                 [vi("x", dtype, [3])], [vi("y", dtype, [3])], [lo_proto], opset=opset)


def raw_tensor(name, data_type, dims, raw=None):
    p = TensorProto()
    p.name = name
    p.data_type = data_type
    p.dims.extend(dims)
    if raw is not None:
        p.raw_data = raw
    return p


F = TensorProto.FLOAT  # the element type most bad cases use


def bad_header_cases():
    """The model header: IR version and opset imports."""
    m = ceil_model()
    m.ClearField("ir_version")
    yield "ir_version_missing", m, "IR_VERSION", ["ir_version"], None
    yield "ir_version_too_new", ceil_model(ir=99), "IR_VERSION", ["99"], None
    yield "ir_version_too_old", ceil_model(ir=2), "IR_VERSION", ["2"], None
    yield ("opset_missing", ceil_model(opsets=[helper.make_opsetid("com.example", 1)]),
           "OPSET", ["ai.onnx"], None)
    yield ("opset_none", ceil_model(opsets=[]), "OPSET", ["ai.onnx"], None)
    yield ("opset_too_new", ceil_model(opset=99), "OPSET", ["99", str(NEWEST_OPSET)], None)
    yield ("opset_zero", ceil_model(opset=0), "OPSET", [], None)
    yield ("opset_negative", ceil_model(opset=-1), "OPSET", ["-1"], None)
    yield ("opset_duplicate", ceil_model(opsets=[helper.make_opsetid("", 13),
                                                 helper.make_opsetid("", 12)]),
           "OPSET", ["ai.onnx"], None)
    yield ("opset_duplicate_alias", ceil_model(opsets=[helper.make_opsetid("", 13),
                                                       helper.make_opsetid("ai.onnx", 13)]),
           "OPSET", ["ai.onnx"], None)


def bad_parse_cases():
    """Bytes that are no model."""
    good = ceil_model().SerializeToString()
    yield "truncated", good[:len(good) - 5], "PARSE", [], None
    yield "garbage", b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "PARSE", [], None


def bad_ops_cases():
    """Ops, domains and versions onyx does not support."""
    yield ("unknown_op", model([helper.make_node("Foo", ["x"], ["y"], name="bad_foo")],
                               [vi("x", "float", [3])], [vi("y", "float", [3])]),
           "UNSUPPORTED_OP", ["Foo", "bad_foo"], None)
    yield ("unknown_domain",
           model([helper.make_node("Ceil", ["x"], ["y"], name="bad_ceil", domain="com.example")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])],
                 opsets=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)]),
           "UNSUPPORTED_OP", ["com.example", "bad_ceil", "Ceil"], None)
    yield ("unknown_domain_not_imported",
           model([helper.make_node("Ceil", ["x"], ["y"], name="bad_ceil", domain="com.example")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])]),
           "UNSUPPORTED_OP", ["com.example", "bad_ceil"], None)
    yield ("domain_ai_onnx_ml",
           model([helper.make_node("Ceil", ["x"], ["y"], name="bad_ceil", domain="ai.onnx.ml")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])],
                 opsets=[helper.make_opsetid("", 13), helper.make_opsetid("ai.onnx.ml", 3)]),
           "UNSUPPORTED_OP", ["ai.onnx.ml", "bad_ceil"], None)
    yield ("sign_at_opset8", model([helper.make_node("Sign", ["x"], ["y"], name="bad_sign")],
                                   [vi("x", "float", [3])], [vi("y", "float", [3])],
                                   opset=8, ir=3),
           "UNSUPPORTED_OP", ["Sign", "bad_sign", "8"], None)


def bad_arity_cases():
    """Nodes with the wrong number of inputs or outputs."""
    yield ("ceil_two_inputs",
           model([helper.make_node("Ceil", ["x", "x"], ["y"], name="bad_ceil")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])]),
           "ARITY", ["Ceil", "bad_ceil"], None)
    yield ("ceil_no_input",
           model([helper.make_node("Ceil", [], ["y"], name="bad_ceil")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])]),
           "ARITY", ["Ceil", "bad_ceil"], None)
    yield ("ceil_two_outputs",
           model([helper.make_node("Ceil", ["x"], ["y", "y2"], name="bad_ceil")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])]),
           "ARITY", ["Ceil", "bad_ceil"], None)
    yield ("sign_no_output",
           model([helper.make_node("Sign", ["x"], [], name="bad_sign"),
                  helper.make_node("Ceil", ["x"], ["y"], name="ok_ceil")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])]),
           "ARITY", ["Sign", "bad_sign"], None)
    yield ("clip11_four_inputs",
           model([helper.make_node("Clip", ["x", "lo", "hi", "hi"], ["y"], name="bad_clip")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])],
                 [helper.make_tensor("lo", F, [], [0.0]), helper.make_tensor("hi", F, [], [1.0])],
                 opset=11, ir=6),
           "ARITY", ["Clip", "bad_clip"], None)
    yield ("clip6_two_inputs",
           model([helper.make_node("Clip", ["x", "lo"], ["y"], name="bad_clip")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])],
                 [helper.make_tensor("lo", F, [], [0.0])], opset=6),
           "ARITY", ["Clip", "bad_clip"], None)
    yield ("ceil_empty_input",
           model([helper.make_node("Ceil", [""], ["y"], name="bad_ceil")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])]),
           "ARITY", ["Ceil", "bad_ceil"], None)
    yield ("clip_empty_x",
           model([helper.make_node("Clip", ["", "lo"], ["y"], name="bad_clip")],
                 [vi("x", "float", [3]), vi("lo", "float", [])], [vi("y", "float", [3])]),
           "ARITY", ["Clip", "bad_clip"], None)
    yield ("ceil_empty_output",
           model([helper.make_node("Ceil", ["x"], [""], name="bad_ceil"),
                  helper.make_node("Floor", ["x"], ["y"], name="ok_floor")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])]),
           "ARITY", ["Ceil", "bad_ceil"], None)


def bad_attributes_cases():
    """Unknown, repeated or mistyped attributes."""
    yield ("ceil13_unknown_attribute",
           model([helper.make_node("Ceil", ["x"], ["y"], name="bad_ceil", alpha=1.0)],
                 [vi("x", "float", [3])], [vi("y", "float", [3])]),
           "ATTRIBUTE", ["alpha", "bad_ceil"], None)
    yield ("ceil6_consumed_inputs",
           model([helper.make_node("Ceil", ["x"], ["y"], name="bad_ceil", consumed_inputs=[0])],
                 [vi("x", "float", [3])], [vi("y", "float", [3])], opset=6, ir=3),
           "ATTRIBUTE", ["consumed_inputs", "bad_ceil"], None)
    yield ("clip11_min_attribute",
           model([helper.make_node("Clip", ["x"], ["y"], name="bad_clip", min=0.0)],
                 [vi("x", "float", [3])], [vi("y", "float", [3])], opset=11, ir=6),
           "ATTRIBUTE", ["min", "bad_clip"], None)
    yield ("clip6_min_int",
           model([helper.make_node("Clip", ["x"], ["y"], name="bad_clip", min=1)],
                 [vi("x", "float", [3])], [vi("y", "float", [3])], opset=6, ir=3),
           "ATTRIBUTE", ["min", "bad_clip"], None)
    yield ("clip6_min_floats",
           model([helper.make_node("Clip", ["x"], ["y"], name="bad_clip", min=[1.0])],
                 [vi("x", "float", [3])], [vi("y", "float", [3])], opset=6, ir=3),
           "ATTRIBUTE", ["min", "bad_clip"], None)
    yield ("sign13_unknown_attribute",
           model([helper.make_node("Sign", ["x"], ["y"], name="bad_sign", foo=1)],
                 [vi("x", "float", [3])], [vi("y", "float", [3])]),
           "ATTRIBUTE", ["foo", "bad_sign"], None)
    n = helper.make_node("Clip", ["x"], ["y"], name="bad_clip", min=0.0)
    n.attribute.extend([helper.make_attribute("min", 1.0)])
    yield ("clip6_min_twice", model([n], [vi("x", "float", [3])], [vi("y", "float", [3])],
                                    opset=6, ir=3),
           "ATTRIBUTE", ["min", "bad_clip"], None)
    n = helper.make_node("Clip", ["x"], ["y"], name="bad_clip")
    a = n.attribute.add()
    a.name, a.ref_attr_name, a.type = "min", "outer_min", helper.AttributeProto.FLOAT
    yield ("attribute_reference_outside_function",
           model([n], [vi("x", "float", [3])], [vi("y", "float", [3])], opset=6, ir=3),
           "ATTRIBUTE", ["min", "bad_clip"], None)


def bad_constants_cases():
    """Constant nodes without a usable value."""
    cx = [vi("x", "float", [3])]
    yield ("constant_without_value",
           model([helper.make_node("Constant", [], ["lo"], name="bad_const"),
                  helper.make_node("Clip", ["x", "lo"], ["y"], name="clip_x")],
                 cx, [vi("y", "float", [3])]),
           "ATTRIBUTE", ["bad_const"], None)
    yield ("constant_two_values",
           model([helper.make_node("Constant", [], ["lo"], name="bad_const", value_float=1.0,
                                   value=helper.make_tensor("v", F, [], [1.0])),
                  helper.make_node("Clip", ["x", "lo"], ["y"], name="clip_x")],
                 cx, [vi("y", "float", [3])]),
           "ATTRIBUTE", ["bad_const"], None)
    yield ("constant11_value_float",
           model([helper.make_node("Constant", [], ["lo"], name="bad_const", value_float=1.0),
                  helper.make_node("Clip", ["x", "lo"], ["y"], name="clip_x")],
                 cx, [vi("y", "float", [3])], opset=11, ir=6),
           "ATTRIBUTE", ["value_float", "bad_const"], None)
    yield ("constant_value_wrong_type",
           model([helper.make_node("Constant", [], ["lo"], name="bad_const", value=1.0),
                  helper.make_node("Clip", ["x", "lo"], ["y"], name="clip_x")],
                 cx, [vi("y", "float", [3])]),
           "ATTRIBUTE", ["value", "bad_const"], None)
    yield ("constant_value_raw_data_too_short",
           model([helper.make_node("Constant", [], ["lo"], name="bad_const",
                                   value=raw_tensor("", F, [], b"\0")),
                  helper.make_node("Clip", ["x", "lo"], ["y"], name="clip_x")],
                 cx, [vi("y", "float", [3])]),
           "TENSOR_DATA", ["bad_const"], None)
    yield ("constant1_int32",
           model([helper.make_node("Constant", [], ["c"], name="bad_const",
                                   value=helper.make_tensor("v", TensorProto.INT32, [2], [1, 2])),
                  helper.make_node("Ceil", ["x"], ["y"], name="ok_ceil")],
                 cx, [vi("y", "float", [3]), vi("c", "int32", [2])], opset=1, ir=3),
           "TYPE", ["bad_const", "int32"], None)
    yield ("constant_value_string",
           model([helper.make_node("Constant", [], ["c"], name="bad_const", value_string="abc"),
                  helper.make_node("Ceil", ["x"], ["y"], name="ok_ceil")],
                 cx, [vi("y", "float", [3]), vi("c", TensorProto.STRING, [])]),
           "TYPE", ["bad_const"], None)


def bad_values_cases():
    """Values undefined, defined twice, or in a cycle."""
    yield ("node_input_undefined",
           model([helper.make_node("Ceil", ["nowhere"], ["y"], name="bad_ceil")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])]),
           "UNDEFINED_VALUE", ["nowhere", "bad_ceil"], None)
    yield ("clip_bound_undefined",
           model([helper.make_node("Clip", ["x", "lo_nowhere"], ["y"], name="bad_clip")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])]),
           "UNDEFINED_VALUE", ["lo_nowhere", "bad_clip"], None)
    yield ("graph_output_undefined",
           model([helper.make_node("Ceil", ["x"], ["y"], name="ok_ceil")],
                 [vi("x", "float", [3])], [vi("y", "float", [3]), vi("ghost", "float", [3])]),
           "UNDEFINED_VALUE", ["ghost"], None)
    yield ("two_producers",
           model([helper.make_node("Ceil", ["x"], ["dup_value"], name="first_ceil"),
                  helper.make_node("Floor", ["x"], ["dup_value"], name="second_floor")],
                 [vi("x", "float", [3])], [vi("dup_value", "float", [3])]),
           "DUPLICATE_VALUE", ["dup_value"], None)
    yield ("node_redefines_graph_input",
           model([helper.make_node("Ceil", ["x"], ["in_b"], name="bad_ceil")],
                 [vi("x", "float", [3]), vi("in_b", "float", [3])], [vi("in_b", "float", [3])]),
           "DUPLICATE_VALUE", ["in_b", "bad_ceil"], None)
    yield ("node_redefines_initializer",
           model([helper.make_node("Ceil", ["x"], ["init_w"], name="bad_ceil")],
                 [vi("x", "float", [3])], [vi("init_w", "float", [3])],
                 [helper.make_tensor("init_w", F, [3], [1.0, 2.0, 3.0])]),
           "DUPLICATE_VALUE", ["init_w", "bad_ceil"], None)
    yield ("graph_input_twice",
           model([helper.make_node("Ceil", ["x_twice"], ["y"], name="ok_ceil")],
                 [vi("x_twice", "float", [3]), vi("x_twice", "float", [3])],
                 [vi("y", "float", [3])]),
           "DUPLICATE_VALUE", ["x_twice"], None)
    yield ("initializer_twice",
           model([helper.make_node("Clip", ["x", "w_twice"], ["y"], name="ok_clip")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])],
                 [helper.make_tensor("w_twice", F, [], [0.0]),
                  helper.make_tensor("w_twice", F, [], [1.0])]),
           "DUPLICATE_VALUE", ["w_twice"], None)
    yield ("cycle",
           model([helper.make_node("Ceil", ["x"], ["a"], name="cyc_in"),
                  helper.make_node("Clip", ["a", "d"], ["b"], name="cyc_clip"),
                  helper.make_node("Floor", ["b"], ["c"], name="cyc_floor"),
                  helper.make_node("Ceil", ["c"], ["d"], name="cyc_ceil"),
                  helper.make_node("Sign", ["b"], ["y"], name="cyc_out")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])]),
           "CYCLE", [], None)
    yield ("cycle_self",
           model([helper.make_node("Ceil", ["x"], ["a"], name="ok_ceil"),
                  helper.make_node("Clip", ["a", "s"], ["s"], name="self_clip")],
                 [vi("x", "float", [3])], [vi("s", "float", [3])]),
           "CYCLE", ["self_clip"], None)


def bad_types_cases():
    """Element types an op or a declaration does not allow."""
    yield ("ceil_int32",
           model([helper.make_node("Ceil", ["x"], ["y"], name="bad_ceil")],
                 [vi("x", "int32", [3])], [vi("y", "int32", [3])]),
           "TYPE", ["int32", "Ceil", "bad_ceil"], None)
    yield ("clip11_int32",
           model([helper.make_node("Clip", ["x"], ["y"], name="bad_clip")],
                 [vi("x", "int32", [3])], [vi("y", "int32", [3])], opset=11, ir=6),
           "TYPE", ["int32", "Clip", "bad_clip", "11"], None)
    yield ("clip12_bfloat16",
           model([helper.make_node("Clip", ["x"], ["y"], name="bad_clip")],
                 [vi("x", "bfloat16", [3])], [vi("y", "bfloat16", [3])], opset=12),
           "TYPE", ["bfloat16", "Clip", "bad_clip", "12"], None)
    yield ("ceil12_bfloat16",
           model([helper.make_node("Ceil", ["x"], ["y"], name="bad_ceil")],
                 [vi("x", "bfloat16", [3])], [vi("y", "bfloat16", [3])], opset=12),
           "TYPE", ["bfloat16", "Ceil", "bad_ceil", "12"], None)
    yield ("sign9_bfloat16",
           model([helper.make_node("Sign", ["x"], ["y"], name="bad_sign")],
                 [vi("x", "bfloat16", [3])], [vi("y", "bfloat16", [3])], opset=9, ir=4),
           "TYPE", ["bfloat16", "Sign", "bad_sign"], None)
    yield ("sign13_string",
           model([helper.make_node("Sign", ["x_str"], ["y"], name="bad_sign")],
                 [vi("x_str", TensorProto.STRING, [3])], [vi("y", TensorProto.STRING, [3])]),
           "TYPE", ["x_str"], None)
    yield ("sign13_bool",
           model([helper.make_node("Sign", ["x_bool"], ["y"], name="bad_sign")],
                 [vi("x_bool", TensorProto.BOOL, [3])], [vi("y", TensorProto.BOOL, [3])]),
           "TYPE", ["x_bool"], None)
    yield ("graph_input_no_type",
           model([helper.make_node("Ceil", ["x_untyped"], ["y"], name="ok_ceil")],
                 [helper.make_value_info("x_untyped", onnx.TypeProto())],
                 [vi("y", "float", [3])]),
           "TYPE", ["x_untyped"], None)
    yield ("graph_input_string",
           model([helper.make_node("Ceil", ["x"], ["y"], name="ok_ceil")],
                 [vi("x", "float", [3]), vi("s_in", TensorProto.STRING, [2])],
                 [vi("y", "float", [3])]),
           "TYPE", ["s_in"], None)
    yield ("graph_output_type_mismatch",
           model([helper.make_node("Ceil", ["x"], ["y_out"], name="ok_ceil")],
                 [vi("x", "float", [3])], [vi("y_out", "double", [3])]),
           "TYPE", ["y_out"], None)
    yield ("clip_bound_other_type",
           clip_with_bound(helper.make_tensor("lo_f64", TensorProto.DOUBLE, [], [0.0])),
           "TYPE", ["bad_clip", "lo_f64", "double"], None)
    yield ("clip_bound_other_type_input",
           model([helper.make_node("Clip", ["x", "", "hi_i32"], ["y"], name="bad_clip")],
                 [vi("x", "float", [3]), vi("hi_i32", "int32", [])], [vi("y", "float", [3])]),
           "TYPE", ["bad_clip", "hi_i32", "int32"], None)
    yield ("clip_bound_value_int_for_int32",
           model([helper.make_node("Constant", [], ["lo_i64"], name="const_lo", value_int=0),
                  helper.make_node("Clip", ["x", "lo_i64"], ["y"], name="bad_clip")],
                 [vi("x", "int32", [3])], [vi("y", "int32", [3])]),
           "TYPE", ["bad_clip", "lo_i64", "int64"], None)
    yield ("clip_bound_value_float_for_double",
           model([helper.make_node("Constant", [], ["hi_f32"], name="const_hi", value_float=1.0),
                  helper.make_node("Clip", ["x", "", "hi_f32"], ["y"], name="bad_clip")],
                 [vi("x", "double", [3])], [vi("y", "double", [3])]),
           "TYPE", ["bad_clip", "hi_f32", "double"], None)
    yield ("initializer_unknown_dtype",
           clip_with_bound(raw_tensor("lo_odd", 99, [], b"\0\0\0\0")),
           "TYPE", ["lo_odd"], None)
    yield ("initializer_string",
           model([helper.make_node("Ceil", ["x"], ["y"], name="ok_ceil")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])],
                 [helper.make_tensor("w_str", TensorProto.STRING, [1], [b"abc"])]),
           "TYPE", ["w_str"], None)


def bad_clip_bounds_cases():
    """Clip bounds that are not scalars."""
    yield ("clip_bound_not_scalar",
           clip_with_bound(helper.make_tensor("lo_vec", F, [2], [0.0, 1.0])),
           "SHAPE", ["bad_clip", "lo_vec"], None)
    yield ("clip_bound_input_not_scalar",
           model([helper.make_node("Clip", ["x", "lo_in"], ["y"], name="bad_clip")],
                 [vi("x", "float", [3]), vi("lo_in", "float", [2])], [vi("y", "float", [3])]),
           "SHAPE", ["bad_clip", "lo_in"], None)
    yield ("clip_bound_constant_not_scalar",
           model([helper.make_node("Constant", [], ["lo_c"], name="const_lo",
                                   value=helper.make_tensor("v", F, [2], [0.0, 1.0])),
                  helper.make_node("Clip", ["x", "lo_c"], ["y"], name="bad_clip")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])]),
           "SHAPE", ["bad_clip", "lo_c"], None)


def bad_tensor_data_cases():
    """Initializers whose data does not match their type or shape."""
    yield ("raw_data_too_short", clip_with_bound(raw_tensor("w_short", F, [], b"\0\0")),
           "TENSOR_DATA", ["w_short"], None)
    yield ("raw_data_too_long", clip_with_bound(raw_tensor("w_long", F, [], b"\0" * 8)),
           "TENSOR_DATA", ["w_long"], None)
    t = raw_tensor("w_count", F, [])
    t.float_data.extend([1.0, 2.0])
    yield "float_data_wrong_count", clip_with_bound(t), "TENSOR_DATA", ["w_count"], None
    t = raw_tensor("w_field", TensorProto.INT64, [])
    t.float_data.extend([1.0])
    yield ("int64_in_float_data", clip_with_bound(t, "int64"), "TENSOR_DATA", ["w_field"], None)
    t = raw_tensor("w_both", F, [], b"\0\0\x80\x3f")
    t.float_data.extend([1.0])
    yield "raw_and_float_data", clip_with_bound(t), "TENSOR_DATA", ["w_both"], None
    t = raw_tensor("w_none", F, [])
    yield "no_data", clip_with_bound(t), "TENSOR_DATA", ["w_none"], None
    yield ("initializer_negative_dim",
           model([helper.make_node("Ceil", ["x"], ["y"], name="ok_ceil")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])],
                 [raw_tensor("w_neg", F, [2, -1], b"")]),
           "SHAPE", ["w_neg"], None)
    yield ("initializer_dims_overflow",
           model([helper.make_node("Ceil", ["x"], ["y"], name="ok_ceil")],
                 [vi("x", "float", [3])], [vi("y", "float", [3])],
                 [raw_tensor("w_huge", F, [1 << 32, 1 << 32, 1 << 32], b"")]),
           "LIMIT", ["w_huge"], None)
    yield ("graph_input_negative_dim",
           model([helper.make_node("Ceil", ["x_neg"], ["y"], name="ok_ceil")],
                 [vi("x_neg", "float", [-2])], [vi("y", "float", [2])]),
           "SHAPE", ["x_neg"], None)
    r17 = [1] * 17
    yield ("graph_input_rank17",
           model([helper.make_node("Ceil", ["x_r17"], ["y"], name="ok_ceil")],
                 [vi("x_r17", "float", r17)], [vi("y", "float", r17)]),
           "LIMIT", ["x_r17"], None)
    yield ("initializer_rank17",
           clip_with_bound(raw_tensor("w_r17", F, r17, b"\0" * 4)),
           "LIMIT", ["w_r17"], None)


def bad_external_cases():
    """External data that is unsafe or out of range."""
    for name, loc, off in [("external_data_escapes", "../escape.bin", 0),
                           ("external_data_absolute", "/etc/hostname", 0),
                           ("external_data_out_of_range", "data.bin", 2)]:
        p = external(tens("float", 0.0, []), "w_ext", loc, off, 4)
        yield (name, clip_with_bound(p), "EXTERNAL_DATA", ["w_ext", loc], None)


def bad_run_cases():
    """Run-time errors: the model is fine, the inputs are not."""
    rx = model([helper.make_node("Ceil", ["run_x"], ["y"], name="ok_ceil")],
               [vi("run_x", "float", [2, 3])], [vi("y", "float", [2, 3])])
    yield ("run_wrong_type", rx, "INPUT_TYPE", ["run_x", "double"],
           [tens("double", np.zeros((2, 3)), [2, 3])])
    yield ("run_wrong_rank", rx, "INPUT_SHAPE", ["run_x"], [tens("float", np.zeros(6), [6])])
    yield ("run_wrong_dim", rx, "INPUT_SHAPE", ["run_x"],
           [tens("float", np.zeros((2, 4)), [2, 4])])
    yield ("run_rank0_for_rank2", rx, "INPUT_SHAPE", ["run_x"], [tens("float", 1.0, [])])
    rb = model([helper.make_node("Clip", ["run_x", "run_lo"], ["y"], name="ok_clip")],
               [vi("run_x", "float", ["n"]), vi("run_lo", "float", [])], [vi("y", "float", ["n"])])
    yield "run_missing_input", rb, "INPUT_MISSING", ["run_lo"], [tens("float", [1.0, 2.0])]
    yield ("run_bound_not_scalar", rb, "INPUT_SHAPE", ["run_lo"],
           [tens("float", [1.0, 2.0]), tens("float", [0.0, 1.0])])
    ru = model([helper.make_node("Clip", ["run_x", "run_lo"], ["y"], name="ok_clip")],
               [vi("run_x", "float", [2]), vi("run_lo", "float", None)], [vi("y", "float", [2])])
    yield ("run_unshaped_bound_not_scalar", ru, "INPUT_SHAPE", ["run_lo"],
           [tens("float", [1.0, 2.0]), tens("float", [0.0, 1.0])])
    yield ("run_bound_wrong_type", rb, "INPUT_TYPE", ["run_lo", "float16"],
           [tens("float", [1.0, 2.0]), tens("float16", 0.0, [])])


def bad_cases():
    """Yields (name, model or bytes, status, messages, run inputs or None)."""
    yield from bad_header_cases()
    yield from bad_parse_cases()
    yield from bad_ops_cases()
    yield from bad_arity_cases()
    yield from bad_attributes_cases()
    yield from bad_constants_cases()
    yield from bad_values_cases()
    yield from bad_types_cases()
    yield from bad_clip_bounds_cases()
    yield from bad_tensor_data_cases()
    yield from bad_external_cases()
    yield from bad_run_cases()


def raw_model(graph_bytes, ir=7, opset=13, extra=b""):
    """ModelProto bytes written field by field around graph_bytes, for cases
    that need wire-level control (wrong wire types, odd lengths)."""
    opset_bytes = key(2, 0) + varint(opset)
    return (key(1, 0) + varint(ir) + key(8, 2) + varint(len(opset_bytes)) + opset_bytes +
            key(7, 2) + varint(len(graph_bytes)) + graph_bytes + extra)


def ceil_graph_bytes(extra=b""):
    """The graph of ceil_model (x[3] -> Ceil -> y[3]) followed by raw fields."""
    return ceil_model().graph.SerializeToString() + extra


def lenfield(number, payload):
    return key(number, 2) + varint(len(payload)) + payload


def deep_type(levels, innermost=b""):
    """A TypeProto of `levels` nested sequence_type messages around an
    innermost TypeProto (empty by default)."""
    t = innermost
    for _ in range(levels):
        t = lenfield(4, lenfield(1, t))  # TypeProto.sequence_type.elem_type
    return t


def deep_attr_graph(levels):
    """An AttributeProto 'g' whose graph holds a node whose attribute holds
    a graph ... `levels` times."""
    a = lenfield(1, b"g") + key(20, 0) + varint(5)
    for _ in range(levels):
        node = lenfield(4, b"Ceil") + lenfield(5, a)
        a = lenfield(1, b"g") + key(20, 0) + varint(5) + lenfield(6, lenfield(1, node))
    return a


X3 = [vi("x", "float", [3])]  # the input and output most bad cases declare
Y3 = [vi("y", "float", [3])]
MAX_ELEMENTS = 1 << 40  # onyx's limit on the elements of one tensor


def bad_file_cases():
    """Files that are not models."""
    yield "empty_file", b"", "PARSE", ["empty"], None, {}
    yield "model_is_folder", b"", "IO", ["folder"], None, {"model_is_dir": True}
    yield ("garbage_random", bytes(np.random.default_rng(99).integers(0, 256, 300, np.uint8)),
           "PARSE", ["protobuf"], None, {})
    yield ("garbage_text", b'{"graph": "not protobuf"}\n', "PARSE", ["protobuf"], None, {})
    # Every strict prefix of a valid model fails cleanly (check_bad_models
    # cuts it at every byte, from a file and from memory).
    yield ("truncated_every_byte", ceil_model(), None, [], None,
           {"lines": ["truncate ONYX_PARSE ONYX_OPSET"]})


def bad_wire_cases():
    """The wire format."""
    yield "varint_truncated", b"\x08\x80\x80", "PARSE", ["truncated varint", "byte 1"], None, {}
    yield ("varint_overflow", b"\x08" + b"\xff" * 9 + b"\x02", "PARSE",
           ["varint overflows 64 bits", "byte 1"], None, {})
    yield ("tag_varint_overflow", b"\xff" * 9 + b"\x7f", "PARSE", ["varint overflows"], None, {})
    yield "field_number_zero", b"\x00\x00", "PARSE", ["field number 0"], None, {}
    yield ("field_number_too_large", varint((1 << 29) << 3) + b"\x00", "PARSE",
           ["field number 536870912"], None, {})
    yield "group_wire_type", b"\x0b\x0c", "PARSE", ["groups"], None, {}
    yield "invalid_wire_type", b"\x0e\x00", "PARSE", ["invalid wire type 6"], None, {}
    yield ("length_past_end", key(1, 0) + b"\x07" + key(7, 2) + varint(100) + b"\x0a\x00",
           "PARSE", ["length 100", "runs past the end"], None, {})
    yield ("length_huge", key(7, 2) + b"\xff" * 9 + b"\x01", "PARSE", ["runs past the end"],
           None, {})
    # A node's length runs past the end of its graph, though not past the
    # end of the file: nested messages are bounded by their parent.
    yield ("nested_length_past_parent",
           raw_model(ceil_graph_bytes(lenfield(1, b"")[:1] + varint(40)),
                     extra=lenfield(2, b"p" * 60)),
           "PARSE", ["length 40", "runs past the end"], None, {})
    yield ("fixed32_truncated", raw_model(ceil_graph_bytes(), extra=key(3, 5) + b"\x00\x00"),
           "PARSE", ["truncated fixed32"], None, {})
    yield ("fixed64_truncated", raw_model(ceil_graph_bytes(), extra=key(3, 1) + b"\x00" * 7),
           "PARSE", ["truncated fixed64"], None, {})
    yield ("wire_type_ir_version", lenfield(1, b"\x07") + ceil_model().SerializeToString()[2:],
           "PARSE", ["ir_version", "wire type 2; expected 0"], None, {})
    yield ("wire_type_graph", key(1, 0) + b"\x07" + key(7, 0) + b"\x01", "PARSE",
           ["graph", "wire type 0; expected 2"], None, {})
    yield ("wire_type_opset_version",
           key(1, 0) + b"\x07" + lenfield(8, lenfield(2, b"\x0d")) +
           lenfield(7, ceil_graph_bytes()),
           "PARSE", ["version", "wire type 2; expected 0"], None, {})
    node = lenfield(3, b"bad_ceil") + key(1, 0) + varint(5) + lenfield(2, b"y") + \
        lenfield(4, b"Ceil")
    yield ("wire_type_node_input",
           raw_model(helper.make_graph([], "g", X3, Y3).SerializeToString() + lenfield(1, node)),
           "PARSE", ["bad_ceil", "input", "wire type 0; expected 2"], None, {})
    t = key(1, 1) + b"\x03" + b"\x00" * 7 + key(2, 0) + varint(F) + lenfield(8, b"w_dims")
    yield ("wire_type_tensor_dims",
           raw_model(ceil_graph_bytes(lenfield(5, t))),
           "PARSE", ["initializer 0", "dims", "wire type 1; expected 0"], None, {})
    t = key(2, 0) + varint(F) + lenfield(8, b"w_packed") + key(1, 0) + varint(3) + \
        lenfield(4, b"\x00" * 10)
    yield ("packed_float_data_not_whole",
           raw_model(ceil_graph_bytes(lenfield(5, t))),
           "PARSE", ["initializer 0", "float_data", "not a multiple of 4"], None, {})
    t = key(2, 0) + varint(F) + lenfield(8, b"w_ints") + lenfield(1, b"\x03\x80")
    yield ("packed_dims_truncated_varint",
           raw_model(ceil_graph_bytes(lenfield(5, t))),
           "PARSE", ["initializer 0", "truncated varint"], None, {})
    nul = ceil_model()
    nul.graph.node[0].name = "bad\0ceil"
    yield "nul_in_node_name", nul, "PARSE", ["NUL"], None, {}
    yield ("two_graphs", raw_model(ceil_graph_bytes(), extra=lenfield(7, ceil_graph_bytes())),
           "PARSE", ["more than one graph"], None, {})
    yield ("no_graph", key(1, 0) + b"\x07" + lenfield(8, key(2, 0) + b"\x0d"), "PARSE",
           ["no graph"], None, {})


def bad_nesting_cases():
    """Nesting deeper than the cap (64), in three places onyx only checks
    (an unused value_info type, an attribute's subgraphs, model metadata
    in training_info) and one it decodes (a graph input's type)."""
    deep = lenfield(1, b"deep") + lenfield(2, deep_type(31))
    yield ("nesting_too_deep_value_info", raw_model(ceil_graph_bytes(lenfield(13, deep))),
           "LIMIT", ["nested more than 64 deep"], None, {})
    yield ("nesting_too_deep_graph_input",
           raw_model(helper.make_graph([helper.make_node("Ceil", ["x"], ["y"])], "g", [], Y3)
                     .SerializeToString() + lenfield(11, lenfield(1, b"x") +
                                                      lenfield(2, deep_type(40)))),
           "LIMIT", ["nested more than 64 deep", "graph input 0"], None, {})
    node = lenfield(1, b"x") + lenfield(2, b"y") + lenfield(3, b"deep_ceil") + \
        lenfield(4, b"Ceil") + lenfield(5, deep_attr_graph(25))
    yield ("nesting_too_deep_attribute_graph",
           raw_model(helper.make_graph([], "g", X3, Y3).SerializeToString() + lenfield(1, node)),
           "LIMIT", ["nested more than 64 deep", "deep_ceil"], None, {})
    yield ("nesting_too_deep_training_info",
           raw_model(ceil_graph_bytes(),
                     extra=lenfield(20, lenfield(1, lenfield(13, deep)))),
           "LIMIT", ["nested more than 64 deep"], None, {})


def bad_opset_import_cases():
    """Opset imports."""
    yield ("opset_far_future", ceil_model(opset=1 << 62), "OPSET",
           [str(1 << 62), str(NEWEST_OPSET)], None, {})
    yield ("opset_version_missing",
           ceil_model(opsets=[onnx.OperatorSetIdProto()]), "OPSET", ["opset 0"], None, {})
    yield ("opset_duplicate_other_domain",
           ceil_model(opsets=[helper.make_opsetid("", 13), helper.make_opsetid("com.x", 1),
                              helper.make_opsetid("com.x", 2)]),
           "OPSET", ["com.x"], None, {})


def bad_graph_structure_cases():
    """Graph structure."""
    yield ("graph_no_outputs", model([helper.make_node("Ceil", ["x"], ["y"], name="ok_ceil")],
                                     X3, []),
           "UNDEFINED_VALUE", ["no outputs"], None, {})
    yield ("graph_output_unnamed",
           model([helper.make_node("Ceil", ["x"], ["y"], name="ok_ceil")], X3,
                 [vi("", "float", [3])]),
           "UNDEFINED_VALUE", ["graph output 0"], None, {})
    yield ("cycle_two_nodes",
           model([helper.make_node("Ceil", ["b"], ["a"], name="cyc_a"),
                  helper.make_node("Floor", ["a"], ["b"], name="cyc_b"),
                  helper.make_node("Sign", ["x"], ["y"], name="ok_sign")], X3, Y3),
           "CYCLE", ["cyc_"], None, {})


def bad_clip_bound_type_shape_cases():
    """Clip bounds."""
    yield ("clip_bounds_differ_in_type",
           model([helper.make_node("Clip", ["x", "lo_f32", "hi_f64"], ["y"], name="bad_clip")],
                 X3, Y3, [helper.make_tensor("lo_f32", F, [], [0.0]),
                          helper.make_tensor("hi_f64", TensorProto.DOUBLE, [], [1.0])]),
           "TYPE", ["bad_clip", "hi_f64", "double", "float"], None, {})
    yield ("clip_bound_shape_1x1", clip_with_bound(helper.make_tensor("lo_11", F, [1, 1], [0.0])),
           "SHAPE", ["bad_clip", "lo_11"], None, {})
    yield ("clip_bound_empty", clip_with_bound(helper.make_tensor("lo_0", F, [0], [])),
           "SHAPE", ["bad_clip", "lo_0"], None, {})
    yield ("clip_bound_input_rank2",
           model([helper.make_node("Clip", ["x", "", "hi_in"], ["y"], name="bad_clip")],
                 X3 + [vi("hi_in", "float", [1, 1])], Y3),
           "SHAPE", ["bad_clip", "hi_in"], None, {})


def bad_tensor_payload_cases():
    """Tensor data."""
    t = raw_tensor("w_i32", TensorProto.INT32, [])
    t.int32_data.extend([1])
    t.int64_data.extend([1])
    yield ("int32_data_and_int64_data", clip_with_bound(t, "int32"), "TENSOR_DATA",
           ["w_i32", "int32_data", "int64_data"], None, {})
    t = external(tens("float", 0.0, []), "w_raw_ext", "data.bin", 0, 4)
    t.raw_data = b"\0\0\0\0"
    yield ("raw_data_and_external_data", clip_with_bound(t), "TENSOR_DATA",
           ["w_raw_ext", "raw_data", "external data"], None, {"files": {"data.bin": b"\0" * 4}})
    t = raw_tensor("w_i32f", F, [])
    t.int32_data.extend([1])
    yield ("int32_data_for_float", clip_with_bound(t), "TENSOR_DATA",
           ["w_i32f", "int32_data", "float"], None, {})
    t = raw_tensor("w_i8", TensorProto.INT8, [])
    t.int32_data.extend([300])
    yield ("int32_data_out_of_range", clip_with_bound(t, "int8"), "TENSOR_DATA",
           ["w_i8", "300", "out of range"], None, {})
    t = raw_tensor("w_u32", TensorProto.UINT32, [])
    t.uint64_data.extend([1 << 32])
    yield ("uint64_data_out_of_range", clip_with_bound(t, "uint32"), "TENSOR_DATA",
           ["w_u32", "out of range"], None, {})
    t = raw_tensor("w_dbl", TensorProto.DOUBLE, [])
    t.double_data.extend([1.0, 2.0, 3.0])
    yield ("double_data_wrong_count", clip_with_bound(t, "double"), "TENSOR_DATA",
           ["w_dbl", "double_data has 3 values"], None, {})
    t = raw_tensor("w_str", F, [])
    t.string_data.extend([b"abc"])
    yield ("string_data_for_float", clip_with_bound(t), "TENSOR_DATA",
           ["w_str", "string_data"], None, {})
    t = raw_tensor("w_seg", F, [], b"\0\0\0\0")
    t.segment.begin, t.segment.end = 0, 1
    yield "segmented_tensor", clip_with_bound(t), "TENSOR_DATA", ["w_seg", "segment"], None, {}
    t = raw_tensor("w_loc", F, [], b"\0\0\0\0").SerializeToString() + key(14, 0) + varint(7)
    yield ("data_location_unknown",
           raw_model(helper.make_graph([helper.make_node("Clip", ["x", "w_loc"], ["y"])], "g",
                                       X3, Y3).SerializeToString() + lenfield(5, t)),
           "TENSOR_DATA", ["w_loc", "data_location 7"], None, {})
    t = raw_tensor("w_notype", 0, [], b"\0\0\0\0")
    yield "tensor_no_data_type", clip_with_bound(t), "TYPE", ["w_notype", "no data_type"], None, {}
    yield ("tensor_bool", clip_with_bound(raw_tensor("w_bool", TensorProto.BOOL, [], b"\1")),
           "TYPE", ["w_bool", "bool"], None, {})


def bad_shape_limit_cases():
    """Shapes and the element limit (2^40)."""
    yield ("initializer_elements_over_limit",
           clip_with_bound(raw_tensor("w_over", F, [1 << 20, 1 << 20, 2], b"")),
           "LIMIT", ["w_over", "more than %d elements" % MAX_ELEMENTS], None, {})
    yield ("initializer_dim_huge", clip_with_bound(raw_tensor("w_dim", F, [(1 << 63) - 1], b"")),
           "LIMIT", ["w_dim", "more than %d elements" % MAX_ELEMENTS], None, {})
    yield ("initializer_zero_and_huge_dim",
           clip_with_bound(raw_tensor("w_zero", F, [0, MAX_ELEMENTS + 1], b"")),
           "LIMIT", ["w_zero", "more than %d elements" % MAX_ELEMENTS], None, {})
    # At the limit the byte size (8 TiB) is computed without overflow, and
    # the missing payload is the error. A 32-bit host cannot address 2^40
    # elements: there the count itself is refused, naming the tensor.
    yield ("initializer_bytes_at_limit",
           clip_with_bound(raw_tensor("w_8tib", TensorProto.DOUBLE, [MAX_ELEMENTS], b""),
                           "double"),
           "TENSOR_DATA", ["w_8tib", "needs %d" % (MAX_ELEMENTS * 8)], None,
           {"lines": ["on32 status ONYX_LIMIT", "on32 message w_8tib",
                      "on32 message %d elements do not fit in memory on this machine"
                      % MAX_ELEMENTS]})
    yield ("initializer_rank_1000",
           clip_with_bound(raw_tensor("w_r1000", F, [1] * 1000, b"\0\0\0\0")),
           "LIMIT", ["w_r1000", "rank 1000", "limit of 16"], None, {})
    yield ("initializer_negative_dim_packed",
           clip_with_bound(raw_tensor("w_neg1", F, [-1], b"")),
           "SHAPE", ["w_neg1", "-1"], None, {})
    yield ("graph_input_rank_1000",
           model([helper.make_node("Ceil", ["x_big"], ["y"], name="ok_ceil")],
                 [vi("x_big", "float", [1] * 1000)], Y3),
           "LIMIT", ["x_big", "more than 16 dimensions"], None, {})


def bad_external_file_cases():
    """External data on the file system. .outside (beside the cases) holds
    a file the cases must not reach."""
    def ext(name, loc, off=0, length=4):
        return clip_with_bound(external(tens("float", 0.0, []), name, loc, off, length))
    data = {"data.bin": b"\0\0\x80\x3f"}
    yield ("external_data_symlink_file", ext("w_link", "link.bin"), "EXTERNAL_DATA",
           ["w_link", "link.bin", "symbolic link"], None,
           {"symlinks": {"link.bin": "../.outside/secret.bin"}})
    yield ("external_data_symlink_folder", ext("w_dlink", "sub/secret.bin"), "EXTERNAL_DATA",
           ["w_dlink", "'sub'", "symbolic link"], None, {"symlinks": {"sub": "../.outside"}})
    yield ("external_data_symlink_inside", ext("w_ilink", "link.bin"), "EXTERNAL_DATA",
           ["w_ilink", "symbolic link"], None,
           {"files": data, "symlinks": {"link.bin": "data.bin"}})
    yield ("external_data_hard_link", ext("w_hard", "secret.bin"), "EXTERNAL_DATA",
           ["w_hard", "secret.bin", "hard link"], None,
           {"hardlinks": {"secret.bin": "../.outside/secret.bin"}})
    yield ("external_data_dotdot_inside", ext("w_dd", "sub/../data.bin"), "EXTERNAL_DATA",
           ["w_dd", "'..'"], None, {"files": data, "dirs": ["sub"]})
    yield ("external_data_offset_past_end", ext("w_off", "data.bin", 100), "EXTERNAL_DATA",
           ["w_off", "offset 100 is past the end", "4 bytes"], None, {"files": data})
    yield ("external_data_offset_huge", ext("w_offh", "data.bin", (1 << 64) - 1),
           "EXTERNAL_DATA", ["w_offh", "past the end"], None, {"files": data})
    yield ("external_data_length_past_end", ext("w_len", "data.bin", 0, 8), "EXTERNAL_DATA",
           ["w_len", "length 8 runs past the end"], None, {"files": data})
    yield ("external_data_length_wrong", ext("w_len2", "data.bin", 0, 2), "EXTERNAL_DATA",
           ["w_len2", "has 2 bytes", "needs 4"], None, {"files": data})
    yield ("external_data_missing_file", ext("w_miss", "absent.bin"), "IO",
           ["w_miss", "absent.bin", "no such file"], None, {})
    yield ("external_data_is_folder", ext("w_dir", "sub"), "EXTERNAL_DATA",
           ["w_dir", "not a regular file"], None, {"dirs": ["sub"]})
    yield ("external_data_through_file", ext("w_nd", "data.bin/x"), "EXTERNAL_DATA",
           ["w_nd", "not a folder"], None, {"files": data})
    p = external(tens("float", 0.0, []), "w_noloc", "data.bin", 0, 4)
    del p.external_data[0]
    yield ("external_data_no_location", clip_with_bound(p), "EXTERNAL_DATA",
           ["w_noloc", "no 'location'"], None, {"files": data})
    yield ("external_data_empty_location", ext("w_empty", ""), "EXTERNAL_DATA",
           ["w_empty", "empty"], None, {})
    yield ("external_data_bad_offset", ext("w_neg", "data.bin", "-4"), "EXTERNAL_DATA",
           ["w_neg", "'-4'", "not a non-negative decimal"], None, {"files": data})
    p = external(tens("float", 0.0, []), "w_twice", "data.bin", 0, 4)
    e = p.external_data.add()
    e.key, e.value = "offset", "0"
    yield ("external_data_key_twice", clip_with_bound(p), "EXTERNAL_DATA",
           ["w_twice", "'offset' appears twice"], None, {"files": data})


def bad_api_misuse_cases():
    """Run-time API misuse on a valid model and valid inputs: each `mutate`
    line changes one thing before onyx_session_run (check_bad_models)."""
    rx = model([helper.make_node("Ceil", ["run_x"], ["y"], name="ok_ceil")],
               [vi("run_x", "float", ["n", 3])], [vi("y", "float", ["n", 3])])
    x23 = [tens("float", np.arange(6).reshape(2, 3) / 4.0, [2, 3])]
    for name, status, messages in [
            ("null_input_data", "INPUT_MISSING", ["run_x", "data is NULL"]),
            ("short_input", "INVALID_ARGUMENT", ["run_x", "size is 23 bytes", "needs 24"]),
            ("short_output", "BUFFER_TOO_SMALL", ["'y'", "23 bytes", "24 are needed"]),
            ("null_inputs", "INVALID_ARGUMENT", ["NULL"]),
            ("null_outputs", "INVALID_ARGUMENT", ["NULL"]),
            ("null_session", "INVALID_ARGUMENT", ["NULL"]),
            ("no_inputs", "INPUT_MISSING", ["run_x"]),
            ("extra_input", "INVALID_ARGUMENT", ["2 inputs given", "takes 1"]),
            ("extra_output", "INVALID_ARGUMENT", ["2 outputs given", "has 1"]),
            ("negative_dim", "INPUT_SHAPE", ["run_x", "negative"]),
            ("huge_dim", "INPUT_SHAPE", ["run_x", "more than %d elements" % MAX_ELEMENTS]),
            ("rank_17", "INPUT_SHAPE", ["run_x", "rank 17"]),
            ("unknown_dtype", "INPUT_TYPE", ["run_x"])]:
        yield ("run_" + name, rx, status, messages, x23, {"lines": ["mutate " + name]})


def more_bad_cases():
    """More invalid models: the wire format, limits, tensor data, external
    data on the file system, and API misuse at run time. Yields (name, model
    or bytes, status, messages, run inputs or None, extra), where extra may
    hold: files {name: bytes}, symlinks {name: target}, hardlinks {name:
    path relative to the case folder}, dirs [names], lines [expect.txt
    lines], model_is_dir True."""
    yield from bad_file_cases()
    yield from bad_wire_cases()
    yield from bad_nesting_cases()
    yield from bad_opset_import_cases()
    yield from bad_graph_structure_cases()
    yield from bad_clip_bound_type_shape_cases()
    yield from bad_tensor_payload_cases()
    yield from bad_shape_limit_cases()
    yield from bad_external_file_cases()
    yield from bad_api_misuse_cases()


def gen_bad(root):
    d = os.path.join(root, "bad")
    os.makedirs(d)
    # A file outside every case folder, for the external-data cases that
    # try to reach it through links.
    outside = os.path.join(d, ".outside")
    os.makedirs(outside)
    with open(os.path.join(outside, "secret.bin"), "wb") as f:
        f.write(b"\0\0\x80\x3f")
    cases = [c + ({},) for c in bad_cases()] + list(more_bad_cases())
    for name, m, status, messages, inputs, extra in cases:
        case = os.path.join(d, name)
        os.makedirs(case)
        data = m if isinstance(m, bytes) else m.SerializeToString()
        if extra.get("model_is_dir"):
            os.makedirs(os.path.join(case, "model.onnx"))
        else:
            with open(os.path.join(case, "model.onnx"), "wb") as f:
                f.write(data)
        if name == "external_data_out_of_range":
            with open(os.path.join(case, "data.bin"), "wb") as f:
                f.write(b"\0\0\0\0")
        for fname, content in extra.get("files", {}).items():
            with open(os.path.join(case, fname), "wb") as f:
                f.write(content)
        for dname in extra.get("dirs", []):
            os.makedirs(os.path.join(case, dname))
        for lname, target in extra.get("symlinks", {}).items():
            os.symlink(target, os.path.join(case, lname))
        for lname, target in extra.get("hardlinks", {}).items():
            os.link(os.path.join(case, target), os.path.join(case, lname))
        lines = ["status ONYX_" + status] if status else []
        lines += ["message " + s for s in messages] + extra.get("lines", [])
        if inputs is not None:
            lines.append("stage run")
            for k, t in enumerate(inputs):
                write_pb(os.path.join(case, "input_%d.pb" % k), tensor_proto(t, "in%d" % k))
        with open(os.path.join(case, "expect.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
        count("bad")


# ---- runner/ ------------------------------------------------------------------

# The cases under runner/fail, one CTest test each (tests/conformance.cmake
# lists the same names): `onyx test` must report each as failed.
RUNNER_FAIL = ["neg_zero_for_pos_zero", "number_for_nan", "nan_for_number", "wrong_dtype",
               "wrong_shape", "wrong_rank", "last_element", "int64_high_bits",
               "bfloat16_low_bit", "float16_low_bit", "second_dataset", "second_output"]


def runner_cases():
    """Yields (pass or fail, name, graph, inputs, expected outputs): checks
    of the comparison `onyx test` makes, whose verdict the conformance tests
    rely on."""
    def unary(op, dtype, shape, outs=1):
        nodes = [Node(op, ["x"], ["y"], name="r_" + op.lower())]
        outputs = [("y", dtype, shape)]
        if outs == 2:
            nodes.append(Node(op, ["x"], ["y2"], name="r2_" + op.lower()))
            outputs.append(("y2", dtype, shape))
        return Graph("runner", 13, nodes, [("x", dtype, shape)], outputs)

    def nan_bits(dtype, bits):
        return bits_to_tens(dtype, bits)

    x = tens("float", [-0.5, 1.5, float("nan")])
    g = unary("Ceil", "float", [3])
    # Any NaN matches any NaN: other payloads and signs pass.
    yield ("pass", "nan_other_payload_float", g, [x],
           [Tens("float", np.array([-0.0, 2.0, 0.0], np.float32))], [2],
           nan_bits("float", [0xFFC0DEAD]))
    for dtype, bits in (("float16", 0xFE01), ("bfloat16", 0xFF81), ("double", 0xFFF0000000000001)):
        xd = tens(dtype, [-0.5, 1.5, float("nan")])
        yield ("pass", "nan_other_payload_" + dtype, unary("Ceil", dtype, [3]), [xd],
               [ref_ceil(xd)], [2], nan_bits(dtype, [bits]))
    # Wrong expectations: each must fail.
    y = ref_ceil(x)
    yield ("fail", "neg_zero_for_pos_zero", g, [x],
           [tens("float", [0.0, 2.0, float("nan")])], None, None)
    yield ("fail", "number_for_nan", g, [x], [tens("float", [-0.0, 2.0, 1.0])], None, None)
    yield ("fail", "nan_for_number", g, [x],
           [tens("float", [-0.0, float("nan"), float("nan")])], None, None)
    yield ("fail", "wrong_dtype", g, [x], [tens("double", [-0.0, 2.0, float("nan")])],
           None, None)
    yield ("fail", "wrong_shape", g, [x], [Tens("float", y.arr.reshape(1, 3))], None, None)
    x2 = tens("float", [1.5, 2.5, 3.5, 4.5], [2, 2])
    y2 = ref_ceil(x2)
    yield ("fail", "wrong_rank", unary("Ceil", "float", [2, 2]), [x2],
           [Tens("float", y2.arr.reshape(4))], None, None)
    xl = rand_floats("float", [37], "runner-last")
    yl = ref_ceil(xl).arr.copy()
    yl[-1] = np.nextafter(yl[-1], np.float32(np.inf))
    yield ("fail", "last_element", unary("Ceil", "float", [37]), [xl],
           [Tens("float", yl)], None, None)
    xi = tens("int64", [2 ** 40, -(2 ** 41), 0])
    yield ("fail", "int64_high_bits", unary("Sign", "int64", [3]), [xi],
           [tens("int64", [1 + 2 ** 40, -1, 0])], None, None)
    xb = tens("bfloat16", [1.5, -2.5, 3.0])
    yb = ref_ceil(xb).arr.copy()
    yb[1] ^= 1
    yield ("fail", "bfloat16_low_bit", unary("Ceil", "bfloat16", [3]), [xb],
           [Tens("bfloat16", yb)], None, None)
    xh = tens("float16", [1.5, -2.5, 3.0])
    yh = ref_floor(xh).arr.copy()
    yh.view(np.uint16)[2] ^= 1
    yield ("fail", "float16_low_bit", unary("Floor", "float16", [3]), [xh],
           [Tens("float16", yh)], None, None)
    yield ("fail", "second_dataset", g, [[x], [x]], [[y], [tens("float", [-0.0, 3.0, 0.0])]],
           None, "datasets")
    g2 = unary("Sign", "int8", [2], outs=2)
    x8 = tens("int8", [-5, 7])
    yield ("fail", "second_output", g2, [x8], [ref_sign(x8), tens("int8", [-1, 0])], None, None)


def gen_runner(root):
    d = os.path.join(root, "runner")
    for verdict, name, g, inputs, outputs, nan_at, extra in runner_cases():
        case = os.path.join(d, verdict, name)
        os.makedirs(case)
        with open(os.path.join(case, "model.onnx"), "wb") as f:
            f.write(g.model().SerializeToString())
        sets = list(zip(inputs, outputs)) if extra == "datasets" else [(inputs, outputs)]
        for k, (ins, outs) in enumerate(sets):
            outs = list(outs)
            if nan_at is not None:  # put another NaN where a NaN is expected
                a = outs[0].arr.copy()
                a.ravel()[nan_at] = extra.arr[0]
                outs[0] = Tens(outs[0].dtype, a)
            write_dataset(case, k, [(i[0], t) for i, t in zip(g.run_inputs(), ins)],
                          [(o[0], t) for o, t in zip(g.outputs, outs)])
        count("runner")
    assert sorted(os.listdir(os.path.join(d, "fail"))) == sorted(RUNNER_FAIL)


# ---- main ---------------------------------------------------------------------

def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: gen_cases.py OUTDIR OPS_LIST\n")
        return 2
    out = argv[1]
    load_tables(argv[2])
    self_check()
    for sub in ("spec", "ops", "graphs", "bad", "runner"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
    os.makedirs(out, exist_ok=True)
    gen_spec(out)
    gen_ops(out)
    gen_graphs(out)
    gen_bad(out)
    gen_runner(out)
    print("gen_cases: " + ", ".join("%s %d" % kv for kv in sorted(COUNTS.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
