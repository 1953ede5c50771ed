/*
 * engines/trtllm.c -- NVIDIA TensorRT-LLM's memory accounting: the PyTorch
 * backend of recent releases and the TensorRT-engine (trtllm-build) path.
 *
 * Both give the paged KV cache a fraction of the memory that is free once
 * everything else is in place (shared/data/engines.md section 3):
 *
 *  - TensorRT engine (cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp,
 *    BaseKVCacheManager::calculateFreeMemBytes and calculateMaxNumBlocks):
 *    after the engine, its execution context and the runtime buffers are
 *    allocated, free x kv_cache_free_gpu_mem_fraction is divided into
 *    blocks of tokens_per_block tokens, rounded up (ceilDiv), and logged
 *    as "Memory usage when calculating max tokens in paged kv cache:
 *    total, available" and "Allocated X GiB for max tokens in paged KV
 *    cache (N)", N = blocks x tokens_per_block.
 *  - PyTorch backend (tensorrt_llm/_torch/pyexecutor/_util.py,
 *    KvCacheCreator._cal_max_memory): a dry run of max_num_tokens measures
 *    the peak (torch + non-torch, the CUDA context included), then
 *    (total - peak + the estimation cache) x fraction goes to the KV
 *    cache; max_tokens = bytes // bytes per token and blocks =
 *    max_tokens // tokens_per_block (resource_manager.py, floor).
 *
 * Both split KV heads as ceil(H_kv / TP) (resource_manager.py
 * get_cache_size_per_token; kvcache.c's per-rank heads).  What the
 * engine measures (activation peak, runtime buffers, non-torch memory) is
 * modelled as for vLLM (docs/model.md); docs/engines/trtllm.md has the
 * sources and the accuracy against real logs.
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V(major, minor, patch) ((major)*10000u + (minor)*100u + (patch))

static bool since(const kvb__engine_in *in, uint32_t v)
{
    return in->version == 0 || in->version >= v;
}

static bool engine_path(const kvb__engine_in *in)
{
    return in->accounting == KVB_ACCOUNTING_TRTLLM_ENGINE;
}

/*
 * serving.backend 1 (--backend trt, or an engine directory) is the
 * TensorRT path; 0 the PyTorch backend, which is the default of
 * trtllm-serve and the LLM API from 1.0 (before it, the experimental
 * PyTorch flow was opt-in: releases before 0.18 only had engines).
 */
static int32_t trt_accounting(const kvb__engine_in *in)
{
    int32_t forced = in->s.accounting;
    if (forced == KVB_ACCOUNTING_TRTLLM_PYTORCH ||
        forced == KVB_ACCOUNTING_TRTLLM_ENGINE)
        return forced;
    if (in->s.backend == 1 || (in->version && in->version < V(0, 18, 0)))
        return KVB_ACCOUNTING_TRTLLM_ENGINE;
    return KVB_ACCOUNTING_TRTLLM_PYTORCH;
}

/* "trtllm-pytorch" and "trtllm-engine" name the path explicitly. */
static bool trt_variant(const char *name, int32_t *accounting)
{
    if (!kvb__strcasecmp(name, "trtllm-pytorch"))
        *accounting = KVB_ACCOUNTING_TRTLLM_PYTORCH;
    else if (!kvb__strcasecmp(name, "trtllm-engine") ||
             !kvb__strcasecmp(name, "trtllm-trt"))
        *accounting = KVB_ACCOUNTING_TRTLLM_ENGINE;
    else
        return false;
    return true;
}

static kvb_status trt_check(const kvb__engine_in *in, kvb_error *err)
{
    int32_t a = in->s.accounting;
    if (a >= 0 && a != KVB_ACCOUNTING_TRTLLM_PYTORCH &&
        a != KVB_ACCOUNTING_TRTLLM_ENGINE)
        return kvb__fail(err, KVB_EINVAL, "serving.accounting",
                         "serving.accounting (%s) is not one of "
                         "TensorRT-LLM's; allowed: -1, trtllm-pytorch, "
                         "trtllm-engine",
                         kvb_accounting_name(a) ? kvb_accounting_name(a) : "?");
    if (in->s.backend < 0 || in->s.backend > 1)
        return kvb__fail(err, KVB_EINVAL, "serving.backend",
                         "serving.backend (%d) is not a TensorRT-LLM "
                         "backend; allowed: 0 (pytorch), 1 (trt)",
                         in->s.backend);
    return KVB_OK;
}

