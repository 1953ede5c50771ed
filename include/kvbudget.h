/*
 * kvbudget.h -- the public interface of libkvbudget, and its manual.
 *
 * libkvbudget tells, before anyone deploys, how much GPU memory an LLM
 * serving engine (vLLM) will use and how many tokens of KV cache will fit:
 *
 *   usable    = GPU memory (as CUDA reports it) x gpu_memory_utilization
 *   KV budget = usable - weights - activation peak - non-torch memory
 *               (- the CUDA-graph estimate, from vLLM 0.21)
 *   KV tokens = KV budget / KV bytes per token, in whole blocks
 *   concurrency at max_model_len = KV tokens / max_model_len
 *
 * and, when that does not fit, which change makes it fit.
 *
 * Rules that hold for every function in this header:
 *
 *  - Anything not declared here is not API.  Symbols outside the kvb_
 *    prefix, and names beginning with kvb__ or KVB__, are internal.
 *  - Every fallible function returns a kvb_status: KVB_OK (0) on success,
 *    or a status; details in *err.  `err` may be NULL.  On failure, output
 *    structs hold no meaningful data.
 *  - kvb_error.message follows one grammar:
 *        "<field> (<value>) <problem>; allowed: <range>"
 *    or, for readers, "<reason>" with line/column or byte offset set.
 *  - Input and output structs begin with `size_t struct_size` and get their
 *    defaults from kvb_<object>_init().  The library reads and writes only
 *    the bytes inside struct_size, so a caller compiled against an older
 *    header keeps working; fields are only ever appended.
 *  - Sizes are bytes in uint64_t; counts are uint32_t or uint64_t; ratios
 *    are double; enums stored in structs are int32_t.  GiB appear only in
 *    messages, for display.
 *  - libkvbudget never allocates memory that the caller must free.  Strings
 *    returned as `const char *` are static and live for the whole process.
 *  - There is no global mutable state; every function is thread-safe as
 *    long as two threads do not write the same struct.
 *
 * Example (compiled by the test suite, see README.md):
 *
 *   kvb_model m; kvb_quant q; kvb_gpu g; kvb_serving s; kvb_plan p;
 *   kvb_error e = KVB_ERROR_INIT;
 *   KVB_MODEL_INIT(&m); KVB_QUANT_INIT(&q); KVB_GPU_INIT(&g);
 *   KVB_SERVING_INIT(&s); KVB_PLAN_INIT(&p);
 *   if (kvb_preset_model_find("Llama-3.1-8B", &m, &e) ||
 *       kvb_preset_gpu_find("A10G", &g, &e) ||
 *       kvb_plan_compute(&m, &q, &g, &s, &p, &e))
 *       fprintf(stderr, "%s: %s\n", e.field, e.message);
 *   else
 *       printf("%llu KV tokens\n", (unsigned long long)p.max_kv_tokens);
 *
 * Stability: 0.x releases may add functions, struct fields (at the end)
 * and enum values (append-only numbers).  Nothing is renumbered or removed
 * without a SONAME bump; see docs/ABI.md.
 */
#ifndef KVBUDGET_H
#define KVBUDGET_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------- */
/* Export and attribute macros                                            */
/* ---------------------------------------------------------------------- */

#if defined(KVB_BUILDING) && defined(KVB_STATIC)
#error "Define either KVB_BUILDING (building the shared library) or KVB_STATIC, not both."
#endif

#if defined(_WIN32)
#if defined(KVB_BUILDING)
#define KVB_API __declspec(dllexport)
#elif defined(KVB_STATIC)
#define KVB_API
#else
#define KVB_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#define KVB_API __attribute__((visibility("default")))
#else
#define KVB_API
#endif

#if defined(__GNUC__)
#define KVB_NODISCARD __attribute__((warn_unused_result))
#else
#define KVB_NODISCARD
#endif

/* ---------------------------------------------------------------------- */
/* Version                                                                */
/* ---------------------------------------------------------------------- */

#define KVB_VERSION_MAJOR 0
#define KVB_VERSION_MINOR 1
#define KVB_VERSION_PATCH 0
#define KVB_VERSION_STRING "0.1.0"
/** MAJOR*10000 + MINOR*100 + PATCH: 0.1.0 is 100. */
#define KVB_VERSION_NUMBER                                                     \
    (KVB_VERSION_MAJOR * 10000 + KVB_VERSION_MINOR * 100 + KVB_VERSION_PATCH)
#define KVB_AT_LEAST_VERSION(x, y, z)                                          \
    (KVB_VERSION_NUMBER >= ((x) * 10000 + (y) * 100 + (z)))

/**
 * The version of the library actually loaded, packed as KVB_VERSION_NUMBER.
 * Suggested start-up check:
 *     assert(kvb_version_number() == KVB_VERSION_NUMBER);
 * @return the packed version.
 * @since 0.1
 */
KVB_API
unsigned kvb_version_number(void);

/**
 * The version string of the library actually loaded ("0.1.0").
 * @return a static string.
 * @since 0.1
 */
KVB_API
const char *kvb_version_string(void);

/* ---------------------------------------------------------------------- */
/* Status and errors                                                      */
/* ---------------------------------------------------------------------- */

/*
 * The status table: XX(name, number, message).  Numbers are explicit and
 * append-only; a retired code keeps its slot as KVB_EOBSOLETE_<n>.
 */
