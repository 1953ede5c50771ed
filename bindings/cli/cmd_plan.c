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

int kvb_cli_plan(int argc, char **argv)
{
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
    if (o.json) {
        if ((rc = cli_json_print("plan", cli_plan_json(&in, &p))))
            return rc;
    } else {
        cli_style st;
        cli_style_init(&st);
        cli_print_plan(stdout, &st, &in, &p);
    }
    return p.fits ? CLI_EXIT_FITS : CLI_EXIT_NOFIT;
}
