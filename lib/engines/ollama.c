/*
 * engines/ollama.c -- Ollama: llama.cpp underneath (the memory rules of
 * ggml_memory.c and the hooks of llama_cpp.c), with Ollama's defaults,
 * its reserve and its automatic layer placement.
 *
 * Sources (github.com/ollama/ollama): envconfig/config.go (OLLAMA_*),
 * api/types.go (num_ctx, num_batch 512, num_gpu), server/routes.go
 * (VRAM-tier default context, 0334ffa62, v0.15.5), llm/memory.go @
 * 4372d0bf (reserve: OLLAMA_GPU_OVERHEAD + 457 MiB minimum on CUDA,
 * layers while they fit), llm/llama_server.go @ fb307609 (-c num_ctx x
 * parallel, -np parallel, --fit; from v0.30.0).
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V(major, minor, patch) ((major)*10000u + (minor)*100u + (patch))

static bool since(const kvb__engine_in *in, uint32_t v)
{
    return in->version == 0 || in->version >= v;
}

static int32_t ollama_accounting(const kvb__engine_in *in)
{
    (void)in;
    return KVB_ACCOUNTING_OLLAMA;
}

/* num_ctx when neither the request nor OLLAMA_CONTEXT_LENGTH sets it. */
static uint64_t default_num_ctx(const kvb__engine_in *in)
{
    if (!since(in, V(0, 6, 7)))
        return 2048; /* api/types.go before 44b466eeb */
    if (!since(in, V(0, 15, 5)))
        return 4096;
    /* server/routes.go: by the GPUs' total memory less the overhead */
    uint64_t vram = 0, gib = (uint64_t)1 << 30;
    uint64_t per = in->gpu->total_bytes > in->s.gpu_overhead_bytes
                       ? in->gpu->total_bytes - in->s.gpu_overhead_bytes
                       : 0;
    vram = per * in->gpu->count;
    if (vram >= 47 * gib)
        return 262144;
    if (vram >= 23 * gib)
        return 32768;
    return 4096;
}

/* ---- Ollama's own estimate, through 0.12.10 (llm/memory.go and
 * fs/ggml/ggml.go GraphSize @ 4372d0bf); from 0.12.11 (f560bd077) it
 * places layers on the backend's measured sizes ---- */

#define V_MEASURED V(0, 12, 11)

static bool old_estimator(const kvb__engine_in *in)
{
    return in->version && in->version < V_MEASURED;
}

/* kvCacheBytesPerElement: f16 2, q8_0 1, q4_0 0.5 (no block scales); the
 * cache type applies only with flash attention. */
static double bytes_per_element(const kvb_serving *s)
{
    if (s->flash_attn == 0)
        return 2;
    switch (s->cache_type_k) {
    case KVB_STORAGE_Q8_0: return 1;
    case KVB_STORAGE_Q4_0: return 0.5;
    case KVB_STORAGE_F32: return 4;
    default: return 2;
    }
}

typedef struct estimate {
    uint64_t kv_layer_full, kv_layer_swa; /* one layer's kv[i] */
    uint64_t kv_total;
    uint64_t graph_full, graph_partial;
} estimate;

