/*
 * fidelity.c -- plan real engine start-ups and compare with what the
 * engine logged.
 *
 * Every record of data/vllm_dev.jsonl (public start-up logs; see
 * data/vllm_dev.md for the fields) that the library can describe
 * is planned with the record's own settings, GPU total and vLLM version,
 * through the public API only.  The predicted weights, KV budget, KV
 * tokens, concurrency and start-up verdict are compared with the logged
 * figures; the real checkpoint sizes of data/checkpoints.json are compared
 * with the weights the library computes.  One table row per record goes to
 * stdout, and the program exits 1 when a tolerance is broken.
 *
 *   kvb_fidelity --data DIR                  run, print, check
 *   kvb_fidelity --data DIR --write FILE     also write docs/accuracy.md
 *   kvb_fidelity --data DIR --readme FILE    also refresh the README summary
 *   kvb_fidelity --data DIR --check FILE     fail when FILE (accuracy.md)
 *                                            is not what this run writes
 *   kvb_fidelity --data DIR --check-readme FILE   the same for the README
 *   kvb_fidelity --data DIR --part engines   only the files in data/engines
 *
 * The other engines' logs (the files in data/engines: SGLang, TensorRT-LLM,
 * TGI, llama.cpp, Ollama) are planned from each record's `plan` block
 * and reported per engine in their own section.
 *
 * Targets (docs/accuracy.md states them): weights within 1% on every record
 * that says which checkpoint ran; KV tokens end to end within 5% (median)
 * and 10% (90th percentile); concurrency within the same; every start-up
 * verdict right; checkpoints exact (16-bit) or within 0.5% (quantized).
 */
#include <kvbudget.h>

#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB      1073741824.0
#define MAX_ROWS 64

/* ---- tolerances (the targets) ---- */
#define TOL_WEIGHTS      0.01  /* every record */
#define TOL_MEDIAN       0.05  /* KV tokens and concurrency, median |err| */
#define TOL_P90          0.10  /* KV tokens and concurrency, p90 |err| */
#define TOL_GIVEN_BUDGET 0.005 /* block math from a logged budget */

/* ---- a growing text buffer (the document) ---- */

typedef struct text {
    char *p;
    size_t n, cap;
} text;

static void put(text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(t->p ? t->p + t->n : NULL, t->p ? t->cap - t->n : 0,
                          fmt, ap);
        va_end(ap);
        if (k < 0)
            abort();
        if (t->p && t->n + (size_t)k < t->cap) {
            t->n += (size_t)k;
            return;
        }
        size_t cap = t->cap ? t->cap * 2 : 4096;
        while (cap < t->n + (size_t)k + 1)
            cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p)
            abort();
        t->p = p;
        t->cap = cap;
    }
}

/* ---- one record's comparison ---- */

typedef struct cmp {
    int use;                  /* compared */
    int counted;              /* enters the summary statistics */
    double pred, logged, err; /* err: (pred - logged) / logged */
    const char *ref;          /* where the logged figure comes from */
} cmp;

typedef struct row {
    char id[32];
    char url[200];
    char model[96];
    char version[64];    /* as the record dates it */
    char line[16];       /* the record's version_line */
    char accounting[24]; /* the plan's */
    int planned;         /* end to end (the GPU total is known) */
    char total_src[24];  /* "logged", "assumed", "GPU table" */
    cmp weights, budget, tokens, given, conc;
    cmp act, nontorch; /* measured terms, shown only */
    cmp cpu;           /* CPU blocks for the swap space: KV bytes/token */
    int v_use, v_ok;
    char v_pred[48], v_logged[32];
    char note[480];     /* why something is not compared */
    char excluded[480]; /* records.json exclusion */
    char residual[640]; /* records.json: where the remaining error is from */
    char usable[160];   /* the record's usable_for */
    int failed;         /* a per-record tolerance broke */
    int set;            /* SET_DEV or SET_COLLECTED: the file it came from */
} row;

typedef struct ckpt {
    char repo[96], format[16], preset[32];
    double pred, logged, err, tol;
    int exact, uncertain, ok;
    char source[200];
} ckpt;

/* The records given with the project (vllm_dev.jsonl) and the ones
 * collected for issue 13 (vllm_collected.jsonl) are reported apart. */
enum { SET_DEV = 0, SET_COLLECTED = 1 };

typedef struct run {
    row rows[MAX_ROWS];
    int n;
    int cur_set; /* the set the statistics and the record tables describe */
    ckpt ck[MAX_ROWS];
    int nck;
    json_t *gpus, *records;
    int broken; /* a tolerance is broken */
    char why[1024];
    /* while a collected record is planned: its misses are reported (the
     * record tables, the list printed after the run) but the targets,
     * and so the test, are the development set's */
    int planning_collected;
    char why_collected[2048];
} run;

static void broke(run *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void broke(run *r, const char *fmt, ...)
{
    char *why = r->planning_collected ? r->why_collected : r->why;
    size_t cap =
        r->planning_collected ? sizeof r->why_collected : sizeof r->why;
    size_t n = strlen(why);
    if (n + 2 < cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why + n, cap - n, fmt, ap);
        va_end(ap);
        n = strlen(why);
        if (n + 1 < cap)
            strcat(why, "\n");
    }
    if (!r->planning_collected)
        r->broken = 1;
}

/* ---- JSON helpers ---- */

static json_t *get(json_t *o, const char *path)
{
    char key[64];
    while (o && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        o = json_is_object(o) ? json_object_get(o, key) : NULL;
        path += n + (dot != NULL);
    }
    return json_is_null(o) ? NULL : o;
}

static const char *str(json_t *o, const char *path)
{
    return json_string_value(get(o, path));
}

static int num(json_t *o, const char *path, double *out)
{
    json_t *v = get(o, path);
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return 1;
    }
    if (json_is_string(v)) { /* "8192 (model max_position_embeddings)" */
        char *end;
        double d = strtod(json_string_value(v), &end);
        if (end != json_string_value(v)) {
            *out = d;
            return 1;
        }
    }
    return 0;
}

static uint64_t u64(json_t *o, const char *path)
{
    double d = 0;
    return num(o, path, &d) && d > 0 ? (uint64_t)llround(d) : 0;
}

static void copy(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

/* First "MAJOR.MINOR[.PATCH]" in a text ("0.7.3.dev233", "about 0.9.2-",
 * "0.7.x"), packed as kvb_serving.engine_version. */
static uint32_t version_in(const char *s)
{
    for (; s && *s; s++) {
        unsigned a, b, c = 0;
        int n = 0;
        if (*s < '0' || *s > '9' ||
            (s[1] != '.' && (s[1] < '0' || s[2] != '.')))
            continue;
        if (sscanf(s, "%u.%u%n", &a, &b, &n) == 2) {
            if (s[n] == '.' && s[n + 1] >= '0' && s[n + 1] <= '9')
                sscanf(s + n + 1, "%u", &c);
            if (a < 100 && b < 100 && c < 100)
                return a * 10000 + b * 100 + c;
        }
    }
    return 0;
}

static double rel(double pred, double logged)
{
    if (logged == 0)
        return pred == 0 ? 0 : 1;
    return (pred - logged) / logged;
}

static void set_cmp(cmp *c, double pred, double logged, const char *ref)
{
    c->use = 1;
    c->pred = pred;
    c->logged = logged;
    c->err = rel(pred, logged);
    c->ref = ref;
}

/* ---- building the inputs of a record ---- */

static json_t *load(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j)
        fprintf(stderr, "%s:%d: %s\n", path, je.line, je.text);
    return j;
}

/* The flags of a family, from its first preset (lib/presets/models.c). */
static uint32_t family_flags(int32_t arch)
{
    size_t n = kvb_preset_model_count();
    for (size_t i = 0; i < n; i++) {
        kvb_model m;
        if (KVB_MODEL_INIT(&m) || kvb_preset_model_get(i, &m, NULL))
            continue;
        if (m.arch == arch)
            return m.flags;
    }
    return 0;
}

