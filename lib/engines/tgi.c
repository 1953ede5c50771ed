/*
 * engines/tgi.c -- Hugging Face Text Generation Inference's memory
 * accounting, by release line.
 *
 * TGI sizes its KV cache in the warm-up (server/text_generation_server/
 * models/flash_causal_lm.py, FlashCausalLM.warmup): it allocates a cache
 * for the warm-up batch of max_batch_prefill_tokens, runs that prefill,
 * then reads the free memory with torch.cuda.mem_get_info, less what
 * --cuda-memory-fraction keeps back (utils/import_utils.py
 * get_cuda_free_memory: max(0, free - (1 - f) x total)), and gives the
 * KV cache
 *
 *   before 1.4.1         free_f // block bytes
 *   1.4.1 to 2.3         (free_f x 0.95) // block bytes     (PR #1428,
 *                                                  #2449 TGI_WIGGLE_ROOM)
 *   2.4                  (free_f x 0.90) // block bytes     (PR #2600)
 *   3.0 on               free_{f x room} // block bytes     (PR #2808:
 *                        room 0.95; 0.93 from 3.1, PR #2958; 0.90 from
 *                        3.3, PR #3189)
 *
 * plus the warm-up batch's blocks, which it allocated before measuring.
 * The router logs "Setting max batch total tokens to" blocks x BLOCK_SIZE
 * and fails with NotEnoughMemory when max_total_tokens exceeds it
 * (backends/v3/src/lib.rs).  BLOCK_SIZE is the attention backend's
 * (models/globals.py): 1 flashinfer, 256 flashdecoding, 16 paged.  KV
 * heads split as H_kv / num_shard, which must divide (flash_llama_modeling
 * .py).  docs/engines/tgi.md has the sources and the accuracy.
 */
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V(major, minor, patch) ((major)*10000u + (minor)*100u + (patch))

static bool since(const kvb__engine_in *in, uint32_t v)
{
    return in->version == 0 || in->version >= v;
}

static int32_t tgi_accounting(const kvb__engine_in *in)
{
    (void)in;
    return KVB_ACCOUNTING_TGI;
}

static kvb_status tgi_check(const kvb__engine_in *in, kvb_error *err)
{
    int32_t a = in->s.accounting;
    if (a >= 0 && a != KVB_ACCOUNTING_TGI)
        return kvb__fail(err, KVB_EINVAL, "serving.accounting",
                         "serving.accounting (%s) is not TGI's; allowed: "
                         "-1, tgi",
                         kvb_accounting_name(a) ? kvb_accounting_name(a) : "?");
    uint64_t in_tok = in->s.max_input_tokens;
    if (in_tok && in->s.max_model_len && in_tok >= in->s.max_model_len)
        return kvb__fail(err, KVB_EINVAL, "serving.max_input_tokens",
                         "serving.max_input_tokens (%llu) must be < "
                         "max_total_tokens (%llu); allowed: 1..%llu",
                         (unsigned long long)in_tok,
                         (unsigned long long)in->s.max_model_len,
                         (unsigned long long)in->s.max_model_len - 1);
    return KVB_OK;
}

/*
 * The attention backend the launcher picks (launcher/src/main.rs
 * resolve_attention, from 2.3): flashinfer unless the head size is not
 * 64, 128 or 256, or the model is Falcon or DeepSeek-V2, where
 * flashdecoding (compute capability 8.0 and up) or paged takes over.
 * Before 2.3 the server used paged attention (BLOCK_SIZE 16) unless
 * FLASH_DECODING was set.
 */
static uint32_t tgi_block_size(const kvb__engine_in *in)
{
    if (!since(in, V(2, 3, 0)))
        return 16;
    const kvb_model *m = in->model;
    uint32_t hd = (uint32_t)kvb__head_dim(m);
    uint32_t cc = in->gpu->compute_capability;
    bool flashinfer = (hd == 64 || hd == 128 || hd == 256) &&
                      m->arch != KVB_ARCH_FALCON &&
                      m->arch != KVB_ARCH_DEEPSEEK_V3;
    if (flashinfer)
        return 1;
    return cc && cc < 80 ? 16 : 256;
}

/* f16 FLOPS of the cards the launcher knows (main.rs ComputeType::f16_flop),
 * by the nvidia-smi name it matches or by the preset of that card. */
static uint64_t card_flops(const kvb_gpu *g)
{
    static const struct {
        const char *name;
        uint64_t tflops;
    } cards[] = {
        {"nvidia-4090", 82},
        {"nvidia-t4", 65},
        {"nvidia-l4", 121},
        {"l4", 121},
        {"nvidia-l40", 181},
        {"l40", 181},
        {"nvidia-l40s", 363},
        {"l40s", 363},
        {"nvidia-a10g", 125},
        {"a10g", 125},
        {"nvidia-a40", 149},
        {"a40", 149},
        {"nvidia-a100-sxm4-80gb", 312},
        {"nvidia-a100-sxm4-40gb", 312},
        {"nvidia-a100-80gb-pcie", 312},
        {"nvidia-a100", 312},
        {"a100-80gb", 312},
        {"a100-40gb", 312},
        {"nvidia-h100-80gb-hbm3", 900},
        {"nvidia-h100-nvl", 900},
        {"nvidia-h100", 900},
        {"h100", 900},
        {"h100-nvl", 900},
        {"nvidia-h200", 989},
        {"h200", 989},
    };
    char card[64];
    size_t i = 0;
    for (; g->name[i] && i + 1 < sizeof card; i++)
        card[i] =
            g->name[i] == ' ' ? '-' : (char)tolower((unsigned char)g->name[i]);
    card[i] = '\0';
    for (size_t k = 0; k < KVB__ARRAY_LEN(cards); k++)
        if (!strcmp(card, cards[k].name))
            return cards[k].tflops * 1000000000000ull;
    return 0;
}

