/*
 * test_advise.c -- remedies: the order, hand-computed fixes (with
 * serving.kv_cache_memory_bytes the KV budget is exact, so the arithmetic
 * is vLLM's block math alone), re-planning each fix, rendering.
 */
#include "testing.h"

#include <stdio.h>
#include <string.h>

#define MAXF KVB_ADVICE_MAX

typedef struct advice {
    kvb_fix f[MAXF];
    size_t n;
} advice;

static advice advise(const kvb_model *m, const kvb_quant *q, const kvb_gpu *g,
                     const kvb_serving *s, const char *instance)
{
    advice a;
    kvb_advice_options o;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_ADVICE_OPTIONS_INIT(&o), KVB_OK);
    if (instance)
        snprintf(o.instance, sizeof o.instance, "%s", instance);
    assert_int_equal(KVB_FIX_INIT(&a.f[0]), KVB_OK);
    kvb_status st = kvb_advise(m, q, g, s, &o, a.f, MAXF, &a.n, &e);
    if (st != KVB_OK)
        fail_msg("kvb_advise: %s: %s", kvb_status_name(st), e.message);
    return a;
}

static const kvb_fix *first_of(const advice *a, int32_t kind)
{
    for (size_t i = 0; i < a->n; i++)
        if (a->f[i].kind == kind)
            return &a->f[i];
    return NULL;
}

/* Llama-3.1-8B with an exact KV budget on one GPU of `total` bytes. */
static void kv_fixed(kvb_model *m, kvb_gpu *g, kvb_serving *s, uint64_t total,
                     uint64_t kv_bytes, uint64_t mml)
{
    *m = preset_model("Llama-3.1-8B");
    *g = gpu_of(total, 1);
    *s = serving_default();
    s->kv_cache_memory_bytes = kv_bytes;
    s->max_model_len = mml;
}

/* "Friendly": the larger of the largest power of two <= n and the largest
 * multiple of 1024 <= n.  1000 -> max(512, 0); 2047 -> max(1024, 1024);
 * 3000 -> max(2048, 2048). */
static void test_advise_friendly_len(void **state)
{
    (void)state;
    assert_int_equal(kvb__friendly_len(0), 0);
    assert_int_equal(kvb__friendly_len(1), 1);
    assert_int_equal(kvb__friendly_len(1000), 512);
    assert_int_equal(kvb__friendly_len(1024), 1024);
    assert_int_equal(kvb__friendly_len(2047), 1024);
    assert_int_equal(kvb__friendly_len(3000), 2048);
    assert_int_equal(kvb__friendly_len(5000), 4096);   /* 4096 both ways */
    assert_int_equal(kvb__friendly_len(32032), 31744); /* 31 x 1024 */
    assert_int_equal(kvb__friendly_len(81536), 80896); /* 79 x 1024 */
    assert_int_equal(kvb__friendly_len(131072), 131072);
}

static void test_advise_names(void **state)
{
    (void)state;
    for (int k = 0; k < KVB_FIX_LAST_; k++) {
        assert_non_null(kvb_fix_kind_name(k));
        assert_non_null(kvb_fix_kind_text(k));
        for (int j = 0; j < k; j++)
            assert_string_not_equal(kvb_fix_kind_name(j), kvb_fix_kind_name(k));
    }
    assert_null(kvb_fix_kind_name(KVB_FIX_LAST_));
    assert_null(kvb_fix_kind_text(-1));
    assert_string_equal(kvb_fix_kind_name(KVB_FIX_MAX_MODEL_LEN),
                        "max_model_len");
}

/* A plan that fits gets no fixes. */
static void test_advise_fits_gives_none(void **state)
{
    (void)state;
    kvb_model m;
    kvb_gpu g;
    kvb_serving s;
    kv_fixed(&m, &g, &s, 80 * GIB, 8 * GIB, 8192);
    advice a = advise(&m, NULL, &g, &s, NULL);
    assert_int_equal(a.n, 0);
}

/* 4 GiB of KV at 131072 B per token (32 layers x 2 x 8 heads x 128 x 2 B)
 * holds 32768 tokens; max_model_len 131072 does not fit. */
