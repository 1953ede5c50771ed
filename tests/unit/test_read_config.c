/*
 * test_read_config.c -- config.json into kvb_model / kvb_quant.
 *
 * The real configs in tests/data/configs/ (sources in SOURCES.md) are read
 * and compared with the preset rows of lib/presets/models.c field by field
 * (everything but the name): the preset rows were written from the same
 * public configs, so any difference is a reader bug.  Configs written
 * inline below are marked as such; each says where its keys come from.
 */
#include "testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct result {
    kvb_model m;
    kvb_quant q;
    kvb_read_info info;
    kvb_error e;
    kvb_status st;
} result;

static void result_init(result *r)
{
    assert_int_equal(KVB_MODEL_INIT(&r->m), KVB_OK);
    assert_int_equal(KVB_QUANT_INIT(&r->q), KVB_OK);
    assert_int_equal(KVB_READ_INFO_INIT(&r->info), KVB_OK);
    assert_int_equal(kvb_error_init(&r->e, sizeof r->e), KVB_OK);
}

static result read_file(const char *name)
{
    char path[1024];
    result r;
    result_init(&r);
    data_path(path, sizeof path, name);
    r.st = kvb_model_read(path, &r.m, &r.q, &r.info, &r.e);
    return r;
}

static result parse(const char *json)
{
    result r;
    result_init(&r);
    r.st = kvb_config_parse(json, strlen(json), &r.m, &r.q, &r.info, &r.e);
    return r;
}

static void expect_ok(const result *r, const char *what)
{
    if (r->st != KVB_OK)
        fail_msg("%s: %s %s: %s (line %lld)", what, kvb_status_name(r->st),
                 r->e.field, r->e.message, (long long)r->e.line);
}

#define SAME(f)                                                                \
    do {                                                                       \
        if ((uint64_t)a->f != (uint64_t)b->f)                                  \
            fail_msg("%s: %s is %llu, preset %llu", what, #f,                  \
                     (unsigned long long)a->f, (unsigned long long)b->f);      \
    } while (0)

/* Every field but the name and struct_size. */
static void same_model(const kvb_model *a, const kvb_model *b, const char *what)
{
    SAME(arch);
    SAME(dtype);
    SAME(flags);
    SAME(num_hidden_layers);
    SAME(hidden_size);
    SAME(num_attention_heads);
    SAME(num_key_value_heads);
    SAME(head_dim);
    SAME(intermediate_size);
    SAME(vocab_size);
    SAME(tie_word_embeddings);
    SAME(max_position_embeddings);
    SAME(position_embedding_rows);
    SAME(num_experts);
    SAME(num_experts_per_tok);
    SAME(moe_intermediate_size);
    SAME(num_shared_experts);
    SAME(shared_expert_intermediate_size);
    SAME(first_k_dense_replace);
    SAME(moe_layer_step);
    SAME(kv_lora_rank);
    SAME(q_lora_rank);
    SAME(qk_rope_head_dim);
    SAME(qk_nope_head_dim);
    SAME(v_head_dim);
    SAME(sliding_window);
    SAME(sliding_window_pattern);
    SAME(attention_chunk_size);
    SAME(attention_chunk_pattern);
    SAME(vision_kind);
    SAME(vision_num_layers);
    SAME(vision_hidden_size);
    SAME(vision_intermediate_size);
    SAME(vision_num_heads);
    SAME(vision_patch_size);
    SAME(vision_image_size);
    SAME(vision_spatial_merge);
    SAME(vision_out_hidden_size);
    SAME(vision_position_rows);
    SAME(vision_deepstack);
}

/* File -> the preset it must reproduce (SOURCES.md gives each source). */
static const struct {
    const char *file, *preset;
} pairs[] = {
    {"configs/llama-2-7b-hf.json", "Llama-2-7B"},
    {"configs/llama-3.1-8b-instruct.json", "Llama-3.1-8B"},
    {"configs/llama-3.1-70b-instruct.json", "Llama-3.1-70B"},
    {"configs/llama-3.2-1b.json", "Llama-3.2-1B"},
    {"configs/llama-3.2-3b.json", "Llama-3.2-3B"},
    {"configs/llama-4-scout-17b-16e-instruct-fp8-dynamic.json",
     "Llama-4-Scout-17B-16E"},
    {"configs/mistral-7b-v0.3.json", "Mistral-7B-v0.3"},
    {"configs/mixtral-8x7b-v0.1.json", "Mixtral-8x7B"},
    {"configs/qwen2-0.5b.json", "Qwen2.5-0.5B"},
    {"configs/qwen2.5-7b-instruct.json", "Qwen2.5-7B"},
    {"configs/qwen3-8b.json", "Qwen3-8B"},
    {"configs/qwen3-30b-a3b.json", "Qwen3-30B-A3B"},
    {"configs/gemma-2-9b.json", "Gemma-2-9B"},
    {"configs/gemma-2-27b.json", "Gemma-2-27B"},
    {"configs/deepseek-v3.json", "DeepSeek-V3"},
    {"configs/qwen3-0.6b.json", "Qwen3-0.6B"},
    {"configs/qwen3-1.7b.json", "Qwen3-1.7B"},
    {"configs/qwen3-14b.json", "Qwen3-14B"},
    {"configs/mistral-nemo-instruct-2407.json", "Mistral-Nemo-12B"},
    {"configs/gemma-3-1b-it.json", "Gemma-3-1B"},
    {"configs/qwen3-coder-30b-a3b-instruct.json", "Qwen3-Coder-30B-A3B"},
    {"configs/mistral-small-3.1-24b-instruct-2503.json",
     "Mistral-Small-3.1-24B"},
    {"configs/glm-4.5.json", "GLM-4.5"},
    {"configs/glm-4.5-air.json", "GLM-4.5-Air"},
    {"configs/glm-4.6.json", "GLM-4.6"},
};

static void test_read_config_presets(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        result r = read_file(pairs[i].file);
        expect_ok(&r, pairs[i].file);
        kvb_model want = preset_model(pairs[i].preset);
        same_model(&r.m, &want, pairs[i].file);
        assert_int_equal(r.info.format, KVB_FORMAT_CONFIG_JSON);
        /* a config alone states no tensor bytes */
        assert_int_equal(r.info.weights_bytes, 0);
        assert_int_equal(r.info.weights_format, KVB_FORMAT_NONE);
    }
}

static bool from_file(const kvb_read_info *info, int field)
{
    return (info->fields_from_file >> field) & 1u;
}

