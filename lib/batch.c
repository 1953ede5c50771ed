/*
 * batch.c -- many plans in one call (kvb_batch_compute), each exactly what
 * kvb_plan_compute gives for the same inputs.
 *
 * kvb_plan_compute spends nearly all its time on things a sweep repeats:
 * validating the same model, walking its tensor inventory for the weights,
 * laying out the KV cache by layer, and formatting the verdict text.  Here
 * each table entry is validated once, and everything that depends only on
 * (model, quant, tensor_parallel_size, pipeline_parallel_size, expert
 * parallelism, stage) is computed once per combination and kept in a cache
 * allocated once per call.  What is left per row is the engine arithmetic
 * of engine_vllm.c, called as plan.c calls it.
 *
 * The orchestration below mirrors plan.c step by step (load_inputs,
 * plan_model, parallelism_message, plan_stage, plan_fill_stage and the
 * verdicts, without the message text).  tests/unit/test_batch.c compares
 * every plan field with kvb_plan_compute's over every preset and a grid of
 * settings, so the two cannot drift apart silently.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- caches ---- */

/* The whole checkpoint: what plan_model needs (kvb__weights_total). */
typedef struct mq_entry {
    uint32_t model, quant, used; /* key; used: 0 = empty slot */
    kvb_status st;
    uint64_t param_count;
    uint64_t bytes; /* the inventory's checkpoint bytes */
} mq_entry;

#define KVB__BATCH_ACT_MEMO  4
#define KVB__BATCH_LOAD_MEMO 4

typedef struct act_memo {
    uint64_t tokens; /* max_num_batched_tokens */
    uint32_t seqs;   /* max_num_seqs */
    uint32_t v0;     /* 1: the V0 line; 2: empty slot */
    uint64_t bytes;  /* kvb__vllm_activation */
} act_memo;

typedef struct load_memo {
    uint32_t cc; /* gpu.compute_capability (MXFP4 kernels pad by GPU) */
    uint32_t used;
    uint64_t in;  /* the stage's inventory bytes (scaled by weights_bytes) */
    uint64_t out; /* kvb__vllm_loaded_weights */
} load_memo;

/* One pipeline stage on one TP rank. */
typedef struct stage_entry {
    uint32_t model, quant, tp, pp, stage, ep, used; /* key */
    uint64_t kv_whole, kv_per_gpu;                  /* kvb__kv_bytes(tp, pp) */
    uint32_t first, last;                           /* the stage's layers */
    bool weights_done; /* weights_st / weights computed */
    kvb_status weights_st;
    uint64_t weights; /* kvb__stage_weights */
    /* memo: the weights as loaded, for a few (GPU, inventory bytes) */
    load_memo load[KVB__BATCH_LOAD_MEMO];
    uint32_t load_next;
    /* memo: the KV-cache shape for one (block_size, hybrid) */
    bool ks_done;
    uint32_t ks_block;
    bool ks_hybrid;
    bool ks_full_only; /* only full-attention layers */
    kvb__kv_stage ks;
    /* memo: the activation peak for a few (tokens, seqs, V0 line): a sweep
     * over GPUs alternates their batch defaults */
    act_memo act[KVB__BATCH_ACT_MEMO];
    uint32_t act_next; /* the slot to replace next */
} stage_entry;

/* Validation state of a table entry: 0 not yet, else status + 1. */
typedef uint8_t checked;

/* The bounds of the fields a row may override (kvb_field_bounds). */
typedef struct bound {
    double lo, hi;
} bound;

typedef struct batch_ctx {
    const kvb_batch *b;
    uint32_t num_quants, num_servings; /* at least 1 */
    kvb_quant default_quant;
    kvb_serving default_serving;
    /* validated copies, filled on first use */
    checked *model_ok, *quant_ok, *gpu_ok, *serving_ok;
    kvb_model *models;
    kvb_quant *quants;
    kvb_gpu *gpus;
    kvb_serving *servings;
    mq_entry *mq;
    uint32_t mq_mask;
    stage_entry *stages;
    uint32_t stage_mask;
    bound tp, pp, mml, util, conc, seqs, count;
} batch_ctx;

static uint32_t hash_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return (uint32_t)h;
}

static uint32_t pow2_at_least(uint64_t n, uint32_t lo, uint32_t hi)
{
    uint32_t p = lo;
    while (p < hi && p < n)
        p *= 2;
    return p;
}

/* ---- the call's one allocation ---- */

typedef struct region {
    size_t offset, size;
} region;

static bool region_add(size_t *total, region *r, size_t count, size_t each)
{
    size_t bytes;
    if (__builtin_mul_overflow(count, each, &bytes))
        return false;
    /* 16-byte alignment for every region */
    size_t start = (*total + 15) & ~(size_t)15;
    if (start < *total || __builtin_add_overflow(start, bytes, total))
        return false;
    r->offset = start;
    r->size = bytes;
    return true;
}

