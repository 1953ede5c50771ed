"""Mirrors of the C enums and flag sets of include/kvbudget.h.

Values are the C values.  Member names are the C names without their prefix
(``KVB_VERDICT_FITS`` is ``Verdict.FITS``).  The tests check every member
against the library's own name functions (``kvb_verdict_name`` ...), listed
in :data:`NAME_FUNCTIONS`, so a renumbered or added value cannot go unnoticed.
"""

from __future__ import annotations

import enum
from typing import Dict, Type

#: ``KVB_AUTO_BYTES``: "work it out" for the byte overrides of kvb_serving.
AUTO_BYTES = (1 << 64) - 1

#: One GiB, for display only: every size in this package is in bytes.
GIB = 1 << 30


class Status(enum.IntEnum):
    """``kvb_status``: what every fallible C function returns."""

    OK = 0
    EINVAL = 1
    ERANGE = 2
    EOVERFLOW = 3
    ENOTFOUND = 4
    EABI = 5
    ENOMEM = 6
    EIO = 7
    EPARSE = 8
    EUNSUPPORTED = 9
    ELIMIT = 10
    EBUFSIZE = 11
    ENOCUDA = 12
    ENODRIVER = 13
    ENODEVICE = 14
    ECUDA = 15


class Arch(enum.IntEnum):
    """``kvb_arch``: the model family."""

    GENERIC = 0
    LLAMA = 1
    LLAMA4 = 2
    MISTRAL = 3
    MIXTRAL = 4
    QWEN2 = 5
    QWEN3 = 6
    QWEN3_MOE = 7
    GEMMA2 = 8
    GEMMA3 = 9
    PHI3 = 10
    DEEPSEEK_V3 = 11
    GPT_OSS = 12
    FALCON = 13
    OPT = 14
    GPT_NEOX = 15
    QWEN2_MOE = 16
    QWEN3_NEXT = 17
    NEMOTRON_H = 18
    GRANITE_H = 19
    GLM4_MOE = 20
    JAMBA = 21
    FALCON_H1 = 22
    GEMMA3N = 23
    ZAMBA2 = 24
    MLLAMA = 25
    GEMMA = 26
    PHI = 27


class Vision(enum.IntEnum):
    """``kvb_vision``: the family of a model's vision tower."""

    NONE = 0
    SIGLIP = 1
    QWEN2_5_VL = 2
    QWEN3_VL = 3
    PIXTRAL = 4
    LLAMA4 = 5
    MLLAMA = 6
    GEMMA3N = 7


class Multimodal(enum.IntFlag):
    """``KVB_MM_*``: modalities limited to 0 (``Serving.mm_disabled``)."""

    IMAGE = 1
    VIDEO = 2
    AUDIO = 4


class Mmproj(enum.IntFlag):
    """``KVB_MMPROJ_*``: llama.cpp's vision projector (``Serving.mmproj``)."""

    LOAD = 1
    NONE = 2
    CPU = 4
    HF = 8


class Dtype(enum.IntEnum):
    """``kvb_dtype``: element types of weights, activations and KV cache."""

    AUTO = 0
    FP32 = 1
    FP16 = 2
    BF16 = 3
    FP8 = 4


class ModelFlag(enum.IntFlag):
    """``KVB_MODEL_*`` bits of ``kvb_model.flags``."""

    ATTN_QKV_BIAS = 1 << 0
    ATTN_O_BIAS = 1 << 1
    MLP_BIAS = 1 << 2
    QK_NORM = 1 << 3
    NORM_BIAS = 1 << 4
    MLP_NO_GATE = 1 << 5
    SANDWICH_NORM = 1 << 6
    PARALLEL_ATTN = 1 << 7
    ATTN_SINKS = 1 << 8
    ROUTER_BIAS = 1 << 9
    ROUTER_SCORE_BIAS = 1 << 10
    FUSED_QKV = 1 << 11
    FUSED_GATE_UP = 1 << 12
    SHARED_EXPERT_GATE = 1 << 13
    ATTN_GATE = 1 << 14
    SSM_NO_NORM = 1 << 15
    LM_HEAD_BIAS = 1 << 16
    SHARED_ATTN_ADAPTER = 1 << 18


