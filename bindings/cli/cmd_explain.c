/*
 * cmd_explain.c -- `kvbudget explain [FILE|-]`: what a log shows, what it
 * means, and, when the model and GPU are known (from the log or from
 * flags), the re-planned remedies as `fix` gives them.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <math.h>

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void explain_help(void)
{
    fputs(
        "usage: kvbudget explain [FILE|-] [--model NAME] [--gpu NAME | "
        "--instance NAME] [flags]\n\n"
        "Reads a serving log (kubectl logs --previous, a pasted excerpt;\n"
        "standard input when FILE is - or absent) and says what happened\n"
        "and what to do.  It recognises torch.cuda.OutOfMemoryError, vLLM's\n"
        "max-seq-len and \"No available memory for the cache blocks\"\n"
        "errors, the start-up free-memory error, and vLLM's memory-profiling\n"
        "and KV-cache lines from 0.2 to 0.21+.  When the log (or a flag)\n"
        "names the model and the GPU, it re-plans and lists the remedies as\n"
        "`kvbudget fix` does; flags override what the log says.\n\n",
        stdout);
    cli_print_input_help(stdout);
    fputs("\nExit status: 0 the log shows no failure, 1 it shows one, 2 "
          "nothing\nrecognised, or a usage or input error.\n",
          stdout);
}

/* ---- reading the input ---- */

static int read_all(const char *path, char **text, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        cli_error("explain", "%s: %s", path, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    int rc = 0;
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || cap > KVB_LOG_MAX_BYTES)
            break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger)
            free(buf);
        buf = bigger;
        cap *= 2;
    }
    if (!buf) {
        cli_error("explain", "%s: out of memory", path);
        rc = CLI_EXIT_USAGE;
    } else if (ferror(f)) {
        cli_error("explain", "%s: read error", path);
        rc = CLI_EXIT_USAGE;
    } else if (n > KVB_LOG_MAX_BYTES) {
        cli_error("explain",
                  "%s is larger than %zu MiB; give the last part "
                  "of the log (tail)",
                  path, KVB_LOG_MAX_BYTES >> 20);
        rc = CLI_EXIT_USAGE;
    }
    if (f != stdin)
        fclose(f);
    if (rc) {
        free(buf);
        return rc;
    }
    *text = buf;
    *len = n;
    return 0;
}

/* ---- facts ---- */

typedef struct fact_field {
    int bit;
    char kind; /* s string, u uint32, U uint64, b bytes, i signed bytes,
                  d double, v version, a accounting */
    size_t offset;
} fact_field;

#define FF(bit, kind, member)                                                  \
    {                                                                          \
        KVB_LOG_BIT_##bit, kind, offsetof(kvb_log_facts, member)               \
    }

