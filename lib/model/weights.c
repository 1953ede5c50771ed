/*
 * model/weights.c -- what the inventory and the storage rules add up to:
 * the parameter count, the bytes of each tensor, of the checkpoint and of
 * one GPU's share.  It sits above model.c (architecture), inventory.c (the
 * tensor walk) and quant.c (storage per tensor), which never call it, so
 * the model folder has no import cycle.
 */
#include "internal.h"

#include <string.h>

/* ---- parameter counts ---- */

typedef struct count_ctx {
    const kvb_model *m;
    uint64_t total, active;
} count_ctx;

static int count_tensor(void *vctx, const kvb__tdesc *t)
{
    count_ctx *c = vctx;
    uint64_t one = t->rows * t->cols;
    c->total += one * t->experts;
    bool routed =
        t->experts > 1 || t->role == KVB_ROLE_EXPERT_GATE ||
        t->role == KVB_ROLE_EXPERT_UP || t->role == KVB_ROLE_EXPERT_DOWN ||
        (t->role == KVB_ROLE_BIAS && (t->of_role == KVB_ROLE_EXPERT_GATE ||
                                      t->of_role == KVB_ROLE_EXPERT_UP ||
                                      t->of_role == KVB_ROLE_EXPERT_DOWN));
    /* The tower encodes images, not text tokens: a model card's "active"
     * figure (Llama 4's 17B) leaves it out. */
    if (t->role != KVB_ROLE_VISION)
        c->active +=
            routed ? one * c->m->num_experts_per_tok : one * t->experts;
    return 0;
}

/* Dense and MoE layers each have one shape: count one of each, multiply. */
void kvb__model_params(const kvb_model *m, uint64_t *total, uint64_t *active)
{
    count_ctx c = {m, 0, 0};
    kvb__inventory_walk_range(
        m, 0, 0, KVB__WALK_EMBED | KVB__WALK_HEAD | KVB__WALK_TOWER,
        count_tensor, &c);
    if (m->layer_pattern[0]) { /* a hybrid: its layers differ; walk each */
        for (uint32_t i = 0; i < m->num_hidden_layers; i++)
            kvb__inventory_walk_range(m, i, i + 1, 0, count_tensor, &c);
        *total = c.total;
        if (active)
            *active = c.active;
        return;
    }
    uint32_t n = m->num_hidden_layers, moe = kvb__count_moe(m, 0, n);
    uint32_t counts[2] = {n - moe, moe};
    for (int k = 0; k < 2; k++) {
        if (!counts[k])
            continue;
        /* a representative layer of each kind */
        uint32_t i = 0;
        while (kvb__layer_is_moe(m, i) != (k == 1))
            i++;
        count_ctx one = {m, 0, 0};
        kvb__inventory_walk_range(m, i, i + 1, 0, count_tensor, &one);
        c.total += one.total * counts[k];
        c.active += one.active * counts[k];
    }
    *total = c.total;
    if (active)
        *active = c.active;
}

kvb_status kvb_model_param_count(const kvb_model *model, uint64_t *total,
                                 uint64_t *active, kvb_error *err)
{
    if (!total)
        return kvb__fail(err, KVB_EINVAL, "total", "total must not be NULL");
    kvb_model m;
    kvb_status st = kvb__model_load(model, &m, err);
    if (st)
        return st;
    kvb__model_params(&m, total, active);
    return KVB_OK;
}

/* The llama.cpp mixes count attn_v tensors in file order, so the storage
 * of tensor N depends on the walk up to N: replay it. */
typedef struct storage_ctx {
    kvb__quant_ctx qc;
    size_t want, seen;
    kvb__tdesc found;
    int32_t storage;
} storage_ctx;

static int pick_with_storage(void *vctx, const kvb__tdesc *t)
{
    storage_ctx *c = vctx;
    int32_t storage = kvb__storage_for(&c->qc, t);
    if (c->seen++ != c->want)
        return 0;
    c->found = *t;
    c->storage = storage;
    return 1;
}

