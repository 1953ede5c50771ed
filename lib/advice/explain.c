/*
 * advice/explain.c -- read a serving log into facts, turn facts into planner
 * inputs, and say what the facts mean.
 *
 * The log is first normalised into a working copy: NUL and control bytes
 * and ANSI escapes become spaces, and every run of white space becomes one
 * space, so a message wrapped over several lines (as terminals and
 * articles wrap torch's OOM text) reads as one.  Every matcher then works
 * on that NUL-terminated copy with bounded look-ahead; nothing reads past
 * its end.  The wordings matched are those of engines.md section 1 and
 * the vLLM start-up lines in shared/data/vllm_dev.jsonl.
 */
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *kvb_log_failure_name(int failure)
{
    switch (failure) {
#define KVB__LOG_FAILURE_CODE(name, num, code, text)                           \
    case KVB_LOG_##name: return code;
        KVB_LOG_FAILURE_MAP(KVB__LOG_FAILURE_CODE)
#undef KVB__LOG_FAILURE_CODE
    default: return NULL;
    }
}

const char *kvb_log_failure_reason(int failure)
{
    switch (failure) {
#define KVB__LOG_FAILURE_TEXT(name, num, code, text)                           \
    case KVB_LOG_##name: return text;
        KVB_LOG_FAILURE_MAP(KVB__LOG_FAILURE_TEXT)
#undef KVB__LOG_FAILURE_TEXT
    default: return NULL;
    }
}

const char *kvb_log_phase_name(int phase)
{
    static const char *const names[] = {"unknown", "loading", "profile",
                                        "cuda_graphs", "serving"};
    return phase >= 0 && phase < KVB_LOG_PHASE_LAST_ ? names[phase] : NULL;
}

const char *kvb_log_fact_name(int bit)
{
    switch (bit) {
#define KVB__LOG_FACT_CODE(name, num, code)                                    \
    case KVB_LOG_BIT_##name: return code;
        KVB_LOG_FACT_MAP(KVB__LOG_FACT_CODE)
#undef KVB__LOG_FACT_CODE
    default: return NULL;
    }
}

kvb_status kvb_log_facts_init(kvb_log_facts *facts, size_t struct_size)
{
    kvb_status st =
        kvb__struct_init(facts, struct_size, sizeof *facts, "facts");
    if (st == KVB_OK) {
        facts->accounting = -1;
        facts->engine = -1;
    }
    return st;
}

/* ---- the working copy ---- */

/* Skip an ANSI escape sequence starting at s[i] (ESC); returns its end. */
static size_t skip_escape(const char *s, size_t i, size_t len)
{
    i++;
    if (i < len && s[i] == '[') {
        for (i++; i < len && i < SIZE_MAX; i++)
            if ((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e)
                return i + 1;
        return len;
    }
    return i < len ? i + 1 : len;
}

static char *normalise(const char *s, size_t len, size_t *out_len)
{
    char *w = malloc(len + 1);
    if (!w)
        return NULL;
    size_t n = 0;
    bool space = true; /* drop leading white space */
    for (size_t i = 0; i < len;) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == 0x1b) {
            i = skip_escape(s, i, len);
            continue;
        }
        i++;
        if (ch < 0x20 || ch == 0x7f || ch == ' ') {
            if (!space)
                w[n++] = ' ';
            space = true;
            continue;
        }
        w[n++] = (char)ch;
        space = false;
    }
    w[n] = '\0';
    *out_len = n;
    return w;
}

/* ---- small scanners over the working copy ---- */

typedef struct scan {
    const char *w; /* the working copy, NUL-terminated */
    size_t len;
    kvb_log_facts *f;
} scan;

static void set_bit(kvb_log_facts *f, int bit)
{
    f->present |= (uint64_t)1 << bit;
}

static bool has_bit(const kvb_log_facts *f, int bit)
{
    return (f->present >> bit) & 1u;
}

static bool ci_eq(const char *p, const char *needle, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)p[i]) != tolower((unsigned char)needle[i]))
            return false;
    return true;
}

/* The last occurrence of `needle`, case-insensitively when `ci`.  The
 * case-sensitive search runs forward with strstr (fast on long logs). */
static const char *find_last(const scan *sc, const char *needle, bool ci)
{
    size_t n = strlen(needle);
    if (n == 0 || n > sc->len)
        return NULL;
    const char *last = NULL;
    if (!ci) {
        for (const char *p = sc->w; (p = strstr(p, needle)) != NULL; p++)
            last = p;
        return last;
    }
    for (size_t i = sc->len - n + 1; i-- > 0;)
        if (ci_eq(sc->w + i, needle, n))
            return sc->w + i;
    return NULL;
}

static const char *find_first(const scan *sc, const char *needle)
{
    return strstr(sc->w, needle);
}

static const char *skip_chars(const char *p, const char *set)
{
    while (*p && strchr(set, *p))
        p++;
    return p;
}

/* A decimal number with optional sign, thousands commas and fraction.
 * Up to 18 significant digits the value is mantissa / 10^k, one division
 * of two exact doubles, so "0.70" reads as the double nearest 0.7. */
static bool num_at(const char *p, double *v, const char **end)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,
                                   1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13,
                                   1e14, 1e15, 1e16, 1e17, 1e18};
    bool neg = *p == '-';
    if (neg)
        p++;
    if (!isdigit((unsigned char)*p))
        return false;
    uint64_t mant = 0;
    int digits = 0, frac = 0;
    for (;; p++) {
        if (isdigit((unsigned char)*p)) {
            if (++digits > 18)
                return false;
            mant = mant * 10 + (uint64_t)(*p - '0');
        } else if (!(*p == ',' && isdigit((unsigned char)p[1]) &&
                     isdigit((unsigned char)p[2]) &&
                     isdigit((unsigned char)p[3]) &&
                     !isdigit((unsigned char)p[4]))) {
            break;
        }
    }
    if (*p == '.' && isdigit((unsigned char)p[1])) {
        for (p++; isdigit((unsigned char)*p); p++) {
            if (++digits > 18)
                return false;
            mant = mant * 10 + (uint64_t)(*p - '0');
            frac++;
        }
    }
    double x = (double)mant / pow10[frac];
    *v = neg ? -x : x;
    if (end)
        *end = p;
    return true;
}

static bool uint_at(const char *p, uint64_t *v, const char **end)
{
    double x;
    if (!num_at(p, &x, end) || x < 0 || x >= 1.8e19 || x != floor(x))
        return false;
    *v = (uint64_t)x;
    return true;
}

/* The byte multiplier of a unit at p; vLLM's "GB"/"MB" mean GiB/MiB. */
static double unit_at(const char *p, const char **end)
{
    static const struct {
        const char *unit;
        double mult;
    } units[] = {
        {"TiB", 1099511627776.0}, {"GiB", 1073741824.0},   {"MiB", 1048576.0},
        {"KiB", 1024.0},          {"TB", 1099511627776.0}, {"GB", 1073741824.0},
        {"MB", 1048576.0},        {"KB", 1024.0},          {"kB", 1024.0},
    };
    p = skip_chars(p, " ");
    for (size_t i = 0; i < KVB__ARRAY_LEN(units); i++) {
        size_t n = strlen(units[i].unit);
        if (strncmp(p, units[i].unit, n) == 0 &&
            !isalpha((unsigned char)p[n])) {
            if (end)
                *end = p + n;
            return units[i].mult;
        }
    }
    return 0;
}

/* A size ("1.05GiB", "-1.05 GiB", "244.61 MB") at p, in bytes. */
static bool size_at(const char *p, int64_t *bytes, const char **end)
{
    double x;
    const char *q;
    if (!num_at(p, &x, &q))
        return false;
    double mult = unit_at(q, end);
    if (mult == 0 || fabs(x * mult) >= 4.6e18)
        return false;
    *bytes = (int64_t)llround(x * mult);
    return true;
}

static bool usize_at(const char *p, uint64_t *bytes, const char **end)
{
    int64_t b;
    if (!size_at(p, &b, end) || b < 0)
        return false;
    *bytes = (uint64_t)b;
    return true;
}

/* The size that ends just before `at` ("23.65 GiB" in "23.65 GiB total"). */
static bool size_before(const scan *sc, const char *at, uint64_t *bytes)
{
    const char *p = at;
    while (p > sc->w && p[-1] == ' ')
        p--;
    while (p > sc->w && isalpha((unsigned char)p[-1]))
        p--;
    while (p > sc->w && p[-1] == ' ')
        p--;
    int guard = 0;
    while (p > sc->w && guard++ < 32 &&
           (isdigit((unsigned char)p[-1]) || p[-1] == '.' || p[-1] == ','))
        p--;
    return usize_at(p, bytes, NULL);
}

/* After `key`, skip separators ("=", ": ", " (", quotes, "takes "). */
static const char *value_after(const char *p)
{
    p = skip_chars(p, " =:('\"");
    if (strncmp(p, "takes ", 6) == 0)
        p += 6;
    if (strncmp(p, "is ", 3) == 0)
        p += 3;
    return skip_chars(p, " (");
}

static bool word_start(const scan *sc, const char *p)
{
    if (p == sc->w)
        return true;
    unsigned char c = (unsigned char)p[-1];
    return !(isalnum(c) || c == '_' || c == '-' || c == '.');
}

/* ---- facts: sizes ---- */

