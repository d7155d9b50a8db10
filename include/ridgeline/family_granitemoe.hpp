// Granite MoE (granite-3.x-*-a*m): Llama-style GQA with routed experts (input_linear holds gate
// and up, output_linear down) and a router without bias; no shared expert.
//
// Defaults: GraniteMoeConfig, huggingface/transformers
//   src/transformers/models/granitemoe/configuration_granitemoe.py @040e1a7e4bb4f48ff62dfbbb1f6f8eff23e894ac:
//   num_key_value_heads=None (heads), attention_bias=False, num_local_experts=8,
//   num_experts_per_tok=2, tie_word_embeddings=False; intermediate_size is each expert's width.
//   Not checked against a Hub config.json here (none was found).
#pragma once

#include <cstdint>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

inline void read_granitemoe(const ConfigReader& c, Model& m) {
    const std::int64_t layers = c.layer_count();
    Gqa a = read_gqa(c, GqaDefaults{});
    a.qkv_bias = a.o_bias = c.flag_or("attention_bias", false);
    LayerSpec spec;
    spec.attention = a;
    spec.ffn = read_moe(c, "num_local_experts", "intermediate_size", 8, 2);
    add_layer_specs(m, std::vector<LayerSpec>(static_cast<std::size_t>(layers), spec), c);
}

}  // namespace ridgeline::json_detail
