/*
 * test_hybrid.c -- hybrid layer patterns: weights of every layer kind, KV
 * only for attention layers, and the recurrent state per request, each
 * worked out here by hand from the config.json fields (SOURCES.md).
 */
#include "testing.h"

#include "internal.h"

#include <string.h>

/* Qwen3-Next-80B-A3B (config: hidden 2048, 48 layers, full attention every
 * 4th; Gated DeltaNet with 16 key heads x 128, 32 value heads x 128, conv
 * 4; attention 16 heads, 2 KV heads, head_dim 256, output gate; 512
 * experts of 512 + one shared expert of 512 with a sigmoid gate; vocab
 * 151936, untied).  The HF module shapes: in_proj_qkvz 2048 -> 12288,
 * in_proj_ba 2048 -> 64, conv1d 8192 x 4, q_proj 2048 -> 8192. */
static void test_hybrid_qwen3_next_params_by_hand(void **state)
{
    (void)state;
    const uint64_t H = 2048, V = 151936;
    uint64_t gdn = 12288 * H + 64 * H + 8192 * 4 + 32 + 32 + 128 + H * 4096;
    uint64_t attn = 8192 * H + 512 * H + 512 * H + H * 4096 + 256 + 256;
    uint64_t moe = 512 * H + 512 * 3 * 512 * H + 3 * 512 * H + H;
    uint64_t want = 2 * V * H + 36 * gdn + 12 * attn + 48 * (2 * H + moe) + H;
    assert_int_equal(want, 79674391296ull); /* the model card: "80B" */
    kvb_model m = preset_model("Qwen3-Next-80B-A3B");
    uint64_t total = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_model_param_count(&m, &total, NULL, &e), KVB_OK);
    assert_int_equal(total, want);
}

/* Nemotron-3-Nano-30B-A3B (hidden 2688; pattern of 23 Mamba2, 23 MoE, 6
 * attention blocks; Mamba2 64 heads x 64, 8 groups, state 128, conv 4
 * with bias; attention 32 heads, 2 KV heads x 128; 128 relu2 experts of
 * 1856 + a shared one of 3712, router with e_score_correction_bias; vocab
 * 131072, untied).  in_proj: 4096 (z) + 6144 (x, B, C) + 64 (dt). */
static void test_hybrid_nemotron3_params_by_hand(void **state)
{
    (void)state;
    const uint64_t H = 2688, V = 131072;
    uint64_t mamba = H + 10304 * H + 6144 * 4 + 6144 + 3 * 64 + 4096 + H * 4096;
    uint64_t moe = H + 128 * H + 128 + 128 * 2 * 1856 * H + 2 * 3712 * H;
    uint64_t attn = H + 4096 * H + 256 * H + 256 * H + H * 4096;
    uint64_t want = 2 * V * H + 23 * mamba + 23 * moe + 6 * attn + H;
    assert_int_equal(want, 31577940288ull); /* NVIDIA: "31.6B total" */
    kvb_model m = preset_model("Nemotron-3-Nano-30B-A3B");
    uint64_t total = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_model_param_count(&m, &total, NULL, &e), KVB_OK);
    assert_int_equal(total, want);
}

/* KV only for attention layers: Qwen3-Next 12 x 2 (K, V) x 2 heads x 256
 * x 2 B = 24576 B per token; Nemotron-3 6 x 2 x 2 x 128 x 2 B = 6144.
 * Under PP 2 Qwen3-Next's stages hold 6 attention layers each. */
static void test_hybrid_kv_only_attention(void **state)
{
    (void)state;
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_error e = KVB_ERROR_INIT;
    uint64_t whole = 0, per_gpu = 0;
    kvb_model m = preset_model("Qwen3-Next-80B-A3B");
    assert_int_equal(kvb_kv_bytes_per_token(&m, &q, 1, 2, &whole, &per_gpu, &e),
                     KVB_OK);
    assert_int_equal(whole, 24576);
    assert_int_equal(per_gpu, 12288);
    m = preset_model("Nemotron-3-Nano-30B-A3B");
    assert_int_equal(kvb_kv_bytes_per_token(&m, &q, 1, 1, &whole, &per_gpu, &e),
                     KVB_OK);
    assert_int_equal(whole, 6144);
}

/* vLLM's gated_delta_net_state_shape / mamba2_state_shape, by hand.
 * Qwen3-Next (bf16): conv (2 x 2048 + 4096) x 3 x 2 = 49152 B, temporal
 * 32 x 128 x 128 x 2 = 1048576 B, in 36 layers: 39518208 B per request.
 * Nemotron-3 (conv bf16, mamba_ssm_cache_dtype float32): conv
 * (4096 + 2 x 8 x 128) x 3 x 2 = 36864, temporal 64 x 64 x 128 x 4 =
 * 2097152, in 23 layers: 49082368 B.  At TP 2 both halve. */
