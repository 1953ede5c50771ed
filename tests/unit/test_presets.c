/*
 * test_presets.c -- the model presets: every parameter count computed from
 * the architecture equals the published count (lib/presets/models.c cites
 * each: shared/data/models.json and the model cards), lookups, sources.
 */
#include "testing.h"

#include <string.h>

static void test_presets_param_counts_match_published(void **state)
{
    (void)state;
    size_t n = kvb_preset_model_count();
    assert_true(n >= 60); /* 36 rows, and 24 more for issue 14 */
    for (size_t i = 0; i < n; i++) {
        kvb_model m;
        kvb_error e = KVB_ERROR_INIT;
        uint64_t total = 0, published = 0;
        assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
        assert_int_equal(kvb_preset_model_get(i, &m, &e), KVB_OK);
        assert_int_equal(kvb_model_param_count(&m, &total, NULL, &e), KVB_OK);
        assert_int_equal(kvb_preset_model_published_params(i, &published, &e),
                         KVB_OK);
        if (total != published)
            fail_msg("%s: computed %llu, published %llu", m.name,
                     (unsigned long long)total, (unsigned long long)published);
    }
}

/* Active parameters of the MoE presets (models.json "active"): Mixtral
 * 8x7B counts 2 of 8 experts, Scout 1 of 16 plus its shared expert,
 * DeepSeek-V3 8 of 256 plus one shared expert (37B activated). */
static void test_presets_active_params(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        uint64_t active;
    } rows[] = {
        {"Mixtral-8x7B", 12879925248ull},
        {"Llama-4-Scout-17B-16E", 17172894720ull},
        {"Llama-4-Maverick-17B-128E", 17184691200ull},
        {"Qwen3-30B-A3B", 3353032704ull},
        {"DeepSeek-V3", 37552297472ull},
        {"gpt-oss-20b", 4187440704ull},
        /* Kimi K2 card: "32 billion activated": 8 of 384 experts in the
         * 60 MoE layers; total - 376 x 3 x 7168 x 2048 x 60 */
        {"Kimi-K2-Instruct", 32861500928ull},
        /* Qwen3-Coder card: "35B activated": 8 of 160 experts in all 62
         * layers; total - 152 x 3 x 6144 x 2560 x 62 */
        {"Qwen3-Coder-480B-A35B", 35474765312ull},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        kvb_model m = preset_model(rows[i].name);
        uint64_t total = 0, active = 0;
        assert_int_equal(kvb_model_param_count(&m, &total, &active, NULL),
                         KVB_OK);
        assert_int_equal(active, rows[i].active);
    }
}

/* The 2026 rows (issue 14) by hand, so that the exact-match loop above
 * is not only the inventory checking itself.  Each sum is the tensors of
 * the model's config.json as the HF modelling code creates them. */
