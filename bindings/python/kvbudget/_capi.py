"""The 1:1 ctypes layer over libkvbudget.

Everything here keeps its C name and C shape: the structs mirror the C
structs field by field (``tests/python/test_abi.py`` proves it against the
library's own layout report), and :data:`_FUNCTIONS` is the one prototype
table: ``(c_name, argtypes, restype, errcheck)`` for every exported
function.  A status-returning function raises the :class:`KvbError` subclass
of its status, built from the ``kvb_error`` passed as its last argument.

The library is found, in order, through:

1. the ``KVBUDGET_LIBRARY`` environment variable (a file path);
2. :func:`set_library_path` (a file, or a directory holding the library),
   which must be called before the first use;
3. a copy installed next to this package (``pip install`` puts one there
   when the library was built first);
4. the system loader (``libkvbudget.so.0`` through ``LD_LIBRARY_PATH`` and
   the linker cache, then :func:`ctypes.util.find_library`).

On loading, the library's version and its struct sizes are checked against
this package; a mismatch raises :class:`KvbLibraryError` naming both.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
import threading
from ctypes import (POINTER, Structure, byref, c_char, c_char_p, c_double,
                    c_int, c_int32, c_int64, c_size_t, c_uint, c_uint8,
                    c_uint32, c_uint64, c_void_p, sizeof)
from typing import (Any, Callable, ClassVar, Dict, Iterator, List, Optional,
                    Sequence, Tuple, Type)

from . import _errors
from ._errors import KvbLibraryError
from ._version import MIN_LIBRARY_VERSION, REQUIRED_ABI, __version__

# ---------------------------------------------------------------------------
# Struct mirrors
# ---------------------------------------------------------------------------

#: C type names, as the layout report spells them, and their ctypes types.
C_TYPES: Dict[str, Any] = {
    "size_t": c_size_t,
    "int32_t": c_int32,
    "uint32_t": c_uint32,
    "int64_t": c_int64,
    "uint64_t": c_uint64,
    "double": c_double,
    "char": c_char,
    "uint8_t": c_uint8,
    "pointer": c_void_p,
}


class CStruct(Structure):
    """Base of every struct mirror.

    Subclasses list ``_spec_``: ``(field, c_type)`` or ``(field, c_type,
    array_length)`` in C order; :func:`_mirror` turns it into ``_fields_``
    and keeps the C type of each field in ``_c_types_``.  Constructing one
    calls its C init function (``_c_init_``) so the defaults are the
    library's, then sets the keyword arguments as fields.
    """

    _c_name_: ClassVar[str] = ""
    _c_init_: ClassVar[Optional[str]] = None
    _spec_: ClassVar[Tuple[Tuple[Any, ...], ...]] = ()
    _c_types_: ClassVar[Dict[str, str]] = {}

    def __init__(self, **fields: Any) -> None:
        super().__init__()
        if self._c_init_:
            getattr(library(), self._c_init_)(byref(self), sizeof(self))
        for name, value in fields.items():
            if name not in self._c_types_:
                raise TypeError(f"{self._c_name_} has no field {name!r}")
            setattr(self, name, value)

    def as_dict(self) -> Dict[str, Any]:
        """Every field but struct_size; char arrays decoded as UTF-8."""
        out: Dict[str, Any] = {}
        for name, _ in self._fields_:  # type: ignore[attr-defined]
            if name == "struct_size" and self._c_types_[name] == "size_t":
                continue
            value = getattr(self, name)
            if isinstance(value, bytes):
                value = value.decode("utf-8", "replace")
            elif self._c_types_[name] == "uint8_t" and not isinstance(
                    value, int):
                value = bytes(value)
            elif isinstance(value, CStruct):
                value = value.as_dict()
            elif isinstance(value, ctypes.Array) and len(value) and \
                    isinstance(value[0], CStruct):
                value = [v.as_dict() for v in value]
            out[name] = value
        return out


def _mirror(cls: Type[CStruct]) -> Type[CStruct]:
    fields: List[Tuple[str, Any]] = []
    types: Dict[str, str] = {}
    for spec in cls._spec_:
        name, ctype = spec[0], spec[1]
        t = C_TYPES[ctype] if ctype in C_TYPES else STRUCTS[ctype]
        if len(spec) == 3:
            t = t * spec[2]
        fields.append((name, t))
        types[name] = ctype
    cls._fields_ = fields  # type: ignore[attr-defined]
    cls._c_types_ = types
    STRUCTS[cls._c_name_] = cls
    return cls


#: Every struct mirror by its C name ("kvb_plan": Plan).
STRUCTS: Dict[str, Type[CStruct]] = {}


@_mirror
class Error(CStruct):
    """``kvb_error``."""
    _c_name_ = "kvb_error"
    _c_init_ = "kvb_error_init"
    _spec_ = (("struct_size", "size_t"), ("status", "int32_t"),
              ("field", "char", 64), ("message", "char", 256),
              ("line", "int64_t"), ("column", "int64_t"),
              ("offset", "int64_t"), ("source", "char", 128),
              ("reserved", "uint8_t", 64))


@_mirror
class Model(CStruct):
    """``kvb_model``."""
    _c_name_ = "kvb_model"
    _c_init_ = "kvb_model_init"
    _spec_ = (
        ("struct_size", "size_t"), ("name", "char", 64),
        ("arch", "int32_t"), ("dtype", "int32_t"), ("flags", "uint32_t"),
        ("num_hidden_layers", "uint32_t"), ("hidden_size", "uint64_t"),
        ("num_attention_heads", "uint32_t"),
        ("num_key_value_heads", "uint32_t"), ("head_dim", "uint32_t"),
        ("intermediate_size", "uint64_t"), ("vocab_size", "uint64_t"),
        ("tie_word_embeddings", "uint32_t"),
        ("max_position_embeddings", "uint64_t"),
        ("position_embedding_rows", "uint64_t"),
        ("num_experts", "uint32_t"), ("num_experts_per_tok", "uint32_t"),
        ("moe_intermediate_size", "uint64_t"),
        ("num_shared_experts", "uint32_t"),
        ("shared_expert_intermediate_size", "uint64_t"),
        ("first_k_dense_replace", "uint32_t"),
        ("moe_layer_step", "uint32_t"), ("kv_lora_rank", "uint32_t"),
        ("q_lora_rank", "uint32_t"), ("qk_rope_head_dim", "uint32_t"),
        ("qk_nope_head_dim", "uint32_t"), ("v_head_dim", "uint32_t"),
        ("sliding_window", "uint64_t"),
        ("sliding_window_pattern", "uint32_t"),
        ("attention_chunk_size", "uint64_t"),
        ("attention_chunk_pattern", "uint32_t"),
        # hybrid layers (@since 0.2)
        ("layer_pattern", "char", 256),
        ("ssm_num_heads", "uint32_t"), ("ssm_head_dim", "uint32_t"),
        ("ssm_n_groups", "uint32_t"), ("ssm_state_size", "uint32_t"),
        ("ssm_conv_kernel", "uint32_t"), ("ssm_state_dtype", "int32_t"),
        ("rope_scaling_type", "int32_t"), ("rope_scaling_factor", "double"),
        ("original_max_position_embeddings", "uint64_t"),
        # vision tower (@since 0.2)
        ("vision_kind", "int32_t"), ("vision_num_layers", "uint32_t"),
        ("vision_hidden_size", "uint64_t"),
        ("vision_intermediate_size", "uint64_t"),
        ("vision_num_heads", "uint32_t"), ("vision_patch_size", "uint32_t"),
        ("vision_image_size", "uint32_t"),
        ("vision_spatial_merge", "uint32_t"),
        ("vision_out_hidden_size", "uint64_t"),
        ("vision_position_rows", "uint32_t"),
        ("vision_deepstack", "uint32_t"),
        # DeepSeek sparse attention (@since 0.2)
        ("index_n_heads", "uint32_t"), ("index_head_dim", "uint32_t"),
        ("index_topk", "uint32_t"),
        # mllama's tiled tower (@since 0.2)
        ("vision_global_layers", "uint32_t"),
        ("vision_max_tiles", "uint32_t"),
        ("vision_aspect_ratios", "uint32_t"),
        # Zamba2 shared blocks (@since 0.2)
        ("shared_blocks", "uint32_t"), ("adapter_rank", "uint32_t"),
        # Gemma 3n (@since 0.2)
        ("num_kv_shared_layers", "uint32_t"),
        ("hidden_size_per_layer_input", "uint32_t"),
        ("vocab_size_per_layer_input", "uint64_t"),
        ("altup_num_inputs", "uint32_t"),
        ("laurel_rank", "uint32_t"),
        ("audio_num_layers", "uint32_t"),
        ("audio_num_heads", "uint32_t"),
        ("audio_hidden_size", "uint64_t"),
        ("audio_conv_kernel", "uint32_t"),
        ("audio_input_features", "uint32_t"),
        ("audio_sscp_channels_1", "uint32_t"),
        ("audio_sscp_channels_2", "uint32_t"),
        ("mm_embed_vocab_size", "uint32_t"),
    )


@_mirror
class Quant(CStruct):
    """``kvb_quant``."""
    _c_name_ = "kvb_quant"
    _c_init_ = "kvb_quant_init"
    _spec_ = (("struct_size", "size_t"), ("method", "int32_t"),
              ("group_size", "uint32_t"), ("dtype", "int32_t"),
              ("kv_cache_dtype", "int32_t"), ("fp8_scale", "int32_t"),
              ("flags", "uint32_t"), ("keep_roles", "uint64_t"))


@_mirror
class Tensor(CStruct):
    """``kvb_tensor``."""
    _c_name_ = "kvb_tensor"
    _c_init_ = None  # filled by kvb_model_tensor_get; struct_size set here
    _spec_ = (("struct_size", "size_t"), ("name", "char", 96),
              ("role", "int32_t"), ("layer", "int32_t"),
              ("experts", "uint64_t"), ("rows", "uint64_t"),
              ("cols", "uint64_t"), ("params", "uint64_t"),
              ("bytes", "uint64_t"), ("storage", "int32_t"),
              ("split", "int32_t"))

    def __init__(self, **fields: Any) -> None:
        super().__init__(**fields)
        self.struct_size = sizeof(self)


@_mirror
class Weights(CStruct):
    """``kvb_weights``."""
    _c_name_ = "kvb_weights"
    _c_init_ = "kvb_weights_init"
    _spec_ = (("struct_size", "size_t"), ("param_count", "uint64_t"),
              ("active_param_count", "uint64_t"), ("bytes", "uint64_t"),
              ("bytes_per_gpu", "uint64_t"),
              ("quantized_params", "uint64_t"))


@_mirror
class Gpu(CStruct):
    """``kvb_gpu``."""
    _c_name_ = "kvb_gpu"
    _c_init_ = "kvb_gpu_init"
    _spec_ = (("struct_size", "size_t"), ("name", "char", 64),
              ("total_bytes", "uint64_t"), ("count", "uint32_t"),
              ("compute_capability", "uint32_t"), ("free_bytes", "uint64_t"),
              ("multiprocessor_count", "uint32_t"))


@_mirror
class Serving(CStruct):
    """``kvb_serving``."""
    _c_name_ = "kvb_serving"
    _c_init_ = "kvb_serving_init"
    _spec_ = (
        ("struct_size", "size_t"), ("engine", "int32_t"),
        ("engine_version", "uint32_t"), ("gpu_memory_utilization", "double"),
        ("max_model_len", "uint64_t"), ("concurrency", "uint32_t"),
        ("tensor_parallel_size", "uint32_t"),
        ("pipeline_parallel_size", "uint32_t"), ("block_size", "uint32_t"),
        ("enforce_eager", "uint32_t"), ("max_num_seqs", "uint32_t"),
        ("max_num_batched_tokens", "uint64_t"),
        ("enable_chunked_prefill", "int32_t"),
        ("disable_hybrid_kv_cache", "uint32_t"),
        ("enable_expert_parallel", "uint32_t"),
        ("kv_cache_memory_bytes", "uint64_t"),
        ("cuda_context_bytes", "uint64_t"), ("non_torch_bytes", "uint64_t"),
        ("activation_bytes", "uint64_t"), ("cudagraph_bytes", "uint64_t"),
        ("weights_bytes", "uint64_t"), ("loaded_weights_bytes", "uint64_t"),
        ("accounting", "int32_t"), ("data_parallel_size", "uint32_t"),
        ("enable_dp_attention", "uint32_t"),
        ("cuda_graph_max_bs", "uint32_t"), ("context_size", "uint64_t"),
        ("n_gpu_layers", "uint32_t"), ("n_cpu_moe", "uint32_t"),
        ("ubatch_size", "uint32_t"), ("cache_type_k", "int32_t"),
        ("cache_type_v", "int32_t"), ("flash_attn", "int32_t"),
        ("swa_full", "uint32_t"), ("kv_unified", "uint32_t"),
        ("backend", "int32_t"), ("max_total_tokens", "uint64_t"),
        ("max_input_tokens", "uint64_t"), ("gpu_overhead_bytes", "uint64_t"),
        ("host_memory_bytes", "uint64_t"), ("gpus_per_node", "uint32_t"),
        # multimodal (@since 0.2)
        ("mm_disabled", "uint32_t"), ("mm_encoder_tp_mode", "int32_t"),
        # llama.cpp's mmproj (@since 0.2)
        ("mmproj", "uint32_t"), ("mmproj_type", "int32_t"),
    )


@_mirror
class Plan(CStruct):
    """``kvb_plan``."""
    _c_name_ = "kvb_plan"
    _c_init_ = "kvb_plan_init"
    _spec_ = (
        ("struct_size", "size_t"), ("engine", "int32_t"),
        ("engine_version", "uint32_t"), ("accounting", "int32_t"),
        ("gpu_memory_utilization", "double"), ("gpu_total_bytes", "uint64_t"),
        ("tensor_parallel_size", "uint32_t"),
        ("pipeline_parallel_size", "uint32_t"), ("max_model_len", "uint64_t"),
        ("block_size", "uint32_t"), ("max_num_seqs", "uint32_t"),
        ("max_num_batched_tokens", "uint64_t"), ("concurrency", "uint32_t"),
        ("param_count", "uint64_t"), ("weights_bytes", "uint64_t"),
        ("weights_bytes_per_gpu", "uint64_t"),
        ("usable_bytes_per_gpu", "uint64_t"),
        ("cuda_context_bytes_per_gpu", "uint64_t"),
        ("non_torch_bytes_per_gpu", "uint64_t"),
        ("activation_bytes_per_gpu", "uint64_t"),
        ("cudagraph_bytes_per_gpu", "uint64_t"),
        ("cudagraph_in_budget", "uint32_t"),
        ("kv_budget_bytes_per_gpu", "uint64_t"),
        ("kv_shortfall_bytes_per_gpu", "uint64_t"),
        ("headroom_bytes_per_gpu", "uint64_t"),
        ("startup_free_bytes_per_gpu", "uint64_t"),
        ("kv_bytes_per_token", "uint64_t"),
        ("kv_bytes_per_token_per_gpu", "uint64_t"),
        ("block_bytes_per_gpu", "uint64_t"), ("kv_cache_groups", "uint32_t"),
        ("num_blocks", "uint64_t"), ("max_kv_tokens", "uint64_t"),
        ("max_concurrency", "double"), ("kv_needed_bytes_per_gpu", "uint64_t"),
        ("max_model_len_fit", "uint64_t"), ("fits", "uint32_t"),
        ("verdict", "int32_t"), ("message", "char", 320),
        ("data_parallel_size", "uint32_t"), ("nodes", "uint32_t"),
        ("gpus_per_node", "uint32_t"), ("layers_on_gpu", "uint32_t"),
        ("layers_total", "uint32_t"), ("kv_cache_bytes_per_gpu", "uint64_t"),
        ("compute_buffer_bytes_per_gpu", "uint64_t"),
        ("host_bytes", "uint64_t"), ("max_total_tokens", "uint64_t"),
        ("context_size", "uint64_t"), ("warning", "char", 320),
    )


@_mirror
class Instance(CStruct):
    """``kvb_instance``."""
    _c_name_ = "kvb_instance"
    _c_init_ = "kvb_instance_init"
    _spec_ = (("struct_size", "size_t"), ("name", "char", 64),
              ("cloud", "char", 16), ("gpu_name", "char", 64),
              ("gpu_count", "uint32_t"), ("vcpus", "uint32_t"),
              ("host_memory_bytes", "uint64_t"),
              ("price_per_hour", "double"))


@_mirror
class AdviceOptions(CStruct):
    """``kvb_advice_options``."""
    _c_name_ = "kvb_advice_options"
    _c_init_ = "kvb_advice_options_init"
    _spec_ = (("struct_size", "size_t"), ("instance", "char", 64),
              ("cloud", "char", 16), ("max_instances", "uint32_t"),
              ("max_quant", "uint32_t"), ("max_gpus", "uint32_t"),
              ("min_utilization", "double"), ("max_utilization", "double"),
              ("max_price_per_hour", "double"),
              ("measured_max_model_len", "uint64_t"))


@_mirror
class CheckOptions(CStruct):
    """``kvb_check_options``."""
    _c_name_ = "kvb_check_options"
    _c_init_ = "kvb_check_options_init"
    _spec_ = (("struct_size", "size_t"), ("gpu", "char", 64),
              ("instance", "char", 64), ("max_fixes", "uint32_t"))


@_mirror
class Fix(CStruct):
    """``kvb_fix``."""
    _c_name_ = "kvb_fix"
    _c_init_ = "kvb_fix_init"
    _spec_ = (
        ("struct_size", "size_t"), ("kind", "int32_t"), ("fits", "uint32_t"),
        ("verdict", "int32_t"), ("quant_method", "int32_t"),
        ("kv_cache_dtype", "int32_t"), ("enforce_eager", "uint32_t"),
        ("gpu_memory_utilization", "double"), ("max_model_len", "uint64_t"),
        ("tensor_parallel_size", "uint32_t"),
        ("pipeline_parallel_size", "uint32_t"), ("gpu_name", "char", 64),
        ("gpu_total_bytes", "uint64_t"), ("gpu_count", "uint32_t"),
        ("gpu_compute_capability", "uint32_t"),
        ("gpu_multiprocessor_count", "uint32_t"), ("instance", "char", 64),
        ("cloud", "char", 16), ("price_per_hour", "double"),
        ("weights_bytes", "uint64_t"), ("weights_bytes_per_gpu", "uint64_t"),
        ("kv_budget_bytes_per_gpu", "uint64_t"),
        ("max_kv_tokens", "uint64_t"), ("max_concurrency", "double"),
        ("max_model_len_fit", "uint64_t"), ("title", "char", 128),
        ("note", "char", 192), ("engine", "int32_t"),
        ("checkpoint", "char", 128), ("changes", "uint32_t"),
        ("gives_up", "uint32_t"), ("pareto", "uint32_t"),
        ("price_per_gpu_hour", "double"), ("usd_per_million_tokens", "double"),
    )


@_mirror
class LogFacts(CStruct):
    """``kvb_log_facts``."""
    _c_name_ = "kvb_log_facts"
    _c_init_ = "kvb_log_facts_init"
    _spec_ = (
        ("struct_size", "size_t"), ("present", "uint64_t"),
        ("failure", "int32_t"), ("oom_phase", "int32_t"),
        ("accounting", "int32_t"), ("engine_version", "uint32_t"),
        ("model", "char", 128), ("quantization", "char", 32),
        ("dtype", "char", 16), ("kv_cache_dtype", "char", 16),
        ("gpu_name", "char", 64), ("max_model_len", "uint64_t"),
        ("gpu_memory_utilization", "double"),
        ("tensor_parallel_size", "uint32_t"),
        ("pipeline_parallel_size", "uint32_t"), ("enforce_eager", "uint32_t"),
        ("block_size", "uint32_t"), ("max_num_seqs", "uint32_t"),
        ("max_num_batched_tokens", "uint64_t"),
        ("gpu_total_bytes", "uint64_t"), ("startup_free_bytes", "uint64_t"),
        ("requested_bytes", "uint64_t"), ("weights_bytes", "uint64_t"),
        ("consumed_bytes", "uint64_t"), ("non_torch_bytes", "uint64_t"),
        ("activation_bytes", "uint64_t"), ("cudagraph_bytes", "int64_t"),
        ("kv_cache_bytes", "int64_t"), ("gpu_blocks", "uint64_t"),
        ("cpu_blocks", "uint64_t"), ("kv_cache_tokens", "uint64_t"),
        ("max_concurrency", "double"), ("kv_needed_bytes", "uint64_t"),
        ("estimated_max_model_len", "uint64_t"),
        ("oom_tried_bytes", "uint64_t"), ("oom_free_bytes", "uint64_t"),
        ("oom_in_use_bytes", "uint64_t"), ("oom_gpu_index", "uint32_t"),
        ("failure_text", "char", 320), ("engine_line", "char", 160),
        ("engine", "int32_t"), ("max_total_tokens", "uint64_t"),
        ("context_size", "uint64_t"), ("n_parallel", "uint32_t"),
        ("layers_on_gpu", "uint32_t"), ("layers_total", "uint32_t"),
        ("compute_buffer_bytes", "uint64_t"), ("available_bytes", "uint64_t"),
    )


@_mirror
class ReadInfo(CStruct):
    """``kvb_read_info``."""
    _c_name_ = "kvb_read_info"
    _c_init_ = "kvb_read_info_init"
    _spec_ = (("struct_size", "size_t"), ("format", "int32_t"),
              ("weights_format", "int32_t"), ("weights_bytes", "uint64_t"),
              ("tensor_count", "uint64_t"), ("fields_from_file", "uint64_t"),
              ("header_bytes", "uint64_t"), ("shard_count", "uint32_t"),
              ("file_version", "uint32_t"), ("warning_count", "uint32_t"),
              ("arch_name", "char", 64), ("warning", "char", 256),
              ("options", "uint32_t"))


@_mirror
class RefOptions(CStruct):
    """``kvb_ref_options`` (the string fields are ``const char *``)."""
    _c_name_ = "kvb_ref_options"
    _c_init_ = "kvb_ref_options_init"
    _spec_ = (("struct_size", "size_t"), ("hf_endpoint", "pointer"),
              ("hf_token", "pointer"), ("hf_cache", "pointer"),
              ("ollama_models", "pointer"), ("flags", "uint32_t"),
              ("max_parallel", "uint32_t"), ("max_retries", "uint32_t"),
              ("timeout_ms", "uint32_t"), ("backoff_ms", "uint32_t"))


@_mirror
class RefInfo(CStruct):
    """``kvb_ref_info``."""
    _c_name_ = "kvb_ref_info"
    _c_init_ = "kvb_ref_info_init"
    _spec_ = (("struct_size", "size_t"), ("source", "int32_t"),
              ("http_requests", "uint32_t"), ("http_bytes", "uint64_t"),
              ("repo", "char", 128), ("revision", "char", 128),
              ("commit", "char", 72), ("file", "char", 256),
              ("path", "char", 512), ("file_count", "uint32_t"),
              ("split_count", "uint32_t"), ("num_ctx", "int64_t"),
              ("num_batch", "int64_t"), ("num_gpu", "int64_t"),
              ("num_predict", "int64_t"), ("params", "char", 512))


@_mirror
class Device(CStruct):
    """``kvb_device``."""
    _c_name_ = "kvb_device"
    _c_init_ = "kvb_device_init"
    _spec_ = (("struct_size", "size_t"), ("index", "int32_t"),
              ("name", "char", 256), ("total_bytes", "uint64_t"),
              ("free_bytes", "uint64_t"), ("used_by_others_bytes", "uint64_t"),
              ("compute_capability", "uint32_t"),
              ("multiprocessor_count", "uint32_t"), ("uuid", "char", 48),
              ("driver_version", "char", 32),
              ("cuda_driver_version", "uint32_t"))


@_mirror
class ValidationStage(CStruct):
    """``kvb_validation_stage`` (embedded in kvb_validation; no init)."""
    _c_name_ = "kvb_validation_stage"
    _c_init_ = None
    _spec_ = (("predicted_bytes", "uint64_t"), ("requested_bytes", "uint64_t"),
              ("observed_bytes", "uint64_t"), ("allocations", "uint32_t"),
              ("allocated", "uint32_t"), ("error", "double"))


@_mirror
class Validation(CStruct):
    """``kvb_validation``."""
    _c_name_ = "kvb_validation"
    _c_init_ = "kvb_validation_init"
    _spec_ = (
        ("struct_size", "size_t"), ("device_index", "int32_t"),
        ("device_name", "char", 256), ("total_bytes", "uint64_t"),
        ("free_start_bytes", "uint64_t"), ("free_end_bytes", "uint64_t"),
        ("gpu_memory_utilization", "double"), ("plan_verdict", "int32_t"),
        ("num_blocks", "uint64_t"), ("block_bytes", "uint64_t"),
        ("weights_tensors", "uint32_t"), ("kv_tensors", "uint32_t"),
        ("stage_count", "uint32_t"),
        ("stages", "kvb_validation_stage", 8),
        ("failed_stage", "int32_t"), ("failed_bytes", "uint64_t"),
        ("max_error", "double"), ("tolerance", "double"),
        ("tight_checked", "uint32_t"), ("tight_utilization", "double"),
        ("tight_allowance_bytes", "uint64_t"),
        ("tight_num_blocks", "uint64_t"), ("tight_fits", "uint32_t"),
        ("tight_free_bytes", "uint64_t"), ("tight_over_fraction", "double"),
        ("tight_over_num_blocks", "uint64_t"),
        ("tight_over_fits", "uint32_t"), ("tight", "uint32_t"),
        ("valid", "uint32_t"), ("message", "char", 320),
    )


@_mirror
class Command(CStruct):
    """``kvb_command``."""
    _c_name_ = "kvb_command"
    _c_init_ = "kvb_command_init"
    _spec_ = (
        ("struct_size", "size_t"), ("engine", "int32_t"),
        ("engine_version", "uint32_t"), ("program", "char", 64),
        ("model", "char", 512), ("quantization", "char", 32),
        ("dtype", "char", 16), ("kv_cache_dtype", "char", 16),
        ("ignored", "char", 512), ("warning", "char", 512),
    )


@_mirror
class Batch(CStruct):
    """``kvb_batch``: tables and columns are passed as addresses."""
    _c_name_ = "kvb_batch"
    _c_init_ = "kvb_batch_init"
    _spec_ = (
        ("struct_size", "size_t"), ("models", "pointer"),
        ("quants", "pointer"), ("gpus", "pointer"), ("servings", "pointer"),
        ("num_models", "uint32_t"), ("num_quants", "uint32_t"),
        ("num_gpus", "uint32_t"), ("num_servings", "uint32_t"),
        ("count", "uint64_t"), ("model_index", "pointer"),
        ("quant_index", "pointer"), ("gpu_index", "pointer"),
        ("serving_index", "pointer"), ("tensor_parallel_size", "pointer"),
        ("pipeline_parallel_size", "pointer"), ("max_model_len", "pointer"),
        ("gpu_memory_utilization", "pointer"), ("concurrency", "pointer"),
        ("max_num_seqs", "pointer"), ("gpu_count", "pointer"),
        ("status", "pointer"), ("fits", "pointer"), ("verdict", "pointer"),
        ("weights_bytes_per_gpu", "pointer"),
        ("kv_budget_bytes_per_gpu", "pointer"), ("max_kv_tokens", "pointer"),
        ("max_concurrency", "pointer"), ("max_model_len_fit", "pointer"),
        ("num_blocks", "pointer"), ("plans", "pointer"),
        ("plan_size", "size_t"),
    )


# ---------------------------------------------------------------------------
# errcheck: statuses to exceptions, C strings to str
# ---------------------------------------------------------------------------

def _error_arg(args: Sequence[Any]) -> Optional[Error]:
    """The kvb_error among a call's arguments (it is always the last)."""
    if not args:
        return None
    last = args[-1]
    if isinstance(last, Error):
        return last
    obj = getattr(last, "_obj", None)  # byref(err)
    if isinstance(obj, Error):
        return obj
    if isinstance(last, ctypes._Pointer):  # pointer(err)
        contents = last.contents
        if isinstance(contents, Error):
            return contents
    return None


