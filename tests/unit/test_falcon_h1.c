/*
 * test_falcon_h1.c -- Falcon-H1 (attention beside a Mamba2 mixer in every
 * layer, then an MLP): the config.json reading, the weights of a layer,
 * the KV per token and the Mamba2 state per request, and the plans on
 * vLLM and llama.cpp, each worked out here by hand.
 *
 * No verbatim config.json of a TII checkpoint was reachable from this
 * workspace, so the configs below are written out in the test, with the
 * sizes of the transformers documentation's FalconH1Config table
 * (docs/source/en/model_doc/falcon_h1.md: 0.5B 36 layers x 1024, 8
 * heads, 2 KV, 24 Mamba heads, head dims 64 / 64, d_state 128; 7B 44 x
 * 3072, 12 heads, 2 KV, 24 Mamba heads, 128 / 128, d_state 256) and the
 * other keys as NVIDIA Megatron-Bridge's Falcon-H1-0.5B test config
 * (tests/unit_tests/models/falcon_h1) writes them.  The parameter counts
 * are summed by hand from the shapes of modular_falcon_h1.py, not
 * compared with a published total.
 */
#include "testing.h"

#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Falcon-H1-0.5B's shape; mamba_rms_norm false, no biases but the conv. */
static const char FH1_05B[] =
    "{\"architectures\": [\"FalconH1ForCausalLM\"], \"attention_bias\": false,"
    "\"attention_in_multiplier\": 1.0, \"attention_out_multiplier\": 0.9375,"
    "\"embedding_multiplier\": 5.656854249492381, \"head_dim\": 64,"
    "\"hidden_act\": \"silu\", \"hidden_size\": 1024,"
    "\"intermediate_size\": 2048, \"key_multiplier\": 0.39062499999999994,"
    "\"lm_head_multiplier\": 0.0390625, \"mamba_chunk_size\": 128,"
    "\"mamba_conv_bias\": true, \"mamba_d_conv\": 4, \"mamba_d_head\": 64,"
    "\"mamba_d_ssm\": 1536, \"mamba_d_state\": 128, \"mamba_expand\": 2,"
    "\"mamba_n_groups\": 1, \"mamba_n_heads\": 24,"
    "\"mamba_norm_before_gate\": false, \"mamba_proj_bias\": false,"
    "\"mamba_rms_norm\": false, \"mamba_use_mlp\": true,"
    "\"max_position_embeddings\": 16384, \"mlp_bias\": false,"
    "\"mlp_multipliers\": [0.8838834764831844, 0.5859375],"
    "\"model_type\": \"falcon_h1\", \"num_attention_heads\": 8,"
    "\"num_hidden_layers\": 36, \"num_key_value_heads\": 2,"
    "\"projectors_bias\": false, \"rms_norm_eps\": 1e-05,"
    "\"rope_scaling\": null, \"rope_theta\": 100000000000.0,"
    "\"ssm_in_multiplier\": 1.25, \"ssm_multipliers\": [0.3535533905932738, "
    "0.25, 0.3535533905932738, 0.5, 0.3535533905932738],"
    "\"ssm_out_multiplier\": 0.23570226039551587,"
    "\"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\","
    "\"vocab_size\": 32784}";

/* Falcon-H1-7B's shape (the same keys, the 7B sizes). */
static const char FH1_7B[] =
    "{\"architectures\": [\"FalconH1ForCausalLM\"], \"attention_bias\": false,"
    "\"head_dim\": 128, \"hidden_act\": \"silu\", \"hidden_size\": 3072,"
    "\"intermediate_size\": 12288, \"mamba_conv_bias\": true,"
    "\"mamba_d_conv\": 4, \"mamba_d_head\": 128, \"mamba_d_ssm\": 3072,"
    "\"mamba_d_state\": 256, \"mamba_expand\": 2, \"mamba_n_groups\": 1,"
    "\"mamba_n_heads\": 24, \"mamba_proj_bias\": false,"
    "\"mamba_rms_norm\": false, \"max_position_embeddings\": 262144,"
    "\"mlp_bias\": false, \"model_type\": \"falcon_h1\","
    "\"num_attention_heads\": 12, \"num_hidden_layers\": 44,"
    "\"num_key_value_heads\": 2, \"projectors_bias\": false,"
    "\"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\","
    "\"vocab_size\": 130048}";

