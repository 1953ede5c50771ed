/*
 * model/model.c -- the model architecture: defaults, validation, layer layout.
 */
#include "internal.h"

#include <string.h>

kvb_status kvb_model_init(kvb_model *model, size_t struct_size)
{
    kvb_status st =
        kvb__struct_init(model, struct_size, sizeof *model, "model");
    if (st == KVB_OK) {
        model->arch = KVB_ARCH_GENERIC;
        model->dtype = KVB_DTYPE_BF16;
    }
    return st;
}

/* ---- names ---- */

typedef struct name_row {
    int32_t value;
    const char *name;
} name_row;

/* First row of each value is its canonical name; later rows are aliases
 * (Hugging Face model_type spellings). */
static const name_row arch_names[] = {
    {KVB_ARCH_GENERIC, "generic"},
    {KVB_ARCH_LLAMA, "llama"},
    {KVB_ARCH_LLAMA4, "llama4"},
    {KVB_ARCH_LLAMA4, "llama4_text"},
    {KVB_ARCH_MISTRAL, "mistral"},
    {KVB_ARCH_MIXTRAL, "mixtral"},
    {KVB_ARCH_QWEN2, "qwen2"},
    {KVB_ARCH_QWEN3, "qwen3"},
    {KVB_ARCH_QWEN3_MOE, "qwen3_moe"},
    {KVB_ARCH_GEMMA2, "gemma2"},
    {KVB_ARCH_GEMMA3, "gemma3"},
    {KVB_ARCH_GEMMA3, "gemma3_text"},
    {KVB_ARCH_PHI3, "phi3"},
    {KVB_ARCH_DEEPSEEK_V3, "deepseek_v3"},
    {KVB_ARCH_DEEPSEEK_V3, "deepseek_v2"},
    {KVB_ARCH_DEEPSEEK_V3, "deepseek_v32"},
    {KVB_ARCH_GPT_OSS, "gpt_oss"},
    {KVB_ARCH_FALCON, "falcon"},
    {KVB_ARCH_OPT, "opt"},
    {KVB_ARCH_GPT_NEOX, "gpt_neox"},
    {KVB_ARCH_QWEN2_MOE, "qwen2_moe"},
    {KVB_ARCH_QWEN3_NEXT, "qwen3_next"},
    {KVB_ARCH_NEMOTRON_H, "nemotron_h"},
    {KVB_ARCH_GRANITE_H, "granitemoehybrid"},
    {KVB_ARCH_GLM4_MOE, "glm4_moe"},
    {KVB_ARCH_JAMBA, "jamba"},
    {KVB_ARCH_FALCON_H1, "falcon_h1"},
    {KVB_ARCH_GEMMA3N, "gemma3n"},
    {KVB_ARCH_GEMMA3N, "gemma3n_text"},
    {KVB_ARCH_ZAMBA2, "zamba2"},
    {KVB_ARCH_MLLAMA, "mllama"},
    {KVB_ARCH_GEMMA, "gemma"},
    {KVB_ARCH_PHI, "phi"},
};

static const name_row dtype_names[] = {
    {KVB_DTYPE_AUTO, "auto"},     {KVB_DTYPE_FP32, "fp32"},
    {KVB_DTYPE_FP32, "float32"},  {KVB_DTYPE_FP32, "float"},
    {KVB_DTYPE_FP16, "fp16"},     {KVB_DTYPE_FP16, "float16"},
    {KVB_DTYPE_FP16, "half"},     {KVB_DTYPE_BF16, "bf16"},
    {KVB_DTYPE_BF16, "bfloat16"}, {KVB_DTYPE_FP8, "fp8"},
    {KVB_DTYPE_FP8, "fp8_e4m3"},  {KVB_DTYPE_FP8, "float8_e4m3fn"},
};

static const char *name_of(const name_row *rows, size_t n, int value)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].value == value)
            return rows[i].name;
    return NULL;
}

static kvb_status find_name(const name_row *rows, size_t n, const char *name,
                            int32_t *out, const char *field, kvb_error *err)
{
    if (!name || !out)
        return kvb__fail(err, KVB_EINVAL, field,
                         "%s: name and out must not "
                         "be NULL",
                         field);
    for (size_t i = 0; i < n; i++) {
        if (kvb__strcasecmp(rows[i].name, name) == 0) {
            *out = rows[i].value;
            return KVB_OK;
        }
    }
    return kvb__fail(err, KVB_ENOTFOUND, field, "%s (%s) is not known", field,
                     name);
}

