/*
 * readers/files.c -- the readers' front door: what a path is (directory,
 * config, safetensors, index, GGUF), read with the format readers below it
 * (the state they share is in reader.c).
 *
 * The format is sniffed from the content, not trusted from the name: a
 * GGUF starts with "GGUF", a safetensors file with an 8-byte length then
 * '{', a JSON file with '{'.  Only headers are read; the tensor data of a
 * 100 GB checkpoint is never touched.
 */
#define _POSIX_C_SOURCE 200809L

#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATH_CAP 4096 /* longest path the readers build */

/* ---- files ---- */

static kvb_status io_fail(kvb__reader *r, const char *path, int error,
                          const char *what)
{
    kvb__reader_source(r, path);
    const char *why = error == ENOENT    ? "does not exist"
                      : error == EACCES  ? "is not readable (permission)"
                      : error == EISDIR  ? "is a directory"
                      : error == ENOTDIR ? "has a non-directory in its path"
                                         : "cannot be read";
    return kvb__read_fail(r, KVB_EIO, "path", -1, -1, -1,
                          "%s (%s) %s (errno %d)", what, path, why, error);
}

static bool path_join(char *out, const char *dir, const char *name)
{
    int n = snprintf(out, PATH_CAP, "%s/%s", dir, name);
    return n > 0 && n < PATH_CAP;
}

static kvb_status join_or_fail(kvb__reader *r, char *out, const char *dir,
                               const char *name)
{
    if (path_join(out, dir, name))
        return KVB_OK;
    return kvb__read_fail(r, KVB_ELIMIT, "path", -1, -1, -1,
                          "path (%s/%s) is longer than %d bytes", dir, name,
                          PATH_CAP - 1);
}

static void dir_of(char *out, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        memcpy(out, ".", 2);
        return;
    }
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    while (n > 1 && path[n - 1] == '/') /* "dir//config.json" */
        n--;
    if (n >= PATH_CAP)
        n = PATH_CAP - 1;
    memcpy(out, path, n);
    out[n] = '\0';
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

typedef struct file {
    FILE *f;
    uint64_t size;
} file;

/* What a path is that is neither a regular file nor a directory. */
static const char *special_kind(mode_t mode)
{
    return S_ISFIFO(mode)   ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a regular file";
}

static kvb_status special_fail(kvb__reader *r, const char *path, mode_t mode)
{
    kvb__reader_source(r, path);
    return kvb__read_fail(r, KVB_EIO, "path", -1, -1, -1,
                          "file (%s) is %s; allowed: a regular file or a "
                          "directory",
                          path, special_kind(mode));
}

/* Open a file for reading without waiting: open(2) on a FIFO with no
 * writer blocks forever, so the file is opened non-blocking, its type
 * checked, and only a regular file is kept (then in blocking mode). */
static kvb_status open_regular(kvb__reader *r, const char *path, int *fd,
                               uint64_t *size)
{
    *fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (*fd < 0)
        return io_fail(r, path, errno, "file");
    struct stat sb;
    kvb_status st = KVB_OK;
    if (fstat(*fd, &sb) != 0)
        st = io_fail(r, path, errno, "file");
    else if (S_ISDIR(sb.st_mode))
        st = io_fail(r, path, EISDIR, "file");
    else if (!S_ISREG(sb.st_mode))
        st = special_fail(r, path, sb.st_mode);
    else if (fcntl(*fd, F_SETFL, O_RDONLY) != 0)
        st = io_fail(r, path, errno, "file");
    if (st) {
        close(*fd);
        *fd = -1;
        return st;
    }
    *size = (uint64_t)sb.st_size;
    return KVB_OK;
}

static kvb_status file_open(kvb__reader *r, const char *path, file *out)
{
    int fd = -1;
    out->f = NULL;
    out->size = 0;
    kvb_status st = open_regular(r, path, &fd, &out->size);
    if (st)
        return st;
    out->f = fdopen(fd, "rb");
    if (!out->f) {
        int e = errno;
        close(fd);
        return io_fail(r, path, e, "file");
    }
    return KVB_OK;
}