def raise_status(status: int, err: Optional[Error] = None) -> None:
    """Raise the exception of a C status, with the detail in ``err``."""
    lib = library()
    name = lib.kvb_status_name(status)
    cls = _errors.error_class(status, name)
    if err is not None and err.status == status:
        d = err.as_dict()
        raise cls(status, name, d["field"], d["message"] or
                  lib.kvb_strerror(status), d["line"], d["column"],
                  d["offset"], d["source"])
    raise cls(status, name, "", lib.kvb_strerror(status))


def _check(result: int, func: Any, args: Sequence[Any]) -> int:
    if result != 0:
        raise_status(result, _error_arg(args))
    return result


def _check_init(result: int, func: Any, args: Sequence[Any]) -> int:
    if result != 0:
        raise_status(result, None)
    return result


def _string(result: Optional[bytes], func: Any,
            args: Sequence[Any]) -> Optional[str]:
    return None if result is None else result.decode("utf-8", "replace")


def _value(result: int, func: Any, args: Sequence[Any]) -> int:
    """An int that is a value, not a status (-1 past the end)."""
    return result


# ---------------------------------------------------------------------------
# The prototype table
# ---------------------------------------------------------------------------

_P = POINTER
_status = c_int  # kvb_status is an int-sized enum
_str = c_char_p

