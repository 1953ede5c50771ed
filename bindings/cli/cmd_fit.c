/*
 * cmd_fit.c -- `kvbudget fit`: a goal instead of a configuration.  Given a
 * model, the context and the number of requests at once, plan every
 * instance preset (on --cloud, under --max-price) with every engine this
 * build models, every weight format worth serving (the model's own, FP8,
 * AWQ, GPTQ) and every tensor-parallel size the instance's GPUs allow, and
 * list the cheapest deployments that serve it, each with its engine
 * flags, Kubernetes args and Karpenter requirements.
 */
#include "cli.h"

#include <math.h>
#include <string.h>

#define FIT_SHOWN 5

static void fit_help(void)
{
    fputs("usage: kvbudget fit --model NAME|PATH --context N --concurrency C "
          "[--cloud aws|gcp|azure] [--max-price USD] [--engine E]\n\n"
          "The cheapest deployments that serve --context tokens (an alias\n"
          "of --max-model-len) to --concurrency requests at once: every\n"
          "instance preset, every engine kvbudget models (or --engine's),\n"
          "the model's own weights, FP8, AWQ and GPTQ (a published\n"
          "checkpoint where one exists), and each tensor-parallel size its\n"
          "GPUs allow; cheapest first, then the higher precision, then the\n"
          "more concurrency.  Each with its $/1M tokens (decode roofline),\n"
          "engine flags, a Kubernetes container args: block and Karpenter\n"
          "NodePool requirements.\n\n",
          stdout);
    cli_print_input_help(stdout);
    fputs("\nExit status: 0 something fits, 1 nothing does, 2 usage or input "
          "error.\n",
          stdout);
}

typedef struct option_row {
    kvb_fix fix; /* the deployment as a fix: renders like one */
    kvb_plan plan;
} option_row;

static int weight_bits(int32_t method)
{
    return method == KVB_QUANT_FP8                                   ? 8
           : method == KVB_QUANT_AWQ_4 || method == KVB_QUANT_GPTQ_4 ? 4
                                                                     : 16;
}

/* Cheaper first, then higher precision, then more concurrency. */
static bool better(const option_row *a, const option_row *b)
{
    if (a->fix.price_per_hour != b->fix.price_per_hour)
        return a->fix.price_per_hour < b->fix.price_per_hour;
    int pa = weight_bits(a->fix.quant_method);
    int pb = weight_bits(b->fix.quant_method);
    if (pa != pb)
        return pa > pb;
    return a->fix.max_concurrency > b->fix.max_concurrency;
}

/* The format can run on the GPU (compute capability; 0 unknown). */
static bool runs_on(int32_t method, uint32_t cc)
{
    if (!cc)
        return true;
    if (method == KVB_QUANT_FP8)
        return cc >= 89;
    if (method == KVB_QUANT_AWQ_4 || method == KVB_QUANT_GPTQ_4)
        return cc >= 75;
    return true;
}

