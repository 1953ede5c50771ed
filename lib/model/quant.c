/*
 * model/quant.c -- how each tensor is stored under a quantization scheme, and
 * the bytes of one tensor so stored (model/weights.c adds them up).
 * Layouts: ../docs/model.md#weights (AWQ/GPTQ packing, GGUF blocks and
 * llama.cpp's per-tensor mix rules, FP8 scales, MXFP4, bitsandbytes).
 */
#include "internal.h"

#include <string.h>

kvb_status kvb_quant_init(kvb_quant *quant, size_t struct_size)
{
    kvb_status st =
        kvb__struct_init(quant, struct_size, sizeof *quant, "quant");
    if (st == KVB_OK)
        quant->group_size = 128;
    return st;
}

/* ---- method names ---- */

typedef struct method_row {
    int32_t method;
    const char *name;
    const char *note;
} method_row;

/* First row per method is canonical; the rest are accepted spellings. */
static const method_row methods[] = {
    {KVB_QUANT_AUTO, "auto", "the checkpoint's own 16-bit weights"},
    {KVB_QUANT_FP32, "fp32", "full precision; twice the memory of 16-bit"},
    {KVB_QUANT_FP16, "fp16", "baseline quality"},
    {KVB_QUANT_BF16, "bf16", "baseline quality"},
    {KVB_QUANT_FP8, "fp8", "near-lossless; native on Ada/Hopper and newer"},
    {KVB_QUANT_GPTQ_8, "gptq-8", "minimal quality loss"},
    {KVB_QUANT_GPTQ_4, "gptq-4",
     "slight degradation, mostly on complex reasoning"},
    {KVB_QUANT_AWQ_4, "awq-4",
     "slight degradation, mostly on complex reasoning"},
    {KVB_QUANT_Q8_0, "q8_0", "near-lossless GGUF"},
    {KVB_QUANT_Q6_K, "q6_k", "near-lossless GGUF"},
    {KVB_QUANT_Q5_K_M, "q5_k_m", "small loss; a good GGUF default"},
    {KVB_QUANT_Q4_K_M, "q4_k_m", "moderate loss; good for chat"},
    {KVB_QUANT_Q4_0, "q4_0", "noticeable loss; legacy GGUF format"},
    {KVB_QUANT_BNB_4, "bnb-4", "slight degradation; slow kernels in vLLM"},
    {KVB_QUANT_MXFP4, "mxfp4", "the format gpt-oss was trained for"},
    {KVB_QUANT_W4A16, "w4a16", "slight degradation; Marlin kernels (8.0+)"},
    {KVB_QUANT_W8A8_INT8, "w8a8-int8", "near-lossless; int8 compute (7.5+)"},
    {KVB_QUANT_NVFP4, "nvfp4",
     "small loss; native on Blackwell (10.0+), Marlin weight-only before"},
    {KVB_QUANT_BNB_8, "bnb-8", "near-lossless; slow kernels"},
    {KVB_QUANT_Q2_K, "q2_k", "large loss; smallest k-quant"},
    {KVB_QUANT_Q3_K_S, "q3_k_s", "large loss"},
    {KVB_QUANT_Q3_K_M, "q3_k_m", "noticeable loss"},
    {KVB_QUANT_Q3_K_L, "q3_k_l", "noticeable loss"},
    {KVB_QUANT_Q4_K_S, "q4_k_s", "moderate loss"},
    {KVB_QUANT_Q5_K_S, "q5_k_s", "small loss"},
    {KVB_QUANT_Q5_0, "q5_0", "small loss; legacy GGUF format"},
    {KVB_QUANT_Q5_1, "q5_1", "small loss; legacy GGUF format"},
    {KVB_QUANT_IQ4_XS, "iq4_xs", "moderate loss; made with an imatrix"},
    {KVB_QUANT_IQ4_NL, "iq4_nl", "moderate loss; made with an imatrix"},
    {KVB_QUANT_IQ3_M, "iq3_m", "noticeable loss; made with an imatrix"},
    {KVB_QUANT_AUTO, "none", NULL},
    {KVB_QUANT_FP16, "float16", NULL},
    {KVB_QUANT_BF16, "bfloat16", NULL},
    {KVB_QUANT_FP32, "float32", NULL},
    {KVB_QUANT_FP8, "w8", NULL},
    {KVB_QUANT_FP8, "fp8-w8", NULL},
    {KVB_QUANT_GPTQ_8, "gptq8", NULL},
    {KVB_QUANT_GPTQ_8, "gptq-int8", NULL},
    {KVB_QUANT_GPTQ_4, "gptq", NULL},
    {KVB_QUANT_GPTQ_4, "gptq4", NULL},
    {KVB_QUANT_GPTQ_4, "gptq-int4", NULL},
    {KVB_QUANT_AWQ_4, "awq", NULL},
    {KVB_QUANT_AWQ_4, "awq4", NULL},
    {KVB_QUANT_BNB_4, "bitsandbytes", NULL},
    {KVB_QUANT_BNB_4, "bnb", NULL},
    {KVB_QUANT_BNB_4, "nf4", NULL},
    {KVB_QUANT_W4A16, "int4-w4a16", NULL},
    {KVB_QUANT_W8A8_INT8, "w8a8", NULL},
    {KVB_QUANT_W8A8_INT8, "int8", NULL},
    {KVB_QUANT_NVFP4, "modelopt_fp4", NULL},
    {KVB_QUANT_BNB_8, "llm.int8", NULL},
    {KVB_QUANT_BNB_8, "int8-bnb", NULL},
};

