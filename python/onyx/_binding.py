# SPDX-License-Identifier: MIT
"""OrtValue and IOBinding, shaped like ONNX Runtime's: values that stay in
numpy arrays (onyx runs on the CPU, so every value is "on the device"), and
inputs and outputs bound to memory before a run, so that onyx reads and
writes the caller's arrays in place."""

import ctypes

import numpy as np

from . import _capi

_INVALID_ARGUMENT = _capi.status_value("INVALID_ARGUMENT")


def _check_device(device_type, device_id=0):
    if str(device_type).lower() != "cpu" or device_id not in (0, None):
        raise _capi.error(_INVALID_ARGUMENT, "device %r (id %r): onyx runs on the CPU only"
                          % (device_type, device_id))


def _array_at(buffer_ptr, element_type, shape):
    """A numpy array over memory the caller owns, without a copy."""
    dtype = np.dtype(element_type)
    shape = tuple(int(d) for d in shape)
    if any(d < 0 for d in shape):
        raise _capi.error(_INVALID_ARGUMENT, "shape %s has a negative dimension" % (shape,))
    count = int(np.prod(shape, dtype=np.int64))
    if count and not buffer_ptr:
        raise _capi.error(_INVALID_ARGUMENT, "buffer_ptr is NULL")
    if not count:
        return np.empty(shape, dtype=dtype)
    raw = (ctypes.c_char * (count * dtype.itemsize)).from_address(int(buffer_ptr))
    return np.frombuffer(raw, dtype=dtype).reshape(shape)


class OrtValue:
    """A tensor held in a numpy array, as ONNX Runtime's OrtValue on the
    CPU. ``ortvalue_from_numpy`` keeps the array itself (no copy) when it
    is C-contiguous, aligned and of native byte order, and ``numpy()``
    returns that array, so both see the same memory."""

    def __init__(self, array, onyx_dtype=None):
        self._array = array
        self._dtype = onyx_dtype if onyx_dtype is not None else _capi.onyx_dtype_of(array.dtype)
        if self._dtype is None:
            raise _capi.error(_capi.status_value("TYPE"),
                              "numpy type %s has no onyx type" % array.dtype)

    @staticmethod
    def ortvalue_from_numpy(numpy_obj, device_type="cpu", device_id=0):
        _check_device(device_type, device_id)
        a = np.asarray(numpy_obj)
        if not a.dtype.isnative:
            a = a.astype(a.dtype.newbyteorder("="))
        return OrtValue(np.require(a, requirements=("C_CONTIGUOUS", "ALIGNED")))

    @staticmethod
    def ortvalue_from_shape_and_type(shape, element_type, device_type="cpu", device_id=0):
        """A new, uninitialized tensor (to bind as an output, say)."""
        _check_device(device_type, device_id)
        return OrtValue(np.empty(tuple(shape), dtype=np.dtype(element_type)))

    def numpy(self):
        """The array holding the value (the same memory, not a copy)."""
        return self._array

    def shape(self):
        return list(self._array.shape)

    def data_type(self):
        """'tensor(float)', ..., 'tensor(bfloat16)' (held as uint16)."""
        return "tensor(%s)" % _capi.dtype_name(self._dtype)

    def element_type(self):
        """The ONNX TensorProto element type number (1 for float, ...)."""
        return self._dtype

    def data_ptr(self):
        return self._array.ctypes.data

    def device_name(self):
        return "cpu"

    def is_tensor(self):
        return True

    def is_tensor_sequence(self):
        return False

    def has_value(self):
        return True

    def __repr__(self):
        return "OrtValue(%s, shape=%s)" % (self.data_type(), self.shape())


class IOBinding:
    """Inputs and outputs bound before a run, as ONNX Runtime's IOBinding
    (``session.io_binding()``). Bound inputs are read in place; an output
    bound to memory (``bind_output`` with a buffer pointer, or
    ``bind_ortvalue_output``) is written by onyx directly, with no copy.
    An output bound by name only gets a new array at each run. Outputs come
    back in the order they were bound."""

    def __init__(self, session):
        self._session = session
        self._inputs = {}
        self._outputs = []  # [name, bound array or None], in binding order
        self._results = []

    # ---- Inputs ----------------------------------------------------------

    def bind_cpu_input(self, name, arr_on_cpu):
        self._session._input_index(name)
        self._inputs[name] = arr_on_cpu

    def bind_input(self, name, device_type, device_id, element_type, shape, buffer_ptr):
        """Binds memory the caller owns (read in place)."""
        _check_device(device_type, device_id)
        self.bind_cpu_input(name, _array_at(buffer_ptr, element_type, shape))

    def bind_ortvalue_input(self, name, ortvalue):
        self.bind_cpu_input(name, ortvalue.numpy())

    def clear_binding_inputs(self):
        self._inputs = {}

    def synchronize_inputs(self):
        """Nothing to wait for: onyx runs on the CPU, synchronously."""

    # ---- Outputs ---------------------------------------------------------

    def _bind(self, name, array):
        self._session._output_position(name)
        for entry in self._outputs:
            if entry[0] == name:
                entry[1] = array
                return
        self._outputs.append([name, array])

    def bind_output(self, name, device_type="cpu", device_id=0, element_type=None, shape=None,
                    buffer_ptr=None):
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

    def bind_ortvalue_output(self, name, ortvalue):
        self._bind(name, ortvalue.numpy())

    def clear_binding_outputs(self):
        self._outputs = []
        self._results = []

    def synchronize_outputs(self):
        """Nothing to wait for: onyx runs on the CPU, synchronously."""

    def get_outputs(self):
        """The last run's bound outputs as OrtValues over their arrays."""
        return list(self._results)

    def copy_outputs_to_cpu(self):
        """The last run's bound outputs as new numpy arrays (copies, as the
        name says; get_outputs() gives them without a copy)."""
        return [v.numpy().copy() for v in self._results]

    def _run(self):
        s = self._session
        given = [None] * len(s.get_outputs())
        for name, array in self._outputs:
            given[s._output_position(name)] = array
        arrays = s._run(self._inputs, given)
        self._results = [OrtValue(arrays[k], s._output_infos[k].dtype)
                         for k in (s._output_position(name) for name, _ in self._outputs)]