static void test_advise_max_len(void **state)
{
    (void)state;
    kvb_model m;
    kvb_gpu g;
    kvb_serving s;
    kv_fixed(&m, &g, &s, 24 * GIB, 4 * GIB, 131072);
    advice a = advise(&m, NULL, &g, &s, NULL);
    assert_true(a.n >= 2);
    const kvb_fix *f = &a.f[0];
    assert_int_equal(f->kind, KVB_FIX_MAX_MODEL_LEN);
    assert_int_equal(f->max_model_len, 4 * GIB / 131072);
    assert_int_equal(f->max_model_len, 32768);
    assert_true(f->fits);
    assert_int_equal(f->max_kv_tokens, 32768);
    assert_true(f->max_concurrency == 1.0);
    assert_string_equal(f->title, "lower --max-model-len to 32768");
    /* TP over 4 GPUs of the same kind: 2 KV heads per GPU, 32768 B per
     * token, so the 4 GiB per GPU holds 131072 tokens: one request */
    const kvb_fix *tp = first_of(&a, KVB_FIX_TENSOR_PARALLEL);
    assert_non_null(tp);
    assert_int_equal(tp->tensor_parallel_size, 4);
    assert_int_equal(tp->gpu_count, 4);
    assert_true(tp->fits);
    assert_int_equal(tp->max_kv_tokens, 4 * GIB / 32768);
    /* TP 2 (65536 B per token per GPU: 65536 tokens) would not */
    /* the utilization knob is moot with a fixed KV size */
    assert_null(first_of(&a, KVB_FIX_UTILIZATION));
}

/* 16 requests of 8192 wanted; 8 GiB holds 65536 tokens: 16 x 4096. */
static void test_advise_concurrency(void **state)
{
    (void)state;
    kvb_model m;
    kvb_gpu g;
    kvb_serving s;
    kv_fixed(&m, &g, &s, 80 * GIB, 8 * GIB, 8192);
    s.concurrency = 16;
    advice a = advise(&m, NULL, &g, &s, NULL);
    assert_true(a.n >= 1);
    assert_int_equal(a.f[0].kind, KVB_FIX_MAX_MODEL_LEN);
    assert_int_equal(a.f[0].max_model_len, 4096);
    assert_true(a.f[0].fits && a.f[0].max_concurrency == 16.0);
    /* an FP8 KV cache halves 131072 B to 65536 B per token: 16 x 8192 */
    const kvb_fix *kv = first_of(&a, KVB_FIX_KV_CACHE_FP8);
    assert_non_null(kv);
    assert_int_equal(kv->kv_cache_dtype, KVB_DTYPE_FP8);
    assert_int_equal(kv->max_kv_tokens, 8 * GIB / 65536);
    assert_true(kv->fits);
}

static kvb_gpu instance_gpu(const char *name)
{
    kvb_instance in;
    kvb_gpu g;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_INSTANCE_INIT(&in) | KVB_GPU_INIT(&g), KVB_OK);
    if (kvb_preset_instance_find(name, &in, &e) ||
        kvb_instance_gpu(&in, &g, &e))
        fail_msg("%s: %s", name, e.message);
    return g;
}

static void seed(kvb_model *m, kvb_quant *q, kvb_gpu *g, kvb_serving *s)
{
    *m = preset_model("Llama-4-Scout-17B-16E");
    *q = quant_of(KVB_QUANT_AWQ_4);
    *g = instance_gpu("g5.xlarge");
    *s = serving_default();
    s->max_model_len = 32768;
    s->gpu_memory_utilization = 0.9;
}

/* Each engine is offered only the remedies it has, in its own words
 * (the engines' remedy hooks): Llama-3.1-8B in 16 bits on a 16 GiB GPU
 * needs smaller weights.  vLLM: --enforce-eager and AWQ/GPTQ formats;
 * llama.cpp: no eager switch, no utilization fraction, GGUF formats
 * only, its context flag -c; TGI: no GGUF, eager is --cuda-graphs 0. */
