/*
 * readers/config.c -- a Hugging Face config.json into kvb_model and
 * kvb_quant, the way lib/presets/models.c fills its rows: head_dim only
 * when the config states it; intermediate_size is the dense MLP width
 * (Llama 4: intermediate_size_mlp; its intermediate_size is the expert
 * width); sliding_window_pattern p means layer i is global iff
 * (i+1) % p == 0, 0 that every layer slides; Llama 4 chunks every layer
 * but each 4th.  Multimodal configs keep the language model in
 * text_config (language_config, llm_config); quantization_config is at the
 * top or, failing that, in the nested object.  Keys a configuration class
 * fills by default are filled the same way (the defaults table).  A
 * model_type not known here is refused unless the caller asks for the
 * Llama-shaped reading (KVB_READ_ASSUME_LLAMA).
 *
 * Each family's modelling code implies flags and defaults that its config
 * does not spell out (Qwen2's q/k/v biases, Gemma's four norms, Falcon's
 * 2048 positions); the family table below holds them.
 */
#include "internal.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* ---- families ---- */

typedef struct family {
    int32_t arch;
    uint32_t flags;    /* implied by the family's modelling code */
    uint32_t tied;     /* tie_word_embeddings when the config omits it */
    uint32_t pattern;  /* sliding_window_pattern when the config omits it */
    bool window_gated; /* the window applies only with use_sliding_window */
} family;

#define F_BIASES (KVB_MODEL_ATTN_QKV_BIAS | KVB_MODEL_ATTN_O_BIAS)
#define F_GPT_OSS                                                              \
    (F_BIASES | KVB_MODEL_ATTN_SINKS | KVB_MODEL_ROUTER_BIAS |                 \
     KVB_MODEL_MLP_BIAS | KVB_MODEL_FUSED_GATE_UP)
#define F_FALCON                                                               \
    (KVB_MODEL_FUSED_QKV | KVB_MODEL_PARALLEL_ATTN | KVB_MODEL_NORM_BIAS |     \
     KVB_MODEL_MLP_NO_GATE)
#define F_OPT                                                                  \
    (F_BIASES | KVB_MODEL_MLP_BIAS | KVB_MODEL_NORM_BIAS |                     \
     KVB_MODEL_MLP_NO_GATE)
#define F_NEOX                                                                 \
    (KVB_MODEL_FUSED_QKV | F_BIASES | KVB_MODEL_MLP_BIAS |                     \
     KVB_MODEL_NORM_BIAS | KVB_MODEL_MLP_NO_GATE)

static const family families[] = {
    {KVB_ARCH_GENERIC, 0, 0, 0, false},
    {KVB_ARCH_LLAMA, 0, 0, 0, false},
    {KVB_ARCH_LLAMA4, 0, 0, 0, false},
    {KVB_ARCH_MISTRAL, 0, 0, 0, false},
    {KVB_ARCH_MIXTRAL, 0, 0, 0, false},
    {KVB_ARCH_QWEN2, KVB_MODEL_ATTN_QKV_BIAS, 0, 0, true},
    {KVB_ARCH_QWEN3, KVB_MODEL_QK_NORM, 0, 0, true},
    {KVB_ARCH_QWEN3_MOE, KVB_MODEL_QK_NORM, 0, 0, true},
    {KVB_ARCH_GEMMA2, KVB_MODEL_SANDWICH_NORM, 1, 2, false},
    {KVB_ARCH_GEMMA3, KVB_MODEL_SANDWICH_NORM | KVB_MODEL_QK_NORM, 1, 6, false},
    {KVB_ARCH_PHI3, KVB_MODEL_FUSED_QKV | KVB_MODEL_FUSED_GATE_UP, 0, 0, false},
    {KVB_ARCH_DEEPSEEK_V3, 0, 0, 0, false},
    {KVB_ARCH_GPT_OSS, F_GPT_OSS, 0, 2, false},
    {KVB_ARCH_FALCON, F_FALCON, 1, 0, false},
    {KVB_ARCH_OPT, F_OPT, 1, 0, false},
    {KVB_ARCH_GPT_NEOX, F_NEOX, 0, 0, false},
    {KVB_ARCH_QWEN2_MOE, KVB_MODEL_ATTN_QKV_BIAS | KVB_MODEL_SHARED_EXPERT_GATE,
     0, 0, true},
    /* Qwen3-Next: gated attention (q_proj twice as wide), q/k norms, a
     * sigmoid-gated shared expert (modeling_qwen3_next.py). */
    {KVB_ARCH_QWEN3_NEXT,
     KVB_MODEL_QK_NORM | KVB_MODEL_SHARED_EXPERT_GATE | KVB_MODEL_ATTN_GATE, 0,
     0, false},
    /* Nemotron-H: relu2 MLPs of up_proj and down_proj only. */
    {KVB_ARCH_NEMOTRON_H, KVB_MODEL_MLP_NO_GATE, 0, 0, false},
    /* Granite-4.0-H: gated SiLU experts and shared MLP (granitemoehybrid) */
    {KVB_ARCH_GRANITE_H, 0, 0, 0, false},
    /* GLM-4.5/4.6: the router always holds e_score_correction_bias
     * (modeling_glm4_moe.py, Glm4MoeTopkRouter), with or without
     * topk_method in the config. */
    {KVB_ARCH_GLM4_MOE, KVB_MODEL_ROUTER_SCORE_BIAS, 0, 0, false},
    /* Jamba: plain q/k/v/o without biases, gated SiLU MLPs and experts
     * (modeling_jamba.py); the mixers are read in jamba(). */
    {KVB_ARCH_JAMBA, 0, 0, 0, false},
    /* Falcon-H1: Llama attention and MLP beside a Mamba2 mixer
     * (modular_falcon_h1.py); the mixers are read in falcon_h1(). */
    {KVB_ARCH_FALCON_H1, 0, 0, 0, false},
    /* mllama: Llama self-attention layers; its cross-attention layers
     * (q/k norms, tanh gates) are read in cross_layers(). */
    {KVB_ARCH_MLLAMA, 0, 0, 0, false},
    /* Zamba2: the shared blocks' gate_up_proj is one tensor; lm_head is
     * the embedding unless the config unties it (Zamba2ForCausalLM.
     * _tied_weights_keys; no published config does, and vLLM zamba2.py
     * ties it whatever the config says). */
    {KVB_ARCH_ZAMBA2, KVB_MODEL_FUSED_GATE_UP, 1, 0, false},
    /* Gemma 3n: Gemma 3's q/k norms and four norms per layer; tied
     * embeddings; Gemma3nTextConfig's layer_types default makes every 5th
     * layer global (modeling_gemma3n.py, configuration_gemma3n.py). */
    {KVB_ARCH_GEMMA3N, KVB_MODEL_SANDWICH_NORM | KVB_MODEL_QK_NORM, 1, 5,
     false},
};

static const family *family_of(int32_t arch)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(families); i++)
        if (families[i].arch == arch)
            return &families[i];
    return &families[0];
}

uint32_t kvb__family_flags(int32_t arch)
{
    return family_of(arch)->flags;
}

/* ---- the config being read ---- */

typedef struct cfg {
    kvb__reader *r;
    json_t *root;       /* the whole file */
    json_t *obj;        /* the language model: root or text_config */
    const char *prefix; /* "text_config" when obj is nested, else NULL */
    const family *fam;
} cfg;

/* The path of `key` in obj, for locating it in the text. */
static size_t path_of(const cfg *c, const char *key, const char *path[2])
{
    size_t n = 0;
    if (c->prefix)
        path[n++] = c->prefix;
    path[n++] = key;
    return n;
}

static void field_of(const cfg *c, const char *key, char *out, size_t cap)
{
    snprintf(out, cap, "config.%s%s%s", c->prefix ? c->prefix : "",
             c->prefix ? "." : "", key);
}

static kvb_status cfg_fail(cfg *c, kvb_status st, const char *key,
                           const char *fmt, ...) KVB__PRINTF(4, 5);

static kvb_status cfg_fail(cfg *c, kvb_status st, const char *key,
                           const char *fmt, ...)
{
    char text[256], field[64];
    const char *path[2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    field_of(c, key, field, sizeof field);
    return kvb__json_fail(c->r, st, path, path_of(c, key, path), field, "%s",
                          text);
}

static void cfg_mark(cfg *c, int field, const char *key)
{
    const char *path[2];
    int64_t pos[3] = {-1, -1, -1};
    kvb__json_locate(c->r, path, path_of(c, key, path), pos);
    kvb__read_mark(c->r, field, pos[0], pos[1], pos[2]);
}

/* The first of the comma-separated spellings present and not null. */
static json_t *lookup(json_t *obj, const char *keys, char *found, size_t cap)
{
    for (const char *k = keys; *k;) {
        size_t n = strcspn(k, ",");
        if (n < cap) {
            memcpy(found, k, n);
            found[n] = '\0';
            json_t *v = json_object_get(obj, found);
            if (v && !json_is_null(v))
                return v;
        }
        k += n + (k[n] == ',');
    }
    return NULL;
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    default: return "a number";
    }
}

static kvb_status as_u64(cfg *c, const char *key, const json_t *v,
                         uint64_t *out)
{
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (uint64_t)json_integer_value(v);
        return KVB_OK;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d >= 0 && d < 9007199254740992.0 && (double)(uint64_t)d == d) {
            *out = (uint64_t)d;
            return KVB_OK;
        }
    }
    if (json_is_number(v))
        return cfg_fail(c, KVB_ERANGE, key,
                        "%s (%g) is not a whole number >= 0; allowed: "
                        "0 or more",
                        key, json_number_value(v));
    return cfg_fail(c, KVB_EPARSE, key,
                    "%s is %s; allowed: a non-negative integer", key,
                    type_name(v));
}

/* Unsigned integer at obj[keys]; *found false when absent or null. */
static kvb_status get_u64(cfg *c, json_t *obj, const char *keys, uint64_t *out,
                          char *key, bool *found)
{
    json_t *v = lookup(obj, keys, key, 64);
    *found = v != NULL;
    return v ? as_u64(c, key, v, out) : KVB_OK;
}

static kvb_status get_bool(cfg *c, json_t *obj, const char *keys, bool dflt,
                           bool *out)
{
    char key[64];
    json_t *v = lookup(obj, keys, key, sizeof key);
    *out = dflt;
    if (!v)
        return KVB_OK;
    if (json_is_boolean(v) ||
        (json_is_integer(v) &&
         (json_integer_value(v) == 0 || json_integer_value(v) == 1))) {
        *out = json_is_true(v) || json_integer_value(v) == 1;
        return KVB_OK;
    }
    return cfg_fail(c, KVB_EPARSE, key, "%s is %s; allowed: true or false", key,
                    type_name(v));
}

