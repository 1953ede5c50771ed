/*
 * gpu_tool.c -- machine-readable probe, validate and predictions for the
 * GPU checks (tests/gpu/run.sh, torch_check.py).  Public API only; prints
 * one JSON object per line by hand, so it builds without jansson (run.sh
 * compiles it with a plain cc when CMake's dependencies are missing).
 *
 *   kvb_gpu_tool probe
 *   kvb_gpu_tool validate MODEL QUANT UTIL [LAYERS [ENGINE [KV_DTYPE]]]
 *   kvb_gpu_tool predict MODEL LAYERS DTYPE BATCH LEN
 *
 * Exit status: 0 ok (validate: valid), 1 no GPU / not valid, 2 usage.
 */
#include <kvbudget.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_str(const char *key, const char *v, int comma)
{
    printf("\"%s\": \"", key);
    for (const char *p = v ? v : ""; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if ((unsigned char)*p < 0x20)
            printf("\\u%04x", (unsigned)(unsigned char)*p);
        else
            putchar(*p);
    }
    printf("\"%s", comma ? ", " : "");
}

static void json_u64(const char *key, uint64_t v, int comma)
{
    printf("\"%s\": %llu%s", key, (unsigned long long)v, comma ? ", " : "");
}

static void json_dbl(const char *key, double v, int comma)
{
    printf("\"%s\": %.9g%s", key, v, comma ? ", " : "");
}

static int fail(kvb_status st, const kvb_error *e)
{
    printf("{");
    json_str("status", kvb_status_name(st), 1);
    json_str("message", e->message, 0);
    printf("}\n");
    return st == KVB_ENOCUDA || st == KVB_ENODRIVER || st == KVB_ENODEVICE ||
                   st == KVB_ECUDA
               ? 1
               : 2;
}

static int cmd_probe(void)
{
    kvb_error e = KVB_ERROR_INIT;
    uint32_t n = 0;
    kvb_status st = kvb_probe_count(&n, &e);
    if (st)
        return fail(st, &e);
    for (uint32_t i = 0; i < n; i++) {
        kvb_device d;
        st = KVB_DEVICE_INIT(&d);
        if (!st)
            st = kvb_probe_device(i, &d, &e);
        if (st)
            return fail(st, &e);
        printf("{");
        json_str("status", "KVB_OK", 1);
        json_u64("index", (uint64_t)d.index, 1);
        json_str("name", d.name, 1);
        json_u64("total_bytes", d.total_bytes, 1);
        json_u64("free_bytes", d.free_bytes, 1);
        json_u64("used_by_others_bytes", d.used_by_others_bytes, 1);
        json_u64("compute_capability", d.compute_capability, 1);
        json_u64("multiprocessor_count", d.multiprocessor_count, 1);
        json_str("uuid", d.uuid, 1);
        json_str("driver_version", d.driver_version, 1);
        json_u64("cuda_driver_version", d.cuda_driver_version, 0);
        printf("}\n");
    }
    return 0;
}

static kvb_status model_of(const char *name, const char *layers, kvb_model *m,
                           kvb_error *e)
{
    kvb_status st = KVB_MODEL_INIT(m);
    if (!st)
        st = kvb_preset_model_find(name, m, e);
    if (!st && layers && atoi(layers) > 0)
        m->num_hidden_layers = (uint32_t)atoi(layers);
    return st;
}

static int cmd_validate(int argc, char **argv)
{
    kvb_model m;
    kvb_quant q;
    kvb_serving s;
    kvb_validation v;
    kvb_error e = KVB_ERROR_INIT;
    kvb_status st = model_of(argv[2], argc > 5 ? argv[5] : NULL, &m, &e);
    if (!st)
        st = KVB_QUANT_INIT(&q);
    if (!st)
        st = KVB_SERVING_INIT(&s);
    if (!st && strcmp(argv[3], "auto") != 0)
        st = kvb_quant_method_find(argv[3], &q.method, &e);
    if (!st && argc > 6)
        st = kvb_engine_parse(argv[6], &s.engine, &s.engine_version, &e);
    if (!st && argc > 7)
        st = kvb_dtype_find(argv[7], &q.kv_cache_dtype, &e);
    if (!st)
        st = KVB_VALIDATION_INIT(&v);
    s.gpu_memory_utilization = atof(argv[4]);
    if (!st)
        st = kvb_validate(&m, &q, &s, 0, &v, &e);
    if (st)
        return fail(st, &e);
    printf("{");
    json_str("status", "KVB_OK", 1);
    json_str("model", m.name, 1);
    json_u64("layers", m.num_hidden_layers, 1);
    json_str("quant", kvb_quant_method_name(q.method), 1);
    json_str("kv_cache_dtype", kvb_dtype_name(q.kv_cache_dtype), 1);
    json_str("engine", argc > 6 ? argv[6] : "vllm", 1);
    json_str("device_name", v.device_name, 1);
    json_u64("total_bytes", v.total_bytes, 1);
    json_u64("free_start_bytes", v.free_start_bytes, 1);
    json_u64("free_end_bytes", v.free_end_bytes, 1);
    json_dbl("gpu_memory_utilization", v.gpu_memory_utilization, 1);
    json_str("plan_verdict", kvb_verdict_name(v.plan_verdict), 1);
    json_u64("num_blocks", v.num_blocks, 1);
    json_u64("block_bytes", v.block_bytes, 1);
    json_u64("weights_tensors", v.weights_tensors, 1);
    json_u64("kv_tensors", v.kv_tensors, 1);
    printf("\"stages\": [");
    for (uint32_t i = 0; i < v.stage_count && i < KVB_VALIDATION_STAGES; i++) {
        const kvb_validation_stage *x = &v.stages[i];
        printf("%s{", i ? ", " : "");
        json_str("stage", kvb_stage_name((int)i), 1);
        json_u64("allocations", x->allocations, 1);
        json_u64("predicted_bytes", x->predicted_bytes, 1);
        json_u64("requested_bytes", x->requested_bytes, 1);
        json_u64("observed_bytes", x->observed_bytes, 1);
        json_u64("allocated", x->allocated, 1);
        json_dbl("error", x->error, 0);
        printf("}");
    }
    printf("], ");
    json_u64("failed_stage", (uint64_t)(v.failed_stage + 1), 1); /* 0: none */
    json_dbl("max_error", v.max_error, 1);
    json_u64("tight_checked", v.tight_checked, 1);
    json_dbl("tight_utilization", v.tight_utilization, 1);
    json_u64("tight_allowance_bytes", v.tight_allowance_bytes, 1);
    json_u64("tight_num_blocks", v.tight_num_blocks, 1);
    json_u64("tight_fits", v.tight_fits, 1);
    json_u64("tight_free_bytes", v.tight_free_bytes, 1);
    json_u64("tight_over_num_blocks", v.tight_over_num_blocks, 1);
    json_u64("tight_over_fits", v.tight_over_fits, 1);
    json_u64("tight", v.tight, 1);
    json_u64("valid", v.valid, 1);
    json_str("message", v.message, 0);
    printf("}\n");
    return v.valid ? 0 : 1;
}

