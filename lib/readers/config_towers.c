/*
 * readers/config_towers.c -- the vision (and Gemma 3n's audio) towers of
 * a multimodal config.json, which model/vision.c and model/gemma3n.c walk.
 * A tower is read for the top-level model_types below; any other tower
 * (LLaVA's, audio encoders) is warned about rather than planned as a
 * smaller model silently.
 */
#include "config.h"

#include <string.h>

/* While a tower's object is read, errors name its key (vision_config.x). */
typedef struct place {
    json_t *obj;
    const char *prefix;
} place;

static place enter(kvb__cfg *c, json_t *obj, const char *prefix)
{
    place was = {c->obj, c->prefix};
    c->obj = obj;
    c->prefix = prefix;
    return was;
}

static void leave(kvb__cfg *c, place was)
{
    c->obj = was.obj;
    c->prefix = was.prefix;
}

/* ---- the towers of known families ---- */

/* A family's vision_config: its model_type at the top of config.json,
 * the keys it spells each size with, and the defaults of its transformers
 * configuration class (configuration_<family>.py) for keys it omits. */
typedef struct tower_keys {
    const char *model_type;
    int32_t kind;
    const char *layers, *heads;
    uint64_t d_layers, d_hidden, d_ff, d_heads, d_patch, d_image, d_merge,
        d_out, d_pos, d_deep;
} tower_keys;

static const tower_keys tower_families[] = {
    /* SiglipVisionConfig: 12 x 768, 3072, 12 heads, 224 px, patch 16 */
    {"gemma3", KVB_VISION_SIGLIP, "num_hidden_layers", "num_attention_heads",
     12, 768, 3072, 12, 16, 224, 0, 0, 0, 0},
    /* Qwen2_5_VLVisionConfig: depth 32, hidden 3584, 3420, 16 heads,
     * patch 14, merge 2, out_hidden_size 3584 */
    {"qwen2_5_vl", KVB_VISION_QWEN2_5_VL, "depth", "num_heads", 32, 3584, 3420,
     16, 14, 0, 2, 3584, 0, 0},
    /* Qwen3VLVisionConfig: depth 27, 1152, 4304, 16 heads, patch 16,
     * merge 2, out 3584, 2304 positions, deepstack [8, 16, 24] */
    {"qwen3_vl", KVB_VISION_QWEN3_VL, "depth", "num_heads", 27, 1152, 4304, 16,
     16, 0, 2, 3584, 2304, 3},
    {"qwen3_vl_moe", KVB_VISION_QWEN3_VL, "depth", "num_heads", 27, 1152, 4304,
     16, 16, 0, 2, 3584, 2304, 3},
    /* PixtralVisionConfig: 24 x 1024, 4096, 16 heads, 1024 px, patch 16;
     * Mistral3Config.spatial_merge_size 2 (read at the top level) */
    {"mistral3", KVB_VISION_PIXTRAL, "num_hidden_layers", "num_attention_heads",
     24, 1024, 4096, 16, 16, 1024, 2, 0, 0, 0},
    /* Llama4VisionConfig: 34 x 768, 3072, 16 heads, 448 px, patch 14,
     * projector 4096 */
    {"llama4", KVB_VISION_LLAMA4, "num_hidden_layers", "num_attention_heads",
     34, 768, 3072, 16, 14, 448, 0, 4096, 0, 0},
    /* MllamaVisionConfig: 32 local layers x 1280, 5120, 16 attention_heads,
     * 560 px, patch 14, vision_output_dim 7680 (read in mllama_tower) */
    {"mllama", KVB_VISION_MLLAMA, "num_hidden_layers", "attention_heads", 32,
     1280, 5120, 16, 14, 560, 0, 0, 0, 0},
};

static kvb_status tower_u64(kvb__cfg *c, json_t *obj, const char *keys,
                            uint64_t dflt, uint64_t *out)
{
    char key[64];
    bool found = false;
    *out = dflt;
    kvb_status st = kvb__cfg_u64(c, obj, keys, out, key, &found);
    if (!st && !found)
        *out = dflt;
    return st;
}

static kvb_status tower_u32(kvb__cfg *c, json_t *obj, const char *keys,
                            uint64_t dflt, uint32_t *out)
{
    uint64_t v = 0;
    kvb_status st = tower_u64(c, obj, keys, dflt, &v);
    if (!st && v > UINT32_MAX)
        return kvb__cfg_fail(c, KVB_ERANGE, keys,
                             "%s (%llu) does not fit 32 bits; allowed: "
                             "0..4294967295",
                             keys, (unsigned long long)v);
    *out = (uint32_t)v;
    return st;
}

