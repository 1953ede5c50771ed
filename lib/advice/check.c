/*
 * advice/check.c -- `kvbudget check`: Kubernetes manifests in, a verdict
 * per serving container out.  The workload kinds say where the pod spec
 * is; the image says the engine and its version; the engine's own
 * command-line table (kvb_command_read) reads command, args and env; the
 * GPU count comes from the nvidia.com/gpu limit and its type from the
 * node labels the pod is scheduled on.  Then the plan, the remedies, and
 * each remedy as a patch of the manifest.
 */
#include "internal.h"

#include <string.h>

kvb_status kvb_check_options_init(kvb_check_options *options,
                                  size_t struct_size)
{
    kvb_status st =
        kvb__struct_init(options, struct_size, sizeof *options, "options");
    if (st == KVB_OK)
        options->max_fixes = 3;
    return st;
}

#ifndef KVB_HAVE_YAML
/* Built without libyaml (the WebAssembly page): no manifests. */
kvb_status kvb_check_manifest(const char *text, size_t len, const char *file,
                              const kvb_check_options *options, char *buf,
                              size_t cap, size_t *needed, kvb_error *err)
{
    (void)text, (void)len, (void)file, (void)options, (void)needed;
    if (buf && cap)
        buf[0] = '\0';
    return kvb__fail(err, KVB_EUNSUPPORTED, "text",
                     "this build of libkvbudget has no YAML reader "
                     "(built without libyaml)");
}

kvb_status kvb_check_fix(const char *text, size_t len,
                         const kvb_check_options *options, char *buf,
                         size_t cap, size_t *needed, uint32_t *changed,
                         kvb_error *err)
{
    (void)changed;
    return kvb_check_manifest(text, len, NULL, options, buf, cap, needed, err);
}
#else
#include "readers/yaml_doc.h"

#include <ctype.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 256
#define MAX_HINTS 48
#define MAX_POOLS 64
#define MAX_EDITS 4096

/* ---- small helpers ---- */

typedef struct strbuf {
    char *p;
    size_t n, cap;
    bool oom;
} strbuf;

static void sb_add(strbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *np = realloc(b->p, cap);
        if (!np) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void sb_printf(strbuf *b, const char *fmt, ...) KVB__PRINTF(2, 3);
static void sb_printf(strbuf *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    if ((size_t)k < sizeof small) {
        sb_add(b, small, (size_t)k);
        return;
    }
    char *big = malloc((size_t)k + 1);
    if (!big) {
        b->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)k + 1, fmt, ap);
    va_end(ap);
    sb_add(b, big, (size_t)k);
    free(big);
}

/* A YAML double-quoted scalar. */
static void sb_quoted(strbuf *b, const char *s)
{
    sb_add(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            sb_add(b, e, 2);
        } else if (c == '\n') {
            sb_add(b, "\\n", 2);
        } else if (c == '\t') {
            sb_add(b, "\\t", 2);
        } else if (c < 0x20) {
            sb_printf(b, "\\x%02x", c);
        } else {
            sb_add(b, s, 1);
        }
    }
    sb_add(b, "\"", 1);
}

static char *dupn(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

static char *dup(const char *s)
{
    return dupn(s, strlen(s));
}

static bool ieq_prefix(const char *s, const char *prefix)
{
    for (; *prefix; s++, prefix++)
        if (tolower((unsigned char)*s) != tolower((unsigned char)*prefix))
            return false;
    return true;
}

static bool has_template(const char *s)
{
    return s && (strstr(s, "{{") || strstr(s, "${") || strstr(s, "$(") ||
                 strstr(s, "<") || strstr(s, "REPLACE") ||
                 strstr(s, "CHANGE_ME") || strstr(s, "YOUR_"));
}

/* ---- words (a container's command line) ---- */

typedef struct words {
    char *w[MAX_WORDS];   /* as the engine sees them (expanded) */
    char *raw[MAX_WORDS]; /* as written (for patches) */
    int line[MAX_WORDS];
    size_t n;
    size_t n_command; /* of them from `command` */
    size_t first;     /* first engine word (after sh -c prefix words) */
    /* script mode: the engine command is one segment of a shell string */
    yaml_node_t *script; /* NULL: list mode */
    size_t seg_start, seg_end;
    bool overflow;
} words;

static void words_free(words *w)
{
    for (size_t i = 0; i < w->n; i++) {
        free(w->w[i]);
        free(w->raw[i]);
    }
    w->n = 0;
}

static void words_add(words *w, char *expanded, char *raw, int line)
{
    if (w->n == MAX_WORDS || !expanded || !raw) {
        free(expanded);
        free(raw);
        w->overflow = true;
        return;
    }
    w->w[w->n] = expanded;
    w->raw[w->n] = raw;
    w->line[w->n++] = line;
}

/* The container's env as NAME=value (values with $(VAR) expanded), and
 * the names whose value comes from elsewhere (valueFrom). */
typedef struct envlist {
    char *kv[128];
    size_t n;
    char unresolved[256];
} envlist;

static void env_free(envlist *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->kv[i]);
    e->n = 0;
}

static const char *env_get(const envlist *e, const char *name, size_t n)
{
    for (size_t i = 0; i < e->n; i++)
        if (strncmp(e->kv[i], name, n) == 0 && e->kv[i][n] == '=')
            return e->kv[i] + n + 1;
    return NULL;
}

static void env_set(envlist *e, const char *name, const char *value)
{
    if (e->n == KVB__ARRAY_LEN(e->kv) - 1)
        return;
    size_t a = strlen(name), b = strlen(value);
    char *kv = malloc(a + b + 2);
    if (!kv)
        return;
    memcpy(kv, name, a);
    kv[a] = '=';
    memcpy(kv + a + 1, value, b + 1);
    e->kv[e->n++] = kv;
    e->kv[e->n] = NULL;
}

/* Expand Kubernetes $(VAR) (and, in shell strings, $VAR and ${VAR}) from
 * the env; unknown names stay as written.  $$ is a literal $. */
static char *expand(const char *s, const envlist *e, bool shell)
{
    strbuf b = {0};
    sb_add(&b, "", 0);
    while (*s) {
        if (s[0] == '$' && s[1] == '$' && !shell) {
            sb_add(&b, "$", 1);
            s += 2;
            continue;
        }
        if (s[0] == '$' && (s[1] == '(' || (shell && s[1] == '{'))) {
            char close = s[1] == '(' ? ')' : '}';
            const char *end = strchr(s + 2, close);
            const char *v =
                end ? env_get(e, s + 2, (size_t)(end - s - 2)) : NULL;
            if (v) {
                sb_add(&b, v, strlen(v));
                s = end + 1;
                continue;
            }
        } else if (shell && s[0] == '$' &&
                   (isalpha((unsigned char)s[1]) || s[1] == '_')) {
            size_t n = 1;
            while (isalnum((unsigned char)s[1 + n]) || s[1 + n] == '_')
                n++;
            const char *v = env_get(e, s + 1, n);
            if (v) {
                sb_add(&b, v, strlen(v));
                s += 1 + n;
                continue;
            }
        }
        sb_add(&b, s, 1);
        s++;
    }
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

/* ---- engines from images ---- */

typedef struct image_ref {
    char repo[256]; /* lower case, registry and path: "vllm/vllm-openai" */
    char tag[128];
} image_ref;

static void image_parse(const char *image, image_ref *r)
{
    memset(r, 0, sizeof *r);
    if (!image)
        return;
    const char *at = strchr(image, '@');
    size_t n = at ? (size_t)(at - image) : strlen(image);
    const char *slash = NULL;
    for (size_t i = 0; i < n; i++)
        if (image[i] == '/')
            slash = image + i;
    const char *colon = NULL;
    for (const char *p = slash ? slash : image; p < image + n; p++)
        if (*p == ':')
            colon = p;
    size_t rn = colon ? (size_t)(colon - image) : n;
    if (rn >= sizeof r->repo)
        rn = sizeof r->repo - 1;
    for (size_t i = 0; i < rn; i++)
        r->repo[i] = (char)tolower((unsigned char)image[i]);
    if (colon) {
        size_t tn = (size_t)(image + n - colon - 1);
        if (tn >= sizeof r->tag)
            tn = sizeof r->tag - 1;
        memcpy(r->tag, colon + 1, tn);
    }
}

/* The engine an image runs: by its repository name (the images each
 * project publishes, and the common mirrors of them). */
static int32_t image_engine(const image_ref *r)
{
    static const struct {
        const char *needle;
        int32_t engine;
    } rows[] = {
        {"text-generation-inference", KVB_ENGINE_TGI},
        {"sglang", KVB_ENGINE_SGLANG},
        {"tensorrt-llm", KVB_ENGINE_TRTLLM},
        {"tensorrt_llm", KVB_ENGINE_TRTLLM},
        {"trtllm", KVB_ENGINE_TRTLLM},
        {"tritonserver", KVB_ENGINE_TRTLLM},
        {"ollama", KVB_ENGINE_OLLAMA},
        {"llama.cpp", KVB_ENGINE_LLAMA_CPP},
        {"llama-cpp", KVB_ENGINE_LLAMA_CPP},
        {"llamacpp", KVB_ENGINE_LLAMA_CPP},
        {"vllm", KVB_ENGINE_VLLM},
    };
    for (size_t i = 0; i < KVB__ARRAY_LEN(rows); i++)
        if (strstr(r->repo, rows[i].needle))
            return rows[i].engine;
    return -1;
}

/* Whether this build plans for an engine (its registry row is there). */
static bool engine_modelled(int32_t engine)
{
    const char *name = kvb_engine_name(engine);
    int32_t id;
    uint32_t v;
    return name && kvb_engine_parse(name, &id, &v, NULL) == KVB_OK;
}

/* ---- the check ---- */

typedef struct pool {
    const char *name;
    size_t doc;
    yaml_document_t *d;
    yaml_node_t *reqs; /* spec.template.spec.requirements */
} pool;

typedef struct edit {
    size_t start, end;
    char *text;
} edit;

typedef struct ctx {
    kvb__yaml y;
    const char *text;
    size_t len;
    const char *file;
    kvb_check_options opt;
    json_t *deployments, *not_understood;
    pool pools[MAX_POOLS];
    size_t npools;
    bool fixing;
    edit edits[MAX_EDITS];
    size_t nedits;
    uint32_t changed;
    bool oom;
} ctx;

/* One serving-container candidate: where it is and what surrounds it. */
typedef struct site {
    size_t doc; /* 1-based */
    yaml_document_t *d;
    const char *api, *kind, *name;
    const char *role;     /* "leader", "worker" or NULL */
    const char *pod_path; /* dotted path of the pod spec for patches */
    yaml_node_t *pod;     /* pod spec (nodeSelector, affinity) or NULL */
    yaml_node_t *c;       /* the container mapping (or KServe model) */
    const char *holder;   /* "containers", "model", NULL (in pod_path) */
    uint32_t nodes;       /* pods of one replica (LWS size) */
    int32_t engine_hint;  /* from the platform (KServe format, KubeAI) */
    const char *model_hint;
    int model_hint_line;
    bool hf_server;    /* KServe huggingfaceserver: its own flags */
    int64_t gpu_count; /* -1: from the container's resources */
    int gpu_count_line;
    const char *gpu_profile;     /* KubeAI resource profile GPU name */
    yaml_node_t *selector_terms; /* nodeSelectorTerms outside a pod */
    /* production-stack: words made from the chart's values */
    const char *const *extra;
    size_t nextra;
    envlist *extra_env;
} site;

typedef struct hint {
    const char *key, *value;
    int line;
    yaml_node_t *node; /* the value scalar (for --fix) */
    yaml_document_t *d;
    const pool *from; /* NULL: the pod itself */
} hint;

static void add_unknown_kind(ctx *x, size_t doc, const char *kind,
                             const char *name, int line, const char *reason)
{
    json_t *o =
        json_pack("{s:s,s:I,s:s,s:s,s:i,s:s}", "file", x->file, "document",
                  (json_int_t)doc, "kind", kind ? kind : "", "name",
                  name ? name : "", "line", line, "reason", reason);
    if (!o || json_array_append_new(x->not_understood, o))
        x->oom = true;
}

/* ---- edits for --fix ---- */

static void add_edit(ctx *x, size_t start, size_t end, char *text)
{
    if (!text || x->nedits == MAX_EDITS || end < start || end > x->len) {
        free(text);
        return;
    }
    for (size_t i = 0; i < x->nedits; i++)
        if (start < x->edits[i].end && x->edits[i].start < end) {
            free(text);
            return; /* overlapping: the first edit wins */
        }
    x->edits[x->nedits++] = (edit){start, end, text};
}

static void edit_scalar(ctx *x, yaml_node_t *n, const char *value)
{
    if (!n || n->type != YAML_SCALAR_NODE)
        return;
    strbuf b = {0};
    sb_quoted(&b, value);
    add_edit(x, n->start_mark.index, n->end_mark.index, b.p);
}

/* Replace a sequence node with new items, keeping block or flow style. */
static void edit_sequence(ctx *x, yaml_node_t *seq, yaml_document_t *d,
                          char *const *items, size_t n)
{
    if (!seq || seq->type != YAML_SEQUENCE_NODE || kvb__yaml_len(seq) == 0)
        return;
    strbuf b = {0};
    if (seq->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE) {
        sb_add(&b, "[", 1);
        for (size_t i = 0; i < n; i++) {
            if (i)
                sb_add(&b, ", ", 2);
            sb_quoted(&b, items[i]);
        }
        sb_add(&b, "]", 1);
        add_edit(x, seq->start_mark.index, seq->end_mark.index, b.p);
        return;
    }
    yaml_node_t *first = kvb__yaml_at(d, seq, 0);
    yaml_node_t *last = kvb__yaml_at(d, seq, kvb__yaml_len(seq) - 1);
    size_t ls = first->start_mark.index;
    while (ls > 0 && x->text[ls - 1] != '\n')
        ls--;
    size_t dash = ls;
    while (dash < x->len && (x->text[dash] == ' ' || x->text[dash] == '\t'))
        dash++;
    if (dash >= x->len || x->text[dash] != '-') {
        free(b.p);
        return;
    }
    size_t le = last->end_mark.index;
    while (le < x->len && x->text[le] != '\n')
        le++;
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_add(&b, "\n", 1);
        sb_add(&b, x->text + ls, dash - ls);
        sb_add(&b, "- ", 2);
        sb_quoted(&b, items[i]);
    }
    add_edit(x, ls, le, b.p);
}