const char *kvb_quant_method_name(int method)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(methods); i++)
        if (methods[i].method == method)
            return methods[i].name;
    return NULL;
}

const char *kvb_quant_method_note(int method)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(methods); i++)
        if (methods[i].method == method && methods[i].note)
            return methods[i].note;
    return "unknown method";
}

kvb_status kvb_quant_method_find(const char *name, int32_t *method,
                                 kvb_error *err)
{
    if (!name || !method)
        return kvb__fail(err, KVB_EINVAL, "quant.method",
                         "quant.method: name and method must not be NULL");
    for (size_t i = 0; i < KVB__ARRAY_LEN(methods); i++) {
        if (kvb__strcasecmp(methods[i].name, name) == 0) {
            *method = methods[i].method;
            return KVB_OK;
        }
    }
    return kvb__fail(err, KVB_ENOTFOUND, "quant.method",
                     "quant.method (%s) is not known; allowed: fp16, bf16, "
                     "fp32, fp8, gptq-8, gptq-4, awq-4, w4a16, w8a8-int8, "
                     "nvfp4, bnb-4, bnb-8, mxfp4, q8_0, q6_k, q5_k_m, "
                     "q5_k_s, q5_1, q5_0, q4_k_m, q4_k_s, q4_0, iq4_xs, "
                     "iq4_nl, q3_k_l, q3_k_m, iq3_m, q3_k_s, q2_k",
                     name);
}

kvb_status kvb__quant_load(const kvb_quant *in, kvb_quant *out, kvb_error *err)
{
    if (!in) {
        KVB__CANNOT_FAIL(kvb_quant_init(out, sizeof *out));
        return KVB_OK;
    }
    kvb_status st = kvb__struct_in(in, sizeof *out, out, "quant", err);
    if (st)
        return st;
    if (out->method < 0 || out->method >= KVB_QUANT_LAST_)
        return kvb__fail(err, KVB_ERANGE, "quant.method",
                         "quant.method (%d) is not a kvb_quant_method; "
                         "allowed: 0..%d",
                         out->method, KVB_QUANT_LAST_ - 1);
    if (out->dtype < 0 || out->dtype >= KVB_DTYPE_LAST_ ||
        out->dtype == KVB_DTYPE_FP8)
        return kvb__fail(err, KVB_ERANGE, "quant.dtype",
                         "quant.dtype (%d) is not an activation dtype; "
                         "allowed: auto, fp32, fp16, bf16",
                         out->dtype);
    if (out->kv_cache_dtype < 0 || out->kv_cache_dtype >= KVB_DTYPE_LAST_)
        return kvb__fail(err, KVB_ERANGE, "quant.kv_cache_dtype",
                         "quant.kv_cache_dtype (%d) is not a kvb_dtype; "
                         "allowed: auto, fp32, fp16, bf16, fp8",
                         out->kv_cache_dtype);
    if (out->fp8_scale < 0 || out->fp8_scale >= KVB_FP8_SCALE_LAST_)
        return kvb__fail(err, KVB_ERANGE, "quant.fp8_scale",
                         "quant.fp8_scale (%d) is not a kvb_fp8_scale; "
                         "allowed: 0..%d",
                         out->fp8_scale, KVB_FP8_SCALE_LAST_ - 1);
    if (out->flags & ~KVB_QUANT_FLAGS_ALL_)
        return kvb__fail(err, KVB_ERANGE, "quant.flags",
                         "quant.flags (0x%x) has unknown bits; allowed: "
                         "KVB_QUANT_* bits",
                         out->flags);
    if (out->keep_roles >> KVB_ROLE_LAST_)
        return kvb__fail(err, KVB_ERANGE, "quant.keep_roles",
                         "quant.keep_roles (0x%llx) has bits past the last "
                         "kvb_tensor_role; allowed: bits 0..%d",
                         (unsigned long long)out->keep_roles,
                         KVB_ROLE_LAST_ - 1);
    return kvb__check_field(err, KVB__F_QUANT_GROUP_SIZE, out->group_size);
}

/* ---- which storage each tensor gets ---- */

