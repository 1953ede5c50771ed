/*
 * cmd_list.c -- `kvbudget list models|gpus|instances|quants|checkpoints`:
 * the presets
 * with their key figures and sources.
 */
#include "cli.h"

#include <string.h>

#define GIB(b) ((double)(b) / 1073741824.0)

static void list_help(void)
{
    fputs("usage: kvbudget list models|gpus|instances|quants|checkpoints "
          "[--json]\n\n"
          "The built-in presets with their key figures and the source each\n"
          "row was taken from (shown in full with --json).\n\n"
          "Exit status: 0, or 2 for a usage error.\n",
          stdout);
}

/* The first `n` characters of a source citation, for one table line. */
static void clip(const char *s, char *buf, size_t n)
{
    snprintf(buf, n, "%s", s ? s : "");
    if (s && strlen(s) >= n && n > 4)
        memcpy(buf + n - 4, "...", 4);
}

static json_t *models(bool json)
{
    json_t *a = json ? json_array() : NULL;
    if (!json)
        printf("%-28s %9s %7s %6s %9s %9s  %s\n", "model", "params", "layers",
               "hidden", "heads/kv", "max len", "source");
    for (size_t i = 0; i < kvb_preset_model_count(); i++) {
        kvb_model m;
        uint64_t params = 0;
        if (KVB_MODEL_INIT(&m) || kvb_preset_model_get(i, &m, NULL) ||
            kvb_preset_model_published_params(i, &params, NULL))
            continue;
        if (json) {
            json_t *o = json_pack(
                "{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s}", "name",
                m.name, "arch", kvb_arch_name(m.arch), "param_count",
                (json_int_t)params, "num_hidden_layers",
                (json_int_t)m.num_hidden_layers, "hidden_size",
                (json_int_t)m.hidden_size, "num_attention_heads",
                (json_int_t)m.num_attention_heads, "num_key_value_heads",
                (json_int_t)m.num_key_value_heads, "num_experts",
                (json_int_t)m.num_experts, "max_position_embeddings",
                (json_int_t)m.max_position_embeddings, "source",
                kvb_preset_model_source(i));
            json_array_append_new(a, o);
            continue;
        }
        char heads[24], src[48];
        snprintf(heads, sizeof heads, "%u/%u", m.num_attention_heads,
                 m.num_key_value_heads);
        clip(kvb_preset_model_source(i), src, sizeof src);
        printf("%-28s %8.2fB %7u %6llu %9s %9llu  %s\n", m.name,
               (double)params / 1e9, m.num_hidden_layers,
               (unsigned long long)m.hidden_size, heads,
               (unsigned long long)m.max_position_embeddings, src);
    }
    return a;
}

static json_t *gpus(bool json)
{
    json_t *a = json ? json_array() : NULL;
    if (!json)
        printf("%-32s %10s %5s %5s  %s\n", "gpu", "total GiB", "cc", "SMs",
               "source");
    for (size_t i = 0; i < kvb_preset_gpu_count(); i++) {
        kvb_gpu g;
        if (KVB_GPU_INIT(&g) || kvb_preset_gpu_get(i, &g, NULL))
            continue;
        if (json) {
            json_array_append_new(
                a, json_pack("{s:s, s:I, s:I, s:I, s:s}", "name", g.name,
                             "total_bytes", (json_int_t)g.total_bytes,
                             "compute_capability",
                             (json_int_t)g.compute_capability,
                             "multiprocessor_count",
                             (json_int_t)g.multiprocessor_count, "source",
                             kvb_preset_gpu_source(i)));
            continue;
        }
        char src[56];
        clip(kvb_preset_gpu_source(i), src, sizeof src);
        printf("%-32s %10.2f %5u %5u  %s\n", g.name, GIB(g.total_bytes),
               g.compute_capability, g.multiprocessor_count, src);
    }
    return a;
}

static json_t *instances(bool json)
{
    json_t *a = json ? json_array() : NULL;
    if (!json)
        printf("%-26s %-6s %-22s %4s %9s  %s\n", "instance", "cloud", "gpu",
               "gpus", "$/hour", "source");
    for (size_t i = 0; i < kvb_preset_instance_count(); i++) {
        kvb_instance in;
        if (KVB_INSTANCE_INIT(&in) || kvb_preset_instance_get(i, &in, NULL))
            continue;
        if (json) {
            json_t *o = json_pack(
                "{s:s, s:s, s:s, s:I, s:I, s:I}", "name", in.name, "cloud",
                in.cloud, "gpu", in.gpu_name, "gpu_count",
                (json_int_t)in.gpu_count, "vcpus", (json_int_t)in.vcpus,
                "host_memory_bytes", (json_int_t)in.host_memory_bytes);
            json_object_set_new(o, "price_per_hour",
                                in.price_per_hour > 0
                                    ? json_real(in.price_per_hour)
                                    : json_null());
            json_object_set_new(o, "source",
                                json_string(kvb_preset_instance_source(i)));
            json_array_append_new(a, o);
            continue;
        }
        char price[16] = "?", src[40];
        if (in.price_per_hour > 0)
            snprintf(price, sizeof price, "%.3f", in.price_per_hour);
        clip(kvb_preset_instance_source(i), src, sizeof src);
        printf("%-26s %-6s %-22s %4u %9s  %s\n", in.name, in.cloud, in.gpu_name,
               in.gpu_count, price, src);
    }
    return a;
}