static void test_advise_engine_remedies(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-3.1-8B");
    kvb_quant q = quant_of(KVB_QUANT_BF16);
    kvb_gpu g = gpu_of(16 * GIB, 1);
    kvb_serving s = serving_default();
    s.max_model_len = 8192;
    advice a = advise(&m, &q, &g, &s, NULL);
    const kvb_fix *f = first_of(&a, KVB_FIX_ENFORCE_EAGER);
    assert_non_null(f);
    assert_string_equal(f->title, "add --enforce-eager");
    int gptq = 0;
    for (size_t i = 0; i < a.n; i++)
        gptq |= a.f[i].kind == KVB_FIX_QUANTIZE &&
                a.f[i].quant_method == KVB_QUANT_GPTQ_8;
    assert_true(gptq);

    /* llama.cpp keeps the embedding on the host: a 15 GiB GPU, every
     * layer on it (-ngl 99) */
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.n_gpu_layers = 99;
    g = gpu_of(15 * GIB, 1);
    a = advise(&m, &q, &g, &s, NULL);
    f = first_of(&a, KVB_FIX_MAX_MODEL_LEN);
    assert_non_null(f);
    assert_string_equal(f->title, "lower -c to 4096");
    assert_null(first_of(&a, KVB_FIX_ENFORCE_EAGER));
    assert_null(first_of(&a, KVB_FIX_UTILIZATION));
    assert_non_null(first_of(&a, KVB_FIX_QUANTIZE));
    for (size_t i = 0; i < a.n; i++) {
        if (a.f[i].quant_method != KVB_QUANT_BF16)
            assert_true(a.f[i].quant_method >= KVB_QUANT_Q8_0 &&
                        a.f[i].quant_method <= KVB_QUANT_Q4_0);
        assert_false(a.f[i].enforce_eager);
        assert_null(strstr(a.f[i].title, "--max-model-len"));
    }

    s = serving_default();
    s.max_model_len = 8192;
    s.engine = KVB_ENGINE_TGI;
    g = gpu_of(16 * GIB, 1);
    a = advise(&m, &q, &g, &s, NULL);
    assert_non_null(first_of(&a, KVB_FIX_QUANTIZE));
    for (size_t i = 0; i < a.n; i++)
        assert_false(a.f[i].quant_method >= KVB_QUANT_Q8_0 &&
                     a.f[i].quant_method <= KVB_QUANT_Q4_0);
    f = first_of(&a, KVB_FIX_ENFORCE_EAGER);
    assert_non_null(f);
    assert_string_equal(f->title, "add --cuda-graphs 0");
}

/* The seed article's scenario: nothing but a bigger machine helps. */
static void test_advise_seed(void **state)
{
    (void)state;
    kvb_model m;
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
    seed(&m, &q, &g, &s);
    advice a = advise(&m, &q, &g, &s, "g5.xlarge");
    assert_true(a.n >= 4);
    assert_int_equal(a.f[0].kind, KVB_FIX_MAX_MODEL_LEN);
    assert_int_equal(a.f[1].kind, KVB_FIX_UTILIZATION);
    assert_int_equal(a.f[2].kind, KVB_FIX_ENFORCE_EAGER);
    for (int i = 0; i < 3; i++) {
        assert_false(a.f[i].fits);
        assert_int_equal(a.f[i].verdict, KVB_VERDICT_WEIGHTS_EXCEED);
        assert_non_null(strstr(a.f[i].note, "does not help"));
    }
    assert_true(a.f[1].gpu_memory_utilization == 0.95); /* the ceiling */
    assert_null(first_of(&a, KVB_FIX_QUANTIZE));        /* nothing below AWQ */
    assert_null(first_of(&a, KVB_FIX_KV_CACHE_FP8));
    /* one A10G in g5.xlarge: no TP inside it */
    assert_null(first_of(&a, KVB_FIX_TENSOR_PARALLEL));
    size_t inst = 0;
    for (size_t i = 3; i < a.n; i++) {
        const kvb_fix *f = &a.f[i];
        assert_int_equal(f->kind, KVB_FIX_INSTANCE);
        assert_true(f->fits);
        assert_string_equal(f->cloud, "aws"); /* g5.xlarge's cloud */
        assert_string_not_equal(f->instance, "g5.xlarge");
        assert_true(f->tensor_parallel_size <= f->gpu_count);
        /* the same family first (g5.12xlarge: 4 x A10G), then the
         * cheapest others */
        if (i == 3)
            assert_non_null(strstr(f->title, "(same family)"));
        if (i > 4)
            assert_true(f->price_per_hour >= a.f[i - 1].price_per_hour);
        inst++;
    }
    assert_int_equal(inst, 1 + 3); /* + the default max_instances */
}