#: (C name, argtypes, restype, errcheck) of every function this package
#: calls, in header order.  A library missing one of them is refused at load.
_FUNCTIONS: List[Tuple[str, List[Any], Any, Optional[Callable[..., Any]]]] = [
    # Version
    ("kvb_version_number", [], c_uint, None),
    ("kvb_version_string", [], _str, _string),
    # Status and errors
    ("kvb_strerror", [c_int], _str, _string),
    ("kvb_status_name", [c_int], _str, _string),
    ("kvb_error_init", [_P(Error), c_size_t], _status, _check_init),
    ("kvb_field_bounds", [_str, _P(c_double), _P(c_double), _P(Error)],
     _status, _check),
    # Model
    ("kvb_model_init", [_P(Model), c_size_t], _status, _check_init),
    ("kvb_model_validate", [_P(Model), _P(Error)], _status, _check),
    ("kvb_model_param_count",
     [_P(Model), _P(c_uint64), _P(c_uint64), _P(Error)], _status, _check),
    ("kvb_arch_name", [c_int], _str, _string),
    ("kvb_arch_find", [_str, _P(c_int32), _P(Error)], _status, _check),
    ("kvb_dtype_name", [c_int], _str, _string),
    ("kvb_dtype_find", [_str, _P(c_int32), _P(Error)], _status, _check),
    # Quantization
    ("kvb_quant_init", [_P(Quant), c_size_t], _status, _check_init),
    ("kvb_quant_method_name", [c_int], _str, _string),
    ("kvb_quant_method_note", [c_int], _str, _string),
    ("kvb_quant_method_find", [_str, _P(c_int32), _P(Error)], _status,
     _check),
    # Tensor inventory and weights
    ("kvb_model_tensor_count", [_P(Model), _P(c_size_t), _P(Error)],
     _status, _check),
    ("kvb_model_tensor_get",
     [_P(Model), _P(Quant), c_size_t, _P(Tensor), _P(Error)], _status,
     _check),
    ("kvb_weights_compute",
     [_P(Model), _P(Quant), c_uint32, c_uint32, _P(Weights), _P(Error)],
     _status, _check),
    ("kvb_weights_init", [_P(Weights), c_size_t], _status, _check_init),
    ("kvb_kv_bytes_per_token",
     [_P(Model), _P(Quant), c_uint32, c_uint32, _P(c_uint64), _P(c_uint64),
      _P(Error)], _status, _check),
    # GPU and serving
    ("kvb_gpu_init", [_P(Gpu), c_size_t], _status, _check_init),
    ("kvb_serving_init", [_P(Serving), c_size_t], _status, _check_init),
    ("kvb_engine_parse", [_str, _P(c_int32), _P(c_uint32), _P(Error)],
     _status, _check),
    ("kvb_engine_name", [c_int], _str, _string),
    ("kvb_engine_version_format",
     [c_int, c_uint32, _P(c_char), c_size_t, _P(Error)], _status, _check),
    ("kvb_engine_available", [c_int], c_int, _value),
    ("kvb_accounting_name", [c_int], _str, _string),
    ("kvb_serving_engine_set", [_P(Serving), _str, _P(Error)], _status,
     _check),
    # Engine command lines
    ("kvb_command_init", [_P(Command), c_size_t], _status, _check_init),
    ("kvb_command_read",
     [c_size_t, _P(c_char_p), _P(c_char_p), c_int32, _P(Command),
      _P(Serving), _P(Error)], _status, _check),
    ("kvb_command_split",
     [_str, c_char_p, c_size_t, _P(c_char_p), c_size_t, _P(c_size_t),
      _P(Error)], _status, _check),
    # Plan
    ("kvb_verdict_name", [c_int], _str, _string),
    ("kvb_verdict_reason", [c_int], _str, _string),
    ("kvb_plan_init", [_P(Plan), c_size_t], _status, _check_init),
    ("kvb_plan_compute",
     [_P(Model), _P(Quant), _P(Gpu), _P(Serving), _P(Plan), _P(Error)],
     _status, _check),
    ("kvb_plan_hints",
     [_P(Model), _P(Quant), _P(Gpu), _P(Serving), _P(Plan), _P(c_char),
      c_size_t, _P(c_size_t), _P(Error)], _status, _check),
    ("kvb_plan_engine_error",
     [_P(Plan), _P(c_char), c_size_t, _P(c_size_t), _P(Error)], _status,
     _check),
    # Presets
    ("kvb_instance_init", [_P(Instance), c_size_t], _status, _check_init),
    ("kvb_preset_model_count", [], c_size_t, None),
    ("kvb_preset_model_name", [c_size_t], _str, _string),
    ("kvb_preset_model_source", [c_size_t], _str, _string),
    ("kvb_preset_model_get", [c_size_t, _P(Model), _P(Error)], _status,
     _check),
    ("kvb_preset_model_find", [_str, _P(Model), _P(Error)], _status, _check),
    ("kvb_preset_model_resolve",
     [_str, _P(Model), _P(Quant), _P(c_char), c_size_t, _P(Error)], _status,
     _check),
    ("kvb_preset_model_published_params",
     [c_size_t, _P(c_uint64), _P(Error)], _status, _check),
    ("kvb_preset_gpu_count", [], c_size_t, None),
    ("kvb_preset_gpu_name", [c_size_t], _str, _string),
    ("kvb_preset_gpu_source", [c_size_t], _str, _string),
    ("kvb_preset_gpu_get", [c_size_t, _P(Gpu), _P(Error)], _status, _check),
    ("kvb_preset_gpu_find", [_str, _P(Gpu), _P(Error)], _status, _check),
    ("kvb_preset_instance_count", [], c_size_t, None),
    ("kvb_preset_instance_name", [c_size_t], _str, _string),
    ("kvb_preset_instance_source", [c_size_t], _str, _string),
    ("kvb_preset_instance_get", [c_size_t, _P(Instance), _P(Error)],
     _status, _check),
    ("kvb_preset_instance_find", [_str, _P(Instance), _P(Error)], _status,
     _check),
    ("kvb_instance_gpu", [_P(Instance), _P(Gpu), _P(Error)], _status,
     _check),
    ("kvb_preset_checkpoint_count", [], c_size_t, None),
    ("kvb_preset_checkpoint_name", [c_size_t], _str, _string),
    ("kvb_preset_checkpoint_source", [c_size_t], _str, _string),
    ("kvb_preset_checkpoint_model", [c_size_t], _str, _string),
    ("kvb_preset_checkpoint_method", [c_size_t], c_int32, _value),
    ("kvb_preset_checkpoint_find", [_str, c_int32, _P(c_size_t), _P(Error)],
     _status, _check),
    # Advice
    ("kvb_fix_kind_name", [c_int], _str, _string),
    ("kvb_fix_kind_text", [c_int], _str, _string),
    ("kvb_advice_options_init", [_P(AdviceOptions), c_size_t], _status,
     _check_init),
    ("kvb_fix_init", [_P(Fix), c_size_t], _status, _check_init),
    ("kvb_advise",
     [_P(Model), _P(Quant), _P(Gpu), _P(Serving), _P(AdviceOptions), _P(Fix),
      c_size_t, _P(c_size_t), _P(Error)], _status, _check),
    ("kvb_fix_cost", [_P(Fix), c_uint32, _P(c_double), _P(Error)], _status,
     _check),
    ("kvb_fix_apply", [_P(Fix), _P(Quant), _P(Gpu), _P(Serving), _P(Error)],
     _status, _check),
    ("kvb_fix_render",
     [_P(Fix), _P(Model), c_int32, _P(c_char), c_size_t, _P(c_size_t),
      _P(Error)], _status, _check),
    # Kubernetes manifests (check)
    ("kvb_check_options_init", [_P(CheckOptions), c_size_t], _status,
     _check_init),
    ("kvb_check_manifest",
     [c_char_p, c_size_t, _str, _P(CheckOptions), _P(c_char), c_size_t,
      _P(c_size_t), _P(Error)], _status, _check),
    ("kvb_check_fix",
     [c_char_p, c_size_t, _P(CheckOptions), _P(c_char), c_size_t,
      _P(c_size_t), _P(c_uint32), _P(Error)], _status, _check),
    # Logs (explain)
    ("kvb_log_failure_name", [c_int], _str, _string),
    ("kvb_log_failure_reason", [c_int], _str, _string),
    ("kvb_log_phase_name", [c_int], _str, _string),
    ("kvb_log_fact_name", [c_int], _str, _string),
    ("kvb_log_facts_init", [_P(LogFacts), c_size_t], _status, _check_init),
    ("kvb_log_parse", [c_char_p, c_size_t, _P(LogFacts), _P(Error)], _status,
     _check),
    ("kvb_log_inputs",
     [_P(LogFacts), _P(Model), _P(Quant), _P(Gpu), _P(Serving),
      _P(c_uint32), _P(Error)], _status, _check),
    ("kvb_log_explain",
     [_P(LogFacts), _P(c_char), c_size_t, _P(c_size_t), _P(Error)], _status,
     _check),
    # Readers
    ("kvb_read_info_init", [_P(ReadInfo), c_size_t], _status, _check_init),
    ("kvb_model_read", [_str, _P(Model), _P(Quant), _P(ReadInfo), _P(Error)],
     _status, _check),
    ("kvb_config_parse",
     [c_char_p, c_size_t, _P(Model), _P(Quant), _P(ReadInfo), _P(Error)],
     _status, _check),
    ("kvb_safetensors_parse", [c_char_p, c_size_t, _P(ReadInfo), _P(Error)],
     _status, _check),
    ("kvb_gguf_parse",
     [c_char_p, c_size_t, _P(Model), _P(Quant), _P(ReadInfo), _P(Error)],
     _status, _check),
    ("kvb_read_field_name", [c_uint], _str, _string),
    ("kvb_format_name", [c_int], _str, _string),
    ("kvb_ref_options_init", [_P(RefOptions), c_size_t], _status,
     _check_init),
    ("kvb_ref_info_init", [_P(RefInfo), c_size_t], _status, _check_init),
    ("kvb_model_read_ref",
     [_str, _P(RefOptions), _P(Model), _P(Quant), _P(ReadInfo), _P(RefInfo),
      _P(Error)], _status, _check),
    ("kvb_ref_source_name", [c_int], _str, _string),
    ("kvb_hub_built", [], c_uint, None),
    # Probe and validate
    ("kvb_device_init", [_P(Device), c_size_t], _status, _check_init),
    ("kvb_probe_count", [_P(c_uint32), _P(Error)], _status, _check),
    ("kvb_probe_device", [c_uint32, _P(Device), _P(Error)], _status, _check),
    ("kvb_device_gpu", [_P(Device), _P(Gpu), _P(Error)], _status, _check),
    ("kvb_stage_name", [c_int], _str, _string),
    ("kvb_stage_reason", [c_int], _str, _string),
    ("kvb_validation_init", [_P(Validation), c_size_t], _status,
     _check_init),
    ("kvb_validate",
     [_P(Model), _P(Quant), _P(Serving), c_uint32, _P(Validation),
      _P(Error)], _status, _check),
    # Batch planning and struct layout
    ("kvb_batch_init", [_P(Batch), c_size_t], _status, _check_init),
    ("kvb_batch_compute", [_P(Batch), _P(c_uint64), _P(Error)], _status,
     _check),
    ("kvb_layout_count", [], c_size_t, None),
    ("kvb_layout_struct_get",
     [c_size_t, _P(c_char_p), _P(c_size_t), _P(c_size_t), _P(Error)],
     _status, _check),
    ("kvb_layout_field_get",
     [c_size_t, c_size_t, _P(c_char_p), _P(c_char_p), _P(c_size_t),
      _P(c_size_t), _P(Error)], _status, _check),
]

# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------

if sys.platform == "darwin":
    _LIB_FILES = ("libkvbudget.dylib", f"libkvbudget.{REQUIRED_ABI}.dylib")
elif sys.platform == "win32":
    _LIB_FILES = ("kvbudget.dll", "libkvbudget.dll")
else:
    _LIB_FILES = (f"libkvbudget.so.{REQUIRED_ABI}", "libkvbudget.so")

_lock = threading.RLock()
_lib: Optional[ctypes.CDLL] = None
_loading: Optional[ctypes.CDLL] = None  # set while the load is checked
_lib_path: Optional[str] = None
_user_path: Optional[str] = None


def set_library_path(path: str) -> None:
    """Use the library at ``path`` (a file, or a directory that holds it).

    Must be called before the first call into the library; raises
    :class:`KvbLibraryError` afterwards.  ``KVBUDGET_LIBRARY`` still wins.
    """
    global _user_path
    with _lock:
        if _lib is not None:
            raise KvbLibraryError(
                f"set_library_path({path!r}) after the library was loaded "
                f"from {_lib_path}; call it before the first use")
        _user_path = os.fspath(path)


def library_path() -> str:
    """The file the library was loaded from (loading it if needed)."""
    library()
    assert _lib_path is not None
    return _lib_path


def _in_dir(directory: str) -> List[str]:
    return [os.path.join(directory, f) for f in _LIB_FILES
            if os.path.isfile(os.path.join(directory, f))]


