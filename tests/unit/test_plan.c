/* test_plan.c -- the whole plan: the seed's arithmetic, every verdict,
 * the engine's own error texts, and every class of bad input. */
#include "testing.h"

#include <math.h>
#include <string.h>

typedef struct inputs {
    kvb_model m;
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
} inputs;

static inputs setup_inputs(const char *model, uint64_t gpu_bytes)
{
    inputs in;
    in.m = preset_model(model);
    in.q = quant_of(KVB_QUANT_AUTO);
    in.g = gpu_of(gpu_bytes, 1);
    in.s = serving_default();
    return in;
}

static kvb_plan plan(const inputs *in)
{
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    if (kvb_plan_compute(&in->m, &in->q, &in->g, &in->s, &p, &e) != KVB_OK)
        fail_msg("plan: %s: %s", e.field, e.message);
    return p;
}

static kvb_status plan_status(const inputs *in, const char *field)
{
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    kvb_status st = kvb_plan_compute(&in->m, &in->q, &in->g, &in->s, &p, &e);
    assert_int_equal(e.status, st);
    if (field)
        assert_string_equal(e.field, field);
    return st;
}

static void engine_text(const kvb_plan *p, char *buf, size_t cap)
{
    size_t needed = 0;
    assert_int_equal(kvb_plan_engine_error(p, buf, cap, &needed, NULL), KVB_OK);
    assert_int_equal(needed, strlen(buf) + 1);
}

/*
 * The seed article: "Wagi modelu: ~9GB (17B AWQ 4-bit)" on a 24 GB card at
 * 0.9 leaves "~12.6GB" of KV budget.  A dense 17B model (50 Llama layers of
 * width 5120, MLP 17920, 32000 vocabulary) is 17.24e9 parameters; AWQ-4
 * keeps the 0.33e9 embedding parameters in 16 bits: 9.44e9 bytes, "about
 * 9 GB"; 24e9 x 0.9 - 9.44e9 = 12.16e9, "about 12.6 GB".
 */
static void test_plan_seed_arithmetic(void **state)
{
    (void)state;
    inputs in = setup_inputs("Llama-3.1-8B", 24000000000ull);
    in.m.num_hidden_layers = 50;
    in.m.hidden_size = 5120;
    in.m.num_attention_heads = 40;
    in.m.intermediate_size = 17920;
    in.m.vocab_size = 32000;
    in.q.method = KVB_QUANT_AWQ_4;
    in.s.gpu_memory_utilization = 0.9;
    in.s.max_model_len = 4096;
    kvb_plan p = plan(&in);
    assert_true(p.param_count > 17000000000ull &&
                p.param_count < 17500000000ull);
    assert_true(p.weights_bytes > 8500000000ull &&
                p.weights_bytes < 9500000000ull);
    assert_int_equal(p.usable_bytes_per_gpu, 21600000000ull);
    /* the article subtracts the checkpoint ("Wagi modelu"); vLLM holds a
     * little more once loaded: the rotary cache of 131072 positions x 128
     * x 2 bytes (33554432) and the allocator's rounding of 50 layers,
     * 62 MB in all (docs/model.md, "Weights as loaded") */
    double left = (double)(p.usable_bytes_per_gpu - p.weights_bytes);
    assert_true(fabs(left - 12.6e9) < 0.5e9);
    assert_true(p.weights_bytes_per_gpu > p.weights_bytes + 33554432ull);
    assert_true(p.weights_bytes_per_gpu < p.weights_bytes / 100 * 101);
}

/* The real Llama 4 Scout stores all 16 experts: 108.6e9 parameters with
 * the vision tower, 60.8e9 bytes at AWQ-4 (the text's 59,059,415,040 plus
 * the tower's 871,932,416 parameters kept in BF16, as AWQ checkpoints'
 * modules_to_not_convert leave it), which no 24 GB card holds. */
static void test_plan_seed_scout_does_not_fit(void **state)
{
    (void)state;
    inputs in = setup_inputs("Llama-4-Scout-17B-16E", 23815585792ull);
    in.q.method = KVB_QUANT_AWQ_4;
    in.s.gpu_memory_utilization = 0.9;
    in.s.max_model_len = 32768;
    kvb_plan p = plan(&in);
    assert_int_equal(p.param_count, 108641793536ull);
    assert_int_equal(p.weights_bytes, 59059415040ull + 2 * 871932416ull);
    assert_int_equal(p.verdict, KVB_VERDICT_WEIGHTS_EXCEED);
    assert_false(p.fits);
    assert_non_null(strstr(p.message, "weights need"));
}