/* The best option of one instance (engine x format x TP), if any fits. */
static bool plan_instance(const cli_inputs *base, const kvb_instance *inst,
                          int32_t only_engine, option_row *best)
{
    static const int32_t formats[] = {KVB_QUANT_AUTO, KVB_QUANT_FP8,
                                      KVB_QUANT_AWQ_4, KVB_QUANT_GPTQ_4};
    kvb_gpu g;
    if (KVB_GPU_INIT(&g) || kvb_instance_gpu(inst, &g, NULL) != KVB_OK)
        return false;
    bool found = false;
    for (int32_t e = 0; kvb_engine_name(e); e++) {
        if (!kvb_engine_available(e) || (only_engine >= 0 && e != only_engine))
            continue;
        for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
            int32_t method = formats[f];
            if (method != KVB_QUANT_AUTO &&
                base->quant.method != KVB_QUANT_AUTO)
                continue; /* a quantized model stays as it is */
            if (!runs_on(method, g.compute_capability))
                continue;
            for (uint32_t tp = g.count; tp >= 1; tp /= 2) {
                kvb_quant q = base->quant;
                kvb_serving s = base->serving;
                option_row r;
                if (method != KVB_QUANT_AUTO)
                    q.method = method;
                if ((only_engine < 0 &&
                     kvb_serving_engine_set(&s, kvb_engine_name(e), NULL) !=
                         KVB_OK) ||
                    KVB_PLAN_INIT(&r.plan))
                    break;
                s.tensor_parallel_size = tp;
                if (kvb_plan_compute(&base->model, &q, &g, &s, &r.plan, NULL) !=
                        KVB_OK ||
                    !r.plan.fits)
                    continue;
                if (KVB_FIX_INIT(&r.fix))
                    return found;
                kvb_fix *x = &r.fix;
                x->kind = KVB_FIX_INSTANCE;
                x->fits = 1;
                x->verdict = r.plan.verdict;
                x->engine = e;
                x->quant_method = q.method;
                x->kv_cache_dtype = q.kv_cache_dtype;
                x->enforce_eager = s.enforce_eager;
                x->gpu_memory_utilization = r.plan.gpu_memory_utilization;
                x->max_model_len = r.plan.max_model_len;
                x->tensor_parallel_size = tp;
                x->pipeline_parallel_size = 1;
                snprintf(x->gpu_name, sizeof x->gpu_name, "%s", g.name);
                x->gpu_total_bytes = g.total_bytes;
                x->gpu_count = g.count;
                snprintf(x->instance, sizeof x->instance, "%s", inst->name);
                snprintf(x->cloud, sizeof x->cloud, "%s", inst->cloud);
                x->price_per_hour = inst->price_per_hour;
                x->weights_bytes = r.plan.weights_bytes;
                x->weights_bytes_per_gpu = r.plan.weights_bytes_per_gpu;
                x->kv_budget_bytes_per_gpu = r.plan.kv_budget_bytes_per_gpu;
                x->max_kv_tokens = r.plan.max_kv_tokens;
                x->max_concurrency = r.plan.max_concurrency;
                x->max_model_len_fit = r.plan.max_model_len_fit;
                if (kvb_fix_cost(x, s.concurrency, &x->usd_per_million_tokens,
                                 NULL) != KVB_OK)
                    x->usd_per_million_tokens = 0;
                snprintf(x->title, sizeof x->title, "%s with %s, %s, TP %u",
                         inst->name, cli_engine_label(e),
                         q.method == KVB_QUANT_AUTO
                             ? kvb_dtype_name(base->model.dtype)
                             : kvb_quant_method_name(q.method),
                         tp);
                size_t row;
                if (kvb_preset_checkpoint_find(base->model.name, q.method, &row,
                                               NULL) == KVB_OK)
                    snprintf(x->checkpoint, sizeof x->checkpoint, "%s",
                             kvb_preset_checkpoint_name(row));
                if (!found || better(&r, best))
                    *best = r;
                found = true;
                break; /* the largest TP that fits for this format */
            }
        }
    }
    return found;
}

static void print_option(const cli_inputs *in, const option_row *r, size_t i)
{
    const kvb_fix *f = &r->fix;
    char text[2048];
    const char *quant = f->quant_method == KVB_QUANT_AUTO
                            ? kvb_dtype_name(in->model.dtype)
                            : kvb_quant_method_name(f->quant_method);
    printf("  %zu. %s (%u x %s, %s, $%.2f/h): %s, %s, TP %u: %.2fx the "
           "context at once (%llu KV tokens, %.2f GiB KV cache per GPU)\n",
           i + 1, f->instance, f->gpu_count, f->gpu_name, f->cloud,
           f->price_per_hour, cli_engine_label(f->engine), quant ? quant : "?",
           f->tensor_parallel_size, f->max_concurrency,
           (unsigned long long)f->max_kv_tokens,
           (double)f->kv_budget_bytes_per_gpu / 1073741824.0);
    if (f->usd_per_million_tokens > 0)
        printf("       from $%.2f per 1M tokens at %u requests at once "
               "(decode roofline)\n",
               f->usd_per_million_tokens,
               in->serving.concurrency ? in->serving.concurrency : 1);
    if (kvb_fix_render(f, &in->model, KVB_RENDER_VLLM_ARGS, text, sizeof text,
                       NULL, NULL) == KVB_OK)
        printf("       %s flags: %s\n", cli_engine_label(f->engine), text);
    if (kvb_fix_render(f, &in->model, KVB_RENDER_K8S_ARGS, text, sizeof text,
                       NULL, NULL) == KVB_OK) {
        fputs("       Kubernetes container:\n", stdout);
        for (const char *l = text; *l;) {
            const char *end = strchr(l, '\n');
            int n = end ? (int)(end - l) : (int)strlen(l);
            printf("         %.*s\n", n, l);
            l = end ? end + 1 : l + n;
        }
    }
    if (kvb_fix_render(f, &in->model, KVB_RENDER_KARPENTER, text, sizeof text,
                       NULL, NULL) == KVB_OK) {
        fputs("       Karpenter NodePool:\n", stdout);
        for (const char *l = text; *l;) {
            const char *end = strchr(l, '\n');
            int n = end ? (int)(end - l) : (int)strlen(l);
            printf("         %.*s\n", n, l);
            l = end ? end + 1 : l + n;
        }
    }
}

