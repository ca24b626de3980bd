# SPDX-License-Identifier: MIT
"""SessionOptions, RunOptions and their enums, shaped like ONNX Runtime's.

Every field ONNX Runtime has can be set. A field onyx uses is used; a field
whose every value onyx already honours (it never logs, it is always
deterministic, every optimization level gives the same bits) is accepted;
a value onyx cannot honour (a parallel executor, a profiler, an optimized
model file, ...) warns when it is set, saying that it is ignored; a
method onyx cannot carry out raises NotImplemented. An attribute ONNX
Runtime does not have raises AttributeError, as it does there.
"""

from __future__ import annotations

import enum
import os
import warnings
from typing import Any, Callable, Container, Optional

from . import _capi

# A field's check: raises for a value of the wrong kind, else returns None
# (honoured) or the text of the warning that says why it is ignored.
Check = Callable[[Any], Optional[str]]


class GraphOptimizationLevel(enum.IntEnum):
    """ONNX Runtime's optimization levels. onyx's one rewrite, fusing
    chains of element-wise nodes, never changes a result, so every level
    gives the same outputs."""

    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_ALL = 99


class ExecutionMode(enum.IntEnum):
    """onyx runs one node (one fused group) at a time: ORT_SEQUENTIAL."""

    ORT_SEQUENTIAL = 0
    ORT_PARALLEL = 1


class ExecutionOrder(enum.IntEnum):
    """onyx keeps its own order (a topological one): DEFAULT."""

    DEFAULT = 0
    PRIORITY_BASED = 1
    MEMORY_EFFICIENT = 2


def _not_supported(error_name: str, what: str) -> _capi.OnyxError:
    return _capi.ORT_ERRORS[error_name]("onyx: %s" % what)


# ---- Checks of field values: each returns None (honoured) or the warning
# ---- that says why the value is ignored; a value of the wrong kind raises.

def _count(name: str) -> Check:
    def check(v: Any) -> None:
        if isinstance(v, bool) or not isinstance(v, int) or v < 0 or v > 0xFFFFFFFF:
            raise _capi.error(_capi.status_value("INVALID_ARGUMENT"),
                              "%s must be an integer from 0 to 2^32-1, not %r" % (name, v))
    return check


def _severity(v: Any) -> None:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 4:
        raise _capi.error(_capi.status_value("INVALID_ARGUMENT"),
                          "a log severity level is 0 (verbose) to 4 (fatal), not %r" % (v,))


def _any(v: Any) -> None:
    return None


def _enum(kind: type[enum.IntEnum], honoured: Container[enum.IntEnum], why: str) -> Check:
    def check(v: Any) -> Optional[str]:
        try:
            v = kind(v)
        except ValueError:
            raise _capi.error(_capi.status_value("INVALID_ARGUMENT"),
                              "%r is not a %s" % (v, kind.__name__)) from None
        return None if v in honoured else why
    return check


def _unless(honoured_values: Container[Any], why: str) -> Check:
    return lambda v: None if v in honoured_values else why


class _Options:
    """Fields from _FIELDS: name -> (default, check). check(value) raises
    for a bad value, or returns the text of the warning to give."""

    _FIELDS: dict[str, tuple[Any, Check]] = {}
    _config: dict[str, str]

    def __init__(self) -> None:
        for name, (default, _) in self._FIELDS.items():
            object.__setattr__(self, name, default)
        object.__setattr__(self, "_config", {})

    def __setattr__(self, name: str, value: Any) -> None:
        field = self._FIELDS.get(name)
        if field is None:
            raise AttributeError("'%s' object has no attribute '%s'"
                                 % (type(self).__name__, name))
        why = field[1](value)
        if why:
            warnings.warn("%s.%s = %r is ignored: %s" % (type(self).__name__, name, value, why),
                          stacklevel=2)
        object.__setattr__(self, name, value)

    def _add_config_entry(self, key: str, value: str) -> None:
        warnings.warn("onyx reads no configuration entries; %r is ignored" % (key,),
                      stacklevel=3)
        self._config[str(key)] = str(value)

    def _get_config_entry(self, key: str) -> str:
        if key not in self._config:
            raise _capi.ORT_ERRORS["InvalidArgument"]("no configuration entry %r" % (key,))
        return self._config[key]

    def __repr__(self) -> str:
        return "%s(%s)" % (type(self).__name__, ", ".join(
            "%s=%r" % (n, getattr(self, n)) for n in self._FIELDS))


