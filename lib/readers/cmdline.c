/*
 * readers/cmdline.c -- an engine's command line and environment, read into
 * serving settings.  Which words mean what is each engine's own table
 * (kvb__engine.flags in engines/<name>.c); this file only finds the
 * engine, splits "--flag=value", matches spellings and reads values, the
 * same way for every engine.  Numbers are decimal only (sizes may carry a
 * unit), as the engines' own argument parsers read them.
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kvb_status kvb_command_init(kvb_command *cmd, size_t struct_size)
{
    kvb_status st = kvb__struct_init(cmd, struct_size, sizeof *cmd, "command");
    if (st == KVB_OK)
        cmd->engine = -1;
    return st;
}

/* ---- values ---- */

static kvb_status bad_value(const char *flag, const char *value,
                            const char *allowed, kvb_error *err)
{
    return kvb__fail(err, KVB_EINVAL, "command", "command: %s (%s) is not %s",
                     flag, value, allowed);
}

static bool all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

kvb_status kvb__cmd_u64(const char *flag, const char *value, uint64_t lo,
                        uint64_t hi, uint64_t *out, kvb_error *err)
{
    if (!value || !all_digits(value, strlen(value)))
        return bad_value(flag, value ? value : "", "a decimal integer", err);
    errno = 0;
    unsigned long long v = strtoull(value, NULL, 10);
    if (errno == ERANGE || v < lo || v > hi)
        return kvb__fail(err, KVB_ERANGE, "command",
                         "command: %s (%s) is out of range; allowed: "
                         "%llu..%llu",
                         flag, value, (unsigned long long)lo,
                         (unsigned long long)hi);
    *out = v;
    return KVB_OK;
}

/* A decimal number: digits, one optional point, digits (no sign, no
 * exponent, no hex: what people type for a fraction). */
static bool decimal_number(const char *s, size_t n)
{
    size_t digits = 0, points = 0;
    for (size_t i = 0; i < n; i++) {
        if (isdigit((unsigned char)s[i]))
            digits++;
        else if (s[i] == '.' && points++ == 0)
            continue;
        else
            return false;
    }
    return digits > 0;
}

kvb_status kvb__cmd_fraction(const char *flag, const char *value, double *out,
                             kvb_error *err)
{
    if (!value || !decimal_number(value, strlen(value)))
        return bad_value(flag, value ? value : "",
                         "a decimal fraction in (0, 1]", err);
    double v = strtod(value, NULL);
    if (!(v > 0.0 && v <= 1.0))
        return kvb__fail(err, KVB_ERANGE, "command",
                         "command: %s (%s) is out of range; allowed: (0, 1]",
                         flag, value);
    *out = v;
    return KVB_OK;
}

kvb_status kvb__cmd_bool(const char *flag, const char *value, bool *out,
                         kvb_error *err)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    for (size_t i = 0; value && i < KVB__ARRAY_LEN(yes); i++) {
        if (!kvb__strcasecmp(value, yes[i]))
            return *out = true, KVB_OK;
        if (!kvb__strcasecmp(value, no[i]))
            return *out = false, KVB_OK;
    }
    return bad_value(flag, value ? value : "",
                     "a boolean (1/0, true/false, yes/no, on/off)", err);
}

/* "8GiB", "512MiB", "8G" (binary), "8GB" (decimal), "1073741824". */
static kvb_status cmd_size(const char *flag, const char *value, uint64_t *out,
                           kvb_error *err)
{
    static const struct {
        const char *unit;
        double mult;
    } units[] = {
        {"", 1.0},
        {"B", 1.0},
        {"K", 1024.0},
        {"KiB", 1024.0},
        {"KB", 1e3},
        {"M", 1048576.0},
        {"MiB", 1048576.0},
        {"MB", 1e6},
        {"G", 1073741824.0},
        {"GiB", 1073741824.0},
        {"GB", 1e9},
        {"T", 1099511627776.0},
        {"TiB", 1099511627776.0},
        {"TB", 1e12},
    };
    size_t n = 0;
    while (value && (isdigit((unsigned char)value[n]) || value[n] == '.'))
        n++;
    if (!value || !decimal_number(value, n))
        return bad_value(flag, value ? value : "",
                         "a size (a decimal number with an optional unit: "
                         "B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)",
                         err);
    for (size_t i = 0; i < KVB__ARRAY_LEN(units); i++) {
        if (strcmp(value + n, units[i].unit) != 0)
            continue;
        double v = strtod(value, NULL) * units[i].mult;
        if (!(v < 18446744073709549568.0))
            return kvb__fail(err, KVB_ERANGE, "command",
                             "command: %s (%s) is too large", flag, value);
        *out = (uint64_t)v;
        return KVB_OK;
    }
    return bad_value(flag, value,
                     "a size (units: B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)",
                     err);
}

