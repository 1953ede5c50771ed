/*
 * options.c -- the flags of plan, fix and explain: parsing with units and
 * range checks, and building the library's input structs from them.
 *
 * Ranges come from kvb_field_bounds(), the library's own table, so the
 * command rejects exactly what the library would.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern char **environ; /* POSIX: the program declares it */

enum flag_kind {
    K_JSON,       /* --json */
    K_HELP,       /* --help, -h */
    K_STR,        /* a string kept in cli_opts */
    K_MODEL_U,    /* an unsigned kvb_model field */
    K_MODEL_BOOL, /* a 0/1 kvb_model field */
    K_SERV_U,     /* an unsigned kvb_serving field */
    K_SERV_D,     /* a double kvb_serving field */
    K_SERV_SIZE,  /* a kvb_serving byte count, with units */
    K_SERV_FLAG,  /* a kvb_serving field set to 1 by the bare flag */
    K_GPU_MEM,    /* --gpu-memory */
    K_GPUS,       /* --gpus */
    K_GPU_FREE,   /* --gpu-free */
    K_ASSUME,     /* --assume-llama */
    K_CACHE,      /* --cache */
};

typedef struct flag {
    const char *name;  /* "--max-model-len" */
    const char *alias; /* "-tp", or NULL */
    int kind;
    size_t offset;     /* into cli_opts (K_STR), kvb_model or kvb_serving */
    size_t size;       /* of the field */
    int index;         /* in model_set / serving_set */
    const char *field; /* the library's dotted name, for bounds */
} flag;

#define OPT(n, a, member)                                                      \
    {                                                                          \
        n, a, K_STR, offsetof(cli_opts, member), 0, -1, NULL                   \
    }
#define MU(n, f, i)                                                            \
    {                                                                          \
        n, NULL, K_MODEL_U, offsetof(kvb_model, f),                            \
            sizeof(((kvb_model *)0)->f), i, "model." #f                        \
    }
#define SU(n, a, f, i)                                                         \
    {                                                                          \
        n, a, K_SERV_U, offsetof(kvb_serving, f),                              \
            sizeof(((kvb_serving *)0)->f), i, "serving." #f                    \
    }

static const flag flags[] = {
    {"--json", NULL, K_JSON, 0, 0, -1, NULL},
    {"--help", "-h", K_HELP, 0, 0, -1, NULL},
    {"--assume-llama", NULL, K_ASSUME, 0, 0, -1, NULL},
    {"--cache", NULL, K_CACHE, 0, 0, -1, NULL},
    OPT("--model", "-m", model),
    OPT("--arch", NULL, arch),
    OPT("--quant", "--quantization", quant),
    OPT("--kv-cache-dtype", NULL, kv_cache_dtype),
    OPT("--dtype", NULL, dtype),
    OPT("--gpu", NULL, gpu),
    OPT("--instance", NULL, instance),
    OPT("--engine", NULL, engine),
    OPT("--cloud", NULL, cloud),
    OPT("--max-price", NULL, max_price),
    OPT("--manifest", NULL, manifest),
    {"--gpu-memory", NULL, K_GPU_MEM, 0, 0, -1, "gpu.total_bytes"},
    {"--gpus", NULL, K_GPUS, 0, 0, -1, "gpu.count"},
    {"--gpu-free", NULL, K_GPU_FREE, 0, 0, -1, "gpu.free_bytes"},
    MU("--hidden-size", hidden_size, 0),
    MU("--num-hidden-layers", num_hidden_layers, 1),
    MU("--num-attention-heads", num_attention_heads, 2),
    MU("--num-key-value-heads", num_key_value_heads, 3),
    MU("--head-dim", head_dim, 4),
    MU("--intermediate-size", intermediate_size, 5),
    MU("--vocab-size", vocab_size, 6),
    {"--tie-word-embeddings", NULL, K_MODEL_BOOL,
     offsetof(kvb_model, tie_word_embeddings), sizeof(uint32_t), 7,
     "model.tie_word_embeddings"},
    MU("--max-position-embeddings", max_position_embeddings, 8),
    MU("--num-experts", num_experts, 9),
    MU("--num-local-experts", num_experts, 9),
    MU("--num-experts-per-tok", num_experts_per_tok, 10),
    MU("--moe-intermediate-size", moe_intermediate_size, 11),
    MU("--num-shared-experts", num_shared_experts, 12),
    MU("--shared-expert-intermediate-size", shared_expert_intermediate_size,
       13),
    MU("--first-k-dense-replace", first_k_dense_replace, 14),
    MU("--kv-lora-rank", kv_lora_rank, 15),
    MU("--q-lora-rank", q_lora_rank, 16),
    MU("--qk-rope-head-dim", qk_rope_head_dim, 17),
    MU("--qk-nope-head-dim", qk_nope_head_dim, 18),
    MU("--v-head-dim", v_head_dim, 19),
    MU("--sliding-window", sliding_window, 20),
    {"--gpu-memory-utilization", NULL, K_SERV_D,
     offsetof(kvb_serving, gpu_memory_utilization), sizeof(double), 0,
     "serving.gpu_memory_utilization"},
    SU("--max-model-len", "--context", max_model_len, 1),
    SU("--tensor-parallel-size", "-tp", tensor_parallel_size, 2),
    SU("--pipeline-parallel-size", "-pp", pipeline_parallel_size, 3),
    SU("--block-size", NULL, block_size, 4),
    {"--enforce-eager", NULL, K_SERV_FLAG, offsetof(kvb_serving, enforce_eager),
     sizeof(uint32_t), 5, "serving.enforce_eager"},
    SU("--max-num-seqs", NULL, max_num_seqs, 6),
    SU("--max-num-batched-tokens", NULL, max_num_batched_tokens, 7),
    SU("--concurrency", NULL, concurrency, 8),
    {"--kv-cache-memory", NULL, K_SERV_SIZE,
     offsetof(kvb_serving, kv_cache_memory_bytes), sizeof(uint64_t), 9,
     "serving.kv_cache_memory_bytes"},
};

