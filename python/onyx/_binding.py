# SPDX-License-Identifier: MIT
"""OrtValue and IOBinding, shaped like ONNX Runtime's: values that stay in
numpy arrays (onyx runs on the CPU, so every value is "on the device"), and
inputs and outputs bound to memory before a run, so that onyx reads and
writes the caller's arrays in place."""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any, Iterable, Optional

import numpy as np
import numpy.typing as npt

from . import _capi

if TYPE_CHECKING:
    from ._session import InferenceSession

Array = npt.NDArray[Any]

_INVALID_ARGUMENT = _capi.status_value("INVALID_ARGUMENT")


def _check_device(device_type: str, device_id: Optional[int] = 0) -> None:
    if str(device_type).lower() != "cpu" or device_id not in (0, None):
        raise _capi.error(_INVALID_ARGUMENT, "device %r (id %r): onyx runs on the CPU only"
                          % (device_type, device_id))


def _array_at(buffer_ptr: int, element_type: npt.DTypeLike, shape: Iterable[int]) -> Array:
    """A numpy array over memory the caller owns, without a copy."""
    dtype = np.dtype(element_type)
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise _capi.error(_INVALID_ARGUMENT, "shape %s has a negative dimension" % (dims,))
    count = int(np.prod(dims, dtype=np.int64))
    if count and not buffer_ptr:
        raise _capi.error(_INVALID_ARGUMENT, "buffer_ptr is NULL")
    if not count:
        return np.empty(dims, dtype=dtype)
    raw = (ctypes.c_char * (count * dtype.itemsize)).from_address(int(buffer_ptr))
    return np.frombuffer(memoryview(raw), dtype=dtype).reshape(dims)


class OrtValue:
    """A tensor held in a numpy array, as ONNX Runtime's OrtValue on the
    CPU. ``ortvalue_from_numpy`` keeps the array itself (no copy) when it
    is C-contiguous, aligned and of native byte order, and ``numpy()``
    returns that array, so both see the same memory."""

    def __init__(self, array: Array, onyx_dtype: Optional[int] = None) -> None:
        self._array = array
        dtype = onyx_dtype if onyx_dtype is not None else _capi.onyx_dtype_of(array.dtype)
        if dtype is None:
            raise _capi.error(_capi.status_value("TYPE"),
                              "numpy type %s has no onyx type" % array.dtype)
        self._dtype: int = dtype

    @staticmethod
    def ortvalue_from_numpy(numpy_obj: npt.ArrayLike, device_type: str = "cpu",
                            device_id: int = 0) -> OrtValue:
        _check_device(device_type, device_id)
        a = np.asarray(numpy_obj)
        if not a.dtype.isnative:
            a = a.astype(a.dtype.newbyteorder("="))
        return OrtValue(np.require(a, requirements=("C_CONTIGUOUS", "ALIGNED")))

    @staticmethod
    def ortvalue_from_shape_and_type(shape: Iterable[int], element_type: npt.DTypeLike,
                                     device_type: str = "cpu", device_id: int = 0) -> OrtValue:
        """A new, uninitialized tensor (to bind as an output, say)."""
        _check_device(device_type, device_id)
        return OrtValue(np.empty(tuple(shape), dtype=np.dtype(element_type)))

    def numpy(self) -> Array:
        """The array holding the value (the same memory, not a copy)."""
        return self._array

    def shape(self) -> list[int]:
        return list(self._array.shape)

    def data_type(self) -> str:
        """'tensor(float)', ..., 'tensor(bfloat16)' (held as uint16)."""
        return "tensor(%s)" % _capi.dtype_name(self._dtype)

    def element_type(self) -> int:
        """The ONNX TensorProto element type number (1 for float, ...)."""
        return self._dtype

    def data_ptr(self) -> int:
        return self._array.ctypes.data

    def device_name(self) -> str:
        return "cpu"

    def is_tensor(self) -> bool:
        return True

    def is_tensor_sequence(self) -> bool:
        return False

    def has_value(self) -> bool:
        return True

    def __repr__(self) -> str:
        return "OrtValue(%s, shape=%s)" % (self.data_type(), self.shape())