/* ---- model resolution ---- */

/* The one place a model reference becomes a model: presets by name and
 * alias, then the repository's base name without the suffixes that name
 * a quantized or instruction-tuned variant (the quantization they name
 * is used when --quantization is not given), then a unique preset whose
 * name starts with what is left, then ORG/REPO in the local Hugging Face
 * cache (never the network: a CI job must not depend on it).  Local paths and
 * object stores are read only inside the container; they stay unresolved. */
static bool resolve_model(const char *ref, kvb_model *m, int32_t *quant,
                          uint64_t *weights_bytes, char *why, size_t cap)
{
    static const struct {
        const char *suffix;
        const char *quant;
    } suffixes[] = {
        {"-awq", "awq-4"},
        {"-gptq-int4", "gptq-4"},
        {"-gptq-int8", "gptq-8"},
        {"-gptq", "gptq-4"},
        {"-int4", "gptq-4"},
        {"-int8", "gptq-8"},
        {"-fp8-dynamic", "fp8"},
        {"-fp8", "fp8"},
        {"-w4a16", "gptq-4"},
        {"-w8a8", "gptq-8"},
        {"-bnb-4bit", "bnb-4"},
        {"-instruct", NULL},
        {"-chat", NULL},
        {"-it", NULL},
        {"-hf", NULL},
    };
    char name[256];
    const char *r = ref;
    if (!strncmp(r, "hf://", 5))
        r += 5;
    if (r[0] == '/' || r[0] == '.' || strstr(r, "://")) {
        snprintf(why, cap,
                 "the model is %.200s, read only when the container starts; "
                 "kvbudget cannot size it from the manifest",
                 ref);
        return false;
    }
    if (has_template(r)) {
        snprintf(why, cap, "the model (%.200s) is an unresolved template value",
                 ref);
        return false;
    }
    if (kvb_preset_model_find(r, m, NULL) == KVB_OK)
        return true;
    const char *slash = strrchr(r, '/');
    snprintf(name, sizeof name, "%.255s", slash ? slash + 1 : r);
    if (ieq_prefix(name, "meta-llama-"))
        memmove(name, name + 5, strlen(name + 5) + 1);
    for (int round = 0; round < 6; round++) {
        if (kvb_preset_model_find(name, m, NULL) == KVB_OK)
            return true;
        bool cut = false;
        size_t n = strlen(name);
        for (size_t i = 0; i < KVB__ARRAY_LEN(suffixes) && !cut; i++) {
            size_t k = strlen(suffixes[i].suffix);
            if (n > k && ieq_prefix(name + n - k, suffixes[i].suffix)) {
                name[n - k] = '\0';
                if (suffixes[i].quant && *quant < 0 &&
                    kvb_quant_method_find(suffixes[i].quant, quant, NULL))
                    *quant = -1;
                cut = true;
            }
        }
        if (!cut)
            break;
    }
    /* "Llama-4-Scout-17B" -> the one preset starting with it */
    size_t found = SIZE_MAX, n = strlen(name);
    for (size_t i = 0; i < kvb_preset_model_count(); i++) {
        const char *p = kvb_preset_model_name(i);
        if (n >= 6 && ieq_prefix(p, name) && p[n] == '-') {
            if (found != SIZE_MAX) {
                found = SIZE_MAX - 1;
                break;
            }
            found = i;
        }
    }
    if (found < SIZE_MAX - 1 && kvb_preset_model_get(found, m, NULL) == KVB_OK)
        return true;
    const char *sl = strchr(r, '/');
    if (sl && sl != r && !strchr(sl + 1, '/')) {
        kvb_ref_options ro;
        kvb_read_info ri;
        kvb_quant q;
        if (!KVB_REF_OPTIONS_INIT(&ro) && !KVB_READ_INFO_INIT(&ri) &&
            !KVB_QUANT_INIT(&q)) {
            ro.flags = KVB_REF_OFFLINE;
            if (kvb_model_read_ref(r, &ro, m, &q, &ri, NULL, NULL) == KVB_OK) {
                if (*quant < 0)
                    *quant = q.method;
                *weights_bytes = ri.weights_bytes;
                return true;
            }
        }
        KVB__CANNOT_FAIL(KVB_MODEL_INIT(m));
    }
    snprintf(why, cap,
             "the model %.200s is not a preset (`kvbudget list models`) and is "
             "not in the local Hugging Face cache",
             ref);
    return false;
}

/* ---- GPUs from node labels ---- */

static void hints_from_selector(yaml_document_t *d, yaml_node_t *sel, hint *h,
                                size_t *n)
{
    if (!sel || sel->type != YAML_MAPPING_NODE)
        return;
    for (yaml_node_pair_t *p = sel->data.mapping.pairs.start;
         p < sel->data.mapping.pairs.top && *n < MAX_HINTS; p++) {
        yaml_node_t *v = yaml_document_get_node(d, p->value);
        const char *k = kvb__yaml_str(yaml_document_get_node(d, p->key));
        if (k && kvb__yaml_str(v))
            h[(*n)++] =
                (hint){k, kvb__yaml_str(v), kvb__yaml_line(v), v, d, NULL};
    }
}

/* matchExpressions / requirements: {key, operator: In, values: [...]} */
static void hints_from_exprs(yaml_document_t *d, yaml_node_t *exprs,
                             const pool *from, hint *h, size_t *n)
{
    for (size_t i = 0; i < kvb__yaml_len(exprs); i++) {
        yaml_node_t *e = kvb__yaml_at(d, exprs, i);
        const char *k = kvb__yaml_str(kvb__yaml_get(d, e, "key"));
        const char *op = kvb__yaml_str(kvb__yaml_get(d, e, "operator"));
        yaml_node_t *vals = kvb__yaml_get(d, e, "values");
        if (!k || !op || strcmp(op, "In") != 0)
            continue;
        for (size_t j = 0; j < kvb__yaml_len(vals) && *n < MAX_HINTS; j++) {
            yaml_node_t *v = kvb__yaml_at(d, vals, j);
            if (kvb__yaml_str(v))
                h[(*n)++] =
                    (hint){k, kvb__yaml_str(v), kvb__yaml_line(v), v, d, from};
        }
    }
}

static void hints_from_terms(yaml_document_t *d, yaml_node_t *terms, hint *h,
                             size_t *n)
{
    for (size_t i = 0; i < kvb__yaml_len(terms); i++)
        hints_from_exprs(
            d, kvb__yaml_get(d, kvb__yaml_at(d, terms, i), "matchExpressions"),
            NULL, h, n);
}

/* GKE's accelerator label values (cloud.google.com/gke-accelerator, GKE
 * docs "GPU platforms") -> GPU presets. */
static const char *gke_gpu(const char *v)
{
    static const struct {
        const char *label, *gpu;
    } rows[] = {
        {"nvidia-tesla-t4", "T4"},
        {"nvidia-l4", "L4"},
        {"nvidia-tesla-a100", "A100-40GB"},
        {"nvidia-a100-80gb", "A100-80GB"},
        {"nvidia-h100-80gb", "H100"},
        {"nvidia-h100-mega-80gb", "H100"},
        {"nvidia-h200-141gb", "H200"},
        {"nvidia-b200", "B200"},
        {"nvidia-tesla-v100", "V100-16GB"},
        {"nvidia-rtx-pro-6000", "RTX-PRO-6000"},
    };
    for (size_t i = 0; i < KVB__ARRAY_LEN(rows); i++)
        if (!strcmp(v, rows[i].label))
            return rows[i].gpu;
    return NULL;
}

/* GPU feature discovery's nvidia.com/gpu.product ("NVIDIA-A10G",
 * "NVIDIA-H100-80GB-HBM3", "Tesla-T4", "NVIDIA-A100-SXM4-80GB"). */
