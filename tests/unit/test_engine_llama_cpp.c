/*
 * test_engine_llama_cpp.c -- llama.cpp and Ollama: the KV cache against
 * llama.cpp's own printed figures (tests/llamacpp/oracle_figures.txt:
 * node-llama-cpp 3.22.1's llama.cpp, CPU build, no_alloc, over sparse
 * GGUFs of the real shapes; tests/llamacpp/run_oracle.sh runs it again
 * when npm is there), real start-up logs from public issues
 * (tests/fidelity/data/engines/llamacpp.jsonl) planned with their own
 * settings, defaults by version, offload, verdicts and texts, command
 * lines, log lines and fixes.
 */
#include "testing.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- models: the config.json shapes make_gguf.py writes ---- */

static kvb_model mk(int32_t arch, uint32_t layers, uint64_t hidden,
                    uint32_t heads, uint32_t kv, uint32_t hd, uint64_t ff,
                    uint64_t vocab, uint64_t ctx)
{
    kvb_model m;
    assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
    m.arch = arch;
    m.num_hidden_layers = layers;
    m.hidden_size = hidden;
    m.num_attention_heads = heads;
    m.num_key_value_heads = kv;
    m.head_dim = hd;
    m.intermediate_size = ff;
    m.vocab_size = vocab;
    m.max_position_embeddings = ctx;
    return m;
}

static kvb_model llama31_8b(void) /* meta-llama/Llama-3.1-8B */
{
    return mk(KVB_ARCH_LLAMA, 32, 4096, 32, 8, 128, 14336, 128256, 131072);
}

static kvb_model qwen25_7b(void) /* Qwen/Qwen2.5-7B-Instruct */
{
    return mk(KVB_ARCH_QWEN2, 28, 3584, 28, 4, 128, 18944, 152064, 32768);
}

static kvb_model qwen3_8b(void) /* Qwen/Qwen3-8B */
{
    return mk(KVB_ARCH_QWEN3, 36, 4096, 32, 8, 128, 12288, 151936, 40960);
}

static kvb_model qwen3_30b_a3b(void) /* Qwen/Qwen3-30B-A3B */
{
    kvb_model m =
        mk(KVB_ARCH_QWEN3_MOE, 48, 2048, 32, 4, 128, 6144, 151936, 40960);
    m.num_experts = 128;
    m.num_experts_per_tok = 8;
    m.moe_intermediate_size = 768;
    return m;
}

static kvb_model gemma3_12b(void) /* google/gemma-3-12b-it */
{
    kvb_model m =
        mk(KVB_ARCH_GEMMA3, 48, 3840, 16, 8, 256, 15360, 262208, 131072);
    m.sliding_window = 1024;
    m.sliding_window_pattern = 6;
    m.tie_word_embeddings = 1;
    return m;
}

static kvb_model gemma2_9b(void) /* google/gemma-2-9b-it */
{
    kvb_model m =
        mk(KVB_ARCH_GEMMA2, 42, 3584, 16, 8, 256, 14336, 256000, 8192);
    m.sliding_window = 4096;
    m.sliding_window_pattern = 2;
    m.tie_word_embeddings = 1;
    return m;
}

static kvb_model mistral_7b(void) /* mistralai/Mistral-7B-v0.1: llama */
{
    kvb_model m = mk(KVB_ARCH_LLAMA, 32, 4096, 32, 8, 128, 14336, 32000, 32768);
    m.sliding_window = 4096; /* in the file; llama.cpp ignores it */
    return m;
}

static kvb_model gpt_oss_20b(void) /* openai/gpt-oss-20b */
{
    kvb_model m =
        mk(KVB_ARCH_GPT_OSS, 24, 2880, 64, 8, 64, 2880, 201088, 131072);
    m.num_experts = 32;
    m.num_experts_per_tok = 4;
    m.moe_intermediate_size = 2880;
    m.sliding_window = 128;
    m.sliding_window_pattern = 2;
    return m;
}

static kvb_model deepseek_v2_lite(void) /* deepseek-ai/DeepSeek-V2-Lite */
{
    kvb_model m =
        mk(KVB_ARCH_DEEPSEEK_V3, 27, 2048, 16, 16, 0, 10944, 102400, 163840);
    m.kv_lora_rank = 512;
    m.qk_rope_head_dim = 64;
    m.qk_nope_head_dim = 128;
    m.v_head_dim = 128;
    m.num_experts = 64;
    m.num_experts_per_tok = 6;
    m.num_shared_experts = 2;
    m.moe_intermediate_size = 1408;
    m.first_k_dense_replace = 1;
    return m;
}

static kvb_model phi3_mini(void) /* microsoft/Phi-3-mini-4k-instruct */
{
    kvb_model m = mk(KVB_ARCH_PHI3, 32, 3072, 32, 32, 96, 8192, 32064, 4096);
    m.sliding_window = 2047; /* ignored by llama.cpp */
    return m;
}

static kvb_plan plan_of(const kvb_model *m, kvb_serving s, uint64_t gpu);

/* ---- llama.cpp's own figures (tests/llamacpp/oracle_figures.txt) ---- */

typedef struct oracle_case {
    kvb_model (*model)(void);
    uint64_t ctx;
    uint32_t seqs, ubatch;
    int32_t fa, ctk, ctv;
    uint32_t swa_full;
    double kv_mib;      /* the sum of its "llama_kv_cache: size =" lines */
    uint64_t swa_cells; /* the SWA cache's cells; 0: none */
    double cb_mib;      /* "CPU compute buffer size =" */
} oracle_case;

#define F16  KVB_STORAGE_F16
#define Q8_0 KVB_STORAGE_Q8_0
#define Q4_0 KVB_STORAGE_Q4_0

static const oracle_case oracle[] = {
    {llama31_8b, 32768, 1, 512, 1, F16, F16, 0, 4096.00, 0, 266.50},
    {llama31_8b, 32768, 1, 512, 0, F16, F16, 0, 4096.00, 0, 2156.01},
    {llama31_8b, 8192, 4, 512, 1, Q8_0, Q8_0, 0, 544.00, 0, 266.50},
    {llama31_8b, 8000, 3, 512, 1, Q4_0, Q4_0, 0, 297.00, 0, 266.52},
    {llama31_8b, 4096, 1, 256, 1, Q8_0, F16, 0, 392.00, 0, 133.25},
    {qwen25_7b, 32768, 1, 512, 1, F16, F16, 0, 1792.00, 0, 311.00},
    {qwen25_7b, 16384, 2, 512, 0, F16, F16, 0, 896.00, 0, 501.01},
    {qwen3_8b, 16384, 1, 512, 1, Q8_0, Q8_0, 0, 1224.00, 0, 320.75},
    {qwen3_30b_a3b, 32768, 1, 512, 1, F16, F16, 0, 3072.00, 0, 304.75},
    {qwen3_30b_a3b, 8192, 4, 1024, 1, Q4_0, Q4_0, 0, 216.00, 0, 609.50},
    {gemma3_12b, 32768, 1, 512, 1, F16, F16, 0, 2048.00 + 480.00, 1536, 527.13},
    {gemma3_12b, 32768, 2, 512, 1, F16, F16, 0, 2048.00 + 960.00, 1536, 527.13},
    {gemma3_12b, 32768, 1, 512, 1, F16, F16, 1, 2048.00 + 10240.00, 32768,
     527.13},
    {gemma3_12b, 8192, 1, 2048, 0, F16, F16, 0, 512.00 + 960.00, 3072, 2138.51},
    {gemma2_9b, 8192, 1, 512, 1, F16, F16, 0, 1344.00 + 756.00, 4608, 514.00},
    {gemma2_9b, 8192, 4, 512, 1, Q8_0, Q8_0, 0, 714.00 + 714.00, 2048, 514.00},
    {mistral_7b, 32768, 1, 512, 1, F16, F16, 0, 4096.00, 0, 148.01},
    {gpt_oss_20b, 8192, 1, 512, 1, F16, F16, 0, 192.00 + 18.00, 768, 435.27},
    {gpt_oss_20b, 32768, 4, 512, 1, Q8_0, Q8_0, 0, 408.00 + 38.25, 768, 412.83},
    {deepseek_v2_lite, 8192, 1, 512, 1, F16, F16, 0, 243.00, 0, 240.26},
    {deepseek_v2_lite, 32768, 2, 512, 1, Q8_0, Q8_0, 0, 516.38, 0, 240.26},
    {phi3_mini, 8192, 1, 512, 1, F16, F16, 0, 3072.00, 0, 74.63},
    {phi3_mini, 4096, 2, 512, 0, Q8_0, F16, 0, 1176.00, 0, 162.01},
};

