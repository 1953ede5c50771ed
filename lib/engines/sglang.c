/*
 * engines/sglang.c -- SGLang's memory accounting, by release line.
 *
 * SGLang sizes its KV pool once, from free memory, before any profile run
 * (python/sglang/srt/model_executor/model_runner.py: init_torch_distributed,
 * profile_max_num_token, init_memory_pool; read at 8221f9ae, about v0.5.x,
 * and 18bb216c, early 2025; /work/shared/data/engines.md section 2):
 *
 *   pre    = free memory after torch-distributed init, before the weights
 *            (min_per_gpu_memory, the minimum over the TP ranks)
 *   avail  = free memory after the weights ("Load weight end ... avail mem")
 *   rest   = avail - pre x (1 - mem_fraction_static)
 *          = pre x mem_fraction_static - weights
 *   max_total_num_tokens = rest // cell_size, clamped by --max-total-tokens
 *            and floored to --page-size (the "#tokens" of "KV Cache is
 *            allocated")
 *
 * The activations and CUDA graphs live in the (1 - mem_fraction_static)
 * share, outside the pool: nothing is measured, so the only modelled terms
 * are the weights as loaded and what is used before them (CUDA context,
 * NCCL and custom all-reduce buffers).  docs/engines/sglang.md derives
 * each rule and compares the plan with real start-up logs.
 */
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* SGLang release numbers, packed as kvb_serving.engine_version. */
#define V(major, minor, patch) ((major)*10000u + (minor)*100u + (patch))

/* Is `in` at least release `v`?  0 ("newest") is every release. */
static bool since(const kvb__engine_in *in, uint32_t v)
{
    return in->version == 0 || in->version >= v;
}

/* ---- defaults (server_args.py: _handle_gpu_memory_settings) ---- */

/* nvidia-smi memory.total in MiB, the minimum over the GPUs
 * (utils/common.py get_nvgpu_memory_capacity).  nvidia-smi counts the
 * memory the driver keeps, which CUDA's total does not: 469 MiB on an
 * H100 (81559 against 81090 MiB, lib/presets/gpus.c). */
#define SMI_EXTRA_MIB 469

static double gpu_mem_mib(const kvb__engine_in *in)
{
    return (double)(in->gpu->total_bytes / KVB__MIB + SMI_EXTRA_MIB);
}

/* chunked_prefill_size and cuda_graph_max_bs by GPU memory (PR #10975,
 * 2025-09: one table; before it the same buckets were spread over
 * server_args.py and cuda_graph_runner.py). */
static void memory_buckets(const kvb__engine_in *in, uint64_t *chunked,
                           uint32_t *graph_bs)
{
    double mem = gpu_mem_mib(in);
    bool wide = in->s.tensor_parallel_size >= 4;
    if (mem < 20 * 1024) {
        *chunked = 2048;
        *graph_bs = 8;
    } else if (mem < 35 * 1024) {
        *chunked = 2048;
        *graph_bs = wide ? 80 : 16;
    } else if (mem < 60 * 1024) {
        *chunked = 4096;
        *graph_bs = wide ? 160 : 32;
    } else if (mem < 160 * 1024) {
        *chunked = 8192;
        *graph_bs = wide ? 512 : 256;
    } else {
        *chunked = 16384;
        *graph_bs = 512;
    }
}

/*
 * The default mem_fraction_static, by release line:
 *  - before 0.4.9 (server_args.py @ 18bb216c): by TP size only, 0.88 at
 *    TP 1, 0.87 from 2, 0.85 from 4, 0.81 from 8, 0.79 from 16;
 *  - 0.4.7 to 0.5.2: reserved MiB by GPU-memory bucket and TP x PP,
 *    (2.8 + tp.pp/10) GiB under 35 GiB, (9.5 + tp.pp/2) under 90,
 *    (12 + tp.pp/2) under 160, else 32 GiB; + 4 GiB with DP attention;
 *  - from 0.5.3 (PR #10975, @ 8221f9ae): 512 + max(chunked, 2048) x 1.5
 *    + cuda_graph_max_bs x 2 + tp.pp/8 x 1024 MiB, DP attention adding
 *    max_bs.dp x 3 (and x 1.5 more over 300), at least 10 GiB on GPUs of
 *    more than 60 GiB.
 * Then round((gpu_mem - reserved) / gpu_mem, 3).  SGLang's docs notebooks
 * (H100, TP 1) print 0.88 on 2025-05-15 and 0.874 = round((81559 - 10240)
 * / 81559, 3) on 2025-06-16, between v0.4.6.post5 and v0.4.7; 0.5.3 is
 * the first tag after PR #10975 (docs/engines/sglang.md).
 */
static double default_fraction(const kvb__engine_in *in)
{
    const kvb_serving *s = &in->s;
    double mem = gpu_mem_mib(in);
    double par = (double)s->tensor_parallel_size * s->pipeline_parallel_size;
    double reserved;
    if (!since(in, V(0, 4, 7))) {
        uint32_t tp = s->tensor_parallel_size;
        return tp >= 16  ? 0.79
               : tp >= 8 ? 0.81
               : tp >= 4 ? 0.85
               : tp >= 2 ? 0.87
                         : 0.88;
    }
    if (!since(in, V(0, 5, 3))) {
        if (mem < 35 * 1024)
            reserved = (2.8 + par / 10) * 1024;
        else if (mem < 90 * 1024)
            reserved = (9.5 + par / 2) * 1024;
        else if (mem < 160 * 1024)
            reserved = (12 + par / 2) * 1024;
        else
            reserved = 32 * 1024;
        if (s->enable_dp_attention)
            reserved += 4 * 1024;
    } else {
        double chunk = (double)kvb__max(s->max_num_batched_tokens, 2048);
        double bs = s->cuda_graph_max_bs, dp = s->data_parallel_size;
        reserved = 512 + chunk * 1.5 + bs * 2 + par / 8 * 1024;
        if (s->enable_dp_attention) {
            reserved += bs * dp * 3;
            if (bs > 300)
                reserved += bs * dp * 1.5;
        }
        if (mem > 60 * 1024 && reserved < 10240)
            reserved = 10240;
    }
    return round((mem - reserved) / mem * 1000) / 1000;
}

static void sglang_defaults(kvb__engine_in *in)
{
    kvb_serving *s = &in->s;
    uint64_t chunked;
    uint32_t graph_bs;
    memory_buckets(in, &chunked, &graph_bs);
    if (!s->block_size)
        s->block_size = 1; /* --page-size */
    if (!s->data_parallel_size)
        s->data_parallel_size = 1;
    if (!s->max_model_len) /* --context-length: the model's own */
        s->max_model_len = in->model->max_position_embeddings;
    if (!s->max_num_batched_tokens) /* --chunked-prefill-size */
        s->max_num_batched_tokens = chunked;
    if (!s->cuda_graph_max_bs)
        s->cuda_graph_max_bs = graph_bs;
    if (s->gpu_memory_utilization == 0.0)
        s->gpu_memory_utilization = default_fraction(in);
}

/* ---- the budget ---- */

