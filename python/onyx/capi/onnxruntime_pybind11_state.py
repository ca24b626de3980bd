# SPDX-License-Identifier: MIT
"""ONNX Runtime's exception classes, under the module path its users write
(``onnxruntime.capi.onnxruntime_pybind11_state``), so that with
``import onyx as onnxruntime``::

    except onnxruntime.capi.onnxruntime_pybind11_state.InvalidArgument:

catches what onyx raises for the same fault. Each class is a subclass of
``onyx.OnyxError``; each onyx status's class (``onyx.OnyxInputTypeError``,
...) is a subclass of one of them: InvalidArgument for bad arguments and
run inputs, NoSuchFile for a file that cannot be read, InvalidProtobuf for
bytes that are not a model, NotImplemented for an op onyx does not have,
InvalidGraph for a model that is wrong, RuntimeException for an internal
error, and Fail for the rest (IR version, opset, tensor data, limits,
memory). NoModel, EngineError, ModelLoaded and EPFail exist for code that
names them; onyx raises none of them.
"""

from .._capi import ORT_ERRORS

globals().update(ORT_ERRORS)

__all__ = sorted(ORT_ERRORS)
