"""Frozen dataclasses of the C structs, and the conversions both ways.

Each dataclass has exactly the fields of its C struct but ``struct_size``
(the tests check it), in C order, with the C units: sizes in bytes, counts,
ratios.  Enum fields hold the :mod:`kvbudget` IntEnum mirrors, so they
compare equal to the C integers.  ``.gib`` gives any byte field in GiB, for
display only.
"""

from __future__ import annotations

import dataclasses
import enum
import operator
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Dict, Iterator, Tuple, Type, TypeVar

from . import _capi
from ._enums import (GIB, Accounting, Arch, Dtype, Engine, FixKind,
                     Fp8Scale, Format, LogFact, LogFailure, LogPhase,
                     ModelFlag, QuantFlag, QuantMethod, ReadField,
                     RefSource, Split,
                     Status, Storage, TensorRole, Verdict)
from ._errors import error_class

__all__ = ["Model", "Quant", "Gpu", "Serving", "Plan", "Instance", "Weights",
           "Tensor", "AdviceOptions", "Fix", "LogFacts", "ReadInfo", "RefInfo",
           "Device",
           "ValidationStage", "Validation", "GiBView"]

T = TypeVar("T", bound="_CMirror")

_INT_LIMITS: Dict[str, Tuple[int, int]] = {
    "size_t": (0, (1 << 64) - 1),
    "int32_t": (-(1 << 31), (1 << 31) - 1),
    "uint32_t": (0, (1 << 32) - 1),
    "int64_t": (-(1 << 63), (1 << 63) - 1),
    "uint64_t": (0, (1 << 64) - 1),
    "uint8_t": (0, 255),
}


def _bad(status: Status, field_name: str, message: str) -> Exception:
    return error_class(int(status))(int(status), f"KVB_{status.name}",
                                    field_name, message)


def set_field(struct: _capi.CStruct, prefix: str, name: str,
              value: Any) -> None:
    """Set one field of a C mirror, refusing what C would silently wrap.

    Integers must fit their C type, strings their char array (UTF-8, with
    the terminating NUL); booleans are 0/1.  Raises the ``KVB_ERANGE`` /
    ``KVB_EINVAL`` exception naming ``<prefix>.<name>``.
    """
    ctype = struct._c_types_.get(name)
    path = f"{prefix}.{name}"
    if ctype is None:
        raise TypeError(f"{prefix} has no field {name!r}")
    if ctype == "char":
        if isinstance(value, str):
            value = value.encode("utf-8")
        if not isinstance(value, (bytes, bytearray)):
            raise TypeError(f"{path} must be a string, not "
                            f"{type(value).__name__}")
        cap = dict(struct._fields_)[name]._length_  # type: ignore
        if len(value) >= cap or b"\0" in value:
            raise _bad(Status.EINVAL, path,
                       f"{path} ({value.decode('utf-8', 'replace')!r}) is "
                       f"too long or holds a NUL; allowed: up to {cap - 1} "
                       f"bytes")
        setattr(struct, name, bytes(value))
        return
    if ctype == "double":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            try:
                value = float(value)  # numpy floats
            except (TypeError, ValueError):
                raise TypeError(f"{path} must be a number, not "
                                f"{type(value).__name__}") from None
        setattr(struct, name, float(value))
        return
    if ctype == "pointer":
        setattr(struct, name, value)
        return
    try:
        number = operator.index(value)  # ints, bools, IntEnums, numpy ints
    except TypeError:
        raise TypeError(f"{path} must be an integer, not "
                        f"{type(value).__name__}") from None
    lo, hi = _INT_LIMITS[ctype]
    if not lo <= number <= hi:
        raise _bad(Status.ERANGE, path,
                   f"{path} ({number}) does not fit {ctype}; allowed: "
                   f"{lo}..{hi}")
    setattr(struct, name, number)


