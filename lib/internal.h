/*
 * internal.h -- declarations shared by the library's stage files.
 * Never installed; nothing here is exported (kvb__ prefix).
 */
#ifndef KVB_INTERNAL_H
#define KVB_INTERNAL_H

#include "kvbudget.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KVB__ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define KVB__GIB(b)       ((double)(b) / 1073741824.0) /* display only */
#define KVB__MIB          ((uint64_t)1 << 20)

/* ---- errors ---- */

#if defined(__GNUC__)
#define KVB__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define KVB__PRINTF(f, a)
#endif

/* Fill *err (when not NULL) and return `status`. */
kvb_status kvb__fail(kvb_error *err, kvb_status status, const char *field,
                     const char *fmt, ...) KVB__PRINTF(4, 5);
/* Reset *err to "no error" if it is a valid struct. */
void kvb__clear(kvb_error *err);

/* ---- field bounds: XX(id, dotted name, lo, hi, note) ---- */

#define KVB__P2(n) ((double)((uint64_t)1 << (n)))
#define KVB__FIELD_BOUNDS(XX)                                                  \
    XX(MODEL_NUM_HIDDEN_LAYERS, "model.num_hidden_layers", 1, 1024, NULL)      \
    XX(MODEL_HIDDEN_SIZE, "model.hidden_size", 1, KVB__P2(20), NULL)           \
    XX(MODEL_NUM_ATTENTION_HEADS, "model.num_attention_heads", 1, 4096, NULL)  \
    XX(MODEL_NUM_KEY_VALUE_HEADS, "model.num_key_value_heads", 1, 4096, NULL)  \
    XX(MODEL_HEAD_DIM, "model.head_dim", 0, 8192, "0 = hidden_size / heads")   \
    XX(MODEL_INTERMEDIATE_SIZE, "model.intermediate_size", 0, KVB__P2(22),     \
       NULL)                                                                   \
    XX(MODEL_VOCAB_SIZE, "model.vocab_size", 1, KVB__P2(24), NULL)             \
    XX(MODEL_MAX_POSITION_EMBEDDINGS, "model.max_position_embeddings", 1,      \
       KVB__P2(34), NULL)                                                      \
    XX(MODEL_POSITION_EMBEDDING_ROWS, "model.position_embedding_rows", 0,      \
       KVB__P2(34), NULL)                                                      \
    XX(MODEL_NUM_EXPERTS, "model.num_experts", 0, 4096, NULL)                  \
    XX(MODEL_NUM_EXPERTS_PER_TOK, "model.num_experts_per_tok", 0, 4096, NULL)  \
    XX(MODEL_MOE_INTERMEDIATE_SIZE, "model.moe_intermediate_size", 0,          \
       KVB__P2(22), NULL)                                                      \
    XX(MODEL_NUM_SHARED_EXPERTS, "model.num_shared_experts", 0, 256, NULL)     \
    XX(MODEL_SHARED_EXPERT_INTERMEDIATE_SIZE,                                  \
       "model.shared_expert_intermediate_size", 0, KVB__P2(22), NULL)          \
    XX(MODEL_FIRST_K_DENSE_REPLACE, "model.first_k_dense_replace", 0, 1024,    \
       NULL)                                                                   \
    XX(MODEL_MOE_LAYER_STEP, "model.moe_layer_step", 0, 1024, NULL)            \
    XX(MODEL_KV_LORA_RANK, "model.kv_lora_rank", 0, 65536, NULL)               \
    XX(MODEL_Q_LORA_RANK, "model.q_lora_rank", 0, 65536, NULL)                 \
    XX(MODEL_QK_ROPE_HEAD_DIM, "model.qk_rope_head_dim", 0, 8192, NULL)        \
    XX(MODEL_QK_NOPE_HEAD_DIM, "model.qk_nope_head_dim", 0, 8192, NULL)        \
    XX(MODEL_V_HEAD_DIM, "model.v_head_dim", 0, 8192, NULL)                    \
    XX(MODEL_SLIDING_WINDOW, "model.sliding_window", 0, KVB__P2(34), NULL)     \
    XX(MODEL_SLIDING_WINDOW_PATTERN, "model.sliding_window_pattern", 0, 1024,  \
       NULL)                                                                   \
    XX(MODEL_ATTENTION_CHUNK_SIZE, "model.attention_chunk_size", 0,            \
       KVB__P2(34), NULL)                                                      \
    XX(MODEL_ATTENTION_CHUNK_PATTERN, "model.attention_chunk_pattern", 0,      \
       1024, NULL)                                                             \
    XX(QUANT_GROUP_SIZE, "quant.group_size", 0, 65536,                         \
       "0 = one group per row")                                                \
    XX(GPU_TOTAL_BYTES, "gpu.total_bytes", KVB__P2(20), KVB__P2(50), NULL)     \
    XX(GPU_COUNT, "gpu.count", 1, 4096, NULL)                                  \
    XX(GPU_COMPUTE_CAPABILITY, "gpu.compute_capability", 0, 200, NULL)         \
    XX(GPU_FREE_BYTES, "gpu.free_bytes", 0, KVB__P2(50), "0 = unknown")        \
    XX(GPU_MULTIPROCESSOR_COUNT, "gpu.multiprocessor_count", 0, 1024,          \
       "0 = unknown")                                                          \
    XX(SERVING_ENGINE_VERSION, "serving.engine_version", 0, 999999,            \
       "0 = newest")                                                           \
    XX(SERVING_GPU_MEMORY_UTILIZATION, "serving.gpu_memory_utilization", 0, 1, \
       "0 = engine default")                                                   \
    XX(SERVING_MAX_MODEL_LEN, "serving.max_model_len", 0, KVB__P2(34),         \
       "0 = model maximum")                                                    \
    XX(SERVING_CONCURRENCY, "serving.concurrency", 0, KVB__P2(24), NULL)       \
    XX(SERVING_TENSOR_PARALLEL_SIZE, "serving.tensor_parallel_size", 1, 1024,  \
       NULL)                                                                   \
    XX(SERVING_PIPELINE_PARALLEL_SIZE, "serving.pipeline_parallel_size", 1,    \
       1024, NULL)                                                             \
    XX(SERVING_BLOCK_SIZE, "serving.block_size", 0, 4096,                      \
       "0 = engine default")                                                   \
    XX(SERVING_ENFORCE_EAGER, "serving.enforce_eager", 0, 1, NULL)             \
    XX(SERVING_MAX_NUM_SEQS, "serving.max_num_seqs", 0, KVB__P2(24),           \
       "0 = engine default")                                                   \
    XX(SERVING_MAX_NUM_BATCHED_TOKENS, "serving.max_num_batched_tokens", 0,    \
       KVB__P2(34), "0 = engine default")                                      \
    XX(SERVING_ENABLE_CHUNKED_PREFILL, "serving.enable_chunked_prefill", -1,   \
       1, "-1 = engine default")                                               \
    XX(SERVING_DISABLE_HYBRID_KV_CACHE, "serving.disable_hybrid_kv_cache", 0,  \
       1, NULL)                                                                \
    XX(SERVING_ENABLE_EXPERT_PARALLEL, "serving.enable_expert_parallel", 0, 1, \
       NULL)                                                                   \
    XX(SERVING_KV_CACHE_MEMORY_BYTES, "serving.kv_cache_memory_bytes", 0,      \
       KVB__P2(50), "0 = unset")                                               \
    XX(SERVING_CUDA_CONTEXT_BYTES, "serving.cuda_context_bytes", 0,            \
       KVB__P2(50), "or KVB_AUTO_BYTES")                                       \
    XX(SERVING_NON_TORCH_BYTES, "serving.non_torch_bytes", 0, KVB__P2(50),     \
       "or KVB_AUTO_BYTES")                                                    \
    XX(SERVING_ACTIVATION_BYTES, "serving.activation_bytes", 0, KVB__P2(50),   \
       "or KVB_AUTO_BYTES")                                                    \
    XX(SERVING_CUDAGRAPH_BYTES, "serving.cudagraph_bytes", 0, KVB__P2(50),     \
       "or KVB_AUTO_BYTES")                                                    \
    XX(SERVING_WEIGHTS_BYTES, "serving.weights_bytes", 0, KVB__P2(50),         \
       "0 = from the inventory")                                               \
    XX(SERVING_LOADED_WEIGHTS_BYTES, "serving.loaded_weights_bytes", 0,        \
       KVB__P2(50), "0 = modelled")                                            \
    XX(SERVING_DATA_PARALLEL_SIZE, "serving.data_parallel_size", 1, 1024,      \
       NULL)                                                                   \
    XX(SERVING_ENABLE_DP_ATTENTION, "serving.enable_dp_attention", 0, 1, NULL) \
    XX(SERVING_CUDA_GRAPH_MAX_BS, "serving.cuda_graph_max_bs", 0, 65536,       \
       "0 = engine default")                                                   \
    XX(SERVING_CONTEXT_SIZE, "serving.context_size", 0, KVB__P2(34),           \
       "0 = engine default")                                                   \
    XX(SERVING_N_CPU_MOE, "serving.n_cpu_moe", 0, 4096, NULL)                  \
    XX(SERVING_UBATCH_SIZE, "serving.ubatch_size", 0, KVB__P2(24),             \
       "0 = engine default")                                                   \
    XX(SERVING_SWA_FULL, "serving.swa_full", 0, 1, NULL)                       \
    XX(SERVING_KV_UNIFIED, "serving.kv_unified", 0, 1, NULL)                   \
    XX(SERVING_MAX_TOTAL_TOKENS, "serving.max_total_tokens", 0, KVB__P2(40),   \
       "0 = derived")                                                          \
    XX(SERVING_MAX_INPUT_TOKENS, "serving.max_input_tokens", 0, KVB__P2(34),   \
       "0 = engine default")                                                   \
    XX(SERVING_GPU_OVERHEAD_BYTES, "serving.gpu_overhead_bytes", 0,            \
       KVB__P2(50), NULL)                                                      \
    XX(SERVING_HOST_MEMORY_BYTES, "serving.host_memory_bytes", 0, KVB__P2(50), \
       "0 = unknown")                                                          \
    XX(SERVING_GPUS_PER_NODE, "serving.gpus_per_node", 0, 4096,                \
       "0 = all on one node")

