/*
 * readers/config_families.c -- the families config.json can name, as
 * data.  Each row says what its modelling code implies and its config
 * does not spell out: the model_types that name it, its arch, the flags
 * its layers have (Qwen2's q/k/v biases, Gemma's four norms), the keys it
 * spells its own way, its configuration class's defaults, the keys that
 * turn a flag on or off (or that must keep the value modelled), how a
 * recurrent family lists its layer kinds and where it keeps their sizes.
 * Code is left to the hooks a row names, for arithmetic of its own
 * (config.h lists them).  Sources: transformers' configuration_<family>.py
 * and modeling_<family>.py, as each row says.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

/* ---- flag sets ---- */

#define F_BIASES (KVB_MODEL_ATTN_QKV_BIAS | KVB_MODEL_ATTN_O_BIAS)
#define F_GPT_OSS                                                              \
    (F_BIASES | KVB_MODEL_ATTN_SINKS | KVB_MODEL_ROUTER_BIAS |                 \
     KVB_MODEL_MLP_BIAS | KVB_MODEL_FUSED_GATE_UP)
#define F_FALCON                                                               \
    (KVB_MODEL_FUSED_QKV | KVB_MODEL_PARALLEL_ATTN | KVB_MODEL_NORM_BIAS |     \
     KVB_MODEL_MLP_NO_GATE)
#define F_OPT                                                                  \
    (F_BIASES | KVB_MODEL_MLP_BIAS | KVB_MODEL_NORM_BIAS |                     \
     KVB_MODEL_MLP_NO_GATE)
#define F_NEOX                                                                 \
    (KVB_MODEL_FUSED_QKV | F_BIASES | KVB_MODEL_MLP_BIAS |                     \
     KVB_MODEL_NORM_BIAS | KVB_MODEL_MLP_NO_GATE)

/* A recurrent size the config must give, 1..65536. */
#define SSM(keys, member) KVB__SIZED(keys, member, 0, 65536)

/* ---- key rules ---- */

/* attention_bias: q, k, v and o biases; mlp_bias: the MLP's (LlamaConfig
 * and the classes that copy it). */
const kvb__key_rule kvb__standard_rules[] = {
    {"attention_bias", KVB__SET_IF_TRUE, false, F_BIASES, NULL},
    {"mlp_bias", KVB__SET_IF_TRUE, false, KVB_MODEL_MLP_BIAS, NULL},
    {NULL, 0, false, 0, NULL},
};

/* Falcon-H1: vLLM's falcon_h1.py builds q/k/v/o, the MLP and the mixer's
 * out_proj without biases whatever the config says, transformers with
 * them; every TII checkpoint writes false. */
#define FH1_WHY                                                                \
    "vLLM's falcon_h1.py builds that layer without a bias, transformers "      \
    "with one"

/* ---- the families ---- */

