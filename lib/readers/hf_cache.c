/*
 * readers/hf_cache.c -- the local Hugging Face cache, as huggingface_hub
 * lays it out:
 *
 *   <cache>/models--ORG--REPO/refs/<revision>      the commit, one line
 *   <cache>/models--ORG--REPO/snapshots/<commit>/  the files (links into
 *                                                  blobs/)
 *   <cache>/models--ORG--REPO/blobs/<etag>         the contents
 *
 * A snapshot folder is an ordinary model folder, so files.c reads it.
 * Also here: what the cache and the Hub share about GGUF file names
 * (a quantization in a name, the splits of a split file) and the tensor
 * bytes of a split that is not the first.
 */
#define _POSIX_C_SOURCE 200809L

#include "readers/remote.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static bool is_file(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static bool join(char *out, const char *a, const char *b)
{
    int n = snprintf(out, KVB__PATH_CAP, "%s/%s", a, b);
    return n > 0 && n < KVB__PATH_CAP;
}

static bool is_commit(const char *s)
{
    size_t n = strlen(s);
    if (n != 40)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
            return false;
    return true;
}

/* ---- GGUF names ---- */

bool kvb__gguf_split(const char *name, unsigned *no, unsigned *count)
{
    /* ...-00001-of-00003.gguf */
    size_t n = strlen(name);
    if (n < 20 || strcmp(name + n - 5, ".gguf") != 0)
        return false;
    const char *p = name + n - 5 - 15;
    if (p[0] != '-' || strncmp(p + 6, "-of-", 4) != 0)
        return false;
    for (int i = 1; i <= 5; i++)
        if (!isdigit((unsigned char)p[i]) || !isdigit((unsigned char)p[9 + i]))
            return false;
    *no = (unsigned)strtoul(p + 1, NULL, 10);
    *count = (unsigned)strtoul(p + 10, NULL, 10);
    return *no >= 1 && *count >= 1 && *no <= *count;
}

/* The quantization appears in the file name (any folder) as a word: after
 * '-', '.', '_' or '/', before '-', '.' or the end; case-insensitive.
 * Projectors (mmproj) are never the model. */
bool kvb__gguf_name_matches(const char *name, const char *quant)
{
    size_t n = strlen(name), q = strlen(quant);
    if (n < 5 || strcasecmp(name + n - 5, ".gguf") != 0 || q == 0)
        return false;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (strncasecmp(base, "mmproj", 6) == 0)
        return false;
    for (size_t i = 1; i + q <= n - 5; i++) {
        char before = name[i - 1], after = name[i + q];
        if (strchr("-._/", before) && strncasecmp(name + i, quant, q) == 0 &&
            strchr("-.", after))
            return true;
    }
    return false;
}

/* ---- the tensor bytes of a GGUF split ---- */

/* Splits after the first hold tensor infos and split.* keys, no
 * architecture: parse with a scratch reader and keep the sums when the
 * tensor infos were read whole (the model mapping after them fails). */
kvb_status kvb__gguf_split_bytes(const void *buf, size_t len, uint64_t file_len,
                                 uint64_t *bytes, uint64_t *tensors,
                                 uint64_t *need)
{
    kvb__reader *r = malloc(sizeof *r);
    if (!r)
        return KVB_ENOMEM;
    kvb_error scratch = KVB_ERROR_INIT;
    kvb__reader_init(r, "", &scratch);
    *need = 0;
    kvb_status st = kvb__gguf_read(r, buf, len, file_len, need);
    if (st && r->info.weights_format == KVB_FORMAT_GGUF)
        st = KVB_OK;
    if (!st) {
        *bytes = r->info.weights_bytes;
        *tensors = r->info.tensor_count;
    }
    free(r);
    return st;
}

