/*
 * readers/json.c -- JSON for the readers: jansson parses, and a small scanner
 * finds where a value sits in the text so that an error about a value
 * ("num_hidden_layers is a string") carries its line and column, which
 * jansson only gives for syntax errors.
 *
 * Before jansson sees the text, one pass checks the nesting depth: a
 * hostile "[[[[..." must not reach any recursive parser.
 */
#include "internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

typedef struct scan {
    const char *s;
    size_t n, i;
    int64_t line;
    size_t line_start; /* index of the first byte of the current line */
} scan;

/* 1-based column in characters (UTF-8 continuation bytes do not count),
 * as jansson counts them. */
static int64_t column_of(const scan *c)
{
    int64_t col = 1;
    for (size_t k = c->line_start; k < c->i && k < c->n; k++)
        if (((unsigned char)c->s[k] & 0xC0) != 0x80)
            col++;
    return col;
}

static void newline(scan *c)
{
    c->line++;
    c->line_start = c->i + 1;
}

static void skip_ws(scan *c)
{
    while (c->i < c->n) {
        char ch = c->s[c->i];
        if (ch == '\n')
            newline(c);
        else if (ch != ' ' && ch != '\t' && ch != '\r')
            return;
        c->i++;
    }
}

/* At an opening quote: move past the closing one. */
static void skip_string(scan *c)
{
    c->i++;
    while (c->i < c->n && c->s[c->i] != '"') {
        if (c->s[c->i] == '\\')
            c->i++;
        c->i++;
    }
    c->i++;
}

static void skip_value(scan *c)
{
    skip_ws(c);
    if (c->i >= c->n)
        return;
    char ch = c->s[c->i];
    if (ch == '"') {
        skip_string(c);
        return;
    }
    if (ch != '{' && ch != '[') {
        while (c->i < c->n && !strchr(",]} \t\r\n", c->s[c->i]))
            c->i++;
        return;
    }
    size_t depth = 0;
    while (c->i < c->n) {
        ch = c->s[c->i];
        if (ch == '"') {
            skip_string(c);
            continue;
        }
        if (ch == '\n')
            newline(c);
        else if (ch == '{' || ch == '[')
            depth++;
        else if ((ch == '}' || ch == ']') && --depth == 0) {
            c->i++;
            return;
        }
        c->i++;
    }
}

static bool key_is(const scan *c, size_t start, size_t end, const char *key)
{
    size_t n = strlen(key);
    return end - start == n && memcmp(c->s + start, key, n) == 0;
}

static bool find(scan *c, const char *const *path, size_t depth, size_t k);

/* A repeated key: jansson keeps the last value, so the last one counts. */
static bool find_member(scan *c, const char *const *path, size_t depth,
                        size_t k)
{
    scan last = *c;
    bool found = false;
    c->i++; /* '{' */
    for (;;) {
        skip_ws(c);
        if (c->i >= c->n || c->s[c->i] != '"')
            break;
        size_t start = c->i + 1;
        skip_string(c);
        size_t end = c->i - 1;
        skip_ws(c);
        if (c->i >= c->n || c->s[c->i] != ':')
            break;
        c->i++;
        if (end >= start && key_is(c, start, end, path[k])) {
            last = *c;
            found = true;
        }
        skip_value(c);
        skip_ws(c);
        if (c->i >= c->n || c->s[c->i] != ',')
            break;
        c->i++;
    }
    *c = last;
    return found && find(c, path, depth, k + 1);
}

static bool find_element(scan *c, const char *const *path, size_t depth,
                         size_t k)
{
    char *end = NULL;
    unsigned long want = strtoul(path[k] + 1, &end, 10);
    if (!end || *end != ']')
        return false;
    c->i++; /* '[' */
    for (unsigned long idx = 0;; idx++) {
        skip_ws(c);
        if (c->i >= c->n || c->s[c->i] == ']')
            return false;
        if (idx == want)
            return find(c, path, depth, k + 1);
        skip_value(c);
        skip_ws(c);
        if (c->i >= c->n || c->s[c->i] != ',')
            return false;
        c->i++;
    }
}

static bool find(scan *c, const char *const *path, size_t depth, size_t k)
{
    skip_ws(c);
    if (c->i >= c->n)
        return false;
    if (k == depth)
        return true;
    if (c->s[c->i] == '{' && path[k][0] != '[')
        return find_member(c, path, depth, k);
    if (c->s[c->i] == '[' && path[k][0] == '[')
        return find_element(c, path, depth, k);
    return false;
}

bool kvb__json_locate(const kvb__reader *r, const char *const *path,
                      size_t depth, int64_t pos[3])
{
    if (!r->json)
        return false;
    scan c = {r->json, r->json_len, 0, 1, 0};
    if (!find(&c, path, depth, 0))
        return false;
    pos[0] = c.line;
    pos[1] = column_of(&c);
    pos[2] = (int64_t)(r->json_base + c.i);
    return true;
}

