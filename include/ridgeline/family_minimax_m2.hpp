// MiniMax-M2 (minimax_m2: M2, M2.1, M2.5, M2.7): GQA on every layer, whose q and k RMSNorms each
// span the whole projection (qk_norm_type "per_layer": q_norm over heads x head_dim, k_norm over
// kv_heads x head_dim), and routed experts on every layer with a sigmoid router, one
// score-correction bias per expert and no shared expert.
//
// Defaults: MiniMaxM2Config, huggingface/transformers
//   src/transformers/models/minimax_m2/configuration_minimax_m2.py @ea9df1d3bd9784aa7e6abd8f4be29551dd58d6d8:
//   num_key_value_heads=8, head_dim=128, tie_word_embeddings=False (the expert counts are
//   required, as every family's sizes are: config_reader.hpp). The
//   class has no use_qk_norm, qk_norm_type, use_routing_bias or attn_type_list: its model always
//   builds the whole-projection norms and the bias, so absent keys mean those.
// attn_type_list: 1 marks softmax attention on a layer, 0 MiniMax-Text-01's lightning (linear)
//   attention, which no M2 release has (every entry 1) and ridgeline does not model: refused.
// Multi-token prediction: the files say use_mtp and num_mtp_modules 3, but the released
//   safetensors hold no MTP tensor (96,103 tensors, 62 layers x 1,550 + 3) and vLLM's
//   MiniMaxM2 skips layers past the last; none is counted as the model's own drafts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

inline void read_minimax_m2(const ConfigReader& c, Model& m) {
    const std::int64_t layers = c.layer_count();
    Gqa a = read_gqa(c, GqaDefaults{8, 128});
    if (c.flag_or("use_qk_norm", true)) {
        if (c.present("qk_norm_type")) {
            const Node type = c.root().at("qk_norm_type");
            const std::string expected = "\"per_layer\" (one norm over each projection's heads, as every MiniMax-M2 release has)";
            if (type.string(expected) != "per_layer") type.fail(expected);
        }
        a.qk_norm_across_heads = true;
    }
    if (c.present("attn_type_list")) {
        const Node list = c.root().at("attn_type_list");
        const std::string expected = "an array of " + std::to_string(layers) +
                                     " ones (softmax attention on every layer; 0, lightning attention, is not modelled)";
        if (!list.value().is_array() || static_cast<std::int64_t>(list.value().size()) != layers) list.fail(expected);
        for (std::size_t i = 0; i < list.value().size(); ++i)
            if (list.at(i).value() != 1) list.at(i).fail(expected);
    }
    if (c.present("shared_intermediate_size") && c.root().at("shared_intermediate_size").value() != 0)
        c.root().at("shared_intermediate_size").fail("0 (MiniMaxM2's experts have no shared expert beside them)");
    Moe moe = read_moe(c, "num_local_experts", "intermediate_size");
    moe.router_bias = c.flag_or("use_routing_bias", true);  // e_score_correction_bias, one per expert
    add_layer_specs(m, std::vector<LayerSpec>(static_cast<std::size_t>(layers), LayerSpec{a, 0, moe}), c);
}

}  // namespace ridgeline::json_detail
