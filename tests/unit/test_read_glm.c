/*
 * test_read_glm.c -- GLM-4.5, GLM-4.5-Air and GLM-4.6 (glm4_moe): their
 * config.json files into kvb_model, the parameter counts against the
 * published safetensors totals, the KV rate, and the names zai-org's
 * repositories resolve to.  Files and sources:
 * tests/data/configs/SOURCES.md.
 */
#include "testing.h"

#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_params(void *ctx, const kvb__tdesc *t)
{
    *(uint64_t *)ctx += t->experts * t->rows * t->cols;
    return 0;
}

/* The parameters of decoder layer i as the library's inventory walks it. */
static uint64_t layer_params(const kvb_model *m, uint32_t i)
{
    uint64_t n = 0;
    kvb__inventory_walk_range(m, i, i + 1, 0, add_params, &n);
    return n;
}

/*
 * One MoE decoder layer of modeling_glm4_moe.py (Glm4MoeDecoderLayer),
 * written out by hand: q/k/v with biases, o without, optional q_norm and
 * k_norm over head_dim, the router's weight and e_score_correction_bias,
 * E routed experts and one shared expert of 3 x hidden x moe each, two
 * RMSNorms.
 */
static uint64_t moe_layer_by_hand(uint64_t h, uint64_t heads, uint64_t kv,
                                  uint64_t hd, uint64_t moe, uint64_t experts,
                                  int qk_norm)
{
    uint64_t attn = h * heads * hd + heads * hd   /* q_proj + bias */
                    + 2 * (h * kv * hd + kv * hd) /* k_proj, v_proj + biases */
                    + heads * hd * h              /* o_proj, no bias */
                    + (qk_norm ? 2 * hd : 0);     /* q_norm, k_norm */
    uint64_t router = experts * h + experts;
    uint64_t mlp = (experts + 1) * 3 * h * moe;
    return attn + router + mlp + 2 * h;
}

/*
 * The MTP layer the checkpoints keep at index num_hidden_layers (vLLM
 * glm4_moe_mtp.py, SGLang glm4_moe_nextn.py): one more MoE decoder layer
 * plus enorm, hnorm (hidden each), eh_proj (hidden x 2 hidden) and
 * shared_head.norm; some checkpoints also store their own embed_tokens
 * and shared_head.head (vocab x hidden each).
 */
static uint64_t mtp_by_hand(uint64_t layer, uint64_t h)
{
    return layer + 2 * h + 2 * h * h + h;
}

/* zai-org/GLM-4.5 and GLM-4.6: 92 layers, the first 3 dense.  The model is
 * the preset row field for field; its count is what vLLM loads, and with
 * the MTP layer added by hand it meets the HF safetensors totals:
 * GLM-4.5 (and GLM-4.7, the same shapes) 358,337,791,296 with the MTP
 * layer's embed_tokens and shared_head.head copies; GLM-4.6
 * 356,785,898,816 without them. */
static void test_read_glm_4_5(void **state)
{
    (void)state;
    kvb_model m = config_ok("configs/glm-4.5.json");
    kvb_model p = preset_model("GLM-4.5");
    assert_int_equal(m.arch, KVB_ARCH_GLM4_MOE);
    assert_int_equal(m.flags, p.flags);
    assert_int_equal(m.flags, KVB_MODEL_ATTN_QKV_BIAS | KVB_MODEL_QK_NORM |
                                  KVB_MODEL_ROUTER_SCORE_BIAS);
    assert_int_equal(m.head_dim, 128); /* not 5120 / 96 */
    assert_int_equal(m.num_experts, 160);
    assert_int_equal(m.num_shared_experts, 1);
    assert_int_equal(m.moe_intermediate_size, 1536);
    assert_int_equal(m.first_k_dense_replace, 3);
    assert_int_equal(m.tie_word_embeddings, 0);
    assert_int_equal(m.max_position_embeddings, 131072);

    uint64_t served = model_params(&m);
    assert_int_equal(served, 352797829024ull);
    uint64_t layer = moe_layer_by_hand(5120, 96, 8, 128, 1536, 160, 1);
    assert_int_equal(layer_params(&m, 91), layer);
    uint64_t mtp = mtp_by_hand(layer, 5120);
    assert_int_equal(mtp, 3988069792ull);
    uint64_t copies = 2ull * 151552 * 5120;
    assert_int_equal(served + mtp + copies, 358337791296ull); /* GLM-4.5 */
    assert_int_equal(served + mtp, 356785898816ull);          /* GLM-4.6 */

    kvb_model six = config_ok("configs/glm-4.6.json");
    kvb_model p6 = preset_model("GLM-4.6");
    assert_int_equal(six.max_position_embeddings, 202752);
    assert_int_equal(p6.max_position_embeddings, 202752);
    assert_int_equal(model_params(&six), served);
}

/* zai-org/GLM-4.5-Air: 46 layers, the first dense, no q/k norms.  HF
 * safetensors total 110,468,824,832 with the MTP layer and its copies;
 * PrimeIntellect/INTELLECT-3, the same shapes without the MTP layer,
 * states 106,852,251,264, the count vLLM loads. */
