// Llama-Nemotron Super and Ultra (nemotron-nas, DeciLMForCausalLM): a Llama made by neural
// architecture search, so each layer has its own block_configs entry: attention with its own
// KV-head count, skipped (no_op) or replaced by one hidden x hidden matrix, and an MLP of its
// own width (ffn_mult), skipped or replaced likewise.
//
// Block semantics, as NVIDIA's modeling_decilm.py and vLLM read them
// (vllm-project/vllm@00bd1493b3e82d6c13c68ee8a0e1c5a96707e190 vllm/model_executor/models/nemotron_nas.py):
//   - KV heads: num_attention_heads / attention.n_heads_in_group; head_dim hidden / heads.
//   - MLP width: intermediate = int(2 * ffn_mult * hidden / 3) rounded up to a multiple of 256
//     (or ffn.intermediate_size where given).
//   - input_layernorm exists only if attention is not no_op, post_attention_layernorm only if the
//     MLP is not; replace_with_linear keeps the norm (vLLM ignores that flag).
//   - attention.window_length, where set, is a sliding window.
// There is no transformers class: keys left out have no default, except that attention_bias
// and mlp_bias are false and tie_word_embeddings false, as in the Hub files.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

namespace nemotron_nas {
inline std::int64_t intermediate_from_mult(double mult, std::int64_t hidden) {
    const auto i = static_cast<std::int64_t>(2 * mult * static_cast<double>(hidden) / 3);  // Python's int(): toward zero
    return i % 256 == 0 ? i : i + 256 - i % 256;
}
inline bool flag(const Node& n, const char* key) { return n.has(key) && !n.at(key).value().is_null() && n.at(key).boolean(); }
}  // namespace nemotron_nas

inline void read_nemotron_nas(const ConfigReader& c, Model& m) {
    using nemotron_nas::flag;
    const std::int64_t layers = c.layer_count();
    const std::int64_t hidden = c.integer("hidden_size");
    const std::int64_t heads = c.integer("num_attention_heads");
    const bool attention_bias = c.flag_or("attention_bias", false), mlp_bias = c.flag_or("mlp_bias", false);
    const Node blocks = c.root().need("block_configs", "an array of " + std::to_string(layers) + " block configs, one per layer");
    if (!blocks.value().is_array() || blocks.value().size() != static_cast<std::size_t>(layers))
        blocks.fail("an array of " + std::to_string(layers) + " block configs, one per layer (num_hidden_layers)");
    std::vector<LayerSpec> specs(static_cast<std::size_t>(layers));
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const Node block = blocks.at(i);
        block.require_object("a block config with \"attention\" and \"ffn\"");
        const Node at = block.need("attention", "an attention block config");
        at.require_object("an attention block config");
        const Node ffn = block.need("ffn", "an ffn block config");
        ffn.require_object("an ffn block config");
        LayerSpec& s = specs[i];
        s.norms = 0;
        if (flag(at, "no_op")) {
            s.attention = NoAttention{false};
        } else {
            s.norms += 1;
            if (flag(at, "replace_with_linear")) {
                s.attention = NoAttention{true};
            } else {
                const std::int64_t group = at.need("n_heads_in_group", "a positive divisor of num_attention_heads").positive_integer();
                if (heads % group != 0) at.at("n_heads_in_group").fail("a divisor of num_attention_heads (" + std::to_string(heads) + ")");
                Gqa a = read_gqa(c, GqaDefaults{heads / group, {}});
                a.kv_heads = heads / group;
                a.qkv_bias = a.o_bias = attention_bias;
                s.attention = a;
                if (at.has("window_length") && !at.at("window_length").value().is_null())
                    s.window = at.at("window_length").positive_integer();
            }
        }
        if (flag(ffn, "no_op")) {
            s.ffn = NoFfn{false};
        } else {
            s.norms += 1;
            if (flag(ffn, "replace_with_linear")) {
                s.ffn = NoFfn{true};
            } else if (ffn.has("intermediate_size") && !ffn.at("intermediate_size").value().is_null()) {
                s.ffn = DenseMlp{ffn.at("intermediate_size").positive_integer(), mlp_bias};
            } else {
                const double mult = ffn.need("ffn_mult", "a positive number (the MLP width over hidden_size)").positive_number();
                if (!(mult <= 1000)) ffn.at("ffn_mult").fail("a positive number of at most 1000");
                s.ffn = DenseMlp{nemotron_nas::intermediate_from_mult(mult, hidden), mlp_bias};
            }
        }
    }
    add_layer_specs(m, specs, c);
}

}  // namespace ridgeline::json_detail
