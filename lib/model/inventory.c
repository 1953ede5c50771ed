/*
 * model/inventory.c -- every weight tensor of a model, derived from its
 * architecture the way the Hugging Face modelling code creates them.
 * The parameter count, the weights bytes and the per-GPU split all follow
 * from this one walk, so they cannot disagree.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

typedef struct walker {
    const kvb_model *m;
    kvb__tensor_fn fn;
    void *ctx;
    int stop;
} walker;

static void emit(walker *w, int32_t role, int32_t layer, int32_t split,
                 uint64_t experts, uint64_t rows, uint64_t cols,
                 int32_t of_role, uint32_t ordinal)
{
    if (w->stop || rows == 0 || cols == 0 || experts == 0)
        return;
    kvb__tdesc t = {role, layer, split, of_role, experts, rows, cols, ordinal};
    w->stop = w->fn(w->ctx, &t);
}

static bool has(const kvb_model *m, uint32_t flag)
{
    return (m->flags & flag) != 0;
}

/* A norm: weight, plus a bias for LayerNorm models. */
static void norm(walker *w, int32_t layer, uint64_t width, uint32_t ordinal)
{
    emit(w, KVB_ROLE_NORM, layer, KVB_SPLIT_REPLICATED, 1, width, 1,
         KVB_ROLE_NORM, ordinal * 2);
    if (has(w->m, KVB_MODEL_NORM_BIAS))
        emit(w, KVB_ROLE_NORM, layer, KVB_SPLIT_REPLICATED, 1, width, 1,
             KVB_ROLE_NORM, ordinal * 2 + 1);
}

/* A linear layer and, when `bias`, its bias.  Column-parallel biases are
 * split with their rows; row-parallel biases are replicated. */
static void linear(walker *w, int32_t role, int32_t layer, int32_t split,
                   uint64_t experts, uint64_t rows, uint64_t cols, bool bias)
{
    emit(w, role, layer, split, experts, rows, cols, role, 0);
    if (bias) {
        int32_t bsplit = split == KVB_SPLIT_ROW ? KVB_SPLIT_REPLICATED : split;
        emit(w, KVB_ROLE_BIAS, layer, bsplit, experts, rows, 1, role, 0);
    }
}

static void attention_mla(walker *w, int32_t i)
{
    const kvb_model *m = w->m;
    uint64_t nh = m->num_attention_heads;
    uint64_t qk = (uint64_t)m->qk_nope_head_dim + m->qk_rope_head_dim;
    if (m->q_lora_rank) {
        linear(w, KVB_ROLE_MLA_Q_A, i, KVB_SPLIT_REPLICATED, 1, m->q_lora_rank,
               m->hidden_size, false);
        emit(w, KVB_ROLE_NORM, i, KVB_SPLIT_REPLICATED, 1, m->q_lora_rank, 1,
             KVB_ROLE_MLA_Q_A, 0);
        linear(w, KVB_ROLE_MLA_Q_B, i, KVB_SPLIT_COLUMN, 1, nh * qk,
               m->q_lora_rank, false);
    } else {
        linear(w, KVB_ROLE_ATTN_Q, i, KVB_SPLIT_COLUMN, 1, nh * qk,
               m->hidden_size, false);
    }
    linear(w, KVB_ROLE_MLA_KV_A, i, KVB_SPLIT_REPLICATED, 1,
           (uint64_t)m->kv_lora_rank + m->qk_rope_head_dim, m->hidden_size,
           false);
    emit(w, KVB_ROLE_NORM, i, KVB_SPLIT_REPLICATED, 1, m->kv_lora_rank, 1,
         KVB_ROLE_MLA_KV_A, 0);
    linear(w, KVB_ROLE_MLA_KV_B, i, KVB_SPLIT_COLUMN, 1,
           nh * ((uint64_t)m->qk_nope_head_dim + m->v_head_dim),
           m->kv_lora_rank, false);
    linear(w, KVB_ROLE_ATTN_O, i, KVB_SPLIT_ROW, 1, m->hidden_size,
           nh * m->v_head_dim, has(m, KVB_MODEL_ATTN_O_BIAS));
    if (!m->index_n_heads)
        return;
    /* DeepSeek-V3.2's lightning indexer (transformers deepseek_v32, vLLM
     * deepseek_v2.py Indexer): wq_b from the query latent, wk, a LayerNorm
     * on the key (weight and bias), weights_proj; vLLM replicates all of
     * them on every rank. */
    uint64_t id = m->index_head_dim;
    linear(w, KVB_ROLE_INDEXER_WQ_B, i, KVB_SPLIT_REPLICATED, 1,
           m->index_n_heads * id, m->q_lora_rank, false);
    linear(w, KVB_ROLE_INDEXER_WK, i, KVB_SPLIT_REPLICATED, 1, id,
           m->hidden_size, false);
    emit(w, KVB_ROLE_NORM, i, KVB_SPLIT_REPLICATED, 1, id, 1,
         KVB_ROLE_INDEXER_WK, 0);
    emit(w, KVB_ROLE_NORM, i, KVB_SPLIT_REPLICATED, 1, id, 1,
         KVB_ROLE_INDEXER_WK, 1);
    linear(w, KVB_ROLE_INDEXER_WEIGHTS, i, KVB_SPLIT_REPLICATED, 1,
           m->index_n_heads, m->hidden_size, false);
}

