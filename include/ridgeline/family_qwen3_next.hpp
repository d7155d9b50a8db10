// Qwen3-Next: three Gated DeltaNet (linear-attention) layers to each full-attention layer, the
// full ones with an output gate folded into q_proj and q/k norms; routed experts with one gated
// shared expert on every layer.
//
// Defaults: Qwen3NextConfig, huggingface/transformers
//   src/transformers/models/qwen3_next/configuration_qwen3_next.py @008e574391258935f3ecc3035c882e73bbcac419:
//   num_key_value_heads=2, head_dim=256, attention_bias=False, linear_conv_kernel_dim=4,
//   linear_key_head_dim=128, linear_value_head_dim=128, linear_num_key_heads=16,
//   linear_num_value_heads=32, decoder_sparse_step=1, mlp_only_layers=[],
//   shared_expert_intermediate_size=512, full_attention_interval=4 (layer_types absent:
//   "linear_attention" if (i + 1) % 4 else "full_attention"), tie_word_embeddings=False.
// Multi-token prediction: the checkpoint carries one module (mtp.*) its config does not declare;
// vLLM builds num_nextn_predict_layers of them, 1 where the config is silent, each a
// full-attention MoE decoder layer behind fc (2h -> h) and two norms, sharing the embeddings and
// LM head (vllm-project/vllm@ffdc985737c94233f2c88629c4450022e5bf4925
// vllm/model_executor/models/qwen3_next_mtp.py, Qwen3NextMultiTokenPredictor): the model's
// last layer (full attention every fourth, MoE) as mtp_block copies it. Not loaded to decode.
//
// Qwen3.5's language models (qwen3_5_text, dense; qwen3_5_moe_text; each inside a wrapper's
// text_config beside its vision tower) are Qwen3-Next's layers under other tensor names: the
// Gated DeltaNet's in_proj_qkvz and in_proj_ba split into in_proj_qkv, in_proj_z, in_proj_b and
// in_proj_a (the same sizes), the attention and experts Qwen3-Next's own.
//   Defaults: Qwen3_5TextConfig and Qwen3_5MoeTextConfig, huggingface/transformers
//   src/transformers/models/qwen3_5/configuration_qwen3_5.py and
//   qwen3_5_moe/configuration_qwen3_5_moe.py @008e574391258935f3ecc3035c882e73bbcac419:
//   num_key_value_heads=4 (dense) or 2 (MoE), head_dim=256, the linear-attention sizes and
//   full_attention_interval as Qwen3-Next's, shared_expert_intermediate_size=512. The MoE class
//   deletes decoder_sparse_step and mlp_only_layers (every layer routes) and the dense one every
//   expert key (every layer a gated MLP); attn_output_gate is no field of either and the
//   attention always gates (modeling_qwen3_5.py @009e78d6e89fd6f3e68cf81ba95ccc682c8cdda9),
//   so an absent key means true. mtp_num_hidden_layers names the MTP modules the checkpoint
//   ships (mtp.*, which vLLM loads only to draft: vllm/model_executor/models/qwen3_5.py
//   @00def4f8421153e037ff6270c0a8c31912a00206 skips "mtp."); absent, none is counted.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

inline void read_qwen3_next(const ConfigReader& c, Model& m) {
    const std::int64_t layers = c.layer_count();
    const auto n = static_cast<std::size_t>(layers);
    const bool qwen3_5_dense = c.family() == "qwen3_5_text", qwen3_5 = qwen3_5_dense || c.family() == "qwen3_5_moe_text";
    Gqa full = read_gqa(c, GqaDefaults{qwen3_5_dense ? 4 : 2, 256});
    full.qkv_bias = full.o_bias = c.flag_or("attention_bias", false);
    full.qk_norm = true;
    full.output_gate = !qwen3_5 || c.flag_or("attn_output_gate", true);
    const GatedDeltaNet linear{c.integer_or("linear_num_key_heads", 16), c.integer_or("linear_num_value_heads", 32),
                               c.integer_or("linear_key_head_dim", 128), c.integer_or("linear_value_head_dim", 128),
                               c.integer_or("linear_conv_kernel_dim", 4)};
    std::vector<bool> is_full(n);
    if (c.present("layer_types")) {
        const auto types = layer_types(c, layers, {"linear_attention", "full_attention"});
        for (std::size_t i = 0; i < n; ++i) is_full[i] = types[i] == "full_attention";
    } else {
        const std::int64_t every = c.at_most_layers("full_attention_interval", 4, layers);
        for (std::size_t i = 0; i < n; ++i) is_full[i] = (static_cast<std::int64_t>(i) + 1) % every == 0;
    }
    std::vector<LayerSpec> specs(n);
    for (std::size_t i = 0; i < n; ++i) specs[i].attention = is_full[i] ? Attention{full} : Attention{linear};
    if (qwen3_5_dense) {
        const DenseMlp mlp{c.integer("intermediate_size")};
        for (LayerSpec& s : specs) s.ffn = mlp;
    } else {
        Moe moe = read_moe(c, "num_experts", "moe_intermediate_size");
        moe.shared_intermediate = c.integer_or("shared_expert_intermediate_size", 512);
        moe.shared_experts = 1;
        moe.shared_gate = true;
        const std::int64_t step = qwen3_5 ? 1 : c.at_most_layers("decoder_sparse_step", 1, layers);
        const std::vector<std::int64_t> dense_only = qwen3_5 ? std::vector<std::int64_t>{} : c.layer_indices("mlp_only_layers", layers);
        std::int64_t intermediate = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const bool listed = std::find(dense_only.begin(), dense_only.end(), static_cast<std::int64_t>(i)) != dense_only.end();
            if (!listed && (static_cast<std::int64_t>(i) + 1) % step == 0) {
                specs[i].ffn = moe;
            } else {
                if (intermediate == 0) intermediate = c.integer("intermediate_size");
                specs[i].ffn = DenseMlp{intermediate};
            }
        }
    }
    add_layer_specs(m, specs, c);
    if (qwen3_5) m.mtp_layers = c.count_or_zero("mtp_num_hidden_layers");
    else m.mtp_layers = c.root().has("num_nextn_predict_layers") ? c.count_or_zero("num_nextn_predict_layers") : 1;
}

}  // namespace ridgeline::json_detail
