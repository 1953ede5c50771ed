/*
 * test_engine.c -- vLLM's block math against vLLM's own test vectors
 * (shared/data/engines.md section 1.4: tests/v1/core/test_kv_cache_utils.py
 * and tests/v1/worker/test_gpu_model_runner.py), its defaults, and its
 * error texts.
 */
#include "testing.h"

#include <string.h>

typedef struct fixture {
    kvb_model m;
    kvb_quant q;
    kvb_gpu g;
    kvb__engine_in in;
    kvb__kv_stage ks;
} fixture;

/* A model of `layers` attention layers, `kv` heads of `hd`, KV dtype. */
static void make(fixture *f, uint32_t layers, uint32_t kv, uint32_t hd,
                 int32_t kv_dtype, uint32_t version)
{
    memset(f, 0, sizeof *f);
    f->m = tiny_llama();
    f->m.num_hidden_layers = layers;
    f->m.num_attention_heads = kv;
    f->m.num_key_value_heads = kv;
    f->m.head_dim = hd;
    f->m.max_position_embeddings = (uint64_t)1 << 32;
    f->q = quant_of(KVB_QUANT_AUTO);
    f->q.kv_cache_dtype = kv_dtype;
    f->g = gpu_of(80 * GIB, 1);
    f->in.model = &f->m;
    f->in.quant = &f->q;
    f->in.gpu = &f->g;
    f->in.s = serving_default();
    f->in.s.block_size = 16; /* vLLM's default, as its defaults() sets */
    f->in.engine = &kvb__engine_vllm;
    f->in.version = version;
    f->in.accounting = kvb__vllm_accounting(version);
}

static void stage(fixture *f, uint64_t mml, uint64_t mnbt)
{
    f->in.s.max_model_len = mml;
    f->in.s.max_num_batched_tokens = mnbt;
    kvb__kv_stage_make(&f->m, &f->q, 1, 0, f->m.num_hidden_layers, 16,
                       f->in.accounting != KVB_ACCOUNTING_VLLM_V0, &f->ks);
}

/* test_estimate_max_model_len: Qwen1.5-7B (32 layers, 32 KV heads of
 * 128, fp16) holds 16384 tokens in 8 GiB; the estimate never exceeds the
 * configured max_model_len. */
static void test_engine_estimate_max_model_len(void **state)
{
    (void)state;
    fixture f;
    make(&f, 32, 32, 128, KVB_DTYPE_FP16, 0);
    stage(&f, 16385, 32768);
    uint64_t fit = kvb__vllm_fit_len(&f.in, &f.ks, 8 * GIB, 0);
    assert_int_equal(fit, 16384);
    assert_int_equal(kvb__min(fit, 16385), 16384);
    assert_int_equal(kvb__min(fit, 16383), 16383);
}

/* test_get_max_concurrency_for_kv_cache_config (mml 16384, mnbt 1024,
 * 32 KV heads x 128 fp16, block 16, window 1024). */
static void test_engine_max_concurrency(void **state)
{
    (void)state;
    fixture f;
    uint64_t tokens;
    double conc;
    make(&f, 32, 32, 128, KVB_DTYPE_FP16, 0);
    stage(&f, 16384, 1024);
    kvb__vllm_report(&f.in, &f.ks, 1536, &tokens, &conc);
    assert_true(conc == 1.5);        /* 1536 / cdiv(16384, 16) */
    assert_int_equal(tokens, 24576); /* int(1.5 x 16384) */

    f.m.sliding_window = 1024; /* every layer slides */
    stage(&f, 16384, 1024);
    /* cdiv(min(1023 + 1024, 16384), 16) + 1 = 129 blocks per request */
    assert_int_equal(kvb__kv_blocks_per_request(&f.ks, 16384, 1024, 16), 129);
    kvb__vllm_report(&f.in, &f.ks, 129 * 3, &tokens, &conc);
    assert_true(conc == 3.0);

    make(&f, 64, 32, 128, KVB_DTYPE_FP16, 0);
    f.m.sliding_window = 1024;
    f.m.sliding_window_pattern = 2; /* 32 full + 32 sliding: two groups */
    stage(&f, 16384, 1024);
    assert_int_equal(f.ks.n_groups, 2);
    kvb__vllm_report(&f.in, &f.ks, (1024 + 129) * 3, &tokens, &conc);
    assert_true(conc == 3.0);
}

/* test_get_kv_cache_config_one_worker: page P = 16 x 2 heads x 64 x 4
 * bytes x 2 = 16384; mml 16. */
