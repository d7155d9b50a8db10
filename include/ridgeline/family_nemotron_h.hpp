// Nemotron-H (nemotron_h, NemotronHForCausalLM): Nemotron-H-8B/47B/56B, Nemotron Nano 9B/12B v2,
// Nemotron 3 Nano 30B-A3B. Each block is ONE mixer under one RMSNorm, named per layer by
// hybrid_override_pattern:
//   M  a Mamba-2 mixer (attention_layers.hpp, Mamba2), no MLP
//   *  GQA attention (no positional encoding in the attention layers), no MLP
//   -  a two-matrix ReLU^2 MLP without a gate (ffn_layers.hpp, NonGatedMlp), no attention
//   E  routed experts and a shared expert, each such a two-matrix MLP (Moe, ungated), no attention
// or by layers_block_type (or layer_types, its attribute_map name), one name per layer ("mamba"
// or "linear_attention", "attention" or "full_attention", "mlp", "moe"), which transformers
// prefers when both are given.
//
// Layers: NemotronHBlock, NemotronHMamba2Mixer, NemotronHAttention and NemotronHMLP in
//   huggingface/transformers src/transformers/models/nemotron_h/modular_nemotron_h.py
//   @008d9e9577b0eb0149aa6bb0c44da582b10e0b6e:
//   - the Mamba-2 width is mamba_num_heads x mamba_head_dim (not expand x hidden: Nano 9B v2
//     has 128 x 80 = 10240 beside 2 x 4480); in_proj and out_proj carry biases with use_bias
//     (mamba_proj_bias, which the files also state, is not read by the model); the conv bias
//     with use_conv_bias;
//   - attention projections carry biases with attention_bias; head_dim is the file's head_dim,
//     else its attention_head_dim (the name the Nemotron-H-8B/56B files use, which the class
//     itself ignores, taking its 128: the same there, as hidden / heads is 128), else 128;
//   - NemotronHMoE: NemotronHExperts holds n_routed_experts up_proj (moe_intermediate_size x
//     hidden) and down_proj (hidden x moe_intermediate_size), no gate and no biases; the router
//     is DeepseekV3TopkRouter's (n_routed_experts x hidden, and an e_score_correction_bias per
//     expert); the shared expert is ONE NemotronHMLP of moe_shared_expert_intermediate_size (with
//     mlp_bias biases), whatever n_shared_experts says; num_experts_per_tok routed per token.
//     With moe_latent_size the routed experts work in that latent behind fc1_latent_proj (hidden
//     x latent) and fc2_latent_proj (latent x hidden), the router and shared expert on the
//     hidden state (Nemotron 3 Super's LatentMoE: TensorRT-LLM's NemotronH MoE builds both as
//     plain Linears, so replicated; Moe::latent). mlp_bias shared-expert biases and an
//     n_shared_experts other than 1 are refused.
// Defaults: NemotronHConfig, huggingface/transformers
//   src/transformers/models/nemotron_h/configuration_nemotron_h.py @13923c63d59f73faebae79b2ee3fafc7e3a35201:
//   num_key_value_heads=8 (None: num_attention_heads), head_dim=128, attention_bias=False,
//   mlp_bias=False, use_bias=False, ssm_state_size=128, mamba_num_heads=128, mamba_head_dim=64,
//   n_groups=8, conv_kernel=4, use_conv_bias=True, sliding_window=None, tie_word_embeddings=False;
//   __post_init__ reads the older names mamba_n_groups, mamba_d_conv and mamba_conv_bias in
//   their place. intermediate_size (21504 in the class) stays required, as in every family here,
//   and so does the pattern: the class's default layers_block_type is a 4-layer example, not a
//   model, and so are the MoE sizes (n_routed_experts or its attribute_map name
//   num_local_experts, num_experts_per_tok, moe_intermediate_size,
//   moe_shared_expert_intermediate_size). Not read yet: multi-token-prediction layers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

