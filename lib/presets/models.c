/*
 * presets/models.c -- built-in model architectures.
 *
 * Each row: name, aliases (Hugging Face repository names), source, the
 * published parameter count, and the architecture as its config.json
 * gives it.  The figures were researched in shared/data/models.json; every
 * row names the public config it copies and where its count comes from.
 * tests/unit/test_presets.c checks that the tensor inventory reproduces
 * each published count exactly.
 *
 * Conventions: head_dim is set only where the config sets it explicitly
 * (otherwise hidden_size / heads); intermediate_size is the dense MLP
 * width (Llama 4: intermediate_size_mlp); sliding_window_pattern p means
 * layer i is global iff (i+1) % p == 0 (Gemma 2 and gpt-oss alternate,
 * Gemma 3 is 5 local : 1 global); Llama 4 chunks 3 of every 4 layers.
 */
#include "internal.h"

/* Vision towers shared by several rows (model/vision.c walks them).
 * SigLIP-so400m at 896 px: Gemma 3 4B/12B/27B config.json vision_config
 * (27 x 1152, 4304, 16 heads, patch 14). */
#define KVB__SIGLIP_TOWER                                                      \
    .vision_kind = KVB_VISION_SIGLIP, .vision_num_layers = 27u,                \
    .vision_hidden_size = 1152u, .vision_intermediate_size = 4304u,            \
    .vision_num_heads = 16u, .vision_patch_size = 14u,                         \
    .vision_image_size = 896u
/* Llama 4 Scout and Maverick config.json vision_config: 34 x 1408, 5632,
 * 16 heads, 336 px, patch 14, projector 4096. */
#define KVB__LLAMA4_TOWER                                                      \
    .vision_kind = KVB_VISION_LLAMA4, .vision_num_layers = 34u,                \
    .vision_hidden_size = 1408u, .vision_intermediate_size = 5632u,            \
    .vision_num_heads = 16u, .vision_patch_size = 14u,                         \
    .vision_image_size = 336u, .vision_out_hidden_size = 4096u
/* Qwen2.5-VL vision_config: depth 32, 1280 wide, 16 heads, patch 14,
 * merge 2; the MLP width and out_hidden_size differ by size. */
#define KVB__QWEN25_VL_TOWER(ff, out)                                          \
    .vision_kind = KVB_VISION_QWEN2_5_VL, .vision_num_layers = 32u,            \
    .vision_hidden_size = 1280u, .vision_intermediate_size = (ff),             \
    .vision_num_heads = 16u, .vision_patch_size = 14u,                         \
    .vision_spatial_merge = 2u, .vision_out_hidden_size = (out)

/* The DeepSeek-V3 config.json shape (tests/data/configs/deepseek-v3.json),
 * which DeepSeek-V3.1 and DeepSeek-V3.2-Exp keep (their rows cite it;
 * V3.2-Exp adds its indexer keys). */
#define KVB__DEEPSEEK_V3_SHAPE                                                 \
    .arch = KVB_ARCH_DEEPSEEK_V3, .dtype = KVB_DTYPE_BF16,                     \
    .flags = KVB_MODEL_ROUTER_SCORE_BIAS, .num_hidden_layers = 61u,            \
    .hidden_size = 7168u, .num_attention_heads = 128u,                         \
    .num_key_value_heads = 128u, .intermediate_size = 18432u,                  \
    .vocab_size = 129280u, .max_position_embeddings = 163840u,                 \
    .num_experts = 256u, .num_experts_per_tok = 8u,                            \
    .moe_intermediate_size = 2048u, .num_shared_experts = 1u,                  \
    .first_k_dense_replace = 3u, .kv_lora_rank = 512u, .q_lora_rank = 1536u,   \
    .qk_rope_head_dim = 64u, .qk_nope_head_dim = 128u, .v_head_dim = 128u

