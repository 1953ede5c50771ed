"""Memory class and reason of each flag, written by hand from the engines'
sources (NOTES.md has the rules with file:line citations).  Rules are
tried in order; the first whose pattern matches the flag's first spelling
(without the leading dashes) wins.  A flag no rule matches is reported
by build.py as UNCLASSIFIED.

Classes: modelled (read by lib/engines/<engine>.c today), none (no effect
on GPU or host memory; the reason says why), unmodelled (changes GPU or
host memory, not modelled; the reason says what and the bound where one
exists), host (host RAM only; the reason gives the size rule).
"""
import re

M, N, U, H = "modelled", "none", "unmodelled", "host"

SPEC = "speculative decoding: draft weights, the draft's KV in the same block pool and lookahead slots (NOTES.md#speculative)"
LORA = "LoRA slots preallocated on GPU: max_loras x per-module (in+out) x max_lora_rank x lora dtype bytes per layer (NOTES.md#lora)"
NET = "networking / API surface"
LOG = "logging, metrics or tracing"
KERNEL = "kernel/backend choice: backends allocate their own workspaces (FlashInfer/FlashMLA/DeepGEMM buffers, unverified per backend)"
GRAPH = "CUDA-graph capture: graph pool grows with the number and size of captured batch shapes (NOTES.md#cudagraph)"