typedef struct size_rule {
    const char *needle;
    int bit;
    bool ci;
} size_rule;

/* Each fact takes the first rule, in this order, that matches. */
static const size_rule size_rules[] = {
    {"total_gpu_memory", KVB_LOG_BIT_GPU_TOTAL_BYTES, false},
    {"model weights take ", KVB_LOG_BIT_WEIGHTS_BYTES, false},
    {"Loading model weights took ", KVB_LOG_BIT_WEIGHTS_BYTES, false},
    {"Model loading took ", KVB_LOG_BIT_WEIGHTS_BYTES, false},
    {"weights memory: ", KVB_LOG_BIT_WEIGHTS_BYTES, false},
    {"non_torch_memory", KVB_LOG_BIT_NON_TORCH_BYTES, false},
    {"non-torch forward increase memory: ", KVB_LOG_BIT_NON_TORCH_BYTES, false},
    {"activation peak memory", KVB_LOG_BIT_ACTIVATION_BYTES, false},
    {"torch peak memory increase: ", KVB_LOG_BIT_ACTIVATION_BYTES, false},
    {"reserved for KV Cache is ", KVB_LOG_BIT_KV_CACHE_BYTES, false},
    {"available_kv_cache_memory", KVB_LOG_BIT_KV_CACHE_BYTES, false},
    {"Available KV cache memory: ", KVB_LOG_BIT_KV_CACHE_BYTES, false},
    {"kv_cache_size=", KVB_LOG_BIT_KV_CACHE_BYTES, false},
    {"Current kv cache memory in use is ", KVB_LOG_BIT_KV_CACHE_BYTES, false},
    {"available KV cache memory (", KVB_LOG_BIT_KV_CACHE_BYTES, false},
};

/* Sizes printed after their meaning: "X GiB for weight". */
static const size_rule size_before_rules[] = {
    {" for weight", KVB_LOG_BIT_WEIGHTS_BYTES, false},
    {" for consumed memory", KVB_LOG_BIT_CONSUMED_BYTES, false},
    {" for peak activation", KVB_LOG_BIT_ACTIVATION_BYTES, false},
    {" for non-torch memory", KVB_LOG_BIT_NON_TORCH_BYTES, false},
    {" for CUDAGraph memory", KVB_LOG_BIT_CUDAGRAPH_BYTES, false},
};

static void store_size(kvb_log_facts *f, int bit, int64_t b)
{
    uint64_t u = b > 0 ? (uint64_t)b : 0;
    switch (bit) {
    case KVB_LOG_BIT_GPU_TOTAL_BYTES: f->gpu_total_bytes = u; break;
    case KVB_LOG_BIT_OOM_TRIED_BYTES: f->oom_tried_bytes = u; break;
    case KVB_LOG_BIT_OOM_FREE_BYTES: f->oom_free_bytes = u; break;
    case KVB_LOG_BIT_OOM_IN_USE_BYTES: f->oom_in_use_bytes = u; break;
    case KVB_LOG_BIT_WEIGHTS_BYTES: f->weights_bytes = u; break;
    case KVB_LOG_BIT_CONSUMED_BYTES: f->consumed_bytes = u; break;
    case KVB_LOG_BIT_NON_TORCH_BYTES: f->non_torch_bytes = u; break;
    case KVB_LOG_BIT_ACTIVATION_BYTES: f->activation_bytes = u; break;
    case KVB_LOG_BIT_CUDAGRAPH_BYTES: f->cudagraph_bytes = b; break;
    case KVB_LOG_BIT_KV_CACHE_BYTES: f->kv_cache_bytes = b; break;
    case KVB_LOG_BIT_REQUESTED_BYTES: f->requested_bytes = u; break;
    case KVB_LOG_BIT_STARTUP_FREE_BYTES: f->startup_free_bytes = u; break;
    case KVB_LOG_BIT_KV_NEEDED_BYTES: f->kv_needed_bytes = u; break;
    default: return;
    }
    set_bit(f, bit);
}

static void scan_sizes(const scan *sc)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(size_rules); i++) {
        const size_rule *r = &size_rules[i];
        const char *p = find_last(sc, r->needle, r->ci);
        int64_t b;
        if (p && !has_bit(sc->f, r->bit) &&
            size_at(value_after(p + strlen(r->needle)), &b, NULL) &&
            (b >= 0 || r->bit == KVB_LOG_BIT_KV_CACHE_BYTES))
            store_size(sc->f, r->bit, b);
    }
    for (size_t i = 0; i < KVB__ARRAY_LEN(size_before_rules); i++) {
        const size_rule *r = &size_before_rules[i];
        const char *p = find_last(sc, r->needle, r->ci);
        uint64_t b;
        if (p && !has_bit(sc->f, r->bit) && size_before(sc, p, &b))
            store_size(sc->f, r->bit, (int64_t)b);
    }
}

/* "took 0.40 GiB" after "Graph capturing finished"; signed estimates. */
static void scan_graphs(const scan *sc)
{
    kvb_log_facts *f = sc->f;
    const char *p = find_last(sc, " for CUDAGraph memory", false);
    if (p) {
        const char *q = p;
        while (q > sc->w && q - p < 40 && q[-1] != ',' && q[-1] != '(')
            q--;
        int64_t b;
        q = skip_chars(q, " ");
        if (strncmp(q, "and ", 4) == 0)
            q += 4;
        if (size_at(q, &b, NULL))
            store_size(f, KVB_LOG_BIT_CUDAGRAPH_BYTES, b);
    }
    p = find_last(sc, "Graph capturing finished", false);
    if (p && !has_bit(f, KVB_LOG_BIT_CUDAGRAPH_BYTES)) {
        const char *t = strstr(p, ", took ");
        int64_t b;
        if (t && t - p < 80 && size_at(t + 7, &b, NULL))
            store_size(f, KVB_LOG_BIT_CUDAGRAPH_BYTES, b);
    }
}

/* "the current vLLM instance can use [total (..) x util (..) =] 5.60GiB",
 * "Desired GPU memory utilization is (0.92, 72.91 GiB)",
 * "Free memory on device [cuda:0] (78.84/79.25 GiB) on startup". */
static void scan_budget(const scan *sc)
{
    kvb_log_facts *f = sc->f;
    const char *p = find_last(sc, "instance can use ", false);
    uint64_t b;
    if (p) {
        p += strlen("instance can use ");
        const char *eq = strstr(p, " = ");
        if (!isdigit((unsigned char)*p) && eq && eq - p < 120)
            p = eq + 3;
        if (usize_at(p, &b, NULL))
            store_size(f, KVB_LOG_BIT_REQUESTED_BYTES, (int64_t)b);
    }
    p = find_last(sc, "x gpu_memory_utilization (", false);
    if (p && !has_bit(f, KVB_LOG_BIT_REQUESTED_BYTES)) {
        const char *eq = strstr(p, ") = ");
        if (eq && eq - p < 40 && usize_at(eq + 4, &b, NULL))
            store_size(f, KVB_LOG_BIT_REQUESTED_BYTES, (int64_t)b);
    }
    p = find_last(sc, "Desired GPU memory utilization is (", false);
    const char *q;
    double u;
    if (p && num_at(p + 35, &u, &q) && u > 0 && u <= 1) {
        f->gpu_memory_utilization = u;
        set_bit(f, KVB_LOG_BIT_GPU_MEMORY_UTILIZATION);
        if (*q == ',' && usize_at(skip_chars(q + 1, " "), &b, NULL))
            store_size(f, KVB_LOG_BIT_REQUESTED_BYTES, (int64_t)b);
    }
    p = find_last(sc, "Free memory on device", false);
    if (p && (q = strchr(p, '(')) && q - p < 40) {
        double fr, tot;
        const char *r;
        if (num_at(q + 1, &fr, &r) && *r == '/' && num_at(r + 1, &tot, &r)) {
            double mult = unit_at(r, NULL);
            if (mult > 0 && fr >= 0 && tot > 0 && tot * mult < 4.6e18) {
                store_size(f, KVB_LOG_BIT_STARTUP_FREE_BYTES,
                           llround(fr * mult));
                store_size(f, KVB_LOG_BIT_GPU_TOTAL_BYTES, llround(tot * mult));
            }
        }
    }
}

/* ---- facts: counts ---- */

static void scan_counts(const scan *sc)
{
    kvb_log_facts *f = sc->f;
    const char *p, *q;
    uint64_t v;
    double x;
    if ((p = find_last(sc, "# GPU blocks: ", true)) &&
        uint_at(p + 14, &v, NULL)) {
        f->gpu_blocks = v;
        set_bit(f, KVB_LOG_BIT_GPU_BLOCKS);
    } else if ((p = find_last(sc, "# cuda blocks: ", true)) &&
               uint_at(p + 15, &v, NULL)) {
        f->gpu_blocks = v;
        set_bit(f, KVB_LOG_BIT_GPU_BLOCKS);
    }
    if ((p = find_last(sc, "# CPU blocks: ", true)) &&
        uint_at(p + 14, &v, NULL)) {
        f->cpu_blocks = v;
        set_bit(f, KVB_LOG_BIT_CPU_BLOCKS);
    }
    if ((p = find_last(sc, "GPU KV cache size: ", false)) &&
        uint_at(p + 19, &v, NULL)) {
        f->kv_cache_tokens = v;
        set_bit(f, KVB_LOG_BIT_KV_CACHE_TOKENS);
    }
    if ((p = find_last(sc, "Maximum concurrency for ", false)) &&
        uint_at(p + 24, &v, &q) &&
        strncmp(q, " tokens per request: ", 21) == 0 &&
        num_at(q + 21, &x, NULL) && x >= 0) {
        f->max_concurrency = x;
        set_bit(f, KVB_LOG_BIT_MAX_CONCURRENCY);
        if (!has_bit(f, KVB_LOG_BIT_MAX_MODEL_LEN) && v > 0) {
            f->max_model_len = v;
            set_bit(f, KVB_LOG_BIT_MAX_MODEL_LEN);
        }
    }
}

