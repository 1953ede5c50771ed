/*
 * test_config_families.c -- the family table of the config reader
 * (lib/readers/config_families.c): every arch has a row under its
 * kvb_arch_name(), and families that are nothing but their row read
 * right.
 *
 * Nemotron-H and GLM-4.5 are the proof that a family is a row: before the
 * table, each had code of its own in config.c (nemotron_h() with its
 * options and its two pattern spellings; a case of bias_flags() for
 * glm4_moe); now their rows name no hook, so everything checked below
 * comes from the data of the row: Nemotron-H's pattern letters and block
 * names, its Mamba2 key spellings, mixer keys, MoE flag and state dtype
 * key; GLM's two key rules.  Expected values are the numbers written in
 * the config files (tests/data/configs, SOURCES.md).
 */
#include "testing.h"

#include "readers/config.h"

#include <string.h>

static void no_code(const char *type)
{
    const kvb__family *f = kvb__family_find(type);
    assert_non_null(f);
    if (f->early || f->late || f->ssm_head)
        fail_msg("%s: its row names a hook; this test is about rows that "
                 "are only data",
                 type);
}

/* Every arch resolves, under its kvb_arch_name(), to a row of that arch
 * whose first model_type is that name; names the reader accepts for a
 * family (Qwen2-VL's, Granite 3's, RefinedWeb) resolve to it too. */
static void test_every_arch_has_its_row(void **state)
{
    (void)state;
    for (int32_t a = 0; a < KVB_ARCH_LAST_; a++) {
        const char *name = kvb_arch_name(a);
        assert_non_null(name);
        const kvb__family *f = kvb__family_find(name);
        if (!f || f->arch != a)
            fail_msg("arch %d (%s) has no row of its own", a, name);
        size_t n = strcspn(f->types, ",");
        if (strlen(name) != n || strncmp(f->types, name, n) != 0)
            fail_msg("arch %d: row names %s first, kvb_arch_name %s", a,
                     f->types, name);
        assert_ptr_equal(kvb__family_of(a), f);
    }
    assert_int_equal(kvb__family_find("qwen2_5_vl")->arch, KVB_ARCH_QWEN2);
    assert_int_equal(kvb__family_find("GRANITE")->arch, KVB_ARCH_LLAMA);
    assert_int_equal(kvb__family_find("RefinedWebModel")->arch,
                     KVB_ARCH_FALCON);
    assert_int_equal(kvb__family_find("kimi_k2")->arch, KVB_ARCH_DEEPSEEK_V3);
    assert_null(kvb__family_find("my_llama"));
    assert_null(kvb__family_find("qwen"));
}

/*
 * NVIDIA-Nemotron-Nano-9B-v2 (tests/data/configs/nemotron-nano-9b-v2.json)
 * read through its row alone: the 56 blocks of hybrid_override_pattern,
 * Mamba2 sizes from mamba_num_heads 128, mamba_head_dim 80, n_groups 8,
 * ssm_state_size 128, conv_kernel 4; head_dim 128 (its spelling list);
 * relu2 MLPs without a gate (the row's flag), no router bias (no
 * experts); no window on a hybrid.
 */
static void test_nemotron_h_is_its_row(void **state)
{
    (void)state;
    no_code("nemotron_h");
    kvb_model m = config_ok("configs/nemotron-nano-9b-v2.json");
    assert_int_equal(m.arch, KVB_ARCH_NEMOTRON_H);
    assert_string_equal(m.layer_pattern, "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-"
                                         "M-M-M*-M-MM-M-M-M-M-M-");
    assert_int_equal(m.num_hidden_layers, 56);
    assert_int_equal(m.hidden_size, 4480);
    assert_int_equal(m.num_attention_heads, 40);
    assert_int_equal(m.num_key_value_heads, 8);
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.intermediate_size, 15680);
    assert_int_equal(m.vocab_size, 131072);
    assert_int_equal(m.max_position_embeddings, 131072);
    assert_int_equal(m.ssm_num_heads, 128);
    assert_int_equal(m.ssm_head_dim, 80);
    assert_int_equal(m.ssm_n_groups, 8);
    assert_int_equal(m.ssm_state_size, 128);
    assert_int_equal(m.ssm_conv_kernel, 4);
    assert_int_equal(m.flags, KVB_MODEL_MLP_NO_GATE);
    assert_int_equal(m.sliding_window, 0);
    assert_int_equal(m.tie_word_embeddings, 0);
    /* The MoE model adds the router's e_score_correction_bias (the row's
     * moe_flags) and names its state dtype (mamba_ssm_cache_dtype). */
    kvb_error e;
    assert_int_equal(config_edited("configs/nemotron-3-nano-30b-a3b.json",
                                   "\"torch_dtype\": \"bfloat16\",",
                                   "\"torch_dtype\": \"bfloat16\", "
                                   "\"mamba_ssm_cache_dtype\": \"float32\",",
                                   &m, &e),
                     KVB_OK);
    assert_int_equal(m.flags,
                     KVB_MODEL_MLP_NO_GATE | KVB_MODEL_ROUTER_SCORE_BIAS);
    assert_int_equal(m.ssm_state_dtype, KVB_DTYPE_FP32);
    /* layers_block_type, the newer spelling, is read by name */
    assert_int_equal(
        config_edited("configs/nemotron-nano-9b-v2.json",
                      "\"hybrid_override_pattern\": \"M-M-M-MM-M-M-M*-M-M-M*-"
                      "M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-\",",
                      "\"layers_block_type\": [\"mamba\", \"mlp\", \"mamba\","
                      " \"moe\"],",
                      &m, &e),
        KVB_EPARSE); /* 4 names for 56 layers */
    assert_string_equal(e.field, "config.layers_block_type");
}

/*
 * GLM-4.5-Air (tests/data/configs/glm-4.5-air.json) through its row:
 * "attention_bias": true gives q/k/v biases and no o bias, "use_qk_norm":
 * false no q/k norms, and the router's e_score_correction_bias is always
 * there.
 */
static void test_glm4_moe_is_its_row(void **state)
{
    (void)state;
    no_code("glm4_moe");
    kvb_model m = config_ok("configs/glm-4.5-air.json");
    assert_int_equal(m.flags,
                     KVB_MODEL_ATTN_QKV_BIAS | KVB_MODEL_ROUTER_SCORE_BIAS);
    assert_int_equal(m.num_experts, 128);
    assert_int_equal(m.num_shared_experts, 1);
    assert_int_equal(m.moe_intermediate_size, 1408);
    assert_int_equal(m.first_k_dense_replace, 1);
    kvb_error e;
    assert_int_equal(config_edited("configs/glm-4.5-air.json",
                                   "\"use_qk_norm\": false",
                                   "\"use_qk_norm\": true", &m, &e),
                     KVB_OK);
    assert_int_equal(m.flags, KVB_MODEL_ATTN_QKV_BIAS | KVB_MODEL_QK_NORM |
                                  KVB_MODEL_ROUTER_SCORE_BIAS);
}

KVB_TESTS(cmocka_unit_test(test_every_arch_has_its_row),
          cmocka_unit_test(test_nemotron_h_is_its_row),
          cmocka_unit_test(test_glm4_moe_is_its_row));