/*
 * TGI 3.x's default max_batch_prefill_tokens (main.rs, PR #2797): the
 * cards' f16 FLOPS over the model's FLOPs per token (Config::flop), if
 * over 100, else 4096; capped by max_position_embeddings and by the
 * tokens the VRAM allows (vram_maximum: total x fraction x 0.95 less
 * 2 bytes a parameter, over KV plus MLP bytes a token; unquantized only).
 */
static uint64_t prefill_default_v3(const kvb__engine_in *in, uint32_t shards)
{
    const kvb_model *m = in->model;
    uint64_t h = m->hidden_size, hd = kvb__head_dim(m);
    uint64_t heads = m->num_attention_heads, kv = m->num_key_value_heads;
    uint64_t width = m->num_experts
                         ? m->moe_intermediate_size *
                               (m->num_experts_per_tok + m->num_shared_experts)
                         : m->intermediate_size;
    uint64_t layer =
        2 * heads * hd * h * 4 + 2 * kv * hd * h * 2 + 2 * 3 * h * width;
    uint64_t flop = layer * m->num_hidden_layers;
    uint64_t card = card_flops(in->gpu);
    uint64_t value = 4096;
    if (card && flop && card * shards / flop > 100)
        value = card * shards / flop;
    value = kvb__min(value, m->max_position_embeddings);
    bool quantized = in->quant->method != KVB_QUANT_AUTO &&
                     in->quant->method != KVB_QUANT_BF16 &&
                     in->quant->method != KVB_QUANT_FP16;
    if (card && !quantized) {
        uint64_t experts = m->num_experts ? m->num_experts : 1;
        uint64_t w =
            m->num_experts ? m->moe_intermediate_size : m->intermediate_size;
        double avail = (double)in->gpu->total_bytes * shards *
                       in->s.gpu_memory_utilization * 0.95;
        double model = 2.0 * ((double)((heads + 2 * kv) * hd + heads * hd * h +
                                       3 * w * experts * h) *
                                  m->num_hidden_layers +
                              2.0 * (double)(h * m->vocab_size));
        uint64_t tok = kv * 2 * hd * 2 * m->num_hidden_layers +
                       (w + w / 2) * experts * 2 * 3;
        if (avail > model && tok)
            value = kvb__min(value, (uint64_t)((avail - model) / (double)tok));
    }
    return value ? value : 1;
}

/*
 * Defaults of the launcher (launcher/src/main.rs) by line:
 *  - 1.x: --max-input-length 1024, --max-total-tokens 2048,
 *    --max-batch-prefill-tokens 4096;
 *  - 2.x: max_position_embeddings capped at 4096 (max_default): input
 *    that - 1, total that, prefill input + 50;
 *  - 3.x: all three left to the warm-up (total = min(KV tokens, model
 *    length), input = total - 1), prefill from prefill_default_v3.
 * --cuda-memory-fraction 1.0; --max-concurrent-requests 128 is the most
 * requests the router admits.
 */
static void tgi_defaults(kvb__engine_in *in)
{
    kvb_serving *s = &in->s;
    const kvb_model *m = in->model;
    if (s->gpu_memory_utilization == 0.0)
        s->gpu_memory_utilization = 1.0;
    if (!s->block_size)
        s->block_size = tgi_block_size(in);
    if (!s->max_num_seqs)
        s->max_num_seqs = 128;
    if (s->enable_chunked_prefill < 0)
        s->enable_chunked_prefill = since(in, V(3, 0, 0)) ? 1 : 0;
    uint64_t mpe = m->max_position_embeddings;
    if (!since(in, V(2, 0, 0))) {
        if (!s->max_model_len)
            s->max_model_len = kvb__min(2048, mpe);
        if (!s->max_input_tokens)
            s->max_input_tokens = kvb__min(1024, s->max_model_len - 1);
        if (!s->max_num_batched_tokens)
            s->max_num_batched_tokens = 4096;
    } else if (!since(in, V(3, 0, 0))) {
        uint64_t cap = kvb__min(mpe, 4096);
        if (!s->max_model_len)
            s->max_model_len = s->max_input_tokens
                                   ? kvb__max(cap, s->max_input_tokens + 1)
                                   : cap;
        if (!s->max_input_tokens)
            s->max_input_tokens = s->max_model_len - 1;
        if (!s->max_num_batched_tokens)
            s->max_num_batched_tokens = s->max_input_tokens + 50;
    } else {
        if (!s->max_model_len)
            s->max_model_len = mpe;
        if (!s->max_num_batched_tokens)
            s->max_num_batched_tokens =
                prefill_default_v3(in, s->tensor_parallel_size);
        if (!s->max_input_tokens)
            s->max_input_tokens =
                kvb__min(s->max_model_len - 1, s->max_num_batched_tokens);
    }
    if (!s->max_input_tokens)
        s->max_input_tokens = 1;
}

/* torch.cuda.set_per_process_memory_fraction(f) caps what the shard may
 * use: f x total, less the CUDA context outside PyTorch. */
