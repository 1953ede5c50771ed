/*
 * readers/config_quirks.c -- the arithmetic of attention families that a
 * row of config_families.c cannot say: Falcon's KV heads, OPT's embedding
 * projection, DeepSeek-V3.2's lightning indexer and Gemma 3n's per-layer
 * keys.
 */
#include "config.h"

#include <string.h>

/* Falcon (FalconConfig): one KV head with multi_query (the default); with
 * new_decoder_architecture or without multi_query, num_kv_heads (or
 * n_head_kv), else one per head. */
kvb_status kvb__cfg_falcon_heads(kvb__cfg *c)
{
    bool nda = false, mq = true;
    kvb_status st =
        kvb__cfg_bool(c, c->obj, "new_decoder_architecture", false, &nda);
    if (!st)
        st = kvb__cfg_bool(c, c->obj, "multi_query", true, &mq);
    char key[64];
    bool found = false;
    uint64_t v = 0;
    if (!st && (nda || !mq))
        st = kvb__cfg_u64(c, c->obj, "num_kv_heads,n_head_kv", &v, key, &found);
    if (!st && found)
        st = kvb__cfg_set(c, KVB_READ_FIELD_NUM_KEY_VALUE_HEADS, v, key);
    else if (!st && !nda && mq)
        c->r->model.num_key_value_heads = 1;
    return st;
}

/* OPT: an embedding narrower than the model has project_in/out layers,
 * which the inventory does not hold. */
kvb_status kvb__cfg_opt_projection(kvb__cfg *c)
{
    const kvb_model *m = &c->r->model;
    char key[64];
    bool found = false;
    uint64_t v = 0;
    kvb_status st =
        kvb__cfg_u64(c, c->obj, "word_embed_proj_dim", &v, key, &found);
    if (!st && found && v != m->hidden_size)
        return kvb__cfg_fail(c, KVB_EUNSUPPORTED, key,
                             "%s (%llu) differs from hidden_size (%llu): the "
                             "project_in/out layers are not modelled",
                             key, (unsigned long long)v,
                             (unsigned long long)m->hidden_size);
    return st;
}

/*
 * DeepSeek-V3.2 (model_type deepseek_v32, DeepseekV32ForCausalLM): V3's
 * MLA + MoE plus a lightning indexer per layer, sized by index_n_heads
 * and index_head_dim; index_topk is how many tokens each query attends
 * to.  A deepseek_v32 config without them is refused by name rather than
 * read as V3, whose plan would miss the indexer's weights and cache.
 * Other DeepSeek configs may carry the keys; they are read the same way.
 */
kvb_status kvb__cfg_deepseek_indexer(kvb__cfg *c)
{
    static const char *const keys[] = {"index_n_heads", "index_head_dim",
                                       "index_topk"};
    kvb_model *m = &c->r->model;
    uint32_t *out[] = {&m->index_n_heads, &m->index_head_dim, &m->index_topk};
    bool v32 = kvb__strcasecmp(c->r->info.arch_name, "deepseek_v32") == 0;
    for (size_t i = 0; i < KVB__ARRAY_LEN(keys); i++) {
        char found[64];
        uint64_t v = 0;
        if (!v32 && !kvb__cfg_lookup(c->obj, keys[i], found, sizeof found))
            continue;
        kvb_status st =
            kvb__cfg_size(c, c->obj, keys[i], 0, (uint64_t)1 << 24, &v);
        if (st)
            return st;
        *out[i] = (uint32_t)v;
    }
    if (m->index_n_heads && (!m->kv_lora_rank || !m->q_lora_rank))
        return kvb__cfg_fail(c, KVB_EUNSUPPORTED, "index_n_heads",
                             "index_n_heads (%u) without MLA and a q LoRA is "
                             "not modelled; allowed: kv_lora_rank and "
                             "q_lora_rank with an indexer",
                             m->index_n_heads);
    return KVB_OK;
}

/* ---- Gemma 3n ---- */

/* intermediate_size: one width, or one per layer (Gemma3nTextConfig
 * accepts both).  The published E2B and E4B give the same width for every
 * layer; a MatFormer slice with widths that differ is refused, since
 * kvb_model has one width. */
static kvb_status g3n_widths(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    json_t *v = json_object_get(c->obj, "intermediate_size");
    uint64_t first = 0;
    if (!v || json_is_null(v))
        return kvb__cfg_set(c, KVB_READ_FIELD_INTERMEDIATE_SIZE, 16384, NULL);
    if (!json_is_array(v)) {
        kvb_status st = kvb__cfg_as_u64(c, "intermediate_size", v, &first);
        return st ? st
                  : kvb__cfg_set(c, KVB_READ_FIELD_INTERMEDIATE_SIZE, first,
                                 "intermediate_size");
    }
    size_t n = json_array_size(v);
    if (n != m->num_hidden_layers)
        return kvb__cfg_fail(c, KVB_EPARSE, "intermediate_size",
                             "intermediate_size has %zu entries; allowed: one "
                             "per layer (%u) or one number",
                             n, m->num_hidden_layers);
    for (size_t i = 0; i < n; i++) {
        uint64_t w = 0;
        kvb_status st =
            kvb__cfg_as_u64(c, "intermediate_size", json_array_get(v, i), &w);
        if (st)
            return st;
        if (i > 0 && w != first)
            return kvb__cfg_fail(
                c, KVB_EUNSUPPORTED, "intermediate_size",
                "intermediate_size[%zu] (%llu) differs from layer 0's "
                "(%llu): per-layer MLP widths (a MatFormer slice) are not "
                "modelled; allowed: one width for every layer",
                i, (unsigned long long)w, (unsigned long long)first);
        first = w;
    }
    return kvb__cfg_set(c, KVB_READ_FIELD_INTERMEDIATE_SIZE, first,
                        "intermediate_size");
}

/* The language model's own keys (Gemma3nTextConfig and its defaults):
 * per-layer embeddings, AltUp, LAuReL and KV sharing.
 * activation_sparsity_pattern, altup_coef_clip and altup_active_idx
 * change no tensor and are not read. */
static const kvb__sized g3n_text[] = {
    KVB__SIZED("num_kv_shared_layers", num_kv_shared_layers, 15, 1u << 24),
    KVB__SIZED("hidden_size_per_layer_input", hidden_size_per_layer_input, 256,
               1u << 24),
    KVB__SIZED("vocab_size_per_layer_input", vocab_size_per_layer_input, 262144,
               1u << 24),
    KVB__SIZED("altup_num_inputs", altup_num_inputs, 4, 1u << 24),
    KVB__SIZED("laurel_rank", laurel_rank, 64, 1u << 24),
    {NULL, 0, 0, 0, 0},
};

kvb_status kvb__cfg_gemma3n_text(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    kvb_status st = g3n_widths(c);
    if (!st)
        st = kvb__cfg_sizes(c, c->obj, g3n_text);
    if (!st && m->num_kv_shared_layers >= m->num_hidden_layers)
        return kvb__cfg_fail(c, KVB_EINVAL, "num_kv_shared_layers",
                             "num_kv_shared_layers (%u) leaves no layer of the "
                             "%u to hold the KV they share; allowed: 0..%u",
                             m->num_kv_shared_layers, m->num_hidden_layers,
                             m->num_hidden_layers - 1);
    return st;
}