static const char *get_string(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* ---- model fields ---- */

typedef struct slot {
    int field;
    size_t offset, size;
    const char *keys; /* spellings, most common first */
} slot;

#define SLOT(F, member, keys)                                                  \
    {                                                                          \
        KVB_READ_FIELD_##F, offsetof(kvb_model, member),                       \
            sizeof(((kvb_model *)0)->member), keys                             \
    }

static const slot standard[] = {
    SLOT(NUM_HIDDEN_LAYERS, num_hidden_layers,
         "num_hidden_layers,n_layer,num_layers"),
    SLOT(HIDDEN_SIZE, hidden_size, "hidden_size,n_embd,n_embed,d_model"),
    SLOT(NUM_ATTENTION_HEADS, num_attention_heads,
         "num_attention_heads,n_head,num_heads"),
    SLOT(NUM_KEY_VALUE_HEADS, num_key_value_heads, "num_key_value_heads"),
    SLOT(HEAD_DIM, head_dim, "head_dim"),
    SLOT(INTERMEDIATE_SIZE, intermediate_size, "intermediate_size,n_inner"),
    SLOT(VOCAB_SIZE, vocab_size, "vocab_size"),
    SLOT(MAX_POSITION_EMBEDDINGS, max_position_embeddings,
         "max_position_embeddings,n_positions"),
    SLOT(NUM_EXPERTS, num_experts,
         "num_local_experts,num_experts,n_routed_experts"),
    SLOT(NUM_EXPERTS_PER_TOK, num_experts_per_tok,
         "num_experts_per_tok,experts_per_token"),
    SLOT(MOE_INTERMEDIATE_SIZE, moe_intermediate_size, "moe_intermediate_size"),
    SLOT(NUM_SHARED_EXPERTS, num_shared_experts,
         "n_shared_experts,num_shared_experts"),
    SLOT(SHARED_EXPERT_INTERMEDIATE_SIZE, shared_expert_intermediate_size,
         "shared_expert_intermediate_size"),
    SLOT(FIRST_K_DENSE_REPLACE, first_k_dense_replace, "first_k_dense_replace"),
    SLOT(KV_LORA_RANK, kv_lora_rank, "kv_lora_rank"),
    SLOT(Q_LORA_RANK, q_lora_rank, "q_lora_rank"),
    SLOT(QK_ROPE_HEAD_DIM, qk_rope_head_dim, "qk_rope_head_dim"),
    SLOT(QK_NOPE_HEAD_DIM, qk_nope_head_dim, "qk_nope_head_dim"),
    SLOT(V_HEAD_DIM, v_head_dim, "v_head_dim"),
    SLOT(ATTENTION_CHUNK_SIZE, attention_chunk_size, "attention_chunk_size"),
    SLOT(SLIDING_WINDOW, sliding_window, "sliding_window"),
    SLOT(MOE_LAYER_STEP, moe_layer_step, NULL), /* derived, not read */
};

/* Families that spell a field differently. */
static const struct {
    int32_t arch;
    int field;
    const char *keys;
} respelled[] = {
    {KVB_ARCH_LLAMA4, KVB_READ_FIELD_INTERMEDIATE_SIZE,
     "intermediate_size_mlp"},
    {KVB_ARCH_LLAMA4, KVB_READ_FIELD_MOE_INTERMEDIATE_SIZE,
     "intermediate_size"},
    {KVB_ARCH_OPT, KVB_READ_FIELD_INTERMEDIATE_SIZE, "ffn_dim"},
    {KVB_ARCH_FALCON, KVB_READ_FIELD_INTERMEDIATE_SIZE, "ffn_hidden_size"},
    {KVB_ARCH_NEMOTRON_H, KVB_READ_FIELD_HEAD_DIM,
     "head_dim,attention_head_dim"},
    {KVB_ARCH_NEMOTRON_H, KVB_READ_FIELD_SHARED_EXPERT_INTERMEDIATE_SIZE,
     "moe_shared_expert_intermediate_size"},
    {KVB_ARCH_GRANITE_H, KVB_READ_FIELD_SHARED_EXPERT_INTERMEDIATE_SIZE,
     "shared_intermediate_size"},
};

static const char *keys_for(const cfg *c, const slot *s)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(respelled); i++)
        if (respelled[i].arch == c->fam->arch && respelled[i].field == s->field)
            return respelled[i].keys;
    return s->keys;
}

static const slot *slot_of(int field)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(standard); i++)
        if (standard[i].field == field)
            return &standard[i];
    return NULL;
}

static uint64_t model_get(const cfg *c, int field)
{
    const slot *s = slot_of(field);
    return kvb__load_uint(&c->r->model, s->offset, s->size);
}

static kvb_status model_set(cfg *c, int field, uint64_t value, const char *key)
{
    const slot *s = slot_of(field);
    unsigned char *p = (unsigned char *)&c->r->model + s->offset;
    if (s->size == sizeof(uint32_t)) {
        if (value > UINT32_MAX)
            return cfg_fail(c, KVB_ERANGE, key,
                            "%s (%llu) does not fit 32 bits; allowed: "
                            "0..4294967295",
                            key ? key : "a family default",
                            (unsigned long long)value);
        uint32_t v = (uint32_t)value;
        memcpy(p, &v, sizeof v);
    } else {
        memcpy(p, &value, sizeof value);
    }
    if (key)
        cfg_mark(c, field, key);
    return KVB_OK;
}

static bool has_field(const cfg *c, int field)
{
    return (c->r->info.fields_from_file >> field) & 1u;
}

static kvb_status read_standard(cfg *c)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(standard); i++) {
        char key[64];
        bool found = false;
        uint64_t v = 0;
        if (!standard[i].keys)
            continue;
        /* Gemma 3n's intermediate_size may be a list: gemma3n() reads it */
        if (standard[i].field == KVB_READ_FIELD_INTERMEDIATE_SIZE &&
            c->fam->arch == KVB_ARCH_GEMMA3N)
            continue;
        kvb_status st =
            get_u64(c, c->obj, keys_for(c, &standard[i]), &v, key, &found);
        if (!st && found)
            st = model_set(c, standard[i].field, v, key);
        if (st)
            return st;
    }
    return KVB_OK;
}

/* What transformers' configuration class fills when a key is absent
 * (the __init__ defaults of Gemma3TextConfig, Gemma2Config, LlamaConfig,
 * MistralConfig, Qwen2Config, Qwen3Config): a published Gemma 3 config
 * gives neither vocab_size nor head_dim nor the head counts. */
static const struct {
    int32_t arch;
    int field;
    uint64_t value;
} defaults[] = {
#define D(A, F, V)                                                             \
    {                                                                          \
        KVB_ARCH_##A, KVB_READ_FIELD_##F, V                                    \
    }
    D(GEMMA3, VOCAB_SIZE, 262208),
    D(GEMMA3, HIDDEN_SIZE, 2304),
    D(GEMMA3, INTERMEDIATE_SIZE, 9216),
    D(GEMMA3, NUM_HIDDEN_LAYERS, 26),
    D(GEMMA3, NUM_ATTENTION_HEADS, 8),
    D(GEMMA3, NUM_KEY_VALUE_HEADS, 4),
    D(GEMMA3, HEAD_DIM, 256),
    D(GEMMA3, MAX_POSITION_EMBEDDINGS, 131072),
    D(GEMMA3, SLIDING_WINDOW, 4096),
    /* Gemma3nTextConfig (configuration_gemma3n.py) */
    D(GEMMA3N, VOCAB_SIZE, 262400),
    D(GEMMA3N, HIDDEN_SIZE, 2048),
    D(GEMMA3N, INTERMEDIATE_SIZE, 16384),
    D(GEMMA3N, NUM_HIDDEN_LAYERS, 35),
    D(GEMMA3N, NUM_ATTENTION_HEADS, 8),
    D(GEMMA3N, NUM_KEY_VALUE_HEADS, 2),
    D(GEMMA3N, HEAD_DIM, 256),
    D(GEMMA3N, MAX_POSITION_EMBEDDINGS, 32768),
    D(GEMMA3N, SLIDING_WINDOW, 512),
    D(GEMMA2, VOCAB_SIZE, 256000),
    D(GEMMA2, HIDDEN_SIZE, 2304),
    D(GEMMA2, INTERMEDIATE_SIZE, 9216),
    D(GEMMA2, NUM_HIDDEN_LAYERS, 26),
    D(GEMMA2, NUM_ATTENTION_HEADS, 8),
    D(GEMMA2, NUM_KEY_VALUE_HEADS, 4),
    D(GEMMA2, HEAD_DIM, 256),
    D(GEMMA2, MAX_POSITION_EMBEDDINGS, 8192),
    D(GEMMA2, SLIDING_WINDOW, 4096),
    D(LLAMA, VOCAB_SIZE, 32000),
    D(LLAMA, HIDDEN_SIZE, 4096),
    D(LLAMA, INTERMEDIATE_SIZE, 11008),
    D(LLAMA, NUM_HIDDEN_LAYERS, 32),
    D(LLAMA, NUM_ATTENTION_HEADS, 32),
    D(LLAMA, MAX_POSITION_EMBEDDINGS, 2048),
    D(MISTRAL, VOCAB_SIZE, 32000),
    D(MISTRAL, HIDDEN_SIZE, 4096),
    D(MISTRAL, INTERMEDIATE_SIZE, 14336),
    D(MISTRAL, NUM_HIDDEN_LAYERS, 32),
    D(MISTRAL, NUM_ATTENTION_HEADS, 32),
    D(MISTRAL, NUM_KEY_VALUE_HEADS, 8),
    D(MISTRAL, MAX_POSITION_EMBEDDINGS, 131072),
    D(QWEN2, VOCAB_SIZE, 151936),
    D(QWEN2, HIDDEN_SIZE, 4096),
    D(QWEN2, INTERMEDIATE_SIZE, 22016),
    D(QWEN2, NUM_HIDDEN_LAYERS, 32),
    D(QWEN2, NUM_ATTENTION_HEADS, 32),
    D(QWEN2, NUM_KEY_VALUE_HEADS, 32),
    D(QWEN2, MAX_POSITION_EMBEDDINGS, 32768),
    D(QWEN3, VOCAB_SIZE, 151936),
    D(QWEN3, HIDDEN_SIZE, 4096),
    D(QWEN3, INTERMEDIATE_SIZE, 22016),
    D(QWEN3, NUM_HIDDEN_LAYERS, 32),
    D(QWEN3, NUM_ATTENTION_HEADS, 32),
    D(QWEN3, NUM_KEY_VALUE_HEADS, 32),
    D(QWEN3, HEAD_DIM, 128),
    D(QWEN3, MAX_POSITION_EMBEDDINGS, 32768),
#undef D
};

/* A key counts as absent only when no spelling is present at all: an
 * explicit null (Mistral's "sliding_window": null) is transformers' None,
 * not its default. */
static bool absent(const cfg *c, const char *keys)
{
    for (const char *k = keys; *k;) {
        size_t n = strcspn(k, ",");
        char key[64];
        if (n < sizeof key) {
            memcpy(key, k, n);
            key[n] = '\0';
            if (json_object_get(c->obj, key))
                return false;
        }
        k += n + (k[n] == ',');
    }
    return true;
}

static void family_defaults(cfg *c)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(defaults); i++) {
        const slot *s = slot_of(defaults[i].field);
        if (defaults[i].arch != c->fam->arch || has_field(c, s->field) ||
            !absent(c, keys_for(c, s)))
            continue;
        KVB__CANNOT_FAIL(model_set(c, s->field, defaults[i].value, NULL));
    }
}

/* The fields without which there is no model to plan. */
static kvb_status require(cfg *c)
{
    static const int needed[] = {
        KVB_READ_FIELD_NUM_HIDDEN_LAYERS,
        KVB_READ_FIELD_HIDDEN_SIZE,
        KVB_READ_FIELD_NUM_ATTENTION_HEADS,
        KVB_READ_FIELD_VOCAB_SIZE,
        KVB_READ_FIELD_MAX_POSITION_EMBEDDINGS,
        KVB_READ_FIELD_INTERMEDIATE_SIZE,
    };
    for (size_t i = 0; i < KVB__ARRAY_LEN(needed); i++) {
        const slot *s = slot_of(needed[i]);
        if (has_field(c, needed[i]) || model_get(c, needed[i]) != 0)
            continue;
        if (needed[i] == KVB_READ_FIELD_INTERMEDIATE_SIZE &&
            c->r->model.num_experts) /* all-MoE models may omit it */
            continue;
        char first[64];
        const char *keys = keys_for(c, s);
        size_t n = strcspn(keys, ",");
        snprintf(first, sizeof first, "%.*s", (int)n, keys);
        return cfg_fail(c, KVB_EPARSE, first,
                        "%s is missing (spellings read: %s); the config "
                        "must give it",
                        first, keys);
    }
    return KVB_OK;
}

/* ---- per-layer patterns ---- */

/* The period p with layer i global iff (i+1) % p == 0, from a per-layer
 * list; 0 when no layer is global.  `what` names the list for errors. */
static kvb_status pattern_of(cfg *c, const bool *global, size_t n,
                             const char *what, uint32_t *p)
{
    size_t first = n;
    for (size_t i = 0; i < n && first == n; i++)
        if (global[i])
            first = i;
    *p = first == n ? 0 : (uint32_t)(first + 1);
    for (size_t i = 0; i < n; i++)
        if (global[i] != (*p != 0 && (i + 1) % *p == 0))
            return cfg_fail(c, KVB_EUNSUPPORTED, what,
                            "%s: layer %zu breaks the period %u that the "
                            "first global layer sets; allowed: a global "
                            "layer every p layers",
                            what, i, *p);
    return KVB_OK;
}

