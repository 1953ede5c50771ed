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

#define KVB__ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define KVB__GIB(b) ((double)(b) / 1073741824.0) /* display only */
#define KVB__MIB ((uint64_t)1 << 20)

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
int kvb__strcasecmp(const char *a, const char *b);
/* Copy a string into a fixed buffer, always NUL-terminated. */
void kvb__strlcpy(char *dst, const char *src, size_t cap);
/* snprintf into (buf, cap); sets *needed; EBUFSIZE when truncated. */
kvb_status kvb__render(char *buf, size_t cap, size_t *needed, kvb_error *err,
                       const char *fmt, ...) KVB__PRINTF(5, 6);

/* ---- model (model.c) ---- */

typedef enum kvb__attn_kind {
    KVB__ATTN_FULL = 0,
    KVB__ATTN_SLIDING = 1,
    KVB__ATTN_CHUNKED = 2,
} kvb__attn_kind;

uint64_t kvb__head_dim(const kvb_model *m);
bool kvb__is_mla(const kvb_model *m);
bool kvb__layer_is_moe(const kvb_model *m, uint32_t layer);
kvb__attn_kind kvb__layer_attn(const kvb_model *m, uint32_t layer);
uint64_t kvb__shared_width(const kvb_model *m); /* all shared experts */
uint32_t kvb__dtype_bytes(int32_t dtype);
/* The dtype of activations: quant->dtype, else the model's. */
int32_t kvb__act_dtype(const kvb_model *m, const kvb_quant *q);
int32_t kvb__kv_dtype(const kvb_model *m, const kvb_quant *q);
/* Validate, reading the caller struct through struct_size first. */
kvb_status kvb__model_load(const kvb_model *in, kvb_model *out, kvb_error *err);
kvb_status kvb__quant_load(const kvb_quant *in, kvb_quant *out, kvb_error *err);

/* ---- tensor inventory (inventory.c) ---- */

/* One tensor as the inventory walk reports it; bytes come from quant.c. */
typedef struct kvb__tdesc {
    int32_t role;      /* kvb_tensor_role */
    int32_t layer;     /* -1 outside the decoder layers */
    int32_t split;     /* kvb_split */
    int32_t of_role;   /* for BIAS / NORM: the role it belongs to */
    uint64_t experts;  /* stacked experts, else 1 */
    uint64_t rows;     /* out_features */
    uint64_t cols;     /* in_features; 1 for vectors */
    uint32_t ordinal;  /* index among tensors of the same role in its layer */
} kvb__tdesc;

/* Return non-zero to stop the walk early (value is passed back). */
typedef int (*kvb__tensor_fn)(void *ctx, const kvb__tdesc *t);

/* Walk every tensor of a validated model in inventory order. */
int kvb__inventory_walk(const kvb_model *m, kvb__tensor_fn fn, void *ctx);
/* Walk only the tensors of layers [first, last), plus the globals selected. */
#define KVB__WALK_EMBED 1u
#define KVB__WALK_HEAD 2u
int kvb__inventory_walk_range(const kvb_model *m, uint32_t first,
                              uint32_t last, unsigned globals,
                              kvb__tensor_fn fn, void *ctx);
/* Hugging Face style name of a tensor. */
void kvb__tensor_name(const kvb_model *m, const kvb__tdesc *t, char *buf,
                      size_t cap);

/* ---- quantization (quant.c) ---- */

/* Storage chosen for one tensor under a scheme (llama.cpp mixes included). */
typedef struct kvb__quant_ctx {
    const kvb_model *model;
    const kvb_quant *quant;
    uint32_t attn_v_seen; /* llama.cpp's i_attention_wv counter */
    uint32_t attn_v_total; /* n_attention_wv */
} kvb__quant_ctx;

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
/* Weights bytes of one pipeline stage on one TP rank, as vLLM holds them. */
kvb_status kvb__stage_weights(const kvb_model *m, const kvb_quant *q,
                              uint32_t tp, uint32_t pp, uint32_t stage,
                              bool expert_parallel, uint64_t *bytes,
                              kvb_error *err);