static void attention(walker *w, int32_t i)
{
    const kvb_model *m = w->m;
    if (kvb__is_mla(m)) {
        attention_mla(w, i);
        return;
    }
    uint64_t hd = kvb__head_dim(m);
    uint64_t q = m->num_attention_heads * hd, kv = m->num_key_value_heads * hd;
    bool qkv_bias = has(m, KVB_MODEL_ATTN_QKV_BIAS);
    if (has(m, KVB_MODEL_FUSED_QKV)) {
        linear(w, KVB_ROLE_ATTN_QKV, i, KVB_SPLIT_KV_HEADS, 1, q + 2 * kv,
               m->hidden_size, qkv_bias);
    } else {
        uint64_t qrows = has(m, KVB_MODEL_ATTN_GATE) ? 2 * q : q;
        linear(w, KVB_ROLE_ATTN_Q, i, KVB_SPLIT_COLUMN, 1, qrows,
               m->hidden_size, qkv_bias);
        linear(w, KVB_ROLE_ATTN_K, i, KVB_SPLIT_KV_HEADS, 1, kv, m->hidden_size,
               qkv_bias);
        linear(w, KVB_ROLE_ATTN_V, i, KVB_SPLIT_KV_HEADS, 1, kv, m->hidden_size,
               qkv_bias);
    }
    if (has(m, KVB_MODEL_QK_NORM)) {
        emit(w, KVB_ROLE_NORM, i, KVB_SPLIT_REPLICATED, 1, hd, 1,
             KVB_ROLE_ATTN_Q, 0);
        emit(w, KVB_ROLE_NORM, i, KVB_SPLIT_REPLICATED, 1, hd, 1,
             KVB_ROLE_ATTN_K, 0);
    }
    linear(w, KVB_ROLE_ATTN_O, i, KVB_SPLIT_ROW, 1, m->hidden_size, q,
           has(m, KVB_MODEL_ATTN_O_BIAS));
    if (has(m, KVB_MODEL_ATTN_SINKS))
        emit(w, KVB_ROLE_SINKS, i, KVB_SPLIT_COLUMN, 1, m->num_attention_heads,
             1, KVB_ROLE_SINKS, 0);
}

/* gate/up/down (or fc1/fc2) of `experts` stacked MLPs of width `width`. */
static void mlp(walker *w, int32_t i, uint64_t experts, uint64_t width,
                int32_t gate, int32_t up, int32_t down)
{
    const kvb_model *m = w->m;
    bool bias = has(m, KVB_MODEL_MLP_BIAS);
    if (!has(m, KVB_MODEL_MLP_NO_GATE)) {
        if (gate == KVB_ROLE_MLP_GATE && has(m, KVB_MODEL_FUSED_GATE_UP)) {
            linear(w, KVB_ROLE_MLP_GATE_UP, i, KVB_SPLIT_COLUMN, experts,
                   2 * width, m->hidden_size, bias);
        } else if (gate == KVB_ROLE_EXPERT_GATE &&
                   has(m, KVB_MODEL_FUSED_GATE_UP)) {
            /* gpt-oss stores gate and up of the experts as one tensor;
             * the bytes are the same, only the walk is one entry longer. */
            linear(w, gate, i, KVB_SPLIT_COLUMN, experts, width, m->hidden_size,
                   bias);
            linear(w, up, i, KVB_SPLIT_COLUMN, experts, width, m->hidden_size,
                   bias);
        } else {
            linear(w, gate, i, KVB_SPLIT_COLUMN, experts, width, m->hidden_size,
                   bias);
            linear(w, up, i, KVB_SPLIT_COLUMN, experts, width, m->hidden_size,
                   bias);
        }
    } else {
        linear(w, up, i, KVB_SPLIT_COLUMN, experts, width, m->hidden_size,
               bias);
    }
    /* Expert down-projection biases stay whole on every rank. */
    linear(w, down, i, KVB_SPLIT_ROW, experts, m->hidden_size, width, bias);
}

static void moe(walker *w, int32_t i)
{
    const kvb_model *m = w->m;
    linear(w, KVB_ROLE_ROUTER, i, KVB_SPLIT_REPLICATED, 1, m->num_experts,
           m->hidden_size, false);
    if (has(m, KVB_MODEL_ROUTER_BIAS) || has(m, KVB_MODEL_ROUTER_SCORE_BIAS))
        emit(w, KVB_ROLE_ROUTER_BIAS, i, KVB_SPLIT_REPLICATED, 1,
             m->num_experts, 1, KVB_ROLE_ROUTER, 0);
    mlp(w, i, m->num_experts, m->moe_intermediate_size, KVB_ROLE_EXPERT_GATE,
        KVB_ROLE_EXPERT_UP, KVB_ROLE_EXPERT_DOWN);
    uint64_t shared = kvb__shared_width(m);
    if (shared)
        mlp(w, i, 1, shared, KVB_ROLE_SHARED_GATE, KVB_ROLE_SHARED_UP,
            KVB_ROLE_SHARED_DOWN);
    if (shared && has(m, KVB_MODEL_SHARED_EXPERT_GATE))
        linear(w, KVB_ROLE_SHARED_EXPERT_GATE, i, KVB_SPLIT_REPLICATED, 1, 1,
               m->hidden_size, false);
}

/* A recurrent mixer: Mamba2 (mamba_mixer2.py: in_proj gives z, x, B, C
 * and dt; conv1d over x, B, C with a bias; A_log, D, dt_bias per head; a
 * gated norm over the inner width) or Gated DeltaNet (Qwen3-Next:
 * in_proj_qkvz and in_proj_ba; conv1d over q, k, v without a bias; A_log
 * and dt_bias per value head; a gated norm over one value head). */