#define KVB_STATUS_MAP(XX)                                                     \
    XX(OK, 0, "success")                                                       \
    XX(EINVAL, 1, "invalid argument")                                          \
    XX(ERANGE, 2, "value out of range")                                        \
    XX(EOVERFLOW, 3, "arithmetic overflow: the inputs are too large")          \
    XX(ENOTFOUND, 4, "no preset or name matches")                              \
    XX(EABI, 5, "struct_size does not match this library")                    \
    XX(ENOMEM, 6, "out of memory")                                             \
    XX(EIO, 7, "cannot read the file")                                         \
    XX(EPARSE, 8, "malformed input")                                           \
    XX(EUNSUPPORTED, 9, "valid input that this version cannot handle")         \
    XX(ELIMIT, 10, "input exceeds a safety limit")                             \
    XX(EBUFSIZE, 11, "buffer too small")                                       \
    XX(ENOCUDA, 12, "built without CUDA support")                              \
    XX(ENODRIVER, 13, "no CUDA driver")                                        \
    XX(ENODEVICE, 14, "no CUDA device")                                        \
    XX(ECUDA, 15, "CUDA runtime error")

/** Status codes returned by every fallible function. */
typedef enum kvb_status {
#define KVB__STATUS_ENUM(name, num, msg) KVB_##name = num,
    KVB_STATUS_MAP(KVB__STATUS_ENUM)
#undef KVB__STATUS_ENUM
    KVB_STATUS_LAST_ /* never use: internal loops only */
} kvb_status;

/**
 * A static English sentence for a status ("invalid argument"); unknown
 * codes give "unknown status".  Never NULL.
 * @since 0.1
 */
KVB_API
const char *kvb_strerror(int status);

/**
 * The symbolic name of a status ("KVB_EINVAL"); unknown codes give
 * "KVB_UNKNOWN".  Never NULL.
 * @since 0.1
 */
KVB_API
const char *kvb_status_name(int status);

/** Error detail filled by a failing call.  Caller-owned; never global. */
typedef struct kvb_error {
    size_t struct_size;  /* set by kvb_error_init / KVB_ERROR_INIT */
    int32_t status;      /* the value the function returned */
    char field[64];      /* dotted path: "model.num_key_value_heads" */
    char message[256];   /* see the grammar at the top of this header */
    int64_t line;        /* readers: 1-based line, or -1 */
    int64_t column;      /* readers: 1-based column, or -1 */
    int64_t offset;      /* readers: byte offset into the file, or -1 */
    char source[128];    /* file or preset the error came from, or "" */
    uint8_t reserved[64]; /* room to grow without changing the size */
} kvb_error;

#define KVB_ERROR_INIT                                                         \
    {sizeof(kvb_error), 0, {0}, {0}, -1, -1, -1, {0}, {0}}

/**
 * Reset an error struct to "no error".
 * @param[out] err  the struct to reset.
 * @param[in]  struct_size  sizeof(kvb_error) as the caller sees it.
 * @return KVB_OK, KVB_EINVAL (NULL) or KVB_EABI.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_error_init(kvb_error *err, size_t struct_size);

/**
 * The documented range of a numeric input field, shared by the library's
 * own validation, the command and the Python bindings.  Field names are
 * the dotted names used in kvb_error.field ("serving.gpu_memory_utilization",
 * "model.num_hidden_layers", ...).
 * @param[in]  field  dotted field name.
 * @param[out] lo, hi  inclusive bounds.
 * @return KVB_OK or KVB_ENOTFOUND; details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_field_bounds(const char *field, double *lo, double *hi,
                            kvb_error *err);

/* ---------------------------------------------------------------------- */
/* Model                                                                  */
/* ---------------------------------------------------------------------- */

/** Model families: decide tensor names and llama.cpp's per-family rules. */
typedef enum kvb_arch {
    KVB_ARCH_GENERIC = 0,    /* Llama-shaped decoder */
    KVB_ARCH_LLAMA = 1,      /* Llama 2, 3, 3.1, 3.2 */
    KVB_ARCH_LLAMA4 = 2,     /* Llama 4 (MoE interleave, chunked attention) */
    KVB_ARCH_MISTRAL = 3,    /* Mistral, Mistral Small */
    KVB_ARCH_MIXTRAL = 4,    /* Mixtral MoE */
    KVB_ARCH_QWEN2 = 5,      /* Qwen2, Qwen2.5, R1-Distill-Qwen */
    KVB_ARCH_QWEN3 = 6,      /* Qwen3 dense */
    KVB_ARCH_QWEN3_MOE = 7,  /* Qwen3 MoE */
    KVB_ARCH_GEMMA2 = 8,     /* Gemma 2 */
    KVB_ARCH_GEMMA3 = 9,     /* Gemma 3 (text) */
    KVB_ARCH_PHI3 = 10,      /* Phi-3, Phi-4 */
    KVB_ARCH_DEEPSEEK_V3 = 11, /* DeepSeek V2/V3/R1 (MLA + MoE) */
    KVB_ARCH_GPT_OSS = 12,   /* gpt-oss */
    KVB_ARCH_FALCON = 13,    /* Falcon */
    KVB_ARCH_OPT = 14,       /* OPT */
    KVB_ARCH_GPT_NEOX = 15,  /* GPT-NeoX, Pythia */
    KVB_ARCH_QWEN2_MOE = 16, /* Qwen2/Qwen1.5 MoE */
    KVB_ARCH_LAST_           /* never use */
} kvb_arch;

/** Element types of weights, activations and the KV cache. */
typedef enum kvb_dtype {
    KVB_DTYPE_AUTO = 0, /* the model's own dtype (config torch_dtype) */
    KVB_DTYPE_FP32 = 1,
    KVB_DTYPE_FP16 = 2,
    KVB_DTYPE_BF16 = 3,
    KVB_DTYPE_FP8 = 4, /* e4m3, 1 byte */
    KVB_DTYPE_LAST_    /* never use */
} kvb_dtype;

