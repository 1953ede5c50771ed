/*
 * engines/llama_cpp.c -- llama.cpp's llama-server: n_ctx cells for every
 * slot, layers offloaded from the end, a compute buffer per device.
 *
 * The memory rules are in ggml_memory.c (shared with Ollama); this file
 * holds llama.cpp's defaults by build, its budget (the whole GPU: there
 * is no utilization fraction), its verdict and texts, its flags and its
 * log lines.  Sources: llama.cpp as vendored by Ollama at f63eea3d
 * (llama.cpp ec98e2002): common/common.h, src/llama-context.cpp,
 * src/llama-model.cpp, src/llama-kv-cache.cpp; tools/server/server.cpp
 * (n_parallel auto); docs/engines/llama_cpp.md.
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Builds where a rule changed (approximate build numbers of the PRs,
 * docs/engines/llama_cpp.md). */
#define B_CTX_4096   4020 /* PR #10136 (2024-11): default -c 4096 */
#define B_MLA        5100 /* PR #12801 (2025-04): MLA caches the latent */
#define B_FA_AUTO    6250 /* PR #15434 (2025-08): -fa auto by default */
#define B_SLOTS_AUTO 6900 /* PR #16736 (2025-11): -np auto = 4 + kvu */
#define B_PAD_256    7000 /* PR #17046 (2025-11): n_ctx padded to 256 */
#define B_FIT        7400 /* PR #16653 (2025-12): --fit, -c 0 default */
#define B_OUT_ALL    4950 /* PR #12545 (2025-03): reserve n_ubatch logits */
#define B_OUT_SEQ    9320 /* PR #23861 (2026-05): llama-server n_seq logits */

static bool since(const kvb__engine_in *in, uint32_t build)
{
    return in->version == 0 || in->version >= build;
}

/* "b6123", "6123", "version: 6123 (abc)" -> 6123. */
static bool llama_parse_version(const char *text, uint32_t *out)
{
    if (*text == 'b' || *text == 'B')
        text++;
    if (!isdigit((unsigned char)*text))
        return false;
    char *end;
    unsigned long v = strtoul(text, &end, 10);
    if (v == 0 || v > 999999 || (*end && *end != ' ' && *end != '-'))
        return false;
    *out = (uint32_t)v;
    return true;
}

/* llama.cpp's releases are build numbers, tagged "b6123" (the packed
 * value is the number itself). */
static void llama_format_version(uint32_t version, char *buf, size_t cap)
{
    snprintf(buf, cap, "b%u", version);
}

kvb__ggml_opts kvb__llama_opts(const kvb__engine_in *in)
{
    kvb__ggml_opts o = {256, true, in->gpu->count, false};
    if (in->s.engine == KVB_ENGINE_LLAMA_CPP) {
        o.mla_latent = since(in, B_MLA);
        o.few_outputs = !since(in, B_OUT_ALL) || since(in, B_OUT_SEQ);
        if (!since(in, B_PAD_256) && in->s.flash_attn == 0)
            o.pad = 32; /* llama_kv_cache::get_padding before PR #17046 */
    } else {            /* Ollama's vendored builds, by Ollama release */
        o.mla_latent = in->version == 0 || in->version >= 700;
        /* vendored runners before ~0.6.3 predate PR #12545; from 0.30
         * Ollama runs llama-server b10488 (PR #23861) */
        o.few_outputs = (in->version && in->version < 603) ||
                        in->version == 0 || in->version >= 3000;
        if (in->version && in->version < 1200 && in->s.flash_attn == 0)
            o.pad = 32;
    }
    return o;
}

void kvb__llama_resolve(const kvb__engine_in *in, kvb__ggml *g)
{
    kvb__ggml_opts o = kvb__llama_opts(in);
    kvb__ggml_resolve(in->model, &in->s, &o, g);
}

/* ---- the vision tower: a separate mmproj GGUF ---- */

/*
 * llama-server loads a GGUF's language model only: convert_hf_to_gguf.py
 * writes the vision tower and projector to a second file (--mmproj,
 * general.architecture "clip"), which tools/mtmd (mtmd.cpp, clip.cpp)
 * loads only when `--mmproj FILE` names it or `-hf` brings the repo's own
 * (common/arg.cpp; docs/multimodal.md), and never with --no-mmproj.  A
 * preset or config.json with a tower is planned without it unless the
 * serving settings say it is loaded.
 */
bool kvb__llama_no_mmproj(const kvb_model *m, const kvb_serving *s)
{
    return s->engine == KVB_ENGINE_LLAMA_CPP &&
           m->vision_kind != KVB_VISION_NONE &&
           (!(s->mmproj & (KVB_MMPROJ_LOAD | KVB_MMPROJ_HF)) ||
            (s->mmproj & KVB_MMPROJ_NONE));
}

static void note(kvb_plan *p, const char *fmt, ...) KVB__PRINTF(2, 3);

static void note(kvb_plan *p, const char *fmt, ...)
{
    size_t n = strlen(p->warning);
    if (n + 3 >= sizeof p->warning)
        return;
    if (n) {
        memcpy(p->warning + n, "; ", 3);
        n += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->warning + n, sizeof p->warning - n, fmt, ap);
    va_end(ap);
}

/* What the plan says of a tower on llama.cpp and Ollama. */
static void tower_notes(const kvb__engine_in *in, kvb_plan *p,
                        const kvb__ggml_weights *w)
{
    if (in->s.engine == KVB_ENGINE_LLAMA_CPP && in->tower_left_out) {
        note(p, "no --mmproj: the vision tower (a separate mmproj GGUF) is "
                "not loaded");
        return;
    }
    if (in->model->vision_kind == KVB_VISION_NONE) {
        /* a model read from a GGUF has no tower, and the mmproj file
         * itself is not read */
        if (in->s.engine == KVB_ENGINE_LLAMA_CPP &&
            (in->s.mmproj & KVB_MMPROJ_LOAD) &&
            !(in->s.mmproj & KVB_MMPROJ_NONE))
            note(p, "--mmproj: the model has no tower to count (a GGUF's "
                    "mmproj file is not read)");
        return;
    }
    if (in->s.engine == KVB_ENGINE_LLAMA_CPP)
        /* clip.cpp reserves its graph for the largest image at load
         * (alloc_compute_meta); not modelled */
        note(p, "mmproj %.2f GiB %s; its clip compute buffer is not counted",
             KVB__GIB(w->tower_file),
             w->tower_busiest ? "on the main GPU" : "in host RAM");
    else
        note(p, "projector %.2f GiB with the output layer%s",
             KVB__GIB(w->tower_file), w->tower_busiest ? "" : " in host RAM");
}

/* ---- the budget: the whole GPU less the CUDA context ---- */

uint64_t kvb__llama_cuda_context(const kvb__engine_in *in)
{
    return kvb__vllm_cuda_context(in);
}

uint64_t kvb__llama_requested_bytes(const kvb__engine_in *in)
{
    uint64_t total = in->gpu->free_bytes
                         ? in->gpu->free_bytes
                         : in->gpu->total_bytes - kvb__llama_cuda_context(in);
    uint64_t over = in->s.gpu_overhead_bytes;
    return total > over ? total - over : 0;
}

/* What one configuration needs on the busiest GPU. */
typedef struct need {
    kvb__ggml g;
    kvb__ggml_weights w;
    kvb__ggml_kv_split kv;
    uint64_t compute, gpu;
} need;

