/*
 * core/layout.c -- the size and field offsets of every public struct, as this
 * library was compiled, so a binding can prove its mirror of each struct
 * (tests/python/test_abi.py walks all of them).
 *
 * Each row names its field's type class, and the compiler checks that
 * class against the field's real type: a field whose type changes without
 * its row changing is a build error, not a silent drift.
 */
#include "internal.h"

#include <string.h>

typedef struct field_row {
    const char *name;
    const char *type; /* element type for arrays, "pointer" for pointers */
    size_t offset;
    size_t size;
} field_row;

typedef struct struct_row {
    const char *name;
    size_t size;
    const field_row *fields;
    size_t field_count;
} struct_row;

/*
 * 0 when the expression has the named type; a negative array size (a
 * compile error) otherwise.  _Generic's controlling expression is not
 * evaluated, and arrays are checked through their first element.
 */
#define KVB__TYPE_CHECK(expr, t)                                               \
    (0 * sizeof(char[_Generic((expr), t : 1, default : -1)]))
#define KVB__POINTER_CHECK(expr)                                               \
    (0 * sizeof(char[_Generic(                                                 \
             (expr), const kvb_model * : 1, const kvb_quant * : 1,             \
             const kvb_gpu * : 1, const kvb_serving * : 1, kvb_plan * : 1,     \
             const uint32_t * : 1, const uint64_t * : 1, const double * : 1,   \
             uint32_t * : 1, int32_t * : 1, uint64_t * : 1, double * : 1,      \
             const char * : 1, default                                         \
             : -1)]))

#define KVB__MEMBER(T, f) (((T *)0)->f)
/* A scalar field of C type `t`. */
#define F(T, f, t)                                                             \
    {                                                                          \
#f, #t, offsetof(T, f) + KVB__TYPE_CHECK(KVB__MEMBER(T, f), t),        \
            sizeof KVB__MEMBER(T, f)                                           \
    }
/* An array field of element type `t`. */
#define A(T, f, t)                                                             \
    {                                                                          \
#f, #t, offsetof(T, f) + KVB__TYPE_CHECK(KVB__MEMBER(T, f)[0], t),     \
            sizeof KVB__MEMBER(T, f)                                           \
    }
/* A pointer field. */
#define P(T, f)                                                                \
    {                                                                          \
#f, "pointer", offsetof(T, f) + KVB__POINTER_CHECK(KVB__MEMBER(T, f)), \
            sizeof KVB__MEMBER(T, f)                                           \
    }

#define T kvb_error
static const field_row error_fields[] = {
    F(T, struct_size, size_t), F(T, status, int32_t), A(T, field, char),
    A(T, message, char),       F(T, line, int64_t),   F(T, column, int64_t),
    F(T, offset, int64_t),     A(T, source, char),    A(T, reserved, uint8_t),
};
#undef T