VLLM = [
    # ---- read by lib/engines/vllm.c (vllm_flags[]) ----
    (r"model|model_tag", M, "the model: its weights and KV shape"),
    (r"quantization|dtype|kv-cache-dtype", M, "weight / KV bytes per element"),
    (r"max-model-len", M, "KV length per sequence; the value 'auto'/-1 (auto-fit, v0.14.0+, PR #29431) is not read yet: plan it as unmodelled (NOTES.md#max-model-len)"),
    (r"gpu-memory-utilization|kv-cache-memory-bytes|kv-cache-memory", M, "the memory budget"),
    (r"tensor-parallel-size|pipeline-parallel-size|data-parallel-size|enable-expert-parallel", M, "sharding of weights and KV"),
    (r"block-size|max-num-seqs|max-num-batched-tokens|enable-chunked-prefill|enforce-eager", M, "KV block granularity, batch shapes and graph capture"),
    (r"disable-hybrid-kv-cache-manager", M, "per-group KV pools vs one pool for hybrid/SWA models"),
    (r"limit-mm-per-prompt|language-model-only|mm-encoder-tp-mode|enable-multimodal-encoder-data-parallel", M, "multimodal encoder profiling and weights"),
    # ---- speculative decoding ----
    (r"speculative-.*|num-speculative-tokens|ngram-prompt-lookup-.*|spec-decoding-acceptance-method|typical-acceptance-sampler-.*|disable-logprobs-during-spec-decoding|num-lookahead-slots", U, SPEC),
    # ---- LoRA / adapters ----
    (r"max-cpu-loras", H, "CPU LoRA cache: up to max_cpu_loras adapters (default = max_loras) kept in host RAM, each its checkpoint size in lora dtype"),
    (r"lora-extra-vocab-size", U, "LoRA extra vocabulary: max_loras x extra_vocab x hidden in the embedding and lm_head LoRA tensors, removed in v0.12 (NOTES.md#lora)"),
    (r"enable-lora|max-loras|max-lora-rank|lora-dtype|fully-sharded-loras|enable-lora-bias|lora-target-modules|enable-tower-connector-lora|specialize-active-lora", U, LORA),
    (r"long-lora-scaling-factors", U, "LongLoRA: one rotary cos/sin cache per scaling factor (max_position x scale x rotary_dim x dtype) on GPU"),
    (r"lora-modules|qlora-adapter-name-or-path", U, "adapters loaded at start-up into the CPU LoRA cache (host) and GPU slots; bound by --max-cpu-loras/--max-loras x adapter size"),
    (r"default-mm-loras", N, "maps modalities to adapters already counted by --max-loras slots"),
    (r"enable-prompt-adapter|max-prompt-adapters|max-prompt-adapter-token|prompt-adapters", U, "prompt-adapter slots on GPU: max_prompt_adapters x max_prompt_adapter_token x hidden x dtype"),
    # ---- host memory and offload ----
    (r"swap-space", H, "V0: swap_space GiB of pinned host KV blocks per GPU worker (CacheEngine cpu cache); the V1 engine allocates none"),
    (r"cpu-offload-gb", U, "weights moved to host: up to cpu_offload_gb GiB per GPU leaves GPU weights and sits in pinned host RAM (UVA) (vllm/model_executor/models/utils.py:523-547@v0.8.5; NOTES.md#offload)"),
    (r"cpu-offload-params|offload-backend|offload-group-size|offload-num-in-group|offload-prefetch-step|offload-params", U, "weight offloading: GPU-resident weights shrink and host pinned RAM grows by the offloaded layers; prefetch keeps offload_prefetch_step groups on GPU"),
    (r"kv-offloading-size", H, "CPU KV tier: kv_offloading_size GiB of pinned host RAM in total, kv_offloading_size / (TP x PP) per rank (vllm/v1/kv_offload/cpu/spec.py:21-42@v0.20.1; NOTES.md#offload)"),
    (r"kv-offloading-backend", U, "native: host only, the --kv-offloading-size rule; lmcache: LMCache's engine with max_local_cpu_size = kv_offloading_size / (TP x PP) per rank plus its own buffers, not read (vllm/config/vllm.py:676-710@v0.20.1)"),
    (r"kv-transfer-config", U, "KV connector (LMCache, NIXL, P2P, offloading): host/GPU staging buffers sized by the connector's own config (NOTES.md#offload)"),
    (r"ec-transfer-config", U, "encoder-cache connector: transfer buffers for encoder outputs, connector-specific"),
    (r"kv-events-config", N, "publishes KV block events over ZMQ (networking)"),
    (r"mm-processor-cache-gb|disable-mm-preprocessor-cache|mm-cache-preprocessor|mm-processor-cache-type|mm-shm-cache-max-object-size-mb", H, "multimodal processor cache: mm_processor_cache_gb GiB host RAM in each API process and engine core (shm type: one shared ring)"),
    (r"mm-tensor-ipc", H, "how multimodal tensors reach the engine: direct RPC copies vs shared memory"),
    (r"tokenizer-pool-size|tokenizer-pool-type|tokenizer-pool-extra-config", H, "Ray tokenizer pool: tokenizer_pool_size processes, each with its own tokenizer in host RAM"),
    (r"api-server-count", H, "each API server process holds a tokenizer and a multimodal processor cache (count x mm_processor_cache_gb)"),
    (r"renderer-num-workers", H, "renderer worker threads, each with a tokenizer/processor copy in host RAM"),
    (r"max-parallel-loading-workers", H, "concurrent shard loading: workers x shard size of host RAM during load"),
    (r"safetensors-load-strategy|safetensors-prefetch-.*", H, "eager/prefetch loading reads shards into host RAM (bound: prefetch blocks x block size, or whole shards)"),
    (r"enable-sleep-mode", U, "CuMemAllocator pools; sleep level 1 copies weights to host RAM (host = weight bytes)"),
    # ---- graph capture / compilation ----
    (r"cuda-graph-sizes", U, GRAPH),
    (r"spec-method|spec-model|spec-tokens", U, SPEC),
    (r"enable-cumem-allocator", U, "allocations through the CuMem allocator pool (sleep mode): pool granularity differs"),
    (r"enable-mixed-moe-lora-format", U, LORA),
    (r"quantization-config|linear-backend", U, "quantization / linear kernel choice: weight bytes and workspaces follow the config"),
    (r"use-fp64-gumbel", U, "sampler in fp64: gumbel noise buffer max_num_seqs x vocab x 8 B"),
    (r"enable-offline-docs", N, NET),
    (r"num-redundant-experts|eplb-window-size|eplb-step-interval|eplb-log-balancedness", U, "EPLB: redundant experts add num_redundant_experts x expert bytes per rank; window/step only change statistics buffers"),
    (r"guided-decoding-disable-.*|expand-tools-even-if-tool-choice-none", N, "grammar options / API surface; bitmask size unchanged"),
    (r"uds|h11-.*", N, NET),
    (r"compilation-config|cudagraph-capture-sizes|max-cudagraph-capture-size|max-seq-len-to-capture|max-seq_len-to-capture|max-context-len-to-capture|optimization-level|performance-mode", U, GRAPH),
    # ---- KV cache shape and pool ----
    (r"num-gpu-blocks-override|forced-num-gpu-blocks", U, "fixes the number of KV blocks: pool = blocks x block bytes, regardless of the budget"),
    (r"kv-cache-dtype-skip-layers", U, "layers kept at model dtype KV: bytes/token above the fp8 rate for those layers"),
    (r"kv-sharing-fast-prefill", U, "Gemma-3n style KV sharing with fast prefill: changes which layers compute KV during prefill (activation shapes)"),
    (r"disable-sliding-window", U, "sliding-window layers keep full-length KV: bytes/token grow for those layers"),
    (r"enable-prefix-caching", U, "attention-only models: same pool (cached blocks live in it); hybrid Mamba models: selects mamba_cache_mode 'align' with per-block states (NOTES.md#prefix-caching)"),
    (r"mamba-cache-dtype|mamba-ssm-cache-dtype|mamba-block-size|mamba-cache-mode", U, "Mamba state bytes per request (dtype) and per block (mode/block size); the plan takes each release's default"),
    (r"decode-context-parallel-size|prefill-context-parallel-size|dcp-kv-cache-interleave-size|cp-kv-cache-interleave-size|dcp-comm-backend", U, "context parallel: KV per token divided over CP ranks, extra all-gather buffers"),
    (r"calculate-kv-scales", N, "computes per-layer k/v scale scalars once on the first forward pass"),
    (r"prefix-caching-hash-algo", N, "hash function of block keys (host CPU time only)"),
    (r"use-v2-block-manager", N, "V0 block-table bookkeeping on the host; pool size unchanged"),
    # ---- batch shapes / scheduling ----
    (r"max-num-partial-prefills|max-long-partial-prefills|long-prefill-token-threshold|scheduler-delay-factor|scheduling-policy|scheduler-reserve-full-isl|disable-chunked-mm-input|stream-interval|multi-step-stream-outputs", N, "scheduling order only; the token budget stays --max-num-batched-tokens and the pool is unchanged"),
    (r"preemption-mode|preemption_mode", N, "swap vs recompute on preemption; swap space itself is --swap-space"),
    (r"num-scheduler-steps", U, "V0 multi-step: num_lookahead_slots = steps-1 KV slots per sequence and per-step sampled-token buffers"),
    (r"async-scheduling", U, "one extra step in flight: a second set of input/output buffers (pinned host + GPU), about max_num_seqs x (vocab logits not kept) - unverified"),
    (r"max-paddings", U, "V0 (0.2.x): padding tokens added to a batch (activation shape)"),
    (r"enable-dbo|ubatch-size|dbo-decode-token-threshold|dbo-prefill-token-threshold", U, "dual-batch overlap: micro-batches and all2all buffers per micro-batch"),
    # ---- parallel / MoE ----
    (r"all2all-backend", U, "all2all backend buffers: DeepEP/pplx/NIXL-EP allocate GiB-scale NVSHMEM/RDMA buffers per GPU"),
    (r"enable-eplb|eplb-config", U, "EPLB: redundant experts add num_redundant_experts x expert bytes per rank; load statistics buffers"),
    (r"enable-elastic-ep", U, "elastic EP: expert weights re-sharded at run time; standby buffers"),
    (r"enable-ep-weight-filter", U, "skips reading non-local expert weights at load: host I/O and page cache; resident weights unchanged (unverified)"),
    (r"expert-placement-strategy", N, "which experts land on which EP rank; experts per rank unchanged"),
    (r"disable-custom-all-reduce", U, "custom all-reduce IPC buffers (8 MiB meta + registered graph buffers per GPU) are not allocated; only frees memory"),
    (r"disable-nccl-for-dp-synchronization", N, "DP step synchronisation over Gloo/CPU instead of NCCL"),
    (r"data-parallel-size-local|data-parallel-rank|data-parallel-start-rank|data-parallel-address|data-parallel-rpc-port|data-parallel-backend|data-parallel-hybrid-lb|data-parallel-external-lb|nnodes|node-rank|master-addr|master-port|distributed-executor-backend|distributed-timeout-seconds|worker-use-ray|engine-use-ray|headless|numa-bind.*|ray-workers-use-nsight", N, "process placement / networking; memory per GPU unchanged"),
    # ---- model shape overrides ----
    (r"hf-overrides|rope-scaling|rope-theta|hf-config-path", U, "overrides config.json fields the planner reads (layers, heads, rope scaling -> derived max length)"),
    (r"override-attention-dtype|mm-encoder-attn-dtype|mm-encoder-fp8-.*", U, "attention/encoder compute dtype: activation and workspace bytes"),
    (r"model-impl|convert|runner|task|pooler-config|override-pooler-config", U, "implementation / runner choice: the transformers backend and pooling runners profile differently (no sampler, some allocate no KV)"),
    (r"load-format", U, "most formats leave resident weights unchanged; bitsandbytes/gguf change weight bytes, runai_streamer/tensorizer stage in host RAM"),
    (r"model-loader-extra-config|pt-load-map-location", U, "loader-specific: e.g. pt map location 'cuda' stages checkpoints on GPU"),
    (r"device", U, "platform (cpu, tpu, xpu, neuron ...): the planner models CUDA GPUs only"),
    (r"override-neuron-config", N, "AWS Neuron backend only; no effect on CUDA GPUs"),
    (r"worker-cls|worker-extension-cls|scheduler-cls|io-processor-plugin|logits-processors|logits-processor-pattern|additional-config|weight-transfer-config", U, "custom code or plugin config: its memory is its own"),
    # ---- multimodal ----
    (r"mm-processor-kwargs|media-io-kwargs|video-pruning-rate", U, "changes tokens per image/video (e.g. max_pixels): encoder cache budget and encoder profiling"),
    (r"skip-mm-profiling", U, "encoder activations are not profiled: the KV budget takes memory the encoder will need"),
    (r"mm-encoder-only", U, "loads only the encoder (no language model weights or KV)"),
    (r"mm-encoder-attn-backend|image-input-type|image-token-id|image-input-shape|image-feature-size|image-processor|image-processor-revision|disable-image-processor", U, "VLM encoder settings (0.4-0.5 image profiling shape, encoder attention backend): encoder activations"),
    (r"enable-mm-embeds|interleave-mm-strings", N, "accepts precomputed embeddings / prompt formatting; encoder budget unchanged"),
    # ---- kernels, sampler, structured output ----
    (r"attention-backend|attention-config|kernel-config|ir-op-priority|moe-backend|enable-flashinfer-autotune|gdn-prefill-backend|mamba-backend", U, KERNEL),
    (r"enable-mamba-cache-stochastic-rounding|mamba-cache-philox-rounds", N, "numerics of the Mamba state write"),
    (r"disable-cascade-attn", N, "cascade attention kernel for shared prefixes; KV layout unchanged"),
    (r"guided-decoding-backend|structured-outputs-config", U, "grammar backend choice: compiled-grammar caches in host RAM (xgrammar: VLLM_XGRAMMAR_CACHE_MB, default 512 MiB, backend_xgrammar.py:68@v0.20.1; guidance/outlines: their own, not bounded by vLLM); token bitmask max_num_seqs x (1 + speculative tokens) x ceil(vocab/32) x 4 B, filled on the host (vllm/v1/structured_output/__init__.py:219-228@v0.20.1)"),
    (r"max-logprobs|logprobs-mode|disable-async-output-proc", U, "sampler buffers: top-k logprobs max_num_seqs x (max_logprobs+1) x 8 B; processed logprobs keep a vocab-sized copy"),
    (r"enable-prompt-embeds", U, "inputs_embeds buffer max_num_batched_tokens x hidden x dtype on GPU"),
    (r"enable-return-routed-experts", U, "routed-expert ids kept per token per MoE layer (GPU/host buffer)"),
    (r"reasoning-config|reasoning-parser.*|enable-reasoning", N, "output parsing of reasoning text"),
    (r"disable-frontend-multiprocessing", N, "runs the engine client in the API process; same allocations"),
    # ---- none: identity, tokenizer, API, logging ----
    (r"tokenizer|tokenizer-mode|tokenizer-revision|skip-tokenizer-init|revision|code-revision|download-dir|ignore-patterns|config-format|trust-remote-code|hf-token|seed|served-model-name|allowed-local-media-path|allowed-media-domains|use-tqdm-on-load|allow-deprecated-quantization|quantization-param-path|generation-config|override-generation-config|fingerprint-.*", N, "model identity, tokenizer choice or download location"),
    (r"chat-template.*|response-role|tool-call-parser|tool-parser-plugin|tool-server|enable-auto-tool-choice|exclude-tools-when-tool-choice-none|trust-request-chat-template|default-chat-template-kwargs|return-tokens-as-token-ids|enable-prompt-tokens-details|enable-server-load-tracking|enable-force-include-usage|enable-tokenizer-info-endpoint|tokens-only|enable-request-id-headers|disable-fastapi-docs", N, "API surface / prompt formatting"),
    (r"host|port|api-key|root-path|middleware|ssl-.*|enable-ssl-refresh|allowed-origins|allowed-methods|allowed-headers|allow-credentials|uvicorn-log-level|grpc|shutdown-timeout|fail-on-environ-validation", N, NET),
    # ---- read one by one in the source ----
    (r"disable-uvicorn-access-log|disable-access-log-for-endpoints", N, LOG),
    (r"cpu-distributed-timeout-seconds", N, "timeout of the CPU (gloo) process groups"),
    (r"data-parallel-multi-port-external-lb", H, "a supervisor launches one API server per local DP rank (each with a tokenizer and --mm-processor-cache-gb of processor cache, as --api-server-count); GPU unchanged (entrypoints/openai/cli_args.py:401@e19b9b1045)"),
    # vLLM main after 0.22 (EmbeddedLLM/vllm 5ac2684976 unless named)
    (r"device-ids", N, "which physical GPUs the workers use (instead of CUDA_VISIBLE_DEVICES); memory per GPU unchanged"),
    (r"mm-ipc-gpu-memory-gb", U, "carves exactly mm_ipc_gpu_memory_gb GiB out of the engine's KV-cache memory for GPU multimodal work in the API-server process (vllm/config/multimodal.py:253@5ac2684976)"),
    (r"mm-processor-device", U, "the HF fast (torchvision) processor runs on the GPU in the API-server process: its own CUDA context and per-request tensors on the engine's GPU, gated by --mm-ipc-gpu-memory-gb when set (vllm/engine/arg_utils.py:1360@5ac2684976)"),
    (r"mm-device-do-normalize", H, "default True: the processor ships uint8 pixels and the GPU normalises them before the vision tower; False normalises in the processor and ships float pixels (host RAM and IPC per request in flight grow by the float size over 1 B per value) (vllm/config/multimodal.py:147@5ac2684976)"),
    (r"mm-hasher-algorithm|prefix-match-unit", N, "hash function / granularity of cache keys (host CPU time and a small key table only)"),
    (r"video-pruning-method", U, "which video tokens are pruned when --video-pruning-rate > 0: encoder output tokens per video and the encoder budget"),
    (r"jit-monitor-mode|jit-monitor-verbose|enable-per-request-metrics", N, LOG),
    (r"watermark", N, "admission keeps watermark x the block pool free; the pool is sized the same, fewer requests run at once (vllm/config/scheduler.py:136@5ac2684976)"),
    (r"prefill-schedule-interval|max-num-scheduled-tokens", N, "scheduling only: buffers and the profile run stay sized by --max-num-batched-tokens (vllm/v1/core/sched/scheduler.py:111@5ac2684976)"),
    (r"diffusion-config", U, "diffusion LLM (dLLM) decoding: per-request block buffers of its own config (not read)"),
    (r"model-class-overrides", U, "custom code or plugin config: its memory is its own"),
    (r"mamba-ssu-algorithm|enable-bf16x3-router-gemm|kda-prefill-backend", U, KERNEL),
    (r"enable-fault-tolerance|fault-tolerance-config", N, "error recovery of data-parallel engine cores (timeouts, scale-down); nothing allocated at start-up"),
    (r"use-replayssm|replayssm-buffer-len", U, "ReplaySSM Mamba2 decode: a ring buffer of replayssm_buffer_len (default 16) recent SSM inputs per request slot on top of the state (vllm/config/cache.py:143-153@5ac2684976)"),
    (r"enable-moe-shared-loras", U, LORA),
    (r"cohere-is-reasoning-model|cohere-format", N, "API surface / prompt formatting"),
    (r"config", U, "options read from a YAML file: the planner does not read the file"),
    (r"disable-log-stats|disable-log-requests|enable-log-requests|max-log-len|log-config-file|log-error-stack|enable-log-outputs|enable-log-deltas|aggregate-engine-logging|show-hidden-metrics-for-version|otlp-traces-endpoint|collect-detailed-traces|kv-cache-metrics.*|cudagraph-metrics|enable-layerwise-nvtx-tracing|enable-mfu-metrics|enable-logging-iteration-details|profiler-config", N, LOG),
]