static void test_llama_kv_equals_llama_cpp(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof oracle / sizeof oracle[0]; i++) {
        const oracle_case *c = &oracle[i];
        kvb_model m = c->model();
        kvb_serving s = serving_default();
        s.engine = KVB_ENGINE_LLAMA_CPP;
        s.context_size = c->ctx;
        s.max_num_seqs = c->seqs;
        s.ubatch_size = c->ubatch;
        s.max_num_batched_tokens = c->ubatch;
        s.flash_attn = c->fa;
        s.cache_type_k = c->ctk;
        s.cache_type_v = c->ctv;
        s.swa_full = c->swa_full;
        /* the oracle's build: every token an output in the reserve */
        kvb__ggml_opts o = {256, true, 1, false};
        kvb__ggml g;
        kvb__ggml_kv_split kv;
        kvb__ggml_resolve(&m, &s, &o, &g);
        kvb__ggml_kv(&m, &g, &kv);
        /* llama.cpp prints %.2f MiB: equal to the printed digits */
        char ours[32], theirs[32];
        snprintf(ours, sizeof ours, "%.2f", (double)(kv.k + kv.v) / MIB);
        snprintf(theirs, sizeof theirs, "%.2f", c->kv_mib);
        if (strcmp(ours, theirs))
            fail_msg("case %zu: KV %s MiB, llama.cpp %s MiB", i, ours, theirs);
        assert_int_equal(g.swa_cells, c->swa_cells);
        double cb = (double)kvb__ggml_compute(&m, &g, true) / MIB;
        if (fabs(cb - c->cb_mib) > 0.15 * c->cb_mib)
            fail_msg("case %zu: compute %.2f MiB, llama.cpp %.2f MiB", i, cb,
                     c->cb_mib);
    }
}

/* A unified cache shares one stream; its sliding-window cache holds each
 * slot's window (llama-kv-cache-iswa.cpp: n_swa x n_seq_max + n_ubatch). */
static void test_llama_unified_swa(void **state)
{
    (void)state;
    kvb_model m = gemma3_12b();
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.context_size = 32768;
    s.max_num_seqs = 4;
    s.kv_unified = 1;
    kvb__ggml_opts o = {256, true, 1, false};
    kvb__ggml g;
    kvb__ggml_kv_split kv;
    kvb__ggml_resolve(&m, &s, &o, &g);
    assert_int_equal(g.n_stream, 1);
    assert_int_equal(g.base_cells, 32768);
    assert_int_equal(g.swa_cells, 4608); /* pad(1024 x 4 + 512, 256) */
    kvb__ggml_kv(&m, &g, &kv);
    /* 8 full layers x 32768 + 40 sliding x 4608 cells, 8 KiB a cell */
    assert_int_equal(kv.k + kv.v, (8 * 32768ull + 40 * 4608ull) * 8192);
    s.kv_unified = 0; /* per stream: 4 x pad(min(8192, 1536), 256) */
    kvb__ggml_resolve(&m, &s, &o, &g);
    assert_int_equal(g.n_stream, 4);
    assert_int_equal(g.swa_cells, 1536);
}

/* A header-only GGUF (no tensor data) read and planned: the reader's
 * window pattern reaches llama.cpp's SWA cache. */
typedef struct gb {
    unsigned char p[8192];
    size_t n;
} gb;

static void put(gb *b, const void *src, size_t n)
{
    assert_true(b->n + n <= sizeof b->p);
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void le(gb *b, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        unsigned char c = (unsigned char)(v >> (8 * i));
        put(b, &c, 1);
    }
}

static void str(gb *b, const char *s)
{
    le(b, strlen(s), 8);
    put(b, s, strlen(s));
}

static void kv_u32(gb *b, const char *k, uint32_t v)
{
    str(b, k);
    le(b, 4, 4);
    le(b, v, 4);
}

static void tinfo(gb *b, const char *name, uint64_t n0, uint64_t n1,
                  uint64_t *off)
{
    str(b, name);
    le(b, n1 ? 2 : 1, 4);
    le(b, n0, 8);
    if (n1)
        le(b, n1, 8);
    le(b, n1 ? 1 : 0, 4); /* F16 matrices, F32 vectors */
    le(b, *off, 8);
    uint64_t bytes = n1 ? n0 * n1 * 2 : n0 * 4;
    *off += (bytes + 31) / 32 * 32;
}

static void test_llama_gguf_gemma3(void **state)
{
    (void)state;
    gb b = {{0}, 0};
    const uint32_t L = 6, E = 256, H = 4, KV = 2, HD = 64, FF = 512;
    put(&b, "GGUF", 4);
    le(&b, 3, 4);
    le(&b, 2 + (uint64_t)L * 9, 8);
    le(&b, 10, 8);
    str(&b, "general.architecture");
    le(&b, 8, 4);
    str(&b, "gemma3");
    kv_u32(&b, "gemma3.block_count", L);
    kv_u32(&b, "gemma3.embedding_length", E);
    kv_u32(&b, "gemma3.feed_forward_length", FF);
    kv_u32(&b, "gemma3.attention.head_count", H);
    kv_u32(&b, "gemma3.attention.head_count_kv", KV);
    kv_u32(&b, "gemma3.attention.key_length", HD);
    kv_u32(&b, "gemma3.attention.value_length", HD);
    kv_u32(&b, "gemma3.context_length", 32768);
    kv_u32(&b, "gemma3.attention.sliding_window", 512);
    uint64_t off = 0;
    tinfo(&b, "token_embd.weight", E, 1000, &off);
    tinfo(&b, "output_norm.weight", E, 0, &off);
    for (uint32_t i = 0; i < L; i++) {
        char n[64];
#define T(s, a, c)                                                             \
    snprintf(n, sizeof n, "blk.%u." s, i);                                     \
    tinfo(&b, n, a, c, &off)
        T("attn_norm.weight", E, 0);
        T("attn_q.weight", E, H * HD);
        T("attn_k.weight", E, KV * HD);
        T("attn_v.weight", E, KV * HD);
        T("attn_output.weight", H * HD, E);
        T("ffn_norm.weight", E, 0);
        T("ffn_gate.weight", E, FF);
        T("ffn_up.weight", E, FF);
        T("ffn_down.weight", FF, E);
#undef T
    }
    kvb_model m;
    kvb_quant q;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_MODEL_INIT(&m) | KVB_QUANT_INIT(&q), KVB_OK);
    kvb_status st = kvb_gguf_parse(b.p, b.n, &m, &q, NULL, &e);
    if (st)
        fail_msg("%s: %s", e.field, e.message);
    assert_int_equal(m.sliding_window_pattern, 6);
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.context_size = 8192;
    s.max_num_seqs = 1;
    kvb_gpu g = gpu_of(24 * GIB, 1);
    kvb_plan p;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_plan_compute(&m, &q, &g, &s, &p, &e), KVB_OK);
    /* layer 5 global: 8192 cells; 0-4 slide: pad(512 + 512, 256) = 1024;
     * 2 KV heads x 64 x 2 (K, V) x 2 B = 512 B a cell */
    assert_int_equal(p.kv_cache_bytes_per_gpu, (8192 + 5 * 1024) * 512);
    assert_int_equal(p.context_size, 8192);
}

/* ---- real start-up logs (tests/fidelity/data/engines/llamacpp.jsonl) */

typedef struct record {
    const char *id, *source;
    kvb_model m;
    int32_t engine;
    uint32_t version;
    uint64_t ctx; /* -c / --ctx-size as the runner got it */
    uint32_t seqs;
    int32_t fa, ct;
    uint64_t kv_logged; /* the engine's printed KV total, bytes */
    uint64_t tolerance; /* its print precision */
} record;

static uint64_t mib(double x)
{
    return (uint64_t)(x * MIB + 0.5);
}

