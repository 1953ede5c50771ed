/*
 * cli.h -- the kvbudget command: subcommands, flag parsing, output.
 *
 * The command is a front end over include/kvbudget.h only: it parses
 * flags into the library's input structs, calls the library, and prints.
 * Exit status: 0 the plan fits, 1 it does not, 2 usage or input error.
 */
#ifndef KVB_CLI_H
#define KVB_CLI_H

#include "kvbudget.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* ---- exit statuses ---- */
#define CLI_EXIT_FITS  0
#define CLI_EXIT_NOFIT 1
#define CLI_EXIT_USAGE 2

/* ---- subcommands: argv[0] is the subcommand name; they return the exit
 * status ---- */
int kvb_cli_plan(int argc, char **argv);
int kvb_cli_fix(int argc, char **argv);
int kvb_cli_compare(int argc, char **argv);
int kvb_cli_fit(int argc, char **argv);
int kvb_cli_explain(int argc, char **argv);
int kvb_cli_list(int argc, char **argv);
int kvb_cli_check(int argc, char **argv);
/* Provided by cmd_probe.c; probe_default.c has weak stand-ins. */
int kvb_cli_probe(int argc, char **argv);
int kvb_cli_validate(int argc, char **argv);

/* ---- options (options.c) ---- */

#define CLI_MAX_POSITIONAL   4
#define CLI_MAX_ENGINE_WORDS 128
#define CLI_MODEL_FLAGS      24
#define CLI_SERVING_FLAGS    16

/* Every flag the plan-like subcommands accept, as given. */
typedef struct cli_opts {
    const char *cmd; /* "plan", "fix", "explain" */
    bool json, help;
    bool assume_llama; /* --assume-llama: KVB_READ_ASSUME_LLAMA */
    const char *positional[CLI_MAX_POSITIONAL];
    int npositional;
    const char *model;          /* --model NAME|PATH */
    const char *arch;           /* --arch llama */
    const char *quant;          /* --quant / --quantization */
    const char *kv_cache_dtype; /* --kv-cache-dtype */
    const char *dtype;          /* --dtype */
    const char *gpu;            /* --gpu NAME[:COUNT] */
    const char *instance;       /* --instance */
    const char *engine;         /* --engine vllm@0.11 */
    const char *cloud;          /* --cloud aws|gcp|azure (fix, fit) */
    const char *max_price;      /* --max-price USD/hour (fix, fit) */
    const char *manifest;       /* explain --manifest FILE */
    uint64_t gpu_memory;        /* --gpu-memory, bytes */
    uint32_t gpus;              /* --gpus */
    uint64_t gpu_free;          /* --gpu-free, bytes */
    bool gpu_memory_set, gpus_set, gpu_free_set;
    bool cache; /* --cache: store what the Hub sent in the HF cache */
    kvb_model model_flags; /* architecture flags, as given */
    bool model_set[CLI_MODEL_FLAGS];
    kvb_serving serving_flags; /* serving flags, as given */
    bool serving_set[CLI_SERVING_FLAGS];
    /* Flags kvbudget does not have, in order, with the word after each:
     * the engine's own flags (--mem-fraction-static 0.8, -ngl 99), read
     * by kvb_command_read with the engine of --engine. */
    const char *engine_words[CLI_MAX_ENGINE_WORDS];
    int nengine_words;
    /* The engine's whole command line after `--`. */
    const char *command[CLI_MAX_ENGINE_WORDS];
    int ncommand;
} cli_opts;

/* The inputs as understood, ready for kvb_plan_compute(). */
typedef struct cli_inputs {
    kvb_model model;
    kvb_quant quant;
    kvb_gpu gpu;
    kvb_serving serving;
    char instance[64];  /* instance preset, or "" */
    char gpu_label[96]; /* "A10G", "24.00 GiB GPU" */
    bool have_model, have_gpu;
    bool from_file; /* --model named a file: read holds the report */
    kvb_read_info read;
    char model_note[256]; /* what --model resolved to (preset + format) */
    bool from_ref;        /* --model was a reference: where says whence */
    kvb_ref_info where;
    char model_source[32]; /* "preset", "file", "flags", "preset+flags",
                              "log" */
    kvb_command command;   /* what the engine's flags or command line said */
    bool have_command;
    char cloud[16];   /* --cloud: instance remedies only there; "" */
    double max_price; /* --max-price: USD/hour ceiling; 0 none */
    uint64_t measured_max_model_len; /* explain: the engine's own estimate
                                        of the largest max_model_len */
    double min_utilization;          /* explain on a shared GPU: the floor when
                                        lowering utilization; 0: the default */
} cli_inputs;

/* ---- --model (model_source.c): the one place that decides what a
 * --model value is ---- */

