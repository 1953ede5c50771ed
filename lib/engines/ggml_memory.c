/*
 * engines/ggml_memory.c -- llama.cpp's memory rules, shared by the
 * llama.cpp engine (llama_cpp.c) and Ollama (ollama.c), which runs it.
 *
 * Read in llama.cpp as vendored by Ollama at f63eea3d (llama.cpp
 * ec98e2002): src/llama-context.cpp (n_ctx, n_ctx_seq, n_ubatch, the
 * graph reserve), src/llama-kv-cache.cpp and src/llama-kv-cache-iswa.cpp
 * (cells, streams, row sizes), src/llama-model.cpp (load_tensors: which
 * layers are offloaded; create_memory), common/common.h (defaults).
 * Everything is arithmetic on the model's shape; nothing is fitted.
 */
#include "internal.h"

#include <string.h>

#define GGML_PAD(x, n) (((x) + (n)-1) / (n) * (n))

/* ggml_row_size(type, n): ggml/src/ggml.c type_traits (blck_size,
 * type_size); a row that is not a whole number of blocks is refused by
 * llama.cpp, here it is rounded up. */
uint64_t kvb__ggml_row_bytes(int32_t storage, uint64_t n)
{
    switch (storage) {
    case KVB_STORAGE_F32: return 4 * n;
    case KVB_STORAGE_Q8_0: return kvb__cdiv(n, 32) * 34;
    case KVB_STORAGE_Q4_0: return kvb__cdiv(n, 32) * 18;
    case KVB_STORAGE_Q4_1: return kvb__cdiv(n, 32) * 20;
    case KVB_STORAGE_Q5_0: return kvb__cdiv(n, 32) * 22;
    case KVB_STORAGE_Q5_1: return kvb__cdiv(n, 32) * 24;
    default: return 2 * n; /* f16, bf16 */
    }
}

const char *kvb__ggml_type_name(int32_t storage)
{
    switch (storage) {
    case KVB_STORAGE_F32: return "f32";
    case KVB_STORAGE_BF16: return "bf16";
    case KVB_STORAGE_Q8_0: return "q8_0";
    case KVB_STORAGE_Q4_0: return "q4_0";
    case KVB_STORAGE_Q4_1: return "q4_1";
    case KVB_STORAGE_Q5_0: return "q5_0";
    case KVB_STORAGE_Q5_1: return "q5_1";
    default: return "f16";
    }
}

bool kvb__ggml_type_parse(const char *text, int32_t *storage)
{
    static const struct {
        const char *name;
        int32_t storage;
    } types[] = {
        {"f16", KVB_STORAGE_F16},   {"bf16", KVB_STORAGE_BF16},
        {"f32", KVB_STORAGE_F32},   {"q8_0", KVB_STORAGE_Q8_0},
        {"q4_0", KVB_STORAGE_Q4_0}, {"q4_1", KVB_STORAGE_Q4_1},
        {"q5_0", KVB_STORAGE_Q5_0}, {"q5_1", KVB_STORAGE_Q5_1},
    };
    for (size_t i = 0; i < KVB__ARRAY_LEN(types); i++)
        if (!kvb__strcasecmp(text, types[i].name)) {
            *storage = types[i].storage;
            return true;
        }
    return false;
}

/* Which families llama.cpp gives a sliding-window (or chunked) cache:
 * llama-model.cpp load_hparams sets swa_type only for these; `llama` and
 * `phi3` (and so Mistral files) ignore sliding_window, qwen2/qwen3 have
 * none. */
static bool swa_family(const kvb_model *m)
{
    switch (m->arch) {
    case KVB_ARCH_GEMMA2:
    case KVB_ARCH_GEMMA3:
    case KVB_ARCH_GEMMA3N: /* LLAMA_SWA_TYPE_STANDARD, pattern 5 */
    case KVB_ARCH_GPT_OSS:
    case KVB_ARCH_LLAMA4: return true;
    default: return false;
    }
}

/* llama.cpp's window of layer il, 0 for a full-attention layer. */
static uint64_t layer_window(const kvb_model *m, uint32_t il)
{
    if (!swa_family(m))
        return 0;
    switch (kvb__layer_attn(m, il)) {
    case KVB__ATTN_SLIDING: return m->sliding_window;
    case KVB__ATTN_CHUNKED: return m->attention_chunk_size;
    default: return 0;
    }
}

