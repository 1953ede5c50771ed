/*
 * cmd_probe.c -- `kvbudget probe` and `kvbudget validate`.
 *
 * probe:    the GPUs of this machine as CUDA reports them.
 * validate: plan for a GPU, really allocate what the plan says, and
 *           compare (docs/validation.md).
 *
 * A front end over the public API only.  Exit status: 0 ok / valid,
 * 1 no GPU or validation failed, 2 usage error.
 */
#include <kvbudget.h>

#include <jansson.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kvb_cli_probe(int argc, char **argv);
int kvb_cli_validate(int argc, char **argv);

#define GIB(b) ((double)(b) / 1073741824.0) /* display only */
#define MIB(b) ((double)(b) / 1048576.0)    /* display only */

enum { EXIT_OK = 0, EXIT_NO = 1, EXIT_USAGE = 2 };

/* ---- shared helpers ---- */

static bool is_opt(const char *arg, const char *name)
{
    return strcmp(arg, name) == 0;
}

/* "kvbudget CMD: WHAT 'VALUE'" and a pointer to --help; exit status 2. */
static int usage_error(const char *cmd, const char *what, const char *value)
{
    if (value)
        fprintf(stderr, "kvbudget %s: %s '%s'\n", cmd, what, value);
    else
        fprintf(stderr, "kvbudget %s: %s\n", cmd, what);
    fprintf(stderr, "Try 'kvbudget %s --help'.\n", cmd);
    return EXIT_USAGE;
}

static bool parse_u32(const char *s, uint32_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || !end || *end || end == s || s[0] == '-' || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || !end || *end || end == s || s[0] == '-')
        return false;
    *out = (uint64_t)v;
    return true;
}

/* Decimal only, as every number of the command (options.c): no sign,
 * exponent, hex, inf or nan. */
static bool parse_double(const char *s, double *out)
{
    size_t n = strspn(s, "0123456789"), dot = n;
    if (!n)
        return false;
    if (s[n] == '.')
        n += 1 + strspn(s + n + 1, "0123456789");
    if (s[n] || n == dot + 1)
        return false;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || !end || *end || end == s)
        return false;
    *out = v;
    return true;
}

/* The plain sentence for a probe failure, for people. */
static const char *no_gpu_sentence(kvb_status st)
{
    switch (st) {
    case KVB_ENOCUDA: return "built without CUDA support";
    case KVB_ENODRIVER:
        return "no CUDA driver found: this machine has no NVIDIA GPU driver";
    case KVB_ENODEVICE: return "no CUDA device: the NVIDIA driver sees no GPU";
    default: return "the GPU could not be probed";
    }
}

static bool is_no_gpu(kvb_status st)
{
    return st == KVB_ENOCUDA || st == KVB_ENODRIVER || st == KVB_ENODEVICE ||
           st == KVB_ECUDA;
}

static json_t *error_json(kvb_status st, const kvb_error *e)
{
    return json_pack("{s:s, s:s, s:s, s:s}", "status", kvb_status_name(st),
                     "error", kvb_strerror(st), "field", e->field, "message",
                     e->message);
}

static void print_json(json_t *j)
{
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (s) {
        puts(s);
        free(s);
    }
    json_decref(j);
}

/* A failure that means "no GPU here" (1) or bad input (2). */
static int report_failure(const char *cmd, kvb_status st, const kvb_error *e,
                          bool json)
{
    int code = is_no_gpu(st) ? EXIT_NO : EXIT_USAGE;
    if (json) {
        json_t *j = error_json(st, e);
        if (!strcmp(cmd, "probe"))
            json_object_set_new(j, "devices", json_array());
        print_json(j);
    } else if (is_no_gpu(st) && st != KVB_ECUDA) {
        printf("%s\n", no_gpu_sentence(st));
        fprintf(stderr, "kvbudget %s: %s\n", cmd, e->message);
    } else {
        fprintf(stderr, "kvbudget %s: %s%s%s\n", cmd, e->field,
                e->field[0] ? ": " : "", e->message);
    }
    return code;
}

/* ---- probe ---- */

static void probe_help(void)
{
    printf("Usage: kvbudget probe [--json] [--device N]\n"
           "\n"
           "Show the GPUs of this machine as CUDA reports them: name, compute\n"
           "capability, multiprocessors, total and free memory "
           "(cuMemGetInfo),\n"
           "memory already in use, UUID and driver version.\n"
           "\n"
           "  --json       print JSON\n"
           "  --device N   only GPU N (a CUDA ordinal)\n"
           "  -h, --help   this text\n"
           "\n"
           "Plan for the GPU present with: kvbudget plan --gpu probe ...\n"
           "Exit status: 0 GPUs found, 1 no GPU (no driver, no device, or a\n"
           "build without CUDA), 2 usage error.\n");
}

