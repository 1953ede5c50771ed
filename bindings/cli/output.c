/*
 * output.c -- what the command prints: errors, the plan table, the memory
 * bar, remedies, and their JSON forms.  Sizes are GiB with two decimals
 * for people and bytes in JSON.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GIB(b) ((double)(b) / 1073741824.0)

/* ---- style and errors ---- */

void cli_style_init(cli_style *s)
{
    const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
    s->on = isatty(STDOUT_FILENO) && !(no && *no) &&
            !(term && !strcmp(term, "dumb"));
    s->bold = s->on ? "\033[1m" : "";
    s->dim = s->on ? "\033[2m" : "";
    s->red = s->on ? "\033[31m" : "";
    s->green = s->on ? "\033[32m" : "";
    s->yellow = s->on ? "\033[33m" : "";
    s->reset = s->on ? "\033[0m" : "";
}

/* ---- text from files and logs ---- */

char *cli_escape(const char *s, char *out, size_t cap, bool keep_newlines)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    if (!cap)
        return out;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char e[8];
        size_t k = 0;
        if (*p == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) { /* C1 as UTF-8 */
            memcpy(e, "\\u00", 4);
            e[4] = hex[p[1] >> 4];
            e[5] = hex[p[1] & 15];
            k = 6;
            p++;
        } else if ((*p < 0x20 && !(keep_newlines && *p == '\n') &&
                    *p != '\t') ||
                   *p == 0x7F) {
            e[0] = '\\';
            e[1] = 'x';
            e[2] = hex[*p >> 4];
            e[3] = hex[*p & 15];
            k = 4;
        } else {
            e[0] = (char)*p;
            k = 1;
        }
        if (n + k >= cap)
            break;
        memcpy(out + n, e, k);
        n += k;
    }
    out[n] = '\0';
    return out;
}

void cli_scrub(char *s, size_t cap)
{
    char tmp[1024];
    if (cap > sizeof tmp)
        cap = sizeof tmp;
    cli_escape(s, tmp, cap, false);
    memcpy(s, tmp, strlen(tmp) + 1);
}

void cli_error(const char *cmd, const char *fmt, ...)
{
    char text[2048], safe[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "kvbudget %s: %s\n", cmd,
            cli_escape(text, safe, sizeof safe, false));
}

int cli_lib_error(const char *cmd, const kvb_error *e)
{
    const char *flag = cli_flag_for_field(e->field);
    if (flag)
        cli_error(cmd, "%s: %s", flag, e->message);
    else
        cli_error(cmd, "%s",
                  e->message[0] ? e->message : kvb_strerror(e->status));
    return CLI_EXIT_USAGE;
}

int cli_plan(const char *cmd, const cli_inputs *in, kvb_plan *plan)
{
    kvb_error e = KVB_ERROR_INIT;
    if (KVB_PLAN_INIT(plan) ||
        kvb_plan_compute(&in->model, &in->quant, &in->gpu, &in->serving, plan,
                         &e))
        return cli_lib_error(cmd, &e);
    return 0;
}

int cli_advise(const char *cmd, const cli_inputs *in, kvb_fix *fixes,
               size_t cap, size_t *n)
{
    kvb_advice_options o;
    kvb_error e = KVB_ERROR_INIT;
    if (KVB_ADVICE_OPTIONS_INIT(&o) || KVB_FIX_INIT(&fixes[0]))
        return CLI_EXIT_USAGE;
    snprintf(o.instance, sizeof o.instance, "%s", in->instance);
    snprintf(o.cloud, sizeof o.cloud, "%s", in->cloud);
    o.max_price_per_hour = in->max_price;
    o.measured_max_model_len = in->measured_max_model_len;
    if (in->min_utilization > 0)
        o.min_utilization = in->min_utilization;
    if (kvb_advise(&in->model, &in->quant, &in->gpu, &in->serving, &o, fixes,
                   cap, n, &e))
        return cli_lib_error(cmd, &e);
    return 0;
}

/* A quantized model given as a repository ("org/name", not a path): the
 * remedies that keep its format serve that repository, not the table's
 * checkpoint of the preset. */