#define N_FLAGS (sizeof flags / sizeof flags[0])

const char *cli_flag_for_field(const char *field)
{
    static const struct {
        const char *field, *flag;
    } extra[] = {
        {"model", "--model"},
        {"model.arch", "--arch"},
        {"quant.method", "--quant"},
        {"quant.dtype", "--dtype"},
        {"quant.kv_cache_dtype", "--kv-cache-dtype"},
        {"gpu", "--gpu"},
        {"instance", "--instance"},
        {"serving.engine", "--engine"},
        {"serving.engine_version", "--engine"},
    };
    if (!field)
        return NULL;
    for (size_t i = 0; i < N_FLAGS; i++)
        if (flags[i].field && strcmp(flags[i].field, field) == 0)
            return flags[i].name;
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
        if (strcmp(extra[i].field, field) == 0)
            return extra[i].flag;
    if (strncmp(field, "model.", 6) == 0)
        return "--model";
    return NULL;
}

/* ---- values ---- */

static int bad(const char *cmd, const char *name, const char *text,
               const char *problem)
{
    cli_error(cmd, "%s (%s) %s", name, text, problem);
    return CLI_EXIT_USAGE;
}

static int check_bounds(const char *cmd, const flag *f, const char *text,
                        double v)
{
    double lo, hi;
    if (!f->field || kvb_field_bounds(f->field, &lo, &hi, NULL) != KVB_OK)
        return 0;
    if (v >= lo && v <= hi)
        return 0;
    bool whole = lo == floor(lo) && hi == floor(hi);
    bool bytes =
        f->kind == K_SERV_SIZE || f->kind == K_GPU_MEM || f->kind == K_GPU_FREE;
    if (whole)
        cli_error(cmd, "%s (%s) is out of range; allowed: %.0f..%.0f%s",
                  f->name, text, lo, hi, bytes ? " bytes" : "");
    else
        cli_error(cmd, "%s (%s) is out of range; allowed: %g..%g", f->name,
                  text, lo, hi);
    return CLI_EXIT_USAGE;
}

/* Length of the decimal number at the start of text: digits, then
 * optionally '.' and digits; 0 if text does not start with a digit.  One
 * syntax for every number the command reads (no sign, exponent, hex,
 * inf or nan: strtod would take "0x18" and "0x1p-1"). */
static size_t decimal_len(const char *text)
{
    size_t n = 0;
    while (isdigit((unsigned char)text[n]))
        n++;
    if (n && text[n] == '.' && isdigit((unsigned char)text[n + 1])) {
        n++;
        while (isdigit((unsigned char)text[n]))
            n++;
    }
    return n;
}

/* An unsigned count, with vLLM's suffixes: k = 1000, K = 1024, m, M. */
static int parse_count(const char *cmd, const char *name, const char *text,
                       uint64_t *out)
{
    if (!*text)
        return bad(cmd, name, text, "is empty; allowed: a whole number");
    if (*text == '-')
        return bad(cmd, name, text, "must not be negative");
    if (!isdigit((unsigned char)*text))
        return bad(cmd, name, text, "is not a whole number");
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    uint64_t mult = 1;
    if (*end && !end[1] && strchr("kKmM", *end)) {
        mult = *end == 'k'   ? 1000
               : *end == 'K' ? 1024
               : *end == 'm' ? 1000000
                             : 1048576;
        end++;
    }
    if (*end)
        return bad(cmd, name, text, "is not a whole number");
    if (errno == ERANGE || v > UINT64_MAX / mult)
        return bad(cmd, name, text, "is too large");
    *out = (uint64_t)v * mult;
    return 0;
}