static const kvb__family families[] = {
    {.types = "generic", .arch = KVB_ARCH_GENERIC},
    /* LlamaConfig's defaults (configuration_llama.py); Granite 3.x:
     * Llama's tensors (its multipliers change no shape). */
    {
        .types = "llama,granite",
        .arch = KVB_ARCH_LLAMA,
        .defaults = {.vocab_size = 32000,
                     .hidden_size = 4096,
                     .intermediate_size = 11008,
                     .num_hidden_layers = 32,
                     .num_attention_heads = 32,
                     .max_position_embeddings = 2048},
    },
    /* Llama 4: intermediate_size is the expert width, intermediate_size_mlp
     * the dense one; a shared expert in every MoE layer; chunked attention
     * (kvb__cfg_llama4_chunks). */
    {
        .types = "llama4,llama4_text",
        .arch = KVB_ARCH_LLAMA4,
        .shared_experts = 1,
        .keys = {.intermediate_size = "intermediate_size_mlp",
                 .moe_intermediate_size = "intermediate_size",
                 .attention_chunk_size = "attention_chunk_size"},
        .late = kvb__cfg_llama4_chunks,
    },
    /* MistralConfig (configuration_mistral.py) */
    {
        .types = "mistral",
        .arch = KVB_ARCH_MISTRAL,
        .defaults = {.vocab_size = 32000,
                     .hidden_size = 4096,
                     .intermediate_size = 14336,
                     .num_hidden_layers = 32,
                     .num_attention_heads = 32,
                     .num_key_value_heads = 8,
                     .max_position_embeddings = 131072},
    },
    {.types = "mixtral", .arch = KVB_ARCH_MIXTRAL},
    /* Qwen2 (Qwen2Config): q/k/v biases; the window only with
     * use_sliding_window.  The Qwen2-VL language models are Qwen2's. */
    {
        .types = "qwen2,qwen2_vl,qwen2_5_vl,qwen2_5_vl_text",
        .arch = KVB_ARCH_QWEN2,
        .flags = KVB_MODEL_ATTN_QKV_BIAS,
        .window = KVB__WINDOW_GATED,
        .defaults = {.vocab_size = 151936,
                     .hidden_size = 4096,
                     .intermediate_size = 22016,
                     .num_hidden_layers = 32,
                     .num_attention_heads = 32,
                     .num_key_value_heads = 32,
                     .max_position_embeddings = 32768},
    },
    /* Qwen3 (Qwen3Config): q/k norms over head_dim */
    {
        .types = "qwen3,qwen3_vl_text",
        .arch = KVB_ARCH_QWEN3,
        .flags = KVB_MODEL_QK_NORM,
        .window = KVB__WINDOW_GATED,
        .defaults = {.vocab_size = 151936,
                     .hidden_size = 4096,
                     .intermediate_size = 22016,
                     .num_hidden_layers = 32,
                     .num_attention_heads = 32,
                     .num_key_value_heads = 32,
                     .head_dim = 128,
                     .max_position_embeddings = 32768},
    },
    {
        .types = "qwen3_moe,qwen3_vl_moe_text",
        .arch = KVB_ARCH_QWEN3_MOE,
        .flags = KVB_MODEL_QK_NORM,
        .window = KVB__WINDOW_GATED,
    },
    /* Gemma 2 (Gemma2Config): four norms per layer, tied embeddings,
     * every other layer slides */
    {
        .types = "gemma2",
        .arch = KVB_ARCH_GEMMA2,
        .flags = KVB_MODEL_SANDWICH_NORM,
        .tied = 1,
        .pattern = 2,
        .defaults = {.vocab_size = 256000,
                     .hidden_size = 2304,
                     .intermediate_size = 9216,
                     .num_hidden_layers = 26,
                     .num_attention_heads = 8,
                     .num_key_value_heads = 4,
                     .head_dim = 256,
                     .max_position_embeddings = 8192,
                     .sliding_window = 4096},
    },
    /* Gemma 3 (Gemma3TextConfig): Gemma 2's norms plus q/k norms; five
     * sliding layers to one global.  A published Gemma 3 config gives
     * neither vocab_size nor head_dim nor the head counts. */
    {
        .types = "gemma3,gemma3_text",
        .arch = KVB_ARCH_GEMMA3,
        .flags = KVB_MODEL_SANDWICH_NORM | KVB_MODEL_QK_NORM,
        .tied = 1,
        .pattern = 6,
        .defaults = {.vocab_size = 262208,
                     .hidden_size = 2304,
                     .intermediate_size = 9216,
                     .num_hidden_layers = 26,
                     .num_attention_heads = 8,
                     .num_key_value_heads = 4,
                     .head_dim = 256,
                     .max_position_embeddings = 131072,
                     .sliding_window = 4096},
    },
    /* Phi-3: qkv_proj and gate_up_proj are single tensors */
    {
        .types = "phi3",
        .arch = KVB_ARCH_PHI3,
        .flags = KVB_MODEL_FUSED_QKV | KVB_MODEL_FUSED_GATE_UP,
    },
    /* DeepSeek V2/V3 (and the DeepseekV3ForCausalLM checkpoints under
     * kimi_k2); V3.2's lightning indexer in kvb__cfg_deepseek_indexer. */
    {
        .types = "deepseek_v3,deepseek_v2,deepseek_v32,kimi_k2",
        .arch = KVB_ARCH_DEEPSEEK_V3,
        .late = kvb__cfg_deepseek_indexer,
    },
    /* gpt-oss: biases everywhere, attention sinks, a biased router, fused
     * expert gate/up; every other layer slides */
    {
        .types = "gpt_oss",
        .arch = KVB_ARCH_GPT_OSS,
        .flags = F_GPT_OSS,
        .pattern = 2,
    },
    /* Falcon (FalconConfig; RefinedWeb* are its older names): fused qkv,
     * one norm before attention and MLP unless new_decoder_architecture or
     * parallel_attn false, a non-gated MLP 4 x hidden wide, `bias` for
     * every linear, 2048 positions; its KV heads in kvb__cfg_falcon_heads. */
    {
        .types = "falcon,RefinedWeb,RefinedWebModel",
        .arch = KVB_ARCH_FALCON,
        .flags = F_FALCON,
        .tied = 1,
        .width_mult = 4,
        .keys = {.intermediate_size = "ffn_hidden_size"},
        .defaults = {.max_position_embeddings = 2048},
        .own_rules = true,
        .rules = KVB__LIST(kvb__key_rule,
                           {"bias", KVB__SET_IF_TRUE, false,
                            F_BIASES | KVB_MODEL_MLP_BIAS, NULL},
                           {"new_decoder_architecture", KVB__CLEAR_IF_TRUE,
                            false, KVB_MODEL_PARALLEL_ATTN, NULL},
                           {"parallel_attn", KVB__CLEAR_IF_FALSE, true,
                            KVB_MODEL_PARALLEL_ATTN, NULL}),
        .early = kvb__cfg_falcon_heads,
    },
    /* OPT: biases and LayerNorms everywhere, fc1/fc2, learned positions
     * with an offset of 2 (OPTLearnedPositionalEmbedding) */
    {
        .types = "opt",
        .arch = KVB_ARCH_OPT,
        .flags = F_OPT,
        .tied = 1,
        .pos_offset = 2,
        .keys = {.intermediate_size = "ffn_dim"},
        .own_rules = true,
        .rules =
            KVB__LIST(kvb__key_rule, {"enable_bias", KVB__CLEAR_IF_FALSE, true,
                                      F_BIASES | KVB_MODEL_MLP_BIAS, NULL}),
        .early = kvb__cfg_opt_projection,
    },
    /* GPT-NeoX, Pythia: fused query_key_value, biases, LayerNorms */
    {
        .types = "gpt_neox",
        .arch = KVB_ARCH_GPT_NEOX,
        .flags = F_NEOX,
        .own_rules = true,
        .rules =
            KVB__LIST(kvb__key_rule, {"attention_bias", KVB__CLEAR_IF_FALSE,
                                      true, F_BIASES, NULL}),
    },
    /* Qwen2-MoE, Qwen1.5-MoE: q/k/v biases, a sigmoid-gated shared expert */
    {
        .types = "qwen2_moe",
        .arch = KVB_ARCH_QWEN2_MOE,
        .flags = KVB_MODEL_ATTN_QKV_BIAS | KVB_MODEL_SHARED_EXPERT_GATE,
        .window = KVB__WINDOW_GATED,
    },
    /* Qwen3-Next (configuration_qwen3_next.py) and Qwen3.5's language
     * model: gated attention (q_proj twice as wide; Qwen3.5's
     * attn_output_gate), q/k norms, a sigmoid-gated shared expert.
     * layer_types names each layer "linear_attention" (Gated DeltaNet,
     * 'G') or "full_attention" ('A'); without it, layer i is full iff
     * (i + 1) % full_attention_interval == 0.  Qwen3.5 writes in_proj_qkv
     * + in_proj_z + in_proj_b + in_proj_a, which hold what in_proj_qkvz +
     * in_proj_ba hold.  The mtp.* layers load only for speculative
     * decoding and are not in the inventory. */
    {
        .types = "qwen3_next,qwen3_5_text,qwen3_5_moe_text",
        .arch = KVB_ARCH_QWEN3_NEXT,
        .flags = KVB_MODEL_QK_NORM | KVB_MODEL_SHARED_EXPERT_GATE |
                 KVB_MODEL_ATTN_GATE,
        .rules =
            KVB__LIST(kvb__key_rule, {"attn_output_gate", KVB__CLEAR_IF_FALSE,
                                      true, KVB_MODEL_ATTN_GATE, NULL}),
        .layers = KVB__LIST(
            kvb__layer_rule,
            {KVB__LAYERS_LIST, "layer_types", "linear_attention,full_attention",
             "GA"},
            {KVB__LAYERS_EVERY, "full_attention_interval", NULL, "AG"}),
        .ssm =
            KVB__LIST(kvb__sized, SSM("linear_num_value_heads", ssm_num_heads),
                      SSM("linear_value_head_dim", ssm_head_dim),
                      SSM("linear_num_key_heads", ssm_n_groups),
                      SSM("linear_key_head_dim", ssm_state_size),
                      SSM("linear_conv_kernel_dim", ssm_conv_kernel)),
    },
    /* Nemotron-H (configuration_nemotron_h.py; vLLM nemotron_h.py builds
     * one block per character): hybrid_override_pattern gives each block
     * as M (Mamba2), * (attention), - (MLP) or E (MoE), the letters
     * layer_pattern uses; newer configs spell it layers_block_type.  relu2
     * MLPs of up_proj and down_proj only; the MoE router keeps an
     * e_score_correction_bias; mamba_ssm_cache_dtype, when given, is the
     * temporal state's dtype. */
    {
        .types = "nemotron_h",
        .arch = KVB_ARCH_NEMOTRON_H,
        .flags = KVB_MODEL_MLP_NO_GATE,
        .moe_flags = KVB_MODEL_ROUTER_SCORE_BIAS,
        .keys = {.head_dim = "head_dim,attention_head_dim",
                 .shared_expert_intermediate_size =
                     "moe_shared_expert_intermediate_size"},
        .rules = KVB__LIST(kvb__key_rule,
                           {"moe_latent_size", KVB__REFUSE_PRESENT, false, 0,
                            "latent MoE projections are not in the "
                            "inventory"}),
        .mixer = {"use_conv_bias", "mamba_proj_bias,use_bias"},
        .layers = KVB__LIST(
            kvb__layer_rule,
            {KVB__LAYERS_LETTERS, "hybrid_override_pattern", NULL, "M*-E"},
            {KVB__LAYERS_LIST, "layers_block_type", "mamba,attention,mlp,moe",
             "M*-E"}),
        .ssm = KVB__LIST(kvb__sized, SSM("mamba_num_heads", ssm_num_heads),
                         SSM("mamba_head_dim", ssm_head_dim),
                         SSM("n_groups,mamba_n_groups", ssm_n_groups),
                         SSM("ssm_state_size", ssm_state_size),
                         SSM("conv_kernel,mamba_d_conv", ssm_conv_kernel)),
        .state_dtype_key = "mamba_ssm_cache_dtype",
    },
    /* Granite-4.0-H (configuration_granitemoehybrid.py; vLLM
     * granitemoehybrid.py): every layer is a mixer, "mamba" (Mamba2, 'm')
     * or "attention" ('A') in layer_types, then gated SiLU experts and a
     * shared MLP of shared_intermediate_size (the dense MLP when there
     * are no experts, kvb__cfg_granite_h); mamba_d_head may be "auto"
     * (kvb__cfg_granite_head). */
    {
        .types = "granitemoehybrid",
        .arch = KVB_ARCH_GRANITE_H,
        .keys = {.shared_expert_intermediate_size = "shared_intermediate_size"},
        .mixer = {"mamba_conv_bias", "mamba_proj_bias"},
        .layers = KVB__LIST(kvb__layer_rule, {KVB__LAYERS_LIST, "layer_types",
                                              "mamba,attention", "mA"}),
        .ssm = KVB__LIST(kvb__sized, SSM("mamba_n_heads", ssm_num_heads),
                         SSM("mamba_n_groups", ssm_n_groups),
                         SSM("mamba_d_state", ssm_state_size),
                         SSM("mamba_d_conv", ssm_conv_kernel)),
        .late = kvb__cfg_granite_h,
        .ssm_head = kvb__cfg_granite_head,
    },
    /* GLM-4.5/4.6 (modeling_glm4_moe.py): the router always holds
     * e_score_correction_bias (Glm4MoeTopkRouter); attention_bias gives
     * q/k/v biases only (o_proj has none), use_qk_norm q/k norms over
     * head_dim.  partial_rotary_factor changes no tensor. */
    {
        .types = "glm4_moe",
        .arch = KVB_ARCH_GLM4_MOE,
        .flags = KVB_MODEL_ROUTER_SCORE_BIAS,
        .own_rules = true,
        .rules = KVB__LIST(
            kvb__key_rule,
            {"attention_bias", KVB__SET_IF_TRUE, false, KVB_MODEL_ATTN_QKV_BIAS,
             NULL},
            {"use_qk_norm", KVB__SET_IF_TRUE, false, KVB_MODEL_QK_NORM, NULL}),
    },
    /* Jamba (configuration_jamba.py, modeling_jamba.py): plain q/k/v/o,
     * gated SiLU MLPs and experts; Mamba1 mixers whose layout and width
     * are arithmetic (kvb__cfg_jamba). */
    {
        .types = "jamba",
        .arch = KVB_ARCH_JAMBA,
        .mixer = {"mamba_conv_bias", "mamba_proj_bias"},
        .ssm = KVB__LIST(kvb__sized, SSM("mamba_d_state", ssm_state_size),
                         SSM("mamba_d_conv", ssm_conv_kernel)),
        .late = kvb__cfg_jamba,
    },
    /* Falcon-H1 (configuration_falcon_h1.py, modular_falcon_h1.py; vLLM
     * falcon_h1.py FalconH1ParallelHybrid): every layer runs Llama
     * attention and a Mamba2 mixer side by side on one input norm, then
     * pre_ff_layernorm and a gated SiLU MLP ('P').  The mixer's gated norm
     * exists only with mamba_rms_norm; its width and head width in
     * kvb__cfg_falcon_h1_head.  The *_multiplier keys scale activations
     * and change no size. */
    {
        .types = "falcon_h1",
        .arch = KVB_ARCH_FALCON_H1,
        .own_rules = true,
        .rules =
            KVB__LIST(kvb__key_rule,
                      {"attention_bias", KVB__REFUSE_TRUE, false, 0, FH1_WHY},
                      {"mlp_bias", KVB__REFUSE_TRUE, false, 0, FH1_WHY},
                      {"projectors_bias", KVB__REFUSE_TRUE, false, 0, FH1_WHY},
                      {"mamba_rms_norm", KVB__SET_IF_FALSE, false,
                       KVB_MODEL_SSM_NO_NORM, NULL}),
        .mixer = {"mamba_conv_bias", "mamba_proj_bias"},
        .layers =
            KVB__LIST(kvb__layer_rule, {KVB__LAYERS_ALL, NULL, NULL, "P"}),
        .ssm = KVB__LIST(kvb__sized, SSM("mamba_n_heads", ssm_num_heads),
                         SSM("mamba_n_groups", ssm_n_groups),
                         SSM("mamba_d_state", ssm_state_size),
                         SSM("mamba_d_conv", ssm_conv_kernel)),
        .ssm_head = kvb__cfg_falcon_h1_head,
    },
    /* Gemma 3n (configuration_gemma3n.py, modeling_gemma3n.py): Gemma 3's
     * q/k norms and four norms per layer; tied embeddings; layer_types'
     * default makes every 5th layer global; intermediate_size may be a
     * list, read with the per-layer keys in kvb__cfg_gemma3n_text.
     * Gemma3nTextConfig's defaults. */
    {
        .types = "gemma3n,gemma3n_text",
        .arch = KVB_ARCH_GEMMA3N,
        .flags = KVB_MODEL_SANDWICH_NORM | KVB_MODEL_QK_NORM,
        .tied = 1,
        .pattern = 5,
        .keys = {.intermediate_size = ""},
        .defaults = {.vocab_size = 262400,
                     .hidden_size = 2048,
                     .intermediate_size = 16384,
                     .num_hidden_layers = 35,
                     .num_attention_heads = 8,
                     .num_key_value_heads = 2,
                     .head_dim = 256,
                     .max_position_embeddings = 32768,
                     .sliding_window = 512},
        .early = kvb__cfg_gemma3n_text,
    },
    /* Zamba2 (configuration_zamba2.py, modeling_zamba2.py; vLLM
     * zamba2.py): layers_block_type names each layer "mamba" (a Mamba2
     * layer, 'M') or "hybrid" (a shared transformer block, its adapters
     * and linear, then a Mamba2 layer; 'Z', made 'z' where it reuses a
     * block, kvb__cfg_zamba2).  The shared blocks' gate_up_proj is one
     * tensor; lm_head is the embedding (Zamba2ForCausalLM.
     * _tied_weights_keys; vLLM zamba2.py ties it whatever the config
     * says).  add_bias_linear adds projection and MLP biases the inventory
     * does not hold.  Zamba2Config's Mamba2 defaults; the head width in
     * kvb__cfg_zamba2_head. */
    {
        .types = "zamba2",
        .arch = KVB_ARCH_ZAMBA2,
        .flags = KVB_MODEL_FUSED_GATE_UP,
        .tied = 1,
        .rules = KVB__LIST(kvb__key_rule,
                           {"use_shared_attention_adapter", KVB__SET_IF_TRUE,
                            false, KVB_MODEL_SHARED_ATTN_ADAPTER, NULL}),
        .mixer = {"use_conv_bias", "add_bias_linear"},
        .layers =
            KVB__LIST(kvb__layer_rule, {KVB__LAYERS_LIST, "layers_block_type",
                                        "mamba,hybrid", "MZ"}),
        .ssm = KVB__LIST(kvb__sized,
                         KVB__SIZED("n_mamba_heads", ssm_num_heads, 8, 65536),
                         KVB__SIZED("mamba_ngroups", ssm_n_groups, 1, 65536),
                         KVB__SIZED("mamba_d_state", ssm_state_size, 64, 65536),
                         KVB__SIZED("mamba_d_conv", ssm_conv_kernel, 4, 65536)),
        .late = kvb__cfg_zamba2,
        .ssm_head = kvb__cfg_zamba2_head,
    },
    /* Gemma, the first (configuration_gemma.py, modeling_gemma.py):
     * Llama's layers (two RMSNorms, q/k/v/o with attention_bias, a gated
     * GeGLU MLP) with head_dim written out (256) and the embeddings tied
     * (vLLM gemma.py asserts it) and scaled by sqrt(hidden_size), which
     * changes no tensor.  GemmaConfig's defaults are the 7B's shape. */
    {
        .types = "gemma",
        .arch = KVB_ARCH_GEMMA,
        .tied = 1,
        .defaults = {.vocab_size = 256000,
                     .hidden_size = 3072,
                     .intermediate_size = 24576,
                     .num_hidden_layers = 28,
                     .num_attention_heads = 16,
                     .num_key_value_heads = 16,
                     .head_dim = 256,
                     .max_position_embeddings = 8192},
    },
    /* Phi-1.5, Phi-2 (configuration_phi.py, modeling_phi.py; vLLM
     * phi.py): attention and a non-gated GELU MLP side by side on one
     * LayerNorm with a bias; q/k/v, dense, fc1 and fc2 with biases; a
     * final_layernorm; an untied lm_head with a bias.
     * partial_rotary_factor rotates part of each head and changes no
     * tensor.  PhiConfig's defaults are Phi-1's shape. */
    {
        .types = "phi",
        .arch = KVB_ARCH_PHI,
        .flags = F_BIASES | KVB_MODEL_MLP_BIAS | KVB_MODEL_NORM_BIAS |
                 KVB_MODEL_MLP_NO_GATE | KVB_MODEL_PARALLEL_ATTN |
                 KVB_MODEL_LM_HEAD_BIAS,
        .defaults = {.vocab_size = 51200,
                     .hidden_size = 2048,
                     .intermediate_size = 8192,
                     .num_hidden_layers = 24,
                     .num_attention_heads = 32,
                     .max_position_embeddings = 2048},
        .own_rules = true,
        .rules = KVB__LIST(
            kvb__key_rule,
            {"qk_layernorm", KVB__REFUSE_TRUE, false, 0,
             "its q_layernorm and k_layernorm are not in vLLM's phi.py, "
             "which cannot load them"},
            {"tie_word_embeddings", KVB__REFUSE_TRUE, false, 0,
             "vLLM's phi.py asserts an untied lm_head, which has a bias"}),
    },
    /* mllama (Llama 3.2 Vision; its text_config is mllama_text_model):
     * Llama self-attention layers and the cross-attention layers that
     * kvb__cfg_mllama_cross marks. */
    {
        .types = "mllama,mllama_text_model",
        .arch = KVB_ARCH_MLLAMA,
        .late = kvb__cfg_mllama_cross,
    },
};

