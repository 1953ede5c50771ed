/*
 * model/vision.c -- the tensors of a vision tower and of its projector
 * into the language model, walked like the decoder's (inventory.c), so the
 * parameter count, the checkpoint bytes and each GPU's share include them.
 *
 * Each family follows its Hugging Face modelling file (shapes, biases and
 * norms; rotary tables are non-persistent buffers and hold no weights):
 *   SigLIP (Gemma 3)  transformers models/siglip/modeling_siglip.py
 *                     (vision_use_head false) + gemma3/modeling_gemma3.py
 *                     Gemma3MultiModalProjector
 *   Qwen2.5-VL        qwen2_5_vl/modeling_qwen2_5_vl.py (VisionPatchEmbed,
 *                     VisionBlock, PatchMerger)
 *   Qwen3-VL          qwen3_vl/modeling_qwen3_vl.py (VisionModel with
 *                     pos_embed and deepstack_merger_list)
 *   Pixtral (Mistral 3) pixtral/modeling_pixtral.py + mistral3/
 *                     modeling_mistral3.py (PatchMerger, projector)
 *   Llama 4           llama4/modeling_llama4.py (Llama4VisionModel,
 *                     PixelShuffleMLP, MultiModalProjector)
 *   mllama            mllama/modeling_mllama.py (MllamaVisionModel,
 *                     multi_modal_projector)
 * Attention and MLP linears are split across tensor-parallel ranks like
 * the decoder's (vLLM's mm_encoder_tp_mode "weights"); `replicate` keeps
 * every tower tensor whole on each rank (mode "data").
 */
#include "internal.h"

#include <stdio.h>

/* Which part of the tower a tensor is (the name's tail, in ordinal). */
enum part {
    P_PATCH,
    P_PATCH_BIAS,
    P_CLASS,
    P_POS,
    P_NORM,
    P_Q,
    P_K,
    P_V,
    P_QKV,
    P_O,
    P_FC1,
    P_FC2,
    P_GATE,
    P_UP,
    P_DOWN,
    P_MERGE,
    P_PROJ1,
    P_PROJ2,
    P_BIAS,
    P_TILE,   /* mllama's tile (aspect-ratio) embeddings */
    P_SCALAR, /* mllama's tanh gates (one value each) */
    P_LAST_
};

typedef struct vwalk {
    const kvb_model *m;
    bool replicate;
    kvb__tensor_fn fn;
    void *ctx;
    int stop;
} vwalk;

static void put(vwalk *w, int32_t split, uint64_t rows, uint64_t cols,
                uint32_t block, enum part p)
{
    if (w->stop || rows == 0 || cols == 0)
        return;
    kvb__tdesc t = {KVB_ROLE_VISION,
                    -1,
                    w->replicate ? KVB_SPLIT_REPLICATED : split,
                    KVB_ROLE_VISION,
                    1,
                    rows,
                    cols,
                    block * P_LAST_ + (uint32_t)p};
    w->stop = w->fn(w->ctx, &t);
}

/* A linear (rows = out features) and its bias; a row-parallel bias stays
 * whole on every rank. */
static void lin(vwalk *w, int32_t split, uint64_t rows, uint64_t cols,
                bool bias, uint32_t block, enum part p)
{
    put(w, split, rows, cols, block, p);
    if (bias)
        put(w, split == KVB_SPLIT_ROW ? KVB_SPLIT_REPLICATED : split, rows, 1,
            block, P_BIAS);
}

/* RMSNorm (weight) or LayerNorm (weight and bias). */
static void vnorm(vwalk *w, uint64_t width, bool layer_norm, uint32_t block)
{
    put(w, KVB_SPLIT_REPLICATED, width, 1, block, P_NORM);
    if (layer_norm)
        put(w, KVB_SPLIT_REPLICATED, width, 1, block, P_BIAS);
}

/* One ViT block: pre-norm attention and MLP.  `fused` q/k/v as one qkv
 * (Qwen); `gated` SwiGLU MLP (Qwen2.5-VL, Pixtral) else fc1/fc2. */