/* CUDA context: about 3 MiB per SM, as for vLLM (docs/model.md#context). */
#define CONTEXT_BYTES_PER_SM  (3 * KVB__MIB)
#define CONTEXT_BYTES_UNKNOWN (400 * KVB__MIB)
/*
 * torch-distributed init under TP ("Init torch distributed ends. mem
 * usage"): NCCL's buffers, NCCL_BUFFSIZE (4 MiB) for sending and for
 * receiving on each channel to each peer, and SGLang's custom all-reduce
 * buffers.  NCCL opens up to 32 channels over NVLink and a few over PCIe,
 * and SGLang turns custom all-reduce off on more than two PCIe-only GPUs
 * (distributed/device_communicators/custom_all_reduce.py).  Two logs:
 * 8 x H200, 2.01 GB per rank (sgl-project/sglang PR #11716) = 256 MiB +
 * 7 x 256 MiB; 4 x L4, 0.13 GB (didier-durand/llms-in-clouds,
 * docs/sglang.md) = 96 MiB + 3 x 16 MiB (2 channels).
 */
#define DIST_LINKED_BASE     (256 * KVB__MIB)
#define DIST_LINKED_PER_PEER (256 * KVB__MIB)
#define DIST_PCIE_BASE       (96 * KVB__MIB)
#define DIST_PCIE_PER_PEER   (16 * KVB__MIB)

static bool name_has(const char *name, const char *word)
{
    size_t n = strlen(word);
    for (; *name; name++) {
        size_t i = 0;
        while (i < n && name[i] && (name[i] | 0x20) == (word[i] | 0x20))
            i++;
        if (i == n)
            return true;
    }
    return false;
}

/* Boards on NVLink or Infinity Fabric: the data-centre parts of 70 GiB
 * and more (H100/H200/B200 SXM, A100 80GB, MI300X) but not the PCIe
 * cards and workstation boards. */
static bool linked(const kvb_gpu *g)
{
    return g->total_bytes >= 70 * ((uint64_t)1 << 30) &&
           !name_has(g->name, "pcie") && !name_has(g->name, "rtx");
}

/* What is used before the weights: the CUDA context, and under TP the
 * communicators.  pre = total - this (or the probe's free - the latter). */
static uint64_t sglang_cuda_context(const kvb__engine_in *in)
{
    uint64_t ctx = in->s.cuda_context_bytes;
    if (ctx == KVB_AUTO_BYTES)
        ctx =
            in->gpu->multiprocessor_count
                ? (uint64_t)in->gpu->multiprocessor_count * CONTEXT_BYTES_PER_SM
                : CONTEXT_BYTES_UNKNOWN;
    uint32_t ranks = in->s.tensor_parallel_size * in->s.pipeline_parallel_size;
    if (ranks > 1) {
        bool nv = linked(in->gpu);
        ctx += (nv ? DIST_LINKED_BASE : DIST_PCIE_BASE) +
               (uint64_t)(ranks - 1) *
                   (nv ? DIST_LINKED_PER_PEER : DIST_PCIE_PER_PEER);
    }
    return ctx;
}

/* min_per_gpu_memory: free memory before the weights. */
static uint64_t pre_load_free(const kvb__engine_in *in)
{
    uint64_t used = sglang_cuda_context(in);
    uint64_t total =
        in->gpu->free_bytes ? in->gpu->free_bytes : in->gpu->total_bytes;
    return total > used ? total - used : 0;
}

/* "requested": pre - pre x (1 - mem_fraction_static); the weights come
 * off it in plan.c, which leaves profile_max_num_token's rest. */
static uint64_t sglang_requested_bytes(const kvb__engine_in *in)
{
    double pre = (double)pre_load_free(in);
    double reserve = pre * (1.0 - in->s.gpu_memory_utilization);
    return pre > reserve ? (uint64_t)(pre - reserve) : 0;
}

/* Nothing is measured between the weights and the pool. */
static uint64_t sglang_zero(const kvb__engine_in *in)
{
    (void)in;
    return 0;
}

static uint64_t sglang_activation(const kvb__engine_in *in, uint32_t stage)
{
    (void)in;
    (void)stage;
    return 0;
}

/* CUDA graphs are captured after the pool, from the (1 - fraction)
 * share; SGLang's own estimate of them is cuda_graph_max_bs x 2 MiB
 * (server_args.py, the reserve of the default fraction). */
static uint64_t sglang_cudagraph(const kvb__engine_in *in, uint32_t layers)
{
    (void)layers;
    if (in->s.enforce_eager) /* --disable-cuda-graph */
        return 0;
    if (in->s.cudagraph_bytes != KVB_AUTO_BYTES)
        return in->s.cudagraph_bytes;
    return (uint64_t)in->s.cuda_graph_max_bs * 2 * KVB__MIB;
}

static bool sglang_false(const kvb__engine_in *in)
{
    (void)in;
    return false;
}

/* ---- the weights as SGLang holds them ---- */

/* Attention weights of a stage on one rank at `tp`. */
typedef struct attn_ctx {
    kvb__quant_ctx qc;
    uint32_t tp;
    uint64_t bytes;
} attn_ctx;

static bool attention_role(int32_t role)
{
    return (role >= KVB_ROLE_ATTN_Q && role <= KVB_ROLE_MLA_KV_B) ||
           role == KVB_ROLE_SINKS;
}

static int attn_tensor(void *vctx, const kvb__tdesc *t)
{
    attn_ctx *c = vctx;
    int32_t role = t->role == KVB_ROLE_BIAS || t->role == KVB_ROLE_NORM
                       ? t->of_role
                       : t->role;
    uint64_t b = 0;
    if (!attention_role(role))
        return 0;
    if (!kvb__tensor_rank_bytes(t, kvb__storage_for(&c->qc, t), c->qc.model,
                                c->qc.quant, c->tp, false, &b))
        c->bytes += b;
    return 0;
}

static uint64_t attention_bytes(const kvb__engine_in *in, uint32_t first,
                                uint32_t last, uint32_t tp)
{
    attn_ctx c;
    memset(&c, 0, sizeof c);
    kvb__quant_ctx_init(&c.qc, in->model, in->quant);
    c.tp = tp;
    kvb__inventory_walk_range(in->model, first, last, 0, attn_tensor, &c);
    return c.bytes;
}

/* The attention's TP size: DP attention splits the TP group into dp
 * groups of tp / dp ranks (server_args.py, compute_dp_attention_world_info
 * in layers/dp_attention.py). */
static uint32_t attn_tp(const kvb__engine_in *in)
{
    uint32_t tp = in->s.tensor_parallel_size, dp = in->s.data_parallel_size;
    if (in->s.enable_dp_attention && dp > 1 && tp % dp == 0)
        return tp / dp;
    return tp;
}

/* "mem usage" is measured in free memory, so it also holds the CUDA
 * kernel modules that lazy loading (CUDA_MODULE_LOADING=LAZY) brings in
 * while the weights are copied and processed: 128 MiB, the figure
 * docs/model.md derives for vLLM's profile run. */
#define LOAD_MODULE_BYTES (128 * KVB__MIB)

/*
 * "Load weight end ... mem usage" is the free memory the load took.
 * SGLang builds its layers as vLLM does (fused qkv_proj and gate_up_proj
 * parameters, PyTorch's caching allocator, one rotary cos/sin cache), so
 * vLLM's model of the load overhead is used (docs/model.md, "Weights as
 * loaded").  Under DP attention the attention weights are split over
 * tp / dp ranks only.
 */