static json_t *device_json(const kvb_device *d)
{
    char cc[16];
    snprintf(cc, sizeof cc, "%u.%u", d->compute_capability / 10,
             d->compute_capability % 10);
    return json_pack("{s:i, s:s, s:I, s:I, s:I, s:s, s:i, s:s, s:s, s:i}",
                     "index", (int)d->index, "name", d->name, "total_bytes",
                     (json_int_t)d->total_bytes, "free_bytes",
                     (json_int_t)d->free_bytes, "used_by_others_bytes",
                     (json_int_t)d->used_by_others_bytes, "compute_capability",
                     cc, "multiprocessor_count", (int)d->multiprocessor_count,
                     "uuid", d->uuid, "driver_version", d->driver_version,
                     "cuda_driver_version", (int)d->cuda_driver_version);
}

static void device_print(const kvb_device *d)
{
    printf("GPU %d: %s (compute capability %u.%u, %u multiprocessors)\n",
           (int)d->index, d->name, d->compute_capability / 10,
           d->compute_capability % 10, d->multiprocessor_count);
    printf("  total    %9.2f GiB  (%llu bytes, as cuMemGetInfo reports it)\n",
           GIB(d->total_bytes), (unsigned long long)d->total_bytes);
    printf("  free     %9.2f GiB\n", GIB(d->free_bytes));
    printf("  in use   %9.2f GiB  (other processes, the driver, and this "
           "probe's CUDA context)\n",
           GIB(d->used_by_others_bytes));
    if (d->uuid[0])
        printf("  uuid     %s\n", d->uuid);
    printf("  driver   %s (CUDA %u.%u)\n", d->driver_version,
           d->cuda_driver_version / 1000, (d->cuda_driver_version % 1000) / 10);
}

int kvb_cli_probe(int argc, char **argv)
{
    bool json = false, one = false;
    uint32_t only = 0;
    for (int i = 1; i < argc; i++) {
        if (is_opt(argv[i], "-h") || is_opt(argv[i], "--help")) {
            probe_help();
            return EXIT_OK;
        } else if (is_opt(argv[i], "--json")) {
            json = true;
        } else if (is_opt(argv[i], "--device")) {
            if (++i >= argc || !parse_u32(argv[i], &only))
                return usage_error("probe", "--device needs a number",
                                   i < argc ? argv[i] : NULL);
            one = true;
        } else {
            return usage_error("probe", "unknown option", argv[i]);
        }
    }
    kvb_error e = KVB_ERROR_INIT;
    uint32_t count = 0;
    kvb_status st = kvb_probe_count(&count, &e);
    if (st)
        return report_failure("probe", st, &e, json);
    json_t *list = json_array();
    int code = EXIT_OK;
    for (uint32_t i = one ? only : 0; i < (one ? only + 1 : count); i++) {
        kvb_device d;
        st = KVB_DEVICE_INIT(&d);
        if (!st)
            st = kvb_probe_device(i, &d, &e);
        if (st) {
            json_decref(list);
            return report_failure("probe", st, &e, json);
        }
        if (json)
            json_array_append_new(list, device_json(&d));
        else
            device_print(&d);
    }
    if (json)
        print_json(json_pack("{s:s, s:i, s:o}", "status", "KVB_OK", "count",
                             (int)count, "devices", list));
    else
        json_decref(list);
    return code;
}

/* ---- validate ---- */

static void validate_help(void)
{
    printf(
        "Usage: kvbudget validate --model NAME [options]\n"
        "\n"
        "Plan for the GPU of this machine, then allocate what the plan says\n"
        "the way vLLM does (each weight tensor, the activation peak, the\n"
        "non-torch memory, the CUDA-graph estimate, the KV cache as "
        "per-layer\n"
        "tensors), and compare the fall in free memory (cuMemGetInfo) with "
        "the\n"
        "prediction, stage by stage.  Then check the plan is tight: at the\n"
        "largest utilization the GPU can give, the planned KV cache fits "
        "and\n"
        "3%% more does not.  Takes up to all free GPU memory for a few "
        "seconds.\n"
        "\n"
        "  --model NAME            a model preset (kvbudget list models)\n"
        "  --quant METHOD          weights format: fp16, bf16, fp8, awq, "
        "gptq-4, ...\n"
        "  --kv-cache-dtype DTYPE  auto, fp16, bf16, fp8\n"
        "  --utilization U         gpu_memory_utilization (default: the "
        "engine's)\n"
        "  --max-model-len N       default: the model's\n"
        "  --engine SPEC           vllm, vllm@0.11, ... (default: newest)\n"
        "  --enforce-eager         no CUDA graphs\n"
        "  --layers N              cut the model to N layers (a quick check)\n"
        "  --device N              CUDA ordinal (default 0)\n"
        "  --json                  print JSON\n"
        "  -h, --help              this text\n"
        "\n"
        "Exit status: 0 valid, 1 not valid or no GPU, 2 usage error.\n");
}

