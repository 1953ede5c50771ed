/*
 * test_engine_sglang.c -- SGLang's accounting (lib/engines/sglang.c):
 * its default mem_fraction_static by version, the pool arithmetic against
 * the figures SGLang's own logs print, real start-up logs planned with
 * their own settings (tests/fidelity/data/engines/sglang.jsonl), a real
 * launch command, a real log explained, and a fix in SGLang's flags.
 * No figure here is fitted: each comes with the log line it is from.
 */
#include "testing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static kvb_serving sglang_serving(uint32_t version, double fraction,
                                  uint32_t tp)
{
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_SGLANG;
    s.engine_version = version;
    s.gpu_memory_utilization = fraction;
    s.tensor_parallel_size = tp;
    return s;
}

static kvb_plan plan_of(const kvb_model *m, const kvb_quant *q,
                        const kvb_gpu *g, const kvb_serving *s)
{
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    if (kvb_plan_compute(m, q, g, s, &p, &e) != KVB_OK)
        fail_msg("plan: %s", e.message);
    return p;
}

static double rel_error(double planned, double logged)
{
    return fabs(planned - logged) / logged;
}

/* ---- versions and defaults ---- */

static void test_sglang_versions(void **state)
{
    (void)state;
    int32_t engine = -1;
    uint32_t version = 1;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_engine_parse("sglang", &engine, &version, &e), KVB_OK);
    assert_int_equal(engine, KVB_ENGINE_SGLANG);
    assert_int_equal(version, 0);
    /* lmsysorg/sglang:v0.4.8.post1 (sglang-log-006) */
    assert_int_equal(
        kvb_engine_parse("sglang@0.4.8.post1", &engine, &version, &e), KVB_OK);
    assert_int_equal(version, 408);
    assert_int_equal(kvb_engine_parse("SGLang@v0.5.4", &engine, &version, &e),
                     KVB_OK);
    assert_int_equal(version, 504);
    assert_int_equal(kvb_engine_parse("sglang@five", &engine, &version, &e),
                     KVB_EINVAL);
    assert_string_equal(e.field, "serving.engine_version");
}

/* The default mem_fraction_static (server_args.py, engines.md 2.3). */
static void test_sglang_default_fraction(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-3.1-8B");
    kvb_gpu g;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    assert_int_equal(kvb_preset_gpu_find("H100", &g, &e), KVB_OK);
    g.count = 8;
    /* v0.5.x, H100 (nvidia-smi 81559 MiB), TP 1: chunked 8192, graphs
     * 256: 512 + 12288 + 512 + 128 = 13440 MiB reserved; round(68119 /
     * 81559, 3) = 0.835, as the ServerArgs dumps of 0.5.x on H100 show
     * ("mem_fraction_static=0.835, ... chunked_prefill_size=8192"). */
    kvb_serving s = sglang_serving(504, 0, 1);
    kvb_plan p = plan_of(&m, NULL, &g, &s);
    assert_true(fabs(p.gpu_memory_utilization - 0.835) < 1e-9);
    assert_int_equal(p.max_num_batched_tokens, 8192);
    /* TP 8: graphs 512, 512 + 12288 + 1024 + 1024 = 14848 -> 0.818 */
    s.tensor_parallel_size = 8;
    p = plan_of(&m, NULL, &g, &s);
    assert_true(fabs(p.gpu_memory_utilization - 0.818) < 1e-9);
    /* 0.4.7 to 0.5.2: (9.5 + 8 / 2) GiB under 90 GiB: round(67735 /
     * 81559, 3) = 0.831 */
    s.engine_version = 410;
    p = plan_of(&m, NULL, &g, &s);
    assert_true(fabs(p.gpu_memory_utilization - 0.831) < 1e-9);
    /* TP 1: (9.5 + 0.5) GiB -> 0.874, as the ServerArgs dump of SGLang's
     * docs notebook prints on 2025-06-16 (docs.sglang.ai
     * frontend/frontend.html: "mem_fraction_static=0.874") */
    s.tensor_parallel_size = 1;
    s.engine_version = 407;
    p = plan_of(&m, NULL, &g, &s);
    assert_true(fabs(p.gpu_memory_utilization - 0.874) < 1e-9);
    s.tensor_parallel_size = 8;
    /* early 2025 (@18bb216c): the TP table, 0.81 at TP 8, 0.88 at TP 1
     * (the same notebook prints 0.88 on 2025-05-15) */
    s.engine_version = 403;
    p = plan_of(&m, NULL, &g, &s);
    assert_true(fabs(p.gpu_memory_utilization - 0.81) < 1e-9);
    s.tensor_parallel_size = 1;
    p = plan_of(&m, NULL, &g, &s);
    assert_true(fabs(p.gpu_memory_utilization - 0.88) < 1e-9);
    /* the user's value wins */
    s.gpu_memory_utilization = 0.7;
    p = plan_of(&m, NULL, &g, &s);
    assert_true(p.gpu_memory_utilization == 0.7);
    assert_int_equal(p.block_size, 1); /* --page-size default */
}

