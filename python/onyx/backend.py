# SPDX-License-Identifier: MIT
"""onyx as an ONNX backend: ``onnx.backend.base.Backend``, so that ONNX's
own test harness (``onnx.backend.test.BackendTest``) and other code written
for that interface run models with onyx::

    import onnx.backend.test
    import onyx.backend
    globals().update(onnx.backend.test.BackendTest(onyx.backend, __name__).test_cases)

``prepare`` raises ``unittest.SkipTest`` for a model that uses an op, an
element type or an opset onyx does not serve (onyx's status
ONYX_UNSUPPORTED_OP, ONYX_TYPE or ONYX_OPSET), with onyx's message, so that a harness counts it as skipped,
not failed. Every other problem raises the ``OnyxError`` subclass for its
status.

This is the only module of the package that imports ``onnx``; the rest of
the package works without it.
"""

from __future__ import annotations

import os
import unittest
from typing import Any, Optional, Sequence

import numpy as np
import numpy.typing as npt
import onnx
from onnx import helper
from onnx.backend.base import Backend, BackendRep, namedtupledict

from . import _capi
from ._options import SessionOptions
from ._session import InferenceSession

# onyx statuses that mean "onyx does not serve this model", as opposed to
# "this model or call is wrong": an op, an element type, or an opset (a
# version onyx does not know, or a domain such as ai.onnx.preview.training
# without ai.onnx).
_NOT_SERVED: tuple[type[_capi.OnyxError], ...] = tuple(_capi.STATUS_ERRORS[_capi.status_value(name)]
                    for name in ("UNSUPPORTED_OP", "TYPE", "OPSET"))

# Keywords of prepare() besides SessionOptions' attributes.
_SESSION_KEYWORDS = ("threads", "isa")


class OnyxBackendRep(BackendRep):  # type: ignore[misc]  # onnx has no type hints
    """A prepared model: ``run(inputs)`` with a list (in the order of the
    session's inputs), a dict (by name) or a single array, returns the
    outputs in model order as a tuple that can also be indexed by name."""

    def __init__(self, session: InferenceSession) -> None:
        self.session = session
        self._input_names = [i.name for i in session.get_inputs()]
        self._outputs = namedtupledict("Outputs", [o.name for o in session.get_outputs()])

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        if kwargs:
            raise TypeError("run() takes no keyword arguments; got %s" % ", ".join(kwargs))
        if isinstance(inputs, dict):
            feed = dict(inputs)
        else:
            if isinstance(inputs, np.ndarray):
                inputs = [inputs]
            inputs = list(inputs)
            if len(inputs) != len(self._input_names):
                raise _capi.error(_capi.status_value("INVALID_ARGUMENT"),
                                  "%d inputs given; the model takes %d (%s)" % (
                                      len(inputs), len(self._input_names),
                                      ", ".join("'%s'" % n for n in self._input_names)))
            feed = dict(zip(self._input_names, inputs))
        outputs: tuple[Any, ...] = self._outputs(*self.session.run(None, feed))
        return outputs