static int parse_real(const char *cmd, const char *name, const char *text,
                      double *out)
{
    if (*text == '-')
        return bad(cmd, name, text, "must not be negative");
    size_t n = decimal_len(text);
    if (!n || text[n])
        return bad(cmd, name, text,
                   "is not a decimal number; allowed: digits with an "
                   "optional fraction, such as 0.9");
    *out = strtod(text, NULL);
    return 0;
}

/* The multiplier of a size unit: B, K/KB/KiB ... T/TB/TiB; 0 if unknown. */
static double size_unit(const char *u)
{
    static const char letters[] = "KMGT";
    if (!*u || !strcmp(u, "B") || !strcmp(u, "b"))
        return 1;
    const char *l = strchr(letters, toupper((unsigned char)u[0]));
    if (!l)
        return 0;
    int power = (int)(l - letters) + 1;
    const char *rest = u + 1;
    if (!*rest || !strcmp(rest, "iB") || !strcmp(rest, "ib"))
        return pow(1024, power);
    if (!strcmp(rest, "B") || !strcmp(rest, "b"))
        return pow(1000, power);
    return 0;
}

static int parse_size(const char *cmd, const char *name, const char *text,
                      uint64_t *out)
{
    if (*text == '-')
        return bad(cmd, name, text, "must not be negative");
    size_t n = decimal_len(text);
    if (!n)
        return bad(cmd, name, text,
                   "is not a size; allowed: bytes or a decimal number with "
                   "a unit (24GiB, 80GB, 1.5TiB)");
    double v = strtod(text, NULL);
    double mult = size_unit(text + n);
    if (mult == 0)
        return bad(cmd, name, text,
                   "has an unknown unit; allowed: a decimal number and B, "
                   "KiB, MiB, GiB, TiB, KB, MB, GB, TB (K, M, G, T mean "
                   "KiB ... TiB)");
    double bytes = v * mult;
    if (bytes >= 18446744073709551615.0)
        return bad(cmd, name, text, "is too large");
    *out = (uint64_t)llround(bytes);
    return 0;
}

static int parse_bool(const char *cmd, const char *name, const char *text,
                      uint32_t *out)
{
    if (!strcmp(text, "1") || !strcmp(text, "true") || !strcmp(text, "True"))
        *out = 1;
    else if (!strcmp(text, "0") || !strcmp(text, "false") ||
             !strcmp(text, "False"))
        *out = 0;
    else
        return bad(cmd, name, text, "is not a boolean; allowed: true, false");
    return 0;
}

static void store(void *base, const flag *f, uint64_t v)
{
    unsigned char *p = (unsigned char *)base + f->offset;
    if (f->size == sizeof(uint32_t)) {
        uint32_t v32 = (uint32_t)v;
        memcpy(p, &v32, sizeof v32);
    } else {
        memcpy(p, &v, sizeof v);
    }
}

static int set_unsigned(const char *cmd, const flag *f, const char *text,
                        void *base, bool *set)
{
    uint64_t v;
    int rc = f->kind == K_SERV_SIZE ? parse_size(cmd, f->name, text, &v)
                                    : parse_count(cmd, f->name, text, &v);
    if (!rc && v == 0 && f->kind == K_SERV_U &&
        f->offset == offsetof(kvb_serving, max_model_len))
        rc = bad(cmd, f->name, text,
                 "is out of range; allowed: 1 or more; omit the flag for "
                 "the default (the model's max_position_embeddings)");
    if (!rc)
        rc = check_bounds(cmd, f, text, (double)v);
    if (!rc && f->size == sizeof(uint32_t) && v > UINT32_MAX)
        rc = bad(cmd, f->name, text, "is too large");
    if (rc)
        return rc;
    store(base, f, v);
    set[f->index] = true;
    return 0;
}