static void test_read_config_provenance(void **state)
{
    (void)state;
    result r = read_file("configs/llama-3.1-8b-instruct.json");
    expect_ok(&r, "llama-3.1-8b");
    /* The file states these ... */
    assert_true(from_file(&r.info, KVB_READ_FIELD_ARCH));
    assert_true(from_file(&r.info, KVB_READ_FIELD_DTYPE));
    assert_true(from_file(&r.info, KVB_READ_FIELD_NUM_HIDDEN_LAYERS));
    assert_true(from_file(&r.info, KVB_READ_FIELD_NUM_KEY_VALUE_HEADS));
    assert_true(from_file(&r.info, KVB_READ_FIELD_TIE_WORD_EMBEDDINGS));
    assert_true(from_file(&r.info, KVB_READ_FIELD_MAX_POSITION_EMBEDDINGS));
    /* ... and not these: no head_dim key, no quantization_config. */
    assert_false(from_file(&r.info, KVB_READ_FIELD_HEAD_DIM));
    assert_false(from_file(&r.info, KVB_READ_FIELD_QUANT_METHOD));
    assert_false(from_file(&r.info, KVB_READ_FIELD_NUM_EXPERTS));
    assert_string_equal(r.info.arch_name, "llama");
    assert_string_equal(r.m.name, "llama-3.1-8b-instruct");
    assert_string_equal(kvb_read_field_name(KVB_READ_FIELD_HEAD_DIM),
                        "model.head_dim");
    assert_null(kvb_read_field_name(KVB_READ_FIELD_LAST_));
    assert_string_equal(kvb_format_name(KVB_FORMAT_GGUF), "gguf");
    assert_null(kvb_format_name(KVB_FORMAT_LAST_));
}

/* Read a file, replace one substring, parse the result. */
static result parse_replaced(const char *name, const char *from, const char *to)
{
    size_t len = 0;
    char *text = slurp(name, &len);
    char *at = strstr(text, from);
    assert_non_null(at);
    size_t head = (size_t)(at - text), fl = strlen(from), tl = strlen(to);
    char *out = malloc(len - fl + tl + 1);
    assert_non_null(out);
    memcpy(out, text, head);
    memcpy(out + head, to, tl);
    memcpy(out + head + tl, at + fl, len - head - fl + 1);
    result r = parse(out);
    free(out);
    free(text);
    return r;
}

static void test_read_config_gpt_oss(void **state)
{
    (void)state;
    /* That repository's copy says quant_method "gptq" (openai/gpt-oss-20b
     * says "mxfp4") and has no bits: a gptq config without bits cannot be
     * sized.  The error points at the quantization_config object, line 50
     * column 26 ('{' after two spaces and "quantization_config": ). */
    result r = read_file("configs/gpt-oss-20b-echocog.json");
    assert_int_equal(r.st, KVB_EPARSE);
    assert_string_equal(r.e.field, "quantization_config.bits");
    assert_int_equal(r.e.line, 50);
    assert_int_equal(r.e.column, 26);
    assert_non_null(strstr(r.e.source, "gpt-oss-20b-echocog.json"));
    /* With the upstream method the architecture equals the preset. */
    r = parse_replaced("configs/gpt-oss-20b-echocog.json",
                       "\"quant_method\": \"gptq\"",
                       "\"quant_method\": \"mxfp4\"");
    expect_ok(&r, "gpt-oss mxfp4");
    kvb_model want = preset_model("gpt-oss-20b");
    same_model(&r.m, &want, "gpt-oss-20b");
    assert_int_equal(r.q.method, KVB_QUANT_MXFP4);
    /* layer_types alternates sliding, full: the period is 2 */
    assert_true(from_file(&r.info, KVB_READ_FIELD_SLIDING_WINDOW_PATTERN));
}

/* rope_scaling, as vLLM reads it for the default max_model_len
 * (_get_and_verify_max_len; docs/model.md section 4). */
static void test_read_config_rope_scaling(void **state)
{
    (void)state;
    /* DeepSeek-V3: yarn, factor 40 over 4096 original positions */
    result r = read_file("configs/deepseek-v3.json");
    expect_ok(&r, "deepseek-v3");
    assert_int_equal(r.m.rope_scaling_type, KVB_ROPE_YARN);
    assert_true(r.m.rope_scaling_factor == 40.0);
    assert_int_equal(r.m.original_max_position_embeddings, 4096);
    assert_int_equal(kvb__vllm_derived_max_len(&r.m), 163840);
    /* Llama 3.2 1B: llama3 (factor 32) is already in its 131072 */
    r = read_file("configs/llama-3.2-1b.json");
    expect_ok(&r, "llama-3.2-1b");
    assert_int_equal(r.m.rope_scaling_type, KVB_ROPE_LLAMA3);
    assert_true(r.m.rope_scaling_factor == 32.0);
    assert_int_equal(kvb__vllm_derived_max_len(&r.m), 131072);
    /* Phi-3.5-mini: longrope, no factor, 131072 as given */
    r = read_file("configs/phi-3.5-mini-instruct.json");
    expect_ok(&r, "phi-3.5-mini");
    assert_int_equal(r.m.rope_scaling_type, KVB_ROPE_LONGROPE);
    assert_int_equal(kvb__vllm_derived_max_len(&r.m), 131072);
    /* gpt-oss-20b: rope_type yarn, 32 x 4096 = its 131072 */
    r = parse_replaced("configs/gpt-oss-20b-echocog.json",
                       "\"quant_method\": \"gptq\"",
                       "\"quant_method\": \"mxfp4\"");
    expect_ok(&r, "gpt-oss-20b");
    assert_int_equal(r.m.rope_scaling_type, KVB_ROPE_YARN);
    assert_int_equal(kvb__vllm_derived_max_len(&r.m), 131072);
    /* Qwen2.5-7B-Instruct as published: no rope_scaling */
    r = read_file("configs/qwen2.5-7b-instruct.json");
    expect_ok(&r, "qwen2.5-7b");
    assert_int_equal(r.m.rope_scaling_type, KVB_ROPE_NONE);
    assert_int_equal(kvb__vllm_derived_max_len(&r.m), 32768);
    /* inline, the keys of lmsys/vicuna-7b-v1.5-16k's config.json: linear
     * scaling by 4 over 4096 positions; vLLM serves 16384 by default */
    r = parse("{\"model_type\": \"llama\", \"hidden_size\": 4096, "
              "\"num_hidden_layers\": 32, \"num_attention_heads\": 32, "
              "\"intermediate_size\": 11008, \"vocab_size\": 32000, "
              "\"max_position_embeddings\": 4096, \"rope_scaling\": "
              "{\"factor\": 4.0, \"type\": \"linear\"}}");
    expect_ok(&r, "vicuna-16k");
    assert_int_equal(r.m.rope_scaling_type, KVB_ROPE_LINEAR);
    assert_int_equal(kvb__vllm_derived_max_len(&r.m), 16384);
    /* a factor that is not a positive number is refused */
    r = parse("{\"model_type\": \"llama\", \"hidden_size\": 4096, "
              "\"num_hidden_layers\": 32, \"num_attention_heads\": 32, "
              "\"intermediate_size\": 11008, \"vocab_size\": 32000, "
              "\"max_position_embeddings\": 4096, \"rope_scaling\": "
              "{\"factor\": -2, \"type\": \"linear\"}}");
    assert_int_equal(r.st, KVB_ERANGE);
    assert_string_equal(r.e.field, "config.rope_scaling.factor");
}