/* ---- facts: failures ---- */

typedef struct failure_hit {
    const char *at;
    int32_t failure;
} failure_hit;

static void keep_failure(failure_hit *best, const char *at, int32_t failure)
{
    if (at && (!best->at || at > best->at)) {
        best->at = at;
        best->failure = failure;
    }
}

/* The max-seq-len ValueError, V0 and V1 wordings. */
static void scan_max_len_error(const scan *sc, failure_hit *hit)
{
    kvb_log_facts *f = sc->f;
    const char *p = find_last(sc, "max seq len (", false);
    uint64_t v;
    const char *q;
    if (!p || !uint_at(p + 13, &v, &q) || *q != ')')
        return;
    const char *v0 = ") is larger than the maximum number of tokens that can "
                     "be stored in KV cache (";
    if (strncmp(q, v0, strlen(v0)) == 0) {
        uint64_t tokens;
        if (uint_at(q + strlen(v0), &tokens, NULL)) {
            f->kv_cache_tokens = tokens;
            set_bit(f, KVB_LOG_BIT_KV_CACHE_TOKENS);
        }
        f->accounting = KVB_ACCOUNTING_VLLM_V0;
    } else if (strncmp(q, "), (", 4) == 0) {
        uint64_t b;
        if (usize_at(q + 4, &b, NULL))
            store_size(f, KVB_LOG_BIT_KV_NEEDED_BYTES, (int64_t)b);
        const char *e = strstr(q, "maximum model length is ");
        if (e && e - q < 300 && uint_at(e + 24, &b, NULL)) {
            f->estimated_max_model_len = b;
            set_bit(f, KVB_LOG_BIT_ESTIMATED_MAX_MODEL_LEN);
        }
        f->accounting = p - sc->w >= 9 && strncmp(p - 9, "models's ", 9) == 0
                            ? KVB_ACCOUNTING_VLLM_V1
                            : KVB_ACCOUNTING_VLLM_V1_021;
    } else {
        return;
    }
    f->max_model_len = v;
    set_bit(f, KVB_LOG_BIT_MAX_MODEL_LEN);
    keep_failure(hit, p, KVB_LOG_MAX_LEN_EXCEEDS_KV);
}

/* The figures of torch's OOM message, new and old wordings:
 *   "Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB
 *    of which 1.12 GiB is free. Including non-PyTorch memory, this process
 *    has 22.53 GiB memory in use."
 *   "Tried to allocate 2.00 GiB (GPU 0; 23.65 GiB total capacity; 20.10
 *    GiB already allocated; 1.12 GiB free; 21.00 GiB reserved in total by
 *    PyTorch)"
 * Read inside a copy of the 600 bytes after "Tried to allocate". */
static void scan_oom(const scan *sc)
{
    const char *at = find_last(sc, "Tried to allocate ", false);
    if (!at)
        return;
    char win[600];
    kvb__strlcpy(win, at, sizeof win);
    scan ws = {win, strlen(win), sc->f};
    kvb_log_facts *f = sc->f;
    const char *p;
    uint64_t b, idx;
    if (usize_at(win + 18, &b, NULL))
        store_size(f, KVB_LOG_BIT_OOM_TRIED_BYTES, (int64_t)b);
    if ((p = strstr(win, "total capacity of ")) && usize_at(p + 18, &b, NULL))
        store_size(f, KVB_LOG_BIT_GPU_TOTAL_BYTES, (int64_t)b);
    else if ((p = strstr(win, " total capacity")) && size_before(&ws, p, &b))
        store_size(f, KVB_LOG_BIT_GPU_TOTAL_BYTES, (int64_t)b);
    if ((p = strstr(win, " of which ")) && usize_at(p + 10, &b, NULL))
        store_size(f, KVB_LOG_BIT_OOM_FREE_BYTES, (int64_t)b);
    else if ((p = strstr(win, " free;")) && size_before(&ws, p, &b))
        store_size(f, KVB_LOG_BIT_OOM_FREE_BYTES, (int64_t)b);
    if ((p = strstr(win, "this process has ")) && usize_at(p + 17, &b, NULL))
        store_size(f, KVB_LOG_BIT_OOM_IN_USE_BYTES, (int64_t)b);
    else if ((p = strstr(win, " reserved in total by PyTorch")) &&
             size_before(&ws, p, &b))
        store_size(f, KVB_LOG_BIT_OOM_IN_USE_BYTES, (int64_t)b);
    if ((p = strstr(win, "GPU ")) && p - win < 60 &&
        uint_at(p + 4, &idx, NULL) && idx < 4096) {
        f->oom_gpu_index = (uint32_t)idx;
        set_bit(f, KVB_LOG_BIT_OOM_GPU_INDEX);
    }
}

/* The error's own words: from the "...Error: " that introduces it. */
static void failure_text(const scan *sc, const char *at)
{
    const char *s = at;
    for (const char *q = at; q > sc->w && at - q < 160; q--) {
        if (strncmp(q, "Error: ", 7) == 0) {
            s = q;
            while (s > sc->w && s[-1] != ' ')
                s--;
            break;
        }
    }
    char *t = sc->f->failure_text;
    kvb__strlcpy(t, s, sizeof sc->f->failure_text);
    for (size_t n = strlen(t); n > 0 && t[n - 1] == ' ';)
        t[--n] = '\0';
}

static void scan_failures(const scan *sc)
{
    failure_hit hit = {NULL, KVB_LOG_NONE};
    scan_max_len_error(sc, &hit);
    keep_failure(&hit,
                 find_last(sc,
                           "No available memory for the cache "
                           "blocks",
                           false),
                 KVB_LOG_NO_KV_MEMORY);
    keep_failure(&hit, find_last(sc, "Cannot auto-fit max_model_len", false),
                 KVB_LOG_NO_KV_MEMORY);
    keep_failure(&hit, find_last(sc, "CUDA out of memory", false),
                 KVB_LOG_CUDA_OOM);
    keep_failure(&hit, find_last(sc, "OutOfMemoryError", false),
                 KVB_LOG_CUDA_OOM);
    keep_failure(&hit, find_last(sc, "on startup is less than desired", false),
                 KVB_LOG_STARTUP_FREE_MEMORY);
    sc->f->failure = hit.failure;
    if (hit.at)
        failure_text(sc, hit.at);
}

/* ---- facts: settings ---- */

/* The last "key=value", "'key': value", "--key-with-dashes value". */
static const char *setting(const scan *sc, const char *key)
{
    char pat[4][64], dashed[48];
    size_t k = strlen(key);
    if (k >= sizeof dashed)
        return NULL;
    for (size_t i = 0; i <= k; i++)
        dashed[i] = key[i] == '_' ? '-' : key[i];
    snprintf(pat[0], sizeof pat[0], "%s=", key);
    snprintf(pat[1], sizeof pat[1], "'%s': ", key);
    snprintf(pat[2], sizeof pat[2], "\"%s\": ", key);
    snprintf(pat[3], sizeof pat[3], "--%s", dashed);
    const char *best = NULL, *val = NULL;
    for (int i = 0; i < 4; i++) {
        for (const char *p = sc->w; (p = strstr(p, pat[i])) != NULL; p++) {
            const char *v = p + strlen(pat[i]);
            if (i == 3 && *v != ' ' && *v != '=')
                continue;
            if ((i == 0 && !word_start(sc, p)) || (best && p < best))
                continue;
            best = p;
            val = skip_chars(v, " ='\"");
        }
    }
    return val;
}

static bool setting_uint(const scan *sc, const char *key, uint64_t max,
                         uint64_t *out)
{
    const char *v = setting(sc, key);
    uint64_t x;
    if (!v || !uint_at(v, &x, NULL) || x == 0 || x > max)
        return false;
    *out = x;
    return true;
}

/* A bare word value (model name, dtype) up to a quote, comma or space. */
static bool setting_word(const char *v, char *buf, size_t cap)
{
    if (!v)
        return false;
    size_t n = 0;
    while (v[n] && !strchr("'\", )}]|", v[n]) && n + 1 < cap)
        n++;
    if (n == 0)
        return false;
    memcpy(buf, v, n);
    buf[n] = '\0';
    return true;
}