/*
 * Defaults: KvCacheConfig.free_gpu_memory_fraction 0.9 (llmapi/llm_args.py;
 * kDefaultGpuMemFraction in the executor) from 0.8; 0.85 before it
 * (tensorrtllm_backend v0.5.0 inflight_batcher_llm/src/libtensorrtllm.cc
 * and v0.7.0 model_instance_state.cc: "will use default value of 0.85";
 * its v0.8.0 README: "default=0.9"); BuildConfig max_batch_size 2048
 * and max_num_tokens 8192 (builder.py, llm_args.py), max_seq_len the
 * model's max_position_embeddings.  tokens_per_block: 32 in the LLM API
 * and the PyTorch backend (KvCacheConfig.tokens_per_block); the engine
 * builder's PluginConfig took 64 until the 0.16 line (TRT #2268 and
 * tensorrtllm_backend #576 arithmetic; #4275 logs 32 on 0.19).
 */
static void trt_defaults(kvb__engine_in *in)
{
    kvb_serving *s = &in->s;
    if (s->gpu_memory_utilization == 0.0)
        s->gpu_memory_utilization = since(in, V(0, 8, 0)) ? 0.9 : 0.85;
    if (!s->block_size)
        s->block_size = engine_path(in) && !since(in, V(0, 16, 0)) ? 64 : 32;
    if (!s->max_model_len)
        s->max_model_len = in->model->max_position_embeddings;
    if (!s->max_num_seqs)
        s->max_num_seqs = since(in, V(0, 11, 0)) ? 2048 : 256;
    if (!s->max_num_batched_tokens)
        s->max_num_batched_tokens = 8192;
    if (s->enable_chunked_prefill < 0)
        s->enable_chunked_prefill = 0;
}

/* Everything but the CUDA context: the fraction applies to what is free
 * after the engine's own allocations, which the stage loop subtracts. */
static uint64_t trt_requested(const kvb__engine_in *in)
{
    uint64_t ctx = kvb__torch_cuda_context(in);
    uint64_t total = in->gpu->total_bytes;
    return total > ctx ? total - ctx : 0;
}

static uint64_t trt_cudagraph(const kvb__engine_in *in, uint32_t layers)
{
    (void)layers;
    if (in->s.cudagraph_bytes != KVB_AUTO_BYTES && !in->s.enforce_eager)
        return in->s.cudagraph_bytes;
    return 0;
}

static bool trt_graphs_in_budget(const kvb__engine_in *in)
{
    (void)in;
    return true; /* anything captured before the KV sizing is in the peak */
}

static uint32_t trt_weights_gpu_key(const kvb__engine_in *in)
{
    return engine_path(in) ? 0 : kvb__torch_weights_gpu_key(in);
}

/* An engine file holds the weights as built: the checkpoint's bytes. The
 * PyTorch backend loads through PyTorch's allocator, as vLLM does. */
static uint64_t trt_loaded_weights(const kvb__engine_in *in, uint32_t stage,
                                   uint64_t inventory_bytes)
{
    if (engine_path(in))
        return inventory_bytes;
    return kvb__torch_loaded_weights(in, stage, inventory_bytes);
}

/*
 * The engine path: the execution context holds TensorRT's activations for
 * max_num_tokens (the forward peak), and the runtime buffers hold one row
 * of logits per sequence of max_batch_size with the decoder's sampling
 * working set over them (RuntimeBuffers / DecoderBuffers), modelled as
 * the model-dtype logits plus five FP32 units, as vLLM's V1 sampler
 * (docs/model.md).  Both are allocated before the KV sizing.
 * The PyTorch path: the dry run of KvCacheCreator.try_prepare_estimation,
 * context requests totalling max_num_tokens, each at most max_seq_len - 1
 * tokens; the peak is the forward pass or the sampler over their logits.
 */
static uint64_t trt_activation(const kvb__engine_in *in, uint32_t stage)
{
    if (in->s.activation_bytes != KVB_AUTO_BYTES)
        return in->s.activation_bytes;
    kvb__engine_in x = *in;
    uint64_t tokens = in->s.max_num_batched_tokens;
    uint64_t len = in->s.max_model_len > 1 ? in->s.max_model_len - 1 : 1;
    if (engine_path(in)) {
        x.s.max_num_seqs = 1;
        uint64_t forward = kvb__torch_activation(&x, stage);
        uint32_t pp = in->s.pipeline_parallel_size;
        if (stage + 1 != pp)
            return forward;
        const kvb_model *m = in->model;
        uint64_t b = kvb__dtype_bytes(kvb__act_dtype(m, in->quant));
        uint64_t rows = (uint64_t)in->s.max_num_seqs * m->vocab_size;
        return forward + rows * (b + 4 * 5);
    }
    uint64_t reqs = kvb__cdiv(tokens, len);
    x.s.max_num_seqs =
        (uint32_t)kvb__min(kvb__max(reqs, 1), in->s.max_num_seqs);
    return kvb__torch_activation(&x, stage);
}

