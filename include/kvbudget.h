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
    KVB_ARCH_QWEN3_NEXT = 17, /* Qwen3-Next: Gated DeltaNet + attention (@since 0.2) */
    KVB_ARCH_NEMOTRON_H = 18, /* Nemotron-H, Nemotron 3: Mamba2 hybrid (@since 0.2) */
    KVB_ARCH_GRANITE_H = 19, /* Granite-4.0-H: Mamba2/attention + MoE (@since 0.2) */
    KVB_ARCH_GLM4_MOE = 20,  /* GLM-4.5, GLM-4.6: GQA + MoE (@since 0.2) */
    KVB_ARCH_JAMBA = 21,     /* Jamba: Mamba1/attention + MoE (@since 0.2) */
    KVB_ARCH_FALCON_H1 = 22, /* Falcon-H1: parallel attention + Mamba2 (@since 0.2) */
    KVB_ARCH_GEMMA3N = 23,   /* Gemma 3n: per-layer embeddings, AltUp, LAuReL,
                                KV sharing (@since 0.2) */
    KVB_ARCH_ZAMBA2 = 24,    /* Zamba2: Mamba2 + shared attention blocks (@since 0.2) */
    KVB_ARCH_MLLAMA = 25,    /* Llama 3.2 Vision: self + cross-attention layers (@since 0.2) */
    KVB_ARCH_GEMMA = 26,     /* Gemma (the first): Gemma-2B, Gemma-7B (@since 0.3) */
    KVB_ARCH_PHI = 27,       /* Phi-1.5, Phi-2: attention and MLP on one LayerNorm (@since 0.3) */
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
#define KVB_MODEL_ATTN_GATE (1u << 14)     /* q_proj also yields a sigmoid output gate (Qwen3-Next; @since 0.2) */
#define KVB_MODEL_SSM_NO_NORM (1u << 15)   /* Mamba2 mixers lack the gated RMSNorm (Falcon-H1 mamba_rms_norm false; @since 0.2) */
#define KVB_MODEL_SHARED_ATTN_ADAPTER (1u << 18) /* Zamba2: LoRA adapters on the shared q, k, v per invocation (use_shared_attention_adapter; @since 0.2) */
#define KVB_MODEL_LM_HEAD_BIAS (1u << 16) /* lm_head has a bias (Phi-2; @since 0.3) */
#define KVB_MODEL_FLAGS_ALL_ (((1u << 17) - 1u) | KVB_MODEL_SHARED_ATTN_ADAPTER) /* never use */

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
    /* ---- hybrid layers (@since 0.2; layer_pattern[0] == 0: every layer
     * is attention + MLP).  One character per layer, NUL-terminated:
     *   'A' attention + MLP/MoE      'G' Gated DeltaNet + MLP/MoE (Qwen3-Next)
     *   '*' attention only           'M' Mamba2 only
     *   '-' MLP only                 'E' MoE only (Nemotron-H blocks)
     *   'm' Mamba2 + MLP/MoE (Granite-4.0-H)
     *   'S' Mamba1 + MLP/MoE (Jamba)
     *   'P' attention and Mamba2 side by side, then an MLP (Falcon-H1):
     *       the layer holds KV per token and a Mamba2 state per request
     *   'X' cross-attention + MLP (mllama: q/k/v/o, q_norm and k_norm,
     *       tanh gates on attention and MLP; its K/V are the image
     *       tokens', kept per request)
     *   'Z' Zamba2 hybrid layer that stores a shared block: the shared
     *       attention + MLP block (its own KV cache), its LoRA adapters,
     *       a hidden x hidden linear, then a Mamba2 layer
     *   'z' the same, reusing a block stored at an earlier 'Z'
     * The ssm_* fields size both recurrent mixers: Mamba2 (heads =
     * mamba_num_heads, head_dim = mamba_head_dim, groups = n_groups,
     * state = ssm_state_size) and Gated DeltaNet (heads =
     * linear_num_value_heads, head_dim = linear_value_head_dim, groups =
     * linear_num_key_heads, state = linear_key_head_dim).  A Mamba1
     * mixer ('S') has one channel per head: heads = mamba_expand x
     * hidden_size, head_dim = 1, groups = 1, state = mamba_d_state, and
     * its dt_rank is ceil(hidden_size / 16).  Zamba2's shared blocks
     * ('Z', 'z') attend over concat(hidden, embeddings): q, k, v take
     * 2 x hidden_size inputs and head_dim is 2 x hidden_size / heads;
     * shared_blocks and adapter_rank size them. ---- */
    char layer_pattern[256];
    uint32_t ssm_num_heads;            /* recurrent heads (value heads) */
    uint32_t ssm_head_dim;             /* width of one head */
    uint32_t ssm_n_groups;             /* B/C groups (key heads) */
    uint32_t ssm_state_size;           /* state per head row (key head dim) */
    uint32_t ssm_conv_kernel;          /* causal conv width */
    int32_t ssm_state_dtype;           /* kvb_dtype of the SSM state; AUTO: model dtype */
    /* ---- RoPE scaling (config.json rope_scaling) @since 0.2 ---- */
    int32_t rope_scaling_type;         /* kvb_rope_scaling; NONE: no scaling */
    double rope_scaling_factor;        /* rope_scaling.factor; 0: none (1) */
    uint64_t original_max_position_embeddings; /* rope_scaling's (YaRN); 0 */
    /* ---- vision tower (@since 0.2; vision_kind NONE: text only).  The
     * encoder blocks, patch and position embeddings and the projector
     * into the language model, as each family's transformers modelling
     * file builds them (docs/model.md, "Multimodal towers"). ---- */
    int32_t vision_kind;               /* kvb_vision */
    uint32_t vision_num_layers;        /* encoder blocks (depth) */
    uint64_t vision_hidden_size;       /* encoder width */
    uint64_t vision_intermediate_size; /* encoder MLP width */
    uint32_t vision_num_heads;         /* encoder attention heads */
    uint32_t vision_patch_size;        /* pixels per patch side */
    uint32_t vision_image_size;        /* pixels per image side; 0: dynamic */
    uint32_t vision_spatial_merge;     /* patches merged per side; 0: none */
    uint64_t vision_out_hidden_size;   /* projector width (Qwen out_hidden_size,
                                          Llama 4 projector dim); 0: hidden */
    uint32_t vision_position_rows;     /* learned positions (Qwen3-VL); 0 */
    uint32_t vision_deepstack;         /* Qwen3-VL deepstack mergers; 0 */
    /* ---- DeepSeek sparse attention (DeepSeek-V3.2) @since 0.2; 0: none.
     * Each MLA layer also has a lightning indexer: wq_b (index_n_heads x
     * index_head_dim rows from q_lora_rank), wk (index_head_dim rows),
     * k_norm (a LayerNorm) and weights_proj (index_n_heads rows), and
     * each token keeps an indexer key per layer. ---- */
    uint32_t index_n_heads;            /* indexer query heads */
    uint32_t index_head_dim;           /* indexer head width */
    uint32_t index_topk;               /* tokens each query attends to */
    /* ---- mllama's tiled tower (@since 0.2; 0 for other towers) ---- */
    uint32_t vision_global_layers;     /* gated global encoder layers */
    uint32_t vision_max_tiles;         /* tiles per image (max_num_tiles) */
    uint32_t vision_aspect_ratios;     /* supported_aspect_ratios entries */
    /* ---- Zamba2 shared blocks (@since 0.2; 0: none).  The first
     * shared_blocks hybrid layers ('Z') store the blocks, used round-robin
     * by every hybrid layer ('Z' and 'z'); each invocation has its own
     * MLP adapter (and q/k/v adapters with KVB_MODEL_SHARED_ATTN_ADAPTER)
     * of rank adapter_rank. ---- */
    uint32_t shared_blocks;            /* num_mem_blocks */
    uint32_t adapter_rank;             /* adapter_rank of the LoRA adapters */
    /* ---- Gemma 3n (@since 0.2; all 0 for other families), as
     * transformers' Gemma3nTextConfig names them (docs/model.md,
     * "Gemma 3n"). ---- */
    uint32_t num_kv_shared_layers;     /* the last N layers reuse the KV of
                                          an earlier layer and cache none */
    uint32_t hidden_size_per_layer_input; /* per-layer embedding width */
    uint64_t vocab_size_per_layer_input; /* per-layer embedding rows */
    uint32_t altup_num_inputs;         /* AltUp streams (4) */
    uint32_t laurel_rank;              /* LAuReL low-rank width (64) */
    /* ---- Gemma 3n audio tower (@since 0.2; vision_kind GEMMA3N): a USM
     * Conformer, Gemma3nAudioConfig's fields. ---- */
    uint32_t audio_num_layers;         /* conf_num_hidden_layers */
    uint32_t audio_num_heads;          /* conf_num_attention_heads */
    uint64_t audio_hidden_size;        /* Conformer width */
    uint32_t audio_conv_kernel;        /* conf_conv_kernel_size */
    uint32_t audio_input_features;     /* input_feat_size (mel bins) */
    uint32_t audio_sscp_channels_1;    /* sscp_conv_channel_size[0] */
    uint32_t audio_sscp_channels_2;    /* sscp_conv_channel_size[1] */
    uint32_t mm_embed_vocab_size;      /* hard tokens of each modality
                                          embedder (vision and audio) */
} kvb_model;

/**
 * The family of a model's vision tower (kvb_model.vision_kind): each builds
 * its encoder and projector differently.
 * @since 0.2
 */
typedef enum kvb_vision {
    KVB_VISION_NONE = 0,       /* text only */
    KVB_VISION_SIGLIP = 1,     /* Gemma 3: SigLIP + soft-embedding projector */
    KVB_VISION_QWEN2_5_VL = 2, /* Qwen2.5-VL: RMSNorm ViT, SwiGLU, merger */
    KVB_VISION_QWEN3_VL = 3,   /* Qwen3-VL: LayerNorm ViT + deepstack mergers */
    KVB_VISION_PIXTRAL = 4,    /* Mistral 3: Pixtral encoder + patch merger */
    KVB_VISION_LLAMA4 = 5,     /* Llama 4: ViT + pixel-shuffle adapter */
    KVB_VISION_MLLAMA = 6,     /* Llama 3.2 Vision: tiled ViT, gated global layers (@since 0.2) */
    KVB_VISION_GEMMA3N = 7,    /* Gemma 3n: MobileNetV5 (timm's count), USM
                                  Conformer audio tower, two embedders
                                  (@since 0.2) */
    KVB_VISION_LAST_           /* never use */
} kvb_vision;

/**
 * The rope_scaling type (rope_type or type) of a config.json.  vLLM's
 * default max_model_len follows it (docs/model.md, section 4).
 * @since 0.2
 */
typedef enum kvb_rope_scaling {
    KVB_ROPE_NONE = 0,     /* no rope_scaling, or "default" */
    KVB_ROPE_LINEAR = 1,   /* "linear" */
    KVB_ROPE_DYNAMIC = 2,  /* "dynamic" (NTK) */
    KVB_ROPE_YARN = 3,     /* "yarn" */
    KVB_ROPE_LONGROPE = 4, /* "longrope" (Phi-3 long context) */
    KVB_ROPE_SU = 5,       /* "su" (the earlier name of longrope) */
    KVB_ROPE_LLAMA3 = 6,   /* "llama3" (Llama 3.1 and later) */
    KVB_ROPE_OTHER = 7,    /* any other type with a factor ("mrope" ...) */
    KVB_ROPE_LAST_         /* never use */
} kvb_rope_scaling;

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

/** The name of a family ("llama", "qwen3_moe"); NULL for unknown values. @since 0.1 */
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
    /* since 0.2 */
    KVB_QUANT_W4A16 = 15,     /* compressed-tensors pack-quantized int4,
                                 symmetric: int32-packed weights + 16-bit
                                 scale per group_size (0: per channel) */
    KVB_QUANT_W8A8_INT8 = 16, /* int8 weights + FP32 scales (fp8_scale) */
    KVB_QUANT_NVFP4 = 17,     /* FP4 e2m1 + FP8 scale per 16 + FP32 global */
    KVB_QUANT_BNB_8 = 18,     /* bitsandbytes LLM.int8: int8 + FP32 per row */
    KVB_QUANT_Q2_K = 19,      /* GGUF Q2_K mix */
    KVB_QUANT_Q3_K_S = 20,    /* GGUF Q3_K_S mix */
    KVB_QUANT_Q3_K_M = 21,    /* GGUF Q3_K_M mix */
    KVB_QUANT_Q3_K_L = 22,    /* GGUF Q3_K_L mix */
    KVB_QUANT_Q4_K_S = 23,    /* GGUF Q4_K_S mix */
    KVB_QUANT_Q5_K_S = 24,    /* GGUF Q5_K_S mix */
    KVB_QUANT_Q5_0 = 25,      /* GGUF Q5_0 */
    KVB_QUANT_Q5_1 = 26,      /* GGUF Q5_1 */
    KVB_QUANT_IQ4_XS = 27,    /* GGUF IQ4_XS mix (made with an imatrix) */
    KVB_QUANT_IQ4_NL = 28,    /* GGUF IQ4_NL mix (made with an imatrix) */
    KVB_QUANT_IQ3_M = 29,     /* GGUF IQ3_M mix (IQ3_S base) */
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
    uint64_t keep_roles;    /* bit (1 << kvb_tensor_role): tensors of that
                               role stay unquantized (in dtype; FP16 for
                               AWQ/GPTQ), as a checkpoint's ignore /
                               modules_to_not_convert / exclude_modules
                               list says; 0: the format's own rule.
                               Ignored by the GGUF mixes; kvb_fix_apply()
                               clears it with a new method (@since 0.2) */
} kvb_quant;

