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
// GLM-5, 5.1 and 5.2 (glm_moe_dsa) are DeepSeek-V3.2's layers at other sizes: GlmMoeDsaConfig,
//   src/transformers/models/glm_moe_dsa/configuration_glm_moe_dsa.py @008e574391258935f3ecc3035c882e73bbcac419
//   (q_lora_rank=2048, n_shared_experts=1, first_k_dense_replace=3, index_n_heads=32,
//   index_head_dim=128, index_topk=2048; its head_dim key is overwritten with qk_rope_head_dim
//   and not read here). Its model always builds the score-correction bias. Two keys of its own:
//   mlp_layer_types ("dense" or "sparse" a layer) in place of first_k_dense_replace, and GLM-5.2's
//   IndexShare: indexer_types ("full" or "shared" a layer; else index_topk_pattern, "F" or "S" a
//   layer; else full where max(i - index_skip_topk_offset + 1, 0) % index_topk_freq == 0, 2 and 1
//   when absent) -- a shared layer attends to the top-k of the full layer before it and holds no
//   indexer (modular_glm_moe_dsa.py @01f8fa55d98fbd77fb6461c47ae14fc6206f2f87 sets indexer None
//   where skip_topk; vLLM's deepseek_v2.py @002d6073aa034d4f5545d45021b0e56d1f3c3593 builds none).
//   Its MTP layer (num_nextn_predict_layers; absent, none) is dropped on load as DeepSeek's is.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

// GLM-5.2's IndexShare: which layers reuse an earlier layer's top-k (true) rather than run an
// indexer of their own; the first layer must have one.
inline std::vector<bool> glm_shared_indexers(const ConfigReader& c, std::int64_t layers) {
    std::vector<bool> shared(static_cast<std::size_t>(layers), false);
    if (c.present("indexer_types")) {
        const auto types = layer_types(c, layers, {"full", "shared"}, "indexer_types");
        for (std::size_t i = 0; i < shared.size(); ++i) shared[i] = types[i] == "shared";
        if (shared[0]) c.root().at("indexer_types").at(0).fail("\"full\" (the first layer has no earlier top-k to share)");
    } else if (c.present("index_topk_pattern")) {
        const Node pattern = c.root().at("index_topk_pattern");
        const std::string expected = "a string of " + std::to_string(layers) + " letters, F (an indexer) or S (shared), starting with F";
        const std::string p = pattern.string(expected);
        if (static_cast<std::int64_t>(p.size()) != layers || p[0] != 'F' || p.find_first_not_of("FS") != std::string::npos) pattern.fail(expected);
        for (std::size_t i = 0; i < shared.size(); ++i) shared[i] = p[i] == 'S';
    } else {
        const std::int64_t freq = c.at_most_layers("index_topk_freq", 1, layers);
        const std::int64_t offset = c.root().has("index_skip_topk_offset") ? c.count_or_zero("index_skip_topk_offset") : 2;
        for (std::size_t i = 0; i < shared.size(); ++i) {
            const std::int64_t k = static_cast<std::int64_t>(i) - offset + 1;
            shared[i] = (k > 0 ? k : 0) % freq != 0;
        }
        if (shared[0])
            c.root().at("index_skip_topk_offset").fail("an offset of at least 1 where index_topk_freq is " + std::to_string(freq) +
                                                       " (offset 0 leaves the first layer sharing a top-k no earlier layer chose)");
    }
    return shared;
}

inline void read_deepseek(const ConfigReader& c, Model& m) {
    const std::string& f = c.family();
    const std::int64_t layers = c.layer_count();
    const bool v3 = f != "deepseek_v2", glm = f == "glm_moe_dsa";
    Mla l;
    l.heads = c.integer("num_attention_heads");
    // DeepseekV2Config and DeepseekV3Config q_lora_rank=1536 when absent; null means none (the
    // attention projects queries directly where it is None). 0 is not none there: it would be a
    // down-projection to nothing, so it is refused.
    l.q_lora_rank = glm ? 2048 : 1536;
    if (c.root().has("q_lora_rank")) {
        const Node q = c.root().at("q_lora_rank");
        if (q.value().is_null() && glm) q.fail("a positive integer (GLM-5's indexer reads the query latent; vLLM asserts one)");
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
    } else if (glm) {
        l.index_heads = c.integer_or("index_n_heads", 32);
        l.index_head_dim = c.integer_or("index_head_dim", 128);
        l.index_topk = c.integer_or("index_topk", 2048);
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
    // V3's "noaux_tc" routing adds a per-expert score-correction bias; GLM-5's model always has it.
    moe.router_bias = glm || (c.present("topk_method") && c.root().at("topk_method").value() == "noaux_tc");
    const std::int64_t first_moe = count_or("first_k_dense_replace", v3 ? 3 : 0);
    if (first_moe > layers)
        c.root().at("first_k_dense_replace").fail("at most num_hidden_layers (" + std::to_string(layers) + ")");
    const std::int64_t every = c.at_most_layers("moe_layer_freq", 1, layers);
    std::vector<bool> routed(static_cast<std::size_t>(layers));
    if (glm && c.present("mlp_layer_types")) {
        const auto types = layer_types(c, layers, {"dense", "sparse"}, "mlp_layer_types");
        for (std::size_t i = 0; i < routed.size(); ++i) routed[i] = types[i] == "sparse";
    } else {
        for (std::size_t i = 0; i < routed.size(); ++i) routed[i] = static_cast<std::int64_t>(i) >= first_moe && static_cast<std::int64_t>(i) % every == 0;
    }
    const bool any_dense = std::find(routed.begin(), routed.end(), false) != routed.end();
    const std::int64_t intermediate = any_dense ? c.integer("intermediate_size") : 0;
    const std::vector<bool> shared_indexer = glm ? glm_shared_indexers(c, layers) : std::vector<bool>(routed.size(), false);
    std::vector<LayerSpec> specs(static_cast<std::size_t>(layers));
    for (std::size_t i = 0; i < specs.size(); ++i) {
        Mla layer = l;
        layer.index_shared = shared_indexer[i];
        specs[i].attention = layer;
        if (routed[i]) specs[i].ffn = moe;
        else specs[i].ffn = DenseMlp{intermediate};
    }
    add_layer_specs(m, specs, c);
    // DeepseekV3Config num_mtp_layers=1 (its attribute_map reads it as num_nextn_predict_layers).
    if (glm) m.mtp_layers = c.count_or_zero("num_nextn_predict_layers");
    else if (v3) m.mtp_layers = c.root().has("num_nextn_predict_layers") ? c.count_or_zero("num_nextn_predict_layers") : 1;
}

}  // namespace ridgeline::json_detail