#define T kvb_model
static const field_row model_fields[] = {
    F(T, struct_size, size_t),
    A(T, name, char),
    F(T, arch, int32_t),
    F(T, dtype, int32_t),
    F(T, flags, uint32_t),
    F(T, num_hidden_layers, uint32_t),
    F(T, hidden_size, uint64_t),
    F(T, num_attention_heads, uint32_t),
    F(T, num_key_value_heads, uint32_t),
    F(T, head_dim, uint32_t),
    F(T, intermediate_size, uint64_t),
    F(T, vocab_size, uint64_t),
    F(T, tie_word_embeddings, uint32_t),
    F(T, max_position_embeddings, uint64_t),
    F(T, position_embedding_rows, uint64_t),
    F(T, num_experts, uint32_t),
    F(T, num_experts_per_tok, uint32_t),
    F(T, moe_intermediate_size, uint64_t),
    F(T, num_shared_experts, uint32_t),
    F(T, shared_expert_intermediate_size, uint64_t),
    F(T, first_k_dense_replace, uint32_t),
    F(T, moe_layer_step, uint32_t),
    F(T, kv_lora_rank, uint32_t),
    F(T, q_lora_rank, uint32_t),
    F(T, qk_rope_head_dim, uint32_t),
    F(T, qk_nope_head_dim, uint32_t),
    F(T, v_head_dim, uint32_t),
    F(T, sliding_window, uint64_t),
    F(T, sliding_window_pattern, uint32_t),
    F(T, attention_chunk_size, uint64_t),
    F(T, attention_chunk_pattern, uint32_t),
    /* hybrid layers (@since 0.2) */
    A(T, layer_pattern, char),
    F(T, ssm_num_heads, uint32_t),
    F(T, ssm_head_dim, uint32_t),
    F(T, ssm_n_groups, uint32_t),
    F(T, ssm_state_size, uint32_t),
    F(T, ssm_conv_kernel, uint32_t),
    F(T, ssm_state_dtype, int32_t),
    F(T, rope_scaling_type, int32_t),
    F(T, rope_scaling_factor, double),
    F(T, original_max_position_embeddings, uint64_t),
    /* vision tower (@since 0.2) */
    F(T, vision_kind, int32_t),
    F(T, vision_num_layers, uint32_t),
    F(T, vision_hidden_size, uint64_t),
    F(T, vision_intermediate_size, uint64_t),
    F(T, vision_num_heads, uint32_t),
    F(T, vision_patch_size, uint32_t),
    F(T, vision_image_size, uint32_t),
    F(T, vision_spatial_merge, uint32_t),
    F(T, vision_out_hidden_size, uint64_t),
    F(T, vision_position_rows, uint32_t),
    F(T, vision_deepstack, uint32_t),
    F(T, index_n_heads, uint32_t),
    F(T, index_head_dim, uint32_t),
    F(T, index_topk, uint32_t),
    F(T, vision_global_layers, uint32_t),
    F(T, vision_max_tiles, uint32_t),
    F(T, vision_aspect_ratios, uint32_t),
    F(T, shared_blocks, uint32_t),
    F(T, adapter_rank, uint32_t),
    /* Gemma 3n (@since 0.2) */
    F(T, num_kv_shared_layers, uint32_t),
    F(T, hidden_size_per_layer_input, uint32_t),
    F(T, vocab_size_per_layer_input, uint64_t),
    F(T, altup_num_inputs, uint32_t),
    F(T, laurel_rank, uint32_t),
    F(T, audio_num_layers, uint32_t),
    F(T, audio_num_heads, uint32_t),
    F(T, audio_hidden_size, uint64_t),
    F(T, audio_conv_kernel, uint32_t),
    F(T, audio_input_features, uint32_t),
    F(T, audio_sscp_channels_1, uint32_t),
    F(T, audio_sscp_channels_2, uint32_t),
    F(T, mm_embed_vocab_size, uint32_t),
};
#undef T

#define T kvb_quant
static const field_row quant_fields[] = {
    F(T, struct_size, size_t),     F(T, method, int32_t),
    F(T, group_size, uint32_t),    F(T, dtype, int32_t),
    F(T, kv_cache_dtype, int32_t), F(T, fp8_scale, int32_t),
    F(T, flags, uint32_t),         F(T, keep_roles, uint64_t),
};
#undef T

#define T kvb_tensor
static const field_row tensor_fields[] = {
    F(T, struct_size, size_t), A(T, name, char),        F(T, role, int32_t),
    F(T, layer, int32_t),      F(T, experts, uint64_t), F(T, rows, uint64_t),
    F(T, cols, uint64_t),      F(T, params, uint64_t),  F(T, bytes, uint64_t),
    F(T, storage, int32_t),    F(T, split, int32_t),
};
#undef T

#define T kvb_weights
static const field_row weights_fields[] = {
    F(T, struct_size, size_t),          F(T, param_count, uint64_t),
    F(T, active_param_count, uint64_t), F(T, bytes, uint64_t),
    F(T, bytes_per_gpu, uint64_t),      F(T, quantized_params, uint64_t),
};
#undef T

#define T kvb_gpu
static const field_row gpu_fields[] = {
    F(T, struct_size, size_t),
    A(T, name, char),
    F(T, total_bytes, uint64_t),
    F(T, count, uint32_t),
    F(T, compute_capability, uint32_t),
    F(T, free_bytes, uint64_t),
    F(T, multiprocessor_count, uint32_t),
};
#undef T

