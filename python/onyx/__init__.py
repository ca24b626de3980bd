# SPDX-License-Identifier: MIT
"""onyx: run ONNX models (Ceil, Floor, Clip, Sign, Constant) with the onyx C
library, from Python.

The API has the shape of ONNX Runtime's, so that switching is one import::

    import onyx as ort                      # instead of: import onnxruntime as ort
    sess = ort.InferenceSession("model.onnx")
    x = sess.get_inputs()[0]                # .name, .type ('tensor(float)'), .shape
    (y,) = sess.run(None, {x.name: data})   # a list of numpy arrays

operators onyx lacks can be given as numpy functions
(``onyx.register_op("Abs", np.abs)``) or op libraries
(``SessionOptions.register_custom_ops_library``); and
the kernels on arrays, without a model: ``onyx.ceil``, ``onyx.floor``,
``onyx.sign`` and ``onyx.clip(x, min=None, max=None)``.

Also from ONNX Runtime's API: ``OrtValue``, ``session.io_binding()`` (onyx
reads and writes bound arrays in place), ``run_with_ort_values``,
``SessionOptions`` and ``RunOptions`` whose fields onyx uses, accepts, or
warns about (never drops silently), ``get_build_info()`` and the logger
settings; docs/python.md has the whole table.

Errors raise ``OnyxError`` subclasses, one per onyx status
(``OnyxParseError``, ``OnyxInputTypeError``, ...), carrying onyx's one-line
message and ``.status`` / ``.status_name``. Each also derives from the
class ONNX Runtime raises for the same fault, under the path its users
write: ``onyx.capi.onnxruntime_pybind11_state.InvalidArgument``, ...

numpy has no bfloat16: bfloat16 tensors travel as uint16 arrays of bit
patterns. A session reads a uint16 array as bfloat16 when the input is
declared bfloat16, and returns bfloat16 outputs as uint16; the kernels take
``bfloat16=True``.

The package needs only the standard library and numpy, and loads the C
library libonyx.so from the environment variable ONYX_LIBRARY, else next to
the package, else build/libonyx.so of the source tree it sits in, else the
system's libraries. ``onyx.library_path`` says which file was loaded.
"""

from . import capi
from ._binding import IOBinding, OrtValue
from ._capi import (OnyxError, STATUS_ERRORS, lib as _lib, library_path, text as _text)
from ._custom import register_op, unregister_op
from ._kernels import ceil, clip, floor, sign
from ._options import (ExecutionMode, ExecutionOrder, GraphOptimizationLevel, RunOptions,
                       SessionOptions, set_default_logger_severity, set_default_logger_verbosity)
from ._session import PROVIDERS as _PROVIDERS, InferenceSession, ModelMetadata, NodeArg

__version__: str = _text(_lib.onyx_version())

# One exception class per onyx status, named Onyx<Name>Error
# (OnyxInvalidArgumentError, ..., OnyxInternalError).
for _cls in STATUS_ERRORS.values():
    globals()[_cls.__name__] = _cls
del _cls


def get_available_providers() -> list[str]:
    """The execution providers onyx has: the CPU."""
    return list(_PROVIDERS)


def get_all_providers() -> list[str]:
    return list(_PROVIDERS)


def get_version_string() -> str:
    return __version__


def get_build_info() -> str:
    """What was loaded: onyx's version, the library's path, the kernels'
    instruction set level and the newest opset."""
    return "onyx %s, library %s, kernels up to %s, ai.onnx opsets up to %d" % (
        __version__, library_path, isa_detected(), max_opset())


def get_device() -> str:
    """The device onyx runs on."""
    return "CPU"


def max_opset() -> int:
    """The newest ai.onnx opset onyx supports."""
    return int(_lib.onyx_max_opset())


def isa_detected() -> str:
    """The instruction set level onyx's kernels use with no cap ('avx2', ...)."""
    return _text(_lib.onyx_isa_name(_lib.onyx_isa_detected())) or ""


__all__ = [
    "InferenceSession", "SessionOptions", "RunOptions", "NodeArg", "ModelMetadata",
    "GraphOptimizationLevel", "ExecutionMode", "ExecutionOrder", "OrtValue", "IOBinding",
    "OnyxError", "STATUS_ERRORS", "ceil", "floor", "sign", "clip", "get_available_providers",
    "get_all_providers", "get_device", "get_build_info", "get_version_string",
    "set_default_logger_severity", "set_default_logger_verbosity", "max_opset",
    "isa_detected", "library_path", "capi", "__version__", "register_op", "unregister_op",
]
# The status classes, made above (Onyx<Name>Error).
__all__.extend(sorted(c.__name__ for c in STATUS_ERRORS.values()))