/* layer_types: "sliding_attention" / "full_attention" per layer. */
static kvb_status layer_types(cfg *c, json_t *list, uint32_t *pattern,
                              bool *any_sliding)
{
    size_t n = json_array_size(list);
    if (n != c->r->model.num_hidden_layers)
        return cfg_fail(c, KVB_EPARSE, "layer_types",
                        "layer_types has %zu entries; allowed: one per layer "
                        "(%u)",
                        n, c->r->model.num_hidden_layers);
    bool global[1024];
    if (n > KVB__ARRAY_LEN(global))
        return cfg_fail(c, KVB_ERANGE, "layer_types",
                        "layer_types has %zu entries; allowed: at most %zu "
                        "layers",
                        n, KVB__ARRAY_LEN(global));
    *any_sliding = false;
    for (size_t i = 0; i < n; i++) {
        const char *t = json_string_value(json_array_get(list, i));
        if (t && strcmp(t, "full_attention") == 0) {
            global[i] = true;
        } else if (t && strcmp(t, "sliding_attention") == 0) {
            global[i] = false;
            *any_sliding = true;
        } else {
            return cfg_fail(c, KVB_EUNSUPPORTED, "layer_types",
                            "layer_types[%zu] (%s) is not supported; "
                            "allowed: sliding_attention, full_attention",
                            i, t ? t : "not a string");
        }
    }
    return pattern_of(c, global, n, "layer_types", pattern);
}

/* A layer pattern given as a number (sliding_window_pattern,
 * no_rope_layer_interval): when present it replaces *pattern. */
static kvb_status get_pattern(cfg *c, const char *keys, int field,
                              uint32_t *pattern)
{
    char key[64];
    bool found = false;
    uint64_t v = 0;
    kvb_status st = get_u64(c, c->obj, keys, &v, key, &found);
    if (st || !found)
        return st;
    if (v > UINT32_MAX)
        return cfg_fail(c, KVB_ERANGE, key,
                        "%s (%llu) does not fit 32 bits; allowed: 0..1024", key,
                        (unsigned long long)v);
    *pattern = (uint32_t)v;
    cfg_mark(c, field, key);
    return KVB_OK;
}

static kvb_status window_gate(cfg *c, uint64_t *window)
{
    bool use = false;
    kvb_status st = get_bool(c, c->obj, "use_sliding_window", false, &use);
    if (st || !use) {
        *window = 0; /* vLLM ignores the window unless it is switched on */
        return st;
    }
    char key[64];
    bool found = false;
    uint64_t mwl = 0;
    st = get_u64(c, c->obj, "max_window_layers", &mwl, key, &found);
    if (st || !found || mwl == 0)
        return st;
    if (mwl >= c->r->model.num_hidden_layers) {
        *window = 0;
        return KVB_OK;
    }
    return cfg_fail(c, KVB_EUNSUPPORTED, "max_window_layers",
                    "max_window_layers (%llu) slides only the layers after "
                    "it; allowed: 0 or at least num_hidden_layers",
                    (unsigned long long)mwl);
}

static kvb_status sliding(cfg *c)
{
    kvb_model *m = &c->r->model;
    uint64_t window = m->sliding_window;
    kvb_status st = KVB_OK;
    if (c->fam->window_gated)
        st = window_gate(c, &window);
    json_t *types = json_object_get(c->obj, "layer_types");
    uint32_t pattern = c->fam->pattern;
    bool any = true;
    if (!st && json_is_array(types)) {
        st = layer_types(c, types, &pattern, &any);
        if (!st)
            cfg_mark(c, KVB_READ_FIELD_SLIDING_WINDOW_PATTERN, "layer_types");
    } else if (!st) {
        st = get_pattern(c, "sliding_window_pattern",
                         KVB_READ_FIELD_SLIDING_WINDOW_PATTERN, &pattern);
    }
    if (st)
        return st;
    if (any && json_is_array(types) && window == 0)
        return cfg_fail(c, KVB_EPARSE, "sliding_window",
                        "layer_types names sliding layers but "
                        "sliding_window is missing");
    m->sliding_window = any ? window : 0;
    m->sliding_window_pattern = m->sliding_window ? pattern : 0;
    return KVB_OK;
}

/* Llama 4: chunked attention on RoPE layers, global on NoPE layers
 * (no_rope_layers[i] == 0), by default every 4th layer. */
static kvb_status chunking(cfg *c)
{
    kvb_model *m = &c->r->model;
    json_t *nope = json_object_get(c->obj, "no_rope_layers");
    uint32_t pattern = 4;
    kvb_status st = KVB_OK;
    if (json_is_array(nope) && json_array_size(nope) > 0) {
        size_t n = json_array_size(nope);
        bool global[1024];
        if (n > KVB__ARRAY_LEN(global))
            return cfg_fail(c, KVB_ERANGE, "no_rope_layers",
                            "no_rope_layers has %zu entries; allowed: at "
                            "most %zu layers",
                            n, KVB__ARRAY_LEN(global));
        if (n != m->num_hidden_layers)
            return cfg_fail(c, KVB_EPARSE, "no_rope_layers",
                            "no_rope_layers has %zu entries; allowed: one "
                            "per layer (%u)",
                            n, m->num_hidden_layers);
        for (size_t i = 0; i < n; i++)
            global[i] = json_is_integer(json_array_get(nope, i)) &&
                        json_integer_value(json_array_get(nope, i)) == 0;
        st = pattern_of(c, global, n, "no_rope_layers", &pattern);
        if (!st)
            cfg_mark(c, KVB_READ_FIELD_ATTENTION_CHUNK_PATTERN,
                     "no_rope_layers");
    } else {
        st = get_pattern(c, "no_rope_layer_interval",
                         KVB_READ_FIELD_ATTENTION_CHUNK_PATTERN, &pattern);
    }
    m->attention_chunk_pattern = m->attention_chunk_size ? pattern : 0;
    return st;
}

/* ---- mixture of experts ---- */

static kvb_status moe_step(cfg *c)
{
    char key[64];
    bool found = false;
    uint64_t v = 0;
    kvb_status st =
        get_u64(c, c->obj, "interleave_moe_layer_step,decoder_sparse_step", &v,
                key, &found);
    if (!st && found) /* 1: every layer, which the model writes as 0 */
        st = model_set(c, KVB_READ_FIELD_MOE_LAYER_STEP, v <= 1 ? 0 : v, key);
    if (!st)
        st = get_u64(c, c->obj, "moe_layer_freq", &v, key, &found);
    if (!st && found && v > 1)
        return cfg_fail(c, KVB_EUNSUPPORTED, key,
                        "%s (%llu) is not supported; allowed: 1", key,
                        (unsigned long long)v);
    json_t *only = json_object_get(c->obj, "mlp_only_layers");
    if (!st && json_array_size(only) > 0)
        return cfg_fail(c, KVB_EUNSUPPORTED, "mlp_only_layers",
                        "mlp_only_layers lists dense layers among MoE "
                        "layers; allowed: []");
    return st;
}

static kvb_status experts(cfg *c)
{
    kvb_model *m = &c->r->model;
    kvb_status st = moe_step(c);
    if (st || m->num_experts == 0)
        return st;
    /* Mixtral and gpt-oss give the expert width as intermediate_size. */
    if (!has_field(c, KVB_READ_FIELD_MOE_INTERMEDIATE_SIZE)) {
        m->moe_intermediate_size = m->intermediate_size;
        c->r->info.fields_from_file |= (uint64_t)1
                                       << KVB_READ_FIELD_MOE_INTERMEDIATE_SIZE;
    }
    if (c->fam->arch == KVB_ARCH_LLAMA4)
        m->num_shared_experts = 1;
    if (m->shared_expert_intermediate_size && !m->num_shared_experts)
        m->num_shared_experts = 1; /* Qwen MoE: one gated shared expert */
    return KVB_OK;
}

/* ---- flags and family quirks ---- */

static kvb_status bias_flags(cfg *c, uint32_t *flags)
{
    bool attn = false, mlp = false, any = false;
    kvb_status st = KVB_OK;
    switch (c->fam->arch) {
    case KVB_ARCH_FALCON:
        st = get_bool(c, c->obj, "bias", false, &attn);
        mlp = attn;
        break;
    case KVB_ARCH_GPT_NEOX:
        st = get_bool(c, c->obj, "attention_bias", true, &any);
        if (!any)
            *flags &= ~(uint32_t)F_BIASES;
        return st;
    case KVB_ARCH_OPT:
        st = get_bool(c, c->obj, "enable_bias", true, &any);
        if (!any)
            *flags &= ~(uint32_t)(F_BIASES | KVB_MODEL_MLP_BIAS);
        return st;
    case KVB_ARCH_GLM4_MOE: {
        /* modeling_glm4_moe.py: attention_bias gives q/k/v biases only
         * (o_proj is built without one); use_qk_norm adds q_norm and
         * k_norm over head_dim.  partial_rotary_factor rotates part of
         * each head and changes no tensor. */
        bool qk_norm = false;
        st = get_bool(c, c->obj, "attention_bias", false, &attn);
        if (!st)
            st = get_bool(c, c->obj, "use_qk_norm", false, &qk_norm);
        *flags |= (attn ? KVB_MODEL_ATTN_QKV_BIAS : 0u) |
                  (qk_norm ? KVB_MODEL_QK_NORM : 0u);
        return st;
    }
    default:
        st = get_bool(c, c->obj, "attention_bias", false, &attn);
        if (!st)
            st = get_bool(c, c->obj, "mlp_bias", false, &mlp);
        break;
    }
    *flags |= (attn ? F_BIASES : 0u) | (mlp ? KVB_MODEL_MLP_BIAS : 0u);
    return st;
}

/* Falcon: one KV head with multi_query (the default), all heads or
 * num_kv_heads with the new decoder; the MLP is 4x wide; 2048 positions. */
static kvb_status falcon(cfg *c, uint32_t *flags)
{
    kvb_model *m = &c->r->model;
    bool nda = false, mq = true, parallel = true;
    kvb_status st =
        get_bool(c, c->obj, "new_decoder_architecture", false, &nda);
    if (!st)
        st = get_bool(c, c->obj, "multi_query", true, &mq);
    if (!st)
        st = get_bool(c, c->obj, "parallel_attn", true, &parallel);
    char key[64];
    bool found = false;
    uint64_t v = 0;
    if (!st && (nda || !mq))
        st = get_u64(c, c->obj, "num_kv_heads,n_head_kv", &v, key, &found);
    if (!st && found)
        st = model_set(c, KVB_READ_FIELD_NUM_KEY_VALUE_HEADS, v, key);
    else if (!st && !nda && mq)
        m->num_key_value_heads = 1;
    if (nda || !parallel)
        *flags &= ~(uint32_t)KVB_MODEL_PARALLEL_ATTN; /* two norms */
    if (!m->intermediate_size)
        m->intermediate_size = 4 * m->hidden_size;
    if (!m->max_position_embeddings)
        m->max_position_embeddings = 2048;
    return st;
}

/* OPT: learned positions with an offset of 2; a projection when the
 * embedding is narrower than the model. */
static kvb_status opt(cfg *c)
{
    kvb_model *m = &c->r->model;
    char key[64];
    bool found = false;
    uint64_t v = 0;
    kvb_status st = get_u64(c, c->obj, "word_embed_proj_dim", &v, key, &found);
    if (!st && found && v != m->hidden_size)
        return cfg_fail(c, KVB_EUNSUPPORTED, key,
                        "%s (%llu) differs from hidden_size (%llu): the "
                        "project_in/out layers are not modelled",
                        key, (unsigned long long)v,
                        (unsigned long long)m->hidden_size);
    if (!st && m->max_position_embeddings) {
        m->position_embedding_rows = m->max_position_embeddings + 2;
        cfg_mark(c, KVB_READ_FIELD_POSITION_EMBEDDING_ROWS,
                 "max_position_embeddings");
    }
    return st;
}

static kvb_status quirks(cfg *c)
{
    kvb_model *m = &c->r->model;
    uint32_t flags = c->fam->flags;
    kvb_status st = bias_flags(c, &flags);
    if (!st && c->fam->arch == KVB_ARCH_FALCON)
        st = falcon(c, &flags);
    if (!st && c->fam->arch == KVB_ARCH_OPT)
        st = opt(c);
    const char *topk = get_string(c->obj, "topk_method");
    if (topk && strcmp(topk, "noaux_tc") == 0)
        flags |= KVB_MODEL_ROUTER_SCORE_BIAS; /* e_score_correction_bias */
    m->flags = flags;
    if (!has_field(c, KVB_READ_FIELD_NUM_KEY_VALUE_HEADS) &&
        !m->num_key_value_heads)
        m->num_key_value_heads = m->num_attention_heads;
    return st;
}

