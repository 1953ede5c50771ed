/*
 * probe_default.c -- stand-ins for `kvbudget probe` and `kvbudget
 * validate`, used until cmd_probe.c (the GPU probe) is linked in: its
 * strong definitions replace these weak ones.
 */
#include "cli.h"

__attribute__((weak)) int kvb_cli_probe(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("kvbudget probe: not available in this build\n", stderr);
    return CLI_EXIT_USAGE;
}

__attribute__((weak)) int kvb_cli_validate(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("kvbudget validate: not available in this build\n", stderr);
    return CLI_EXIT_USAGE;
}
