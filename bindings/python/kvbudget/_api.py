"""The Pythonic functions: names in, frozen dataclasses out.

Every function here is a thin wrapper over one or a few C calls of
:mod:`kvbudget._capi`; the C names are given in each docstring so the two
layers stay traceable.
"""

from __future__ import annotations

import ctypes
import json
import os
from ctypes import byref, c_double, c_int32, c_size_t, c_uint32, c_uint64
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from . import _capi
from ._enums import Dtype, LogFailure, LogKnown, QuantMethod, Status
from ._errors import error_class
from ._types import (AdviceOptions, Device, Fix, Gpu, Instance, LogFacts,
                     Model, Plan, Quant, ReadInfo, RefInfo, Serving, Tensor,
                     Validation, Weights, set_field)

ModelLike = Union[str, Model, _capi.Model]
QuantLike = Union[None, str, int, QuantMethod, Quant, _capi.Quant]
GpuLike = Union[str, Gpu, _capi.Gpu]
ServingLike = Union[None, Serving, _capi.Serving, Mapping[str, Any]]


def _lib() -> ctypes.CDLL:
    return _capi.library()


def _name(value: str, what: str) -> bytes:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, not "
                        f"{type(value).__name__}")
    return value.encode("utf-8")


# ---- versions and statuses ----

def library_version() -> str:
    """The loaded library's version string (``kvb_version_string``)."""
    return str(_lib().kvb_version_string())


def strerror(status: int) -> str:
    """``kvb_strerror``: a status in words."""
    return str(_lib().kvb_strerror(int(status)))


def status_name(status: int) -> str:
    """``kvb_status_name``: "KVB_EINVAL"."""
    return str(_lib().kvb_status_name(int(status)))


def field_bounds(field: str) -> Tuple[float, float]:
    """``kvb_field_bounds``: the documented inclusive range of a field
    ("serving.gpu_memory_utilization" gives (0.0, 1.0))."""
    lo, hi = c_double(), c_double()
    _lib().kvb_field_bounds(_name(field, "field"), byref(lo), byref(hi),
                            _capi.Error())
    return lo.value, hi.value


# ---- names of enum values ----

def arch(name: str) -> int:
    """``kvb_arch_find``: a family by name or HF model_type ("qwen2")."""
    out = c_int32()
    _lib().kvb_arch_find(_name(name, "arch"), byref(out), _capi.Error())
    return out.value


def dtype(name: str) -> Dtype:
    """``kvb_dtype_find``: "bf16", "float16", "fp8" ..."""
    out = c_int32()
    _lib().kvb_dtype_find(_name(name, "dtype"), byref(out), _capi.Error())
    return Dtype(out.value)


def quant_method(name: str) -> QuantMethod:
    """``kvb_quant_method_find``: "awq", "awq-4", "Q4_K_M", "fp8" ..."""
    out = c_int32()
    _lib().kvb_quant_method_find(_name(name, "quant.method"), byref(out),
                                 _capi.Error())
    return QuantMethod(out.value)


def quant_method_name(method: int) -> str:
    """``kvb_quant_method_name``: the spelling the command uses."""
    return _lib().kvb_quant_method_name(int(method)) or ""


def quant_method_note(method: int) -> str:
    """``kvb_quant_method_note``: a short quality note for advice."""
    return _lib().kvb_quant_method_note(int(method)) or ""


# ---- inputs: names, dataclasses or C structs to C structs ----

def _model_c(model: ModelLike) -> _capi.Model:
    if isinstance(model, _capi.Model):
        return model
    if isinstance(model, Model):
        return model.to_c()  # type: ignore[return-value]
    m = _capi.Model()
    _lib().kvb_preset_model_find(_name(model, "model"), m, _capi.Error())
    return m


def _quant_c(quant: QuantLike, **changes: Any) -> Optional[_capi.Quant]:
    if isinstance(quant, _capi.Quant) and not any(
            v is not None for v in changes.values()):
        return quant
    if isinstance(quant, Quant):
        q = quant.to_c()
    elif isinstance(quant, _capi.Quant):
        q = _capi.Quant()
        ctypes.memmove(byref(q), byref(quant), ctypes.sizeof(q))
    else:
        q = _capi.Quant()
        if isinstance(quant, str):
            set_field(q, "quant", "method", quant_method(quant))
        elif quant is not None:
            set_field(q, "quant", "method", quant)
    for key, value in changes.items():
        if value is None:
            continue
        if key in ("dtype", "kv_cache_dtype") and isinstance(value, str):
            value = dtype(value)
        set_field(q, "quant", key, value)
    return q  # type: ignore[return-value]


