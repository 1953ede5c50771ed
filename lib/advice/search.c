/*
 * advice/search.c -- remedies as points of a search, not a list.
 *
 * fix.c tries one change at a time.  Here the changes an operator can make
 * on the GPUs at hand (FP8 or AWQ weights, tensor parallelism over the
 * GPUs present, a higher utilization, eager mode, an FP8 KV cache, and a
 * shorter max-model-len when nothing else is enough) are combined, every
 * combination re-planned, and the minimal ones that fit are kept: a combination
 * is dropped when a subset of its changes already fits with at least its
 * context.  Then every fix found gets what it changes, what it gives up
 * (context, concurrency, speed, quality, money) and whether it is on the Pareto
 * front of the fitting fixes.
 *
 * Bounded: at most 3 weight formats x 6 TP sizes x 8 knob settings, each
 * one plan plus at most 16 for its length, so a call stays under a few
 * thousand plans (about 10 ms).
 */
#include "advice/advice.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GIB(b)           KVB__GIB(b)
#define MAX_COMBINED     5 /* combined fixes listed */
#define MAX_SAME_WEIGHTS 3 /* of them, keeping the weights (if others) */

/* ---- prices ---- */

double kvb__gpu_hour_price(const char *gpu_name, const char *cloud)
{
    double best = 0.0;
    for (size_t i = 0; i < kvb__instance_rows_count; i++) {
        const kvb__instance_row *r = &kvb__instance_rows[i];
        if (r->price_per_hour <= 0 || !r->gpu_count ||
            kvb__strcasecmp(r->gpu, gpu_name) != 0 ||
            (cloud && cloud[0] && kvb__strcasecmp(r->cloud, cloud) != 0))
            continue;
        double p = r->price_per_hour / r->gpu_count;
        if (best == 0.0 || p < best)
            best = p;
    }
    return best;
}

/* USD per hour of a fix's GPUs: the instance's price, else GPUs x the
 * cheapest per-GPU price; unknown prices count as dear (1e6 per GPU), so
 * more unknown GPUs still cost more than fewer. */
static double hourly(const kvb_fix *f)
{
    if (f->instance[0] && f->price_per_hour > 0)
        return f->price_per_hour;
    if (f->price_per_gpu_hour > 0)
        return f->price_per_gpu_hour * f->gpu_count;
    return 1e6 * f->gpu_count;
}

/* ---- checkpoints ---- */

static bool needs_checkpoint(int32_t method)
{
    return method == KVB_QUANT_AWQ_4 || method == KVB_QUANT_GPTQ_4 ||
           method == KVB_QUANT_GPTQ_8 || method == KVB_QUANT_FP8;
}

static void fill_checkpoint(const kvb__actx *c, kvb_fix *f)
{
    size_t row;
    f->checkpoint[0] = '\0';
    if (!needs_checkpoint(f->quant_method) ||
        kvb_preset_checkpoint_find(c->model->name, f->quant_method, &row,
                                   NULL) != KVB_OK)
        return;
    kvb__strlcpy(f->checkpoint, kvb_preset_checkpoint_name(row),
                 sizeof f->checkpoint);
}

/* ---- what a fix changes and gives up ---- */

static uint32_t changes_of(const kvb__actx *c, const kvb_fix *f)
{
    uint32_t b = 0;
    if (f->max_model_len != c->base.max_model_len)
        b |= KVB_FIX_CHANGE_MAX_MODEL_LEN;
    if (fabs(f->gpu_memory_utilization - c->base.gpu_memory_utilization) > 1e-9)
        b |= KVB_FIX_CHANGE_UTILIZATION;
    if (f->enforce_eager != c->s.enforce_eager)
        b |= KVB_FIX_CHANGE_EAGER;
    if (f->kv_cache_dtype != c->q.kv_cache_dtype)
        b |= KVB_FIX_CHANGE_KV_DTYPE;
    if (f->quant_method != c->q.method)
        b |= KVB_FIX_CHANGE_QUANT;
    if (f->tensor_parallel_size != c->s.tensor_parallel_size ||
        f->pipeline_parallel_size != c->s.pipeline_parallel_size)
        b |= KVB_FIX_CHANGE_PARALLEL;
    if (strcmp(f->gpu_name, c->g.name) != 0 ||
        f->gpu_total_bytes != c->g.total_bytes || f->gpu_count != c->g.count)
        b |= KVB_FIX_CHANGE_GPUS;
    if (kvb__strcasecmp(f->instance, c->o.instance) != 0)
        b |= KVB_FIX_CHANGE_INSTANCE;
    return b;
}