static kvb_status tie(cfg *c)
{
    bool t = c->fam->tied != 0;
    json_t *obj =
        json_object_get(c->obj, "tie_word_embeddings") ? c->obj : c->root;
    const char *saved = c->prefix;
    if (obj == c->root)
        c->prefix = NULL;
    kvb_status st = get_bool(c, obj, "tie_word_embeddings", t, &t);
    if (!st && json_object_get(obj, "tie_word_embeddings"))
        cfg_mark(c, KVB_READ_FIELD_TIE_WORD_EMBEDDINGS, "tie_word_embeddings");
    c->prefix = saved;
    c->r->model.tie_word_embeddings = t;
    return st;
}

static void dtype(cfg *c)
{
    const char *keys[] = {"torch_dtype", "dtype"};
    json_t *objs[] = {c->obj, c->root};
    for (size_t o = 0; o < 2; o++) {
        for (size_t k = 0; k < 2; k++) {
            const char *name = get_string(objs[o], keys[k]);
            int32_t d = 0;
            if (!name)
                continue;
            if (kvb_dtype_find(name, &d, NULL) == KVB_OK &&
                d != KVB_DTYPE_FP8 && d != KVB_DTYPE_AUTO) {
                const char *saved = c->prefix;
                c->prefix = o ? NULL : saved;
                c->r->model.dtype = d;
                cfg_mark(c, KVB_READ_FIELD_DTYPE, keys[k]);
                c->prefix = saved;
            } else {
                kvb__read_warn(c->r,
                               "%s (%s) is not a checkpoint dtype; "
                               "assuming bf16",
                               keys[k], name);
            }
            return;
        }
    }
}

/* ---- hybrid layers (Qwen3-Next, Nemotron-H) ---- */

static bool is_hybrid(const cfg *c)
{
    return c->fam->arch == KVB_ARCH_QWEN3_NEXT ||
           c->fam->arch == KVB_ARCH_NEMOTRON_H ||
           c->fam->arch == KVB_ARCH_GRANITE_H ||
           c->fam->arch == KVB_ARCH_JAMBA ||
           c->fam->arch == KVB_ARCH_FALCON_H1 ||
           c->fam->arch == KVB_ARCH_ZAMBA2;
}

/* One recurrent size, required: the families' defaults are not read from
 * the classes, so a config without the key is refused by name. */
static kvb_status ssm_size(cfg *c, const char *keys, uint32_t *out)
{
    char key[64];
    bool found = false;
    uint64_t v = 0;
    kvb_status st = get_u64(c, c->obj, keys, &v, key, &found);
    if (st)
        return st;
    size_t n = strcspn(keys, ",");
    if (!found || v == 0 || v > 65536)
        return cfg_fail(c, found ? KVB_ERANGE : KVB_EPARSE, found ? key : keys,
                        "%.*s is %s; allowed: 1..65536 (the recurrent "
                        "layers' size)",
                        (int)n, keys, found ? "out of range" : "missing");
    *out = (uint32_t)v;
    return KVB_OK;
}

/* A per-layer list of names into layer_pattern: `names` and `kinds` pair
 * each accepted name with its layer_pattern character. */
static kvb_status pattern_list(cfg *c, const char *key,
                               const char *const *names, const char *kinds,
                               size_t n_names)
{
    kvb_model *m = &c->r->model;
    json_t *list = json_object_get(c->obj, key);
    size_t n = json_array_size(list);
    if (n != m->num_hidden_layers || n >= sizeof m->layer_pattern)
        return cfg_fail(c, KVB_EPARSE, key,
                        "%s has %zu entries; allowed: one per layer (%u), "
                        "at most %zu",
                        key, n, m->num_hidden_layers,
                        sizeof m->layer_pattern - 1);
    for (size_t i = 0; i < n; i++) {
        const char *t = json_string_value(json_array_get(list, i));
        size_t k = 0;
        while (t && k < n_names && strcmp(t, names[k]) != 0)
            k++;
        if (!t || k == n_names)
            return cfg_fail(c, KVB_EUNSUPPORTED, key,
                            "%s[%zu] (%s) is not a layer kind modelled "
                            "here",
                            key, i, t ? t : "not a string");
        m->layer_pattern[i] = kinds[k];
    }
    m->layer_pattern[n] = '\0';
    return KVB_OK;
}

/*
 * Qwen3-Next (configuration_qwen3_next.py): layer_types names each layer
 * "linear_attention" (Gated DeltaNet, 'G') or "full_attention" ('A');
 * without it, layer i is full iff (i + 1) % full_attention_interval == 0.
 * Every layer then has its MoE (or dense) MLP.  The mtp.* layers the
 * checkpoint carries are loaded only for speculative decoding, so they are
 * not in the inventory.
 */
static kvb_status qwen3_next(cfg *c)
{
    static const char *const names[] = {"linear_attention", "full_attention"};
    kvb_model *m = &c->r->model;
    kvb_status st = KVB_OK;
    if (m->num_hidden_layers >= sizeof m->layer_pattern)
        return cfg_fail(c, KVB_ERANGE, "num_hidden_layers",
                        "num_hidden_layers (%u) is too many for a hybrid; "
                        "allowed: at most %zu",
                        m->num_hidden_layers, sizeof m->layer_pattern - 1);
    if (json_is_array(json_object_get(c->obj, "layer_types"))) {
        st = pattern_list(c, "layer_types", names, "GA", 2);
    } else {
        char key[64];
        bool found = false;
        uint64_t every = 0;
        st = get_u64(c, c->obj, "full_attention_interval", &every, key, &found);
        if (!st && (!found || every == 0))
            return cfg_fail(c, KVB_EPARSE, "full_attention_interval",
                            "full_attention_interval is missing or 0 and "
                            "layer_types is absent; allowed: the layer kinds "
                            "in one of them");
        for (uint32_t i = 0; !st && i < m->num_hidden_layers; i++)
            m->layer_pattern[i] = (i + 1) % every == 0 ? 'A' : 'G';
    }
    bool gate = true; /* Qwen3.5's attn_output_gate; Qwen3-Next always */
    if (!st)
        st = get_bool(c, c->obj, "attn_output_gate", true, &gate);
    if (!gate)
        m->flags &= ~(uint32_t)KVB_MODEL_ATTN_GATE;
    if (!st)
        st = ssm_size(c, "linear_num_value_heads", &m->ssm_num_heads);
    if (!st)
        st = ssm_size(c, "linear_value_head_dim", &m->ssm_head_dim);
    if (!st)
        st = ssm_size(c, "linear_num_key_heads", &m->ssm_n_groups);
    if (!st)
        st = ssm_size(c, "linear_key_head_dim", &m->ssm_state_size);
    if (!st)
        st = ssm_size(c, "linear_conv_kernel_dim", &m->ssm_conv_kernel);
    return st;
}

/* The Mamba mixer biases every published Granite-4.0-H, Jamba,
 * Nemotron-H, Falcon-H1 and Zamba2 checkpoint has (a conv bias, no
 * projection biases): the only ones the inventory models.  Each family
 * names the two keys its own way. */
static kvb_status mixer_biases_at(cfg *c, const char *kind,
                                  const char *conv_key, const char *proj_keys)
{
    char proj[32];
    size_t n = strcspn(proj_keys, ",");
    snprintf(proj, sizeof proj, "%.*s", (int)n, proj_keys);
    bool conv_bias = true, proj_bias = false;
    kvb_status st = get_bool(c, c->obj, conv_key, true, &conv_bias);
    if (!st)
        st = get_bool(c, c->obj, proj_keys, false, &proj_bias);
    if (!st && (!conv_bias || proj_bias))
        return cfg_fail(
            c, KVB_EUNSUPPORTED, conv_bias ? proj : conv_key,
            "a %s mixer %s is not modelled; allowed: %s true, "
            "%s false",
            kind, conv_bias ? "with projection biases" : "without a conv bias",
            conv_key, proj);
    return st;
}

static kvb_status mixer_biases(cfg *c, const char *kind)
{
    return mixer_biases_at(c, kind, "mamba_conv_bias", "mamba_proj_bias");
}

/* Nemotron-H options whose tensors the inventory does not hold: say so
 * rather than count a different model. */
static kvb_status nemotron_h_options(cfg *c)
{
    kvb_status st = mixer_biases_at(c, "Mamba2", "use_conv_bias",
                                    "mamba_proj_bias,use_bias");
    json_t *latent = json_object_get(c->obj, "moe_latent_size");
    if (!st && latent && !json_is_null(latent))
        return cfg_fail(c, KVB_EUNSUPPORTED, "moe_latent_size",
                        "moe_latent_size: latent MoE projections are not "
                        "modelled; allowed: no latent MoE");
    return st;
}

/*
 * Nemotron-H (configuration_nemotron_h.py; vLLM nemotron_h.py builds one
 * block per character): hybrid_override_pattern gives each block as M
 * (Mamba2), * (attention), - (MLP) or E (MoE), the same letters
 * layer_pattern uses; newer configs spell it layers_block_type ("mamba",
 * "attention", "mlp", "moe").  The MoE router keeps an
 * e_score_correction_bias.  mamba_ssm_cache_dtype, when given, is the
 * temporal state's dtype.
 */
static kvb_status nemotron_h(cfg *c)
{
    static const char *const names[] = {"mamba", "attention", "mlp", "moe"};
    kvb_model *m = &c->r->model;
    const char *pattern = get_string(c->obj, "hybrid_override_pattern");
    kvb_status st = nemotron_h_options(c);
    if (st)
        return st;
    if (pattern) {
        size_t n = strlen(pattern);
        if (n != m->num_hidden_layers || n >= sizeof m->layer_pattern)
            return cfg_fail(c, KVB_EPARSE, "hybrid_override_pattern",
                            "hybrid_override_pattern has %zu blocks but "
                            "num_hidden_layers is %u; allowed: one per "
                            "layer, at most %zu",
                            n, m->num_hidden_layers,
                            sizeof m->layer_pattern - 1);
        for (size_t i = 0; i < n; i++)
            if (!strchr("M*-E", pattern[i]))
                return cfg_fail(c, KVB_EUNSUPPORTED, "hybrid_override_pattern",
                                "hybrid_override_pattern[%zu] ('%c') is not "
                                "a block kind; allowed: M * - E",
                                i, pattern[i]);
        memcpy(m->layer_pattern, pattern, n + 1);
    } else if (json_is_array(json_object_get(c->obj, "layers_block_type"))) {
        st = pattern_list(c, "layers_block_type", names, "M*-E", 4);
    } else {
        return cfg_fail(c, KVB_EPARSE, "hybrid_override_pattern",
                        "hybrid_override_pattern (or layers_block_type) is "
                        "missing; the block kinds must be given");
    }
    if (!st)
        st = ssm_size(c, "mamba_num_heads", &m->ssm_num_heads);
    if (!st)
        st = ssm_size(c, "mamba_head_dim", &m->ssm_head_dim);
    if (!st)
        st = ssm_size(c, "n_groups,mamba_n_groups", &m->ssm_n_groups);
    if (!st)
        st = ssm_size(c, "ssm_state_size", &m->ssm_state_size);
    if (!st)
        st = ssm_size(c, "conv_kernel,mamba_d_conv", &m->ssm_conv_kernel);
    const char *sd = get_string(c->obj, "mamba_ssm_cache_dtype");
    int32_t d = KVB_DTYPE_AUTO;
    if (!st && sd && kvb_dtype_find(sd, &d, NULL) == KVB_OK &&
        d != KVB_DTYPE_FP8)
        m->ssm_state_dtype = d;
    if (m->num_experts)
        m->flags |= KVB_MODEL_ROUTER_SCORE_BIAS;
    return st;
}

/* Granite-4.0-H's mamba_d_head: a number, or "auto" for mamba_expand x
 * hidden_size / mamba_n_heads (GraniteMoeHybridConfig). */
