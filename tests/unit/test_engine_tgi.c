/*
 * test_engine_tgi.c -- Hugging Face TGI: real start-up logs planned with
 * their own settings (tests/fidelity/data/engines/tgi.jsonl), the warm-up
 * block math of each release line, the launcher's defaults, verdicts,
 * command lines, log lines and fixes rendered as launcher flags.
 */
#include "testing.h"

#include <math.h>
#include <string.h>

static kvb_gpu preset_gpu(const char *name, uint32_t count)
{
    kvb_gpu g;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    if (kvb_preset_gpu_find(name, &g, &e) != KVB_OK)
        fail_msg("gpu %s: %s", name, e.message);
    g.count = count;
    return g;
}

static kvb_serving tgi(const char *spec)
{
    kvb_serving s = serving_default();
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_engine_parse(spec, &s.engine, &s.engine_version, &e),
                     KVB_OK);
    return s;
}

static kvb_plan plan(const kvb_model *m, const kvb_quant *q, const kvb_gpu *g,
                     const kvb_serving *s)
{
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    if (kvb_plan_compute(m, q, g, s, &p, &e) != KVB_OK)
        fail_msg("plan: %s", e.message);
    assert_int_equal(p.engine, KVB_ENGINE_TGI);
    assert_int_equal(p.accounting, KVB_ACCOUNTING_TGI);
    return p;
}

static double err_of(const kvb_plan *p, uint64_t logged, const char *id)
{
    double e = ((double)p->max_total_tokens - (double)logged) / (double)logged;
    print_message("%s: %llu tokens, logged %llu, error %+.2f%%\n", id,
                  (unsigned long long)p->max_total_tokens,
                  (unsigned long long)logged, 100 * e);
    return e;
}

/*
 * tgi-log-005 (huggingface/text-generation-inference#653, 0.9.x, the
 * first line that infers the batch total: planned as 0.9.4, PR #659):
 * Llama-2-7b fp16 on one A10G, defaults, "max batch total tokens to
 * 16224" (the reporter's sentence).  tgi-log-001 (#2744, 2024-11-13, so
 * v2.4.0: its "Default `max_batch_prefill_tokens` to 10049" is 2.4.0's
 * max_input_tokens + 50, and "Using optimized Triton indexing kernels"
 * first appears in v2.4.0): Llama-3.1-70B on 2 x A100 80GB, 30816, with
 * --max-input-tokens 9999 inferred and --max-total-tokens 10000 assumed.
 * It is a known miss (docs/engines/tgi.md): its bound is the present
 * error.  tgi-log-007 (#832, a screenshot) is no longer planned: its
 * figure leaves 16 GiB per GPU unexplained at the stated settings.
 */