/* The seed's V0 message: a KV cache of 1 GiB for Llama-3.1-8B (131072
 * bytes per token) is 512 blocks of 16 tokens = 8192 tokens. */
static void test_plan_seed_value_error_v0(void **state)
{
    (void)state;
    inputs in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    in.s.engine_version = 703;
    in.s.max_model_len = 32768;
    in.s.kv_cache_memory_bytes = GIB;
    kvb_plan p = plan(&in);
    assert_int_equal(p.accounting, KVB_ACCOUNTING_VLLM_V0);
    assert_int_equal(p.num_blocks, 512);
    assert_int_equal(p.max_kv_tokens, 8192);
    assert_int_equal(p.verdict, KVB_VERDICT_MAX_LEN_EXCEEDS_KV);
    assert_int_equal(p.max_model_len_fit, 8192);
    char buf[512];
    engine_text(&p, buf, sizeof buf);
    assert_string_equal(
        buf, "ValueError: The model's max seq len (32768) is larger than the "
             "maximum number of tokens that can be stored in KV cache (8192)."
             " Try increasing `gpu_memory_utilization` or decreasing "
             "`max_model_len` when initializing the engine.");
}

/* Llama-3.1-8B at its full 131072 context needs 131072 x 131072 bytes =
 * 16 GiB for one request (32 layers x 64 KiB pages x 8192 blocks); with a
 * KV budget of 4 GiB the newest line words it with format_gib. */
static void test_plan_value_error_v1(void **state)
{
    (void)state;
    inputs in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    in.s.kv_cache_memory_bytes = 4 * GIB;
    kvb_plan p = plan(&in);
    assert_int_equal(p.max_model_len, 131072);
    assert_int_equal(p.kv_needed_bytes_per_gpu, 16 * GIB);
    assert_int_equal(p.verdict, KVB_VERDICT_MAX_LEN_EXCEEDS_KV);
    assert_int_equal(p.max_model_len_fit, 32768); /* 4 GiB / 128 KiB */
    char buf[1024];
    engine_text(&p, buf, sizeof buf);
    assert_non_null(strstr(buf, "max seq len (131072), (16.0 GiB KV cache "
                                "is needed, which is larger than the "
                                "available KV cache memory (4.0 GiB). Based "
                                "on the available memory, the estimated "
                                "maximum model length is 32768. Try"));
    /* the 0.11 line: "models's", two decimals, a space before "Try" */
    in.s.engine_version = 1100;
    p = plan(&in);
    engine_text(&p, buf, sizeof buf);
    assert_non_null(strstr(buf, "the models's max seq len (131072), (16.00 "
                                "GiB KV cache"));
    assert_non_null(strstr(buf, "length is 32768. Try"));
    /* too small a buffer is reported, and still terminated */
    char tiny[16];
    size_t needed = 0;
    assert_int_equal(
        kvb_plan_engine_error(&p, tiny, sizeof tiny, &needed, NULL),
        KVB_EBUFSIZE);
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
    assert_true(needed > sizeof tiny);
}

static void test_plan_fits(void **state)
{
    (void)state;
    inputs in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    in.s.max_model_len = 8192;
    kvb_plan p = plan(&in);
    assert_int_equal(p.verdict, KVB_VERDICT_FITS);
    assert_true(p.fits);
    assert_int_equal(p.kv_bytes_per_token, 131072);
    assert_int_equal(p.block_bytes_per_gpu, 32 * 65536);
    /* num_blocks is the KV budget in 2 MiB blocks */
    assert_int_equal(p.num_blocks, p.kv_budget_bytes_per_gpu / (2 * MIB));
    /* newest line: KV tokens = int(concurrency x max_model_len) */
    assert_int_equal(p.max_kv_tokens, (uint64_t)(p.max_concurrency * 8192.0));
    assert_true(fabs(p.max_concurrency - (double)p.num_blocks / 512.0) < 1e-9);
    /* the budget adds up */
    assert_int_equal(p.usable_bytes_per_gpu,
                     p.weights_bytes_per_gpu + p.activation_bytes_per_gpu +
                         p.non_torch_bytes_per_gpu + p.cudagraph_bytes_per_gpu +
                         p.kv_budget_bytes_per_gpu);
    assert_true(p.cudagraph_in_budget);
    assert_true(p.gpu_memory_utilization == 0.92);
    char buf[64];
    engine_text(&p, buf, sizeof buf);
    assert_string_equal(buf, "");
}

