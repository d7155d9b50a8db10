// Reading an EAGLE-3 head's config.json (draft_head.hpp), and a speculative draft given by name or
// file: a draft-head preset (data/drafts), a head's config, or a model.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint_formats.hpp"
#include "draft_head.hpp"
#include "model_json.hpp"

namespace ridgeline {

namespace json_detail {
inline bool names_eagle3_head_config(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("architectures") || !j.at("architectures").is_array()) return false;
    return std::any_of(j.at("architectures").begin(), j.at("architectures").end(),
                       [](const nlohmann::json& a) { return a.is_string() && names_eagle3_head(a.get<std::string>()); });
}
}  // namespace json_detail

// An EAGLE-3 Llama head from its config.json (SpecForge's and EAGLE's LlamaForCausalLMEagle3,
// vLLM's Eagle3LlamaForCausalLM): its layers read as the Llama decoder its model_type names, over
// draft_vocab_size tokens (vocab_size when absent or null, as vLLM); target_hidden_size (else
// hidden_size) and eagle_config.use_aux_hidden_state (else true) as vLLM reads them. Its own
// max_position_embeddings is no limit: vLLM raises an EAGLE head's to the target's length
// (vllm-project/vllm@c1e1864b4fa1adb758a6c1317625fd992ddbd747
// tests/config/test_speculative_draft_max_position_embeddings.py), so the target's applies.
inline DraftHead draft_head_from_config(const nlohmann::json& j, const std::string& file = "", const std::string& fallback_name = "draft head") {
    using json_detail::Node;
    const Node root{j, file, ""};
    root.require_object("a config.json object");
    if (!json_detail::names_eagle3_head_config(j))
        (root.has("architectures") ? root.at("architectures") : root)
            .fail("an EAGLE-3 Llama head's architectures: [\"LlamaForCausalLMEagle3\"] or [\"Eagle3LlamaForCausalLM\"]");
    // Engines load the first class of the list they support (vLLM's registry tries each in turn),
    // so a list that names another class beside the head's says two things: refused, not guessed.
    const Node arch = root.at("architectures");
    for (std::size_t i = 0; i < arch.value().size(); ++i)
        if (!arch.value()[i].is_string() || !json_detail::names_eagle3_head(arch.value()[i].get<std::string>()))
            arch.at(i).fail("only EAGLE-3 Llama head classes (LlamaForCausalLMEagle3, Eagle3LlamaForCausalLM): engines load the first "
                            "class of a list they support, so a list mixing classes is ambiguous");
    const std::string type = root.need("model_type", "llama").string("llama");
    if (type != "llama") root.at("model_type").fail("llama: an EAGLE-3 head's layers are Llama decoder layers");
    DraftHead d;
    d.target_vocab = root.need("vocab_size", "the target's vocabulary, a positive integer").positive_integer();
    if (d.target_vocab > model_detail::max_vocab) root.at("vocab_size").fail("the target's vocabulary, at most 2^31 tokens");
    std::int64_t draft_vocab = d.target_vocab;
    if (root.has("draft_vocab_size") && !root.at("draft_vocab_size").value().is_null()) {
        draft_vocab = root.at("draft_vocab_size").positive_integer();
        if (draft_vocab > d.target_vocab)
            root.at("draft_vocab_size").fail("at most vocab_size (" + std::to_string(d.target_vocab) + "): the draft vocabulary is a part of the target's");
    }
    if (root.has("eagle_config") && !root.at("eagle_config").value().is_null()) {
        const Node e = root.at("eagle_config");
        e.require_object("an object");
        if (e.has("use_aux_hidden_state")) d.fuses_hidden_states = e.at("use_aux_hidden_state").boolean();
    }
    // The layers as the Llama they are, over the draft vocabulary (the head's own LM head).
    nlohmann::json layers = j;
    layers["architectures"] = nlohmann::json::array({"LlamaForCausalLM"});
    layers["vocab_size"] = draft_vocab;
    layers["tie_word_embeddings"] = false;  // the head's LM head is its own (vLLM builds one whatever the key says)
    d.block = read_config(layers, file, fallback_name).model;
    d.block.max_context = 0;
    d.target_hidden = d.block.hidden_size;
    if (root.has("target_hidden_size") && !root.at("target_hidden_size").value().is_null()) {
        d.target_hidden = root.at("target_hidden_size").positive_integer();
        if (d.target_hidden > model_detail::max_dimension) root.at("target_hidden_size").fail("a width from 1 to 2^24");
    }
    const auto [precision, source] = checkpoint_formats(j, file);
    d.weights = precision.weights;
    d.lm_head = precision.lm_head_format();
    try {
        validate(d);
    } catch (const error& e) {
        throw error(file, e.path(), e.value(), e.expected());
    }
    return d;
}

inline DraftHead load_draft_head(std::string_view name_or_path) {
    const ResolvedPreset r = resolve(PresetKind::draft_head, name_or_path);
    return draft_head_from_config(read_json_file(r.file), r.file.string(), r.name);
}

// What a speculative draft names: a model (with its checkpoint's formats) or an EAGLE-3 head.
struct LoadedDraft {
    std::optional<LoadedModel> model;
    std::optional<DraftHead> head;
    [[nodiscard]] std::string name() const { return std::string(head ? head->block.name.view() : model->model.name.view()); }
};

// A draft-head preset's name (data/drafts), else a model preset's, else a JSON file: a head's
// config.json reads as a head, any other as a model. An unknown name is refused with both kinds
// of preset listed, closest first.
inline LoadedDraft load_draft(std::string_view name_or_path) {
    const std::string s(name_or_path);
    if (!looks_like_path(s)) {
        const auto heads = list_presets(PresetKind::draft_head);
        if (std::find(heads.begin(), heads.end(), s) != heads.end()) return {std::nullopt, load_draft_head(s)};
        auto names = list_presets(PresetKind::model);
        std::error_code ec;
        if (std::find(names.begin(), names.end(), s) == names.end() && !std::filesystem::exists(std::filesystem::path(s), ec) &&
            !heads.empty()) {
            names.insert(names.end(), heads.begin(), heads.end());
            throw error("", "model or draft-head preset", "\"" + json_detail::printable(s) + "\"",
                        "one of (closest first): " + closest_first(names, s));
        }
    }
    const ResolvedPreset r = resolve(PresetKind::model, s);
    const nlohmann::json j = read_json_file(r.file);
    if (json_detail::names_eagle3_head_config(j)) return {std::nullopt, draft_head_from_config(j, r.file.string(), r.name)};
    return {loaded_model(j, r), std::nullopt};
}

}  // namespace ridgeline