static void test_tgi_records(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-2-7B");
    kvb_quant q = quant_of(KVB_QUANT_FP16);
    kvb_gpu g = preset_gpu("A10G", 1);
    kvb_serving s = tgi("tgi@0.9.4");
    kvb_plan p = plan(&m, &q, &g, &s);
    assert_int_equal(p.block_size, 16);
    assert_int_equal(p.max_num_batched_tokens, 4096);
    assert_int_equal(p.max_model_len, 2048);
    double e005 = err_of(&p, 16224, "tgi-log-005");
    assert_true(fabs(e005) <= 0.05);

    m = preset_model("Llama-3.1-70B");
    q = quant_of(KVB_QUANT_AUTO);
    g = preset_gpu("A100-80GB", 2);
    s = tgi("tgi@2.4.0");
    s.tensor_parallel_size = 2;
    s.max_num_batched_tokens = 10049;
    s.max_input_tokens = 9999;
    s.max_model_len = 10000;
    p = plan(&m, &q, &g, &s);
    assert_int_equal(p.block_size, 1); /* flashinfer */
    double e001 = err_of(&p, 30816, "tgi-log-001");
    assert_true(fabs(e001) <= 0.32);

    /* tgi-log-011 (a 2.2.0 EC2 walkthrough): Llama-3.1-8B on one A10G,
     * every memory flag at its default, 19056 logged.  A known miss: the
     * same walkthrough's nvidia-smi shows the TGI process at 19880 MiB
     * after start, about 1.7 GiB above weights + KV + the modelled
     * context, an overhead outside the warm-up rule (RULES_NOTES.md); its
     * bound is the present error. */
    m = preset_model("Llama-3.1-8B");
    g = preset_gpu("A10G", 1);
    s = tgi("tgi@2.2.0");
    p = plan(&m, &q, &g, &s);
    assert_int_equal(p.max_num_batched_tokens, 4145);
    double e011 = err_of(&p, 19056, "tgi-log-011");
    assert_true(fabs(e011) <= 0.78);

    /* tgi-log-013 (a 2.0.3 walkthrough on an OCI A10): Swallow-7b-hf,
     * Llama-2-7B's shape with a 43176-token vocabulary, every memory flag
     * at its default, 15232 logged. */
    m = preset_model("Llama-2-7B");
    m.vocab_size = 43176;
    m.max_position_embeddings = 4096;
    q = quant_of(KVB_QUANT_FP16);
    g = preset_gpu("A10", 1);
    s = tgi("tgi@2.0.3");
    p = plan(&m, &q, &g, &s);
    assert_int_equal(p.max_num_batched_tokens, 4145);
    double e013 = err_of(&p, 15232, "tgi-log-013");
    assert_true(fabs(e013) <= 0.05);

    /* tgi-log-014 (gke-demos/chat-with-gemma README.md and its manifest):
     * google/gemma-2b-it on one L4, --num-shard=1 only, a Vertex build
     * whose router logs "Setting max batch total tokens" at main.rs:316
     * as v1.4.0 does: 666672.  Gemma-2B's shape as a llama-arch model:
     * 18 layers, 1 KV head of 256, vocabulary 256000, tied. */
    m = preset_model("Llama-2-7B");
    m.hidden_size = 2048;
    m.num_hidden_layers = 18;
    m.num_attention_heads = 8;
    m.num_key_value_heads = 1;
    m.head_dim = 256;
    m.intermediate_size = 16384;
    m.vocab_size = 256000;
    m.max_position_embeddings = 8192;
    m.tie_word_embeddings = true;
    q = quant_of(KVB_QUANT_BF16);
    g = preset_gpu("L4", 1);
    s = tgi("tgi@1.4.0");
    p = plan(&m, &q, &g, &s);
    assert_int_equal(p.max_num_batched_tokens, 4096);
    assert_int_equal(p.max_model_len, 2048);
    double e014 = err_of(&p, 666672, "tgi-log-014");
    assert_true(fabs(e014) <= 0.11);

    /* tgi-log-001's settings with --max-total-tokens 16000: the two
     * warm-up requests reserve 2 x 15999 tokens (4.88 GiB per shard), and
     * the cached activations plus 3.5 copies of the 10049 x 128256 bf16
     * logits (9.67 GiB) no longer fit next to the weights.  The 7.2 GiB
     * alive at the log_softmax peak would, once PyTorch frees its cache
     * and retries, so the plan says no_kv_cache_memory but warns. */
    m = preset_model("Llama-3.1-70B");
    q = quant_of(KVB_QUANT_AUTO);
    g = preset_gpu("A100-80GB", 2);
    s = tgi("tgi@2.4.0");
    s.tensor_parallel_size = 2;
    s.max_num_batched_tokens = 10049;
    s.max_input_tokens = 9999;
    s.max_model_len = 16000;
    p = plan(&m, &q, &g, &s);
    assert_int_equal(p.verdict, KVB_VERDICT_NO_KV_MEMORY);
    assert_non_null(strstr(p.warning, "frees its cached blocks"));
}

/* The prefill logits the warm-up leaves reserved, by release, on a
 * hand-sized case: 100 prefill tokens, a vocabulary of 1000, fp16, so
 * one [T, V] copy is 100 x 1000 x 2 = 200000 bytes.  One shard: `out`
 * and its log_softmax before 2.4 (2 copies), in place from 2.4 (PR
 * #2661: 1 copy), none from 3.0 (PR #2797: no prefill logprobs).  Two
 * shards gather: world_out, the contiguous copy log_softmax makes of
 * the transposed view, its output, and the rank's [V/2, T] (3.5
 * copies), before and from 2.4 alike. */
