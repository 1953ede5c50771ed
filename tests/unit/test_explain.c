/*
 * test_explain.c -- the log reader: real vLLM and torch messages (the seed
 * article's two, excerpts of shared/data/vllm_dev.jsonl, public logs),
 * round trips of the library's own engine errors, facts -> inputs, the
 * explanation text, and random bytes.
 *
 * A log prints "x GiB" with two decimals; its bytes are round(x * 2^30).
 */
#include "testing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t gib(double x)
{
    return (int64_t)llround(x * 1073741824.0);
}

static kvb_log_facts parse(const char *text)
{
    kvb_log_facts f;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_LOG_FACTS_INIT(&f), KVB_OK);
    assert_int_equal(kvb_log_parse(text, strlen(text), &f, &e), KVB_OK);
    return f;
}

#define HAS(f, name) KVB_LOG_HAS(&(f), name)

/* ---- the seed article's two messages ---- */

static const char seed_oom[] =
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate "
    "2.00 GiB. GPU 0 has\na total capacity of 23.65 GiB of which 1.12 GiB "
    "is free. Including non-PyTorch memory,\nthis process has 22.53 GiB "
    "memory in use.\n";

static const char seed_max_len[] =
    "ValueError: The model's max seq len (32768) is larger than the maximum "
    "number of tokens\nthat can be stored in KV cache (8192). Try increasing "
    "`gpu_memory_utilization` or\ndecreasing `max_model_len` when "
    "initializing the engine.\n";

static void test_explain_seed_oom(void **state)
{
    (void)state;
    kvb_log_facts f = parse(seed_oom);
    assert_int_equal(f.failure, KVB_LOG_CUDA_OOM);
    assert_int_equal(f.oom_phase, KVB_LOG_PHASE_UNKNOWN);
    /* wrapped over three lines in the article: still one message */
    assert_int_equal(f.oom_tried_bytes, 2 * GIB);
    assert_int_equal(f.gpu_total_bytes, gib(23.65));
    assert_int_equal(f.oom_free_bytes, gib(1.12));
    assert_int_equal(f.oom_in_use_bytes, gib(22.53));
    assert_true(HAS(f, OOM_GPU_INDEX) && f.oom_gpu_index == 0);
    assert_false(HAS(f, MAX_MODEL_LEN));
    assert_string_equal(f.failure_text,
                        "torch.cuda.OutOfMemoryError: CUDA out of memory. "
                        "Tried to allocate 2.00 GiB. GPU 0 has a total "
                        "capacity of 23.65 GiB of which 1.12 GiB is free. "
                        "Including non-PyTorch memory, this process has "
                        "22.53 GiB memory in use.");
}

static void test_explain_seed_max_len(void **state)
{
    (void)state;
    kvb_log_facts f = parse(seed_max_len);
    assert_int_equal(f.failure, KVB_LOG_MAX_LEN_EXCEEDS_KV);
    assert_int_equal(f.max_model_len, 32768);
    assert_int_equal(f.kv_cache_tokens, 8192);
    /* this wording is V0's raise_if_cache_size_invalid (engines.md 1.3) */
    assert_int_equal(f.accounting, KVB_ACCOUNTING_VLLM_V0);
    assert_true(HAS(f, ACCOUNTING));
}

/* The torch wording before 2.1 (same figures). */
static void test_explain_old_torch_oom(void **state)
{
    (void)state;
    kvb_log_facts f = parse(
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 1; "
        "23.65 GiB total capacity; 20.10 GiB already allocated; 1.12 GiB "
        "free; 21.00 GiB reserved in total by PyTorch)");
    assert_int_equal(f.failure, KVB_LOG_CUDA_OOM);
    assert_int_equal(f.gpu_total_bytes, gib(23.65));
    assert_int_equal(f.oom_free_bytes, gib(1.12));
    assert_int_equal(f.oom_in_use_bytes, gib(21.00));
    assert_int_equal(f.oom_gpu_index, 1);
}

/* ---- excerpts of shared/data/vllm_dev.jsonl (log_excerpt, verbatim) ---- */

