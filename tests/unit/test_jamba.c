/*
 * test_jamba.c -- Jamba (Mamba1 + attention + MoE): the config.json
 * reading, the weights of every layer kind, the Mamba1 state per request
 * and its planning on vLLM and llama.cpp, each worked out here by hand.
 * Config file and source: tests/data/configs/SOURCES.md.
 */
#include "testing.h"

#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define JAMBA_FILE "configs/jamba-1.5-mini.json"

/*
 * AI21-Jamba-1.5-Mini's config.json (hidden 4096, 32 layers; attention on
 * i % 8 == 4: 4 layers, 32 heads, 8 KV heads x 128, no biases; Mamba1 on
 * the other 28: d_inner 2 x 4096 = 8192, d_state 16, d_conv 4, dt_rank
 * 256, conv bias, no projection biases; experts on odd layers: 16 of
 * 14336, top 2; dense MLP of 14336 on even ones; vocab 65536, untied).
 * HF shapes (modeling_jamba.py):
 *   Mamba1: in_proj 4096 -> 16384, conv1d 8192 x 4 + 8192, x_proj 8192 ->
 *     288, dt_proj 256 -> 8192 + 8192, A_log 8192 x 16, D 8192, dt/b/c
 *     layernorms 256 + 16 + 16, out_proj 8192 -> 4096: 105308448;
 *   attention: q, o 4096 x 4096, k, v 4096 x 1024: 41943040;
 *   MLP 3 x 4096 x 14336 = 176160768; MoE 16 x that + router 4096 x 16;
 *   two norms per layer, the final norm, embeddings and lm_head.
 * Total 51570323328 = half the BF16 total_size 103140646656 of the
 * checkpoint's model.safetensors.index.json (SOURCES.md).  Active: 2 of
 * 16 experts, total - 16 layers x 14 x 176160768 = 12110311296 (AI21:
 * "12B active").
 */
static void test_jamba_params_by_hand(void **state)
{
    (void)state;
    const uint64_t H = 4096, V = 65536, I = 14336;
    uint64_t mamba = 16384 * H + 8192 * 4 + 8192 + 288 * 8192 + 256 * 8192 +
                     8192 + 8192 * 16 + 8192 + 256 + 16 + 16 + 8192 * H;
    assert_int_equal(mamba, 105308448);
    uint64_t attn = 2 * H * H + 2 * H * 1024;
    uint64_t mlp = 3 * H * I;
    uint64_t moe = 16 * mlp + H * 16;
    uint64_t want = 2 * V * H + 28 * mamba + 4 * attn + 16 * mlp + 16 * moe +
                    32 * 2 * H + H;
    assert_int_equal(want, 103140646656ull / 2);
    kvb_model m = preset_model("AI21-Jamba-Mini-1.7");
    uint64_t total = 0, active = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_model_param_count(&m, &total, &active, &e), KVB_OK);
    assert_int_equal(total, want);
    assert_int_equal(active, want - 16 * 14 * mlp);
    assert_int_equal(active, 12110311296ull);
}

/* The file reads to the preset row, field for field where it matters. */
static void test_jamba_read(void **state)
{
    (void)state;
    kvb_model m;
    kvb_error e;
    kvb_status st = config_edited(JAMBA_FILE, NULL, NULL, &m, &e);
    if (st)
        fail_msg("%s %s: %s", kvb_status_name(st), e.field, e.message);
    kvb_model p = preset_model("AI21-Jamba-Mini-1.7");
    assert_int_equal(m.arch, KVB_ARCH_JAMBA);
    assert_string_equal(m.layer_pattern, "SSSSASSSSSSSASSSSSSSASSSSSSSASSS");
    assert_string_equal(m.layer_pattern, p.layer_pattern);
    assert_int_equal(m.ssm_num_heads, 8192);
    assert_int_equal(m.ssm_head_dim, 1);
    assert_int_equal(m.ssm_n_groups, 1);
    assert_int_equal(m.ssm_state_size, 16);
    assert_int_equal(m.ssm_conv_kernel, 4);
    assert_int_equal(m.moe_layer_step, 2);
    assert_int_equal(m.moe_intermediate_size, 14336);
    assert_int_equal(m.flags, p.flags);
    assert_int_equal(m.tie_word_embeddings, 0);
    uint64_t total = 0;
    assert_int_equal(kvb_model_param_count(&m, &total, NULL, &e), KVB_OK);
    assert_int_equal(total, 51570323328ull);
    /* layer 1 (odd) has the experts, layer 4 is attention with a dense MLP */
    assert_true(kvb__layer_is_moe(&m, 1));
    assert_false(kvb__layer_is_moe(&m, 4));
    assert_true(kvb__layer_has_attn(&m, 4));
    assert_false(kvb__layer_has_attn(&m, 5));
}