static void test_llama_real_logs(void **state)
{
    (void)state;
    /* CohereForAI/c4ai-command-r-v01 shape (inferred in the record) */
    kvb_model cmdr =
        mk(KVB_ARCH_GENERIC, 40, 8192, 64, 64, 128, 22528, 256000, 131072);
    /* Llama-3-70B shape */
    kvb_model l70 =
        mk(KVB_ARCH_LLAMA, 80, 8192, 64, 8, 128, 28672, 128256, 131072);
    /* meta-llama/Llama-3.2-3B */
    kvb_model l3b =
        mk(KVB_ARCH_LLAMA, 28, 3072, 24, 8, 128, 8192, 128256, 131072);
    l3b.tie_word_embeddings = 1;
    /* DeepSeek-R1 671B (deepseek-ai/DeepSeek-R1 config.json) */
    kvb_model r1 =
        mk(KVB_ARCH_DEEPSEEK_V3, 61, 7168, 128, 128, 0, 18432, 129280, 163840);
    r1.kv_lora_rank = 512;
    r1.q_lora_rank = 1536;
    r1.qk_rope_head_dim = 64;
    r1.qk_nope_head_dim = 128;
    r1.v_head_dim = 128;
    r1.num_experts = 256;
    r1.num_experts_per_tok = 8;
    r1.num_shared_experts = 1;
    r1.moe_intermediate_size = 2048;
    r1.first_k_dense_replace = 3;
    /* Qwen/Qwen2.5-32B */
    kvb_model q32 =
        mk(KVB_ARCH_QWEN2, 64, 5120, 40, 8, 128, 27648, 152064, 131072);
    kvb_model v2l = deepseek_v2_lite();
    kvb_model g12 = gemma3_12b();
    const record recs[] = {
        {"llamacpp-log-001", "github.com/ggml-org/llama.cpp/pull/6122", cmdr,
         KVB_ENGINE_LLAMA_CPP, 2450, 4096, 1, 0, F16, mib(5120.00), mib(0.005)},
        {"llamacpp-log-002", "github.com/ollama/ollama/issues/9181", l70,
         KVB_ENGINE_OLLAMA, 511, 64000, 1, 1, F16, (uint64_t)(19.5 * GIB),
         GIB / 20},
        {"llamacpp-log-003", "github.com/ollama/ollama/pull/12000", g12,
         KVB_ENGINE_OLLAMA, 1100, 8192, 1, 0, F16, mib(992.0), mib(0.05)},
        {"llamacpp-log-004", "github.com/ollama/ollama/issues/8098", l3b,
         KVB_ENGINE_OLLAMA, 500, 8192, 4, 0, F16, mib(896.0), mib(0.05)},
        {"llamacpp-log-005", "github.com/ollama/ollama/issues/8447", r1,
         KVB_ENGINE_OLLAMA, 507, 2048, 1, 0, F16, mib(9760.00), mib(0.005)},
        {"llamacpp-log-006", "github.com/ggml-org/llama.cpp/issues/11200", q32,
         KVB_ENGINE_LLAMA_CPP, 4450, 32768, 1, 1, Q8_0, mib(4352.00),
         mib(0.005)},
        /* tests/data/logs/llamacpp-oom-compute.log: "KV self size =
         * 5120.00 MiB" before the compute buffers failed; the model path
         * shows "Met..." (Meta-Llama-3.1-70B shape: 16384 cells) */
        {"llamacpp-oom-compute", "github.com/ollama/ollama/issues/6860", l70,
         KVB_ENGINE_LLAMA_CPP, 3700, 16384, 1, 0, F16, mib(5120.00),
         mib(0.005)},
        {"llamacpp-log-008", "github.com/ggml-org/llama.cpp/issues/8817", v2l,
         KVB_ENGINE_LLAMA_CPP, 3500, 0, 1, 0, F16, 45298483200ull, GIB},
    };
    for (size_t i = 0; i < sizeof recs / sizeof recs[0]; i++) {
        const record *r = &recs[i];
        kvb_serving s = serving_default();
        s.engine = r->engine;
        s.engine_version = r->version;
        s.context_size = r->ctx;
        s.max_num_seqs = r->seqs;
        s.flash_attn = r->fa;
        s.cache_type_k = s.cache_type_v = r->ct;
        /* every layer on one large GPU: the KV total, as printed */
        s.n_gpu_layers = 999;
        kvb_quant q = quant_of(KVB_QUANT_Q4_K_M);
        kvb_gpu g = gpu_of(4096 * GIB, 1);
        kvb_plan p;
        kvb_error e = KVB_ERROR_INIT;
        assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
        kvb_status st = kvb_plan_compute(&r->m, &q, &g, &s, &p, &e);
        if (st)
            fail_msg("%s: %s", r->id, e.message);
        uint64_t kv = p.kv_cache_bytes_per_gpu;
        uint64_t d = kv > r->kv_logged ? kv - r->kv_logged : r->kv_logged - kv;
        if (d > r->tolerance)
            fail_msg("%s (%s): KV %.2f MiB, the log %.2f MiB", r->id, r->source,
                     (double)kv / MIB, (double)r->kv_logged / MIB);
    }
}

/* log-005 in detail: -ngl 1 (Ollama's choice under the overhead it was
 * given) puts the last layer's 160 MiB of KV on CUDA0 and 9600 MiB in
 * host RAM; log-008: the default context of that build (n_ctx_train) does
 * not fit. */
static void test_llama_real_logs_split(void **state)
{
    (void)state;
    kvb_model r1 =
        mk(KVB_ARCH_DEEPSEEK_V3, 61, 7168, 128, 128, 0, 18432, 129280, 163840);
    r1.kv_lora_rank = 512;
    r1.q_lora_rank = 1536;
    r1.qk_rope_head_dim = 64;
    r1.qk_nope_head_dim = 128;
    r1.v_head_dim = 128;
    r1.num_experts = 256;
    r1.num_experts_per_tok = 8;
    r1.num_shared_experts = 1;
    r1.moe_intermediate_size = 2048;
    r1.first_k_dense_replace = 3;
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_OLLAMA;
    s.engine_version = 507;
    s.max_model_len = 2048;
    s.n_gpu_layers = 1;
    kvb_quant q = quant_of(KVB_QUANT_Q4_K_M);
    kvb_gpu g = gpu_of(80 * GIB, 1);
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_plan_compute(&r1, &q, &g, &s, &p, &e), KVB_OK);
    assert_int_equal(p.kv_cache_bytes_per_gpu, 160 * MIB);
    assert_int_equal(p.layers_on_gpu, 1);
    assert_int_equal(p.layers_total, 62);
    assert_true(p.host_bytes > 9600 * MIB);
    assert_int_equal(p.context_size, 2048);

    kvb_model v2l = deepseek_v2_lite();
    s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.engine_version = 3500; /* c8a0090, 2024-08 */
    s.n_gpu_layers = 29;
    g = gpu_of(16 * GIB, 1);
    assert_int_equal(kvb_plan_compute(&v2l, &q, &g, &s, &p, &e), KVB_OK);
    assert_int_equal(p.context_size, 163840);
    assert_int_equal(p.verdict, KVB_VERDICT_NO_KV_MEMORY);
    char text[512];
    assert_int_equal(kvb_plan_engine_error(&p, text, sizeof text, NULL, &e),
                     KVB_OK);
    assert_non_null(strstr(text, "failed to allocate buffer for kv cache"));
    assert_non_null(strstr(text, "cudaMalloc failed: out of memory"));
}

/* One device's share, against the device lines of two logs (CUDA
 * backend): llamacpp-log-006 (ggml-org/llama.cpp issue #11200, Qwen2.5-32B
 * shape, b~4450, q8_0, -c 32768): CUDA0 held 41 of 64 layers, "CUDA0 KV
 * buffer size = 2788.00 MiB", "CUDA0 compute buffer size = 233.00 MiB";
 * llamacpp-log-001 (PR #6122, Command-R shape, -c 4096, flash attention
 * off): CUDA0 held 12 of 40, "1536.00 MiB", "672.01 MiB". */
static void test_llama_real_logs_device(void **state)
{
    (void)state;
    kvb_model q32 =
        mk(KVB_ARCH_QWEN2, 64, 5120, 40, 8, 128, 27648, 152064, 131072);
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.engine_version = 4450;
    s.context_size = 32768;
    s.max_num_seqs = 1;
    s.flash_attn = 1;
    s.cache_type_k = s.cache_type_v = Q8_0;
    s.n_gpu_layers = 41;
    kvb_plan p = plan_of(&q32, s, 24 * GIB);
    assert_int_equal(p.kv_cache_bytes_per_gpu, 2788 * MIB);
    double cb = (double)p.compute_buffer_bytes_per_gpu / MIB;
    assert_true(fabs(cb - 233.00) <= 0.15 * 233.00);

    kvb_model cmdr =
        mk(KVB_ARCH_GENERIC, 40, 8192, 64, 64, 128, 22528, 256000, 131072);
    s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.engine_version = 2450;
    s.context_size = 4096;
    s.max_num_seqs = 1;
    s.flash_attn = 0;
    s.n_gpu_layers = 12;
    p = plan_of(&cmdr, s, 24 * GIB);
    assert_int_equal(p.kv_cache_bytes_per_gpu, 1536 * MIB);
    cb = (double)p.compute_buffer_bytes_per_gpu / MIB;
    assert_true(fabs(cb - 672.01) <= 0.15 * 672.01);
}