/* Parse `json` with `from` replaced by `to` (both NULL: as it is). */
static kvb_status parse(const char *json, const char *from, const char *to,
                        kvb_model *m, kvb_error *e)
{
    char buf[4096];
    const char *at = from ? strstr(json, from) : NULL;
    if (from)
        assert_non_null(at);
    if (at)
        snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - json), json, to,
                 at + strlen(from));
    else
        snprintf(buf, sizeof buf, "%s", json);
    kvb_quant q;
    kvb_read_info info;
    assert_int_equal(KVB_MODEL_INIT(m), KVB_OK);
    assert_int_equal(KVB_QUANT_INIT(&q), KVB_OK);
    assert_int_equal(KVB_READ_INFO_INIT(&info), KVB_OK);
    assert_int_equal(kvb_error_init(e, sizeof *e), KVB_OK);
    return kvb_config_parse(buf, strlen(buf), m, &q, &info, e);
}

static kvb_model read_ok(const char *json)
{
    kvb_model m;
    kvb_error e;
    kvb_status st = parse(json, NULL, NULL, &m, &e);
    if (st)
        fail_msg("%s", e.message);
    return m;
}

/* The reading: every layer 'P', the Mamba2 sizes, no gated norm. */
static void test_falcon_h1_read(void **state)
{
    (void)state;
    kvb_model m = read_ok(FH1_05B);
    assert_int_equal(m.arch, KVB_ARCH_FALCON_H1);
    assert_string_equal(kvb_arch_name(m.arch), "falcon_h1");
    assert_int_equal(strlen(m.layer_pattern), 36);
    assert_int_equal(strspn(m.layer_pattern, "P"), 36);
    assert_int_equal(m.ssm_num_heads, 24);
    assert_int_equal(m.ssm_head_dim, 64);
    assert_int_equal(m.ssm_n_groups, 1);
    assert_int_equal(m.ssm_state_size, 128);
    assert_int_equal(m.ssm_conv_kernel, 4);
    assert_int_equal(m.head_dim, 64);
    assert_int_equal(m.num_key_value_heads, 2);
    assert_int_equal(m.flags & KVB_MODEL_SSM_NO_NORM, KVB_MODEL_SSM_NO_NORM);
    assert_int_equal(m.flags & (KVB_MODEL_ATTN_QKV_BIAS | KVB_MODEL_MLP_BIAS),
                     0);
    assert_true(kvb__layer_has_attn(&m, 0));
    assert_true(kvb__layer_has_mlp(&m, 35));
    assert_int_equal(kvb__count_attn(&m, 0, 36), 36);
    assert_int_equal(kvb__count_recurrent(&m, 0, 36), 36);
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_model_validate(&m, &e), KVB_OK);
}

/*
 * Falcon-H1-0.5B by hand (modular_falcon_h1.py; H 1024, d_ssm 1536, one
 * group of d_state 128, 24 Mamba heads):
 *   mixer: in_proj 1024 x (2 x 1536 + 2 x 128 + 24) = 3432448, conv1d
 *     (1536 + 256) x 4 + 1792 bias = 8960, A_log, dt_bias, D 3 x 24,
 *     out_proj 1536 x 1024 = 1572864 (no gated norm): 5014344;
 *   attention: q, o 1024 x 512, k, v 1024 x 128: 1310720;
 *   MLP 3 x 1024 x 2048 = 6291456; two norms 2048;
 *   36 layers, embeddings and lm_head 32784 x 1024 each, final norm.
 * 521411104 in all (the model page's "521M params" rounds it).
 */