static void append(char *dst, size_t cap, const char *sep, const char *text)
{
    size_t n = strlen(dst);
    if (n + 4 >= cap)
        return;
    int k = snprintf(dst + n, cap - n, "%s%s", n ? sep : "", text);
    if (k < 0 || (size_t)k >= cap - n)
        memcpy(dst + cap - 4, "...", 4);
}

void kvb__cmd_warn(kvb__cmd *c, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    append(c->cmd->warning, sizeof c->cmd->warning, "; ", line);
}

/* ---- programs ---- */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

bool kvb__cmd_program(size_t argc, const char *const *argv, const char *name,
                      const char *sub, size_t *used)
{
    if (argc == 0 || !name || strcmp(base_name(argv[0]), name) != 0)
        return false;
    if (!sub)
        return *used = 1, true;
    if (argc < 2 || strcmp(argv[1], sub) != 0)
        return false;
    return *used = 2, true;
}

static bool is_python(const char *word)
{
    const char *b = base_name(word);
    if (strncmp(b, "python", 6) != 0)
        return false;
    for (b += 6; *b; b++)
        if (!isdigit((unsigned char)*b) && *b != '.')
            return false;
    return true;
}

bool kvb__cmd_module(size_t argc, const char *const *argv, const char *module,
                     size_t *used)
{
    size_t i = 0;
    if (argc > 1 && !strcmp(base_name(argv[0]), "uv") &&
        !strcmp(argv[1], "run"))
        i = 2; /* "uv run python -m ..." or "uv run -m ..." */
    if (i < argc && is_python(argv[i]))
        i++;
    else if (i == 0)
        return false;
    if (i + 1 >= argc + 0 || strcmp(argv[i], "-m") != 0 ||
        strcmp(argv[i + 1], module) != 0)
        return false;
    *used = i + 2;
    return true;
}

/* ---- splitting a shell string ---- */

static bool is_operator(const char *p)
{
    return *p == ';' || *p == '|' || *p == '&';
}

kvb_status kvb_command_split(const char *line, char *buf, size_t cap,
                             const char **argv, size_t max_args, size_t *argc,
                             kvb_error *err)
{
    if (!line || !buf || !argv || !argc)
        return kvb__fail(err, KVB_EINVAL, "line",
                         "line, buf, argv and argc must not be NULL");
    size_t n = 0, out = 0;
    const char *p = line;
    *argc = 0;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' ||
               (p[0] == '\\' && p[1] == '\n'))
            p += *p == '\\' ? 2 : 1;
        if (!*p || is_operator(p))
            return KVB_OK;
        if (n == max_args)
            return kvb__fail(err, KVB_EBUFSIZE, "argv", "more than %zu words",
                             max_args);
        argv[n] = buf + out;
        char quote = 0;
        while (*p && (quote || !(*p == ' ' || *p == '\t' || *p == '\n' ||
                                 is_operator(p)))) {
            char ch = *p++;
            if (quote == '\'' ? ch == '\'' : quote == '"' && ch == '"') {
                quote = 0;
                continue;
            }
            if (!quote && (ch == '\'' || ch == '"')) {
                quote = ch;
                continue;
            }
            if (ch == '\\' && quote != '\'' && *p) {
                ch = *p++;
                if (ch == '\n')
                    continue;
                if (quote == '"' && !strchr("\"\\$`", ch)) {
                    if (out + 1 >= cap)
                        goto full;
                    buf[out++] = '\\';
                }
            }
            if (out + 1 >= cap)
                goto full;
            buf[out++] = ch;
        }
        if (quote)
            return kvb__fail(err, KVB_EINVAL, "line",
                             "line: unterminated %c quote", quote);
        if (out + 1 > cap)
            goto full;
        buf[out++] = '\0';
        *argc = ++n;
    }
full:
    return kvb__fail(err, KVB_EBUFSIZE, "buf",
                     "buf (%zu bytes) is too small for the words", cap);
}

/* ---- flags ---- */

/* Does `given` (n bytes, underscores already turned into dashes where the
 * engine allows) match one of the '|'-separated spellings? */
static bool spelled(const char *names, const char *given, size_t n)
{
    if (!names)
        return false;
    for (const char *p = names; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && memcmp(p, given, n) == 0)
            return true;
        if (!bar)
            break;
        p = bar + 1;
    }
    return false;
}

