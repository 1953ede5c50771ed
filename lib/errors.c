/*
 * errors.c -- status codes, error detail, field bounds, struct_size rules.
 */
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

unsigned kvb_version_number(void)
{
    return KVB_VERSION_NUMBER;
}

const char *kvb_version_string(void)
{
    return KVB_VERSION_STRING;
}

const char *kvb_strerror(int status)
{
    switch (status) {
#define KVB__STATUS_MSG(name, num, msg)                                        \
    case KVB_##name:                                                           \
        return msg;
        KVB_STATUS_MAP(KVB__STATUS_MSG)
#undef KVB__STATUS_MSG
    default:
        return "unknown status";
    }
}

const char *kvb_status_name(int status)
{
    switch (status) {
#define KVB__STATUS_NAME(name, num, msg)                                       \
    case KVB_##name:                                                           \
        return "KVB_" #name;
        KVB_STATUS_MAP(KVB__STATUS_NAME)
#undef KVB__STATUS_NAME
    default:
        return "KVB_UNKNOWN";
    }
}

static bool error_usable(const kvb_error *err)
{
    return err && err->struct_size >= sizeof(kvb_error);
}

void kvb__clear(kvb_error *err)
{
    if (!error_usable(err))
        return;
    err->status = KVB_OK;
    err->field[0] = '\0';
    err->message[0] = '\0';
    err->line = err->column = err->offset = -1;
    err->source[0] = '\0';
}

kvb_status kvb_error_init(kvb_error *err, size_t struct_size)
{
    if (!err)
        return KVB_EINVAL;
    if (struct_size != sizeof(kvb_error))
        return KVB_EABI;
    memset(err, 0, sizeof *err);
    err->struct_size = struct_size;
    kvb__clear(err);
    return KVB_OK;
}

kvb_status kvb__fail(kvb_error *err, kvb_status status, const char *field,
                     const char *fmt, ...)
{
    if (!error_usable(err))
        return status;
    err->status = status;
    kvb__strlcpy(err->field, field ? field : "", sizeof err->field);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return status;
}

int kvb__strcasecmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = tolower((unsigned char)*a), cb = tolower((unsigned char)*b);
        if (ca != cb || ca == '\0')
            return ca - cb;
    }
}

void kvb__strlcpy(char *dst, const char *src, size_t cap)
{
    if (cap == 0)
        return;
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

kvb_status kvb__render(char *buf, size_t cap, size_t *needed, kvb_error *err,
                       const char *fmt, ...)
{
    char scratch[1];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf && cap ? buf : scratch, buf && cap ? cap : 1, fmt,
                      ap);
    va_end(ap);
    if (n < 0)
        return kvb__fail(err, KVB_EINVAL, "buf", "formatting failed");
    if (needed)
        *needed = (size_t)n + 1;
    if ((size_t)n >= cap)
        return kvb__fail(err, KVB_EBUFSIZE, "buf",
                         "buf (%zu bytes) is too small; allowed: >= %zu", cap,
                         (size_t)n + 1);
    return KVB_OK;
}

/* ---- struct_size ---- */

kvb_status kvb__struct_init(void *dst, size_t struct_size, size_t full_size,
                            const char *what)
{
    (void)what;
    if (!dst)
        return KVB_EINVAL;
    /* 0.1 is the first release: every struct has exactly one known size. */
    if (struct_size != full_size)
        return KVB_EABI;
    memset(dst, 0, full_size);
    memcpy(dst, &struct_size, sizeof struct_size);
    return KVB_OK;
}

kvb_status kvb__struct_check(const void *dst, size_t full_size,
                             const char *what, kvb_error *err)
{
    if (!dst)
        return kvb__fail(err, KVB_EINVAL, what, "%s is NULL", what);
    size_t size;
    memcpy(&size, dst, sizeof size);
    if (size != full_size)
        return kvb__fail(err, KVB_EABI, what,
                         "%s.struct_size (%zu) is not one this library "
                         "knows; allowed: %zu (call the init function)",
                         what, size, full_size);
    return KVB_OK;
}

kvb_status kvb__struct_in(const void *src, size_t full_size, void *dst,
                          const char *what, kvb_error *err)
{
    kvb_status st = kvb__struct_check(src, full_size, what, err);
    if (st)
        return st;
    memcpy(dst, src, full_size);
    return KVB_OK;
}

void kvb__struct_out(const void *src, size_t full_size, void *dst)
{
    size_t size;
    memcpy(&size, dst, sizeof size);
    memcpy(dst, src, size < full_size ? size : full_size);
    memcpy(dst, &size, sizeof size);
}

/* ---- field bounds ---- */

typedef struct field_bound {
    const char *field;
    double lo, hi;
    const char *note; /* extra words for the message, or NULL */
} field_bound;

#define P2(n) ((double)((uint64_t)1 << (n)))

