/*
 * engine_vllm.c -- vLLM's memory accounting, by release line.
 *
 * What vLLM computes from configuration (block math, defaults, reporting,
 * error texts) is reproduced as its source does it.  What vLLM measures
 * at start-up (activation peak, non-torch memory, CUDA-graph pool, CUDA
 * context) is modelled from what the measurement sees; each model and its
 * constants are derived in docs/model.md, and each can be overridden.
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Release lines: V0 until 0.8, V1 from 0.8, graphs budgeted from 0.21. */
int32_t kvb__vllm_accounting(uint32_t version)
{
    if (version == 0 || version >= 2100)
        return KVB_ACCOUNTING_VLLM_V1_021;
    if (version >= 800)
        return KVB_ACCOUNTING_VLLM_V1;
    return KVB_ACCOUNTING_VLLM_V0;
}

static bool line_v0(const kvb__engine_in *in)
{
    return in->accounting == KVB_ACCOUNTING_VLLM_V0;
}

/* ---- scheduler defaults (EngineArgs.get_batch_defaults) ---- */

static bool contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               (hay[i] | 0x20) == (needle[i] | 0x20))
            i++;
        if (i == n)
            return true;
    }
    return false;
}

/* H100-class: at least 70 GiB and not an A100 (the name check is vLLM's). */
static bool large_device(const kvb_gpu *g)
{
    return g->total_bytes >= 70 * ((uint64_t)1 << 30) &&
           !contains_nocase(g->name, "a100");
}

static void batch_defaults(kvb__engine_in *in)
{
    kvb_serving *s = &in->s;
    bool user_seqs = s->max_num_seqs != 0;
    if (s->enable_chunked_prefill < 0)
        s->enable_chunked_prefill =
            line_v0(in) ? s->max_model_len > 32768 : 1;
    if (!s->max_num_seqs)
        s->max_num_seqs =
            !line_v0(in) && large_device(in->gpu) ? 1024 : 256;
    if (!s->max_num_batched_tokens) {
        uint64_t t = line_v0(in) ? 2048 : large_device(in->gpu) ? 8192 : 2048;
        if (!s->enable_chunked_prefill)
            t = kvb__max(s->max_model_len, t);
        s->max_num_batched_tokens =
            kvb__min((uint64_t)s->max_num_seqs * s->max_model_len, t);
    }
    if (!user_seqs && !line_v0(in))
        s->max_num_seqs = (uint32_t)kvb__min(s->max_num_seqs,
                                             s->max_num_batched_tokens);
}

void kvb__vllm_defaults(kvb__engine_in *in)
{
    kvb_serving *s = &in->s;
    if (s->gpu_memory_utilization == 0.0)
        s->gpu_memory_utilization =
            in->accounting == KVB_ACCOUNTING_VLLM_V1_021 ? 0.92 : 0.90;
    if (!s->max_model_len)
        s->max_model_len = in->model->max_position_embeddings;
    batch_defaults(in);
}

/* requested_memory: ceil(total x util) from 0.21, a float before. */
uint64_t kvb__vllm_requested_bytes(const kvb__engine_in *in)
{
    double x = (double)in->gpu->total_bytes * in->s.gpu_memory_utilization;
    if (in->accounting == KVB_ACCOUNTING_VLLM_V1_021)
        return (uint64_t)ceil(x);
    /* floor((x - n) / p) == floor((floor(x) - n) / p) for integers n, p */
    return (uint64_t)floor(x);
}

/* ---- measured terms ---- */

/* CUDA context: about 3 MiB per SM (docs/model.md#context). */
#define CONTEXT_BYTES_PER_SM (3 * KVB__MIB)
#define CONTEXT_BYTES_UNKNOWN (400 * KVB__MIB)

uint64_t kvb__vllm_cuda_context(const kvb__engine_in *in)
{
    if (in->s.cuda_context_bytes != KVB_AUTO_BYTES)
        return in->s.cuda_context_bytes;
    if (in->gpu->multiprocessor_count)
        return (uint64_t)in->gpu->multiprocessor_count * CONTEXT_BYTES_PER_SM;
    return CONTEXT_BYTES_UNKNOWN;
}

