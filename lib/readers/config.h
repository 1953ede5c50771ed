/*
 * readers/config.h -- internal declarations of the config.json reader,
 * shared by its files (and the white-box tests/unit/test_config_families.c),
 * included by nothing else:
 *
 *   config.c           the driver: the order of the stages, the standard
 *                      keys every family spells alike, experts, ties,
 *                      dtype, rope scaling;
 *   config_values.c    one value at a time: lookups by spelling, types,
 *                      ranges, errors that point into the file;
 *   config_families.c  the families as data: one row per family naming
 *                      its model_types, arch, key spellings, defaults,
 *                      flags, flag keys, layer rule and recurrent sizes
 *                      (llama.cpp's llama-arch tables play this part);
 *   config_attention.c which attention layers slide, chunk or cross-attend;
 *   config_hybrid.c    the recurrent families' layer kinds and sizes;
 *   config_quirks.c    arithmetic that is one family's own (Falcon's KV
 *                      heads, OPT's projection, DeepSeek-V3.2's indexer,
 *                      Gemma 3n's per-layer keys);
 *   config_towers.c    vision and audio towers.
 *
 * A family whose modelling code adds nothing new is a row of
 * config_families.c and nothing else; a hook (early, late, ssm_head) holds
 * only the arithmetic a row cannot say.
 */
#ifndef KVB_READERS_CONFIG_H
#define KVB_READERS_CONFIG_H

#include "internal.h"

#include <jansson.h>

/* A list written in a row, ended by a zero entry. */
#define KVB__LIST(T, ...) ((const T[]){__VA_ARGS__, {0}})

/* ---- the config being read ---- */

typedef struct kvb__family kvb__family;

typedef struct kvb__cfg {
    kvb__reader *r;
    json_t *root;       /* the whole file */
    json_t *obj;        /* the part being read: the language model (root or
                         * text_config) or a tower's object */
    const char *prefix; /* obj's key ("text_config"), NULL at the top */
    const kvb__family *fam;
} kvb__cfg;

/* ---- the family table (config_families.c) ---- */

/* What a key rule does with a true-or-false key (kvb__key_rule.how). */
enum {
    KVB__SET_IF_TRUE,    /* flags |= rule flags when true */
    KVB__SET_IF_FALSE,   /* flags |= rule flags when false */
    KVB__CLEAR_IF_TRUE,  /* flags &= ~rule flags when true */
    KVB__CLEAR_IF_FALSE, /* flags &= ~rule flags when false */
    KVB__REFUSE_TRUE,    /* true is not modelled: refused, saying why */
    KVB__REFUSE_FALSE,   /* false is not modelled */
    KVB__REFUSE_PRESENT, /* any value but null is not modelled */
};

/* A config key that turns a KVB_MODEL_* flag on or off, or that must keep
 * the value the model's tensors are counted for. */
typedef struct kvb__key_rule {
    const char *keys; /* spellings, most common first; NULL ends a list */
    int32_t how;      /* KVB__SET_IF_TRUE ... */
    bool dflt;        /* the configuration class's value when absent */
    uint32_t flags;
    const char *why; /* refusals: what is not modelled */
} kvb__key_rule;

/* The kvb_model fields every family may give, as members of the same
 * names: a family's own spellings of their keys and its configuration
 * class's defaults (config.c reads them for every family). */
#define KVB__STANDARD_FIELDS(X)                                                \
    X(num_hidden_layers)                                                       \
    X(hidden_size)                                                             \
    X(num_attention_heads)                                                     \
    X(num_key_value_heads)                                                     \
    X(head_dim)                                                                \
    X(intermediate_size)                                                       \
    X(vocab_size)                                                              \
    X(max_position_embeddings)                                                 \
    X(num_experts)                                                             \
    X(num_experts_per_tok)                                                     \
    X(moe_intermediate_size)                                                   \
    X(num_shared_experts)                                                      \
    X(shared_expert_intermediate_size)                                         \
    X(first_k_dense_replace)                                                   \
    X(kv_lora_rank)                                                            \
    X(q_lora_rank)                                                             \
    X(qk_rope_head_dim)                                                        \
    X(qk_nope_head_dim)                                                        \
    X(v_head_dim)                                                              \
    X(attention_chunk_size)                                                    \
    X(sliding_window)

/* A family's spellings of standard keys, most common first (NULL: the
 * standard ones; "": not read, the family's hook reads it or it has no
 * such key). */