namespace nemotron_h {
enum class Block { mamba, attention, mlp, moe };

// An integer under its current name or, where the class still reads it, its older one.
inline std::int64_t integer_or_alias(const ConfigReader& c, const std::string& key, const std::string& alias,
                                     std::int64_t fallback) {
    if (c.present(key)) return c.root().at(key).positive_integer();
    return c.integer_or(alias, fallback);
}
inline bool flag_or_alias(const ConfigReader& c, const std::string& key, const std::string& alias, bool fallback) {
    if (c.present(key)) return c.root().at(key).boolean();
    return c.flag_or(alias, fallback);
}

// One block kind per layer, from layers_block_type or hybrid_override_pattern.
inline std::vector<Block> blocks(const ConfigReader& c) {
    const Node& root = c.root();
    std::vector<Block> out;
    // layer_types is the class's attribute_map name for layers_block_type.
    const std::string list_key = c.present("layers_block_type") ? "layers_block_type"
                                 : c.present("layer_types")     ? "layer_types"
                                                                : "";
    if (!list_key.empty()) {
        const Node list = root.at(list_key);
        const std::string expected =
            "\"mamba\", \"attention\", \"mlp\" or \"moe\" (or \"linear_attention\", \"full_attention\")";
        if (!list.value().is_array() || list.value().empty() || list.value().size() > 100000)
            list.fail("an array of block types, one per layer: " + expected);
        for (std::size_t i = 0; i < list.value().size(); ++i) {
            const Node item = list.at(i);
            const json& v = item.value();
            const std::string s = v.is_string() ? v.get<std::string>() : "";
            if (s == "mamba" || s == "linear_attention") out.push_back(Block::mamba);
            else if (s == "attention" || s == "full_attention") out.push_back(Block::attention);
            else if (s == "mlp") out.push_back(Block::mlp);
            else if (s == "moe") out.push_back(Block::moe);
            else item.fail(expected);
        }
    } else {
        const std::string expected = "a string of M (Mamba-2), * (attention), - (MLP) and E (MoE), one character per layer";
        const Node p = root.need("hybrid_override_pattern", expected + " (model_type nemotron_h needs it, or layers_block_type)");
        const std::string pattern = p.string(expected);
        if (pattern.size() > 100000) p.fail(expected + ", at most 100,000 layers");
        for (std::size_t i = 0; i < pattern.size(); ++i) {
            const char ch = pattern[i];
            if (ch == 'M') out.push_back(Block::mamba);
            else if (ch == '*') out.push_back(Block::attention);
            else if (ch == '-') out.push_back(Block::mlp);
            else if (ch == 'E') out.push_back(Block::moe);
            else
                throw error(root.file(), p.where(),
                            describe(p.value()) + ", whose character " + std::to_string(i) + " is '" + printable(std::string(1, ch)) + "'",
                            expected);
        }
    }
    // transformers takes the count from the pattern and warns on a num_hidden_layers that
    // disagrees; a file where they disagree is refused here, naming both.
    if (c.present("num_hidden_layers")) {
        const std::int64_t layers = c.layer_count();
        if (layers != static_cast<std::int64_t>(out.size()))
            root.at("num_hidden_layers")
                .fail("the number of layers the " + (list_key.empty() ? std::string("hybrid_override_pattern") : list_key) +
                      " names (" + std::to_string(out.size()) + ")");
    }
    return out;
}

// An E block's experts (NemotronHMoE; see the header comment).
inline Moe moe(const ConfigReader& c) {
    const Node& root = c.root();
    if (c.flag_or("mlp_bias", false))
        root.at("mlp_bias").fail("false in a model with MoE blocks: the shared expert's biases are not read yet");
    if (c.present("n_shared_experts") && !(root.at("n_shared_experts").value() == 1))
        root.at("n_shared_experts").fail("1: NemotronHMoE builds one shared expert of moe_shared_expert_intermediate_size");
    const std::string experts = !c.present("n_routed_experts") && c.present("num_local_experts") ? "num_local_experts" : "n_routed_experts";
    Moe e = read_moe(c, experts, "moe_intermediate_size");
    check_expert_groups(c, e, experts);
    e.ungated = true;
    e.router_bias = true;  // e_score_correction_bias
    e.shared_experts = 1;
    e.shared_intermediate = c.integer("moe_shared_expert_intermediate_size");
    // LatentMoE (Nemotron 3 Super): the routed experts in moe_latent_size, behind
    // fc1_latent_proj (hidden -> latent) and fc2_latent_proj (latent -> hidden); the router and
    // the shared expert on the hidden state.
    e.latent = c.count_or_zero("moe_latent_size");
    return e;
}
}  // namespace nemotron_h