/* The files read whole or by a known prefix (JSON files, safetensors
 * headers) use open(2) and read(2): stdio would add an fstat, a seek, a
 * copy and two allocations per file, which for 30 shard headers cost as
 * much as parsing them.  Same checks and errors as file_open. */
static kvb_status fd_open(kvb__reader *r, const char *path, int *fd,
                          uint64_t *size)
{
    return open_regular(r, path, fd, size);
}

/* Bytes [at, at + n) of an open file into p: the bytes read (short only
 * at the end of the file or on an error). */
static size_t fd_read(int fd, unsigned char *p, size_t n, uint64_t at)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(fd, p + got, n - got, (off_t)(at + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    return got;
}

/* Read bytes [0, n) of an open file into a new buffer (n checked by the
 * caller against a limit); one extra NUL byte ends it for text. */
static kvb_status fd_prefix(kvb__reader *r, int fd, uint64_t n, char **out)
{
    char *buf = malloc((size_t)n + 1);
    if (!buf)
        return kvb__read_fail(r, KVB_ENOMEM, "path", -1, -1, -1,
                              "cannot allocate %llu bytes for the header",
                              (unsigned long long)n);
    if (fd_read(fd, (unsigned char *)buf, (size_t)n, 0) != (size_t)n) {
        free(buf);
        return kvb__read_fail(r, KVB_EIO, "path", -1, -1, -1,
                              "cannot read %llu bytes of the file",
                              (unsigned long long)n);
    }
    buf[n] = '\0';
    *out = buf;
    return KVB_OK;
}

/* A whole JSON file, at most KVB_READ_MAX_JSON_BYTES. */
static kvb_status read_json_file(kvb__reader *r, const char *path, char **text,
                                 size_t *len)
{
    int fd = -1;
    uint64_t size = 0;
    kvb_status st = fd_open(r, path, &fd, &size);
    if (st)
        return st;
    kvb__reader_source(r, path);
    if (size > KVB_READ_MAX_JSON_BYTES)
        st = kvb__read_fail(r, KVB_ELIMIT, "path", -1, -1,
                            (int64_t)KVB_READ_MAX_JSON_BYTES,
                            "JSON file (%llu bytes) exceeds the %u-byte limit",
                            (unsigned long long)size, KVB_READ_MAX_JSON_BYTES);
    if (!st)
        st = fd_prefix(r, fd, size, text);
    close(fd);
    if (!st)
        *len = (size_t)size;
    return st;
}

/* ---- config.json ---- */

static void name_from_path(kvb__reader *r, const char *path)
{
    char dir[PATH_CAP];
    const char *base = base_of(path);
    if (strcmp(base, "config.json") == 0) {
        dir_of(dir, path);
        base = base_of(dir);
    }
    size_t n = strlen(base);
    if (ends_with(base, ".json") || ends_with(base, ".gguf"))
        n -= 5;
    if (n >= sizeof r->model.name)
        n = sizeof r->model.name - 1;
    memcpy(r->model.name, base, n);
    r->model.name[n] = '\0';
}

/* NVIDIA ModelOpt checkpoints (nvidia/...-FP8, -FP4) declare their format
 * in hf_quant_config.json beside config.json, not in config.json. */
static kvb_status modelopt_beside(kvb__reader *r, const char *config)
{
    char dir[PATH_CAP], path[PATH_CAP];
    dir_of(dir, config);
    kvb_status st = join_or_fail(r, path, dir, "hf_quant_config.json");
    if (st || !is_file(path))
        return st;
    char *text = NULL;
    size_t len = 0;
    st = read_json_file(r, path, &text, &len);
    if (!st)
        kvb__modelopt_read(r, text, len);
    free(text);
    return st;
}

static kvb_status read_config_file(kvb__reader *r, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    kvb_status st = read_json_file(r, path, &text, &len);
    if (st)
        return st;
    name_from_path(r, path);
    st = kvb__config_read(r, text, len);
    free(text);
    if (!st)
        st = modelopt_beside(r, path);
    return st;
}

/* ---- safetensors ---- */

/* The 8-byte header length of a file of `size` bytes, checked. */
static kvb_status st_length(kvb__reader *r, int fd, uint64_t size, uint64_t *n)
{
    unsigned char head[8];
    if (size < 8 || fd_read(fd, head, 8, 0) != 8)
        return kvb__read_fail(r, KVB_EPARSE, "safetensors.header_size", -1, -1,
                              (int64_t)size,
                              "file (%llu bytes) ends before the 8-byte header "
                              "length",
                              (unsigned long long)size);
    *n = kvb__le64(head);
    if (*n > KVB_READ_MAX_ST_HEADER_BYTES)
        return kvb__read_fail(
            r, KVB_ELIMIT, "safetensors.header_size", -1, -1, 0,
            "header length (%llu) exceeds the %u-byte "
            "limit",
            (unsigned long long)*n, KVB_READ_MAX_ST_HEADER_BYTES);
    if (*n > size - 8)
        return kvb__read_fail(r, KVB_EPARSE, "safetensors.header_size", -1, -1,
                              (int64_t)size,
                              "header length (%llu) runs past the end of "
                              "the file (%llu bytes)",
                              (unsigned long long)*n, (unsigned long long)size);
    return KVB_OK;
}

static kvb_status st_file(kvb__reader *r, const char *path, uint64_t *bytes,
                          uint64_t *tensors)
{
    int fd = -1;
    uint64_t size = 0, n = 0;
    kvb_status st = fd_open(r, path, &fd, &size);
    if (st)
        return st;
    kvb__reader_source(r, path);
    char *buf = NULL;
    st = st_length(r, fd, size, &n);
    if (!st)
        st = fd_prefix(r, fd, 8 + n, &buf);
    close(fd);
    if (!st)
        st = kvb__st_read(r, buf, (size_t)(8 + n), bytes, tensors);
    free(buf);
    if (!st)
        st = kvb__read_add(r, &r->info.header_bytes, 8 + n, "header_bytes");
    return st;
}

typedef struct shard_ctx {
    kvb__reader *r;
    const char *dir;
    uint64_t bytes, tensors;
    uint32_t read, missing;
} shard_ctx;

static kvb_status one_shard(void *vctx, const char *name)
{
    shard_ctx *c = vctx;
    char path[PATH_CAP];
    kvb_status st = join_or_fail(c->r, path, c->dir, name);
    if (st)
        return st;
    if (!is_file(path)) {
        c->missing++;
        return KVB_OK;
    }
    uint64_t b = 0, t = 0;
    st = st_file(c->r, path, &b, &t);
    if (!st)
        st = kvb__read_add(c->r, &c->bytes, b, "weights_bytes");
    if (!st)
        st = kvb__read_add(c->r, &c->tensors, t, "tensor_count");
    c->read++;
    return st;
}

static void set_weights(kvb__reader *r, int32_t format, uint64_t bytes,
                        uint64_t tensors, uint32_t shards)
{
    r->info.weights_format = format;
    r->info.weights_bytes = bytes;
    r->info.tensor_count = tensors;
    r->info.shard_count = shards;
    if (bytes)
        kvb__read_mark(r, KVB_READ_FIELD_WEIGHTS_BYTES, -1, -1, -1);
}

/* Shards that are not on disk: the index's total_size still says the
 * bytes (people often fetch config.json and the index alone). */
static void index_fallback(kvb__reader *r, const shard_ctx *c, uint64_t total,
                           uint64_t entries)
{
    if (total) {
        kvb__read_warn(r,
                       "%u of %u shards are not present; weights from "
                       "the index's metadata.total_size",
                       c->missing, c->missing + c->read);
        set_weights(r, KVB_FORMAT_SAFETENSORS_INDEX, total, entries, c->read);
    } else {
        kvb__read_warn(r,
                       "%u shards are not present and the index has no "
                       "total_size; weights are estimated",
                       c->missing);
    }
}

static kvb_status read_index_file(kvb__reader *r, const char *path)
{
    char *text = NULL, dir[PATH_CAP];
    size_t len = 0;
    kvb_status st = read_json_file(r, path, &text, &len);
    if (st)
        return st;
    dir_of(dir, path);
    shard_ctx c = {r, dir, 0, 0, 0, 0};
    uint64_t total = 0, entries = 0;
    st = kvb__st_index_read(r, text, len, one_shard, &c, &total, &entries);
    free(text);
    if (st)
        return st;
    st = kvb__read_add(r, &r->info.header_bytes, len, "header_bytes");
    if (st)
        return st;
    if (c.missing) {
        index_fallback(r, &c, total, entries);
        return KVB_OK;
    }
    if (total && total != c.bytes)
        kvb__read_warn(r,
                       "the index's total_size (%llu) differs from the "
                       "shards' tensor bytes (%llu); using the shards",
                       (unsigned long long)total, (unsigned long long)c.bytes);
    if (entries != c.tensors)
        kvb__read_warn(r, "the index lists %llu tensors, the shards %llu",
                       (unsigned long long)entries,
                       (unsigned long long)c.tensors);
    set_weights(r, KVB_FORMAT_SAFETENSORS_INDEX, c.bytes, c.tensors, c.read);
    return KVB_OK;
}

/* No index and no model.safetensors: every *.safetensors in the
 * directory is one shard (consolidated.safetensors, Mistral's duplicate
 * copy of the same weights, only when it is the only one). */
static kvb_status scan_safetensors(kvb__reader *r, const char *dir, bool *found)
{
    DIR *d = opendir(dir);
    if (!d)
        return io_fail(r, dir, errno, "directory");
    shard_ctx c = {r, dir, 0, 0, 0, 0};
    kvb_status st = KVB_OK;
    bool consolidated = false;
    struct dirent *e;
    while (!st && (e = readdir(d)) != NULL) {
        if (!ends_with(e->d_name, ".safetensors") || e->d_name[0] == '.')
            continue;
        if (strcmp(e->d_name, "consolidated.safetensors") == 0) {
            consolidated = true;
            continue;
        }
        if (c.read >= KVB_READ_MAX_SHARDS)
            st = kvb__read_fail(r, KVB_ELIMIT, "path", -1, -1, -1,
                                "directory (%s) holds more than %u "
                                "safetensors files",
                                dir, KVB_READ_MAX_SHARDS);
        else
            st = one_shard(&c, e->d_name);
    }
    closedir(d);
    if (!st && c.read == 0 && consolidated)
        st = one_shard(&c, "consolidated.safetensors");
    if (!st && c.read)
        set_weights(r, KVB_FORMAT_SAFETENSORS, c.bytes, c.tensors, c.read);
    *found = c.read != 0;
    return st;
}

static kvb_status read_weights_beside(kvb__reader *r, const char *dir)
{
    char path[PATH_CAP];
    kvb_status st = join_or_fail(r, path, dir, "model.safetensors.index.json");
    if (!st && is_file(path))
        return read_index_file(r, path);
    if (!st)
        st = join_or_fail(r, path, dir, "model.safetensors");
    if (!st && is_file(path)) {
        uint64_t b = 0, t = 0;
        st = st_file(r, path, &b, &t);
        if (!st)
            set_weights(r, KVB_FORMAT_SAFETENSORS, b, t, 1);
        return st;
    }
    bool found = false;
    if (!st)
        st = scan_safetensors(r, dir, &found);
    if (!st && !found)
        kvb__read_warn(r, "no safetensors weights next to the config; "
                          "weights are estimated from the architecture");
    return st;
}

/* ---- GGUF ---- */

static kvb_status gguf_file(kvb__reader *r, const char *path)
{
    file fl = {NULL, 0};
    kvb_status st = file_open(r, path, &fl);
    if (st)
        return st;
    kvb__reader_source(r, path);
    /* Most headers fit in 16 MiB; the parser reads what it needs of them
     * and says when it needs more. */
    uint64_t want = kvb__min(fl.size, (uint64_t)16 << 20), need = 0;
    kvb__reader saved = *r;
    for (;;) {
        st = kvb__gguf_read_file(r, fl.f, fl.size, want, &need);
        if (!st || need <= want)
            break;
        if (need > KVB_READ_MAX_GGUF_HEADER_BYTES) {
            st = kvb__read_fail(r, KVB_ELIMIT, "gguf", -1, -1, (int64_t)want,
                                "header (over %llu bytes) exceeds the %u-byte "
                                "limit",
                                (unsigned long long)need,
                                KVB_READ_MAX_GGUF_HEADER_BYTES);
            break;
        }
        *r = saved;
        kvb__clear(r->err);
        want = kvb__min(fl.size, kvb__max(need, 2 * want));
    }
    fclose(fl.f);
    if (!st && !r->model.name[0])
        name_from_path(r, path);
    return st;
}

/* A directory without config.json: its one .gguf file. */
static kvb_status find_gguf(kvb__reader *r, const char *dir, char *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return io_fail(r, dir, errno, "directory");
    unsigned found = 0;
    struct dirent *e;
    kvb_status st = KVB_OK;
    while ((e = readdir(d)) != NULL) {
        if (!ends_with(e->d_name, ".gguf") || e->d_name[0] == '.')
            continue;
        if (found++ == 0)
            st = join_or_fail(r, out, dir, e->d_name);
    }
    closedir(d);
    if (st)
        return st;
    kvb__reader_source(r, dir);
    if (found == 0)
        return kvb__read_fail(r, KVB_EIO, "path", -1, -1, -1,
                              "directory (%s) has no config.json and no "
                              ".gguf file",
                              dir);
    if (found > 1)
        return kvb__read_fail(r, KVB_EINVAL, "path", -1, -1, -1,
                              "directory (%s) holds %u .gguf files; allowed: "
                              "pass one of them",
                              dir, found);
    return KVB_OK;
}

static kvb_status read_directory(kvb__reader *r, const char *dir)
{
    char path[PATH_CAP];
    kvb_status st = join_or_fail(r, path, dir, "config.json");
    r->info.format = KVB_FORMAT_DIRECTORY;
    if (!st && is_file(path)) {
        st = read_config_file(r, path);
        if (!st)
            st = read_weights_beside(r, dir);
        return st;
    }
    if (!st)
        st = find_gguf(r, dir, path);
    if (!st)
        st = gguf_file(r, path);
    r->info.format = KVB_FORMAT_DIRECTORY;
    return st;
}

/* ---- one file, by its content ---- */

typedef enum kind { KIND_GGUF, KIND_SAFETENSORS, KIND_JSON, KIND_OTHER } kind;

static kvb_status sniff(kvb__reader *r, const char *path, kind *k)
{
    file fl = {NULL, 0};
    kvb_status st = file_open(r, path, &fl);
    if (st)
        return st;
    unsigned char head[16] = {0};
    size_t got = fread(head, 1, sizeof head, fl.f);
    fclose(fl.f);
    size_t i = 0;
    while (i < got && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' ||
                       head[i] == '\t'))
        i++;
    if (got >= 4 && memcmp(head, "GGUF", 4) == 0)
        *k = KIND_GGUF;
    else if (got >= 9 && head[8] == '{')
        *k = KIND_SAFETENSORS;
    else if (i < got && head[i] == '{')
        *k = KIND_JSON;
    else
        *k = KIND_OTHER;
    return KVB_OK;
}