static void test_read_config_quant_real(void **state)
{
    (void)state;
    /* DeepSeek-V3: quant_method fp8, weight_block_size [128, 128] */
    result r = read_file("configs/deepseek-v3.json");
    expect_ok(&r, "deepseek-v3");
    assert_int_equal(r.q.method, KVB_QUANT_FP8);
    assert_int_equal(r.q.fp8_scale, KVB_FP8_SCALE_BLOCK128);
    assert_true(from_file(&r.info, KVB_READ_FIELD_QUANT_METHOD));
    /* RedHatAI's Llama 4 Scout FP8-dynamic: compressed-tensors, weights
     * num_bits 8, type float, strategy channel */
    r = read_file("configs/llama-4-scout-17b-16e-instruct-fp8-dynamic.json");
    expect_ok(&r, "scout");
    assert_int_equal(r.q.method, KVB_QUANT_FP8);
    assert_int_equal(r.q.fp8_scale, KVB_FP8_SCALE_CHANNEL);
    assert_string_equal(r.info.arch_name, "llama4_text");
}

/* A Llama-shaped body for inline configs: Llama-3.1-8B's dimensions. */
#define BODY                                                                   \
    "\"hidden_size\": 4096, \"num_hidden_layers\": 32,"                        \
    "\"num_attention_heads\": 32, \"num_key_value_heads\": 8,"                 \
    "\"intermediate_size\": 14336, \"vocab_size\": 128256,"                    \
    "\"max_position_embeddings\": 131072"

static result parse_quant(const char *qc)
{
    char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"model_type\": \"llama\", " BODY
             ", \"torch_dtype\": \"float16\", \"quantization_config\": %s}",
             qc);
    return parse(buf);
}

static void test_read_config_quant_methods(void **state)
{
    (void)state;
    /* AWQ: the shape quant_formats.md §3 quotes (hugging-quants, Qwen) */
    result r = parse_quant("{\"quant_method\": \"awq\", \"bits\": 4, "
                           "\"group_size\": 128, \"zero_point\": true, "
                           "\"version\": \"gemm\", "
                           "\"modules_to_not_convert\": null}");
    expect_ok(&r, "awq");
    assert_int_equal(r.q.method, KVB_QUANT_AWQ_4);
    assert_int_equal(r.q.group_size, 128);
    assert_int_equal(r.m.dtype, KVB_DTYPE_FP16);
    /* GPTQ: group_size -1 is one group per row (0); desc_act a flag */
    r = parse_quant("{\"quant_method\": \"gptq\", \"bits\": 8, "
                    "\"group_size\": -1, \"desc_act\": true, \"sym\": true}");
    expect_ok(&r, "gptq");
    assert_int_equal(r.q.method, KVB_QUANT_GPTQ_8);
    assert_int_equal(r.q.group_size, 0);
    assert_int_equal(r.q.flags, KVB_QUANT_DESC_ACT);
    /* legacy AutoFP8: one scale per tensor */
    r = parse_quant("{\"quant_method\": \"fp8\", "
                    "\"activation_scheme\": \"static\"}");
    expect_ok(&r, "fp8");
    assert_int_equal(r.q.fp8_scale, KVB_FP8_SCALE_TENSOR);
    /* bitsandbytes NF4; transformers' double-quant default is false */
    r = parse_quant("{\"quant_method\": \"bitsandbytes\", "
                    "\"load_in_4bit\": true, "
                    "\"bnb_4bit_quant_type\": \"nf4\"}");
    expect_ok(&r, "bnb");
    assert_int_equal(r.q.method, KVB_QUANT_BNB_4);
    assert_int_equal(r.q.flags, KVB_QUANT_BNB_NO_DOUBLE);
    r = parse_quant("{\"quant_method\": \"bitsandbytes\", "
                    "\"load_in_4bit\": true, "
                    "\"bnb_4bit_use_double_quant\": true}");
    expect_ok(&r, "bnb double");
    assert_int_equal(r.q.flags, 0);
    /* compressed-tensors W4A16 (pack-quantized int4, group 128) */
    r = parse_quant("{\"quant_method\": \"compressed-tensors\", "
                    "\"config_groups\": {\"group_0\": {\"weights\": "
                    "{\"num_bits\": 4, \"type\": \"int\", "
                    "\"strategy\": \"group\", \"group_size\": 128}}}}");
    expect_ok(&r, "ct int4");
    assert_int_equal(r.q.method, KVB_QUANT_W4A16);
    assert_int_equal(r.q.group_size, 128);
    assert_int_equal(r.info.warning_count, 0);
    /* ... with actorder "group" (weight_g_idx stored) and per channel */
    r = parse_quant("{\"quant_method\": \"compressed-tensors\", "
                    "\"config_groups\": {\"group_0\": {\"weights\": "
                    "{\"num_bits\": 4, \"type\": \"int\", "
                    "\"actorder\": \"group\", \"strategy\": \"channel\"}}}}");
    expect_ok(&r, "ct int4 channel");
    assert_int_equal(r.q.method, KVB_QUANT_W4A16);
    assert_int_equal(r.q.group_size, 0);
    assert_int_equal(r.q.flags, KVB_QUANT_DESC_ACT);
    /* asymmetric int4: zero points not counted, said plainly */
    r = parse_quant("{\"quant_method\": \"compressed-tensors\", "
                    "\"config_groups\": {\"group_0\": {\"weights\": "
                    "{\"num_bits\": 4, \"type\": \"int\", "
                    "\"symmetric\": false, \"group_size\": 128}}}}");
    expect_ok(&r, "ct int4 asym");
    assert_non_null(strstr(r.info.warning, "zero points"));
    /* NVFP4 (llm-compressor scheme NVFP4, format nvfp4-pack-quantized):
     * 4-bit float, strategy tensor_group, group 16 */
    r = parse_quant("{\"quant_method\": \"compressed-tensors\", "
                    "\"format\": \"nvfp4-pack-quantized\", "
                    "\"config_groups\": {\"group_0\": {\"weights\": "
                    "{\"num_bits\": 4, \"type\": \"float\", "
                    "\"strategy\": \"tensor_group\", \"group_size\": 16}}}, "
                    "\"ignore\": [\"lm_head\", \"re:.*mlp.gate$\"]}");
    expect_ok(&r, "ct nvfp4");
    assert_int_equal(r.q.method, KVB_QUANT_NVFP4);
    assert_int_equal(r.info.warning_count, 0);
    r = parse_quant("{\"quant_method\": \"compressed-tensors\", "
                    "\"config_groups\": {\"group_0\": {\"weights\": "
                    "{\"num_bits\": 4, \"type\": \"float\", "
                    "\"group_size\": 32}}}}");
    assert_int_equal(r.st, KVB_EUNSUPPORTED);
    /* an ignore entry that is a real linear (a whole attention module) is
     * sized as quantized: said plainly */
    r = parse_quant("{\"quant_method\": \"compressed-tensors\", "
                    "\"config_groups\": {\"group_0\": {\"weights\": "
                    "{\"num_bits\": 8, \"type\": \"int\", "
                    "\"strategy\": \"channel\"}}}, \"ignore\": [\"lm_head\", "
                    "\"model.layers.0.mlp.down_proj\"]}");
    expect_ok(&r, "ct w8a8 ignore");
    assert_int_equal(r.q.method, KVB_QUANT_W8A8_INT8);
    assert_non_null(strstr(r.info.warning, "model.layers.0.mlp.down_proj"));
    /* bitsandbytes LLM.int8 */
    r = parse_quant("{\"quant_method\": \"bitsandbytes\", "
                    "\"load_in_8bit\": true, \"llm_int8_skip_modules\": "
                    "[\"lm_head\"]}");
    expect_ok(&r, "bnb 8");
    assert_int_equal(r.q.method, KVB_QUANT_BNB_8);
    assert_int_equal(r.info.warning_count, 0);
}