static kvb_status split_file_bytes(const char *path, uint64_t *bytes,
                                   uint64_t *tensors, kvb_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return kvb__fail(err, KVB_EIO, "path",
                         "split (%s) cannot be read "
                         "(errno %d)",
                         path, errno);
    struct stat sb;
    uint64_t size = fstat(fd, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    uint64_t want = kvb__min(size, (uint64_t)1 << 20), need = 0;
    kvb_status st = KVB_OK;
    for (;;) {
        unsigned char *buf = malloc((size_t)want + 1);
        if (!buf) {
            st = KVB_ENOMEM;
            break;
        }
        ssize_t got = pread(fd, buf, (size_t)want, 0);
        st = got < 0 ? KVB_EIO
                     : kvb__gguf_split_bytes(buf, (size_t)got, size, bytes,
                                             tensors, &need);
        free(buf);
        if (!st || need <= want || need > KVB_READ_MAX_GGUF_HEADER_BYTES)
            break;
        want = kvb__min(size, kvb__max(need, 2 * want));
    }
    close(fd);
    if (st)
        return kvb__fail(err, st, "path",
                         "split (%s) has no readable GGUF tensor infos", path);
    return KVB_OK;
}

/* ---- lookup ---- */

static bool repo_dir(const kvb__ref_read *rr, char *out)
{
    char name[300];
    snprintf(name, sizeof name, "models--%s", rr->ref->repo);
    for (char *p = name; *p; p++)
        if (*p == '/') {
            memmove(p + 2, p + 1, strlen(p + 1) + 1);
            p[0] = p[1] = '-';
            p++;
        }
    return join(out, rr->env->hf_cache, name);
}

/* The commit a revision points at: a commit itself, or refs/<rev>. */
static bool resolve_commit(const char *repo, const char *rev, char *commit,
                           size_t cap)
{
    if (is_commit(rev)) {
        kvb__strlcpy(commit, rev, cap);
        return true;
    }
    char path[KVB__PATH_CAP], refs[KVB__PATH_CAP];
    if (!join(refs, repo, "refs") || !join(path, refs, rev))
        return false;
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[128] = "";
    bool ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    line[strcspn(line, "\r\n \t")] = '\0';
    if (!ok || !is_commit(line))
        return false;
    kvb__strlcpy(commit, line, cap);
    return true;
}

/* The GGUF of a quantization in a folder (and its subfolders, one level,
 * as GGUF repositories keep splits): the first split, or the one file;
 * rel is its path inside dir.  Several distinct files: the first by name. */
static bool find_quant(const char *dir, const char *quant, char *rel,
                       size_t cap, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[KVB__PATH_CAP];
        if (!join(path, dir, e->d_name))
            continue;
        unsigned no = 0, count = 0;
        if (depth == 0 && is_dir(path)) {
            char sub[KVB__PATH_CAP];
            if (find_quant(path, quant, sub, sizeof sub, 1)) {
                char cand[KVB__PATH_CAP];
                if (!join(cand, e->d_name, sub))
                    continue;
                if (!found || strcmp(cand, rel) < 0)
                    kvb__strlcpy(rel, cand, cap);
                found = true;
            }
        } else if (kvb__gguf_name_matches(e->d_name, quant) &&
                   (!kvb__gguf_split(e->d_name, &no, &count) || no == 1)) {
            if (!found || strcmp(e->d_name, rel) < 0)
                kvb__strlcpy(rel, e->d_name, cap);
            found = true;
        }
    }
    closedir(d);
    return found;
}

kvb_status kvb__hf_cache_find(kvb__ref_read *rr, char *path, bool *found)
{
    char repo[KVB__PATH_CAP], snaps[KVB__PATH_CAP], commit[64];
    *found = false;
    if (!repo_dir(rr, repo) || !is_dir(repo))
        return KVB_OK;
    if (!resolve_commit(repo, rr->ref->revision, commit, sizeof commit))
        return KVB_OK;
    if (!join(snaps, repo, "snapshots") || !join(path, snaps, commit) ||
        !is_dir(path))
        return KVB_OK;
    /* A snapshot holds only the files someone fetched: it serves when it
     * has the one file this reference needs. */
    char need[KVB__PATH_CAP], rel[KVB__PATH_CAP];
    if (rr->ref->file[0])
        *found = join(need, path, rr->ref->file) && is_file(need);
    else if (rr->ref->quant[0])
        *found = find_quant(path, rr->ref->quant, rel, sizeof rel, 0);
    else
        *found = join(need, path, "config.json") && is_file(need);
    if (*found)
        kvb__strlcpy(rr->where.commit, commit, sizeof rr->where.commit);
    return KVB_OK;
}