static bool trt_hybrid(const kvb__engine_in *in)
{
    (void)in;
    return false; /* every layer is sized for the full window */
}

/* The bytes the fraction gives the KV cache out of `available` free. */
static uint64_t kv_bytes(const kvb__engine_in *in, uint64_t available)
{
    if (in->s.kv_cache_memory_bytes)
        return available; /* the stage loop gave the fixed size */
    return (uint64_t)floor((double)available * in->s.gpu_memory_utilization);
}

/*
 * ceilDiv in the C++ manager (kvCacheManager.cpp calculateMaxNumBlocks).
 * The PyTorch backend first takes max_tokens = bytes // bytes per token
 * (_util.py), then blocks_in_primary_pool = math.ceil(max_tokens /
 * tokens_per_block) in KVCacheManager.calculate_max_num_blocks of the 0.x
 * and 1.0/1.1 lines (resource_manager.py; the 1.1.0rc3 log of
 * trtllm-log-014 rounds 86711 tokens up to 86720), and int(max_tokens //
 * tokens_per_block) in the later files that allreduce through
 * Distributed.get(mapping); the switch is placed at 1.2 (inferred from the
 * stored source versions, not a tagged diff).  The two differ by one block.
 */
static uint64_t trt_num_blocks(const kvb__engine_in *in,
                               const kvb__kv_stage *ks, uint64_t available)
{
    uint64_t bb = kvb__paged_block_bytes(ks);
    if (!bb)
        return 0;
    uint64_t kv = kv_bytes(in, available);
    if (engine_path(in))
        return kvb__cdiv(kv, bb);
    uint64_t per_token = bb / in->s.block_size;
    if (!per_token)
        return 0;
    uint64_t tokens = kv / per_token;
    if (!since(in, V(1, 2, 0)))
        return kvb__cdiv(tokens, in->s.block_size);
    return tokens / in->s.block_size;
}

static void trt_finish(const kvb__engine_in *in, kvb_plan *p,
                       const kvb__stage_result *r)
{
    uint64_t avail = r->available > 0 ? (uint64_t)r->available : 0;
    uint64_t kv = kv_bytes(in, avail);
    /* "usable": what the engine takes, its allocations and the KV share */
    p->usable_bytes_per_gpu = r->weights + r->activation +
                              p->non_torch_bytes_per_gpu + r->cudagraph + kv;
    p->kv_budget_bytes_per_gpu = kv;
    p->kv_cache_bytes_per_gpu = p->num_blocks * kvb__paged_block_bytes(r->ks);
    p->max_total_tokens = p->max_kv_tokens;
    uint64_t left = p->gpu_total_bytes > p->usable_bytes_per_gpu
                        ? p->gpu_total_bytes - p->usable_bytes_per_gpu
                        : 0;
    p->headroom_bytes_per_gpu = left > p->cuda_context_bytes_per_gpu
                                    ? left - p->cuda_context_bytes_per_gpu
                                    : 0;
    if (p->max_model_len > p->max_kv_tokens && p->max_kv_tokens)
        snprintf(p->warning, sizeof p->warning,
                 "the KV cache holds %llu tokens, fewer than max_seq_len "
                 "%llu: TensorRT-LLM caps the attention window to what fits",
                 (unsigned long long)p->max_kv_tokens,
                 (unsigned long long)p->max_model_len);
}

static bool trt_len_fails(const kvb__engine_in *in, const kvb_plan *p,
                          const kvb__stage_result *r)
{
    (void)in;
    return r->needed > p->kv_cache_bytes_per_gpu;
}

/* TensorRT-LLM splits KV heads as ceil(H_kv / TP), so any TP that divides
 * the query heads works (tensorrt_llm/mapping.py; models check
 * num_attention_heads % tp_size). */
