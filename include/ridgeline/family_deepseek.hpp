// DeepSeek-V2, V3 and V3.2: MLA attention (V3.2 with its top-k indexer), a few dense layers
// first, then routed and shared experts; V3's multi-token-prediction modules counted apart.
//
// Defaults (huggingface/transformers):
//   deepseek_v2 src/transformers/models/deepseek_v2/configuration_deepseek_v2.py @008e574391258935f3ecc3035c882e73bbcac419
//   deepseek_v3 src/transformers/models/deepseek_v3/configuration_deepseek_v3.py @008e574391258935f3ecc3035c882e73bbcac419
//   deepseek_v32 has no transformers class: it is V3's configuration plus index_n_heads,
//   index_head_dim and index_topk (deepseek-ai/DeepSeek-V3.2's config.json; vLLM reads the
//   same keys), so V3's defaults apply and the three index keys are required.
// The indexer's key cache is FP8 whatever the main cache's format, as DeepSeek's reference code
// keeps it: Indexer in inference/model.py of deepseek-ai/DeepSeek-V3.2-Exp
//   @6d8cb70dfdd6f37c83c5208105a3e2c8da117485 registers k_cache (max_seq_len x index_head_dim,
//   torch.float8_e4m3fn) and k_scale_cache (index_head_dim // block_size, torch.float32; block_size
//   = 128) and fills them from act_quant(k, block_size): per token and layer 128 B of keys and one
//   4-byte scale, 132 B -- an fp8 format with a 32-bit scale per 128 elements (fp8/g128/s32).
//   Set Mla::index_key_format to nullopt to cost it in the KV format instead.
// Kimi K2 ships model_type kimi_k2 with architectures DeepseekV3ForCausalLM and is read as
// deepseek_v3 through the registry's architecture names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

inline void read_deepseek(const ConfigReader& c, Model& m) {
    const std::string& f = c.family();
    const std::int64_t layers = c.layer_count();
    const bool v3 = f != "deepseek_v2";
    Mla l;
    l.heads = c.integer("num_attention_heads");
    // DeepseekV2Config and DeepseekV3Config q_lora_rank=1536 when absent; null means none (the
    // attention projects queries directly where it is None). 0 is not none there: it would be a
    // down-projection to nothing, so it is refused.
    l.q_lora_rank = 1536;
    if (c.root().has("q_lora_rank")) {
        const Node q = c.root().at("q_lora_rank");
        if (q.value().is_null()) l.q_lora_rank = 0;
        else if (q.value().is_number_integer() && q.value().get<std::int64_t>() == 0)
            q.fail("a positive integer, or null for queries projected directly (no low-rank query)");
        else l.q_lora_rank = q.positive_integer();
    }
    l.kv_lora_rank = c.integer("kv_lora_rank");
    l.qk_nope_head_dim = c.integer("qk_nope_head_dim");
    l.qk_rope_head_dim = c.integer("qk_rope_head_dim");
    l.v_head_dim = c.integer("v_head_dim");
    if (f == "deepseek_v32") {
        l.index_heads = c.integer("index_n_heads");
        l.index_head_dim = c.integer("index_head_dim");
        l.index_topk = c.integer("index_topk");
        l.index_key_format = block_scaled(Numeric::fp8, 32, 128);
    }
    Moe moe = read_moe(c, "n_routed_experts", "moe_intermediate_size");
    check_expert_groups(c, moe, "n_routed_experts");
    // Absent keys: DeepseekV3Config n_shared_experts=1, first_k_dense_replace=3;
    // DeepseekV2Config n_shared_experts=2, first_k_dense_replace=0. Null or 0 means none.
    const auto count_or = [&](const std::string& key, std::int64_t absent) {
        return c.root().has(key) ? c.count_or_zero(key) : absent;
    };
    moe.shared_experts = count_or("n_shared_experts", v3 ? 1 : 2);
    moe.shared_intermediate = moe.shared_experts > 0 ? moe.expert_intermediate : 0;
    // V3's "noaux_tc" routing adds a per-expert score-correction bias.
    moe.router_bias = c.present("topk_method") && c.root().at("topk_method").value() == "noaux_tc";
    const std::int64_t first_moe = count_or("first_k_dense_replace", v3 ? 3 : 0);
    if (first_moe > layers)
        c.root().at("first_k_dense_replace").fail("at most num_hidden_layers (" + std::to_string(layers) + ")");
    const std::int64_t every = c.at_most_layers("moe_layer_freq", 1, layers);
    const bool any_dense = first_moe > 0 || every > 1;
    const std::int64_t intermediate = any_dense ? c.integer("intermediate_size") : 0;
    std::vector<LayerSpec> specs(static_cast<std::size_t>(layers));
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const auto idx = static_cast<std::int64_t>(i);
        specs[i].attention = l;
        if (idx >= first_moe && idx % every == 0) specs[i].ffn = moe;
        else specs[i].ffn = DenseMlp{intermediate};
    }
    add_layer_specs(m, specs, c);
    // DeepseekV3Config num_mtp_layers=1 (its attribute_map reads it as num_nextn_predict_layers).
    if (v3) m.mtp_layers = c.root().has("num_nextn_predict_layers") ? c.count_or_zero("num_nextn_predict_layers") : 1;
}

}  // namespace ridgeline::json_detail
