/*
 * advice/fix.c -- remedies for a plan that does not fit, each re-planned.
 *
 * Every candidate is a kvb_fix holding the complete changed inputs; it is
 * applied to copies of the caller's inputs with kvb_fix_apply() and
 * planned with kvb_plan_compute(), so what a caller re-plans from a fix
 * is exactly what was predicted here.
 */
#include "advice/advice.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *kvb_fix_kind_name(int kind)
{
    switch (kind) {
#define KVB__FIX_CODE(name, num, code, text)                                   \
    case KVB_FIX_##name: return code;
        KVB_FIX_KIND_MAP(KVB__FIX_CODE)
#undef KVB__FIX_CODE
    default: return NULL;
    }
}

const char *kvb_fix_kind_text(int kind)
{
    switch (kind) {
#define KVB__FIX_TEXT(name, num, code, text)                                   \
    case KVB_FIX_##name: return text;
        KVB_FIX_KIND_MAP(KVB__FIX_TEXT)
#undef KVB__FIX_TEXT
    default: return NULL;
    }
}

uint64_t kvb__friendly_len(uint64_t n)
{
    if (n == 0)
        return 0;
    uint64_t pow2 = 1;
    while (pow2 <= n / 2)
        pow2 *= 2;
    return kvb__max(pow2, n / 1024 * 1024);
}

kvb_status kvb_advice_options_init(kvb_advice_options *o, size_t struct_size)
{
    kvb_status st = kvb__struct_init(o, struct_size, sizeof *o, "options");
    if (st)
        return st;
    o->max_instances = 3;
    o->max_quant = 3;
    o->max_gpus = 8;
    o->min_utilization = 0.5;
    o->max_utilization = 0.95;
    return KVB_OK;
}

kvb_status kvb_fix_init(kvb_fix *fix, size_t struct_size)
{
    return kvb__struct_init(fix, struct_size, sizeof *fix, "fix");
}

static kvb_status options_load(const kvb_advice_options *in,
                               kvb_advice_options *o, kvb_error *err)
{
    if (!in) {
        KVB__CANNOT_FAIL(kvb_advice_options_init(o, sizeof *o));
        return KVB_OK;
    }
    kvb_status st = kvb__struct_in(in, sizeof *o, o, "options", err);
    if (st)
        return st;
    o->instance[sizeof o->instance - 1] = '\0';
    o->cloud[sizeof o->cloud - 1] = '\0';
    if (o->max_instances > 8 || o->max_quant > 8)
        return kvb__fail(err, KVB_ERANGE, "options.max_instances",
                         "options.max_instances (%u) / max_quant (%u) is out "
                         "of range; allowed: 0..8",
                         o->max_instances, o->max_quant);
    if (o->max_gpus < 1 || o->max_gpus > 1024)
        return kvb__fail(err, KVB_ERANGE, "options.max_gpus",
                         "options.max_gpus (%u) is out of range; allowed: "
                         "1..1024",
                         o->max_gpus);
    if (!(o->max_price_per_hour >= 0.0 && o->max_price_per_hour < 1e6))
        return kvb__fail(err, KVB_ERANGE, "options.max_price_per_hour",
                         "options.max_price_per_hour (%g) is out of range; "
                         "allowed: 0 (no limit) .. 1e6",
                         o->max_price_per_hour);
    if (!(o->min_utilization > 0.0 && o->min_utilization <= 1.0) ||
        !(o->max_utilization >= o->min_utilization &&
          o->max_utilization <= 1.0))
        return kvb__fail(err, KVB_ERANGE, "options.max_utilization",
                         "options.min_utilization (%g) and max_utilization "
                         "(%g) are out of range; allowed: 0 < min <= max <= 1",
                         o->min_utilization, o->max_utilization);
    return KVB_OK;
}

/* ---- applying a fix ---- */

static bool gpu_model_differs(const kvb_gpu *g, const kvb_fix *f)
{
    return strncmp(g->name, f->gpu_name, sizeof g->name) != 0 ||
           g->total_bytes != f->gpu_total_bytes;
}

static void apply_gpu(const kvb_fix *f, kvb_gpu *g, kvb_serving *s)
{
    if (gpu_model_differs(g, f)) {
        g->free_bytes = 0;
        s->cuda_context_bytes = KVB_AUTO_BYTES;
    }
    kvb__strlcpy(g->name, f->gpu_name, sizeof g->name);
    g->total_bytes = f->gpu_total_bytes;
    g->count = f->gpu_count;
    g->compute_capability = f->gpu_compute_capability;
    g->multiprocessor_count = f->gpu_multiprocessor_count;
}

