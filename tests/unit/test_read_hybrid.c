/*
 * test_read_hybrid.c -- hybrid config.json files (Qwen3-Next, Nemotron-H)
 * into kvb_model: the layer kinds, the recurrent sizes, and the parameter
 * count each published file implies.  Files and sources:
 * tests/data/configs/SOURCES.md.
 */
#include "testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Qwen/Qwen3-Next-80B-A3B-Instruct: full_attention_interval 4 gives
 * GGGA x 12; the linear_* keys are the Gated DeltaNet sizes.  The read
 * model is the preset row (written from the same file) field for field,
 * and its count is the one test_hybrid.c works out by hand (the model
 * card: "80B in total"). */
static void test_read_hybrid_qwen3_next(void **state)
{
    (void)state;
    kvb_model m = config_ok("configs/qwen3-next-80b-a3b-instruct.json");
    kvb_model p = preset_model("Qwen3-Next-80B-A3B");
    assert_int_equal(m.arch, KVB_ARCH_QWEN3_NEXT);
    assert_string_equal(m.layer_pattern, p.layer_pattern);
    assert_int_equal(m.flags, p.flags);
    assert_int_equal(m.ssm_num_heads, 32);
    assert_int_equal(m.ssm_head_dim, 128);
    assert_int_equal(m.ssm_n_groups, 16);
    assert_int_equal(m.ssm_state_size, 128);
    assert_int_equal(m.ssm_conv_kernel, 4);
    assert_int_equal(m.num_shared_experts, 1);
    assert_int_equal(m.moe_layer_step, 0);
    assert_int_equal(m.sliding_window, 0);
    assert_int_equal(model_params(&m), 79674391296ull);

    /* layer_types, when given, decides instead of the interval: here the
     * first layer made full attention, so 13 attention layers. */
    kvb_error e;
    char types[1024] = "\"layer_types\": [\"full_attention\"";
    for (int i = 1; i < 48; i++)
        strcat(types,
               i % 4 == 3 ? ", \"full_attention\"" : ", \"linear_attention\"");
    strcat(types, "], \"full_attention_interval\"");
    assert_int_equal(config_edited("configs/qwen3-next-80b-a3b-instruct.json",
                                   "\"full_attention_interval\"", types, &m,
                                   &e),
                     KVB_OK);
    assert_int_equal(kvb__count_attn(&m, 0, 48), 13);
    assert_int_equal(m.layer_pattern[0], 'A');
    assert_int_equal(m.layer_pattern[1], 'G');
}

/* nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B: the pattern's 23 M, 23 E and 6 *
 * blocks, Mamba2 64 x 64, 8 groups, state 128; the shared expert's width
 * under its Nemotron spelling.  Equal to the preset except the state
 * dtype: the file names none, so it stays the model's (the preset pins
 * float32). */
static void test_read_hybrid_nemotron3(void **state)
{
    (void)state;
    kvb_model m = config_ok("configs/nemotron-3-nano-30b-a3b.json");
    kvb_model p = preset_model("Nemotron-3-Nano-30B-A3B");
    assert_int_equal(m.arch, KVB_ARCH_NEMOTRON_H);
    assert_string_equal(m.layer_pattern, p.layer_pattern);
    assert_int_equal(m.flags, p.flags);
    assert_int_equal(m.shared_expert_intermediate_size, 3712);
    assert_int_equal(m.num_experts, 128);
    assert_int_equal(m.ssm_num_heads, 64);
    assert_int_equal(m.ssm_n_groups, 8);
    assert_int_equal(m.ssm_state_dtype, KVB_DTYPE_AUTO);
    assert_int_equal(model_params(&m), 31577940288ull); /* "31.6B total" */

    kvb_error e;
    assert_int_equal(config_edited("configs/nemotron-3-nano-30b-a3b.json",
                                   "\"use_bias\": false",
                                   "\"mamba_ssm_cache_dtype\": \"float32\"", &m,
                                   &e),
                     KVB_OK);
    assert_int_equal(m.ssm_state_dtype, KVB_DTYPE_FP32);
}