static void test_falcon_h1_params_by_hand(void **state)
{
    (void)state;
    const uint64_t H = 1024, V = 32784;
    uint64_t mixer =
        H * (2 * 1536 + 2 * 128 + 24) + 1792 * 4 + 1792 + 3 * 24 + 1536 * H;
    assert_int_equal(mixer, 5014344);
    uint64_t attn = 2 * H * 512 + 2 * H * 128;
    uint64_t layer = mixer + attn + 3 * H * 2048 + 2 * H;
    uint64_t want = 36 * layer + 2 * V * H + H;
    assert_int_equal(want, 521411104ull);
    kvb_model m = read_ok(FH1_05B);
    assert_int_equal(model_params(&m), want);
    /* mamba_rms_norm true adds the gated norm, d_ssm per layer */
    kvb_error e;
    assert_int_equal(parse(FH1_05B, "\"mamba_rms_norm\": false",
                           "\"mamba_rms_norm\": true", &m, &e),
                     KVB_OK);
    assert_int_equal(model_params(&m), want + 36 * 1536);
}

/*
 * Falcon-H1-7B by hand: mixer 3072 x (2 x 3072 + 2 x 256 + 24) +
 * 3584 x 4 + 3584 + 72 + 3072 x 3072 = 29976136; attention 2 x 3072 x
 * 1536 + 2 x 3072 x 256 = 11010048; MLP 3 x 3072 x 12288; two norms;
 * 44 layers, untied 130048 x 3072 embeddings and lm_head, final norm:
 * 7585513568.
 */
static void test_falcon_h1_7b_params_by_hand(void **state)
{
    (void)state;
    const uint64_t H = 3072, V = 130048;
    uint64_t mixer =
        H * (2 * 3072 + 2 * 256 + 24) + 3584 * 4 + 3584 + 3 * 24 + 3072 * H;
    assert_int_equal(mixer, 29976136);
    uint64_t layer = mixer + 2 * H * 1536 + 2 * H * 256 + 3 * H * 12288 + 2 * H;
    uint64_t want = 44 * layer + 2 * V * H + H;
    assert_int_equal(want, 7585513568ull);
    kvb_model m = read_ok(FH1_7B);
    assert_int_equal(model_params(&m), want);
}

/* The tensors carry the checkpoint's names (modular_falcon_h1.py). */
static void test_falcon_h1_tensor_names(void **state)
{
    (void)state;
    static const char *const want[] = {
        "model.layers.0.input_layernorm.weight",
        "model.layers.0.mamba.in_proj.weight",
        "model.layers.0.mamba.conv1d.weight",
        "model.layers.0.mamba.conv1d.bias",
        "model.layers.0.mamba.A_log",
        "model.layers.0.mamba.dt_bias",
        "model.layers.0.mamba.D",
        "model.layers.0.mamba.out_proj.weight",
        "model.layers.0.self_attn.q_proj.weight",
        "model.layers.0.self_attn.k_proj.weight",
        "model.layers.0.self_attn.v_proj.weight",
        "model.layers.0.self_attn.o_proj.weight",
        "model.layers.0.pre_ff_layernorm.weight",
        "model.layers.0.feed_forward.gate_proj.weight",
        "model.layers.0.feed_forward.up_proj.weight",
        "model.layers.0.feed_forward.down_proj.weight",
        "model.final_layernorm.weight",
        "model.embed_tokens.weight",
        "lm_head.weight",
    };
    kvb_model m = read_ok(FH1_05B);
    size_t n = 0, found = 0, norm = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_model_tensor_count(&m, &n, &e), KVB_OK);
    for (size_t i = 0; i < n; i++) {
        kvb_tensor t;
        memset(&t, 0, sizeof t);
        t.struct_size = sizeof t;
        assert_int_equal(kvb_model_tensor_get(&m, NULL, i, &t, &e), KVB_OK);
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
            found += strcmp(t.name, want[k]) == 0;
        norm += strstr(t.name, "mamba.norm") != NULL;
    }
    assert_int_equal(found, sizeof want / sizeof want[0]);
    assert_int_equal(norm, 0);
    /* 36 layers x 16 tensors + embeddings, final norm, lm_head */
    assert_int_equal(n, 36 * 16 + 3);
}

