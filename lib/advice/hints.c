/*
 * advice/hints.c -- what a plan that works still leaves on the table, or
 * what will fail that the memory arithmetic does not show: GPUs that sit
 * idle, a max-model-len far above what the requests need, a utilization
 * that leaves the CUDA context no room, a format the GPU cannot run.
 * Every figure in a hint is re-planned, not guessed.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define GIB(b) KVB__GIB(b)

typedef struct hbuf {
    char *buf;
    size_t cap, len;
} hbuf;

static void say(hbuf *h, const char *fmt, ...) KVB__PRINTF(2, 3);

static void say(hbuf *h, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    for (const char *p = line; *p; p++, h->len++)
        if (h->len + 1 < h->cap)
            h->buf[h->len] = *p;
    if (h->cap)
        h->buf[h->len < h->cap ? h->len : h->cap - 1] = '\0';
}

/* A re-plan with one change; false when it cannot be planned. */
static bool replan(const kvb_model *m, const kvb_quant *q, const kvb_gpu *g,
                   const kvb_serving *s, kvb_plan *p)
{
    KVB__CANNOT_FAIL(kvb_plan_init(p, sizeof *p));
    return kvb_plan_compute(m, q, g, s, p, NULL) == KVB_OK;
}

static void idle_gpus(const kvb_model *m, const kvb_quant *q, const kvb_gpu *g,
                      const kvb_serving *s, const kvb_plan *p, hbuf *h)
{
    uint32_t dp = p->data_parallel_size ? p->data_parallel_size : 1;
    uint64_t used =
        (uint64_t)p->tensor_parallel_size * p->pipeline_parallel_size * dp;
    if (g->count <= used)
        return;
    uint32_t idle = g->count - (uint32_t)used;
    /* the largest TP (a power of two) the GPUs give, that plans */
    kvb_serving t = *s;
    kvb_plan tp;
    uint32_t best = 0;
    for (uint32_t n = p->tensor_parallel_size * 2;
         (uint64_t)n * p->pipeline_parallel_size * dp <= g->count; n *= 2) {
        t.tensor_parallel_size = n;
        t.non_torch_bytes = t.activation_bytes = t.cudagraph_bytes =
            KVB_AUTO_BYTES;
        t.loaded_weights_bytes = 0;
        if (replan(m, q, g, &t, &tp) &&
            tp.verdict != KVB_VERDICT_PARALLELISM_INVALID)
            best = n;
    }
    say(h, "%u of the %u GPUs %s idle: the plan uses %llu.", idle, g->count,
        idle == 1 ? "sits" : "sit", (unsigned long long)used);
    if (best) {
        t.tensor_parallel_size = best;
        t.non_torch_bytes = t.activation_bytes = t.cudagraph_bytes =
            KVB_AUTO_BYTES;
        t.loaded_weights_bytes = 0;
        if (replan(m, q, g, &t, &tp))
            say(h,
                "  Tensor parallel %u over them holds %llu KV tokens "
                "(%.2fx concurrency at %llu) instead of %llu",
                best, (unsigned long long)tp.max_kv_tokens, tp.max_concurrency,
                (unsigned long long)tp.max_model_len,
                (unsigned long long)p->max_kv_tokens);
    }
    if (p->fits && g->count / used >= 2)
        say(h,
            "%s or %llu replicas (data parallel) serve %llu times the "
            "requests",
            best ? ";" : " ", (unsigned long long)(g->count / used),
            (unsigned long long)(g->count / used));
    say(h, ".\n");
}

static void long_context(const kvb_model *m, const kvb_quant *q,
                         const kvb_gpu *g, const kvb_serving *s,
                         const kvb_plan *p, hbuf *h)
{
    /* only when max-model-len was left at the model's own maximum */
    if (s->max_model_len || p->max_model_len < 32768 ||
        p->verdict == KVB_VERDICT_WEIGHTS_EXCEED ||
        p->verdict == KVB_VERDICT_NO_KV_MEMORY ||
        p->verdict == KVB_VERDICT_PARALLELISM_INVALID ||
        p->verdict == KVB_VERDICT_HEADROOM_TOO_SMALL)
        return;
    kvb_serving t = *s;
    kvb_plan short_p;
    t.max_model_len = 8192;
    if (!replan(m, q, g, &t, &short_p))
        return;
    say(h,
        "max-model-len is the model's maximum (%llu tokens) because it was "
        "not given: every request may grow that long, so the KV cache holds "
        "%.2f of them.  If requests stay near 8192 tokens, "
        "--max-model-len 8192 holds %.2f at once.\n",
        (unsigned long long)p->max_model_len, p->max_concurrency,
        short_p.max_concurrency);
}