def _gpu_c(gpu: Optional[GpuLike], instance: Union[None, str, Instance],
           gpu_count: Optional[int]) -> _capi.Gpu:
    g = _capi.Gpu()
    if instance is not None:
        inst = _instance_c(instance)
        _lib().kvb_instance_gpu(inst, g, _capi.Error())
        if gpu is not None:
            raise TypeError("give gpu or instance, not both")
    elif isinstance(gpu, _capi.Gpu):
        ctypes.memmove(byref(g), byref(gpu), ctypes.sizeof(g))
    elif isinstance(gpu, Gpu):
        g = gpu.to_c()  # type: ignore[assignment]
    elif gpu is None:
        raise TypeError("a gpu (preset name or kvbudget.Gpu) or an "
                        "instance is required")
    else:
        _lib().kvb_preset_gpu_find(_name(gpu, "gpu"), g, _capi.Error())
    if gpu_count is not None:
        set_field(g, "gpu", "count", gpu_count)
    return g


def _instance_c(instance: Union[str, Instance]) -> _capi.Instance:
    if isinstance(instance, Instance):
        return instance.to_c()  # type: ignore[return-value]
    inst = _capi.Instance()
    _lib().kvb_preset_instance_find(_name(instance, "instance"), inst,
                                    _capi.Error())
    return inst


def engine(spec: str) -> Tuple[int, int]:
    """``kvb_engine_parse``: "vllm@0.11" gives (engine, packed version)."""
    eng, ver = c_int32(), c_uint32()
    _lib().kvb_engine_parse(_name(spec, "serving.engine"), byref(eng),
                            byref(ver), _capi.Error())
    return eng.value, ver.value


def engine_version(engine_id: int, version: int) -> str:
    """``kvb_engine_version_format``: the engine's own form ("0.8.5",
    llama.cpp's "b6123"; "newest" for 0)."""
    buf = ctypes.create_string_buffer(32)
    _lib().kvb_engine_version_format(engine_id, version, buf, len(buf),
                                     _capi.Error())
    return buf.value.decode()


_SERVING_FIELDS = tuple(f for f in _capi.Serving._c_types_
                        if f != "struct_size")


def _serving_c(serving: ServingLike = None,
               **changes: Any) -> _capi.Serving:
    s = _capi.Serving()
    if isinstance(serving, _capi.Serving):
        ctypes.memmove(byref(s), byref(serving), ctypes.sizeof(s))
    elif isinstance(serving, Serving):
        s = serving.to_c()  # type: ignore[assignment]
    elif serving is not None:
        changes = {**dict(serving), **changes}
    spec = changes.pop("engine", None)
    if isinstance(spec, str):
        eng, ver = engine(spec)
        set_field(s, "serving", "engine", eng)
        set_field(s, "serving", "engine_version", ver)
    elif spec is not None:
        set_field(s, "serving", "engine", spec)
    for key, value in changes.items():
        if key not in _SERVING_FIELDS:
            raise TypeError(f"unknown serving setting {key!r}; allowed: "
                            + ", ".join(_SERVING_FIELDS))
        if value is not None:
            set_field(s, "serving", key, value)
    return s


# ---- building blocks as dataclasses ----

def model(name: str) -> Model:
    """``kvb_preset_model_find``: a preset model, case-insensitively."""
    return Model.from_c(_model_c(name))


def resolve_model(name: str) -> Tuple[Model, Quant, str]:
    """``kvb_preset_model_resolve``: a preset or a Hugging Face repository
    name ("Qwen/Qwen2.5-72B-Instruct-AWQ") to the preset, the checkpoint's
    own format and a note saying what was resolved."""
    cm, cq = _capi.Model(), _capi.Quant()
    note = ctypes.create_string_buffer(256)
    _lib().kvb_preset_model_resolve(_name(name, "model"), cm, cq, note,
                                    len(note), _capi.Error())
    return (Model.from_c(cm), Quant.from_c(cq),
            note.value.decode("utf-8", "replace"))