static void vblock(vwalk *w, uint32_t b, bool layer_norm, bool bias, bool fused,
                   bool gated)
{
    uint64_t h = w->m->vision_hidden_size;
    uint64_t ff = w->m->vision_intermediate_size;
    vnorm(w, h, layer_norm, b);
    if (fused) {
        lin(w, KVB_SPLIT_COLUMN, 3 * h, h, bias, b, P_QKV);
    } else {
        lin(w, KVB_SPLIT_COLUMN, h, h, bias, b, P_Q);
        lin(w, KVB_SPLIT_COLUMN, h, h, bias, b, P_K);
        lin(w, KVB_SPLIT_COLUMN, h, h, bias, b, P_V);
    }
    lin(w, KVB_SPLIT_ROW, h, h, bias, b, P_O);
    vnorm(w, h, layer_norm, b);
    if (gated) {
        lin(w, KVB_SPLIT_COLUMN, ff, h, bias, b, P_GATE);
        lin(w, KVB_SPLIT_COLUMN, ff, h, bias, b, P_UP);
        lin(w, KVB_SPLIT_ROW, h, ff, bias, b, P_DOWN);
    } else {
        lin(w, KVB_SPLIT_COLUMN, ff, h, bias, b, P_FC1);
        lin(w, KVB_SPLIT_ROW, h, ff, bias, b, P_FC2);
    }
}

static void blocks(vwalk *w, bool layer_norm, bool bias, bool fused, bool gated)
{
    for (uint32_t b = 0; b < w->m->vision_num_layers && !w->stop; b++)
        vblock(w, b + 1, layer_norm, bias, fused, gated);
}

static uint64_t patches(const kvb_model *m)
{
    uint64_t side = m->vision_image_size / m->vision_patch_size;
    return side * side;
}

/* 3 channels x patch x patch pixels (x 2 frames for the Qwen Conv3d). */
static uint64_t patch_cols(const kvb_model *m, uint64_t frames)
{
    return 3 * frames * m->vision_patch_size * m->vision_patch_size;
}

/* Gemma 3: SigLIP embeddings (Conv2d with bias, learned positions), 27
 * LayerNorm blocks with biased linears, post_layernorm; the projector is
 * mm_soft_emb_norm (RMSNorm weight) and mm_input_projection_weight. */
static void siglip(vwalk *w)
{
    const kvb_model *m = w->m;
    uint64_t h = m->vision_hidden_size;
    lin(w, KVB_SPLIT_REPLICATED, h, patch_cols(m, 1), true, 0, P_PATCH);
    put(w, KVB_SPLIT_REPLICATED, patches(m), h, 0, P_POS);
    blocks(w, true, true, false, false);
    vnorm(w, h, true, 0);
    vnorm(w, h, false, 0);
    put(w, KVB_SPLIT_REPLICATED, m->hidden_size, h, 0, P_PROJ1);
}

/* Qwen2.5-VL and Qwen3-VL: Conv3d patches (2 frames), blocks with a fused
 * biased qkv, and a merger (norm, fc over merge^2 patches, fc to the
 * language width).  Qwen3-VL adds learned positions, a biased Conv3d,
 * LayerNorms, an fc1/fc2 MLP and deepstack mergers whose norm spans the
 * merged width. */
static void merger(vwalk *w, uint64_t norm_width, bool layer_norm)
{
    const kvb_model *m = w->m;
    uint64_t merged = m->vision_hidden_size * m->vision_spatial_merge *
                      m->vision_spatial_merge;
    uint64_t out =
        m->vision_out_hidden_size ? m->vision_out_hidden_size : m->hidden_size;
    vnorm(w, norm_width, layer_norm, 0);
    lin(w, KVB_SPLIT_COLUMN, merged, merged, true, 0, P_MERGE);
    lin(w, KVB_SPLIT_ROW, out, merged, true, 0, P_PROJ1);
}

static void qwen_vl(vwalk *w, bool v3)
{
    const kvb_model *m = w->m;
    uint64_t h = m->vision_hidden_size;
    lin(w, KVB_SPLIT_REPLICATED, h, patch_cols(m, 2), v3, 0, P_PATCH);
    put(w, KVB_SPLIT_REPLICATED, m->vision_position_rows, h, 0, P_POS);
    blocks(w, v3, true, true, !v3);
    merger(w, h, v3);
    uint64_t merged = h * m->vision_spatial_merge * m->vision_spatial_merge;
    for (uint32_t d = 0; v3 && d < m->vision_deepstack && !w->stop; d++)
        merger(w, merged, true);
}

/* Mistral 3: Pixtral patch_conv (no bias), ln_pre, RMSNorm blocks without
 * biases and a SwiGLU MLP; the projector is an RMSNorm, the patch merger
 * (merge^2 patches to one) and linear_1/linear_2 (multimodal_projector_bias
 * false in Mistral-Small-3.1). */
