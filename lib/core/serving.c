/*
 * core/serving.c -- the GPU and the serving settings: defaults and validation.
 */
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

kvb_status kvb_gpu_init(kvb_gpu *gpu, size_t struct_size)
{
    kvb_status st = kvb__struct_init(gpu, struct_size, sizeof *gpu, "gpu");
    if (st == KVB_OK)
        gpu->count = 1;
    return st;
}

kvb_status kvb_serving_init(kvb_serving *s, size_t struct_size)
{
    kvb_status st = kvb__struct_init(s, struct_size, sizeof *s, "serving");
    if (st != KVB_OK)
        return st;
    s->engine = KVB_ENGINE_VLLM;
    s->concurrency = 1;
    s->tensor_parallel_size = 1;
    s->pipeline_parallel_size = 1;
    s->enable_chunked_prefill = -1;
    s->accounting = -1;
    s->data_parallel_size = 1;
    s->n_gpu_layers = KVB_ALL_LAYERS;
    s->cache_type_k = -1;
    s->cache_type_v = -1;
    s->flash_attn = -1;
    s->mmproj_type = -1;
    s->cuda_context_bytes = KVB_AUTO_BYTES;
    s->non_torch_bytes = KVB_AUTO_BYTES;
    s->activation_bytes = KVB_AUTO_BYTES;
    s->cudagraph_bytes = KVB_AUTO_BYTES;
    return KVB_OK;
}

kvb_status kvb__gpu_load(const kvb_gpu *in, kvb_gpu *out, kvb_error *err)
{
    kvb_status st = kvb__struct_in(in, sizeof *out, out, "gpu", err);
    if (!st)
        st = kvb__check_field(err, KVB__F_GPU_TOTAL_BYTES, out->total_bytes);
    if (!st)
        st = kvb__check_field(err, KVB__F_GPU_COUNT, out->count);
    if (!st)
        st = kvb__check_field(err, KVB__F_GPU_COMPUTE_CAPABILITY,
                              out->compute_capability);
    if (!st)
        st = kvb__check_field(err, KVB__F_GPU_FREE_BYTES, out->free_bytes);
    if (!st)
        st = kvb__check_field(err, KVB__F_GPU_MULTIPROCESSOR_COUNT,
                              out->multiprocessor_count);
    if (!st && out->free_bytes > out->total_bytes)
        st = kvb__fail(err, KVB_ERANGE, "gpu.free_bytes",
                       "gpu.free_bytes (%llu) exceeds total_bytes (%llu); "
                       "allowed: 0..total_bytes",
                       (unsigned long long)out->free_bytes,
                       (unsigned long long)out->total_bytes);
    if (!st)
        out->name[sizeof out->name - 1] = '\0';
    return st;
}

typedef struct field_ref {
    kvb__field id;
    size_t offset;
    size_t size;
    bool auto_bytes; /* KVB_AUTO_BYTES is allowed */
} field_ref;

#define SF(id, f, a)                                                           \
    {                                                                          \
        KVB__F_SERVING_##id, offsetof(kvb_serving, f),                         \
            sizeof(((kvb_serving *)0)->f), a                                   \
    }
static const field_ref serving_fields[] = {
    SF(ENGINE_VERSION, engine_version, false),
    SF(MAX_MODEL_LEN, max_model_len, false),
    SF(CONCURRENCY, concurrency, false),
    SF(TENSOR_PARALLEL_SIZE, tensor_parallel_size, false),
    SF(PIPELINE_PARALLEL_SIZE, pipeline_parallel_size, false),
    SF(BLOCK_SIZE, block_size, false),
    SF(ENFORCE_EAGER, enforce_eager, false),
    SF(MAX_NUM_SEQS, max_num_seqs, false),
    SF(MAX_NUM_BATCHED_TOKENS, max_num_batched_tokens, false),
    SF(DISABLE_HYBRID_KV_CACHE, disable_hybrid_kv_cache, false),
    SF(ENABLE_EXPERT_PARALLEL, enable_expert_parallel, false),
    SF(KV_CACHE_MEMORY_BYTES, kv_cache_memory_bytes, false),
    SF(CUDA_CONTEXT_BYTES, cuda_context_bytes, true),
    SF(NON_TORCH_BYTES, non_torch_bytes, true),
    SF(ACTIVATION_BYTES, activation_bytes, true),
    SF(CUDAGRAPH_BYTES, cudagraph_bytes, true),
    SF(WEIGHTS_BYTES, weights_bytes, false),
    SF(LOADED_WEIGHTS_BYTES, loaded_weights_bytes, false),
    SF(DATA_PARALLEL_SIZE, data_parallel_size, false),
    SF(ENABLE_DP_ATTENTION, enable_dp_attention, false),
    SF(CUDA_GRAPH_MAX_BS, cuda_graph_max_bs, false),
    SF(CONTEXT_SIZE, context_size, false),
    SF(N_CPU_MOE, n_cpu_moe, false),
    SF(UBATCH_SIZE, ubatch_size, false),
    SF(SWA_FULL, swa_full, false),
    SF(KV_UNIFIED, kv_unified, false),
    SF(MAX_TOTAL_TOKENS, max_total_tokens, false),
    SF(MAX_INPUT_TOKENS, max_input_tokens, false),
    SF(GPU_OVERHEAD_BYTES, gpu_overhead_bytes, false),
    SF(HOST_MEMORY_BYTES, host_memory_bytes, false),
    SF(GPUS_PER_NODE, gpus_per_node, false),
};