SGLANG = [
    # ---- read by lib/engines/sglang.c (sglang_flags[]) ----
    (r"model-path|model", M, "the model: its weights and KV shape"),
    (r"quantization|dtype|kv-cache-dtype", M, "weight / KV bytes per element"),
    (r"context-length", M, "KV length per request"),
    (r"mem-fraction-static", M, "the memory budget (pool = fraction x total - weights - graphs)"),
    (r"tp-size|tensor-parallel-size|pp-size|pipeline-parallel-size|dp-size|data-parallel-size|ep-size|expert-parallel-size|enable-ep-moe|enable-dp-attention", M, "sharding of weights and KV"),
    (r"page-size|max-running-requests|chunked-prefill-size|max-total-tokens|cuda-graph-max-bs|disable-cuda-graph|disable-hybrid-swa-memory", M, "pool granularity, request slots, prefill chunk and graph capture"),
    # ---- speculative ----
    (r"speculative-.*|spec-.*|decoupled-spec-.*", U, SPEC),
    # ---- LoRA ----
    (r"enable-lora|max-loras-per-batch|max-lora-rank|lora-target-modules|lora-paths|lora-backend|max-loaded-loras|lora-eviction-policy|max-lora-chunk-size|lora-.*", U, "LoRA memory pool on GPU: max_loras_per_batch x rank x per-module in/out x dtype per layer (NOTES.md#sglang-lora)"),
    # ---- host / hierarchical cache / offload ----
    (r"enable-hierarchical-cache|hicache-ratio|hicache-size|hicache-host-memory-mode|hicache-mem-layout", H, "hierarchical cache host pool per rank, pinned: hicache_size x 1e9 bytes (GB) when > 0, else hicache_ratio x the GPU KV pool (2.0; at main unset = 2.0 cache mode, 1.2 buffer_only); hybrid models split hicache_size over their pools (NOTES.md#hicache)"),
    (r"hicache-.*|enable-flexkv|enable-lmcache|kv-events-config", U, "hierarchical cache tiers / storage backends: host staging buffers, connector-specific"),
    (r"cpu-offload-gb|offload-.*", U, "weights moved to host: GPU weights shrink, pinned host RAM grows by the offloaded bytes"),
    (r"enable-memory-saver|enable-weights-cpu-backup|enable-draft-weights-cpu-backup", U, "torch_memory_saver pools; CPU backups keep a host copy of the weights (host = weight bytes)"),
    # ---- graph capture ----
    (r"cuda-graph-bs|cuda-graph-.*|disable-cuda-graph-padding|enable-torch-compile|torch-compile-max-bs|max-torch-compile-bs|piecewise-cuda-graph-.*|disable-piecewise-cuda-graph|enable-piecewise-cuda-graph|enable-profile-cuda-graph|disable-prefill-cuda-graph|enable-cudagraph-gc", U, GRAPH),
    # ---- pools / batch shapes ----
    (r"max-prefill-tokens|max-micro-batch-size|max-num-reqs|num-reserved-decode-tokens|schedule-conservativeness|num-continuous-decode-steps", U, "request/token pool shapes and reservations: req_to_token pool is max_running_requests x context_length x 4 B; reservations change admission"),
    (r"swa-full-tokens-ratio|hybrid-kvcache-ratio|max-mamba-cache-size|mamba-.*|linear-attn-.*", U, "split of the pool between full and SWA/Mamba layers: tokens per group change (the plan takes the default)"),
    (r"disable-radix-cache|radix-eviction-policy|disable-chunked-prefix-cache|enable-mixed-chunk|schedule-policy|stream-interval|stream-output|max-queued-requests|enable-priority-scheduling|schedule-low-priority-values-first|enable-dynamic-chunking|prefill-only-one-req", N, "scheduling / cache policy only; the pool is sized before scheduling"),
    (r"disable-overlap-schedule|enable-overlap-schedule|disable-overlap-cg-plan", U, "overlap scheduler keeps a second batch's buffers in flight (future token map)"),
    (r"enable-two-batch-overlap|tbo-.*|enable-single-batch-overlap", U, "two-batch overlap: micro-batch activation and all2all buffers"),
    # ---- MoE / parallel ----
    (r"enable-deepep-moe|deepep-.*|moe-a2a-backend|ep-num-redundant-experts|enable-eplb|eplb-.*|ep-dispatch-algorithm|init-expert-location|expert-distribution-recorder-.*|moe-dense-tp-size|enable-dp-lm-head|n-share-experts-fusion|disable-shared-experts-fusion|enable-flashinfer-.*moe|enable-triton-kernel-moe|moe-runner-backend|enable-mscclpp|enable-nccl-nvls|enable-symm-mem|enable-flashinfer-allreduce-fusion|disable-custom-all-reduce", U, "MoE / communication buffers: DeepEP NVSHMEM buffers, redundant experts (count x expert bytes), symmetric-memory pools"),
    (r"dist-init-addr|nccl-init-addr|nccl-port|nnodes|node-rank|dist-timeout|base-gpu-id|gpu-id-step|additional-ports|host|port|api-key|disaggregation-bootstrap-port|disaggregation-ib-device|pdlb-url|load-balance-method|watchdog-timeout|soft-watchdog-timeout|ssl-.*", N, NET),
    (r"disaggregation-.*", U, "prefill/decode disaggregation: KV transfer buffers and (decode) pre-allocated receive slots"),
    # ---- kernels / backends ----
    (r"attention-backend|prefill-attention-backend|decode-attention-backend|mm-attention-backend|sampling-backend|grammar-backend|triton-attention-.*|disable-flashinfer|disable-flashinfer-sampling|enable-flashinfer-mla|enable-flashmla|flashinfer-mla-disable-ragged|disable-mla|enable-mla|nsa-.*|dsa-.*|enable-double-sparsity|ds-.*", U, KERNEL),
    # ---- model shape / loading ----
    (r"json-model-override-args|model-impl|impl|is-embedding|enable-multimodal|enable-llama4-multimodal|language-model-only", U, "changes the model that is built (config overrides, multimodal tower on/off, embedding model without KV)"),
    (r"load-format|model-loader-extra-config|custom-weight-loader|weight-loader-disable-mmap|efficient-weight-load|delete-ckpt-after-loading|torchao-config", U, "loader / online quantization: resident weight bytes or host staging differ by format"),
    (r"device", U, "platform (cpu, npu, xpu, hpu): the planner models CUDA GPUs only"),
    (r"enable-return-hidden-states|return-hidden-states", U, "hidden states copied out per token (GPU/host buffer of hidden x dtype per token)"),
    (r"enable-custom-logit-processor|preferred-sampling-params|disable-penalizer", U, "sampler: penalizer buffers max_running_requests x vocab x 4 B; custom processors run their own code"),
    (r"kt-.*", U, "KTransformers CPU experts: kt_num_gpu_experts experts on GPU, the rest in host RAM (AMX weights)"),
    (r"dllm-.*", U, "diffusion-LM decoding: block buffers per request (unverified)"),
    (r"attention-context-parallel-size|enable-nsa-prefill-context-parallel|moe-data-parallel-size|pp-async-batch-depth|pp-max-micro-batch-size|enable-attn-tp-input-scattered", U, "parallel layout: KV/activation split per rank and in-flight micro-batches"),
    (r"elastic-ep-backend|enable-elastic-expert-backup", U, "elastic EP: standby expert copies (host or GPU)"),
    (r"enable-aiter-allreduce-fusion|enable-torch-symm-mem|disable-flashinfer-cutlass-moe-fp4-allgather|flashinfer-mxfp4-moe-precision|fp4-gemm-backend|fp8-gemm-backend|enable-fused-qk-norm-rope|disable-flashinfer-autotune|enable-flashinfer-autotune|enable-fp32-lm-head", U, KERNEL),
    (r"enable-multi-layer-eagle|enable-beta-spec", U, SPEC),
    (r"enable-lora-overlap-loading", U, "LoRA adapters staged while the batch runs: a second set of adapter buffers"),
    (r"enable-return-routed-experts", U, "routed-expert ids kept per token per MoE layer"),
    (r"modelopt-quant|quantize-and-serve|modelopt-checkpoint-.*|decrypted-config-file|decrypted-draft-config-file|remote-instance-weight-loader-.*|checkpoint-engine-wait-weights-before-ready|model-checksum|weight-version|rl-on-policy-target", U, "weight loading / online quantization: resident weight bytes follow the chosen format"),
    (r"limit-mm-data-per-request|mm-process-config|mm-enable-dp-encoder|keep-mm-feature-on-device|enable-mm-global-cache|enable-prefix-mm-cache|enable-broadcast-mm-inputs-process|mm-max-concurrent-calls|encoder-only|language-only|encoder-transfer-backend|enable-precise-embedding-interpolation", U, "multimodal encoder placement and feature caches (GPU features kept on device, encoder on/off)"),
    (r"hierarchical-sparse-attention-extra-config|disable-hicache-numa-detect", U, "sparse attention / hicache placement: host and GPU buffers of the sparse cache"),
    (r"tokenizer-worker-num|dynamic-batch-tokenizer-batch-size|enable-dynamic-batch-tokenizer|disable-tokenizer-batch-decode", H, "tokenizer processes/batches: each worker holds a tokenizer in host RAM"),
    (r"abort-on-priority-when-disabled|priority-scheduling-preemption-threshold|prefill-max-requests|prefill-round-robin-balance|enable-prefill-delayer|prefill-delayer-.*|scheduler-recv-interval|load-watch-interval|enable-deterministic-inference", N, "scheduling order only; the pools are sized before scheduling"),
    (r"config|hf-chat-template-name|sampling-defaults|multi-item-scoring-delimiter|constrained-json-disable-any-whitespace|crash-on-nan|custom-sigquit-handler|forward-hooks|fastapi-root-path|tool-server|numa-node|mooncake-ib-device|pdmux-config-path|enable-layerwise-nvtx-marker", N, "API surface, process setup or debugging switch"),
    (r"disable-decode-cuda-graph|enable-breakable-cuda-graph|enforce-piecewise-cuda-graph|record-nolora-graph", U, GRAPH),
    (r"attn-cp-size|cp-strategy|dcp-size|moe-dp-size|enable-prefill-context-parallel|enable-prefill-cp|prefill-cp-mode|enable-dsa-prefill-context-parallel|disable-attn-tp-gather|enable-dp-attention-local-control-broadcast", U, "context / attention parallel layout: KV per token split over CP ranks, gather buffers"),
    (r"enable-hisparse|hisparse-config|enable-session-radix-cache|radix-cache-backend|enable-page-major-kv-layout|prefill-only-disable-kv-cache|enable-unified-memory|lmcache-config-file|kv-canary.*", U, "KV cache layout / tiers (sparse host cache, session caches, unified memory, LMCache): pool or host buffers change"),
    (r"enable-int8-mamba-checkpoint|int8-mamba-ckpt-size|enable-linear-replayssm|linear-replayssm-cache-len|enable-mamba-cache-stochastic-rounding", U, "Mamba state checkpoints / replay caches: extra state buffers per request"),
    (r"enable-deepep-waterfill|enable-fused-moe-sum-all-reduce|enable-quant-communications|enforce-shared-experts-fusion|enforce-disable-flashinfer-allreduce-fusion|flashinfer-allreduce-fusion-backend|enable-deepseek-v4-fp4-indexer|enable-return-indexer-topk|enable-tf32-matmul|elastic-ep-rejoin|pre-warm-nccl|experts-shared-outer-loras|enable-adaptive-dispatch-to-encoder", U, KERNEL),
    (r"weight-loader-.*|model-config-parser|modelexpress-config", U, "weight loading: prefetch threads stage shards in host RAM; config parser picks the model built"),
    (r"detokenizer-worker-num", H, "detokenizer processes, each with a tokenizer in host RAM"),
    (r"asr-.*|batch-notify-size|default-priority-value|disable-priority-preemption|enable-streaming-session|enable-strict-thinking|incremental-streaming-output|stream-response-default-include-usage|strip-thinking-cache|min-free-slots-delay|optimistic-prefill-retries|load-snapshot-publish-interval|gc-threshold|use-ray|enable-mis", N, "API surface or scheduling order; pools unchanged"),
    # ---- read one by one in the source: SGLang main dad6fd0f04 (2026-08-21) ----
    (r"bf16-gemm-backend", N, "unquantized GEMM kernel: cutedsl/gemv allocate the same M x N output as F.linear and no workspace (kernels/ops/gemm/cutedsl_bf16_gemm.py:1400@dad6fd0f04, hopper_bf16_gemv.py:60@dad6fd0f04)"),
    (r"dsv4-prefill-backend", U, KERNEL),
    (r"flashinfer-autotune-skip-ops", N, "ops left out of FlashInfer autotuning take the heuristic tactic (start-up time only)"),
    (r"fuseep-mode|c128-page-size|msprobe-dump-config", N, "Ascend NPU only (hardware_backend/npu: FuseEP kernels, the DSV4 C128 NPU pool, msProbe dumps); not read on CUDA GPUs"),
    (r"mlx-enable-sampling", N, "MLX (Apple) backend only; not read on CUDA GPUs"),
    (r"elastic-ep-initial-size|elastic-ep-join-mode", U, "elastic EP 'scale' joiners store routed_experts / elastic_ep_initial_size experts per rank instead of / ep_size (layers/moe/fused_moe_triton/layer.py:294-305@dad6fd0f04)"),
    (r"max-ep-size", U, "elastic EP: active-rank state and NIXL-EP dispatch buffers pre-allocated for max_ep_size ranks instead of the launch world size (elastic_ep/elastic_ep.py:92@dad6fd0f04, token_dispatcher/nixl.py:138@dad6fd0f04)"),
    (r"elastic-ep-join-rank-offset", N, "which expert slice a scale joiner stores; the count per rank is --elastic-ep-initial-size's"),
    (r"elastic-ep-scale-timeout|weight-cache-timeout|mm-per-request-timeout|dynamic-batch-tokenizer-batch-timeout", N, "a timeout (seconds); nothing allocated"),
    (r"enable-dsa-cache-layer-split", U, "DeepSeek sparse-attention KV/indexer cache layers split over context-parallel ranks: KV per rank falls (disaggregation/common/conn.py:189@dad6fd0f04)"),
    (r"enable-waterfill", U, "fused shared expert dispatched as one more routed slot (top-k+1) through DeepEP/MegaMoE buffers, with a load balancer per MoE layer (layers/moe/topk.py:431-463@dad6fd0f04)"),
    (r"flexkv-config-file", U, "FlexKV CPU/SSD KV tiers sized by its YAML/JSON file (sets FLEXKV_CONFIG_PATH, mem_cache/registry.py:139@dad6fd0f04)"),
    (r"optimistic-prefill-attempts|retraction-policy|prefill-decode-interval", N, "scheduling order only; the pools are sized before scheduling"),
    (r"default-chat-template-kwargs|allowed-media-domains|trust-mm-content-hashes|mm-global-cache-backend|weight-cache-socket|rl-quant-profile|sidecar-args", N, "request formatting, media policy, a path or a choice with one value (mm-global-cache-backend: only 'mooncake'; the cache is --enable-mm-global-cache); rl-quant-profile is the profile file of --load-format flash_rl, whose memory is that flag's"),
    (r"dcp-comm-backend", U, "decode context parallel reduction: a2a exchanges output+LSE through NCCL all-to-all buffers, fi_a2a through a FlashInfer MNNVL workspace (models/deepseek_common/attention_forward_methods/forward_mla.py:768@dad6fd0f04)"),
    (r"dcp-replicate-q-proj", U, "full-head copies of q_b_proj and w_kc per MLA layer on every DCP rank (all-gathered: dcp_size x the rank's shard, model_runner.py:941-980@dad6fd0f04); default on for some models (arg_groups/overrides.py:495@dad6fd0f04)"),
    (r"enable-cp-decode-attn-tp", N, "decode uses narrow() views of the replicated attention weights (layers/cp/cp_decode_attn_tp.py:82@dad6fd0f04); no copy"),
    (r"dwdp-size", U, "DWDP: MoE prefill prefetches peers' experts into per-layer buffers and all-gathers small per-expert tensors to full size (layers/moe/dwdp/dwdp_manager.py:180-210@dad6fd0f04)"),
    (r"enable-tp-lm-head-all-to-all", U, "PyNCCL send/recv transport buffers for the LM-head all-to-all, allocated before the KV budget is measured (distributed/bootstrap.py:121-130@dad6fd0f04); default on for decode-only PD nodes with pure DP attention"),
    (r"enable-scattered-sconv", U, "Inkling: short-convolution cache sharded over TP ranks, state per rank / tp_size (help of server_args.py:2035@dad6fd0f04)"),
    (r"enable-linear-replayssm-spec|enable-gdn-replayssm-spec", U, "ReplaySSM speculative verify: a raw-input window per slot replaces per-draft full-state snapshots of the GDN/KDA state (help of server_args.py:2682@dad6fd0f04)"),
    (r"image-processor-backend", N, "auto/torchvision run the fast image processor on cuda:base_gpu_id as the default does; pil keeps it on the host (multimodal/processors/base_processor.py:598-610, 694-700@dad6fd0f04): frees GPU memory only"),
    (r"mm-processor-worker-num|mm-io-worker-num", H, "threads inside the tokenizer process (shared processor, no copy); host RAM grows by the media each thread decodes at once"),
    (r"mm-preprocess-cache-size-mb", H, "CPU cache of preprocessed multimodal artifacts: mm_preprocess_cache_size_mb MiB in total, split over tokenizer workers (default per model, 256 MiB for Kimi-K3, else 0; base_processor.py:243-255@dad6fd0f04); no GPU"),
    (r"startup-weight-load-mode", H, "overlap: checkpoint files read ahead into the OS page cache while CUDA graphs are captured (reclaimable, at most the checkpoint size; model_loader/weight_utils.py:872-990@dad6fd0f04); GPU weights unchanged; Llama/Qwen2/Qwen3 fp16/bf16 only"),
    (r"return-hidden-states-mode", U, "graphs and batches capture hidden states ('last': one per request, 'full': every token, hidden x dtype each) and return them to the host (forward_batch_info.py:236@dad6fd0f04)"),
    (r"weight-cache-mode", U, "daemon/client: weights live in a per-rank weight-cache daemon and are mapped zero-copy by CUDA IPC (counted once), plus the daemon's own CUDA context on each GPU (load_model_utils.py:249-287@dad6fd0f04)"),
    (r"mm-feature-transport", U, "cuda_ipc/cuda_vmm: a feature pool of SGLANG_MM_FEATURE_CACHE_MB (default 1024 MiB) on base_gpu_id, taken out of the KV budget (mem_cache/kv_cache_configurator.py:131-143@dad6fd0f04, multimodal/processors/base_processor.py:400-425@dad6fd0f04); cpu: host only"),
    (r"media-url-max-file-size-mb", H, "each remote media download is buffered in host RAM up to this many MiB (default 64; utils/common.py:1555-1600@dad6fd0f04), per request in flight"),
    (r"expert-balancedness-report-mode", U, "any mode but off turns on the expert distribution recorder ('stat'): an int32 GPU buffer of buffer_size (--expert-distribution-recorder-buffer-size, default 1000) x num_hidden_layers x physical experts per rank (eplb/expert_distribution.py:890-902@dad6fd0f04; server_args.py _handle_expert_distribution_metrics), e.g. DeepSeek-V3 1000 x 61 x 256 x 4 B = 62.5 MB"),
    (r"debug-cuda-graph", U, "breakable CUDA graphs run every op eagerly inside the capture path: graph memory differs from the plan's capture estimate (server_args.py:1951@dad6fd0f04)"),
    (r"enable-torch-compile-debug-mode", N, "records the input addresses of each piecewise graph and checks them at replay (compilation/cuda_piecewise_backend.py:175, 218@dad6fd0f04); a list of pointers"),
    (r"modelopt-export-path", U, "start-up only, before the KV pool is sized: modelopt's export_hf_checkpoint writes the quantized model (transient copies of the quantized weights; modelopt's own use not read) (model_loader/loader.py:3870-3920@dad6fd0f04)"),
    (r"sidecar", H, "one more Python process (spawned) running the selected module against the gRPC server; its host RAM is that module's; no GPU (entrypoints/sidecar.py:116-130@dad6fd0f04)"),
    (r"grpc-mode|smg-grpc-mode|grpc-port|smg-http-sidecar-port|grpc-http-sidecar-port|enable-http2|http2-max-concurrent-streams|enable-ssl-refresh|admin-api-key|engine-info-bootstrap-port|encoder-bootstrap-port|encoder-register-urls|encoder-urls|oltp-traces-endpoint|uvicorn-access-log-exclude-prefixes", N, NET),
    (r"generation-tokens-buckets|prompt-tokens-buckets|export-metrics-to-file|export-metrics-to-file-dir|extra-metric-labels|enable-mfu-metrics|forward-pass-metrics-ipc-name|forward-pass-metrics-worker-id", N, LOG),
    # ---- none ----
    (r"tokenizer-path|tokenizer-mode|tokenizer-backend|skip-tokenizer-init|revision|download-dir|trust-remote-code|random-seed|served-model-name|chat-template|completion-template|tool-call-parser|reasoning-parser|constrained-json-whitespace-pattern|quantization-param-path|return-token-ids|allow-auto-truncate|file-storage-pth|file-storage-path|disable-regex-jump-forward|disable-jump-forward|disable-disk-cache|disable-outlines-disk-cache|disable-fast-image-processor|enable-tokenizer-batch-encode|skip-server-warmup|warmups|sleep-on-idle|disable-nan-detection|enable-nan-detection|enable-p2p-check|enable-cache-report|crash-dump-folder|debug-tensor-dump-.*|enable-pdmux|sm-group-num", N, "model identity, tokenizer, API surface or debugging switch"),
    (r"log-.*|log-level.*|enable-metrics.*|bucket-.*|collect-tokens-histogram|decode-log-interval|show-time-cost|enable-request-time-stats-logging|enable-expert-distribution-metrics|enable-forward-pass-metrics|trace-.*|enable-trace|otlp-.*|tokenizer-metrics-.*|gc-warning-threshold-secs|kv-events-.*", N, LOG),
]

