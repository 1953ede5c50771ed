/*
 * plan.c -- the capacity plan: every stage put together, and the verdict.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

kvb_status kvb_plan_init(kvb_plan *plan, size_t struct_size)
{
    return kvb__struct_init(plan, struct_size, sizeof *plan, "plan");
}

const char *kvb_verdict_name(int verdict)
{
    switch (verdict) {
#define KVB__VERDICT_CODE(name, num, code, text)                               \
    case KVB_VERDICT_##name:                                                   \
        return code;
        KVB_VERDICT_MAP(KVB__VERDICT_CODE)
#undef KVB__VERDICT_CODE
    default:
        return NULL;
    }
}

const char *kvb_verdict_reason(int verdict)
{
    switch (verdict) {
#define KVB__VERDICT_TEXT(name, num, code, text)                               \
    case KVB_VERDICT_##name:                                                   \
        return text;
        KVB_VERDICT_MAP(KVB__VERDICT_TEXT)
#undef KVB__VERDICT_TEXT
    default:
        return NULL;
    }
}

/* ---- parallelism ---- */

static bool parallelism_message(const kvb_model *m, const kvb_gpu *g,
                                const kvb_serving *s, char *msg, size_t cap)
{
    uint32_t tp = s->tensor_parallel_size, pp = s->pipeline_parallel_size;
    uint32_t kv = m->num_key_value_heads;
    if ((uint64_t)tp * pp > g->count)
        snprintf(msg, cap, "tensor_parallel_size %u x pipeline_parallel_size "
                           "%u needs %u GPUs; %u available",
                 tp, pp, tp * pp, g->count);
    else if (m->num_attention_heads % tp != 0)
        snprintf(msg, cap, "Total number of attention heads (%u) must be "
                           "divisible by tensor parallel size (%u).",
                 m->num_attention_heads, tp);
    else if (!kvb__is_mla(m) && (kv >= tp ? kv % tp : tp % kv) != 0)
        snprintf(msg, cap, "num_key_value_heads (%u) and "
                           "tensor_parallel_size (%u) must divide one another",
                 kv, tp);
    else if (pp > m->num_hidden_layers)
        snprintf(msg, cap, "pipeline_parallel_size %u exceeds the %u layers",
                 pp, m->num_hidden_layers);
    else if (m->intermediate_size % tp != 0 ||
             (!s->enable_expert_parallel && m->moe_intermediate_size % tp))
        snprintf(msg, cap, "tensor_parallel_size %u does not divide the MLP "
                           "width (%llu / %llu)",
                 tp, (unsigned long long)m->intermediate_size,
                 (unsigned long long)m->moe_intermediate_size);
    else
        return false;
    return true;
}

/* ---- one pipeline stage ---- */


typedef struct stage_result {
    uint64_t weights, activation, cudagraph;
    int64_t available; /* may be negative */
    uint64_t num_blocks, needed, fit;
    kvb__kv_stage ks;
} stage_result;

static kvb_status plan_stage(const kvb__engine_in *in, uint32_t stage,
                             uint64_t requested, uint64_t non_torch,
                             stage_result *r, kvb_error *err)
{
    const kvb_serving *s = &in->s;
    uint32_t first, last;
    kvb__pp_layers(in->model->num_hidden_layers, stage,
                   s->pipeline_parallel_size, &first, &last);
    kvb_status st = kvb__stage_weights(
        in->model, in->quant, s->tensor_parallel_size,
        s->pipeline_parallel_size, stage, s->enable_expert_parallel != 0,
        &r->weights, err);
    if (st)
        return st;
    if (s->weights_bytes && in->inventory_bytes) /* exact bytes from a file */
        r->weights = (uint64_t)((double)r->weights * (double)s->weights_bytes /
                                (double)in->inventory_bytes);
    r->weights = s->loaded_weights_bytes
                     ? s->loaded_weights_bytes
                     : kvb__vllm_loaded_weights(in, stage, r->weights);
    r->activation = kvb__vllm_activation(in, stage);
    r->cudagraph = kvb__vllm_cudagraph(in, stage);
    bool hybrid = in->accounting != KVB_ACCOUNTING_VLLM_V0 &&
                  !s->disable_hybrid_kv_cache;
    kvb__kv_stage_make(in->model, in->quant, s->tensor_parallel_size, first,
                       last, s->block_size, hybrid, &r->ks);
    uint64_t non_kv = r->weights + r->activation + non_torch;
    if (in->accounting == KVB_ACCOUNTING_VLLM_V1_021)
        non_kv += r->cudagraph;
    if (s->kv_cache_memory_bytes)
        r->available = (int64_t)s->kv_cache_memory_bytes;
    else
        r->available = (int64_t)requested - (int64_t)non_kv;
    uint64_t avail = r->available > 0 ? (uint64_t)r->available : 0;
    r->num_blocks = kvb__vllm_num_blocks(in, &r->ks, avail);
    r->needed = kvb__vllm_needed_bytes(in, &r->ks, s->max_model_len);
    r->fit = kvb__vllm_fit_len(in, &r->ks, avail, r->num_blocks);
    return KVB_OK;
}