/* Does one of the '|'-separated long spellings start with `given`? */
static bool prefixed(const char *names, const char *given, size_t n)
{
    for (const char *p = names; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len > n && p[1] == '-' && memcmp(p, given, n) == 0)
            return true;
        if (!bar)
            break;
        p = bar + 1;
    }
    return false;
}

/* The exact spelling, else (argparse's allow_abbrev) the one flag a long
 * prefix names: `--max-num-batched-token` is `--max-num-batched-tokens`
 * to vLLM, as real manifests rely on; an ambiguous prefix names none. */
static const kvb__flag *find_flag(const kvb__engine *e, const char *given,
                                  size_t n)
{
    for (size_t i = 0; i < e->flag_count; i++)
        if (spelled(e->flags[i].names, given, n))
            return &e->flags[i];
    if (!e->abbrev || n < 3 || given[1] != '-')
        return NULL;
    const kvb__flag *found = NULL;
    for (size_t i = 0; i < e->flag_count; i++) {
        if (!prefixed(e->flags[i].names, given, n))
            continue;
        if (found)
            return NULL;
        found = &e->flags[i];
    }
    return found;
}

static bool takes_value(const kvb__flag *f)
{
    return f->kind != KVB__FLAG_ON && f->kind != KVB__FLAG_OFF &&
           f->kind != KVB__FLAG_IGNORED_BARE &&
           f->kind != KVB__FLAG_CUSTOM_BARE;
}

static void store_uint(kvb__cmd *c, const kvb__flag *f, uint64_t v)
{
    char *dst = (char *)c->s + f->offset;
    if (f->size == sizeof(uint32_t)) {
        uint32_t v32 = (uint32_t)v;
        memcpy(dst, &v32, sizeof v32);
    } else {
        memcpy(dst, &v, sizeof v);
    }
}

static kvb_status apply(kvb__cmd *c, const kvb__flag *f, const char *flag,
                        const char *value, kvb_error *err)
{
    uint64_t v = 0;
    double d = 0;
    bool on = true;
    kvb_status st = KVB_OK;
    switch (f->kind) {
    case KVB__FLAG_U32:
    case KVB__FLAG_U64:
        st = kvb__cmd_u64(
            flag, value, 0,
            f->size == sizeof(uint32_t) ? UINT32_MAX : UINT64_MAX - 1, &v, err);
        if (!st)
            store_uint(c, f, v);
        return st;
    case KVB__FLAG_SIZE:
        st = cmd_size(flag, value, &v, err);
        if (!st)
            store_uint(c, f, v);
        return st;
    case KVB__FLAG_FRACTION:
        st = kvb__cmd_fraction(flag, value, &d, err);
        if (!st)
            memcpy((char *)c->s + f->offset, &d, sizeof d);
        return st;
    case KVB__FLAG_ON:
    case KVB__FLAG_OFF:
        if (value)
            st = kvb__cmd_bool(flag, value, &on, err);
        if (!st)
            store_uint(c, f, (f->kind == KVB__FLAG_ON) == on);
        return st;
    case KVB__FLAG_TEXT:
        if (strlen(value) >= f->size)
            return kvb__fail(err, KVB_ERANGE, "command",
                             "command: %s is longer than %zu bytes", flag,
                             f->size - 1);
        kvb__strlcpy((char *)c->cmd + f->offset, value, f->size);
        return KVB_OK;
    case KVB__FLAG_IGNORED:
    case KVB__FLAG_IGNORED_BARE:
        append(c->cmd->ignored, sizeof c->cmd->ignored, ", ", flag);
        return KVB_OK;
    case KVB__FLAG_CUSTOM:
    case KVB__FLAG_CUSTOM_BARE: return f->set(c, flag, value, err);
    }
    return KVB_OK;
}

/* One word starting with '-' at argv[*i]; consumes its value. */
static kvb_status read_flag(kvb__cmd *c, size_t argc, const char *const *argv,
                            size_t *i, kvb_error *err)
{
    const kvb__engine *e = c->engine;
    const char *word = argv[*i];
    const char *eq = strchr(word, '=');
    size_t n = eq ? (size_t)(eq - word) : strlen(word);
    char name[96];
    if (n >= sizeof name)
        n = sizeof name - 1;
    memcpy(name, word, n);
    name[n] = '\0';
    for (size_t k = 2; e->underscores && k < n; k++)
        if (name[k] == '_' && name[0] == '-' && name[1] == '-')
            name[k] = '-';
    const kvb__flag *f = find_flag(e, name, n);
    if (!f)
        return kvb__fail(err, KVB_EINVAL, "command",
                         "command: unknown flag %s: not a flag of %s "
                         "(docs/engines.md lists the flags read)",
                         name, e->display);
    const char *value = eq ? eq + 1 : NULL;
    if (!value && takes_value(f)) {
        if (*i + 1 >= argc)
            return kvb__fail(err, KVB_EINVAL, "command",
                             "command: %s needs a value", name);
        value = argv[++*i];
    }
    return apply(c, f, name, value, err);
}