static void no_headroom(const kvb_plan *p, hbuf *h)
{
    if (p->verdict == KVB_VERDICT_HEADROOM_TOO_SMALL ||
        p->verdict == KVB_VERDICT_WEIGHTS_EXCEED ||
        p->headroom_bytes_per_gpu >= ((uint64_t)256 << 20) ||
        !p->gpu_total_bytes)
        return;
    double room = (double)(p->gpu_total_bytes - p->cuda_context_bytes_per_gpu -
                           ((uint64_t)512 << 20)) /
                  (double)p->gpu_total_bytes;
    say(h,
        "utilization %.2f leaves %.2f GiB outside the budget next to the "
        "%.2f GiB CUDA context: a sampler buffer, NCCL or fragmentation "
        "can still run out of memory; about %.2f leaves half a GiB.\n",
        p->gpu_memory_utilization, GIB(p->headroom_bytes_per_gpu),
        GIB(p->cuda_context_bytes_per_gpu), (double)(int)(room * 100) / 100.0);
}

static int32_t weights_dtype(const kvb_model *m, const kvb_quant *q)
{
    if (q->dtype != KVB_DTYPE_AUTO)
        return q->dtype;
    return m->dtype;
}

/* Which MXFP4 MoE kernel vLLM picks (Mxfp4MoEMethod; engines/vllm.c
 * mxfp4_backend models the padding each one needs). */
static void mxfp4_kernel(const char *gpu, uint32_t cc, hbuf *h)
{
    const char *kernel =
        cc >= 100 && cc < 110
            ? "FlashInfer's MXFP4 MoE kernel (experts padded to 256)"
        : cc >= 90 && cc < 100
            ? "the Triton MoE kernels (0.11.1 and later; Marlin before)"
            : "Marlin, weight-only (FP4 weights, 16-bit compute; experts "
              "padded to 128 x 256)";
    say(h,
        "the %s (compute capability %u.%u) runs the MXFP4 experts with %s; "
        "the padding is in the weights.\n",
        gpu, cc / 10, cc % 10, kernel);
}

/* NVFP4, W4A16 and W8A8 INT8 by architecture, as vLLM selects kernels:
 * NVFP4 compute needs 10.0 (CUTLASS / FlashInfer FP4); from 0.9.0 (PR
 * #17687, FP4 Marlin) older GPUs from 8.0 run the weights weight-only;
 * W4A16 runs on Marlin (8.0, cp.async); W8A8 INT8 on CUTLASS int8
 * scaled_mm (7.5). */
static void fp4_int_support(int32_t method, const char *gpu, uint32_t cc,
                            hbuf *h)
{
    if (method == KVB_QUANT_NVFP4 && cc < 80)
        say(h,
            "the %s (compute capability %u.%u) cannot run NVFP4 weights in "
            "vLLM (FP4 compute needs 10.0, the Marlin FP4 fallback 8.0): "
            "use AWQ or GPTQ instead.\n",
            gpu, cc / 10, cc % 10);
    else if (method == KVB_QUANT_NVFP4 && cc < 100)
        say(h,
            "the %s (compute capability %u.%u) has no FP4 compute: vLLM "
            "0.9 and later run NVFP4 weights weight-only through Marlin "
            "(4-bit weights, 16-bit activations), so memory is saved but "
            "not time; older releases refuse.\n",
            gpu, cc / 10, cc % 10);
    if (method == KVB_QUANT_W4A16 && cc < 80)
        say(h,
            "the %s (compute capability %u.%u) is below the 8.0 vLLM's "
            "Marlin W4A16 kernel needs: only a release whose fallback "
            "kernel takes this layout runs it (check before deploying).\n",
            gpu, cc / 10, cc % 10);
    if (method == KVB_QUANT_W8A8_INT8 && cc < 75)
        say(h,
            "the %s (compute capability %u.%u) cannot run W8A8 INT8 in vLLM "
            "(int8 GEMM needs 7.5): use AWQ or GPTQ instead.\n",
            gpu, cc / 10, cc % 10);
}