static void test_explain_vllm_log_002(void **state)
{
    (void)state;
    kvb_log_facts f =
        parse("total_gpu_memory 79.22GiB | gpu_memory_utilization 0.90 | the "
              "current vLLM instance can use 71.29GiB | model weights take "
              "14.96GiB | non_torch_memory 1.79GiB | PyTorch activation peak "
              "memory 1.26GiB | available_kv_cache_memory 53.29GiB");
    assert_int_equal(f.failure, KVB_LOG_NONE);
    /* vllm_dev.jsonl: gpu_total_bytes 85061827297 */
    assert_int_equal(f.gpu_total_bytes, 85061827297ull);
    assert_true(f.gpu_memory_utilization == 0.90);
    assert_int_equal(f.requested_bytes, gib(71.29));
    assert_int_equal(f.weights_bytes, gib(14.96));
    assert_int_equal(f.non_torch_bytes, gib(1.79));
    assert_int_equal(f.activation_bytes, gib(1.26));
    assert_int_equal(f.kv_cache_bytes, gib(53.29));
    assert_int_equal(f.accounting, KVB_ACCOUNTING_VLLM_V0);
}

static void test_explain_vllm_log_006(void **state)
{
    (void)state;
    kvb_log_facts f = parse(
        "Loading model weights took 5.2032 GB | total_gpu_memory (8.00GiB) x "
        "gpu_memory_utilization (0.70) = 5.60GiB | model weights take "
        "5.20GiB; non_torch_memory takes 0.03GiB; PyTorch activation peak "
        "memory takes 1.42GiB; the rest of the memory reserved for KV Cache "
        "is -1.05GiB. | # cuda blocks: 0, # CPU blocks: 4681 | Maximum "
        "concurrency for 4096 tokens per request: 0.00x");
    /* outcome no_kv_memory: 0 blocks, although the error line is cut off */
    assert_int_equal(f.failure, KVB_LOG_NO_KV_MEMORY);
    assert_int_equal(f.gpu_total_bytes, 8 * GIB);
    assert_true(f.gpu_memory_utilization == 0.70);
    assert_int_equal(f.requested_bytes, gib(5.60));
    assert_int_equal(f.weights_bytes, gib(5.20)); /* the 2-decimal line */
    assert_int_equal(f.non_torch_bytes, gib(0.03));
    assert_int_equal(f.activation_bytes, gib(1.42));
    assert_int_equal(f.kv_cache_bytes, gib(-1.05));
    assert_int_equal(f.gpu_blocks, 0);
    assert_int_equal(f.cpu_blocks, 4681);
    assert_int_equal(f.max_model_len, 4096);
    assert_true(f.max_concurrency == 0.0 && HAS(f, MAX_CONCURRENCY));
    assert_string_equal(f.failure_text, "");
}

static void test_explain_vllm_log_007(void **state)
{
    (void)state;
    kvb_log_facts f = parse(
        "Loading model weights took 13.9476 GB | non_torch_memory takes "
        "0.25GiB; PyTorch activation peak memory takes 0.19GiB; the rest of "
        "the memory reserved for KV Cache is 8.69GiB | ValueError: The "
        "model's max seq len (131072) is larger than the maximum number of "
        "tokens that can be stored in KV cache (81536)");
    assert_int_equal(f.failure, KVB_LOG_MAX_LEN_EXCEEDS_KV);
    assert_int_equal(f.max_model_len, 131072);
    assert_int_equal(f.kv_cache_tokens, 81536);
    /* vLLM printed GiB under a "GB" label (vllm_dev.md) */
    assert_int_equal(f.weights_bytes, gib(13.9476));
    assert_int_equal(f.kv_cache_bytes, gib(8.69));
}

static void test_explain_vllm_log_028_030(void **state)
{
    (void)state;
    kvb_log_facts f = parse("model_runner.py:90] Loading model weights took "
                            "244.61 MB | llm_engine.py:338] # GPU blocks: "
                            "76240, # CPU blocks: 7281");
    assert_int_equal(f.weights_bytes, (uint64_t)llround(244.61 * 1048576.0));
    assert_int_equal(f.gpu_blocks, 76240);
    assert_int_equal(f.cpu_blocks, 7281);
    assert_int_equal(f.kv_cache_tokens, 76240 * 16); /* default block 16 */
    f = parse("vLLM 0.2.3: # GPU blocks: 1464, # CPU blocks: 1310 | vLLM "
              "0.2.4: # GPU blocks: 1464, # CPU blocks: 1310");
    assert_int_equal(f.engine_version, 204); /* the last one printed */
    assert_int_equal(f.gpu_blocks, 1464);
    assert_int_equal(f.failure, KVB_LOG_NONE);
}