static void recurrent(walker *w, int32_t i, bool mamba)
{
    const kvb_model *m = w->m;
    uint64_t inner = (uint64_t)m->ssm_num_heads * m->ssm_head_dim;
    uint64_t keys = (uint64_t)m->ssm_n_groups * m->ssm_state_size;
    uint64_t conv = inner + 2 * keys;
    uint64_t heads = m->ssm_num_heads;
    if (mamba) {
        linear(w, KVB_ROLE_SSM_IN, i, KVB_SPLIT_COLUMN, 1, inner + conv + heads,
               m->hidden_size, false);
    } else {
        linear(w, KVB_ROLE_SSM_IN, i, KVB_SPLIT_COLUMN, 1, 2 * keys + 2 * inner,
               m->hidden_size, false);
        linear(w, KVB_ROLE_SSM_IN_BA, i, KVB_SPLIT_COLUMN, 1, 2 * heads,
               m->hidden_size, false);
    }
    linear(w, KVB_ROLE_SSM_CONV, i, KVB_SPLIT_COLUMN, 1, conv,
           m->ssm_conv_kernel, mamba);
    for (uint32_t k = 0; k < (mamba ? 3u : 2u); k++) /* A_log, dt_bias, D */
        emit(w, KVB_ROLE_SSM_HEAD, i, KVB_SPLIT_COLUMN, 1, heads, 1,
             KVB_ROLE_SSM_HEAD, k);
    /* Falcon-H1's FalconH1Mixer builds the gated norm only when
     * mamba_rms_norm is set (modular_falcon_h1.py; vLLM's
     * Mixer2RMSNormGated then registers no weight). */
    if (mamba && !has(m, KVB_MODEL_SSM_NO_NORM))
        emit(w, KVB_ROLE_NORM, i, KVB_SPLIT_COLUMN, 1, inner, 1,
             KVB_ROLE_SSM_OUT, 0);
    else if (!mamba)
        emit(w, KVB_ROLE_NORM, i, KVB_SPLIT_REPLICATED, 1, m->ssm_head_dim, 1,
             KVB_ROLE_SSM_OUT, 0);
    linear(w, KVB_ROLE_SSM_OUT, i, KVB_SPLIT_ROW, 1, m->hidden_size, inner,
           false);
}

/* Jamba's Mamba1 mixer (modeling_jamba.py, JambaMambaMixer; vLLM
 * mamba_mixer.py): in_proj to x and z (2 x d_inner), a depthwise conv1d
 * with a bias, x_proj to dt, B and C (dt_rank + 2 x d_state, no bias),
 * dt_proj back to d_inner with a bias, A_log (d_inner x d_state) and D per
 * channel, RMS norms over dt, B and C, and out_proj.  d_inner is
 * ssm_num_heads (one channel per head) and dt_rank ceil(hidden / 16), the
 * "auto" rank every Jamba checkpoint writes (config.c checks it). */
static void mamba1(walker *w, int32_t i)
{
    const kvb_model *m = w->m;
    uint64_t inner = m->ssm_num_heads;
    uint64_t state = m->ssm_state_size;
    uint64_t rank = (m->hidden_size + 15) / 16;
    linear(w, KVB_ROLE_SSM_IN, i, KVB_SPLIT_COLUMN, 1, 2 * inner,
           m->hidden_size, false);
    linear(w, KVB_ROLE_SSM_CONV, i, KVB_SPLIT_COLUMN, 1, inner,
           m->ssm_conv_kernel, true);
    /* x_proj and dt_proj: vLLM splits x_proj by its input (row) and
     * dt_proj by its output (column). */
    emit(w, KVB_ROLE_SSM_IN_BA, i, KVB_SPLIT_ROW, 1, rank + 2 * state, inner,
         KVB_ROLE_SSM_IN_BA, 0);
    emit(w, KVB_ROLE_SSM_IN_BA, i, KVB_SPLIT_COLUMN, 1, inner, rank,
         KVB_ROLE_SSM_IN_BA, 1);
    emit(w, KVB_ROLE_BIAS, i, KVB_SPLIT_COLUMN, 1, inner, 1, KVB_ROLE_SSM_IN_BA,
         1);
    emit(w, KVB_ROLE_SSM_HEAD, i, KVB_SPLIT_COLUMN, 1, inner, state,
         KVB_ROLE_SSM_HEAD, 0); /* A_log */
    emit(w, KVB_ROLE_SSM_HEAD, i, KVB_SPLIT_COLUMN, 1, inner, 1,
         KVB_ROLE_SSM_HEAD, 2);      /* D */
    for (uint32_t k = 0; k < 3; k++) /* dt, B and C layernorms */
        emit(w, KVB_ROLE_NORM, i, KVB_SPLIT_REPLICATED, 1, k ? state : rank, 1,
             KVB_ROLE_SSM_IN_BA, k);
    linear(w, KVB_ROLE_SSM_OUT, i, KVB_SPLIT_ROW, 1, m->hidden_size, inner,
           false);
}

/* The Zamba2 invocation index of hybrid layer i: how many hybrid layers
 * ('Z', 'z') come before it (the j of transformers' layer_dic). */
static uint32_t zamba2_invocation(const kvb_model *m, uint32_t i)
{
    return kvb__count_kind(m, 0, i, 'Z') + kvb__count_kind(m, 0, i, 'z');
}

/* One LoRA adapter of Zamba2 (transformers: nn.Sequential of two linears
 * without biases; vLLM zamba2.py Zamba2LoRA): A (rank x in), then B (out
 * x rank).  vLLM builds A as a ColumnParallelLinear with gather_output and
 * B as a Column- or MergedColumnParallelLinear, so both split their rows.
 * `of` is what it adapts and `j` the invocation it belongs to. */
static void adapter(walker *w, int32_t i, int32_t of, uint32_t j, uint64_t in,
                    uint64_t out)
{
    uint64_t r = w->m->adapter_rank;
    emit(w, KVB_ROLE_ADAPTER_A, i, KVB_SPLIT_COLUMN, 1, r, in, of, j);
    emit(w, KVB_ROLE_ADAPTER_B, i, KVB_SPLIT_COLUMN, 1, out, r, of, j);
}