/* Every fix re-plans, through kvb_fix_apply, to what it predicted. */
static void check_replans(const kvb_model *m, const kvb_quant *q,
                          const kvb_gpu *g, const kvb_serving *s,
                          const advice *a)
{
    for (size_t i = 0; i < a->n; i++) {
        kvb_quant q2 = *q;
        kvb_gpu g2 = *g;
        kvb_serving s2 = *s;
        kvb_plan p;
        kvb_error e = KVB_ERROR_INIT;
        assert_int_equal(kvb_fix_apply(&a->f[i], &q2, &g2, &s2, &e), KVB_OK);
        assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
        assert_int_equal(kvb_plan_compute(m, &q2, &g2, &s2, &p, &e), KVB_OK);
        assert_int_equal(p.fits, a->f[i].fits);
        assert_int_equal(p.verdict, a->f[i].verdict);
        assert_int_equal(p.max_kv_tokens, a->f[i].max_kv_tokens);
        assert_true(p.max_concurrency == a->f[i].max_concurrency);
        assert_int_equal(p.weights_bytes_per_gpu,
                         a->f[i].weights_bytes_per_gpu);
        assert_int_equal(p.max_model_len, a->f[i].max_model_len);
    }
}

static void test_advise_fixes_replan(void **state)
{
    (void)state;
    kvb_model m;
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
    seed(&m, &q, &g, &s);
    advice a = advise(&m, &q, &g, &s, "g5.xlarge");
    check_replans(&m, &q, &g, &s, &a);
    /* a dense model that only fits quantized, on a bare 16 GiB GPU */
    m = preset_model("Llama-3.1-8B");
    q = quant_of(KVB_QUANT_AUTO);
    g = gpu_of(16 * GIB, 1);
    s = serving_default();
    s.max_model_len = 4096;
    a = advise(&m, &q, &g, &s, NULL);
    check_replans(&m, &q, &g, &s, &a);
}

/* Kinds come in the documented order; formats least aggressive first. */
static void test_advise_order(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-3.1-8B");
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g = gpu_of(16 * GIB, 1);
    kvb_serving s = serving_default();
    s.max_model_len = 4096;
    advice a = advise(&m, &q, &g, &s, NULL);
    for (size_t i = 1; i < a.n; i++)
        assert_true(a.f[i].kind >= a.f[i - 1].kind);
    /* 16 GiB of BF16 weights on a 16 GiB GPU: formats that fit */
    const kvb_fix *first = first_of(&a, KVB_FIX_QUANTIZE);
    assert_non_null(first);
    /* the largest smaller format comes first: GPTQ 8-bit keeps a 16-bit
     * scale per 128 weights and g_idx (9.21 bits per parameter over the
     * model, `kvbudget list quants`), FP8 one FP32 scale per tensor (9.05) */
    assert_int_equal(first->quant_method, KVB_QUANT_GPTQ_8);
    assert_true(first->fits);
    assert_non_null(
        strstr(first->note, kvb_quant_method_note(KVB_QUANT_GPTQ_8)));
    size_t nq = 0;
    for (size_t i = 0; i < a.n; i++) {
        if (a.f[i].kind != KVB_FIX_QUANTIZE)
            continue;
        nq++;
        assert_true(a.f[i].weights_bytes < 16060522496ull); /* bf16 */
        if (a.f[i - 1].kind == KVB_FIX_QUANTIZE)
            assert_true(a.f[i].weights_bytes <= a.f[i - 1].weights_bytes);
    }
    assert_int_equal(nq, 3); /* the default max_quant */
}

/* Headroom: 10 GiB free of 24 GiB; 0.95 asks 22.8 GiB.  The largest
 * utilization whose ceil(24 GiB x u) <= 10 GiB is 0.41 -- below the
 * 0.5 floor, so the fix says it does not help; with 20 GiB free, 0.83. */
