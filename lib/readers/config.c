/*
 * readers/config.c -- a Hugging Face config.json into kvb_model and
 * kvb_quant, the way lib/presets/models.c fills its rows: head_dim only
 * when the config states it; intermediate_size is the dense MLP width;
 * sliding_window_pattern p means layer i is global iff (i+1) % p == 0, 0
 * that every layer slides.  Multimodal configs keep the language model in
 * text_config (language_config, llm_config); quantization_config is at
 * the top or, failing that, in the nested object.  A model_type not known
 * here is refused unless the caller asks for the Llama-shaped reading
 * (KVB_READ_ASSUME_LLAMA).
 *
 * This file is the driver and the keys every family spells alike; what
 * tells one family from another is its row in config_families.c
 * (config.h says which file reads what).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

/* ---- the standard fields ---- */

typedef struct slot {
    int field;
    size_t offset, size; /* in kvb_model */
    size_t spelling;     /* offsetof the family's spelling (kvb__spellings) */
    size_t dflt;         /* offsetof its default (kvb__shape) */
    const char *keys;    /* spellings, most common first; NULL: not read
                          * unless the family's row spells it */
} slot;

#define SLOT(F, member, keys)                                                  \
    {                                                                          \
        KVB_READ_FIELD_##F, offsetof(kvb_model, member),                       \
            sizeof(((kvb_model *)0)->member),                                  \
            offsetof(kvb__spellings, member), offsetof(kvb__shape, member),    \
            keys                                                               \
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
    SLOT(ATTENTION_CHUNK_SIZE, attention_chunk_size, NULL), /* Llama 4's */
    SLOT(SLIDING_WINDOW, sliding_window, "sliding_window"),
};

static const slot *slot_of(int field)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(standard); i++)
        if (standard[i].field == field)
            return &standard[i];
    return NULL;
}

/* The family's own spelling of a field: NULL (the standard one), "" (not
 * read here) or its keys. */
static const char *spelling(const kvb__cfg *c, const slot *s)
{
    const char *k;
    memcpy(&k, (const char *)&c->fam->keys + s->spelling, sizeof k);
    return k;
}

/* The spellings the family reads a field under (NULL: not read here). */
static const char *keys_read(const kvb__cfg *c, const slot *s)
{
    const char *k = spelling(c, s);
    return !k ? s->keys : *k ? k : NULL;
}

/* The spellings to name in messages: the family's, else the standard. */
static const char *keys_named(const kvb__cfg *c, const slot *s)
{
    const char *keys = keys_read(c, s);
    return keys ? keys : s->keys ? s->keys : "";
}

static uint64_t model_get(const kvb__cfg *c, int field)
{
    const slot *s = slot_of(field);
    return kvb__load_uint(&c->r->model, s->offset, s->size);
}

kvb_status kvb__cfg_set(kvb__cfg *c, int field, uint64_t value, const char *key)
{
    if (!kvb__model_field_set(&c->r->model, field, value))
        return kvb__cfg_fail(c, KVB_ERANGE, key ? key : "model_type",
                             "%s (%llu) does not fit 32 bits; allowed: "
                             "0..4294967295",
                             key ? key : "a family default",
                             (unsigned long long)value);
    if (key)
        kvb__cfg_mark(c, field, key);
    return KVB_OK;
}

bool kvb__cfg_has(const kvb__cfg *c, int field)
{
    return (c->r->info.fields_from_file >> field) & 1u;
}

static kvb_status read_standard(kvb__cfg *c)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(standard); i++) {
        char key[64];
        bool found = false;
        uint64_t v = 0;
        const char *keys = keys_read(c, &standard[i]);
        if (!keys)
            continue;
        kvb_status st = kvb__cfg_u64(c, c->obj, keys, &v, key, &found);
        if (!st && found)
            st = kvb__cfg_set(c, standard[i].field, v, key);
        if (st)
            return st;
    }
    return KVB_OK;
}

/* The configuration class's defaults, for keys the config leaves out
 * entirely (an explicit null is transformers' None, not its default). */