class QuantMethod(enum.IntEnum):
    """``kvb_quant_method``: how the weights are stored."""

    AUTO = 0
    FP32 = 1
    FP16 = 2
    BF16 = 3
    FP8 = 4
    GPTQ_8 = 5
    GPTQ_4 = 6
    AWQ_4 = 7
    Q8_0 = 8
    Q6_K = 9
    Q5_K_M = 10
    Q4_K_M = 11
    Q4_0 = 12
    BNB_4 = 13
    MXFP4 = 14
    W4A16 = 15
    W8A8_INT8 = 16
    NVFP4 = 17
    BNB_8 = 18
    Q2_K = 19
    Q3_K_S = 20
    Q3_K_M = 21
    Q3_K_L = 22
    Q4_K_S = 23
    Q5_K_S = 24
    Q5_0 = 25
    Q5_1 = 26
    IQ4_XS = 27
    IQ4_NL = 28
    IQ3_M = 29


class Fp8Scale(enum.IntEnum):
    """``kvb_fp8_scale``: FP8 weight-scale granularity."""

    TENSOR = 0
    CHANNEL = 1
    BLOCK128 = 2


class QuantFlag(enum.IntFlag):
    """``KVB_QUANT_*`` bits of ``kvb_quant.flags``."""

    DESC_ACT = 1 << 0
    BNB_NO_DOUBLE = 1 << 1


class TensorRole(enum.IntEnum):
    """``kvb_tensor_role``: what a weight tensor does."""

    EMBED = 0
    POS_EMBED = 1
    LM_HEAD = 2
    NORM = 3
    ATTN_Q = 4
    ATTN_K = 5
    ATTN_V = 6
    ATTN_QKV = 7
    ATTN_O = 8
    MLA_Q_A = 9
    MLA_Q_B = 10
    MLA_KV_A = 11
    MLA_KV_B = 12
    MLP_GATE = 13
    MLP_UP = 14
    MLP_GATE_UP = 15
    MLP_DOWN = 16
    ROUTER = 17
    EXPERT_GATE = 18
    EXPERT_UP = 19
    EXPERT_DOWN = 20
    SHARED_GATE = 21
    SHARED_UP = 22
    SHARED_DOWN = 23
    BIAS = 24
    SINKS = 25
    ROUTER_BIAS = 26
    SHARED_EXPERT_GATE = 27
    SSM_IN = 28
    SSM_IN_BA = 29
    SSM_CONV = 30
    SSM_HEAD = 31
    SSM_OUT = 32
    VISION = 33
    INDEXER_WQ_B = 34
    INDEXER_WK = 35
    INDEXER_WEIGHTS = 36
    PLE_EMBED = 40
    PLE = 41
    ALTUP = 42
    LAUREL = 43
    ADAPTER_A = 46
    ADAPTER_B = 47
    HYBRID_LINEAR = 48
    CROSS_GATE = 50


class Storage(enum.IntEnum):
    """``kvb_storage``: how one tensor is stored."""

    F32 = 0
    F16 = 1
    BF16 = 2
    FP8 = 3
    AWQ_4 = 4
    GPTQ_4 = 5
    GPTQ_8 = 6
    BNB_4 = 7
    MXFP4 = 8
    Q4_0 = 9
    Q4_1 = 10
    Q5_0 = 11
    Q5_1 = 12
    Q8_0 = 13
    Q4_K = 14
    Q5_K = 15
    Q6_K = 16
    INT4_PACKED = 17
    INT8 = 18
    NVFP4 = 19
    BNB_8 = 20
    Q2_K = 21
    Q3_K = 22
    IQ4_XS = 23
    IQ4_NL = 24
    IQ3_S = 25