/* The Mamba1 tensors carry the HF names (modeling_jamba.py). */
static void test_jamba_tensor_names(void **state)
{
    (void)state;
    static const char *const want[] = {
        "model.layers.0.mamba.in_proj.weight",
        "model.layers.0.mamba.conv1d.weight",
        "model.layers.0.mamba.conv1d.bias",
        "model.layers.0.mamba.x_proj.weight",
        "model.layers.0.mamba.dt_proj.weight",
        "model.layers.0.mamba.dt_proj.bias",
        "model.layers.0.mamba.A_log",
        "model.layers.0.mamba.D",
        "model.layers.0.mamba.dt_layernorm.weight",
        "model.layers.0.mamba.b_layernorm.weight",
        "model.layers.0.mamba.c_layernorm.weight",
        "model.layers.0.mamba.out_proj.weight",
    };
    kvb_model m = preset_model("AI21-Jamba-Mini-1.7");
    size_t n = 0, found = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_model_tensor_count(&m, &n, &e), KVB_OK);
    for (size_t i = 0; i < n; i++) {
        kvb_tensor t;
        memset(&t, 0, sizeof t);
        t.struct_size = sizeof t;
        assert_int_equal(kvb_model_tensor_get(&m, NULL, i, &t, &e), KVB_OK);
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
            found += strcmp(t.name, want[k]) == 0;
    }
    assert_int_equal(found, sizeof want / sizeof want[0]);
}

/*
 * Mamba1 state of one layer and request (vLLM mamba1_state_shape, the
 * model dtype): conv 8192 x 3 x 2 B = 49152, temporal 8192 x 16 x 2 B =
 * 262144; 28 layers: 8716288 B; TP 2 halves d_inner.  Attention KV per
 * token: 4 layers x 2 x 8 x 128 x 2 B = 16384.
 */
static void test_jamba_state_and_kv(void **state)
{
    (void)state;
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_model m = preset_model("AI21-Jamba-Mini-1.7");
    uint64_t conv = 0, ssm = 0;
    kvb__state_bytes(&m, &q, 1, &conv, &ssm);
    assert_int_equal(conv, 49152);
    assert_int_equal(ssm, 262144);
    assert_int_equal(kvb__state_bytes_per_request(&m, &q, 1, 0, 32), 8716288);
    assert_int_equal(kvb__state_bytes_per_request(&m, &q, 2, 0, 32),
                     8716288 / 2);
    m.ssm_state_dtype = KVB_DTYPE_FP32; /* --mamba-ssm-cache-dtype float32 */
    kvb__state_bytes(&m, &q, 1, &conv, &ssm);
    assert_int_equal(conv, 49152);
    assert_int_equal(ssm, 524288);
    uint64_t whole = 0, per_gpu = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_kv_bytes_per_token(&m, &q, 1, 1, &whole, &per_gpu, &e),
                     KVB_OK);
    assert_int_equal(whole, 16384);
}

/*
 * vLLM 0.11.0, TP 1, 20 GiB of KV cache (HybridAttentionMambaModelConfig;
 * kv_cache_utils.py): attention page of one token and layer 2 x 8 x 128
 * x 2 B = 4096 B; a Mamba1 layer's page 49152 + 262144 = 311296 B; block
 * 16 x cdiv(311296, 16 x 4096) = 16 x 5 = 80 tokens, page 327680 B;
 * 4 attention and 28 Mamba1 layers: group size 4, 1 + 7 groups;
 * num_blocks = 20 GiB / 327680 / 4 = 16384; tokens 16384 // 8 x 80 =
 * 163840; a 262144-token request: cdiv(262144, 80) = 3277 + 7 state
 * blocks = 3284; concurrency 16384 / 3284.
 */
static void test_jamba_vllm(void **state)
{
    (void)state;
    kvb_model m = preset_model("AI21-Jamba-Mini-1.7");
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g = gpu_of(141 * GIB, 1);
    g.compute_capability = 90;
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_VLLM;
    s.engine_version = 1100;
    s.max_model_len = 262144;
    s.kv_cache_memory_bytes = 20 * GIB;
    kvb_plan p = plan_ok(&m, &q, &g, &s);
    assert_int_equal(p.block_size, 80);
    assert_int_equal(p.kv_cache_groups, 8);
    assert_int_equal(p.num_blocks, 16384);
    assert_int_equal(p.max_kv_tokens, 163840);
    assert_true(p.max_concurrency > 16384.0 / 3284 - 1e-9 &&
                p.max_concurrency < 16384.0 / 3284 + 1e-9);
    assert_non_null(strstr(p.warning, "80 tokens"));
}

/*
 * llama.cpp (llama_memory_hybrid; n_embd_r, n_embd_s in
 * llama-hparams.cpp, Mamba1 without groups): -c 16384 -np 4, f16 cache:
 * K and V 4 layers x 16384 cells x 1024 x 2 B each = 268435456 B; state
 * per Mamba1 layer and cell r 3 x 8192 x 4 B = 98304, s 16 x 8192 x 4 B
 * = 524288; 28 layers x 4 cells: 69730304 B = 66.50 MiB.
 */
