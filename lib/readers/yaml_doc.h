/*
 * readers/yaml_doc.h -- YAML documents for the manifest check: every
 * document of a stream loaded with libyaml, and lookups by key and path.
 * Internal; only advice/check.c and readers/manifest.c include it.
 */
#ifndef KVB_YAML_DOC_H
#define KVB_YAML_DOC_H

#include "internal.h"

#include <yaml.h>

/* Limits of one input: bytes and documents. */
#define KVB__YAML_MAX_BYTES ((size_t)64 << 20)
#define KVB__YAML_MAX_DOCS  10000u

typedef struct kvb__yaml {
    yaml_document_t *docs;
    size_t n, cap;
} kvb__yaml;

/* Load every document of `text`; KVB_EPARSE with err->line/column for
 * invalid YAML (the message says when an unrendered template is the
 * likely cause), KVB_ELIMIT, KVB_ENOMEM.  kvb__yaml_free() in every case. */
kvb_status kvb__yaml_load(const char *text, size_t len, kvb__yaml *y,
                          kvb_error *err);
void kvb__yaml_free(kvb__yaml *y);

/* The value of `key` in a mapping; NULL when absent or not a mapping. */
yaml_node_t *kvb__yaml_get(yaml_document_t *d, yaml_node_t *map,
                           const char *key);
/* Follow a dotted path of mapping keys ("spec.template.spec"). */
yaml_node_t *kvb__yaml_path(yaml_document_t *d, yaml_node_t *n,
                            const char *dotted);
/* A scalar's text; NULL for other nodes (and NULL). */
const char *kvb__yaml_str(const yaml_node_t *n);
/* Items of a sequence (0 for other nodes) and item i. */
size_t kvb__yaml_len(const yaml_node_t *n);
yaml_node_t *kvb__yaml_at(yaml_document_t *d, const yaml_node_t *n, size_t i);
/* 1-based line of a node; 0 for NULL. */
int kvb__yaml_line(const yaml_node_t *n);

#endif /* KVB_YAML_DOC_H */