static const fact_field fact_fields[] = {
    FF(ENGINE_VERSION, 'v', engine_version),
    FF(ACCOUNTING, 'a', accounting),
    FF(MODEL, 's', model),
    FF(QUANTIZATION, 's', quantization),
    FF(DTYPE, 's', dtype),
    FF(KV_CACHE_DTYPE, 's', kv_cache_dtype),
    FF(MAX_MODEL_LEN, 'U', max_model_len),
    FF(GPU_MEMORY_UTILIZATION, 'd', gpu_memory_utilization),
    FF(TENSOR_PARALLEL_SIZE, 'u', tensor_parallel_size),
    FF(PIPELINE_PARALLEL_SIZE, 'u', pipeline_parallel_size),
    FF(ENFORCE_EAGER, 'u', enforce_eager),
    FF(BLOCK_SIZE, 'u', block_size),
    FF(MAX_NUM_SEQS, 'u', max_num_seqs),
    FF(MAX_NUM_BATCHED_TOKENS, 'U', max_num_batched_tokens),
    FF(GPU_NAME, 's', gpu_name),
    FF(GPU_TOTAL_BYTES, 'b', gpu_total_bytes),
    FF(STARTUP_FREE_BYTES, 'b', startup_free_bytes),
    FF(REQUESTED_BYTES, 'b', requested_bytes),
    FF(WEIGHTS_BYTES, 'b', weights_bytes),
    FF(CONSUMED_BYTES, 'b', consumed_bytes),
    FF(NON_TORCH_BYTES, 'b', non_torch_bytes),
    FF(ACTIVATION_BYTES, 'b', activation_bytes),
    FF(CUDAGRAPH_BYTES, 'i', cudagraph_bytes),
    FF(KV_CACHE_BYTES, 'i', kv_cache_bytes),
    FF(GPU_BLOCKS, 'U', gpu_blocks),
    FF(CPU_BLOCKS, 'U', cpu_blocks),
    FF(KV_CACHE_TOKENS, 'U', kv_cache_tokens),
    FF(MAX_CONCURRENCY, 'd', max_concurrency),
    FF(KV_NEEDED_BYTES, 'b', kv_needed_bytes),
    FF(ESTIMATED_MAX_MODEL_LEN, 'U', estimated_max_model_len),
    FF(OOM_TRIED_BYTES, 'b', oom_tried_bytes),
    FF(OOM_FREE_BYTES, 'b', oom_free_bytes),
    FF(OOM_IN_USE_BYTES, 'b', oom_in_use_bytes),
    FF(OOM_GPU_INDEX, 'u', oom_gpu_index),
};

#define N_FACTS (sizeof fact_fields / sizeof fact_fields[0])

typedef union fact_value {
    uint32_t u32;
    int32_t i32;
    uint64_t u64;
    int64_t i64;
    double d;
} fact_value;

static fact_value read_fact(const kvb_log_facts *f, const fact_field *ff)
{
    fact_value v;
    const char *p = (const char *)f + ff->offset;
    memset(&v, 0, sizeof v);
    if (ff->kind == 'u' || ff->kind == 'v')
        memcpy(&v.u32, p, sizeof v.u32);
    else if (ff->kind == 'a')
        memcpy(&v.i32, p, sizeof v.i32);
    else if (ff->kind == 'd')
        memcpy(&v.d, p, sizeof v.d);
    else if (ff->kind != 's')
        memcpy(&v.u64, p, sizeof v.u64);
    return v;
}

static json_t *fact_json(const kvb_log_facts *f, const fact_field *ff)
{
    fact_value v = read_fact(f, ff);
    char ver[32];
    switch (ff->kind) {
    case 's': return json_string((const char *)f + ff->offset);
    case 'u': return json_integer(v.u32);
    case 'd': return json_real(v.d);
    case 'a': return json_string(kvb_accounting_name(v.i32));
    case 'i': return json_integer((json_int_t)(int64_t)v.u64);
    case 'v':
        if (kvb_engine_version_format(f->engine, v.u32, ver, sizeof ver, NULL))
            snprintf(ver, sizeof ver, "%u", v.u32);
        return json_string(ver);
    default: return json_integer((json_int_t)v.u64);
    }
}

static void fact_text(const kvb_log_facts *f, const fact_field *ff, char *buf,
                      size_t cap)
{
    fact_value v = read_fact(f, ff);
    switch (ff->kind) {
    case 's': snprintf(buf, cap, "%s", (const char *)f + ff->offset); break;
    case 'u': snprintf(buf, cap, "%u", v.u32); break;
    case 'd': snprintf(buf, cap, "%g", v.d); break;
    case 'a': snprintf(buf, cap, "%s", kvb_accounting_name(v.i32)); break;
    case 'i':
        snprintf(buf, cap, "%.2f GiB", (double)(int64_t)v.u64 / 1073741824.0);
        break;
    case 'b':
        snprintf(buf, cap, "%.2f GiB", (double)v.u64 / 1073741824.0);
        break;
    case 'v': /* the engine's own form: llama.cpp's "b6123" */
        if (kvb_engine_version_format(f->engine, v.u32, buf, cap, NULL))
            snprintf(buf, cap, "%u", v.u32);
        break;
    default: snprintf(buf, cap, "%llu", (unsigned long long)v.u64); break;
    }
}

