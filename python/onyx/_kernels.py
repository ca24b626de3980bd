# SPDX-License-Identifier: MIT
"""The element-wise kernels on numpy arrays, without a model: onyx.ceil,
onyx.floor, onyx.sign and onyx.clip call onyx_ceil, onyx_floor, onyx_sign
and onyx_clip of the C library."""

from __future__ import annotations

import ctypes
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

from . import _capi
from ._capi import lib


# What the kernels take and give: arrays of any element type (the C library
# checks it).
Array = npt.NDArray[Any]


def _prepare(x: npt.ArrayLike, out: Optional[Array],
             bfloat16: bool) -> tuple[Array, int, Array]:
    a = x if isinstance(x, np.ndarray) else np.asarray(x)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    a = np.require(a, requirements=("C_CONTIGUOUS", "ALIGNED"))
    dtype = _capi.onyx_dtype_of(a.dtype, bfloat16)
    if dtype is None:
        raise _capi.error(13, "numpy type %s has no onyx type%s" % (
            a.dtype, "" if bfloat16 else " (bfloat16 is uint16 with bfloat16=True)"))
    if out is None:
        out = np.empty(a.shape, dtype=a.dtype)
    else:
        if not isinstance(out, np.ndarray) or out.dtype != a.dtype or out.shape != a.shape:
            raise _capi.error(1, "out must be a numpy array of x's type and shape")
        if not (out.flags.c_contiguous and out.flags.aligned and out.flags.writeable):
            raise _capi.error(1, "out must be C-contiguous, aligned and writeable")
        if np.shares_memory(a, out) and a.ctypes.data != out.ctypes.data:
            raise _capi.error(1, "out may be x itself but must not otherwise overlap it")
    return a, dtype, out


def _unary(fn: Any, x: npt.ArrayLike, out: Optional[Array], bfloat16: bool) -> Array:
    a, dtype, y = _prepare(x, out, bfloat16)
    err = _capi.Error()
    _capi.check(fn(dtype, a.size, a.ctypes.data, y.ctypes.data, ctypes.byref(err)), err)
    return y


def ceil(x: npt.ArrayLike, *, out: Optional[Array] = None, bfloat16: bool = False) -> Array:
    """Ceil of every element, as the ONNX operator (ceil(-0.5) is -0, NaN
    and infinities pass through). x: float16, float32 or float64 array, or
    with bfloat16=True a uint16 array of bfloat16 bit patterns. Returns a new
    array of x's type (or fills ``out``, which may be x itself)."""
    return _unary(lib.onyx_ceil, x, out, bfloat16)


def floor(x: npt.ArrayLike, *, out: Optional[Array] = None, bfloat16: bool = False) -> Array:
    """Floor of every element, as the ONNX operator. Types as ceil()."""
    return _unary(lib.onyx_floor, x, out, bfloat16)


def sign(x: npt.ArrayLike, *, out: Optional[Array] = None, bfloat16: bool = False) -> Array:
    """Sign of every element (1, -1 or 0; NaN stays NaN; Sign(-0) is +0), as
    the ONNX operator. Any integer or float type; with bfloat16=True a uint16
    array holds bfloat16 bit patterns."""
    return _unary(lib.onyx_sign, x, out, bfloat16)


def _bound(value: Optional[npt.ArrayLike], a: Array, bfloat16: bool, which: str) -> Optional[Array]:
    """One element of x's type for a bound, in a ctypes buffer (None stays
    None). Integer bounds must be representable exactly."""
    if value is None:
        return None
    if bfloat16:
        f = np.asarray(value, dtype=np.float32)
        if f.size != 1:
            raise _capi.error(1, "%s must be one number" % which)
        bits = int(f.reshape(()).view(np.uint32))
        if (bits & 0x7FFFFFFF) > 0x7F800000:  # NaN: keep it NaN
            b = (bits >> 16) | 0x40
        else:  # round to nearest, ties to even
            b = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return np.array([b & 0xFFFF], dtype=np.uint16)
    if np.issubdtype(a.dtype, np.integer):
        info = np.iinfo(a.dtype)
        v = np.asarray(value)
        if v.size != 1 or not (np.issubdtype(v.dtype, np.integer) or
                               (np.issubdtype(v.dtype, np.floating) and
                                float(v) == np.floor(float(v)))):
            raise _capi.error(1, "%s %r is not an integer of type %s" % (which, value, a.dtype))
        iv = int(v.reshape(()))
        if iv < info.min or iv > info.max:
            raise _capi.error(1, "%s %r does not fit in %s" % (which, value, a.dtype))
        return np.array([iv], dtype=a.dtype)
    bound = np.asarray(value, dtype=a.dtype)
    if bound.size != 1:
        raise _capi.error(1, "%s must be one number" % which)
    return np.ascontiguousarray(bound.reshape((1,)))


def clip(x: npt.ArrayLike, min: Optional[npt.ArrayLike] = None,
         max: Optional[npt.ArrayLike] = None, *, out: Optional[Array] = None,
         bfloat16: bool = False) -> Array:
    """min(max(x, min), max) for every element, as ONNX Clip-11 and later
    (and numpy's np.clip): None is no bound on that side; when min > max every
    element becomes max; NaN in x stays NaN; a NaN bound is no bound.

    x: any integer or float array; with bfloat16=True a uint16 array of
    bfloat16 bit patterns, and min and max are numbers rounded to the nearest
    bfloat16. Float bounds are converted to x's type; integer bounds must be
    integers that fit in it. Returns a new array (or fills ``out``, which may
    be x itself)."""
    a, dtype, y = _prepare(x, out, bfloat16)
    lo = _bound(min, a, bfloat16, "min")
    hi = _bound(max, a, bfloat16, "max")
    err = _capi.Error()
    st = lib.onyx_clip(dtype, a.size, a.ctypes.data, y.ctypes.data,
                       None if lo is None else lo.ctypes.data,
                       None if hi is None else hi.ctypes.data, ctypes.byref(err))
    _capi.check(st, err)
    return y