static void pixtral(vwalk *w)
{
    const kvb_model *m = w->m;
    uint64_t h = m->vision_hidden_size, t = m->hidden_size;
    uint64_t merge =
        (uint64_t)m->vision_spatial_merge * m->vision_spatial_merge;
    put(w, KVB_SPLIT_REPLICATED, h, patch_cols(m, 1), 0, P_PATCH);
    vnorm(w, h, false, 0);
    blocks(w, false, false, false, true);
    vnorm(w, h, false, 0);
    put(w, KVB_SPLIT_REPLICATED, h, h * merge, 0, P_MERGE);
    lin(w, KVB_SPLIT_COLUMN, t, h, false, 0, P_PROJ1);
    lin(w, KVB_SPLIT_ROW, t, t, false, 0, P_PROJ2);
}

/* Llama 4: an unfolded patch linear (no bias), class embedding, positions
 * for every patch plus the class token, LayerNorms before and after,
 * biased blocks; the pixel-shuffle adapter (fc1 from intermediate_size,
 * fc2 square, no biases) and the projector's linear_1. */
static void llama4(vwalk *w)
{
    const kvb_model *m = w->m;
    uint64_t h = m->vision_hidden_size, t = m->hidden_size;
    uint64_t out = m->vision_out_hidden_size ? m->vision_out_hidden_size : t;
    put(w, KVB_SPLIT_REPLICATED, h, patch_cols(m, 1), 0, P_PATCH);
    put(w, KVB_SPLIT_REPLICATED, h, 1, 0, P_CLASS);
    put(w, KVB_SPLIT_REPLICATED, patches(m) + 1, h, 0, P_POS);
    vnorm(w, h, true, 0);
    vnorm(w, h, true, 0);
    blocks(w, true, true, false, false);
    lin(w, KVB_SPLIT_COLUMN, out, m->vision_intermediate_size, false, 0, P_FC1);
    lin(w, KVB_SPLIT_ROW, out, out, false, 0, P_FC2);
    put(w, KVB_SPLIT_REPLICATED, t, out, 0, P_PROJ1);
}

/* One MllamaVisionEncoderLayer: LayerNorms, q/k/v/o without biases, a
 * biased fc1/fc2 MLP; a global layer (is_gated) adds gate_attn and
 * gate_ffn, one value each. */
static void mllama_block(vwalk *w, uint32_t b, bool gated)
{
    uint64_t h = w->m->vision_hidden_size;
    uint64_t ff = w->m->vision_intermediate_size;
    vnorm(w, h, true, b);
    lin(w, KVB_SPLIT_COLUMN, h, h, false, b, P_Q);
    lin(w, KVB_SPLIT_COLUMN, h, h, false, b, P_K);
    lin(w, KVB_SPLIT_COLUMN, h, h, false, b, P_V);
    lin(w, KVB_SPLIT_ROW, h, h, false, b, P_O);
    vnorm(w, h, true, b);
    lin(w, KVB_SPLIT_COLUMN, ff, h, true, b, P_FC1);
    lin(w, KVB_SPLIT_ROW, h, ff, true, b, P_FC2);
    for (uint32_t g = 0; gated && g < 2; g++)
        put(w, KVB_SPLIT_REPLICATED, 1, 1, b, P_SCALAR);
}

/*
 * mllama (MllamaVisionModel): a Conv2d patch embedding without bias, a
 * class embedding, the gated positional embedding (a gate, positions for
 * every patch of a tile plus the class token, and a tile embedding of
 * max_num_tiles x those positions per aspect-ratio id), pre- and
 * post-tile positional embeddings (max_num_tiles x width per id, gated),
 * layernorm_pre/post, num_hidden_layers local layers and
 * num_global_layers gated ones.  Aspect-ratio ids run 0..
 * len(supported_aspect_ratios) (max_aspect_ratio_id + 1 rows).  The
 * projector is one biased linear from vision_output_dim ((len(
 * intermediate_layers_indices) + 1) x width) to the text width; vLLM's
 * mllama.py builds it as an nn.Linear, whole on every rank.
 */
static void mllama(vwalk *w)
{
    const kvb_model *m = w->m;
    uint64_t h = m->vision_hidden_size, t = m->hidden_size;
    uint64_t pos = patches(m) + 1, ids = (uint64_t)m->vision_aspect_ratios + 1;
    uint64_t tiles = m->vision_max_tiles;
    put(w, KVB_SPLIT_REPLICATED, h, patch_cols(m, 1), 0, P_PATCH);
    put(w, KVB_SPLIT_REPLICATED, h, 1, 0, P_CLASS);
    put(w, KVB_SPLIT_REPLICATED, 1, 1, 0, P_SCALAR);
    put(w, KVB_SPLIT_REPLICATED, pos, h, 0, P_POS);
    put(w, KVB_SPLIT_REPLICATED, ids, tiles * pos * h, 0, P_TILE);
    for (uint32_t k = 0; k < 2; k++) { /* pre- and post-tile */
        put(w, KVB_SPLIT_REPLICATED, ids, tiles * h, 0, P_TILE);
        put(w, KVB_SPLIT_REPLICATED, 1, 1, 0, P_SCALAR);
    }
    vnorm(w, h, true, 0);
    vnorm(w, h, true, 0);
    uint32_t local = m->vision_num_layers;
    for (uint32_t b = 0; b < local + m->vision_global_layers && !w->stop; b++)
        mllama_block(w, b + 1, b >= local);
    uint64_t in = m->vision_out_hidden_size ? m->vision_out_hidden_size : h;
    lin(w, KVB_SPLIT_REPLICATED, t, in, true, 0, P_PROJ1);
}