static kvb_status granite_head(cfg *c, kvb_model *m)
{
    const char *v = get_string(c->obj, "mamba_d_head");
    if (!v || strcmp(v, "auto") != 0)
        return ssm_size(c, "mamba_d_head", &m->ssm_head_dim);
    char key[64];
    bool found = false;
    uint64_t expand = 0;
    kvb_status st = get_u64(c, c->obj, "mamba_expand", &expand, key, &found);
    if (!st && (!found || expand * m->hidden_size % m->ssm_num_heads))
        return cfg_fail(c, KVB_EPARSE, "mamba_d_head",
                        "mamba_d_head is \"auto\" but mamba_expand x "
                        "hidden_size is missing or not a multiple of "
                        "mamba_n_heads (%u)",
                        m->ssm_num_heads);
    if (!st)
        m->ssm_head_dim =
            (uint32_t)(expand * m->hidden_size / m->ssm_num_heads);
    return st;
}

/* The Mamba2 sizes under the mamba_* keys that Granite-4.0-H and
 * Falcon-H1 share (configuration_granitemoehybrid.py,
 * configuration_falcon_h1.py): heads, the head width (`head` reads it with
 * the family's own "auto" rule), groups, state and conv width. */
static kvb_status mamba2_sizes(cfg *c, kvb_model *m,
                               kvb_status (*head)(cfg *, kvb_model *))
{
    kvb_status st = ssm_size(c, "mamba_n_heads", &m->ssm_num_heads);
    if (!st)
        st = head(c, m);
    if (!st)
        st = ssm_size(c, "mamba_n_groups", &m->ssm_n_groups);
    if (!st)
        st = ssm_size(c, "mamba_d_state", &m->ssm_state_size);
    if (!st)
        st = ssm_size(c, "mamba_d_conv", &m->ssm_conv_kernel);
    return st;
}

/*
 * Granite-4.0-H (configuration_granitemoehybrid.py; vLLM
 * granitemoehybrid.py): every layer is a mixer, "mamba" (Mamba2, 'm') or
 * "attention" ('A') in layer_types, then the FFN: the routed experts
 * (num_local_experts of intermediate_size) and a shared MLP of
 * shared_intermediate_size, both gated; without experts the shared MLP is
 * the layer's dense MLP.
 */
static kvb_status granite_h(cfg *c)
{
    static const char *const names[] = {"mamba", "attention"};
    kvb_model *m = &c->r->model;
    kvb_status st = mixer_biases(c, "Mamba2");
    if (!st && !json_is_array(json_object_get(c->obj, "layer_types")))
        return cfg_fail(c, KVB_EPARSE, "layer_types",
                        "layer_types is missing; the mixer of each layer "
                        "(mamba or attention) must be given");
    if (!st)
        st = pattern_list(c, "layer_types", names, "mA", 2);
    if (!st)
        st = mamba2_sizes(c, m, granite_head);
    if (!st && m->num_experts == 0 && m->shared_expert_intermediate_size) {
        m->intermediate_size = m->shared_expert_intermediate_size;
        m->shared_expert_intermediate_size = 0;
        m->num_shared_experts = 0;
    }
    return st;
}

/* A required size of Jamba's config, as a count in 0..4096. */
static kvb_status jamba_u32(cfg *c, const char *key, uint32_t *out)
{
    char k[64];
    bool found = false;
    uint64_t v = 0;
    kvb_status st = get_u64(c, c->obj, key, &v, k, &found);
    if (!st && (!found || v > 4096))
        return cfg_fail(c, found ? KVB_ERANGE : KVB_EPARSE, key,
                        "%s is %s; allowed: 0..4096", key,
                        found ? "out of range" : "missing");
    *out = (uint32_t)v;
    return st;
}

/* Jamba's mixer biases and dt_rank: the ones every AI21 checkpoint writes,
 * which are the ones modelled (mamba_dt_rank "auto" is ceil(hidden / 16),
 * configuration_jamba.py). */
static kvb_status jamba_mamba(cfg *c)
{
    kvb_model *m = &c->r->model;
    kvb_status st = mixer_biases(c, "Mamba1");
    uint32_t rank = (uint32_t)((m->hidden_size + 15) / 16);
    const char *auto_rank = get_string(c->obj, "mamba_dt_rank");
    uint32_t dt = rank;
    if (!st && !(auto_rank && strcmp(auto_rank, "auto") == 0))
        st = jamba_u32(c, "mamba_dt_rank", &dt);
    if (!st && dt != rank)
        return cfg_fail(c, KVB_EUNSUPPORTED, "mamba_dt_rank",
                        "mamba_dt_rank (%u) is not modelled; allowed: "
                        "ceil(hidden_size / 16) = %u",
                        dt, rank);
    uint32_t expand = 0;
    if (!st)
        st = jamba_u32(c, "mamba_expand", &expand);
    uint64_t inner = (uint64_t)expand * m->hidden_size;
    if (!st && (inner == 0 || inner > 65536))
        return cfg_fail(c, KVB_ERANGE, "mamba_expand",
                        "mamba_expand x hidden_size (%llu) is out of range; "
                        "allowed: 1..65536 (d_inner)",
                        (unsigned long long)inner);
    m->ssm_num_heads = (uint32_t)inner; /* one channel per head */
    m->ssm_head_dim = 1;
    m->ssm_n_groups = 1;
    if (!st)
        st = ssm_size(c, "mamba_d_state", &m->ssm_state_size);
    if (!st)
        st = ssm_size(c, "mamba_d_conv", &m->ssm_conv_kernel);
    return st;
}

/*
 * Jamba (configuration_jamba.py, modeling_jamba.py; vLLM jamba.py): layer
 * i is attention when i % attn_layer_period == attn_layer_offset, else a
 * Mamba1 mixer ('S'); either is followed by the experts when i %
 * expert_layer_period == expert_layer_offset and num_experts > 1, else by
 * a dense MLP of intermediate_size.  The model's MoE rule is (i + 1) %
 * step == 0, so the offset must be period - 1 (1 of 2 in every AI21
 * checkpoint).
 */
static kvb_status jamba(cfg *c)
{
    kvb_model *m = &c->r->model;
    uint32_t ap = 0, ao = 0, ep = 0, eo = 0;
    kvb_status st = jamba_u32(c, "attn_layer_period", &ap);
    if (!st)
        st = jamba_u32(c, "attn_layer_offset", &ao);
    if (!st)
        st = jamba_u32(c, "expert_layer_period", &ep);
    if (!st)
        st = jamba_u32(c, "expert_layer_offset", &eo);
    if (!st && (ap == 0 || ao >= ap || ep == 0 || eo >= ep))
        return cfg_fail(c, KVB_ERANGE,
                        ap == 0 || ao >= ap ? "attn_layer_offset"
                                            : "expert_layer_offset",
                        "a layer period of 0 or an offset not below it "
                        "(attention %u of %u, experts %u of %u); allowed: "
                        "offset < period",
                        ao, ap, eo, ep);
    if (!st && m->num_experts > 1 && eo != ep - 1)
        return cfg_fail(c, KVB_EUNSUPPORTED, "expert_layer_offset",
                        "expert_layer_offset (%u) with expert_layer_period "
                        "(%u) is not modelled; allowed: period - 1",
                        eo, ep);
    if (!st && m->num_hidden_layers >= sizeof m->layer_pattern)
        return cfg_fail(c, KVB_ERANGE, "num_hidden_layers",
                        "num_hidden_layers (%u) is out of range for a "
                        "hybrid; allowed: at most %zu",
                        m->num_hidden_layers, sizeof m->layer_pattern - 1);
    if (st)
        return st;
    for (uint32_t i = 0; i < m->num_hidden_layers; i++)
        m->layer_pattern[i] = i % ap == ao ? 'A' : 'S';
    m->layer_pattern[m->num_hidden_layers] = 0;
    if (m->num_experts <= 1) { /* JambaMLP everywhere (modeling_jamba.py) */
        m->num_experts = 0;
        m->num_experts_per_tok = 0;
        m->moe_intermediate_size = 0;
    } else {
        m->moe_layer_step = ep;
    }
    return jamba_mamba(c);
}

/* Falcon-H1's true-or-false keys that change a tensor: each must hold the
 * value every TII checkpoint writes (false), because vLLM's falcon_h1.py
 * builds qkv_proj, o_proj, the MLP and the mixer's out_proj without
 * biases whatever the config says, and transformers would add them. */
static kvb_status falcon_h1_biases(cfg *c)
{
    static const char *const keys[] = {"attention_bias", "mlp_bias",
                                       "projectors_bias"};
    kvb_status st = mixer_biases(c, "Mamba2");
    for (size_t i = 0; !st && i < KVB__ARRAY_LEN(keys); i++) {
        bool on = false;
        st = get_bool(c, c->obj, keys[i], false, &on);
        if (!st && on)
            return cfg_fail(c, KVB_EUNSUPPORTED, keys[i],
                            "falcon_h1 with %s true is not modelled (vLLM "
                            "builds that layer without a bias, "
                            "transformers with one); allowed: false",
                            keys[i]);
    }
    return st;
}

/* Falcon-H1's mixer width: mamba_d_ssm, or mamba_expand x hidden_size
 * when it is null; mamba_d_head "auto" is that width over mamba_n_heads
 * (configuration_falcon_h1.py __post_init__), and heads x head_dim must
 * equal the width (its validate_architecture). */
static kvb_status falcon_h1_head(cfg *c, kvb_model *m)
{
    char key[64];
    bool found = false;
    uint64_t inner = 0, expand = 0;
    json_t *d = json_object_get(c->obj, "mamba_d_ssm");
    kvb_status st = KVB_OK;
    if (d && !json_is_null(d)) {
        st = get_u64(c, c->obj, "mamba_d_ssm", &inner, key, &found);
    } else {
        st = get_u64(c, c->obj, "mamba_expand", &expand, key, &found);
        inner = found && expand <= 64 ? expand * m->hidden_size : 0;
    }
    if (!st && (inner == 0 || inner > ((uint64_t)1 << 20)))
        return cfg_fail(c, KVB_ERANGE, "mamba_d_ssm",
                        "mamba_d_ssm (or mamba_expand x hidden_size) is "
                        "missing or out of range; allowed: 1..1048576");
    const char *v = get_string(c->obj, "mamba_d_head");
    if (!st && v && strcmp(v, "auto") == 0)
        m->ssm_head_dim = (uint32_t)(inner / m->ssm_num_heads);
    else if (!st)
        st = ssm_size(c, "mamba_d_head", &m->ssm_head_dim);
    if (!st && (uint64_t)m->ssm_head_dim * m->ssm_num_heads != inner)
        return cfg_fail(c, KVB_EINVAL, "mamba_d_head",
                        "mamba_n_heads x mamba_d_head (%u x %u) is not "
                        "mamba_d_ssm (%llu); allowed: equal, as "
                        "transformers requires",
                        m->ssm_num_heads, m->ssm_head_dim,
                        (unsigned long long)inner);
    return st;
}

/*
 * Falcon-H1 (configuration_falcon_h1.py, modular_falcon_h1.py; vLLM
 * falcon_h1.py FalconH1ParallelHybrid): every layer runs self_attn and a
 * Mamba2 mixer side by side on one input norm, then pre_ff_layernorm and
 * a gated SiLU MLP ('P'); layers_block_type is "hybrid" for every layer.
 * The mixer's gated norm exists only with mamba_rms_norm.  The *_multiplier
 * keys scale activations and change no size.
 */
static kvb_status falcon_h1(cfg *c)
{
    kvb_model *m = &c->r->model;
    bool norm = false;
    kvb_status st = falcon_h1_biases(c);
    if (!st)
        st = get_bool(c, c->obj, "mamba_rms_norm", false, &norm);
    if (!st)
        st = mamba2_sizes(c, m, falcon_h1_head);
    if (!st && m->num_hidden_layers >= sizeof m->layer_pattern)
        return cfg_fail(c, KVB_ERANGE, "num_hidden_layers",
                        "num_hidden_layers (%u) is out of range for a "
                        "hybrid; allowed: at most %zu",
                        m->num_hidden_layers, sizeof m->layer_pattern - 1);
    if (st)
        return st;
    memset(m->layer_pattern, 'P', m->num_hidden_layers);
    m->layer_pattern[m->num_hidden_layers] = 0;
    if (!norm)
        m->flags |= KVB_MODEL_SSM_NO_NORM;
    return KVB_OK;
}