/**
 * Fill a quantization scheme with its defaults and set struct_size.
 * @return KVB_OK, KVB_EINVAL or KVB_EABI.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_quant_init(kvb_quant *quant, size_t struct_size);
#define KVB_QUANT_INIT(q) kvb_quant_init((q), sizeof *(q))

/** Method name as the command spells it ("awq-4"); NULL if unknown. @since 0.1 */
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
    KVB_ROLE_SSM_IN = 28,     /* Mamba2 in_proj; Gated DeltaNet in_proj_qkvz (@since 0.2) */
    KVB_ROLE_SSM_IN_BA = 29,  /* Gated DeltaNet in_proj_ba (@since 0.2) */
    KVB_ROLE_SSM_CONV = 30,   /* causal conv1d weight (@since 0.2) */
    KVB_ROLE_SSM_HEAD = 31,   /* per-head A_log, D, dt_bias (@since 0.2) */
    KVB_ROLE_SSM_OUT = 32,    /* out_proj of a recurrent mixer (@since 0.2) */
    KVB_ROLE_VISION = 33,     /* a vision- or audio-tower or projector tensor (@since 0.2) */
    KVB_ROLE_INDEXER_WQ_B = 34, /* sparse-attention indexer wq_b (@since 0.2) */
    KVB_ROLE_INDEXER_WK = 35,   /* sparse-attention indexer wk (@since 0.2) */
    KVB_ROLE_INDEXER_WEIGHTS = 36, /* indexer weights_proj (@since 0.2) */
    KVB_ROLE_PLE_EMBED = 40,  /* Gemma 3n per-layer token embedding (@since 0.2) */
    KVB_ROLE_PLE = 41,        /* Gemma 3n per-layer-input projections and gates (@since 0.2) */
    KVB_ROLE_ALTUP = 42,      /* Gemma 3n AltUp projections, router, coefficients (@since 0.2) */
    KVB_ROLE_LAUREL = 43,     /* Gemma 3n LAuReL low-rank residual (@since 0.2) */
    KVB_ROLE_ADAPTER_A = 46,  /* LoRA adapter down-projection (Zamba2; @since 0.2) */
    KVB_ROLE_ADAPTER_B = 47,  /* LoRA adapter up-projection (Zamba2; @since 0.2) */
    KVB_ROLE_HYBRID_LINEAR = 48, /* Zamba2 per-hybrid-layer linear (@since 0.2) */
    KVB_ROLE_CROSS_GATE = 50,  /* a cross-attention layer's scalar tanh gate (mllama; @since 0.2) */
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
    /* since 0.2 */
    KVB_STORAGE_INT4_PACKED = 17, /* int32-packed int4 + 16-bit group scales
                                     + int64[2] weight_shape */
    KVB_STORAGE_INT8 = 18,    /* int8 plus FP32 scales (as FP8) */
    KVB_STORAGE_NVFP4 = 19,   /* e2m1 + e4m3 per 16 + two FP32 scalars */
    KVB_STORAGE_BNB_8 = 20,   /* int8 + FP32 SCB per row */
    KVB_STORAGE_Q2_K = 21,
    KVB_STORAGE_Q3_K = 22,
    KVB_STORAGE_IQ4_XS = 23,
    KVB_STORAGE_IQ4_NL = 24,
    KVB_STORAGE_IQ3_S = 25,
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

/**
 * Fill a weights result with zeros and set struct_size.
 * KVB_WEIGHTS_INIT(w) passes sizeof *(w).
 * @return KVB_OK, KVB_EINVAL or KVB_EABI.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_weights_init(kvb_weights *w, size_t struct_size);
#define KVB_WEIGHTS_INIT(w) kvb_weights_init((w), sizeof *(w))

/**
 * KV-cache bytes per token.  MHA/GQA layers store K and V:
 * 2 x KV heads x head_dim x dtype bytes; MLA layers store one latent:
 * (kv_lora_rank + qk_rope_head_dim) x dtype bytes, plus, with a
 * sparse-attention indexer (index_n_heads > 0, DeepSeek-V3.2), its key in
 * FP8 with a 4-byte scale per 128: index_head_dim + index_head_dim / 128
 * x 4 bytes, as vLLM 0.11.0's DeepseekV32IndexerCache.  Sliding and chunked
 * layers are counted as full layers here (this is the per-token rate, not
 * the capacity).  mllama's cross-attention layers ('X') count too, as vLLM
 * V0 pages every layer per block; the image tokens they keep per request
 * (max_num_tiles x (patches + 1) per image) are not in this rate.
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

/** Serving engines (docs/engines.md says how each one sizes memory). */
typedef enum kvb_engine {
    KVB_ENGINE_VLLM = 0,      /* vLLM */
    KVB_ENGINE_SGLANG = 1,    /* SGLang (@since 0.2) */
    KVB_ENGINE_LLAMA_CPP = 2, /* llama.cpp's llama-server (@since 0.2) */
    KVB_ENGINE_OLLAMA = 3,    /* Ollama, over llama.cpp (@since 0.2) */
    KVB_ENGINE_TRTLLM = 4,    /* NVIDIA TensorRT-LLM (@since 0.2) */
    KVB_ENGINE_TGI = 5,       /* Hugging Face TGI (@since 0.2) */
    KVB_ENGINE_LAST_          /* never use */
} kvb_engine;

/** The accounting a plan used (kvb_plan.accounting). */
typedef enum kvb_accounting {
    KVB_ACCOUNTING_VLLM_V0 = 0,      /* V0 engine: "# GPU blocks" */
    KVB_ACCOUNTING_VLLM_V1 = 1,      /* V1 before 0.21: graphs outside budget */
    KVB_ACCOUNTING_VLLM_V1_021 = 2,  /* V1 from 0.21: graph estimate inside */
    KVB_ACCOUNTING_SGLANG = 3,       /* mem_fraction_static (@since 0.2) */
    KVB_ACCOUNTING_LLAMA_CPP = 4,    /* n_ctx cells, layer offload (@since 0.2) */
    KVB_ACCOUNTING_OLLAMA = 5,       /* Ollama's layer placement (@since 0.2) */
    KVB_ACCOUNTING_TRTLLM_PYTORCH = 6, /* PyTorch backend (@since 0.2) */
    KVB_ACCOUNTING_TRTLLM_ENGINE = 7, /* TensorRT engine files (@since 0.2) */
    KVB_ACCOUNTING_TGI = 8,          /* warm-up at max prefill (@since 0.2) */
    KVB_ACCOUNTING_LAST_             /* never use */
} kvb_accounting;

/** "Work it out" value for the byte overrides in kvb_serving. */
#define KVB_AUTO_BYTES UINT64_MAX

/** kvb_serving.n_gpu_layers: every layer on the GPUs (llama.cpp -ngl 999).
 * @since 0.2 */
#define KVB_ALL_LAYERS UINT32_MAX

/**
 * Serving settings, named as vLLM names them; each other engine's flags
 * map onto them (SGLang --mem-fraction-static and TensorRT-LLM's
 * kv_cache_free_gpu_mem_fraction onto gpu_memory_utilization, llama.cpp
 * -np onto max_num_seqs, TGI --num-shard onto tensor_parallel_size ...:
 * docs/engines.md has the table), and the fields from data_parallel_size
 * on are the settings only some engines have.  Zero means "the engine's
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
    uint32_t block_size;            /* tokens per KV block (vLLM block, SGLang
                                       page, TRT-LLM tokens_per_block); 0:
                                       engine default (16 for vLLM) */
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
    uint64_t loaded_weights_bytes;  /* the weights per GPU as the engine
                                       measured them (vLLM's "Model loading
                                       took"), replacing the modelled load
                                       overhead; 0: modelled */
    /* ---- @since 0.2: what only some engines have ---- */
    int32_t accounting;             /* -1: the engine's own choice for its
                                       version; else a kvb_accounting to
                                       force (vllm-v0@0.8.3, VLLM_USE_V1) */
    uint32_t data_parallel_size;    /* replicas of the model (vLLM
                                       --data-parallel-size, SGLang --dp); 1 */
    uint32_t enable_dp_attention;   /* SGLang --enable-dp-attention */
    uint32_t cuda_graph_max_bs;     /* SGLang --cuda-graph-max-bs; 0: default */
    uint64_t context_size;          /* llama.cpp -c / Ollama num_ctx: n_ctx,
                                       all slots together; 0: default */
    uint32_t n_gpu_layers;          /* llama.cpp -ngl; KVB_ALL_LAYERS: all
                                       (default) */
    uint32_t n_cpu_moe;             /* llama.cpp --n-cpu-moe: layers whose
                                       experts stay in host RAM */
    uint32_t ubatch_size;           /* llama.cpp -ub; 0: default (512) */
    int32_t cache_type_k;           /* kvb_storage of llama.cpp's K cache
                                       (-ctk: F16, Q8_0, Q4_0 ...); -1: F16 */
    int32_t cache_type_v;           /* the same for V (-ctv) */
    int32_t flash_attn;             /* -1: auto (default); 0 off; 1 on */
    uint32_t swa_full;              /* llama.cpp --swa-full */
    uint32_t kv_unified;            /* llama.cpp --kv-unified */
    int32_t backend;                /* an engine's variant: TensorRT-LLM 0
                                       PyTorch (default), 1 TensorRT engine */
    uint64_t max_total_tokens;      /* the token pool, when set: SGLang
                                       --max-total-tokens, TGI
                                       --max-batch-total-tokens; 0: derived */
    uint64_t max_input_tokens;      /* TGI --max-input-tokens; 0: default */
    uint64_t gpu_overhead_bytes;    /* per GPU, held back (OLLAMA_GPU_OVERHEAD) */
    uint64_t host_memory_bytes;     /* host RAM for offloaded layers; 0:
                                       unknown (not checked) */
    uint32_t gpus_per_node;         /* 0: all of gpu.count on one node */
    /* ---- multimodal (@since 0.2) ---- */
    uint32_t mm_disabled;           /* KVB_MM_* modalities limited to 0 (vLLM
                                       --limit-mm-per-prompt, all of them
                                       with --language-model-only) */
    int32_t mm_encoder_tp_mode;     /* vLLM --mm-encoder-tp-mode: 0 weights
                                       (the tower split like the decoder),
                                       1 data (whole on every rank) */
    /* ---- llama.cpp's mmproj (@since 0.2) ---- */
    uint32_t mmproj;                /* KVB_MMPROJ_* bits; 0: the engine's
                                       default (llama.cpp loads no tower,
                                       Ollama loads it) */
    int32_t mmproj_type;            /* kvb_storage of the mmproj file's
                                       matrices (F16, BF16, F32, Q8_0 ...);
                                       -1: F16 */
} kvb_serving;

/** kvb_serving.mm_disabled bits. @since 0.2 */
#define KVB_MM_IMAGE 1u
#define KVB_MM_VIDEO 2u
#define KVB_MM_AUDIO 4u
#define KVB_MM_ALL   7u

/** kvb_serving.mmproj bits: llama.cpp loads a model's vision tower only
 * from a separate mmproj GGUF.  @since 0.2 */
#define KVB_MMPROJ_LOAD 1u /* --mmproj FILE */
#define KVB_MMPROJ_NONE 2u /* --no-mmproj: never loaded (wins) */
#define KVB_MMPROJ_CPU  4u /* --no-mmproj-offload: in host RAM */
#define KVB_MMPROJ_HF   8u /* -hf: the repository's own mmproj, if any */
#define KVB_MMPROJ_ALL  15u

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

/**
 * Set serving->engine, engine_version and accounting from an engine spec:
 * "vllm", "vllm@0.8.5", "vllm-v0@0.8.3" (forces the V0 engine, as
 * VLLM_USE_V1=0 does), "vllm-v1@0.7.3", "sglang@0.5.2", "llama.cpp",
 * "ollama", "trtllm", "tgi@3.3".
 * @return KVB_OK, KVB_ENOTFOUND or KVB_EINVAL; details in *err.
 * @since 0.2
 */
KVB_API KVB_NODISCARD
kvb_status kvb_serving_engine_set(kvb_serving *serving, const char *spec,
                                  kvb_error *err);

/** Engine name ("vllm"); NULL if unknown. @since 0.1 */
KVB_API
const char *kvb_engine_name(int engine);

/**
 * Whether this build plans for an engine: 1 when kvb_plan_compute() models
 * it, 0 for a kvb_engine value it does not (yet) model or an unknown one.
 * Iterate 0 .. while kvb_engine_name() is not NULL to list them.
 * @since 0.2
 */
KVB_API
int kvb_engine_available(int engine);

/**
 * An engine's version as its users write it: "0.8.5" (vLLM, SGLang,
 * Ollama, TensorRT-LLM, TGI), "b6123" (llama.cpp build numbers);
 * "newest" for 0.  Truncated to cap - 1 characters.
 * @param engine   a kvb_engine.
 * @param version  packed, as kvb_serving.engine_version.
 * @return KVB_OK, KVB_EINVAL (buf NULL or cap 0) or KVB_ERANGE (engine
 *         unknown); details in *err.
 * @since 0.2
 */
KVB_API KVB_NODISCARD
kvb_status kvb_engine_version_format(int engine, uint32_t version, char *buf,
                                     size_t cap, kvb_error *err);

/** Accounting name ("vllm-v1-0.21"); NULL if unknown. @since 0.1 */
KVB_API
const char *kvb_accounting_name(int accounting);

/* ---------------------------------------------------------------------- */
/* Engine command lines                                                   */
/* ---------------------------------------------------------------------- */

/** What an engine's command line says besides the serving settings. */
typedef struct kvb_command {
    size_t struct_size;
    int32_t engine;          /* kvb_engine the command runs */
    uint32_t engine_version; /* packed; 0: the command does not say */
    char program[64];        /* how it was started: "vllm serve",
                                "python3 -m sglang.launch_server" */
    char model[512];         /* the model as given (--model, -m,
                                --model-path, --model-id, positional) */
    char quantization[32];   /* --quantization / --quantize as given; "" */
    char dtype[16];          /* --dtype as given; "" */
    char kv_cache_dtype[16]; /* --kv-cache-dtype as given; "" */
    char ignored[512];       /* the engine's flags the plan does not use,
                                ", "-joined (truncated with "...") */
    char warning[512];       /* what was assumed ("; "-joined); "" */
} kvb_command;

/**
 * Fill a command with defaults (engine -1, everything else empty).
 * @return KVB_OK, KVB_EINVAL or KVB_EABI.
 * @since 0.2
 */
KVB_API KVB_NODISCARD
kvb_status kvb_command_init(kvb_command *cmd, size_t struct_size);
#define KVB_COMMAND_INIT(c) kvb_command_init((c), sizeof *(c))