typedef enum kvb__field {
#define KVB__FIELD_ID(id, name, lo, hi, note) KVB__F_##id,
    KVB__FIELD_BOUNDS(KVB__FIELD_ID)
#undef KVB__FIELD_ID
        KVB__F_COUNT_
} kvb__field;

/* Check `value` against the bounds of field `id` (no string lookup). */
kvb_status kvb__check_field(kvb_error *err, kvb__field id, uint64_t value);
/* Check `value` against the documented bounds of `field`. */
kvb_status kvb__check_u64(kvb_error *err, const char *field, uint64_t value);
kvb_status kvb__check_double(kvb_error *err, const char *field, double value);

/* For calls that cannot fail (an init with our own sizeof). */
#define KVB__CANNOT_FAIL(call)                                                 \
    do {                                                                       \
        kvb_status kvb__st = (call);                                           \
        (void)kvb__st;                                                         \
    } while (0)

/* ---- struct_size handling ---- */

/*
 * Copy a caller's struct into a full-size local one that already holds the
 * defaults, reading only the caller's struct_size bytes.  Fails with
 * KVB_EABI when struct_size is not one this library knows.
 */
kvb_status kvb__struct_in(const void *src, size_t full_size, void *dst,
                          const char *what, kvb_error *err);
/* KVB_EABI unless the caller's struct_size is one this library knows. */
kvb_status kvb__struct_check(const void *dst, size_t full_size,
                             const char *what, kvb_error *err);
/* Copy a full-size local result out to the caller's struct_size bytes. */
void kvb__struct_out(const void *src, size_t full_size, void *dst);
/* Zero a caller struct of size `struct_size` and record the size. */
kvb_status kvb__struct_init(void *dst, size_t struct_size, size_t full_size,
                            const char *what);

/* ---- checked arithmetic ---- */

static inline bool kvb__mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}
static inline bool kvb__add_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}
static inline uint64_t kvb__cdiv(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}
static inline uint64_t kvb__round_up(uint64_t a, uint64_t m)
{
    return kvb__cdiv(a, m) * m;
}
static inline uint64_t kvb__min(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}
static inline uint64_t kvb__max(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}
/* A uint32_t or uint64_t struct field read as uint64_t (field tables). */
static inline uint64_t kvb__load_uint(const void *base, size_t offset,
                                      size_t size)
{
    const unsigned char *p = (const unsigned char *)base + offset;
    if (size == sizeof(uint32_t)) {
        uint32_t v;
        __builtin_memcpy(&v, p, sizeof v);
        return v;
    }
    uint64_t v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}
/* Eight bytes of a file as a little-endian integer (safetensors header
 * lengths, GGUF fields): one load on a little-endian host. */
static inline uint64_t kvb__le64(const void *p)
{
    uint64_t v;
    __builtin_memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}
int kvb__strcasecmp(const char *a, const char *b);
/* Copy a string into a fixed buffer, always NUL-terminated. */
void kvb__strlcpy(char *dst, const char *src, size_t cap);
/* snprintf into (buf, cap); sets *needed; EBUFSIZE when truncated. */
kvb_status kvb__render(char *buf, size_t cap, size_t *needed, kvb_error *err,
                       const char *fmt, ...) KVB__PRINTF(5, 6);

/* ---- model (model/model.c; the folder's order: model.c <- inventory.c <-
 * quant.c <- weights.c <- kvcache.c, none calling a later one) ---- */

typedef enum kvb__attn_kind {
    KVB__ATTN_FULL = 0,
    KVB__ATTN_SLIDING = 1,
    KVB__ATTN_CHUNKED = 2,
} kvb__attn_kind;

uint64_t kvb__head_dim(const kvb_model *m);
bool kvb__is_mla(const kvb_model *m);
bool kvb__layer_is_moe(const kvb_model *m, uint32_t layer);
/* The layer_pattern characters, in a fixed order (at most 16: weights.c
 * keys a layer's weight by its index in four bits). */
#define KVB__LAYER_KINDS "AG*M-EmSPXZz"
/* Layer i's layer_pattern character ('A' when the pattern is empty). */
char kvb__layer_kind(const kvb_model *m, uint32_t layer);
bool kvb__layer_has_attn(const kvb_model *m, uint32_t layer); /* A * P Z z */
bool kvb__layer_has_mlp(const kvb_model *m,
                        uint32_t layer); /* A G - E m S P X Z z */
/* Some layer is recurrent (Mamba1, Mamba2 or Gated DeltaNet). */
bool kvb__has_recurrent(const kvb_model *m);
/* Recurrent layers (M, G, m, S, Z, z) among [first, last). */
uint32_t kvb__count_recurrent(const kvb_model *m, uint32_t first,
                              uint32_t last);
/* Layers of `kind` among [first, last). */
uint32_t kvb__count_kind(const kvb_model *m, uint32_t first, uint32_t last,
                         char kind);
/* MoE layers among [first, last), without walking them. */
uint32_t kvb__count_moe(const kvb_model *m, uint32_t first, uint32_t last);
kvb__attn_kind kvb__layer_attn(const kvb_model *m, uint32_t layer);
uint64_t kvb__shared_width(const kvb_model *m); /* all shared experts */
uint32_t kvb__dtype_bytes(int32_t dtype);
/* The dtype of activations: quant->dtype, else the model's. */
int32_t kvb__act_dtype(const kvb_model *m, const kvb_quant *q);
int32_t kvb__kv_dtype(const kvb_model *m, const kvb_quant *q);
/* Validate, reading the caller struct through struct_size first. */
kvb_status kvb__model_load(const kvb_model *in, kvb_model *out, kvb_error *err);
kvb_status kvb__quant_load(const kvb_quant *in, kvb_quant *out, kvb_error *err);
/* Model and quant loads plus the TP/PP bounds, for the per-stage calls. */
kvb_status kvb__load_split(const kvb_model *model, const kvb_quant *quant,
                           uint32_t tp, uint32_t pp, kvb_model *m, kvb_quant *q,
                           kvb_error *err);

/* ---- tensor inventory (model/inventory.c) ---- */

/* One tensor as the inventory walk reports it; bytes come from quant.c. */
typedef struct kvb__tdesc {
    int32_t role;     /* kvb_tensor_role */
    int32_t layer;    /* -1 outside the decoder layers */
    int32_t split;    /* kvb_split */
    int32_t of_role;  /* for BIAS / NORM: the role it belongs to */
    uint64_t experts; /* stacked experts, else 1 */
    uint64_t rows;    /* out_features */
    uint64_t cols;    /* in_features; 1 for vectors */
    uint32_t ordinal; /* index among tensors of the same role in its layer */
} kvb__tdesc;

/* Return non-zero to stop the walk early (value is passed back). */
typedef int (*kvb__tensor_fn)(void *ctx, const kvb__tdesc *t);

/* Walk every tensor of a validated model in inventory order. */
int kvb__inventory_walk(const kvb_model *m, kvb__tensor_fn fn, void *ctx);
/* Walk only the tensors of layers [first, last), plus the globals selected. */
#define KVB__WALK_EMBED 1u
#define KVB__WALK_HEAD  2u
/* the vision tower and projector (model/vision.c); _WHOLE keeps it
 * unsplit on every rank (vLLM --mm-encoder-tp-mode data) */
#define KVB__WALK_TOWER       4u
#define KVB__WALK_TOWER_WHOLE 8u
int kvb__inventory_walk_range(const kvb_model *m, uint32_t first, uint32_t last,
                              unsigned globals, kvb__tensor_fn fn, void *ctx);
/* Walk the vision tower's tensors (none for KVB_VISION_NONE); `replicate`
 * keeps each whole on every rank (vLLM --mm-encoder-tp-mode data). */
/* Gemma 3n (model/gemma3n.c): the embedding-stage tensors, what each
 * decoder layer adds, the towers (vision_kind GEMMA3N) and their names;
 * each returns the callback's stop value. */
int kvb__gemma3n_globals(const kvb_model *m, kvb__tensor_fn fn, void *ctx);
int kvb__gemma3n_layer(const kvb_model *m, uint32_t i, kvb__tensor_fn fn,
                       void *ctx);