const char *kvb_arch_name(int arch)
{
    return name_of(arch_names, KVB__ARRAY_LEN(arch_names), arch);
}

kvb_status kvb_arch_find(const char *name, int32_t *arch, kvb_error *err)
{
    return find_name(arch_names, KVB__ARRAY_LEN(arch_names), name, arch,
                     "model.arch", err);
}

const char *kvb_dtype_name(int dtype)
{
    return name_of(dtype_names, KVB__ARRAY_LEN(dtype_names), dtype);
}

kvb_status kvb_dtype_find(const char *name, int32_t *dtype, kvb_error *err)
{
    return find_name(dtype_names, KVB__ARRAY_LEN(dtype_names), name, dtype,
                     "dtype", err);
}

uint32_t kvb__dtype_bytes(int32_t dtype)
{
    switch (dtype) {
    case KVB_DTYPE_FP32: return 4;
    case KVB_DTYPE_FP8: return 1;
    default: return 2;
    }
}

int32_t kvb__act_dtype(const kvb_model *m, const kvb_quant *q)
{
    if (q && q->dtype != KVB_DTYPE_AUTO)
        return q->dtype;
    if (q && q->method == KVB_QUANT_FP32)
        return KVB_DTYPE_FP32;
    return m->dtype == KVB_DTYPE_AUTO ? KVB_DTYPE_BF16 : m->dtype;
}

int32_t kvb__kv_dtype(const kvb_model *m, const kvb_quant *q)
{
    if (q && q->kv_cache_dtype != KVB_DTYPE_AUTO)
        return q->kv_cache_dtype;
    return kvb__act_dtype(m, q);
}

/* ---- layer layout ---- */

uint64_t kvb__head_dim(const kvb_model *m)
{
    if (m->head_dim)
        return m->head_dim;
    return m->hidden_size / m->num_attention_heads;
}

bool kvb__is_mla(const kvb_model *m)
{
    return m->kv_lora_rank != 0;
}

char kvb__layer_kind(const kvb_model *m, uint32_t layer)
{
    return m->layer_pattern[0] ? m->layer_pattern[layer] : 'A';
}

bool kvb__layer_has_attn(const kvb_model *m, uint32_t layer)
{
    char k = kvb__layer_kind(m, layer);
    /* Zamba2's hybrid layers invoke a shared attention block, and each
     * invocation keeps its own KV cache (vLLM zamba2.py: one Attention
     * object per hybrid layer in dpa_list). */
    return k == 'A' || k == '*' || k == 'P' || k == 'Z' || k == 'z';
}

bool kvb__layer_has_mlp(const kvb_model *m, uint32_t layer)
{
    char k = kvb__layer_kind(m, layer);
    return k == 'A' || k == 'G' || k == '-' || k == 'E' || k == 'm' ||
           k == 'S' || k == 'P' || k == 'X' || k == 'Z' || k == 'z';
}

bool kvb__has_recurrent(const kvb_model *m)
{
    return strchr(m->layer_pattern, 'M') || strchr(m->layer_pattern, 'G') ||
           strchr(m->layer_pattern, 'm') || strchr(m->layer_pattern, 'S') ||
           strchr(m->layer_pattern, 'P') || strchr(m->layer_pattern, 'Z') ||
           strchr(m->layer_pattern, 'z');
}

uint32_t kvb__count_recurrent(const kvb_model *m, uint32_t first, uint32_t last)
{
    return kvb__count_kind(m, first, last, 'M') +
           kvb__count_kind(m, first, last, 'G') +
           kvb__count_kind(m, first, last, 'm') +
           kvb__count_kind(m, first, last, 'S') +
           kvb__count_kind(m, first, last, 'P') +
           kvb__count_kind(m, first, last, 'Z') +
           kvb__count_kind(m, first, last, 'z');
}

uint32_t kvb__count_kind(const kvb_model *m, uint32_t first, uint32_t last,
                         char kind)
{
    if (!m->layer_pattern[0])
        return kind == 'A' && last > first ? last - first : 0;
    uint32_t n = 0;
    for (uint32_t i = first; i < last; i++)
        n += m->layer_pattern[i] == kind;
    return n;
}

bool kvb__layer_is_moe(const kvb_model *m, uint32_t layer)
{
    char k = kvb__layer_kind(m, layer);
    if (k == 'E' || k == '-' || k == '*' || k == 'M' || k == 'Z' || k == 'z')
        return k == 'E';
    if (m->num_experts == 0 || layer < m->first_k_dense_replace)
        return false;
    return m->moe_layer_step <= 1 || (layer + 1) % m->moe_layer_step == 0;
}

