# SPDX-License-Identifier: MIT
"""Helpers shared by the case generators: element types, tensors (bfloat16
included), the numpy reference semantics of the four ops plus Constant, a
tiny graph description that is both written as an ONNX model and evaluated
with the reference, and the writer of ONNX backend-test folders.

Needs numpy (1.24) and onnx (1.12), as Debian packages them.
"""

import os

import numpy as np
from onnx import TensorProto, helper

# Overflowing casts (65520 -> float16 inf) are intended.
np.seterr(all="ignore")

# ---- Element types ---------------------------------------------------------

# name -> (TensorProto data_type, numpy storage type). bfloat16 is stored as
# its uint16 bit pattern.
DTYPES = {
    "float": (TensorProto.FLOAT, np.float32),
    "uint8": (TensorProto.UINT8, np.uint8),
    "int8": (TensorProto.INT8, np.int8),
    "uint16": (TensorProto.UINT16, np.uint16),
    "int16": (TensorProto.INT16, np.int16),
    "int32": (TensorProto.INT32, np.int32),
    "int64": (TensorProto.INT64, np.int64),
    "float16": (TensorProto.FLOAT16, np.float16),
    "double": (TensorProto.DOUBLE, np.float64),
    "uint32": (TensorProto.UINT32, np.uint32),
    "uint64": (TensorProto.UINT64, np.uint64),
    "bfloat16": (TensorProto.BFLOAT16, np.uint16),
}
FLOATS = ["float16", "float", "double"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
SIGNED = ["int8", "int16", "int32", "int64"]
UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]

# (exponent bits, mantissa bits, unsigned storage of the bits)
FLOAT_FORMATS = {
    "float16": (5, 10, np.uint16),
    "bfloat16": (8, 7, np.uint16),
    "float": (8, 23, np.uint32),
    "double": (11, 52, np.uint64),
}


def onnx_type(dtype):
    return DTYPES[dtype][0]


def storage(dtype):
    return DTYPES[dtype][1]


def is_float(dtype):
    return dtype in FLOAT_FORMATS


# ---- bfloat16 ----------------------------------------------------------------

