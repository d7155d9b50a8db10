// The Llama-style families: GQA (Qwen2 and Qwen3 with their biases and norms), a gated MLP or
// routed experts, and an optional sliding window.
//
// Defaults as each transformers configuration class has them (huggingface/transformers):
//   llama     src/transformers/models/llama/configuration_llama.py @008e574391258935f3ecc3035c882e73bbcac419
//   mistral   src/transformers/models/mistral/configuration_mistral.py @001f85b38fb432858ace93f18622f07cec46d874
//   mixtral   src/transformers/models/mixtral/configuration_mixtral.py @008e574391258935f3ecc3035c882e73bbcac419
//   qwen2     src/transformers/models/qwen2/configuration_qwen2.py @008e574391258935f3ecc3035c882e73bbcac419
//   qwen3     src/transformers/models/qwen3/configuration_qwen3.py @008e574391258935f3ecc3035c882e73bbcac419
//             (the same defaults @1f3ae2b3ac7e5b32262588602ff42efb372a6232)
//   qwen3_moe src/transformers/models/qwen3_moe/configuration_qwen3_moe.py @008e574391258935f3ecc3035c882e73bbcac419
//   mimo      XiaomiMiMo's MiMoConfig is Qwen2Config plus num_nextn_predict_layers (its MTP modules)
// Qwen3-VL's language models (qwen3_vl_text, qwen3_vl_moe_text, inside a text_config) are read
// with Qwen3's and Qwen3-MoE's defaults.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

namespace llama_family {
inline std::string base(const std::string& f) {
    if (f == "mimo") return "qwen2";
    if (f == "qwen3_vl_text") return "qwen3";
    if (f == "qwen3_vl_moe_text") return "qwen3_moe";
    return f;
}

// num_key_value_heads and head_dim when absent (nullopt: heads, and hidden / heads).
inline GqaDefaults defaults(const std::string& f) {
    GqaDefaults d;
    if (f == "mistral" || f == "mixtral") d.kv_heads = 8;  // MistralConfig, MixtralConfig num_key_value_heads=8
    if (f == "qwen2" || f == "qwen3") d.kv_heads = 32;     // Qwen2Config, Qwen3Config num_key_value_heads=32
    if (f == "qwen3_moe") d.kv_heads = 4;                  // Qwen3MoeConfig num_key_value_heads=4
    if (f == "qwen3") d.head_dim = 128;                    // Qwen3Config head_dim=128
    // LlamaConfig num_key_value_heads=None -> heads; head_dim=None -> hidden // heads; Qwen2Config
    // and Qwen3MoeConfig have no head_dim field, so their attention falls back to the same.
    return d;
}

// The sliding window, 0 for none.
//  - llama: LlamaConfig has no sliding_window; its attention is always full.
//  - mistral: MistralConfig sliding_window=4096 when absent, null means none; no switch.
//  - mixtral: MixtralConfig sliding_window=None when absent.
//  - qwen2, qwen3, qwen3_moe: use_sliding_window=False when absent, and then no window whatever
//    sliding_window says; when true, sliding_window=4096 when absent, null means none.
inline std::int64_t window(const ConfigReader& c, const std::string& f) {
    if (f == "llama") return 0;
    if (f == "mistral") return c.integer_absent_null("sliding_window", 4096, 0);
    if (f == "mixtral") return c.integer_absent_null("sliding_window", 0, 0);
    if (!c.flag_or("use_sliding_window", false)) return 0;
    return c.integer_absent_null("sliding_window", 4096, 0);
}
}  // namespace llama_family

inline void read_llama_like(const ConfigReader& c, Model& m) {
    const std::string f = llama_family::base(c.family());
    const std::int64_t layers = c.layer_count();
    Gqa a = read_gqa(c, llama_family::defaults(f));
    if (f == "qwen2") {
        a.qkv_bias = true;  // Qwen2 always has q/k/v biases and no o bias; its config does not say
    } else {
        a.qkv_bias = a.o_bias = c.flag_or("attention_bias", false);  // Llama/Qwen3: q, k, v and o together
    }
    a.qk_norm = f == "qwen3" || f == "qwen3_moe";
    const bool mlp_bias = c.flag_or("mlp_bias", false);  // LlamaConfig mlp_bias=False

    const std::int64_t window = llama_family::window(c, f);
    // Qwen2/Qwen3 window only the layers from max_window_layers on (Qwen2Config and Qwen3Config
    // max_window_layers=28 when absent); Mistral windows all. Qwen3MoeConfig @008e5743 has no
    // max_window_layers (older releases had one, default 28): absent, every layer is windowed.
    // Any count works (past the last layer means none is windowed), 0 included; null means 0.
    const bool qwen = f.rfind("qwen", 0) == 0;
    const std::int64_t absent_first = f == "qwen3_moe" ? 0 : 28;
    const std::int64_t first_windowed =
        qwen && window > 0 ? (c.root().has("max_window_layers") ? c.count_or_zero("max_window_layers") : absent_first) : 0;

    std::vector<bool> moe_layer(static_cast<std::size_t>(layers), false);
    Moe moe;
    if (f == "mixtral") {
        moe = read_moe(c, "num_local_experts", "intermediate_size");
        moe_layer.assign(moe_layer.size(), true);
    } else if (f == "qwen3_moe") {
        moe = read_moe(c, "num_experts", "moe_intermediate_size");
        const std::int64_t step = c.at_most_layers("decoder_sparse_step", 1, layers);
        const std::vector<std::int64_t> dense_only = c.layer_indices("mlp_only_layers", layers);
        for (std::size_t i = 0; i < moe_layer.size(); ++i) {
            const bool listed = std::find(dense_only.begin(), dense_only.end(), static_cast<std::int64_t>(i)) != dense_only.end();
            moe_layer[i] = !listed && (static_cast<std::int64_t>(i) + 1) % step == 0;
        }
    }
    const bool needs_dense = std::find(moe_layer.begin(), moe_layer.end(), false) != moe_layer.end();
    const std::int64_t intermediate = needs_dense ? c.integer("intermediate_size") : 0;
    std::vector<LayerSpec> specs(moe_layer.size());
    for (std::size_t i = 0; i < specs.size(); ++i) {
        specs[i].attention = a;
        specs[i].window = static_cast<std::int64_t>(i) >= first_windowed ? window : 0;
        if (moe_layer[i]) specs[i].ffn = moe;
        else specs[i].ffn = DenseMlp{intermediate, mlp_bias};
    }
    add_layer_specs(m, specs, c);
    // MiMo's multi-token-prediction modules, counted apart like DeepSeek's.
    if (c.family() == "mimo") m.mtp_layers = c.count_or_zero("num_nextn_predict_layers");
}

}  // namespace ridgeline::json_detail