static uint64_t sglang_loaded_weights(const kvb__engine_in *in, uint32_t stage,
                                      uint64_t inventory_bytes)
{
    uint64_t b = kvb__torch_loaded_weights(in, stage, inventory_bytes) +
                 LOAD_MODULE_BYTES;
    uint32_t tp = in->s.tensor_parallel_size, atp = attn_tp(in);
    if (atp != tp) {
        uint32_t first, last;
        kvb__pp_layers(in->model->num_hidden_layers, stage,
                       in->s.pipeline_parallel_size, &first, &last);
        uint64_t wide = attention_bytes(in, first, last, atp);
        uint64_t narrow = attention_bytes(in, first, last, tp);
        if (wide > narrow)
            b += wide - narrow;
    }
    return b;
}

/* ---- the pool ---- */

/* SGLang's hybrid SWA pool (mem_cache/swa_memory_pool.py) for the
 * models that declare sliding-window layers to it: gpt-oss and Gemma 3
 * (model_config.py is_hybrid_swa_model); --disable-hybrid-swa-memory
 * sizes every layer for full attention. */
static bool sglang_hybrid(const kvb__engine_in *in)
{
    int32_t arch = in->model->arch;
    return !in->s.disable_hybrid_kv_cache &&
           (arch == KVB_ARCH_GPT_OSS || arch == KVB_ARCH_GEMMA3) &&
           in->model->sliding_window != 0;
}

/* swa_full_tokens_ratio (server_args.py default). */
#define SWA_FULL_TOKENS_RATIO 0.8

/*
 * SGLang's mamba pool for Mamba2 / Gated DeltaNet hybrids
 * (model_executor/model_runner.py profile_max_num_token and
 * handle_max_mamba_cache; mem_cache/memory_pool.py HybridReqToTokenPool
 * and MambaPool).  The KV budget `rest` is split before any token:
 *
 *   per_req = the state of every recurrent layer of one request on one
 *             rank (mamba2_cache_params.mamba_cache_per_req): conv in the
 *             model dtype, temporal in --mamba-ssm-dtype (float32)
 *   radix on (the default for Gated DeltaNet from 0.5.4, PR #11214, and
 *   for Mamba2 from 0.5.6, PR #13584):
 *       slots = int(rest x r / (1 + r) // per_req), r =
 *               --mamba-full-memory-ratio (0.9 since PR #11679)
 *       max_num_reqs <= slots // 3 (MAMBA_CACHE_SIZE_MAX_RUNNING_
 *               REQUESTS_RATIO: a running request and its cached states),
 *               // 5 with the extra_buffer strategy (below)
 *   radix off (the releases before; --disable-radix-cache):
 *       slots = --max-running-requests, else 512; max_num_reqs <= slots
 *   tokens = (rest - slots x per_req) // cell, the cell over the
 *            full-attention layers only (full_attention_layer_ids).
 */
#define MAMBA_FULL_MEMORY_RATIO 0.9
#define MAMBA_DEFAULT_SLOTS     512
#define MAMBA_SLOTS_PER_REQUEST 3
/* Qwen3-Next (Gated DeltaNet) arrived with 0.5.2 (PR #10233, 2025-09);
 * NemotronH (Mamba2) with 0.5.4; both dated from version-bump commits. */
#define MAMBA_GDN_SINCE    V(0, 5, 2)
#define MAMBA_MAMBA2_SINCE V(0, 5, 4)
#define MAMBA_GDN_RADIX    V(0, 5, 4)
#define MAMBA_MAMBA2_RADIX V(0, 5, 6)
/* --mamba-scheduler-strategy auto resolves to extra_buffer for Gated
 * DeltaNet models while the overlap scheduler is on (proposed in PR
 * #26127, 2026-05; in the code PR #30127 moved on 2026-07-04): two
 * ping-pong states more a request (MAMBA_CACHE_V2_ADDITIONAL_RATIO_
 * OVERLAP), so max_num_reqs <= slots // 5.  The release is inferred
 * from those dates.  NemotronH still ran no_buffer in 2026-07 (issue
 * #31833). */
#define MAMBA_GDN_EXTRA_BUFFER   V(0, 5, 13)
#define MAMBA_EXTRA_BUFFER_SLOTS 2

static bool is_gdn(const kvb_model *m)
{
    return strchr(m->layer_pattern, 'G') != NULL;
}

/* Does the release run this hybrid with its radix cache (so the pool is
 * split by ratio)? */
static bool mamba_radix(const kvb__engine_in *in)
{
    return since(in, is_gdn(in->model) ? MAMBA_GDN_RADIX : MAMBA_MAMBA2_RADIX);
}

/* mamba_cache_per_req on one rank: the temporal state in float32
 * (--mamba-ssm-dtype's default), the conv state in the model dtype. */
static uint64_t mamba_per_request(const kvb__engine_in *in)
{
    kvb_model m = *in->model;
    m.ssm_state_dtype = KVB_DTYPE_FP32;
    return kvb__state_bytes_per_request(
        &m, in->quant, in->s.tensor_parallel_size, 0, m.num_hidden_layers);
}

/* max_mamba_cache_size for a KV budget of `rest` bytes. */
static uint64_t mamba_slots(const kvb__engine_in *in, uint64_t rest)
{
    uint64_t per = mamba_per_request(in);
    if (!per)
        return 0;
    if (!mamba_radix(in))
        return in->s.max_num_seqs ? in->s.max_num_seqs : MAMBA_DEFAULT_SLOTS;
    double r = MAMBA_FULL_MEMORY_RATIO;
    return (uint64_t)((double)rest * r / (1.0 + r)) / per;
}

/* The pool's bytes, at most `rest`. */
static uint64_t mamba_pool_bytes(const kvb__engine_in *in, uint64_t rest)
{
    uint64_t per = mamba_per_request(in), slots = mamba_slots(in, rest);
    if (per && slots > rest / per)
        return rest;
    return slots * per;
}

/* cell_size of profile_max_num_token: every layer of the stage,
 * max(1, H_kv // attention TP) heads (model_config.get_num_kv_heads);
 * MLA caches kv_lora_rank + qk_rope_head_dim. */
static uint64_t cell_bytes(const kvb__engine_in *in, const kvb__kv_stage *ks)
{
    const kvb_model *m = in->model;
    uint32_t tp = in->s.tensor_parallel_size, atp = attn_tp(in);
    if (atp == tp || kvb__is_mla(m))
        return ks->token_bytes;
    uint64_t h = kvb__kv_heads_per_rank(m, tp);
    return h ? ks->token_bytes / h * kvb__kv_heads_per_rank(m, atp) : 0;
}

/* Full-attention tokens of the pool, and the SWA layers' tokens
 * (set_num_token_hybrid: swa x n_swa + full x n_full = total x layers,
 * swa = full x ratio). */
static void pool_tokens(const kvb__engine_in *in, const kvb__kv_stage *ks,
                        uint64_t total, uint64_t *full, uint64_t *swa)
{
    uint32_t n_swa = ks->layers[KVB__ATTN_SLIDING];
    uint32_t n_full =
        ks->layers[KVB__ATTN_FULL] + ks->layers[KVB__ATTN_CHUNKED];
    uint32_t page = in->s.block_size ? in->s.block_size : 1;
    *full = *swa = total;
    if (sglang_hybrid(in) && n_swa) {
        double layers = (double)n_swa + n_full;
        double f = (double)total * layers /
                   (SWA_FULL_TOKENS_RATIO * n_swa + (double)n_full);
        *full = (uint64_t)f;
        *swa = (uint64_t)(f * SWA_FULL_TOKENS_RATIO);
        *swa = *swa / page * page;
    }
    *full = *full / page * page;
}