kvb_status kvb_fix_apply(const kvb_fix *fix, kvb_quant *quant, kvb_gpu *gpu,
                         kvb_serving *serving, kvb_error *err)
{
    kvb_fix f;
    kvb_status st = kvb__struct_in(fix, sizeof f, &f, "fix", err);
    if (!st)
        st = kvb__struct_check(quant, sizeof *quant, "quant", err);
    if (!st)
        st = kvb__struct_check(gpu, sizeof *gpu, "gpu", err);
    if (!st)
        st = kvb__struct_check(serving, sizeof *serving, "serving", err);
    if (st)
        return st;
    f.gpu_name[sizeof f.gpu_name - 1] = '\0';
    if (quant->method != f.quant_method)
        serving->weights_bytes = 0;
    bool split = gpu_model_differs(gpu, &f) || gpu->count != f.gpu_count ||
                 serving->tensor_parallel_size != f.tensor_parallel_size ||
                 serving->pipeline_parallel_size != f.pipeline_parallel_size;
    /* the engine's measured weights per GPU depend on the split and the
     * format: carry them over only when neither changes */
    if (split || quant->method != f.quant_method)
        serving->loaded_weights_bytes = 0;
    if (split) {
        serving->non_torch_bytes = KVB_AUTO_BYTES;
        serving->activation_bytes = KVB_AUTO_BYTES;
        serving->cudagraph_bytes = KVB_AUTO_BYTES;
    }
    apply_gpu(&f, gpu, serving);
    /* another format is another checkpoint: the read one's exclusion list
     * (quant.keep_roles) does not describe it */
    if (quant->method != f.quant_method)
        quant->keep_roles = 0;
    quant->method = f.quant_method;
    quant->kv_cache_dtype = f.kv_cache_dtype;
    serving->enforce_eager = f.enforce_eager;
    serving->gpu_memory_utilization = f.gpu_memory_utilization;
    serving->max_model_len = f.max_model_len;
    serving->tensor_parallel_size = f.tensor_parallel_size;
    serving->pipeline_parallel_size = f.pipeline_parallel_size;
    return KVB_OK;
}

/* ---- the search ---- */

typedef kvb__actx actx;

#define GIB(b) KVB__GIB(b)

/* snprintf for titles and notes, where cutting a long line is fine. */
static void setf(char *dst, size_t cap, const char *fmt, ...) KVB__PRINTF(3, 4);

static void setf(char *dst, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
}

void kvb__fix_base(const actx *c, int32_t kind, kvb_fix *f)
{
    KVB__CANNOT_FAIL(kvb_fix_init(f, sizeof *f));
    f->kind = kind;
    f->engine = c->s.engine;
    f->quant_method = c->q.method;
    f->kv_cache_dtype = c->q.kv_cache_dtype;
    f->enforce_eager = c->s.enforce_eager;
    f->gpu_memory_utilization = c->base.gpu_memory_utilization;
    f->max_model_len = c->base.max_model_len;
    f->tensor_parallel_size = c->s.tensor_parallel_size;
    f->pipeline_parallel_size = c->s.pipeline_parallel_size;
    kvb__strlcpy(f->gpu_name, c->g.name, sizeof f->gpu_name);
    f->gpu_total_bytes = c->g.total_bytes;
    f->gpu_count = c->g.count;
    f->gpu_compute_capability = c->g.compute_capability;
    f->gpu_multiprocessor_count = c->g.multiprocessor_count;
    kvb__strlcpy(f->instance, c->o.instance, sizeof f->instance);
    kvb__strlcpy(f->cloud, c->cloud, sizeof f->cloud);
    f->price_per_hour = c->price;
}

/* A remedy on the same GPUs, split and weight format as a log measured
 * them cannot hold more than the engine's own estimate of the largest
 * max_model_len, rescaled by what it changes that the log did not
 * measure: more KV memory (utilization, no graphs) and fewer bytes per
 * token (an FP8 KV cache).  The measured budget wins over the modelled
 * one; remedies that change TP, the format or the GPU are re-planned from
 * the model alone. */
static void anchor_to_measured(actx *c, kvb_fix *f)
{
    uint64_t measured = c->o.measured_max_model_len;
    uint64_t was_pt = c->base.kv_bytes_per_token_per_gpu;
    uint64_t now_pt = c->last.kv_bytes_per_token_per_gpu;
    if (!measured || !was_pt || !now_pt ||
        strcmp(f->gpu_name, c->g.name) != 0 ||
        f->gpu_total_bytes != c->g.total_bytes || f->gpu_count != c->g.count ||
        f->tensor_parallel_size != c->s.tensor_parallel_size ||
        f->pipeline_parallel_size != c->s.pipeline_parallel_size ||
        f->quant_method != c->q.method)
        return;
    uint64_t more = c->last.kv_budget_bytes_per_gpu;
    uint64_t was = c->base.kv_budget_bytes_per_gpu;
    double bytes = (double)measured * (double)was_pt +
                   (more > was ? (double)(more - was) : 0.0);
    uint64_t cap = (uint64_t)(bytes / (double)now_pt);
    if (f->max_model_len_fit > cap)
        f->max_model_len_fit = cap;
    if (f->fits && f->max_model_len > cap) {
        f->fits = 0;
        f->verdict = KVB_VERDICT_MAX_LEN_EXCEEDS_KV;
        c->last.fits = 0; /* why_not() words the last plan */
        c->last.verdict = KVB_VERDICT_MAX_LEN_EXCEEDS_KV;
    }
}

/* Plan the candidate; KVB_OK with the outcome filled, or the status of a
 * candidate that cannot be planned (it is then skipped). */
kvb_status kvb__fix_evaluate(actx *c, kvb_fix *f)
{
    kvb_quant q = c->q;
    kvb_gpu g = c->g;
    kvb_serving s = c->s;
    kvb_error e = KVB_ERROR_INIT;
    KVB__CANNOT_FAIL(kvb_plan_init(&c->last, sizeof c->last));
    kvb_status st = kvb_fix_apply(f, &q, &g, &s, &e);
    if (!st)
        st = kvb_plan_compute(c->model, &q, &g, &s, &c->last, &e);
    if (st)
        return st;
    const kvb_plan *p = &c->last;
    f->fits = p->fits;
    f->verdict = p->verdict;
    f->weights_bytes = p->weights_bytes;
    f->weights_bytes_per_gpu = p->weights_bytes_per_gpu;
    f->kv_budget_bytes_per_gpu = p->kv_budget_bytes_per_gpu;
    f->max_kv_tokens = p->max_kv_tokens;
    f->max_concurrency = p->max_concurrency;
    f->max_model_len_fit = p->max_model_len_fit;
    anchor_to_measured(c, f);
    return KVB_OK;
}