static void test_read_glm_4_5_air(void **state)
{
    (void)state;
    kvb_model m = config_ok("configs/glm-4.5-air.json");
    kvb_model p = preset_model("GLM-4.5-Air");
    assert_int_equal(m.arch, KVB_ARCH_GLM4_MOE);
    assert_int_equal(m.flags, p.flags);
    assert_int_equal(m.flags,
                     KVB_MODEL_ATTN_QKV_BIAS | KVB_MODEL_ROUTER_SCORE_BIAS);
    uint64_t served = model_params(&m);
    assert_int_equal(served, 106852251264ull);
    uint64_t layer = moe_layer_by_hand(4096, 96, 8, 128, 1408, 128, 0);
    assert_int_equal(layer_params(&m, 45), layer);
    uint64_t mtp = mtp_by_hand(layer, 4096);
    assert_int_equal(served + mtp + 2ull * 151552 * 4096, 110468824832ull);
    /* the dense first layer: attention, MLP of 10944, two norms */
    uint64_t attn = moe_layer_by_hand(4096, 96, 8, 128, 1408, 0, 0) -
                    3ull * 4096 * 1408 - 2 * 4096;
    assert_int_equal(layer_params(&m, 0),
                     attn + 3ull * 4096 * 10944 + 2 * 4096);
}

/* KV per token = 2 (K, V) x layers x KV heads x head_dim x bytes: the
 * config's head_dim 128, not hidden / heads.  partial_rotary_factor
 * rotates half of each head and stores nothing more. */
static void test_read_glm_kv(void **state)
{
    (void)state;
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_error e = KVB_ERROR_INIT;
    uint64_t whole = 0, per_gpu = 0;
    kvb_model m = preset_model("GLM-4.5");
    assert_int_equal(kvb_kv_bytes_per_token(&m, &q, 8, 1, &whole, &per_gpu, &e),
                     KVB_OK);
    assert_int_equal(whole, 2ull * 92 * 8 * 128 * 2); /* 376,832 */
    assert_int_equal(per_gpu, 2ull * 92 * 1 * 128 * 2);
    m = preset_model("GLM-4.5-Air");
    assert_int_equal(kvb_kv_bytes_per_token(&m, &q, 1, 1, &whole, NULL, &e),
                     KVB_OK);
    assert_int_equal(whole, 2ull * 46 * 8 * 128 * 2); /* 188,416 */
}

/* attention_bias and use_qk_norm are read, not assumed: without them
 * there are no q/k/v biases and no q/k norms; o_proj never has a bias. */
static void test_read_glm_options(void **state)
{
    (void)state;
    kvb_model m;
    kvb_error e;
    assert_int_equal(config_edited("configs/glm-4.5.json",
                                   "\"attention_bias\": true",
                                   "\"attention_bias\": false", &m, &e),
                     KVB_OK);
    assert_int_equal(m.flags & KVB_MODEL_ATTN_QKV_BIAS, 0);
    assert_int_equal(m.flags & KVB_MODEL_ATTN_O_BIAS, 0);
    assert_int_equal(config_edited("configs/glm-4.5.json",
                                   "\"use_qk_norm\": true",
                                   "\"use_qk_norm_x\": true", &m, &e),
                     KVB_OK);
    assert_int_equal(m.flags & KVB_MODEL_QK_NORM, 0);
    assert_int_equal(config_edited("configs/glm-4.5.json",
                                   "\"use_qk_norm\": true",
                                   "\"use_qk_norm\": \"yes\"", &m, &e),
                     KVB_EPARSE);
    assert_string_equal(e.field, "config.use_qk_norm");

    /* the router's correction bias under its checkpoint name */
    kvb_model p = preset_model("GLM-4.5");
    char name[128];
    kvb__tdesc t = {KVB_ROLE_ROUTER_BIAS, 3, 0, KVB_ROLE_ROUTER, 1, 160, 1, 0};
    kvb__tensor_name(&p, &t, name, sizeof name);
    assert_string_equal(name,
                        "model.layers.3.mlp.gate.e_score_correction_bias");
}

/* Repository names: the presets keep BF16; zai-org's -FP8 checkpoints
 * have one scale per output channel (see lib/presets/resolve.c). */
static void test_read_glm_resolve(void **state)
{
    (void)state;
    const char *names[][2] = {{"zai-org/GLM-4.5-FP8", "GLM-4.5"},
                              {"zai-org/GLM-4.5-Air-FP8", "GLM-4.5-Air"},
                              {"zai-org/GLM-4.6-FP8", "GLM-4.6"},
                              {"THUDM/GLM-4.5", "GLM-4.5"}};
    for (size_t i = 0; i < 4; i++) {
        kvb_model m;
        kvb_quant q;
        kvb_error e;
        char note[256];
        assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
        assert_int_equal(KVB_QUANT_INIT(&q), KVB_OK);
        assert_int_equal(kvb_error_init(&e, sizeof e), KVB_OK);
        kvb_status st = kvb_preset_model_resolve(names[i][0], &m, &q, note,
                                                 sizeof note, &e);
        if (st)
            fail_msg("%s: %s", names[i][0], e.message);
        assert_string_equal(m.name, names[i][1]);
        if (i < 3) {
            assert_int_equal(q.method, KVB_QUANT_FP8);
            assert_int_equal(q.fp8_scale, KVB_FP8_SCALE_CHANNEL);
        } else {
            assert_int_equal(q.method, KVB_QUANT_AUTO);
        }
    }
}

KVB_TESTS(cmocka_unit_test(test_read_glm_4_5),
          cmocka_unit_test(test_read_glm_4_5_air),
          cmocka_unit_test(test_read_glm_kv),
          cmocka_unit_test(test_read_glm_options),
          cmocka_unit_test(test_read_glm_resolve));
