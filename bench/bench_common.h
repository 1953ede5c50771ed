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
#include <stdlib.h>
#include <string.h>
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

/* The reader benchmarks' flags: [--tiny] [--dir DIR] [--reps N].
 * Returns 0, or 2 after printing the usage of `prog`. */
typedef struct bench_args {
    int tiny;        /* the one-run smoke test of ctest */
    const char *dir; /* where the benchmark writes its files */
    int reps;        /* repetitions; each case reports its best */
    int reps_given;  /* 1: --reps was on the command line */
} bench_args;

static inline int bench_parse(int argc, char **argv, const char *prog,
                              bench_args *a)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--tiny") == 0)
            a->tiny = 1;
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            a->dir = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            a->reps = atoi(argv[++i]), a->reps_given = 1;
        else {
            fprintf(stderr, "usage: %s [--tiny] [--dir DIR] [--reps N]\n",
                    prog);
            return 2;
        }
    }
    return 0;
}

#endif