/* Weights that load but leave nothing: Llama-3.1-8B in BF16 (14.96 GiB)
 * with 0.95 of 16.5 GiB usable (15.68 GiB) and ~1 GiB of activations. */
static void test_plan_no_kv_memory(void **state)
{
    (void)state;
    inputs in = setup_inputs("Llama-3.1-8B", 16 * GIB + 512 * MIB);
    in.s.gpu_memory_utilization = 0.95;
    in.s.max_model_len = 4096;
    kvb_plan p = plan(&in);
    assert_int_equal(p.verdict, KVB_VERDICT_NO_KV_MEMORY);
    assert_int_equal(p.num_blocks, 0);
    assert_int_equal(p.kv_budget_bytes_per_gpu, 0);
    assert_true(p.kv_shortfall_bytes_per_gpu > 0);
    char buf[512];
    engine_text(&p, buf, sizeof buf);
    assert_non_null(strstr(buf, "No available memory for the cache blocks"));
}

static void test_plan_concurrency(void **state)
{
    (void)state;
    inputs in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    in.s.concurrency = 100;
    kvb_plan p = plan(&in);
    assert_int_equal(p.verdict, KVB_VERDICT_CONCURRENCY_EXCEEDS);
    assert_true(p.max_concurrency < 100.0 && p.max_concurrency > 1.0);
    /* the scheduler never runs more than max_num_seqs at once */
    in.s.concurrency = 4;
    in.s.max_num_seqs = 2;
    in.s.max_model_len = 1024;
    p = plan(&in);
    assert_int_equal(p.verdict, KVB_VERDICT_CONCURRENCY_EXCEEDS);
}

static void test_plan_headroom(void **state)
{
    (void)state;
    /* utilization 1.0 asks for more than is free after the CUDA context */
    inputs in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    in.s.gpu_memory_utilization = 1.0;
    in.s.max_model_len = 8192;
    kvb_plan p = plan(&in);
    assert_int_equal(p.verdict, KVB_VERDICT_HEADROOM_TOO_SMALL);
    char buf[512];
    engine_text(&p, buf, sizeof buf);
    assert_non_null(strstr(buf, "on startup is less than desired GPU memory "
                                "utilization (1, 80.00 GiB)"));
    /* issue 13 rule 2: the start-up free-memory check exists from 0.9.1
     * (PR #18974); 0.9.0 starts with utilization 1.0 (eager, so no graph
     * needs room outside the budget) */
    in.s.enforce_eager = 1;
    in.s.engine_version = 900;
    p = plan(&in);
    assert_int_equal(p.verdict, KVB_VERDICT_FITS);
    in.s.engine_version = 901;
    p = plan(&in);
    assert_int_equal(p.verdict, KVB_VERDICT_HEADROOM_TOO_SMALL);
    in.s.enforce_eager = 0;
    /* before 0.21 CUDA graphs are captured outside the budget: 600 MiB
     * left = 400 MiB context + 300 MiB of graphs does not fit */
    in.s.engine_version = 1100;
    in.s.gpu_memory_utilization = 1.0 - 600.0 / (80.0 * 1024.0);
    in.s.cuda_context_bytes = 400 * MIB;
    in.s.cudagraph_bytes = 300 * MIB;
    in.s.activation_bytes = 0;
    p = plan(&in);
    assert_int_equal(p.verdict, KVB_VERDICT_HEADROOM_TOO_SMALL);
    assert_false(p.cudagraph_in_budget);
    /* issue 13 rule 4: the profile's activations are freed before the
     * graphs are captured (empty_cache after memory_profiling), so a 200
     * MiB peak leaves 600 + 200 - 400 - 300 = 100 MiB and the run starts */
    in.s.activation_bytes = 200 * MIB;
    p = plan(&in);
    assert_int_equal(p.verdict, KVB_VERDICT_FITS);
    assert_int_equal(p.headroom_bytes_per_gpu, 100 * MIB);
    in.s.activation_bytes = 0;
    /* --enforce-eager removes the graphs and the problem */
    in.s.enforce_eager = 1;
    p = plan(&in);
    assert_int_equal(p.verdict, KVB_VERDICT_FITS);
    assert_int_equal(p.cudagraph_bytes_per_gpu, 0);
}