static void test_tgi_warmup_logits(void **state)
{
    (void)state;
    kvb_model m = tiny_llama();
    m.vocab_size = 1000;
    kvb_quant q = quant_of(KVB_QUANT_FP16);
    kvb_gpu g = gpu_of(100 * GIB, 2);
    kvb__engine_in in;
    memset(&in, 0, sizeof in);
    in.model = &m;
    in.quant = &q;
    in.gpu = &g;
    in.s = serving_default();
    in.s.engine = KVB_ENGINE_TGI;
    in.s.gpu_memory_utilization = 1.0;
    in.s.tensor_parallel_size = 1;
    in.s.pipeline_parallel_size = 1;
    in.s.block_size = 16;
    in.s.max_num_batched_tokens = 100;
    in.s.max_input_tokens = 100;
    in.s.max_model_len = 200;
    in.s.max_num_seqs = 128;
    in.engine = &kvb__engine_tgi;
    const uint64_t row = 100 * 1000 * 2;
    in.version = 30000;
    uint64_t peak = kvb__engine_tgi.activation(&in, 0);
    in.version = 20200;
    assert_int_equal(kvb__engine_tgi.activation(&in, 0), peak + 2 * row);
    in.version = 20400;
    assert_int_equal(kvb__engine_tgi.activation(&in, 0), peak + row);
    in.s.tensor_parallel_size = 2;
    in.version = 30000;
    peak = kvb__engine_tgi.activation(&in, 0);
    in.version = 20200;
    assert_int_equal(kvb__engine_tgi.activation(&in, 0),
                     peak + 3 * row + row / 2);
    in.version = 20400;
    assert_int_equal(kvb__engine_tgi.activation(&in, 0),
                     peak + 3 * row + row / 2);
    m.vocab_size = 1001; /* not divisible: the whole head on each rank */
    in.version = 30000;
    peak = kvb__engine_tgi.activation(&in, 0);
    in.version = 20200;
    assert_int_equal(kvb__engine_tgi.activation(&in, 0),
                     peak + 2 * 100 * 1001 * 2);
}

/* The warm-up's block count by line, on a hand-sized case: 1 layer of
 * 1 KV head of 64, fp16, BLOCK_SIZE 16: a block is 2 x 16 x 64 x 2 =
 * 4096 bytes; 100 GiB total, f = 1. */
static void test_tgi_warmup_math(void **state)
{
    (void)state;
    kvb_model m = tiny_llama();
    m.num_hidden_layers = 1;
    m.num_attention_heads = 1;
    m.num_key_value_heads = 1;
    m.hidden_size = 64;
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    q.kv_cache_dtype = KVB_DTYPE_FP16;
    kvb_gpu g = gpu_of(100 * GIB, 1);
    kvb__engine_in in;
    memset(&in, 0, sizeof in);
    in.model = &m;
    in.quant = &q;
    in.gpu = &g;
    in.s = serving_default();
    in.s.engine = KVB_ENGINE_TGI;
    in.s.gpu_memory_utilization = 1.0;
    in.s.block_size = 16;
    in.s.max_num_batched_tokens = 15; /* one warm-up block: */
    in.s.max_input_tokens = 15;       /* 15 + 1 (max_new_tokens 2) */
    in.s.max_model_len = 16;          /* 1.2.0 on: max_total_tokens 16 - 1 */
    in.engine = &kvb__engine_tgi;
    kvb__kv_stage ks;
    kvb__kv_stage_make(&m, &q, 1, 0, 1, 16, false, &ks);
    assert_int_equal(ks.page_bytes * ks.group_size, 4096);
    uint64_t avail = 4096 * 1001; /* free after the warm-up, its block
                                     included */
    in.version = 10000;           /* 1.0: free // block + warm-up */
    assert_int_equal(kvb__engine_tgi.num_blocks(&in, &ks, avail), 1001);
    in.version = 20000; /* 2.0: x 0.95 (PR #1428) */
    assert_int_equal(kvb__engine_tgi.num_blocks(&in, &ks, avail), 951);
    in.version = 20300; /* 2.3: x TGI_WIGGLE_ROOM 0.95 (PR #2449) */
    assert_int_equal(kvb__engine_tgi.num_blocks(&in, &ks, avail), 951);
    in.version = 20400; /* 2.4: TGI_WIGGLE_ROOM 0.90 (PR #2600) */
    assert_int_equal(kvb__engine_tgi.num_blocks(&in, &ks, avail), 901);
    /* 3.0: free less (1 - 0.95) of the total (PR #2808) */
    in.version = 30000;
    assert_int_equal(kvb__engine_tgi.num_blocks(&in, &ks, avail), 1);
    uint64_t room = (uint64_t)(0.05 * (double)(100 * GIB)) + 1;
    assert_int_equal(
        kvb__engine_tgi.num_blocks(&in, &ks, avail + room + 4096 * 10), 1011);
    in.version = 30100; /* 3.1: 0.93 (PR #2958) */
    room = (uint64_t)(0.07 * (double)(100 * GIB)) + 1;
    assert_int_equal(
        kvb__engine_tgi.num_blocks(&in, &ks, avail + room + 4096 * 10), 1011);
    in.version = 30300; /* 3.3: 0.90 (PR #3189) */
    room = (uint64_t)(0.10 * (double)(100 * GIB)) + 1;
    assert_int_equal(
        kvb__engine_tgi.num_blocks(&in, &ks, avail + room + 4096 * 10), 1011);
    /* no room for the warm-up batch itself */
    assert_int_equal(kvb__engine_tgi.num_blocks(&in, &ks, 100), 0);
}

