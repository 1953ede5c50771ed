/*
 * test_mllama.c -- Llama 3.2 Vision (mllama): the config.json reading, the
 * parameter count of the text model with its cross-attention layers and of
 * the tiled vision tower, the KV per token and per image, the plan on the
 * vLLM releases that serve it and the refusals everywhere else, each
 * worked out here by hand.  Config files and sources:
 * tests/data/configs/SOURCES.md.
 */
#include "testing.h"

#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define MLLAMA_11B "configs/llama-3.2-11b-vision-instruct.json"
#define MLLAMA_90B "configs/llama-3.2-90b-vision-instruct.json"

/*
 * The vision tower and projector (transformers models/mllama/
 * modeling_mllama.py MllamaVisionModel; width 1280, MLP 5120, 560 px,
 * patch 14: 40 x 40 + 1 = 1601 positions per tile, 4 tiles, 8 aspect
 * ratios + 1 ids):
 *   patch conv 1280 x 3 x 14 x 14 = 752640, class embedding 1280,
 *   gated positions 1 + 1601 x 1280 + 9 x 4 x 1601 x 1280 = 75823361,
 *   pre- and post-tile embeddings 2 x (9 x 4 x 1280 + 1) = 92162,
 *   layernorm_pre/post 4 x 1280 = 5120,
 *   a layer: q, k, v, o 4 x 1280^2, fc1 and fc2 with biases 2 x 1280 x
 *   5120 + 5120 + 1280, two LayerNorms 4 x 1280 = 19672320; 32 local
 *   layers and 8 global ones with two gates each;
 *   projector (5 + 1) x 1280 = 7680 -> text width, with a bias.
 */
static uint64_t tower(uint64_t text_width)
{
    uint64_t layer = 4 * 1280 * 1280 + 2 * 1280 * 5120 + 5120 + 1280 + 4 * 1280;
    assert_int_equal(layer, 19672320);
    return 752640 + 1280 + 75823361 + 92162 + 5120 + 32 * layer +
           8 * (layer + 2) + 7680 * text_width + text_width;
}

/*
 * The text model (MllamaTextModel, MllamaForCausalLM): embed_tokens of
 * vocab 128256 + 8 rows, lm_head of 128256, the final norm; a
 * self-attention layer is Llama's (q, o h x h, k, v h x 1024, gate/up/down
 * h x ff, two norms); a cross-attention layer adds q_norm and k_norm (128
 * each) and two tanh gates.
 * 11B: h 4096, ff 14336, 40 layers of which 8 cross:
 *   layer 41943040 + 176160768 + 8192 = 218112000; 40 x that + 8 x 258 +
 *   128264 x 4096 + 128256 x 4096 + 4096 = 9775192080; with the tower
 *   863567379 and projector 31461376: 10670220835, the count Hugging Face
 *   publishes for meta-llama/Llama-3.2-11B-Vision-Instruct (10.67B; the
 *   model card's "11B (10.6)").
 * 90B: h 8192, 64 heads, ff 28672, 100 layers of which 20 cross: the
 *   model card's 88.6B.
 */
static void test_mllama_params_by_hand(void **state)
{
    (void)state;
    uint64_t h = 4096, layer = 2 * h * h + 2 * h * 1024 + 3 * h * 14336 + 2 * h;
    assert_int_equal(layer, 218112000);
    uint64_t text =
        40 * layer + 8 * (2 * 128 + 2) + 128264 * h + 128256 * h + h;
    assert_int_equal(text, 9775192080ull);
    assert_int_equal(tower(h), 863567379ull + 31461376ull);
    assert_int_equal(text + tower(h), 10670220835ull);
    kvb_model m = config_ok(MLLAMA_11B);
    assert_int_equal(model_params(&m), 10670220835ull);

    h = 8192;
    layer = 2 * h * h + 2 * h * 1024 + 3 * h * 28672 + 2 * h;
    text = 100 * layer + 20 * 258 + 128264 * h + 128256 * h + h;
    assert_int_equal(text + tower(h), 88593355323ull);
    m = config_ok(MLLAMA_90B);
    assert_int_equal(model_params(&m), 88593355323ull);
    /* 88.6B, as the model card rounds it */
    assert_int_equal((model_params(&m) + 50000000) / 100000000, 886);
}

