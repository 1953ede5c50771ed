/*
 * advice/advice.h -- what fix.c (the one-change remedies, applying and
 * rendering) and search.c (combined changes, costs, the Pareto front)
 * share.  Internal to lib/advice/.
 */
#ifndef KVB_ADVICE_H
#define KVB_ADVICE_H

#include "internal.h"

/* The state of one kvb_advise() call. */
typedef struct kvb__actx {
    const kvb_model *model;
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
    kvb_plan base; /* the plan of the caller's inputs */
    kvb_plan last; /* the plan of the last candidate evaluated */
    kvb_advice_options o;
    char cloud[16];              /* the current instance's cloud, or "" */
    double price;                /* the current instance's price, or 0 */
    kvb_fix all[KVB_ADVICE_MAX]; /* the fixes found, in order */
    size_t n;
} kvb__actx;

/* A fix holding the caller's inputs unchanged, of kind `kind`. */
void kvb__fix_base(const kvb__actx *c, int32_t kind, kvb_fix *f);
/* Plan the candidate into c->last and its outcome into *f; a status for a
 * candidate that cannot be planned (it is then skipped). */
kvb_status kvb__fix_evaluate(kvb__actx *c, kvb_fix *f);
/* Append a fix (at most KVB_ADVICE_MAX are kept). */
void kvb__fix_push(kvb__actx *c, const kvb_fix *f);

/* search.c: combined changes on the GPUs at hand (kind COMBINED), the
 * largest fitting max_model_len when the full one does not fit. */
void kvb__advise_combined(kvb__actx *c);
/* search.c: fill changes, gives_up, price_per_gpu_hour, checkpoint and
 * pareto of every fix found. */
void kvb__advise_finish(kvb__actx *c);
/* search.c: USD per GPU-hour of a GPU preset name: the cheapest instance
 * carrying it (optionally only on `cloud`); 0 when none is priced. */
double kvb__gpu_hour_price(const char *gpu_name, const char *cloud);

/* search.c, for tests: does fitting fix a beat fitting fix b on every
 * cost (context, concurrency, speed, quality, money) and strictly on one?
 * Needs gives_up and price_per_gpu_hour filled. */
bool kvb__fix_dominates(const kvb__actx *c, const kvb_fix *a, const kvb_fix *b);
/* search.c: set pareto on each of n fixes (1: fits and nothing dominates). */
void kvb__pareto_mark(const kvb__actx *c, kvb_fix *fixes, size_t n);

/* search.c: memory bandwidth of a GPU preset in bytes/s; 0 unknown. */
double kvb__gpu_bandwidth(const char *gpu_name);
/* search.c: USD per million generated tokens of a fitting fix at the
 * wanted concurrency: the decode roofline (memory-bandwidth bound), so a
 * lower bound on the real cost; 0 when price or bandwidth is unknown. */
double kvb__usd_per_mtok(const kvb_fix *f, uint32_t concurrency);

#endif