void cli_fixes_keep_checkpoint(const char *typed, const cli_inputs *in,
                               kvb_fix *fixes, size_t n)
{
    if (!typed || !strchr(typed, '/') || typed[0] == '/' || typed[0] == '.' ||
        strstr(typed, "://") || in->quant.method == KVB_QUANT_AUTO ||
        strlen(typed) >= sizeof fixes[0].checkpoint)
        return;
    struct stat sb;
    if (stat(typed, &sb) == 0)
        return; /* a local file or directory */
    for (size_t i = 0; i < n; i++)
        if (fixes[i].quant_method == in->quant.method)
            snprintf(fixes[i].checkpoint, sizeof fixes[i].checkpoint, "%s",
                     typed);
}

/* ---- names ---- */

static const char *quant_label(const kvb_quant *q, const kvb_model *m)
{
    if (q->method != KVB_QUANT_AUTO)
        return kvb_quant_method_name(q->method);
    const char *d = kvb_dtype_name(m->dtype);
    return d ? d : "auto";
}

static const char *kv_label(const kvb_quant *q)
{
    const char *d = kvb_dtype_name(q->kv_cache_dtype);
    return d ? d : "auto";
}

/* The engine as people write it ("vLLM"); kvb_engine_name gives the
 * flag's spelling ("vllm"). */
const char *cli_engine_label(int32_t engine)
{
    static const char *const labels[] = {"vLLM",   "SGLang",       "llama.cpp",
                                         "Ollama", "TensorRT-LLM", "TGI"};
    if (engine >= 0 && (size_t)engine < sizeof labels / sizeof labels[0])
        return labels[engine];
    return "the engine";
}

/* In the engine's own form: "0.8.5", llama.cpp's "b6123". */
static void version_label(int32_t engine, uint32_t v, char *buf, size_t cap)
{
    if (kvb_engine_version_format(engine, v, buf, cap, NULL))
        snprintf(buf, cap, "%u", v);
}

/* ---- the plan, for people ---- */

void cli_print_plan_line(FILE *out, const cli_style *st, const cli_inputs *in,
                         const kvb_plan *p)
{
    fprintf(out, "%s%s%s, %s, on %u x %s (%.2f GiB each)%s%s%s\n", st->bold,
            in->model.name, st->reset, quant_label(&in->quant, &in->model),
            in->gpu.count, in->gpu_label[0] ? in->gpu_label : in->gpu.name,
            GIB(p->gpu_total_bytes), in->instance[0] ? " [" : "", in->instance,
            in->instance[0] ? "]" : "");
}

static void print_settings(FILE *out, const kvb_plan *p, const kvb_quant *q)
{
    char ver[32];
    version_label(p->engine, p->engine_version, ver, sizeof ver);
    const char *acc = kvb_accounting_name(p->accounting);
    fprintf(out,
            "%s %s (%s accounting), TP %u x PP %u, utilization %.2f,\n"
            "max-model-len %llu, block %u, max-num-seqs %u, "
            "max-num-batched-tokens %llu,\nKV cache %s\n\n",
            cli_engine_label(p->engine), ver, acc ? acc : "?",
            p->tensor_parallel_size, p->pipeline_parallel_size,
            p->gpu_memory_utilization, (unsigned long long)p->max_model_len,
            p->block_size, p->max_num_seqs,
            (unsigned long long)p->max_num_batched_tokens, kv_label(q));
}

static void row(FILE *out, const char *name, uint64_t bytes, const char *note)
{
    fprintf(out, "  %-24s %9.2f%s%s\n", name, GIB(bytes), *note ? "   " : "",
            note);
}

static void print_terms(FILE *out, const kvb_plan *p)
{
    char label[48], note[96];
    fprintf(out, "  %-24s %9s\n", "per GPU", "GiB");
    row(out, "GPU memory", p->gpu_total_bytes, "as CUDA reports it");
    snprintf(label, sizeof label, "usable (x %.2f)", p->gpu_memory_utilization);
    row(out, label, p->usable_bytes_per_gpu, "");
    snprintf(note, sizeof note, "whole model %.2f GiB, %.2fB parameters",
             GIB(p->weights_bytes), (double)p->param_count / 1e9);
    row(out, "weights", p->weights_bytes_per_gpu, note);
    row(out, "activation peak", p->activation_bytes_per_gpu, "");
    row(out, "non-torch", p->non_torch_bytes_per_gpu, "");
    row(out, "CUDA graphs", p->cudagraph_bytes_per_gpu,
        p->cudagraph_bytes_per_gpu == 0 ? "eager"
        : p->cudagraph_in_budget        ? "inside the budget"
                                        : "outside the budget");
    note[0] = '\0';
    if (p->kv_shortfall_bytes_per_gpu)
        snprintf(note, sizeof note, "short by %.2f GiB",
                 GIB(p->kv_shortfall_bytes_per_gpu));
    row(out, "KV cache", p->kv_budget_bytes_per_gpu, note);
    row(out, "CUDA context", p->cuda_context_bytes_per_gpu,
        "outside the budget");
    row(out, "headroom", p->headroom_bytes_per_gpu, "free, outside the budget");
    /* what only some engines have */
    if (p->compute_buffer_bytes_per_gpu)
        row(out, "compute buffer", p->compute_buffer_bytes_per_gpu, "");
    if (p->host_bytes) {
        snprintf(note, sizeof note, "%u of %u layers on the GPUs",
                 p->layers_on_gpu, p->layers_total);
        row(out, "host RAM", p->host_bytes, note);
    }
}