static void one_worker(uint32_t layers, uint32_t pattern, uint64_t avail,
                       uint64_t blocks, uint32_t groups)
{
    fixture f;
    make(&f, layers, 2, 64, KVB_DTYPE_FP32, 0);
    f.m.sliding_window = pattern ? 1 : 0;
    f.m.sliding_window_pattern = pattern;
    stage(&f, 16, 16);
    assert_int_equal(f.ks.page_bytes, 16384);
    assert_int_equal(kvb__vllm_num_blocks(&f.in, &f.ks, avail), blocks);
    assert_int_equal(f.ks.n_groups, groups);
}

static void test_engine_kv_cache_groups(void **state)
{
    (void)state;
    const uint64_t P = 16384;
    one_worker(2, 0, P * 2 * 32, 32, 1);  /* 2 full */
    one_worker(2, 2, P * 2 * 32, 64, 2);  /* full + SWA, hybrid */
    one_worker(6, 3, P * 2 * 32, 32, 3);  /* 2 full + 4 SWA */
    one_worker(10, 3, P * 3 * 32, 32, 4); /* 3 full + 7 SWA, padded to 9 */
    one_worker(11, 2, P * 6 * 32, 32, 2); /* 5 full + 6 SWA: group size 6 */

    /* --disable-hybrid-kv-cache-manager: one group of full layers */
    fixture f;
    make(&f, 2, 2, 64, KVB_DTYPE_FP32, 0);
    f.m.sliding_window = 1;
    f.m.sliding_window_pattern = 2;
    kvb__kv_stage_make(&f.m, &f.q, 1, 0, 2, 16, false, &f.ks);
    assert_int_equal(f.ks.n_groups, 1);
    assert_int_equal(kvb__vllm_num_blocks(&f.in, &f.ks, P * 2 * 32), 32);
}

/* test_gpu_model_runner: two layers of 8 heads x 64 in fp16, block 16:
 * page 32 KiB; 20 GiB gives 327680 blocks; 5 GiB holds 1310720 tokens. */
static void test_engine_gpu_model_runner(void **state)
{
    (void)state;
    fixture f;
    make(&f, 2, 8, 64, KVB_DTYPE_FP16, 0);
    stage(&f, 3000000, 8192);
    assert_int_equal(f.ks.page_bytes, 32768);
    assert_int_equal(kvb__vllm_num_blocks(&f.in, &f.ks, 20 * GIB), 327680);
    assert_int_equal(kvb__vllm_fit_len(&f.in, &f.ks, 5 * GIB, 0), 1310720);
}

/* Gemma-3-27B: 10 full + 52 sliding layers; group size 10, one full
 * group and six sliding groups (52 padded to 60), engines.md 1.3. */
static void test_engine_gemma3_groups(void **state)
{
    (void)state;
    kvb_model m = preset_model("Gemma-3-27B");
    kvb_quant q = quant_of(KVB_QUANT_AUTO);
    kvb__kv_stage ks;
    kvb__kv_stage_make(&m, &q, 1, 0, m.num_hidden_layers, 16, true, &ks);
    assert_int_equal(ks.layers[KVB__ATTN_FULL], 10);
    assert_int_equal(ks.layers[KVB__ATTN_SLIDING], 52);
    assert_int_equal(ks.group_size, 10);
    assert_int_equal(ks.groups[KVB__ATTN_FULL], 1);
    assert_int_equal(ks.groups[KVB__ATTN_SLIDING], 6);
}

/* EngineArgs.get_batch_defaults: >= 70 GiB and not an A100 -> 8192 /
 * 1024 for the OpenAI server; otherwise 2048 / 256; V0: 256 sequences
 * and max(max_model_len, 2048) tokens without chunked prefill. */
static void test_engine_scheduler_defaults(void **state)
{
    (void)state;
    fixture f;
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 0);
    f.in.s.max_model_len = 32768;
    strcpy(f.g.name, "NVIDIA H100 80GB HBM3");
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_num_batched_tokens, 8192);
    assert_int_equal(f.in.s.max_num_seqs, 1024);
    assert_true(f.in.s.gpu_memory_utilization == 0.92);

    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 1100);
    f.in.s.max_model_len = 32768;
    strcpy(f.g.name, "NVIDIA A100-SXM4-80GB");
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_num_batched_tokens, 2048);
    assert_int_equal(f.in.s.max_num_seqs, 256);
    assert_true(f.in.s.gpu_memory_utilization == 0.90);

    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 703); /* V0 */
    f.in.s.max_model_len = 32768;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_num_batched_tokens, 32768);
    assert_int_equal(f.in.s.max_num_seqs, 256);
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 703); /* > 32K: chunked prefill */
    f.in.s.max_model_len = 131072;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_num_batched_tokens, 2048);
    /* a small max_model_len caps the batch: on an unnamed 80 GiB GPU
     * min(1024 x 4, 8192) = 4096 tokens */
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 1100);
    f.in.s.max_model_len = 4;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_num_batched_tokens, 4096);
    assert_int_equal(f.in.s.max_num_seqs, 1024);
}