/* Whether `type` is one of the comma-separated `types` (ASCII case
 * ignored, as kvb_arch_find does). */
static bool names(const char *types, const char *type)
{
    char one[64];
    for (const char *t = types; *t;) {
        size_t len = strcspn(t, ",");
        snprintf(one, sizeof one, "%.*s", (int)len, t);
        if (kvb__strcasecmp(one, type) == 0)
            return true;
        t += len + (t[len] == ',');
    }
    return false;
}

const kvb__family *kvb__family_find(const char *model_type)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(families); i++)
        if (names(families[i].types, model_type))
            return &families[i];
    return NULL;
}

const kvb__family *kvb__family_of(int32_t arch)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(families); i++)
        if (families[i].arch == arch)
            return &families[i];
    return &families[0];
}

uint32_t kvb__family_flags(int32_t arch)
{
    return kvb__family_of(arch)->flags;
}

/* Recurrent families whose layers are not modelled: refused by name,
 * also under KVB_READ_ASSUME_LLAMA, since a Llama-shaped reading would
 * plan their recurrent layers as attention. */
static const struct {
    const char *type, *missing;
} unmodelled[] = {
    {"zamba", "Mamba1 layers with a shared attention block"},
    {"bamba", "its attn_layer_indices layout (Mamba2 + MLP layers)"},
    {"mamba", "attention-free Mamba1 layers"},
    {"mamba2", "attention-free Mamba2 layers"},
    {"falcon_mamba", "attention-free Mamba1 layers"},
    {"lfm2", "short-convolution layers (conv_L_cache state)"},
    {"minimax", "lightning (linear) attention layers"},
    {"minimax_text_01", "lightning (linear) attention layers"},
    {"kimi_linear", "Kimi Delta Attention layers"},
    {"rwkv", "RWKV time-mix layers"},
    {"rwkv7", "RWKV time-mix layers"},
    {"plamo2", "Mamba layers"},
};

kvb_status kvb__cfg_refuse_unmodelled(kvb__cfg *c, const char *type)
{
    for (size_t i = 0; type && i < KVB__ARRAY_LEN(unmodelled); i++)
        if (kvb__strcasecmp(type, unmodelled[i].type) == 0)
            return kvb__cfg_fail(c, KVB_EUNSUPPORTED, "model_type",
                                 "model_type (%s) has recurrent layers that "
                                 "are not modelled: %s; planning them as "
                                 "attention would be wrong, so it is refused "
                                 "(also with assume-llama)",
                                 type, unmodelled[i].missing);
    return KVB_OK;
}
