// GPT-J (model_type gptj): rotary attention whose q, k, v and out projections have no biases;
// one LayerNorm (weight and bias) before the attention and MLP, which run in parallel; a
// two-matrix GELU MLP with biases; an untied lm_head (its bias, one per vocabulary entry, not
// counted).
//
// The file names the common sizes its own way, as GPTJConfig's properties read them
// (huggingface/transformers src/transformers/models/gptj/configuration_gptj.py
// @0bedd3309fc97281835ab2f1a8e967a9d1a27c9e): hidden_size is n_embd, num_hidden_layers n_layer,
// num_attention_heads n_head, max_position_embeddings n_positions. Defaults there: n_inner=None
// (4 x n_embd); tie_word_embeddings is left to PretrainedConfig's default, True (GPT-J 6B's own
// config.json says false). Every head has its own K and V.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

inline std::string gptj_key(const std::string& common) {
    if (common == "hidden_size") return "n_embd";
    if (common == "num_hidden_layers") return "n_layer";
    if (common == "num_attention_heads") return "n_head";
    if (common == "max_position_embeddings") return "n_positions";
    return common;
}

inline void read_gptj(const ConfigReader& c, Model& m) {
    const std::int64_t layers = c.layer_count();
    LayerSpec spec;
    spec.attention = read_gqa(c, GqaDefaults{});
    spec.norms = 2;  // one LayerNorm: weight and bias
    const std::int64_t four_wide = 4 * c.integer("hidden_size");
    spec.ffn = NonGatedMlp{c.integer_absent_null("n_inner", four_wide, four_wide), true};
    add_layer_specs(m, std::vector<LayerSpec>(static_cast<std::size_t>(layers), spec), c.root());
}

}  // namespace ridgeline::json_detail