/* requested_memory: ceil(total x util) from 0.21; before, the float is
 * floored by the block division. 79.22 GiB x 0.9 (vllm-log-002). */
static void test_engine_requested_memory(void **state)
{
    (void)state;
    fixture f;
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 0);
    f.g.total_bytes = 85061827297ull;
    f.in.s.gpu_memory_utilization = 0.9;
    /* 85061827297 x 0.9 = 76555644567.3 */
    assert_int_equal(kvb__vllm_requested_bytes(&f.in), 76555644568ull);
    f.in.accounting = KVB_ACCOUNTING_VLLM_V1;
    assert_int_equal(kvb__vllm_requested_bytes(&f.in), 76555644567ull);
}

/* The defaults moved between releases (docs/model.md, "Scheduler
 * defaults"). */
static void test_engine_scheduler_defaults_by_version(void **state)
{
    (void)state;
    fixture f;
    /* V0 before 0.5.4 (PR #6666): no chunked prefill by itself, so the
     * batch holds a whole max_model_len */
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 503);
    f.in.s.max_model_len = 131072;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.enable_chunked_prefill, 0);
    assert_int_equal(f.in.s.max_num_batched_tokens, 131072);
    /* 0.5.4 to 0.6.4: chunked above 32K, in chunks of 512 */
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 604);
    f.in.s.max_model_len = 131072;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.enable_chunked_prefill, 1);
    assert_int_equal(f.in.s.max_num_batched_tokens, 512);
    /* a sliding-window model keeps chunked prefill off */
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 703);
    f.m.sliding_window = 4096;
    f.in.s.max_model_len = 65536;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_num_batched_tokens, 65536);
    /* V1 0.8.0-0.8.3: 1024 sequences everywhere; 2048 tokens off H100 */
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 803);
    f.g.total_bytes = 24 * GIB;
    strcpy(f.g.name, "NVIDIA A10G");
    f.in.s.max_model_len = 32768;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_num_seqs, 1024);
    assert_int_equal(f.in.s.max_num_batched_tokens, 2048);
    /* 0.8.4: by name; an unnamed 80 GiB device is not an H100 */
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 804);
    f.in.s.max_model_len = 32768;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_num_seqs, 256);
    assert_int_equal(f.in.s.max_num_batched_tokens, 2048);
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 804);
    strcpy(f.g.name, "NVIDIA H100 80GB HBM3");
    f.in.s.max_model_len = 32768;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_num_seqs, 1024);
    assert_int_equal(f.in.s.max_num_batched_tokens, 8192);
}

/* What the non-torch figure holds, by how the release measured it. */
static void test_engine_non_torch_by_version(void **state)
{
    (void)state;
    fixture f;
    /* cuBLAS workspace 8519680 + cuBLASLt 1 MiB (compute capability
     * unknown); kernel modules 128 MiB; CUDA context 400 MiB (SMs
     * unknown) */
    uint64_t ws = 8519680 + MIB, lazy = 128 * MIB, ctx = 400 * MIB;
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 204); /* max_memory_allocated() */
    assert_int_equal(kvb__vllm_non_torch(&f.in), ws);
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 205); /* total - free */
    assert_int_equal(kvb__vllm_non_torch(&f.in), ws + lazy + ctx);
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 301); /* from the start-up free */
    assert_int_equal(kvb__vllm_non_torch(&f.in), ws + lazy);
    f.in.s.tensor_parallel_size = 2; /* + one NCCL peer */
    assert_int_equal(kvb__vllm_non_torch(&f.in), ws + lazy + 16 * MIB);
}

/*
 * 0.6.4.x (worker.py, PRs #9352/#9516) and V1 before 0.9.1 read
 * (total - free) - torch allocated, so the figure holds the CUDA context
 * (3 MiB per SM) and other processes.  vllm/vllm#10517: Llama-3.1-8B on an
 * RTX 3090 (82 SMs) under 0.6.4 logged non_torch_memory 0.35 GiB; here
 * 8519680 + 4 MiB (cuBLASLt on an 8.x card of 24 GB or more) + 128 MiB +
 * 82 x 3 MiB = 0.3816 GiB.
 */