static void scan_setting_numbers(const scan *sc)
{
    kvb_log_facts *f = sc->f;
    uint64_t v;
    if (!has_bit(f, KVB_LOG_BIT_MAX_MODEL_LEN) &&
        (setting_uint(sc, "max_model_len", (uint64_t)1 << 34, &v) ||
         setting_uint(sc, "max_seq_len", (uint64_t)1 << 34, &v))) {
        f->max_model_len = v;
        set_bit(f, KVB_LOG_BIT_MAX_MODEL_LEN);
    }
    if (setting_uint(sc, "tensor_parallel_size", 1024, &v)) {
        f->tensor_parallel_size = (uint32_t)v;
        set_bit(f, KVB_LOG_BIT_TENSOR_PARALLEL_SIZE);
    }
    if (setting_uint(sc, "pipeline_parallel_size", 1024, &v)) {
        f->pipeline_parallel_size = (uint32_t)v;
        set_bit(f, KVB_LOG_BIT_PIPELINE_PARALLEL_SIZE);
    }
    if (setting_uint(sc, "block_size", 4096, &v)) {
        f->block_size = (uint32_t)v;
        set_bit(f, KVB_LOG_BIT_BLOCK_SIZE);
    }
    if (setting_uint(sc, "max_num_seqs", (uint64_t)1 << 24, &v)) {
        f->max_num_seqs = (uint32_t)v;
        set_bit(f, KVB_LOG_BIT_MAX_NUM_SEQS);
    }
    if (setting_uint(sc, "max_num_batched_tokens", (uint64_t)1 << 34, &v)) {
        f->max_num_batched_tokens = v;
        set_bit(f, KVB_LOG_BIT_MAX_NUM_BATCHED_TOKENS);
    }
    double u;
    const char *p = setting(sc, "gpu_memory_utilization");
    if (!p && (p = find_last(sc, "gpu_memory_utilization (", false)))
        p += 24;
    if (!p && (p = find_last(sc, "gpu_memory_utilization ", false)))
        p += 23;
    if (p && num_at(p, &u, NULL) && u > 0 && u <= 1) {
        f->gpu_memory_utilization = u;
        set_bit(f, KVB_LOG_BIT_GPU_MEMORY_UTILIZATION);
    }
}

static void scan_eager(const scan *sc)
{
    const char *v = setting(sc, "enforce_eager");
    if (!v)
        return;
    sc->f->enforce_eager =
        strncmp(v, "False", 5) != 0 && strncmp(v, "false", 5) != 0 && *v != '0';
    set_bit(sc->f, KVB_LOG_BIT_ENFORCE_EAGER);
}

static void scan_model(const scan *sc)
{
    kvb_log_facts *f = sc->f;
    const char *v = setting(sc, "model");
    const char *serve = find_last(sc, "vllm serve ", false);
    if (serve && (!v || serve > v) && serve[11] != '-')
        v = serve + 11;
    if (setting_word(v, f->model, sizeof f->model))
        set_bit(f, KVB_LOG_BIT_MODEL);
}

static void scan_words(const scan *sc)
{
    kvb_log_facts *f = sc->f;
    scan_model(sc);
    if (setting_word(setting(sc, "quantization"), f->quantization,
                     sizeof f->quantization))
        set_bit(f, KVB_LOG_BIT_QUANTIZATION);
    const char *d = setting(sc, "dtype");
    if (d && strncmp(d, "torch.", 6) == 0)
        d += 6;
    if (setting_word(d, f->dtype, sizeof f->dtype))
        set_bit(f, KVB_LOG_BIT_DTYPE);
    if (setting_word(setting(sc, "kv_cache_dtype"), f->kv_cache_dtype,
                     sizeof f->kv_cache_dtype))
        set_bit(f, KVB_LOG_BIT_KV_CACHE_DTYPE);
}

/* "NVIDIA A10G", "NVIDIA GeForce RTX 4090" (nvidia-smi, torch). */
static void scan_gpu_name(const scan *sc)
{
    const char *p = find_last(sc, "NVIDIA ", false);
    if (!p || !word_start(sc, p))
        return;
    char name[64];
    size_t n = 0;
    for (const char *q = p; *q && n + 1 < sizeof name; q++, n++) {
        if (!(isalnum((unsigned char)*q) || strchr(" -", *q)))
            break;
        name[n] = *q;
    }
    name[n] = '\0';
    while (n > 0 && name[n - 1] == ' ')
        name[--n] = '\0';
    for (const char *tail = strrchr(name, ' ');
         tail && (!strcmp(tail, " On") || !strcmp(tail, " Off"));
         tail = strrchr(name, ' '))
        name[tail - name] = '\0';
    if (strlen(name) > 7) {
        kvb__strlcpy(sc->f->gpu_name, name, sizeof sc->f->gpu_name);
        set_bit(sc->f, KVB_LOG_BIT_GPU_NAME);
    }
}

/* ---- facts: engine version and accounting ---- */

/* "0.8.5", "v0.10.1.1", "0.7.3.dev233+g..." -> packed MAJOR.MINOR.PATCH */
static bool version_at(const char *p, uint32_t *out)
{
    if (*p == 'v')
        p++;
    unsigned long part[3] = {0, 0, 0};
    int n = 0;
    while (n < 3 && isdigit((unsigned char)*p)) {
        char *end;
        part[n++] = strtoul(p, &end, 10);
        p = end;
        if (*p != '.' || !isdigit((unsigned char)p[1]))
            break;
        p++;
    }
    if (n < 2 || part[0] > 99 || part[1] > 99 || part[2] > 99 ||
        part[0] + part[1] == 0)
        return false;
    *out = (uint32_t)(part[0] * 10000 + part[1] * 100 + part[2]);
    return true;
}

static void scan_version(const scan *sc)
{
    static const char *const needles[] = {
        "vLLM API server version ",
        "LLM engine (",
        "vllm version ",
        "vLLM version ",
        "vLLM ",
    };
    kvb_log_facts *f = sc->f;
    for (size_t i = 0; i < KVB__ARRAY_LEN(needles); i++) {
        const char *p = find_last(sc, needles[i], false);
        uint32_t v;
        if (!p || !version_at(p + strlen(needles[i]), &v))
            continue;
        f->engine_version = v;
        set_bit(f, KVB_LOG_BIT_ENGINE_VERSION);
        size_t n = strcspn(p + strlen(needles[i]), " ):,");
        snprintf(f->engine_line, sizeof f->engine_line, "%.*s",
                 (int)kvb__min(strlen(needles[i]) + n, 150), p);
        return;
    }
}

static void scan_accounting(const scan *sc)
{
    kvb_log_facts *f = sc->f;
    if (has_bit(f, KVB_LOG_BIT_ENGINE_VERSION))
        f->accounting = kvb__vllm_accounting(f->engine_version);
    else if (find_first(sc, "for consumed memory (weights + non-torch)"))
        f->accounting = KVB_ACCOUNTING_VLLM_V1_021;
    else if (f->accounting < 0 &&
             (find_first(sc, "Available KV cache memory") ||
              find_first(sc, "GPU KV cache size") ||
              find_first(sc, "for CUDAGraph memory")))
        f->accounting = KVB_ACCOUNTING_VLLM_V1;
    else if (f->accounting < 0 && (find_first(sc, "reserved for KV Cache") ||
                                   find_last(sc, "# GPU blocks", true) ||
                                   find_last(sc, "# cuda blocks", true) ||
                                   find_first(sc, "available_kv_cache_memory")))
        f->accounting = KVB_ACCOUNTING_VLLM_V0;
    if (f->accounting >= 0)
        set_bit(f, KVB_LOG_BIT_ACCOUNTING);
}

/* ---- the OOM phase ---- */

static const char *first_of(const scan *sc, const char *const *needles,
                            size_t n)
{
    const char *best = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *p = find_first(sc, needles[i]);
        if (p && (!best || p < best))
            best = p;
    }
    return best;
}

static bool before(const char *a, const char *b)
{
    return a && a < b;
}

static void scan_phase(const scan *sc)
{
    static const char *const serving[] = {"Application startup complete",
                                          "Uvicorn running",
                                          "Starting vLLM API server"};
    static const char *const graphs[] = {"Capturing cudagraphs",
                                         "Capturing CUDA graph",
                                         "# GPU blocks",
                                         "GPU KV cache size",
                                         "Available KV cache memory",
                                         "reserved for KV Cache"};
    static const char *const profile[] = {"Loading model weights took",
                                          "Model loading took",
                                          "model weights take"};
    static const char *const loading[] = {"Starting to load model",
                                          "Loading weights", "load_model",
                                          "Loading safetensors"};
    kvb_log_facts *f = sc->f;
    if (f->failure != KVB_LOG_CUDA_OOM)
        return;
    const char *oom = find_last(sc, "CUDA out of memory", false);
    if (!oom)
        oom = find_last(sc, "OutOfMemoryError", false);
    if (before(first_of(sc, serving, KVB__ARRAY_LEN(serving)), oom))
        f->oom_phase = KVB_LOG_PHASE_SERVING;
    else if (before(first_of(sc, graphs, KVB__ARRAY_LEN(graphs)), oom))
        f->oom_phase = KVB_LOG_PHASE_CUDA_GRAPHS;
    else if (before(first_of(sc, profile, KVB__ARRAY_LEN(profile)), oom))
        f->oom_phase = KVB_LOG_PHASE_PROFILE;
    else if (before(first_of(sc, loading, KVB__ARRAY_LEN(loading)), oom))
        f->oom_phase = KVB_LOG_PHASE_LOADING;
}

/* ---- parse ---- */

/* A start-up that the logged figures show vLLM refuses, although the
 * excerpt stops before the error line: no KV blocks, or (V0 wording, or
 * a logged concurrency) less KV cache than one request needs. */