class OnyxBackend(Backend):  # type: ignore[misc]  # onnx has no type hints
    """The backend: ``prepare``, ``run_model``, ``run_node`` and
    ``supports_device`` (the CPU only)."""

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return str(device).upper().split(":")[0] == "CPU"

    @classmethod
    def prepare(cls, model: Any, device: str = "CPU", **kwargs: Any) -> OnyxBackendRep:
        """A session for model (a ModelProto, its serialized bytes or a
        path). kwargs set SessionOptions attributes
        (``intra_op_num_threads=2``), or InferenceSession's ``threads`` and
        ``isa``; an unknown keyword raises TypeError."""
        if not cls.supports_device(device):
            raise _capi.error(_capi.status_value("INVALID_ARGUMENT"),
                              "device %r: onyx runs on the CPU only" % (device,))
        options = SessionOptions()
        session_kwargs: dict[str, Any] = {}
        for key, value in kwargs.items():
            if key in _SESSION_KEYWORDS:
                session_kwargs[key] = value
            elif hasattr(options, key):
                setattr(options, key, value)
            else:
                raise TypeError("prepare(): %r is neither a SessionOptions attribute nor one of "
                                "%s" % (key, ", ".join(_SESSION_KEYWORDS)))
        if isinstance(model, onnx.ModelProto):
            model = model.SerializeToString()
        elif not isinstance(model, (bytes, bytearray, memoryview)):
            model = os.fspath(model)
        try:
            session = InferenceSession(model, options, **session_kwargs)
        except _NOT_SERVED as e:
            raise unittest.SkipTest("onyx does not serve this model: %s" % e) from e
        return OnyxBackendRep(session)

    @classmethod
    def run_model(cls, model: Any, inputs: Any, device: str = "CPU",
                  **kwargs: Any) -> tuple[Any, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node: Any, inputs: Any, device: str = "CPU",
                 outputs_info: Optional[Sequence[tuple[Any, Any]]] = None,
                 **kwargs: Any) -> tuple[Any, ...]:
        """Runs one node on inputs (a list for the node's non-empty inputs in
        order, or a dict by name). The model built around it imports
        ``opset_version`` (a keyword; default: the newest opset onyx
        supports); outputs_info, a list of (numpy type, shape), declares the
        outputs."""
        opset = kwargs.pop("opset_version", None) or _capi.lib.onyx_max_opset()
        names = [n for n in node.input if n]
        if isinstance(inputs, dict):
            arrays = [np.asarray(inputs[n]) for n in names]
        else:
            arrays = [np.asarray(a) for a in inputs]
            if len(arrays) != len(names):
                raise _capi.error(_capi.status_value("INVALID_ARGUMENT"),
                                  "%d inputs given; node '%s' (%s) takes %d" % (
                                      len(arrays), node.name, node.op_type, len(names)))
        graph_inputs = [helper.make_tensor_value_info(n, _tensor_type(a.dtype), a.shape)
                        for n, a in zip(names, arrays)]
        graph_outputs = []
        for k, name in enumerate(node.output):
            if outputs_info is not None and k < len(outputs_info):
                dtype, shape = outputs_info[k]
                graph_outputs.append(helper.make_tensor_value_info(
                    name, _tensor_type(dtype), shape))
            else:
                graph_outputs.append(helper.make_empty_tensor_value_info(name))
        imports = [helper.make_opsetid("", int(opset))]
        if node.domain not in ("", "ai.onnx"):
            imports.append(helper.make_opsetid(node.domain, 1))
        graph = helper.make_graph([node], "run_node_%s" % node.op_type, graph_inputs,
                                  graph_outputs)
        model = helper.make_model(graph, opset_imports=imports)
        return cls.prepare(model, device, **kwargs).run(arrays)


def _tensor_type(np_dtype: npt.DTypeLike) -> int:
    """The TensorProto type of a numpy type (uint16 stays uint16: numpy
    cannot say bfloat16)."""
    d = np.dtype(np_dtype)
    try:
        if hasattr(helper, "np_dtype_to_tensor_dtype"):  # onnx 1.13 and later
            return int(helper.np_dtype_to_tensor_dtype(d))
        from onnx import mapping  # onnx 1.12: the only way
        return int(mapping.NP_TYPE_TO_TENSOR_TYPE[d])
    except (KeyError, ValueError):
        raise _capi.error(_capi.status_value("INPUT_TYPE"),
                          "numpy type %s has no ONNX tensor type" % d) from None


# The module-level interface onnx.backend.test.BackendTest expects.
prepare = OnyxBackend.prepare
run_model = OnyxBackend.run_model
run_node = OnyxBackend.run_node
supports_device = OnyxBackend.supports_device
is_compatible = OnyxBackend.is_compatible