/* BLOCK_SIZE per attention backend (models/globals.py) as the launcher
 * picks it (resolve_attention), and the defaults of each line. */
static void test_tgi_defaults(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-3.1-8B");
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g = preset_gpu("H100", 1);
    kvb_serving s = tgi("tgi@2.2.0");
    kvb_plan p = plan(&m, &q, &g, &s);
    assert_int_equal(p.block_size, 16);
    assert_int_equal(p.max_model_len, 4096);          /* max_default */
    assert_int_equal(p.max_num_batched_tokens, 4145); /* input + 50 */
    assert_true(p.gpu_memory_utilization == 1.0);
    s = tgi("tgi@1.4.0");
    p = plan(&m, &q, &g, &s);
    assert_int_equal(p.max_model_len, 2048);
    assert_int_equal(p.max_num_batched_tokens, 4096);
    /* 3.x: 900 TFLOPS over Llama-3.1-8B's 16106127360 FLOPs a token */
    s = tgi("tgi@3.3.7");
    p = plan(&m, &q, &g, &s);
    assert_int_equal(p.block_size, 1);
    assert_int_equal(p.max_num_batched_tokens, 55879);
    assert_int_equal(p.max_total_tokens % 1, 0);
    assert_true(p.max_model_len <= m.max_position_embeddings);
    /* Falcon takes flashdecoding (256) on Ampere and up, paged before */
    kvb_model f = preset_model("Falcon-7B");
    p = plan(&f, &q, &g, &s);
    assert_int_equal(p.block_size, 256);
    kvb_gpu t4 = preset_gpu("T4", 1);
    p = plan(&f, &q, &t4, &s);
    assert_int_equal(p.block_size, 16);
}

/* The router's NotEnoughMemory and the warm-up OOM, in TGI's words. */
static void test_tgi_verdicts(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-3.1-8B");
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g = preset_gpu("A10G", 1);
    /* From 1.2.0 every warm-up request reserves max_total_tokens - 1 KV
     * tokens (PR #1178), so a max_total_tokens this large fails in the
     * warm-up; before it (max_new_tokens 2) the warm-up fits and the
     * router refuses. */
    kvb_serving s = tgi("tgi@3.0.0");
    s.max_model_len = 100000;
    kvb_plan p = plan(&m, &q, &g, &s);
    assert_int_equal(p.verdict, KVB_VERDICT_NO_KV_MEMORY);
    s = tgi("tgi@1.0.0");
    s.max_model_len = 100000;
    p = plan(&m, &q, &g, &s);
    assert_int_equal(p.verdict, KVB_VERDICT_MAX_LEN_EXCEEDS_KV);
    char buf[512];
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_plan_engine_error(&p, buf, sizeof buf, NULL, &e),
                     KVB_OK);
    assert_string_equal(
        buf, "Not enough memory to handle `max_total_tokens=100000`");
    s = tgi("tgi@3.0.0");
    s.max_model_len = 0;
    s.max_num_batched_tokens = 200000;
    s.max_input_tokens = 100000;
    p = plan(&m, &q, &g, &s);
    assert_int_equal(p.verdict, KVB_VERDICT_NO_KV_MEMORY);
    assert_int_equal(kvb_plan_engine_error(&p, buf, sizeof buf, NULL, &e),
                     KVB_OK);
    assert_string_equal(buf, "Not enough memory to handle 200000 prefill "
                             "tokens. You need to decrease "
                             "`--max-batch-prefill-tokens`");
    /* 8 KV heads do not split over 16 shards (TensorRT-LLM would) */
    kvb_model big = preset_model("Llama-3.1-70B");
    kvb_gpu h = preset_gpu("H100", 16);
    s = tgi("tgi@3.0.0");
    s.tensor_parallel_size = 16;
    p = plan(&big, &q, &h, &s);
    assert_int_equal(p.verdict, KVB_VERDICT_PARALLELISM_INVALID);
    assert_non_null(strstr(p.message, "`num_key_value_heads` must be "
                                      "divisible by `num_shards`"));
}