static uint64_t tgi_requested(const kvb__engine_in *in)
{
    uint64_t ctx = kvb__torch_cuda_context(in);
    uint64_t f = (uint64_t)floor((double)in->gpu->total_bytes *
                                 in->s.gpu_memory_utilization);
    return f > ctx ? f - ctx : 0;
}

/* CUDA graphs are captured after the KV cache is allocated: they come out
 * of the wiggle room, not the budget. */
static uint64_t tgi_cudagraph(const kvb__engine_in *in, uint32_t layers)
{
    (void)in;
    (void)layers;
    return 0;
}

static bool tgi_graphs_in_budget(const kvb__engine_in *in)
{
    (void)in;
    return false;
}

/* The warm-up batch: requests of max_input_tokens (the router's
 * warmup in backends/v3/src/client/sharded_client.rs) until
 * max_batch_prefill_tokens, one logit row each. */
static uint64_t warmup_requests(const kvb__engine_in *in)
{
    uint64_t in_tok = in->s.max_input_tokens ? in->s.max_input_tokens : 1;
    return kvb__max(1, kvb__cdiv(in->s.max_num_batched_tokens, in_tok));
}

/*
 * The prefill logits the warm-up leaves reserved when TGI reads the free
 * memory.  Before 3.0 the router's warm-up requests ask prefill_logprobs
 * (router/client/src/client.rs, v3/client.rs, backends/v3/src/client/
 * grpc_client.rs: `prefill_logprobs: true`), so from_pb sets no
 * prefill_head_indices and the head runs over all T prefill tokens
 * (flash_causal_lm.py FlashCausalLMBatch.from_pb); generate_token then
 * takes log_softmax(out, -1) of the whole [T, V] in the model dtype
 * (v2.2.0 flash_causal_lm.py:1504; TGI #2301 shows it failing to allocate
 * T x V x 2 B at that line).  Live at that point:
 *  - one shard, or a vocabulary that does not divide by the shards (the
 *    whole head on every rank, should_gather false): `out` and its
 *    log_softmax, 2 x T x V; from 2.4.0 the log_softmax is in place
 *    (PR #2661, `torch.log_softmax(out, -1, out=out)`), 1 x T x V;
 *  - a gathered head (layers/tensor_parallel.py TensorParallelHead: the
 *    rank's [V/n, T] gather_input, the all-gathered [V, T] world_out,
 *    returned as world_out.T, a non-contiguous view): log_softmax makes a
 *    contiguous copy of its input and writes a new output (also for the
 *    out= form of 2.4, whose output is not contiguous), so 3 x T x V plus
 *    the rank's T x V/n.
 * From 3.0 the server drops prefill_logprobs unless
 * --enable-prefill-logprobs (flash_causal_lm.py from_pb, REQUEST_LOGPROBS,
 * PR #2797): only one logit row per request, in the forward's peak.
 * `live`: what is alive at the log_softmax, without the rank's copy that
 * TensorParallelHead.forward has already freed to the cache.
 */
static uint64_t warmup_logits(const kvb__engine_in *in, bool live)
{
    if (since(in, V(3, 0, 0)))
        return 0;
    const kvb_model *m = in->model;
    uint64_t n = in->s.tensor_parallel_size ? in->s.tensor_parallel_size : 1;
    uint64_t t = in->s.max_num_batched_tokens, v = m->vocab_size;
    uint64_t b = kvb__dtype_bytes(kvb__act_dtype(m, in->quant));
    uint64_t row = t * v * b;
    if (n > 1 && v % n == 0) /* the rank's copy is freed before the rest */
        return 3 * row + (live ? 0 : t * (v / n) * b);
    return since(in, V(2, 4, 0)) ? row : 2 * row;
}

/* The forward's activation peak over the warm-up batch (a torch
 * process's, engines/torch_process.c). */
static uint64_t forward_peak(const kvb__engine_in *in, uint32_t stage)
{
    kvb__engine_in x = *in;
    x.s.max_num_seqs =
        (uint32_t)kvb__min(warmup_requests(in), in->s.max_num_batched_tokens);
    return kvb__torch_activation(&x, stage);
}

/*
 * What the warm-up's prefill leaves reserved.  TGI reads
 * torch.cuda.mem_get_info right after generate_token with no
 * empty_cache between (flash_causal_lm.py warmup: empty_cache() runs
 * before the warm-up KV cache is allocated, not after the prefill), so
 * PyTorch's caching allocator still holds every segment the prefill
 * obtained and they count as used.  The [T, V] logits are larger than
 * any activation block of the same prefill (V > 2 x intermediate for
 * the models TGI serves), and the allocator neither merges segments nor
 * serves a request from a smaller cached block
 * (CUDACachingAllocator.cpp), so the logits take segments of their own
 * on top of the activations': the two add up rather than overlap.
 */
static uint64_t tgi_activation(const kvb__engine_in *in, uint32_t stage)
{
    if (in->s.activation_bytes != KVB_AUTO_BYTES)
        return in->s.activation_bytes;
    uint64_t peak = forward_peak(in, stage);
    if (stage + 1 < in->s.pipeline_parallel_size)
        return peak;
    return peak + warmup_logits(in, false);
}

/* What is left of the reserved peak when a cudaMalloc fails: PyTorch's
 * allocator then frees every cached block and retries
 * (CUDACachingAllocator.cpp, release_cached_blocks), so only the tensors
 * alive at that moment stay: the larger of the forward's peak and the
 * live logits. */