inline void read_nemotron_h(const ConfigReader& c, Model& m) {
    using nemotron_h::Block;
    const std::vector<Block> kinds = nemotron_h::blocks(c);
    bool any_attention = false, any_mamba = false, any_mlp = false, any_moe = false;
    for (const Block b : kinds) {
        any_attention = any_attention || b == Block::attention;
        any_mamba = any_mamba || b == Block::mamba;
        any_mlp = any_mlp || b == Block::mlp;
        any_moe = any_moe || b == Block::moe;
    }
    Attention attention{NoAttention{}};
    std::int64_t window = 0;
    if (any_attention) {
        // head_dim: the file's, else NVIDIA's earlier attention_head_dim, else the class's 128.
        GqaDefaults defaults{8, 128};
        if (!c.root().has("head_dim") && c.present("attention_head_dim"))
            defaults.head_dim = c.root().at("attention_head_dim").positive_integer();
        Gqa a = read_gqa(c, defaults);
        a.qkv_bias = a.o_bias = c.flag_or("attention_bias", false);
        attention = a;
        window = c.integer_absent_null("sliding_window", 0, 0);
    }
    Attention mamba{NoAttention{}};
    if (any_mamba) {
        Mamba2 s;
        s.heads = c.integer_or("mamba_num_heads", 128);
        s.head_dim = c.integer_or("mamba_head_dim", 64);
        s.state_size = c.integer_or("ssm_state_size", 128);
        s.groups = nemotron_h::integer_or_alias(c, "n_groups", "mamba_n_groups", 8);
        s.conv_kernel = nemotron_h::integer_or_alias(c, "conv_kernel", "mamba_d_conv", 4);
        s.conv_bias = nemotron_h::flag_or_alias(c, "use_conv_bias", "mamba_conv_bias", true);
        s.proj_bias = c.flag_or("use_bias", false);
        if (s.heads % s.groups != 0) {
            const std::string expected = "a divisor of mamba_num_heads (" + std::to_string(s.heads) + ")";
            if (c.present("n_groups")) c.root().at("n_groups").fail(expected);
            if (c.present("mamba_n_groups")) c.root().at("mamba_n_groups").fail(expected);
            throw error(c.root().file(), c.root().path_of("n_groups"), "nothing (the key is missing, so the default of 8 applies)",
                        expected + "; give n_groups in the file");
        }
        mamba = s;
    }
    FeedForward mlp{NoFfn{}};
    if (any_mlp) mlp = NonGatedMlp{c.integer("intermediate_size"), c.flag_or("mlp_bias", false)};
    FeedForward experts{NoFfn{}};
    if (any_moe) experts = nemotron_h::moe(c);

    std::vector<LayerSpec> specs(kinds.size());
    for (std::size_t i = 0; i < kinds.size(); ++i) {
        LayerSpec& s = specs[i];
        s.norms = 1;  // the block's one RMSNorm before its mixer
        s.attention = NoAttention{};
        s.ffn = NoFfn{};
        switch (kinds[i]) {
            case Block::mamba: s.attention = mamba; break;
            case Block::attention:
                s.attention = attention;
                s.window = window;
                break;
            case Block::mlp: s.ffn = mlp; break;
            case Block::moe: s.ffn = experts; break;
        }
    }
    add_layer_specs(m, specs, c);
}

}  // namespace ridgeline::json_detail