/* ---- verdict ---- */

static void say(kvb_plan *p, int32_t verdict, const char *fmt, ...)
    KVB__PRINTF(3, 4);

static void say(kvb_plan *p, int32_t verdict, const char *fmt, ...)
{
    p->verdict = verdict;
    p->fits = verdict == KVB_VERDICT_FITS;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->message, sizeof p->message, fmt, ap);
    va_end(ap);
}

static bool engine_checks_len(const kvb__engine_in *in)
{
    /* vLLM checks max_model_len against the KV cache from 0.2.7 (PR
     * #2163); 0.2.6 and earlier started and hung on long sequences. */
    return in->version == 0 || in->version >= 207;
}

static void verdict_budget(const kvb__engine_in *in, kvb_plan *p,
                           const stage_result *r)
{
    uint64_t need_len = p->max_model_len;
    bool v0 = in->accounting == KVB_ACCOUNTING_VLLM_V0;
    bool len_fails =
        v0 ? need_len > (uint64_t)p->block_size *
                            (p->num_blocks / p->pipeline_parallel_size)
           : r->needed > (uint64_t)(r->available > 0 ? r->available : 0);
    if (r->available <= 0 || p->num_blocks == 0) {
        say(p, KVB_VERDICT_NO_KV_MEMORY,
            "no memory left for KV cache: weights %.2f + activations %.2f + "
            "non-torch %.2f%s GiB leave %.2f of the %.2f GiB usable",
            KVB__GIB(p->weights_bytes_per_gpu),
            KVB__GIB(p->activation_bytes_per_gpu),
            KVB__GIB(p->non_torch_bytes_per_gpu),
            p->cudagraph_in_budget ? " + CUDA graphs" : "",
            r->available < 0 ? -KVB__GIB(p->kv_shortfall_bytes_per_gpu) : 0.0,
            KVB__GIB(p->usable_bytes_per_gpu));
    } else if (len_fails && engine_checks_len(in)) {
        say(p, KVB_VERDICT_MAX_LEN_EXCEEDS_KV,
            "max_model_len %llu needs %.2f GiB of KV cache per GPU but %.2f "
            "GiB is available; the largest max_model_len that fits is %llu",
            (unsigned long long)need_len, KVB__GIB(p->kv_needed_bytes_per_gpu),
            KVB__GIB(p->kv_budget_bytes_per_gpu),
            (unsigned long long)p->max_model_len_fit);
    } else if (!p->cudagraph_in_budget && p->cudagraph_bytes_per_gpu &&
               p->headroom_bytes_per_gpu == 0) {
        say(p, KVB_VERDICT_HEADROOM_TOO_SMALL,
            "CUDA graphs need about %.2f GiB outside the %.2f GiB budget, "
            "but utilization %g leaves too little after the CUDA context",
            KVB__GIB(p->cudagraph_bytes_per_gpu),
            KVB__GIB(p->usable_bytes_per_gpu), p->gpu_memory_utilization);
    } else if (p->max_concurrency < (double)p->concurrency ||
               p->concurrency > p->max_num_seqs) {
        say(p, KVB_VERDICT_CONCURRENCY_EXCEEDS,
            "holds %.2f requests of %llu tokens at once (max_num_seqs %u); "
            "wanted %u",
            p->max_concurrency, (unsigned long long)need_len,
            p->max_num_seqs, p->concurrency);
    } else {
        say(p, KVB_VERDICT_FITS,
            "fits: %.2fx concurrency at max_model_len %llu (%llu KV tokens, "
            "%.2f GiB KV cache per GPU)",
            p->max_concurrency, (unsigned long long)need_len,
            (unsigned long long)p->max_kv_tokens,
            KVB__GIB(p->kv_budget_bytes_per_gpu));
    }
}