/* A Zamba2 shared transformer block (transformers modeling_zamba2.py
 * Zamba2AttentionDecoderLayer; vLLM zamba2.py): input_layernorm over
 * concat(hidden, embeddings) (2 x hidden), q/k/v from that 2 x hidden
 * input, o back to hidden, pre_ff_layernorm, a gated GELU MLP stored as
 * one gate_up_proj and down_proj.  No biases (add_bias_linear false, which
 * the reader requires). */
static void zamba2_block(walker *w, int32_t i)
{
    const kvb_model *m = w->m;
    uint64_t in = 2 * m->hidden_size, hd = kvb__head_dim(m);
    uint64_t q = m->num_attention_heads * hd, kv = m->num_key_value_heads * hd;
    emit(w, KVB_ROLE_NORM, i, KVB_SPLIT_REPLICATED, 1, in, 1,
         KVB_ROLE_HYBRID_LINEAR, 0);
    linear(w, KVB_ROLE_ATTN_Q, i, KVB_SPLIT_COLUMN, 1, q, in, false);
    linear(w, KVB_ROLE_ATTN_K, i, KVB_SPLIT_KV_HEADS, 1, kv, in, false);
    linear(w, KVB_ROLE_ATTN_V, i, KVB_SPLIT_KV_HEADS, 1, kv, in, false);
    linear(w, KVB_ROLE_ATTN_O, i, KVB_SPLIT_ROW, 1, m->hidden_size, q, false);
    emit(w, KVB_ROLE_NORM, i, KVB_SPLIT_REPLICATED, 1, m->hidden_size, 1,
         KVB_ROLE_HYBRID_LINEAR, 1);
    linear(w, KVB_ROLE_MLP_GATE_UP, i, KVB_SPLIT_COLUMN, 1,
           2 * m->intermediate_size, m->hidden_size, false);
    linear(w, KVB_ROLE_MLP_DOWN, i, KVB_SPLIT_ROW, 1, m->hidden_size,
           m->intermediate_size, false);
}

/*
 * A Zamba2 hybrid layer (Zamba2HybridLayer): the shared block's weights
 * are stored once, at the first layer that uses each block ('Z'; the
 * checkpoint keeps them under model.layers.<that layer>.shared_transformer
 * and vLLM builds num_mem_blocks blocks), and counted once; every
 * invocation ('Z' and 'z') has its own adapters (the MLP's gate_up
 * adapter always, as both transformers and vLLM build it; q, k, v
 * adapters with use_shared_attention_adapter), its own hidden x hidden
 * `linear` (a ReplicatedLinear in vLLM), then a Mamba2 layer
 * (mamba_decoder: input_layernorm and the mixer).
 */
static void zamba2_hybrid(walker *w, uint32_t i, bool stores)
{
    const kvb_model *m = w->m;
    int32_t li = (int32_t)i;
    uint32_t j = zamba2_invocation(m, i);
    uint64_t in = 2 * m->hidden_size, h = m->hidden_size;
    if (stores)
        zamba2_block(w, li);
    if (has(m, KVB_MODEL_SHARED_ATTN_ADAPTER)) {
        adapter(w, li, KVB_ROLE_ATTN_Q, j, in, in);
        adapter(w, li, KVB_ROLE_ATTN_K, j, in, in);
        adapter(w, li, KVB_ROLE_ATTN_V, j, in, in);
    }
    adapter(w, li, KVB_ROLE_MLP_GATE_UP, j, h, 2 * m->intermediate_size);
    emit(w, KVB_ROLE_HYBRID_LINEAR, li, KVB_SPLIT_REPLICATED, 1, h, h,
         KVB_ROLE_HYBRID_LINEAR, 0);
    norm(w, li, h, 0); /* mamba_decoder.input_layernorm */
    recurrent(w, li, true);
}

/* A Nemotron-H block: one norm, then one mixer, attention, MLP or MoE. */
static void block(walker *w, uint32_t i, char kind)
{
    const kvb_model *m = w->m;
    int32_t li = (int32_t)i;
    norm(w, li, m->hidden_size, 0);
    switch (kind) {
    case '*': attention(w, li); break;
    case 'M': recurrent(w, li, true); break;
    case 'E': moe(w, li); break;
    default:
        mlp(w, li, 1, m->intermediate_size, KVB_ROLE_MLP_GATE, KVB_ROLE_MLP_UP,
            KVB_ROLE_MLP_DOWN);
        break;
    }
}

/* mllama's MllamaCrossAttentionDecoderLayer (transformers
 * models/mllama/modeling_mllama.py): input norm, cross_attn (q_proj from
 * the text, k_proj/v_proj from the projected image states, both of text
 * width; o_proj; q_norm and k_norm over one head), a tanh gate on the
 * attention, post-attention norm, the Llama MLP and a tanh gate on it.
 * vLLM's mllama.py splits them like a self-attention layer. */