/* Signed settings: (offset, name, lo, hi). */
static const struct {
    size_t offset;
    const char *name;
    int32_t lo, hi;
    const char *allowed;
} signed_fields[] = {
    {offsetof(kvb_serving, enable_chunked_prefill),
     "serving.enable_chunked_prefill", -1, 1, "-1 (engine default), 0, 1"},
    {offsetof(kvb_serving, accounting), "serving.accounting", -1,
     KVB_ACCOUNTING_LAST_ - 1, "-1 (the engine's choice) or a kvb_accounting"},
    {offsetof(kvb_serving, cache_type_k), "serving.cache_type_k", -1,
     KVB_STORAGE_LAST_ - 1, "-1 (F16) or a kvb_storage"},
    {offsetof(kvb_serving, cache_type_v), "serving.cache_type_v", -1,
     KVB_STORAGE_LAST_ - 1, "-1 (F16) or a kvb_storage"},
    {offsetof(kvb_serving, flash_attn), "serving.flash_attn", -1, 1,
     "-1 (auto), 0, 1"},
    {offsetof(kvb_serving, backend), "serving.backend", 0, 1,
     "0 (default), 1 (the engine's other backend)"},
    {offsetof(kvb_serving, mm_encoder_tp_mode), "serving.mm_encoder_tp_mode", 0,
     1, "0 (weights), 1 (data)"},
    {offsetof(kvb_serving, mmproj_type), "serving.mmproj_type", -1,
     KVB_STORAGE_LAST_ - 1, "-1 (F16) or a kvb_storage"},
};
#undef SF

kvb_status kvb__serving_load(const kvb_serving *in, kvb_serving *out,
                             kvb_error *err)
{
    if (!in) {
        KVB__CANNOT_FAIL(kvb_serving_init(out, sizeof *out));
        return KVB_OK;
    }
    kvb_status st = kvb__struct_in(in, sizeof *out, out, "serving", err);
    if (st)
        return st;
    if (!kvb__engine_get(out->engine))
        return kvb__fail(err, KVB_ERANGE, "serving.engine",
                         "serving.engine (%d) is not a kvb_engine this "
                         "library models (kvb_engine_name gives the names)",
                         out->engine);
    for (size_t i = 0; i < KVB__ARRAY_LEN(serving_fields); i++) {
        uint64_t v = kvb__load_uint(out, serving_fields[i].offset,
                                    serving_fields[i].size);
        if (serving_fields[i].auto_bytes && v == KVB_AUTO_BYTES)
            continue;
        st = kvb__check_field(err, serving_fields[i].id, v);
        if (st)
            return st;
    }
    for (size_t i = 0; i < KVB__ARRAY_LEN(signed_fields); i++) {
        int32_t v;
        memcpy(&v, (const char *)out + signed_fields[i].offset, sizeof v);
        if (v < signed_fields[i].lo || v > signed_fields[i].hi)
            return kvb__fail(err, KVB_ERANGE, signed_fields[i].name,
                             "%s (%d) is out of range; allowed: %s",
                             signed_fields[i].name, v,
                             signed_fields[i].allowed);
    }
    if (out->mm_disabled & ~KVB_MM_ALL)
        return kvb__fail(err, KVB_ERANGE, "serving.mm_disabled",
                         "serving.mm_disabled (%u) has unknown bits; "
                         "allowed: KVB_MM_IMAGE | KVB_MM_VIDEO | KVB_MM_AUDIO",
                         out->mm_disabled);
    if (out->mmproj & ~KVB_MMPROJ_ALL)
        return kvb__fail(err, KVB_ERANGE, "serving.mmproj",
                         "serving.mmproj (%u) has unknown bits; allowed: "
                         "KVB_MMPROJ_LOAD | KVB_MMPROJ_NONE | KVB_MMPROJ_CPU "
                         "| KVB_MMPROJ_HF",
                         out->mmproj);
    if (out->n_gpu_layers != KVB_ALL_LAYERS && out->n_gpu_layers > 4096)
        return kvb__fail(err, KVB_ERANGE, "serving.n_gpu_layers",
                         "serving.n_gpu_layers (%u) is out of range; "
                         "allowed: 0..4096, or KVB_ALL_LAYERS",
                         out->n_gpu_layers);
    return kvb__check_double(err, "serving.gpu_memory_utilization",
                             out->gpu_memory_utilization);
}

/* ---- what engines read of a GPU's name ---- */

static bool contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && (hay[i] | 0x20) == (needle[i] | 0x20))
            i++;
        if (i == n)
            return true;
    }
    return false;
}

/* What the engines' defaults read of a GPU's name, found once per GPU
 * rather than once per plan: vLLM's "large device" test looks for "a100"
 * and "h100"/"h200" in it (engines/vllm.c, large_device). */
uint32_t kvb__gpu_names(const kvb_gpu *g)
{
    uint32_t f = KVB__GPU_NAMES_KNOWN;
    if (contains_nocase(g->name, "a100"))
        f |= KVB__GPU_NAMES_A100;
    if (contains_nocase(g->name, "h100") || contains_nocase(g->name, "h200"))
        f |= KVB__GPU_NAMES_H100;
    return f;
}