static json_t *facts_json(const kvb_log_facts *f)
{
    json_t *o = json_object();
    for (size_t i = 0; i < N_FACTS; i++)
        if ((f->present >> fact_fields[i].bit) & 1u)
            json_object_set_new(o, kvb_log_fact_name(fact_fields[i].bit),
                                fact_json(f, &fact_fields[i]));
    return o;
}

static void print_facts(const kvb_log_facts *f)
{
    puts("Read from the log:");
    for (size_t i = 0; i < N_FACTS; i++) {
        if (!((f->present >> fact_fields[i].bit) & 1u))
            continue;
        char text[160];
        fact_text(f, &fact_fields[i], text, sizeof text);
        printf("  %-26s %s\n", kvb_log_fact_name(fact_fields[i].bit), text);
    }
    if (f->failure_text[0])
        printf("  %-26s %s\n", "error", f->failure_text);
}

/* ---- re-planning ---- */

typedef struct replan {
    cli_inputs in;
    kvb_plan plan;
    kvb_fix fixes[KVB_ADVICE_MAX];
    size_t n;
    uint32_t known;
    bool done;
    int64_t calibrated; /* bytes the activation peak moved to meet the
                           log's KV memory; 0: not calibrated */
} replan;

static int inputs_from_log(const cli_opts *o, const kvb_log_facts *f, replan *r)
{
    kvb_error e = KVB_ERROR_INIT;
    cli_inputs_init(&r->in);
    if (kvb_log_inputs(f, &r->in.model, &r->in.quant, &r->in.gpu,
                       &r->in.serving, &r->known, &e))
        return cli_lib_error("explain", &e);
    r->in.have_model = r->known & KVB_LOG_KNOWN_MODEL;
    r->in.have_gpu = r->known & KVB_LOG_KNOWN_GPU;
    snprintf(r->in.model_source, sizeof r->in.model_source, "log");
    if (o->manifest) {
        int rc = cli_manifest_inputs("explain", o->manifest, &r->in, r->known);
        if (rc)
            return rc;
    }
    if (r->in.gpu_label[0]) /* the manifest's GPU */
        r->in.have_gpu = true;
    else if (r->in.gpu.name[0])
        snprintf(r->in.gpu_label, sizeof r->in.gpu_label, "%s", r->in.gpu.name);
    else
        snprintf(r->in.gpu_label, sizeof r->in.gpu_label, "%.2f GiB GPU",
                 (double)r->in.gpu.total_bytes / 1073741824.0);
    int rc = cli_inputs_apply(o, &r->in);
    /* the engine's own estimate of the largest max_model_len calibrates
     * remedies on the logged GPU (not on one the flags replaced) */
    uint64_t logged = f->gpu_total_bytes, planned = r->in.gpu.total_bytes;
    bool same_gpu =
        !KVB_LOG_HAS(f, GPU_TOTAL_BYTES) ||
        (logged <= planned + planned / 100 && planned <= logged + logged / 100);
    /* a torch OOM on a shared GPU: what other processes held is not free
     * to the engine when it starts (unless --gpu-free says otherwise) */
    if (!rc && same_gpu && f->failure == KVB_LOG_CUDA_OOM &&
        KVB_LOG_HAS(f, OOM_IN_USE_BYTES) && KVB_LOG_HAS(f, OOM_FREE_BYTES) &&
        KVB_LOG_HAS(f, GPU_TOTAL_BYTES) && !r->in.gpu.free_bytes &&
        f->oom_in_use_bytes + f->oom_free_bytes < f->gpu_total_bytes) {
        uint64_t others =
            f->gpu_total_bytes - f->oom_in_use_bytes - f->oom_free_bytes;
        if (others >= ((uint64_t)1 << 30) &&
            others * 10 >= f->gpu_total_bytes) {
            r->in.gpu.free_bytes = planned > others ? planned - others : 0;
            r->in.min_utilization = 0.1; /* what is left may be little */
        }
    }
    if (!rc && same_gpu && KVB_LOG_HAS(f, ESTIMATED_MAX_MODEL_LEN))
        r->in.measured_max_model_len = f->estimated_max_model_len;
    else if (!rc && same_gpu && KVB_LOG_HAS(f, KV_CACHE_TOKENS) &&
             f->failure == KVB_LOG_MAX_LEN_EXCEEDS_KV)
        r->in.measured_max_model_len = f->kv_cache_tokens;
    return rc;
}

