/*
 * test_gemma_phi.c -- Gemma (the first: Gemma-2B, Gemma-7B) and Phi
 * (Phi-1.5, Phi-2), each added to the config reader as one row of
 * lib/readers/config_families.c: their config files (tests/data/configs,
 * SOURCES.md), parameter counts summed here by hand from the shapes of
 * transformers' modeling_gemma.py and modeling_phi.py and compared with
 * the published totals, the KV per token, Phi's tensor names, and vLLM
 * plans.
 */
#include "testing.h"

#include "readers/config.h"

#include <string.h>

/* A vLLM plan on one H100 (80 GB) per rank; kv_memory pins the KV cache
 * (--kv-cache-memory) when not 0. */
static kvb_plan vllm_plan(const kvb_model *m, uint32_t tp, uint64_t kv_memory)
{
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    assert_int_equal(kvb_preset_gpu_find("H100", &g, &e), KVB_OK);
    g.count = tp;
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_VLLM;
    s.tensor_parallel_size = tp;
    s.kv_cache_memory_bytes = kv_memory;
    return plan_ok(m, &q, &g, &s);
}

/* The budget terms add up, and the blocks fill what is left for KV. */
static void budget_adds_up(const kvb_plan *p)
{
    uint64_t spent = p->weights_bytes_per_gpu + p->non_torch_bytes_per_gpu +
                     p->activation_bytes_per_gpu +
                     (p->cudagraph_in_budget ? p->cudagraph_bytes_per_gpu : 0);
    assert_true(p->fits);
    assert_int_equal(p->kv_budget_bytes_per_gpu,
                     p->usable_bytes_per_gpu - spent);
    assert_int_equal(p->num_blocks,
                     p->kv_budget_bytes_per_gpu / p->block_bytes_per_gpu);
    assert_int_equal(p->max_kv_tokens, p->num_blocks * p->block_size);
}

/* ---- Gemma ---- */

/*
 * A Gemma layer (modeling_gemma.py GemmaDecoderLayer): q_proj hidden x
 * heads x 256, k_proj and v_proj hidden x kv x 256, o_proj back, a gated
 * MLP of 3 x hidden x intermediate, input and post-attention RMSNorms; the
 * model adds the embeddings (tied to lm_head) and the final norm.
 */
static uint64_t gemma_by_hand(uint64_t layers, uint64_t h, uint64_t heads,
                              uint64_t kv, uint64_t ff, uint64_t vocab)
{
    uint64_t attn = 2 * h * heads * 256 + 2 * h * kv * 256;
    uint64_t layer = attn + 3 * h * ff + 2 * h;
    return layers * layer + vocab * h + h;
}

/* The row alone: no code of Gemma's own in the reader. */
static void test_gemma_is_a_row(void **state)
{
    (void)state;
    const kvb__family *f = kvb__family_find("gemma");
    assert_non_null(f);
    assert_int_equal(f->arch, KVB_ARCH_GEMMA);
    assert_null(f->early);
    assert_null(f->late);
    assert_null(f->ssm);
    assert_string_equal(kvb_arch_name(KVB_ARCH_GEMMA), "gemma");
}

/*
 * Gemma-2B (gemma-2b.json): 18 layers x 2048, 8 heads and one KV head
 * (MQA) of 256, MLP 16384, vocab 256000, tied: by hand
 *   attention 2 x 2048 x 2048 + 2 x 2048 x 256 = 9437184,
 *   layer 9437184 + 3 x 2048 x 16384 + 2 x 2048 = 110104576,
 *   18 layers + 256000 x 2048 + 2048 = 2506172416,
 * the "params" KerasHub publishes for gemma_2b_en (keras-hub
 * keras_hub/src/models/gemma/gemma_presets.py).
 */
static void test_gemma_2b(void **state)
{
    (void)state;
    kvb_model m = config_ok("configs/gemma-2b.json");
    assert_int_equal(m.arch, KVB_ARCH_GEMMA);
    assert_int_equal(m.flags, 0);
    assert_int_equal(m.tie_word_embeddings, 1);
    assert_int_equal(m.num_hidden_layers, 18);
    assert_int_equal(m.hidden_size, 2048);
    assert_int_equal(m.num_attention_heads, 8);
    assert_int_equal(m.num_key_value_heads, 1);
    assert_int_equal(m.head_dim, 256);
    assert_int_equal(m.intermediate_size, 16384);
    assert_int_equal(m.vocab_size, 256000);
    assert_int_equal(m.max_position_embeddings, 8192);
    assert_int_equal(m.sliding_window, 0);
    assert_int_equal(m.dtype, KVB_DTYPE_BF16);
    assert_int_equal(gemma_by_hand(18, 2048, 8, 1, 16384, 256000),
                     2506172416ull);
    assert_int_equal(model_params(&m), 2506172416ull);
}

