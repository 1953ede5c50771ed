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
     "mistralai/Mistral-Small-24B-Base-2501,Mistral-Small-24B-Base-2501",
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
     "deepseek-ai/DeepSeek-V3,deepseek-ai/DeepSeek-R1,DeepSeek-V3,DeepSeek-R1",
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
     " shared_head.head; active counts embedding+head",
     671026419200ull,
     {
         .arch = KVB_ARCH_DEEPSEEK_V3,
         .dtype = KVB_DTYPE_BF16,
         .flags = KVB_MODEL_ROUTER_SCORE_BIAS,
         .num_hidden_layers = 61u,
         .hidden_size = 7168u,
         .num_attention_heads = 128u,
         .num_key_value_heads = 128u,
         .intermediate_size = 18432u,
         .vocab_size = 129280u,
         .max_position_embeddings = 163840u,
         .num_experts = 256u,
         .num_experts_per_tok = 8u,
         .moe_intermediate_size = 2048u,
         .num_shared_experts = 1u,
         .first_k_dense_replace = 3u,
         .kv_lora_rank = 512u,
         .q_lora_rank = 1536u,
         .qk_rope_head_dim = 64u,
         .qk_nope_head_dim = 128u,
         .v_head_dim = 128u,
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
};

const size_t kvb__model_rows_count = KVB__ARRAY_LEN(kvb__model_rows);