static bool is_linear(int32_t role)
{
    switch (role) {
    case KVB_ROLE_ATTN_Q:
    case KVB_ROLE_ATTN_K:
    case KVB_ROLE_ATTN_V:
    case KVB_ROLE_ATTN_QKV:
    case KVB_ROLE_ATTN_O:
    case KVB_ROLE_MLA_Q_A:
    case KVB_ROLE_MLA_Q_B:
    case KVB_ROLE_MLA_KV_A:
    case KVB_ROLE_MLA_KV_B:
    case KVB_ROLE_MLP_GATE:
    case KVB_ROLE_MLP_UP:
    case KVB_ROLE_MLP_GATE_UP:
    case KVB_ROLE_MLP_DOWN:
    case KVB_ROLE_EXPERT_GATE:
    case KVB_ROLE_EXPERT_UP:
    case KVB_ROLE_EXPERT_DOWN:
    case KVB_ROLE_SHARED_GATE:
    case KVB_ROLE_SHARED_UP:
    case KVB_ROLE_SHARED_DOWN:
    case KVB_ROLE_SSM_IN:
    case KVB_ROLE_SSM_OUT:
    case KVB_ROLE_INDEXER_WQ_B:
    case KVB_ROLE_INDEXER_WK:
    /* Zamba2's adapters and per-layer linear: vLLM zamba2.py builds them
     * with the quant_config, like the block's own linears. */
    case KVB_ROLE_ADAPTER_A:
    case KVB_ROLE_ADAPTER_B:
    case KVB_ROLE_HYBRID_LINEAR: return true;
    default: return false;
    }
}

static bool is_down(int32_t role)
{
    return role == KVB_ROLE_MLP_DOWN || role == KVB_ROLE_EXPERT_DOWN ||
           role == KVB_ROLE_SHARED_DOWN;
}

static bool is_attn_v_like(int32_t role)
{
    return role == KVB_ROLE_ATTN_V || role == KVB_ROLE_ATTN_QKV ||
           role == KVB_ROLE_MLA_KV_B;
}

static int32_t float_storage(int32_t dtype)
{
    switch (dtype) {
    case KVB_DTYPE_FP32: return KVB_STORAGE_F32;
    case KVB_DTYPE_FP16: return KVB_STORAGE_F16;
    default: return KVB_STORAGE_BF16;
    }
}

void kvb__quant_ctx_init(kvb__quant_ctx *qc, const kvb_model *m,
                         const kvb_quant *q)
{
    qc->model = m;
    qc->quant = q;
    qc->attn_v_seen = 0;
    qc->attn_v_total = m->num_hidden_layers; /* one attn_v-like per layer */
}

bool kvb__use_more_bits(uint32_t i, uint32_t n)
{
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

/* GGML block sizes and bytes (ggml-common.h static_asserts; QK_K 256). */
typedef struct ggml_type_row {
    int32_t s;
    uint64_t block, size;
} ggml_type_row;

static const ggml_type_row ggml_types[] = {
    {KVB_STORAGE_Q4_0, 32, 18},     {KVB_STORAGE_Q4_1, 32, 20},
    {KVB_STORAGE_Q5_0, 32, 22},     {KVB_STORAGE_Q5_1, 32, 24},
    {KVB_STORAGE_Q8_0, 32, 34},     {KVB_STORAGE_Q4_K, 256, 144},
    {KVB_STORAGE_Q5_K, 256, 176},   {KVB_STORAGE_Q6_K, 256, 210},
    {KVB_STORAGE_Q2_K, 256, 84},    {KVB_STORAGE_Q3_K, 256, 110},
    {KVB_STORAGE_IQ4_XS, 256, 136}, {KVB_STORAGE_IQ4_NL, 32, 18},
    {KVB_STORAGE_IQ3_S, 256, 110},
};

static uint64_t ggml_block(int32_t storage)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(ggml_types); i++)
        if (ggml_types[i].s == storage)
            return ggml_types[i].block;
    return 1;
}

/* tensor_type_fallback: k-quants need rows of whole 256-element blocks. */
static int32_t gguf_fallback(int32_t storage, uint64_t cols)
{
    if (cols % ggml_block(storage) != 0) {
        switch (storage) {
        case KVB_STORAGE_Q2_K:
        case KVB_STORAGE_Q3_K: storage = KVB_STORAGE_Q4_0; break;
        case KVB_STORAGE_IQ3_S:
        case KVB_STORAGE_IQ4_XS: storage = KVB_STORAGE_IQ4_NL; break;
        case KVB_STORAGE_Q4_K: storage = KVB_STORAGE_Q5_0; break;
        case KVB_STORAGE_Q5_K: storage = KVB_STORAGE_Q5_1; break;
        case KVB_STORAGE_Q6_K: storage = KVB_STORAGE_Q8_0; break;
        default: break;
        }
    }
    return cols % 32 != 0 ? KVB_STORAGE_F16 : storage;
}