static void family_defaults(kvb__cfg *c)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(standard); i++) {
        const slot *s = &standard[i];
        uint64_t v = kvb__load_uint(&c->fam->defaults, s->dflt, sizeof v);
        if (!v || kvb__cfg_has(c, s->field) ||
            !kvb__cfg_absent(c->obj, keys_named(c, s)))
            continue;
        KVB__CANNOT_FAIL(kvb__cfg_set(c, s->field, v, NULL));
    }
}

/* The fields without which there is no model to plan. */
static kvb_status require(kvb__cfg *c)
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
        if (kvb__cfg_has(c, needed[i]) || model_get(c, needed[i]) != 0)
            continue;
        if (needed[i] == KVB_READ_FIELD_INTERMEDIATE_SIZE &&
            c->r->model.num_experts) /* all-MoE models may omit it */
            continue;
        char first[64];
        const char *keys = keys_named(c, slot_of(needed[i]));
        size_t n = strcspn(keys, ",");
        snprintf(first, sizeof first, "%.*s", (int)n, keys);
        return kvb__cfg_fail(c, KVB_EPARSE, first,
                             "%s is missing (spellings read: %s); the config "
                             "must give it",
                             first, keys);
    }
    return KVB_OK;
}

/* ---- flags ---- */

static kvb_status refuse(kvb__cfg *c, const kvb__key_rule *k, const char *v)
{
    char key[64];
    size_t n = strcspn(k->keys, ",");
    if (!kvb__cfg_lookup(c->obj, k->keys, key, sizeof key))
        snprintf(key, sizeof key, "%.*s", (int)n, k->keys);
    return kvb__cfg_fail(c, KVB_EUNSUPPORTED, key,
                         "%s (%s) is not modelled: %s; allowed: %s", key, v,
                         k->why,
                         k->how == KVB__REFUSE_PRESENT ? "absent or null"
                         : k->dflt                     ? "true"
                                                       : "false");
}

/* One key rule applied to *flags. */
static kvb_status key_rule(kvb__cfg *c, const kvb__key_rule *k, uint32_t *flags)
{
    char key[64];
    if (k->how == KVB__REFUSE_PRESENT)
        return kvb__cfg_lookup(c->obj, k->keys, key, sizeof key)
                   ? refuse(c, k, "present")
                   : KVB_OK;
    bool v = k->dflt;
    kvb_status st = kvb__cfg_bool(c, c->obj, k->keys, k->dflt, &v);
    if (st)
        return st;
    switch (k->how) {
    case KVB__SET_IF_TRUE: *flags |= v ? k->flags : 0u; break;
    case KVB__SET_IF_FALSE: *flags |= v ? 0u : k->flags; break;
    case KVB__CLEAR_IF_TRUE: *flags &= v ? ~k->flags : ~0u; break;
    case KVB__CLEAR_IF_FALSE: *flags &= v ? ~0u : ~k->flags; break;
    case KVB__REFUSE_TRUE: return v ? refuse(c, k, "true") : KVB_OK;
    default: return v ? KVB_OK : refuse(c, k, "false");
    }
    return KVB_OK;
}

static kvb_status apply(kvb__cfg *c, const kvb__key_rule *rules,
                        uint32_t *flags)
{
    kvb_status st = KVB_OK;
    for (const kvb__key_rule *k = rules; !st && k && k->keys; k++)
        st = key_rule(c, k, flags);
    return st;
}

/* A recurrent family's Mamba mixer: the one every published Granite-4.0-H,
 * Jamba, Nemotron-H, Falcon-H1 and Zamba2 checkpoint has (a conv1d bias,
 * no projection biases) is the only one the inventory holds. */
static kvb_status mixer(kvb__cfg *c, uint32_t *flags)
{
    static const char why[] = "the inventory holds the Mamba mixer every "
                              "published checkpoint has (a conv1d bias, no "
                              "projection biases)";
    const kvb__mixer_keys *k = &c->fam->mixer;
    const kvb__key_rule rules[] = {
        {k->conv_bias, KVB__REFUSE_FALSE, true, 0, why},
        {k->proj_bias, KVB__REFUSE_TRUE, false, 0, why},
        {NULL, 0, false, 0, NULL},
    };
    return k->conv_bias ? apply(c, rules, flags) : KVB_OK;
}