/*
 * Gemma-7B (gemma-7b.json): 28 layers x 3072, 16 heads and 16 KV heads of
 * 256 (q is 4096 wide, wider than the model), MLP 24576: by hand
 *   attention 4 x 3072 x 4096 = 50331648,
 *   layer 50331648 + 3 x 3072 x 24576 + 2 x 3072 = 276830208,
 *   28 layers + 256000 x 3072 + 3072 = 8537680896,
 * KerasHub's "params" for gemma_7b_en.  The config leaves nothing out, so
 * GemmaConfig's defaults (the 7B's shape) give the same model from "{}".
 */
static void test_gemma_7b(void **state)
{
    (void)state;
    kvb_model m = config_ok("configs/gemma-7b.json");
    assert_int_equal(m.num_key_value_heads, 16);
    assert_int_equal(m.head_dim, 256);
    assert_int_equal(gemma_by_hand(28, 3072, 16, 16, 24576, 256000),
                     8537680896ull);
    assert_int_equal(model_params(&m), 8537680896ull);
    static const char bare[] = "{\"model_type\": \"gemma\"}";
    kvb_model d;
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_read_info info;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_MODEL_INIT(&d), KVB_OK);
    assert_int_equal(KVB_READ_INFO_INIT(&info), KVB_OK);
    assert_int_equal(kvb_config_parse(bare, strlen(bare), &d, &q, &info, &e),
                     KVB_OK);
    assert_int_equal(model_params(&d), 8537680896ull);
}

/*
 * KV per token, K and V of every layer in bf16: Gemma-2B 2 x 18 x 1 x 256
 * x 2 B = 18432; Gemma-7B 2 x 28 x 16 x 256 x 2 B = 458752.  Under TP 2
 * the 2B's one KV head is on both ranks (vLLM replicates KV heads fewer
 * than the ranks), so each rank holds all 18432 B; the 7B's split.
 */
static void test_gemma_kv(void **state)
{
    (void)state;
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_error e = KVB_ERROR_INIT;
    uint64_t whole = 0, per_gpu = 0;
    kvb_model m = config_ok("configs/gemma-2b.json");
    assert_int_equal(kvb_kv_bytes_per_token(&m, &q, 2, 1, &whole, &per_gpu, &e),
                     KVB_OK);
    assert_int_equal(whole, 18432);
    assert_int_equal(per_gpu, 18432);
    m = config_ok("configs/gemma-7b.json");
    assert_int_equal(kvb_kv_bytes_per_token(&m, &q, 2, 1, &whole, &per_gpu, &e),
                     KVB_OK);
    assert_int_equal(whole, 458752);
    assert_int_equal(per_gpu, 229376);
}

/*
 * vLLM (newest), one H100, 8192 tokens (max_position_embeddings): the
 * checkpoint is 2 B a parameter; each GPU holds it (the vocabulary, a
 * multiple of 64, needs no padding) and the RotaryEmbedding's
 * cos_sin_cache of 8192 positions x 256 x 2 B = 4194304; with the KV
 * cache pinned at 20 GiB the blocks are 16
 * tokens of 18432 B (2B) or 458752 B (7B): 2B 21474836480 / 294912 =
 * 72817 blocks, 1165072 tokens, 142.2 requests of 8192; 7B 21474836480 /
 * 7340032 = 2925 blocks, 46800 tokens, 5.7 requests.
 */
static void test_gemma_vllm(void **state)
{
    (void)state;
    kvb_model m = config_ok("configs/gemma-2b.json");
    kvb_plan p = vllm_plan(&m, 1, 0);
    assert_int_equal(p.max_model_len, 8192);
    assert_int_equal(p.weights_bytes, 2 * 2506172416ull);
    assert_int_equal(p.weights_bytes_per_gpu, 2 * 2506172416ull + 4194304);
    assert_int_equal(p.kv_bytes_per_token, 18432);
    budget_adds_up(&p);
    p = vllm_plan(&m, 1, 20 * GIB);
    assert_int_equal(p.num_blocks, 72817);
    assert_int_equal(p.max_kv_tokens, 1165072);
    assert_true(p.max_concurrency > 142.2 && p.max_concurrency < 142.3);
    m = config_ok("configs/gemma-7b.json");
    p = vllm_plan(&m, 1, 0);
    assert_int_equal(p.weights_bytes_per_gpu, 2 * 8537680896ull + 4194304);
    budget_adds_up(&p);
    p = vllm_plan(&m, 1, 20 * GIB);
    assert_int_equal(p.num_blocks, 2925);
    assert_int_equal(p.max_kv_tokens, 46800);
    assert_true(p.max_concurrency > 5.71 && p.max_concurrency < 5.72);
}

