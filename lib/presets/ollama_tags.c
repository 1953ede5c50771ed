/*
 * presets/ollama_tags.c -- an Ollama library name as people type it
 * (`ollama run llama3.1:8b`, `qwen3:30b`, `gpt-oss:20b`,
 * `llama3.1:8b-instruct-q8_0`) to a preset and the GGUF format the tag
 * pulls.  The local Ollama store, read exactly, comes first where a
 * caller has one (the CLI tries ollama://NAME:TAG before this table);
 * this table answers when the model has not been pulled yet.
 *
 * The rows are data/ollama_tags.tsv (NAME:SIZE as ollama.com/library
 * lists it, the preset of the same weights, the quantization of the size
 * tag's default file, and the size the library page lists, which the
 * default's computed file size equals); scripts/gen_presets.py generates
 * kvb__ollama_tag_rows from it.  A name not there is not guessed.
 */
#include "internal.h"
#include "presets/tables.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* `text` (n bytes) equals `want`, ignoring case. */
static bool same(const char *text, size_t n, const char *want)
{
    if (strlen(want) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)text[i]) != tolower((unsigned char)want[i]))
            return false;
    return true;
}

/* The quantization a tag's last "-" part names ("8b-instruct-q8_0",
 * "70b-fp16"); AUTO when it names none. */
static kvb_status tag_quant(const char *tag, int32_t *method)
{
    const char *dash = strrchr(tag, '-');
    *method = KVB_QUANT_AUTO;
    if (!dash)
        return KVB_OK;
    const char *q = dash + 1;
    if (same(q, strlen(q), "fp16") || same(q, strlen(q), "f16")) {
        *method = KVB_QUANT_FP16;
        return KVB_OK;
    }
    if (tolower((unsigned char)q[0]) != 'q' &&
        tolower((unsigned char)q[0]) != 'i')
        return KVB_OK; /* "instruct", "text": a flavour, not a format */
    return kvb_quant_method_find(q, method, NULL) == KVB_OK ? KVB_OK
                                                            : KVB_EUNSUPPORTED;
}

kvb_status kvb__ollama_tag_find(const char *name, const char **preset,
                                kvb_quant *quant, char *note, size_t cap,
                                kvb_error *err)
{
    const char *colon = strchr(name, ':');
    if (!colon || strchr(name, '/'))
        return KVB_ENOTFOUND;
    /* NAME:SIZE, then an optional -flavour-quant tail */
    const char *tail = strchr(colon, '-');
    size_t n = tail ? (size_t)(tail - name) : strlen(name);
    const kvb__ollama_tag_row *t = NULL;
    for (size_t i = 0; i < kvb__ollama_tag_rows_count && !t; i++)
        if (same(name, n, kvb__ollama_tag_rows[i].name))
            t = &kvb__ollama_tag_rows[i];
    if (!t)
        return KVB_ENOTFOUND;
    int32_t method;
    if (tag_quant(colon + 1, &method))
        return kvb__fail(err, KVB_EUNSUPPORTED, "name",
                         "%s: the quantization in the tag is not one this "
                         "version sizes; allowed: a q*/iq*/fp16 name of "
                         "`kvbudget list quants`",
                         name);
    bool dflt = method == KVB_QUANT_AUTO;
    quant->method = dflt ? t->method : method;
    *preset = t->preset;
    if (note && cap)
        snprintf(note, cap,
                 "Ollama library tag %.*s: %s at %s%s; pull it (or give "
                 "the GGUF) for the exact file",
                 (int)n, name, t->preset, kvb_quant_method_name(quant->method),
                 dflt ? " (the tag's default file)" : "");
    return KVB_OK;
}
