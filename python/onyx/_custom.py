# SPDX-License-Identifier: MIT
"""Operators written in Python, and op libraries, for sessions.

``register_op("Abs", lambda x: np.abs(x))`` adds a function on numpy arrays
to the operators every InferenceSession created afterwards may use; the
C library calls it through ctypes callbacks (onyx_op_registry_add in
include/onyx.h, docs/custom-ops.md).

Shapes: onyx allocates each output before a run computes anything, so the
output's type and shape are taken from a result of the function: at
session creation and, when an input shape is symbolic, again at each run,
the function is called once on zero-filled arrays of the inputs' types and
shapes (a constant input gets its real values; an unknown dimension is 1;
an input of unknown rank, a value the model gives no shape, is one
element of rank 1, never a scalar: onyx keeps only the output types then,
and calls the function again at each run with the real shapes). The real
call's results must then have those types and shapes.

Threads and the GIL: onyx calls a Python operator on the thread that
called ``run``, never on its worker threads. ctypes releases the GIL while
onyx runs and each callback takes it again, so other Python threads run
meanwhile and two sessions may call Python operators from two threads.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any, Callable, Iterable, Optional, Union

import numpy as np
import numpy.typing as npt

from . import _capi
from ._capi import lib

VARIADIC = 0xFFFFFFFF
MAX_TYPED = 16
_STATUS = {name: _capi.status_value(name) for name in
           ("OK", "INVALID_ARGUMENT", "TYPE", "SHAPE", "ARITY")}

_OpFn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)


class AttributeInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int), ("f", ctypes.c_float),
                ("i", ctypes.c_int64), ("s", ctypes.c_char_p), ("count", ctypes.c_size_t),
                ("floats", ctypes.POINTER(ctypes.c_float)),
                ("ints", ctypes.POINTER(ctypes.c_int64)), ("has_tensor", ctypes.c_int),
                ("tensor", _capi.Tensor)]


class CustomOpC(ctypes.Structure):
    _fields_ = [("domain", ctypes.c_char_p), ("name", ctypes.c_char_p),
                ("since_min", ctypes.c_int64), ("since_max", ctypes.c_int64),
                ("min_inputs", ctypes.c_uint32), ("max_inputs", ctypes.c_uint32),
                ("min_outputs", ctypes.c_uint32), ("max_outputs", ctypes.c_uint32),
                ("input_types", ctypes.c_uint32 * MAX_TYPED), ("n_input_types", ctypes.c_uint32),
                ("output_types", ctypes.c_uint32 * MAX_TYPED),
                ("n_output_types", ctypes.c_uint32), ("same_input_types", ctypes.c_int),
                ("allows_in_place", ctypes.c_int), ("override_builtin", ctypes.c_int),
                ("infer", _OpFn), ("compute", _OpFn), ("user_data", ctypes.c_void_p),
                ("destroy", ctypes.c_void_p)]


_P = ctypes.POINTER
for _name, _restype, _argtypes in (
        ("onyx_op_registry_create", ctypes.c_int, [_P(ctypes.c_void_p), _P(_capi.Error)]),
        ("onyx_op_registry_free", None, [ctypes.c_void_p]),
        ("onyx_op_registry_add", ctypes.c_int, [ctypes.c_void_p, _P(CustomOpC), _P(_capi.Error)]),
        ("onyx_op_registry_load_library", ctypes.c_int,
         [ctypes.c_void_p, ctypes.c_char_p, _P(_capi.Error)]),
        ("onyx_op_input_count", ctypes.c_size_t, [ctypes.c_void_p]),
        ("onyx_op_output_count", ctypes.c_size_t, [ctypes.c_void_p]),
        ("onyx_op_input", ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, _P(_capi.Tensor)]),
        ("onyx_op_input_rank_known", ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t]),
        ("onyx_op_output", ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, _P(_capi.Tensor)]),
        ("onyx_op_set_output", ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                              ctypes.c_uint32, _P(ctypes.c_int64)]),
        ("onyx_op_set_output_dim_from", ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t,
                                                       ctypes.c_uint32, ctypes.c_size_t,
                                                       ctypes.c_uint32]),
        ("onyx_op_attribute", ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p,
                                             _P(AttributeInfo)]),
        # Called with a message and no further arguments (see _fail).
        ("onyx_op_fail", ctypes.c_int, [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p])):
    _f = getattr(lib, _name)
    _f.restype = _restype
    _f.argtypes = _argtypes


def _open_dims(r: npt.NDArray[Any], r2: Optional[npt.NDArray[Any]],
               unknown: list[tuple[int, int]]) -> tuple[list[int], dict[int, tuple[int, int]]]:
    """An output's shape at session creation while the input dimensions
    unknown are given: the probe's result r (1 for each of them) and r2,
    the second probe's (2 for each), or None where it failed. A dimension
    that differs between the two follows the unknown ones: it is -1
    (unknown until a run), not the probe's 1. With one unknown input
    dimension, an output dimension that is 1 and then 2 is that dimension
    and takes its name (onyx_op_set_output_dim_from): the source of each
    such output dimension, by index. Without r2 every dimension is -1."""
    shape: list[int] = list(r.shape)
    source: dict[int, tuple[int, int]] = {}
    for j, n in enumerate(r.shape):
        n2 = r2.shape[j] if r2 is not None and r2.ndim == r.ndim else None
        if n2 == n:
            continue
        shape[j] = -1
        if (n, n2) == (1, 2) and len(unknown) == 1:
            source[j] = unknown[0]
    return shape, source


def _unknown_dims(ctx: int) -> list[tuple[int, int]]:
    """The (input, dimension) pairs unknown now: -1 in an input whose rank
    is known (at session creation; a run knows every dimension)."""
    out: list[tuple[int, int]] = []
    for i in range(lib.onyx_op_input_count(ctx)):
        t = _capi.Tensor()
        if lib.onyx_op_input(ctx, i, ctypes.byref(t)) != 0 or t.dtype == 0:
            continue
        if lib.onyx_op_input_rank_known(ctx, i):
            out.extend((i, d) for d in range(t.rank) if t.dims[d] < 0)
    return out


def _fail(ctx: int, status: int, message: str) -> int:
    # The message is onyx_op_fail's format: a '%' in it stands for itself.
    lib.onyx_op_fail(ctx, status, message.replace("%", "%%").encode("utf-8", "replace"))
    return status


def _dims(t: _capi.Tensor) -> tuple[int, ...]:
    return tuple(int(t.dims[d]) for d in range(t.rank))


def _attributes(ctx: int, names: Iterable[str]) -> dict[str, Any]:
    """The node's attributes among names, as Python values."""
    out: dict[str, Any] = {}
    for name in names:
        a = AttributeInfo()
        if not lib.onyx_op_attribute(ctx, name.encode(), ctypes.byref(a)):
            continue
        if a.type == 1:
            out[name] = float(a.f)
        elif a.type == 2:
            out[name] = int(a.i)
        elif a.type == 3:
            out[name] = _capi.text(a.s)
        elif a.type == 6:
            out[name] = [float(a.floats[k]) for k in range(a.count)]
        elif a.type == 7:
            out[name] = [int(a.ints[k]) for k in range(a.count)]
    return out