int kvb__gemma3n_towers(const kvb_model *m, kvb__tensor_fn fn, void *ctx);
void kvb__gemma3n_name(const kvb__tdesc *t, char *buf, size_t cap);
void kvb__gemma3n_tower_name(const kvb__tdesc *t, char *buf, size_t cap);
/* Is kind a kvb_vision value this library builds (the enum has gaps)? */
bool kvb__vision_known(int32_t kind);
int kvb__vision_walk(const kvb_model *m, bool replicate, kvb__tensor_fn fn,
                     void *ctx);
void kvb__vision_name(const kvb__tdesc *t, char *buf, size_t cap);
/* The kvb_storage a tower tensor has in an mmproj GGUF written with
 * outtype `type` (convert_hf_to_gguf.py's rules). */
int32_t kvb__vision_gguf_type(const kvb_model *m, const kvb__tdesc *t,
                              int32_t type);
/* Hugging Face style name of a tensor. */
void kvb__tensor_name(const kvb_model *m, const kvb__tdesc *t, char *buf,
                      size_t cap);

/* ---- quantization (model/quant.c; the sums in model/weights.c) ---- */

/* Storage chosen for one tensor under a scheme (llama.cpp mixes included). */
typedef struct kvb__quant_ctx {
    const kvb_model *model;
    const kvb_quant *quant;
    uint32_t attn_v_seen;  /* llama.cpp's i_attention_wv counter */
    uint32_t attn_v_total; /* n_attention_wv */
} kvb__quant_ctx;

/* llama.cpp's use_more_bits(i_layer, n_layers): the layers a k-quant mix
 * gives more bits (llama-quant.cpp). */
bool kvb__use_more_bits(uint32_t i, uint32_t n);
/* Whether a method is one of llama.cpp's GGUF mixes. */
bool kvb__quant_is_gguf(int32_t method);
/* Whether vLLM loads `method` on compute capability `cc` (0: unknown,
 * true). */
bool kvb__quant_gpu_ok(int32_t method, uint32_t cc);
/* 0..31: the layer-index tests llama.cpp's mix rules make (use_more_bits,
 * i < n/16, i < n/8, i < 4, i < 2); 0 outside the GGUF mixes. */
unsigned kvb__gguf_layer_class(const kvb__quant_ctx *qc, uint32_t i);
void kvb__quant_ctx_init(kvb__quant_ctx *qc, const kvb_model *m,
                         const kvb_quant *q);
int32_t kvb__storage_for(kvb__quant_ctx *qc, const kvb__tdesc *t);
/* Bytes of experts x rows x cols elements stored as `storage`. */
kvb_status kvb__storage_bytes(int32_t storage, const kvb_quant *q,
                              uint64_t experts, uint64_t rows, uint64_t cols,
                              uint64_t *bytes);
/* Bytes of a tensor's share on one rank under TP (EP splits experts). */
kvb_status kvb__tensor_rank_bytes(const kvb__tdesc *t, int32_t storage,
                                  const kvb_model *m, const kvb_quant *q,
                                  uint32_t tp, bool expert_parallel,
                                  uint64_t *bytes);
/* Layers held by pipeline stage `rank` of `pp` (vLLM get_pp_indices). */
void kvb__pp_layers(uint32_t layers, uint32_t rank, uint32_t pp,
                    uint32_t *first, uint32_t *last);
/* The checkpoint's tensor bytes (and how many parameters are quantized). */
kvb_status kvb__weights_total(const kvb_model *m, const kvb_quant *q,
                              uint64_t *bytes, uint64_t *quantized,
                              kvb_error *err);
/* Parameter counts of a validated model (see kvb_model_param_count). */
void kvb__model_params(const kvb_model *m, uint64_t *total, uint64_t *active);
/* Weights bytes of one pipeline stage on one TP rank, as vLLM holds them. */
kvb_status kvb__stage_weights(const kvb_model *m, const kvb_quant *q,
                              uint32_t tp, uint32_t pp, uint32_t stage,
                              bool expert_parallel, uint64_t *bytes,
                              kvb_error *err);
/* The same with extra KVB__WALK_* bits on stage 0 (KVB__WALK_TOWER_WHOLE). */
kvb_status kvb__stage_weights_ex(const kvb_model *m, const kvb_quant *q,
                                 uint32_t tp, uint32_t pp, uint32_t stage,
                                 bool expert_parallel, unsigned extra,
                                 uint64_t *bytes, kvb_error *err);
/* vLLM's text-only mode (engines/vllm.c): every modality of the model's
 * tower limited to 0, in a release that then skips loading it. */
bool kvb__vllm_text_only(const kvb_model *m, const kvb_serving *s);
/* llama.cpp without --mmproj (engines/llama_cpp.c): the tower lives in a
 * separate GGUF that is not loaded. */
bool kvb__llama_no_mmproj(const kvb_model *m, const kvb_serving *s);

/* ---- KV cache (kvcache.c) ---- */

/* The KV-cache shape of one pipeline stage on one TP rank. */
typedef struct kvb__kv_stage {
    uint32_t layers[3];   /* attention layers by kvb__attn_kind */
    uint64_t page_bytes;  /* one block of one layer */
    uint64_t token_bytes; /* one token across the stage's layers */
    uint64_t window;      /* sliding window (tokens) */
    uint64_t chunk;       /* attention chunk (tokens) */
    uint32_t group_size;  /* layers per KV-cache group */
    uint32_t groups[3];   /* groups by kvb__attn_kind */
    uint32_t n_groups;    /* all groups, the recurrent ones included */
    /* vLLM V1's hybrid manager (hybrid == true only): the recurrent
     * layers (Mamba2, Gated DeltaNet) in groups of their own, each layer
     * one page per request (MambaSpec, its page padded to the attention
     * page). */
    uint32_t recurrent;  /* recurrent layers */
    uint32_t rec_groups; /* their groups */
} kvb__kv_stage;

uint64_t kvb__kv_heads_per_rank(const kvb_model *m, uint32_t tp);
/* KV bytes per token: whole model, and the busiest rank (may be NULL). */
void kvb__kv_bytes(const kvb_model *m, const kvb_quant *q, uint32_t tp,
                   uint32_t pp, uint64_t *whole, uint64_t *per_gpu);
/* Attention layers among [first, last) (a hybrid's others cache no KV;
 * mllama's cross-attention layers count, as vLLM V0 pages them). */
uint32_t kvb__count_attn(const kvb_model *m, uint32_t first, uint32_t last);
/* mllama: encoder tokens of one image (max_num_tiles x (patches + 1)),
 * and their K/V in the cross-attention layers on one rank; 0 otherwise. */
uint64_t kvb__cross_tokens_per_image(const kvb_model *m);
uint64_t kvb__cross_kv_bytes_per_image(const kvb_model *m, const kvb_quant *q,
                                       uint32_t tp);
/* The first layer without a KV cache of its own (Gemma 3n's shared
 * layers); num_hidden_layers for every other model. */
uint32_t kvb__kv_layer_end(const kvb_model *m);
/* Does layer il keep KV cells (attention, and not one of Gemma 3n's
 * shared layers)? */
bool kvb__layer_has_kv(const kvb_model *m, uint32_t il);
/* One request's recurrent state in one recurrent layer on one rank. */
void kvb__state_bytes(const kvb_model *m, const kvb_quant *q, uint32_t tp,
                      uint64_t *conv, uint64_t *ssm);
/* ... summed over the recurrent layers among [first, last). */
uint64_t kvb__state_bytes_per_request(const kvb_model *m, const kvb_quant *q,
                                      uint32_t tp, uint32_t first,
                                      uint32_t last);
/* One attention layer's KV bytes per token on one rank (the page of one
 * token, FullAttentionSpec(block_size=1).page_size_bytes). */
uint64_t kvb__kv_layer_token_bytes(const kvb_model *m, const kvb_quant *q,
                                   uint32_t tp);
/* hybrid == false: every layer is treated as full attention. */
void kvb__kv_stage_make(const kvb_model *m, const kvb_quant *q, uint32_t tp,
                        uint32_t first, uint32_t last, uint32_t block_size,
                        bool hybrid, kvb__kv_stage *ks);
/* Blocks one layer of `kind` needs for a request of `len` tokens. */
uint64_t kvb__kv_blocks_per_layer(const kvb__kv_stage *ks, int kind,
                                  uint64_t len, uint64_t mnbt,
                                  uint32_t block_size);
/* Blocks (summed over groups) one request of `len` tokens needs. */
uint64_t kvb__kv_blocks_per_request(const kvb__kv_stage *ks, uint64_t len,
                                    uint64_t mnbt, uint32_t block_size);

/* ---- engines (lib/engines/: one file per engine, registry.c lists them) ----
 */

typedef struct kvb__engine kvb__engine;

/* Settings after defaults are applied, and the engine's measured terms. */
typedef struct kvb__engine_in {
    const kvb__engine *engine; /* the engine's table (registry.c) */
    const kvb_model *model;
    const kvb_quant *quant;
    const kvb_gpu *gpu;
    kvb_serving s; /* resolved copy */
    int32_t accounting;
    uint32_t version;         /* packed; 0 newest */
    uint64_t inventory_bytes; /* the inventory's checkpoint bytes */
    uint32_t gpu_names; /* KVB__GPU_NAMES_* of gpu->name; 0: not looked at */
    int32_t tower_left_out; /* the kvb_vision of a tower the engine does not
                               load (model->vision_kind is then NONE) */
} kvb__engine_in;

