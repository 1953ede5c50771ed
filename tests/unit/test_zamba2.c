/*
 * test_zamba2.c -- Zamba2 (Mamba2 layers + shared attention blocks with
 * per-invocation LoRA adapters): the config.json reading, the weights of
 * every layer kind, the KV per token and Mamba2 state per request, and
 * the plans on vLLM (and the refusals elsewhere), each worked out here by
 * hand from transformers' modeling_zamba2.py and vLLM's zamba2.py.
 *
 * The configs are built here from the published values (the whole files
 * could not be fetched verbatim, so they are not in tests/data/configs):
 *   Zamba2-2.7B: https://huggingface.co/Zyphra/Zamba2-2.7B-Instruct-v2/
 *     blob/main/config.json (hidden 2560, 54 layers, hybrid_layer_ids
 *     6 12 18 24 30 36 42 47 51, attention_head_dim 160, intermediate
 *     10240, n_mamba_heads 80 x mamba_headdim 64, mamba_ngroups 1,
 *     mamba_d_state 64, mamba_d_conv 4, adapter_rank 128) and the earlier
 *     Zamba2-2.7B-instruct config (32 heads, 32 KV heads, num_mem_blocks
 *     2, no shared-attention LoRA, vocab 32000);
 *   Zamba2-1.2B: https://huggingface.co/Zyphra/Zamba2-1.2B/blob/
 *     4f8e85cd31975fe07d8fc3145239d58913192294/config.json (hidden 2048,
 *     38 layers, a hybrid layer after every five Mamba layers at 5 11 17
 *     23 29 35, 32 heads and KV heads, ffn 8192, state 128, headdim 64,
 *     num_mem_blocks 1, shared-attention LoRA on, rank 128, vocab 32000).
 */
#include "testing.h"

#include "internal.h"

#include <stdio.h>
#include <string.h>

/* A Zamba2 config.json in transformers' format (Zamba2Config keys). */
static void zamba2_json(char *out, size_t cap, uint32_t layers,
                        const uint32_t *ids, size_t n_ids, const char *fields)
{
    size_t at = (size_t)snprintf(out, cap,
                                 "{\"model_type\": \"zamba2\", "
                                 "\"num_hidden_layers\": %u, %s, "
                                 "\"layers_block_type\": [",
                                 layers, fields);
    size_t k = 0;
    for (uint32_t i = 0; i < layers; i++) {
        bool hybrid = k < n_ids && ids[k] == i;
        k += hybrid;
        at += (size_t)snprintf(out + at, cap - at, "%s\"%s\"", i ? ", " : "",
                               hybrid ? "hybrid" : "mamba");
    }
    at += (size_t)snprintf(out + at, cap - at, "], \"hybrid_layer_ids\": [");
    for (size_t i = 0; i < n_ids; i++)
        at +=
            (size_t)snprintf(out + at, cap - at, "%s%u", i ? ", " : "", ids[i]);
    snprintf(out + at, cap - at, "]}");
}

static const uint32_t ids_2_7b[] = {6, 12, 18, 24, 30, 36, 42, 47, 51};
static const uint32_t ids_1_2b[] = {5, 11, 17, 23, 29, 35};

#define FIELDS_2_7B                                                            \
    "\"hidden_size\": 2560, \"num_attention_heads\": 32, "                     \
    "\"num_key_value_heads\": 32, \"attention_head_dim\": 160, "               \
    "\"intermediate_size\": 10240, \"vocab_size\": 32000, "                    \
    "\"max_position_embeddings\": 4096, \"mamba_d_conv\": 4, "                 \
    "\"mamba_d_state\": 64, \"mamba_expand\": 2, \"mamba_headdim\": 64, "      \
    "\"mamba_ngroups\": 1, \"n_mamba_heads\": 80, \"num_mem_blocks\": 2, "     \
    "\"adapter_rank\": 128, \"add_bias_linear\": false, "                      \
    "\"use_shared_attention_adapter\": false, "                                \
    "\"use_shared_mlp_adapter\": true, \"torch_dtype\": \"bfloat16\""