/* Bits of weight precision a method stores (AUTO: the model's 16). */
static int weight_bits(int32_t method)
{
    switch (method) {
    case KVB_QUANT_FP32: return 32;
    case KVB_QUANT_FP8:
    case KVB_QUANT_GPTQ_8:
    case KVB_QUANT_W8A8_INT8:
    case KVB_QUANT_BNB_8:
    case KVB_QUANT_Q8_0: return 8;
    case KVB_QUANT_Q6_K: return 6;
    case KVB_QUANT_Q5_K_M:
    case KVB_QUANT_Q5_K_S:
    case KVB_QUANT_Q5_0:
    case KVB_QUANT_Q5_1: return 5;
    case KVB_QUANT_Q3_K_S:
    case KVB_QUANT_Q3_K_M:
    case KVB_QUANT_Q3_K_L:
    case KVB_QUANT_IQ3_M: return 3;
    case KVB_QUANT_Q2_K: return 2;
    case KVB_QUANT_W4A16:
    case KVB_QUANT_NVFP4:
    case KVB_QUANT_Q4_K_S:
    case KVB_QUANT_IQ4_XS:
    case KVB_QUANT_IQ4_NL:
    case KVB_QUANT_GPTQ_4:
    case KVB_QUANT_AWQ_4:
    case KVB_QUANT_Q4_K_M:
    case KVB_QUANT_Q4_0:
    case KVB_QUANT_BNB_4:
    case KVB_QUANT_MXFP4: return 4;
    default: return 16;
    }
}

/* Precision given up: bits of weights lost, plus one for an FP8 KV cache
 * that was not FP8 before. */
static int quality_loss(const kvb__actx *c, const kvb_fix *f)
{
    int from = weight_bits(c->q.method), to = weight_bits(f->quant_method);
    int loss = from > to ? from - to : 0;
    if (f->kv_cache_dtype == KVB_DTYPE_FP8 &&
        c->q.kv_cache_dtype != KVB_DTYPE_FP8)
        loss += 1;
    return loss;
}

static uint32_t gives_up_of(const kvb__actx *c, const kvb_fix *f,
                            double base_hourly)
{
    uint32_t b = 0;
    if (f->max_model_len < c->base.max_model_len)
        b |= KVB_FIX_COST_CONTEXT;
    if (f->max_concurrency + 1e-9 < (double)c->base.concurrency)
        b |= KVB_FIX_COST_CONCURRENCY;
    if ((f->enforce_eager && !c->s.enforce_eager) ||
        f->pipeline_parallel_size > c->s.pipeline_parallel_size)
        b |= KVB_FIX_COST_SPEED;
    if (quality_loss(c, f) > 0)
        b |= KVB_FIX_COST_QUALITY;
    bool new_hw = f->changes & (KVB_FIX_CHANGE_GPUS | KVB_FIX_CHANGE_INSTANCE);
    if (base_hourly >= 1e6 ? new_hw : hourly(f) > base_hourly * (1 + 1e-9))
        b |= KVB_FIX_COST_MONEY; /* unknown price at hand: new GPUs cost */
    return b;
}

/* ---- the Pareto front ---- */

/* Costs to minimise: context lost, concurrency lost (as the negative of
 * what it holds), speed, quality, money (gives_up must be filled). */
static void costs(const kvb__actx *c, const kvb_fix *f, double k[5])
{
    k[0] = -(double)f->max_model_len;
    k[1] = -f->max_concurrency;
    k[2] = (f->gives_up & KVB_FIX_COST_SPEED) ? 1.0 : 0.0;
    k[3] = (double)quality_loss(c, f);
    /* money: what the GPUs cost an hour, for remedies that spend more
     * than the hardware at hand (the rest cost nothing new) */
    k[4] = (f->gives_up & KVB_FIX_COST_MONEY) ? hourly(f) : 0.0;
}

bool kvb__fix_dominates(const kvb__actx *c, const kvb_fix *a, const kvb_fix *b)
{
    double ka[5], kb[5];
    costs(c, a, ka);
    costs(c, b, kb);
    bool better = false;
    for (int i = 0; i < 5; i++) {
        double tol = 1e-9 * (fabs(ka[i]) + fabs(kb[i]) + 1.0);
        if (ka[i] > kb[i] + tol)
            return false;
        if (ka[i] < kb[i] - tol)
            better = true;
    }
    return better;
}