/*
 * KV per token (every layer caches K and V): 0.5B 36 x 2 x 2 x 64 x 2 B
 * = 18432; 7B 44 x 2 x 2 x 128 x 2 B = 45056.  Mamba2 state of one layer
 * and request (vLLM mamba2_state_shape, model dtype): 0.5B conv (1536 +
 * 2 x 128) x 3 x 2 B = 10752, temporal 24 x 64 x 128 x 2 B = 393216;
 * 36 layers: 14542848 B.  7B conv 3584 x 3 x 2 = 21504, temporal 24 x
 * 128 x 256 x 2 = 1572864; 44 layers: 70152192 B.
 */
static void test_falcon_h1_kv_and_state(void **state)
{
    (void)state;
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_model m = read_ok(FH1_05B);
    uint64_t whole = 0, per_gpu = 0, conv = 0, ssm = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_kv_bytes_per_token(&m, &q, 1, 1, &whole, &per_gpu, &e),
                     KVB_OK);
    assert_int_equal(whole, 18432);
    kvb__state_bytes(&m, &q, 1, &conv, &ssm);
    assert_int_equal(conv, 10752);
    assert_int_equal(ssm, 393216);
    assert_int_equal(kvb__state_bytes_per_request(&m, &q, 1, 0, 36), 14542848);
    m = read_ok(FH1_7B);
    assert_int_equal(kvb_kv_bytes_per_token(&m, &q, 1, 1, &whole, &per_gpu, &e),
                     KVB_OK);
    assert_int_equal(whole, 45056);
    kvb__state_bytes(&m, &q, 1, &conv, &ssm);
    assert_int_equal(conv, 21504);
    assert_int_equal(ssm, 1572864);
    assert_int_equal(kvb__state_bytes_per_request(&m, &q, 1, 0, 44), 70152192);
}

/*
 * vLLM 0.11.0, 7B, TP 1, 20 GiB of KV cache (HybridAttentionMambaModelConfig;
 * kv_cache_utils.py): attention page of one token and layer 2 x 2 x 128
 * x 2 B = 1024 B; a Mamba2 layer's page 21504 + 1572864 = 1594368 B;
 * block 16 x cdiv(1594368, 16 x 1024) = 16 x 98 = 1568 tokens, page
 * 1605632 B.  Each layer is in the attention group and in the Mamba
 * group (vLLM falcon_h1.py registers self_attn.attn and mamba per layer):
 * 44 and 44 layers, group size 44, 2 groups; num_blocks = 20 GiB /
 * (1605632 x 44) = 303; tokens 303 // 2 x 1568 = 236768; a 32768-token
 * request: cdiv(32768, 1568) = 21 blocks + 1 state block = 22;
 * concurrency 303 / 22.
 */
static void test_falcon_h1_vllm(void **state)
{
    (void)state;
    kvb_model m = read_ok(FH1_7B);
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g = gpu_of(141 * GIB, 1);
    g.compute_capability = 90;
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_VLLM;
    s.engine_version = 1100;
    s.max_model_len = 32768;
    s.kv_cache_memory_bytes = 20 * GIB;
    kvb_plan p = plan_ok(&m, &q, &g, &s);
    assert_int_equal(p.block_size, 1568);
    assert_int_equal(p.kv_cache_groups, 2);
    assert_int_equal(p.num_blocks, 303);
    assert_int_equal(p.max_kv_tokens, 236768);
    assert_true(p.max_concurrency > 303.0 / 22 - 1e-9 &&
                p.max_concurrency < 303.0 / 22 + 1e-9);
}

