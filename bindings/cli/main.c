/*
 * main.c -- `kvbudget`: dispatch to a subcommand, --version, --help.
 */
#include "cli.h"

#include <string.h>

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"plan", kvb_cli_plan,
     "the capacity plan: memory terms, KV tokens, "
     "verdict"},
    {"fix", kvb_cli_fix,
     "remedies for a plan that does not fit, each "
     "re-planned"},
    {"explain", kvb_cli_explain,
     "what an engine's or a CUDA OOM log means and what "
     "to do"},
    {"check", kvb_cli_check,
     "Kubernetes manifests: which serving pods will crash-loop, and the "
     "patch"},
    {"compare", kvb_cli_compare,
     "the same plan on every engine kvbudget models, side by side"},
    {"fit", kvb_cli_fit,
     "the cheapest instances, engines and formats that serve a goal"},
    {"list", kvb_cli_list,
     "presets: models, gpus, instances, quants, checkpoints"},
    {"probe", kvb_cli_probe, "measure this machine's GPUs (CUDA builds)"},
    {"validate", kvb_cli_validate,
     "check a plan against real allocations "
     "(CUDA builds)"},
};

static void usage(FILE *out)
{
    fputs(
        "usage: kvbudget <command> [flags]\n\n"
        "Predicts how much GPU memory an LLM serving engine will use and how\n"
        "many KV-cache\n"
        "tokens fit, before deploying, and explains OOM crashes in terms\n"
        "of their fix.\n\nCommands:\n",
        out);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\n  kvbudget <command> --help   flags of one command\n"
          "  kvbudget --version          the command's and the library's "
          "version\n\n"
          "Example:\n"
          "  kvbudget plan --model Llama-3.1-8B --gpu A10G --max-model-len "
          "32768\n\n"
          "Exit status: 0 the plan fits, 1 it does not, 2 usage or input "
          "error.\n"
          "Colour only on a terminal; NO_COLOR turns it off.  See "
          "kvbudget(1).\n",
          out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        if (argc > 2 && strcmp(cmd, "help") == 0) {
            char *help[] = {argv[2], "--help", NULL};
            for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                if (!strcmp(commands[i].name, argv[2]))
                    return commands[i].run(2, help);
        }
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("kvbudget %s (libkvbudget %s)\n", KVB_VERSION_STRING,
               kvb_version_string());
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(commands[i].name, cmd))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(
        stderr,
        "kvbudget: unknown command %s; allowed: plan, fix, explain, "
        "compare, fit, check, list, probe, validate (see kvbudget --help)\n",
        cmd);
    return CLI_EXIT_USAGE;
}