/* The family's flags, then what its keys turn on or off. */
static kvb_status flags(kvb__cfg *c)
{
    uint32_t f = c->fam->flags;
    kvb_status st =
        c->fam->own_rules ? KVB_OK : apply(c, kvb__standard_rules, &f);
    if (!st)
        st = mixer(c, &f);
    if (!st)
        st = apply(c, c->fam->rules, &f);
    const char *topk = kvb__cfg_string(c->obj, "topk_method");
    if (topk && strcmp(topk, "noaux_tc") == 0)
        f |= KVB_MODEL_ROUTER_SCORE_BIAS; /* e_score_correction_bias */
    c->r->model.flags = f;
    return st;
}

/* What the family's row derives from the fields read: the MLP width as a
 * multiple of hidden_size (Falcon), learned positions (OPT's offset of 2)
 * and, as transformers does, one KV head per head unless told. */
static kvb_status derived(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    const kvb__family *f = c->fam;
    if (f->width_mult && !m->intermediate_size &&
        !kvb__mul_ok(m->hidden_size, f->width_mult, &m->intermediate_size))
        return kvb__cfg_fail(c, KVB_EOVERFLOW, "hidden_size",
                             "hidden_size (%llu) x %u overflows 64 bits",
                             (unsigned long long)m->hidden_size, f->width_mult);
    if (f->pos_offset && m->max_position_embeddings) {
        m->position_embedding_rows = m->max_position_embeddings + f->pos_offset;
        kvb__cfg_mark(c, KVB_READ_FIELD_POSITION_EMBEDDING_ROWS,
                      "max_position_embeddings");
    }
    if (!kvb__cfg_has(c, KVB_READ_FIELD_NUM_KEY_VALUE_HEADS) &&
        !m->num_key_value_heads)
        m->num_key_value_heads = m->num_attention_heads;
    return KVB_OK;
}

/* ---- mixture of experts ---- */

static kvb_status moe_step(kvb__cfg *c)
{
    char key[64];
    bool found = false;
    uint64_t v = 0;
    kvb_status st =
        kvb__cfg_u64(c, c->obj, "interleave_moe_layer_step,decoder_sparse_step",
                     &v, key, &found);
    if (!st && found) /* 1: every layer, which the model writes as 0 */
        st =
            kvb__cfg_set(c, KVB_READ_FIELD_MOE_LAYER_STEP, v <= 1 ? 0 : v, key);
    if (!st)
        st = kvb__cfg_u64(c, c->obj, "moe_layer_freq", &v, key, &found);
    if (!st && found && v > 1)
        return kvb__cfg_fail(c, KVB_EUNSUPPORTED, key,
                             "%s (%llu) is not supported; allowed: 1", key,
                             (unsigned long long)v);
    json_t *only = json_object_get(c->obj, "mlp_only_layers");
    if (!st && json_array_size(only) > 0)
        return kvb__cfg_fail(c, KVB_EUNSUPPORTED, "mlp_only_layers",
                             "mlp_only_layers lists dense layers among MoE "
                             "layers; allowed: []");
    return st;
}

static kvb_status experts(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    kvb_status st = moe_step(c);
    if (st || m->num_experts == 0)
        return st;
    /* Mixtral and gpt-oss give the expert width as intermediate_size. */
    if (!kvb__cfg_has(c, KVB_READ_FIELD_MOE_INTERMEDIATE_SIZE)) {
        m->moe_intermediate_size = m->intermediate_size;
        c->r->info.fields_from_file |= (uint64_t)1
                                       << KVB_READ_FIELD_MOE_INTERMEDIATE_SIZE;
    }
    m->flags |= c->fam->moe_flags;
    if (c->fam->shared_experts)
        m->num_shared_experts = c->fam->shared_experts;
    if (m->shared_expert_intermediate_size && !m->num_shared_experts)
        m->num_shared_experts = 1; /* Qwen MoE: one gated shared expert */
    return KVB_OK;
}

/* ---- the rest every family shares ---- */