/* A Zamba2 count with transformers' Zamba2Config default when absent. */
static kvb_status zamba2_u32(cfg *c, const char *key, uint32_t dflt,
                             uint32_t max, uint32_t *out)
{
    char k[64];
    bool found = false;
    uint64_t v = dflt;
    kvb_status st = get_u64(c, c->obj, key, &v, k, &found);
    if (!st && (v == 0 || v > max))
        return cfg_fail(c, KVB_ERANGE, key,
                        "%s (%llu) is out of range; "
                        "allowed: 1..%u",
                        key, (unsigned long long)v, max);
    *out = found ? (uint32_t)v : dflt;
    return st;
}

/* The options whose tensors the inventory does not hold (projection and
 * MLP biases; a conv without bias, which transformers' Zamba2MambaMixer
 * never builds), refused by name. */
static kvb_status zamba2_options(cfg *c)
{
    kvb_status st =
        mixer_biases_at(c, "Zamba2", "use_conv_bias", "add_bias_linear");
    bool attn = false, long_ctx = false;
    if (!st)
        st = get_bool(c, c->obj, "use_shared_attention_adapter", false, &attn);
    if (!st)
        st = get_bool(c, c->obj, "use_long_context", false, &long_ctx);
    if (attn)
        c->r->model.flags |= KVB_MODEL_SHARED_ATTN_ADAPTER;
    if (long_ctx) /* Zamba2Config: use_long_context sets 16384 */
        c->r->model.max_position_embeddings = 16384;
    return st;
}

/* Zamba2's Mamba2 sizes (configuration_zamba2.py): n_mamba_heads heads of
 * mamba_headdim = mamba_expand x hidden_size / n_mamba_heads, which the
 * published configs also write out. */
static kvb_status zamba2_mamba(cfg *c)
{
    kvb_model *m = &c->r->model;
    uint32_t expand = 0;
    kvb_status st = zamba2_u32(c, "mamba_expand", 2, 64, &expand);
    if (!st)
        st = zamba2_u32(c, "n_mamba_heads", 8, 65536, &m->ssm_num_heads);
    uint64_t inner = (uint64_t)expand * m->hidden_size;
    if (!st && inner % m->ssm_num_heads)
        return cfg_fail(c, KVB_EPARSE, "n_mamba_heads",
                        "n_mamba_heads (%u) does not divide mamba_expand x "
                        "hidden_size (%llu); allowed: a divisor",
                        m->ssm_num_heads, (unsigned long long)inner);
    uint32_t head = 0;
    if (!st)
        st = zamba2_u32(c, "mamba_headdim",
                        (uint32_t)(inner / m->ssm_num_heads), 65536, &head);
    if (!st && (uint64_t)head * m->ssm_num_heads != inner)
        return cfg_fail(c, KVB_EPARSE, "mamba_headdim",
                        "mamba_headdim (%u) x n_mamba_heads (%u) is not "
                        "mamba_expand x hidden_size (%llu); allowed: equal",
                        head, m->ssm_num_heads, (unsigned long long)inner);
    m->ssm_head_dim = head;
    if (!st)
        st = zamba2_u32(c, "mamba_ngroups", 1, 65536, &m->ssm_n_groups);
    if (!st)
        st = zamba2_u32(c, "mamba_d_state", 64, 65536, &m->ssm_state_size);
    if (!st)
        st = zamba2_u32(c, "mamba_d_conv", 4, 65536, &m->ssm_conv_kernel);
    return st;
}

/* hybrid_layer_ids, when the config writes it, must name the "hybrid"
 * entries of layers_block_type (Zamba2Config derives it from them). */
static kvb_status zamba2_ids(cfg *c)
{
    const kvb_model *m = &c->r->model;
    json_t *ids = json_object_get(c->obj, "hybrid_layer_ids");
    if (!ids || json_is_null(ids))
        return KVB_OK;
    size_t k = 0;
    for (uint32_t i = 0; i < m->num_hidden_layers; i++) {
        if (m->layer_pattern[i] == 'M')
            continue;
        json_t *v = json_array_get(ids, k++);
        if (!json_is_integer(v) || json_integer_value(v) != (json_int_t)i)
            return cfg_fail(c, KVB_EPARSE, "hybrid_layer_ids",
                            "hybrid_layer_ids disagrees with "
                            "layers_block_type at layer %u; allowed: the "
                            "indices of its \"hybrid\" entries",
                            i);
    }
    if (k != json_array_size(ids))
        return cfg_fail(c, KVB_EPARSE, "hybrid_layer_ids",
                        "hybrid_layer_ids has %zu entries, "
                        "layers_block_type %zu hybrid layers; allowed: equal",
                        json_array_size(ids), k);
    return KVB_OK;
}

/*
 * Zamba2 (configuration_zamba2.py, modeling_zamba2.py; vLLM zamba2.py):
 * layers_block_type names each layer "mamba" (a Mamba2 layer, 'M') or
 * "hybrid" (a shared transformer block, its adapters and linear, then a
 * Mamba2 layer).  The num_mem_blocks shared blocks are cycled over the
 * hybrid layers; the first num_mem_blocks hybrid layers store them ('Z'),
 * the rest reuse them ('z').  The attention input is concat(hidden,
 * embeddings), so its head_dim is 2 x hidden_size / num_attention_heads
 * (attention_head_dim, which Zamba2Config computes whatever the file
 * says).  The pre-transformers configs (layers_block_type "m"/"g",
 * lora_rank) are refused by pattern_list: transformers does not read them.
 */
static kvb_status zamba2(cfg *c)
{
    static const char *const names[] = {"mamba", "hybrid"};
    kvb_model *m = &c->r->model;
    kvb_status st = zamba2_options(c);
    if (!st && !json_is_array(json_object_get(c->obj, "layers_block_type")))
        return cfg_fail(c, KVB_EPARSE, "layers_block_type",
                        "layers_block_type is missing; each layer's kind "
                        "(mamba or hybrid) must be given");
    if (!st)
        st = pattern_list(c, "layers_block_type", names, "MZ", 2);
    if (!st)
        st = zamba2_ids(c);
    if (!st)
        st = zamba2_u32(c, "num_mem_blocks", 1, 256, &m->shared_blocks);
    if (!st)
        st = zamba2_u32(c, "adapter_rank", 128, 65536, &m->adapter_rank);
    uint32_t seen = 0;
    for (uint32_t i = 0; !st && i < m->num_hidden_layers; i++)
        if (m->layer_pattern[i] == 'Z' && seen++ >= m->shared_blocks)
            m->layer_pattern[i] = 'z';
    if (!st && seen < m->shared_blocks)
        return cfg_fail(c, KVB_EUNSUPPORTED, "num_mem_blocks",
                        "num_mem_blocks (%u) exceeds the hybrid layers "
                        "(%u): a block never used is not modelled; "
                        "allowed: at most the hybrid layers",
                        m->shared_blocks, seen);
    if (!st && (2 * m->hidden_size) % m->num_attention_heads)
        return cfg_fail(c, KVB_EPARSE, "num_attention_heads",
                        "num_attention_heads (%u) does not divide 2 x "
                        "hidden_size (%llu), Zamba2's attention width; "
                        "allowed: a divisor",
                        m->num_attention_heads,
                        (unsigned long long)(2 * m->hidden_size));
    m->head_dim = (uint32_t)(2 * m->hidden_size / m->num_attention_heads);
    return st ? st : zamba2_mamba(c);
}

static kvb_status hybrid(cfg *c)
{
    kvb_model *m = &c->r->model;
    m->sliding_window = 0; /* none of these families slides its window */
    m->sliding_window_pattern = 0;
    kvb_status st = c->fam->arch == KVB_ARCH_QWEN3_NEXT  ? qwen3_next(c)
                    : c->fam->arch == KVB_ARCH_GRANITE_H ? granite_h(c)
                    : c->fam->arch == KVB_ARCH_JAMBA     ? jamba(c)
                    : c->fam->arch == KVB_ARCH_FALCON_H1 ? falcon_h1(c)
                    : c->fam->arch == KVB_ARCH_ZAMBA2    ? zamba2(c)
                                                         : nemotron_h(c);
    if (!st)
        cfg_mark(c, KVB_READ_FIELD_FLAGS, "model_type");
    return st;
}

/* ---- DeepSeek sparse attention ---- */

/*
 * DeepSeek-V3.2 (model_type deepseek_v32, DeepseekV32ForCausalLM): V3's
 * MLA + MoE plus a lightning indexer per layer, sized by index_n_heads
 * and index_head_dim; index_topk is how many tokens each query attends
 * to.  A deepseek_v32 config without them is refused by name rather than
 * read as V3, whose plan would miss the indexer's weights and cache.
 */
static kvb_status indexer(cfg *c)
{
    static const char *const keys[] = {"index_n_heads", "index_head_dim",
                                       "index_topk"};
    kvb_model *m = &c->r->model;
    uint32_t *out[] = {&m->index_n_heads, &m->index_head_dim, &m->index_topk};
    bool v32 = kvb__strcasecmp(c->r->info.arch_name, "deepseek_v32") == 0;
    for (size_t i = 0; i < KVB__ARRAY_LEN(keys); i++) {
        char key[64];
        bool found = false;
        uint64_t v = 0;
        kvb_status st = get_u64(c, c->obj, keys[i], &v, key, &found);
        if (st)
            return st;
        if (!found && v32)
            return cfg_fail(c, KVB_EPARSE, keys[i],
                            "%s is missing; allowed: the lightning "
                            "indexer's size, which deepseek_v32 needs",
                            keys[i]);
        if (found && (v == 0 || v > (1u << 24)))
            return cfg_fail(c, KVB_ERANGE, key,
                            "%s (%llu) is out of range; allowed: "
                            "1..16777216",
                            key, (unsigned long long)v);
        *out[i] = (uint32_t)v;
    }
    if (m->index_n_heads && (!m->kv_lora_rank || !m->q_lora_rank))
        return cfg_fail(c, KVB_EUNSUPPORTED, "index_n_heads",
                        "index_n_heads (%u) without MLA and a q LoRA is not "
                        "modelled; allowed: kv_lora_rank and q_lora_rank "
                        "with an indexer",
                        m->index_n_heads);
    return KVB_OK;
}

/* ---- Gemma 3n ---- */

/* A Gemma 3n key: present, an integer 1..cap; absent, Gemma3nTextConfig's
 * (or Gemma3nAudioConfig's) default. */
static kvb_status g3n_u64(cfg *c, json_t *obj, const char *key, uint64_t dflt,
                          uint64_t cap, uint64_t *out)
{
    char found_key[64];
    bool found = false;
    *out = dflt;
    kvb_status st = get_u64(c, obj, key, out, found_key, &found);
    if (st)
        return st;
    if (found && (*out > cap || (*out == 0 && dflt != 0)))
        return cfg_fail(c, KVB_ERANGE, key,
                        "%s (%llu) is out of range; allowed: 1..%llu", key,
                        (unsigned long long)*out, (unsigned long long)cap);
    return KVB_OK;
}

static kvb_status g3n_u32(cfg *c, json_t *obj, const char *key, uint64_t dflt,
                          uint32_t *out)
{
    uint64_t v = 0;
    kvb_status st = g3n_u64(c, obj, key, dflt, (uint64_t)1 << 24, &v);
    *out = (uint32_t)v;
    return st;
}

/* intermediate_size: one width, or one per layer (Gemma3nTextConfig
 * accepts both).  The published E2B and E4B give the same width for every
 * layer; a MatFormer slice with widths that differ is refused, since
 * kvb_model has one width. */
static kvb_status g3n_widths(cfg *c)
{
    kvb_model *m = &c->r->model;
    json_t *v = json_object_get(c->obj, "intermediate_size");
    if (!v || json_is_null(v))
        return model_set(c, KVB_READ_FIELD_INTERMEDIATE_SIZE, 16384, NULL);
    if (!json_is_array(v)) {
        uint64_t w = 0;
        kvb_status st = as_u64(c, "intermediate_size", v, &w);
        return st ? st
                  : model_set(c, KVB_READ_FIELD_INTERMEDIATE_SIZE, w,
                              "intermediate_size");
    }
    size_t n = json_array_size(v);
    if (n != m->num_hidden_layers)
        return cfg_fail(c, KVB_EPARSE, "intermediate_size",
                        "intermediate_size has %zu entries; allowed: one per "
                        "layer (%u) or one number",
                        n, m->num_hidden_layers);
    uint64_t first = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t w = 0;
        kvb_status st =
            as_u64(c, "intermediate_size", json_array_get(v, i), &w);
        if (st)
            return st;
        if (i == 0)
            first = w;
        else if (w != first)
            return cfg_fail(c, KVB_EUNSUPPORTED, "intermediate_size",
                            "intermediate_size[%zu] (%llu) differs from "
                            "layer 0's (%llu): per-layer MLP widths (a "
                            "MatFormer slice) are not modelled; allowed: one "
                            "width for every layer",
                            i, (unsigned long long)w,
                            (unsigned long long)first);
    }
    return model_set(c, KVB_READ_FIELD_INTERMEDIATE_SIZE, first,
                     "intermediate_size");
}