static void test_hybrid_state_per_request(void **state)
{
    (void)state;
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_model m = preset_model("Qwen3-Next-80B-A3B");
    uint64_t conv = 0, ssm = 0;
    kvb__state_bytes(&m, &q, 1, &conv, &ssm);
    assert_int_equal(conv, 49152);
    assert_int_equal(ssm, 1048576);
    assert_int_equal(kvb__state_bytes_per_request(&m, &q, 1, 0, 48), 39518208);
    assert_int_equal(kvb__state_bytes_per_request(&m, &q, 2, 0, 48),
                     39518208 / 2);
    m = preset_model("Nemotron-3-Nano-30B-A3B");
    kvb__state_bytes(&m, &q, 1, &conv, &ssm);
    assert_int_equal(conv, 36864);
    assert_int_equal(ssm, 2097152);
    assert_int_equal(kvb__state_bytes_per_request(&m, &q, 1, 0, 52), 49082368);
}

/* A plan of `m` on `version` of `engine`, max_model_len `max_len`, with
 * the KV cache memory given outright (--kv-cache-memory) so the
 * arithmetic in the tests below is the whole story. */
static kvb_status plan_model(const kvb_model *m, const kvb_quant *q,
                             uint64_t gpu_bytes, uint32_t version,
                             int32_t engine, uint32_t tp, uint64_t kv_bytes,
                             uint64_t max_len, kvb_plan *p, kvb_error *e)
{
    kvb_gpu g = gpu_of(gpu_bytes, 8);
    g.compute_capability = 90;
    kvb_serving s = serving_default();
    s.engine = engine;
    s.engine_version = version;
    s.tensor_parallel_size = tp;
    s.max_model_len = max_len;
    s.kv_cache_memory_bytes = kv_bytes;
    assert_int_equal(KVB_PLAN_INIT(p), KVB_OK);
    assert_int_equal(kvb_error_init(e, sizeof *e), KVB_OK);
    return kvb_plan_compute(m, q, &g, &s, p, e);
}

/* The same for a preset on an H200-sized GPU, max_model_len 262144. */
static kvb_status plan_hybrid(const char *model, uint32_t version,
                              int32_t engine, uint32_t tp, uint64_t kv_bytes,
                              kvb_plan *p, kvb_error *e)
{
    kvb_model m = preset_model(model);
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    return plan_model(&m, &q, 141 * GIB, version, engine, tp, kv_bytes, 262144,
                      p, e);
}

static bool near(double x, double want)
{
    return x > want - 1e-9 && x < want + 1e-9;
}

/*
 * vLLM 0.11.0, Qwen3-Next at TP 2 (vllm/model_executor/models/config.py
 * HybridAttentionMambaModelConfig; vllm/v1/core/kv_cache_utils.py):
 *   attention page of one token, one layer, one rank: 2 x 1 KV head x 256
 *     x 2 B = 1024 B;
 *   a Gated DeltaNet layer's state on one rank (MambaSpec page): conv
 *     (2 x 16 x 128 + 32 x 128) / 2 x 3 x 2 B = 24576 B, temporal
 *     16 x 128 x 128 x 2 B = 524288 B; 548864 B;
 *   attention block = 16 x cdiv(548864, 16 x 1024) = 16 x 34 = 544
 *     tokens; page 544 x 1024 = 557056 B, the state padded to it;
 *   groups: 12 attention and 36 GDN layers, group size 12: 1 + 3 groups;
 *   num_blocks = 20 GiB / 557056 / 12 = 3212;
 *   "GPU KV cache size": 3212 // 4 groups x 544 = 436832 tokens;
 *   a 262144-token request: cdiv(262144, 544) = 482 attention blocks + 3
 *     state blocks = 485; concurrency 3212 / 485;
 *   KV needed at 262144: (12 x 482 + 36 x 1) pages = 3242065920 B.
 * With 2 GiB: 3855 pages; (3855 - 36) // 12 = 318 blocks per attention
 * layer, so the largest max_model_len that fits is 318 x 544 = 172992.
 */
static void test_hybrid_vllm_qwen3_next(void **state)
{
    (void)state;
    kvb_plan p;
    kvb_error e;
    assert_int_equal(plan_hybrid("Qwen3-Next-80B-A3B", 1100, KVB_ENGINE_VLLM, 2,
                                 20 * GIB, &p, &e),
                     KVB_OK);
    assert_int_equal(p.block_size, 544);
    assert_int_equal(p.kv_cache_groups, 4);
    assert_int_equal(p.block_bytes_per_gpu, 557056ull * 12);
    assert_int_equal(p.num_blocks, 3212);
    assert_int_equal(p.max_kv_tokens, 436832);
    assert_true(p.max_concurrency > 3212.0 / 485 - 1e-9 &&
                p.max_concurrency < 3212.0 / 485 + 1e-9);
    assert_int_equal(p.kv_needed_bytes_per_gpu, 3242065920ull);
    assert_int_equal(p.verdict, KVB_VERDICT_FITS);
    assert_non_null(strstr(p.warning, "544 tokens"));
    assert_int_equal(plan_hybrid("Qwen3-Next-80B-A3B", 1100, KVB_ENGINE_VLLM, 2,
                                 2 * GIB, &p, &e),
                     KVB_OK);
    assert_int_equal(p.max_model_len_fit, 172992);
    assert_int_equal(p.verdict, KVB_VERDICT_MAX_LEN_EXCEEDS_KV);
}

