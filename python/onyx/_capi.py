# SPDX-License-Identifier: MIT
"""The C library, through ctypes: finding and loading libonyx.so, the
structures and function signatures of include/onyx.h, element types, and
the exception classes that carry onyx's status codes.

Lookup order for the library (the first that exists is loaded):

1. the file named by the environment variable ONYX_LIBRARY (an error if it
   is set but cannot be loaded: nothing else is tried);
2. libonyx.so (or libonyx.so.N...) next to this package, as an installed
   wheel or a copy would have it;
3. build/libonyx.so in the source tree this package sits in (python/onyx is
   two levels below the repository root);
4. the system's libraries, through ctypes.util.find_library("onyx").
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
from typing import Any, Iterator, Optional, overload

import numpy as np
import numpy.typing as npt

MAX_RANK = 16  # ONYX_MAX_RANK

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates() -> Iterator[tuple[str, str]]:
    """The places the library may be, in lookup order, as (how, path); the
    system is asked last, and only if nothing before it loads."""
    for p in sorted(glob.glob(os.path.join(_HERE, "libonyx.so*"))):
        yield "next to the package", p
    build = os.path.join(os.path.dirname(os.path.dirname(_HERE)), "build", "libonyx.so")
    if os.path.exists(build):
        yield "the build folder", build
    system = ctypes.util.find_library("onyx")
    if system:
        yield "the system", system


def _load() -> tuple[ctypes.CDLL, str]:
    env = os.environ.get("ONYX_LIBRARY")
    if env:
        try:
            return ctypes.CDLL(env, mode=ctypes.RTLD_GLOBAL), env
        except OSError as e:
            raise ImportError("onyx: cannot load the library named by ONYX_LIBRARY (%s): %s"
                              % (env, e)) from None
    errors = []
    for how, path in _candidates():
        try:
            return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL), path
        except OSError as e:
            errors.append("%s (%s): %s" % (path, how, e))
    raise ImportError(
        "onyx: libonyx.so not found. Looked for ONYX_LIBRARY (not set), libonyx.so next to "
        "the package (%s), build/libonyx.so in its source tree, and the system's libraries"
        "%s. Build onyx (cmake --build build) or set ONYX_LIBRARY to the library's path."
        % (_HERE, (": " + "; ".join(errors)) if errors else ""))


# RTLD_GLOBAL: op libraries that sessions load (register_custom_ops_library)
# resolve the onyx_* functions they call from this library.
lib, library_path = _load()


# ---- Structures (include/onyx.h) --------------------------------------------

class Error(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("message", ctypes.c_char * 512)]


class Tensor(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("rank", ctypes.c_uint32),
                ("dims", ctypes.c_int64 * MAX_RANK), ("data", ctypes.c_void_p),
                ("size", ctypes.c_size_t)]


class ValueInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int), ("has_shape", ctypes.c_int),
                ("rank", ctypes.c_uint32), ("dims", ctypes.c_int64 * MAX_RANK),
                ("dim_names", ctypes.c_char_p * MAX_RANK)]


class NodeInfo(ctypes.Structure):
    _fields_ = [("op_type", ctypes.c_char_p), ("domain", ctypes.c_char_p),
                ("name", ctypes.c_char_p), ("input_count", ctypes.c_size_t),
                ("inputs", ctypes.POINTER(ctypes.c_char_p)), ("output_count", ctypes.c_size_t),
                ("outputs", ctypes.POINTER(ctypes.c_char_p))]


class ModelMetadataC(ctypes.Structure):
    """onyx_model_meta: the ModelProto's descriptive fields. The strings
    and arrays belong to the model. Used only when the library exports
    onyx_model_metadata (see HAS_METADATA)."""
    _fields_ = [("producer_name", ctypes.c_char_p), ("producer_version", ctypes.c_char_p),
                ("domain", ctypes.c_char_p), ("model_version", ctypes.c_int64),
                ("doc_string", ctypes.c_char_p), ("graph_name", ctypes.c_char_p),
                ("metadata_count", ctypes.c_size_t),
                ("metadata_keys", ctypes.POINTER(ctypes.c_char_p)),
                ("metadata_values", ctypes.POINTER(ctypes.c_char_p))]


class SessionOptionsC(ctypes.Structure):
    _fields_ = [("threads", ctypes.c_uint32), ("isa_cap", ctypes.c_int),
                ("arena", ctypes.c_void_p), ("arena_size", ctypes.c_size_t),
                ("ops", ctypes.c_void_p)]


_P = ctypes.POINTER
_c = ctypes
_SIGNATURES = {
    "onyx_version": (_c.c_char_p, []),
    "onyx_status_name": (_c.c_char_p, [_c.c_int]),
    "onyx_status_description": (_c.c_char_p, [_c.c_int]),
    "onyx_dtype_name": (_c.c_char_p, [_c.c_int]),
    "onyx_dtype_size": (_c.c_size_t, [_c.c_int]),
    "onyx_max_opset": (_c.c_int64, []),
    "onyx_isa_detected": (_c.c_int, []),
    "onyx_isa_name": (_c.c_char_p, [_c.c_int]),
    "onyx_free": (None, [_c.c_void_p]),
    "onyx_model_load_file": (_c.c_int, [_c.c_char_p, _P(_c.c_void_p), _P(Error)]),
    "onyx_model_load_memory": (_c.c_int, [_c.c_char_p, _c.c_size_t, _P(_c.c_void_p),
                                          _P(Error)]),
    "onyx_model_free": (None, [_c.c_void_p]),
    "onyx_model_ir_version": (_c.c_int64, [_c.c_void_p]),
    "onyx_model_opset_count": (_c.c_size_t, [_c.c_void_p]),
    "onyx_model_opset": (_c.c_int, [_c.c_void_p, _c.c_size_t, _P(_c.c_char_p),
                                    _P(_c.c_int64), _P(Error)]),
    "onyx_model_node_count": (_c.c_size_t, [_c.c_void_p]),
    "onyx_model_node": (_c.c_int, [_c.c_void_p, _c.c_size_t, _P(NodeInfo), _P(Error)]),
    "onyx_session_options_init": (None, [_P(SessionOptionsC)]),
    "onyx_session_create": (_c.c_int, [_c.c_void_p, _P(SessionOptionsC), _P(_c.c_void_p),
                                       _P(Error)]),
    "onyx_session_free": (None, [_c.c_void_p]),
    "onyx_session_input_count": (_c.c_size_t, [_c.c_void_p]),
    "onyx_session_output_count": (_c.c_size_t, [_c.c_void_p]),
    "onyx_session_input_info": (_c.c_int, [_c.c_void_p, _c.c_size_t, _P(ValueInfo), _P(Error)]),
    "onyx_session_output_info": (_c.c_int, [_c.c_void_p, _c.c_size_t, _P(ValueInfo),
                                            _P(Error)]),
    "onyx_session_run": (_c.c_int, [_c.c_void_p, _P(Tensor), _c.c_size_t, _P(Tensor),
                                    _c.c_size_t, _P(Error)]),
    "onyx_ceil": (_c.c_int, [_c.c_int, _c.c_size_t, _c.c_void_p, _c.c_void_p, _P(Error)]),
    "onyx_floor": (_c.c_int, [_c.c_int, _c.c_size_t, _c.c_void_p, _c.c_void_p, _P(Error)]),
    "onyx_sign": (_c.c_int, [_c.c_int, _c.c_size_t, _c.c_void_p, _c.c_void_p, _P(Error)]),
    "onyx_clip": (_c.c_int, [_c.c_int, _c.c_size_t, _c.c_void_p, _c.c_void_p, _c.c_void_p,
                             _c.c_void_p, _P(Error)]),
}
# Functions of newer libraries, used when present.
_OPTIONAL_SIGNATURES = {
    "onyx_model_metadata": (_c.c_int, [_c.c_void_p, _P(ModelMetadataC), _P(Error)]),
}
for _name, (_restype, _argtypes) in _SIGNATURES.items():
    _f = getattr(lib, _name)
    _f.restype = _restype
    _f.argtypes = _argtypes
for _name, (_restype, _argtypes) in _OPTIONAL_SIGNATURES.items():
    if hasattr(lib, _name):
        _f = getattr(lib, _name)
        _f.restype = _restype
        _f.argtypes = _argtypes
HAS_METADATA = hasattr(lib, "onyx_model_metadata")


@overload
def text(b: bytes) -> str: ...
@overload
def text(b: None) -> None: ...
@overload
def text(b: Optional[bytes]) -> Optional[str]: ...


def text(b: Optional[bytes]) -> Optional[str]:
    """A C string from the library as str (None stays None)."""
    return None if b is None else b.decode("utf-8", "replace")


# ---- Element types ----------------------------------------------------------

# onyx_dtype (= ONNX TensorProto.DataType) -> numpy type. bfloat16 has no
# numpy type: its elements travel as uint16 bit patterns.
DTYPE_UNDEFINED = 0
DTYPE_BFLOAT16 = 16
NUMPY_OF_DTYPE: dict[int, np.dtype[Any]] = {
    1: np.dtype(np.float32), 2: np.dtype(np.uint8), 3: np.dtype(np.int8),
    4: np.dtype(np.uint16), 5: np.dtype(np.int16), 6: np.dtype(np.int32),
    7: np.dtype(np.int64), 10: np.dtype(np.float16), 11: np.dtype(np.float64),
    12: np.dtype(np.uint32), 13: np.dtype(np.uint64), DTYPE_BFLOAT16: np.dtype(np.uint16),
}
DTYPE_OF_NUMPY: dict[np.dtype[Any], int] = {v: k for k, v in NUMPY_OF_DTYPE.items() if k != DTYPE_BFLOAT16}


def dtype_name(dtype: int) -> str:
    return text(lib.onyx_dtype_name(dtype)) or ""


def onyx_dtype_of(np_dtype: npt.DTypeLike, bfloat16: bool = False) -> Optional[int]:
    """The onyx type for a numpy type (native byte order), or None. With
    bfloat16, uint16 stands for bfloat16 bit patterns."""
    d = np.dtype(np_dtype).newbyteorder("=")
    if bfloat16 and d == np.uint16:
        return DTYPE_BFLOAT16
    return DTYPE_OF_NUMPY.get(d)


# ---- Errors -----------------------------------------------------------------

class OnyxError(RuntimeError):
    """An error onyx reported. ``status`` is the onyx_status number,
    ``status_name`` its name ("ONYX_TYPE"), ``message`` onyx's one-line
    message. Each status has its own subclass (OnyxTypeError, ...), listed in
    ``onyx.STATUS_ERRORS``."""

    status: Optional[int] = None
    status_name: Optional[str] = None

    def __init__(self, message: str, status: Optional[int] = None) -> None:
        if status is not None:
            self.status = status
            self.status_name = text(lib.onyx_status_name(status))
        self.message = message
        super().__init__("%s (%s)" % (message, self.status_name) if self.status_name else message)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as (status, message), as a worker process sends it back to
        # its parent or client: the copy is the original's class, and its
        # text is not suffixed twice.
        if type(self).status is not None or self.status is None:
            return (type(self), (self.message,), self.__dict__)
        return (error, (self.status, self.message), self.__dict__)


# ONNX Runtime's exception classes (onnxruntime.capi.onnxruntime_pybind11_state),
# so that code written for it catches onyx's errors by the same names. Each
# is a subclass of OnyxError, and each status's class below is a subclass of
# one of them.
ORT_ERROR_NAMES = ("Fail", "InvalidArgument", "NoSuchFile", "NoModel", "EngineError",
                   "RuntimeException", "InvalidProtobuf", "ModelLoaded", "NotImplemented",
                   "InvalidGraph", "EPFail")
ORT_ERRORS: dict[str, type[OnyxError]] = {
    name: type(name, (OnyxError,), {
        "__module__": "onyx.capi.onnxruntime_pybind11_state",
        "__doc__": "ONNX Runtime's %s, raised by onyx for the statuses that map to it "
                   "(see onyx.STATUS_ERRORS)." % name,
    })
    for name in ORT_ERROR_NAMES
}

# ONYX_STATUS_MAP: name and value (a test checks them against the library
# and the header), and the ONNX Runtime class the status's class derives
# from: what ONNX Runtime raises for the same fault.
STATUSES: list[tuple[str, int, Optional[str]]] = [
    ("OK", 0, None), ("INVALID_ARGUMENT", 1, "InvalidArgument"), ("OUT_OF_MEMORY", 2, "Fail"),
    ("IO", 3, "NoSuchFile"), ("PARSE", 4, "InvalidProtobuf"), ("IR_VERSION", 5, "Fail"),
    ("OPSET", 6, "Fail"), ("UNSUPPORTED_OP", 7, "NotImplemented"), ("ARITY", 8, "InvalidGraph"),
    ("ATTRIBUTE", 9, "InvalidGraph"), ("UNDEFINED_VALUE", 10, "InvalidGraph"),
    ("DUPLICATE_VALUE", 11, "InvalidGraph"), ("CYCLE", 12, "InvalidGraph"),
    ("TYPE", 13, "InvalidGraph"), ("SHAPE", 14, "InvalidGraph"), ("TENSOR_DATA", 15, "Fail"),
    ("EXTERNAL_DATA", 16, "Fail"), ("LIMIT", 17, "Fail"), ("INPUT_MISSING", 18, "InvalidArgument"),
    ("INPUT_TYPE", 19, "InvalidArgument"), ("INPUT_SHAPE", 20, "InvalidArgument"),
    ("BUFFER_TOO_SMALL", 21, "InvalidArgument"), ("INTERNAL", 22, "RuntimeException"),
]


def _class_name(status_name: str) -> str:
    """INVALID_ARGUMENT -> OnyxInvalidArgumentError."""
    return "Onyx" + "".join(w.capitalize() for w in status_name.split("_")) + "Error"


# status number -> exception class, one per error status.
# ONNX Runtime's Python layer raises ValueError for a missing input, before
# its library sees the run; code written for it catches that.
_PYTHON_BASES: dict[str, tuple[type, ...]] = {"INPUT_MISSING": (ValueError,)}

STATUS_ERRORS: dict[int, type[OnyxError]] = {}
for _name, _value, _ort in STATUSES:
    if _ort is None:
        continue
    _cls = type(_class_name(_name), (ORT_ERRORS[_ort],) + _PYTHON_BASES.get(_name, ()), {
        "status": _value,
        "status_name": "ONYX_" + _name,
        "__doc__": "onyx status ONYX_%s (%d): %s." % (
            _name, _value, text(lib.onyx_status_description(_value))),
        "__module__": "onyx",
    })
    STATUS_ERRORS[_value] = _cls


_STATUS_VALUE = {name: value for name, value, _ in STATUSES}


def status_value(name: str) -> int:
    """The number of a status by its name without ONYX_ ("TYPE" -> 13)."""
    return _STATUS_VALUE[name]


def error(status: Optional[int], message: str) -> OnyxError:
    """The exception for a status and message."""
    cls = None if status is None else STATUS_ERRORS.get(status)
    if cls is None:
        return OnyxError(message, status)
    return cls(message)


def check(status: int, err: Error) -> None:
    """Raises the exception for a failed call (status != 0)."""
    if status != 0:
        message = text(err.message) if err.message else text(lib.onyx_status_description(status))
        raise error(status, message)