class _PyOp:
    """One registered Python function, with the callbacks onyx calls."""

    def __init__(self, name: str, fn: Callable[..., Any], domain: str, since: int, until: int,
                 inputs: tuple[int, int], outputs: tuple[int, int], override: bool,
                 attributes: Iterable[str]) -> None:
        self.name, self.fn, self.domain = name, fn, domain
        self.since, self.until, self.override = since, until, override
        self.inputs, self.outputs = inputs, outputs
        self.attributes = tuple(attributes)
        # Kept alive as long as any registry built from this op.
        self.c_infer = _OpFn(self._infer)
        self.c_compute = _OpFn(self._compute)

    def definition(self) -> CustomOpC:
        d = CustomOpC()
        d.domain = self.domain.encode()
        d.name = self.name.encode()
        d.since_min, d.since_max = self.since, self.until
        d.min_inputs, d.max_inputs = self.inputs
        d.min_outputs, d.max_outputs = self.outputs
        d.override_builtin = int(self.override)
        d.infer, d.compute = self.c_infer, self.c_compute
        return d

    def _arrays(self, ctx: int, probe: bool,
                fill: int = 1) -> tuple[list[Optional[npt.NDArray[Any]]], list[int]]:
        """The inputs as numpy arrays (None for an omitted one): views of
        onyx's buffers, or for a probe zeros of the shape (the values of a
        constant input; fill for an unknown dimension; shape (1,) for an
        unknown rank, which onyx reads as rank 0: onyx_op_input_rank_known
        tells it from a scalar). Also the inputs whose rank was unknown."""
        arrays: list[Optional[npt.NDArray[Any]]] = []
        unranked: list[int] = []
        for i in range(lib.onyx_op_input_count(ctx)):
            t = _capi.Tensor()
            lib.onyx_op_input(ctx, i, ctypes.byref(t))
            dtype = _capi.NUMPY_OF_DTYPE.get(t.dtype)
            if dtype is None:
                arrays.append(None)
                continue
            shape = _dims(t)
            if probe and not lib.onyx_op_input_rank_known(ctx, i):
                unranked.append(i)
                arrays.append(np.zeros((1,), dtype=dtype))
                continue
            known = all(d >= 0 for d in shape)
            if t.data and known and t.size == int(np.prod(shape, dtype=np.int64)) * dtype.itemsize:
                buf = (ctypes.c_char * t.size).from_address(t.data)
                a = np.frombuffer(memoryview(buf), dtype=dtype).reshape(shape)
                a = a.copy() if probe else a  # onyx's buffer lives only during the call
                a.flags.writeable = probe  # onyx's own data (the caller's inputs, even)
            elif probe:
                a = np.zeros(tuple(d if d >= 0 else fill for d in shape), dtype=dtype)
            else:
                a = np.zeros(shape, dtype=dtype)  # no data: an empty tensor
            arrays.append(a)
        return arrays, unranked

    def _results(self, ctx: int, probe: bool, fill: int = 1) -> list[npt.NDArray[Any]]:
        arrays, unranked = self._arrays(ctx, probe, fill)
        kwargs = _attributes(ctx, self.attributes) if self.attributes else {}
        try:
            with np.errstate(all="ignore"):
                res = self.fn(*arrays, **kwargs)
        except Exception as e:
            if not unranked:
                raise
            raise _OpError(_STATUS["INVALID_ARGUMENT"], "%s: %s (at session creation, on "
                           "input%s %s of unknown rank given as shape (1,))"
                           % (type(e).__name__, e, "s" if len(unranked) > 1 else "",
                              ", ".join(map(str, unranked)))) from e
        arrays_out = [np.asarray(r) for r in (res if isinstance(res, (tuple, list)) else [res])]
        n = lib.onyx_op_output_count(ctx)
        if len(arrays_out) != n:
            raise _OpError(_STATUS["ARITY"], "the function returned %d arrays; the node has %d "
                           "outputs" % (len(arrays_out), n))
        return arrays_out

    def _infer(self, ctx: int) -> int:
        try:
            results = self._results(ctx, True)
            unknown = _unknown_dims(ctx)
            second: Optional[list[npt.NDArray[Any]]] = None
            if unknown:
                # A second probe with 2 for each unknown dimension tells
                # which output dimensions follow them (see _open_dims).
                try:
                    second = self._results(ctx, True, 2)
                except Exception:
                    second = None
            for k, r in enumerate(results):
                dtype = _capi.onyx_dtype_of(r.dtype)
                if dtype is None:
                    raise _OpError(_STATUS["TYPE"], "output %d: numpy type %s has no onyx type"
                                   % (k, r.dtype))
                shape: list[int] = list(r.shape)
                source: dict[int, tuple[int, int]] = {}
                if unknown:
                    r2 = second[k] if second is not None and k < len(second) else None
                    shape, source = _open_dims(r, r2, unknown)
                dims = (ctypes.c_int64 * max(r.ndim, 1))(*shape)
                st = lib.onyx_op_set_output(ctx, k, dtype, r.ndim, dims)
                for j, (i, d) in source.items():
                    if st == _STATUS["OK"]:
                        st = lib.onyx_op_set_output_dim_from(ctx, k, j, i, d)
                if st != _STATUS["OK"]:
                    return int(st)  # onyx recorded why
            return _STATUS["OK"]
        except BaseException as e:  # nothing may escape into C
            return _report(ctx, e)



    def _compute(self, ctx: int) -> int:
        try:
            for k, r in enumerate(self._results(ctx, False)):
                t = _capi.Tensor()
                lib.onyx_op_output(ctx, k, ctypes.byref(t))
                dtype = _capi.NUMPY_OF_DTYPE.get(t.dtype)
                if dtype is None:
                    continue  # an omitted output
                if r.shape != _dims(t) or r.dtype.newbyteorder("=") != dtype:
                    raise _OpError(_STATUS["SHAPE"], "output %d: the function returned %s %s; "
                                   "its result on the inputs' shapes was %s %s (onyx takes the "
                                   "shape from that result, so it may not depend on values)"
                                   % (k, r.dtype, r.shape, dtype, _dims(t)))
                if t.size:
                    buf = (ctypes.c_char * t.size).from_address(t.data)
                    np.copyto(np.frombuffer(memoryview(buf), dtype=dtype).reshape(r.shape), r)
            return _STATUS["OK"]
        except BaseException as e:
            return _report(ctx, e)