/* The KV memory the log measured calibrates the plan: where the log gives
 * it but not the activation peak (vLLM V1 prints only the weights and the
 * available KV cache), the modelled peak is moved by the difference, so
 * the plan's KV budget is the log's.  Remedies that keep the GPU and the
 * split keep this measured budget; those that change TP, the format or the
 * GPU reset the peak and re-plan from the model (kvb_fix_apply).  True
 * when the inputs changed and need a new plan. */
static bool calibrate_kv(const kvb_log_facts *f, cli_inputs *in,
                         const kvb_plan *p)
{
    if (!KVB_LOG_HAS(f, KV_CACHE_BYTES) || KVB_LOG_HAS(f, ACTIVATION_BYTES) ||
        in->serving.activation_bytes != KVB_AUTO_BYTES ||
        in->serving.kv_cache_memory_bytes ||
        (KVB_LOG_HAS(f, GPU_TOTAL_BYTES) &&
         f->gpu_total_bytes != p->gpu_total_bytes) ||
        (KVB_LOG_HAS(f, TENSOR_PARALLEL_SIZE) &&
         f->tensor_parallel_size != p->tensor_parallel_size) ||
        (KVB_LOG_HAS(f, GPU_MEMORY_UTILIZATION) &&
         fabs(f->gpu_memory_utilization - p->gpu_memory_utilization) > 1e-9))
        return false;
    int64_t plan_kv = p->kv_budget_bytes_per_gpu
                          ? (int64_t)p->kv_budget_bytes_per_gpu
                          : -(int64_t)p->kv_shortfall_bytes_per_gpu;
    int64_t peak =
        (int64_t)p->activation_bytes_per_gpu + (plan_kv - f->kv_cache_bytes);
    if (plan_kv == f->kv_cache_bytes || peak < 0)
        return false;
    in->serving.activation_bytes = (uint64_t)peak;
    return true;
}

static int replan_run(const cli_opts *o, const kvb_log_facts *f, replan *r)
{
    int rc = inputs_from_log(o, f, r);
    if (rc || !r->in.have_model || !r->in.have_gpu)
        return rc;
    if ((rc = cli_plan("explain", &r->in, &r->plan)))
        return rc;
    uint64_t peak = r->plan.activation_bytes_per_gpu;
    if (calibrate_kv(f, &r->in, &r->plan)) {
        r->calibrated = (int64_t)r->in.serving.activation_bytes - (int64_t)peak;
        if ((rc = cli_plan("explain", &r->in, &r->plan)))
            return rc;
    }
    if ((rc = cli_advise("explain", &r->in, r->fixes, KVB_ADVICE_MAX, &r->n)))
        return rc;
    cli_fixes_keep_checkpoint(o->model, &r->in, r->fixes, r->n);
    r->done = true;
    return 0;
}