static bool fits(actx *c, kvb_fix *f)
{
    return kvb__fix_evaluate(c, f) == KVB_OK && f->fits;
}

void kvb__fix_push(actx *c, const kvb_fix *f)
{
    if (c->n < KVB_ADVICE_MAX)
        c->all[c->n++] = *f;
}

/* Why the last candidate does not fit, in a few words. */
static void why_not(const actx *c, char *buf, size_t cap)
{
    const kvb_plan *p = &c->last;
    switch (p->verdict) {
    case KVB_VERDICT_WEIGHTS_EXCEED:
        setf(buf, cap,
             "the weights alone (%.2f GiB per GPU) exceed the "
             "%.2f GiB usable",
             GIB(p->weights_bytes_per_gpu), GIB(p->usable_bytes_per_gpu));
        break;
    case KVB_VERDICT_NO_KV_MEMORY:
        setf(buf, cap,
             "nothing is left for the KV cache (%.2f GiB "
             "short)",
             GIB(p->kv_shortfall_bytes_per_gpu));
        break;
    case KVB_VERDICT_MAX_LEN_EXCEEDS_KV:
        setf(buf, cap,
             "%.2f GiB of KV cache per GPU is needed, %.2f GiB "
             "is available",
             GIB(p->kv_needed_bytes_per_gpu), GIB(p->kv_budget_bytes_per_gpu));
        break;
    case KVB_VERDICT_CONCURRENCY_EXCEEDS:
        setf(buf, cap, "it holds %.2f requests at once; %u wanted",
             p->max_concurrency, p->concurrency);
        break;
    default: setf(buf, cap, "%s", kvb_verdict_reason(p->verdict)); break;
    }
}

static void note_not(const actx *c, kvb_fix *f, const char *what)
{
    char why[160];
    why_not(c, why, sizeof why);
    setf(f->note, sizeof f->note, "does not help: %s, %s", what, why);
}

static void note_outcome(kvb_fix *f, const char *lead)
{
    setf(f->note, sizeof f->note,
         "%s%.2fx concurrency at %llu tokens (%llu KV tokens, %.2f GiB "
         "KV cache per GPU)",
         lead, f->max_concurrency, (unsigned long long)f->max_model_len,
         (unsigned long long)f->max_kv_tokens, GIB(f->kv_budget_bytes_per_gpu));
}

/* ---- 1. max_model_len ---- */

static uint64_t largest_fitting_len(actx *c, kvb_fix *f)
{
    uint64_t lo = 0, hi = c->base.max_model_len - 1; /* 0: none fits */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        kvb__fix_base(c, KVB_FIX_MAX_MODEL_LEN, f);
        f->max_model_len = mid;
        if (fits(c, f))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The engine's words for a remedy; NULL when it has none (engines'
 * remedy hooks). */
static const char *words(const actx *c, int32_t kind, int32_t quant)
{
    return kvb__engine_remedy(kvb__engine_get(c->s.engine), kind, quant);
}

static void try_max_len(actx *c)
{
    if (c->base.max_model_len <= 1 ||
        c->base.verdict == KVB_VERDICT_PARALLELISM_INVALID)
        return;
    kvb_fix f;
    uint64_t best = largest_fitting_len(c, &f);
    for (uint64_t len = kvb__friendly_len(best), tries = 0;
         len > 0 && tries < 16; len = kvb__friendly_len(len - 1), tries++) {
        kvb__fix_base(c, KVB_FIX_MAX_MODEL_LEN, &f);
        f.max_model_len = len;
        if (fits(c, &f)) {
            setf(f.title, sizeof f.title, "lower %s to %llu",
                 words(c, KVB_FIX_MAX_MODEL_LEN, 0), (unsigned long long)len);
            note_outcome(&f, "requests are capped at this length; ");
            kvb__fix_push(c, &f);
            return;
        }
    }
    kvb__fix_base(c, KVB_FIX_MAX_MODEL_LEN, &f);
    f.max_model_len =
        kvb__friendly_len(kvb__min(1024, c->base.max_model_len - 1));
    if (kvb__fix_evaluate(c, &f) != KVB_OK)
        return;
    setf(f.title, sizeof f.title, "lower %s",
         words(c, KVB_FIX_MAX_MODEL_LEN, 0));
    char what[64];
    setf(what, sizeof what, "even at %llu tokens",
         (unsigned long long)f.max_model_len);
    note_not(c, &f, what);
    kvb__fix_push(c, &f);
}

/* ---- 2. gpu_memory_utilization ---- */

static void util_title(const actx *c, kvb_fix *f, int step)
{
    setf(f->title, sizeof f->title, "%s %s to %.2f",
         step < 0 ? "lower" : "raise", words(c, KVB_FIX_UTILIZATION, 0),
         f->gpu_memory_utilization);
}

