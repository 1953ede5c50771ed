/*
 * readers/ollama.c -- a model in the local Ollama store:
 *
 *   <models>/manifests/<host>/<namespace>/<name>/<tag>   the manifest (JSON)
 *   <models>/blobs/sha256-<hex>                          the layers
 *
 * The manifest's layer of media type application/vnd.ollama.image.model
 * is a GGUF file (read by files.c); application/vnd.ollama.image.params
 * is a small JSON object of run-time settings (num_ctx, num_batch,
 * num_gpu, num_predict, stop, temperature, ...), reported in kvb_ref_info
 * for the engines that honour it.
 */
#define _POSIX_C_SOURCE 200809L

#include "readers/remote.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MANIFEST_MAX_BYTES (1u << 20)
#define MEDIA_MODEL        "application/vnd.ollama.image.model"
#define MEDIA_PARAMS       "application/vnd.ollama.image.params"
#define MEDIA_PROJECTOR    "application/vnd.ollama.image.projector"

/* A small JSON file, whole; NULL with *err set when it cannot be. */
static json_t *load_json(const char *path, const char *what, kvb_error *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        kvb__fail(err, KVB_ENOTFOUND, what, "%s (%s) does not exist", what,
                  path);
        return NULL;
    }
    if ((uint64_t)sb.st_size > MANIFEST_MAX_BYTES) {
        kvb__fail(err, KVB_ELIMIT, what,
                  "%s (%s, %lld bytes) exceeds the %u-byte limit", what, path,
                  (long long)sb.st_size, MANIFEST_MAX_BYTES);
        return NULL;
    }
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root || !json_is_object(root)) {
        kvb__fail(err, KVB_EPARSE, what, "%s (%s) is not a JSON object%s%s",
                  what, path, root ? "" : ": ", root ? "" : je.text);
        json_decref(root);
        return NULL;
    }
    return root;
}

/* "sha256:<64 hex>" -> <models>/blobs/sha256-<64 hex> */
static bool blob_path(const char *models, const char *digest, char *out)
{
    if (strncmp(digest, "sha256:", 7) != 0 || strlen(digest) != 71)
        return false;
    for (const char *p = digest + 7; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return false;
    int n =
        snprintf(out, KVB__PATH_CAP, "%s/blobs/sha256-%s", models, digest + 7);
    return n > 0 && n < KVB__PATH_CAP;
}

static int64_t param_int(json_t *params, const char *key)
{
    json_t *v = json_object_get(params, key);
    return json_is_integer(v) && json_integer_value(v) >= 0
               ? (int64_t)json_integer_value(v)
               : -1;
}

static kvb_status read_params(kvb__ref_read *rr, const char *path,
                              kvb_error *err)
{
    json_t *p = load_json(path, "ollama.params", err);
    if (!p)
        return err ? err->status : KVB_EPARSE;
    rr->where.num_ctx = param_int(p, "num_ctx");
    rr->where.num_batch = param_int(p, "num_batch");
    rr->where.num_gpu = param_int(p, "num_gpu");
    rr->where.num_predict = param_int(p, "num_predict");
    char *text = json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS);
    if (text)
        kvb__strlcpy(rr->where.params, text, sizeof rr->where.params);
    free(text);
    json_decref(p);
    return KVB_OK;
}

kvb_status kvb__ollama_read(kvb__ref_read *rr, kvb_model *model,
                            kvb_quant *quant, kvb_read_info *info,
                            kvb_error *err)
{
    const kvb__ref *ref = rr->ref;
    const char *models = rr->env->ollama_models;
    char path[KVB__PATH_CAP], model_blob[KVB__PATH_CAP] = "";
    char params_blob[KVB__PATH_CAP] = "", digest[80] = "";
    if (!models[0])
        return kvb__fail(err, KVB_ENOTFOUND, "ollama_models",
                         "no Ollama store: set OLLAMA_MODELS (or HOME)");
    int n = snprintf(path, sizeof path, "%s/manifests/%s/%s/%s", models,
                     ref->host, ref->repo, ref->tag);
    if (n < 0 || n >= (int)sizeof path)
        return kvb__fail(err, KVB_ELIMIT, "ollama_models", "path too long");
    json_t *m = load_json(path, "ollama.manifest", err);
    if (!m) {
        if (err && err->status == KVB_ENOTFOUND)
            kvb__fail(err, KVB_ENOTFOUND, "ref",
                      "%s:%s is not in the Ollama store (%s): no manifest "
                      "at %s (`ollama pull` it, or set OLLAMA_MODELS)",
                      ref->repo, ref->tag, models, path);
        return err ? err->status : KVB_ENOTFOUND;
    }
    json_t *layers = json_object_get(m, "layers");
    size_t i, projectors = 0;
    json_t *layer;
    kvb_status st = KVB_OK;
    json_array_foreach(layers, i, layer)
    {
        const char *media =
            json_string_value(json_object_get(layer, "mediaType"));
        const char *dg = json_string_value(json_object_get(layer, "digest"));
        if (!media || !dg)
            continue;
        char *out = !strcmp(media, MEDIA_MODEL)    ? model_blob
                    : !strcmp(media, MEDIA_PARAMS) ? params_blob
                                                   : NULL;
        projectors += !strcmp(media, MEDIA_PROJECTOR);
        if (!out)
            continue;
        if (!blob_path(models, dg, out)) {
            st = kvb__fail(err, KVB_EPARSE, "ollama.manifest",
                           "manifest (%s) has a layer digest (%.80s) that "
                           "is not sha256:<64 hex>",
                           path, dg);
            break;
        }
        if (out == model_blob)
            kvb__strlcpy(digest, dg + 7, sizeof digest);
    }
    json_decref(m);
    if (st)
        return st;
    if (!model_blob[0])
        return kvb__fail(err, KVB_EPARSE, "ollama.manifest",
                         "manifest (%s) has no layer of type %s", path,
                         MEDIA_MODEL);
    kvb_read_info local;
    KVB__CANNOT_FAIL(kvb_read_info_init(&local, sizeof local));
    st = kvb_model_read(model_blob, model, quant, &local, err);
    if (st)
        return st;
    if (projectors)
        kvb__strlcpy(local.warning + strlen(local.warning),
                     local.warning[0] ? "; the vision projector layer is "
                                        "not counted"
                                      : "the vision projector layer is not "
                                        "counted",
                     sizeof local.warning - strlen(local.warning)),
            local.warning_count++;
    if (params_blob[0]) {
        st = read_params(rr, params_blob, err);
        if (st)
            return st;
    }
    const char *slash = strchr(ref->repo, '/');
    snprintf(model->name, sizeof model->name, "%.40s:%.20s",
             !strncmp(ref->repo, "library/", 8) ? slash + 1 : ref->repo,
             ref->tag);
    rr->where.source = KVB_REF_SOURCE_OLLAMA;
    kvb__strlcpy(rr->where.repo, ref->repo, sizeof rr->where.repo);
    kvb__strlcpy(rr->where.revision, ref->tag, sizeof rr->where.revision);
    kvb__strlcpy(rr->where.commit, digest, sizeof rr->where.commit);
    snprintf(rr->where.file, sizeof rr->where.file, "blobs/sha256-%.64s",
             digest);
    kvb__strlcpy(rr->where.path, model_blob, sizeof rr->where.path);
    rr->where.file_count = 1;
    if (info)
        kvb__struct_out(&local, sizeof local, info);
    return KVB_OK;
}