/* Real launcher lines: PR #648 (evq) and issue #1769 (env MODEL_ID and
 * NUM_SHARD as in its docker run). */
static void test_tgi_cmdline(void **state)
{
    (void)state;
    const char *a[] = {"text-generation-launcher",
                       "--model-id",
                       "TheBloke/Llama-2-70B-chat-GPTQ",
                       "--port",
                       "8080",
                       "--num-shard",
                       "4",
                       "--quantize",
                       "gptq"};
    kvb_command c;
    kvb_serving s = serving_default();
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_COMMAND_INIT(&c), KVB_OK);
    assert_int_equal(
        kvb_command_read(KVB__ARRAY_LEN(a), a, NULL, -1, &c, &s, &e), KVB_OK);
    assert_int_equal(c.engine, KVB_ENGINE_TGI);
    assert_string_equal(c.model, "TheBloke/Llama-2-70B-chat-GPTQ");
    assert_string_equal(c.quantization, "gptq");
    assert_int_equal(s.tensor_parallel_size, 4);

    const char *b[] = {"text-generation-launcher",
                       "--max-concurrent-requests",
                       "2",
                       "--max-batch-prefill-tokens",
                       "10000",
                       "--max-input-length",
                       "10000",
                       "--max-total-tokens=11000",
                       "--cuda-memory-fraction",
                       "0.99",
                       "--cuda-graphs",
                       "0",
                       "--quantize",
                       "eetq"};
    const char *env[] = {"MODEL_ID=/model", "NUM_SHARD=8",
                         "MAX_BATCH_TOTAL_TOKENS=50000", "HOME=/root", NULL};
    s = serving_default();
    assert_int_equal(
        kvb_command_read(KVB__ARRAY_LEN(b), b, env, -1, &c, &s, &e), KVB_OK);
    assert_string_equal(c.model, "/model");
    assert_int_equal(s.tensor_parallel_size, 8);
    assert_int_equal(s.max_num_batched_tokens, 10000);
    assert_int_equal(s.max_input_tokens, 10000);
    assert_int_equal(s.max_model_len, 11000);
    assert_int_equal(s.max_total_tokens, 50000);
    assert_int_equal(s.enforce_eager, 1);
    assert_true(fabs(s.gpu_memory_utilization - 0.99) < 1e-12);
    assert_non_null(strstr(c.ignored, "--max-concurrent-requests"));
    assert_non_null(strstr(c.warning, "ignores it"));

    const char *bad[] = {"text-generation-launcher", "--num_shard", "2"};
    assert_int_equal(
        kvb_command_read(KVB__ARRAY_LEN(bad), bad, NULL, -1, &c, &s, &e),
        KVB_EINVAL);
    const char *att[] = {"ATTENTION=paged", NULL};
    const char *bare[] = {"text-generation-launcher", "--model-id", "m"};
    s = serving_default();
    assert_int_equal(
        kvb_command_read(KVB__ARRAY_LEN(bare), bare, att, -1, &c, &s, &e),
        KVB_OK);
    assert_int_equal(s.block_size, 16);
}

/* Deployment logs from outside TGI's tracker: the JSON-output lines of
 * tgi-log-009 (GKE tutorial), the launcher's defaults and the v3 router of
 * tgi-log-011 (2.2.0 on an A10G), the shard count of tgi-log-010
 * (ms-build-mi300) and the JumpStart lines of tgi-log-012 (HyperPod). */