/* Bits per parameter of each method, measured on a reference model. */
static double bits_per_param(int32_t method, const kvb_model *ref)
{
    kvb_quant q;
    kvb_weights w;
    if (KVB_QUANT_INIT(&q) || KVB_WEIGHTS_INIT(&w))
        return 0;
    q.method = method;
    if (kvb_weights_compute(ref, &q, 1, 1, &w, NULL) || !w.param_count)
        return 0;
    return 8.0 * (double)w.bytes / (double)w.param_count;
}

/* Published quantized checkpoints (presets/checkpoints.c), which fix
 * and fit name instead of a base repository with --quantization. */
static json_t *checkpoints(bool json)
{
    json_t *a = json ? json_array() : NULL;
    if (!json)
        printf("%-24s %-7s %-56s %s\n", "model", "format", "checkpoint",
               "source");
    for (size_t i = 0; i < kvb_preset_checkpoint_count(); i++) {
        const char *method =
            kvb_quant_method_name(kvb_preset_checkpoint_method(i));
        if (json) {
            json_array_append_new(
                a, json_pack("{s:s, s:s, s:s, s:s}", "model",
                             kvb_preset_checkpoint_model(i), "quant",
                             method ? method : "?", "checkpoint",
                             kvb_preset_checkpoint_name(i), "source",
                             kvb_preset_checkpoint_source(i)));
            continue;
        }
        char src[40];
        clip(kvb_preset_checkpoint_source(i), src, sizeof src);
        printf("%-24s %-7s %-56s %s\n", kvb_preset_checkpoint_model(i),
               method ? method : "?", kvb_preset_checkpoint_name(i), src);
    }
    return a;
}

static json_t *quants(bool json)
{
    static const char ref_name[] = "Llama-3.1-8B";
    kvb_model ref;
    bool have_ref = KVB_MODEL_INIT(&ref) == KVB_OK &&
                    kvb_preset_model_find(ref_name, &ref, NULL) == KVB_OK;
    json_t *a = json ? json_array() : NULL;
    if (!json)
        printf("%-10s %13s  %s\n", "quant", "bits/param*", "quality note");
    for (int m = 0; m < KVB_QUANT_LAST_; m++) {
        double bits = have_ref ? bits_per_param(m, &ref) : 0;
        if (json) {
            json_t *o =
                json_pack("{s:s, s:s}", "name", kvb_quant_method_name(m),
                          "note", kvb_quant_method_note(m));
            json_object_set_new(o, "bits_per_param",
                                bits > 0 ? json_real(bits) : json_null());
            json_array_append_new(a, o);
            continue;
        }
        printf("%-10s %13.2f  %s\n", kvb_quant_method_name(m), bits,
               kvb_quant_method_note(m));
    }
    if (!json)
        printf("* all weights of %s, embeddings and norms included\n",
               ref_name);
    return a;
}

int kvb_cli_list(int argc, char **argv)
{
    bool json = false, help = false;
    const char *what = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            help = true;
        else if (argv[i][0] == '-' || what) {
            cli_error("list",
                      "unexpected argument %s; see `kvbudget list "
                      "--help`",
                      argv[i]);
            return CLI_EXIT_USAGE;
        } else
            what = argv[i];
    }
    if (help) {
        list_help();
        return 0;
    }
    json_t *(*fn)(bool) = NULL;
    if (what && !strcmp(what, "checkpoints"))
        fn = checkpoints;
    if (what && !strcmp(what, "models"))
        fn = models;
    else if (what && !strcmp(what, "gpus"))
        fn = gpus;
    else if (what && !strcmp(what, "instances"))
        fn = instances;
    else if (what && !strcmp(what, "quants"))
        fn = quants;
    if (!fn) {
        cli_error("list",
                  "%s%s%s; allowed: models, gpus, instances, quants, "
                  "checkpoints",
                  what ? "unknown list (" : "what to list is missing",
                  what ? what : "", what ? ")" : "");
        return CLI_EXIT_USAGE;
    }
    json_t *a = fn(json);
    return json ? cli_json_print("list", a) : 0;
}