/* Set one flag from its text value. */
static int set_value(const char *cmd, const flag *f, const char *text,
                     cli_opts *o)
{
    uint32_t b;
    double d;
    int rc;
    switch (f->kind) {
    case K_STR:
        if (!*text)
            return bad(cmd, f->name, text, "is empty");
        memcpy((char *)o + f->offset, &text, sizeof text);
        return 0;
    case K_MODEL_U:
        return set_unsigned(cmd, f, text, &o->model_flags, o->model_set);
    case K_MODEL_BOOL:
        if ((rc = parse_bool(cmd, f->name, text, &b)))
            return rc;
        store(&o->model_flags, f, b);
        o->model_set[f->index] = true;
        return 0;
    case K_SERV_U:
    case K_SERV_SIZE:
        return set_unsigned(cmd, f, text, &o->serving_flags, o->serving_set);
    case K_SERV_D:
        if ((rc = parse_real(cmd, f->name, text, &d)))
            return rc;
        if (d == 0) /* the library's 0 means "the engine's default" */
            return bad(cmd, f->name, text,
                       "is out of range; allowed: (0, 1], above 0 and at "
                       "most 1; omit the flag for the engine's default");
        if ((rc = check_bounds(cmd, f, text, d)))
            return rc;
        o->serving_flags.gpu_memory_utilization = d;
        o->serving_set[f->index] = true;
        return 0;
    case K_GPU_MEM:
        if ((rc = parse_size(cmd, f->name, text, &o->gpu_memory)) ||
            (rc = check_bounds(cmd, f, text, (double)o->gpu_memory)))
            return rc;
        o->gpu_memory_set = true;
        return 0;
    case K_GPU_FREE:
        if ((rc = parse_size(cmd, f->name, text, &o->gpu_free)) ||
            (rc = check_bounds(cmd, f, text, (double)o->gpu_free)))
            return rc;
        o->gpu_free_set = true;
        return 0;
    default: { /* K_GPUS */
        uint64_t v;
        if ((rc = parse_count(cmd, f->name, text, &v)) ||
            (rc = check_bounds(cmd, f, text, (double)v)))
            return rc;
        o->gpus = (uint32_t)v;
        o->gpus_set = true;
        return 0;
    }
    }
}

static const flag *find_flag(const char *name, size_t len)
{
    for (size_t i = 0; i < N_FLAGS; i++) {
        const char *a = flags[i].alias;
        if ((strlen(flags[i].name) == len &&
             !strncmp(flags[i].name, name, len)) ||
            (a && strlen(a) == len && !strncmp(a, name, len)))
            return &flags[i];
    }
    return NULL;
}

static bool takes_value(const flag *f)
{
    return f->kind != K_JSON && f->kind != K_HELP && f->kind != K_SERV_FLAG &&
           f->kind != K_ASSUME && f->kind != K_CACHE;
}

/* One flag at argv[*i] ("--name value" or "--name=value"). */
static int parse_flag(const char *cmd, int argc, char **argv, int *i,
                      cli_opts *o)
{
    const char *a = argv[*i], *eq = strchr(a, '=');
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    const flag *f = find_flag(a, len);
    if (!f) {
        /* an engine's own flag: kept with the word after it (its value,
         * unless that is a flag too) for kvb_command_read */
        if (o->nengine_words + 2 > CLI_MAX_ENGINE_WORDS) {
            cli_error(cmd, "too many engine flags (at %s)", a);
            return CLI_EXIT_USAGE;
        }
        o->engine_words[o->nengine_words++] = a;
        if (!eq && *i + 1 < argc && argv[*i + 1][0] != '-')
            o->engine_words[o->nengine_words++] = argv[++*i];
        return 0;
    }
    if (!takes_value(f)) {
        if (eq) {
            cli_error(cmd, "%s takes no value", f->name);
            return CLI_EXIT_USAGE;
        }
        if (f->kind == K_JSON)
            o->json = true;
        else if (f->kind == K_HELP)
            o->help = true;
        else if (f->kind == K_ASSUME)
            o->assume_llama = true;
        else if (f->kind == K_CACHE)
            o->cache = true;
        else {
            o->serving_flags.enforce_eager = 1;
            o->serving_set[f->index] = true;
        }
        return 0;
    }
    const char *value = eq ? eq + 1 : NULL;
    if (!value) {
        if (*i + 1 >= argc) {
            cli_error(cmd, "%s needs a value", f->name);
            return CLI_EXIT_USAGE;
        }
        value = argv[++*i];
    }
    return set_value(cmd, f, value, o);
}

int cli_parse(const char *cmd, int argc, char **argv, cli_opts *o)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    if (KVB_MODEL_INIT(&o->model_flags) || KVB_SERVING_INIT(&o->serving_flags))
        return CLI_EXIT_USAGE;
    bool rest = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!rest && !strcmp(a, "--")) {
            rest = true;
        } else if (rest) {
            if (o->ncommand == CLI_MAX_ENGINE_WORDS) {
                cli_error(cmd, "the command after -- has more than %d words",
                          CLI_MAX_ENGINE_WORDS);
                return CLI_EXIT_USAGE;
            }
            o->command[o->ncommand++] = a;
        } else if (a[0] == '-' && a[1]) {
            int rc = parse_flag(cmd, argc, argv, &i, o);
            if (rc)
                return rc;
        } else if (o->npositional < CLI_MAX_POSITIONAL) {
            o->positional[o->npositional++] = a;
        } else {
            cli_error(cmd, "too many arguments (%s)", a);
            return CLI_EXIT_USAGE;
        }
    }
    return 0;
}