typedef struct validate_args {
    const char *model, *quant, *kv_dtype, *engine;
    double utilization;
    uint64_t max_model_len;
    uint32_t layers, device;
    bool eager, json;
} validate_args;

/* 0 on success, else the exit status. */
static int validate_parse(int argc, char **argv, validate_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        bool has = i + 1 < argc;
        if (is_opt(o, "-h") || is_opt(o, "--help")) {
            validate_help();
            return -1;
        } else if (is_opt(o, "--json")) {
            a->json = true;
        } else if (is_opt(o, "--enforce-eager")) {
            a->eager = true;
        } else if (is_opt(o, "--model") && has) {
            a->model = argv[++i];
        } else if (is_opt(o, "--quant") && has) {
            a->quant = argv[++i];
        } else if (is_opt(o, "--kv-cache-dtype") && has) {
            a->kv_dtype = argv[++i];
        } else if (is_opt(o, "--engine") && has) {
            a->engine = argv[++i];
        } else if (is_opt(o, "--utilization") && has) {
            if (!parse_double(argv[++i], &a->utilization))
                return usage_error("validate",
                                   "--utilization needs a number,"
                                   " not",
                                   argv[i]);
        } else if (is_opt(o, "--max-model-len") && has) {
            if (!parse_u64(argv[++i], &a->max_model_len))
                return usage_error(
                    "validate", "--max-model-len needs a number, not", argv[i]);
        } else if (is_opt(o, "--layers") && has) {
            if (!parse_u32(argv[++i], &a->layers) || a->layers == 0)
                return usage_error("validate",
                                   "--layers needs a positive number, not",
                                   argv[i]);
        } else if (is_opt(o, "--device") && has) {
            if (!parse_u32(argv[++i], &a->device))
                return usage_error("validate", "--device needs a number, not",
                                   argv[i]);
        } else {
            return usage_error("validate",
                               "unknown option or missing value:", o);
        }
    }
    if (!a->model)
        return usage_error("validate", "--model is required", NULL);
    return 0;
}

/* Turn the options into library inputs; a bad value is a usage error. */
static kvb_status validate_inputs(const validate_args *a, kvb_model *m,
                                  kvb_quant *q, kvb_serving *s, kvb_error *e)
{
    kvb_status st = KVB_MODEL_INIT(m);
    if (!st)
        st = KVB_QUANT_INIT(q);
    if (!st)
        st = KVB_SERVING_INIT(s);
    if (!st)
        st = kvb_preset_model_find(a->model, m, e);
    if (!st && a->quant)
        st = kvb_quant_method_find(a->quant, &q->method, e);
    if (!st && a->kv_dtype)
        st = kvb_dtype_find(a->kv_dtype, &q->kv_cache_dtype, e);
    if (!st && a->engine)
        st = kvb_engine_parse(a->engine, &s->engine, &s->engine_version, e);
    if (st)
        return st;
    if (a->layers)
        m->num_hidden_layers = a->layers;
    s->gpu_memory_utilization = a->utilization;
    s->max_model_len = a->max_model_len;
    s->enforce_eager = a->eager;
    return KVB_OK;
}

static json_t *stage_json(int id, const kvb_validation_stage *x)
{
    return json_pack(
        "{s:s, s:I, s:I, s:I, s:i, s:b, s:f}", "stage", kvb_stage_name(id),
        "predicted_bytes", (json_int_t)x->predicted_bytes, "requested_bytes",
        (json_int_t)x->requested_bytes, "observed_bytes",
        (json_int_t)x->observed_bytes, "allocations", (int)x->allocations,
        "allocated", (int)x->allocated, "error", x->error);
}

