/* test_model.c -- model defaults, validation and parameter counts. */
#include "testing.h"

#include <string.h>

static void test_model_init_defaults(void **state)
{
    (void)state;
    kvb_model m;
    assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
    assert_int_equal(m.struct_size, sizeof m);
    assert_int_equal(m.arch, KVB_ARCH_GENERIC);
    assert_int_equal(m.dtype, KVB_DTYPE_BF16);
    assert_int_equal(m.num_hidden_layers, 0);
    assert_int_equal(kvb_model_init(&m, sizeof m + 8), KVB_EABI);
    assert_int_equal(kvb_model_init(NULL, sizeof m), KVB_EINVAL);
}

static void expect_invalid(kvb_model m, kvb_status status, const char *field)
{
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_model_validate(&m, &e), status);
    assert_int_equal(e.status, status);
    assert_string_equal(e.field, field);
    assert_non_null(strstr(e.message, "allowed"));
}

static void test_model_rejects_absurd_inputs(void **state)
{
    (void)state;
    kvb_model m = tiny_llama();
    assert_int_equal(kvb_model_validate(&m, NULL), KVB_OK);

    m.num_hidden_layers = 1000000000; /* "a trillion layers" class */
    expect_invalid(m, KVB_ERANGE, "model.num_hidden_layers");
    m = tiny_llama();
    m.num_attention_heads = 0;
    expect_invalid(m, KVB_ERANGE, "model.num_attention_heads");
    m = tiny_llama();
    m.num_key_value_heads = 3; /* 4 heads are not a multiple of 3 */
    expect_invalid(m, KVB_EINVAL, "model.num_key_value_heads");
    m = tiny_llama();
    m.hidden_size = 250; /* 250 / 4 heads has no head_dim */
    expect_invalid(m, KVB_EINVAL, "model.head_dim");
    m = tiny_llama();
    m.vocab_size = 0;
    expect_invalid(m, KVB_ERANGE, "model.vocab_size");
    m = tiny_llama();
    m.num_experts = 8; /* experts without a width */
    m.num_experts_per_tok = 2;
    expect_invalid(m, KVB_EINVAL, "model.moe_intermediate_size");
    m.moe_intermediate_size = 128;
    m.num_experts_per_tok = 9;
    expect_invalid(m, KVB_ERANGE, "model.num_experts_per_tok");
    m = tiny_llama();
    m.kv_lora_rank = 64; /* MLA without its head dims */
    expect_invalid(m, KVB_EINVAL, "model.qk_rope_head_dim");
    m = tiny_llama();
    m.flags = 1u << 31;
    expect_invalid(m, KVB_ERANGE, "model.flags");
    m = tiny_llama();
    m.arch = 99;
    expect_invalid(m, KVB_ERANGE, "model.arch");
    m = tiny_llama();
    m.dtype = KVB_DTYPE_FP8;
    expect_invalid(m, KVB_ERANGE, "model.dtype");
}

static void test_model_rejects_overflow(void **state)
{
    (void)state;
    /* Every field at its bound: 1024 layers x 4096 experts x 2^22 x 2^20
     * is 2^66 parameters, which does not fit in 64 bits. */
    kvb_model m = tiny_llama();
    m.num_hidden_layers = 1024;
    m.hidden_size = (uint64_t)1 << 20;
    m.num_attention_heads = 4096;
    m.num_key_value_heads = 4096;
    m.head_dim = 256;
    m.num_experts = 4096;
    m.num_experts_per_tok = 8;
    m.moe_intermediate_size = (uint64_t)1 << 22;
    m.intermediate_size = (uint64_t)1 << 22;
    expect_invalid(m, KVB_EOVERFLOW, "model");
}

static void test_model_rejects_bad_struct_size(void **state)
{
    (void)state;
    kvb_model m = tiny_llama();
    kvb_error e = KVB_ERROR_INIT;
    m.struct_size = 12;
    assert_int_equal(kvb_model_validate(&m, &e), KVB_EABI);
    assert_string_equal(e.field, "model");
    assert_int_equal(kvb_model_validate(NULL, &e), KVB_EINVAL);
}

/* tiny_llama: 2 layers, hidden 256, 4 heads x 64, 2 KV heads, MLP 512,
 * vocab 1000, untied.
 *   embed + lm_head      2 x 1000 x 256            = 512000
 *   per layer: q 256x256 + k,v 2 x 128x256 + o 256x256 = 196608
 *              gate, up, down 3 x 256x512               = 393216
 *              2 norms                                  =    512
 *   2 layers                                            = 1180672
 *   final norm                                          =    256
 *   total                                               = 1692928 */
static void test_model_param_count_by_hand(void **state)
{
    (void)state;
    kvb_model m = tiny_llama();
    uint64_t total = 0, active = 0;
    assert_int_equal(kvb_model_param_count(&m, &total, &active, NULL), KVB_OK);
    assert_int_equal(total, 1692928);
    assert_int_equal(active, 1692928);
    m.tie_word_embeddings = 1; /* lm_head shares the embedding */
    assert_int_equal(kvb_model_param_count(&m, &total, NULL, NULL), KVB_OK);
    assert_int_equal(total, 1692928 - 256000);
    m.flags = KVB_MODEL_ATTN_QKV_BIAS; /* + 2 x (256 + 128 + 128) */
    assert_int_equal(kvb_model_param_count(&m, &total, NULL, NULL), KVB_OK);
    assert_int_equal(total, 1692928 - 256000 + 1024);
}