bool kvb__ggml_layer_swa(const kvb_model *m, uint32_t il)
{
    return layer_window(m, il) != 0;
}

/* The largest window of the model (hparams.n_swa). */
static uint64_t model_window(const kvb_model *m)
{
    if (!swa_family(m))
        return 0;
    return m->sliding_window ? m->sliding_window : m->attention_chunk_size;
}

void kvb__ggml_resolve(const kvb_model *m, const kvb_serving *s,
                       const kvb__ggml_opts *o, kvb__ggml *g)
{
    memset(g, 0, sizeof *g);
    g->n_layer = m->num_hidden_layers;
    g->n_seq = s->max_num_seqs ? s->max_num_seqs : 1;
    g->unified = s->kv_unified != 0;
    g->type_k = s->cache_type_k >= 0 ? s->cache_type_k : KVB_STORAGE_F16;
    g->type_v = s->cache_type_v >= 0 ? s->cache_type_v : KVB_STORAGE_F16;
    g->flash = s->flash_attn != 0; /* auto: on where the device has it */
    g->mla_latent = o->mla_latent;
    /* llama-context.cpp: n_ctx 0 means n_ctx_train */
    uint64_t n_ctx =
        s->context_size ? s->context_size : m->max_position_embeddings;
    /* n_batch = min(n_ctx, n_batch) for causal models; n_ubatch =
     * min(n_batch, n_ubatch) */
    uint64_t n_batch =
        s->max_num_batched_tokens ? s->max_num_batched_tokens : 2048;
    n_batch = kvb__min(n_batch, n_ctx);
    g->n_ubatch = kvb__min(n_batch, s->ubatch_size ? s->ubatch_size : 512);
    /* n_ctx = GGML_PAD(n_ctx, 256); non-unified: n_ctx_seq =
     * GGML_PAD(n_ctx / n_seq_max, 256), n_ctx = n_ctx_seq * n_seq_max.
     * Before ec98e2002's padding rule, builds padded the cache to 256
     * with flash attention and 32 without (o->pad). */
    uint32_t pad = o->pad ? o->pad : 256;
    n_ctx = GGML_PAD(n_ctx, pad);
    if (g->unified) {
        g->n_ctx_seq = n_ctx;
        g->n_stream = 1;
    } else {
        g->n_ctx_seq = GGML_PAD(n_ctx / g->n_seq, pad);
        if (!g->n_ctx_seq)
            g->n_ctx_seq = pad;
        n_ctx = g->n_ctx_seq * g->n_seq;
        g->n_stream = g->n_seq;
    }
    g->n_ctx = n_ctx;
    /* llama-kv-cache-iswa.cpp: size_swa = GGML_PAD(min(size_base, n_swa *
     * (unified ? n_seq_max : 1) + n_ubatch), 256); --swa-full: size_base */
    uint64_t w = model_window(m);
    g->base_cells = g->n_ctx_seq;
    if (w) {
        uint64_t want = w * (g->unified ? g->n_seq : 1) + g->n_ubatch;
        g->swa_cells = GGML_PAD(kvb__min(g->base_cells, want), 256);
        if (s->swa_full)
            g->swa_cells = g->base_cells;
    }
    /* llama-model.cpp load_tensors: i_gpu_start = max(n_layer - ngl, 0);
     * the output layer (index n_layer) only when ngl > n_layer */
    uint64_t ngl = s->n_gpu_layers == KVB_ALL_LAYERS ? (uint64_t)g->n_layer + 1
                                                     : s->n_gpu_layers;
    g->i_gpu_start = ngl >= g->n_layer ? 0 : g->n_layer - (uint32_t)ngl;
    g->output_on_gpu = ngl > g->n_layer;
    g->layers_total = g->n_layer + 1;
    g->layers_on_gpu = (uint32_t)kvb__min(ngl, g->layers_total);
    g->n_cpu_moe = s->n_cpu_moe;
    g->gpus = o->gpus ? o->gpus : 1;
    g->few_outputs = o->few_outputs;
    /* llama.cpp: tools/mtmd/clip.cpp loads the mmproj GGUF on the first
     * GPU backend unless --no-mmproj-offload (mtmd_context_params.use_gpu
     * from common/arg.cpp's mmproj_use_gpu) */
    g->mmproj = s->engine == KVB_ENGINE_LLAMA_CPP;
    g->mmproj_gpu = !(s->mmproj & KVB_MMPROJ_CPU);
    g->mmproj_type = s->mmproj_type >= 0 ? s->mmproj_type : KVB_STORAGE_F16;
}