static void print_compare(const kvb_log_facts *f, const kvb_plan *p)
{
    bool loaded = KVB_LOG_HAS(f, KV_CACHE_TOKENS) ||
                  KVB_LOG_HAS(f, KV_CACHE_BYTES) ||
                  KVB_LOG_HAS(f, WEIGHTS_BYTES);
    if (loaded && p->verdict == KVB_VERDICT_WEIGHTS_EXCEED)
        printf("  These inputs cannot have produced this log: with them the "
               "weights (%.2f GiB per GPU)\n  do not even load, so vLLM "
               "would stop before it sizes a KV cache.\n",
               (double)p->weights_bytes_per_gpu / 1073741824.0);
    if (f->failure == KVB_LOG_CUDA_OOM &&
        p->verdict == KVB_VERDICT_WEIGHTS_EXCEED)
        printf("  These inputs explain an OOM: the weights need %.2f GiB per "
               "GPU and the GPU has\n  %.2f GiB, so vLLM runs out of memory "
               "while loading them.\n",
               (double)p->weights_bytes_per_gpu / 1073741824.0,
               (double)p->gpu_total_bytes / 1073741824.0);
    if (f->failure != KVB_LOG_NONE && p->fits)
        printf("  The plan fits, but the log shows a failure: the model, GPU "
               "or settings given\n  differ from the deployment's, or "
               "something else held GPU memory.\n");
    uint64_t lt = f->gpu_total_bytes, pt = p->gpu_total_bytes;
    if (KVB_LOG_HAS(f, GPU_TOTAL_BYTES) &&
        (lt > pt ? lt - pt : pt - lt) > pt / 100)
        printf("  GPU total: log %.2f GiB, plan %.2f GiB: the log comes from "
               "a different GPU than\n  the one planned.\n",
               (double)lt / 1073741824.0, (double)pt / 1073741824.0);
    if (KVB_LOG_HAS(f, WEIGHTS_BYTES))
        printf("  weights per GPU: log %.2f GiB, plan %.2f GiB\n",
               (double)f->weights_bytes / 1073741824.0,
               (double)p->weights_bytes_per_gpu / 1073741824.0);
    if (KVB_LOG_HAS(f, KV_CACHE_BYTES))
        printf("  KV cache per GPU: log %.2f GiB, plan %.2f GiB\n",
               (double)f->kv_cache_bytes / 1073741824.0,
               (double)p->kv_budget_bytes_per_gpu / 1073741824.0);
    if (KVB_LOG_HAS(f, KV_CACHE_TOKENS))
        printf("  KV tokens: log %llu, plan %llu\n",
               (unsigned long long)f->kv_cache_tokens,
               (unsigned long long)p->max_kv_tokens);
}

static void print_replan(const cli_opts *o, const kvb_log_facts *f,
                         const replan *r)
{
    cli_style st;
    cli_style_init(&st);
    if (!r->done) {
        printf("\nTo re-plan each remedy, name the %s: kvbudget explain %s "
               "--model NAME --instance NAME (or --gpu NAME)\n",
               !r->in.have_model && !r->in.have_gpu ? "model and the GPU"
               : !r->in.have_model                  ? "model"
                                                    : "GPU",
               o->npositional ? o->positional[0] : "-");
        if (KVB_LOG_HAS(f, MODEL) && !(r->known & KVB_LOG_KNOWN_MODEL))
            printf("(the log names %s, which is not a preset)\n", f->model);
        return;
    }
    printf("\nRe-planned from the log%s: ",
           o->model || o->gpu || o->instance ? " and the flags" : "");
    cli_print_plan_line(stdout, &st, &r->in, &r->plan);
    cli_print_verdict(stdout, &st, &r->plan);
    print_compare(f, &r->plan);
    if (r->calibrated)
        printf("  (calibrated to the log's KV memory: the modelled activation "
               "peak moved by %+.2f GiB;\n  remedies on this GPU keep that "
               "budget, those that change TP, format or GPU re-plan)\n",
               (double)r->calibrated / 1073741824.0);
    if (!r->plan.fits)
        cli_print_fixes(stdout, &st, &r->in, r->fixes, r->n);
}

/* ---- output ---- */

