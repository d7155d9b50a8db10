// Gemma 2 and Gemma 3 (its language model, gemma3_text): GQA with a wide head_dim, local
// (sliding-window) layers between global ones, four norms per layer (pre and post, around
// attention and the MLP), a gated GeLU MLP, and tied embeddings.
//
// Defaults (huggingface/transformers):
//   gemma2      Gemma2Config, src/transformers/models/gemma2/configuration_gemma2.py @008e574391258935f3ecc3035c882e73bbcac419:
//               num_key_value_heads=4, head_dim=256, sliding_window=4096, attention_bias=False,
//               tie_word_embeddings=True; layer_types absent: "sliding_attention" if (i + 1) % 2 else
//               "full_attention" (layer 0 local).
//   gemma3_text Gemma3TextConfig, src/transformers/models/gemma3/configuration_gemma3.py @008f5c8c29be84d4721dc6d1e0fcd72300580be4:
//               num_key_value_heads=4, head_dim=256, sliding_window=4096, sliding_window_pattern=6
//               (every sixth layer global; resaved files spell it _sliding_window_pattern, newer ones
//               give layer_types), attention_bias=False, tie_word_embeddings=True; q and k RMSNorms.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

inline void read_gemma(const ConfigReader& c, Model& m) {
    const bool gemma3 = c.family() == "gemma3_text";
    const std::int64_t layers = c.layer_count();
    Gqa a = read_gqa(c, GqaDefaults{4, 256});
    a.qkv_bias = a.o_bias = c.flag_or("attention_bias", false);
    a.qk_norm = gemma3;
    const std::int64_t window = c.integer_absent_null("sliding_window", 4096, 0);
    std::vector<bool> local(static_cast<std::size_t>(layers));
    if (c.present("layer_types")) {
        const auto types = layer_types(c, layers, {"sliding_attention", "full_attention"});
        for (std::size_t i = 0; i < local.size(); ++i) local[i] = types[i] == "sliding_attention";
    } else {
        const std::string pattern_key = c.root().has("sliding_window_pattern") ? "sliding_window_pattern" : "_sliding_window_pattern";
        const std::int64_t every = gemma3 ? c.at_most_layers(pattern_key, 6, layers) : 2;
        for (std::size_t i = 0; i < local.size(); ++i) local[i] = (static_cast<std::int64_t>(i) + 1) % every != 0;
    }
    const DenseMlp mlp{c.integer("intermediate_size")};
    std::vector<LayerSpec> specs(local.size());
    for (std::size_t i = 0; i < specs.size(); ++i) {
        specs[i].attention = a;
        specs[i].window = local[i] ? window : 0;
        specs[i].ffn = mlp;
        specs[i].norms = 4;  // input, post-attention, pre-feedforward, post-feedforward
    }
    add_layer_specs(m, specs, c);
}

}  // namespace ridgeline::json_detail