/*
 * vLLM 0.10.2, Nemotron-3 Nano at TP 1 (the preset's state in float32,
 * as --mamba-ssm-cache-dtype float32 gives it): a Mamba2 layer's state
 * conv (4096 + 2 x 8 x 128) x 3 x 2 B = 36864 B + temporal 64 x 64 x 128
 * x 4 B = 2097152 B = 2134016 B; attention token page 2 x 2 x 128 x 2 B =
 * 1024 B; block 16 x cdiv(2134016, 16384) = 16 x 131 = 2096 tokens;
 * 6 attention and 23 Mamba2 layers: group size 6, 1 + 4 groups;
 * num_blocks = 20 GiB / (2096 x 1024) / 6 = 1667; tokens 1667 // 5 x 2096
 * = 697968; a 262144-token request: 126 + 4 blocks.
 */
static void test_hybrid_vllm_nemotron3(void **state)
{
    (void)state;
    kvb_plan p;
    kvb_error e;
    assert_int_equal(plan_hybrid("Nemotron-3-Nano-30B-A3B", 1002,
                                 KVB_ENGINE_VLLM, 1, 20 * GIB, &p, &e),
                     KVB_OK);
    assert_int_equal(p.block_size, 2096);
    assert_int_equal(p.kv_cache_groups, 5);
    assert_int_equal(p.num_blocks, 1667);
    assert_int_equal(p.max_kv_tokens, 697968);
    assert_true(p.max_concurrency > 1667.0 / 130 - 1e-9 &&
                p.max_concurrency < 1667.0 / 130 + 1e-9);
}

/*
 * Qwen3-Next at TP 2 with the 20 GiB above, on the releases after 0.11.0
 * (lib/engines/vllm.c, "hybrids"): the block (544), the groups (1 + 3 of
 * 12) and num_blocks (3212) are those of 0.11.0 in every one; what
 * changes is the state pages a request holds and how tokens are reported.
 *   0.20.0, prefix caching off for hybrids (opt-in until PR #50991), the
 *     vllm-v1 line: as 0.11.0, 436832 tokens, concurrency 3212 / 485;
 *   0.27.0, still off, the 0.21 line: 482 + 3 = 485 blocks a request;
 *     tokens int(3212 / 485 x 262144) = int(842006528 / 485 =
 *     1736095.93) = 1736095; needed 12 x 557056 x 485 = 3242065920 B;
 *   0.28.0 and the newest, mamba_cache_mode "align" by default: two pages
 *     per GDN group, 482 + 3 x 2 = 488 blocks; tokens int(842006528 /
 *     488 = 1725423.2) = 1725423; needed 12 x 557056 x 488 = 3262119936 B.
 * With 2 GiB: 2147483648 / (12 x 557056) = 321.25, so 321 blocks; the
 * largest length is (321 - 3) x 544 = 172992 with one state page,
 * (321 - 6) x 544 = 171360 with two.
 */