/* Elements of K and V per cell of layer il (n_embd_k_gqa, n_embd_v_gqa). */
static void layer_elems(const kvb_model *m, const kvb__ggml *g, uint64_t *k,
                        uint64_t *v)
{
    if (kvb__is_mla(m) && g->mla_latent) {
        /* MLA cache (llama.cpp since the MLA rework): K holds the latent
         * plus the rope part; V is a view of it (0 bytes) */
        *k = (uint64_t)m->kv_lora_rank + m->qk_rope_head_dim;
        *v = 0;
        return;
    }
    if (kvb__is_mla(m)) { /* older builds: full per-head K and V */
        *k = (uint64_t)m->num_attention_heads *
             ((uint64_t)m->qk_nope_head_dim + m->qk_rope_head_dim);
        *v = (uint64_t)m->num_attention_heads * m->v_head_dim;
        return;
    }
    *k = *v = (uint64_t)m->num_key_value_heads * kvb__head_dim(m);
}

uint64_t kvb__ggml_layer_cells(const kvb_model *m, const kvb__ggml *g,
                               uint32_t il)
{
    uint64_t cells = layer_window(m, il) ? g->swa_cells : g->base_cells;
    return cells * g->n_stream;
}

void kvb__ggml_layer_kv(const kvb_model *m, const kvb__ggml *g, uint32_t il,
                        uint64_t *k_bytes, uint64_t *v_bytes)
{
    uint64_t ek, ev;
    if (!kvb__layer_has_kv(m, il)) { /* a hybrid's recurrent or MLP
                                        layer: no KV cells (hparams.
                                        is_recurrent; the recurrent state
                                        is not modelled here); Gemma 3n's
                                        layers from n_layer_kv_from_start
                                        on (hparams.has_kv) reuse an
                                        earlier layer's cells */
        *k_bytes = *v_bytes = 0;
        return;
    }
    layer_elems(m, g, &ek, &ev);
    uint64_t cells = kvb__ggml_layer_cells(m, g, il);
    *k_bytes = cells * kvb__ggml_row_bytes(g->type_k, ek);
    *v_bytes = ev ? cells * kvb__ggml_row_bytes(g->type_v, ev) : 0;
}

/*
 * One recurrent layer's state in one cell: llama_memory_recurrent holds
 * max(1, n_seq_max) cells of r (n_embd_r = (d_conv - 1) x (d_inner + 2 x
 * n_group x d_state)) and s (n_embd_s = d_state x d_inner), both f32
 * (src/llama-hparams.cpp, src/llama-memory-recurrent.cpp), on the layer's
 * device.  Qwen3-Next's GGUF gives d_inner = value heads x head dim,
 * d_state = key head dim, n_group = key heads.  Checked against logged
 * "llama_memory_recurrent: size = 251.25 MiB (4 cells, 40 layers, 4
 * seqs), R (f32): 11.25 MiB, S (f32): 240.00 MiB" of a 30-GDN-layer
 * model with Qwen3-Next's linear sizes: 30 x 4 x (98304 + 2097152) B.
 */
static uint64_t layer_state(const kvb_model *m, uint32_t il)
{
    char k = kvb__layer_kind(m, il);
    /* Falcon-H1 ('P'): llama_model::create_memory keeps both the KV cells
     * and the recurrent state of every layer (its filter_attn and
     * filter_recr accept every layer for LLM_ARCH_FALCON_H1). */
    if (k != 'M' && k != 'G' && k != 'm' && k != 'S' && k != 'P')
        return 0;
    uint64_t inner = (uint64_t)m->ssm_num_heads * m->ssm_head_dim;
    /* Mamba1 (Jamba) has no B/C groups in the conv: n_group is 0 there. */
    uint64_t groups = k == 'S' ? 0 : m->ssm_n_groups;
    uint64_t r = (uint64_t)(m->ssm_conv_kernel - 1) *
                 (inner + 2 * groups * m->ssm_state_size);
    return (r + (uint64_t)m->ssm_state_size * inner) * 4;
}

