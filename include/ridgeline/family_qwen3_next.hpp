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
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

inline void read_qwen3_next(const ConfigReader& c, Model& m) {
    const std::int64_t layers = c.layer_count();
    const auto n = static_cast<std::size_t>(layers);
    Gqa full = read_gqa(c, GqaDefaults{2, 256});
    full.qkv_bias = full.o_bias = c.flag_or("attention_bias", false);
    full.qk_norm = true;
    full.output_gate = true;
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
    Moe moe = read_moe(c, "num_experts", "moe_intermediate_size");
    moe.shared_intermediate = c.integer_or("shared_expert_intermediate_size", 512);
    moe.shared_experts = 1;
    moe.shared_gate = true;
    const std::int64_t step = c.at_most_layers("decoder_sparse_step", 1, layers);
    const std::vector<std::int64_t> dense_only = c.layer_indices("mlp_only_layers", layers);
    std::vector<LayerSpec> specs(n);
    std::int64_t intermediate = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const bool listed = std::find(dense_only.begin(), dense_only.end(), static_cast<std::int64_t>(i)) != dense_only.end();
        specs[i].attention = is_full[i] ? Attention{full} : Attention{linear};
        if (!listed && (static_cast<std::int64_t>(i) + 1) % step == 0) {
            specs[i].ffn = moe;
        } else {
            if (intermediate == 0) intermediate = c.integer("intermediate_size");
            specs[i].ffn = DenseMlp{intermediate};
        }
    }
    add_layer_specs(m, specs, c);
    m.mtp_layers = c.root().has("num_nextn_predict_layers") ? c.count_or_zero("num_nextn_predict_layers") : 1;
}

}  // namespace ridgeline::json_detail