/* ---- building the inputs ---- */

void cli_inputs_init(cli_inputs *in)
{
    memset(in, 0, sizeof *in);
    kvb_status st = KVB_MODEL_INIT(&in->model);
    st |= KVB_QUANT_INIT(&in->quant);
    st |= KVB_GPU_INIT(&in->gpu);
    st |= KVB_SERVING_INIT(&in->serving);
    st |= KVB_READ_INFO_INIT(&in->read);
    st |= KVB_COMMAND_INIT(&in->command);
    st |= KVB_REF_INFO_INIT(&in->where);
    (void)st; /* our own sizeof: these cannot fail */
}

static int apply_model(const cli_opts *o, cli_inputs *in)
{
    bool any_arch = false;
    for (int i = 0; i < CLI_MODEL_FLAGS; i++)
        any_arch |= o->model_set[i];
    if (o->model) {
        int rc = cli_model_load(o, in);
        if (rc)
            return rc;
        in->have_model = true;
    }
    if (o->arch) {
        kvb_error e = KVB_ERROR_INIT;
        if (kvb_arch_find(o->arch, &in->model.arch, &e))
            return cli_lib_error(o->cmd, &e);
    }
    for (size_t i = 0; i < N_FLAGS; i++) {
        const flag *f = &flags[i];
        if ((f->kind == K_MODEL_U || f->kind == K_MODEL_BOOL) &&
            o->model_set[f->index])
            memcpy((char *)&in->model + f->offset,
                   (const char *)&o->model_flags + f->offset, f->size);
    }
    if (any_arch) {
        if (!in->have_model)
            snprintf(in->model.name, sizeof in->model.name, "custom");
        snprintf(in->model_source, sizeof in->model_source, "%s",
                 in->have_model ? "preset+flags" : "flags");
        in->have_model = true;
    }
    return 0;
}

static int apply_quant(const cli_opts *o, cli_inputs *in)
{
    kvb_error e = KVB_ERROR_INIT;
    /* --quant auto: what the checkpoint stores (already in in->quant). */
    int32_t read = in->quant.method;
    if (o->quant && strcmp(o->quant, "auto") != 0 &&
        kvb_quant_method_find(o->quant, &in->quant.method, &e))
        return cli_lib_error(o->cmd, &e);
    /* another format than the checkpoint's: its exclusion list
     * (quant.keep_roles) was about the checkpoint that was read */
    if (in->quant.method != read)
        in->quant.keep_roles = 0;
    if (o->dtype && (kvb_dtype_find(o->dtype, &in->quant.dtype, &e) ||
                     in->quant.dtype == KVB_DTYPE_FP8)) {
        cli_error(o->cmd,
                  "--dtype (%s) is not an activation dtype; allowed: "
                  "auto, fp16, bf16, fp32",
                  o->dtype);
        return CLI_EXIT_USAGE;
    }
    if (o->kv_cache_dtype) {
        const char *k = o->kv_cache_dtype;
        if (!strncmp(k, "fp8", 3))
            in->quant.kv_cache_dtype = KVB_DTYPE_FP8;
        else if (kvb_dtype_find(k, &in->quant.kv_cache_dtype, &e)) {
            cli_error(o->cmd,
                      "--kv-cache-dtype (%s) is not known; allowed: "
                      "auto, fp8, fp16, bf16, fp32",
                      k);
            return CLI_EXIT_USAGE;
        }
    }
    return 0;
}

/* --gpu probe[:COUNT]: the first GPU the CUDA driver reports, with
 * COUNT (default: all visible) of them. */
static int apply_gpu_probe(const cli_opts *o, cli_inputs *in, uint64_t count,
                           bool counted)
{
    uint32_t visible = 0;
    kvb_device d;
    kvb_error e = KVB_ERROR_INIT;
    kvb_status st = KVB_DEVICE_INIT(&d);
    if (!st)
        st = kvb_probe_count(&visible, &e);
    if (!st)
        st = kvb_probe_device(0, &d, &e);
    if (!st)
        st = kvb_device_gpu(&d, &in->gpu, &e);
    if (st) {
        cli_error(o->cmd, "--gpu probe: %s",
                  e.message[0] ? e.message : kvb_strerror(st));
        return CLI_EXIT_USAGE;
    }
    if (counted && count > visible) {
        cli_error(o->cmd, "--gpu probe:%llu: only %u GPUs are visible",
                  (unsigned long long)count, visible);
        return CLI_EXIT_USAGE;
    }
    in->gpu.count = counted ? (uint32_t)count : visible;
    snprintf(in->gpu_label, sizeof in->gpu_label, "%s (probed)", in->gpu.name);
    return 0;
}