/* Layers i in [first, last) with (i + 1) % step == 0. */
static uint32_t count_multiples(uint32_t first, uint32_t last, uint32_t step)
{
    return (last / step) - (first / step);
}

uint32_t kvb__count_moe(const kvb_model *m, uint32_t first, uint32_t last)
{
    if (m->num_experts == 0)
        return 0;
    if (m->layer_pattern[0]) {
        uint32_t n = 0;
        for (uint32_t i = first; i < last; i++)
            n += kvb__layer_is_moe(m, i);
        return n;
    }
    if (first < m->first_k_dense_replace)
        first = m->first_k_dense_replace;
    if (first >= last)
        return 0;
    if (m->moe_layer_step <= 1)
        return last - first;
    return count_multiples(first, last, m->moe_layer_step);
}

/* Pattern p: layer i is global iff (i+1) % p == 0; p == 0: none global. */
static bool is_global(uint32_t pattern, uint32_t layer)
{
    return pattern != 0 && (layer + 1) % pattern == 0;
}

kvb__attn_kind kvb__layer_attn(const kvb_model *m, uint32_t layer)
{
    if (m->sliding_window && !is_global(m->sliding_window_pattern, layer))
        return KVB__ATTN_SLIDING;
    if (m->attention_chunk_size &&
        !is_global(m->attention_chunk_pattern, layer))
        return KVB__ATTN_CHUNKED;
    return KVB__ATTN_FULL;
}

uint64_t kvb__shared_width(const kvb_model *m)
{
    uint64_t one = m->shared_expert_intermediate_size
                       ? m->shared_expert_intermediate_size
                       : m->moe_intermediate_size;
    return (uint64_t)m->num_shared_experts * one;
}

/* ---- validation ---- */

typedef struct u64_field {
    kvb__field id;
    size_t offset;
    size_t size;
} u64_field;

#define MF(id, f)                                                              \
    {                                                                          \
        KVB__F_MODEL_##id, offsetof(kvb_model, f), sizeof(((kvb_model *)0)->f) \
    }
static const u64_field model_fields[] = {
    MF(NUM_HIDDEN_LAYERS, num_hidden_layers),
    MF(HIDDEN_SIZE, hidden_size),
    MF(NUM_ATTENTION_HEADS, num_attention_heads),
    MF(NUM_KEY_VALUE_HEADS, num_key_value_heads),
    MF(HEAD_DIM, head_dim),
    MF(INTERMEDIATE_SIZE, intermediate_size),
    MF(VOCAB_SIZE, vocab_size),
    MF(MAX_POSITION_EMBEDDINGS, max_position_embeddings),
    MF(POSITION_EMBEDDING_ROWS, position_embedding_rows),
    MF(NUM_EXPERTS, num_experts),
    MF(NUM_EXPERTS_PER_TOK, num_experts_per_tok),
    MF(MOE_INTERMEDIATE_SIZE, moe_intermediate_size),
    MF(NUM_SHARED_EXPERTS, num_shared_experts),
    MF(SHARED_EXPERT_INTERMEDIATE_SIZE, shared_expert_intermediate_size),
    MF(FIRST_K_DENSE_REPLACE, first_k_dense_replace),
    MF(MOE_LAYER_STEP, moe_layer_step),
    MF(KV_LORA_RANK, kv_lora_rank),
    MF(Q_LORA_RANK, q_lora_rank),
    MF(QK_ROPE_HEAD_DIM, qk_rope_head_dim),
    MF(QK_NOPE_HEAD_DIM, qk_nope_head_dim),
    MF(V_HEAD_DIM, v_head_dim),
    MF(SLIDING_WINDOW, sliding_window),
    MF(SLIDING_WINDOW_PATTERN, sliding_window_pattern),
    MF(ATTENTION_CHUNK_SIZE, attention_chunk_size),
    MF(ATTENTION_CHUNK_PATTERN, attention_chunk_pattern),
};
#undef MF