static void infer_failure(kvb_log_facts *f)
{
    if (f->failure != KVB_LOG_NONE)
        return;
    bool no_blocks = has_bit(f, KVB_LOG_BIT_GPU_BLOCKS) && f->gpu_blocks == 0;
    bool no_budget =
        has_bit(f, KVB_LOG_BIT_KV_CACHE_BYTES) && f->kv_cache_bytes <= 0;
    bool checks =
        !has_bit(f, KVB_LOG_BIT_ENGINE_VERSION) || f->engine_version >= 207;
    bool short_v0 = f->accounting == KVB_ACCOUNTING_VLLM_V0 &&
                    has_bit(f, KVB_LOG_BIT_KV_CACHE_TOKENS) &&
                    has_bit(f, KVB_LOG_BIT_MAX_MODEL_LEN) &&
                    f->kv_cache_tokens < f->max_model_len;
    bool short_v1 =
        has_bit(f, KVB_LOG_BIT_MAX_CONCURRENCY) && f->max_concurrency < 1.0;
    if (no_blocks || no_budget)
        f->failure = KVB_LOG_NO_KV_MEMORY;
    else if (checks && (short_v0 || short_v1))
        f->failure = KVB_LOG_MAX_LEN_EXCEEDS_KV;
}

static void derive(kvb_log_facts *f)
{
    if (has_bit(f, KVB_LOG_BIT_CONSUMED_BYTES) &&
        has_bit(f, KVB_LOG_BIT_WEIGHTS_BYTES) &&
        !has_bit(f, KVB_LOG_BIT_NON_TORCH_BYTES) &&
        f->consumed_bytes >= f->weights_bytes) {
        f->non_torch_bytes = f->consumed_bytes - f->weights_bytes;
        set_bit(f, KVB_LOG_BIT_NON_TORCH_BYTES);
    }
    if (has_bit(f, KVB_LOG_BIT_GPU_BLOCKS) &&
        !has_bit(f, KVB_LOG_BIT_KV_CACHE_TOKENS) &&
        f->gpu_blocks <= UINT64_MAX / 4096) {
        uint32_t bs = has_bit(f, KVB_LOG_BIT_BLOCK_SIZE) ? f->block_size : 16;
        f->kv_cache_tokens = f->gpu_blocks * bs;
        set_bit(f, KVB_LOG_BIT_KV_CACHE_TOKENS);
    }
}

/* Offer each line to every engine that reads its own lines (SGLang,
 * llama.cpp, TensorRT-LLM, TGI ...); the first engine to claim a line
 * names the log's engine.  vLLM's lines are read by the scans above. */
static void scan_engines(const char *text, size_t len, kvb_log_facts *f)
{
    const kvb__engine *claimed = NULL;
    for (size_t at = 0; at < len;) {
        const char *line = text + at;
        const char *nl = memchr(line, '\n', len - at);
        size_t n = nl ? (size_t)(nl - line) : len - at;
        at += n + 1;
        for (int32_t id = 0; id < KVB_ENGINE_LAST_; id++) {
            const kvb__engine *e = kvb__engine_get(id);
            if (e && e->log_line && e->log_line(f, line, n) && !claimed)
                claimed = e;
        }
    }
    if (claimed) {
        f->engine = claimed->id;
    } else if (f->present || f->failure != KVB_LOG_NONE) {
        f->engine = KVB_ENGINE_VLLM;
    }
    if (f->engine >= 0)
        set_bit(f, KVB_LOG_BIT_ENGINE);
}

kvb_status kvb_log_parse(const char *text, size_t len, kvb_log_facts *facts,
                         kvb_error *err)
{
    kvb_log_facts f;
    kvb_status st = kvb__struct_check(facts, sizeof f, "facts", err);
    if (st)
        return st;
    if (!text && len)
        return kvb__fail(err, KVB_EINVAL, "text", "text is NULL but len is %zu",
                         len);
    if (len > KVB_LOG_MAX_BYTES)
        return kvb__fail(err, KVB_ELIMIT, "len",
                         "len (%zu bytes) exceeds the log limit; allowed: "
                         "<= %zu (KVB_LOG_MAX_BYTES)",
                         len, KVB_LOG_MAX_BYTES);
    KVB__CANNOT_FAIL(kvb_log_facts_init(&f, sizeof f));
    scan sc = {NULL, 0, &f};
    char *w = normalise(text ? text : "", len, &sc.len);
    if (!w)
        return kvb__fail(err, KVB_ENOMEM, "text",
                         "text (%zu bytes) could not be copied", len);
    sc.w = w;
    scan_failures(&sc);
    scan_oom(&sc);
    scan_budget(&sc);
    scan_graphs(&sc);
    scan_sizes(&sc);
    scan_counts(&sc);
    scan_setting_numbers(&sc);
    scan_eager(&sc);
    scan_words(&sc);
    scan_gpu_name(&sc);
    scan_version(&sc);
    scan_accounting(&sc);
    scan_phase(&sc);
    scan_engines(text ? text : "", len, &f);
    derive(&f);
    infer_failure(&f);
    free(w);
    kvb__struct_out(&f, sizeof f, facts);
    return KVB_OK;
}

/* ---- facts -> planner inputs ---- */

static bool strip_suffix(char *name)
{
    static const char *const suffixes[] = {
        "-Instruct",    "-Chat",     "-hf",        "-AWQ",       "-GPTQ",
        "-Int4",        "-Int8",     "-GPTQ-Int4", "-GPTQ-Int8", "-FP8",
        "-FP8-dynamic", "-bnb-4bit", "-4bit",      "-8bit",      "-GGUF",
        "-it",          "-w4a16",    "-w8a8",      "-unsloth",   "-Dynamic",
        "-dynamic",
    };
    size_t n = strlen(name);
    for (size_t i = 0; i < KVB__ARRAY_LEN(suffixes); i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && kvb__strcasecmp(name + n - k, suffixes[i]) == 0) {
            name[n - k] = '\0';
            return true;
        }
    }
    return false;
}

static bool model_lookup(const char *name, kvb_model *model)
{
    char full[128], base[128];
    kvb__strlcpy(full, name, sizeof full);
    for (int round = 0; round < 6; round++) {
        const char *slash = strrchr(full, '/');
        kvb__strlcpy(base, slash ? slash + 1 : full, sizeof base);
        if (kvb_preset_model_find(full, model, NULL) == KVB_OK ||
            kvb_preset_model_find(base, model, NULL) == KVB_OK)
            return true;
        if (!strip_suffix(full))
            return false;
    }
    return false;
}

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (ci_eq(hay, needle, n) && strlen(hay) >= n)
            return true;
    return false;
}

/* The method a logged --quantization (and the model's name) means. */
static bool method_of(const kvb_log_facts *f, int32_t *method)
{
    const char *q = f->quantization, *name = f->model;
    bool logged = (f->present >> KVB_LOG_BIT_QUANTIZATION) & 1u;
    bool eight = contains_ci(name, "int8") || contains_ci(name, "8bit");
    if (logged && (!kvb__strcasecmp(q, "none") || !*q))
        *method = KVB_QUANT_AUTO;
    else if (contains_ci(logged ? q : name, "awq"))
        *method = KVB_QUANT_AWQ_4;
    else if (contains_ci(logged ? q : name, "gptq"))
        *method = eight ? KVB_QUANT_GPTQ_8 : KVB_QUANT_GPTQ_4;
    else if (contains_ci(logged ? q : name, "bitsandbytes") ||
             contains_ci(logged ? q : name, "bnb"))
        *method = KVB_QUANT_BNB_4;
    else if (contains_ci(logged ? q : name, "fp8"))
        *method = KVB_QUANT_FP8;
    else if (!logged || kvb_quant_method_find(q, method, NULL) != KVB_OK)
        return false;
    return true;
}

static bool inputs_quant(const kvb_log_facts *f, kvb_quant *q)
{
    bool known = method_of(f, &q->method);
    int32_t d;
    if (((f->present >> KVB_LOG_BIT_DTYPE) & 1u) &&
        kvb_dtype_find(f->dtype, &d, NULL) == KVB_OK && d != KVB_DTYPE_FP8) {
        q->dtype = d;
        known = true;
    }
    if ((f->present >> KVB_LOG_BIT_KV_CACHE_DTYPE) & 1u) {
        if (!strncmp(f->kv_cache_dtype, "fp8", 3))
            q->kv_cache_dtype = KVB_DTYPE_FP8;
        else if (kvb_dtype_find(f->kv_cache_dtype, &d, NULL) == KVB_OK)
            q->kv_cache_dtype = d;
    }
    return known;
}

static bool inputs_gpu(const kvb_log_facts *f, kvb_gpu *g)
{
    bool named = false;
    if (KVB_LOG_HAS(f, GPU_NAME)) {
        kvb_gpu p;
        KVB__CANNOT_FAIL(kvb_gpu_init(&p, sizeof p));
        const char *short_name = f->gpu_name;
        if (!strncmp(short_name, "NVIDIA ", 7))
            short_name += 7;
        named = kvb_preset_gpu_find(f->gpu_name, &p, NULL) == KVB_OK ||
                kvb_preset_gpu_find(short_name, &p, NULL) == KVB_OK;
        if (named) {
            p.count = g->count;
            *g = p;
        }
    }
    if (KVB_LOG_HAS(f, GPU_TOTAL_BYTES) && f->gpu_total_bytes)
        g->total_bytes = f->gpu_total_bytes;
    if (KVB_LOG_HAS(f, STARTUP_FREE_BYTES) &&
        f->startup_free_bytes <= g->total_bytes)
        g->free_bytes = f->startup_free_bytes;
    uint64_t ranks =
        (uint64_t)(KVB_LOG_HAS(f, TENSOR_PARALLEL_SIZE)
                       ? f->tensor_parallel_size
                       : 1) *
        (KVB_LOG_HAS(f, PIPELINE_PARALLEL_SIZE) ? f->pipeline_parallel_size
                                                : 1);
    if (ranks > g->count && ranks <= 4096)
        g->count = (uint32_t)ranks;
    return named || (KVB_LOG_HAS(f, GPU_TOTAL_BYTES) && f->gpu_total_bytes);
}

