/*
 * model/gemma3n.c -- the tensors Gemma 3n adds to a Gemma-shaped decoder,
 * and its towers, as transformers' models/gemma3n/modeling_gemma3n.py
 * builds them (Gemma3nTextModel, Gemma3nTextDecoderLayer,
 * Gemma3nTextAltUp, Gemma3nTextLaurelBlock, Gemma3nAudioEncoder,
 * Gemma3nMultimodalEmbedder).  The attention (q/k/v/o with q and k norms;
 * v_norm has no weight, with_scale=False), the gated MLP and the four
 * sandwich norms are the ordinary walk's (inventory.c).
 *
 * Splits follow vLLM's gemma3n.py: embed_tokens_per_layer is a
 * VocabParallelEmbedding, per_layer_model_projection, altup_projections,
 * altup_unembed_projections and laurel.linear_left ColumnParallelLinear,
 * laurel.linear_right RowParallelLinear, the AltUp coefficients and router
 * and per_layer_input_gate / per_layer_projection ReplicatedLinear; none
 * of them gets the quant_config, so they stay in the model dtype (their
 * roles are not linears in quant.c).  The towers are built by
 * transformers / timm inside vLLM (gemma3n_mm.py), replicated on every
 * rank.
 */
#include "internal.h"

#include <stdio.h>

/*
 * The vision tower is timm's mobilenetv5_300m_enc (transformers builds it
 * with timm.create_model through TimmWrapperModel), whose shape the
 * config does not give: vision_config names the architecture and its
 * output width only.  Its count is therefore a constant, taken from
 * timm's own definition (huggingface/pytorch-image-models
 * timm/models/mobilenetv5.py, _gen_mobilenet_v5, at aa4b5850): the model
 * that source builds has 294,126,912 parameters (conv_stem 1,856, blocks
 * 278,880,000, msfa 15,245,056) and no buffers.  KerasHub's
 * mobilenetv5_300m_enc_gemma3n preset lists 294,284,096, 157,184 more,
 * which is not explained here.  The plan says the count is not derived
 * from the config.
 */
#define MOBILENETV5_300M_PARAMS 294126912ull

/* What a tensor is, in its ordinal (names and GGUF types). */
enum g3n {
    G_PLE_EMBED,     /* embed_tokens_per_layer */
    G_PLE_MODEL,     /* per_layer_model_projection */
    G_PLE_NORM,      /* per_layer_projection_norm */
    G_ALTUP_PROJ,    /* altup_projections.k */
    G_ALTUP_UNEMBED, /* altup_unembed_projections.k */
    G_CORRECT_SCALE, /* layers.i.altup.correct_output_scale */
    G_CORRECTION,    /* layers.i.altup.correction_coefs */
    G_PREDICTION,    /* layers.i.altup.prediction_coefs */
    G_ROUTER,        /* layers.i.altup.modality_router */
    G_ROUTER_NORM,   /* layers.i.altup.router_norm */
    G_LAUREL_LEFT,   /* layers.i.laurel.linear_left */
    G_LAUREL_RIGHT,  /* layers.i.laurel.linear_right */
    G_LAUREL_NORM,   /* layers.i.laurel.post_laurel_norm */
    G_PL_GATE,       /* layers.i.per_layer_input_gate */
    G_PL_PROJ,       /* layers.i.per_layer_projection */
    G_PL_NORM,       /* layers.i.post_per_layer_input_norm */
    G_LAST_
};

typedef struct gwalk {
    const kvb_model *m;
    kvb__tensor_fn fn;
    void *ctx;
    int stop;
} gwalk;

static void put(gwalk *w, int32_t role, int32_t layer, int32_t split,
                uint64_t rows, uint64_t cols, uint32_t ordinal)
{
    if (w->stop || rows == 0 || cols == 0)
        return;
    kvb__tdesc t = {role, layer, split, role, 1, rows, cols, ordinal};
    w->stop = w->fn(w->ctx, &t);
}

/* Embedding-stage tensors: the per-layer embedding table (one row of
 * num_hidden_layers x hidden_size_per_layer_input per token), its
 * projection from the main embedding and that projection's norm, and
 * AltUp's projections into and out of its extra streams.  The unembed
 * projections run after the last layer, but vLLM's Gemma3n has no
 * pipeline parallelism (no SupportsPP), so one stage holds them all. */