static void print_kv(FILE *out, const kvb_plan *p)
{
    fprintf(out, "\n  %-24s %9llu   whole model %llu\n", "KV bytes per token",
            (unsigned long long)p->kv_bytes_per_token_per_gpu,
            (unsigned long long)p->kv_bytes_per_token);
    fprintf(out, "  %-24s %9llu   of %u tokens\n", "KV blocks",
            (unsigned long long)p->num_blocks, p->block_size);
    fprintf(out, "  %-24s %9llu\n", "KV tokens",
            (unsigned long long)p->max_kv_tokens);
    if (p->max_total_tokens && p->max_total_tokens != p->max_kv_tokens)
        fprintf(out, "  %-24s %9llu   as the engine logs it\n", "token pool",
                (unsigned long long)p->max_total_tokens);
    if (p->nodes > 1)
        fprintf(out, "  %-24s %9u   %u GPUs each\n", "nodes", p->nodes,
                p->gpus_per_node);
    char label[48];
    snprintf(label, sizeof label, "concurrency at %llu",
             (unsigned long long)p->max_model_len);
    fprintf(out, "  %-24s %8.2fx   wanted %u\n", label, p->max_concurrency,
            p->concurrency);
    if (p->max_model_len_fit)
        fprintf(out, "  %-24s %9llu\n", "largest max-model-len",
                (unsigned long long)p->max_model_len_fit);
    else
        fprintf(out, "  %-24s %9s\n", "largest max-model-len", "none");
}

void cli_print_verdict(FILE *out, const cli_style *st, const kvb_plan *p)
{
    const char *msg = p->message;
    if (p->fits && !strncmp(msg, "fits: ", 6))
        msg += 6;
    if (p->fits)
        fprintf(out, "%sFITS%s: %s\n", st->green, st->reset, msg);
    else
        fprintf(out, "%sDOES NOT FIT%s (%s): %s\n", st->red, st->reset,
                kvb_verdict_name(p->verdict), msg);
}

static void print_verdict(FILE *out, const cli_style *st, const kvb_plan *p)
{
    fputc('\n', out);
    cli_print_verdict(out, st, p);
    char text[1024];
    if (!p->fits &&
        kvb_plan_engine_error(p, text, sizeof text, NULL, NULL) == KVB_OK &&
        text[0])
        fprintf(out, "%s%s would stop with:%s %s\n", st->dim,
                cli_engine_label(p->engine), st->reset, text);
}

/* Everything the plan or the command line warns about, in the human
 * output too (not only in --json). */
void cli_print_warnings(FILE *out, const cli_style *st, const cli_inputs *in,
                        const kvb_plan *p)
{
    /* the model file's warnings are printed when it is read (stderr) */
    const char *lines[] = {in->command.warning, p ? p->warning : ""};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        if (lines[i][0])
            fprintf(out, "%swarning:%s %s\n", st->yellow, st->reset, lines[i]);
    if (in->command.ignored[0])
        fprintf(out, "%snote:%s %s flags the plan does not use: %s\n", st->dim,
                st->reset, cli_engine_label(in->command.engine),
                in->command.ignored);
}

void cli_print_plan(FILE *out, const cli_style *st, const cli_inputs *in,
                    const kvb_plan *p)
{
    cli_print_plan_line(out, st, in, p);
    cli_print_warnings(out, st, in, p);
    print_settings(out, p, &in->quant);
    print_terms(out, p);
    print_kv(out, p);
    print_verdict(out, st, p);
    fputc('\n', out);
    cli_print_bar(out, st, p);
}