/* ---- Model feature flags (kvb_model.flags) ---- */
#define KVB_MODEL_ATTN_QKV_BIAS (1u << 0)  /* q, k, v projections have biases */
#define KVB_MODEL_ATTN_O_BIAS (1u << 1)    /* o projection has a bias */
#define KVB_MODEL_MLP_BIAS (1u << 2)       /* MLP and expert linears have biases */
#define KVB_MODEL_QK_NORM (1u << 3)        /* RMSNorm on q and k (head_dim each) */
#define KVB_MODEL_NORM_BIAS (1u << 4)      /* LayerNorm with a bias */
#define KVB_MODEL_MLP_NO_GATE (1u << 5)    /* fc1 -> act -> fc2, no gate */
#define KVB_MODEL_SANDWICH_NORM (1u << 6)  /* four norms per layer (Gemma 2/3) */
#define KVB_MODEL_PARALLEL_ATTN (1u << 7)  /* one norm feeds attention and MLP */
#define KVB_MODEL_ATTN_SINKS (1u << 8)     /* a learned sink logit per head */
#define KVB_MODEL_ROUTER_BIAS (1u << 9)    /* the MoE router has a bias */
#define KVB_MODEL_ROUTER_SCORE_BIAS (1u << 10) /* e_score_correction_bias */
#define KVB_MODEL_FUSED_QKV (1u << 11)     /* q, k, v stored as one tensor */
#define KVB_MODEL_FUSED_GATE_UP (1u << 12) /* gate and up stored as one tensor */
#define KVB_MODEL_SHARED_EXPERT_GATE (1u << 13) /* sigmoid gate on shared expert */
#define KVB_MODEL_FLAGS_ALL_ ((1u << 14) - 1u) /* never use */

/**
 * A decoder-only transformer, described the way its Hugging Face
 * config.json describes it.  Zero means "not used" for optional parts
 * (MoE, MLA, sliding window).  kvb_model_init() gives an all-zero model of
 * family GENERIC with dtype BF16; the caller fills the architecture.
 */
typedef struct kvb_model {
    size_t struct_size;
    char name[64];                     /* display name or preset name */
    int32_t arch;                      /* kvb_arch */
    int32_t dtype;                     /* kvb_dtype: checkpoint torch_dtype */
    uint32_t flags;                    /* KVB_MODEL_* bits */
    uint32_t num_hidden_layers;        /* decoder layers */
    uint64_t hidden_size;              /* model width */
    uint32_t num_attention_heads;      /* query heads */
    uint32_t num_key_value_heads;      /* KV heads (GQA); = heads for MHA */
    uint32_t head_dim;                 /* 0: hidden_size / heads */
    uint64_t intermediate_size;        /* dense MLP width */
    uint64_t vocab_size;               /* embedding rows */
    uint32_t tie_word_embeddings;      /* 1: lm_head shares the embedding */
    uint64_t max_position_embeddings;  /* longest context the model supports */
    uint64_t position_embedding_rows;  /* learned positions (OPT: 2050); 0 */
    /* ---- MoE (num_experts == 0: dense) ---- */
    uint32_t num_experts;              /* routed experts per MoE layer */
    uint32_t num_experts_per_tok;      /* experts chosen per token */
    uint64_t moe_intermediate_size;    /* width of one routed expert */
    uint32_t num_shared_experts;       /* always-on experts per MoE layer */
    uint64_t shared_expert_intermediate_size; /* width of one; 0: moe size */
    uint32_t first_k_dense_replace;    /* first k layers are dense (DeepSeek) */
    uint32_t moe_layer_step;           /* layer i is MoE iff (i+1)%step==0; 0/1: all */
    /* ---- MLA (kv_lora_rank == 0: not MLA) ---- */
    uint32_t kv_lora_rank;             /* compressed KV latent width */
    uint32_t q_lora_rank;              /* compressed query width; 0: no q LoRA */
    uint32_t qk_rope_head_dim;         /* rotary part of q/k per head */
    uint32_t qk_nope_head_dim;         /* non-rotary part of q/k per head */
    uint32_t v_head_dim;               /* value width per head */
    /* ---- local attention ---- */
    uint64_t sliding_window;           /* tokens; 0: no sliding window */
    uint32_t sliding_window_pattern;   /* layer i global iff (i+1)%p==0; 0: all slide */
    uint64_t attention_chunk_size;     /* chunked local attention (Llama 4); 0 */
    uint32_t attention_chunk_pattern;  /* layer i global iff (i+1)%p==0; 0: all chunked */
} kvb_model;

/**
 * Fill a model with defaults (all zero, arch GENERIC, dtype BF16) and set
 * struct_size.  KVB_MODEL_INIT(m) passes sizeof *(m).
 * @return KVB_OK, KVB_EINVAL (NULL) or KVB_EABI (unknown struct_size).
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_model_init(kvb_model *model, size_t struct_size);
#define KVB_MODEL_INIT(m) kvb_model_init((m), sizeof *(m))

/**
 * Check every field of a model: non-zero sizes, heads divisible by KV
 * heads, MoE and MLA fields consistent, every product within uint64_t.
 * @return KVB_OK, or KVB_EINVAL / KVB_ERANGE / KVB_EOVERFLOW naming the
 *         field; details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_model_validate(const kvb_model *model, kvb_error *err);

/**
 * Parameter counts from the tensor inventory: every weight, bias and norm.
 * @param[out] total   all stored parameters (every expert).
 * @param[out] active  parameters used per token (routed experts counted
 *                     num_experts_per_tok times); may be NULL.
 * @return KVB_OK or a validation status; details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_model_param_count(const kvb_model *model, uint64_t *total,
                                 uint64_t *active, kvb_error *err);

/** The name of a family ("llama", "qwen3_moe"); NULL for unknown values. */
KVB_API
const char *kvb_arch_name(int arch);

/**
 * Look a family up by name or Hugging Face model_type, case-insensitively
 * ("llama", "qwen2", "deepseek_v3", "gpt_oss").
 * @return KVB_OK or KVB_ENOTFOUND; details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_arch_find(const char *name, int32_t *arch, kvb_error *err);

/** The name of a dtype ("bf16"); NULL for unknown values. @since 0.1 */
KVB_API
const char *kvb_dtype_name(int dtype);