static void inputs_settings(const kvb_log_facts *f, kvb_serving *s)
{
    if (KVB_LOG_HAS(f, MAX_MODEL_LEN))
        s->max_model_len = f->max_model_len;
    if (KVB_LOG_HAS(f, GPU_MEMORY_UTILIZATION))
        s->gpu_memory_utilization = f->gpu_memory_utilization;
    if (KVB_LOG_HAS(f, TENSOR_PARALLEL_SIZE))
        s->tensor_parallel_size = f->tensor_parallel_size;
    if (KVB_LOG_HAS(f, PIPELINE_PARALLEL_SIZE))
        s->pipeline_parallel_size = f->pipeline_parallel_size;
    if (KVB_LOG_HAS(f, ENFORCE_EAGER))
        s->enforce_eager = f->enforce_eager;
    if (KVB_LOG_HAS(f, BLOCK_SIZE))
        s->block_size = f->block_size;
    if (KVB_LOG_HAS(f, MAX_NUM_SEQS))
        s->max_num_seqs = f->max_num_seqs;
    if (KVB_LOG_HAS(f, MAX_NUM_BATCHED_TOKENS))
        s->max_num_batched_tokens = f->max_num_batched_tokens;
    if (KVB_LOG_HAS(f, ENGINE) && kvb__engine_get(f->engine))
        s->engine = f->engine;
    if (KVB_LOG_HAS(f, CONTEXT_SIZE))
        s->context_size = f->context_size;
    if (KVB_LOG_HAS(f, N_PARALLEL))
        s->max_num_seqs = f->n_parallel;
    /* llama.cpp: the layers it offloaded, its cache type ("q8_0") */
    if (KVB_LOG_HAS(f, LAYERS_ON_GPU))
        s->n_gpu_layers = f->layers_on_gpu;
    int32_t ct;
    if (KVB_LOG_HAS(f, KV_CACHE_DTYPE) &&
        kvb__ggml_type_parse(f->kv_cache_dtype, &ct))
        s->cache_type_k = s->cache_type_v = ct;
    if (KVB_LOG_HAS(f, ENGINE_VERSION))
        s->engine_version = f->engine_version;
    else if (f->accounting == KVB_ACCOUNTING_VLLM_V0)
        s->engine_version = 700;
    else if (f->accounting == KVB_ACCOUNTING_VLLM_V1)
        s->engine_version = 1100;
}

/* The log's figures are what the engine measured on one GPU (vLLM's
 * profile lines, SGLang's "mem usage", llama.cpp's buffers): they
 * replace the modelled terms as they are, load overhead included. */
static void inputs_measured(const kvb_log_facts *f, kvb_serving *s)
{
    if (KVB_LOG_HAS(f, WEIGHTS_BYTES) && f->weights_bytes)
        s->loaded_weights_bytes = f->weights_bytes;
    if (KVB_LOG_HAS(f, NON_TORCH_BYTES))
        s->non_torch_bytes = f->non_torch_bytes;
    if (KVB_LOG_HAS(f, ACTIVATION_BYTES))
        s->activation_bytes = f->activation_bytes;
    if (KVB_LOG_HAS(f, CUDAGRAPH_BYTES) && f->cudagraph_bytes >= 0)
        s->cudagraph_bytes = (uint64_t)f->cudagraph_bytes;
}

kvb_status kvb_log_inputs(const kvb_log_facts *facts, kvb_model *model,
                          kvb_quant *quant, kvb_gpu *gpu, kvb_serving *serving,
                          uint32_t *known, kvb_error *err)
{
    kvb_log_facts f;
    kvb_status st = kvb__struct_in(facts, sizeof f, &f, "facts", err);
    if (!st)
        st = kvb__struct_check(model, sizeof *model, "model", err);
    if (!st)
        st = kvb__struct_check(quant, sizeof *quant, "quant", err);
    if (!st)
        st = kvb__struct_check(gpu, sizeof *gpu, "gpu", err);
    if (!st)
        st = kvb__struct_check(serving, sizeof *serving, "serving", err);
    if (st)
        return st;
    f.model[sizeof f.model - 1] = '\0';
    f.quantization[sizeof f.quantization - 1] = '\0';
    f.dtype[sizeof f.dtype - 1] = '\0';
    f.kv_cache_dtype[sizeof f.kv_cache_dtype - 1] = '\0';
    f.gpu_name[sizeof f.gpu_name - 1] = '\0';
    uint32_t k = 0;
    if (KVB_LOG_HAS(&f, MODEL) && model_lookup(f.model, model))
        k |= KVB_LOG_KNOWN_MODEL;
    if (inputs_quant(&f, quant))
        k |= KVB_LOG_KNOWN_QUANT;
    if (inputs_gpu(&f, gpu))
        k |= KVB_LOG_KNOWN_GPU;
    inputs_settings(&f, serving);
    inputs_measured(&f, serving);
    if (KVB_LOG_HAS(&f, MAX_MODEL_LEN) || KVB_LOG_HAS(&f, CONTEXT_SIZE))
        k |= KVB_LOG_KNOWN_SERVING;
    if (known)
        *known = k;
    return KVB_OK;
}

/* ---- facts -> words ---- */

typedef struct text {
    char *buf;
    size_t cap, len;
} text;

static void say(text *t, const char *fmt, ...) KVB__PRINTF(2, 3);

static void say(text *t, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    for (const char *s = line; *s; s++, t->len++)
        if (t->len + 1 < t->cap)
            t->buf[t->len] = *s;
    if (t->cap)
        t->buf[t->len < t->cap ? t->len : t->cap - 1] = '\0';
}

#define G(b) KVB__GIB(b)

/* The log's engine: the one whose lines claimed it, or vLLM for a log no
 * other engine claimed (kvb_log_parse reads vLLM's lines itself). */
static const kvb__engine *log_engine(const kvb_log_facts *f)
{
    const kvb__engine *e = kvb__engine_get(f->engine);
    return e ? e : kvb__engine_get(KVB_ENGINE_VLLM);
}

#define ENGINE(f) (log_engine(f)->display)

/* The engine's own flag for a remedy (its remedy hook), or `none` when
 * it has no such remedy: llama.cpp has no utilization fraction. */
static const char *flag_or(const kvb_log_facts *f, int32_t kind,
                           const char *none)
{
    const char *w = kvb__engine_remedy(log_engine(f), kind, KVB_QUANT_FP8);
    return w ? w : none;
}

/* Whether the wording is one of vLLM's lines, whose defaults the text
 * quotes; other engines' defaults are their own (docs/engines/). */
static bool vllm_lines(const kvb_log_facts *f)
{
    return f->accounting == KVB_ACCOUNTING_VLLM_V0 ||
           f->accounting == KVB_ACCOUNTING_VLLM_V1 ||
           f->accounting == KVB_ACCOUNTING_VLLM_V1_021 ||
           (f->accounting < 0 && log_engine(f)->id == KVB_ENGINE_VLLM);
}

/* The logged utilization, or the default of the release line the log
 * shows; a log that shows none is read as the newest line, as
 * kvb_log_inputs() plans it. */
static double util_or_default(const kvb_log_facts *f, const char **note)
{
    if (KVB_LOG_HAS(f, GPU_MEMORY_UTILIZATION)) {
        *note = "";
        return f->gpu_memory_utilization;
    }
    if (!vllm_lines(f)) { /* another engine's default: not quoted */
        *note = "";
        return 0;
    }
    bool old_line = f->accounting == KVB_ACCOUNTING_VLLM_V0 ||
                    f->accounting == KVB_ACCOUNTING_VLLM_V1;
    *note = old_line ? ", vLLM's default before 0.21; the log does not say"
                     : ", vLLM's default from 0.21; the log does not say";
    return old_line ? 0.90 : 0.92;
}

/* Engines without a memory fraction (llama.cpp, Ollama: their remedy
 * hook names none) allocate what the context and layers ask for, with
 * ggml, not torch. */
static bool ggml_engine(const kvb_log_facts *f)
{
    return !flag_or(f, KVB_FIX_UTILIZATION, NULL);
}

static const char *phase_words(const kvb_log_facts *f, int32_t phase)
{
    if (phase == KVB_LOG_PHASE_PROFILE && ggml_engine(f))
        return " while reserving the compute buffers";
    switch (phase) {
    case KVB_LOG_PHASE_LOADING: return " while loading the weights";
    case KVB_LOG_PHASE_PROFILE: return " during the memory profile run";
    case KVB_LOG_PHASE_CUDA_GRAPHS:
        return " after the KV cache was sized (CUDA-graph capture)";
    case KVB_LOG_PHASE_SERVING: return " while serving requests";
    default: return "";
    }
}