/* What one pipeline stage of a plan came to (plan.c fills it through the
 * engine's hooks; an engine's own verdict reads it). */
typedef struct kvb__stage_result {
    uint64_t weights, activation, cudagraph;
    int64_t available; /* the KV budget; may be negative */
    uint64_t num_blocks, needed, fit;
    const struct kvb__kv_stage *ks; /* in the stage's memo */
} kvb__stage_result;

/* The words of a rendered fix (advice/fix.c renders them as a shell line
 * or Kubernetes args; an engine's render_args fills them). */
typedef struct kvb__args {
    char tok[24][128];
    size_t n;
} kvb__args;
/* Append one word (printf-style); words past the 24th are dropped. */
void kvb__arg(kvb__args *a, const char *fmt, ...) KVB__PRINTF(2, 3);

/* ---- engine command lines (readers/cmdline.c reads; engines say what) ---- */

/* How a flag's value is read and where it goes. */
typedef enum kvb__flag_kind {
    KVB__FLAG_U32 = 0,  /* decimal integer into a uint32_t of kvb_serving */
    KVB__FLAG_U64,      /* decimal integer into a uint64_t of kvb_serving */
    KVB__FLAG_SIZE,     /* bytes with an optional unit ("8GiB", "512MiB") */
    KVB__FLAG_FRACTION, /* a number in (0, 1] into a double of kvb_serving */
    KVB__FLAG_ON,       /* bare flag: uint32_t 1 (or "=true/false") */
    KVB__FLAG_OFF,      /* bare flag: uint32_t 0 (--no-enable-...) */
    KVB__FLAG_TEXT,     /* text into a char[] of kvb_command */
    KVB__FLAG_IGNORED,  /* takes a value the plan does not use: listed */
    KVB__FLAG_IGNORED_BARE, /* a bare flag the plan does not use: listed */
    KVB__FLAG_CUSTOM,       /* the row's set() reads the value */
    KVB__FLAG_CUSTOM_BARE   /* the row's set() with value NULL */
} kvb__flag_kind;

/* One command line being read. */
typedef struct kvb__cmd {
    kvb_command *cmd;
    kvb_serving *s;
    const kvb__engine *engine;
} kvb__cmd;

/* One flag of an engine.  names: '|'-separated spellings ("--tp-size|--tp");
 * env: the environment variable the engine reads for it, or NULL. */
typedef struct kvb__flag {
    const char *names;
    const char *env;
    kvb__flag_kind kind;
    size_t offset; /* into kvb_serving (numbers) or kvb_command (TEXT) */
    size_t size;   /* of that field */
    kvb_status (*set)(kvb__cmd *c, const char *flag, const char *value,
                      kvb_error *err); /* CUSTOM only */
} kvb__flag;

#define KVB__FLAG_SERVING(names, env, kind, field)                             \
    {                                                                          \
        names, env, kind, offsetof(kvb_serving, field),                        \
            sizeof(((kvb_serving *)0)->field), NULL                            \
    }
#define KVB__FLAG_COMMAND(names, env, field)                                   \
    {                                                                          \
        names, env, KVB__FLAG_TEXT, offsetof(kvb_command, field),              \
            sizeof(((kvb_command *)0)->field), NULL                            \
    }
#define KVB__FLAG_SKIP(names, env)                                             \
    {                                                                          \
        names, env, KVB__FLAG_IGNORED, 0, 0, NULL                              \
    }
#define KVB__FLAG_SKIP_BARE(names, env)                                        \
    {                                                                          \
        names, env, KVB__FLAG_IGNORED_BARE, 0, 0, NULL                         \
    }
#define KVB__FLAG_SET(names, env, fn)                                          \
    {                                                                          \
        names, env, KVB__FLAG_CUSTOM, 0, 0, fn                                 \
    }
#define KVB__FLAG_SET_BARE(names, env, fn)                                     \
    {                                                                          \
        names, env, KVB__FLAG_CUSTOM_BARE, 0, 0, fn                            \
    }

/* Shared value readers for custom flags (readers/cmdline.c). */
kvb_status kvb__cmd_u64(const char *flag, const char *value, uint64_t lo,
                        uint64_t hi, uint64_t *out, kvb_error *err);
kvb_status kvb__cmd_fraction(const char *flag, const char *value, double *out,
                             kvb_error *err);
kvb_status kvb__cmd_bool(const char *flag, const char *value, bool *out,
                         kvb_error *err);
/* argv starts with program `name` (a path's basename; NULL matches
 * nothing) and, when sub is not NULL, the word `sub` ("vllm serve"); sets
 * *used to the words taken. */
bool kvb__cmd_program(size_t argc, const char *const *argv, const char *name,
                      const char *sub, size_t *used);
/* argv is "python[3[.x]] -m module" (also "uv run -m"); sets *used. */
bool kvb__cmd_module(size_t argc, const char *const *argv, const char *module,
                     size_t *used);
/* Append to cmd->warning ("; "-joined). */
void kvb__cmd_warn(kvb__cmd *c, const char *fmt, ...) KVB__PRINTF(2, 3);

/*
 * An engine: one table of hooks, one file each (engines/<name>.c), listed
 * in engines/registry.c.  plan.c runs the same stage loop for every engine
 * and asks the table for each term; it never asks which engine it is.
 * Hooks marked optional may be NULL (the comment says what NULL means).
 */