/* The other splits of a split GGUF at `path` (split 1 of count). */
static kvb_status count_splits(kvb__ref_read *rr, const char *path,
                               unsigned count, kvb_read_info *info,
                               kvb_error *err)
{
    char other[KVB__PATH_CAP];
    size_t n = strlen(path);
    uint64_t bytes = info->weights_bytes, tensors = info->tensor_count;
    for (unsigned i = 2; i <= count; i++) {
        kvb__strlcpy(other, path, sizeof other);
        char num[16];
        snprintf(num, sizeof num, "%05u", i);
        memcpy(other + n - 5 - 14, num, 5);
        uint64_t b = 0, t = 0;
        kvb_status st = split_file_bytes(other, &b, &t, err);
        if (st)
            return st;
        if (!kvb__add_ok(bytes, b, &bytes) ||
            !kvb__add_ok(tensors, t, &tensors))
            return kvb__fail(err, KVB_EOVERFLOW, "weights_bytes",
                             "weights_bytes overflows 64 bits");
    }
    info->weights_bytes = bytes;
    info->tensor_count = tensors;
    rr->where.split_count = count;
    rr->where.file_count = count;
    return KVB_OK;
}

/* After a split's first file was read: drop the warning that only the
 * split was counted, since every split was. */
void kvb__drop_split_warning(char *warning, uint32_t *count)
{
    char *w = strstr(warning, "this file is one of");
    if (!w)
        return;
    const char *end = strstr(w, "split's only");
    if (!end)
        return;
    end += strlen("split's only");
    if (*end == ';')
        end += 2;
    else if (w >= warning + 2 && w[-2] == ';')
        w -= 2;
    memmove(w, end, strlen(end) + 1);
    if (*count)
        (*count)--;
}

/* Read one GGUF file (with its splits) for a reference. */
kvb_status kvb__read_gguf_path(kvb__ref_read *rr, const char *path,
                               const char *rel, kvb_model *model,
                               kvb_quant *quant, kvb_read_info *info,
                               kvb_error *err)
{
    kvb_read_info local;
    KVB__CANNOT_FAIL(kvb_read_info_init(&local, sizeof local));
    kvb_status st = kvb_model_read(path, model, quant, &local, err);
    if (st)
        return st;
    rr->where.file_count = 1;
    kvb__strlcpy(rr->where.file, rel, sizeof rr->where.file);
    unsigned no = 0, count = 0;
    if (kvb__gguf_split(path, &no, &count) && count > 1) {
        if (no != 1)
            return kvb__fail(err, KVB_EINVAL, "ref",
                             "%s is split %u of %u; allowed: the first "
                             "split, which holds the metadata",
                             rel, no, count);
        st = count_splits(rr, path, count, &local, err);
        if (st)
            return st;
        kvb__drop_split_warning(local.warning, &local.warning_count);
    }
    if (info)
        kvb__struct_out(&local, sizeof local, info);
    return KVB_OK;
}

static void name_model(const kvb__ref *ref, kvb_model *model)
{
    const char *slash = strchr(ref->repo, '/');
    const char *name = slash ? slash + 1 : ref->repo;
    if (ref->quant[0])
        snprintf(model->name, sizeof model->name, "%.40s:%.20s", name,
                 ref->quant);
    else
        snprintf(model->name, sizeof model->name, "%.63s", name);
}