uint64_t kvb__vllm_startup_reserved(const kvb__engine_in *in)
{
    return kvb__vllm_cuda_context(in);
}

/* cuBLAS default workspace (CUBLAS_WORKSPACE_CONFIG :4096:2:16:8). */
#define CUBLAS_WORKSPACE_BYTES 8519680u
/* Kernel modules loaded lazily during the profile run (docs/model.md). */
#define LAZY_MODULE_BYTES (128 * KVB__MIB)
/* NCCL: NCCL_BUFFSIZE per peer channel, send and receive, two channels. */
#define NCCL_BYTES_PER_PEER (4 * 4 * KVB__MIB)

static uint64_t cublaslt_workspace(const kvb_gpu *g)
{
    if (g->compute_capability >= 90)
        return 32 * KVB__MIB;
    if (g->compute_capability >= 80 && g->total_bytes >= 24000000000ull)
        return 4 * KVB__MIB;
    return KVB__MIB;
}

uint64_t kvb__vllm_non_torch(const kvb__engine_in *in)
{
    if (in->s.non_torch_bytes != KVB_AUTO_BYTES)
        return in->s.non_torch_bytes;
    uint64_t b = CUBLAS_WORKSPACE_BYTES + cublaslt_workspace(in->gpu) +
                 LAZY_MODULE_BYTES;
    uint32_t tp = in->s.tensor_parallel_size;
    if (tp > 1)
        b += (uint64_t)(tp - 1) * NCCL_BYTES_PER_PEER;
    return b;
}

/*
 * Sampler buffers per logit, in units of one FP32 logit, at the peak of
 * the dummy sampler run (docs/model.md#sampler).  V0's top-p/top-k path
 * holds the FP32 logits (1), the sorted values (1) and int64 indices (2),
 * the sorted softmax (1) and its cumsum (1), the int64 inverse index (2)
 * and the gathered logits (1): 9.  V1 frees as it goes.
 */
#define SAMPLER_LOGITS_V0 9
#define SAMPLER_LOGITS_V1 5

typedef struct widths {
    uint64_t tokens, reqs, hidden, b;
} widths;

static uint64_t attn_live(const kvb_model *m, uint32_t tp, const widths *w)
{
    uint64_t T = w->tokens, b = w->b, hd = kvb__head_dim(m);
    uint64_t qh = kvb__cdiv(m->num_attention_heads, tp);
    if (kvb__is_mla(m)) {
        uint64_t qk = (uint64_t)m->qk_nope_head_dim + m->qk_rope_head_dim;
        return T * b *
               (m->q_lora_rank + qh * qk + m->kv_lora_rank +
                m->qk_rope_head_dim +
                qh * (m->qk_nope_head_dim + m->v_head_dim) +
                qh * m->v_head_dim + m->hidden_size);
    }
    uint64_t kvh = kvb__kv_heads_per_rank(m, tp);
    return T * b * ((qh + 2 * kvh) * hd + qh * hd + m->hidden_size);
}

/* gate_up output, the activation and the down output are alive together:
 * the modelling code keeps gate_up in a local until the MLP returns. */
static uint64_t mlp_live(const kvb_model *m, uint64_t width, const widths *w)
{
    uint64_t per_tok = (m->flags & KVB_MODEL_MLP_NO_GATE) ? 2 * width
                                                          : 3 * width;
    return w->tokens * w->b * (per_tok + m->hidden_size);
}

static uint64_t moe_live(const kvb_model *m, uint32_t tp, bool ep,
                         const widths *w)
{
    uint64_t k = m->num_experts_per_tok;
    uint64_t width = ep ? m->moe_intermediate_size
                        : kvb__cdiv(m->moe_intermediate_size, tp);
    /* fused_moe intermediate caches 1-3 and the router logits (FP32) */
    uint64_t b = w->tokens * k * w->b * (3 * width + m->hidden_size) +
                 w->tokens * m->num_experts * 4;
    uint64_t shared = kvb__shared_width(m);
    if (shared)
        b += w->tokens * w->b * 3 * kvb__cdiv(shared, tp);
    return b;
}