/*
 * llama.cpp (llama_memory_hybrid keeps KV cells and recurrent state for
 * every Falcon-H1 layer; n_embd_r, n_embd_s in llama-hparams.cpp, f32):
 * 0.5B, -c 16384 -np 4, f16 cache: K and V 36 layers x 16384 cells x 128
 * x 2 B each = 150994944 B; state per layer and cell r 3 x (1536 + 256)
 * x 4 B = 21504, s 128 x 1536 x 4 B = 786432; 36 layers x 4 cells:
 * 116342784 B = 110.95 MiB.
 */
static void test_falcon_h1_llama_cpp(void **state)
{
    (void)state;
    kvb_model m = read_ok(FH1_05B);
    kvb_quant q = quant_of(KVB_QUANT_Q4_K_M);
    kvb_gpu g = gpu_of(141 * GIB, 1);
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.context_size = 16384;
    s.max_num_seqs = 4;
    s.max_model_len = 4096;
    kvb_plan p = plan_ok(&m, &q, &g, &s);
    assert_int_equal(p.kv_cache_bytes_per_gpu, 2 * 150994944ull + 116342784ull);
    assert_non_null(strstr(p.warning, "110.95 MiB of recurrent state"));
}

/* Engines that do not run it, or whose pool is not modelled for it,
 * refuse it by name. */
static void test_falcon_h1_engines_refuse(void **state)
{
    (void)state;
    static const int32_t engines[] = {KVB_ENGINE_SGLANG, KVB_ENGINE_TRTLLM,
                                      KVB_ENGINE_TGI, KVB_ENGINE_OLLAMA};
    kvb_model m = read_ok(FH1_7B);
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g = gpu_of(141 * GIB, 1);
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++) {
        kvb_serving s = serving_default();
        s.engine = engines[i];
        kvb_plan p;
        kvb_error e = KVB_ERROR_INIT;
        assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
        kvb_status st = kvb_plan_compute(&m, &q, &g, &s, &p, &e);
        if (st != KVB_EUNSUPPORTED || !strstr(e.message, "falcon_h1"))
            fail_msg("engine %d: status %d, %s", engines[i], st, e.message);
    }
}

/* What is not modelled is refused by name. */
static void test_falcon_h1_refusals(void **state)
{
    (void)state;
    kvb_model m;
    kvb_error e;
    static const char *const keys[] = {"projectors_bias", "attention_bias",
                                       "mlp_bias", "mamba_proj_bias"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char from[64], to[64];
        snprintf(from, sizeof from, "\"%s\": false", keys[i]);
        snprintf(to, sizeof to, "\"%s\": true", keys[i]);
        assert_int_equal(parse(FH1_05B, from, to, &m, &e), KVB_EUNSUPPORTED);
        char field[80];
        snprintf(field, sizeof field, "config.%s", keys[i]);
        assert_string_equal(e.field, field);
    }
    /* Without mamba_d_ssm the width is mamba_expand x hidden = 2048, which
     * 24 heads of 64 do not fill: transformers refuses it too. */
    assert_int_equal(parse(FH1_05B, "\"mamba_d_ssm\": 1536,", "", &m, &e),
                     KVB_EINVAL);
    assert_string_equal(e.field, "config.mamba_d_head");
    /* "auto" head width: d_ssm / heads */
    assert_int_equal(parse(FH1_05B, "\"mamba_d_head\": 64",
                           "\"mamba_d_head\": \"auto\"", &m, &e),
                     KVB_OK);
    assert_int_equal(m.ssm_head_dim, 64);
}

KVB_TESTS(cmocka_unit_test(test_falcon_h1_read),
          cmocka_unit_test(test_falcon_h1_params_by_hand),
          cmocka_unit_test(test_falcon_h1_7b_params_by_hand),
          cmocka_unit_test(test_falcon_h1_tensor_names),
          cmocka_unit_test(test_falcon_h1_kv_and_state),
          cmocka_unit_test(test_falcon_h1_vllm),
          cmocka_unit_test(test_falcon_h1_llama_cpp),
          cmocka_unit_test(test_falcon_h1_engines_refuse),
          cmocka_unit_test(test_falcon_h1_refusals));