/* MllamaVisionConfig's tiles: num_global_layers (8), max_num_tiles (4),
 * supported_aspect_ratios (8 pairs: max_aspect_ratio_id) and
 * vision_output_dim (7680), the projector's input. */
static kvb_status mllama_tower(kvb__cfg *c, json_t *v)
{
    kvb_model *m = &c->r->model;
    kvb_status st =
        tower_u32(c, v, "num_global_layers", 8, &m->vision_global_layers);
    if (!st)
        st = tower_u32(c, v, "max_num_tiles", 4, &m->vision_max_tiles);
    if (!st)
        st = tower_u64(c, v, "vision_output_dim", 7680,
                       &m->vision_out_hidden_size);
    json_t *ar = json_object_get(v, "supported_aspect_ratios");
    if (!st && ar && !json_is_array(ar))
        return kvb__cfg_fail(c, KVB_EPARSE, "supported_aspect_ratios",
                             "supported_aspect_ratios is %s; allowed: an "
                             "array of [rows, columns] pairs",
                             kvb__cfg_type_name(ar));
    m->vision_aspect_ratios = ar ? (uint32_t)json_array_size(ar) : 8u;
    if (!st && (!m->vision_max_tiles || !m->vision_aspect_ratios))
        return kvb__cfg_fail(c, KVB_EINVAL, "max_num_tiles",
                             "max_num_tiles (%u) and supported_aspect_ratios "
                             "(%u entries) must not be 0; allowed: > 0",
                             m->vision_max_tiles, m->vision_aspect_ratios);
    return st;
}

/* The encoder's shape: layers, width, MLP width, heads and patch. */
static kvb_status tower_shape(kvb__cfg *c, const tower_keys *f, json_t *v)
{
    kvb_model *m = &c->r->model;
    kvb_status st =
        tower_u32(c, v, f->layers, f->d_layers, &m->vision_num_layers);
    if (!st)
        st =
            tower_u64(c, v, "hidden_size", f->d_hidden, &m->vision_hidden_size);
    if (!st)
        st = tower_u64(c, v, "intermediate_size", f->d_ff,
                       &m->vision_intermediate_size);
    if (!st)
        st = tower_u32(c, v, f->heads, f->d_heads, &m->vision_num_heads);
    if (!st)
        st = tower_u32(c, v, "patch_size", f->d_patch, &m->vision_patch_size);
    return st;
}

static kvb_status tower_read(kvb__cfg *c, const tower_keys *f, json_t *v)
{
    kvb_model *m = &c->r->model;
    kvb_status st = tower_shape(c, f, v);
    if (!st)
        st = tower_u32(c, v, "image_size", f->d_image, &m->vision_image_size);
    if (!st)
        st = tower_u64(c, v, "out_hidden_size,projector_output_dim", f->d_out,
                       &m->vision_out_hidden_size);
    if (!st)
        st = tower_u32(c, v, "num_position_embeddings", f->d_pos,
                       &m->vision_position_rows);
    if (!st) /* Pixtral's merge is Mistral3Config's, at the top level */
        st = tower_u32(c, f->kind == KVB_VISION_PIXTRAL ? c->root : v,
                       "spatial_merge_size", f->d_merge,
                       &m->vision_spatial_merge);
    json_t *deep = json_object_get(v, "deepstack_visual_indexes");
    m->vision_deepstack = json_is_array(deep) ? (uint32_t)json_array_size(deep)
                                              : (uint32_t)f->d_deep;
    if (!st && f->kind == KVB_VISION_MLLAMA)
        st = mllama_tower(c, v);
    return st;
}

/* ---- Gemma 3n: a MobileNetV5 vision tower and a Conformer audio one ---- */

/* An [[a, b], [a, b]] pair list (sscp_conv_kernel_size,
 * sscp_conv_stride_size): true when it is absent or every entry is `want`. */
static bool g3n_pairs_are(json_t *obj, const char *key, json_int_t want)
{
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return true;
    if (!json_is_array(v) || json_array_size(v) != 2)
        return false;
    for (size_t i = 0; i < 2; i++) {
        json_t *p = json_array_get(v, i);
        if (!json_is_array(p) || json_array_size(p) != 2)
            return false;
        for (size_t j = 0; j < 2; j++)
            if (json_integer_value(json_array_get(p, j)) != want)
                return false;
    }
    return true;
}