int kvb__vision_walk(const kvb_model *m, bool replicate, kvb__tensor_fn fn,
                     void *ctx)
{
    vwalk w = {m, replicate, fn, ctx, 0};
    switch (m->vision_kind) {
    case KVB_VISION_SIGLIP: siglip(&w); break;
    case KVB_VISION_QWEN2_5_VL: qwen_vl(&w, false); break;
    case KVB_VISION_QWEN3_VL: qwen_vl(&w, true); break;
    case KVB_VISION_PIXTRAL: pixtral(&w); break;
    case KVB_VISION_LLAMA4: llama4(&w); break;
    case KVB_VISION_MLLAMA: mllama(&w); break;
    case KVB_VISION_GEMMA3N: return kvb__gemma3n_towers(m, fn, ctx);
    default: break;
    }
    return w.stop;
}

bool kvb__vision_known(int32_t kind)
{
    switch (kind) {
    case KVB_VISION_NONE:
    case KVB_VISION_SIGLIP:
    case KVB_VISION_QWEN2_5_VL:
    case KVB_VISION_QWEN3_VL:
    case KVB_VISION_PIXTRAL:
    case KVB_VISION_LLAMA4:
    case KVB_VISION_MLLAMA:
    case KVB_VISION_GEMMA3N: return true;
    default: return false;
    }
}

void kvb__vision_name(const kvb__tdesc *t, char *buf, size_t cap)
{
    static const char *const parts[P_LAST_] = {"patch_embed.weight",
                                               "patch_embed.bias",
                                               "class_embedding",
                                               "pos_embed.weight",
                                               "norm.weight",
                                               "q_proj.weight",
                                               "k_proj.weight",
                                               "v_proj.weight",
                                               "qkv.weight",
                                               "o_proj.weight",
                                               "fc1.weight",
                                               "fc2.weight",
                                               "gate_proj.weight",
                                               "up_proj.weight",
                                               "down_proj.weight",
                                               "merger.weight",
                                               "projector_1.weight",
                                               "projector_2.weight",
                                               "bias",
                                               "tile_embedding.weight",
                                               "gate"};
    uint32_t block = t->ordinal / P_LAST_;
    const char *part = parts[t->ordinal % P_LAST_];
    if (block)
        snprintf(buf, cap, "vision.blocks.%u.%s", block - 1, part);
    else
        snprintf(buf, cap, "vision.%s", part);
}

/*
 * convert_hf_to_gguf.py --mmproj --outtype TYPE: 1-D tensors (norms,
 * biases, a class embedding) are written F32 (prepare_tensors, n_dims <=
 * 1); Gemma3VisionModel.tensor_force_quant keeps the SigLIP embeddings
 * (patch and position) F32 and mm_input_projection F16; a block type
 * (q8_0, q4_0 ...) falls back to F16 for a row that is not a whole
 * number of 32-element blocks (gguf-py QuantError).
 */
int32_t kvb__vision_gguf_type(const kvb_model *m, const kvb__tdesc *t,
                              int32_t type)
{
    enum part p = (enum part)(t->ordinal % P_LAST_);
    if (t->cols <= 1 || p == P_NORM || p == P_BIAS || p == P_CLASS)
        return KVB_STORAGE_F32;
    if (m->vision_kind == KVB_VISION_SIGLIP && t->ordinal < P_LAST_) {
        if (p == P_PATCH || p == P_POS)
            return KVB_STORAGE_F32;
        if (p == P_PROJ1)
            return KVB_STORAGE_F16;
    }
    bool blocks = type == KVB_STORAGE_Q8_0 || type == KVB_STORAGE_Q4_0 ||
                  type == KVB_STORAGE_Q4_1 || type == KVB_STORAGE_Q5_0 ||
                  type == KVB_STORAGE_Q5_1;
    if (blocks && t->cols % 32)
        return KVB_STORAGE_F16;
    return type;
}