def _candidates() -> Iterator[Tuple[str, bool]]:
    """(path or name, explicit): explicit ones must load or fail loudly."""
    env = os.environ.get("KVBUDGET_LIBRARY")
    if env:
        yield env, True
        return
    if _user_path:
        files = _in_dir(_user_path) if os.path.isdir(_user_path) else []
        yield (files[0] if files else _user_path), True
        return
    for path in _in_dir(os.path.dirname(os.path.abspath(__file__))):
        yield path, False
    yield _LIB_FILES[0], False
    found = ctypes.util.find_library("kvbudget")
    if found:
        yield found, False


# ---------------------------------------------------------------------------
# Checked arguments: ctypes would wrap an out-of-range integer (2**32 + 1
# becomes 1), cut a string at a NUL byte and take an int as an address.
# These argtypes refuse instead, as Python's own APIs do: KvbERANGE (a
# ValueError) for a number out of its C type's range, ValueError for an
# embedded NUL, TypeError for the wrong type.
# ---------------------------------------------------------------------------

def _range_error(c_type: str, value: int, lo: int, hi: int) -> Exception:
    status = int(_errors.Status.ERANGE)
    return _errors.error_class(status)(
        status, "KVB_ERANGE", "argument",
        f"argument ({value}) does not fit the C type {c_type}; allowed: "
        f"{lo}..{hi}")