static bool trt_parallelism_bad(const kvb__engine_in *in, uint32_t gpu_count,
                                char *msg, size_t cap)
{
    const kvb_model *m = in->model;
    uint32_t tp = in->s.tensor_parallel_size, pp = in->s.pipeline_parallel_size;
    if ((uint64_t)tp * pp > gpu_count) {
        if (msg)
            snprintf(msg, cap,
                     "tp_size %u x pp_size %u needs %u GPUs; %u available", tp,
                     pp, tp * pp, gpu_count);
    } else if (m->num_attention_heads % tp != 0) {
        if (msg)
            snprintf(msg, cap,
                     "num_attention_heads (%u) must be divisible by tp_size "
                     "(%u)",
                     m->num_attention_heads, tp);
    } else if (pp > m->num_hidden_layers) {
        if (msg)
            snprintf(msg, cap, "pp_size %u exceeds the %u layers", pp,
                     m->num_hidden_layers);
    } else {
        return false;
    }
    return true;
}

static kvb_status trt_error_text(const kvb_plan *p, char *buf, size_t cap,
                                 size_t *needed, kvb_error *err)
{
    bool torch = p->accounting == KVB_ACCOUNTING_TRTLLM_PYTORCH;
    switch (p->verdict) {
    case KVB_VERDICT_WEIGHTS_EXCEED:
    case KVB_VERDICT_NO_KV_MEMORY:
        if (torch)
            return kvb__render(
                buf, cap, needed, err,
                "Executor creation failed due to insufficient GPU memory. "
                "The following component could not be created: %s. Total "
                "GPU memory (GiB): %.2f",
                p->verdict == KVB_VERDICT_WEIGHTS_EXCEED ? "Model" : "KV cache",
                KVB__GIB(p->gpu_total_bytes));
        return kvb__render(
            buf, cap, needed, err,
            "[TensorRT-LLM][ERROR] CUDA runtime error: out of "
            "memory (%s needs %.2f GiB of a %.2f GiB GPU)",
            p->verdict == KVB_VERDICT_WEIGHTS_EXCEED ? "the engine"
                                                     : "the runtime buffers",
            KVB__GIB(p->weights_bytes_per_gpu + p->activation_bytes_per_gpu),
            KVB__GIB(p->gpu_total_bytes));
    case KVB_VERDICT_MAX_LEN_EXCEEDS_KV:
        return kvb__render(buf, cap, needed, err,
                           "[TensorRT-LLM][WARNING] the paged KV cache holds "
                           "%llu tokens, fewer than max_seq_len %llu",
                           (unsigned long long)p->max_kv_tokens,
                           (unsigned long long)p->max_model_len);
    case KVB_VERDICT_PARALLELISM_INVALID:
        return kvb__render(buf, cap, needed, err, "ValueError: %s", p->message);
    default: return kvb__render(buf, cap, needed, err, "%s", "");
    }
}

/* ---- fixes as trtllm-serve flags ---- */

static void trt_render_args(const kvb_fix *f, const kvb_model *m, kvb__args *a)
{
    char repo[96];
    bool have = kvb__model_repo(m->name, repo, sizeof repo);
    kvb__arg(a, "%s", have ? repo : m->name[0] ? m->name : "MODEL");
    kvb__arg(a, "--max_seq_len");
    kvb__arg(a, "%llu", (unsigned long long)f->max_model_len);
    kvb__arg(a, "--kv_cache_free_gpu_memory_fraction");
    kvb__arg(a, "%.2f", f->gpu_memory_utilization);
    if (f->tensor_parallel_size > 1) {
        kvb__arg(a, "--tp_size");
        kvb__arg(a, "%u", f->tensor_parallel_size);
    }
    if (f->pipeline_parallel_size > 1) {
        kvb__arg(a, "--pp_size");
        kvb__arg(a, "%u", f->pipeline_parallel_size);
    }
    /* kv_cache_config.dtype and quantized checkpoints go through the
     * YAML of --extra_llm_api_options (llm_args.py KvCacheConfig) */
    if (f->kv_cache_dtype == KVB_DTYPE_FP8 ||
        (f->quant_method != KVB_QUANT_AUTO &&
         f->quant_method != KVB_QUANT_BF16 &&
         f->quant_method != KVB_QUANT_FP16)) {
        kvb__arg(a, "--extra_llm_api_options");
        kvb__arg(a, "extra.yaml");
    }
}

/* ---- command lines ---- */