/**
 * Read an engine's command line and environment into serving settings:
 * `vllm serve ORG/M --max-model-len 8192`, `python3 -m
 * vllm.entrypoints.openai.api_server --model M`, `python3 -m
 * sglang.launch_server --model-path M --tp 2`, `llama-server -m x.gguf -c
 * 8192 -ngl 99 -np 4`, `text-generation-launcher --model-id M
 * --num-shard 2`, `trtllm-serve M`, `ollama run M`.  Each engine's flags
 * under the names its users type, `--flag value` and `--flag=value`,
 * underscores where the engine accepts them, and the environment
 * variables the engine reads (VLLM_USE_V1, OLLAMA_NUM_PARALLEL, TGI's
 * MAX_TOTAL_TOKENS ...).  A flag the engine has but the plan does not use
 * is listed in cmd->ignored; one the engine does not have is an error
 * naming it (KVB_EINVAL, field "command").
 * @param argc, argv   the words as a shell splits them, argv[0] the
 *                     program; or flags alone when engine_hint names
 *                     the engine.
 * @param env          NULL, or a NULL-terminated "NAME=value" list.
 * @param engine_hint  -1: find the engine from argv; else a kvb_engine
 *                     whose flags argv holds (argv[0] may then be a flag).
 * @param[out] cmd     the engine, the model and what else the line says.
 * @param[in,out] serving  the settings the line sets are written; the
 *                     others are kept (start from kvb_serving_init).
 * @return KVB_OK, KVB_ENOTFOUND (not an engine's command), KVB_EINVAL /
 *         KVB_ERANGE naming the flag; details in *err.
 * @since 0.2
 */
KVB_API KVB_NODISCARD
kvb_status kvb_command_read(size_t argc, const char *const *argv,
                            const char *const *env, int32_t engine_hint,
                            kvb_command *cmd, kvb_serving *serving,
                            kvb_error *err);

/**
 * Split one shell string (a container's `sh -c "..."`, a pasted command)
 * into words as POSIX sh does for quotes and backslashes; no expansion,
 * `\<newline>` joins lines, and the words after the first of `;`, `&&`,
 * `||`, `|` or `&` are dropped (argc stops there).
 * @param[out] buf, cap  storage for the words (at most strlen(line) + 1
 *                       bytes are needed).
 * @param[out] argv      up to max_args pointers into buf.
 * @param[out] argc      words found.
 * @return KVB_OK, KVB_EINVAL (unterminated quote) or KVB_EBUFSIZE.
 * @since 0.2
 */
KVB_API KVB_NODISCARD
kvb_status kvb_command_split(const char *line, char *buf, size_t cap,
                             const char **argv, size_t max_args,
                             size_t *argc, kvb_error *err);

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

/** Stable snake_case code of a verdict ("fits"); NULL if unknown. @since 0.1 */
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
    /* ---- @since 0.2 ---- */
    uint32_t data_parallel_size;      /* as used */
    uint32_t nodes;                   /* nodes the GPUs of one replica span */
    uint32_t gpus_per_node;           /* GPUs used on each node */
    uint32_t layers_on_gpu;           /* layers held by the GPUs (llama.cpp
                                         -ngl); every layer for the others */
    uint32_t layers_total;            /* layers the engine places (llama.cpp
                                         counts the output layer too) */
    uint64_t kv_cache_bytes_per_gpu;  /* the KV cache the engine allocates
                                         on the busiest GPU */
    uint64_t compute_buffer_bytes_per_gpu; /* llama.cpp's compute buffer */
    uint64_t host_bytes;              /* weights and KV cache in host RAM */
    uint64_t max_total_tokens;        /* the engine's token pool as it logs
                                         it: SGLang max_total_num_tokens, TGI
                                         max_batch_total_tokens, TRT-LLM
                                         tokens in paged KV, llama.cpp n_ctx */
    uint64_t context_size;            /* llama.cpp n_ctx as used; else 0 */
    char warning[320];                /* what the plan assumed or could not
                                         model ("; "-joined); "" */
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

/**
 * Hints for a plan, one per line ('\n'-terminated), each re-planned where
 * it names a figure: GPUs that sit idle (gpu.count above TP x PP x DP,
 * with what tensor parallelism over them holds), a max_model_len left at
 * the model's maximum (and the concurrency at 8192 tokens), a utilization
 * that leaves under 256 MiB outside the budget next to the CUDA context,
 * and a format the GPU's compute capability cannot run (bfloat16 below
 * 8.0, FP8 weights below 8.0 or without FP8 compute below 8.9, AWQ/GPTQ
 * below 7.5, MXFP4 and an FP8 KV cache below 8.0).  "" when none applies.
 * @param[in]  model, quant, gpu, serving, plan  the inputs and their plan
 *             (quant and serving may be NULL).
 * @param[out] buf, cap  destination; always NUL-terminated when cap > 0.
 * @param[out] needed    bytes needed including the NUL; may be NULL.
 * @return KVB_OK, KVB_EBUFSIZE (truncated), KVB_EINVAL or KVB_EABI;
 *         details in *err.
 * @since 0.2
 */
