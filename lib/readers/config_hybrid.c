/*
 * readers/config_hybrid.c -- the recurrent families: the kind of each
 * layer (kvb_model.layer_pattern) by the rule of the family's row, the
 * recurrent sizes by the row's spellings, then the arithmetic a row
 * cannot say: Granite-4.0-H's "auto" head width, Jamba's periods and
 * Mamba1 width, Falcon-H1's mixer width, Zamba2's shared blocks.
 */
#include "config.h"

#include <string.h>

/* ---- layer kinds by rule ---- */

/* The letter of `name` among the comma-separated `names`, or 0. */
static char letter_of(const char *names, const char *letters, const char *name)
{
    size_t len = strlen(name);
    for (size_t k = 0; *names; k++) {
        size_t n = strcspn(names, ",");
        if (n == len && strncmp(names, name, n) == 0)
            return letters[k];
        names += n + (names[n] == ',');
    }
    return 0;
}

/* LIST: one name per layer. */
static kvb_status from_list(kvb__cfg *c, const kvb__layer_rule *r)
{
    kvb_model *m = &c->r->model;
    json_t *list = json_object_get(c->obj, r->key);
    size_t n = json_array_size(list);
    if (n != m->num_hidden_layers)
        return kvb__cfg_fail(c, KVB_EPARSE, r->key,
                             "%s has %zu entries; allowed: one per layer (%u)",
                             r->key, n, m->num_hidden_layers);
    for (size_t i = 0; i < n; i++) {
        const char *t = json_string_value(json_array_get(list, i));
        char kind = t ? letter_of(r->names, r->letters, t) : 0;
        if (!kind)
            return kvb__cfg_fail(c, KVB_EUNSUPPORTED, r->key,
                                 "%s[%zu] (%s) is not a layer kind modelled "
                                 "here; allowed: %s",
                                 r->key, i, t ? t : "not a string", r->names);
        m->layer_pattern[i] = kind;
    }
    return KVB_OK;
}

/* LETTERS: a string of layer_pattern letters. */
static kvb_status from_letters(kvb__cfg *c, const kvb__layer_rule *r)
{
    kvb_model *m = &c->r->model;
    const char *s = kvb__cfg_string(c->obj, r->key);
    size_t n = strlen(s);
    if (n != m->num_hidden_layers)
        return kvb__cfg_fail(c, KVB_EPARSE, r->key,
                             "%s has %zu blocks but num_hidden_layers is %u; "
                             "allowed: one per layer",
                             r->key, n, m->num_hidden_layers);
    for (size_t i = 0; i < n; i++)
        if (!strchr(r->letters, s[i]))
            return kvb__cfg_fail(c, KVB_EUNSUPPORTED, r->key,
                                 "%s[%zu] ('%c') is not a block kind; "
                                 "allowed: %s",
                                 r->key, i, s[i], r->letters);
    memcpy(m->layer_pattern, s, n);
    return KVB_OK;
}

/* EVERY: every n-th layer is letters[0], the others letters[1]. */
static kvb_status from_every(kvb__cfg *c, const kvb__layer_rule *r)
{
    kvb_model *m = &c->r->model;
    char key[64];
    bool found = false;
    uint64_t every = 0;
    kvb_status st = kvb__cfg_u64(c, c->obj, r->key, &every, key, &found);
    if (!st && every == 0)
        return kvb__cfg_fail(c, KVB_EPARSE, r->key,
                             "%s is 0; allowed: a layer interval of 1 or more",
                             r->key);
    for (uint32_t i = 0; !st && i < m->num_hidden_layers; i++)
        m->layer_pattern[i] = r->letters[(i + 1) % every == 0 ? 0 : 1];
    return st;
}

/* Whether a rule's key is there to read. */
static bool given(const kvb__cfg *c, const kvb__layer_rule *r)
{
    json_t *v = r->key ? json_object_get(c->obj, r->key) : NULL;
    switch (r->how) {
    case KVB__LAYERS_LIST: return json_is_array(v);
    case KVB__LAYERS_LETTERS: return json_is_string(v);
    case KVB__LAYERS_EVERY: return v && !json_is_null(v);
    default: return true;
    }
}