static void cross_layer(walker *w, uint32_t i)
{
    const kvb_model *m = w->m;
    int32_t li = (int32_t)i;
    uint64_t hd = kvb__head_dim(m);
    norm(w, li, m->hidden_size, 0);
    linear(w, KVB_ROLE_ATTN_Q, li, KVB_SPLIT_COLUMN, 1,
           m->num_attention_heads * hd, m->hidden_size, false);
    linear(w, KVB_ROLE_ATTN_K, li, KVB_SPLIT_KV_HEADS, 1,
           m->num_key_value_heads * hd, m->hidden_size, false);
    linear(w, KVB_ROLE_ATTN_V, li, KVB_SPLIT_KV_HEADS, 1,
           m->num_key_value_heads * hd, m->hidden_size, false);
    emit(w, KVB_ROLE_NORM, li, KVB_SPLIT_REPLICATED, 1, hd, 1, KVB_ROLE_ATTN_Q,
         0);
    emit(w, KVB_ROLE_NORM, li, KVB_SPLIT_REPLICATED, 1, hd, 1, KVB_ROLE_ATTN_K,
         0);
    linear(w, KVB_ROLE_ATTN_O, li, KVB_SPLIT_ROW, 1, m->hidden_size,
           m->num_attention_heads * hd, false);
    emit(w, KVB_ROLE_CROSS_GATE, li, KVB_SPLIT_REPLICATED, 1, 1, 1,
         KVB_ROLE_CROSS_GATE, 0); /* cross_attn_attn_gate */
    norm(w, li, m->hidden_size, 1);
    mlp(w, li, 1, m->intermediate_size, KVB_ROLE_MLP_GATE, KVB_ROLE_MLP_UP,
        KVB_ROLE_MLP_DOWN);
    emit(w, KVB_ROLE_CROSS_GATE, li, KVB_SPLIT_REPLICATED, 1, 1, 1,
         KVB_ROLE_CROSS_GATE, 1); /* cross_attn_mlp_gate */
}

static void layer(walker *w, uint32_t i)
{
    const kvb_model *m = w->m;
    int32_t li = (int32_t)i;
    char kind = kvb__layer_kind(m, i);
    if (kind == 'X') {
        cross_layer(w, i);
        return;
    }
    if (kind == 'Z' || kind == 'z') {
        zamba2_hybrid(w, i, kind == 'Z');
        return;
    }
    if (kind != 'A' && kind != 'G' && kind != 'm' && kind != 'S' &&
        kind != 'P') {
        block(w, i, kind);
        return;
    }
    norm(w, li, m->hidden_size, 0);                /* input norm */
    if (kind == 'G' || kind == 'm' || kind == 'P') /* Gated DeltaNet; Mamba2 */
        recurrent(w, li, kind != 'G');
    if (kind == 'S') /* Jamba's Mamba1 */
        mamba1(w, li);
    else if (kind == 'A' || kind == 'P') /* Falcon-H1: beside the mixer */
        attention(w, li);
    if (!has(m, KVB_MODEL_PARALLEL_ATTN))
        norm(w, li, m->hidden_size, 1); /* post-attention norm */
    if (has(m, KVB_MODEL_SANDWICH_NORM)) {
        norm(w, li, m->hidden_size, 2); /* pre-feedforward */
        norm(w, li, m->hidden_size, 3); /* post-feedforward */
    }
    if (kvb__layer_is_moe(m, i))
        moe(w, li);
    else
        mlp(w, li, 1, m->intermediate_size, KVB_ROLE_MLP_GATE, KVB_ROLE_MLP_UP,
            KVB_ROLE_MLP_DOWN);
    if (m->arch == KVB_ARCH_GEMMA3N && !w->stop) /* AltUp, LAuReL, PLE */
        w->stop = kvb__gemma3n_layer(m, i, w->fn, w->ctx);
}

/* The final norm and lm_head (unless tied to the embeddings on this
 * stage); Phi's lm_head has a bias (modeling_phi.py PhiForCausalLM, vLLM
 * phi.py ParallelLMHead(bias=True)), split by vocabulary rows with it. */
static void head(walker *w, unsigned globals)
{
    const kvb_model *m = w->m;
    norm(w, -1, m->hidden_size, 0);
    if (!m->tie_word_embeddings || !(globals & KVB__WALK_EMBED))
        emit(w, KVB_ROLE_LM_HEAD, -1, KVB_SPLIT_VOCAB, 1, m->vocab_size,
             m->hidden_size, KVB_ROLE_LM_HEAD, 0);
    if (has(m, KVB_MODEL_LM_HEAD_BIAS))
        emit(w, KVB_ROLE_BIAS, -1, KVB_SPLIT_VOCAB, 1, m->vocab_size, 1,
             KVB_ROLE_LM_HEAD, 0);
}

int kvb__inventory_walk_range(const kvb_model *m, uint32_t first, uint32_t last,
                              unsigned globals, kvb__tensor_fn fn, void *ctx)
{
    walker w = {m, fn, ctx, 0};
    /* MllamaTextModel's embed_tokens has vocab_size + 8 rows (the image
     * token and seven more; transformers modeling_mllama.py, vLLM's
     * mllama.py VocabParallelEmbedding(vocab_size + 8)); lm_head has
     * vocab_size. */
    uint64_t embed_rows =
        m->vocab_size + (m->arch == KVB_ARCH_MLLAMA ? 8u : 0u);
    if (globals & KVB__WALK_EMBED) {
        emit(&w, KVB_ROLE_EMBED, -1, KVB_SPLIT_VOCAB, 1, embed_rows,
             m->hidden_size, KVB_ROLE_EMBED, 0);
        emit(&w, KVB_ROLE_POS_EMBED, -1, KVB_SPLIT_REPLICATED, 1,
             m->position_embedding_rows, m->hidden_size, KVB_ROLE_POS_EMBED, 0);
        if (m->arch == KVB_ARCH_GEMMA3N && !w.stop)
            w.stop = kvb__gemma3n_globals(m, fn, ctx);
    }
    /* vLLM builds the tower on the first pipeline stage, with the
     * embeddings (its models' get_input_embeddings). */
    if ((globals & KVB__WALK_TOWER) && !w.stop)
        w.stop = kvb__vision_walk(m, (globals & KVB__WALK_TOWER_WHOLE) != 0, fn,
                                  ctx);
    for (uint32_t i = first; i < last && !w.stop; i++)
        layer(&w, i);
    if (globals & KVB__WALK_HEAD)
        head(&w, globals);
    return w.stop;
}