/* ---- the pool arithmetic against SGLang's own prints ---- */

/* sglang-log-002 (sgl-project/sglang PR #18263): Qwen3-30B-A3B in bf16,
 * 48 layers x 4 KV heads x 128 x 2 x 2 B = 98304 B per token, and
 * "candidate_kv_budget 164149629787" -> "#tokens: 1669816". */
static void test_sglang_pool_tokens(void **state)
{
    (void)state;
    kvb_model m = preset_model("Qwen3-30B-A3B");
    kvb_quant q = quant_of(KVB_QUANT_BF16);
    kvb_gpu g = gpu_of(80 * GIB, 1);
    kvb__engine_in in;
    memset(&in, 0, sizeof in);
    in.model = &m;
    in.quant = &q;
    in.gpu = &g;
    in.s = sglang_serving(0, 0.911, 1);
    in.engine = &kvb__engine_sglang;
    in.engine->defaults(&in);
    kvb__kv_stage ks;
    kvb__kv_stage_make(&m, &q, 1, 0, m.num_hidden_layers, 1, false, &ks);
    assert_int_equal(ks.token_bytes, 98304);
    assert_int_equal(in.engine->num_blocks(&in, &ks, 164149629787ull), 1669816);
    /* --page-size 64 floors to whole pages; --max-total-tokens clamps */
    in.s.block_size = 64;
    assert_int_equal(in.engine->num_blocks(&in, &ks, 164149629787ull),
                     1669816 / 64);
    in.s.block_size = 1;
    in.s.max_total_tokens = 131072;
    assert_int_equal(in.engine->num_blocks(&in, &ks, 164149629787ull), 131072);
}

/* The same log: "Load weight end ... avail mem=230.20 GB, mem usage=56.98
 * GB" and mem_fraction_static 0.911 give "initial available_bytes ...
 * 204.63 GB" = 230.20 - (230.20 + 56.98) x 0.089: the budget is
 * pre x fraction - weights. */
static void test_sglang_rest_formula(void **state)
{
    (void)state;
    kvb_model m = preset_model("Qwen3-30B-A3B");
    kvb_quant q = quant_of(KVB_QUANT_BF16);
    kvb_gpu g = gpu_of((uint64_t)(287.18 * (double)GIB), 1);
    kvb_serving s = sglang_serving(0, 0.911, 1);
    s.cuda_context_bytes = 0;
    s.loaded_weights_bytes = (uint64_t)(56.98 * (double)GIB);
    kvb_plan p = plan_of(&m, &q, &g, &s);
    /* the inputs are printed to 0.01 GB: 204.63 within their rounding */
    assert_true(fabs(KVB__GIB(p.kv_budget_bytes_per_gpu) - 204.63) < 0.02);
    assert_int_equal(p.max_total_tokens, p.max_kv_tokens);
    assert_int_equal(p.max_total_tokens, p.kv_budget_bytes_per_gpu / 98304);
    assert_int_equal(p.kv_cache_bytes_per_gpu, p.max_total_tokens * 98304);
    /* max_running_requests: max_total_num_tokens // 2, at most the
     * request slots (4096 here) */
    assert_int_equal(p.max_num_seqs, 4096);
    assert_int_equal(p.accounting, KVB_ACCOUNTING_SGLANG);
}

/* ---- real start-up logs planned with their own settings ---- */

/* One record of tests/fidelity/data/engines/sglang.jsonl: the model,
 * weights and GPU presets, the release, the settings the log shows, and
 * the logged max_total_num_tokens. */
typedef struct record {
    const char *id, *model, *gpu;
    int32_t quant;
    uint32_t count, tp, version;
    double fraction;    /* as printed, or the release's default */
    double free_gib;    /* free memory at start when the log needs it */
    uint64_t logged;    /* #tokens / max_total_num_tokens */
    uint64_t per_token; /* K size + V size per token per GPU */
    uint32_t running;   /* max_running_requests as logged; 0 unknown */
} record;