static void test_read_config_quant_errors(void **state)
{
    (void)state;
    result r = parse_quant("{\"quant_method\": \"gptq\", \"bits\": 3}");
    assert_int_equal(r.st, KVB_EUNSUPPORTED);
    assert_string_equal(r.e.field, "quantization_config.bits");
    r = parse_quant("{\"quant_method\": \"hqq\"}");
    assert_int_equal(r.st, KVB_EUNSUPPORTED);
    assert_string_equal(r.e.field, "quantization_config.quant_method");
    assert_int_equal(r.e.line, 1);
    assert_true(r.e.column > 1);
    r = parse_quant("{\"quant_method\": \"bitsandbytes\"}");
    assert_int_equal(r.st, KVB_EPARSE);
    r = parse_quant("{\"quant_method\": \"fp8\", "
                    "\"weight_block_size\": [64, 64]}");
    assert_int_equal(r.st, KVB_EUNSUPPORTED);
    assert_string_equal(r.e.field, "quantization_config.weight_block_size");
    r = parse_quant("{\"quant_method\": \"awq\", \"group_size\": -7}");
    assert_int_equal(r.st, KVB_ERANGE);
    r = parse_quant("[1]");
    assert_int_equal(r.st, KVB_EPARSE);
    r = parse_quant("{\"bits\": 4}");
    assert_int_equal(r.st, KVB_EPARSE);
}

static void test_read_config_unknown_type(void **state)
{
    (void)state;
    /* An unknown family is refused, naming model_type: its layer kinds
     * are unknown, and a Llama-shaped guess would be a confident wrong
     * answer (issue 14). */
    result r = parse("{\"model_type\": \"my_llama\", " BODY "}");
    assert_int_equal(r.st, KVB_EUNSUPPORTED);
    assert_string_equal(r.e.field, "config.model_type");
    assert_non_null(strstr(r.e.message, "my_llama"));
    assert_non_null(strstr(r.e.message, "--assume-llama"));
    assert_int_equal(r.e.line, 1);
    /* With KVB_READ_ASSUME_LLAMA it reads, with a warning. */
    result_init(&r);
    r.info.options = KVB_READ_ASSUME_LLAMA;
    const char *text = "{\"model_type\": \"my_llama\", " BODY "}";
    r.st = kvb_config_parse(text, strlen(text), &r.m, &r.q, &r.info, &r.e);
    expect_ok(&r, "unknown type, assumed Llama");
    assert_int_equal(r.m.arch, KVB_ARCH_GENERIC);
    assert_int_equal(r.info.warning_count, 1);
    assert_non_null(strstr(r.info.warning, "my_llama"));
    assert_int_equal(r.info.options, KVB_READ_ASSUME_LLAMA);
    assert_false(from_file(&r.info, KVB_READ_FIELD_ARCH));
    /* Without a standard field it is an error that names it. */
    text = "{\"model_type\": \"my_llama\", \"hidden_size\": 4096,\n"
           "\"num_attention_heads\": 32, \"intermediate_size\": 14336,\n"
           "\"vocab_size\": 1000, \"max_position_embeddings\": 4096}";
    result_init(&r);
    r.info.options = KVB_READ_ASSUME_LLAMA;
    r.st = kvb_config_parse(text, strlen(text), &r.m, &r.q, &r.info, &r.e);
    assert_int_equal(r.st, KVB_EPARSE);
    assert_string_equal(r.e.field, "config.num_hidden_layers");
    assert_non_null(strstr(r.e.message, "num_hidden_layers is missing"));
    assert_int_equal(r.e.line, 1); /* the object that lacks it */
    assert_int_equal(r.e.column, 1);
}

static void test_read_config_positions(void **state)
{
    (void)state;
    /* Syntax error: jansson's own line and column. */
    result r = parse("{\n  \"hidden_size\": 4096,\n  \"x\": ]\n}");
    assert_int_equal(r.st, KVB_EPARSE);
    assert_string_equal(r.e.field, "config");
    assert_int_equal(r.e.line, 3);
    /* Wrong type: the value's line and column (line 3: two spaces, the
     * 19-character "num_hidden_layers", ": " -> the value at column 24;
     * the repeated key's last value is the one jansson keeps). */
    r = parse("{\"model_type\": \"llama\",\n" BODY ",\n"
              "  \"num_hidden_layers\": \"32\"}");
    assert_int_equal(r.st, KVB_EPARSE);
    assert_string_equal(r.e.field, "config.num_hidden_layers");
    assert_int_equal(r.e.line, 3);
    assert_int_equal(r.e.column, 24);
    /* Negative: out of range. */
    r = parse("{\"model_type\": \"llama\", " BODY ", \"head_dim\": -1}");
    assert_int_equal(r.st, KVB_ERANGE);
    assert_string_equal(r.e.field, "config.head_dim");
    /* A validation error of the model points at the key that set it:
     * 32 heads over 5 KV heads (line 2: two spaces, the 21-character
     * "num_key_value_heads", ": " -> column 26). */
    r = parse("{\"model_type\": \"llama\", " BODY ",\n"
              "  \"num_key_value_heads\": 5}");
    assert_int_equal(r.st, KVB_EINVAL);
    assert_string_equal(r.e.field, "model.num_key_value_heads");
    assert_int_equal(r.e.line, 2);
    assert_int_equal(r.e.column, 26);
    /* Not an object. */
    r = parse("  [1, 2]");
    assert_int_equal(r.st, KVB_EPARSE);
    assert_int_equal(r.e.column, 3);
}