/* What torch_check.py compares: the inventory's bytes (no vocabulary
 * padding: Hugging Face does not pad) and the KV cache of BATCH x LEN
 * tokens, plus the model's fields to build its config from. */
static int cmd_predict(char **argv)
{
    kvb_model m;
    kvb_quant q;
    kvb_weights w;
    kvb_error e = KVB_ERROR_INIT;
    uint64_t kv_tok = 0, per_gpu = 0;
    kvb_status st = model_of(argv[2], argv[3], &m, &e);
    if (!st)
        st = KVB_QUANT_INIT(&q);
    if (!st)
        st = kvb_dtype_find(argv[4], &q.dtype, &e);
    if (!st) {
        m.dtype = q.dtype; /* the checkpoint in that dtype */
        st = KVB_WEIGHTS_INIT(&w);
    }
    if (!st)
        st = kvb_weights_compute(&m, &q, 1, 1, &w, &e);
    if (!st)
        st = kvb_kv_bytes_per_token(&m, &q, 1, 1, &kv_tok, &per_gpu, &e);
    if (st)
        return fail(st, &e);
    uint64_t batch = strtoull(argv[5], NULL, 10);
    uint64_t len = strtoull(argv[6], NULL, 10);
    printf("{");
    json_str("status", "KVB_OK", 1);
    json_str("model", m.name, 1);
    json_str("arch", kvb_arch_name(m.arch), 1);
    json_str("dtype", kvb_dtype_name(q.dtype), 1);
    json_u64("flags", m.flags, 1);
    json_u64("num_hidden_layers", m.num_hidden_layers, 1);
    json_u64("hidden_size", m.hidden_size, 1);
    json_u64("num_attention_heads", m.num_attention_heads, 1);
    json_u64("num_key_value_heads", m.num_key_value_heads, 1);
    json_u64("head_dim", m.head_dim, 1);
    json_u64("intermediate_size", m.intermediate_size, 1);
    json_u64("vocab_size", m.vocab_size, 1);
    json_u64("tie_word_embeddings", m.tie_word_embeddings, 1);
    json_u64("max_position_embeddings", m.max_position_embeddings, 1);
    json_u64("num_experts", m.num_experts, 1);
    json_u64("num_experts_per_tok", m.num_experts_per_tok, 1);
    json_u64("moe_intermediate_size", m.moe_intermediate_size, 1);
    json_u64("sliding_window", m.sliding_window, 1);
    json_u64("param_count", w.param_count, 1);
    json_u64("weights_bytes", w.bytes, 1);
    json_u64("kv_bytes_per_token", kv_tok, 1);
    json_u64("batch", batch, 1);
    json_u64("len", len, 1);
    json_u64("kv_bytes", kv_tok * batch * len, 0);
    printf("}\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "probe"))
        return cmd_probe();
    if (argc >= 5 && argc <= 8 && !strcmp(argv[1], "validate"))
        return cmd_validate(argc, argv);
    if (argc == 7 && !strcmp(argv[1], "predict"))
        return cmd_predict(argv);
    fprintf(stderr,
            "usage: kvb_gpu_tool probe\n"
            "       kvb_gpu_tool validate MODEL QUANT UTIL [LAYERS [ENGINE "
            "[KV_DTYPE]]]\n"
            "       kvb_gpu_tool predict MODEL LAYERS DTYPE BATCH LEN\n");
    return 2;
}