static const record records[] = {
    /* vllm-project/vllm#21348: "#tokens: 367404, K size: 8.23 GB" */
    {"sglang-log-001", "Qwen3-235B-A22B", "H100", KVB_QUANT_FP8, 4, 4, 0, 0.93,
     0, 367404, 48128, 0},
    /* docs.sglang.ai/start/send_request.html (2025-01-23):
     * "max_total_num_tokens=444500", mem_fraction_static=0.88 printed */
    {"sglang-log-008", "Llama-3.1-8B", "H100", KVB_QUANT_AUTO, 1, 1, 401, 0.88,
     0, 444500, 131072, 2049},
    /* sgl-project/sglang PR #4760 (2025-03-25): "#tokens: 442750" with
     * the release's default fraction */
    {"sglang-log-009", "Llama-3.1-8B", "H100", KVB_QUANT_AUTO, 1, 1, 404, 0, 0,
     442750, 131072, 0},
    /* didier-durand/llms-in-clouds docs/sglang.md: QwQ-32B on 4 x L4,
     * 0.4.3.post4, "#tokens: 46611", mem_fraction_static=0.85 printed */
    {"sglang-log-010", "Qwen2.5-32B", "L4", KVB_QUANT_AUTO, 4, 4, 403, 0.85, 0,
     46611, 65536, 2049},
    /* jerryzsj/my-deepseek-r1 README: R1-Distill-Qwen-7B on an RTX 3090
     * under WSL2, "max_total_num_tokens=105531"; the desktop holds part
     * of the card: free at start = "Load weight begin. avail mem=22.76
     * GB" + the CUDA context */
    {"sglang-log-011", "Qwen2.5-7B", "RTX-3090", KVB_QUANT_AUTO, 1, 1, 402,
     0.88, 23.0, 105531, 57344, 2049},
};

static double plan_record(const record *r)
{
    kvb_model m = preset_model(r->model);
    kvb_quant q = quant_of(r->quant);
    kvb_gpu g;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    assert_int_equal(kvb_preset_gpu_find(r->gpu, &g, &e), KVB_OK);
    g.count = r->count;
    if (r->free_gib > 0)
        g.free_bytes = (uint64_t)(r->free_gib * (double)GIB);
    kvb_serving s = sglang_serving(r->version, r->fraction, r->tp);
    kvb_plan p = plan_of(&m, &q, &g, &s);
    assert_int_equal(p.kv_bytes_per_token_per_gpu, r->per_token);
    assert_int_equal(p.max_total_tokens, p.max_kv_tokens);
    assert_int_equal(p.verdict, KVB_VERDICT_FITS);
    if (r->running) /* "max_running_requests=2049" */
        assert_int_equal(p.max_num_seqs, r->running);
    return (double)p.max_total_tokens;
}

static void test_sglang_fidelity_records(void **state)
{
    (void)state;
    size_t n = KVB__ARRAY_LEN(records);
    double errs[KVB__ARRAY_LEN(records)];
    for (size_t i = 0; i < n; i++) {
        const record *r = &records[i];
        double planned = plan_record(r), logged = (double)r->logged;
        errs[i] = rel_error(planned, logged);
        print_message("%s: logged %.0f planned %.0f error %+.2f%%\n", r->id,
                      logged, planned, 100 * (planned - logged) / logged);
        assert_true(errs[i] < 0.05);
    }
    for (size_t i = 1; i < n; i++) /* the median: sort by insertion */
        for (size_t j = i; j > 0 && errs[j - 1] > errs[j]; j--) {
            double t = errs[j];
            errs[j] = errs[j - 1];
            errs[j - 1] = t;
        }
    double median = n % 2 ? errs[n / 2] : (errs[n / 2 - 1] + errs[n / 2]) / 2;
    assert_true(median < 0.05);
}

/* The weights as SGLang loads them: "mem usage" of sglang-log-009
 * (15.11 GB) and sglang-log-010 (15.54 GB per TP rank). */