/*
 * nvidia/NVIDIA-Nemotron-Nano-9B-v2: its time_step_limit holds the bare
 * word Infinity, which the reader must accept.  56 blocks: 27 Mamba2, 4
 * attention, 25 MLP.  KV per token: 4 layers x 2 x 8 heads x 128 x 2 B =
 * 16384.  State per request (bf16): conv (128 x 80 + 2 x 8 x 128) x 3 x 2
 * = 73728 B, temporal 128 x 80 x 128 x 2 = 2621440 B, in 27 layers:
 * 72769536 B.
 * Parameters by hand: embedding and lm_head 2 x 131072 x 4480; a Mamba2
 * block norm 4480 + in_proj (10240 + 12288 + 128) x 4480 + conv1d 12288
 * x 4 + bias 12288 + A_log, D, dt_bias 3 x 128 + gated norm 10240 +
 * out_proj 4480 x 10240; an attention block norm + q 5120 x 4480 + k, v
 * 1024 x 4480 each + o 4480 x 5120; an MLP block norm + up and down
 * 15680 x 4480 each; a final norm.
 */
static void test_read_hybrid_nemotron_nano_v2(void **state)
{
    (void)state;
    kvb_model m = config_ok("configs/nemotron-nano-9b-v2.json");
    kvb_model p = preset_model("Nemotron-Nano-9B-v2");
    assert_string_equal(m.layer_pattern, p.layer_pattern);
    assert_int_equal(m.flags, p.flags);
    assert_int_equal(m.max_position_embeddings, p.max_position_embeddings);
    assert_int_equal(model_params(&p), model_params(&m));
    assert_int_equal(kvb__count_kind(&m, 0, 56, 'M'), 27);
    assert_int_equal(kvb__count_attn(&m, 0, 56), 4);
    assert_int_equal(kvb__count_kind(&m, 0, 56, '-'), 25);
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.ssm_head_dim, 80);
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_error e = KVB_ERROR_INIT;
    uint64_t whole = 0;
    assert_int_equal(kvb_kv_bytes_per_token(&m, &q, 1, 1, &whole, NULL, &e),
                     KVB_OK);
    assert_int_equal(whole, 16384);
    assert_int_equal(kvb__state_bytes_per_request(&m, &q, 1, 0, 56), 72769536);
    const uint64_t H = 4480;
    uint64_t mamba =
        H + 22656 * H + 12288 * 4 + 12288 + 384 + 10240 + H * 10240;
    uint64_t attn = H + 5120 * H + 2 * 1024 * H + H * 5120;
    uint64_t mlp = H + 2 * 15680 * H;
    uint64_t want = 2 * 131072 * H + 27 * mamba + 4 * attn + 25 * mlp + H;
    assert_int_equal(model_params(&m), want);
    assert_int_equal(want, 8888227328ull); /* the model card: "8.89B" */
}

/* Newer Nemotron configs list the blocks by name (layers_block_type). */
static void test_read_hybrid_block_names(void **state)
{
    (void)state;
    kvb_model m;
    kvb_error e;
    char list[1024] = "\"layers_block_type\": [";
    const char *p = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME";
    for (size_t i = 0; p[i]; i++) {
        strcat(list, i ? ", " : "");
        strcat(list, p[i] == 'M'   ? "\"mamba\""
                     : p[i] == 'E' ? "\"moe\""
                                   : "\"attention\"");
    }
    /* the pattern key renamed away, so the list is what is read */
    strcat(list, "], \"unused_pattern\"");
    assert_int_equal(config_edited("configs/nemotron-3-nano-30b-a3b.json",
                                   "\"hybrid_override_pattern\"", list, &m, &e),
                     KVB_OK);
    assert_string_equal(m.layer_pattern, p);
}

/*
 * Granite-4.0-H-Small (granitemoehybrid), written inline: the fields a
 * public worked example quotes from ibm-granite/granite-4.0-h-small's
 * config.json (hidden 4096, 40 layers of which 36 "mamba" and 4
 * "attention", 32 heads, 8 KV heads, 72 experts of 768, top 10, shared
 * 1536, mamba_d_state 128, mamba_d_conv 4, mamba_expand 2, tied, vocab
 * 100352) plus the Mamba2 head keys GraniteMoeHybridConfig names
 * (mamba_n_heads 128, mamba_d_head "auto": 2 x 4096 / 128 = 64,
 * mamba_n_groups 1); where the 4 attention layers sit does not change a
 * count, so they are put at 9, 19, 29, 39 here.
 * By hand: embedding 100352 x 4096 (tied); every layer 2 norms, a router
 * 72 x 4096, experts 72 x (2 x 768 + 768) x 4096, a shared MLP 3 x 1536
 * x 4096; a Mamba2 mixer in_proj (2 x 8192 + 2 x 128 + 128) x 4096,
 * conv1d 8448 x 4 + bias 8448, A_log, D, dt_bias 3 x 128, gated norm
 * 8192, out_proj 4096 x 8192; attention q and o 4096 x 4096, k and v
 * 1024 x 4096; a final norm: 32207337984 (IBM: "32B total").
 */
