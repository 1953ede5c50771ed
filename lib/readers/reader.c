/*
 * readers/reader.c -- the state every reader shares: names of the fields a
 * file can set, warnings, where each field came from, failures with a
 * position in the file, and the final validation and copy-out.  The format
 * readers (config, safetensors, GGUF) call it; files.c, the front door that
 * dispatches to them, sits above, so no reader calls back up.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- names ---- */

static const char *const field_names[] = {
#define KVB__READ_FIELD_NAME(name, num, text) [num] = text,
    KVB_READ_FIELD_MAP(KVB__READ_FIELD_NAME)
#undef KVB__READ_FIELD_NAME
};

const char *kvb_read_field_name(unsigned field)
{
    return field < KVB_READ_FIELD_LAST_ ? field_names[field] : NULL;
}

const char *kvb_format_name(int format)
{
    switch (format) {
    case KVB_FORMAT_NONE: return "none";
    case KVB_FORMAT_CONFIG_JSON: return "config.json";
    case KVB_FORMAT_SAFETENSORS: return "safetensors";
    case KVB_FORMAT_GGUF: return "gguf";
    case KVB_FORMAT_DIRECTORY: return "directory";
    case KVB_FORMAT_SAFETENSORS_INDEX: return "safetensors-index";
    default: return NULL;
    }
}

kvb_status kvb_read_info_init(kvb_read_info *info, size_t struct_size)
{
    return kvb__struct_init(info, struct_size, sizeof *info, "read_info");
}

/* ---- the shared reader state ---- */

void kvb__reader_source(kvb__reader *r, const char *source)
{
    size_t n = strlen(source), cap = sizeof r->source;
    if (n < cap) {
        memcpy(r->source, source, n + 1);
        return;
    }
    /* Keep the tail: the file name says more than the mount point. */
    memcpy(r->source, "...", 3);
    memcpy(r->source + 3, source + n - (cap - 4), cap - 3);
}

void kvb__reader_init(kvb__reader *r, const char *source, kvb_error *err)
{
    memset(r, 0, sizeof *r);
    KVB__CANNOT_FAIL(kvb_model_init(&r->model, sizeof r->model));
    KVB__CANNOT_FAIL(kvb_quant_init(&r->quant, sizeof r->quant));
    KVB__CANNOT_FAIL(kvb_read_info_init(&r->info, sizeof r->info));
    r->err = err;
    kvb__reader_source(r, source ? source : "");
    for (size_t i = 0; i < KVB_READ_FIELD_LAST_; i++)
        r->where[i][0] = r->where[i][1] = r->where[i][2] = -1;
}

void kvb__reader_options(kvb__reader *r, const kvb_read_info *info)
{
    if (info && info->struct_size >=
                    offsetof(kvb_read_info, options) + sizeof info->options)
        r->options = info->options & KVB_READ_OPTIONS_ALL_;
    r->info.options = r->options;
}

void kvb__read_warn(kvb__reader *r, const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char *w = r->info.warning;
    size_t used = strlen(w), cap = sizeof r->info.warning;
    size_t sep = used ? 2 : 0, n = strlen(text);
    r->info.warning_count++;
    if (used + sep + 1 >= cap)
        return; /* full: the count still says how many there were */
    memcpy(w + used, "; ", sep);
    used += sep;
    if (n > cap - 1 - used)
        n = cap - 1 - used;
    memcpy(w + used, text, n);
    w[used + n] = '\0';
}

void kvb__read_mark(kvb__reader *r, int field, int64_t line, int64_t column,
                    int64_t offset)
{
    r->info.fields_from_file |= (uint64_t)1 << field;
    r->where[field][0] = line;
    r->where[field][1] = column;
    r->where[field][2] = offset;
}

static bool error_usable(const kvb_error *err)
{
    return err && err->struct_size >= sizeof(kvb_error);
}

static void set_position(kvb__reader *r, int64_t line, int64_t column,
                         int64_t offset)
{
    if (!error_usable(r->err))
        return;
    r->err->line = line;
    r->err->column = column;
    r->err->offset = offset;
    kvb__strlcpy(r->err->source, r->source, sizeof r->err->source);
}

kvb_status kvb__read_fail(kvb__reader *r, kvb_status status, const char *field,
                          int64_t line, int64_t column, int64_t offset,
                          const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    kvb__fail(r->err, status, field, "%s", text);
    set_position(r, line, column, offset);
    return status;
}

#define MS(F, member)                                                          \
    [KVB_READ_FIELD_##                                                         \
        F] = {offsetof(kvb_model, member), sizeof(((kvb_model *)0)->member)}