/* init_memory_pool: tokens = rest // cell, at most --max-total-tokens,
 * floored to the page size; the blocks are pages of full-attention
 * tokens. */
static uint64_t sglang_num_blocks(const kvb__engine_in *in,
                                  const kvb__kv_stage *ks, uint64_t available)
{
    uint64_t cell = cell_bytes(in, ks), full, swa;
    uint32_t page = in->s.block_size ? in->s.block_size : 1;
    if (!cell)
        return 0;
    available -= mamba_pool_bytes(in, available);
    uint64_t tokens = available / cell;
    if (in->s.max_total_tokens)
        tokens = kvb__min(tokens, in->s.max_total_tokens);
    pool_tokens(in, ks, tokens, &full, &swa);
    return full / page;
}

static uint64_t sglang_needed_bytes(const kvb__engine_in *in,
                                    const kvb__kv_stage *ks, uint64_t len)
{
    uint32_t page = in->s.block_size ? in->s.block_size : 1;
    return kvb__round_up(len, page) * cell_bytes(in, ks);
}

/* The scheduler serves a request of up to max_total_num_tokens - 1
 * tokens (managers/scheduler.py max_req_input_len); concurrency is the
 * pool over the context length. */
static void sglang_report(const kvb__engine_in *in, const kvb__kv_stage *ks,
                          uint64_t num_blocks, uint64_t *tokens,
                          double *concurrency)
{
    (void)ks;
    *tokens = num_blocks * (in->s.block_size ? in->s.block_size : 1);
    *concurrency = in->s.max_model_len
                       ? (double)*tokens / (double)in->s.max_model_len
                       : 0.0;
}

static uint64_t sglang_fit_len(const kvb__engine_in *in,
                               const kvb__kv_stage *ks, uint64_t available,
                               uint64_t num_blocks)
{
    (void)ks;
    (void)available;
    uint64_t tokens = num_blocks * (in->s.block_size ? in->s.block_size : 1);
    return kvb__min(tokens, in->model->max_position_embeddings);
}

/* req_to_token_pool size (model_runner.py init_memory_pool): 512 slots
 * per context of the pool, clamped to [2048, 4096]. */
static uint64_t request_slots(uint64_t tokens, uint64_t context)
{
    uint64_t r =
        context ? (uint64_t)((double)tokens / (double)context * 512) : 2048;
    return kvb__min(kvb__max(r, 2048), 4096);
}

/* The requests the mamba pool admits (init_memory_pool: max_num_reqs at
 * most max_mamba_cache_size // ratio); UINT64_MAX for other models. */
static uint64_t mamba_requests(const kvb__engine_in *in,
                               const kvb__stage_result *r)
{
    if (!mamba_per_request(in))
        return UINT64_MAX;
    uint64_t rest = r->available > 0 ? (uint64_t)r->available : 0;
    uint64_t slots = mamba_slots(in, rest);
    if (!mamba_radix(in))
        return slots;
    uint64_t ratio = MAMBA_SLOTS_PER_REQUEST;
    if (is_gdn(in->model) && since(in, MAMBA_GDN_EXTRA_BUFFER))
        ratio += MAMBA_EXTRA_BUFFER_SLOTS;
    return slots / ratio;
}

/* The state pool is part of the KV-cache line (as llama.cpp's cells
 * are); the warning names it ("Mamba Cache is allocated.
 * max_mamba_cache_size: N").  A fixed pool larger than the budget leaves
 * a negative rest: SGLang stops with "Not enough memory". */
static void mamba_finish(const kvb__engine_in *in, kvb_plan *p,
                         const kvb__stage_result *r)
{
    uint64_t per = mamba_per_request(in);
    if (!per)
        return;
    uint64_t rest = r->available > 0 ? (uint64_t)r->available : 0;
    uint64_t slots = mamba_slots(in, rest), bytes = mamba_pool_bytes(in, rest);
    p->kv_cache_bytes_per_gpu += bytes;
    if (slots > rest / per)
        snprintf(p->warning, sizeof p->warning,
                 "SGLang's mamba pool of %llu states of %.2f MiB (%.2f GiB) "
                 "exceeds the %.2f GiB left after the weights: SGLang stops "
                 "with \"Not enough memory\"; lower --max-running-requests",
                 (unsigned long long)slots, (double)per / KVB__MIB,
                 KVB__GIB(slots * per), KVB__GIB(rest));
    else if (p->warning[0] == '\0')
        snprintf(p->warning, sizeof p->warning,
                 "SGLang's mamba pool: %llu slots of %.2f MiB (%.2f GiB, in "
                 "the KV cache line), at most %u running requests",
                 (unsigned long long)slots, (double)per / KVB__MIB,
                 KVB__GIB(bytes), p->max_num_seqs);
}

static void sglang_finish(const kvb__engine_in *in, kvb_plan *p,
                          const kvb__stage_result *r)
{
    const kvb__kv_stage *ks = r->ks;
    uint64_t full = p->max_kv_tokens, swa = full, cell = cell_bytes(in, ks);
    uint32_t layers = ks->layers[0] + ks->layers[1] + ks->layers[2];
    uint64_t per_layer = layers ? cell / layers : 0;
    if (sglang_hybrid(in) && ks->layers[KVB__ATTN_SLIDING]) {
        uint64_t total = r->available > 0 ? (uint64_t)r->available / cell : 0;
        if (in->s.max_total_tokens)
            total = kvb__min(total, in->s.max_total_tokens);
        pool_tokens(in, ks, total, &full, &swa);
        p->kv_cache_bytes_per_gpu =
            full * per_layer *
                (ks->layers[KVB__ATTN_FULL] + ks->layers[KVB__ATTN_CHUNKED]) +
            swa * per_layer * ks->layers[KVB__ATTN_SLIDING];
    } else {
        p->kv_cache_bytes_per_gpu = full * cell;
    }
    p->max_total_tokens = full;
    p->kv_bytes_per_token_per_gpu = cell; /* DP attention: attn_tp heads */
    p->block_bytes_per_gpu = cell * p->block_size;
    p->kv_cache_groups = 1;
    /* max_running_requests (managers/tp_worker.py): the user's value over
     * dp, else max_total_num_tokens // 2; at most the request slots. */
    uint64_t slots = request_slots(full, in->s.max_model_len);
    /* the pool had one slot more until mid-2025 ("max_running_requests=
     * 2049" in the logs of 2025-01 to 2025-03, 2048 from 2025-07) */
    if (!since(in, V(0, 4, 7)))
        slots++;
    uint64_t run =
        in->s.max_num_seqs
            ? in->s.max_num_seqs / kvb__max(in->s.data_parallel_size, 1)
            : full / 2;
    slots = kvb__min(slots, mamba_requests(in, r));
    p->max_num_seqs = (uint32_t)kvb__min(kvb__min(run, slots), UINT32_MAX);
    if (full && full < in->s.max_model_len && p->warning[0] == '\0')
        snprintf(p->warning, sizeof p->warning,
                 "SGLang starts but serves requests of at most %llu tokens "
                 "(max_total_num_tokens - 1), below --context-length %llu",
                 (unsigned long long)(full - 1),
                 (unsigned long long)in->s.max_model_len);
    mamba_finish(in, p, r);
}