static const char *granite_small(const char *types)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"model_type\": \"granitemoehybrid\", \"hidden_size\": 4096,"
             "\"num_hidden_layers\": 40, \"num_attention_heads\": 32,"
             "\"num_key_value_heads\": 8, \"num_local_experts\": 72,"
             "\"num_experts_per_tok\": 10, \"shared_intermediate_size\": "
             "1536, \"intermediate_size\": 768, \"mamba_d_state\": 128,"
             "\"mamba_d_conv\": 4, \"mamba_expand\": 2, \"mamba_n_heads\": "
             "128, \"mamba_d_head\": \"auto\", \"mamba_n_groups\": 1,"
             "\"mamba_conv_bias\": true, \"mamba_proj_bias\": false,"
             "\"tie_word_embeddings\": true, \"vocab_size\": 100352,"
             "\"max_position_embeddings\": 131072, \"attention_bias\": false,"
             "\"position_embedding_type\": \"nope\", \"torch_dtype\": "
             "\"bfloat16\", \"layer_types\": [%s]}",
             types);
    return buf;
}

static void granite_types(char *out, size_t cap)
{
    out[0] = 0;
    for (int i = 0; i < 40; i++) {
        strncat(out, i ? ", " : "", cap - strlen(out) - 1);
        strncat(out, i % 10 == 9 ? "\"attention\"" : "\"mamba\"",
                cap - strlen(out) - 1);
    }
}

static void test_read_hybrid_granite_h(void **state)
{
    (void)state;
    char types[1024];
    granite_types(types, sizeof types);
    const char *json = granite_small(types);
    kvb_model m;
    kvb_quant q;
    kvb_read_info info;
    kvb_error e;
    assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
    assert_int_equal(KVB_QUANT_INIT(&q), KVB_OK);
    assert_int_equal(KVB_READ_INFO_INIT(&info), KVB_OK);
    assert_int_equal(kvb_error_init(&e, sizeof e), KVB_OK);
    kvb_status st = kvb_config_parse(json, strlen(json), &m, &q, &info, &e);
    if (st)
        fail_msg("%s: %s", e.field, e.message);
    assert_int_equal(m.arch, KVB_ARCH_GRANITE_H);
    assert_int_equal(kvb__count_kind(&m, 0, 40, 'm'), 36);
    assert_int_equal(kvb__count_attn(&m, 0, 40), 4);
    assert_int_equal(m.ssm_head_dim, 64);
    assert_int_equal(m.num_shared_experts, 1);
    assert_int_equal(m.shared_expert_intermediate_size, 1536);
    assert_int_equal(m.moe_intermediate_size, 768);
    assert_int_equal(model_params(&m), 32207337984ull);
    /* KV: 4 layers x 2 x 8 x 128 x 2 B = 16384 B per token; state (bf16):
     * conv (8192 + 2 x 128) x 3 x 2 = 50688 B + temporal 128 x 64 x 128 x
     * 2 = 2097152 B, in 36 layers: 77322240 B per request */
    kvb_quant a = quant_of(KVB_QUANT_AUTO);
    uint64_t whole = 0;
    assert_int_equal(kvb_kv_bytes_per_token(&m, &a, 1, 1, &whole, NULL, &e),
                     KVB_OK);
    assert_int_equal(whole, 16384);
    assert_int_equal(kvb__state_bytes_per_request(&m, &a, 1, 0, 40), 77322240);

    /* vLLM 0.11.0 at TP 1: block 16 x cdiv(2147840, 16 x 4096) = 528;
     * 4 attention and 36 Mamba2 layers: groups of 4, 1 + 9 groups */
    kvb_gpu g = gpu_of(141 * GIB, 1);
    kvb_serving s = serving_default();
    s.engine_version = 1100;
    s.max_model_len = 131072;
    s.kv_cache_memory_bytes = 20 * GIB;
    kvb_plan p;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_plan_compute(&m, &a, &g, &s, &p, &e), KVB_OK);
    assert_int_equal(p.block_size, 528);
    assert_int_equal(p.kv_cache_groups, 10);
    /* 20 GiB / (528 x 4096) / 4 = 2482 blocks */
    assert_int_equal(p.num_blocks, 2482);

    /* no experts: the shared MLP is the dense MLP */
    char dense[4096];
    snprintf(dense, sizeof dense, "%s", json);
    char *at = strstr(dense, "\"num_local_experts\": 72");
    assert_non_null(at);
    memcpy(at, "\"num_local_experts\":  0", 23);
    st = kvb_config_parse(dense, strlen(dense), &m, &q, &info, &e);
    if (st)
        fail_msg("%s: %s", e.field, e.message);
    assert_int_equal(m.num_experts, 0);
    assert_int_equal(m.intermediate_size, 1536);
    assert_int_equal(m.num_shared_experts, 0);
}