#define FIELDS_1_2B                                                            \
    "\"hidden_size\": 2048, \"num_attention_heads\": 32, "                     \
    "\"num_key_value_heads\": 32, \"intermediate_size\": 8192, "               \
    "\"vocab_size\": 32000, \"max_position_embeddings\": 4096, "               \
    "\"mamba_d_conv\": 4, \"mamba_d_state\": 128, \"mamba_expand\": 2, "       \
    "\"mamba_headdim\": 64, \"mamba_ngroups\": 1, \"n_mamba_heads\": 64, "     \
    "\"num_mem_blocks\": 1, \"adapter_rank\": 128, "                           \
    "\"use_shared_attention_adapter\": true, \"torch_dtype\": \"bfloat16\""

static kvb_status zamba2_read(const uint32_t *ids, size_t n_ids,
                              uint32_t layers, const char *fields, kvb_model *m,
                              kvb_error *e)
{
    char json[4096];
    kvb_quant q;
    kvb_read_info info;
    zamba2_json(json, sizeof json, layers, ids, n_ids, fields);
    assert_int_equal(KVB_MODEL_INIT(m), KVB_OK);
    assert_int_equal(KVB_QUANT_INIT(&q), KVB_OK);
    assert_int_equal(KVB_READ_INFO_INIT(&info), KVB_OK);
    assert_int_equal(kvb_error_init(e, sizeof *e), KVB_OK);
    return kvb_config_parse(json, strlen(json), m, &q, &info, e);
}

static kvb_model zamba2_2_7b(void)
{
    kvb_model m;
    kvb_error e;
    kvb_status st = zamba2_read(ids_2_7b, 9, 54, FIELDS_2_7B, &m, &e);
    if (st)
        fail_msg("%s %s: %s", kvb_status_name(st), e.field, e.message);
    return m;
}

static kvb_model zamba2_1_2b(void)
{
    kvb_model m;
    kvb_error e;
    kvb_status st = zamba2_read(ids_1_2b, 6, 38, FIELDS_1_2B, &m, &e);
    if (st)
        fail_msg("%s %s: %s", kvb_status_name(st), e.field, e.message);
    return m;
}

/* The layer kinds: Mamba2 layers 'M', the first num_mem_blocks hybrid
 * layers store the shared blocks ('Z'), the others reuse them ('z'). */
static void test_zamba2_read(void **state)
{
    (void)state;
    kvb_model m = zamba2_2_7b();
    assert_int_equal(m.arch, KVB_ARCH_ZAMBA2);
    assert_string_equal(m.layer_pattern, "MMMMMMZMMMMMZMMMMMzMMMMMzMMMMMzMMMMMz"
                                         "MMMMMzMMMMzMMMzMM");
    assert_int_equal(m.head_dim, 160); /* 2 x 2560 / 32 */
    assert_int_equal(m.ssm_num_heads, 80);
    assert_int_equal(m.ssm_head_dim, 64);
    assert_int_equal(m.ssm_n_groups, 1);
    assert_int_equal(m.ssm_state_size, 64);
    assert_int_equal(m.ssm_conv_kernel, 4);
    assert_int_equal(m.shared_blocks, 2);
    assert_int_equal(m.adapter_rank, 128);
    assert_int_equal(m.tie_word_embeddings, 1);
    assert_int_equal(m.flags & KVB_MODEL_SHARED_ATTN_ADAPTER, 0);
    kvb_model s = zamba2_1_2b();
    assert_string_equal(s.layer_pattern,
                        "MMMMMZMMMMMzMMMMMzMMMMMzMMMMMzMMMMMzMM");
    assert_int_equal(s.head_dim, 128); /* 2 x 2048 / 32 */
    assert_int_equal(s.shared_blocks, 1);
    assert_true(s.flags & KVB_MODEL_SHARED_ATTN_ADAPTER);
}

/*
 * Zamba2-2.7B, bf16, shapes from modeling_zamba2.py (H 2560, I 10240,
 * Mamba2 inner 80 x 64 = 5120, conv_dim 5120 + 2 x 1 x 64 = 5248):
 *   a Mamba2 layer: in_proj 2560 -> 5120 + 5248 + 80 = 10448 (26746880),
 *     conv1d 5248 x 4 + 5248, A_log/dt_bias/D 3 x 80, gated norm 5120,
 *     out_proj 5120 -> 2560 (13107200), input_layernorm 2560: 39888240;
 *     54 of them (the hybrid layers' mamba_decoder too);
 *   a shared block, stored twice (num_mem_blocks 2): input_layernorm
 *     5120, q/k/v 3 x 5120 x 5120, o 5120 -> 2560, pre_ff_layernorm
 *     2560, gate_up 2560 -> 20480, down 10240 -> 2560: 170401280;
 *   per hybrid layer (9): the MLP adapter 2560 -> 128 -> 20480 (2949120)
 *     and the linear 2560 x 2560 (6553600): 9502720;
 *   embeddings 32000 x 2560, tied; final_layernorm 2560.
 * Total 2662214560: 5324429120 bytes in bf16, which the current
 * Zamba2-2.7B-instruct checkpoint's two files show as 4.94 GB + 384 MB
 * (HF file list); no exact published count was found, so this is the
 * shapes' arithmetic, not a match to a published figure.
 */