static uint64_t warmup_live(const kvb__engine_in *in)
{
    return kvb__max(forward_peak(in, 0), warmup_logits(in, true));
}

static bool tgi_hybrid(const kvb__engine_in *in)
{
    (void)in;
    return false;
}

/* KV tokens one warm-up request of `truncate` prompt tokens maps to
 * blocks: its prompt plus max_new_tokens - 1 (FlashCausalLMBatch.from_pb,
 * flash_causal_lm.py).  The router's warm-up asks max_new_tokens 2 before
 * 1.2.0 (router/client/src/client.rs), max_total_tokens - truncate from
 * 1.2.0 (PR #1178), so every request then reserves max_total_tokens - 1
 * however short its prompt; from 3.0 (backends/v3/src/client/
 * grpc_client.rs) max_total_tokens - truncate when --max-total-tokens is
 * given, else 1. */
static uint64_t warmup_request_tokens(const kvb__engine_in *in,
                                      uint64_t truncate)
{
    uint64_t total = in->s.max_model_len;
    if (!since(in, V(1, 2, 0)))
        return truncate + 1;
    if (since(in, V(3, 0, 0)) &&
        in->s.max_model_len == in->model->max_position_embeddings)
        return truncate; /* --max-total-tokens unset */
    return total > truncate ? total - 1 : truncate;
}

/* Blocks of the warm-up batch (its KV cache is counted as used when the
 * free memory is read, then added back): requests of max_input_tokens,
 * the last one the remainder of max_batch_prefill_tokens. */
static uint64_t warmup_blocks(const kvb__engine_in *in)
{
    uint64_t reqs = warmup_requests(in), bs = in->s.block_size;
    uint64_t p = in->s.max_num_batched_tokens;
    uint64_t in_tok = in->s.max_input_tokens ? in->s.max_input_tokens : p;
    uint64_t full = kvb__min(in_tok, p), last = p - (reqs - 1) * full;
    return (reqs - 1) * kvb__cdiv(warmup_request_tokens(in, full), bs) +
           kvb__cdiv(warmup_request_tokens(in, last), bs);
}

/*
 * The share of the measured free memory the KV cache may take, by
 * release (flash_causal_lm.py warmup; models/globals.py TGI_WIGGLE_ROOM):
 * all of it before 1.4.1; free x 0.95 from 1.4.1 (PR #1428) and, as
 * TGI_WIGGLE_ROOM 0.95, in 2.3 (PR #2449); 0.90 in 2.4 (PR #2600).  From
 * 3.0 (PR #2808) the room scales the memory fraction instead,
 * get_free_memory(device, MEMORY_FRACTION x TGI_WIGGLE_ROOM) = free -
 * (1 - f x room) x total, with room 0.95 in 3.0, 0.93 in 3.1 and 3.2
 * (PR #2958), 0.90 from 3.3 (PR #3189).
 */
static double wiggle_room(const kvb__engine_in *in)
{
    if (since(in, V(3, 3, 0)))
        return 0.90;
    if (since(in, V(3, 1, 0)))
        return 0.93;
    if (since(in, V(3, 0, 0)))
        return 0.95;
    if (since(in, V(2, 4, 0)))
        return 0.90;
    if (since(in, V(1, 4, 1)))
        return 0.95;
    return 1.0;
}

static uint64_t tgi_num_blocks(const kvb__engine_in *in,
                               const kvb__kv_stage *ks, uint64_t available)
{
    uint64_t bb = kvb__paged_block_bytes(ks);
    if (!bb)
        return 0;
    if (in->s.kv_cache_memory_bytes)
        return available / bb;
    uint64_t wb = warmup_blocks(in), w = wb * bb;
    if (available < w)
        return 0; /* the warm-up itself runs out of memory */
    double free_f = (double)(available - w);
    double kv;
    if (since(in, V(3, 0, 0))) /* free_{f x wiggle} */
        kv = free_f - (1.0 - wiggle_room(in)) * in->s.gpu_memory_utilization *
                          (double)in->gpu->total_bytes;
    else
        kv = free_f * wiggle_room(in);
    return (kv > 0 ? (uint64_t)(kv / (double)bb) : 0) + wb;
}

static void tgi_finish(const kvb__engine_in *in, kvb_plan *p,
                       const kvb__stage_result *r)
{
    uint64_t bb = kvb__paged_block_bytes(r->ks);
    p->kv_cache_bytes_per_gpu = p->num_blocks * bb;
    p->kv_budget_bytes_per_gpu = p->kv_cache_bytes_per_gpu;
    p->max_total_tokens = p->max_kv_tokens;
    /* 3.x: an unset max_total_tokens is what the KV cache holds, up to
     * the model's length (flash_causal_lm.py warmup) */
    if (since(in, V(3, 0, 0)) &&
        in->s.max_model_len == in->model->max_position_embeddings &&
        p->max_kv_tokens && p->max_kv_tokens < p->max_model_len) {
        p->max_model_len = p->max_kv_tokens;
        p->max_concurrency = 1.0;
    }
}

static bool tgi_len_fails(const kvb__engine_in *in, const kvb_plan *p,
                          const kvb__stage_result *r)
{
    (void)in;
    (void)r;
    return p->max_model_len > p->max_total_tokens;
}