static void try_utilization(actx *c)
{
    int32_t v = c->base.verdict;
    if (v == KVB_VERDICT_PARALLELISM_INVALID || c->s.kv_cache_memory_bytes ||
        !words(c, KVB_FIX_UTILIZATION, 0))
        return;
    int cur = (int)lround(c->base.gpu_memory_utilization * 100.0);
    int lo = (int)ceil(c->o.min_utilization * 100.0 - 1e-9);
    int hi = (int)floor(c->o.max_utilization * 100.0 + 1e-9);
    int step = v == KVB_VERDICT_HEADROOM_TOO_SMALL ? -1 : 1;
    int to = step < 0 ? lo : hi;
    if ((cur + step - to) * step > 0)
        return;
    kvb_fix f;
    for (int pct = cur + step; (pct - to) * step <= 0; pct += step) {
        kvb__fix_base(c, KVB_FIX_UTILIZATION, &f);
        f.gpu_memory_utilization = pct / 100.0;
        if (fits(c, &f)) {
            util_title(c, &f, step);
            setf(f.note, sizeof f.note,
                 "leaves %.2f GiB per GPU outside the budget; %.2fx "
                 "concurrency (%llu KV tokens)",
                 GIB(c->last.gpu_total_bytes - c->last.usable_bytes_per_gpu),
                 f.max_concurrency, (unsigned long long)f.max_kv_tokens);
            kvb__fix_push(c, &f);
            return;
        }
    }
    kvb__fix_base(c, KVB_FIX_UTILIZATION, &f);
    f.gpu_memory_utilization = to / 100.0;
    if (kvb__fix_evaluate(c, &f) != KVB_OK)
        return;
    util_title(c, &f, step);
    char what[48];
    setf(what, sizeof what, "even at %.2f", f.gpu_memory_utilization);
    note_not(c, &f, what);
    kvb__fix_push(c, &f);
}

/* ---- 3. enforce eager, 4. FP8 KV cache ---- */

static void try_eager(actx *c)
{
    const char *w = words(c, KVB_FIX_ENFORCE_EAGER, 0);
    if (!w || c->s.enforce_eager ||
        c->base.verdict == KVB_VERDICT_PARALLELISM_INVALID)
        return;
    kvb_fix f;
    kvb__fix_base(c, KVB_FIX_ENFORCE_EAGER, &f);
    f.enforce_eager = 1;
    if (kvb__fix_evaluate(c, &f) != KVB_OK)
        return;
    setf(f.title, sizeof f.title, "add %s", w);
    if (f.fits) {
        setf(f.note, sizeof f.note,
             "frees the %.2f GiB CUDA-graph pool; decoding is slower "
             "without CUDA graphs; %.2fx concurrency",
             GIB(c->base.cudagraph_bytes_per_gpu), f.max_concurrency);
    } else {
        char what[64];
        setf(what, sizeof what, "it frees only %.2f GiB",
             GIB(c->base.cudagraph_bytes_per_gpu));
        note_not(c, &f, what);
    }
    kvb__fix_push(c, &f);
}

static void try_kv_fp8(actx *c)
{
    int32_t v = c->base.verdict;
    const char *w = words(c, KVB_FIX_KV_CACHE_FP8, 0);
    if (!w || c->q.kv_cache_dtype == KVB_DTYPE_FP8 ||
        v == KVB_VERDICT_WEIGHTS_EXCEED || v == KVB_VERDICT_PARALLELISM_INVALID)
        return;
    kvb_fix f;
    kvb__fix_base(c, KVB_FIX_KV_CACHE_FP8, &f);
    f.kv_cache_dtype = KVB_DTYPE_FP8;
    if (!fits(c, &f))
        return;
    setf(f.title, sizeof f.title, "add %s", w);
    setf(f.note, sizeof f.note,
         "KV bytes per token %llu -> %llu; a small accuracy cost; %.2fx "
         "concurrency (%llu KV tokens)",
         (unsigned long long)c->base.kv_bytes_per_token,
         (unsigned long long)c->last.kv_bytes_per_token, f.max_concurrency,
         (unsigned long long)f.max_kv_tokens);
    kvb__fix_push(c, &f);
}

/* ---- 5. quantization ---- */

static const int32_t quant_safetensors[] = {
    KVB_QUANT_BF16,  KVB_QUANT_FP8,    KVB_QUANT_GPTQ_8,
    KVB_QUANT_AWQ_4, KVB_QUANT_GPTQ_4, KVB_QUANT_Q4_K_M,
};
static const int32_t quant_gguf[] = {
    KVB_QUANT_Q8_0,   KVB_QUANT_Q6_K, KVB_QUANT_Q5_K_M,
    KVB_QUANT_Q4_K_M, KVB_QUANT_Q4_0,
};

/* The formats of the current one's kind (GGUF or not; an F16 GGUF file
 * for llama.cpp, which runs no other kind, is GGUF), or of the other
 * kind when the engine runs none of those; the engine's remedy hook
 * says which it runs. */
static size_t quant_list(const actx *c, int32_t *out)
{
    bool gguf = kvb__quant_is_gguf(c->q.method) ||
                !words(c, KVB_FIX_QUANTIZE, c->q.method);
    size_t n = 0;
    for (int pass = 0; pass < 2 && !n; pass++, gguf = !gguf) {
        const int32_t *list = gguf ? quant_gguf : quant_safetensors;
        size_t len = gguf ? KVB__ARRAY_LEN(quant_gguf)
                          : KVB__ARRAY_LEN(quant_safetensors);
        for (size_t i = 0; i < len; i++)
            if (words(c, KVB_FIX_QUANTIZE, list[i]))
                out[n++] = list[i];
    }
    return n;
}

