/*
 * engines/log_scan.c -- what every engine's log_line hook needs to read
 * one line: mark a fact present, and find the text after a key inside a
 * line that is not NUL-terminated.
 */
#include "internal.h"

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