static kvb_status ctx_alloc(batch_ctx *c, void **block, kvb_error *err)
{
    const kvb_batch *b = c->b;
    c->mq_mask =
        pow2_at_least((uint64_t)b->num_models * c->num_quants * 2, 16, 4096) -
        1;
    c->stage_mask = pow2_at_least(b->count * 2, 64, 8192) - 1;
    size_t total = 0;
    region r[10];
    bool ok =
        region_add(&total, &r[0], b->num_models, sizeof(checked)) &&
        region_add(&total, &r[1], c->num_quants, sizeof(checked)) &&
        region_add(&total, &r[2], b->num_gpus, sizeof(checked)) &&
        region_add(&total, &r[3], c->num_servings, sizeof(checked)) &&
        region_add(&total, &r[4], b->num_models, sizeof(kvb_model)) &&
        region_add(&total, &r[5], c->num_quants, sizeof(kvb_quant)) &&
        region_add(&total, &r[6], b->num_gpus, sizeof(kvb_gpu)) &&
        region_add(&total, &r[7], c->num_servings, sizeof(kvb_serving)) &&
        region_add(&total, &r[8], (size_t)c->mq_mask + 1, sizeof(mq_entry)) &&
        region_add(&total, &r[9], (size_t)c->stage_mask + 1,
                   sizeof(stage_entry));
    char *mem = ok ? calloc(1, total) : NULL;
    if (!mem)
        return kvb__fail(err, KVB_ENOMEM, "batch",
                         "batch: cannot allocate the cache for %u models, "
                         "%u GPUs and %llu rows",
                         b->num_models, b->num_gpus,
                         (unsigned long long)b->count);
    c->model_ok = (checked *)(mem + r[0].offset);
    c->quant_ok = (checked *)(mem + r[1].offset);
    c->gpu_ok = (checked *)(mem + r[2].offset);
    c->serving_ok = (checked *)(mem + r[3].offset);
    c->models = (kvb_model *)(void *)(mem + r[4].offset);
    c->quants = (kvb_quant *)(void *)(mem + r[5].offset);
    c->gpus = (kvb_gpu *)(void *)(mem + r[6].offset);
    c->servings = (kvb_serving *)(void *)(mem + r[7].offset);
    c->mq = (mq_entry *)(void *)(mem + r[8].offset);
    c->stages = (stage_entry *)(void *)(mem + r[9].offset);
    *block = mem;
    return KVB_OK;
}

/* ---- table entries, validated on first use ---- */

/*
 * A struct_size problem is the caller's bug, not a property of a row: it
 * fails the whole call.  Any other status belongs to the rows using it.
 */
static kvb_status check_model(batch_ctx *c, uint32_t i, kvb_status *row_st,
                              kvb_error *err)
{
    if (!c->model_ok[i]) {
        const kvb_model *in = &c->b->models[i];
        kvb_status st = kvb__struct_check(in, sizeof *in, "model", err);
        if (st)
            return st;
        st = kvb__model_load(in, &c->models[i], NULL);
        c->model_ok[i] = (checked)(st + 1);
    }
    *row_st = (kvb_status)(c->model_ok[i] - 1);
    return KVB_OK;
}

static kvb_status check_quant(batch_ctx *c, uint32_t i, kvb_status *row_st,
                              kvb_error *err)
{
    if (!c->quant_ok[i]) {
        const kvb_quant *in =
            c->b->quants ? &c->b->quants[i] : &c->default_quant;
        kvb_status st = kvb__struct_check(in, sizeof *in, "quant", err);
        if (st)
            return st;
        st = kvb__quant_load(in, &c->quants[i], NULL);
        c->quant_ok[i] = (checked)(st + 1);
    }
    *row_st = (kvb_status)(c->quant_ok[i] - 1);
    return KVB_OK;
}

/* Everything but the count, which a row may override. */
static kvb_status check_gpu(batch_ctx *c, uint32_t i, kvb_status *row_st,
                            kvb_error *err)
{
    if (!c->gpu_ok[i]) {
        kvb_gpu g;
        kvb_status st =
            kvb__struct_in(&c->b->gpus[i], sizeof g, &g, "gpu", err);
        if (st)
            return st;
        uint32_t count = g.count;
        g.count = 1;
        st = kvb__gpu_load(&g, &c->gpus[i], NULL);
        c->gpus[i].count = count;
        c->gpu_ok[i] = (checked)(st + 1);
    }
    *row_st = (kvb_status)(c->gpu_ok[i] - 1);
    return KVB_OK;
}

