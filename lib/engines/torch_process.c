/*
 * engines/torch_process.c -- the terms every PyTorch serving process
 * has, under names that say so: the CUDA context, the memory outside
 * PyTorch's allocator (NCCL, cuBLAS workspaces), the activation peak of a
 * forward pass, the weights as PyTorch's allocator holds them, and what
 * must be free at start-up.  TGI's shards (server/text_generation_server),
 * TensorRT-LLM's PyTorch backend and Python runtime, and SGLang's weight
 * loader measure them as vLLM's worker does (torch.cuda.mem_get_info
 * around a load and a profile run; docs/model.md section 4), so they are
 * modelled once, in engines/vllm.c, and given to the other engines here:
 * an engine's file asks for "a torch process's" term, not "vLLM's".
 */
#include "internal.h"

uint64_t kvb__torch_cuda_context(const kvb__engine_in *in)
{
    return kvb__vllm_cuda_context(in);
}

uint64_t kvb__torch_non_torch(const kvb__engine_in *in)
{
    return kvb__vllm_non_torch(in);
}

uint64_t kvb__torch_activation(const kvb__engine_in *in, uint32_t stage)
{
    return kvb__vllm_activation(in, stage);
}

uint64_t kvb__torch_startup_reserved(const kvb__engine_in *in)
{
    return kvb__vllm_startup_reserved(in);
}

uint32_t kvb__torch_weights_gpu_key(const kvb__engine_in *in)
{
    return kvb__vllm_weights_gpu_key(in);
}

uint64_t kvb__torch_loaded_weights(const kvb__engine_in *in, uint32_t stage,
                                   uint64_t inventory_bytes)
{
    return kvb__vllm_loaded_weights(in, stage, inventory_bytes);
}