RULES = {"vllm": [(re.compile(p), c, r) for p, c, r in VLLM],
         "sglang": [(re.compile(p), c, r) for p, c, r in SGLANG]}

def classify(engine, names, arity):
    first = names[0].lstrip("-")
    for pat, cls, reason in RULES[engine]:
        if pat.fullmatch(first):
            return cls, reason
    if engine == "sglang":
        return U, "not classified from the source yet: memory effect unverified"
    return None, None


def source_tag(engine, release, commit):
    if engine == "vllm" and not release.endswith("~") and \
            not release.startswith("main"):
        return "v" + release
    if engine == "sglang" and not release.endswith("~") and \
            not release.startswith("main"):
        return f"{commit[:10]}(v{release})"
    return commit[:10]


# Spellings the parser accepts beyond the add_argument names, as
# (spelling, first release, last release or None), read in vLLM's
# FlexibleArgumentParser.parse_args (vllm/utils.py, vllm/utils/__init__.py,
# vllm/utils/argparse_utils.py at each tag):
#  - 0.6.5-0.9.1: "-O" is a short name of --compilation-config, so argparse
#    itself takes "-O3" / "-O=3" / "-O 3"; CompilationConfig.from_cli maps
#    "0".."3" to the level (vllm/config.py:2705@v0.6.5). The "-O<digit>"
#    branch added at v0.7.0 tests len(arg) == 2 and never fires
#    (vllm/utils.py:1201@v0.7.0).
#  - 0.9.2-0.11.2: "-O<x>" / "-O=<x>" become "-O.level=<x>" ("-O.mode" from
#    0.11.1) and "-O <0-3>" becomes "-O.level <n>"; "-O.<key>=<v>" sets one
#    key (vllm/utils/__init__.py:1504-1514@v0.9.2,
#    vllm/utils/argparse_utils.py:255-267@v0.11.1).
#  - 0.12.0: "-O<x>", "-O=<x>", "-O <0-3>" become --optimization-level;
#    "-O.<key>" warns and becomes "-cc.<key>" (argparse_utils.py:247-270@v0.12.0).
#  - 0.13.0 on: the same, but "-O.<key>" is no longer special: it becomes
#    "--optimization-level .<key>...", which the parser rejects
#    (argparse_utils.py:247-258@v0.13.0).
EXTRA_SPELLINGS = {
    "vllm": {
        "--compilation-config": [("-O<level>", "0.6.5", "0.11.2"),
                                 ("-O.<key>", "0.9.2", "0.12.0")],
        "--optimization-level": [("-O<level>", "0.12.0", None)],
    },
}

