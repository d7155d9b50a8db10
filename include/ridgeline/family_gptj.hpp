// GPT-J (model_type gptj): rotary attention whose q, k, v and out projections have no biases,
// every head with its own K and V; one LayerNorm (weight and bias) before the attention and MLP,
// which run in parallel; a two-matrix GELU MLP with biases; an untied lm_head (its bias, one per
// vocabulary entry, not counted).
//
// GPTJConfig (huggingface/transformers src/transformers/models/gptj/configuration_gptj.py
// @c4c7dfb77cf6d24ac1d7857226c4da0c1bfbf11d): attribute_map names the common sizes in the
// file's keys (hidden_size is n_embd, num_hidden_layers n_layer, num_attention_heads n_head,
// max_position_embeddings n_positions); n_inner=None (4 x n_embd); tie_word_embeddings=False.
// It has no num_key_value_heads or head_dim: those keys, if a file had them, would not change
// the model transformers builds, so they are not read.
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
    const std::int64_t hidden = c.integer("hidden_size"), heads = c.integer("num_attention_heads");
    if (hidden % heads != 0)
        c.root().at("n_head").fail("a divisor of n_embd (" + std::to_string(hidden) + "): GPT-J's head size is n_embd / n_head");
    Gqa a;
    a.heads = a.kv_heads = heads;
    a.head_dim = hidden / heads;
    LayerSpec spec;
    spec.attention = a;
    spec.norms = 2;  // one LayerNorm: weight and bias
    spec.ffn = NonGatedMlp{c.integer_absent_null("n_inner", 4 * hidden, 4 * hidden), true};
    add_layer_specs(m, std::vector<LayerSpec>(static_cast<std::size_t>(layers), spec), c);
}

}  // namespace ridgeline::json_detail