/* llamacpp-log-002 (ollama/ollama issue #9181, ~0.5.11, 4 x L4, 44 of 81
 * layers): Ollama's own graph estimate, memory.graph.partial="8.2 GiB". */
static void test_ollama_estimate_log002(void **state)
{
    (void)state;
    kvb_model l70 =
        mk(KVB_ARCH_LLAMA, 80, 8192, 64, 8, 128, 28672, 128256, 131072);
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_OLLAMA;
    s.engine_version = 511;
    s.max_model_len = 64000;
    s.flash_attn = 1;
    s.n_gpu_layers = 44;
    kvb_quant q = quant_of(KVB_QUANT_Q8_0);
    kvb_gpu g = gpu_of(22 * GIB, 4);
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_plan_compute(&l70, &q, &g, &s, &p, &e), KVB_OK);
    double graph = KVB__GIB(p.compute_buffer_bytes_per_gpu);
    assert_true(fabs(graph - 8.2) < 0.05 * 8.2);
    assert_int_equal(p.layers_on_gpu, 44);
}

/* tests/data/logs/llamacpp-oom-kv.log (abetlen/llama-cpp-python issue
 * #1944): DeepSeek-V3 671B Q2_K_L on 4 x A100 80GB, llama.cpp of early 2025
 * (per-head K and V), the training context: "allocating 204800.00 MiB on
 * device 0" for the KV cache of device 0's 16 of 61 layers, then "failed
 * to allocate buffer for kv cache". */
static void test_llama_real_log_kv_oom(void **state)
{
    (void)state;
    kvb_model v3 =
        mk(KVB_ARCH_DEEPSEEK_V3, 61, 7168, 128, 128, 0, 18432, 129280, 163840);
    v3.kv_lora_rank = 512;
    v3.q_lora_rank = 1536;
    v3.qk_rope_head_dim = 64;
    v3.qk_nope_head_dim = 128;
    v3.v_head_dim = 128;
    v3.num_experts = 256;
    v3.num_experts_per_tok = 8;
    v3.num_shared_experts = 1;
    v3.moe_intermediate_size = 2048;
    v3.first_k_dense_replace = 3;
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.engine_version = 4700;
    s.context_size = 163840;
    s.max_num_seqs = 1;
    s.n_gpu_layers = 999;
    s.weights_bytes = 244000000000ull; /* the Q2_K_L files, about 244 GB */
    kvb_quant q = quant_of(KVB_QUANT_Q4_K_M);
    kvb_gpu g = gpu_of(80 * GIB, 4);
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_plan_compute(&v3, &q, &g, &s, &p, &e), KVB_OK);
    assert_int_equal(p.kv_cache_bytes_per_gpu, 204800 * MIB);
    assert_int_equal(p.verdict, KVB_VERDICT_NO_KV_MEMORY);
}

/* ---- defaults by build ---- */

static kvb_plan plan_of(const kvb_model *m, kvb_serving s, uint64_t gpu)
{
    kvb_quant q = quant_of(KVB_QUANT_Q4_K_M);
    kvb_gpu g = gpu_of(gpu, 1);
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    kvb_status st = kvb_plan_compute(m, &q, &g, &s, &p, &e);
    if (st)
        fail_msg("%s: %s", e.field, e.message);
    return p;
}

static void test_llama_defaults_by_build(void **state)
{
    (void)state;
    kvb_model m = llama31_8b();
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    /* newest: -np auto = 4 slots sharing one unified cache; -c 0 is
     * n_ctx_train, which --fit keeps when it fits (80 GiB) */
    kvb_plan p = plan_of(&m, s, 80 * GIB);
    assert_int_equal(p.max_num_seqs, 4);
    assert_int_equal(p.context_size, 131072);
    assert_int_equal(p.kv_cache_bytes_per_gpu, 16384 * MIB);
    assert_int_equal(p.verdict, KVB_VERDICT_FITS);
    /* on 16 GiB --fit lowers the context: the largest 256-cell step whose
     * KV and compute fit with its 1 GiB margin */
    p = plan_of(&m, s, 16 * GIB);
    assert_true(p.context_size >= 4096 && p.context_size < 131072);
    assert_int_equal(p.context_size % 256, 0);
    assert_int_equal(p.verdict, KVB_VERDICT_FITS);
    /* b5000: -c 4096, one slot */
    s.engine_version = 5000;
    p = plan_of(&m, s, 80 * GIB);
    assert_int_equal(p.context_size, 4096);
    assert_int_equal(p.max_num_seqs, 1);
    assert_int_equal(p.kv_cache_bytes_per_gpu, 512 * MIB);
    /* b3500: -c 0 was n_ctx_train */
    s.engine_version = 3500;
    p = plan_of(&m, s, 80 * GIB);
    assert_int_equal(p.context_size, 131072);
    /* b6000 without flash attention padded the cache to 32, not 256 */
    s.engine_version = 6000;
    s.context_size = 5000;
    p = plan_of(&m, s, 80 * GIB);
    assert_int_equal(p.context_size, 5024);
    s.flash_attn = 1;
    p = plan_of(&m, s, 80 * GIB);
    assert_int_equal(p.context_size, 5120);
    /* -np 3 without --kv-unified: n_ctx_seq = pad(5000 / 3, 256) */
    s.engine_version = 0;
    s.max_num_seqs = 3;
    p = plan_of(&m, s, 80 * GIB);
    assert_int_equal(p.max_model_len, 1792);
    assert_int_equal(p.context_size, 5376);
    s.kv_unified = 1;
    p = plan_of(&m, s, 80 * GIB);
    assert_int_equal(p.max_model_len, 5120);
    assert_int_equal(p.context_size, 5120);
}

static void test_llama_quantized_v_needs_fa(void **state)
{
    (void)state;
    kvb_model m = llama31_8b();
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.flash_attn = 0;
    s.cache_type_v = Q8_0;
    kvb_quant q = quant_of(KVB_QUANT_Q4_K_M);
    kvb_gpu g = gpu_of(80 * GIB, 1);
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_plan_compute(&m, &q, &g, &s, &p, &e), KVB_EINVAL);
    assert_string_equal(e.field, "serving.cache_type_v");
}

/* ---- offload: layers from the end, output only when ngl > n_layer ---- */

static void test_llama_offload(void **state)
{
    (void)state;
    kvb_model m = llama31_8b();
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.context_size = 8192;
    s.max_num_seqs = 1;
    s.n_gpu_layers = 99;
    kvb_plan all = plan_of(&m, s, 80 * GIB);
    assert_int_equal(all.layers_on_gpu, 33);
    assert_int_equal(all.layers_total, 33);
    assert_int_equal(all.kv_cache_bytes_per_gpu, 1024 * MIB);
    s.n_gpu_layers = 16;
    kvb_plan half = plan_of(&m, s, 80 * GIB);
    assert_int_equal(half.layers_on_gpu, 16);
    assert_int_equal(half.kv_cache_bytes_per_gpu, 512 * MIB);
    /* host: 16 layers' weights, the embedding, the output, 512 MiB KV and
     * the output buffer */
    assert_true(half.host_bytes > 512 * MIB + half.weights_bytes_per_gpu);
    assert_true(half.weights_bytes_per_gpu < all.weights_bytes_per_gpu / 2);
    /* no output layer on the GPU: the compute buffer holds no logits
     * (llama-server reserves one row a slot since PR #23861; b6000 a row
     * a token) */
    assert_true(half.compute_buffer_bytes_per_gpu <=
                all.compute_buffer_bytes_per_gpu);
    s.engine_version = 6000;
    s.flash_attn = 1;
    s.n_gpu_layers = 99;
    kvb_plan all6 = plan_of(&m, s, 80 * GIB);
    s.n_gpu_layers = 16;
    kvb_plan half6 = plan_of(&m, s, 80 * GIB);
    assert_true(half6.compute_buffer_bytes_per_gpu + 100 * MIB <
                all6.compute_buffer_bytes_per_gpu);
    s.engine_version = 0;
    s.flash_attn = -1;
    s.n_gpu_layers = 0;
    kvb_plan none = plan_of(&m, s, 80 * GIB);
    assert_int_equal(none.layers_on_gpu, 0);
    assert_int_equal(none.kv_cache_bytes_per_gpu, 0);
    assert_int_equal(none.weights_bytes_per_gpu, 0);
    /* --n-cpu-moe: the experts of the first layers stay in host RAM */
    kvb_model moe = qwen3_30b_a3b();
    s.n_gpu_layers = 99;
    kvb_plan gpu = plan_of(&moe, s, 80 * GIB);
    s.n_cpu_moe = 24;
    kvb_plan cpu = plan_of(&moe, s, 80 * GIB);
    assert_true(cpu.weights_bytes_per_gpu < gpu.weights_bytes_per_gpu * 6 / 10);
    assert_true(cpu.host_bytes > gpu.host_bytes);
    assert_int_equal(cpu.kv_cache_bytes_per_gpu, gpu.kv_cache_bytes_per_gpu);
}