static void test_engine_non_torch_total_minus_free(void **state)
{
    (void)state;
    fixture f;
    uint64_t ws = 8519680 + MIB, lazy = 128 * MIB;
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 604);
    f.g.total_bytes = 25327697920ull;
    f.g.compute_capability = 86;
    f.g.multiprocessor_count = 82;
    assert_int_equal(kvb__vllm_non_torch(&f.in),
                     ws + 3 * MIB + lazy + 82 * 3 * MIB);
    /* 0.6.5 measures from the start-up snapshot (PR #10511) */
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 605);
    f.g.multiprocessor_count = 82;
    assert_int_equal(kvb__vllm_non_torch(&f.in), ws + lazy);
    /* V1 0.9.0 with 20 GiB held by another process: context + 20 GiB */
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 900);
    f.g.multiprocessor_count = 132;
    f.g.free_bytes = f.g.total_bytes - 20 * GIB - 132 * 3 * MIB;
    assert_int_equal(kvb__vllm_non_torch(&f.in),
                     ws + lazy + 132 * 3 * MIB + 20 * GIB);
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 901); /* PR #18974: a snapshot */
    f.g.free_bytes = f.g.total_bytes / 2;
    assert_int_equal(kvb__vllm_non_torch(&f.in), ws + lazy);
}

/* Defaults by release: the A100 and the large-device test, and the cap of
 * max_num_seqs at the batch (docs/model.md, "Scheduler defaults"). */
static void test_engine_large_device_by_release(void **state)
{
    (void)state;
    fixture f;
    /* 0.8.5 (PR #17073): >= 70 GiB, an A100 80GB included */
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 805);
    strcpy(f.g.name, "NVIDIA A100-SXM4-80GB");
    f.in.s.max_model_len = 32768;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_num_batched_tokens, 8192);
    assert_int_equal(f.in.s.max_num_seqs, 1024);
    /* 0.9.0 (PR #17885): not an A100 */
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 900);
    strcpy(f.g.name, "NVIDIA A100-SXM4-80GB");
    f.in.s.max_model_len = 32768;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_num_batched_tokens, 2048);
    assert_int_equal(f.in.s.max_num_seqs, 256);
    /* --max-num-batched-tokens 512 on an unnamed 80 GiB card (1024
     * sequences by default): 0.10.0 keeps 1024 sequences; from 0.10.1
     * (PR #21270) they are capped at the batch, 512 */
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 1000);
    f.in.s.max_model_len = 32768;
    f.in.s.max_num_batched_tokens = 512;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_num_seqs, 1024);
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 1001);
    f.in.s.max_model_len = 32768;
    f.in.s.max_num_batched_tokens = 512;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_num_seqs, 512);
}

/*
 * Weights as loaded, vllm-log-007: R1-Distill-Qwen-14B (Qwen2.5-14B with
 * 131072 positions) in BF16 over TP 2.  Per rank and layer: qkv_proj
 * 3584 x 5120 x 2 = 35 MiB and o_proj 5120 x 2560 x 2 = 25 MiB get a 2 MiB
 * rounded segment with exactly 1 MiB over, which is not split off (+1 MiB
 * each); gate_up 13824 x 5120 x 2 = 135 MiB (+1 MiB); down 5120 x 6912 x 2
 * = 67.5 MiB (+0.5 MiB): 3.5 MiB x 48 = 168 MiB.  The embedding and
 * lm_head, 76032 x 5120 x 2 = 742.5 MiB each, leave 1.5 MiB, which is
 * split off.  The rotary cache: 131072 x 128 x 2 = 32 MiB.  Extra: 200
 * MiB; the log's 13.9476 GiB less the inventory's 13.7561 is 196 MiB.
 */
