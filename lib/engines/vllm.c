/*
 * engines/vllm.c -- vLLM's memory accounting, by release line.
 *
 * What vLLM computes from configuration (block math, defaults, reporting,
 * error texts) is reproduced as its source does it.  What vLLM measures
 * at start-up (activation peak, non-torch memory, CUDA-graph pool, CUDA
 * context) is modelled from what the measurement sees; each model and its
 * constants are derived in docs/model.md, and each can be overridden.
 */
#include "internal.h"

#include <ctype.h>
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

/* ---- settings vLLM refuses ---- */

/* --block-size choices by release, newest first: vLLM's BlockSize Literal
 * (vllm/config/cache.py; before 0.8 the choices of --block-size in
 * engine/arg_utils.py).  A size outside them makes vLLM exit at start-up,
 * so a plan with it would describe an engine that never runs. */
static const struct {
    uint32_t since;    /* first release with these choices (packed) */
    uint32_t sizes[8]; /* 0-terminated */
} block_sizes[] = {
    {1100, {1, 8, 16, 32, 64, 128, 256, 0}},
    {800, {1, 8, 16, 32, 64, 128, 0}},
    {600, {8, 16, 32, 64, 128, 0}},
    {0, {8, 16, 32, 0}},
};

kvb_status kvb__vllm_block_size_check(uint32_t version, uint32_t block_size,
                                      kvb_error *err)
{
    size_t row = 0;
    while (version != 0 && version < block_sizes[row].since)
        row++;
    const uint32_t *z = block_sizes[row].sizes;
    char allowed[64];
    size_t n = 0;
    for (size_t i = 0; z[i]; i++) {
        if (z[i] == block_size)
            return KVB_OK;
        n += (size_t)snprintf(allowed + n, sizeof allowed - n, "%s%u",
                              i ? ", " : "", z[i]);
    }
    char release[24];
    if (version)
        snprintf(release, sizeof release, "vLLM %u.%u", version / 10000,
                 version / 100 % 100);
    else
        snprintf(release, sizeof release, "the newest vLLM");
    return kvb__fail(err, KVB_ERANGE, "serving.block_size",
                     "serving.block_size (%u) is not a block size %s "
                     "accepts; allowed: %s",
                     block_size, release, allowed);
}

static bool line_v0(const kvb__engine_in *in)
{
    return in->accounting == KVB_ACCOUNTING_VLLM_V0;
}

/* ---- scheduler defaults (EngineArgs.get_batch_defaults) ---- */

/* vLLM release numbers, packed as kvb_serving.engine_version. */
#define V(major, minor, patch) ((major)*10000u + (minor)*100u + (patch))

/* Is `in` at least release `v`?  0 ("newest") is every release. */
static bool since(const kvb__engine_in *in, uint32_t v)
{
    return in->version == 0 || in->version >= v;
}

/*
 * The V1 "large device" test of EngineArgs: before 0.8.5 the device name
 * only, "h100" or "h200" (PR #12369, 0.7.1); 0.8.5 (PR #17073) any device
 * of at least 70 GiB, an A100 80GB included; from 0.9.0 (PR #17885, "Setting
 * large max_num_batched_tokens for A100 reduces throughput") at least 70
 * GiB and a name without "a100".
 */
static bool large_device(const kvb__engine_in *in)
{
    const kvb_gpu *g = in->gpu;
    uint32_t names = in->gpu_names & KVB__GPU_NAMES_KNOWN ? in->gpu_names
                                                          : kvb__gpu_names(g);
    if (!since(in, V(0, 8, 5)))
        return (names & KVB__GPU_NAMES_H100) != 0;
    return g->total_bytes >= 70 * ((uint64_t)1 << 30) &&
           (!since(in, V(0, 9, 0)) || !(names & KVB__GPU_NAMES_A100));
}

/*
 * V0 switches chunked prefill on by itself (PR #6666, July 2024: 0.5.4) for
 * contexts
 * over 32K on CUDA, unless the model slides its attention window; MLA
 * models keep it off.  The chunk was 512 tokens until PR #10544 (0.6.5),
 * then _DEFAULT_MAX_NUM_BATCHED_TOKENS = 2048.
 */
/*
 * vLLM's multimodal models among the families the plan describes: every
 * Llama 4 checkpoint (Llama4ForConditionalGeneration) and Gemma 3 with
 * the vision checkpoints' text vocabulary of 262208 (Gemma-3 4B/12B/27B,
 * Gemma3ForConditionalGeneration; the text-only 1B has 262144), and any
 * model whose config.json has a vision tower this library reads
 * (Qwen2.5-VL, Qwen3-VL, Mistral 3: their vLLM classes are multimodal).
 */
static bool multimodal(const kvb_model *m)
{
    return m->arch == KVB_ARCH_LLAMA4 || m->vision_kind != KVB_VISION_NONE ||
           (m->arch == KVB_ARCH_GEMMA3 && m->vocab_size == 262208);
}

/* Rule 8: the automatic switch leaves out multimodal models from 0.6.1
 * (PR #8425, in 0.6.1.post1), and LoRA, prompt adapters, speculative
 * decoding and, 0.5.4-0.6.0, prefix caching (PR #8342 lifted that), which
 * the plan does not take: with them pass enable_chunked_prefill = 0. */
static bool v0_chunked_default(const kvb__engine_in *in)
{
    const kvb_model *m = in->model;
    return since(in, V(0, 5, 4)) && in->s.max_model_len > 32768 &&
           m->sliding_window == 0 && !kvb__is_mla(m) &&
           !(multimodal(m) && since(in, V(0, 6, 1)));
}

static void batch_defaults(kvb__engine_in *in)
{
    kvb_serving *s = &in->s;
    bool v0 = line_v0(in), user_seqs = s->max_num_seqs != 0;
    if (s->enable_chunked_prefill < 0) /* V1 always chunks */
        s->enable_chunked_prefill = v0 ? v0_chunked_default(in) : 1;
    if (!s->max_num_seqs) {
        /* V1 started at 1024 for every device; PR #16158 (0.8.4) went
         * back to V0's 256 except on large devices. */
        bool big = !since(in, V(0, 8, 4)) || large_device(in);
        s->max_num_seqs = !v0 && big ? 1024 : 256;
    }
    if (!s->max_num_batched_tokens) {
        uint64_t t = 2048;
        if (v0 && s->enable_chunked_prefill && !since(in, V(0, 6, 5)))
            t = 512;
        else if (!v0 && large_device(in))
            t = 8192; /* OpenAI server; the LLM class doubles both */
        if (!s->enable_chunked_prefill)
            t = kvb__max(s->max_model_len, t);
        /* V0's SchedulerConfig: multimodal models batch at least 5120
         * tokens (PR #8028, 0.6.0) */
        if (v0 && multimodal(in->model) && since(in, V(0, 6, 0)))
            t = kvb__max(t, 5120);
        s->max_num_batched_tokens =
            kvb__min((uint64_t)s->max_num_seqs * s->max_model_len, t);
    }
    /* V1 caps the default max_num_seqs at the batch from 0.10.1 (PR
     * #21270); before, a small batch kept the device's default. */
    if (!user_seqs && !v0 && since(in, V(0, 10, 1)))
        s->max_num_seqs =
            (uint32_t)kvb__min(s->max_num_seqs, s->max_num_batched_tokens);
}

/*
 * The default max_model_len (_get_and_verify_max_len, config.py; model.py
 * from 0.11): max_position_embeddings, multiplied by rope_scaling's factor
 * for every type but su, longrope and llama3, whose
 * max_position_embeddings already counts the scaling; YaRN multiplies
 * original_max_position_embeddings instead.  Gemma 3's 128K is already
 * scaled too, so vLLM skips it ("gemma3" not in model_type, since Gemma
 * 3's support in 0.8.0).  The product is a float, truncated by int().
 * The factor rule is in every release this library plans (0.2.0 already
 * multiplied; the su/longrope exclusion came with Phi-3 in 0.4.2, llama3
 * with Llama 3.1 in 0.5.3, each with the support for the type).
 */
uint64_t kvb__vllm_derived_max_len(const kvb_model *m)
{
    uint64_t len = m->max_position_embeddings;
    int32_t t = m->rope_scaling_type;
    if (t == KVB_ROPE_NONE || t == KVB_ROPE_SU || t == KVB_ROPE_LONGROPE ||
        t == KVB_ROPE_LLAMA3 || m->arch == KVB_ARCH_GEMMA3)
        return len;
    double f = m->rope_scaling_factor > 0.0 ? m->rope_scaling_factor : 1.0;
    if (t == KVB_ROPE_YARN && m->original_max_position_embeddings)
        len = m->original_max_position_embeddings;
    double x = (double)len * f;
    return x >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)x;
}

