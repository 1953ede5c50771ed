/*
 * test_gemma3n.c -- Gemma 3n (gemma3n, text_config gemma3n_text): the
 * config reading, the tensors of its language model and towers counted
 * by hand from transformers' modeling_gemma3n.py, the KV cache of its
 * non-shared layers, and its plans on vLLM and llama.cpp.
 *
 * The published config.json files of google/gemma-3n-E2B-it and
 * gemma-3n-E4B-it could not be fetched verbatim here (the Hub is gated
 * and no copy was found), so the configs are written below with the
 * values that define the shapes, each from a source:
 *   E4B: transformers' Gemma3nTextConfig / Gemma3nAudioConfig /
 *        Gemma3nVisionConfig defaults, documented as the E4B shape
 *        (configuration_gemma3n.py: 35 layers, hidden 2048, intermediate
 *        16384, 8 heads, 2 KV heads x 256, vocab 262400, per-layer vocab
 *        262144 x 256, AltUp 4, LAuReL 64, 15 shared KV layers, window
 *        512; audio 12 x 1536, 8 heads, kernel 5, 128 mel bins, SSCP
 *        channels (128, 32); embedders of 128 tokens; vision 2048 wide);
 *   E2B: the same family with 30 layers, intermediate 8192 and 10 shared
 *        KV layers (google-ai-edge's Gemma 3n E2B builder; llama.cpp's
 *        n_layer_kv_from_start = 20 = 30 - 10).
 * Published totals are coarse: "5B" and "8B raw parameters" (model
 * cards, huggingface blog gemma3n.md), and LM Studio lists the text-only
 * GGUFs as 4.5B (E2B) and 6.9B (E4B); no model.safetensors.index.json
 * total_size was found, so the exact counts here are the hand sums.
 */
#include "testing.h"

#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A gemma3n config.json of `layers` layers of width `inter` with
 * `shared` KV-shared layers; `widths` overrides the intermediate_size
 * list when not NULL, `vision_arch` the timm architecture. */
static char *g3n_json(unsigned layers, unsigned inter, unsigned shared,
                      const char *widths, const char *vision_arch)
{
    size_t cap = 16384;
    char *buf = malloc(cap);
    assert_non_null(buf);
    char types[4096] = "", sizes[4096] = "";
    size_t t = 0, s = 0;
    for (unsigned i = 0; i < layers; i++) {
        t += (size_t)snprintf(
            types + t, sizeof types - t, "%s\"%s\"", i ? ", " : "",
            (i + 1) % 5 ? "sliding_attention" : "full_attention");
        s += (size_t)snprintf(sizes + s, sizeof sizes - s, "%s%u",
                              i ? ", " : "", inter);
    }
    snprintf(
        buf, cap,
        "{\"architectures\": [\"Gemma3nForConditionalGeneration\"],\n"
        " \"audio_config\": {\"conf_conv_kernel_size\": 5,\n"
        "  \"conf_num_attention_heads\": 8, \"conf_num_hidden_layers\": 12,\n"
        "  \"hidden_size\": 1536, \"input_feat_size\": 128,\n"
        "  \"model_type\": \"gemma3n_audio\",\n"
        "  \"sscp_conv_channel_size\": [128, 32],\n"
        "  \"sscp_conv_kernel_size\": [[3, 3], [3, 3]],\n"
        "  \"sscp_conv_stride_size\": [[2, 2], [2, 2]],\n"
        "  \"vocab_offset\": 262272, \"vocab_size\": 128},\n"
        " \"model_type\": \"gemma3n\",\n"
        " \"text_config\": {\"altup_num_inputs\": 4, \"head_dim\": 256,\n"
        "  \"hidden_size\": 2048, \"hidden_size_per_layer_input\": 256,\n"
        "  \"intermediate_size\": [%s], \"laurel_rank\": 64,\n"
        "  \"layer_types\": [%s],\n"
        "  \"max_position_embeddings\": 32768,\n"
        "  \"model_type\": \"gemma3n_text\", \"num_attention_heads\": 8,\n"
        "  \"num_hidden_layers\": %u, \"num_key_value_heads\": 2,\n"
        "  \"num_kv_shared_layers\": %u, \"rope_scaling\": null,\n"
        "  \"sliding_window\": 512, \"vocab_size\": 262400,\n"
        "  \"vocab_size_per_layer_input\": 262144},\n"
        " \"torch_dtype\": \"bfloat16\",\n"
        " \"vision_config\": {\"architecture\": \"%s\",\n"
        "  \"hidden_size\": 2048, \"model_args\": null,\n"
        "  \"model_type\": \"gemma3n_vision\", \"vocab_offset\": 262144,\n"
        "  \"vocab_size\": 128}}\n",
        widths ? widths : sizes, types, layers, shared,
        vision_arch ? vision_arch : "mobilenetv5_300m_enc");
    return buf;
}