static bool trt_detect(size_t argc, const char *const *argv, size_t *used)
{
    if (kvb__cmd_program(argc, argv, "trtllm-llmapi-launch", "trtllm-serve",
                         used))
        return true;
    if (kvb__cmd_program(argc, argv, "trtllm-serve", "serve", used) ||
        kvb__cmd_program(argc, argv, "trtllm-serve", NULL, used))
        return true;
    return kvb__cmd_module(argc, argv, "tensorrt_llm.commands.serve", used);
}

/* --backend pytorch|trt|_autodeploy (tensorrt_llm/commands/serve.py). */
static kvb_status trt_backend(kvb__cmd *c, const char *flag, const char *value,
                              kvb_error *err)
{
    if (!kvb__strcasecmp(value, "pytorch")) {
        c->s->backend = 0;
    } else if (!kvb__strcasecmp(value, "trt") ||
               !kvb__strcasecmp(value, "tensorrt")) {
        c->s->backend = 1;
    } else if (!kvb__strcasecmp(value, "_autodeploy")) {
        c->s->backend = 0;
        kvb__cmd_warn(c, "--backend _autodeploy planned as the PyTorch "
                         "backend");
    } else {
        return kvb__fail(err, KVB_EINVAL, "command",
                         "command: %s (%s) is not a TensorRT-LLM backend; "
                         "allowed: pytorch, trt, _autodeploy",
                         flag, value);
    }
    return KVB_OK;
}

/* A directory built by trtllm-build runs on the TensorRT path. */
static kvb_status trt_engine_dir(kvb__cmd *c, const char *flag,
                                 const char *value, kvb_error *err)
{
    (void)flag;
    (void)err;
    c->s->backend = 1;
    kvb__strlcpy(c->cmd->model, value, sizeof c->cmd->model);
    return KVB_OK;
}

static kvb_status trt_extra(kvb__cmd *c, const char *flag, const char *value,
                            kvb_error *err)
{
    (void)flag;
    (void)err;
    kvb__cmd_warn(c,
                  "%s %s not read: its kv_cache_config (fraction, "
                  "tokens_per_block, dtype) may change the plan",
                  flag, value);
    return KVB_OK;
}

static kvb_status trt_ep(kvb__cmd *c, const char *flag, const char *value,
                         kvb_error *err)
{
    uint64_t v;
    kvb_status st = kvb__cmd_u64(flag, value, 1, 4096, &v, err);
    if (!st)
        c->s->enable_expert_parallel = v > 1;
    return st;
}

#define S KVB__FLAG_SERVING
#define C KVB__FLAG_COMMAND
/* tensorrt_llm/commands/serve.py (click options, underscores as users
 * type them; dashes read the same). */
static const kvb__flag trt_flags[] = {
    C("--model", NULL, model),
    KVB__FLAG_SET("--backend", NULL, trt_backend),
    KVB__FLAG_SET("--engine-dir", NULL, trt_engine_dir),
    S("--max-batch-size", NULL, KVB__FLAG_U32, max_num_seqs),
    S("--max-num-tokens", NULL, KVB__FLAG_U64, max_num_batched_tokens),
    S("--max-seq-len", NULL, KVB__FLAG_U64, max_model_len),
    S("--tp-size|--tensor-parallel-size", NULL, KVB__FLAG_U32,
      tensor_parallel_size),
    S("--pp-size|--pipeline-parallel-size", NULL, KVB__FLAG_U32,
      pipeline_parallel_size),
    KVB__FLAG_SET("--ep-size|--moe-expert-parallel-size", NULL, trt_ep),
    S("--kv-cache-free-gpu-memory-fraction|--kv-cache-free-gpu-mem-fraction|"
      "--free-gpu-memory-fraction",
      NULL, KVB__FLAG_FRACTION, gpu_memory_utilization),
    S("--tokens-per-block", NULL, KVB__FLAG_U32, block_size),
    S("--gpus-per-node", NULL, KVB__FLAG_U32, gpus_per_node),
    KVB__FLAG_SET("--extra-llm-api-options|--config", NULL, trt_extra),
    KVB__FLAG_SKIP("--host|--port|--log-level|--max-beam-width|"
                   "--cluster-size|--num-postprocess-workers|"
                   "--reasoning-parser|--tool-parser|--server-role|"
                   "--metadata-server-config-file|--chat-template|"
                   "--media-io-kwargs|--revision|--tokenizer-mode|--tokenizer",
                   NULL),
    KVB__FLAG_SKIP_BARE("--trust-remote-code|--enable-chunked-prefill|"
                        "--disable-gc|--fail-fast-on-attention-window-"
                        "too-large",
                        NULL),
};
#undef S
#undef C

