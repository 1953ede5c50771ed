/*
 * model/kvcache.c -- KV-cache bytes per token, pages, and vLLM's KV-cache
 * groups. vLLM: vllm/v1/kv_cache_interface.py (page sizes,
 * max_memory_usage_bytes) and vllm/v1/core/kv_cache_utils.py (grouping); see
 * docs/model.md#kv.
 */
#include "internal.h"

#include <string.h>

/*
 * Bytes DeepSeek-V3.2's lightning indexer caches per token and layer, next
 * to the MLA latent: its key in FP8 plus one 4-byte scale per 128
 * elements, whatever the KV dtype (vLLM deepseek_v2.py builds
 * DeepseekV32IndexerCache with head_dim + head_dim // 128 * 4 uint8
 * elements, on every rank, since 0.11.0).  vLLM gives these caches the
 * MLA layers' block table (UniformTypeKVCacheSpecs), so a block costs
 * both pages and the bytes simply add.
 */
static uint64_t indexer_bytes_per_token(const kvb_model *m)
{
    uint64_t d = m->index_head_dim;
    return m->index_n_heads ? d + d / 128 * 4 : 0;
}

/* Elements one layer caches per token on one rank. */
static uint64_t layer_elems_per_token(const kvb_model *m, uint32_t tp)
{
    if (kvb__is_mla(m)) /* one latent, shared by all heads, on every rank */
        return (uint64_t)m->kv_lora_rank + m->qk_rope_head_dim;
    return 2 * kvb__kv_heads_per_rank(m, tp) * kvb__head_dim(m);
}

void kvb__kv_bytes(const kvb_model *m, const kvb_quant *q, uint32_t tp,
                   uint32_t pp, uint64_t *whole, uint64_t *per_gpu)
{
    uint64_t b = kvb__dtype_bytes(kvb__kv_dtype(m, q));
    uint64_t unsplit = kvb__is_mla(m) ? layer_elems_per_token(m, 1)
                                      : 2 * (uint64_t)m->num_key_value_heads *
                                            kvb__head_dim(m);
    uint32_t attn = kvb__count_attn(m, 0, m->num_hidden_layers);
    uint64_t index = indexer_bytes_per_token(m);
    *whole = (unsplit * b + index) * attn;
    if (!per_gpu)
        return;
    if (pp > m->num_hidden_layers)
        pp = m->num_hidden_layers;
    /* get_pp_indices gives no stage more than ceil(layers / pp) layers;
     * in a hybrid, or with Gemma 3n's shared layers, the busiest stage is
     * the one with most layers that hold KV. */
    uint64_t most = kvb__cdiv(m->num_hidden_layers, pp);
    if (m->layer_pattern[0] || m->num_kv_shared_layers) {
        most = 0;
        for (uint32_t r = 0; r < pp; r++) {
            uint32_t first, last;
            kvb__pp_layers(m->num_hidden_layers, r, pp, &first, &last);
            most = kvb__max(most, kvb__count_attn(m, first, last));
        }
    }
    *per_gpu = (layer_elems_per_token(m, tp) * b + index) * most;
}

/* [first, last) cut to the layers that hold a KV cache of their own
 * (Gemma 3n's shared layers hold none). */
static void kv_range(const kvb_model *m, uint32_t *first, uint32_t *last)
{
    uint32_t end = kvb__kv_layer_end(m);
    if (*last > end)
        *last = end;
    if (*first > *last)
        *first = *last;
}

/* Layers with a KV cache page per token.  mllama's cross-attention
 * layers ('X') count: the one engine that plans it, vLLM V0, gives every
 * layer of the text model a cache of num_gpu_blocks blocks
 * (vllm/worker/cache_engine.py, num_attention_layers = the text
 * num_hidden_layers) and pages the image tokens' K/V into the same pool
 * (vllm/core/block_manager.py SelfAttnBlockSpaceManager.allocate: the
 * encoder sequence's cross_block_tables come from the same
 * block_allocator), so each block costs every layer whichever table
 * holds it. */
uint32_t kvb__count_attn(const kvb_model *m, uint32_t first, uint32_t last)
{
    kv_range(m, &first, &last);
    if (!m->layer_pattern[0])
        return last > first ? last - first : 0;
    /* Zamba2: every invocation of a shared block ('Z', 'z') keeps its own
     * KV cache (vLLM zamba2.py builds one Attention per hybrid layer). */
    return kvb__count_kind(m, first, last, 'A') +
           kvb__count_kind(m, first, last, '*') +
           kvb__count_kind(m, first, last, 'P') +
           kvb__count_kind(m, first, last, 'X') +
           kvb__count_kind(m, first, last, 'Z') +
           kvb__count_kind(m, first, last, 'z');
}