static void test_engine_loaded_weights(void **state)
{
    (void)state;
    fixture f;
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 703);
    f.m = preset_model("Qwen2.5-14B");
    f.m.max_position_embeddings = 131072;
    f.in.s.tensor_parallel_size = 2;
    assert_int_equal(kvb__vllm_loaded_weights(&f.in, 0, 0), 200 * MIB);

    /* Small tensors share 20 MiB segments: a tied Llama of width 640 (5
     * heads of 128, MLP 1280, 1024-row padded vocabulary, 4096 positions)
     * asks for the embedding 1.25 MiB, then per layer qkv 2.34375, gate_up
     * 3.125 and down 1.5625 MiB (o_proj and norms stay in the small
     * pool, as does the 1 MiB rotary cache).  One segment serves the
     * embedding and two layers, and the third layer's qkv leaves 2.34375
     * MiB; gate_up opens a segment and down takes that 2.34375 MiB block
     * whole, since 0.78125 MiB over is not split off. */
    make(&f, 3, 5, 128, KVB_DTYPE_AUTO, 703);
    f.m.hidden_size = 640;
    f.m.intermediate_size = 1280;
    f.m.tie_word_embeddings = 1;
    f.m.max_position_embeddings = 4096;
    assert_int_equal(kvb__vllm_loaded_weights(&f.in, 0, 0),
                     MIB + 819200); /* rotary + 0.78125 MiB */

    /* gpt-oss-20b's MXFP4 experts on an A100 (Marlin): width 2880 -> 2944,
     * hidden 2880 -> 3072.  Per layer, w13 32 x 5888 x (1536 + 96) and
     * w2 32 x 3072 x (1472 + 92) with BF16 biases 32 x (5888 + 3072) x 2
     * = 461815808 bytes against 423567360 unpadded: 38248448, x 24. */
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 1900);
    f.m = preset_model("gpt-oss-20b");
    f.q = quant_of(KVB_QUANT_MXFP4);
    uint64_t none = kvb__vllm_loaded_weights(&f.in, 0, 0);
    f.g.compute_capability = 80;
    assert_int_equal(kvb__vllm_loaded_weights(&f.in, 0, 0) - none,
                     24 * 38248448ull);
    /* On Hopper from 0.11.1 the Triton kernels' swizzled layout
     * (triton_kernels HopperMXValueLayout / HopperMXScaleLayout): per
     * expert w13 1472 bytes x 5888 outputs + 90 x 5888 scales, w2 1472 x
     * 3072 + 90 x 3072, FP32 biases 8640 x 4 = 14030080 bytes against
     * 13236480 as stored: 793600 x 32 experts x 24 layers.  vllm-col-012
     * (H100, about 0.13): 13.399 GiB against 13.47 logged. */
    f.g.compute_capability = 90;
    assert_int_equal(kvb__vllm_loaded_weights(&f.in, 0, 0) - none,
                     24 * 32 * 793600ull);
    /* Before 0.11.1 (PR #27370) triton_kernels was not a dependency and
     * vLLM ran Marlin on Hopper too (vllm-col-022, 0.10.1 on an H100:
     * "leveraging the Marlin kernel", 65.9651 GiB logged, 65.935
     * planned for gpt-oss-120b). */
    f.in.version = 1001;
    assert_int_equal(kvb__vllm_loaded_weights(&f.in, 0, 0) - none,
                     24 * 38248448ull);
    /* gpt-oss-120b at TP 4: each rank holds 720 of the 2880 expert
     * columns, 22.5 MXFP4 groups; vLLM loads the uneven shard into a
     * buffer padded for the kernel (Marlin: 768), so the shard is no
     * reason to refuse the split (vllm-col-011: 17.224 GiB planned, 17.2217
     * logged on four A100s). */
    kvb_model m = preset_model("gpt-oss-120b");
    kvb_quant q = quant_of(KVB_QUANT_MXFP4);
    kvb_gpu g = gpu_of(84986036224ull, 4); /* A100 80GB, 79.15 GiB */
    g.compute_capability = 80;
    kvb_serving s = serving_default();
    s.engine = KVB_ENGINE_VLLM;
    s.engine_version = 1001;
    s.tensor_parallel_size = 4;
    s.gpu_memory_utilization = 0.8;
    s.max_model_len = 16384;
    kvb_plan p;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_plan_compute(&m, &q, &g, &s, &p, NULL), KVB_OK);
    assert_int_not_equal(p.verdict, KVB_VERDICT_PARALLELISM_INVALID);
    assert_true(p.weights_bytes_per_gpu > (uint64_t)(17.22 * GIB) &&
                p.weights_bytes_per_gpu < (uint64_t)(17.23 * GIB));
}

/* Rule 5: the default max_model_len follows rope_scaling
 * (_get_and_verify_max_len): linear and dynamic multiply
 * max_position_embeddings, YaRN multiplies the original positions, su,
 * longrope and llama3 and Gemma 3 keep max_position_embeddings. */
static void test_engine_default_max_len_rope(void **state)
{
    (void)state;
    fixture f;
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 1100);
    f.m.max_position_embeddings = 32768;
    f.m.rope_scaling_type = KVB_ROPE_YARN; /* Qwen2.5's documented yarn */
    f.m.rope_scaling_factor = 4.0;
    f.m.original_max_position_embeddings = 32768;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_model_len, 131072);
    f.in.s = serving_default();
    f.m.max_position_embeddings = 4096;
    f.m.rope_scaling_type = KVB_ROPE_DYNAMIC;
    f.m.rope_scaling_factor = 2.5;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_model_len, 10240);
    f.in.s = serving_default();
    f.in.s.max_model_len = 8192; /* the user's value stands */
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_model_len, 8192);
    /* Gemma 3: linear factor 8 is already in its 131072 */
    f.m = preset_model("Gemma-3-27B");
    f.m.rope_scaling_type = KVB_ROPE_LINEAR;
    f.m.rope_scaling_factor = 8.0;
    assert_int_equal(kvb__vllm_derived_max_len(&f.m),
                     f.m.max_position_embeddings);
    f.m.rope_scaling_type = KVB_ROPE_SU;
    f.m.arch = KVB_ARCH_PHI3;
    assert_int_equal(kvb__vllm_derived_max_len(&f.m),
                     f.m.max_position_embeddings);
    f.m.rope_scaling_type = KVB_ROPE_NONE; /* "default": no factor */
    assert_int_equal(kvb__vllm_derived_max_len(&f.m),
                     f.m.max_position_embeddings);
    /* out-of-range fields are refused by validation */
    f.m.rope_scaling_type = KVB_ROPE_LAST_;
    assert_int_equal(kvb_model_validate(&f.m, NULL), KVB_ERANGE);
    f.m.rope_scaling_type = KVB_ROPE_LINEAR;
    f.m.rope_scaling_factor = -1.0;
    assert_int_equal(kvb_model_validate(&f.m, NULL), KVB_ERANGE);
}

