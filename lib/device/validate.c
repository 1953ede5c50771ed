/*
 * device/validate.c -- allocate on a device what a plan predicts, the way vLLM
 * allocates it, and compare the fall in free memory with the prediction.
 *
 * The logic runs over kvb__devmem (internal.h), so the order of the
 * allocations, the accounting of the observed deltas, the freeing on
 * every path and the tightness check are unit-tested on the CPU against a
 * fake device (tests/unit/test_validate.c); probe.c supplies the real one
 * over the CUDA driver.  Method and results: docs/validation.md.
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Allowed |observed - predicted| / predicted for weights and KV cache. */
#define TOLERANCE 0.01
/* "A few percent more does not fit." */
#define OVER_FRACTION 0.03
/* The driver maps device memory in 2 MiB pages, so an allocation can take
 * up to one page more than it asks for (docs/validation.md#rounding). */
#define PAGE_BYTES (2 * KVB__MIB)

/* ---- names ---- */

const char *kvb_stage_name(int stage)
{
    switch (stage) {
#define KVB__STAGE_CODE(name, num, code, text)                                 \
    case KVB_STAGE_##name: return code;
        KVB_STAGE_MAP(KVB__STAGE_CODE)
#undef KVB__STAGE_CODE
    default: return NULL;
    }
}

const char *kvb_stage_reason(int stage)
{
    switch (stage) {
#define KVB__STAGE_TEXT(name, num, code, text)                                 \
    case KVB_STAGE_##name: return text;
        KVB_STAGE_MAP(KVB__STAGE_TEXT)
#undef KVB__STAGE_TEXT
    default: return NULL;
    }
}

kvb_status kvb_validation_init(kvb_validation *v, size_t struct_size)
{
    kvb_status st = kvb__struct_init(v, struct_size, sizeof *v, "validation");
    if (!st) {
        v->device_index = -1;
        v->failed_stage = -1;
    }
    return st;
}

/* ---- the allocations held, as a stack ---- */

typedef struct run {
    const kvb__devmem *dev;
    uint64_t *held; /* handles, in allocation order */
    size_t n_held, cap;
} run;

static kvb_status info(run *r, uint64_t *free_bytes, kvb_error *err)
{
    uint64_t total = 0;
    return r->dev->mem_get_info(r->dev->ctx, free_bytes, &total, err);
}

/* Free everything above `mark`, newest first.  Every handle is freed even
 * when one fails; the first failure is the status. */
static kvb_status drop_to(run *r, size_t mark, kvb_error *err)
{
    kvb_status first = KVB_OK;
    while (r->n_held > mark) {
        uint64_t h = r->held[--r->n_held];
        kvb_status st = r->dev->release(r->dev->ctx, h, first ? NULL : err);
        if (st && !first)
            first = st;
    }
    return first;
}

/*
 * Allocate `n` buffers (sizes[i], or `each` when sizes is NULL) on top of
 * the stack.  *oom_bytes is the size that ran out of device memory, or 0.
 * On KVB_ENOMEM from the device the buffers of this call stay held (the
 * caller drops them); any other failure is returned.
 */
static kvb_status take(run *r, const uint64_t *sizes, size_t n, uint64_t each,
                       uint64_t *requested, uint64_t *oom_bytes, kvb_error *err)
{
    *requested = 0;
    *oom_bytes = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t bytes = sizes ? sizes[i] : each;
        if (bytes == 0)
            continue;
        if (r->n_held == r->cap)
            return kvb__fail(err, KVB_EINVAL, "validation",
                             "internal: more allocations than planned (%zu)",
                             r->cap);
        uint64_t h = 0;
        kvb_status st = r->dev->alloc(r->dev->ctx, bytes, &h, err);
        if (st == KVB_ENOMEM) {
            *oom_bytes = bytes;
            return KVB_OK;
        }
        if (st)
            return st;
        r->held[r->n_held++] = h;
        *requested += bytes;
    }
    return KVB_OK;
}