static kvb_status check_ranges(const kvb_model *m, kvb_error *err)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(model_fields); i++) {
        kvb_status st = kvb__check_field(
            err, model_fields[i].id,
            kvb__load_uint(m, model_fields[i].offset, model_fields[i].size));
        if (st)
            return st;
    }
    if (m->arch < 0 || m->arch >= KVB_ARCH_LAST_ || !kvb_arch_name(m->arch))
        return kvb__fail(err, KVB_ERANGE, "model.arch",
                         "model.arch (%d) is not a kvb_arch value; allowed: "
                         "0..%d",
                         m->arch, KVB_ARCH_LAST_ - 1);
    if (m->dtype < 0 || m->dtype >= KVB_DTYPE_LAST_ ||
        m->dtype == KVB_DTYPE_FP8)
        return kvb__fail(err, KVB_ERANGE, "model.dtype",
                         "model.dtype (%d) is not a checkpoint dtype; "
                         "allowed: auto, fp32, fp16, bf16",
                         m->dtype);
    if (m->flags & ~KVB_MODEL_FLAGS_ALL_)
        return kvb__fail(err, KVB_ERANGE, "model.flags",
                         "model.flags (0x%x) has unknown bits; allowed: "
                         "KVB_MODEL_* bits",
                         m->flags);
    if (m->rope_scaling_type < 0 || m->rope_scaling_type >= KVB_ROPE_LAST_)
        return kvb__fail(err, KVB_ERANGE, "model.rope_scaling_type",
                         "model.rope_scaling_type (%d) is not a "
                         "kvb_rope_scaling value; allowed: 0..%d",
                         m->rope_scaling_type, KVB_ROPE_LAST_ - 1);
    if (!(m->rope_scaling_factor >= 0.0 && m->rope_scaling_factor <= 1024.0))
        return kvb__fail(err, KVB_ERANGE, "model.rope_scaling_factor",
                         "model.rope_scaling_factor (%g) is out of range; "
                         "allowed: 0 (none) or up to 1024",
                         m->rope_scaling_factor);
    if (m->original_max_position_embeddings > ((uint64_t)1 << 32))
        return kvb__fail(
            err, KVB_ERANGE, "model.original_max_position_embeddings",
            "model.original_max_position_embeddings (%llu) is "
            "out of range; allowed: 0..%llu",
            (unsigned long long)m->original_max_position_embeddings,
            (unsigned long long)1 << 32);
    if (m->tie_word_embeddings > 1)
        return kvb__fail(err, KVB_ERANGE, "model.tie_word_embeddings",
                         "model.tie_word_embeddings (%u) is not a boolean; "
                         "allowed: 0, 1",
                         m->tie_word_embeddings);
    return KVB_OK;
}

/* DeepSeek-V3.2's lightning indexer reads the MLA query latent (wq_b's
 * input is q_lora_rank), so it needs MLA with a q LoRA. */
static kvb_status check_indexer(const kvb_model *m, kvb_error *err)
{
    bool any = m->index_n_heads || m->index_head_dim || m->index_topk;
    if (!any)
        return KVB_OK;
    if (!kvb__is_mla(m) || !m->q_lora_rank)
        return kvb__fail(err, KVB_EINVAL, "model.index_n_heads",
                         "model.index_n_heads (%u) needs MLA with a q LoRA "
                         "(kv_lora_rank and q_lora_rank > 0); allowed: 0 "
                         "without them",
                         m->index_n_heads);
    if (m->index_n_heads < 1 || m->index_n_heads > 1024)
        return kvb__fail(err, KVB_ERANGE, "model.index_n_heads",
                         "model.index_n_heads (%u) is out of range; allowed: "
                         "1..1024 with an indexer",
                         m->index_n_heads);
    if (m->index_head_dim < 1 || m->index_head_dim > 4096)
        return kvb__fail(err, KVB_ERANGE, "model.index_head_dim",
                         "model.index_head_dim (%u) is out of range; allowed: "
                         "1..4096 with an indexer",
                         m->index_head_dim);
    if (m->index_topk > (1u << 24))
        return kvb__fail(err, KVB_ERANGE, "model.index_topk",
                         "model.index_topk (%u) is out of range; allowed: "
                         "0..16777216",
                         m->index_topk);
    return KVB_OK;
}

static kvb_status check_attention(const kvb_model *m, kvb_error *err)
{
    if (m->num_attention_heads % m->num_key_value_heads != 0)
        return kvb__fail(err, KVB_EINVAL, "model.num_key_value_heads",
                         "model.num_key_value_heads (%u) does not divide "
                         "num_attention_heads (%u); allowed: a divisor",
                         m->num_key_value_heads, m->num_attention_heads);
    if (!m->head_dim && !kvb__is_mla(m) &&
        m->hidden_size % m->num_attention_heads != 0)
        return kvb__fail(err, KVB_EINVAL, "model.head_dim",
                         "model.head_dim (0) cannot be derived: hidden_size "
                         "(%llu) is not a multiple of num_attention_heads "
                         "(%u); allowed: set head_dim",
                         (unsigned long long)m->hidden_size,
                         m->num_attention_heads);
    if (kvb__is_mla(m) &&
        (!m->qk_rope_head_dim || !m->qk_nope_head_dim || !m->v_head_dim))
        return kvb__fail(err, KVB_EINVAL, "model.qk_rope_head_dim",
                         "model.kv_lora_rank (%u) needs qk_rope_head_dim, "
                         "qk_nope_head_dim and v_head_dim; allowed: all > 0",
                         m->kv_lora_rank);
    return check_indexer(m, err);
}