/* GraphSize(num_ctx, min(num_ctx, num_batch), parallel, type, fa). */
static void ollama_estimate(const kvb__engine_in *in, estimate *e)
{
    const kvb_model *m = in->model;
    const kvb_serving *s = &in->s;
    uint64_t np = s->max_num_seqs ? s->max_num_seqs : 1;
    uint64_t num_ctx = s->context_size / np;
    uint64_t b = kvb__min(num_ctx, s->max_num_batched_tokens);
    uint64_t c = num_ctx * np; /* context *= numParallel */
    uint64_t hk, hv, hkv = m->num_key_value_heads;
    if (kvb__is_mla(m)) { /* embedding_length_{k,v} of the GGUF */
        hk = (uint64_t)m->qk_nope_head_dim + m->qk_rope_head_dim;
        hv = m->v_head_dim;
        hkv = m->num_attention_heads;
    } else {
        hk = hv = kvb__head_dim(m);
    }
    double bpe = bytes_per_element(s);
    double per_cell = (double)((hk + hv) * hkv) * bpe;
    memset(e, 0, sizeof *e);
    e->kv_layer_full = (uint64_t)((double)c * per_cell);
    e->kv_layer_swa = e->kv_layer_full;
    if (m->arch == KVB_ARCH_GEMMA3 && m->sliding_window)
        e->kv_layer_swa =
            (uint64_t)((double)(np * m->sliding_window + b) * per_cell);
    else if (m->arch == KVB_ARCH_GPT_OSS) /* even layers: 4096 a slot */
        e->kv_layer_swa = (uint64_t)((double)(np * 4096 + b) * per_cell);
    for (uint32_t i = 0; i < m->num_hidden_layers; i++) {
        bool swa = (m->arch == KVB_ARCH_GEMMA3 && m->sliding_window &&
                    (i + 1) % 6 != 0) ||
                   (m->arch == KVB_ARCH_GPT_OSS && i % 2 == 0);
        e->kv_total += swa ? e->kv_layer_swa : e->kv_layer_full;
    }
    uint64_t E = m->hidden_size, H = m->num_attention_heads, V = m->vocab_size;
    uint64_t eh = kvb__head_dim(m);
    switch (m->arch) {
    case KVB_ARCH_LLAMA:
    case KVB_ARCH_LLAMA4:
    case KVB_ARCH_MISTRAL:
        e->graph_full =
            kvb__max(4 * b * (1 + 4 * E + c * (1 + H)), 4 * b * (E + V));
        e->graph_partial =
            4 * b * E +
            kvb__max(4 * b * (1 + E + kvb__max(c, E)) + E * E * 9 / 16 +
                         4 * c * (b * H + eh * hkv),
                     4 * b * (E + V) + E * V * 105 / 128);
        break;
    case KVB_ARCH_GEMMA2:
    case KVB_ARCH_GEMMA3:
        e->graph_full = kvb__max(4 * b * (E + V),
                                 4 * b * (2 + c + c * H + 2 * E + 2 * eh * H));
        e->graph_partial =
            kvb__max(4 * E * b + E * V * 105 / 128 + 4 * V * b,
                     4 * b * (2 * E + 1 + 2 * eh * H + c + c * H) +
                         4 * eh * c * 8 + E * eh * H * 9 / 16);
        break;
    case KVB_ARCH_QWEN2:
        e->graph_full =
            kvb__max(4 * b * (E + V), 4 * b * (1 + 2 * E + c + c * H));
        e->graph_partial =
            kvb__max(4 * b * (E + V) + E * V * 105 / 128,
                     4 * (b * (1 + 2 * E + c * (1 + H)) + E * (1 + c)));
        break;
    default: break;
    }
    if (!e->graph_partial) { /* memory.go: gqa x kvTotal / 6 */
        uint64_t gqa = H / (hkv ? hkv : 1);
        e->graph_partial = gqa * e->kv_total / 6;
    }
    if (!e->graph_full)
        e->graph_full = e->graph_partial;
}

/*
 * The image graph of Ollama's estimate (fs/ggml/ggml.go VisionGraphSize,
 * from the gemma3 engine of 0.6.0 to 0.12.10): for gemma3 and mistral3,
 * 4 x (image^2 x 3 channels + width x patch + patches^2 x heads) with
 * patches = (image / patch)^2; other families 0.  llm/memory.go (as of
 * v0.11.4: ollamaEngineProjectorWeights/Graph) adds it and the
 * projector's weights (the "v." tensors) to the output layer
 * ("memoryLastLayer"), placed last; a llama-engine projector blob
 * (projectorMemoryRequirements) is charged to GPU 0 up front instead, as
 * earlier releases charged every projector -- the same total when every
 * layer fits.  Saturates instead of wrapping.
 */