static void test_plan_parallelism(void **state)
{
    (void)state;
    inputs in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    in.g.count = 4;
    in.s.tensor_parallel_size = 3; /* 32 heads */
    kvb_plan p = plan(&in);
    assert_int_equal(p.verdict, KVB_VERDICT_PARALLELISM_INVALID);
    assert_non_null(strstr(p.message, "divisible by tensor parallel size"));
    in.s.tensor_parallel_size = 8; /* needs 8 GPUs, 4 present */
    p = plan(&in);
    assert_int_equal(p.verdict, KVB_VERDICT_PARALLELISM_INVALID);
    in.s.tensor_parallel_size = 4;
    p = plan(&in);
    assert_int_equal(p.verdict, KVB_VERDICT_FITS);
    /* 8B in BF16 over 4 GPUs: 16060522496 / 4 per rank, except that the
     * 65 norms of 4096 are replicated: + 3/4 x 65 x 4096 x 2 = 399360.
     * Nothing is padded (128256 is a multiple of 64 x 4).  As loaded, the
     * rank also holds the rotary cache, 131072 positions x 128 x 2 bytes
     * = 33554432; every tensor is a whole number of 2 MiB or shares a 20
     * MiB segment with room to spare, so the allocator adds nothing. */
    assert_int_equal(p.weights_bytes_per_gpu,
                     16060522496ull / 4 + 399360 + 33554432);
    assert_int_equal(p.kv_bytes_per_token_per_gpu, 32768);
    /* AWQ-4 of Qwen3-30B-A3B: expert width 768 / TP 8 = 96 is not a
     * multiple of the group size 128 */
    in = setup_inputs("Qwen3-30B-A3B", 80 * GIB);
    in.g.count = 8;
    in.q.method = KVB_QUANT_AWQ_4;
    in.s.tensor_parallel_size = 8;
    p = plan(&in);
    assert_int_equal(p.verdict, KVB_VERDICT_PARALLELISM_INVALID);
}

/* A reader's exact checkpoint bytes replace the inventory's estimate. */
static void test_plan_exact_weights(void **state)
{
    (void)state;
    inputs in = setup_inputs("Llama-2-7B", 80 * GIB);
    in.s.weights_bytes = 13476839424ull; /* index.json total_size */
    kvb_plan p = plan(&in);
    assert_int_equal(p.weights_bytes, 13476839424ull);
    /* vLLM pads the 32000-row vocabulary to a multiple of 64: no change;
     * the per-GPU share scales by 13476839424 / 13476831232; loaded, it
     * adds the rotary cache, 4096 positions x 128 x 2 bytes = 1048576
     * (every tensor of Llama-2-7B is a whole number of 2 MiB) */
    assert_true(p.weights_bytes_per_gpu >= 13476839424ull + 1048576 - 1 &&
                p.weights_bytes_per_gpu <= 13476839424ull + 1048576 + 1);
}

static void test_plan_bad_inputs(void **state)
{
    (void)state;
    inputs in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    in.s.gpu_memory_utilization = 7;
    assert_int_equal(plan_status(&in, "serving.gpu_memory_utilization"),
                     KVB_ERANGE);
    in.s.gpu_memory_utilization = NAN;
    assert_int_equal(plan_status(&in, "serving.gpu_memory_utilization"),
                     KVB_ERANGE);
    in.s.gpu_memory_utilization = -0.1;
    assert_int_equal(plan_status(&in, "serving.gpu_memory_utilization"),
                     KVB_ERANGE);
    in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    in.s.tensor_parallel_size = 0;
    assert_int_equal(plan_status(&in, "serving.tensor_parallel_size"),
                     KVB_ERANGE);
    in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    in.s.max_model_len = 131073;
    assert_int_equal(plan_status(&in, "serving.max_model_len"), KVB_ERANGE);
    in = setup_inputs("Llama-3.1-8B", 0);
    assert_int_equal(plan_status(&in, "gpu.total_bytes"), KVB_ERANGE);
    in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    in.g.free_bytes = 81 * GIB;
    assert_int_equal(plan_status(&in, "gpu.free_bytes"), KVB_ERANGE);
    in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    in.s.block_size = 4097; /* 0 is the engine's default; 4096 the most */
    assert_int_equal(plan_status(&in, "serving.block_size"), KVB_ERANGE);
    in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    in.s.non_torch_bytes = (uint64_t)1 << 60; /* not KVB_AUTO_BYTES */
    assert_int_equal(plan_status(&in, "serving.non_torch_bytes"), KVB_ERANGE);
    in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    in.s.engine =
        KVB_ENGINE_LAST_; /* every engine id below it may be planned */
    assert_int_equal(plan_status(&in, "serving.engine"), KVB_ERANGE);
    in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    in.m.num_key_value_heads = 5;
    assert_int_equal(plan_status(&in, "model.num_key_value_heads"), KVB_EINVAL);
    in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    in.s.struct_size = 3;
    assert_int_equal(plan_status(&in, "serving"), KVB_EABI);
    /* NULL quant and serving mean their defaults */
    in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    kvb_plan p;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_plan_compute(&in.m, NULL, &in.g, NULL, &p, NULL),
                     KVB_OK);
    assert_int_equal(kvb_plan_compute(NULL, NULL, &in.g, NULL, &p, NULL),
                     KVB_EINVAL);
    assert_int_equal(kvb_plan_compute(&in.m, NULL, &in.g, NULL, NULL, NULL),
                     KVB_EINVAL);
}