/*
 * Zamba2's shared blocks: the first shared_blocks hybrid layers store
 * them ('Z'), every later one reuses them ('z'), as transformers'
 * Zamba2Model.get_layers cycles the blocks; each invocation's adapters
 * need a rank.  The checkpoint stores a block once, under the first
 * layer that uses it (model.layers.6.shared_transformer.* in
 * Zamba2-2.7B's safetensors index).
 */
static kvb_status check_shared_blocks(const kvb_model *m, size_t n,
                                      kvb_error *err)
{
    uint32_t stored = 0, hybrid = 0;
    bool late = false; /* a 'Z' after a 'z' */
    for (size_t i = 0; i < n; i++) {
        char k = m->layer_pattern[i];
        late |= k == 'Z' && hybrid > stored;
        stored += k == 'Z';
        hybrid += k == 'Z' || k == 'z';
    }
    if (!hybrid && !m->shared_blocks && !m->adapter_rank &&
        !(m->flags & KVB_MODEL_SHARED_ATTN_ADAPTER))
        return KVB_OK;
    if (late || stored != m->shared_blocks || !stored)
        return kvb__fail(err, KVB_EINVAL, "model.shared_blocks",
                         "model.shared_blocks (%u) must be the number of "
                         "'Z' layers (%u), which come before every 'z'; "
                         "allowed: the first shared_blocks hybrid layers "
                         "are 'Z'",
                         m->shared_blocks, stored);
    if (m->adapter_rank == 0 || m->adapter_rank > 65536)
        return kvb__fail(err, KVB_ERANGE, "model.adapter_rank",
                         "model.adapter_rank (%u) is out of range; allowed: "
                         "1..65536 with shared blocks",
                         m->adapter_rank);
    if (m->num_key_value_heads != m->num_attention_heads)
        return kvb__fail(err, KVB_EUNSUPPORTED, "model.num_key_value_heads",
                         "model.num_key_value_heads (%u) differs from "
                         "num_attention_heads (%u): Zamba2's shared block "
                         "adds q/k/v adapters of equal width and vLLM builds "
                         "its qkv_proj with as many KV heads as heads; "
                         "allowed: equal",
                         m->num_key_value_heads, m->num_attention_heads);
    return KVB_OK;
}

/* layer_pattern: one known character per layer, and the sizes its
 * recurrent mixers need. */
