// Gemma 4's language model (gemma4_text, inside the gemma4 vision-language wrapper): sliding
// (local) layers between full (global) ones as Gemma 3, but the full layers have heads of their
// own width (global_head_dim) and, with attention_k_eq_v, their own KV-head count
// (num_global_key_value_heads) and no v_proj: V is k_proj's output, normed apart without RoPE.
// Every layer has q and k RMSNorms per head (v's has no weight), four norms around attention and
// the MLP, a gated GeLU MLP, and with enable_moe_block a mixture of experts beside that MLP on
// every layer (not instead of it): the MLP always runs, as a shared expert would, and the
// branch adds three norms, a router of num_experts x hidden with a scale per hidden element
// (counted with the norms: a vector every device keeps whole) and one per expert (as a router
// bias). Tied embeddings.
//
// Sources: huggingface/transformers@c308a309e651a7e033f683353f3f75aa66d29502
//   src/transformers/models/gemma4/modeling_gemma4.py (Gemma4TextAttention, Gemma4TextDecoderLayer,
//   Gemma4TextExperts, Gemma4TextRouter), and vllm-project/vllm@eee7972fe3225f0b08bb8d61afd88eb846330a55
//   vllm/model_executor/models/gemma4.py, which caches K and V on every layer (it copies k_proj
//   into the V slot of a full layer's qkv_proj and keeps both in the cache).
// Defaults: Gemma4TextConfig, huggingface/transformers@351f643ab9f582c01026b6d75aab3e2c5a8338cd
//   src/transformers/models/gemma4/configuration_gemma4.py: num_key_value_heads=4, head_dim=256,
//   global_head_dim=512, attention_k_eq_v=False, attention_bias=False, sliding_window=512,
//   layer_types absent: full on every sixth layer; the last layer full whatever layer_types says
//   (Gemma4TextConfig.__post_init__ forces it, @008e574391258935f3ecc3035c882e73bbcac419),
//   num_global_key_value_heads absent: num_key_value_heads, enable_moe_block=False,
//   num_kv_shared_layers=0, hidden_size_per_layer_input=256, tie_word_embeddings=True.
// Not modelled, and refused: per-layer input embeddings (hidden_size_per_layer_input above 0,
//   the default; Gemma 4's E2B and E4B) and layers that read an earlier layer's KV instead of
//   caching their own (num_kv_shared_layers; use_double_wide_mlp widens only those layers).
// Each layer's layer_scalar is a buffer of one element, not a parameter (transformers'
//   num_parameters leaves it out, as here): 30 elements on 26B-A4B.
// The checkpoint's weights are counted: vLLM and SGLang copy a full layer's k_proj into a v_proj
//   slot of their fused qkv_proj, so they hold and read that copy too (about 29 MB in bf16 on
//   26B-A4B, 220 MB on 31B), which the ceiling here does not charge.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config_reader.hpp"

namespace ridgeline::json_detail {

inline void read_gemma4(const ConfigReader& c, Model& m) {
    const std::int64_t layers = c.layer_count();
    const Node& root = c.root();
    // Per-layer embeddings: Gemma4TextConfig's default is 256, so a file must say 0 (or null).
    if (!root.has("hidden_size_per_layer_input"))
        throw error(root.file(), root.path_of("hidden_size_per_layer_input"),
                    "nothing (the key is missing, so Gemma4TextConfig's default of 256 applies)",
                    "0 (per-layer input embeddings, Gemma 4's E2B and E4B, are not modelled)");
    if (c.count_or_zero("hidden_size_per_layer_input") > 0)
        root.at("hidden_size_per_layer_input").fail("0 (per-layer input embeddings, Gemma 4's E2B and E4B, are not modelled)");
    if (c.count_or_zero("num_kv_shared_layers") > 0)
        root.at("num_kv_shared_layers")
            .fail("0 (layers that read an earlier layer's KV instead of caching their own, as Gemma 4's E2B and E4B do, are not "
                  "modelled)");

    Gqa local = read_gqa(c, GqaDefaults{4, 256});
    local.qkv_bias = local.o_bias = c.flag_or("attention_bias", false);
    local.qk_norm = true;
    // Full layers: global_head_dim (null: head_dim) whether or not K is V; with attention_k_eq_v,
    // num_global_key_value_heads KV heads and no v_proj.
    Gqa global = local;
    global.head_dim = c.integer_absent_null("global_head_dim", 512, local.head_dim);
    if (c.flag_or("attention_k_eq_v", false)) {
        // Absent (or null), Gemma4TextConfig sets no override: num_key_value_heads.
        global.kv_heads = c.integer_or("num_global_key_value_heads", local.kv_heads);
        if (global.heads % global.kv_heads != 0)
            root.at("num_global_key_value_heads").fail("a divisor of num_attention_heads (" + std::to_string(global.heads) + ")");
        global.v_from_k = true;
    }

    std::int64_t window = c.integer_absent_null("sliding_window", 512, 0);
    // An encoder's bidirectional attention halves the window each way (Gemma4TextConfig.__post_init__).
    if (root.has("use_bidirectional_attention") && root.at("use_bidirectional_attention").value() == "all" && window > 0)
        window = window / 2 + 1;

    std::vector<bool> full(static_cast<std::size_t>(layers));
    if (c.present("layer_types")) {
        const auto types = layer_types(c, layers, {"sliding_attention", "full_attention"});
        for (std::size_t i = 0; i < full.size(); ++i) full[i] = types[i] == "full_attention";
    } else {
        for (std::size_t i = 0; i < full.size(); ++i) full[i] = (i + 1) % 6 == 0;
    }
    // Gemma4TextConfig forces the last layer to full attention, given layer_types or not.
    full.back() = true;

    const DenseMlp mlp{c.integer("intermediate_size")};
    LayerSpec base;
    base.ffn = mlp;
    base.norms = 4;  // input, post-attention, pre-feedforward, post-feedforward
    if (c.flag_or("enable_moe_block", false)) {
        Moe moe;
        moe.experts = c.integer("num_experts");
        moe.experts_per_token = c.integer("top_k_experts");
        if (moe.experts_per_token > moe.experts)
            root.at("top_k_experts").fail("at most num_experts (" + std::to_string(moe.experts) + ")");
        moe.expert_intermediate = c.integer("moe_intermediate_size");
        moe.shared_experts = 1;  // the MLP beside the experts, run for every token
        moe.shared_intermediate = mlp.intermediate;
        moe.router_bias = true;  // per_expert_scale: one element per expert
        base.ffn = moe;
        // The experts' pre and post norms, the MLP's second post norm, and the router's scale.
        base.norms = 4 + 3 + 1;
    }
    std::vector<LayerSpec> specs(full.size(), base);
    for (std::size_t i = 0; i < specs.size(); ++i) {
        specs[i].attention = full[i] ? global : local;
        specs[i].window = full[i] ? 0 : window;
    }
    add_layer_specs(m, specs, c);
}

}  // namespace ridgeline::json_detail