void kvb__vllm_defaults(kvb__engine_in *in)
{
    kvb_serving *s = &in->s;
    if (s->gpu_memory_utilization == 0.0)
        s->gpu_memory_utilization =
            in->accounting == KVB_ACCOUNTING_VLLM_V1_021 ? 0.92 : 0.90;
    if (!s->max_model_len)
        s->max_model_len = kvb__vllm_derived_max_len(in->model);
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
#define CONTEXT_BYTES_PER_SM  (3 * KVB__MIB)
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

/*
 * Releases whose non-torch figure is (total - free) - torch allocated,
 * after emptying the cache, with free read after the profile: 0.6.4.x
 * (worker.py, PRs #9352/#9516, replaced by the start-up snapshot of PR
 * #10511 in 0.6.5) and V1 until 0.9.0 (v1/worker/gpu_worker.py
 * determine_available_memory; 0.9.1's PR #18974 measures from a snapshot
 * taken at start-up).  The figure then holds the process's CUDA context
 * and whatever other processes hold on the device.
 */
static bool total_minus_free(const kvb__engine_in *in)
{
    uint32_t v = in->version;
    if (v == 0)
        return false;
    if (line_v0(in))
        return v >= V(0, 6, 4) && v < V(0, 6, 5);
    return v >= V(0, 8, 0) && v < V(0, 9, 1);
}

/* Memory other processes hold: total - free at start-up - our context,
 * where the free memory is given (kvb_gpu.free_bytes); else none. */
static uint64_t other_processes(const kvb__engine_in *in)
{
    const kvb_gpu *g = in->gpu;
    uint64_t ctx = kvb__vllm_cuda_context(in);
    if (!g->free_bytes || g->free_bytes >= g->total_bytes)
        return 0;
    uint64_t used = g->total_bytes - g->free_bytes;
    return used > ctx ? used - ctx : 0;
}

/*
 * What the profile's "non-torch" figure holds depends on how the release
 * measured it (docs/model.md, "The measured terms"):
 *  - before 0.2.5 the peak was torch.cuda.max_memory_allocated(): only
 *    PyTorch's own allocations, among them the cuBLAS workspaces;
 *  - 0.2.5 (PR #2031) took total - free after the profile, so the
 *    process's CUDA context counted too, until 0.3.1 (PR #2863) measured
 *    from the free memory at start-up;
 *  - since then, memory that appeared outside PyTorch during the profile,
 *    except in 0.6.4.x and V1 before 0.9.1, which read total - free again
 *    (total_minus_free above) and so count the context and other
 *    processes.
 */
uint64_t kvb__vllm_non_torch(const kvb__engine_in *in)
{
    if (in->s.non_torch_bytes != KVB_AUTO_BYTES)
        return in->s.non_torch_bytes;
    uint64_t b = CUBLAS_WORKSPACE_BYTES + cublaslt_workspace(in->gpu);
    bool v0 = line_v0(in);
    if (v0 && !since(in, V(0, 2, 5)))
        return b;
    b += LAZY_MODULE_BYTES;
    uint32_t tp = in->s.tensor_parallel_size;
    if (tp > 1)
        b += (uint64_t)(tp - 1) * NCCL_BYTES_PER_PEER;
    if ((v0 && !since(in, V(0, 3, 1))) || total_minus_free(in))
        b += kvb__vllm_cuda_context(in) + other_processes(in);
    return b;
}

/*
 * Sampler buffers per logit, in units of one FP32 logit, at the peak of
 * the dummy sampler run (docs/model.md, "The measured terms").  V0's
 * _apply_top_k_top_p holds, when it gathers, the FP32 logits (1), the
 * sorted values (1) and int64 indices (2), the sorted softmax (1) and its
 * cumsum (1), the int64 inverse index (2) and the gathered logits (1): 9.
 * V1's torch path holds the FP32 logits (1), the sorted values (1) and
 * indices (2) and the softmax it sums in place (1), and scatters back into
 * the logits: 5.  The two boolean masks (a quarter each) are left out: the
 * V0 logs measured 9.1-9.3 rows with the other terms taken off.
 */
#define SAMPLER_LOGITS_V0 9
#define SAMPLER_LOGITS_V1 5

/*
 * V1's top-k/top-p sampler by release (v1/sample/ops/topk_topp_sampler.py):
 * - the torch path sorts the R x vocab logits.  At the sort's peak the
 *   FP32 logits (1) sit beside the sorted values (1), the int64 indices
 *   (2), the int64 positions they are sorted from (2) and the segmented
 *   radix sort's second key and value buffers (1 + 2): 9, as in V0.  PR
 *   #32558's table measures it (1.25 GB for 256 x 131072 logits, 9.3
 *   rows), and so do the collected logs that sampled this way: 9.0-9.1
 *   rows (vllm-col-010, -012, -016, -017, -019, -022, -023);
 * - FlashInfer's kernels filter and sample without sorting (the FP32
 *   logits and its probabilities, 2 rows: vllm-col-006 to -009), but only
 *   where FlashInfer is installed and enabled: in 0.8 vLLM refused
 *   FlashInfer >= 0.2.3 (PR #14815) until PR #15777; FlashInfer was not a
 *   dependency of the wheel before late 2025, and PR #26859 (0.11.1) made
 *   its sampler opt-in.  A default install sorts, so the plan does;
 * - the Triton top-k/top-p kernels (PR #33538, 2026-02-17) replace the
 *   sort; taken from 0.16.0, the first release after 0.15.0 (2026-01-29).
 *   Those releases keep the itemised 5 rows as an upper bound
 *   (vllm-log-033, 0.19: budget exact);
 * - PR #40376 (2026-04-29, after PR #38284 whose log text names v0.21)
 *   turns the FlashInfer sampler on by default, FlashInfer being a
 *   dependency by then: 2 rows from 0.21.
 */
#define SAMPLER_LOGITS_SORT       9
#define SAMPLER_LOGITS_FLASHINFER 2

static uint64_t sampler_units(const kvb__engine_in *in)
{
    if (line_v0(in))
        return SAMPLER_LOGITS_V0;
    if (!since(in, V(0, 16, 0)))
        return SAMPLER_LOGITS_SORT;
    if (!since(in, V(0, 21, 0)))
        return SAMPLER_LOGITS_V1;
    return SAMPLER_LOGITS_FLASHINFER;
}

typedef struct widths {
    uint64_t tokens, reqs, hidden, b;
    uint32_t scratch; /* SCRATCH_* bits: the quantized kernel's buffers */
} widths;

/*
 * Scratch buffers the quantized GEMM allocates on every call, alive beside
 * the layer's tensors during the profile run (rule 7 of issue 13):
 * - gptq_marlin_gemm (GPTQ from 0.4.2, PR #3922; AWQ through awq_marlin
 *   from 0.5.3, PR #6612; compute capability 8.0 up) took an M x K copy of
 *   its input in the activation dtype (a_tmp) on every call until PR
 *   #14138 (2025-03-08, 0.8.0); since then only with act-order, which the
 *   plan does not take;
 * - and, from PR #6795 (2024-07-27, 0.5.4), an FP32 reduce buffer (c_tmp)
 *   of determine_reduce_max_m(M) x N;
 * - the exllama GPTQ kernel (gptq_gemm, before Marlin and below compute
 *   capability 8.0) rebuilds the whole K x N weight in FP16 (temp_dq) when
 *   M exceeds 50 rows.
 */
enum { SCRATCH_A = 1u, SCRATCH_C = 2u, SCRATCH_DQ = 4u };

static uint32_t quant_scratch(const kvb__engine_in *in)
{
    int32_t q = in->quant->method;
    uint32_t cc = in->gpu->compute_capability;
    bool gptq = q == KVB_QUANT_GPTQ_4 || q == KVB_QUANT_GPTQ_8;
    bool awq = q == KVB_QUANT_AWQ_4;
    /* compressed-tensors W4A16 (CompressedTensorsWNA16) runs the same
     * Marlin GEMM (MarlinLinearKernel), with the same c_tmp */
    bool wna16 = q == KVB_QUANT_W4A16;
    bool marlin_gpu = cc == 0 || cc >= 80;
    bool marlin = marlin_gpu && ((gptq && since(in, V(0, 4, 2))) ||
                                 (awq && since(in, V(0, 5, 3))) ||
                                 (wna16 && since(in, V(0, 5, 4))));
    if (marlin) {
        uint32_t f = since(in, V(0, 8, 0)) ? 0 : SCRATCH_A;
        return since(in, V(0, 5, 4)) ? f | SCRATCH_C : f;
    }
    return gptq ? SCRATCH_DQ : 0;
}

/* marlin::determine_reduce_max_m: tiles of 16 rows up to 64, then 64 x
 * the parallel slices (at most max_par = 16). */
static uint64_t reduce_max_m(uint64_t m)
{
    if (m <= 64)
        return kvb__round_up(m ? m : 1, 16);
    return 64 * kvb__min(kvb__cdiv(m, 64), 16);
}

/* The scratch of one quantized projection of k inputs and n outputs. */
static uint64_t scratch_bytes(const widths *w, uint64_t k, uint64_t n)
{
    uint64_t b = 0;
    if (w->scratch & SCRATCH_A)
        b += w->tokens * k * w->b;
    if (w->scratch & SCRATCH_C)
        b += reduce_max_m(w->tokens) * n * 4;
    if ((w->scratch & SCRATCH_DQ) && w->tokens > 50)
        b += k * n * 2;
    return b;
}

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
    uint64_t qkv = (qh + 2 * kvh) * hd;
    uint64_t scratch = kvb__max(scratch_bytes(w, m->hidden_size, qkv),
                                scratch_bytes(w, qh * hd, m->hidden_size));
    return T * b * (qkv + qh * hd + m->hidden_size) + scratch;
}

/* gate_up output, the activation and the down output are alive together:
 * the modelling code keeps gate_up in a local until the MLP returns. */
static uint64_t mlp_live(const kvb_model *m, uint64_t width, const widths *w)
{
    bool gate = !(m->flags & KVB_MODEL_MLP_NO_GATE);
    uint64_t up = gate ? 2 * width : width;
    uint64_t per_tok = up + width;
    uint64_t down = w->tokens * w->b * (per_tok + m->hidden_size) +
                    scratch_bytes(w, width, m->hidden_size);
    /* the up projection's scratch, before its activation exists */
    uint64_t first =
        w->tokens * w->b * up + scratch_bytes(w, m->hidden_size, up);
    return kvb__max(down, first);
}

static uint64_t moe_live(const kvb_model *m, uint32_t tp, bool ep,
                         const widths *w)
{
    uint64_t k = m->num_experts_per_tok;
    uint64_t width =
        ep ? m->moe_intermediate_size : kvb__cdiv(m->moe_intermediate_size, tp);
    /* fused_moe intermediate caches 1-3 and the router logits (FP32) */
    uint64_t b = w->tokens * k * w->b * (3 * width + m->hidden_size) +
                 w->tokens * m->num_experts * 4;
    uint64_t shared = kvb__shared_width(m);
    if (shared)
        b += w->tokens * w->b * 3 * kvb__cdiv(shared, tp);
    return b;
}

/*
 * What stays live across a Gemma 3n layer in vLLM's gemma3n.py forward,
 * in place of the hidden states and residual: hidden_states_0 (kept by
 * the function until it returns), the AltUp streams the layer gets
 * ([altup_num_inputs, T, hidden]) and the predictions it makes from them
 * (as many), and per_layer_inputs ([T, layers, hidden_size_per_layer_
 * input]).  An estimate from the code, not checked against a log.
 */
static uint64_t gemma3n_live(const kvb_model *m, const widths *w)
{
    uint64_t streams = (1 + 2 * (uint64_t)m->altup_num_inputs) * w->hidden;
    return streams + w->tokens * m->num_hidden_layers *
                         m->hidden_size_per_layer_input * w->b;
}

static uint64_t forward_peak(const kvb__engine_in *in, uint32_t first,
                             uint32_t last, const widths *w)
{
    const kvb_model *m = in->model;
    uint32_t tp = in->s.tensor_parallel_size;
    uint64_t dense = 0, sparse = 0;
    /* each kind of layer peaks the same: whether the stage has one
     * counts, not how many (kvb__count_moe, without walking them) */
    uint32_t moe = kvb__count_moe(m, first, last);
    if (moe)
        sparse = moe_live(m, tp, in->s.enable_expert_parallel, w);
    if (last - first > moe)
        dense = mlp_live(m, kvb__cdiv(m->intermediate_size, tp), w);
    uint64_t mlp = kvb__max(dense, sparse);
    uint64_t carried =
        m->arch == KVB_ARCH_GEMMA3N ? gemma3n_live(m, w) : 2 * w->hidden;
    return carried + kvb__max(attn_live(m, tp, w), mlp);
}

static uint64_t sampler_peak(const kvb__engine_in *in, const widths *w)
{
    uint64_t logits = w->reqs * in->model->vocab_size;
    uint64_t units = sampler_units(in);
    /* model-dtype logits, the FP32 working set, and the hidden states the
     * runner still holds */
    return logits * w->b + logits * 4 * units + w->hidden;
}

/*
 * Rule 6: from 0.2.5 (PR #2031) to 0.6.3 V0 measured the profile as the
 * free memory it lost (init_gpu_memory - free after profile_run), so the
 * peak it subtracts is PyTorch's reserved memory, segments the caching
 * allocator kept, not the allocated peak.  A dense decoder layer
 * allocates qkv, the attention output and o_proj's output, frees the
 * first two, then gate_up, the activation and down_proj's output, and
 * frees them and the layer's input: the freed blocks do not fit the next
 * requests exactly, so new segments open.  The pool is replayed with
 * c10/cuda/CUDACachingAllocator.cpp's rules (512-byte rounding; requests
 * up to 1 MiB from 2 MiB segments, under 10 MiB from 20 MiB segments,
 * larger ones from segments rounded to 2 MiB; the best-fitting cached
 * block of the same pool; a remainder split off when over 1 MiB in the
 * large pool; free neighbours merged) over two layers, after which the
 * pattern repeats; the reserved surplus over the allocated peak is added.
 * Llama-3.1-8B at 4096 tokens: 48 MiB; at 32768: 384 MiB.
 */
#define APOOL_BLOCKS 64

typedef struct apool_block {
    uint64_t off, size;
    uint32_t seg;
    bool free, live;
} apool_block;

typedef struct apool {
    apool_block b[APOOL_BLOCKS];
    uint32_t n, segs;
    uint64_t reserved, now, peak;
    bool full;
} apool;

static uint64_t apool_segment(uint64_t n)
{
    if (n <= KVB__MIB)
        return 2 * KVB__MIB;
    if (n < 10 * KVB__MIB)
        return 20 * KVB__MIB;
    return kvb__round_up(n, 2 * KVB__MIB);
}