static kvb_status tie(kvb__cfg *c)
{
    bool t = c->fam->tied != 0;
    json_t *obj =
        json_object_get(c->obj, "tie_word_embeddings") ? c->obj : c->root;
    const char *saved = c->prefix;
    if (obj == c->root)
        c->prefix = NULL;
    kvb_status st = kvb__cfg_bool(c, obj, "tie_word_embeddings", t, &t);
    if (!st && json_object_get(obj, "tie_word_embeddings"))
        kvb__cfg_mark(c, KVB_READ_FIELD_TIE_WORD_EMBEDDINGS,
                      "tie_word_embeddings");
    c->prefix = saved;
    c->r->model.tie_word_embeddings = t;
    return st;
}

static void dtype(kvb__cfg *c)
{
    const char *keys[] = {"torch_dtype", "dtype"};
    json_t *objs[] = {c->obj, c->root};
    for (size_t o = 0; o < 2; o++) {
        for (size_t k = 0; k < 2; k++) {
            const char *name = kvb__cfg_string(objs[o], keys[k]);
            int32_t d = 0;
            if (!name)
                continue;
            if (kvb_dtype_find(name, &d, NULL) == KVB_OK &&
                d != KVB_DTYPE_FP8 && d != KVB_DTYPE_AUTO) {
                const char *saved = c->prefix;
                c->prefix = o ? NULL : saved;
                c->r->model.dtype = d;
                kvb__cfg_mark(c, KVB_READ_FIELD_DTYPE, keys[k]);
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

static void model_name(kvb__cfg *c)
{
    const char *n = kvb__cfg_string(c->root, "_name_or_path");
    if (c->r->model.name[0] || !n || !*n)
        return;
    const char *slash = strrchr(n, '/');
    kvb__strlcpy(c->r->model.name, slash && slash[1] ? slash + 1 : n,
                 sizeof c->r->model.name);
}

static int32_t rope_type(const json_t *rs)
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
    json_t *t = json_object_get(rs, "rope_type");
    if (!json_is_string(t))
        t = json_object_get(rs, "type");
    const char *name = json_is_string(t) ? json_string_value(t) : "";
    for (size_t i = 0; i < KVB__ARRAY_LEN(types); i++)
        if (strcmp(name, types[i].name) == 0)
            return types[i].type;
    return KVB_ROPE_OTHER;
}

/* rope_scaling: its type ("rope_type", or the older "type"), factor and,
 * for YaRN, original_max_position_embeddings.  They set vLLM's default
 * max_model_len (docs/model.md, section 4); an unknown type with a factor
 * is kept as OTHER, since vLLM multiplies by the factor of any type but
 * su, longrope and llama3. */
static kvb_status rope_scaling(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    json_t *rs = json_object_get(c->obj, "rope_scaling");
    m->rope_scaling_type = KVB_ROPE_NONE;
    m->rope_scaling_factor = 0.0;
    m->original_max_position_embeddings = 0;
    if (!json_is_object(rs))
        return KVB_OK; /* absent or null */
    m->rope_scaling_type = rope_type(rs);
    json_t *f = json_object_get(rs, "factor");
    if (f && !json_is_null(f)) {
        double d = json_number_value(f);
        if (!json_is_number(f) || !(d > 0.0 && d <= 1024.0))
            return kvb__cfg_fail(c, KVB_ERANGE, "rope_scaling.factor",
                                 "rope_scaling.factor is not a number in "
                                 "(0, 1024]; allowed: a positive factor");
        m->rope_scaling_factor = d;
    }
    char key[64];
    bool found = false;
    uint64_t v = 0;
    kvb_status st = kvb__cfg_u64(c, rs, "original_max_position_embeddings", &v,
                                 key, &found);
    if (st)
        return st;
    if (v > ((uint64_t)1 << 32))
        return kvb__cfg_fail(
            c, KVB_ERANGE, "rope_scaling.original_max_position_embeddings",
            "rope_scaling.original_max_position_embeddings "
            "(%llu) is out of range; allowed: 0..%llu",
            (unsigned long long)v, (unsigned long long)1 << 32);
    m->original_max_position_embeddings = found ? v : 0;
    return KVB_OK;
}

/* ---- the family ---- */

static kvb_status unknown(kvb__cfg *c, const char *type)
{
    kvb_status st = kvb__cfg_refuse_unmodelled(c, type);
    if (st)
        return st;
    if (c->r->options & KVB_READ_ASSUME_LLAMA) {
        kvb__read_warn(c->r,
                       "model_type (%s) is not a known family; read as "
                       "a Llama-shaped decoder from the standard fields, "
                       "as asked (assume-llama): its layer kinds and "
                       "tensors may differ",
                       type ? type : "missing");
        return KVB_OK;
    }
    return kvb__cfg_fail(
        c, KVB_EUNSUPPORTED, "model_type",
        "model_type (%s) is not a known family: its "
        "layer kinds and tensors are unknown, so it is not planned; "
        "allowed: `kvbudget list models` families, or --assume-llama "
        "(KVB_READ_ASSUME_LLAMA) to read it as a Llama-shaped decoder",
        type ? type : "missing");
}

/* model_type, from the language model's object or the top level; its row
 * (the generic one for an unknown type read as Llama-shaped). */
static kvb_status architecture(kvb__cfg *c)
{
    const char *type = kvb__cfg_string(c->obj, "model_type");
    const char *saved = c->prefix;
    if (!type) {
        type = kvb__cfg_string(c->root, "model_type");
        c->prefix = NULL;
    }
    const kvb__family *fam = type ? kvb__family_find(type) : NULL;
    if (type)
        kvb__strlcpy(c->r->info.arch_name, type, sizeof c->r->info.arch_name);
    kvb_status st = fam ? KVB_OK : unknown(c, type);
    if (fam) {
        kvb__cfg_mark(c, KVB_READ_FIELD_ARCH, "model_type");
        kvb__cfg_mark(c, KVB_READ_FIELD_FLAGS, "model_type");
    }
    c->prefix = saved;
    c->fam = fam ? fam : kvb__family_of(KVB_ARCH_GENERIC);
    c->r->model.arch = c->fam->arch;
    return st;
}

/* The fields every family has, then the family's own. */
static kvb_status read_fields(kvb__cfg *c)
{
    kvb_status st = read_standard(c);
    if (!st)
        family_defaults(c);
    if (!st)
        st = flags(c);
    if (!st && c->fam->early)
        st = c->fam->early(c);
    if (!st)
        st = derived(c);
    if (!st)
        st = experts(c);
    if (!st)
        st = require(c);
    return st;
}

/* Which layers are what: attention layers and their windows, or a
 * recurrent family's kinds; the family's own arithmetic; a recurrent
 * family's sizes. */
static kvb_status read_layout(kvb__cfg *c)
{
    kvb_status st = c->fam->ssm ? kvb__cfg_hybrid(c) : kvb__cfg_sliding(c);
    if (!st && c->fam->late)
        st = c->fam->late(c);
    if (!st && c->fam->ssm)
        st = kvb__cfg_recurrent(c);
    if (!st && c->fam->ssm)
        kvb__cfg_mark(c, KVB_READ_FIELD_FLAGS, "model_type");
    return st;
}

static kvb_status read_model(kvb__cfg *c)
{
    kvb_status st = architecture(c);
    if (!st)
        st = read_fields(c);
    if (!st)
        st = read_layout(c);
    if (!st)
        st = tie(c);
    if (!st)
        st = rope_scaling(c);
    if (!st)
        dtype(c);
    if (!st)
        st = kvb__cfg_towers(c);
    model_name(c);
    return st;
}

kvb_status kvb__config_read(kvb__reader *r, const char *json, size_t len)
{
    static const char *const nested[] = {"text_config", "language_config",
                                         "llm_config"};
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
    kvb__cfg c = {r, root, root, NULL, kvb__family_of(KVB_ARCH_GENERIC)};
    if (!json_is_object(root)) {
        st = kvb__json_fail(r, KVB_EPARSE, NULL, 0, "config",
                            "config is %s; allowed: a JSON object",
                            kvb__cfg_type_name(root));
    } else {
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
