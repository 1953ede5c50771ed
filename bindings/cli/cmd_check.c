/*
 * cmd_check.c -- `kvbudget check FILE...|DIR|-`: read Kubernetes manifests
 * (or Helm output on standard input), predict for every serving container
 * whether it starts, and print the verdicts as a report, JSON, SARIF or
 * GitHub Actions annotations; --fix writes the manifest with the first
 * remedy that fits applied.  The reading and judging is the library's
 * kvb_check_manifest(); this file only gathers files and prints.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FILES 4096

static void check_help(void)
{
    fputs("usage: kvbudget check [flags] FILE...|DIR|-\n\n"
          "Reads Kubernetes YAML (multi-document files, directories of\n"
          "*.yaml / *.yml, or `helm template ... | kvbudget check -`), finds\n"
          "every serving container (Deployment, StatefulSet, DaemonSet, Job,\n"
          "Pod, LeaderWorkerSet, KServe InferenceService / ServingRuntime,\n"
          "KubeAI Model, production-stack values) and says whether it will\n"
          "start on the GPUs its node has, why, and the patch that makes it\n"
          "start.\n\n"
          "Flags:\n"
          "  --gpu NAME           GPU for pods whose manifest does not say\n"
          "  --instance NAME      instance type likewise (g5.xlarge)\n"
          "  --strict             count \"unknown\" verdicts as failures\n"
          "  --json               the report as JSON\n"
          "  --format FORMAT      text (default), json, sarif, github\n"
          "  --fix                write the manifest with the fixes applied\n"
          "                       to standard output (one input)\n"
          "  --max-fixes N        remedies listed per container (3; 0..32)\n\n"
          "Exit status: 0 nothing fails, 1 a deployment will fail (or, with\n"
          "--strict, cannot be judged), 2 usage or input error.\n"
          "See docs/check.md.\n",
          stdout);
}

typedef struct input {
    char *path;
    char *text;
    size_t len;
} input;

static char *read_stream(FILE *f, size_t *len)
{
    size_t cap = 65536, n = 0;
    char *p = malloc(cap);
    while (p) {
        size_t k = fread(p + n, 1, cap - n - 1, f);
        n += k;
        if (k == 0)
            break;
        if (cap - n - 1 == 0) {
            char *np = cap > ((size_t)64 << 20) ? NULL : realloc(p, cap * 2);
            if (!np) {
                free(p);
                return NULL;
            }
            p = np;
            cap *= 2;
        }
    }
    if (p) {
        p[n] = '\0';
        *len = n;
    }
    return p;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_yaml(const char *name)
{
    size_t n = strlen(name);
    return (n > 5 && !strcmp(name + n - 5, ".yaml")) ||
           (n > 4 && !strcmp(name + n - 4, ".yml"));
}

/* Files of a directory, recursively, sorted. */
static int list_dir(const char *dir, char **out, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d) {
        cli_error("check", "%s: cannot read: %s", dir, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    char *names[MAX_FILES];
    size_t k = 0;
    struct dirent *e;
    while ((e = readdir(d)) && k < MAX_FILES) {
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[k] = malloc(len);
        if (names[k])
            snprintf(names[k++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(names, k, sizeof names[0], cmp_str);
    int rc = 0;
    for (size_t i = 0; i < k; i++) {
        struct stat sb;
        if (!rc && stat(names[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            rc = list_dir(names[i], out, n);
            free(names[i]);
        } else if (!rc && is_yaml(names[i]) && *n < MAX_FILES) {
            out[(*n)++] = names[i];
        } else {
            free(names[i]);
        }
    }
    return rc;
}

static int load(const char *path, input *in)
{
    in->path = strdup(path);
    if (!strcmp(path, "-")) {
        in->text = read_stream(stdin, &in->len);
    } else {
        FILE *f = fopen(path, "rb");
        if (!f) {
            cli_error("check", "%s: cannot read: %s", path, strerror(errno));
            return CLI_EXIT_USAGE;
        }
        in->text = read_stream(f, &in->len);
        fclose(f);
    }
    if (!in->text) {
        cli_error("check",
                  "%s: cannot read: out of memory or larger than "
                  "64 MiB",
                  path);
        return CLI_EXIT_USAGE;
    }
    return 0;
}

/* Call a buffer-filling library function twice: size, then fill. */
static char *lib_text(const input *in, const kvb_check_options *o, bool fix,
                      uint32_t *changed, kvb_error *e)
{
    size_t need = 0;
    kvb_status st =
        fix ? kvb_check_fix(in->text, in->len, o, NULL, 0, &need, changed, e)
            : kvb_check_manifest(in->text, in->len, in->path, o, NULL, 0, &need,
                                 e);
    if (st != KVB_EBUFSIZE)
        return NULL;
    char *buf = malloc(need);
    if (!buf)
        return NULL;
    *e = (kvb_error)KVB_ERROR_INIT;
    st = fix ? kvb_check_fix(in->text, in->len, o, buf, need, NULL, changed, e)
             : kvb_check_manifest(in->text, in->len, in->path, o, buf, need,
                                  NULL, e);
    if (st) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int input_error(const input *in, const kvb_error *e)
{
    if (e->line > 0)
        cli_error("check", "%s:%lld:%lld: %s", in->path, (long long)e->line,
                  (long long)e->column, e->message);
    else
        cli_error("check", "%s: %s", in->path,
                  e->message[0] ? e->message : kvb_strerror(e->status));
    return CLI_EXIT_USAGE;
}

static const char *jstr(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static const char *first_reason(json_t *d)
{
    return json_string_value(json_array_get(json_object_get(d, "reasons"), 0))
               ? json_string_value(
                     json_array_get(json_object_get(d, "reasons"), 0))
               : "";
}

static void print_indented(const char *text, const char *pad)
{
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        size_t n = nl ? (size_t)(nl - l) : strlen(l);
        printf("%s%.*s\n", pad, (int)n, l);
        l += n + (nl ? 1 : 0);
    }
}

static void print_text(json_t *report)
{
    cli_style st;
    cli_style_init(&st);
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(report, "deployments"), i, d)
    {
        const char *v = jstr(d, "verdict");
        const char *col = !strcmp(v, "fits")    ? st.green
                          : !strcmp(v, "fails") ? st.red
                                                : st.yellow;
        printf("%s%s:%lld%s: document %lld, %s/%s, container %s\n", st.bold,
               jstr(d, "file"),
               (long long)json_integer_value(json_object_get(d, "line")),
               st.reset,
               (long long)json_integer_value(json_object_get(d, "document")),
               jstr(d, "kind"), jstr(d, "name"), jstr(d, "container"));
        printf("  engine %s%s%s, model %s, GPU %lld x %s\n", jstr(d, "engine"),
               *jstr(d, "engine_version") ? " " : "", jstr(d, "engine_version"),
               *jstr(d, "model") ? jstr(d, "model") : "?",
               (long long)json_integer_value(json_object_get(d, "gpu_count")),
               *jstr(d, "gpu") ? jstr(d, "gpu") : "?");
        const char *why = first_reason(d);
        if (!strncmp(why, "fits: ", 6)) /* the plan's message says it too */
            why += 6;
        printf("  %s%s%s: %s\n", col,
               !strcmp(v, "fits")    ? "FITS"
               : !strcmp(v, "fails") ? "WILL FAIL (crash-loop)"
                                     : "UNKNOWN",
               st.reset, why);
        size_t k;
        json_t *r;
        json_array_foreach(json_object_get(d, "reasons"), k, r) if (k > 0)
            printf("    %s\n", json_string_value(r));
        json_t *f;
        json_array_foreach(json_object_get(d, "fixes"), k, f)
        {
            printf("  %s %s\n",
                   json_is_true(json_object_get(f, "fits")) ? "fix:" : "no: ",
                   jstr(f, "title"));
            if (*jstr(f, "note"))
                printf("       %s\n", jstr(f, "note"));
        }
        if (*jstr(d, "patch")) {
            printf("  patch (the first fix that fits):\n");
            print_indented(jstr(d, "patch"), "    ");
        }
        putchar('\n');
    }
    json_array_foreach(json_object_get(report, "not_understood"), i, d) printf(
        "%s:%lld: document %lld, %s%s%s: not checked: %s\n", jstr(d, "file"),
        (long long)json_integer_value(json_object_get(d, "line")),
        (long long)json_integer_value(json_object_get(d, "document")),
        *jstr(d, "kind") ? jstr(d, "kind") : "(no kind)",
        *jstr(d, "name") ? "/" : "", jstr(d, "name"), jstr(d, "reason"));
}

/* GitHub Actions workflow commands: '%', CR and LF escaped. */
static void gh_escape(const char *s, bool property)
{
    for (; *s; s++) {
        if (*s == '%')
            fputs("%25", stdout);
        else if (*s == '\r')
            fputs("%0D", stdout);
        else if (*s == '\n')
            fputs("%0A", stdout);
        else if (property && *s == ':')
            fputs("%3A", stdout);
        else if (property && *s == ',')
            fputs("%2C", stdout);
        else
            putchar(*s);
    }
}

static void print_github(json_t *report, bool strict)
{
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(report, "deployments"), i, d)
    {
        const char *v = jstr(d, "verdict");
        if (!strcmp(v, "fits"))
            continue;
        const char *level = !strcmp(v, "fails") || strict ? "error" : "warning";
        printf("::%s file=", level);
        gh_escape(jstr(d, "file"), true);
        printf(",line=%lld,title=",
               (long long)json_integer_value(json_object_get(d, "line")));
        char title[256];
        snprintf(title, sizeof title, "kvbudget: %s/%s %s", jstr(d, "kind"),
                 jstr(d, "name"),
                 !strcmp(v, "fails") ? "will fail" : "cannot be judged");
        gh_escape(title, true);
        printf("::");
        gh_escape(first_reason(d), false);
        json_t *f = json_array_get(json_object_get(d, "fixes"), 0);
        size_t k;
        json_array_foreach(json_object_get(d, "fixes"), k,
                           f) if (json_is_true(json_object_get(f, "fits")))
        {
            gh_escape("; fix: ", false);
            gh_escape(jstr(f, "title"), false);
            break;
        }
        putchar('\n');
    }
}

static json_t *sarif(json_t *report)
{
    json_t *results = json_array();
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(report, "deployments"), i, d)
    {
        const char *v = jstr(d, "verdict");
        if (!strcmp(v, "fits"))
            continue;
        char msg[1024];
        json_t *f, *fix = NULL;
        size_t k;
        json_array_foreach(
            json_object_get(d, "fixes"), k,
            f) if (!fix && json_is_true(json_object_get(f, "fits"))) fix = f;
        snprintf(msg, sizeof msg, "%s/%s container %s: %s%s%s", jstr(d, "kind"),
                 jstr(d, "name"), jstr(d, "container"), first_reason(d),
                 fix ? "; fix: " : "", fix ? jstr(fix, "title") : "");
        json_int_t line = json_integer_value(json_object_get(d, "line"));
        json_array_append_new(
            results,
            json_pack("{s:s,s:s,s:{s:s},s:[{s:{s:{s:s},s:{s:I}}}]}", "ruleId",
                      !strcmp(v, "fails") ? "kvbudget/will-fail"
                                          : "kvbudget/unknown",
                      "level", !strcmp(v, "fails") ? "error" : "warning",
                      "message", "text", msg, "locations", "physicalLocation",
                      "artifactLocation", "uri", jstr(d, "file"), "region",
                      "startLine", line > 0 ? line : 1));
    }
    return json_pack(
        "{s:s,s:s,s:[{s:{s:{s:s,s:s,s:s,s:[{s:s,s:{s:s}},{s:s,s:{s:s}}]}},s:o}]"
        "}",
        "$schema", "https://json.schemastore.org/sarif-2.1.0.json", "version",
        "2.1.0", "runs", "tool", "driver", "name", "kvbudget", "version",
        kvb_version_string(), "informationUri",
        "https://github.com/kvbudget/kvbudget", "rules", "id",
        "kvbudget/will-fail", "shortDescription", "text",
        "the serving container will not start (out of GPU memory or KV "
        "cache)",
        "id", "kvbudget/unknown", "shortDescription", "text",
        "the serving container cannot be judged from the manifest", "results",
        results);
}

int kvb_cli_check(int argc, char **argv)
{
    kvb_check_options o;
    if (KVB_CHECK_OPTIONS_INIT(&o))
        return CLI_EXIT_USAGE;
    const char *format = "text";
    bool strict = false, fix = false;
    const char *paths[MAX_FILES];
    size_t npaths = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            check_help();
            return 0;
        } else if (!strcmp(a, "--json")) {
            format = "json";
        } else if (!strcmp(a, "--strict")) {
            strict = true;
        } else if (!strcmp(a, "--fix")) {
            fix = true;
        } else if (!strcmp(a, "--format") || !strcmp(a, "--gpu") ||
                   !strcmp(a, "--instance") || !strcmp(a, "--max-fixes") ||
                   !strncmp(a, "--format=", 9) || !strncmp(a, "--gpu=", 6) ||
                   !strncmp(a, "--instance=", 11) ||
                   !strncmp(a, "--max-fixes=", 12)) {
            const char *eq = strchr(a, '=');
            if (eq) {
                val = eq + 1;
            } else if (i + 1 < argc) {
                val = argv[++i];
            } else {
                cli_error("check", "%s needs a value", a);
                return CLI_EXIT_USAGE;
            }
            if (!strncmp(a, "--format", 8)) {
                if (strcmp(val, "text") && strcmp(val, "json") &&
                    strcmp(val, "sarif") && strcmp(val, "github")) {
                    cli_error("check",
                              "--format (%s) is not known; allowed: text, "
                              "json, sarif, github",
                              val);
                    return CLI_EXIT_USAGE;
                }
                format = val;
            } else if (!strncmp(a, "--gpu", 5)) {
                snprintf(o.gpu, sizeof o.gpu, "%s", val);
            } else if (!strncmp(a, "--instance", 10)) {
                snprintf(o.instance, sizeof o.instance, "%s", val);
            } else {
                char *end;
                unsigned long n = strtoul(val, &end, 10);
                if (end == val || *end || n > KVB_ADVICE_MAX) {
                    cli_error("check",
                              "--max-fixes (%s) is out of range; allowed: "
                              "0..%d",
                              val, KVB_ADVICE_MAX);
                    return CLI_EXIT_USAGE;
                }
                o.max_fixes = (uint32_t)n;
            }
        } else if (a[0] == '-' && a[1]) {
            cli_error("check", "unknown flag %s; see `kvbudget check --help`",
                      a);
            return CLI_EXIT_USAGE;
        } else if (npaths < MAX_FILES) {
            paths[npaths++] = a;
        }
    }
    if (!npaths) {
        cli_error("check", "give a file, a directory or - (standard input); "
                           "see `kvbudget check --help`");
        return CLI_EXIT_USAGE;
    }
    if (o.gpu[0] && o.instance[0]) {
        cli_error("check", "--gpu and --instance are alternatives; give one");
        return CLI_EXIT_USAGE;
    }
    /* expand directories */
    char *files[MAX_FILES];
    size_t nfiles = 0;
    int rc = 0;
    for (size_t i = 0; i < npaths && !rc; i++) {
        struct stat sb;
        if (strcmp(paths[i], "-") && stat(paths[i], &sb) == 0 &&
            S_ISDIR(sb.st_mode))
            rc = list_dir(paths[i], files, &nfiles);
        else if (nfiles < MAX_FILES)
            files[nfiles++] = strdup(paths[i]);
    }
    if (!rc && fix && nfiles != 1) {
        cli_error("check", "--fix takes one file (or -)");
        rc = CLI_EXIT_USAGE;
    }
    json_t *report = json_pack("{s:[],s:[]}", "deployments", "not_understood");
    for (size_t i = 0; i < nfiles && !rc; i++) {
        input in = {0};
        kvb_error e = KVB_ERROR_INIT;
        rc = load(files[i], &in);
        if (!rc && fix) {
            uint32_t changed = 0;
            char *out = lib_text(&in, &o, true, &changed, &e);
            if (!out)
                rc = input_error(&in, &e);
            else
                fputs(out, stdout);
            if (out)
                fprintf(stderr, "kvbudget check: %u container%s changed\n",
                        changed, changed == 1 ? "" : "s");
            free(out);
        } else if (!rc) {
            char *out = lib_text(&in, &o, false, NULL, &e);
            json_error_t je;
            json_t *j = out ? json_loads(out, 0, &je) : NULL;
            if (!j) {
                rc = input_error(&in, &e);
            } else {
                json_array_extend(json_object_get(report, "deployments"),
                                  json_object_get(j, "deployments"));
                json_array_extend(json_object_get(report, "not_understood"),
                                  json_object_get(j, "not_understood"));
            }
            json_decref(j);
            free(out);
        }
        free(in.path);
        free(in.text);
    }
    for (size_t i = 0; i < nfiles; i++)
        free(files[i]);
    if (rc || fix) {
        json_decref(report);
        return rc;
    }
    int status = CLI_EXIT_FITS;
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(report, "deployments"), i, d)
    {
        const char *v = jstr(d, "verdict");
        if (!strcmp(v, "fails") || (strict && strcmp(v, "fits")))
            status = CLI_EXIT_NOFIT;
    }
    if (!strcmp(format, "json")) {
        if (cli_json_print("check", json_incref(report)))
            status = CLI_EXIT_USAGE;
    } else if (!strcmp(format, "sarif")) {
        if (cli_json_print("check", sarif(report)))
            status = CLI_EXIT_USAGE;
    } else if (!strcmp(format, "github")) {
        print_github(report, strict);
    } else {
        print_text(report);
        if (!json_array_size(json_object_get(report, "deployments")))
            printf("No serving containers found.\n");
    }
    json_decref(report);
    return status;
}

/* ---- explain --manifest ---- */

int cli_manifest_inputs(const char *cmd, const char *path, cli_inputs *in,
                        uint32_t known)
{
    input src = {0};
    kvb_check_options o;
    kvb_error e = KVB_ERROR_INIT;
    if (KVB_CHECK_OPTIONS_INIT(&o))
        return CLI_EXIT_USAGE;
    o.max_fixes = 0;
    int rc = load(path, &src);
    char *out = rc ? NULL : lib_text(&src, &o, false, NULL, &e);
    json_t *j = out ? json_loads(out, 0, NULL) : NULL;
    if (!rc && !j)
        rc = input_error(&src, &e);
    free(out);
    free(src.path);
    free(src.text);
    if (rc)
        return rc;
    json_t *d = NULL, *it;
    size_t i;
    json_array_foreach(json_object_get(j, "deployments"), i,
                       it) if (!d && *jstr(it, "model_preset")) d = it;
    if (!d) {
        cli_error(cmd,
                  "--manifest %s: no serving container with a model "
                  "kvbudget knows",
                  path);
        json_decref(j);
        return CLI_EXIT_USAGE;
    }
    if (!(known & KVB_LOG_KNOWN_MODEL) &&
        kvb_preset_model_find(jstr(d, "model_preset"), &in->model, NULL) ==
            KVB_OK) {
        in->have_model = true;
        snprintf(in->model_source, sizeof in->model_source, "manifest");
    }
    if (!(known & KVB_LOG_KNOWN_QUANT) && *jstr(d, "quant"))
        if (kvb_quant_method_find(jstr(d, "quant"), &in->quant.method, NULL))
            in->quant.method = 0;
    if (!(known & KVB_LOG_KNOWN_GPU)) {
        kvb_instance inst;
        char name[96];
        snprintf(name, sizeof name, "%s", jstr(d, "gpu"));
        char *sp = strchr(name, ' ');
        if (sp)
            *sp = '\0';
        json_int_t count = json_integer_value(json_object_get(d, "gpu_count"));
        if (*jstr(d, "instance") && !KVB_INSTANCE_INIT(&inst) &&
            !kvb_preset_instance_find(jstr(d, "instance"), &inst, NULL) &&
            !kvb_instance_gpu(&inst, &in->gpu, NULL)) {
            snprintf(in->instance, sizeof in->instance, "%s", inst.name);
            in->have_gpu = true;
        } else if (*name && !kvb_preset_gpu_find(name, &in->gpu, NULL)) {
            in->have_gpu = true;
        }
        if (in->have_gpu) {
            if (count > 0)
                in->gpu.count = (uint32_t)count;
            snprintf(in->gpu_label, sizeof in->gpu_label, "%s", in->gpu.name);
        }
    }
    json_t *p = json_object_get(d, "plan");
    if (!(known & KVB_LOG_KNOWN_SERVING) && json_is_object(p)) {
        in->serving.max_model_len =
            (uint64_t)json_integer_value(json_object_get(p, "max_model_len"));
        in->serving.gpu_memory_utilization =
            json_real_value(json_object_get(p, "gpu_memory_utilization"));
        in->serving.tensor_parallel_size = (uint32_t)json_integer_value(
            json_object_get(p, "tensor_parallel_size"));
        in->serving.pipeline_parallel_size = (uint32_t)json_integer_value(
            json_object_get(p, "pipeline_parallel_size"));
    }
    if (*jstr(d, "engine_version") && !in->serving.engine_version) {
        char spec[96];
        int32_t id;
        uint32_t v;
        snprintf(spec, sizeof spec, "%s@%s", jstr(d, "engine"),
                 jstr(d, "engine_version"));
        if (!kvb_engine_parse(spec, &id, &v, NULL)) {
            in->serving.engine = id;
            in->serving.engine_version = v;
        }
    }
    json_decref(j);
    return 0;
}