static kvb_status measure(const kvb__engine_in *in, const kvb_serving *s,
                          need *n)
{
    kvb__ggml_opts o = kvb__llama_opts(in);
    kvb__ggml_resolve(in->model, s, &o, &n->g);
    kvb_status st = kvb__ggml_weights_split(in->model, in->quant, &n->g, &n->w);
    if (st)
        return st;
    kvb__ggml_kv(in->model, &n->g, &n->kv);
    n->compute = n->g.layers_on_gpu
                     ? kvb__ggml_compute(in->model, &n->g, n->g.output_on_gpu)
                     : 0;
    n->gpu = n->w.gpu_busiest + n->kv.gpu_busiest + n->compute;
    return KVB_OK;
}

/*
 * Automatic placement, as llama.cpp's --fit (src/llama.cpp
 * llama_params_fit: a per-device margin; first the context, when the user
 * did not set it, down to fit_params_min_ctx = 4096, then layers from the
 * front) and Ollama's layer placement (the layers that fit after its
 * reserve).  `room`: what the GPU offers after the margin.
 */
void kvb__llama_fit(kvb__engine_in *in, uint64_t room, bool ctx_auto,
                    bool layers_auto)
{
    kvb_serving s = in->s;
    need n;
    if (measure(in, &s, &n) || n.gpu <= room)
        return;
    if (ctx_auto) {
        uint64_t lo = 4096 / 256, hi = (n.g.n_ctx + 255) / 256;
        uint64_t best = lo;
        while (lo <= hi) {
            uint64_t mid = (lo + hi) / 2;
            s.context_size = mid * 256;
            if (!measure(in, &s, &n) && n.gpu <= room) {
                best = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        s.context_size = best * 256;
        in->s.context_size = s.context_size;
        if (!measure(in, &s, &n) && n.gpu <= room)
            return;
    }
    if (!layers_auto)
        return;
    uint32_t lo = 0, hi = in->model->num_hidden_layers + 1, best = 0;
    while (lo <= hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        s.n_gpu_layers = mid;
        if (!measure(in, &s, &n) && n.gpu <= room) {
            best = mid;
            lo = mid + 1;
        } else {
            if (mid == 0)
                break;
            hi = mid - 1;
        }
    }
    in->s.n_gpu_layers = best;
}

/* Settings both engines resolve the same way once their own defaults
 * are in: the fields plan.c reads. */
void kvb__llama_finish_defaults(kvb__engine_in *in)
{
    kvb_serving *s = &in->s;
    /* an 8-bit KV cache asked for the way vLLM asks (a fix's
     * kv_cache_dtype fp8) is llama.cpp's q8_0 */
    if (in->quant->kv_cache_dtype == KVB_DTYPE_FP8 && s->cache_type_k < 0 &&
        s->cache_type_v < 0) {
        s->cache_type_k = s->cache_type_v = KVB_STORAGE_Q8_0;
        if (s->flash_attn < 0)
            s->flash_attn = 1;
    }
    s->block_size = 1;
    s->gpu_memory_utilization = 1.0;
    s->tensor_parallel_size = s->pipeline_parallel_size = 1;
    if (s->cache_type_k < 0)
        s->cache_type_k = KVB_STORAGE_F16;
    if (s->cache_type_v < 0)
        s->cache_type_v = KVB_STORAGE_F16;
    kvb__ggml g;
    kvb__llama_resolve(in, &g);
    s->context_size = g.n_ctx;
    s->max_model_len = g.n_ctx_seq;
    s->max_num_batched_tokens = g.n_ubatch;
    if (!s->concurrency)
        s->concurrency = 1;
    if (s->activation_bytes == KVB_AUTO_BYTES)
        s->activation_bytes =
            g.layers_on_gpu ? kvb__ggml_compute(in->model, &g, g.output_on_gpu)
                            : 0;
}

/* max_model_len is the context of one slot: it sets -c when -c is not
 * given, and lowers it when it is smaller (a fix that lowers the length
 * re-plans that way). */
void kvb__llama_len_to_ctx(kvb__engine_in *in)
{
    kvb_serving *s = &in->s;
    uint32_t slots = s->max_num_seqs ? s->max_num_seqs : 1;
    if (!s->max_model_len)
        return;
    uint64_t want = s->kv_unified ? s->max_model_len : s->max_model_len * slots;
    if (!s->context_size || want < s->context_size)
        s->context_size = want;
}

static void llama_defaults(kvb__engine_in *in)
{
    kvb_serving *s = &in->s;
    bool np_auto = s->max_num_seqs == 0;
    if (np_auto) {
        /* server.cpp: -np -1 (auto) = 4 slots and a unified cache */
        s->max_num_seqs = since(in, B_SLOTS_AUTO) ? 4 : 1;
        if (since(in, B_SLOTS_AUTO))
            s->kv_unified = 1;
    }
    if (s->flash_attn < 0 && !since(in, B_FA_AUTO))
        s->flash_attn = 0;
    if (!s->ubatch_size)
        s->ubatch_size = 512; /* common.h n_ubatch */
    bool ctx_auto = s->context_size == 0 && s->max_model_len == 0;
    kvb__llama_len_to_ctx(in);
    if (!s->context_size && in->version && in->version < B_FIT &&
        in->version >= B_CTX_4096)
        s->context_size = 4096; /* common.h n_ctx before --fit */
    /* --fit (on by default since PR #16653): a 1 GiB margin per device */
    if (since(in, B_FIT)) {
        uint64_t room = kvb__llama_requested_bytes(in);
        room = room > 1024 * KVB__MIB ? room - 1024 * KVB__MIB : 0;
        kvb__llama_fit(in, room, ctx_auto, s->n_gpu_layers == KVB_ALL_LAYERS);
    }
    kvb__llama_finish_defaults(in);
}

/*
 * Gemma 3n on llama.cpp (LLM_ARCH_GEMMA3N, text only): load_hparams
 * writes n_layer_kv_from_start = 20 into the loader rather than reading
 * the config's num_kv_shared_layers, and layers from there on have no
 * cells (llama_hparams::has_kv).  A model whose own split differs would
 * be planned with the wrong cache, so it is refused; so are the GGUF
 * mixes, whose rules for the per-layer embedding and AltUp tensors are
 * not modelled, and an mmproj, whose Gemma 3n towers are not.
 */
static kvb_status gemma3n_check(const kvb__engine_in *in, kvb_error *err)
{
    const kvb_model *m = in->model;
    if (kvb__kv_layer_end(m) != 20)
        return kvb__fail(err, KVB_EUNSUPPORTED, "model.num_kv_shared_layers",
                         "model.num_kv_shared_layers (%u of %u layers): "
                         "llama.cpp's Gemma 3n keeps KV in the first 20 "
                         "layers whatever the config says; allowed: "
                         "num_hidden_layers - 20",
                         m->num_kv_shared_layers, m->num_hidden_layers);
    if (kvb__quant_is_gguf(in->quant->method))
        return kvb__fail(err, KVB_EUNSUPPORTED, "quant.method",
                         "quant.method (%s): llama-quant.cpp's choices for "
                         "Gemma 3n's per-layer embedding and AltUp tensors "
                         "are not modelled; allowed: f16, bf16, f32",
                         kvb_quant_method_name(in->quant->method));
    if ((in->s.mmproj & (KVB_MMPROJ_LOAD | KVB_MMPROJ_HF)) &&
        !(in->s.mmproj & KVB_MMPROJ_NONE))
        return kvb__fail(err, KVB_EUNSUPPORTED, "serving.mmproj",
                         "serving.mmproj: a Gemma 3n mmproj file is not "
                         "modelled; allowed: no --mmproj (text only)");
    return KVB_OK;
}

static kvb_status llama_check(const kvb__engine_in *in, kvb_error *err)
{
    const kvb_serving *s = &in->s;
    /* Zamba2's shared blocks: llama.cpp has no LLM_ARCH for them (the
     * port, ggml-org/llama.cpp PR #21412, is not merged), so no GGUF of
     * one loads and its memory is not planned. */
    if (strchr(in->model->layer_pattern, 'Z'))
        return kvb__fail(err, KVB_EUNSUPPORTED, "model.layer_pattern",
                         "llama.cpp has no Zamba2 architecture (shared "
                         "attention blocks; PR #21412 is unmerged); "
                         "allowed: vLLM 0.10.2 or later");
    bool quant_v = s->cache_type_v != KVB_STORAGE_F16 &&
                   s->cache_type_v != KVB_STORAGE_BF16 &&
                   s->cache_type_v != KVB_STORAGE_F32;
    /* llama-context.cpp: "V cache quantization requires flash_attn" */
    if (quant_v && s->flash_attn == 0)
        return kvb__fail(err, KVB_EINVAL, "serving.cache_type_v",
                         "serving.cache_type_v (%s): llama.cpp refuses a "
                         "quantized V cache without flash attention; "
                         "allowed: f16, bf16, f32, or -fa on",
                         kvb__ggml_type_name(s->cache_type_v));
    if (in->model->arch == KVB_ARCH_GEMMA3N) {
        kvb_status st = gemma3n_check(in, err);
        if (st)
            return st;
    }
    if (kvb__is_mla(in->model) && s->cache_type_k != s->cache_type_v &&
        kvb__llama_opts(in).mla_latent)
        return kvb__fail(err, KVB_EINVAL, "serving.cache_type_v",
                         "serving.cache_type_v (%s): MLA models need the "
                         "same K and V cache types in llama.cpp",
                         kvb__ggml_type_name(s->cache_type_v));
    return KVB_OK;
}

bool kvb__llama_parallelism_bad(const kvb__engine_in *in, uint32_t gpu_count,
                                char *msg, size_t cap)
{
    (void)gpu_count;
    if (in->s.tensor_parallel_size > 1 || in->s.pipeline_parallel_size > 1) {
        if (msg)
            snprintf(msg, cap,
                     "%s splits layers across GPUs (--split-mode "
                     "layer); it has no tensor_parallel_size",
                     in->engine->display);
        return true;
    }
    return false;
}

uint64_t kvb__llama_zero(const kvb__engine_in *in)
{
    (void)in;
    return 0;
}

uint64_t kvb__llama_no_graphs(const kvb__engine_in *in, uint32_t layers)
{
    (void)in;
    (void)layers;
    return 0;
}

bool kvb__llama_false(const kvb__engine_in *in)
{
    (void)in;
    return false;
}

uint32_t kvb__llama_weights_key(const kvb__engine_in *in)
{
    uint32_t ngl = in->s.n_gpu_layers == KVB_ALL_LAYERS
                       ? 2047
                       : (uint32_t)kvb__min(in->s.n_gpu_layers, 2046);
    return ngl | (uint32_t)kvb__min(in->s.n_cpu_moe, 2047) << 11 |
           (uint32_t)kvb__min(in->gpu->count, 1023) << 22;
}

/* The busiest GPU's share of the checkpoint, as llama.cpp places it. */
uint64_t kvb__llama_loaded_weights(const kvb__engine_in *in, uint32_t stage,
                                   uint64_t inventory_bytes)
{
    (void)stage;
    kvb__ggml g;
    kvb__ggml_weights w;
    kvb__llama_resolve(in, &g);
    if (kvb__ggml_weights_split(in->model, in->quant, &g, &w) ||
        w.total <= w.tower)
        return inventory_bytes;
    /* the language model in the inventory's proportions; the tower as its
     * mmproj file holds it */
    uint64_t text = inventory_bytes > w.tower ? inventory_bytes - w.tower : 0;
    return (uint64_t)((double)text * (double)(w.gpu_busiest - w.tower_busiest) /
                      (double)(w.total - w.tower)) +
           w.tower_busiest;
}

uint64_t kvb__llama_activation(const kvb__engine_in *in, uint32_t stage)
{
    (void)stage;
    kvb__ggml g;
    kvb__llama_resolve(in, &g);
    return g.layers_on_gpu ? kvb__ggml_compute(in->model, &g, g.output_on_gpu)
                           : 0;
}

/* ---- the KV cache: n_ctx cells, allocated whole ---- */

static uint64_t kv_gpu(const kvb__engine_in *in, uint64_t n_ctx)
{
    kvb_serving s = in->s;
    if (n_ctx)
        s.context_size = n_ctx;
    kvb__ggml_opts o = kvb__llama_opts(in);
    kvb__ggml g;
    kvb__ggml_kv_split kv;
    kvb__ggml_resolve(in->model, &s, &o, &g);
    kvb__ggml_kv(in->model, &g, &kv);
    return kv.gpu_busiest;
}

uint64_t kvb__llama_num_blocks(const kvb__engine_in *in,
                               const kvb__kv_stage *ks, uint64_t available)
{
    (void)ks;
    return kv_gpu(in, 0) <= available ? in->s.context_size : 0;
}

uint64_t kvb__llama_needed(const kvb__engine_in *in, const kvb__kv_stage *ks,
                           uint64_t len)
{
    (void)ks;
    (void)len;
    return kv_gpu(in, 0);
}

void kvb__llama_report(const kvb__engine_in *in, const kvb__kv_stage *ks,
                       uint64_t num_blocks, uint64_t *tokens,
                       double *concurrency)
{
    (void)ks;
    (void)num_blocks;
    *tokens = in->s.context_size;
    *concurrency = in->s.max_num_seqs;
    if (in->s.max_model_len &&
        (double)*tokens / (double)in->s.max_model_len < *concurrency)
        *concurrency = (double)*tokens / (double)in->s.max_model_len;
}

/* The largest context per slot whose KV cache and compute buffer fit
 * where the current ones leave `available` (whole 256-cell steps). */
uint64_t kvb__llama_fit_len(const kvb__engine_in *in, const kvb__kv_stage *ks,
                            uint64_t available, uint64_t num_blocks)
{
    (void)ks;
    (void)num_blocks;
    uint64_t budget = available + in->s.activation_bytes;
    uint32_t seqs = in->s.max_num_seqs ? in->s.max_num_seqs : 1;
    uint64_t lo = 1, hi = kvb__cdiv(in->model->max_position_embeddings, 256);
    uint64_t best = 0;
    kvb_serving s = in->s;
    kvb__ggml_opts o = kvb__llama_opts(in);
    while (lo <= hi) {
        uint64_t mid = (lo + hi) / 2;
        s.context_size = mid * 256 * (s.kv_unified ? 1 : seqs);
        kvb__ggml g;
        kvb__ggml_kv_split kv;
        kvb__ggml_resolve(in->model, &s, &o, &g);
        kvb__ggml_kv(in->model, &g, &kv);
        uint64_t c = g.layers_on_gpu
                         ? kvb__ggml_compute(in->model, &g, g.output_on_gpu)
                         : 0;
        if (kv.gpu_busiest + c <= budget) {
            best = mid * 256;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best;
}

void kvb__llama_finish(const kvb__engine_in *in, kvb_plan *p,
                       const kvb__stage_result *r)
{
    (void)r;
    kvb__ggml g;
    kvb__ggml_kv_split kv;
    kvb__ggml_weights w;
    kvb__llama_resolve(in, &g);
    kvb__ggml_kv(in->model, &g, &kv);
    if (kvb__ggml_weights_split(in->model, in->quant, &g, &w))
        memset(&w, 0, sizeof w);
    p->kv_cache_bytes_per_gpu = kv.gpu_busiest;
    p->compute_buffer_bytes_per_gpu = p->activation_bytes_per_gpu;
    double scale = w.total ? (double)p->weights_bytes / (double)w.total : 1.0;
    p->host_bytes = (uint64_t)((double)w.host * scale) + kv.host +
                    kvb__ggml_output_buffer(in->model, &g);
    p->layers_on_gpu = g.layers_on_gpu;
    p->layers_total = g.layers_total;
    p->context_size = g.n_ctx;
    p->max_total_tokens = g.n_ctx;
    p->max_kv_tokens = g.n_ctx;
    /* slots, but no more full-length requests than the cells hold: with
     * a unified cache (--kv-unified, the default of -np auto) the slots
     * share n_ctx cells (llama-context.cpp) */
    p->max_concurrency = g.n_seq;
    if (p->max_model_len &&
        (double)g.n_ctx / (double)p->max_model_len < p->max_concurrency)
        p->max_concurrency = (double)g.n_ctx / (double)p->max_model_len;
    p->max_num_seqs = g.n_seq;
    p->kv_needed_bytes_per_gpu = kv.gpu_busiest;
    p->max_num_batched_tokens = g.n_ubatch;
    p->kv_budget_bytes_per_gpu = kv.gpu_busiest;
    uint64_t used = p->weights_bytes_per_gpu + kv.gpu_busiest +
                    p->compute_buffer_bytes_per_gpu;
    p->headroom_bytes_per_gpu =
        p->usable_bytes_per_gpu > used ? p->usable_bytes_per_gpu - used : 0;
    p->kv_shortfall_bytes_per_gpu =
        used > p->usable_bytes_per_gpu ? used - p->usable_bytes_per_gpu : 0;
    char *wn = p->warning;
    size_t cap = sizeof p->warning;
    if (g.layers_on_gpu < g.layers_total)
        snprintf(wn, cap,
                 "%u of %u layers on the GPU: %.2f GiB of weights and KV "
                 "cache in host RAM",
                 g.layers_on_gpu, g.layers_total, KVB__GIB(p->host_bytes));
    else if (!kv.swa && g.n_ctx_seq > in->model->max_position_embeddings)
        snprintf(wn, cap, "n_ctx_seq (%llu) > n_ctx_train (%llu)",
                 (unsigned long long)g.n_ctx_seq,
                 (unsigned long long)in->model->max_position_embeddings);
    tower_notes(in, p, &w);
    if (kv.state) {
        size_t n = strlen(wn);
        snprintf(wn + n, cap - n,
                 "%sthe KV cache includes %.2f MiB of recurrent state (%u "
                 "cells, f32); the compute buffer is estimated as for "
                 "attention layers",
                 n ? "; " : "", (double)kv.state / (1 << 20),
                 g.n_seq ? g.n_seq : 1);
    }
}

static void say(kvb_plan *p, bool text, int32_t verdict, const char *fmt, ...)
    KVB__PRINTF(4, 5);

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

/* Does the model buffer, then the KV cache, then the compute buffer fit
 * in what the GPU offers (llama.cpp allocates them in that order), and
 * the host part in host RAM? */
void kvb__llama_verdict(const kvb__engine_in *in, kvb_plan *p,
                        const kvb__stage_result *r, bool text)
{
    (void)r;
    uint64_t room = p->usable_bytes_per_gpu;
    uint64_t w = p->weights_bytes_per_gpu, kv = p->kv_cache_bytes_per_gpu;
    uint64_t cb = p->compute_buffer_bytes_per_gpu;
    if (w > room) {
        say(p, text, KVB_VERDICT_WEIGHTS_EXCEED,
            "%u of %u layers need %.2f GiB of weights per GPU but %.2f GiB "
            "is free; lower -ngl",
            p->layers_on_gpu, p->layers_total, KVB__GIB(w), KVB__GIB(room));
    } else if (w + kv > room) {
        say(p, text, KVB_VERDICT_NO_KV_MEMORY,
            "the KV cache of %llu cells needs %.2f GiB but weights %.2f GiB "
            "leave %.2f GiB; the largest context per slot that fits is %llu",
            (unsigned long long)p->context_size, KVB__GIB(kv), KVB__GIB(w),
            KVB__GIB(room - w), (unsigned long long)p->max_model_len_fit);
    } else if (w + kv + cb > room) {
        say(p, text, KVB_VERDICT_HEADROOM_TOO_SMALL,
            "the compute buffer needs %.2f GiB but weights %.2f + KV cache "
            "%.2f GiB leave %.2f GiB; lower -c or -ub",
            KVB__GIB(cb), KVB__GIB(w), KVB__GIB(kv), KVB__GIB(room - w - kv));
    } else if (in->s.host_memory_bytes &&
               p->host_bytes > in->s.host_memory_bytes) {
        say(p, text, KVB_VERDICT_WEIGHTS_EXCEED,
            "%.2f GiB of weights and KV cache stay in host RAM but %.2f GiB "
            "is there",
            KVB__GIB(p->host_bytes), KVB__GIB(in->s.host_memory_bytes));
    } else if (p->concurrency > p->max_num_seqs ||
               p->max_concurrency + 1e-9 < (double)p->concurrency) {
        say(p, text, KVB_VERDICT_CONCURRENCY_EXCEEDS,
            "%u slots sharing %llu cells hold %.2f requests of %llu tokens; "
            "wanted %u",
            p->max_num_seqs, (unsigned long long)p->context_size,
            p->max_concurrency, (unsigned long long)p->max_model_len,
            p->concurrency);
    } else {
        say(p, text, KVB_VERDICT_FITS,
            "fits: %u/%u layers on the GPU, KV cache %.2f GiB (%llu cells, "
            "%u slots of %llu), compute buffer %.2f GiB, %.2f GiB left",
            p->layers_on_gpu, p->layers_total, KVB__GIB(kv),
            (unsigned long long)p->context_size, p->max_num_seqs,
            (unsigned long long)p->max_model_len, KVB__GIB(cb),
            KVB__GIB(room - w - kv - cb));
    }
}

/* What llama.cpp prints when the allocation fails (ggml-cuda.cu,
 * ggml-alloc.c, llama-kv-cache.cpp, llama-context.cpp). */
kvb_status kvb__llama_error_text(const kvb_plan *p, char *buf, size_t cap,
                                 size_t *needed, kvb_error *err)
{
    double mib = 1048576.0;
    switch (p->verdict) {
    case KVB_VERDICT_WEIGHTS_EXCEED:
        if (p->weights_bytes_per_gpu <= p->usable_bytes_per_gpu)
            break;
        return kvb__render(
            buf, cap, needed, err,
            "ggml_backend_cuda_buffer_type_alloc_buffer: allocating %.2f MiB "
            "on device 0: cudaMalloc failed: out of memory\n"
            "alloc_tensor_range: failed to allocate CUDA0 buffer of size "
            "%llu\nllama_model_load: error loading model: unable to "
            "allocate CUDA0 buffer",
            (double)p->weights_bytes_per_gpu / mib,
            (unsigned long long)p->weights_bytes_per_gpu);
    case KVB_VERDICT_NO_KV_MEMORY:
        return kvb__render(
            buf, cap, needed, err,
            "ggml_backend_cuda_buffer_type_alloc_buffer: allocating %.2f MiB "
            "on device 0: cudaMalloc failed: out of memory\n"
            "llama_init_from_model: failed to initialize the context: failed "
            "to allocate buffer for kv cache",
            (double)p->kv_cache_bytes_per_gpu / mib);
    case KVB_VERDICT_HEADROOM_TOO_SMALL:
        return kvb__render(
            buf, cap, needed, err,
            "ggml_backend_cuda_buffer_type_alloc_buffer: allocating %.2f MiB "
            "on device 0: cudaMalloc failed: out of memory\n"
            "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size "
            "%llu\ngraph_reserve: failed to allocate compute buffers",
            (double)p->compute_buffer_bytes_per_gpu / mib,
            (unsigned long long)p->compute_buffer_bytes_per_gpu);
    case KVB_VERDICT_PARALLELISM_INVALID:
        return kvb__render(buf, cap, needed, err, "%s", p->message);
    default: break;
    }
    return kvb__render(buf, cap, needed, err, "%s", "");
}

/* ---- fixes as llama-server flags ---- */

static void llama_model_arg(const kvb_model *m, int32_t method, char *buf,
                            size_t cap)
{
    char own[sizeof m->name];
    snprintf(own, sizeof own, "%s", m->name[0] ? m->name : "model");
    size_t n = strlen(own);
    if (n > 5 && !kvb__strcasecmp(own + n - 5, ".gguf"))
        own[n - 5] = '\0';
    const char *name = own;
    const char *base = strrchr(name, '/');
    const char *q = kvb_quant_method_name(method);
    char upper[16] = "";
    if (kvb__quant_is_gguf(method) && q) {
        snprintf(upper, sizeof upper, "-%s", q);
        for (char *c = upper; *c; c++)
            *c = (char)toupper((unsigned char)*c);
    }
    snprintf(buf, cap, "/models/%s%s.gguf", base ? base + 1 : name, upper);
}

static void llama_render_args(const kvb_fix *f, const kvb_model *m,
                              kvb__args *a)
{
    char path[160];
    llama_model_arg(m, f->quant_method, path, sizeof path);
    kvb__arg(a, "-m");
    kvb__arg(a, "%s", path);
    kvb__arg(a, "-c");
    kvb__arg(a, "%llu", (unsigned long long)f->max_model_len);
    kvb__arg(a, "-np");
    kvb__arg(a, "1");
    kvb__arg(a, "-ngl");
    kvb__arg(a, "99");
    if (f->kv_cache_dtype == KVB_DTYPE_FP8) {
        /* llama.cpp's 8-bit cache is q8_0 (needs flash attention) */
        kvb__arg(a, "-fa");
        kvb__arg(a, "on");
        kvb__arg(a, "-ctk");
        kvb__arg(a, "q8_0");
        kvb__arg(a, "-ctv");
        kvb__arg(a, "q8_0");
    }
}

/* ---- command lines ---- */

static bool llama_detect(size_t argc, const char *const *argv, size_t *used)
{
    /* ghcr.io/ggml-org/llama.cpp:server runs /app/llama-server; older
     * images and builds named it `server` */
    return kvb__cmd_program(argc, argv, "llama-server", NULL, used) ||
           kvb__cmd_program(argc, argv, "llama-cli", NULL, used) ||
           kvb__cmd_program(argc, argv, "server", NULL, used);
}

static kvb_status set_type(kvb__cmd *c, const char *flag, const char *value,
                           int32_t *out, kvb_error *err)
{
    if (!kvb__ggml_type_parse(value, out))
        return kvb__fail(err, KVB_EINVAL, "command",
                         "command: %s (%s) is not a cache type; allowed: "
                         "f16, bf16, f32, q8_0, q4_0, q4_1, q5_0, q5_1",
                         flag, value);
    (void)c;
    return KVB_OK;
}

kvb_status kvb__llama_ctk(kvb__cmd *c, const char *flag, const char *value,
                          kvb_error *err)
{
    return set_type(c, flag, value, &c->s->cache_type_k, err);
}

kvb_status kvb__llama_ctv(kvb__cmd *c, const char *flag, const char *value,
                          kvb_error *err)
{
    return set_type(c, flag, value, &c->s->cache_type_v, err);
}

/* -fa: bare (older builds), or on/off/auto (common/arg.cpp). */
kvb_status kvb__llama_fa(kvb__cmd *c, const char *flag, const char *value,
                         kvb_error *err)
{
    if (!value) {
        c->s->flash_attn = 1;
        return KVB_OK;
    }
    if (!kvb__strcasecmp(value, "auto")) {
        c->s->flash_attn = -1;
        return KVB_OK;
    }
    bool on;
    kvb_status st = kvb__cmd_bool(flag, value, &on, err);
    if (!st)
        c->s->flash_attn = on ? 1 : 0;
    return st;
}

/* -ngl N; "all"/"auto" (newer builds) keep every layer or fit them. */
static kvb_status llama_ngl(kvb__cmd *c, const char *flag, const char *value,
                            kvb_error *err)
{
    if (!kvb__strcasecmp(value, "all") || !kvb__strcasecmp(value, "auto")) {
        c->s->n_gpu_layers = KVB_ALL_LAYERS;
        return KVB_OK;
    }
    uint64_t v;
    kvb_status st = kvb__cmd_u64(flag, value, 0, UINT32_MAX - 1, &v, err);
    if (!st)
        c->s->n_gpu_layers = (uint32_t)v;
    return st;
}

/* -np N; -1 is auto. */
static kvb_status llama_np(kvb__cmd *c, const char *flag, const char *value,
                           kvb_error *err)
{
    if (!strcmp(value, "-1")) {
        c->s->max_num_seqs = 0;
        return KVB_OK;
    }
    uint64_t v;
    kvb_status st = kvb__cmd_u64(flag, value, 1, 4096, &v, err);
    if (!st)
        c->s->max_num_seqs = (uint32_t)v;
    return st;
}

/* --cpu-moe: every layer's experts in host RAM; -ot / --override-tensor
 * "exps=CPU" (the usual pattern) does the same; other patterns are not
 * modelled and are listed. */
static kvb_status llama_cpu_moe(kvb__cmd *c, const char *flag,
                                const char *value, kvb_error *err)
{
    (void)err;
    if (!value || (strstr(value, "exps") && strstr(value, "CPU"))) {
        c->s->n_cpu_moe = 4096;
        return KVB_OK;
    }
    kvb__cmd_warn(c, "%s %s is not modelled (only experts to the CPU)", flag,
                  value);
    return KVB_OK;
}

static kvb_status llama_ts(kvb__cmd *c, const char *flag, const char *value,
                           kvb_error *err)
{
    (void)err;
    kvb__cmd_warn(c,
                  "%s %s: layers are planned as split evenly over the "
                  "GPUs",
                  flag, value);
    return KVB_OK;
}

static bool prefix_nocase(const char *at, const char *word, size_t k)
{
    for (size_t i = 0; i < k; i++)
        if (!at[i] || tolower((unsigned char)at[i]) != word[i])
            return false;
    return true;
}

/* The type of an mmproj file from its name, as the GGUF repos name them
 * ("mmproj-model-f16.gguf", "mmproj-BF16.gguf", "mmproj-Q8_0.gguf");
 * -1 when none is named: f16, convert_hf_to_gguf.py's default. */
static int32_t mmproj_type_of(const char *path)
{
    static const char *const names[] = {"bf16", "f16",  "f32",  "q8_0",
                                        "q4_0", "q4_1", "q5_0", "q5_1"};
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < KVB__ARRAY_LEN(names); i++) {
        size_t k = strlen(names[i]);
        for (const char *at = base; *at; at++) {
            if (!prefix_nocase(at, names[i], k))
                continue;
            /* a whole word: "f16" but not the end of "bf16" */
            bool left = at == base || !isalnum((unsigned char)at[-1]);
            bool right = !isalnum((unsigned char)at[k]);
            int32_t t;
            if (left && right && kvb__ggml_type_parse(names[i], &t))
                return t;
        }
    }
    return -1;
}

/* --mmproj FILE / --mmproj-url URL: the tower is loaded, in the file's
 * type. */
static kvb_status llama_mmproj(kvb__cmd *c, const char *flag, const char *value,
                               kvb_error *err)
{
    (void)flag;
    (void)err;
    c->s->mmproj |= KVB_MMPROJ_LOAD;
    c->s->mmproj_type = mmproj_type_of(value);
    return KVB_OK;
}

/* -hf REPO[:QUANT]: common/arg.cpp downloads the repo's mmproj file too
 * (unless --no-mmproj or an explicit --mmproj). */
static kvb_status llama_hf(kvb__cmd *c, const char *flag, const char *value,
                           kvb_error *err)
{
    (void)flag;
    (void)value;
    (void)err;
    c->s->mmproj |= KVB_MMPROJ_HF;
    return KVB_OK;
}

/* --no-mmproj, --no-mmproj-offload, --mmproj-offload (bare, or a
 * LLAMA_ARG_* boolean). */
static kvb_status mmproj_bit(kvb__cmd *c, const char *flag, const char *value,
                             uint32_t bit, bool set, kvb_error *err)
{
    bool on = true;
    if (value) {
        kvb_status st = kvb__cmd_bool(flag, value, &on, err);
        if (st)
            return st;
    }
    if (on == set)
        c->s->mmproj |= bit;
    else
        c->s->mmproj &= ~bit;
    return KVB_OK;
}

static kvb_status llama_no_mmproj(kvb__cmd *c, const char *flag,
                                  const char *value, kvb_error *err)
{
    return mmproj_bit(c, flag, value, KVB_MMPROJ_NONE, true, err);
}

static kvb_status llama_no_mmproj_offload(kvb__cmd *c, const char *flag,
                                          const char *value, kvb_error *err)
{
    return mmproj_bit(c, flag, value, KVB_MMPROJ_CPU, true, err);
}

static kvb_status llama_mmproj_offload(kvb__cmd *c, const char *flag,
                                       const char *value, kvb_error *err)
{
    return mmproj_bit(c, flag, value, KVB_MMPROJ_CPU, false, err);
}

static kvb_status llama_c(kvb__cmd *c, const char *flag, const char *value,
                          kvb_error *err)
{
    uint64_t v;
    kvb_status st = kvb__cmd_u64(flag, value, 0, (uint64_t)1 << 34, &v, err);
    if (!st)
        c->s->context_size = v;
    return st;
}

#define S KVB__FLAG_SERVING
#define C KVB__FLAG_COMMAND
/* common/arg.cpp (common_params_parser_init): the flags and LLAMA_ARG_*
 * variables that change memory; the others are listed as ignored. */
static const kvb__flag llama_flags[] = {
    C("-m|--model", "LLAMA_ARG_MODEL", model),
    KVB__FLAG_SET("-c|--ctx-size", "LLAMA_ARG_CTX_SIZE", llama_c),
    KVB__FLAG_SET("-np|--parallel", "LLAMA_ARG_N_PARALLEL", llama_np),
    S("-b|--batch-size", "LLAMA_ARG_BATCH", KVB__FLAG_U64,
      max_num_batched_tokens),
    S("-ub|--ubatch-size", "LLAMA_ARG_UBATCH", KVB__FLAG_U32, ubatch_size),
    KVB__FLAG_SET("-ngl|--gpu-layers|--n-gpu-layers", "LLAMA_ARG_N_GPU_LAYERS",
                  llama_ngl),
    S("-ncmoe|--n-cpu-moe", "LLAMA_ARG_N_CPU_MOE", KVB__FLAG_U32, n_cpu_moe),
    KVB__FLAG_SET_BARE("-cmoe|--cpu-moe", "LLAMA_ARG_CPU_MOE", llama_cpu_moe),
    KVB__FLAG_SET("-ot|--override-tensor", "LLAMA_ARG_OVERRIDE_TENSOR",
                  llama_cpu_moe),
    KVB__FLAG_SET("-ctk|--cache-type-k", "LLAMA_ARG_CACHE_TYPE_K",
                  kvb__llama_ctk),
    KVB__FLAG_SET("-ctv|--cache-type-v", "LLAMA_ARG_CACHE_TYPE_V",
                  kvb__llama_ctv),
    KVB__FLAG_SET_BARE("-fa|--flash-attn", "LLAMA_ARG_FLASH_ATTN",
                       kvb__llama_fa),
    S("--swa-full", "LLAMA_ARG_SWA_FULL", KVB__FLAG_ON, swa_full),
    S("-kvu|--kv-unified", "LLAMA_ARG_KV_UNIFIED", KVB__FLAG_ON, kv_unified),
    S("-no-kvu|--no-kv-unified", NULL, KVB__FLAG_OFF, kv_unified),
    KVB__FLAG_SET("-ts|--tensor-split", "LLAMA_ARG_TENSOR_SPLIT", llama_ts),
    /* tools/mtmd's projector (common/arg.cpp, docs/multimodal.md) */
    KVB__FLAG_SET("-mm|--mmproj", "LLAMA_ARG_MMPROJ", llama_mmproj),
    KVB__FLAG_SET("-mmu|--mmproj-url", "LLAMA_ARG_MMPROJ_URL", llama_mmproj),
    KVB__FLAG_SET("-hf|-hfr|--hf-repo", "LLAMA_ARG_HF_REPO", llama_hf),
    KVB__FLAG_SET_BARE("--no-mmproj", "LLAMA_ARG_NO_MMPROJ", llama_no_mmproj),
    KVB__FLAG_SET_BARE("--no-mmproj-offload", "LLAMA_ARG_NO_MMPROJ_OFFLOAD",
                       llama_no_mmproj_offload),
    KVB__FLAG_SET_BARE("--mmproj-offload", "LLAMA_ARG_MMPROJ_OFFLOAD",
                       llama_mmproj_offload),
    KVB__FLAG_SKIP("--host|--port|-a|--alias|-t|--threads|-tb|"
                   "--threads-batch|--api-key|--chat-template|"
                   "-hff|--hf-file|-md|--model-draft|"
                   "-sm|--split-mode|-mg|--main-gpu|--temp|--top-k|--top-p|"
                   "--min-p|--repeat-penalty|-n|--n-predict|--seed|-s|"
                   "--rope-scaling|--rope-freq-base|--rope-freq-scale|"
                   "--yarn-orig-ctx|--keep|--lora|-dev|--device|"
                   "--reasoning-format|--reasoning-budget|--log-file|"
                   "--slot-save-path|--timeout|--metrics-port|-fit|--fit|"
                   "-fitt|--fit-target|-fitc|--fit-ctx|--cache-reuse|"
                   "-ctxcp|--ctx-checkpoints|--cache-ram|-cram|"
                   "--chat-template-file|--jinja-template|-p|--prompt|"
                   "-ngld|--gpu-layers-draft|--draft-max|--draft-min",
                   NULL),
    KVB__FLAG_SKIP_BARE("--jinja|--no-mmap|--mlock|--cont-batching|-cb|"
                        "--no-cont-batching|-nocb|--metrics|--embedding|"
                        "--embeddings|--reranking|--verbose|-v|--no-webui|"
                        "--offline|--log-disable|--no-warmup|-cnv|"
                        "--conversation|-nkvo|--no-kv-offload|--slots|"
                        "--props|--context-shift|--no-context-shift|"
                        "--check-tensors|--numa|--log-colors|--perf",
                        NULL),
};
#undef S
#undef C

/* ---- log lines ---- */

/* `key` in line[0, len), or NULL. */
const char *kvb__llama_find(const char *line, size_t len, const char *key)
{
    size_t k = strlen(key);
    for (size_t i = 0; k <= len && i <= len - k; i++)
        if (line[i] == key[0] && !memcmp(line + i, key, k))
            return line + i;
    return NULL;
}

/* The MiB figure after `key` ("size =   123.45 MiB") as bytes. */
static bool mib_after(const char *line, size_t len, const char *key,
                      uint64_t *out)
{
    const char *p = kvb__llama_find(line, len, key);
    if (!p)
        return false;
    p += strlen(key);
    const char *end = line + len;
    while (p < end && (*p == ' ' || *p == '=' || *p == ':'))
        p++;
    if (p >= end || !isdigit((unsigned char)*p))
        return false;
    double v;
    if (!kvb__log_number(p, end, 1e12, &v))
        return false;
    while (p < end && (isdigit((unsigned char)*p) || *p == '.' || *p == ' '))
        p++;
    double unit = 1048576.0;
    if (end - p >= 3 && !memcmp(p, "GiB", 3))
        unit = 1073741824.0;
    return kvb__log_bytes(v, unit, out);
}

static bool u64_after(const char *line, size_t len, const char *key,
                      uint64_t *out)
{
    const char *p = kvb__llama_find(line, len, key);
    if (!p)
        return false;
    p += strlen(key);
    const char *end = line + len;
    while (p < end && (*p == ' ' || *p == '=' || *p == ':'))
        p++;
    if (p >= end || !isdigit((unsigned char)*p))
        return false;
    uint64_t v = 0;
    while (p < end && isdigit((unsigned char)*p) && v < ((uint64_t)1 << 50))
        v = v * 10 + (uint64_t)(*p++ - '0');
    *out = v;
    return true;
}

/* The device a buffer line names ("CUDA0", "ROCm1", "Metal", "Vulkan0");
 * false for host buffers (CPU, CUDA_Host, CPU_Mapped). */
static bool gpu_buffer(const char *line, size_t len, const char *what)
{
    const char *p = kvb__llama_find(line, len, what);
    if (!p)
        return false;
    const char *q = p;
    while (q > line && q[-1] == ' ')
        q--;
    const char *w = q;
    while (w > line && w[-1] != ' ' && w[-1] != ':')
        w--;
    size_t n = (size_t)(q - w);
    static const char *const gpus[] = {"CUDA",   "ROCm", "Metal",
                                       "Vulkan", "SYCL", "MUSA"};
    for (size_t i = 0; i < KVB__ARRAY_LEN(gpus); i++) {
        size_t k = strlen(gpus[i]);
        if (n >= k && !memcmp(w, gpus[i], k) &&
            (n == k || isdigit((unsigned char)w[k])))
            return true;
    }
    return false;
}

static void fail(kvb_log_facts *f, int32_t failure, const char *line,
                 size_t len)
{
    f->failure = failure;
    size_t n =
        len < sizeof f->failure_text - 1 ? len : sizeof f->failure_text - 1;
    memcpy(f->failure_text, line, n);
    f->failure_text[n] = '\0';
}

/* The cache type of a size line ("K (q8_0): ..."): the K type, as the
 * facts hold one. */
static void kv_type(kvb_log_facts *f, const char *line, size_t len)
{
    const char *k = kvb__llama_find(line, len, "K (");
    if (!k)
        return;
    k += 3;
    size_t n = 0;
    char t[16];
    while (k + n < line + len && k[n] != ')' && n + 1 < sizeof t) {
        t[n] = k[n];
        n++;
    }
    t[n] = '\0';
    int32_t storage;
    if (!kvb__ggml_type_parse(t, &storage))
        return;
    kvb__strlcpy(f->kv_cache_dtype, t, sizeof f->kv_cache_dtype);
    kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_DTYPE);
}

/* llama.cpp's own lines (also inside Ollama's logs). */
bool kvb__llama_log_line(kvb_log_facts *f, const char *line, size_t len)
{
    uint64_t v;
    if (kvb__llama_find(line, len, "llama_kv_cache: size =") ||
        kvb__llama_find(line, len, "llama_kv_cache_unified: size =") ||
        kvb__llama_find(line, len, "llama_kv_cache_iswa: size =")) {
        if (!mib_after(line, len, "size =", &v))
            return false;
        /* the sliding-window cache prints a second line: both count (a
         * figure from a device's buffer line before them does not) */
        uint64_t prev = KVB_LOG_HAS(f, KV_CACHE_TOKENS) &&
                                KVB_LOG_HAS(f, KV_CACHE_BYTES) &&
                                f->kv_cache_bytes > 0
                            ? (uint64_t)f->kv_cache_bytes
                            : 0;
        f->kv_cache_bytes = (int64_t)(prev + v);
        kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_BYTES);
        kv_type(f, line, len);
        uint64_t cells;
        if (u64_after(line, len, "MiB (", &cells) && cells) {
            f->kv_cache_tokens = cells;
            kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_TOKENS);
        }
        return true;
    }
    /* "CUDA0 KV buffer size = X MiB": the busiest device's, unless the
     * cache's own size lines (which come with their cells) said more */
    if (kvb__llama_find(line, len, "KV buffer size =")) {
        if (!mib_after(line, len, "KV buffer size =", &v))
            return false;
        bool sized = KVB_LOG_HAS(f, KV_CACHE_TOKENS) && f->kv_cache_bytes > 0;
        if (gpu_buffer(line, len, "KV buffer size") && !sized &&
            (!KVB_LOG_HAS(f, KV_CACHE_BYTES) ||
             (int64_t)v > f->kv_cache_bytes)) {
            f->kv_cache_bytes = (int64_t)v;
            kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_BYTES);
        }
        return true;
    }
    if (kvb__llama_find(line, len, "KV self size")) {
        if (!mib_after(line, len, "KV self size", &v))
            return false;
        f->kv_cache_bytes = (int64_t)v;
        kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_BYTES);
        kv_type(f, line, len);
        return true;
    }
    /* tools/mtmd's clip graph ("alloc_compute_meta:  CUDA0 compute buffer
     * size = 248.10 MiB", after "warmup: warmup with image size") is the
     * mmproj's, not the language model's compute buffer */
    if (kvb__llama_find(line, len, "alloc_compute_meta:"))
        return true;
    if (kvb__llama_find(line, len, "compute buffer size =")) {
        if (!mib_after(line, len, "compute buffer size =", &v))
            return false;
        if (gpu_buffer(line, len, "compute buffer size")) {
            if (!KVB_LOG_HAS(f, COMPUTE_BUFFER_BYTES) ||
                v > f->compute_buffer_bytes)
                f->compute_buffer_bytes = v;
            kvb__log_set(f, KVB_LOG_BIT_COMPUTE_BUFFER_BYTES);
        }
        return true;
    }
    if (kvb__llama_find(line, len, "model buffer size =") ||
        (kvb__llama_find(line, len, "llm_load_tensors:") &&
         kvb__llama_find(line, len, "buffer size ="))) {
        const char *key = kvb__llama_find(line, len, "model buffer size")
                              ? "model buffer size"
                              : "buffer size";
        if (!mib_after(line, len, key, &v))
            return false;
        if (gpu_buffer(line, len, key)) {
            if (!KVB_LOG_HAS(f, WEIGHTS_BYTES) || v > f->weights_bytes)
                f->weights_bytes = v;
            kvb__log_set(f, KVB_LOG_BIT_WEIGHTS_BYTES);
        }
        return true;
    }
    const char *off = kvb__llama_find(line, len, "offloaded ");
    if (off && kvb__llama_find(line, len, "layers to GPU")) {
        uint64_t n, m;
        if (!u64_after(off, len - (size_t)(off - line), "offloaded", &n))
            return false;
        const char *sl = memchr(off, '/', len - (size_t)(off - line));
        if (!sl || !u64_after(sl, len - (size_t)(sl - line), "/", &m))
            return false;
        f->layers_on_gpu = (uint32_t)n;
        f->layers_total = (uint32_t)m;
        kvb__log_set(f, KVB_LOG_BIT_LAYERS_ON_GPU);
        kvb__log_set(f, KVB_LOG_BIT_LAYERS_TOTAL);
        return true;
    }
    if ((kvb__llama_find(line, len, "llama_context:") ||
         kvb__llama_find(line, len, "llama_init_from_model:") ||
         kvb__llama_find(line, len, "llama_new_context_with_model:")) &&
        !kvb__llama_find(line, len, "n_ctx_")) {
        if (u64_after(line, len, " n_ctx ", &v) ||
            u64_after(line, len, " n_ctx=", &v)) {
            f->context_size = v;
            kvb__log_set(f, KVB_LOG_BIT_CONTEXT_SIZE);
            return true;
        }
        if (u64_after(line, len, "n_seq_max", &v)) {
            f->n_parallel = (uint32_t)v;
            kvb__log_set(f, KVB_LOG_BIT_N_PARALLEL);
            return true;
        }
        if (u64_after(line, len, "n_ubatch", &v)) {
            f->max_num_batched_tokens = v;
            kvb__log_set(f, KVB_LOG_BIT_MAX_NUM_BATCHED_TOKENS);
            return true;
        }
    }
    /* llama-server: "initializing slots, n_slots = 4", "new slot,
     * n_ctx = 2048" (older: "n_ctx_slot = 2048") */
    if (kvb__llama_find(line, len, "n_slots = ") &&
        u64_after(line, len, "n_slots = ", &v)) {
        f->n_parallel = (uint32_t)v;
        kvb__log_set(f, KVB_LOG_BIT_N_PARALLEL);
        if (u64_after(line, len, "n_ctx_slot = ", &v)) {
            f->max_model_len = v;
            kvb__log_set(f, KVB_LOG_BIT_MAX_MODEL_LEN);
        }
        return true;
    }
    if ((kvb__llama_find(line, len, "new slot") &&
         u64_after(line, len, "n_ctx = ", &v)) ||
        u64_after(line, len, "n_ctx_slot = ", &v)) {
        f->max_model_len = v;
        kvb__log_set(f, KVB_LOG_BIT_MAX_MODEL_LEN);
        return true;
    }
    if (kvb__llama_find(line, len, "cudaMalloc failed: out of memory")) {
        /* ggml-cuda.cu: "allocating %.2f MiB on device %d: cudaMalloc
         * failed: out of memory" */
        if (mib_after(line, len, "allocating", &v)) {
            f->oom_tried_bytes = v;
            kvb__log_set(f, KVB_LOG_BIT_OOM_TRIED_BYTES);
        }
        if (u64_after(line, len, "on device", &v)) {
            f->oom_gpu_index = (uint32_t)v;
            kvb__log_set(f, KVB_LOG_BIT_OOM_GPU_INDEX);
        }
        fail(f, KVB_LOG_CUDA_OOM, line, len);
        return true;
    }
    /* the model buffer (alloc_tensor_range, while loading) or the compute
     * buffers (ggml_gallocr_reserve_n, graph_reserve) */
    if (kvb__llama_find(line, len, "alloc_tensor_range: failed") ||
        kvb__llama_find(line, len, "error loading model: unable to allocate"))
        f->oom_phase = KVB_LOG_PHASE_LOADING;
    else if (kvb__llama_find(line, len, "gallocr_reserve_n") &&
             kvb__llama_find(line, len, "failed to allocate"))
        f->oom_phase = KVB_LOG_PHASE_PROFILE;
    const char *fa = kvb__llama_find(line, len, "failed to allocate ");
    if (fa && kvb__llama_find(line, len, "buffer of size")) {
        if (u64_after(line, len, "buffer of size", &v)) {
            f->oom_tried_bytes = v;
            kvb__log_set(f, KVB_LOG_BIT_OOM_TRIED_BYTES);
        }
        if (f->failure == KVB_LOG_NONE)
            fail(f, KVB_LOG_CUDA_OOM, line, len);
        return true;
    }
    if (kvb__llama_find(line, len, "failed to allocate buffer for kv cache")) {
        fail(f, KVB_LOG_NO_KV_MEMORY, line, len);
        return true;
    }
    if (kvb__llama_find(line, len, "failed to allocate compute")) {
        fail(f, KVB_LOG_CUDA_OOM, line, len);
        return true;
    }
    /* "build: 7079 (abc1234) with ..." / "version: 7539 (83b3b1c27)" at
     * the start of a line (other engines print versions too) */
    size_t at = 0;
    while (at < len && (line[at] == ' ' || line[at] == '\t'))
        at++;
    const char *p = NULL;
    if (len - at > 7 && !memcmp(line + at, "build: ", 7))
        p = line + at + 7;
    else if (len - at > 9 && !memcmp(line + at, "version: ", 9))
        p = line + at + 9;
    char word[16] = "";
    for (size_t i = 0; p && i + 1 < sizeof word && p + i < line + len; i++)
        word[i] = p[i];
    uint32_t b;
    if (p && kvb__llama_find(line, len, " (") &&
        llama_parse_version(word, &b)) {
        f->engine_version = b;
        kvb__log_set(f, KVB_LOG_BIT_ENGINE_VERSION);
        size_t n =
            len < sizeof f->engine_line - 1 ? len : sizeof f->engine_line - 1;
        memcpy(f->engine_line, line, n);
        f->engine_line[n] = '\0';
        return true;
    }
    return false;
}