struct kvb__engine {
    int32_t id;          /* kvb_engine */
    const char *name;    /* "vllm": --engine, JSON, kvb_engine_name */
    const char *display; /* "vLLM": text for people */
    /* Optional: version text ("0.8.5", "b6123") -> packed; NULL:
     * MAJOR.MINOR[.PATCH] */
    bool (*parse_version)(const char *text, uint32_t *out);
    /* Optional: packed -> the engine's own text ("b6123"); NULL:
     * MAJOR.MINOR.PATCH. */
    void (*format_version)(uint32_t version, char *buf, size_t cap);
    /* Optional: a variant name of the engine ("vllm-v0") -> the accounting
     * it forces; false when `name` is not one of its variants. */
    bool (*variant)(const char *name, int32_t *accounting);
    /* The accounting of in (version, settings, forced in->s.accounting). */
    int32_t (*accounting)(const kvb__engine_in *in);
    /* Fill every engine-default field of in->s (utilization, batch limits,
     * block size, context ...). */
    void (*defaults)(kvb__engine_in *in);
    /* Optional: settings the engine itself refuses at start-up (a block
     * size it has no kernel for); KVB_EINVAL naming the field. */
    kvb_status (*check)(const kvb__engine_in *in, kvb_error *err);
    /* Optional: the first parallelism the engine rejects, its text into
     * msg; NULL: vLLM's rules (plan.c's kvb__parallelism_bad). */
    bool (*parallelism_bad)(const kvb__engine_in *in, uint32_t gpu_count,
                            char *msg, size_t cap);
    /* The budget: what the engine may use per GPU ("requested"), the CUDA
     * context outside it, the non-torch memory inside it, and what must be
     * free at start-up. */
    uint64_t (*requested_bytes)(const kvb__engine_in *in);
    uint64_t (*cuda_context)(const kvb__engine_in *in);
    uint64_t (*non_torch)(const kvb__engine_in *in);
    uint64_t (*startup_reserved)(const kvb__engine_in *in);
    /* CUDA graphs: their pool for a stage of `layers` layers, and whether
     * it is taken from the KV budget. */
    uint64_t (*cudagraph)(const kvb__engine_in *in, uint32_t layers);
    bool (*graphs_in_budget)(const kvb__engine_in *in);
    /* The weights as the engine holds them (rounding, padding, caches):
     * a small key of what it reads of the GPU (memo), then the bytes. */
    uint32_t (*weights_gpu_key)(const kvb__engine_in *in);
    uint64_t (*loaded_weights)(const kvb__engine_in *in, uint32_t stage,
                               uint64_t inventory_bytes);
    /* The activation peak (or compute buffer) of a stage; memo key: the
     * accounting and the batch limits. */
    uint64_t (*activation)(const kvb__engine_in *in, uint32_t stage);
    /* Whether KV-cache groups follow layer kinds (vLLM V1's hybrid
     * manager); false: every layer allocates full context. */
    bool (*hybrid_kv)(const kvb__engine_in *in);
    /* Blocks, tokens and concurrency from the KV budget. */
    uint64_t (*num_blocks)(const kvb__engine_in *in,
                           const struct kvb__kv_stage *ks, uint64_t available);
    uint64_t (*needed_bytes)(const kvb__engine_in *in,
                             const struct kvb__kv_stage *ks, uint64_t len);
    void (*report)(const kvb__engine_in *in, const struct kvb__kv_stage *ks,
                   uint64_t num_blocks, uint64_t *tokens, double *concurrency);
    uint64_t (*fit_len)(const kvb__engine_in *in,
                        const struct kvb__kv_stage *ks, uint64_t available,
                        uint64_t num_blocks);
    /* Optional: fill the plan's engine-specific figures after the stages
     * (kv_cache_bytes_per_gpu, compute buffer, host bytes, token pool,
     * warning); NULL: KV cache = the budget's blocks. */
    void (*finish)(const kvb__engine_in *in, kvb_plan *p,
                   const kvb__stage_result *r);
    /* Optional: does the engine refuse to start when less is free than it
     * requests (vLLM V1's check)?  NULL: no such check. */
    bool (*startup_check)(const kvb__engine_in *in);
    /* Optional: does one request of max_model_len fail the engine's own
     * length check?  NULL: it needs more KV than the budget holds. */
    bool (*len_fails)(const kvb__engine_in *in, const kvb_plan *p,
                      const kvb__stage_result *r);
    /* Optional: the verdict, its text when `text`; NULL: plan.c's
     * (start-up check, weights, KV, length, graphs, concurrency). */
    void (*verdict)(const kvb__engine_in *in, kvb_plan *p,
                    const kvb__stage_result *r, bool text);
    /* The engine's own text for a failing plan (kvb_plan_engine_error). */
    kvb_status (*error_text)(const kvb_plan *p, char *buf, size_t cap,
                             size_t *needed, kvb_error *err);
    /* The engine's own words for a remedy, a kvb_fix_kind
     * (MAX_MODEL_LEN, UTILIZATION, ENFORCE_EAGER, KV_CACHE_FP8, QUANTIZE
     * with weight format `quant`, TENSOR_PARALLEL): "--enforce-eager",
     * "--cuda-graphs 0"; NULL when the engine has no such remedy
     * (llama.cpp has no eager switch and runs GGUF only).  The advisor
     * and explain offer a remedy only where this names it. */
    const char *(*remedy)(int32_t kind, int32_t quant);
    /* A fix as the engine's own flags (kvb_fix_render), in order. */
    void (*render_args)(const kvb_fix *f, const kvb_model *m,
                        struct kvb__args *a);
    /* Command lines: does argv start with this engine's program?  *used:
     * the words that name the program (a positional model after them is
     * read by the flags pass). */
    bool (*detect)(size_t argc, const char *const *argv, size_t *used);
    const kvb__flag *flags;
    size_t flag_count;
    bool underscores;      /* --max_model_len reads as --max-model-len */
    bool abbrev;           /* a unique prefix of a long flag names it
                              (Python argparse's allow_abbrev) */
    bool positional_model; /* "vllm serve MODEL", "ollama run MODEL" */
    /* Optional: one line of a log; true when it was this engine's line
     * (advice/explain.c offers each line to every engine). */
    bool (*log_line)(kvb_log_facts *f, const char *line, size_t len);
    /* Plans models with recurrent layers (Mamba2, Gated DeltaNet): its
     * check hook refuses the releases it does not model.  false: such a
     * model is refused by name for this engine (plan.c). */
    bool recurrent;
    /* Plans models with DeepSeek-V3.2's sparse-attention indexer (its key
     * cache in the KV bytes per token); false: refused by name (plan.c). */
    bool sparse_indexer;
    /* The first release that plans each of the two above ("0.10.2"); NULL:
     * every release.  Refusals list the engines from these fields, so a
     * new engine appears in them by its own table. */
    const char *recurrent_since;
    const char *sparse_indexer_since;
    /* Serves from the CPU alone when no GPU is given (llama.cpp, Ollama):
     * a pod without nvidia.com/gpu then runs, unplanned, rather than
     * failing (advice/check.c). */
    bool runs_on_cpu;
    /* Plans mllama (cross-attention layers, 'X'): its check hook refuses
     * the releases that do not serve it.  false: refused by name, with
     * no_cross_attention as the reason (plan.c). */
    bool cross_attention;
    const char *no_cross_attention;
    /* Plans Gemma 3n, whose last num_kv_shared_layers layers read an
     * earlier layer's KV and cache none; its check hook refuses what it
     * does not model.  false: refused by name (plan.c). */
    bool kv_sharing;
};

/* e->remedy(kind, quant), or NULL when e or its hook is NULL. */
const char *kvb__engine_remedy(const kvb__engine *e, int32_t kind,
                               int32_t quant);
/* A PyTorch serving process's terms (engines/torch_process.c): the
 * CUDA context, non-torch memory, activation peak, start-up reserve and
 * the weights as loaded, for TGI, TensorRT-LLM and SGLang; modelled as
 * vLLM's worker measures them. */
uint64_t kvb__torch_cuda_context(const kvb__engine_in *in);
uint64_t kvb__torch_non_torch(const kvb__engine_in *in);
uint64_t kvb__torch_activation(const kvb__engine_in *in, uint32_t stage);
uint64_t kvb__torch_startup_reserved(const kvb__engine_in *in);
uint32_t kvb__torch_weights_gpu_key(const kvb__engine_in *in);
uint64_t kvb__torch_loaded_weights(const kvb__engine_in *in, uint32_t stage,
                                   uint64_t inventory_bytes);

/* An engine's version as its users write it (engines/registry.c):
 * "0.8.5", "b6123"; "newest" for 0. */
void kvb__engine_version_text(const kvb__engine *e, uint32_t version, char *buf,
                              size_t cap);

/* A pool of blocks holding every layer (engines/paged.c): the bytes of
 * one block, what a request of `len` needs, the tokens and concurrency,
 * the longest context; hooks for TensorRT-LLM and TGI. */
uint64_t kvb__paged_block_bytes(const kvb__kv_stage *ks);
uint64_t kvb__paged_needed(const kvb__engine_in *in, const kvb__kv_stage *ks,
                           uint64_t len);
void kvb__paged_report(const kvb__engine_in *in, const kvb__kv_stage *ks,
                       uint64_t num_blocks, uint64_t *tokens,
                       double *concurrency);
uint64_t kvb__paged_fit_len(const kvb__engine_in *in, const kvb__kv_stage *ks,
                            uint64_t available, uint64_t num_blocks);

/* vLLM's and SGLang's --dtype / --quantization words for a scheme
 * (engines/quant_flags.c); GGUF as "--quantization gguf" only when
 * `gguf`. */
void kvb__quant_args(kvb__args *a, int32_t method, bool gguf);

/* For log_line hooks (engines/log_scan.c): mark fact `bit` present; the
 * text after `key` in line[0, len) (not NUL-terminated), or NULL. */
void kvb__log_set(kvb_log_facts *f, int bit);
const char *kvb__log_after(const char *line, size_t len, const char *key);
/* The decimal number at p (spaces skipped, digits and '.' only) if it lies
 * in [0, max]; false for none, or one out of range. */
bool kvb__log_number(const char *p, const char *end, double max, double *out);
/* v units as bytes, rounded; false where that does not fit an int64_t. */
bool kvb__log_bytes(double v, double unit, uint64_t *out);

/* The engines, in kvb_engine order; NULL for an unknown id. */
const kvb__engine *kvb__engine_get(int32_t id);
/* "vLLM 0.10.2 or later, SGLang 0.5.2 or later, llama.cpp": the engines
 * whose table plans recurrent layers (sparse_indexer false) or the sparse
 * indexer (true), in kvb_engine order; "none" when no engine does. */
void kvb__engines_planning(bool sparse_indexer, char *buf, size_t cap);
/* "vllm@0.8.3", "vllm-v0@0.8.3", "sglang", "llama.cpp@b6123": the engine,
 * its packed version (0 newest) and the accounting a variant name forces
 * (-1 none; accounting may be NULL). */
kvb_status kvb__engine_spec(const char *spec, int32_t *engine,
                            uint32_t *version, int32_t *accounting,
                            kvb_error *err);
/* A version in the engine's own syntax. */
bool kvb__engine_version_parse(const kvb__engine *e, const char *text,
                               uint32_t *version);
/* vLLM's parallelism rules, the default of kvb__engine.parallelism_bad. */
bool kvb__parallelism_bad(const kvb__engine_in *in, uint32_t gpu_count,
                          char *msg, size_t cap);
/* The plan's generic verdict, for engines that add to it. */
void kvb__verdict_default(const kvb__engine_in *in, kvb_plan *p,
                          const kvb__stage_result *r, bool text);

extern const kvb__engine kvb__engine_vllm;
extern const kvb__engine kvb__engine_sglang;    /* engines/sglang.c */
extern const kvb__engine kvb__engine_trtllm;    /* engines/trtllm.c */
extern const kvb__engine kvb__engine_tgi;       /* engines/tgi.c */
extern const kvb__engine kvb__engine_llama_cpp; /* engines/llama_cpp.c */
extern const kvb__engine kvb__engine_ollama;    /* engines/ollama.c */

/* ---- llama.cpp's memory rules (engines/ggml_memory.c), shared by
 * llama_cpp.c and ollama.c ---- */

/* What differs between builds. */
typedef struct kvb__ggml_opts {
    uint32_t pad;     /* cache padding: 256 (0), or 32 without FA (old) */
    bool mla_latent;  /* MLA caches the latent (K only), not K and V */
    uint32_t gpus;    /* GPUs the layers are split over (1) */
    bool few_outputs; /* the reserve sizes logits for n_seq_max tokens,
                         not n_ubatch (before PR #12545; llama-server
                         since PR #23861) */
} kvb__ggml_opts;