static void test_llama_verdicts(void **state)
{
    (void)state;
    kvb_model m = llama31_8b();
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.context_size = 8192;
    s.max_num_seqs = 1;
    s.n_gpu_layers = 99;
    kvb_plan p = plan_of(&m, s, 4 * GIB);
    assert_int_equal(p.verdict, KVB_VERDICT_WEIGHTS_EXCEED);
    char text[512];
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_plan_engine_error(&p, text, sizeof text, NULL, &e),
                     KVB_OK);
    assert_non_null(strstr(text, "failed to allocate CUDA0 buffer of size"));
    s.context_size = 131072;
    p = plan_of(&m, s, 8 * GIB);
    assert_int_equal(p.verdict, KVB_VERDICT_NO_KV_MEMORY);
    assert_true(p.max_model_len_fit > 0 && p.max_model_len_fit < 131072);
    assert_int_equal(p.max_model_len_fit % 256, 0);
    /* the largest context that fits does fit */
    s.context_size = p.max_model_len_fit;
    p = plan_of(&m, s, 8 * GIB);
    assert_int_equal(p.verdict, KVB_VERDICT_FITS);
    assert_int_equal(p.max_total_tokens, s.context_size);
    s.host_memory_bytes = GIB;
    s.n_gpu_layers = 8;
    p = plan_of(&m, s, 8 * GIB);
    assert_int_equal(p.verdict, KVB_VERDICT_WEIGHTS_EXCEED);
    assert_non_null(strstr(p.message, "host RAM"));
}

/* ---- Ollama ---- */

static void test_ollama_defaults(void **state)
{
    (void)state;
    kvb_model m = llama31_8b();
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_OLLAMA;
    s.engine_version = 500; /* 0.5.0: num_ctx 2048 */
    kvb_plan p = plan_of(&m, s, 24 * GIB);
    assert_int_equal(p.max_model_len, 2048);
    assert_int_equal(p.max_num_seqs, 1);
    assert_int_equal(p.kv_cache_bytes_per_gpu, 256 * MIB);
    s.engine_version = 608; /* 0.6.8: 4096 */
    p = plan_of(&m, s, 24 * GIB);
    assert_int_equal(p.max_model_len, 4096);
    /* newest: by the VRAM tier (24 GiB: 32768), x OLLAMA_NUM_PARALLEL */
    s.engine_version = 0;
    s.max_num_seqs = 2;
    p = plan_of(&m, s, 24 * GIB);
    assert_int_equal(p.max_model_len, 32768);
    assert_int_equal(p.context_size, 65536);
    assert_non_null(strstr(p.warning, "ollama ps"));
    /* OLLAMA_KV_CACHE_TYPE needs flash attention (0.x runner: off) */
    s.engine_version = 900;
    s.max_num_seqs = 1;
    s.cache_type_k = s.cache_type_v = Q8_0;
    p = plan_of(&m, s, 24 * GIB);
    assert_int_equal(p.kv_cache_bytes_per_gpu, 512 * MIB);
    s.flash_attn = 1;
    p = plan_of(&m, s, 24 * GIB);
    /* through 0.12.10 Ollama reports its own estimate: q8_0 as 1 byte an
     * element (fs/ggml/ggml.go kvCacheBytesPerElement); llama.cpp
     * allocates 34 bytes a block of 32 (272 MiB) */
    assert_int_equal(p.kv_cache_bytes_per_gpu, 256 * MIB);
    assert_non_null(strstr(p.warning, "llama.cpp allocates 0.27 GiB"));
    s.engine_version = 1300; /* 0.13: the backend's own sizes */
    p = plan_of(&m, s, 24 * GIB);
    assert_int_equal(p.kv_cache_bytes_per_gpu, 272 * MIB);
}

/* num_gpu unset: Ollama keeps the layers that fit after its reserve. */
static void test_ollama_placement(void **state)
{
    (void)state;
    kvb_model m =
        mk(KVB_ARCH_LLAMA, 80, 8192, 64, 8, 128, 28672, 128256, 131072);
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_OLLAMA;
    s.engine_version = 511;
    s.max_model_len = 8192;
    kvb_plan p = plan_of(&m, s, 24 * GIB);
    assert_true(p.layers_on_gpu > 10 && p.layers_on_gpu < 81);
    assert_int_equal(p.layers_total, 81);
    assert_int_equal(p.verdict, KVB_VERDICT_FITS);
    assert_non_null(strstr(p.warning, "CPU/GPU"));
    uint64_t used = p.weights_bytes_per_gpu + p.kv_cache_bytes_per_gpu +
                    p.compute_buffer_bytes_per_gpu;
    assert_true(used + 457 * MIB <= p.usable_bytes_per_gpu);
    s.gpu_overhead_bytes = 8 * GIB; /* OLLAMA_GPU_OVERHEAD */
    kvb_plan q = plan_of(&m, s, 24 * GIB);
    assert_true(q.layers_on_gpu < p.layers_on_gpu);
}

/* ---- the vision tower: llama.cpp's mmproj, Ollama's projector ---- */

/*
 * Gemma-3-27B (preset, SigLIP tower: 27 blocks of width 1152, MLP 4304,
 * 16 heads, patch 14, image 896; text width 5376).  llama-server without
 * --mmproj loads the language model only; with it, the mmproj file's
 * bytes land on the GPU, as convert_hf_to_gguf.py --mmproj writes them.
 * f16 (ggml-org's mmproj-model-f16.gguf), worked out by hand:
 *   a block: q/k/v/o 4 x 1152^2 + fc1 and fc2 2 x 4304 x 1152 matrices
 *     = 15,224,832 elements x 2 B = 30,449,664 B; its 1-D tensors (2
 *     LayerNorms, 4 + 2 biases) 4 x 1152 + 4 x 1152 + 4304 + 1152 =
 *     14,672 x 4 B (f32) = 58,688 B; x 27 blocks = 823,725,120 B;
 *   patch embedding 1152 x 588 and positions 4096 x 1152, f32
 *     (Gemma3VisionModel.tensor_force_quant) = 21,583,872 B, patch bias
 *     4,608 B; post-LayerNorm 9,216 B; mm_soft_emb_norm 4,608 B;
 *   mm_input_projection 5376 x 1152 f16 = 12,386,304 B;
 *   total 857,714,112 B.
 * q8_0 (mmproj-Q8_0.gguf): rows of 1152 take 36 blocks of 34 B (1,224
 * B); fc2's rows of 4304 are not whole blocks and stay f16:
 *   a block: 4 x 1152 x 1224 + 4304 x 1224 + 1152 x 4304 x 2 + 58,688
 *     = 20,883,392 B; x 27 = 563,851,584 B;
 *   the rest as f16 above: 21,583,872 + 4,608 + 9,216 + 4,608 +
 *     12,386,304 = 33,988,608 B;  total 597,840,192 B.
 */