static void test_zamba2_params_2_7b(void **state)
{
    (void)state;
    const uint64_t H = 2560, I = 10240;
    uint64_t mamba = 10448 * H + 5248 * 4 + 5248 + 3 * 80 + 5120 + H * 5120 + H;
    assert_int_equal(mamba, 39888240);
    uint64_t block =
        2 * H + 3 * (2 * H) * (2 * H) + H * 2 * H + H + 2 * I * H + H * I;
    assert_int_equal(block, 170401280);
    uint64_t per_hybrid = 128 * H + 2 * I * 128 + H * H;
    assert_int_equal(per_hybrid, 9502720);
    uint64_t want = 32000 * H + 54 * mamba + 2 * block + 9 * per_hybrid + H;
    assert_int_equal(want, 2662214560ull);
    kvb_model m = zamba2_2_7b();
    assert_int_equal(model_params(&m), want);
}

/*
 * Zamba2-1.2B (H 2048, I 8192, inner 64 x 64 = 4096, conv_dim 4096 + 2 x
 * 128 = 4352, one shared block, attention adapters on):
 *   a Mamba2 layer: in_proj 2048 -> 4096 + 4352 + 64 = 8512, conv1d 4352
 *     x 4 + 4352, 3 x 64, norm 4096, out_proj 4096 -> 2048, norm 2048:
 *     25849280; 38 of them;
 *   the shared block: 4096 + 3 x 4096^2 + 2048 x 4096 + 2048 + 16384 x
 *     2048 + 2048 x 8192 = 109058048;
 *   per hybrid layer (6): q/k/v adapters 3 x (4096 -> 128 -> 4096) =
 *     3145728, MLP adapter 2048 -> 128 -> 16384 = 2359296, linear 2048^2:
 *     9699328;
 *   embeddings 32000 x 2048 (tied), final norm 2048.
 * Total 1215064704: 2430129408 bytes in bf16, the "2.43 GB" of
 * Zamba2-1.2B's model.safetensors (HF file list); again the shapes'
 * arithmetic, not an exact published count.
 */
static void test_zamba2_params_1_2b(void **state)
{
    (void)state;
    const uint64_t H = 2048, I = 8192;
    uint64_t mamba = 8512 * H + 4352 * 5 + 3 * 64 + 4096 + 4096 * H + H;
    assert_int_equal(mamba, 25849280);
    uint64_t block =
        2 * H + 3 * (2 * H) * (2 * H) + H * 2 * H + H + 2 * I * H + H * I;
    assert_int_equal(block, 109058048);
    uint64_t per_hybrid = 3 * 2 * (128 * 2 * H) + 128 * H + 2 * I * 128 + H * H;
    assert_int_equal(per_hybrid, 9699328);
    uint64_t want = 32000 * H + 38 * mamba + block + 6 * per_hybrid + H;
    assert_int_equal(want, 1215064704ull);
    kvb_model m = zamba2_1_2b();
    assert_int_equal(model_params(&m), want);
}

/* The shared block is stored once, under the first layer using it, with
 * its invocations' adapter lists (model.layers.6.shared_transformer.
 * feed_forward.gate_up_proj_adapter_list.{0,2,4,6,8} in Zamba2-2.7B's
 * safetensors index); the rest keep the layer's own names. */
