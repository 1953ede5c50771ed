/*
 * presets_instances.c -- built-in cloud instances.
 * PLACEHOLDER rows; the researched table replaces this file.
 */
#include "internal.h"

const kvb__instance_row kvb__instance_rows[] = {
    {"g5.xlarge", "aws", "A10G", 1, 4, (uint64_t)16 << 30, 1.006,
     "placeholder"},
};

const size_t kvb__instance_rows_count = KVB__ARRAY_LEN(kvb__instance_rows);