void kvb__ggml_kv(const kvb_model *m, const kvb__ggml *g, kvb__ggml_kv_split *o)
{
    memset(o, 0, sizeof *o);
    uint32_t per_gpu = 0, on_gpu = g->n_layer - g->i_gpu_start;
    if (on_gpu)
        per_gpu = (uint32_t)kvb__cdiv(on_gpu, g->gpus);
    for (uint32_t il = 0; il < g->n_layer; il++) {
        uint64_t k, v;
        kvb__ggml_layer_kv(m, g, il, &k, &v);
        uint64_t rs = layer_state(m, il) * (g->n_seq ? g->n_seq : 1);
        o->k += k;
        o->v += v;
        o->state += rs;
        if (il < g->i_gpu_start) {
            o->host += k + v + rs;
            continue;
        }
        o->gpu += k + v + rs;
        /* the busiest GPU: layers split evenly, the last ones on it */
        if (il >= g->n_layer - per_gpu)
            o->gpu_busiest += k + v + rs;
        if (layer_window(m, il))
            o->swa += k + v;
    }
}

/* ---- weights: llama-model.cpp load_tensors ---- */

typedef struct weigh {
    const kvb_model *m;
    const kvb__ggml *g;
    const kvb_quant *q;
    kvb__quant_ctx qc;
    kvb__ggml_weights *w;
    uint64_t embed;
    uint32_t per_gpu;
    kvb_status st;
} weigh;

static bool expert_role(int32_t role)
{
    return role == KVB_ROLE_EXPERT_GATE || role == KVB_ROLE_EXPERT_UP ||
           role == KVB_ROLE_EXPERT_DOWN;
}

static int weigh_tensor(void *vctx, const kvb__tdesc *t)
{
    weigh *c = vctx;
    const kvb__ggml *g = c->g;
    int32_t storage = kvb__storage_for(&c->qc, t);
    uint64_t b = 0;
    c->st = kvb__storage_bytes(storage, c->q, t->experts, t->rows, t->cols, &b);
    if (c->st)
        return 1;
    c->w->total += b;
    bool gpu;
    bool busiest = false;
    if (t->role == KVB_ROLE_VISION) {
        c->w->tower += b;
        if (g->mmproj) {
            /* the mmproj file (convert_hf_to_gguf.py --mmproj) */
            int32_t ty = kvb__vision_gguf_type(c->m, t, g->mmproj_type);
            if (!kvb__mul_ok(t->rows, kvb__ggml_row_bytes(ty, t->cols), &b)) {
                c->st = KVB_ERANGE;
                return 1;
            }
            gpu = busiest = g->mmproj_gpu; /* the main GPU: counted on the
                                              busiest one */
        } else {
            /* Ollama: ml/backend/ggml/ggml.go creates the "v." and "mm."
             * tensors with the output layer's buffer types */
            gpu = busiest = g->output_on_gpu;
        }
        c->w->tower_file += b;
        if (busiest)
            c->w->tower_busiest += b;
    } else if (t->layer < 0) {
        /* Gemma 3n's per-layer embedding is an input tensor too
         * (llama-arch.cpp: PER_LAYER_TOKEN_EMBD, LLM_TENSOR_LAYER_INPUT);
         * its other globals are counted with the output layer, though
         * llama.cpp gives them block 0's device (the same GPU unless
         * -ngl leaves layers on the CPU) */
        bool input = t->role == KVB_ROLE_EMBED ||
                     t->role == KVB_ROLE_POS_EMBED ||
                     t->role == KVB_ROLE_PLE_EMBED;
        if (t->role == KVB_ROLE_EMBED)
            c->embed += b;
        /* the input layer always stays on the CPU; the output layer
         * (norm and head) follows ngl > n_layer, on the last GPU */
        gpu = !input && g->output_on_gpu;
        busiest = gpu;
    } else {
        uint32_t il = (uint32_t)t->layer;
        gpu = il >= g->i_gpu_start;
        /* --n-cpu-moe N: the experts of the first N layers stay in host
         * RAM (common/arg.cpp, a tensor-buffer override) */
        if (gpu && expert_role(t->role) && il < g->n_cpu_moe)
            gpu = false;
        busiest = gpu && il >= g->n_layer - c->per_gpu;
    }
    if (gpu)
        c->w->gpu += b;
    else
        c->w->host += b;
    if (busiest)
        c->w->gpu_busiest += b;
    return 0;
}