/* The environment first: the command line overrides it, as in the
 * engines (argparse defaults read from the environment). */
static kvb_status read_env(kvb__cmd *c, const char *const *env, kvb_error *err)
{
    for (size_t k = 0; env && env[k]; k++) {
        const char *eq = strchr(env[k], '=');
        if (!eq)
            continue;
        size_t n = (size_t)(eq - env[k]);
        for (size_t i = 0; i < c->engine->flag_count; i++) {
            const kvb__flag *f = &c->engine->flags[i];
            if (!f->env || strlen(f->env) != n || memcmp(f->env, env[k], n))
                continue;
            kvb_status st = apply(c, f, f->env, eq + 1, err);
            if (st)
                return st;
        }
    }
    return KVB_OK;
}

static const kvb__engine *detect(size_t argc, const char *const *argv,
                                 size_t *used)
{
    for (int32_t id = 0; id < KVB_ENGINE_LAST_; id++) {
        const kvb__engine *e = kvb__engine_get(id);
        if (e && e->detect && e->detect(argc, argv, used))
            return e;
    }
    return NULL;
}

static void program_text(kvb_command *cmd, const char *const *argv, size_t used)
{
    cmd->program[0] = '\0';
    for (size_t i = 0; i < used; i++)
        append(cmd->program, sizeof cmd->program, " ", base_name(argv[i]));
}

static kvb_status read_words(kvb__cmd *c, size_t argc, const char *const *argv,
                             size_t i, kvb_error *err)
{
    const kvb__engine *e = c->engine;
    if (e->positional_model && i < argc && argv[i][0] != '-')
        kvb__strlcpy(c->cmd->model, argv[i++], sizeof c->cmd->model);
    for (; i < argc; i++) {
        if (argv[i][0] != '-' || !argv[i][1])
            return kvb__fail(err, KVB_EINVAL, "command",
                             "command: unexpected word \"%s\" (not a flag "
                             "of %s, nor a flag's value)",
                             argv[i], e->display);
        kvb_status st = read_flag(c, argc, argv, &i, err);
        if (st)
            return st;
    }
    return KVB_OK;
}

kvb_status kvb_command_read(size_t argc, const char *const *argv,
                            const char *const *env, int32_t engine_hint,
                            kvb_command *cmd, kvb_serving *serving,
                            kvb_error *err)
{
    kvb_command c;
    kvb_serving s;
    if (!argv && argc)
        return kvb__fail(err, KVB_EINVAL, "argv", "argv must not be NULL");
    for (size_t k = 0; k < argc; k++)
        if (!argv[k])
            return kvb__fail(err, KVB_EINVAL, "argv", "argv[%zu] is NULL", k);
    KVB__CANNOT_FAIL(kvb_command_init(&c, sizeof c));
    kvb_status st = kvb__struct_check(cmd, sizeof c, "command", err);
    if (!st)
        st = kvb__struct_in(serving, sizeof s, &s, "serving", err);
    if (st)
        return st;
    size_t used = 0;
    const kvb__engine *e = NULL;
    if (engine_hint >= 0) {
        e = kvb__engine_get(engine_hint);
        if (!e)
            return kvb__fail(err, KVB_ERANGE, "engine_hint",
                             "engine_hint (%d) is not a kvb_engine",
                             engine_hint);
        if (e->detect && !e->detect(argc, argv, &used))
            used = 0;
    } else if (!(e = detect(argc, argv, &used))) {
        return kvb__fail(err, KVB_ENOTFOUND, "command",
                         "command: \"%s\" does not start an engine this "
                         "library models (vllm serve, python3 -m "
                         "vllm.entrypoints.openai.api_server, python3 -m "
                         "sglang.launch_server, llama-server, ollama, "
                         "trtllm-serve, text-generation-launcher)",
                         argc ? argv[0] : "");
    }
    kvb__cmd w = {&c, &s, e};
    c.engine = e->id;
    s.engine = e->id;
    program_text(&c, argv, used);
    st = read_env(&w, env, err);
    if (!st)
        st = read_words(&w, argc, argv, used, err);
    if (st)
        return st;
    kvb__struct_out(&c, sizeof c, cmd);
    kvb__struct_out(&s, sizeof s, serving);
    return KVB_OK;
}
