/*
 * readers/config_attention.c -- which attention layers slide their
 * window (sliding_window, sliding_window_pattern, layer_types), which
 * chunk it (Llama 4) and which attend across to the image (mllama).
 * A layer pattern is a period p: layer i is global iff (i + 1) % p == 0,
 * 0 when no layer is.
 */
#include "config.h"

#include <string.h>

/* The period p of a per-layer list of global layers; `what` names the
 * list for errors. */
static kvb_status pattern_of(kvb__cfg *c, const bool *global, size_t n,
                             const char *what, uint32_t *p)
{
    size_t first = n;
    for (size_t i = 0; i < n && first == n; i++)
        if (global[i])
            first = i;
    *p = first == n ? 0 : (uint32_t)(first + 1);
    for (size_t i = 0; i < n; i++)
        if (global[i] != (*p != 0 && (i + 1) % *p == 0))
            return kvb__cfg_fail(c, KVB_EUNSUPPORTED, what,
                                 "%s: layer %zu breaks the period %u that the "
                                 "first global layer sets; allowed: a global "
                                 "layer every p layers",
                                 what, i, *p);
    return KVB_OK;
}

/* A per-layer list's length: one entry per layer, at most `cap`. */
static kvb_status per_layer(kvb__cfg *c, const char *key, size_t n, size_t cap)
{
    uint32_t layers = c->r->model.num_hidden_layers;
    if (n > cap)
        return kvb__cfg_fail(c, KVB_ERANGE, key,
                             "%s has %zu entries; allowed: at most %zu layers",
                             key, n, cap);
    if (n != layers)
        return kvb__cfg_fail(c, KVB_EPARSE, key,
                             "%s has %zu entries; allowed: one per layer (%u)",
                             key, n, layers);
    return KVB_OK;
}

/* layer_types: "sliding_attention" / "full_attention" per layer. */
static kvb_status layer_types(kvb__cfg *c, json_t *list, uint32_t *pattern,
                              bool *any_sliding)
{
    bool global[1024];
    size_t n = json_array_size(list);
    kvb_status st = per_layer(c, "layer_types", n, KVB__ARRAY_LEN(global));
    if (st)
        return st;
    *any_sliding = false;
    for (size_t i = 0; i < n; i++) {
        const char *t = json_string_value(json_array_get(list, i));
        if (t && strcmp(t, "full_attention") == 0) {
            global[i] = true;
        } else if (t && strcmp(t, "sliding_attention") == 0) {
            global[i] = false;
            *any_sliding = true;
        } else {
            return kvb__cfg_fail(c, KVB_EUNSUPPORTED, "layer_types",
                                 "layer_types[%zu] (%s) is not supported; "
                                 "allowed: sliding_attention, full_attention",
                                 i, t ? t : "not a string");
        }
    }
    return pattern_of(c, global, n, "layer_types", pattern);
}

/* A layer pattern given as a number (sliding_window_pattern,
 * no_rope_layer_interval): when present it replaces *pattern. */
static kvb_status number_pattern(kvb__cfg *c, const char *keys, int field,
                                 uint32_t *pattern)
{
    char key[64];
    bool found = false;
    uint64_t v = 0;
    kvb_status st = kvb__cfg_u64(c, c->obj, keys, &v, key, &found);
    if (st || !found)
        return st;
    if (v > UINT32_MAX)
        return kvb__cfg_fail(c, KVB_ERANGE, key,
                             "%s (%llu) does not fit 32 bits; allowed: "
                             "0..1024",
                             key, (unsigned long long)v);
    *pattern = (uint32_t)v;
    kvb__cfg_mark(c, field, key);
    return KVB_OK;
}

/* Qwen2's classes: the window only with use_sliding_window, and then on
 * every layer (max_window_layers at or past the last layer). */
static kvb_status window_gate(kvb__cfg *c, uint64_t *window)
{
    bool use = false;
    kvb_status st = kvb__cfg_bool(c, c->obj, "use_sliding_window", false, &use);
    if (st || !use) {
        *window = 0; /* vLLM ignores the window unless it is switched on */
        return st;
    }
    char key[64];
    bool found = false;
    uint64_t mwl = 0;
    st = kvb__cfg_u64(c, c->obj, "max_window_layers", &mwl, key, &found);
    if (st || !found || mwl == 0)
        return st;
    if (mwl >= c->r->model.num_hidden_layers) {
        *window = 0;
        return KVB_OK;
    }
    return kvb__cfg_fail(c, KVB_EUNSUPPORTED, "max_window_layers",
                         "max_window_layers (%llu) slides only the layers "
                         "after it; allowed: 0 or at least num_hidden_layers",
                         (unsigned long long)mwl);
}