/* Append to the plan's warning ("; "-joined, truncated). */
static void warn(kvb_plan *p, const char *fmt, ...) KVB__PRINTF(2, 3);
static void warn(kvb_plan *p, const char *fmt, ...)
{
    size_t n = strlen(p->warning);
    if (n && n + 3 < sizeof p->warning) {
        memcpy(p->warning + n, "; ", 3);
        n += 2;
    }
    if (n + 1 >= sizeof p->warning)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->warning + n, sizeof p->warning - n, fmt, ap);
    va_end(ap);
}

/* The warm-up needs the weights, its activation peak and its cache; the
 * rest is the router's check. */
static void tgi_verdict(const kvb__engine_in *in, kvb_plan *p,
                        const kvb__stage_result *r, bool text)
{
    uint64_t w = warmup_blocks(in) * kvb__paged_block_bytes(r->ks);
    uint64_t avail = r->available > 0 ? (uint64_t)r->available : 0;
    kvb__verdict_default(in, p, r, text);
    if (p->verdict == KVB_VERDICT_WEIGHTS_EXCEED || avail >= w)
        return;
    p->verdict = KVB_VERDICT_NO_KV_MEMORY;
    p->fits = 0;
    uint64_t live = warmup_live(in), act = r->activation;
    if (in->s.activation_bytes == KVB_AUTO_BYTES && act > live &&
        r->available + (int64_t)(act - live) >= (int64_t)w)
        warn(p,
             "the warm-up's activations and prefill logits (%.2f GiB "
             "reserved) exceed the GPU, but PyTorch frees its cached "
             "blocks and retries before failing, and the %.2f GiB alive "
             "at the peak fit: TGI may start with a smaller KV cache",
             KVB__GIB(act), KVB__GIB(live));
    if (text)
        snprintf(p->message, sizeof p->message,
                 "the warm-up of %llu prefill tokens does not fit: weights "
                 "%.2f + activations %.2f + non-torch %.2f + its KV %.2f "
                 "GiB exceed the %.2f GiB usable",
                 (unsigned long long)p->max_num_batched_tokens,
                 KVB__GIB(p->weights_bytes_per_gpu),
                 KVB__GIB(p->activation_bytes_per_gpu),
                 KVB__GIB(p->non_torch_bytes_per_gpu), KVB__GIB(w),
                 KVB__GIB(p->usable_bytes_per_gpu));
}

/* num_heads and num_key_value_heads must divide by num_shard
 * (custom_modeling/flash_llama_modeling.py and the other flash models). */
static bool tgi_parallelism_bad(const kvb__engine_in *in, uint32_t gpu_count,
                                char *msg, size_t cap)
{
    const kvb_model *m = in->model;
    uint32_t n = in->s.tensor_parallel_size;
    if (n > gpu_count || in->s.pipeline_parallel_size > 1) {
        if (msg)
            snprintf(msg, cap,
                     "num_shard %u (pipeline %u) needs %u GPUs; %u available; "
                     "TGI has no pipeline parallelism",
                     n, in->s.pipeline_parallel_size,
                     n * in->s.pipeline_parallel_size, gpu_count);
    } else if (m->num_attention_heads % n != 0) {
        if (msg)
            snprintf(msg, cap,
                     "`num_heads` must be divisible by `num_shards` (got "
                     "`num_heads`: %u and `num_shards`: %u",
                     m->num_attention_heads, n);
    } else if (!kvb__is_mla(m) && m->num_key_value_heads % n != 0) {
        if (msg)
            snprintf(msg, cap,
                     "`num_key_value_heads` must be divisible by `num_shards` "
                     "(got `num_key_value_heads`: %u and `num_shards`: %u",
                     m->num_key_value_heads, n);
    } else {
        return false;
    }
    return true;
}

static kvb_status tgi_error_text(const kvb_plan *p, char *buf, size_t cap,
                                 size_t *needed, kvb_error *err)
{
    switch (p->verdict) {
    case KVB_VERDICT_WEIGHTS_EXCEED:
        return kvb__render(buf, cap, needed, err,
                           "torch.cuda.OutOfMemoryError: CUDA out of memory "
                           "while loading the weights (%.2f GiB per shard, "
                           "%.2f GiB GPU)",
                           KVB__GIB(p->weights_bytes_per_gpu),
                           KVB__GIB(p->gpu_total_bytes));
    case KVB_VERDICT_NO_KV_MEMORY:
        return kvb__render(buf, cap, needed, err,
                           "Not enough memory to handle %llu prefill tokens. "
                           "You need to decrease `--max-batch-prefill-tokens`",
                           (unsigned long long)p->max_num_batched_tokens);
    case KVB_VERDICT_MAX_LEN_EXCEEDS_KV:
        return kvb__render(
            buf, cap, needed, err,
            "Not enough memory to handle `max_total_tokens=%llu`",
            (unsigned long long)p->max_model_len);
    case KVB_VERDICT_PARALLELISM_INVALID:
        return kvb__render(buf, cap, needed, err, "ValueError: %s", p->message);
    default: return kvb__render(buf, cap, needed, err, "%s", "");
    }
}

/* ---- fixes as text-generation-launcher flags ---- */

