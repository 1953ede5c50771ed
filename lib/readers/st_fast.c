/*
 * readers/st_fast.c -- the fast paths of the safetensors readers: scanners
 * for the fixed grammar of a safetensors header and of
 * model.safetensors.index.json, which compute what the jansson path
 * computes without building a JSON tree (jansson spends a hash table per
 * object, a malloc per value and a strtol per number; docs/performance.md
 * has the measurement).
 *
 * The rule that keeps them honest: a scanner only accepts.  It never
 * reports an error; at the first thing it does not expect (an escape, a
 * byte outside printable ASCII, an unknown or repeated key, a number that
 * is not a plain integer in 0..INT64_MAX, a check the header fails, a
 * full table) it returns false, and the caller runs the jansson path on
 * the same bytes, which gives the result or the error with its status,
 * message, field, line, column and offset as before.  Whatever a scanner
 * accepts, the jansson path accepts with the same result:
 * tests/unit/test_readers/st_fast.c runs both on the same headers and
 * fuzz_safetensors / fuzz_st_index check it on every input they try.
 *
 * Memory: one allocation per header (tables sized from a count of
 * structural bytes), none per tensor.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- the cursor ---- */

typedef struct scan {
    const unsigned char *p, *end;
    const unsigned char *base; /* json[0]: strings are kept as offsets */
} scan;

/* A string of the text: bytes [at, at + len) of base, no escapes, so its
 * bytes are the decoded value jansson would hold. */
typedef struct sref {
    uint32_t at, len;
} sref;