static void test_explain_vllm_v1_excerpts(void **state)
{
    (void)state;
    kvb_log_facts f =
        parse("Available KV cache memory: 12.22 GiB | GPU KV cache size: "
              "534,064 tokens | Maximum concurrency for 262,144 tokens per "
              "request: 2.04x | nvidia-smi 22457MiB / 24564MiB");
    assert_int_equal(f.kv_cache_bytes, gib(12.22));
    assert_int_equal(f.kv_cache_tokens, 534064);
    assert_true(f.max_concurrency == 2.04);
    assert_int_equal(f.max_model_len, 262144);
    assert_int_equal(f.accounting, KVB_ACCOUNTING_VLLM_V1);
    assert_int_equal(f.failure, KVB_LOG_NONE);
    f = parse("non-default args: {'model': 'openai/gpt-oss-20b', "
              "'max_model_len': 131072, 'gpu_memory_utilization': 0.65} | "
              "Model loading took 13.72 GiB memory and 62.336108 seconds | "
              "Available KV cache memory: 36.56 GiB");
    assert_string_equal(f.model, "openai/gpt-oss-20b");
    assert_int_equal(f.max_model_len, 131072);
    assert_true(f.gpu_memory_utilization == 0.65);
    assert_int_equal(f.weights_bytes, gib(13.72));
    assert_int_equal(f.kv_cache_bytes, gib(36.56));
}

static void test_explain_v0_config_line(void **state)
{
    (void)state;
    kvb_log_facts f = parse(
        "Initializing an LLM engine (v0.6.4.post1) with config: "
        "model='mistralai/Mistral-7B-v0.1', speculative_config=None, "
        "tokenizer='mistralai/Mistral-7B-v0.1', dtype=torch.bfloat16, "
        "max_seq_len=32768, tensor_parallel_size=1, pipeline_parallel_size=1, "
        "quantization=None, enforce_eager=False, kv_cache_dtype=auto, "
        "served_model_name=other ... ValueError: No available memory for the "
        "cache blocks.");
    assert_int_equal(f.failure, KVB_LOG_NO_KV_MEMORY);
    assert_string_equal(f.model, "mistralai/Mistral-7B-v0.1");
    assert_string_equal(f.dtype, "bfloat16");
    assert_string_equal(f.kv_cache_dtype, "auto");
    assert_string_equal(f.quantization, "None");
    assert_int_equal(f.max_model_len, 32768);
    assert_int_equal(f.tensor_parallel_size, 1);
    assert_true(HAS(f, ENFORCE_EAGER) && f.enforce_eager == 0);
    assert_int_equal(f.engine_version, 604);
    assert_int_equal(f.accounting, KVB_ACCOUNTING_VLLM_V0);
    assert_string_equal(f.failure_text,
                        "ValueError: No available memory for the cache "
                        "blocks.");
}

/* vLLM 0.21+ start-up lines, as printed on an H100 (public log). */
static void test_explain_v1_021_lines(void **state)
{
    (void)state;
    kvb_log_facts f = parse(
        "(EngineCore pid=326) INFO 10-06 17:00:11 [model_runner.py:407] "
        "Model loading took 15.0 GiB memory and 5.420225 seconds\n"
        "(EngineCore pid=326) INFO 10-06 17:00:33 [kv_cache_utils.py:2464] "
        "GPU KV cache size: 460,496 tokens, Maximum concurrency for 131,072 "
        "tokens per request: 3.51x\n"
        "(EngineCore pid=326) INFO 10-06 17:00:41 [gpu_worker.py:955] Free "
        "memory on device (78.84/79.25 GiB) on startup. Desired GPU memory "
        "utilization is (0.92, 72.91 GiB). Actual usage is 15.26 GiB for "
        "consumed memory (weights + non-torch), 1.44 GiB for peak "
        "activation, and 0.23 GiB for CUDAGraph memory.\n");
    assert_int_equal(f.failure, KVB_LOG_NONE);
    assert_int_equal(f.accounting, KVB_ACCOUNTING_VLLM_V1_021);
    assert_int_equal(f.startup_free_bytes, gib(78.84));
    assert_int_equal(f.gpu_total_bytes, gib(79.25));
    assert_true(f.gpu_memory_utilization == 0.92);
    assert_int_equal(f.requested_bytes, gib(72.91));
    assert_int_equal(f.weights_bytes, gib(15.0));
    assert_int_equal(f.consumed_bytes, gib(15.26));
    /* non-torch = consumed - weights */
    assert_int_equal(f.non_torch_bytes, gib(15.26) - gib(15.0));
    assert_int_equal(f.activation_bytes, gib(1.44));
    assert_int_equal(f.cudagraph_bytes, gib(0.23));
    assert_int_equal(f.kv_cache_tokens, 460496);
    assert_true(f.max_concurrency == 3.51);
    assert_int_equal(f.max_model_len, 131072);
}