/**
 * Look a dtype up by name ("auto", "fp16", "float16", "bf16", "bfloat16",
 * "fp32", "float32", "fp8", "fp8_e4m3"), case-insensitively.
 * @return KVB_OK or KVB_ENOTFOUND; details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_dtype_find(const char *name, int32_t *dtype, kvb_error *err);

/* ---------------------------------------------------------------------- */
/* Quantization                                                           */
/* ---------------------------------------------------------------------- */

/** How the weights are stored.  Names in kvb_quant_method_name(). */
typedef enum kvb_quant_method {
    KVB_QUANT_AUTO = 0,   /* unquantized, in the model's dtype */
    KVB_QUANT_FP32 = 1,   /* every weight FP32 */
    KVB_QUANT_FP16 = 2,   /* every weight FP16 */
    KVB_QUANT_BF16 = 3,   /* every weight BF16 */
    KVB_QUANT_FP8 = 4,    /* W8: linears e4m3 + FP32 scales; rest 16-bit */
    KVB_QUANT_GPTQ_8 = 5, /* GPTQ 8-bit, group_size, g_idx */
    KVB_QUANT_GPTQ_4 = 6, /* GPTQ 4-bit, group_size, g_idx */
    KVB_QUANT_AWQ_4 = 7,  /* AWQ GEMM 4-bit, group_size */
    KVB_QUANT_Q8_0 = 8,   /* GGUF Q8_0 */
    KVB_QUANT_Q6_K = 9,   /* GGUF Q6_K */
    KVB_QUANT_Q5_K_M = 10, /* GGUF Q5_K_M mix */
    KVB_QUANT_Q4_K_M = 11, /* GGUF Q4_K_M mix */
    KVB_QUANT_Q4_0 = 12,  /* GGUF Q4_0 */
    KVB_QUANT_BNB_4 = 13, /* bitsandbytes NF4, block 64 */
    KVB_QUANT_MXFP4 = 14, /* MXFP4 experts (gpt-oss); rest 16-bit */
    KVB_QUANT_LAST_       /* never use */
} kvb_quant_method;

/** FP8 weight-scale granularity (kvb_quant.fp8_scale). */
typedef enum kvb_fp8_scale {
    KVB_FP8_SCALE_TENSOR = 0,   /* one FP32 scale per linear */
    KVB_FP8_SCALE_CHANNEL = 1,  /* one FP32 scale per output row */
    KVB_FP8_SCALE_BLOCK128 = 2, /* one FP32 scale per 128x128 block */
    KVB_FP8_SCALE_LAST_         /* never use */
} kvb_fp8_scale;

/* ---- Quantization flags (kvb_quant.flags) ---- */
#define KVB_QUANT_DESC_ACT (1u << 0)     /* GPTQ act-order (size unchanged) */
#define KVB_QUANT_BNB_NO_DOUBLE (1u << 1) /* bnb without double quantization */
#define KVB_QUANT_FLAGS_ALL_ ((1u << 2) - 1u) /* never use */

/**
 * A quantization scheme and the runtime dtypes.  Defaults: method AUTO,
 * group_size 128, dtype AUTO, kv_cache_dtype AUTO.
 */
typedef struct kvb_quant {
    size_t struct_size;
    int32_t method;         /* kvb_quant_method */
    uint32_t group_size;    /* AWQ/GPTQ group; 0: one group per row (-1 in HF) */
    int32_t dtype;          /* kvb_dtype of activations and unquantized
                               weights (vLLM --dtype); AUTO: model dtype */
    int32_t kv_cache_dtype; /* kvb_dtype of the KV cache; AUTO: dtype */
    int32_t fp8_scale;      /* kvb_fp8_scale for method FP8 */
    uint32_t flags;         /* KVB_QUANT_* bits */
} kvb_quant;

/**
 * Fill a quantization scheme with its defaults and set struct_size.
 * @return KVB_OK, KVB_EINVAL or KVB_EABI.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_quant_init(kvb_quant *quant, size_t struct_size);
#define KVB_QUANT_INIT(q) kvb_quant_init((q), sizeof *(q))

/** Method name as the command spells it ("awq-4"); NULL if unknown. */
KVB_API
const char *kvb_quant_method_name(int method);

/**
 * A short quality note for a method, for advice ("minimal loss",
 * "slight degradation on complex reasoning").  Never NULL.
 * @since 0.1
 */
KVB_API
const char *kvb_quant_method_note(int method);

/**
 * Look a method up, case-insensitively, by its name or a common spelling
 * ("awq", "awq4", "gptq-4", "Q4_K_M", "fp8", "bnb-4").
 * @return KVB_OK or KVB_ENOTFOUND; details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_quant_method_find(const char *name, int32_t *method,
                                 kvb_error *err);

/* ---------------------------------------------------------------------- */
/* Tensor inventory and weights                                           */
/* ---------------------------------------------------------------------- */

