/* test_kvcache.c -- KV-cache bytes per token, whole and per GPU. */
#include "testing.h"

static void kv(const char *name, int32_t kv_dtype, uint32_t tp, uint32_t pp,
               uint64_t *whole, uint64_t *per_gpu)
{
    kvb_model m = preset_model(name);
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    q.kv_cache_dtype = kv_dtype;
    kvb_error e = KVB_ERROR_INIT;
    if (kvb_kv_bytes_per_token(&m, &q, tp, pp, whole, per_gpu, &e))
        fail_msg("%s: %s", e.field, e.message);
}

/* Llama-3.1-8B: 2 x 32 layers x 8 KV heads x 128 x 2 bytes = 131072
 * (models.json kv_cache_bytes_per_token_fp16).  Under TP the 8 KV heads
 * split: 4, 2, 1 per rank; at TP 16 vLLM replicates: still 1 head. */
static void test_kvcache_gqa_under_tp(void **state)
{
    (void)state;
    static const struct {
        uint32_t tp;
        uint64_t per_gpu;
    } rows[] = {
        {1, 131072}, {2, 65536}, {4, 32768}, {8, 16384}, {16, 16384},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint64_t whole = 0, per_gpu = 0;
        kv("Llama-3.1-8B", KVB_DTYPE_AUTO, rows[i].tp, 1, &whole, &per_gpu);
        assert_int_equal(whole, 131072);
        assert_int_equal(per_gpu, rows[i].per_gpu);
    }
}

/* Qwen2.5-0.5B has 2 KV heads of 64: 2 x 24 x 2 x 64 x 2 = 12288; TP 4
 * keeps one head per rank: 2 x 24 x 64 x 2 = 6144 (vllm_dev.jsonl
 * vllm-log-018 confirms 12288 from its CPU-block count). */
static void test_kvcache_replication(void **state)
{
    (void)state;
    uint64_t whole = 0, per_gpu = 0;
    kv("Qwen2.5-0.5B", KVB_DTYPE_AUTO, 4, 1, &whole, &per_gpu);
    assert_int_equal(whole, 12288);
    assert_int_equal(per_gpu, 6144);
}

/* DeepSeek-V3 MLA caches one latent of kv_lora_rank + qk_rope_head_dim =
 * 512 + 64 = 576 elements per layer: 61 x 576 x 2 = 70272 bytes in BF16
 * (models.json), the same on every TP rank; FP8 halves it. */
static void test_kvcache_mla(void **state)
{
    (void)state;
    uint64_t whole = 0, per_gpu = 0;
    kv("DeepSeek-V3", KVB_DTYPE_AUTO, 8, 1, &whole, &per_gpu);
    assert_int_equal(whole, 70272);
    assert_int_equal(per_gpu, 70272);
    kv("DeepSeek-V3", KVB_DTYPE_FP8, 1, 1, &whole, &per_gpu);
    assert_int_equal(whole, 35136);
}

/* Pipeline parallelism splits layers: 32 / 2 = 16 per stage; 61 / 2 puts
 * 31 on the first stage: 31 x 1152 = 35712. */
static void test_kvcache_pipeline(void **state)
{
    (void)state;
    uint64_t whole = 0, per_gpu = 0;
    kv("Llama-3.1-8B", KVB_DTYPE_AUTO, 1, 2, &whole, &per_gpu);
    assert_int_equal(per_gpu, 65536);
    kv("DeepSeek-V3", KVB_DTYPE_AUTO, 1, 2, &whole, &per_gpu);
    assert_int_equal(per_gpu, 31 * 1152);
}

/* FP8 KV: one byte per element; FP32 KV (model run in FP32): four. */
static void test_kvcache_dtypes(void **state)
{
    (void)state;
    uint64_t whole = 0;
    kv("Llama-3.1-8B", KVB_DTYPE_FP8, 1, 1, &whole, NULL);
    assert_int_equal(whole, 65536);
    kv("Llama-3.1-8B", KVB_DTYPE_FP32, 1, 1, &whole, NULL);
    assert_int_equal(whole, 262144);
}

static void test_kvcache_bad_input(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-3.1-8B");
    uint64_t whole = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_kv_bytes_per_token(&m, NULL, 1, 1, NULL, NULL, &e),
                     KVB_EINVAL);
    assert_int_equal(
        kvb_kv_bytes_per_token(&m, NULL, 2000, 1, &whole, NULL, &e),
        KVB_ERANGE);
    assert_string_equal(e.field, "serving.tensor_parallel_size");
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    q.kv_cache_dtype = 42;
    assert_int_equal(kvb_kv_bytes_per_token(&m, &q, 1, 1, &whole, NULL, &e),
                     KVB_ERANGE);
    assert_string_equal(e.field, "quant.kv_cache_dtype");
}

KVB_TESTS(cmocka_unit_test(test_kvcache_gqa_under_tp),
          cmocka_unit_test(test_kvcache_replication),
          cmocka_unit_test(test_kvcache_mla),
          cmocka_unit_test(test_kvcache_pipeline),
          cmocka_unit_test(test_kvcache_dtypes),
          cmocka_unit_test(test_kvcache_bad_input));