static void test_jamba_llama_cpp(void **state)
{
    (void)state;
    kvb_model m = preset_model("AI21-Jamba-Mini-1.7");
    kvb_quant q = quant_of(KVB_QUANT_Q4_K_M);
    kvb_gpu g = gpu_of(141 * GIB, 1);
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.context_size = 16384;
    s.max_num_seqs = 4;
    s.max_model_len = 4096;
    kvb_plan p = plan_ok(&m, &q, &g, &s);
    assert_int_equal(p.kv_cache_bytes_per_gpu, 268435456ull + 69730304ull);
    assert_non_null(strstr(p.warning, "66.50 MiB of recurrent state"));
}

/* SGLang has no Jamba model class (python/sglang/srt/models lists
 * falcon_h1, granitemoehybrid, nemotron_h and qwen3_next, no jamba): a
 * plan on it is refused by name, never sized as another hybrid. */
static void test_jamba_sglang_refused(void **state)
{
    (void)state;
    kvb_model m = preset_model("AI21-Jamba-Mini-1.7");
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g = gpu_of(141 * GIB, 1);
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_SGLANG;
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_plan_compute(&m, &q, &g, &s, &p, &e),
                     KVB_EUNSUPPORTED);
    assert_non_null(strstr(e.message, "SGLang has no model class for jamba"));
}

/* A Falcon-H1 config without its mixer sizes is refused, naming the
 * first missing key rather than planning the layers as attention only. */
static void test_jamba_falcon_h1_refused(void **state)
{
    (void)state;
    const char *json = "{\"model_type\": \"falcon_h1\", \"hidden_size\": 3072,"
                       "\"num_hidden_layers\": 44, \"num_attention_heads\": 12,"
                       "\"intermediate_size\": 12288, \"vocab_size\": 130048,"
                       "\"max_position_embeddings\": 262144}";
    kvb_model m;
    kvb_quant q;
    kvb_read_info info;
    kvb_error e;
    assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
    assert_int_equal(KVB_QUANT_INIT(&q), KVB_OK);
    assert_int_equal(KVB_READ_INFO_INIT(&info), KVB_OK);
    assert_int_equal(kvb_error_init(&e, sizeof e), KVB_OK);
    assert_int_equal(kvb_config_parse(json, strlen(json), &m, &q, &info, &e),
                     KVB_EPARSE);
    assert_string_equal(e.field, "config.mamba_n_heads");
}

/* What is not modelled is refused by name. */
static void test_jamba_refusals(void **state)
{
    (void)state;
    kvb_model m;
    kvb_error e;
    assert_int_equal(config_edited(JAMBA_FILE, "\"mamba_dt_rank\": 256",
                                   "\"mamba_dt_rank\": 128", &m, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "config.mamba_dt_rank");
    assert_int_equal(config_edited(JAMBA_FILE, "\"mamba_dt_rank\": 256",
                                   "\"mamba_dt_rank\": \"auto\"", &m, &e),
                     KVB_OK); /* ceil(4096 / 16) */
    assert_int_equal(config_edited(JAMBA_FILE, "\"mamba_proj_bias\": false",
                                   "\"mamba_proj_bias\": true", &m, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "config.mamba_proj_bias");
    assert_int_equal(config_edited(JAMBA_FILE, "\"expert_layer_offset\": 1",
                                   "\"expert_layer_offset\": 0", &m, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "config.expert_layer_offset");
    assert_int_equal(config_edited(JAMBA_FILE, "\"attn_layer_offset\": 4",
                                   "\"attn_layer_offset\": 9", &m, &e),
                     KVB_ERANGE);
    /* one expert: JambaMLP on every layer */
    assert_int_equal(config_edited(JAMBA_FILE, "\"num_experts\": 16",
                                   "\"num_experts\": 1", &m, &e),
                     KVB_OK);
    assert_int_equal(m.num_experts, 0);
    /* a Mamba1 pattern needs one channel per head */
    m = preset_model("AI21-Jamba-Mini-1.7");
    m.ssm_head_dim = 2;
    m.ssm_num_heads = 4096;
    assert_int_equal(kvb_error_init(&e, sizeof e), KVB_OK);
    assert_int_equal(kvb_model_validate(&m, &e), KVB_EINVAL);
    assert_string_equal(e.field, "model.ssm_head_dim");
}

KVB_TESTS(cmocka_unit_test(test_jamba_params_by_hand),
          cmocka_unit_test(test_jamba_read),
          cmocka_unit_test(test_jamba_tensor_names),
          cmocka_unit_test(test_jamba_state_and_kv),
          cmocka_unit_test(test_jamba_vllm),
          cmocka_unit_test(test_jamba_llama_cpp),
          cmocka_unit_test(test_jamba_sglang_refused),
          cmocka_unit_test(test_jamba_refusals),
          cmocka_unit_test(test_jamba_falcon_h1_refused));