def gpu(name: str, count: Optional[int] = None) -> Gpu:
    """``kvb_preset_gpu_find``: a preset GPU ("A10G", "h100"), with an
    optional count."""
    return Gpu.from_c(_gpu_c(name, None, count))


def instance(name: str) -> Instance:
    """``kvb_preset_instance_find``: a preset cloud instance."""
    return Instance.from_c(_instance_c(name))


def instance_gpu(inst: Union[str, Instance]) -> Gpu:
    """``kvb_instance_gpu``: an instance's GPU, count = its GPU count."""
    return Gpu.from_c(_gpu_c(None, inst, None))


def quant(method: QuantLike = None, *, group_size: Optional[int] = None,
          dtype: Union[None, str, int] = None,
          kv_cache_dtype: Union[None, str, int] = None,
          fp8_scale: Optional[int] = None,
          flags: Optional[int] = None,
          keep_roles: Optional[int] = None) -> Quant:
    """A quantization scheme: a method name ("awq-4", "Q4_K_M") or
    :class:`QuantMethod`, the C defaults for the rest (``kvb_quant_init``).
    ``keep_roles``: bits ``1 << TensorRole`` left unquantized, as a
    checkpoint's ignore list says."""
    q = _quant_c(method, group_size=group_size, dtype=dtype,
                 kv_cache_dtype=kv_cache_dtype, fp8_scale=fp8_scale,
                 flags=flags, keep_roles=keep_roles)
    return Quant.from_c(q)  # type: ignore[arg-type]


def serving(**settings: Any) -> Serving:
    """Serving settings: ``kvb_serving_init``'s defaults plus ``settings``
    (any kvb_serving field, and ``engine="vllm@0.11"``)."""
    return Serving.from_c(_serving_c(None, **settings))


def validate_model(m: ModelLike) -> None:
    """``kvb_model_validate``: raises the status naming the bad field."""
    _lib().kvb_model_validate(_model_c(m), _capi.Error())


def param_count(m: ModelLike) -> Tuple[int, int]:
    """``kvb_model_param_count``: (stored parameters, active per token)."""
    total, active = c_uint64(), c_uint64()
    _lib().kvb_model_param_count(_model_c(m), byref(total), byref(active),
                                 _capi.Error())
    return total.value, active.value


def weights(m: ModelLike, quant: QuantLike = None,
            tensor_parallel_size: int = 1,
            pipeline_parallel_size: int = 1) -> Weights:
    """``kvb_weights_compute``: parameter counts and bytes, total and on the
    busiest GPU under TP x PP."""
    w = _capi.Weights()
    _lib().kvb_weights_compute(_model_c(m), _quant_c(quant),
                               tensor_parallel_size, pipeline_parallel_size,
                               w, _capi.Error())
    return Weights.from_c(w)


def kv_bytes_per_token(m: ModelLike, quant: QuantLike = None,
                       tensor_parallel_size: int = 1,
                       pipeline_parallel_size: int = 1) -> Tuple[int, int]:
    """``kvb_kv_bytes_per_token``: (whole model, busiest GPU)."""
    whole, per_gpu = c_uint64(), c_uint64()
    _lib().kvb_kv_bytes_per_token(_model_c(m), _quant_c(quant),
                                  tensor_parallel_size,
                                  pipeline_parallel_size, byref(whole),
                                  byref(per_gpu), _capi.Error())
    return whole.value, per_gpu.value


def tensors(m: ModelLike, quant: QuantLike = None) -> List[Tensor]:
    """``kvb_model_tensor_count`` / ``kvb_model_tensor_get``: the inventory,
    each tensor with its bytes under ``quant``."""
    cm, cq = _model_c(m), _quant_c(quant)
    count = c_size_t()
    lib = _lib()
    err = _capi.Error()
    lib.kvb_model_tensor_count(cm, byref(count), err)
    out: List[Tensor] = []
    t = _capi.Tensor()
    for i in range(count.value):
        lib.kvb_model_tensor_get(cm, cq, i, t, err)
        out.append(Tensor.from_c(t))
    return out