static void test_zamba2_tensor_names(void **state)
{
    (void)state;
    static const char *const want[] = {
        "model.layers.0.mamba.in_proj.weight",
        "model.layers.0.input_layernorm.weight",
        "model.layers.6.shared_transformer.self_attn.q_proj.weight",
        "model.layers.6.shared_transformer.input_layernorm.weight",
        "model.layers.6.shared_transformer.pre_ff_layernorm.weight",
        "model.layers.6.shared_transformer.feed_forward.gate_up_proj.weight",
        "model.layers.6.shared_transformer.feed_forward."
        "gate_up_proj_adapter_list.8.1.weight",
        "model.layers.12.shared_transformer.feed_forward."
        "gate_up_proj_adapter_list.7.0.weight",
        "model.layers.51.linear.weight",
        "model.layers.51.mamba_decoder.input_layernorm.weight",
        "model.layers.51.mamba_decoder.mamba.out_proj.weight",
        "model.final_layernorm.weight",
    };
    kvb_model m = zamba2_2_7b();
    size_t n = 0, found = 0, blocks = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_model_tensor_count(&m, &n, &e), KVB_OK);
    for (size_t i = 0; i < n; i++) {
        kvb_tensor t;
        memset(&t, 0, sizeof t);
        t.struct_size = sizeof t;
        assert_int_equal(kvb_model_tensor_get(&m, NULL, i, &t, &e), KVB_OK);
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
            found += strcmp(t.name, want[k]) == 0;
        blocks += strstr(t.name, "shared_transformer.self_attn.q_proj") != 0;
    }
    assert_int_equal(found, sizeof want / sizeof want[0]);
    assert_int_equal(blocks, 2); /* stored once per block */
}

/*
 * KV per token: every hybrid layer keeps its own K and V (vLLM builds an
 * Attention per invocation), 2 x 32 heads x 160 x 2 B = 20480 B a layer,
 * 9 layers: 184320 B (1.2B: 6 x 2 x 32 x 128 x 2 = 98304).  Mamba2
 * state per layer and request (mamba2_state_shape, bf16): conv (5120 + 2
 * x 64) x 3 x 2 B = 31488, temporal 80 x 64 x 64 x 2 B = 655360; all 54
 * layers: 37089792 B.  TP 2 replicates the single group on both ranks
 * (extra_groups_for_head_shards): conv (2560 + 2 x 64) x 3 x 2 = 16128.
 */
static void test_zamba2_kv_and_state(void **state)
{
    (void)state;
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_model m = zamba2_2_7b();
    uint64_t whole = 0, per_gpu = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_kv_bytes_per_token(&m, &q, 1, 1, &whole, &per_gpu, &e),
                     KVB_OK);
    assert_int_equal(whole, 184320);
    uint64_t conv = 0, ssm = 0;
    kvb__state_bytes(&m, &q, 1, &conv, &ssm);
    assert_int_equal(conv, 31488);
    assert_int_equal(ssm, 655360);
    assert_int_equal(kvb__state_bytes_per_request(&m, &q, 1, 0, 54), 37089792);
    kvb__state_bytes(&m, &q, 2, &conv, &ssm);
    assert_int_equal(conv, 16128);
    assert_int_equal(ssm, 327680);
    kvb_model s = zamba2_1_2b();
    assert_int_equal(kvb_kv_bytes_per_token(&s, &q, 1, 1, &whole, &per_gpu, &e),
                     KVB_OK);
    assert_int_equal(whole, 98304);
}

/*
 * vLLM 0.11.0 (prefix caching off for hybrids: one state page), TP 1,
 * bf16, 20 GiB of KV cache: attention page of one token and layer 20480
 * B; a Mamba2 layer's state 31488 + 655360 = 686848 B; block 16 x
 * cdiv(686848, 16 x 20480) = 48 tokens, page 983040 B; 9 attention and
 * 54 Mamba layers: group size 9, 1 + 6 groups; num_blocks = 20 GiB /
 * 983040 / 9 = 21845 / 9 = 2427; tokens 2427 // 7 x 48 = 16608; a
 * 4096-token request holds cdiv(4096, 48) = 86 + 6 state blocks = 92:
 * concurrency 2427 / 92.
 */
static void test_zamba2_vllm(void **state)
{
    (void)state;
    kvb_model m = zamba2_2_7b();
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g = gpu_of(80 * GIB, 1);
    g.compute_capability = 90;
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_VLLM;
    s.engine_version = 1100;
    s.max_model_len = 4096;
    s.kv_cache_memory_bytes = 20 * GIB;
    kvb_plan p = plan_ok(&m, &q, &g, &s);
    assert_int_equal(p.block_size, 48);
    assert_int_equal(p.kv_cache_groups, 7);
    assert_int_equal(p.num_blocks, 2427);
    assert_int_equal(p.max_kv_tokens, 16608);
    assert_true(p.max_concurrency > 2427.0 / 92 - 1e-9 &&
                p.max_concurrency < 2427.0 / 92 + 1e-9);
    assert_non_null(strstr(p.warning, "48 tokens"));
}