static void test_read_config_hostile(void **state)
{
    (void)state;
    /* 65 nested arrays: refused before any recursive parser sees them */
    char deep[200];
    memset(deep, '[', 65);
    memset(deep + 65, ']', 65);
    deep[130] = '\0';
    result r = parse(deep);
    assert_int_equal(r.st, KVB_ELIMIT);
    assert_int_equal(r.e.column, 65);
    r = parse("");
    assert_int_equal(r.st, KVB_EPARSE);
    r = parse("{\"model_type\": \"llama\", " BODY
              ", \"num_hidden_layers\": 99999999999}");
    assert_int_equal(r.st, KVB_ERANGE);
    r = parse("{\"model_type\": \"llama\", " BODY ", \"hidden_size\": 1e300}");
    assert_int_equal(r.st, KVB_ERANGE);
    /* NULL with a length is an argument error; NULL outputs too */
    kvb_model m;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
    assert_int_equal(kvb_config_parse(NULL, 3, &m, NULL, NULL, &e), KVB_EINVAL);
    assert_int_equal(kvb_config_parse("{}", 2, NULL, NULL, NULL, &e),
                     KVB_EINVAL);
    m.struct_size = 8;
    assert_int_equal(kvb_config_parse("{}", 2, &m, NULL, NULL, &e), KVB_EABI);
}

static void test_read_config_families(void **state)
{
    (void)state;
    /* mlc-llm's verbatim copies of three more families (SOURCES.md). */
    result r = read_file("configs/redpajama-incite-3b-v1.json");
    expect_ok(&r, "gpt_neox");
    assert_int_equal(r.m.arch, KVB_ARCH_GPT_NEOX);
    assert_int_equal(r.m.flags, KVB_MODEL_FUSED_QKV | KVB_MODEL_ATTN_QKV_BIAS |
                                    KVB_MODEL_ATTN_O_BIAS | KVB_MODEL_MLP_BIAS |
                                    KVB_MODEL_NORM_BIAS |
                                    KVB_MODEL_MLP_NO_GATE);
    assert_int_equal(r.m.num_key_value_heads, 32); /* MHA */
    assert_int_equal(r.m.dtype, KVB_DTYPE_FP16);
    /* Parameters: embed + lm_head 2 x 50432 x 2560 = 258,211,840; per
     * layer qkv 3 x 2560 x 2560 + 7680 bias = 19,668,480, dense 2560^2 +
     * 2560 = 6,556,160, fc1 2560 x 10240 + 10240 = 26,224,640, fc2
     * 10240 x 2560 + 2560 = 26,216,960, two LayerNorms
     * 4 x 2560 = 10,240: 78,676,480 per layer, x 32 = 2,517,647,360;
     * final LayerNorm 5,120.  Total 2,775,864,320 (RedPajama-INCITE-3B
     * is published as "2.8B"). */
    uint64_t total = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_model_param_count(&r.m, &total, NULL, &e), KVB_OK);
    assert_int_equal(total, 2775864320ull);

    r = read_file("configs/phi-3.5-mini-instruct.json");
    expect_ok(&r, "phi3");
    assert_int_equal(r.m.flags, KVB_MODEL_FUSED_QKV | KVB_MODEL_FUSED_GATE_UP);
    assert_int_equal(r.m.sliding_window, 262144); /* every layer slides */
    assert_int_equal(r.m.sliding_window_pattern, 0);

    /* Qwen1.5-MoE-A2.7B: 60 experts, 4 per token, one gated shared expert
     * of 5632; published 14.3B total.  Per layer: attention 4 x 2048^2 +
     * 3 x 2048 q/k/v biases = 16,783,360; router 60 x 2048 = 122,880;
     * experts 60 x 3 x 2048 x 1408 = 519,045,120; shared 3 x 2048 x 5632
     * = 34,603,008; shared gate 2048; norms 2 x 2048 = 4,096: 570,560,512
     * x 24 = 13,693,452,288; embed + lm_head 2 x 151936 x 2048 =
     * 622,329,856; final norm 2048.  Total 14,315,784,192. */
    r = read_file("configs/qwen1.5-moe-a2.7b.json");
    expect_ok(&r, "qwen2_moe");
    assert_int_equal(r.m.num_shared_experts, 1);
    assert_int_equal(r.m.shared_expert_intermediate_size, 5632);
    assert_int_equal(kvb_model_param_count(&r.m, &total, NULL, &e), KVB_OK);
    assert_int_equal(total, 14315784192ull);

    /* DeepSeek-V2-Lite: MLA without q LoRA (q_lora_rank null), two shared
     * experts, first layer dense, greedy routing (no score bias). */
    r = read_file("configs/deepseek-v2-lite.json");
    expect_ok(&r, "deepseek_v2");
    assert_int_equal(r.m.kv_lora_rank, 512);
    assert_int_equal(r.m.q_lora_rank, 0);
    assert_int_equal(r.m.num_shared_experts, 2);
    assert_int_equal(r.m.first_k_dense_replace, 1);
    assert_int_equal(r.m.flags, 0);
}

static void test_read_config_patterns(void **state)
{
    (void)state;
    /* Gemma 3 multimodal: the text model in text_config, pattern 6 (keys
     * as google/gemma-3-*-it configs spell them; Gemma-3-27B dims). */
    result r =
        parse("{\"model_type\": \"gemma3\", \"text_config\": {"
              "\"model_type\": \"gemma3_text\", \"hidden_size\": 5376,"
              "\"num_hidden_layers\": 62, \"num_attention_heads\": 32,"
              "\"num_key_value_heads\": 16, \"head_dim\": 128,"
              "\"intermediate_size\": 21504, \"vocab_size\": 262208,"
              "\"max_position_embeddings\": 131072, \"sliding_window\": 1024,"
              "\"sliding_window_pattern\": 6}, \"torch_dtype\": \"bfloat16\","
              "\"vision_config\": {\"hidden_size\": 1152, \"image_size\": 896,"
              "\"intermediate_size\": 4304, \"num_attention_heads\": 16,"
              "\"num_hidden_layers\": 27, \"patch_size\": 14}}");
    expect_ok(&r, "gemma3");
    kvb_model want = preset_model("Gemma-3-27B");
    same_model(&r.m, &want, "gemma3");
    /* Irregular layer_types: no period explains them. */
    r = parse("{\"model_type\": \"gpt_oss\", " BODY
              ", \"num_hidden_layers\": 3, \"num_local_experts\": 4,"
              "\"num_experts_per_tok\": 2, \"sliding_window\": 128,"
              "\"layer_types\": [\"full_attention\", \"sliding_attention\","
              "\"sliding_attention\"]}");
    assert_int_equal(r.st, KVB_EUNSUPPORTED);
    assert_string_equal(r.e.field, "config.layer_types");
    /* Qwen: the window only with use_sliding_window, for all layers. */
    r = parse("{\"model_type\": \"qwen2\", " BODY
              ", \"sliding_window\": 4096, \"use_sliding_window\": true,"
              "\"max_window_layers\": 0}");
    expect_ok(&r, "qwen window");
    assert_int_equal(r.m.sliding_window, 4096);
    assert_int_equal(r.m.sliding_window_pattern, 0);
    r = parse("{\"model_type\": \"qwen2\", " BODY
              ", \"sliding_window\": 4096, \"use_sliding_window\": true,"
              "\"max_window_layers\": 10}");
    assert_int_equal(r.st, KVB_EUNSUPPORTED);
    assert_string_equal(r.e.field, "config.max_window_layers");
    /* Mistral v0.1: a window on every layer (its HF config's keys). */
    r = parse("{\"model_type\": \"mistral\", " BODY
              ", \"sliding_window\": 4096}");
    expect_ok(&r, "mistral window");
    assert_int_equal(r.m.sliding_window_pattern, 0);
    assert_int_equal(r.m.sliding_window, 4096);
}