int kvb__gemma3n_globals(const kvb_model *m, kvb__tensor_fn fn, void *ctx)
{
    gwalk w = {m, fn, ctx, 0};
    uint64_t h = m->hidden_size;
    uint64_t ple =
        (uint64_t)m->num_hidden_layers * m->hidden_size_per_layer_input;
    put(&w, KVB_ROLE_PLE_EMBED, -1, KVB_SPLIT_VOCAB,
        m->vocab_size_per_layer_input, ple, G_PLE_EMBED);
    put(&w, KVB_ROLE_PLE, -1, KVB_SPLIT_COLUMN, ple, h, G_PLE_MODEL);
    put(&w, KVB_ROLE_PLE, -1, KVB_SPLIT_REPLICATED,
        m->hidden_size_per_layer_input, 1, G_PLE_NORM);
    for (uint32_t k = 1; k < m->altup_num_inputs; k++) {
        put(&w, KVB_ROLE_ALTUP, -1, KVB_SPLIT_COLUMN, h, h,
            G_ALTUP_PROJ + G_LAST_ * k);
        put(&w, KVB_ROLE_ALTUP, -1, KVB_SPLIT_COLUMN, h, h,
            G_ALTUP_UNEMBED + G_LAST_ * k);
    }
    return w.stop;
}

/* What each decoder layer adds: AltUp's router and coefficients
 * (correct_output_scale, correction_coefs A x A, prediction_coefs A^2 x A,
 * modality_router A x hidden, router_norm), LAuReL (linear_left rank x
 * hidden, linear_right hidden x rank, post_laurel_norm) and the per-layer
 * input gate and projection with their norm. */
int kvb__gemma3n_layer(const kvb_model *m, uint32_t i, kvb__tensor_fn fn,
                       void *ctx)
{
    gwalk w = {m, fn, ctx, 0};
    int32_t li = (int32_t)i;
    uint64_t h = m->hidden_size, a = m->altup_num_inputs;
    uint64_t r = m->laurel_rank, p = m->hidden_size_per_layer_input;
    put(&w, KVB_ROLE_ALTUP, li, KVB_SPLIT_REPLICATED, h, 1, G_CORRECT_SCALE);
    put(&w, KVB_ROLE_ALTUP, li, KVB_SPLIT_REPLICATED, a, a, G_CORRECTION);
    put(&w, KVB_ROLE_ALTUP, li, KVB_SPLIT_REPLICATED, a * a, a, G_PREDICTION);
    put(&w, KVB_ROLE_ALTUP, li, KVB_SPLIT_REPLICATED, a, h, G_ROUTER);
    put(&w, KVB_ROLE_ALTUP, li, KVB_SPLIT_REPLICATED, h, 1, G_ROUTER_NORM);
    put(&w, KVB_ROLE_LAUREL, li, KVB_SPLIT_COLUMN, r, h, G_LAUREL_LEFT);
    put(&w, KVB_ROLE_LAUREL, li, KVB_SPLIT_ROW, h, r, G_LAUREL_RIGHT);
    put(&w, KVB_ROLE_LAUREL, li, KVB_SPLIT_REPLICATED, h, 1, G_LAUREL_NORM);
    put(&w, KVB_ROLE_PLE, li, KVB_SPLIT_REPLICATED, p, h, G_PL_GATE);
    put(&w, KVB_ROLE_PLE, li, KVB_SPLIT_REPLICATED, h, p, G_PL_PROJ);
    put(&w, KVB_ROLE_PLE, li, KVB_SPLIT_REPLICATED, h, 1, G_PL_NORM);
    return w.stop;
}

static const char *const g3n_names[G_LAST_] = {
    "embed_tokens_per_layer.weight",    "per_layer_model_projection.weight",
    "per_layer_projection_norm.weight", "altup_projections",
    "altup_unembed_projections",        "altup.correct_output_scale",
    "altup.correction_coefs.weight",    "altup.prediction_coefs.weight",
    "altup.modality_router.weight",     "altup.router_norm.weight",
    "laurel.linear_left.weight",        "laurel.linear_right.weight",
    "laurel.post_laurel_norm.weight",   "per_layer_input_gate.weight",
    "per_layer_projection.weight",      "post_per_layer_input_norm.weight",
};

void kvb__gemma3n_name(const kvb__tdesc *t, char *buf, size_t cap)
{
    char tail[64];
    uint32_t k = t->ordinal / G_LAST_; /* AltUp stream, from 1 */
    if (k)
        snprintf(tail, sizeof tail, "%s.%u.weight",
                 g3n_names[t->ordinal % G_LAST_], k - 1);
    else
        snprintf(tail, sizeof tail, "%s", g3n_names[t->ordinal % G_LAST_]);
    if (t->layer >= 0)
        snprintf(buf, cap, "model.layers.%d.%s", t->layer, tail);
    else
        snprintf(buf, cap, "model.%s", tail);
}

/* ---- the towers (vision_kind GEMMA3N) ---- */

/* Tower tensors, in their ordinal: a part and, for the Conformer, the
 * block (block + 1; 0 outside the blocks). */