/* vllm-log-018 (shared/data/vllm_dev.jsonl): Qwen2.5-0.5B on an 8.00 GiB
 * card at utilization 0.75, V0 (0.7.x-0.8.x), logged weights 0.93 GiB,
 * activation peak 1.44 GiB, 19609 GPU blocks = 313744 tokens.  The plan
 * models the measured terms, so it must land within 10%. */
static void test_plan_real_log_018(void **state)
{
    (void)state;
    inputs in = setup_inputs("Qwen2.5-0.5B", 8 * GIB);
    in.s.engine_version = 703;
    in.s.gpu_memory_utilization = 0.75;
    kvb_plan p = plan(&in);
    assert_int_equal(p.max_num_batched_tokens, 32768);
    assert_true(fabs(KVB__GIB(p.weights_bytes_per_gpu) - 0.93) < 0.01);
    assert_true(fabs(KVB__GIB(p.activation_bytes_per_gpu) - 1.44) < 0.1);
    assert_true(fabs((double)p.max_kv_tokens - 313744.0) / 313744.0 < 0.10);
    assert_int_equal(p.verdict, KVB_VERDICT_FITS);
}

/* vLLM checks max_model_len against the KV cache from 0.2.7 (PR #2163):
 * with 1 GiB of KV, Llama-3.1-8B holds 8192 tokens; at 32768 a 0.2.6
 * engine starts (it hung later on long sequences), 0.2.7 refuses. */
static void test_plan_max_len_check_from_0_2_7(void **state)
{
    (void)state;
    inputs in = setup_inputs("Llama-3.1-8B", 80 * GIB);
    in.s.max_model_len = 32768;
    in.s.kv_cache_memory_bytes = GIB;
    in.s.engine_version = 206;
    kvb_plan p = plan(&in);
    assert_int_equal(p.max_kv_tokens, 8192);
    assert_int_equal(p.verdict, KVB_VERDICT_CONCURRENCY_EXCEEDS);
    in.s.engine_version = 207;
    p = plan(&in);
    assert_int_equal(p.verdict, KVB_VERDICT_MAX_LEN_EXCEEDS_KV);
}

static void test_plan_verdict_names(void **state)
{
    (void)state;
    for (int v = 0; v < KVB_VERDICT_LAST_; v++) {
        assert_non_null(kvb_verdict_name(v));
        assert_non_null(kvb_verdict_reason(v));
    }
    assert_string_equal(kvb_verdict_name(KVB_VERDICT_MAX_LEN_EXCEEDS_KV),
                        "max_model_len_exceeds_kv_cache");
    assert_null(kvb_verdict_name(-1));
    assert_null(kvb_verdict_reason(KVB_VERDICT_LAST_));
}

/* Issue 13 rule 3: from 0.8.0 until V0 was removed, vLLM picks V0 by
 * itself for what V1 cannot run (EngineArgs._is_v1_supported_oracle in
 * vllm/engine/arg_utils.py at 0.8.3/0.8.4 and 0.10): a T4 (compute
 * capability 7.5) or float32; forcing the line (VLLM_USE_V1=1,
 * vllm-v1@X) keeps V1. */