int kvb__inventory_walk(const kvb_model *m, kvb__tensor_fn fn, void *ctx)
{
    return kvb__inventory_walk_range(
        m, 0, m->num_hidden_layers,
        KVB__WALK_EMBED | KVB__WALK_HEAD | KVB__WALK_TOWER, fn, ctx);
}

/* ---- names ---- */

/* Families whose recurrent mixer is the module "mamba" (Granite-4.0-H,
 * Jamba, Falcon-H1). */
static bool mamba_module(const kvb_model *m)
{
    return m->arch == KVB_ARCH_GRANITE_H || m->arch == KVB_ARCH_JAMBA ||
           m->arch == KVB_ARCH_FALCON_H1 || m->arch == KVB_ARCH_ZAMBA2;
}

/* The recurrent mixer's module: Nemotron-H's mixer, Granite's mamba,
 * Qwen3-Next's linear_attn. */
static const char *ssm_module(const kvb_model *m)
{
    return m->arch == KVB_ARCH_NEMOTRON_H ? "mixer"
           : mamba_module(m)              ? "mamba"
                                          : "linear_attn";
}

/* Falcon-H1 calls its MLP feed_forward (modular_falcon_h1.py
 * FalconH1DecoderLayer): "mlp.up_proj" is "feed_forward.up_proj" there. */
static const char *mlp_name(const kvb_model *m, const char *mlp,
                            const char *feed_forward)
{
    return m->arch == KVB_ARCH_FALCON_H1 ? feed_forward : mlp;
}

static const char *role_suffix(const kvb_model *m, int32_t role)
{
    bool falcon = m->arch == KVB_ARCH_FALCON || m->arch == KVB_ARCH_GPT_NEOX;
    bool opt = m->arch == KVB_ARCH_OPT;
    bool phi = m->arch == KVB_ARCH_PHI; /* modeling_phi.py: dense, fc1, fc2 */
    switch (role) {
    case KVB_ROLE_ATTN_Q: return "self_attn.q_proj";
    case KVB_ROLE_ATTN_K: return "self_attn.k_proj";
    case KVB_ROLE_ATTN_V: return "self_attn.v_proj";
    case KVB_ROLE_ATTN_QKV:
        return falcon ? "self_attention.query_key_value" : "self_attn.qkv_proj";
    case KVB_ROLE_ATTN_O:
        return falcon ? "self_attention.dense"
               : opt  ? "self_attn.out_proj"
               : phi  ? "self_attn.dense"
                      : "self_attn.o_proj";
    case KVB_ROLE_MLA_Q_A: return "self_attn.q_a_proj";
    case KVB_ROLE_MLA_Q_B: return "self_attn.q_b_proj";
    case KVB_ROLE_MLA_KV_A: return "self_attn.kv_a_proj_with_mqa";
    case KVB_ROLE_MLA_KV_B: return "self_attn.kv_b_proj";
    case KVB_ROLE_MLP_GATE:
        return mlp_name(m, "mlp.gate_proj", "feed_forward.gate_proj");
    case KVB_ROLE_MLP_UP:
        return falcon ? "mlp.dense_h_to_4h"
               : opt  ? "fc1"
               : phi  ? "mlp.fc1"
                      : mlp_name(m, "mlp.up_proj", "feed_forward.up_proj");
    case KVB_ROLE_MLP_GATE_UP: return "mlp.gate_up_proj";
    case KVB_ROLE_MLP_DOWN:
        return falcon ? "mlp.dense_4h_to_h"
               : opt  ? "fc2"
               : phi  ? "mlp.fc2"
                      : mlp_name(m, "mlp.down_proj", "feed_forward.down_proj");
    case KVB_ROLE_ROUTER: return "mlp.gate";
    case KVB_ROLE_EXPERT_GATE: return "mlp.experts.gate_proj";
    case KVB_ROLE_EXPERT_UP: return "mlp.experts.up_proj";
    case KVB_ROLE_EXPERT_DOWN: return "mlp.experts.down_proj";
    case KVB_ROLE_SHARED_GATE: return "mlp.shared_experts.gate_proj";
    case KVB_ROLE_SHARED_UP: return "mlp.shared_experts.up_proj";
    case KVB_ROLE_SHARED_DOWN: return "mlp.shared_experts.down_proj";
    case KVB_ROLE_SHARED_EXPERT_GATE: return "mlp.shared_expert_gate";
    case KVB_ROLE_SINKS: return "self_attn.sinks";
    case KVB_ROLE_SSM_IN:
        return m->arch == KVB_ARCH_NEMOTRON_H ? "mixer.in_proj"
               : mamba_module(m)              ? "mamba.in_proj"
                                              : "linear_attn.in_proj_qkvz";
    case KVB_ROLE_SSM_IN_BA: return "linear_attn.in_proj_ba";
    case KVB_ROLE_INDEXER_WQ_B: return "self_attn.indexer.wq_b";
    case KVB_ROLE_INDEXER_WK: return "self_attn.indexer.wk";
    case KVB_ROLE_INDEXER_WEIGHTS: return "self_attn.indexer.weights_proj";
    case KVB_ROLE_SSM_CONV:
        return m->arch == KVB_ARCH_NEMOTRON_H ? "mixer.conv1d"
               : mamba_module(m)              ? "mamba.conv1d"
                                              : "linear_attn.conv1d";
    case KVB_ROLE_SSM_OUT:
        return m->arch == KVB_ARCH_NEMOTRON_H ? "mixer.out_proj"
               : mamba_module(m)              ? "mamba.out_proj"
                                              : "linear_attn.out_proj";
    default: return "";
    }
}

/* A tensor of one of mllama's cross-attention layers ('X'), whose
 * attention module is cross_attn rather than self_attn. */