static json_t *validation_json(const kvb_model *m, const kvb_quant *q,
                               const kvb_validation *v)
{
    json_t *stages = json_array();
    for (uint32_t i = 0; i < v->stage_count && i < KVB_VALIDATION_STAGES; i++)
        json_array_append_new(stages, stage_json((int)i, &v->stages[i]));
    json_t *tight = json_pack(
        "{s:b, s:f, s:I, s:I, s:b, s:I, s:f, s:I, s:b, s:b}", "checked",
        (int)v->tight_checked, "utilization", v->tight_utilization,
        "allowance_bytes", (json_int_t)v->tight_allowance_bytes, "num_blocks",
        (json_int_t)v->tight_num_blocks, "fits", (int)v->tight_fits,
        "free_bytes", (json_int_t)v->tight_free_bytes, "over_fraction",
        v->tight_over_fraction, "over_num_blocks",
        (json_int_t)v->tight_over_num_blocks, "over_fits",
        (int)v->tight_over_fits, "tight", (int)v->tight);
    const char *failed =
        v->failed_stage >= 0 ? kvb_stage_name(v->failed_stage) : NULL;
    return json_pack(
        "{s:s, s:s, s:s, s:s, s:i, s:s, s:I, s:I, s:I, s:f, s:s, s:I, s:I, "
        "s:i, s:i, s:o, s:s?, s:I, s:f, s:f, s:o, s:b, s:s}",
        "status", "KVB_OK", "model", m->name, "quant",
        kvb_quant_method_name(q->method), "kv_cache_dtype",
        kvb_dtype_name(q->kv_cache_dtype), "device", (int)v->device_index,
        "device_name", v->device_name, "total_bytes",
        (json_int_t)v->total_bytes, "free_start_bytes",
        (json_int_t)v->free_start_bytes, "free_end_bytes",
        (json_int_t)v->free_end_bytes, "gpu_memory_utilization",
        v->gpu_memory_utilization, "plan_verdict",
        kvb_verdict_name(v->plan_verdict), "num_blocks",
        (json_int_t)v->num_blocks, "block_bytes", (json_int_t)v->block_bytes,
        "weights_tensors", (int)v->weights_tensors, "kv_tensors",
        (int)v->kv_tensors, "stages", stages, "failed_stage", failed,
        "failed_bytes", (json_int_t)v->failed_bytes, "max_error", v->max_error,
        "tolerance", v->tolerance, "tightness", tight, "valid", (int)v->valid,
        "message", v->message);
}

static void validation_print(const kvb_model *m, const kvb_quant *q,
                             const kvb_validation *v)
{
    printf("validate %s (%u layers, weights %s) on GPU %d: %s\n", m->name,
           m->num_hidden_layers, kvb_quant_method_name(q->method),
           (int)v->device_index, v->device_name);
    printf("  total %.2f GiB, free at start %.2f GiB, free at end %.2f GiB\n",
           GIB(v->total_bytes), GIB(v->free_start_bytes),
           GIB(v->free_end_bytes));
    printf("  plan: utilization %.4g, %llu KV blocks of %.2f MiB, verdict "
           "%s\n\n",
           v->gpu_memory_utilization, (unsigned long long)v->num_blocks,
           MIB(v->block_bytes), kvb_verdict_name(v->plan_verdict));
    printf("  %-10s %7s %16s %16s %9s\n", "stage", "allocs", "predicted GiB",
           "observed GiB", "error");
    for (uint32_t i = 0; i < v->stage_count && i < KVB_VALIDATION_STAGES; i++) {
        const kvb_validation_stage *x = &v->stages[i];
        printf("  %-10s %7u %16.4f %16.4f %+8.3f%%%s\n", kvb_stage_name((int)i),
               x->allocations, GIB(x->predicted_bytes), GIB(x->observed_bytes),
               x->error * 100, x->allocated ? "" : "  out of memory");
        if (v->failed_stage == (int32_t)i)
            break;
    }
    if (v->tight_checked)
        printf("\n  tightness: at utilization %.4f (allowance %.1f MiB) %llu "
               "blocks %s, %.2f GiB left; %llu blocks (+%.0f%%) %s\n",
               v->tight_utilization, MIB(v->tight_allowance_bytes),
               (unsigned long long)v->tight_num_blocks,
               v->tight_fits ? "fit" : "did not fit", GIB(v->tight_free_bytes),
               (unsigned long long)v->tight_over_num_blocks,
               v->tight_over_fraction * 100,
               v->tight_over_fits ? "fit too" : "did not");
    printf("\n%s\n", v->message);
}

int kvb_cli_validate(int argc, char **argv)
{
    validate_args a;
    int code = validate_parse(argc, argv, &a);
    if (code)
        return code < 0 ? EXIT_OK : code;
    kvb_model m;
    kvb_quant q;
    kvb_serving s;
    kvb_validation v;
    kvb_error e = KVB_ERROR_INIT;
    kvb_status st = validate_inputs(&a, &m, &q, &s, &e);
    if (!st)
        st = KVB_VALIDATION_INIT(&v);
    if (!st)
        st = kvb_validate(&m, &q, &s, a.device, &v, &e);
    if (st)
        return report_failure("validate", st, &e, a.json);
    if (a.json)
        print_json(validation_json(&m, &q, &v));
    else
        validation_print(&m, &q, &v);
    return v.valid ? EXIT_OK : EXIT_NO;
}