def _int_check(c_type: str, bits: int, signed: bool) -> Callable[[Any], None]:
    lo = -(1 << (bits - 1)) if signed else 0
    hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1

    def check(value: Any) -> None:
        if isinstance(value, int) and not lo <= value <= hi:
            raise _range_error(c_type, value, lo, hi)
    return check


def _buffer_check(value: Any) -> None:
    if value is not None and not isinstance(value, (bytes, bytearray)):
        raise TypeError(f"a C string argument must be bytes, not "
                        f"{type(value).__name__}")


def _text_check(value: Any) -> None:
    _buffer_check(value)
    if value is not None and b"\0" in value:
        raise ValueError("embedded null byte")


_CHECKS: Dict[Any, Callable[[Any], None]] = {
    c_char_p: _text_check,
    c_int32: _int_check("int32_t", 32, True),
    c_uint32: _int_check("uint32_t", 32, False),
    c_uint64: _int_check("uint64_t", 64, False),
    c_int64: _int_check("int64_t", 64, True),
    c_int: _int_check("int", 8 * sizeof(c_int), True),
    c_size_t: _int_check("size_t", 8 * sizeof(c_size_t), False),
}


class _Guarded:
    """A library function whose scalar arguments are checked before ctypes
    converts them (ctypes would wrap 2**32 + 1 to 1 and cut text at a NUL,
    and its own errors come as ArgumentError).  Everything else, argtypes
    included, is the ctypes function's."""

    __slots__ = ("_func", "_checks")

    def __init__(self, func: Any,
                 checks: List[Tuple[int, Callable[[Any], None]]]) -> None:
        self._func = func
        self._checks = checks

    def __call__(self, *args: Any) -> Any:
        for i, check in self._checks:
            if i < len(args):
                check(args[i])
        return self._func(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._func, name)