/* Candidates with fewer weight bytes, largest first; returns how many. */
static size_t quant_candidates(actx *c, kvb_fix *cand, size_t cap)
{
    int32_t
        list[KVB__ARRAY_LEN(quant_safetensors) + KVB__ARRAY_LEN(quant_gguf)];
    size_t n_list = quant_list(c, list);
    size_t n = 0;
    for (size_t i = 0; i < n_list && n < cap; i++) {
        kvb_fix f;
        kvb__fix_base(c, KVB_FIX_QUANTIZE, &f);
        f.quant_method = list[i];
        /* never a format the GPU cannot run (FP8 on a T4) */
        if (!kvb__quant_gpu_ok(list[i], c->g.compute_capability))
            continue;
        if (list[i] == c->q.method || kvb__fix_evaluate(c, &f) != KVB_OK ||
            f.weights_bytes >= c->base.weights_bytes)
            continue;
        size_t at = n++;
        while (at > 0 && cand[at - 1].weights_bytes < f.weights_bytes) {
            cand[at] = cand[at - 1];
            at--;
        }
        cand[at] = f;
    }
    return n;
}

static void quant_text(kvb_fix *f)
{
    const char *name = kvb_quant_method_name(f->quant_method);
    setf(f->title, sizeof f->title, "quantize to %s (%.2f GiB of weights)",
         name, GIB(f->weights_bytes));
}

/* Where the weights come from: a published checkpoint (named in the
 * flags), or the tool that makes one; never the base repository with a
 * format it does not hold. */
static void quant_note(const actx *c, kvb_fix *f)
{
    int32_t m = f->quant_method;
    const char *name = kvb_quant_method_name(m), *tool = kvb__quant_tool(m);
    size_t row;
    char from[128];
    if (kvb_preset_checkpoint_find(c->model->name, m, &row, NULL) == KVB_OK)
        setf(from, sizeof from, "serve the published checkpoint %s",
             kvb_preset_checkpoint_name(row));
    else if (m == KVB_QUANT_FP8 || m == KVB_QUANT_BNB_4 || !tool)
        setf(from, sizeof from, "quantized as it loads");
    else
        setf(from, sizeof from,
             "no published %s checkpoint is known: make "
             "one with %s",
             name, tool);
    setf(f->note, sizeof f->note,
         "%s; %s; %.2fx concurrency (%llu KV "
         "tokens)",
         from, kvb_quant_method_note(m), f->max_concurrency,
         (unsigned long long)f->max_kv_tokens);
}

static void try_quantize(actx *c)
{
    if (!c->o.max_quant)
        return;
    kvb_fix cand[KVB__ARRAY_LEN(quant_safetensors)];
    size_t n = quant_candidates(c, cand, KVB__ARRAY_LEN(cand)), pushed = 0;
    for (size_t i = 0; i < n && pushed < c->o.max_quant; i++) {
        if (!cand[i].fits)
            continue;
        quant_text(&cand[i]);
        quant_note(c, &cand[i]);
        kvb__fix_push(c, &cand[i]);
        pushed++;
    }
    if (pushed || !n)
        return;
    kvb_fix *f = &cand[n - 1]; /* the smallest, to say why not */
    if (kvb__fix_evaluate(c, f) != KVB_OK)
        return;
    quant_text(f);
    note_not(c, f, "even the smallest format");
    kvb__fix_push(c, f);
}

/* ---- 6. tensor parallelism, 7. instances ---- */

static bool try_tp_at(actx *c, uint32_t tp, uint32_t count, kvb_fix *f)
{
    kvb__fix_base(c, KVB_FIX_TENSOR_PARALLEL, f);
    f->tensor_parallel_size = tp;
    f->gpu_count = count;
    return fits(c, f);
}

static void tp_text(actx *c, kvb_fix *f, bool more)
{
    /* engines without a TP degree (llama.cpp, Ollama) split the layers
     * over the GPUs they see */
    const char *w = words(c, KVB_FIX_TENSOR_PARALLEL, 0);
    char how[64];
    if (w)
        setf(how, sizeof how, "with %s %u", w, f->tensor_parallel_size);
    else
        setf(how, sizeof how, "splitting the layers");
    if (more)
        setf(f->title, sizeof f->title, "use %u x %s %s", f->gpu_count,
             f->gpu_name[0] ? f->gpu_name : "the same GPU", how);
    else if (w)
        setf(f->title, sizeof f->title, "use %s %u on the %u GPUs", w,
             f->tensor_parallel_size, f->gpu_count);
    else
        setf(f->title, sizeof f->title, "split the layers over the %u GPUs",
             f->gpu_count);
    char lead[80];
    setf(lead, sizeof lead, "%.2f GiB of weights per GPU; ",
         GIB(f->weights_bytes_per_gpu));
    note_outcome(f, lead);
}