def bf16_to_f32(bits):
    bits = np.asarray(bits, dtype=np.uint16)
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def f32_to_bf16(values):
    """float32 -> bfloat16 bits, round to nearest even; NaN stays NaN."""
    f = np.asarray(values, dtype=np.float32)
    shape = f.shape
    f = f.reshape(-1)
    u = f.view(np.uint32).astype(np.uint64)
    rounded = (u + np.uint64(0x7FFF) + ((u >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)
    out = rounded.astype(np.uint16)
    nan = np.isnan(f)
    out[nan] = ((u[nan] >> np.uint64(16)) | np.uint64(0x0040)).astype(np.uint16)
    return out.reshape(shape)


# ---- Tensors ---------------------------------------------------------------

class Tens:
    """A tensor: an element type name and a numpy array in its storage type."""

    def __init__(self, dtype, arr):
        self.dtype = dtype
        arr = np.asarray(arr)
        if arr.dtype != storage(dtype):
            raise TypeError("tensor of %s given numpy %s" % (dtype, arr.dtype))
        self.arr = arr

    @property
    def shape(self):
        return list(self.arr.shape)

    def compute(self):
        """The values in a type numpy computes in (float32 for bfloat16)."""
        return bf16_to_f32(self.arr) if self.dtype == "bfloat16" else self.arr

    def same_bits(self, other):
        return (self.dtype == other.dtype and self.arr.shape == other.arr.shape
                and self.arr.tobytes() == other.arr.tobytes())

    def matches(self, other):
        """Bit equality, except that any NaN matches any NaN."""
        if self.dtype != other.dtype or self.arr.shape != other.arr.shape:
            return False
        if is_float(self.dtype):
            a, b = self.compute().ravel(), other.compute().ravel()
            na, nb = np.isnan(a), np.isnan(b)
            if not np.array_equal(na, nb):
                return False
            ua = a.view(np.uint8).reshape(a.size, -1)[~na]
            ub = b.view(np.uint8).reshape(b.size, -1)[~nb]
            return np.array_equal(ua, ub)
        return self.same_bits(other)


def tens(dtype, values, shape=None):
    """A tensor from Python/numpy values (floats rounded to the type)."""
    if dtype == "bfloat16":
        arr = f32_to_bf16(np.asarray(values, dtype=np.float64).astype(np.float32))
    elif dtype in INTS:
        arr = np.array([int(v) for v in np.asarray(values, dtype=object).ravel()],
                       dtype=storage(dtype)).reshape(np.shape(values))
    else:
        arr = np.asarray(values, dtype=np.float64).astype(storage(dtype))
    arr = np.asarray(arr, dtype=storage(dtype))
    if shape is not None:
        arr = arr.reshape(shape)
    return Tens(dtype, arr)


def from_compute(dtype, values):
    if dtype == "bfloat16":
        return Tens(dtype, f32_to_bf16(values))
    values = np.asarray(values)
    if values.dtype != storage(dtype):
        raise TypeError("reference changed the type: %s -> %s" % (dtype, values.dtype))
    return Tens(dtype, values)


def scalar_of(t):
    """A numpy scalar of the compute type from a one-element tensor."""
    c = t.compute()
    if c.size != 1:
        raise ValueError("not a one-element tensor")
    return c.reshape(())[()]


# ---- TensorProto writing ---------------------------------------------------------

def tensor_proto(t, name="", encoding="raw"):
    """encoding: raw (raw_data) or typed (the typed repeated field)."""
    p = TensorProto()
    p.name = name
    p.data_type = onnx_type(t.dtype)
    p.dims.extend(t.shape)
    a = t.arr.ravel()
    if encoding == "raw":
        p.raw_data = a.astype(a.dtype.newbyteorder("<")).tobytes()
    elif encoding == "typed":
        d = t.dtype
        if d == "float":
            p.float_data.extend(a.tolist())
        elif d == "double":
            p.double_data.extend(a.tolist())
        elif d in ("int8", "int16", "int32", "uint8", "uint16"):
            p.int32_data.extend(int(v) for v in a)
        elif d in ("float16", "bfloat16"):
            p.int32_data.extend(int(v) for v in a.view(np.uint16))
        elif d == "int64":
            p.int64_data.extend(int(v) for v in a)
        elif d in ("uint32", "uint64"):
            p.uint64_data.extend(int(v) for v in a)
        else:
            raise ValueError(d)
    else:
        raise ValueError(encoding)
    return p


def write_pb(path, proto):
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


# ---- Reference semantics (numpy 1.24, bit for bit) --------------------------

def ref_ceil(x):
    assert is_float(x.dtype)
    return from_compute(x.dtype, np.ceil(x.compute()))


def ref_floor(x):
    assert is_float(x.dtype)
    return from_compute(x.dtype, np.floor(x.compute()))


def ref_sign(x):
    return from_compute(x.dtype, np.sign(x.compute()))


def ref_clip(x, lo, hi):
    """np.clip with None for a missing bound; lo, hi are numpy scalars of
    x's compute type (or None)."""
    c = x.compute()
    # numpy's float16 clip keeps x when x and a bound are zeros of opposite
    # sign (+0 against -0), where its float32 and float64 clips return the
    # bound; onyx follows numpy, so float16 is clipped by numpy's own loop.
    if lo is None and hi is None:
        return from_compute(x.dtype, c.copy())
    ct = c.dtype.type
    lo = None if lo is None else ct(lo)
    hi = None if hi is None else ct(hi)
    if c.size == 0:
        return from_compute(x.dtype, c.copy())
    y = np.clip(c, lo, hi)
    if y.dtype != c.dtype:
        raise TypeError("np.clip changed the type")
    return from_compute(x.dtype, y)


CLIP6_LOWEST = -3.4028234663852886e38
CLIP6_MAX = 3.4028234663852886e38


def attr_bound(dtype, value):
    """A float attribute (float32) converted to the input type."""
    f = np.float32(value)
    if dtype == "float16":
        return np.float16(f)
    if dtype == "double":
        return np.float64(f)
    return f


def op_version(op, opset):
    table = {
        "Ceil": [13, 6, 1], "Floor": [13, 6, 1],
        "Clip": [13, 12, 11, 6, 1], "Sign": [13, 9],
        "Constant": [13, 12, 11, 9, 1],
    }
    for v in table[op]:
        if v <= opset:
            return v
    return None


# ---- Graph description -----------------------------------------------------

class Node:
    def __init__(self, op, inputs, outputs, name=None, attrs=None, domain=None):
        self.op = op
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.name = name if name is not None else "%s_%s" % (op.lower(), outputs[0])
        self.attrs = dict(attrs or {})
        self.domain = domain

    def proto(self):
        kw = {}
        for k, v in self.attrs.items():
            if isinstance(v, Tens):
                kw[k] = tensor_proto(v, "")
            else:
                kw[k] = v
        n = helper.make_node(self.op, self.inputs, self.outputs, name=self.name, **kw)
        if self.domain is not None:
            n.domain = self.domain
        return n


class Graph:
    """nodes; inputs/outputs: (name, dtype, shape) with shape a list of
    int / str (symbolic) / None (unknown), or None for no shape;
    initializers: name -> Tens."""

    def __init__(self, name, opset, nodes, inputs, outputs, initializers=None,
                 ir_version=None, init_encoding="raw", extra_opsets=None):
        self.name = name
        self.opset = opset
        self.nodes = nodes
        self.inputs = inputs
        self.outputs = outputs
        self.initializers = dict(initializers or {})
        self.ir_version = ir_version if ir_version is not None else ir_for_opset(opset)
        self.init_encoding = init_encoding
        self.extra_opsets = extra_opsets or []

    def model(self):
        g = helper.make_graph(
            [n.proto() for n in self.nodes], self.name,
            [helper.make_tensor_value_info(n, onnx_type(d), s) for n, d, s in self.inputs],
            [helper.make_tensor_value_info(n, onnx_type(d), s) for n, d, s in self.outputs],
            [tensor_proto(t, n, self.init_encoding) for n, t in self.initializers.items()])
        ops = [helper.make_opsetid("", self.opset)]
        ops += [helper.make_opsetid(d, v) for d, v in self.extra_opsets]
        m = helper.make_model(g, opset_imports=ops, producer_name="onyx-tests")
        m.ir_version = self.ir_version
        return m

    def run_inputs(self):
        """The graph inputs that are not initializers, in order."""
        return [i for i in self.inputs if i[0] not in self.initializers]

    def evaluate(self, feeds):
        """feeds: list of Tens in run_inputs() order. Returns the outputs."""
        vals = dict(self.initializers)
        for (name, _, _), t in zip(self.run_inputs(), feeds):
            vals[name] = t
        pending = list(self.nodes)
        while pending:
            progress = False
            for n in list(pending):
                if all(i == "" or i in vals for i in n.inputs):
                    outs = eval_node(n, [vals[i] if i else None for i in n.inputs], self.opset)
                    for o, t in zip(n.outputs, outs):
                        vals[o] = t
                    pending.remove(n)
                    progress = True
            if not progress:
                raise ValueError("graph cannot be evaluated: %s" % self.name)
        return [vals[o[0]] for o in self.outputs]


def ir_for_opset(opset):
    for limit, ir in [(8, 3), (9, 4), (10, 5), (11, 6), (14, 7), (18, 8), (20, 9), (22, 10)]:
        if opset <= limit:
            return ir
    return 11


def eval_node(n, ins, opset):
    v = op_version(n.op, opset)
    if n.op == "Ceil":
        return [ref_ceil(ins[0])]
    if n.op == "Floor":
        return [ref_floor(ins[0])]
    if n.op == "Sign":
        return [ref_sign(ins[0])]
    if n.op == "Constant":
        a = n.attrs
        if "value" in a:
            return [a["value"]]
        if "value_float" in a:
            return [tens("float", np.float32(a["value_float"]), [])]
        if "value_int" in a:
            return [tens("int64", a["value_int"], [])]
        raise ValueError("Constant without a value")
    if n.op == "Clip":
        x = ins[0]
        if v < 11:
            lo = attr_bound(x.dtype, n.attrs["min"]) if "min" in n.attrs else None
            hi = attr_bound(x.dtype, n.attrs["max"]) if "max" in n.attrs else None
            if v == 6:  # absent attributes take the schema defaults
                lo = attr_bound(x.dtype, CLIP6_LOWEST) if lo is None else lo
                hi = attr_bound(x.dtype, CLIP6_MAX) if hi is None else hi
            return [ref_clip(x, lo, hi)]
        lo = scalar_of(ins[1]) if len(ins) > 1 and ins[1] is not None else None
        hi = scalar_of(ins[2]) if len(ins) > 2 and ins[2] is not None else None
        return [ref_clip(x, lo, hi)]
    raise ValueError(n.op)


# ---- Case folders --------------------------------------------------------------

def write_case(root, name, graph, datasets, encoding="raw"):
    """Writes root/name/model.onnx and test_data_set_N/ for each list of
    run inputs in datasets; expected outputs come from the reference."""
    d = os.path.join(root, name)
    os.makedirs(d)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(graph.model().SerializeToString())
    run_inputs = graph.run_inputs()
    for k, feeds in enumerate(datasets):
        assert len(feeds) == len(run_inputs), name
        outs = graph.evaluate(feeds)
        write_dataset(d, k, [(i[0], t) for i, t in zip(run_inputs, feeds)],
                      [(o[0], t) for o, t in zip(graph.outputs, outs)], encoding)
    return d


def write_dataset(case_dir, k, inputs, outputs, encoding="raw"):
    ds = os.path.join(case_dir, "test_data_set_%d" % k)
    os.makedirs(ds)
    for i, (n, t) in enumerate(inputs):
        write_pb(os.path.join(ds, "input_%d.pb" % i), tensor_proto(t, n, encoding))
    for i, (n, t) in enumerate(outputs):
        write_pb(os.path.join(ds, "output_%d.pb" % i), tensor_proto(t, n, encoding))