static uint64_t vision_graph(const kvb_model *m)
{
    if ((m->vision_kind != KVB_VISION_SIGLIP &&
         m->vision_kind != KVB_VISION_PIXTRAL) ||
        !m->vision_patch_size)
        return 0;
    uint64_t img = m->vision_image_size, side = img / m->vision_patch_size;
    uint64_t pixels, n, scores, width, sum;
    if (!kvb__mul_ok(img, img * 3, &pixels) || !kvb__mul_ok(side, side, &n) ||
        !kvb__mul_ok(n, n, &scores) ||
        !kvb__mul_ok(scores, m->vision_num_heads, &scores) ||
        !kvb__mul_ok(m->vision_hidden_size, m->vision_patch_size, &width) ||
        !kvb__add_ok(pixels, width, &sum) || !kvb__add_ok(sum, scores, &sum) ||
        !kvb__mul_ok(sum, 4, &sum))
        return UINT64_MAX;
    return sum;
}

/* memory.go's placement: each GPU first holds 457 MiB and one layer, the
 * graph is kept free, layers (weights + kv[i]) go while free > overhead +
 * used + layer, the output layer last. */
static uint32_t old_placement(const kvb__engine_in *in, const estimate *e)
{
    const kvb_model *m = in->model;
    kvb_serving s = in->s;
    kvb__ggml_opts o = kvb__llama_opts(in);
    kvb__ggml g;
    kvb__ggml_weights all, layers;
    s.n_gpu_layers = m->num_hidden_layers + 1;
    kvb__ggml_resolve(m, &s, &o, &g);
    g.gpus = 1;
    if (kvb__ggml_weights_split(m, in->quant, &g, &all))
        return 0;
    s.n_gpu_layers = m->num_hidden_layers;
    kvb__ggml_resolve(m, &s, &o, &g);
    g.gpus = 1;
    if (kvb__ggml_weights_split(m, in->quant, &g, &layers))
        return 0;
    uint64_t layer_w = layers.gpu / m->num_hidden_layers;
    /* the output layer with the projector (in the weights' split) and
     * its image graph */
    uint64_t output = all.gpu - layers.gpu;
    if (!kvb__add_ok(output, vision_graph(m), &output))
        output = UINT64_MAX;
    uint64_t free = in->gpu->free_bytes
                        ? in->gpu->free_bytes
                        : in->gpu->total_bytes - kvb__llama_cuda_context(in);
    uint64_t over = in->s.gpu_overhead_bytes;
    uint64_t graph = kvb__max(e->graph_full, e->graph_partial);
    uint64_t first = layer_w + e->kv_layer_full;
    uint32_t placed = 0;
    for (uint32_t gpu = 0; gpu < in->gpu->count; gpu++) {
        uint64_t used = 457 * KVB__MIB + first;
        if (free < over + graph + 457 * KVB__MIB + 2 * first)
            continue; /* this GPU is not used at all */
        while (placed < m->num_hidden_layers) {
            uint32_t i = m->num_hidden_layers - 1 - placed;
            bool swa = (m->arch == KVB_ARCH_GEMMA3 && m->sliding_window &&
                        (i + 1) % 6 != 0) ||
                       (m->arch == KVB_ARCH_GPT_OSS && i % 2 == 0);
            uint64_t layer =
                layer_w + (swa ? e->kv_layer_swa : e->kv_layer_full);
            if (free <= over + used + graph + layer)
                break;
            used += layer;
            placed++;
        }
        uint64_t need;
        if (placed == m->num_hidden_layers &&
            kvb__add_ok(over + used + graph, output, &need) && free > need)
            return placed + 1;
    }
    return placed;
}

