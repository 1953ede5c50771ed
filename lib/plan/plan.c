/*
 * plan/plan.c -- the capacity plan: every stage put together, and the verdict.
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
    case KVB_VERDICT_##name: return code;
        KVB_VERDICT_MAP(KVB__VERDICT_CODE)
#undef KVB__VERDICT_CODE
    default: return NULL;
    }
}

const char *kvb_verdict_reason(int verdict)
{
    switch (verdict) {
#define KVB__VERDICT_TEXT(name, num, code, text)                               \
    case KVB_VERDICT_##name: return text;
        KVB_VERDICT_MAP(KVB__VERDICT_TEXT)
#undef KVB__VERDICT_TEXT
    default: return NULL;
    }
}

/* ---- parallelism ---- */

/* The first parallelism vLLM rejects (the default rules of an engine);
 * its text into msg when msg is not NULL. */
bool kvb__parallelism_bad(const kvb__engine_in *in, uint32_t gpu_count,
                          char *msg, size_t cap)
{
    const kvb_model *m = in->model;
    const kvb_serving *s = &in->s;
    uint32_t tp = s->tensor_parallel_size, pp = s->pipeline_parallel_size;
    uint32_t kv = m->num_key_value_heads;
    if ((uint64_t)tp * pp > gpu_count) {
        if (msg)
            snprintf(msg, cap,
                     "tensor_parallel_size %u x "
                     "pipeline_parallel_size %u needs %u GPUs; %u "
                     "available",
                     tp, pp, tp * pp, gpu_count);
    } else if (m->num_attention_heads % tp != 0) {
        if (msg)
            snprintf(msg, cap,
                     "Total number of attention heads (%u) must be "
                     "divisible by tensor parallel size (%u).",
                     m->num_attention_heads, tp);
    } else if (!kvb__is_mla(m) && (kv >= tp ? kv % tp : tp % kv) != 0) {
        if (msg)
            snprintf(msg, cap,
                     "num_key_value_heads (%u) and "
                     "tensor_parallel_size (%u) must divide one "
                     "another",
                     kv, tp);
    } else if (pp > m->num_hidden_layers) {
        if (msg)
            snprintf(msg, cap,
                     "pipeline_parallel_size %u exceeds the %u "
                     "layers",
                     pp, m->num_hidden_layers);
    } else if (m->intermediate_size % tp != 0 ||
               (!s->enable_expert_parallel && m->moe_intermediate_size % tp)) {
        if (msg)
            snprintf(msg, cap,
                     "tensor_parallel_size %u does not divide the "
                     "MLP width (%llu / %llu)",
                     tp, (unsigned long long)m->intermediate_size,
                     (unsigned long long)m->moe_intermediate_size);
    } else if (kvb__has_recurrent(m) &&
               (m->ssm_num_heads % tp ||
                (strchr(m->layer_pattern, 'G') && m->ssm_n_groups % tp))) {
        /* MambaMixer2 and Qwen3-Next's GatedDeltaNet divide their heads
         * (GDN: key heads too) by TP; Mamba2 groups that do not divide are
         * replicated instead (extra_groups_for_head_shards) */
        if (msg)
            snprintf(msg, cap,
                     "tensor_parallel_size %u does not divide the "
                     "recurrent layers' heads (%u value, %u key/group)",
                     tp, m->ssm_num_heads, m->ssm_n_groups);
    } else {
        return false;
    }
    return true;
}

/* ---- one pipeline stage ---- */

void kvb__stage_memo_init(kvb__stage_memo *mm, const kvb_model *m, uint32_t pp,
                          uint32_t stage)
{
    memset(mm, 0, sizeof *mm);
    mm->stage = stage;
    for (int k = 0; k < KVB__STAGE_MEMO_SLOTS; k++)
        mm->act[k].v0 = 2; /* empty */
    if (stage < pp)
        kvb__pp_layers(m->num_hidden_layers, stage, pp, &mm->first, &mm->last);
}

/* Everything else a memoised term may read: the engine, its release and
 * accounting, every resolved setting, the GPU's size and capability
 * (FNV-1a over the bytes; a collision only costs a recomputation when
 * the other keys differ too, never a wrong answer because the memo also
 * compares them). */