/** What a weight tensor does. */
typedef enum kvb_tensor_role {
    KVB_ROLE_EMBED = 0,       /* token embedding */
    KVB_ROLE_POS_EMBED = 1,   /* learned positional embedding */
    KVB_ROLE_LM_HEAD = 2,     /* output projection */
    KVB_ROLE_NORM = 3,        /* norm weight or bias */
    KVB_ROLE_ATTN_Q = 4,
    KVB_ROLE_ATTN_K = 5,
    KVB_ROLE_ATTN_V = 6,
    KVB_ROLE_ATTN_QKV = 7,    /* fused q, k, v */
    KVB_ROLE_ATTN_O = 8,
    KVB_ROLE_MLA_Q_A = 9,     /* MLA q down-projection */
    KVB_ROLE_MLA_Q_B = 10,    /* MLA q up-projection */
    KVB_ROLE_MLA_KV_A = 11,   /* MLA kv down-projection (with rope part) */
    KVB_ROLE_MLA_KV_B = 12,   /* MLA kv up-projection */
    KVB_ROLE_MLP_GATE = 13,
    KVB_ROLE_MLP_UP = 14,
    KVB_ROLE_MLP_GATE_UP = 15, /* fused gate and up */
    KVB_ROLE_MLP_DOWN = 16,
    KVB_ROLE_ROUTER = 17,     /* MoE router */
    KVB_ROLE_EXPERT_GATE = 18, /* stacked routed experts */
    KVB_ROLE_EXPERT_UP = 19,
    KVB_ROLE_EXPERT_DOWN = 20,
    KVB_ROLE_SHARED_GATE = 21, /* shared experts */
    KVB_ROLE_SHARED_UP = 22,
    KVB_ROLE_SHARED_DOWN = 23,
    KVB_ROLE_BIAS = 24,       /* bias of a linear */
    KVB_ROLE_SINKS = 25,      /* attention sinks */
    KVB_ROLE_ROUTER_BIAS = 26, /* router bias or score-correction bias */
    KVB_ROLE_SHARED_EXPERT_GATE = 27, /* shared-expert gate */
    KVB_ROLE_LAST_            /* never use */
} kvb_tensor_role;

/** How a tensor is stored (kvb_tensor.storage). */
typedef enum kvb_storage {
    KVB_STORAGE_F32 = 0,
    KVB_STORAGE_F16 = 1,
    KVB_STORAGE_BF16 = 2,
    KVB_STORAGE_FP8 = 3,      /* e4m3 plus FP32 scales */
    KVB_STORAGE_AWQ_4 = 4,    /* qweight + qzeros + scales */
    KVB_STORAGE_GPTQ_4 = 5,   /* qweight + qzeros + scales + g_idx */
    KVB_STORAGE_GPTQ_8 = 6,
    KVB_STORAGE_BNB_4 = 7,    /* NF4 + absmax */
    KVB_STORAGE_MXFP4 = 8,    /* 32-element blocks + E8M0 scales */
    KVB_STORAGE_Q4_0 = 9,     /* GGML block types */
    KVB_STORAGE_Q4_1 = 10,
    KVB_STORAGE_Q5_0 = 11,
    KVB_STORAGE_Q5_1 = 12,
    KVB_STORAGE_Q8_0 = 13,
    KVB_STORAGE_Q4_K = 14,
    KVB_STORAGE_Q5_K = 15,
    KVB_STORAGE_Q6_K = 16,
    KVB_STORAGE_LAST_         /* never use */
} kvb_storage;

/** How tensor parallelism splits a tensor (kvb_tensor.split). */
typedef enum kvb_split {
    KVB_SPLIT_REPLICATED = 0, /* every rank holds all of it */
    KVB_SPLIT_COLUMN = 1,     /* output rows split across ranks */
    KVB_SPLIT_ROW = 2,        /* input columns split across ranks */
    KVB_SPLIT_VOCAB = 3,      /* vocabulary rows split (padded to 64) */
    KVB_SPLIT_KV_HEADS = 4,   /* KV heads split, replicated past their count */
    KVB_SPLIT_LAST_           /* never use */
} kvb_split;

/** One weight tensor of the inventory. */
typedef struct kvb_tensor {
    size_t struct_size;
    char name[96];     /* Hugging Face name: "model.layers.0.mlp.down_proj.weight" */
    int32_t role;      /* kvb_tensor_role */
    int32_t layer;     /* decoder layer, or -1 */
    uint64_t experts;  /* experts stacked in this tensor; 1 otherwise */
    uint64_t rows;     /* out_features (embedding: vocabulary) */
    uint64_t cols;     /* in_features (1 for vectors) */
    uint64_t params;   /* experts x rows x cols */
    uint64_t bytes;    /* stored bytes under the quantization scheme */
    int32_t storage;   /* kvb_storage */
    int32_t split;     /* kvb_split */
} kvb_tensor;

/**
 * Number of tensors in the model's inventory (routed experts of one layer
 * form one stacked tensor per projection, as engines allocate them).
 * @return KVB_OK or a validation status; details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_model_tensor_count(const kvb_model *model, size_t *count,
                                  kvb_error *err);

/**
 * Tensor `index` of the inventory, with its bytes under `quant` (NULL:
 * unquantized model dtype).  Order: embeddings, layers in order, final
 * norm, lm_head.
 * @return KVB_OK, KVB_ERANGE (index past the end), or a validation status.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_model_tensor_get(const kvb_model *model, const kvb_quant *quant,
                                size_t index, kvb_tensor *tensor,
                                kvb_error *err);

/** Weights of a model under a quantization scheme. */
typedef struct kvb_weights {
    size_t struct_size;
    uint64_t param_count;        /* all stored parameters */
    uint64_t active_param_count; /* parameters used per token */
    uint64_t bytes;              /* the checkpoint's tensor bytes */
    uint64_t bytes_per_gpu;      /* the busiest rank under TP x PP */
    uint64_t quantized_params;   /* parameters stored in the quantized format */
} kvb_weights;