static void test_llama_mmproj(void **state)
{
    (void)state;
    kvb_model m;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
    assert_int_equal(kvb_preset_model_find("Gemma-3-27B", &m, &e), KVB_OK);
    assert_int_equal(m.vision_kind, KVB_VISION_SIGLIP);
    kvb_model text = m;
    text.vision_kind = KVB_VISION_NONE;
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.context_size = 8192;
    s.max_num_seqs = 1;
    /* no --mmproj: exactly the language model, and said so */
    kvb_plan lm = plan_of(&text, s, 48 * GIB);
    kvb_plan p = plan_of(&m, s, 48 * GIB);
    assert_int_equal(p.weights_bytes, lm.weights_bytes);
    assert_int_equal(p.weights_bytes_per_gpu, lm.weights_bytes_per_gpu);
    assert_non_null(strstr(p.warning, "no --mmproj"));
    assert_null(strstr(lm.warning, "mmproj"));
    /* --mmproj mmproj-model-f16.gguf: + 857,714,112 B on the GPU */
    s.mmproj = KVB_MMPROJ_LOAD;
    p = plan_of(&m, s, 48 * GIB);
    assert_int_equal(p.weights_bytes_per_gpu - lm.weights_bytes_per_gpu,
                     857714112);
    assert_int_equal(p.host_bytes, lm.host_bytes);
    assert_non_null(strstr(p.warning, "mmproj 0.80 GiB on the main GPU"));
    /* mmproj-Q8_0.gguf: + 597,840,192 B */
    s.mmproj_type = Q8_0;
    p = plan_of(&m, s, 48 * GIB);
    assert_int_equal(p.weights_bytes_per_gpu - lm.weights_bytes_per_gpu,
                     597840192);
    /* --no-mmproj-offload: the file in host RAM instead */
    s.mmproj |= KVB_MMPROJ_CPU;
    p = plan_of(&m, s, 48 * GIB);
    assert_int_equal(p.weights_bytes_per_gpu, lm.weights_bytes_per_gpu);
    assert_int_equal(p.host_bytes - lm.host_bytes, 597840192);
    assert_non_null(strstr(p.warning, "in host RAM"));
    /* -hf brings the repository's mmproj (f16 unless --mmproj names
     * another); --no-mmproj wins over it */
    s.mmproj = KVB_MMPROJ_HF;
    s.mmproj_type = -1;
    p = plan_of(&m, s, 48 * GIB);
    assert_int_equal(p.weights_bytes_per_gpu - lm.weights_bytes_per_gpu,
                     857714112);
    s.mmproj = KVB_MMPROJ_HF | KVB_MMPROJ_NONE;
    p = plan_of(&m, s, 48 * GIB);
    assert_int_equal(p.weights_bytes_per_gpu, lm.weights_bytes_per_gpu);
    /* --mmproj FILE next to a model with no tower (a GGUF read): nothing
     * to count, and said so; -hf alone says nothing */
    s.mmproj = KVB_MMPROJ_LOAD;
    p = plan_of(&text, s, 48 * GIB);
    assert_int_equal(p.weights_bytes_per_gpu, lm.weights_bytes_per_gpu);
    assert_non_null(strstr(p.warning, "no tower to count"));
    s.mmproj = KVB_MMPROJ_HF;
    p = plan_of(&text, s, 48 * GIB);
    assert_null(strstr(p.warning, "mmproj"));
    /* other engines ignore the setting: vLLM counts the tower */
    s = serving_default();
    kvb_plan v = plan_of(&m, s, 80 * GIB);
    kvb_plan vt = plan_of(&text, s, 80 * GIB);
    assert_true(v.weights_bytes > vt.weights_bytes);
}

/*
 * Ollama's gemma3:27b is one GGUF with the tower ("v." tensors); through
 * 0.12.10 llm/memory.go adds their weights and fs/ggml/ggml.go
 * VisionGraphSize's image graph to the output layer:
 *   4 x (896^2 x 3 + 1152 x 14 + 4096^2 x 16) = 4 x (2,408,448 + 16,128
 *   + 268,435,456) = 1,083,440,128 B,
 * so the compute buffer of a full offload grows by exactly that.  Later
 * versions place the backend's measured sizes (no image graph term).
 */
static void test_ollama_projector(void **state)
{
    (void)state;
    kvb_model m;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
    assert_int_equal(kvb_preset_model_find("Gemma-3-27B", &m, &e), KVB_OK);
    kvb_model text = m;
    text.vision_kind = KVB_VISION_NONE;
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_OLLAMA;
    s.engine_version = 1210; /* 0.12.10 */
    kvb_plan p = plan_of(&m, s, 48 * GIB);
    kvb_plan t = plan_of(&text, s, 48 * GIB);
    assert_int_equal(p.layers_on_gpu, p.layers_total);
    assert_int_equal(p.compute_buffer_bytes_per_gpu -
                         t.compute_buffer_bytes_per_gpu,
                     1083440128);
    /* the tower's weights (16-bit, as the inventory counts them) are
     * loaded with the output layer, on the GPU */
    assert_true(p.weights_bytes_per_gpu > t.weights_bytes_per_gpu + 800e6);
    assert_non_null(strstr(p.warning, "image graph 1.01 GiB"));
    assert_non_null(strstr(p.warning, "projector 0.79 GiB"));
    /* a 24 GiB card: the image graph no longer leaves room for the
     * output layer (Q4_K_M 27B + 1 GiB graph), so fewer layers go */
    kvb_plan small = plan_of(&m, s, 20 * GIB);
    kvb_plan small_t = plan_of(&text, s, 20 * GIB);
    assert_true(small.layers_on_gpu < small_t.layers_on_gpu);
    s.engine_version = 0; /* newest: measured sizes, no image graph */
    p = plan_of(&m, s, 48 * GIB);
    t = plan_of(&text, s, 48 * GIB);
    assert_int_equal(p.compute_buffer_bytes_per_gpu,
                     t.compute_buffer_bytes_per_gpu);
    assert_true(p.weights_bytes_per_gpu > t.weights_bytes_per_gpu);
    assert_non_null(strstr(p.warning, "image graph is not counted"));
    assert_null(strstr(t.warning, "image graph"));
}

/* ---- command lines ---- */

typedef struct read_result {
    kvb_command cmd;
    kvb_serving s;
    kvb_error err;
    kvb_status st;
} read_result;

static read_result read_line(const char *line, const char *const *env)
{
    read_result r;
    char buf[1024];
    const char *argv[64];
    size_t argc = 0;
    assert_int_equal(KVB_COMMAND_INIT(&r.cmd), KVB_OK);
    r.s = serving_default();
    r.err = (kvb_error)KVB_ERROR_INIT;
    assert_int_equal(
        kvb_command_split(line, buf, sizeof buf, argv, 64, &argc, &r.err),
        KVB_OK);
    r.st = kvb_command_read(argc, argv, env, -1, &r.cmd, &r.s, &r.err);
    return r;
}