static void test_tgi_log_deployments(void **state)
{
    (void)state;
    kvb_log_facts f;
    kvb_error e = KVB_ERROR_INIT;
    const char *gke =
        "{\"timestamp\":\"2024-03-09T05:08:14.751646Z\",\"level\":\"INFO\","
        "\"message\":\"Warming up model\",\"target\":\"text_generation_"
        "router\",\"filename\":\"router/src/main.rs\",\"line_number\":291}\n"
        "{\"timestamp\":\"2024-03-09T05:08:19.961136Z\",\"level\":\"INFO\","
        "\"message\":\"Setting max batch total tokens to 133696\",\"target\":"
        "\"text_generation_router\",\"filename\":\"router/src/main.rs\","
        "\"line_number\":328}\n";
    assert_int_equal(KVB_LOG_FACTS_INIT(&f), KVB_OK);
    assert_int_equal(kvb_log_parse(gke, strlen(gke), &f, &e), KVB_OK);
    assert_int_equal(f.engine, KVB_ENGINE_TGI);
    assert_int_equal(f.kv_cache_tokens, 133696);
    assert_int_equal(f.failure, KVB_LOG_NONE);

    const char *a10g =
        "2024-09-03T04:36:57.507079Z  INFO text_generation_launcher: Default "
        "`max_input_tokens` to 4095\n"
        "2024-09-03T04:36:57.507101Z  INFO text_generation_launcher: Default "
        "`max_total_tokens` to 4096\n"
        "2024-09-03T04:36:57.507104Z  INFO text_generation_launcher: Default "
        "`max_batch_prefill_tokens` to 4145\n"
        "2024-09-03T04:40:19.370247Z  INFO text_generation_router::server: "
        "router/src/server.rs:1651: Setting max batch total tokens to 19056\n"
        "|   0  NVIDIA A10G         On   | 00000000:00:1E.0 Off |"
        "                    0 |\n";
    assert_int_equal(KVB_LOG_FACTS_INIT(&f), KVB_OK);
    assert_int_equal(kvb_log_parse(a10g, strlen(a10g), &f, &e), KVB_OK);
    assert_int_equal(f.engine, KVB_ENGINE_TGI);
    assert_int_equal(f.accounting, KVB_ACCOUNTING_TGI);
    assert_int_equal(f.max_total_tokens, 19056);
    assert_int_equal(f.kv_cache_tokens, 19056);
    assert_int_equal(f.max_num_batched_tokens, 4145);
    assert_int_equal(f.max_model_len, 4096);
    assert_string_equal(f.gpu_name, "NVIDIA A10G");
    char buf[2048];
    assert_int_equal(kvb_log_explain(&f, buf, sizeof buf, NULL, &e), KVB_OK);
    assert_non_null(strstr(buf, "19056"));

    const char *mi300 =
        "2024-05-07T12:39:07.078391Z  INFO text_generation_launcher: Default "
        "`max_batch_prefill_tokens` to 4145\n"
        "2024-05-07T12:39:07.078395Z  INFO text_generation_launcher: Sharding "
        "model on 2 processes\n"
        "2024-05-07T12:39:22.141566Z  INFO text_generation_router: "
        "router/src/main.rs:354: Setting max batch total tokens to 801568\n";
    assert_int_equal(KVB_LOG_FACTS_INIT(&f), KVB_OK);
    assert_int_equal(kvb_log_parse(mi300, strlen(mi300), &f, &e), KVB_OK);
    assert_int_equal(f.tensor_parallel_size, 2);
    assert_int_equal(f.max_total_tokens, 801568);
    assert_int_equal(f.max_num_batched_tokens, 4145);

    const char *jumpstart =
        "2025-10-13T22:12:06.155020Z  INFO text_generation_router: "
        "router/src/main.rs:289: Using config Some(Mistral)\n"
        "2025-10-13T22:12:09.754597Z  INFO text_generation_router: "
        "router/src/main.rs:354: Setting max batch total tokens to 43808\n";
    assert_int_equal(KVB_LOG_FACTS_INIT(&f), KVB_OK);
    assert_int_equal(kvb_log_parse(jumpstart, strlen(jumpstart), &f, &e),
                     KVB_OK);
    assert_int_equal(f.engine, KVB_ENGINE_TGI);
    assert_int_equal(f.max_total_tokens, 43808);
}

/* Lines of tgi-log-001 (#2744), tgi-log-006 (PR #648), the 3.x router's
 * NotEnoughMemory and the Args dump of tgi-log-002 (#710). */