ENV = {
    "vllm": {},
    "sglang": {},
}

NOTES = {
    "vllm": {
        "--mm-encoder-tp-mode": "renamed from --enable-multimodal-encoder-data-parallel (PR #23190)",
        "--enable-multimodal-encoder-data-parallel": "renamed to --mm-encoder-tp-mode data (PR #23190)",
        "--max-seq-len-to-capture": "replaced --max-context-len-to-capture",
        "--kv-cache-memory-bytes": "PR #21489",
        "--max-model-len": "value forms: int (0.2.0-0.8.3); human_readable_int 1k=1000, 1K=1024, 25.6k (0.8.4+); 'auto' and -1 = auto-fit (human_readable_int_or_auto, 0.14.0+, PR #29431); -1 before 0.13 is not auto-fit and 0.13.0 rejects it (NOTES.md#max-model-len)",
        "--optimization-level": "-O3, -O=3 and -O 3 (0-3) are this flag from 0.12.0 (FlexibleArgumentParser)",
        "--compilation-config": "-O<level> (-O3, -O=3, -O 3) = compilation level 0.6.5-0.11.2 (mode from 0.11.1); -O.<key>=<v> sets one key 0.9.2-0.11.2, deprecated alias of -cc.<key> in 0.12.0, rejected from 0.13.0",
    },
}