static void test_hybrid_vllm_qwen3_next_by_release(void **state)
{
    (void)state;
    kvb_plan p;
    kvb_error e;
    const char *qn = "Qwen3-Next-80B-A3B";
    assert_int_equal(
        plan_hybrid(qn, 2000, KVB_ENGINE_VLLM, 2, 20 * GIB, &p, &e), KVB_OK);
    assert_int_equal(p.accounting, KVB_ACCOUNTING_VLLM_V1);
    assert_int_equal(p.block_size, 544);
    assert_int_equal(p.num_blocks, 3212);
    assert_int_equal(p.max_kv_tokens, 436832);
    assert_true(near(p.max_concurrency, 3212.0 / 485));
    assert_non_null(strstr(p.warning, "1 state page"));

    assert_int_equal(
        plan_hybrid(qn, 2700, KVB_ENGINE_VLLM, 2, 20 * GIB, &p, &e), KVB_OK);
    assert_int_equal(p.accounting, KVB_ACCOUNTING_VLLM_V1_021);
    assert_int_equal(p.block_size, 544);
    assert_int_equal(p.kv_cache_groups, 4);
    assert_int_equal(p.num_blocks, 3212);
    assert_int_equal(p.max_kv_tokens, 1736095);
    assert_true(near(p.max_concurrency, 3212.0 / 485));
    assert_int_equal(p.kv_needed_bytes_per_gpu, 3242065920ull);

    uint32_t align[] = {2800, 0};
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(
            plan_hybrid(qn, align[i], KVB_ENGINE_VLLM, 2, 20 * GIB, &p, &e),
            KVB_OK);
        assert_int_equal(p.block_size, 544);
        assert_int_equal(p.num_blocks, 3212);
        assert_int_equal(p.max_kv_tokens, 1725423);
        assert_true(near(p.max_concurrency, 3212.0 / 488));
        assert_int_equal(p.kv_needed_bytes_per_gpu, 3262119936ull);
        assert_non_null(strstr(p.warning, "2 state pages"));
    }

    assert_int_equal(plan_hybrid(qn, 2700, KVB_ENGINE_VLLM, 2, 2 * GIB, &p, &e),
                     KVB_OK);
    assert_int_equal(p.max_model_len_fit, 172992);
    assert_int_equal(plan_hybrid(qn, 0, KVB_ENGINE_VLLM, 2, 2 * GIB, &p, &e),
                     KVB_OK);
    assert_int_equal(p.max_model_len_fit, 171360);
    assert_int_equal(p.verdict, KVB_VERDICT_MAX_LEN_EXCEEDS_KV);
}

/*
 * Nemotron-3 Nano on one H100 (80 GiB), 20 GiB of KV cache memory: the
 * block (2096), groups (1 + 4 of 6) and num_blocks (1667) of
 * test_hybrid_vllm_nemotron3 in every release.
 *   0.20.0 (one state page): 697968 tokens, concurrency 1667 / (126 + 4);
 *   the newest ("align"): 126 + 4 x 2 = 134 blocks a request;
 *     concurrency 1667 / 134; tokens int(1667 x 262144 / 134) =
 *     int(436994048 / 134 = 3261149.6) = 3261149.
 */
static void test_hybrid_vllm_nemotron3_by_release(void **state)
{
    (void)state;
    kvb_plan p;
    kvb_error e;
    kvb_model m = preset_model("Nemotron-3-Nano-30B-A3B");
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    assert_int_equal(plan_model(&m, &q, 80 * GIB, 2000, KVB_ENGINE_VLLM, 1,
                                20 * GIB, 262144, &p, &e),
                     KVB_OK);
    assert_int_equal(p.block_size, 2096);
    assert_int_equal(p.kv_cache_groups, 5);
    assert_int_equal(p.num_blocks, 1667);
    assert_int_equal(p.max_kv_tokens, 697968);
    assert_true(near(p.max_concurrency, 1667.0 / 130));
    assert_int_equal(plan_model(&m, &q, 80 * GIB, 0, KVB_ENGINE_VLLM, 1,
                                20 * GIB, 262144, &p, &e),
                     KVB_OK);
    assert_int_equal(p.block_size, 2096);
    assert_int_equal(p.num_blocks, 1667);
    assert_int_equal(p.max_kv_tokens, 3261149);
    assert_true(near(p.max_concurrency, 1667.0 / 134));
}

/*
 * A real start-up: Qwen3.6-35B-A3B (Qwen3_5MoeForConditionalGeneration)
 * on vLLM 0.24.0 with --enable-prefix-caching, --kv-cache-dtype fp8,
 * --max-model-len 131072 (https://github.com/noonghunna/club-3090/issues/652):
 *   "Available KV cache memory: 6.01 GiB"
 *   "GPU KV cache size: 569,878 tokens"
 *   "Maximum concurrency for 131,072 tokens per request: 4.35x"
 * Gated DeltaNet has no "all" mode, so the flag gives "align", the mode
 * the newest vLLM takes by default: the plan is made as the newest.  The
 * model: 40 layers, full attention every 4th (10 + 30), 2 KV heads x
 * 256; GDN as Qwen3-Next's (16 key heads x 128, 32 value heads x 128,
 * conv 4) with its state in float32 (mamba_ssm_dtype).
 *   token page: 2 x 2 x 256 x 1 B (fp8) = 1024 B;
 *   state: conv (2 x 16 x 128 + 32 x 128) x 3 x 2 B = 49152 B + temporal
 *     32 x 128 x 128 x 4 B = 2097152 B = 2146304 B;
 *   block 16 x cdiv(2146304, 16 x 1024) = 2096, page 2146304 B (no pad);
 *   groups of 10: 1 + 3; num_blocks = 6.01 GiB / 2146304 / 10 = 300
 *     (any figure that rounds to 6.01 GiB gives 300);
 *   a request: cdiv(131072, 2096) = 63 + 3 x 2 = 69 blocks; 300 / 69 =
 *     4.3478 ("4.35x"); tokens int(39321600 / 69 = 569878.3) = 569878.
 * With one state page (0.24 without the flag) it would be 300 / 66 and
 * int(39321600 / 66 = 595781.8) = 595781: the log rules that out.
 */
