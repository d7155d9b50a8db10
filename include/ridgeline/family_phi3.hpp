// Phi-3, Phi-3.5 and Phi-4 (model_type phi3: fused qkv and gate-up projections, which count as
// the separate ones), and Phi-3.5-MoE (phimoe: routed experts, LayerNorms with biases).
//
// Defaults (huggingface/transformers):
//   phi3    Phi3Config, src/transformers/models/phi3/configuration_phi3.py @008e574391258935f3ecc3035c882e73bbcac419:
//           num_key_value_heads=None (heads), head_dim hidden/heads, sliding_window=None,
//           tie_word_embeddings=False; Phi3Attention's projections have no biases.
//   phimoe  PhimoeConfig, src/transformers/models/phimoe/configuration_phimoe.py: num_key_value_heads=8,
//           num_local_experts=16, num_experts_per_tok=2, attention_bias=False, sliding_window=None,
//           tie_word_embeddings=False. Not checked against a Hub config.json here (none was found);
//           its lm_head bias (lm_head_bias=False by default) is not counted.
#pragma once

#include <cstdint>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

inline void read_phi3(const ConfigReader& c, Model& m) {
    const bool moe = c.family() == "phimoe";
    const std::int64_t layers = c.layer_count();
    Gqa a = read_gqa(c, moe ? GqaDefaults{8, {}} : GqaDefaults{});
    if (moe) a.qkv_bias = a.o_bias = c.flag_or("attention_bias", false);
    LayerSpec spec;
    spec.attention = a;
    spec.window = c.integer_absent_null("sliding_window", 0, 0);
    if (moe) {
        spec.ffn = read_moe(c, "num_local_experts", "intermediate_size", 16, 2);
        spec.norms = 4;  // two LayerNorms, weight and bias each
    } else {
        spec.ffn = DenseMlp{c.integer("intermediate_size")};
    }
    add_layer_specs(m, std::vector<LayerSpec>(static_cast<std::size_t>(layers), spec), c);
}

}  // namespace ridgeline::json_detail