/* Gemma3nAudioConfig's sizes and defaults. */
static const kvb__sized g3n_audio_sizes[] = {
    KVB__SIZED("hidden_size", audio_hidden_size, 1536, 1u << 20),
    KVB__SIZED("conf_num_hidden_layers", audio_num_layers, 12, 1u << 24),
    KVB__SIZED("conf_num_attention_heads", audio_num_heads, 8, 1u << 24),
    KVB__SIZED("conf_conv_kernel_size", audio_conv_kernel, 5, 1u << 24),
    KVB__SIZED("input_feat_size", audio_input_features, 128, 1u << 24),
    {NULL, 0, 0, 0, 0},
};

/* sscp_conv_channel_size: the subsampler's two conv widths, [128, 32]
 * by default. */
static kvb_status g3n_channels(kvb__cfg *c, json_t *a)
{
    kvb_model *m = &c->r->model;
    json_t *ch = json_object_get(a, "sscp_conv_channel_size");
    uint64_t c1 = 128, c2 = 32;
    kvb_status st = KVB_OK;
    if (ch && !json_is_null(ch)) {
        if (!json_is_array(ch) || json_array_size(ch) != 2)
            return kvb__cfg_fail(c, KVB_EPARSE, "sscp_conv_channel_size",
                                 "sscp_conv_channel_size is not a pair; "
                                 "allowed: [c1, c2]");
        st = kvb__cfg_as_u64(c, "sscp_conv_channel_size", json_array_get(ch, 0),
                             &c1);
        if (!st)
            st = kvb__cfg_as_u64(c, "sscp_conv_channel_size",
                                 json_array_get(ch, 1), &c2);
    }
    if (!st &&
        (!c1 || !c2 || c1 > ((uint64_t)1 << 20) || c2 > ((uint64_t)1 << 20)))
        return kvb__cfg_fail(c, KVB_ERANGE, "sscp_conv_channel_size",
                             "sscp_conv_channel_size is out of range; "
                             "allowed: 1..1048576 each");
    m->audio_sscp_channels_1 = (uint32_t)c1;
    m->audio_sscp_channels_2 = (uint32_t)c2;
    return st;
}

/* Gemma3nAudioConfig's Conformer: the sizes its tensors take, and the
 * subsampling layout Gemma3nAudioSubSampleConvProjection assumes (two
 * 3x3 convs with stride 2; their frequency padding is written for it). */
static kvb_status g3n_audio(kvb__cfg *c, json_t *a)
{
    kvb_model *m = &c->r->model;
    kvb_status st = kvb__cfg_sizes(c, a, g3n_audio_sizes);
    if (!st)
        st = g3n_channels(c, a);
    if (st)
        return st;
    if (!g3n_pairs_are(a, "sscp_conv_kernel_size", 3) ||
        !g3n_pairs_are(a, "sscp_conv_stride_size", 2))
        return kvb__cfg_fail(c, KVB_EUNSUPPORTED, "sscp_conv_kernel_size",
                             "sscp_conv_kernel_size / sscp_conv_stride_size "
                             "other than [[3, 3], [3, 3]] / [[2, 2], [2, 2]] "
                             "are not modelled (the subsampler's padding is "
                             "written for them); allowed: the published "
                             "layout");
    if (m->audio_hidden_size % m->audio_num_heads)
        return kvb__cfg_fail(c, KVB_EINVAL, "conf_num_attention_heads",
                             "conf_num_attention_heads (%u) does not divide "
                             "hidden_size (%llu); allowed: a divisor",
                             m->audio_num_heads,
                             (unsigned long long)m->audio_hidden_size);
    return KVB_OK;
}

/* Gemma3nVisionConfig: the timm architecture (only mobilenetv5_300m_enc
 * has a count here), its output width (the vision embedder's) and the
 * embedders' hard-token vocabulary. */