/* ---- log lines ---- */

/* A count or size at p, skipping spaces and "("; false if none, or one no
 * engine would print (the bound keeps later integer casts defined). */
static bool number(const char *p, const char *end, double *out)
{
    while (p < end && (*p == ' ' || *p == '('))
        p++;
    return kvb__log_number(p, end, 1e15, out);
}

/* "X GiB" / "X MiB" / "X MB" at p -> bytes. */
static bool size_at(const char *p, const char *end, uint64_t *out)
{
    double v;
    if (!number(p, end, &v))
        return false;
    while (p < end && (*p == ' ' || (*p >= '0' && *p <= '9') || *p == '.'))
        p++;
    double unit = 1.0;
    if (end - p >= 2 && (p[0] == 'G'))
        unit = 1073741824.0;
    else if (end - p >= 2 && (p[0] == 'M'))
        unit = 1048576.0;
    else if (end - p >= 2 && (p[0] == 'K'))
        unit = 1024.0;
    return kvb__log_bytes(v, unit, out);
}

static bool trt_log_line(kvb_log_facts *f, const char *line, size_t n)
{
    const char *end = line + n, *p;
    double v;
    uint64_t b;
    bool mine = false;
    if ((p = kvb__log_after(line, n, "TensorRT-LLM version: ")) != NULL) {
        char ver[32];
        size_t i = 0;
        while (p < end && i + 1 < sizeof ver && *p != ' ' && *p != '\r')
            ver[i++] = *p++;
        ver[i] = '\0';
        uint32_t packed;
        if (kvb__engine_version_parse(&kvb__engine_trtllm, ver, &packed)) {
            f->engine_version = packed;
            kvb__log_set(f, KVB_LOG_BIT_ENGINE_VERSION);
            snprintf(f->engine_line, sizeof f->engine_line, "%.*s",
                     (int)kvb__min(n, sizeof f->engine_line - 1), line);
        }
        mine = true;
    }
    if ((p = kvb__log_after(line, n,
                            "calculating max tokens in paged kv cache: "
                            "total: ")) != NULL &&
        size_at(p, end, &b)) {
        f->gpu_total_bytes = b;
        kvb__log_set(f, KVB_LOG_BIT_GPU_TOTAL_BYTES);
        const char *q = kvb__log_after(p, (size_t)(end - p), "available: ");
        if (q && size_at(q, end, &b)) {
            f->available_bytes = b;
            kvb__log_set(f, KVB_LOG_BIT_AVAILABLE_BYTES);
        }
        mine = true;
    }
    if ((p = kvb__log_after(line, n,
                            "Number of blocks in KV cache primary pool: ")) &&
        number(p, end, &v)) {
        f->gpu_blocks = (uint64_t)v;
        kvb__log_set(f, KVB_LOG_BIT_GPU_BLOCKS);
        mine = true;
    }
    if ((p = kvb__log_after(line, n, "Number of tokens per block: ")) &&
        number(p, end, &v)) {
        f->block_size = (uint32_t)kvb__min(v, UINT32_MAX);
        kvb__log_set(f, KVB_LOG_BIT_BLOCK_SIZE);
        mine = true;
    }
    if ((p = kvb__log_after(line, n, "[MemUsageChange] Allocated ")) &&
        (kvb__log_after(line, n, "for max tokens in paged KV cache") != NULL) &&
        size_at(p, end, &b)) {
        f->kv_cache_bytes = (int64_t)b;
        kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_BYTES);
        const char *q = kvb__log_after(line, n, "paged KV cache (");
        if (q && number(q, end, &v)) {
            f->max_total_tokens = f->kv_cache_tokens = (uint64_t)v;
            kvb__log_set(f, KVB_LOG_BIT_MAX_TOTAL_TOKENS);
            kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_TOKENS);
        }
        mine = true;
    }
    if ((p = kvb__log_after(line, n, "Using ")) &&
        kvb__log_after(line, n, "tokens in paged KV cache") &&
        number(p, end, &v)) {
        f->max_total_tokens = f->kv_cache_tokens = (uint64_t)v;
        kvb__log_set(f, KVB_LOG_BIT_MAX_TOTAL_TOKENS);
        kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_TOKENS);
        mine = true;
    }
    /* the 2024 runtime's "Max tokens in paged KV cache: 128. Allocating
     * 16777216 bytes." (janhq/cortex.cpp#981, a TensorRT-LLM engine) */
    if ((p = kvb__log_after(line, n, "Max tokens in paged KV cache: ")) &&
        number(p, end, &v)) {
        f->max_total_tokens = f->kv_cache_tokens = (uint64_t)v;
        kvb__log_set(f, KVB_LOG_BIT_MAX_TOTAL_TOKENS);
        kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_TOKENS);
        const char *q = kvb__log_after(line, n, "Allocating ");
        if (q && kvb__log_after(line, n, " bytes") && number(q, end, &v)) {
            f->kv_cache_bytes = (int64_t)v;
            kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_BYTES);
        }
        mine = true;
    }
    if ((p = kvb__log_after(line, n, "[TensorRT-LLM][INFO] Allocate ")) &&
        kvb__log_after(line, n, "bytes for k/v cache") && number(p, end, &v)) {
        f->kv_cache_bytes = (int64_t)v;
        kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_BYTES);
        mine = true;
    }
    if ((p = kvb__log_after(line, n, "Loaded engine size: ")) &&
        size_at(p, end, &b)) {
        f->weights_bytes = b;
        kvb__log_set(f, KVB_LOG_BIT_WEIGHTS_BYTES);
        f->accounting = KVB_ACCOUNTING_TRTLLM_ENGINE;
        kvb__log_set(f, KVB_LOG_BIT_ACCOUNTING);
        mine = true;
    }
    if ((p = kvb__log_after(line, n, "TRTGptModel maxNumTokens: ")) &&
        number(p, end, &v)) {
        f->max_num_batched_tokens = (uint64_t)v;
        kvb__log_set(f, KVB_LOG_BIT_MAX_NUM_BATCHED_TOKENS);
        mine = true;
    }
    if ((p = kvb__log_after(line, n, "TRTGptModel maxSequenceLen: ")) &&
        number(p, end, &v)) {
        f->max_model_len = (uint64_t)v;
        kvb__log_set(f, KVB_LOG_BIT_MAX_MODEL_LEN);
        mine = true;
    }
    if ((p = kvb__log_after(line, n, "TRTGptModel maxBatchSize: ")) &&
        number(p, end, &v)) {
        f->max_num_seqs = (uint32_t)kvb__min(v, UINT32_MAX);
        kvb__log_set(f, KVB_LOG_BIT_MAX_NUM_SEQS);
        mine = true;
    }
    /* the LLM API's backend line (llmapi/llm.py) and the PyTorch
     * executor's limits ("max_seq_len=131072, max_num_requests=2048,
     * max_num_tokens=8192", _torch/pyexecutor/py_executor_creator.py) */
    if (kvb__log_after(line, n, "Using LLM with PyTorch backend")) {
        f->accounting = KVB_ACCOUNTING_TRTLLM_PYTORCH;
        kvb__log_set(f, KVB_LOG_BIT_ACCOUNTING);
        mine = true;
    }
    if (kvb__log_after(line, n, "max_seq_len=") &&
        (p = kvb__log_after(line, n, "max_num_requests=")) != NULL) {
        if (number(p, end, &v)) {
            f->max_num_seqs = (uint32_t)kvb__min(v, UINT32_MAX);
            kvb__log_set(f, KVB_LOG_BIT_MAX_NUM_SEQS);
        }
        const char *q = kvb__log_after(line, n, "max_num_tokens=");
        if (q && number(q, end, &v)) {
            f->max_num_batched_tokens = (uint64_t)v;
            kvb__log_set(f, KVB_LOG_BIT_MAX_NUM_BATCHED_TOKENS);
        }
        q = kvb__log_after(line, n, "max_seq_len=");
        if (q && number(q, end, &v)) {
            f->max_model_len = (uint64_t)v;
            kvb__log_set(f, KVB_LOG_BIT_MAX_MODEL_LEN);
        }
        f->accounting = KVB_ACCOUNTING_TRTLLM_PYTORCH;
        kvb__log_set(f, KVB_LOG_BIT_ACCOUNTING);
        mine = true;
    }
    /* the PyTorch backend's estimate (_util.py _cal_max_memory) */
    if ((p = kvb__log_after(line, n,
                            "available KV cache memory when calculating max "
                            "tokens: ")) &&
        size_at(p, end, &b)) {
        f->kv_cache_bytes = (int64_t)b;
        kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_BYTES);
        const char *q = kvb__log_after(line, n, "fraction is set ");
        if (q && number(q, end, &v)) {
            f->gpu_memory_utilization = v;
            kvb__log_set(f, KVB_LOG_BIT_GPU_MEMORY_UTILIZATION);
        }
        f->accounting = KVB_ACCOUNTING_TRTLLM_PYTORCH;
        kvb__log_set(f, KVB_LOG_BIT_ACCOUNTING);
        mine = true;
    }
    if (kvb__log_after(line, n,
                       "Executor creation failed due to insufficient GPU "
                       "memory")) {
        f->failure = KVB_LOG_CUDA_OOM;
        f->oom_phase = KVB_LOG_PHASE_PROFILE;
        snprintf(f->failure_text, sizeof f->failure_text, "%.*s",
                 (int)kvb__min(n, sizeof f->failure_text - 1), line);
        f->accounting = KVB_ACCOUNTING_TRTLLM_PYTORCH;
        kvb__log_set(f, KVB_LOG_BIT_ACCOUNTING);
        mine = true;
    }
    if ((p = kvb__log_after(line, n, "Total GPU memory (GiB): ")) &&
        number(p, end, &v) && kvb__log_bytes(v, 1073741824.0, &b)) {
        f->gpu_total_bytes = b;
        kvb__log_set(f, KVB_LOG_BIT_GPU_TOTAL_BYTES);
        mine = true;
    }
    if (mine) {
        f->engine = KVB_ENGINE_TRTLLM;
        kvb__log_set(f, KVB_LOG_BIT_ENGINE);
    }
    return mine;
}