static void test_hybrid_vllm_align_log(void **state)
{
    (void)state;
    kvb_model m = preset_model("Qwen3-Next-80B-A3B");
    m.num_hidden_layers = 40;
    snprintf(m.layer_pattern, sizeof m.layer_pattern, "%s",
             "GGGAGGGAGGGAGGGAGGGAGGGAGGGAGGGAGGGAGGGA");
    m.num_experts = 256;
    m.num_experts_per_tok = 8;
    m.ssm_state_dtype = KVB_DTYPE_FP32;
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    q.kv_cache_dtype = KVB_DTYPE_FP8;
    uint64_t avail = (uint64_t)(6.01 * (double)GIB);
    kvb_plan p;
    kvb_error e;
    assert_int_equal(plan_model(&m, &q, 141 * GIB, 0, KVB_ENGINE_VLLM, 1, avail,
                                131072, &p, &e),
                     KVB_OK);
    assert_int_equal(p.block_size, 2096);
    assert_int_equal(p.kv_cache_groups, 4);
    assert_int_equal(p.num_blocks, 300);
    assert_int_equal(p.max_kv_tokens, 569878);
    assert_true(near(p.max_concurrency, 300.0 / 69));
    assert_int_equal(plan_model(&m, &q, 141 * GIB, 2400, KVB_ENGINE_VLLM, 1,
                                avail, 131072, &p, &e),
                     KVB_OK);
    assert_int_equal(p.max_kv_tokens, 595781);
}

/*
 * A real start-up with one state page: Qwen3-Next (int4 AutoRound) on
 * vLLM 0.11.0 (October 2025), TP 2, --dtype float16, --kv-cache-dtype
 * fp8_e5m2, --max-model-len 215040
 * (https://github.com/vllm-project/vllm/issues/26646):
 *   "GPU KV cache size: 90,048 tokens"
 *   "Maximum concurrency for 215,040 tokens per request: 1.66x"
 *   token page at TP 2: 2 x 1 KV head x 256 x 1 B = 512 B; state 548864 B
 *     (test_hybrid_vllm_qwen3_next); block 16 x cdiv(548864, 8192) = 1072;
 *   90,048 = 84 x 1072, so num_blocks // 4 groups = 84: 336 to 339 blocks;
 *   a request: cdiv(215040, 1072) = 201 + 3 state pages = 204 blocks;
 *     only 338 and 339 print 1.66x (337 / 204 = 1.652), and with two
 *     state pages (207) none of 336-339 would.
 * 339 blocks x 12 layers x (1072 x 512 B) of KV cache memory: 90048
 * tokens, 339 / 204 = 1.6618.
 */
static void test_hybrid_vllm_one_page_log(void **state)
{
    (void)state;
    kvb_model m = preset_model("Qwen3-Next-80B-A3B");
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    q.kv_cache_dtype = KVB_DTYPE_FP8;
    kvb_plan p;
    kvb_error e;
    assert_int_equal(plan_model(&m, &q, 141 * GIB, 1100, KVB_ENGINE_VLLM, 2,
                                339ull * 12 * 1072 * 512, 215040, &p, &e),
                     KVB_OK);
    assert_int_equal(p.block_size, 1072);
    assert_int_equal(p.kv_cache_groups, 4);
    assert_int_equal(p.num_blocks, 339);
    assert_int_equal(p.max_kv_tokens, 90048);
    assert_true(near(p.max_concurrency, 339.0 / 204));
}

/* Where the engine's pool is not modelled, the plan is refused by name,
 * never planned as attention only. */