static void test_sglang_weights(void **state)
{
    (void)state;
    const struct {
        size_t record;
        double logged_gib;
    } w[] = {{2, 15.11}, {3, 15.54}};
    for (size_t i = 0; i < KVB__ARRAY_LEN(w); i++) {
        const record *r = &records[w[i].record];
        kvb_model m = preset_model(r->model);
        kvb_quant q = quant_of(r->quant);
        kvb_gpu g;
        kvb_error e = KVB_ERROR_INIT;
        assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
        assert_int_equal(kvb_preset_gpu_find(r->gpu, &g, &e), KVB_OK);
        g.count = r->count;
        kvb_serving s = sglang_serving(r->version, r->fraction, r->tp);
        kvb_plan p = plan_of(&m, &q, &g, &s);
        assert_true(rel_error(KVB__GIB(p.weights_bytes_per_gpu),
                              w[i].logged_gib) < 0.01);
    }
}

/* sglang-log-007 (SemiAnalysisAI/InferenceX#2128): "Load weight end.
 * ... avail mem=12.25 GB, mem usage=125.65 GB." at TP 8 and 0.88 fail
 * with "Loaded weights leave no GPU memory for the KV cache under
 * --mem-fraction-static=0.88", suggesting 0.9113 = 125.65 / 137.90. */
static void test_sglang_no_pool(void **state)
{
    (void)state;
    kvb_model m = preset_model("DeepSeek-V3");
    kvb_quant q = quant_of(KVB_QUANT_FP8);
    kvb__engine_in in;
    memset(&in, 0, sizeof in);
    kvb_serving s = sglang_serving(0, 0.88, 8);
    s.cuda_context_bytes = 0;
    s.loaded_weights_bytes = (uint64_t)(125.65 * (double)GIB);
    kvb_gpu g0 = gpu_of(80 * GIB, 8);
    in.gpu = &g0;
    in.s = s;
    /* pre = total - the TP 8 communicators: make it 137.90 GiB */
    uint64_t comm = kvb__engine_sglang.cuda_context(&in);
    kvb_gpu g = gpu_of((uint64_t)(137.90 * (double)GIB) + comm, 8);
    kvb_plan p = plan_of(&m, &q, &g, &s);
    assert_int_equal(p.fits, 0);
    assert_true(p.verdict == KVB_VERDICT_WEIGHTS_EXCEED ||
                p.verdict == KVB_VERDICT_NO_KV_MEMORY);
    char buf[512];
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_plan_engine_error(&p, buf, sizeof buf, NULL, &e),
                     KVB_OK);
    assert_non_null(strstr(buf, "Loaded weights leave no GPU memory for the "
                                "KV cache under --mem-fraction-static=0.88"));
    assert_non_null(strstr(buf, "0.911"));
    /* v0.5.x words it as model_runner.py does */
    s.engine_version = 504;
    p = plan_of(&m, &q, &g, &s);
    assert_int_equal(kvb_plan_engine_error(&p, buf, sizeof buf, NULL, &e),
                     KVB_OK);
    assert_string_equal(buf, "RuntimeError: Not enough memory. Please try to "
                             "increase --mem-fraction-static. Current value: "
                             "self.server_args.mem_fraction_static=0.88");
}

/* ---- command lines ---- */