/* MoE: 4 experts of width 128, top 2, on both layers.
 *   per layer MLP: router 4x256 + 4 x 3 x 256x128 = 1024 + 393216
 *   total = 512000 + 2 x (196608 + 512 + 394240) + 256 = 1694976
 *   active: experts counted twice instead of 4 times:
 *           1694976 - 2 layers x 2 experts x 98304 = 1301760 */
static void test_model_param_count_moe(void **state)
{
    (void)state;
    kvb_model m = tiny_llama();
    m.num_experts = 4;
    m.num_experts_per_tok = 2;
    m.moe_intermediate_size = 128;
    uint64_t total = 0, active = 0;
    assert_int_equal(kvb_model_param_count(&m, &total, &active, NULL), KVB_OK);
    assert_int_equal(total, 1694976);
    assert_int_equal(active, 1301760);
    /* first layer dense: + 393216 - 394240 */
    m.first_k_dense_replace = 1;
    assert_int_equal(kvb_model_param_count(&m, &total, NULL, NULL), KVB_OK);
    assert_int_equal(total, 1694976 - 1024);
}

static void test_model_layer_kinds(void **state)
{
    (void)state;
    kvb_model m = preset_model("Gemma-3-27B");
    /* Gemma 3: layer i is global iff (i + 1) % 6 == 0: 10 of 62 */
    uint32_t global = 0;
    for (uint32_t i = 0; i < m.num_hidden_layers; i++)
        global += kvb__layer_attn(&m, i) == KVB__ATTN_FULL;
    assert_int_equal(global, 10);
    m = preset_model("Llama-4-Maverick-17B-128E");
    /* Maverick: MoE on odd layers (interleave step 2): 24 of 48; three of
     * every four layers use chunked attention: 36 */
    uint32_t moe = 0, chunked = 0;
    for (uint32_t i = 0; i < m.num_hidden_layers; i++) {
        moe += kvb__layer_is_moe(&m, i);
        chunked += kvb__layer_attn(&m, i) == KVB__ATTN_CHUNKED;
    }
    assert_int_equal(moe, 24);
    assert_int_equal(chunked, 36);
    assert_false(kvb__layer_is_moe(&m, 0));
    assert_true(kvb__layer_is_moe(&m, 1));
}

static void test_model_names(void **state)
{
    (void)state;
    int32_t v = -1;
    assert_int_equal(kvb_arch_find("Qwen3_MoE", &v, NULL), KVB_OK);
    assert_int_equal(v, KVB_ARCH_QWEN3_MOE);
    assert_int_equal(kvb_arch_find("gemma3_text", &v, NULL), KVB_OK);
    assert_int_equal(v, KVB_ARCH_GEMMA3);
    assert_string_equal(kvb_arch_name(KVB_ARCH_DEEPSEEK_V3), "deepseek_v3");
    assert_null(kvb_arch_name(999));
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_arch_find("t5", &v, &e), KVB_ENOTFOUND);
    assert_string_equal(e.field, "model.arch");
    assert_int_equal(kvb_dtype_find("bfloat16", &v, NULL), KVB_OK);
    assert_int_equal(v, KVB_DTYPE_BF16);
    assert_string_equal(kvb_dtype_name(KVB_DTYPE_FP8), "fp8");
    assert_int_equal(kvb_dtype_find(NULL, &v, &e), KVB_EINVAL);
}

static void test_model_tensor_inventory(void **state)
{
    (void)state;
    kvb_model m = tiny_llama();
    size_t n = 0;
    assert_int_equal(kvb_model_tensor_count(&m, &n, NULL), KVB_OK);
    /* embed + 2 x (norm, q, k, v, o, norm, gate, up, down) + norm + head */
    assert_int_equal(n, 1 + 2 * 9 + 2);
    kvb_tensor t;
    memset(&t, 0, sizeof t);
    t.struct_size = sizeof t;
    assert_int_equal(kvb_model_tensor_get(&m, NULL, 3, &t, NULL), KVB_OK);
    assert_string_equal(t.name, "model.layers.0.self_attn.k_proj.weight");
    assert_int_equal(t.role, KVB_ROLE_ATTN_K);
    assert_int_equal(t.rows, 128); /* 2 KV heads x 64 */
    assert_int_equal(t.cols, 256);
    assert_int_equal(t.bytes, 128 * 256 * 2);
    assert_int_equal(t.split, KVB_SPLIT_KV_HEADS);
    assert_int_equal(kvb_model_tensor_get(&m, NULL, n - 1, &t, NULL), KVB_OK);
    assert_string_equal(t.name, "lm_head.weight");
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_model_tensor_get(&m, NULL, n, &t, &e), KVB_ERANGE);
    assert_string_equal(e.field, "index");
}

KVB_TESTS(cmocka_unit_test(test_model_init_defaults),
          cmocka_unit_test(test_model_rejects_absurd_inputs),
          cmocka_unit_test(test_model_rejects_overflow),
          cmocka_unit_test(test_model_rejects_bad_struct_size),
          cmocka_unit_test(test_model_param_count_by_hand),
          cmocka_unit_test(test_model_param_count_moe),
          cmocka_unit_test(test_model_layer_kinds),
          cmocka_unit_test(test_model_names),
          cmocka_unit_test(test_model_tensor_inventory));