static kvb_status g3n_parse(const char *json, kvb_model *m, kvb_read_info *info,
                            kvb_error *e)
{
    kvb_quant q;
    assert_int_equal(KVB_MODEL_INIT(m), KVB_OK);
    assert_int_equal(KVB_QUANT_INIT(&q), KVB_OK);
    assert_int_equal(KVB_READ_INFO_INIT(info), KVB_OK);
    assert_int_equal(kvb_error_init(e, sizeof *e), KVB_OK);
    return kvb_config_parse(json, strlen(json), m, &q, info, e);
}

static kvb_model g3n_model(unsigned layers, unsigned inter, unsigned shared)
{
    char *json = g3n_json(layers, inter, shared, NULL, NULL);
    kvb_model m;
    kvb_read_info info;
    kvb_error e;
    kvb_status st = g3n_parse(json, &m, &info, &e);
    free(json);
    if (st)
        fail_msg("%s %s: %s", kvb_status_name(st), e.field, e.message);
    return m;
}

#define E2B() g3n_model(30, 8192, 10)
#define E4B() g3n_model(35, 16384, 15)

/*
 * The language model, from modeling_gemma3n.py (H 2048, V 262400, per-
 * layer vocab 262144 x (L x 256), AltUp 4, LAuReL 64):
 *   embed_tokens V x H = 537395200; embed_tokens_per_layer 262144 x 256L;
 *   per_layer_model_projection 256L x H; per_layer_projection_norm 256;
 *   altup_projections and altup_unembed_projections 2 x 3 x H x H =
 *   25165824; final norm 2048; lm_head tied.
 *   Per layer: q and o H x H, k and v 512 x H (10485760), q/k norms 256
 *   each (v_norm has no weight), the MLP 3 x H x I, four norms 4 x H,
 *   AltUp correct_output_scale H, correction_coefs 4 x 4, prediction_coefs
 *   16 x 4, modality_router 4 x H, router_norm H (12368), LAuReL 64 x H
 *   twice + norm H (264192), per_layer_input_gate 256 x H,
 *   per_layer_projection H x 256, post_per_layer_input_norm H (1050624).
 * E2B (L 30, I 8192): 62153296 per layer; 4456156768 in all
 * (google's executorch export of E2B's text decoder states "4.46b").
 */
static uint64_t text_params(uint64_t L, uint64_t I)
{
    const uint64_t H = 2048;
    uint64_t layer =
        10485760 + 512 + 3 * H * I + 4 * H + 12368 + 264192 + 1050624;
    return 537395200ull + 262144ull * 256 * L + 256 * L * H + 256 + 25165824 +
           H + L * layer;
}