#define T kvb_serving
static const field_row serving_fields[] = {
    F(T, struct_size, size_t),
    F(T, engine, int32_t),
    F(T, engine_version, uint32_t),
    F(T, gpu_memory_utilization, double),
    F(T, max_model_len, uint64_t),
    F(T, concurrency, uint32_t),
    F(T, tensor_parallel_size, uint32_t),
    F(T, pipeline_parallel_size, uint32_t),
    F(T, block_size, uint32_t),
    F(T, enforce_eager, uint32_t),
    F(T, max_num_seqs, uint32_t),
    F(T, max_num_batched_tokens, uint64_t),
    F(T, enable_chunked_prefill, int32_t),
    F(T, disable_hybrid_kv_cache, uint32_t),
    F(T, enable_expert_parallel, uint32_t),
    F(T, kv_cache_memory_bytes, uint64_t),
    F(T, cuda_context_bytes, uint64_t),
    F(T, non_torch_bytes, uint64_t),
    F(T, activation_bytes, uint64_t),
    F(T, cudagraph_bytes, uint64_t),
    F(T, weights_bytes, uint64_t),
    F(T, loaded_weights_bytes, uint64_t),
    F(T, accounting, int32_t),
    F(T, data_parallel_size, uint32_t),
    F(T, enable_dp_attention, uint32_t),
    F(T, cuda_graph_max_bs, uint32_t),
    F(T, context_size, uint64_t),
    F(T, n_gpu_layers, uint32_t),
    F(T, n_cpu_moe, uint32_t),
    F(T, ubatch_size, uint32_t),
    F(T, cache_type_k, int32_t),
    F(T, cache_type_v, int32_t),
    F(T, flash_attn, int32_t),
    F(T, swa_full, uint32_t),
    F(T, kv_unified, uint32_t),
    F(T, backend, int32_t),
    F(T, max_total_tokens, uint64_t),
    F(T, max_input_tokens, uint64_t),
    F(T, gpu_overhead_bytes, uint64_t),
    F(T, host_memory_bytes, uint64_t),
    F(T, gpus_per_node, uint32_t),
    /* multimodal (@since 0.2) */
    F(T, mm_disabled, uint32_t),
    F(T, mm_encoder_tp_mode, int32_t),
    F(T, mmproj, uint32_t),
    F(T, mmproj_type, int32_t),
};
#undef T

#define T kvb_plan
static const field_row plan_fields[] = {
    F(T, struct_size, size_t),
    F(T, engine, int32_t),
    F(T, engine_version, uint32_t),
    F(T, accounting, int32_t),
    F(T, gpu_memory_utilization, double),
    F(T, gpu_total_bytes, uint64_t),
    F(T, tensor_parallel_size, uint32_t),
    F(T, pipeline_parallel_size, uint32_t),
    F(T, max_model_len, uint64_t),
    F(T, block_size, uint32_t),
    F(T, max_num_seqs, uint32_t),
    F(T, max_num_batched_tokens, uint64_t),
    F(T, concurrency, uint32_t),
    F(T, param_count, uint64_t),
    F(T, weights_bytes, uint64_t),
    F(T, weights_bytes_per_gpu, uint64_t),
    F(T, usable_bytes_per_gpu, uint64_t),
    F(T, cuda_context_bytes_per_gpu, uint64_t),
    F(T, non_torch_bytes_per_gpu, uint64_t),
    F(T, activation_bytes_per_gpu, uint64_t),
    F(T, cudagraph_bytes_per_gpu, uint64_t),
    F(T, cudagraph_in_budget, uint32_t),
    F(T, kv_budget_bytes_per_gpu, uint64_t),
    F(T, kv_shortfall_bytes_per_gpu, uint64_t),
    F(T, headroom_bytes_per_gpu, uint64_t),
    F(T, startup_free_bytes_per_gpu, uint64_t),
    F(T, kv_bytes_per_token, uint64_t),
    F(T, kv_bytes_per_token_per_gpu, uint64_t),
    F(T, block_bytes_per_gpu, uint64_t),
    F(T, kv_cache_groups, uint32_t),
    F(T, num_blocks, uint64_t),
    F(T, max_kv_tokens, uint64_t),
    F(T, max_concurrency, double),
    F(T, kv_needed_bytes_per_gpu, uint64_t),
    F(T, max_model_len_fit, uint64_t),
    F(T, fits, uint32_t),
    F(T, verdict, int32_t),
    A(T, message, char),
    F(T, data_parallel_size, uint32_t),
    F(T, nodes, uint32_t),
    F(T, gpus_per_node, uint32_t),
    F(T, layers_on_gpu, uint32_t),
    F(T, layers_total, uint32_t),
    F(T, kv_cache_bytes_per_gpu, uint64_t),
    F(T, compute_buffer_bytes_per_gpu, uint64_t),
    F(T, host_bytes, uint64_t),
    F(T, max_total_tokens, uint64_t),
    F(T, context_size, uint64_t),
    A(T, warning, char),
};
#undef T