static void test_hybrid_plan_refusals(void **state)
{
    (void)state;
    kvb_plan p;
    kvb_error e;
    /* before the V1 hybrid manager */
    assert_int_equal(plan_hybrid("Nemotron-3-Nano-30B-A3B", 1001,
                                 KVB_ENGINE_VLLM, 1, 20 * GIB, &p, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "serving.engine_version");
    assert_non_null(strstr(e.message, "vLLM 0.10.1"));
    assert_non_null(strstr(e.message, "MambaCacheManager"));
    assert_non_null(strstr(e.message, "0.10.2 or later"));
    /* another engine */
    assert_int_equal(
        plan_hybrid("Nemotron-3-Nano-30B-A3B", 0, KVB_ENGINE_TGI, 1, 0, &p, &e),
        KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "model.layer_pattern");
    assert_non_null(strstr(e.message, "TGI"));
}

/*
 * SGLang, newest (radix cache on: handle_max_mamba_cache splits the KV
 * budget 0.9 : 1), 20 GiB = 21474836480 B of it, max_model_len 262144.
 * Qwen3-Next at TP 2: mamba_cache_per_req = 36 GDN layers x (conv
 * (2 x 16 x 128 + 32 x 128) / 2 x 3 x 2 B = 24576 + temporal 32 / 2 x
 * 128 x 128 x 4 B (--mamba-ssm-dtype float32) = 1048576) = 38633472 B;
 *   slots = int(20 x 0.9 / 1.9 GiB // 38633472) = 263, 10160603136 B;
 *   tokens = (21474836480 - 10160603136) // (12 x 2 x 256 x 2 B / 2 =
 *            12288) = 920754;
 *   max_running_requests = min(request slots max(int(920754 / 262144 x
 *            512) = 1798, 2048) = 2048, 263 // 5 = 52) = 52 on the newest
 *            release (extra_buffer: 3 + 2 states a request), 263 // 3 =
 *            87 on 0.5.12 (no_buffer).
 * Nemotron-3 Nano at TP 1 (23 Mamba2 layers x (36864 + 2097152) B =
 * 49082368 B; cell 6 x 2 x 2 x 128 x 2 = 6144 B):
 *   slots 10172290334 // 49082368 = 207, 10160050176 B;
 *   tokens 11314786304 // 6144 = 1841599;
 *   max_running_requests = min(3596, 207 // 3 = 69) = 69.
 */
static void test_hybrid_sglang_split(void **state)
{
    (void)state;
    kvb_plan p;
    kvb_error e;
    assert_int_equal(plan_hybrid("Qwen3-Next-80B-A3B", 0, KVB_ENGINE_SGLANG, 2,
                                 20 * GIB, &p, &e),
                     KVB_OK);
    assert_int_equal(p.max_total_tokens, 920754);
    assert_int_equal(p.max_kv_tokens, 920754);
    assert_int_equal(p.max_num_seqs, 52);
    assert_int_equal(p.kv_cache_bytes_per_gpu,
                     920754ull * 12288 + 10160603136ull);
    assert_non_null(strstr(p.warning, "263 slots"));
    assert_int_equal(plan_hybrid("Qwen3-Next-80B-A3B", 512, KVB_ENGINE_SGLANG,
                                 2, 20 * GIB, &p, &e),
                     KVB_OK);
    assert_int_equal(p.max_total_tokens, 920754);
    assert_int_equal(p.max_num_seqs, 87);
    assert_int_equal(plan_hybrid("Nemotron-3-Nano-30B-A3B", 0,
                                 KVB_ENGINE_SGLANG, 1, 20 * GIB, &p, &e),
                     KVB_OK);
    assert_int_equal(p.max_total_tokens, 1841599);
    assert_int_equal(p.max_num_seqs, 69);
    assert_non_null(strstr(p.warning, "207 slots"));
}

/*
 * A real SGLang start-up of Qwen3.5-397B-A17B at TP 2 (ktransformers'
 * SGLang, 2026-02-27, https://github.com/kvcache-ai/ktransformers/issues/1870):
 *   Mamba Cache is allocated. max_mamba_cache_size: 82, conv_state size:
 *     0.13GB, ssm_state size: 7.29GB
 *   KV Cache is allocated. #tokens: 580364, K size: 4.15 GB, V size: 4.15 GB
 *   max_total_num_tokens=580364, ..., max_running_requests=1,
 *     context_len=8192
 * The model: 60 layers, every fourth full attention (45 Gated DeltaNet,
 * 15 attention), 64 value / 16 key linear heads of 128, kernel 4, 2 KV
 * heads of 256.  Per rank: conv (64 x 128 + 2 x 16 x 128) / 2 x 3 x 2 B
 * = 36864, temporal 32 x 128 x 128 x 4 B (float32) = 2097152; the pool
 * holds 82 + 1 states (MambaPool's padding slot): 45 x 83 x 2097152 =
 * 7832862720 B = 7.29 GiB, 45 x 83 x 36864 = 0.13 GiB, as logged.  K:
 * 580364 x 15 x 256 x 2 B = 4.15 GiB.  The budget is not printed; the
 * one that gives the logged figures is the KV pool plus 82 states:
 * 580364 x 15360 + 82 x 45 x 2134016 = 16788910080 B, and on it the 0.9
 * split gives int(16788910080 x 0.9 / 1.9 // 96030720) = 82 states, the
 * logged max_mamba_cache_size (0.8 would give 77, one per-request state
 * in the model dtype 162).
 */
static void test_hybrid_sglang_qwen35_log(void **state)
{
    (void)state;
    kvb_model m = preset_model("Qwen3-Next-80B-A3B");
    m.num_hidden_layers = 60;
    memset(m.layer_pattern, 0, sizeof m.layer_pattern);
    for (int i = 0; i < 60; i++)
        m.layer_pattern[i] = (i % 4 == 3) ? 'A' : 'G';
    m.ssm_num_heads = 64;
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    uint64_t conv = 0, ssm = 0;
    m.ssm_state_dtype = KVB_DTYPE_FP32;
    kvb__state_bytes(&m, &q, 2, &conv, &ssm);
    assert_int_equal(conv, 36864);
    assert_int_equal(ssm, 2097152);
    assert_int_equal(45 * 83 * ssm, 7832862720ull);
    m.ssm_state_dtype = KVB_DTYPE_AUTO; /* SGLang's flag, not the model */

    kvb_gpu g = gpu_of(24 * GIB, 8);
    g.compute_capability = 89;
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_SGLANG;
    s.engine_version = 509;
    s.tensor_parallel_size = 2;
    s.max_model_len = 8192;
    s.max_num_seqs = 1;
    s.kv_cache_memory_bytes = 16788910080ull;
    kvb_plan p;
    kvb_error e;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_error_init(&e, sizeof e), KVB_OK);
    p = plan_ok(&m, &q, &g, &s);
    assert_non_null(strstr(p.warning, "82 slots"));
    assert_int_equal(p.max_total_tokens, 580364);
    assert_int_equal(p.max_num_seqs, 1);
}

