/*
 * engines/log_scan.c -- what every engine's log_line hook needs to read
 * one line: mark a fact present, and find the text after a key inside a
 * line that is not NUL-terminated.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

void kvb__log_set(kvb_log_facts *f, int bit)
{
    f->present |= (uint64_t)1 << bit;
}

const char *kvb__log_after(const char *line, size_t len, const char *key)
{
    size_t k = strlen(key);
    for (size_t i = 0; k <= len && i + k <= len; i++)
        if (memcmp(line + i, key, k) == 0)
            return line + i + k;
    return NULL;
}

bool kvb__log_number(const char *p, const char *end, double max, double *out)
{
    char buf[40];
    size_t n = 0;
    while (p < end && *p == ' ')
        p++;
    while (p + n < end && n + 1 < sizeof buf &&
           ((p[n] >= '0' && p[n] <= '9') || p[n] == '.'))
        n++;
    if (!n)
        return false;
    memcpy(buf, p, n);
    buf[n] = '\0';
    char *stop;
    double v = strtod(buf, &stop);
    /* a fuzzed "9999...9" must not reach a cast to an integer type:
     * converting an out-of-range double is undefined (C11 6.3.1.4) */
    if (stop == buf || !(v >= 0 && v <= max))
        return false;
    *out = v;
    return true;
}

bool kvb__log_bytes(double v, double unit, uint64_t *out)
{
    double b = v * unit + 0.5;
    if (!(b >= 0 && b < 9.2e18)) /* below INT64_MAX: facts hold int64 too */
        return false;
    *out = (uint64_t)b;
    return true;
}