class GiBView:
    """Read-only GiB figures of an object's byte fields, for display.

    ``plan.gib.kv_budget_bytes_per_gpu`` is ``kv_budget_bytes_per_gpu /
    2**30``; every name containing ``bytes`` works.
    """

    __slots__ = ("_obj",)

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def __getattr__(self, name: str) -> float:
        if "bytes" not in name:
            raise AttributeError(f"{name} is not a byte field")
        return getattr(self._obj, name) / GIB

    def __dir__(self) -> Iterator[str]:  # type: ignore[override]
        return iter(f.name for f in fields(self._obj) if "bytes" in f.name)

    def __repr__(self) -> str:
        items = ", ".join(f"{n}={getattr(self, n):.2f}" for n in dir(self))
        return f"GiB({items})"


class _CMirror:
    """Shared conversion code of the dataclasses below."""

    _c_struct_: ClassVar[Type[_capi.CStruct]]
    _c_prefix_: ClassVar[str]
    _enums_: ClassVar[Dict[str, Type[enum.IntEnum]]] = {}
    #: fields that hold an array of embedded structs, and their dataclass
    _nested_: ClassVar[Dict[str, Type["_CMirror"]]] = {}

    @classmethod
    def from_c(cls: Type[T], struct: _capi.CStruct) -> T:
        """The dataclass of a filled C struct."""
        kw: Dict[str, Any] = {}
        for f in fields(cls):  # type: ignore[arg-type]
            value = getattr(struct, f.name)
            nested = cls._nested_.get(f.name)
            if nested is not None:
                kw[f.name] = tuple(nested.from_c(v) for v in value)
                continue
            if isinstance(value, bytes):
                value = value.decode("utf-8", "replace")
            conv = cls._enums_.get(f.name)
            if conv is not None:
                try:
                    value = conv(value)
                except ValueError:  # a value a newer library added
                    pass
            kw[f.name] = value
        return cls(**kw)

    def to_c(self) -> _capi.CStruct:
        """A C struct (initialised by its C init) holding these fields."""
        struct = self._c_struct_()
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.name in self._nested_:
                array = getattr(struct, f.name)
                if len(value) > len(array):
                    raise _bad(Status.ERANGE, f"{self._c_prefix_}.{f.name}",
                               f"{self._c_prefix_}.{f.name} has "
                               f"{len(value)} entries; allowed: up to "
                               f"{len(array)}")
                for i, item in enumerate(value):
                    c_item = item.to_c()
                    _capi.ctypes.memmove(_capi.byref(array[i]),
                                         _capi.byref(c_item),
                                         _capi.sizeof(c_item))
                continue
            set_field(struct, self._c_prefix_, f.name, value)
        return struct

    def replace(self: T, **changes: Any) -> T:
        """A copy with some fields changed (dataclasses.replace)."""
        return dataclasses.replace(self, **changes)  # type: ignore

    @property
    def gib(self) -> GiBView:
        """Byte fields in GiB, for display only."""
        return GiBView(self)