/* --gpu NAME[:COUNT] */
static int apply_gpu_name(const cli_opts *o, cli_inputs *in)
{
    char name[96];
    snprintf(name, sizeof name, "%s", o->gpu);
    char *colon = strrchr(name, ':');
    /* without :COUNT, keep a count already known (explain: the log's
     * TP x PP), else 1 */
    uint64_t count = in->gpu.count ? in->gpu.count : 1;
    if (colon) {
        *colon = '\0';
        const flag *f = find_flag("--gpus", 6);
        if (parse_count(o->cmd, "--gpu", colon + 1, &count) ||
            check_bounds(o->cmd, f, colon + 1, (double)count))
            return CLI_EXIT_USAGE;
    }
    if (!strcmp(name, "probe"))
        return apply_gpu_probe(o, in, count, colon != NULL);
    kvb_error e = KVB_ERROR_INIT;
    if (kvb_preset_gpu_find(name, &in->gpu, &e))
        return cli_lib_error(o->cmd, &e);
    in->gpu.count = (uint32_t)count;
    snprintf(in->gpu_label, sizeof in->gpu_label, "%s", in->gpu.name);
    return 0;
}

/* --cloud and --max-price: limits of the instance remedies. */
static int apply_market(const cli_opts *o, cli_inputs *in)
{
    if (o->cloud) {
        static const char *const clouds[] = {"aws", "gcp", "azure"};
        size_t i = 0;
        while (i < 3 && strcmp(o->cloud, clouds[i]) != 0)
            i++;
        if (i == 3) {
            cli_error(o->cmd,
                      "--cloud (%s) is not a cloud; allowed: aws, "
                      "gcp, azure",
                      o->cloud);
            return CLI_EXIT_USAGE;
        }
        snprintf(in->cloud, sizeof in->cloud, "%s", o->cloud);
    }
    if (o->max_price) {
        char *end = NULL;
        const char *p = o->max_price + (o->max_price[0] == '$');
        double v = strtod(p, &end);
        if (end == p || *end || !(v > 0.0 && v < 1e6)) {
            cli_error(o->cmd,
                      "--max-price (%s) is not a price; allowed: "
                      "USD per hour above 0, e.g. 12.5",
                      o->max_price);
            return CLI_EXIT_USAGE;
        }
        in->max_price = v;
    }
    return 0;
}

static int apply_gpu(const cli_opts *o, cli_inputs *in)
{
    if (apply_market(o, in))
        return CLI_EXIT_USAGE;
    int given = !!o->gpu + !!o->instance + o->gpu_memory_set;
    if (given > 1) {
        cli_error(o->cmd, "--gpu, --gpu-memory and --instance are "
                          "alternatives; give one");
        return CLI_EXIT_USAGE;
    }
    kvb_error e = KVB_ERROR_INIT;
    if (o->gpu && apply_gpu_name(o, in))
        return CLI_EXIT_USAGE;
    if (o->instance) {
        kvb_instance inst;
        if (KVB_INSTANCE_INIT(&inst) ||
            kvb_preset_instance_find(o->instance, &inst, &e) ||
            kvb_instance_gpu(&inst, &in->gpu, &e))
            return cli_lib_error(o->cmd, &e);
        snprintf(in->instance, sizeof in->instance, "%s", inst.name);
        snprintf(in->gpu_label, sizeof in->gpu_label, "%s", in->gpu.name);
    }
    if (o->gpu_memory_set) {
        kvb_gpu g;
        if (KVB_GPU_INIT(&g))
            return CLI_EXIT_USAGE;
        g.total_bytes = o->gpu_memory;
        in->gpu = g;
        snprintf(in->gpu_label, sizeof in->gpu_label, "%.2f GiB GPU",
                 (double)o->gpu_memory / 1073741824.0);
    }
    if (o->gpus_set)
        in->gpu.count = o->gpus;
    /* Free memory at start-up (another process, a vGPU profile): used
     * where the release's rule reads it (docs/model.md section 4). */
    if (o->gpu_free_set) {
        if (given && o->gpu_free > in->gpu.total_bytes) {
            cli_error(o->cmd,
                      "--gpu-free (%.2f GiB) is more than the GPU's total "
                      "(%.2f GiB)",
                      (double)o->gpu_free / 1073741824.0,
                      (double)in->gpu.total_bytes / 1073741824.0);
            return CLI_EXIT_USAGE;
        }
        in->gpu.free_bytes = o->gpu_free;
    }
    if (given)
        in->have_gpu = true;
    return 0;
}

