/*
 * kvb_web.c -- the WebAssembly entry point: run the kvbudget command with
 * an argv given as a JSON array of strings.
 *
 * The page's JS API (web/src/api.js) builds the argv from its options
 * (adding --json), captures what the command prints and parses it, so
 * every call returns exactly the object `kvbudget ... --json` prints for
 * the same inputs: the browser runs the command's own code, not a copy.
 * The CLI's main() is compiled as kvb_cli_main (web/build.sh).
 */
#include <emscripten.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

int kvb_cli_main(int argc, char **argv);
int kvb_web_run(const char *argv_json);

#define WEB_MAX_ARGS 256 /* far more than any command line the page builds */

/* The command's exit status (0 fits, 1 does not, 2 usage or input
 * error); 2 with a message on stderr when argv_json is not an array of
 * strings.  stdout and stderr are flushed before it returns, so the JS
 * side has every line. */
EMSCRIPTEN_KEEPALIVE int kvb_web_run(const char *argv_json)
{
    json_error_t jerr;
    json_t *a = json_loads(argv_json, 0, &jerr);
    char *argv[WEB_MAX_ARGS + 2];
    int argc = 0, status = 2;
    if (!json_is_array(a) || json_array_size(a) > WEB_MAX_ARGS) {
        fprintf(stderr,
                "kvbudget: the arguments are not an array of at most "
                "%d strings\n",
                WEB_MAX_ARGS);
        goto out;
    }
    argv[argc++] = "kvbudget";
    for (size_t i = 0; i < json_array_size(a); i++) {
        const char *s = json_string_value(json_array_get(a, i));
        if (!s) {
            fprintf(stderr, "kvbudget: argument %zu is not a string\n", i);
            goto out;
        }
        argv[argc++] = (char *)s; /* the command does not write to argv */
    }
    argv[argc] = NULL;
    status = kvb_cli_main(argc, argv);
out:
    json_decref(a);
    fflush(stdout);
    fflush(stderr);
    return status;
}
