/*
 * test_resolve.c -- kvb_preset_model_resolve: presets keep their native
 * format, Hugging Face repository names of quantized variants resolve to
 * the base preset plus the format the name implies, near misses get
 * "did you mean" (issue 14).
 */
#include "testing.h"

#include <string.h>

typedef struct resolved {
    kvb_model m;
    kvb_quant q;
    char note[256];
    kvb_error e;
    kvb_status st;
} resolved;

static resolved resolve(const char *name)
{
    resolved r;
    assert_int_equal(KVB_MODEL_INIT(&r.m), KVB_OK);
    assert_int_equal(KVB_QUANT_INIT(&r.q), KVB_OK);
    assert_int_equal(kvb_error_init(&r.e, sizeof r.e), KVB_OK);
    r.st =
        kvb_preset_model_resolve(name, &r.m, &r.q, r.note, sizeof r.note, &r.e);
    return r;
}

static void expect(const char *name, const char *preset, int32_t method,
                   uint32_t group, int32_t scale)
{
    resolved r = resolve(name);
    if (r.st != KVB_OK)
        fail_msg("%s: %s", name, r.e.message);
    kvb_model want = preset_model(preset);
    assert_int_equal(r.m.num_hidden_layers, want.num_hidden_layers);
    assert_int_equal(r.m.hidden_size, want.hidden_size);
    assert_string_equal(r.m.name, want.name);
    assert_int_equal(r.q.method, method);
    if (method == KVB_QUANT_AWQ_4 || method == KVB_QUANT_GPTQ_4 ||
        method == KVB_QUANT_GPTQ_8 || method == KVB_QUANT_W4A16)
        assert_int_equal(r.q.group_size, group);
    assert_int_equal(r.q.fp8_scale, scale);
}

static void test_resolve_native(void **state)
{
    (void)state;
    /* openai/gpt-oss-120b's checkpoint is MXFP4, not BF16. */
    expect("gpt-oss-120b", "gpt-oss-120b", KVB_QUANT_MXFP4, 0, 0);
    expect("openai/gpt-oss-20b", "gpt-oss-20b", KVB_QUANT_MXFP4, 0, 0);
    expect("DeepSeek-V3", "DeepSeek-V3", KVB_QUANT_FP8, 0,
           KVB_FP8_SCALE_BLOCK128);
    /* DeepSeek-V3.1 and Kimi K2 ship FP8 with 128x128 block scales
     * (quantization_config fp8, weight_block_size [128, 128]). */
    expect("deepseek-ai/DeepSeek-V3.1", "DeepSeek-V3.1", KVB_QUANT_FP8, 0,
           KVB_FP8_SCALE_BLOCK128);
    expect("moonshotai/Kimi-K2-Instruct", "Kimi-K2-Instruct", KVB_QUANT_FP8, 0,
           KVB_FP8_SCALE_BLOCK128);
    expect("deepseek-ai/DeepSeek-R1-0528", "DeepSeek-V3", KVB_QUANT_FP8, 0,
           KVB_FP8_SCALE_BLOCK128);
    /* The BF16 releases of 2025 keep the model dtype. */
    expect("Qwen/Qwen3-Coder-480B-A35B-Instruct", "Qwen3-Coder-480B-A35B",
           KVB_QUANT_AUTO, 0, 0);
    expect("mistralai/Mistral-Large-Instruct-2411", "Mistral-Large-2411",
           KVB_QUANT_AUTO, 0, 0);
    resolved r = resolve("gpt-oss-120b");
    assert_non_null(strstr(r.note, "mxfp4"));
    r = resolve("moonshotai/Kimi-K2-Instruct");
    assert_non_null(strstr(r.note, "fp8"));
    /* Unquantized presets: auto (the model dtype), no note. */
    expect("Llama-3.1-8B", "Llama-3.1-8B", KVB_QUANT_AUTO, 0, 0);
    r = resolve("meta-llama/Llama-3.1-8B");
    assert_string_equal(r.note, "");
}