# ---- the plan ----

def _plan_inputs(model: ModelLike, quant: QuantLike, gpu: Optional[GpuLike],
                 instance: Union[None, str, Instance],
                 gpu_count: Optional[int], serving: ServingLike,
                 kw: Dict[str, Any]) -> Tuple[Any, Any, Any, Any]:
    quant_kw = {k: kw.pop(k) for k in ("group_size", "dtype",
                                       "kv_cache_dtype", "fp8_scale")
                if k in kw}
    return (_model_c(model), _quant_c(quant, **quant_kw),
            _gpu_c(gpu, instance, gpu_count), _serving_c(serving, **kw))


def plan(model: ModelLike, quant: QuantLike = None,
         gpu: Optional[GpuLike] = None, *,
         instance: Union[None, str, Instance] = None,
         gpu_count: Optional[int] = None, serving: ServingLike = None,
         **settings: Any) -> Plan:
    """The capacity plan (``kvb_plan_compute``).

    :param model: a preset name (case-insensitive), a :class:`Model`, or a
        ``_capi.Model``.
    :param quant: a method name ("awq-4", "fp8", "Q4_K_M"), a
        :class:`QuantMethod`, a :class:`Quant`, or None (unquantized).
    :param gpu: a preset name ("a10g"), or a :class:`Gpu`; or give
        ``instance`` ("g5.12xlarge") for its GPUs.
    :param gpu_count: GPUs available (default: the GPU's or instance's).
    :param serving: base settings (:class:`Serving` or a dict).
    :param settings: any kvb_serving field (``max_model_len=32768``,
        ``tensor_parallel_size=2``, ``gpu_memory_utilization=0.9``,
        ``concurrency=8`` ...), ``engine="vllm@0.11"``, and the quant
        fields ``kv_cache_dtype="fp8"``, ``dtype``, ``group_size``.
        Sizes are bytes.
    :returns: a frozen :class:`Plan`; a plan that does not fit is a result
        (``fits`` 0 and ``verdict`` saying why), not an exception.
    :raises KvbError: the C status for bad input, e.g. :class:`KvbENOTFOUND`
        for an unknown preset or :class:`KvbERANGE` naming the field.
    """
    cm, cq, cg, cs = _plan_inputs(model, quant, gpu, instance, gpu_count,
                                  serving, dict(settings))
    p = _capi.Plan()
    _lib().kvb_plan_compute(cm, cq, cg, cs, p, _capi.Error())
    return Plan.from_c(p)


# ---- advice ----

def _options_c(options: Union[None, Mapping[str, Any], "AdviceOptions"],
               instance: Union[None, str, Instance]) -> _capi.AdviceOptions:
    if isinstance(options, AdviceOptions):
        o = options.to_c()
    else:
        o = _capi.AdviceOptions()
        for key, value in dict(options or {}).items():
            set_field(o, "options", key, value)
    if instance is not None and not o.instance:
        name = instance.name if isinstance(instance, Instance) else instance
        set_field(o, "options", "instance", name)
    return o  # type: ignore[return-value]


def fix(model: ModelLike, quant: QuantLike = None,
        gpu: Optional[GpuLike] = None, *,
        instance: Union[None, str, Instance] = None,
        gpu_count: Optional[int] = None, serving: ServingLike = None,
        options: Union[None, Mapping[str, Any], "AdviceOptions"] = None,
        **settings: Any) -> List["Fix"]:
    """The remedies for a plan that does not fit (``kvb_advise``), in the
    order an operator tries them, each re-planned: ``fix.fits``,
    ``fix.max_concurrency`` ... say what it would give.

    Takes the same inputs as :func:`plan`; ``options`` (a dict or
    :class:`AdviceOptions`) bounds the search.  A plan that fits gets [].
    """
    cm, cq, cg, cs = _plan_inputs(model, quant, gpu, instance, gpu_count,
                                  serving, dict(settings))
    co = _options_c(options, instance)
    lib = _lib()
    cap = 32  # KVB_ADVICE_MAX
    while True:
        fixes = (_capi.Fix * cap)()
        for f in fixes:
            lib.kvb_fix_init(byref(f), ctypes.sizeof(f))
        count = c_size_t()
        try:
            lib.kvb_advise(cm, cq, cg, cs, co, fixes, cap, byref(count),
                           _capi.Error())
        except error_class(int(Status.EBUFSIZE)):
            cap = count.value
            continue
        return [Fix.from_c(fixes[i]) for i in range(count.value)]