static void tgi_render_args(const kvb_fix *f, const kvb_model *m, kvb__args *a)
{
    char repo[96];
    bool have = kvb__model_repo(m->name, repo, sizeof repo);
    kvb__arg(a, "--model-id");
    kvb__arg(a, "%s", have ? repo : m->name[0] ? m->name : "MODEL");
    static const struct {
        int32_t method;
        const char *value;
    } quant[] = {
        {KVB_QUANT_FP8, "fp8"},
        {KVB_QUANT_GPTQ_4, "gptq"},
        {KVB_QUANT_GPTQ_8, "gptq"},
        {KVB_QUANT_AWQ_4, "awq"},
        {KVB_QUANT_BNB_4, "bitsandbytes-nf4"},
    };
    for (size_t i = 0; i < KVB__ARRAY_LEN(quant); i++)
        if (quant[i].method == f->quant_method) {
            kvb__arg(a, "--quantize");
            kvb__arg(a, "%s", quant[i].value);
        }
    kvb__arg(a, "--max-total-tokens");
    kvb__arg(a, "%llu", (unsigned long long)f->max_model_len);
    kvb__arg(a, "--max-input-tokens");
    kvb__arg(
        a, "%llu",
        (unsigned long long)(f->max_model_len > 1 ? f->max_model_len - 1 : 1));
    kvb__arg(a, "--cuda-memory-fraction");
    kvb__arg(a, "%.2f", f->gpu_memory_utilization);
    if (f->tensor_parallel_size > 1) {
        kvb__arg(a, "--num-shard");
        kvb__arg(a, "%u", f->tensor_parallel_size);
    }
    if (f->kv_cache_dtype == KVB_DTYPE_FP8) {
        kvb__arg(a, "--kv-cache-dtype");
        kvb__arg(a, "fp8_e4m3fn");
    }
    if (f->enforce_eager) {
        kvb__arg(a, "--cuda-graphs");
        kvb__arg(a, "0");
    }
}

/* ---- command lines ---- */

static bool tgi_detect(size_t argc, const char *const *argv, size_t *used)
{
    return kvb__cmd_program(argc, argv, "text-generation-launcher", NULL, used);
}

/* ATTENTION=flashinfer|flashdecoding|paged picks BLOCK_SIZE
 * (models/globals.py). */
static kvb_status tgi_attention(kvb__cmd *c, const char *flag,
                                const char *value, kvb_error *err)
{
    if (!strcmp(value, "flashinfer"))
        c->s->block_size = 1;
    else if (!strcmp(value, "flashdecoding"))
        c->s->block_size = 256;
    else if (!strcmp(value, "flashdecoding-ipex"))
        c->s->block_size = 64;
    else if (!strcmp(value, "paged"))
        c->s->block_size = 16;
    else
        return kvb__fail(err, KVB_EINVAL, "command",
                         "command: %s (%s) is not a TGI attention; allowed: "
                         "flashinfer, flashdecoding, flashdecoding-ipex, paged",
                         flag, value);
    return KVB_OK;
}

/* --cuda-graphs 0 turns them off ("1,2,4" lists batch sizes). */
static kvb_status tgi_cuda_graphs(kvb__cmd *c, const char *flag,
                                  const char *value, kvb_error *err)
{
    (void)flag;
    (void)err;
    c->s->enforce_eager = !strcmp(value, "0");
    return KVB_OK;
}

/* The user's --max-batch-total-tokens: used by 0.x; ignored with a
 * warning by the router of flash models since (backends/v3/src/lib.rs). */
static kvb_status tgi_batch_total(kvb__cmd *c, const char *flag,
                                  const char *value, kvb_error *err)
{
    uint64_t v;
    kvb_status st = kvb__cmd_u64(flag, value, 1, UINT32_MAX, &v, err);
    if (st)
        return st;
    c->s->max_total_tokens = v;
    kvb__cmd_warn(c,
                  "%s %llu: TGI infers the batch total from the warm-up and "
                  "ignores it for flash models",
                  flag, (unsigned long long)v);
    return KVB_OK;
}

#define S KVB__FLAG_SERVING
#define C KVB__FLAG_COMMAND
/* launcher/src/main.rs (struct Args, clap: each flag also read from the
 * environment variable of the same name). */
static const kvb__flag tgi_flags[] = {
    C("--model-id", "MODEL_ID", model),
    C("--quantize", "QUANTIZE", quantization),
    C("--dtype", "DTYPE", dtype),
    C("--kv-cache-dtype", "KV_CACHE_DTYPE", kv_cache_dtype),
    S("--num-shard", "NUM_SHARD", KVB__FLAG_U32, tensor_parallel_size),
    S("--max-total-tokens", "MAX_TOTAL_TOKENS", KVB__FLAG_U64, max_model_len),
    S("--max-input-tokens|--max-input-length", "MAX_INPUT_TOKENS",
      KVB__FLAG_U64, max_input_tokens),
    S(NULL, "MAX_INPUT_LENGTH", KVB__FLAG_U64, max_input_tokens),
    S("--max-batch-prefill-tokens", "MAX_BATCH_PREFILL_TOKENS", KVB__FLAG_U64,
      max_num_batched_tokens),
    KVB__FLAG_SET("--max-batch-total-tokens", "MAX_BATCH_TOTAL_TOKENS",
                  tgi_batch_total),
    S("--max-batch-size", "MAX_BATCH_SIZE", KVB__FLAG_U32, max_num_seqs),
    S("--cuda-memory-fraction", "CUDA_MEMORY_FRACTION", KVB__FLAG_FRACTION,
      gpu_memory_utilization),
    KVB__FLAG_SET("--cuda-graphs", "CUDA_GRAPHS", tgi_cuda_graphs),
    KVB__FLAG_SET(NULL, "ATTENTION", tgi_attention),
    KVB__FLAG_SKIP("--revision|--validation-workers|--sharded|"
                   "--max-concurrent-requests|--max-best-of|"
                   "--max-stop-sequences|--max-top-n-tokens|"
                   "--waiting-served-ratio|--max-waiting-tokens|--hostname|"
                   "-p|--port|--shard-uds-path|--master-addr|--master-port|"
                   "--huggingface-hub-cache|--weights-cache-override|"
                   "--otlp-endpoint|--otlp-service-name|--cors-allow-origin|"
                   "--api-key|--watermark-gamma|--watermark-delta|"
                   "--ngrok-authtoken|--ngrok-edge|--tokenizer-config-path|"
                   "--max-client-batch-size|--lora-adapters|--usage-stats|"
                   "--payload-limit|--speculate|--rope-scaling|--rope-factor|"
                   "--prefix-caching|--served-model-name|--max-input-length-"
                   "deprecated|--graceful-termination-timeout",
                   NULL),
    KVB__FLAG_SKIP(NULL, "PREFIX_CACHING"),
    KVB__FLAG_SKIP(NULL, "TGI_WIGGLE_ROOM"),
    KVB__FLAG_SKIP_BARE("--trust-remote-code|--disable-custom-kernels|"
                        "--json-output|--ngrok|--disable-grammar-support|"
                        "--env|--enable-prefill-logprobs|--disable-usage-"
                        "stats",
                        NULL),
};
#undef S
#undef C