/* The dummy sampler's FP32 working set: 9 rows of R x vocab while V1
 * sorts the logits (as V0 does), the itemised 5 from the Triton kernels
 * (0.16); vllm-col-016 (Llama-3.1-8B, H100, about 0.13): 4.71 GiB
 * planned against 4.76 logged. */
static void test_engine_sampler_rows(void **state)
{
    (void)state;
    fixture f;
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 1300);
    f.m.vocab_size = 128256;
    f.in.s.max_num_batched_tokens = 8192;
    f.in.s.max_num_seqs = 1024;
    uint64_t sorted = kvb__vllm_activation(&f.in, 0);
    f.in.version = 1900;
    uint64_t triton = kvb__vllm_activation(&f.in, 0);
    assert_int_equal(sorted - triton, 4ull * 1024 * 128256 * 4);
    f.in.version = 2100; /* FlashInfer's sampler by default: 2 rows */
    assert_int_equal(triton - kvb__vllm_activation(&f.in, 0),
                     3ull * 1024 * 128256 * 4);
    f.in.version = 1511; /* the last release that sorts */
    assert_int_equal(kvb__vllm_activation(&f.in, 0), sorted);
    f.in.version = 902;
    assert_int_equal(kvb__vllm_activation(&f.in, 0), sorted);
    /* the real record: 1024 x 128256 x (2 + 9 x 4) + the hidden states */
    f.in.version = 1300;
    f.m = preset_model("Llama-3.1-8B");
    uint64_t a = kvb__vllm_activation(&f.in, 0);
    assert_true(a > (uint64_t)(4.70 * GIB) && a < (uint64_t)(4.72 * GIB));
}

/* Rule 7: the quantized GEMM's scratch at the largest projection.
 * Llama-3.1-8B in GPTQ 4-bit on an A100, 8192 tokens in the profile (one
 * request, so the forward pass is the peak): down_proj's input is 14336
 * wide.  gptq_marlin_gemm's a_tmp, 8192 x 14336 x 2 bytes, until 0.8.0
 * (PR #14138); its FP32 reduce buffer from 0.5.4 (PR #6795),
 * determine_reduce_max_m(8192) = 1024 rows x 4096 x 4; before Marlin
 * (0.4.2) the exllama kernel rebuilds the 14336 x 4096 weight in FP16. */
static void test_engine_quant_scratch(void **state)
{
    (void)state;
    fixture f;
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 703);
    f.m = preset_model("Llama-3.1-8B");
    f.q = quant_of(KVB_QUANT_GPTQ_4);
    f.g.compute_capability = 80;
    f.in.s.max_num_batched_tokens = 8192;
    f.in.s.max_num_seqs = 1;
    uint64_t v073 = kvb__vllm_activation(&f.in, 0);
    f.in.version = 800;
    f.in.accounting = kvb__vllm_accounting(800);
    uint64_t v080 = kvb__vllm_activation(&f.in, 0);
    assert_int_equal(v073 - v080, 8192ull * 14336 * 2);
    /* 0.5.3 and 0.5.4 measure reserved memory alike (rule 6), so their
     * difference is the reduce buffer alone */
    f.in.version = 503;
    f.in.accounting = kvb__vllm_accounting(503);
    uint64_t v053 = kvb__vllm_activation(&f.in, 0);
    f.in.version = 504;
    assert_int_equal(kvb__vllm_activation(&f.in, 0) - v053, 1024ull * 4096 * 4);
    f.in.version = 503;
    f.q = quant_of(KVB_QUANT_AUTO);
    uint64_t plain = kvb__vllm_activation(&f.in, 0);
    assert_int_equal(v053 - plain, 8192ull * 14336 * 2);
    f.in.version = 401;
    f.in.accounting = kvb__vllm_accounting(401);
    plain = kvb__vllm_activation(&f.in, 0);
    f.q = quant_of(KVB_QUANT_GPTQ_4);
    assert_int_equal(kvb__vllm_activation(&f.in, 0) - plain,
                     14336ull * 4096 * 2);
    /* AWQ reaches Marlin in 0.5.3 (PR #6612); before, no scratch here */
    f.q = quant_of(KVB_QUANT_AWQ_4);
    assert_int_equal(kvb__vllm_activation(&f.in, 0), plain);
    /* compressed-tensors W4A16 runs the same Marlin GEMM: from 0.5.4 the
     * same FP32 reduce buffer as GPTQ, nothing on a GPU below 8.0 */
    f.in.version = 504;
    f.in.accounting = kvb__vllm_accounting(504);
    f.q = quant_of(KVB_QUANT_AUTO);
    plain = kvb__vllm_activation(&f.in, 0);
    f.q = quant_of(KVB_QUANT_W4A16);
    uint64_t wna16 = kvb__vllm_activation(&f.in, 0);
    f.q = quant_of(KVB_QUANT_GPTQ_4);
    assert_int_equal(wna16, kvb__vllm_activation(&f.in, 0));
    assert_true(wna16 > plain);
    f.g.compute_capability = 75;
    f.q = quant_of(KVB_QUANT_W4A16);
    wna16 = kvb__vllm_activation(&f.in, 0);
    f.q = quant_of(KVB_QUANT_AUTO);
    assert_int_equal(wna16, kvb__vllm_activation(&f.in, 0));
}