static void test_plan_v0_fallback(void **state)
{
    (void)state;
    inputs in = setup_inputs("Llama-3.2-1B", 15 * GIB);
    in.s.max_model_len = 4096;
    in.s.engine_version = 803;
    kvb_plan p = plan(&in);
    assert_int_equal(p.accounting, KVB_ACCOUNTING_VLLM_V1);
    assert_string_equal(p.warning, "");
    in.g.compute_capability = 75; /* T4 */
    p = plan(&in);
    assert_int_equal(p.accounting, KVB_ACCOUNTING_VLLM_V0);
    assert_non_null(strstr(p.warning, "compute capability below 8.0"));
    in.s.engine_version = 1001; /* still in 0.10.1 */
    assert_int_equal(plan(&in).accounting, KVB_ACCOUNTING_VLLM_V0);
    in.s.engine_version = 1100; /* V0 is gone */
    assert_int_equal(plan(&in).accounting, KVB_ACCOUNTING_VLLM_V1);
    in.s.engine_version = 803;
    in.s.accounting = KVB_ACCOUNTING_VLLM_V1; /* VLLM_USE_V1=1 */
    p = plan(&in);
    assert_int_equal(p.accounting, KVB_ACCOUNTING_VLLM_V1);
    assert_string_equal(p.warning, "");
    in.s.accounting = -1;
    in.g.compute_capability = 80;
    in.q.dtype = KVB_DTYPE_FP32; /* V1_SUPPORTED_DTYPES at 0.8.x */
    assert_int_equal(plan(&in).accounting, KVB_ACCOUNTING_VLLM_V0);
    in.s.engine_version = 1001; /* the dtype check is gone by 0.10 */
    assert_int_equal(plan(&in).accounting, KVB_ACCOUNTING_VLLM_V1);
}

/* Qwen2.5-VL-7B's tower under vLLM (engines/vllm.c, model/vision.c): its
 * 676,550,144 parameters are 2 x 676,550,144 bytes of BF16 weights; with
 * every modality limited to 0 (vLLM >= 0.10.1, PR #22299) the tower is not
 * loaded, before 0.10.1 it still is.  Under TP 2 the split tensors (q/k/v,
 * proj, gate/up/down and the merger's two linears: 674,876,160 parameters)
 * are halved per rank unless --mm-encoder-tp-mode data keeps them whole:
 * 674,876,160 / 2 x 2 bytes more per GPU. */
static void test_plan_vision_tower(void **state)
{
    (void)state;
    inputs in = setup_inputs("Qwen2.5-VL-7B-Instruct", 85520809984ull);
    in.s.max_model_len = 8192;
    kvb_plan full = plan(&in);
    assert_int_equal(full.param_count, 8292166656ull);
    assert_non_null(strstr(full.warning, "vision tower counted"));
    in.s.mm_disabled = KVB_MM_IMAGE; /* videos still allowed: loaded */
    assert_int_equal(plan(&in).weights_bytes, full.weights_bytes);
    in.s.mm_disabled = KVB_MM_IMAGE | KVB_MM_VIDEO;
    kvb_plan text = plan(&in);
    assert_int_equal(full.weights_bytes - text.weights_bytes, 2 * 676550144ull);
    assert_non_null(strstr(text.warning, "text-only mode"));
    in.s.engine_version = 1000; /* 0.10.0: before PR #22299 */
    assert_int_equal(plan(&in).weights_bytes, full.weights_bytes);
    in = setup_inputs("Qwen2.5-VL-7B-Instruct", 85520809984ull);
    in.g = gpu_of(85520809984ull, 2);
    in.s.tensor_parallel_size = 2;
    in.s.max_model_len = 8192;
    kvb_plan split = plan(&in);
    in.s.mm_encoder_tp_mode = 1;
    kvb_plan whole = plan(&in);
    assert_int_equal(whole.weights_bytes_per_gpu - split.weights_bytes_per_gpu,
                     674876160ull);
    assert_non_null(strstr(whole.warning, "--mm-encoder-tp-mode data"));
}

KVB_TESTS(cmocka_unit_test(test_plan_seed_arithmetic),
          cmocka_unit_test(test_plan_vision_tower),
          cmocka_unit_test(test_plan_v0_fallback),
          cmocka_unit_test(test_plan_seed_scout_does_not_fit),
          cmocka_unit_test(test_plan_seed_value_error_v0),
          cmocka_unit_test(test_plan_value_error_v1),
          cmocka_unit_test(test_plan_fits),
          cmocka_unit_test(test_plan_no_kv_memory),
          cmocka_unit_test(test_plan_concurrency),
          cmocka_unit_test(test_plan_headroom),
          cmocka_unit_test(test_plan_parallelism),
          cmocka_unit_test(test_plan_exact_weights),
          cmocka_unit_test(test_plan_bad_inputs),
          cmocka_unit_test(test_plan_real_log_018),
          cmocka_unit_test(test_plan_max_len_check_from_0_2_7),
          cmocka_unit_test(test_plan_verdict_names));
