// Reading a HuggingFace config.json's fields with a family's defaults: the cursor each family
// reader gets (family_*.hpp), and the attention and expert blocks most families share.
//
// An absent key takes the family's transformers default (each family's header names the class
// and commit); a key set to null takes what the class does with None. Sizes every Hub config
// states (hidden_size, num_hidden_layers, vocab_size, num_attention_heads, intermediate sizes,
// expert counts) stay required: a file without them is not a checkpoint's config, and a class
// default there would invent a model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "json_node.hpp"
#include "model.hpp"

namespace ridgeline::json_detail {

// Reads one config.json's fields for a known family, with the family's defaults.
// A family whose files name the common sizes otherwise (GPT-J's n_embd for hidden_size) gives
// the file's key for each common one, as transformers' attribute_map does; every accessor reads
// through it, so errors name the key the file has.
using KeyMap = std::string (*)(const std::string& common);

class ConfigReader {
public:
    ConfigReader(const Node& root, std::string family, KeyMap file_key = nullptr)
        : root_(root), family_(std::move(family)), file_key_(file_key) {}

    // Every accessor takes the common name and reads the file's key for it (file_key), once.
    [[nodiscard]] bool present(const std::string& common) const { return given(file_key(common)); }
    [[nodiscard]] std::int64_t integer(const std::string& common) const {
        const std::string key = file_key(common);
        if (!given(key))
            throw error(root_.file(), root_.path_of(key), root_.has(key) ? "null" : "nothing (the key is missing)",
                        "a positive integer (model_type " + family_ + " needs it)");
        return root_.at(key).positive_integer();
    }
    [[nodiscard]] std::int64_t integer_or(const std::string& common, std::int64_t fallback) const {
        const std::string key = file_key(common);
        return given(key) ? root_.at(key).positive_integer() : fallback;
    }
    // A count that may be 0 (q_lora_rank null means none, first_k_dense_replace 0 means none).
    [[nodiscard]] std::int64_t count_or_zero(const std::string& common) const {
        const std::string key = file_key(common);
        if (!given(key)) return 0;
        const Node n = root_.at(key);
        if (n.value().is_number_integer() && n.value().get<std::int64_t>() == 0) return 0;
        // 0 is a count too: a negative one is refused as one (a review found "a positive integer").
        if (n.value().is_number_integer() && n.value().get<std::int64_t>() < 0) n.fail("a count: 0 or a positive integer");
        return n.positive_integer();
    }
    // A positive integer no larger than the layer count (a step or a frequency in layers).
    [[nodiscard]] std::int64_t at_most_layers(const std::string& common, std::int64_t fallback, std::int64_t layers) const {
        const std::string key = file_key(common);
        const std::int64_t v = integer_or(common, fallback);
        if (v > layers)
            root_.at(key).fail("a positive integer of at most " + file_key("num_hidden_layers") + " (" + std::to_string(layers) + ")");
        return v;
    }
    // An array of layer indices, each an integer in [0, layers); absent or null means none.
    [[nodiscard]] std::vector<std::int64_t> layer_indices(const std::string& common, std::int64_t layers) const {
        const std::string key = file_key(common);
        std::vector<std::int64_t> out;
        if (!given(key)) return out;
        const Node list = root_.at(key);
        if (!list.value().is_array()) list.fail("an array of layer indices");
        const std::string expected = "a layer index from 0 to " + std::to_string(layers - 1) + " (" + file_key("num_hidden_layers") +
                                     " is " + std::to_string(layers) + ")";
        for (std::size_t i = 0; i < list.value().size(); ++i) {
            const Node item = list.at(i);
            const json& v = item.value();
            if (!v.is_number_integer()) item.fail(expected);
            if (v.is_number_unsigned() ? v.get<std::uint64_t>() >= static_cast<std::uint64_t>(layers)
                                       : (v.get<std::int64_t>() < 0 || v.get<std::int64_t>() >= layers))
                item.fail(expected);
            out.push_back(v.get<std::int64_t>());
        }
        return out;
    }
    [[nodiscard]] bool flag_or(const std::string& common, bool fallback) const {
        const std::string key = file_key(common);
        return given(key) ? root_.at(key).boolean() : fallback;
    }
    // num_hidden_layers, bounded.
    [[nodiscard]] std::int64_t layer_count() const {
        const std::int64_t layers = integer("num_hidden_layers");
        if (layers > 100000) root_.at(file_key("num_hidden_layers")).fail("a layer count below 100,000");
        return layers;
    }
    // An absent key's default, a null's meaning, or the file's positive integer.
    [[nodiscard]] std::int64_t integer_absent_null(const std::string& common, std::int64_t absent, std::int64_t null) const {
        const std::string key = file_key(common);
        if (!root_.has(key)) return absent;
        if (!given(key)) return null;
        return root_.at(key).positive_integer();
    }
    [[nodiscard]] const Node& root() const { return root_; }
    [[nodiscard]] const std::string& family() const { return family_; }
    // The file's name for a common key (itself unless the family renames it).
    [[nodiscard]] std::string file_key(const std::string& common) const { return file_key_ ? file_key_(common) : common; }

private:
    // The file has this key (its own name), not null.
    [[nodiscard]] bool given(const std::string& key) const { return root_.has(key) && !root_.at(key).value().is_null(); }