#define T kvb_instance
static const field_row instance_fields[] = {
    F(T, struct_size, size_t),
    A(T, name, char),
    A(T, cloud, char),
    A(T, gpu_name, char),
    F(T, gpu_count, uint32_t),
    F(T, vcpus, uint32_t),
    F(T, host_memory_bytes, uint64_t),
    F(T, price_per_hour, double),
};
#undef T

#define T kvb_advice_options
static const field_row advice_options_fields[] = {
    F(T, struct_size, size_t),
    A(T, instance, char),
    A(T, cloud, char),
    F(T, max_instances, uint32_t),
    F(T, max_quant, uint32_t),
    F(T, max_gpus, uint32_t),
    F(T, min_utilization, double),
    F(T, max_utilization, double),
    F(T, max_price_per_hour, double),
    F(T, measured_max_model_len, uint64_t),
};
#undef T

#define T kvb_check_options
static const field_row check_options_fields[] = {
    F(T, struct_size, size_t),
    A(T, gpu, char),
    A(T, instance, char),
    F(T, max_fixes, uint32_t),
};
#undef T

#define T kvb_fix
static const field_row fix_fields[] = {
    F(T, struct_size, size_t),
    F(T, kind, int32_t),
    F(T, fits, uint32_t),
    F(T, verdict, int32_t),
    F(T, quant_method, int32_t),
    F(T, kv_cache_dtype, int32_t),
    F(T, enforce_eager, uint32_t),
    F(T, gpu_memory_utilization, double),
    F(T, max_model_len, uint64_t),
    F(T, tensor_parallel_size, uint32_t),
    F(T, pipeline_parallel_size, uint32_t),
    A(T, gpu_name, char),
    F(T, gpu_total_bytes, uint64_t),
    F(T, gpu_count, uint32_t),
    F(T, gpu_compute_capability, uint32_t),
    F(T, gpu_multiprocessor_count, uint32_t),
    A(T, instance, char),
    A(T, cloud, char),
    F(T, price_per_hour, double),
    F(T, weights_bytes, uint64_t),
    F(T, weights_bytes_per_gpu, uint64_t),
    F(T, kv_budget_bytes_per_gpu, uint64_t),
    F(T, max_kv_tokens, uint64_t),
    F(T, max_concurrency, double),
    F(T, max_model_len_fit, uint64_t),
    A(T, title, char),
    A(T, note, char),
    F(T, engine, int32_t),
    A(T, checkpoint, char),
    F(T, changes, uint32_t),
    F(T, gives_up, uint32_t),
    F(T, pareto, uint32_t),
    F(T, price_per_gpu_hour, double),
    F(T, usd_per_million_tokens, double),
};
#undef T

#define T kvb_log_facts
static const field_row log_facts_fields[] = {
    F(T, struct_size, size_t),
    F(T, present, uint64_t),
    F(T, failure, int32_t),
    F(T, oom_phase, int32_t),
    F(T, accounting, int32_t),
    F(T, engine_version, uint32_t),
    A(T, model, char),
    A(T, quantization, char),
    A(T, dtype, char),
    A(T, kv_cache_dtype, char),
    A(T, gpu_name, char),
    F(T, max_model_len, uint64_t),
    F(T, gpu_memory_utilization, double),
    F(T, tensor_parallel_size, uint32_t),
    F(T, pipeline_parallel_size, uint32_t),
    F(T, enforce_eager, uint32_t),
    F(T, block_size, uint32_t),
    F(T, max_num_seqs, uint32_t),
    F(T, max_num_batched_tokens, uint64_t),
    F(T, gpu_total_bytes, uint64_t),
    F(T, startup_free_bytes, uint64_t),
    F(T, requested_bytes, uint64_t),
    F(T, weights_bytes, uint64_t),
    F(T, consumed_bytes, uint64_t),
    F(T, non_torch_bytes, uint64_t),
    F(T, activation_bytes, uint64_t),
    F(T, cudagraph_bytes, int64_t),
    F(T, kv_cache_bytes, int64_t),
    F(T, gpu_blocks, uint64_t),
    F(T, cpu_blocks, uint64_t),
    F(T, kv_cache_tokens, uint64_t),
    F(T, max_concurrency, double),
    F(T, kv_needed_bytes, uint64_t),
    F(T, estimated_max_model_len, uint64_t),
    F(T, oom_tried_bytes, uint64_t),
    F(T, oom_free_bytes, uint64_t),
    F(T, oom_in_use_bytes, uint64_t),
    F(T, oom_gpu_index, uint32_t),
    A(T, failure_text, char),
    A(T, engine_line, char),
    F(T, engine, int32_t),
    F(T, max_total_tokens, uint64_t),
    F(T, context_size, uint64_t),
    F(T, n_parallel, uint32_t),
    F(T, layers_on_gpu, uint32_t),
    F(T, layers_total, uint32_t),
    F(T, compute_buffer_bytes, uint64_t),
    F(T, available_bytes, uint64_t),
};
#undef T