static void test_explain_v1_older_usage_line(void **state)
{
    (void)state;
    kvb_log_facts f = parse(
        "Graph capturing finished in 1 secs, took 0.40 GiB\n[gpu_worker.py:"
        "857] Free memory on device (15.32/15.55 GiB) on startup. Desired GPU "
        "memory utilization is (0.9, 13.99 GiB). Actual usage is 0.93 GiB "
        "for weight, 1.06 GiB for peak activation, 0.07 GiB for non-torch "
        "memory, and 0.4 GiB for CUDAGraph memory.");
    assert_int_equal(f.weights_bytes, gib(0.93));
    assert_int_equal(f.activation_bytes, gib(1.06));
    assert_int_equal(f.non_torch_bytes, gib(0.07));
    assert_int_equal(f.cudagraph_bytes, gib(0.40));
    assert_int_equal(f.gpu_total_bytes, gib(15.55));
    assert_int_equal(f.requested_bytes, gib(13.99));
    /* a negative graph estimate (llm-d's H100 runs logged -0.42 GiB) */
    f = parse("Actual usage is 33.88 GiB for weight, 4.84 GiB for peak "
              "activation, 0.55 GiB for non-torch memory, and -0.42 GiB for "
              "CUDAGraph memory.");
    assert_int_equal(f.cudagraph_bytes, gib(-0.42));
}

static void test_explain_startup_free_error(void **state)
{
    (void)state;
    kvb_log_facts f = parse(
        "ValueError: Free memory on device cuda:0 (10.50/22.06 GiB) on "
        "startup is less than desired GPU memory utilization (0.9, 19.85 "
        "GiB). Decrease GPU memory utilization or reduce GPU memory used by "
        "other processes.");
    assert_int_equal(f.failure, KVB_LOG_STARTUP_FREE_MEMORY);
    assert_int_equal(f.startup_free_bytes, gib(10.50));
    assert_int_equal(f.gpu_total_bytes, gib(22.06));
}

/* ---- OOM phases ---- */

static void test_explain_oom_phases(void **state)
{
    (void)state;
    static const struct {
        const char *before;
        int32_t phase;
    } cases[] = {
        {"Starting to load model meta-llama/Llama-3.1-8B...",
         KVB_LOG_PHASE_LOADING},
        {"Loading model weights took 14.99 GiB", KVB_LOG_PHASE_PROFILE},
        {"# GPU blocks: 2000, # CPU blocks: 100", KVB_LOG_PHASE_CUDA_GRAPHS},
        {"Capturing cudagraphs for decoding.", KVB_LOG_PHASE_CUDA_GRAPHS},
        {"INFO: Uvicorn running on http://0.0.0.0:8000", KVB_LOG_PHASE_SERVING},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "%s\n%s", cases[i].before, seed_oom);
        kvb_log_facts f = parse(text);
        assert_int_equal(f.failure, KVB_LOG_CUDA_OOM);
        assert_int_equal(f.oom_phase, cases[i].phase);
    }
}

/* ---- the library's own engine errors read back ---- */

static kvb_plan plan_of(const char *model, uint64_t total, uint32_t version,
                        uint64_t mml, uint64_t kv_bytes, uint64_t free_bytes)
{
    kvb_model m = preset_model(model);
    kvb_gpu g = gpu_of(total, 1);
    kvb_serving s = serving_default();
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    g.free_bytes = free_bytes;
    s.engine_version = version;
    s.max_model_len = mml;
    s.kv_cache_memory_bytes = kv_bytes;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_plan_compute(&m, NULL, &g, &s, &p, &e), KVB_OK);
    return p;
}

static kvb_log_facts facts_of_error(const kvb_plan *p)
{
    char text[1024];
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_plan_engine_error(p, text, sizeof text, NULL, &e),
                     KVB_OK);
    return parse(text);
}