/* One stage: free memory before, the allocations, free memory after. */
static kvb_status stage(run *r, kvb_validation *v, int id, uint64_t predicted,
                        const uint64_t *sizes, size_t n, uint64_t each,
                        kvb_error *err)
{
    kvb_validation_stage *s = &v->stages[id];
    uint64_t before = 0, after = 0, oom = 0;
    s->predicted_bytes = predicted;
    kvb_status st = info(r, &before, err);
    if (!st)
        st = take(r, sizes, n, each, &s->requested_bytes, &oom, err);
    if (!st)
        st = info(r, &after, err);
    if (st)
        return st;
    for (size_t i = 0; i < n; i++)
        s->allocations += (sizes ? sizes[i] : each) != 0;
    s->allocated = oom == 0;
    s->observed_bytes = before > after ? before - after : 0;
    s->error = predicted ? ((double)s->observed_bytes - (double)predicted) /
                               (double)predicted
                         : 0.0;
    if (oom) {
        v->failed_stage = id;
        v->failed_bytes = oom;
    }
    return KVB_OK;
}

/* ---- what the plan says to allocate ---- */

typedef struct weights_list {
    kvb__quant_ctx qc;
    uint64_t *bytes; /* NULL: only count */
    size_t n;
    kvb_status st;
} weights_list;

/* Each tensor as one rank of TP 1 holds it (vocabulary padding included),
 * which is what kvb__stage_weights adds up. */
static int list_tensor(void *ctx, const kvb__tdesc *t)
{
    weights_list *w = ctx;
    if (w->bytes) {
        int32_t storage = kvb__storage_for(&w->qc, t);
        w->st = kvb__tensor_rank_bytes(t, storage, w->qc.model, w->qc.quant, 1,
                                       false, &w->bytes[w->n]);
        if (w->st)
            return 1;
    }
    w->n++;
    return 0;
}

static kvb_status weights_sizes(const kvb_model *m, const kvb_quant *q,
                                uint64_t **sizes, size_t *n, kvb_error *err)
{
    weights_list w = {{0}, NULL, 0, KVB_OK};
    kvb__quant_ctx_init(&w.qc, m, q);
    kvb__inventory_walk(m, list_tensor, &w);
    size_t count = w.n;
    *sizes = calloc(count ? count : 1, sizeof **sizes);
    if (!*sizes)
        return kvb__fail(err, KVB_ENOMEM, "host",
                         "out of host memory listing %zu tensors", count);
    w.bytes = *sizes;
    w.n = 0;
    kvb__quant_ctx_init(&w.qc, m, q);
    kvb__inventory_walk(m, list_tensor, &w);
    if (w.st) {
        free(*sizes);
        *sizes = NULL;
        return kvb__fail(err, w.st, "quant.method",
                         "quant.method (%s) cannot store a tensor of this "
                         "model",
                         kvb_quant_method_name(q->method));
    }
    *n = count;
    return KVB_OK;
}

/* ---- tightness ---- */

/* Allocate the KV tensors of `blocks` blocks on top of the stack, note
 * whether they fit and what stayed free, and free them again. */
static kvb_status kv_try(run *r, uint32_t tensors, uint64_t page,
                         uint64_t blocks, uint32_t *fits, uint64_t *free_left,
                         kvb_error *err)
{
    size_t mark = r->n_held;
    uint64_t requested = 0, oom = 0, each = 0;
    *fits = 0;
    if (!kvb__mul_ok(page, blocks, &each))
        return KVB_OK; /* cannot be allocated: does not fit */
    kvb_status st = take(r, NULL, tensors, each, &requested, &oom, err);
    if (!st && !oom) {
        *fits = 1;
        if (free_left)
            st = info(r, free_left, err);
    }
    kvb_status st2 = drop_to(r, mark, st ? NULL : err);
    return st ? st : st2;
}