class Split(enum.IntEnum):
    """``kvb_split``: how tensor parallelism splits a tensor."""

    REPLICATED = 0
    COLUMN = 1
    ROW = 2
    VOCAB = 3
    KV_HEADS = 4


class Engine(enum.IntEnum):
    """``kvb_engine``: serving engines."""

    VLLM = 0
    SGLANG = 1
    LLAMA_CPP = 2
    OLLAMA = 3
    TRTLLM = 4
    TGI = 5


class Accounting(enum.IntEnum):
    """``kvb_accounting``: the engine's memory accounting a plan used."""

    VLLM_V0 = 0
    VLLM_V1 = 1
    VLLM_V1_021 = 2
    SGLANG = 3
    LLAMA_CPP = 4
    OLLAMA = 5
    TRTLLM_PYTORCH = 6
    TRTLLM_ENGINE = 7
    TGI = 8


class Verdict(enum.IntEnum):
    """``kvb_verdict``: why a plan fits or not."""

    FITS = 0
    WEIGHTS_EXCEED = 1
    NO_KV_MEMORY = 2
    MAX_LEN_EXCEEDS_KV = 3
    CONCURRENCY_EXCEEDS = 4
    HEADROOM_TOO_SMALL = 5
    PARALLELISM_INVALID = 6


class FixKind(enum.IntEnum):
    """``kvb_fix_kind``: what a fix changes."""

    MAX_MODEL_LEN = 0
    UTILIZATION = 1
    ENFORCE_EAGER = 2
    KV_CACHE_FP8 = 3
    QUANTIZE = 4
    TENSOR_PARALLEL = 5
    INSTANCE = 6
    COMBINED = 7

class RenderFormat(enum.IntEnum):
    """``kvb_render_format``: how kvb_fix_render() writes a fix."""

    VLLM_ARGS = 0
    K8S_ARGS = 1
    KARPENTER = 2

class LogFailure(enum.IntEnum):
    """``kvb_log_failure``: the failure a log shows."""

    NONE = 0
    CUDA_OOM = 1
    MAX_LEN_EXCEEDS_KV = 2
    NO_KV_MEMORY = 3
    STARTUP_FREE_MEMORY = 4

class LogPhase(enum.IntEnum):
    """``kvb_log_phase``: when an out-of-memory error happened."""

    UNKNOWN = 0
    LOADING = 1
    PROFILE = 2
    CUDA_GRAPHS = 3
    SERVING = 4

class LogFact(enum.IntEnum):
    """``KVB_LOG_BIT_*``: bit numbers of ``kvb_log_facts.present``."""

    ENGINE_VERSION = 0
    ACCOUNTING = 1
    MODEL = 2
    QUANTIZATION = 3
    DTYPE = 4
    KV_CACHE_DTYPE = 5
    MAX_MODEL_LEN = 6
    GPU_MEMORY_UTILIZATION = 7
    TENSOR_PARALLEL_SIZE = 8
    PIPELINE_PARALLEL_SIZE = 9
    ENFORCE_EAGER = 10
    BLOCK_SIZE = 11
    MAX_NUM_SEQS = 12
    MAX_NUM_BATCHED_TOKENS = 13
    GPU_NAME = 14
    GPU_TOTAL_BYTES = 15
    STARTUP_FREE_BYTES = 16
    REQUESTED_BYTES = 17
    WEIGHTS_BYTES = 18
    CONSUMED_BYTES = 19
    NON_TORCH_BYTES = 20
    ACTIVATION_BYTES = 21
    CUDAGRAPH_BYTES = 22
    KV_CACHE_BYTES = 23
    GPU_BLOCKS = 24
    CPU_BLOCKS = 25
    KV_CACHE_TOKENS = 26
    MAX_CONCURRENCY = 27
    KV_NEEDED_BYTES = 28
    ESTIMATED_MAX_MODEL_LEN = 29
    OOM_TRIED_BYTES = 30
    OOM_FREE_BYTES = 31
    OOM_IN_USE_BYTES = 32
    OOM_GPU_INDEX = 33
    ENGINE = 34
    MAX_TOTAL_TOKENS = 35
    CONTEXT_SIZE = 36
    N_PARALLEL = 37
    LAYERS_ON_GPU = 38
    LAYERS_TOTAL = 39
    COMPUTE_BUFFER_BYTES = 40
    AVAILABLE_BYTES = 41