static void test_mllama_read(void **state)
{
    (void)state;
    kvb_model m = config_ok(MLLAMA_11B);
    assert_int_equal(m.arch, KVB_ARCH_MLLAMA);
    assert_string_equal(kvb_arch_name(m.arch), "mllama");
    assert_string_equal(m.layer_pattern,
                        "AAAXAAAAXAAAAXAAAAXAAAAXAAAAXAAAAXAAAAXA");
    assert_int_equal(m.hidden_size, 4096);
    assert_int_equal(m.num_key_value_heads, 8);
    assert_int_equal(m.vocab_size, 128256);
    assert_int_equal(m.tie_word_embeddings, 0);
    assert_int_equal(m.rope_scaling_type, KVB_ROPE_LLAMA3);
    assert_int_equal(m.vision_kind, KVB_VISION_MLLAMA);
    assert_int_equal(m.vision_num_layers, 32);
    assert_int_equal(m.vision_global_layers, 8);
    assert_int_equal(m.vision_num_heads, 16);
    assert_int_equal(m.vision_hidden_size, 1280);
    assert_int_equal(m.vision_image_size, 560);
    assert_int_equal(m.vision_patch_size, 14);
    assert_int_equal(m.vision_max_tiles, 4);
    assert_int_equal(m.vision_aspect_ratios, 8);
    assert_int_equal(m.vision_out_hidden_size, 7680);
    /* the preset row is the file, field for field */
    kvb_model p = preset_model("Llama-3.2-11B-Vision-Instruct");
    memset(p.name, 0, sizeof p.name);
    memset(m.name, 0, sizeof m.name);
    assert_memory_equal(&p, &m, sizeof m);
    kvb_model b = config_ok(MLLAMA_90B);
    assert_int_equal(kvb__count_kind(&b, 0, 100, 'X'), 20);
    assert_int_equal(b.layer_pattern[98], 'X');
}

/* Cross-attention tensors carry HF's names (cross_attn.*, the gates). */
static void test_mllama_tensor_names(void **state)
{
    (void)state;
    static const char *const want[] = {
        "model.layers.3.cross_attn.q_proj.weight",
        "model.layers.3.cross_attn.k_proj.weight",
        "model.layers.3.cross_attn.q_norm.weight",
        "model.layers.3.cross_attn.k_norm.weight",
        "model.layers.3.cross_attn.o_proj.weight",
        "model.layers.3.cross_attn_attn_gate",
        "model.layers.3.cross_attn_mlp_gate",
        "model.layers.4.self_attn.q_proj.weight",
    };
    kvb_model m = config_ok(MLLAMA_11B);
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
        assert_null(strstr(t.name, "layers.3.self_attn"));
    }
    assert_int_equal(found, sizeof want / sizeof want[0]);
}

/*
 * KV, 11B in BF16: one layer keeps 2 x 8 KV heads x 128 x 2 B = 4096 B
 * per token.  The 32 self-attention layers keep 131072 B per text token;
 * vLLM V0 gives all 40 layers a page per block (CacheEngine), so a token
 * costs 163840 B there.  An image adds 4 tiles x (40 x 40 + 1) = 6404
 * encoder tokens, whose K/V the 8 cross-attention layers keep for the
 * request: 8 x 6404 x 4096 = 209846272 B; TP 2 halves each.
 */
static void test_mllama_kv(void **state)
{
    (void)state;
    kvb_model m = config_ok(MLLAMA_11B);
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    assert_int_equal(kvb__kv_layer_token_bytes(&m, &q, 1), 4096);
    assert_int_equal(kvb__count_kind(&m, 0, 40, 'A') *
                         kvb__kv_layer_token_bytes(&m, &q, 1),
                     131072);
    uint64_t whole = 0, per_gpu = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_kv_bytes_per_token(&m, &q, 2, 1, &whole, &per_gpu, &e),
                     KVB_OK);
    assert_int_equal(whole, 163840);
    assert_int_equal(per_gpu, 163840 / 2);
    assert_int_equal(kvb__cross_tokens_per_image(&m), 6404);
    assert_int_equal(kvb__cross_kv_bytes_per_image(&m, &q, 1), 209846272ull);
    assert_int_equal(kvb__cross_kv_bytes_per_image(&m, &q, 2),
                     209846272ull / 2);
}

static kvb_status plan_on(const kvb_model *m, int32_t engine, uint32_t version,
                          int32_t accounting, kvb_plan *p, kvb_error *e)
{
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g = gpu_of(80 * GIB, 1);
    g.compute_capability = 90;
    kvb_serving s = serving_default();
    s.engine = engine;
    s.engine_version = version;
    s.accounting = accounting;
    s.max_model_len = 8192;
    assert_int_equal(KVB_PLAN_INIT(p), KVB_OK);
    assert_int_equal(kvb_error_init(e, sizeof *e), KVB_OK);
    return kvb_plan_compute(m, &q, &g, &s, p, e);
}

/*
 * vLLM 0.10.1 (V0: mllama is SupportsV0Only): blocks of 16 tokens x
 * 163840 B = 2621440 B over all 40 layers; the blocks are the budget
 * divided by that, and the plan says what an image request adds: 6404
 * encoder tokens = cdiv(6404, 16) = 401 blocks.  0.6.2 serves it too.
 */