/* Everything but the fields a row may override. */
static kvb_status check_serving(batch_ctx *c, uint32_t i, kvb_status *row_st,
                                kvb_error *err)
{
    if (!c->serving_ok[i]) {
        const kvb_serving *in =
            c->b->servings ? &c->b->servings[i] : &c->default_serving;
        kvb_serving s;
        kvb_status st = kvb__struct_in(in, sizeof s, &s, "serving", err);
        if (st)
            return st;
        kvb_serving keep = s;
        s.tensor_parallel_size = 1;
        s.pipeline_parallel_size = 1;
        s.max_model_len = 0;
        s.gpu_memory_utilization = 0.0;
        s.concurrency = 1;
        s.max_num_seqs = 0;
        st = kvb__serving_load(&s, &c->servings[i], NULL);
        c->servings[i] = keep;
        c->serving_ok[i] = (checked)(st + 1);
    }
    *row_st = (kvb_status)(c->serving_ok[i] - 1);
    return KVB_OK;
}

static bool in_bound(const bound *b, double v)
{
    return v >= b->lo && v <= b->hi; /* kvb__check_u64/double's test */
}

static kvb_status bound_of(const char *field, bound *b, kvb_error *err)
{
    return kvb_field_bounds(field, &b->lo, &b->hi, err);
}

static kvb_status ctx_bounds(batch_ctx *c, kvb_error *err)
{
    kvb_status st = bound_of("serving.tensor_parallel_size", &c->tp, err);
    if (!st)
        st = bound_of("serving.pipeline_parallel_size", &c->pp, err);
    if (!st)
        st = bound_of("serving.max_model_len", &c->mml, err);
    if (!st)
        st = bound_of("serving.gpu_memory_utilization", &c->util, err);
    if (!st)
        st = bound_of("serving.concurrency", &c->conc, err);
    if (!st)
        st = bound_of("serving.max_num_seqs", &c->seqs, err);
    if (!st)
        st = bound_of("gpu.count", &c->count, err);
    return st;
}

/* ---- cached stages ---- */

static mq_entry *mq_get(batch_ctx *c, uint32_t mi, uint32_t qi)
{
    uint32_t h = hash_mix(((uint64_t)mi << 32 | qi) ^ 0x6a09e667f3bcc909ULL) &
                 c->mq_mask;
    mq_entry *e = &c->mq[h];
    if (e->used && e->model == mi && e->quant == qi)
        return e;
    e->model = mi;
    e->quant = qi;
    e->used = 1;
    e->bytes = e->param_count = 0;
    e->st = kvb__weights_total(&c->models[mi], &c->quants[qi], &e->bytes, NULL,
                               NULL);
    if (!e->st)
        kvb__model_params(&c->models[mi], &e->param_count, NULL);
    return e;
}

static stage_entry *stage_get(batch_ctx *c, uint32_t mi, uint32_t qi,
                              uint32_t tp, uint32_t pp, uint32_t stage,
                              uint32_t ep)
{
    uint64_t k1 = (uint64_t)mi << 32 | qi;
    uint64_t k2 =
        (uint64_t)tp << 42 ^ (uint64_t)pp << 21 ^ stage ^ (uint64_t)ep << 63;
    uint32_t h =
        hash_mix(k1 ^ hash_mix(k2) * 0x9e3779b97f4a7c15ULL) & c->stage_mask;
    stage_entry *e = &c->stages[h];
    if (e->used && e->model == mi && e->quant == qi && e->tp == tp &&
        e->pp == pp && e->stage == stage && e->ep == ep)
        return e;
    memset(e, 0, sizeof *e);
    e->model = mi;
    e->quant = qi;
    e->tp = tp;
    e->pp = pp;
    e->stage = stage;
    e->ep = ep;
    e->used = 1;
    for (int k = 0; k < KVB__BATCH_ACT_MEMO; k++)
        e->act[k].v0 = 2;
    const kvb_model *m = &c->models[mi];
    kvb__kv_bytes(m, &c->quants[qi], tp, pp, &e->kv_whole, &e->kv_per_gpu);
    if (stage < pp)
        kvb__pp_layers(m->num_hidden_layers, stage, pp, &e->first, &e->last);
    return e;
}

/* ---- one row ---- */

typedef struct row {
    uint32_t mi, qi, gi, si;
    uint32_t gpu_count;
    kvb_gpu gpu; /* the table's GPU with the row's count */
    kvb__engine_in in;
} row;

typedef struct stage_result {
    uint64_t weights, activation, cudagraph;
    int64_t available; /* may be negative */
    uint64_t num_blocks, needed, fit;
    kvb__kv_stage ks;
} stage_result;