@dataclass(frozen=True)
class Model(_CMirror):
    """``kvb_model``: a decoder-only transformer, in config.json terms.

    Defaults are :c:func:`kvb_model_init`'s (all zero, GENERIC, BF16); get a
    filled one from :func:`kvbudget.model` (a preset) and change it with
    :meth:`replace`.
    """

    _c_struct_ = _capi.Model
    _c_prefix_ = "model"
    _enums_ = {"arch": Arch, "dtype": Dtype, "flags": ModelFlag,
               "ssm_state_dtype": Dtype}

    name: str = ""
    arch: Arch = Arch.GENERIC
    dtype: Dtype = Dtype.BF16
    flags: ModelFlag = ModelFlag(0)
    num_hidden_layers: int = 0
    hidden_size: int = 0
    num_attention_heads: int = 0
    num_key_value_heads: int = 0
    head_dim: int = 0
    intermediate_size: int = 0
    vocab_size: int = 0
    tie_word_embeddings: int = 0
    max_position_embeddings: int = 0
    position_embedding_rows: int = 0
    num_experts: int = 0
    num_experts_per_tok: int = 0
    moe_intermediate_size: int = 0
    num_shared_experts: int = 0
    shared_expert_intermediate_size: int = 0
    first_k_dense_replace: int = 0
    moe_layer_step: int = 0
    kv_lora_rank: int = 0
    q_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    qk_nope_head_dim: int = 0
    v_head_dim: int = 0
    sliding_window: int = 0
    sliding_window_pattern: int = 0
    attention_chunk_size: int = 0
    attention_chunk_pattern: int = 0
    # hybrid layers (@since 0.2)
    layer_pattern: str = ""
    ssm_num_heads: int = 0
    ssm_head_dim: int = 0
    ssm_n_groups: int = 0
    ssm_state_size: int = 0
    ssm_conv_kernel: int = 0
    ssm_state_dtype: Dtype = Dtype.AUTO
    rope_scaling_type: int = 0
    rope_scaling_factor: float = 0.0
    original_max_position_embeddings: int = 0
    # vision tower (@since 0.2)
    vision_kind: int = 0
    vision_num_layers: int = 0
    vision_hidden_size: int = 0
    vision_intermediate_size: int = 0
    vision_num_heads: int = 0
    vision_patch_size: int = 0
    vision_image_size: int = 0
    vision_spatial_merge: int = 0
    vision_out_hidden_size: int = 0
    vision_position_rows: int = 0
    vision_deepstack: int = 0
    # DeepSeek sparse attention (@since 0.2)
    index_n_heads: int = 0
    index_head_dim: int = 0
    index_topk: int = 0
    # mllama's tiled tower (@since 0.2)
    vision_global_layers: int = 0
    vision_max_tiles: int = 0
    vision_aspect_ratios: int = 0
    # Zamba2 shared blocks (@since 0.2)
    shared_blocks: int = 0
    adapter_rank: int = 0
    # Gemma 3n (@since 0.2)
    num_kv_shared_layers: int = 0
    hidden_size_per_layer_input: int = 0
    vocab_size_per_layer_input: int = 0
    altup_num_inputs: int = 0
    laurel_rank: int = 0
    audio_num_layers: int = 0
    audio_num_heads: int = 0
    audio_hidden_size: int = 0
    audio_conv_kernel: int = 0
    audio_input_features: int = 0
    audio_sscp_channels_1: int = 0
    audio_sscp_channels_2: int = 0
    mm_embed_vocab_size: int = 0


@dataclass(frozen=True)
class Quant(_CMirror):
    """``kvb_quant``: a quantization scheme and the runtime dtypes."""

    _c_struct_ = _capi.Quant
    _c_prefix_ = "quant"
    _enums_ = {"method": QuantMethod, "dtype": Dtype,
               "kv_cache_dtype": Dtype, "fp8_scale": Fp8Scale,
               "flags": QuantFlag}

    method: QuantMethod = QuantMethod.AUTO
    group_size: int = 128
    dtype: Dtype = Dtype.AUTO
    kv_cache_dtype: Dtype = Dtype.AUTO
    fp8_scale: Fp8Scale = Fp8Scale.TENSOR
    flags: QuantFlag = QuantFlag(0)
    keep_roles: int = 0


@dataclass(frozen=True)
class Gpu(_CMirror):
    """``kvb_gpu``: a GPU model (memory as CUDA reports it) and a count."""

    _c_struct_ = _capi.Gpu
    _c_prefix_ = "gpu"

    name: str = ""
    total_bytes: int = 0
    count: int = 1
    compute_capability: int = 0
    free_bytes: int = 0
    multiprocessor_count: int = 0


@dataclass(frozen=True)
class Serving(_CMirror):
    """``kvb_serving``: the engine's settings, named as vLLM names them.

    Defaults are :c:func:`kvb_serving_init`'s; 0 means "the engine's
    default" where the C header says so, and ``AUTO_BYTES`` "modelled".
    """

    _c_struct_ = _capi.Serving
    _c_prefix_ = "serving"
    _enums_ = {"engine": Engine}

    engine: Engine = Engine.VLLM
    engine_version: int = 0
    gpu_memory_utilization: float = 0.0
    max_model_len: int = 0
    concurrency: int = 1
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    block_size: int = 0
    enforce_eager: int = 0
    max_num_seqs: int = 0
    max_num_batched_tokens: int = 0
    enable_chunked_prefill: int = -1
    disable_hybrid_kv_cache: int = 0
    enable_expert_parallel: int = 0
    kv_cache_memory_bytes: int = 0
    cuda_context_bytes: int = (1 << 64) - 1
    non_torch_bytes: int = (1 << 64) - 1
    activation_bytes: int = (1 << 64) - 1
    cudagraph_bytes: int = (1 << 64) - 1
    weights_bytes: int = 0
    loaded_weights_bytes: int = 0
    accounting: int = -1
    data_parallel_size: int = 1
    enable_dp_attention: int = 0
    cuda_graph_max_bs: int = 0
    context_size: int = 0
    n_gpu_layers: int = (1 << 32) - 1
    n_cpu_moe: int = 0
    ubatch_size: int = 0
    cache_type_k: int = -1
    cache_type_v: int = -1
    flash_attn: int = -1
    swa_full: int = 0
    kv_unified: int = 0
    backend: int = 0
    max_total_tokens: int = 0
    max_input_tokens: int = 0
    gpu_overhead_bytes: int = 0
    host_memory_bytes: int = 0
    gpus_per_node: int = 0
    # multimodal (@since 0.2)
    mm_disabled: int = 0
    mm_encoder_tp_mode: int = 0
    # llama.cpp's mmproj (@since 0.2)
    mmproj: int = 0
    mmproj_type: int = -1