static void try_tensor_parallel(actx *c)
{
    uint32_t tp = c->s.tensor_parallel_size, pp = c->s.pipeline_parallel_size;
    uint32_t have = c->g.count / pp;
    kvb_fix f;
    for (uint32_t t = tp + 1; t <= have; t++) {
        bool pow2 = (t & (t - 1)) == 0;
        if ((pow2 || t == have) && try_tp_at(c, t, c->g.count, &f)) {
            tp_text(c, &f, false);
            kvb__fix_push(c, &f);
            return;
        }
    }
    if (c->o.instance[0])
        return;
    uint32_t t = 1;
    while (t <= kvb__max(tp, have))
        t *= 2;
    for (; (uint64_t)t * pp <= c->o.max_gpus; t *= 2) {
        if (try_tp_at(c, t, t * pp, &f)) {
            tp_text(c, &f, true);
            kvb__fix_push(c, &f);
            return;
        }
    }
}

/* The largest TP (the GPU count, then smaller powers of two) that fits. */
static bool instance_fits(actx *c, const kvb_instance *in, const kvb_gpu *g,
                          kvb_fix *f)
{
    uint32_t pp = c->s.pipeline_parallel_size, top = g->count / pp;
    uint32_t t = top;
    while (t >= 1) {
        kvb__fix_base(c, KVB_FIX_INSTANCE, f);
        kvb__strlcpy(f->gpu_name, g->name, sizeof f->gpu_name);
        f->gpu_total_bytes = g->total_bytes;
        f->gpu_count = g->count;
        f->gpu_compute_capability = g->compute_capability;
        f->gpu_multiprocessor_count = g->multiprocessor_count;
        kvb__strlcpy(f->instance, in->name, sizeof f->instance);
        kvb__strlcpy(f->cloud, in->cloud, sizeof f->cloud);
        f->price_per_hour = in->price_per_hour;
        f->tensor_parallel_size = t;
        if (fits(c, f))
            return true;
        uint32_t p = 1;
        while (p * 2 < t)
            p *= 2;
        t = t == 1 ? 0 : p;
    }
    return false;
}

/* Cheaper first; unknown prices last; then fewer GPUs, then the name. */
static bool cheaper(const kvb_fix *a, const kvb_fix *b)
{
    double pa = a->price_per_hour > 0 ? a->price_per_hour : HUGE_VAL;
    double pb = b->price_per_hour > 0 ? b->price_per_hour : HUGE_VAL;
    if (pa != pb)
        return pa < pb;
    if (a->gpu_count != b->gpu_count)
        return a->gpu_count < b->gpu_count;
    return strcmp(a->instance, b->instance) < 0;
}

static void keep_cheapest(kvb_fix *best, size_t *n, size_t max,
                          const kvb_fix *f)
{
    size_t at = *n < max ? (*n)++ : max;
    while (at > 0 && cheaper(f, &best[at - 1])) {
        if (at < max)
            best[at] = best[at - 1];
        at--;
    }
    if (at < max)
        best[at] = *f;
}

static bool instance_eligible(const actx *c, const kvb_instance *in)
{
    const char *cloud = c->o.cloud[0] ? c->o.cloud : c->cloud;
    if (kvb__strcasecmp(in->name, c->o.instance) == 0)
        return false;
    if (c->o.max_price_per_hour > 0 &&
        !(in->price_per_hour > 0 &&
          in->price_per_hour <= c->o.max_price_per_hour))
        return false;
    return !cloud[0] || kvb__strcasecmp(in->cloud, cloud) == 0;
}

/* The same family as the GPUs at hand: the same GPU model on the same
 * cloud (g6e.xlarge -> g6e.12xlarge, a2-ultragpu-1g -> a2-ultragpu-4g). */
static bool same_family(const actx *c, const kvb_instance *in)
{
    return c->o.instance[0] && kvb__strcasecmp(in->gpu_name, c->g.name) == 0 &&
           kvb__strcasecmp(in->cloud, c->cloud) == 0;
}

static void instance_text(const actx *c, kvb_fix *f)
{
    char price[32] = "price unknown";
    if (f->price_per_hour > 0)
        setf(price, sizeof price, "$%.2f/h", f->price_per_hour);
    const char *w = words(c, KVB_FIX_TENSOR_PARALLEL, 0);
    char how[64] = "";
    if (w)
        setf(how, sizeof how, " with %s %u", w, f->tensor_parallel_size);
    setf(f->title, sizeof f->title, "move to %s (%u x %s, %s)%s", f->instance,
         f->gpu_count, f->gpu_name, price, how);
    note_outcome(f, "");
}

/* The cheapest fitting instances on one pass: the same family as the
 * GPUs at hand (pass 0, the cheapest one), or the others (pass 1). */
static void instances_pass(actx *c, int pass)
{
    kvb_fix best[8];
    size_t n = 0, max = pass == 0 ? 1 : c->o.max_instances;
    for (size_t i = 0; i < kvb_preset_instance_count() && max; i++) {
        kvb_instance in;
        kvb_gpu g;
        kvb_fix f;
        KVB__CANNOT_FAIL(kvb_instance_init(&in, sizeof in));
        KVB__CANNOT_FAIL(kvb_gpu_init(&g, sizeof g));
        if (kvb_preset_instance_get(i, &in, NULL) != KVB_OK ||
            !instance_eligible(c, &in) || same_family(c, &in) != (pass == 0) ||
            kvb_instance_gpu(&in, &g, NULL) != KVB_OK ||
            g.count < c->s.pipeline_parallel_size ||
            !instance_fits(c, &in, &g, &f))
            continue;
        keep_cheapest(best, &n, max, &f);
    }
    for (size_t i = 0; i < n; i++) {
        instance_text(c, &best[i]);
        if (pass == 0) {
            size_t len = strlen(best[i].title);
            setf(best[i].title + len, sizeof best[i].title - len,
                 " (same family)");
        }
        kvb__fix_push(c, &best[i]);
    }
}