static void test_read_config_llama4(void **state)
{
    (void)state;
    /* Maverick's shape: MoE every 2nd layer, global attention on the
     * NoPE layers that no_rope_layers marks 0 (every 4th here). */
    char buf[4096];
    char list[512] = "";
    for (int i = 0; i < 48; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d",
                 i ? "," : "", (i + 1) % 4 != 0);
    snprintf(buf, sizeof buf,
             "{\"model_type\": \"llama4\", \"text_config\": {"
             "\"model_type\": \"llama4_text\", \"hidden_size\": 5120,"
             "\"num_hidden_layers\": 48, \"num_attention_heads\": 40,"
             "\"num_key_value_heads\": 8, \"head_dim\": 128,"
             "\"intermediate_size\": 8192, \"intermediate_size_mlp\": 16384,"
             "\"vocab_size\": 202048, \"max_position_embeddings\": 1048576,"
             "\"num_local_experts\": 128, \"num_experts_per_tok\": 1,"
             "\"interleave_moe_layer_step\": 2,"
             "\"attention_chunk_size\": 8192, \"no_rope_layers\": [%s]},"
             "\"vision_config\": {\"hidden_size\": 1408, \"image_size\": 336,"
             "\"intermediate_size\": 5632, \"num_attention_heads\": 16,"
             "\"num_hidden_layers\": 34, \"patch_size\": 14,"
             "\"projector_input_dim\": 4096, \"projector_output_dim\": 4096,"
             "\"vision_output_dim\": 4096}}",
             list);
    result r = parse(buf);
    expect_ok(&r, "maverick");
    kvb_model want = preset_model("Llama-4-Maverick-17B-128E");
    same_model(&r.m, &want, "maverick");
    assert_true(from_file(&r.info, KVB_READ_FIELD_ATTENTION_CHUNK_PATTERN));
}

static void test_read_config_falcon_opt(void **state)
{
    (void)state;
    /* Keys as transformers' FalconConfig and OPTConfig name them, values
     * of the Falcon-7B and OPT-125m presets: Falcon omits
     * max_position_embeddings and the MLP width (2048 and 4 x hidden are
     * the family's), multi_query gives one KV head. */
    result r = parse("{\"model_type\": \"falcon\", \"hidden_size\": 4544,"
                     "\"num_hidden_layers\": 32, \"num_attention_heads\": 71,"
                     "\"multi_query\": true, \"parallel_attn\": true,"
                     "\"new_decoder_architecture\": false, \"bias\": false,"
                     "\"vocab_size\": 65024, \"torch_dtype\": \"bfloat16\"}");
    expect_ok(&r, "falcon");
    kvb_model want = preset_model("Falcon-7B");
    same_model(&r.m, &want, "falcon");
    assert_false(from_file(&r.info, KVB_READ_FIELD_MAX_POSITION_EMBEDDINGS));
    r = parse("{\"model_type\": \"opt\", \"hidden_size\": 768,"
              "\"num_hidden_layers\": 12, \"num_attention_heads\": 12,"
              "\"ffn_dim\": 3072, \"vocab_size\": 50272,"
              "\"max_position_embeddings\": 2048,"
              "\"word_embed_proj_dim\": 768, \"enable_bias\": true,"
              "\"do_layer_norm_before\": true, \"torch_dtype\": \"float16\"}");
    expect_ok(&r, "opt");
    want = preset_model("OPT-125m");
    same_model(&r.m, &want, "opt");
    r = parse("{\"model_type\": \"opt\", \"hidden_size\": 1024,"
              "\"num_hidden_layers\": 24, \"num_attention_heads\": 16,"
              "\"ffn_dim\": 4096, \"vocab_size\": 50272,"
              "\"max_position_embeddings\": 2048,"
              "\"word_embed_proj_dim\": 512}");
    assert_int_equal(r.st, KVB_EUNSUPPORTED); /* OPT-350m's projection */
    assert_string_equal(r.e.field, "config.word_embed_proj_dim");
}

static uint64_t params_of(const kvb_model *m)
{
    uint64_t total = 0;
    assert_int_equal(kvb_model_param_count(m, &total, NULL, NULL), KVB_OK);
    return total;
}

static uint64_t bytes_of(const kvb_model *m, const kvb_quant *q)
{
    kvb_weights w;
    assert_int_equal(kvb_weights_init(&w, sizeof w), KVB_OK);
    assert_int_equal(kvb_weights_compute(m, q, 1, 1, &w, NULL), KVB_OK);
    return w.bytes;
}

/* Vision towers (model/vision.c): the totals below are the HF safetensors
 * "total" parameter counts of the named checkpoints, tower included; the
 * text-only figure is what this reader gave before towers were read. */