/**
 * Weights bytes: total and on the busiest GPU when split by tensor_parallel
 * x pipeline_parallel ranks the way vLLM splits them (column/row/vocab
 * splits, KV heads replicated past their count, embeddings on the first
 * stage and lm_head on the last).
 * @return KVB_OK, a validation status, KVB_EUNSUPPORTED (a tensor the
 *         format cannot store, e.g. AWQ on in_features not divisible by the
 *         group size); details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_weights_compute(const kvb_model *model, const kvb_quant *quant,
                               uint32_t tensor_parallel_size,
                               uint32_t pipeline_parallel_size,
                               kvb_weights *out, kvb_error *err);
#define KVB_WEIGHTS_INIT(w) kvb_weights_init((w), sizeof *(w))
KVB_API KVB_NODISCARD
kvb_status kvb_weights_init(kvb_weights *w, size_t struct_size);

/**
 * KV-cache bytes per token.  MHA/GQA layers store K and V:
 * 2 x KV heads x head_dim x dtype bytes; MLA layers store one latent:
 * (kv_lora_rank + qk_rope_head_dim) x dtype bytes.  Sliding and chunked
 * layers are counted as full layers here (this is the per-token rate, not
 * the capacity).
 * @param[out] whole    all layers, unsplit.
 * @param[out] per_gpu  on the busiest rank: KV heads / TP, at least one
 *                      head per rank (replicated past their count), the
 *                      layers of the largest pipeline stage.  May be NULL.
 * @return KVB_OK or a validation status; details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_kv_bytes_per_token(const kvb_model *model,
                                  const kvb_quant *quant,
                                  uint32_t tensor_parallel_size,
                                  uint32_t pipeline_parallel_size,
                                  uint64_t *whole, uint64_t *per_gpu,
                                  kvb_error *err);

/* ---------------------------------------------------------------------- */
/* GPU and serving                                                        */
/* ---------------------------------------------------------------------- */

/** A GPU model and how many of it are available. */
typedef struct kvb_gpu {
    size_t struct_size;
    char name[64];               /* "NVIDIA A10G" */
    uint64_t total_bytes;        /* per GPU, as cudaMemGetInfo reports it */
    uint32_t count;              /* GPUs available; default 1 */
    uint32_t compute_capability; /* major*10 + minor (90 = Hopper); 0 unknown */
    uint64_t free_bytes;         /* free at start, per GPU; 0: unknown */
    uint32_t multiprocessor_count; /* SMs; sizes the CUDA context; 0 unknown */
} kvb_gpu;

/**
 * Fill a GPU with defaults (count 1, everything else zero).
 * @return KVB_OK, KVB_EINVAL or KVB_EABI.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_gpu_init(kvb_gpu *gpu, size_t struct_size);
#define KVB_GPU_INIT(g) kvb_gpu_init((g), sizeof *(g))

/** Serving engines. */
typedef enum kvb_engine {
    KVB_ENGINE_VLLM = 0, /* vLLM */
    KVB_ENGINE_LAST_     /* never use */
} kvb_engine;

/** The accounting a plan used (kvb_plan.accounting). */
typedef enum kvb_accounting {
    KVB_ACCOUNTING_VLLM_V0 = 0,      /* V0 engine: "# GPU blocks" */
    KVB_ACCOUNTING_VLLM_V1 = 1,      /* V1 before 0.21: graphs outside budget */
    KVB_ACCOUNTING_VLLM_V1_021 = 2,  /* V1 from 0.21: graph estimate inside */
    KVB_ACCOUNTING_LAST_             /* never use */
} kvb_accounting;

/** "Work it out" value for the byte overrides in kvb_serving. */
#define KVB_AUTO_BYTES UINT64_MAX

/**
 * Serving settings, named as vLLM names them.  Zero means "the engine's
 * default" wherever the comment says so; kvb_plan reports the values used.
 */
typedef struct kvb_serving {
    size_t struct_size;
    int32_t engine;                 /* kvb_engine; default VLLM */
    uint32_t engine_version;        /* MAJOR*10000+MINOR*100+PATCH; 0: newest */
    double gpu_memory_utilization;  /* (0, 1]; 0: engine default (0.92 from
                                       vLLM 0.21, 0.9 before) */
    uint64_t max_model_len;         /* 0: model max_position_embeddings */
    uint32_t concurrency;           /* wanted sequences at max_model_len; 1 */
    uint32_t tensor_parallel_size;  /* 1 */
    uint32_t pipeline_parallel_size; /* 1 */
    uint32_t block_size;            /* tokens per KV block; 16 */
    uint32_t enforce_eager;         /* 1: no CUDA graphs */
    uint32_t max_num_seqs;          /* 0: engine default */
    uint64_t max_num_batched_tokens; /* 0: engine default */
    int32_t enable_chunked_prefill; /* -1: engine default; 0; 1 */
    uint32_t disable_hybrid_kv_cache; /* 1: every layer allocates full context */
    uint32_t enable_expert_parallel; /* 1: experts split across ranks */
    uint64_t kv_cache_memory_bytes; /* vLLM --kv-cache-memory; 0: unset */
    uint64_t cuda_context_bytes;    /* KVB_AUTO_BYTES: modelled (docs/model.md) */
    uint64_t non_torch_bytes;       /* KVB_AUTO_BYTES: modelled */
    uint64_t activation_bytes;      /* KVB_AUTO_BYTES: modelled */
    uint64_t cudagraph_bytes;       /* KVB_AUTO_BYTES: modelled */
    uint64_t weights_bytes;         /* the checkpoint's exact tensor bytes (a
                                       reader's figure); 0: from the
                                       inventory.  Split per GPU in the
                                       inventory's proportions. */
} kvb_serving;

/**
 * Fill serving settings with their defaults (vLLM, newest line, engine
 * default utilization, concurrency 1, TP 1, PP 1, block 16, every
 * measured term KVB_AUTO_BYTES).
 * @return KVB_OK, KVB_EINVAL or KVB_EABI.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_serving_init(kvb_serving *serving, size_t struct_size);
#define KVB_SERVING_INIT(s) kvb_serving_init((s), sizeof *(s))

/**
 * Parse an engine spec: "vllm", "vllm@0.11", "vllm@0.21.1", "vllm@latest".
 * @param[out] engine   kvb_engine.
 * @param[out] version  packed version; 0 for the newest.
 * @return KVB_OK, KVB_ENOTFOUND (unknown engine) or KVB_EINVAL (bad
 *         version); details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_engine_parse(const char *spec, int32_t *engine,
                            uint32_t *version, kvb_error *err);

/** Engine name ("vllm"); NULL if unknown. @since 0.1 */
KVB_API
const char *kvb_engine_name(int engine);