static bool product_gpu(const char *v, kvb_gpu *g)
{
    char name[128];
    snprintf(name, sizeof name, "%s", v);
    for (char *p = name; *p; p++)
        if (*p == '-')
            *p = ' ';
    if (kvb_preset_gpu_find(name, g, NULL) == KVB_OK)
        return true;
    const char *s = name;
    if (ieq_prefix(s, "nvidia "))
        s += 7;
    if (ieq_prefix(s, "tesla "))
        s += 6;
    char first[64];
    snprintf(first, sizeof first, "%.63s", s);
    if (kvb_preset_gpu_find(first, g, NULL) == KVB_OK)
        return true;
    if (strstr(s, "80GB") && ieq_prefix(s, "A100"))
        return kvb_preset_gpu_find("A100-80GB", g, NULL) == KVB_OK;
    if (ieq_prefix(s, "A100"))
        return kvb_preset_gpu_find("A100-40GB", g, NULL) == KVB_OK;
    if (ieq_prefix(s, "H100"))
        return kvb_preset_gpu_find(strstr(s, "PCIe") ? "H100-PCIe" : "H100", g,
                                   NULL) == KVB_OK;
    char *sp = strchr(first, ' ');
    if (sp) {
        *sp = '\0';
        return kvb_preset_gpu_find(first, g, NULL) == KVB_OK;
    }
    return false;
}

typedef struct gpu_found {
    kvb_gpu gpu;
    char instance[64];
    uint32_t instance_gpus;
    char label[160]; /* "A10G (node.kubernetes.io/instance-type: g5.xlarge)" */
    const hint *by;  /* the label that said it; NULL for options */
    const hint *by2; /* instance-size with instance-family */
    bool found;
    char why[256];
} gpu_found;

static bool use_instance(const char *name, gpu_found *f)
{
    kvb_instance inst;
    if (KVB_INSTANCE_INIT(&inst) ||
        kvb_preset_instance_find(name, &inst, NULL) || KVB_GPU_INIT(&f->gpu) ||
        kvb_instance_gpu(&inst, &f->gpu, NULL))
        return false;
    snprintf(f->instance, sizeof f->instance, "%s", inst.name);
    f->instance_gpus = inst.gpu_count;
    return true;
}

static void find_gpu(ctx *x, const hint *h, size_t n, gpu_found *f)
{
    memset(f, 0, sizeof *f);
    KVB__CANNOT_FAIL(KVB_GPU_INIT(&f->gpu));
    const hint *family = NULL, *size = NULL;
    char unknown[200] = "";
    for (size_t i = 0; i < n && !f->found; i++) {
        const char *k = h[i].key, *v = h[i].value;
        bool ok = false;
        if (!strcmp(k, "node.kubernetes.io/instance-type") ||
            !strcmp(k, "beta.kubernetes.io/instance-type")) {
            ok = use_instance(v, f);
        } else if (!strcmp(k, "karpenter.k8s.aws/instance-family")) {
            family = family ? family : &h[i];
        } else if (!strcmp(k, "karpenter.k8s.aws/instance-size")) {
            size = size ? size : &h[i];
        } else if (!strcmp(k, "karpenter.k8s.aws/instance-gpu-name") ||
                   !strcmp(k, "nvidia.com/gpu.family-name")) {
            ok = kvb_preset_gpu_find(v, &f->gpu, NULL) == KVB_OK;
            if (!ok && !kvb__strcasecmp(v, "a100"))
                ok = kvb_preset_gpu_find("A100-40GB", &f->gpu, NULL) == KVB_OK;
        } else if (!strcmp(k, "cloud.google.com/gke-accelerator")) {
            const char *g = gke_gpu(v);
            ok = g && kvb_preset_gpu_find(g, &f->gpu, NULL) == KVB_OK;
        } else if (!strcmp(k, "nvidia.com/gpu.product")) {
            ok = product_gpu(v, &f->gpu);
        } else {
            continue;
        }
        if (ok) {
            f->found = true;
            f->by = &h[i];
        } else if (strcmp(k, "karpenter.k8s.aws/instance-family") &&
                   strcmp(k, "karpenter.k8s.aws/instance-size") && !*unknown) {
            snprintf(unknown, sizeof unknown, "%s: %s is not a preset%s", k, v,
                     has_template(v) ? " (an unresolved template value)" : "");
        }
    }
    if (!f->found && family && size) {
        char name[96];
        snprintf(name, sizeof name, "%s.%s", family->value, size->value);
        if (use_instance(name, f)) {
            f->found = true;
            f->by = family;
            f->by2 = size;
        } else if (!*unknown) {
            snprintf(unknown, sizeof unknown, "instance %s is not a preset",
                     name);
        }
    }
    if (f->found) {
        const hint *b = f->by;
        if (f->by2)
            snprintf(f->label, sizeof f->label, "%s (%s%s: %s.%s)", f->gpu.name,
                     b->from ? "NodePool " : "",
                     b->from ? b->from->name : "instance-family/size", b->value,
                     f->by2->value);
        else
            snprintf(f->label, sizeof f->label, "%s (%s%s%s%s: %s)",
                     f->gpu.name, b->from ? "NodePool " : "",
                     b->from ? b->from->name : "", b->from ? ", " : "", b->key,
                     b->value);
        return;
    }
    if (x->opt.instance[0] && use_instance(x->opt.instance, f)) {
        f->found = true;
        snprintf(f->label, sizeof f->label, "%s (--instance %s)", f->gpu.name,
                 f->instance);
        return;
    }
    if (x->opt.gpu[0] &&
        kvb_preset_gpu_find(x->opt.gpu, &f->gpu, NULL) == KVB_OK) {
        f->found = true;
        snprintf(f->label, sizeof f->label, "%s (--gpu)", f->gpu.name);
        return;
    }
    if (*unknown)
        snprintf(f->why, sizeof f->why,
                 "the GPU type is unknown: %s; give --gpu NAME or --instance "
                 "NAME",
                 unknown);
    else
        snprintf(f->why, sizeof f->why,
                 "the manifest does not say which GPU the pod lands on (no "
                 "instance-type, Karpenter, GKE accelerator or "
                 "nvidia.com/gpu.product node selector); give --gpu NAME or "
                 "--instance NAME");
}

/* ---- reading one container ---- */

static bool is_shell(const char *w)
{
    const char *b = strrchr(w, '/');
    b = b ? b + 1 : w;
    return !strcmp(b, "sh") || !strcmp(b, "bash") || !strcmp(b, "dash") ||
           !strcmp(b, "ash") || !strcmp(b, "zsh");
}

/* The byte ranges of a shell string's commands: split at ; && || | & and
 * newlines outside quotes (a backslash-newline joins lines). */
static size_t script_segments(const char *s, size_t *starts, size_t *ends,
                              size_t cap)
{
    size_t n = 0, i = 0, begin = 0;
    char quote = 0;
    for (;; i++) {
        char c = s[i];
        if (c == '\\' && s[i + 1] && quote != '\'') {
            i++;
            continue;
        }
        if (quote) {
            if (c == quote)
                quote = 0;
            else if (!c)
                break;
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            continue;
        }
        if (!c || c == ';' || c == '&' || c == '|' || c == '\n') {
            if (i > begin && n < cap) {
                starts[n] = begin;
                ends[n++] = i;
            }
            if (!c)
                break;
            begin = i + 1;
        }
    }
    if (quote && n < cap && i > begin) {
        starts[n] = begin;
        ends[n++] = i;
    }
    return n;
}

static void seq_words(yaml_document_t *d, yaml_node_t *seq, const envlist *e,
                      words *w)
{
    for (size_t i = 0; i < kvb__yaml_len(seq); i++) {
        yaml_node_t *it = kvb__yaml_at(d, seq, i);
        const char *s = kvb__yaml_str(it);
        if (!s)
            continue;
        /* stray spaces around list items occur in real manifests */
        while (*s == ' ' || *s == '\t')
            s++;
        size_t n = strlen(s);
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
            n--;
        char *raw = dupn(s, n);
        words_add(w, raw ? expand(raw, e, false) : NULL, raw ? dup(raw) : NULL,
                  kvb__yaml_line(it));
        free(raw);
    }
}

/* Split one shell segment into words (expanded and raw). */
static bool segment_words(const char *seg, const envlist *e, int line, words *w,
                          char *why, size_t cap)
{
    char *exp = expand(seg, e, true);
    if (!exp)
        return false;
    size_t bl = strlen(seg) + strlen(exp) + 2;
    char *buf = malloc(bl), *rbuf = malloc(bl);
    const char *av[MAX_WORDS], *rv[MAX_WORDS];
    size_t ac = 0, rc = 0;
    kvb_error er = KVB_ERROR_INIT;
    bool ok = buf && rbuf &&
              kvb_command_split(exp, buf, bl, av, MAX_WORDS, &ac, &er) == 0 &&
              kvb_command_split(seg, rbuf, bl, rv, MAX_WORDS, &rc, &er) == 0;
    if (!ok && why)
        snprintf(why, cap, "the shell command cannot be split: %s", er.message);
    size_t skip = 0;
    /* "exec vllm serve", "VAR=x vllm serve" */
    while (ok && skip < ac && skip < rc &&
           (!strcmp(av[skip], "exec") ||
            (strchr(av[skip], '=') && av[skip][0] != '-')))
        skip++;
    for (size_t i = skip; ok && i < ac; i++)
        words_add(w, dup(av[i]), dup(i < rc ? rv[i] : av[i]), line);
    free(buf);
    free(rbuf);
    free(exp);
    return ok;
}

static void read_env(yaml_document_t *d, yaml_node_t *env, envlist *e)
{
    if (env && env->type == YAML_MAPPING_NODE) { /* KubeAI: name: value */
        for (yaml_node_pair_t *p = env->data.mapping.pairs.start;
             p < env->data.mapping.pairs.top; p++) {
            const char *k = kvb__yaml_str(yaml_document_get_node(d, p->key));
            const char *v = kvb__yaml_str(yaml_document_get_node(d, p->value));
            if (k && v)
                env_set(e, k, v);
        }
        return;
    }
    for (size_t i = 0; i < kvb__yaml_len(env); i++) {
        yaml_node_t *it = kvb__yaml_at(d, env, i);
        const char *k = kvb__yaml_str(kvb__yaml_get(d, it, "name"));
        const char *v = kvb__yaml_str(kvb__yaml_get(d, it, "value"));
        if (!k)
            continue;
        if (!v) {
            size_t n = strlen(e->unresolved);
            if (n + strlen(k) + 3 < sizeof e->unresolved)
                snprintf(e->unresolved + n, sizeof e->unresolved - n, "%s%s",
                         n ? ", " : "", k);
            continue;
        }
        char *x = expand(v, e, false);
        if (x)
            env_set(e, k, x);
        free(x);
    }
}

/* GPUs a container asks for: resources.limits (else requests). */
static int64_t gpu_limit(yaml_document_t *d, yaml_node_t *c, int *line)
{
    yaml_node_t *res = kvb__yaml_get(d, c, "resources");
    yaml_node_t *v =
        kvb__yaml_get(d, kvb__yaml_get(d, res, "limits"), "nvidia.com/gpu");
    if (!v)
        v = kvb__yaml_get(d, kvb__yaml_get(d, res, "requests"),
                          "nvidia.com/gpu");
    const char *s = kvb__yaml_str(v);
    *line = kvb__yaml_line(v);
    if (!s)
        return 0;
    char *end;
    long long n = strtoll(s, &end, 10);
    if (end == s || *end || n < 0)
        return -2; /* not a number (a template) */
    return n;
}