static kvb_status index_past(kvb_error *err, const char *what, uint64_t i,
                             uint32_t value, uint32_t count)
{
    return kvb__fail(err, KVB_ERANGE, what,
                     "%s[%llu] (%u) is past the end of its table; allowed: "
                     "0..%u",
                     what, (unsigned long long)i, value, count - 1);
}

/* Read row i's indexes; KVB_ERANGE for one past its table (a call error). */
static kvb_status row_indexes(const batch_ctx *c, uint64_t i, row *r,
                              kvb_error *err)
{
    const kvb_batch *b = c->b;
    r->mi = b->model_index ? b->model_index[i] : 0;
    r->qi = b->quant_index ? b->quant_index[i] : 0;
    r->gi = b->gpu_index ? b->gpu_index[i] : 0;
    r->si = b->serving_index ? b->serving_index[i] : 0;
    if (r->mi >= b->num_models)
        return index_past(err, "batch.model_index", i, r->mi, b->num_models);
    if (r->qi >= c->num_quants)
        return index_past(err, "batch.quant_index", i, r->qi, c->num_quants);
    if (r->gi >= b->num_gpus)
        return index_past(err, "batch.gpu_index", i, r->gi, b->num_gpus);
    if (r->si >= c->num_servings)
        return index_past(err, "batch.serving_index", i, r->si,
                          c->num_servings);
    return KVB_OK;
}

/* The row's serving and GPU count: the table's, with its overrides. */
static void row_serving(const kvb_batch *b, uint64_t i, const kvb_serving *base,
                        uint32_t base_count, kvb_serving *s,
                        uint32_t *gpu_count)
{
    *s = *base;
    uint32_t v;
    if (b->tensor_parallel_size && (v = b->tensor_parallel_size[i]) != 0)
        s->tensor_parallel_size = v;
    if (b->pipeline_parallel_size && (v = b->pipeline_parallel_size[i]) != 0)
        s->pipeline_parallel_size = v;
    if (b->max_model_len && b->max_model_len[i] != 0)
        s->max_model_len = b->max_model_len[i];
    if (b->gpu_memory_utilization && b->gpu_memory_utilization[i] != 0.0)
        s->gpu_memory_utilization = b->gpu_memory_utilization[i];
    if (b->concurrency && (v = b->concurrency[i]) != 0)
        s->concurrency = v;
    if (b->max_num_seqs && (v = b->max_num_seqs[i]) != 0)
        s->max_num_seqs = v;
    *gpu_count = base_count;
    if (b->gpu_count && (v = b->gpu_count[i]) != 0)
        *gpu_count = v;
}

/* load_inputs of plan.c: the statuses in the same order. */
static kvb_status row_load(batch_ctx *c, uint64_t i, row *r, kvb_status *row_st,
                           kvb_error *err)
{
    kvb_status st = check_model(c, r->mi, row_st, err);
    if (st || *row_st)
        return st;
    st = check_quant(c, r->qi, row_st, err);
    if (st || *row_st)
        return st;
    st = check_gpu(c, r->gi, row_st, err);
    if (st || *row_st)
        return st;
    st = check_serving(c, r->si, row_st, err);
    if (st)
        return st;
    row_serving(c->b, i, &c->servings[r->si], c->gpus[r->gi].count, &r->in.s,
                &r->gpu_count);
    if (!in_bound(&c->count, (double)r->gpu_count))
        *row_st = KVB_ERANGE; /* gpu.count, checked by kvb__gpu_load */
    if (*row_st)
        return KVB_OK;
    const kvb_serving *s = &r->in.s;
    if (!in_bound(&c->tp, (double)s->tensor_parallel_size) ||
        !in_bound(&c->pp, (double)s->pipeline_parallel_size) ||
        !in_bound(&c->mml, (double)s->max_model_len) ||
        !in_bound(&c->util, s->gpu_memory_utilization) ||
        !in_bound(&c->conc, (double)s->concurrency) ||
        !in_bound(&c->seqs, (double)s->max_num_seqs) ||
        s->max_model_len > c->models[r->mi].max_position_embeddings)
        *row_st = KVB_ERANGE;
    return KVB_OK;
}

/* parallelism_message of plan.c, without the message. */
static bool parallelism_invalid(const kvb_model *m, uint32_t gpu_count,
                                const kvb_serving *s)
{
    uint32_t tp = s->tensor_parallel_size, pp = s->pipeline_parallel_size;
    uint32_t kv = m->num_key_value_heads;
    return (uint64_t)tp * pp > gpu_count || m->num_attention_heads % tp != 0 ||
           (!kvb__is_mla(m) && (kv >= tp ? kv % tp : tp % kv) != 0) ||
           pp > m->num_hidden_layers || m->intermediate_size % tp != 0 ||
           (!s->enable_expert_parallel && m->moe_intermediate_size % tp);
}