static int build_model(json_t *rec, json_t *sup, kvb_model *m, char *why,
                       size_t cap)
{
    kvb_error e = KVB_ERROR_INIT;
    const char *preset = str(rec, "model.preset");
    if (KVB_MODEL_INIT(m))
        return snprintf(why, cap, "kvb_model_init failed"), 0;
    if (preset) {
        if (kvb_preset_model_find(preset, m, &e))
            return snprintf(why, cap, "preset %.40s: %.180s", preset,
                            e.message),
                   0;
    } else {
        const char *type = str(sup, "model_type");
        int32_t arch;
        if (!type)
            return snprintf(why, cap,
                            "no preset and no model_type in "
                            "records.json"),
                   0;
        if (kvb_arch_find(type, &arch, &e))
            return snprintf(why, cap, "model_type %.40s: %.180s", type,
                            e.message),
                   0;
        m->arch = arch;
        m->flags = family_flags(arch);
    }
    copy(m->name, sizeof m->name, str(rec, "model.name"));
#define FIELD(f)                                                               \
    do {                                                                       \
        double d;                                                              \
        if (num(rec, "model." #f, &d))                                         \
            m->f = d;                                                          \
    } while (0)
    FIELD(hidden_size);
    FIELD(num_hidden_layers);
    FIELD(num_attention_heads);
    FIELD(num_key_value_heads);
    FIELD(head_dim);
    FIELD(intermediate_size);
    FIELD(vocab_size);
    FIELD(max_position_embeddings);
    FIELD(num_experts);
    FIELD(num_experts_per_tok);
    FIELD(moe_intermediate_size);
    FIELD(first_k_dense_replace);
    FIELD(sliding_window);
#undef FIELD
    json_t *tie = get(rec, "model.tie_word_embeddings");
    if (tie)
        m->tie_word_embeddings = json_is_true(tie);
    double shared = 0;
    if (num(rec, "model.shared_expert_intermediate_size", &shared) &&
        shared > 0) {
        m->num_shared_experts = 1;
        m->shared_expert_intermediate_size = (uint64_t)shared;
    }
    const char *dt = str(rec, "settings.dtype");
    if (!dt)
        dt = str(rec, "assumed.dtype");
    if (dt) {
        char word[16];
        int32_t d;
        sscanf(dt, "%15s", word);
        if (kvb_dtype_find(word, &d, NULL) == KVB_OK && d != KVB_DTYPE_AUTO)
            m->dtype = d;
    }
    if (kvb_model_validate(m, &e))
        return snprintf(why, cap, "%.60s: %.180s", e.field, e.message), 0;
    return 1;
}

static int build_quant(json_t *rec, json_t *sup, kvb_quant *q, char *why,
                       size_t cap)
{
    if (KVB_QUANT_INIT(q))
        return snprintf(why, cap, "kvb_quant_init failed"), 0;
    const char *qs = str(rec, "settings.quantization");
    if (!qs)
        qs = str(rec, "assumed.quantization");
    if (qs && kvb_quant_method_find(qs, &q->method, NULL))
        return snprintf(why, cap, "quantization %s is not supported", qs), 0;
    const char *sc = str(sup, "fp8_scale");
    if (sc && strcmp(sc, "block128") == 0)
        q->fp8_scale = KVB_FP8_SCALE_BLOCK128;
    else if (sc && strcmp(sc, "channel") == 0)
        q->fp8_scale = KVB_FP8_SCALE_CHANNEL;
    const char *kv = str(rec, "settings.kv_cache_dtype");
    if (kv && strcmp(kv, "auto") != 0 &&
        kvb_dtype_find(kv, &q->kv_cache_dtype, NULL))
        return snprintf(why, cap, "kv_cache_dtype %s", kv), 0;
    return 1;
}

/* The GPU: the record's name, its total (logged, assumed, or the table),
 * and the compute capability the table knows. */
static void build_gpu(run *r, json_t *rec, json_t *sup, kvb_gpu *g, row *out)
{
    const char *name = str(rec, "settings.gpu_name");
    if (KVB_GPU_INIT(g))
        abort();
    copy(g->name, sizeof g->name, name);
    json_t *row_gpu = NULL;
    size_t i;
    json_t *x;
    json_array_foreach(get(r->gpus, "gpus"), i, x)
    {
        const char *match = str(x, "match");
        if (name && match && strstr(name, match)) {
            row_gpu = x;
            break;
        }
    }
    if (row_gpu)
        g->compute_capability = (uint32_t)u64(row_gpu, "compute_capability");
    /* the SM count (it sizes the CUDA context) and the compute capability
     * from the library's GPU preset of that name, where there is one */
    kvb_gpu pg;
    if (name && KVB_GPU_INIT(&pg) == KVB_OK &&
        kvb_preset_gpu_find(name, &pg, NULL) == KVB_OK) {
        g->multiprocessor_count = pg.multiprocessor_count;
        if (!g->compute_capability)
            g->compute_capability = pg.compute_capability;
    }
    /* free at start-up where the log shows it (vLLM's start-up check
     * prints it); 0 lets the library assume total minus the context */
    g->free_bytes = u64(rec, "settings.gpu_free_bytes");
    if ((g->total_bytes = u64(rec, "settings.gpu_total_bytes")))
        copy(out->total_src, sizeof out->total_src, "logged");
    else if ((g->total_bytes = u64(rec, "assumed.gpu_total_bytes")))
        copy(out->total_src, sizeof out->total_src, "assumed");
    else if (row_gpu && (g->total_bytes = u64(row_gpu, "total_bytes")))
        copy(out->total_src, sizeof out->total_src, "GPU table");
    else if ((g->total_bytes = u64(sup, "gpu_total_bytes_for_defaults")))
        copy(out->total_src, sizeof out->total_src, "for defaults");
}

static int build_serving(json_t *rec, kvb_serving *s, uint32_t version)
{
    double d;
    if (KVB_SERVING_INIT(s))
        return 0;
    s->engine = KVB_ENGINE_VLLM;
    s->engine_version = version;
    if (num(rec, "settings.gpu_memory_utilization", &d) ||
        num(rec, "assumed.gpu_memory_utilization", &d))
        s->gpu_memory_utilization = d;
    if (!(s->max_model_len = u64(rec, "settings.max_model_len")))
        s->max_model_len = u64(rec, "assumed.max_model_len");
    if (!(s->max_num_seqs = (uint32_t)u64(rec, "settings.max_num_seqs")))
        s->max_num_seqs =
            (uint32_t)u64(rec, "settings_from_context.max_num_seqs");
    s->max_num_batched_tokens = u64(rec, "settings.max_num_batched_tokens");
    if (u64(rec, "settings.tensor_parallel_size"))
        s->tensor_parallel_size =
            (uint32_t)u64(rec, "settings.tensor_parallel_size");
    if (u64(rec, "settings.pipeline_parallel_size"))
        s->pipeline_parallel_size =
            (uint32_t)u64(rec, "settings.pipeline_parallel_size");
    if (u64(rec, "settings.block_size"))
        s->block_size = (uint32_t)u64(rec, "settings.block_size");
    s->enforce_eager = json_is_true(get(rec, "settings.enforce_eager"));
    s->enable_expert_parallel =
        json_is_true(get(rec, "logged.other.expert_parallel"));
    return 1;
}

static int has(json_t *rec, const char *use)
{
    size_t i;
    json_t *x;
    json_array_foreach(get(rec, "usable_for"), i, x)
    {
        if (json_is_string(x) && strcmp(json_string_value(x), use) == 0)
            return 1;
    }
    return 0;
}

static int32_t line_accounting(const char *line)
{
    if (line && strcmp(line, "v0") == 0)
        return KVB_ACCOUNTING_VLLM_V0;
    if (line && strcmp(line, "v1-pre-0.21") == 0)
        return KVB_ACCOUNTING_VLLM_V1;
    if (line && strcmp(line, "v1-0.21+") == 0)
        return KVB_ACCOUNTING_VLLM_V1_021;
    return -1;
}

/* "started" or the failure vLLM reported; the plan's verdict in the same
 * terms: does the engine start (fits / holds fewer requests than wanted)
 * or not. */
static int plan_starts(const kvb_plan *p)
{
    return p->verdict == KVB_VERDICT_FITS ||
           p->verdict == KVB_VERDICT_CONCURRENCY_EXCEEDS;
}

static void note(row *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void note(row *w, const char *fmt, ...)
{
    size_t n = strlen(w->note);
    if (n && n + 2 < sizeof w->note) {
        strcat(w->note, " ");
        n++;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->note + n, sizeof w->note - n, fmt, ap);
    va_end(ap);
}

static void plan_record(run *r, json_t *rec, int set)
{
    row *w = &r->rows[r->n++];
    memset(w, 0, sizeof *w);
    w->set = set;
    copy(w->id, sizeof w->id, str(rec, "id"));
    copy(w->url, sizeof w->url, str(rec, "source_url"));
    copy(w->model, sizeof w->model, str(rec, "model.name"));
    copy(w->line, sizeof w->line, str(rec, "version_line"));
    const char *vtext = str(rec, "vllm_version");
    uint32_t version = version_in(vtext);
    if (!version) { /* dated in the notes: "about 0.9.2-0.10.0 by date" */
        vtext = str(rec, "notes");
        version = version_in(vtext);
    }
    snprintf(w->version, sizeof w->version, "%u.%u.%u%s", version / 10000,
             version / 100 % 100, version % 100,
             str(rec, "vllm_version") ? "" : " (dated)");
    json_t *sup = get(r->records, "records");
    sup = sup ? json_object_get(sup, w->id) : NULL;
    copy(w->excluded, sizeof w->excluded, str(sup, "exclude_kv_end_to_end"));
    copy(w->residual, sizeof w->residual, str(sup, "residual"));
    {
        size_t i;
        json_t *x;
        json_array_foreach(get(rec, "usable_for"), i, x)
        {
            size_t n = strlen(w->usable);
            snprintf(w->usable + n, sizeof w->usable - n, "%s%s", n ? ", " : "",
                     json_string_value(x));
        }
    }

    kvb_model m;
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
    kvb_plan p, pb;
    kvb_error e = KVB_ERROR_INIT;
    char why[256] = "";
    if (!version) {
        note(w, "no vLLM version in the record");
        broke(r, "%s: no vLLM version", w->id);
        return;
    }
    if (!build_model(rec, sup, &m, why, sizeof why) ||
        !build_quant(rec, sup, &q, why, sizeof why)) {
        note(w, "not modelled: %.240s.", why);
        return;
    }
    build_gpu(r, rec, sup, &g, w);
    build_serving(rec, &s, version);
    g.count = s.tensor_parallel_size * s.pipeline_parallel_size;
    if (KVB_PLAN_INIT(&p) || KVB_PLAN_INIT(&pb))
        abort();

    /* ---- end to end: the record's settings and GPU total ---- */
    int end_to_end = g.total_bytes && strcmp(w->total_src, "for defaults");
    if (!g.total_bytes)
        g.total_bytes = 80 * (uint64_t)1 << 30; /* weights only; unused */
    if (kvb_plan_compute(&m, &q, &g, &s, &p, &e)) {
        note(w, "kvb_plan_compute: %s: %s.", e.field, e.message);
        broke(r, "%s: kvb_plan_compute failed: %s", w->id, e.message);
        return;
    }
    copy(w->accounting, sizeof w->accounting,
         kvb_accounting_name(p.accounting));
    if (p.accounting != line_accounting(w->line))
        broke(r, "%s: version %s plans as %s but the record says %s", w->id,
              w->version, w->accounting, w->line);
    w->planned = end_to_end;

    double wl = 0;
    if (has(rec, "weights") && num(rec, "logged.weights_gib", &wl)) {
        set_cmp(&w->weights, (double)p.weights_bytes_per_gpu / GIB, wl,
                "logged");
        w->weights.counted = 1;
        if (fabs(w->weights.err) > TOL_WEIGHTS) {
            w->failed = 1;
            broke(r, "%s: weights %.4f GiB predicted, %.4f logged (%+.2f%%)",
                  w->id, w->weights.pred, wl, 100 * w->weights.err);
        }
    }

    /* ---- KV bytes per token: V0 logs the CPU blocks of its swap space,
     * swap // (block_size x bytes per token per GPU) ---- */
    double cpu = 0, swap = 0;
    if (has(rec, "kv_per_token") && num(rec, "logged.other.cpu_blocks", &cpu) &&
        (num(rec, "logged.other.swap_space_gib", &swap) ||
         num(rec, "logged.other.swap_space_gib_assumed", &swap) ||
         num(rec, "assumed.swap_space_gib", &swap))) {
        uint64_t block = (uint64_t)p.block_size * p.kv_bytes_per_token_per_gpu;
        set_cmp(&w->cpu, block ? (double)((uint64_t)(swap * GIB) / block) : 0,
                cpu, "logged");
        w->cpu.counted = 1;
        if (w->cpu.pred != w->cpu.logged) {
            w->failed = 1;
            broke(r, "%s: %.0f CPU blocks predicted, %.0f logged", w->id,
                  w->cpu.pred, cpu);
        }
    }

    double ml = 0;
    if (num(rec, "logged.activation_peak_gib", &ml))
        set_cmp(&w->act, (double)p.activation_bytes_per_gpu / GIB, ml,
                "logged");
    if (num(rec, "logged.non_torch_gib", &ml))
        set_cmp(&w->nontorch, (double)p.non_torch_bytes_per_gpu / GIB, ml,
                "logged");
    w->act.counted = w->nontorch.counted = 1; /* no statistics: display */

    /* ---- given budget: the logged KV GiB in, the block math out ---- */
    double kvg = 0;
    int have_kvg = num(rec, "logged.kv_cache_gib", &kvg) && kvg > 0;
    if (have_kvg) {
        kvb_serving sb = s;
        sb.kv_cache_memory_bytes = (uint64_t)llround(kvg * GIB);
        if (kvb_plan_compute(&m, &q, &g, &sb, &pb, &e)) {
            broke(r, "%s: given-budget plan failed: %s", w->id, e.message);
            return;
        }
        double lt = 0;
        if (has(rec, "kv_tokens_given_budget") &&
            num(rec, "logged.kv_cache_tokens", &lt)) {
            set_cmp(&w->given, (double)pb.max_kv_tokens, lt, "logged");
            const char *c = str(rec, "consistency");
            w->given.counted = c && strncmp(c, "ok", 2) == 0;
            if (w->given.counted && fabs(w->given.err) > TOL_GIVEN_BUDGET) {
                w->failed = 1;
                broke(r,
                      "%s: %.0f tokens from the logged %.2f GiB, %.0f "
                      "logged",
                      w->id, w->given.pred, kvg, lt);
            }
        }
    }

    /* ---- KV budget and tokens, end to end ---- */
    if (end_to_end && has(rec, "kv_tokens_end_to_end")) {
        double lt = 0, blocks = 0;
        if (num(rec, "logged.kv_cache_tokens", &lt))
            set_cmp(
                &w->tokens, (double)p.max_kv_tokens, lt,
                str(rec, "logged.other.kv_cache_tokens_source") &&
                        strncmp(str(rec, "logged.other.kv_cache_tokens_source"),
                                "derived", 7) == 0
                    ? "blocks x block size"
                    : "logged");
        else if (num(rec, "logged.gpu_blocks", &blocks))
            set_cmp(&w->tokens, (double)p.max_kv_tokens, blocks * p.block_size,
                    "blocks x block size");
        else if (have_kvg)
            set_cmp(&w->tokens, (double)p.max_kv_tokens,
                    (double)pb.max_kv_tokens, "from the logged GiB");
        w->tokens.counted = w->tokens.use && !w->excluded[0];
        if (num(rec, "logged.kv_cache_gib", &kvg)) {
            double pred = p.kv_budget_bytes_per_gpu
                              ? (double)p.kv_budget_bytes_per_gpu / GIB
                              : -(double)p.kv_shortfall_bytes_per_gpu / GIB;
            set_cmp(&w->budget, pred, kvg, "logged");
            /* with TP, V0 logs one rank's budget and keeps the smallest
             * rank's blocks (the record's consistency note) */
            const char *c = str(rec, "consistency");
            w->budget.counted =
                !w->excluded[0] && !(c && strncmp(c, "mismatch", 8) == 0);
        }
    } else if (has(rec, "kv_tokens_end_to_end")) {
        note(w, "GPU total unknown: KV not planned end to end.");
    }

    /* ---- concurrency, where vLLM logged it ---- */
    double lc = 0;
    if (num(rec, "logged.max_concurrency", &lc)) {
        if (end_to_end && has(rec, "kv_tokens_end_to_end")) {
            set_cmp(&w->conc, p.max_concurrency, lc, "end to end");
            w->conc.counted = !w->excluded[0];
        } else if (have_kvg && has(rec, "kv_tokens_given_budget")) {
            set_cmp(&w->conc, pb.max_concurrency, lc, "given budget");
            w->conc.counted = 1;
        }
    }

    /* ---- verdict ---- */
    const char *outcome = str(rec, "logged.outcome");
    if (has(rec, "verdict") && outcome && end_to_end) {
        int logged_starts = strcmp(outcome, "started") == 0;
        w->v_use = 1;
        w->v_ok = plan_starts(&p) == logged_starts;
        copy(w->v_pred, sizeof w->v_pred, kvb_verdict_name(p.verdict));
        copy(w->v_logged, sizeof w->v_logged, outcome);
        if (!w->v_ok) {
            w->failed = 1;
            broke(r, "%s: verdict %s, vLLM %s", w->id, w->v_pred, outcome);
        }
    } else if (has(rec, "verdict")) {
        note(w, "GPU total unknown: no verdict.");
    }
}

/* ---- checkpoints ---- */

static void check_checkpoint(run *r, json_t *x)
{
    ckpt *c = &r->ck[r->nck++];
    memset(c, 0, sizeof *c);
    copy(c->repo, sizeof c->repo, str(x, "repo"));
    copy(c->format, sizeof c->format, str(x, "format"));
    copy(c->preset, sizeof c->preset, str(x, "preset"));
    copy(c->source, sizeof c->source, str(x, "source"));
    kvb_model m;
    kvb_quant q;
    kvb_weights wt;
    kvb_error e = KVB_ERROR_INIT;
    if (KVB_MODEL_INIT(&m) || KVB_QUANT_INIT(&q) || KVB_WEIGHTS_INIT(&wt) ||
        kvb_preset_model_find(c->preset, &m, &e) ||
        kvb_quant_method_find(c->format, &q.method, &e)) {
        broke(r, "checkpoint %s: %s", c->repo, e.message);
        return;
    }
    if (u64(x, "group_size"))
        q.group_size = (uint32_t)u64(x, "group_size");
    if (kvb_weights_compute(&m, &q, 1, 1, &wt, &e)) {
        broke(r, "checkpoint %s: %s", c->repo, e.message);
        return;
    }
    double bytes = (double)wt.bytes;
    if (json_is_true(get(x, "rotary_inv_freq"))) {
        uint64_t hd =
            m.head_dim ? m.head_dim : m.hidden_size / m.num_attention_heads;
        bytes += (double)m.num_hidden_layers * (double)(hd / 2) * 4;
    }
    double gb = 0;
    c->pred = bytes;
    c->exact = u64(x, "bytes") != 0;
    c->logged =
        c->exact ? (double)u64(x, "bytes") : (num(x, "gb", &gb), gb * 1e9);
    num(x, "tolerance", &c->tol);
    c->uncertain = json_is_true(get(x, "uncertain"));
    c->err = rel(c->pred, c->logged);
    c->ok = c->tol == 0 ? c->pred == c->logged : fabs(c->err) <= c->tol;
    if (!c->ok && !c->uncertain)
        broke(r, "checkpoint %s (%s): %.0f bytes computed, %.0f published",
              c->repo, c->format, c->pred, c->logged);
}

/* ---- statistics ---- */

typedef struct stat {
    int n;
    double median, p90, worst;
} stat;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and 90th percentile (nearest rank: the ceil(0.9 n)-th smallest)
 * of |err| over the counted comparisons of one figure. */
static stat stats(const run *r, size_t offset)
{
    double v[MAX_ROWS];
    stat s = {0, 0, 0, 0};
    for (int i = 0; i < r->n; i++) {
        const cmp *c = (const cmp *)((const char *)&r->rows[i] + offset);
        if (r->rows[i].set == r->cur_set && c->use && c->counted)
            v[s.n++] = fabs(c->err);
    }
    if (!s.n)
        return s;
    qsort(v, (size_t)s.n, sizeof v[0], cmp_double);
    s.median = s.n % 2 ? v[s.n / 2] : (v[s.n / 2 - 1] + v[s.n / 2]) / 2;
    s.p90 = v[(int)ceil(0.9 * s.n) - 1];
    s.worst = v[s.n - 1];
    return s;
}

#define STAT(r, f) stats((r), offsetof(row, f))

static void check_spread(run *r, const char *what, stat s)
{
    if (s.n && (s.median > TOL_MEDIAN || s.p90 > TOL_P90))
        broke(r, "%s: median %.1f%%, p90 %.1f%% (targets %.0f%%, %.0f%%)", what,
              100 * s.median, 100 * s.p90, 100 * TOL_MEDIAN, 100 * TOL_P90);
}

/* ---- output ---- */

static void fmt_cmp(char *buf, size_t cap, const cmp *c, int dec)
{
    if (!c->use) {
        snprintf(buf, cap, "—");
        return;
    }
    char a[32], b[32];
    snprintf(a, sizeof a, "%.*f", dec, c->pred);
    snprintf(b, sizeof b, "%.*f", dec, c->logged);
    snprintf(buf, cap, "%s / %s (%+.1f%%)%s", a, b, 100 * c->err,
             c->counted ? "" : "*");
}

static void print_table(const run *r)
{
    printf("%-13s %-14s %-13s %-28s %-28s %-30s %-26s %s\n", "record", "vLLM",
           "accounting", "weights GiB pred/log", "KV budget GiB", "KV tokens",
           "concurrency", "verdict");
    for (int i = 0; i < r->n; i++) {
        const row *w = &r->rows[i];
        char a[96], b[96], c[96], d[96], v[96];
        fmt_cmp(a, sizeof a, &w->weights, 3);
        fmt_cmp(b, sizeof b, &w->budget, 2);
        fmt_cmp(c, sizeof c, w->tokens.use ? &w->tokens : &w->given, 0);
        fmt_cmp(d, sizeof d, &w->conc, 2);
        if (w->v_use)
            snprintf(v, sizeof v, "%s / %s %s", w->v_pred, w->v_logged,
                     w->v_ok ? "ok" : "WRONG");
        else
            snprintf(v, sizeof v, "—");
        printf("%-13s %-14.14s %-13s %-28s %-28s %-30s %-26s %s%s\n", w->id,
               w->version, w->accounting, a, b, c, d, v,
               w->failed ? "  <-- FAIL" : "");
    }
    printf("(* shown, not counted: see docs/accuracy.md)\n\nmeasured "
           "terms, GiB per GPU (predicted / logged):\n");
    for (int i = 0; i < r->n; i++) {
        const row *w = &r->rows[i];
        char a[96], b[96];
        if (!w->act.use && !w->nontorch.use)
            continue;
        fmt_cmp(a, sizeof a, &w->act, 2);
        fmt_cmp(b, sizeof b, &w->nontorch, 2);
        printf("%-13s activation %-26s non-torch %s\n", w->id, a, b);
    }
}

static const char *pct(char *buf, size_t cap, double x)
{
    snprintf(buf, cap, "%.1f%%", 100 * x);
    return buf;
}

static void summary(text *t, const run *r)
{
    stat sw = STAT(r, weights), st = STAT(r, tokens), sb = STAT(r, budget),
         sc = STAT(r, conc), sg = STAT(r, given);
    int vn = 0, vok = 0, cn = 0, cok = 0;
    for (int i = 0; i < r->n; i++) {
        if (r->rows[i].set != r->cur_set)
            continue;
        vn += r->rows[i].v_use;
        vok += r->rows[i].v_use && r->rows[i].v_ok;
    }
    for (int i = 0; i < r->nck; i++) {
        cn += !r->ck[i].uncertain;
        cok += !r->ck[i].uncertain && r->ck[i].ok;
    }
    char m1[16], m2[16];
    put(t, "| figure | records | median error | 90th percentile | target |\n");
    put(t, "|---|---|---|---|---|\n");
    put(t, "| weights per GPU | %d | %s | %s | every record within 1%% |\n",
        sw.n, pct(m1, sizeof m1, sw.median), pct(m2, sizeof m2, sw.p90));
    put(t, "| KV tokens, end to end | %d | %s | %s | 5%% / 10%% |\n", st.n,
        pct(m1, sizeof m1, st.median), pct(m2, sizeof m2, st.p90));
    put(t, "| KV budget, end to end | %d | %s | %s | (shown) |\n", sb.n,
        pct(m1, sizeof m1, sb.median), pct(m2, sizeof m2, sb.p90));
    put(t, "| max concurrency | %d | %s | %s | 5%% / 10%% |\n", sc.n,
        pct(m1, sizeof m1, sc.median), pct(m2, sizeof m2, sc.p90));
    put(t,
        "| KV tokens from the logged budget | %d | %s | %s | every "
        "record within 0.5%% |\n",
        sg.n, pct(m1, sizeof m1, sg.median), pct(m2, sizeof m2, sg.p90));
    stat sp = STAT(r, cpu);
    put(t,
        "| KV bytes per token (CPU blocks of the swap space) | %d | %s | "
        "%s | exact |\n",
        sp.n, pct(m1, sizeof m1, sp.median), pct(m2, sizeof m2, sp.p90));
    put(t, "| start-up verdict | %d | %d right | | all right |\n", vn, vok);
    put(t,
        "| checkpoint weights | %d | %d within tolerance | | 16-bit "
        "exact, quantized 0.5%% |\n",
        cn, cok);
}

static void md_cmp(text *t, const cmp *c, int dec)
{
    if (!c->use) {
        put(t, " — |");
        return;
    }
    char a[32], b[32];
    snprintf(a, sizeof a, "%.*f", dec, c->pred);
    snprintf(b, sizeof b, "%.*f", dec, c->logged);
    put(t, " %s / %s (%+.1f%%)%s |", a, b, 100 * c->err, c->counted ? "" : "†");
}

/* One row per record of the current set. */
static void records_table(text *t, const run *r)
{
    put(t, "| record | source | model | vLLM | accounting | weights GiB | "
           "KV budget GiB | KV tokens | concurrency | verdict | CPU blocks "
           "|\n");
    put(t, "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < r->n; i++) {
        const row *w = &r->rows[i];
        if (w->set != r->cur_set)
            continue;
        put(t, "| %s | [link](%s) | %s | %s | %s |", w->id, w->url, w->model,
            w->version, w->accounting[0] ? w->accounting : "—");
        md_cmp(t, &w->weights, 3);
        md_cmp(t, &w->budget, 2);
        md_cmp(t, &w->tokens, 0);
        md_cmp(t, &w->conc, 2);
        if (w->v_use)
            put(t, " %s / %s: %s |", w->v_pred, w->v_logged,
                w->v_ok ? "right" : "**wrong**");
        else
            put(t, " — |");
        md_cmp(t, &w->cpu, 0);
        put(t, "\n");
    }
    put(t, "\nEach cell is predicted / logged (error). † shown but not "
           "counted (see below). KV tokens are vLLM's own figure: `# GPU "
           "blocks` x block size on V0, `GPU KV cache size` on V1; where "
           "the log printed only the KV GiB, the reference is the token "
           "count vLLM's block math gives for that logged budget. GPU "
           "totals: ");
    int first = 1;
    for (int i = 0; i < r->n; i++) {
        const row *w = &r->rows[i];
        if (w->set != r->cur_set || !w->total_src[0])
            continue;
        put(t, "%s%s %s", first ? "" : ", ", w->id, w->total_src);
        first = 0;
    }
    put(t, " (`assumed` and `GPU table` rows take the total from the "
           "record's `assumed` block or from `tests/fidelity/data/gpus.json`, "
           "each with its source).\n\n");
}

/* ---- the other engines (data/engines/<engine>.jsonl) ----
 *
 * Each record with a `plan` block is planned through the public API:
 * the model (a preset, or the architecture the log implies), the GPU
 * (a preset, or the total the log prints), the engine spec with its
 * release, and the engine's own flags read by kvb_command_read() as a
 * user's command line is.  SGLang, TensorRT-LLM and TGI are compared on
 * the token pool they log; llama.cpp and Ollama on the KV bytes they
 * print, within the print's precision. */

#define MAX_EROWS 64

typedef struct erow {
    char id[32];
    char url[200];
    char spec[32];  /* the engine spec planned ("tgi@3.0.0") */
    char model[64]; /* preset or architecture */
    char gpu[48];
    int planned;
    int bytes;        /* compared on KV bytes (exact within precision) */
    double precision; /* bytes */
    int ok;           /* bytes: within precision */
    cmp kv;           /* tokens or bytes */
    char flags[200];  /* the engine flags given */
    /* one device's lines (llama.cpp's CUDA0 KV and compute buffers),
     * planned with the layers that device held: plan.device */
    int dev;
    char dev_name[16], dev_flags[64];
    cmp dev_kv, dev_cb;
    int dev_kv_ok, dev_cb_ok;
    char note[480]; /* the record's plan note, or why not planned */
} erow;

typedef struct efile {
    const char *file, *title;
    double tol;       /* median |error| of KV tokens the test enforces */
    const char *miss; /* why an engine's bound is not the 5% target */
    erow rows[MAX_EROWS];
    int n;
} efile;

static efile efiles[] = {
    {.file = "sglang.jsonl", .title = "SGLang", .tol = TOL_MEDIAN},
    {.file = "trtllm.jsonl", .title = "TensorRT-LLM", .tol = TOL_MEDIAN},
    /* a known miss (docs/engines/tgi.md): the warm-up rule follows TGI's
     * source per release (2026-12: median 10.5% over 5 records, was 20%);
     * the bound holds it there, the 5% target is not met */
    {.file = "tgi.jsonl",
     .title = "TGI",
     .tol = 0.11,
     .miss = "a known miss: the warm-up rule follows TGI's source; the "
             "test holds the median under 11% (docs/engines/tgi.md, "
             "RULES_NOTES.md)"},
    {.file = "llamacpp.jsonl", .title = "llama.cpp and Ollama"},
};
#define N_EFILES (sizeof efiles / sizeof efiles[0])

static int eplan_model(json_t *pm, kvb_model *m, char *why, size_t cap)
{
    kvb_error e = KVB_ERROR_INIT;
    if (KVB_MODEL_INIT(m))
        return snprintf(why, cap, "kvb_model_init failed"), 0;
    if (json_is_string(pm)) {
        if (kvb_preset_model_find(json_string_value(pm), m, &e))
            return snprintf(why, cap, "preset: %.200s", e.message), 0;
        return 1;
    }
    int32_t arch;
    if (kvb_arch_find(str(pm, "arch"), &arch, &e))
        return snprintf(why, cap, "arch: %.200s", e.message), 0;
    m->arch = arch;
    m->flags = family_flags(arch);
#define EFIELD(f)                                                              \
    do {                                                                       \
        double d;                                                              \
        if (num(pm, #f, &d))                                                   \
            m->f = d;                                                          \
    } while (0)
    EFIELD(hidden_size);
    EFIELD(num_hidden_layers);
    EFIELD(num_attention_heads);
    EFIELD(num_key_value_heads);
    EFIELD(head_dim);
    EFIELD(intermediate_size);
    EFIELD(vocab_size);
    EFIELD(max_position_embeddings);
    EFIELD(num_experts);
    EFIELD(num_experts_per_tok);
    EFIELD(num_shared_experts);
    EFIELD(moe_intermediate_size);
    EFIELD(first_k_dense_replace);
    EFIELD(sliding_window);
    EFIELD(sliding_window_pattern);
    EFIELD(kv_lora_rank);
    EFIELD(q_lora_rank);
    EFIELD(qk_rope_head_dim);
    EFIELD(qk_nope_head_dim);
    EFIELD(v_head_dim);
#undef EFIELD
    m->tie_word_embeddings = json_is_true(get(pm, "tie_word_embeddings"));
    if (kvb_model_validate(m, &e))
        return snprintf(why, cap, "%.60s: %.180s", e.field, e.message), 0;
    return 1;
}

static int eplan_gpu(json_t *pl, kvb_gpu *g, char *why, size_t cap)
{
    kvb_error e = KVB_ERROR_INIT;
    const char *name = str(pl, "gpu");
    if (KVB_GPU_INIT(g))
        return snprintf(why, cap, "kvb_gpu_init failed"), 0;
    if (name && kvb_preset_gpu_find(name, g, &e))
        return snprintf(why, cap, "gpu %.40s: %.180s", name, e.message), 0;
    g->count = (uint32_t)u64(pl, "gpu_count");
    if (!g->count)
        g->count = 1;
    if (u64(pl, "gpu_total_bytes"))
        g->total_bytes = u64(pl, "gpu_total_bytes");
    g->free_bytes = u64(pl, "gpu_free_bytes");
    if (!g->total_bytes)
        return snprintf(why, cap, "no GPU total"), 0;
    return 1;
}

/* The engine spec, then the engine's flags as a user types them. */
static int eplan_serving(json_t *pl, kvb_serving *s, kvb_quant *q, char *flags,
                         size_t fcap, char *why, size_t cap)
{
    kvb_error e = KVB_ERROR_INIT;
    kvb_command cmd;
    const char *argv[64];
    size_t argc = 0, i;
    json_t *x;
    if (KVB_SERVING_INIT(s) || KVB_COMMAND_INIT(&cmd))
        return snprintf(why, cap, "init failed"), 0;
    if (kvb_serving_engine_set(s, str(pl, "engine"), &e))
        return snprintf(why, cap, "engine: %.200s", e.message), 0;
    flags[0] = '\0';
    json_array_foreach(get(pl, "args"), i, x)
    {
        if (argc == sizeof argv / sizeof argv[0] - 1 || !json_is_string(x))
            return snprintf(why, cap, "args: too many or not strings"), 0;
        argv[argc++] = json_string_value(x);
        size_t n = strlen(flags);
        snprintf(flags + n, fcap - n, "%s%s", n ? " " : "", argv[argc - 1]);
    }
    argv[argc] = NULL;
    if (argc && kvb_command_read(argc, argv, NULL, s->engine, &cmd, s, &e))
        return snprintf(why, cap, "flags: %.200s", e.message), 0;
    const char *qs = str(pl, "quant");
    if (qs && kvb_quant_method_find(qs, &q->method, &e))
        return snprintf(why, cap, "quant: %.200s", e.message), 0;
    if (cmd.quantization[0] &&
        kvb_quant_method_find(cmd.quantization, &q->method, &e))
        return snprintf(why, cap, "quant: %.200s", e.message), 0;
    const char *kv = str(pl, "kv_cache_dtype");
    if (kv && kvb_dtype_find(kv, &q->kv_cache_dtype, &e))
        return snprintf(why, cap, "kv_cache_dtype: %.200s", e.message), 0;
    return 1;
}

static void eplan_device(run *r, erow *w, json_t *pl, const kvb_model *m);

static void eplan_record(run *r, efile *f, json_t *rec)
{
    erow *w = &f->rows[f->n++];
    memset(w, 0, sizeof *w);
    copy(w->id, sizeof w->id, str(rec, "id"));
    copy(w->url, sizeof w->url, str(rec, "source_url"));
    json_t *pl = get(rec, "plan");
    if (!pl) {
        copy(w->note, sizeof w->note, str(rec, "not_planned"));
        if (!w->note[0])
            broke(r, "%s: neither a plan nor not_planned", w->id);
        return;
    }
    copy(w->spec, sizeof w->spec, str(pl, "engine"));
    json_t *pm = get(pl, "model");
    copy(w->model, sizeof w->model,
         json_is_string(pm) ? json_string_value(pm) : str(pm, "arch"));
    copy(w->gpu, sizeof w->gpu, str(pl, "gpu"));
    copy(w->note, sizeof w->note, str(pl, "note"));
    kvb_model m;
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    char why[256] = "";
    if (KVB_QUANT_INIT(&q) || KVB_PLAN_INIT(&p))
        abort();
    if (!eplan_model(pm, &m, why, sizeof why) ||
        !eplan_gpu(pl, &g, why, sizeof why) ||
        !eplan_serving(pl, &s, &q, w->flags, sizeof w->flags, why,
                       sizeof why)) {
        broke(r, "%s: cannot plan: %s", w->id, why);
        return;
    }
    if (kvb_plan_compute(&m, &q, &g, &s, &p, &e)) {
        broke(r, "%s: kvb_plan_compute: %s: %s", w->id, e.field, e.message);
        return;
    }
    w->planned = 1;
    double logged = 0;
    num(pl, "logged", &logged);
    const char *what = str(pl, "compare");
    w->bytes = what && strcmp(what, "kv_bytes") == 0;
    if (w->bytes) {
        num(pl, "precision_bytes", &w->precision);
        set_cmp(&w->kv, (double)p.kv_cache_bytes_per_gpu, logged, "logged");
        w->ok = fabs(w->kv.pred - logged) <= w->precision;
        if (!w->ok)
            broke(r, "%s: KV %.2f MiB planned, %.2f MiB printed", w->id,
                  w->kv.pred / 1048576.0, logged / 1048576.0);
    } else {
        set_cmp(&w->kv, (double)p.max_total_tokens, logged, "logged");
    }
    w->kv.counted = 1;
    eplan_device(r, w, pl, &m);
}

/* The device check of a record: the record's plan with the device's
 * total and extra flags (the -ngl it held), its KV buffer equal to the
 * print and its compute buffer within 15% (the target). */
#define TOL_COMPUTE 0.15
static void eplan_device(run *r, erow *w, json_t *pl, const kvb_model *m)
{
    json_t *dv = get(pl, "device");
    if (!dv)
        return;
    json_t *p2 = json_deep_copy(pl);
    json_t *args = json_object_get(p2, "args");
    size_t i;
    json_t *x;
    json_array_foreach(get(dv, "args"), i, x)
    {
        json_array_append(args, x);
        size_t n = strlen(w->dev_flags);
        snprintf(w->dev_flags + n, sizeof w->dev_flags - n, "%s%s",
                 n ? " " : "", json_string_value(x));
    }
    json_object_set(p2, "gpu_total_bytes", get(dv, "gpu_total_bytes"));
    copy(w->dev_name, sizeof w->dev_name, str(dv, "name"));
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    char why[256] = "", flags[200];
    if (KVB_QUANT_INIT(&q) || KVB_PLAN_INIT(&p))
        abort();
    if (!eplan_gpu(p2, &g, why, sizeof why) ||
        !eplan_serving(p2, &s, &q, flags, sizeof flags, why, sizeof why) ||
        kvb_plan_compute(m, &q, &g, &s, &p, &e)) {
        broke(r, "%s: device plan: %s %s", w->id, why, e.message);
        json_decref(p2);
        return;
    }
    json_decref(p2);
    w->dev = 1;
    double kv = 0, cb = 0, prec = 0;
    num(dv, "kv_bytes", &kv);
    num(dv, "compute_bytes", &cb);
    num(pl, "precision_bytes", &prec);
    set_cmp(&w->dev_kv, (double)p.kv_cache_bytes_per_gpu, kv, "logged");
    set_cmp(&w->dev_cb, (double)p.compute_buffer_bytes_per_gpu, cb, "logged");
    w->dev_kv_ok = fabs(w->dev_kv.pred - kv) <= prec;
    w->dev_cb_ok = fabs(w->dev_cb.err) <= TOL_COMPUTE;
    if (!w->dev_kv_ok || !w->dev_cb_ok)
        broke(r,
              "%s: %s KV %.2f MiB (printed %.2f), compute %.2f MiB "
              "(printed %.2f)",
              w->id, w->dev_name, w->dev_kv.pred / 1048576.0, kv / 1048576.0,
              w->dev_cb.pred / 1048576.0, cb / 1048576.0);
}

static int eread(run *r, const char *dir, efile *f)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/engines/%s", dir, f->file);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "%s: cannot read the fidelity data\n", path);
        return 2;
    }
    static char line[65536];
    while (fgets(line, sizeof line, fp)) {
        json_error_t je;
        json_t *rec = json_loads(line, 0, &je);
        if (f->n == MAX_EROWS || !rec) {
            fprintf(stderr, "%s:%d: %s\n", path, je.line,
                    rec ? "too many records" : je.text);
            json_decref(rec);
            fclose(fp);
            return 2;
        }
        eplan_record(r, f, rec);
        json_decref(rec);
    }
    fclose(fp);
    return 0;
}

/* |error| statistics of one engine file's token comparisons. */
static stat estats(const efile *f)
{
    double v[MAX_EROWS];
    stat s = {0, 0, 0, 0};
    for (int i = 0; i < f->n; i++)
        if (f->rows[i].planned && !f->rows[i].bytes)
            v[s.n++] = fabs(f->rows[i].kv.err);
    if (!s.n)
        return s;
    qsort(v, (size_t)s.n, sizeof v[0], cmp_double);
    s.median = s.n % 2 ? v[s.n / 2] : (v[s.n / 2 - 1] + v[s.n / 2]) / 2;
    s.p90 = v[(int)ceil(0.9 * s.n) - 1];
    s.worst = v[s.n - 1];
    return s;
}

static void echeck(run *r)
{
    for (size_t k = 0; k < N_EFILES; k++) {
        stat s = estats(&efiles[k]);
        if (s.n && s.median > efiles[k].tol)
            broke(r, "%s KV tokens: median %.1f%% (bound %.0f%%)",
                  efiles[k].title, 100 * s.median, 100 * efiles[k].tol);
    }
}

static void eprint(void)
{
    printf("\nother engines (predicted / logged):\n");
    for (size_t k = 0; k < N_EFILES; k++)
        for (int i = 0; i < efiles[k].n; i++) {
            const erow *w = &efiles[k].rows[i];
            if (!w->planned)
                continue;
            if (w->bytes)
                printf("%-17s %-16s KV %.2f / %.2f MiB %s\n", w->id, w->spec,
                       w->kv.pred / 1048576.0, w->kv.logged / 1048576.0,
                       w->ok ? "exact" : "DIFFERS");
            else
                printf("%-17s %-16s KV tokens %.0f / %.0f (%+.1f%%)\n", w->id,
                       w->spec, w->kv.pred, w->kv.logged, 100 * w->kv.err);
            if (w->dev)
                printf("%-17s %-16s %s KV %.2f / %.2f MiB, compute %.2f / "
                       "%.2f MiB (%+.1f%%)\n",
                       w->id, "", w->dev_name, w->dev_kv.pred / 1048576.0,
                       w->dev_kv.logged / 1048576.0, w->dev_cb.pred / 1048576.0,
                       w->dev_cb.logged / 1048576.0, 100 * w->dev_cb.err);
        }
}

static void esection(text *t)
{
    char m1[16], m2[16];
    put(t, "\n## Other engines\n\n");
    put(t, "Real start-up logs of SGLang, TensorRT-LLM, TGI, llama.cpp and "
           "Ollama (`tests/fidelity/data/engines/*.jsonl`, each with its "
           "source; fields in `tests/fidelity/data/engines/README.md`). "
           "Each record's `plan` block gives the engine and release, the "
           "model (a preset, or the shape the log implies), the GPU and "
           "the engine's own flags, which `kvb_command_read()` reads as it "
           "reads a pasted command line; the plan goes through "
           "`kvb_plan_compute()` like the vLLM records. SGLang, "
           "TensorRT-LLM and TGI are compared on the token pool they log "
           "(`max_total_num_tokens` / `#tokens`, `tokens in paged KV "
           "cache`, `max batch total tokens`: the plan's "
           "`max_total_tokens`); llama.cpp and Ollama on the KV bytes they "
           "print (`KV self size`, `llama_kv_cache: size`, Ollama's "
           "`memory.required.kv`), which must be equal within the print's "
           "precision. Target: KV tokens within 5%% (median) per "
           "engine.\n\n");
    put(t, "| engine | records | planned | median error | 90th percentile "
           "| result |\n|---|---|---|---|---|---|\n");
    for (size_t k = 0; k < N_EFILES; k++) {
        const efile *f = &efiles[k];
        int planned = 0, exact = 0, bytes = 0;
        for (int i = 0; i < f->n; i++) {
            planned += f->rows[i].planned;
            bytes += f->rows[i].planned && f->rows[i].bytes;
            exact += f->rows[i].planned && f->rows[i].bytes && f->rows[i].ok;
        }
        stat s = estats(f);
        if (bytes)
            put(t,
                "| %s | %d | %d | KV bytes | | %d of %d equal to the "
                "print |\n",
                f->title, f->n, planned, exact, bytes);
        else
            put(t, "| %s | %d | %d | %s | %s | %s |\n", f->title, f->n, planned,
                pct(m1, sizeof m1, s.median), pct(m2, sizeof m2, s.p90),
                s.median <= TOL_MEDIAN ? "within 5%"
                : f->miss              ? f->miss
                                       : "**outside 5%**");
    }
    for (size_t k = 0; k < N_EFILES; k++) {
        const efile *f = &efiles[k];
        put(t, "\n### %s\n\n", f->title);
        put(t, "| record | source | engine | model | GPU | flags | planned "
               "| logged | error | note |\n|---|---|---|---|---|---|---|---|"
               "---|---|\n");
        for (int i = 0; i < f->n; i++) {
            const erow *w = &f->rows[i];
            /* a record whose file was found but whose address was not
             * resolved says so instead of linking */
            char src[224];
            if (!strncmp(w->url, "http", 4))
                snprintf(src, sizeof src, "[link](%s)", w->url);
            else
                snprintf(src, sizeof src, "unresolved");
            if (!w->planned) {
                put(t,
                    "| %s | %s | — | — | — | — | — | — | not "
                    "planned | %s |\n",
                    w->id, src, w->note);
                continue;
            }
            put(t, "| %s | %s | %s | %s | %s | %s%s%s |", w->id, src, w->spec,
                w->model, w->gpu[0] ? w->gpu : "(total given)",
                w->flags[0] ? "`" : "", w->flags[0] ? w->flags : "(defaults)",
                w->flags[0] ? "`" : "");
            if (w->bytes)
                put(t, " %.2f MiB | %.2f MiB | %s |", w->kv.pred / 1048576.0,
                    w->kv.logged / 1048576.0, w->ok ? "equal" : "**differs**");
            else
                put(t, " %.0f | %.0f | %+.1f%% |", w->kv.pred, w->kv.logged,
                    100 * w->kv.err);
            put(t, " %s |\n", w->note[0] ? w->note : "—");
        }
        int any = 0;
        for (int i = 0; i < f->n; i++) {
            const erow *w = &f->rows[i];
            if (!w->dev)
                continue;
            if (!any++)
                put(t, "\nOne device's lines (CUDA backend), planned with the "
                       "layers that device held: its KV buffer must equal "
                       "the print, its compute buffer be within 15%%.\n\n"
                       "| record | device | flags added | KV buffer MiB "
                       "planned / printed | compute buffer MiB planned / "
                       "printed | error |\n|---|---|---|---|---|---|\n");
            put(t,
                "| %s | %s | `%s` | %.2f / %.2f (%s) | %.2f / %.2f | "
                "%+.1f%% |\n",
                w->id, w->dev_name, w->dev_flags, w->dev_kv.pred / 1048576.0,
                w->dev_kv.logged / 1048576.0,
                w->dev_kv_ok ? "equal" : "**differs**",
                w->dev_cb.pred / 1048576.0, w->dev_cb.logged / 1048576.0,
                100 * w->dev_cb.err);
        }
    }
}

static void document(text *t, run *r)
{
    put(t, "# Accuracy against real engine start-ups\n\n");
    put(t, "<!-- Generated by `make accuracy` (tests/fidelity/fidelity.c); "
           "do not edit. The test fidelity.doc fails when this file is not "
           "what the suite computes. -->\n\n");
    put(t, "Every record of `tests/fidelity/data/vllm_dev.jsonl` (real vLLM "
           "start-up logs from public issues, copied from "
           "`shared/data/vllm_dev.jsonl`; its fields are described in "
           "`tests/fidelity/data/vllm_dev.md`) is planned with its own "
           "settings, GPU "
           "total and vLLM version through the public API, and compared "
           "with what vLLM printed. Nothing is fitted to a record: the "
           "same model, with the constants derived in `docs/model.md`, "
           "plans all of them. Errors are (predicted − logged) / logged; "
           "vLLM prints GiB with two decimals, so a figure is exact to "
           "about 5 MiB. SGLang, TensorRT-LLM, TGI, llama.cpp and Ollama "
           "logs are planned the same way and reported per engine in "
           "[Other engines](#other-engines).\n\n");
    put(t, "## Summary\n\n");
    summary(t, r);
    put(t, "\nMedian over the records; the 90th percentile is the "
           "nearest-rank one (the ⌈0.9 n⌉-th smallest |error|), so with "
           "under ten records it is the worst or second worst. "
           "*End to end* means the measured terms (activation peak, "
           "non-torch memory, CUDA graphs) are modelled, not taken from the "
           "log. *From the logged budget* gives the logged KV GiB to the "
           "library (`serving.kv_cache_memory_bytes`) and checks only the "
           "block math and the engine's reporting.\n\n");

    put(t, "## Records\n\n");
    records_table(t, r);

    r->cur_set = SET_COLLECTED;
    put(t, "## Records collected for issue 13\n\n");
    put(t,
        "`tests/fidelity/data/vllm_collected.jsonl` holds real start-up "
        "logs collected from public issues after the development set "
        "was fixed, normalised the same way (plus `settings.gpu_free_bytes`, "
        "the free memory a log shows at start-up, given to the library as "
        "`kvb_gpu.free_bytes`). They are planned exactly like the records "
        "above and summarised apart; the targets above apply to the "
        "development set.\n\n");
    summary(t, r);
    put(t, "\n");
    records_table(t, r);
    r->cur_set = SET_DEV;
    put(t, "## Measured terms\n\n");
    put(t, "What vLLM measures at start-up, modelled (`docs/model.md`, "
           "section 4), against the records that logged it. Shown, not "
           "enforced: the KV figures above carry their effect.\n\n");
    put(t, "| record | activation peak GiB | non-torch GiB |\n|---|---|---|\n");
    for (int i = 0; i < r->n; i++) {
        const row *w = &r->rows[i];
        if (!w->act.use && !w->nontorch.use)
            continue;
        put(t, "| %s |", w->id);
        md_cmp(t, &w->act, 2);
        md_cmp(t, &w->nontorch, 2);
        put(t, "\n");
    }

    put(t, "\n## KV tokens from the logged budget\n\n");
    put(t, "| record | predicted | logged | error | counted |\n");
    put(t, "|---|---|---|---|---|\n");
    for (int i = 0; i < r->n; i++) {
        const row *w = &r->rows[i];
        if (!w->given.use)
            continue;
        put(t, "| %s | %.0f | %.0f | %+.2f%% | %s |\n", w->id, w->given.pred,
            w->given.logged, 100 * w->given.err,
            w->given.counted ? "yes"
                             : "no: the log's GiB is one rank's, the tokens "
                               "the smallest rank's (record's consistency "
                               "note)");
    }

    put(t, "\n## Checkpoints\n\n");
    put(t, "Weights computed from the architecture against real checkpoint "
           "sizes (`tests/fidelity/data/checkpoints.json`, from "
           "`shared/data/models.json`).\n\n");
    put(t, "| checkpoint | format | computed | published | error | result "
           "|\n|---|---|---|---|---|---|\n");
    for (int i = 0; i < r->nck; i++) {
        const ckpt *c = &r->ck[i];
        if (c->exact)
            put(t, "| %s | %s | %.0f B | %.0f B | %+.4f%% | %s |\n", c->repo,
                c->format, c->pred, c->logged, 100 * c->err,
                c->ok ? "exact" : "**differs**");
        else
            put(t, "| %s | %s | %.3f GB | %.2f GB | %+.2f%% | %s |\n", c->repo,
                c->format, c->pred / 1e9, c->logged / 1e9, 100 * c->err,
                c->uncertain ? (c->ok ? "within 0.5% (source uncertain, "
                                        "not enforced)"
                                      : "outside 0.5% (source uncertain, "
                                        "not enforced)")
                             : (c->ok ? "within 0.5%" : "**outside 0.5%**"));
    }

    put(t, "\n## Where the remaining error comes from\n\n");
    for (int i = 0; i < r->n; i++) {
        const row *w = &r->rows[i];
        if (w->residual[0])
            put(t, "- **%s**: %s\n", w->id, w->residual);
    }

    put(t, "\n## What each record supports, and what is not compared\n\n");
    put(t, "Every record is listed; `usable_for` is the record's own list "
           "of the checks its log supports "
           "(`tests/fidelity/data/vllm_dev.md`).\n\n");
    put(t, "| record | usable_for | not compared, and why |\n|---|---|---|\n");
    for (int i = 0; i < r->n; i++) {
        const row *w = &r->rows[i];
        put(t, "| %s | %s | ", w->id, w->usable[0] ? w->usable : "—");
        int any = 0;
        if (w->excluded[0])
            put(t, "KV end to end (shown, not counted): %s", w->excluded),
                any = 1;
        if (w->note[0])
            put(t, "%s%s", any ? " " : "", w->note), any = 1;
        if (!any)
            put(t, "—");
        put(t, " |\n");
    }
    esection(t);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    text t = {0};
    char buf[4096];
    size_t k;
    put(&t, "%s", "");
    while ((k = fread(buf, 1, sizeof buf, f)) > 0) {
        put(&t, "%.*s", (int)k, buf);
    }
    fclose(f);
    *len = t.n;
    return t.p;
}

static int write_file(const char *path, const text *t)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(t->p, 1, t->n, f) != t->n) {
        if (f)
            fclose(f);
        return 0;
    }
    return fclose(f) == 0;
}

/* The README quotes the summary between two markers. */
static const char *const BEGIN = "<!-- accuracy:begin -->\n";
static const char *const END = "<!-- accuracy:end -->";

static int readme_text(const char *path, const run *r, text *out)
{
    size_t len;
    char *old = slurp(path, &len);
    if (!old)
        return 0;
    char *b = strstr(old, BEGIN), *e = b ? strstr(b, END) : NULL;
    if (!b || !e) {
        free(old);
        return 0;
    }
    put(out, "%.*s%s", (int)(b - old), old, BEGIN);
    summary(out, r);
    put(out, "\nFull table, sources and exclusions: `docs/accuracy.md` "
             "(regenerated by `make accuracy`).\n");
    put(out, "%s", e);
    free(old);
    return 1;
}

static int same_as_file(const char *path, const text *t)
{
    size_t len;
    char *old = slurp(path, &len);
    int same = old && len == t->n && memcmp(old, t->p, len) == 0;
    free(old);
    return same;
}

/* Plans every record of DIR/NAME as part of SET; nonzero when the file
 * cannot be read. */
static int read_records(run *r, const char *dir, const char *name, int set)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot read the fidelity data\n", path);
        return 2;
    }
    char line[65536];
    while (fgets(line, sizeof line, f)) {
        json_error_t je;
        if (r->n == MAX_ROWS || !strchr(line, '\n')) {
            fprintf(stderr,
                    "%s: more than %d records, or a line over %zu "
                    "bytes: raise MAX_ROWS or the line buffer\n",
                    path, MAX_ROWS, sizeof line - 1);
            fclose(f);
            return 2;
        }
        json_t *rec = json_loads(line, 0, &je);
        if (!rec) {
            fprintf(stderr, "%s:%d: %s\n", path, je.line, je.text);
            fclose(f);
            return 2;
        }
        r->planning_collected = set == SET_COLLECTED;
        plan_record(r, rec, set);
        r->planning_collected = 0;
        json_decref(rec);
    }
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *write = NULL, *check = NULL, *readme = NULL,
               *check_readme = NULL;
    int engines_only = 0; /* --part engines: the other engines alone */
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--data"))
            dir = argv[i + 1];
        else if (!strcmp(argv[i], "--write"))
            write = argv[i + 1];
        else if (!strcmp(argv[i], "--check"))
            check = argv[i + 1];
        else if (!strcmp(argv[i], "--readme"))
            readme = argv[i + 1];
        else if (!strcmp(argv[i], "--check-readme"))
            check_readme = argv[i + 1];
        else if (!strcmp(argv[i], "--part"))
            engines_only = !strcmp(argv[i + 1], "engines");
    }
    if (!dir) {
        fprintf(stderr,
                "usage: %s --data DIR [--write FILE] [--check FILE] "
                "[--readme FILE] [--check-readme FILE]\n",
                argv[0]);
        return 2;
    }
    static run r;
    r.gpus = load(dir, "gpus.json");
    r.records = load(dir, "records.json");
    json_t *cks = load(dir, "checkpoints.json");
    if (!r.gpus || !r.records || !cks) {
        fprintf(stderr, "%s: cannot read the fidelity data\n", dir);
        return 2;
    }
    for (size_t k = 0; k < N_EFILES; k++)
        if (eread(&r, dir, &efiles[k]))
            return 2;
    echeck(&r);
    if (engines_only) {
        eprint();
        if (r.broken)
            fprintf(stderr, "\nfidelity: tolerance broken:\n%s", r.why);
        json_decref(cks);
        json_decref(r.gpus);
        json_decref(r.records);
        return r.broken;
    }
    if (read_records(&r, dir, "vllm_dev.jsonl", SET_DEV) ||
        read_records(&r, dir, "vllm_collected.jsonl", SET_COLLECTED))
        return 2;
    size_t i;
    json_t *x;
    json_array_foreach(get(cks, "checkpoints"), i, x)
    {
        if (r.nck == MAX_ROWS) {
            fprintf(stderr, "more than %d checkpoints\n", MAX_ROWS);
            return 2;
        }
        check_checkpoint(&r, x);
    }
    check_spread(&r, "KV tokens end to end", STAT(&r, tokens));
    check_spread(&r, "concurrency", STAT(&r, conc));

    print_table(&r);
    eprint();
    text sum = {0};
    summary(&sum, &r);
    printf("\n%s", sum.p);

    text doc = {0};
    document(&doc, &r);
    int rc = 0;
    if (write && !write_file(write, &doc)) {
        fprintf(stderr, "cannot write %s\n", write);
        rc = 2;
    }
    if (check && !same_as_file(check, &doc)) {
        fprintf(stderr, "%s is not current: run `make accuracy`\n", check);
        rc = 1;
    }
    if (readme || check_readme) {
        text rd = {0};
        const char *rp = readme ? readme : check_readme;
        if (!readme_text(rp, &r, &rd)) {
            fprintf(stderr, "%s: no accuracy markers\n", rp);
            rc = 2;
        } else if (readme && !write_file(readme, &rd)) {
            rc = 2;
        } else if (check_readme && !same_as_file(check_readme, &rd)) {
            fprintf(stderr,
                    "%s: the accuracy summary is not current: run "
                    "`make accuracy`\n",
                    check_readme);
            rc = 1;
        }
        free(rd.p);
    }
    if (r.why_collected[0])
        fprintf(stderr,
                "\nfidelity: collected records off their targets (reported "
                "in docs/accuracy.md, not enforced):\n%s",
                r.why_collected);
    if (r.broken) {
        fprintf(stderr, "\nfidelity: tolerance broken:\n%s", r.why);
        rc = 1;
    }
    free(sum.p);
    free(doc.p);
    json_decref(cks);
    json_decref(r.gpus);
    json_decref(r.records);
    return rc;
}