#define KVB__SPELLING(member) const char *member;
typedef struct kvb__spellings {
    KVB__STANDARD_FIELDS(KVB__SPELLING)
} kvb__spellings;
#undef KVB__SPELLING

/* What a family's configuration class fills when the config has no
 * spelling of a key at all (0: nothing). */
#define KVB__DEFAULT(member) uint64_t member;
typedef struct kvb__shape {
    KVB__STANDARD_FIELDS(KVB__DEFAULT)
} kvb__shape;
#undef KVB__DEFAULT

/* The Mamba mixer keys of a recurrent family: the conv1d bias (which must
 * be true) and the projection biases (which must be false). */
typedef struct kvb__mixer_keys {
    const char *conv_bias, *proj_bias;
} kvb__mixer_keys;

/* How a recurrent family's config gives the kind of each layer. */
enum {
    KVB__LAYERS_LIST,    /* key: one name per layer, names[k] -> letters[k] */
    KVB__LAYERS_LETTERS, /* key: a string of layer_pattern letters */
    KVB__LAYERS_EVERY,   /* key: n; layer i is letters[0] iff (i + 1) % n
                          * == 0, else letters[1] */
    KVB__LAYERS_ALL,     /* every layer is letters[0]; no key */
};

typedef struct kvb__layer_rule {
    int32_t how;
    const char *key;
    const char *names;   /* LIST: the accepted values, comma-separated */
    const char *letters; /* see above; NULL ends a list */
} kvb__layer_rule;

/* A size read into a kvb_model field: the spellings, the configuration
 * class's default (0: the config must give it) and the largest value
 * modelled (values are 1..max). */
typedef struct kvb__sized {
    const char *keys; /* NULL ends a list */
    size_t offset, size;
    uint64_t dflt, max;
} kvb__sized;

#define KVB__SIZED(keys, member, dflt, max)                                    \
    {                                                                          \
        keys, offsetof(kvb_model, member), sizeof(((kvb_model *)0)->member),   \
            dflt, max                                                          \
    }

/* What the attention layers do with a sliding window (kvb__family.window). */
enum {
    KVB__WINDOW_PLAIN, /* sliding_window (and layer_types) as written */
    KVB__WINDOW_GATED, /* only with use_sliding_window (Qwen2's classes) */
};

typedef kvb_status (*kvb__cfg_hook)(kvb__cfg *c);

/*
 * One family: everything that tells its config apart from a Llama's.
 * Whatever a row leaves out is a Llama's: the standard spellings, no
 * defaults, attention_bias and mlp_bias as LlamaConfig reads them,
 * attention layers only.  A row with recurrent sizes (ssm) is a hybrid:
 * no sliding window, its layer kinds from `layers` (or its late hook),
 * its sizes from `ssm`.
 */
struct kvb__family {
    const char *types; /* its model_types, comma-separated; the first is
                        * kvb_arch_name()'s */
    int32_t arch;
    uint32_t flags;          /* implied by the family's modelling code */
    uint32_t moe_flags;      /* added when the model has experts */
    uint32_t tied;           /* tie_word_embeddings when the config omits it */
    uint32_t pattern;        /* sliding_window_pattern when omitted */
    int32_t window;          /* KVB__WINDOW_* */
    uint32_t shared_experts; /* shared experts the config does not count */
    uint32_t width_mult;     /* no intermediate_size: width_mult x hidden */
    uint32_t pos_offset;     /* learned positions: max_position_embeddings
                              * + pos_offset rows (0: rotary) */
    kvb__spellings keys;     /* keys it spells its own way */
    kvb__shape defaults;     /* its configuration class's defaults */
    bool own_rules;          /* attention_bias and mlp_bias are not
                              * LlamaConfig's: `rules` says what they mean */
    const kvb__key_rule *rules; /* keys that set, clear or must keep flags */
    kvb__mixer_keys mixer;      /* a recurrent family's mixer biases */
    const kvb__layer_rule *layers;
    const kvb__sized *ssm;       /* the recurrent sizes, in reading order */
    const char *state_dtype_key; /* the temporal state's dtype */
    kvb__cfg_hook early;         /* arithmetic on the fields read, before the
                                  * required ones are checked */
    kvb__cfg_hook late;          /* arithmetic on the layout: after the layer
                                  * kinds, before the recurrent sizes */
    kvb__cfg_hook ssm_head;      /* the recurrent head width's own rule, after
                                  * the sizes */
};