static void test_resolve_repo_names(void **state)
{
    (void)state;
    expect("Qwen/Qwen2.5-72B-Instruct-AWQ", "Qwen2.5-72B", KVB_QUANT_AWQ_4, 128,
           0);
    expect("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "Qwen2.5-7B", KVB_QUANT_GPTQ_4,
           128, 0);
    expect("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "Qwen2.5-7B", KVB_QUANT_GPTQ_8,
           128, 0);
    expect("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4",
           "Llama-3.1-70B", KVB_QUANT_AWQ_4, 128, 0);
    expect("RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic", "Llama-3.1-8B",
           KVB_QUANT_FP8, 0, KVB_FP8_SCALE_CHANNEL);
    expect("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16",
           "Llama-3.1-8B", KVB_QUANT_W4A16, 128, 0);
    expect("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8", "Llama-3.1-8B",
           KVB_QUANT_W8A8_INT8, 0, KVB_FP8_SCALE_CHANNEL);
    expect("Qwen/Qwen3-8B-FP8", "Qwen3-8B", KVB_QUANT_FP8, 0,
           KVB_FP8_SCALE_BLOCK128);
    /* ModelOpt FP8: one scale per tensor. */
    expect("nvidia/Llama-3.1-8B-Instruct-FP8", "Llama-3.1-8B", KVB_QUANT_FP8, 0,
           KVB_FP8_SCALE_TENSOR);
    /* The 2026 presets through the same suffix rules. */
    expect("Qwen/Qwen3-14B-AWQ", "Qwen3-14B", KVB_QUANT_AWQ_4, 128, 0);
    expect("Qwen/Qwen3-4B-Instruct-2507-FP8", "Qwen3-4B", KVB_QUANT_FP8, 0,
           KVB_FP8_SCALE_BLOCK128);
    expect("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", "Qwen3-Coder-480B-A35B",
           KVB_QUANT_FP8, 0, KVB_FP8_SCALE_BLOCK128);
    expect("RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic", "Llama-3.3-70B",
           KVB_QUANT_FP8, 0, KVB_FP8_SCALE_CHANNEL);
    expect("RedHatAI/Llama-3.3-70B-Instruct-quantized.w4a16", "Llama-3.3-70B",
           KVB_QUANT_W4A16, 128, 0);
    expect("nvidia/Llama-3.3-70B-Instruct-FP8", "Llama-3.3-70B", KVB_QUANT_FP8,
           0, KVB_FP8_SCALE_TENSOR);
    expect("Qwen/Qwen2.5-Coder-32B-Instruct-GPTQ-Int4", "Qwen2.5-Coder-32B",
           KVB_QUANT_GPTQ_4, 128, 0);
    expect("Qwen/QwQ-32B-AWQ", "QwQ-32B", KVB_QUANT_AWQ_4, 128, 0);
    /* Mistral names the variant before the version. */
    expect("mistralai/Mistral-7B-Instruct-v0.3", "Mistral-7B-v0.3",
           KVB_QUANT_AUTO, 0, 0);
    expect("mistralai/Mixtral-8x7B-Instruct-v0.1", "Mixtral-8x7B",
           KVB_QUANT_AUTO, 0, 0);
    expect("TheBloke/Mistral-7B-Instruct-v0.1-AWQ", "Mistral-7B-v0.1",
           KVB_QUANT_AWQ_4, 128, 0);
    expect("mistralai/Mistral-Small-24B-Instruct-2501",
           "Mistral-Small-24B-2501", KVB_QUANT_AUTO, 0, 0);
    expect("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
           "DeepSeek-R1-Distill-Qwen-7B", KVB_QUANT_AUTO, 0, 0);
    /* unsloth's bitsandbytes uploads: NF4 with double quantization. */
    expect("unsloth/Llama-3.3-70B-Instruct-bnb-4bit", "Llama-3.3-70B",
           KVB_QUANT_BNB_4, 0, 0);
    expect("unsloth/Qwen3-14B-bnb-4bit", "Qwen3-14B", KVB_QUANT_BNB_4, 0, 0);
    resolved r = resolve("unsloth/Qwen3-14B-bnb-4bit");
    assert_int_equal(r.q.flags & KVB_QUANT_BNB_NO_DOUBLE, 0);
    assert_non_null(strstr(r.note, "bnb-4"));
    expect("nvidia/Llama-3.3-70B-Instruct-FP4", "Llama-3.3-70B",
           KVB_QUANT_NVFP4, 0, 0);
    r = resolve("Qwen/Qwen2.5-72B-Instruct-AWQ");
    assert_non_null(strstr(r.note, "Qwen2.5-72B"));
    assert_non_null(strstr(r.note, "awq-4"));
    /* NVFP4 (nvidia/...-FP4, ModelOpt): sized as NVFP4, never as BF16. */
    expect("nvidia/Llama-3.1-8B-Instruct-FP4", "Llama-3.1-8B", KVB_QUANT_NVFP4,
           0, 0);
    r = resolve("nvidia/Llama-3.1-8B-Instruct-FP4");
    assert_non_null(strstr(r.note, "nvfp4"));
}