/* The present hardware's family first, then the others. */
static void try_instances(actx *c)
{
    instances_pass(c, 0);
    instances_pass(c, 1);
}

/* ---- putting it together ---- */

static kvb_status load(actx *c, const kvb_quant *quant, const kvb_gpu *gpu,
                       const kvb_serving *serving,
                       const kvb_advice_options *options, kvb_error *err)
{
    kvb_status st = options_load(options, &c->o, err);
    if (!st)
        st = kvb__quant_load(quant, &c->q, err);
    if (!st)
        st = kvb__gpu_load(gpu, &c->g, err);
    if (!st)
        st = kvb__serving_load(serving, &c->s, err);
    if (st || !c->o.instance[0])
        return st;
    kvb_instance in;
    KVB__CANNOT_FAIL(kvb_instance_init(&in, sizeof in));
    if (kvb_preset_instance_find(c->o.instance, &in, NULL) == KVB_OK) {
        kvb__strlcpy(c->cloud, in.cloud, sizeof c->cloud);
        kvb__strlcpy(c->o.instance, in.name, sizeof c->o.instance);
        c->price = in.price_per_hour;
    }
    return KVB_OK;
}

static kvb_status check_out(kvb_fix *fixes, size_t cap, size_t *count,
                            kvb_error *err)
{
    if (!count)
        return kvb__fail(err, KVB_EINVAL, "count", "count must not be NULL");
    if (cap == 0)
        return KVB_OK;
    if (!fixes)
        return kvb__fail(err, KVB_EINVAL, "fixes",
                         "fixes is NULL but cap is %zu; allowed: an array "
                         "of cap fixes",
                         cap);
    return kvb__struct_check(fixes, sizeof *fixes, "fixes", err);
}

kvb_status kvb_advise(const kvb_model *model, const kvb_quant *quant,
                      const kvb_gpu *gpu, const kvb_serving *serving,
                      const kvb_advice_options *options, kvb_fix *fixes,
                      size_t cap, size_t *count, kvb_error *err)
{
    actx c;
    memset(&c, 0, sizeof c);
    kvb_status st = check_out(fixes, cap, count, err);
    if (st)
        return st;
    *count = 0;
    KVB__CANNOT_FAIL(kvb_plan_init(&c.base, sizeof c.base));
    st = kvb_plan_compute(model, quant, gpu, serving, &c.base, err);
    if (!st)
        st = load(&c, quant, gpu, serving, options, err);
    if (st)
        return st;
    c.model = model;
    if (!c.base.fits) {
        try_max_len(&c);
        try_utilization(&c);
        try_eager(&c);
        try_kv_fp8(&c);
        kvb__advise_combined(&c);
        try_quantize(&c);
        try_tensor_parallel(&c);
        try_instances(&c);
        kvb__advise_finish(&c);
    }
    for (size_t i = 0; i < c.n && i < cap; i++) {
        c.all[i].struct_size = sizeof c.all[i];
        fixes[i] = c.all[i];
    }
    *count = c.n;
    if (c.n > cap)
        return kvb__fail(err, KVB_EBUFSIZE, "cap",
                         "cap (%zu) is smaller than the %zu fixes found; "
                         "allowed: >= %zu (KVB_ADVICE_MAX is enough)",
                         cap, c.n, c.n);
    return KVB_OK;
}

/* ---- rendering ---- */

void kvb__arg(kvb__args *a, const char *fmt, ...)
{
    if (a->n >= KVB__ARRAY_LEN(a->tok))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->tok[a->n++], sizeof a->tok[0], fmt, ap);
    va_end(ap);
}

/* A bounded string builder: counts what it could not store. */
typedef struct sbuf {
    char *buf;
    size_t cap, len;
} sbuf;

static void put(sbuf *b, const char *s)
{
    for (; *s; s++, b->len++)
        if (b->len + 1 < b->cap)
            b->buf[b->len] = *s;
    if (b->cap)
        b->buf[b->len < b->cap ? b->len : b->cap - 1] = '\0';
}

static bool shell_safe(const char *s)
{
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789._/:=@+-,",
                    *s))
            return false;
    return true;
}

static void put_shell(sbuf *b, const char *s)
{
    if (shell_safe(s) && *s) {
        put(b, s);
        return;
    }
    put(b, "'");
    for (char one[2] = {0, 0}; *s; s++) {
        one[0] = *s;
        put(b, *s == '\'' ? "'\\''" : one);
    }
    put(b, "'");
}

static void put_yaml(sbuf *b, const char *s)
{
    put(b, "\"");
    for (char one[2] = {0, 0}; *s; s++) {
        one[0] = *s;
        put(b, *s == '"' ? "\\\"" : *s == '\\' ? "\\\\" : one);
    }
    put(b, "\"");
}