kvb_status kvb__json_fail(kvb__reader *r, kvb_status status,
                          const char *const *path, size_t depth,
                          const char *field, const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    int64_t pos[3] = {-1, -1, -1};
    /* The value itself, else the closest enclosing one that exists. */
    for (size_t d = depth + 1; d-- > 0;)
        if (kvb__json_locate(r, path, d, pos))
            break;
    return kvb__read_fail(r, status, field, pos[0], pos[1], pos[2], "%s", text);
}

/* The shape check: a linear pass, strings skipped, before any tree is
 * built.  Nesting deeper than KVB_READ_MAX_JSON_DEPTH is refused, and so
 * is a text with more than max_tokens structural bytes ('{', '[', ',',
 * ':'): jansson spends 50 to 150 bytes per value, so "[],[],..." would
 * cost 50 times its size; the caller's cap is what its format can hold. */
static kvb_status check_shape(kvb__reader *r, const char *what,
                              uint64_t max_tokens)
{
    scan c = {r->json, r->json_len, 0, 1, 0};
    size_t depth = 0;
    uint64_t tokens = 0;
    while (c.i < c.n) {
        char ch = c.s[c.i];
        if (ch == '"') {
            skip_string(&c);
            continue;
        }
        if (ch == '\n')
            newline(&c);
        else if (ch == '{' || ch == '[')
            depth++, tokens++;
        else if ((ch == '}' || ch == ']') && depth)
            depth--;
        else if (ch == ',' || ch == ':')
            tokens++;
        if (tokens > max_tokens)
            return kvb__read_fail(r, KVB_ELIMIT, what, c.line, column_of(&c),
                                  (int64_t)(r->json_base + c.i),
                                  "%s holds more than %llu values; allowed: "
                                  "what a %s holds",
                                  what, (unsigned long long)max_tokens, what);
        if (depth > KVB_READ_MAX_JSON_DEPTH)
            return kvb__read_fail(r, KVB_ELIMIT, what, c.line, column_of(&c),
                                  (int64_t)(r->json_base + c.i),
                                  "%s nests deeper than %u levels", what,
                                  KVB_READ_MAX_JSON_DEPTH);
        c.i++;
    }
    return KVB_OK;
}

/* Python's json module writes NaN, Infinity and -Infinity, which JSON does
 * not have and jansson refuses; published config.json files carry them
 * (Nemotron-H's time_step_limit).  Outside strings, each becomes a string
 * of the same length ("N", "Infini", "-Infini"), so positions stay exact
 * and a field the model needs reads as "a string", never as a number.
 * *copy is NULL when the text has none; else the caller frees it. */
static const char *non_finite(const char *s, size_t n, char **copy)
{
    static const struct {
        const char *lit, *repl;
    } subs[] = {{"-Infinity", "\"-Infini\""},
                {"Infinity", "\"Infini\""},
                {"NaN", "\"N\""}};
    scan c = {s, n, 0, 1, 0};
    *copy = NULL;
    while (c.i < c.n) {
        if (c.s[c.i] == '"') {
            skip_string(&c);
            continue;
        }
        for (size_t k = 0; k < KVB__ARRAY_LEN(subs); k++) {
            size_t len = strlen(subs[k].lit);
            if (len > c.n - c.i || memcmp(c.s + c.i, subs[k].lit, len) != 0)
                continue;
            if (!*copy) {
                *copy = malloc(n ? n : 1);
                if (!*copy)
                    return NULL;
                memcpy(*copy, s, n);
                c.s = *copy;
            }
            memcpy(*copy + c.i, subs[k].repl, len);
            c.i += len - 1;
            break;
        }
        c.i++;
    }
    return *copy ? *copy : s;
}

kvb_status kvb__json_load(kvb__reader *r, const char *text, size_t len,
                          uint64_t base, const char *what, uint64_t max_tokens,
                          json_t **out)
{
    r->json = text;
    r->json_len = len;
    r->json_base = base;
    kvb_status st = check_shape(r, what, max_tokens);
    if (st)
        return st;
    json_error_t jerr;
    char *copy = NULL;
    const char *parse = non_finite(text, len, &copy);
    if (!parse)
        return kvb__read_fail(r, KVB_ENOMEM, what, -1, -1, -1,
                              "%s: out of memory (%zu bytes)", what, len);
    *out = json_loadb(parse, len, 0, &jerr);
    free(copy);
    if (*out)
        return KVB_OK;
    kvb_status code = json_error_code(&jerr) == json_error_out_of_memory
                          ? KVB_ENOMEM
                          : KVB_EPARSE;
    return kvb__read_fail(r, code, what, jerr.line, jerr.column,
                          (int64_t)base + jerr.position, "%s: %s", what,
                          jerr.text);
}