# ---- environment variables that change memory -------------------------------

VLLM_ENVS = [
    ("VLLM_USE_V1", M, "selects the V1 engine (memory accounting differs, engines.md 1.1)"),
    ("VLLM_CPU_KVCACHE_SPACE", H, "CPU backend KV cache size in GiB (host RAM); CUDA GPUs unaffected"),
    ("VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE", U, "keeps the hybrid KV manager on for chunked-local attention models (Llama 4): per-group pools instead of full-length KV"),
    ("VLLM_ATTENTION_BACKEND", U, KERNEL),
    ("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS", U, "when on, the profiler subtracts its CUDA-graph estimate from the KV budget; default off in 0.18.0-0.19.1, on from 0.20.0 (vllm/envs.py:1724@v0.20.0)"),
    ("VLLM_ALLOW_LONG_MAX_MODEL_LEN", U, "lets --max-model-len exceed the model's derived maximum"),
    ("VLLM_ENABLE_V1_MULTIPROCESSING", N, "engine core in its own process; same GPU allocations"),
    ("VLLM_FUSED_MOE_CHUNK_SIZE", U, "fused-MoE intermediate buffers scale with the chunk size (tokens x topk x intermediate)"),
    ("VLLM_MM_INPUT_CACHE_GIB", H, "multimodal input cache on the host, GiB (older name of --mm-processor-cache-gb)"),
    ("VLLM_CPU_OMP_THREADS_BIND", N, "CPU thread affinity"),
    ("VLLM_USE_DEEP_GEMM", U, KERNEL),
    ("VLLM_USE_FLASHINFER_SAMPLER", U, "FlashInfer sampler: avoids the sort-based top-p/top-k buffers"),
    ("VLLM_SLEEP_WHEN_IDLE", N, "CPU polling only"),
    ("VLLM_KV_CACHE_LAYOUT", U, "KV memory layout (NHD/HND): same bytes, backend constraints"),
    ("VLLM_ENABLE_CUDAGRAPH_GC", N, "garbage collection during capture (time only)"),
    ("VLLM_RPC_TIMEOUT", N, NET),
]