void kvb__pareto_mark(const kvb__actx *c, kvb_fix *fixes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fixes[i].pareto = fixes[i].fits;
        for (size_t j = 0; j < n && fixes[i].pareto; j++)
            if (j != i && fixes[j].fits &&
                kvb__fix_dominates(c, &fixes[j], &fixes[i]))
                fixes[i].pareto = 0;
    }
}

void kvb__advise_finish(kvb__actx *c)
{
    kvb_fix base;
    kvb__fix_base(c, KVB_FIX_COMBINED, &base);
    base.price_per_gpu_hour = c->price > 0 && c->g.count
                                  ? c->price / c->g.count
                                  : kvb__gpu_hour_price(c->g.name, c->cloud);
    double base_hourly = hourly(&base);
    for (size_t i = 0; i < c->n; i++) {
        kvb_fix *f = &c->all[i];
        if (f->instance[0] && f->price_per_hour > 0 && f->gpu_count)
            f->price_per_gpu_hour = f->price_per_hour / f->gpu_count;
        else if (!strcmp(f->gpu_name, c->g.name))
            f->price_per_gpu_hour = base.price_per_gpu_hour;
        else
            f->price_per_gpu_hour = kvb__gpu_hour_price(f->gpu_name, c->cloud);
        f->changes = changes_of(c, f);
        f->gives_up = gives_up_of(c, f, base_hourly);
        fill_checkpoint(c, f);
        f->usd_per_million_tokens = kvb__usd_per_mtok(f, c->base.concurrency);
    }
    kvb__pareto_mark(c, c->all, c->n);
}

/* ---- combined changes on the GPUs at hand ---- */

enum { KNOB_UTIL = 1, KNOB_EAGER = 2, KNOB_KV = 4 };

/* The largest friendly max_model_len (power of two or multiple of 1024)
 * that fits with the template's other settings; 0 when none does. */
static uint64_t shorter_len(kvb__actx *c, const kvb_fix *tmpl, kvb_fix *out)
{
    uint64_t want = kvb__max(c->base.concurrency, 1);
    uint64_t len =
        kvb__min(tmpl->max_model_len_fit, tmpl->max_kv_tokens / want);
    len = kvb__min(len, c->base.max_model_len - 1);
    for (int tries = 0; len > 0 && tries < 16; tries++) {
        uint64_t at = kvb__friendly_len(len);
        *out = *tmpl;
        out->max_model_len = at;
        if (kvb__fix_evaluate(c, out) == KVB_OK && out->fits)
            return at;
        len = at - 1;
    }
    return 0;
}