/*
 * kvb__vllm_fit_len, in closed form where the KV cache has only full
 * attention layers: one request needs G x ceil(len / block) bytes, so the
 * binary search ends at the last multiple of the block that fits.  Falls
 * back to the search for everything else, and wherever G x blocks could
 * wrap (the search would see the wrapped values).
 */
static uint64_t fit_len(const kvb__engine_in *in, const stage_entry *e,
                        const kvb__kv_stage *ks, uint64_t available,
                        uint64_t num_blocks)
{
    uint64_t hi = in->model->max_position_embeddings;
    uint32_t bs = in->s.block_size;
    uint64_t g = 0, blocks = 0;
    if (in->accounting == KVB_ACCOUNTING_VLLM_V0 || !e->ks_full_only)
        return kvb__vllm_fit_len(in, ks, available, num_blocks);
    if (in->accounting == KVB_ACCOUNTING_VLLM_V1_021)
        g = (uint64_t)ks->group_size * ks->page_bytes * ks->groups[0];
    else
        g = (uint64_t)ks->layers[0] * ks->page_bytes;
    if (!kvb__mul_ok(g, kvb__cdiv(hi, bs), &blocks))
        return kvb__vllm_fit_len(in, ks, available, num_blocks);
    if (g == 0)
        return hi;
    if (g > available)
        return 0;
    return kvb__min(hi, available / g * bs);
}

static uint64_t stage_activation(const kvb__engine_in *in, stage_entry *e)
{
    const kvb_serving *s = &in->s;
    uint32_t v0 = in->accounting == KVB_ACCOUNTING_VLLM_V0;
    if (s->activation_bytes != KVB_AUTO_BYTES)
        return kvb__vllm_activation(in, e->stage);
    for (int k = 0; k < KVB__BATCH_ACT_MEMO; k++) {
        const act_memo *a = &e->act[k];
        if (a->v0 == v0 && a->tokens == s->max_num_batched_tokens &&
            a->seqs == s->max_num_seqs)
            return a->bytes;
    }
    act_memo *a = &e->act[e->act_next];
    e->act_next = (e->act_next + 1) % KVB__BATCH_ACT_MEMO;
    a->tokens = s->max_num_batched_tokens;
    a->seqs = s->max_num_seqs;
    a->v0 = v0;
    a->bytes = kvb__vllm_activation(in, e->stage);
    return a->bytes;
}

/* kvb__vllm_loaded_weights, memoised by GPU compute capability (the only
 * row-dependent input besides the stage's bytes). */
static uint64_t stage_loaded(const kvb__engine_in *in, stage_entry *e,
                             uint64_t bytes)
{
    uint32_t cc = in->gpu->compute_capability;
    for (int k = 0; k < KVB__BATCH_LOAD_MEMO; k++) {
        const load_memo *l = &e->load[k];
        if (l->used && l->cc == cc && l->in == bytes)
            return l->out;
    }
    load_memo *l = &e->load[e->load_next];
    e->load_next = (e->load_next + 1) % KVB__BATCH_LOAD_MEMO;
    l->cc = cc;
    l->in = bytes;
    l->out = kvb__vllm_loaded_weights(in, e->stage, bytes);
    l->used = 1;
    return l->out;
}

static void stage_kv(const kvb__engine_in *in, stage_entry *e, bool hybrid)
{
    uint32_t bs = in->s.block_size;
    if (e->ks_done && e->ks_block == bs && e->ks_hybrid == hybrid)
        return;
    kvb__kv_stage_make(in->model, in->quant, in->s.tensor_parallel_size,
                       e->first, e->last, bs, hybrid, &e->ks);
    e->ks_block = bs;
    e->ks_hybrid = hybrid;
    e->ks_full_only = e->ks.layers[KVB__ATTN_SLIDING] == 0 &&
                      e->ks.layers[KVB__ATTN_CHUNKED] == 0;
    e->ks_done = true;
}