static void ollama_defaults(kvb__engine_in *in)
{
    kvb_serving *s = &in->s;
    if (!s->max_num_seqs)
        s->max_num_seqs = 1; /* OLLAMA_NUM_PARALLEL */
    s->kv_unified = 0;
    /* OLLAMA_FLASH_ATTENTION: off by default until llama-server's auto */
    if (s->flash_attn < 0 && !since(in, V(0, 30, 0)))
        s->flash_attn = 0;
    /* OLLAMA_KV_CACHE_TYPE applies only with flash attention */
    if (s->flash_attn == 0)
        s->cache_type_k = s->cache_type_v = KVB_STORAGE_F16;
    if (!s->max_num_batched_tokens)
        s->max_num_batched_tokens = 512; /* num_batch */
    if (!s->ubatch_size)
        s->ubatch_size = 512;
    /* num_ctx per request; the runner gets num_ctx x parallel */
    if (s->context_size && s->max_model_len)
        kvb__llama_len_to_ctx(in);
    if (!s->context_size) {
        uint64_t num_ctx =
            s->max_model_len ? s->max_model_len : default_num_ctx(in);
        if (!s->max_model_len && num_ctx > in->model->max_position_embeddings)
            num_ctx = in->model->max_position_embeddings;
        s->context_size = num_ctx * s->max_num_seqs;
    }
    /* num_gpu unset: Ollama places the layers that fit after its reserve
     * (llm/memory.go: OLLAMA_GPU_OVERHEAD + 457 MiB on CUDA), from v0.30
     * llama-server's --fit with a 1 GiB margin */
    if (s->n_gpu_layers == KVB_ALL_LAYERS && old_estimator(in)) {
        estimate e;
        ollama_estimate(in, &e);
        s->n_gpu_layers = old_placement(in, &e);
    } else if (s->n_gpu_layers == KVB_ALL_LAYERS) {
        uint64_t room = kvb__llama_requested_bytes(in);
        uint64_t reserve =
            since(in, V(0, 30, 0)) ? 1024 * KVB__MIB : 457 * KVB__MIB;
        room = room > reserve ? room - reserve : 0;
        kvb__llama_fit(in, room, false, true);
    }
    kvb__llama_finish_defaults(in);
}

/* The plan, and the line `ollama ps` would print for it. */
static void ollama_finish(const kvb__engine_in *in, kvb_plan *p,
                          const kvb__stage_result *r)
{
    kvb__llama_finish(in, p, r);
    if (old_estimator(in)) {
        /* what Ollama logs (memory.required.kv, memory.graph.*) and shows
         * in `ollama ps`; llama.cpp's own allocation is in the warning */
        estimate e;
        ollama_estimate(in, &e);
        uint64_t real = p->kv_cache_bytes_per_gpu;
        bool full = p->layers_on_gpu >= p->layers_total;
        uint64_t n = in->model->num_hidden_layers;
        uint64_t on = kvb__min(p->layers_on_gpu, n);
        p->kv_cache_bytes_per_gpu =
            (uint64_t)((double)e.kv_total * (double)on / (double)n /
                       (double)in->gpu->count);
        p->compute_buffer_bytes_per_gpu =
            p->layers_on_gpu ? (full ? e.graph_full : e.graph_partial) : 0;
        /* the image graph goes with the output layer (memoryLastLayer) */
        uint64_t vg = vision_graph(in->model);
        if (full && vg) {
            if (!kvb__add_ok(p->compute_buffer_bytes_per_gpu, vg,
                             &p->compute_buffer_bytes_per_gpu))
                p->compute_buffer_bytes_per_gpu = UINT64_MAX;
            size_t k = strlen(p->warning);
            snprintf(p->warning + k, sizeof p->warning - k,
                     "%simage graph %.2f GiB in the compute buffer "
                     "(VisionGraphSize)",
                     k ? "; " : "", KVB__GIB(vg));
        }
        size_t w = strlen(p->warning);
        snprintf(p->warning + w, sizeof p->warning - w,
                 "%sOllama's estimate (llm/memory.go); llama.cpp allocates "
                 "%.2f GiB of KV cache",
                 w ? "; " : "", KVB__GIB(real));
    } else if (in->model->vision_kind != KVB_VISION_NONE) {
        /* the backend's measured graph includes an image's encoding
         * (runner/ollamarunner reserveWorstCaseGraph); not modelled */
        size_t k = strlen(p->warning);
        snprintf(p->warning + k, sizeof p->warning - k,
                 "%sits image graph is not counted", k ? "; " : "");
    }
    uint64_t vram = p->weights_bytes_per_gpu * in->gpu->count +
                    p->kv_cache_bytes_per_gpu * in->gpu->count +
                    p->compute_buffer_bytes_per_gpu;
    uint64_t size = vram + p->host_bytes;
    /* every layer on the GPUs reads "100% GPU" (the token embedding in
     * host RAM is not counted against it) */
    unsigned gpu_pct =
        p->layers_on_gpu >= p->layers_total || !size
            ? 100
            : (unsigned)((double)vram * 100.0 / (double)size + 0.5);
    size_t n = strlen(p->warning);
    char proc[32];
    if (gpu_pct >= 100)
        snprintf(proc, sizeof proc, "100%% GPU");
    else /* server/routes.go ps: "48%/52% CPU/GPU" */
        snprintf(proc, sizeof proc, "%u%%/%u%% CPU/GPU", 100 - gpu_pct,
                 gpu_pct);
    snprintf(p->warning + n, sizeof p->warning - n,
             "%sollama ps: SIZE %.1f GB, PROCESSOR %s, CONTEXT %llu",
             n ? "; " : "", (double)size / 1e9, proc,
             (unsigned long long)p->max_model_len);
}

