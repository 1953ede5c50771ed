"""kvbudget: GPU memory and KV-cache capacity planning for LLM serving.

Python bindings (ctypes) over libkvbudget: the C library's exact answers,
with a Pythonic feel::

    >>> import kvbudget
    >>> p = kvbudget.plan("llama-3.1-8b", "awq-4", "a10g", max_model_len=32768)
    >>> p.fits, p.max_kv_tokens, round(p.gib.kv_budget_bytes_per_gpu, 2)

Layers:

- :mod:`kvbudget._capi` mirrors the C API 1:1 (C names, C structs, one
  prototype table); use it when you need exactly the C call.
- This module: :func:`plan`, :func:`plan_batch` / :func:`sweep` (many plans
  per C call), :func:`fix` (remedies, re-planned), :func:`explain` (engine
  logs), the readers (:func:`read_model`, :func:`parse_config` ...), the
  probe (:func:`probe_device`, :func:`validate`), building blocks (:func:`model`, :func:`gpu`, :func:`quant`,
  :func:`serving`, :func:`weights`, :func:`kv_bytes_per_token`,
  :func:`tensors`), :mod:`kvbudget.presets`, frozen dataclasses in bytes
  (:class:`Plan`, :class:`Model`, ...), IntEnum mirrors of the C enums, and
  one exception class per C status (:class:`KvbError` and its subclasses,
  e.g. :class:`KvbENOTFOUND`, alias :class:`KvbNotFound`).

The shared library is found through ``KVBUDGET_LIBRARY``, then
:func:`set_library_path`, then a copy next to this package, then the system
loader (see :mod:`kvbudget._capi`).
"""

from __future__ import annotations

from . import _errors, presets
from ._api import (REF_NO_CACHE, REF_NO_ENV, REF_OFFLINE, REF_STORE_CACHE,
                   Explanation, LogInputs, ModelFile, ModelRef, apply_fix,
                   arch, check, check_fix, checkpoints, hints, hub_built,
                   read_model_ref,
                   device_gpu, dtype, engine, engine_version, explain,
                   field_bounds, fix, gpu,
                   instance, instance_gpu, kv_bytes_per_token,
                   library_version, log_inputs, model, param_count,
                   parse_config, parse_gguf, parse_log, parse_safetensors,
                   plan, probe_count, probe_device, quant, quant_method,
                   quant_method_name, quant_method_note, read_model,
                   render_fix, resolve_model, serving, status_name,
                   strerror, tensors,
                   validate, validate_model, weights)
from ._batch import HAVE_NUMPY, BatchResult, BatchRow, plan_batch, sweep
from ._capi import library_path, set_library_path
from ._enums import (AUTO_BYTES, GIB, Accounting, Arch, Dtype, Engine,
                     FixKind, Format, Fp8Scale, LogFact, LogFailure, LogKnown,
                     LogPhase, ModelFlag, QuantFlag, QuantMethod, ReadField,
                     RefSource, RenderFormat, Split, Stage, Status, Storage,
                     TensorRole, Verdict, Vision, Multimodal, Mmproj)
from ._errors import KvbError, KvbLibraryError, error_class
from ._types import (AdviceOptions, Device, Fix, Gpu, Instance, LogFacts,
                     Model, Plan, Quant, ReadInfo, RefInfo, Serving, Tensor,
                     Validation,
                     ValidationStage, Weights)
from ._version import REQUIRED_ABI, __version__

# One exception class per C status (KvbEINVAL, ...) and their aliases
# (KvbInvalidArgument, ...), generated from the status table.
globals().update(_errors.CLASSES)

__all__ = [
    "__version__", "REQUIRED_ABI", "AUTO_BYTES", "GIB", "HAVE_NUMPY",
    # plans, remedies, logs
    "plan", "plan_batch", "sweep", "BatchResult", "BatchRow",
    "fix", "apply_fix", "render_fix", "hints", "checkpoints", "check", "check_fix", "explain", "parse_log", "log_inputs",
    "Explanation", "LogInputs",
    # readers, probe
    "read_model", "parse_config", "parse_safetensors", "parse_gguf",
    "ModelFile", "read_model_ref", "ModelRef", "RefInfo", "RefSource",
    "hub_built", "REF_OFFLINE", "REF_NO_ENV", "REF_STORE_CACHE",
    "REF_NO_CACHE", "probe_count", "probe_device", "device_gpu", "validate",
    # building blocks
    "model", "resolve_model", "gpu", "instance", "instance_gpu", "quant", "serving",
    "weights", "kv_bytes_per_token", "param_count", "tensors",
    "validate_model", "field_bounds", "quant_method", "quant_method_name",
    "quant_method_note", "dtype", "arch", "engine", "engine_version",
    "presets",
    # library
    "library_version", "library_path", "set_library_path", "strerror",
    "status_name",
    # types
    "Model", "Quant", "Gpu", "Serving", "Plan", "Instance", "Weights",
    "Tensor", "AdviceOptions", "Fix", "LogFacts", "ReadInfo", "Device",
    "Validation", "ValidationStage",
    "Status", "Arch", "Dtype", "ModelFlag", "QuantMethod", "Fp8Scale",
    "QuantFlag", "TensorRole", "Storage", "Split", "Engine", "Accounting",
    "Verdict", "FixKind", "RenderFormat", "LogFailure", "LogPhase",
    "LogFact", "LogKnown", "Format", "ReadField", "Stage", "Vision",
    "Multimodal", "Mmproj",
    # errors
    "KvbError", "KvbLibraryError", "error_class",
] + sorted(_errors.CLASSES)