/* ---- KV cache (kvcache.c) ---- */

/* The KV-cache shape of one pipeline stage on one TP rank. */
typedef struct kvb__kv_stage {
    uint32_t layers[3];      /* attention layers by kvb__attn_kind */
    uint64_t page_bytes;     /* one block of one layer */
    uint64_t token_bytes;    /* one token across the stage's layers */
    uint64_t window;         /* sliding window (tokens) */
    uint64_t chunk;          /* attention chunk (tokens) */
    uint32_t group_size;     /* layers per KV-cache group */
    uint32_t groups[3];      /* groups by kvb__attn_kind */
    uint32_t n_groups;
} kvb__kv_stage;

uint64_t kvb__kv_heads_per_rank(const kvb_model *m, uint32_t tp);
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

/* ---- engine: vLLM (engine_vllm.c) ---- */

/* Settings after defaults are applied, and the engine's measured terms. */
typedef struct kvb__engine_in {
    const kvb_model *model;
    const kvb_quant *quant;
    const kvb_gpu *gpu;
    kvb_serving s;          /* resolved copy */
    int32_t accounting;
    uint32_t version;       /* packed; 0 newest */
    uint64_t inventory_bytes; /* the inventory's checkpoint bytes */
} kvb__engine_in;

int32_t kvb__vllm_accounting(uint32_t version);
/* Fill every engine-default field of in->s (utilization, batch limits...). */
void kvb__vllm_defaults(kvb__engine_in *in);
uint64_t kvb__vllm_requested_bytes(const kvb__engine_in *in);
uint64_t kvb__vllm_cuda_context(const kvb__engine_in *in);
uint64_t kvb__vllm_non_torch(const kvb__engine_in *in);
uint64_t kvb__vllm_activation(const kvb__engine_in *in, uint32_t stage);
uint64_t kvb__vllm_cudagraph(const kvb__engine_in *in, uint32_t stage);
/* Bytes that must stay free outside the budget at start (context, NCCL). */
uint64_t kvb__vllm_startup_reserved(const kvb__engine_in *in);
/* KV needed for one request of `len` tokens on a stage, as the check does. */
uint64_t kvb__vllm_needed_bytes(const kvb__engine_in *in,
                                const kvb__kv_stage *ks, uint64_t len);
uint64_t kvb__vllm_num_blocks(const kvb__engine_in *in,
                              const kvb__kv_stage *ks, uint64_t available);
void kvb__vllm_report(const kvb__engine_in *in, const kvb__kv_stage *ks,
                      uint64_t num_blocks, uint64_t *tokens,
                      double *concurrency);
uint64_t kvb__vllm_fit_len(const kvb__engine_in *in, const kvb__kv_stage *ks,
                           uint64_t available, uint64_t num_blocks);
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
    const char *aliases;       /* comma-separated alternate names */
    const char *source;
    uint64_t published_params; /* the figure the test compares against */
    kvb_model m;               /* struct_size unused */
} kvb__model_row;

/* Does `name` match `canonical` or one of the comma-separated aliases? */
bool kvb__name_matches(const char *name, const char *canonical,
                       const char *aliases);

typedef struct kvb__gpu_row {
    const char *name;
    const char *aliases;    /* comma-separated alternate names */
    const char *source;
    uint64_t total_bytes;
    uint32_t compute_capability;
    uint32_t multiprocessor_count;
} kvb__gpu_row;

typedef struct kvb__instance_row {
    const char *name;
    const char *cloud;
    const char *gpu;        /* a GPU preset name */
    uint32_t gpu_count;
    uint32_t vcpus;
    uint64_t host_memory_bytes;
    double price_per_hour;
    const char *source;
} kvb__instance_row;

extern const kvb__model_row kvb__model_rows[];
extern const size_t kvb__model_rows_count;
extern const kvb__gpu_row kvb__gpu_rows[];
extern const size_t kvb__gpu_rows_count;
extern const kvb__instance_row kvb__instance_rows[];
extern const size_t kvb__instance_rows_count;

#endif /* KVB_INTERNAL_H */