static kvb_status by_rule(kvb__cfg *c, const kvb__layer_rule *r)
{
    kvb_model *m = &c->r->model;
    switch (r->how) {
    case KVB__LAYERS_LIST: return from_list(c, r);
    case KVB__LAYERS_LETTERS: return from_letters(c, r);
    case KVB__LAYERS_EVERY: return from_every(c, r);
    default: memset(m->layer_pattern, r->letters[0], m->num_hidden_layers);
    }
    return KVB_OK;
}

/* The first rule whose key the config gives; none is an error naming the
 * first rule's key. */
static kvb_status layer_kinds(kvb__cfg *c, const kvb__layer_rule *rules)
{
    kvb_model *m = &c->r->model;
    for (const kvb__layer_rule *r = rules; r->letters; r++)
        if (given(c, r)) {
            kvb_status st = by_rule(c, r);
            m->layer_pattern[st ? 0 : m->num_hidden_layers] = '\0';
            return st;
        }
    return kvb__cfg_fail(c, KVB_EPARSE, rules[0].key,
                         "%s%s%s is missing; the kind of each layer must be "
                         "given",
                         rules[0].key, rules[1].letters ? " (or " : "",
                         rules[1].letters ? rules[1].key : "");
}

/* mamba_ssm_cache_dtype and its like: the temporal state's dtype. */
static void state_dtype(kvb__cfg *c)
{
    const char *name = c->fam->state_dtype_key
                           ? kvb__cfg_string(c->obj, c->fam->state_dtype_key)
                           : NULL;
    int32_t d = KVB_DTYPE_AUTO;
    if (name && kvb_dtype_find(name, &d, NULL) == KVB_OK && d != KVB_DTYPE_FP8)
        c->r->model.ssm_state_dtype = d;
}

kvb_status kvb__cfg_hybrid(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    m->sliding_window = 0; /* none of these families slides its window */
    m->sliding_window_pattern = 0;
    if (m->num_hidden_layers >= sizeof m->layer_pattern)
        return kvb__cfg_fail(c, KVB_ERANGE, "num_hidden_layers",
                             "num_hidden_layers (%u) is too many for a "
                             "hybrid; allowed: at most %zu",
                             m->num_hidden_layers, sizeof m->layer_pattern - 1);
    return c->fam->layers ? layer_kinds(c, c->fam->layers) : KVB_OK;
}

kvb_status kvb__cfg_recurrent(kvb__cfg *c)
{
    kvb_status st = kvb__cfg_sizes(c, c->obj, c->fam->ssm);
    if (!st && c->fam->ssm_head)
        st = c->fam->ssm_head(c);
    if (!st)
        state_dtype(c);
    return st;
}

/* ---- Granite-4.0-H ---- */

/* mamba_d_head as a number, which the config must give. */
static kvb_status head_dim(kvb__cfg *c, kvb_model *m)
{
    uint64_t v = 0;
    kvb_status st = kvb__cfg_size(c, c->obj, "mamba_d_head", 0, 65536, &v);
    m->ssm_head_dim = (uint32_t)v;
    return st;
}

/* mamba_d_head: a number, or "auto" for mamba_expand x hidden_size /
 * mamba_n_heads (GraniteMoeHybridConfig). */
kvb_status kvb__cfg_granite_head(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    const char *v = kvb__cfg_string(c->obj, "mamba_d_head");
    if (!v || strcmp(v, "auto") != 0)
        return head_dim(c, m);
    char key[64];
    bool found = false;
    uint64_t expand = 0;
    kvb_status st =
        kvb__cfg_u64(c, c->obj, "mamba_expand", &expand, key, &found);
    if (!st && (!found || expand * m->hidden_size % m->ssm_num_heads))
        return kvb__cfg_fail(c, KVB_EPARSE, "mamba_d_head",
                             "mamba_d_head is \"auto\" but mamba_expand x "
                             "hidden_size is missing or not a multiple of "
                             "mamba_n_heads (%u)",
                             m->ssm_num_heads);
    if (!st)
        m->ssm_head_dim =
            (uint32_t)(expand * m->hidden_size / m->ssm_num_heads);
    return st;
}