static uint32_t apool_malloc(apool *p, uint64_t bytes)
{
    uint64_t n = kvb__round_up(bytes ? bytes : 1, 512);
    bool small = n <= KVB__MIB;
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < p->n; i++) {
        const apool_block *b = &p->b[i];
        if (b->live && b->free && b->size >= n &&
            (b->size <= KVB__MIB) == small &&
            (best == UINT32_MAX || b->size < p->b[best].size))
            best = i;
    }
    if (p->n + 2 > APOOL_BLOCKS) {
        p->full = true;
        return UINT32_MAX;
    }
    if (best == UINT32_MAX) {
        uint64_t seg = apool_segment(n);
        best = p->n++;
        p->b[best] = (apool_block){0, seg, p->segs++, true, true};
        p->reserved += seg;
    }
    apool_block *b = &p->b[best];
    uint64_t rest = b->size - n;
    if (small ? rest >= 512 : rest > KVB__MIB) {
        p->b[p->n++] = (apool_block){b->off + n, rest, b->seg, true, true};
        b->size = n;
    }
    b->free = false;
    p->now += b->size;
    p->peak = kvb__max(p->peak, p->now);
    return best;
}

static void apool_free(apool *p, uint32_t id)
{
    if (id == UINT32_MAX)
        return;
    apool_block *b = &p->b[id];
    b->free = true;
    p->now -= b->size;
    for (bool merged = true; merged;) {
        merged = false;
        for (uint32_t i = 0; i < p->n; i++) {
            apool_block *o = &p->b[i];
            if (i == id || !o->live || !o->free || o->seg != b->seg)
                continue;
            if (o->off + o->size == b->off || b->off + b->size == o->off) {
                b->off = kvb__min(b->off, o->off);
                b->size += o->size;
                o->live = false;
                merged = true;
            }
        }
    }
}

static uint64_t reserved_surplus(const kvb__engine_in *in, const widths *w)
{
    const kvb_model *m = in->model;
    uint32_t tp = in->s.tensor_parallel_size;
    if (!line_v0(in) || !since(in, V(0, 2, 5)) || since(in, V(0, 6, 4)) ||
        m->num_experts || kvb__is_mla(m))
        return 0;
    uint64_t T = w->tokens, b = w->b, hd = kvb__head_dim(m);
    uint64_t qh = kvb__cdiv(m->num_attention_heads, tp);
    uint64_t qkv = (qh + 2 * kvb__kv_heads_per_rank(m, tp)) * hd;
    uint64_t width = kvb__cdiv(m->intermediate_size, tp);
    bool gate = !(m->flags & KVB_MODEL_MLP_NO_GATE);
    apool p;
    memset(&p, 0, sizeof p);
    uint32_t hidden = apool_malloc(&p, T * m->hidden_size * b);
    apool_malloc(&p, T * m->hidden_size * b); /* the residual */
    for (int layer = 0; layer < 2 && !p.full; layer++) {
        uint32_t q = apool_malloc(&p, T * qkv * b);
        uint32_t a = apool_malloc(&p, T * qh * hd * b);
        uint32_t o = apool_malloc(&p, T * m->hidden_size * b);
        apool_free(&p, q);
        apool_free(&p, a);
        uint32_t g = apool_malloc(&p, T * (gate ? 2 : 1) * width * b);
        uint32_t x = apool_malloc(&p, T * width * b);
        uint32_t d = apool_malloc(&p, T * m->hidden_size * b);
        apool_free(&p, g);
        apool_free(&p, x);
        apool_free(&p, o);
        apool_free(&p, hidden);
        hidden = d;
    }
    return p.full || p.reserved < p.peak ? 0 : p.reserved - p.peak;
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
    w.scratch = quant_scratch(in);
    uint64_t peak =
        forward_peak(in, first, last, &w) + reserved_surplus(in, &w);
    if (stage + 1 == pp)
        peak = kvb__max(peak, sampler_peak(in, &w));
    return peak;
}

/* Piecewise graphs: one piece per layer boundary per captured size. */
#define CUDAGRAPH_BYTES_PER_PIECE (128 * 1024)

static uint64_t capture_sizes(const kvb__engine_in *in)
{
    uint64_t max = line_v0(in)
                       ? kvb__min(in->s.max_num_seqs, 256)
                       : kvb__min(2 * (uint64_t)in->s.max_num_seqs, 512);
    uint64_t n = 0;
    for (uint64_t s = 1; s <= 4 && s <= max; s *= 2)
        n++;
    return n + max / 8;
}

uint64_t kvb__vllm_cudagraph_layers(const kvb__engine_in *in, uint32_t layers)
{
    if (in->s.enforce_eager)
        return 0;
    if (in->s.cudagraph_bytes != KVB_AUTO_BYTES)
        return in->s.cudagraph_bytes;
    return capture_sizes(in) * ((uint64_t)layers + 1) *
           CUDAGRAPH_BYTES_PER_PIECE;
}

/* ---- the weights as vLLM holds them ---- */

/*
 * "Model loading took X GiB" (and the weights term of the budget) is what
 * torch.cuda.memory_allocated() gained while the model was built and
 * loaded.  That is the inventory's bytes plus three things the checkpoint
 * does not hold (docs/model.md, "Weights as loaded"):
 *
 *  1. PyTorch's caching allocator rounds every request up to 512 bytes and
 *     serves one of 10 MiB or more from a segment rounded up to 2 MiB; the
 *     block is split only when more than 1 MiB would be left over
 *     (CUDACachingAllocator.cpp: round_size, get_allocation_size,
 *     should_split), so such a tensor is charged up to 1 MiB more than it
 *     asked for.  vLLM allocates a layer's q/k/v as one qkv_proj parameter
 *     and gate/up (and the experts' w13) as one, so those are rounded
 *     together.
 *  2. The rotary embedding's cos/sin cache, a buffer of
 *     max_position_embeddings x rotary_dim in the model dtype
 *     (RotaryEmbedding._compute_cos_sin_cache), one per rank: get_rope
 *     shares it between layers.
 *  3. MXFP4 experts padded for the MoE kernel the GPU runs
 *     (Mxfp4MoEMethod.create_weights): Marlin (compute capability 7.5 to
 *     8.9, and 11.0 up) pads the intermediate width to 128 and the hidden
 *     size to 256; FlashInfer on 10.x pads both to 256; Triton kernels on
 *     9.0 pad the intermediate width to 64.
 */
#define ALLOC_ROUND       512u                 /* kMinBlockSize */
#define ALLOC_SPLIT_MIN   ((uint64_t)1 << 20)  /* kSmallSize */
#define ALLOC_MIN_LARGE   ((uint64_t)10 << 20) /* kMinLargeAlloc */
#define ALLOC_ROUND_LARGE ((uint64_t)2 << 20)  /* kRoundLarge */

/* The vLLM parameter a tensor of the inventory is part of. */
enum {
    P_OWN = -1,
    P_QKV,
    P_QKV_BIAS,
    P_GATE_UP,
    P_GATE_UP_BIAS,
    P_W13,
    P_W13_BIAS,
    P_SHARED_GATE_UP,
    P_FUSED_
};

static int fused_param(const kvb__tdesc *t)
{
    int32_t role = t->role == KVB_ROLE_BIAS ? t->of_role : t->role;
    int bias = t->role == KVB_ROLE_BIAS;
    switch (role) {
    case KVB_ROLE_ATTN_Q:
    case KVB_ROLE_ATTN_K:
    case KVB_ROLE_ATTN_V:
    case KVB_ROLE_ATTN_QKV: return bias ? P_QKV_BIAS : P_QKV;
    case KVB_ROLE_MLP_GATE:
    case KVB_ROLE_MLP_UP:
    case KVB_ROLE_MLP_GATE_UP: return bias ? P_GATE_UP_BIAS : P_GATE_UP;
    case KVB_ROLE_EXPERT_GATE:
    case KVB_ROLE_EXPERT_UP: return bias ? P_W13_BIAS : P_W13;
    case KVB_ROLE_SHARED_GATE:
    case KVB_ROLE_SHARED_UP: return bias ? P_OWN : P_SHARED_GATE_UP;
    default: return P_OWN;
    }
}

/* The parameters of one layer (or of the globals), in creation order. */
#define LOAD_MAX_PARAMS 32

typedef struct params {
    uint64_t bytes[LOAD_MAX_PARAMS];
    int n;
    bool mid; /* one of them is served from 20 MiB segments */
} params;

typedef struct load_ctx {
    kvb__quant_ctx qc;
    uint32_t tp;
    bool ep;
    params *out;
    int at[P_FUSED_]; /* index of a fused parameter in out, or -1 */
} load_ctx;

static int load_tensor(void *vctx, const kvb__tdesc *t)
{
    load_ctx *c = vctx;
    uint64_t b = 0;
    if (kvb__tensor_rank_bytes(t, kvb__storage_for(&c->qc, t), c->qc.model,
                               c->qc.quant, c->tp, c->ep, &b))
        return 1; /* kvb__stage_weights has reported it */
    int p = fused_param(t);
    params *o = c->out;
    if (p != P_OWN && c->at[p] >= 0) {
        o->bytes[c->at[p]] += b;
    } else if (o->n < LOAD_MAX_PARAMS) {
        if (p != P_OWN)
            c->at[p] = o->n;
        o->bytes[o->n++] = b;
    }
    return 0;
}

static void load_walk(load_ctx *c, uint32_t first, uint32_t last,
                      unsigned globals, params *out)
{
    memset(out, 0, sizeof *out);
    for (int p = 0; p < P_FUSED_; p++)
        c->at[p] = -1;
    c->out = out;
    kvb__inventory_walk_range(c->qc.model, first, last, globals, load_tensor,
                              c);
    for (int i = 0; i < out->n; i++) {
        uint64_t b = kvb__round_up(out->bytes[i], ALLOC_ROUND);
        out->mid |= b > ALLOC_SPLIT_MIN && b < ALLOC_MIN_LARGE;
    }
}

/*
 * The large pool of the caching allocator, as far as loading needs it:
 * requests over 1 MiB take the smallest cached free block that fits, else
 * a new segment (20 MiB under 10 MiB, else rounded up to 2 MiB); the rest
 * of the block is split off and cached only when it exceeds 1 MiB,
 * otherwise the request is charged the whole block.
 */
#define POOL_BLOCKS 16
#define SEGMENT_MID ((uint64_t)20 << 20) /* kLargeBuffer */

typedef struct pool {
    uint64_t free[POOL_BLOCKS];
    int n;
    uint64_t slack;    /* charged - requested */
    uint64_t smallest; /* the smallest large request to come: a free block
                          below it is never used again, so it is dropped */
} pool;

static void pool_alloc(pool *p, uint64_t bytes)
{
    uint64_t r = kvb__round_up(bytes, ALLOC_ROUND);
    if (r <= ALLOC_SPLIT_MIN)
        return; /* small pool: 2 MiB segments, split to 512 bytes */
    int best = -1;
    for (int i = 0; i < p->n; i++)
        if (p->free[i] >= r && (best < 0 || p->free[i] < p->free[best]))
            best = i;
    uint64_t b;
    if (best >= 0) {
        b = p->free[best];
        p->free[best] = p->free[--p->n];
    } else {
        b = r < ALLOC_MIN_LARGE ? SEGMENT_MID
                                : kvb__round_up(r, ALLOC_ROUND_LARGE);
    }
    if (b - r <= ALLOC_SPLIT_MIN)
        p->slack += b - r;
    else if (b - r >= p->smallest && p->n < POOL_BLOCKS)
        p->free[p->n++] = b - r;
}

static void pool_params(pool *p, const params *ps)
{
    for (int i = 0; i < ps->n; i++)
        pool_alloc(p, ps->bytes[i]);
}

/* The free blocks as a sorted list, to compare two states of the pool. */
static void pool_state(const pool *p, uint64_t *out)
{
    for (int i = 0; i < POOL_BLOCKS; i++)
        out[i] = i < p->n ? p->free[i] : 0;
    for (int i = 1; i < p->n; i++)
        for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
            uint64_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
}

#define POOL_HISTORY 8