/*
 * SGLang before the mamba radix cache (Gated DeltaNet 0.5.2 - 0.5.3,
 * Mamba2 0.5.4 - 0.5.5): the radix cache is off and the pool holds
 * --max-running-requests, else 512, states.  Qwen3-Next at TP 2 on
 * 0.5.3: 512 x 38633472 = 19780337664 B; (21474836480 - 19780337664)
 * // 12288 = 137898 tokens; max_running_requests min(137898 // 2, 2048,
 * 512) = 512.  With --max-running-requests 64: 64 x 38633472 =
 * 2472542208 B, (21474836480 - 2472542208) // 12288 = 1546410 tokens.
 * Nemotron-3 Nano on 0.5.5: 512 x 49082368 = 25130172416 B, more than
 * the 20 GiB: no token is left ("Not enough memory").  Releases before
 * support are refused by name.
 */
static void test_hybrid_sglang_by_release(void **state)
{
    (void)state;
    kvb_plan p;
    kvb_error e;
    assert_int_equal(plan_hybrid("Qwen3-Next-80B-A3B", 503, KVB_ENGINE_SGLANG,
                                 2, 20 * GIB, &p, &e),
                     KVB_OK);
    assert_int_equal(p.max_total_tokens, 137898);
    assert_int_equal(p.max_num_seqs, 512);

    kvb_model m = preset_model("Qwen3-Next-80B-A3B");
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g = gpu_of(141 * GIB, 8);
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_SGLANG;
    s.engine_version = 503;
    s.tensor_parallel_size = 2;
    s.max_model_len = 262144;
    s.max_num_seqs = 64;
    s.kv_cache_memory_bytes = 20 * GIB;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    p = plan_ok(&m, &q, &g, &s);
    assert_int_equal(p.max_total_tokens, 1546410);
    assert_int_equal(p.max_num_seqs, 64);

    assert_int_equal(plan_hybrid("Nemotron-3-Nano-30B-A3B", 505,
                                 KVB_ENGINE_SGLANG, 1, 20 * GIB, &p, &e),
                     KVB_OK);
    assert_int_equal(p.max_total_tokens, 0);
    assert_non_null(strstr(p.warning, "512 states"));
    assert_non_null(strstr(p.warning, "Not enough memory"));
    assert_int_equal(plan_hybrid("Nemotron-3-Nano-30B-A3B", 506,
                                 KVB_ENGINE_SGLANG, 1, 20 * GIB, &p, &e),
                     KVB_OK);
    assert_int_equal(p.max_total_tokens, 1841599);

    assert_int_equal(plan_hybrid("Qwen3-Next-80B-A3B", 501, KVB_ENGINE_SGLANG,
                                 2, 20 * GIB, &p, &e),
                     KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "serving.engine_version");
    assert_non_null(strstr(e.message, "SGLang 0.5.1"));
    assert_non_null(strstr(e.message, "0.5.2 or later"));
    assert_int_equal(plan_hybrid("Nemotron-3-Nano-30B-A3B", 503,
                                 KVB_ENGINE_SGLANG, 1, 20 * GIB, &p, &e),
                     KVB_EUNSUPPORTED);
    assert_non_null(strstr(e.message, "0.5.4 or later"));
}

/* Recurrent heads that TP does not divide stop vLLM (MambaMixer2 and
 * GatedDeltaNet divide them per rank): 36 value heads at TP 8, where the
 * attention (16 heads, 2 KV heads) and MLP widths would split. */