/* Without experts, the shared MLP is the layer's dense MLP. */
kvb_status kvb__cfg_granite_h(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    if (m->num_experts == 0 && m->shared_expert_intermediate_size) {
        m->intermediate_size = m->shared_expert_intermediate_size;
        m->shared_expert_intermediate_size = 0;
        m->num_shared_experts = 0;
    }
    return KVB_OK;
}

/* ---- Jamba ---- */

/* A required count of Jamba's config, 0..4096. */
static kvb_status jamba_u32(kvb__cfg *c, const char *key, uint32_t *out)
{
    char k[64];
    bool found = false;
    uint64_t v = 0;
    kvb_status st = kvb__cfg_u64(c, c->obj, key, &v, k, &found);
    if (!st && (!found || v > 4096))
        return kvb__cfg_fail(c, found ? KVB_ERANGE : KVB_EPARSE, key,
                             "%s is %s; allowed: 0..4096", key,
                             found ? "out of range" : "missing");
    *out = (uint32_t)v;
    return st;
}

/* The Mamba1 width: dt_rank must be the "auto" ceil(hidden / 16) every
 * AI21 checkpoint writes (configuration_jamba.py), d_inner is
 * mamba_expand x hidden_size, one channel per head. */
static kvb_status jamba_mamba(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    uint32_t rank = (uint32_t)((m->hidden_size + 15) / 16), dt = rank;
    const char *auto_rank = kvb__cfg_string(c->obj, "mamba_dt_rank");
    kvb_status st = KVB_OK;
    if (!(auto_rank && strcmp(auto_rank, "auto") == 0))
        st = jamba_u32(c, "mamba_dt_rank", &dt);
    if (!st && dt != rank)
        return kvb__cfg_fail(c, KVB_EUNSUPPORTED, "mamba_dt_rank",
                             "mamba_dt_rank (%u) is not modelled; allowed: "
                             "ceil(hidden_size / 16) = %u",
                             dt, rank);
    uint32_t expand = 0;
    if (!st)
        st = jamba_u32(c, "mamba_expand", &expand);
    uint64_t inner = (uint64_t)expand * m->hidden_size;
    if (!st && (inner == 0 || inner > 65536))
        return kvb__cfg_fail(c, KVB_ERANGE, "mamba_expand",
                             "mamba_expand x hidden_size (%llu) is out of "
                             "range; allowed: 1..65536 (d_inner)",
                             (unsigned long long)inner);
    m->ssm_num_heads = (uint32_t)inner;
    m->ssm_head_dim = 1;
    m->ssm_n_groups = 1;
    return st;
}

/* The periods: layer i is attention when i % attn_layer_period ==
 * attn_layer_offset, else Mamba1 ('S'); the experts follow when i %
 * expert_layer_period == expert_layer_offset and num_experts > 1.  The
 * model's MoE rule is (i + 1) % step == 0, so the offset must be period -
 * 1 (1 of 2 in every AI21 checkpoint). */
static kvb_status jamba_periods(kvb__cfg *c, uint32_t *ap, uint32_t *ao,
                                uint32_t *ep)
{
    uint32_t eo = 0;
    kvb_status st = jamba_u32(c, "attn_layer_period", ap);
    if (!st)
        st = jamba_u32(c, "attn_layer_offset", ao);
    if (!st)
        st = jamba_u32(c, "expert_layer_period", ep);
    if (!st)
        st = jamba_u32(c, "expert_layer_offset", &eo);
    if (!st && (*ap == 0 || *ao >= *ap || *ep == 0 || eo >= *ep))
        return kvb__cfg_fail(c, KVB_ERANGE,
                             *ap == 0 || *ao >= *ap ? "attn_layer_offset"
                                                    : "expert_layer_offset",
                             "a layer period of 0 or an offset not below it "
                             "(attention %u of %u, experts %u of %u); "
                             "allowed: offset < period",
                             *ao, *ap, eo, *ep);
    if (!st && c->r->model.num_experts > 1 && eo != *ep - 1)
        return kvb__cfg_fail(c, KVB_EUNSUPPORTED, "expert_layer_offset",
                             "expert_layer_offset (%u) with "
                             "expert_layer_period (%u) is not modelled; "
                             "allowed: period - 1",
                             eo, *ep);
    return st;
}