/* The resolved context of one llama.cpp instance. */
typedef struct kvb__ggml {
    uint64_t n_ctx, n_ctx_seq; /* cells, after padding */
    uint32_t n_seq, n_stream;  /* n_seq_max; streams (1 when unified) */
    uint64_t n_ubatch;
    uint64_t base_cells, swa_cells; /* per stream */
    bool unified, flash, mla_latent;
    int32_t type_k, type_v; /* kvb_storage */
    uint32_t n_layer, i_gpu_start, layers_on_gpu, layers_total;
    bool output_on_gpu;
    uint32_t n_cpu_moe, gpus;
    bool few_outputs;
    /* the vision tower: llama.cpp's mmproj (its own file, on the main GPU
     * unless --no-mmproj-offload, matrices in mmproj_type), else Ollama's
     * (with the output layer, as the inventory stores it) */
    bool mmproj, mmproj_gpu;
    int32_t mmproj_type;
} kvb__ggml;

typedef struct kvb__ggml_kv_split {
    uint64_t k, v;        /* the whole cache */
    uint64_t gpu, host;   /* on the GPUs, in host RAM */
    uint64_t gpu_busiest; /* on the GPU with the most layers */
    uint64_t swa;         /* of gpu: the sliding-window layers */
    uint64_t state;       /* the recurrent layers' state (in gpu / host) */
} kvb__ggml_kv_split;

typedef struct kvb__ggml_weights {
    uint64_t total, gpu, host, gpu_busiest;
    uint64_t tower;         /* of total: the vision tower, as the inventory
                               stores it */
    uint64_t tower_file;    /* the tower as loaded (the mmproj's types) */
    uint64_t tower_busiest; /* of gpu_busiest: the tower as loaded */
} kvb__ggml_weights;

/* ggml_row_size of n elements of a cache type (kvb_storage). */
uint64_t kvb__ggml_row_bytes(int32_t storage, uint64_t n);
const char *kvb__ggml_type_name(int32_t storage);
bool kvb__ggml_type_parse(const char *text, int32_t *storage);
/* The context llama.cpp builds from resolved settings (engine defaults
 * applied: max_num_seqs = slots, context_size 0 = n_ctx_train). */
void kvb__ggml_resolve(const kvb_model *m, const kvb_serving *s,
                       const kvb__ggml_opts *o, kvb__ggml *g);
/* Is layer il in llama.cpp's sliding-window (or chunked) cache? */
bool kvb__ggml_layer_swa(const kvb_model *m, uint32_t il);
/* Cells of layer il, all streams together. */
uint64_t kvb__ggml_layer_cells(const kvb_model *m, const kvb__ggml *g,
                               uint32_t il);
void kvb__ggml_layer_kv(const kvb_model *m, const kvb__ggml *g, uint32_t il,
                        uint64_t *k_bytes, uint64_t *v_bytes);
void kvb__ggml_kv(const kvb_model *m, const kvb__ggml *g,
                  kvb__ggml_kv_split *o);
kvb_status kvb__ggml_weights_split(const kvb_model *m, const kvb_quant *q,
                                   const kvb__ggml *g, kvb__ggml_weights *w);
/* The compute buffer of one device (with_output: it holds the output
 * layer). */
uint64_t kvb__ggml_compute(const kvb_model *m, const kvb__ggml *g,
                           bool with_output);
uint64_t kvb__ggml_output_buffer(const kvb_model *m, const kvb__ggml *g);

/* ---- engine: llama.cpp (engines/llama_cpp.c); Ollama reuses its hooks */

kvb__ggml_opts kvb__llama_opts(const kvb__engine_in *in);
void kvb__llama_resolve(const kvb__engine_in *in, kvb__ggml *g);
/* Fit the context (ctx_auto) and then layers (layers_auto) into `room`
 * bytes of the busiest GPU (llama.cpp --fit, Ollama's placement). */
void kvb__llama_fit(kvb__engine_in *in, uint64_t room, bool ctx_auto,
                    bool layers_auto);
/* The plan.c fields both engines fill the same way after their own
 * defaults (block 1, context, compute buffer ...). */
void kvb__llama_finish_defaults(kvb__engine_in *in);
/* max_model_len (one slot's context) into context_size. */
void kvb__llama_len_to_ctx(kvb__engine_in *in);
uint64_t kvb__llama_requested_bytes(const kvb__engine_in *in);
uint64_t kvb__llama_cuda_context(const kvb__engine_in *in);
uint64_t kvb__llama_zero(const kvb__engine_in *in);
uint64_t kvb__llama_no_graphs(const kvb__engine_in *in, uint32_t layers);
bool kvb__llama_false(const kvb__engine_in *in);
bool kvb__llama_parallelism_bad(const kvb__engine_in *in, uint32_t gpu_count,
                                char *msg, size_t cap);
uint32_t kvb__llama_weights_key(const kvb__engine_in *in);
uint64_t kvb__llama_loaded_weights(const kvb__engine_in *in, uint32_t stage,
                                   uint64_t inventory_bytes);
uint64_t kvb__llama_activation(const kvb__engine_in *in, uint32_t stage);
uint64_t kvb__llama_num_blocks(const kvb__engine_in *in,
                               const kvb__kv_stage *ks, uint64_t available);
uint64_t kvb__llama_needed(const kvb__engine_in *in, const kvb__kv_stage *ks,
                           uint64_t len);
void kvb__llama_report(const kvb__engine_in *in, const kvb__kv_stage *ks,
                       uint64_t num_blocks, uint64_t *tokens,
                       double *concurrency);
uint64_t kvb__llama_fit_len(const kvb__engine_in *in, const kvb__kv_stage *ks,
                            uint64_t available, uint64_t num_blocks);
void kvb__llama_finish(const kvb__engine_in *in, kvb_plan *p,
                       const kvb__stage_result *r);
void kvb__llama_verdict(const kvb__engine_in *in, kvb_plan *p,
                        const kvb__stage_result *r, bool text);
kvb_status kvb__llama_error_text(const kvb_plan *p, char *buf, size_t cap,
                                 size_t *needed, kvb_error *err);
/* Flag readers Ollama shares: -ctk, -ctv, -fa. */
kvb_status kvb__llama_ctk(kvb__cmd *c, const char *flag, const char *value,
                          kvb_error *err);
kvb_status kvb__llama_ctv(kvb__cmd *c, const char *flag, const char *value,
                          kvb_error *err);
kvb_status kvb__llama_fa(kvb__cmd *c, const char *flag, const char *value,
                         kvb_error *err);
bool kvb__llama_log_line(kvb_log_facts *f, const char *line, size_t len);
/* `key` in line[0, len), or NULL. */
const char *kvb__llama_find(const char *line, size_t len, const char *key);

/* ---- engine: vLLM (engines/vllm.c) ---- */

int32_t kvb__vllm_accounting(uint32_t version);
uint64_t kvb__vllm_derived_max_len(const kvb_model *model);
/* Why vLLM at in->version falls back to its V0 engine for these inputs
 * (_is_v1_supported_oracle), or NULL. */
const char *kvb__vllm_v0_fallback(const kvb__engine_in *in);
/* KVB_ERANGE unless vLLM `version` (0 = newest) accepts this block size. */
kvb_status kvb__vllm_block_size_check(uint32_t version, uint32_t block_size,
                                      kvb_error *err);
/* Fill every engine-default field of in->s (utilization, batch limits...). */
void kvb__vllm_defaults(kvb__engine_in *in);
uint64_t kvb__vllm_requested_bytes(const kvb__engine_in *in);
uint64_t kvb__vllm_cuda_context(const kvb__engine_in *in);
uint64_t kvb__vllm_non_torch(const kvb__engine_in *in);
uint64_t kvb__vllm_activation(const kvb__engine_in *in, uint32_t stage);
/* Bytes that must stay free outside the budget at start (context, NCCL). */
uint64_t kvb__vllm_startup_reserved(const kvb__engine_in *in);
/* KV needed for one request of `len` tokens on a stage, as the check does. */
uint64_t kvb__vllm_needed_bytes(const kvb__engine_in *in,
                                const kvb__kv_stage *ks, uint64_t len);
uint64_t kvb__vllm_num_blocks(const kvb__engine_in *in, const kvb__kv_stage *ks,
                              uint64_t available);
void kvb__vllm_report(const kvb__engine_in *in, const kvb__kv_stage *ks,
                      uint64_t num_blocks, uint64_t *tokens,
                      double *concurrency);
uint64_t kvb__vllm_fit_len(const kvb__engine_in *in, const kvb__kv_stage *ks,
                           uint64_t available, uint64_t num_blocks);
/* The weights of a stage as vLLM holds them: the inventory's bytes plus
 * allocator rounding, the rotary cos/sin cache and kernel padding. */
uint64_t kvb__vllm_loaded_weights(const kvb__engine_in *in, uint32_t stage,
                                  uint64_t inventory_bytes);
/* The ValueError (or OOM) text vLLM prints for a failing plan. */
kvb_status kvb__vllm_error_text(const kvb_plan *p, char *buf, size_t cap,
                                size_t *needed, kvb_error *err);

/* ---- GPU and serving (serving.c) ---- */

kvb_status kvb__gpu_load(const kvb_gpu *in, kvb_gpu *out, kvb_error *err);
kvb_status kvb__serving_load(const kvb_serving *in, kvb_serving *out,
                             kvb_error *err);