static void test_explain_reads_engine_errors(void **state)
{
    (void)state;
    /* newest wording: 2 GiB of KV holds 16384 tokens of Llama-3.1-8B */
    kvb_plan p = plan_of("Llama-3.1-8B", 80 * GIB, 0, 131072, 2 * GIB, 0);
    assert_int_equal(p.verdict, KVB_VERDICT_MAX_LEN_EXCEEDS_KV);
    kvb_log_facts f = facts_of_error(&p);
    assert_int_equal(f.failure, KVB_LOG_MAX_LEN_EXCEEDS_KV);
    assert_int_equal(f.max_model_len, 131072);
    assert_int_equal(f.estimated_max_model_len, p.max_model_len_fit);
    assert_int_equal(f.estimated_max_model_len, 2 * GIB / 131072);
    assert_int_equal(f.kv_cache_bytes, 2 * GIB);
    assert_int_equal(f.kv_needed_bytes, 16 * GIB); /* 131072 x 128 KiB */
    assert_int_equal(f.accounting, KVB_ACCOUNTING_VLLM_V1_021);
    /* 0.11 wording ("models's") */
    p = plan_of("Llama-3.1-8B", 80 * GIB, 1100, 131072, 2 * GIB, 0);
    f = facts_of_error(&p);
    assert_int_equal(f.failure, KVB_LOG_MAX_LEN_EXCEEDS_KV);
    assert_int_equal(f.accounting, KVB_ACCOUNTING_VLLM_V1);
    assert_int_equal(f.estimated_max_model_len, 16384);
    /* V0 wording: block_size x (num_blocks // pp) tokens */
    p = plan_of("Llama-3.1-8B", 80 * GIB, 700, 131072, 2 * GIB, 0);
    f = facts_of_error(&p);
    assert_int_equal(f.kv_cache_tokens, 16 * p.num_blocks);
    assert_int_equal(f.kv_cache_tokens, 16384);
    /* start-up free memory below the utilization's request */
    p = plan_of("Qwen2.5-0.5B", 24 * GIB, 0, 4096, 0, 10 * GIB);
    assert_int_equal(p.verdict, KVB_VERDICT_HEADROOM_TOO_SMALL);
    f = facts_of_error(&p);
    assert_int_equal(f.failure, KVB_LOG_STARTUP_FREE_MEMORY);
    assert_int_equal(f.startup_free_bytes, 10 * GIB);
    assert_int_equal(f.gpu_total_bytes, 24 * GIB);
    /* weights that do not load: an OOM */
    p = plan_of("Llama-3.1-70B", 24 * GIB, 0, 4096, 0, 0);
    f = facts_of_error(&p);
    assert_int_equal(f.failure, KVB_LOG_CUDA_OOM);
}

/* ---- facts -> inputs ---- */

static void test_explain_inputs(void **state)
{
    (void)state;
    kvb_log_facts f = parse(
        "non-default args: {'model': 'openai/gpt-oss-20b', 'max_model_len': "
        "131072, 'gpu_memory_utilization': 0.65} | Model loading took 13.72 "
        "GiB memory and 62.336108 seconds | Available KV cache memory: "
        "36.56 GiB");
    kvb_model m;
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
    uint32_t known = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_MODEL_INIT(&m) | KVB_QUANT_INIT(&q) |
                         KVB_GPU_INIT(&g) | KVB_SERVING_INIT(&s),
                     KVB_OK);
    assert_int_equal(kvb_log_inputs(&f, &m, &q, &g, &s, &known, &e), KVB_OK);
    assert_int_equal(known, KVB_LOG_KNOWN_MODEL | KVB_LOG_KNOWN_SERVING);
    assert_string_equal(m.name, "gpt-oss-20b");
    assert_int_equal(s.max_model_len, 131072);
    assert_true(s.gpu_memory_utilization == 0.65);
    /* measured on one GPU: replaces the modelled load overhead too */
    assert_int_equal(s.loaded_weights_bytes, gib(13.72));
    assert_int_equal(s.weights_bytes, 0);
    assert_int_equal(s.engine_version, 1100); /* V1 wording, no version */
    assert_int_equal(s.non_torch_bytes, KVB_AUTO_BYTES); /* not logged */
}