/*
 * Layers [first, last) in order.  After a few layers of one kind the pool
 * returns to a state it was in: from there each period of d layers adds
 * the same slack, so the remaining whole periods are counted, not
 * replayed (a 61-layer model costs a handful of layers).
 */
static void pool_layers(pool *p, const kvb_model *m, uint32_t first,
                        uint32_t last, const params kind[2], uint64_t rotary)
{
    uint64_t seen[POOL_HISTORY][POOL_BLOCKS], slack_at[POOL_HISTORY];
    uint32_t uniform_from = first; /* layers since here are of one kind */
    for (uint32_t i = first; i < last; i++) {
        bool moe = kvb__layer_is_moe(m, i);
        if (i > first && moe != kvb__layer_is_moe(m, i - 1))
            uniform_from = i;
        pool_params(p, &kind[moe]);
        if (i == first)
            pool_alloc(p, rotary); /* made by the first attention layer */
        uint32_t done = i - uniform_from + 1; /* uniform layers so far */
        bool rest_same =
            kvb__count_moe(m, i + 1, last) == (moe ? last - i - 1 : 0);
        uint64_t now[POOL_BLOCKS];
        pool_state(p, now);
        for (uint32_t d = 1;
             rest_same && i > first && d <= POOL_HISTORY && d < done; d++) {
            const uint64_t *then = seen[(i - d) % POOL_HISTORY];
            if (memcmp(then, now, sizeof now) != 0)
                continue;
            uint64_t per = p->slack - slack_at[(i - d) % POOL_HISTORY];
            uint32_t left = last - i - 1;
            p->slack += per * (left / d);
            for (uint32_t k = 0; k < left % d; k++)
                pool_params(p, &kind[moe]);
            return;
        }
        memcpy(seen[i % POOL_HISTORY], now, sizeof now);
        slack_at[i % POOL_HISTORY] = p->slack;
    }
}

/* Bytes the caching allocator charges beyond the requests when the stage's
 * weights are created: the embeddings, the layers in order, the head. */
static uint64_t rounding_slack(const kvb__engine_in *in, uint32_t first,
                               uint32_t last, unsigned globals, uint64_t rotary)
{
    const kvb_model *m = in->model;
    load_ctx c;
    memset(&c, 0, sizeof c);
    kvb__quant_ctx_init(&c.qc, m, in->quant);
    c.tp = in->s.tensor_parallel_size;
    c.ep = in->s.enable_expert_parallel != 0;
    params embed, head, kind[2];
    load_walk(&c, 0, 0, globals & KVB__WALK_EMBED, &embed);
    load_walk(&c, 0, 0, globals & KVB__WALK_HEAD, &head);
    uint32_t moe = kvb__count_moe(m, first, last);
    uint32_t counts[2] = {last - first - moe, moe};
    bool mid = embed.mid || head.mid;
    for (unsigned k = 0; k < 2; k++) {
        kind[k].n = 0;
        if (!counts[k])
            continue;
        uint32_t i = first;
        while (kvb__layer_is_moe(m, i) != (k == 1))
            i++;
        load_walk(&c, i, i + 1, 0, &kind[k]);
        mid |= kind[k].mid;
    }
    pool p = {{0}, 0, 0, UINT64_MAX};
    const params *all[4] = {&embed, &head, &kind[0], &kind[1]};
    for (int a = 0; a < 4; a++)
        for (int j = 0; j < all[a]->n; j++) {
            uint64_t r = kvb__round_up(all[a]->bytes[j], ALLOC_ROUND);
            if (r > ALLOC_SPLIT_MIN && r < p.smallest)
                p.smallest = r;
        }
    uint64_t rr = kvb__round_up(rotary, ALLOC_ROUND);
    if (rr > ALLOC_SPLIT_MIN && rr < p.smallest)
        p.smallest = rr;
    if (!mid) {
        /* every request has its own segment: the slack of a layer is
         * the same each time */
        pool_params(&p, &embed);
        pool_params(&p, &head);
        uint64_t slack = p.slack;
        for (unsigned k = 0; k < 2; k++) {
            p.n = 0;
            p.slack = 0;
            pool_params(&p, &kind[k]);
            slack += p.slack * counts[k];
        }
        p.n = 0;
        p.slack = 0;
        pool_alloc(&p, rotary);
        return slack + p.slack;
    }
    /* mid-size requests share segments: replay the creation order */
    pool_params(&p, &embed);
    pool_layers(&p, m, first, last, kind, rotary);
    pool_params(&p, &head);
    return p.slack;
}

static uint64_t rotary_cache(const kvb__engine_in *in)
{
    const kvb_model *m = in->model;
    if (m->position_embedding_rows) /* learned positions (OPT) */
        return 0;
    uint64_t dim = kvb__is_mla(m) ? m->qk_rope_head_dim : kvb__head_dim(m);
    uint64_t b = m->max_position_embeddings * dim *
                 kvb__dtype_bytes(kvb__act_dtype(m, in->quant));
    /* Gemma 3's local and global layers rotate with different bases */
    return m->arch == KVB_ARCH_GEMMA3 ? 2 * b : b;
}

/* MXFP4 experts of one rank: w13 and w2 at 17 bytes per 32 weights
 * (uint8 pairs and an E8M0 scale per 32), plus BF16 biases. */
static uint64_t mxfp4_experts(uint64_t experts, uint64_t width, uint64_t hidden,
                              bool bias)
{
    uint64_t b = experts * 2 * width * (kvb__cdiv(hidden, 32) * 17) +
                 experts * hidden * (kvb__cdiv(width, 32) * 17);
    return bias ? b + experts * (2 * width + hidden) * 2 : b;
}

/* The same experts once the Triton kernels (triton_kernels' matmul_ogs)
 * have swizzled them for Hopper (Mxfp4MoEMethod.process_weights_after_
 * loading, _swizzle_mxfp4): a matrix of K inputs and N outputs is stored
 * K/2 bytes by N, padded to 64 bytes and 256 outputs
 * (HopperMXValueLayout._padded_shape); its scales, K/32 by N, pad N to
 * 2 x num_warps x 2 x 8 = 256 (HopperMXScaleLayout, 8 warps) and the
 * groups to an even count; the biases are converted to FP32. */
static uint64_t mxfp4_hopper_matrix(uint64_t k, uint64_t n)
{
    uint64_t np = kvb__round_up(n, 256);
    return kvb__round_up(kvb__cdiv(k, 2), 64) * np +
           kvb__round_up(kvb__cdiv(k, 32), 2) * np;
}

static uint64_t mxfp4_hopper_experts(uint64_t experts, uint64_t width,
                                     uint64_t hidden, bool bias)
{
    uint64_t b = experts * (mxfp4_hopper_matrix(hidden, 2 * width) +
                            mxfp4_hopper_matrix(width, hidden));
    return bias ? b + experts * (2 * width + hidden) * 4 : b;
}

/* The MXFP4 MoE kernel family vLLM picks (Mxfp4MoEMethod; 0 when the
 * padding does not apply): FlashInfer on 10.x, the Triton kernels on 9.x
 * once triton_kernels is a dependency (0.11.1, PR #27370: before it a
 * plain install had no triton_kernels and _should_use_marlin chose
 * Marlin on Hopper too, as the 0.10.1 logs of vllm-col-022 show), Marlin
 * everywhere else from compute capability 7.5. */
enum { MXFP4_NONE, MXFP4_TRITON, MXFP4_FLASHINFER, MXFP4_MARLIN };

static uint32_t mxfp4_backend(const kvb__engine_in *in)
{
    uint32_t cc = in->gpu->compute_capability;
    if (in->quant->method != KVB_QUANT_MXFP4 || !in->model->num_experts ||
        cc < 75)
        return MXFP4_NONE;
    if (cc >= 90 && cc < 100)
        return since(in, V(0, 11, 1)) ? MXFP4_TRITON : MXFP4_MARLIN;
    if (cc >= 100 && cc < 110)
        return MXFP4_FLASHINFER;
    return MXFP4_MARLIN;
}

static uint64_t mxfp4_padding(const kvb__engine_in *in, uint32_t moe_layers)
{
    const kvb_model *m = in->model;
    uint32_t tp = in->s.tensor_parallel_size, kind = mxfp4_backend(in);
    if (kind == MXFP4_NONE || !moe_layers)
        return 0;
    bool ep = in->s.enable_expert_parallel != 0;
    uint64_t e = ep ? kvb__cdiv(m->num_experts, tp) : m->num_experts;
    uint64_t w =
        ep ? m->moe_intermediate_size : kvb__cdiv(m->moe_intermediate_size, tp);
    uint64_t h = m->hidden_size, wp, hp = h;
    bool bias = (m->flags & KVB_MODEL_MLP_BIAS) != 0;
    uint64_t plain = mxfp4_experts(e, w, h, bias), padded;
    if (kind == MXFP4_TRITON) {
        padded = mxfp4_hopper_experts(e, kvb__round_up(w, 64), h, bias);
    } else if (kind == MXFP4_FLASHINFER) {
        wp = kvb__round_up(w, 256);
        hp = kvb__round_up(h, 256);
        padded = mxfp4_experts(e, wp, hp, bias);
    } else {
        wp = kvb__round_up(w, 128);
        hp = kvb__round_up(h, 256);
        padded = mxfp4_experts(e, wp, hp, bias);
    }
    return padded > plain ? (padded - plain) * moe_layers : 0;
}

/* The MXFP4 kernel family the GPU runs, which is all the loaded weights
 * read of it (mxfp4_padding): 0 when the padding does not apply. */
uint32_t kvb__vllm_weights_gpu_key(const kvb__engine_in *in)
{
    return mxfp4_backend(in);
}

/*
 * Gemma 3n with its towers (gemma3n_mm.py) pre-allocates
 * per_layer_embeddings, max_num_batched_tokens x num_hidden_layers x
 * hidden_size_per_layer_input in the model dtype, when it is built ("to
 * be compatible with cudagraph"), so vLLM's weights figure holds it.
 * Read at a recent commit; the release that first has it is not checked,
 * and the text-only gemma3n.py of 0.9.x has none.
 */
static uint64_t gemma3n_buffer(const kvb__engine_in *in)
{
    const kvb_model *m = in->model;
    if (m->vision_kind != KVB_VISION_GEMMA3N)
        return 0;
    return in->s.max_num_batched_tokens * m->num_hidden_layers *
           m->hidden_size_per_layer_input *
           kvb__dtype_bytes(kvb__act_dtype(m, in->quant));
}

uint64_t kvb__vllm_loaded_weights(const kvb__engine_in *in, uint32_t stage,
                                  uint64_t inventory_bytes)
{
    const kvb_model *m = in->model;
    uint32_t pp = in->s.pipeline_parallel_size, first, last;
    kvb__pp_layers(m->num_hidden_layers, stage, pp, &first, &last);
    unsigned globals = (stage == 0 ? KVB__WALK_EMBED : 0) |
                       (stage + 1 == pp ? KVB__WALK_HEAD : 0);
    uint64_t rotary = rotary_cache(in);
    return inventory_bytes + rotary +
           rounding_slack(in, first, last, globals, rotary) +
           mxfp4_padding(in, kvb__count_moe(m, first, last)) +
           (stage == 0 ? gemma3n_buffer(in) : 0);
}

/* ---- blocks, tokens, concurrency ---- */

/* The first release whose hybrids run with mamba_cache_mode "align" by
 * default (PR #50991; the release rules are with hybrid_check below). */
#define HYBRID_ALIGN V(0, 28, 0)

/* Pages one request holds in each recurrent layer, and so in each
 * recurrent group (MambaSpec.max_memory_usage_bytes): one in
 * mamba_cache_mode "none", two in "align". */
static uint64_t state_pages(const kvb__engine_in *in)
{
    return since(in, HYBRID_ALIGN) ? 2 : 1;
}

/* Blocks one request of `len` tokens holds, the state pages included
 * (kvb__kv_blocks_per_request counts one per recurrent group). */