/* ---- presets (presets_*.c) ---- */

typedef struct kvb__model_row {
    const char *name;
    const char *aliases; /* comma-separated alternate names */
    const char *source;
    uint64_t published_params; /* the figure the test compares against */
    kvb_model m;               /* struct_size unused */
} kvb__model_row;

/* The Hugging Face repository of a model preset, for vLLM's --model. */
bool kvb__model_repo(const char *name, char *buf, size_t cap);
/* The tool that makes a checkpoint of a weight format from the base
 * weights (presets/checkpoints.c); NULL when none is needed. */
const char *kvb__quant_tool(int32_t method);
/* A checkpoint row's published size in bytes; 0 when none was found. */
uint64_t kvb__checkpoint_published_bytes(size_t index);
/* Does `name` match `canonical` or one of the comma-separated aliases? */
bool kvb__name_matches(const char *name, const char *canonical,
                       const char *aliases);

typedef struct kvb__gpu_row {
    const char *name;
    const char *aliases; /* comma-separated alternate names */
    const char *source;
    uint64_t total_bytes;
    uint32_t compute_capability;
    uint32_t multiprocessor_count;
} kvb__gpu_row;

typedef struct kvb__instance_row {
    const char *name;
    const char *cloud;
    const char *gpu; /* a GPU preset name */
    uint32_t gpu_count;
    uint32_t vcpus;
    uint64_t host_memory_bytes;
    double price_per_hour;
    const char *source;
} kvb__instance_row;

extern const kvb__model_row kvb__model_rows[];
/* An Ollama library name (NAME:SIZE[-flavour][-quant], presets/
 * ollama_tags.c) to its preset's name and the tag's GGUF format in
 * quant->method; a note says so.  KVB_ENOTFOUND (nothing set, *err
 * untouched) when the name is not in the table; KVB_EUNSUPPORTED for a
 * quantization the tag names but this version does not size. */
kvb_status kvb__ollama_tag_find(const char *name, const char **preset,
                                kvb_quant *quant, char *note, size_t cap,
                                kvb_error *err);
extern const size_t kvb__model_rows_count;
extern const kvb__gpu_row kvb__gpu_rows[];
extern const size_t kvb__gpu_rows_count;
extern const kvb__instance_row kvb__instance_rows[];
extern const size_t kvb__instance_rows_count;

/* ---- probe and validate (probe.c, validate.c) ---- */

/*
 * The device-memory seam: what validation needs of a GPU.  probe.c makes
 * one over the CUDA driver; the unit tests make one over a fake device.
 * alloc gives KVB_ENOMEM when the device is out of memory (a result, not
 * an error) and KVB_ECUDA, details in *err, on any other failure.
 */
typedef struct kvb__devmem {
    void *ctx;
    kvb_status (*mem_get_info)(void *ctx, uint64_t *free_bytes,
                               uint64_t *total_bytes, kvb_error *err);
    kvb_status (*alloc)(void *ctx, uint64_t bytes, uint64_t *handle,
                        kvb_error *err);
    kvb_status (*release)(void *ctx, uint64_t handle, kvb_error *err);
} kvb__devmem;

/* true when the library was built with CUDA support (KVB_HAVE_CUDA). */
bool kvb__probe_has_cuda(void);
/* The status of a CUresult (passed as int, so it builds without CUDA). */
kvb_status kvb__cuda_status(int cu_result);
/* The kernel module's version in /proc/driver/nvidia/version text. */
bool kvb__nvidia_version(const char *text, char *out, size_t cap);

/* A loaded CUDA driver, one per call: no global state (probe.c). */
typedef struct kvb__cuda kvb__cuda;
/* dlopen `library` (NULL: "libcuda.so.1") and cuInit; *out is malloc'ed. */
kvb_status kvb__cuda_open(const char *library, kvb__cuda **out, kvb_error *err);
/* Release the context taken by kvb__cuda_device, restore, unload. */
void kvb__cuda_close(kvb__cuda *cu);
kvb_status kvb__cuda_count(kvb__cuda *cu, uint32_t *count, kvb_error *err);
/* Retain device `index`'s primary context, make it current, probe it. */
kvb_status kvb__cuda_device(kvb__cuda *cu, uint32_t index, kvb_device *dev,
                            kvb_error *err);
/* The device-memory seam over the context kvb__cuda_device made current. */
void kvb__cuda_devmem(kvb__cuda *cu, kvb__devmem *dm);

/* Validation over any device; gpu names it, dev reads and allocates. */
kvb_status kvb__validate_run(const kvb__devmem *dev, const kvb_gpu *gpu,
                             const kvb_model *model, const kvb_quant *quant,
                             const kvb_serving *serving, kvb_validation *out,
                             kvb_error *err);

/* ---- advice and logs (advice/fix.c, explain.c) ---- */

/* The largest "friendly" length <= n: a power of two or a multiple of
 * 1024, whichever is larger; 0 for n == 0. */
uint64_t kvb__friendly_len(uint64_t n);

/* ---- Readers (lib/readers/: reader.c the state they share; json.c;
 * config.c and quant_config.c; safetensors.c, st_fast.c and st_dtypes.c;
 * gguf.c; files.c, the front door, above them all) ---- */

struct json_t; /* jansson's, kept out of this header */

/* Sees every tensor a reader counts (tests check bytes per tensor). */
typedef void (*kvb__tensor_seen_fn)(void *ctx, const char *name,
                                    size_t name_len, const char *type,
                                    uint64_t bytes);

/* One read in progress: full-size working copies of the outputs, where
 * each field came from (to point a validation error at the file), and the
 * JSON text being read (to locate a bad value by line and column). */
typedef struct kvb__reader {
    kvb_model model;
    kvb_quant quant;
    kvb_read_info info;
    uint32_t options; /* KVB_READ_* bits from the caller's info */
    kvb_error *err;
    char source[128]; /* the file being read; "" for buffers */
    const char *json; /* JSON text being read, or NULL */
    size_t json_len;
    uint64_t json_base;                     /* file offset of json[0] */
    int64_t where[KVB_READ_FIELD_LAST_][3]; /* line, column, offset; -1 */
    kvb__tensor_seen_fn on_tensor;          /* NULL: none */
    void *on_tensor_ctx;
} kvb__reader;

void kvb__reader_init(kvb__reader *r, const char *source, kvb_error *err);
void kvb__reader_source(kvb__reader *r, const char *source);
/* Append a warning to info.warning ("; "-joined, truncated). */
/* The caller's KVB_READ_* options (info may be NULL or older). */
void kvb__reader_options(kvb__reader *r, const kvb_read_info *info);
void kvb__read_warn(kvb__reader *r, const char *fmt, ...) KVB__PRINTF(2, 3);
/* Mark `field` as set by the file at (line, column, offset); -1 unknown. */
void kvb__read_mark(kvb__reader *r, int field, int64_t line, int64_t column,
                    int64_t offset);
/* Fail with a position in the file being read. */
kvb_status kvb__read_fail(kvb__reader *r, kvb_status status, const char *field,
                          int64_t line, int64_t column, int64_t offset,
                          const char *fmt, ...) KVB__PRINTF(7, 8);
/* KVB_EABI/EINVAL unless the caller's outputs are usable (quant and info
 * may be NULL). */
kvb_status kvb__read_outputs_check(const kvb_model *model,
                                   const kvb_quant *quant,
                                   const kvb_read_info *info, kvb_error *err);
/* Validate the model read and copy the results out. */
kvb_status kvb__read_finish(kvb__reader *r, kvb_model *model, kvb_quant *quant,
                            kvb_read_info *info);
/* Sum into a counter, failing with KVB_EOVERFLOW naming `what`. */
kvb_status kvb__read_add(kvb__reader *r, uint64_t *sum, uint64_t add,
                         const char *what);

/* JSON: depth and size checked (at most max_tokens '{', '[', ',' and ':',
 * the KVB__JSON_MAX_* below), then parsed by jansson; errors carry line,
 * column and offset (json_base + position). */
kvb_status kvb__json_load(kvb__reader *r, const char *text, size_t len,
                          uint64_t base, const char *what, uint64_t max_tokens,
                          struct json_t **out);
/* What each JSON format can hold, in structural bytes: a config.json has a
 * few hundred values (a million is far beyond any); an index two per
 * tensor; a safetensors header about a dozen per tensor, but jansson only
 * sees the headers the fast scanner does not take, so its cap is lower.
 * Each bounds the tree jansson builds (docs/reliability.md). */
#define KVB__JSON_MAX_CONFIG_TOKENS ((uint64_t)1 << 20)
#define KVB__JSON_MAX_INDEX_TOKENS  (2 * (uint64_t)KVB_READ_MAX_TENSORS + 4096)
#define KVB__JSON_MAX_ST_TOKENS     ((uint64_t)1 << 21)
/* Position (line, column, offset) of the value at `path` in r->json; path
 * items are object keys or "[i]" for array elements.  False when absent. */
bool kvb__json_locate(const kvb__reader *r, const char *const *path,
                      size_t depth, int64_t pos[3]);