/* ---- Phi ---- */

/*
 * A Phi layer (modeling_phi.py PhiDecoderLayer): q_proj, k_proj, v_proj
 * and dense, hidden x hidden with biases; fc1 and fc2 with biases; one
 * LayerNorm (weight and bias) before attention and MLP alike.  The model
 * adds the embeddings, final_layernorm and an lm_head with a bias.
 */
static uint64_t phi_by_hand(uint64_t layers, uint64_t h, uint64_t ff,
                            uint64_t vocab)
{
    uint64_t layer = 4 * (h * h + h) + (h * ff + ff) + (ff * h + h) + 2 * h;
    return layers * layer + vocab * h + 2 * h + (vocab * h + vocab);
}

static void test_phi_is_a_row(void **state)
{
    (void)state;
    const kvb__family *f = kvb__family_find("phi");
    assert_non_null(f);
    assert_int_equal(f->arch, KVB_ARCH_PHI);
    assert_null(f->early);
    assert_null(f->late);
    assert_null(f->ssm);
    assert_string_equal(kvb_arch_name(KVB_ARCH_PHI), "phi");
}

/*
 * Phi-2 (phi-2.json): 32 layers x 2560, 32 heads of 80 (hidden / heads;
 * partial_rotary_factor 0.4 rotates 32 of them), MLP 10240, vocab 51200,
 * untied, float16.  By hand: layer 4 x (2560^2 + 2560) + (2560 x 10240 +
 * 10240) + (10240 x 2560 + 2560) + 2 x 2560 = 78671360; 32 layers +
 * 131072000 embeddings + 5120 final norm + 131123200 lm_head with its
 * bias = 2779683840, Hugging Face's safetensors count for microsoft/phi-2
 * (F16 2779683840, as a public test fixture of the Hub's API answer
 * quotes it).  Phi-1.5's shape (24 x 2048, MLP 8192, PhiConfig's keys)
 * gives 1418270720, its "safetensors_total_params" on the Hub.
 */
static void test_phi_2(void **state)
{
    (void)state;
    kvb_model m = config_ok("configs/phi-2.json");
    assert_int_equal(m.arch, KVB_ARCH_PHI);
    assert_int_equal(m.flags, KVB_MODEL_ATTN_QKV_BIAS | KVB_MODEL_ATTN_O_BIAS |
                                  KVB_MODEL_MLP_BIAS | KVB_MODEL_NORM_BIAS |
                                  KVB_MODEL_MLP_NO_GATE |
                                  KVB_MODEL_PARALLEL_ATTN |
                                  KVB_MODEL_LM_HEAD_BIAS);
    assert_int_equal(m.num_hidden_layers, 32);
    assert_int_equal(m.hidden_size, 2560);
    assert_int_equal(m.num_attention_heads, 32);
    assert_int_equal(m.num_key_value_heads, 32);
    assert_int_equal(kvb__head_dim(&m), 80);
    assert_int_equal(m.intermediate_size, 10240);
    assert_int_equal(m.vocab_size, 51200);
    assert_int_equal(m.max_position_embeddings, 2048);
    assert_int_equal(m.tie_word_embeddings, 0);
    assert_int_equal(m.dtype, KVB_DTYPE_FP16);
    assert_int_equal(phi_by_hand(32, 2560, 10240, 51200), 2779683840ull);
    assert_int_equal(model_params(&m), 2779683840ull);
    static const char phi_1_5[] =
        "{\"model_type\": \"phi\", \"hidden_size\": 2048, "
        "\"intermediate_size\": 8192, \"num_hidden_layers\": 24, "
        "\"num_attention_heads\": 32, \"num_key_value_heads\": 32, "
        "\"partial_rotary_factor\": 0.5, \"vocab_size\": 51200, "
        "\"max_position_embeddings\": 2048, \"tie_word_embeddings\": false}";
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_read_info info;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_READ_INFO_INIT(&info), KVB_OK);
    assert_int_equal(
        kvb_config_parse(phi_1_5, strlen(phi_1_5), &m, &q, &info, &e), KVB_OK);
    assert_int_equal(phi_by_hand(24, 2048, 8192, 51200), 1418270720ull);
    assert_int_equal(model_params(&m), 1418270720ull);
}