static int popcount(uint32_t v)
{
    int n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* Is `f` (fitting) made redundant by `a`: a's changes are a strict subset
 * of f's, apart from the length, to the same weights, and a keeps at
 * least f's context? */
static bool redundant(const kvb_fix *a, const kvb_fix *f)
{
    uint32_t len = KVB_FIX_CHANGE_MAX_MODEL_LEN;
    uint32_t ca = a->changes & ~len, cf = f->changes & ~len;
    if ((ca & KVB_FIX_CHANGE_QUANT) && a->quant_method != f->quant_method)
        return false;
    return a->fits && (ca & ~cf) == 0 && a->max_model_len >= f->max_model_len &&
           (ca != cf || a->max_model_len > f->max_model_len);
}

/* Lower a raised utilization to the least that still fits. */
static void least_utilization(kvb__actx *c, kvb_fix *f)
{
    int lo = (int)lround(c->base.gpu_memory_utilization * 100.0) + 1;
    for (int pct = (int)lround(f->gpu_memory_utilization * 100.0) - 1;
         pct >= lo; pct--) {
        kvb_fix t = *f;
        t.gpu_memory_utilization = pct / 100.0;
        if (kvb__fix_evaluate(c, &t) != KVB_OK || !t.fits)
            break;
        *f = t;
    }
    kvb__fix_evaluate(c, f);
}

static void combined_text(const kvb__actx *c, kvb_fix *f)
{
    char t[sizeof f->title] = "", *p = t;
    size_t left = sizeof t;
    const char *sep = "";
#define ADD(...)                                                               \
    do {                                                                       \
        int w = snprintf(p, left, "%s", sep);                                  \
        if (w > 0 && (size_t)w < left) {                                       \
            p += w;                                                            \
            left -= (size_t)w;                                                 \
        }                                                                      \
        w = snprintf(p, left, __VA_ARGS__);                                    \
        if (w > 0 && (size_t)w < left) {                                       \
            p += w;                                                            \
            left -= (size_t)w;                                                 \
        }                                                                      \
        sep = " + ";                                                           \
    } while (0)
    if (f->quant_method != c->q.method)
        ADD("%s weights", kvb_quant_method_name(f->quant_method));
    if (f->tensor_parallel_size != c->s.tensor_parallel_size)
        ADD("tensor parallel %u over the %u GPUs at hand",
            f->tensor_parallel_size, f->gpu_count);
    if (f->max_model_len != c->base.max_model_len)
        ADD("max-model-len %llu", (unsigned long long)f->max_model_len);
    if (fabs(f->gpu_memory_utilization - c->base.gpu_memory_utilization) > 1e-9)
        ADD("utilization %.2f", f->gpu_memory_utilization);
    if (f->enforce_eager && !c->s.enforce_eager)
        ADD("eager mode");
    if (f->kv_cache_dtype != c->q.kv_cache_dtype)
        ADD("FP8 KV cache");
#undef ADD
    snprintf(f->title, sizeof f->title, "combine: %s", t);
    snprintf(f->note, sizeof f->note,
             "together they fit where each alone does not; %.2fx concurrency "
             "at %llu tokens (%llu KV tokens, %.2f GiB KV cache per GPU)",
             f->max_concurrency, (unsigned long long)f->max_model_len,
             (unsigned long long)f->max_kv_tokens,
             GIB(f->kv_budget_bytes_per_gpu));
}

/* Better first: the same weights, the full context, then fewer costs
 * (speed before quality), then fewer changes, then the longer context,
 * then the higher precision, then more concurrency. */
static bool listed_before(const kvb__actx *c, const kvb_fix *a,
                          const kvb_fix *b)
{
    /* the same weights first: new weights are a new checkpoint to fetch
     * and validate, flags are not */
    bool wa = a->quant_method != c->q.method;
    bool wb = b->quant_method != c->q.method;
    if (wa != wb)
        return wb;
    bool fa = a->max_model_len == c->base.max_model_len;
    bool fb = b->max_model_len == c->base.max_model_len;
    if (fa != fb)
        return fa;
    int ga = popcount(a->gives_up), gb = popcount(b->gives_up);
    if (ga != gb)
        return ga < gb;
    /* operators give up speed before output quality */
    bool qa = a->gives_up & KVB_FIX_COST_QUALITY;
    bool qb = b->gives_up & KVB_FIX_COST_QUALITY;
    if (qa != qb)
        return qb;
    int ca = popcount(a->changes), cb = popcount(b->changes);
    if (ca != cb)
        return ca < cb;
    if (a->max_model_len != b->max_model_len)
        return a->max_model_len > b->max_model_len;
    int la = quality_loss(c, a), lb = quality_loss(c, b);
    if (la != lb)
        return la < lb;
    return a->max_concurrency > b->max_concurrency;
}

void kvb__advise_combined(kvb__actx *c)
{
    int32_t v = c->base.verdict;
    if (v == KVB_VERDICT_PARALLELISM_INVALID || c->base.max_model_len <= 1)
        return;
    uint32_t cur = c->s.tensor_parallel_size, pp = c->s.pipeline_parallel_size;
    uint32_t have = pp ? c->g.count / pp : 0;
    uint32_t tps[6], ntp = 0;
    tps[ntp++] = cur;
    for (uint32_t t = 2; t <= have && ntp < 5; t *= 2)
        if (t != cur)
            tps[ntp++] = t;
    if (have > cur && (have & (have - 1)) != 0)
        tps[ntp++] = have;
    double hi = floor(c->o.max_utilization * 100.0 + 1e-9) / 100.0;
    bool raise = !c->s.kv_cache_memory_bytes &&
                 v != KVB_VERDICT_HEADROOM_TOO_SMALL &&
                 hi > c->base.gpu_memory_utilization + 1e-9;
    /* only the remedies the engine has (its remedy hook) */
    const kvb__engine *e = kvb__engine_get(c->s.engine);
    bool eager =
        !c->s.enforce_eager && kvb__engine_remedy(e, KVB_FIX_ENFORCE_EAGER, 0);
    bool kv = c->q.kv_cache_dtype != KVB_DTYPE_FP8 &&
              kvb__engine_remedy(e, KVB_FIX_KV_CACHE_FP8, 0);
    raise = raise && kvb__engine_remedy(e, KVB_FIX_UTILIZATION, 0);
    /* weight formats: the current one, then FP8 and AWQ where they store
     * fewer bits and the GPU runs them (a published checkpoint, or the
     * tool that makes one, is named when the fix is finished) */
    int32_t qs[3];
    size_t nq = 0;
    uint32_t cc = c->g.compute_capability;
    int bits = weight_bits(c->q.method);
    qs[nq++] = c->q.method;
    bool gguf = kvb__quant_is_gguf(c->q.method);
    if (!gguf && bits > 8 && (!cc || cc >= 80) &&
        kvb__engine_remedy(e, KVB_FIX_QUANTIZE, KVB_QUANT_FP8))
        qs[nq++] = KVB_QUANT_FP8;
    if (!gguf && bits > 4 && (!cc || cc >= 75) &&
        kvb__engine_remedy(e, KVB_FIX_QUANTIZE, KVB_QUANT_AWQ_4))
        qs[nq++] = KVB_QUANT_AWQ_4;
    kvb_fix cand[3 * 6 * 8];
    size_t nc = 0;
    for (size_t qi = 0; qi < nq; qi++)
        for (uint32_t i = 0; i < ntp; i++) {
            for (int k = 0; k < 8; k++) {
                if (((k & KNOB_UTIL) && !raise) ||
                    ((k & KNOB_EAGER) && !eager) || ((k & KNOB_KV) && !kv))
                    continue;
                kvb_fix f, s;
                kvb__fix_base(c, KVB_FIX_COMBINED, &f);
                f.quant_method = qs[qi];
                f.tensor_parallel_size = tps[i];
                if (k & KNOB_UTIL)
                    f.gpu_memory_utilization = hi;
                if (k & KNOB_EAGER)
                    f.enforce_eager = 1;
                if (k & KNOB_KV)
                    f.kv_cache_dtype = KVB_DTYPE_FP8;
                if (kvb__fix_evaluate(c, &f) != KVB_OK)
                    continue;
                if (!f.fits) {
                    int32_t fv = f.verdict;
                    if (fv != KVB_VERDICT_MAX_LEN_EXCEEDS_KV &&
                        fv != KVB_VERDICT_CONCURRENCY_EXCEEDS)
                        continue;
                    if (!shorter_len(c, &f, &s))
                        continue;
                    f = s;
                }
                f.changes = changes_of(c, &f);
                cand[nc++] = f; /* one change: fix.c lists it; kept here only
                                   to make its supersets redundant */
            }
        }
    /* keep the minimal ones: no fix found so far, and no other candidate,
     * fits with a subset of the changes and at least the context (indices
     * into cand, to keep the stack small) */
    size_t keep[KVB__ARRAY_LEN(cand)];
    size_t nk = 0;
    for (size_t i = 0; i < nc; i++) {
        bool drop = false;
        for (size_t j = 0; j < c->n && !drop; j++) {
            kvb_fix a = c->all[j];
            a.changes = changes_of(c, &a);
            drop = redundant(&a, &cand[i]);
        }
        for (size_t j = 0; j < nc && !drop; j++)
            drop = j != i && redundant(&cand[j], &cand[i]);
        if (!drop && popcount(cand[i].changes) >= 2)
            keep[nk++] = i;
    }
    for (size_t i = 0; i < nk; i++) {
        kvb_fix *f = &cand[keep[i]];
        if (f->changes & KVB_FIX_CHANGE_UTILIZATION)
            least_utilization(c, f);
        f->changes = changes_of(c, f);
        f->gives_up = gives_up_of(c, f, 0.0) & ~KVB_FIX_COST_MONEY;
    }
    /* insertion sort, then the first MAX_COMBINED */
    for (size_t i = 1; i < nk; i++)
        for (size_t j = i;
             j > 0 && listed_before(c, &cand[keep[j]], &cand[keep[j - 1]]);
             j--) {
            size_t t = keep[j];
            keep[j] = keep[j - 1];
            keep[j - 1] = t;
        }
    /* at most MAX_COMBINED: up to MAX_SAME_WEIGHTS keeping the weights,
     * the rest with new weights, either side filling what the other
     * leaves */
    size_t same = 0, other = 0;
    for (size_t i = 0; i < nk; i++) {
        if (cand[keep[i]].quant_method == c->q.method)
            same++;
        else
            other++;
    }
    size_t take_same = same < MAX_SAME_WEIGHTS ? same : MAX_SAME_WEIGHTS;
    size_t take_other =
        other < MAX_COMBINED - take_same ? other : MAX_COMBINED - take_same;
    if (take_same + take_other < MAX_COMBINED)
        take_same =
            same < MAX_COMBINED - take_other ? same : MAX_COMBINED - take_other;
    for (size_t i = 0; i < nk; i++) {
        bool same_w = cand[keep[i]].quant_method == c->q.method;
        size_t *left = same_w ? &take_same : &take_other;
        if (!*left)
            continue;
        (*left)--;
        combined_text(c, &cand[keep[i]]);
        kvb__fix_push(c, &cand[keep[i]]);
    }
}

/* ---- $/million tokens ---- */

/* Memory bandwidth per GPU preset, GB/s (10^9 bytes): shared/data/
 * gpus.json `bandwidth_gbs`, vendor datasheet figures (most recalled, not
 * checked against a primary source: confidence medium); H200 from
 * github:allenai/open-instruct#1441, B200 from github:pytorch/ao#4002,
 * A100 80GB PCIe from mixbench#47.  A100-80GB: the SXM figure. */
static const struct {
    const char *gpu;
    double gbs;
} bandwidths[] = {
    {"T4", 320},           {"A10G", 600},       {"A10", 600},
    {"L4", 300},           {"L40", 864},        {"L40S", 864},
    {"A100-40GB", 1555},   {"A100-80GB", 2039}, {"H100", 3350},
    {"H100-PCIe", 2000},   {"H100-NVL", 3900},  {"H200", 4800},
    {"GH200", 4000},       {"B200", 7672},      {"RTX-3090", 936},
    {"RTX-4090", 1008},    {"RTX-5090", 1792},  {"RTX-A6000", 768},
    {"RTX-6000-Ada", 960}, {"V100-16GB", 900},  {"V100-32GB", 900},
    {"MI210", 1638},       {"MI250X", 3277},    {"MI300X", 5300},
    {"MI325X", 6000},
};

double kvb__gpu_bandwidth(const char *gpu_name)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(bandwidths); i++)
        if (kvb__strcasecmp(bandwidths[i].gpu, gpu_name) == 0)
            return bandwidths[i].gbs * 1e9;
    return 0.0;
}