/* The flags KServe's huggingfaceserver takes itself (it passes the rest
 * to vLLM): dropped before the vLLM reader sees the words; --model_id
 * names the model. */
static bool hf_server_flag(const char *w, const char **model)
{
    static const char *const own[] = {
        "--model_name",
        "--model_id",
        "--model_dir",
        "--model_revision",
        "--backend",
        "--task",
        "--http_port",
        "--grpc_port",
        "--tokenizer_revision",
        "--return_probabilities",
        "--disable_lower_case",
        "--disable_special_tokens",
        "--max_length",
        "--predictor_host",
    };
    for (size_t i = 0; i < KVB__ARRAY_LEN(own); i++) {
        size_t k = strlen(own[i]);
        if (!strncmp(w, own[i], k) && (w[k] == '=' || !w[k])) {
            if (!strcmp(own[i], "--model_id") && w[k] == '=')
                *model = w + k + 1;
            return true;
        }
    }
    return false;
}

/* ---- rendering a fix as changed args ---- */

typedef struct flagval {
    char flag[64];
    char value[160];
    bool bare;
} flagval;

static size_t render_flags(const kvb_fix *f, const kvb_model *m, flagval *out,
                           size_t cap)
{
    char line[1024], buf[1200];
    const char *av[64];
    size_t ac = 0, n = 0;
    if (kvb_fix_render(f, m, KVB_RENDER_VLLM_ARGS, line, sizeof line, NULL,
                       NULL) ||
        kvb_command_split(line, buf, sizeof buf, av, 64, &ac, NULL))
        return 0;
    for (size_t i = 0; i < ac && n < cap; i++) {
        if (av[i][0] != '-')
            continue;
        flagval *fv = &out[n];
        memset(fv, 0, sizeof *fv);
        const char *eq = strchr(av[i], '=');
        if (eq) {
            snprintf(fv->flag, sizeof fv->flag, "%.*s", (int)(eq - av[i]),
                     av[i]);
            snprintf(fv->value, sizeof fv->value, "%s", eq + 1);
        } else {
            snprintf(fv->flag, sizeof fv->flag, "%s", av[i]);
            if (i + 1 < ac && av[i + 1][0] != '-')
                snprintf(fv->value, sizeof fv->value, "%s", av[++i]);
            else
                fv->bare = true;
        }
        if (!strcmp(fv->flag, "--model") || !strcmp(fv->flag, "-m"))
            continue;
        n++;
    }
    return n;
}

/* Same flag, reading '_' as '-' as the engines do. */
static bool same_flag(const char *word, const char *flag, size_t *len)
{
    size_t i = 0;
    for (; flag[i]; i++) {
        char a = word[i] == '_' ? '-' : word[i],
             b = flag[i] == '_' ? '-' : flag[i];
        if (a != b)
            return false;
    }
    if (word[i] != '\0' && word[i] != '=')
        return false;
    *len = i;
    return true;
}

/* Apply the flags that differ between the baseline and the fix to a copy
 * of the words (raw forms); returns the new count, or 0 on failure. */
static size_t merge_flags(char **out, size_t cap, char *const *in, size_t n,
                          size_t from, const flagval *base, size_t nb,
                          const flagval *fix, size_t nf)
{
    size_t m = 0;
    for (size_t i = from; i < n && m < cap; i++)
        out[m++] = dup(in[i]);
    for (size_t k = 0; k < nf; k++) {
        bool unchanged = false;
        for (size_t j = 0; j < nb; j++)
            if (!strcmp(base[j].flag, fix[k].flag) &&
                !strcmp(base[j].value, fix[k].value))
                unchanged = true;
        if (unchanged)
            continue;
        size_t len = 0, at = SIZE_MAX;
        for (size_t i = 0; i < m; i++)
            if (out[i] && same_flag(out[i], fix[k].flag, &len)) {
                at = i;
                break;
            }
        if (at != SIZE_MAX) {
            if (fix[k].bare)
                continue;
            if (out[at][len] == '=') {
                char tmp[256];
                snprintf(tmp, sizeof tmp, "%.*s=%s", (int)len, out[at],
                         fix[k].value);
                free(out[at]);
                out[at] = dup(tmp);
            } else if (at + 1 < m) {
                free(out[at + 1]);
                out[at + 1] = dup(fix[k].value);
            }
            continue;
        }
        if (m < cap)
            out[m++] = dup(fix[k].flag);
        if (!fix[k].bare && m < cap)
            out[m++] = dup(fix[k].value);
    }
    return m;
}

/* ---- evaluating one site ---- */

typedef struct eval {
    words w;
    envlist env;
    kvb_command cmd;
    kvb_serving s;
    kvb_model m;
    kvb_quant q;
    gpu_found g;
    hint hints[MAX_HINTS];
    size_t nhints;
    const pool *pool_ref;
    int64_t gpus;
    int gpu_line;
    int32_t engine;
    char version[64];
    json_t *reasons;
    const char *verdict;
    int line;
} eval;