/* The integer fields of kvb_model, by reader field bit. */
static const struct {
    size_t offset, size; /* size 0: not an integer field */
} model_slots[KVB_READ_FIELD_LAST_] = {
    MS(NUM_HIDDEN_LAYERS, num_hidden_layers),
    MS(HIDDEN_SIZE, hidden_size),
    MS(NUM_ATTENTION_HEADS, num_attention_heads),
    MS(NUM_KEY_VALUE_HEADS, num_key_value_heads),
    MS(HEAD_DIM, head_dim),
    MS(INTERMEDIATE_SIZE, intermediate_size),
    MS(VOCAB_SIZE, vocab_size),
    MS(TIE_WORD_EMBEDDINGS, tie_word_embeddings),
    MS(MAX_POSITION_EMBEDDINGS, max_position_embeddings),
    MS(POSITION_EMBEDDING_ROWS, position_embedding_rows),
    MS(NUM_EXPERTS, num_experts),
    MS(NUM_EXPERTS_PER_TOK, num_experts_per_tok),
    MS(MOE_INTERMEDIATE_SIZE, moe_intermediate_size),
    MS(NUM_SHARED_EXPERTS, num_shared_experts),
    MS(SHARED_EXPERT_INTERMEDIATE_SIZE, shared_expert_intermediate_size),
    MS(FIRST_K_DENSE_REPLACE, first_k_dense_replace),
    MS(MOE_LAYER_STEP, moe_layer_step),
    MS(KV_LORA_RANK, kv_lora_rank),
    MS(Q_LORA_RANK, q_lora_rank),
    MS(QK_ROPE_HEAD_DIM, qk_rope_head_dim),
    MS(QK_NOPE_HEAD_DIM, qk_nope_head_dim),
    MS(V_HEAD_DIM, v_head_dim),
    MS(SLIDING_WINDOW, sliding_window),
    MS(SLIDING_WINDOW_PATTERN, sliding_window_pattern),
    MS(ATTENTION_CHUNK_SIZE, attention_chunk_size),
    MS(ATTENTION_CHUNK_PATTERN, attention_chunk_pattern),
};
#undef MS

bool kvb__model_field_set(kvb_model *m, int field, uint64_t v)
{
    if (field < 0 || field >= KVB_READ_FIELD_LAST_ ||
        model_slots[field].size == 0)
        return false;
    unsigned char *p = (unsigned char *)m + model_slots[field].offset;
    if (model_slots[field].size == sizeof(uint32_t)) {
        if (v > UINT32_MAX)
            return false;
        uint32_t x = (uint32_t)v;
        memcpy(p, &x, sizeof x);
    } else {
        memcpy(p, &v, sizeof v);
    }
    return true;
}

kvb_status kvb__read_add(kvb__reader *r, uint64_t *sum, uint64_t add,
                         const char *what)
{
    if (kvb__add_ok(*sum, add, sum))
        return KVB_OK;
    return kvb__read_fail(r, KVB_EOVERFLOW, what, -1, -1, -1,
                          "%s overflows 64 bits; allowed: smaller files", what);
}

kvb_status kvb__read_outputs_check(const kvb_model *model,
                                   const kvb_quant *quant,
                                   const kvb_read_info *info, kvb_error *err)
{
    kvb_status st = kvb__struct_check(model, sizeof(kvb_model), "model", err);
    if (!st && quant)
        st = kvb__struct_check(quant, sizeof(kvb_quant), "quant", err);
    if (!st && info)
        st = kvb__struct_check(info, sizeof(kvb_read_info), "read_info", err);
    return st;
}

/* A validation error names a model field: point it at the file's value. */
static void locate_field(kvb__reader *r)
{
    if (!error_usable(r->err))
        return;
    for (size_t i = 0; i < KVB_READ_FIELD_LAST_; i++) {
        if (strcmp(field_names[i], r->err->field) == 0) {
            set_position(r, r->where[i][0], r->where[i][1], r->where[i][2]);
            return;
        }
    }
    set_position(r, -1, -1, -1);
}

kvb_status kvb__read_finish(kvb__reader *r, kvb_model *model, kvb_quant *quant,
                            kvb_read_info *info)
{
    kvb_model m;
    kvb_quant q;
    kvb_status st = kvb__model_load(&r->model, &m, r->err);
    if (!st)
        st = kvb__quant_load(&r->quant, &q, r->err);
    if (st) {
        locate_field(r);
        return st;
    }
    /* safetensors stores no parameter in less than one bit (packed 4-bit
     * and MXFP4 take 4): fewer weight bytes mean the index's total_size is
     * wrong or the shards are not the config's.  (A GGUF's tensors are
     * its model, so its bytes are the model's by construction.) */
    uint64_t params = 0;
    bool st_bytes = r->info.weights_format == KVB_FORMAT_SAFETENSORS ||
                    r->info.weights_format == KVB_FORMAT_SAFETENSORS_INDEX;
    if (st_bytes)
        kvb__model_params(&m, &params, NULL);
    if (st_bytes && r->info.weights_bytes && r->info.weights_bytes < params / 8)
        return kvb__read_fail(
            r, KVB_EPARSE, "weights_bytes", -1, -1, -1,
            "weights (%llu bytes%s) are less than 1 bit for each of the "
            "model's %llu parameters; allowed: at least %llu bytes",
            (unsigned long long)r->info.weights_bytes,
            r->info.shard_count == 0 &&
                    r->info.weights_format == KVB_FORMAT_SAFETENSORS_INDEX
                ? ", the index's total_size, no shard present"
                : "",
            (unsigned long long)params, (unsigned long long)(params / 8));
    kvb__struct_out(&r->model, sizeof r->model, model);
    if (quant)
        kvb__struct_out(&r->quant, sizeof r->quant, quant);
    if (info)
        kvb__struct_out(&r->info, sizeof r->info, info);
    return KVB_OK;
}