/* ---- the bar ---- */

#define BAR_WIDTH 60

typedef struct segment {
    char ch;
    const char *color; /* background colour */
    const char *name;
    uint64_t bytes;
} segment;

static void bar_cells(const segment *seg, size_t n, double scale, char *cells,
                      int *owner)
{
    double cum = 0;
    int at = 0;
    for (size_t i = 0; i < n; i++) {
        cum += (double)seg[i].bytes;
        int end = (int)lround(cum * BAR_WIDTH / scale);
        if (end > BAR_WIDTH)
            end = BAR_WIDTH;
        for (; at < end; at++) {
            cells[at] = seg[i].ch;
            owner[at] = (int)i;
        }
    }
    for (; at < BAR_WIDTH; at++) {
        cells[at] = ' ';
        owner[at] = -1;
    }
}

void cli_print_bar(FILE *out, const cli_style *st, const kvb_plan *p)
{
    uint64_t total = p->gpu_total_bytes;
    segment seg[6] = {
        {'W', "\033[44m", "weights", p->weights_bytes_per_gpu},
        {'a', "\033[45m", "activations", p->activation_bytes_per_gpu},
        {'n', "\033[43m", "non-torch", p->non_torch_bytes_per_gpu},
        {'g', "\033[46m", "CUDA graphs", p->cudagraph_bytes_per_gpu},
        {'K', "\033[42m", "KV cache", p->kv_budget_bytes_per_gpu},
        {'.', "", "headroom and CUDA context", 0},
    };
    uint64_t sum = 0;
    for (int i = 0; i < 5; i++)
        sum += seg[i].bytes;
    seg[5].bytes = sum < total ? total - sum : 0;
    double scale = (double)(sum > total ? sum : total);
    char cells[BAR_WIDTH];
    int owner[BAR_WIDTH];
    bar_cells(seg, 6, scale, cells, owner);
    int edge =
        sum > total ? (int)lround((double)total * BAR_WIDTH / scale) : -1;
    fprintf(out, "GPU memory, %.2f GiB per GPU:\n[", GIB(total));
    for (int i = 0; i < BAR_WIDTH; i++) {
        if (i == edge)
            fprintf(out, "%s|%s", st->red, st->reset);
        const char *bg = owner[i] >= 0 && st->on ? seg[owner[i]].color : "";
        fprintf(out, "%s%c%s", bg, cells[i], *bg ? st->reset : "");
    }
    fputs("]\n", out);
    for (int i = 0; i < 6; i++)
        fprintf(out, "%s %c %s %.2f", i ? "," : "", seg[i].ch, seg[i].name,
                GIB(seg[i].bytes));
    fputc('\n', out);
    if (sum > total)
        fprintf(out,
                " %sthe terms exceed the GPU by %.2f GiB; it ends at "
                "the '|'%s\n",
                st->red, GIB(sum - total), st->reset);
}

/* ---- remedies, for people ---- */

static void print_block(FILE *out, const char *indent, const char *text)
{
    for (const char *line = text; *line;) {
        size_t n = strcspn(line, "\n");
        fprintf(out, "%s%.*s\n", indent, (int)n, line);
        line += n + (line[n] == '\n');
    }
}

/* Kubernetes args already printed for an earlier fix with the same flags,
 * so identical blocks are not repeated. */
typedef struct shown_args {
    char text[KVB_ADVICE_MAX][512];
    int index[KVB_ADVICE_MAX];
    size_t n;
} shown_args;

static int shown_before(shown_args *seen, const char *text, int index)
{
    size_t cap = sizeof seen->text[0], len = strlen(text);
    for (size_t i = 0; i < seen->n; i++)
        if (!strncmp(seen->text[i], text, cap - 1))
            return seen->index[i];
    if (seen->n < KVB_ADVICE_MAX) {
        len = len < cap ? len : cap - 1;
        memcpy(seen->text[seen->n], text, len);
        seen->text[seen->n][len] = '\0';
        seen->index[seen->n++] = index;
    }
    return 0;
}