static uint64_t forward_peak(const kvb__engine_in *in, uint32_t first,
                             uint32_t last, const widths *w)
{
    const kvb_model *m = in->model;
    uint32_t tp = in->s.tensor_parallel_size;
    uint64_t dense = 0, sparse = 0;
    for (uint32_t i = first; i < last; i++) {
        if (kvb__layer_is_moe(m, i))
            sparse = moe_live(m, tp, in->s.enable_expert_parallel, w);
        else
            dense = mlp_live(m, kvb__cdiv(m->intermediate_size, tp), w);
    }
    uint64_t mlp = kvb__max(dense, sparse);
    return 2 * w->hidden + kvb__max(attn_live(m, tp, w), mlp);
}

static uint64_t sampler_peak(const kvb__engine_in *in, const widths *w)
{
    uint64_t logits = w->reqs * in->model->vocab_size;
    uint64_t units = line_v0(in) ? SAMPLER_LOGITS_V0 : SAMPLER_LOGITS_V1;
    /* model-dtype logits, the FP32 working set, and the hidden states the
     * runner still holds */
    return logits * w->b + logits * 4 * units + w->hidden;
}

uint64_t kvb__vllm_activation(const kvb__engine_in *in, uint32_t stage)
{
    if (in->s.activation_bytes != KVB_AUTO_BYTES)
        return in->s.activation_bytes;
    const kvb_model *m = in->model;
    uint32_t pp = in->s.pipeline_parallel_size, first, last;
    kvb__pp_layers(m->num_hidden_layers, stage, pp, &first, &last);
    widths w;
    w.tokens = in->s.max_num_batched_tokens;
    w.reqs = kvb__min(in->s.max_num_seqs, w.tokens);
    w.b = kvb__dtype_bytes(kvb__act_dtype(m, in->quant));
    w.hidden = w.tokens * m->hidden_size * w.b;
    uint64_t peak = forward_peak(in, first, last, &w);
    if (stage + 1 == pp)
        peak = kvb__max(peak, sampler_peak(in, &w));
    return peak;
}

/* Piecewise graphs: one piece per layer boundary per captured size. */
#define CUDAGRAPH_BYTES_PER_PIECE (128 * 1024)

static uint64_t capture_sizes(const kvb__engine_in *in)
{
    uint64_t max = line_v0(in) ? kvb__min(in->s.max_num_seqs, 256)
                               : kvb__min(2 * (uint64_t)in->s.max_num_seqs,
                                          512);
    uint64_t n = 0;
    for (uint64_t s = 1; s <= 4 && s <= max; s *= 2)
        n++;
    return n + max / 8;
}

uint64_t kvb__vllm_cudagraph(const kvb__engine_in *in, uint32_t stage)
{
    if (in->s.enforce_eager)
        return 0;
    if (in->s.cudagraph_bytes != KVB_AUTO_BYTES)
        return in->s.cudagraph_bytes;
    uint32_t first, last;
    kvb__pp_layers(in->model->num_hidden_layers, stage,
                   in->s.pipeline_parallel_size, &first, &last);
    return capture_sizes(in) * (uint64_t)(last - first + 1) *
           CUDAGRAPH_BYTES_PER_PIECE;
}

/* ---- blocks, tokens, concurrency ---- */

uint64_t kvb__vllm_needed_bytes(const kvb__engine_in *in,
                                const kvb__kv_stage *ks, uint64_t len)
{
    uint64_t mnbt = in->s.max_num_batched_tokens;
    uint32_t bs = in->s.block_size;
    if (in->accounting == KVB_ACCOUNTING_VLLM_V1_021)
        return (uint64_t)ks->group_size * ks->page_bytes *
               kvb__kv_blocks_per_request(ks, len, mnbt, bs);
    uint64_t blocks = 0; /* the sum over layers of max_memory_usage_bytes */
    for (int k = 0; k < 3; k++)
        blocks += ks->layers[k] *
                  kvb__kv_blocks_per_layer(ks, k, len, mnbt, bs);
    return blocks * ks->page_bytes;
}