/* The engine's own variables in kvbudget's environment (OLLAMA_*,
 * VLLM_*, LLAMA_ARG_*): with --engine, the engine runs here under this
 * environment (an Ollama server reads OLLAMA_NUM_PARALLEL ... from it,
 * envconfig/config.go), so the plan reads it too.  Names without an
 * engine prefix (TGI's DTYPE, MAX_TOTAL_TOKENS) are too generic to be
 * meant for the engine and are left out. */
#define CLI_MAX_ENV 64
static void engine_env(const char **out, size_t cap)
{
    static const char *const prefixes[] = {"OLLAMA_", "VLLM_", "LLAMA_ARG_"};
    size_t n = 0;
    for (char **v = environ; v && *v && n + 1 < cap; v++)
        for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++)
            if (!strncmp(*v, prefixes[k], strlen(prefixes[k]))) {
                out[n++] = *v;
                break;
            }
    out[n] = NULL;
}

/* The engine's command line after `--`, then the engine's own flags
 * given to kvbudget (and, with --engine, its variables in this
 * environment), through the engine's flag table. */
static int apply_engine_words(const cli_opts *o, cli_inputs *in)
{
    kvb_error e = KVB_ERROR_INIT;
    const char *env[CLI_MAX_ENV];
    env[0] = NULL;
    if (o->engine && !o->ncommand)
        engine_env(env, CLI_MAX_ENV);
    if (env[0] && !o->nengine_words) {
        kvb_command none;
        const char *no_words[1] = {NULL};
        if (KVB_COMMAND_INIT(&none) ||
            kvb_command_read(0, no_words, env, in->serving.engine, &none,
                             &in->serving, &e))
            return cli_lib_error(o->cmd, &e);
    }
    if (o->ncommand) {
        if (kvb_command_read((size_t)o->ncommand, o->command, NULL, -1,
                             &in->command, &in->serving, &e))
            return cli_lib_error(o->cmd, &e);
        in->have_command = true;
    }
    if (o->nengine_words) {
        kvb_command words;
        if (KVB_COMMAND_INIT(&words))
            return CLI_EXIT_USAGE;
        if (kvb_command_read((size_t)o->nengine_words, o->engine_words, env,
                             in->serving.engine, &words, &in->serving, &e)) {
            /* neither kvbudget's flag nor the engine's */
            const char *m = e.message;
            if (!strncmp(m, "command: ", 9))
                m += 9;
            cli_error(o->cmd, "%s; see `kvbudget %s --help`", m, o->cmd);
            return CLI_EXIT_USAGE;
        }
        if (!in->have_command)
            in->command = words;
        in->have_command = true;
    }
    return 0;
}

static int apply_serving(const cli_opts *o, cli_inputs *in)
{
    for (size_t i = 0; i < N_FLAGS; i++) {
        const flag *f = &flags[i];
        bool serving = f->kind == K_SERV_U || f->kind == K_SERV_D ||
                       f->kind == K_SERV_SIZE || f->kind == K_SERV_FLAG;
        if (serving && o->serving_set[f->index])
            memcpy((char *)&in->serving + f->offset,
                   (const char *)&o->serving_flags + f->offset, f->size);
    }
    return 0;
}

/* What the engine's command line names fills what kvbudget's own flags
 * leave unset (kvbudget's flags win). */
static void from_command(const cli_inputs *in, cli_opts *eff)
{
    const kvb_command *c = &in->command;
    if (!in->have_command)
        return;
    if (!eff->model && c->model[0])
        eff->model = c->model;
    if (!eff->quant && c->quantization[0])
        eff->quant = c->quantization;
    if (!eff->dtype && c->dtype[0])
        eff->dtype = c->dtype;
    if (!eff->kv_cache_dtype && c->kv_cache_dtype[0])
        eff->kv_cache_dtype = c->kv_cache_dtype;
}

int cli_inputs_apply(const cli_opts *o, cli_inputs *in)
{
    if (o->engine) {
        kvb_error e = KVB_ERROR_INIT;
        if (kvb_serving_engine_set(&in->serving, o->engine, &e))
            return cli_lib_error(o->cmd, &e);
    }
    int rc = apply_engine_words(o, in);
    if (rc)
        return rc;
    cli_opts eff = *o;
    from_command(in, &eff);
    o = &eff;
    rc = apply_model(o, in);
    if (!rc)
        rc = apply_quant(o, in);
    if (!rc)
        rc = apply_gpu(o, in);
    if (!rc)
        rc = apply_serving(o, in);
    return rc;
}