static uint64_t settings_key(const kvb__engine_in *in)
{
    uint64_t h = 1469598103934665603ull;
    const unsigned char *b = (const unsigned char *)&in->s;
    for (size_t i = 0; i < sizeof in->s; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    uint64_t more[4] = {(uint64_t)in->accounting, in->version,
                        in->gpu->total_bytes, in->gpu->compute_capability};
    b = (const unsigned char *)more;
    for (size_t i = 0; i < sizeof more; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* The engine's loaded weights, kept by what it reads of the GPU (the
 * only row input besides the stage's bytes). */
static uint64_t memo_loaded(const kvb__engine_in *in, kvb__stage_memo *mm,
                            uint64_t bytes)
{
    uint32_t gpu = in->engine->weights_gpu_key(in);
    uint64_t key = settings_key(in);
    for (int k = 0; k < KVB__STAGE_MEMO_SLOTS; k++)
        if (mm->load[k].used && mm->load[k].gpu == gpu &&
            mm->load[k].in == bytes && mm->load[k].settings == key)
            return mm->load[k].out;
    int k = (int)mm->load_next;
    mm->load_next = (mm->load_next + 1) % KVB__STAGE_MEMO_SLOTS;
    mm->load[k].gpu = gpu;
    mm->load[k].settings = key;
    mm->load[k].in = bytes;
    mm->load[k].out = in->engine->loaded_weights(in, mm->stage, bytes);
    mm->load[k].used = 1;
    return mm->load[k].out;
}

/* The engine's activation peak, kept by the batch limits, the accounting
 * and the settings: a sweep over GPUs alternates their batch defaults. */
static uint64_t memo_activation(const kvb__engine_in *in, kvb__stage_memo *mm)
{
    const kvb_serving *s = &in->s;
    uint32_t v0 = (uint32_t)in->accounting;
    if (s->activation_bytes != KVB_AUTO_BYTES)
        return s->activation_bytes;
    uint64_t key = settings_key(in);
    for (int k = 0; k < KVB__STAGE_MEMO_SLOTS; k++)
        if (mm->act[k].v0 == v0 && mm->act[k].settings == key &&
            mm->act[k].tokens == s->max_num_batched_tokens &&
            mm->act[k].seqs == s->max_num_seqs)
            return mm->act[k].bytes;
    int k = (int)mm->act_next;
    mm->act_next = (mm->act_next + 1) % KVB__STAGE_MEMO_SLOTS;
    mm->act[k].tokens = s->max_num_batched_tokens;
    mm->act[k].seqs = s->max_num_seqs;
    mm->act[k].v0 = v0;
    mm->act[k].settings = key;
    mm->act[k].bytes = in->engine->activation(in, mm->stage);
    return mm->act[k].bytes;
}

static const kvb__kv_stage *memo_kv(const kvb__engine_in *in,
                                    kvb__stage_memo *mm, bool hybrid)
{
    uint32_t bs = in->s.block_size;
    if (!mm->ks_done || mm->ks_block != bs || mm->ks_hybrid != hybrid) {
        kvb__kv_stage_make(in->model, in->quant, in->s.tensor_parallel_size,
                           mm->first, mm->last, bs, hybrid, &mm->ks);
        mm->ks_block = bs;
        mm->ks_hybrid = hybrid;
        mm->ks_done = true;
    }
    return &mm->ks;
}

typedef kvb__stage_result stage_result;

static kvb_status plan_stage(const kvb__engine_in *in, kvb__stage_memo *mm,
                             uint64_t requested, uint64_t non_torch,
                             stage_result *r, kvb_error *err)
{
    const kvb_serving *s = &in->s;
    /* a kept failure is computed again when its detail is wanted */
    if (!mm->weights_done || (mm->weights_st && err)) {
        mm->weights_st = kvb__stage_weights_ex(
            in->model, in->quant, s->tensor_parallel_size,
            s->pipeline_parallel_size, mm->stage,
            s->enable_expert_parallel != 0,
            s->mm_encoder_tp_mode == 1 ? KVB__WALK_TOWER_WHOLE : 0,
            &mm->weights, err);
        mm->weights_done = true;
    }
    if (mm->weights_st)
        return mm->weights_st;
    r->weights = mm->weights;
    if (s->weights_bytes && in->inventory_bytes) /* exact bytes from a file */
        r->weights = (uint64_t)((double)r->weights * (double)s->weights_bytes /
                                (double)in->inventory_bytes);
    r->weights = s->loaded_weights_bytes ? s->loaded_weights_bytes
                                         : memo_loaded(in, mm, r->weights);
    const kvb__engine *e = in->engine;
    r->activation = memo_activation(in, mm);
    r->cudagraph = e->cudagraph(in, mm->last - mm->first);
    r->ks = memo_kv(in, mm, e->hybrid_kv(in));
    uint64_t non_kv = r->weights + r->activation + non_torch;
    if (e->graphs_in_budget(in))
        non_kv += r->cudagraph;
    if (s->kv_cache_memory_bytes)
        r->available = (int64_t)s->kv_cache_memory_bytes;
    else
        r->available = (int64_t)requested - (int64_t)non_kv;
    uint64_t avail = r->available > 0 ? (uint64_t)r->available : 0;
    r->num_blocks = e->num_blocks(in, r->ks, avail);
    r->needed = e->needed_bytes(in, r->ks, s->max_model_len);
    r->fit = e->fit_len(in, r->ks, avail, r->num_blocks);
    return KVB_OK;
}

/* ---- verdict ---- */

static void say(kvb_plan *p, bool text, int32_t verdict, const char *fmt, ...)
    KVB__PRINTF(4, 5);

/* The verdict, and its text when `text`. */
static void say(kvb_plan *p, bool text, int32_t verdict, const char *fmt, ...)
{
    p->verdict = verdict;
    p->fits = verdict == KVB_VERDICT_FITS;
    if (!text)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->message, sizeof p->message, fmt, ap);
    va_end(ap);
}

static void verdict_budget(const kvb__engine_in *in, kvb_plan *p,
                           const stage_result *r, bool text)
{
    uint64_t need_len = p->max_model_len;
    const kvb__engine *e = in->engine;
    bool len_fails =
        e->len_fails
            ? e->len_fails(in, p, r)
            : r->needed > (uint64_t)(r->available > 0 ? r->available : 0);
    if (r->available <= 0 || p->num_blocks == 0) {
        say(p, text, KVB_VERDICT_NO_KV_MEMORY,
            "no memory left for KV cache: weights %.2f + activations %.2f + "
            "non-torch %.2f%s GiB leave %.2f of the %.2f GiB usable",
            KVB__GIB(p->weights_bytes_per_gpu),
            KVB__GIB(p->activation_bytes_per_gpu),
            KVB__GIB(p->non_torch_bytes_per_gpu),
            p->cudagraph_in_budget ? " + CUDA graphs" : "",
            r->available < 0 ? -KVB__GIB(p->kv_shortfall_bytes_per_gpu) : 0.0,
            KVB__GIB(p->usable_bytes_per_gpu));
    } else if (len_fails) {
        say(p, text, KVB_VERDICT_MAX_LEN_EXCEEDS_KV,
            "max_model_len %llu needs %.2f GiB of KV cache per GPU but %.2f "
            "GiB is available; the largest max_model_len that fits is %llu",
            (unsigned long long)need_len, KVB__GIB(p->kv_needed_bytes_per_gpu),
            KVB__GIB(p->kv_budget_bytes_per_gpu),
            (unsigned long long)p->max_model_len_fit);
    } else if (!p->cudagraph_in_budget && p->cudagraph_bytes_per_gpu &&
               p->headroom_bytes_per_gpu == 0) {
        say(p, text, KVB_VERDICT_HEADROOM_TOO_SMALL,
            "CUDA graphs need about %.2f GiB outside the %.2f GiB budget, "
            "but utilization %g leaves too little after the CUDA context",
            KVB__GIB(p->cudagraph_bytes_per_gpu),
            KVB__GIB(p->usable_bytes_per_gpu), p->gpu_memory_utilization);
    } else if (p->max_concurrency < (double)p->concurrency ||
               p->concurrency > p->max_num_seqs) {
        say(p, text, KVB_VERDICT_CONCURRENCY_EXCEEDS,
            "holds %.2f requests of %llu tokens at once (max_num_seqs %u); "
            "wanted %u",
            p->max_concurrency, (unsigned long long)need_len, p->max_num_seqs,
            p->concurrency);
    } else {
        say(p, text, KVB_VERDICT_FITS,
            "fits: %.2fx concurrency at max_model_len %llu (%llu KV tokens, "
            "%.2f GiB KV cache per GPU)",
            p->max_concurrency, (unsigned long long)need_len,
            (unsigned long long)p->max_kv_tokens,
            KVB__GIB(p->kv_budget_bytes_per_gpu));
    }
}

static bool verdict_start(const kvb__engine_in *in, kvb_plan *p, bool text)
{
    bool checks = in->engine->startup_check && in->engine->startup_check(in);
    if (checks && !in->s.kv_cache_memory_bytes &&
        p->usable_bytes_per_gpu > p->startup_free_bytes_per_gpu) {
        say(p, text, KVB_VERDICT_HEADROOM_TOO_SMALL,
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
        say(p, text, KVB_VERDICT_WEIGHTS_EXCEED,
            "weights need %.2f GiB per GPU but only %.2f GiB is usable "
            "(%.2f GiB x %g)",
            KVB__GIB(p->weights_bytes_per_gpu),
            KVB__GIB(p->usable_bytes_per_gpu), KVB__GIB(p->gpu_total_bytes),
            p->gpu_memory_utilization);
        return true;
    }
    return false;
}

void kvb__verdict_default(const kvb__engine_in *in, kvb_plan *p,
                          const kvb__stage_result *r, bool text)
{
    if (!verdict_start(in, p, text))
        verdict_budget(in, p, r, text);
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
    p->data_parallel_size = s->data_parallel_size ? s->data_parallel_size : 1;
    uint32_t replica = s->tensor_parallel_size * s->pipeline_parallel_size;
    uint32_t per_node = s->gpus_per_node ? s->gpus_per_node : replica;
    p->gpus_per_node = per_node < replica ? per_node : replica;
    p->nodes = (uint32_t)kvb__cdiv(replica, p->gpus_per_node);
    p->layers_total = in->model->num_hidden_layers;
    p->layers_on_gpu = p->layers_total;
    p->context_size = s->context_size;
}

static kvb_status plan_model(kvb__engine_in *in, const kvb__plan_cache *cache,
                             kvb_plan *p, kvb_error *err)
{
    kvb__model_memo own;
    const kvb__model_memo *mm = &own;
    if (cache) {
        mm = cache->model(cache->ctx, in);
    } else {
        own.bytes = own.params = 0;
        own.st =
            kvb__weights_total(in->model, in->quant, &own.bytes, NULL, err);
        if (!own.st)
            kvb__model_params(in->model, &own.params, NULL);
    }
    if (mm->st)
        return mm->st;
    p->param_count = mm->params;
    p->weights_bytes = in->s.weights_bytes ? in->s.weights_bytes : mm->bytes;
    in->inventory_bytes = mm->bytes;
    kvb__stage_memo *s0 = cache ? cache->stage(cache->ctx, in, 0) : NULL;
    if (s0 && !s0->kv_done) {
        kvb__kv_bytes(in->model, in->quant, in->s.tensor_parallel_size,
                      in->s.pipeline_parallel_size, &s0->kv_whole,
                      &s0->kv_per_gpu);
        s0->kv_done = true;
    }
    if (s0) {
        p->kv_bytes_per_token = s0->kv_whole;
        p->kv_bytes_per_token_per_gpu = s0->kv_per_gpu;
    } else {
        kvb__kv_bytes(in->model, in->quant, in->s.tensor_parallel_size,
                      in->s.pipeline_parallel_size, &p->kv_bytes_per_token,
                      &p->kv_bytes_per_token_per_gpu);
    }
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
    p->block_bytes_per_gpu = r->ks->page_bytes * r->ks->group_size;
    p->kv_cache_groups = r->ks->n_groups;
    p->num_blocks = r->num_blocks;
    p->kv_needed_bytes_per_gpu = r->needed;
    p->max_model_len_fit = r->fit;
    in->engine->report(in, r->ks, r->num_blocks, &p->max_kv_tokens,
                       &p->max_concurrency);
    p->kv_cache_bytes_per_gpu =
        r->num_blocks * r->ks->page_bytes * r->ks->group_size;
    p->max_total_tokens = p->max_kv_tokens;
    uint64_t outside = p->cuda_context_bytes_per_gpu +
                       (p->cudagraph_in_budget ? 0 : r->cudagraph);
    uint64_t left = p->gpu_total_bytes - p->usable_bytes_per_gpu;
    p->headroom_bytes_per_gpu = left > outside ? left - outside : 0;
}

static kvb_status plan_stages(const kvb__engine_in *in,
                              const kvb__plan_cache *cache, kvb_plan *p,
                              bool text, kvb_error *err)
{
    uint64_t requested = p->usable_bytes_per_gpu;
    kvb__stage_memo own;
    kvb__kv_stage best_ks; /* a copy: a later stage may reuse the memo */
    stage_result best, r;
    memset(&best, 0, sizeof best);
    bool have = false;
    for (uint32_t s = 0; s < in->s.pipeline_parallel_size; s++) {
        kvb__stage_memo *mm = &own;
        if (cache)
            mm = cache->stage(cache->ctx, in, s);
        else
            kvb__stage_memo_init(mm, in->model, in->s.pipeline_parallel_size,
                                 s);
        kvb_status st =
            plan_stage(in, mm, requested, p->non_torch_bytes_per_gpu, &r, err);
        if (st)
            return st;
        p->weights_bytes_per_gpu =
            kvb__max(p->weights_bytes_per_gpu, r.weights);
        /* vLLM takes the smallest block count over the workers. */
        if (!have || r.num_blocks < best.num_blocks ||
            (r.num_blocks == best.num_blocks && r.available < best.available)) {
            best = r;
            best_ks = *r.ks;
            best.ks = &best_ks;
        }
        have = true;
    }
    plan_fill_stage(in, p, &best);
    if (in->engine->finish)
        in->engine->finish(in, p, &best);
    if (in->engine->verdict)
        in->engine->verdict(in, p, &best, text);
    else
        kvb__verdict_default(in, p, &best, text);
    return KVB_OK;
}

/* Zero the plan; a sweep's plans carry no text, so only the first byte
 * of each text field is cleared for them. */
static void plan_clear(kvb_plan *p, bool with_message)
{
    size_t head = offsetof(kvb_plan, message);
    memset((char *)p + sizeof p->struct_size, 0, head - sizeof p->struct_size);
    size_t tail = offsetof(kvb_plan, message) + sizeof p->message;
    size_t end = offsetof(kvb_plan, warning);
    memset((char *)p + tail, 0, end - tail);
    /* Warnings are written with or without a message (a hybrid's block
     * size in sweeps, vLLM's tower warnings on most multimodal rows), so a
     * reused plan must not keep a longer earlier one past the terminator:
     * rows compare byte for byte. */
    memset(p->warning, 0, sizeof p->warning);
    if (with_message)
        memset(p->message, 0, sizeof p->message);
    else
        p->message[0] = '\0';
}

kvb_status kvb__plan_core(kvb__engine_in *in, const kvb__plan_cache *cache,
                          kvb_plan *p, bool with_message, kvb_error *err)
{
    plan_clear(p, with_message);
    in->engine = kvb__engine_get(in->s.engine);
    in->version = in->s.engine_version;
    in->accounting = in->engine->accounting(in);
    in->inventory_bytes = 0;
    if (!(in->gpu_names & KVB__GPU_NAMES_KNOWN))
        in->gpu_names = kvb__gpu_names(in->gpu);
    const kvb__engine *e = in->engine;
    /* An engine whose recurrent-state pool is not modelled (Ollama's
     * estimator, TensorRT-LLM, TGI) would plan such a model as
     * attention only: confidently wrong, so it is refused. */
    char allowed[160];
    if (kvb__has_recurrent(in->model) && !e->recurrent) {
        kvb__engines_planning(false, allowed, sizeof allowed);
        return kvb__fail(err, KVB_EUNSUPPORTED, "model.layer_pattern",
                         "planning a hybrid with recurrent layers (%s) on %s "
                         "is not modelled yet: weights, KV per token and the "
                         "state per request are computed, %s's state pool "
                         "is not; allowed: %s",
                         kvb_arch_name(in->model->arch), e->display, e->display,
                         allowed);
    }
    /* DeepSeek-V3.2's indexer key cache: only an engine that sizes it
     * plans such a model; its check hook refuses what it does not model. */
    if (in->model->index_n_heads && !e->sparse_indexer) {
        kvb__engines_planning(true, allowed, sizeof allowed);
        return kvb__fail(err, KVB_EUNSUPPORTED, "model.index_n_heads",
                         "planning a model with a sparse-attention indexer "
                         "(%s, index_n_heads %u) on %s is not modelled: its "
                         "indexer key cache is sized by other engines only; "
                         "allowed: %s",
                         kvb_arch_name(in->model->arch),
                         in->model->index_n_heads, e->display, allowed);
    }
    /* mllama's cross-attention layers keep the image tokens' K/V per
     * request: only an engine that pages them as it does plans it. */
    if (strchr(in->model->layer_pattern, 'X') && !e->cross_attention)
        return kvb__fail(err, KVB_EUNSUPPORTED, "serving.engine",
                         "planning %s (cross-attention layers) on %s is not "
                         "modelled: %s; allowed: vLLM 0.6.2 to 0.10.2 (V0)",
                         kvb_arch_name(in->model->arch), e->display,
                         e->no_cross_attention ? e->no_cross_attention
                                               : "its cache for them is "
                                                 "not modelled");
    /* Gemma 3n's layout (the model's fields, not its family name): an
     * engine whose handling of its shared-KV layers, per-
     * layer embeddings and AltUp streams is not modelled would plan every
     * layer with a cache of its own (SGLang, TensorRT-LLM, TGI, Ollama's
     * estimator): confidently wrong, so it is refused. */
    const kvb_model *m = in->model;
    if ((m->num_kv_shared_layers || m->hidden_size_per_layer_input ||
         m->altup_num_inputs) &&
        !e->kv_sharing)
        return kvb__fail(err, KVB_EUNSUPPORTED, "serving.engine",
                         "planning %s (Gemma 3n's layout) on %s is not "
                         "modelled: its KV "
                         "sharing (the last %u layers cache nothing) and "
                         "per-layer embeddings are sized for vLLM and "
                         "llama.cpp only; allowed: vLLM 0.9.2 or later (V1), "
                         "llama.cpp",
                         kvb_arch_name(m->arch), e->display,
                         m->num_kv_shared_layers);
    e->defaults(in);
    kvb_status st = e->check ? e->check(in, err) : KVB_OK;
    if (st)
        return st;
    plan_settings(in, p);
    st = plan_model(in, cache, p, err);
    if (st)
        return st;
    p->usable_bytes_per_gpu = e->requested_bytes(in);
    p->cuda_context_bytes_per_gpu = e->cuda_context(in);
    p->non_torch_bytes_per_gpu = e->non_torch(in);
    p->cudagraph_in_budget = e->graphs_in_budget(in);
    uint64_t reserved = e->startup_reserved(in);
    const kvb_gpu *g = in->gpu;
    p->startup_free_bytes_per_gpu =
        g->free_bytes
            ? g->free_bytes
            : (g->total_bytes > reserved ? g->total_bytes - reserved : 0);
    char why[256];
    bool (*bad)(const kvb__engine_in *, uint32_t, char *, size_t) =
        e->parallelism_bad ? e->parallelism_bad : kvb__parallelism_bad;
    if (bad(in, g->count, with_message ? why : NULL, sizeof why)) {
        say(p, with_message, KVB_VERDICT_PARALLELISM_INVALID, "%s", why);
        return KVB_OK;
    }
    st = plan_stages(in, cache, p, with_message, err);
    if (st == KVB_EUNSUPPORTED && in->s.tensor_parallel_size > 1) {
        /* quantized shapes that do not split under this TP */
        say(p, with_message, KVB_VERDICT_PARALLELISM_INVALID, "%s",
            err && err->struct_size >= sizeof *err
                ? err->message
                : "quantized shapes do not split");
        kvb__clear(err);
        st = KVB_OK;
    }
    return st;
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
    kvb__engine_in in;
    memset(&in, 0, sizeof in);
    in.model = &m;
    in.quant = &q;
    in.gpu = &g;
    kvb_status st =
        load_inputs(model, quant, gpu, serving, &m, &q, &g, &in.s, err);
    /* the tower is never loaded: vLLM's text-only mode, llama.cpp
     * without --mmproj */
    if (!st &&
        (kvb__vllm_text_only(&m, &in.s) || kvb__llama_no_mmproj(&m, &in.s))) {
        in.tower_left_out = m.vision_kind;
        m.vision_kind = KVB_VISION_NONE;
    }
    if (!st)
        st = kvb__struct_in(plan, sizeof p, &p, "plan", err);
    if (!st)
        st = kvb__plan_core(&in, NULL, &p, true, err);
    if (st)
        return st;
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
    const kvb__engine *e = kvb__engine_get(p.engine);
    if (!e)
        return kvb__fail(err, KVB_ERANGE, "plan.engine",
                         "plan.engine (%d) is not a kvb_engine", p.engine);
    return e->error_text(&p, buf, cap, needed, err);
}