static uint64_t request_blocks(const kvb__engine_in *in,
                               const kvb__kv_stage *ks, uint64_t len)
{
    uint64_t blocks = kvb__kv_blocks_per_request(
        ks, len, in->s.max_num_batched_tokens, in->s.block_size);
    return blocks + (state_pages(in) - 1) * ks->rec_groups;
}

uint64_t kvb__vllm_needed_bytes(const kvb__engine_in *in,
                                const kvb__kv_stage *ks, uint64_t len)
{
    uint64_t mnbt = in->s.max_num_batched_tokens;
    uint32_t bs = in->s.block_size;
    if (in->accounting == KVB_ACCOUNTING_VLLM_V1_021)
        return (uint64_t)ks->group_size * ks->page_bytes *
               request_blocks(in, ks, len);
    /* the sum over layers of max_memory_usage_bytes; a recurrent layer's
     * (MambaSpec) is its padded state pages */
    uint64_t blocks = ks->recurrent * state_pages(in);
    for (int k = 0; k < 3; k++)
        blocks +=
            ks->layers[k] * kvb__kv_blocks_per_layer(ks, k, len, mnbt, bs);
    return blocks * ks->page_bytes;
}

uint64_t kvb__vllm_num_blocks(const kvb__engine_in *in, const kvb__kv_stage *ks,
                              uint64_t available)
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
    uint64_t per_req = request_blocks(in, ks, mml);
    *concurrency = per_req ? (double)num_blocks / (double)per_req : 0.0;
    /* min_block_size over the groups: a MambaSpec's block is max_model_len
     * tokens (HybridAttentionMambaModelConfig) */
    uint64_t min_bs = ks->recurrent && mml < bs ? mml : bs;
    if (in->accounting == KVB_ACCOUNTING_VLLM_V1_021)
        *tokens = (uint64_t)(*concurrency * (double)mml);
    else
        *tokens = ks->n_groups ? num_blocks / ks->n_groups * min_bs : 0;
}

