# SPDX-License-Identifier: MIT
"""InferenceSession and its companions, shaped like ONNX Runtime's Python
API so that code written for it runs with ``import onyx as ort``.

Sessions pickle (see ``InferenceSession.__reduce_ex__``), so that a session
made once in a parent or a client travels to worker processes: those of
multiprocessing and concurrent.futures, or of Dask, Spark and Ray
(docs/scaling.md)."""

from __future__ import annotations

import ctypes
import os
import pickle
import warnings
import weakref
from typing import (Any, Callable, Dict, List, Optional, Sequence, Tuple, Type, TypeVar,
                    Union)

import numpy as np
import numpy.typing as npt

from . import _capi, _custom
from ._capi import lib
from ._binding import IOBinding, OrtValue
from ._options import RunOptions, SessionOptions

Array = npt.NDArray[Any]
Shape = Tuple[int, ...]
# A dimension of NodeArg.shape: fixed (int), symbolic (its name), unknown.
Dim = Union[int, str, None]
_S = TypeVar("_S", bound="InferenceSession")


def _isa_levels() -> Dict[str, int]:
    """The library's ISA levels by name (its one list, ONYX_ISA_MAP), and
    'best' (no cap, the value 0 that zero-initialised options hold): every
    value onyx_isa_name knows; the levels are names, not an order."""
    levels = {}
    for value in range(256):
        name = _capi.lib.onyx_isa_name(value).decode()
        if name != "unknown":
            levels[name] = value
    return levels


_ISA_LEVELS = _isa_levels()


class NodeArg:
    """An input or output of a session: ``name``; ``type``, in ONNX
    Runtime's spelling ('tensor(float)', 'tensor(bfloat16)', ...); and
    ``shape``, a list with an int for each fixed dimension, the name (str)
    of a symbolic one, and None for an unknown one. ``shape`` is None when
    the model declares no shape at all."""

    __slots__ = ("name", "type", "shape")

    def __init__(self, name: str, type: str, shape: Optional[List[Dim]]) -> None:
        self.name = name
        self.type = type
        self.shape = shape

    def __repr__(self) -> str:
        return "NodeArg(name=%r, type=%r, shape=%r)" % (self.name, self.type, self.shape)


def _node_arg(info: _capi.ValueInfo) -> NodeArg:
    shape: Optional[List[Dim]] = None
    if info.has_shape:
        shape = []
        for d in range(info.rank):
            if info.dims[d] >= 0:
                shape.append(int(info.dims[d]))
            else:
                name = _capi.text(info.dim_names[d])
                shape.append(name if name else None)
    return NodeArg(str(_capi.text(info.name)), "tensor(%s)" % _capi.dtype_name(info.dtype),
                   shape)


def _free_later(owner: object, address: int) -> None:
    weakref.finalize(owner, lib.onyx_free, address)


def _onyx_array(t: _capi.Tensor) -> Array:
    """A numpy array over an output buffer onyx allocated, without copying;
    onyx_free runs when the array (and every view of it) is gone. Only for
    an output whose shape could not be known before the run."""
    dtype: Any = _capi.NUMPY_OF_DTYPE.get(t.dtype)
    shape = _dims(t)
    if dtype is None:
        lib.onyx_free(t.data)
        raise _capi.error(13, "output of type %s has no numpy type" % _capi.dtype_name(t.dtype))
    if not t.data or t.size == 0:
        lib.onyx_free(t.data)
        return np.zeros(shape, dtype=dtype)
    buf = (ctypes.c_char * t.size).from_address(t.data)
    _free_later(buf, t.data)
    return np.frombuffer(buf, dtype=dtype).reshape(shape)


_BUFFER_TOO_SMALL: int = _capi.status_value("BUFFER_TOO_SMALL")


def _dims(t: _capi.Tensor) -> Shape:
    return tuple(int(t.dims[d]) for d in range(t.rank))


def _written(a: Array, t: _capi.Tensor) -> Array:
    """The array a after onyx wrote output t into it: a itself when the
    shape is the one a was made with (always, unless a shape could not be
    foreseen), else a view of the part written."""
    shape = _dims(t)
    if a.shape == shape:
        return a
    n = int(np.prod(shape, dtype=np.int64))
    return a.reshape(-1)[:n].reshape(shape)


PROVIDERS = ["CPUExecutionProvider"]