class SessionOptions(_Options):
    """Session options, as ONNX Runtime's SessionOptions.

    Used: ``intra_op_num_threads`` (worker threads; 0, the default, lets
    onyx choose). Accepted, because onyx already does what any value asks:
    ``graph_optimization_level``, ``use_deterministic_compute``,
    ``log_severity_level``, ``log_verbosity_level``, ``logid`` (onyx never
    logs), ``profile_file_prefix``. Warned about and ignored when set to a
    value onyx cannot honour: ``inter_op_num_threads`` above 1,
    ``execution_mode`` ORT_PARALLEL, ``execution_order`` other than
    DEFAULT, ``enable_profiling`` True, ``optimized_model_filepath``,
    ``enable_mem_pattern``/``enable_mem_reuse``/``enable_cpu_mem_arena``
    False, and configuration entries. Methods that add initializers,
    dimension overrides or providers raise NotImplemented.
    ``register_custom_ops_library(path)`` loads an op library into every
    session made with the options (docs/custom-ops.md).
    """

    # The fields' types, for type checkers; _FIELDS has them at run time
    # (tests/python/typed_api.py checks that both name the same fields).
    intra_op_num_threads: int
    inter_op_num_threads: int
    graph_optimization_level: GraphOptimizationLevel
    execution_mode: ExecutionMode
    execution_order: ExecutionOrder
    log_severity_level: int
    log_verbosity_level: int
    logid: str
    use_deterministic_compute: bool
    enable_profiling: bool
    profile_file_prefix: str
    optimized_model_filepath: str
    enable_mem_pattern: bool
    enable_mem_reuse: bool
    enable_cpu_mem_arena: bool
    # Set by register_custom_ops_library (and by the copy a session keeps).
    _op_libraries: list[bytes]

    _FIELDS: dict[str, tuple[Any, Check]] = {
        "intra_op_num_threads": (0, _count("intra_op_num_threads")),
        "inter_op_num_threads": (0, lambda v: _count("inter_op_num_threads")(v) or (
            None if v <= 1 else "onyx runs one node at a time")),
        "graph_optimization_level": (GraphOptimizationLevel.ORT_ENABLE_ALL,
                                     _enum(GraphOptimizationLevel, GraphOptimizationLevel, "")),
        "execution_mode": (ExecutionMode.ORT_SEQUENTIAL,
                           _enum(ExecutionMode, (ExecutionMode.ORT_SEQUENTIAL,),
                                 "onyx runs one node at a time")),
        "execution_order": (ExecutionOrder.DEFAULT,
                            _enum(ExecutionOrder, (ExecutionOrder.DEFAULT,),
                                  "onyx keeps its own order")),
        "log_severity_level": (2, _severity),
        "log_verbosity_level": (0, _count("log_verbosity_level")),
        "logid": ("", _any),
        "use_deterministic_compute": (False, _any),
        "enable_profiling": (False, _unless((False,), "onyx has no profiler")),
        "profile_file_prefix": ("onnxruntime_profile_", _any),
        "optimized_model_filepath": ("", _unless(("",), "onyx writes no optimized model")),
        "enable_mem_pattern": (True, _unless((True,), "onyx plans its memory itself")),
        "enable_mem_reuse": (True, _unless((True,), "onyx always reuses memory")),
        "enable_cpu_mem_arena": (True, _unless((True,), "onyx has no arena")),
    }

    def add_session_config_entry(self, key: str, value: str) -> None:
        """Stored (get_session_config_entry returns it) and warned about:
        onyx reads no configuration entries."""
        self._add_config_entry(key, value)

    def get_session_config_entry(self, key: str) -> str:
        return self._get_config_entry(key)

    def register_custom_ops_library(self, library_path: str | os.PathLike[str]) -> None:
        """Loads the op library (a shared library exporting
        onyx_register_ops, docs/custom-ops.md) into every session created
        with these options; a library that cannot be loaded raises then."""
        libraries = list(getattr(self, "_op_libraries", ()))
        libraries.append(os.fsencode(library_path))
        object.__setattr__(self, "_op_libraries", libraries)

    def _copy_with_threads(self, threads: int) -> SessionOptions:
        o = SessionOptions()
        for name in self._FIELDS:
            object.__setattr__(o, name, getattr(self, name))
        object.__setattr__(o, "intra_op_num_threads", threads)
        object.__setattr__(o, "_config", dict(self._config))
        object.__setattr__(o, "_op_libraries", list(getattr(self, "_op_libraries", ())))
        return o