/* The largest len in [lo, hi] whose needed bytes fit; needed(lo) fits. */
static uint64_t fit_search(const kvb__engine_in *in, const kvb__kv_stage *ks,
                           uint64_t available, uint64_t lo, uint64_t hi)
{
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (kvb__vllm_needed_bytes(in, ks, mid) <= available)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* estimate_max_model_len: binary search on the same check. */
uint64_t kvb__vllm_fit_len_search(const kvb__engine_in *in,
                                  const kvb__kv_stage *ks, uint64_t available,
                                  uint64_t num_blocks)
{
    uint64_t hi = in->model->max_position_embeddings;
    if (line_v0(in))
        return kvb__min(hi, num_blocks / in->s.pipeline_parallel_size *
                                in->s.block_size);
    if (kvb__vllm_needed_bytes(in, ks, 1) > available)
        return 0;
    return fit_search(in, ks, available, 1, hi);
}

/*
 * The same answer without most of the search.  needed(len) is a sum of
 * non-decreasing step functions, one per kind of layer: a sliding layer's
 * blocks stop growing at len = window - 1 + max_num_batched_tokens, a
 * chunked one's at chunk + max_num_batched_tokens, and a full layer's grow
 * as ceil(len / block).  From the largest of those saturation points on,
 * needed(len) = a * ceil(len / block) + b, so the largest len that fits
 * there is the last multiple of the block with a * blocks <= available - b.
 * Below it (rare: the budget ends inside a sliding window) the binary
 * search runs on that shorter range.  Where needed(max) would overflow
 * 64 bits the search runs as before, so the answer is the search's in
 * every case (tests/unit/test_fastpaths.c compares the two).
 */
uint64_t kvb__vllm_fit_len(const kvb__engine_in *in, const kvb__kv_stage *ks,
                           uint64_t available, uint64_t num_blocks)
{
    uint64_t hi = in->model->max_position_embeddings;
    uint64_t mnbt = in->s.max_num_batched_tokens;
    uint32_t bs = in->s.block_size;
    if (line_v0(in) || ks->recurrent) /* the state pages: a constant */
        return kvb__vllm_fit_len_search(in, ks, available, num_blocks);
    if (!ks->layers[KVB__ATTN_SLIDING] && !ks->layers[KVB__ATTN_CHUNKED]) {
        /* full attention only: needed = unit x ceil(len / block) */
        uint64_t unit = 0, need_hi = 0;
        bool v21 = in->accounting == KVB_ACCOUNTING_VLLM_V1_021;
        uint64_t n = v21 ? (uint64_t)ks->group_size * ks->groups[KVB__ATTN_FULL]
                         : ks->layers[KVB__ATTN_FULL];
        bool ok = kvb__mul_ok(n, ks->page_bytes, &unit);
        if (ok && kvb__mul_ok(unit, kvb__cdiv(hi, bs), &need_hi)) {
            if (unit > available)
                return 0;
            if (need_hi <= available)
                return hi;
            return kvb__min(hi - 1, available / unit * bs);
        }
        return kvb__vllm_fit_len_search(in, ks, available, num_blocks);
    }
    /* bytes per block of each kind of layer: needed = sum unit[k] x
     * blocks_k(len) */
    uint64_t unit[3], top = 0, sat = 1, need_hi = 0, page = ks->page_bytes;
    bool v21 = in->accounting == KVB_ACCOUNTING_VLLM_V1_021;
    if (v21 && !kvb__mul_ok(ks->group_size, ks->page_bytes, &page))
        return kvb__vllm_fit_len_search(in, ks, available, num_blocks);
    for (int k = 0; k < 3; k++) {
        uint64_t per = 0, blocks = 0, bytes = 0;
        uint64_t n = v21 ? ks->groups[k] : ks->layers[k];
        if (!kvb__mul_ok(n, page, &per))
            return kvb__vllm_fit_len_search(in, ks, available, num_blocks);
        unit[k] = per;
        blocks = kvb__kv_blocks_per_layer(ks, k, hi, mnbt, bs);
        if (!kvb__mul_ok(per, blocks, &bytes) ||
            !kvb__add_ok(need_hi, bytes, &need_hi))
            return kvb__vllm_fit_len_search(in, ks, available, num_blocks);
        if (k == KVB__ATTN_SLIDING && n)
            sat = kvb__max(sat, ks->window - 1 + mnbt);
        if (k == KVB__ATTN_CHUNKED && n)
            sat = kvb__max(sat, ks->chunk + mnbt);
    }
    if (kvb__vllm_needed_bytes(in, ks, 1) > available)
        return 0;
    if (need_hi <= available)
        return hi;
    if (sat >= hi || kvb__vllm_needed_bytes(in, ks, sat) > available)
        return fit_search(in, ks, available, 1, kvb__min(sat, hi));
    /* sat < hi, needed(sat) fits and needed(hi) does not: a full layer
     * exists (unit[FULL] > 0), and the answer lies in [sat, hi) */
    uint64_t rest = 0;
    for (int k = 1; k < 3; k++)
        rest += unit[k] * kvb__kv_blocks_per_layer(ks, k, sat, mnbt, bs);
    top = (available - rest) / unit[KVB__ATTN_FULL];
    return kvb__min(hi - 1, top * bs);
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
            snprintf(est, sizeof est,
                     "Based on the available memory, the "
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
        snprintf(est, sizeof est,
                 "Based on the available memory, the "
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

static kvb_status oom_text(const kvb_plan *p, const char *when, uint64_t wanted,
                           char *buf, size_t cap, size_t *needed,
                           kvb_error *err)
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
                            p->weights_bytes_per_gpu - room, buf, cap, needed,
                            err);
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
        return kvb__render(buf, cap, needed, err, "ValueError: %s", p->message);
    default: return kvb__render(buf, cap, needed, err, "%s", "");
    }
}

/* ---- fixes as vLLM flags ---- */

/* vLLM serves GGUF from a local file, with the tokenizer of the original
 * repository: the file name is a placeholder the operator fills in. */
static void model_args(kvb__args *a, const kvb_model *m, int32_t method)
{
    char repo[96];
    bool have_repo = kvb__model_repo(m->name, repo, sizeof repo);
    const char *name = have_repo ? repo : m->name[0] ? m->name : "MODEL";
    kvb__arg(a, "--model");
    if (!(kvb__quant_is_gguf(method))) {
        kvb__arg(a, "%s", name);
        return;
    }
    const char *base = strrchr(name, '/');
    char upper[16];
    snprintf(upper, sizeof upper, "%s", kvb_quant_method_name(method));
    for (char *p = upper; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    kvb__arg(a, "/models/%s-%s.gguf", base ? base + 1 : name, upper);
    kvb__arg(a, "--tokenizer");
    kvb__arg(a, "%s", name);
}

/* AWQ and GPTQ weights are made ahead of time: vLLM cannot load a base
 * repository with --quantization awq|gptq.  A fix names the published
 * checkpoint (whose config tells vLLM the format, so no --quantization:
 * that would also turn off the faster Marlin kernels), or a local
 * directory the operator fills with one. */
static bool prequantized(int32_t method)
{
    return method == KVB_QUANT_AWQ_4 || method == KVB_QUANT_GPTQ_4 ||
           method == KVB_QUANT_GPTQ_8;
}

static void checkpoint_args(kvb__args *a, const kvb_fix *f, const kvb_model *m)
{
    /* kvb_fix_render names the model after the checkpoint, or after the
     * directory to fill when none is known */
    char repo[96];
    kvb__arg(a, "--model");
    if (f->checkpoint[0])
        kvb__arg(a, "%s", f->checkpoint);
    else
        kvb__arg(a, "%s",
                 kvb__model_repo(m->name, repo, sizeof repo) ? repo
                 : m->name[0]                                ? m->name
                                                             : "MODEL");
}

/* The fix as vLLM's own flags (vllm serve / the server module). */
static void vllm_render_args(const kvb_fix *f, const kvb_model *m, kvb__args *a)
{
    /* vLLM wants the Hugging Face repository, not our preset name */
    if (f->checkpoint[0] || prequantized(f->quant_method)) {
        checkpoint_args(a, f, m);
    } else {
        model_args(a, m, f->quant_method);
        kvb__quant_args(a, f->quant_method, false);
    }
    /* a bfloat16 model on a GPU below 8.0: vLLM refuses to start
     * ("Bfloat16 is only supported on GPUs with compute capability of at
     * least 8.0", platforms/cuda.py) unless told --dtype half */
    uint32_t cc = f->gpu_compute_capability;
    int32_t q = f->quant_method;
    if (cc && cc < 80 && m->dtype == KVB_DTYPE_BF16 && q != KVB_QUANT_FP16 &&
        q != KVB_QUANT_FP32 && q != KVB_QUANT_BF16) {
        kvb__arg(a, "--dtype");
        kvb__arg(a, "half");
    }
    kvb__arg(a, "--max-model-len");
    kvb__arg(a, "%llu", (unsigned long long)f->max_model_len);
    kvb__arg(a, "--gpu-memory-utilization");
    kvb__arg(a, "%.2f", f->gpu_memory_utilization);
    if (f->tensor_parallel_size > 1) {
        kvb__arg(a, "--tensor-parallel-size");
        kvb__arg(a, "%u", f->tensor_parallel_size);
    }
    if (f->pipeline_parallel_size > 1) {
        kvb__arg(a, "--pipeline-parallel-size");
        kvb__arg(a, "%u", f->pipeline_parallel_size);
    }
    if (f->enforce_eager)
        kvb__arg(a, "--enforce-eager");
    if (f->kv_cache_dtype == KVB_DTYPE_FP8) {
        kvb__arg(a, "--kv-cache-dtype");
        kvb__arg(a, "fp8");
    }
}

/* ---- the engine table ---- */

/*
 * vLLM's own choice of engine while both shipped (0.8.0 until V0 was
 * removed, PR #25321, first missing in 0.11): EngineArgs.
 * _is_v1_supported_oracle falls back to V0 for what V1 could not run.
 * The checks that depend on a plan's inputs, by release (read in the
 * 0.8.3/0.8.4 and 0.10 states of vllm/engine/arg_utils.py; the band edges
 * between them are the nearest release we could date):
 *   all:       compute capability below 8.0 ("Need at least Ampere").
 *   0.8.x:     dtypes other than fp16/bf16 (V1_SUPPORTED_DTYPES), GGUF
 *              (V1_UNSUPPORTED_QUANT), an fp8 KV cache unless FlashAttention
 *              3 runs it (Hopper), pipeline parallelism without Ray.
 * Returns the reason, or NULL when V1 runs it.
 */
const char *kvb__vllm_v0_fallback(const kvb__engine_in *in)
{
    uint32_t v = in->version;
    if (v == 0 || v < 800 || v >= 1100)
        return NULL;
    if (strchr(in->model->layer_pattern, 'X'))
        return "a V0-only model (mllama is SupportsV0Only)";
    uint32_t cc = in->gpu->compute_capability;
    if (cc && cc < 80)
        return "compute capability below 8.0";
    if (v >= 900)
        return NULL;
    int32_t act = kvb__act_dtype(in->model, in->quant);
    if (act != KVB_DTYPE_FP16 && act != KVB_DTYPE_BF16)
        return "a dtype other than float16/bfloat16";
    int32_t m = in->quant->method;
    if (kvb__quant_is_gguf(m))
        return "a GGUF checkpoint";
    if (in->quant->kv_cache_dtype == KVB_DTYPE_FP8 && !(cc >= 90 && cc < 100))
        return "an fp8 KV cache without FlashAttention 3";
    if (in->s.pipeline_parallel_size > 1)
        return "pipeline parallelism without the Ray executor";
    return NULL;
}

static int32_t vllm_accounting_of(const kvb__engine_in *in)
{
    int32_t forced = in->s.accounting;
    bool newest = in->version == 0 || in->version >= 2100;
    if (forced == KVB_ACCOUNTING_VLLM_V0)
        return forced;
    /* mllama runs on V0 only (cross_check refuses a forced V1) */
    if (strchr(in->model->layer_pattern, 'X'))
        return KVB_ACCOUNTING_VLLM_V0;
    if (forced == KVB_ACCOUNTING_VLLM_V1 ||
        forced == KVB_ACCOUNTING_VLLM_V1_021)
        return newest ? KVB_ACCOUNTING_VLLM_V1_021 : KVB_ACCOUNTING_VLLM_V1;
    if (kvb__vllm_v0_fallback(in))
        return KVB_ACCOUNTING_VLLM_V0;
    return kvb__vllm_accounting(in->version);
}

static void warn(kvb_plan *p, const char *text)
{
    size_t n = strlen(p->warning);
    snprintf(p->warning + n, sizeof p->warning - n, "%s%s", n ? "; " : "",
             text);
}

/* "vllm-v0" and "vllm-v1" name the engine line explicitly (VLLM_USE_V1). */
static bool vllm_variant(const char *name, int32_t *accounting)
{
    if (!kvb__strcasecmp(name, "vllm-v0"))
        *accounting = KVB_ACCOUNTING_VLLM_V0;
    else if (!kvb__strcasecmp(name, "vllm-v1"))
        *accounting = KVB_ACCOUNTING_VLLM_V1;
    else
        return false;
    return true;
}

/* ---- hybrids with recurrent layers (Mamba2, Gated DeltaNet) ---- */

/*
 * The releases whose hybrid accounting is modelled, by the mamba_cache_mode
 * a plan without --enable-prefix-caching gets:
 *   0.10.2-0.11.0: V1's hybrid KV-cache manager (Qwen3-Next's release)
 *     with MambaModelConfig switching prefix caching off for every hybrid;
 *   0.11.1-0.27: Mamba prefix caching exists (PR #25752) but stays opt-in
 *     for hybrids (EngineArgs: "Disable prefix caching default for hybrid
 *     models since the feature is still experimental"; later "keep it
 *     opt-in for now"), so the mode is "none", as before;
 *   0.28 and the newest: prefix caching on for hybrids by default with
 *     mamba_cache_mode "align" (PR #50991, merged 2026-08-04; vllm-metal PR
 *     #651 dates it to 0.28.0).
 * In "none" and "align" the attention block follows the same rule
 * (Platform._align_hybrid_block_size, issue #52895: only "all" aligns to
 * the Mamba chunk); what differs is the pages a request holds per
 * recurrent layer: MambaSpec.max_memory_usage_bytes is one page in "none"
 * and two in "align" (vllm/v1/kv_cache_interface.py; the 0.24 log in
 * tests/unit/test_hybrid.c shows the two).  Before 0.10.2 the state
 * pool is V0's MambaCacheManager: refused.
 */
#define HYBRID_FIRST V(0, 10, 2)

static bool hybrid_modelled(const kvb__engine_in *in)
{
    return in->version == 0 || in->version >= HYBRID_FIRST;
}

/* HybridAttentionMambaModelConfig.verify_and_update_config (from 0.18.2
 * Platform._align_hybrid_block_size, once the backend is known): the
 * attention block is the smallest multiple of 16 tokens (FlashAttention's
 * alignment) whose page (one layer, one rank) holds one layer's recurrent
 * state, MambaSpec.page_size_bytes = conv + temporal state; the Mamba page
 * is then padded to it (mamba_page_size_padded). */
static uint64_t hybrid_block(const kvb__engine_in *in)
{
    uint32_t tp = in->s.tensor_parallel_size ? in->s.tensor_parallel_size : 1;
    uint64_t conv = 0, ssm = 0;
    kvb__state_bytes(in->model, in->quant, tp, &conv, &ssm);
    uint64_t token = kvb__kv_layer_token_bytes(in->model, in->quant, tp);
    return 16 * kvb__cdiv(conv + ssm, 16 * (token ? token : 1));
}

static void hybrid_defaults(kvb__engine_in *in)
{
    if (!kvb__has_recurrent(in->model) || !hybrid_modelled(in))
        return;
    uint64_t b = hybrid_block(in);
    if (in->s.block_size < b && b <= UINT32_MAX) /* a larger choice stays */
        in->s.block_size = (uint32_t)b;
}

static kvb_status hybrid_check(const kvb__engine_in *in, kvb_error *err)
{
    const char *arch = kvb_arch_name(in->model->arch);
    char release[32] = "the newest vLLM";
    if (in->version)
        snprintf(release, sizeof release, "vLLM %u.%u.%u", in->version / 10000,
                 in->version / 100 % 100, in->version % 100);
    if (!hybrid_modelled(in))
        return kvb__fail(
            err, KVB_EUNSUPPORTED, "serving.engine_version",
            "planning a hybrid with recurrent layers (%s) on %s is not "
            "modelled: before 0.10.2 the state pool is V0's "
            "MambaCacheManager; allowed: engine_version 0.10.2 or later",
            arch, release);
    if (line_v0(in) || in->s.disable_hybrid_kv_cache)
        return kvb__fail(err, KVB_EUNSUPPORTED,
                         line_v0(in) ? "serving.accounting"
                                     : "serving.disable_hybrid_kv_cache",
                         "a hybrid with recurrent layers (%s) runs only on "
                         "V1's hybrid KV-cache manager; allowed: vllm-v1 with "
                         "the hybrid manager on",
                         arch);
    /* Zamba2ForCausalLM does not implement SupportsPP (PR #13185: "PP is
     * not supported"), so vLLM refuses pipeline parallelism for it. */
    if (strchr(in->model->layer_pattern, 'Z') &&
        in->s.pipeline_parallel_size > 1)
        return kvb__fail(err, KVB_EUNSUPPORTED,
                         "serving.pipeline_parallel_size",
                         "vLLM runs %s without pipeline parallelism "
                         "(Zamba2ForCausalLM is not SupportsPP); allowed: "
                         "pipeline_parallel_size 1",
                         arch);
    if (hybrid_block(in) > 65536)
        return kvb__fail(err, KVB_ERANGE, "model.ssm_state_size",
                         "the recurrent state (%llu tokens of attention page) "
                         "is out of range; allowed: a block of at most 65536",
                         (unsigned long long)hybrid_block(in));
    return KVB_OK;
}

/*
 * DeepSeek-V3.2's sparse-attention indexer keeps its own key cache per
 * token and layer, modelled as vLLM sizes it (DeepseekV32IndexerCache,
 * vLLM 0.11.0 and later) next to a 16-bit MLA latent.  vLLM's FP8 MLA
 * layout for this model (fp8_ds_mla: 512 FP8 values, four FP32 scales and
 * the 64 rope values in 16 bits) is not modelled, so it is refused.
 */
static kvb_status indexer_check(const kvb__engine_in *in, kvb_error *err)
{
    if (!in->model->index_n_heads)
        return KVB_OK;
    if (in->version && in->version < 1100u)
        return kvb__fail(err, KVB_EUNSUPPORTED, "serving.engine_version",
                         "vLLM before 0.11.0 has no DeepSeek-V3.2 sparse "
                         "attention (DeepseekV32IndexerCache); allowed: "
                         "0.11.0 or later");
    if (kvb__dtype_bytes(kvb__kv_dtype(in->model, in->quant)) < 2)
        return kvb__fail(err, KVB_EUNSUPPORTED, "quant.kv_cache_dtype",
                         "an FP8 KV cache with a sparse-attention indexer "
                         "is vLLM's fp8_ds_mla layout, which is not "
                         "modelled; allowed: kv_cache_dtype auto (16-bit)");
    return KVB_OK;
}

/*
 * mllama (Llama 3.2 Vision) on vLLM: added by PR #8811 (merged
 * 2024-09-25, released in 0.6.2) as an encoder-decoder model of the V0
 * engine; MllamaForConditionalGeneration is SupportsV0Only, so 0.8-0.10
 * fall back to V0 for it; PR #24907 (merged 2025-09-15, "Remove V0
 * Encoder-Decoder Support": Whisper is the only encoder-decoder model
 * left) removed it, so 0.11.0 and later do not serve it (PR #24961 lists
 * it among the previously supported models).
 */
#define MLLAMA_FIRST V(0, 6, 2)
#define MLLAMA_GONE  V(0, 11, 0)

static kvb_status cross_check(const kvb__engine_in *in, kvb_error *err)
{
    if (!strchr(in->model->layer_pattern, 'X'))
        return KVB_OK;
    char release[32] = "the newest vLLM";
    if (in->version)
        snprintf(release, sizeof release, "vLLM %u.%u.%u", in->version / 10000,
                 in->version / 100 % 100, in->version % 100);
    if (in->version == 0 || in->version >= MLLAMA_GONE)
        return kvb__fail(err, KVB_EUNSUPPORTED, "serving.engine_version",
                         "%s does not serve mllama (Llama 3.2 Vision): PR "
                         "#24907 removed V0's encoder-decoder models with "
                         "it from 0.11.0; allowed: engine_version 0.6.2 to "
                         "0.10.2",
                         release);
    if (in->version < MLLAMA_FIRST)
        return kvb__fail(err, KVB_EUNSUPPORTED, "serving.engine_version",
                         "%s has no mllama (Llama 3.2 Vision): PR #8811 "
                         "added it in 0.6.2; allowed: engine_version 0.6.2 "
                         "to 0.10.2",
                         release);
    int32_t a = in->s.accounting;
    if (a == KVB_ACCOUNTING_VLLM_V1 || a == KVB_ACCOUNTING_VLLM_V1_021)
        return kvb__fail(err, KVB_EUNSUPPORTED, "serving.accounting",
                         "mllama (Llama 3.2 Vision) is SupportsV0Only: "
                         "vLLM's V1 engine never ran it; allowed: vllm-v0 "
                         "or -1");
    return KVB_OK;
}

/*
 * Gemma 3n on vLLM: text support came with PR #20134 (merged 2025-06-26,
 * first in 0.9.2), whose Gemma3nAttention names a
 * kv_sharing_target_layer_name for the last num_kv_shared_layers layers;
 * V1's get_kv_cache_spec skips those layers, so they get no KV cache.
 * Cross-layer KV sharing is V1's alone (V0's Attention raises
 * NotImplementedError for it), and Gemma3nForConditionalGeneration does
 * not implement SupportsPP.
 */
static kvb_status gemma3n_check(const kvb__engine_in *in, kvb_error *err)
{
    if (in->model->arch != KVB_ARCH_GEMMA3N)
        return KVB_OK;
    if (in->version && in->version < 902u)
        return kvb__fail(err, KVB_EUNSUPPORTED, "serving.engine_version",
                         "vLLM before 0.9.2 has no Gemma 3n (PR #20134); "
                         "allowed: 0.9.2 or later");
    if (line_v0(in)) {
        const char *why = kvb__vllm_v0_fallback(in);
        return kvb__fail(err, KVB_EUNSUPPORTED, "serving.accounting",
                         "Gemma 3n's shared KV layers "
                         "(kv_sharing_target_layer_name) run on vLLM's V1 "
                         "engine only and V0 refuses them; this plan is V0%s"
                         "%s; allowed: V1",
                         why ? ", vLLM's fallback for " : "", why ? why : "");
    }
    if (in->s.pipeline_parallel_size > 1)
        return kvb__fail(err, KVB_EUNSUPPORTED,
                         "serving.pipeline_parallel_size",
                         "serving.pipeline_parallel_size (%u): vLLM's "
                         "Gemma 3n does not support pipeline parallelism "
                         "(no SupportsPP); allowed: 1",
                         in->s.pipeline_parallel_size);
    return KVB_OK;
}

static kvb_status vllm_check(const kvb__engine_in *in, kvb_error *err)
{
    kvb_status cross = cross_check(in, err);
    if (cross)
        return cross;
    bool raised = kvb__has_recurrent(in->model) && hybrid_modelled(in) &&
                  in->s.block_size == hybrid_block(in);
    kvb_status st =
        kvb__has_recurrent(in->model) ? hybrid_check(in, err) : KVB_OK;
    if (!st && !raised) /* vLLM's own choice is not a --block-size choice */
        st = kvb__vllm_block_size_check(in->version, in->s.block_size, err);
    if (st)
        return st;
    int32_t a = in->s.accounting;
    if (a >= 0 && a != KVB_ACCOUNTING_VLLM_V0 && a != KVB_ACCOUNTING_VLLM_V1 &&
        a != KVB_ACCOUNTING_VLLM_V1_021)
        return kvb__fail(err, KVB_EINVAL, "serving.accounting",
                         "serving.accounting (%s) is not one of vLLM's; "
                         "allowed: -1, vllm-v0, vllm-v1, vllm-v1-0.21",
                         kvb_accounting_name(a) ? kvb_accounting_name(a) : "?");
    st = indexer_check(in, err);
    return st ? st : gemma3n_check(in, err);
}

static void vllm_defaults(kvb__engine_in *in)
{
    if (!in->s.block_size)
        in->s.block_size = 16; /* CacheConfig.block_size */
    kvb__vllm_defaults(in);
    hybrid_defaults(in);
}

static bool vllm_graphs_in_budget(const kvb__engine_in *in)
{
    return in->accounting == KVB_ACCOUNTING_VLLM_V1_021 && !in->s.enforce_eager;
}

/* V1's KV-cache manager groups layers by attention kind; V0 allocates
 * every layer for the full context. */
static bool vllm_hybrid(const kvb__engine_in *in)
{
    return !line_v0(in) && !in->s.disable_hybrid_kv_cache;
}

/* The start-up free-memory check ("Free memory on device ... is less
 * than desired GPU memory utilization") exists from 0.9.1 (PR #18974 in
 * v1/worker/gpu_worker.py); earlier releases start and fail later, if
 * at all. */
static bool vllm_startup_check(const kvb__engine_in *in)
{
    return !line_v0(in) && (in->version == 0 || in->version >= 901);
}

/* mllama on V0: a request with an image also holds blocks for its
 * encoder tokens (the cross block table, from the same pool), which
 * vLLM's own "Maximum concurrency" line does not count either; the plan
 * says how many. */
static void mllama_warning(const kvb__engine_in *in, kvb_plan *p)
{
    uint64_t tokens = kvb__cross_tokens_per_image(in->model);
    uint32_t bs = in->s.block_size ? in->s.block_size : 16;
    char text[200];
    snprintf(text, sizeof text,
             "an image request also holds %llu encoder tokens per image "
             "(%llu blocks of every layer), not in the concurrency; the "
             "vision encoder's profile is not modelled",
             (unsigned long long)tokens,
             (unsigned long long)kvb__cdiv(tokens, bs));
    warn(p, text);
}

/* A model with a vision tower: what vLLM does with it that the plan
 * states rather than models (issue 14). */
static void vllm_tower_warnings(const kvb__engine_in *in, kvb_plan *p)
{
    const kvb_model *m = in->model;
    if (in->tower_left_out == KVB_VISION_GEMMA3N) {
        warn(p, "vLLM before 0.10.0 loads Gemma 3n's language model only "
                "(gemma3n.py, PR #20134): its towers are left out");
        return;
    }
    if (m->vision_kind == KVB_VISION_GEMMA3N)
        warn(p, "Gemma 3n towers counted: the audio Conformer and both "
                "embedders from the config, the MobileNetV5 vision tower "
                "as timm's 294,126,912 parameters for mobilenetv5_300m_enc, "
                "not derived from the config");
    if (m->vision_kind == KVB_VISION_NONE) {
        if (in->s.mm_disabled)
            warn(p, "text-only mode: the vision tower is left out, as "
                    "vLLM skips it where the model implements that (PR "
                    "#22299)");
        return;
    }
    if (m->vision_kind == KVB_VISION_MLLAMA) {
        mllama_warning(in, p);
        return;
    }
    /* vllm/v1/core/encoder_cache_manager.py compute_encoder_budget: the
     * encoder cache holds max(max_num_batched_tokens, the largest item's
     * tokens); the profile run encodes dummy items of maximum size. */
    warn(p, "vision tower counted; the encoder profile (max-size dummy "
            "images per --limit-mm-per-prompt, encoder cache of "
            "compute_encoder_budget) is not: fewer KV tokens may fit");
    if (in->s.mm_encoder_tp_mode == 1 && in->s.tensor_parallel_size > 1)
        warn(p, "--mm-encoder-tp-mode data: the tower is whole on every "
                "rank (models without it split the tower)");
}

/* CUDA graphs are captured after the profile run's activations were
 * freed: vLLM empties the cache after profiling (memory_profiling from
 * 0.6.5; the worker's empty_cache in 0.3.1-0.6.3), so the room the
 * graphs find outside the budget is (total - usable) + activation peak -
 * context, not (total - usable) - context. */
static void vllm_warnings(const kvb__engine_in *in, kvb_plan *p)
{
    char text[320];
    const char *why = kvb__vllm_v0_fallback(in);
    if (why && in->s.accounting < 0) {
        snprintf(text, sizeof text,
                 "vLLM %u.%u falls back to the V0 engine for %s "
                 "(_is_v1_supported_oracle); planned as V0",
                 in->version / 10000, in->version / 100 % 100, why);
        warn(p, text);
    }
    /* 0.2.5-0.3.0 measured the peak as total - free after the profile,
     * NCCL's buffers included, at TP > 1 (issue 13 rule 11): about a
     * third fewer blocks in one report; no input can model it. */
    if (in->version >= 205 && in->version < 301 &&
        in->s.tensor_parallel_size > 1)
        warn(p, "vLLM 0.2.5-0.3.0 counts NCCL memory in the profile at "
                "TP > 1: expect fewer KV blocks than planned");
    if (kvb__has_recurrent(in->model)) {
        snprintf(text, sizeof text,
                 "a hybrid: the attention block is %u tokens so that its "
                 "page holds one layer's recurrent state; %s; the "
                 "activation peak and CUDA graphs are estimated as for "
                 "attention layers",
                 in->s.block_size,
                 state_pages(in) > 1 ? "prefix caching on (mamba_cache_mode "
                                       "align): 2 state pages per request"
                                     : "prefix caching off: 1 state page "
                                       "per request");
        warn(p, text);
    }
    vllm_tower_warnings(in, p);
    if (strstr(in->gpu->name, "MIG") || strstr(in->gpu->name, "vGPU") ||
        strstr(in->gpu->name, "-1g.") || strstr(in->gpu->name, "-2g.") ||
        strstr(in->gpu->name, "-3g."))
        warn(p, "a MIG or vGPU profile: the free memory at start-up is "
                "the profile's; pass --gpu-free if it is known");
}

static void vllm_finish(const kvb__engine_in *in, kvb_plan *p,
                        const kvb__stage_result *r)
{
    (void)r;
    vllm_warnings(in, p);
    if (in->version != 0 && in->version < 301)
        return;
    if (p->cudagraph_in_budget)
        return;
    uint64_t left = p->gpu_total_bytes - p->usable_bytes_per_gpu +
                    p->activation_bytes_per_gpu;
    uint64_t outside =
        p->cuda_context_bytes_per_gpu + p->cudagraph_bytes_per_gpu;
    p->headroom_bytes_per_gpu = left > outside ? left - outside : 0;
}

/* V0 compares max_model_len with block_size x blocks per stage
 * (_verify_args in the V0 engine); V1 compares bytes
 * (check_enough_kv_cache_memory).  vLLM checks from 0.2.7 (PR #2163);
 * 0.2.6 and earlier started and hung on long sequences. */
static bool vllm_len_fails(const kvb__engine_in *in, const kvb_plan *p,
                           const kvb__stage_result *r)
{
    if (in->version != 0 && in->version < 207)
        return false;
    if (line_v0(in))
        return p->max_model_len >
               (uint64_t)p->block_size *
                   (p->num_blocks / p->pipeline_parallel_size);
    return r->needed > (uint64_t)(r->available > 0 ? r->available : 0);
}

static bool vllm_detect(size_t argc, const char *const *argv, size_t *used)
{
    return kvb__cmd_program(argc, argv, "vllm", "serve", used) ||
           kvb__cmd_module(argc, argv, "vllm.entrypoints.openai.api_server",
                           used) ||
           kvb__cmd_module(argc, argv, "vllm.entrypoints.api_server", used);
}

/* VLLM_USE_V1=0 selects V0 and =1 V1 while both exist (0.8.0 to the
 * removal of V0, PR #25321); vllm/envs.py. */
static kvb_status vllm_use_v1(kvb__cmd *c, const char *flag, const char *value,
                              kvb_error *err)
{
    bool on;
    kvb_status st = kvb__cmd_bool(flag, value, &on, err);
    if (!st)
        c->s->accounting = on ? KVB_ACCOUNTING_VLLM_V1 : KVB_ACCOUNTING_VLLM_V0;
    return st;
}

/* --enable-chunked-prefill / --no-enable-chunked-prefill (argparse's
 * BooleanOptionalAction in vllm/engine/arg_utils.py). */
static kvb_status vllm_chunked(kvb__cmd *c, const char *flag, const char *value,
                               kvb_error *err)
{
    bool on = strstr(flag, "no-") == NULL;
    if (value) {
        kvb_status st = kvb__cmd_bool(flag, value, &on, err);
        if (st)
            return st;
    }
    c->s->enable_chunked_prefill = on ? 1 : 0;
    return KVB_OK;
}

/* ---- multimodal (issue 14) ---- */

/* The modalities a tower family's vLLM model accepts: the Qwen VL models
 * take images and videos, the others images only. */
static uint32_t tower_modalities(const kvb_model *m)
{
    switch (m->vision_kind) {
    case KVB_VISION_NONE: return 0;
    case KVB_VISION_QWEN2_5_VL:
    case KVB_VISION_QWEN3_VL: return KVB_MM_IMAGE | KVB_MM_VIDEO;
    case KVB_VISION_GEMMA3N: return KVB_MM_IMAGE | KVB_MM_AUDIO;
    default: return KVB_MM_IMAGE;
    }
}

/* "Implicit language-model-only mode": with every modality limited to 0
 * vLLM does not build the tower (PR #22299, in 0.10.1; Qwen3-VL by PR
 * #26000, merged 2025-10-01, so 0.11.0 here); --language-model-only says
 * the same outright (PR #34120). */
bool kvb__vllm_text_only(const kvb_model *m, const kvb_serving *s)
{
    /* Gemma 3n came to vLLM text only (0.9.2, gemma3n.py loads the
     * language model alone); its towers arrived with gemma3n_mm.py (PR
     * #20495, taken as 0.10.0).  Whether its towers honour the implicit
     * language-model-only mode was not checked, so from 0.10.0 they are
     * always counted. */
    if (m->vision_kind == KVB_VISION_GEMMA3N)
        return s->engine == KVB_ENGINE_VLLM && s->engine_version &&
               s->engine_version < 1000u;
    uint32_t need = tower_modalities(m);
    if (s->engine != KVB_ENGINE_VLLM || !need ||
        (s->mm_disabled & need) != need)
        return false;
    uint32_t v = s->engine_version;
    uint32_t since = m->vision_kind == KVB_VISION_QWEN3_VL ? 1100u : 1001u;
    return v == 0 || v >= since;
}

/* One modality's limit in a --limit-mm-per-prompt value: JSON
 * ('{"image": 0, "video": 0}', or '{"image": {"count": 0}}' in later
 * releases) or the older 'image=0,video=0'.  -1 when not named. */
static int64_t mm_limit(const char *value, const char *name)
{
    const char *at = strstr(value, name);
    if (!at)
        return -1;
    at += strlen(name);
    while (*at && (*at < '0' || *at > '9') && *at != ',' && *at != '}')
        at++;
    if (*at < '0' || *at > '9')
        return -1;
    int64_t n = 0;
    while (*at >= '0' && *at <= '9' && n < 1000000)
        n = n * 10 + (*at++ - '0');
    return n;
}

static void mm_set(kvb__cmd *c, uint32_t bit, int64_t limit)
{
    if (limit == 0)
        c->s->mm_disabled |= bit;
    else if (limit > 0)
        c->s->mm_disabled &= ~bit;
}

/* --limit-mm-per-prompt VALUE, and the dotted per-modality spellings
 * (--limit-mm-per-prompt.image 0) of vLLM's nested-argument parser. */
static kvb_status vllm_limit_mm(kvb__cmd *c, const char *flag,
                                const char *value, kvb_error *err)
{
    (void)err;
    static const struct {
        const char *name;
        uint32_t bit;
    } kinds[] = {{"image", KVB_MM_IMAGE},
                 {"video", KVB_MM_VIDEO},
                 {"audio", KVB_MM_AUDIO}};
    const char *dot = strchr(flag + 2, '.');
    for (size_t i = 0; i < KVB__ARRAY_LEN(kinds); i++) {
        if (dot && strcmp(dot + 1, kinds[i].name) == 0)
            mm_set(c, kinds[i].bit, mm_limit(value, ""));
        else if (!dot)
            mm_set(c, kinds[i].bit, mm_limit(value, kinds[i].name));
    }
    return KVB_OK;
}

static kvb_status vllm_lm_only(kvb__cmd *c, const char *flag, const char *value,
                               kvb_error *err)
{
    bool on = true;
    kvb_status st = value ? kvb__cmd_bool(flag, value, &on, err) : KVB_OK;
    if (!st && on)
        c->s->mm_disabled = KVB_MM_ALL;
    return st;
}

/* --mm-encoder-tp-mode weights|data (PR #23190, 0.10.2), which renamed
 * --enable-multimodal-encoder-data-parallel (PR #18368). */
static kvb_status vllm_mm_tp_mode(kvb__cmd *c, const char *flag,
                                  const char *value, kvb_error *err)
{
    if (!value) {
        c->s->mm_encoder_tp_mode = 1;
        return KVB_OK;
    }
    if (strcmp(value, "weights") == 0 || strcmp(value, "data") == 0) {
        c->s->mm_encoder_tp_mode = value[0] == 'd' ? 1 : 0;
        return KVB_OK;
    }
    return kvb__fail(err, KVB_EPARSE, "serving.mm_encoder_tp_mode",
                     "%s (%s) is not a mode; allowed: weights, data", flag,
                     value);
}

#define S KVB__FLAG_SERVING
#define C KVB__FLAG_COMMAND
/* vllm/engine/arg_utils.py (EngineArgs.add_cli_args) and
 * vllm/entrypoints/openai/cli_args.py; flags that change memory are read,
 * the others are listed as ignored. */
static const kvb__flag vllm_flags[] = {
    C("--model", NULL, model),
    C("--quantization|-q", NULL, quantization),
    C("--dtype", NULL, dtype),
    C("--kv-cache-dtype", NULL, kv_cache_dtype),
    S("--max-model-len", NULL, KVB__FLAG_U64, max_model_len),
    S("--gpu-memory-utilization", NULL, KVB__FLAG_FRACTION,
      gpu_memory_utilization),
    S("--tensor-parallel-size|-tp", NULL, KVB__FLAG_U32, tensor_parallel_size),
    S("--pipeline-parallel-size|-pp", NULL, KVB__FLAG_U32,
      pipeline_parallel_size),
    S("--data-parallel-size|-dp", NULL, KVB__FLAG_U32, data_parallel_size),
    S("--block-size", NULL, KVB__FLAG_U32, block_size),
    S("--enforce-eager", NULL, KVB__FLAG_ON, enforce_eager),
    S("--max-num-seqs", NULL, KVB__FLAG_U32, max_num_seqs),
    S("--max-num-batched-tokens", NULL, KVB__FLAG_U64, max_num_batched_tokens),
    KVB__FLAG_SET_BARE("--enable-chunked-prefill|--no-enable-chunked-prefill",
                       NULL, vllm_chunked),
    S("--disable-hybrid-kv-cache-manager", NULL, KVB__FLAG_ON,
      disable_hybrid_kv_cache),
    S("--enable-expert-parallel|-ep", NULL, KVB__FLAG_ON,
      enable_expert_parallel),
    S("--kv-cache-memory|--kv-cache-memory-bytes", NULL, KVB__FLAG_SIZE,
      kv_cache_memory_bytes),
    KVB__FLAG_SET(NULL, "VLLM_USE_V1", vllm_use_v1),
    KVB__FLAG_SET("--limit-mm-per-prompt|--limit-mm-per-prompt.image|"
                  "--limit-mm-per-prompt.video|--limit-mm-per-prompt.audio",
                  NULL, vllm_limit_mm),
    KVB__FLAG_SET_BARE("--language-model-only", NULL, vllm_lm_only),
    KVB__FLAG_SET("--mm-encoder-tp-mode", NULL, vllm_mm_tp_mode),
    KVB__FLAG_SET_BARE("--enable-multimodal-encoder-data-parallel", NULL,
                       vllm_mm_tp_mode),
    KVB__FLAG_SKIP(
        "--tokenizer|--revision|--tokenizer-revision|"
        "--tokenizer-mode|--served-model-name|--host|--port|"
        "--api-key|--download-dir|--load-format|--seed|"
        "--swap-space|--max-logprobs|--chat-template|"
        "--tool-call-parser|--reasoning-parser|"
        "--distributed-executor-backend|--uvicorn-log-level|"
        "--generation-config|--override-generation-config|"
        "--hf-overrides|"
        "--mm-processor-kwargs|--max-lora-rank|--max-loras|"
        "--lora-modules|--config|--compilation-config|-O|"
        "--speculative-config|--root-path|--middleware|"
        "--response-role|--ssl-keyfile|--ssl-certfile|"
        "--allowed-origins|--max-seq-len-to-capture|"
        "--num-scheduler-steps|--cpu-offload-gb|"
        "--max-parallel-loading-workers|--guided-decoding-backend|"
        "--num-gpu-blocks-override|--preemption-mode|"
        "--scheduling-policy|--worker-cls|--chat-template-content-format|"
        /* hybrids (vllm/config/cache.py): the state dtypes (the model's
         * ssm_state_dtype stands for them), the cache mode (PR #30877)
         * and the Mamba block (PR #27289); the plan takes each release's
         * default mode, docs/model.md "Planning a hybrid on vLLM" */
        "--mamba-cache-dtype|--mamba-ssm-cache-dtype|--mamba-cache-mode|"
        "--mamba-block-size",
        NULL),
    KVB__FLAG_SKIP_BARE(
        "--trust-remote-code|--enable-prefix-caching|"
        "--no-enable-prefix-caching|--disable-log-requests|"
        "--disable-log-stats|--enable-auto-tool-choice|--enable-lora|"
        "--disable-custom-all-reduce|--disable-frontend-multiprocessing|"
        "--enable-log-requests|--disable-sliding-window|"
        "--enable-sleep-mode|--async-scheduling|--headless",
        NULL),
};
#undef S
#undef C

/* vllm/engine/arg_utils.py: every remedy, every weight format (GGUF
 * through --quantization gguf). */
static const char *vllm_remedy(int32_t kind, int32_t quant)
{
    (void)quant;
    switch (kind) {
    case KVB_FIX_MAX_MODEL_LEN: return "--max-model-len";
    case KVB_FIX_UTILIZATION: return "--gpu-memory-utilization";
    case KVB_FIX_ENFORCE_EAGER: return "--enforce-eager";
    case KVB_FIX_KV_CACHE_FP8: return "--kv-cache-dtype fp8";
    case KVB_FIX_QUANTIZE: return "--quantization";
    case KVB_FIX_TENSOR_PARALLEL: return "--tensor-parallel-size";
    default: return NULL;
    }
}

const kvb__engine kvb__engine_vllm = {
    .id = KVB_ENGINE_VLLM,
    .name = "vllm",
    .display = "vLLM",
    .variant = vllm_variant,
    .accounting = vllm_accounting_of,
    .defaults = vllm_defaults,
    .check = vllm_check,
    .requested_bytes = kvb__vllm_requested_bytes,
    .cuda_context = kvb__vllm_cuda_context,
    .non_torch = kvb__vllm_non_torch,
    .startup_reserved = kvb__vllm_startup_reserved,
    .cudagraph = kvb__vllm_cudagraph_layers,
    .graphs_in_budget = vllm_graphs_in_budget,
    .weights_gpu_key = kvb__vllm_weights_gpu_key,
    .loaded_weights = kvb__vllm_loaded_weights,
    .activation = kvb__vllm_activation,
    .hybrid_kv = vllm_hybrid,
    .num_blocks = kvb__vllm_num_blocks,
    .needed_bytes = kvb__vllm_needed_bytes,
    .report = kvb__vllm_report,
    .fit_len = kvb__vllm_fit_len,
    .startup_check = vllm_startup_check,
    .finish = vllm_finish,
    .len_fails = vllm_len_fails,
    .error_text = kvb__vllm_error_text,
    .render_args = vllm_render_args,
    .remedy = vllm_remedy,
    .detect = vllm_detect,
    .flags = vllm_flags,
    .flag_count = KVB__ARRAY_LEN(vllm_flags),
    .underscores = true,
    .abbrev = true, /* FlexibleArgumentParser keeps argparse's default */
    .positional_model = true,
    .recurrent = true, /* hybrid_check refuses the releases not modelled */
    .recurrent_since = "0.10.2",
    .sparse_indexer = true, /* indexer_check refuses what is not modelled */
    .sparse_indexer_since = "0.11.0",
    .cross_attention = true, /* cross_check refuses the releases without it */
    .kv_sharing = true,      /* gemma3n_check refuses what is not modelled */
};