def _check_run_options(run_options: Optional[RunOptions]) -> None:
    if run_options is None:
        return
    if not isinstance(run_options, RunOptions):
        raise TypeError("run_options must be an onyx.RunOptions, not %s"
                        % type(run_options).__name__)
    run_options.check_run()


def _check_providers(providers: Optional[Sequence[Any]],
                     provider_options: Optional[Sequence[Dict[str, Any]]]) -> None:
    """ONNX Runtime's rules for providers: a provider that is not
    available is dropped with a warning, and the session runs on the
    CPU. Options for the CPU provider are warned about: onyx reads none."""
    if providers is None:
        return
    if isinstance(providers, str) or not isinstance(providers, (list, tuple)):
        raise ValueError("providers must be a list of names or (name, options) tuples, not %r"
                         % (providers,))
    if provider_options is not None and len(provider_options) != len(providers):
        raise ValueError("provider_options must have one dict per provider: %d providers, "
                         "%d option dicts" % (len(providers), len(provider_options)))
    for k, p in enumerate(providers):
        name, options = (p if isinstance(p, tuple) else (p, None))
        if provider_options is not None:
            options = provider_options[k]
        if name not in PROVIDERS:
            warnings.warn("Specified provider '%s' is not available in onyx; available "
                          "providers: %s. The session runs on the CPU."
                          % (name, ", ".join("'%s'" % n for n in PROVIDERS)), stacklevel=3)
        elif options:
            warnings.warn("onyx reads no options of %s; %s ignored"
                          % (name, ", ".join(sorted(map(str, options)))), stacklevel=3)


def _c_options(threads: int, isa: Optional[str]) -> _capi.SessionOptionsC:
    if isinstance(threads, bool) or not isinstance(threads, int) or not \
            0 <= threads <= 0xFFFFFFFF:
        raise _capi.error(1, "threads must be an integer from 0 to 2^32-1, not %r" % (threads,))
    opts = _capi.SessionOptionsC()
    lib.onyx_session_options_init(ctypes.byref(opts))
    opts.threads = threads
    if isa is not None:
        if isa not in _ISA_LEVELS:
            raise _capi.error(1, "isa must be one of %s, not %r" % (", ".join(_ISA_LEVELS), isa))
        opts.isa_cap = _ISA_LEVELS[isa]
    return opts


_PICKLE_FORMAT = 1
_PICKLE_MODES = ("bytes", "path")
_IO = _capi.status_value("IO")
_EXTERNAL_DATA = _capi.status_value("EXTERNAL_DATA")

# What a pickled session carries for each Python op: _custom._PyOp's
# arguments, the function among them.
_OpState = Tuple[str, Callable[..., Any], str, int, int, Tuple[int, int], Tuple[int, int], bool,
                 Tuple[str, ...]]


def _file_identity(path: str) -> Tuple[int, int, int, int]:
    """What onyx compares to know a file is still the one it loaded."""
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _uses_external_data(data: bytes) -> bool:
    """Whether onyx refuses these model bytes without a folder, because a
    tensor keeps its data in another file."""
    model, err = ctypes.c_void_p(), _capi.Error()
    st = lib.onyx_model_load_memory(data, len(data), ctypes.byref(model), ctypes.byref(err))
    lib.onyx_model_free(model)
    return bool(st == _EXTERNAL_DATA)


def _threads_of(options: SessionOptions) -> int:
    # SessionOptions' fields are set from its table, _FIELDS.
    threads: int = getattr(options, "intra_op_num_threads")
    return threads


def _op_label(op: _custom._PyOp) -> str:
    return "'%s' of domain '%s'" % (op.name, op.domain or "ai.onnx")


def _restore(cls: Type[_S], state: Dict[str, Any]) -> _S:
    """The session a pickle carries (see InferenceSession.__reduce_ex__)."""
    if not isinstance(state, dict) or state.get("format") != _PICKLE_FORMAT:
        raise ValueError("this pickled InferenceSession has format %r; this onyx reads format %d"
                         % (state.get("format") if isinstance(state, dict) else None,
                            _PICKLE_FORMAT))
    self = cls.__new__(cls)
    self._model = self._session = self._registry = None
    ops = [_custom._PyOp(*fields) for fields in state["ops"]]
    sess_options: SessionOptions = state["sess_options"]
    libraries = list(getattr(sess_options, "_op_libraries", ()))
    registry = _custom._Registry(ops, libraries) if ops or libraries else None
    source: Any = state["model"] if state["model"] is not None else state["path"]
    if not isinstance(source, (str, bytes, bytearray, memoryview)):
        source = memoryview(source)  # a buffer protocol 5 passed out of band
    try:
        self._setup(source, sess_options, state["threads"], state["isa"], state["pickle_model"],
                    registry)
    except _capi.OnyxError as e:
        if isinstance(source, str):
            # Path mode, or a model with external data: the file travels by
            # name, so the worker must see it where the parent did.
            raise _capi.error(e.status, "restoring a pickled InferenceSession: the model "
                              "travels by its path, '%s', and every process that restores "
                              "it must be able to read that file and its external data: %s"
                              % (source, e.message)) from None
        raise
    return self