/* The row of a model_type (case-insensitive), or NULL. */
const kvb__family *kvb__family_find(const char *model_type);
/* The first row of an arch; the generic row when there is none. */
const kvb__family *kvb__family_of(int32_t arch);
/* attention_bias and mlp_bias as LlamaConfig reads them. */
extern const kvb__key_rule kvb__standard_rules[];
/* Refuse a model_type whose recurrent layers are not modelled; KVB_OK for
 * any other. */
kvb_status kvb__cfg_refuse_unmodelled(kvb__cfg *c, const char *type);

/* ---- one value (config_values.c) ---- */

kvb_status kvb__cfg_fail(kvb__cfg *c, kvb_status st, const char *key,
                         const char *fmt, ...) KVB__PRINTF(4, 5);
/* Record that `field` came from `key` of c->obj, with its position. */
void kvb__cfg_mark(kvb__cfg *c, int field, const char *key);
/* The first of the comma-separated spellings present and not null; its
 * spelling in found[cap]. */
json_t *kvb__cfg_lookup(json_t *obj, const char *keys, char *found, size_t cap);
/* True when no spelling is present at all (an explicit null is present:
 * transformers' None, not its default). */
bool kvb__cfg_absent(json_t *obj, const char *keys);
const char *kvb__cfg_type_name(const json_t *v);
kvb_status kvb__cfg_as_u64(kvb__cfg *c, const char *key, const json_t *v,
                           uint64_t *out);
/* Unsigned integer at obj[keys]; *found false when absent or null. */
kvb_status kvb__cfg_u64(kvb__cfg *c, json_t *obj, const char *keys,
                        uint64_t *out, char *key, bool *found);
kvb_status kvb__cfg_bool(kvb__cfg *c, json_t *obj, const char *keys, bool dflt,
                         bool *out);
const char *kvb__cfg_string(json_t *obj, const char *key);
/* One size at obj[keys]: present, 1..max; absent, dflt, or refused by
 * name when dflt is 0 (the configuration class has no default). */
kvb_status kvb__cfg_size(kvb__cfg *c, json_t *obj, const char *keys,
                         uint64_t dflt, uint64_t max, uint64_t *out);
/* Read a list of sizes from obj into c->r->model. */
kvb_status kvb__cfg_sizes(kvb__cfg *c, json_t *obj, const kvb__sized *list);

/* ---- standard fields (config.c) ---- */

/* Store v in the kvb_model integer field of KVB_READ_FIELD_* `field`,
 * marking it as read from `key` (NULL: a family's rule set it). */
kvb_status kvb__cfg_set(kvb__cfg *c, int field, uint64_t v, const char *key);
bool kvb__cfg_has(const kvb__cfg *c, int field);

/* ---- layouts (config_attention.c, config_hybrid.c) ---- */

/* Attention families: which layers slide their window. */
kvb_status kvb__cfg_sliding(kvb__cfg *c);
/* Recurrent families: the layer kinds by the row's rule (no window). */
kvb_status kvb__cfg_hybrid(kvb__cfg *c);
/* Recurrent families: the sizes, the head width, the state's dtype. */
kvb_status kvb__cfg_recurrent(kvb__cfg *c);

/* ---- the hooks rows name ---- */

kvb_status kvb__cfg_llama4_chunks(kvb__cfg *c);    /* config_attention.c */
kvb_status kvb__cfg_mllama_cross(kvb__cfg *c);     /* config_attention.c */
kvb_status kvb__cfg_granite_h(kvb__cfg *c);        /* config_hybrid.c */
kvb_status kvb__cfg_granite_head(kvb__cfg *c);     /* config_hybrid.c */
kvb_status kvb__cfg_jamba(kvb__cfg *c);            /* config_hybrid.c */
kvb_status kvb__cfg_falcon_h1_head(kvb__cfg *c);   /* config_hybrid.c */
kvb_status kvb__cfg_zamba2(kvb__cfg *c);           /* config_hybrid.c */
kvb_status kvb__cfg_zamba2_head(kvb__cfg *c);      /* config_hybrid.c */
kvb_status kvb__cfg_falcon_heads(kvb__cfg *c);     /* config_quirks.c */
kvb_status kvb__cfg_opt_projection(kvb__cfg *c);   /* config_quirks.c */
kvb_status kvb__cfg_deepseek_indexer(kvb__cfg *c); /* config_quirks.c */
kvb_status kvb__cfg_gemma3n_text(kvb__cfg *c);     /* config_quirks.c */

/* ---- towers (config_towers.c) ---- */

/* The vision (and audio) towers of a multimodal config.json. */
kvb_status kvb__cfg_towers(kvb__cfg *c);

#endif