/* ---- log lines ---- */

static bool integer(const char *p, const char *end, uint64_t *out)
{
    while (p < end && (*p == ' ' || *p == '`' || *p == '='))
        p++;
    if (p >= end || *p < '0' || *p > '9')
        return false;
    uint64_t v = 0;
    while (p < end && *p >= '0' && *p <= '9' && v < UINT64_MAX / 10)
        v = v * 10 + (uint64_t)(*p++ - '0');
    *out = v;
    return true;
}

static void failure(kvb_log_facts *f, int32_t kind, const char *line, size_t n)
{
    f->failure = kind;
    f->oom_phase = KVB_LOG_PHASE_PROFILE;
    snprintf(f->failure_text, sizeof f->failure_text, "%.*s",
             (int)kvb__min(n, sizeof f->failure_text - 1), line);
}

/* "name: value" of the launcher's Args dump ("num_shard: Some(8)"). */
static bool arg_u64(const char *line, size_t n, const char *key, uint64_t *out)
{
    const char *p = kvb__log_after(line, n, key);
    if (!p)
        return false;
    const char *end = line + n;
    if (end - p >= 5 && !memcmp(p, "Some(", 5))
        p += 5;
    return integer(p, end, out);
}

static bool tgi_log_line(kvb_log_facts *f, const char *line, size_t n)
{
    const char *end = line + n, *p;
    uint64_t v;
    bool mine = false;
    if ((p = kvb__log_after(line, n, "Setting max batch total tokens to ")) &&
        integer(p, end, &v)) {
        f->max_total_tokens = f->kv_cache_tokens = v;
        kvb__log_set(f, KVB_LOG_BIT_MAX_TOTAL_TOKENS);
        kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_TOKENS);
        mine = true;
    }
    if ((p = kvb__log_after(line, n,
                            "Default `max_batch_prefill_tokens` to ")) &&
        integer(p, end, &v)) {
        f->max_num_batched_tokens = v;
        kvb__log_set(f, KVB_LOG_BIT_MAX_NUM_BATCHED_TOKENS);
        mine = true;
    }
    /* launcher/src/main.rs: "Default `max_total_tokens` to 4096" and
     * "Sharding model on 2 processes" */
    if ((p = kvb__log_after(line, n, "Default `max_total_tokens` to ")) &&
        integer(p, end, &v)) {
        f->max_model_len = v;
        kvb__log_set(f, KVB_LOG_BIT_MAX_MODEL_LEN);
        mine = true;
    }
    if ((p = kvb__log_after(line, n, "Sharding model on ")) &&
        kvb__log_after(line, n, " processes") && integer(p, end, &v) && v &&
        v <= 4096) {
        f->tensor_parallel_size = (uint32_t)v;
        kvb__log_set(f, KVB_LOG_BIT_TENSOR_PARALLEL_SIZE);
        mine = true;
    }
    if ((p = kvb__log_after(line, n, "KV-cache blocks: ")) &&
        integer(p, end, &v)) {
        f->gpu_blocks = v;
        kvb__log_set(f, KVB_LOG_BIT_GPU_BLOCKS);
        const char *q = kvb__log_after(line, n, "size: ");
        if (q && integer(q, end, &v)) {
            f->block_size = (uint32_t)v;
            kvb__log_set(f, KVB_LOG_BIT_BLOCK_SIZE);
        }
        mine = true;
    }
    if (kvb__log_after(line, n, "Not enough memory to handle") &&
        kvb__log_after(line, n, "prefill tokens")) {
        failure(f, KVB_LOG_CUDA_OOM, line, n);
        const char *q = kvb__log_after(line, n, "Not enough memory to handle ");
        if (q && integer(q, end, &v) &&
            kvb__log_after(line, n, "total tokens")) {
            f->max_total_tokens = v; /* 0.x: the batch total it tried */
            kvb__log_set(f, KVB_LOG_BIT_MAX_TOTAL_TOKENS);
        }
        mine = true;
    } else if ((p = kvb__log_after(line, n,
                                   "Not enough memory to handle "
                                   "`max_total_tokens=")) &&
               integer(p, end, &v)) {
        failure(f, KVB_LOG_MAX_LEN_EXCEEDS_KV, line, n);
        f->max_model_len = v;
        kvb__log_set(f, KVB_LOG_BIT_MAX_MODEL_LEN);
        mine = true;
    }
    if (kvb__log_after(line, n, "Args {") ||
        kvb__log_after(line, n, "model_id: \"")) {
        if (arg_u64(line, n, "num_shard: ", &v) && v && v <= 4096) {
            f->tensor_parallel_size = (uint32_t)v;
            kvb__log_set(f, KVB_LOG_BIT_TENSOR_PARALLEL_SIZE);
        }
        if (arg_u64(line, n, " max_total_tokens: ", &v)) {
            f->max_model_len = v;
            kvb__log_set(f, KVB_LOG_BIT_MAX_MODEL_LEN);
        }
        if (arg_u64(line, n, "max_batch_prefill_tokens: ", &v)) {
            f->max_num_batched_tokens = v;
            kvb__log_set(f, KVB_LOG_BIT_MAX_NUM_BATCHED_TOKENS);
        }
        if ((p = kvb__log_after(line, n, "model_id: \"")) != NULL) {
            const char *q = memchr(p, '"', (size_t)(end - p));
            if (q) {
                snprintf(f->model, sizeof f->model, "%.*s",
                         (int)kvb__min((size_t)(q - p), sizeof f->model - 1),
                         p);
                kvb__log_set(f, KVB_LOG_BIT_MODEL);
            }
        }
        if ((p = kvb__log_after(line, n, "cuda_memory_fraction: ")) != NULL) {
            double d;
            if (kvb__log_number(p, line + n, 1, &d) && d > 0) {
                f->gpu_memory_utilization = d;
                kvb__log_set(f, KVB_LOG_BIT_GPU_MEMORY_UTILIZATION);
            }
        }
        mine = true;
    }
    if (mine) {
        f->engine = KVB_ENGINE_TGI;
        f->accounting = KVB_ACCOUNTING_TGI;
        kvb__log_set(f, KVB_LOG_BIT_ENGINE);
        kvb__log_set(f, KVB_LOG_BIT_ACCOUNTING);
    }
    return mine;
}