/* A safetensors file or an index names no architecture: the config.json
 * beside it does. */
static kvb_status config_beside(kvb__reader *r, const char *path)
{
    char dir[PATH_CAP], cfg[PATH_CAP];
    dir_of(dir, path);
    kvb_status st = join_or_fail(r, cfg, dir, "config.json");
    if (!st && !is_file(cfg)) {
        kvb__reader_source(r, path);
        return kvb__read_fail(r, KVB_EIO, "path", -1, -1, -1,
                              "no config.json next to %s: a safetensors "
                              "header lists tensors, not the architecture",
                              base_of(path));
    }
    if (!st)
        st = read_config_file(r, cfg);
    return st;
}

static kvb_status read_json_path(kvb__reader *r, const char *path)
{
    if (ends_with(path, ".index.json")) {
        r->info.format = KVB_FORMAT_SAFETENSORS_INDEX;
        kvb_status st = config_beside(r, path);
        return st ? st : read_index_file(r, path);
    }
    r->info.format = KVB_FORMAT_CONFIG_JSON;
    kvb_status st = read_config_file(r, path);
    if (!st && strcmp(base_of(path), "config.json") == 0) {
        char dir[PATH_CAP];
        dir_of(dir, path);
        st = read_weights_beside(r, dir);
    }
    return st;
}