/* Jamba (configuration_jamba.py, modeling_jamba.py; vLLM jamba.py). */
kvb_status kvb__cfg_jamba(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    uint32_t ap = 0, ao = 0, ep = 0;
    kvb_status st = jamba_periods(c, &ap, &ao, &ep);
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

/* ---- Falcon-H1 ---- */

/* The mixer's width: mamba_d_ssm, or mamba_expand x hidden_size when it
 * is null (configuration_falcon_h1.py __post_init__). */
static kvb_status falcon_h1_inner(kvb__cfg *c, uint64_t *inner)
{
    char key[64];
    bool found = false;
    uint64_t expand = 0;
    json_t *d = json_object_get(c->obj, "mamba_d_ssm");
    kvb_status st = KVB_OK;
    *inner = 0;
    if (d && !json_is_null(d)) {
        st = kvb__cfg_u64(c, c->obj, "mamba_d_ssm", inner, key, &found);
    } else {
        st = kvb__cfg_u64(c, c->obj, "mamba_expand", &expand, key, &found);
        *inner = found && expand <= 64 ? expand * c->r->model.hidden_size : 0;
    }
    if (!st && (*inner == 0 || *inner > ((uint64_t)1 << 20)))
        return kvb__cfg_fail(c, KVB_ERANGE, "mamba_d_ssm",
                             "mamba_d_ssm (or mamba_expand x hidden_size) is "
                             "missing or out of range; allowed: 1..1048576");
    return st;
}

/* mamba_d_head "auto" is the width over mamba_n_heads, and heads x
 * head_dim must equal the width (FalconH1Config's validate_architecture). */
kvb_status kvb__cfg_falcon_h1_head(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    uint64_t inner = 0;
    kvb_status st = falcon_h1_inner(c, &inner);
    const char *v = kvb__cfg_string(c->obj, "mamba_d_head");
    if (!st && v && strcmp(v, "auto") == 0)
        m->ssm_head_dim = (uint32_t)(inner / m->ssm_num_heads);
    else if (!st)
        st = head_dim(c, m);
    if (!st && (uint64_t)m->ssm_head_dim * m->ssm_num_heads != inner)
        return kvb__cfg_fail(c, KVB_EINVAL, "mamba_d_head",
                             "mamba_n_heads x mamba_d_head (%u x %u) is not "
                             "mamba_d_ssm (%llu); allowed: equal, as "
                             "transformers requires",
                             m->ssm_num_heads, m->ssm_head_dim,
                             (unsigned long long)inner);
    return st;
}

/* ---- Zamba2 ---- */

/* Zamba2's Mamba2 head width (configuration_zamba2.py): mamba_headdim =
 * mamba_expand x hidden_size / n_mamba_heads, which the published configs
 * also write out. */
kvb_status kvb__cfg_zamba2_head(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    uint64_t expand = 0, head = 0;
    kvb_status st = kvb__cfg_size(c, c->obj, "mamba_expand", 2, 64, &expand);
    uint64_t inner = expand * m->hidden_size;
    if (!st && inner % m->ssm_num_heads)
        return kvb__cfg_fail(c, KVB_EPARSE, "n_mamba_heads",
                             "n_mamba_heads (%u) does not divide mamba_expand "
                             "x hidden_size (%llu); allowed: a divisor",
                             m->ssm_num_heads, (unsigned long long)inner);
    if (!st)
        st = kvb__cfg_size(c, c->obj, "mamba_headdim", inner / m->ssm_num_heads,
                           65536, &head);
    if (!st && head * m->ssm_num_heads != inner)
        return kvb__cfg_fail(c, KVB_EPARSE, "mamba_headdim",
                             "mamba_headdim (%llu) x n_mamba_heads (%u) is "
                             "not mamba_expand x hidden_size (%llu); allowed: "
                             "equal",
                             (unsigned long long)head, m->ssm_num_heads,
                             (unsigned long long)inner);
    m->ssm_head_dim = (uint32_t)head;
    return st;
}

/* hybrid_layer_ids, when the config writes it, must name the "hybrid"
 * entries of layers_block_type (Zamba2Config derives it from them). */
static kvb_status zamba2_ids(kvb__cfg *c)
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
            return kvb__cfg_fail(c, KVB_EPARSE, "hybrid_layer_ids",
                                 "hybrid_layer_ids disagrees with "
                                 "layers_block_type at layer %u; allowed: the "
                                 "indices of its \"hybrid\" entries",
                                 i);
    }
    if (k != json_array_size(ids))
        return kvb__cfg_fail(c, KVB_EPARSE, "hybrid_layer_ids",
                             "hybrid_layer_ids has %zu entries, "
                             "layers_block_type %zu hybrid layers; allowed: "
                             "equal",
                             json_array_size(ids), k);
    return KVB_OK;
}