/* The checkpoint's tensor names (modeling_phi.py): 14 a layer, then the
 * embeddings, final_layernorm's weight and bias, lm_head's weight and
 * bias: 32 x 14 + 5 = 453. */
static void test_phi_tensor_names(void **state)
{
    (void)state;
    static const char *const want[] = {
        "model.embed_tokens.weight",
        "model.layers.0.input_layernorm.weight",
        "model.layers.0.input_layernorm.bias",
        "model.layers.0.self_attn.q_proj.weight",
        "model.layers.0.self_attn.q_proj.bias",
        "model.layers.0.self_attn.v_proj.bias",
        "model.layers.0.self_attn.dense.weight",
        "model.layers.0.self_attn.dense.bias",
        "model.layers.0.mlp.fc1.weight",
        "model.layers.0.mlp.fc1.bias",
        "model.layers.31.mlp.fc2.weight",
        "model.layers.31.mlp.fc2.bias",
        "model.final_layernorm.weight",
        "model.final_layernorm.bias",
        "lm_head.weight",
        "lm_head.bias",
    };
    kvb_model m = config_ok("configs/phi-2.json");
    size_t n = 0, found = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_model_tensor_count(&m, &n, &e), KVB_OK);
    assert_int_equal(n, 32 * 14 + 5);
    for (size_t i = 0; i < n; i++) {
        kvb_tensor t;
        memset(&t, 0, sizeof t);
        t.struct_size = sizeof t;
        assert_int_equal(kvb_model_tensor_get(&m, NULL, i, &t, &e), KVB_OK);
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
            found += strcmp(t.name, want[k]) == 0;
        if (strstr(t.name, "post_attention") || strstr(t.name, "gate"))
            fail_msg("Phi has no %s", t.name);
    }
    assert_int_equal(found, sizeof want / sizeof want[0]);
}

/*
 * KV per token: 2 x 32 layers x 32 heads x 80 x 2 B = 327680.  vLLM
 * (newest), one H100, 2048 tokens: the checkpoint is 2 B a parameter;
 * with the KV cache pinned at 20 GiB, 21474836480 / (16 x 327680) = 4096
 * blocks exactly, 65536 tokens, 32 requests of 2048.
 */
static void test_phi_kv_and_vllm(void **state)
{
    (void)state;
    kvb_model m = config_ok("configs/phi-2.json");
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_error e = KVB_ERROR_INIT;
    uint64_t whole = 0, per_gpu = 0;
    assert_int_equal(kvb_kv_bytes_per_token(&m, &q, 1, 1, &whole, &per_gpu, &e),
                     KVB_OK);
    assert_int_equal(whole, 327680);
    kvb_plan p = vllm_plan(&m, 1, 0);
    assert_int_equal(p.max_model_len, 2048);
    assert_int_equal(p.param_count, 2779683840ull);
    assert_int_equal(p.weights_bytes, 2 * 2779683840ull);
    assert_int_equal(p.kv_bytes_per_token, 327680);
    budget_adds_up(&p);
    p = vllm_plan(&m, 1, 20 * GIB);
    assert_int_equal(p.num_blocks, 4096);
    assert_int_equal(p.max_kv_tokens, 65536);
    assert_true(p.max_concurrency > 32.0 - 1e-9 &&
                p.max_concurrency < 32.0 + 1e-9);
}

/* What vLLM's phi.py cannot load is refused by name: q/k layernorms, a
 * tied lm_head. */
static void test_phi_refusals(void **state)
{
    (void)state;
    kvb_model m;
    kvb_error e;
    assert_int_equal(config_edited("configs/phi-2.json",
                                   "\"qk_layernorm\": false",
                                   "\"qk_layernorm\": true", &m, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "config.qk_layernorm");
    assert_int_equal(config_edited("configs/phi-2.json",
                                   "\"tie_word_embeddings\": false",
                                   "\"tie_word_embeddings\": true", &m, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "config.tie_word_embeddings");
}

KVB_TESTS(cmocka_unit_test(test_gemma_is_a_row),
          cmocka_unit_test(test_gemma_2b), cmocka_unit_test(test_gemma_7b),
          cmocka_unit_test(test_gemma_kv), cmocka_unit_test(test_gemma_vllm),
          cmocka_unit_test(test_phi_is_a_row), cmocka_unit_test(test_phi_2),
          cmocka_unit_test(test_phi_tensor_names),
          cmocka_unit_test(test_phi_kv_and_vllm),
          cmocka_unit_test(test_phi_refusals));