static void render_karpenter(const kvb_fix *f, sbuf *b)
{
    put(b, "requirements:\n");
    const char *dot = strchr(f->instance, '.');
    if (kvb__strcasecmp(f->cloud, "aws") == 0 && dot && dot[1]) {
        char family[64];
        size_t n = (size_t)(dot - f->instance);
        memcpy(family, f->instance, n);
        family[n] = '\0';
        put(b, "  - key: \"karpenter.k8s.aws/instance-family\"\n"
               "    operator: In\n    values: [");
        put_yaml(b, family);
        put(b, "]\n  - key: \"karpenter.k8s.aws/instance-size\"\n"
               "    operator: In\n    values: [");
        put_yaml(b, dot + 1);
        put(b, "]\n");
        return;
    }
    put(b, "  - key: \"node.kubernetes.io/instance-type\"\n"
           "    operator: In\n    values: [");
    put_yaml(b, f->instance);
    put(b, "]\n");
}

/* "/models/<repository's base name>-<FORMAT>": the directory an operator
 * fills with a checkpoint made by the tool the fix's note names. */
static void placeholder_name(const kvb_model *m, int32_t method, char *buf,
                             size_t cap)
{
    char repo[96], upper[16];
    const char *name = kvb__model_repo(m->name, repo, sizeof repo) ? repo
                       : m->name[0]                                ? m->name
                                                                   : "MODEL";
    const char *base = strrchr(name, '/');
    snprintf(upper, sizeof upper, "%s", kvb_quant_method_name(method));
    for (char *p = upper; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    setf(buf, cap, "/models/%s-%s", base ? base + 1 : name, upper);
}

static kvb_status render_to(const kvb_fix *f, const kvb_model *m,
                            int32_t format, sbuf *b, kvb_error *err)
{
    if (format < 0 || format >= KVB_RENDER_LAST_)
        return kvb__fail(err, KVB_ERANGE, "format",
                         "format (%d) is not a kvb_render_format; allowed: "
                         "0..%d",
                         format, KVB_RENDER_LAST_ - 1);
    if (format == KVB_RENDER_KARPENTER) {
        if (!f->instance[0])
            return kvb__fail(err, KVB_EINVAL, "format",
                             "format (karpenter) needs a fix with an "
                             "instance; allowed: vllm-args, k8s-args");
        render_karpenter(f, b);
        return KVB_OK;
    }
    kvb__args a = {.n = 0};
    const kvb__engine *e = kvb__engine_get(f->engine);
    if (!e)
        return kvb__fail(err, KVB_ERANGE, "fix.engine",
                         "fix.engine (%d) is not a kvb_engine", f->engine);
    kvb_fix g = *f;
    size_t row;
    /* a fix made by hand names no checkpoint: the table's, if any */
    if (!g.checkpoint[0] &&
        (g.quant_method == KVB_QUANT_AWQ_4 ||
         g.quant_method == KVB_QUANT_GPTQ_4 ||
         g.quant_method == KVB_QUANT_GPTQ_8 ||
         g.quant_method == KVB_QUANT_FP8) &&
        kvb_preset_checkpoint_find(m->name, g.quant_method, &row, NULL) ==
            KVB_OK)
        kvb__strlcpy(g.checkpoint, kvb_preset_checkpoint_name(row),
                     sizeof g.checkpoint);
    /* every engine serves the checkpoint, not the base repository with a
     * format it does not hold: the engine renders a model named after
     * it (AWQ/GPTQ without a known checkpoint: a directory to fill) */
    kvb_model named = *m;
    bool pre = g.quant_method == KVB_QUANT_AWQ_4 ||
               g.quant_method == KVB_QUANT_GPTQ_4 ||
               g.quant_method == KVB_QUANT_GPTQ_8;
    if (g.checkpoint[0] && strlen(g.checkpoint) < sizeof named.name)
        kvb__strlcpy(named.name, g.checkpoint, sizeof named.name);
    else if (pre && !g.checkpoint[0])
        placeholder_name(m, g.quant_method, named.name, sizeof named.name);
    e->render_args(&g, &named, &a);
    if (format == KVB_RENDER_K8S_ARGS)
        put(b, "args:\n");
    for (size_t i = 0; i < a.n; i++) {
        if (format == KVB_RENDER_K8S_ARGS) {
            put(b, "  - ");
            put_yaml(b, a.tok[i]);
            put(b, "\n");
        } else {
            put(b, i ? " " : "");
            put_shell(b, a.tok[i]);
        }
    }
    return KVB_OK;
}

kvb_status kvb_fix_render(const kvb_fix *fix, const kvb_model *model,
                          int32_t format, char *buf, size_t cap, size_t *needed,
                          kvb_error *err)
{
    kvb_fix f;
    kvb_model m;
    kvb_status st = kvb__struct_in(fix, sizeof f, &f, "fix", err);
    if (!st)
        st = kvb__struct_in(model, sizeof m, &m, "model", err);
    if (st)
        return st;
    if (!buf && cap)
        return kvb__fail(err, KVB_EINVAL, "buf",
                         "buf is NULL but cap is "
                         "%zu",
                         cap);
    f.instance[sizeof f.instance - 1] = '\0';
    f.cloud[sizeof f.cloud - 1] = '\0';
    f.checkpoint[sizeof f.checkpoint - 1] = '\0';
    m.name[sizeof m.name - 1] = '\0';
    char scratch[1];
    sbuf b = {cap ? buf : scratch, cap ? cap : 1, 0};
    st = render_to(&f, &m, format, &b, err);
    if (st)
        return st;
    if (needed)
        *needed = b.len + 1;
    if (b.len >= cap)
        return kvb__fail(err, KVB_EBUFSIZE, "buf",
                         "buf (%zu bytes) is too small; allowed: >= %zu", cap,
                         b.len + 1);
    return KVB_OK;
}
