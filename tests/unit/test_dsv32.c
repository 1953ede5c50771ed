/*
 * test_dsv32.c -- DeepSeek-V3.2 (deepseek_v32): the lightning indexer's
 * weights in the inventory, its key cache in KV bytes per token as vLLM
 * sizes it, and the plans refused where that cache is not modelled.  The
 * config is tests/data/configs/deepseek-v3.json (the HF DeepSeek-V3 file,
 * SOURCES.md) with the keys DeepSeek-V3.2-Exp's config.json adds: model_type
 * deepseek_v32, index_n_heads 64, index_head_dim 128, index_topk 2048, as
 * public tests of the real file quote them.
 */
#include "testing.h"

#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const V3 = "configs/deepseek-v3.json";
static const char *const TYPE = "\"model_type\": \"deepseek_v3\"";
static const char *const V32 =
    "\"model_type\": \"deepseek_v32\", \"index_n_heads\": 64, "
    "\"index_head_dim\": 128, \"index_topk\": 2048";

static kvb_model v32(void)
{
    kvb_model m;
    kvb_error e;
    kvb_status st = config_edited(V3, TYPE, V32, &m, &e);
    if (st)
        fail_msg("v32: %s %s: %s", kvb_status_name(st), e.field, e.message);
    return m;
}

/* Per layer (transformers deepseek_v32, vLLM deepseek_v2.py Indexer):
 * wq_b 64 x 128 rows from the 1536-wide query latent, wk 128 rows from
 * 7168, k_norm's weight and bias (128 each), weights_proj 64 rows from
 * 7168: 12,582,912 + 917,504 + 256 + 458,752 = 13,959,424; 61 layers
 * add 851,524,864 to V3's 671,026,419,200. */
static void test_dsv32_weights(void **state)
{
    (void)state;
    kvb_model m = v32();
    assert_int_equal(m.arch, KVB_ARCH_DEEPSEEK_V3);
    assert_int_equal(m.index_n_heads, 64);
    assert_int_equal(m.index_head_dim, 128);
    assert_int_equal(m.index_topk, 2048);
    uint64_t layer =
        64ull * 128 * 1536 + 128ull * 7168 + 2 * 128 + 64ull * 7168;
    assert_int_equal(layer, 13959424ull);
    assert_int_equal(model_params(&m), 671026419200ull + 61 * layer);
    assert_int_equal(model_params(&m), 671877944064ull);

    /* the preset is this model, in its checkpoint's FP8 format */
    kvb_model p = preset_model("DeepSeek-V3.2-Exp");
    assert_int_equal(p.index_n_heads, 64);
    assert_int_equal(p.index_head_dim, 128);
    assert_int_equal(p.index_topk, 2048);
    assert_int_equal(model_params(&p), model_params(&m));
    kvb_model r;
    kvb_quant rq;
    kvb_error re;
    assert_int_equal(KVB_MODEL_INIT(&r), KVB_OK);
    assert_int_equal(KVB_QUANT_INIT(&rq), KVB_OK);
    assert_int_equal(kvb_error_init(&re, sizeof re), KVB_OK);
    assert_int_equal(kvb_preset_model_resolve("deepseek-ai/DeepSeek-V3.2-Exp",
                                              &r, &rq, NULL, 0, &re),
                     KVB_OK);
    assert_int_equal(r.index_n_heads, 64);
    assert_int_equal(rq.method, KVB_QUANT_FP8);
    assert_int_equal(rq.fp8_scale, KVB_FP8_SCALE_BLOCK128);

    /* the tensors under the checkpoint's names */
    static const char *const want[] = {
        "model.layers.0.self_attn.indexer.wq_b.weight",
        "model.layers.0.self_attn.indexer.wk.weight",
        "model.layers.0.self_attn.indexer.k_norm.weight",
        "model.layers.0.self_attn.indexer.k_norm.bias",
        "model.layers.0.self_attn.indexer.weights_proj.weight"};
    kvb__tdesc t[] = {
        {KVB_ROLE_INDEXER_WQ_B, 0, 0, KVB_ROLE_INDEXER_WQ_B, 1, 8192, 1536, 0},
        {KVB_ROLE_INDEXER_WK, 0, 0, KVB_ROLE_INDEXER_WK, 1, 128, 7168, 0},
        {KVB_ROLE_NORM, 0, 0, KVB_ROLE_INDEXER_WK, 1, 128, 1, 0},
        {KVB_ROLE_NORM, 0, 0, KVB_ROLE_INDEXER_WK, 1, 128, 1, 1},
        {KVB_ROLE_INDEXER_WEIGHTS, 0, 0, KVB_ROLE_INDEXER_WEIGHTS, 1, 64, 7168,
         0}};
    for (size_t i = 0; i < 5; i++) {
        char name[128];
        kvb__tensor_name(&m, &t[i], name, sizeof name);
        assert_string_equal(name, want[i]);
    }

    /* FP8 (128x128 blocks, as the checkpoint): wq_b and wk are FP8 with a
     * scale per block, weights_proj stays 16-bit (vLLM builds it without
     * quant_config), so the indexer adds per layer 8192 x 1536 + 128 x
     * 7168 bytes, (64 x 12 + 1 x 56) x 4 scale bytes, and (256 + 458,752)
     * x 2 bytes. */
    kvb_model base = m;
    base.index_n_heads = base.index_head_dim = base.index_topk = 0;
    kvb_quant q = quant_of(KVB_QUANT_FP8);
    q.fp8_scale = KVB_FP8_SCALE_BLOCK128;
    kvb_weights with, without;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_WEIGHTS_INIT(&with), KVB_OK);
    assert_int_equal(KVB_WEIGHTS_INIT(&without), KVB_OK);
    assert_int_equal(kvb_weights_compute(&m, &q, 1, 1, &with, &e), KVB_OK);
    assert_int_equal(kvb_weights_compute(&base, &q, 1, 1, &without, &e),
                     KVB_OK);
    uint64_t per_layer = 8192ull * 1536 + 128ull * 7168 +
                         (64ull * 12 + 56) * 4 + (256ull + 458752) * 2;
    assert_int_equal(with.bytes - without.bytes, 61 * per_layer);
}