static void test_read_config_towers(void **state)
{
    (void)state;
    /* mistralai/Mistral-Small-3.1-24B-Instruct-2503: 24,011,361,280 =
     * 23,572,403,200 text + 438,958,080 Pixtral encoder and projector. */
    result r = read_file("configs/mistral-small-3.1-24b-instruct-2503.json");
    expect_ok(&r, "mistral3");
    assert_int_equal(r.m.vision_kind, KVB_VISION_PIXTRAL);
    assert_int_equal(r.m.vision_spatial_merge, 2); /* top-level key */
    assert_int_equal(r.m.vision_image_size, 1540);
    assert_int_equal(params_of(&r.m), 24011361280ull);
    kvb_model text = r.m;
    text.vision_kind = KVB_VISION_NONE;
    assert_int_equal(params_of(&text), 23572403200ull);
    /* Qwen/Qwen2.5-VL-32B-Instruct (its AWQ copy): vision_config gives no
     * depth, num_heads or patch_size, which Qwen2_5_VLVisionConfig fills
     * (32, 16, 14); 33,452,718,336 = 32,763,876,352 text + 688,841,984. */
    r = read_file("configs/qwen2.5-vl-32b-instruct-awq.json");
    expect_ok(&r, "qwen2.5-vl-32b-awq");
    assert_int_equal(r.m.vision_kind, KVB_VISION_QWEN2_5_VL);
    assert_int_equal(r.m.vision_num_layers, 32);
    assert_int_equal(r.m.vision_intermediate_size, 3456);
    assert_int_equal(r.m.vision_out_hidden_size, 5120);
    assert_int_equal(params_of(&r.m), 33452718336ull);
    /* AWQ with modules_to_not_convert ["visual"]: the tower stays BF16,
     * 2 bytes for each of its 688,841,984 parameters. */
    assert_int_equal(r.q.method, KVB_QUANT_AWQ_4);
    text = r.m;
    text.vision_kind = KVB_VISION_NONE;
    assert_int_equal(bytes_of(&r.m, &r.q) - bytes_of(&text, &r.q),
                     2 * 688841984ull);
    /* RedHatAI's Llama 4 Scout FP8-dynamic: its ignore list names every
     * vision_model and multi_modal_projector linear; 108,641,793,536 =
     * 107,769,861,120 text + 871,932,416 tower, adapter and projector. */
    r = read_file("configs/llama-4-scout-17b-16e-instruct-fp8-dynamic.json");
    expect_ok(&r, "scout");
    assert_int_equal(r.m.vision_kind, KVB_VISION_LLAMA4);
    assert_int_equal(r.m.vision_out_hidden_size, 4096);
    assert_int_equal(params_of(&r.m), 108641793536ull);
    text = r.m;
    text.vision_kind = KVB_VISION_NONE;
    assert_int_equal(bytes_of(&r.m, &r.q) - bytes_of(&text, &r.q),
                     2 * 871932416ull);
    /* The same list names q/k/v/o_proj and the router of each of the 48
     * layers: attention stays BF16 (62,914,560 weights a layer, 12,288
     * rows), 48 x (2 x 62914560 - 62914560 - 4 x 12288) = 3,017,539,584
     * bytes more than FP8 with channel scales; nothing is left to warn. */
    assert_true(r.q.keep_roles >> KVB_ROLE_ATTN_Q & 1u);
    assert_true(r.q.keep_roles >> KVB_ROLE_ATTN_O & 1u);
    assert_true(r.q.keep_roles >> KVB_ROLE_ROUTER & 1u);
    assert_false(r.q.keep_roles >> KVB_ROLE_EXPERT_DOWN & 1u);
    assert_null(strstr(r.info.warning, "ignore"));
    kvb_quant all = r.q;
    all.keep_roles = 0;
    assert_int_equal(bytes_of(&r.m, &r.q) - bytes_of(&r.m, &all),
                     3017539584ull);
    /* A tower's size keys are checked like the language model's. */
    r = parse("{\"model_type\": \"gemma3\", \"text_config\": {"
              "\"model_type\": \"gemma3_text\", \"hidden_size\": 2560,"
              "\"intermediate_size\": 10240, \"num_hidden_layers\": 34},"
              "\"vision_config\": {\"patch_size\": -14}}");
    assert_int_equal(r.st, KVB_ERANGE);
    assert_string_equal(r.e.field, "config.vision_config.patch_size");
}

/* Inline Qwen3-VL-8B-Instruct vision_config and text_config with the keys
 * of transformers' Qwen3VLVisionConfig / Qwen3VLTextConfig (no public copy
 * of the file was found): 8,767,123,696 is the HF safetensors total of
 * Qwen/Qwen3-VL-8B-Instruct (8,190,735,360 text, as Qwen3-8B). */
static void test_read_config_qwen3_vl(void **state)
{
    (void)state;
    result r =
        parse("{\"model_type\": \"qwen3_vl\", \"tie_word_embeddings\": false,"
              "\"text_config\": {\"model_type\": \"qwen3_vl_text\","
              "\"hidden_size\": 4096, \"intermediate_size\": 12288,"
              "\"num_hidden_layers\": 36, \"num_attention_heads\": 32,"
              "\"num_key_value_heads\": 8, \"head_dim\": 128,"
              "\"vocab_size\": 151936, \"max_position_embeddings\": 262144,"
              "\"tie_word_embeddings\": false},"
              "\"vision_config\": {\"model_type\": \"qwen3_vl\","
              "\"deepstack_visual_indexes\": [8, 16, 24], \"depth\": 27,"
              "\"hidden_size\": 1152, \"intermediate_size\": 4304,"
              "\"num_heads\": 16, \"num_position_embeddings\": 2304,"
              "\"out_hidden_size\": 4096, \"patch_size\": 16,"
              "\"spatial_merge_size\": 2, \"temporal_patch_size\": 2}}");
    expect_ok(&r, "qwen3-vl-8b");
    assert_int_equal(r.m.arch, KVB_ARCH_QWEN3);
    assert_int_equal(r.m.vision_kind, KVB_VISION_QWEN3_VL);
    assert_int_equal(r.m.vision_deepstack, 3);
    assert_int_equal(r.m.vision_position_rows, 2304);
    assert_int_equal(params_of(&r.m), 8767123696ull);
    kvb_model m = r.m;
    /* Qwen/Qwen3-VL-30B-A3B-Instruct, keys as above (Qwen3VLMoeTextConfig):
     * 31,070,754,032 is its HF safetensors total (30,532,122,624 text). */
    r = parse(
        "{\"model_type\": \"qwen3_vl_moe\", \"tie_word_embeddings\": false,"
        "\"text_config\": {\"model_type\": \"qwen3_vl_moe_text\","
        "\"hidden_size\": 2048, \"intermediate_size\": 6144,"
        "\"num_hidden_layers\": 48, \"num_attention_heads\": 32,"
        "\"num_key_value_heads\": 4, \"head_dim\": 128,"
        "\"moe_intermediate_size\": 768, \"num_experts\": 128,"
        "\"num_experts_per_tok\": 8, \"decoder_sparse_step\": 1,"
        "\"mlp_only_layers\": [], \"vocab_size\": 151936,"
        "\"max_position_embeddings\": 262144,"
        "\"tie_word_embeddings\": false},"
        "\"vision_config\": {\"model_type\": \"qwen3_vl_moe\","
        "\"deepstack_visual_indexes\": [8, 16, 24], \"depth\": 27,"
        "\"hidden_size\": 1152, \"intermediate_size\": 4304,"
        "\"num_heads\": 16, \"num_position_embeddings\": 2304,"
        "\"out_hidden_size\": 2048, \"patch_size\": 16,"
        "\"spatial_merge_size\": 2, \"temporal_patch_size\": 2}}");
    expect_ok(&r, "qwen3-vl-30b-a3b");
    assert_int_equal(r.m.arch, KVB_ARCH_QWEN3_MOE);
    assert_int_equal(params_of(&r.m), 31070754032ull);
    /* Tower fields are validated: a kind needs its shape, and a kind
     * outside the enum is refused by name. */
    m = r.m;
    kvb_error e;
    assert_int_equal(kvb_error_init(&e, sizeof e), KVB_OK);
    m.vision_num_layers = 0;
    assert_int_equal(kvb_model_validate(&m, &e), KVB_EINVAL);
    assert_string_equal(e.field, "model.vision_num_layers");
    m = r.m;
    m.vision_kind = KVB_VISION_LAST_;
    assert_int_equal(kvb_model_validate(&m, &e), KVB_ERANGE);
    assert_string_equal(e.field, "model.vision_kind");
}