/* plan_stage of plan.c, from the cache. */
static kvb_status row_stage(batch_ctx *c, const row *r, uint32_t stage,
                            uint64_t requested, uint64_t non_torch,
                            stage_result *res)
{
    const kvb__engine_in *in = &r->in;
    const kvb_serving *s = &in->s;
    stage_entry *e =
        stage_get(c, r->mi, r->qi, s->tensor_parallel_size,
                  s->pipeline_parallel_size, stage, s->enable_expert_parallel);
    if (!e->weights_done) {
        e->weights_st =
            kvb__stage_weights(in->model, in->quant, e->tp, e->pp, stage,
                               e->ep != 0, &e->weights, NULL);
        e->weights_done = true;
    }
    if (e->weights_st)
        return e->weights_st;
    res->weights = e->weights;
    if (s->weights_bytes && in->inventory_bytes)
        res->weights =
            (uint64_t)((double)res->weights * (double)s->weights_bytes /
                       (double)in->inventory_bytes);
    res->weights = s->loaded_weights_bytes ? s->loaded_weights_bytes
                                           : stage_loaded(in, e, res->weights);
    res->activation = stage_activation(in, e);
    res->cudagraph = kvb__vllm_cudagraph(in, stage);
    bool hybrid =
        in->accounting != KVB_ACCOUNTING_VLLM_V0 && !s->disable_hybrid_kv_cache;
    stage_kv(in, e, hybrid);
    res->ks = e->ks;
    uint64_t non_kv = res->weights + res->activation + non_torch;
    if (in->accounting == KVB_ACCOUNTING_VLLM_V1_021)
        non_kv += res->cudagraph;
    if (s->kv_cache_memory_bytes)
        res->available = (int64_t)s->kv_cache_memory_bytes;
    else
        res->available = (int64_t)requested - (int64_t)non_kv;
    uint64_t avail = res->available > 0 ? (uint64_t)res->available : 0;
    res->num_blocks = kvb__vllm_num_blocks(in, &res->ks, avail);
    res->needed = kvb__vllm_needed_bytes(in, &res->ks, s->max_model_len);
    res->fit = fit_len(in, e, &res->ks, avail, res->num_blocks);
    return KVB_OK;
}

static void verdict(kvb_plan *p, int32_t v)
{
    p->verdict = v;
    p->fits = v == KVB_VERDICT_FITS;
}

/* verdict_start of plan.c. */
static bool verdict_start(const kvb__engine_in *in, kvb_plan *p)
{
    bool v0 = in->accounting == KVB_ACCOUNTING_VLLM_V0;
    if (!v0 && !in->s.kv_cache_memory_bytes &&
        p->usable_bytes_per_gpu > p->startup_free_bytes_per_gpu) {
        verdict(p, KVB_VERDICT_HEADROOM_TOO_SMALL);
        return true;
    }
    uint64_t room = p->gpu_total_bytes - p->cuda_context_bytes_per_gpu;
    if (p->weights_bytes_per_gpu > room ||
        (!in->s.kv_cache_memory_bytes &&
         p->weights_bytes_per_gpu >= p->usable_bytes_per_gpu)) {
        verdict(p, KVB_VERDICT_WEIGHTS_EXCEED);
        return true;
    }
    return false;
}

/* verdict_budget of plan.c. */
static void verdict_budget(const kvb__engine_in *in, kvb_plan *p,
                           const stage_result *r)
{
    uint64_t need_len = p->max_model_len;
    bool v0 = in->accounting == KVB_ACCOUNTING_VLLM_V0;
    bool len_fails =
        v0 ? need_len > (uint64_t)p->block_size *
                            (p->num_blocks / p->pipeline_parallel_size)
           : r->needed > (uint64_t)(r->available > 0 ? r->available : 0);
    bool checks_len = in->version == 0 || in->version >= 300;
    if (r->available <= 0 || p->num_blocks == 0)
        verdict(p, KVB_VERDICT_NO_KV_MEMORY);
    else if (len_fails && checks_len)
        verdict(p, KVB_VERDICT_MAX_LEN_EXCEEDS_KV);
    else if (!p->cudagraph_in_budget && p->cudagraph_bytes_per_gpu &&
             p->headroom_bytes_per_gpu == 0)
        verdict(p, KVB_VERDICT_HEADROOM_TOO_SMALL);
    else if (p->max_concurrency < (double)p->concurrency ||
             p->concurrency > p->max_num_seqs)
        verdict(p, KVB_VERDICT_CONCURRENCY_EXCEEDS);
    else
        verdict(p, KVB_VERDICT_FITS);
}

