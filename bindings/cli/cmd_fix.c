/*
 * cmd_fix.c -- `kvbudget fix`: the remedies for a plan that does not fit,
 * in the order an operator tries them, each re-planned by kvb_advise().
 */
#include "cli.h"

static void fix_help(void)
{
    fputs("usage: kvbudget fix --model NAME|PATH (--gpu NAME[:N] | "
          "--gpu-memory SIZE | --instance NAME) [flags]\n\n"
          "For a plan that does not fit (or holds fewer requests than\n"
          "--concurrency), the remedies in the order to try them: lower\n"
          "--max-model-len, change --gpu-memory-utilization, --enforce-eager,\n"
          "an FP8 KV cache, combined changes on the GPUs at hand (FP8/AWQ\n"
          "weights, TP over them, utilization, eager, FP8 KV cache, a\n"
          "shorter context), a\n"
          "smaller weight format (a published checkpoint, or how to make\n"
          "one), tensor parallelism, a bigger instance (the same family\n"
          "first; --cloud aws|gcp|azure and --max-price USD filter them).\n"
          "Each is re-planned and shown with its predicted KV tokens and\n"
          "concurrency, what it gives up (context, concurrency, speed,\n"
          "quality, money) and whether it is on the Pareto front, as engine\n"
          "flags, a Kubernetes container args: block and, for instances, a\n"
          "Karpenter NodePool requirements: snippet.\n\n",
          stdout);
    cli_print_input_help(stdout);
    fputs("\nExit status: 0 the plan already fits, 1 it does not (remedies "
          "listed),\n2 usage or input error.\n",
          stdout);
}

static int fix_output(const cli_opts *o, const cli_inputs *in,
                      const kvb_plan *p, const kvb_fix *fixes, size_t n)
{
    if (o->json) {
        json_t *j = cli_plan_json(in, p);
        json_object_set_new(j, "fixes", cli_fixes_json(in, fixes, n));
        return cli_json_print("fix", j);
    }
    cli_style st;
    cli_style_init(&st);
    cli_print_plan_line(stdout, &st, in, p);
    cli_print_verdict(stdout, &st, p);
    if (p->fits)
        puts("Nothing to fix.");
    else
        cli_print_fixes(stdout, &st, in, fixes, n);
    return 0;
}

int kvb_cli_fix(int argc, char **argv)
{
    cli_opts o;
    cli_inputs in;
    kvb_plan p;
    kvb_fix fixes[KVB_ADVICE_MAX];
    size_t n = 0;
    int rc = cli_parse("fix", argc, argv, &o);
    if (rc)
        return rc;
    if (o.help) {
        fix_help();
        return 0;
    }
    if (o.npositional) {
        cli_error("fix", "unexpected argument %s; see `kvbudget fix --help`",
                  o.positional[0]);
        return CLI_EXIT_USAGE;
    }
    cli_inputs_init(&in);
    if ((rc = cli_inputs_apply(&o, &in)) ||
        (rc = cli_inputs_require(&o, &in)) || (rc = cli_plan("fix", &in, &p)) ||
        (rc = cli_advise("fix", &in, fixes, KVB_ADVICE_MAX, &n)))
        return rc;
    cli_fixes_keep_checkpoint(o.model, &in, fixes, n);
    if ((rc = fix_output(&o, &in, &p, fixes, n)))
        return rc;
    return p.fits ? CLI_EXIT_FITS : CLI_EXIT_NOFIT;
}