static void test_explain_inputs_names(void **state)
{
    (void)state;
    static const struct {
        const char *logged, *preset;
        int32_t method;
    } cases[] = {
        {"meta-llama/Llama-3.1-8B-Instruct", "Llama-3.1-8B", KVB_QUANT_AUTO},
        {"Qwen/Qwen3-235B-A22B-FP8", "Qwen3-235B-A22B", KVB_QUANT_FP8},
        {"TheBloke/Llama-2-7B-AWQ", "Llama-2-7B", KVB_QUANT_AWQ_4},
        {"Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "Qwen2.5-7B", KVB_QUANT_GPTQ_8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text,
                 "vllm serve %s --max-model-len 4096 "
                 "--tensor-parallel-size 2",
                 cases[i].logged);
        kvb_log_facts f = parse(text);
        kvb_model m;
        kvb_quant q;
        kvb_gpu g;
        kvb_serving s;
        uint32_t known = 0;
        assert_int_equal(KVB_MODEL_INIT(&m) | KVB_QUANT_INIT(&q) |
                             KVB_GPU_INIT(&g) | KVB_SERVING_INIT(&s),
                         KVB_OK);
        assert_int_equal(kvb_log_inputs(&f, &m, &q, &g, &s, &known, NULL),
                         KVB_OK);
        assert_true(known & KVB_LOG_KNOWN_MODEL);
        assert_string_equal(m.name, cases[i].preset);
        assert_int_equal(q.method, cases[i].method);
        assert_int_equal(s.tensor_parallel_size, 2);
        assert_int_equal(g.count, 2); /* at least TP x PP GPUs */
    }
}

static void test_explain_inputs_gpu(void **state)
{
    (void)state;
    kvb_log_facts f = parse(seed_oom);
    kvb_model m;
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
    uint32_t known = 0;
    assert_int_equal(KVB_MODEL_INIT(&m) | KVB_QUANT_INIT(&q) |
                         KVB_GPU_INIT(&g) | KVB_SERVING_INIT(&s),
                     KVB_OK);
    assert_int_equal(kvb_log_inputs(&f, &m, &q, &g, &s, &known, NULL), KVB_OK);
    assert_int_equal(known, KVB_LOG_KNOWN_GPU);
    assert_int_equal(g.total_bytes, gib(23.65));
    /* nvidia-smi names the GPU: the preset's SMs come along */
    f = parse("| 0  NVIDIA A10G  | 00000000:00:1E.0 | 24576MiB / 24576MiB |");
    assert_string_equal(f.gpu_name, "NVIDIA A10G");
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    assert_int_equal(kvb_log_inputs(&f, &m, &q, &g, &s, &known, NULL), KVB_OK);
    assert_true(known & KVB_LOG_KNOWN_GPU);
    assert_string_equal(g.name, "A10G");
}

/* ---- the explanation ---- */

static char *explain(const char *log, char *buf, size_t cap)
{
    kvb_log_facts f = parse(log);
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_log_explain(&f, buf, cap, NULL, &e), KVB_OK);
    return buf;
}

static void test_explain_text(void **state)
{
    (void)state;
    char buf[4096];
    /* no version in the log: vLLM's newest default 0.92;
     * (0.92 x 23.65 - 2.00) / 23.65 = 0.835: 0.83 frees the failed 2 GiB */
    assert_non_null(strstr(explain(seed_oom, buf, sizeof buf),
                           "lower --gpu-memory-utilization to 0.83 or less"));
    assert_non_null(strstr(buf, "This process held 22.53 GiB (95% of the "
                                "GPU)."));
    assert_non_null(strstr(explain(seed_max_len, buf, sizeof buf),
                           "lower --max-model-len to 8192"));
    assert_non_null(strstr(buf, "give the KV cache 4.0x its memory"));
    assert_non_null(
        strstr(explain("nothing here", buf, sizeof buf), "Nothing recognised"));
    /* 81536 tokens: the largest multiple of 1024 below is 80896 */
    assert_non_null(
        strstr(explain("The model's max seq len (131072) is larger than the "
                       "maximum number of tokens that can be stored in KV "
                       "cache (81536)",
                       buf, sizeof buf),
               "lower --max-model-len to 80896"));
}