static void test_presets_new_rows_by_hand(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        uint64_t params;
    } rows[] = {
        /* Qwen3-0.6B (tests/data/configs/qwen3-0.6b.json): tied embedding
         * 151936 x 1024 = 155,582,464; per layer q 1024x2048 + k, v
         * 1024x1024 each + o 2048x1024 = 6,291,456, MLP 3x1024x3072 =
         * 9,437,184, q/k norms 2x128, 2 norms 2x1024: 15,730,944; x 28
         * layers + final norm 1024 = 596,049,920 ("0.6B") */
        {"Qwen3-0.6B", 155582464ull + 28ull * 15730944ull + 1024ull},
        /* Ministral-8B-Instruct-2410: embedding and lm_head 131072 x 4096
         * = 536,870,912 each; per layer q 16,777,216 + k, v 4,194,304
         * each + o 16,777,216 + MLP 3x4096x12288 = 150,994,944 + norms
         * 8192 = 192,946,176; x 36 + 4096 = 8,019,808,256 */
        {"Ministral-8B-2410",
         2ull * 536870912ull + 36ull * 192946176ull + 4096ull},
        /* Gemma-3-1B (tests/data/configs/gemma-3-1b-it.json): tied
         * 262144 x 1152 = 301,989,888; per layer attention (4 + 1 + 1
         * heads of 256, o) 2,949,120 + MLP 3x1152x6912 = 23,887,872 + 4
         * norms 4608 + q/k norms 512 = 26,842,112; x 26 + 1152 =
         * 999,885,952 ("1B") */
        {"Gemma-3-1B", 301989888ull + 26ull * 26842112ull + 1152ull},
        /* Kimi-K2-Instruct: embedding and lm_head 163840 x 7168 each;
         * MLA per layer q_a 1536x7168 + norm 1536 + q_b 64x192x1536 +
         * kv_a 576x7168 + norm 512 + kv_b 64x256x512 + o 7168x8192 =
         * 101,124,096; layer 0 dense MLP 3x7168x18432 = 396,361,728;
         * layers 1-60 router 384x7168 + bias 384 + 384 experts and 1
         * shared of 3x7168x2048 = 16,958,226,816; 2 norms per layer and
         * the final norm */
        {"Kimi-K2-Instruct",
         2ull * 163840ull * 7168ull + 61ull * (101124096ull + 2ull * 7168ull) +
             396361728ull + 60ull * 16958226816ull + 7168ull},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        kvb_model m = preset_model(rows[i].name);
        uint64_t total = 0;
        assert_int_equal(kvb_model_param_count(&m, &total, NULL, NULL), KVB_OK);
        if (total != rows[i].params)
            fail_msg("%s: computed %llu, by hand %llu", rows[i].name,
                     (unsigned long long)total,
                     (unsigned long long)rows[i].params);
    }
    /* The same architecture gives the same count: a fine-tune or distill
     * row that drifted from its base would be a copying mistake. */
    static const char *const same[][2] = {
        {"Llama-3.3-70B", "Llama-3.1-70B"},
        {"DeepSeek-R1-Distill-Llama-70B", "Llama-3.1-70B"},
        {"Llama-3.1-Nemotron-70B", "Llama-3.1-70B"},
        {"DeepSeek-R1-Distill-Llama-8B", "Llama-3.1-8B"},
        {"DeepSeek-R1-Distill-Qwen-7B", "Qwen2.5-7B"},
        {"DeepSeek-R1-Distill-Qwen-14B", "Qwen2.5-14B"},
        {"DeepSeek-V3.1", "DeepSeek-V3"},
        {"QwQ-32B", "Qwen2.5-32B"},
        {"Qwen2.5-Coder-32B", "Qwen2.5-32B"},
        {"Qwen3-Coder-30B-A3B", "Qwen3-30B-A3B"},
        {"Devstral-Small-2505", "Mistral-Small-24B-2501"},
        {"Phi-4-reasoning", "Phi-4"},
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        kvb_model a = preset_model(same[i][0]), b = preset_model(same[i][1]);
        uint64_t ta = 0, tb = 0;
        assert_int_equal(kvb_model_param_count(&a, &ta, NULL, NULL), KVB_OK);
        assert_int_equal(kvb_model_param_count(&b, &tb, NULL, NULL), KVB_OK);
        assert_int_equal(ta, tb);
    }
}

static void test_presets_lookup(void **state)
{
    (void)state;
    kvb_model m = preset_model("llama-3.1-8b");
    assert_string_equal(m.name, "Llama-3.1-8B");
    m = preset_model("meta-llama/Llama-3.1-8B-Instruct");
    assert_string_equal(m.name, "Llama-3.1-8B");
    m = preset_model("QWEN/QWEN2.5-7B-INSTRUCT");
    assert_string_equal(m.name, "Qwen2.5-7B");
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
    assert_int_equal(kvb_preset_model_find("gpt-5", &m, &e), KVB_ENOTFOUND);
    assert_string_equal(e.field, "model");
    assert_int_equal(kvb_preset_model_find(NULL, &m, &e), KVB_ENOTFOUND);
    assert_int_equal(kvb_preset_model_get(kvb_preset_model_count(), &m, &e),
                     KVB_ERANGE);
    assert_null(kvb_preset_model_name(kvb_preset_model_count()));
    m.struct_size = 1; /* callers must initialise the struct */
    assert_int_equal(kvb_preset_model_get(0, &m, &e), KVB_EABI);
}

static void test_presets_rows_are_sourced_and_unique(void **state)
{
    (void)state;
    size_t n = kvb_preset_model_count();
    for (size_t i = 0; i < n; i++) {
        const char *name = kvb_preset_model_name(i);
        const char *source = kvb_preset_model_source(i);
        assert_non_null(name);
        assert_true(source && strlen(source) > 20);
        /* a name finds its own row, not an earlier one's alias */
        kvb_model m = preset_model(name);
        assert_string_equal(m.name, name);
        for (size_t j = i + 1; j < n; j++)
            assert_int_not_equal(
                kvb__strcasecmp(name, kvb_preset_model_name(j)), 0);
    }
}

KVB_TESTS(cmocka_unit_test(test_presets_param_counts_match_published),
          cmocka_unit_test(test_presets_active_params),
          cmocka_unit_test(test_presets_new_rows_by_hand),
          cmocka_unit_test(test_presets_lookup),
          cmocka_unit_test(test_presets_rows_are_sourced_and_unique));