def hints(model: ModelLike, quant: QuantLike = None,
          gpu: Optional[GpuLike] = None, *,
          instance: Union[None, str, Instance] = None,
          gpu_count: Optional[int] = None, serving: ServingLike = None,
          **settings: Any) -> List[str]:
    """``kvb_plan_hints``: what the plan of these inputs leaves on the table
    (idle GPUs, a max_model_len left at the model's maximum, no room for
    the CUDA context, a format the GPU cannot run), one string each."""
    cm, cq, cg, cs = _plan_inputs(model, quant, gpu, instance, gpu_count,
                                  serving, dict(settings))
    p = _capi.Plan()
    lib = _lib()
    lib.kvb_plan_compute(cm, cq, cg, cs, p, _capi.Error())
    text = _render(lambda *a: lib.kvb_plan_hints(cm, cq, cg, cs, p, *a))
    return [line for line in text.split("\n") if line]


def checkpoints() -> List[Tuple[str, str, str, str]]:
    """The published quantized checkpoints remedies name: (model preset,
    quantization method name, Hugging Face repository, source) rows."""
    lib = _lib()
    return [(lib.kvb_preset_checkpoint_model(i),
             quant_method_name(lib.kvb_preset_checkpoint_method(i)),
             lib.kvb_preset_checkpoint_name(i),
             lib.kvb_preset_checkpoint_source(i))
            for i in range(lib.kvb_preset_checkpoint_count())]


def apply_fix(f: "Fix", quant: QuantLike = None,
              gpu: Optional[GpuLike] = None,
              serving: ServingLike = None) -> Tuple[Quant, Gpu, Serving]:
    """``kvb_fix_apply``: the inputs after a fix (the quantization, GPU and
    serving settings given to :func:`fix`; plan them with the same model)."""
    cq = _quant_c(quant) or _capi.Quant()
    cg = _capi.Gpu() if gpu is None else _gpu_c(gpu, None, None)
    cs = _serving_c(serving)
    _lib().kvb_fix_apply(f.to_c(), cq, cg, cs, _capi.Error())
    return Quant.from_c(cq), Gpu.from_c(cg), Serving.from_c(cs)


def _render(call: Any, *args: Any) -> str:
    """Call a (buf, cap, needed, err) C function twice: size, then text."""
    needed = c_size_t(0)
    try:
        call(*args, None, 0, byref(needed), _capi.Error())
    except error_class(int(Status.EBUFSIZE)):
        pass
    buf = ctypes.create_string_buffer(max(needed.value, 1))
    call(*args, buf, len(buf), None, _capi.Error())
    return buf.value.decode("utf-8", "replace")


def render_fix(f: "Fix", model: ModelLike,
               format: Union[int, str] = 0) -> str:
    """``kvb_fix_render``: a fix as ``vllm serve`` flags (``"vllm"``, the
    default), a container ``args:`` block (``"k8s"``) or a Karpenter
    NodePool requirement (``"karpenter"``)."""
    names = {"vllm": 0, "vllm_args": 0, "k8s": 1, "k8s_args": 1,
             "kubernetes": 1, "karpenter": 2}
    if isinstance(format, str):
        if format.lower() not in names:
            raise ValueError(f"format {format!r}; allowed: "
                             + ", ".join(names))
        format = names[format.lower()]
    return _render(_lib().kvb_fix_render, f.to_c(), _model_c(model),
                   int(format))


# ---- Kubernetes manifests (check) ----

def _check_options(gpu: Optional[str], instance: Optional[str],
                   max_fixes: int) -> "_capi.CheckOptions":
    o = _capi.CheckOptions()
    _lib().kvb_check_options_init(o, ctypes.sizeof(o))
    o.gpu = (gpu or "").encode("utf-8")
    o.instance = (instance or "").encode("utf-8")
    o.max_fixes = max_fixes
    return o


