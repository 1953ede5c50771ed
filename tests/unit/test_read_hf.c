/*
 * test_read_hf.c -- config.json read the way transformers reads it
 * (issue 14): Infinity and NaN in published files, the defaults a
 * configuration class fills, nested text_config / language_config, a
 * quantization_config inside the nested config, multimodal towers said
 * aloud, unknown families refused.  Inline configs name the published file
 * whose keys they carry.
 */
#include "testing.h"

#include <string.h>

typedef struct result {
    kvb_model m;
    kvb_quant q;
    kvb_read_info info;
    kvb_error e;
    kvb_status st;
} result;

static result parse_opts(const char *json, uint32_t options)
{
    result r;
    assert_int_equal(KVB_MODEL_INIT(&r.m), KVB_OK);
    assert_int_equal(KVB_QUANT_INIT(&r.q), KVB_OK);
    assert_int_equal(KVB_READ_INFO_INIT(&r.info), KVB_OK);
    assert_int_equal(kvb_error_init(&r.e, sizeof r.e), KVB_OK);
    r.info.options = options;
    r.st = kvb_config_parse(json, strlen(json), &r.m, &r.q, &r.info, &r.e);
    return r;
}

static result parse(const char *json)
{
    return parse_opts(json, 0);
}

static void expect_ok(const result *r, const char *what)
{
    if (r->st != KVB_OK)
        fail_msg("%s: %s %s: %s (line %lld)", what, kvb_status_name(r->st),
                 r->e.field, r->e.message, (long long)r->e.line);
}

static bool from_file(const kvb_read_info *info, int field)
{
    return (info->fields_from_file >> field) & 1u;
}

#define LLAMA_BODY                                                             \
    "\"model_type\": \"llama\", \"hidden_size\": 4096,"                        \
    "\"num_hidden_layers\": 32, \"num_attention_heads\": 32,"                  \
    "\"num_key_value_heads\": 8, \"intermediate_size\": 14336,"                \
    "\"vocab_size\": 128256, \"max_position_embeddings\": 131072"

static void test_read_hf_non_finite(void **state)
{
    (void)state;
    /* Python's json writes these; nvidia/Nemotron-H-8B-Base-8K's
     * config.json has "time_step_limit": [0.0, Infinity]. */
    result r =
        parse("{" LLAMA_BODY ",\n\"time_step_limit\": [0.0, Infinity],"
              "\n\"a\": -Infinity, \"b\": NaN, \"s\": \"NaN Infinity\"}");
    expect_ok(&r, "Infinity/NaN in unread keys");
    assert_int_equal(r.m.num_hidden_layers, 32);
    /* In a field the model needs it is an error at its own position. */
    r = parse("{" LLAMA_BODY ",\n  \"head_dim\": NaN}");
    assert_int_equal(r.st, KVB_EPARSE);
    assert_string_equal(r.e.field, "config.head_dim");
    assert_int_equal(r.e.line, 2);
    assert_int_equal(r.e.column, 15);
    /* A syntax error after one keeps jansson's exact column. */
    r = parse("{\"x\": Infinity, \"y\": ]}");
    result same = parse("{\"x\": 12345678, \"y\": ]}");
    assert_int_equal(r.st, KVB_EPARSE);
    assert_int_equal(r.e.column, same.e.column);
    assert_int_equal(r.e.offset, same.e.offset);
    /* Not a token: a bare word that only starts like one. */
    r = parse("{" LLAMA_BODY ", \"x\": Infinite}");
    assert_int_equal(r.st, KVB_EPARSE);
}

