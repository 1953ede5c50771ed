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
    s->block_size = 16;
    s->enable_chunked_prefill = -1;
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
    if (out->engine < 0 || out->engine >= KVB_ENGINE_LAST_)
        return kvb__fail(err, KVB_ERANGE, "serving.engine",
                         "serving.engine (%d) is not a kvb_engine; allowed: "
                         "0 (vllm)",
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
    if (out->enable_chunked_prefill < -1 || out->enable_chunked_prefill > 1)
        return kvb__fail(err, KVB_ERANGE, "serving.enable_chunked_prefill",
                         "serving.enable_chunked_prefill (%d) is out of "
                         "range; allowed: -1 (engine default), 0, 1",
                         out->enable_chunked_prefill);
    return kvb__check_double(err, "serving.gpu_memory_utilization",
                             out->gpu_memory_utilization);
}

/* ---- engine names and versions ---- */

const char *kvb_engine_name(int engine)
{
    return engine == KVB_ENGINE_VLLM ? "vllm" : NULL;
}

const char *kvb_accounting_name(int accounting)
{
    switch (accounting) {
    case KVB_ACCOUNTING_VLLM_V0: return "vllm-v0";
    case KVB_ACCOUNTING_VLLM_V1: return "vllm-v1";
    case KVB_ACCOUNTING_VLLM_V1_021: return "vllm-v1-0.21";
    default: return NULL;
    }
}

/* "0.11", "0.21.1", "v0.7.3" or "0.7.3.dev233+gad5a35c2" -> packed. */
static bool parse_version(const char *v, uint32_t *out)
{
    if (*v == 'v' || *v == 'V')
        v++;
    unsigned long part[3] = {0, 0, 0};
    int n = 0;
    while (n < 3 && isdigit((unsigned char)*v)) {
        char *end;
        part[n++] = strtoul(v, &end, 10);
        v = end;
        if (*v != '.')
            break;
        v++;
    }
    if (n < 2 || part[0] > 99 || part[1] > 99 || part[2] > 99)
        return false;
    *out = (uint32_t)(part[0] * 10000 + part[1] * 100 + part[2]);
    return *out != 0;
}

kvb_status kvb_engine_parse(const char *spec, int32_t *engine,
                            uint32_t *version, kvb_error *err)
{
    if (!spec || !engine || !version)
        return kvb__fail(err, KVB_EINVAL, "serving.engine",
                         "serving.engine: spec, engine and version must not "
                         "be NULL");
    const char *at = strchr(spec, '@');
    char name[16];
    size_t n = at ? (size_t)(at - spec) : strlen(spec);
    if (n >= sizeof name)
        n = sizeof name - 1;
    memcpy(name, spec, n);
    name[n] = '\0';
    if (kvb__strcasecmp(name, "vllm") != 0)
        return kvb__fail(err, KVB_ENOTFOUND, "serving.engine",
                         "serving.engine (%s) is not known; allowed: vllm, "
                         "vllm@<version>",
                         spec);
    *engine = KVB_ENGINE_VLLM;
    *version = 0;
    if (!at || kvb__strcasecmp(at + 1, "latest") == 0)
        return KVB_OK;
    if (!parse_version(at + 1, version))
        return kvb__fail(err, KVB_EINVAL, "serving.engine_version",
                         "serving.engine_version (%s) is not a version; "
                         "allowed: MAJOR.MINOR[.PATCH] such as 0.11 or "
                         "0.21.1, or latest",
                         at + 1);
    return KVB_OK;
}