double kvb__usd_per_mtok(const kvb_fix *f, uint32_t concurrency)
{
    double bw = kvb__gpu_bandwidth(f->gpu_name);
    double usd = f->instance[0] && f->price_per_hour > 0
                     ? f->price_per_hour
                     : f->price_per_gpu_hour * f->gpu_count;
    if (!f->fits || bw <= 0 || usd <= 0 || !f->max_kv_tokens)
        return 0.0;
    /* decode is bound by memory bandwidth: each step every GPU reads its
     * weights and the KV cache of the requests in the batch (on average
     * half of max_model_len each); pipeline stages run one after another */
    double n = concurrency ? concurrency : 1;
    if (f->max_concurrency >= 1.0 && n > f->max_concurrency)
        n = (double)(uint64_t)f->max_concurrency;
    double kv_per_token =
        (double)f->kv_budget_bytes_per_gpu / (double)f->max_kv_tokens;
    double bytes = (double)f->weights_bytes_per_gpu +
                   n * ((double)f->max_model_len / 2.0) * kv_per_token;
    uint32_t pp = f->pipeline_parallel_size ? f->pipeline_parallel_size : 1;
    double step_s = bytes * pp / bw;
    double tokens_per_hour = n / step_s * 3600.0;
    return usd / tokens_per_hour * 1e6;
}

kvb_status kvb_fix_cost(const kvb_fix *fix, uint32_t concurrency, double *usd,
                        kvb_error *err)
{
    kvb_fix f;
    kvb_status st = kvb__struct_in(fix, sizeof f, &f, "fix", err);
    if (st)
        return st;
    if (!usd)
        return kvb__fail(err, KVB_EINVAL, "usd", "usd is NULL");
    f.gpu_name[sizeof f.gpu_name - 1] = '\0';
    f.instance[sizeof f.instance - 1] = '\0';
    *usd = kvb__usd_per_mtok(&f, concurrency);
    return KVB_OK;
}