def _register(lib: ctypes.CDLL, path: str) -> None:
    for name, argtypes, restype, errcheck in _FUNCTIONS:
        try:
            func = getattr(lib, name)
        except AttributeError:
            raise KvbLibraryError(
                f"{path} has no {name}: please ensure that the kvbudget "
                f"Python bindings ({__version__}) are compatible with the "
                f"library (KVBUDGET_LIBRARY or set_library_path() choose "
                f"another one)") from None
        func.argtypes = argtypes
        func.restype = restype
        if errcheck is not None:
            func.errcheck = errcheck
        # a char * followed by a size_t is a buffer: NUL bytes are data
        checks = [(i, _buffer_check
                   if t is c_char_p and argtypes[i + 1:i + 2] == [c_size_t]
                   else _CHECKS[t])
                  for i, t in enumerate(argtypes) if t in _CHECKS]
        if checks:
            setattr(lib, name, _Guarded(func, checks))


def _check_library(lib: ctypes.CDLL, path: str) -> None:
    number = lib.kvb_version_number()
    text = lib.kvb_version_string()
    mine = tuple(int(x) for x in __version__.split(".")[:3])
    if number // 10000 != mine[0] or number < MIN_LIBRARY_VERSION:
        raise KvbLibraryError(
            f"{path} is libkvbudget {text} ({number}); these bindings "
            f"({__version__}) need {mine[0]}.x from "
            f"{MIN_LIBRARY_VERSION // 10000}.{MIN_LIBRARY_VERSION // 100 % 100}"
            f": please ensure that your Python bindings are compatible with "
            f"your libkvbudget")
    sizes = {}
    for i in range(lib.kvb_layout_count()):
        name, size = c_char_p(), c_size_t()
        lib.kvb_layout_struct_get(i, byref(name), byref(size), None, None)
        sizes[(name.value or b"").decode()] = size.value
    for c_name, cls in STRUCTS.items():
        if sizes.get(c_name) != sizeof(cls):
            raise KvbLibraryError(
                f"{path} ({text}) has sizeof({c_name}) = "
                f"{sizes.get(c_name)}, these bindings ({__version__}) "
                f"{sizeof(cls)}: please ensure that your Python bindings are "
                f"compatible with your libkvbudget")