/* launcher/src/main.rs: --quantize takes fp8, gptq, awq,
 * bitsandbytes(-nf4) ... (no GGUF); --cuda-graphs 0 is eager. */
static const char *tgi_remedy(int32_t kind, int32_t quant)
{
    switch (kind) {
    case KVB_FIX_MAX_MODEL_LEN: return "--max-total-tokens";
    case KVB_FIX_UTILIZATION: return "--cuda-memory-fraction";
    case KVB_FIX_ENFORCE_EAGER: return "--cuda-graphs 0";
    case KVB_FIX_KV_CACHE_FP8: return "--kv-cache-dtype fp8_e4m3fn";
    case KVB_FIX_QUANTIZE:
        return quant == KVB_QUANT_FP8 || quant == KVB_QUANT_GPTQ_4 ||
                       quant == KVB_QUANT_GPTQ_8 || quant == KVB_QUANT_AWQ_4 ||
                       quant == KVB_QUANT_BNB_4 || quant == KVB_QUANT_BF16 ||
                       quant == KVB_QUANT_FP16
                   ? "--quantize"
                   : NULL;
    case KVB_FIX_TENSOR_PARALLEL: return "--num-shard";
    default: return NULL;
    }
}

const kvb__engine kvb__engine_tgi = {
    .id = KVB_ENGINE_TGI,
    .name = "tgi",
    .display = "TGI",
    /* TGI serves it (server/text_generation_server/models/
     * mllama_causal_lm.py) keeping each batch's cross_attention_states
     * as tensors beside its paged KV blocks: not modelled. */
    .no_cross_attention = "the cross_attention_states it keeps beside "
                          "its KV blocks (mllama_causal_lm.py) are not "
                          "modelled",
    .accounting = tgi_accounting,
    .defaults = tgi_defaults,
    .check = tgi_check,
    .parallelism_bad = tgi_parallelism_bad,
    .requested_bytes = tgi_requested,
    .cuda_context = kvb__torch_cuda_context,
    .non_torch = kvb__torch_non_torch,
    .startup_reserved = kvb__torch_startup_reserved,
    .cudagraph = tgi_cudagraph,
    .graphs_in_budget = tgi_graphs_in_budget,
    .weights_gpu_key = kvb__torch_weights_gpu_key,
    .loaded_weights = kvb__torch_loaded_weights,
    .activation = tgi_activation,
    .hybrid_kv = tgi_hybrid,
    .num_blocks = tgi_num_blocks,
    .needed_bytes = kvb__paged_needed,
    .report = kvb__paged_report,
    .fit_len = kvb__paged_fit_len,
    .finish = tgi_finish,
    .len_fails = tgi_len_fails,
    .verdict = tgi_verdict,
    .error_text = tgi_error_text,
    .render_args = tgi_render_args,
    .remedy = tgi_remedy,
    .detect = tgi_detect,
    .flags = tgi_flags,
    .flag_count = KVB__ARRAY_LEN(tgi_flags),
    .underscores = false,
    .positional_model = false,
    .log_line = tgi_log_line,
};