/*
 * The towers (Gemma3nAudioEncoder, Gemma3nMultimodalEmbedder):
 *   SSCP: conv_0 128 x 1 x 3 x 3 + norm 128, conv_1 32 x 128 x 3 x 3 +
 *   norm 32, frequency bins 128 -> 64 -> 32, input_proj_linear 1536 x
 *   (32 x 32): 1611040;
 *   each Conformer block (1536 wide): two feed-forwards (norm, 6144 x
 *   1536, 1536 x 6144, norm: 18877440 each), attention (pre norm,
 *   per_dim_scale 192, pos_proj, q, k, v, post 5 x 1536^2, post norm:
 *   11799744), light conv (norm, linear_start 3072 x 1536, depthwise
 *   1536 x 5, conv_norm, linear_end 1536^2: 7088640), block norm 1536:
 *   56644800; 12 blocks;
 *   embed_vision 128 x 2048 + 2 norms + 2048 x 2048 = 4460544;
 *   embed_audio 128 x 1536 + 2 norms + 2048 x 1536 = 3345408;
 *   MobileNetV5: 294126912, the model timm's mobilenetv5_300m_enc
 *   definition builds (conv_stem 1856, blocks 278880000, msfa 15245056;
 *   lib/model/gemma3n.c says how it was taken).
 */
static uint64_t tower_params(void)
{
    uint64_t audio = 1611040ull + 12 * 56644800ull;
    assert_int_equal(audio, 681348640ull);
    return audio + 4460544 + 3345408 + 294126912;
}

static void test_gemma3n_params_by_hand(void **state)
{
    (void)state;
    assert_int_equal(text_params(30, 8192), 4456156768ull);
    assert_int_equal(text_params(35, 16384), 6866696688ull);
    kvb_model e2b = E2B(), e4b = E4B();
    /* 5.44B and 7.85B: the model cards' "5B" and "8B raw parameters" */
    assert_int_equal(model_params(&e2b), 4456156768ull + tower_params());
    assert_int_equal(model_params(&e2b), 5439438272ull);
    assert_int_equal(model_params(&e4b), 7849978192ull);
    /* the language model alone: the towers left out */
    e2b.vision_kind = KVB_VISION_NONE;
    assert_int_equal(model_params(&e2b), 4456156768ull);
}

static void test_gemma3n_read(void **state)
{
    (void)state;
    kvb_model m = E2B();
    assert_int_equal(m.arch, KVB_ARCH_GEMMA3N);
    assert_int_equal(m.num_hidden_layers, 30);
    assert_int_equal(m.intermediate_size, 8192);
    assert_int_equal(m.num_kv_shared_layers, 10);
    assert_int_equal(m.hidden_size_per_layer_input, 256);
    assert_int_equal(m.vocab_size_per_layer_input, 262144);
    assert_int_equal(m.altup_num_inputs, 4);
    assert_int_equal(m.laurel_rank, 64);
    assert_int_equal(m.sliding_window, 512);
    assert_int_equal(m.sliding_window_pattern, 5);
    assert_int_equal(m.tie_word_embeddings, 1);
    assert_int_equal(m.flags, KVB_MODEL_SANDWICH_NORM | KVB_MODEL_QK_NORM);
    assert_int_equal(m.vision_kind, KVB_VISION_GEMMA3N);
    assert_int_equal(m.vision_hidden_size, 2048);
    assert_int_equal(m.audio_num_layers, 12);
    assert_int_equal(m.audio_hidden_size, 1536);
    assert_int_equal(m.audio_sscp_channels_1, 128);
    assert_int_equal(m.audio_sscp_channels_2, 32);
    assert_int_equal(m.mm_embed_vocab_size, 128);
    assert_int_equal(m.dtype, KVB_DTYPE_BF16);
    /* the tower warning says what is not derived from the config */
    char *json = g3n_json(30, 8192, 10, NULL, NULL);
    kvb_read_info info;
    kvb_error e;
    assert_int_equal(g3n_parse(json, &m, &info, &e), KVB_OK);
    free(json);
    assert_non_null(strstr(info.warning, "294,126,912"));
    assert_non_null(strstr(info.warning, "not derived"));
}