static void test_tgi_log(void **state)
{
    (void)state;
    const char *log =
        "INFO text_generation_launcher: Default `max_batch_prefill_tokens` "
        "to 10049\n"
        "INFO text_generation_router_v3: Warming up model\n"
        "INFO text_generation_launcher: KV-cache blocks: 30816, size: 1\n"
        "INFO text_generation_router_v3: Setting max batch total tokens to "
        "30816\n";
    kvb_log_facts f;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_LOG_FACTS_INIT(&f), KVB_OK);
    assert_int_equal(kvb_log_parse(log, strlen(log), &f, &e), KVB_OK);
    assert_int_equal(f.engine, KVB_ENGINE_TGI);
    assert_int_equal(f.max_total_tokens, 30816);
    assert_int_equal(f.max_num_batched_tokens, 10049);
    assert_int_equal(f.gpu_blocks, 30816);
    assert_int_equal(f.block_size, 1);
    assert_int_equal(f.failure, KVB_LOG_NONE);

    const char *oom =
        "ERROR warmup{max_input_length=1024 max_prefill_tokens=4096 "
        "max_total_tokens=16000}:warmup: text_generation_client: "
        "router/client/src/lib.rs:33: Server error: Not enough memory to "
        "handle 16000 total tokens with 4096 prefill tokens. You need to "
        "decrease `--max-batch-total-tokens` or `--max-batch-prefill-tokens`"
        "\n";
    assert_int_equal(KVB_LOG_FACTS_INIT(&f), KVB_OK);
    assert_int_equal(kvb_log_parse(oom, strlen(oom), &f, &e), KVB_OK);
    assert_int_equal(f.engine, KVB_ENGINE_TGI);
    assert_int_equal(f.failure, KVB_LOG_CUDA_OOM);
    assert_int_equal(f.max_total_tokens, 16000);
    char buf[2048];
    assert_int_equal(kvb_log_explain(&f, buf, sizeof buf, NULL, &e), KVB_OK);

    const char *len = "Error: Backend(NotEnoughMemory(131072))\n"
                      "Not enough memory to handle `max_total_tokens=131072`"
                      "\n";
    assert_int_equal(KVB_LOG_FACTS_INIT(&f), KVB_OK);
    assert_int_equal(kvb_log_parse(len, strlen(len), &f, &e), KVB_OK);
    assert_int_equal(f.failure, KVB_LOG_MAX_LEN_EXCEEDS_KV);
    assert_int_equal(f.max_model_len, 131072);

    const char *args =
        "{ model_id: \"/opt/ml/model\", revision: None, sharded: None, "
        "num_shard: Some(8), quantize: None, dtype: None, max_input_length: "
        "3072, max_total_tokens: 4096, max_batch_prefill_tokens: 4096, "
        "max_batch_total_tokens: 16000 }\n";
    assert_int_equal(KVB_LOG_FACTS_INIT(&f), KVB_OK);
    assert_int_equal(kvb_log_parse(args, strlen(args), &f, &e), KVB_OK);
    assert_int_equal(f.engine, KVB_ENGINE_TGI);
    assert_int_equal(f.tensor_parallel_size, 8);
    assert_int_equal(f.max_model_len, 4096);
    assert_int_equal(f.max_num_batched_tokens, 4096);
    assert_string_equal(f.model, "/opt/ml/model");
}

static void test_tgi_render(void **state)
{
    (void)state;
    kvb_fix f;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_FIX_INIT(&f), KVB_OK);
    f.engine = KVB_ENGINE_TGI;
    f.max_model_len = 8192;
    f.gpu_memory_utilization = 0.9;
    f.tensor_parallel_size = 2;
    f.pipeline_parallel_size = 1;
    f.quant_method = KVB_QUANT_AWQ_4;
    kvb_model m = preset_model("Llama-3.1-8B");
    char buf[512];
    assert_int_equal(
        kvb_fix_render(&f, &m, KVB_RENDER_VLLM_ARGS, buf, sizeof buf, NULL, &e),
        KVB_OK);
    assert_non_null(strstr(buf, "--model-id "));
    assert_non_null(strstr(buf, "--quantize awq"));
    assert_non_null(strstr(buf, "--max-total-tokens 8192"));
    assert_non_null(strstr(buf, "--max-input-tokens 8191"));
    assert_non_null(strstr(buf, "--cuda-memory-fraction 0.90"));
    assert_non_null(strstr(buf, "--num-shard 2"));
}

KVB_TESTS(cmocka_unit_test(test_tgi_records),
          cmocka_unit_test(test_tgi_warmup_logits),
          cmocka_unit_test(test_tgi_warmup_math),
          cmocka_unit_test(test_tgi_defaults),
          cmocka_unit_test(test_tgi_verdicts),
          cmocka_unit_test(test_tgi_cmdline), cmocka_unit_test(test_tgi_log),
          cmocka_unit_test(test_tgi_log_deployments),
          cmocka_unit_test(test_tgi_render));