def _manifest_text(path_or_text: Union[str, "os.PathLike[str]", bytes]
                   ) -> Tuple[bytes, str]:
    if isinstance(path_or_text, bytes):
        return path_or_text, "-"
    text = os.fspath(path_or_text)
    if "\n" not in text and os.path.isfile(text):
        with open(text, "rb") as f:
            return f.read(), text
    return text.encode("utf-8"), "-"


def check(path_or_text: Union[str, "os.PathLike[str]", bytes],
          gpu: Optional[str] = None, instance: Optional[str] = None,
          max_fixes: int = 3) -> Dict[str, Any]:
    """``kvb_check_manifest``: which serving containers of a Kubernetes
    manifest (a path, or the YAML itself) will start.  Returns the report
    as ``kvbudget check --json`` prints it: ``{"deployments": [...],
    "not_understood": [...]}``, each deployment with its ``verdict``
    ("fits", "fails", "unknown"), ``reasons``, ``plan``, ``fixes`` and
    ``patch``.  ``gpu``/``instance`` name the GPU where the manifest does
    not.  Invalid YAML raises the parse error with its line."""
    data, name = _manifest_text(path_or_text)
    o = _check_options(gpu, instance, max_fixes)
    text = _render(_lib().kvb_check_manifest, data, len(data),
                   name.encode("utf-8"), o)
    result: Dict[str, Any] = json.loads(text)
    return result


def check_fix(path_or_text: Union[str, "os.PathLike[str]", bytes],
              gpu: Optional[str] = None,
              instance: Optional[str] = None) -> str:
    """``kvb_check_fix``: the manifest with the first remedy that fits
    applied to each failing serving container."""
    data, _ = _manifest_text(path_or_text)
    o = _check_options(gpu, instance, 3)
    needed = c_size_t(0)
    changed = c_uint32(0)
    try:
        _lib().kvb_check_fix(data, len(data), o, None, 0, byref(needed),
                             byref(changed), _capi.Error())
    except error_class(int(Status.EBUFSIZE)):
        pass
    buf = ctypes.create_string_buffer(max(needed.value, 1))
    _lib().kvb_check_fix(data, len(data), o, buf, len(buf), None,
                         byref(changed), _capi.Error())
    return buf.value.decode("utf-8", "replace")


# ---- logs (explain) ----

def _as_bytes(data: Union[str, bytes, bytearray, memoryview]) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8", "surrogateescape")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        # bytes(5) would be five NUL bytes, not a log
        raise TypeError(f"log text must be str or bytes, not "
                        f"{type(data).__name__}")
    return bytes(data)


def parse_log(text: Union[str, bytes]) -> "LogFacts":
    """``kvb_log_parse``: what an engine log (``kubectl logs --previous``)
    shows.  Any bytes are accepted."""
    raw = _as_bytes(text)
    facts = _capi.LogFacts()
    _lib().kvb_log_parse(raw, len(raw), facts, _capi.Error())
    return LogFacts.from_c(facts)


def log_inputs(facts: "LogFacts") -> "LogInputs":
    """``kvb_log_inputs``: planner inputs from what a log shows (only what
    it shows; the rest keeps the C defaults).  ``known`` says which."""
    cm, cq, cg, cs = (_capi.Model(), _capi.Quant(), _capi.Gpu(),
                      _capi.Serving())
    known = c_uint32()
    _lib().kvb_log_inputs(facts.to_c(), cm, cq, cg, cs, byref(known),
                          _capi.Error())
    return LogInputs(Model.from_c(cm), Quant.from_c(cq), Gpu.from_c(cg),
                     Serving.from_c(cs), LogKnown(known.value))


@dataclass(frozen=True)
class LogInputs:
    """The planner inputs a log shows; ``known`` says which are real."""

    model: Model
    quant: Quant
    gpu: Gpu
    serving: Serving
    known: LogKnown

    def plan(self, model: Optional[ModelLike] = None) -> Plan:
        """Re-plan the crash (``model`` when the log's was not a preset)."""
        return plan(model if model is not None else self.model, self.quant,
                    self.gpu, serving=self.serving)

    def fixes(self, model: Optional[ModelLike] = None,
              **kw: Any) -> List["Fix"]:
        """The remedies for the crash, re-planned (:func:`fix`)."""
        return fix(model if model is not None else self.model, self.quant,
                   self.gpu, serving=self.serving, **kw)