kvb_status kvb_model_tensor_get(const kvb_model *model, const kvb_quant *quant,
                                size_t index, kvb_tensor *tensor,
                                kvb_error *err)
{
    kvb_model m;
    kvb_quant q;
    kvb_tensor out;
    kvb_status st = kvb__model_load(model, &m, err);
    if (!st)
        st = kvb__quant_load(quant, &q, err);
    if (!st)
        st = kvb__struct_in(tensor, sizeof out, &out, "tensor", err);
    if (st)
        return st;
    storage_ctx c = {{0}, index, 0, {0}, 0};
    kvb__quant_ctx_init(&c.qc, &m, &q);
    if (!kvb__inventory_walk(&m, pick_with_storage, &c))
        return kvb__fail(err, KVB_ERANGE, "index",
                         "index (%zu) is past the last tensor; allowed: "
                         "0..%zu",
                         index, c.seen ? c.seen - 1 : 0);
    const kvb__tdesc *t = &c.found;
    kvb__tensor_name(&m, t, out.name, sizeof out.name);
    out.role = t->role;
    out.layer = t->layer;
    out.experts = t->experts;
    out.rows = t->rows;
    out.cols = t->cols;
    out.params = t->experts * t->rows * t->cols;
    out.storage = c.storage;
    out.split = t->split;
    st = kvb__storage_bytes(c.storage, &q, t->experts, t->rows, t->cols,
                            &out.bytes);
    if (st)
        return kvb__fail(err, st, "quant.method",
                         "quant.method (%s) cannot store %s (%llu x %llu)",
                         kvb_quant_method_name(q.method), out.name,
                         (unsigned long long)t->rows,
                         (unsigned long long)t->cols);
    kvb__struct_out(&out, sizeof out, tensor);
    return KVB_OK;
}

/* ---- weights ---- */

typedef struct weigh_ctx {
    kvb__quant_ctx qc;
    uint32_t tp;
    bool expert_parallel;
    bool per_rank;
    uint64_t bytes, params, quantized;
    kvb_status st;
    kvb__tdesc bad;
} weigh_ctx;

static bool is_quantized_storage(int32_t s)
{
    return s != KVB_STORAGE_F32 && s != KVB_STORAGE_F16 &&
           s != KVB_STORAGE_BF16;
}

static int weigh(void *vctx, const kvb__tdesc *t)
{
    weigh_ctx *c = vctx;
    int32_t storage = kvb__storage_for(&c->qc, t);
    uint64_t b = 0, params = t->experts * t->rows * t->cols;
    kvb_status st =
        c->per_rank
            ? kvb__tensor_rank_bytes(t, storage, c->qc.model, c->qc.quant,
                                     c->tp, c->expert_parallel, &b)
            : kvb__storage_bytes(storage, c->qc.quant, t->experts, t->rows,
                                 t->cols, &b);
    if (!st && !kvb__add_ok(c->bytes, b, &c->bytes))
        st = KVB_EOVERFLOW;
    if (st) {
        c->st = st;
        c->bad = *t;
        return 1;
    }
    c->params += params;
    if (is_quantized_storage(storage))
        c->quantized += params;
    return 0;
}

static kvb_status weigh_fail(const kvb_model *m, const kvb_quant *q,
                             const weigh_ctx *c, uint32_t tp, kvb_error *err)
{
    if (c->st == KVB_EOVERFLOW)
        return kvb__fail(err, KVB_EOVERFLOW, "model",
                         "model weights overflow 64 bits; allowed: smaller "
                         "dimensions");
    char name[96];
    kvb__tensor_name(m, &c->bad, name, sizeof name);
    return kvb__fail(err, KVB_EUNSUPPORTED, "quant.group_size",
                     "quant.group_size (%u) does not fit %s (%llu x %llu, "
                     "split %u ways) for %s; allowed: a group size and TP "
                     "that divide its input features",
                     q->group_size, name, (unsigned long long)c->bad.rows,
                     (unsigned long long)c->bad.cols, tp,
                     kvb_quant_method_name(q->method));
}