static void format_support(const kvb_model *m, const kvb_quant *q,
                           const kvb_gpu *g, hbuf *h)
{
    uint32_t cc = g->compute_capability;
    const char *gpu = g->name[0] ? g->name : "this GPU";
    if (!cc)
        return;
    int32_t d = weights_dtype(m, q);
    int32_t method = q->method;
    bool bf16 = (method == KVB_QUANT_AUTO || method == KVB_QUANT_BF16 ||
                 method == KVB_QUANT_AWQ_4 || method == KVB_QUANT_GPTQ_4 ||
                 method == KVB_QUANT_GPTQ_8 || method == KVB_QUANT_FP8 ||
                 method == KVB_QUANT_W4A16 || method == KVB_QUANT_W8A8_INT8 ||
                 method == KVB_QUANT_NVFP4 || method == KVB_QUANT_BNB_8) &&
                (method == KVB_QUANT_BF16 || d == KVB_DTYPE_BF16);
    if (bf16 && cc < 80)
        say(h,
            "the %s (compute capability %u.%u) has no bfloat16: vLLM "
            "refuses to start with this model's bfloat16; add --dtype half "
            "(same bytes).\n",
            gpu, cc / 10, cc % 10);
    if (method == KVB_QUANT_FP8 && cc < 80)
        say(h,
            "the %s (compute capability %u.%u) cannot run FP8 weights "
            "(weight-only FP8 needs 8.0, FP8 compute 8.9): use AWQ or GPTQ "
            "instead.\n",
            gpu, cc / 10, cc % 10);
    else if (method == KVB_QUANT_FP8 && cc < 89)
        say(h,
            "the %s (compute capability %u.%u) has no FP8 compute: vLLM "
            "runs these FP8 weights weight-only (Marlin), so memory is "
            "saved but not time.\n",
            gpu, cc / 10, cc % 10);
    if ((method == KVB_QUANT_AWQ_4 || method == KVB_QUANT_GPTQ_4 ||
         method == KVB_QUANT_GPTQ_8) &&
        cc < 75)
        say(h,
            "the %s (compute capability %u.%u) is below what vLLM's %s "
            "kernels need (7.5; Marlin 8.0).\n",
            gpu, cc / 10, cc % 10, kvb_quant_method_name(method));
    if (method == KVB_QUANT_MXFP4 && cc < 80)
        say(h,
            "the %s (compute capability %u.%u) cannot run MXFP4 weights "
            "(8.0 or newer).\n",
            gpu, cc / 10, cc % 10);
    else if (method == KVB_QUANT_MXFP4 && m->num_experts)
        mxfp4_kernel(gpu, cc, h);
    fp4_int_support(method, gpu, cc, h);
    if (q->kv_cache_dtype == KVB_DTYPE_FP8 && cc < 80)
        say(h,
            "the %s (compute capability %u.%u) has no FP8 KV cache kernels "
            "(8.0 or newer).\n",
            gpu, cc / 10, cc % 10);
}

kvb_status kvb_plan_hints(const kvb_model *model, const kvb_quant *quant,
                          const kvb_gpu *gpu, const kvb_serving *serving,
                          const kvb_plan *plan, char *buf, size_t cap,
                          size_t *needed, kvb_error *err)
{
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
    kvb_plan p;
    kvb_status st = kvb__quant_load(quant, &q, err);
    if (!st)
        st = kvb__gpu_load(gpu, &g, err);
    if (!st)
        st = kvb__serving_load(serving, &s, err);
    if (!st)
        st = kvb__struct_in(plan, sizeof p, &p, "plan", err);
    if (st)
        return st;
    if (!model)
        return kvb__fail(err, KVB_EINVAL, "model", "model is NULL");
    if (!buf && cap)
        return kvb__fail(err, KVB_EINVAL, "buf", "buf is NULL but cap is %zu",
                         cap);
    char scratch[1];
    hbuf h = {cap ? buf : scratch, cap ? cap : 1, 0};
    h.buf[0] = '\0';
    idle_gpus(model, &q, &g, &s, &p, &h);
    long_context(model, &q, &g, &s, &p, &h);
    no_headroom(&p, &h);
    format_support(model, &q, &g, &h);
    if (needed)
        *needed = h.len + 1;
    if (h.len >= cap)
        return kvb__fail(err, KVB_EBUFSIZE, "buf",
                         "buf (%zu bytes) is too small; allowed: >= %zu", cap,
                         h.len + 1);
    return KVB_OK;
}