@dataclass(frozen=True)
class Instance(_CMirror):
    """``kvb_instance``: a cloud instance type."""

    _c_struct_ = _capi.Instance
    _c_prefix_ = "instance"

    name: str = ""
    cloud: str = ""
    gpu_name: str = ""
    gpu_count: int = 0
    vcpus: int = 0
    host_memory_bytes: int = 0
    price_per_hour: float = 0.0


@dataclass(frozen=True)
class Weights(_CMirror):
    """``kvb_weights``: parameter counts and bytes under a scheme."""

    _c_struct_ = _capi.Weights
    _c_prefix_ = "weights"

    param_count: int = 0
    active_param_count: int = 0
    bytes: int = 0
    bytes_per_gpu: int = 0
    quantized_params: int = 0


@dataclass(frozen=True)
class Tensor(_CMirror):
    """``kvb_tensor``: one weight tensor of the inventory."""

    _c_struct_ = _capi.Tensor
    _c_prefix_ = "tensor"
    _enums_ = {"role": TensorRole, "storage": Storage, "split": Split}

    name: str = ""
    role: TensorRole = TensorRole.EMBED
    layer: int = -1
    experts: int = 1
    rows: int = 0
    cols: int = 0
    params: int = 0
    bytes: int = 0
    storage: Storage = Storage.F32
    split: Split = Split.REPLICATED