/* Fail pointing at the value at `path` (or the enclosing value). */
kvb_status kvb__json_fail(kvb__reader *r, kvb_status status,
                          const char *const *path, size_t depth,
                          const char *field, const char *fmt, ...)
    KVB__PRINTF(6, 7);

/* Families: the flags and defaults a model_type implies. */
uint32_t kvb__family_flags(int32_t arch);

/* Store v in the kvb_model field of a KVB_READ_FIELD_* bit (the integer
 * fields only); false when it does not fit the field's width. */
bool kvb__model_field_set(kvb_model *m, int field, uint64_t v);

kvb_status kvb__config_read(kvb__reader *r, const char *json, size_t len);
/* quantization_config (or compression_config) of a parsed config. */
kvb_status kvb__quant_config_read(kvb__reader *r, struct json_t *root,
                                  struct json_t *nested, const char *key);

/* Apply an ignore / modules_to_not_convert / exclude_modules list: the
 * tensor roles its entries name go into r->quant.keep_roles; entries that
 * name no role, or one layer only, are named in a warning (list may be
 * NULL or not an array). */
void kvb__quant_ignore_apply(kvb__reader *r, struct json_t *list,
                             const char *key);
/* NVIDIA ModelOpt hf_quant_config.json (text, len): quant_algo,
 * group_size, kv_cache_quant_algo, exclude_modules.  Unless config.json
 * already named the method.  Local folders and the Hub share it. */
void kvb__modelopt_read(kvb__reader *r, const char *text, size_t len);

/* One safetensors file: buf holds the 8-byte length and the header.  The
 * fast path first, jansson for anything it does not take. */
kvb_status kvb__st_read(kvb__reader *r, const void *buf, size_t len,
                        uint64_t *bytes, uint64_t *tensors);
/* The same through jansson only: the reference the fast path must match. */
kvb_status kvb__st_read_jansson(kvb__reader *r, const void *buf, size_t len,
                                uint64_t *bytes, uint64_t *tensors);
/* Bits per element of a safetensors dtype; 0 when unknown. */
uint32_t kvb__st_dtype_bits(const char *dtype);
/* The same for the n bytes at s; *name is the table's spelling. */
uint32_t kvb__st_dtype_find(const char *s, size_t n, const char **name);
/* model.safetensors.index.json: calls `fn` once per distinct shard file
 * name (validated: a plain file name); total_size is 0 when absent.  The
 * fast path first, jansson for anything it does not take. */
typedef kvb_status (*kvb__shard_fn)(void *ctx, const char *name);
kvb_status kvb__st_index_read(kvb__reader *r, const char *json, size_t len,
                              kvb__shard_fn fn, void *ctx, uint64_t *total_size,
                              uint64_t *entries);
/* The same through jansson only: the reference the fast path must match. */
kvb_status kvb__st_index_read_jansson(kvb__reader *r, const char *json,
                                      size_t len, kvb__shard_fn fn, void *ctx,
                                      uint64_t *total_size, uint64_t *entries);

/* The fast paths (readers/st_fast.c): scanners for the fixed grammar of a
 * safetensors header (json: the header after its 8-byte length) and of
 * an index, without a JSON tree.  They only accept: true with the results
 * the jansson path gives, or false, having written nothing (on_tensor not
 * called either), for anything they do not expect, and the caller runs
 * the jansson path on the same bytes to get the result or the error. */
bool kvb__st_fast(kvb__reader *r, const char *json, size_t len, uint64_t *bytes,
                  uint64_t *tensors);
typedef struct kvb__st_index_scan {
    const char **names;  /* distinct shard names, sorted by strcmp, each
                            ending in NUL; one block: free(names) */
    size_t count;        /* names */
    uint64_t total_size; /* metadata.total_size; 0 when absent */
    uint64_t entries;    /* weight_map entries */
} kvb__st_index_scan;
bool kvb__st_index_fast(const char *json, size_t len, kvb__st_index_scan *out);

/* GGUF: `len` bytes of a file of `file_len` bytes.  When the header runs
 * past `len` but not past `file_len`, fails with KVB_EPARSE and sets
 * *need to the bytes it needs (else 0). */
kvb_status kvb__gguf_read(kvb__reader *r, const void *buf, size_t len,
                          uint64_t file_len, uint64_t *need);
/* The same from an open file, read as the parse goes into one buffer of
 * at most `cap` bytes: a header longer than that fails as above, with
 * *need set (read again with a larger cap). */
kvb_status kvb__gguf_read_file(kvb__reader *r, FILE *f, uint64_t file_len,
                               uint64_t cap, uint64_t *need);
/* ggml type sizes: elements per block and bytes per block; false for
 * removed or unknown ids. */
bool kvb__ggml_type_size(uint32_t type, uint64_t *block, uint64_t *bytes);

/* ---- performance paths (plan.c, batch.c, engines/vllm.c, kvcache.c) ---- */

/* What vLLM's batch defaults read of a GPU's name, found once per GPU
 * rather than per plan (kvb__gpu_names). */
#define KVB__GPU_NAMES_KNOWN 1u /* the other bits are valid */
#define KVB__GPU_NAMES_A100  2u /* the name contains "a100" */
#define KVB__GPU_NAMES_H100  4u /* the name contains "h100" or "h200" */
uint32_t kvb__gpu_names(const kvb_gpu *g);

/* What kvb__vllm_loaded_weights reads of the GPU, as a small key (the
 * MXFP4 kernel family; 0 when none applies). */
uint32_t kvb__vllm_weights_gpu_key(const kvb__engine_in *in);
/* The CUDA-graph pool of a stage of `layers` layers. */
uint64_t kvb__vllm_cudagraph_layers(const kvb__engine_in *in, uint32_t layers);
/* Layers of each kvb__attn_kind among [first, last), counted without
 * walking them (hybrid == false: all full attention). */
void kvb__kv_count_kinds(const kvb_model *m, uint32_t first, uint32_t last,
                         bool hybrid, uint32_t counts[3]);
/* kvb__vllm_fit_len by binary search only: the reference the closed form
 * is tested against. */
uint64_t kvb__vllm_fit_len_search(const kvb__engine_in *in,
                                  const kvb__kv_stage *ks, uint64_t available,
                                  uint64_t num_blocks);

#define KVB__STAGE_MEMO_SLOTS 4

/*
 * The terms of one pipeline stage that depend only on (model, quant,
 * tensor_parallel_size, pipeline_parallel_size, stage, expert
 * parallelism), each computed on first use and kept: a sweep keeps one
 * per combination across rows, kvb_plan_compute one for its call.  The
 * few row settings a term also reads are its memo key (the GPU's compute
 * capability for the loaded weights, the batch limits for the activation
 * peak, block size and hybrid grouping for the KV-cache shape).
 */
typedef struct kvb__stage_memo {
    uint32_t stage, first, last; /* the stage and its layers [first, last) */
    bool weights_done;
    kvb_status weights_st;
    uint64_t weights; /* kvb__stage_weights */
    struct {
        uint64_t in, out;   /* inventory bytes -> the engine's loaded weights */
        uint32_t gpu, used; /* the engine's weights_gpu_key */
        uint64_t settings;  /* kvb__settings_key of the plan */
    } load[KVB__STAGE_MEMO_SLOTS];
    uint32_t load_next;
    struct {
        uint64_t tokens, bytes; /* max_num_batched_tokens -> activation */
        uint32_t seqs, v0;      /* max_num_seqs, the V0 line (2: empty) */
        uint64_t settings;      /* kvb__settings_key of the plan */
    } act[KVB__STAGE_MEMO_SLOTS];
    uint32_t act_next;
    bool ks_done, ks_hybrid;
    uint32_t ks_block;
    kvb__kv_stage ks;
    bool kv_done; /* kvb__kv_bytes of (tp, pp), kept in stage 0's memo */
    uint64_t kv_whole, kv_per_gpu;
} kvb__stage_memo;

void kvb__stage_memo_init(kvb__stage_memo *mm, const kvb_model *m, uint32_t pp,
                          uint32_t stage);

/* The checkpoint totals of one (model, quant). */
typedef struct kvb__model_memo {
    kvb_status st;   /* kvb__weights_total's status */
    uint64_t bytes;  /* the inventory's checkpoint bytes */
    uint64_t params; /* kvb__model_params' total */
} kvb__model_memo;

/* Where kvb__plan_core finds memos kept across plans; NULL: none. */
typedef struct kvb__plan_cache {
    void *ctx;
    /* The totals of in->model and in->quant. */
    const kvb__model_memo *(*model)(void *ctx, const kvb__engine_in *in);
    /* Stage `stage` of in's (model, quant, tp, pp, expert parallelism). */
    kvb__stage_memo *(*stage)(void *ctx, const kvb__engine_in *in,
                              uint32_t stage);
} kvb__plan_cache;

/*
 * The plan of validated inputs (in->model, in->quant, in->gpu with the
 * count to use, in->s): everything kvb_plan_compute does after loading
 * them, once for both entry points.  with_message false leaves
 * p->message "" and formats nothing.  KVB_OK with the verdict in *p, or
 * the status of the model or a stage (details in *err).
 */
kvb_status kvb__plan_core(kvb__engine_in *in, const kvb__plan_cache *cache,
                          kvb_plan *p, bool with_message, kvb_error *err);

#endif /* KVB_INTERNAL_H */
