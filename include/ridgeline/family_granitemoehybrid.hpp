// Granite 4.0-H (granitemoehybrid): Mamba-2 layers with a few GQA attention layers (NoPE), named
// one per layer by layer_types ("mamba" or "attention"). Every layer has both halves under two
// norms: the mixer (Mamba-2 or attention), then a gated shared MLP (shared_intermediate_size),
// alone when num_local_experts is 0 (H-350M, H-1B, H-Micro), else beside routed gated experts
// of intermediate_size with a router without bias (H-Tiny, H-Small).
//
// Layers: GraniteMoeHybridDecoderLayer in huggingface/transformers
//   src/transformers/models/granitemoehybrid/modular_granitemoehybrid.py @403a36790e4387ce0c1e7b978b695f50e49d408f
//   (the Mamba-2 mixer is Bamba's: attention_layers.hpp, Mamba2).
// Defaults: GraniteMoeHybridConfig, huggingface/transformers
//   src/transformers/models/granitemoehybrid/configuration_granitemoehybrid.py @4f7e1d467f2615fe8de4a089a8b90cf861bea4d7:
//   num_key_value_heads=None (heads), attention_bias=False, num_local_experts=8,
//   num_experts_per_tok=2, shared_intermediate_size=1024, layer_types=None (every layer
//   "mamba"), mamba_n_heads=128, mamba_n_groups=1, mamba_d_state=256, mamba_d_head="auto"
//   (mamba_expand x hidden_size / mamba_n_heads), mamba_d_conv=4, mamba_expand=2,
//   mamba_conv_bias=True, mamba_proj_bias=False, tie_word_embeddings=False.
//   intermediate_size (11008 in the class) stays required where there are experts: every Hub
//   file states it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

inline Mamba2 read_granite_mamba2(const ConfigReader& c) {
    Mamba2 s;
    s.heads = c.integer_or("mamba_n_heads", 128);
    s.groups = c.integer_or("mamba_n_groups", 1);
    s.state_size = c.integer_or("mamba_d_state", 256);
    s.conv_kernel = c.integer_or("mamba_d_conv", 4);
    s.conv_bias = c.flag_or("mamba_conv_bias", true);
    s.proj_bias = c.flag_or("mamba_proj_bias", false);
    const std::int64_t inner = c.integer_or("mamba_expand", 2) * c.integer("hidden_size");
    // mamba_d_head: an integer, or "auto" (absent or null too): the expanded width over the heads.
    const bool given = c.present("mamba_d_head") && !c.root().at("mamba_d_head").value().is_string();
    if (c.present("mamba_d_head") && c.root().at("mamba_d_head").value().is_string() &&
        c.root().at("mamba_d_head").string() != "auto")
        c.root().at("mamba_d_head").fail("a positive integer or \"auto\"");
    s.head_dim = given ? c.root().at("mamba_d_head").positive_integer() : inner / s.heads;
    if (s.head_dim * s.heads != inner) {
        const std::string expected = "mamba_n_heads (" + std::to_string(s.heads) + ") x mamba_d_head equal to mamba_expand x "
                                     "hidden_size (" + std::to_string(inner) + ")";
        if (given) c.root().at("mamba_d_head").fail(expected);
        throw error(c.root().file(), c.root().path_of("mamba_n_heads"), std::to_string(s.heads), expected);
    }
    return s;
}

inline void read_granitemoehybrid(const ConfigReader& c, Model& m) {
    const std::int64_t layers = c.layer_count();
    const auto n = static_cast<std::size_t>(layers);
    std::vector<bool> is_attention(n, false);
    if (c.present("layer_types")) {
        const auto types = layer_types(c, layers, {"mamba", "attention"});
        for (std::size_t i = 0; i < n; ++i) is_attention[i] = types[i] == "attention";
    }
    Attention attention{}, mamba{read_granite_mamba2(c)};
    bool any_attention = false;
    for (const bool a : is_attention) any_attention = any_attention || a;
    if (any_attention) {
        Gqa a = read_gqa(c, GqaDefaults{});
        a.qkv_bias = a.o_bias = c.flag_or("attention_bias", false);
        attention = a;
    }
    // The feed-forward half: the shared MLP, with routed experts beside it when there are any.
    const std::int64_t shared = c.present("shared_intermediate_size") ? c.count_or_zero("shared_intermediate_size") : 1024;
    const bool no_experts = c.present("num_local_experts") && c.root().at("num_local_experts").value() == 0;
    FeedForward ffn{};
    if (no_experts) {
        if (shared > 0) ffn = DenseMlp{shared};
        else ffn = NoFfn{};
    } else {
        Moe e = read_moe(c, "num_local_experts", "intermediate_size", 8, 2);
        e.shared_experts = shared > 0 ? 1 : 0;
        e.shared_intermediate = shared;
        ffn = e;
    }
    std::vector<LayerSpec> specs(n);
    for (std::size_t i = 0; i < n; ++i) {
        specs[i].attention = is_attention[i] ? attention : mamba;
        specs[i].ffn = ffn;
    }
    add_layer_specs(m, specs, c);
}

}  // namespace ridgeline::json_detail