int cli_inputs_require(const cli_opts *o, const cli_inputs *in)
{
    if (!in->have_model) {
        cli_error(o->cmd, "--model is required: a preset from `kvbudget list "
                          "models`, a model file, or the architecture flags "
                          "(--hidden-size ...)");
        return CLI_EXIT_USAGE;
    }
    if (!in->have_gpu) {
        cli_error(o->cmd, "a GPU is required: --gpu NAME[:COUNT], "
                          "--gpu-memory SIZE [--gpus N], or --instance NAME");
        return CLI_EXIT_USAGE;
    }
    return 0;
}

void cli_print_input_help(FILE *out)
{
    fputs(
        "Model:\n"
        "  --model NAME|PATH        a preset (`kvbudget list models`, HF names "
        "work)\n"
        "                           or a config.json / model directory / "
        ".gguf\n"
        "                           or ORG/REPO[@REV][:QUANT], hf://..., "
        "ollama://NAME[:TAG]\n"
        "                           (HF cache, then the Hub; headers only)\n"
        "  --cache                  store the Hub's config.json and index in "
        "the HF cache\n"
        "  --arch NAME              family for architecture flags (llama, "
        "qwen2...)\n"
        "  --hidden-size N --num-hidden-layers N --num-attention-heads N\n"
        "  --num-key-value-heads N --head-dim N --intermediate-size N\n"
        "  --vocab-size N --tie-word-embeddings true|false\n"
        "  --max-position-embeddings N --num-experts N --num-experts-per-tok "
        "N\n"
        "  --moe-intermediate-size N --num-shared-experts N\n"
        "  --shared-expert-intermediate-size N --first-k-dense-replace N\n"
        "  --kv-lora-rank N --q-lora-rank N --qk-rope-head-dim N\n"
        "  --qk-nope-head-dim N --v-head-dim N --sliding-window N\n"
        "                           Hugging Face config keys; with --model "
        "they\n"
        "                           override the preset's fields\n"
        "  --assume-llama           read a config.json of an unknown "
        "model_type as\n"
        "                           a Llama-shaped decoder (refused without "
        "it)\n"
        "  --quant METHOD           fp16 bf16 fp32 fp8 gptq-8 gptq-4 awq-4 "
        "q8_0\n"
        "                           q6_k q5_k_m q4_k_m q4_0 bnb-4 mxfp4\n"
        "  --dtype DTYPE            activation dtype (auto, fp16, bf16, "
        "fp32)\n"
        "  --kv-cache-dtype DTYPE   auto, fp8, fp16, bf16, fp32\n"
        "GPU (one of):\n"
        "  --gpu NAME[:COUNT]       a GPU preset (`kvbudget list gpus`), or "
        "probe[:COUNT]\n"
        "                           for this machine's GPUs (CUDA driver)\n"
        "  --gpu-memory SIZE        per-GPU total as CUDA reports it: 24GiB, "
        "80GB\n"
        "  --gpus COUNT             GPUs available (with --gpu-memory or "
        "--gpu)\n"
        "  --gpu-free SIZE          free per GPU when the engine starts "
        "(other\n"
        "                           processes, vGPU); default total - CUDA "
        "context\n"
        "  --instance NAME          a cloud instance (`kvbudget list "
        "instances`)\n"
        "Serving (as vLLM names them):\n"
        "  --gpu-memory-utilization F   (0, 1]; default 0.92 (0.9 before "
        "vLLM 0.21)\n"
        "  --max-model-len N        tokens; default the model's maximum; 32k "
        "= 32000,\n"
        "                           32K = 32768\n"
        "  --tensor-parallel-size, -tp N   --pipeline-parallel-size, -pp N\n"
        "  --block-size N  --enforce-eager  --max-num-seqs N\n"
        "  --max-num-batched-tokens N  --kv-cache-memory SIZE\n"
        "  --concurrency N          requests at max-model-len that must fit; "
        "1\n"
        "  --engine NAME[@VERSION]  vllm (vllm@0.11, vllm-v0@0.8.3), sglang,\n"
        "                           llama.cpp, ollama, trtllm, tgi "
        "(docs/engines.md)\n"
        "  an engine's own flags    --mem-fraction-static 0.8, -ngl 99, "
        "-np 4 ...\n"
        "  -- COMMAND...            the engine's whole command line: -- vllm "
        "serve M ...\n"
        "Output:\n"
        "  --json                   one JSON object, sizes in bytes\n",
        out);
}