/* SGLang never refuses a context longer than the pool: it caps the
 * request length instead (the concurrency verdict says so). */
static bool sglang_len_fails(const kvb__engine_in *in, const kvb_plan *p,
                             const kvb__stage_result *r)
{
    (void)in;
    (void)p;
    (void)r;
    return false;
}

/* ---- parallelism ---- */

static bool sglang_parallelism_bad(const kvb__engine_in *in, uint32_t count,
                                   char *msg, size_t cap)
{
    uint32_t tp = in->s.tensor_parallel_size, dp = in->s.data_parallel_size;
    if (in->s.enable_dp_attention && dp > 1 && tp % dp != 0) {
        if (msg)
            snprintf(msg, cap,
                     "tp_size (%u) must be divisible by dp_size (%u) with "
                     "--enable-dp-attention",
                     tp, dp);
        return true;
    }
    return kvb__parallelism_bad(in, count, msg, cap);
}

/* ---- the engine's own error texts ---- */

/* The weights load and leave no pool. */
static kvb_status no_pool_text(const kvb_plan *p, char *buf, size_t cap,
                               size_t *needed, kvb_error *err)
{
    double pre = (double)(p->gpu_total_bytes - p->cuda_context_bytes_per_gpu);
    double after = pre - (double)p->weights_bytes_per_gpu;
    double least = pre > 0 ? 1.0 - (after > 0 ? after : 0) / pre : 1.0;
    if (p->engine_version == 0) /* mem_cache/kv_cache_configurator.py */
        return kvb__render(buf, cap, needed, err,
                           "ValueError: Loaded weights leave no GPU memory "
                           "for the KV cache under --mem-fraction-static=%g. "
                           "Increase --mem-fraction-static to at least %.4f.",
                           p->gpu_memory_utilization, least);
    /* model_executor/model_runner.py init_memory_pool (v0.4, v0.5) */
    return kvb__render(buf, cap, needed, err,
                       "RuntimeError: Not enough memory. Please try to "
                       "increase --mem-fraction-static. Current value: "
                       "self.server_args.mem_fraction_static=%g",
                       p->gpu_memory_utilization);
}

static kvb_status sglang_error_text(const kvb_plan *p, char *buf, size_t cap,
                                    size_t *needed, kvb_error *err)
{
    uint64_t room = p->gpu_total_bytes - p->cuda_context_bytes_per_gpu;
    switch (p->verdict) {
    case KVB_VERDICT_WEIGHTS_EXCEED:
        if (p->weights_bytes_per_gpu > room)
            return kvb__render(
                buf, cap, needed, err,
                "torch.OutOfMemoryError: CUDA out of memory while loading "
                "the weights: about %.2f GiB more is needed on a GPU with a "
                "total capacity of %.2f GiB.",
                KVB__GIB(p->weights_bytes_per_gpu - room),
                KVB__GIB(p->gpu_total_bytes));
        return no_pool_text(p, buf, cap, needed, err);
    case KVB_VERDICT_NO_KV_MEMORY:
        return no_pool_text(p, buf, cap, needed, err);
    case KVB_VERDICT_HEADROOM_TOO_SMALL:
        return kvb__render(
            buf, cap, needed, err,
            "torch.OutOfMemoryError: CUDA out of memory while capturing CUDA "
            "graphs: about %.2f GiB is needed outside --mem-fraction-static "
            "%g on a GPU with a total capacity of %.2f GiB.",
            KVB__GIB(p->cudagraph_bytes_per_gpu), p->gpu_memory_utilization,
            KVB__GIB(p->gpu_total_bytes));
    case KVB_VERDICT_PARALLELISM_INVALID:
        return kvb__render(buf, cap, needed, err, "ValueError: %s", p->message);
    default: return kvb__render(buf, cap, needed, err, "%s", "");
    }
}

/* ---- fixes as SGLang flags ---- */

/* python3 -m sglang.launch_server's flags (server_args.py add_cli_args). */
static void sglang_render_args(const kvb_fix *f, const kvb_model *m,
                               kvb__args *a)
{
    char repo[96];
    bool have_repo = kvb__model_repo(m->name, repo, sizeof repo);
    kvb__arg(a, "--model-path");
    kvb__arg(a, "%s", have_repo ? repo : m->name[0] ? m->name : "MODEL");
    kvb__quant_args(a, f->quant_method, true);
    kvb__arg(a, "--context-length");
    kvb__arg(a, "%llu", (unsigned long long)f->max_model_len);
    /* SGLang's own defaults have three decimals (0.835) */
    char frac[16];
    snprintf(frac, sizeof frac, "%.3f", f->gpu_memory_utilization);
    for (size_t n = strlen(frac); n > 3 && frac[n - 1] == '0'; n--)
        frac[n - 1] = '\0';
    kvb__arg(a, "--mem-fraction-static");
    kvb__arg(a, "%s", frac);
    if (f->tensor_parallel_size > 1) {
        kvb__arg(a, "--tp-size");
        kvb__arg(a, "%u", f->tensor_parallel_size);
    }
    if (f->pipeline_parallel_size > 1) {
        kvb__arg(a, "--pp-size");
        kvb__arg(a, "%u", f->pipeline_parallel_size);
    }
    if (f->enforce_eager)
        kvb__arg(a, "--disable-cuda-graph");
    if (f->kv_cache_dtype == KVB_DTYPE_FP8) {
        kvb__arg(a, "--kv-cache-dtype");
        kvb__arg(a, "fp8_e4m3");
    }
}

/* ---- command lines ---- */

static bool sglang_detect(size_t argc, const char *const *argv, size_t *used)
{
    return kvb__cmd_module(argc, argv, "sglang.launch_server", used) ||
           kvb__cmd_module(argc, argv, "sglang_router.launch_server", used) ||
           kvb__cmd_program(argc, argv, "sglang", "serve", used);
}

/* --ep-size N: experts split over N ranks (server_args.py ep_size). */
static kvb_status sglang_ep(kvb__cmd *c, const char *flag, const char *value,
                            kvb_error *err)
{
    uint64_t n;
    kvb_status st = kvb__cmd_u64(flag, value, 1, 4096, &n, err);
    if (!st)
        c->s->enable_expert_parallel = n > 1;
    return st;
}

/* --chunked-prefill-size: -1 turns chunking off (prefill whole prompts);
 * the activation reserve then follows the context length. */
static kvb_status sglang_chunked(kvb__cmd *c, const char *flag,
                                 const char *value, kvb_error *err)
{
    uint64_t n;
    if (!strcmp(value, "-1")) {
        c->s->enable_chunked_prefill = 0;
        return KVB_OK;
    }
    kvb_status st = kvb__cmd_u64(flag, value, 1, (uint64_t)1 << 34, &n, err);
    if (!st) {
        c->s->max_num_batched_tokens = n;
        c->s->enable_chunked_prefill = 1;
    }
    return st;
}

/* Speculative decoding changes the default fraction and adds draft
 * layers to the pool; the plan does not model it (a warning says so). */
