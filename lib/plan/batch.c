/*
 * plan/batch.c -- many plans in one call (kvb_batch_compute), each exactly what
 * kvb_plan_compute gives for the same inputs.
 *
 * kvb_plan_compute spends nearly all its time on things a sweep repeats:
 * validating the same model, walking its tensor inventory for the weights,
 * laying out the KV cache by layer, and formatting the verdict text.  Here
 * each table entry is validated once, and everything that depends only on
 * (model, quant, tensor_parallel_size, pipeline_parallel_size, expert
 * parallelism, stage) is computed once per combination and kept in a cache
 * allocated once per call.  What is left per row is the engine arithmetic
 * of engines/vllm.c.
 *
 * Each row is planned by kvb__plan_core, the same code kvb_plan_compute
 * runs, handed this call's caches (kvb__plan_cache) and asked for no
 * message text: the steps and the verdict order exist once, in plan.c.
 * What stays here is the table validation (load_inputs of plan.c, entry
 * by entry, with the row overrides checked against their bounds) and the
 * caches.  tests/unit/test_batch.c compares every plan field with
 * kvb_plan_compute's over every preset and a grid of settings.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- caches ---- */

/* The whole checkpoint: what plan_model needs (kvb__weights_total). */
typedef struct mq_entry {
    uint32_t model, quant, used; /* key; used: 0 = empty slot */
    kvb__model_memo memo;
} mq_entry;

/* One pipeline stage on one TP rank: plan.c's memo of it. */
typedef struct stage_entry {
    uint32_t model, quant, tp, pp, stage, ep, used; /* key */
    kvb__stage_memo memo;
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
    uint32_t *gpu_names; /* kvb__gpu_names of each GPU, found once */
    kvb_serving *servings;
    mq_entry *mq;
    uint32_t mq_mask;
    stage_entry *stages;
    uint32_t stage_mask;
    mq_entry *mq_last; /* the entries found last */
    stage_entry *stage_last;
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
    region r[11];
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
                   sizeof(stage_entry)) &&
        region_add(&total, &r[10], b->num_gpus, sizeof(uint32_t));
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
    c->gpu_names = (uint32_t *)(void *)(mem + r[10].offset);
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
        c->gpu_names[i] = kvb__gpu_names(&c->gpus[i]);
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

static mq_entry *mq_find(batch_ctx *c, uint32_t mi, uint32_t qi)
{
    uint32_t h = hash_mix(((uint64_t)mi << 32 | qi) ^ 0x6a09e667f3bcc909ULL) &
                 c->mq_mask;
    mq_entry *e = &c->mq[h];
    if (e->used && e->model == mi && e->quant == qi)
        return e;
    e->model = mi;
    e->quant = qi;
    e->used = 1;
    kvb__model_memo *mm = &e->memo;
    mm->bytes = mm->params = 0;
    mm->st = kvb__weights_total(&c->models[mi], &c->quants[qi], &mm->bytes,
                                NULL, NULL);
    if (!mm->st)
        kvb__model_params(&c->models[mi], &mm->params, NULL);
    return e;
}

static stage_entry *stage_find(batch_ctx *c, uint32_t mi, uint32_t qi,
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
    e->model = mi;
    e->quant = qi;
    e->tp = tp;
    e->pp = pp;
    e->stage = stage;
    e->ep = ep;
    e->used = 1;
    kvb__stage_memo_init(&e->memo, &c->models[mi], pp, stage);
    return e;
}

/* A sweep repeats one key for many rows: the last hit first. */
static mq_entry *mq_get(batch_ctx *c, uint32_t mi, uint32_t qi)
{
    mq_entry *e = c->mq_last;
    if (!e || e->model != mi || e->quant != qi)
        c->mq_last = e = mq_find(c, mi, qi);
    return e;
}

static stage_entry *stage_get(batch_ctx *c, uint32_t mi, uint32_t qi,
                              uint32_t tp, uint32_t pp, uint32_t stage,
                              uint32_t ep)
{
    stage_entry *e = c->stage_last;
    if (!e || e->model != mi || e->quant != qi || e->tp != tp || e->pp != pp ||
        e->stage != stage || e->ep != ep)
        c->stage_last = e = stage_find(c, mi, qi, tp, pp, stage, ep);
    return e;
}

/* ---- one row ---- */

typedef struct row {
    uint32_t mi, qi, gi, si;
    uint32_t gpu_count;
    kvb_gpu gpu; /* the table's GPU with the row's count */
    kvb__engine_in in;
} row;

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

/* ---- one row: plan.c's core over this call's caches ---- */

typedef struct row_cache {
    batch_ctx *c;
    uint32_t mi, qi;
} row_cache;

static const kvb__model_memo *cached_model(void *ctx, const kvb__engine_in *in)
{
    row_cache *rc = ctx;
    (void)in;
    return &mq_get(rc->c, rc->mi, rc->qi)->memo;
}

static kvb__stage_memo *cached_stage(void *ctx, const kvb__engine_in *in,
                                     uint32_t stage)
{
    row_cache *rc = ctx;
    const kvb_serving *s = &in->s;
    return &stage_get(rc->c, rc->mi, rc->qi, s->tensor_parallel_size,
                      s->pipeline_parallel_size, stage,
                      s->enable_expert_parallel)
                ->memo;
}

/* kvb_plan_compute after load_inputs; returns the row's status. */
static kvb_status row_plan(batch_ctx *c, row *r, kvb_plan *p)
{
    kvb__engine_in *in = &r->in;
    in->model = &c->models[r->mi];
    in->quant = &c->quants[r->qi];
    in->gpu = &r->gpu;
    in->gpu_names = c->gpu_names[r->gi];
    in->tower_left_out = 0;
    /* a tower the engine does not load (vLLM's text-only mode, llama.cpp
     * without --mmproj), as kvb_plan_compute drops it: the row's model is
     * then not the cached one, so it is planned uncached */
    if (kvb__vllm_text_only(in->model, &in->s) ||
        kvb__llama_no_mmproj(in->model, &in->s)) {
        kvb_model text = *in->model;
        in->tower_left_out = text.vision_kind;
        text.vision_kind = KVB_VISION_NONE;
        in->model = &text;
        kvb_status st = kvb__plan_core(in, NULL, p, false, NULL);
        in->model = &c->models[r->mi];
        return st;
    }
    row_cache rc = {c, r->mi, r->qi};
    kvb__plan_cache cache = {&rc, cached_model, cached_stage};
    return kvb__plan_core(in, &cache, p, false, NULL);
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