/* llama_ftype_get_default_type, for the mixes offered. */
static const struct {
    int32_t method, base;
} gguf_mixes[] = {
    {KVB_QUANT_Q8_0, KVB_STORAGE_Q8_0},
    {KVB_QUANT_Q6_K, KVB_STORAGE_Q6_K},
    {KVB_QUANT_Q5_K_M, KVB_STORAGE_Q5_K},
    {KVB_QUANT_Q4_K_M, KVB_STORAGE_Q4_K},
    {KVB_QUANT_Q4_0, KVB_STORAGE_Q4_0},
    {KVB_QUANT_Q2_K, KVB_STORAGE_Q2_K},
    {KVB_QUANT_Q3_K_S, KVB_STORAGE_Q3_K},
    {KVB_QUANT_Q3_K_M, KVB_STORAGE_Q3_K},
    {KVB_QUANT_Q3_K_L, KVB_STORAGE_Q3_K},
    {KVB_QUANT_Q4_K_S, KVB_STORAGE_Q4_K},
    {KVB_QUANT_Q5_K_S, KVB_STORAGE_Q5_K},
    {KVB_QUANT_Q5_0, KVB_STORAGE_Q5_0},
    {KVB_QUANT_Q5_1, KVB_STORAGE_Q5_1},
    {KVB_QUANT_IQ4_XS, KVB_STORAGE_IQ4_XS},
    {KVB_QUANT_IQ4_NL, KVB_STORAGE_IQ4_NL},
    {KVB_QUANT_IQ3_M, KVB_STORAGE_IQ3_S},
};

static int32_t gguf_base(int32_t method)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(gguf_mixes); i++)
        if (gguf_mixes[i].method == method)
            return gguf_mixes[i].base;
    return -1;
}

/* The index-dependent rules of the mixes look at a layer only through
 * these tests (attn_v's i_attention_wv equals the layer index: one
 * attn_v-like tensor per layer), so layers of one class weigh alike. */
unsigned kvb__gguf_layer_class(const kvb__quant_ctx *qc, uint32_t i)
{
    uint32_t n = qc->model->num_hidden_layers;
    if (!kvb__quant_is_gguf(qc->quant->method))
        return 0;
    return (kvb__use_more_bits(i, n) ? 1u : 0u) | (i < n / 16 ? 2u : 0u) |
           (i < n / 8 ? 4u : 0u) | (i < 4 ? 8u : 0u) | (i < 2 ? 16u : 0u);
}

/* The lowest compute capability vLLM loads a format on (each method's
 * get_min_capability: fp8.py and mxfp4.py 80, modelopt NVFP4 80 through
 * FP4 Marlin from 0.9, awq.py 75, compressed-tensors W8A8 INT8 75). */
bool kvb__quant_gpu_ok(int32_t method, uint32_t cc)
{
    uint32_t need = 0;
    switch (method) {
    case KVB_QUANT_FP8:
    case KVB_QUANT_NVFP4:
    case KVB_QUANT_MXFP4: need = 80; break;
    case KVB_QUANT_AWQ_4:
    case KVB_QUANT_W8A8_INT8: need = 75; break;
    default: break;
    }
    return cc == 0 || cc >= need;
}

bool kvb__quant_is_gguf(int32_t method)
{
    return gguf_base(method) >= 0;
}

static uint32_t gguf_gqa(const kvb_model *m)
{
    return m->num_key_value_heads
               ? m->num_attention_heads / m->num_key_value_heads
               : 1;
}

/* llama.cpp treats a 80-layer Llama/Qwen2 as "70B" and gives it more bits. */
static bool gguf_is_70b(const kvb_model *m)
{
    return m->num_hidden_layers == 80 &&
           (m->arch == KVB_ARCH_LLAMA || m->arch == KVB_ARCH_QWEN2 ||
            m->arch == KVB_ARCH_GENERIC);
}

/* llama_tensor_get_type_impl, attn_v branch (one if-else chain). */
static int32_t gguf_attn_v(kvb__quant_ctx *qc, int32_t base)
{
    const kvb_model *m = qc->model;
    int32_t method = qc->quant->method;
    int32_t t = base;
    uint32_t i = qc->attn_v_seen++;
    bool gqa4 = gguf_gqa(m) >= 4;
    if (method == KVB_QUANT_Q2_K)
        t = gqa4 ? KVB_STORAGE_Q4_K : KVB_STORAGE_Q3_K;
    else if (method == KVB_QUANT_IQ3_M)
        t = KVB_STORAGE_Q4_K;
    else if (method == KVB_QUANT_Q3_K_M)
        t = i < 2 ? KVB_STORAGE_Q5_K : KVB_STORAGE_Q4_K;
    else if (method == KVB_QUANT_Q3_K_L)
        t = KVB_STORAGE_Q5_K;
    else if ((method == KVB_QUANT_IQ4_NL || method == KVB_QUANT_IQ4_XS) && gqa4)
        t = KVB_STORAGE_Q5_K;
    else if ((method == KVB_QUANT_Q4_K_M || method == KVB_QUANT_Q5_K_M) &&
             kvb__use_more_bits(i, qc->attn_v_total))
        t = KVB_STORAGE_Q6_K;
    else if (method == KVB_QUANT_Q4_K_S && i < 4)
        t = KVB_STORAGE_Q5_K;
    if (gguf_is_70b(m) && (t == KVB_STORAGE_Q3_K || t == KVB_STORAGE_Q4_K))
        t = KVB_STORAGE_Q5_K;
    if (m->num_experts == 8)
        t = KVB_STORAGE_Q8_0;
    return t;
}

