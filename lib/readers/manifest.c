/*
 * readers/manifest.c -- YAML streams (Kubernetes manifests, Helm values)
 * loaded with libyaml into documents, and the few lookups the check
 * needs.  Nothing here knows Kubernetes; advice/check.c does.  Compiled
 * only with libyaml (KVB_HAVE_YAML).
 */
#ifdef KVB_HAVE_YAML
#include "yaml_doc.h"

#include <stdlib.h>
#include <string.h>

void kvb__yaml_free(kvb__yaml *y)
{
    for (size_t i = 0; i < y->n; i++)
        yaml_document_delete(&y->docs[i]);
    free(y->docs);
    y->docs = NULL;
    y->n = y->cap = 0;
}

static bool looks_templated(const char *text, size_t len)
{
    for (size_t i = 0; i + 1 < len; i++)
        if (text[i] == '{' && text[i + 1] == '{')
            return true;
    return false;
}

kvb_status kvb__yaml_load(const char *text, size_t len, kvb__yaml *y,
                          kvb_error *err)
{
    memset(y, 0, sizeof *y);
    if (!text && len)
        return kvb__fail(err, KVB_EINVAL, "text", "text must not be NULL");
    if (len > KVB__YAML_MAX_BYTES)
        return kvb__fail(err, KVB_ELIMIT, "text",
                         "text (%zu bytes) is larger than the limit; "
                         "allowed: up to %zu bytes",
                         len, KVB__YAML_MAX_BYTES);
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return kvb__fail(err, KVB_ENOMEM, "text", "out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)(text ? text : ""),
                                 len);
    kvb_status st = KVB_OK;
    for (;;) {
        yaml_document_t d;
        if (!yaml_parser_load(&p, &d)) {
            int line = (int)p.problem_mark.line + 1;
            int col = (int)p.problem_mark.column + 1;
            st = kvb__fail(err, KVB_EPARSE, "text",
                           "invalid YAML at line %d, column %d: %s%s%s%s", line,
                           col, p.problem ? p.problem : "syntax error",
                           p.context ? " " : "", p.context ? p.context : "",
                           looks_templated(text, len)
                               ? " (an unrendered template? run `helm "
                                 "template` first)"
                               : "");
            if (err) {
                err->line = line;
                err->column = col;
            }
            break;
        }
        if (!yaml_document_get_root_node(&d)) {
            yaml_document_delete(&d); /* end of the stream */
            break;
        }
        if (y->n == KVB__YAML_MAX_DOCS) {
            yaml_document_delete(&d);
            st = kvb__fail(err, KVB_ELIMIT, "text",
                           "more than %u YAML documents", KVB__YAML_MAX_DOCS);
            break;
        }
        if (y->n == y->cap) {
            size_t cap = y->cap ? y->cap * 2 : 8;
            yaml_document_t *nd = realloc(y->docs, cap * sizeof *nd);
            if (!nd) {
                yaml_document_delete(&d);
                st = kvb__fail(err, KVB_ENOMEM, "text", "out of memory");
                break;
            }
            y->docs = nd;
            y->cap = cap;
        }
        y->docs[y->n++] = d;
    }
    yaml_parser_delete(&p);
    if (st)
        kvb__yaml_free(y);
    return st;
}

const char *kvb__yaml_str(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
                                            : NULL;
}

yaml_node_t *kvb__yaml_get(yaml_document_t *d, yaml_node_t *map,
                           const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
         p < map->data.mapping.pairs.top; p++) {
        const char *k = kvb__yaml_str(yaml_document_get_node(d, p->key));
        if (k && strcmp(k, key) == 0)
            return yaml_document_get_node(d, p->value);
    }
    return NULL;
}

yaml_node_t *kvb__yaml_path(yaml_document_t *d, yaml_node_t *n,
                            const char *dotted)
{
    char key[128];
    while (n && *dotted) {
        const char *dot = strchr(dotted, '.');
        size_t len = dot ? (size_t)(dot - dotted) : strlen(dotted);
        if (len >= sizeof key)
            return NULL;
        memcpy(key, dotted, len);
        key[len] = '\0';
        n = kvb__yaml_get(d, n, key);
        dotted += len + (dot ? 1 : 0);
    }
    return n;
}

size_t kvb__yaml_len(const yaml_node_t *n)
{
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return 0;
    return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

yaml_node_t *kvb__yaml_at(yaml_document_t *d, const yaml_node_t *n, size_t i)
{
    if (i >= kvb__yaml_len(n))
        return NULL;
    return yaml_document_get_node(d, n->data.sequence.items.start[i]);
}

int kvb__yaml_line(const yaml_node_t *n)
{
    return n ? (int)n->start_mark.line + 1 : 0;
}
#else
typedef int kvb__no_yaml_reader; /* ISO C: not an empty file */
#endif /* KVB_HAVE_YAML */