int kvb_cli_fit(int argc, char **argv)
{
    cli_opts o;
    cli_inputs in;
    int rc = cli_parse("fit", argc, argv, &o);
    if (rc)
        return rc;
    if (o.help) {
        fit_help();
        return 0;
    }
    if (o.npositional || o.gpu || o.instance || o.gpu_memory_set) {
        cli_error("fit",
                  "%s; fit searches the instance presets (see "
                  "`kvbudget fit --help`)",
                  o.npositional ? "unexpected argument"
                                : "--gpu, --gpu-memory and --instance are "
                                  "for plan and fix");
        return CLI_EXIT_USAGE;
    }
    cli_inputs_init(&in);
    if ((rc = cli_inputs_apply(&o, &in)))
        return rc;
    if (!in.have_model) {
        cli_error("fit", "--model is required");
        return CLI_EXIT_USAGE;
    }
    static option_row rows[256];
    size_t n = 0;
    for (size_t i = 0; i < kvb_preset_instance_count() && n < 256; i++) {
        kvb_instance inst;
        if (KVB_INSTANCE_INIT(&inst) ||
            kvb_preset_instance_get(i, &inst, NULL) != KVB_OK ||
            (in.cloud[0] && strcmp(inst.cloud, in.cloud) != 0) ||
            !(inst.price_per_hour > 0) ||
            (in.max_price > 0 && inst.price_per_hour > in.max_price))
            continue;
        option_row r;
        if (!plan_instance(&in, &inst, o.engine ? in.serving.engine : -1, &r))
            continue;
        size_t at = n++;
        while (at > 0 && better(&r, &rows[at - 1])) {
            rows[at] = rows[at - 1];
            at--;
        }
        rows[at] = r;
    }
    size_t shown = n < FIT_SHOWN ? n : FIT_SHOWN;
    if (o.json) {
        json_t *a = json_array();
        for (size_t i = 0; i < shown; i++) {
            cli_inputs one = in;
            json_t *fx = cli_fixes_json(&one, &rows[i].fix, 1);
            json_t *x = json_incref(json_array_get(fx, 0));
            json_decref(fx);
            json_object_set_new(
                x, "engine", json_string(kvb_engine_name(rows[i].fix.engine)));
            json_array_append_new(a, x);
        }
        json_t *j = json_object();
        json_object_set_new(j, "model", json_string(in.model.name));
        json_object_set_new(j, "context",
                            json_integer((json_int_t)in.serving.max_model_len));
        json_object_set_new(j, "concurrency",
                            json_integer((json_int_t)in.serving.concurrency));
        json_object_set_new(j, "deployments_that_fit",
                            json_integer((json_int_t)n));
        json_object_set_new(j, "cheapest", a);
        if ((rc = cli_json_print("fit", j)))
            return rc;
        return n ? CLI_EXIT_FITS : CLI_EXIT_NOFIT;
    }
    printf("%s at %llu tokens x %u requests at once%s%s%s: %zu instance "
           "presets serve it\n",
           in.model.name, (unsigned long long)in.serving.max_model_len,
           in.serving.concurrency ? in.serving.concurrency : 1,
           in.cloud[0] ? " on " : "", in.cloud,
           in.max_price > 0 ? " under the price" : "", n);
    if (!n) {
        puts("Nothing fits: a shorter --context, fewer --concurrency, or a "
             "higher --max-price.");
        return CLI_EXIT_NOFIT;
    }
    printf("\nCheapest first (then higher precision, then more "
           "concurrency):\n");
    for (size_t i = 0; i < shown; i++)
        print_option(&in, &rows[i], i);
    return CLI_EXIT_FITS;
}