/*
 * Qwen3.5's language model reads as Qwen3-Next's layers.  The sizes are
 * those a public Ollama/llama.cpp runner log prints for a Qwen3.5-family
 * 27B GGUF (general.architecture qwen35: 64 blocks, 24 heads, 4 KV heads
 * of 256, full_attention_interval 4, ssm conv 4, state 128, 16 groups;
 * d_inner 6144 = 48 value heads x 128 from its S size); intermediate_size
 * and vocab_size enter none of the figures below.  The log:
 *   llama_kv_cache: size = 1536.00 MiB (24576 cells, 16 layers) K(f16) 768
 *     + V(f16) 768
 *   llama_memory_recurrent: size = 149.62 MiB (1 cell, 64 layers) R(f32)
 *     5.62 + S(f32) 144.00
 * By hand: K 16 x 24576 x 4 x 256 x 2 B = 805306368 (768 MiB), V the
 * same; R 48 x 3 x (6144 + 2 x 16 x 128) x 4 B = 5898240 (5.62 MiB), S 48
 * x 128 x 6144 x 4 B = 150994944 (144 MiB).
 */
static void test_read_hybrid_qwen3_5_llama_cpp_log(void **state)
{
    (void)state;
    char types[2048] = "";
    for (int i = 0; i < 64; i++) {
        strcat(types, i ? ", " : "");
        strcat(types,
               i % 4 == 3 ? "\"full_attention\"" : "\"linear_attention\"");
    }
    char json[4096];
    snprintf(json, sizeof json,
             "{\"model_type\": \"qwen3_5\", \"vision_config\": {\"depth\": 27},"
             "\"text_config\": {\"model_type\": \"qwen3_5_text\","
             "\"hidden_size\": 5120, \"num_hidden_layers\": 64,"
             "\"num_attention_heads\": 24, \"num_key_value_heads\": 4,"
             "\"head_dim\": 256, \"intermediate_size\": 17408,"
             "\"vocab_size\": 248320, \"max_position_embeddings\": 262144,"
             "\"full_attention_interval\": 4, \"attn_output_gate\": true,"
             "\"linear_num_key_heads\": 16, \"linear_num_value_heads\": 48,"
             "\"linear_key_head_dim\": 128, \"linear_value_head_dim\": 128,"
             "\"linear_conv_kernel_dim\": 4, \"layer_types\": [%s]},"
             "\"tie_word_embeddings\": false}",
             types);
    kvb_model m;
    kvb_quant q;
    kvb_read_info info;
    kvb_error e;
    assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
    assert_int_equal(KVB_QUANT_INIT(&q), KVB_OK);
    assert_int_equal(KVB_READ_INFO_INIT(&info), KVB_OK);
    assert_int_equal(kvb_error_init(&e, sizeof e), KVB_OK);
    kvb_status st = kvb_config_parse(json, strlen(json), &m, &q, &info, &e);
    if (st)
        fail_msg("%s: %s", e.field, e.message);
    assert_int_equal(m.arch, KVB_ARCH_QWEN3_NEXT);
    assert_int_equal(m.num_experts, 0); /* the dense 27B */
    assert_int_equal(kvb__count_kind(&m, 0, 64, 'G'), 48);
    assert_non_null(strstr(info.warning, "vision_config"));

    kvb_quant a = quant_of(KVB_QUANT_Q4_K_M);
    kvb_gpu g = gpu_of(80 * GIB, 1);
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.context_size = 24576;
    s.max_num_seqs = 1;
    kvb_plan p;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_plan_compute(&m, &a, &g, &s, &p, &e), KVB_OK);
    assert_int_equal(p.context_size, 24576);
    assert_int_equal(p.kv_cache_bytes_per_gpu,
                     2 * 805306368ull + 5898240ull + 150994944ull);

    /* attn_output_gate false: q_proj loses the gate's rows, 16 layers x
     * 24 x 256 x 5120 fewer parameters */
    uint64_t with_gate = model_params(&m);
    char *at = strstr(json, "\"attn_output_gate\": true");
    memcpy(at, "\"attn_output_gate\": 0   ", 24);
    st = kvb_config_parse(json, strlen(json), &m, &q, &info, &e);
    if (st)
        fail_msg("%s: %s", e.field, e.message);
    assert_int_equal(with_gate - model_params(&m), 16ull * 24 * 256 * 5120);
}