static void ollama_render_args(const kvb_fix *f, const kvb_model *m,
                               kvb__args *a)
{
    (void)m;
    /* Ollama takes these as the server's environment */
    kvb__arg(a, "OLLAMA_CONTEXT_LENGTH=%llu",
             (unsigned long long)f->max_model_len);
    kvb__arg(a, "OLLAMA_NUM_PARALLEL=1");
    if (f->kv_cache_dtype == KVB_DTYPE_FP8) {
        kvb__arg(a, "OLLAMA_FLASH_ATTENTION=1");
        kvb__arg(a, "OLLAMA_KV_CACHE_TYPE=q8_0");
    }
}

static bool ollama_detect(size_t argc, const char *const *argv, size_t *used)
{
    return kvb__cmd_program(argc, argv, "ollama", "run", used) ||
           kvb__cmd_program(argc, argv, "ollama", "serve", used) ||
           kvb__cmd_program(argc, argv, "ollama", "runner", used) ||
           kvb__cmd_program(argc, argv, "ollama_llama_server", "runner", used);
}

static kvb_status ollama_kv_type(kvb__cmd *c, const char *flag,
                                 const char *value, kvb_error *err)
{
    if (!value[0])
        return KVB_OK; /* unset */
    kvb_status st = kvb__llama_ctk(c, flag, value, err);
    if (!st)
        st = kvb__llama_ctv(c, flag, value, err);
    return st;
}

static kvb_status ollama_fa(kvb__cmd *c, const char *flag, const char *value,
                            kvb_error *err)
{
    if (value && !value[0])
        return KVB_OK;
    return kvb__llama_fa(c, flag, value, err);
}

#define S KVB__FLAG_SERVING
#define C KVB__FLAG_COMMAND
/* envconfig/config.go (the server's environment), cmd/cmd.go (ollama
 * run), runner/llamarunner (the runner's flags Ollama logs). */
static const kvb__flag ollama_flags[] = {
    S(NULL, "OLLAMA_CONTEXT_LENGTH", KVB__FLAG_U64, max_model_len),
    S(NULL, "OLLAMA_NUM_PARALLEL", KVB__FLAG_U32, max_num_seqs),
    KVB__FLAG_SET(NULL, "OLLAMA_FLASH_ATTENTION", ollama_fa),
    KVB__FLAG_SET(NULL, "OLLAMA_KV_CACHE_TYPE", ollama_kv_type),
    S(NULL, "OLLAMA_GPU_OVERHEAD", KVB__FLAG_U64, gpu_overhead_bytes),
    C("--model", NULL, model),
    S("--ctx-size", NULL, KVB__FLAG_U64, context_size),
    S("--batch-size", NULL, KVB__FLAG_U64, max_num_batched_tokens),
    S("--n-gpu-layers", NULL, KVB__FLAG_U32, n_gpu_layers),
    S("--parallel", NULL, KVB__FLAG_U32, max_num_seqs),
    KVB__FLAG_SET_BARE("--flash-attn", NULL, kvb__llama_fa),
    KVB__FLAG_SET("--kv-cache-type", NULL, ollama_kv_type),
    KVB__FLAG_SKIP("--format|--keepalive|--threads|--port|--tensor-split|"
                   "--mmproj|--lora|--main-gpu",
                   NULL),
    KVB__FLAG_SKIP_BARE("--verbose|--nowordwrap|--insecure|--think|"
                        "--hidethinking|--no-mmap|--mlock|--ollama-engine|"
                        "--multiuser-cache|--embedding",
                        NULL),
};
#undef S
#undef C