/* The language model's own keys (Gemma3nTextConfig): per-layer
 * embeddings, AltUp, LAuReL and KV sharing.  activation_sparsity_pattern,
 * altup_coef_clip and altup_active_idx change no tensor and are not read. */
static kvb_status gemma3n(cfg *c)
{
    kvb_model *m = &c->r->model;
    uint64_t v = 0;
    kvb_status st = g3n_widths(c);
    if (!st)
        st = g3n_u32(c, c->obj, "num_kv_shared_layers", 15,
                     &m->num_kv_shared_layers);
    if (!st)
        st = g3n_u32(c, c->obj, "hidden_size_per_layer_input", 256,
                     &m->hidden_size_per_layer_input);
    if (!st)
        st = g3n_u64(c, c->obj, "vocab_size_per_layer_input", 262144,
                     (uint64_t)1 << 24, &v);
    m->vocab_size_per_layer_input = v;
    if (!st)
        st = g3n_u32(c, c->obj, "altup_num_inputs", 4, &m->altup_num_inputs);
    if (!st)
        st = g3n_u32(c, c->obj, "laurel_rank", 64, &m->laurel_rank);
    if (!st && m->num_kv_shared_layers >= m->num_hidden_layers)
        return cfg_fail(c, KVB_EINVAL, "num_kv_shared_layers",
                        "num_kv_shared_layers (%u) leaves no layer of the "
                        "%u to hold the KV they share; allowed: 0..%u",
                        m->num_kv_shared_layers, m->num_hidden_layers,
                        m->num_hidden_layers - 1);
    return st;
}

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

/* Gemma3nAudioConfig's Conformer: the sizes its tensors take, and the
 * subsampling layout Gemma3nAudioSubSampleConvProjection assumes (two
 * 3x3 convs with stride 2; their frequency padding is written for it). */
static kvb_status g3n_audio(cfg *c, json_t *a)
{
    kvb_model *m = &c->r->model;
    kvb_status st = g3n_u64(c, a, "hidden_size", 1536, (uint64_t)1 << 20,
                            &m->audio_hidden_size);
    if (!st)
        st = g3n_u32(c, a, "conf_num_hidden_layers", 12, &m->audio_num_layers);
    if (!st)
        st = g3n_u32(c, a, "conf_num_attention_heads", 8, &m->audio_num_heads);
    if (!st)
        st = g3n_u32(c, a, "conf_conv_kernel_size", 5, &m->audio_conv_kernel);
    if (!st)
        st = g3n_u32(c, a, "input_feat_size", 128, &m->audio_input_features);
    if (st)
        return st;
    json_t *ch = json_object_get(a, "sscp_conv_channel_size");
    m->audio_sscp_channels_1 = 128;
    m->audio_sscp_channels_2 = 32;
    if (ch && !json_is_null(ch)) {
        if (!json_is_array(ch) || json_array_size(ch) != 2)
            return cfg_fail(c, KVB_EPARSE, "sscp_conv_channel_size",
                            "sscp_conv_channel_size is not a pair; allowed: "
                            "[c1, c2]");
        uint64_t c1 = 0, c2 = 0;
        st = as_u64(c, "sscp_conv_channel_size", json_array_get(ch, 0), &c1);
        if (!st)
            st =
                as_u64(c, "sscp_conv_channel_size", json_array_get(ch, 1), &c2);
        if (st)
            return st;
        if (!c1 || !c2 || c1 > ((uint64_t)1 << 20) || c2 > ((uint64_t)1 << 20))
            return cfg_fail(c, KVB_ERANGE, "sscp_conv_channel_size",
                            "sscp_conv_channel_size is out of range; "
                            "allowed: 1..1048576 each");
        m->audio_sscp_channels_1 = (uint32_t)c1;
        m->audio_sscp_channels_2 = (uint32_t)c2;
    }
    if (!g3n_pairs_are(a, "sscp_conv_kernel_size", 3) ||
        !g3n_pairs_are(a, "sscp_conv_stride_size", 2))
        return cfg_fail(c, KVB_EUNSUPPORTED, "sscp_conv_kernel_size",
                        "sscp_conv_kernel_size / sscp_conv_stride_size "
                        "other than [[3, 3], [3, 3]] / [[2, 2], [2, 2]] are "
                        "not modelled (the subsampler's padding is written "
                        "for them); allowed: the published layout");
    if (m->audio_hidden_size % m->audio_num_heads)
        return cfg_fail(c, KVB_EINVAL, "conf_num_attention_heads",
                        "conf_num_attention_heads (%u) does not divide "
                        "hidden_size (%llu); allowed: a divisor",
                        m->audio_num_heads,
                        (unsigned long long)m->audio_hidden_size);
    return KVB_OK;
}

/* Gemma3nVisionConfig: the timm architecture (only mobilenetv5_300m_enc
 * has a count here), its output width (the vision embedder's) and the
 * embedders' hard-token vocabulary. */
static kvb_status g3n_vision(cfg *c, json_t *v, uint64_t *vocab)
{
    kvb_model *m = &c->r->model;
    const char *arch = get_string(v, "architecture");
    json_t *args = json_object_get(v, "model_args");
    if (arch && strcmp(arch, "mobilenetv5_300m_enc") != 0)
        return cfg_fail(c, KVB_EUNSUPPORTED, "architecture",
                        "architecture (%s) is not modelled: only timm's "
                        "mobilenetv5_300m_enc has a parameter count here; "
                        "allowed: mobilenetv5_300m_enc",
                        arch);
    if (json_is_object(args) && json_object_size(args) > 0)
        return cfg_fail(c, KVB_EUNSUPPORTED, "model_args",
                        "model_args changes the timm model, whose count is "
                        "known for the published architecture only; "
                        "allowed: null or {}");
    kvb_status st = g3n_u64(c, v, "hidden_size", 2048, (uint64_t)1 << 20,
                            &m->vision_hidden_size);
    if (!st)
        st = g3n_u64(c, v, "vocab_size", 128, (uint64_t)1 << 20, vocab);
    return st;
}

/* The towers of a gemma3n config.json: the MobileNetV5 vision tower (a
 * constant from timm, said in a warning), the USM Conformer audio tower and the
 * two Gemma3nMultimodalEmbedder (model/gemma3n.c walks them). */
static kvb_status g3n_towers(cfg *c)
{
    kvb_model *m = &c->r->model;
    json_t *vision = json_object_get(c->root, "vision_config");
    json_t *audio = json_object_get(c->root, "audio_config");
    if (!json_is_object(vision) || !json_is_object(audio)) {
        kvb__read_warn(c->r, "gemma3n without vision_config and "
                             "audio_config objects: the towers are not "
                             "counted (the language model only)");
        return KVB_OK;
    }
    const char *saved = c->prefix;
    json_t *obj = c->obj;
    uint64_t vv = 0, av = 0;
    c->prefix = "vision_config";
    c->obj = vision;
    kvb_status st = g3n_vision(c, vision, &vv);
    c->prefix = "audio_config";
    c->obj = audio;
    if (!st)
        st = g3n_audio(c, audio);
    if (!st)
        st = g3n_u64(c, audio, "vocab_size", 128, (uint64_t)1 << 20, &av);
    if (!st && av != vv)
        st = cfg_fail(c, KVB_EUNSUPPORTED, "vocab_size",
                      "vocab_size (%llu) differs from vision_config's "
                      "(%llu): one embedder vocabulary is modelled; "
                      "allowed: the same for both",
                      (unsigned long long)av, (unsigned long long)vv);
    c->prefix = saved;
    c->obj = obj;
    if (st)
        return st;
    m->mm_embed_vocab_size = (uint32_t)vv;
    m->vision_kind = KVB_VISION_GEMMA3N;
    kvb__read_warn(c->r,
                   "vision_config: Gemma 3n's MobileNetV5 vision tower (timm "
                   "mobilenetv5_300m_enc) is not derived from the config; "
                   "it is counted as the 294,126,912 parameters that "
                   "timm's mobilenetv5_300m_enc definition builds, "
                   "replicated on every GPU");
    return KVB_OK;
}

/* ---- architecture ---- */

static const struct {
    const char *name;
    int32_t arch;
} extra_types[] = {
    {"RefinedWeb", KVB_ARCH_FALCON},
    {"RefinedWebModel", KVB_ARCH_FALCON},
    /* vision-language models whose language model is one of ours (the
     * towers are warned about, see towers()) */
    {"qwen2_vl", KVB_ARCH_QWEN2},
    {"qwen2_5_vl", KVB_ARCH_QWEN2},
    {"qwen2_5_vl_text", KVB_ARCH_QWEN2},
    {"qwen3_vl_text", KVB_ARCH_QWEN3},
    {"qwen3_vl_moe_text", KVB_ARCH_QWEN3_MOE},
    /* DeepseekV3ForCausalLM checkpoints under their own model_type */
    {"kimi_k2", KVB_ARCH_DEEPSEEK_V3},
    /* Granite 3.x: Llama's tensors (its multipliers change no shape) */
    {"granite", KVB_ARCH_LLAMA},
    /* Qwen3.5's language model: Qwen3-Next's Gated DeltaNet and gated
     * attention layers (in_proj_qkv + in_proj_z + in_proj_b + in_proj_a
     * hold what in_proj_qkvz + in_proj_ba hold), dense or MoE */
    {"qwen3_5_text", KVB_ARCH_QWEN3_NEXT},
    {"qwen3_5_moe_text", KVB_ARCH_QWEN3_NEXT},
    /* Llama 3.2 Vision's text_config (MllamaTextConfig) */
    {"mllama_text_model", KVB_ARCH_MLLAMA},
};

/* ---- vision towers (model/vision.c walks their tensors) ---- */

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

static kvb_status tower_u64(cfg *c, json_t *obj, const char *keys,
                            uint64_t dflt, uint64_t *out)
{
    char key[64];
    bool found = false;
    *out = dflt;
    kvb_status st = get_u64(c, obj, keys, out, key, &found);
    if (!st && !found)
        *out = dflt;
    return st;
}

static kvb_status tower_u32(cfg *c, json_t *obj, const char *keys,
                            uint64_t dflt, uint32_t *out)
{
    uint64_t v = 0;
    kvb_status st = tower_u64(c, obj, keys, dflt, &v);
    if (!st && v > UINT32_MAX)
        return cfg_fail(c, KVB_ERANGE, keys,
                        "%s (%llu) does not fit 32 bits; allowed: "
                        "0..4294967295",
                        keys, (unsigned long long)v);
    *out = (uint32_t)v;
    return st;
}

/* MllamaVisionConfig's tiles: num_global_layers (8), max_num_tiles (4),
 * supported_aspect_ratios (8 pairs: max_aspect_ratio_id) and
 * vision_output_dim (7680), the projector's input. */
static kvb_status mllama_tower(cfg *c, json_t *v)
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
        return cfg_fail(c, KVB_EPARSE, "supported_aspect_ratios",
                        "supported_aspect_ratios is %s; allowed: an array "
                        "of [rows, columns] pairs",
                        type_name(ar));
    m->vision_aspect_ratios = ar ? (uint32_t)json_array_size(ar) : 8u;
    if (!st && (!m->vision_max_tiles || !m->vision_aspect_ratios))
        return cfg_fail(c, KVB_EINVAL, "max_num_tiles",
                        "max_num_tiles (%u) and supported_aspect_ratios "
                        "(%u entries) must not be 0; allowed: > 0",
                        m->vision_max_tiles, m->vision_aspect_ratios);
    return st;
}

static kvb_status tower_read(cfg *c, const tower_keys *f, json_t *v)
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