/* Recurrent families whose layers are not modelled are refused by name,
 * also when the caller asks for a Llama-shaped reading. */
static void test_read_hybrid_unmodelled_families(void **state)
{
    (void)state;
    static const char *const types[] = {"zamba", "bamba", "mamba2",
                                        "falcon_mamba"};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{\"model_type\": \"%s\", \"hidden_size\": 4096,"
                 "\"num_hidden_layers\": 32, \"num_attention_heads\": 32,"
                 "\"intermediate_size\": 14336, \"vocab_size\": 65536,"
                 "\"max_position_embeddings\": 262144}",
                 types[i]);
        kvb_model m;
        kvb_quant q;
        kvb_read_info info;
        kvb_error e;
        assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
        assert_int_equal(KVB_QUANT_INIT(&q), KVB_OK);
        assert_int_equal(KVB_READ_INFO_INIT(&info), KVB_OK);
        assert_int_equal(kvb_error_init(&e, sizeof e), KVB_OK);
        info.options = KVB_READ_ASSUME_LLAMA;
        assert_int_equal(
            kvb_config_parse(json, strlen(json), &m, &q, &info, &e),
            KVB_EUNSUPPORTED);
        assert_string_equal(e.field, "config.model_type");
        assert_non_null(strstr(e.message, "not modelled"));
        assert_non_null(strstr(e.message, types[i]));
    }
}

/* What the reader cannot model it refuses, naming the key. */
static void test_read_hybrid_refusals(void **state)
{
    (void)state;
    kvb_model m;
    kvb_error e;
    const char *nano = "configs/nemotron-3-nano-30b-a3b.json";
    assert_int_equal(config_edited(nano, "\"use_bias\": false",
                                   "\"moe_latent_size\": 1024", &m, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "config.moe_latent_size");
    assert_int_equal(
        config_edited(nano, "\"mamba_num_heads\"", "\"renamed\"", &m, &e),
        KVB_EPARSE);
    assert_string_equal(e.field, "config.mamba_num_heads");
    assert_int_equal(config_edited(nano, "MEMEM*", "MEMEMX", &m, &e),
                     KVB_EUNSUPPORTED);
    assert_int_equal(config_edited(nano, "MEMEM*", "MEMEM", &m, &e),
                     KVB_EPARSE);
    assert_int_equal(config_edited(nano, "\"use_conv_bias\": true",
                                   "\"use_conv_bias\": false", &m, &e),
                     KVB_EUNSUPPORTED);
    const char *qn = "configs/qwen3-next-80b-a3b-instruct.json";
    assert_int_equal(
        config_edited(qn, "\"linear_key_head_dim\"", "\"x\"", &m, &e),
        KVB_EPARSE);
    assert_string_equal(e.field, "config.linear_key_head_dim");
    assert_int_equal(config_edited(qn, "\"full_attention_interval\": 4",
                                   "\"full_attention_interval\": 0", &m, &e),
                     KVB_EPARSE);
}

KVB_TESTS(cmocka_unit_test(test_read_hybrid_qwen3_next),
          cmocka_unit_test(test_read_hybrid_nemotron3),
          cmocka_unit_test(test_read_hybrid_nemotron_nano_v2),
          cmocka_unit_test(test_read_hybrid_block_names),
          cmocka_unit_test(test_read_hybrid_refusals),
          cmocka_unit_test(test_read_hybrid_granite_h),
          cmocka_unit_test(test_read_hybrid_qwen3_5_llama_cpp_log),
          cmocka_unit_test(test_read_hybrid_unmodelled_families));
