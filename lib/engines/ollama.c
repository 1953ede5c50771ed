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
    if (s->n_gpu_layers == KVB_ALL_LAYERS) {
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
    char num[32];
    size_t n = 0;
    while (p < end && n + 1 < sizeof num &&
           (isdigit((unsigned char)*p) || *p == '.'))
        num[n++] = *p++;
    num[n] = '\0';
    while (p < end && *p == ' ')
        p++;
    double unit = 1;
    if (end - p >= 3 && !memcmp(p, "GiB", 3))
        unit = 1073741824.0;
    else if (end - p >= 3 && !memcmp(p, "MiB", 3))
        unit = 1048576.0;
    else if (end - p >= 3 && !memcmp(p, "KiB", 3))
        unit = 1024.0;
    *out = (uint64_t)(strtod(num, NULL) * unit + 0.5);
    return true;
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

static void set_bit(kvb_log_facts *f, int bit)
{
    f->present |= (uint64_t)1 << bit;
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
            set_bit(f, KVB_LOG_BIT_LAYERS_ON_GPU);
            set_bit(f, KVB_LOG_BIT_LAYERS_TOTAL);
        }
        if (size_after(line, len, "memory.required.kv=", &v)) {
            f->kv_cache_bytes = (int64_t)v;
            set_bit(f, KVB_LOG_BIT_KV_CACHE_BYTES);
        }
        bool full = KVB_LOG_HAS(f, LAYERS_ON_GPU) &&
                    f->layers_on_gpu >= f->layers_total;
        if (size_after(
                line, len,
                full ? "memory.graph.full=" : "memory.graph.partial=", &v)) {
            f->compute_buffer_bytes = v;
            set_bit(f, KVB_LOG_BIT_COMPUTE_BUFFER_BYTES);
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
        set_bit(f, bit);
        return true;
    }
    if (kvb__llama_find(line, len, "starting llama server") ||
        kvb__llama_find(line, len, " runner --")) {
        if (num_after(line, len, "--ctx-size", &v)) {
            f->context_size = v;
            set_bit(f, KVB_LOG_BIT_CONTEXT_SIZE);
        }
        if (num_after(line, len, "--parallel", &v)) {
            f->n_parallel = (uint32_t)v;
            set_bit(f, KVB_LOG_BIT_N_PARALLEL);
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
            set_bit(f, KVB_LOG_BIT_ENGINE_VERSION);
        }
        return true;
    }
    return false;
}

const kvb__engine kvb__engine_ollama = {
    .id = KVB_ENGINE_OLLAMA,
    .name = "ollama",
    .display = "Ollama",
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
    .detect = ollama_detect,
    .flags = ollama_flags,
    .flag_count = KVB__ARRAY_LEN(ollama_flags),
    .underscores = false,
    .positional_model = true,
    .log_line = ollama_log_line,
};