uint64_t kvb__vllm_num_blocks(const kvb__engine_in *in,
                              const kvb__kv_stage *ks, uint64_t available)
{
    (void)in;
    if (!ks->group_size || !ks->page_bytes)
        return 0;
    return available / ks->page_bytes / ks->group_size;
}

void kvb__vllm_report(const kvb__engine_in *in, const kvb__kv_stage *ks,
                      uint64_t num_blocks, uint64_t *tokens,
                      double *concurrency)
{
    uint64_t mml = in->s.max_model_len;
    uint32_t bs = in->s.block_size;
    bool new_tokens = in->version == 0 || in->version >= 901;
    if (line_v0(in) || !new_tokens) {
        *tokens = num_blocks * bs;
        *concurrency = (double)*tokens / (double)mml;
        return;
    }
    uint64_t per_req = kvb__kv_blocks_per_request(
        ks, mml, in->s.max_num_batched_tokens, bs);
    *concurrency = per_req ? (double)num_blocks / (double)per_req : 0.0;
    if (in->accounting == KVB_ACCOUNTING_VLLM_V1_021)
        *tokens = (uint64_t)(*concurrency * (double)mml);
    else
        *tokens = ks->n_groups ? num_blocks / ks->n_groups * bs : 0;
}

/* estimate_max_model_len: binary search on the same check. */
uint64_t kvb__vllm_fit_len(const kvb__engine_in *in, const kvb__kv_stage *ks,
                           uint64_t available, uint64_t num_blocks)
{
    uint64_t hi = in->model->max_position_embeddings;
    if (line_v0(in))
        return kvb__min(hi, num_blocks / in->s.pipeline_parallel_size *
                                in->s.block_size);
    if (kvb__vllm_needed_bytes(in, ks, 1) > available)
        return 0;
    uint64_t lo = 1;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (kvb__vllm_needed_bytes(in, ks, mid) <= available)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* ---- the engine's own error texts ---- */

/* vLLM's format_gib: str(round(b / 2**30, 2)). */
static void format_gib(uint64_t bytes, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.2f", KVB__GIB(bytes));
    size_t n = strlen(buf);
    while (n > 0 && buf[n - 1] == '0')
        buf[--n] = '\0';
    if (n > 0 && buf[n - 1] == '.' && n + 1 < cap) {
        buf[n] = '0';
        buf[n + 1] = '\0';
    }
}

static const char *const NO_MEMORY_OLD =
    "ValueError: No available memory for the cache blocks. Try increasing "
    "`gpu_memory_utilization` when initializing the engine.";
static const char *const NO_MEMORY_NEW =
    "ValueError: No available memory for the cache blocks. Try increasing "
    "`gpu_memory_utilization` when initializing the engine (this flag also "
    "controls CPU memory reservation on the CPU backend, despite its name). "
    "See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ "
    "for more details.";

static kvb_status max_len_text(const kvb_plan *p, char *buf, size_t cap,
                               size_t *needed, kvb_error *err)
{
    unsigned long long mml = (unsigned long long)p->max_model_len;
    unsigned long long fit =
        (unsigned long long)kvb__min(p->max_model_len_fit, p->max_model_len);
    if (p->accounting == KVB_ACCOUNTING_VLLM_V0)
        return kvb__render(
            buf, cap, needed, err,
            "ValueError: The model's max seq len (%llu) is larger than the "
            "maximum number of tokens that can be stored in KV cache (%llu). "
            "Try increasing `gpu_memory_utilization` or decreasing "
            "`max_model_len` when initializing the engine.",
            mml,
            (unsigned long long)(p->block_size *
                                 (p->num_blocks / p->pipeline_parallel_size)));
    char est[128] = "";
    if (p->accounting == KVB_ACCOUNTING_VLLM_V1) {
        if (fit > 0)
            snprintf(est, sizeof est, "Based on the available memory, the "
                                      "estimated maximum model length is %llu.",
                     fit);
        return kvb__render(
            buf, cap, needed, err,
            "ValueError: To serve at least one request with the models's max "
            "seq len (%llu), (%.2f GiB KV cache is needed, which is larger "
            "than the available KV cache memory (%.2f GiB). %s Try increasing "
            "`gpu_memory_utilization` or decreasing `max_model_len` when "
            "initializing the engine.",
            mml, KVB__GIB(p->kv_needed_bytes_per_gpu),
            KVB__GIB(p->kv_budget_bytes_per_gpu), est);
    }
    if (fit > 0)
        snprintf(est, sizeof est, "Based on the available memory, the "
                                  "estimated maximum model length is %llu. ",
                 fit);
    char need[32], avail[32];
    format_gib(p->kv_needed_bytes_per_gpu, need, sizeof need);
    format_gib(p->kv_budget_bytes_per_gpu, avail, sizeof avail);
    return kvb__render(
        buf, cap, needed, err,
        "ValueError: To serve at least one request with the model's max seq "
        "len (%llu), (%s GiB KV cache is needed, which is larger than the "
        "available KV cache memory (%s GiB). %sTry increasing "
        "`gpu_memory_utilization` (which also controls CPU memory on the CPU "
        "backend) or decreasing `max_model_len` when initializing the "
        "engine. See https://docs.vllm.ai/en/latest/configuration/"
        "conserving_memory/ for more details.",
        mml, need, avail, est);
}

static kvb_status oom_text(const kvb_plan *p, const char *when,
                           uint64_t wanted, char *buf, size_t cap,
                           size_t *needed, kvb_error *err)
{
    return kvb__render(buf, cap, needed, err,
                       "torch.OutOfMemoryError: CUDA out of memory %s: about "
                       "%.2f GiB more is needed on a GPU with a total capacity "
                       "of %.2f GiB.",
                       when, KVB__GIB(wanted), KVB__GIB(p->gpu_total_bytes));
}

kvb_status kvb__vllm_error_text(const kvb_plan *p, char *buf, size_t cap,
                                size_t *needed, kvb_error *err)
{
    bool old = p->accounting != KVB_ACCOUNTING_VLLM_V1_021;
    uint64_t room = p->gpu_total_bytes - p->cuda_context_bytes_per_gpu;
    switch (p->verdict) {
    case KVB_VERDICT_WEIGHTS_EXCEED:
        if (p->weights_bytes_per_gpu > room)
            return oom_text(p, "while loading the weights",
                            p->weights_bytes_per_gpu - room, buf, cap,
                            needed, err);
        /* the weights load, then no room is left for KV */
        return kvb__render(buf, cap, needed, err, "%s",
                           old ? NO_MEMORY_OLD : NO_MEMORY_NEW);
    case KVB_VERDICT_NO_KV_MEMORY:
        return kvb__render(buf, cap, needed, err, "%s",
                           old ? NO_MEMORY_OLD : NO_MEMORY_NEW);
    case KVB_VERDICT_MAX_LEN_EXCEEDS_KV:
        return max_len_text(p, buf, cap, needed, err);
    case KVB_VERDICT_HEADROOM_TOO_SMALL:
        if (p->usable_bytes_per_gpu > p->startup_free_bytes_per_gpu &&
            p->accounting != KVB_ACCOUNTING_VLLM_V0)
            return kvb__render(
                buf, cap, needed, err,
                "ValueError: Free memory on device cuda:0 (%.2f/%.2f GiB) on "
                "startup is less than desired GPU memory utilization (%g, "
                "%.2f GiB). Decrease GPU memory utilization or reduce GPU "
                "memory used by other processes.",
                KVB__GIB(p->startup_free_bytes_per_gpu),
                KVB__GIB(p->gpu_total_bytes), p->gpu_memory_utilization,
                KVB__GIB(p->usable_bytes_per_gpu));
        return oom_text(p, "while capturing CUDA graphs",
                        p->cudagraph_bytes_per_gpu, buf, cap, needed, err);
    case KVB_VERDICT_PARALLELISM_INVALID:
        return kvb__render(buf, cap, needed, err, "ValueError: %s",
                           p->message);
    default:
        return kvb__render(buf, cap, needed, err, "%s", "");
    }
}
