/*
 * readers/remote.h -- internal declarations of the model-reference readers
 * (modelref.c on top; hub.c, hf_cache.c and ollama.c below it; http.c,
 * the libcurl transport, under hub.c).  Only these files include it.
 *
 * Layering: format readers (config.c, safetensors.c, gguf.c) <- files.c
 * (kvb_model_read) <- hf_cache.c, ollama.c, hub.c <- modelref.c
 * (kvb_model_read_ref).  Nothing below calls up.
 */
#ifndef KVB_READERS_REMOTE_H
#define KVB_READERS_REMOTE_H

#include "internal.h"

#define KVB__URL_CAP  2048 /* longest URL built */
#define KVB__PATH_CAP 4096 /* longest local path built */

/* ---- a parsed model reference ---- */

typedef enum kvb__ref_kind {
    KVB__REF_HF = 1,     /* ORG/REPO[@REV][:QUANT] or hf://ORG/REPO[/FILE] */
    KVB__REF_OLLAMA = 2, /* ollama://NAME[:TAG] */
} kvb__ref_kind;

typedef struct kvb__ref {
    int kind;
    char repo[128];     /* ORG/REPO (HF), NAMESPACE/NAME (Ollama) */
    char revision[128]; /* HF: branch, tag or commit; default "main" */
    char quant[32];     /* HF GGUF: the quantization after ':', or "" */
    char file[256];     /* HF: one file named in the reference, or "" */
    char tag[64];       /* Ollama: the tag; default "latest" */
    char host[128];     /* Ollama: registry host; default
                           registry.ollama.ai */
} kvb__ref;

/* The settings of one read: the options struct, with the environment
 * applied (unless KVB_REF_NO_ENV). */
typedef struct kvb__ref_env {
    char endpoint[512];    /* no trailing '/' */
    char token[512];       /* "" when none */
    char token_source[32]; /* "HF_TOKEN", "token file", "options" */
    char hf_cache[KVB__PATH_CAP];
    char ollama_models[KVB__PATH_CAP];
    uint32_t flags; /* KVB_REF_* */
    uint32_t max_parallel, max_retries, timeout_ms, backoff_ms;
} kvb__ref_env;

/* One read: the shared reader state and the provenance being filled. */
typedef struct kvb__ref_read {
    kvb__reader *r;
    kvb_ref_info where; /* full size */
    const kvb__ref *ref;
    const kvb__ref_env *env;
} kvb__ref_read;

/* Parse a reference (without its scheme decided by the caller). */
kvb_status kvb__ref_parse(const char *text, kvb__ref *out, kvb_error *err);

/* ---- HF cache (hf_cache.c) ---- */

/* The snapshot folder of ref in the cache: KVB_OK and *found when
 * present (path set), KVB_OK and !*found when the cache lacks it. */
kvb_status kvb__hf_cache_find(kvb__ref_read *rr, char *path, bool *found);
/* Read ref from the snapshot folder found above. */
kvb_status kvb__hf_cache_read(kvb__ref_read *rr, const char *snapshot,
                              kvb_model *model, kvb_quant *quant,
                              kvb_read_info *info, kvb_error *err);
/* Store a small file read from the Hub in the cache (blobs/, snapshots/,
 * refs/), as huggingface_hub lays it out. */
kvb_status kvb__hf_cache_store(const kvb__ref_read *rr, const char *commit,
                               const char *file, const char *etag,
                               const void *data, size_t len);
/* Pick the GGUF file of a quantization among names (NULL-terminated
 * list walk by callback); shared by the cache and the Hub. */
bool kvb__gguf_name_matches(const char *name, const char *quant);
/* "x-00001-of-00003.gguf": *no = 1, *count = 3; false when not a split. */
bool kvb__gguf_split(const char *name, unsigned *no, unsigned *count);

/* GGUF tensor bytes of a split that is not the first (no architecture):
 * KVB_OK with the sums when its tensor infos were read whole; else the
 * parser's status, with *need when more bytes would do. */
kvb_status kvb__gguf_split_bytes(const void *buf, size_t len, uint64_t file_len,
                                 uint64_t *bytes, uint64_t *tensors,
                                 uint64_t *need);
/* Read one local GGUF (and, for split 1 of n, count the other splits). */
kvb_status kvb__read_gguf_path(kvb__ref_read *rr, const char *path,
                               const char *rel, kvb_model *model,
                               kvb_quant *quant, kvb_read_info *info,
                               kvb_error *err);
/* Remove the GGUF reader's "one of N splits" warning once all are
 * counted. */
void kvb__drop_split_warning(char *warning, uint32_t *count);

/* ---- Hub (hub.c) ---- */

kvb_status kvb__hub_read(kvb__ref_read *rr, kvb_model *model, kvb_quant *quant,
                         kvb_read_info *info, kvb_error *err);

/* ---- Ollama store (ollama.c) ---- */

kvb_status kvb__ollama_read(kvb__ref_read *rr, kvb_model *model,
                            kvb_quant *quant, kvb_read_info *info,
                            kvb_error *err);

/* ---- HTTP (http.c; libcurl, built with KVB_HAVE_CURL) ---- */

/* One GET: the request, then what came back. */
typedef struct kvb__http_get {
    char url[KVB__URL_CAP];
    uint64_t from, to;  /* byte range [from, to); to == 0: the whole body */
    uint64_t max_bytes; /* a longer body fails (too_large) */
    /* results */
    long status;             /* HTTP status of the last response; 0: none */
    unsigned char *body;     /* malloc'd, NUL-terminated; free with the get */
    size_t len;              /* body bytes */
    uint64_t total;          /* whole file size: Content-Range total, else
                                X-Linked-Size, else Content-Length; 0 unknown */
    char commit[64];         /* X-Repo-Commit */
    char etag[128];          /* X-Linked-Etag, else ETag, without quotes */
    char error_code[48];     /* X-Error-Code (RepoNotFound, GatedRepo, ...) */
    char error_message[200]; /* X-Error-Message */
    char final_url[KVB__URL_CAP]; /* after redirects (reuse for ranges) */
    char transport[256]; /* a transport error (timeout, refused), or "" */
    bool too_large;
    uint32_t attempts; /* tries made (1 + retries) */
} kvb__http_get;

typedef struct kvb__http {
    const char *token; /* bearer token, or NULL */
    uint32_t max_parallel, max_retries, timeout_ms, backoff_ms;
    uint32_t requests; /* HTTP requests made, redirects and retries
                          included */
    uint64_t bytes;    /* body bytes received */
} kvb__http;

/* Run n GETs, at most max_parallel at a time, in the calling thread;
 * 429, 5xx and transport errors are retried with backoff.  Fails only
 * when libcurl cannot start (each get carries its own outcome). */
kvb_status kvb__http_run(kvb__http *h, kvb__http_get *gets, size_t n,
                         kvb_error *err);
void kvb__http_get_reset(kvb__http_get *g);
bool kvb__http_built(void);

#endif