#define T kvb_command
static const field_row command_fields[] = {
    F(T, struct_size, size_t),
    F(T, engine, int32_t),
    F(T, engine_version, uint32_t),
    A(T, program, char),
    A(T, model, char),
    A(T, quantization, char),
    A(T, dtype, char),
    A(T, kv_cache_dtype, char),
    A(T, ignored, char),
    A(T, warning, char),
};
#undef T

#define T kvb_read_info
static const field_row read_info_fields[] = {
    F(T, struct_size, size_t),     F(T, format, int32_t),
    F(T, weights_format, int32_t), F(T, weights_bytes, uint64_t),
    F(T, tensor_count, uint64_t),  F(T, fields_from_file, uint64_t),
    F(T, header_bytes, uint64_t),  F(T, shard_count, uint32_t),
    F(T, file_version, uint32_t),  F(T, warning_count, uint32_t),
    A(T, arch_name, char),         A(T, warning, char),
    F(T, options, uint32_t),
};
#undef T

#define T kvb_ref_options
static const field_row ref_options_fields[] = {
    F(T, struct_size, size_t),
    P(T, hf_endpoint),
    P(T, hf_token),
    P(T, hf_cache),
    P(T, ollama_models),
    F(T, flags, uint32_t),
    F(T, max_parallel, uint32_t),
    F(T, max_retries, uint32_t),
    F(T, timeout_ms, uint32_t),
    F(T, backoff_ms, uint32_t),
};
#undef T

#define T kvb_ref_info
static const field_row ref_info_fields[] = {
    F(T, struct_size, size_t),
    F(T, source, int32_t),
    F(T, http_requests, uint32_t),
    F(T, http_bytes, uint64_t),
    A(T, repo, char),
    A(T, revision, char),
    A(T, commit, char),
    A(T, file, char),
    A(T, path, char),
    F(T, file_count, uint32_t),
    F(T, split_count, uint32_t),
    F(T, num_ctx, int64_t),
    F(T, num_batch, int64_t),
    F(T, num_gpu, int64_t),
    F(T, num_predict, int64_t),
    A(T, params, char),
};
#undef T

#define T kvb_device
static const field_row device_fields[] = {
    F(T, struct_size, size_t),
    F(T, index, int32_t),
    A(T, name, char),
    F(T, total_bytes, uint64_t),
    F(T, free_bytes, uint64_t),
    F(T, used_by_others_bytes, uint64_t),
    F(T, compute_capability, uint32_t),
    F(T, multiprocessor_count, uint32_t),
    A(T, uuid, char),
    A(T, driver_version, char),
    F(T, cuda_driver_version, uint32_t),
};
#undef T

#define T kvb_validation_stage
static const field_row validation_stage_fields[] = {
    F(T, predicted_bytes, uint64_t), F(T, requested_bytes, uint64_t),
    F(T, observed_bytes, uint64_t),  F(T, allocations, uint32_t),
    F(T, allocated, uint32_t),       F(T, error, double),
};
#undef T

#define T kvb_validation
static const field_row validation_fields[] = {
    F(T, struct_size, size_t),
    F(T, device_index, int32_t),
    A(T, device_name, char),
    F(T, total_bytes, uint64_t),
    F(T, free_start_bytes, uint64_t),
    F(T, free_end_bytes, uint64_t),
    F(T, gpu_memory_utilization, double),
    F(T, plan_verdict, int32_t),
    F(T, num_blocks, uint64_t),
    F(T, block_bytes, uint64_t),
    F(T, weights_tensors, uint32_t),
    F(T, kv_tensors, uint32_t),
    F(T, stage_count, uint32_t),
    A(T, stages, kvb_validation_stage),
    F(T, failed_stage, int32_t),
    F(T, failed_bytes, uint64_t),
    F(T, max_error, double),
    F(T, tolerance, double),
    F(T, tight_checked, uint32_t),
    F(T, tight_utilization, double),
    F(T, tight_allowance_bytes, uint64_t),
    F(T, tight_num_blocks, uint64_t),
    F(T, tight_fits, uint32_t),
    F(T, tight_free_bytes, uint64_t),
    F(T, tight_over_fraction, double),
    F(T, tight_over_num_blocks, uint64_t),
    F(T, tight_over_fits, uint32_t),
    F(T, tight, uint32_t),
    F(T, valid, uint32_t),
    A(T, message, char),
};
#undef T