/* What is not modelled is refused by name. */
static void test_gemma3n_refused_reads(void **state)
{
    (void)state;
    kvb_model m;
    kvb_read_info info;
    kvb_error e;
    /* per-layer widths that differ (a MatFormer slice) */
    char widths[512] = "";
    size_t n = 0;
    for (unsigned i = 0; i < 30; i++)
        n += (size_t)snprintf(widths + n, sizeof widths - n, "%s%u",
                              i ? ", " : "", i < 15 ? 8192u : 16384u);
    char *json = g3n_json(30, 8192, 10, widths, NULL);
    assert_int_equal(g3n_parse(json, &m, &info, &e), KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "config.text_config.intermediate_size");
    free(json);
    /* another timm architecture has no count here */
    json = g3n_json(30, 8192, 10, NULL, "mobilenetv5_base");
    assert_int_equal(g3n_parse(json, &m, &info, &e), KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "config.vision_config.architecture");
    free(json);
    /* every layer shared leaves none to hold the KV */
    json = g3n_json(30, 8192, 30, NULL, NULL);
    assert_int_equal(g3n_parse(json, &m, &info, &e), KVB_EINVAL);
    assert_string_equal(e.field, "config.text_config.num_kv_shared_layers");
    free(json);
}

/*
 * KV per token: only layers 0..19 hold KV (transformers
 * is_kv_shared_layer: i >= L - num_kv_shared_layers; the same 20 layers
 * in E2B and E4B), 2 KV heads x 256 x 2 (K, V) x 2 bytes = 2048 each:
 * 40960 bytes.  Of the 20, layers 4, 9, 14, 19 are full and 16 slide.
 */
static void test_gemma3n_kv_bytes(void **state)
{
    (void)state;
    kvb_model models[2] = {E2B(), E4B()};
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    for (int i = 0; i < 2; i++) {
        uint64_t whole = 0, per_gpu = 0;
        kvb_error e = KVB_ERROR_INIT;
        assert_int_equal(
            kvb_kv_bytes_per_token(&models[i], &q, 1, 1, &whole, &per_gpu, &e),
            KVB_OK);
        assert_int_equal(whole, 20 * 2048);
        assert_int_equal(per_gpu, 20 * 2048);
        /* TP 2: one KV head per rank, 1024 bytes per layer */
        assert_int_equal(
            kvb_kv_bytes_per_token(&models[i], &q, 2, 1, &whole, &per_gpu, &e),
            KVB_OK);
        assert_int_equal(per_gpu, 20 * 1024);
        uint32_t kinds[3];
        kvb__kv_count_kinds(&models[i], 0, models[i].num_hidden_layers, true,
                            kinds);
        assert_int_equal(kinds[KVB__ATTN_FULL], 4);
        assert_int_equal(kinds[KVB__ATTN_SLIDING], 16);
    }
}

/*
 * vLLM 0.10.0 (V1, towers loaded), E2B on an H100, 8 GiB of KV cache:
 * groups of the smallest kind, 4 layers: 1 full + 4 sliding groups
 * (kv_cache_utils.py).  Page: 16 tokens x 2048 = 32768 bytes; num_blocks
 * = 8 GiB / 32768 / 4 = 65536.  A 32768-token request: 2048 full blocks,
 * and per sliding group cdiv(min(511 + 8192, 32768), 16) + 1 = 545
 * (max_num_batched_tokens 8192 on an 80 GB card): 2048 + 4 x 545 = 4228
 * blocks; concurrency 65536 / 4228.
 */
static void test_gemma3n_vllm(void **state)
{
    (void)state;
    kvb_model m = E2B();
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g = gpu_of(80 * GIB, 1);
    g.compute_capability = 90;
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_VLLM;
    s.engine_version = 1000;
    s.max_model_len = 32768;
    s.max_num_batched_tokens = 8192;
    s.kv_cache_memory_bytes = 8 * GIB;
    kvb_plan p = plan_ok(&m, &q, &g, &s);
    assert_int_equal(p.kv_bytes_per_token, 40960);
    assert_int_equal(p.kv_cache_groups, 5);
    assert_int_equal(p.num_blocks, 65536);
    assert_true(p.max_concurrency > 65536.0 / 4228 - 1e-9 &&
                p.max_concurrency < 65536.0 / 4228 + 1e-9);
    assert_int_equal(p.param_count, 5439438272ull);
    assert_non_null(strstr(p.warning, "294,126,912"));
    /* loaded: the BF16 weights plus gemma3n_mm.py's per_layer_embeddings
     * buffer, 8192 x 30 x 256 x 2 = 125829120 bytes, plus the rotary
     * caches and the allocator's rounding (well under 64 MiB here) */
    uint64_t w = 2 * 5439438272ull + 125829120ull;
    assert_true(p.weights_bytes_per_gpu >= w);
    assert_true(p.weights_bytes_per_gpu < w + 64 * MIB);
    /* 0.9.2 loads the language model alone */
    s.engine_version = 902;
    p = plan_ok(&m, &q, &g, &s);
    assert_int_equal(p.param_count, 4456156768ull);
    assert_non_null(strstr(p.warning, "language model only"));
}