static bool verdict_start(const kvb__engine_in *in, kvb_plan *p)
{
    bool v0 = in->accounting == KVB_ACCOUNTING_VLLM_V0;
    if (!v0 && !in->s.kv_cache_memory_bytes &&
        p->usable_bytes_per_gpu > p->startup_free_bytes_per_gpu) {
        say(p, KVB_VERDICT_HEADROOM_TOO_SMALL,
            "utilization %g asks for %.2f GiB per GPU but only %.2f GiB is "
            "free at start-up (CUDA context and other processes)",
            p->gpu_memory_utilization, KVB__GIB(p->usable_bytes_per_gpu),
            KVB__GIB(p->startup_free_bytes_per_gpu));
        return true;
    }
    uint64_t room = p->gpu_total_bytes - p->cuda_context_bytes_per_gpu;
    if (p->weights_bytes_per_gpu > room ||
        (!in->s.kv_cache_memory_bytes &&
         p->weights_bytes_per_gpu >= p->usable_bytes_per_gpu)) {
        say(p, KVB_VERDICT_WEIGHTS_EXCEED,
            "weights need %.2f GiB per GPU but only %.2f GiB is usable "
            "(%.2f GiB x %g)",
            KVB__GIB(p->weights_bytes_per_gpu),
            KVB__GIB(p->usable_bytes_per_gpu), KVB__GIB(p->gpu_total_bytes),
            p->gpu_memory_utilization);
        return true;
    }
    return false;
}

/* ---- putting it together ---- */

static void plan_settings(const kvb__engine_in *in, kvb_plan *p)
{
    const kvb_serving *s = &in->s;
    p->engine = s->engine;
    p->engine_version = s->engine_version;
    p->accounting = in->accounting;
    p->gpu_memory_utilization = s->gpu_memory_utilization;
    p->gpu_total_bytes = in->gpu->total_bytes;
    p->tensor_parallel_size = s->tensor_parallel_size;
    p->pipeline_parallel_size = s->pipeline_parallel_size;
    p->max_model_len = s->max_model_len;
    p->block_size = s->block_size;
    p->max_num_seqs = s->max_num_seqs;
    p->max_num_batched_tokens = s->max_num_batched_tokens;
    p->concurrency = s->concurrency;
}

static kvb_status plan_model(kvb__engine_in *in, kvb_plan *p,
                             kvb_error *err)
{
    uint64_t bytes = 0;
    kvb_status st = kvb__weights_total(in->model, in->quant, &bytes, NULL, err);
    if (st)
        return st;
    kvb__model_params(in->model, &p->param_count, NULL);
    p->weights_bytes = in->s.weights_bytes ? in->s.weights_bytes : bytes;
    in->inventory_bytes = bytes;
    kvb__kv_bytes(in->model, in->quant, in->s.tensor_parallel_size,
                  in->s.pipeline_parallel_size, &p->kv_bytes_per_token,
                  &p->kv_bytes_per_token_per_gpu);
    return KVB_OK;
}

static void plan_fill_stage(const kvb__engine_in *in, kvb_plan *p,
                            const stage_result *r)
{
    p->activation_bytes_per_gpu = r->activation;
    p->cudagraph_bytes_per_gpu = r->cudagraph;
    p->kv_budget_bytes_per_gpu = r->available > 0 ? (uint64_t)r->available : 0;
    p->kv_shortfall_bytes_per_gpu =
        r->available < 0 ? (uint64_t)(-r->available) : 0;
    p->block_bytes_per_gpu = r->ks.page_bytes * r->ks.group_size;
    p->kv_cache_groups = r->ks.n_groups;
    p->num_blocks = r->num_blocks;
    p->kv_needed_bytes_per_gpu = r->needed;
    p->max_model_len_fit = r->fit;
    kvb__vllm_report(in, &r->ks, r->num_blocks, &p->max_kv_tokens,
                     &p->max_concurrency);
    uint64_t outside = p->cuda_context_bytes_per_gpu +
                       (p->cudagraph_in_budget ? 0 : r->cudagraph);
    uint64_t left = p->gpu_total_bytes - p->usable_bytes_per_gpu;
    p->headroom_bytes_per_gpu = left > outside ? left - outside : 0;
}

