/*
 * test_search.c -- remedies as a search (issue 17): the Pareto front on
 * hand-made fixes, combined changes on the hardware at hand, the
 * checkpoint table, and plan hints.
 */
#include "testing.h"

#include "advice/advice.h"

#include <stdio.h>
#include <string.h>

/* A context whose base plan is 8192 tokens, 1 request wanted, BF16
 * weights and KV cache, on one GPU at $1/hour. */
static void hand_ctx(kvb__actx *c)
{
    memset(c, 0, sizeof *c);
    assert_int_equal(KVB_QUANT_INIT(&c->q), KVB_OK);
    assert_int_equal(KVB_GPU_INIT(&c->g), KVB_OK);
    assert_int_equal(KVB_SERVING_INIT(&c->s), KVB_OK);
    c->base.max_model_len = 8192;
    c->base.concurrency = 1;
}

static kvb_fix hand_fix(uint64_t len, double conc, uint32_t gives_up,
                        double per_gpu_hour)
{
    kvb_fix f;
    assert_int_equal(KVB_FIX_INIT(&f), KVB_OK);
    f.fits = 1;
    f.max_model_len = len;
    f.max_concurrency = conc;
    f.gives_up = gives_up;
    f.gpu_count = 1;
    f.price_per_gpu_hour = per_gpu_hour;
    f.quant_method = KVB_QUANT_AUTO;
    f.kv_cache_dtype = KVB_DTYPE_AUTO;
    return f;
}

static void test_search_pareto_hand_made(void **state)
{
    (void)state;
    kvb__actx c;
    hand_ctx(&c);
    kvb_fix f[7];
    /* A: eager, full context, 1.2x, $1/h */
    f[0] = hand_fix(8192, 1.2, KVB_FIX_COST_SPEED, 1.0);
    /* B: FP8 KV cache, full context, 1.3x: trades quality for speed */
    f[1] = hand_fix(8192, 1.3, KVB_FIX_COST_QUALITY, 1.0);
    f[1].kv_cache_dtype = KVB_DTYPE_FP8;
    /* C: half the context, 2x, nothing else: on the front (context for
     * concurrency) */
    f[2] = hand_fix(4096, 2.0, KVB_FIX_COST_CONTEXT, 1.0);
    /* D: half the context and eager, 1.5x: C beats it on everything */
    f[3] = hand_fix(4096, 1.5, KVB_FIX_COST_CONTEXT | KVB_FIX_COST_SPEED, 1.0);
    /* E: a bigger GPU at $3.67/h, 12x */
    f[4] = hand_fix(8192, 12.0, KVB_FIX_COST_MONEY, 3.67);
    /* F: a dearer one ($5.07/h) that holds less (10x): E beats it */
    f[5] = hand_fix(8192, 10.0, KVB_FIX_COST_MONEY, 5.07);
    /* G: does not fit: never on the front */
    f[6] = hand_fix(8192, 50.0, 0, 1.0);
    f[6].fits = 0;
    kvb__pareto_mark(&c, f, 7);
    uint32_t want[7] = {1, 1, 1, 0, 1, 0, 0};
    for (int i = 0; i < 7; i++)
        if (f[i].pareto != want[i])
            fail_msg("fix %c: pareto %u, want %u", 'A' + i, f[i].pareto,
                     want[i]);
    /* dominance is strict: a fix does not dominate its copy */
    assert_false(kvb__fix_dominates(&c, &f[0], &f[0]));
    assert_true(kvb__fix_dominates(&c, &f[2], &f[3]));
    assert_false(kvb__fix_dominates(&c, &f[3], &f[2]));
    /* unknown prices count as dear: 2 GPUs of unknown price lose to 1 */
    kvb_fix one = hand_fix(8192, 1.0, KVB_FIX_COST_MONEY, 0.0), two = one;
    two.gpu_count = 2;
    assert_true(kvb__fix_dominates(&c, &one, &two));
}

static kvb_status advise(const kvb_model *m, const kvb_quant *q,
                         const kvb_gpu *g, const kvb_serving *s, kvb_fix *f,
                         size_t *n)
{
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_FIX_INIT(&f[0]), KVB_OK);
    return kvb_advise(m, q, g, s, NULL, f, KVB_ADVICE_MAX, n, &e);
}

/* Qwen2.5-72B AWQ on one L40S at 8192: utilization 0.95 alone gives 1.95
 * GiB of KV cache and eager alone frees 0.66 GiB, short of the 2.50 GiB
 * one request needs; the two together fit (issue 17). */