class _OpError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _report(ctx: int, e: BaseException) -> int:
    if isinstance(e, _OpError):
        return _fail(ctx, e.status, str(e))
    return _fail(ctx, _STATUS["INVALID_ARGUMENT"], "%s: %s" % (type(e).__name__, e))


_lock = threading.Lock()
_ops: dict[tuple[str, str], _PyOp] = {}


# A count of inputs or outputs, or a (min, max) pair of counts.
Arity = Union[None, int, tuple[int, int]]


def _arity(value: Arity, name: str) -> tuple[int, int]:
    if value is None:
        return (0, VARIADIC)
    if isinstance(value, int):
        value = (value, value)
    lo, hi = value
    if not (isinstance(lo, int) and isinstance(hi, int) and 0 <= lo <= hi <= VARIADIC):
        raise _capi.error(_STATUS["INVALID_ARGUMENT"], "%s must be a count or a (min, max) pair "
                          "of counts with min <= max, not %r" % (name, value))
    return (lo, hi)


def _domain(domain: str) -> str:
    """The registry's spelling of a domain: "ai.onnx" is "", as onnx and
    onyx's loader read it, so that both name one op and a second
    registration replaces the first."""
    domain = str(domain)
    return "" if domain == "ai.onnx" else domain


def register_op(name: str, fn: Callable[..., Any], *, domain: str = "", since: int = 1,
                until: int = 0, inputs: Arity = None, outputs: Arity = 1, override: bool = False,
                attributes: Iterable[str] = ()) -> None:
    """Registers fn(*arrays, **attrs) as the op `name` of `domain` ("" is
    ai.onnx) for opset versions since .. until (0: no upper bound), for
    every InferenceSession created afterwards. inputs, outputs: a count or
    a (min, max) pair (inputs default: any number; an omitted optional
    input is passed as None). fn returns an array, or a tuple of one array
    per output. attributes: names of node attributes to pass as keyword
    arguments (floats, ints, strings and lists of them). override: serve
    the op even where onyx implements it (Ceil, Clip, ...). Registering a
    name again replaces the earlier function. The definition is checked
    as onyx_op_registry_add checks it; errors raise OnyxInvalidArgumentError."""
    if not callable(fn):
        raise _capi.error(_STATUS["INVALID_ARGUMENT"], "register_op: fn must be callable")
    op = _PyOp(str(name), fn, _domain(domain), int(since), int(until), _arity(inputs, "inputs"),
               _arity(outputs, "outputs"), bool(override), attributes)
    with _Registry([op], []):  # checked now, as sessions will check it
        pass
    with _lock:
        _ops[(op.domain, op.name)] = op


