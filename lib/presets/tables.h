/*
 * presets/tables.h -- the row types of the checkpoint and Ollama tag
 * tables, which scripts/gen_presets.py generates from data/checkpoints.tsv
 * and data/ollama_tags.tsv (the model, GPU and instance rows are in
 * internal.h).  Only presets/ reads them.
 */
#ifndef KVB_PRESETS_TABLES_H
#define KVB_PRESETS_TABLES_H

#include "internal.h"

typedef struct kvb__checkpoint_row {
    const char *model; /* a model preset name */
    int32_t method;    /* kvb_quant_method */
    const char *repo;  /* Hugging Face repository */
    const char *source;
    /* The repository's published size in bytes, 0 where none was found
     * (data/checkpoints.tsv says how it was taken); tests/unit/test_quant.c
     * holds the inventory to 0.5% of each. */
    uint64_t published_bytes;
} kvb__checkpoint_row;

extern const kvb__checkpoint_row kvb__checkpoint_rows[];
extern const size_t kvb__checkpoint_rows_count;

typedef struct kvb__ollama_tag_row {
    const char *name;   /* NAME:SIZE */
    const char *preset; /* a kvb__model_rows name */
    int32_t method;     /* the default file's kvb_quant_method */
} kvb__ollama_tag_row;

extern const kvb__ollama_tag_row kvb__ollama_tag_rows[];
extern const size_t kvb__ollama_tag_rows_count;

#endif