static void test_llama_cmdline(void **state)
{
    (void)state;
    read_result r = read_line("llama-server -m /models/x.gguf -c 8192 -ngl 99 "
                              "-np 4 -fa on -ctk q8_0 -ctv q8_0 --swa-full "
                              "-ub 1024 -b 4096 --host 0.0.0.0 --jinja",
                              NULL);
    if (r.st)
        fail_msg("%s", r.err.message);
    assert_int_equal(r.cmd.engine, KVB_ENGINE_LLAMA_CPP);
    assert_string_equal(r.cmd.model, "/models/x.gguf");
    assert_int_equal(r.s.context_size, 8192);
    assert_int_equal(r.s.n_gpu_layers, 99);
    assert_int_equal(r.s.max_num_seqs, 4);
    assert_int_equal(r.s.flash_attn, 1);
    assert_int_equal(r.s.cache_type_k, Q8_0);
    assert_int_equal(r.s.cache_type_v, Q8_0);
    assert_int_equal(r.s.swa_full, 1);
    assert_int_equal(r.s.ubatch_size, 1024);
    assert_int_equal(r.s.max_num_batched_tokens, 4096);
    assert_non_null(strstr(r.cmd.ignored, "--host"));
    /* -fa bare (older builds) before another flag; --n-cpu-moe; -ot */
    r = read_line("/app/llama-server --model m.gguf --flash-attn "
                  "--ctx-size 4096 --n-cpu-moe 10 --kv-unified",
                  NULL);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.s.flash_attn, 1);
    assert_int_equal(r.s.context_size, 4096);
    assert_int_equal(r.s.n_cpu_moe, 10);
    assert_int_equal(r.s.kv_unified, 1);
    r = read_line("llama-server -m m.gguf -ot exps=CPU -fa auto", NULL);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.s.n_cpu_moe, 4096);
    assert_int_equal(r.s.flash_attn, -1);
    const char *env[] = {"LLAMA_ARG_CTX_SIZE=16384", "LLAMA_ARG_N_PARALLEL=2",
                         NULL};
    r = read_line("llama-server -m m.gguf", env);
    assert_int_equal(r.s.context_size, 16384);
    assert_int_equal(r.s.max_num_seqs, 2);
    /* the mmproj flags (common/arg.cpp) */
    r = read_line("llama-server -m g.gguf --mmproj /m/mmproj-model-f16.gguf",
                  NULL);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.s.mmproj, KVB_MMPROJ_LOAD);
    assert_int_equal(r.s.mmproj_type, KVB_STORAGE_F16);
    r = read_line("llama-server -m g.gguf -mm mmproj-BF16.gguf "
                  "--no-mmproj-offload",
                  NULL);
    assert_int_equal(r.s.mmproj, KVB_MMPROJ_LOAD | KVB_MMPROJ_CPU);
    assert_int_equal(r.s.mmproj_type, KVB_STORAGE_BF16);
    r = read_line("llama-server -m g.gguf --mmproj /m/bf16/mmproj-Q8_0.gguf",
                  NULL);
    assert_int_equal(r.s.mmproj_type, Q8_0); /* the file's name, not the
                                                 folder's */
    r = read_line("llama-server -m g.gguf --mmproj mmproj.gguf", NULL);
    assert_int_equal(r.s.mmproj_type, -1); /* unnamed: f16 */
    r = read_line("llama-server --no-mmproj -hf ggml-org/gemma-3-27b-it-GGUF",
                  NULL);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.s.mmproj, KVB_MMPROJ_HF | KVB_MMPROJ_NONE);
    const char *mmenv[] = {"LLAMA_ARG_MMPROJ=/m/mmproj-f32.gguf",
                           "LLAMA_ARG_NO_MMPROJ_OFFLOAD=0", NULL};
    r = read_line("llama-server -m g.gguf", mmenv);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.s.mmproj, KVB_MMPROJ_LOAD);
    assert_int_equal(r.s.mmproj_type, KVB_STORAGE_F32);
    r = read_line("llama-server -m m.gguf -ctk q3_x", NULL);
    assert_int_equal(r.st, KVB_EINVAL);
    r = read_line("llama-server -m m.gguf --frobnicate", NULL);
    assert_int_equal(r.st, KVB_EINVAL);
    /* Ollama: the server's environment, and its runner's line */
    const char *oenv[] = {
        "OLLAMA_NUM_PARALLEL=4",         "OLLAMA_CONTEXT_LENGTH=8192",
        "OLLAMA_FLASH_ATTENTION=1",      "OLLAMA_KV_CACHE_TYPE=q8_0",
        "OLLAMA_GPU_OVERHEAD=536870912", NULL};
    r = read_line("ollama run llama3.1:8b --verbose", oenv);
    if (r.st)
        fail_msg("%s", r.err.message);
    assert_int_equal(r.cmd.engine, KVB_ENGINE_OLLAMA);
    assert_string_equal(r.cmd.model, "llama3.1:8b");
    assert_int_equal(r.s.max_num_seqs, 4);
    assert_int_equal(r.s.max_model_len, 8192);
    assert_int_equal(r.s.flash_attn, 1);
    assert_int_equal(r.s.cache_type_v, Q8_0);
    assert_int_equal(r.s.gpu_overhead_bytes, 512 * MIB);
    /* github.com/ollama/ollama/issues/8098 */
    r = read_line("ollama runner --model /root/.ollama/models/blobs/sha256-x "
                  "--ctx-size 8192 --batch-size 512 --n-gpu-layers 29 "
                  "--threads 104 --parallel 4",
                  NULL);
    if (r.st)
        fail_msg("%s", r.err.message);
    assert_int_equal(r.s.context_size, 8192);
    assert_int_equal(r.s.max_num_seqs, 4);
    assert_int_equal(r.s.n_gpu_layers, 29);
}

/* ---- log lines (each from the record named) ---- */

static kvb_log_facts parse(const char *text)
{
    kvb_log_facts f;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_LOG_FACTS_INIT(&f), KVB_OK);
    assert_int_equal(kvb_log_parse(text, strlen(text), &f, &e), KVB_OK);
    return f;
}

static void test_llama_log_lines(void **state)
{
    (void)state;
    /* llamacpp-log-001 (ggml-org/llama.cpp PR #6122): old wording */
    kvb_log_facts f = parse(
        "llm_load_tensors: offloaded 41/41 layers to GPU\n"
        "llm_load_tensors:        CPU buffer size =  1640.62 MiB\n"
        "llm_load_tensors:      CUDA0 buffer size =  5434.38 MiB\n"
        "llm_load_tensors:      CUDA1 buffer size = 13989.53 MiB\n"
        "llama_new_context_with_model: n_ctx      = 4096\n"
        "llama_kv_cache_init:      CUDA0 KV buffer size =  1536.00 MiB\n"
        "llama_kv_cache_init:      CUDA1 KV buffer size =  3584.00 MiB\n"
        "llama_new_context_with_model: KV self size  = 5120.00 MiB, K "
        "(f16): 2560.00 MiB, V (f16): 2560.00 MiB\n"
        "llama_new_context_with_model:      CUDA0 compute buffer size =   "
        "672.01 MiB\n");
    assert_int_equal(f.engine, KVB_ENGINE_LLAMA_CPP);
    assert_int_equal(f.layers_on_gpu, 41);
    assert_int_equal(f.layers_total, 41);
    assert_int_equal(f.weights_bytes, mib(13989.53));
    assert_int_equal(f.context_size, 4096);
    assert_int_equal(f.kv_cache_bytes, (int64_t)(5120 * MIB));
    assert_int_equal(f.compute_buffer_bytes, mib(672.01));
    /* with --mmproj, clip.cpp's warm-up prints its own graph's buffer
     * (tools/mtmd/clip.cpp alloc_compute_meta): not the model's */
    f = parse("llama_context:      CUDA0 compute buffer size =   "
              "266.50 MiB\n"
              "load_hparams: model size:         887.99 MiB\n"
              "warmup: warmup with image size = 1472 x 1472\n"
              "alloc_compute_meta:      CUDA0 compute buffer size =   "
              "1248.10 MiB\n"
              "alloc_compute_meta: graph splits = 1, nodes = 823\n");
    assert_int_equal(f.compute_buffer_bytes, mib(266.50));
    assert_false(KVB_LOG_HAS(&f, WEIGHTS_BYTES));
    /* llamacpp-log-009 (ggml-org/llama.cpp issue #27680): new wording,
     * a sliding-window cache next to the full one */
    f = parse("llama_context: n_seq_max     = 1\n"
              "llama_context: n_ctx         = 64000\n"
              "llama_kv_cache: size =    0.00 MiB ( 64000 cells,   0 layers,  "
              "1/1 seqs), K (f16):    0.00 MiB, V (f16):    0.00 MiB\n"
              "llama_kv_cache: size =  182.75 MiB (  4352 cells,  43 layers,  "
              "1/1 seqs), K (f16):  182.75 MiB, V (f16):    0.00 MiB\n");
    assert_int_equal(f.engine, KVB_ENGINE_LLAMA_CPP);
    assert_int_equal(f.context_size, 64000);
    assert_int_equal(f.n_parallel, 1);
    assert_int_equal(f.kv_cache_bytes, (int64_t)mib(182.75));
    assert_string_equal(f.kv_cache_dtype, "f16");
    /* the facts re-plan the log's own settings */
    kvb_model m;
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
    uint32_t known = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_MODEL_INIT(&m) | KVB_QUANT_INIT(&q) |
                         KVB_GPU_INIT(&g) | KVB_SERVING_INIT(&s),
                     KVB_OK);
    f = parse("load_tensors: offloaded 20/33 layers to GPU\n"
              "llama_context: n_ctx         = 16384\n"
              "llama_kv_cache: size =  544.00 MiB ( 16384 cells,  32 layers, "
              " 1/1 seqs), K (q8_0):  272.00 MiB, V (q8_0):  272.00 MiB\n");
    assert_int_equal(kvb_log_inputs(&f, &m, &q, &g, &s, &known, &e), KVB_OK);
    assert_int_equal(s.engine, KVB_ENGINE_LLAMA_CPP);
    assert_int_equal(s.n_gpu_layers, 20);
    assert_int_equal(s.context_size, 16384);
    assert_int_equal(s.cache_type_k, Q8_0);
    assert_true(known & KVB_LOG_KNOWN_SERVING);
    /* llama-server's slots (ggml-org/llama.cpp issue #17300, b7079; and
     * #23652, b9265, with a time prefix) */
    f = parse("srv          init: initializing slots, n_slots = 4\n"
              "0.02.505.689 I slot   load_model: id  0 | task -1 | new slot, "
              "n_ctx = 1024\n");
    assert_int_equal(f.engine, KVB_ENGINE_LLAMA_CPP);
    assert_int_equal(f.n_parallel, 4);
    assert_int_equal(f.max_model_len, 1024);
    /* the build (ggml-org/llama.cpp issue #18376: version: 7539) */
    f = parse("version: 7539 (83b3b1c27)\n"
              "built with GNU 15.2.0 for Linux x86_64\n");
    assert_int_equal(f.engine, KVB_ENGINE_LLAMA_CPP);
    assert_int_equal(f.engine_version, 7539);
    /* out of memory, as llama.cpp words it */
    f = parse("ggml_backend_cuda_buffer_type_alloc_buffer: allocating "
              "9600.00 MiB on device 0: cudaMalloc failed: out of memory\n"
              "alloc_tensor_range: failed to allocate CUDA0 buffer of size "
              "10066329600\n");
    assert_int_equal(f.failure, KVB_LOG_CUDA_OOM);
    assert_int_equal(f.oom_tried_bytes, 10066329600ull);
    f = parse("llama_init_from_model: failed to initialize the context: "
              "failed to allocate buffer for kv cache\n");
    assert_int_equal(f.failure, KVB_LOG_NO_KV_MEMORY);
    /* llamacpp-log-002 (ollama/ollama issue #9181): Ollama's estimate */
    f = parse(
        "time=2025-02-18T10:00:00.000Z level=INFO source=memory.go:356 "
        "msg=\"offload to cuda\" layers.requested=-1 layers.model=81 "
        "layers.offload=44 layers.split=11,11,11,11 memory.available=\"[22.0 "
        "GiB 22.0 GiB 22.0 GiB 22.0 GiB]\" memory.gpu_overhead=\"0 B\" "
        "memory.required.full=\"127.4 GiB\" memory.required.partial=\"87.1 "
        "GiB\" memory.required.kv=\"19.5 GiB\" memory.graph.full=\"8.2 GiB\" "
        "memory.graph.partial=\"8.2 GiB\"\n"
        "time=2025-02-18T10:00:00.001Z level=INFO source=server.go:376 "
        "msg=\"starting llama server\" cmd=\"/usr/bin/ollama runner "
        "--ctx-size 64000 --batch-size 512 --n-gpu-layers 44 --flash-attn "
        "--parallel 1 --tensor-split 11,11,11,11\"\n");
    assert_int_equal(f.engine, KVB_ENGINE_OLLAMA);
    assert_int_equal(f.layers_on_gpu, 44);
    assert_int_equal(f.layers_total, 81);
    assert_int_equal(f.kv_cache_bytes, (int64_t)(19.5 * GIB));
    assert_int_equal(f.context_size, 64000);
    assert_int_equal(f.n_parallel, 1);
    assert_int_equal(f.compute_buffer_bytes, (uint64_t)(8.2 * GIB + 0.5));
}

