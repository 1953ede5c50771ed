/*
 * core/errors.c -- status codes, error detail, field bounds, struct_size rules.
 */
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

unsigned kvb_version_number(void)
{
    return KVB_VERSION_NUMBER;
}

const char *kvb_version_string(void)
{
    return KVB_VERSION_STRING;
}

const char *kvb_strerror(int status)
{
    switch (status) {
#define KVB__STATUS_MSG(name, num, msg)                                        \
    case KVB_##name: return msg;
        KVB_STATUS_MAP(KVB__STATUS_MSG)
#undef KVB__STATUS_MSG
    default: return "unknown status";
    }
}

const char *kvb_status_name(int status)
{
    switch (status) {
#define KVB__STATUS_NAME(name, num, msg)                                       \
    case KVB_##name: return "KVB_" #name;
        KVB_STATUS_MAP(KVB__STATUS_NAME)
#undef KVB__STATUS_NAME
    default: return "KVB_UNKNOWN";
    }
}

static bool error_usable(const kvb_error *err)
{
    return err && err->struct_size >= sizeof(kvb_error);
}

void kvb__clear(kvb_error *err)
{
    if (!error_usable(err))
        return;
    err->status = KVB_OK;
    err->field[0] = '\0';
    err->message[0] = '\0';
    err->line = err->column = err->offset = -1;
    err->source[0] = '\0';
}

kvb_status kvb_error_init(kvb_error *err, size_t struct_size)
{
    if (!err)
        return KVB_EINVAL;
    if (struct_size != sizeof(kvb_error))
        return KVB_EABI;
    memset(err, 0, sizeof *err);
    err->struct_size = struct_size;
    kvb__clear(err);
    return KVB_OK;
}

kvb_status kvb__fail(kvb_error *err, kvb_status status, const char *field,
                     const char *fmt, ...)
{
    if (!error_usable(err))
        return status;
    err->status = status;
    kvb__strlcpy(err->field, field ? field : "", sizeof err->field);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return status;
}

int kvb__strcasecmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = tolower((unsigned char)*a), cb = tolower((unsigned char)*b);
        if (ca != cb || ca == '\0')
            return ca - cb;
    }
}

void kvb__strlcpy(char *dst, const char *src, size_t cap)
{
    if (cap == 0)
        return;
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

kvb_status kvb__render(char *buf, size_t cap, size_t *needed, kvb_error *err,
                       const char *fmt, ...)
{
    char scratch[1];
    va_list ap;
    va_start(ap, fmt);
    int n =
        vsnprintf(buf && cap ? buf : scratch, buf && cap ? cap : 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return kvb__fail(err, KVB_EINVAL, "buf", "formatting failed");
    if (needed)
        *needed = (size_t)n + 1;
    if ((size_t)n >= cap)
        return kvb__fail(err, KVB_EBUFSIZE, "buf",
                         "buf (%zu bytes) is too small; allowed: >= %zu", cap,
                         (size_t)n + 1);
    return KVB_OK;
}

/* ---- struct_size ---- */

kvb_status kvb__struct_init(void *dst, size_t struct_size, size_t full_size,
                            const char *what)
{
    (void)what;
    if (!dst)
        return KVB_EINVAL;
    /* 0.1 is the first release: every struct has exactly one known size. */
    if (struct_size != full_size)
        return KVB_EABI;
    memset(dst, 0, full_size);
    memcpy(dst, &struct_size, sizeof struct_size);
    return KVB_OK;
}

kvb_status kvb__struct_check(const void *dst, size_t full_size,
                             const char *what, kvb_error *err)
{
    if (!dst)
        return kvb__fail(err, KVB_EINVAL, what, "%s is NULL", what);
    size_t size;
    memcpy(&size, dst, sizeof size);
    if (size != full_size)
        return kvb__fail(err, KVB_EABI, what,
                         "%s.struct_size (%zu) is not one this library "
                         "knows; allowed: %zu (call the init function)",
                         what, size, full_size);
    return KVB_OK;
}

kvb_status kvb__struct_in(const void *src, size_t full_size, void *dst,
                          const char *what, kvb_error *err)
{
    kvb_status st = kvb__struct_check(src, full_size, what, err);
    if (st)
        return st;
    memcpy(dst, src, full_size);
    return KVB_OK;
}

void kvb__struct_out(const void *src, size_t full_size, void *dst)
{
    size_t size;
    memcpy(&size, dst, sizeof size);
    memcpy(dst, src, size < full_size ? size : full_size);
    memcpy(dst, &size, sizeof size);
}

/* ---- field bounds ---- */

typedef struct field_bound {
    const char *field;
    double lo, hi;
    const char *note; /* extra words for the message, or NULL */
} field_bound;

/* One table for the library, the command and the Python bindings
 * (KVB__FIELD_BOUNDS in internal.h). */
static const field_bound bounds[] = {
#define KVB__BOUND_ROW(id, name, lo, hi, note) {name, lo, hi, note},
    KVB__FIELD_BOUNDS(KVB__BOUND_ROW)
#undef KVB__BOUND_ROW
};

static const field_bound *bound_find(const char *field)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(bounds); i++)
        if (strcmp(bounds[i].field, field) == 0)
            return &bounds[i];
    return NULL;
}

kvb_status kvb_field_bounds(const char *field, double *lo, double *hi,
                            kvb_error *err)
{
    if (!field || !lo || !hi)
        return kvb__fail(err, KVB_EINVAL, "field",
                         "field, lo and hi must "
                         "not be NULL");
    const field_bound *b = bound_find(field);
    if (!b)
        return kvb__fail(err, KVB_ENOTFOUND, "field",
                         "field (%s) has no documented bounds", field);
    *lo = b->lo;
    *hi = b->hi;
    return KVB_OK;
}

static kvb_status out_of_range(kvb_error *err, const field_bound *b,
                               const char *value)
{
    return kvb__fail(err, KVB_ERANGE, b->field,
                     "%s (%s) is out of range; allowed: %.0f..%.0f%s%s",
                     b->field, value, b->lo, b->hi, b->note ? ", " : "",
                     b->note ? b->note : "");
}

kvb_status kvb__check_field(kvb_error *err, kvb__field id, uint64_t value)
{
    const field_bound *b = &bounds[id];
    if ((double)value >= b->lo && (double)value <= b->hi)
        return KVB_OK;
    return kvb__check_u64(err, b->field, value);
}

kvb_status kvb__check_u64(kvb_error *err, const char *field, uint64_t value)
{
    const field_bound *b = bound_find(field);
    if (!b || ((double)value >= b->lo && (double)value <= b->hi))
        return KVB_OK;
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)value);
    return out_of_range(err, b, text);
}

kvb_status kvb__check_double(kvb_error *err, const char *field, double value)
{
    const field_bound *b = bound_find(field);
    if (!b || (value >= b->lo && value <= b->hi))
        return KVB_OK;
    char text[32];
    snprintf(text, sizeof text, "%g", value);
    if (isnan(value))
        return kvb__fail(err, KVB_ERANGE, b->field,
                         "%s (nan) is not a number; allowed: %g..%g", b->field,
                         b->lo, b->hi);
    return kvb__fail(err, KVB_ERANGE, b->field,
                     "%s (%s) is out of range; allowed: %g..%g%s%s", b->field,
                     text, b->lo, b->hi, b->note ? ", " : "",
                     b->note ? b->note : "");
}