/* Releases, engine lines and parallelism vLLM does not run it with. */
static void test_gemma3n_vllm_refused(void **state)
{
    (void)state;
    kvb_model m = E2B();
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g = gpu_of(80 * GIB, 2);
    g.compute_capability = 90;
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_VLLM;
    s.engine_version = 901;
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_plan_compute(&m, &q, &g, &s, &p, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "serving.engine_version");
    s.engine_version = 1000;
    s.accounting = KVB_ACCOUNTING_VLLM_V0;
    assert_int_equal(kvb_plan_compute(&m, &q, &g, &s, &p, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "serving.accounting");
    s.accounting = -1;
    s.pipeline_parallel_size = 2;
    assert_int_equal(kvb_plan_compute(&m, &q, &g, &s, &p, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "serving.pipeline_parallel_size");
}

/* Engines whose KV sharing is not modelled refuse it by name. */
static void test_gemma3n_engines_refused(void **state)
{
    (void)state;
    const int32_t engines[] = {KVB_ENGINE_SGLANG, KVB_ENGINE_TGI,
                               KVB_ENGINE_TRTLLM, KVB_ENGINE_OLLAMA};
    kvb_model m = E2B();
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g = gpu_of(80 * GIB, 1);
    g.compute_capability = 90;
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++) {
        kvb_serving s = serving_default();
        s.engine = engines[i];
        kvb_plan p;
        kvb_error e = KVB_ERROR_INIT;
        assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
        assert_int_equal(kvb_plan_compute(&m, &q, &g, &s, &p, &e),
                         KVB_EUNSUPPORTED);
        assert_string_equal(e.field, "serving.engine");
        assert_non_null(strstr(e.message, "Gemma 3n"));
    }
}

/*
 * llama.cpp (LLM_ARCH_GEMMA3N, n_layer_kv_from_start = 20, iSWA with
 * pattern 5), E4B in F16, -c 32768 -np 1 --kv-unified: the 4 full layers
 * keep 32768 cells, the 16 sliding ones GGML_PAD(min(32768, 512 + 512),
 * 256) = 1024 cells, each cell 2 x 512 x 2 bytes = 2048: 4 x 32768 x 2048
 * + 16 x 1024 x 2048 = 268435456 + 33554432; layers 20..34 none.
 */
static void test_gemma3n_llama_cpp(void **state)
{
    (void)state;
    kvb_model m = E4B();
    kvb_quant q = quant_of(KVB_QUANT_FP16);
    kvb_gpu g = gpu_of(80 * GIB, 1);
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.context_size = 32768;
    s.max_num_seqs = 1;
    s.kv_unified = 1;
    s.max_model_len = 32768;
    kvb_plan p = plan_ok(&m, &q, &g, &s);
    assert_int_equal(p.kv_cache_bytes_per_gpu, 268435456ull + 33554432ull);
    /* no --mmproj: the language model only */
    assert_int_equal(p.param_count, 6866696688ull);
    /* E2B has the same 20 KV layers (30 - 10) */
    kvb_model e2b = E2B();
    p = plan_ok(&e2b, &q, &g, &s);
    assert_int_equal(p.kv_cache_bytes_per_gpu, 268435456ull + 33554432ull);
}

/* llama.cpp hard-codes 20 KV layers; GGUF mixes and the mmproj are not
 * modelled for Gemma 3n. */
static void test_gemma3n_llama_cpp_refused(void **state)
{
    (void)state;
    kvb_model m = g3n_model(30, 8192, 12);
    kvb_quant q = quant_of(KVB_QUANT_FP16);
    kvb_gpu g = gpu_of(80 * GIB, 1);
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_plan_compute(&m, &q, &g, &s, &p, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "model.num_kv_shared_layers");
    m = E2B();
    q = quant_of(KVB_QUANT_Q4_K_M);
    assert_int_equal(kvb_plan_compute(&m, &q, &g, &s, &p, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "quant.method");
    q = quant_of(KVB_QUANT_FP16);
    s.mmproj = KVB_MMPROJ_LOAD;
    assert_int_equal(kvb_plan_compute(&m, &q, &g, &s, &p, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "serving.mmproj");
}

/* Gemma 3n's fields belong to its family; the gaps of the enums are not
 * values. */
static void test_gemma3n_validate(void **state)
{
    (void)state;
    kvb_model m = tiny_llama();
    kvb_error e = KVB_ERROR_INIT;
    m.num_kv_shared_layers = 1;
    assert_int_equal(kvb_model_validate(&m, &e), KVB_EINVAL);
    assert_string_equal(e.field, "model.arch");
    m = tiny_llama();
    m.arch = KVB_ARCH_LAST_; /* past the last family */
    assert_int_equal(kvb_model_validate(&m, &e), KVB_ERANGE);
    m = E2B();
    m.audio_num_heads = 7; /* does not divide 1536 */
    assert_int_equal(kvb_model_validate(&m, &e), KVB_EINVAL);
    assert_string_equal(e.field, "model.audio_num_heads");
    m = E2B();
    m.laurel_rank = 0;
    assert_int_equal(kvb_model_validate(&m, &e), KVB_EINVAL);
    /* audio sizes on another family would be ignored */
    m = tiny_llama();
    m.audio_num_layers = 12;
    assert_int_equal(kvb_model_validate(&m, &e), KVB_EINVAL);
    assert_string_equal(e.field, "model.arch");
}

/* Tensor names follow the checkpoint's (a few spot checks). */
static void test_gemma3n_names(void **state)
{
    (void)state;
    kvb_model m = E2B();
    size_t n = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_model_tensor_count(&m, &n, &e), KVB_OK);
    bool ple = false, laurel = false, conformer = false, mobilenet = false;
    bool ffw_end = false;
    for (size_t i = 0; i < n; i++) {
        kvb_tensor t;
        memset(&t, 0, sizeof t);
        t.struct_size = sizeof t;
        assert_int_equal(kvb_model_tensor_get(&m, NULL, i, &t, &e), KVB_OK);
        ple |= strcmp(t.name, "model.embed_tokens_per_layer.weight") == 0 &&
               t.rows == 262144 && t.cols == 7680;
        laurel |=
            strcmp(t.name, "model.layers.29.laurel.linear_left.weight") == 0 &&
            t.rows == 64;
        conformer |= strcmp(t.name, "model.audio_tower.conformer.11.attention."
                                    "attn.q_proj.weight") == 0;
        ffw_end |= strcmp(t.name, "model.audio_tower.conformer.0.ffw_layer_"
                                  "end.ffw_layer_1.weight") == 0 &&
                   t.rows == 6144;
        mobilenet |= strstr(t.name, "mobilenetv5_300m_enc") != NULL &&
                     t.rows == 294126912;
    }
    assert_true(ple && laurel && conformer && mobilenet && ffw_end);
}

KVB_TESTS(cmocka_unit_test(test_gemma3n_params_by_hand),
          cmocka_unit_test(test_gemma3n_read),
          cmocka_unit_test(test_gemma3n_refused_reads),
          cmocka_unit_test(test_gemma3n_kv_bytes),
          cmocka_unit_test(test_gemma3n_vllm),
          cmocka_unit_test(test_gemma3n_vllm_refused),
          cmocka_unit_test(test_gemma3n_engines_refused),
          cmocka_unit_test(test_gemma3n_llama_cpp),
          cmocka_unit_test(test_gemma3n_llama_cpp_refused),
          cmocka_unit_test(test_gemma3n_validate),
          cmocka_unit_test(test_gemma3n_names));