typedef enum cli_model_kind {
    CLI_MODEL_PATH,   /* an existing file or folder, or one named as such */
    CLI_MODEL_PRESET, /* a preset name or alias */
    CLI_MODEL_REF,    /* ORG/REPO[@REV][:QUANT], hf://..., ollama://... */
    CLI_MODEL_UNKNOWN /* none of these: the preset lookup's error */
} cli_model_kind;

cli_model_kind cli_model_classify(const char *model);
/* Read --model into in (model, quant, read/where, serving.weights_bytes);
 * prints the error and returns CLI_EXIT_USAGE, or 0. */
int cli_model_load(const cli_opts *o, cli_inputs *in);

/* Parse argv (argv[0] = subcommand); prints the error and returns
 * CLI_EXIT_USAGE, or 0. */
int cli_parse(const char *cmd, int argc, char **argv, cli_opts *o);
/* Default inputs (every struct initialised). */
void cli_inputs_init(cli_inputs *in);
/* Apply the given flags on top of *in; prints the error and returns
 * CLI_EXIT_USAGE, or 0. */
int cli_inputs_apply(const cli_opts *o, cli_inputs *in);
/* Fail with a usage error unless a model and a GPU are known. */
int cli_inputs_require(const cli_opts *o, const cli_inputs *in);
/* explain --manifest: fill what the log did not say (known: the
 * KVB_LOG_KNOWN_* bits) from the first serving container of a manifest
 * (cmd_check.c); prints the error and returns 2, or 0. */
int cli_manifest_inputs(const char *cmd, const char *path, cli_inputs *in,
                        uint32_t known);
/* The flag that sets a library field ("serving.max_model_len" ->
 * "--max-model-len"), or NULL. */
const char *cli_flag_for_field(const char *field);
/* The help text of the flags shared by plan, fix and explain. */
void cli_print_input_help(FILE *out);

/* ---- output (output.c) ---- */

typedef struct cli_style {
    bool on; /* colour: stdout is a TTY and NO_COLOR unset */
    const char *bold, *dim, *red, *green, *yellow, *reset;
} cli_style;

void cli_style_init(cli_style *s);
/* Text read from a file or a log, made safe for a terminal: C0 controls
 * (but tab, and newline when keep_newlines), DEL and C1 controls become
 * \xNN / \u00NN, so a name cannot move the cursor, retitle the window
 * (OSC) or forge a line.  Writes at most cap bytes; returns out. */
char *cli_escape(const char *s, char *out, size_t cap, bool keep_newlines);
/* cli_escape in place, within a buffer of cap bytes (truncates). */
void cli_scrub(char *s, size_t cap);
/* "kvbudget plan: <message>" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A library failure, naming the flag behind e->field; returns 2. */
int cli_lib_error(const char *cmd, const kvb_error *e);
/* Plan a set of inputs; prints the error and returns 2 on failure. */
int cli_plan(const char *cmd, const cli_inputs *in, kvb_plan *plan);

void cli_print_plan(FILE *out, const cli_style *st, const cli_inputs *in,
                    const kvb_plan *p);
/* "vLLM", "SGLang" ... */
const char *cli_engine_label(int32_t engine);
/* The warnings of the model file, the command line and the plan (p may
 * be NULL), and the engine flags the plan ignores. */
void cli_print_warnings(FILE *out, const cli_style *st, const cli_inputs *in,
                        const kvb_plan *p);
void cli_print_plan_line(FILE *out, const cli_style *st, const cli_inputs *in,
                         const kvb_plan *p);
void cli_print_bar(FILE *out, const cli_style *st, const kvb_plan *p);
/* "FITS: ..." or "DOES NOT FIT (verdict): ..." */
void cli_print_verdict(FILE *out, const cli_style *st, const kvb_plan *p);
void cli_print_fixes(FILE *out, const cli_style *st, const cli_inputs *in,
                     const kvb_fix *fixes, size_t n);

json_t *cli_plan_json(const cli_inputs *in, const kvb_plan *p);
json_t *cli_fixes_json(const cli_inputs *in, const kvb_fix *fixes, size_t n);
/* Remedies that keep the format of a model given as a repository serve
 * that repository (kvb_fix.checkpoint). */
void cli_fixes_keep_checkpoint(const char *typed, const cli_inputs *in,
                               kvb_fix *fixes, size_t n);
/* Print a JSON value (indented) and release it; returns 0 or 2. */
int cli_json_print(const char *cmd, json_t *value);

/* Find the remedies for a plan; prints the error and returns 2 on
 * failure. */
int cli_advise(const char *cmd, const cli_inputs *in, kvb_fix *fixes,
               size_t cap, size_t *n);

#endif /* KVB_CLI_H */