static void test_explain_text_buffer(void **state)
{
    (void)state;
    kvb_log_facts f = parse(seed_oom);
    char small[16];
    size_t needed = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_log_explain(&f, small, sizeof small, &needed, &e),
                     KVB_EBUFSIZE);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_true(needed > sizeof small);
    char *big = malloc(needed);
    assert_non_null(big);
    assert_int_equal(kvb_log_explain(&f, big, needed, NULL, &e), KVB_OK);
    assert_int_equal(strlen(big) + 1, needed);
    free(big);
    assert_int_equal(kvb_log_explain(&f, NULL, 0, &needed, &e), KVB_EBUFSIZE);
    assert_int_equal(kvb_log_explain(&f, NULL, 8, NULL, &e), KVB_EINVAL);
}

/* ---- bad arguments, names ---- */

static void test_explain_bad_args(void **state)
{
    (void)state;
    kvb_log_facts f;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_LOG_FACTS_INIT(&f), KVB_OK);
    assert_int_equal(f.accounting, -1);
    assert_int_equal(kvb_log_parse(NULL, 5, &f, &e), KVB_EINVAL);
    assert_string_equal(e.field, "text");
    assert_int_equal(kvb_log_parse("x", KVB_LOG_MAX_BYTES + 1, &f, &e),
                     KVB_ELIMIT);
    assert_string_equal(e.field, "len");
    assert_int_equal(kvb_log_parse(NULL, 0, &f, &e), KVB_OK);
    assert_int_equal(f.present, 0);
    f.struct_size = 8;
    assert_int_equal(kvb_log_parse("x", 1, &f, &e), KVB_EABI);
    assert_int_equal(kvb_log_parse("x", 1, NULL, &e), KVB_EINVAL);
    assert_int_equal(kvb_log_facts_init(&f, 3), KVB_EABI);
    assert_int_equal(kvb_log_facts_init(NULL, sizeof f), KVB_EINVAL);
}

static void test_explain_names(void **state)
{
    (void)state;
    for (int i = 0; i < KVB_LOG_FAILURE_LAST_; i++) {
        assert_non_null(kvb_log_failure_name(i));
        assert_non_null(kvb_log_failure_reason(i));
    }
    assert_null(kvb_log_failure_name(KVB_LOG_FAILURE_LAST_));
    assert_null(kvb_log_failure_reason(-1));
    /* the failures a plan can also give share its verdict codes */
    assert_string_equal(kvb_log_failure_name(KVB_LOG_MAX_LEN_EXCEEDS_KV),
                        kvb_verdict_name(KVB_VERDICT_MAX_LEN_EXCEEDS_KV));
    assert_string_equal(kvb_log_failure_name(KVB_LOG_NO_KV_MEMORY),
                        kvb_verdict_name(KVB_VERDICT_NO_KV_MEMORY));
    for (int i = 0; i < KVB_LOG_PHASE_LAST_; i++)
        assert_non_null(kvb_log_phase_name(i));
    assert_null(kvb_log_phase_name(KVB_LOG_PHASE_LAST_));
    for (int b = 0; b < KVB_LOG_BIT_LAST_; b++)
        assert_non_null(kvb_log_fact_name(b));
    assert_null(kvb_log_fact_name(KVB_LOG_BIT_LAST_));
    assert_string_equal(kvb_log_fact_name(KVB_LOG_BIT_WEIGHTS_BYTES),
                        "weights_bytes");
    assert_true(KVB_LOG_BIT_LAST_ <= 64);
}

/* ---- hostile input ---- */

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Exactly `len` bytes on the heap (no NUL after them), parsed. */
static kvb_log_facts parse_bytes(const char *bytes, size_t len)
{
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, bytes, len);
    kvb_log_facts f;
    assert_int_equal(KVB_LOG_FACTS_INIT(&f), KVB_OK);
    assert_int_equal(kvb_log_parse(copy, len, &f, NULL), KVB_OK);
    free(copy);
    assert_true(memchr(f.model, 0, sizeof f.model) != NULL);
    assert_true(memchr(f.failure_text, 0, sizeof f.failure_text) != NULL);
    assert_true(memchr(f.engine_line, 0, sizeof f.engine_line) != NULL);
    assert_true(f.failure >= 0 && f.failure < KVB_LOG_FAILURE_LAST_);
    return f;
}

static void test_explain_random_bytes(void **state)
{
    (void)state;
    uint32_t seed = 12345;
    char buf[8192];
    for (int round = 0; round < 300; round++) {
        size_t len = lcg(&seed) % sizeof buf;
        for (size_t i = 0; i < len; i++)
            buf[i] = (char)(lcg(&seed) & 0xff);
        (void)parse_bytes(buf, len);
    }
}

