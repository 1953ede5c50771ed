/*
 * model_source.c -- what a --model value is, decided in one place, and
 * reading it:
 *
 *   1. an existing local file or folder             kvb_model_read
 *   2. a preset name or alias, or a quantized variant's repository name
 *      (kvb_preset_model_resolve: the preset in the checkpoint's format);
 *      an Ollama library name (llama3.1:8b) is read from the local Ollama
 *      store when it has been pulled, else is the preset at the tag's format
 *   3. hf://... or ollama://... (explicit schemes)  kvb_model_read_ref
 *   4. ORG/REPO[@REV][:QUANT]: the HF cache, then the Hub
 *
 * A value that looks like a path but does not exist is a path error; any
 * other value gets the preset lookup's error.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* ORG/REPO[@REV][:QUANT]: one '/', not a relative or absolute path. */
static bool looks_like_repo(const char *s)
{
    const char *slash = strchr(s, '/');
    return slash && slash != s && s[0] != '.' && s[0] != '~' &&
           !strchr(slash + 1, '/') && !ends_with(s, ".json") &&
           !ends_with(s, ".gguf") && !ends_with(s, ".safetensors");
}

static bool looks_like_path(const char *s)
{
    return strchr(s, '/') || ends_with(s, ".json") || ends_with(s, ".gguf");
}

cli_model_kind cli_model_classify(const char *model)
{
    struct stat sb;
    if (stat(model, &sb) == 0)
        return CLI_MODEL_PATH;
    kvb_model m;
    kvb_error e = KVB_ERROR_INIT;
    kvb_status st = KVB_MODEL_INIT(&m);
    if (!st)
        st = kvb_preset_model_resolve(model, &m, NULL, NULL, 0, &e);
    /* A preset, a quantized variant's name, or one refused for its format
     * (NVFP4): never fetched as a guess. */
    if (st == KVB_OK || st == KVB_EUNSUPPORTED)
        return CLI_MODEL_PRESET;
    if (!strncmp(model, "hf://", 5) || !strncmp(model, "ollama://", 9) ||
        looks_like_repo(model))
        return CLI_MODEL_REF;
    return looks_like_path(model) ? CLI_MODEL_PATH : CLI_MODEL_UNKNOWN;
}

static int read_error(const cli_opts *o, const kvb_error *e)
{
    if (e->line > 0)
        cli_error(o->cmd, "--model %s: line %lld, column %lld: %s", o->model,
                  (long long)e->line, (long long)e->column, e->message);
    else
        cli_error(o->cmd, "--model %s: %s", o->model, e->message);
    return CLI_EXIT_USAGE;
}

static int from_file(const cli_opts *o, cli_inputs *in)
{
    struct stat sb;
    kvb_error e = KVB_ERROR_INIT;
    if (stat(o->model, &sb) != 0) {
        cli_error(o->cmd,
                  "--model (%s) is neither a preset (`kvbudget list "
                  "models`) nor a file or directory",
                  o->model);
        return CLI_EXIT_USAGE;
    }
    in->read.options = o->assume_llama ? KVB_READ_ASSUME_LLAMA : 0;
    if (kvb_model_read(o->model, &in->model, &in->quant, &in->read, &e))
        return read_error(o, &e);
    in->from_file = true;
    snprintf(in->model_source, sizeof in->model_source, "file");
    return 0;
}

/* Read `ref`; *status says how it went (KVB_ENOTFOUND: not there). */
static int read_ref(const cli_opts *o, const char *ref, cli_inputs *in,
                    kvb_status *status)
{
    kvb_ref_options opt;
    kvb_error e = KVB_ERROR_INIT;
    if (KVB_REF_OPTIONS_INIT(&opt))
        return CLI_EXIT_USAGE;
    if (o->cache)
        opt.flags |= KVB_REF_STORE_CACHE;
    in->read.options = o->assume_llama ? KVB_READ_ASSUME_LLAMA : 0;
    *status = kvb_model_read_ref(ref, &opt, &in->model, &in->quant, &in->read,
                                 &in->where, &e);
    if (*status == KVB_ENOTFOUND && ref != o->model)
        return 0; /* the caller has another way */
    if (*status)
        return read_error(o, &e);
    in->from_file = true;
    in->from_ref = true;
    snprintf(in->model_source, sizeof in->model_source, "%s",
             kvb_ref_source_name(in->where.source));
    return 0;
}

static int from_ref(const cli_opts *o, cli_inputs *in)
{
    kvb_status st;
    return read_ref(o, o->model, in, &st);
}

/* NAME:TAG with no '/': the model as Ollama stores it when it has been
 * pulled (exact), as `ollama run` would find it; *found says whether it
 * was. */
static int from_ollama_store(const cli_opts *o, cli_inputs *in, bool *found)
{
    char ref[300];
    kvb_status st = KVB_ENOTFOUND;
    *found = false;
    if (!strchr(o->model, ':') || strchr(o->model, '/') ||
        snprintf(ref, sizeof ref, "ollama://%s", o->model) >= (int)sizeof ref)
        return 0;
    int rc = read_ref(o, ref, in, &st);
    *found = st == KVB_OK;
    return rc;
}

int cli_model_load(const cli_opts *o, cli_inputs *in)
{
    kvb_error e = KVB_ERROR_INIT;
    int rc = 0;
    switch (cli_model_classify(o->model)) {
    case CLI_MODEL_PATH: rc = from_file(o, in); break;
    case CLI_MODEL_REF: rc = from_ref(o, in); break;
    case CLI_MODEL_PRESET: {
        bool pulled;
        if ((rc = from_ollama_store(o, in, &pulled)) != 0 || pulled)
            break;
        /* the preset in the checkpoint's own format, said aloud */
        if (kvb_preset_model_resolve(o->model, &in->model, &in->quant,
                                     in->model_note, sizeof in->model_note, &e))
            return cli_lib_error(o->cmd, &e);
        snprintf(in->model_source, sizeof in->model_source, "preset");
        if (in->model_note[0]) {
            snprintf(in->read.warning, sizeof in->read.warning, "%s",
                     in->model_note);
            in->read.warning_count = 1;
        }
        break;
    }
    default:
        /* the lookup again, for its error ("did you mean") */
        if (kvb_preset_model_resolve(o->model, &in->model, &in->quant, NULL, 0,
                                     &e) == KVB_OK)
            return 0;
        return cli_lib_error(o->cmd, &e);
    }
    if (rc)
        return rc;
    /* names and warnings come from the file: nothing in them may reach a
     * terminal raw (JSON escapes them anyway) */
    cli_scrub(in->model.name, sizeof in->model.name);
    cli_scrub(in->read.warning, sizeof in->read.warning);
    if (!o->json && in->read.warning[0]) /* --json: under "warnings" */
        fprintf(stderr, "kvbudget %s: warning%s: %s\n", o->cmd,
                in->read.warning_count > 1 ? "s" : "", in->read.warning);
    if (in->read.weights_bytes)
        in->serving.weights_bytes = in->read.weights_bytes;
    return 0;
}
