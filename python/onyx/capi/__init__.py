# SPDX-License-Identifier: MIT
"""Module paths that code written for ONNX Runtime names:
``onyx.capi.onnxruntime_pybind11_state`` holds ONNX Runtime's exception
classes (Fail, InvalidArgument, NoSuchFile, ...)."""

from . import onnxruntime_pybind11_state  # noqa: F401
