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
    assert_true(n >= 30);
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
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        kvb_model m = preset_model(rows[i].name);
        uint64_t total = 0, active = 0;
        assert_int_equal(kvb_model_param_count(&m, &total, &active, NULL),
                         KVB_OK);
        assert_int_equal(active, rows[i].active);
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
          cmocka_unit_test(test_presets_lookup),
          cmocka_unit_test(test_presets_rows_are_sourced_and_unique));