/* The launch command of sglang-log-001 (vllm-project/vllm#21348). */
static void test_sglang_command(void **state)
{
    (void)state;
    const char *argv[] = {"python3",
                          "-m",
                          "sglang.launch_server",
                          "--model",
                          "/path/to/Qwen3-235B-A22B-FP8",
                          "--tp",
                          "4",
                          "--trust-remote-code",
                          "--host",
                          "0.0.0.0",
                          "--port",
                          "8000",
                          "--mem-fraction-static",
                          "0.93"};
    kvb_command c;
    kvb_serving s = serving_default();
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_COMMAND_INIT(&c), KVB_OK);
    assert_int_equal(
        kvb_command_read(KVB__ARRAY_LEN(argv), argv, NULL, -1, &c, &s, &e),
        KVB_OK);
    assert_int_equal(c.engine, KVB_ENGINE_SGLANG);
    assert_int_equal(s.engine, KVB_ENGINE_SGLANG);
    assert_string_equal(c.program, "python3 -m sglang.launch_server");
    assert_string_equal(c.model, "/path/to/Qwen3-235B-A22B-FP8");
    assert_int_equal(s.tensor_parallel_size, 4);
    assert_true(s.gpu_memory_utilization == 0.93);
    assert_string_equal(c.ignored, "--trust-remote-code, --host, --port");

    /* flag=value, SGLang's other spellings, DP attention, fp8 KV */
    const char *more[] = {"python",
                          "-m",
                          "sglang.launch_server",
                          "--model-path=deepseek-ai/DeepSeek-R1",
                          "--tp-size=8",
                          "--dp",
                          "8",
                          "--enable-dp-attention",
                          "--kv-cache-dtype",
                          "fp8_e4m3",
                          "--context-length",
                          "32768",
                          "--page-size",
                          "64",
                          "--max-running-requests",
                          "256",
                          "--chunked-prefill-size",
                          "4096",
                          "--cuda-graph-max-bs",
                          "128",
                          "--max-total-tokens",
                          "131072",
                          "--ep-size",
                          "8"};
    s = serving_default();
    assert_int_equal(
        kvb_command_read(KVB__ARRAY_LEN(more), more, NULL, -1, &c, &s, &e),
        KVB_OK);
    assert_string_equal(c.model, "deepseek-ai/DeepSeek-R1");
    assert_int_equal(s.tensor_parallel_size, 8);
    assert_int_equal(s.data_parallel_size, 8);
    assert_int_equal(s.enable_dp_attention, 1);
    assert_string_equal(c.kv_cache_dtype, "fp8_e4m3");
    assert_int_equal(s.max_model_len, 32768);
    assert_int_equal(s.block_size, 64);
    assert_int_equal(s.max_num_seqs, 256);
    assert_int_equal(s.max_num_batched_tokens, 4096);
    assert_int_equal(s.cuda_graph_max_bs, 128);
    assert_int_equal(s.max_total_tokens, 131072);
    assert_int_equal(s.enable_expert_parallel, 1);

    /* the mamba pool's settings are read and named as not modelled (the
     * plan takes SGLang's defaults); --disable-radix-cache is ignored */
    const char *mamba[] = {"python3",
                           "-m",
                           "sglang.launch_server",
                           "--model-path",
                           "Qwen/Qwen3-Next-80B-A3B-Instruct",
                           "--tp",
                           "2",
                           "--max-mamba-cache-size",
                           "360",
                           "--mamba-ssm-dtype",
                           "bfloat16",
                           "--mamba-full-memory-ratio=0.5"};
    s = serving_default();
    assert_int_equal(
        kvb_command_read(KVB__ARRAY_LEN(mamba), mamba, NULL, -1, &c, &s, &e),
        KVB_OK);
    assert_int_equal(s.tensor_parallel_size, 2);
    assert_non_null(strstr(c.warning, "--max-mamba-cache-size 360: not "
                                      "modelled"));
    assert_non_null(strstr(c.warning, "--mamba-ssm-dtype bfloat16"));
    assert_non_null(strstr(c.warning, "--mamba-full-memory-ratio 0.5"));

    /* a flag SGLang does not have is an error naming it */
    const char *bad[] = {"python3",      "-m", "sglang.launch_server",
                         "--model-path", "M",  "--gpu-memory-utilization",
                         "0.9"};
    assert_int_equal(
        kvb_command_read(KVB__ARRAY_LEN(bad), bad, NULL, -1, &c, &s, &e),
        KVB_EINVAL);
    assert_non_null(strstr(e.message, "--gpu-memory-utilization"));
    assert_non_null(strstr(e.message, "SGLang"));
}

/* ---- explain ---- */

/* Lines of sglang-log-002 (sgl-project/sglang PR #18263) and the line
 * format of max_total_num_tokens (managers/scheduler.py). */
static const char sglang_log[] =
    "[2026-07-15 13:14:53] Load weight end. elapsed=19.09 s, "
    "type=Qwen3MoeForCausalLM, avail mem=230.20 GB, mem usage=56.98 GB.\n"
    "[2026-07-15 13:14:54] KV Cache is allocated. dtype: torch.bfloat16, "
    "#tokens: 1669816, K size: 76.44 GB, V size: 76.44 GB\n"
    "[2026-07-15 13:14:54] Memory pool end. avail mem=74.01 GB\n"
    "[2026-07-15 13:15:30] max_total_num_tokens=1669816, "
    "chunked_prefill_size=16384, max_prefill_tokens=16384, "
    "max_running_requests=4096, context_len=262144, "
    "available_gpu_mem=20.14 GB\n";