static void print_renders(FILE *out, const cli_inputs *in, const kvb_fix *f,
                          int index, shown_args *seen)
{
    char text[2048];
    if (kvb_fix_render(f, &in->model, KVB_RENDER_VLLM_ARGS, text, sizeof text,
                       NULL, NULL) != KVB_OK ||
        !f->fits) {
        if (text[0])
            fprintf(out, "       %s flags: %s\n", cli_engine_label(f->engine),
                    text);
        return;
    }
    fprintf(out, "       %s flags: %s\n", cli_engine_label(f->engine), text);
    int earlier = shown_before(seen, text, index);
    if (earlier)
        fprintf(out, "       Kubernetes container args: as in %d.\n", earlier);
    else if (kvb_fix_render(f, &in->model, KVB_RENDER_K8S_ARGS, text,
                            sizeof text, NULL, NULL) == KVB_OK) {
        fputs("       Kubernetes container:\n", out);
        print_block(out, "         ", text);
    }
    if (f->kind == KVB_FIX_INSTANCE &&
        kvb_fix_render(f, &in->model, KVB_RENDER_KARPENTER, text, sizeof text,
                       NULL, NULL) == KVB_OK) {
        fputs("       Karpenter NodePool:\n", out);
        print_block(out, "         ", text);
    }
}

static bool has_kind(const kvb_fix *fixes, size_t n, int32_t kind)
{
    for (size_t i = 0; i < n; i++)
        if (fixes[i].kind == kind)
            return true;
    return false;
}

static void print_missing(FILE *out, const cli_style *st, const cli_inputs *in,
                          const kvb_fix *fixes, size_t n, int32_t kind)
{
    if (has_kind(fixes, n, kind))
        return;
    if (kind == KVB_FIX_QUANTIZE)
        fprintf(out,
                "  %s-  a smaller weight format: none has fewer bytes "
                "than %s%s\n",
                st->dim, quant_label(&in->quant, &in->model), st->reset);
    else if (kind == KVB_FIX_INSTANCE)
        fprintf(out,
                "  %s-  a bigger instance: no instance preset%s%s "
                "fits%s\n",
                st->dim, in->instance[0] ? " on the same cloud as " : "",
                in->instance, st->reset);
}

/* ---- what each remedy gives up ---- */

static const struct {
    uint32_t bit;
    const char *word;
} cost_words[] = {
    {KVB_FIX_COST_CONTEXT, "context"},
    {KVB_FIX_COST_CONCURRENCY, "concurrency"},
    {KVB_FIX_COST_SPEED, "speed"},
    {KVB_FIX_COST_QUALITY, "quality"},
    {KVB_FIX_COST_MONEY, "money"},
};

static void print_gives_up(FILE *out, const cli_inputs *in, const kvb_fix *f)
{
    if (!f->fits)
        return;
    fputs("       gives up:", out);
    const char *sep = " ";
    for (size_t i = 0; i < sizeof cost_words / sizeof cost_words[0]; i++) {
        if (!(f->gives_up & cost_words[i].bit))
            continue;
        fprintf(out, "%s%s", sep, cost_words[i].word);
        if (cost_words[i].bit == KVB_FIX_COST_CONTEXT)
            fprintf(out, " (%llu tokens)",
                    (unsigned long long)f->max_model_len);
        else if (cost_words[i].bit == KVB_FIX_COST_SPEED)
            fputs(" (no CUDA graphs)", out);
        else if (cost_words[i].bit == KVB_FIX_COST_QUALITY)
            fputs(" (lower precision)", out);
        sep = ", ";
    }
    if (!f->gives_up)
        fputs(" nothing", out);
    if (f->instance[0] && f->price_per_hour > 0)
        fprintf(out, "; $%.2f/hour", f->price_per_hour);
    else if (f->price_per_gpu_hour > 0) /* GPUs x the cheapest per GPU */
        fprintf(out, "; ~$%.2f/hour", f->price_per_gpu_hour * f->gpu_count);
    if (f->usd_per_million_tokens > 0)
        fprintf(out, ", from $%.2f per 1M tokens", f->usd_per_million_tokens);
    fputs(f->pareto ? "; Pareto-optimal\n" : "\n", out);
    (void)in;
}

/* The fitting remedies no other beats on every cost. */
static void print_front(FILE *out, const kvb_fix *fixes, size_t n)
{
    int shown = 0;
    for (size_t i = 0; i < n; i++) {
        if (!fixes[i].pareto)
            continue;
        fprintf(out, "%s%zu",
                shown ? ", "
                      : "\nPareto front (none beats these on "
                        "context, concurrency, speed, "
                        "quality and $/hour at once): ",
                i + 1);
        shown++;
    }
    if (shown)
        fputs("\n", out);
}