/* Rule 6: 0.2.5-0.6.3 subtract the reserved peak.  Llama-3.1-8B, one
 * request (the forward pass is the peak), replayed over the caching
 * allocator: the layer's freed qkv and attention blocks do not hold
 * gate_up or its activation, so segments open beside them.  At 4096
 * tokens the reserved surplus is 48 MiB, at 32768 384 MiB (0.6.3 against
 * 0.6.4, which reads the allocated peak). */
static void test_engine_reserved_peak(void **state)
{
    (void)state;
    fixture f;
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 603);
    f.m = preset_model("Llama-3.1-8B");
    f.g.compute_capability = 80;
    f.in.s.max_num_seqs = 1;
    const uint64_t tokens[] = {4096, 32768}, surplus[] = {48, 384};
    for (int i = 0; i < 2; i++) {
        f.in.s.max_num_batched_tokens = tokens[i];
        f.in.version = 603;
        uint64_t reserved = kvb__vllm_activation(&f.in, 0);
        f.in.version = 604;
        uint64_t allocated = kvb__vllm_activation(&f.in, 0);
        assert_int_equal(reserved - allocated, surplus[i] * MIB);
    }
    /* not before 0.2.5 (torch.cuda.max_memory_allocated) */
    f.in.version = 204;
    uint64_t old = kvb__vllm_activation(&f.in, 0);
    f.in.version = 604;
    assert_int_equal(old, kvb__vllm_activation(&f.in, 0));
}

/* Rule 8: V0's automatic chunked prefill leaves out multimodal models
 * from 0.6.1 (PR #8425), whose batch is at least 5120 tokens from 0.6.0
 * (PR #8028).  Gemma-3-27B (the vision checkpoint's text vocabulary,
 * 262208) at 65536 tokens, forced onto V0 in 0.8.3: chunked prefill stays
 * off and the batch is the whole max_model_len; at 4096 tokens it is 5120,
 * not 4096. */
static void test_engine_v0_multimodal_batch(void **state)
{
    (void)state;
    fixture f;
    make(&f, 2, 2, 64, KVB_DTYPE_AUTO, 803);
    f.m = preset_model("Gemma-3-27B");
    f.m.sliding_window = 0; /* isolate the multimodal rule */
    f.in.accounting = KVB_ACCOUNTING_VLLM_V0;
    f.in.s.max_model_len = 65536;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.enable_chunked_prefill, 0);
    assert_int_equal(f.in.s.max_num_batched_tokens, 65536);
    f.in.s = serving_default();
    f.in.s.max_model_len = 4096;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_num_batched_tokens, 5120);
    /* 0.6.0: the batch floor exists, the exclusion not yet */
    f.in.version = 600;
    f.in.s = serving_default();
    f.in.s.max_model_len = 65536;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.enable_chunked_prefill, 1);
    assert_int_equal(f.in.s.max_num_batched_tokens, 5120);
    /* the text-only vocabulary (Gemma 3 1B, 262144) without a tower is
     * not multimodal */
    f.in.version = 803;
    f.m.vocab_size = 262144;
    f.m.vision_kind = KVB_VISION_NONE;
    f.in.s = serving_default();
    f.in.s.max_model_len = 4096;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_num_batched_tokens, 4096);
    /* a tower read from config.json makes a model multimodal too
     * (Qwen2_5_VLForConditionalGeneration is, in vLLM's registry) */
    f.m = preset_model("Qwen2.5-VL-7B-Instruct");
    f.in.s = serving_default();
    f.in.s.max_model_len = 4096;
    kvb__vllm_defaults(&f.in);
    assert_int_equal(f.in.s.max_num_batched_tokens, 5120);
}