static void oom_lower_util(const kvb_log_facts *f, text *t)
{
    const char *flag = flag_or(f, KVB_FIX_UTILIZATION, NULL), *why;
    if (!flag) /* llama.cpp/Ollama allocate what they are asked for */
        return;
    double u = util_or_default(f, &why);
    double total = (double)f->gpu_total_bytes;
    double tried = (double)f->oom_tried_bytes;
    double to = floor((u * total - tried) / total * 100.0) / 100.0;
    if (!KVB_LOG_HAS(f, GPU_TOTAL_BYTES) || !KVB_LOG_HAS(f, OOM_TRIED_BYTES) ||
        to < 0.3)
        say(t,
            "  - lower %s (for example by 0.05) to leave headroom outside "
            "%s's budget.\n",
            flag, ENGINE(f));
    else
        say(t,
            "  - lower %s to %.2f or less: that leaves the %.2f GiB that "
            "failed outside %s's budget (from %.2f%s).\n",
            flag, to, G(f->oom_tried_bytes), ENGINE(f), u, why);
}

/* Memory on the GPU that neither this process held nor was free: other
 * processes (another pod, a leftover engine, a notebook), or a MIG slice /
 * MPS limit / time-sliced share smaller than the GPU.  Counts when it is
 * at least 1 GiB and a tenth of the GPU. */
static uint64_t oom_others(const kvb_log_facts *f)
{
    if (!KVB_LOG_HAS(f, OOM_IN_USE_BYTES) || !KVB_LOG_HAS(f, GPU_TOTAL_BYTES) ||
        !KVB_LOG_HAS(f, OOM_FREE_BYTES))
        return 0;
    uint64_t mine = f->oom_in_use_bytes + f->oom_free_bytes;
    if (mine >= f->gpu_total_bytes)
        return 0;
    uint64_t others = f->gpu_total_bytes - mine;
    return others >= ((uint64_t)1 << 30) && others * 10 >= f->gpu_total_bytes
               ? others
               : 0;
}

static bool oom_shared(const kvb_log_facts *f, text *t)
{
    uint64_t others = oom_others(f);
    if (!others)
        return false;
    say(t,
        "  Other processes held %.2f GiB (%.0f%% of the GPU): this process "
        "did not fill it.  The GPU is shared: another pod or process (a "
        "leftover engine from an earlier start, a second replica, a "
        "notebook), or a MIG slice, MPS limit or time-sliced share smaller "
        "than the GPU.\n",
        G(others), 100.0 * (double)others / (double)f->gpu_total_bytes);
    return true;
}

static void oom_shared_todo(const kvb_log_facts *f, text *t)
{
    uint64_t others = oom_others(f);
    double room = floor((double)(f->gpu_total_bytes - others) /
                        (double)f->gpu_total_bytes * 100.0) /
                      100.0 -
                  0.02;
    say(t, "  - see who holds it: `nvidia-smi --query-compute-apps=pid,"
           "process_name,used_memory --format=csv` on the node (or "
           "`kubectl exec` into the pod and run `nvidia-smi`); stop a "
           "leftover process.\n");
    say(t, "  - check the pod's GPU request (resources.limits "
           "nvidia.com/gpu: 1) and whether the node shares GPUs (a MIG "
           "profile such as nvidia.com/mig-3g.40gb, time-slicing or MPS in "
           "the NVIDIA device plugin's config): give the engine a GPU of "
           "its own.\n");
    const char *flag = flag_or(f, KVB_FIX_UTILIZATION, NULL);
    if (room >= 0.1 && flag)
        say(t,
            "  - or size the engine for what is left: %s is a fraction of "
            "the whole GPU, so with %.2f GiB taken by others it can be at "
            "most about %.2f.\n",
            flag, G(others), room);
}

static void explain_oom(const kvb_log_facts *f, text *t)
{
    say(t, "What happened: a CUDA allocation failed (%s)%s.\n",
        ggml_engine(f) ? "cudaMalloc, out of memory"
                       : "torch.cuda.OutOfMemoryError",
        phase_words(f, f->oom_phase));
    if (KVB_LOG_HAS(f, OOM_TRIED_BYTES) && KVB_LOG_HAS(f, GPU_TOTAL_BYTES))
        say(t,
            "  It asked for %.2f GiB; GPU %u has %.2f GiB in all and "
            "%.2f GiB was free.\n",
            G(f->oom_tried_bytes), f->oom_gpu_index, G(f->gpu_total_bytes),
            G(f->oom_free_bytes));
    bool full = KVB_LOG_HAS(f, OOM_IN_USE_BYTES) &&
                KVB_LOG_HAS(f, GPU_TOTAL_BYTES) && f->gpu_total_bytes &&
                f->oom_in_use_bytes * 100 >= f->gpu_total_bytes * 85;
    if (KVB_LOG_HAS(f, OOM_IN_USE_BYTES) && f->gpu_total_bytes)
        say(t, "  This process held %.2f GiB (%.0f%% of the GPU).\n",
            G(f->oom_in_use_bytes),
            100.0 * (double)f->oom_in_use_bytes / (double)f->gpu_total_bytes);
    const char *share = flag_or(f, KVB_FIX_UTILIZATION, NULL);
    if (full && f->oom_phase != KVB_LOG_PHASE_LOADING && vllm_lines(f))
        say(t, "  The process itself filled the GPU: vLLM reserves "
               "gpu_memory_utilization of the whole GPU up front (weights, "
               "activations, KV cache), so an allocation outside that "
               "budget (CUDA graphs, sampler buffers, fragmentation) had "
               "nowhere to go.\n");
    else if (full && f->oom_phase != KVB_LOG_PHASE_LOADING && share)
        say(t,
            "  The process itself filled the GPU: %s takes its budget (%s) "
            "up front (weights, activations, KV cache), so an allocation "
            "outside it (CUDA graphs, sampler buffers, fragmentation) had "
            "nowhere to go.\n",
            ENGINE(f), share);
    bool shared = oom_shared(f, t);
    say(t, "What to do:\n");
    if (shared) {
        oom_shared_todo(f, t);
        return;
    }
    if (f->oom_phase == KVB_LOG_PHASE_LOADING) {
        say(t,
            "  - the weights do not fit on the GPU: use a smaller weight "
            "format (%s) or split the model over more GPUs (%s).\n",
            flag_or(f, KVB_FIX_QUANTIZE, "a smaller GGUF"),
            flag_or(f, KVB_FIX_TENSOR_PARALLEL,
                    "it splits the layers over them"));
        return;
    }
    if (f->oom_phase == KVB_LOG_PHASE_PROFILE && ggml_engine(f))
        say(t, "  - the compute buffers did not fit next to the weights and "
               "the KV cache: lower the micro-batch (-ub) or the context "
               "(-c), or offload fewer layers (-ngl).\n");
    else if (f->oom_phase == KVB_LOG_PHASE_PROFILE)
        say(t,
            "  - the profile run's activation peak did not fit next to the "
            "weights: lower %s.\n",
            vllm_lines(f) ? "--max-num-batched-tokens or --max-num-seqs"
                          : "the engine's prefill and batch sizes");
    oom_lower_util(f, t);
    const char *eager = flag_or(f, KVB_FIX_ENFORCE_EAGER, NULL);
    if (eager)
        say(t,
            "  - or add %s: no CUDA graphs are captured (decoding is "
            "slower).\n",
            eager);
    else if (ggml_engine(f) && f->oom_phase != KVB_LOG_PHASE_PROFILE)
        say(t,
            "  - lower the context (%s) or keep fewer layers on the GPU "
            "(-ngl): the engine allocates what they ask for.\n",
            flag_or(f, KVB_FIX_MAX_MODEL_LEN, "-c"));
    if (f->oom_phase == KVB_LOG_PHASE_UNKNOWN)
        say(t,
            "  - if it failed while loading the weights, they do not fit: "
            "use a smaller weight format or more GPUs (%s).\n",
            flag_or(f, KVB_FIX_TENSOR_PARALLEL,
                    "it splits the layers over them"));
}

static void inferred(const kvb_log_facts *f, text *t)
{
    if (!f->failure_text[0])
        say(t,
            "  (The excerpt stops before the error line; the figures "
            "below are where %s stops.)\n",
            ENGINE(f));
}

/* The largest max_model_len the logged KV cache holds, and where from. */
static uint64_t kv_fit_len(const kvb_log_facts *f, const char **from)
{
    if (KVB_LOG_HAS(f, ESTIMATED_MAX_MODEL_LEN)) {
        *from = "the engine's own estimate";
        return f->estimated_max_model_len;
    }
    if (KVB_LOG_HAS(f, KV_CACHE_TOKENS)) {
        *from = "what the KV cache holds";
        return f->kv_cache_tokens;
    }
    if (KVB_LOG_HAS(f, KV_NEEDED_BYTES) && KVB_LOG_HAS(f, KV_CACHE_BYTES) &&
        f->kv_needed_bytes && f->kv_cache_bytes > 0) {
        *from = "max_model_len x available / needed KV memory";
        return (uint64_t)((double)f->max_model_len * (double)f->kv_cache_bytes /
                          (double)f->kv_needed_bytes);
    }
    return 0;
}