#define T kvb_batch
static const field_row batch_fields[] = {
    F(T, struct_size, size_t),
    P(T, models),
    P(T, quants),
    P(T, gpus),
    P(T, servings),
    F(T, num_models, uint32_t),
    F(T, num_quants, uint32_t),
    F(T, num_gpus, uint32_t),
    F(T, num_servings, uint32_t),
    F(T, count, uint64_t),
    P(T, model_index),
    P(T, quant_index),
    P(T, gpu_index),
    P(T, serving_index),
    P(T, tensor_parallel_size),
    P(T, pipeline_parallel_size),
    P(T, max_model_len),
    P(T, gpu_memory_utilization),
    P(T, concurrency),
    P(T, max_num_seqs),
    P(T, gpu_count),
    P(T, status),
    P(T, fits),
    P(T, verdict),
    P(T, weights_bytes_per_gpu),
    P(T, kv_budget_bytes_per_gpu),
    P(T, max_kv_tokens),
    P(T, max_concurrency),
    P(T, max_model_len_fit),
    P(T, num_blocks),
    P(T, plans),
    F(T, plan_size, size_t),
};
#undef T

#undef F
#undef A
#undef P

#define S(T, rows)                                                             \
    {                                                                          \
#T, sizeof(T), rows, KVB__ARRAY_LEN(rows)                              \
    }
/* In header order.  A new public struct gets a row here (the Python test
 * checks every `typedef struct kvb_...` of the header is listed). */
static const struct_row structs[] = {
    S(kvb_error, error_fields),
    S(kvb_model, model_fields),
    S(kvb_quant, quant_fields),
    S(kvb_tensor, tensor_fields),
    S(kvb_weights, weights_fields),
    S(kvb_gpu, gpu_fields),
    S(kvb_serving, serving_fields),
    S(kvb_plan, plan_fields),
    S(kvb_instance, instance_fields),
    S(kvb_advice_options, advice_options_fields),
    S(kvb_fix, fix_fields),
    S(kvb_log_facts, log_facts_fields),
    S(kvb_read_info, read_info_fields),
    S(kvb_ref_options, ref_options_fields),
    S(kvb_ref_info, ref_info_fields),
    S(kvb_device, device_fields),
    S(kvb_validation_stage, validation_stage_fields),
    S(kvb_validation, validation_fields),
    S(kvb_batch, batch_fields),
    S(kvb_command, command_fields),
    S(kvb_check_options, check_options_fields),
};
#undef S

size_t kvb_layout_count(void)
{
    return KVB__ARRAY_LEN(structs);
}

kvb_status kvb_layout_struct_get(size_t index, const char **name, size_t *size,
                                 size_t *field_count, kvb_error *err)
{
    if (index >= KVB__ARRAY_LEN(structs))
        return kvb__fail(err, KVB_ERANGE, "index",
                         "index (%zu) is past the last struct; allowed: "
                         "0..%zu",
                         index, KVB__ARRAY_LEN(structs) - 1);
    const struct_row *s = &structs[index];
    if (name)
        *name = s->name;
    if (size)
        *size = s->size;
    if (field_count)
        *field_count = s->field_count;
    return KVB_OK;
}

kvb_status kvb_layout_field_get(size_t index, size_t field, const char **name,
                                const char **type, size_t *offset, size_t *size,
                                kvb_error *err)
{
    kvb_status st = kvb_layout_struct_get(index, NULL, NULL, NULL, err);
    if (st)
        return st;
    const struct_row *s = &structs[index];
    if (field >= s->field_count)
        return kvb__fail(err, KVB_ERANGE, "field",
                         "field (%zu) is past the last field of %s; "
                         "allowed: 0..%zu",
                         field, s->name, s->field_count - 1);
    const field_row *f = &s->fields[field];
    if (name)
        *name = f->name;
    if (type)
        *type = f->type;
    if (offset)
        *offset = f->offset;
    if (size)
        *size = f->size;
    return KVB_OK;
}