static kvb_status tight_check(run *r, kvb_validation *v, size_t kv_mark,
                              const kvb_model *m, const kvb_quant *q,
                              const kvb_gpu *g, const kvb_serving *s,
                              uint64_t page, kvb_error *err)
{
    kvb_status st = drop_to(r, kv_mark, err); /* the KV cache of the run */
    if (st)
        return st;
    uint64_t allowance = (uint64_t)v->kv_tensors * PAGE_BYTES;
    for (int i = 0; i < KVB_STAGE_KV_CACHE; i++) {
        const kvb_validation_stage *x = &v->stages[i];
        if (x->observed_bytes > x->predicted_bytes)
            allowance += x->observed_bytes - x->predicted_bytes;
    }
    v->tight_allowance_bytes = allowance;
    v->tight_over_fraction = OVER_FRACTION;
    if (allowance >= v->free_start_bytes || v->kv_tensors == 0)
        return KVB_OK; /* nothing to check: tight_checked stays 0 */
    double u =
        (double)(v->free_start_bytes - allowance) / (double)v->total_bytes;
    kvb_serving s2 = *s;
    s2.gpu_memory_utilization = u;
    s2.kv_cache_memory_bytes = 0;
    kvb_plan p;
    KVB__CANNOT_FAIL(kvb_plan_init(&p, sizeof p));
    st = kvb_plan_compute(m, q, g, &s2, &p, err);
    if (st)
        return st;
    v->tight_checked = 1;
    v->tight_utilization = p.gpu_memory_utilization;
    v->tight_num_blocks = p.num_blocks;
    st = kv_try(r, v->kv_tensors, page, p.num_blocks, &v->tight_fits,
                &v->tight_free_bytes, err);
    if (st)
        return st;
    uint64_t over = (uint64_t)ceil((double)p.num_blocks * (1 + OVER_FRACTION));
    if (over <= p.num_blocks)
        over = p.num_blocks + 1;
    v->tight_over_num_blocks = over;
    st = kv_try(r, v->kv_tensors, page, over, &v->tight_over_fits, NULL, err);
    v->tight = v->tight_fits && !v->tight_over_fits;
    return st;
}

/* ---- the verdict ---- */

static void verdict(kvb_validation *v)
{
    const kvb_validation_stage *w = &v->stages[KVB_STAGE_WEIGHTS];
    const kvb_validation_stage *kv = &v->stages[KVB_STAGE_KV_CACHE];
    v->max_error = fmax(fabs(w->error), fabs(kv->error));
    v->valid = v->failed_stage < 0 && v->max_error <= v->tolerance && v->tight;
    if (v->failed_stage >= 0) {
        snprintf(v->message, sizeof v->message,
                 "invalid: out of device memory in the %s stage allocating "
                 "%.3f GiB (%.2f GiB free at start, plan verdict %s)",
                 kvb_stage_name(v->failed_stage), KVB__GIB(v->failed_bytes),
                 KVB__GIB(v->free_start_bytes),
                 kvb_verdict_name(v->plan_verdict));
        return;
    }
    char tight[160];
    if (!v->tight_checked)
        snprintf(tight, sizeof tight, "tightness not checked");
    else if (!v->tight_fits)
        snprintf(tight, sizeof tight,
                 "not tight: %llu blocks at utilization %.4f did not fit",
                 (unsigned long long)v->tight_num_blocks, v->tight_utilization);
    else if (v->tight_over_fits)
        snprintf(tight, sizeof tight,
                 "not tight: %llu blocks (+%.0f%%) fit as well",
                 (unsigned long long)v->tight_over_num_blocks,
                 v->tight_over_fraction * 100);
    else
        snprintf(tight, sizeof tight,
                 "tight: %llu blocks fit with %.2f GiB to spare, +%.0f%% did "
                 "not",
                 (unsigned long long)v->tight_num_blocks,
                 KVB__GIB(v->tight_free_bytes), v->tight_over_fraction * 100);
    snprintf(v->message, sizeof v->message,
             "%s: weights %+.2f%%, KV cache %+.2f%% (tolerance %.0f%%); %s",
             v->valid ? "valid" : "invalid", w->error * 100, kv->error * 100,
             v->tolerance * 100, tight);
}