/* One table for the library, the command and the Python bindings. */
static const field_bound bounds[] = {
    {"model.num_hidden_layers", 1, 1024, NULL},
    {"model.hidden_size", 1, P2(20), NULL},
    {"model.num_attention_heads", 1, 4096, NULL},
    {"model.num_key_value_heads", 1, 4096, NULL},
    {"model.head_dim", 0, 8192, "0 = hidden_size / heads"},
    {"model.intermediate_size", 0, P2(22), NULL},
    {"model.vocab_size", 1, P2(24), NULL},
    {"model.max_position_embeddings", 1, P2(34), NULL},
    {"model.position_embedding_rows", 0, P2(34), NULL},
    {"model.num_experts", 0, 4096, NULL},
    {"model.num_experts_per_tok", 0, 4096, NULL},
    {"model.moe_intermediate_size", 0, P2(22), NULL},
    {"model.num_shared_experts", 0, 256, NULL},
    {"model.shared_expert_intermediate_size", 0, P2(22), NULL},
    {"model.first_k_dense_replace", 0, 1024, NULL},
    {"model.moe_layer_step", 0, 1024, NULL},
    {"model.kv_lora_rank", 0, 65536, NULL},
    {"model.q_lora_rank", 0, 65536, NULL},
    {"model.qk_rope_head_dim", 0, 8192, NULL},
    {"model.qk_nope_head_dim", 0, 8192, NULL},
    {"model.v_head_dim", 0, 8192, NULL},
    {"model.sliding_window", 0, P2(34), NULL},
    {"model.sliding_window_pattern", 0, 1024, NULL},
    {"model.attention_chunk_size", 0, P2(34), NULL},
    {"model.attention_chunk_pattern", 0, 1024, NULL},
    {"quant.group_size", 0, 65536, "0 = one group per row"},
    {"gpu.total_bytes", P2(20), P2(50), NULL},
    {"gpu.count", 1, 4096, NULL},
    {"gpu.compute_capability", 0, 200, NULL},
    {"gpu.free_bytes", 0, P2(50), "0 = unknown"},
    {"gpu.multiprocessor_count", 0, 1024, "0 = unknown"},
    {"serving.engine_version", 0, 999999, "0 = newest"},
    {"serving.gpu_memory_utilization", 0, 1, "0 = engine default"},
    {"serving.max_model_len", 0, P2(34), "0 = model maximum"},
    {"serving.concurrency", 0, P2(24), NULL},
    {"serving.tensor_parallel_size", 1, 1024, NULL},
    {"serving.pipeline_parallel_size", 1, 1024, NULL},
    {"serving.block_size", 1, 4096, NULL},
    {"serving.enforce_eager", 0, 1, NULL},
    {"serving.max_num_seqs", 0, P2(24), "0 = engine default"},
    {"serving.max_num_batched_tokens", 0, P2(34), "0 = engine default"},
    {"serving.enable_chunked_prefill", -1, 1, "-1 = engine default"},
    {"serving.disable_hybrid_kv_cache", 0, 1, NULL},
    {"serving.enable_expert_parallel", 0, 1, NULL},
    {"serving.kv_cache_memory_bytes", 0, P2(50), "0 = unset"},
    {"serving.cuda_context_bytes", 0, P2(50), "or KVB_AUTO_BYTES"},
    {"serving.non_torch_bytes", 0, P2(50), "or KVB_AUTO_BYTES"},
    {"serving.activation_bytes", 0, P2(50), "or KVB_AUTO_BYTES"},
    {"serving.cudagraph_bytes", 0, P2(50), "or KVB_AUTO_BYTES"},
    {"serving.weights_bytes", 0, P2(50), "0 = from the inventory"},
};

static const field_bound *bound_find(const char *field)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(bounds); i++)
        if (strcmp(bounds[i].field, field) == 0)
            return &bounds[i];
    return NULL;
}

kvb_status kvb_field_bounds(const char *field, double *lo, double *hi,
                            kvb_error *err)
{
    if (!field || !lo || !hi)
        return kvb__fail(err, KVB_EINVAL, "field", "field, lo and hi must "
                                                   "not be NULL");
    const field_bound *b = bound_find(field);
    if (!b)
        return kvb__fail(err, KVB_ENOTFOUND, "field",
                         "field (%s) has no documented bounds", field);
    *lo = b->lo;
    *hi = b->hi;
    return KVB_OK;
}

static kvb_status out_of_range(kvb_error *err, const field_bound *b,
                               const char *value)
{
    return kvb__fail(err, KVB_ERANGE, b->field,
                     "%s (%s) is out of range; allowed: %.0f..%.0f%s%s",
                     b->field, value, b->lo, b->hi, b->note ? ", " : "",
                     b->note ? b->note : "");
}

kvb_status kvb__check_u64(kvb_error *err, const char *field, uint64_t value)
{
    const field_bound *b = bound_find(field);
    if (!b || ((double)value >= b->lo && (double)value <= b->hi))
        return KVB_OK;
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)value);
    return out_of_range(err, b, text);
}

kvb_status kvb__check_double(kvb_error *err, const char *field, double value)
{
    const field_bound *b = bound_find(field);
    if (!b || (value >= b->lo && value <= b->hi))
        return KVB_OK;
    char text[32];
    snprintf(text, sizeof text, "%g", value);
    if (isnan(value))
        return kvb__fail(err, KVB_ERANGE, b->field,
                         "%s (nan) is not a number; allowed: %g..%g",
                         b->field, b->lo, b->hi);
    return kvb__fail(err, KVB_ERANGE, b->field,
                     "%s (%s) is out of range; allowed: %g..%g%s%s", b->field,
                     text, b->lo, b->hi, b->note ? ", " : "",
                     b->note ? b->note : "");
}