static void test_mllama_vllm(void **state)
{
    (void)state;
    kvb_model m = config_ok(MLLAMA_11B);
    kvb_plan p;
    kvb_error e;
    kvb_status st = plan_on(&m, KVB_ENGINE_VLLM, 1001, -1, &p, &e);
    if (st)
        fail_msg("%s %s: %s", kvb_status_name(st), e.field, e.message);
    assert_int_equal(p.accounting, KVB_ACCOUNTING_VLLM_V0);
    assert_int_equal(p.kv_bytes_per_token, 163840);
    assert_int_equal(p.block_size, 16);
    assert_true(p.num_blocks > 0);
    assert_int_equal(p.num_blocks, p.kv_budget_bytes_per_gpu / 2621440);
    assert_int_equal(p.max_kv_tokens, p.num_blocks * 16);
    assert_non_null(strstr(p.warning, "6404 encoder tokens"));
    assert_non_null(strstr(p.warning, "401 blocks"));
    assert_int_equal(plan_on(&m, KVB_ENGINE_VLLM, 602, -1, &p, &e), KVB_OK);
    assert_int_equal(p.accounting, KVB_ACCOUNTING_VLLM_V0);
}

/* Where it is not served, or not modelled, it is refused by name. */
static void test_mllama_refused(void **state)
{
    (void)state;
    kvb_model m = config_ok(MLLAMA_11B);
    kvb_plan p;
    kvb_error e;
    /* PR #24907 removed it: 0.11.0 and the newest release */
    assert_int_equal(plan_on(&m, KVB_ENGINE_VLLM, 1100, -1, &p, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "serving.engine_version");
    assert_non_null(strstr(e.message, "vLLM 0.11.0 does not serve mllama"));
    assert_int_equal(plan_on(&m, KVB_ENGINE_VLLM, 0, -1, &p, &e),
                     KVB_EUNSUPPORTED);
    assert_non_null(strstr(e.message, "PR #24907"));
    /* PR #8811 added it in 0.6.2 */
    assert_int_equal(plan_on(&m, KVB_ENGINE_VLLM, 601, -1, &p, &e),
                     KVB_EUNSUPPORTED);
    assert_non_null(strstr(e.message, "PR #8811"));
    /* V1 never ran it */
    assert_int_equal(
        plan_on(&m, KVB_ENGINE_VLLM, 1001, KVB_ACCOUNTING_VLLM_V1, &p, &e),
        KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "serving.accounting");
    static const struct {
        int32_t engine;
        const char *says;
    } others[] = {
        {KVB_ENGINE_OLLAMA, "from 0.30.0 (PR #16031)"},
        {KVB_ENGINE_LLAMA_CPP, "llama.cpp has no mllama architecture"},
        {KVB_ENGINE_SGLANG, "on SGLang is not modelled"},
        {KVB_ENGINE_TGI, "cross_attention_states"},
        {KVB_ENGINE_TRTLLM, "cross_kv_cache_fraction"},
    };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        assert_int_equal(plan_on(&m, others[i].engine, 0, -1, &p, &e),
                         KVB_EUNSUPPORTED);
        assert_string_equal(e.field, "serving.engine");
        if (!strstr(e.message, others[i].says) ||
            !strstr(e.message, "; allowed: vLLM 0.6.2 to 0.10.2 (V0)"))
            fail_msg("engine %d: %s", others[i].engine, e.message);
    }
}

/* A config without a usable cross_attention_layers is refused. */
static void test_mllama_reader_refusals(void **state)
{
    (void)state;
    kvb_model m;
    kvb_error e;
    assert_int_equal(config_edited(MLLAMA_11B, "\"cross_attention_layers\"",
                                   "\"cross_layers_renamed\"", &m, &e),
                     KVB_EINVAL);
    assert_string_equal(e.field, "config.text_config.cross_attention_layers");
    assert_int_equal(
        config_edited(MLLAMA_11B, "      38\n", "      40\n", &m, &e),
        KVB_ERANGE);
    assert_int_equal(
        config_edited(MLLAMA_11B, "      38\n", "      33\n", &m, &e),
        KVB_ERANGE);
}

KVB_TESTS(cmocka_unit_test(test_mllama_params_by_hand),
          cmocka_unit_test(test_mllama_read),
          cmocka_unit_test(test_mllama_tensor_names),
          cmocka_unit_test(test_mllama_kv), cmocka_unit_test(test_mllama_vllm),
          cmocka_unit_test(test_mllama_refused),
          cmocka_unit_test(test_mllama_reader_refusals));