@dataclass(frozen=True)
class Plan(_CMirror):
    """``kvb_plan``: the capacity plan, every field in C units (bytes).

    Per-GPU figures are for the busiest GPU.  ``fits`` and ``verdict`` say
    whether it works and why not; ``message`` says it in one line (empty in
    plans from :func:`kvbudget.plan_batch`, which skips the formatting).
    ``plan.gib.<field>`` shows a byte field in GiB.
    """

    _c_struct_ = _capi.Plan
    _c_prefix_ = "plan"
    _enums_ = {"engine": Engine, "accounting": Accounting,
               "verdict": Verdict}

    engine: Engine = Engine.VLLM
    engine_version: int = 0
    accounting: Accounting = Accounting.VLLM_V0
    gpu_memory_utilization: float = 0.0
    gpu_total_bytes: int = 0
    tensor_parallel_size: int = 0
    pipeline_parallel_size: int = 0
    max_model_len: int = 0
    block_size: int = 0
    max_num_seqs: int = 0
    max_num_batched_tokens: int = 0
    concurrency: int = 0
    param_count: int = 0
    weights_bytes: int = 0
    weights_bytes_per_gpu: int = 0
    usable_bytes_per_gpu: int = 0
    cuda_context_bytes_per_gpu: int = 0
    non_torch_bytes_per_gpu: int = 0
    activation_bytes_per_gpu: int = 0
    cudagraph_bytes_per_gpu: int = 0
    cudagraph_in_budget: int = 0
    kv_budget_bytes_per_gpu: int = 0
    kv_shortfall_bytes_per_gpu: int = 0
    headroom_bytes_per_gpu: int = 0
    startup_free_bytes_per_gpu: int = 0
    kv_bytes_per_token: int = 0
    kv_bytes_per_token_per_gpu: int = 0
    block_bytes_per_gpu: int = 0
    kv_cache_groups: int = 0
    num_blocks: int = 0
    max_kv_tokens: int = 0
    max_concurrency: float = 0.0
    kv_needed_bytes_per_gpu: int = 0
    max_model_len_fit: int = 0
    fits: int = 0
    verdict: Verdict = Verdict.FITS
    message: str = field(default="", compare=True)
    data_parallel_size: int = 0
    nodes: int = 0
    gpus_per_node: int = 0
    layers_on_gpu: int = 0
    layers_total: int = 0
    kv_cache_bytes_per_gpu: int = 0
    compute_buffer_bytes_per_gpu: int = 0
    host_bytes: int = 0
    max_total_tokens: int = 0
    context_size: int = 0
    warning: str = ""

    @property
    def verdict_name(self) -> str:
        """The verdict's stable snake_case code ("fits")."""
        return _capi.library().kvb_verdict_name(int(self.verdict)) or ""

    @property
    def verdict_reason(self) -> str:
        """The verdict's one-line reason."""
        return _capi.library().kvb_verdict_reason(int(self.verdict)) or ""

    @property
    def accounting_name(self) -> str:
        """The accounting's name ("vllm-v1-0.21")."""
        return _capi.library().kvb_accounting_name(int(self.accounting)) or ""

    def engine_error(self) -> str:
        """The engine's own start-up error for a plan that fails (the
        ValueError vLLM raises), or "" for one that fits."""
        c_plan = self.to_c()
        lib = _capi.library()
        needed = _capi.c_size_t(0)
        err = _capi.Error()
        try:
            lib.kvb_plan_engine_error(c_plan, None, 0, _capi.byref(needed),
                                      err)
        except error_class(int(Status.EBUFSIZE)):
            pass
        buf = _capi.ctypes.create_string_buffer(needed.value)
        lib.kvb_plan_engine_error(c_plan, buf, needed.value, None, err)
        return buf.value.decode("utf-8", "replace")

    def __str__(self) -> str:
        head = self.message or f"{self.verdict_name}: {self.verdict_reason}"
        return (f"{head}\n"
                f"  weights {self.gib.weights_bytes_per_gpu:.2f} GiB/GPU, "
                f"KV budget {self.gib.kv_budget_bytes_per_gpu:.2f} GiB/GPU, "
                f"{self.max_kv_tokens} KV tokens, "
                f"{self.max_concurrency:.2f}x concurrency at max_model_len "
                f"{self.max_model_len} (TP {self.tensor_parallel_size}, "
                f"PP {self.pipeline_parallel_size}, utilization "
                f"{self.gpu_memory_utilization:g})")


@dataclass(frozen=True)
class AdviceOptions(_CMirror):
    """``kvb_advice_options``: limits of the search for fixes."""

    _c_struct_ = _capi.AdviceOptions
    _c_prefix_ = "options"

    instance: str = ""
    cloud: str = ""
    max_instances: int = 3
    max_quant: int = 3
    max_gpus: int = 8
    min_utilization: float = 0.5
    max_utilization: float = 0.95
    max_price_per_hour: float = 0.0
    measured_max_model_len: int = 0