static void test_hybrid_tp_divides_recurrent_heads(void **state)
{
    (void)state;
    kvb_model m = preset_model("Qwen3-Next-80B-A3B");
    m.ssm_num_heads = 36;
    m.ssm_n_groups = 12;
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb_gpu g = gpu_of(141 * GIB, 8);
    kvb_serving s = serving_default();
    s.engine_version = 1100;
    s.tensor_parallel_size = 8;
    kvb_plan p = plan_ok(&m, &q, &g, &s);
    assert_int_equal(p.verdict, KVB_VERDICT_PARALLELISM_INVALID);
    assert_non_null(strstr(p.message, "recurrent"));
    s.tensor_parallel_size = 4; /* 36 / 4 and 12 / 4 */
    p = plan_ok(&m, &q, &g, &s);
    assert_int_not_equal(p.verdict, KVB_VERDICT_PARALLELISM_INVALID);
}

/*
 * llama.cpp: the attention layers' KV cells plus llama_memory_recurrent's
 * max(1, n_seq_max) cells of f32 state per recurrent layer
 * (llama-memory-recurrent.cpp; n_embd_r, n_embd_s in llama-hparams.cpp).
 * Qwen3-Next, -c 16384 -np 4, f16 cache: K and V 12 layers x 16384 cells
 * x 512 x 2 B each = 402653184 B; state per layer and cell: r 3 x (4096 +
 * 2 x 16 x 128) x 4 B = 98304 B, s 128 x 4096 x 4 B = 2097152 B; 36
 * layers x 4 cells: 316145664 B ("R (f32): 13.50 MiB, S (f32): 288.00
 * MiB", the figures a logged 30-layer model of the same linear sizes gives
 * per layer: "251.25 MiB (4 cells, 40 layers, 4 seqs), R (f32): 11.25
 * MiB, S (f32): 240.00 MiB").
 */
static void test_hybrid_llama_cpp_state_cells(void **state)
{
    (void)state;
    kvb_model m = preset_model("Qwen3-Next-80B-A3B");
    kvb_quant q = quant_of(KVB_QUANT_Q4_K_M);
    kvb_gpu g = gpu_of(141 * GIB, 1);
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.context_size = 16384;
    s.max_num_seqs = 4;
    s.max_model_len = 4096;
    kvb_plan p = plan_ok(&m, &q, &g, &s);
    assert_int_equal(p.context_size, 16384);
    assert_int_equal(p.kv_cache_bytes_per_gpu, 402653184ull + 316145664ull);
    assert_non_null(strstr(p.warning, "301.50 MiB of recurrent state"));
    /* one slot: one cell */
    s.max_num_seqs = 1;
    s.context_size = 4096;
    p = plan_ok(&m, &q, &g, &s);
    assert_int_equal(p.kv_cache_bytes_per_gpu,
                     402653184ull / 4 + 316145664ull / 4);
}

/* A pattern that does not match the layers is refused. */
static void test_hybrid_refusals(void **state)
{
    (void)state;
    kvb_error e = KVB_ERROR_INIT;
    kvb_model m = preset_model("Nemotron-3-Nano-30B-A3B");
    m.layer_pattern[3] = 'Q';
    assert_int_equal(kvb_model_validate(&m, &e), KVB_EINVAL);
    assert_string_equal(e.field, "model.layer_pattern");
    m = preset_model("Nemotron-3-Nano-30B-A3B");
    m.layer_pattern[51] = 0;
    assert_int_equal(kvb_model_validate(&m, &e), KVB_EINVAL);
    m = preset_model("Qwen3-Next-80B-A3B");
    m.ssm_n_groups = 0;
    assert_int_equal(kvb_model_validate(&m, &e), KVB_EINVAL);
}

KVB_TESTS(cmocka_unit_test(test_hybrid_qwen3_next_params_by_hand),
          cmocka_unit_test(test_hybrid_nemotron3_params_by_hand),
          cmocka_unit_test(test_hybrid_kv_only_attention),
          cmocka_unit_test(test_hybrid_state_per_request),
          cmocka_unit_test(test_hybrid_refusals),
          cmocka_unit_test(test_hybrid_vllm_qwen3_next),
          cmocka_unit_test(test_hybrid_vllm_nemotron3),
          cmocka_unit_test(test_hybrid_vllm_qwen3_next_by_release),
          cmocka_unit_test(test_hybrid_vllm_nemotron3_by_release),
          cmocka_unit_test(test_hybrid_vllm_align_log),
          cmocka_unit_test(test_hybrid_vllm_one_page_log),
          cmocka_unit_test(test_hybrid_plan_refusals),
          cmocka_unit_test(test_hybrid_sglang_split),
          cmocka_unit_test(test_hybrid_sglang_by_release),
          cmocka_unit_test(test_hybrid_sglang_qwen35_log),
          cmocka_unit_test(test_hybrid_tp_divides_recurrent_heads),
          cmocka_unit_test(test_hybrid_llama_cpp_state_cells));
