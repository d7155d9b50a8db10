// Models from a HuggingFace config.json (with an optional "ridgeline" object: {"source",
// "name", "parameters", "parameters_source"}), or from ridgeline's own form, which to_json
// writes. Each family's reader is in family_*.hpp, found through family_registry.hpp. A
// config.json's many keys that do not change the arithmetic (rope, dropout, token ids, ...) are
// ignored by design.
//
// Three ways a file reaches a family, each said in the notes read_config returns: its
// model_type; a wrapper (a vision-language model) whose text_config has a known model_type,
// read as its language model with the vision tower reported apart; or an unknown model_type
// whose architectures names a known ...ForCausalLM class (Kimi K2: DeepseekV3ForCausalLM).
#pragma once

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "config_reader.hpp"
#include "family_registry.hpp"
#include "json_node.hpp"
#include "model.hpp"

namespace ridgeline {

// A model read from a file, and what the reading assumed (empty when nothing needs saying).
struct ConfigReading {
    Model model;
    std::string notes;
};

namespace json_detail {

// ridgeline's own form, written by to_json: the layer groups spelled out.
inline LayerSpec read_own_group(const Node& g) {
    g.require_object("a layer group object");
    g.only_keys({"count", "attention", "window", "chunked", "norms", "ffn"});
    LayerSpec spec;
    const auto flag = [](const Node& n, const char* key) { return n.has(key) && n.at(key).boolean(); };
    const auto count = [](const Node& n, const char* key) {
        if (!n.has(key)) return std::int64_t{0};
        if (n.at(key).value() == 0) return std::int64_t{0};
        return n.at(key).positive_integer();
    };
    const auto positive = [](const Node& n, const char* key) { return n.need(key, "a positive integer").positive_integer(); };
    const Node at = g.need("attention", "an attention object");
    at.require_object("an attention object");
    const char* attention_kinds = "\"gqa\", \"mla\", \"gated_deltanet\", \"mamba2\" or \"none\"";
    const std::string kind = at.need("kind", attention_kinds).string(attention_kinds);
    if (kind == "gqa") {
        at.only_keys({"kind", "heads", "kv_heads", "head_dim", "qkv_bias", "o_bias", "qk_norm", "sinks", "output_gate",
                      "qk_norm_across_heads", "v_from_k"});
        spec.attention = Gqa{positive(at, "heads"),  positive(at, "kv_heads"), positive(at, "head_dim"),
                             flag(at, "qkv_bias"),   flag(at, "o_bias"),       flag(at, "qk_norm"),
                             flag(at, "sinks"),      flag(at, "output_gate"),  flag(at, "qk_norm_across_heads"),
                             flag(at, "v_from_k")};
    } else if (kind == "mla") {
        at.only_keys({"kind", "heads", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
                      "index_heads", "index_head_dim", "index_topk", "index_key_format", "index_shared"});
        Mla l{positive(at, "heads"), count(at, "q_lora_rank"), positive(at, "kv_lora_rank"),
              positive(at, "qk_nope_head_dim"), positive(at, "qk_rope_head_dim"), positive(at, "v_head_dim"),
              count(at, "index_heads"), count(at, "index_head_dim"), count(at, "index_topk")};
        // The indexer's key format when it has its own (absent or null: the KV format).
        if (at.has("index_key_format") && !at.at("index_key_format").value().is_null()) {
            const Node f = at.at("index_key_format");
            const char* expected = "a format name such as \"fp8/g128/s32\" (fp8 with a 32-bit scale per 128), or null";
            const auto parsed = parse_format(f.string(expected));
            if (!parsed) f.fail(expected);
            l.index_key_format = *parsed;
        }
        l.index_shared = flag(at, "index_shared");
        spec.attention = l;
    } else if (kind == "gated_deltanet") {
        at.only_keys({"kind", "key_heads", "value_heads", "key_head_dim", "value_head_dim", "conv_kernel"});
        spec.attention = GatedDeltaNet{positive(at, "key_heads"), positive(at, "value_heads"), positive(at, "key_head_dim"),
                                       positive(at, "value_head_dim"), positive(at, "conv_kernel")};
    } else if (kind == "mamba2") {
        at.only_keys({"kind", "heads", "head_dim", "state_size", "groups", "conv_kernel", "conv_bias", "proj_bias"});
        spec.attention = Mamba2{positive(at, "heads"),       positive(at, "head_dim"),  positive(at, "state_size"),
                                positive(at, "groups"),      positive(at, "conv_kernel"), flag(at, "conv_bias"),
                                flag(at, "proj_bias")};
    } else if (kind == "none") {
        at.only_keys({"kind", "linear"});
        spec.attention = NoAttention{flag(at, "linear")};
    } else {
        at.at("kind").fail(attention_kinds);
    }
    spec.window = count(g, "window");
    spec.chunked = flag(g, "chunked");
    if (g.has("norms")) {
        const Node n = g.at("norms");
        spec.norms = n.value() == 0 ? 0 : n.positive_integer();
    }
    const Node ffn = g.need("ffn", "an ffn object");
    ffn.require_object("an ffn object");
    const char* ffn_kinds = "\"dense\", \"ungated\", \"moe\" or \"none\"";
    const std::string fk = ffn.need("kind", ffn_kinds).string(ffn_kinds);
    if (fk == "dense") {
        ffn.only_keys({"kind", "intermediate", "bias"});
        spec.ffn = DenseMlp{positive(ffn, "intermediate"), flag(ffn, "bias")};
    } else if (fk == "ungated") {
        ffn.only_keys({"kind", "intermediate", "bias"});
        spec.ffn = NonGatedMlp{positive(ffn, "intermediate"), flag(ffn, "bias")};
    } else if (fk == "moe") {
        ffn.only_keys({"kind", "experts", "experts_per_token", "expert_intermediate", "shared_experts",
                       "shared_intermediate", "router_bias", "expert_bias", "shared_gate", "ungated", "latent"});
        spec.ffn = Moe{positive(ffn, "experts"), positive(ffn, "experts_per_token"), positive(ffn, "expert_intermediate"),
                       count(ffn, "shared_experts"), count(ffn, "shared_intermediate"), flag(ffn, "router_bias"),
                       flag(ffn, "expert_bias"), flag(ffn, "shared_gate"), flag(ffn, "ungated"), count(ffn, "latent")};
    } else if (fk == "none") {
        ffn.only_keys({"kind", "linear"});
        spec.ffn = NoFfn{flag(ffn, "linear")};
    } else {
        ffn.at("kind").fail(ffn_kinds);
    }
    return spec;
}

// What a wrapper's vision tower is, reported apart from the language model: its layers and
// widths, and a rough size (per layer q, k, v, o and a two-matrix MLP; the patch embedding and
// the projector left out).
inline std::string vision_tower_note(const Node& root) {
    if (!root.has("vision_config") || !root.at("vision_config").value().is_object())
        return "no vision_config in the file";
    const Node v = root.at("vision_config");
    const auto get = [&](std::initializer_list<const char*> keys) -> std::int64_t {
        for (const char* k : keys)
            if (v.has(k) && v.at(k).value().is_number_integer()) return v.at(k).positive_integer();
        return 0;
    };
    const std::int64_t layers = get({"num_hidden_layers", "depth"}), width = get({"hidden_size"}),
                       inner = get({"intermediate_size"});
    if (layers == 0 || width == 0 || inner == 0) return "vision_config present, its size not read";
    const double h = static_cast<double>(width), estimate = static_cast<double>(layers) * (4 * h * h + 2 * h * static_cast<double>(inner));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", estimate / 1e9);
    return std::to_string(layers) + " layers of width " + std::to_string(width) + " (MLP " + std::to_string(inner) +
           "), about " + buf + " B parameters, not counted";
}

// Whether an architecture name is an EAGLE-3 Llama draft head's: SpecForge's and EAGLE's
// LlamaForCausalLMEagle3, vLLM's Eagle3LlamaForCausalLM, in any case (draft_head_json.hpp).
inline bool names_eagle3_head(const std::string& name) {
    const std::string lower = json_detail::ascii_lower(name);
    return lower == "llamaforcausallmeagle3" || lower == "eagle3llamaforcausallm";
}

// Refuses a file naming only classes without an LM head (Qwen3Model, as embedding checkpoints
// ship; ...ForSequenceClassification, ...ForTokenClassification, ...ForQuestionAnswering):
// such a model decodes no token. A ...ForCausalLM entry is needed, or a
// ...ForConditionalGeneration for a wrapper; an absent key is taken as a causal LM.
inline void require_lm_head(const Node& root, bool wrapper) {
    if (!root.has("architectures")) return;
    const Node arch = root.at("architectures");
    const std::string expected = "an array of architecture names, one of them a ...ForCausalLM";
    if (!arch.value().is_array() || arch.value().empty()) arch.fail(expected);
    bool causal = false;
    for (std::size_t i = 0; i < arch.value().size(); ++i) {
        const std::string name = arch.at(i).string("an architecture name (a non-empty string)");
        // An EAGLE or Medusa head reads its target's hidden states and, in EAGLE-3, feeds 3h of
        // them through fc and a 2h-input attention into a vocabulary of its own: read as the
        // Llama its model_type says, it would be priced as a one-layer model it is not (vLLM's
        // class for it, Eagle3LlamaForCausalLM, even ends in ForCausalLM). Matched by the heads'
        // own naming in any case (LlamaForCausalLMEagle3, Eagle3LlamaForCausalLM,
        // EagleDeepSeekMTPModel, EAGLEModel, MedusaModel), not by the word alone: NVIDIA's Eagle
        // vision-language models (Eagle2_5_VLForConditionalGeneration) are no draft heads.
        const std::string lower = json_detail::ascii_lower(name);
        const bool eagle_head = lower.find("forcausallmeagle") != std::string::npos ||
                                (lower.starts_with("eagle") && (lower.ends_with("forcausallm") || lower.ends_with("mtpmodel") ||
                                                                lower == "eaglemodel"));
        if (names_eagle3_head(name))
            arch.at(i).fail("a model that decodes on its own: an EAGLE-3 head drafts from its target's hidden states, so it is "
                            "given as speculative decoding's draft, not as a model");
        if (eagle_head || name.find("Medusa") != std::string::npos)
            arch.at(i).fail("a model that decodes on its own: an EAGLE or Medusa draft head reads its target's hidden states, and "
                            "ridgeline models only EAGLE-3 Llama heads (speculative drafts with one, a draft model, the target's own "
                            "MTP modules or a free draft)");
        causal = causal || name.ends_with("ForCausalLM") || (wrapper && name.ends_with("ForConditionalGeneration"));
    }
    if (!causal)
        arch.at(0).fail("a ...ForCausalLM architecture: a model without an LM head (a bare model, an embedding or "
                        "classification model) decodes no tokens, which is all ridgeline models");
}

// Which family reads the file, the node holding the language model's keys, and what to say.
struct FamilyChoice {
    const Family* family = nullptr;  // nullptr: ridgeline's own form
    Node text;
    std::string notes;
    bool wrapper = false;  // the language model sits in text_config
};

// The first of a config's architectures that names a class a family reads here, and that name;
// none where no entry does.
inline std::pair<const Family*, std::string> family_by_architecture(const Node& n) {
    if (n.has("architectures") && n.at("architectures").value().is_array())
        for (const auto& a : n.at("architectures").value())
            if (a.is_string())
                if (const Family* f = family_for_architecture(a.get<std::string>())) return {f, a.get<std::string>()};
    return {nullptr, ""};
}

inline FamilyChoice choose_family(const Node& root) {
    const std::string expected = "one of: " + family_list();
    const std::string type = root.need("model_type", expected).string(expected);
    if (type == "ridgeline") return {nullptr, root, ""};
    if (const Family* f = find_family(type)) {
        require_lm_head(root, false);
        return {f, root, ""};
    }
    // A wrapper whose language model family is known by its name (gemma3 holds gemma3_text)
    // needs that model in an object: said so, not that the wrapper is unknown.
    if (find_family(type + "_text") && !(root.has("text_config") && root.at("text_config").value().is_object())) {
        const std::string want = "an object holding the language model's config (model_type " + type + " is a wrapper of " + type + "_text)";
        if (root.has("text_config")) root.at("text_config").fail(want);
        (void)root.need("text_config", want);
    }
    if (root.has("text_config") && root.at("text_config").value().is_object()) {
        const Node text = root.at("text_config");
        const std::string inner_expected = "a text_config whose model_type is one of: " + family_list();
        const std::string inner = text.need("model_type", inner_expected).string(inner_expected);
        const Family* f = find_family(inner);
        // A language model whose model_type is unknown but whose architectures names a class read
        // here (Kimi-K2.5's text_config: kimi_k2, DeepseekV3ForCausalLM), as at the top level.
        std::string read_as;
        if (!f) {
            const auto [by_class, name] = family_by_architecture(text);
            f = by_class;
            if (f) read_as = ", read as " + std::string(f->model_type) + " (its architectures names " + name + ")";
        }
        if (!f) text.at("model_type").fail("a supported model_type, one of: " + family_list());
        require_lm_head(root, true);
        return {f, text,
                "language model read from text_config (model_type " + clipped(json_detail::printable(inner)) + read_as + ") of a " +
                    clipped(json_detail::printable(type)) + " checkpoint; vision tower: " + vision_tower_note(root),
                true};
    }
    if (const auto [f, name] = family_by_architecture(root); f)
        return {f, root, "model_type " + clipped(json_detail::printable(type)) + " read as " + std::string(f->model_type) + " (architectures names " + name + ")"};
    root.at("model_type").fail("a supported model_type, one of: " + family_list() +
                               "; or a wrapper whose text_config has one; or architectures naming one of their classes");
}

}  // namespace json_detail

// What a model's notes say where its file gives no max_position_embeddings; a front end that
// sets the limit (--max-context) drops it with without_position_note.
inline constexpr std::string_view no_position_limit_note = "no max_position_embeddings: contexts are not limited";
inline std::string without_position_note(std::string notes) {
    for (const std::string_view cut : {std::string("; ") + std::string(no_position_limit_note), std::string(no_position_limit_note)})
        if (const auto at = notes.find(cut); at != std::string::npos) return notes.erase(at, cut.size());
    return notes;
}

// Reads a config.json. `file` labels errors; `fallback_name` names the model when the file does not.
inline ConfigReading read_config(const nlohmann::json& j, const std::string& file = "", const std::string& fallback_name = "model") {
    using json_detail::Node;
    const Node root{j, file, ""};
    root.require_object("a config.json object");
    const json_detail::FamilyChoice choice = json_detail::choose_family(root);
    const bool own_form = choice.family == nullptr;
    const Node& text = choice.text;
    const json_detail::ConfigReader c{text, own_form ? "ridgeline" : std::string(choice.family->model_type),
                                     own_form ? nullptr : choice.family->file_key};

    ConfigReading out;
    Model& m = out.model;
    out.notes = choice.notes;
    std::string name = json_detail::printable(fallback_name);  // often a file's stem: any bytes
    bool named_in_file = false;
    if (root.has("ridgeline")) {
        const Node r = root.at("ridgeline");
        r.require_object("an object with source, name, parameters, parameters_source");
        r.only_keys({"source", "name", "parameters", "parameters_source"});
        if (r.has("source")) (void)r.at("source").string("a non-empty string saying where the config came from");
        if (r.has("name")) name = r.at("name").name(), named_in_file = true;
        if (r.has("parameters")) {
            m.declared_parameters = r.at("parameters").positive_number();
            if (!(*m.declared_parameters >= 1 && *m.declared_parameters < 1e16))
                r.at("parameters").fail("a count from 1 to below 1e16");
            if (!own_form) (void)r.need("parameters_source", "a non-empty string citing the published count").string();
        }
        if (r.has("parameters_source")) (void)r.at("parameters_source").string();
    }
    if (!named_in_file && name.size() > Name::capacity)  // the name came from the file's name
        throw error(root.file(), "", "a file name whose stem \"" + name + "\" has " + std::to_string(name.size()) +
                                         " characters, too long for a model name",
                    "a stem of at most 63 characters, or a \"ridgeline\": {\"name\": ...} in the file");
    m.name = Name{name};
    m.hidden_size = c.integer("hidden_size");
    m.vocab_size = c.integer("vocab_size");
    // A wrapper may say tie_word_embeddings at the top rather than in its text_config.
    const bool tied_default = own_form ? false : choice.family->tied_by_default;
    if (text.has("tie_word_embeddings") || !choice.wrapper) m.tied_embeddings = c.flag_or("tie_word_embeddings", tied_default);
    else m.tied_embeddings = json_detail::ConfigReader{root, "wrapper"}.flag_or("tie_word_embeddings", tied_default);
    m.max_context = c.integer_or("max_position_embeddings", 0);

    if (own_form) {
        root.only_keys({"model_type", "hidden_size", "vocab_size", "tie_word_embeddings", "num_nextn_predict_layers",
                        "max_position_embeddings", "layer_groups", "last_layer_group", "ridgeline"});
        m.mtp_layers = c.count_or_zero("num_nextn_predict_layers");
        const Node groups = root.need("layer_groups", "an array of layer groups");
        // Entries in layer order; identical ones merge into one group and keep their order.
        if (!groups.value().is_array() || groups.value().empty() || groups.value().size() > Model::max_runs)
            groups.fail("an array of 1 to " + std::to_string(Model::max_runs) + " layer groups");
        // The group each entry joined (identical entries merge), for last_layer_group's index.
        std::vector<std::size_t> joined;
        for (std::size_t i = 0; i < groups.value().size(); ++i) {
            const Node g = groups.at(i);
            g.require_object("a layer group object");
            const std::int64_t count = g.need("count", "a positive integer").positive_integer();
            try {
                m.add_layers(count, json_detail::read_own_group(g));
            } catch (const std::length_error&) {
                g.fail("at most " + std::to_string(Model::max_groups) + " distinct kinds of layer among the entries");
            }
            joined.push_back(m.last_group);
        }
        // Which entry the model's last layer is in (an MTP module copies it), where not the last.
        if (root.has("last_layer_group")) {
            const Node last = root.at("last_layer_group");
            const nlohmann::json& v = last.value();
            std::int64_t index = -1;
            if (v.is_number_unsigned()) {
                if (v.get<std::uint64_t>() < joined.size()) index = static_cast<std::int64_t>(v.get<std::uint64_t>());
            } else if (v.is_number_integer()) {
                index = v.get<std::int64_t>();
            }
            if (index < 0 || index >= static_cast<std::int64_t>(joined.size()))
                last.fail("an index into layer_groups, an integer from 0 to " + std::to_string(joined.size() - 1));
            m.last_group = joined[static_cast<std::size_t>(index)];
        }
    } else {
        choice.family->read(c, m);
    }
    if (m.declared_parameters)
        for (const auto& g : m)
            if (routed_experts(g.spec, 1.0).experts > 0)
                root.at("ridgeline").at("parameters").fail("no declared count: the model has routed experts");
    try {
        validate(m);
    } catch (const error& e) {  // the core names the field; add the file
        throw error(root.file(), e.path(), e.value(), e.expected());
    }
    // A published count rounds the architecture's ("7B" for Llama 2's 6.74B, "1B" for 1.24B); one
    // far from it is another model's, and would make the every-parameter budget disagree with
    // every other figure (a review declared 1.1B on Llama-3.1-8B's config and read 8.03B beside
    // 2.20 GB). A config.json's count is held within a factor of 1.5 of its own.
    if (m.declared_parameters && !own_form) {
        const double derived = derived_parameters(m).total(), ratio = *m.declared_parameters / derived;
        if (!(ratio >= 1 / 1.5 && ratio <= 1.5))
            root.at("ridgeline").at("parameters").fail("a count within a factor of 1.5 of the " + std::to_string(static_cast<std::int64_t>(derived)) +
                                                       " parameters the config's architecture has (a published count rounds it)");
    }
    // Without a position limit any context is taken: say so, since a real checkpoint has one.
    if (m.max_context == 0) out.notes += std::string(out.notes.empty() ? "" : "; ") + std::string(no_position_limit_note);
    return out;
}

inline Model model_from_config(const nlohmann::json& j, const std::string& file = "", const std::string& fallback_name = "model") {
    return read_config(j, file, fallback_name).model;
}

inline void to_json(nlohmann::json& j, const Model& m) {
    using nlohmann::json;
    // Each group's kind, then the layers in order: an entry a run (identical entries merge back
    // into one group when read, and keep the order).
    std::vector<json> kinds;
    for (const auto& g : m) {
        json at;
        if (const auto* a = std::get_if<Gqa>(&g.spec.attention))
            at = {{"kind", "gqa"},           {"heads", a->heads},     {"kv_heads", a->kv_heads}, {"head_dim", a->head_dim},
                  {"qkv_bias", a->qkv_bias}, {"o_bias", a->o_bias},   {"qk_norm", a->qk_norm},   {"sinks", a->sinks},
                  {"output_gate", a->output_gate}, {"qk_norm_across_heads", a->qk_norm_across_heads}, {"v_from_k", a->v_from_k}};
        else if (const auto* l = std::get_if<Mla>(&g.spec.attention))
            at = {{"kind", "mla"},
                  {"heads", l->heads},
                  {"q_lora_rank", l->q_lora_rank},
                  {"kv_lora_rank", l->kv_lora_rank},
                  {"qk_nope_head_dim", l->qk_nope_head_dim},
                  {"qk_rope_head_dim", l->qk_rope_head_dim},
                  {"v_head_dim", l->v_head_dim},
                  {"index_heads", l->index_heads},
                  {"index_head_dim", l->index_head_dim},
                  {"index_topk", l->index_topk},
                  {"index_key_format", l->index_key_format ? json(format_name(*l->index_key_format)) : json(nullptr)},
                  {"index_shared", l->index_shared}};
        else if (const auto* d = std::get_if<GatedDeltaNet>(&g.spec.attention))
            at = {{"kind", "gated_deltanet"},        {"key_heads", d->key_heads},       {"value_heads", d->value_heads},
                  {"key_head_dim", d->key_head_dim}, {"value_head_dim", d->value_head_dim}, {"conv_kernel", d->conv_kernel}};
        else if (const auto* mb = std::get_if<Mamba2>(&g.spec.attention))
            at = {{"kind", "mamba2"},         {"heads", mb->heads},          {"head_dim", mb->head_dim},
                  {"state_size", mb->state_size}, {"groups", mb->groups},       {"conv_kernel", mb->conv_kernel},
                  {"conv_bias", mb->conv_bias},   {"proj_bias", mb->proj_bias}};
        else
            at = {{"kind", "none"}, {"linear", std::get<NoAttention>(g.spec.attention).linear}};
        json ffn;
        if (const auto* d = std::get_if<DenseMlp>(&g.spec.ffn))
            ffn = {{"kind", "dense"}, {"intermediate", d->intermediate}, {"bias", d->bias}};
        else if (const auto* u = std::get_if<NonGatedMlp>(&g.spec.ffn))
            ffn = {{"kind", "ungated"}, {"intermediate", u->intermediate}, {"bias", u->bias}};
        else if (const auto* e = std::get_if<Moe>(&g.spec.ffn))
            ffn = {{"kind", "moe"},
                   {"experts", e->experts},
                   {"experts_per_token", e->experts_per_token},
                   {"expert_intermediate", e->expert_intermediate},
                   {"shared_experts", e->shared_experts},
                   {"shared_intermediate", e->shared_intermediate},
                   {"router_bias", e->router_bias},
                   {"expert_bias", e->expert_bias},
                   {"shared_gate", e->shared_gate},
                   {"ungated", e->ungated},
                   {"latent", e->latent}};
        else
            ffn = {{"kind", "none"}, {"linear", std::get<NoFfn>(g.spec.ffn).linear}};
        kinds.push_back({{"attention", at}, {"window", g.spec.window}, {"chunked", g.spec.chunked}, {"norms", g.spec.norms}, {"ffn", ffn}});
    }
    json groups = json::array();
    std::vector<std::size_t> entry_group;
    for_each_layer_run(m, [&](std::size_t g, std::int64_t count) {
        json entry = kinds[g];
        entry["count"] = count;
        groups.push_back(std::move(entry));
        entry_group.push_back(g);
    });
    j = json::object();
    j["model_type"] = "ridgeline";
    j["hidden_size"] = m.hidden_size;
    j["vocab_size"] = m.vocab_size;
    j["tie_word_embeddings"] = m.tied_embeddings;
    j["num_nextn_predict_layers"] = m.mtp_layers;
    if (m.max_context > 0) j["max_position_embeddings"] = m.max_context;
    j["layer_groups"] = groups;
    // The entry of the model's last layer's group, where it is not the last entry (a count cut by hand).
    if (!entry_group.empty() && m.last_layer_group() != entry_group.back())
        for (std::size_t e = entry_group.size(); e-- > 0;)
            if (entry_group[e] == m.last_layer_group()) {
                j["last_layer_group"] = e;
                break;
            }
    j["ridgeline"] = {{"name", std::string(m.name.view())}};
    if (m.declared_parameters) j["ridgeline"]["parameters"] = *m.declared_parameters;
}

inline void from_json(const nlohmann::json& j, Model& m) { m = model_from_config(j); }

}  // namespace ridgeline