/* The num_mem_blocks shared blocks are cycled over the hybrid layers; the
 * first num_mem_blocks hybrid layers store them ('Z'), the rest reuse
 * them ('z'). */
static kvb_status zamba2_blocks(kvb__cfg *c)
{
    static const kvb__sized sizes[] = {
        KVB__SIZED("num_mem_blocks", shared_blocks, 1, 256),
        KVB__SIZED("adapter_rank", adapter_rank, 128, 65536),
        {NULL, 0, 0, 0, 0},
    };
    kvb_model *m = &c->r->model;
    kvb_status st = kvb__cfg_sizes(c, c->obj, sizes);
    uint32_t seen = 0;
    for (uint32_t i = 0; !st && i < m->num_hidden_layers; i++)
        if (m->layer_pattern[i] == 'Z' && seen++ >= m->shared_blocks)
            m->layer_pattern[i] = 'z';
    if (!st && seen < m->shared_blocks)
        return kvb__cfg_fail(c, KVB_EUNSUPPORTED, "num_mem_blocks",
                             "num_mem_blocks (%u) exceeds the hybrid layers "
                             "(%u): a block never used is not modelled; "
                             "allowed: at most the hybrid layers",
                             m->shared_blocks, seen);
    return st;
}

/*
 * Zamba2: the attention input is concat(hidden, embeddings), so its
 * head_dim is 2 x hidden_size / num_attention_heads (attention_head_dim,
 * which Zamba2Config computes whatever the file says); use_long_context
 * sets 16384 positions.  The pre-transformers configs (layers_block_type
 * "m"/"g", lora_rank) are refused by the row's layer rule: transformers
 * does not read them.
 */
kvb_status kvb__cfg_zamba2(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    bool long_ctx = false;
    kvb_status st = zamba2_ids(c);
    if (!st)
        st = zamba2_blocks(c);
    if (!st && (!m->num_attention_heads ||
                (2 * m->hidden_size) % m->num_attention_heads))
        return kvb__cfg_fail(c, KVB_EPARSE, "num_attention_heads",
                             "num_attention_heads (%u) does not divide 2 x "
                             "hidden_size (%llu), Zamba2's attention width; "
                             "allowed: a divisor",
                             m->num_attention_heads,
                             (unsigned long long)(2 * m->hidden_size));
    if (!st)
        m->head_dim = (uint32_t)(2 * m->hidden_size / m->num_attention_heads);
    if (!st)
        st = kvb__cfg_bool(c, c->obj, "use_long_context", false, &long_ctx);
    if (long_ctx)
        m->max_position_embeddings = 16384;
    return st;
}
