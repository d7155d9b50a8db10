// gpt-oss: biased GQA with attention sinks, layer_types choosing sliding or full, and routed
// experts with biases.
//
// Defaults: GptOssConfig, huggingface/transformers
//   src/transformers/models/gpt_oss/configuration_gpt_oss.py @02b8f42b4240dddea1b27c45d2dc95fb2682f841
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

inline void read_gpt_oss(const ConfigReader& c, Model& m) {
    const std::int64_t layers = c.layer_count();
    // GptOssConfig has no mlp_bias (its experts always carry biases, modelled as expert_bias);
    // a config that sets one, true or false, says something the model does not do: refused.
    if (c.present("mlp_bias"))
        c.root().at("mlp_bias").fail("no mlp_bias key: gpt_oss has none (its experts always have biases)");
    Gqa a = read_gqa(c, GqaDefaults{8, 64});  // GptOssConfig num_key_value_heads=8, head_dim=64
    a.qkv_bias = a.o_bias = c.flag_or("attention_bias", true);  // GptOssConfig attention_bias=True
    a.sinks = true;
    Moe moe = read_moe(c, "num_local_experts", "intermediate_size");
    moe.router_bias = true;
    moe.expert_bias = true;
    // GptOssConfig sliding_window=128 when absent (null: no window, which a sliding layer cannot
    // have); layer_types absent or null: sliding on even layers, full on odd ones
    // ("sliding_attention" if (i + 1) % 2 else "full_attention").
    const auto window = [&] { return c.root().has("sliding_window") ? c.integer("sliding_window") : std::int64_t{128}; };
    std::vector<LayerSpec> specs(static_cast<std::size_t>(layers));
    const std::vector<std::string> types =
        c.present("layer_types") ? layer_types(c, layers, {"sliding_attention", "full_attention"}) : std::vector<std::string>{};
    for (std::size_t i = 0; i < specs.size(); ++i) {
        specs[i].attention = a;
        specs[i].ffn = moe;
        const bool sliding = types.empty() ? i % 2 == 0 : types[i] == "sliding_attention";
        if (sliding) specs[i].window = window();
    }
    add_layer_specs(m, specs, c);
}

}  // namespace ridgeline::json_detail