void cli_print_fixes(FILE *out, const cli_style *st, const cli_inputs *in,
                     const kvb_fix *fixes, size_t n)
{
    shown_args seen; /* 16 KiB on the stack */
    seen.n = 0;
    fputs("\nRemedies, in the order to try them (each re-planned):\n", out);
    bool quant_said = false;
    for (size_t i = 0; i < n; i++) {
        const kvb_fix *f = &fixes[i];
        if (!quant_said && f->kind > KVB_FIX_QUANTIZE &&
            f->kind != KVB_FIX_COMBINED) {
            print_missing(out, st, in, fixes, n, KVB_FIX_QUANTIZE);
            quant_said = true;
        }
        fprintf(out, "  %zu. %s%-6s%s %s\n       %s\n", i + 1,
                f->fits ? st->green : st->red, f->fits ? "[fits]" : "[no]",
                st->reset, f->title, f->note);
        print_gives_up(out, in, f);
        print_renders(out, in, f, (int)i + 1, &seen);
    }
    if (!quant_said)
        print_missing(out, st, in, fixes, n, KVB_FIX_QUANTIZE);
    print_missing(out, st, in, fixes, n, KVB_FIX_INSTANCE);
    print_front(out, fixes, n);
}

/* ---- JSON ---- */

static json_t *jint(uint64_t v)
{
    return v > (uint64_t)INT64_MAX ? json_real((double)v)
                                   : json_integer((json_int_t)v);
}

static json_t *jstr_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

static void set(json_t *o, const char *key, json_t *v)
{
    json_object_set_new(o, key, v ? v : json_null());
}

static void plan_inputs_json(json_t *o, const cli_inputs *in, const kvb_plan *p)
{
    char ver[32];
    version_label(p->engine, p->engine_version, ver, sizeof ver);
    set(o, "model", json_string(in->model.name));
    set(o, "model_source", jstr_or_null(in->model_source));
    set(o, "model_note", jstr_or_null(in->model_note));
    set(o, "quant", json_string(quant_label(&in->quant, &in->model)));
    set(o, "kv_cache_dtype", json_string(kv_label(&in->quant)));
    set(o, "gpu", json_string(in->gpu.name[0] ? in->gpu.name : in->gpu_label));
    set(o, "gpu_count", jint(in->gpu.count));
    set(o, "instance", jstr_or_null(in->instance));
    set(o, "gpu_total_bytes", jint(p->gpu_total_bytes));
    set(o, "tp", jint(p->tensor_parallel_size));
    set(o, "pp", jint(p->pipeline_parallel_size));
    set(o, "gpu_memory_utilization", json_real(p->gpu_memory_utilization));
    set(o, "engine", jstr_or_null(kvb_engine_name(p->engine)));
    set(o, "engine_version", json_string(ver));
    set(o, "accounting", jstr_or_null(kvb_accounting_name(p->accounting)));
    set(o, "block_size", jint(p->block_size));
    set(o, "max_num_seqs", jint(p->max_num_seqs));
    set(o, "max_num_batched_tokens", jint(p->max_num_batched_tokens));
    set(o, "enforce_eager", json_boolean(in->serving.enforce_eager));
    set(o, "concurrency", jint(p->concurrency));
}

