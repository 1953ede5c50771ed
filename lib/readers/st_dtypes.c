/*
 * readers/st_dtypes.c -- the safetensors dtype table, shared by the jansson
 * reader (safetensors.c) and the fast scanner (st_fast.c), so that neither
 * calls the other's file for it.
 */
#include "internal.h"

#include <string.h>

/* Bits per element: huggingface/safetensors Dtype::bitsize.  Names are
 * NUL-padded arrays, so that the fast path can compare a name it has not
 * copied (n bytes) without reading past one. */
static const struct {
    char name[12];
    uint32_t bits;
} dtypes[] = {
    {"BOOL", 8},    {"F4", 4},          {"F6_E2M3", 6},     {"F6_E3M2", 6},
    {"U8", 8},      {"I8", 8},          {"F8_E5M2", 8},     {"F8_E4M3", 8},
    {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8}, {"I16", 16},
    {"U16", 16},    {"F16", 16},        {"BF16", 16},       {"I32", 32},
    {"U32", 32},    {"F32", 32},        {"C64", 64},        {"F64", 64},
    {"I64", 64},    {"U64", 64},
};

uint32_t kvb__st_dtype_bits(const char *dtype)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(dtypes); i++)
        if (strcmp(dtypes[i].name, dtype) == 0)
            return dtypes[i].bits;
    return 0;
}

uint32_t kvb__st_dtype_find(const char *s, size_t n, const char **name)
{
    if (n == 0 || n >= sizeof dtypes[0].name)
        return 0;
    for (size_t i = 0; i < KVB__ARRAY_LEN(dtypes); i++) {
        const char *d = dtypes[i].name; /* exactly n bytes long */
        if (d[n] == '\0' && d[n - 1] != '\0' && memcmp(d, s, n) == 0) {
            *name = dtypes[i].name;
            return dtypes[i].bits;
        }
    }
    return 0;
}