/* ---- putting it together ---- */

typedef struct inputs {
    kvb_model m;
    kvb_quant q;
    kvb_serving s;
    kvb_gpu g;
} inputs;

/* The caller's inputs, checked before any device is touched. */
static kvb_status load(const kvb_model *model, const kvb_quant *quant,
                       const kvb_serving *serving, inputs *in, kvb_error *err)
{
    kvb_status st = kvb__model_load(model, &in->m, err);
    if (!st)
        st = kvb__quant_load(quant, &in->q, err);
    if (!st)
        st = kvb__serving_load(serving, &in->s, err);
    if (st)
        return st;
    if (in->s.tensor_parallel_size != 1 || in->s.pipeline_parallel_size != 1)
        return kvb__fail(
            err, KVB_EUNSUPPORTED,
            in->s.tensor_parallel_size != 1 ? "serving.tensor_parallel_size"
                                            : "serving.pipeline_parallel_size",
            "serving.tensor_parallel_size (%u) x "
            "pipeline_parallel_size (%u): validation runs on "
            "one GPU; allowed: 1 x 1",
            in->s.tensor_parallel_size, in->s.pipeline_parallel_size);
    return KVB_OK;
}

kvb_status kvb__validate_run(const kvb__devmem *dev, const kvb_gpu *gpu,
                             const kvb_model *model, const kvb_quant *quant,
                             const kvb_serving *serving, kvb_validation *out,
                             kvb_error *err)
{
    inputs in;
    kvb_validation v;
    if (!dev || !dev->mem_get_info || !dev->alloc || !dev->release)
        return kvb__fail(err, KVB_EINVAL, "device",
                         "device has no memory functions");
    kvb_status st = load(model, quant, serving, &in, err);
    if (!st) /* total and free come from the device; the plan checks */
        st = kvb__struct_in(gpu, sizeof in.g, &in.g, "gpu", err);
    if (!st)
        st = kvb__struct_in(out, sizeof v, &v, "validation", err);
    if (st)
        return st;
    memset((char *)&v + sizeof v.struct_size, 0,
           sizeof v - sizeof v.struct_size);
    v.device_index = -1;
    v.failed_stage = -1;
    v.tolerance = TOLERANCE;
    v.stage_count = KVB_STAGE_LAST_;
    kvb__strlcpy(v.device_name, in.g.name, sizeof v.device_name);

    /* The device as it is now: plan for its real total and free memory. */
    uint64_t total = 0;
    st = dev->mem_get_info(dev->ctx, &v.free_start_bytes, &total, err);
    if (st)
        return st;
    if (total == 0 || v.free_start_bytes > total)
        return kvb__fail(err, KVB_ECUDA, "device",
                         "device reports free %llu of total %llu bytes",
                         (unsigned long long)v.free_start_bytes,
                         (unsigned long long)total);
    v.total_bytes = total;
    in.g.total_bytes = total;
    in.g.free_bytes = v.free_start_bytes;
    in.g.count = 1;
    kvb_plan p;
    KVB__CANNOT_FAIL(kvb_plan_init(&p, sizeof p));
    st = kvb_plan_compute(&in.m, &in.q, &in.g, &in.s, &p, err);
    if (st)
        return st;
    v.gpu_memory_utilization = p.gpu_memory_utilization;
    v.plan_verdict = p.verdict;
    v.num_blocks = p.num_blocks;
    v.block_bytes = p.block_bytes_per_gpu;

    /* What to allocate: the tensors, and the KV cache's shape. */
    uint64_t *sizes = NULL;
    size_t n_weights = 0;
    st = weights_sizes(&in.m, &in.q, &sizes, &n_weights, err);
    if (st)
        return st;
    kvb__kv_stage ks;
    bool hybrid =
        p.accounting != KVB_ACCOUNTING_VLLM_V0 && !in.s.disable_hybrid_kv_cache;
    kvb__kv_stage_make(&in.m, &in.q, 1, 0, in.m.num_hidden_layers, p.block_size,
                       hybrid, &ks);
    v.weights_tensors = (uint32_t)n_weights;
    v.kv_tensors = ks.group_size; /* each shared by one layer per group */
    uint64_t kv_each = 0;
    if (!kvb__mul_ok(ks.page_bytes, p.num_blocks, &kv_each)) {
        free(sizes);
        return kvb__fail(err, KVB_EOVERFLOW, "plan.num_blocks",
                         "plan.num_blocks (%llu) x page overflows",
                         (unsigned long long)p.num_blocks);
    }

    run r = {dev, NULL, 0, n_weights + 3 + v.kv_tensors};
    r.held = calloc(r.cap, sizeof *r.held);
    if (!r.held) {
        free(sizes);
        return kvb__fail(err, KVB_ENOMEM, "host",
                         "out of host memory for %zu handles", r.cap);
    }

    /* The stages, in the engine's order. */
    uint64_t graphs = p.cudagraph_in_budget ? p.cudagraph_bytes_per_gpu : 0;
    st = stage(&r, &v, KVB_STAGE_WEIGHTS, p.weights_bytes_per_gpu, sizes,
               n_weights, 0, err);
    if (!st && v.failed_stage < 0)
        st = stage(&r, &v, KVB_STAGE_ACTIVATION, p.activation_bytes_per_gpu,
                   NULL, 1, p.activation_bytes_per_gpu, err);
    if (!st && v.failed_stage < 0)
        st = stage(&r, &v, KVB_STAGE_NON_TORCH, p.non_torch_bytes_per_gpu, NULL,
                   1, p.non_torch_bytes_per_gpu, err);
    if (!st && v.failed_stage < 0)
        st = stage(&r, &v, KVB_STAGE_CUDAGRAPH, graphs, NULL, 1, graphs, err);
    size_t kv_mark = r.n_held;
    if (!st && v.failed_stage < 0)
        st = stage(&r, &v, KVB_STAGE_KV_CACHE,
                   p.num_blocks * p.block_bytes_per_gpu, NULL, v.kv_tensors,
                   kv_each, err);
    if (!st && v.failed_stage < 0)
        st = tight_check(&r, &v, kv_mark, &in.m, &in.q, &in.g, &in.s,
                         ks.page_bytes, err);

    /* Free everything, on every path; then the device as we leave it. */
    kvb_status st2 = drop_to(&r, 0, st ? NULL : err);
    free(r.held);
    free(sizes);
    if (!st)
        st = st2;
    if (!st)
        st = info(&r, &v.free_end_bytes, err);
    if (st)
        return st;
    verdict(&v);
    kvb__struct_out(&v, sizeof v, out);
    return KVB_OK;
}

/* ---- the public entry: the real device ---- */

kvb_status kvb_validate(const kvb_model *model, const kvb_quant *quant,
                        const kvb_serving *serving, uint32_t device,
                        kvb_validation *out, kvb_error *err)
{
    inputs in; /* bad input is a usage error on any machine */
    kvb_status st = load(model, quant, serving, &in, err);
    if (!st)
        st = kvb__struct_check(out, sizeof *out, "validation", err);
    if (st)
        return st;
    kvb__cuda *cu = NULL;
    kvb_device d;
    kvb_gpu g;
    kvb__devmem dm;
    KVB__CANNOT_FAIL(kvb_device_init(&d, sizeof d));
    KVB__CANNOT_FAIL(kvb_gpu_init(&g, sizeof g));
    st = kvb__cuda_open(NULL, &cu, err);
    if (!st)
        st = kvb__cuda_device(cu, device, &d, err);
    if (!st)
        st = kvb_device_gpu(&d, &g, err);
    if (!st) {
        kvb__cuda_devmem(cu, &dm);
        st = kvb__validate_run(&dm, &g, model, quant, serving, out, err);
    }
    if (!st)
        out->device_index = d.index; /* the ordinal is known only here */
    kvb__cuda_close(cu);
    return st;
}