static void plan_terms_json(json_t *o, const kvb_plan *p)
{
    set(o, "param_count", jint(p->param_count));
    set(o, "weights_bytes", jint(p->weights_bytes));
    set(o, "weights_bytes_per_gpu", jint(p->weights_bytes_per_gpu));
    set(o, "usable_bytes_per_gpu", jint(p->usable_bytes_per_gpu));
    set(o, "cuda_context_bytes_per_gpu", jint(p->cuda_context_bytes_per_gpu));
    set(o, "non_torch_bytes_per_gpu", jint(p->non_torch_bytes_per_gpu));
    set(o, "activation_bytes_per_gpu", jint(p->activation_bytes_per_gpu));
    set(o, "cudagraph_bytes_per_gpu", jint(p->cudagraph_bytes_per_gpu));
    set(o, "cudagraph_in_budget", json_boolean(p->cudagraph_in_budget));
    set(o, "kv_budget_bytes_per_gpu", jint(p->kv_budget_bytes_per_gpu));
    set(o, "kv_shortfall_bytes_per_gpu", jint(p->kv_shortfall_bytes_per_gpu));
    set(o, "headroom_bytes_per_gpu", jint(p->headroom_bytes_per_gpu));
    set(o, "kv_bytes_per_token", jint(p->kv_bytes_per_token));
    set(o, "kv_bytes_per_token_per_gpu", jint(p->kv_bytes_per_token_per_gpu));
    set(o, "block_bytes_per_gpu", jint(p->block_bytes_per_gpu));
    set(o, "num_blocks", jint(p->num_blocks));
    set(o, "max_kv_tokens", jint(p->max_kv_tokens));
    set(o, "max_concurrency", json_real(p->max_concurrency));
    set(o, "kv_needed_bytes_per_gpu", jint(p->kv_needed_bytes_per_gpu));
    set(o, "max_model_len", jint(p->max_model_len));
    set(o, "max_model_len_fit", jint(p->max_model_len_fit));
    set(o, "fits", json_boolean(p->fits));
    set(o, "verdict", json_string(kvb_verdict_name(p->verdict)));
    set(o, "message", json_string(p->message));
    char text[1024] = "";
    if (kvb_plan_engine_error(p, text, sizeof text, NULL, NULL) != KVB_OK)
        text[0] = '\0';
    set(o, "engine_error", json_string(text));
    set(o, "data_parallel_size", jint(p->data_parallel_size));
    set(o, "nodes", jint(p->nodes));
    set(o, "gpus_per_node", jint(p->gpus_per_node));
    set(o, "layers_on_gpu", jint(p->layers_on_gpu));
    set(o, "layers_total", jint(p->layers_total));
    set(o, "kv_cache_bytes_per_gpu", jint(p->kv_cache_bytes_per_gpu));
    set(o, "compute_buffer_bytes_per_gpu",
        jint(p->compute_buffer_bytes_per_gpu));
    set(o, "host_bytes", jint(p->host_bytes));
    set(o, "max_total_tokens", jint(p->max_total_tokens));
    set(o, "context_size", jint(p->context_size));
    set(o, "warning", jstr_or_null(p->warning));
}

static json_t *command_json(const kvb_command *c)
{
    json_t *o = json_object();
    set(o, "engine", jstr_or_null(kvb_engine_name(c->engine)));
    set(o, "program", jstr_or_null(c->program));
    set(o, "model", jstr_or_null(c->model));
    set(o, "ignored", jstr_or_null(c->ignored));
    set(o, "warning", jstr_or_null(c->warning));
    return o;
}

static json_t *model_file_json(const cli_inputs *in)
{
    json_t *o = json_object(), *fields = json_array();
    for (unsigned b = 0; b < 64; b++)
        if ((in->read.fields_from_file >> b) & 1u) {
            const char *name = kvb_read_field_name(b);
            if (name)
                json_array_append_new(fields, json_string(name));
        }
    set(o, "format", jstr_or_null(kvb_format_name(in->read.format)));
    set(o, "weights_bytes", jint(in->read.weights_bytes));
    set(o, "fields_from_file", fields);
    set(o, "warnings", jstr_or_null(in->read.warning));
    return o;
}

/* Where a --model reference was read from: each figure's repository,
 * revision (and the commit it pointed at) and file. */
static json_t *model_ref_json(const cli_inputs *in)
{
    const kvb_ref_info *w = &in->where;
    json_t *o = json_object();
    set(o, "source", jstr_or_null(kvb_ref_source_name(w->source)));
    set(o, "repo", json_string(w->repo));
    set(o, "revision", json_string(w->revision));
    set(o, "commit", json_string(w->commit));
    set(o, "file", json_string(w->file));
    set(o, "path", json_string(w->path));
    set(o, "files_read", jint(w->file_count));
    set(o, "splits", jint(w->split_count));
    set(o, "http_requests", jint(w->http_requests));
    set(o, "http_bytes", jint(w->http_bytes));
    if (w->source == KVB_REF_SOURCE_OLLAMA) {
        json_t *p = json_object();
        const struct {
            const char *name;
            int64_t v;
        } params[] = {{"num_ctx", w->num_ctx},
                      {"num_batch", w->num_batch},
                      {"num_gpu", w->num_gpu},
                      {"num_predict", w->num_predict}};
        for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
            set(p, params[i].name,
                params[i].v < 0 ? json_null() : json_integer(params[i].v));
        set(o, "ollama_params", p);
        set(o, "ollama_params_json", json_string(w->params));
    }
    return o;
}