@dataclass(frozen=True)
class Explanation:
    """What a log means: the facts, the text of ``kvb_log_explain``, and
    the planner inputs it shows (:meth:`inputs`)."""

    facts: "LogFacts"
    text: str

    @property
    def failure(self) -> LogFailure:
        return self.facts.failure

    def inputs(self) -> LogInputs:
        return log_inputs(self.facts)

    def __str__(self) -> str:
        return self.text


def explain(text: Union[str, bytes]) -> Explanation:
    """Explain an engine log (``kvb_log_parse`` + ``kvb_log_explain``):
    which failure, in numbers; ``.inputs().fixes()`` gives the remedies."""
    facts = parse_log(text)
    return Explanation(facts, _render(_lib().kvb_log_explain,
                                      facts.to_c()))


# ---- readers ----

@dataclass(frozen=True)
class ModelFile:
    """A model read from a file: architecture, quantization, provenance
    (``info.weights_bytes`` is the checkpoint's exact bytes when the file
    says; pass it as ``weights_bytes=`` to :func:`plan`)."""

    model: Model
    quant: Quant
    info: "ReadInfo"


# kvb_read_info.options bits (include/kvbudget.h)
READ_ASSUME_LLAMA = 1


def _read_info(assume_llama: bool) -> "_capi.ReadInfo":
    ci = _capi.ReadInfo()
    ci.options = READ_ASSUME_LLAMA if assume_llama else 0
    return ci


def read_model(path: Union[str, "os.PathLike[str]"],
               assume_llama: bool = False) -> ModelFile:
    """``kvb_model_read``: a model directory, config.json, .safetensors
    (or its index) or GGUF file; headers only.  An unknown model_type is
    refused unless ``assume_llama`` (KVB_READ_ASSUME_LLAMA)."""
    cm, cq, ci = _capi.Model(), _capi.Quant(), _read_info(assume_llama)
    _lib().kvb_model_read(os.fsencode(path), cm, cq, ci, _capi.Error())
    return ModelFile(Model.from_c(cm), Quant.from_c(cq), ReadInfo.from_c(ci))


@dataclass(frozen=True)
class ModelRef:
    """A model read from a reference (:func:`read_model_ref`): what
    :class:`ModelFile` holds, and ``where`` it came from."""

    model: Model
    quant: Quant
    info: "ReadInfo"
    where: "RefInfo"


#: kvb_ref_options.flags
REF_OFFLINE, REF_NO_ENV, REF_STORE_CACHE, REF_NO_CACHE = 0x1, 0x2, 0x4, 0x8


def read_model_ref(ref: str, *, endpoint: Optional[str] = None,
                   token: Optional[str] = None,
                   hf_cache: Optional[str] = None,
                   ollama_models: Optional[str] = None,
                   offline: bool = False, use_env: bool = True,
                   use_cache: bool = True, store_cache: bool = False,
                   max_parallel: Optional[int] = None,
                   max_retries: Optional[int] = None,
                   timeout_ms: Optional[int] = None,
                   backoff_ms: Optional[int] = None) -> ModelRef:
    """``kvb_model_read_ref``: a model where it lives, headers only:
    ``ORG/REPO[@REV][:QUANT]`` or ``hf://...`` (the Hugging Face cache,
    then the Hub), ``ollama://NAME[:TAG]`` (the Ollama store), or a local
    path.  Arguments left None take the environment (HF_ENDPOINT,
    HF_TOKEN, HF_HUB_CACHE / HF_HOME, OLLAMA_MODELS, HF_HUB_OFFLINE) unless
    ``use_env`` is False, then the library's defaults."""
    opt = _capi.RefOptions()
    keep = []  # the strings must outlive the call

    def text(value: Optional[str]) -> Optional[int]:
        if value is None:
            return None
        buf = ctypes.create_string_buffer(os.fsencode(value))
        keep.append(buf)
        return ctypes.addressof(buf)

    opt.hf_endpoint = text(endpoint)
    opt.hf_token = text(token)
    opt.hf_cache = text(hf_cache)
    opt.ollama_models = text(ollama_models)
    opt.flags = ((REF_OFFLINE if offline else 0) |
                 (0 if use_env else REF_NO_ENV) |
                 (0 if use_cache else REF_NO_CACHE) |
                 (REF_STORE_CACHE if store_cache else 0))
    for name, value in (("max_parallel", max_parallel),
                        ("max_retries", max_retries),
                        ("timeout_ms", timeout_ms),
                        ("backoff_ms", backoff_ms)):
        if value is not None:
            setattr(opt, name, value)
    cm, cq, ci = _capi.Model(), _capi.Quant(), _capi.ReadInfo()
    cw = _capi.RefInfo()
    _lib().kvb_model_read_ref(ref.encode(), opt, cm, cq, ci, cw,
                              _capi.Error())
    return ModelRef(Model.from_c(cm), Quant.from_c(cq), ReadInfo.from_c(ci),
                    RefInfo.from_c(cw))