/** Accounting name ("vllm-v1-0.21"); NULL if unknown. @since 0.1 */
KVB_API
const char *kvb_accounting_name(int accounting);

/* ---------------------------------------------------------------------- */
/* Plan                                                                   */
/* ---------------------------------------------------------------------- */

/* Verdicts: XX(name, number, snake_case code, one-line reason). */
#define KVB_VERDICT_MAP(XX)                                                    \
    XX(FITS, 0, "fits", "the model fits with room for the wanted concurrency") \
    XX(WEIGHTS_EXCEED, 1, "weights_exceed_budget",                             \
       "the weights alone exceed the usable GPU memory")                       \
    XX(NO_KV_MEMORY, 2, "no_kv_cache_memory",                                  \
       "no memory is left for KV-cache blocks")                                \
    XX(MAX_LEN_EXCEEDS_KV, 3, "max_model_len_exceeds_kv_cache",                \
       "one request at max_model_len needs more KV cache than there is")       \
    XX(CONCURRENCY_EXCEEDS, 4, "concurrency_exceeds_capacity",                 \
       "the KV cache holds fewer full-length requests than wanted")            \
    XX(HEADROOM_TOO_SMALL, 5, "headroom_too_small",                            \
       "too little memory is left outside the budget (utilization too high)")  \
    XX(PARALLELISM_INVALID, 6, "parallelism_invalid",                          \
       "tensor/pipeline parallelism does not fit the heads or the GPUs")

/** Why a plan fits or not (kvb_plan.verdict). */
typedef enum kvb_verdict {
#define KVB__VERDICT_ENUM(name, num, code, text) KVB_VERDICT_##name = num,
    KVB_VERDICT_MAP(KVB__VERDICT_ENUM)
#undef KVB__VERDICT_ENUM
    KVB_VERDICT_LAST_ /* never use */
} kvb_verdict;

/** Stable snake_case code of a verdict ("fits"); NULL if unknown. */
KVB_API
const char *kvb_verdict_name(int verdict);

/** One-line reason of a verdict; NULL if unknown. @since 0.1 */
KVB_API
const char *kvb_verdict_reason(int verdict);

/** A capacity plan.  Per-GPU figures are for the busiest GPU. */
typedef struct kvb_plan {
    size_t struct_size;
    /* ---- settings as used ---- */
    int32_t engine;                   /* kvb_engine */
    uint32_t engine_version;          /* packed; 0: newest */
    int32_t accounting;               /* kvb_accounting */
    double gpu_memory_utilization;    /* as used */
    uint64_t gpu_total_bytes;         /* per GPU */
    uint32_t tensor_parallel_size;
    uint32_t pipeline_parallel_size;
    uint64_t max_model_len;           /* as used */
    uint32_t block_size;              /* as used */
    uint32_t max_num_seqs;            /* as used */
    uint64_t max_num_batched_tokens;  /* as used */
    uint32_t concurrency;             /* wanted */
    /* ---- model ---- */
    uint64_t param_count;
    uint64_t weights_bytes;           /* whole checkpoint */
    uint64_t weights_bytes_per_gpu;   /* as the engine holds it */
    /* ---- budget terms, per GPU ---- */
    uint64_t usable_bytes_per_gpu;    /* total x utilization (vLLM "requested") */
    uint64_t cuda_context_bytes_per_gpu; /* outside the budget */
    uint64_t non_torch_bytes_per_gpu; /* non-torch increase during profiling */
    uint64_t activation_bytes_per_gpu; /* torch peak increase during profiling */
    uint64_t cudagraph_bytes_per_gpu; /* CUDA-graph pool (0 when eager) */
    uint32_t cudagraph_in_budget;     /* 1: subtracted from the KV budget */
    uint64_t kv_budget_bytes_per_gpu; /* what is left for KV; 0 if negative */
    uint64_t kv_shortfall_bytes_per_gpu; /* how negative it was; else 0 */
    uint64_t headroom_bytes_per_gpu;  /* total - usable - context - graphs outside */
    uint64_t startup_free_bytes_per_gpu; /* free when the engine starts */
    /* ---- KV cache ---- */
    uint64_t kv_bytes_per_token;      /* whole model, unsplit */
    uint64_t kv_bytes_per_token_per_gpu;
    uint64_t block_bytes_per_gpu;     /* one block id across this GPU's layers */
    uint32_t kv_cache_groups;         /* vLLM KV-cache groups */
    uint64_t num_blocks;              /* per GPU (the minimum over ranks) */
    uint64_t max_kv_tokens;           /* as the engine reports its KV size */
    double max_concurrency;           /* at max_model_len, as the engine reports */
    uint64_t kv_needed_bytes_per_gpu; /* one request of max_model_len */
    uint64_t max_model_len_fit;       /* largest that fits one request; 0: none */
    /* ---- verdict ---- */
    uint32_t fits;                    /* 1 when verdict is FITS */
    int32_t verdict;                  /* kvb_verdict */
    char message[320];                /* one line: the verdict in numbers */
} kvb_plan;