/* Random sequences of real fragments: every matcher, cut anywhere. */
static void test_explain_random_fragments(void **state)
{
    (void)state;
    static const char *const parts[] = {
        "Tried to allocate ",
        "2.00 ",
        "GiB",
        "GB",
        ". GPU ",
        "0 has ",
        "a total capacity of ",
        " of which ",
        "is free",
        "this process has ",
        "max seq len (",
        "32768",
        ")",
        ", (",
        "is larger than the maximum "
        "number of tokens that can be stored in KV cache (",
        "maximum model length is ",
        "# GPU blocks: ",
        "1,234",
        "-1.05",
        "Free memory on device",
        " (",
        "/",
        "Desired GPU memory utilization "
        "is (",
        "0.9",
        ", ",
        "Actual usage is ",
        " for weight",
        " for "
        "CUDAGraph memory",
        "model=",
        "'",
        "--max-model-len ",
        "vllm serve ",
        "vLLM API server version ",
        "v",
        "NVIDIA ",
        "\033[31m",
        "\n",
        "\0",
        "Maximum concurrency for ",
        " tokens per request: ",
        "x",
        "CUDA out of memory",
        "Error: ",
        "99999999999999999999999999999",
        "instance can use ",
        " = ",
        "Graph capturing finished",
        ", took ",
        "total_gpu_memory",
        "reserved for KV Cache is ",
    };
    uint32_t seed = 777;
    char buf[4096];
    for (int round = 0; round < 2000; round++) {
        size_t len = 0, n = 1 + lcg(&seed) % 40;
        for (size_t i = 0; i < n; i++) {
            const char *p =
                parts[lcg(&seed) % (sizeof parts / sizeof parts[0])];
            size_t k = strlen(p);
            if (!k)
                k = 1; /* the NUL byte part */
            if (len + k > sizeof buf)
                break;
            memcpy(buf + len, p, k);
            len += k;
        }
        size_t cut = len ? lcg(&seed) % (len + 1) : 0;
        (void)parse_bytes(buf, cut);
    }
}

static void test_explain_escapes_and_crlf(void **state)
{
    (void)state;
    const char text[] = "\033[1;31mtorch.OutOfMemoryError\033[0m: CUDA out "
                        "of memory. Tried to allocate\r\n 512.00 MiB.\0 GPU "
                        "3 has a total capacity of 79.19 GiB of which 0 "
                        "bytes is free.";
    kvb_log_facts f = parse_bytes(text, sizeof text - 1);
    assert_int_equal(f.failure, KVB_LOG_CUDA_OOM);
    assert_int_equal(f.oom_tried_bytes, 512 * MIB);
    assert_int_equal(f.gpu_total_bytes, gib(79.19));
    assert_int_equal(f.oom_gpu_index, 3);
    /* "0 bytes" has no unit kvb reads: no free figure rather than a wrong
     * one */
    assert_false(HAS(f, OOM_FREE_BYTES));
}

KVB_TESTS(cmocka_unit_test(test_explain_seed_oom),
          cmocka_unit_test(test_explain_seed_max_len),
          cmocka_unit_test(test_explain_old_torch_oom),
          cmocka_unit_test(test_explain_vllm_log_002),
          cmocka_unit_test(test_explain_vllm_log_006),
          cmocka_unit_test(test_explain_vllm_log_007),
          cmocka_unit_test(test_explain_vllm_log_028_030),
          cmocka_unit_test(test_explain_vllm_v1_excerpts),
          cmocka_unit_test(test_explain_v0_config_line),
          cmocka_unit_test(test_explain_v1_021_lines),
          cmocka_unit_test(test_explain_v1_older_usage_line),
          cmocka_unit_test(test_explain_startup_free_error),
          cmocka_unit_test(test_explain_oom_phases),
          cmocka_unit_test(test_explain_reads_engine_errors),
          cmocka_unit_test(test_explain_inputs),
          cmocka_unit_test(test_explain_inputs_names),
          cmocka_unit_test(test_explain_inputs_gpu),
          cmocka_unit_test(test_explain_text),
          cmocka_unit_test(test_explain_text_buffer),
          cmocka_unit_test(test_explain_bad_args),
          cmocka_unit_test(test_explain_names),
          cmocka_unit_test(test_explain_random_bytes),
          cmocka_unit_test(test_explain_random_fragments),
          cmocka_unit_test(test_explain_escapes_and_crlf));