kvb_status kvb__ggml_weights_split(const kvb_model *m, const kvb_quant *q,
                                   const kvb__ggml *g, kvb__ggml_weights *w)
{
    memset(w, 0, sizeof *w);
    weigh c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.g = g;
    c.q = q;
    c.w = w;
    uint32_t on_gpu = g->n_layer - g->i_gpu_start;
    c.per_gpu = on_gpu ? (uint32_t)kvb__cdiv(on_gpu, g->gpus) : 0;
    kvb__quant_ctx_init(&c.qc, m, q);
    kvb__inventory_walk(m, weigh_tensor, &c);
    if (c.st)
        return c.st;
    /* tied embeddings: llama.cpp loads token_embd a second time as the
     * output (TENSOR_DUPLICATED) in the output layer's buffer */
    if (m->tie_word_embeddings && g->output_on_gpu) {
        w->gpu += c.embed;
        w->gpu_busiest += c.embed;
    }
    return KVB_OK;
}

/* ---- compute buffer: llama-context.cpp graph_reserve ---- */

/*
 * The reserve builds the prompt graph for n_tokens = min(n_ctx, n_ubatch)
 * tokens (every one an output) and the one-token graph, and the ggml
 * allocator (ggml-alloc.c) sizes one buffer for the larger: a tensor's
 * memory is reused once its last consumer ran, so the buffer is the
 * largest set of f32 tensors alive at one point of the graph.  The inputs
 * live throughout; of them only the attention mask [n_kv, n_tokens]
 * (f16 with flash attention, f32 without) is large.  Three points decide:
 *   - the output: logits [n_vocab, n_outputs] with the last hidden state
 *     and its norm (the mask is freed by then); n_outputs = n_tokens
 *     (llama-context.cpp graph_reserve from PR #12545), or n_seq_max
 *     (before it, and in llama-server since PR #23861);
 *   - attention: without flash attention the scores KQ [n_kv, n_tokens,
 *     n_head], with Q, K, V and four hidden-sized tensors (residual, norm,
 *     projection, sum);
 *   - the feed-forward: gate, up and their product [n_ff, n_tokens] with
 *     four hidden-sized tensors (MoE: the chosen experts' widths and the
 *     router logits).
 * n_kv is the cells of one stream of the full-attention cache.  Checked
 * against llama.cpp's own figures for every family in tests (within 2%
 * except where the model adds an op, docs/engines/llama_cpp.md).
 */
uint64_t kvb__ggml_compute(const kvb_model *m, const kvb__ggml *g,
                           bool with_output)
{
    uint64_t t = kvb__min(g->n_ctx, g->n_ubatch);
    uint64_t e = m->hidden_size;
    uint64_t hd = kvb__head_dim(m);
    uint64_t q = (uint64_t)m->num_attention_heads * hd;
    uint64_t kv = (uint64_t)m->num_key_value_heads * hd;
    uint64_t n_kv = g->base_cells;
    uint64_t mask = n_kv * t * (g->flash ? 2 : 4);
    uint64_t t_out = g->few_outputs ? kvb__min(t, g->n_seq) : t;
    uint64_t out = with_output ? (t_out * m->vocab_size + 2 * t * e) * 4 : 0;
    uint64_t attn = mask + t * (q + 2 * kv + 4 * e) * 4;
    if (!g->flash)
        attn += n_kv * t * m->num_attention_heads * 4;
    uint64_t width = m->intermediate_size, extra = 0;
    if (m->num_experts) {
        uint64_t moe =
            (uint64_t)m->num_experts_per_tok * m->moe_intermediate_size +
            kvb__shared_width(m);
        width = kvb__max(m->first_k_dense_replace ? width : 0, moe);
        extra = m->num_experts;
    }
    uint64_t ffn = mask + t * (3 * width + extra + 4 * e) * 4;
    return kvb__max(out, kvb__max(attn, ffn));
}

/* llama-context.cpp output_reserve: logits of n_seq_max outputs, f32, in
 * host memory (CUDA_Host "output buffer"). */
uint64_t kvb__ggml_output_buffer(const kvb_model *m, const kvb__ggml *g)
{
    return m->vocab_size * g->n_seq * 4;
}