    const Node& root_;
    std::string family_;
    KeyMap file_key_;
};

// Adds per-layer specs to the model; identical layers share a group (Model::add_layers). Too
// many kinds is the layer count's error, under the file's own name for it.
inline void add_layer_specs(Model& m, const std::vector<LayerSpec>& layers, const ConfigReader& c) {
    for (const LayerSpec& spec : layers) {
        try {
            m.add_layers(1, spec);
        } catch (const std::length_error&) {
            throw error(c.root().file(), c.root().path_of(c.file_key("num_hidden_layers")), std::to_string(layers.size()) + " layers",
                        "at most " + std::to_string(Model::max_groups) + " distinct kinds of layer");
        }
    }
}

// What a family's attention defaults to when num_key_value_heads or head_dim is absent
// (nullopt: num_attention_heads, and hidden_size / num_attention_heads).
struct GqaDefaults {
    std::optional<std::int64_t> kv_heads{};
    std::optional<std::int64_t> head_dim{};
};

inline Gqa read_gqa(const ConfigReader& c, GqaDefaults defaults, const std::string& heads_key = "num_attention_heads") {
    const std::string& f = c.family();
    Gqa a;
    a.heads = c.integer(heads_key);
    const bool kv_given = c.present("num_key_value_heads");
    if (kv_given) a.kv_heads = c.root().at("num_key_value_heads").positive_integer();
    else if (c.root().has("num_key_value_heads")) a.kv_heads = a.heads;  // null: every class's None
    else a.kv_heads = defaults.kv_heads.value_or(a.heads);
    if (a.heads % a.kv_heads != 0) {
        const std::string expected = "a divisor of " + heads_key + " (" + std::to_string(a.heads) + ")";
        if (kv_given) c.root().at("num_key_value_heads").fail(expected);
        throw error(c.root().file(), c.root().path_of("num_key_value_heads"),
                    "nothing (the key is missing, so model_type " + f + "'s default of " + std::to_string(a.kv_heads) +
                        " applies)",
                    expected + "; give num_key_value_heads in the file");
    }
    const auto from_hidden = [&] {
        const std::int64_t hidden = c.integer("hidden_size");
        if (hidden % a.heads != 0)
            throw error(c.root().file(), c.root().path_of("head_dim"), c.root().has("head_dim") ? "null" : "nothing (the key is missing)",
                        "a head_dim, since hidden_size is not a multiple of " + heads_key);
        return hidden / a.heads;
    };
    if (c.present("head_dim")) a.head_dim = c.root().at("head_dim").positive_integer();
    else if (c.root().has("head_dim")) a.head_dim = from_hidden();  // null
    else if (defaults.head_dim) a.head_dim = *defaults.head_dim;
    else a.head_dim = from_hidden();
    return a;
}

// Routed experts: their count and top-k, checked against each other with the file's names.
inline Moe read_moe(const ConfigReader& c, const std::string& experts_key, const std::string& intermediate_key,
                    std::optional<std::int64_t> experts_default = std::nullopt,
                    std::optional<std::int64_t> per_token_default = std::nullopt) {
    Moe e;
    if (c.present(experts_key) && c.root().at(experts_key).value() == 0)
        c.root().at(experts_key).fail("a positive integer (a mixture of experts needs experts)");
    e.experts = experts_default && !c.root().has(experts_key) ? *experts_default : c.integer(experts_key);
    e.experts_per_token = per_token_default && !c.root().has("num_experts_per_tok") ? *per_token_default
                                                                                  : c.integer("num_experts_per_tok");
    if (e.experts_per_token > e.experts) {
        const std::string expected = "at most " + experts_key + " (" + std::to_string(e.experts) + ")";
        if (c.root().has("num_experts_per_tok")) c.root().at("num_experts_per_tok").fail(expected);
        throw error(c.root().file(), c.root().path_of("num_experts_per_tok"), "nothing (the key is missing)", expected);
    }
    e.expert_intermediate = c.integer(intermediate_key);
    return e;
}

// Group-limited routing (DeepSeek, GLM-4.5: the experts in n_group groups, each token's top-k
// drawn from its topk_group best groups) moves no byte ridgeline counts: by symmetry each expert
// is still chosen with probability k / E, so a batch touches as many experts. The keys are read
// only to refuse a router no engine could run; absent or null, nothing is checked.
inline void check_expert_groups(const ConfigReader& c, const Moe& e, const std::string& experts_key) {
    if (!c.present("n_group")) return;
    const std::int64_t groups = c.integer("n_group");
    if (e.experts % groups != 0)
        c.root().at("n_group").fail("a divisor of " + experts_key + " (" + std::to_string(e.experts) + ")");
    if (!c.present("topk_group")) return;
    const std::int64_t chosen = c.integer("topk_group");
    if (chosen > groups) c.root().at("topk_group").fail("at most n_group (" + std::to_string(groups) + ")");
    const std::int64_t per_group = e.experts / groups;
    if (chosen * per_group < e.experts_per_token)
        c.root().at("topk_group").fail("groups enough to hold num_experts_per_tok (" + std::to_string(e.experts_per_token) +
                                       " experts, " + std::to_string(per_group) + " a group: at least " +
                                       std::to_string((e.experts_per_token + per_group - 1) / per_group) + ")");
}

// An array of per-layer strings (layer_types, or the key named), one per layer, each one of `allowed`.
inline std::vector<std::string> layer_types(const ConfigReader& c, std::int64_t layers, const std::vector<std::string>& allowed,
                                            const std::string& key = "layer_types") {
    const Node types = c.root().at(key);
    if (!types.value().is_array() || types.value().size() != static_cast<std::size_t>(layers))
        types.fail("an array of " + std::to_string(layers) + " layer types, one per layer");
    std::string expected;
    for (const auto& a : allowed) expected += (expected.empty() ? "\"" : " or \"") + a + "\"";
    std::vector<std::string> out;
    for (std::size_t i = 0; i < types.value().size(); ++i) {
        const auto& t = types.value()[i];
        if (!t.is_string() || std::find(allowed.begin(), allowed.end(), t.get<std::string>()) == allowed.end())
            throw error(c.root().file(), c.root().path_of(key) + "/" + std::to_string(i), describe(t), expected);
        out.push_back(t.get<std::string>());
    }
    return out;
}

}  // namespace ridgeline::json_detail