/*
 * Layers stored alike weigh alike, so each kind of layer is walked once:
 * the kind is MoE-or-dense and, for the llama.cpp mixes, whether the
 * layer's attn_v / ffn_down get more bits (both follow use_more_bits of
 * the layer index, since every layer has exactly one attn_v-like tensor).
 */
static unsigned layer_kind(const kvb__quant_ctx *qc, uint32_t i)
{
    const kvb_model *m = qc->model;
    unsigned kind = kvb__layer_is_moe(m, i) ? 1u : 0u;
    /* a hybrid's layer kinds (layer_pattern) weigh differently */
    const char *at = strchr(KVB__LAYER_KINDS, kvb__layer_kind(m, i));
    kind |= (unsigned)(at ? at - KVB__LAYER_KINDS : 0) << 1;
    return kind | kvb__gguf_layer_class(qc, i) << 5;
}

#define LAYER_KINDS (32 * 32)

typedef struct layer_weight {
    bool done;
    uint64_t bytes, params, quantized;
} layer_weight;

static bool add3(weigh_ctx *c, const layer_weight *w)
{
    c->params += w->params;
    c->quantized += w->quantized;
    return kvb__add_ok(c->bytes, w->bytes, &c->bytes);
}

static bool index_dependent(const kvb__quant_ctx *qc)
{
    return kvb__quant_is_gguf(qc->quant->method);
}

/* Without index-dependent rules, a layer is dense or MoE: weigh one of
 * each and multiply by their counts. */
static void weigh_two_kinds(weigh_ctx *c, uint32_t first, uint32_t last)
{
    const kvb_model *m = c->qc.model;
    uint32_t moe = kvb__count_moe(m, first, last);
    uint32_t counts[2] = {last - first - moe, moe};
    for (unsigned k = 0; k < 2 && !c->st; k++) {
        if (!counts[k])
            continue;
        uint32_t i = first;
        while (kvb__layer_is_moe(m, i) != (k == 1))
            i++;
        weigh_ctx one = *c;
        one.bytes = one.params = one.quantized = 0;
        kvb__inventory_walk_range(m, i, i + 1, 0, weigh, &one);
        uint64_t bytes;
        if (one.st) {
            c->st = one.st;
            c->bad = one.bad;
        } else if (!kvb__mul_ok(one.bytes, counts[k], &bytes) ||
                   !kvb__add_ok(c->bytes, bytes, &c->bytes)) {
            c->st = KVB_EOVERFLOW;
        } else {
            c->params += one.params * counts[k];
            c->quantized += one.quantized * counts[k];
        }
    }
}

static void weigh_layers(weigh_ctx *c, uint32_t first, uint32_t last)
{
    if (!index_dependent(&c->qc) && !c->qc.model->layer_pattern[0]) {
        weigh_two_kinds(c, first, last);
        return;
    }
    layer_weight kinds[LAYER_KINDS] = {{0}};
    for (uint32_t i = first; i < last && !c->st; i++) {
        layer_weight *w = &kinds[layer_kind(&c->qc, i)];
        if (!w->done) {
            weigh_ctx one = *c;
            one.bytes = one.params = one.quantized = 0;
            one.qc.attn_v_seen = i; /* llama.cpp counts over the file */
            kvb__inventory_walk_range(c->qc.model, i, i + 1, 0, weigh, &one);
            if (one.st) {
                c->st = one.st;
                c->bad = one.bad;
                return;
            }
            *w = (layer_weight){true, one.bytes, one.params, one.quantized};
        }
        if (!add3(c, w))
            c->st = KVB_EOVERFLOW;
    }
}