/**
 * Fill a plan with zeros and set struct_size.
 * @return KVB_OK, KVB_EINVAL or KVB_EABI.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_plan_init(kvb_plan *plan, size_t struct_size);
#define KVB_PLAN_INIT(p) kvb_plan_init((p), sizeof *(p))

/**
 * The capacity plan: weights, every budget term, KV blocks and tokens,
 * concurrency, the largest max_model_len that fits and the verdict, the
 * way the engine's own start-up computes them (docs/model.md).  A plan
 * that does not fit is a result, not an error: the call returns KVB_OK and
 * plan->verdict says why.
 * @param[in]  model, quant, gpu, serving  the inputs (quant and serving
 *             may be NULL for their defaults).
 * @param[out] plan  the result.
 * @return KVB_OK, or KVB_EINVAL / KVB_ERANGE / KVB_EOVERFLOW / KVB_EABI /
 *         KVB_EUNSUPPORTED naming the field; details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_plan_compute(const kvb_model *model, const kvb_quant *quant,
                            const kvb_gpu *gpu, const kvb_serving *serving,
                            kvb_plan *plan, kvb_error *err);

/**
 * The engine's own text for a plan that fails (the ValueError vLLM raises
 * at start-up, worded as the plan's engine version words it), or an empty
 * string for a plan that fits.
 * @param[out] buf, cap  destination; always NUL-terminated when cap > 0.
 * @param[out] needed    bytes needed including the NUL; may be NULL.
 * @return KVB_OK or KVB_EBUFSIZE (truncated); details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_plan_engine_error(const kvb_plan *plan, char *buf, size_t cap,
                                 size_t *needed, kvb_error *err);

/* ---------------------------------------------------------------------- */
/* Presets                                                                */
/* ---------------------------------------------------------------------- */

/*
 * Built-in models, GPUs and cloud instances.  Rows are data, each with its
 * source; they are copied into the caller's struct.  Names are stable and
 * looked up case-insensitively; an alias row keeps an old name working.
 */

/** A cloud instance type. */
typedef struct kvb_instance {
    size_t struct_size;
    char name[64];           /* "g5.12xlarge" */
    char cloud[16];          /* "aws", "gcp", "azure" */
    char gpu_name[64];       /* a GPU preset name */
    uint32_t gpu_count;      /* GPUs in the instance */
    uint32_t vcpus;
    uint64_t host_memory_bytes;
    double price_per_hour;   /* USD on demand; 0: unknown */
} kvb_instance;

/** @since 0.1 */
KVB_API KVB_NODISCARD
kvb_status kvb_instance_init(kvb_instance *inst, size_t struct_size);
#define KVB_INSTANCE_INIT(i) kvb_instance_init((i), sizeof *(i))

/** Number of model presets. @since 0.1 */
KVB_API
size_t kvb_preset_model_count(void);
/** Name of model preset `index`; NULL past the end. @since 0.1 */
KVB_API
const char *kvb_preset_model_name(size_t index);
/** Source citation of model preset `index`; NULL past the end. @since 0.1 */
KVB_API
const char *kvb_preset_model_source(size_t index);
/**
 * Copy model preset `index` into *model, which the caller initialised with
 * KVB_MODEL_INIT (the same holds for every preset get/find below).
 * @return KVB_OK, KVB_ERANGE or KVB_EABI; details in *err.  @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_preset_model_get(size_t index, kvb_model *model, kvb_error *err);
/**
 * Find a model preset by name, case-insensitively.
 * @return KVB_OK or KVB_ENOTFOUND; details in *err.  @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_preset_model_find(const char *name, kvb_model *model,
                                 kvb_error *err);
/**
 * The published parameter count of model preset `index` (what its card or
 * its computed-from-config figure says), for checking the inventory.
 * @return KVB_OK or KVB_ERANGE.  @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_preset_model_published_params(size_t index, uint64_t *params,
                                             kvb_error *err);

/** Number of GPU presets. @since 0.1 */
KVB_API
size_t kvb_preset_gpu_count(void);
/** @since 0.1 */
KVB_API
const char *kvb_preset_gpu_name(size_t index);
/** @since 0.1 */
KVB_API
const char *kvb_preset_gpu_source(size_t index);
/** Copy GPU preset `index` (count 1). @since 0.1 */
KVB_API KVB_NODISCARD
kvb_status kvb_preset_gpu_get(size_t index, kvb_gpu *gpu, kvb_error *err);
/**
 * Find a GPU preset by name ("A10G", "NVIDIA H100 80GB HBM3", "h100"),
 * case-insensitively.  @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_preset_gpu_find(const char *name, kvb_gpu *gpu, kvb_error *err);

/** Number of instance presets. @since 0.1 */
KVB_API
size_t kvb_preset_instance_count(void);
/** @since 0.1 */
KVB_API
const char *kvb_preset_instance_name(size_t index);
/** @since 0.1 */
KVB_API
const char *kvb_preset_instance_source(size_t index);
/** @since 0.1 */
KVB_API KVB_NODISCARD
kvb_status kvb_preset_instance_get(size_t index, kvb_instance *inst,
                                   kvb_error *err);
/** Find an instance preset ("g5.12xlarge"), case-insensitively. @since 0.1 */
KVB_API KVB_NODISCARD
kvb_status kvb_preset_instance_find(const char *name, kvb_instance *inst,
                                    kvb_error *err);
/**
 * The GPU of an instance, with count set to its GPU count.
 * @return KVB_OK or KVB_ENOTFOUND (its GPU is not a preset).  @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_instance_gpu(const kvb_instance *inst, kvb_gpu *gpu,
                            kvb_error *err);

/* ---------------------------------------------------------------------- */
/* Advice                                                               */
/* ---------------------------------------------------------------------- */

/* (declarations of the advice stage go here: lib/advise.c) */

/* ---------------------------------------------------------------------- */
/* Logs (explain)                                                       */
/* ---------------------------------------------------------------------- */

/* (declarations of the log reader go here: lib/explain.c) */

/* ---------------------------------------------------------------------- */
/* Readers                                                              */
/* ---------------------------------------------------------------------- */

/* (declarations of the readers go here: lib/read_*.c) */

/* ---------------------------------------------------------------------- */
/* Probe and validate                                                   */
/* ---------------------------------------------------------------------- */

/* (declarations of the probe go here: lib/probe.c, lib/validate.c) */

/* ---------------------------------------------------------------------- */
/* Batch planning and struct layout                                     */
/* ---------------------------------------------------------------------- */

/* (declarations of the batch entry point and the layout report go here:
 * lib/batch.c, lib/layout.c) */

#ifdef __cplusplus
}
#endif

#endif /* KVBUDGET_H */