static void test_advise_utilization_lower(void **state)
{
    (void)state;
    kvb_model m = preset_model("Qwen2.5-0.5B");
    kvb_gpu g = gpu_of(24 * GIB, 1);
    kvb_serving s = serving_default();
    s.max_model_len = 4096;
    s.gpu_memory_utilization = 0.95;
    g.free_bytes = 20 * GIB;
    advice a = advise(&m, NULL, &g, &s, NULL);
    const kvb_fix *u = first_of(&a, KVB_FIX_UTILIZATION);
    assert_non_null(u);
    assert_true(u->fits);
    assert_true(u->gpu_memory_utilization == 0.83); /* 20 / 24 = 0.833 */
    assert_string_equal(u->title, "lower --gpu-memory-utilization to 0.83");
    g.free_bytes = 10 * GIB;
    a = advise(&m, NULL, &g, &s, NULL);
    u = first_of(&a, KVB_FIX_UTILIZATION);
    assert_non_null(u);
    assert_false(u->fits);
    assert_true(u->gpu_memory_utilization == 0.5);
}

static void test_advise_buffer(void **state)
{
    (void)state;
    kvb_model m;
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
    seed(&m, &q, &g, &s);
    advice all = advise(&m, &q, &g, &s, "g5.xlarge");
    kvb_advice_options o;
    kvb_fix two[2];
    size_t n = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_ADVICE_OPTIONS_INIT(&o) | KVB_FIX_INIT(&two[0]),
                     KVB_OK);
    snprintf(o.instance, sizeof o.instance, "g5.xlarge");
    assert_int_equal(kvb_advise(&m, &q, &g, &s, &o, two, 2, &n, &e),
                     KVB_EBUFSIZE);
    assert_int_equal(n, all.n); /* the full count */
    assert_int_equal(two[1].kind, all.f[1].kind);
    assert_string_equal(two[1].title, all.f[1].title);
    assert_int_equal(two[1].struct_size, sizeof two[1]);
    /* cap 0: only the count */
    assert_int_equal(kvb_advise(&m, &q, &g, &s, &o, NULL, 0, &n, &e),
                     KVB_EBUFSIZE);
    assert_int_equal(n, all.n);
}

static void test_advise_bad_args(void **state)
{
    (void)state;
    kvb_model m;
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
    seed(&m, &q, &g, &s);
    kvb_fix f[4];
    size_t n;
    kvb_advice_options o;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_FIX_INIT(&f[0]) | KVB_ADVICE_OPTIONS_INIT(&o), KVB_OK);
    assert_int_equal(kvb_advise(&m, &q, &g, &s, NULL, f, 4, NULL, &e),
                     KVB_EINVAL);
    assert_string_equal(e.field, "count");
    assert_int_equal(kvb_advise(&m, &q, &g, &s, NULL, NULL, 4, &n, &e),
                     KVB_EINVAL);
    f[0].struct_size = 7;
    assert_int_equal(kvb_advise(&m, &q, &g, &s, NULL, f, 4, &n, &e), KVB_EABI);
    assert_int_equal(KVB_FIX_INIT(&f[0]), KVB_OK);
    o.max_instances = 9;
    assert_int_equal(kvb_advise(&m, &q, &g, &s, &o, f, 4, &n, &e), KVB_ERANGE);
    assert_string_equal(e.field, "options.max_instances");
    o.max_instances = 3;
    o.min_utilization = 0.99; /* above max_utilization 0.95 */
    assert_int_equal(kvb_advise(&m, &q, &g, &s, &o, f, 4, &n, &e), KVB_ERANGE);
    /* bad inputs fail as kvb_plan_compute fails, naming the field */
    s.block_size = 4097; /* 0 is the engine's default; 4096 the most */
    assert_int_equal(kvb_advise(&m, &q, &g, &s, NULL, f, 4, &n, &e),
                     KVB_ERANGE);
    assert_string_equal(e.field, "serving.block_size");
}

static kvb_fix instance_fix(void)
{
    kvb_fix f;
    assert_int_equal(KVB_FIX_INIT(&f), KVB_OK);
    f.kind = KVB_FIX_INSTANCE;
    f.quant_method = KVB_QUANT_AWQ_4;
    f.kv_cache_dtype = KVB_DTYPE_FP8;
    f.enforce_eager = 1;
    f.gpu_memory_utilization = 0.9;
    f.max_model_len = 32768;
    f.tensor_parallel_size = 4;
    f.pipeline_parallel_size = 1;
    f.gpu_count = 4;
    snprintf(f.instance, sizeof f.instance, "g5.12xlarge");
    snprintf(f.cloud, sizeof f.cloud, "aws");
    return f;
}

