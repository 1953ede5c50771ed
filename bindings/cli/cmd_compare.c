/*
 * cmd_compare.c -- `kvbudget compare`: the same model, GPUs and goal
 * planned on every engine this build models (kvb_engine_available), side
 * by side, with what each needs when it does not fit: "vLLM or SGLang or
 * llama.cpp for this box?".
 */
#include "cli.h"

#include <string.h>

static void compare_help(void)
{
    fputs("usage: kvbudget compare --model NAME|PATH (--gpu NAME[:N] | "
          "--gpu-memory SIZE | --instance NAME) [flags]\n\n"
          "The plan on every engine kvbudget models, side by side: KV "
          "tokens,\nconcurrency at --max-model-len, weights and KV cache "
          "per GPU, and,\nfor an engine where it does not fit, the first "
          "remedy that does\n(re-planned, as `fix` gives it).  Engines not "
          "modelled in this build\nare named at the end.\n\n",
          stdout);
    cli_print_input_help(stdout);
    fputs("\nExit status: 0 at least one engine fits, 1 none does, 2 usage "
          "or input\nerror.\n",
          stdout);
}

typedef struct row {
    int32_t engine;
    kvb_status status;
    char error[256];
    kvb_plan plan;
    kvb_fix fix; /* the first fitting remedy; fix.fits 0: none */
    cli_inputs in;
} row;

static void plan_row(const cli_inputs *base, int32_t engine, row *r)
{
    kvb_error e = KVB_ERROR_INIT;
    r->engine = engine;
    r->in = *base;
    r->fix.fits = 0;
    r->error[0] = '\0';
    r->status =
        kvb_serving_engine_set(&r->in.serving, kvb_engine_name(engine), &e);
    if (!r->status && (r->status = KVB_PLAN_INIT(&r->plan)) == KVB_OK)
        r->status = kvb_plan_compute(&r->in.model, &r->in.quant, &r->in.gpu,
                                     &r->in.serving, &r->plan, &e);
    if (r->status) {
        snprintf(r->error, sizeof r->error, "%s", e.message);
        return;
    }
    if (r->plan.fits)
        return;
    kvb_fix fixes[KVB_ADVICE_MAX];
    size_t n = 0;
    kvb_advice_options o;
    if (KVB_ADVICE_OPTIONS_INIT(&o) || KVB_FIX_INIT(&fixes[0]))
        return;
    snprintf(o.instance, sizeof o.instance, "%s", base->instance);
    if (kvb_advise(&r->in.model, &r->in.quant, &r->in.gpu, &r->in.serving, &o,
                   fixes, KVB_ADVICE_MAX, &n, NULL) != KVB_OK)
        return;
    for (size_t i = 0; i < n; i++)
        if (fixes[i].fits) {
            r->fix = fixes[i];
            return;
        }
}

static json_t *row_json(const row *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "engine", json_string(kvb_engine_name(r->engine)));
    if (r->status) {
        json_object_set_new(o, "error", json_string(r->error));
        return o;
    }
    json_t *p = cli_plan_json(&r->in, &r->plan);
    json_object_set_new(o, "fits", json_boolean(r->plan.fits));
    json_object_set_new(o, "plan", p);
    json_object_set_new(o, "needs",
                        r->fix.fits ? cli_fixes_json(&r->in, &r->fix, 1)
                                    : json_array());
    return o;
}

static void print_rows(const row *rows, size_t n)
{
    printf("\n  %-12s %-5s %10s %12s %12s %13s\n", "engine", "fits",
           "KV tokens", "concurrency", "weights/GPU", "KV cache/GPU");
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        if (r->status) {
            printf("  %-12s error: %s\n", cli_engine_label(r->engine),
                   r->error);
            continue;
        }
        const kvb_plan *p = &r->plan;
        printf("  %-12s %-5s %10llu %11.2fx %8.2f GiB %9.2f GiB\n",
               cli_engine_label(r->engine), p->fits ? "yes" : "no",
               (unsigned long long)p->max_kv_tokens, p->max_concurrency,
               (double)p->weights_bytes_per_gpu / 1073741824.0,
               (double)p->kv_budget_bytes_per_gpu / 1073741824.0);
    }
    puts("");
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        if (r->status)
            continue;
        char flags[1024] = "";
        if (r->plan.fits) {
            printf("%s: fits (%s).\n", cli_engine_label(r->engine),
                   r->plan.message);
            continue;
        }
        printf("%s: does not fit (%s).\n", cli_engine_label(r->engine),
               kvb_verdict_name(r->plan.verdict));
        if (!r->fix.fits) {
            puts("  needs: no remedy fits on these GPUs or the instance "
                 "presets.");
            continue;
        }
        printf("  needs: %s\n", r->fix.title);
        if (kvb_fix_render(&r->fix, &r->in.model, KVB_RENDER_VLLM_ARGS, flags,
                           sizeof flags, NULL, NULL) == KVB_OK)
            printf("  %s flags: %s\n", cli_engine_label(r->engine), flags);
    }
}

int kvb_cli_compare(int argc, char **argv)
{
    cli_opts o;
    cli_inputs in;
    int rc = cli_parse("compare", argc, argv, &o);
    if (rc)
        return rc;
    if (o.help) {
        compare_help();
        return 0;
    }
    if (o.npositional) {
        cli_error("compare",
                  "unexpected argument %s; see `kvbudget compare "
                  "--help`",
                  o.positional[0]);
        return CLI_EXIT_USAGE;
    }
    cli_inputs_init(&in);
    if ((rc = cli_inputs_apply(&o, &in)) || (rc = cli_inputs_require(&o, &in)))
        return rc;
    static row rows[KVB_ENGINE_LAST_];
    size_t n = 0;
    bool any = false;
    char missing[256] = "";
    for (int32_t e = 0; kvb_engine_name(e); e++) {
        if (!kvb_engine_available(e)) {
            size_t len = strlen(missing);
            snprintf(missing + len, sizeof missing - len, "%s%s",
                     len ? ", " : "", cli_engine_label(e));
            continue;
        }
        plan_row(&in, e, &rows[n]);
        any |= !rows[n].status && rows[n].plan.fits;
        n++;
    }
    if (o.json) {
        json_t *j = json_object();
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(a, row_json(&rows[i]));
        json_object_set_new(j, "engines", a);
        json_object_set_new(j, "not_modelled", json_string(missing));
        if ((rc = cli_json_print("compare", j)))
            return rc;
    } else {
        cli_style st;
        cli_style_init(&st);
        for (size_t i = 0; i < n; i++)
            if (!rows[i].status) {
                cli_print_plan_line(stdout, &st, &rows[i].in, &rows[i].plan);
                break;
            }
        print_rows(rows, n);
        if (missing[0])
            printf("\nNot modelled in this build: %s.\n", missing);
    }
    return any ? CLI_EXIT_FITS : CLI_EXIT_NOFIT;
}