static kvb_status read_file(kvb__reader *r, const char *path)
{
    kind k = KIND_OTHER;
    kvb_status st = sniff(r, path, &k);
    if (st)
        return st;
    switch (k) {
    case KIND_GGUF: r->info.format = KVB_FORMAT_GGUF; return gguf_file(r, path);
    case KIND_SAFETENSORS: {
        r->info.format = KVB_FORMAT_SAFETENSORS;
        uint64_t b = 0, t = 0;
        st = config_beside(r, path);
        if (!st)
            st = st_file(r, path, &b, &t);
        if (!st)
            set_weights(r, KVB_FORMAT_SAFETENSORS, b, t, 1);
        return st;
    }
    case KIND_JSON: return read_json_path(r, path);
    default:
        kvb__reader_source(r, path);
        return kvb__read_fail(r, KVB_EPARSE, "path", -1, -1, 0,
                              "file (%s) is not GGUF, safetensors or JSON",
                              base_of(path));
    }
}

kvb_status kvb_model_read(const char *path, kvb_model *model, kvb_quant *quant,
                          kvb_read_info *info, kvb_error *err)
{
    kvb__clear(err);
    kvb_status st = kvb__read_outputs_check(model, quant, info, err);
    if (st)
        return st;
    if (!path || !*path)
        return kvb__fail(err, KVB_EINVAL, "path",
                         "path is NULL or empty; allowed: a file or a "
                         "directory");
    kvb__reader r;
    kvb__reader_init(&r, path, err);
    kvb__reader_options(&r, info);
    struct stat sb;
    if (stat(path, &sb) != 0)
        return io_fail(&r, path, errno, "path");
    st = S_ISDIR(sb.st_mode) ? read_directory(&r, path) : read_file(&r, path);
    if (!st) {
        kvb__reader_source(&r, path);
        st = kvb__read_finish(&r, model, quant, info);
    }
    return st;
}