static kvb_status check_pattern(const kvb_model *m, kvb_error *err)
{
    const char *end = memchr(m->layer_pattern, 0, sizeof m->layer_pattern);
    if (!end)
        return kvb__fail(err, KVB_EINVAL, "model.layer_pattern",
                         "model.layer_pattern is not NUL-terminated; "
                         "allowed: at most %zu layers",
                         sizeof m->layer_pattern - 1);
    size_t n = (size_t)(end - m->layer_pattern);
    if (n == 0)
        return KVB_OK;
    if (n != m->num_hidden_layers)
        return kvb__fail(err, KVB_EINVAL, "model.layer_pattern",
                         "model.layer_pattern has %zu characters but the "
                         "model has %u layers; allowed: one per layer",
                         n, m->num_hidden_layers);
    for (size_t i = 0; i < n; i++)
        if (!strchr(KVB__LAYER_KINDS, m->layer_pattern[i]))
            return kvb__fail(err, KVB_EINVAL, "model.layer_pattern",
                             "model.layer_pattern[%zu] ('%c') is not a layer "
                             "kind; allowed: A G * M - E m S P X Z z",
                             i, m->layer_pattern[i]);
    if (m->sliding_window || m->attention_chunk_size)
        return kvb__fail(err, KVB_EUNSUPPORTED, "model.layer_pattern",
                         "model.layer_pattern with sliding or chunked "
                         "attention is not modelled; allowed: full "
                         "attention in a hybrid");
    if (!kvb__has_recurrent(m))
        return KVB_OK;
    if (!m->ssm_num_heads || !m->ssm_head_dim || !m->ssm_n_groups ||
        !m->ssm_state_size || !m->ssm_conv_kernel)
        return kvb__fail(
            err, KVB_EINVAL, "model.ssm_num_heads",
            "model.layer_pattern has recurrent layers (M, G, m, S, P, Z, z) "
            "that need ssm_num_heads, ssm_head_dim, "
            "ssm_n_groups, ssm_state_size and ssm_conv_kernel; "
            "allowed: all > 0");
    /* A Mamba1 mixer is sized per channel (one head each, no groups), and
     * the state size rule is the model's, so it is not mixed with Mamba2. */
    if (strchr(m->layer_pattern, 'S') &&
        (m->ssm_head_dim != 1 || m->ssm_n_groups != 1 ||
         strchr(m->layer_pattern, 'M') || strchr(m->layer_pattern, 'm') ||
         strchr(m->layer_pattern, 'G') || strchr(m->layer_pattern, 'P') ||
         strchr(m->layer_pattern, 'Z')))
        return kvb__fail(err, KVB_EINVAL, "model.ssm_head_dim",
                         "model.layer_pattern has Mamba1 layers (S) that "
                         "need ssm_head_dim 1 and ssm_n_groups 1 (not %u, "
                         "%u) and no other recurrent kind; allowed: one "
                         "head per channel",
                         m->ssm_head_dim, m->ssm_n_groups);
    kvb_status st = check_shared_blocks(m, n, err);
    if (st)
        return st;
    if (m->ssm_num_heads % m->ssm_n_groups)
        return kvb__fail(err, KVB_EINVAL, "model.ssm_n_groups",
                         "model.ssm_n_groups (%u) does not divide "
                         "ssm_num_heads (%u); allowed: a divisor",
                         m->ssm_n_groups, m->ssm_num_heads);
    if (m->ssm_state_dtype < 0 || m->ssm_state_dtype >= KVB_DTYPE_LAST_ ||
        m->ssm_state_dtype == KVB_DTYPE_FP8)
        return kvb__fail(err, KVB_ERANGE, "model.ssm_state_dtype",
                         "model.ssm_state_dtype (%d) is not a state dtype; "
                         "allowed: auto, fp32, fp16, bf16",
                         m->ssm_state_dtype);
    return KVB_OK;
}

static kvb_status check_mlp(const kvb_model *m, kvb_error *err)
{
    bool any_dense = false;
    for (uint32_t i = 0; i < m->num_hidden_layers && !any_dense; i++)
        any_dense = kvb__layer_has_mlp(m, i) && !kvb__layer_is_moe(m, i);
    if (any_dense && m->intermediate_size == 0)
        return kvb__fail(err, KVB_EINVAL, "model.intermediate_size",
                         "model.intermediate_size (0) is needed by the "
                         "dense layers; allowed: 1..%llu",
                         (unsigned long long)1 << 22);
    if (m->num_experts == 0)
        return KVB_OK;
    if (m->num_experts_per_tok == 0 || m->num_experts_per_tok > m->num_experts)
        return kvb__fail(err, KVB_ERANGE, "model.num_experts_per_tok",
                         "model.num_experts_per_tok (%u) must be within the "
                         "experts; allowed: 1..%u",
                         m->num_experts_per_tok, m->num_experts);
    if (m->moe_intermediate_size == 0)
        return kvb__fail(err, KVB_EINVAL, "model.moe_intermediate_size",
                         "model.moe_intermediate_size (0) is needed with "
                         "num_experts (%u); allowed: 1..%llu",
                         m->num_experts, (unsigned long long)1 << 22);
    return KVB_OK;
}

/* Every product the inventory forms must fit in uint64_t. */
static kvb_status check_products(const kvb_model *m, kvb_error *err)
{
    uint64_t widest = kvb__max(m->intermediate_size, m->hidden_size);
    widest = kvb__max(widest, m->vocab_size);
    widest = kvb__max(widest, kvb__head_dim(m) * m->num_attention_heads);
    uint64_t per_expert = 0, layer = 0, all = 0;
    uint64_t experts = kvb__max(1, (uint64_t)m->num_experts + 1);
    if (kvb__mul_ok(widest, kvb__max(m->hidden_size, m->kv_lora_rank + 1) * 4,
                    &per_expert) &&
        kvb__mul_ok(per_expert, experts * 4, &layer) &&
        kvb__mul_ok(layer, m->num_hidden_layers + 2, &all) &&
        all < ((uint64_t)1 << 62))
        return KVB_OK;
    return kvb__fail(err, KVB_EOVERFLOW, "model",
                     "model (%u layers x %llu wide x %u experts) is too "
                     "large to count in 64 bits; allowed: smaller dimensions",
                     m->num_hidden_layers, (unsigned long long)widest,
                     m->num_experts);
}