class IOBinding:
    """Inputs and outputs bound before a run, as ONNX Runtime's IOBinding
    (``session.io_binding()``). Bound inputs are read in place; an output
    bound to memory (``bind_output`` with a buffer pointer, or
    ``bind_ortvalue_output``) is written by onyx directly, with no copy.
    An output bound by name only gets a new array at each run. Outputs come
    back in the order they were bound."""

    def __init__(self, session: InferenceSession) -> None:
        self._session = session
        self._inputs: dict[str, Any] = {}
        # (name, bound array or None), in binding order
        self._outputs: list[tuple[str, Optional[Array]]] = []
        self._results: list[OrtValue] = []

    # ---- Inputs ----------------------------------------------------------

    def bind_cpu_input(self, name: str, arr_on_cpu: npt.ArrayLike) -> None:
        self._session._input_index(name)
        self._inputs[name] = arr_on_cpu

    def bind_input(self, name: str, device_type: str, device_id: int, element_type: npt.DTypeLike,
                   shape: Iterable[int], buffer_ptr: int) -> None:
        """Binds memory the caller owns (read in place)."""
        _check_device(device_type, device_id)
        self.bind_cpu_input(name, _array_at(buffer_ptr, element_type, shape))

    def bind_ortvalue_input(self, name: str, ortvalue: OrtValue) -> None:
        self.bind_cpu_input(name, ortvalue.numpy())

    def clear_binding_inputs(self) -> None:
        self._inputs = {}

    def synchronize_inputs(self) -> None:
        """Nothing to wait for: onyx runs on the CPU, synchronously."""

    # ---- Outputs ---------------------------------------------------------

    def _bind(self, name: str, array: Optional[Array]) -> None:
        self._session._output_position(name)
        for k, entry in enumerate(self._outputs):
            if entry[0] == name:
                self._outputs[k] = (name, array)
                return
        self._outputs.append((name, array))

    def bind_output(self, name: str, device_type: str = "cpu", device_id: int = 0,
                    element_type: Optional[npt.DTypeLike] = None,
                    shape: Optional[Iterable[int]] = None,
                    buffer_ptr: Optional[int] = None) -> None:
        """With buffer_ptr (and element_type and shape): onyx writes the
        output into that memory. Without: a new array at each run."""
        _check_device(device_type, device_id)
        if buffer_ptr is None:
            self._bind(name, None)
            return
        if element_type is None or shape is None:
            raise _capi.error(_INVALID_ARGUMENT, "bind_output('%s'): a buffer needs its "
                                                 "element_type and shape" % name)
        self._bind(name, _array_at(buffer_ptr, element_type, shape))

    def bind_ortvalue_output(self, name: str, ortvalue: OrtValue) -> None:
        self._bind(name, ortvalue.numpy())

    def clear_binding_outputs(self) -> None:
        self._outputs = []
        self._results = []

    def synchronize_outputs(self) -> None:
        """Nothing to wait for: onyx runs on the CPU, synchronously."""

    def get_outputs(self) -> list[OrtValue]:
        """The last run's bound outputs as OrtValues over their arrays."""
        return list(self._results)

    def copy_outputs_to_cpu(self) -> list[Array]:
        """The last run's bound outputs as new numpy arrays (copies, as the
        name says; get_outputs() gives them without a copy)."""
        return [v.numpy().copy() for v in self._results]

    def _run(self) -> None:
        s = self._session
        given: list[Optional[Array]] = [None] * len(s.get_outputs())
        for name, array in self._outputs:
            given[s._output_position(name)] = array
        arrays = s._run(self._inputs, given)
        self._results = [OrtValue(arrays[k], s._output_infos[k].dtype)
                         for k in (s._output_position(name) for name, _ in self._outputs)]