static void test_sglang_explain(void **state)
{
    (void)state;
    kvb_log_facts f;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_LOG_FACTS_INIT(&f), KVB_OK);
    assert_int_equal(kvb_log_parse(sglang_log, strlen(sglang_log), &f, &e),
                     KVB_OK);
    assert_int_equal(f.engine, KVB_ENGINE_SGLANG);
    assert_true(KVB_LOG_HAS(&f, MAX_TOTAL_TOKENS));
    assert_int_equal(f.max_total_tokens, 1669816);
    assert_int_equal(f.kv_cache_tokens, 1669816);
    assert_true(KVB_LOG_HAS(&f, WEIGHTS_BYTES));
    assert_true(fabs(KVB__GIB(f.weights_bytes) - 56.98) < 0.005);
    assert_true(fabs(KVB__GIB(f.startup_free_bytes) - 287.18) < 0.005);
    assert_true(fabs(KVB__GIB((uint64_t)f.kv_cache_bytes) - 152.88) < 0.005);
    assert_true(fabs(KVB__GIB(f.available_bytes) - 20.14) < 0.005);
    assert_int_equal(f.max_model_len, 262144);
    assert_int_equal(f.max_num_seqs, 4096);
    assert_int_equal(f.max_num_batched_tokens, 16384);
    assert_int_equal(f.failure, KVB_LOG_NONE);

    /* sglang-log-007's failure (SemiAnalysisAI/InferenceX#2128) */
    static const char fail[] =
        "Load weight end. quant=fp8, fmt=e4m3, avail mem=12.25 GB, mem "
        "usage=125.65 GB.\nValueError: Loaded weights leave no GPU memory for "
        "the KV cache under --mem-fraction-static=0.88.\n";
    assert_int_equal(KVB_LOG_FACTS_INIT(&f), KVB_OK);
    assert_int_equal(kvb_log_parse(fail, strlen(fail), &f, &e), KVB_OK);
    assert_int_equal(f.engine, KVB_ENGINE_SGLANG);
    assert_int_equal(f.failure, KVB_LOG_NO_KV_MEMORY);
    assert_true(fabs(KVB__GIB(f.weights_bytes) - 125.65) < 0.005);

    /* a ServerArgs dump (its field names are server_args.py's) */
    static const char args[] =
        "[2025-07-02 07:41:40] server_args=ServerArgs(model_path='deepseek-"
        "ai/DeepSeek-R1', dtype='auto', kv_cache_dtype='auto', "
        "quantization=None, context_length=None, mem_fraction_static=0.95, "
        "max_running_requests=None, page_size=1, tp_size=8, pp_size=1)\n";
    assert_int_equal(KVB_LOG_FACTS_INIT(&f), KVB_OK);
    assert_int_equal(kvb_log_parse(args, strlen(args), &f, &e), KVB_OK);
    assert_int_equal(f.engine, KVB_ENGINE_SGLANG);
    assert_string_equal(f.model, "deepseek-ai/DeepSeek-R1");
    assert_true(f.gpu_memory_utilization == 0.95);
    assert_int_equal(f.tensor_parallel_size, 8);
    assert_false(KVB_LOG_HAS(&f, QUANTIZATION));

    /* early 2025 prints no "mem usage": the weights are the difference
     * (docs.sglang.ai/start/send_request.html, sglang-log-008) */
    static const char old[] =
        "[2025-01-23 19:35:15 TP0] Load weight begin. avail mem=78.81 GB\n"
        "[2025-01-23 19:35:20 TP0] Load weight end. type=LlamaForCausalLM, "
        "dtype=torch.bfloat16, avail mem=63.72 GB\n"
        "[2025-01-23 19:35:20 TP0] KV Cache is allocated. K size: 27.13 GB, "
        "V size: 27.13 GB.\n"
        "[2025-01-23 19:35:27 TP0] max_total_num_tokens=444500, "
        "max_prefill_tokens=16384, max_running_requests=2049, "
        "context_len=131072\n";
    assert_int_equal(KVB_LOG_FACTS_INIT(&f), KVB_OK);
    assert_int_equal(kvb_log_parse(old, strlen(old), &f, &e), KVB_OK);
    assert_int_equal(f.engine, KVB_ENGINE_SGLANG);
    assert_true(fabs(KVB__GIB(f.weights_bytes) - 15.09) < 0.005);
    assert_true(fabs(KVB__GIB(f.startup_free_bytes) - 78.81) < 0.005);
    assert_int_equal(f.max_total_tokens, 444500);
    assert_true(fabs(KVB__GIB((uint64_t)f.kv_cache_bytes) - 54.26) < 0.005);
    assert_int_equal(f.max_num_seqs, 2049);
}

