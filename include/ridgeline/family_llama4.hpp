// Llama 4's language model (llama4_text, inside Llama4ForConditionalGeneration's text_config):
// GQA whose RoPE layers attend within aligned chunks (a chunked reach, reach.hpp: the tokens
// since the chunk began, not a sliding window) and whose NoPE layers (every fourth) attend to
// everything; routed experts on every interleave_moe_layer_step-th layer with one shared
// expert, dense MLPs of intermediate_size_mlp between them.
//
// Defaults: Llama4TextConfig, huggingface/transformers
//   src/transformers/models/llama4/configuration_llama4.py @008e574391258935f3ecc3035c882e73bbcac419:
//   num_key_value_heads=8, head_dim=128, attention_bias=False, num_local_experts=16,
//   num_experts_per_tok=1, interleave_moe_layer_step=1, moe_layers=None ->
//   range(step - 1, layers, step), intermediate_size_mlp=16384, attention_chunk_size=8192,
//   no_rope_layer_interval=4, no_rope_layers=None -> [int((i + 1) % 4 != 0)] (1: RoPE, chunked),
//   tie_word_embeddings=False. use_qk_norm is an L2 norm without weights: no parameters.
//   The shared expert is a Llama4TextMLP of intermediate_size, as each routed expert.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

inline void read_llama4(const ConfigReader& c, Model& m) {
    const std::int64_t layers = c.layer_count();
    const auto n = static_cast<std::size_t>(layers);
    Gqa a = read_gqa(c, GqaDefaults{8, 128});
    a.qkv_bias = a.o_bias = c.flag_or("attention_bias", false);
    Moe moe = read_moe(c, "num_local_experts", "intermediate_size", 16, 1);
    moe.shared_experts = 1;
    moe.shared_intermediate = moe.expert_intermediate;
    const std::int64_t chunk = c.integer_absent_null("attention_chunk_size", 8192, 0);

    std::vector<bool> is_moe(n, false), chunked(n, false);
    if (c.present("moe_layers")) {
        for (const std::int64_t i : c.layer_indices("moe_layers", layers)) is_moe[static_cast<std::size_t>(i)] = true;
    } else {
        const std::int64_t step = c.at_most_layers("interleave_moe_layer_step", 1, layers);
        for (std::int64_t i = step - 1; i < layers; i += step) is_moe[static_cast<std::size_t>(i)] = true;
    }
    if (c.present("layer_types")) {
        const auto types = layer_types(c, layers, {"chunked_attention", "full_attention"});
        for (std::size_t i = 0; i < n; ++i) chunked[i] = types[i] == "chunked_attention";
    } else if (c.present("no_rope_layers") && !(c.root().at("no_rope_layers").value().is_array() &&
                                                 c.root().at("no_rope_layers").value().empty())) {
        // An empty list means the default, as Llama4TextConfig reads it; a longer one is read up
        // to the layer count.
        const Node list = c.root().at("no_rope_layers");
        if (!list.value().is_array() || list.value().size() < n)
            list.fail("an array of at least " + std::to_string(layers) + " flags (1: a RoPE layer, 0: NoPE), one per layer");
        for (std::size_t i = 0; i < n; ++i) {
            const auto& v = list.value()[i];
            if (!(v == 0 || v == 1)) list.at(i).fail("0 or 1");
            chunked[i] = v == 1;
        }
    } else {
        const std::int64_t every = c.at_most_layers("no_rope_layer_interval", 4, layers);
        for (std::size_t i = 0; i < n; ++i) chunked[i] = (static_cast<std::int64_t>(i) + 1) % every != 0;
    }
    const bool any_dense = std::find(is_moe.begin(), is_moe.end(), false) != is_moe.end();
    const std::int64_t dense = any_dense ? c.integer_or("intermediate_size_mlp", 16384) : 0;
    std::vector<LayerSpec> specs(n);
    for (std::size_t i = 0; i < n; ++i) {
        specs[i].attention = a;
        specs[i].window = chunked[i] ? chunk : 0;
        specs[i].chunked = chunked[i] && chunk > 0;
        if (is_moe[i]) specs[i].ffn = moe;
        else specs[i].ffn = DenseMlp{dense};
    }
    add_layer_specs(m, specs, c);
}

}  // namespace ridgeline::json_detail