static void test_resolve_misses(void **state)
{
    (void)state;
    resolved r = resolve("Lama-3.1-8B");
    assert_int_equal(r.st, KVB_ENOTFOUND);
    assert_non_null(strstr(r.e.message, "did you mean Llama-3.1-8B?"));
    r = resolve("meta-llama/Llama-3.1-8X");
    assert_int_equal(r.st, KVB_ENOTFOUND);
    assert_non_null(strstr(r.e.message, "did you mean"));
    r = resolve("Qwen3-Codr-480B-A35B");
    assert_int_equal(r.st, KVB_ENOTFOUND);
    assert_non_null(strstr(r.e.message, "did you mean Qwen3-Coder-480B-A35B?"));
    r = resolve("moonshotai/Kimi-K2-Instrct");
    assert_non_null(strstr(r.e.message, "did you mean Kimi-K2-Instruct?"));
    r = resolve("completely-different-model");
    assert_int_equal(r.st, KVB_ENOTFOUND);
    assert_null(strstr(r.e.message, "did you mean"));
    r = resolve("");
    assert_int_equal(r.st, KVB_EINVAL);
    /* An unknown base with a quant suffix is not found, not guessed. */
    r = resolve("acme/Unknown-13B-AWQ");
    assert_int_equal(r.st, KVB_ENOTFOUND);
}

/* Ollama library tags: each maps to the preset of the same weights at
 * the tag's default file, and that file's computed size is within 5% of
 * the size ollama.com/library lists for the tag (GB, two figures; the
 * next format up or down, Q4_0 against Q4_K_M or Q8_0, is 6% or more
 * away). */
static void test_resolve_ollama_tags(void **state)
{
    (void)state;
    static const struct {
        const char *tag;
        double gb;
    } listed[] = {
        {"llama3.1:8b", 4.9},      {"llama3.1:70b", 43},
        {"llama3.1:405b", 243},    {"llama3.2:1b", 1.3},
        {"llama3.2:3b", 2.0},      {"llama3.3:70b", 43},
        {"qwen2.5:0.5b", 0.398},   {"qwen2.5:7b", 4.7},
        {"qwen2.5:14b", 9.0},      {"qwen2.5:32b", 20},
        {"qwen2.5:72b", 47},       {"qwen3:4b", 2.6},
        {"qwen3:8b", 5.2},         {"qwen3:14b", 9.3},
        {"qwen3:32b", 20},         {"qwen3:30b", 19},
        {"qwen3:235b", 142},       {"qwen2.5-coder:32b", 20},
        {"qwen3-coder:30b", 19},   {"qwq:32b", 20},
        {"gemma3:1b", 0.815},      {"phi4:14b", 9.1},
        {"deepseek-r1:7b", 4.7},   {"deepseek-r1:14b", 9.0},
        {"deepseek-r1:32b", 20},   {"deepseek-r1:70b", 43},
        {"deepseek-r1:671b", 404}, {"deepseek-v3:671b", 404},
        {"mistral:7b", 4.1},       {"mixtral:8x7b", 26},
        {"mixtral:8x22b", 80},     {"mistral-nemo:12b", 7.1},
        {"mistral-small:24b", 14}, {"mistral-large:123b", 73},
        {"gpt-oss:20b", 14},       {"gpt-oss:120b", 65},
    };
    for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++) {
        resolved r = resolve(listed[i].tag);
        if (r.st != KVB_OK)
            fail_msg("%s: %s", listed[i].tag, r.e.message);
        kvb_weights w;
        kvb_error e = KVB_ERROR_INIT;
        assert_int_equal(KVB_WEIGHTS_INIT(&w), KVB_OK);
        assert_int_equal(kvb_weights_compute(&r.m, &r.q, 1, 1, &w, &e), KVB_OK);
        double err = (double)w.bytes / (listed[i].gb * 1e9) - 1;
        if (err > 0.05 || err < -0.05)
            fail_msg("%s: %.3f GB against %.3g listed", listed[i].tag,
                     (double)w.bytes / 1e9, listed[i].gb);
    }
    /* the default file, the tag's own format, a flavour */
    expect("llama3.2:1b", "Llama-3.2-1B", KVB_QUANT_Q8_0, 0, 0);
    expect("mistral:7b", "Mistral-7B-v0.3", KVB_QUANT_Q4_0, 0, 0);
    expect("gpt-oss:20b", "gpt-oss-20b", KVB_QUANT_MXFP4, 0, 0);
    expect("llama3.1:8b-instruct-q8_0", "Llama-3.1-8B", KVB_QUANT_Q8_0, 0, 0);
    expect("qwen3:8b-q4_K_M", "Qwen3-8B", KVB_QUANT_Q4_K_M, 0, 0);
    expect("llama3.1:70b-instruct-fp16", "Llama-3.1-70B", KVB_QUANT_FP16, 0, 0);
    resolved r = resolve("llama3.1:8b");
    assert_non_null(strstr(r.note, "Ollama library tag llama3.1:8b"));
    /* a size the library does not list, and a format it cannot size */
    assert_int_equal(resolve("llama3.1:9b").st, KVB_ENOTFOUND);
    assert_int_equal(resolve("llama3.1:8b-instruct-q9_9").st, KVB_EUNSUPPORTED);
}

KVB_TESTS(cmocka_unit_test(test_resolve_native),
          cmocka_unit_test(test_resolve_ollama_tags),
          cmocka_unit_test(test_resolve_repo_names),
          cmocka_unit_test(test_resolve_misses));