static char *render(const kvb_fix *f, const kvb_model *m, int32_t format,
                    char *buf, size_t cap)
{
    kvb_error e = KVB_ERROR_INIT;
    size_t needed = 0;
    assert_int_equal(kvb_fix_render(f, m, format, buf, cap, &needed, &e),
                     KVB_OK);
    assert_int_equal(needed, strlen(buf) + 1);
    return buf;
}

static void test_advise_render(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-4-Scout-17B-16E");
    kvb_fix f = instance_fix();
    char buf[1024];
    assert_string_equal(render(&f, &m, KVB_RENDER_VLLM_ARGS, buf, sizeof buf),
                        /* no published AWQ checkpoint of Scout: a
                         * directory the operator fills, never the base
                         * repository with --quantization awq */
                        "--model /models/Llama-4-Scout-17B-16E-AWQ-4 "
                        "--max-model-len 32768 --gpu-memory-utilization 0.90 "
                        "--tensor-parallel-size 4 --enforce-eager "
                        "--kv-cache-dtype fp8");
    assert_string_equal(render(&f, &m, KVB_RENDER_K8S_ARGS, buf, sizeof buf),
                        "args:\n  - \"--model\"\n"
                        "  - \"/models/Llama-4-Scout-17B-16E-AWQ-4\"\n"
                        "  - \"--max-model-len\"\n  - \"32768\"\n"
                        "  - \"--gpu-memory-utilization\"\n  - \"0.90\"\n"
                        "  - \"--tensor-parallel-size\"\n  - \"4\"\n"
                        "  - \"--enforce-eager\"\n"
                        "  - \"--kv-cache-dtype\"\n  - \"fp8\"\n");
    assert_string_equal(render(&f, &m, KVB_RENDER_KARPENTER, buf, sizeof buf),
                        "requirements:\n"
                        "  - key: \"karpenter.k8s.aws/instance-family\"\n"
                        "    operator: In\n    values: [\"g5\"]\n"
                        "  - key: \"karpenter.k8s.aws/instance-size\"\n"
                        "    operator: In\n    values: [\"12xlarge\"]\n");
    snprintf(f.instance, sizeof f.instance, "a2-highgpu-1g");
    snprintf(f.cloud, sizeof f.cloud, "gcp");
    assert_string_equal(render(&f, &m, KVB_RENDER_KARPENTER, buf, sizeof buf),
                        "requirements:\n"
                        "  - key: \"node.kubernetes.io/instance-type\"\n"
                        "    operator: In\n    values: [\"a2-highgpu-1g\"]\n");
}

static void test_advise_render_quoting(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-3.1-8B");
    snprintf(m.name, sizeof m.name, "my \"model\" it's");
    kvb_fix f = instance_fix();
    f.quant_method = KVB_QUANT_AUTO;
    f.kv_cache_dtype = KVB_DTYPE_AUTO;
    f.enforce_eager = 0;
    f.tensor_parallel_size = 1;
    char buf[512];
    assert_string_equal(render(&f, &m, KVB_RENDER_VLLM_ARGS, buf, sizeof buf),
                        "--model 'my \"model\" it'\\''s' --max-model-len 32768 "
                        "--gpu-memory-utilization 0.90");
    assert_non_null(strstr(render(&f, &m, KVB_RENDER_K8S_ARGS, buf, sizeof buf),
                           "  - \"my \\\"model\\\" it's\"\n"));
}