/* Sizes no engine prints are not facts: a 30-digit MiB count would
 * overflow the cast to bytes (undefined, C11 6.3.1.4), so it is dropped. */
static void test_llama_log_hostile_sizes(void **state)
{
    (void)state;
    kvb_log_facts f = parse("llama_kv_cache_init:      CUDA0 KV buffer size = "
                            "999999999999999999999999999999.00 MiB\n");
    assert_false(KVB_LOG_HAS(&f, KV_CACHE_BYTES));
    f = parse("time=2025-02-18T10:00:00.000Z level=INFO source=memory.go:356 "
              "msg=\"offload to cuda\" layers.model=81 layers.offload=44 "
              "memory.required.kv=\"99999999999999999999 GiB\"\n");
    assert_int_equal(f.layers_on_gpu, 44);
    assert_false(KVB_LOG_HAS(&f, KV_CACHE_BYTES));
}

/* Ollama from 0.12 logs its layout per device (ml/device.go); the
 * lines below are in that format (sizes from llamacpp-log-004's model). */
static void test_ollama_device_lines(void **state)
{
    (void)state;
    kvb_log_facts f =
        parse("time=2025-11-20T10:00:00.000Z level=INFO source=device.go:240 "
              "msg=\"model weights\" device=CUDA0 size=\"1.9 GiB\"\n"
              "time=2025-11-20T10:00:00.000Z level=INFO source=device.go:245 "
              "msg=\"model weights\" device=CPU size=\"308.2 MiB\"\n"
              "time=2025-11-20T10:00:00.000Z level=INFO source=device.go:251 "
              "msg=\"kv cache\" device=CUDA0 size=\"896.0 MiB\"\n"
              "time=2025-11-20T10:00:00.000Z level=INFO source=device.go:262 "
              "msg=\"compute graph\" device=CUDA0 size=\"424.0 MiB\"\n"
              "time=2025-11-20T10:00:00.000Z level=INFO source=ggml.go:494 "
              "msg=\"offloaded 29/29 layers to GPU\"\n");
    assert_int_equal(f.engine, KVB_ENGINE_OLLAMA);
    assert_int_equal(f.kv_cache_bytes, (int64_t)(896 * MIB));
    assert_int_equal(f.compute_buffer_bytes, 424 * MIB);
    assert_int_equal(f.weights_bytes, (uint64_t)(1.9 * GIB + 0.5));
    assert_int_equal(f.layers_on_gpu, 29);
}

/* ---- fixes in the engines' own words ---- */

static void test_llama_render(void **state)
{
    (void)state;
    kvb_fix f;
    assert_int_equal(KVB_FIX_INIT(&f), KVB_OK);
    f.engine = KVB_ENGINE_LLAMA_CPP;
    f.kind = KVB_FIX_MAX_MODEL_LEN;
    f.max_model_len = 16384;
    f.quant_method = KVB_QUANT_Q4_K_M;
    f.kv_cache_dtype = KVB_DTYPE_FP8;
    kvb_model m = llama31_8b();
    snprintf(m.name, sizeof m.name, "Llama-3.1-8B");
    char buf[512];
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(
        kvb_fix_render(&f, &m, KVB_RENDER_VLLM_ARGS, buf, sizeof buf, NULL, &e),
        KVB_OK);
    assert_string_equal(buf, "-m /models/Llama-3.1-8B-Q4_K_M.gguf -c 16384 "
                             "-np 1 -ngl 99 -fa on -ctk q8_0 -ctv q8_0");
    assert_int_equal(
        kvb_fix_render(&f, &m, KVB_RENDER_K8S_ARGS, buf, sizeof buf, NULL, &e),
        KVB_OK);
    assert_non_null(strstr(buf, "args:\n  - \"-m\"\n"));
    f.engine = KVB_ENGINE_OLLAMA;
    assert_int_equal(
        kvb_fix_render(&f, &m, KVB_RENDER_VLLM_ARGS, buf, sizeof buf, NULL, &e),
        KVB_OK);
    assert_string_equal(buf, "OLLAMA_CONTEXT_LENGTH=16384 "
                             "OLLAMA_NUM_PARALLEL=1 OLLAMA_FLASH_ATTENTION=1 "
                             "OLLAMA_KV_CACHE_TYPE=q8_0");
}

static void test_llama_versions(void **state)
{
    (void)state;
    int32_t engine;
    uint32_t v;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_engine_parse("llama.cpp@b6123", &engine, &v, &e),
                     KVB_OK);
    assert_int_equal(engine, KVB_ENGINE_LLAMA_CPP);
    assert_int_equal(v, 6123);
    assert_int_equal(kvb_engine_parse("ollama@0.12.3", &engine, &v, &e),
                     KVB_OK);
    assert_int_equal(engine, KVB_ENGINE_OLLAMA);
    assert_int_equal(v, 1203);
    assert_int_equal(kvb_engine_parse("llama.cpp@x12", &engine, &v, &e),
                     KVB_EINVAL);
    assert_string_equal(kvb_engine_name(KVB_ENGINE_LLAMA_CPP), "llama.cpp");
    assert_string_equal(kvb_accounting_name(KVB_ACCOUNTING_OLLAMA), "ollama");
}

KVB_TESTS(cmocka_unit_test(test_llama_mmproj),
          cmocka_unit_test(test_ollama_projector),
          cmocka_unit_test(test_llama_kv_equals_llama_cpp),
          cmocka_unit_test(test_llama_unified_swa),
          cmocka_unit_test(test_llama_gguf_gemma3),
          cmocka_unit_test(test_llama_real_logs),
          cmocka_unit_test(test_llama_real_logs_split),
          cmocka_unit_test(test_llama_real_logs_device),
          cmocka_unit_test(test_ollama_estimate_log002),
          cmocka_unit_test(test_llama_real_log_kv_oom),
          cmocka_unit_test(test_llama_defaults_by_build),
          cmocka_unit_test(test_llama_quantized_v_needs_fa),
          cmocka_unit_test(test_llama_offload),
          cmocka_unit_test(test_llama_verdicts),
          cmocka_unit_test(test_ollama_defaults),
          cmocka_unit_test(test_ollama_placement),
          cmocka_unit_test(test_llama_cmdline),
          cmocka_unit_test(test_llama_log_lines),
          cmocka_unit_test(test_llama_log_hostile_sizes),
          cmocka_unit_test(test_ollama_device_lines),
          cmocka_unit_test(test_llama_render),
          cmocka_unit_test(test_llama_versions));