SGLANG_ENVS = [
    ("SGLANG_ENABLE_TORCH_COMPILE", U, GRAPH),
    ("SGLANG_CUDA_GRAPH_MEMORY_MARGIN", U, "reserve kept aside for CUDA graphs"),
    ("SGLANG_MEMORY_SAVER_CUDA_GRAPH", U, "CUDA graphs allocated inside torch_memory_saver pools"),
    ("SGLANG_HICACHE_HOST_MEMORY_RESERVE_BYTES", H, "host memory kept free when sizing the hierarchical cache pool"),
    ("SGLANG_SET_CPU_AFFINITY", N, "CPU affinity"),
    ("SGLANG_DISABLE_OUTLINES_DISK_CACHE", N, "disk cache of compiled grammars"),
    ("SGLANG_MOE_PADDING", U, "pads MoE weights (weight bytes grow slightly)"),
    ("SGLANG_INT4_WEIGHT", U, "int4 weight path: weight bytes"),
    ("SGLANG_VLM_CACHE_SIZE_MB", U, "multimodal embedding cache on the GPU: this many MiB (default 100) taken out of the KV budget for multimodal models (mem_cache/kv_cache_configurator.py:130-143@dad6fd0f04)"),
    ("SGLANG_MM_FEATURE_CACHE_MB", U, "with --mm-feature-transport cuda_ipc/cuda_vmm: a feature pool of this many MiB (default: 4096 at 0.5.9~, 1024 at main) on the base GPU, taken out of the KV budget (mem_cache/kv_cache_configurator.py:130-143@dad6fd0f04)"),
    ("SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION", U, "caps the new-token estimate used for admission (how many requests fit the pool)"),
]


def env_rows(engine, order, path):
    """Rows for the memory environment variables that envscan.py found:
    path is its JSON, {var: [since, until, source, default]}."""
    import json
    seen = json.load(open(path))
    rows = []
    table = VLLM_ENVS if engine == "vllm" else SGLANG_ENVS
    for var, cls, reason in table:
        if var not in seen:
            continue
        since, until, src, default = seen[var]
        rows.append(["-", var, "value", since,
                     "-" if until == order[-1] else until, cls,
                     default or "-", reason, src, "env", "-",
                     "environment variable"])
    return rows