enum tpart {
    T_MOBILENET,   /* vision_tower.timm_model: timm's count */
    T_SSCP_CONV_0, /* subsample_conv_projection.conv_0.conv */
    T_SSCP_NORM_0, /* conv_0.norm */
    T_SSCP_CONV_1, /* conv_1.conv */
    T_SSCP_NORM_1, /* conv_1.norm */
    T_SSCP_PROJ,   /* input_proj_linear */
    T_FFW_PRE,     /* ffw_layer_start.pre_layer_norm */
    T_FFW_1,       /* ffw_layer_1 */
    T_FFW_2,       /* ffw_layer_2 */
    T_FFW_POST,    /* post_layer_norm */
    T_END_PRE,     /* the same four of ffw_layer_end */
    T_END_1,
    T_END_2,
    T_END_POST,
    T_ATTN_PRE,   /* attention.pre_attn_norm */
    T_ATTN_SCALE, /* attention.attn.per_dim_scale */
    T_ATTN_POS,   /* attention.attn.relative_position_embedding.pos_proj */
    T_ATTN_Q,     /* attention.attn.q_proj */
    T_ATTN_K,     /* attention.attn.k_proj */
    T_ATTN_V,     /* attention.attn.v_proj */
    T_ATTN_POST,  /* attention.post */
    T_ATTN_NORM,  /* attention.post_norm */
    T_CONV_PRE,   /* lconv1d.pre_layer_norm */
    T_CONV_START, /* lconv1d.linear_start */
    T_CONV_DW,    /* lconv1d.depthwise_conv1d */
    T_CONV_NORM,  /* lconv1d.conv_norm */
    T_CONV_END,   /* lconv1d.linear_end */
    T_BLOCK_NORM, /* conformer.b.norm */
    T_EMB_TABLE,  /* embed_{vision,audio}.embedding */
    T_EMB_HARD,   /* hard_embedding_norm */
    T_EMB_SOFT,   /* soft_embedding_norm */
    T_EMB_PROJ,   /* embedding_projection */
    T_LAST_
};

typedef struct twalk {
    const kvb_model *m;
    kvb__tensor_fn fn;
    void *ctx;
    int stop;
} twalk;

static void tput(twalk *w, uint64_t rows, uint64_t cols, uint32_t block,
                 uint32_t part)
{
    if (w->stop || rows == 0 || cols == 0)
        return;
    kvb__tdesc t = {KVB_ROLE_VISION,
                    -1,
                    KVB_SPLIT_REPLICATED,
                    KVB_ROLE_VISION,
                    1,
                    rows,
                    cols,
                    block * T_LAST_ + part};
    w->stop = w->fn(w->ctx, &t);
}

/* A Conformer feed-forward: pre norm, 4x up, down, post norm
 * (Gemma3nAudioConformerFeedForward). */
static void ffw(twalk *w, uint64_t h, uint32_t b, uint32_t first)
{
    tput(w, h, 1, b, first);
    tput(w, 4 * h, h, b, first + 1);
    tput(w, h, 4 * h, b, first + 2);
    tput(w, h, 1, b, first + 3);
}

/* One Gemma3nAudioConformerBlock: ffw_layer_start, chunked local
 * attention (per_dim_scale over one head, the relative-position
 * projection, q/k/v and post, no biases), the light conv (GLU
 * linear_start, depthwise conv1d without bias, conv_norm, linear_end),
 * ffw_layer_end and the block norm. */
static void conformer(twalk *w, uint32_t b)
{
    const kvb_model *m = w->m;
    uint64_t h = m->audio_hidden_size;
    ffw(w, h, b, T_FFW_PRE);
    tput(w, h, 1, b, T_ATTN_PRE);
    tput(w, h / m->audio_num_heads, 1, b, T_ATTN_SCALE);
    tput(w, h, h, b, T_ATTN_POS);
    tput(w, h, h, b, T_ATTN_Q);
    tput(w, h, h, b, T_ATTN_K);
    tput(w, h, h, b, T_ATTN_V);
    tput(w, h, h, b, T_ATTN_POST);
    tput(w, h, 1, b, T_ATTN_NORM);
    tput(w, h, 1, b, T_CONV_PRE);
    tput(w, 2 * h, h, b, T_CONV_START);
    tput(w, h, m->audio_conv_kernel, b, T_CONV_DW);
    tput(w, h, 1, b, T_CONV_NORM);
    tput(w, h, h, b, T_CONV_END);
    ffw(w, h, b, T_END_PRE);
    tput(w, h, 1, b, T_BLOCK_NORM);
}

/* The frequency bins after one subsampling conv: kernel 3, stride 2 and
 * one bin of padding each side (Gemma3nAudioSubSampleConvProjection pads
 * the frequency axis (1, 1); config.c accepts only those kernels and
 * strides). */