static kvb_status sglang_speculative(kvb__cmd *c, const char *flag,
                                     const char *value, kvb_error *err)
{
    (void)err;
    kvb__cmd_warn(c,
                  "%s %s: speculative decoding is not modelled (draft "
                  "weights and KV are not counted)",
                  flag, value);
    return KVB_OK;
}

/* The mamba pool's settings (server_args.py): the plan takes their
 * defaults (512 slots or the 0.9 split, a float32 temporal state). */
static kvb_status sglang_mamba_flag(kvb__cmd *c, const char *flag,
                                    const char *value, kvb_error *err)
{
    (void)err;
    kvb__cmd_warn(c,
                  "%s %s: not modelled; the plan sizes the mamba pool with "
                  "SGLang's defaults",
                  flag, value);
    return KVB_OK;
}

#define S KVB__FLAG_SERVING
#define C KVB__FLAG_COMMAND
/* python/sglang/srt/server_args.py (ServerArgs.add_cli_args): the flags
 * that change memory are read, the others are listed as ignored. */
static const kvb__flag sglang_flags[] = {
    C("--model-path|--model", NULL, model),
    C("--quantization", NULL, quantization),
    C("--dtype", NULL, dtype),
    C("--kv-cache-dtype", NULL, kv_cache_dtype),
    S("--context-length", NULL, KVB__FLAG_U64, max_model_len),
    S("--mem-fraction-static", NULL, KVB__FLAG_FRACTION,
      gpu_memory_utilization),
    S("--tp-size|--tp|--tensor-parallel-size", NULL, KVB__FLAG_U32,
      tensor_parallel_size),
    S("--pp-size|--pp|--pipeline-parallel-size", NULL, KVB__FLAG_U32,
      pipeline_parallel_size),
    S("--dp-size|--dp|--data-parallel-size", NULL, KVB__FLAG_U32,
      data_parallel_size),
    KVB__FLAG_SET("--ep-size|--ep|--expert-parallel-size", NULL, sglang_ep),
    S("--enable-ep-moe", NULL, KVB__FLAG_ON, enable_expert_parallel),
    S("--enable-dp-attention", NULL, KVB__FLAG_ON, enable_dp_attention),
    S("--page-size", NULL, KVB__FLAG_U32, block_size),
    S("--max-running-requests", NULL, KVB__FLAG_U32, max_num_seqs),
    KVB__FLAG_SET("--chunked-prefill-size", NULL, sglang_chunked),
    S("--max-total-tokens", NULL, KVB__FLAG_U64, max_total_tokens),
    S("--cuda-graph-max-bs", NULL, KVB__FLAG_U32, cuda_graph_max_bs),
    S("--disable-cuda-graph", NULL, KVB__FLAG_ON, enforce_eager),
    S("--disable-hybrid-swa-memory", NULL, KVB__FLAG_ON,
      disable_hybrid_kv_cache),
    KVB__FLAG_SET("--speculative-algorithm", NULL, sglang_speculative),
    KVB__FLAG_SET("--max-mamba-cache-size|--mamba-full-memory-ratio|"
                  "--mamba-ssm-dtype",
                  NULL, sglang_mamba_flag),
    KVB__FLAG_SKIP(
        "--tokenizer-path|--tokenizer-mode|--revision|--served-model-name|"
        "--host|--port|--api-key|--download-dir|--load-format|"
        "--random-seed|--chat-template|--tool-call-parser|"
        "--reasoning-parser|--attention-backend|--sampling-backend|"
        "--grammar-backend|--schedule-policy|--max-prefill-tokens|"
        "--cuda-graph-bs|--torch-compile-max-bs|--log-level|"
        "--nnodes|--node-rank|--dist-init-addr|--stream-interval|"
        "--watchdog-timeout|--num-continuous-decode-steps|"
        "--swa-full-tokens-ratio|"
        "--moe-a2a-backend|--moe-runner-backend|--deepep-mode|"
        "--speculative-num-steps|--speculative-eagle-topk|"
        "--speculative-num-draft-tokens|--speculative-draft-model-path|"
        "--model-loader-extra-config|--json-model-override-args|"
        "--decode-log-interval|--prefill-attention-backend|"
        "--decode-attention-backend|--mm-attention-backend|"
        "--context-parallel-size|--base-gpu-id|--device|"
        "--disaggregation-mode|--kv-cache-quant-group-size|"
        "--hicache-ratio|--hicache-size|--lora-paths|--max-loras-per-batch",
        NULL),
    KVB__FLAG_SKIP_BARE(
        "--trust-remote-code|--disable-radix-cache|--enable-torch-compile|"
        "--enable-metrics|--enable-mixed-chunk|--skip-server-warmup|"
        "--disable-overlap-schedule|--enable-cache-report|"
        "--allow-auto-truncate|--enable-deepep-moe|--enable-hierarchical-cache|"
        "--enable-p2p-check|--disable-custom-all-reduce|"
        "--enable-deterministic-inference|--enable-torch-compile-debug-mode|"
        "--skip-tokenizer-init|--enable-flashinfer-mla|--enable-lora|"
        "--disable-chunked-prefix-cache|--enable-two-batch-overlap|"
        "--log-requests|--show-time-cost|--enable-eplb",
        NULL),
};
#undef S
#undef C

/* ---- start-up logs ---- */

/* "key X GB": SGLang prints GiB labelled GB (free / (1 << 30)). */
static bool gib_after(const char *line, size_t len, const char *key,
                      uint64_t *bytes)
{
    const char *p = kvb__log_after(line, len, key);
    double v;
    if (!p || !kvb__log_number(p, line + len, 1e7, &v))
        return false;
    *bytes = (uint64_t)(v * 1073741824.0 + 0.5);
    return true;
}

static bool uint_after(const char *line, size_t len, const char *key,
                       uint64_t *out)
{
    const char *p = kvb__log_after(line, len, key);
    double v;
    if (!p || !kvb__log_number(p, line + len, 1e15, &v))
        return false;
    *out = (uint64_t)v;
    return true;
}

/* A quoted or bare word after key ("model_path='Qwen/Qwen3-8B'"). */
static bool word_after(const char *line, size_t len, const char *key, char *buf,
                       size_t cap)
{
    const char *p = kvb__log_after(line, len, key), *end = line + len;
    size_t n = 0;
    if (!p)
        return false;
    if (p < end && (*p == '\'' || *p == '"'))
        p++;
    while (p + n < end && p[n] != '\'' && p[n] != '"' && p[n] != ',' &&
           p[n] != ')' && p[n] != ' ')
        n++;
    if (!n || n >= cap || (n == 4 && !memcmp(p, "None", 4)))
        return false;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return true;
}

static void failure(kvb_log_facts *f, const char *line, size_t len)
{
    f->failure = KVB_LOG_NO_KV_MEMORY;
    size_t n =
        len < sizeof f->failure_text - 1 ? len : sizeof f->failure_text - 1;
    memcpy(f->failure_text, line, n);
    f->failure_text[n] = '\0';
}