def hub_built() -> bool:
    """``kvb_hub_built``: whether this library reads from the Hub."""
    return bool(_lib().kvb_hub_built())


def parse_config(text: Union[str, bytes],
                 assume_llama: bool = False) -> ModelFile:
    """``kvb_config_parse``: a Hugging Face config.json's text; an unknown
    model_type is refused unless ``assume_llama``."""
    raw = _as_bytes(text)
    cm, cq, ci = _capi.Model(), _capi.Quant(), _read_info(assume_llama)
    _lib().kvb_config_parse(raw, len(raw), cm, cq, ci, _capi.Error())
    return ModelFile(Model.from_c(cm), Quant.from_c(cq), ReadInfo.from_c(ci))


def parse_safetensors(data: bytes) -> "ReadInfo":
    """``kvb_safetensors_parse``: the exact tensor bytes from the start of
    a .safetensors file (its header)."""
    raw = _as_bytes(data)
    ci = _capi.ReadInfo()
    _lib().kvb_safetensors_parse(raw, len(raw), ci, _capi.Error())
    return ReadInfo.from_c(ci)


def parse_gguf(data: bytes) -> ModelFile:
    """``kvb_gguf_parse``: a model from the start of a GGUF file."""
    raw = _as_bytes(data)
    cm, cq, ci = _capi.Model(), _capi.Quant(), _capi.ReadInfo()
    _lib().kvb_gguf_parse(raw, len(raw), cm, cq, ci, _capi.Error())
    return ModelFile(Model.from_c(cm), Quant.from_c(cq), ReadInfo.from_c(ci))


# ---- probe and validate ----

def probe_count() -> int:
    """``kvb_probe_count``: CUDA devices; raises :class:`KvbENOCUDA`,
    :class:`KvbENODRIVER` or :class:`KvbENODEVICE` without one."""
    count = c_uint32()
    _lib().kvb_probe_count(byref(count), _capi.Error())
    return count.value


def probe_device(index: int = 0) -> "Device":
    """``kvb_probe_device``: a CUDA device's memory as an engine sees it."""
    dev = _capi.Device()
    _lib().kvb_probe_device(index, dev, _capi.Error())
    return Device.from_c(dev)


def device_gpu(device: "Device") -> Gpu:
    """``kvb_device_gpu``: the planner's GPU for a probed device."""
    g = _capi.Gpu()
    _lib().kvb_device_gpu(device.to_c(), g, _capi.Error())
    return Gpu.from_c(g)


def validate(model: ModelLike, quant: QuantLike = None, *,
             device: int = 0, serving: ServingLike = None,
             **settings: Any) -> "Validation":
    """``kvb_validate``: allocate what the plan predicts on a real GPU and
    compare (takes the device's free memory for a few seconds)."""
    quant_kw = {k: settings.pop(k) for k in ("group_size", "dtype",
                                             "kv_cache_dtype", "fp8_scale")
                if k in settings}
    out = _capi.Validation()
    _lib().kvb_validate(_model_c(model), _quant_c(quant, **quant_kw),
                        _serving_c(serving, **settings), device, out,
                        _capi.Error())
    return Validation.from_c(out)