/* Exclusion lists are applied, not only warned about: the tensor roles
 * an entry names stay in the model dtype.  BODY is Llama-3.1-8B: per
 * layer q and o 4096x4096, k and v 1024x4096, 41,943,040 attention
 * weights and 10,240 output rows; 32 layers: 1,342,177,280 weights.  As
 * W8A8 INT8 with channel scales they take n + 4 x rows = 1,343,488,000
 * bytes; kept in float16, 2,684,354,560: 1,340,866,560 more. */
static void test_read_config_quant_exclusions(void **state)
{
    (void)state;
#define W8A8_CHANNEL                                                           \
    "{\"quant_method\": \"compressed-tensors\", \"config_groups\": "           \
    "{\"group_0\": {\"weights\": {\"num_bits\": 8, \"type\": \"int\", "        \
    "\"strategy\": \"channel\"}}}, \"ignore\": "
    result base = parse_quant(W8A8_CHANNEL "[\"lm_head\"]}");
    expect_ok(&base, "w8a8");
    assert_int_equal(base.q.keep_roles, (uint64_t)1 << KVB_ROLE_LM_HEAD);
    assert_int_equal(base.info.warning_count, 0);
    /* compressed-tensors "re:" entries (re.match on the module name) */
    result r = parse_quant(W8A8_CHANNEL "[\"lm_head\", \"re:.*self_attn.*\"]}");
    expect_ok(&r, "w8a8 attention ignored");
    assert_true(r.q.keep_roles >> KVB_ROLE_ATTN_Q & 1u);
    assert_true(r.q.keep_roles >> KVB_ROLE_ATTN_O & 1u);
    assert_false(r.q.keep_roles >> KVB_ROLE_MLP_DOWN & 1u);
    assert_true(r.info.fields_from_file &
                ((uint64_t)1 << KVB_READ_FIELD_QUANT_KEEP_ROLES));
    assert_int_equal(r.info.warning_count, 0);
    assert_int_equal(bytes_of(&r.m, &r.q) - bytes_of(&base.m, &base.q),
                     1340866560ull);
    /* the projections one by one, escaped dots and anchors as llm-compressor
     * writes them: the same bytes */
    r = parse_quant(W8A8_CHANNEL "[\"lm_head\", \"re:.*q_proj$\", "
                                 "\"re:.*k_proj$\", \"re:.*v_proj$\", "
                                 "\"re:.*self_attn\\\\.o_proj$\"]}");
    expect_ok(&r, "w8a8 projections ignored");
    assert_int_equal(bytes_of(&r.m, &r.q) - bytes_of(&base.m, &base.q),
                     1340866560ull);
    /* a module of every layer, by name (ModelOpt writes one entry per
     * layer): applied once every one of the 32 layers is named */
    char list[4096] = W8A8_CHANNEL "[\"lm_head\"";
    for (int i = 0; i < 32; i++) {
        char one[64];
        snprintf(one, sizeof one, ", \"model.layers.%d.self_attn*\"", i);
        strcat(list, one);
    }
    strcat(list, "]}");
    r = parse_quant(list);
    expect_ok(&r, "w8a8 per-layer attention");
    assert_int_equal(r.info.warning_count, 0);
    assert_int_equal(bytes_of(&r.m, &r.q) - bytes_of(&base.m, &base.q),
                     1340866560ull);
    /* one layer only: the inventory has roles, not layers; said */
    r = parse_quant(W8A8_CHANNEL "[\"lm_head\", "
                                 "\"model.layers.0.mlp.down_proj\"]}");
    expect_ok(&r, "w8a8 one layer");
    assert_int_equal(r.q.keep_roles, (uint64_t)1 << KVB_ROLE_LM_HEAD);
    assert_non_null(strstr(r.info.warning, "some layers only"));
    assert_non_null(strstr(r.info.warning, "model.layers.0.mlp.down_proj"));
    /* an entry that names no tensor the inventory has */
    r = parse_quant(W8A8_CHANNEL "[\"lm_head\", \"re:.*(q|k)_norm\"]}");
    expect_ok(&r, "w8a8 unmatched");
    assert_non_null(strstr(r.info.warning, "match no tensor role"));
    /* MoE routers: "re:.*mlp.gate$" (llm-compressor's MoE examples) and
     * AutoAWQ's ["gate"] for Mixtral name the router, not gate_proj */
    r = parse_quant(W8A8_CHANNEL "[\"lm_head\", \"re:.*mlp.gate$\"]}");
    expect_ok(&r, "router");
    assert_int_equal(r.q.keep_roles, ((uint64_t)1 << KVB_ROLE_LM_HEAD) |
                                         ((uint64_t)1 << KVB_ROLE_ROUTER));
    assert_int_equal(bytes_of(&r.m, &r.q), bytes_of(&base.m, &base.q));
    r = parse_quant("{\"quant_method\": \"awq\", \"bits\": 4, "
                    "\"group_size\": 128, \"version\": \"gemm\", "
                    "\"modules_to_not_convert\": [\"gate\"]}");
    expect_ok(&r, "awq gate");
    assert_int_equal(r.q.keep_roles, (uint64_t)1 << KVB_ROLE_ROUTER);
    /* expert and shared-expert projections are told apart by their path */
    r = parse_quant(W8A8_CHANNEL "[\"re:.*shared_expert.down_proj$\", "
                                 "\"model.layers.*.mlp.experts.*.up_proj\", "
                                 "\"re:.*mlp.gate_proj$\"]}");
    expect_ok(&r, "moe scopes");
    assert_int_equal(r.q.keep_roles, ((uint64_t)1 << KVB_ROLE_SHARED_DOWN) |
                                         ((uint64_t)1 << KVB_ROLE_EXPERT_UP) |
                                         ((uint64_t)1 << KVB_ROLE_MLP_GATE));
#undef W8A8_CHANNEL
}

KVB_TESTS(cmocka_unit_test(test_read_config_presets),
          cmocka_unit_test(test_read_config_towers),
          cmocka_unit_test(test_read_config_qwen3_vl),
          cmocka_unit_test(test_read_config_provenance),
          cmocka_unit_test(test_read_config_gpt_oss),
          cmocka_unit_test(test_read_config_rope_scaling),
          cmocka_unit_test(test_read_config_quant_real),
          cmocka_unit_test(test_read_config_quant_methods),
          cmocka_unit_test(test_read_config_quant_errors),
          cmocka_unit_test(test_read_config_quant_exclusions),
          cmocka_unit_test(test_read_config_unknown_type),
          cmocka_unit_test(test_read_config_positions),
          cmocka_unit_test(test_read_config_hostile),
          cmocka_unit_test(test_read_config_families),
          cmocka_unit_test(test_read_config_patterns),
          cmocka_unit_test(test_read_config_llama4),
          cmocka_unit_test(test_read_config_falcon_opt));