/* ---- Ollama's own log lines (log/slog key=value) ---- */

/* "19.5 GiB", "992.0 MiB", "0 B" after key= (quoted or not). */
static bool size_after(const char *line, size_t len, const char *key,
                       uint64_t *out)
{
    const char *p = kvb__llama_find(line, len, key);
    if (!p)
        return false;
    const char *end = line + len;
    p += strlen(key);
    if (p < end && *p == '"')
        p++;
    if (p >= end || !isdigit((unsigned char)*p))
        return false;
    double v;
    if (!kvb__log_number(p, end, 1e15, &v))
        return false;
    while (p < end && (isdigit((unsigned char)*p) || *p == '.' || *p == ' '))
        p++;
    double unit = 1;
    if (end - p >= 3 && !memcmp(p, "GiB", 3))
        unit = 1073741824.0;
    else if (end - p >= 3 && !memcmp(p, "MiB", 3))
        unit = 1048576.0;
    else if (end - p >= 3 && !memcmp(p, "KiB", 3))
        unit = 1024.0;
    return kvb__log_bytes(v, unit, out);
}

static bool num_after(const char *line, size_t len, const char *key,
                      uint64_t *out)
{
    const char *p = kvb__llama_find(line, len, key);
    if (!p)
        return false;
    const char *end = line + len;
    p += strlen(key);
    while (p < end && (*p == ' ' || *p == '='))
        p++;
    if (p >= end || !isdigit((unsigned char)*p))
        return false;
    uint64_t v = 0;
    while (p < end && isdigit((unsigned char)*p) && v < ((uint64_t)1 << 50))
        v = v * 10 + (uint64_t)(*p++ - '0');
    *out = v;
    return true;
}

static bool ollama_log_line(kvb_log_facts *f, const char *line, size_t len)
{
    uint64_t v, m;
    if (kvb__llama_find(line, len, "msg=offload") ||
        kvb__llama_find(line, len, "msg=\"offload")) {
        if (num_after(line, len, "layers.offload=", &v) &&
            num_after(line, len, "layers.model=", &m)) {
            f->layers_on_gpu = (uint32_t)v;
            f->layers_total = (uint32_t)m;
            kvb__log_set(f, KVB_LOG_BIT_LAYERS_ON_GPU);
            kvb__log_set(f, KVB_LOG_BIT_LAYERS_TOTAL);
        }
        if (size_after(line, len, "memory.required.kv=", &v)) {
            f->kv_cache_bytes = (int64_t)v;
            kvb__log_set(f, KVB_LOG_BIT_KV_CACHE_BYTES);
        }
        bool full = KVB_LOG_HAS(f, LAYERS_ON_GPU) &&
                    f->layers_on_gpu >= f->layers_total;
        if (size_after(
                line, len,
                full ? "memory.graph.full=" : "memory.graph.partial=", &v)) {
            f->compute_buffer_bytes = v;
            kvb__log_set(f, KVB_LOG_BIT_COMPUTE_BUFFER_BYTES);
        }
        return true;
    }
    /* ml/device.go (from 0.12): msg="kv cache" device=CUDA0 size="896.0
     * MiB", and "model weights", "compute graph"; host devices skipped */
    static const struct {
        const char *msg;
        int bit;
    } per_device[] = {
        {"msg=\"model weights\"", KVB_LOG_BIT_WEIGHTS_BYTES},
        {"msg=\"kv cache\"", KVB_LOG_BIT_KV_CACHE_BYTES},
        {"msg=\"compute graph\"", KVB_LOG_BIT_COMPUTE_BUFFER_BYTES},
    };
    for (size_t i = 0; i < KVB__ARRAY_LEN(per_device); i++) {
        if (!kvb__llama_find(line, len, per_device[i].msg))
            continue;
        if (kvb__llama_find(line, len, "device=CPU") ||
            !size_after(line, len, "size=", &v))
            return true;
        int bit = per_device[i].bit;
        if (bit == KVB_LOG_BIT_WEIGHTS_BYTES) {
            if (!KVB_LOG_HAS(f, WEIGHTS_BYTES) || v > f->weights_bytes)
                f->weights_bytes = v;
        } else if (bit == KVB_LOG_BIT_KV_CACHE_BYTES) {
            if (!KVB_LOG_HAS(f, KV_CACHE_BYTES) ||
                (int64_t)v > f->kv_cache_bytes)
                f->kv_cache_bytes = (int64_t)v;
        } else if (!KVB_LOG_HAS(f, COMPUTE_BUFFER_BYTES) ||
                   v > f->compute_buffer_bytes) {
            f->compute_buffer_bytes = v;
        }
        kvb__log_set(f, bit);
        return true;
    }
    if (kvb__llama_find(line, len, "starting llama server") ||
        kvb__llama_find(line, len, " runner --")) {
        if (num_after(line, len, "--ctx-size", &v)) {
            f->context_size = v;
            kvb__log_set(f, KVB_LOG_BIT_CONTEXT_SIZE);
        }
        if (num_after(line, len, "--parallel", &v)) {
            f->n_parallel = (uint32_t)v;
            kvb__log_set(f, KVB_LOG_BIT_N_PARALLEL);
        }
        return true;
    }
    const char *ver = kvb__llama_find(line, len, "(version ");
    if (ver && kvb__llama_find(line, len, "Listening on")) {
        char text[32];
        size_t n = 0;
        ver += 9;
        while (ver < line + len && n + 1 < sizeof text && *ver != ')')
            text[n++] = *ver++;
        text[n] = '\0';
        uint32_t packed;
        if (kvb__engine_version_parse(&kvb__engine_ollama, text, &packed)) {
            f->engine_version = packed;
            kvb__log_set(f, KVB_LOG_BIT_ENGINE_VERSION);
        }
        return true;
    }
    return false;
}