/* The ServerArgs(...) dump SGLang logs at start-up ("server_args=..."). */
static bool server_args_line(kvb_log_facts *f, const char *line, size_t len)
{
    uint64_t v;
    double d;
    const char *p;
    if (!kvb__log_after(line, len, "ServerArgs(") &&
        !kvb__log_after(line, len, "server_args="))
        return false;
    if (word_after(line, len, "model_path=", f->model, sizeof f->model))
        kvb__log_set(f, KVB_LOG_BIT_MODEL);
    if (word_after(line, len, "quantization=", f->quantization,
                   sizeof f->quantization)) {
        kvb__log_set(f, KVB_LOG_BIT_QUANTIZATION);
    } else if (kvb__log_after(line, len, "quantization=None")) {
        /* none: the generic scan must not read "None" as a method */
        f->quantization[0] = '\0';
        f->present &= ~((uint64_t)1 << KVB_LOG_BIT_QUANTIZATION);
    }
    if (word_after(line, len, " dtype=", f->dtype, sizeof f->dtype))
        kvb__log_set(f, KVB_LOG_BIT_DTYPE);
    if (word_after(line, len, "kv_cache_dtype=", f->kv_cache_dtype,
                   sizeof f->kv_cache_dtype))
        kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_DTYPE);
    if ((p = kvb__log_after(line, len, "mem_fraction_static=")) &&
        kvb__log_number(p, line + len, 1, &d) && d > 0) {
        f->gpu_memory_utilization = d;
        kvb__log_set(f, KVB_LOG_BIT_GPU_MEMORY_UTILIZATION);
    }
    if (uint_after(line, len, "tp_size=", &v) && v && v <= 4096) {
        f->tensor_parallel_size = (uint32_t)v;
        kvb__log_set(f, KVB_LOG_BIT_TENSOR_PARALLEL_SIZE);
    }
    if (uint_after(line, len, "pp_size=", &v) && v && v <= 4096) {
        f->pipeline_parallel_size = (uint32_t)v;
        kvb__log_set(f, KVB_LOG_BIT_PIPELINE_PARALLEL_SIZE);
    }
    if (uint_after(line, len, "context_length=", &v) && v) {
        f->max_model_len = v;
        kvb__log_set(f, KVB_LOG_BIT_MAX_MODEL_LEN);
    }
    if (uint_after(line, len, "page_size=", &v) && v && v <= 4096) {
        f->block_size = (uint32_t)v;
        kvb__log_set(f, KVB_LOG_BIT_BLOCK_SIZE);
    }
    return true;
}

/*
 * SGLang's own lines (model_runner.py, memory_pool.py, scheduler.py):
 *   Load weight end. ... avail mem=A GB, mem usage=W GB.
 *   KV Cache is allocated. #tokens: N, K size: X GB, V size: Y GB
 *   KV Cache is allocated. #tokens: N, KV size: X GB           (MLA)
 *   SWAKVPool mem usage: Z GB, swa size: S, full size: F
 *   Memory pool end. avail mem=A GB
 *   max_total_num_tokens=N, chunked_prefill_size=C, max_prefill_tokens=P,
 *     max_running_requests=R, context_len=L, available_gpu_mem=A GB
 *   RuntimeError: Not enough memory. Please try to increase
 *     --mem-fraction-static. / ValueError: Loaded weights leave no GPU
 *     memory for the KV cache under --mem-fraction-static=...
 */
static bool sglang_log_line(kvb_log_facts *f, const char *line, size_t len)
{
    uint64_t a, b, n;
    bool mine = false;
    if (kvb__log_after(line, len, "Load weight begin.")) {
        if (gib_after(line, len, "avail mem=", &a)) {
            f->startup_free_bytes = a; /* free before the load */
            kvb__log_set(f, KVB_LOG_BIT_STARTUP_FREE_BYTES);
        }
        mine = true;
    }
    if (kvb__log_after(line, len, "Load weight end.")) {
        bool after = gib_after(line, len, "avail mem=", &a);
        if (gib_after(line, len, "mem usage=", &b)) {
            f->weights_bytes = b;
            kvb__log_set(f, KVB_LOG_BIT_WEIGHTS_BYTES);
            if (after) {
                f->startup_free_bytes = a + b;
                kvb__log_set(f, KVB_LOG_BIT_STARTUP_FREE_BYTES);
            }
        } else if (after && KVB_LOG_HAS(f, STARTUP_FREE_BYTES) &&
                   f->startup_free_bytes > a) {
            /* releases before 2025-03 print no "mem usage": the load
             * took the difference from "Load weight begin" */
            f->weights_bytes = f->startup_free_bytes - a;
            kvb__log_set(f, KVB_LOG_BIT_WEIGHTS_BYTES);
        }
        mine = true;
    }
    if (kvb__log_after(line, len, "KV Cache is allocated.")) {
        if (uint_after(line, len, "#tokens:", &n)) {
            f->max_total_tokens = n;
            f->kv_cache_tokens = n;
            kvb__log_set(f, KVB_LOG_BIT_MAX_TOTAL_TOKENS);
            kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_TOKENS);
        }
        if (gib_after(line, len, "K size:", &a) &&
            gib_after(line, len, "V size:", &b)) {
            f->kv_cache_bytes = (int64_t)(a + b);
            kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_BYTES);
        } else if (gib_after(line, len, "KV size:", &a)) {
            f->kv_cache_bytes = (int64_t)a;
            kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_BYTES);
        }
        mine = true;
    }
    if (kvb__log_after(line, len, "SWAKVPool mem usage:")) {
        if (gib_after(line, len, "SWAKVPool mem usage:", &a)) {
            f->kv_cache_bytes = (int64_t)a; /* both pools */
            kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_BYTES);
        }
        if (uint_after(line, len, "full size:", &n)) {
            f->max_total_tokens = f->kv_cache_tokens = n;
            kvb__log_set(f, KVB_LOG_BIT_MAX_TOTAL_TOKENS);
        }
        mine = true;
    }
    if (kvb__log_after(line, len, "Memory pool end.")) {
        if (gib_after(line, len, "avail mem=", &a)) {
            f->available_bytes = a;
            kvb__log_set(f, KVB_LOG_BIT_AVAILABLE_BYTES);
        }
        mine = true;
    }
    if (kvb__log_after(line, len, "max_total_num_tokens=")) {
        if (uint_after(line, len, "max_total_num_tokens=", &n)) {
            f->max_total_tokens = n;
            kvb__log_set(f, KVB_LOG_BIT_MAX_TOTAL_TOKENS);
        }
        if (uint_after(line, len, "chunked_prefill_size=", &n)) {
            f->max_num_batched_tokens = n;
            kvb__log_set(f, KVB_LOG_BIT_MAX_NUM_BATCHED_TOKENS);
        }
        if (uint_after(line, len, "max_running_requests=", &n) &&
            n <= UINT32_MAX) {
            f->max_num_seqs = (uint32_t)n;
            kvb__log_set(f, KVB_LOG_BIT_MAX_NUM_SEQS);
        }
        if (uint_after(line, len, "context_len=", &n)) {
            f->max_model_len = n;
            kvb__log_set(f, KVB_LOG_BIT_MAX_MODEL_LEN);
        }
        if (gib_after(line, len, "available_gpu_mem=", &a)) {
            f->available_bytes = a;
            kvb__log_set(f, KVB_LOG_BIT_AVAILABLE_BYTES);
        }
        mine = true;
    }
    if (kvb__log_after(line, len,
                       "Not enough memory. Please try to increase "
                       "--mem-fraction-static") ||
        kvb__log_after(line, len,
                       "Loaded weights leave no GPU memory for the KV "
                       "cache")) {
        failure(f, line, len);
        mine = true;
    }
    if (kvb__log_after(line, len, "is larger than the profiled value -")) {
        failure(f, line, len); /* a negative pool: init_memory_pool fails */
        mine = true;
    }
    mine |= server_args_line(f, line, len);
    if (mine)
        f->engine = KVB_ENGINE_SGLANG;
    return mine;
}