static uint64_t sscp_out(uint64_t f)
{
    return (f + 2 - 3) / 2 + 1;
}

/* Gemma3nAudioEncoder: two Conv2d blocks without bias (1 -> c1 -> c2
 * channels, 3x3) each with a cumulative group norm (one weight per
 * channel), the input projection from c2 x frequency bins, then the
 * Conformer blocks. */
static void audio(twalk *w)
{
    const kvb_model *m = w->m;
    uint64_t c1 = m->audio_sscp_channels_1, c2 = m->audio_sscp_channels_2;
    uint64_t f = sscp_out(sscp_out(m->audio_input_features));
    tput(w, c1, 9, 0, T_SSCP_CONV_0);
    tput(w, c1, 1, 0, T_SSCP_NORM_0);
    tput(w, c2, c1 * 9, 0, T_SSCP_CONV_1);
    tput(w, c2, 1, 0, T_SSCP_NORM_1);
    tput(w, m->audio_hidden_size, c2 * f, 0, T_SSCP_PROJ);
    for (uint32_t b = 0; b < m->audio_num_layers && !w->stop; b++)
        conformer(w, b + 1);
}

/* Gemma3nMultimodalEmbedder: a table of the modality's hard tokens, two
 * RMSNorms with weights, the projection to the text width, and a
 * post-projection norm without a weight (with_scale=False).  `block`
 * tells the vision embedder (0) from the audio one (1) in names. */
static void embedder(twalk *w, uint64_t width, uint32_t which)
{
    const kvb_model *m = w->m;
    uint32_t b = which * (UINT32_MAX / T_LAST_ / 2); /* above any block */
    tput(w, m->mm_embed_vocab_size, width, b, T_EMB_TABLE);
    tput(w, width, 1, b, T_EMB_HARD);
    tput(w, width, 1, b, T_EMB_SOFT);
    tput(w, m->hidden_size, width, b, T_EMB_PROJ);
}

int kvb__gemma3n_towers(const kvb_model *m, kvb__tensor_fn fn, void *ctx)
{
    twalk w = {m, fn, ctx, 0};
    tput(&w, MOBILENETV5_300M_PARAMS, 1, 0, T_MOBILENET);
    embedder(&w, m->vision_hidden_size, 0);
    audio(&w);
    embedder(&w, m->audio_hidden_size, 1);
    return w.stop;
}

void kvb__gemma3n_tower_name(const kvb__tdesc *t, char *buf, size_t cap)
{
    static const char *const parts[T_LAST_] = {
        "vision_tower.timm_model (mobilenetv5_300m_enc, timm's count)",
        "subsample_conv_projection.conv_0.conv.weight",
        "subsample_conv_projection.conv_0.norm.weight",
        "subsample_conv_projection.conv_1.conv.weight",
        "subsample_conv_projection.conv_1.norm.weight",
        "subsample_conv_projection.input_proj_linear.weight",
        "ffw_layer_start.pre_layer_norm.weight",
        "ffw_layer_start.ffw_layer_1.weight",
        "ffw_layer_start.ffw_layer_2.weight",
        "ffw_layer_start.post_layer_norm.weight",
        "ffw_layer_end.pre_layer_norm.weight",
        "ffw_layer_end.ffw_layer_1.weight",
        "ffw_layer_end.ffw_layer_2.weight",
        "ffw_layer_end.post_layer_norm.weight",
        "attention.pre_attn_norm.weight",
        "attention.attn.per_dim_scale",
        "attention.attn.relative_position_embedding.pos_proj.weight",
        "attention.attn.q_proj.weight",
        "attention.attn.k_proj.weight",
        "attention.attn.v_proj.weight",
        "attention.post.weight",
        "attention.post_norm.weight",
        "lconv1d.pre_layer_norm.weight",
        "lconv1d.linear_start.weight",
        "lconv1d.depthwise_conv1d.weight",
        "lconv1d.conv_norm.weight",
        "lconv1d.linear_end.weight",
        "norm.weight",
        "embedding.weight",
        "hard_embedding_norm.weight",
        "soft_embedding_norm.weight",
        "embedding_projection.weight",
    };
    uint32_t block = t->ordinal / T_LAST_;
    uint32_t part = t->ordinal % T_LAST_;
    if (part == T_MOBILENET)
        snprintf(buf, cap, "model.%s", parts[part]);
    else if (part >= T_EMB_TABLE)
        snprintf(buf, cap, "model.embed_%s.%s", block ? "audio" : "vision",
                 parts[part]);
    else if (block)
        snprintf(buf, cap, "model.audio_tower.conformer.%u.%s", block - 1,
                 parts[part]);
    else
        snprintf(buf, cap, "model.audio_tower.%s", parts[part]);
}