static void test_read_hf_gemma3_defaults(void **state)
{
    (void)state;
    /* google/gemma-3-4b-it's config.json: text_config gives neither
     * vocab_size, head_dim, the head counts nor max_position_embeddings;
     * Gemma3TextConfig fills 262208, 256, 8, 4 and 131072. */
    result r = parse(
        "{\"architectures\": [\"Gemma3ForConditionalGeneration\"],"
        "\"model_type\": \"gemma3\", \"mm_tokens_per_image\": 256,"
        "\"text_config\": {\"hidden_size\": 2560, \"intermediate_size\": "
        "10240, \"model_type\": \"gemma3_text\", \"num_hidden_layers\": 34,"
        "\"rope_scaling\": {\"factor\": 8.0, \"rope_type\": \"linear\"},"
        "\"sliding_window\": 1024},"
        "\"torch_dtype\": \"bfloat16\","
        "\"vision_config\": {\"hidden_size\": 1152, \"image_size\": 896,"
        "\"intermediate_size\": 4304, \"model_type\": \"siglip_vision_model\","
        "\"num_attention_heads\": 16, \"num_hidden_layers\": 27,"
        "\"patch_size\": 14, \"vision_use_head\": false}}");
    expect_ok(&r, "gemma-3-4b-it");
    assert_int_equal(r.m.arch, KVB_ARCH_GEMMA3);
    assert_int_equal(r.m.vocab_size, 262208);
    assert_int_equal(r.m.head_dim, 256);
    assert_int_equal(r.m.num_attention_heads, 8);
    assert_int_equal(r.m.num_key_value_heads, 4);
    assert_int_equal(r.m.max_position_embeddings, 131072);
    assert_int_equal(r.m.hidden_size, 2560);
    assert_int_equal(r.m.num_hidden_layers, 34);
    assert_int_equal(r.m.sliding_window, 1024);
    assert_int_equal(r.m.sliding_window_pattern, 6);
    assert_int_equal(r.m.tie_word_embeddings, 1);
    /* Defaults are not the file's. */
    assert_false(from_file(&r.info, KVB_READ_FIELD_VOCAB_SIZE));
    assert_true(from_file(&r.info, KVB_READ_FIELD_HIDDEN_SIZE));
    /* The SigLIP tower is read and counted: 4,300,079,472 is the HF
     * safetensors total of google/gemma-3-4b-it (3,880,263,168 text +
     * 419,816,304 tower and projector; model/vision.c). */
    assert_int_equal(r.m.vision_kind, KVB_VISION_SIGLIP);
    assert_int_equal(r.m.vision_num_layers, 27);
    assert_int_equal(r.m.vision_hidden_size, 1152);
    assert_int_equal(r.m.vision_image_size, 896);
    uint64_t total = 0;
    assert_int_equal(kvb_model_param_count(&r.m, &total, NULL, NULL), KVB_OK);
    assert_int_equal(total, 4300079472ull);
    assert_null(strstr(r.info.warning, "vision_config"));
    /* An explicit null is transformers' None, not its default: Mistral
     * v0.3's "sliding_window": null. */
    r = parse("{\"model_type\": \"mistral\", \"hidden_size\": 4096,"
              "\"intermediate_size\": 14336, \"num_attention_heads\": 32,"
              "\"num_hidden_layers\": 32, \"num_key_value_heads\": 8,"
              "\"vocab_size\": 32768, \"max_position_embeddings\": 32768,"
              "\"sliding_window\": null}");
    expect_ok(&r, "mistral null window");
    assert_int_equal(r.m.sliding_window, 0);
}

static void test_read_hf_nested(void **state)
{
    (void)state;
    /* language_config (DeepSeek-VL2, Janus), with a quantization_config
     * inside the nested object. */
    result r =
        parse("{\"model_type\": \"some_vl\", \"language_config\": {" LLAMA_BODY
              ", \"quantization_config\": {"
              "\"quant_method\": \"fp8\", \"weight_block_size\": "
              "[128, 128]}}}");
    expect_ok(&r, "language_config");
    assert_int_equal(r.m.arch, KVB_ARCH_LLAMA);
    assert_int_equal(r.m.hidden_size, 4096);
    assert_int_equal(r.q.method, KVB_QUANT_FP8);
    assert_int_equal(r.q.fp8_scale, KVB_FP8_SCALE_BLOCK128);
    /* An error in it names the nested path and points at it. */
    r = parse("{\"model_type\": \"some_vl\", \"text_config\": {" LLAMA_BODY
              ",\n\"quantization_config\": {\"quant_method\": \"awq\", "
              "\"group_size\": -7}}}");
    assert_int_equal(r.st, KVB_ERANGE);
    assert_int_equal(r.e.line, 2);
    /* The top-level one wins over the nested one. */
    r = parse("{\"model_type\": \"x\", \"quantization_config\": {"
              "\"quant_method\": \"mxfp4\"}, \"text_config\": {" LLAMA_BODY
              ", \"quantization_config\": {\"quant_method\": \"fp8\"}}}");
    expect_ok(&r, "top-level quantization_config");
    assert_int_equal(r.q.method, KVB_QUANT_MXFP4);
}