class InferenceSession:
    """A model ready to run, as ONNX Runtime's InferenceSession.

    ``InferenceSession(path_or_bytes, sess_options=None, providers=None,
    provider_options=None, *, threads=None, isa=None, pickle_model='bytes')``

    path_or_bytes: the model's file path, or its serialized bytes.
    sess_options: a SessionOptions; onyx uses its intra_op_num_threads.
    threads: worker threads for large tensors (default: sess_options'
        intra_op_num_threads, else 0, which lets onyx choose).
    isa: the highest instruction set kernels may use: 'scalar', 'sse41',
        'avx2', 'avx512', 'neon', 'wasm-simd128' (the library's
        onyx_isa_name) or 'best' (the default). A level of another
        architecture than the machine's means scalar.
    pickle_model: what a pickle of the session carries: 'bytes' (the
        default), the model's serialized bytes, so that restoring reads no
        file; or 'path', for a session made from a path, only the path
        (made absolute), which every restoring process must be able to
        read. A model whose tensors keep their data in external files
        always travels by path.
    providers, provider_options: as ONNX Runtime's; onyx runs on the CPU
        ('CPUExecutionProvider'), and warns about any other provider, and
        about options for the CPU provider, which it does not read.
    ONNX Runtime's keyword disabled_optimizers is warned about (onyx has
        no optimizers to disable); any other keyword raises TypeError.

    Every check of the model happens here; problems raise an OnyxError
    subclass carrying onyx's message (OnyxParseError, OnyxTypeError, ...).
    Several threads may call ``run`` on one session at once.

    A session pickles, and restores as an equal session (the same model,
    options, threads, isa and Python ops) in any process that can import
    onyx; see ``__reduce_ex__``.
    """

    _model: Optional[ctypes.c_void_p]
    _session: Optional[ctypes.c_void_p]
    _registry: Optional[_custom._Registry]
    _model_bytes: Optional[bytes]
    _model_path: Optional[str]

    def __init__(self, path_or_bytes: Union[str, "os.PathLike[str]", bytes, bytearray,
                                            memoryview],
                 sess_options: Optional[SessionOptions] = None,
                 providers: Optional[Sequence[Any]] = None,
                 provider_options: Optional[Sequence[Dict[str, Any]]] = None,
                 *, threads: Optional[int] = None, isa: Optional[str] = None,
                 pickle_model: str = "bytes", **kwargs: Any) -> None:
        self._model = None
        self._session = None
        self._registry = None
        for key, value in kwargs.items():
            if key != "disabled_optimizers":
                raise TypeError("InferenceSession() got an unexpected keyword argument '%s'"
                                % key)
            if value:
                warnings.warn("onyx has no optimizers to disable; disabled_optimizers=%r is "
                              "ignored" % (value,), stacklevel=2)
        _check_providers(providers, provider_options)
        if sess_options is None:
            sess_options = SessionOptions()
        elif not isinstance(sess_options, SessionOptions):
            raise TypeError("sess_options must be an onyx.SessionOptions, not %s"
                            % type(sess_options).__name__)
        if threads is None:
            threads = _threads_of(sess_options)
        options = sess_options._copy_with_threads(threads)
        # Python ops and op libraries; freed after the session (see __del__).
        registry = _custom.session_registry(getattr(options, "_op_libraries", []))
        self._setup(path_or_bytes, options, threads, isa, pickle_model, registry)

    def _setup(self, path_or_bytes: Union[str, "os.PathLike[str]", bytes, bytearray, memoryview],
               sess_options: SessionOptions, threads: int, isa: Optional[str],
               pickle_model: str, registry: Optional[_custom._Registry]) -> None:
        """Creation proper, shared by __init__ and unpickling: sess_options
        is the session's own copy, registry its Python ops and op libraries
        (owned by the session from here on)."""
        self._registry = registry
        self._model_bytes = None
        self._model_path = None
        self._model_identity: Optional[Tuple[int, int, int, int]] = None
        self._external_data: Optional[bool] = None
        opts = _c_options(threads, isa)
        if pickle_model not in _PICKLE_MODES:
            raise ValueError("pickle_model must be 'bytes' or 'path', not %r" % (pickle_model,))
        self._isa = isa
        self._pickle_model = pickle_model
        self._sess_options = sess_options
        if self._registry is not None:
            opts.ops = self._registry.handle
        self._load(path_or_bytes)
        if pickle_model == "path" and self._model_path is None:
            raise ValueError("pickle_model='path' needs a session made from a path; this one was "
                             "made from bytes")
        session = ctypes.c_void_p()
        err = _capi.Error()
        st = lib.onyx_session_create(self._model, ctypes.byref(opts), ctypes.byref(session),
                                     ctypes.byref(err))
        _capi.check(st, err)
        self._session = session

        self._input_infos = self._infos(lib.onyx_session_input_count,
                                        lib.onyx_session_input_info)
        self._output_infos = self._infos(lib.onyx_session_output_count,
                                         lib.onyx_session_output_info)
        self._inputs = [_node_arg(i) for i in self._input_infos]
        self._outputs = [_node_arg(i) for i in self._output_infos]
        self._output_index = {o.name: k for k, o in enumerate(self._outputs)}
        self._output_numpy: List[Any] = [  # numpy dtypes, None for a type numpy lacks
            _capi.NUMPY_OF_DTYPE.get(i.dtype) for i in self._output_infos]
        self._shape_sources = self._output_shape_sources()
        # The data pointers the last run passed to onyx and the output
        # buffers it wrote, for tests that check that nothing is copied.
        self._last_input_pointers: Tuple[int, ...] = ()
        self._last_output_pointers: Tuple[int, ...] = ()

    def _load(self, path_or_bytes: Union[str, "os.PathLike[str]", bytes, bytearray,
                                         memoryview]) -> None:
        err = _capi.Error()
        model = ctypes.c_void_p()
        if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
            # onyx reads the bytes in place for as long as the model lives.
            self._model_bytes = bytes(path_or_bytes)
            st = lib.onyx_model_load_memory(self._model_bytes, len(self._model_bytes),
                                            ctypes.byref(model), ctypes.byref(err))
        else:
            # Absolute, so that a pickle names the file whatever the
            # restoring process's working folder.
            self._model_path = os.path.abspath(os.fspath(path_or_bytes))
            st = lib.onyx_model_load_file(os.fsencode(self._model_path), ctypes.byref(model),
                                          ctypes.byref(err))
            if st == 0:
                self._model_identity = _file_identity(self._model_path)
        _capi.check(st, err)
        self._model = model

    # ---- Pickling --------------------------------------------------------

    def _pickled_ops(self, protocol: int) -> List[_OpState]:
        """The Python ops the model's nodes use, as _PyOp's arguments; a
        function that pickle cannot carry raises TypeError naming its op."""
        if self._registry is None or not self._registry.ops:
            return []
        used = set()
        node, err = _capi.NodeInfo(), _capi.Error()
        for n in range(lib.onyx_model_node_count(self._model)):
            _capi.check(lib.onyx_model_node(self._model, n, ctypes.byref(node),
                                            ctypes.byref(err)), err)
            used.add((_custom._domain(_capi.text(node.domain) or ""), _capi.text(node.op_type)))
        out: List[_OpState] = []
        for op in self._registry.ops:
            if (op.domain, op.name) not in used:
                continue
            try:
                pickle.dumps(op.fn, protocol)
            except Exception as e:
                raise TypeError("cannot pickle this InferenceSession: its Python op %s calls %r, "
                                "which pickle cannot carry (%s: %s); register a function "
                                "defined at the top level of a module, which pickles by name"
                                % (_op_label(op), op.fn, type(e).__name__, e)) from None
            out.append((op.name, op.fn, op.domain, op.since, op.until, op.inputs, op.outputs,
                        op.override, op.attributes))
        return out

    def _pickled_model(self, protocol: int) -> Tuple[Optional[Union[bytes, pickle.PickleBuffer]],
                                                     Optional[str]]:
        """(bytes, None) or (None, path): what carries the model."""
        if self._model_bytes is not None:
            data: Optional[bytes] = self._model_bytes
        elif self._pickle_model == "path" or self._external_data:
            return None, self._model_path
        else:
            assert self._model_path is not None
            try:
                with open(self._model_path, "rb") as f:
                    data = f.read()
                same = _file_identity(self._model_path) == self._model_identity
            except OSError as e:
                raise _capi.error(_IO, "cannot pickle the session: reading its model file '%s' "
                                  "failed: %s" % (self._model_path, e)) from None
            if not same:
                raise _capi.error(_IO, "cannot pickle the session: its model file '%s' changed "
                                  "after the session was made, so its bytes are not the model "
                                  "the session runs (pickle_model='path' carries the path "
                                  "instead)" % self._model_path)
            if self._external_data is None:
                self._external_data = _uses_external_data(data)
            if self._external_data:
                return None, self._model_path
        assert data is not None
        # Protocol 5 may send the bytes out of band, without a copy.
        return (pickle.PickleBuffer(data) if protocol >= 5 else data), None

    def __reduce_ex__(self, protocol: Any) -> Tuple[Any, ...]:
        """Pickling: the model (its bytes, or with pickle_model='path' or
        external data, its absolute path), the session options, threads,
        isa, and the Python ops that the model's nodes use, whose functions
        pickle carries by name (a lambda or a nested function raises
        TypeError naming the op). Op libraries travel by path. Restoring
        creates the session anew: in bytes mode it reads no file.

        The pickle's size is the model file's plus about a kilobyte; a
        session's weights are not duplicated when protocol 5 sends the
        bytes out of band (as Dask does)."""
        protocol = int(protocol)
        model, path = self._pickled_model(protocol)
        state = {
            "format": _PICKLE_FORMAT,
            "model": model,
            "path": path,
            "pickle_model": self._pickle_model,
            "sess_options": self._sess_options,
            "threads": _threads_of(self._sess_options),
            "isa": self._isa,
            "ops": self._pickled_ops(protocol),
        }
        return (_restore, (type(self), state))

    def _infos(self, count: Callable[[Any], int],
               info: Callable[..., int]) -> List[_capi.ValueInfo]:
        out = []
        for i in range(count(self._session)):
            v = _capi.ValueInfo()
            err = _capi.Error()
            _capi.check(info(self._session, i, ctypes.byref(v), ctypes.byref(err)), err)
            out.append(v)
        return out

    def _output_shape_sources(self) -> List[Union[int, Shape, None]]:
        """Where each output's shape comes from, so that its numpy array
        can be made before the run: the index of the session input whose
        shape it has, a fixed shape, or None (onyx then allocates it).
        This follows onyx's rule that a node's output has the shape of
        the node's first input, and that values computed from constants
        have the fixed shape the session reports."""
        fixed: List[Optional[Shape]] = [
            tuple(d for d in o.shape if isinstance(d, int))
            if o.shape is not None and all(isinstance(d, int) for d in o.shape) else None
            for o in self._outputs]
        if all(f is not None for f in fixed):
            # A declared fixed shape is the computed one (the session
            # checks that wherever it can; where an input declares no
            # shape, a run that disagrees falls back: see _run).
            return list(fixed)
        # Names stay bytes, and one NodeInfo serves every call: this loop
        # is most of the Python side of creating a session of many nodes.
        first_input: Dict[bytes, Optional[bytes]] = {}  # value -> first input of its node
        node, err = _capi.NodeInfo(), _capi.Error()
        node_ref, err_ref, model = ctypes.byref(node), ctypes.byref(err), self._model
        for n in range(lib.onyx_model_node_count(model)):
            _capi.check(lib.onyx_model_node(model, n, node_ref, err_ref), err)
            first = node.inputs[0] if node.input_count else None
            outputs = node.outputs
            for k in range(node.output_count):
                first_input[outputs[k]] = first
        inputs: Dict[bytes, int] = {info.name: k for k, info in enumerate(self._input_infos)}
        roots: Dict[bytes, Optional[bytes]] = {}

        def root(name: Optional[bytes]) -> Optional[bytes]:
            # Each value is walked once (its root is remembered), so this
            # costs the graph's size in all, not outputs x depth.
            path: List[bytes] = []
            while name is not None and name in first_input and name not in inputs and name not in roots:
                path.append(name)
                name = first_input[name]
            found = roots.get(name, name) if name is not None else None
            for p in path:
                roots[p] = found
            return found

        sources: List[Union[int, Shape, None]] = []
        for f, info in zip(fixed, self._output_infos):
            r = root(info.name)
            sources.append(inputs[r] if r is not None and r in inputs else f)
        return sources

    def _output_shapes(self, arrays: List[Array]) -> List[Optional[Shape]]:
        """The shape of each output for these input arrays, or None."""
        return [arrays[s].shape if isinstance(s, int) else s for s in self._shape_sources]

    def __del__(self) -> None:
        if getattr(self, "_session", None):
            lib.onyx_session_free(self._session)
            self._session = None
        if getattr(self, "_model", None):
            lib.onyx_model_free(self._model)
            self._model = None
        registry = getattr(self, "_registry", None)
        if registry is not None:
            registry.close()
            self._registry = None

    # ---- Description ---------------------------------------------------

    def get_inputs(self) -> List[NodeArg]:
        """The session's inputs (graph inputs without initializers), as
        NodeArg objects with name, type and shape."""
        return list(self._inputs)

    def get_outputs(self) -> List[NodeArg]:
        """The session's outputs, as NodeArg objects."""
        return list(self._outputs)

    def get_overridable_initializers(self) -> List[NodeArg]:
        """Initializers that could be fed as inputs: none in onyx."""
        return []

    def get_providers(self) -> List[str]:
        """The execution providers: onyx runs on the CPU."""
        return list(PROVIDERS)

    def get_provider_options(self) -> Dict[str, Dict[str, str]]:
        return {"CPUExecutionProvider": {}}

    def set_providers(self, providers: Optional[Sequence[Any]] = None,
                      provider_options: Optional[Sequence[Dict[str, Any]]] = None) -> None:
        """Checked as at creation (other providers warn); the session keeps
        running on the CPU."""
        _check_providers(providers, provider_options)

    def disable_fallback(self) -> None:
        """Nothing to do: the CPU is onyx's only provider."""

    def enable_fallback(self) -> None:
        """Nothing to do: the CPU is onyx's only provider."""

    def get_session_options(self) -> SessionOptions:
        """The session's options; intra_op_num_threads is the thread count
        the session was made with."""
        return self._sess_options

    def end_profiling(self) -> str:
        """onyx has no profiler: returns '', as ONNX Runtime does when
        profiling is off (setting enable_profiling warns)."""
        return ""

    def get_profiling_start_time_ns(self) -> int:
        return 0

    # ---- Running -------------------------------------------------------

    def _bind(self, i: int, info: _capi.ValueInfo, value: Any,
              keep: List[Array]) -> _capi.Tensor:
        name = _capi.text(info.name)
        a = value if isinstance(value, np.ndarray) else np.asarray(value)
        if not a.dtype.isnative:
            a = a.astype(a.dtype.newbyteorder("="))
        # Used in place when C-contiguous and aligned, else copied once.
        a = np.require(a, requirements=("C_CONTIGUOUS", "ALIGNED"))
        dtype = _capi.onyx_dtype_of(a.dtype, bfloat16=info.dtype == _capi.DTYPE_BFLOAT16)
        if dtype is None:
            raise _capi.error(19, "input %d ('%s'): numpy type %s has no onyx type; the model "
                                  "expects %s" % (i, name, a.dtype,
                                                  _capi.dtype_name(info.dtype)))
        if a.ndim > _capi.MAX_RANK:
            raise _capi.error(20, "input %d ('%s'): rank %d is more than %d"
                                  % (i, name, a.ndim, _capi.MAX_RANK))
        keep.append(a)
        t = _capi.Tensor()
        t.dtype = dtype
        t.rank = a.ndim
        for d, n in enumerate(a.shape):
            t.dims[d] = n
        t.data = a.ctypes.data
        t.size = a.nbytes
        return t

    def run(self, output_names: Optional[Sequence[str]], input_feed: Dict[str, Any],
            run_options: Optional[RunOptions] = None) -> List[Array]:
        """Runs the model and returns the outputs as a list of numpy arrays.

        output_names: the outputs wanted, in the order wanted, or None (or
            an empty list) for all of them in model order.
        input_feed: {input name: numpy array (or anything np.asarray takes)}
            with one entry per session input. Arrays that are C-contiguous,
            aligned and of native byte order are passed to onyx in place,
            without a copy; others are copied once. The element type must be
            the input's declared type (no conversion is made; a mismatch
            raises OnyxInputTypeError). numpy has no bfloat16: for an input
            declared bfloat16, pass uint16 bit patterns (the session's
            declared type decides how they are read), and bfloat16 outputs
            come back as uint16 bit patterns.
        run_options: a RunOptions; with terminate set the run raises Fail
            (onyx.capi.onnxruntime_pybind11_state.Fail) and does nothing.

        Each output is a new numpy array that onyx writes into directly:
        nothing is copied after the run.

        Errors raise OnyxError subclasses with onyx's message: for example
        OnyxInputMissingError, OnyxInputTypeError, OnyxInputShapeError, and
        OnyxInvalidArgumentError for a name that is not an input or output.
        """
        _check_run_options(run_options)
        for key in input_feed:
            self._input_index(key)
        if output_names:
            wanted = [self._output_position(name) for name in output_names]
        else:
            wanted = list(range(len(self._outputs)))
        arrays = self._run(input_feed, [None] * len(self._outputs))
        return [arrays[k] for k in wanted]

    def run_with_ort_values(self, output_names: Optional[Sequence[str]],
                            input_dict_ort_values: Dict[str, OrtValue],
                            run_options: Optional[RunOptions] = None) -> List[OrtValue]:
        """run() with OrtValues in and out: {name: OrtValue} gives a list
        of OrtValues over the output arrays (no copies)."""
        arrays = self.run(output_names, {k: v.numpy() for k, v in input_dict_ort_values.items()},
                          run_options)
        names = output_names or [o.name for o in self._outputs]
        return [OrtValue(a, self._output_infos[self._output_position(n)].dtype)
                for n, a in zip(names, arrays)]

    def io_binding(self) -> IOBinding:
        """An IOBinding for this session (see IOBinding)."""
        return IOBinding(self)

    def run_with_iobinding(self, iobinding: IOBinding,
                           run_options: Optional[RunOptions] = None) -> None:
        """Runs with the inputs and outputs bound in iobinding; its
        get_outputs() and copy_outputs_to_cpu() then give the outputs."""
        _check_run_options(run_options)
        if not isinstance(iobinding, IOBinding) or iobinding._session is not self:
            raise _capi.error(1, "run_with_iobinding needs an IOBinding from this session's "
                                 "io_binding()")
        iobinding._run()

    def _input_index(self, name: str) -> int:
        for i, info in enumerate(self._inputs):
            if info.name == name:
                return i
        raise _capi.error(1, "'%s' is not an input of the model; its inputs are %s" % (
            name, ", ".join("'%s'" % i.name for i in self._inputs) or "none"))

    def _output_position(self, name: str) -> int:
        if name not in self._output_index:
            raise _capi.error(1, "'%s' is not an output of the model; its outputs are %s"
                              % (name, ", ".join("'%s'" % o.name for o in self._outputs)))
        return self._output_index[name]

    def _run(self, input_feed: Dict[str, Any], given: Sequence[Optional[Array]],
             predict: bool = True) -> List[Array]:
        """One onyx_session_run. given: per output, a numpy array to write
        into (checked by the caller) or None. An output given none gets a
        new numpy array of its shape, which onyx fills as a caller-owned
        buffer; only an output whose shape cannot be known beforehand (or
        every one, without predict) is allocated by onyx, and wrapped, not
        copied. Returns the arrays."""
        n_in, n_out = len(self._inputs), len(self._outputs)
        inputs = (_capi.Tensor * max(n_in, 1))()
        keep: List[Array] = []  # the input arrays, alive until the run is over
        for i, info in enumerate(self._input_infos):
            if self._inputs[i].name not in input_feed:
                raise _capi.error(18, "input %d ('%s') is missing from the input feed"
                                  % (i, self._inputs[i].name))
            inputs[i] = self._bind(i, info, input_feed[self._inputs[i].name], keep)
        self._last_input_pointers = tuple(inputs[i].data for i in range(n_in))

        made: List[Optional[Array]] = list(given)
        shapes: List[Optional[Shape]] = (self._output_shapes(keep) if predict
                                         else [None] * n_out)
        for k, a in enumerate(given):
            if a is not None:
                self._check_bound_output(k, a, shapes[k], keep)
        for k in range(n_out):
            shape, dtype = shapes[k], self._output_numpy[k]
            if made[k] is None and shape is not None and dtype is not None:
                made[k] = np.empty(shape, dtype=dtype)
        outputs = (_capi.Tensor * max(n_out, 1))()
        for k, a in enumerate(made):
            if a is not None:
                outputs[k].data = a.ctypes.data
                outputs[k].size = a.nbytes
        err = _capi.Error()
        st = lib.onyx_session_run(self._session, inputs, n_in, outputs, n_out, ctypes.byref(err))
        if st == _BUFFER_TOO_SMALL and any(m is not g for m, g in zip(made, given)):
            # A shape made here was too small: never expected, but onyx's
            # own allocation is always right.
            return self._run(input_feed, given, predict=False)
        _capi.check(st, err)
        self._last_output_pointers = tuple(outputs[k].data for k in range(n_out))
        result: List[Array] = []
        try:
            for k in range(n_out):
                m, g = made[k], given[k]
                if m is None:
                    result.append(_onyx_array(outputs[k]))
                elif g is not None:
                    self._check_bound_output(k, g, None, keep, _dims(outputs[k]))
                    result.append(g)
                else:
                    result.append(_written(m, outputs[k]))
        except BaseException:
            for k in range(len(result) + 1, n_out):
                if made[k] is None:
                    lib.onyx_free(outputs[k].data)
            raise
        return result

    def _check_bound_output(self, k: int, a: Array, shape: Optional[Shape],
                            inputs: List[Array], written: Optional[Shape] = None) -> None:
        """A caller's array for output k: its type, layout, and shape (the
        one predicted, or the one written), and no overlap with an input."""
        name = self._outputs[k].name
        if a.dtype != self._output_numpy[k]:
            raise _capi.error(1, "output %d ('%s') is %s; the array bound to it is %s"
                              % (k, name, self._outputs[k].type, a.dtype))
        if not (a.flags.c_contiguous and a.flags.aligned and a.flags.writeable):
            raise _capi.error(1, "output %d ('%s'): the array bound to it must be C-contiguous, "
                                 "aligned and writeable" % (k, name))
        want = written if written is not None else shape
        if want is not None and tuple(want) != a.shape:
            raise _capi.error(1, "output %d ('%s') has shape %s; the array bound to it has %s"
                              % (k, name, tuple(want), a.shape))
        if written is None and any(np.may_share_memory(a, x) for x in inputs):
            raise _capi.error(1, "output %d ('%s'): the array bound to it overlaps an input"
                              % (k, name))

    # ---- Model information ----------------------------------------------

    def get_modelmeta(self) -> ModelMetadata:
        """The model's metadata, as ONNX Runtime's ModelMetadata:
        producer_name, graph_name, domain, description (the model's
        doc_string), version (model_version), custom_metadata_map
        (metadata_props), graph_description (always ''), and onyx's
        producer_version, ir_version and opset_import ({domain: version},
        'ai.onnx' for the default domain). With a library that has no
        onyx_model_metadata, only ir_version and opset_import are
        filled."""
        m = ModelMetadata()
        m.ir_version = lib.onyx_model_ir_version(self._model)
        err = _capi.Error()
        for i in range(lib.onyx_model_opset_count(self._model)):
            domain, version = ctypes.c_char_p(), ctypes.c_int64()
            _capi.check(lib.onyx_model_opset(self._model, i, ctypes.byref(domain),
                                             ctypes.byref(version), ctypes.byref(err)), err)
            m.opset_import[_capi.text(domain.value) or "ai.onnx"] = version.value
        if _capi.HAS_METADATA:
            c = _capi.ModelMetadataC()
            _capi.check(lib.onyx_model_metadata(self._model, ctypes.byref(c),
                                                ctypes.byref(err)), err)
            m.producer_name = _capi.text(c.producer_name) or ""
            m.producer_version = _capi.text(c.producer_version) or ""
            m.domain = _capi.text(c.domain) or ""
            m.description = _capi.text(c.doc_string) or ""
            m.version = c.model_version
            m.graph_name = _capi.text(c.graph_name) or ""
            # A key the file repeats keeps its last value.
            m.custom_metadata_map = {
                _capi.text(c.metadata_keys[k]): _capi.text(c.metadata_values[k]) or ""
                for k in range(c.metadata_count)}
        return m


class ModelMetadata:
    """What get_modelmeta() returns (ONNX Runtime's fields, and onyx's
    producer_version, ir_version and opset_import)."""

    def __init__(self) -> None:
        self.ir_version = 0
        self.opset_import: Dict[str, int] = {}
        self.producer_name = ""
        self.producer_version = ""
        self.graph_name = ""
        self.graph_description = ""
        self.domain = ""
        self.description = ""
        self.version = 0
        self.custom_metadata_map: Dict[str, str] = {}