/* ---- buffers ---- */

kvb_status kvb_config_parse(const char *json, size_t len, kvb_model *model,
                            kvb_quant *quant, kvb_read_info *info,
                            kvb_error *err)
{
    kvb__clear(err);
    kvb_status st = kvb__read_outputs_check(model, quant, info, err);
    if (st)
        return st;
    if (!json && len)
        return kvb__fail(err, KVB_EINVAL, "json", "json is NULL");
    kvb__reader r;
    kvb__reader_init(&r, "", err);
    kvb__reader_options(&r, info);
    r.info.format = KVB_FORMAT_CONFIG_JSON;
    st = kvb__config_read(&r, json ? json : "", len);
    return st ? st : kvb__read_finish(&r, model, quant, info);
}

kvb_status kvb_safetensors_parse(const void *buf, size_t len,
                                 kvb_read_info *info, kvb_error *err)
{
    kvb__clear(err);
    kvb_status st =
        kvb__struct_check(info, sizeof(kvb_read_info), "read_info", err);
    if (st)
        return st;
    if (!buf && len)
        return kvb__fail(err, KVB_EINVAL, "buf", "buf is NULL");
    kvb__reader r;
    kvb__reader_init(&r, "", err);
    r.info.format = KVB_FORMAT_SAFETENSORS;
    uint64_t b = 0, t = 0;
    st = kvb__st_read(&r, buf ? buf : "", len, &b, &t);
    if (st)
        return st;
    set_weights(&r, KVB_FORMAT_SAFETENSORS, b, t, 1);
    r.info.header_bytes = len < 8 ? len : 8 + kvb__le64(buf);
    kvb__struct_out(&r.info, sizeof r.info, info);
    return KVB_OK;
}

kvb_status kvb_gguf_parse(const void *buf, size_t len, kvb_model *model,
                          kvb_quant *quant, kvb_read_info *info, kvb_error *err)
{
    kvb__clear(err);
    kvb_status st = kvb__read_outputs_check(model, quant, info, err);
    if (st)
        return st;
    if (!buf && len)
        return kvb__fail(err, KVB_EINVAL, "buf", "buf is NULL");
    kvb__reader r;
    kvb__reader_init(&r, "", err);
    r.info.format = KVB_FORMAT_GGUF;
    uint64_t need = 0;
    st = kvb__gguf_read(&r, buf ? buf : "", len, len, &need);
    return st ? st : kvb__read_finish(&r, model, quant, info);
}