static int explain_json(const kvb_log_facts *f, const char *text,
                        const replan *r)
{
    json_t *o = json_object();
    bool recognised = f->present || f->failure != KVB_LOG_NONE;
    json_object_set_new(o, "recognised", json_boolean(recognised));
    json_object_set_new(o, "failure",
                        json_string(kvb_log_failure_name(f->failure)));
    json_object_set_new(o, "oom_phase",
                        f->failure == KVB_LOG_CUDA_OOM
                            ? json_string(kvb_log_phase_name(f->oom_phase))
                            : json_null());
    json_object_set_new(o, "error_text", json_string(f->failure_text));
    json_object_set_new(o, "facts", facts_json(f));
    json_object_set_new(o, "explanation", json_string(text));
    json_object_set_new(
        o, "plan", r->done ? cli_plan_json(&r->in, &r->plan) : json_null());
    json_object_set_new(o, "fixes",
                        r->done ? cli_fixes_json(&r->in, r->fixes, r->n)
                                : json_array());
    return cli_json_print("explain", o);
}

static int explain_facts(const cli_opts *o, const kvb_log_facts *f,
                         const char *source)
{
    char text[4096];
    replan *r = calloc(1, sizeof *r);
    if (!r) {
        cli_error("explain", "out of memory");
        return CLI_EXIT_USAGE;
    }
    kvb_status st = kvb_log_explain(f, text, sizeof text, NULL, NULL);
    (void)st; /* KVB_EBUFSIZE keeps what fits */
    int rc = replan_run(o, f, r);
    if (!rc && o->json) {
        rc = explain_json(f, text, r);
    } else if (!rc) {
        printf("kvbudget explain: %s\n\n%s\n", source, text);
        print_facts(f);
        print_replan(o, f, r);
    }
    free(r);
    return rc;
}

int kvb_cli_explain(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse("explain", argc, argv, &o);
    if (rc)
        return rc;
    if (o.help) {
        explain_help();
        return 0;
    }
    if (o.npositional > 1) {
        cli_error("explain", "give one log file (or - for standard input)");
        return CLI_EXIT_USAGE;
    }
    const char *path = o.npositional ? o.positional[0] : "-";
    char *buf = NULL;
    size_t len = 0;
    if ((rc = read_all(path, &buf, &len)))
        return rc;
    kvb_log_facts f;
    kvb_error e = KVB_ERROR_INIT;
    if (KVB_LOG_FACTS_INIT(&f) || kvb_log_parse(buf, len, &f, &e)) {
        free(buf);
        return cli_lib_error("explain", &e);
    }
    free(buf);
    /* what the log says goes to a terminal: escaped (JSON as well) */
    cli_scrub(f.model, sizeof f.model);
    cli_scrub(f.quantization, sizeof f.quantization);
    cli_scrub(f.dtype, sizeof f.dtype);
    cli_scrub(f.kv_cache_dtype, sizeof f.kv_cache_dtype);
    cli_scrub(f.gpu_name, sizeof f.gpu_name);
    cli_scrub(f.failure_text, sizeof f.failure_text);
    cli_scrub(f.engine_line, sizeof f.engine_line);
    char safe_path[1024];
    const char *source =
        strcmp(path, "-") ? cli_escape(path, safe_path, sizeof safe_path, false)
                          : "standard input";
    bool recognised = f.present || f.failure != KVB_LOG_NONE;
    if (!recognised && !o.json) {
        cli_error("explain",
                  "%s: nothing recognised: no vLLM start-up line "
                  "or CUDA out-of-memory error",
                  source);
        return CLI_EXIT_USAGE;
    }
    if ((rc = explain_facts(&o, &f, source)))
        return rc;
    if (!recognised)
        return CLI_EXIT_USAGE;
    return f.failure == KVB_LOG_NONE ? CLI_EXIT_FITS : CLI_EXIT_NOFIT;
}
