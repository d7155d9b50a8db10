// GLM-4.5 / 4.6 (glm4_moe): GQA with q/k/v biases (no o bias) and optional q/k norms, the first
// first_k_dense_replace layers dense, then routed experts with a score-correction bias and
// shared experts; multi-token-prediction modules counted apart, as DeepSeek-V3's.
//
// Defaults: Glm4MoeConfig, huggingface/transformers
//   src/transformers/models/glm4_moe/configuration_glm4_moe.py @008c726d1655845afb7ca71013b984ceac231e57
//   (an early version): num_key_value_heads=8, attention_bias=False, tie_word_embeddings=False.
//   That version has no n_routed_experts, n_shared_experts,
//   first_k_dense_replace, head_dim or use_qk_norm; the Hub's GLM-4.5 files give them, so
//   here they are required (use_qk_norm absent: false). Not checked against a Hub config.json
//   here (none was found).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

inline void read_glm4_moe(const ConfigReader& c, Model& m) {
    const std::int64_t layers = c.layer_count();
    Gqa a = read_gqa(c, GqaDefaults{8, {}});
    a.qkv_bias = c.flag_or("attention_bias", false);
    a.qk_norm = c.flag_or("use_qk_norm", false);
    Moe moe = read_moe(c, "n_routed_experts", "moe_intermediate_size");
    check_expert_groups(c, moe, "n_routed_experts");
    moe.shared_experts = c.count_or_zero("n_shared_experts");
    if (!c.root().has("n_shared_experts")) (void)c.integer("n_shared_experts");  // required: names the key
    moe.shared_intermediate = moe.shared_experts > 0 ? moe.expert_intermediate : 0;
    moe.router_bias = true;  // e_score_correction_bias, one per routed expert
    if (!c.root().has("first_k_dense_replace")) (void)c.integer("first_k_dense_replace");
    const std::int64_t first_moe = c.count_or_zero("first_k_dense_replace");
    if (first_moe > layers)
        c.root().at("first_k_dense_replace").fail("at most num_hidden_layers (" + std::to_string(layers) + ")");
    const std::int64_t intermediate = first_moe > 0 ? c.integer("intermediate_size") : 0;
    std::vector<LayerSpec> specs(static_cast<std::size_t>(layers));
    for (std::size_t i = 0; i < specs.size(); ++i) {
        specs[i].attention = a;
        if (static_cast<std::int64_t>(i) >= first_moe) specs[i].ffn = moe;
        else specs[i].ffn = DenseMlp{intermediate};
    }
    add_layer_specs(m, specs, c);
    m.mtp_layers = c.count_or_zero("num_nextn_predict_layers");
}

}  // namespace ridgeline::json_detail