static kvb_status plan_stages(const kvb__engine_in *in, kvb_plan *p,
                              kvb_error *err)
{
    uint64_t requested = p->usable_bytes_per_gpu;
    stage_result best = {0}, r;
    bool have = false;
    for (uint32_t s = 0; s < in->s.pipeline_parallel_size; s++) {
        kvb_status st =
            plan_stage(in, s, requested, p->non_torch_bytes_per_gpu, &r, err);
        if (st)
            return st;
        p->weights_bytes_per_gpu = kvb__max(p->weights_bytes_per_gpu,
                                            r.weights);
        /* vLLM takes the smallest block count over the workers. */
        if (!have || r.num_blocks < best.num_blocks ||
            (r.num_blocks == best.num_blocks && r.available < best.available))
            best = r;
        have = true;
    }
    plan_fill_stage(in, p, &best);
    if (!verdict_start(in, p))
        verdict_budget(in, p, &best);
    return KVB_OK;
}

static kvb_status load_inputs(const kvb_model *model, const kvb_quant *quant,
                              const kvb_gpu *gpu, const kvb_serving *serving,
                              kvb_model *m, kvb_quant *q, kvb_gpu *g,
                              kvb_serving *s, kvb_error *err)
{
    kvb_status st = kvb__model_load(model, m, err);
    if (!st)
        st = kvb__quant_load(quant, q, err);
    if (!st)
        st = kvb__gpu_load(gpu, g, err);
    if (!st)
        st = kvb__serving_load(serving, s, err);
    if (!st && s->max_model_len > m->max_position_embeddings)
        st = kvb__fail(err, KVB_ERANGE, "serving.max_model_len",
                       "serving.max_model_len (%llu) is greater than the "
                       "model's max_position_embeddings (%llu); allowed: "
                       "1..%llu",
                       (unsigned long long)s->max_model_len,
                       (unsigned long long)m->max_position_embeddings,
                       (unsigned long long)m->max_position_embeddings);
    return st;
}

kvb_status kvb_plan_compute(const kvb_model *model, const kvb_quant *quant,
                            const kvb_gpu *gpu, const kvb_serving *serving,
                            kvb_plan *plan, kvb_error *err)
{
    kvb_model m;
    kvb_quant q;
    kvb_gpu g;
    kvb_plan p;
    kvb__engine_in in = {&m, &q, &g, {0}, 0, 0, 0};
    kvb_status st =
        load_inputs(model, quant, gpu, serving, &m, &q, &g, &in.s, err);
    if (!st)
        st = kvb__struct_in(plan, sizeof p, &p, "plan", err);
    if (st)
        return st;
    memset((char *)&p + sizeof p.struct_size, 0,
           sizeof p - sizeof p.struct_size);
    in.version = in.s.engine_version;
    in.accounting = kvb__vllm_accounting(in.version);
    kvb__vllm_defaults(&in);
    plan_settings(&in, &p);
    st = plan_model(&in, &p, err);
    if (st)
        return st;
    p.usable_bytes_per_gpu = kvb__vllm_requested_bytes(&in);
    p.cuda_context_bytes_per_gpu = kvb__vllm_cuda_context(&in);
    p.non_torch_bytes_per_gpu = kvb__vllm_non_torch(&in);
    p.cudagraph_in_budget = in.accounting == KVB_ACCOUNTING_VLLM_V1_021 &&
                            !in.s.enforce_eager;
    uint64_t reserved = kvb__vllm_startup_reserved(&in);
    p.startup_free_bytes_per_gpu =
        g.free_bytes ? g.free_bytes
                     : (g.total_bytes > reserved ? g.total_bytes - reserved
                                                 : 0);
    char why[256];
    if (parallelism_message(&m, &g, &in.s, why, sizeof why)) {
        say(&p, KVB_VERDICT_PARALLELISM_INVALID, "%s", why);
    } else {
        st = plan_stages(&in, &p, err);
        if (st == KVB_EUNSUPPORTED && in.s.tensor_parallel_size > 1) {
            say(&p, KVB_VERDICT_PARALLELISM_INVALID, "%s", err ? err->message
                                                               : "quantized "
                                                                 "shapes do not "
                                                                 "split");
            kvb__clear(err);
            st = KVB_OK;
        }
        if (st)
            return st;
    }
    kvb__struct_out(&p, sizeof p, plan);
    return KVB_OK;
}

kvb_status kvb_plan_engine_error(const kvb_plan *plan, char *buf, size_t cap,
                                 size_t *needed, kvb_error *err)
{
    kvb_plan p;
    kvb_status st = kvb__struct_in(plan, sizeof p, &p, "plan", err);
    if (st)
        return st;
    p.message[sizeof p.message - 1] = '\0';
    return kvb__vllm_error_text(&p, buf, cap, needed, err);
}
