/*
 * cmd_plan.c -- `kvbudget plan`: the capacity plan of one deployment.
 */
#include "cli.h"

#include <string.h>

static void plan_help(void)
{
    fputs("usage: kvbudget plan --model NAME|PATH (--gpu NAME[:N] | "
          "--gpu-memory SIZE | --instance NAME) [flags]\n\n"
          "How much GPU memory a serving engine (vLLM, SGLang, llama.cpp,\n"
          "Ollama, TensorRT-LLM, TGI) will use, how many KV-cache tokens fit,\n"
          "and whether the plan fits: a table of the budget terms, a verdict,\n"
          "and a bar of the GPU's memory.\n\n",
          stdout);
    cli_print_input_help(stdout);
    fputs("\nExit status: 0 the plan fits, 1 it does not, 2 usage or input "
          "error.\n",
          stdout);
}

/* kvb_plan_hints(), one line per hint; "" when none applies. */
static void plan_hints(const cli_inputs *in, const kvb_plan *p, char *buf,
                       size_t cap)
{
    if (kvb_plan_hints(&in->model, &in->quant, &in->gpu, &in->serving, p, buf,
                       cap, NULL, NULL) != KVB_OK)
        buf[0] = '\0';
}

static void print_hints(const char *hints)
{
    if (!hints[0])
        return;
    fputs("\nHints:\n", stdout);
    for (const char *l = hints; *l;) {
        const char *end = strchr(l, '\n');
        int n = end ? (int)(end - l) : (int)strlen(l);
        printf("  - %.*s\n", n, l);
        l = end ? end + 1 : l + n;
    }
}

static json_t *hints_json(const char *hints)
{
    json_t *a = json_array();
    for (const char *l = hints; *l;) {
        const char *end = strchr(l, '\n');
        size_t n = end ? (size_t)(end - l) : strlen(l);
        json_array_append_new(a, json_stringn(l, n));
        l = end ? end + 1 : l + n;
    }
    return a;
}

/* `plan --engine all`: the plan on every engine, as `compare` gives it. */
static int engine_all(int argc, char **argv)
{
    static char *rest[CLI_MAX_ENGINE_WORDS * 2 + 64];
    int n = 0;
    bool all = false;
    for (int i = 0; i < argc && n < (int)(sizeof rest / sizeof rest[0]); i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--engine") &&
            !strcmp(argv[i + 1], "all")) {
            all = true;
            i++;
            continue;
        }
        if (!strcmp(argv[i], "--engine=all")) {
            all = true;
            continue;
        }
        rest[n++] = argv[i];
    }
    return all ? kvb_cli_compare(n, rest) : -1;
}

int kvb_cli_plan(int argc, char **argv)
{
    int all = engine_all(argc, argv);
    if (all >= 0)
        return all;
    cli_opts o;
    cli_inputs in;
    kvb_plan p;
    int rc = cli_parse("plan", argc, argv, &o);
    if (rc)
        return rc;
    if (o.help) {
        plan_help();
        return 0;
    }
    if (o.npositional) {
        cli_error("plan",
                  "unexpected argument %s; see `kvbudget plan "
                  "--help`",
                  o.positional[0]);
        return CLI_EXIT_USAGE;
    }
    cli_inputs_init(&in);
    if ((rc = cli_inputs_apply(&o, &in)) ||
        (rc = cli_inputs_require(&o, &in)) || (rc = cli_plan("plan", &in, &p)))
        return rc;
    char hints[2048];
    plan_hints(&in, &p, hints, sizeof hints);
    if (o.json) {
        json_t *j = cli_plan_json(&in, &p);
        json_object_set_new(j, "hints", hints_json(hints));
        if ((rc = cli_json_print("plan", j)))
            return rc;
    } else {
        cli_style st;
        cli_style_init(&st);
        cli_print_plan(stdout, &st, &in, &p);
        print_hints(hints);
    }
    return p.fits ? CLI_EXIT_FITS : CLI_EXIT_NOFIT;
}