class Format(enum.IntEnum):
    """``kvb_format``: what a path or buffer held."""

    NONE = 0
    CONFIG_JSON = 1
    SAFETENSORS = 2
    GGUF = 3
    DIRECTORY = 4
    SAFETENSORS_INDEX = 5

class ReadField(enum.IntEnum):
    """``kvb_read_field``: bit numbers of ``kvb_read_info.fields_from_file``."""

    ARCH = 0
    DTYPE = 1
    FLAGS = 2
    NUM_HIDDEN_LAYERS = 3
    HIDDEN_SIZE = 4
    NUM_ATTENTION_HEADS = 5
    NUM_KEY_VALUE_HEADS = 6
    HEAD_DIM = 7
    INTERMEDIATE_SIZE = 8
    VOCAB_SIZE = 9
    TIE_WORD_EMBEDDINGS = 10
    MAX_POSITION_EMBEDDINGS = 11
    POSITION_EMBEDDING_ROWS = 12
    NUM_EXPERTS = 13
    NUM_EXPERTS_PER_TOK = 14
    MOE_INTERMEDIATE_SIZE = 15
    NUM_SHARED_EXPERTS = 16
    SHARED_EXPERT_INTERMEDIATE_SIZE = 17
    FIRST_K_DENSE_REPLACE = 18
    MOE_LAYER_STEP = 19
    KV_LORA_RANK = 20
    Q_LORA_RANK = 21
    QK_ROPE_HEAD_DIM = 22
    QK_NOPE_HEAD_DIM = 23
    V_HEAD_DIM = 24
    SLIDING_WINDOW = 25
    SLIDING_WINDOW_PATTERN = 26
    ATTENTION_CHUNK_SIZE = 27
    ATTENTION_CHUNK_PATTERN = 28
    QUANT_METHOD = 29
    QUANT_GROUP_SIZE = 30
    QUANT_FP8_SCALE = 31
    QUANT_FLAGS = 32
    WEIGHTS_BYTES = 33
    QUANT_KEEP_ROLES = 34

class RefSource(enum.IntEnum):
    """``kvb_ref_source``: where a model reference was read from."""

    NONE = 0
    PATH = 1
    HF_CACHE = 2
    HUB = 3
    OLLAMA = 4


class Stage(enum.IntEnum):
    """``kvb_stage``: the stages of a validation run."""

    WEIGHTS = 0
    ACTIVATION = 1
    NON_TORCH = 2
    CUDAGRAPH = 3
    KV_CACHE = 4


class LogKnown(enum.IntFlag):
    """``KVB_LOG_KNOWN_*``: what kvb_log_inputs() could fill."""

    MODEL = 1 << 0
    QUANT = 1 << 1
    GPU = 1 << 2
    SERVING = 1 << 3

#: Each enum mirror and the C function that names its values (NULL past the
#: last value); the tests walk both ways.
NAME_FUNCTIONS: Dict[Type[enum.IntEnum], str] = {
    Status: "kvb_status_name",
    Arch: "kvb_arch_name",
    Dtype: "kvb_dtype_name",
    QuantMethod: "kvb_quant_method_name",
    Engine: "kvb_engine_name",
    Accounting: "kvb_accounting_name",
    Verdict: "kvb_verdict_name",
    FixKind: "kvb_fix_kind_name",
    LogFailure: "kvb_log_failure_name",
    LogPhase: "kvb_log_phase_name",
    LogFact: "kvb_log_fact_name",
    Format: "kvb_format_name",
    RefSource: "kvb_ref_source_name",
    ReadField: "kvb_read_field_name",
    Stage: "kvb_stage_name",
}