/* mllama: the encoder tokens one image adds to a request, every tile's
 * patches plus its class token (vLLM mllama.py: num_tiles x
 * num_tokens_per_tile, (image_size / patch_size)^2 + 1 per tile, at most
 * max_num_tiles tiles); 0 for other models. */
uint64_t kvb__cross_tokens_per_image(const kvb_model *m)
{
    if (m->vision_kind != KVB_VISION_MLLAMA || !m->vision_patch_size)
        return 0;
    uint64_t side = m->vision_image_size / m->vision_patch_size;
    return (uint64_t)m->vision_max_tiles * (side * side + 1);
}

/* The K/V one image's tokens take in the cross-attention layers alone,
 * on one rank: what the model itself keeps per image. */
uint64_t kvb__cross_kv_bytes_per_image(const kvb_model *m, const kvb_quant *q,
                                       uint32_t tp)
{
    uint32_t x = kvb__count_kind(m, 0, m->num_hidden_layers, 'X');
    return kvb__cross_tokens_per_image(m) * x *
           kvb__kv_layer_token_bytes(m, q, tp);
}

/*
 * The recurrent state one request holds in one layer on one rank, as
 * vLLM's MambaStateShapeCalculator gives it (mamba2_state_shape and
 * gated_delta_net_state_shape have the same form): a conv state of
 * (conv_dim / tp) x (kernel - 1), conv_dim = heads x head_dim + 2 x
 * groups x state, and a temporal state of (heads / tp) x head_dim x state.
 * Mamba2 groups that do not split over TP are replicated up to tp
 * (extra_groups_for_head_shards).  The conv state is in the model dtype,
 * the temporal one in ssm_state_dtype (mamba_ssm_cache_dtype).
 */
void kvb__state_bytes(const kvb_model *m, const kvb_quant *q, uint32_t tp,
                      uint64_t *conv, uint64_t *ssm)
{
    uint64_t act = kvb__dtype_bytes(kvb__act_dtype(m, q));
    uint64_t st =
        m->ssm_state_dtype ? kvb__dtype_bytes(m->ssm_state_dtype) : act;
    if (strchr(m->layer_pattern, 'S')) {
        /* Mamba1 (mamba1_state_shape, mamba1_state_dtype): conv
         * (d_inner / tp) x (kernel - 1), temporal (d_inner / tp) x state;
         * d_inner is ssm_num_heads, one channel per head. */
        uint64_t inner = m->ssm_num_heads / tp;
        *conv = inner * (m->ssm_conv_kernel - 1) * act;
        *ssm = inner * m->ssm_state_size * st;
        return;
    }
    uint64_t groups = m->ssm_n_groups;
    if (groups % tp)
        groups = tp; /* extra_groups_for_head_shards (groups == 1) */
    uint64_t conv_dim = (uint64_t)m->ssm_num_heads * m->ssm_head_dim +
                        2 * groups * m->ssm_state_size;
    *conv = conv_dim / tp * (m->ssm_conv_kernel - 1) * act;
    *ssm = (uint64_t)m->ssm_num_heads / tp * m->ssm_head_dim *
           m->ssm_state_size * st;
}

uint64_t kvb__kv_layer_token_bytes(const kvb_model *m, const kvb_quant *q,
                                   uint32_t tp)
{
    return layer_elems_per_token(m, tp) *
               kvb__dtype_bytes(kvb__kv_dtype(m, q)) +
           indexer_bytes_per_token(m);
}

uint64_t kvb__state_bytes_per_request(const kvb_model *m, const kvb_quant *q,
                                      uint32_t tp, uint32_t first,
                                      uint32_t last)
{
    uint32_t n = kvb__count_recurrent(m, first, last);
    if (!n)
        return 0;
    uint64_t conv = 0, ssm = 0;
    kvb__state_bytes(m, q, tp, &conv, &ssm);
    return (conv + ssm) * n;
}

kvb_status kvb_kv_bytes_per_token(const kvb_model *model,
                                  const kvb_quant *quant,
                                  uint32_t tensor_parallel_size,
                                  uint32_t pipeline_parallel_size,
                                  uint64_t *whole, uint64_t *per_gpu,
                                  kvb_error *err)
{
    kvb_model m;
    kvb_quant q;
    if (!whole)
        return kvb__fail(err, KVB_EINVAL, "whole", "whole must not be NULL");
    kvb_status st = kvb__load_split(model, quant, tensor_parallel_size,
                                    pipeline_parallel_size, &m, &q, err);
    if (!st)
        kvb__kv_bytes(&m, &q, tensor_parallel_size, pipeline_parallel_size,
                      whole, per_gpu);
    return st;
}