/* vLLM's DeepseekV32IndexerCache: 128 FP8 bytes + one 4-byte scale per
 * 128 = 132 bytes per token and layer, on every rank, next to the MLA
 * latent (512 + 64) x 2 bytes: 61 x 1,284 = 78,324 bytes per token. */
static void test_dsv32_kv(void **state)
{
    (void)state;
    kvb_model m = v32();
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_error e = KVB_ERROR_INIT;
    uint64_t whole = 0, per_gpu = 0;
    assert_int_equal(kvb_kv_bytes_per_token(&m, &q, 8, 1, &whole, &per_gpu, &e),
                     KVB_OK);
    assert_int_equal(whole, 61ull * ((512 + 64) * 2 + 132));
    assert_int_equal(whole, 78324ull);
    assert_int_equal(per_gpu, whole); /* MLA and the indexer: every rank */
    assert_int_equal(kvb_kv_bytes_per_token(&m, &q, 8, 2, &whole, &per_gpu, &e),
                     KVB_OK);
    assert_int_equal(per_gpu, 31ull * 1284); /* ceil(61 / 2) layers */
}

static kvb_status plan(const kvb_model *m, int32_t engine, uint32_t version,
                       int32_t kv_dtype, kvb_error *e)
{
    kvb_quant q = quant_of(KVB_QUANT_FP8);
    q.fp8_scale = KVB_FP8_SCALE_BLOCK128;
    q.kv_cache_dtype = kv_dtype;
    kvb_gpu g = gpu_of(150ull << 30, 8);
    kvb_serving s = serving_default();
    s.engine = engine;
    s.engine_version = version;
    s.tensor_parallel_size = 8;
    kvb_plan p;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_error_init(e, sizeof *e), KVB_OK);
    return kvb_plan_compute(m, &q, &g, &s, &p, e);
}

/* Planned on vLLM 0.11.0 and later with a 16-bit latent; refused by name
 * elsewhere rather than planned as DeepSeek-V3 without its indexer. */
static void test_dsv32_plan(void **state)
{
    (void)state;
    kvb_model m = v32();
    kvb_error e;
    assert_int_equal(plan(&m, KVB_ENGINE_VLLM, 0, KVB_DTYPE_AUTO, &e), KVB_OK);
    assert_int_equal(plan(&m, KVB_ENGINE_VLLM, 1100, KVB_DTYPE_AUTO, &e),
                     KVB_OK);
    assert_int_equal(plan(&m, KVB_ENGINE_VLLM, 1002, KVB_DTYPE_AUTO, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "serving.engine_version");
    assert_int_equal(plan(&m, KVB_ENGINE_VLLM, 0, KVB_DTYPE_FP8, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "quant.kv_cache_dtype");
    assert_int_equal(plan(&m, KVB_ENGINE_SGLANG, 0, KVB_DTYPE_AUTO, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "model.index_n_heads");
    assert_non_null(strstr(e.message, "indexer"));
    /* DeepSeek-V3 itself is not affected */
    kvb_model v3 = preset_model("DeepSeek-V3");
    assert_int_equal(plan(&v3, KVB_ENGINE_SGLANG, 0, KVB_DTYPE_AUTO, &e),
                     KVB_OK);
}

/* A deepseek_v32 config without the indexer's size is refused by name;
 * an indexer without MLA is refused by validation. */
static void test_dsv32_refusals(void **state)
{
    (void)state;
    kvb_model m;
    kvb_error e;
    assert_int_equal(
        config_edited(V3, TYPE, "\"model_type\": \"deepseek_v32\"", &m, &e),
        KVB_EPARSE);
    assert_string_equal(e.field, "config.index_n_heads");
    assert_int_equal(
        config_edited(V3, TYPE,
                      "\"model_type\": \"deepseek_v32\", "
                      "\"index_n_heads\": 0, \"index_head_dim\": 128, "
                      "\"index_topk\": 2048",
                      &m, &e),
        KVB_ERANGE);
    kvb_model bad = preset_model("GLM-4.5");
    bad.index_n_heads = 64;
    bad.index_head_dim = 128;
    kvb_error ve = KVB_ERROR_INIT;
    assert_int_equal(kvb_model_validate(&bad, &ve), KVB_EINVAL);
    assert_string_equal(ve.field, "model.index_n_heads");
}

KVB_TESTS(cmocka_unit_test(test_dsv32_weights), cmocka_unit_test(test_dsv32_kv),
          cmocka_unit_test(test_dsv32_plan),
          cmocka_unit_test(test_dsv32_refusals));