static void test_search_combined_l40s(void **state)
{
    (void)state;
    kvb_model m = preset_model("Qwen2.5-72B");
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_QUANT_INIT(&q), KVB_OK);
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    assert_int_equal(KVB_SERVING_INIT(&s), KVB_OK);
    q.method = KVB_QUANT_AWQ_4;
    assert_int_equal(kvb_preset_gpu_find("L40S", &g, &e), KVB_OK);
    s.max_model_len = 8192;
    kvb_fix f[KVB_ADVICE_MAX];
    size_t n = 0;
    assert_int_equal(advise(&m, &q, &g, &s, f, &n), KVB_OK);
    const kvb_fix *first = NULL;
    for (size_t i = 0; i < n; i++) {
        if (f[i].kind == KVB_FIX_UTILIZATION ||
            f[i].kind == KVB_FIX_ENFORCE_EAGER)
            assert_false(f[i].fits);
        if (f[i].kind == KVB_FIX_COMBINED && !first)
            first = &f[i];
    }
    assert_non_null(first);
    assert_true(first->fits);
    assert_int_equal(first->changes,
                     KVB_FIX_CHANGE_UTILIZATION | KVB_FIX_CHANGE_EAGER);
    assert_int_equal(first->gives_up, KVB_FIX_COST_SPEED);
    assert_int_equal(first->max_model_len, 8192);
    assert_true(first->pareto);
    assert_string_equal(first->checkpoint, "Qwen/Qwen2.5-72B-Instruct-AWQ");
    /* minimal: no combined fix is a superset of another fitting fix that
     * keeps at least its context */
    for (size_t i = 0; i < n; i++) {
        if (f[i].kind != KVB_FIX_COMBINED)
            continue;
        uint32_t len = KVB_FIX_CHANGE_MAX_MODEL_LEN;
        for (size_t j = 0; j < n; j++) {
            if (j == i || !f[j].fits || f[j].max_model_len < f[i].max_model_len)
                continue;
            uint32_t a = f[j].changes & ~len, b = f[i].changes & ~len;
            if ((a & ~b) == 0 && a != b)
                fail_msg("fix %zu (%s) is made redundant by fix %zu (%s)", i,
                         f[i].title, j, f[j].title);
        }
    }
}

/* options.measured_max_model_len (a log's own estimate) caps remedies on
 * the same GPU, split and format; instance remedies re-plan from the
 * model.  Qwen2.5-72B AWQ on an L40S at 8192: the model says 3040 tokens
 * fit (so "lower to 2048"); an engine that measured 900 gets 512. */
static void test_search_measured_anchor(void **state)
{
    (void)state;
    kvb_model m = preset_model("Qwen2.5-72B");
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
    kvb_advice_options o;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_QUANT_INIT(&q), KVB_OK);
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    assert_int_equal(KVB_SERVING_INIT(&s), KVB_OK);
    assert_int_equal(KVB_ADVICE_OPTIONS_INIT(&o), KVB_OK);
    q.method = KVB_QUANT_AWQ_4;
    assert_int_equal(kvb_preset_gpu_find("L40S", &g, &e), KVB_OK);
    s.max_model_len = 8192;
    kvb_fix f[KVB_ADVICE_MAX];
    size_t n = 0;
    assert_int_equal(KVB_FIX_INIT(&f[0]), KVB_OK);
    assert_int_equal(kvb_advise(&m, &q, &g, &s, &o, f, KVB_ADVICE_MAX, &n, &e),
                     KVB_OK);
    assert_int_equal(f[0].kind, KVB_FIX_MAX_MODEL_LEN);
    assert_int_equal(f[0].max_model_len, 2048);
    o.measured_max_model_len = 900;
    assert_int_equal(kvb_advise(&m, &q, &g, &s, &o, f, KVB_ADVICE_MAX, &n, &e),
                     KVB_OK);
    assert_int_equal(f[0].kind, KVB_FIX_MAX_MODEL_LEN);
    assert_int_equal(f[0].max_model_len, 512);
    assert_true(f[0].fits && f[0].max_model_len_fit <= 900);
    bool instance = false;
    for (size_t i = 0; i < n; i++) {
        /* on the L40S at 0.92, no eager, BF16 KV: at most 900 tokens */
        if (f[i].fits && !strcmp(f[i].gpu_name, "L40S") &&
            f[i].gpu_memory_utilization == 0.92 && !f[i].enforce_eager &&
            f[i].kv_cache_dtype != KVB_DTYPE_FP8)
            assert_true(f[i].max_model_len <= 900);
        if (f[i].kind == KVB_FIX_INSTANCE && f[i].fits) {
            assert_int_equal(f[i].max_model_len, 8192); /* not capped */
            instance = true;
        }
    }
    assert_true(instance);
}

static void test_search_checkpoints(void **state)
{
    (void)state;
    size_t row = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_true(kvb_preset_checkpoint_count() >= 20);
    assert_int_equal(
        kvb_preset_checkpoint_find("llama-3.1-70b", KVB_QUANT_GPTQ_4, &row, &e),
        KVB_OK);
    assert_string_equal(kvb_preset_checkpoint_name(row),
                        "hugging-quants/Meta-Llama-3.1-70B-Instruct-GPTQ-INT4");
    assert_string_equal(kvb_preset_checkpoint_model(row), "Llama-3.1-70B");
    assert_int_equal(kvb_preset_checkpoint_method(row), KVB_QUANT_GPTQ_4);
    assert_non_null(
        strstr(kvb_preset_checkpoint_source(row), "hugging-quants"));
    assert_int_equal(kvb_preset_checkpoint_find("Mistral-Small-24B-2501",
                                                KVB_QUANT_AWQ_4, &row, &e),
                     KVB_ENOTFOUND);
    assert_string_equal(e.field, "model");
    assert_int_equal(kvb_preset_checkpoint_find(NULL, 0, &row, &e), KVB_EINVAL);
    assert_null(kvb_preset_checkpoint_name(kvb_preset_checkpoint_count()));
    assert_int_equal(kvb_preset_checkpoint_method(9999), -1);
    /* every row names a model preset and a repository "org/name" */
    for (size_t i = 0; i < kvb_preset_checkpoint_count(); i++) {
        kvb_model m;
        assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
        assert_int_equal(
            kvb_preset_model_find(kvb_preset_checkpoint_model(i), &m, &e),
            KVB_OK);
        assert_non_null(strchr(kvb_preset_checkpoint_name(i), '/'));
    }
}