static void explain_max_len(const kvb_log_facts *f, text *t)
{
    if (vllm_lines(f))
        say(t, "What happened: one request at max_model_len needs more KV "
               "cache than there is (vLLM's max-seq-len ValueError).\n");
    else
        say(t,
            "What happened: one request at max_model_len needs more KV "
            "cache than there is (%s's length check).\n",
            ENGINE(f));
    inferred(f, t);
    if (KVB_LOG_HAS(f, KV_NEEDED_BYTES) && KVB_LOG_HAS(f, KV_CACHE_BYTES))
        say(t,
            "  One request of %llu tokens needs %.2f GiB of KV cache; "
            "%.2f GiB is available.\n",
            (unsigned long long)f->max_model_len, G(f->kv_needed_bytes),
            (double)f->kv_cache_bytes / 1073741824.0);
    else if (KVB_LOG_HAS(f, KV_CACHE_TOKENS) && f->max_model_len)
        say(t,
            "  max_model_len is %llu tokens but the KV cache holds %llu "
            "tokens (%.2f of one request).\n",
            (unsigned long long)f->max_model_len,
            (unsigned long long)f->kv_cache_tokens,
            (double)f->kv_cache_tokens / (double)f->max_model_len);
    say(t, "What to do:\n");
    const char *from = "";
    uint64_t fit = kv_fit_len(f, &from);
    if (fit) {
        say(t,
            "  - lower %s to %llu (the largest that fits is %llu tokens: "
            "%s).\n",
            flag_or(f, KVB_FIX_MAX_MODEL_LEN, "the context"),
            (unsigned long long)kvb__friendly_len(fit), (unsigned long long)fit,
            from);
        say(t,
            "  - or give the KV cache %.1fx its memory: raise %s (if the "
            "GPU has headroom), add %s (half the bytes per token), use a "
            "smaller weight format, or more GPUs (%s).\n",
            (double)f->max_model_len / (double)fit,
            flag_or(f, KVB_FIX_UTILIZATION, "the GPU's share"),
            flag_or(f, KVB_FIX_KV_CACHE_FP8, "an 8-bit KV cache"),
            flag_or(f, KVB_FIX_TENSOR_PARALLEL,
                    "it splits the layers over them"));
    } else {
        say(t, "  - lower %s, raise %s, add %s, or use more GPUs.\n",
            flag_or(f, KVB_FIX_MAX_MODEL_LEN, "the context"),
            flag_or(f, KVB_FIX_UTILIZATION, "the GPU's share"),
            flag_or(f, KVB_FIX_KV_CACHE_FP8, "an 8-bit KV cache"));
    }
}

static void explain_no_kv(const kvb_log_facts *f, text *t)
{
    if (vllm_lines(f))
        say(t, "What happened: no memory was left for KV-cache blocks "
               "(vLLM's \"No available memory for the cache blocks\").\n");
    else
        say(t,
            "What happened: no memory was left for the KV cache "
            "(%s%s%.160s).\n",
            ENGINE(f), f->failure_text[0] ? ": " : "", f->failure_text);
    inferred(f, t);
    uint64_t used = f->weights_bytes + f->activation_bytes + f->non_torch_bytes;
    bool sum =
        KVB_LOG_HAS(f, WEIGHTS_BYTES) && KVB_LOG_HAS(f, ACTIVATION_BYTES);
    if (sum && KVB_LOG_HAS(f, REQUESTED_BYTES))
        say(t,
            "  Usable %.2f GiB; weights %.2f + activation peak %.2f + "
            "non-torch %.2f = %.2f GiB, %.2f GiB more than usable.\n",
            G(f->requested_bytes), G(f->weights_bytes), G(f->activation_bytes),
            G(f->non_torch_bytes), G(used),
            used > f->requested_bytes ? G(used - f->requested_bytes) : 0.0);
    say(t, "What to do:\n");
    if (sum && KVB_LOG_HAS(f, GPU_TOTAL_BYTES) && f->gpu_total_bytes) {
        double floor_u = (double)used / (double)f->gpu_total_bytes;
        double at95 = 0.95 * (double)f->gpu_total_bytes - (double)used;
        if (at95 > 0)
            say(t,
                "  - raise %s above %.2f (at 0.95 the KV cache gets %.2f "
                "GiB).\n",
                flag_or(f, KVB_FIX_UTILIZATION, "the GPU's share"), floor_u,
                at95 / 1073741824.0);
        else
            say(t,
                "  - utilization cannot fix this: weights and "
                "activations need %.0f%% of the GPU.\n",
                100.0 * floor_u);
    }
    if (ggml_engine(f))
        say(t,
            "  - lower the context (%s): the KV cache grows with it; or "
            "keep fewer layers on the GPU (-ngl).\n",
            flag_or(f, KVB_FIX_MAX_MODEL_LEN, "-c"));
    say(t,
        "  - use a smaller weight format (%s) or split the model over more "
        "GPUs (%s).\n",
        flag_or(f, KVB_FIX_QUANTIZE, "a smaller GGUF"),
        flag_or(f, KVB_FIX_TENSOR_PARALLEL, "it splits the layers over them"));
    if (KVB_LOG_HAS(f, ACTIVATION_BYTES) &&
        f->activation_bytes >= ((uint64_t)1 << 30))
        say(t,
            "  - lower %s: the activation peak (%.2f GiB) grows with "
            "them.\n",
            vllm_lines(f) ? "--max-num-batched-tokens or --max-num-seqs"
                          : "the engine's prefill and batch sizes",
            G(f->activation_bytes));
}

static void explain_free(const kvb_log_facts *f, text *t)
{
    const char *flag = flag_or(f, KVB_FIX_UTILIZATION, "the engine's share");
    say(t,
        "What happened: less memory was free at start-up than %s asks "
        "for.\n",
        vllm_lines(f) ? "gpu_memory_utilization" : flag);
    if (!KVB_LOG_HAS(f, STARTUP_FREE_BYTES) || !f->gpu_total_bytes) {
        say(t,
            "What to do:\n  - lower %s, or stop the other processes on "
            "the GPU.\n",
            flag);
        return;
    }
    say(t,
        "  %.2f GiB of %.2f GiB was free; other processes held %.2f "
        "GiB.\n",
        G(f->startup_free_bytes), G(f->gpu_total_bytes),
        G(f->gpu_total_bytes - f->startup_free_bytes));
    double to = floor((double)f->startup_free_bytes /
                      (double)f->gpu_total_bytes * 100.0) /
                100.0;
    say(t,
        "What to do:\n  - lower %s to %.2f or less, or stop the other "
        "processes on the GPU.\n",
        flag, to);
}

static void explain_none(const kvb_log_facts *f, text *t)
{
    if (!f->present) {
        say(t, "Nothing recognised: no engine start-up line or CUDA "
               "out-of-memory error in the input.\n");
        return;
    }
    say(t, "What happened: no start-up failure in the log.\n");
    if (KVB_LOG_HAS(f, KV_CACHE_BYTES))
        say(t, "  KV cache: %.2f GiB per GPU.\n",
            (double)f->kv_cache_bytes / 1073741824.0);
    if (KVB_LOG_HAS(f, KV_CACHE_TOKENS))
        say(t, "  KV cache holds %llu tokens.\n",
            (unsigned long long)f->kv_cache_tokens);
    if (KVB_LOG_HAS(f, MAX_CONCURRENCY))
        say(t, "  Maximum concurrency %.2fx at %llu tokens per request.\n",
            f->max_concurrency, (unsigned long long)f->max_model_len);
}

static void explain_engine(const kvb_log_facts *f, text *t)
{
    const char *acc = kvb_accounting_name(f->accounting);
    char ver[32];
    /* each engine's versions in its own form: llama.cpp's "b6123" */
    kvb__engine_version_text(log_engine(f), f->engine_version, ver, sizeof ver);
    if (KVB_LOG_HAS(f, ENGINE_VERSION))
        say(t, "Engine: %s %s (%s accounting).\n", ENGINE(f), ver,
            acc ? acc : "unknown");
    else if (acc)
        say(t,
            "Engine: %s, version not logged; the wording is the %s "
            "line's.\n",
            ENGINE(f), acc);
    else if (KVB_LOG_HAS(f, ENGINE) && !vllm_lines(f))
        say(t, "Engine: %s, version not logged.\n", ENGINE(f));
}

kvb_status kvb_log_explain(const kvb_log_facts *facts, char *buf, size_t cap,
                           size_t *needed, kvb_error *err)
{
    kvb_log_facts f;
    kvb_status st = kvb__struct_in(facts, sizeof f, &f, "facts", err);
    if (st)
        return st;
    if (!buf && cap)
        return kvb__fail(err, KVB_EINVAL, "buf",
                         "buf is NULL but cap is "
                         "%zu",
                         cap);
    char scratch[1];
    text t = {cap ? buf : scratch, cap ? cap : 1, 0};
    switch (f.failure) {
    case KVB_LOG_CUDA_OOM: explain_oom(&f, &t); break;
    case KVB_LOG_MAX_LEN_EXCEEDS_KV: explain_max_len(&f, &t); break;
    case KVB_LOG_NO_KV_MEMORY: explain_no_kv(&f, &t); break;
    case KVB_LOG_STARTUP_FREE_MEMORY: explain_free(&f, &t); break;
    default: explain_none(&f, &t); break;
    }
    explain_engine(&f, &t);
    if (needed)
        *needed = t.len + 1;
    if (t.len >= cap)
        return kvb__fail(err, KVB_EBUFSIZE, "buf",
                         "buf (%zu bytes) is too small; allowed: >= %zu", cap,
                         t.len + 1);
    return KVB_OK;
}
