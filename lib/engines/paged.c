/*
 * engines/paged.c -- the KV-cache arithmetic of engines whose cache is one
 * pool of blocks, each holding a block of tokens for every layer
 * (TensorRT-LLM's KVCacheManager, TGI's block allocator): what one
 * request needs, the tokens and concurrency the pool reports, and the
 * longest context it holds.  Shared so each engine file keeps only its
 * own rules.
 */
#include "internal.h"

uint64_t kvb__paged_block_bytes(const kvb__kv_stage *ks)
{
    return ks->page_bytes * ks->group_size;
}

uint64_t kvb__paged_needed(const kvb__engine_in *in, const kvb__kv_stage *ks,
                           uint64_t len)
{
    return kvb__cdiv(len, in->s.block_size) * kvb__paged_block_bytes(ks);
}

void kvb__paged_report(const kvb__engine_in *in, const kvb__kv_stage *ks,
                       uint64_t num_blocks, uint64_t *tokens,
                       double *concurrency)
{
    (void)ks;
    *tokens = num_blocks * in->s.block_size;
    *concurrency = in->s.max_model_len
                       ? (double)*tokens / (double)in->s.max_model_len
                       : 0.0;
}

uint64_t kvb__paged_fit_len(const kvb__engine_in *in, const kvb__kv_stage *ks,
                            uint64_t available, uint64_t num_blocks)
{
    (void)ks;
    (void)available;
    return kvb__min(in->model->max_position_embeddings,
                    num_blocks * in->s.block_size);
}