/* Layers i in [first, last) with (i + 1) % step == 0 (step > 0). */
static uint32_t multiples(uint32_t first, uint32_t last, uint64_t step)
{
    return (uint32_t)(last / step - first / step);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/*
 * kvb__layer_attn over [first, last), counted: a layer slides unless the
 * sliding pattern makes it global ((i + 1) % pattern == 0; pattern 0: no
 * layer is global); a layer that does not slide is chunked unless the
 * chunk pattern makes it global.  The layers global under both patterns
 * are the multiples of their least common multiple.
 */
void kvb__kv_count_kinds(const kvb_model *m, uint32_t first, uint32_t last,
                         bool hybrid, uint32_t counts[3])
{
    kv_range(m, &first, &last);
    uint32_t n = kvb__count_attn(m, first, last);
    counts[KVB__ATTN_FULL] = n;
    counts[KVB__ATTN_SLIDING] = counts[KVB__ATTN_CHUNKED] = 0;
    if (!hybrid || !n)
        return;
    uint32_t ps = m->sliding_window_pattern, pc = m->attention_chunk_pattern;
    uint32_t rest = n; /* layers that do not slide */
    if (m->sliding_window) {
        rest = ps ? multiples(first, last, ps) : 0;
        counts[KVB__ATTN_SLIDING] = n - rest;
    }
    if (m->attention_chunk_size && rest) {
        uint32_t global = 0; /* of the rest, global under the chunk pattern */
        if (pc && m->sliding_window)
            global = multiples(first, last, (uint64_t)ps / gcd(ps, pc) * pc);
        else if (pc)
            global = multiples(first, last, pc);
        counts[KVB__ATTN_CHUNKED] = rest - global;
    }
    counts[KVB__ATTN_FULL] =
        n - counts[KVB__ATTN_SLIDING] - counts[KVB__ATTN_CHUNKED];
}

void kvb__kv_stage_make(const kvb_model *m, const kvb_quant *q, uint32_t tp,
                        uint32_t first, uint32_t last, uint32_t block_size,
                        bool hybrid, kvb__kv_stage *ks)
{
    *ks = (kvb__kv_stage){
        {0}, 0, 0, m->sliding_window, m->attention_chunk_size, 0, {0}, 0, 0, 0};
    kvb__kv_count_kinds(m, first, last, hybrid, ks->layers);
    if (hybrid)
        ks->recurrent = kvb__count_recurrent(m, first, last);
    uint64_t elems = layer_elems_per_token(m, tp);
    uint64_t b = kvb__dtype_bytes(kvb__kv_dtype(m, q));
    ks->page_bytes = (uint64_t)block_size * elems * b;
    ks->token_bytes = elems * b * kvb__count_attn(m, first, last);

    /* _get_kv_cache_groups_uniform_page_size: groups of equal size, the
     * smallest layer count, unless the largest is under 1.5x of it; the
     * recurrent layers' MambaSpec is one more type among the attention
     * kinds (vllm/v1/core/kv_cache_utils.py). */
    uint32_t lo = UINT32_MAX, hi = 0;
    for (int k = 0; k < 4; k++) {
        uint32_t n = k < 3 ? ks->layers[k] : ks->recurrent;
        if (!n)
            continue;
        lo = n < lo ? n : lo;
        hi = n > hi ? n : hi;
    }
    if (hi == 0)
        return; /* attention-free stage */
    ks->group_size = (double)hi < 1.5 * (double)lo ? hi : lo;
    for (int k = 0; k < 3; k++) {
        ks->groups[k] = (uint32_t)kvb__cdiv(ks->layers[k], ks->group_size);
        ks->n_groups += ks->groups[k];
    }
    ks->rec_groups = (uint32_t)kvb__cdiv(ks->recurrent, ks->group_size);
    ks->n_groups += ks->rec_groups;
}

/* max_memory_usage_bytes of one layer, in blocks (FullAttentionSpec,
 * SlidingWindowSpec, ChunkedLocalAttentionSpec). */
uint64_t kvb__kv_blocks_per_layer(const kvb__kv_stage *ks, int kind,
                                  uint64_t len, uint64_t mnbt,
                                  uint32_t block_size)
{
    switch (kind) {
    case KVB__ATTN_SLIDING:
        return kvb__cdiv(kvb__min(ks->window - 1 + mnbt, len), block_size) + 1;
    case KVB__ATTN_CHUNKED:
        return kvb__cdiv(kvb__min(ks->chunk + mnbt, len), block_size);
    default: return kvb__cdiv(len, block_size);
    }
}

uint64_t kvb__kv_blocks_per_request(const kvb__kv_stage *ks, uint64_t len,
                                    uint64_t mnbt, uint32_t block_size)
{
    uint64_t blocks = ks->rec_groups; /* MambaSpec: one page per request */
    for (int k = 0; k < 3; k++)
        blocks += ks->groups[k] *
                  kvb__kv_blocks_per_layer(ks, k, len, mnbt, block_size);
    return blocks;
}