static void weigh_range(weigh_ctx *c, uint32_t first, uint32_t last,
                        unsigned globals)
{
    kvb__inventory_walk_range(c->qc.model, 0, 0, globals, weigh, c);
    if (!c->st)
        weigh_layers(c, first, last);
}

kvb_status kvb__stage_weights(const kvb_model *m, const kvb_quant *q,
                              uint32_t tp, uint32_t pp, uint32_t stage,
                              bool expert_parallel, uint64_t *bytes,
                              kvb_error *err)
{
    return kvb__stage_weights_ex(m, q, tp, pp, stage, expert_parallel, 0, bytes,
                                 err);
}

kvb_status kvb__stage_weights_ex(const kvb_model *m, const kvb_quant *q,
                                 uint32_t tp, uint32_t pp, uint32_t stage,
                                 bool expert_parallel, unsigned extra,
                                 uint64_t *bytes, kvb_error *err)
{
    uint32_t first, last;
    kvb__pp_layers(m->num_hidden_layers, stage, pp, &first, &last);
    unsigned globals = (stage == 0 ? KVB__WALK_EMBED | KVB__WALK_TOWER : 0) |
                       (stage + 1 == pp ? KVB__WALK_HEAD : 0) |
                       (stage == 0 ? extra : 0);
    weigh_ctx c = {{0}, tp, expert_parallel, true, 0, 0, 0, KVB_OK, {0}};
    kvb__quant_ctx_init(&c.qc, m, q);
    weigh_range(&c, first, last, globals);
    if (c.st)
        return weigh_fail(m, q, &c, tp, err);
    *bytes = c.bytes;
    return KVB_OK;
}

kvb_status kvb__weights_total(const kvb_model *m, const kvb_quant *q,
                              uint64_t *bytes, uint64_t *quantized,
                              kvb_error *err)
{
    weigh_ctx c = {{0}, 1, false, false, 0, 0, 0, KVB_OK, {0}};
    kvb__quant_ctx_init(&c.qc, m, q);
    weigh_range(&c, 0, m->num_hidden_layers,
                KVB__WALK_EMBED | KVB__WALK_HEAD | KVB__WALK_TOWER);
    if (c.st)
        return weigh_fail(m, q, &c, 1, err);
    *bytes = c.bytes;
    if (quantized)
        *quantized = c.quantized;
    return KVB_OK;
}

kvb_status kvb_weights_init(kvb_weights *w, size_t struct_size)
{
    return kvb__struct_init(w, struct_size, sizeof *w, "weights");
}

kvb_status kvb_weights_compute(const kvb_model *model, const kvb_quant *quant,
                               uint32_t tensor_parallel_size,
                               uint32_t pipeline_parallel_size,
                               kvb_weights *out, kvb_error *err)
{
    kvb_model m;
    kvb_quant q;
    kvb_weights w;
    kvb_status st = kvb__load_split(model, quant, tensor_parallel_size,
                                    pipeline_parallel_size, &m, &q, err);
    if (!st)
        st = kvb__struct_in(out, sizeof w, &w, "weights", err);
    if (!st)
        st = kvb__weights_total(&m, &q, &w.bytes, &w.quantized_params, err);
    if (st)
        return st;
    kvb__model_params(&m, &w.param_count, &w.active_param_count);
    uint32_t pp = pipeline_parallel_size;
    if (pp > m.num_hidden_layers)
        pp = m.num_hidden_layers;
    w.bytes_per_gpu = 0;
    for (uint32_t s = 0; !st && s < pp; s++) {
        uint64_t b = 0;
        st = kvb__stage_weights(&m, &q, tensor_parallel_size, pp, s, false, &b,
                                err);
        w.bytes_per_gpu = kvb__max(w.bytes_per_gpu, b);
    }
    if (!st)
        kvb__struct_out(&w, sizeof w, out);
    return st;
}