static int32_t gguf_down(const kvb__quant_ctx *qc, int32_t base, int32_t layer)
{
    const kvb_model *m = qc->model;
    uint32_t i = (uint32_t)layer, n = m->num_hidden_layers;
    bool falcon = m->arch == KVB_ARCH_FALCON;
    switch (qc->quant->method) {
    case KVB_QUANT_Q2_K: return KVB_STORAGE_Q3_K;
    case KVB_QUANT_Q3_K_M:
        if (i < n / 16)
            return KVB_STORAGE_Q5_K;
        if (falcon)
            return kvb__use_more_bits(i, n) ? KVB_STORAGE_Q4_K : base;
        return KVB_STORAGE_Q4_K;
    case KVB_QUANT_Q3_K_L: return falcon ? KVB_STORAGE_Q4_K : KVB_STORAGE_Q5_K;
    case KVB_QUANT_IQ3_M:
        return i < n / 8 || (m->num_experts == 8 && kvb__use_more_bits(i, n))
                   ? KVB_STORAGE_Q4_K
                   : base;
    /* IQ4_NL / IQ4_XS get Q5_K in the first n/8 only without an
     * importance matrix; published IQ files are made with one (bartowski's
     * Llama-3.1-70B IQ4_XS, 37.90 GB, matches only that way), so no bump */
    case KVB_QUANT_Q4_K_S:
        return i < n / 8 && !falcon ? KVB_STORAGE_Q5_K : base;
    case KVB_QUANT_Q4_K_M:
        if (m->arch == KVB_ARCH_FALCON)
            return i < n / 16                 ? KVB_STORAGE_Q6_K
                   : kvb__use_more_bits(i, n) ? KVB_STORAGE_Q5_K
                                              : KVB_STORAGE_Q4_K;
        return kvb__use_more_bits(i, n) ? KVB_STORAGE_Q6_K : base;
    case KVB_QUANT_Q5_K_M:
        return kvb__use_more_bits(i, n) ? KVB_STORAGE_Q6_K : base;
    default: return base;
    }
}

/* attn_output: more bits for 8-expert models (Mixtral) and the small
 * k-quant mixes (llama-quant.cpp, attn_output branch). */
static int32_t gguf_attn_output(const kvb__quant_ctx *qc, int32_t base)
{
    const kvb_model *m = qc->model;
    int32_t q = qc->quant->method;
    if (m->arch == KVB_ARCH_FALCON)
        return q == KVB_QUANT_Q3_K_L ? KVB_STORAGE_Q4_K : base;
    if (m->num_experts == 8)
        return q == KVB_QUANT_Q2_K || q == KVB_QUANT_Q3_K_S ||
                       q == KVB_QUANT_Q3_K_M || q == KVB_QUANT_IQ4_NL ||
                       q == KVB_QUANT_Q4_K_S || q == KVB_QUANT_Q4_K_M ||
                       q == KVB_QUANT_IQ4_XS || q == KVB_QUANT_IQ3_M
                   ? KVB_STORAGE_Q5_K
                   : base;
    switch (q) {
    case KVB_QUANT_IQ3_M: return KVB_STORAGE_Q4_K;
    case KVB_QUANT_Q2_K: return KVB_STORAGE_Q3_K;
    case KVB_QUANT_Q3_K_M: return KVB_STORAGE_Q4_K;
    case KVB_QUANT_Q3_K_L: return KVB_STORAGE_Q5_K;
    default: return base;
    }
}

/* llama-quant.cpp's llama_tensor_get_type for the mixes we offer. */
static int32_t gguf_storage(kvb__quant_ctx *qc, const kvb__tdesc *t)
{
    const kvb_model *m = qc->model;
    int32_t base = gguf_base(qc->quant->method);
    bool output = t->role == KVB_ROLE_LM_HEAD ||
                  (t->role == KVB_ROLE_EMBED && m->tie_word_embeddings);
    int32_t s = base;
    if (output) {
        if (m->arch == KVB_ARCH_FALCON || t->cols % ggml_block(base) != 0 ||
            base == KVB_STORAGE_Q8_0)
            s = KVB_STORAGE_Q8_0;
        else
            s = KVB_STORAGE_Q6_K;
    } else if (t->role == KVB_ROLE_EMBED) {
        s = base;
    } else if (is_attn_v_like(t->role)) {
        s = gguf_attn_v(qc, base);
    } else if (t->role == KVB_ROLE_ATTN_K && m->num_experts == 8) {
        s = KVB_STORAGE_Q8_0;
    } else if (is_down(t->role)) {
        s = gguf_down(qc, base, t->layer);
    } else if (t->role == KVB_ROLE_ATTN_O) {
        s = gguf_attn_output(qc, base);
    }
    return gguf_fallback(s, t->cols);
}