static int32_t llama_accounting(const kvb__engine_in *in)
{
    (void)in;
    return KVB_ACCOUNTING_LLAMA_CPP;
}

/* common/arg.cpp: no utilization fraction (it allocates what -c and
 * -ngl ask for) and no eager switch (CUDA graphs are internal); the
 * 8-bit cache is q8_0; weights are GGUF files only; more GPUs share the
 * layers (--split-mode layer, the default), not a TP degree. */
static const char *llama_remedy(int32_t kind, int32_t quant)
{
    switch (kind) {
    case KVB_FIX_MAX_MODEL_LEN: return "-c";
    case KVB_FIX_KV_CACHE_FP8: return "-ctk q8_0 -ctv q8_0";
    case KVB_FIX_QUANTIZE: return kvb__quant_is_gguf(quant) ? "-m" : NULL;
    default: return NULL;
    }
}

const kvb__engine kvb__engine_llama_cpp = {
    .id = KVB_ENGINE_LLAMA_CPP,
    .name = "llama.cpp",
    .display = "llama.cpp",
    /* llama.cpp has no mllama architecture (src/llama-arch.cpp); the
     * Llama 3.2 Vision GGUFs are Ollama's, for its own engine. */
    .no_cross_attention = "llama.cpp has no mllama architecture",
    .parse_version = llama_parse_version,
    .format_version = llama_format_version,
    .accounting = llama_accounting,
    .defaults = llama_defaults,
    .check = llama_check,
    .parallelism_bad = kvb__llama_parallelism_bad,
    .requested_bytes = kvb__llama_requested_bytes,
    .cuda_context = kvb__llama_cuda_context,
    .non_torch = kvb__llama_zero,
    .startup_reserved = kvb__llama_cuda_context,
    .cudagraph = kvb__llama_no_graphs,
    .graphs_in_budget = kvb__llama_false,
    .weights_gpu_key = kvb__llama_weights_key,
    .loaded_weights = kvb__llama_loaded_weights,
    .activation = kvb__llama_activation,
    .hybrid_kv = kvb__llama_false,
    .num_blocks = kvb__llama_num_blocks,
    .needed_bytes = kvb__llama_needed,
    .report = kvb__llama_report,
    .fit_len = kvb__llama_fit_len,
    .finish = kvb__llama_finish,
    .verdict = kvb__llama_verdict,
    .error_text = kvb__llama_error_text,
    .render_args = llama_render_args,
    .remedy = llama_remedy,
    .detect = llama_detect,
    .flags = llama_flags,
    .flag_count = KVB__ARRAY_LEN(llama_flags),
    .underscores = false,
    .positional_model = false,
    .log_line = kvb__llama_log_line,
    .recurrent = true,   /* llama_memory_recurrent: in kvb__ggml_kv */
    .runs_on_cpu = true, /* -ngl 0: every layer on the CPU backend */
    .kv_sharing = true,  /* gemma3n_check refuses what is not modelled */
};