def _raises_not_implemented(name: str, why: str) -> Callable[..., None]:
    def method(self: SessionOptions, *args: Any, **kwargs: Any) -> None:
        raise _not_supported("NotImplemented", "SessionOptions.%s: %s" % (name, why))
    method.__name__ = name
    method.__doc__ = "Raises NotImplemented: %s." % why
    return method


for _name, _why in (
        ("add_initializer", "initializers come from the model"),
        ("add_external_initializers", "initializers come from the model"),
        ("add_free_dimension_override_by_name", "symbolic dimensions take the inputs' sizes"),
        ("add_free_dimension_override_by_denotation",
         "symbolic dimensions take the inputs' sizes"),
        ("add_provider", "onyx runs on the CPU only"),
        ("add_provider_for_devices", "onyx runs on the CPU only"),
        ("disable_per_session_threads", "each session has its own threads")):
    setattr(SessionOptions, _name, _raises_not_implemented(_name, _why))


class RunOptions(_Options):
    """Run options, as ONNX Runtime's RunOptions.

    ``terminate``: when True as a run starts, the run raises Fail and does
    nothing (a run that has started cannot be stopped: runs are short and
    never wait). ``log_severity_level``, ``log_verbosity_level`` and
    ``logid`` are accepted: onyx never logs. ``only_execute_path_to_fetches``
    True is warned about and ignored: onyx computes every output. Run
    configuration entries are stored and warned about.
    """

    log_severity_level: int
    log_verbosity_level: int
    logid: str
    terminate: bool
    only_execute_path_to_fetches: bool

    _FIELDS: dict[str, tuple[Any, Check]] = {
        "log_severity_level": (2, _severity),
        "log_verbosity_level": (0, _count("log_verbosity_level")),
        "logid": ("", _any),
        "terminate": (False, _any),
        "only_execute_path_to_fetches": (False, _unless((False,), "onyx computes every output")),
    }

    def add_run_config_entry(self, key: str, value: str) -> None:
        self._add_config_entry(key, value)

    def get_run_config_entry(self, key: str) -> str:
        return self._get_config_entry(key)

    def check_run(self) -> None:
        """Raises Fail when terminate is set."""
        if self.terminate:
            raise _not_supported("Fail", "the run was not started: RunOptions.terminate is set")


_default_logger = {"severity": 2, "verbosity": 0}


def set_default_logger_severity(level: int) -> None:
    """Accepted as ONNX Runtime does (0 verbose .. 4 fatal); onyx never
    logs, so it changes nothing."""
    _severity(level)
    _default_logger["severity"] = level


def set_default_logger_verbosity(level: int) -> None:
    """Accepted (a count from 0); onyx never logs."""
    _count("verbosity")(level)
    _default_logger["verbosity"] = level