/* What a tensor the checkpoint leaves unquantized is stored in: AutoAWQ
 * and GPTQ checkpoints are saved in FP16 (their loaders cast to it), the
 * others keep the model dtype. */
static int32_t unquantized(int32_t method, int32_t dtype)
{
    switch (method) {
    case KVB_QUANT_AWQ_4:
    case KVB_QUANT_GPTQ_4:
    case KVB_QUANT_GPTQ_8: return KVB_STORAGE_F16;
    default: return float_storage(dtype);
    }
}

/* The checkpoint's exclusion list (quant.keep_roles) names this role.
 * Only the quantized safetensors formats have such a list: the float
 * methods quantize nothing, and in GGUF llama-quantize's rules decide. */
static bool kept(const kvb_quant *q, int32_t role)
{
    bool float_method =
        q->method == KVB_QUANT_AUTO || q->method == KVB_QUANT_FP32 ||
        q->method == KVB_QUANT_FP16 || q->method == KVB_QUANT_BF16;
    return role >= 0 && role < KVB_ROLE_LAST_ && (q->keep_roles >> role & 1u) &&
           !float_method && !kvb__quant_is_gguf(q->method);
}

int32_t kvb__storage_for(kvb__quant_ctx *qc, const kvb__tdesc *t)
{
    const kvb_quant *q = qc->quant;
    int32_t dtype = kvb__act_dtype(qc->model, q);
    if (kept(q, t->role))
        return unquantized(q->method, dtype);
    bool weight = t->cols > 1 && t->role != KVB_ROLE_NORM &&
                  t->role != KVB_ROLE_BIAS && t->role != KVB_ROLE_SINKS &&
                  t->role != KVB_ROLE_ROUTER_BIAS;
    /* Quantized checkpoints leave the tower in 16 bits: their ignore /
     * modules_to_not_convert lists name it (RedHatAI Llama-4-Scout
     * FP8-dynamic: vision_model.*, multi_modal_projector.*), and GGUF
     * keeps it in a separate mmproj file. */
    if (t->role == KVB_ROLE_VISION && q->method != KVB_QUANT_FP32 &&
        q->method != KVB_QUANT_FP16 && q->method != KVB_QUANT_BF16)
        return float_storage(dtype);
    switch (q->method) {
    case KVB_QUANT_FP32: return KVB_STORAGE_F32;
    case KVB_QUANT_FP16: return KVB_STORAGE_F16;
    case KVB_QUANT_BF16: return KVB_STORAGE_BF16;
    case KVB_QUANT_AUTO: return float_storage(dtype);
    case KVB_QUANT_FP8:
        return is_linear(t->role) ? KVB_STORAGE_FP8 : float_storage(dtype);
    case KVB_QUANT_GPTQ_8:
        return is_linear(t->role) ? KVB_STORAGE_GPTQ_8 : KVB_STORAGE_F16;
    case KVB_QUANT_GPTQ_4:
        return is_linear(t->role) ? KVB_STORAGE_GPTQ_4 : KVB_STORAGE_F16;
    case KVB_QUANT_AWQ_4:
        return is_linear(t->role) ? KVB_STORAGE_AWQ_4 : KVB_STORAGE_F16;
    case KVB_QUANT_BNB_4:
        return is_linear(t->role) ? KVB_STORAGE_BNB_4 : float_storage(dtype);
    case KVB_QUANT_MXFP4:
        return t->experts > 1 && is_linear(t->role) ? KVB_STORAGE_MXFP4
                                                    : float_storage(dtype);
    case KVB_QUANT_W4A16:
        return is_linear(t->role) ? KVB_STORAGE_INT4_PACKED
                                  : float_storage(dtype);
    case KVB_QUANT_W8A8_INT8:
        return is_linear(t->role) ? KVB_STORAGE_INT8 : float_storage(dtype);
    case KVB_QUANT_NVFP4:
        return is_linear(t->role) ? KVB_STORAGE_NVFP4 : float_storage(dtype);
    case KVB_QUANT_BNB_8:
        return is_linear(t->role) ? KVB_STORAGE_BNB_8 : float_storage(dtype);
    default: break;
    }
    /* GGUF: 1-D tensors, routers and positions stay F32 (convert script). */
    if (!weight || t->role == KVB_ROLE_ROUTER ||
        t->role == KVB_ROLE_POS_EMBED || t->role == KVB_ROLE_SHARED_EXPERT_GATE)
        return KVB_STORAGE_F32;
    return gguf_storage(qc, t);
}