def _sync_statuses(lib: ctypes.CDLL, path: str) -> None:
    """The status classes must name what kvb_status_name() names."""
    from ._enums import Status
    for s in Status:
        if lib.kvb_status_name(int(s)) != f"KVB_{s.name}":
            raise KvbLibraryError(
                f"{path}: status {int(s)} is {lib.kvb_status_name(int(s))}, "
                f"these bindings ({__version__}) say KVB_{s.name}")
    # Statuses a newer library added get their classes now.
    s = max(Status) + 1
    while lib.kvb_status_name(s) != "KVB_UNKNOWN" and s < 4096:
        _errors.error_class(s, lib.kvb_status_name(s))
        s += 1


def library() -> ctypes.CDLL:
    """The loaded library, with every prototype of :data:`_FUNCTIONS` set."""
    global _lib, _lib_path, _loading
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        if _loading is not None:  # the checks below call back in
            return _loading
        tried: List[str] = []
        for candidate, explicit in _candidates():
            try:
                lib = ctypes.CDLL(candidate)
            except OSError as exc:
                if explicit:
                    raise KvbLibraryError(
                        f"cannot load libkvbudget from {candidate}: "
                        f"{exc}") from None
                tried.append(f"{candidate} ({exc})")
                continue
            path = candidate
            _register(lib, path)
            _loading = lib
            try:
                _check_library(lib, path)
                _sync_statuses(lib, path)
            finally:
                _loading = None
            _lib, _lib_path = lib, path
            return lib
        raise KvbLibraryError(
            "libkvbudget not found; build it (make build), then set "
            "KVBUDGET_LIBRARY=/path/to/libkvbudget.so.0, or install it "
            "(cmake --install, or pip install ./bindings/python after the "
            "build). Tried: " + "; ".join(tried))


def new_error() -> Error:
    """An initialised kvb_error to pass as the last argument."""
    return Error()