kvb_status kvb__cfg_sliding(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    uint64_t window = m->sliding_window;
    kvb_status st = KVB_OK;
    if (c->fam->window == KVB__WINDOW_GATED)
        st = window_gate(c, &window);
    json_t *types = json_object_get(c->obj, "layer_types");
    uint32_t pattern = c->fam->pattern;
    bool any = true;
    if (!st && json_is_array(types)) {
        st = layer_types(c, types, &pattern, &any);
        if (!st)
            kvb__cfg_mark(c, KVB_READ_FIELD_SLIDING_WINDOW_PATTERN,
                          "layer_types");
    } else if (!st) {
        st = number_pattern(c, "sliding_window_pattern",
                            KVB_READ_FIELD_SLIDING_WINDOW_PATTERN, &pattern);
    }
    if (st)
        return st;
    if (any && json_is_array(types) && window == 0)
        return kvb__cfg_fail(c, KVB_EPARSE, "sliding_window",
                             "layer_types names sliding layers but "
                             "sliding_window is missing");
    m->sliding_window = any ? window : 0;
    m->sliding_window_pattern = m->sliding_window ? pattern : 0;
    return KVB_OK;
}

/* Llama 4: chunked attention on RoPE layers, global on NoPE layers
 * (no_rope_layers[i] == 0), by default every 4th layer. */
kvb_status kvb__cfg_llama4_chunks(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    json_t *nope = json_object_get(c->obj, "no_rope_layers");
    uint32_t pattern = 4;
    kvb_status st = KVB_OK;
    if (json_is_array(nope) && json_array_size(nope) > 0) {
        bool global[1024];
        size_t n = json_array_size(nope);
        st = per_layer(c, "no_rope_layers", n, KVB__ARRAY_LEN(global));
        if (st)
            return st;
        for (size_t i = 0; i < n; i++)
            global[i] = json_is_integer(json_array_get(nope, i)) &&
                        json_integer_value(json_array_get(nope, i)) == 0;
        st = pattern_of(c, global, n, "no_rope_layers", &pattern);
        if (!st)
            kvb__cfg_mark(c, KVB_READ_FIELD_ATTENTION_CHUNK_PATTERN,
                          "no_rope_layers");
    } else {
        st = number_pattern(c, "no_rope_layer_interval",
                            KVB_READ_FIELD_ATTENTION_CHUNK_PATTERN, &pattern);
    }
    m->attention_chunk_pattern = m->attention_chunk_size ? pattern : 0;
    return st;
}

/* mllama (Llama 3.2 Vision): MllamaTextModel builds layer i as a
 * MllamaCrossAttentionDecoderLayer when i is in
 * text_config.cross_attention_layers, else as a self-attention (Llama)
 * layer (transformers models/mllama/modeling_mllama.py).  The list is
 * required: its transformers default ([3, 8, ..., 38]) fits only the 11B
 * shape, so a config without it is refused rather than guessed. */
kvb_status kvb__cfg_mllama_cross(kvb__cfg *c)
{
    kvb_model *m = &c->r->model;
    json_t *list = json_object_get(c->obj, "cross_attention_layers");
    uint32_t n = m->num_hidden_layers;
    if (!json_is_array(list) || json_array_size(list) == 0)
        return kvb__cfg_fail(c, KVB_EINVAL, "cross_attention_layers",
                             "cross_attention_layers is missing or empty; "
                             "allowed: the indices of mllama's "
                             "cross-attention layers");
    if (n >= sizeof m->layer_pattern)
        return kvb__cfg_fail(c, KVB_ELIMIT, "num_hidden_layers",
                             "num_hidden_layers (%u) exceeds %zu layers with "
                             "cross-attention; allowed: fewer layers",
                             n, sizeof m->layer_pattern - 1);
    memset(m->layer_pattern, 'A', n);
    m->layer_pattern[n] = 0;
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *e = json_array_get(list, i);
        json_int_t at = json_is_integer(e) ? json_integer_value(e) : -1;
        if (at < 0 || at >= (json_int_t)n || m->layer_pattern[at] == 'X')
            return kvb__cfg_fail(c, KVB_ERANGE, "cross_attention_layers",
                                 "cross_attention_layers[%zu] is not a new "
                                 "layer index; allowed: distinct integers "
                                 "0..%u",
                                 i, n - 1);
        m->layer_pattern[at] = 'X';
    }
    return KVB_OK;
}