static bool cross(const kvb_model *m, const kvb__tdesc *t)
{
    return t->layer >= 0 && kvb__layer_kind(m, (uint32_t)t->layer) == 'X';
}

static const char *layer_norm_name(const kvb_model *m, uint32_t ordinal)
{
    static const char *const hf[] = {
        "input_layernorm", "post_attention_layernorm",
        "pre_feedforward_layernorm", "post_feedforward_layernorm"};
    static const char *const opt[] = {"self_attn_layer_norm",
                                      "final_layer_norm", "", ""};
    /* Falcon-H1: input_layernorm and pre_ff_layernorm (modular_falcon_h1.py) */
    static const char *const fh1[] = {"input_layernorm", "pre_ff_layernorm", "",
                                      ""};
    return (m->arch == KVB_ARCH_OPT         ? opt
            : m->arch == KVB_ARCH_FALCON_H1 ? fh1
                                            : hf)[ordinal & 3];
}

static void norm_name(const kvb_model *m, const kvb__tdesc *t,
                      const char *prefix, char *buf, size_t cap)
{
    const char *kind = (t->ordinal & 1) ? "bias" : "weight";
    if (t->of_role == KVB_ROLE_INDEXER_WK) {
        snprintf(buf, cap, "%s.self_attn.indexer.k_norm.%s", prefix, kind);
    } else if (t->of_role == KVB_ROLE_SSM_OUT) {
        snprintf(buf, cap, "%s.%s.norm.weight", prefix, ssm_module(m));
    } else if (t->of_role == KVB_ROLE_ATTN_Q || t->of_role == KVB_ROLE_ATTN_K) {
        snprintf(buf, cap, "%s.%s.%s_norm.weight", prefix,
                 cross(m, t) ? "cross_attn" : "self_attn",
                 t->of_role == KVB_ROLE_ATTN_Q ? "q" : "k");
    } else if (t->of_role == KVB_ROLE_MLA_Q_A ||
               t->of_role == KVB_ROLE_MLA_KV_A) {
        snprintf(buf, cap, "%s.self_attn.%s_layernorm.weight", prefix,
                 t->of_role == KVB_ROLE_MLA_Q_A ? "q_a" : "kv_a");
    } else if (t->layer < 0) {
        snprintf(buf, cap, "%s.%s", prefix, kind);
    } else {
        snprintf(buf, cap, "%s.%s.%s", prefix,
                 layer_norm_name(m, t->ordinal / 2), kind);
    }
}

/* Jamba's x_proj and dt_proj (ordinal 0 and 1) and the dt, B and C
 * layernorms (ordinals 0..2), which share the SSM_IN_BA role. */
static void mamba1_name(const kvb__tdesc *t, const char *prefix, char *buf,
                        size_t cap)
{
    static const char *const norms[] = {"dt", "b", "c"};
    if (t->role == KVB_ROLE_NORM)
        snprintf(buf, cap, "%s.mamba.%s_layernorm.weight", prefix,
                 norms[t->ordinal % 3]);
    else
        snprintf(buf, cap, "%s.mamba.%s.%s", prefix,
                 t->ordinal ? "dt_proj" : "x_proj",
                 t->role == KVB_ROLE_BIAS ? "bias" : "weight");
}

static void name_under(const kvb_model *m, const kvb__tdesc *t,
                       const char *root, const char *prefix, char *buf,
                       size_t cap);

/* The layer that stores shared block b: the (b+1)-th 'Z'. */
static uint32_t zamba2_block_layer(const kvb_model *m, uint32_t b)
{
    uint32_t i = 0;
    for (uint32_t seen = 0; i < m->num_hidden_layers; i++)
        if (m->layer_pattern[i] == 'Z' && seen++ == b)
            break;
    return i;
}

/* A Zamba2 hybrid layer's tensor names (transformers' state dict, as in
 * the checkpoints' model.safetensors.index.json): the shared block and
 * its adapter lists under the layer that stores the block, the rest
 * (linear, mamba_decoder) under the layer itself. */
static void zamba2_name(const kvb_model *m, const kvb__tdesc *t, char *buf,
                        size_t cap)
{
    static const char *const qkv[] = {"q", "k", "v"};
    char st[64];
    uint32_t j = t->ordinal, blocks = m->shared_blocks ? m->shared_blocks : 1;
    uint32_t home =
        t->role == KVB_ROLE_ADAPTER_A || t->role == KVB_ROLE_ADAPTER_B
            ? zamba2_block_layer(m, j % blocks)
            : (uint32_t)t->layer;
    snprintf(st, sizeof st, "model.layers.%u.shared_transformer", home);
    int32_t of = t->of_role;
    if (t->role == KVB_ROLE_ADAPTER_A || t->role == KVB_ROLE_ADAPTER_B) {
        int ab = t->role == KVB_ROLE_ADAPTER_B;
        if (of == KVB_ROLE_MLP_GATE_UP)
            snprintf(buf, cap,
                     "%s.feed_forward.gate_up_proj_adapter_list.%u.%d.weight",
                     st, j, ab);
        else
            snprintf(buf, cap,
                     "%s.self_attn.linear_%s_adapter_list.%u.%d.weight", st,
                     qkv[(of - KVB_ROLE_ATTN_Q) % 3], j, ab);
    } else if (t->role == KVB_ROLE_HYBRID_LINEAR) {
        snprintf(buf, cap, "model.layers.%d.linear.weight", t->layer);
    } else if (t->role == KVB_ROLE_NORM && of == KVB_ROLE_HYBRID_LINEAR) {
        snprintf(buf, cap, "%s.%s.weight", st,
                 t->ordinal ? "pre_ff_layernorm" : "input_layernorm");
    } else if (t->role == KVB_ROLE_MLP_GATE_UP ||
               t->role == KVB_ROLE_MLP_DOWN) {
        snprintf(buf, cap, "%s.feed_forward.%s.weight", st,
                 t->role == KVB_ROLE_MLP_DOWN ? "down_proj" : "gate_up_proj");
    } else if (t->role >= KVB_ROLE_ATTN_Q && t->role <= KVB_ROLE_ATTN_O) {
        snprintf(buf, cap, "%s.%s.weight", st, role_suffix(m, t->role));
    } else { /* the Mamba2 layer: mamba_decoder.{input_layernorm, mamba.*} */
        char pre[64];
        snprintf(pre, sizeof pre, "model.layers.%d.mamba_decoder", t->layer);
        name_under(m, t, "model", pre, buf, cap);
    }
}