/* ---- Gemma 3n ---- */

/* Gemma 3n's fields belong to its family only: the inventory and the KV
 * cache read them for arch GEMMA3N, so elsewhere they would be ignored
 * silently. */
static kvb_status check_gemma3n(const kvb_model *m, kvb_error *err)
{
    bool gemma3n = m->arch == KVB_ARCH_GEMMA3N;
    bool audio = m->audio_num_layers || m->audio_num_heads ||
                 m->audio_hidden_size || m->audio_conv_kernel ||
                 m->audio_input_features || m->audio_sscp_channels_1 ||
                 m->audio_sscp_channels_2 || m->mm_embed_vocab_size;
    /* (a gemma3n model keeps them when a plan leaves its towers out) */
    if (audio && !gemma3n)
        return kvb__fail(err, KVB_EINVAL, "model.arch",
                         "model.audio_* and mm_embed_vocab_size size Gemma "
                         "3n's towers; allowed: 0 unless arch is gemma3n");
    bool any = m->num_kv_shared_layers || m->hidden_size_per_layer_input ||
               m->vocab_size_per_layer_input || m->altup_num_inputs ||
               m->laurel_rank;
    if (!gemma3n && !any)
        return KVB_OK;
    if (!gemma3n)
        return kvb__fail(err, KVB_EINVAL, "model.arch",
                         "model.num_kv_shared_layers, hidden_size_per_layer_"
                         "input, vocab_size_per_layer_input, altup_num_inputs "
                         "and laurel_rank are Gemma 3n's; allowed: 0 unless "
                         "arch is gemma3n");
    if (!m->hidden_size_per_layer_input || !m->vocab_size_per_layer_input ||
        !m->altup_num_inputs || !m->laurel_rank)
        return kvb__fail(err, KVB_EINVAL, "model.hidden_size_per_layer_input",
                         "a gemma3n model needs hidden_size_per_layer_input, "
                         "vocab_size_per_layer_input, altup_num_inputs and "
                         "laurel_rank; allowed: all > 0");
    const uint64_t cap = (uint64_t)1 << 22;
    if (m->hidden_size_per_layer_input > cap || m->laurel_rank > cap ||
        m->vocab_size_per_layer_input > ((uint64_t)1 << 24) ||
        m->altup_num_inputs > 64)
        return kvb__fail(err, KVB_ERANGE, "model.hidden_size_per_layer_input",
                         "model.hidden_size_per_layer_input, laurel_rank "
                         "(up to %llu), vocab_size_per_layer_input (up to "
                         "16777216) or altup_num_inputs (up to 64) is out "
                         "of range",
                         (unsigned long long)cap);
    if (m->num_kv_shared_layers >= m->num_hidden_layers)
        return kvb__fail(err, KVB_EINVAL, "model.num_kv_shared_layers",
                         "model.num_kv_shared_layers (%u) leaves no layer "
                         "of the %u to hold the KV they share; allowed: "
                         "0..%u",
                         m->num_kv_shared_layers, m->num_hidden_layers,
                         m->num_hidden_layers - 1);
    return KVB_OK;
}

/* The Gemma 3n towers: the embedders' width (vision_hidden_size) and the
 * audio Conformer's shape. */
static kvb_status check_gemma3n_towers(const kvb_model *m, kvb_error *err)
{
    const uint64_t cap = (uint64_t)1 << 20;
    if (m->arch != KVB_ARCH_GEMMA3N)
        return kvb__fail(err, KVB_EINVAL, "model.vision_kind",
                         "model.vision_kind gemma3n needs arch gemma3n; "
                         "allowed: the towers of that family");
    if (!m->vision_hidden_size || !m->audio_num_layers || !m->audio_num_heads ||
        !m->audio_hidden_size || !m->audio_conv_kernel ||
        !m->audio_input_features || !m->audio_sscp_channels_1 ||
        !m->audio_sscp_channels_2 || !m->mm_embed_vocab_size)
        return kvb__fail(err, KVB_EINVAL, "model.audio_num_layers",
                         "vision_kind gemma3n needs vision_hidden_size, "
                         "audio_num_layers, audio_num_heads, "
                         "audio_hidden_size, audio_conv_kernel, "
                         "audio_input_features, audio_sscp_channels_1/2 and "
                         "mm_embed_vocab_size; allowed: all > 0");
    if (m->vision_hidden_size > cap || m->audio_hidden_size > cap ||
        m->audio_num_layers > 4096 || m->audio_conv_kernel > 4096 ||
        m->audio_input_features > cap || m->audio_sscp_channels_1 > cap ||
        m->audio_sscp_channels_2 > cap || m->mm_embed_vocab_size > cap)
        return kvb__fail(err, KVB_ERANGE, "model.audio_hidden_size",
                         "model.audio_* or vision_hidden_size is out of "
                         "range; allowed: widths up to %llu, up to 4096 "
                         "layers",
                         (unsigned long long)cap);
    if (m->audio_hidden_size % m->audio_num_heads)
        return kvb__fail(err, KVB_EINVAL, "model.audio_num_heads",
                         "model.audio_num_heads (%u) does not divide "
                         "audio_hidden_size (%llu); allowed: a divisor",
                         m->audio_num_heads,
                         (unsigned long long)m->audio_hidden_size);
    return KVB_OK;
}