static void test_read_hf_unknown_family(void **state)
{
    (void)state;
    /* ai21labs Jamba is read, but JambaConfig's defaults are not: a
     * config without expert_layer_period is refused by name. */
    result r = parse("{\"model_type\": \"jamba\", \"hidden_size\": 4096,"
                     "\"num_hidden_layers\": 32, \"num_attention_heads\": 32,"
                     "\"intermediate_size\": 14336, \"vocab_size\": 65536,"
                     "\"max_position_embeddings\": 262144,"
                     "\"attn_layer_period\": 8, \"attn_layer_offset\": 4}");
    assert_int_equal(r.st, KVB_EPARSE);
    assert_non_null(strstr(r.e.message, "expert_layer_period"));
    /* nvidia/Nemotron-H is read; a pattern that does not cover the layers
     * is refused by name. */
    r = parse("{\"model_type\": \"nemotron_h\", \"hidden_size\": 4096,"
              "\"num_hidden_layers\": 52, \"num_attention_heads\": 32,"
              "\"intermediate_size\": 21504, \"vocab_size\": 131072,"
              "\"max_position_embeddings\": 8192,"
              "\"hybrid_override_pattern\": \"M-M-M-M*-\"}");
    assert_int_equal(r.st, KVB_EPARSE);
    assert_string_equal(r.e.field, "config.hybrid_override_pattern");
    /* A config without model_type at all is no better. */
    r = parse("{\"hidden_size\": 4096, \"num_hidden_layers\": 32,"
              "\"num_attention_heads\": 32, \"intermediate_size\": 11008,"
              "\"vocab_size\": 32000, \"max_position_embeddings\": 4096}");
    assert_int_equal(r.st, KVB_EUNSUPPORTED);
    assert_non_null(strstr(r.e.message, "missing"));
    /* Vision-language model_types whose language model is known. */
    r = parse("{\"model_type\": \"qwen2_5_vl\", \"hidden_size\": 3584,"
              "\"num_hidden_layers\": 28, \"num_attention_heads\": 28,"
              "\"num_key_value_heads\": 4, \"intermediate_size\": 18944,"
              "\"vocab_size\": 152064, \"max_position_embeddings\": 128000,"
              "\"vision_config\": {\"depth\": 32}}");
    expect_ok(&r, "qwen2_5_vl");
    assert_int_equal(r.m.arch, KVB_ARCH_QWEN2);
    /* Its tower is read, the rest from Qwen2_5_VLVisionConfig defaults. */
    assert_int_equal(r.m.vision_kind, KVB_VISION_QWEN2_5_VL);
    assert_int_equal(r.m.vision_num_layers, 32);
    assert_int_equal(r.m.vision_hidden_size, 3584);
    assert_int_equal(r.m.vision_intermediate_size, 3420);
    assert_int_equal(r.m.vision_spatial_merge, 2);
    assert_null(strstr(r.info.warning, "vision_config"));
    /* mllama: its cross-attention layers become 'X' in layer_pattern and
     * its tower takes MllamaVisionConfig's defaults for keys it omits. */
    r = parse("{\"model_type\": \"mllama\", \"text_config\": {"
              "\"model_type\": \"mllama_text_model\", \"hidden_size\": 4096,"
              "\"num_hidden_layers\": 40, \"num_attention_heads\": 32,"
              "\"num_key_value_heads\": 8, \"intermediate_size\": 14336,"
              "\"vocab_size\": 128256, \"max_position_embeddings\": 131072,"
              "\"cross_attention_layers\": [3, 8, 13, 18, 23, 28, 33, 38]},"
              "\"vision_config\": {\"num_hidden_layers\": 32}}");
    expect_ok(&r, "mllama");
    assert_int_equal(r.m.arch, KVB_ARCH_MLLAMA);
    assert_int_equal(r.m.layer_pattern[3], 'X');
    assert_int_equal(r.m.vision_kind, KVB_VISION_MLLAMA);
    assert_int_equal(r.m.vision_global_layers, 8);
    assert_int_equal(r.m.vision_max_tiles, 4);
    assert_int_equal(r.m.vision_aspect_ratios, 8);
    assert_null(strstr(r.info.warning, "vision_config"));
    /* A tower of another family is said aloud (LLaVA-style configs). */
    r = parse("{\"model_type\": \"llava\", \"text_config\": {"
              "\"model_type\": \"llama\", \"hidden_size\": 4096,"
              "\"num_hidden_layers\": 32, \"num_attention_heads\": 32,"
              "\"intermediate_size\": 11008, \"vocab_size\": 32064,"
              "\"max_position_embeddings\": 4096},"
              "\"vision_config\": {\"hidden_size\": 1024}}");
    expect_ok(&r, "llava");
    assert_int_equal(r.m.vision_kind, KVB_VISION_NONE);
    assert_non_null(strstr(r.info.warning, "vision_config"));
    assert_non_null(strstr(r.info.warning, "llava"));
}

static void test_read_hf_w8a8_int8(void **state)
{
    (void)state;
    /* RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8: compressed-
     * tensors int8 weights with channel scales. */
    result r = parse("{" LLAMA_BODY ", \"quantization_config\": {"
                     "\"quant_method\": \"compressed-tensors\", "
                     "\"config_groups\": {\"group_0\": {\"targets\": "
                     "[\"Linear\"], \"weights\": {\"num_bits\": 8, "
                     "\"type\": \"int\", \"symmetric\": true, "
                     "\"strategy\": \"channel\"}}}, \"ignore\": "
                     "[\"lm_head\"]}}");
    expect_ok(&r, "w8a8 int8");
    assert_int_equal(r.q.method, KVB_QUANT_W8A8_INT8);
    assert_int_equal(r.q.fp8_scale, KVB_FP8_SCALE_CHANNEL);
    /* the ignore list holds only lm_head: nothing to warn about */
    assert_int_equal(r.info.warning_count, 0);
}

KVB_TESTS(cmocka_unit_test(test_read_hf_non_finite),
          cmocka_unit_test(test_read_hf_gemma3_defaults),
          cmocka_unit_test(test_read_hf_nested),
          cmocka_unit_test(test_read_hf_unknown_family),
          cmocka_unit_test(test_read_hf_w8a8_int8));