const kvb__model_row kvb__model_rows[] = {
    {"Llama-2-7B",
     "meta-llama/Llama-2-7b-hf,Llama-2-7b-hf",
     "config: github:inference-sim/inference-sim"
     " model_configs/llama-2-7b-hf/config.json (copy of HF"
     " config.json); also github:mlc-ai/mlc-llm"
     " python/mlc_llm/model/model_preset.py (verbatim copy of the HF"
     " config.json) (llama2_7b; the MLC preset sets"
     " max_position_embeddings 2048 = the very first HF upload, current"
     " HF config says 4096); parameter count: computed from the config"
     " with the standard tensor inventory (embed, [lm_head unless"
     " tied], per layer q/k/v/o [+biases/qk-norms], MLP/experts, norms,"
     " final norm); exact integer; matches the widely quoted"
     " 6,738,415,616",
     6738415616ull,
     {
         .arch = KVB_ARCH_LLAMA,
         .dtype = KVB_DTYPE_FP16,
         .flags = 0,
         .num_hidden_layers = 32u,
         .hidden_size = 4096u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 32u,
         .intermediate_size = 11008u,
         .vocab_size = 32000u,
         .max_position_embeddings = 4096u,
     }},
    {"Llama-2-70B",
     "meta-llama/Llama-2-70b-hf,Llama-2-70b-hf",
     "config: github:mlc-ai/mlc-llm"
     " python/mlc_llm/model/model_preset.py (verbatim copy of the HF"
     " config.json) (llama2_70b; preset shows max_position_embeddings"
     " 2048 -- current HF config is 4096); parameter count: computed"
     " from the config with the standard tensor inventory (embed,"
     " [lm_head unless tied], per layer q/k/v/o [+biases/qk-norms],"
     " MLP/experts, norms, final norm); exact integer",
     68976648192ull,
     {
         .arch = KVB_ARCH_LLAMA,
         .dtype = KVB_DTYPE_FP16,
         .flags = 0,
         .num_hidden_layers = 80u,
         .hidden_size = 8192u,
         .num_attention_heads = 64u,
         .num_key_value_heads = 8u,
         .intermediate_size = 28672u,
         .vocab_size = 32000u,
         .max_position_embeddings = 4096u,
     }},
    {"Llama-3.1-8B",
     "meta-llama/Llama-3.1-8B,meta-llama/"
     "Llama-3.1-8B-Instruct,Llama-3.1-8B-Instruct",
     "config: github:mlc-ai/mlc-llm"
     " python/mlc_llm/model/model_preset.py (verbatim copy of the HF"
     " config.json) (llama3_1_8b); github:inference-sim/inference-sim"
     " model_configs/llama-3.1-8b-instruct/config.json (copy of HF"
     " config.json); oumi configs/recipes/llama3_1/README.md table"
     " agrees; parameter count: computed from the config with the"
     " standard tensor inventory (embed, [lm_head unless tied], per"
     " layer q/k/v/o [+biases/qk-norms], MLP/experts, norms, final"
     " norm); exact integer; 2x equals the verified total_size below",
     8030261248ull,
     {
         .arch = KVB_ARCH_LLAMA,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 32u,
         .hidden_size = 4096u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 8u,
         .intermediate_size = 14336u,
         .vocab_size = 128256u,
         .max_position_embeddings = 131072u,
     }},
    {"Llama-3.1-70B",
     "meta-llama/Llama-3.1-70B,meta-llama/"
     "Llama-3.1-70B-Instruct,Llama-3.1-70B-Instruct",
     "config: github:mlc-ai/mlc-llm"
     " python/mlc_llm/model/model_preset.py (verbatim copy of the HF"
     " config.json) (llama3_1_70b); github:inference-sim/inference-sim"
     " model_configs/llama-3.1-70b-instruct/config.json (copy of HF"
     " config.json); parameter count: computed from the config with the"
     " standard tensor inventory (embed, [lm_head unless tied], per"
     " layer q/k/v/o [+biases/qk-norms], MLP/experts, norms, final"
     " norm); exact integer; 2x equals verified total_size",
     70553706496ull,
     {
         .arch = KVB_ARCH_LLAMA,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 80u,
         .hidden_size = 8192u,
         .num_attention_heads = 64u,
         .num_key_value_heads = 8u,
         .intermediate_size = 28672u,
         .vocab_size = 128256u,
         .max_position_embeddings = 131072u,
     }},
    {"Llama-3.1-405B",
     "meta-llama/Llama-3.1-405B,meta-llama/"
     "Llama-3.1-405B-Instruct,Llama-3.1-405B-Instruct",
     "config: HF config copies in public documentation copy:"
     " relaxml/Llama-3.1-405B-Instruct-QTIP-* (num_key_value_heads 8,"
     " head_dim 128); migtissera/Meta-Llama-3.1-405B,"
     " axolotl-ai-co/meta-llama-3_1-405b-hqq-4bit, radi-cho/...-FLUTE"
     " copies show num_key_value_heads 16 (the first upload). Current"
     " official value is 8 (UNCERTAIN which your users have; both param"
     " counts given); parameter count: computed from the config with"
     " the standard tensor inventory (embed, [lm_head unless tied], per"
     " layer q/k/v/o [+biases/qk-norms], MLP/experts, norms, final"
     " norm); exact integer",
     405853388800ull,
     {
         .arch = KVB_ARCH_LLAMA,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 126u,
         .hidden_size = 16384u,
         .num_attention_heads = 128u,
         .num_key_value_heads = 8u,
         .intermediate_size = 53248u,
         .vocab_size = 128256u,
         .max_position_embeddings = 131072u,
     }},
    {"Llama-3.2-1B",
     "meta-llama/Llama-3.2-1B",
     "config: github:mlc-ai/mlc-llm"
     " python/mlc_llm/model/model_preset.py (verbatim copy of the HF"
     " config.json) (llama3_2_1b); parameter count: computed from the"
     " config with the standard tensor inventory (embed, [lm_head"
     " unless tied], per layer q/k/v/o [+biases/qk-norms], MLP/experts,"
     " norms, final norm); exact integer (tied: lm_head not counted)",
     1235814400ull,
     {
         .arch = KVB_ARCH_LLAMA,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 16u,
         .hidden_size = 2048u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 8u,
         .head_dim = 64u,
         .intermediate_size = 8192u,
         .vocab_size = 128256u,
         .tie_word_embeddings = 1u,
         .max_position_embeddings = 131072u,
     }},
    {"Llama-3.2-3B",
     "meta-llama/Llama-3.2-3B",
     "config: github:mlc-ai/mlc-llm"
     " python/mlc_llm/model/model_preset.py (verbatim copy of the HF"
     " config.json) (llama3_2_3b); parameter count: computed from the"
     " config with the standard tensor inventory (embed, [lm_head"
     " unless tied], per layer q/k/v/o [+biases/qk-norms], MLP/experts,"
     " norms, final norm); exact integer (tied)",
     3212749824ull,
     {
         .arch = KVB_ARCH_LLAMA,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 28u,
         .hidden_size = 3072u,
         .num_attention_heads = 24u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 8192u,
         .vocab_size = 128256u,
         .tie_word_embeddings = 1u,
         .max_position_embeddings = 131072u,
     }},
    {"Llama-3.2-11B-Vision",
     "meta-llama/Llama-3.2-11B-Vision,meta-llama/"
     "Llama-3.2-11B-Vision-Instruct,Llama-3.2-11B-Vision-Instruct",
     "config: tests/data/configs/llama-3.2-11b-vision-instruct.json"
     " (assembled from public copies of Meta's config.json, see"
     " SOURCES.md); parameter count: computed from the config with the"
     " tensor inventory (embed_tokens vocab + 8 rows, lm_head, 32"
     " self-attention and 8 cross-attention layers with q/k norms and"
     " tanh gates, MllamaVisionModel and multi_modal_projector);"
     " 10,670,220,835 = the count Hugging Face publishes for"
     " meta-llama/Llama-3.2-11B-Vision-Instruct (model card: 10.6B)",
     10670220835ull,
     {
         .arch = KVB_ARCH_MLLAMA,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 40u,
         .hidden_size = 4096u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 8u,
         .intermediate_size = 14336u,
         .vocab_size = 128256u,
         .max_position_embeddings = 131072u,
         .layer_pattern = "AAAXAAAAXAAAAXAAAAXAAAAXAAAAXAAAAXAAAAXA",
         .rope_scaling_type = KVB_ROPE_LLAMA3,
         .rope_scaling_factor = 8.0,
         .original_max_position_embeddings = 8192u,
         .vision_kind = KVB_VISION_MLLAMA,
         .vision_num_layers = 32u,
         .vision_hidden_size = 1280u,
         .vision_intermediate_size = 5120u,
         .vision_num_heads = 16u,
         .vision_patch_size = 14u,
         .vision_image_size = 560u,
         .vision_out_hidden_size = 7680u,
         .vision_global_layers = 8u,
         .vision_max_tiles = 4u,
         .vision_aspect_ratios = 8u,
     }},
    {"Llama-4-Scout-17B-16E",
     "meta-llama/Llama-4-Scout-17B-16E,meta-llama/"
     "Llama-4-Scout-17B-16E-Instruct,Llama-4-Scout-17B-16E-Instruct",
     "config: github:inference-sim/inference-sim"
     " model_configs/llama-4-scout-17b-16e-instruct-fp8-dynamic/config.j"
     "son (copy of HF config.json) (RedHatAI FP8-dynamic copy;"
     " text_config unchanged from Meta); parameter count: computed from"
     " the config with the standard tensor inventory (embed, [lm_head"
     " unless tied], per layer q/k/v/o [+biases/qk-norms], MLP/experts,"
     " norms, final norm); exact integer; published figures from HF"
     " blog 'Welcome Llama 4 Maverick & Scout' (public code) and Meta"
     " model card; vision tower from the same file's vision_config"
     " (model/vision.c); 108,641,793,536 = HF safetensors total of"
     " meta-llama/Llama-4-Scout-17B-16E-Instruct (tower and projector"
     " included; 107,769,861,120 text only)",
     108641793536ull,
     {
         .arch = KVB_ARCH_LLAMA4,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 48u,
         .hidden_size = 5120u,
         .num_attention_heads = 40u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 16384u,
         .vocab_size = 202048u,
         .max_position_embeddings = 10485760u,
         .num_experts = 16u,
         .num_experts_per_tok = 1u,
         .moe_intermediate_size = 8192u,
         .num_shared_experts = 1u,
         .attention_chunk_size = 8192u,
         .attention_chunk_pattern = 4u,
         KVB__LLAMA4_TOWER,
     }},
    {"Llama-4-Maverick-17B-128E",
     "meta-llama/Llama-4-Maverick-17B-128E,meta-llama/"
     "Llama-4-Maverick-17B-128E-Instruct,Llama-4-Maverick-17B-128E-Instruct",
     "config: Megatron launch script in public code for"
     " Llama-4-Maverick-17B-128E-Instruct-FP8 (48 layers, 5120 hidden,"
     " ffn 16384, 40 heads, 8 query groups, 128 experts, moe-ffn 8192,"
     " moe-layer-freq ([0,1]*24)); vocab/max_pos/chunk from memory of"
     " HF config -- UNCERTAIN for those three; parameter count:"
     " computed from the config with the standard tensor inventory"
     " (embed, [lm_head unless tied], per layer q/k/v/o"
     " [+biases/qk-norms], MLP/experts, norms, final norm); exact"
     " integer; published: HF blog / Meta card; plus Scout's vision"
     " tower (Maverick's config.json has the same vision_config):"
     " 400,711,848,960 text + 871,932,416 tower",
     401583781376ull,
     {
         .arch = KVB_ARCH_LLAMA4,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 48u,
         .hidden_size = 5120u,
         .num_attention_heads = 40u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 16384u,
         .vocab_size = 202048u,
         .max_position_embeddings = 1048576u,
         .num_experts = 128u,
         .num_experts_per_tok = 1u,
         .moe_intermediate_size = 8192u,
         .num_shared_experts = 1u,
         .moe_layer_step = 2u,
         .attention_chunk_size = 8192u,
         .attention_chunk_pattern = 4u,
         KVB__LLAMA4_TOWER,
     }},
    {"Mistral-7B-v0.1",
     "mistralai/Mistral-7B-v0.1",
     "config: github:mlc-ai/mlc-llm"
     " python/mlc_llm/model/model_preset.py (verbatim copy of the HF"
     " config.json) (mistral_7b; MLC renames it sliding_window_size; HF"
     " config has sliding_window 4096 on all layers); parameter count:"
     " computed from the config with the standard tensor inventory"
     " (embed, [lm_head unless tied], per layer q/k/v/o"
     " [+biases/qk-norms], MLP/experts, norms, final norm); exact"
     " integer",
     7241732096ull,
     {
         .arch = KVB_ARCH_MISTRAL,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 32u,
         .hidden_size = 4096u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 8u,
         .intermediate_size = 14336u,
         .vocab_size = 32000u,
         .max_position_embeddings = 32768u,
         .sliding_window = 4096u,
     }},
    {"Mistral-7B-v0.3",
     "mistralai/Mistral-7B-v0.3",
     "config: github:mlc-ai/mlc-llm"
     " python/mlc_llm/model/model_preset.py (verbatim copy of the HF"
     " config.json) (mistral_7b_v03); parameter count: computed from"
     " the config with the standard tensor inventory (embed, [lm_head"
     " unless tied], per layer q/k/v/o [+biases/qk-norms], MLP/experts,"
     " norms, final norm); exact integer",
     7248023552ull,
     {
         .arch = KVB_ARCH_MISTRAL,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 32u,
         .hidden_size = 4096u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 8u,
         .intermediate_size = 14336u,
         .vocab_size = 32768u,
         .max_position_embeddings = 32768u,
     }},
    {"Mistral-Small-24B-2501",
     "mistralai/Mistral-Small-24B-Base-2501,Mistral-Small-24B-Base-2501,"
     "mistralai/"
     "Mistral-Small-24B-Instruct-2501,Mistral-Small-24B-Instruct-2501",
     "config: HF config.json copies in public documentation copy"
     " (ReadyArt/...-24B and jhu-clsp/rank1-mistral-2501-24b with"
     " _name_or_path mistralai/Mistral-Small-24B-*-2501); note"
     " head_dim*heads=4096 != hidden 5120. Mistral-Small-3.1-24B-2503"
     " text_config identical but max_position_embeddings 131072,"
     " rope_theta 1e9; parameter count: computed from the config with"
     " the standard tensor inventory (embed, [lm_head unless tied], per"
     " layer q/k/v/o [+biases/qk-norms], MLP/experts, norms, final"
     " norm); exact integer",
     23572403200ull,
     {
         .arch = KVB_ARCH_MISTRAL,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 40u,
         .hidden_size = 5120u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 32768u,
         .vocab_size = 131072u,
         .max_position_embeddings = 32768u,
     }},
    {"Mixtral-8x7B",
     "mistralai/Mixtral-8x7B-v0.1,Mixtral-8x7B-v0.1",
     "config: huggingface.co/mistralai/Mixtral-8x7B-Instruct-v0.1/blob/e"
     "ba9230.../config.json (public copy); github:mlc-ai/mlc-llm"
     " python/mlc_llm/model/model_preset.py (verbatim copy of the HF"
     " config.json); parameter count: computed from the config with the"
     " standard tensor inventory (embed, [lm_head unless tied], per"
     " layer q/k/v/o [+biases/qk-norms], MLP/experts, norms, final"
     " norm); exact integer; active = attn + 2 experts + router + embed"
     " + lm_head",
     46702792704ull,
     {
         .arch = KVB_ARCH_MIXTRAL,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 32u,
         .hidden_size = 4096u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 8u,
         .intermediate_size = 14336u,
         .vocab_size = 32000u,
         .max_position_embeddings = 32768u,
         .num_experts = 8u,
         .num_experts_per_tok = 2u,
         .moe_intermediate_size = 14336u,
     }},
    {"Mixtral-8x22B",
     "mistralai/Mixtral-8x22B-v0.1,Mixtral-8x22B-v0.1",
     "config: HF config copies in public documentation copy (jsfs11/..."
     " _name_or_path mistralai/Mixtral-8x22B-Instruct-v0.1;"
     " second-state/xLAM-8x22b-r); the older"
     " mistral-community/Mixtral-8x22B-v0.1 conversion had vocab_size"
     " 32000; parameter count: computed from the config with the"
     " standard tensor inventory (embed, [lm_head unless tied], per"
     " layer q/k/v/o [+biases/qk-norms], MLP/experts, norms, final"
     " norm); exact integer",
     140630071296ull,
     {
         .arch = KVB_ARCH_MIXTRAL,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 56u,
         .hidden_size = 6144u,
         .num_attention_heads = 48u,
         .num_key_value_heads = 8u,
         .intermediate_size = 16384u,
         .vocab_size = 32768u,
         .max_position_embeddings = 65536u,
         .num_experts = 8u,
         .num_experts_per_tok = 2u,
         .moe_intermediate_size = 16384u,
     }},
    {"Qwen2.5-0.5B",
     "Qwen/Qwen2.5-0.5B,Qwen/Qwen2.5-0.5B-Instruct,Qwen2.5-0.5B-Instruct",
     "config: github:mlc-ai/mlc-llm"
     " python/mlc_llm/model/model_preset.py (verbatim copy of the HF"
     " config.json) (qwen2_0_5b); osllmai-community/Qwen2.5-0.5B config"
     " copy (public copy); parameter count: computed from the config"
     " with the standard tensor inventory (embed, [lm_head unless"
     " tied], per layer q/k/v/o [+biases/qk-norms], MLP/experts, norms,"
     " final norm); exact integer (includes q/k/v biases)",
     494032768ull,
     {
         .arch = KVB_ARCH_QWEN2,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS,
         .num_hidden_layers = 24u,
         .hidden_size = 896u,
         .num_attention_heads = 14u,
         .num_key_value_heads = 2u,
         .intermediate_size = 4864u,
         .vocab_size = 151936u,
         .tie_word_embeddings = 1u,
         .max_position_embeddings = 32768u,
     }},
    {"Qwen2.5-7B",
     "Qwen/Qwen2.5-7B,Qwen/Qwen2.5-7B-Instruct,Qwen2.5-7B-Instruct",
     "config: github:inference-sim/inference-sim"
     " model_configs/qwen2.5-7b-instruct/config.json (copy of HF"
     " config.json); github:mlc-ai/mlc-llm"
     " python/mlc_llm/model/model_preset.py (verbatim copy of the HF"
     " config.json) (qwen2_7b, same dims); parameter count: computed"
     " from the config with the standard tensor inventory (embed,"
     " [lm_head unless tied], per layer q/k/v/o [+biases/qk-norms],"
     " MLP/experts, norms, final norm); exact integer (includes q/k/v"
     " biases)",
     7615616512ull,
     {
         .arch = KVB_ARCH_QWEN2,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS,
         .num_hidden_layers = 28u,
         .hidden_size = 3584u,
         .num_attention_heads = 28u,
         .num_key_value_heads = 4u,
         .intermediate_size = 18944u,
         .vocab_size = 152064u,
         .max_position_embeddings = 32768u,
     }},
    {"Qwen2.5-14B",
     "Qwen/Qwen2.5-14B,Qwen/Qwen2.5-14B-Instruct,Qwen2.5-14B-Instruct",
     "config: osllmai-community/Qwen2.5-14B-Instruct and"
     " jebish7/Qwen2.5-14B-Instruct ('Duplicate from"
     " Qwen/Qwen2.5-14B-Instruct') config.json (public copy); parameter"
     " count: computed from the config with the standard tensor"
     " inventory (embed, [lm_head unless tied], per layer q/k/v/o"
     " [+biases/qk-norms], MLP/experts, norms, final norm); exact"
     " integer (includes q/k/v biases)",
     14770033664ull,
     {
         .arch = KVB_ARCH_QWEN2,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS,
         .num_hidden_layers = 48u,
         .hidden_size = 5120u,
         .num_attention_heads = 40u,
         .num_key_value_heads = 8u,
         .intermediate_size = 13824u,
         .vocab_size = 152064u,
         .max_position_embeddings = 32768u,
     }},
    {"Qwen2.5-32B",
     "Qwen/Qwen2.5-32B,Qwen/Qwen2.5-32B-Instruct,Qwen2.5-32B-Instruct",
     "config: huggingface.co/Qwen/Qwen2.5-32B/blob/main/config.json"
     " (public copy; base: max_position_embeddings 131072, rms_norm_eps"
     " 1e-5); instruct copies show 32768 / 1e-6; parameter count:"
     " computed from the config with the standard tensor inventory"
     " (embed, [lm_head unless tied], per layer q/k/v/o"
     " [+biases/qk-norms], MLP/experts, norms, final norm); exact"
     " integer (includes q/k/v biases)",
     32763876352ull,
     {
         .arch = KVB_ARCH_QWEN2,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS,
         .num_hidden_layers = 64u,
         .hidden_size = 5120u,
         .num_attention_heads = 40u,
         .num_key_value_heads = 8u,
         .intermediate_size = 27648u,
         .vocab_size = 152064u,
         .max_position_embeddings = 32768u,
     }},
    {"Qwen2.5-72B",
     "Qwen/Qwen2.5-72B,Qwen/Qwen2.5-72B-Instruct,Qwen2.5-72B-Instruct",
     "config: Qwen2.5-72B config copies (BitStack/BitStack-Qwen2.5-72B,"
     " OPEA/Qwen2.5-72B-Instruct-int4-sym-inc; public documentation"
     " copy); parameter count: computed from the config with the"
     " standard tensor inventory (embed, [lm_head unless tied], per"
     " layer q/k/v/o [+biases/qk-norms], MLP/experts, norms, final"
     " norm); exact integer (includes q/k/v biases)",
     72706203648ull,
     {
         .arch = KVB_ARCH_QWEN2,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS,
         .num_hidden_layers = 80u,
         .hidden_size = 8192u,
         .num_attention_heads = 64u,
         .num_key_value_heads = 8u,
         .intermediate_size = 29568u,
         .vocab_size = 152064u,
         .max_position_embeddings = 32768u,
     }},
    {"Qwen3-8B",
     "Qwen/Qwen3-8B",
     "config: github:alibaba/InferSim hf_configs/qwen3-8B_config.json"
     " (copy of HF config.json); parameter count: computed from the"
     " config with the standard tensor inventory (embed, [lm_head"
     " unless tied], per layer q/k/v/o [+biases/qk-norms], MLP/experts,"
     " norms, final norm); exact integer; Qwen card says 8.2B",
     8190735360ull,
     {
         .arch = KVB_ARCH_QWEN3,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_QK_NORM,
         .num_hidden_layers = 36u,
         .hidden_size = 4096u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 12288u,
         .vocab_size = 151936u,
         .max_position_embeddings = 40960u,
     }},
    {"Qwen3-32B",
     "Qwen/Qwen3-32B",
     "config: UNCERTAIN: from memory of the HF config (not checked"
     " against the primary source); param count 32.76B matches Qwen's"
     " published 32.8B; parameter count: computed from the config with"
     " the standard tensor inventory (embed, [lm_head unless tied], per"
     " layer q/k/v/o [+biases/qk-norms], MLP/experts, norms, final"
     " norm); exact integer",
     32762123264ull,
     {
         .arch = KVB_ARCH_QWEN3,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_QK_NORM,
         .num_hidden_layers = 64u,
         .hidden_size = 5120u,
         .num_attention_heads = 64u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 25600u,
         .vocab_size = 151936u,
         .max_position_embeddings = 40960u,
     }},
    {"Qwen3-30B-A3B",
     "Qwen/Qwen3-30B-A3B",
     "config: github:alibaba/InferSim"
     " hf_configs/qwen3-30B-A3B_config.json (copy of HF config.json);"
     " also inference-sim model_configs/qwen3-30b-a3b; parameter count:"
     " computed from the config with the standard tensor inventory"
     " (embed, [lm_head unless tied], per layer q/k/v/o"
     " [+biases/qk-norms], MLP/experts, norms, final norm); exact"
     " integer",
     30532122624ull,
     {
         .arch = KVB_ARCH_QWEN3_MOE,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_QK_NORM,
         .num_hidden_layers = 48u,
         .hidden_size = 2048u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 4u,
         .head_dim = 128u,
         .intermediate_size = 6144u,
         .vocab_size = 151936u,
         .max_position_embeddings = 40960u,
         .num_experts = 128u,
         .num_experts_per_tok = 8u,
         .moe_intermediate_size = 768u,
     }},
    {"Qwen3-235B-A22B",
     "Qwen/Qwen3-235B-A22B",
     "config: github:alibaba/InferSim"
     " hf_configs/qwen3-235B-A22B_config.json (copy of HF config.json)"
     " -- that copy has max_position_embeddings 262144 and rope_theta"
     " 5e6, which are the -Instruct-2507 values; original April"
     " release: 40960 / 1e6 (from memory, UNCERTAIN). slime"
     " scripts/models/qwen3-235B-A22B.sh agrees on dims; parameter"
     " count: computed from the config with the standard tensor"
     " inventory (embed, [lm_head unless tied], per layer q/k/v/o"
     " [+biases/qk-norms], MLP/experts, norms, final norm); exact"
     " integer",
     235093634560ull,
     {
         .arch = KVB_ARCH_QWEN3_MOE,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_QK_NORM,
         .num_hidden_layers = 94u,
         .hidden_size = 4096u,
         .num_attention_heads = 64u,
         .num_key_value_heads = 4u,
         .head_dim = 128u,
         .intermediate_size = 12288u,
         .vocab_size = 151936u,
         .max_position_embeddings = 40960u,
         .num_experts = 128u,
         .num_experts_per_tok = 8u,
         .moe_intermediate_size = 1536u,
     }},
    {"Gemma-2-9B",
     "google/gemma-2-9b,google/gemma-2-9b-it,gemma-2-9b-it",
     "config: github:mlc-ai/mlc-llm"
     " python/mlc_llm/model/model_preset.py (verbatim copy of the HF"
     " config.json) (gemma2_9b); identical HF copy 'Copy config.json"
     " from google/gemma-2-9b-it' (public copy); parameter count:"
     " computed from the config with the standard tensor inventory"
     " (embed, [lm_head unless tied], per layer q/k/v/o"
     " [+biases/qk-norms], MLP/experts, norms, final norm); exact"
     " integer (4 norms/layer, tied embeddings)",
     9241705984ull,
     {
         .arch = KVB_ARCH_GEMMA2,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_SANDWICH_NORM,
         .num_hidden_layers = 42u,
         .hidden_size = 3584u,
         .num_attention_heads = 16u,
         .num_key_value_heads = 8u,
         .head_dim = 256u,
         .intermediate_size = 14336u,
         .vocab_size = 256000u,
         .tie_word_embeddings = 1u,
         .max_position_embeddings = 8192u,
         .sliding_window = 4096u,
         .sliding_window_pattern = 2u,
     }},
    {"Gemma-2-27B",
     "google/gemma-2-27b,google/gemma-2-27b-it,gemma-2-27b-it",
     "config: github:mlc-ai/mlc-llm"
     " python/mlc_llm/model/model_preset.py (verbatim copy of the HF"
     " config.json) (gemma2_27b); HF copies of google/gemma-2-27b-it"
     " config (public copy); parameter count: computed from the config"
     " with the standard tensor inventory (embed, [lm_head unless"
     " tied], per layer q/k/v/o [+biases/qk-norms], MLP/experts, norms,"
     " final norm); exact integer",
     27227128320ull,
     {
         .arch = KVB_ARCH_GEMMA2,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_SANDWICH_NORM,
         .num_hidden_layers = 46u,
         .hidden_size = 4608u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 16u,
         .head_dim = 128u,
         .intermediate_size = 36864u,
         .vocab_size = 256000u,
         .tie_word_embeddings = 1u,
         .max_position_embeddings = 8192u,
         .sliding_window = 4096u,
         .sliding_window_pattern = 2u,
     }},
    {"Gemma-3-27B",
     "google/gemma-3-27b-it,gemma-3-27b-it",
     "config: dims (heads 32/16, layers 62, d_model 5376, head_dim 128,"
     " d_mlp 21504, sliding 1024) from a public code SimpleNamespace"
     " gemma_3_27b; pattern 6 and layer_types layout from Gemma-3 HF"
     " configs in public documentation copy (1B/270M show 5 sliding"
     " then 1 full). vocab_size 262208, query_pre_attn_scalar 168,"
     " max_position_embeddings 131072, rope linear x8: from memory --"
     " UNCERTAIN; parameter count: computed from the config with the"
     " standard tensor inventory (embed, [lm_head unless tied], per"
     " layer q/k/v/o [+biases/qk-norms], MLP/experts, norms, final"
     " norm); exact integer; with the SigLIP tower and projector"
     " (model/vision.c): 27,432,406,640, the HF safetensors total of"
     " google/gemma-3-27b-it (27,009,346,304 text only)",
     27432406640ull,
     {
         .arch = KVB_ARCH_GEMMA3,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_SANDWICH_NORM | KVB_MODEL_QK_NORM,
         .num_hidden_layers = 62u,
         .hidden_size = 5376u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 16u,
         .head_dim = 128u,
         .intermediate_size = 21504u,
         .vocab_size = 262208u,
         .tie_word_embeddings = 1u,
         .max_position_embeddings = 131072u,
         .sliding_window = 1024u,
         .sliding_window_pattern = 6u,
         KVB__SIGLIP_TOWER,
     }},
    /* ---- multimodal (issue 14): tower and projector included ---- */
    {"Gemma-3-4B-it",
     "google/gemma-3-4b-it,gemma-3-4b-it",
     "config: google/gemma-3-4b-it config.json as quoted in"
     " tests/unit/test_read_hf.c (text_config 2560 x 34, 10240;"
     " Gemma3TextConfig defaults 8/4 heads, head_dim 256, vocab 262208;"
     " SigLIP 27 x 1152, 896 px, patch 14); parameter count: computed with the "
     "standard tensor inventory plus the vision tower (model/vision.c); "
     "4,300,079,472"
     " = HF safetensors total of google/gemma-3-4b-it",
     4300079472ull,
     {
         .arch = KVB_ARCH_GEMMA3,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_SANDWICH_NORM | KVB_MODEL_QK_NORM,
         .num_hidden_layers = 34u,
         .hidden_size = 2560u,
         .num_attention_heads = 8u,
         .num_key_value_heads = 4u,
         .head_dim = 256u,
         .intermediate_size = 10240u,
         .vocab_size = 262208u,
         .tie_word_embeddings = 1u,
         .max_position_embeddings = 131072u,
         .sliding_window = 1024u,
         .sliding_window_pattern = 6u,
         KVB__SIGLIP_TOWER,
     }},
    {"Gemma-3-12B-it",
     "google/gemma-3-12b-it,gemma-3-12b-it",
     "config: google/gemma-3-12b-it config.json (text_config 3840 x 48,"
     " 15360, 16/8 heads; head_dim 256, vocab 262208 by Gemma3TextConfig"
     " default; SigLIP as 4B) -- from memory of the HF file, UNCERTAIN"
     " except as checked by the count; parameter count: computed with the "
     "standard tensor inventory plus the vision tower (model/vision.c); "
     "12,187,325,040 ="
     " HF safetensors total of google/gemma-3-12b-it",
     12187325040ull,
     {
         .arch = KVB_ARCH_GEMMA3,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_SANDWICH_NORM | KVB_MODEL_QK_NORM,
         .num_hidden_layers = 48u,
         .hidden_size = 3840u,
         .num_attention_heads = 16u,
         .num_key_value_heads = 8u,
         .head_dim = 256u,
         .intermediate_size = 15360u,
         .vocab_size = 262208u,
         .tie_word_embeddings = 1u,
         .max_position_embeddings = 131072u,
         .sliding_window = 1024u,
         .sliding_window_pattern = 6u,
         KVB__SIGLIP_TOWER,
     }},
    {"Qwen2.5-VL-7B-Instruct",
     "Qwen/Qwen2.5-VL-7B-Instruct,Qwen2.5-VL-7B-Instruct",
     "config: Qwen/Qwen2.5-VL-7B-Instruct config.json (Qwen2.5-7B text:"
     " 3584 x 28, 18944, 28/4 heads, vocab 152064, untied; vision_config"
     " depth 32, 1280, 3420, 16 heads, patch 14, merge 2, out 3584, as"
     " the public model printout in acproject/duorou"
     " docs/qwen2.5vl_graph.md shows); parameter count: computed with the "
     "standard tensor inventory plus the vision tower (model/vision.c); "
     "8,292,166,656 = HF"
     " safetensors total of Qwen/Qwen2.5-VL-7B-Instruct",
     8292166656ull,
     {
         .arch = KVB_ARCH_QWEN2,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS,
         .num_hidden_layers = 28u,
         .hidden_size = 3584u,
         .num_attention_heads = 28u,
         .num_key_value_heads = 4u,
         .intermediate_size = 18944u,
         .vocab_size = 152064u,
         .max_position_embeddings = 128000u,
         KVB__QWEN25_VL_TOWER(3420u, 3584u),
     }},
    {"Qwen2.5-VL-72B-Instruct",
     "Qwen/Qwen2.5-VL-72B-Instruct,Qwen2.5-VL-72B-Instruct",
     "config: Qwen/Qwen2.5-VL-72B-Instruct config.json (Qwen2.5-72B"
     " text: 8192 x 80, 29568, 64/8 heads, vocab 152064, untied;"
     " vision_config 1280, 3456, out 8192 as the 32B's in"
     " tests/data/configs/qwen2.5-vl-32b-instruct-awq.json) -- from"
     " memory of the HF file, UNCERTAIN except as checked by the count;"
     " parameter count: computed with the standard tensor inventory plus the "
     "vision tower (model/vision.c)"
     "; 73,410,777,344 = HF safetensors total of"
     " Qwen/Qwen2.5-VL-72B-Instruct",
     73410777344ull,
     {
         .arch = KVB_ARCH_QWEN2,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS,
         .num_hidden_layers = 80u,
         .hidden_size = 8192u,
         .num_attention_heads = 64u,
         .num_key_value_heads = 8u,
         .intermediate_size = 29568u,
         .vocab_size = 152064u,
         .max_position_embeddings = 128000u,
         KVB__QWEN25_VL_TOWER(3456u, 8192u),
     }},
    {"Mistral-Small-3.1-24B",
     "mistralai/Mistral-Small-3.1-24B-Instruct-2503,"
     "Mistral-Small-3.1-24B-Instruct-2503",
     "config: tests/data/configs/mistral-small-3.1-24b-instruct-2503.json"
     " (see SOURCES.md); parameter count: computed with the standard tensor "
     "inventory plus the vision tower (model/vision.c) (Pixtral encoder, patch "
     "merger,"
     " projector without biases); 24,011,361,280 = HF safetensors"
     " total of mistralai/Mistral-Small-3.1-24B-Instruct-2503",
     24011361280ull,
     {
         .arch = KVB_ARCH_MISTRAL,
         .dtype = KVB_DTYPE_BF16,
         .num_hidden_layers = 40u,
         .hidden_size = 5120u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 32768u,
         .vocab_size = 131072u,
         .max_position_embeddings = 131072u,
         .vision_kind = KVB_VISION_PIXTRAL,
         .vision_num_layers = 24u,
         .vision_hidden_size = 1024u,
         .vision_intermediate_size = 4096u,
         .vision_num_heads = 16u,
         .vision_patch_size = 14u,
         .vision_image_size = 1540u,
         .vision_spatial_merge = 2u,
     }},
    {"Phi-3-mini-4k-instruct",
     "microsoft/Phi-3-mini-4k-instruct",
     "config: HF copies of microsoft/Phi-3-mini-4k-instruct config.json"
     " (public copy; e.g. Alignment-Lab-AI/... 'Duplicate from"
     " microsoft/Phi-3-mini-4k-instruct'); fused qkv_proj and"
     " gate_up_proj tensors; parameter count: computed from the config"
     " with the standard tensor inventory (embed, [lm_head unless"
     " tied], per layer q/k/v/o [+biases/qk-norms], MLP/experts, norms,"
     " final norm); exact integer; matches published 3.8B",
     3821079552ull,
     {
         .arch = KVB_ARCH_PHI3,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_FUSED_QKV | KVB_MODEL_FUSED_GATE_UP,
         .num_hidden_layers = 32u,
         .hidden_size = 3072u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 32u,
         .intermediate_size = 8192u,
         .vocab_size = 32064u,
         .max_position_embeddings = 4096u,
         .sliding_window = 2047u,
     }},
    {"Phi-4",
     "microsoft/phi-4",
     "config: huggingface.co/microsoft/phi-4/blob/refs/pr/10/config.json"
     " (public copy). NB: mlc-llm preset named 'phi-4' is actually"
     " Phi-4-mini (3072 hidden); parameter count: computed from the"
     " config with the standard tensor inventory (embed, [lm_head"
     " unless tied], per layer q/k/v/o [+biases/qk-norms], MLP/experts,"
     " norms, final norm); exact integer; published 14.7B",
     14659507200ull,
     {
         .arch = KVB_ARCH_PHI3,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_FUSED_QKV | KVB_MODEL_FUSED_GATE_UP,
         .num_hidden_layers = 40u,
         .hidden_size = 5120u,
         .num_attention_heads = 40u,
         .num_key_value_heads = 10u,
         .intermediate_size = 17920u,
         .vocab_size = 100352u,
         .max_position_embeddings = 16384u,
     }},
    {"DeepSeek-V3",
     "deepseek-ai/DeepSeek-V3,deepseek-ai/DeepSeek-R1,DeepSeek-V3,DeepSeek-R1,"
     "deepseek-ai/DeepSeek-V3-0324,deepseek-ai/DeepSeek-R1-0528",
     "config: github:alibaba/InferSim"
     " hf_configs/deepseek_v3_config.json (copy of HF config.json)"
     " (that copy renames n_routed_experts/n_shared_experts to"
     " num_routed_experts/num_shared_experts; the real HF keys are"
     " n_routed_experts=256, n_shared_experts=1 as in a public code"
     " annotated copy); tenstorrent/tt-metal"
     " models/demos/deepseek_v3/reference/README_WEIGHTS.md for param"
     " breakdown; parameter count: computed from the config with the"
     " standard tensor inventory (embed, [lm_head unless tied], per"
     " layer q/k/v/o [+biases/qk-norms], MLP/experts, norms, final"
     " norm); exact integer (MLA: q_a_proj, q_a_layernorm, q_b_proj,"
     " kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj, o_proj; MoE incl."
     " shared expert, gate, e_score_correction_bias). checkpoint total"
     " includes the MTP layer's own copies of embed_tokens and"
     " shared_head.head; active counts embedding+head; DeepSeek-V3-0324"
     " and DeepSeek-R1-0528 keep these shapes and the FP8 format (their"
     " cards), so they are aliases",
     671026419200ull,
     {
         KVB__DEEPSEEK_V3_SHAPE,
     }},
    {"DeepSeek-R1-Distill-Qwen-32B",
     "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
     "config: architecture = Qwen2.5-32B (base of the distill;"
     " Qwen2.5-32B config verified above)."
     " max_position_embeddings/sliding fields from memory -- UNCERTAIN;"
     " parameter count: computed from the config with the standard"
     " tensor inventory (embed, [lm_head unless tied], per layer"
     " q/k/v/o [+biases/qk-norms], MLP/experts, norms, final norm);"
     " exact integer",
     32763876352ull,
     {
         .arch = KVB_ARCH_QWEN2,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS,
         .num_hidden_layers = 64u,
         .hidden_size = 5120u,
         .num_attention_heads = 40u,
         .num_key_value_heads = 8u,
         .intermediate_size = 27648u,
         .vocab_size = 152064u,
         .max_position_embeddings = 131072u,
     }},
    {"gpt-oss-20b",
     "openai/gpt-oss-20b",
     "config: HF config copies of openai/gpt-oss-20b (public copy;"
     " descript/mouse-20b, cryptonaut/AltiMind-sft,"
     " inference-optimization/gpt-oss-20b-FP8-Dynamic);"
     " EchoCog/gpt-oss-20b docs/gpt-oss-20b-architecture.md (public"
     " code) for modules_to_not_convert; parameter count: computed from"
     " the config with the standard tensor inventory (embed, [lm_head"
     " unless tied], per layer q/k/v/o [+biases/qk-norms], MLP/experts,"
     " norms, final norm); exact integer; OpenAI's 'active' excludes"
     " the input embedding but counts the unembedding",
     20914757184ull,
     {
         .arch = KVB_ARCH_GPT_OSS,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS | KVB_MODEL_ATTN_O_BIAS |
                  KVB_MODEL_ATTN_SINKS | KVB_MODEL_ROUTER_BIAS |
                  KVB_MODEL_MLP_BIAS | KVB_MODEL_FUSED_GATE_UP,
         .num_hidden_layers = 24u,
         .hidden_size = 2880u,
         .num_attention_heads = 64u,
         .num_key_value_heads = 8u,
         .head_dim = 64u,
         .intermediate_size = 2880u,
         .vocab_size = 201088u,
         .max_position_embeddings = 131072u,
         .num_experts = 32u,
         .num_experts_per_tok = 4u,
         .moe_intermediate_size = 2880u,
         .sliding_window = 128u,
         .sliding_window_pattern = 2u,
     }},
    {"gpt-oss-120b",
     "openai/gpt-oss-120b",
     "config: HF config copy GohaDAYN/Affine-A10 (36 layers, 128"
     " experts) and a Fred808 commit diff of gpt-oss config 24->36"
     " layers, 32->128 experts (public copy); parameter count: computed"
     " from the config with the standard tensor inventory (embed,"
     " [lm_head unless tied], per layer q/k/v/o [+biases/qk-norms],"
     " MLP/experts, norms, final norm); exact integer",
     116829156672ull,
     {
         .arch = KVB_ARCH_GPT_OSS,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS | KVB_MODEL_ATTN_O_BIAS |
                  KVB_MODEL_ATTN_SINKS | KVB_MODEL_ROUTER_BIAS |
                  KVB_MODEL_MLP_BIAS | KVB_MODEL_FUSED_GATE_UP,
         .num_hidden_layers = 36u,
         .hidden_size = 2880u,
         .num_attention_heads = 64u,
         .num_key_value_heads = 8u,
         .head_dim = 64u,
         .intermediate_size = 2880u,
         .vocab_size = 201088u,
         .max_position_embeddings = 131072u,
         .num_experts = 128u,
         .num_experts_per_tok = 4u,
         .moe_intermediate_size = 2880u,
         .sliding_window = 128u,
         .sliding_window_pattern = 2u,
     }},
    {"Falcon-7B",
     "tiiuae/falcon-7b",
     "config: UNCERTAIN: from memory of tiiuae/falcon-7b config (n_head"
     " 71, multi_query, parallel_attn, 4544 hidden, vocab 65024; ffn ="
     " 4*hidden is implicit, not a config key); parameter count:"
     " computed from the config with the standard tensor inventory"
     " (embed, [lm_head unless tied], per layer q/k/v/o"
     " [+biases/qk-norms], MLP/experts, norms, final norm); exact"
     " integer (tied lm_head not counted; if the checkpoint stores"
     " lm_head separately the tensor total is 7,217,189,760 --"
     " UNCERTAIN)",
     6921720704ull,
     {
         .arch = KVB_ARCH_FALCON,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_FUSED_QKV | KVB_MODEL_PARALLEL_ATTN |
                  KVB_MODEL_NORM_BIAS | KVB_MODEL_MLP_NO_GATE,
         .num_hidden_layers = 32u,
         .hidden_size = 4544u,
         .num_attention_heads = 71u,
         .num_key_value_heads = 1u,
         .intermediate_size = 18176u,
         .vocab_size = 65024u,
         .tie_word_embeddings = 1u,
         .max_position_embeddings = 2048u,
     }},
    {"OPT-125m",
     "facebook/opt-125m",
     "config: from memory of facebook/opt-125m config (ffn_dim 3072,"
     " word_embed_proj_dim 768, do_layer_norm_before true) -- UNCERTAIN"
     " on exact keys; parameter count: computed from the config with"
     " the standard tensor inventory (embed, [lm_head unless tied], per"
     " layer q/k/v/o [+biases/qk-norms], MLP/experts, norms, final"
     " norm); exact integer; matches the commonly quoted 125,239,296",
     125239296ull,
     {
         .arch = KVB_ARCH_OPT,
         .dtype = KVB_DTYPE_FP16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS | KVB_MODEL_ATTN_O_BIAS |
                  KVB_MODEL_MLP_BIAS | KVB_MODEL_NORM_BIAS |
                  KVB_MODEL_MLP_NO_GATE,
         .num_hidden_layers = 12u,
         .hidden_size = 768u,
         .num_attention_heads = 12u,
         .num_key_value_heads = 12u,
         .intermediate_size = 3072u,
         .vocab_size = 50272u,
         .tie_word_embeddings = 1u,
         .max_position_embeddings = 2048u,
         .position_embedding_rows = 2050u,
     }},
    {"Qwen3-Next-80B-A3B",
     "Qwen/Qwen3-Next-80B-A3B-Instruct,Qwen/Qwen3-Next-80B-A3B-Thinking",
     "config: tests/data/configs/qwen3-next-80b-a3b-instruct.json (the HF"
     " config.json as a public report quotes it; SOURCES.md); 36 Gated"
     " DeltaNet and 12 gated-attention layers (full_attention_interval 4),"
     " every layer MoE; parameter count: the inventory of the HF model"
     " without the mtp.* layer vLLM loads only for speculative decoding,"
     " checked by hand in tests/unit/test_hybrid.c; the model card's"
     " \"80B in total\"",
     79674391296ull,
     {
         .arch = KVB_ARCH_QWEN3_NEXT,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_QK_NORM | KVB_MODEL_SHARED_EXPERT_GATE |
                  KVB_MODEL_ATTN_GATE,
         .num_hidden_layers = 48u,
         .hidden_size = 2048u,
         .num_attention_heads = 16u,
         .num_key_value_heads = 2u,
         .head_dim = 256u,
         .intermediate_size = 5120u,
         .vocab_size = 151936u,
         .max_position_embeddings = 262144u,
         .num_experts = 512u,
         .num_experts_per_tok = 10u,
         .moe_intermediate_size = 512u,
         .num_shared_experts = 1u,
         .shared_expert_intermediate_size = 512u,
         .layer_pattern = "GGGAGGGAGGGAGGGAGGGAGGGAGGGAGGGAGGGAGGGAGGGAGGGA",
         .ssm_num_heads = 32u,
         .ssm_head_dim = 128u,
         .ssm_n_groups = 16u,
         .ssm_state_size = 128u,
         .ssm_conv_kernel = 4u,
     }},
    {"Nemotron-Nano-9B-v2",
     "nvidia/NVIDIA-Nemotron-Nano-9B-v2",
     "config: tests/data/configs/nemotron-nano-9b-v2.json (SOURCES.md); 27"
     " Mamba2, 4 attention and 25 MLP blocks (hybrid_override_pattern);"
     " parameter count: the inventory, checked by hand in"
     " tests/unit/test_read_hybrid.c; the Hub's 8,888,227,328 (\"8.89B"
     " params\")",
     8888227328ull,
     {
         .arch = KVB_ARCH_NEMOTRON_H,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_MLP_NO_GATE,
         .num_hidden_layers = 56u,
         .hidden_size = 4480u,
         .num_attention_heads = 40u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 15680u,
         .vocab_size = 131072u,
         .max_position_embeddings = 131072u,
         .layer_pattern =
             "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-",
         .ssm_num_heads = 128u,
         .ssm_head_dim = 80u,
         .ssm_n_groups = 8u,
         .ssm_state_size = 128u,
         .ssm_conv_kernel = 4u,
     }},
    {"Nemotron-3-Nano-30B-A3B",
     "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
     "config: tests/data/configs/nemotron-3-nano-30b-a3b.json (the HF"
     " config.json as a public test quotes it; SOURCES.md); 23 Mamba2, 23"
     " MoE and 6 attention blocks (hybrid_override_pattern); parameter"
     " count: the inventory, checked by hand in tests/unit/test_hybrid.c;"
     " NVIDIA's \"31.6B total parameters\"",
     31577940288ull,
     {
         .arch = KVB_ARCH_NEMOTRON_H,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_MLP_NO_GATE | KVB_MODEL_ROUTER_SCORE_BIAS,
         .num_hidden_layers = 52u,
         .hidden_size = 2688u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 2u,
         .head_dim = 128u,
         .intermediate_size = 1856u,
         .vocab_size = 131072u,
         .max_position_embeddings = 262144u,
         .num_experts = 128u,
         .num_experts_per_tok = 6u,
         .moe_intermediate_size = 1856u,
         .num_shared_experts = 1u,
         .shared_expert_intermediate_size = 3712u,
         .layer_pattern =
             "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
         .ssm_num_heads = 64u,
         .ssm_head_dim = 64u,
         .ssm_n_groups = 8u,
         .ssm_state_size = 128u,
         .ssm_conv_kernel = 4u,
         .ssm_state_dtype = KVB_DTYPE_FP32,
     }},
    {"Llama-3.3-70B",
     "meta-llama/Llama-3.3-70B-Instruct,Llama-3.3-70B-Instruct",
     "config: Meta's Llama 3.3 model card: the Llama 3.1 70B architecture (80 "
     "layers, 8192 wide, 64 query / 8 KV heads, 128256 vocabulary),"
     " so the config copy cited for Llama-3.1-70B "
     "(tests/data/configs/llama-3.1-70b-instruct.json) gives every field;"
     " parameter count: computed from the config with the standard tensor "
     "inventory; exact integer; the model card's \"70B\" (70.6B on the HF "
     "page); a 30-shard Llama 70B model.safetensors.index.json quoted in"
     " public notes has total_size 141,107,412,992 bytes, twice this count",
     70553706496ull,
     {
         .arch = KVB_ARCH_LLAMA,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 80u,
         .hidden_size = 8192u,
         .num_attention_heads = 64u,
         .num_key_value_heads = 8u,
         .intermediate_size = 28672u,
         .vocab_size = 128256u,
         .max_position_embeddings = 131072u,
     }},
    {"Qwen3-0.6B",
     "Qwen/Qwen3-0.6B,Qwen/Qwen3-0.6B-Base",
     "config: tests/data/configs/qwen3-0.6b.json (github:mlc-ai/mlc-llm "
     "model_preset.py qwen3_0.6b, a copy of the HF config.json; SOURCES.md);"
     " tied embeddings; parameter count: computed from the config with the "
     "standard tensor inventory; exact integer; Qwen's card: \"Number of "
     "Parameters: 0.6B\"",
     596049920ull,
     {
         .arch = KVB_ARCH_QWEN3,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_QK_NORM,
         .num_hidden_layers = 28u,
         .hidden_size = 1024u,
         .num_attention_heads = 16u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 3072u,
         .vocab_size = 151936u,
         .tie_word_embeddings = 1u,
         .max_position_embeddings = 40960u,
     }},
    {"Qwen3-1.7B",
     "Qwen/Qwen3-1.7B,Qwen/Qwen3-1.7B-Base",
     "config: tests/data/configs/qwen3-1.7b.json (github:mlc-ai/mlc-llm "
     "model_preset.py qwen3_1.7b, a copy of the HF config.json; SOURCES.md);"
     " tied embeddings; parameter count: computed from the config with the "
     "standard tensor inventory; exact integer; Qwen's card: \"Number of "
     "Parameters: 1.7B\"",
     1720574976ull,
     {
         .arch = KVB_ARCH_QWEN3,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_QK_NORM,
         .num_hidden_layers = 28u,
         .hidden_size = 2048u,
         .num_attention_heads = 16u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 6144u,
         .vocab_size = 151936u,
         .tie_word_embeddings = 1u,
         .max_position_embeddings = 40960u,
     }},
    {"Qwen3-4B",
     "Qwen/Qwen3-4B,Qwen/Qwen3-4B-Base",
     "config: HF config.json of Qwen/Qwen3-4B as public test fixtures quote it "
     "(hidden 2560, 36 layers, 32/8 heads, head_dim 128, intermediate 9728,"
     " vocab 151936, tied); the -Instruct-2507 copies differ only in "
     "max_position_embeddings 262144 and rope_theta; parameter count: computed "
     "from the config with the standard tensor inventory; exact integer;"
     " Qwen's card: \"Number of Parameters: 4.0B\"; Qwen3-4B's"
     " model.safetensors.index.json total_size 8,044,936,192 bytes of BF16"
     " (quoted in public docs and tests) is exactly twice this count",
     4022468096ull,
     {
         .arch = KVB_ARCH_QWEN3,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_QK_NORM,
         .num_hidden_layers = 36u,
         .hidden_size = 2560u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 9728u,
         .vocab_size = 151936u,
         .tie_word_embeddings = 1u,
         .max_position_embeddings = 40960u,
     }},
    {"Qwen3-14B",
     "Qwen/Qwen3-14B,Qwen/Qwen3-14B-Base",
     "config: tests/data/configs/qwen3-14b.json "
     "(github:inference-sim/inference-sim model_configs/qwen3-14b/config.json, "
     "verbatim; SOURCES.md);"
     " parameter count: computed from the config with the standard tensor "
     "inventory; exact integer; Qwen's card: \"Number of Parameters: 14.8B\"; "
     "a Qwen3 8-shard"
     " model.safetensors.index.json quoted in public notes has total_size"
     " 29,536,614,400 bytes of BF16, exactly twice this count",
     14768307200ull,
     {
         .arch = KVB_ARCH_QWEN3,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_QK_NORM,
         .num_hidden_layers = 40u,
         .hidden_size = 5120u,
         .num_attention_heads = 40u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 17408u,
         .vocab_size = 151936u,
         .max_position_embeddings = 40960u,
     }},
    {"Qwen3-Coder-30B-A3B",
     "Qwen/Qwen3-Coder-30B-A3B-Instruct",
     "config: tests/data/configs/qwen3-coder-30b-a3b-instruct.json"
     " (github:ztxz16/fastllm Qwen3-Coder-30B-A3B-Instruct/config.json,"
     " verbatim; SOURCES.md): the Qwen3-30B-A3B experts (128 of 768, 8 per"
     " token) with 262144 positions; its intermediate_size 5472 sizes no"
     " tensor, every layer being MoE; parameter count: the same repository's"
     " model.safetensors.index.json total_size 61,064,245,248 bytes of BF16"
     " / 2, exactly; Qwen's card: \"30.5B in total and 3.3B activated\"",
     30532122624ull,
     {
         .arch = KVB_ARCH_QWEN3_MOE,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_QK_NORM,
         .num_hidden_layers = 48u,
         .hidden_size = 2048u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 4u,
         .head_dim = 128u,
         .intermediate_size = 5472u,
         .vocab_size = 151936u,
         .max_position_embeddings = 262144u,
         .num_experts = 128u,
         .num_experts_per_tok = 8u,
         .moe_intermediate_size = 768u,
     }},
    {"Qwen3-Coder-480B-A35B",
     "Qwen/Qwen3-Coder-480B-A35B-Instruct",
     "config: HF config.json of Qwen/Qwen3-Coder-480B-A35B-Instruct as a "
     "public vLLM-Kunlun deployment guide quotes it (62 layers, 6144 wide,"
     " 96/8 heads, 160 experts of 2560, 8 per token, use_qk_norm, 262144 "
     "positions), the same in the FP8 copy a public benchmark report quotes;"
     " parameter count: computed from the config with the standard tensor "
     "inventory; exact integer; Qwen's card: \"480B in total and 35B "
     "activated\"; the FP8 checkpoint's 450 GiB on disk agrees",
     480154875392ull,
     {
         .arch = KVB_ARCH_QWEN3_MOE,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_QK_NORM,
         .num_hidden_layers = 62u,
         .hidden_size = 6144u,
         .num_attention_heads = 96u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 8192u,
         .vocab_size = 151936u,
         .max_position_embeddings = 262144u,
         .num_experts = 160u,
         .num_experts_per_tok = 8u,
         .moe_intermediate_size = 2560u,
     }},
    {"Qwen2.5-Coder-32B",
     "Qwen/Qwen2.5-Coder-32B-Instruct,Qwen/"
     "Qwen2.5-Coder-32B,Qwen2.5-Coder-32B-Instruct",
     "config: Qwen's card: the Qwen2.5-32B architecture (64 layers, 40/8 "
     "heads, q/k/v biases, intermediate 27648, vocab 152064), 32768"
     " positions in config.json (YaRN to 128K is opt-in); Qwen2.5-32B config "
     "verified above; parameter count: computed from the config with the "
     "standard tensor inventory; exact integer; card: \"Number of Parameters: "
     "32.5B\"",
     32763876352ull,
     {
         .arch = KVB_ARCH_QWEN2,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS,
         .num_hidden_layers = 64u,
         .hidden_size = 5120u,
         .num_attention_heads = 40u,
         .num_key_value_heads = 8u,
         .intermediate_size = 27648u,
         .vocab_size = 152064u,
         .max_position_embeddings = 32768u,
     }},
    {"QwQ-32B",
     "Qwen/QwQ-32B",
     "config: Qwen's card: the Qwen2.5-32B architecture (64 layers, 40/8 "
     "heads, q/k/v biases) with max_position_embeddings 40960 -- from the"
     " card, the HF config not checked, UNCERTAIN for max_position_embeddings;"
     " parameter count: computed from the config with the standard tensor "
     "inventory; exact integer; card: \"Number of Parameters: 32.5B\"",
     32763876352ull,
     {
         .arch = KVB_ARCH_QWEN2,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS,
         .num_hidden_layers = 64u,
         .hidden_size = 5120u,
         .num_attention_heads = 40u,
         .num_key_value_heads = 8u,
         .intermediate_size = 27648u,
         .vocab_size = 152064u,
         .max_position_embeddings = 40960u,
     }},
    {"DeepSeek-V3.1",
     "deepseek-ai/DeepSeek-V3.1,deepseek-ai/DeepSeek-V3.1-Base,deepseek-ai/"
     "DeepSeek-V3.1-Terminus",
     "config: DeepSeek's card: the DeepSeek-V3 architecture and checkpoint "
     "layout (same config.json shapes as tests/data/configs/deepseek-v3.json:"
     " 61 layers, MLA, 256 routed + 1 shared expert, first 3 layers dense), "
     "FP8 weights with 128x128 block scales (UE8M0 scale format);"
     " parameter count: computed from the config with the standard tensor "
     "inventory; exact integer (the MTP layer is not loaded); card: \"671B "
     "total, 37B activated\"",
     671026419200ull,
     {
         KVB__DEEPSEEK_V3_SHAPE,
     }},
    {"DeepSeek-R1-Distill-Llama-8B",
     "deepseek-ai/DeepSeek-R1-Distill-Llama-8B",
     "config: DeepSeek-R1 card, distilled models table: base model "
     "Llama-3.1-8B, so the Llama-3.1-8B config (verified above) gives every"
     " field; parameter count: computed from the config with the standard "
     "tensor inventory; exact integer; equals Llama-3.1-8B's 8,030,261,248",
     8030261248ull,
     {
         .arch = KVB_ARCH_LLAMA,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 32u,
         .hidden_size = 4096u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 8u,
         .intermediate_size = 14336u,
         .vocab_size = 128256u,
         .max_position_embeddings = 131072u,
     }},
    {"DeepSeek-R1-Distill-Llama-70B",
     "deepseek-ai/DeepSeek-R1-Distill-Llama-70B",
     "config: DeepSeek-R1 card, distilled models table: base model "
     "Llama-3.3-70B-Instruct, the Llama 3.1 70B architecture (verified"
     " above); parameter count: computed from the config with the standard "
     "tensor inventory; exact integer; equals Llama-3.1-70B's 70,553,706,496",
     70553706496ull,
     {
         .arch = KVB_ARCH_LLAMA,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 80u,
         .hidden_size = 8192u,
         .num_attention_heads = 64u,
         .num_key_value_heads = 8u,
         .intermediate_size = 28672u,
         .vocab_size = 128256u,
         .max_position_embeddings = 131072u,
     }},
    {"Kimi-K2-Instruct",
     "moonshotai/Kimi-K2-Instruct,moonshotai/Kimi-K2-Base,Kimi-K2-Base",
     "config: moonshotai/Kimi-K2-Instruct config.json (DeepseekV3ForCausalLM): "
     "61 layers, 7168 wide, 64 heads, MLA 512/1536/64/128/128, 384 routed"
     " experts of 2048 + 1 shared, 8 per token, first_k_dense_replace 1, vocab "
     "163840, no MTP layer, as public configs of the K2 family quote"
     " it (a model-inspector report of Kimi-K2-Instruct-0905; K2-Thinking and "
     "K2.5 text_config copies in public code); 131072 positions for the"
     " July release (-0905: 262144); parameter count: computed from the config "
     "with the standard tensor inventory; exact integer; Moonshot's card: \"1 "
     "trillion total parameters, 32 billion activated\"; the FP8 checkpoint's "
     "959 GiB"
     " on disk agrees",
     1026408232448ull,
     {
         .arch = KVB_ARCH_DEEPSEEK_V3,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ROUTER_SCORE_BIAS,
         .num_hidden_layers = 61u,
         .hidden_size = 7168u,
         .num_attention_heads = 64u,
         .num_key_value_heads = 64u,
         .intermediate_size = 18432u,
         .vocab_size = 163840u,
         .max_position_embeddings = 131072u,
         .num_experts = 384u,
         .num_experts_per_tok = 8u,
         .moe_intermediate_size = 2048u,
         .num_shared_experts = 1u,
         .first_k_dense_replace = 1u,
         .kv_lora_rank = 512u,
         .q_lora_rank = 1536u,
         .qk_rope_head_dim = 64u,
         .qk_nope_head_dim = 128u,
         .v_head_dim = 128u,
     }},
    {"Mistral-Large-2411",
     "mistralai/"
     "Mistral-Large-Instruct-2411,Mistral-Large-Instruct-2411,mistralai/"
     "Mistral-Large-Instruct-2407",
     "config: MistralForCausalLM, 88 layers, 12288 wide, 96/8 heads, head_dim "
     "128, intermediate 28672, vocab 32768, 131072 positions (from memory of"
     " the HF config -- UNCERTAIN; a public planner test uses the same "
     "shapes); 2407 and 2411 share them; parameter count: computed from the "
     "config with the standard tensor inventory; exact integer; "
     "mistralai/platform-docs-public"
     " (mistral-large-2-0-24-07.ts): parameters \"123\" (billion)",
     122610069504ull,
     {
         .arch = KVB_ARCH_MISTRAL,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 88u,
         .hidden_size = 12288u,
         .num_attention_heads = 96u,
         .num_key_value_heads = 8u,
         .intermediate_size = 28672u,
         .vocab_size = 32768u,
         .max_position_embeddings = 131072u,
     }},
    {"Mistral-Nemo-12B",
     "mistralai/Mistral-Nemo-Instruct-2407,mistralai/"
     "Mistral-Nemo-Base-2407,Mistral-Nemo-Instruct-2407",
     "config: tests/data/configs/mistral-nemo-instruct-2407.json "
     "(github:inference-sim/inference-sim "
     "model_configs/mistral-nemo-instruct-2407/config.json, verbatim; "
     "SOURCES.md); head_dim"
     " 128 with 32 heads is 4096, not the 5120 width; parameter count: "
     "computed from the config with the standard tensor inventory; exact "
     "integer; Mistral's card: \"12B\" (12.2B on the HF page)",
     12247782400ull,
     {
         .arch = KVB_ARCH_MISTRAL,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 40u,
         .hidden_size = 5120u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 14336u,
         .vocab_size = 131072u,
         .max_position_embeddings = 131072u,
     }},
    {"Ministral-8B-2410",
     "mistralai/Ministral-8B-Instruct-2410,Ministral-8B-Instruct-2410",
     "config: HF config.json of mistralai/Ministral-8B-Instruct-2410 as a "
     "public test fixture quotes it (ministral8b_config: 36 layers, 4096"
     " wide, 32/8 heads, head_dim 128, intermediate 12288, vocab 131072, "
     "sliding_window 32768 = max_position_embeddings); parameter count: "
     "computed from the config with the standard tensor inventory; exact "
     "integer; Mistral's"
     " card: \"8.0B\" (8,019,808,256 on the HF page)",
     8019808256ull,
     {
         .arch = KVB_ARCH_MISTRAL,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 36u,
         .hidden_size = 4096u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 12288u,
         .vocab_size = 131072u,
         .max_position_embeddings = 32768u,
         .sliding_window = 32768u,
     }},
    {"Devstral-Small-2505",
     "mistralai/Devstral-Small-2505",
     "config: Mistral's card: fine-tuned from Mistral-Small-3.1 with the "
     "vision encoder removed, so the Mistral-Small-24B text config (verified"
     " above) with the 3.1 max_position_embeddings 131072 (128K context); "
     "UNCERTAIN: the HF config.json not checked; parameter count: computed "
     "from the config with the standard tensor inventory; exact integer; card: "
     "\"24B\"",
     23572403200ull,
     {
         .arch = KVB_ARCH_MISTRAL,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 40u,
         .hidden_size = 5120u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 32768u,
         .vocab_size = 131072u,
         .max_position_embeddings = 131072u,
     }},
    {"Phi-4-mini",
     "microsoft/Phi-4-mini-instruct,Phi-4-mini-instruct",
     "config: github:mlc-ai/mlc-llm model_preset.py key phi-4 (_name_or_path "
     "Phi-4-mini-instruct; a copy of the HF config.json): 32 layers, 3072"
     " wide, 24/8 heads, intermediate 8192, vocab 200064, tied embeddings, "
     "partial_rotary_factor 0.75, longrope to 131072, sliding_window 262144"
     " (wider than any context, so no window here); fused qkv_proj and "
     "gate_up_proj; parameter count: computed from the config with the "
     "standard tensor inventory; exact integer; Microsoft's card: \"3.8B "
     "parameters\"",
     3836021760ull,
     {
         .arch = KVB_ARCH_PHI3,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_FUSED_QKV | KVB_MODEL_FUSED_GATE_UP,
         .num_hidden_layers = 32u,
         .hidden_size = 3072u,
         .num_attention_heads = 24u,
         .num_key_value_heads = 8u,
         .intermediate_size = 8192u,
         .vocab_size = 200064u,
         .tie_word_embeddings = 1u,
         .max_position_embeddings = 131072u,
     }},
    {"Phi-4-reasoning",
     "microsoft/Phi-4-reasoning,microsoft/Phi-4-reasoning-plus",
     "config: Microsoft's card: the Phi-4 architecture (verified above: 40 "
     "layers, 5120 wide, 40/10 heads, intermediate 17920, vocab 100352),"
     " with a 32k context (max_position_embeddings 32768); parameter count: "
     "computed from the config with the standard tensor inventory; exact "
     "integer; card: \"14B parameters\"; equals Phi-4's 14,659,507,200",
     14659507200ull,
     {
         .arch = KVB_ARCH_PHI3,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_FUSED_QKV | KVB_MODEL_FUSED_GATE_UP,
         .num_hidden_layers = 40u,
         .hidden_size = 5120u,
         .num_attention_heads = 40u,
         .num_key_value_heads = 10u,
         .intermediate_size = 17920u,
         .vocab_size = 100352u,
         .max_position_embeddings = 32768u,
     }},
    {"Gemma-3-1B",
     "google/gemma-3-1b-it,google/gemma-3-1b-pt,gemma-3-1b-it",
     "config: tests/data/configs/gemma-3-1b-it.json (github:mlc-ai/mlc-llm "
     "model_preset.py gemma3_1b_it, a copy of the HF config.json; SOURCES.md):"
     " gemma3_text, text only, 26 layers, 1152 wide, 4/1 heads of 256, sliding "
     "512 with 1 global layer in 6, vocab 262144, tied;"
     " parameter count: computed from the config with the standard tensor "
     "inventory; exact integer; Google's card: \"1B\" (999,885,952 on the HF "
     "page)",
     999885952ull,
     {
         .arch = KVB_ARCH_GEMMA3,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_SANDWICH_NORM | KVB_MODEL_QK_NORM,
         .num_hidden_layers = 26u,
         .hidden_size = 1152u,
         .num_attention_heads = 4u,
         .num_key_value_heads = 1u,
         .head_dim = 256u,
         .intermediate_size = 6912u,
         .vocab_size = 262144u,
         .tie_word_embeddings = 1u,
         .max_position_embeddings = 32768u,
         .sliding_window = 512u,
         .sliding_window_pattern = 6u,
     }},
    {"SmolLM3-3B",
     "HuggingFaceTB/SmolLM3-3B,HuggingFaceTB/SmolLM3-3B-Base",
     "config: HF config.json of HuggingFaceTB/SmolLM3-3B as public tests quote "
     "it (SmolLM3ForCausalLM: 36 layers, 2048 wide, 16/4 heads, intermediate"
     " 11008, vocab 128256, tied, 65536 positions); a Llama whose every fourth "
     "layer skips RoPE, which changes no tensor; parameter count: computed "
     "from the config with the standard tensor inventory; exact integer; "
     "Hugging Face's"
     " card: \"3B\" (3.08B on the HF page)",
     3075098624ull,
     {
         .arch = KVB_ARCH_LLAMA,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 36u,
         .hidden_size = 2048u,
         .num_attention_heads = 16u,
         .num_key_value_heads = 4u,
         .intermediate_size = 11008u,
         .vocab_size = 128256u,
         .tie_word_embeddings = 1u,
         .max_position_embeddings = 65536u,
     }},
    {"Llama-3.1-Nemotron-70B",
     "nvidia/"
     "Llama-3.1-Nemotron-70B-Instruct-HF,Llama-3.1-Nemotron-70B-Instruct-HF",
     "config: NVIDIA's card: Llama-3.1-70B-Instruct fine-tuned with RLHF, the "
     "same LlamaForCausalLM shapes (Llama-3.1-70B config verified"
     " above); parameter count: computed from the config with the standard "
     "tensor inventory; exact integer; equals Llama-3.1-70B's 70,553,706,496 "
     "(card: \"70B\")",
     70553706496ull,
     {
         .arch = KVB_ARCH_LLAMA,
         .dtype = KVB_DTYPE_BF16,
         .flags = 0,
         .num_hidden_layers = 80u,
         .hidden_size = 8192u,
         .num_attention_heads = 64u,
         .num_key_value_heads = 8u,
         .intermediate_size = 28672u,
         .vocab_size = 128256u,
         .max_position_embeddings = 131072u,
     }},
    {"DeepSeek-R1-Distill-Qwen-7B",
     "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
     "config: DeepSeek-R1 card, distilled models table: base model"
     " Qwen2.5-Math-7B, the Qwen2.5-7B shapes (28 layers, 3584 wide, 28/4"
     " heads, q/k/v biases, intermediate 18944, vocab 152064, untied;"
     " config verified above) with 131072 positions; sliding_window 4096"
     " is unused (use_sliding_window false); parameter count: computed from"
     " the config with the standard tensor inventory; exact integer;"
     " equals Qwen2.5-7B's 7,615,616,512 (7.62B on the HF page)",
     7615616512ull,
     {
         .arch = KVB_ARCH_QWEN2,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS,
         .num_hidden_layers = 28u,
         .hidden_size = 3584u,
         .num_attention_heads = 28u,
         .num_key_value_heads = 4u,
         .intermediate_size = 18944u,
         .vocab_size = 152064u,
         .max_position_embeddings = 131072u,
     }},
    {"DeepSeek-R1-Distill-Qwen-14B",
     "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
     "config: DeepSeek-R1 card, distilled models table: base model"
     " Qwen2.5-14B (config verified above: 48 layers, 5120 wide, 40/8"
     " heads, q/k/v biases, intermediate 13824, vocab 152064) with 131072"
     " positions, as the R1-Distill-Qwen-32B row; parameter count: computed"
     " from the config with the standard tensor inventory; exact integer;"
     " equals Qwen2.5-14B's 14,770,033,664 (14.8B on the HF page)",
     14770033664ull,
     {
         .arch = KVB_ARCH_QWEN2,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS,
         .num_hidden_layers = 48u,
         .hidden_size = 5120u,
         .num_attention_heads = 40u,
         .num_key_value_heads = 8u,
         .intermediate_size = 13824u,
         .vocab_size = 152064u,
         .max_position_embeddings = 131072u,
     }},
    /* GLM-4.5 family (glm4_moe).  The counts are what vLLM and SGLang
     * load for plain serving: the checkpoint's MTP layer (layer
     * num_hidden_layers, with its own embed_tokens and shared_head.head
     * copies) is loaded only for speculative decoding, as DeepSeek-V3's
     * row leaves its MTP layer out.  tests/unit/test_read_glm.c adds that
     * layer by hand and meets the checkpoints' safetensors totals. */
    {"GLM-4.5",
     "zai-org/GLM-4.5,THUDM/GLM-4.5,zai-org/GLM-4.5-Base,GLM-4.5-355B-A32B",
     "config: tests/data/configs/glm-4.5.json (zai-org/GLM-4.5 config.json"
     " as public sources quote it; SOURCES.md): 92 layers (first 3 dense),"
     " 5120 wide, 96/8 heads of head_dim 128, q/k/v biases, q/k norms,"
     " 160 routed experts of 1536 + 1 shared, 8 per token, vocab 151552;"
     " parameter count: the standard tensor inventory without the MTP"
     " layer; exact integer; the HF safetensors total 358,337,791,296"
     " = this + the MTP layer's 5,539,962,272 (test_read_glm.c); card:"
     " \"355 billion total parameters\"",
     352797829024ull,
     {
         .arch = KVB_ARCH_GLM4_MOE,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS | KVB_MODEL_QK_NORM |
                  KVB_MODEL_ROUTER_SCORE_BIAS,
         .num_hidden_layers = 92u,
         .hidden_size = 5120u,
         .num_attention_heads = 96u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 12288u,
         .vocab_size = 151552u,
         .max_position_embeddings = 131072u,
         .num_experts = 160u,
         .num_experts_per_tok = 8u,
         .moe_intermediate_size = 1536u,
         .num_shared_experts = 1u,
         .first_k_dense_replace = 3u,
     }},
    {"GLM-4.5-Air",
     "zai-org/GLM-4.5-Air,THUDM/GLM-4.5-Air,zai-org/GLM-4.5-Air-Base,"
     "GLM-4.5-Air-106B-A12B",
     "config: tests/data/configs/glm-4.5-air.json (zai-org/GLM-4.5-Air"
     " config.json as public sources quote it; SOURCES.md): 46 layers"
     " (first 1 dense), 4096 wide, 96/8 heads of head_dim 128, q/k/v"
     " biases, no q/k norms, 128 routed experts of 1408 + 1 shared, 8 per"
     " token, vocab 151552; parameter count: the standard tensor inventory"
     " without the MTP layer; exact integer; the HF safetensors total"
     " 110,468,824,832 = this + the MTP layer's 3,616,573,568, and"
     " PrimeIntellect/INTELLECT-3 (the same shapes, no MTP layer) states"
     " 106,852,251,264; card: \"106 billion total parameters\"",
     106852251264ull,
     {
         .arch = KVB_ARCH_GLM4_MOE,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS | KVB_MODEL_ROUTER_SCORE_BIAS,
         .num_hidden_layers = 46u,
         .hidden_size = 4096u,
         .num_attention_heads = 96u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 10944u,
         .vocab_size = 151552u,
         .max_position_embeddings = 131072u,
         .num_experts = 128u,
         .num_experts_per_tok = 8u,
         .moe_intermediate_size = 1408u,
         .num_shared_experts = 1u,
         .first_k_dense_replace = 1u,
     }},
    {"GLM-4.6",
     "zai-org/GLM-4.6,THUDM/GLM-4.6",
     "config: tests/data/configs/glm-4.6.json (zai-org/GLM-4.6 config.json"
     " as public sources quote it; SOURCES.md): the GLM-4.5 shapes with"
     " 202752 positions (the card: context 128K -> 200K); parameter count:"
     " the standard tensor inventory without the MTP layer; exact integer;"
     " equal to GLM-4.5's (the HF page gives the same 357B/358B checkpoint"
     " as GLM-4.5); card: \"355B\"",
     352797829024ull,
     {
         .arch = KVB_ARCH_GLM4_MOE,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ATTN_QKV_BIAS | KVB_MODEL_QK_NORM |
                  KVB_MODEL_ROUTER_SCORE_BIAS,
         .num_hidden_layers = 92u,
         .hidden_size = 5120u,
         .num_attention_heads = 96u,
         .num_key_value_heads = 8u,
         .head_dim = 128u,
         .intermediate_size = 12288u,
         .vocab_size = 151552u,
         .max_position_embeddings = 202752u,
         .num_experts = 160u,
         .num_experts_per_tok = 8u,
         .moe_intermediate_size = 1536u,
         .num_shared_experts = 1u,
         .first_k_dense_replace = 3u,
     }},
    {"DeepSeek-V3.2-Exp",
     "deepseek-ai/DeepSeek-V3.2-Exp,deepseek-ai/DeepSeek-V3.2-Exp-Base",
     "config: tests/data/configs/deepseek-v3.json (the HF DeepSeek-V3 file)"
     " with the keys DeepSeek-V3.2-Exp's config.json adds (model_type"
     " deepseek_v32, index_n_heads 64, index_head_dim 128, index_topk 2048,"
     " as public tests of that file quote them; tests/unit/test_dsv32.c);"
     " parameter count: the standard tensor inventory plus the lightning"
     " indexer per layer (wq_b, wk, k_norm weight and bias, weights_proj:"
     " 13,959,424), without the MTP layer; exact integer; DeepSeek's card:"
     " the DeepSeek-V3.1-Terminus architecture plus DeepSeek Sparse"
     " Attention; the HF page's 685B counts the MTP layer and the FP8"
     " scales too",
     671877944064ull,
     {
         KVB__DEEPSEEK_V3_SHAPE,
         .index_n_heads = 64u,
         .index_head_dim = 128u,
         .index_topk = 2048u,
     }},
    {"AI21-Jamba-Mini-1.7",
     "ai21labs/AI21-Jamba-Mini-1.7,ai21labs/AI21-Jamba-Mini-1.6,"
     "ai21labs/AI21-Jamba-1.5-Mini,Jamba-Mini-1.7",
     "config: tests/data/configs/jamba-1.5-mini.json (SOURCES.md; the 1.6"
     " and 1.7 Minis keep the 1.5 Mini's architecture, AI21's cards: 12B"
     " active / 52B total); 4 attention layers (attn_layer_period 8, offset"
     " 4) and 28 Mamba1 ones, experts on every odd layer (expert_layer_period"
     " 2, offset 1); parameter count: the inventory, checked by hand in"
     " tests/unit/test_jamba.c, equal to half the BF16"
     " model.safetensors.index.json total_size 103,140,646,656 that a public"
     " model card of a Jamba Mini quotes",
     51570323328ull,
     {
         .arch = KVB_ARCH_JAMBA,
         .dtype = KVB_DTYPE_BF16,
         .num_hidden_layers = 32u,
         .hidden_size = 4096u,
         .num_attention_heads = 32u,
         .num_key_value_heads = 8u,
         .intermediate_size = 14336u,
         .vocab_size = 65536u,
         .max_position_embeddings = 262144u,
         .num_experts = 16u,
         .num_experts_per_tok = 2u,
         .moe_intermediate_size = 14336u,
         .moe_layer_step = 2u,
         .layer_pattern = "SSSSASSSSSSSASSSSSSSASSSSSSSASSS",
         .ssm_num_heads = 8192u,
         .ssm_head_dim = 1u,
         .ssm_n_groups = 1u,
         .ssm_state_size = 16u,
         .ssm_conv_kernel = 4u,
     }},
};

const size_t kvb__model_rows_count = KVB__ARRAY_LEN(kvb__model_rows);