/* plan_fill_stage of plan.c. */
static void fill_stage(const kvb__engine_in *in, kvb_plan *p,
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

/* plan_stages of plan.c; EUNSUPPORTED under TP is the caller's to judge. */
static kvb_status row_stages(batch_ctx *c, const row *r, kvb_plan *p)
{
    const kvb__engine_in *in = &r->in;
    stage_result best = {0}, res;
    bool have = false;
    for (uint32_t s = 0; s < in->s.pipeline_parallel_size; s++) {
        kvb_status st = row_stage(c, r, s, p->usable_bytes_per_gpu,
                                  p->non_torch_bytes_per_gpu, &res);
        if (st)
            return st;
        p->weights_bytes_per_gpu =
            kvb__max(p->weights_bytes_per_gpu, res.weights);
        if (!have || res.num_blocks < best.num_blocks ||
            (res.num_blocks == best.num_blocks &&
             res.available < best.available))
            best = res;
        have = true;
    }
    fill_stage(in, p, &best);
    if (!verdict_start(in, p))
        verdict_budget(in, p, &best);
    return KVB_OK;
}

/* kvb_plan_compute after load_inputs; returns the row's status. */
static kvb_status row_plan(batch_ctx *c, row *r, kvb_plan *p)
{
    kvb__engine_in *in = &r->in;
    const kvb_gpu *g = &r->gpu;
    memset((char *)p + sizeof p->struct_size, 0,
           offsetof(kvb_plan, message) - sizeof p->struct_size);
    in->model = &c->models[r->mi];
    in->quant = &c->quants[r->qi];
    in->gpu = g;
    in->version = in->s.engine_version;
    in->accounting = kvb__vllm_accounting(in->version);
    in->inventory_bytes = 0;
    kvb__vllm_defaults(in);
    const kvb_serving *s = &in->s;
    p->engine = s->engine;
    p->engine_version = s->engine_version;
    p->accounting = in->accounting;
    p->gpu_memory_utilization = s->gpu_memory_utilization;
    p->gpu_total_bytes = g->total_bytes;
    p->tensor_parallel_size = s->tensor_parallel_size;
    p->pipeline_parallel_size = s->pipeline_parallel_size;
    p->max_model_len = s->max_model_len;
    p->block_size = s->block_size;
    p->max_num_seqs = s->max_num_seqs;
    p->max_num_batched_tokens = s->max_num_batched_tokens;
    p->concurrency = s->concurrency;

    const mq_entry *mq = mq_get(c, r->mi, r->qi);
    if (mq->st)
        return mq->st;
    p->param_count = mq->param_count;
    p->weights_bytes = s->weights_bytes ? s->weights_bytes : mq->bytes;
    in->inventory_bytes = mq->bytes;
    const stage_entry *e0 =
        stage_get(c, r->mi, r->qi, s->tensor_parallel_size,
                  s->pipeline_parallel_size, 0, s->enable_expert_parallel);
    p->kv_bytes_per_token = e0->kv_whole;
    p->kv_bytes_per_token_per_gpu = e0->kv_per_gpu;

    p->usable_bytes_per_gpu = kvb__vllm_requested_bytes(in);
    p->cuda_context_bytes_per_gpu = kvb__vllm_cuda_context(in);
    p->non_torch_bytes_per_gpu = kvb__vllm_non_torch(in);
    p->cudagraph_in_budget =
        in->accounting == KVB_ACCOUNTING_VLLM_V1_021 && !s->enforce_eager;
    uint64_t reserved = kvb__vllm_startup_reserved(in);
    p->startup_free_bytes_per_gpu =
        g->free_bytes
            ? g->free_bytes
            : (g->total_bytes > reserved ? g->total_bytes - reserved : 0);
    if (parallelism_invalid(in->model, r->gpu_count, s)) {
        verdict(p, KVB_VERDICT_PARALLELISM_INVALID);
        return KVB_OK;
    }
    kvb_status st = row_stages(c, r, p);
    if (st == KVB_EUNSUPPORTED && s->tensor_parallel_size > 1) {
        verdict(p, KVB_VERDICT_PARALLELISM_INVALID);
        st = KVB_OK;
    }
    return st;
}

/* ---- outputs ---- */

static void row_write(const kvb_batch *b, uint64_t i, kvb_status st,
                      const kvb_plan *p)
{
    bool ok = st == KVB_OK;
    if (b->status)
        b->status[i] = st;
    if (b->fits)
        b->fits[i] = ok ? p->fits : 0;
    if (b->verdict)
        b->verdict[i] = ok ? p->verdict : -1;
    if (b->weights_bytes_per_gpu)
        b->weights_bytes_per_gpu[i] = ok ? p->weights_bytes_per_gpu : 0;
    if (b->kv_budget_bytes_per_gpu)
        b->kv_budget_bytes_per_gpu[i] = ok ? p->kv_budget_bytes_per_gpu : 0;
    if (b->max_kv_tokens)
        b->max_kv_tokens[i] = ok ? p->max_kv_tokens : 0;
    if (b->max_concurrency)
        b->max_concurrency[i] = ok ? p->max_concurrency : 0.0;
    if (b->max_model_len_fit)
        b->max_model_len_fit[i] = ok ? p->max_model_len_fit : 0;
    if (b->num_blocks)
        b->num_blocks[i] = ok ? p->num_blocks : 0;
    if (b->plans) {
        kvb_plan *out =
            (kvb_plan *)(void *)((char *)b->plans + (size_t)i * b->plan_size);
        if (ok) {
            memcpy(out, p, sizeof *p);
        } else {
            memset(out, 0, sizeof *out);
            out->struct_size = b->plan_size;
            out->verdict = -1;
        }
    }
}

/* The detail of a failed row: kvb_plan_compute on the same inputs. */
static kvb_status row_detail(const batch_ctx *c, uint64_t i, const row *r,
                             kvb_status st, kvb_error *err)
{
    const kvb_batch *b = c->b;
    kvb_gpu g = b->gpus[r->gi];
    kvb_serving s;
    kvb_plan p;
    row_serving(b, i, b->servings ? &b->servings[r->si] : &c->default_serving,
                g.count, &s, &g.count);
    KVB__CANNOT_FAIL(kvb_plan_init(&p, sizeof p));
    kvb_status again =
        kvb_plan_compute(&b->models[r->mi],
                         b->quants ? &b->quants[r->qi] : NULL, &g, &s, &p, err);
    if (again != st)
        kvb__fail(err, st, "batch", "batch row %llu: %s", (unsigned long long)i,
                  kvb_strerror(st));
    if (err && err->struct_size >= sizeof *err)
        snprintf(err->source, sizeof err->source, "batch row %llu",
                 (unsigned long long)i);
    return st;
}

/* ---- the call ---- */

kvb_status kvb_batch_init(kvb_batch *batch, size_t struct_size)
{
    return kvb__struct_init(batch, struct_size, sizeof *batch, "batch");
}

static kvb_status check_tables(const kvb_batch *b, kvb_error *err)
{
    if (!b->models || b->num_models == 0)
        return kvb__fail(err, KVB_EINVAL, "batch.models",
                         "batch.models (%u entries) is required; allowed: "
                         "at least one model",
                         b->num_models);
    if (!b->gpus || b->num_gpus == 0)
        return kvb__fail(err, KVB_EINVAL, "batch.gpus",
                         "batch.gpus (%u entries) is required; allowed: at "
                         "least one GPU",
                         b->num_gpus);
    if (!b->quants != (b->num_quants == 0))
        return kvb__fail(err, KVB_EINVAL, "batch.num_quants",
                         "batch.num_quants (%u) does not match quants; "
                         "allowed: 0 with NULL quants, else >= 1",
                         b->num_quants);
    if (!b->servings != (b->num_servings == 0))
        return kvb__fail(err, KVB_EINVAL, "batch.num_servings",
                         "batch.num_servings (%u) does not match servings; "
                         "allowed: 0 with NULL servings, else >= 1",
                         b->num_servings);
    if (b->plans && b->plan_size != sizeof(kvb_plan))
        return kvb__fail(err, KVB_EABI, "batch.plan_size",
                         "batch.plan_size (%zu) is not one this library "
                         "knows; allowed: %zu",
                         b->plan_size, sizeof(kvb_plan));
    return KVB_OK;
}

static kvb_status run_rows(batch_ctx *c, uint64_t *failed, kvb_error *err)
{
    const kvb_batch *b = c->b;
    kvb_plan p;
    memset(&p, 0, sizeof p);
    p.struct_size = sizeof p;
    row r;
    memset(&r, 0, sizeof r);
    for (uint64_t i = 0; i < b->count; i++) {
        kvb_status row_st = KVB_OK;
        kvb_status st = row_indexes(c, i, &r, err);
        if (!st)
            st = row_load(c, i, &r, &row_st, err);
        if (st)
            return st;
        if (!row_st) {
            r.gpu = c->gpus[r.gi];
            r.gpu.count = r.gpu_count;
            row_st = row_plan(c, &r, &p);
        }
        if (row_st) {
            (*failed)++;
            if (!b->status)
                return row_detail(c, i, &r, row_st, err);
        }
        row_write(b, i, row_st, &p);
    }
    return KVB_OK;
}

kvb_status kvb_batch_compute(const kvb_batch *batch, uint64_t *failed,
                             kvb_error *err)
{
    uint64_t failed_rows = 0;
    if (failed)
        *failed = 0;
    kvb_status st = kvb__struct_check(batch, sizeof *batch, "batch", err);
    if (!st)
        st = check_tables(batch, err);
    if (st || batch->count == 0)
        return st;
    batch_ctx c;
    memset(&c, 0, sizeof c);
    c.b = batch;
    c.num_quants = batch->quants ? batch->num_quants : 1;
    c.num_servings = batch->servings ? batch->num_servings : 1;
    KVB__CANNOT_FAIL(kvb_quant_init(&c.default_quant, sizeof c.default_quant));
    KVB__CANNOT_FAIL(
        kvb_serving_init(&c.default_serving, sizeof c.default_serving));
    st = ctx_bounds(&c, err);
    if (st)
        return st;
    void *block = NULL;
    st = ctx_alloc(&c, &block, err);
    if (st)
        return st;
    st = run_rows(&c, &failed_rows, err);
    free(block);
    if (failed)
        *failed = failed_rows;
    if (!st)
        kvb__clear(err);
    return st;
}