/* A tower needs its shape; every size stays small enough that the walk's
 * products (merge^2 x width squared) fit in 64 bits. */
static kvb_status check_vision(const kvb_model *m, kvb_error *err)
{
    if (m->vision_kind < 0 || m->vision_kind >= KVB_VISION_LAST_ ||
        !kvb__vision_known(m->vision_kind))
        return kvb__fail(err, KVB_ERANGE, "model.vision_kind",
                         "model.vision_kind (%d) is not a tower family; "
                         "allowed: 0..%d",
                         m->vision_kind, KVB_VISION_LAST_ - 1);
    if (m->vision_kind == KVB_VISION_NONE)
        return KVB_OK;
    if (m->vision_kind == KVB_VISION_GEMMA3N)
        return check_gemma3n_towers(m, err);
    const struct {
        uint64_t v;
        const char *name;
    } need[] = {{m->vision_num_layers, "model.vision_num_layers"},
                {m->vision_hidden_size, "model.vision_hidden_size"},
                {m->vision_intermediate_size, "model.vision_intermediate_size"},
                {m->vision_num_heads, "model.vision_num_heads"},
                {m->vision_patch_size, "model.vision_patch_size"}};
    for (size_t i = 0; i < KVB__ARRAY_LEN(need); i++)
        if (need[i].v == 0)
            return kvb__fail(err, KVB_EINVAL, need[i].name,
                             "%s (0) is needed with vision_kind %d; "
                             "allowed: > 0",
                             need[i].name, m->vision_kind);
    const uint64_t cap = (uint64_t)1 << 20;
    if (m->vision_hidden_size > cap || m->vision_intermediate_size > cap ||
        m->vision_out_hidden_size > cap || m->vision_num_layers > 4096 ||
        m->vision_patch_size > 4096 || m->vision_image_size > cap ||
        m->vision_spatial_merge > 8 || m->vision_position_rows > cap ||
        m->vision_deepstack > 4096 || m->vision_global_layers > 4096 ||
        m->vision_max_tiles > 64 || m->vision_aspect_ratios > 4096)
        return kvb__fail(err, KVB_ERANGE, "model.vision_hidden_size",
                         "model.vision_* sizes are out of range; allowed: "
                         "widths and image sides up to %llu, up to 4096 "
                         "layers, a spatial merge up to 8, up to 64 tiles",
                         (unsigned long long)cap);
    return KVB_OK;
}

/* The layers that hold a KV cache of their own: all but Gemma 3n's last
 * num_kv_shared_layers, which read an earlier layer's (transformers
 * Gemma3nTextAttention.is_kv_shared_layer; vLLM gemma3n.py gives them a
 * kv_sharing_target_layer_name, and V1's get_kv_cache_spec skips them). */
uint32_t kvb__kv_layer_end(const kvb_model *m)
{
    return m->num_hidden_layers - m->num_kv_shared_layers;
}

bool kvb__layer_has_kv(const kvb_model *m, uint32_t il)
{
    return il < kvb__kv_layer_end(m) && kvb__layer_has_attn(m, il);
}

kvb_status kvb_model_validate(const kvb_model *model, kvb_error *err)
{
    kvb_model m;
    return kvb__model_load(model, &m, err);
}

kvb_status kvb__model_load(const kvb_model *in, kvb_model *out, kvb_error *err)
{
    kvb_status st = kvb__struct_in(in, sizeof *out, out, "model", err);
    if (!st)
        st = check_ranges(out, err);
    if (!st)
        st = check_attention(out, err);
    if (!st)
        st = check_pattern(out, err);
    if (!st)
        st = check_mlp(out, err);
    if (!st)
        st = check_products(out, err);
    if (!st)
        st = check_vision(out, err);
    if (!st)
        st = check_gemma3n(out, err);
    return st;
}