/* envconfig/config.go: the server's variables; no utilization fraction
 * and no eager switch; models are GGUF tags. */
static const char *ollama_remedy(int32_t kind, int32_t quant)
{
    switch (kind) {
    case KVB_FIX_MAX_MODEL_LEN: return "OLLAMA_CONTEXT_LENGTH";
    case KVB_FIX_KV_CACHE_FP8: return "OLLAMA_KV_CACHE_TYPE=q8_0";
    case KVB_FIX_QUANTIZE:
        return kvb__quant_is_gguf(quant) ? "a smaller tag (ollama pull)" : NULL;
    default: return NULL;
    }
}

const kvb__engine kvb__engine_ollama = {
    .id = KVB_ENGINE_OLLAMA,
    .name = "ollama",
    .display = "Ollama",
    .runs_on_cpu = true, /* no GPU found: the CPU runner */
    /* Through 0.29 Ollama ran llama3.2-vision on its Go engine
     * (model/models/mllama, one request at a time: server/sched.go) and
     * estimated it with its own mllama case in fs/ggml/ggml.go GraphSize
     * (an f32 cross-attention cache of 1601 x 4 tokens per cross layer
     * and its own graph formulas), which ollama.c does not follow.  From
     * 0.30.0 (PR #16031: llama-server only) it does not run it at all
     * (integration/reg_release_test.go: "re-enable when llama.cpp
     * supports mllama"). */
    .no_cross_attention = "its own mllama estimate (fs/ggml/ggml.go) is "
                          "not followed; from 0.30.0 (PR #16031) it does "
                          "not run mllama",
    .accounting = ollama_accounting,
    .defaults = ollama_defaults,
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
    .finish = ollama_finish,
    .verdict = kvb__llama_verdict,
    .error_text = kvb__llama_error_text,
    .render_args = ollama_render_args,
    .remedy = ollama_remedy,
    .detect = ollama_detect,
    .flags = ollama_flags,
    .flag_count = KVB__ARRAY_LEN(ollama_flags),
    .underscores = false,
    .positional_model = true,
    .log_line = ollama_log_line,
};