static void reason(eval *e, const char *fmt, ...) KVB__PRINTF(2, 3);
static void reason(eval *e, const char *fmt, ...)
{
    char line[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    json_array_append_new(e->reasons, json_string(line));
}

static int word_line(const words *w, const char *flag, int dflt)
{
    size_t len;
    for (size_t i = w->first; i < w->n; i++)
        if (same_flag(w->w[i], flag, &len))
            return w->line[i];
    return dflt;
}

static void patch_path(strbuf *b, const char *path, int *indent)
{
    char key[64];
    while (*path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        snprintf(key, sizeof key, "%.*s", (int)n, path);
        sb_printf(b, "%*s%s:\n", *indent, "", key);
        *indent += 2;
        path += n + (dot ? 1 : 0);
    }
}

static const char *node_keys[] = {
    "node.kubernetes.io/instance-type",
    "beta.kubernetes.io/instance-type",
    "karpenter.k8s.aws/instance-family",
    "karpenter.k8s.aws/instance-size",
    "karpenter.k8s.aws/instance-gpu-name",
    "cloud.google.com/gke-accelerator",
    "nvidia.com/gpu.product",
};

/* The patch that applies one fix: the container's args (and command when
 * the changed flag is there), its GPU limit, the node selection. */
static char *make_patch(const site *st, const eval *e, const kvb_fix *f,
                        char *const *args, size_t nargs, size_t ncmd)
{
    strbuf b = {0};
    bool new_instance = f->kind == KVB_FIX_INSTANCE && f->instance[0];
    bool new_count =
        f->gpu_count && e->gpus > 0 &&
        (int64_t)f->gpu_count / (st->nodes ? st->nodes : 1) != e->gpus;
    int64_t per_pod = (int64_t)f->gpu_count / (st->nodes ? st->nodes : 1);
    if (!strcmp(st->kind, "values")) {
        sb_printf(&b, "# production-stack values: merge into the modelSpec "
                      "entry (Helm replaces lists whole)\n");
        sb_printf(&b, "servingEngineSpec:\n  modelSpec:\n    - name: ");
        sb_quoted(&b, st->name);
        sb_add(&b, "\n", 1);
        if (new_count)
            sb_printf(&b, "      requestGPU: %lld\n", (long long)per_pod);
        sb_printf(&b, "      vllmConfig:\n        extraArgs:\n");
        for (size_t i = 0; i < nargs; i++) {
            sb_add(&b, "          - ", 12);
            sb_quoted(&b, args[i]);
            sb_add(&b, "\n", 1);
        }
        if (new_instance) {
            sb_printf(&b, "      nodeSelectorTerms:\n        - "
                          "matchExpressions:\n            - key: "
                          "node.kubernetes.io/instance-type\n              "
                          "operator: In\n              values: [");
            sb_quoted(&b, f->instance);
            sb_add(&b, "]\n", 2);
        }
        return b.p;
    }
    char kind[64];
    snprintf(kind, sizeof kind, "%s", st->kind);
    for (char *c = kind; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    sb_printf(&b,
              "# strategic-merge patch: kubectl patch %s/%s --patch-file "
              "FILE\n",
              kind, st->name);
    sb_printf(&b, "apiVersion: %s\nkind: %s\nmetadata:\n  name: ",
              st->api ? st->api : "v1", st->kind);
    sb_quoted(&b, st->name);
    sb_add(&b, "\n", 1);
    int ind = 0;
    patch_path(&b, st->pod_path, &ind);
    if (new_instance && st->pod && !e->pool_ref) {
        sb_printf(&b, "%*snodeSelector:\n", ind, "");
        sb_printf(&b, "%*snode.kubernetes.io/instance-type: ", ind + 2, "");
        sb_quoted(&b, f->instance);
        sb_add(&b, "\n", 1);
        for (size_t i = 0; i < e->nhints; i++)
            for (size_t k = 1; k < KVB__ARRAY_LEN(node_keys); k++)
                if (!e->hints[i].from && !strcmp(e->hints[i].key, node_keys[k]))
                    sb_printf(&b, "%*s%s: null\n", ind + 2, "", node_keys[k]);
    }
    int cind = ind;
    if (st->holder && !strcmp(st->holder, "containers")) {
        sb_printf(&b, "%*scontainers:\n%*s- name: ", ind, "", ind + 2, "");
        const char *cn = kvb__yaml_str(kvb__yaml_get(st->d, st->c, "name"));
        sb_quoted(&b, cn ? cn : "");
        sb_add(&b, "\n", 1);
        cind = ind + 4;
    } else if (st->holder) {
        sb_printf(&b, "%*s%s:\n", ind, "", st->holder);
        cind = ind + 2;
    }
    for (size_t i = 0; i < nargs; i++) {
        if (i == 0 && ncmd)
            sb_printf(&b, "%*scommand:\n", cind, "");
        if (i == ncmd)
            sb_printf(&b, "%*sargs:\n", cind, "");
        sb_printf(&b, "%*s- ", cind + 2, "");
        sb_quoted(&b, args[i]);
        sb_add(&b, "\n", 1);
    }
    if (new_count)
        sb_printf(&b,
                  "%*sresources:\n%*slimits:\n%*snvidia.com/gpu: \"%lld\"\n",
                  cind, "", cind + 2, "", cind + 4, "", (long long)per_pod);
    if (new_instance && e->pool_ref) {
        char req[1024];
        if (kvb_fix_render(f, &e->m, KVB_RENDER_KARPENTER, req, sizeof req,
                           NULL, NULL) == KVB_OK) {
            sb_printf(&b,
                      "---\n# NodePool %s: its requirements\n"
                      "apiVersion: karpenter.sh/v1\nkind: NodePool\n"
                      "metadata:\n  name: ",
                      e->pool_ref->name);
            sb_quoted(&b, e->pool_ref->name);
            sb_printf(&b, "\nspec:\n  template:\n    spec:\n");
            for (char *l = req; *l;) {
                char *nl = strchr(l, '\n');
                size_t n = nl ? (size_t)(nl - l) : strlen(l);
                sb_printf(&b, "      %.*s\n", (int)n, l);
                l += n + (nl ? 1 : 0);
            }
        }
    }
    return b.p;
}

/* --fix: the same change as edits of the original text. */
static void fix_edits(ctx *x, const site *st, eval *e, const kvb_fix *f,
                      char **args, size_t nargs, size_t ncmd)
{
    yaml_document_t *d = st->d;
    size_t before = x->nedits;
    words *w = &e->w;
    if (w->script) {
        /* rebuild the shell string with the changed segment */
        const char *s = kvb__yaml_str(w->script);
        strbuf b = {0};
        sb_add(&b, s, w->seg_start);
        for (size_t i = 0; i < w->first && i < w->n; i++) {
            sb_add(&b, w->raw[i], strlen(w->raw[i]));
            sb_add(&b, " ", 1);
        }
        for (size_t i = 0; i < nargs; i++) {
            if (i)
                sb_add(&b, " ", 1);
            bool plain =
                strspn(args[i], "abcdefghijklmnopqrstuvwxyz"
                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                "0123456789-_=./:,@$()") == strlen(args[i]);
            if (plain)
                sb_add(&b, args[i], strlen(args[i]));
            else
                sb_printf(&b, "'%s'", args[i]);
        }
        sb_add(&b, s + w->seg_end, strlen(s + w->seg_end));
        if (b.p) {
            edit_scalar(x, w->script, b.p);
            free(b.p);
        }
    } else if (st->extra) {
        /* production-stack values: the changed flags go to extraArgs,
         * which the chart puts after its own keys, so they win */
        yaml_node_t *vc = kvb__yaml_get(d, st->c, "vllmConfig");
        edit_sequence(x, kvb__yaml_get(d, vc, "extraArgs"), d, args, nargs);
    } else {
        yaml_node_t *an = kvb__yaml_get(d, st->c, "args");
        if (ncmd && !kvb__yaml_len(an))
            ncmd = nargs; /* no args list to hold the rest */
        if (ncmd)
            edit_sequence(x, kvb__yaml_get(d, st->c, "command"), d, args, ncmd);
        edit_sequence(x, an, d, args + ncmd, nargs - ncmd);
    }
    bool new_instance = f->kind == KVB_FIX_INSTANCE && f->instance[0];
    int64_t per_pod = (int64_t)f->gpu_count / (st->nodes ? st->nodes : 1);
    if (f->gpu_count && e->gpus > 0 && per_pod != e->gpus) {
        yaml_node_t *v = kvb__yaml_get(
            d, kvb__yaml_get(d, kvb__yaml_get(d, st->c, "resources"), "limits"),
            "nvidia.com/gpu");
        char num[32];
        snprintf(num, sizeof num, "%lld", (long long)per_pod);
        edit_scalar(x, v, num);
        v = kvb__yaml_get(
            d,
            kvb__yaml_get(d, kvb__yaml_get(d, st->c, "resources"), "requests"),
            "nvidia.com/gpu");
        edit_scalar(x, v, num);
    }
    if (new_instance && e->g.by) {
        const hint *b = e->g.by;
        char fam[64], size[64];
        snprintf(fam, sizeof fam, "%s", f->instance);
        char *dot = strchr(fam, '.');
        snprintf(size, sizeof size, "%s", dot ? dot + 1 : "");
        if (dot)
            *dot = '\0';
        if (strstr(b->key, "instance-type"))
            edit_scalar(x, b->node, f->instance);
        else if (strstr(b->key, "instance-family") && e->g.by2 && dot) {
            edit_scalar(x, b->node, fam);
            edit_scalar(x, e->g.by2->node, size);
        }
    }
    if (x->nedits > before)
        x->changed++;
}

static json_t *plan_json(const kvb_plan *p)
{
    return json_pack(
        "{s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:I,s:I,s:i,s:i,s:f,"
        "s:s}",
        "verdict", kvb_verdict_name(p->verdict), "message", p->message,
        "accounting",
        kvb_accounting_name(p->accounting) ? kvb_accounting_name(p->accounting)
                                           : "",
        "gpu_total_bytes", (json_int_t)p->gpu_total_bytes,
        "usable_bytes_per_gpu", (json_int_t)p->usable_bytes_per_gpu,
        "weights_bytes", (json_int_t)p->weights_bytes, "weights_bytes_per_gpu",
        (json_int_t)p->weights_bytes_per_gpu, "kv_budget_bytes_per_gpu",
        (json_int_t)p->kv_budget_bytes_per_gpu, "kv_bytes_per_token",
        (json_int_t)p->kv_bytes_per_token, "max_kv_tokens",
        (json_int_t)p->max_kv_tokens, "max_concurrency", p->max_concurrency,
        "max_model_len", (json_int_t)p->max_model_len, "max_model_len_fit",
        (json_int_t)p->max_model_len_fit, "tensor_parallel_size",
        (int)p->tensor_parallel_size, "pipeline_parallel_size",
        (int)p->pipeline_parallel_size, "gpu_memory_utilization",
        p->gpu_memory_utilization, "warning", p->warning);
}

/* Read the site's words and env; false: not a serving container. */
static bool read_site(ctx *x, const site *st, eval *e, char *why, size_t cap)
{
    yaml_document_t *d = st->d;
    image_ref img;
    const char *image = kvb__yaml_str(kvb__yaml_get(d, st->c, "image"));
    image_parse(image, &img);
    int32_t from_image = image_engine(&img);
    int32_t hint_engine = st->engine_hint >= 0 ? st->engine_hint : from_image;
    read_env(d, kvb__yaml_get(d, st->c, "env"), &e->env);
    if (st->extra_env)
        for (size_t i = 0; i < st->extra_env->n; i++) {
            char *eq = strchr(st->extra_env->kv[i], '=');
            if (eq) {
                *eq = '\0';
                env_set(&e->env, st->extra_env->kv[i], eq + 1);
                *eq = '=';
            }
        }
    yaml_node_t *cmdn = kvb__yaml_get(d, st->c, "command");
    yaml_node_t *argn = kvb__yaml_get(d, st->c, "args");
    words *w = &e->w;
    if (st->extra) {
        for (size_t i = 0; i < st->nextra; i++)
            words_add(w, dup(st->extra[i]), dup(st->extra[i]),
                      st->model_hint_line);
        seq_words(d, argn, &e->env, w);
    } else {
        seq_words(d, cmdn, &e->env, w);
        w->n_command = w->n;
        seq_words(d, argn, &e->env, w);
    }
    /* sh -c "..." in command, or command [sh] with args [-c, "..."] */
    if (w->n >= 3 && is_shell(w->w[0]) && w->w[1][0] == '-' &&
        strchr(w->w[1], 'c')) {
        yaml_node_t *sn = NULL;
        size_t nc = kvb__yaml_len(cmdn);
        sn = nc >= 3 ? kvb__yaml_at(d, cmdn, 2) : kvb__yaml_at(d, argn, 2 - nc);
        const char *script = kvb__yaml_str(sn);
        words_free(w);
        if (!script)
            return false;
        size_t ss[64], se[64];
        size_t ns = script_segments(script, ss, se, 64);
        for (size_t k = 0; k < ns; k++) {
            char *seg = dupn(script + ss[k], se[k] - ss[k]);
            words tmp;
            memset(&tmp, 0, sizeof tmp);
            int line = kvb__yaml_line(sn);
            for (size_t i = 0; i < ss[k]; i++)
                line += script[i] == '\n';
            if (sn->data.scalar.style == YAML_LITERAL_SCALAR_STYLE ||
                sn->data.scalar.style == YAML_FOLDED_SCALAR_STYLE)
                line++;
            bool ok = seg && segment_words(seg, &e->env, line, &tmp, NULL, 0);
            free(seg);
            kvb_command c;
            kvb_serving s;
            KVB__CANNOT_FAIL(KVB_COMMAND_INIT(&c));
            KVB__CANNOT_FAIL(KVB_SERVING_INIT(&s));
            kvb_error er = KVB_ERROR_INIT;
            kvb_status rs =
                ok && tmp.n
                    ? kvb_command_read(tmp.n, (const char *const *)tmp.w, NULL,
                                       -1, &c, &s, &er)
                    : KVB_ENOTFOUND;
            bool is_engine = rs != KVB_ENOTFOUND;
            /* an engine this build does not model: its name in a word */
            const char *en =
                hint_engine >= 0 ? kvb_engine_name(hint_engine) : NULL;
            for (size_t q = 0; !is_engine && en && q < tmp.n && q < 4; q++)
                is_engine = !engine_modelled(hint_engine) &&
                            strstr(tmp.w[q], en) != NULL;
            if (is_engine) {
                *w = tmp;
                w->script = sn;
                w->seg_start = ss[k];
                w->seg_end = se[k];
                return true;
            }
            words_free(&tmp);
        }
        snprintf(why, cap, "its shell command starts no serving engine");
        return false;
    }
    if (st->hf_server) {
        /* huggingfaceserver: keep vLLM's flags, take --model_id */
        words keep;
        memset(&keep, 0, sizeof keep);
        const char *model = NULL;
        for (size_t i = 0; i < w->n; i++) {
            if (hf_server_flag(w->w[i], &model)) {
                if (model)
                    e->cmd.model[0] = '\0',
                    kvb__strlcpy(e->cmd.model, model, sizeof e->cmd.model);
                model = NULL;
                if (!strchr(w->w[i], '=') && i + 1 < w->n &&
                    w->w[i + 1][0] != '-') {
                    if (!strncmp(w->w[i], "--model_id", 10))
                        kvb__strlcpy(e->cmd.model, w->w[i + 1],
                                     sizeof e->cmd.model);
                    i++;
                }
                continue;
            }
            words_add(&keep, w->w[i], w->raw[i], w->line[i]);
            w->w[i] = w->raw[i] = NULL;
        }
        for (size_t i = 0; i < w->n; i++) {
            free(w->w[i]);
            free(w->raw[i]);
        }
        keep.n_command = 0;
        *w = keep;
    }
    if (w->n_command > 0 && st->engine_hint < 0) {
        kvb_command c;
        kvb_serving s;
        KVB__CANNOT_FAIL(KVB_COMMAND_INIT(&c));
        KVB__CANNOT_FAIL(KVB_SERVING_INIT(&s));
        kvb_status rs = kvb_command_read(w->n, (const char *const *)w->w, NULL,
                                         -1, &c, &s, NULL);
        if (rs == KVB_ENOTFOUND && (from_image < 0 || st->role))
            return snprintf(why, cap, "its command is not a serving engine"),
                   false;
    } else if (hint_engine < 0) {
        kvb_command c;
        kvb_serving s;
        KVB__CANNOT_FAIL(KVB_COMMAND_INIT(&c));
        KVB__CANNOT_FAIL(KVB_SERVING_INIT(&s));
        if (kvb_command_read(w->n, (const char *const *)w->w, NULL, -1, &c, &s,
                             NULL) == KVB_ENOTFOUND)
            return snprintf(why, cap, "its image %s is not a serving engine",
                            image ? image : "(none)"),
                   false;
    }
    (void)x;
    return true;
}

static void evaluate(ctx *x, const site *st)
{
    eval *e = calloc(1, sizeof *e);
    if (!e) {
        x->oom = true;
        return;
    }
    yaml_document_t *d = st->d;
    char why[512] = "";
    e->reasons = json_array();
    KVB__CANNOT_FAIL(KVB_COMMAND_INIT(&e->cmd));
    KVB__CANNOT_FAIL(KVB_SERVING_INIT(&e->s));
    KVB__CANNOT_FAIL(KVB_MODEL_INIT(&e->m));
    KVB__CANNOT_FAIL(KVB_QUANT_INIT(&e->q));
    e->engine = -1;
    const char *cname = kvb__yaml_str(kvb__yaml_get(d, st->c, "name"));
    if (!cname)
        cname = st->holder && !strcmp(st->holder, "model") ? "kserve-container"
                                                           : st->name;
    e->line = kvb__yaml_line(st->c);
    const char *image = kvb__yaml_str(kvb__yaml_get(d, st->c, "image"));
    image_ref img;
    image_parse(image, &img);
    json_t *fixes = json_array();
    json_t *plan = json_null();
    char *patch = NULL;
    bool serving = read_site(x, st, e, why, sizeof why);
    if (!serving) {
        /* sidecars, init helpers and LWS workers are not listed */
        goto done_quiet;
    }
    /* engine */
    int32_t from_image = image_engine(&img);
    int32_t hint_engine = st->engine_hint >= 0 ? st->engine_hint : from_image;
    kvb_error er = KVB_ERROR_INIT;
    size_t used_from = e->w.n_command && st->engine_hint < 0 ? 0 : 0;
    (void)used_from;
    kvb_status rs = KVB_ENOTFOUND;
    bool detected = false;
    if (e->w.n) {
        kvb_command c;
        kvb_serving s;
        KVB__CANNOT_FAIL(KVB_COMMAND_INIT(&c));
        KVB__CANNOT_FAIL(KVB_SERVING_INIT(&s));
        detected = kvb_command_read(e->w.n, (const char *const *)e->w.w, NULL,
                                    -1, &c, &s, NULL) != KVB_ENOTFOUND;
        if (detected)
            hint_engine = c.engine;
    }
    e->engine = hint_engine;
    char saved_model[sizeof e->cmd.model];
    kvb__strlcpy(saved_model, e->cmd.model, sizeof saved_model);
    if (e->engine >= 0 && !engine_modelled(e->engine)) {
        e->verdict = "unknown";
        reason(e, "engine %s is not modelled in this build",
               kvb_engine_name(e->engine));
        goto done;
    }
    if (e->engine < 0) {
        e->verdict = "unknown";
        reason(e, "cannot tell the engine from the image (%s) or the command",
               image ? image : "none");
        goto done;
    }
    rs = kvb_command_read(e->w.n, (const char *const *)e->w.w,
                          (const char *const *)e->env.kv,
                          detected ? -1 : e->engine, &e->cmd, &e->s, &er);
    if (rs) {
        e->verdict = "unknown";
        bool templ = false;
        for (size_t i = 0; i < e->w.n; i++)
            if (has_template(e->w.w[i]) && strstr(er.message, e->w.w[i]))
                templ = true;
        reason(e, "%s%s", er.message,
               templ ? " (an unresolved template value)" : "");
        goto done;
    }
    if (!e->cmd.model[0] && saved_model[0])
        kvb__strlcpy(e->cmd.model, saved_model, sizeof e->cmd.model);
    e->w.first = 0;
    if (img.tag[0] && from_image == e->engine && strcmp(img.tag, "latest")) {
        char spec[200];
        int32_t id;
        uint32_t v;
        snprintf(spec, sizeof spec, "%s@%s", kvb_engine_name(e->engine),
                 img.tag);
        if (kvb_engine_parse(spec, &id, &v, NULL) == KVB_OK && v) {
            e->s.engine_version = v;
            snprintf(e->version, sizeof e->version, "%.63s",
                     img.tag[0] == 'v' ? img.tag + 1 : img.tag);
        }
    }
    if (e->cmd.engine_version && !e->s.engine_version)
        e->s.engine_version = e->cmd.engine_version;
    if (e->cmd.warning[0])
        reason(e, "assumed: %s", e->cmd.warning);
    /* model */
    const char *ref = e->cmd.model[0] ? e->cmd.model : st->model_hint;
    int model_line = st->model_hint_line ? st->model_hint_line : e->line;
    for (size_t i = 0; i < e->w.n; i++)
        if (ref && strstr(e->w.w[i], ref))
            model_line = e->w.line[i];
    int32_t qm = -1;
    if (e->cmd.quantization[0] &&
        kvb_quant_method_find(e->cmd.quantization, &qm, NULL) != KVB_OK)
        qm = -1;
    bool model_ok = false;
    if (!ref || !*ref) {
        e->verdict = "unknown";
        reason(e, "the container names no model (no --model or equivalent)");
    } else if (!(model_ok = resolve_model(ref, &e->m, &qm, &e->s.weights_bytes,
                                          why, sizeof why))) {
        e->verdict = "unknown";
        reason(e, "%s", why);
    }
    if (qm >= 0)
        e->q.method = qm;
    if (e->cmd.kv_cache_dtype[0] && !strncmp(e->cmd.kv_cache_dtype, "fp8", 3))
        e->q.kv_cache_dtype = KVB_DTYPE_FP8;
    if (e->cmd.dtype[0]) {
        int32_t dt;
        const char *dn = !strcmp(e->cmd.dtype, "half")       ? "fp16"
                         : !strcmp(e->cmd.dtype, "bfloat16") ? "bf16"
                         : !strcmp(e->cmd.dtype, "float16")  ? "fp16"
                                                             : e->cmd.dtype;
        if (kvb_dtype_find(dn, &dt, NULL) == KVB_OK && dt != KVB_DTYPE_FP8)
            e->q.dtype = dt;
    }
    /* GPUs */
    e->gpus =
        st->gpu_count >= 0 ? st->gpu_count : gpu_limit(d, st->c, &e->gpu_line);
    if (st->gpu_count >= 0)
        e->gpu_line = st->gpu_count_line;
    if (st->pod) {
        hints_from_selector(d, kvb__yaml_get(d, st->pod, "nodeSelector"),
                            e->hints, &e->nhints);
        hints_from_terms(
            d,
            kvb__yaml_path(d, st->pod,
                           "affinity.nodeAffinity."
                           "requiredDuringSchedulingIgnoredDuringExecution."
                           "nodeSelectorTerms"),
            e->hints, &e->nhints);
    }
    hints_from_terms(d, st->selector_terms, e->hints, &e->nhints);
    for (size_t i = 0, n0 = e->nhints; i < n0; i++)
        if (!strcmp(e->hints[i].key, "karpenter.sh/nodepool"))
            for (size_t p = 0; p < x->npools; p++)
                if (!strcmp(x->pools[p].name, e->hints[i].value)) {
                    e->pool_ref = &x->pools[p];
                    hints_from_exprs(x->pools[p].d, x->pools[p].reqs,
                                     &x->pools[p], e->hints, &e->nhints);
                }
    if (st->gpu_profile) {
        e->hints[e->nhints++] = (hint){"karpenter.k8s.aws/instance-gpu-name",
                                       st->gpu_profile,
                                       st->gpu_count_line,
                                       NULL,
                                       d,
                                       NULL};
    }
    find_gpu(x, e->hints, e->nhints, &e->g);
    if (e->gpus == -2) {
        e->verdict = "unknown";
        reason(e, "the nvidia.com/gpu limit is not a number (an unresolved "
                  "template value)");
        goto done;
    }
    if (e->gpus == 0) {
        bool cpu = strstr(img.repo, "cpu") != NULL;
        for (size_t i = 0; i < e->w.n; i++)
            cpu |= strstr(e->w.w[i], "--device=cpu") != NULL;
        const kvb__engine *eng = kvb__engine_get(e->engine);
        if (cpu || (eng && eng->runs_on_cpu)) {
            e->verdict = "unknown";
            reason(e, "the pod asks for no nvidia.com/gpu: it runs on the CPU, "
                      "which kvbudget does not plan");
        } else {
            e->verdict = "fails";
            reason(e,
                   "the pod asks for no nvidia.com/gpu, so it gets no GPU: "
                   "%s needs one (add resources.limits[\"nvidia.com/gpu\"])",
                   kvb_engine_name(e->engine));
        }
        goto done;
    }
    if (!e->g.found) {
        e->verdict = "unknown";
        reason(e, "%s", e->g.why);
        goto done;
    }
    if (e->g.instance[0] && e->gpus > (int64_t)e->g.instance_gpus) {
        e->verdict = "fails";
        reason(e,
               "the pod asks for %lld nvidia.com/gpu but a %s has %u: it "
               "stays Pending",
               (long long)e->gpus, e->g.instance, e->g.instance_gpus);
        e->line = e->gpu_line ? e->gpu_line : e->line;
        goto done;
    }
    if (!model_ok)
        goto done;
    uint32_t nodes = st->nodes ? st->nodes : 1;
    e->g.gpu.count = (uint32_t)e->gpus * nodes;
    if (nodes > 1)
        e->s.gpus_per_node = (uint32_t)e->gpus;
    kvb_plan p;
    KVB__CANNOT_FAIL(KVB_PLAN_INIT(&p));
    er = (kvb_error)KVB_ERROR_INIT;
    if (kvb_plan_compute(&e->m, &e->q, &e->g.gpu, &e->s, &p, &er)) {
        e->verdict = "unknown";
        reason(e, "cannot plan: %s", er.message);
        goto done;
    }
    json_decref(plan);
    plan = plan_json(&p);
    e->verdict = p.fits ? "fits" : "fails";
    reason(e, "%s", p.message);
    if (p.warning[0])
        reason(e, "%s", p.warning);
    if (p.fits)
        goto done;
    /* remedies */
    kvb_advice_options ao;
    KVB__CANNOT_FAIL(KVB_ADVICE_OPTIONS_INIT(&ao));
    if (e->g.instance[0])
        kvb__strlcpy(ao.instance, e->g.instance, sizeof ao.instance);
    kvb_fix all[KVB_ADVICE_MAX];
    size_t nf = 0;
    KVB__CANNOT_FAIL(KVB_FIX_INIT(&all[0]));
    if (kvb_advise(&e->m, &e->q, &e->g.gpu, &e->s, &ao, all, KVB_ADVICE_MAX,
                   &nf, NULL) != KVB_OK)
        nf = 0;
    /* the baseline rendered like a fix: what the flags say now */
    kvb_fix base;
    KVB__CANNOT_FAIL(KVB_FIX_INIT(&base));
    base.kind = KVB_FIX_MAX_MODEL_LEN;
    base.engine = e->s.engine;
    base.quant_method = e->q.method;
    base.kv_cache_dtype = e->q.kv_cache_dtype;
    base.enforce_eager = e->s.enforce_eager;
    base.gpu_memory_utilization = p.gpu_memory_utilization;
    base.max_model_len = p.max_model_len;
    base.tensor_parallel_size = p.tensor_parallel_size;
    base.pipeline_parallel_size = p.pipeline_parallel_size;
    base.gpu_count = e->g.gpu.count;
    flagval bf[32], ff[32];
    size_t nb = render_flags(&base, &e->m, bf, 32);
    /* the line of the offending value */
    switch (p.verdict) {
    case KVB_VERDICT_MAX_LEN_EXCEEDS_KV:
    case KVB_VERDICT_CONCURRENCY_EXCEEDS:
    case KVB_VERDICT_NO_KV_MEMORY:
        for (size_t k = 0; k < nf; k++)
            if (all[k].kind == KVB_FIX_MAX_MODEL_LEN) {
                size_t n = render_flags(&all[k], &e->m, ff, 32);
                for (size_t j = 0; j < n; j++)
                    for (size_t i = 0; i < nb; i++)
                        if (!strcmp(ff[j].flag, bf[i].flag) &&
                            strcmp(ff[j].value, bf[i].value))
                            e->line = word_line(&e->w, ff[j].flag, model_line);
            }
        if (e->line == kvb__yaml_line(st->c))
            e->line = model_line;
        break;
    case KVB_VERDICT_PARALLELISM_INVALID:
        e->line = e->gpu_line ? e->gpu_line : model_line;
        break;
    default: e->line = model_line; break;
    }
    size_t listed = 0;
    bool patched = false;
    for (int pass = 0; pass < 2; pass++)
        for (size_t k = 0; k < nf && listed < x->opt.max_fixes; k++) {
            const kvb_fix *f = &all[k];
            if ((pass == 0) != (f->fits != 0))
                continue;
            size_t n = render_flags(f, &e->m, ff, 32);
            char *args[MAX_WORDS + 64];
            size_t from = e->w.script ? e->w.first : e->w.n_command;
            bool in_command = false;
            size_t len;
            for (size_t j = 0; j < n && !e->w.script && !st->extra; j++) {
                bool same = false;
                for (size_t i = 0; i < nb; i++)
                    same |= !strcmp(bf[i].flag, ff[j].flag) &&
                            !strcmp(bf[i].value, ff[j].value);
                for (size_t i = 0; !same && i < e->w.n_command; i++)
                    if (same_flag(e->w.raw[i], ff[j].flag, &len))
                        in_command = true;
            }
            /* a changed flag in `command`: both lists are rewritten, the
             * first n_command words being the command */
            if (in_command)
                from = 0;
            if (st->extra)
                from = st->nextra;
            size_t na = merge_flags(args, KVB__ARRAY_LEN(args), e->w.raw,
                                    e->w.n, from, bf, nb, ff, n);
            json_t *aj = json_array();
            for (size_t i = 0; i < na; i++)
                json_array_append_new(aj, json_string(args[i] ? args[i] : ""));
            size_t ncmd = in_command ? e->w.n_command : 0;
            char *fp = make_patch(st, e, f, args, na, ncmd);
            json_t *fj =
                json_pack("{s:s,s:s,s:b,s:s,s:s,s:s,s:i,s:I,s:o,s:s}", "kind",
                          kvb_fix_kind_name(f->kind), "title", f->title, "fits",
                          f->fits != 0, "verdict", kvb_verdict_name(f->verdict),
                          "note", f->note, "instance", f->instance, "gpu_count",
                          (int)f->gpu_count, "max_model_len",
                          (json_int_t)f->max_model_len, "args", aj, "patch",
                          fp ? fp : "");
            if (fj)
                json_array_append_new(fixes, fj);
            if (f->fits && !patched) {
                patched = true;
                patch = fp ? dup(fp) : NULL;
                if (x->fixing)
                    fix_edits(x, st, e, f, args, na, ncmd);
            }
            free(fp);
            for (size_t i = 0; i < na; i++)
                free(args[i]);
            listed++;
        }
    if (!patched && nf)
        reason(e, "no remedy kvbudget knows makes it fit");
done:;
    json_t *o = json_pack(
        "{s:s,s:I,s:s,s:s,s:s,s:i,s:s?,s:s,s:s,s:s,s:s,s:I,s:s,s:s,s:o,s:o,"
        "s:o,s:s?}",
        "file", x->file, "document", (json_int_t)st->doc, "kind", st->kind,
        "name", st->name ? st->name : "", "container", cname, "line", e->line,
        "role", st->role, "engine",
        e->engine >= 0 && kvb_engine_name(e->engine)
            ? kvb_engine_name(e->engine)
            : "",
        "engine_version", e->version, "image", image ? image : "", "model",
        e->cmd.model[0] ? e->cmd.model : (st->model_hint ? st->model_hint : ""),
        "gpu_count",
        (json_int_t)(e->gpus < 0 ? 0 : e->gpus) * (st->nodes ? st->nodes : 1),
        "gpu", e->g.found ? e->g.label : "", "verdict",
        e->verdict ? e->verdict : "unknown", "reasons", e->reasons, "plan",
        plan, "fixes", fixes, "patch", patch);
    e->reasons = NULL;
    plan = fixes = NULL;
    if (!o || json_array_append_new(x->deployments, o))
        x->oom = true;
    if (e->g.instance[0] && o)
        json_object_set_new(o, "instance", json_string(e->g.instance));
    if (o)
        json_object_set_new(o, "model_preset",
                            json_string(e->m.name[0] ? e->m.name : ""));
    if (o)
        json_object_set_new(o, "quant",
                            json_string(kvb_quant_method_name(e->q.method)
                                            ? kvb_quant_method_name(e->q.method)
                                            : ""));
done_quiet:
    json_decref(e->reasons);
    json_decref(plan);
    json_decref(fixes);
    free(patch);
    words_free(&e->w);
    env_free(&e->env);
    free(e);
}

/* ---- workloads ---- */

static void containers_of(ctx *x, site *st, yaml_node_t *pod, const char *path,
                          const char *role, size_t *found)
{
    yaml_node_t *cs = kvb__yaml_get(st->d, pod, "containers");
    size_t before = json_array_size(x->deployments);
    for (size_t i = 0; i < kvb__yaml_len(cs); i++) {
        site s = *st;
        s.pod = pod;
        s.pod_path = path;
        s.role = role;
        s.c = kvb__yaml_at(st->d, cs, i);
        s.holder = "containers";
        evaluate(x, &s);
    }
    *found += json_array_size(x->deployments) - before;
}

static uint32_t u32_of(yaml_node_t *n, uint32_t dflt)
{
    const char *s = kvb__yaml_str(n);
    char *end;
    if (!s)
        return dflt;
    unsigned long v = strtoul(s, &end, 10);
    return end != s && !*end && v > 0 && v < 100000 ? (uint32_t)v : dflt;
}

/* production-stack values: servingEngineSpec.modelSpec[] */
static void prodstack(ctx *x, site *base, yaml_node_t *root, size_t *found)
{
    yaml_document_t *d = base->d;
    yaml_node_t *specs = kvb__yaml_path(d, root, "servingEngineSpec.modelSpec");
    for (size_t i = 0; i < kvb__yaml_len(specs); i++) {
        yaml_node_t *m = kvb__yaml_at(d, specs, i);
        yaml_node_t *vc = kvb__yaml_get(d, m, "vllmConfig");
        const char *url = kvb__yaml_str(kvb__yaml_get(d, m, "modelURL"));
        const char *extra[64];
        char buf[32][64];
        size_t n = 0, nb = 0;
        envlist env;
        memset(&env, 0, sizeof env);
        extra[n++] = "--model";
        extra[n++] = url ? url : "";
        static const struct {
            const char *key, *flag;
            bool bare;
        } map[] = {
            {"maxModelLen", "--max-model-len", false},
            {"tensorParallelSize", "--tensor-parallel-size", false},
            {"pipelineParallelSize", "--pipeline-parallel-size", false},
            {"gpuMemoryUtilization", "--gpu-memory-utilization", false},
            {"dtype", "--dtype", false},
            {"maxNumSeqs", "--max-num-seqs", false},
            {"enforceEager", "--enforce-eager", true},
        };
        for (size_t k = 0; k < KVB__ARRAY_LEN(map) && n + 2 < 64; k++) {
            const char *v = kvb__yaml_str(kvb__yaml_get(d, vc, map[k].key));
            if (!v)
                continue;
            if (map[k].bare) {
                if (!strcmp(v, "true"))
                    extra[n++] = map[k].flag;
                continue;
            }
            extra[n++] = map[k].flag;
            snprintf(buf[nb], sizeof buf[nb], "%s", v);
            extra[n++] = buf[nb++];
        }
        const char *v0 = kvb__yaml_str(kvb__yaml_get(d, vc, "v0"));
        if (v0 && !strcmp(v0, "1"))
            env_set(&env, "VLLM_USE_V1", "0");
        site s = *base;
        s.c = m;
        s.kind = "values";
        s.name = kvb__yaml_str(kvb__yaml_get(d, m, "name"));
        s.pod = NULL;
        s.pod_path = "servingEngineSpec.modelSpec";
        s.holder = NULL;
        s.extra = extra;
        s.nextra = n;
        s.extra_env = &env;
        s.model_hint = url;
        s.model_hint_line = kvb__yaml_line(kvb__yaml_get(d, m, "modelURL"));
        s.engine_hint = KVB_ENGINE_VLLM;
        yaml_node_t *rg = kvb__yaml_get(d, m, "requestGPU");
        s.gpu_count = u32_of(rg, 0);
        s.gpu_count_line = kvb__yaml_line(rg);
        s.selector_terms = kvb__yaml_get(d, m, "nodeSelectorTerms");
        /* repository + tag make the image */
        const char *repo = kvb__yaml_str(kvb__yaml_get(d, m, "repository"));
        (void)repo;
        /* extraArgs are read as args */
        yaml_node_t *ea = kvb__yaml_get(d, vc, "extraArgs");
        (void)ea;
        size_t before = json_array_size(x->deployments);
        evaluate(x, &s);
        *found += json_array_size(x->deployments) - before;
        env_free(&env);
    }
}

static void document(ctx *x, size_t index)
{
    yaml_document_t *d = &x->y.docs[index];
    yaml_node_t *root = yaml_document_get_root_node(d);
    site st;
    memset(&st, 0, sizeof st);
    st.doc = index + 1;
    st.d = d;
    st.engine_hint = -1;
    st.gpu_count = -1;
    st.nodes = 1;
    st.api = kvb__yaml_str(kvb__yaml_get(d, root, "apiVersion"));
    st.kind = kvb__yaml_str(kvb__yaml_get(d, root, "kind"));
    st.name = kvb__yaml_str(kvb__yaml_path(d, root, "metadata.name"));
    int line = kvb__yaml_line(root);
    size_t found = 0;
    if (!root || root->type != YAML_MAPPING_NODE)
        return;
    if (!st.kind) {
        if (kvb__yaml_path(d, root, "servingEngineSpec.modelSpec")) {
            prodstack(x, &st, root, &found);
            if (!found)
                add_unknown_kind(x, st.doc, "values", NULL, line,
                                 "production-stack values with no GPU model "
                                 "spec kvbudget can read");
        } else {
            add_unknown_kind(x, st.doc, "", NULL, line,
                             "not a Kubernetes object (no kind) nor "
                             "production-stack values");
        }
        return;
    }
    const char *k = st.kind;
    if (!strcmp(k, "Deployment") || !strcmp(k, "StatefulSet") ||
        !strcmp(k, "DaemonSet") || !strcmp(k, "ReplicaSet") ||
        !strcmp(k, "Job")) {
        containers_of(x, &st, kvb__yaml_path(d, root, "spec.template.spec"),
                      "spec.template.spec", NULL, &found);
    } else if (!strcmp(k, "CronJob")) {
        containers_of(
            x, &st,
            kvb__yaml_path(d, root, "spec.jobTemplate.spec.template.spec"),
            "spec.jobTemplate.spec.template.spec", NULL, &found);
    } else if (!strcmp(k, "Pod")) {
        containers_of(x, &st, kvb__yaml_get(d, root, "spec"), "spec", NULL,
                      &found);
    } else if (!strcmp(k, "LeaderWorkerSet")) {
        yaml_node_t *t = kvb__yaml_path(d, root, "spec.leaderWorkerTemplate");
        st.nodes = u32_of(kvb__yaml_get(d, t, "size"), 1);
        yaml_node_t *leader = kvb__yaml_path(d, t, "leaderTemplate.spec");
        if (leader)
            containers_of(x, &st, leader,
                          "spec.leaderWorkerTemplate.leaderTemplate.spec",
                          "leader", &found);
        containers_of(x, &st, kvb__yaml_path(d, t, "workerTemplate.spec"),
                      "spec.leaderWorkerTemplate.workerTemplate.spec",
                      leader ? "worker" : NULL, &found);
    } else if (!strcmp(k, "InferenceService")) {
        yaml_node_t *pred = kvb__yaml_path(d, root, "spec.predictor");
        yaml_node_t *model = kvb__yaml_get(d, pred, "model");
        if (model) {
            site s = st;
            const char *fmt =
                kvb__yaml_str(kvb__yaml_path(d, model, "modelFormat.name"));
            s.pod = pred;
            s.pod_path = "spec.predictor";
            s.c = model;
            s.holder = "model";
            yaml_node_t *uri = kvb__yaml_get(d, model, "storageUri");
            s.model_hint = kvb__yaml_str(uri);
            s.model_hint_line = kvb__yaml_line(uri);
            if (fmt && !kvb__strcasecmp(fmt, "huggingface")) {
                s.engine_hint = KVB_ENGINE_VLLM;
                s.hf_server = true;
            } else if (fmt && !kvb__strcasecmp(fmt, "vllm")) {
                s.engine_hint = KVB_ENGINE_VLLM;
            }
            if (s.engine_hint >= 0) {
                size_t before = json_array_size(x->deployments);
                evaluate(x, &s);
                found += json_array_size(x->deployments) - before;
            }
        }
        st.model_hint = NULL;
        containers_of(x, &st, pred, "spec.predictor", NULL, &found);
    } else if (!strcmp(k, "ServingRuntime") ||
               !strcmp(k, "ClusterServingRuntime")) {
        containers_of(x, &st, kvb__yaml_get(d, root, "spec"), "spec", NULL,
                      &found);
    } else if (!strcmp(k, "Model") && st.api && strstr(st.api, "kubeai")) {
        yaml_node_t *spec = kvb__yaml_get(d, root, "spec");
        const char *url = kvb__yaml_str(kvb__yaml_get(d, spec, "url"));
        const char *engine = kvb__yaml_str(kvb__yaml_get(d, spec, "engine"));
        yaml_node_t *prof = kvb__yaml_get(d, spec, "resourceProfile");
        const char *pr = kvb__yaml_str(prof);
        char gname[64] = "";
        site s = st;
        s.c = spec;
        s.pod = NULL;
        s.pod_path = "spec";
        s.holder = NULL;
        s.gpu_count = 0;
        s.gpu_count_line = kvb__yaml_line(prof);
        if (pr) {
            const char *colon = strchr(pr, ':');
            const char *g = pr;
            if (!strncmp(g, "nvidia-gpu-", 11))
                g += 11;
            snprintf(gname, sizeof gname, "%.*s",
                     (int)(colon ? (size_t)(colon - g) : strlen(g)), g);
            s.gpu_count = colon ? u32_of(NULL, 1) : 1;
            if (colon) {
                char *end;
                long v = strtol(colon + 1, &end, 10);
                s.gpu_count = end != colon + 1 && v >= 0 ? v : -2;
            }
            if (!strncmp(pr, "cpu", 3))
                s.gpu_count = 0;
            else
                s.gpu_profile = gname;
        }
        char model[512] = "";
        const char *extra[2] = {"--model", model};
        if (url) {
            const char *u = url;
            if (!strncmp(u, "hf://", 5))
                u += 5;
            else if (!strncmp(u, "ollama://", 9))
                u += 9;
            snprintf(model, sizeof model, "%s", u);
        }
        s.model_hint = url ? model : NULL;
        s.model_hint_line = kvb__yaml_line(kvb__yaml_get(d, spec, "url"));
        if (engine && !kvb__strcasecmp(engine, "VLLM")) {
            s.engine_hint = KVB_ENGINE_VLLM;
            s.extra = extra;
            s.nextra = 2;
        } else if (engine && !kvb__strcasecmp(engine, "OLlama")) {
            s.engine_hint = KVB_ENGINE_OLLAMA;
        } else {
            add_unknown_kind(x, st.doc, k, st.name, line,
                             "KubeAI engine is not a text-generation engine "
                             "kvbudget plans");
            return;
        }
        size_t before = json_array_size(x->deployments);
        evaluate(x, &s);
        found += json_array_size(x->deployments) - before;
    } else if (!strcmp(k, "NodePool")) {
        return; /* read with the pods that name it */
    } else {
        char why[160];
        snprintf(why, sizeof why, "kind %s is not understood", k);
        add_unknown_kind(x, st.doc, k, st.name, line, why);
        return;
    }
    if (!found)
        add_unknown_kind(x, st.doc, k, st.name, line,
                         "no serving container (no engine image or engine "
                         "command)");
}

static kvb_status run(ctx *x, const char *text, size_t len, const char *file,
                      const kvb_check_options *options, bool fixing,
                      kvb_error *err)
{
    memset(x, 0, sizeof *x);
    x->fixing = fixing;
    kvb_status st = KVB_CHECK_OPTIONS_INIT(&x->opt);
    if (!st && options)
        st = kvb__struct_in(options, sizeof x->opt, &x->opt, "options", err);
    if (st)
        return st;
    if (x->opt.max_fixes > KVB_ADVICE_MAX)
        return kvb__fail(err, KVB_ERANGE, "options.max_fixes",
                         "options.max_fixes (%u) is out of range; allowed: "
                         "0..%d",
                         x->opt.max_fixes, KVB_ADVICE_MAX);
    x->opt.gpu[sizeof x->opt.gpu - 1] = '\0';
    x->opt.instance[sizeof x->opt.instance - 1] = '\0';
    if (x->opt.gpu[0] &&
        kvb_preset_gpu_find(x->opt.gpu, NULL, NULL) == KVB_ENOTFOUND) {
        kvb_gpu g;
        KVB__CANNOT_FAIL(KVB_GPU_INIT(&g));
        if (kvb_preset_gpu_find(x->opt.gpu, &g, err))
            return KVB_ENOTFOUND;
    }
    if (x->opt.instance[0]) {
        kvb_instance i;
        KVB__CANNOT_FAIL(KVB_INSTANCE_INIT(&i));
        if (kvb_preset_instance_find(x->opt.instance, &i, err))
            return KVB_ENOTFOUND;
    }
    x->text = text;
    x->len = len;
    x->file = file ? file : "-";
    st = kvb__yaml_load(text, len, &x->y, err);
    if (st)
        return st;
    x->deployments = json_array();
    x->not_understood = json_array();
    for (size_t i = 0; i < x->y.n && x->npools < MAX_POOLS; i++) {
        yaml_document_t *d = &x->y.docs[i];
        yaml_node_t *r = yaml_document_get_root_node(d);
        const char *k = kvb__yaml_str(kvb__yaml_get(d, r, "kind"));
        const char *n = kvb__yaml_str(kvb__yaml_path(d, r, "metadata.name"));
        if (k && n && !strcmp(k, "NodePool"))
            x->pools[x->npools++] =
                (pool){n, i + 1, d,
                       kvb__yaml_path(d, r, "spec.template.spec.requirements")};
    }
    for (size_t i = 0; i < x->y.n; i++)
        document(x, i);
    if (x->oom || !x->deployments || !x->not_understood)
        return kvb__fail(err, KVB_ENOMEM, "text", "out of memory");
    return KVB_OK;
}

static void finish(ctx *x)
{
    json_decref(x->deployments);
    json_decref(x->not_understood);
    for (size_t i = 0; i < x->nedits; i++)
        free(x->edits[i].text);
    kvb__yaml_free(&x->y);
}

static kvb_status out_text(const char *s, size_t n, char *buf, size_t cap,
                           size_t *needed, kvb_error *err)
{
    if (needed)
        *needed = n + 1;
    if (cap > 0 && buf) {
        size_t k = n < cap - 1 ? n : cap - 1;
        memcpy(buf, s, k);
        buf[k] = '\0';
    }
    if (n + 1 > cap)
        return kvb__fail(err, KVB_EBUFSIZE, "buf",
                         "buf (%zu bytes) is too small; %zu needed", cap,
                         n + 1);
    return KVB_OK;
}

kvb_status kvb_check_manifest(const char *text, size_t len, const char *file,
                              const kvb_check_options *options, char *buf,
                              size_t cap, size_t *needed, kvb_error *err)
{
    if (!buf && cap)
        return kvb__fail(err, KVB_EINVAL, "buf",
                         "buf is NULL but cap is not 0");
    ctx *x = malloc(sizeof *x);
    if (!x)
        return kvb__fail(err, KVB_ENOMEM, "text", "out of memory");
    kvb_status st = run(x, text, len, file, options, false, err);
    if (!st) {
        json_t *o = json_pack("{s:O,s:O}", "deployments", x->deployments,
                              "not_understood", x->not_understood);
        char *s =
            o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
        json_decref(o);
        if (!s)
            st = kvb__fail(err, KVB_ENOMEM, "text", "out of memory");
        else
            st = out_text(s, strlen(s), buf, cap, needed, err);
        free(s);
    }
    finish(x);
    free(x);
    return st;
}

static int by_start(const void *a, const void *b)
{
    const edit *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

kvb_status kvb_check_fix(const char *text, size_t len,
                         const kvb_check_options *options, char *buf,
                         size_t cap, size_t *needed, uint32_t *changed,
                         kvb_error *err)
{
    if (!buf && cap)
        return kvb__fail(err, KVB_EINVAL, "buf",
                         "buf is NULL but cap is not 0");
    ctx *x = malloc(sizeof *x);
    if (!x)
        return kvb__fail(err, KVB_ENOMEM, "text", "out of memory");
    kvb_status st = run(x, text, len, NULL, options, true, err);
    if (!st) {
        qsort(x->edits, x->nedits, sizeof x->edits[0], by_start);
        strbuf b = {0};
        size_t at = 0;
        sb_add(&b, "", 0);
        for (size_t i = 0; i < x->nedits; i++) {
            sb_add(&b, text + at, x->edits[i].start - at);
            sb_add(&b, x->edits[i].text, strlen(x->edits[i].text));
            at = x->edits[i].end;
        }
        sb_add(&b, text + at, len - at);
        if (b.oom)
            st = kvb__fail(err, KVB_ENOMEM, "text", "out of memory");
        else
            st = out_text(b.p, b.n, buf, cap, needed, err);
        free(b.p);
        if (changed)
            *changed = x->changed;
    }
    finish(x);
    free(x);
    return st;
}
#endif /* KVB_HAVE_YAML */