@dataclass(frozen=True)
class Fix(_CMirror):
    """``kvb_fix``: one remedy, the inputs after it, and the predicted
    outcome (re-planned).  :meth:`render` writes it as engine flags or
    Kubernetes args; :meth:`apply` gives the changed inputs."""

    _c_struct_ = _capi.Fix
    _c_prefix_ = "fix"
    _enums_ = {"kind": FixKind, "verdict": Verdict,
               "quant_method": QuantMethod, "kv_cache_dtype": Dtype}

    kind: FixKind = FixKind.MAX_MODEL_LEN
    fits: int = 0
    verdict: Verdict = Verdict.FITS
    quant_method: QuantMethod = QuantMethod.AUTO
    kv_cache_dtype: Dtype = Dtype.AUTO
    enforce_eager: int = 0
    gpu_memory_utilization: float = 0.0
    max_model_len: int = 0
    tensor_parallel_size: int = 0
    pipeline_parallel_size: int = 0
    gpu_name: str = ""
    gpu_total_bytes: int = 0
    gpu_count: int = 0
    gpu_compute_capability: int = 0
    gpu_multiprocessor_count: int = 0
    instance: str = ""
    cloud: str = ""
    price_per_hour: float = 0.0
    weights_bytes: int = 0
    weights_bytes_per_gpu: int = 0
    kv_budget_bytes_per_gpu: int = 0
    max_kv_tokens: int = 0
    max_concurrency: float = 0.0
    max_model_len_fit: int = 0
    title: str = ""
    note: str = ""
    engine: int = 0
    checkpoint: str = ""
    changes: int = 0
    gives_up: int = 0
    pareto: int = 0
    price_per_gpu_hour: float = 0.0
    usd_per_million_tokens: float = 0.0

    @property
    def kind_name(self) -> str:
        """The kind's stable snake_case code ("max_model_len")."""
        return _capi.library().kvb_fix_kind_name(int(self.kind)) or ""

    def render(self, model: Any, format: Any = "vllm") -> str:
        """The fix as text (:func:`kvbudget.render_fix`)."""
        from ._api import render_fix
        return render_fix(self, model, format)

    def apply(self, quant: Any = None, gpu: Any = None,
              serving: Any = None) -> Tuple["Quant", "Gpu", "Serving"]:
        """The inputs after the fix (:func:`kvbudget.apply_fix`)."""
        from ._api import apply_fix
        return apply_fix(self, quant, gpu, serving)

    def __str__(self) -> str:
        return f"{self.title}: {self.note}" if self.note else self.title


@dataclass(frozen=True)
class LogFacts(_CMirror):
    """``kvb_log_facts``: what an engine log shows, per GPU, in bytes.

    ``present`` has bit ``1 << LogFact.X`` for each fact found; use
    :meth:`has`.
    """

    _c_struct_ = _capi.LogFacts
    _c_prefix_ = "facts"
    _enums_ = {"failure": LogFailure, "oom_phase": LogPhase,
               "accounting": Accounting}

    present: int = 0
    failure: LogFailure = LogFailure.NONE
    oom_phase: LogPhase = LogPhase.UNKNOWN
    accounting: int = -1
    engine_version: int = 0
    model: str = ""
    quantization: str = ""
    dtype: str = ""
    kv_cache_dtype: str = ""
    gpu_name: str = ""
    max_model_len: int = 0
    gpu_memory_utilization: float = 0.0
    tensor_parallel_size: int = 0
    pipeline_parallel_size: int = 0
    enforce_eager: int = 0
    block_size: int = 0
    max_num_seqs: int = 0
    max_num_batched_tokens: int = 0
    gpu_total_bytes: int = 0
    startup_free_bytes: int = 0
    requested_bytes: int = 0
    weights_bytes: int = 0
    consumed_bytes: int = 0
    non_torch_bytes: int = 0
    activation_bytes: int = 0
    cudagraph_bytes: int = 0
    kv_cache_bytes: int = 0
    gpu_blocks: int = 0
    cpu_blocks: int = 0
    kv_cache_tokens: int = 0
    max_concurrency: float = 0.0
    kv_needed_bytes: int = 0
    estimated_max_model_len: int = 0
    oom_tried_bytes: int = 0
    oom_free_bytes: int = 0
    oom_in_use_bytes: int = 0
    oom_gpu_index: int = 0
    failure_text: str = ""
    engine_line: str = ""
    engine: int = -1
    max_total_tokens: int = 0
    context_size: int = 0
    n_parallel: int = 0
    layers_on_gpu: int = 0
    layers_total: int = 0
    compute_buffer_bytes: int = 0
    available_bytes: int = 0

    def has(self, fact: LogFact) -> bool:
        """Whether the log showed ``fact`` (``KVB_LOG_HAS``)."""
        return bool((self.present >> int(fact)) & 1)

    @property
    def failure_name(self) -> str:
        """The failure's stable code ("max_model_len_exceeds_kv_cache")."""
        return _capi.library().kvb_log_failure_name(int(self.failure)) or ""