/* ---- the engine table ---- */

static int32_t sglang_accounting(const kvb__engine_in *in)
{
    (void)in;
    return KVB_ACCOUNTING_SGLANG;
}

/* Hybrids: the releases that run them, one pipeline stage (the pool is
 * sized over the whole model), no DP attention (the pool is divided per
 * DP shard: not modelled). */
static kvb_status sglang_check_hybrid(const kvb__engine_in *in, kvb_error *err)
{
    const kvb_model *m = in->model;
    if (!kvb__has_recurrent(m))
        return KVB_OK;
    /* Mamba1 mixers (Jamba): SGLang has no such model class
     * (python/sglang/srt/models has falcon_h1, granitemoehybrid,
     * nemotron_h, qwen3_next, but no jamba), so it would not start. */
    if (strchr(m->layer_pattern, 'S'))
        return kvb__fail(err, KVB_EUNSUPPORTED, "model.layer_pattern",
                         "SGLang has no model class for %s (Mamba1 "
                         "layers); allowed: vLLM 0.10.2 or later, llama.cpp",
                         kvb_arch_name(m->arch));
    /* Falcon-H1 ('P'): SGLang's configs/falcon_h1.py gives every layer as
     * a full_attention_layer_id and a linear_layer_id (mamba2_cache_params
     * as vLLM's shape), so the pools would count it twice as here; but
     * the release that added it, and whether the Mamba2 radix-cache rules
     * of the table below hold for it, are not checked, so it is refused
     * rather than planned with another model's release rules. */
    if (strchr(m->layer_pattern, 'P'))
        return kvb__fail(err, KVB_EUNSUPPORTED, "model.layer_pattern",
                         "planning %s (attention and Mamba2 in parallel in "
                         "every layer) on SGLang is not modelled; allowed: "
                         "vLLM 0.10.2 or later, llama.cpp",
                         kvb_arch_name(m->arch));
    /* Zamba2's shared blocks: no SGLang model class either (no zamba2.py
     * in python/sglang/srt/models). */
    if (strchr(m->layer_pattern, 'Z'))
        return kvb__fail(err, KVB_EUNSUPPORTED, "model.layer_pattern",
                         "SGLang has no model class for %s (Mamba2 layers "
                         "with shared attention blocks); allowed: vLLM "
                         "0.10.2 or later",
                         kvb_arch_name(m->arch));
    uint32_t first = is_gdn(m) ? MAMBA_GDN_SINCE : MAMBA_MAMBA2_SINCE;
    uint32_t v = in->version;
    if (!since(in, first))
        return kvb__fail(err, KVB_EUNSUPPORTED, "serving.engine_version",
                         "SGLang %u.%u.%u does not run %s (%s layers arrived "
                         "in %u.%u.%u); allowed: %u.%u.%u or later",
                         v / 10000, v / 100 % 100, v % 100,
                         kvb_arch_name(m->arch),
                         is_gdn(m) ? "Gated DeltaNet" : "Mamba2", first / 10000,
                         first / 100 % 100, first % 100, first / 10000,
                         first / 100 % 100, first % 100);
    if (in->s.pipeline_parallel_size > 1 || in->s.enable_dp_attention)
        return kvb__fail(err, KVB_EUNSUPPORTED,
                         "serving.pipeline_parallel_size",
                         "a hybrid with recurrent layers on SGLang is planned "
                         "with TP only: the mamba pool under PP or DP "
                         "attention is not modelled; allowed: "
                         "pipeline_parallel_size 1, no DP attention");
    return KVB_OK;
}

static kvb_status sglang_check(const kvb__engine_in *in, kvb_error *err)
{
    int32_t a = in->s.accounting;
    if (a >= 0 && a != KVB_ACCOUNTING_SGLANG)
        return kvb__fail(err, KVB_EINVAL, "serving.accounting",
                         "serving.accounting (%s) is not SGLang's; allowed: "
                         "-1, sglang",
                         kvb_accounting_name(a) ? kvb_accounting_name(a) : "?");
    return sglang_check_hybrid(in, err);
}

static uint32_t sglang_weights_gpu_key(const kvb__engine_in *in)
{
    return kvb__torch_weights_gpu_key(in) | (attn_tp(in) << 8);
}

/* python/sglang/srt/server_args.py: every remedy; GGUF loads with
 * --load-format gguf. */
static const char *sglang_remedy(int32_t kind, int32_t quant)
{
    (void)quant;
    switch (kind) {
    case KVB_FIX_MAX_MODEL_LEN: return "--context-length";
    case KVB_FIX_UTILIZATION: return "--mem-fraction-static";
    case KVB_FIX_ENFORCE_EAGER: return "--disable-cuda-graph";
    case KVB_FIX_KV_CACHE_FP8: return "--kv-cache-dtype fp8_e4m3";
    case KVB_FIX_QUANTIZE: return "--quantization";
    case KVB_FIX_TENSOR_PARALLEL: return "--tp-size";
    default: return NULL;
    }
}

const kvb__engine kvb__engine_sglang = {
    .id = KVB_ENGINE_SGLANG,
    .name = "sglang",
    .display = "SGLang",
    /* SGLang serves MllamaForConditionalGeneration (srt/models/mllama.py)
     * as an encoder-decoder model whose token pool also holds the image
     * tokens; that sizing is not modelled. */
    .no_cross_attention = "the image tokens' K/V in its token pool "
                          "(encoder-decoder) are not modelled",
    .accounting = sglang_accounting,
    .defaults = sglang_defaults,
    .check = sglang_check,
    .parallelism_bad = sglang_parallelism_bad,
    .requested_bytes = sglang_requested_bytes,
    .cuda_context = sglang_cuda_context,
    .non_torch = sglang_zero,
    .startup_reserved = sglang_cuda_context,
    .cudagraph = sglang_cudagraph,
    .graphs_in_budget = sglang_false,
    .weights_gpu_key = sglang_weights_gpu_key,
    .loaded_weights = sglang_loaded_weights,
    .activation = sglang_activation,
    .hybrid_kv = sglang_hybrid,
    .num_blocks = sglang_num_blocks,
    .needed_bytes = sglang_needed_bytes,
    .report = sglang_report,
    .fit_len = sglang_fit_len,
    .finish = sglang_finish,
    .len_fails = sglang_len_fails,
    .error_text = sglang_error_text,
    .render_args = sglang_render_args,
    .remedy = sglang_remedy,
    .detect = sglang_detect,
    .flags = sglang_flags,
    .flag_count = KVB__ARRAY_LEN(sglang_flags),
    .underscores = false,
    .abbrev = true, /* server_args.py: a plain argparse.ArgumentParser */
    .positional_model = false,
    .log_line = sglang_log_line,
    .recurrent = true,          /* the mamba pool (handle_max_mamba_cache) */
    .recurrent_since = "0.5.2", /* MAMBA_GDN_SINCE; Mamba2 from 0.5.4 */
};