/* ---- fixes ---- */

static void test_sglang_render(void **state)
{
    (void)state;
    kvb_fix f;
    kvb_model m = preset_model("Llama-3.1-8B");
    char buf[512];
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_FIX_INIT(&f), KVB_OK);
    f.engine = KVB_ENGINE_SGLANG;
    f.quant_method = KVB_QUANT_FP8;
    f.kv_cache_dtype = KVB_DTYPE_FP8;
    f.max_model_len = 32768;
    f.gpu_memory_utilization = 0.85;
    f.tensor_parallel_size = 2;
    f.pipeline_parallel_size = 1;
    f.enforce_eager = 1;
    assert_int_equal(
        kvb_fix_render(&f, &m, KVB_RENDER_VLLM_ARGS, buf, sizeof buf, NULL, &e),
        KVB_OK);
    assert_non_null(strstr(buf, "--model-path "));
    assert_non_null(strstr(buf, "--quantization fp8 --context-length 32768 "
                                "--mem-fraction-static 0.85 --tp-size 2 "
                                "--disable-cuda-graph --kv-cache-dtype "
                                "fp8_e4m3"));
    assert_null(strstr(buf, "--gpu-memory-utilization"));
}

/* ---- parallelism ---- */

static void test_sglang_parallelism(void **state)
{
    (void)state;
    kvb_model m = preset_model("DeepSeek-V3");
    kvb_quant q = quant_of(KVB_QUANT_FP8);
    kvb_gpu g = gpu_of(140 * GIB, 8);
    kvb_serving s = sglang_serving(0, 0.8, 8);
    s.data_parallel_size = 3;
    s.enable_dp_attention = 1;
    kvb_plan p = plan_of(&m, &q, &g, &s);
    assert_int_equal(p.verdict, KVB_VERDICT_PARALLELISM_INVALID);
    /* DP attention over 8 ranks: attention weights on one rank each, so
     * each rank holds more than under plain TP 8; MLA KV is unchanged */
    s.data_parallel_size = 8;
    kvb_plan dp = plan_of(&m, &q, &g, &s);
    s.enable_dp_attention = 0;
    s.data_parallel_size = 1;
    kvb_plan tp = plan_of(&m, &q, &g, &s);
    assert_true(dp.weights_bytes_per_gpu > tp.weights_bytes_per_gpu);
    assert_int_equal(dp.kv_bytes_per_token_per_gpu,
                     tp.kv_bytes_per_token_per_gpu);
    /* MHA under DP attention keeps max(1, H_kv // (tp / dp)) heads per
     * rank: Qwen3-30B-A3B, TP 4 x DP 4 holds all 4 KV heads, 48 x 4 x
     * 128 x 2 x 2 = 98304 B per token, against 24576 under plain TP 4 */
    kvb_model mq = preset_model("Qwen3-30B-A3B");
    kvb_quant bf = quant_of(KVB_QUANT_BF16);
    kvb_gpu g4 = gpu_of(80 * GIB, 4);
    s = sglang_serving(0, 0.8, 4);
    s.data_parallel_size = 4;
    s.enable_dp_attention = 1;
    dp = plan_of(&mq, &bf, &g4, &s);
    assert_int_equal(dp.kv_bytes_per_token_per_gpu, 98304);
    assert_int_equal(dp.kv_cache_bytes_per_gpu, dp.max_total_tokens * 98304);
    s.enable_dp_attention = 0;
    s.data_parallel_size = 1;
    tp = plan_of(&mq, &bf, &g4, &s);
    assert_int_equal(tp.kv_bytes_per_token_per_gpu, 24576);
}

KVB_TESTS(cmocka_unit_test(test_sglang_versions),
          cmocka_unit_test(test_sglang_default_fraction),
          cmocka_unit_test(test_sglang_pool_tokens),
          cmocka_unit_test(test_sglang_rest_formula),
          cmocka_unit_test(test_sglang_fidelity_records),
          cmocka_unit_test(test_sglang_weights),
          cmocka_unit_test(test_sglang_no_pool),
          cmocka_unit_test(test_sglang_command),
          cmocka_unit_test(test_sglang_explain),
          cmocka_unit_test(test_sglang_render),
          cmocka_unit_test(test_sglang_parallelism));