/* ---- bytes of a stored tensor ---- */

static kvb_status ggml_bytes(int32_t storage, uint64_t n, uint64_t cols,
                             uint64_t *bytes)
{
    const ggml_type_row *t = ggml_types;
    for (size_t i = 0; i < KVB__ARRAY_LEN(ggml_types); i++) {
        if (t[i].s != storage)
            continue;
        if (cols % t[i].block != 0)
            return KVB_EUNSUPPORTED;
        *bytes = n / t[i].block * t[i].size;
        return KVB_OK;
    }
    return KVB_EINVAL;
}

/* AWQ GEMM / GPTQ: packed int32 weights, per-group zeros and FP16 scales,
 * and (GPTQ) an int32 group index per input row. */
static kvb_status packed_bytes(uint64_t rows, uint64_t cols, uint64_t group,
                               uint64_t bits, bool g_idx, uint64_t *bytes)
{
    uint64_t g = group ? group : cols;
    if (cols % g != 0 || (rows * bits) % 32 != 0 || (cols * bits) % 32 != 0)
        return KVB_EUNSUPPORTED;
    uint64_t groups = cols / g;
    *bytes = rows * cols * bits / 8 + groups * rows * bits / 8 +
             groups * rows * 2 + (g_idx ? 4 * cols : 0);
    return KVB_OK;
}

/* bitsandbytes NF4: two codes per byte, an absmax per 64 elements (8-bit
 * with a FP32 scale per 256 absmax values under double quantization), and
 * the 16-entry FP32 code books. */
static uint64_t bnb4_bytes(uint64_t n, bool double_quant)
{
    uint64_t blocks = kvb__cdiv(n, 64);
    uint64_t b = kvb__cdiv(n, 2) + 16 * 4;
    if (!double_quant)
        return b + blocks * 4;
    return b + blocks + kvb__cdiv(blocks, 256) * 4 + 4 + 16 * 4;
}

/* compressed-tensors pack-quantized (llm-compressor W4A16, symmetric):
 * weight_packed int32 [rows, cols/8], weight_scale 16-bit [rows, groups],
 * weight_shape int64 [2]; actorder "group" adds weight_g_idx int32 [cols].
 * Symmetric schemes store no zero points (compressed_tensors
 * PackedQuantizationCompressor). */
static kvb_status int4_packed_bytes(uint64_t rows, uint64_t cols,
                                    uint64_t group, bool g_idx, uint64_t *bytes)
{
    uint64_t g = group ? group : cols;
    if (cols % g != 0 || cols % 8 != 0)
        return KVB_EUNSUPPORTED;
    *bytes =
        rows * cols / 2 + rows * (cols / g) * 2 + 16 + (g_idx ? 4 * cols : 0);
    return KVB_OK;
}

/* NVFP4 (ModelOpt "NVFP4", compressed-tensors nvfp4-pack-quantized): two
 * e2m1 codes per byte, one e4m3 scale per 16 elements along a row, and two
 * FP32 scalars (weight_scale_2 / weight_global_scale and input_scale /
 * input_global_scale). */
static kvb_status nvfp4_bytes(uint64_t rows, uint64_t cols, uint64_t *bytes)
{
    if (cols % 16 != 0)
        return KVB_EUNSUPPORTED;
    *bytes = rows * cols / 2 + rows * cols / 16 + 8;
    return KVB_OK;
}

static uint64_t fp8_scale_bytes(int32_t kind, uint64_t rows, uint64_t cols)
{
    switch (kind) {
    case KVB_FP8_SCALE_CHANNEL: return 4 * rows;
    case KVB_FP8_SCALE_BLOCK128:
        return 4 * kvb__cdiv(rows, 128) * kvb__cdiv(cols, 128);
    default: return 4;
    }
}