static void test_search_hints(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-3.1-8B");
    kvb_gpu g;
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    assert_int_equal(kvb_preset_gpu_find("H100", &g, &e), KVB_OK);
    g.count = 2;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_plan_compute(&m, NULL, &g, NULL, &p, &e), KVB_OK);
    char buf[2048], small[8];
    size_t needed = 0;
    assert_int_equal(
        kvb_plan_hints(&m, NULL, &g, NULL, &p, buf, sizeof buf, &needed, &e),
        KVB_OK);
    assert_int_equal(needed, strlen(buf) + 1);
    assert_non_null(strstr(buf, "1 of the 2 GPUs sits idle"));
    assert_non_null(strstr(buf, "Tensor parallel 2 over them"));
    assert_int_equal(
        kvb_plan_hints(&m, NULL, &g, NULL, &p, small, sizeof small, NULL, &e),
        KVB_EBUFSIZE);
    assert_int_equal(strlen(small), sizeof small - 1);
    /* one GPU, a given length, a GPU with bfloat16: nothing to say */
    g.count = 1;
    kvb_serving s;
    assert_int_equal(KVB_SERVING_INIT(&s), KVB_OK);
    s.max_model_len = 8192;
    assert_int_equal(kvb_plan_compute(&m, NULL, &g, &s, &p, &e), KVB_OK);
    assert_int_equal(
        kvb_plan_hints(&m, NULL, &g, &s, &p, buf, sizeof buf, NULL, &e),
        KVB_OK);
    assert_string_equal(buf, "");
}

/* $/million tokens: the decode roofline, by hand.  An H100 (3350 GB/s)
 * at $10/hour, 10 GB of weights, 1 MB of KV per token (1 GB of KV cache
 * over 1000 tokens), max_model_len 2000 (1000 on average), 2 requests:
 * a step reads 10e9 + 2 x 1000 x 1e6 = 12e9 bytes in 12e9 / 3.35e12 =
 * 3.582 ms, 2 tokens a step = 2,010,000 tokens an hour: $4.975 per 1M. */
static void test_search_usd_per_mtok(void **state)
{
    (void)state;
    kvb_fix f = hand_fix(2000, 5.0, 0, 0.0);
    snprintf(f.gpu_name, sizeof f.gpu_name, "H100");
    snprintf(f.instance, sizeof f.instance, "x");
    f.price_per_hour = 10.0;
    f.weights_bytes_per_gpu = 10000000000ull;
    f.kv_budget_bytes_per_gpu = 1000000000ull;
    f.max_kv_tokens = 1000;
    f.pipeline_parallel_size = 1;
    double want = 10.0 / (2.0 / (12e9 / 3350e9) * 3600.0) * 1e6;
    assert_float_equal(kvb__usd_per_mtok(&f, 2), want, 1e-9);
    assert_float_equal(want, 4.975, 0.001);
    /* the public twin gives the same figure */
    double usd = -1;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_fix_cost(&f, 2, &usd, &e), KVB_OK);
    assert_float_equal(usd, want, 1e-9);
    assert_int_equal(kvb_fix_cost(&f, 2, NULL, &e), KVB_EINVAL);
    /* more requests than the cache holds: capped at 5 */
    double five = 10.0 / (5.0 / ((10e9 + 5e9) / 3350e9) * 3600.0) * 1e6;
    assert_float_equal(kvb__usd_per_mtok(&f, 64), five, 1e-9);
    /* unknown bandwidth or price, or a fix that does not fit: 0 */
    f.price_per_hour = 0;
    assert_float_equal(kvb__usd_per_mtok(&f, 2), 0.0, 0.0);
    f.price_per_hour = 10.0;
    snprintf(f.gpu_name, sizeof f.gpu_name, "no-such-gpu");
    assert_float_equal(kvb__usd_per_mtok(&f, 2), 0.0, 0.0);
}

KVB_TESTS(cmocka_unit_test(test_search_pareto_hand_made),
          cmocka_unit_test(test_search_usd_per_mtok),
          cmocka_unit_test(test_search_combined_l40s),
          cmocka_unit_test(test_search_measured_anchor),
          cmocka_unit_test(test_search_checkpoints),
          cmocka_unit_test(test_search_hints));