/* The tower of a known family is read; any other tower (LLaVA's, audio
 * encoders) is warned about rather than planned as a smaller model
 * silently. */
static kvb_status towers(cfg *c)
{
    const char *type = get_string(c->root, "model_type");
    if (type && kvb__strcasecmp(type, "gemma3n") == 0)
        return g3n_towers(c);
    json_t *vision = json_object_get(c->root, "vision_config");
    for (size_t i = 0;
         type && json_is_object(vision) && i < KVB__ARRAY_LEN(tower_families);
         i++) {
        const tower_keys *f = &tower_families[i];
        if (kvb__strcasecmp(type, f->model_type) != 0)
            continue;
        c->r->model.vision_kind = f->kind;
        const char *saved = c->prefix;
        json_t *obj = c->obj;
        c->prefix = "vision_config";
        c->obj = vision;
        kvb_status st = tower_read(c, f, vision);
        c->prefix = saved;
        c->obj = obj;
        return st;
    }
    static const char *const keys[] = {"vision_config", "audio_config",
                                       "vision_tower", "speech_config"};
    for (size_t i = 0; i < KVB__ARRAY_LEN(keys); i++)
        if (json_is_object(json_object_get(c->root, keys[i])))
            kvb__read_warn(c->r,
                           "%s: the tower's weights are not counted for "
                           "model_type %s (the language model only) and "
                           "vLLM's encoder profiling is not modelled",
                           keys[i], type ? type : "(none)");
    return KVB_OK;
}

/* mllama (Llama 3.2 Vision): MllamaTextModel builds layer i as a
 * MllamaCrossAttentionDecoderLayer when i is in
 * text_config.cross_attention_layers, else as a self-attention (Llama)
 * layer (transformers models/mllama/modeling_mllama.py).  The list is
 * required: its transformers default ([3, 8, ..., 38]) fits only the 11B
 * shape, so a config without it is refused rather than guessed. */
static kvb_status cross_layers(cfg *c)
{
    kvb_model *m = &c->r->model;
    json_t *list = json_object_get(c->obj, "cross_attention_layers");
    uint32_t n = m->num_hidden_layers;
    if (!json_is_array(list) || json_array_size(list) == 0)
        return cfg_fail(c, KVB_EINVAL, "cross_attention_layers",
                        "cross_attention_layers is missing or empty; "
                        "allowed: the indices of mllama's cross-attention "
                        "layers");
    if (n >= sizeof m->layer_pattern)
        return cfg_fail(c, KVB_ELIMIT, "num_hidden_layers",
                        "num_hidden_layers (%u) exceeds %zu layers with "
                        "cross-attention; allowed: fewer layers",
                        n, sizeof m->layer_pattern - 1);
    memset(m->layer_pattern, 'A', n);
    m->layer_pattern[n] = 0;
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *e = json_array_get(list, i);
        json_int_t at = json_is_integer(e) ? json_integer_value(e) : -1;
        if (at < 0 || at >= (json_int_t)n || m->layer_pattern[at] == 'X')
            return cfg_fail(c, KVB_ERANGE, "cross_attention_layers",
                            "cross_attention_layers[%zu] is not a new layer "
                            "index; allowed: distinct integers 0..%u",
                            i, n - 1);
        m->layer_pattern[at] = 'X';
    }
    return KVB_OK;
}

/* Recurrent families whose layers are not modelled: refused by name,
 * also under KVB_READ_ASSUME_LLAMA, since a Llama-shaped reading would
 * plan their recurrent layers as attention. */
static const struct {
    const char *type, *missing;
} unmodelled[] = {
    {"zamba", "Mamba1 layers with a shared attention block"},
    {"bamba", "its attn_layer_indices layout (Mamba2 + MLP layers)"},
    {"mamba", "attention-free Mamba1 layers"},
    {"mamba2", "attention-free Mamba2 layers"},
    {"falcon_mamba", "attention-free Mamba1 layers"},
    {"lfm2", "short-convolution layers (conv_L_cache state)"},
    {"minimax", "lightning (linear) attention layers"},
    {"minimax_text_01", "lightning (linear) attention layers"},
    {"kimi_linear", "Kimi Delta Attention layers"},
    {"rwkv", "RWKV time-mix layers"},
    {"rwkv7", "RWKV time-mix layers"},
    {"plamo2", "Mamba layers"},
};

static kvb_status refuse_unmodelled(cfg *c, const char *type)
{
    for (size_t i = 0; type && i < KVB__ARRAY_LEN(unmodelled); i++)
        if (kvb__strcasecmp(type, unmodelled[i].type) == 0)
            return cfg_fail(c, KVB_EUNSUPPORTED, "model_type",
                            "model_type (%s) has recurrent layers that are "
                            "not modelled: %s; planning them as attention "
                            "would be wrong, so it is refused (also with "
                            "assume-llama)",
                            type, unmodelled[i].missing);
    return KVB_OK;
}

static kvb_status architecture(cfg *c)
{
    const char *type = get_string(c->obj, "model_type");
    const char *saved = c->prefix;
    if (!type) {
        type = get_string(c->root, "model_type");
        c->prefix = NULL;
    }
    int32_t arch = KVB_ARCH_GENERIC;
    bool known = type && kvb_arch_find(type, &arch, NULL) == KVB_OK;
    for (size_t i = 0; type && !known && i < KVB__ARRAY_LEN(extra_types); i++)
        if (kvb__strcasecmp(type, extra_types[i].name) == 0) {
            arch = extra_types[i].arch;
            known = true;
        }
    if (type)
        kvb__strlcpy(c->r->info.arch_name, type, sizeof c->r->info.arch_name);
    kvb_status bad = known ? KVB_OK : refuse_unmodelled(c, type);
    if (bad) {
        c->prefix = saved;
        return bad;
    }
    if (known) {
        cfg_mark(c, KVB_READ_FIELD_ARCH, "model_type");
        cfg_mark(c, KVB_READ_FIELD_FLAGS, "model_type");
    } else if (c->r->options & KVB_READ_ASSUME_LLAMA) {
        kvb__read_warn(c->r,
                       "model_type (%s) is not a known family; read as "
                       "a Llama-shaped decoder from the standard fields, "
                       "as asked (assume-llama): its layer kinds and "
                       "tensors may differ",
                       type ? type : "missing");
    } else {
        kvb_status st = cfg_fail(
            c, KVB_EUNSUPPORTED, "model_type",
            "model_type (%s) is not a known family: its "
            "layer kinds and tensors are unknown, so it is not planned; "
            "allowed: `kvbudget list models` families, or --assume-llama "
            "(KVB_READ_ASSUME_LLAMA) to read it as a Llama-shaped decoder",
            type ? type : "missing");
        c->prefix = saved;
        return st;
    }
    c->prefix = saved;
    c->r->model.arch = arch;
    c->fam = family_of(arch);
    return KVB_OK;
}

static void model_name(cfg *c)
{
    const char *n = get_string(c->root, "_name_or_path");
    if (c->r->model.name[0] || !n || !*n)
        return;
    const char *slash = strrchr(n, '/');
    kvb__strlcpy(c->r->model.name, slash && slash[1] ? slash + 1 : n,
                 sizeof c->r->model.name);
}

/* rope_scaling: its type ("rope_type", or the older "type"), factor and,
 * for YaRN, original_max_position_embeddings.  They set vLLM's default
 * max_model_len (docs/model.md, section 4); an unknown type with a factor
 * is kept as OTHER, since vLLM multiplies by the factor of any type but
 * su, longrope and llama3. */
static kvb_status rope_scaling(cfg *c)
{
    static const struct {
        const char *name;
        int32_t type;
    } types[] = {
        {"default", KVB_ROPE_NONE},      {"linear", KVB_ROPE_LINEAR},
        {"dynamic", KVB_ROPE_DYNAMIC},   {"yarn", KVB_ROPE_YARN},
        {"longrope", KVB_ROPE_LONGROPE}, {"su", KVB_ROPE_SU},
        {"llama3", KVB_ROPE_LLAMA3},
    };
    kvb_model *m = &c->r->model;
    json_t *rs = json_object_get(c->obj, "rope_scaling");
    m->rope_scaling_type = KVB_ROPE_NONE;
    m->rope_scaling_factor = 0.0;
    m->original_max_position_embeddings = 0;
    if (!json_is_object(rs))
        return KVB_OK; /* absent or null */
    json_t *t = json_object_get(rs, "rope_type");
    if (!json_is_string(t))
        t = json_object_get(rs, "type");
    const char *name = json_is_string(t) ? json_string_value(t) : "";
    m->rope_scaling_type = KVB_ROPE_OTHER;
    for (size_t i = 0; i < KVB__ARRAY_LEN(types); i++)
        if (strcmp(name, types[i].name) == 0)
            m->rope_scaling_type = types[i].type;
    json_t *f = json_object_get(rs, "factor");
    if (f && !json_is_null(f)) {
        double d = json_number_value(f);
        if (!json_is_number(f) || !(d > 0.0 && d <= 1024.0))
            return cfg_fail(c, KVB_ERANGE, "rope_scaling.factor",
                            "rope_scaling.factor is not a number in "
                            "(0, 1024]; allowed: a positive factor");
        m->rope_scaling_factor = d;
    }
    char key[64];
    bool found = false;
    uint64_t v = 0;
    kvb_status st =
        get_u64(c, rs, "original_max_position_embeddings", &v, key, &found);
    if (st)
        return st;
    if (v > ((uint64_t)1 << 32))
        return cfg_fail(c, KVB_ERANGE,
                        "rope_scaling.original_max_position_embeddings",
                        "rope_scaling.original_max_position_embeddings "
                        "(%llu) is out of range; allowed: 0..%llu",
                        (unsigned long long)v, (unsigned long long)1 << 32);
    m->original_max_position_embeddings = found ? v : 0;
    return KVB_OK;
}

static kvb_status read_model(cfg *c)
{
    kvb_status st = architecture(c);
    if (!st)
        st = read_standard(c);
    if (!st)
        family_defaults(c);
    if (!st && c->fam->arch == KVB_ARCH_GEMMA3N)
        st = gemma3n(c);
    if (!st)
        st = quirks(c);
    if (!st)
        st = experts(c);
    if (!st)
        st = require(c);
    if (!st && is_hybrid(c))
        st = hybrid(c);
    else if (!st)
        st = sliding(c);
    if (!st && c->fam->arch == KVB_ARCH_MLLAMA)
        st = cross_layers(c);
    if (!st && c->fam->arch == KVB_ARCH_LLAMA4)
        st = chunking(c);
    else
        c->r->model.attention_chunk_size = 0;
    if (!st)
        st = tie(c);
    if (!st && c->fam->arch == KVB_ARCH_DEEPSEEK_V3)
        st = indexer(c);
    if (!st)
        st = rope_scaling(c);
    if (!st)
        dtype(c);
    if (!st)
        st = towers(c);
    model_name(c);
    return st;
}

kvb_status kvb__config_read(kvb__reader *r, const char *json, size_t len)
{
    json_t *root = NULL;
    if (len > KVB_READ_MAX_JSON_BYTES)
        return kvb__read_fail(r, KVB_ELIMIT, "config", -1, -1,
                              (int64_t)KVB_READ_MAX_JSON_BYTES,
                              "config (%zu bytes) exceeds the %u-byte limit",
                              len, KVB_READ_MAX_JSON_BYTES);
    kvb_status st = kvb__json_load(r, json, len, 0, "config",
                                   KVB__JSON_MAX_CONFIG_TOKENS, &root);
    if (st)
        return st;
    cfg c = {r, root, root, NULL, &families[0]};
    if (!json_is_object(root)) {
        st = kvb__json_fail(r, KVB_EPARSE, NULL, 0, "config",
                            "config is %s; allowed: a JSON object",
                            type_name(root));
    } else {
        static const char *const nested[] = {"text_config", "language_config",
                                             "llm_config"};
        for (size_t i = 0; i < KVB__ARRAY_LEN(nested) && !c.prefix; i++) {
            json_t *text = json_object_get(root, nested[i]);
            if (json_is_object(text)) {
                c.obj = text;
                c.prefix = nested[i];
            }
        }
        st = read_model(&c);
        if (!st)
            st = kvb__quant_config_read(r, root, c.prefix ? c.obj : NULL,
                                        c.prefix);
    }
    json_decref(root);
    r->json = NULL;
    return st;
}