static void test_advise_render_errors(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-3.1-8B");
    kvb_fix f = instance_fix();
    char small[8];
    size_t needed = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_fix_render(&f, &m, KVB_RENDER_VLLM_ARGS, small,
                                    sizeof small, &needed, &e),
                     KVB_EBUFSIZE);
    assert_string_equal(small, "--model");
    /* the published AWQ checkpoint (presets/checkpoints.c) */
    assert_int_equal(needed, strlen("--model hugging-quants/"
                                    "Meta-Llama-3.1-8B-Instruct-AWQ-INT4 "
                                    "--max-model-len 32768 "
                                    "--gpu-memory-utilization 0.90 "
                                    "--tensor-parallel-size 4 --enforce-eager "
                                    "--kv-cache-dtype fp8") +
                                 1);
    assert_int_equal(kvb_fix_render(&f, &m, 99, small, sizeof small, NULL, &e),
                     KVB_ERANGE);
    f.instance[0] = '\0';
    assert_int_equal(kvb_fix_render(&f, &m, KVB_RENDER_KARPENTER, small,
                                    sizeof small, NULL, &e),
                     KVB_EINVAL);
    assert_int_equal(
        kvb_fix_render(&f, &m, KVB_RENDER_VLLM_ARGS, NULL, 4, NULL, &e),
        KVB_EINVAL);
    f.struct_size = 1;
    assert_int_equal(kvb_fix_render(&f, &m, KVB_RENDER_VLLM_ARGS, small,
                                    sizeof small, NULL, &e),
                     KVB_EABI);
}

/* kvb_fix_apply resets what a change makes stale. */
static void test_advise_apply_resets(void **state)
{
    (void)state;
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g = gpu_of(24 * GIB, 1);
    kvb_serving s = serving_default();
    kvb_error e = KVB_ERROR_INIT;
    /* the read checkpoint's exclusion list, meaningless for another one */
    q.keep_roles = (uint64_t)1 << KVB_ROLE_ATTN_Q;
    g.free_bytes = 20 * GIB;
    s.weights_bytes = 15 * GIB;
    s.non_torch_bytes = GIB;
    kvb_fix f;
    assert_int_equal(KVB_FIX_INIT(&f), KVB_OK);
    f.quant_method = KVB_QUANT_AUTO;
    f.gpu_total_bytes = 24 * GIB;
    f.gpu_count = 1;
    f.tensor_parallel_size = 1;
    f.pipeline_parallel_size = 1;
    f.max_model_len = 4096;
    f.gpu_memory_utilization = 0.8;
    assert_int_equal(kvb_fix_apply(&f, &q, &g, &s, &e), KVB_OK);
    /* nothing structural changed: the measurements stay */
    assert_int_equal(s.weights_bytes, 15 * GIB);
    assert_int_equal(s.non_torch_bytes, GIB);
    assert_int_equal(g.free_bytes, 20 * GIB);
    assert_true(s.gpu_memory_utilization == 0.8);
    assert_int_equal(q.keep_roles, (uint64_t)1 << KVB_ROLE_ATTN_Q);
    f.quant_method = KVB_QUANT_AWQ_4;
    f.tensor_parallel_size = 2;
    f.gpu_count = 2;
    assert_int_equal(kvb_fix_apply(&f, &q, &g, &s, &e), KVB_OK);
    assert_int_equal(s.weights_bytes, 0);
    assert_int_equal(s.non_torch_bytes, KVB_AUTO_BYTES);
    assert_int_equal(q.method, KVB_QUANT_AWQ_4);
    assert_int_equal(q.keep_roles, 0);
    assert_int_equal(g.count, 2);
    f.gpu_total_bytes = 80 * GIB;
    assert_int_equal(kvb_fix_apply(&f, &q, &g, &s, &e), KVB_OK);
    assert_int_equal(g.free_bytes, 0);
    assert_int_equal(g.total_bytes, 80 * GIB);
    assert_int_equal(kvb_fix_apply(&f, NULL, &g, &s, &e), KVB_EINVAL);
}

KVB_TESTS(cmocka_unit_test(test_advise_friendly_len),
          cmocka_unit_test(test_advise_names),
          cmocka_unit_test(test_advise_fits_gives_none),
          cmocka_unit_test(test_advise_max_len),
          cmocka_unit_test(test_advise_concurrency),
          cmocka_unit_test(test_advise_seed),
          cmocka_unit_test(test_advise_engine_remedies),
          cmocka_unit_test(test_advise_fixes_replan),
          cmocka_unit_test(test_advise_order),
          cmocka_unit_test(test_advise_utilization_lower),
          cmocka_unit_test(test_advise_buffer),
          cmocka_unit_test(test_advise_bad_args),
          cmocka_unit_test(test_advise_render),
          cmocka_unit_test(test_advise_render_quoting),
          cmocka_unit_test(test_advise_render_errors),
          cmocka_unit_test(test_advise_apply_resets));