kvb_status kvb__hf_cache_read(kvb__ref_read *rr, const char *snapshot,
                              kvb_model *model, kvb_quant *quant,
                              kvb_read_info *info, kvb_error *err)
{
    const kvb__ref *ref = rr->ref;
    char path[KVB__PATH_CAP], rel[KVB__PATH_CAP];
    kvb_status st;
    rr->where.source = KVB_REF_SOURCE_HF_CACHE;
    if (ref->file[0] || ref->quant[0]) {
        if (ref->file[0])
            kvb__strlcpy(rel, ref->file, sizeof rel);
        else if (!find_quant(snapshot, ref->quant, rel, sizeof rel, 0))
            return KVB_ENOTFOUND; /* kvb__hf_cache_find checked it */
        if (!join(path, snapshot, rel))
            return kvb__fail(err, KVB_ELIMIT, "path", "path too long");
        kvb__strlcpy(rr->where.path, path, sizeof rr->where.path);
        st = kvb__read_gguf_path(rr, path, rel, model, quant, info, err);
        if (!st && ref->quant[0])
            name_model(ref, model);
        return st;
    }
    kvb__strlcpy(rr->where.path, snapshot, sizeof rr->where.path);
    kvb_read_info local;
    KVB__CANNOT_FAIL(kvb_read_info_init(&local, sizeof local));
    st = kvb_model_read(snapshot, model, quant, &local, err);
    if (st)
        return st;
    name_model(ref, model);
    const char *file =
        local.weights_format == KVB_FORMAT_SAFETENSORS_INDEX
            ? "model.safetensors.index.json"
        : local.weights_format == KVB_FORMAT_SAFETENSORS
            ? (local.shard_count == 1 ? "model.safetensors" : "*.safetensors")
            : "config.json";
    kvb__strlcpy(rr->where.file, file, sizeof rr->where.file);
    rr->where.file_count = local.shard_count + 1;
    if (info)
        kvb__struct_out(&local, sizeof local, info);
    return KVB_OK;
}

/* ---- storing (KVB_REF_STORE_CACHE) ---- */

static int mkdirs(const char *path)
{
    char tmp[KVB__PATH_CAP];
    kvb__strlcpy(tmp, path, sizeof tmp);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static int write_file(const char *path, const void *data, size_t len)
{
    char tmp[KVB__PATH_CAP];
    int n = snprintf(tmp, sizeof tmp, "%s.incomplete", path);
    if (n < 0 || n >= (int)sizeof tmp)
        return -1;
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    bool ok = fwrite(data, 1, len, f) == len;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

kvb_status kvb__hf_cache_store(const kvb__ref_read *rr, const char *commit,
                               const char *file, const char *etag,
                               const void *data, size_t len)
{
    char repo[KVB__PATH_CAP], dir[KVB__PATH_CAP], path[KVB__PATH_CAP];
    char link[KVB__PATH_CAP], target[KVB__PATH_CAP];
    if (!rr->env->hf_cache[0] || !is_commit(commit) || !etag[0] ||
        strchr(etag, '/') || strchr(file, '/') || !repo_dir(rr, repo))
        return KVB_EINVAL;
    /* blobs/<etag>, then snapshots/<commit>/<file> -> ../../blobs/<etag>,
     * then refs/<revision> (huggingface_hub's relative links) */
    if (!join(dir, repo, "blobs") || mkdirs(dir) != 0 ||
        !join(path, dir, etag) || write_file(path, data, len) != 0)
        return KVB_EIO;
    snprintf(target, sizeof target, "../../blobs/%s", etag);
    if (!join(dir, repo, "snapshots") || !join(path, dir, commit) ||
        mkdirs(path) != 0 || !join(link, path, file))
        return KVB_EIO;
    remove(link);
    if (symlink(target, link) != 0)
        return KVB_EIO;
    if (!is_commit(rr->ref->revision)) {
        if (!join(dir, repo, "refs") || !join(path, dir, rr->ref->revision))
            return KVB_EIO;
        char parent[KVB__PATH_CAP];
        kvb__strlcpy(parent, path, sizeof parent);
        *strrchr(parent, '/') = '\0';
        if (mkdirs(parent) != 0 || write_file(path, commit, strlen(commit)))
            return KVB_EIO;
    }
    return KVB_OK;
}