/* vLLM runs Zamba2 without pipeline parallelism; SGLang and llama.cpp
 * have no Zamba2 model; Ollama's estimator has no recurrent pool. */
static void test_zamba2_refused_engines(void **state)
{
    (void)state;
    kvb_model m = zamba2_2_7b();
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g = gpu_of(80 * GIB, 2);
    static const int32_t engines[] = {KVB_ENGINE_VLLM, KVB_ENGINE_SGLANG,
                                      KVB_ENGINE_LLAMA_CPP, KVB_ENGINE_OLLAMA};
    static const char *const says[] = {"without pipeline parallelism",
                                       "SGLang has no model class for zamba2",
                                       "llama.cpp has no Zamba2", "zamba2"};
    for (size_t i = 0; i < 4; i++) {
        kvb_serving s = serving_default();
        s.engine = engines[i];
        if (i == 0)
            s.pipeline_parallel_size = 2;
        kvb_plan p;
        kvb_error e = KVB_ERROR_INIT;
        assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
        assert_int_equal(kvb_plan_compute(&m, &q, &g, &s, &p, &e),
                         KVB_EUNSUPPORTED);
        if (!strstr(e.message, says[i]))
            fail_msg("engine %d: %s", engines[i], e.message);
    }
}

/* What the reader cannot model it refuses, naming the key. */
static void test_zamba2_refusals(void **state)
{
    (void)state;
    kvb_model m;
    kvb_error e;
    assert_int_equal(zamba2_read(ids_2_7b, 9, 54,
                                 FIELDS_2_7B ", \"use_conv_bias\": false", &m,
                                 &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "config.use_conv_bias");
    assert_int_equal(
        zamba2_read(ids_2_7b, 9, 54,
                    "\"add_bias_linear\": true, \"hidden_size\": 2560, "
                    "\"num_attention_heads\": 32, \"intermediate_size\": "
                    "10240, \"vocab_size\": 32000, "
                    "\"max_position_embeddings\": 4096",
                    &m, &e),
        KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "config.add_bias_linear");
    /* hybrid_layer_ids must agree with layers_block_type */
    char json[4096];
    zamba2_json(json, sizeof json, 54, ids_2_7b, 9, FIELDS_2_7B);
    char *at = strstr(json, "47, 51]");
    assert_non_null(at);
    memcpy(at, "47, 50]", 7);
    kvb_quant q;
    kvb_read_info info;
    assert_int_equal(KVB_QUANT_INIT(&q), KVB_OK);
    assert_int_equal(KVB_READ_INFO_INIT(&info), KVB_OK);
    assert_int_equal(kvb_config_parse(json, strlen(json), &m, &q, &info, &e),
                     KVB_EPARSE);
    assert_string_equal(e.field, "config.hybrid_layer_ids");
    /* more shared blocks than hybrid layers */
    assert_int_equal(zamba2_read(ids_1_2b, 1, 38, FIELDS_2_7B, &m, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "config.num_mem_blocks");
    /* a model struct whose 'Z' count disagrees with shared_blocks */
    kvb_model z = zamba2_2_7b();
    z.shared_blocks = 3;
    assert_int_equal(kvb_model_validate(&z, &e), KVB_EINVAL);
    assert_string_equal(e.field, "model.shared_blocks");
    /* the pre-transformers configs ("m"/"g" layers) are not read */
    const char *old = "{\"model_type\": \"zamba2\", \"hidden_size\": 2048, "
                      "\"num_hidden_layers\": 2, \"num_attention_heads\": 32, "
                      "\"intermediate_size\": 8192, \"vocab_size\": 32000, "
                      "\"max_position_embeddings\": 4096, "
                      "\"layers_block_type\": [\"m\", \"g\"]}";
    assert_int_equal(kvb_config_parse(old, strlen(old), &m, &q, &info, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "config.layers_block_type");
}

KVB_TESTS(cmocka_unit_test(test_zamba2_read),
          cmocka_unit_test(test_zamba2_params_2_7b),
          cmocka_unit_test(test_zamba2_params_1_2b),
          cmocka_unit_test(test_zamba2_tensor_names),
          cmocka_unit_test(test_zamba2_kv_and_state),
          cmocka_unit_test(test_zamba2_vllm),
          cmocka_unit_test(test_zamba2_refused_engines),
          cmocka_unit_test(test_zamba2_refusals));