static void skip_ws(scan *c)
{
    while (c->p < c->end &&
           (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t'))
        c->p++;
}

/* Whitespace (jansson's four bytes), then `ch`. */
static bool eat(scan *c, unsigned char ch)
{
    skip_ws(c);
    if (c->p >= c->end || *c->p != ch)
        return false;
    c->p++;
    return true;
}

/* After a member or an element: ',' (*more) or the closing byte. */
static bool next(scan *c, unsigned char close, bool *more)
{
    skip_ws(c);
    if (c->p >= c->end || (*c->p != ',' && *c->p != close))
        return false;
    *more = *c->p++ == ',';
    return true;
}

/* After '{' or '[': true, and past it, when the container closes at once. */
static bool closes(scan *c, unsigned char close)
{
    skip_ws(c);
    if (c->p >= c->end || *c->p != close)
        return false;
    c->p++;
    return true;
}

/* Printable ASCII but the quote and the backslash: bytes jansson stores
 * as they are.  Control bytes are JSON errors, and escapes and UTF-8 are
 * left to jansson, which checks and decodes them. */
static bool plain(unsigned char ch)
{
    return ch >= 0x20 && ch < 0x80 && ch != '"' && ch != '\\';
}

#define ONES  0x0101010101010101u
#define HIGHS 0x8080808080808080u

/* Words are read with kvb__le64, so byte k of the text is bits
 * 8k..8k+7 of a word whatever the host. */

/* The high bit of each byte of w that is not plain().  Borrows of the
 * subtractions only run upwards from a flagged byte, so the lowest flag
 * is exact, and that is the only one the caller reads. */
static uint64_t not_plain(uint64_t w)
{
    uint64_t q = w ^ (ONES * '"'), b = w ^ (ONES * '\\');
    return ((((w - ONES * 0x20) | (q - ONES) | (b - ONES)) & ~w) | w) & HIGHS;
}

/* Past the plain bytes at c->p: eight at a time, then one at a time (a
 * tensor name is some 40 bytes; the byte loop was half the scan). */
static void skip_plain(scan *c)
{
    while (c->end - c->p >= 8) {
        uint64_t m = not_plain(kvb__le64(c->p));
        if (m) {
            c->p += __builtin_ctzll(m) / 8;
            return;
        }
        c->p += 8;
    }
    while (c->p < c->end && plain(*c->p))
        c->p++;
}

static bool string(scan *c, sref *out)
{
    if (!eat(c, '"'))
        return false;
    const unsigned char *s = c->p;
    skip_plain(c);
    if (c->p >= c->end || *c->p != '"')
        return false;
    out->at = (uint32_t)(s - c->base);
    out->len = (uint32_t)(c->p - s);
    c->p++;
    return true;
}

/* An integer as jansson reads it into a json_int_t that is >= 0: digits
 * without sign or leading zero, at most INT64_MAX (a fraction or an
 * exponent stops here and fails at the caller's separator check). */
static bool integer(scan *c, uint64_t *v)
{
    skip_ws(c);
    const unsigned char *s = c->p;
    while (c->p < c->end && (unsigned)(*c->p - '0') < 10)
        c->p++;
    size_t n = (size_t)(c->p - s);
    if (n == 0 || n > 19 || (*s == '0' && n > 1))
        return false;
    uint64_t x = 0; /* 19 digits stay below 10^19 < 2^64: no wrap */
    for (size_t i = 0; i < n; i++)
        x = x * 10 + (unsigned)(s[i] - '0');
    *v = x;
    return x <= (uint64_t)INT64_MAX;
}

static bool is(const scan *c, sref s, const char *lit, size_t n)
{
    return s.len == n && memcmp(c->base + s.at, lit, n) == 0;
}

#define IS(c, s, lit) is((c), (s), lit, sizeof lit - 1)

/* The text's occurrences of `ch`: an upper bound on the entries a table
 * must hold, found before anything is allocated. */
static size_t count_byte(const char *s, size_t n, char ch)
{
    size_t k = 0;
    for (const char *p = s, *end = s + n;
         (p = memchr(p, ch, (size_t)(end - p))) != NULL; p++)
        k++;
    return k;
}

/* ---- a set of strings of the text (duplicate keys, distinct names) ---- */

/* Probes past this many slots give up on the fast path: a hostile text of
 * colliding names costs a bounded amount, then jansson (seeded) reads it. */
#define MAX_PROBES 64u

typedef struct sset {
    uint32_t *slot; /* 0: empty; else index + 1 into ref */
    uint32_t mask;  /* slots - 1 (a power of two, at least 2 x cap) */
    sref *ref;      /* the members in insertion order */
    uint32_t count, cap;
} sset;

/* Slots for `cap` members at a load of at most one half. */
static size_t sset_slots(size_t cap)
{
    size_t n = 16;
    while (n < 2 * cap)
        n *= 2;
    return n;
}

/* Word at a time, rotate and xor, one multiply at the end: names are
 * long ("model.layers.12.mlp.up_proj.weight") and a multiply per word was
 * a tenth of the scan.  A hostile text can make names collide; that costs
 * MAX_PROBES probes each at worst, then the jansson path. */
static uint32_t hash(const unsigned char *s, size_t n)
{
    uint64_t h = n, w = 0;
    if (n < 8) {
        for (size_t i = 0; i < n; i++)
            w = w << 8 | s[i];
        h ^= w << 8;
    } else {
        for (size_t i = 0; i + 8 <= n; i += 8)
            h = (h << 23 | h >> 41) ^ kvb__le64(s + i);
        h = (h << 23 | h >> 41) ^
            kvb__le64(s + n - 8); /* the tail, overlapped */
    }
    h = (h ^ h >> 32) * 0x9E3779B97F4A7C15u; /* every bit reaches the low */
    return (uint32_t)(h ^ h >> 29);
}

/* Add s; *fresh false when it was there already.  False when the set is
 * full or the probe runs too long (give up). */
static bool sset_add(sset *set, const scan *c, sref s, bool *fresh)
{
    const unsigned char *str = c->base + s.at;
    uint32_t i = hash(str, s.len) & set->mask;
    for (unsigned probe = 0; probe < MAX_PROBES; probe++) {
        uint32_t k = set->slot[i];
        if (k == 0) {
            if (set->count >= set->cap)
                return false;
            set->ref[set->count++] = s;
            set->slot[i] = set->count;
            *fresh = true;
            return true;
        }
        sref o = set->ref[k - 1];
        if (o.len == s.len && memcmp(c->base + o.at, str, s.len) == 0) {
            *fresh = false;
            return true;
        }
        i = (i + 1) & set->mask;
    }
    return false;
}

/* ---- one safetensors header ---- */

#define MAX_RANK 16u /* as readers/safetensors.c */

/* One tensor, in the order of the header. */
typedef struct tspan {
    uint64_t begin, end;
    const char *dtype; /* canonical name, for on_tensor */
} tspan;

/* What a tensor object said; seen: bit 1 dtype, 2 shape, 4 data_offsets. */
typedef struct tfields {
    unsigned seen;
    uint32_t bits;
    uint64_t elements, begin, end;
    const char *dtype;
} tfields;

static bool dtype_value(scan *c, tfields *t)
{
    sref s;
    if (!string(c, &s))
        return false;
    t->bits =
        kvb__st_dtype_find((const char *)c->base + s.at, s.len, &t->dtype);
    return t->bits != 0;
}

/* [d0, d1, ...]: at most MAX_RANK sizes, product without overflow. */
static bool shape_value(scan *c, tfields *t)
{
    unsigned rank = 0;
    t->elements = 1; /* [] is a scalar: one element */
    if (!eat(c, '['))
        return false;
    bool more = !closes(c, ']');
    while (more) {
        uint64_t d = 0;
        if (++rank > MAX_RANK || !integer(c, &d) ||
            !kvb__mul_ok(t->elements, d, &t->elements) || !next(c, ']', &more))
            return false;
    }
    return true;
}

static bool offsets_value(scan *c, tfields *t)
{
    bool more = false;
    return eat(c, '[') && integer(c, &t->begin) && next(c, ']', &more) &&
           more && integer(c, &t->end) && next(c, ']', &more) && !more;
}

/* One member of a tensor object; each key once. */
static bool tensor_member(scan *c, tfields *t)
{
    sref key;
    unsigned bit = 0;
    if (!string(c, &key) || !eat(c, ':'))
        return false;
    if (IS(c, key, "dtype"))
        bit = 1;
    else if (IS(c, key, "shape"))
        bit = 2;
    else if (IS(c, key, "data_offsets"))
        bit = 4;
    if (bit == 0 || (t->seen & bit))
        return false;
    t->seen |= bit;
    return bit == 1   ? dtype_value(c, t)
           : bit == 2 ? shape_value(c, t)
                      : offsets_value(c, t);
}

/* {"dtype", "shape", "data_offsets"} in any order, with the checks of
 * readers/safetensors.c's tensor(): a whole number of bytes, and a span of
 * exactly dtype x shape bytes. */
static bool tensor(scan *c, tspan *out)
{
    tfields t = {0, 0, 0, 0, 0, NULL};
    bool more = true;
    uint64_t nbits = 0;
    if (!eat(c, '{'))
        return false;
    while (more)
        if (!tensor_member(c, &t) || !next(c, '}', &more))
            return false;
    if (t.seen != 7 || !kvb__mul_ok(t.elements, t.bits, &nbits) ||
        nbits % 8 != 0 || t.end < t.begin || t.end - t.begin != nbits / 8)
        return false;
    out->begin = t.begin;
    out->end = t.end;
    out->dtype = t.dtype;
    return true;
}

/* {str: str, ...}.  A repeated key cannot change the result (every value
 * must be a string, so jansson's last one is one), so it is allowed. */
static bool string_map(scan *c)
{
    sref k, v;
    if (!eat(c, '{'))
        return false;
    bool more = !closes(c, '}');
    while (more)
        if (!string(c, &k) || !eat(c, ':') || !string(c, &v) ||
            !next(c, '}', &more))
            return false;
    return true;
}

typedef struct header {
    scan c;
    sset names; /* tensor names, in header order */
    tspan *span;
    bool metadata_seen;
} header;

/* One "key": value of the root object. */
static bool header_entry(header *h)
{
    sref key;
    bool fresh = false;
    if (!string(&h->c, &key) || !eat(&h->c, ':'))
        return false;
    if (IS(&h->c, key, "__metadata__")) {
        if (h->metadata_seen)
            return false;
        h->metadata_seen = true;
        return string_map(&h->c);
    }
    uint32_t i = h->names.count;
    return sset_add(&h->names, &h->c, key, &fresh) && fresh &&
           tensor(&h->c, &h->span[i]);
}

static bool header_scan(header *h)
{
    if (h->c.p == h->c.end || *h->c.p++ != '{') /* at json[0], as checked */
        return false;
    bool more = !closes(&h->c, '}');
    while (more)
        if (!header_entry(h) || !next(&h->c, '}', &more))
            return false;
    skip_ws(&h->c);
    return h->c.p == h->c.end; /* jansson's end-of-input check */
}

static int by_offset(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The spans tile [0, *end) in sorted order.  Writers put the header in
 * data order, so the spans usually chain as they come; a chain is already
 * sorted by (begin, end), so that check is the sorted one.  Otherwise
 * sort a copy (the header order stays for on_tensor). */
static bool tiled(const tspan *s, size_t n, uint64_t *end)
{
    *end = 0;
    size_t i = 0;
    for (; i < n && s[i].begin == *end; i++)
        *end = s[i].end;
    if (i == n)
        return true;
    uint64_t *pair = malloc(n * 2 * sizeof *pair);
    if (!pair)
        return false;
    for (i = 0; i < n; i++) {
        pair[2 * i] = s[i].begin;
        pair[2 * i + 1] = s[i].end;
    }
    qsort(pair, n, 2 * sizeof *pair, by_offset);
    *end = 0;
    for (i = 0; i < n && pair[2 * i] == *end; i++)
        *end = pair[2 * i + 1];
    free(pair);
    return i == n;
}

/* One block: the name set's slots and members, then the spans. */
static void *header_tables(header *h, size_t cap)
{
    size_t slots = sset_slots(cap);
    void *mem = calloc(1, slots * sizeof(uint32_t) + cap * sizeof(sref) +
                              cap * sizeof(tspan));
    if (!mem)
        return NULL;
    h->names.slot = mem;
    h->names.mask = (uint32_t)(slots - 1);
    h->names.ref = (sref *)(h->names.slot + slots);
    h->names.cap = (uint32_t)cap;
    h->span = (tspan *)(h->names.ref + cap);
    return mem;
}

bool kvb__st_fast(kvb__reader *r, const char *json, size_t len, uint64_t *bytes,
                  uint64_t *tensors)
{
    /* every tensor opens one '{'; past the limit jansson reports it */
    size_t cap = kvb__min(count_byte(json, len, '{'), KVB_READ_MAX_TENSORS);
    header h;
    memset(&h, 0, sizeof h);
    h.c.p = h.c.base = (const unsigned char *)json;
    h.c.end = h.c.p + len;
    void *mem = len <= UINT32_MAX ? header_tables(&h, cap) : NULL;
    uint64_t end = 0;
    bool ok = mem && header_scan(&h) && tiled(h.span, h.names.count, &end);
    for (uint32_t i = 0; ok && r->on_tensor && i < h.names.count; i++)
        r->on_tensor(r->on_tensor_ctx, json + h.names.ref[i].at,
                     h.names.ref[i].len, h.span[i].dtype,
                     h.span[i].end - h.span[i].begin);
    if (ok) {
        *bytes = end;
        *tensors = h.names.count;
    }
    free(mem);
    return ok;
}

/* ---- model.safetensors.index.json ---- */

typedef struct ixscan {
    scan c;
    sset keys;   /* weight_map names: their count is the entries */
    sset shards; /* distinct shard file names */
    sref last;   /* the previous value: runs of one shard skip the set */
    bool metadata_seen, map_seen, total_seen;
    uint64_t total;
} ixscan;

/* As readers/safetensors.c's plain_file_name: the name stays inside the
 * model directory (a '\\' cannot reach here: it would be an escape). */
static bool plain_file_name(const scan *c, sref s)
{
    const unsigned char *p = c->base + s.at;
    return s.len > 0 && s.len < 256 && p[0] != '.' && !memchr(p, '/', s.len);
}

/* A metadata value: a string, or an integer (total_size among them). */
static bool metadata_member(ixscan *x)
{
    sref k, v;
    uint64_t n = 0;
    if (!string(&x->c, &k) || !eat(&x->c, ':'))
        return false;
    skip_ws(&x->c);
    bool text = x->c.p < x->c.end && *x->c.p == '"';
    if (text ? !string(&x->c, &v) : !integer(&x->c, &n))
        return false;
    if (!IS(&x->c, k, "total_size"))
        return true;
    if (text || x->total_seen) /* a string: the jansson path's error */
        return false;
    x->total_seen = true;
    x->total = n;
    return true;
}

static bool index_metadata(ixscan *x)
{
    if (x->metadata_seen || !eat(&x->c, '{'))
        return false;
    x->metadata_seen = true;
    bool more = !closes(&x->c, '}');
    while (more)
        if (!metadata_member(x) || !next(&x->c, '}', &more))
            return false;
    return true;
}

static bool map_member(ixscan *x)
{
    sref k, v;
    bool fresh = false, shard = false;
    if (!string(&x->c, &k) || !eat(&x->c, ':') || !string(&x->c, &v) ||
        !plain_file_name(&x->c, v) || !sset_add(&x->keys, &x->c, k, &fresh) ||
        !fresh)
        return false;
    bool same = v.len == x->last.len &&
                memcmp(x->c.base + v.at, x->c.base + x->last.at, v.len) == 0;
    x->last = v;
    return same || sset_add(&x->shards, &x->c, v, &shard);
}

static bool index_map(ixscan *x)
{
    if (x->map_seen || !eat(&x->c, '{'))
        return false;
    x->map_seen = true;
    bool more = !closes(&x->c, '}');
    while (more)
        if (!map_member(x) || !next(&x->c, '}', &more))
            return false;
    return true;
}

/* {"metadata": {...}, "weight_map": {...}} in either order, nothing else. */
static bool index_scan(ixscan *x)
{
    bool more = true;
    if (!eat(&x->c, '{'))
        return false;
    while (more) {
        sref key;
        if (!string(&x->c, &key) || !eat(&x->c, ':'))
            return false;
        bool ok = IS(&x->c, key, "metadata")     ? index_metadata(x)
                  : IS(&x->c, key, "weight_map") ? index_map(x)
                                                 : false;
        if (!ok || !next(&x->c, '}', &more))
            return false;
    }
    skip_ws(&x->c);
    return x->map_seen && x->c.p == x->c.end;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The distinct shard names as the jansson path hands them out: copies
 * ending in NUL, sorted by strcmp, pointers and bytes in one block. */
static const char **shard_names(const ixscan *x)
{
    size_t n = x->shards.count, bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += x->shards.ref[i].len + 1u;
    const char **names = malloc(n * sizeof *names + bytes + 1);
    if (!names)
        return NULL;
    char *text = (char *)(names + n);
    for (size_t i = 0; i < n; i++) {
        sref s = x->shards.ref[i];
        memcpy(text, x->c.base + s.at, s.len);
        text[s.len] = '\0';
        names[i] = text;
        text += s.len + 1;
    }
    if (n)
        qsort(names, n, sizeof *names, by_name);
    return names;
}

/* The two sets in one block: keys up to `cap`, shards up to `shards`. */
static void *index_tables(ixscan *x, size_t cap, size_t shards)
{
    size_t ks = sset_slots(cap), ss = sset_slots(shards);
    void *mem =
        calloc(1, (ks + ss) * sizeof(uint32_t) + (cap + shards) * sizeof(sref));
    if (!mem)
        return NULL;
    x->keys.slot = mem;
    x->keys.mask = (uint32_t)(ks - 1);
    x->keys.cap = (uint32_t)cap;
    x->shards.slot = x->keys.slot + ks;
    x->shards.mask = (uint32_t)(ss - 1);
    x->shards.cap = (uint32_t)shards;
    x->keys.ref = (sref *)(x->shards.slot + ss);
    x->shards.ref = x->keys.ref + cap;
    return mem;
}

bool kvb__st_index_fast(const char *json, size_t len, kvb__st_index_scan *out)
{
    /* every weight_map entry has one ':' outside its strings */
    size_t cap = kvb__min(count_byte(json, len, ':'), KVB_READ_MAX_TENSORS);
    size_t shards = kvb__min(cap, KVB_READ_MAX_SHARDS);
    ixscan x;
    memset(&x, 0, sizeof x);
    x.c.p = x.c.base = (const unsigned char *)json;
    x.c.end = x.c.p + len;
    void *mem = len <= UINT32_MAX ? index_tables(&x, cap, shards) : NULL;
    bool ok = mem && index_scan(&x);
    const char **names = ok ? shard_names(&x) : NULL;
    if (names) {
        out->names = names;
        out->count = x.shards.count;
        out->total_size = x.total;
        out->entries = x.keys.count;
    }
    free(mem);
    return names != NULL;
}