static kvb_status one_matrix(int32_t storage, const kvb_quant *q, uint64_t rows,
                             uint64_t cols, uint64_t *bytes)
{
    uint64_t n = rows * cols;
    switch (storage) {
    case KVB_STORAGE_F32: *bytes = 4 * n; return KVB_OK;
    case KVB_STORAGE_F16:
    case KVB_STORAGE_BF16: *bytes = 2 * n; return KVB_OK;
    case KVB_STORAGE_FP8:
        *bytes = n + fp8_scale_bytes(q->fp8_scale, rows, cols);
        return KVB_OK;
    case KVB_STORAGE_AWQ_4:
        if (rows % 8 != 0)
            return KVB_EUNSUPPORTED;
        return packed_bytes(rows, cols, q->group_size, 4, false, bytes);
    case KVB_STORAGE_GPTQ_4:
        return packed_bytes(rows, cols, q->group_size, 4, true, bytes);
    case KVB_STORAGE_GPTQ_8:
        return packed_bytes(rows, cols, q->group_size, 8, true, bytes);
    case KVB_STORAGE_BNB_4:
        *bytes = bnb4_bytes(n, !(q->flags & KVB_QUANT_BNB_NO_DOUBLE));
        return KVB_OK;
    case KVB_STORAGE_INT8: /* W8A8 int8: the FP8 layout with int8 codes */
        *bytes = n + fp8_scale_bytes(q->fp8_scale, rows, cols);
        return KVB_OK;
    case KVB_STORAGE_INT4_PACKED:
        return int4_packed_bytes(rows, cols, q->group_size,
                                 (q->flags & KVB_QUANT_DESC_ACT) != 0, bytes);
    case KVB_STORAGE_NVFP4: return nvfp4_bytes(rows, cols, bytes);
    case KVB_STORAGE_BNB_8:
        /* LLM.int8 (bitsandbytes Int8Params): int8 weight [rows, cols]
         * and SCB, one FP32 absmax per output row */
        *bytes = n + 4 * rows;
        return KVB_OK;
    case KVB_STORAGE_MXFP4:
        /* a rank's share of an expert's width need not be whole groups
         * (gpt-oss-120b at TP 4: 2880 / 4 = 720 = 22.5 groups): vLLM
         * loads the uneven shard into a buffer padded for the MoE kernel
         * (Mxfp4MoEMethod.create_weights), so the last group is whole */
        *bytes = rows * kvb__cdiv(cols, 32) * 17;
        return KVB_OK;
    default: return ggml_bytes(storage, n, cols, bytes);
    }
}

kvb_status kvb__storage_bytes(int32_t storage, const kvb_quant *q,
                              uint64_t experts, uint64_t rows, uint64_t cols,
                              uint64_t *bytes)
{
    uint64_t one = 0;
    kvb_status st = one_matrix(storage, q, rows, cols, &one);
    if (st)
        return st;
    return kvb__mul_ok(one, experts, bytes) ? KVB_OK : KVB_EOVERFLOW;
}

/* ---- the share of one rank ---- */

uint64_t kvb__kv_heads_per_rank(const kvb_model *m, uint32_t tp)
{
    uint64_t h = m->num_key_value_heads / tp;
    return h ? h : 1; /* vLLM replicates KV heads past their count */
}

static uint64_t qkv_rank_rows(const kvb_model *m, int32_t role, uint32_t tp)
{
    uint64_t hd = kvb__head_dim(m);
    uint64_t kv = kvb__kv_heads_per_rank(m, tp) * hd;
    if (role == KVB_ROLE_ATTN_QKV)
        return kvb__cdiv(m->num_attention_heads, tp) * hd + 2 * kv;
    return kv;
}

kvb_status kvb__tensor_rank_bytes(const kvb__tdesc *t, int32_t storage,
                                  const kvb_model *m, const kvb_quant *q,
                                  uint32_t tp, bool expert_parallel,
                                  uint64_t *bytes)
{
    uint64_t experts = t->experts, rows = t->rows, cols = t->cols;
    if (expert_parallel && experts > 1) {
        experts = kvb__cdiv(experts, tp); /* whole experts per rank */
    } else {
        switch (t->split) {
        case KVB_SPLIT_COLUMN: rows = kvb__cdiv(rows, tp); break;
        case KVB_SPLIT_ROW: cols = kvb__cdiv(cols, tp); break;
        case KVB_SPLIT_VOCAB:
            rows = kvb__cdiv(kvb__round_up(rows, 64), tp);
            break;
        case KVB_SPLIT_KV_HEADS:
            rows = qkv_rank_rows(
                m, t->role == KVB_ROLE_BIAS ? t->of_role : t->role, tp);
            break;
        default: break;
        }
    }
    return kvb__storage_bytes(storage, q, experts, rows, cols, bytes);
}

void kvb__pp_layers(uint32_t layers, uint32_t rank, uint32_t pp,
                    uint32_t *first, uint32_t *last)
{
    /* vLLM get_pp_indices: the remainder goes one layer each to the
     * stages [pp-1-rem, pp-2], i.e. counting back from the second-to-last. */
    uint32_t base = layers / pp, rem = layers % pp;
    uint32_t lo = pp - 1 - rem; /* first stage with an extra layer */
    uint32_t before = rank > lo ? rank - lo : 0;
    if (before > rem)
        before = rem;
    *first = rank * base + before;
    *last = *first + base + (rank >= lo && rank + 1 < pp ? 1 : 0);
}

kvb_status kvb__load_split(const kvb_model *model, const kvb_quant *quant,
                           uint32_t tp, uint32_t pp, kvb_model *m, kvb_quant *q,
                           kvb_error *err)
{
    kvb_status st = kvb__model_load(model, m, err);
    if (!st)
        st = kvb__quant_load(quant, q, err);
    if (!st)
        st = kvb__check_field(err, KVB__F_SERVING_TENSOR_PARALLEL_SIZE, tp);
    if (!st)
        st = kvb__check_field(err, KVB__F_SERVING_PIPELINE_PARALLEL_SIZE, pp);
    return st;
}