KVB_API KVB_NODISCARD
kvb_status kvb_plan_hints(const kvb_model *model, const kvb_quant *quant,
                          const kvb_gpu *gpu, const kvb_serving *serving,
                          const kvb_plan *plan, char *buf, size_t cap,
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
 * Resolve a model name the way a user types it: a preset name or alias,
 * or a Hugging Face repository name, official or a common quantized
 * variant (Qwen/Qwen2.5-72B-Instruct-AWQ, RedHatAI/...-FP8-dynamic,
 * hugging-quants/...-AWQ-INT4, ...-GPTQ-Int4/Int8,
 * ...-quantized.w4a16/w8a8).  *quant gets the checkpoint's own format:
 * the preset's native one (gpt-oss MXFP4, DeepSeek-V3/R1 FP8 blocks) or
 * the one the name implies.  The one place that decides "is this a
 * preset?" for the command and the bindings.
 * @param[in]  name   what the user typed.
 * @param[out] model  the preset (initialised by KVB_MODEL_INIT).
 * @param[out] quant  its format (initialised by KVB_QUANT_INIT); may be NULL.
 * @param[out] note   what was resolved, for the output ("Qwen2.5-72B,
 *                    awq-4 from the repository name"); "" for an exact
 *                    preset in its native format; may be NULL.
 * @param[in]  note_cap  bytes at note.
 * @return KVB_OK, KVB_ENOTFOUND (the message says "did you mean X?" when
 *         a preset is close), KVB_EUNSUPPORTED (a format the name implies
 *         that this version cannot size, such as NVFP4); details in *err.
 * @since 0.2
 */
KVB_API KVB_NODISCARD
kvb_status kvb_preset_model_resolve(const char *name, kvb_model *model,
                                    kvb_quant *quant, char *note,
                                    size_t note_cap, kvb_error *err);
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
/*
 * Quantized checkpoints that exist (official and widely used AWQ, GPTQ
 * and FP8 repositories on Hugging Face), per model preset and weight
 * format, each with its source.  Remedies that change the weight format
 * name one (kvb_fix.checkpoint), since AWQ and GPTQ cannot be made on the
 * fly from the base repository.
 */

/** Number of checkpoint rows. @since 0.2 */
KVB_API
size_t kvb_preset_checkpoint_count(void);
/** Hugging Face repository of row `index` ("Qwen/Qwen2.5-72B-Instruct-AWQ");
 * static; NULL past the end. @since 0.2 */
KVB_API
const char *kvb_preset_checkpoint_name(size_t index);
/** Source citation of row `index`; NULL past the end. @since 0.2 */
KVB_API
const char *kvb_preset_checkpoint_source(size_t index);
/** Model preset of row `index`; NULL past the end. @since 0.2 */
KVB_API
const char *kvb_preset_checkpoint_model(size_t index);
/** kvb_quant_method of row `index`; -1 past the end. @since 0.2 */
KVB_API
int32_t kvb_preset_checkpoint_method(size_t index);
/**
 * Find the checkpoint of a model preset in a weight format.
 * @param[in]  model   a model preset name (case-insensitive).
 * @param[in]  method  a kvb_quant_method.
 * @param[out] index   the row, for the name and source functions.
 * @return KVB_OK, KVB_EINVAL (NULL) or KVB_ENOTFOUND (none known: the
 *         operator quantizes the model); details in *err.
 * @since 0.2
 */
KVB_API KVB_NODISCARD
kvb_status kvb_preset_checkpoint_find(const char *model, int32_t method,
                                      size_t *index, kvb_error *err);

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

/*
 * When a plan does not fit (or holds fewer requests than wanted),
 * kvb_advise() lists the changes an operator tries, in the order they are
 * tried: lower max_model_len, change gpu_memory_utilization, enforce
 * eager mode, an FP8 KV cache, those changes combined on the GPUs at hand,
 * a smaller weight format, tensor parallelism over more GPUs, a bigger
 * cloud instance.  Every candidate is
 * re-planned with kvb_plan_compute(), so each kvb_fix carries its
 * predicted outcome, and kvb_fix_render() turns it into the engine's
 * flags, a Kubernetes container `args:` block or a Karpenter NodePool
 * `requirements:` snippet.
 */

/* Kinds of fix: XX(name, number, snake_case code, what it changes). */
#define KVB_FIX_KIND_MAP(XX)                                                   \
    XX(MAX_MODEL_LEN, 0, "max_model_len", "lower --max-model-len")             \
    XX(UTILIZATION, 1, "gpu_memory_utilization",                               \
       "change --gpu-memory-utilization")                                      \
    XX(ENFORCE_EAGER, 2, "enforce_eager",                                      \
       "--enforce-eager: no CUDA graphs")                                      \
    XX(KV_CACHE_FP8, 3, "kv_cache_dtype_fp8",                                  \
       "--kv-cache-dtype fp8: half the KV bytes per token")                    \
    XX(QUANTIZE, 4, "quantization", "a smaller weight format")                 \
    XX(TENSOR_PARALLEL, 5, "tensor_parallel",                                  \
       "split the model over more GPUs (--tensor-parallel-size)")              \
    XX(INSTANCE, 6, "instance", "a bigger cloud instance")                     \
    XX(COMBINED, 7, "combined",                                                \
       "several changes together on the hardware at hand (@since 0.2)")

/** What a fix changes (kvb_fix.kind). */
typedef enum kvb_fix_kind {
#define KVB__FIX_KIND_ENUM(name, num, code, text) KVB_FIX_##name = num,
    KVB_FIX_KIND_MAP(KVB__FIX_KIND_ENUM)
#undef KVB__FIX_KIND_ENUM
    KVB_FIX_LAST_ /* never use */
} kvb_fix_kind;

/** Stable snake_case code of a fix kind ("max_model_len"); NULL if
 * unknown. @since 0.1 */
KVB_API
const char *kvb_fix_kind_name(int kind);

/** What a fix kind changes, in words; NULL if unknown. @since 0.1 */
KVB_API
const char *kvb_fix_kind_text(int kind);

/** How kvb_fix_render() writes a fix (its `format` argument). */
typedef enum kvb_render_format {
    KVB_RENDER_VLLM_ARGS = 0, /* one line of `vllm serve` flags */
    KVB_RENDER_K8S_ARGS = 1,  /* a container `args:` block (YAML) */
    KVB_RENDER_KARPENTER = 2, /* NodePool `requirements:` (instance fixes) */
    KVB_RENDER_LAST_          /* never use */
} kvb_render_format;

/** Limits of the search; kvb_advice_options_init() gives the defaults. */
typedef struct kvb_advice_options {
    size_t struct_size;
    char instance[64];        /* instance preset the GPUs belong to, or "":
                                 TP stays inside it, instance fixes move
                                 away from it */
    char cloud[16];           /* instance search: only this cloud; "": the
                                 instance's cloud, or every cloud */
    uint32_t max_instances;   /* cheapest instances to return; 3; 0..8 */
    uint32_t max_quant;       /* quantization candidates; 3; 0..8 */
    uint32_t max_gpus;        /* most GPUs of the same kind to suggest
                                 without an instance; 8; 1..1024 */
    double min_utilization;   /* floor when lowering utilization; 0.5 */
    double max_utilization;   /* ceiling when raising it; 0.95 */
    /* ---- @since 0.2 ---- */
    double max_price_per_hour; /* instance search: only instances at or
                                  below this USD price; 0: no limit */
    uint64_t measured_max_model_len; /* the engine's own estimate of the
                                  largest max_model_len on these inputs (a
                                  log's); 0: none.  Remedies that keep the
                                  GPUs, parallelism and formats propose at
                                  most this plus what their extra KV memory
                                  holds */
} kvb_advice_options;

/**
 * Fill advice options with their defaults and set struct_size.
 * KVB_ADVICE_OPTIONS_INIT(o) passes sizeof *(o).
 * @return KVB_OK, KVB_EINVAL (NULL) or KVB_EABI.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_advice_options_init(kvb_advice_options *options,
                                   size_t struct_size);
#define KVB_ADVICE_OPTIONS_INIT(o)                                             \
    kvb_advice_options_init((o), sizeof *(o))

/**
 * One remedy and its predicted outcome.  The input fields hold the
 * complete inputs after the change (not only what changed), so
 * kvb_fix_apply() followed by kvb_plan_compute() reproduces the outcome.
 * Every field is scalar or a fixed array; the struct has no nested
 * library structs, so it grows only at its end.
 */
typedef struct kvb_fix {
    size_t struct_size;
    int32_t kind;                    /* kvb_fix_kind */
    uint32_t fits;                   /* 1: the re-planned inputs fit */
    int32_t verdict;                 /* kvb_verdict of the re-plan */
    /* ---- the inputs after the change ---- */
    int32_t quant_method;            /* kvb_quant_method */
    int32_t kv_cache_dtype;          /* kvb_dtype */
    uint32_t enforce_eager;          /* 1: no CUDA graphs */
    double gpu_memory_utilization;   /* as the engine uses it */
    uint64_t max_model_len;          /* tokens, as the engine uses it */
    uint32_t tensor_parallel_size;
    uint32_t pipeline_parallel_size;
    char gpu_name[64];               /* "" for a GPU given only by size */
    uint64_t gpu_total_bytes;        /* per GPU */
    uint32_t gpu_count;
    uint32_t gpu_compute_capability; /* 0 unknown */
    uint32_t gpu_multiprocessor_count; /* 0 unknown */
    char instance[64];               /* instance preset, or "" */
    char cloud[16];                  /* its cloud ("aws"), or "" */
    double price_per_hour;           /* USD on demand; 0 unknown */
    /* ---- predicted outcome (kvb_plan fields of the re-plan) ---- */
    uint64_t weights_bytes;          /* whole checkpoint */
    uint64_t weights_bytes_per_gpu;
    uint64_t kv_budget_bytes_per_gpu;
    uint64_t max_kv_tokens;
    double max_concurrency;          /* at max_model_len */
    uint64_t max_model_len_fit;      /* largest that fits one request */
    char title[128];                 /* "lower --max-model-len to 8192" */
    char note[192];                  /* why, the trade-off, or why not */
    int32_t engine;                  /* kvb_engine whose flags render it
                                        (@since 0.2) */
    /* ---- @since 0.2 ---- */
    char checkpoint[128];            /* the quantized checkpoint to serve
                                        (a Hugging Face repository from
                                        kvb_preset_checkpoint_find), or "":
                                        the model's own (or quantized on the
                                        fly, or none is known: note says
                                        which tool makes one) */
    uint32_t changes;                /* KVB_FIX_CHANGE_* bits: what
                                        differs from the inputs */
    uint32_t gives_up;               /* KVB_FIX_COST_* bits: what it costs */
    uint32_t pareto;                 /* 1: no other fitting fix is at
                                        least as good on every cost and
                                        better on one (kvb_advise) */
    double price_per_gpu_hour;       /* USD per GPU per hour: the
                                        instance's, else the cheapest
                                        instance with this GPU; 0 unknown */
    double usd_per_million_tokens;   /* USD per million generated tokens
                                        at the wanted concurrency, from the
                                        price and the decode roofline (each
                                        step reads the weights and the
                                        batch's KV cache, half of
                                        max_model_len per request, at the
                                        GPU's memory bandwidth): a lower
                                        bound; 0 unknown */
} kvb_fix;

/* ---- What a fix changes (kvb_fix.changes), @since 0.2 ---- */
#define KVB_FIX_CHANGE_MAX_MODEL_LEN (1u << 0) /* --max-model-len */
#define KVB_FIX_CHANGE_UTILIZATION (1u << 1)   /* utilization */
#define KVB_FIX_CHANGE_EAGER (1u << 2)         /* --enforce-eager */
#define KVB_FIX_CHANGE_KV_DTYPE (1u << 3)      /* KV-cache dtype */
#define KVB_FIX_CHANGE_QUANT (1u << 4)         /* weight format */
#define KVB_FIX_CHANGE_PARALLEL (1u << 5)      /* TP or PP */
#define KVB_FIX_CHANGE_GPUS (1u << 6)          /* GPU model or count */
#define KVB_FIX_CHANGE_INSTANCE (1u << 7)      /* cloud instance */

/* ---- What a fix gives up (kvb_fix.gives_up), @since 0.2 ---- */
#define KVB_FIX_COST_CONTEXT (1u << 0)     /* a shorter max_model_len */
#define KVB_FIX_COST_CONCURRENCY (1u << 1) /* fewer requests than wanted
                                              at once */
#define KVB_FIX_COST_SPEED (1u << 2)       /* slower: eager mode (no CUDA
                                              graphs) */
#define KVB_FIX_COST_QUALITY (1u << 3)     /* lower precision: weights or
                                              KV cache */
#define KVB_FIX_COST_MONEY (1u << 4)       /* more or dearer GPUs */

/**
 * Fill a fix with zeros and set struct_size.  KVB_FIX_INIT(f) passes
 * sizeof *(f).
 * @return KVB_OK, KVB_EINVAL (NULL) or KVB_EABI.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_fix_init(kvb_fix *fix, size_t struct_size);
#define KVB_FIX_INIT(f) kvb_fix_init((f), sizeof *(f))

/** The most fixes one kvb_advise() call finds with options in range. */
#define KVB_ADVICE_MAX 32

/**
 * The remedies for a plan, in the order an operator tries them:
 *  1. KVB_FIX_MAX_MODEL_LEN: the largest max_model_len that fits, rounded
 *     down to a power of two or a multiple of 1024 (always listed; when
 *     no length fits, a non-fitting entry says why);
 *  2. KVB_FIX_UTILIZATION: lower utilization when headroom is the
 *     problem, raise it (up to max_utilization) when the KV cache is
 *     (always listed when a direction applies);
 *  3. KVB_FIX_ENFORCE_EAGER (always listed unless already eager);
 *  4. KVB_FIX_KV_CACHE_FP8 (listed only when it makes the plan fit);
 *  5. KVB_FIX_COMBINED (@since 0.2): changes combined on the GPUs at
 *     hand (FP8 or AWQ weights where the GPU runs them, tensor
 *     parallelism over the GPUs present, utilization up to
 *     max_utilization then lowered to the least that fits, eager, an FP8
 *     KV cache, and the longest friendly max_model_len that fits when the
 *     full one does not); only minimal combinations (none whose changes,
 *     apart from the length, include another fitting fix's with at least
 *     its context); the same weights first, then the full context, then
 *     fewer costs (speed before quality); at most 5, at most 3 of them
 *     keeping the weights when others fit;
 *  6. KVB_FIX_QUANTIZE: formats with fewer weight bytes than the current
 *     one, least aggressive first, each with kvb_quant_method_note() as
 *     its quality note and where its weights come from (a published
 *     checkpoint, kvb_fix.checkpoint, or the tool that makes one); the
 *     ones that fit, or else the smallest one;
 *  7. KVB_FIX_TENSOR_PARALLEL: the smallest tensor-parallel size that
 *     fits on the GPUs given, or, without an instance, on more GPUs of
 *     the same kind (up to max_gpus);
 *  8. KVB_FIX_INSTANCE: the cheapest instance of the same family as
 *     options.instance (the same GPU on the same cloud; title ends in
 *     "(same family)"), then the max_instances cheapest others, on
 *     options.cloud and at or under options.max_price_per_hour, each with
 *     the largest tensor-parallel size (its GPU count, then smaller powers
 *     of two) that fits; unknown prices sort last.
 * Every fix then gets changes, gives_up, price_per_gpu_hour, checkpoint
 * and pareto (1: it fits and no other fitting fix is at least as good on
 * context, concurrency, speed, quality and $/hour, and better on one).
 * With options.measured_max_model_len, fixes on the same GPUs, split and
 * weight format propose no more than it, rescaled by the KV memory they
 * add and the bytes per token they save.
 * A plan that already fits gets no fixes.  Changing TP, PP or the GPU
 * resets the measured overrides of serving (cuda_context, non_torch,
 * activation, cudagraph bytes) to KVB_AUTO_BYTES and
 * loaded_weights_bytes to 0; changing the quantization resets
 * serving.weights_bytes and loaded_weights_bytes to 0.
 * @param[in]  model, quant, gpu, serving  the inputs, as for
 *             kvb_plan_compute() (quant and serving may be NULL).
 * @param[in]  options  NULL for the defaults.
 * @param[out] fixes  array of `cap` fixes; fixes[0].struct_size must be
 *             set (KVB_FIX_INIT) and is used as the element size of the
 *             whole array; every element written gets its struct_size.
 *             May be NULL when cap is 0.
 * @param[out] count  the number of fixes found (at most KVB_ADVICE_MAX),
 *             even when more than cap.
 * @return KVB_OK, KVB_EBUFSIZE (more fixes than cap; the first cap are
 *         written), or a status of kvb_plan_compute() for bad inputs;
 *         details in *err.
 * @note Pure arithmetic: no I/O, no allocation.  Takes a few
 *       milliseconds, since every candidate is a full plan.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_advise(const kvb_model *model, const kvb_quant *quant,
                      const kvb_gpu *gpu, const kvb_serving *serving,
                      const kvb_advice_options *options, kvb_fix *fixes,
                      size_t cap, size_t *count, kvb_error *err);

/**
 * USD per million generated tokens of a fitting fix at `concurrency`
 * requests at once (capped at what its KV cache holds): the hourly price
 * (fix.price_per_hour for an instance, else fix.price_per_gpu_hour x
 * fix.gpu_count) over the decode roofline, where each step reads the
 * weights and the batch's KV cache (half of max_model_len per request) at
 * the GPU preset's memory bandwidth.  A lower bound on the real cost; the
 * same figure kvb_advise() writes to fix.usd_per_million_tokens.
 * @param[out] usd  0 when the fix does not fit, or its price or its GPU's
 *                  bandwidth is unknown.
 * @return KVB_OK, KVB_EINVAL (NULL) or KVB_EABI; details in *err.
 * @since 0.2
 */
KVB_API KVB_NODISCARD
kvb_status kvb_fix_cost(const kvb_fix *fix, uint32_t concurrency, double *usd,
                        kvb_error *err);

/**
 * Apply a fix to inputs: set the quantization method and KV-cache dtype
 * (a new method clears quant->keep_roles, the read checkpoint's list), the
 * GPU (name, total, count, compute capability, SMs; free_bytes is
 * reset to 0 when the GPU model changes) and the serving settings
 * (max_model_len, utilization, eager, TP, PP), with the resets that
 * kvb_advise() documents.  The caller then calls kvb_plan_compute().
 * @param[in]     fix  a fix from kvb_advise().
 * @param[in,out] quant, gpu, serving  the inputs given to kvb_advise().
 * @return KVB_OK, KVB_EINVAL (NULL) or KVB_EABI; details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_fix_apply(const kvb_fix *fix, kvb_quant *quant, kvb_gpu *gpu,
                         kvb_serving *serving, kvb_error *err);

/**
 * Write a fix as text: KVB_RENDER_VLLM_ARGS gives one line of
 * `vllm serve` flags (--model, --max-model-len, --gpu-memory-utilization,
 * and --tensor-parallel-size, --pipeline-parallel-size, --enforce-eager,
 * --quantization, --kv-cache-dtype where they apply; an AWQ, GPTQ or FP8
 * fix serves fix.checkpoint, or the model preset's published checkpoint
 * when fix.checkpoint is "", or for AWQ/GPTQ a local /models/ directory,
 * never the base repository with --quantization awq|gptq);
 * KVB_RENDER_K8S_ARGS the same flags as a container `args:` block;
 * KVB_RENDER_KARPENTER a NodePool `requirements:` snippet for an
 * instance: karpenter.k8s.aws/instance-family and instance-size on AWS,
 * node.kubernetes.io/instance-type elsewhere.
 * @param[in]  fix    the fix.
 * @param[in]  model  its model (for --model: model->name).
 * @param[in]  format a kvb_render_format.
 * @param[out] buf, cap  destination; always NUL-terminated when cap > 0.
 * @param[out] needed    bytes needed including the NUL; may be NULL.
 * @return KVB_OK, KVB_EBUFSIZE (truncated), KVB_ERANGE (unknown format),
 *         KVB_EINVAL (KARPENTER for a fix without an instance) or
 *         KVB_EABI; details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_fix_render(const kvb_fix *fix, const kvb_model *model,
                          int32_t format, char *buf, size_t cap,
                          size_t *needed, kvb_error *err);

/* ---------------------------------------------------------------------- */
/* Logs (explain)                                                       */
/* ---------------------------------------------------------------------- */

/*
 * kvb_log_parse() reads a serving log (kubectl logs --previous, a pasted
 * excerpt) into facts: which failure it shows, every figure the engine
 * printed with its unit normalised to bytes, and the settings it names.
 * kvb_log_inputs() turns the facts into planner inputs, and
 * kvb_log_explain() says in words what happened and what to do.
 * Recognised: torch.cuda.OutOfMemoryError (both wordings), vLLM's
 * max-seq-len ValueError (V0 and V1 wordings), "No available memory for
 * the cache blocks", the start-up free-memory error, and vLLM's
 * memory-profiling and KV-cache lines from 0.2 to 0.21+; SGLang's,
 * llama.cpp's, Ollama's, TensorRT-LLM's and TGI's start-up and
 * out-of-memory lines (docs/engines/), which name the log's engine
 * (facts.engine).  kvb_log_explain() words the failure and the remedies
 * in that engine's terms and flags.
 */

/* Failures: XX(name, number, snake_case code, one-line reason). */
#define KVB_LOG_FAILURE_MAP(XX)                                                \
    XX(NONE, 0, "none", "the log shows no start-up failure")                   \
    XX(CUDA_OOM, 1, "cuda_out_of_memory",                                      \
       "a CUDA allocation failed: torch.cuda.OutOfMemoryError")                \
    XX(MAX_LEN_EXCEEDS_KV, 2, "max_model_len_exceeds_kv_cache",                \
       "one request at max_model_len needs more KV cache than there is")       \
    XX(NO_KV_MEMORY, 3, "no_kv_cache_memory",                                  \
       "no memory was left for KV-cache blocks")                               \
    XX(STARTUP_FREE_MEMORY, 4, "startup_free_memory_too_low",                  \
       "less memory was free at start-up than the utilization asks for")

/** The failure a log shows (kvb_log_facts.failure). */
typedef enum kvb_log_failure {
#define KVB__LOG_FAILURE_ENUM(name, num, code, text) KVB_LOG_##name = num,
    KVB_LOG_FAILURE_MAP(KVB__LOG_FAILURE_ENUM)
#undef KVB__LOG_FAILURE_ENUM
    KVB_LOG_FAILURE_LAST_ /* never use */
} kvb_log_failure;

/** Stable snake_case code of a failure; NULL if unknown. @since 0.1 */
KVB_API
const char *kvb_log_failure_name(int failure);

/** One-line reason of a failure; NULL if unknown. @since 0.1 */
KVB_API
const char *kvb_log_failure_reason(int failure);

/** When an out-of-memory error happened (kvb_log_facts.oom_phase). */
typedef enum kvb_log_phase {
    KVB_LOG_PHASE_UNKNOWN = 0,  /* no start-up line before the error */
    KVB_LOG_PHASE_LOADING = 1,  /* while loading the weights */
    KVB_LOG_PHASE_PROFILE = 2,  /* weights loaded, during the memory profile */
    KVB_LOG_PHASE_CUDA_GRAPHS = 3, /* while capturing CUDA graphs */
    KVB_LOG_PHASE_SERVING = 4,  /* after the KV cache was allocated */
    KVB_LOG_PHASE_LAST_         /* never use */
} kvb_log_phase;

/** Name of a phase ("loading"); NULL if unknown. @since 0.1 */
KVB_API
const char *kvb_log_phase_name(int phase);

/*
 * Facts: XX(name, bit, snake_case code).  kvb_log_facts.present has bit
 * `1 << bit` set for every fact the log showed; the field of the same
 * name (lower case) holds it.
 */
#define KVB_LOG_FACT_MAP(XX)                                                   \
    XX(ENGINE_VERSION, 0, "engine_version")                                    \
    XX(ACCOUNTING, 1, "accounting")                                            \
    XX(MODEL, 2, "model")                                                      \
    XX(QUANTIZATION, 3, "quantization")                                        \
    XX(DTYPE, 4, "dtype")                                                      \
    XX(KV_CACHE_DTYPE, 5, "kv_cache_dtype")                                    \
    XX(MAX_MODEL_LEN, 6, "max_model_len")                                      \
    XX(GPU_MEMORY_UTILIZATION, 7, "gpu_memory_utilization")                    \
    XX(TENSOR_PARALLEL_SIZE, 8, "tensor_parallel_size")                        \
    XX(PIPELINE_PARALLEL_SIZE, 9, "pipeline_parallel_size")                    \
    XX(ENFORCE_EAGER, 10, "enforce_eager")                                     \
    XX(BLOCK_SIZE, 11, "block_size")                                           \
    XX(MAX_NUM_SEQS, 12, "max_num_seqs")                                       \
    XX(MAX_NUM_BATCHED_TOKENS, 13, "max_num_batched_tokens")                   \
    XX(GPU_NAME, 14, "gpu_name")                                               \
    XX(GPU_TOTAL_BYTES, 15, "gpu_total_bytes")                                 \
    XX(STARTUP_FREE_BYTES, 16, "startup_free_bytes")                           \
    XX(REQUESTED_BYTES, 17, "requested_bytes")                                 \
    XX(WEIGHTS_BYTES, 18, "weights_bytes")                                     \
    XX(CONSUMED_BYTES, 19, "consumed_bytes")                                   \
    XX(NON_TORCH_BYTES, 20, "non_torch_bytes")                                 \
    XX(ACTIVATION_BYTES, 21, "activation_bytes")                               \
    XX(CUDAGRAPH_BYTES, 22, "cudagraph_bytes")                                 \
    XX(KV_CACHE_BYTES, 23, "kv_cache_bytes")                                   \
    XX(GPU_BLOCKS, 24, "gpu_blocks")                                           \
    XX(CPU_BLOCKS, 25, "cpu_blocks")                                           \
    XX(KV_CACHE_TOKENS, 26, "kv_cache_tokens")                                 \
    XX(MAX_CONCURRENCY, 27, "max_concurrency")                                 \
    XX(KV_NEEDED_BYTES, 28, "kv_needed_bytes")                                 \
    XX(ESTIMATED_MAX_MODEL_LEN, 29, "estimated_max_model_len")                 \
    XX(OOM_TRIED_BYTES, 30, "oom_tried_bytes")                                 \
    XX(OOM_FREE_BYTES, 31, "oom_free_bytes")                                   \
    XX(OOM_IN_USE_BYTES, 32, "oom_in_use_bytes")                               \
    XX(OOM_GPU_INDEX, 33, "oom_gpu_index")                                     \
    XX(ENGINE, 34, "engine")                                                   \
    XX(MAX_TOTAL_TOKENS, 35, "max_total_tokens")                               \
    XX(CONTEXT_SIZE, 36, "context_size")                                       \
    XX(N_PARALLEL, 37, "n_parallel")                                           \
    XX(LAYERS_ON_GPU, 38, "layers_on_gpu")                                     \
    XX(LAYERS_TOTAL, 39, "layers_total")                                       \
    XX(COMPUTE_BUFFER_BYTES, 40, "compute_buffer_bytes")                       \
    XX(AVAILABLE_BYTES, 41, "available_bytes")

/** Bits of kvb_log_facts.present: KVB_LOG_HAS_<name>. */
enum {
#define KVB__LOG_FACT_BIT(name, bit, code) KVB_LOG_BIT_##name = bit,
    KVB_LOG_FACT_MAP(KVB__LOG_FACT_BIT)
#undef KVB__LOG_FACT_BIT
    KVB_LOG_BIT_LAST_ /* never use */
};
#define KVB_LOG_HAS(facts, name)                                               \
    (((facts)->present >> KVB_LOG_BIT_##name) & 1u)

/** Snake_case code of fact bit `bit` ("weights_bytes"); NULL if unknown.
 * @since 0.1 */
KVB_API
const char *kvb_log_fact_name(int bit);

/**
 * What a log shows.  Figures are per GPU, in bytes (the engine printed
 * GiB with two decimals, so they are exact to about 5 MiB; vLLM's "GB"
 * and "MB" labels are read as GiB and MiB, as vLLM meant them).  Where
 * the log prints a figure more than once (several workers, several
 * restarts), the last one counts.
 */
typedef struct kvb_log_facts {
    size_t struct_size;
    uint64_t present;               /* 1 << KVB_LOG_BIT_* per fact found */
    int32_t failure;                /* kvb_log_failure */
    int32_t oom_phase;              /* kvb_log_phase, for CUDA_OOM */
    int32_t accounting;             /* kvb_accounting the wording shows */
    uint32_t engine_version;        /* packed, as KVB_VERSION_NUMBER */
    char model[128];                /* as logged: "meta-llama/Llama-3.1-8B" */
    char quantization[32];          /* as logged: "awq", "fp8" */
    char dtype[16];                 /* "bfloat16" */
    char kv_cache_dtype[16];        /* "auto", "fp8" */
    char gpu_name[64];              /* "NVIDIA A10G" */
    uint64_t max_model_len;         /* tokens */
    double gpu_memory_utilization;
    uint32_t tensor_parallel_size;
    uint32_t pipeline_parallel_size;
    uint32_t enforce_eager;         /* 0 or 1 */
    uint32_t block_size;            /* tokens */
    uint32_t max_num_seqs;
    uint64_t max_num_batched_tokens;
    uint64_t gpu_total_bytes;       /* total_gpu_memory / "total capacity" */
    uint64_t startup_free_bytes;    /* free at start-up */
    uint64_t requested_bytes;       /* total x utilization */
    uint64_t weights_bytes;         /* model weights, per GPU */
    uint64_t consumed_bytes;        /* weights + non-torch (vLLM 0.21+) */
    uint64_t non_torch_bytes;
    uint64_t activation_bytes;      /* PyTorch activation peak */
    int64_t cudagraph_bytes;        /* CUDA-graph memory; may be negative */
    int64_t kv_cache_bytes;         /* KV budget; negative when short */
    uint64_t gpu_blocks;
    uint64_t cpu_blocks;
    uint64_t kv_cache_tokens;       /* tokens the KV cache holds */
    double max_concurrency;         /* at max_model_len */
    uint64_t kv_needed_bytes;       /* KV one max_model_len request needs */
    uint64_t estimated_max_model_len; /* vLLM's own estimate */
    uint64_t oom_tried_bytes;       /* "Tried to allocate" */
    uint64_t oom_free_bytes;        /* free when the allocation failed */
    uint64_t oom_in_use_bytes;      /* held by the process */
    uint32_t oom_gpu_index;         /* "GPU 0" */
    char failure_text[320];         /* the error, whitespace collapsed */
    char engine_line[160];          /* the line naming the engine version */
    /* ---- @since 0.2: the other engines' figures ---- */
    int32_t engine;                 /* kvb_engine whose lines these are */
    uint64_t max_total_tokens;      /* the token pool: SGLang "#tokens",
                                       TRT-LLM "Using N tokens in paged KV
                                       cache", TGI "max batch total tokens" */
    uint64_t context_size;          /* llama.cpp n_ctx */
    uint32_t n_parallel;            /* llama.cpp n_seq_max (slots) */
    uint32_t layers_on_gpu;         /* llama.cpp "offloaded N/M layers" */
    uint32_t layers_total;
    uint64_t compute_buffer_bytes;  /* llama.cpp "CUDA0 compute buffer" */
    uint64_t available_bytes;       /* free after the KV pool (SGLang
                                       "avail mem", TRT-LLM "available") */
} kvb_log_facts;

/**
 * Fill log facts with zeros (accounting -1) and set struct_size.
 * KVB_LOG_FACTS_INIT(f) passes sizeof *(f).
 * @return KVB_OK, KVB_EINVAL (NULL) or KVB_EABI.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_log_facts_init(kvb_log_facts *facts, size_t struct_size);
#define KVB_LOG_FACTS_INIT(f) kvb_log_facts_init((f), sizeof *(f))

/** The largest log kvb_log_parse() reads: 64 MiB. */
#define KVB_LOG_MAX_BYTES ((size_t)64 << 20)

/**
 * Read a log into facts.  Any bytes are accepted (binary garbage, NULs,
 * ANSI colours, lines wrapped anywhere); a log with nothing recognisable
 * gives present == 0 and failure NONE, not an error.
 * @param[in]  text, len  the log; need not be NUL-terminated.
 * @param[out] facts  initialised with KVB_LOG_FACTS_INIT.
 * @return KVB_OK, KVB_EINVAL (NULL), KVB_ELIMIT (len above
 *         KVB_LOG_MAX_BYTES), KVB_ENOMEM or KVB_EABI; details in *err.
 * @note Allocates a working copy of the text and frees it before
 *       returning.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_log_parse(const char *text, size_t len, kvb_log_facts *facts,
                         kvb_error *err);

/* ---- What kvb_log_inputs() could fill (its `known` bits) ---- */
#define KVB_LOG_KNOWN_MODEL (1u << 0)   /* a model preset matched */
#define KVB_LOG_KNOWN_QUANT (1u << 1)   /* quantization or dtype logged */
#define KVB_LOG_KNOWN_GPU (1u << 2)     /* the GPU total was logged */
#define KVB_LOG_KNOWN_SERVING (1u << 3) /* max_model_len was logged */

/**
 * Turn facts into planner inputs, changing only what the log shows and
 * leaving the rest as the caller set it:
 *  - model: the preset named by the logged model (aliases such as
 *    "meta-llama/Llama-3.1-8B-Instruct" match; so does the name with its
 *    organisation and a quantization suffix such as "-AWQ" or "-FP8"
 *    removed);
 *  - quant: the logged quantization ("awq" -> awq-4, "gptq" -> gptq-4,
 *    "fp8", "bitsandbytes" -> bnb-4), else the one the model name
 *    suggests; the logged dtype and kv_cache_dtype;
 *  - gpu: total_bytes from total_gpu_memory or the OOM's total capacity,
 *    and the GPU preset the log names, if any;
 *  - serving: the engine the lines are from (facts.engine) and its
 *    version as logged (for vLLM's lines without one, a version of the
 *    release line the wording shows: 0.7.0 for V0, 0.11.0 for V1 before
 *    0.21); max_model_len, the engine's memory fraction (vLLM
 *    gpu_memory_utilization, SGLang mem_fraction_static, TensorRT-LLM
 *    kv_cache_free_gpu_mem_fraction, TGI cuda_memory_fraction), TP, PP,
 *    eager, block size, batch limits; llama.cpp's and Ollama's context
 *    size, slots, layers on the GPU and cache type; and the measured
 *    terms the log printed as overrides (weights x TP x PP, non-torch,
 *    activation peak, CUDA graphs when not negative).
 * @param[in]     facts  from kvb_log_parse().
 * @param[in,out] model, quant, gpu, serving  initialised by the caller.
 * @param[out]    known  KVB_LOG_KNOWN_* bits; may be NULL.
 * @return KVB_OK, KVB_EINVAL (NULL) or KVB_EABI; details in *err.  A
 *         logged model that is not a preset is not an error: its bit
 *         stays clear.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_log_inputs(const kvb_log_facts *facts, kvb_model *model,
                          kvb_quant *quant, kvb_gpu *gpu,
                          kvb_serving *serving, uint32_t *known,
                          kvb_error *err);

/**
 * What the facts mean, in words: a first line naming the failure, the
 * figures that explain it, and what to do, derived from the facts alone
 * (for example the largest max_model_len the logged KV cache holds).
 * Lines end in '\n'.  For remedies re-planned for a model, use
 * kvb_log_inputs() and kvb_advise().
 * @param[out] buf, cap  destination; always NUL-terminated when cap > 0.
 * @param[out] needed    bytes needed including the NUL; may be NULL.
 * @return KVB_OK, KVB_EBUFSIZE (truncated), KVB_EINVAL or KVB_EABI;
 *         details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_log_explain(const kvb_log_facts *facts, char *buf, size_t cap,
                           size_t *needed, kvb_error *err);

/* ---------------------------------------------------------------------- */
/* Readers                                                              */
/* ---------------------------------------------------------------------- */

/*
 * Users rarely type layer counts: they have a model directory, a
 * config.json, or a .gguf file.  The readers turn those into a kvb_model
 * and a kvb_quant, and, where the file states the exact tensor sizes
 * (safetensors and GGUF headers), into the exact bytes of the weights:
 * pass kvb_read_info.weights_bytes to kvb_serving.weights_bytes and a plan
 * uses that figure instead of the estimate.
 *
 * The readers read headers only, never tensor data: a GGUF file truncated
 * after its tensor infos, or a model directory without its shards (the
 * index then gives metadata.total_size), still reads.
 *
 * Every reader treats its input as hostile: every length and count is
 * checked before use, nothing is allocated from an unchecked field, and a
 * bad file gives a status with kvb_error.field naming what was wrong,
 * kvb_error.line/column set for JSON (1-based) or kvb_error.offset set to
 * the byte offset in the file, and kvb_error.source naming the file.
 */

/* ---- Reader limits (exceeding one gives KVB_ELIMIT) ---- */
#define KVB_READ_MAX_JSON_BYTES (64u << 20)   /* config.json, index.json */
#define KVB_READ_MAX_JSON_DEPTH 64u           /* nesting of JSON values */
#define KVB_READ_MAX_ST_HEADER_BYTES 100000000u /* safetensors header (the
                                                 format's own limit) */
#define KVB_READ_MAX_TENSORS (1u << 20)       /* tensors in one file or index */
#define KVB_READ_MAX_SHARDS 4096u             /* safetensors files per model */
#define KVB_READ_MAX_GGUF_HEADER_BYTES (256u << 20) /* GGUF metadata + infos */
#define KVB_READ_MAX_GGUF_KV (1u << 20)       /* GGUF metadata pairs */
#define KVB_READ_MAX_GGUF_ARRAY (1u << 24)    /* elements of one GGUF array */
#define KVB_READ_MAX_GGUF_NESTING 4u          /* arrays of arrays */
#define KVB_READ_MAX_STRING (16u << 20)       /* one GGUF string, bytes */
#define KVB_READ_MAX_NAME 64u                 /* GGUF tensor name, with its
                                                 NUL (ggml's GGML_MAX_NAME) */

/** What a path or buffer held (kvb_read_info.format). */
typedef enum kvb_format {
    KVB_FORMAT_NONE = 0,              /* nothing read (weights: unknown) */
    KVB_FORMAT_CONFIG_JSON = 1,       /* Hugging Face config.json */
    KVB_FORMAT_SAFETENSORS = 2,       /* one .safetensors file */
    KVB_FORMAT_GGUF = 3,              /* a GGUF v2/v3 file */
    KVB_FORMAT_DIRECTORY = 4,         /* a model directory */
    KVB_FORMAT_SAFETENSORS_INDEX = 5, /* model.safetensors.index.json */
    KVB_FORMAT_LAST_                  /* never use */
} kvb_format;

/*
 * The fields a reader can set: XX(name, number, dotted field name).  Bit
 * (1 << number) of kvb_read_info.fields_from_file is set when the file
 * gave that field; fields it did not give keep the family's default (for
 * example tie_word_embeddings when the config omits it).  Append-only.
 */
#define KVB_READ_FIELD_MAP(XX)                                                 \
    XX(ARCH, 0, "model.arch")                                                  \
    XX(DTYPE, 1, "model.dtype")                                                \
    XX(FLAGS, 2, "model.flags")                                                \
    XX(NUM_HIDDEN_LAYERS, 3, "model.num_hidden_layers")                        \
    XX(HIDDEN_SIZE, 4, "model.hidden_size")                                    \
    XX(NUM_ATTENTION_HEADS, 5, "model.num_attention_heads")                    \
    XX(NUM_KEY_VALUE_HEADS, 6, "model.num_key_value_heads")                    \
    XX(HEAD_DIM, 7, "model.head_dim")                                          \
    XX(INTERMEDIATE_SIZE, 8, "model.intermediate_size")                        \
    XX(VOCAB_SIZE, 9, "model.vocab_size")                                      \
    XX(TIE_WORD_EMBEDDINGS, 10, "model.tie_word_embeddings")                   \
    XX(MAX_POSITION_EMBEDDINGS, 11, "model.max_position_embeddings")           \
    XX(POSITION_EMBEDDING_ROWS, 12, "model.position_embedding_rows")           \
    XX(NUM_EXPERTS, 13, "model.num_experts")                                   \
    XX(NUM_EXPERTS_PER_TOK, 14, "model.num_experts_per_tok")                   \
    XX(MOE_INTERMEDIATE_SIZE, 15, "model.moe_intermediate_size")               \
    XX(NUM_SHARED_EXPERTS, 16, "model.num_shared_experts")                     \
    XX(SHARED_EXPERT_INTERMEDIATE_SIZE, 17,                                    \
       "model.shared_expert_intermediate_size")                                \
    XX(FIRST_K_DENSE_REPLACE, 18, "model.first_k_dense_replace")               \
    XX(MOE_LAYER_STEP, 19, "model.moe_layer_step")                             \
    XX(KV_LORA_RANK, 20, "model.kv_lora_rank")                                 \
    XX(Q_LORA_RANK, 21, "model.q_lora_rank")                                   \
    XX(QK_ROPE_HEAD_DIM, 22, "model.qk_rope_head_dim")                         \
    XX(QK_NOPE_HEAD_DIM, 23, "model.qk_nope_head_dim")                         \
    XX(V_HEAD_DIM, 24, "model.v_head_dim")                                     \
    XX(SLIDING_WINDOW, 25, "model.sliding_window")                             \
    XX(SLIDING_WINDOW_PATTERN, 26, "model.sliding_window_pattern")             \
    XX(ATTENTION_CHUNK_SIZE, 27, "model.attention_chunk_size")                 \
    XX(ATTENTION_CHUNK_PATTERN, 28, "model.attention_chunk_pattern")           \
    XX(QUANT_METHOD, 29, "quant.method")                                       \
    XX(QUANT_GROUP_SIZE, 30, "quant.group_size")                               \
    XX(QUANT_FP8_SCALE, 31, "quant.fp8_scale")                                 \
    XX(QUANT_FLAGS, 32, "quant.flags")                                         \
    XX(WEIGHTS_BYTES, 33, "serving.weights_bytes")                             \
    XX(QUANT_KEEP_ROLES, 34, "quant.keep_roles")

/** Bit numbers of kvb_read_info.fields_from_file. */
typedef enum kvb_read_field {
#define KVB__READ_FIELD_ENUM(name, num, text) KVB_READ_FIELD_##name = num,
    KVB_READ_FIELD_MAP(KVB__READ_FIELD_ENUM)
#undef KVB__READ_FIELD_ENUM
    KVB_READ_FIELD_LAST_ /* never use */
} kvb_read_field;

/** What a reader found, besides the model: exact bytes and provenance. */
typedef struct kvb_read_info {
    size_t struct_size;
    int32_t format;            /* kvb_format of the path or buffer */
    int32_t weights_format;    /* kvb_format the exact bytes came from;
                                  NONE: the file does not say */
    uint64_t weights_bytes;    /* exact tensor bytes (every tensor the
                                  headers list, quantized parts included);
                                  0 when the file does not say */
    uint64_t tensor_count;     /* tensors counted in weights_bytes */
    uint64_t fields_from_file; /* bit (1 << KVB_READ_FIELD_*) per field the
                                  file set */
    uint64_t header_bytes;     /* header and metadata bytes parsed (never
                                  tensor data) */
    uint32_t shard_count;      /* safetensors files whose headers were read */
    uint32_t file_version;     /* GGUF version; 0 for other formats */
    uint32_t warning_count;    /* warnings; their text is in warning */
    char arch_name[64];        /* model_type or general.architecture, as the
                                  file spells it */
    char warning[256];         /* warnings joined by "; ", truncated; "" */
    /* ---- @since 0.2 ---- */
    uint32_t options;          /* in: KVB_READ_* option bits, set by the
                                  caller before the call (kept as given) */
} kvb_read_info;

/* ---- Reader options (kvb_read_info.options, @since 0.2) ---- */
/* A model_type the library does not know is refused (KVB_EUNSUPPORTED
 * naming model_type): its layer kinds and tensors are unknown.  With this
 * bit it is read as a Llama-shaped decoder from the standard fields, with
 * a warning (the command's --assume-llama). */
#define KVB_READ_ASSUME_LLAMA (1u << 0)
#define KVB_READ_OPTIONS_ALL_ ((1u << 1) - 1u) /* never use */

/**
 * Fill a read report with zeros and set struct_size.
 * KVB_READ_INFO_INIT(i) passes sizeof *(i).
 * @param[out] info  the report.
 * @param[in]  struct_size  sizeof(kvb_read_info) as the caller sees it.
 * @return KVB_OK, KVB_EINVAL (NULL) or KVB_EABI.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_read_info_init(kvb_read_info *info, size_t struct_size);
#define KVB_READ_INFO_INIT(i) kvb_read_info_init((i), sizeof *(i))

/**
 * Read a model from a path: a model directory (config.json plus
 * model.safetensors.index.json, model.safetensors or *.safetensors; or a
 * directory holding one .gguf), a config.json (a file named exactly
 * config.json also picks up the safetensors next to it), a .safetensors
 * file (with the config.json next to it), an index.json, or a .gguf file.
 * The format is found from the content, not the name.
 * @param[in]  path   file or directory.
 * @param[out] model  the architecture (initialised by KVB_MODEL_INIT);
 *                    its name is the file's model name or the file name.
 * @param[out] quant  the quantization scheme; may be NULL.
 * @param[out] info   exact weights, provenance, warnings; may be NULL.
 * @return KVB_OK, or KVB_EINVAL / KVB_EIO / KVB_EPARSE / KVB_EUNSUPPORTED /
 *         KVB_ELIMIT / KVB_ERANGE / KVB_EOVERFLOW / KVB_ENOMEM / KVB_EABI;
 *         details in *err (field, line/column or offset, source).
 * @note Reads headers only.  Allocates while reading and frees before it
 *       returns; nothing is kept.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_model_read(const char *path, kvb_model *model, kvb_quant *quant,
                          kvb_read_info *info, kvb_error *err);

/**
 * Read a Hugging Face config.json from memory: the standard fields, the
 * family's own spellings (text_config of multimodal configs, Llama 4 MoE
 * interleave and chunked attention, Gemma sliding-window patterns,
 * DeepSeek MLA and its indexer, gpt-oss, Falcon, OPT, GPT-NeoX; the
 * hybrids' layer kinds: Qwen3-Next, Nemotron-H, Granite-4.0-H, Jamba,
 * Falcon-H1, Zamba2; mllama's cross-attention layers; Gemma 3n; the
 * vision towers of docs/model.md), torch_dtype, and quantization_config
 * (awq, gptq, fp8, compressed-tensors, modelopt, mxfp4, bitsandbytes)
 * with its exclusion lists.  An unknown model_type is refused
 * (KVB_EUNSUPPORTED naming config.model_type) unless info->options has
 * KVB_READ_ASSUME_LLAMA, which reads it as a Llama-shaped decoder with a
 * warning; recurrent families that are not modelled are refused even
 * then.
 * @param[in]  json, len  the text (need not be NUL-terminated).
 * @param[out] model, quant, info  as kvb_model_read (quant, info may be
 *             NULL); info->weights_bytes stays 0.
 * @return KVB_OK, or KVB_EPARSE (malformed JSON, a missing standard field,
 *         a wrong type; line and column set), KVB_EUNSUPPORTED, KVB_ELIMIT,
 *         KVB_ERANGE; details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_config_parse(const char *json, size_t len, kvb_model *model,
                            kvb_quant *quant, kvb_read_info *info,
                            kvb_error *err);

/**
 * Exact tensor bytes of one safetensors file held in memory: the 8-byte
 * header length, then the JSON header (the tensor data may be absent).
 * Every dtype of the format is known (BOOL, F4, F6_E2M3, F6_E3M2, U8, I8,
 * F8_E5M2, F8_E4M3, F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ, I16, U16, F16,
 * BF16, I32, U32, F32, C64, F64, I64, U64); data_offsets must agree with
 * dtype x shape and tile the data without gaps, as the format requires.
 * @param[in]  buf, len  the start of the file.
 * @param[out] info  weights_bytes, tensor_count, header_bytes.
 * @return KVB_OK, or KVB_EPARSE (offset set), KVB_EUNSUPPORTED (unknown
 *         dtype), KVB_ELIMIT; details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_safetensors_parse(const void *buf, size_t len,
                                 kvb_read_info *info, kvb_error *err);

/**
 * Read a GGUF (v2 or v3) header from memory: metadata (every value type,
 * arrays and arrays of arrays included), then tensor infos.  The model
 * comes from general.architecture and the <arch>.* keys; the exact bytes
 * from each tensor's ggml type and shape (block sizes and bytes per block
 * of every ggml type); quant->method from general.file_type.  The buffer
 * may end right after the tensor infos.
 * @param[in]  buf, len  the start of the file.
 * @param[out] model, quant, info  as kvb_model_read.
 * @return KVB_OK, or KVB_EPARSE (bad magic, truncation, a removed ggml
 *         type; offset set), KVB_EUNSUPPORTED (GGUF v1, a newer version,
 *         big-endian, an unknown ggml type id), KVB_ELIMIT; details in
 *         *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_gguf_parse(const void *buf, size_t len, kvb_model *model,
                          kvb_quant *quant, kvb_read_info *info,
                          kvb_error *err);

/**
 * The dotted name of a reader field bit ("model.num_hidden_layers"), for
 * listing kvb_read_info.fields_from_file.
 * @param[in] field  a kvb_read_field value (a bit number).
 * @return a static string; NULL for unknown values.
 * @since 0.1
 */
KVB_API
const char *kvb_read_field_name(unsigned field);

/**
 * The name of a kvb_format ("config.json", "safetensors", "gguf",
 * "directory", "safetensors-index", "none").
 * @return a static string; NULL for unknown values.
 * @since 0.1
 */
KVB_API
const char *kvb_format_name(int format);

/* ---- Model references: the Hub, the Hugging Face cache, Ollama ---- */

/*
 * A model reference names a model where it lives, without a copy at hand:
 *
 *   ORG/REPO[@REVISION]            a Hugging Face repository
 *   ORG/REPO[@REVISION]:QUANT      its GGUF file of that quantization
 *                                  (llama.cpp's -hf convention)
 *   hf://ORG/REPO[@REVISION][/FILE][:QUANT]   the same, explicitly; FILE
 *                                  names one file (a .gguf)
 *   ollama://[HOST/][NAMESPACE/]NAME[:TAG]    a model in the local Ollama
 *                                  store
 *   an existing local path         as kvb_model_read
 *
 * A Hugging Face reference is read from, in order: the local Hugging Face
 * cache (models--ORG--REPO/refs/REV, snapshots/SHA/); then the Hub, unless
 * offline.  From the Hub only headers are read: config.json, the
 * safetensors index, and each shard's header by HTTP Range requests
 * (shards concurrently), or a GGUF header; never tensor data.
 * docs/readers.md lists the environment variables.
 */

/** Where a model reference was read from (kvb_ref_info.source). */
typedef enum kvb_ref_source {
    KVB_REF_SOURCE_NONE = 0,     /* nothing read */
    KVB_REF_SOURCE_PATH = 1,     /* a local file or folder */
    KVB_REF_SOURCE_HF_CACHE = 2, /* the local Hugging Face cache */
    KVB_REF_SOURCE_HUB = 3,      /* the Hugging Face Hub (HF_ENDPOINT) */
    KVB_REF_SOURCE_OLLAMA = 4,   /* the local Ollama store */
    KVB_REF_SOURCE_LAST_         /* never use */
} kvb_ref_source;

/* ---- kvb_ref_options.flags ---- */
#define KVB_REF_OFFLINE 0x1u     /* never the network (HF_HUB_OFFLINE=1
                                    sets it too) */
#define KVB_REF_NO_ENV 0x2u      /* ignore the environment: only the
                                    options struct (tests, sandboxes) */
#define KVB_REF_STORE_CACHE 0x4u /* store the whole small files read from
                                    the Hub (config.json, the index) in the
                                    Hugging Face cache */
#define KVB_REF_NO_CACHE 0x8u    /* do not look in the Hugging Face cache */

/** How to resolve a model reference.  Every pointer is the caller's and
 * is read during the call only; NULL takes the environment's value, then
 * the default. */
typedef struct kvb_ref_options {
    size_t struct_size;
    const char *hf_endpoint;   /* NULL: $HF_ENDPOINT, else
                                  https://huggingface.co */
    const char *hf_token;      /* NULL: $HF_TOKEN, else the token file
                                  ($HF_TOKEN_PATH, else $HF_HOME/token) */
    const char *hf_cache;      /* NULL: $HF_HUB_CACHE, else $HF_HOME/hub,
                                  else ~/.cache/huggingface/hub */
    const char *ollama_models; /* NULL: $OLLAMA_MODELS, else
                                  ~/.ollama/models */
    uint32_t flags;            /* KVB_REF_* */
    uint32_t max_parallel;     /* concurrent transfers, 1..64; default 8 */
    uint32_t max_retries;      /* retries of a 429, 5xx or transport
                                  error, 0..16; default 4 */
    uint32_t timeout_ms;       /* per request, 100..600000; default 30000 */
    uint32_t backoff_ms;       /* first retry's delay, doubled per retry
                                  (a longer Retry-After wins), 0..60000;
                                  default 500 */
} kvb_ref_options;

/** Where each figure of a reference read came from. */
typedef struct kvb_ref_info {
    size_t struct_size;
    int32_t source;          /* kvb_ref_source */
    uint32_t http_requests;  /* HTTP requests made (redirects and retries
                                included); 0 off the network */
    uint64_t http_bytes;     /* response body bytes received */
    char repo[128];          /* ORG/REPO, or Ollama's NAMESPACE/NAME */
    char revision[128];      /* the revision asked for ("main"), or the
                                Ollama tag */
    char commit[72];         /* the commit read (40 hex), or the Ollama
                                model blob's sha256 */
    char file[256];          /* the file the exact weights came from: the
                                index, model.safetensors, the (first) GGUF */
    char path[512];          /* the local folder or file read; "" for the
                                Hub */
    uint32_t file_count;     /* files whose headers were read */
    uint32_t split_count;    /* GGUF splits counted; 0 when not split */
    int64_t num_ctx;         /* Ollama params layer; -1 when absent */
    int64_t num_batch;       /* Ollama params layer; -1 when absent */
    int64_t num_gpu;         /* Ollama params layer; -1 when absent */
    int64_t num_predict;     /* Ollama params layer; -1 when absent */
    char params[512];        /* the Ollama params layer as read (JSON,
                                truncated); "" when none */
} kvb_ref_info;

/**
 * Fill reference options with their defaults and set struct_size.
 * KVB_REF_OPTIONS_INIT(o) passes sizeof *(o).
 * @param[out] opt  the options.
 * @param[in]  struct_size  sizeof(kvb_ref_options) as the caller sees it.
 * @return KVB_OK, KVB_EINVAL (NULL) or KVB_EABI.
 * @since 0.2
 */
KVB_API KVB_NODISCARD
kvb_status kvb_ref_options_init(kvb_ref_options *opt, size_t struct_size);
#define KVB_REF_OPTIONS_INIT(o) kvb_ref_options_init((o), sizeof *(o))

/**
 * Fill a reference report with zeros (the Ollama numbers with -1) and set
 * struct_size.  KVB_REF_INFO_INIT(i) passes sizeof *(i).
 * @param[out] where  the report.
 * @param[in]  struct_size  sizeof(kvb_ref_info) as the caller sees it.
 * @return KVB_OK, KVB_EINVAL (NULL) or KVB_EABI.
 * @since 0.2
 */
KVB_API KVB_NODISCARD
kvb_status kvb_ref_info_init(kvb_ref_info *where, size_t struct_size);
#define KVB_REF_INFO_INIT(i) kvb_ref_info_init((i), sizeof *(i))

/**
 * Read a model from a reference (see above): what kvb_model_read fills,
 * plus where it came from.
 * @param[in]  ref    the reference.
 * @param[in]  opt    options; NULL for the defaults and the environment.
 * @param[out] model, quant, info  as kvb_model_read (quant, info may be
 *             NULL).
 * @param[out] where  the source, repository, revision, commit and file,
 *             requests and bytes, Ollama's params; may be NULL.
 * @return KVB_OK, or KVB_EINVAL (a malformed reference; bad options),
 *         KVB_ENOTFOUND (no such repository, revision, file or
 *         quantization; offline and not cached), KVB_EIO (a gated or
 *         private repository without a token, named HF_TOKEN in the
 *         message; the network after its retries), KVB_EUNSUPPORTED (the
 *         Hub is not built in), KVB_ERANGE (an option out of range), and
 *         the statuses of kvb_model_read; details in *err.
 * @note Reads headers only; writes nothing unless KVB_REF_STORE_CACHE.
 *       Initialises and cleans up libcurl per call (reference-counted;
 *       thread-safe with libcurl >= 7.84).
 * @since 0.2
 */
KVB_API KVB_NODISCARD
kvb_status kvb_model_read_ref(const char *ref, const kvb_ref_options *opt,
                              kvb_model *model, kvb_quant *quant,
                              kvb_read_info *info, kvb_ref_info *where,
                              kvb_error *err);

/**
 * The name of a kvb_ref_source ("path", "hf-cache", "hub", "ollama",
 * "none").
 * @param[in] source  a kvb_ref_source value.
 * @return a static string; NULL for unknown values.
 * @since 0.2
 */
KVB_API
const char *kvb_ref_source_name(int source);

/**
 * Whether this library reads from the Hub (built with libcurl).
 * @return 1 when it does, 0 when not (the cache and Ollama still work).
 * @since 0.2
 */
KVB_API
unsigned kvb_hub_built(void);

/* ---------------------------------------------------------------------- */
/* Kubernetes manifests (check)                                           */
/* ---------------------------------------------------------------------- */

/*
 * kvb_check_manifest() reads Kubernetes YAML (one or many documents:
 * Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, Pod,
 * LeaderWorkerSet, KServe InferenceService / ServingRuntime /
 * ClusterServingRuntime, KubeAI Model, the values of vLLM's
 * production-stack chart, and Karpenter NodePools), finds every serving
 * container, reads its engine (from the image), its command line and
 * environment (through kvb_command_read()), its model, its GPUs
 * (nvidia.com/gpu limits) and the GPU type from the node it is scheduled
 * on (nodeSelector / node affinity on instance-type, Karpenter, GKE and
 * GPU-feature-discovery labels, a referenced NodePool), plans it and
 * writes the verdict, the reasons and the remedies (as patches) as JSON.
 * docs/check.md describes the JSON.
 */

/** What kvb_check_manifest() assumes where a manifest does not say. */
typedef struct kvb_check_options {
    size_t struct_size;
    char gpu[64];       /* GPU preset for pods whose node type is not
                           given ("A10G"); "" none */
    char instance[64];  /* instance preset likewise ("g5.xlarge"); "" */
    uint32_t max_fixes; /* remedies listed per container; 3; 0..32 */
} kvb_check_options;

/**
 * Fill check options with their defaults and set struct_size.
 * @return KVB_OK, KVB_EINVAL (NULL) or KVB_EABI.
 * @since 0.2
 */
KVB_API KVB_NODISCARD
kvb_status kvb_check_options_init(kvb_check_options *options,
                                  size_t struct_size);
#define KVB_CHECK_OPTIONS_INIT(o) kvb_check_options_init((o), sizeof *(o))

/**
 * Check the manifests in `text` and write the report as JSON:
 * {"deployments": [{"file", "document", "kind", "name", "container",
 * "line", "engine", "engine_version", "image", "model", "gpu",
 * "gpu_count", "verdict": "fits"|"fails"|"unknown", "reasons", "plan",
 * "fixes", "patch"}], "not_understood": [{"file", "document", "kind",
 * "name", "line", "reason"}]}.
 * A deployment that will not start is a result ("fails"), not an error.
 * @param[in]  text, len  the YAML (need not be NUL-terminated).
 * @param[in]  file     the name to report ("-" for standard input); may
 *                      be NULL.
 * @param[in]  options  NULL for the defaults.
 * @param[out] buf, cap the JSON; always NUL-terminated when cap > 0.
 * @param[out] needed   bytes needed including the NUL; may be NULL.
 * @return KVB_OK, KVB_EPARSE (invalid YAML: err->line and err->column
 *         say where), KVB_ELIMIT (more than 64 MiB or 10000 documents),
 *         KVB_EBUFSIZE (truncated), KVB_ENOMEM or KVB_EABI; details in
 *         *err.
 * @note Never uses the network: models resolve through the presets, then
 *       ORG/REPO through the local Hugging Face cache (read-only); GPUs
 *       through the GPU and instance presets.
 * @since 0.2
 */
KVB_API KVB_NODISCARD
kvb_status kvb_check_manifest(const char *text, size_t len, const char *file,
                              const kvb_check_options *options, char *buf,
                              size_t cap, size_t *needed, kvb_error *err);

/**
 * The manifests in `text` with the first remedy that fits applied to each
 * failing serving container (its args, GPU count and node selection, or
 * the Karpenter NodePool it names), everything else byte for byte.
 * @param[in]  text, len, options  as for kvb_check_manifest().
 * @param[out] buf, cap, needed    the changed YAML, as above.
 * @param[out] changed  the number of containers changed; may be NULL.
 * @return as kvb_check_manifest(); details in *err.
 * @since 0.2
 */
KVB_API KVB_NODISCARD
kvb_status kvb_check_fix(const char *text, size_t len,
                         const kvb_check_options *options, char *buf,
                         size_t cap, size_t *needed, uint32_t *changed,
                         kvb_error *err);

/* ---------------------------------------------------------------------- */
/* Probe and validate                                                   */
/* ---------------------------------------------------------------------- */

/*
 * The probe reads the GPUs of this machine through the CUDA driver
 * (libcuda.so.1, loaded at run time: libkvbudget never links against
 * CUDA, so it loads and plans on machines without a driver or a GPU).
 * Validation allocates on a real GPU what a plan predicts, the way vLLM
 * allocates it, and compares the fall in free memory with the prediction
 * (docs/validation.md).  Without a GPU these functions return a status
 * and touch nothing:
 *   KVB_ENOCUDA    the library was built without CUDA support;
 *   KVB_ENODRIVER  libcuda.so.1 cannot be loaded or initialised (no NVIDIA
 *                  driver, or only the toolkit's stub);
 *   KVB_ENODEVICE  the driver works but sees no GPU;
 *   KVB_ECUDA      any other CUDA error, with CUDA's own text in *err.
 */

/** One GPU as the CUDA driver reports it (kvb_probe_device). */
typedef struct kvb_device {
    size_t struct_size;
    int32_t index;                 /* CUDA ordinal */
    char name[256];                /* "NVIDIA H200" (cuDeviceGetName) */
    uint64_t total_bytes;          /* cuMemGetInfo total */
    uint64_t free_bytes;           /* cuMemGetInfo free, read with a CUDA
                                      context open, as an engine reads it */
    uint64_t used_by_others_bytes; /* total - free at the probe: other
                                      processes, the driver's reserve and
                                      the probe's own CUDA context */
    uint32_t compute_capability;   /* major*10 + minor (90 = Hopper) */
    uint32_t multiprocessor_count; /* SMs */
    char uuid[48];                 /* "GPU-8f2a...", as nvidia-smi -L; or "" */
    char driver_version[32];       /* kernel module ("580.159.03"), else
                                      the CUDA version the driver supports */
    uint32_t cuda_driver_version;  /* cuDriverGetVersion: 13000 = CUDA 13.0 */
} kvb_device;

/**
 * Fill a device with zeros (index -1) and set struct_size.
 * KVB_DEVICE_INIT(d) passes sizeof *(d).
 * @return KVB_OK, KVB_EINVAL (NULL) or KVB_EABI.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_device_init(kvb_device *dev, size_t struct_size);
#define KVB_DEVICE_INIT(d) kvb_device_init((d), sizeof *(d))

/**
 * Number of CUDA devices this process can see.
 * @param[out] count  the number of devices; 0 on every failure.
 * @return KVB_OK, KVB_ENOCUDA, KVB_ENODRIVER, KVB_ENODEVICE (none) or
 *         KVB_ECUDA; details in *err.
 * @note Loads the driver for the duration of the call; creates no context.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_probe_count(uint32_t *count, kvb_error *err);

/**
 * Probe one device: name, compute capability, multiprocessors, UUID,
 * driver version, and cuMemGetInfo's free and total memory.
 * @param[in]  index  CUDA ordinal, 0 .. count-1.
 * @param[out] dev    initialised by the caller with KVB_DEVICE_INIT.
 * @return KVB_OK, KVB_ERANGE (index past the last device), KVB_EABI,
 *         KVB_ENOCUDA, KVB_ENODRIVER, KVB_ENODEVICE or KVB_ECUDA;
 *         details in *err.
 * @note Retains the device's primary context for the duration of the
 *       call (as the CUDA runtime, PyTorch and vLLM do), so free_bytes
 *       counts one CUDA context as used; the calling thread's current
 *       context is restored before returning.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_probe_device(uint32_t index, kvb_device *dev, kvb_error *err);

/**
 * The kvb_gpu of a probed device, ready for kvb_plan_compute: name
 * (truncated to 63 bytes), total and free bytes, compute capability,
 * multiprocessors, and count 1 (set count to kvb_probe_count's figure to
 * plan across every visible GPU).
 * @param[in]  dev  a device filled by kvb_probe_device.
 * @param[out] gpu  initialised by the caller with KVB_GPU_INIT.
 * @return KVB_OK, KVB_EINVAL (dev or gpu NULL, total_bytes 0), KVB_ERANGE
 *         (free above total) or KVB_EABI; details in *err.
 * @note Pure: works, and is useful, without CUDA (a device read from JSON).
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_device_gpu(const kvb_device *dev, kvb_gpu *gpu, kvb_error *err);

/* Validation stages: XX(name, number, snake_case code, what is allocated). */
#define KVB_STAGE_MAP(XX)                                                      \
    XX(WEIGHTS, 0, "weights", "one allocation per tensor of the inventory")    \
    XX(ACTIVATION, 1, "activation",                                            \
       "the profile run's activation peak, one allocation")                    \
    XX(NON_TORCH, 2, "non_torch",                                              \
       "memory outside PyTorch (cuBLAS workspaces, kernels), one allocation")  \
    XX(CUDAGRAPH, 3, "cudagraph",                                              \
       "the CUDA-graph estimate inside the budget, one allocation")            \
    XX(KV_CACHE, 4, "kv_cache", "per-layer tensors of num_blocks pages")

/** What a validation allocates, in order (kvb_validation.stages index). */
typedef enum kvb_stage {
#define KVB__STAGE_ENUM(name, num, code, text) KVB_STAGE_##name = num,
    KVB_STAGE_MAP(KVB__STAGE_ENUM)
#undef KVB__STAGE_ENUM
    KVB_STAGE_LAST_ /* never use */
} kvb_stage;

/** Capacity of kvb_validation.stages; stage_count says how many are used. */
#define KVB_VALIDATION_STAGES 8

/** Snake_case code of a stage ("kv_cache"); NULL if unknown. @since 0.1 */
KVB_API
const char *kvb_stage_name(int stage);

/** What a stage allocates, one line; NULL if unknown. @since 0.1 */
KVB_API
const char *kvb_stage_reason(int stage);

/** Predicted against observed bytes of one stage.  Frozen layout. */
typedef struct kvb_validation_stage {
    uint64_t predicted_bytes; /* the plan's figure */
    uint64_t requested_bytes; /* sum of the sizes asked of the allocator */
    uint64_t observed_bytes;  /* fall in cuMemGetInfo free across the stage */
    uint32_t allocations;     /* allocations asked for */
    uint32_t allocated;       /* 1: every one succeeded */
    double error;             /* (observed - predicted) / predicted; 0 when
                                 predicted is 0 */
} kvb_validation_stage;

/** The result of kvb_validate. */
typedef struct kvb_validation {
    size_t struct_size;
    /* ---- the device ---- */
    int32_t device_index;         /* CUDA ordinal */
    char device_name[256];        /* as kvb_device.name */
    uint64_t total_bytes;         /* cuMemGetInfo total */
    uint64_t free_start_bytes;    /* free before the first allocation */
    uint64_t free_end_bytes;      /* free after everything was freed */
    /* ---- the plan, for the probed GPU and the caller's settings ---- */
    double gpu_memory_utilization; /* as the plan used it */
    int32_t plan_verdict;         /* kvb_verdict */
    uint64_t num_blocks;          /* KV blocks the plan gives */
    uint64_t block_bytes;         /* one block across the layers */
    uint32_t weights_tensors;     /* allocations of the weights stage */
    uint32_t kv_tensors;          /* per-layer KV tensors */
    /* ---- predicted against observed, by kvb_stage ---- */
    uint32_t stage_count;         /* stages filled (KVB_STAGE_KV_CACHE + 1) */
    kvb_validation_stage stages[KVB_VALIDATION_STAGES];
    int32_t failed_stage;         /* -1: every allocation succeeded; else
                                     the kvb_stage that ran out of memory */
    uint64_t failed_bytes;        /* the allocation that failed; else 0 */
    double max_error;             /* largest |error| of weights and KV */
    double tolerance;             /* allowed |error|: 0.01 */
    /* ---- tightness: the plan at the largest utilization that fits ---- */
    uint32_t tight_checked;       /* 1: run (every stage was allocated) */
    double tight_utilization;     /* (free_start - allowance) / total */
    uint64_t tight_allowance_bytes; /* allocator rounding: measured in the
                                     stages before the KV cache, plus one
                                     2 MiB page per KV tensor */
    uint64_t tight_num_blocks;    /* the plan's KV blocks at that utilization */
    uint32_t tight_fits;          /* 1: they were allocated */
    uint64_t tight_free_bytes;    /* free left beside them (unused room) */
    double tight_over_fraction;   /* 0.03: "a few percent more" */
    uint64_t tight_over_num_blocks; /* ceil(tight_num_blocks x 1.03) */
    uint32_t tight_over_fits;     /* 1: those fitted too (plan not tight) */
    uint32_t tight;               /* tight_fits && !tight_over_fits */
    /* ---- verdict ---- */
    uint32_t valid;               /* every stage allocated, weights and KV
                                     within tolerance, and tight */
    char message[320];            /* one line: the verdict in numbers */
} kvb_validation;

/**
 * Fill a validation result with zeros (failed_stage -1, device_index -1)
 * and set struct_size.  KVB_VALIDATION_INIT(v) passes sizeof *(v).
 * @return KVB_OK, KVB_EINVAL or KVB_EABI.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_validation_init(kvb_validation *v, size_t struct_size);
#define KVB_VALIDATION_INIT(v) kvb_validation_init((v), sizeof *(v))

/**
 * Validate the plan on a real GPU.  Probe the device, plan for it (its
 * real total and free memory, the caller's settings), then allocate what
 * the plan says in kvb_stage order, the way vLLM does: each weight tensor
 * of the inventory, the activation peak, the non-torch memory, the
 * CUDA-graph estimate when it is inside the budget, and the KV cache as
 * per-layer tensors of num_blocks pages; read cuMemGetInfo before and
 * after each stage.  Then check the plan is tight: at the largest
 * utilization the device can give (free memory less the allocator's
 * rounding) the planned KV blocks fit, and 3% more do not.  Running out
 * of device memory is a result (failed_stage), not an error.  Everything
 * allocated is freed on every path.
 * @param[in]  model, quant, serving  as for kvb_plan_compute (quant and
 *             serving may be NULL); tensor and pipeline parallelism must
 *             be 1.
 * @param[in]  device  CUDA ordinal.
 * @param[out] out     initialised with KVB_VALIDATION_INIT.
 * @return KVB_OK (see out->valid), a kvb_plan_compute status,
 *         KVB_EUNSUPPORTED (parallelism above 1), KVB_ENOMEM (host
 *         memory), or a probe status; details in *err.
 * @note Takes up to all free memory of the device for a few seconds;
 *       run it on an idle GPU.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_validate(const kvb_model *model, const kvb_quant *quant,
                        const kvb_serving *serving, uint32_t device,
                        kvb_validation *out, kvb_error *err);

/* ---------------------------------------------------------------------- */
/* Batch planning and struct layout                                     */
/* ---------------------------------------------------------------------- */

/*
 * Sweeps: many plans in one call, each exactly what kvb_plan_compute gives
 * for the same inputs.  The inputs are small tables (models, quantization
 * schemes, GPUs, serving settings); each row picks one entry of each table
 * by index and may override the knobs a sweep varies.  Results come back
 * in columns, one array element per row, so a binding reads them without
 * a call per row.  Every column is a caller-owned array of `count`
 * elements, or NULL: a NULL input column means index 0 / no override, a
 * NULL output column is not written.
 */

/** A batch of plans: tables, per-row input columns, per-row outputs. */
typedef struct kvb_batch {
    size_t struct_size;
    /* ---- tables; every element initialised by its init function ---- */
    const kvb_model *models;     /* num_models entries; required */
    const kvb_quant *quants;     /* num_quants entries; NULL: the default */
    const kvb_gpu *gpus;         /* num_gpus entries; required */
    const kvb_serving *servings; /* num_servings entries; NULL: defaults */
    uint32_t num_models;         /* >= 1 */
    uint32_t num_quants;         /* 0 exactly when quants is NULL */
    uint32_t num_gpus;           /* >= 1 */
    uint32_t num_servings;       /* 0 exactly when servings is NULL */
    uint64_t count;              /* rows */
    /* ---- per-row inputs: indexes (NULL: 0) ---- */
    const uint32_t *model_index;   /* into models */
    const uint32_t *quant_index;   /* into quants */
    const uint32_t *gpu_index;     /* into gpus */
    const uint32_t *serving_index; /* into servings */
    /* ---- per-row overrides (NULL, or 0 in a row: the table's value) ---- */
    const uint32_t *tensor_parallel_size;   /* serving.tensor_parallel_size */
    const uint32_t *pipeline_parallel_size; /* serving.pipeline_parallel_size */
    const uint64_t *max_model_len;          /* serving.max_model_len */
    const double *gpu_memory_utilization;   /* serving.gpu_memory_utilization */
    const uint32_t *concurrency;            /* serving.concurrency */
    const uint32_t *max_num_seqs;           /* serving.max_num_seqs */
    const uint32_t *gpu_count;              /* gpu.count */
    /* ---- per-row outputs (NULL: not written) ---- */
    int32_t *status;                 /* KVB_OK, or kvb_plan_compute's status */
    uint32_t *fits;                  /* kvb_plan.fits; 0 for a failed row */
    int32_t *verdict;                /* kvb_plan.verdict; -1 for a failed row */
    uint64_t *weights_bytes_per_gpu; /* the kvb_plan fields of that name */
    uint64_t *kv_budget_bytes_per_gpu;
    uint64_t *max_kv_tokens;
    double *max_concurrency;
    uint64_t *max_model_len_fit;
    uint64_t *num_blocks;
    kvb_plan *plans;  /* whole plans, message left ""; NULL: not written */
    size_t plan_size; /* sizeof(kvb_plan) as the caller sees it, when plans */
} kvb_batch;

/**
 * Fill a batch with its defaults (every pointer NULL, every count 0) and
 * set struct_size.  KVB_BATCH_INIT(b) passes sizeof *(b).
 * @return KVB_OK, KVB_EINVAL (NULL) or KVB_EABI (unknown struct_size).
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_batch_init(kvb_batch *batch, size_t struct_size);
#define KVB_BATCH_INIT(b) kvb_batch_init((b), sizeof *(b))

/**
 * Plan every row of a batch.  Row i is the plan of models[model_index[i]],
 * quants[quant_index[i]], gpus[gpu_index[i]] (count replaced by a non-zero
 * gpu_count[i]) and servings[serving_index[i]] with its non-zero
 * overrides; each output equals the kvb_plan field kvb_plan_compute gives
 * for those inputs, and status[i] the status it returns.  A failed row has
 * fits 0, verdict -1 and every other output 0.  Entries of the tables are
 * validated once, and the stages that depend only on (model, quant,
 * tensor_parallel_size, pipeline_parallel_size) once per combination, so
 * a row costs far less than a kvb_plan_compute call; the verdict text is
 * not formatted (plans[i].message is "": call kvb_plan_compute for it).
 * @param[in]  batch   tables, input columns and output columns.
 * @param[out] failed  rows whose status is not KVB_OK; may be NULL.
 * @return KVB_OK when every row has its outputs or its status in
 *         batch->status.  With batch->status NULL, the status of the
 *         first row that fails (later rows are not planned; err holds
 *         kvb_plan_compute's detail for it and source "batch row <i>").
 *         KVB_EINVAL (a required table missing, counts that do not match
 *         their tables), KVB_ERANGE (an index past its table), KVB_EABI (a
 *         struct_size or plan_size this library does not know), KVB_ENOMEM;
 *         details in *err.  On those, the outputs hold no meaningful data.
 * @note Allocates one block per call for its caches and frees it before
 *       returning.  Thread-safe as long as no two threads write the same
 *       output arrays: split the rows to use several threads.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_batch_compute(const kvb_batch *batch, uint64_t *failed,
                             kvb_error *err);

/*
 * The layout of every public struct, as this library was compiled: for
 * bindings (Python's ctypes mirrors) and tests that must prove their copy
 * of a struct matches, field by field.  Types are spelled as in this
 * header ("size_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
 * "double", "char", "uint8_t"; "pointer" for any pointer; the struct's name
 * for an embedded struct, "kvb_validation_stage"); an array field reports
 * its element type and its whole size.
 */

/** Number of structs the layout report covers. @since 0.1 */
KVB_API
size_t kvb_layout_count(void);

/**
 * Struct `index` of the layout report.
 * @param[out] name         the struct's name ("kvb_plan"), static; may be
 *                          NULL.
 * @param[out] size         its sizeof; may be NULL.
 * @param[out] field_count  its number of fields; may be NULL.
 * @return KVB_OK or KVB_ERANGE (index past the end); details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_layout_struct_get(size_t index, const char **name,
                                 size_t *size, size_t *field_count,
                                 kvb_error *err);

/**
 * Field `field` of struct `index`, in declaration order.
 * @param[out] name    the field's name ("max_kv_tokens"), static; may be
 *                     NULL.
 * @param[out] type    its type or array element type, static; may be NULL.
 * @param[out] offset  its offsetof; may be NULL.
 * @param[out] size    its sizeof (a whole array); may be NULL.
 * @return KVB_OK or KVB_ERANGE (either index past the end); details in *err.
 * @since 0.1
 */
KVB_API KVB_NODISCARD
kvb_status kvb_layout_field_get(size_t index, size_t field, const char **name,
                                const char **type, size_t *offset,
                                size_t *size, kvb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* KVBUDGET_H */