json_t *cli_plan_json(const cli_inputs *in, const kvb_plan *p)
{
    json_t *o = json_object();
    plan_inputs_json(o, in, p);
    plan_terms_json(o, p);
    if (in->from_file)
        set(o, "model_file", model_file_json(in));
    if (in->have_command)
        set(o, "command", command_json(&in->command));
    if (in->from_ref)
        set(o, "model_ref", model_ref_json(in));
    return o;
}

static json_t *render_json(const cli_inputs *in, const kvb_fix *f,
                           int32_t format)
{
    char text[2048];
    if (kvb_fix_render(f, &in->model, format, text, sizeof text, NULL, NULL) !=
        KVB_OK)
        return json_null();
    return json_string(text);
}

static json_t *fix_json(const cli_inputs *in, const kvb_fix *f)
{
    json_t *o = json_object();
    set(o, "kind", json_string(kvb_fix_kind_name(f->kind)));
    set(o, "title", json_string(f->title));
    set(o, "note", json_string(f->note));
    set(o, "fits", json_boolean(f->fits));
    set(o, "verdict", json_string(kvb_verdict_name(f->verdict)));
    const char *quant = f->quant_method == KVB_QUANT_AUTO
                            ? kvb_dtype_name(in->model.dtype)
                            : kvb_quant_method_name(f->quant_method);
    set(o, "quant", jstr_or_null(quant));
    set(o, "kv_cache_dtype", jstr_or_null(kvb_dtype_name(f->kv_cache_dtype)));
    set(o, "enforce_eager", json_boolean(f->enforce_eager));
    set(o, "gpu_memory_utilization", json_real(f->gpu_memory_utilization));
    set(o, "max_model_len", jint(f->max_model_len));
    set(o, "tp", jint(f->tensor_parallel_size));
    set(o, "pp", jint(f->pipeline_parallel_size));
    set(o, "gpu", jstr_or_null(f->gpu_name));
    set(o, "gpu_count", jint(f->gpu_count));
    set(o, "gpu_total_bytes", jint(f->gpu_total_bytes));
    set(o, "instance", jstr_or_null(f->instance));
    set(o, "cloud", jstr_or_null(f->cloud));
    set(o, "price_per_hour",
        f->price_per_hour > 0 ? json_real(f->price_per_hour) : json_null());
    set(o, "weights_bytes", jint(f->weights_bytes));
    set(o, "weights_bytes_per_gpu", jint(f->weights_bytes_per_gpu));
    set(o, "kv_budget_bytes_per_gpu", jint(f->kv_budget_bytes_per_gpu));
    set(o, "max_kv_tokens", jint(f->max_kv_tokens));
    set(o, "max_concurrency", json_real(f->max_concurrency));
    set(o, "max_model_len_fit", jint(f->max_model_len_fit));
    set(o, "vllm_args", render_json(in, f, KVB_RENDER_VLLM_ARGS));
    set(o, "k8s_args", render_json(in, f, KVB_RENDER_K8S_ARGS));
    set(o, "karpenter",
        f->kind == KVB_FIX_INSTANCE ? render_json(in, f, KVB_RENDER_KARPENTER)
                                    : json_null());
    /* @since 0.2 (added keys; the ones above keep their meaning) */
    set(o, "checkpoint", jstr_or_null(f->checkpoint));
    json_t *gives = json_array();
    for (size_t i = 0; i < sizeof cost_words / sizeof cost_words[0]; i++)
        if (f->gives_up & cost_words[i].bit)
            json_array_append_new(gives, json_string(cost_words[i].word));
    set(o, "gives_up", gives);
    set(o, "pareto", json_boolean(f->pareto));
    set(o, "usd_per_million_tokens",
        f->usd_per_million_tokens > 0 ? json_real(f->usd_per_million_tokens)
                                      : json_null());
    set(o, "price_per_gpu_hour",
        f->price_per_gpu_hour > 0 ? json_real(f->price_per_gpu_hour)
                                  : json_null());
    return o;
}

json_t *cli_fixes_json(const cli_inputs *in, const kvb_fix *fixes, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, fix_json(in, &fixes[i]));
    return a;
}

int cli_json_print(const char *cmd, json_t *value)
{
    char *text = json_dumps(value, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                       JSON_REAL_PRECISION(10));
    json_decref(value);
    if (!text) {
        cli_error(cmd, "out of memory writing JSON");
        return CLI_EXIT_USAGE;
    }
    puts(text);
    free(text);
    return 0;
}