void kvb__tensor_name(const kvb_model *m, const kvb__tdesc *t, char *buf,
                      size_t cap)
{
    bool opt = m->arch == KVB_ARCH_OPT;
    const char *root = opt ? "model.decoder" : "model";
    char prefix[48];
    if (t->layer >= 0)
        snprintf(prefix, sizeof prefix, "%s.layers.%d", root, t->layer);
    else
        snprintf(prefix, sizeof prefix, "%s.%s", root,
                 opt ? "final_layer_norm"
                 : m->arch == KVB_ARCH_FALCON_H1 || m->arch == KVB_ARCH_PHI
                     ? "final_layernorm"
                     : "norm");
    if (m->arch == KVB_ARCH_ZAMBA2 && t->layer >= 0 &&
        (m->layer_pattern[t->layer] == 'Z' ||
         m->layer_pattern[t->layer] == 'z')) {
        zamba2_name(m, t, buf, cap);
        return;
    }
    if (m->arch == KVB_ARCH_ZAMBA2 && t->layer == -1 &&
        t->role == KVB_ROLE_NORM) {
        snprintf(buf, cap, "model.final_layernorm.weight");
        return;
    }
    name_under(m, t, root, prefix, buf, cap);
}

/* A tensor's name under `prefix`, its layer's module path (root: the
 * model's, for the embeddings). */
static void name_under(const kvb_model *m, const kvb__tdesc *t,
                       const char *root, const char *prefix, char *buf,
                       size_t cap)
{
    if (t->of_role == KVB_ROLE_SSM_IN_BA && m->arch == KVB_ARCH_JAMBA) {
        mamba1_name(t, prefix, buf, cap);
        return;
    }
    switch (t->role) {
    case KVB_ROLE_EMBED:
        snprintf(buf, cap, "%s.embed_tokens.weight", root);
        return;
    case KVB_ROLE_POS_EMBED:
        snprintf(buf, cap, "%s.embed_positions.weight", root);
        return;
    case KVB_ROLE_LM_HEAD: snprintf(buf, cap, "lm_head.weight"); return;
    case KVB_ROLE_CROSS_GATE:
        snprintf(buf, cap, "%s.cross_attn_%s_gate", prefix,
                 t->ordinal ? "mlp" : "attn");
        return;
    case KVB_ROLE_VISION:
        if (m->vision_kind == KVB_VISION_GEMMA3N)
            kvb__gemma3n_tower_name(t, buf, cap);
        else
            kvb__vision_name(t, buf, cap);
        return;
    case KVB_ROLE_PLE_EMBED:
    case KVB_ROLE_PLE:
    case KVB_ROLE_ALTUP:
    case KVB_ROLE_LAUREL: kvb__gemma3n_name(t, buf, cap); return;
    case KVB_ROLE_NORM: norm_name(m, t, prefix, buf, cap); return;
    case KVB_ROLE_SSM_HEAD: {
        static const char *const param[] = {"A_log", "dt_bias", "D"};
        snprintf(buf, cap, "%s.%s.%s", prefix, ssm_module(m),
                 param[t->ordinal % 3]);
        return;
    }
    case KVB_ROLE_BIAS:
        if (t->of_role == KVB_ROLE_LM_HEAD)
            snprintf(buf, cap, "lm_head.bias");
        else
            snprintf(buf, cap, "%s.%s.bias", prefix,
                     role_suffix(m, t->of_role));
        return;
    case KVB_ROLE_ROUTER_BIAS:
        snprintf(buf, cap, "%s.mlp.gate.%s", prefix,
                 (m->flags & KVB_MODEL_ROUTER_SCORE_BIAS)
                     ? "e_score_correction_bias"
                     : "bias");
        return;
    default: {
        const char *suffix = role_suffix(m, t->role);
        if (cross(m, t) && !strncmp(suffix, "self_attn.", 10))
            snprintf(buf, cap, "%s.cross_attn.%s.weight", prefix, suffix + 10);
        else
            snprintf(buf, cap, "%s.%s.weight", prefix, suffix);
        return;
    }
    }
}

/* ---- public access ---- */

typedef struct index_ctx {
    size_t want, seen;
    kvb__tdesc found;
} index_ctx;

static int pick_index(void *vctx, const kvb__tdesc *t)
{
    index_ctx *c = vctx;
    if (c->seen++ == c->want) {
        c->found = *t;
        return 1;
    }
    return 0;
}

kvb_status kvb_model_tensor_count(const kvb_model *model, size_t *count,
                                  kvb_error *err)
{
    if (!count)
        return kvb__fail(err, KVB_EINVAL, "count", "count must not be NULL");
    kvb_model m;
    kvb_status st = kvb__model_load(model, &m, err);
    if (st)
        return st;
    index_ctx c = {SIZE_MAX, 0, {0}};
    kvb__inventory_walk(&m, pick_index, &c);
    *count = c.seen;
    return KVB_OK;
}
