/*
 * presets_gpus.c -- built-in GPUs, with the memory total CUDA reports
 * (cudaMemGetInfo / torch total_memory), not the marketing figure.
 * PLACEHOLDER rows; the researched table replaces this file.
 */
#include "internal.h"

#define MIB(n) ((uint64_t)(n) << 20)

const kvb__gpu_row kvb__gpu_rows[] = {
    {"A10G", "NVIDIA A10G", "placeholder", MIB(22712), 86, 80},
    {"H100", "NVIDIA H100 80GB HBM3", "placeholder", MIB(81090), 90, 132},
};

const size_t kvb__gpu_rows_count = KVB__ARRAY_LEN(kvb__gpu_rows);