def unregister_op(name: str, domain: str = "") -> None:
    """Removes a registered Python op; sessions created before keep it."""
    with _lock:
        _ops.pop((_domain(domain), str(name)), None)


class _Registry:
    """An onyx_op_registry holding Python ops and op libraries, freed after
    the sessions that use it (they hold a reference)."""

    def __init__(self, ops: Iterable[_PyOp], libraries: Iterable[bytes]) -> None:
        self.handle = ctypes.c_void_p()
        self.ops = list(ops)
        err = _capi.Error()
        _capi.check(lib.onyx_op_registry_create(ctypes.byref(self.handle), ctypes.byref(err)),
                    err)
        for op in self.ops:
            d = op.definition()
            self._check(lib.onyx_op_registry_add(self.handle, ctypes.byref(d), ctypes.byref(err)),
                        err)
        for path in libraries:
            self._check(lib.onyx_op_registry_load_library(self.handle, path, ctypes.byref(err)),
                        err)

    def _check(self, status: int, err: _capi.Error) -> None:
        if status != _STATUS["OK"]:
            self.close()
            _capi.check(status, err)

    def close(self) -> None:
        if self.handle:
            lib.onyx_op_registry_free(self.handle)
            self.handle = ctypes.c_void_p()

    def __enter__(self) -> _Registry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


def session_registry(libraries: Iterable[bytes]) -> Optional[_Registry]:
    """A registry of the registered Python ops and the given op libraries
    (paths as bytes), or None when there are none."""
    with _lock:
        ops = list(_ops.values())
    if not ops and not libraries:
        return None
    return _Registry(ops, libraries)