/* tensorrt_llm/commands/serve.py and llm_args.py: the KV dtype and
 * quantized checkpoints (ModelOpt FP8, INT4 AWQ, GPTQ) go through
 * --extra_llm_api_options; CUDA graphs are not a trtllm-serve flag; no
 * GGUF or bitsandbytes. */
static const char *trt_remedy(int32_t kind, int32_t quant)
{
    switch (kind) {
    case KVB_FIX_MAX_MODEL_LEN: return "--max_seq_len";
    case KVB_FIX_UTILIZATION: return "--kv_cache_free_gpu_memory_fraction";
    case KVB_FIX_KV_CACHE_FP8:
        return "kv_cache_config.dtype fp8 (--extra_llm_api_options)";
    case KVB_FIX_QUANTIZE:
        return quant == KVB_QUANT_FP8 || quant == KVB_QUANT_AWQ_4 ||
                       quant == KVB_QUANT_GPTQ_4 || quant == KVB_QUANT_BF16 ||
                       quant == KVB_QUANT_FP16
                   ? "a quantized checkpoint"
                   : NULL;
    case KVB_FIX_TENSOR_PARALLEL: return "--tp_size";
    default: return NULL;
    }
}

const kvb__engine kvb__engine_trtllm = {
    .id = KVB_ENGINE_TRTLLM,
    .name = "trtllm",
    .display = "TensorRT-LLM",
    /* TensorRT-LLM builds mllama as an encoder-decoder engine with its
     * own cross-attention KV pool (cross_kv_cache_fraction). */
    .no_cross_attention = "its encoder-decoder engine's cross KV pool "
                          "(cross_kv_cache_fraction) is not modelled",
    .variant = trt_variant,
    .accounting = trt_accounting,
    .defaults = trt_defaults,
    .check = trt_check,
    .parallelism_bad = trt_parallelism_bad,
    .requested_bytes = trt_requested,
    .cuda_context = kvb__torch_cuda_context,
    .non_torch = kvb__torch_non_torch,
    .startup_reserved = kvb__torch_startup_reserved,
    .cudagraph = trt_cudagraph,
    .graphs_in_budget = trt_graphs_in_budget,
    .weights_gpu_key = trt_weights_gpu_key,
    .loaded_weights = trt_loaded_weights,
    .activation = trt_activation,
    .hybrid_kv = trt_hybrid,
    .num_blocks = trt_num_blocks,
    .needed_bytes = kvb__paged_needed,
    .report = kvb__paged_report,
    .fit_len = kvb__paged_fit_len,
    .finish = trt_finish,
    .len_fails = trt_len_fails,
    .error_text = trt_error_text,
    .render_args = trt_render_args,
    .remedy = trt_remedy,
    .detect = trt_detect,
    .flags = trt_flags,
    .flag_count = KVB__ARRAY_LEN(trt_flags),
    .underscores = true,
    .positional_model = true,
    .log_line = trt_log_line,
};
