/*
 * bench_common.h -- what every benchmark shares: the clock, and the one
 * machine-readable line per case that bench/run.py reads:
 *
 *     bench <case> <iterations> <ns/op> <ops/s>
 */
#ifndef KVB_BENCH_COMMON_H
#define KVB_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

static inline double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One case: `ns_per_op` nanoseconds per operation over `iters`. */
static inline void bench_line(const char *name, uint64_t iters,
                              double ns_per_op)
{
    printf("bench %s %llu %.2f %.1f\n", name, (unsigned long long)iters,
           ns_per_op, ns_per_op > 0 ? 1e9 / ns_per_op : 0.0);
    fflush(stdout);
}

#endif