@dataclass(frozen=True)
class ReadInfo(_CMirror):
    """``kvb_read_info``: what a reader found besides the model."""

    _c_struct_ = _capi.ReadInfo
    _c_prefix_ = "info"
    _enums_ = {"format": Format, "weights_format": Format}

    format: Format = Format.NONE
    weights_format: Format = Format.NONE
    weights_bytes: int = 0
    tensor_count: int = 0
    fields_from_file: int = 0
    header_bytes: int = 0
    shard_count: int = 0
    file_version: int = 0
    warning_count: int = 0
    arch_name: str = ""
    warning: str = ""
    options: int = 0

    def from_file(self, field: ReadField) -> bool:
        """Whether the file set ``field`` (its bit in fields_from_file)."""
        return bool((self.fields_from_file >> int(field)) & 1)


@dataclass(frozen=True)
class RefInfo(_CMirror):
    """``kvb_ref_info``: where a model reference was read from (the Hub,
    the Hugging Face cache, the Ollama store), with Ollama's params."""

    _c_struct_ = _capi.RefInfo
    _c_prefix_ = "where"
    _enums_ = {"source": RefSource}

    source: RefSource = RefSource.NONE
    http_requests: int = 0
    http_bytes: int = 0
    repo: str = ""
    revision: str = ""
    commit: str = ""
    file: str = ""
    path: str = ""
    file_count: int = 0
    split_count: int = 0
    num_ctx: int = -1
    num_batch: int = -1
    num_gpu: int = -1
    num_predict: int = -1
    params: str = ""


@dataclass(frozen=True)
class Device(_CMirror):
    """``kvb_device``: a CUDA device as the probe saw it."""

    _c_struct_ = _capi.Device
    _c_prefix_ = "device"

    index: int = -1
    name: str = ""
    total_bytes: int = 0
    free_bytes: int = 0
    used_by_others_bytes: int = 0
    compute_capability: int = 0
    multiprocessor_count: int = 0
    uuid: str = ""
    driver_version: str = ""
    cuda_driver_version: int = 0


@dataclass(frozen=True)
class ValidationStage(_CMirror):
    """``kvb_validation_stage``: predicted against observed, one stage."""

    _c_struct_ = _capi.ValidationStage
    _c_prefix_ = "stage"

    predicted_bytes: int = 0
    requested_bytes: int = 0
    observed_bytes: int = 0
    allocations: int = 0
    allocated: int = 0
    error: float = 0.0


@dataclass(frozen=True)
class Validation(_CMirror):
    """``kvb_validation``: a plan checked against real allocations."""

    _c_struct_ = _capi.Validation
    _c_prefix_ = "validation"
    _enums_ = {"plan_verdict": Verdict}
    _nested_ = {"stages": ValidationStage}

    device_index: int = -1
    device_name: str = ""
    total_bytes: int = 0
    free_start_bytes: int = 0
    free_end_bytes: int = 0
    gpu_memory_utilization: float = 0.0
    plan_verdict: Verdict = Verdict.FITS
    num_blocks: int = 0
    block_bytes: int = 0
    weights_tensors: int = 0
    kv_tensors: int = 0
    stage_count: int = 0
    stages: Tuple[ValidationStage, ...] = (ValidationStage(),) * \
        dict(_capi.Validation._fields_)["stages"]._length_  # type: ignore
    failed_stage: int = -1
    failed_bytes: int = 0
    max_error: float = 0.0
    tolerance: float = 0.0
    tight_checked: int = 0
    tight_utilization: float = 0.0
    tight_allowance_bytes: int = 0
    tight_num_blocks: int = 0
    tight_fits: int = 0
    tight_free_bytes: int = 0
    tight_over_fraction: float = 0.0
    tight_over_num_blocks: int = 0
    tight_over_fits: int = 0
    tight: int = 0
    valid: int = 0
    message: str = ""


#: Every dataclass and the C struct it mirrors (the tests walk this).
DATACLASSES: Dict[str, Type[_CMirror]] = {
    cls._c_struct_._c_name_: cls
    for cls in (Model, Quant, Gpu, Serving, Instance, Weights, Tensor, Plan,
                AdviceOptions, Fix, LogFacts, ReadInfo, RefInfo, Device,
                ValidationStage, Validation)
}


def default_of(cls: Type[T]) -> T:
    """The dataclass of a freshly C-initialised struct (the C defaults)."""
    return cls.from_c(cls._c_struct_())