static kvb_status g3n_vision(kvb__cfg *c, json_t *v, uint64_t *vocab)
{
    static const kvb__sized sizes[] = {
        KVB__SIZED("hidden_size", vision_hidden_size, 2048, 1u << 20),
        {NULL, 0, 0, 0, 0},
    };
    const char *arch = kvb__cfg_string(v, "architecture");
    json_t *args = json_object_get(v, "model_args");
    if (arch && strcmp(arch, "mobilenetv5_300m_enc") != 0)
        return kvb__cfg_fail(c, KVB_EUNSUPPORTED, "architecture",
                             "architecture (%s) is not modelled: only timm's "
                             "mobilenetv5_300m_enc has a parameter count "
                             "here; allowed: mobilenetv5_300m_enc",
                             arch);
    if (json_is_object(args) && json_object_size(args) > 0)
        return kvb__cfg_fail(c, KVB_EUNSUPPORTED, "model_args",
                             "model_args changes the timm model, whose count "
                             "is known for the published architecture only; "
                             "allowed: null or {}");
    kvb_status st = kvb__cfg_sizes(c, v, sizes);
    if (!st)
        st = kvb__cfg_size(c, v, "vocab_size", 128, 1u << 20, vocab);
    return st;
}

/* Both towers, each with errors under its own key; the embedders share
 * one hard-token vocabulary. */
static kvb_status g3n_both(kvb__cfg *c, json_t *vision, json_t *audio,
                           uint64_t *vocab)
{
    uint64_t av = 0;
    place was = enter(c, vision, "vision_config");
    kvb_status st = g3n_vision(c, vision, vocab);
    c->obj = audio;
    c->prefix = "audio_config";
    if (!st)
        st = g3n_audio(c, audio);
    if (!st)
        st = kvb__cfg_size(c, audio, "vocab_size", 128, 1u << 20, &av);
    if (!st && av != *vocab)
        st = kvb__cfg_fail(c, KVB_EUNSUPPORTED, "vocab_size",
                           "vocab_size (%llu) differs from vision_config's "
                           "(%llu): one embedder vocabulary is modelled; "
                           "allowed: the same for both",
                           (unsigned long long)av, (unsigned long long)*vocab);
    leave(c, was);
    return st;
}

/* The towers of a gemma3n config.json: the MobileNetV5 vision tower (a
 * constant from timm, said in a warning), the USM Conformer audio tower
 * and the two Gemma3nMultimodalEmbedder (model/gemma3n.c walks them). */
static kvb_status g3n_towers(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    json_t *vision = json_object_get(c->root, "vision_config");
    json_t *audio = json_object_get(c->root, "audio_config");
    uint64_t vocab = 0;
    if (!json_is_object(vision) || !json_is_object(audio)) {
        kvb__read_warn(c->r, "gemma3n without vision_config and "
                             "audio_config objects: the towers are not "
                             "counted (the language model only)");
        return KVB_OK;
    }
    kvb_status st = g3n_both(c, vision, audio, &vocab);
    if (st)
        return st;
    m->mm_embed_vocab_size = (uint32_t)vocab;
    m->vision_kind = KVB_VISION_GEMMA3N;
    kvb__read_warn(c->r,
                   "vision_config: Gemma 3n's MobileNetV5 vision tower (timm "
                   "mobilenetv5_300m_enc) is not derived from the config; "
                   "it is counted as the 294,126,912 parameters that "
                   "timm's mobilenetv5_300m_enc definition builds, "
                   "replicated on every GPU");
    return KVB_OK;
}

/* ---- the towers of a config ---- */

static const tower_keys *tower_of(const char *type)
{
    for (size_t i = 0; type && i < KVB__ARRAY_LEN(tower_families); i++)
        if (kvb__strcasecmp(type, tower_families[i].model_type) == 0)
            return &tower_families[i];
    return NULL;
}

static void warn_towers(kvb__cfg *c, const char *type)
{
    static const char *const keys[] = {"vision_config", "audio_config",
                                       "vision_tower", "speech_config"};
    for (size_t i = 0; i < KVB__ARRAY_LEN(keys); i++)
        if (json_is_object(json_object_get(c->root, keys[i])))
            kvb__read_warn(c->r,
                           "%s: the tower's weights are not counted for "
                           "model_type %s (the language model only) and "
                           "vLLM's encoder profiling is not modelled",
                           keys[i], type ? type : "(none)");
}

kvb_status kvb__cfg_towers(kvb__cfg *c)
{
    const char *type = kvb__cfg_string(c->root, "model_type");
    if (type && kvb__strcasecmp(type, "gemma3n") == 0)
        return g3n_towers(c);
    json_t *vision = json_object_get(c->root, "vision_config");
    const tower_keys *f = json_is_object(vision) ? tower_of(type) : NULL;
    if (!f) {
        warn_towers(c, type);
        return KVB_OK;
    }
    c->r->model.vision_kind = f->kind;
    place was = enter(c, vision, "vision_config");
    kvb_status st = tower_read(c, f, vision);
    leave(c, was);
    return st;
}