static void test_engine_versions(void **state)
{
    (void)state;
    int32_t engine = -1;
    uint32_t version = 1;
    assert_int_equal(kvb_engine_parse("vllm", &engine, &version, NULL), KVB_OK);
    assert_int_equal(version, 0);
    assert_int_equal(kvb_engine_parse("vLLM@0.11", &engine, &version, NULL),
                     KVB_OK);
    assert_int_equal(version, 1100);
    assert_int_equal(kvb_engine_parse("vllm@0.7.3.dev233+gad5a35c2", &engine,
                                      &version, NULL),
                     KVB_OK);
    assert_int_equal(version, 703);
    assert_int_equal(kvb_engine_parse("vllm@v0.21.1", &engine, &version, NULL),
                     KVB_OK);
    assert_int_equal(version, 2101);
    assert_int_equal(kvb__vllm_accounting(703), KVB_ACCOUNTING_VLLM_V0);
    assert_int_equal(kvb__vllm_accounting(1100), KVB_ACCOUNTING_VLLM_V1);
    assert_int_equal(kvb__vllm_accounting(2101), KVB_ACCOUNTING_VLLM_V1_021);
    assert_int_equal(kvb__vllm_accounting(0), KVB_ACCOUNTING_VLLM_V1_021);
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_engine_parse("mlc-llm", &engine, &version, &e),
                     KVB_ENOTFOUND);
    assert_string_equal(e.field, "serving.engine");
    assert_int_equal(kvb_engine_parse("vllm@eleven", &engine, &version, &e),
                     KVB_EINVAL);
    assert_string_equal(e.field, "serving.engine_version");
    assert_string_equal(kvb_accounting_name(KVB_ACCOUNTING_VLLM_V1), "vllm-v1");
    assert_string_equal(kvb_engine_name(KVB_ENGINE_VLLM), "vllm");
}

/* Each engine's versions in its own form: llama.cpp tags releases by
 * build number ("b6123", the packed value is the number), the others by
 * MAJOR.MINOR.PATCH. */
static void test_engine_version_format(void **state)
{
    (void)state;
    char buf[32];
    kvb_error e = KVB_ERROR_INIT;
    int32_t engine;
    uint32_t version;
    assert_int_equal(kvb_engine_parse("llama.cpp@b6123", &engine, &version, &e),
                     KVB_OK);
    assert_int_equal(version, 6123);
    assert_int_equal(
        kvb_engine_version_format(engine, version, buf, sizeof buf, &e),
        KVB_OK);
    assert_string_equal(buf, "b6123");
    assert_int_equal(
        kvb_engine_version_format(KVB_ENGINE_OLLAMA, 507, buf, sizeof buf, &e),
        KVB_OK);
    assert_string_equal(buf, "0.5.7");
    assert_int_equal(
        kvb_engine_version_format(KVB_ENGINE_VLLM, 805, buf, sizeof buf, &e),
        KVB_OK);
    assert_string_equal(buf, "0.8.5");
    assert_int_equal(
        kvb_engine_version_format(KVB_ENGINE_TGI, 0, buf, sizeof buf, &e),
        KVB_OK);
    assert_string_equal(buf, "newest");
    assert_int_equal(kvb_engine_version_format(99, 805, buf, sizeof buf, &e),
                     KVB_ERANGE);
    assert_string_equal(e.field, "engine");
    assert_int_equal(
        kvb_engine_version_format(KVB_ENGINE_VLLM, 805, NULL, 0, &e),
        KVB_EINVAL);
}

KVB_TESTS(cmocka_unit_test(test_engine_version_format),
          cmocka_unit_test(test_engine_estimate_max_model_len),
          cmocka_unit_test(test_engine_max_concurrency),
          cmocka_unit_test(test_engine_kv_cache_groups),
          cmocka_unit_test(test_engine_gpu_model_runner),
          cmocka_unit_test(test_engine_gemma3_groups),
          cmocka_unit_test(test_engine_scheduler_defaults),
          cmocka_unit_test(test_engine_requested_memory),
          cmocka_unit_test(test_engine_versions),
          cmocka_unit_test(test_engine_scheduler_defaults_by_version),
          cmocka_unit_test(test_engine_non_torch_by_version),
          cmocka_unit_test(test_engine_non_torch_total_minus_free),
          cmocka_unit_test(test_engine_large_device_by_release),
          cmocka_unit_test(test_engine_loaded_weights),
          cmocka_unit_test(test_engine_default_max_len_rope),
          cmocka_unit_test(test_engine_sampler_rows),
          cmocka_unit_test(test_engine_quant_scratch),
          cmocka_unit_test(test_engine_v0_multimodal_batch),
          cmocka_unit_test(test_engine_reserved_peak));
