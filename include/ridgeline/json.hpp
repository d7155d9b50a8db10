// JSON for ridgeline's value types, and the preset catalogue in data/. The only header that
// includes nlohmann_json.
//
//  - Hardware presets use ridgeline's own schema; every key carries its unit as a suffix
//    (GB = 1e9 bytes, GB_per_s = 1e9 bytes/s, TFLOP_per_s = 1e12 FLOP/s); unknown keys are
//    rejected.
//  - Model presets are a HuggingFace config.json plus an optional "ridgeline" object
//    ({"source", "name", "parameters", "parameters_source"}). A config.json's many keys that do
//    not change the arithmetic (rope, dropout, token ids, ...) are ignored by design.
//  - Every error is a ridgeline::error naming the file, the JSON path, the value and what was
//    expected.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "error.hpp"
#include "formats.hpp"
#include "hardware.hpp"
#include "model.hpp"
#include "units.hpp"

namespace ridgeline {

namespace json_detail {

using nlohmann::json;

inline std::string describe(const json& v) {
    switch (v.type()) {
        case json::value_t::string: return v.dump() + " (a string)";
        case json::value_t::boolean: return v.dump() + " (a boolean)";
        case json::value_t::null: return "null";
        case json::value_t::object: return "an object";
        case json::value_t::array: return "an array";
        case json::value_t::discarded: return "nothing";
        default: return v.dump();
    }
}

// A cursor into a document: knows its file and JSON pointer, so every error can name both.
class Node {
public:
    Node(const json& v, std::string file, std::string path) : v_(&v), file_(std::move(file)), path_(std::move(path)) {}

    [[nodiscard]] const json& value() const { return *v_; }
    [[nodiscard]] const std::string& file() const { return file_; }
    [[nodiscard]] std::string where() const { return path_.empty() ? "/" : path_; }

    [[noreturn]] void fail(const std::string& expected) const { throw error(file_, where(), describe(*v_), expected); }

    [[nodiscard]] bool has(const std::string& key) const { return v_->is_object() && v_->contains(key); }
    [[nodiscard]] Node at(const std::string& key) const {
        return Node{v_->at(key), file_, path_ + "/" + escape(key)};
    }
    // A required member; its absence names the path it should have had.
    [[nodiscard]] Node need(const std::string& key, const std::string& expected) const {
        if (!has(key)) throw error(file_, path_ + "/" + escape(key), "nothing (the key is missing)", expected);
        return at(key);
    }

    void require_object(const std::string& what) const {
        if (!v_->is_object()) fail(what);
    }
    // Rejects keys outside `allowed`, naming the first stranger and the keys that are known.
    void only_keys(std::initializer_list<std::string_view> allowed) const {
        for (const auto& item : v_->items()) {
            if (std::find(allowed.begin(), allowed.end(), item.key()) != allowed.end()) continue;
            std::string list;
            for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
            throw error(file_, path_ + "/" + escape(item.key()), "an unknown key", "one of: " + list);
        }
    }

    [[nodiscard]] std::string string(const std::string& expected = "a non-empty string") const {
        if (!v_->is_string() || v_->get_ref<const std::string&>().empty()) fail(expected);
        return v_->get<std::string>();
    }
    [[nodiscard]] bool boolean() const {
        if (!v_->is_boolean()) fail("true or false");
        return v_->get<bool>();
    }
    [[nodiscard]] double positive_number() const {
        if (!v_->is_number()) fail("a positive, finite number");
        const double d = v_->get<double>();
        if (!(d > 0) || !std::isfinite(d)) fail("a positive, finite number");
        return d;
    }
    [[nodiscard]] std::int64_t positive_integer() const {
        if (!v_->is_number_integer()) fail("a positive integer");
        if (v_->is_number_unsigned()) {
            const auto u = v_->get<std::uint64_t>();
            if (u == 0 || u > static_cast<std::uint64_t>(1) << 53) fail("a positive integer below 2^53");
            return static_cast<std::int64_t>(u);
        }
        const auto i = v_->get<std::int64_t>();
        if (i <= 0) fail("a positive integer");
        return i;
    }

private:
    static std::string escape(const std::string& key) {  // RFC 6901
        std::string out;
        for (char c : key) {
            if (c == '~') out += "~0";
            else if (c == '/') out += "~1";
            else out += c;
        }
        return out;
    }
    const json* v_;
    std::string file_;
    std::string path_;
};

inline constexpr std::string_view hardware_figure_keys[] = {
    "memory_capacity_GB", "memory_bandwidth_GB_per_s", "dense_TFLOP_per_s", "interconnect_GB_per_s"};

}  // namespace json_detail

// ---------------------------------------------------------------------------------------------
// Hardware
// ---------------------------------------------------------------------------------------------

// Reads ridgeline's hardware schema. `file` only labels errors.
inline Hardware hardware_from_json(const nlohmann::json& j, const std::string& file = "") {
    using json_detail::Node;
    const Node root{j, file, ""};
    root.require_object("a hardware object");
    root.only_keys({"name", "memory_capacity_GB", "memory_bandwidth_GB_per_s", "dense_TFLOP_per_s",
                    "interconnect_GB_per_s", "source"});

    Hardware hw;
    const std::string name = root.need("name", "a non-empty string of at most 63 characters").string();
    if (name.size() > Name::capacity) root.at("name").fail("a non-empty string of at most 63 characters");
    hw.name = Name{name};
    hw.memory_capacity = GB(root.need("memory_capacity_GB", "a positive, finite number").positive_number());
    hw.memory_bandwidth = GB_per_s(root.need("memory_bandwidth_GB_per_s", "a positive, finite number").positive_number());

    const Node peaks = root.need("dense_TFLOP_per_s", "an object of dense peaks, e.g. {\"bf16\": 989}");
    peaks.require_object("an object of dense peaks, e.g. {\"bf16\": 989}");
    if (peaks.value().empty()) peaks.fail("at least one format's dense peak");
    for (const auto& item : peaks.value().items()) {
        const auto numeric = numeric_from_name(item.key());
        if (!numeric) throw error(file, "/dense_TFLOP_per_s/" + item.key(), "an unknown format",
                                  "one of: fp32, bf16, fp16, fp8, int8, int4, fp4");
        hw.with_peak(*numeric, TFLOP_per_s(peaks.at(item.key()).positive_number()));
    }
    if (root.has("interconnect_GB_per_s"))
        hw.interconnect_bandwidth = GB_per_s(root.at("interconnect_GB_per_s").positive_number());

    if (root.has("source")) {
        const Node src = root.at("source");
        src.require_object("an object mapping each figure's key to where it came from");
        for (const auto& item : src.value().items()) {
            const auto& keys = json_detail::hardware_figure_keys;
            if (std::find(std::begin(keys), std::end(keys), item.key()) == std::end(keys) && item.key() != "name")
                throw error(file, "/source/" + item.key(), "an unknown key",
                            "a figure's key: name, memory_capacity_GB, memory_bandwidth_GB_per_s, "
                            "dense_TFLOP_per_s, interconnect_GB_per_s");
            if (!root.has(item.key()))
                throw error(file, "/source/" + item.key(), "a source for a figure the file does not give",
                            "sources only for figures present");
            (void)src.at(item.key()).string("a non-empty string saying where the figure came from");
        }
    }
    return hw;
}

inline void to_json(nlohmann::json& j, const Hardware& hw) {
    j = nlohmann::json::object();
    j["name"] = std::string(hw.name.view());
    j["memory_capacity_GB"] = hw.memory_capacity.in(GB);
    j["memory_bandwidth_GB_per_s"] = hw.memory_bandwidth.in(GB_per_s);
    nlohmann::json peaks = nlohmann::json::object();
    for (Numeric n : all_numerics)
        if (auto p = hw.peak_for(n)) peaks[std::string(name_of(n))] = p->in(TFLOP_per_s);
    j["dense_TFLOP_per_s"] = peaks;
    if (hw.interconnect_bandwidth) j["interconnect_GB_per_s"] = hw.interconnect_bandwidth->in(GB_per_s);
}

inline void from_json(const nlohmann::json& j, Hardware& hw) { hw = hardware_from_json(j); }

// ---------------------------------------------------------------------------------------------
// Models (HuggingFace config.json)
// ---------------------------------------------------------------------------------------------

namespace json_detail {

// What a family fixes that its config.json does not say.
struct Family {
    std::string_view model_type;
    bool attention_bias_default;  // used when the config has no "attention_bias"
    bool attention_bias_fixed;    // the family always has q/k/v biases (Qwen2)
    bool qk_norm;                 // the family always norms q and k per head (Qwen3)
};

inline constexpr Family families[] = {
    {"llama", false, false, false},
    {"mistral", false, false, false},
    {"qwen2", true, true, false},
    {"qwen3", false, false, true},
    // ridgeline's own form, written by to_json: every flag explicit.
    {"ridgeline", false, false, false},
};

inline std::string family_list() {
    std::string s;
    for (const auto& f : families) s += (s.empty() ? "" : ", ") + std::string(f.model_type);
    return s;
}

}  // namespace json_detail

// Reads a config.json (with an optional "ridgeline" object). `file` labels errors; `fallback_name`
// names the model when the file does not.
inline Model model_from_config(const nlohmann::json& j, const std::string& file = "",
                               const std::string& fallback_name = "model") {
    using json_detail::Node;
    const Node root{j, file, ""};
    root.require_object("a config.json object");

    const std::string type = root.need("model_type", "a model_type, one of: " + json_detail::family_list()).string();
    const json_detail::Family* family = nullptr;
    for (const auto& f : json_detail::families)
        if (f.model_type == type) family = &f;
    if (!family) root.at("model_type").fail("a supported model_type, one of: " + json_detail::family_list());
    const bool own_form = family->model_type == "ridgeline";

    Model m;
    std::string name = fallback_name;
    if (root.has("ridgeline")) {
        const Node r = root.at("ridgeline");
        r.require_object("an object with source, name, parameters, parameters_source");
        r.only_keys({"source", "name", "parameters", "parameters_source"});
        if (r.has("source")) (void)r.at("source").string("a non-empty string saying where the config came from");
        if (r.has("name")) name = r.at("name").string();
        if (r.has("parameters")) {
            m.declared_parameters = r.at("parameters").positive_number();
            if (!own_form) (void)r.need("parameters_source", "a non-empty string citing the published count").string();
        }
        if (r.has("parameters_source")) (void)r.at("parameters_source").string();
    }
    if (name.size() > Name::capacity) throw error(file, "/ridgeline/name", name, "at most 63 characters");
    m.name = Name{name};

    const auto integer = [&](const char* key) { return root.need(key, "a positive integer").positive_integer(); };
    m.layers = integer("num_hidden_layers");
    m.hidden_size = integer("hidden_size");
    m.attention_heads = integer("num_attention_heads");
    m.intermediate_size = integer("intermediate_size");
    m.vocab_size = integer("vocab_size");
    // HuggingFace convention: no num_key_value_heads means multi-head attention.
    m.kv_heads = root.has("num_key_value_heads") && !root.at("num_key_value_heads").value().is_null()
                     ? root.at("num_key_value_heads").positive_integer()
                     : m.attention_heads;
    if (m.attention_heads % m.kv_heads != 0)
        root.at("num_key_value_heads").fail("a divisor of num_attention_heads (" + std::to_string(m.attention_heads) + ")");
    if (root.has("head_dim") && !root.at("head_dim").value().is_null()) {
        m.head_dim = root.at("head_dim").positive_integer();
    } else {
        if (m.hidden_size % m.attention_heads != 0)
            throw error(file, "/head_dim", "nothing (the key is missing)",
                        "a head_dim, since hidden_size is not a multiple of num_attention_heads");
        m.head_dim = m.hidden_size / m.attention_heads;
    }
    // A sliding window caps a layer's KV; until windows are modelled, charging such a model
    // full-context KV would be silently wrong, so it is refused.
    if (root.has("sliding_window") && !root.at("sliding_window").value().is_null()) {
        const bool enabled = !root.has("use_sliding_window") || root.at("use_sliding_window").value() == true;
        if (enabled)
            root.at("sliding_window").fail("null: sliding-window attention is not modelled yet");
    }
    m.tied_embeddings = root.has("tie_word_embeddings") ? root.at("tie_word_embeddings").boolean() : false;
    m.attention_bias = family->attention_bias_fixed ? true
                       : root.has("attention_bias") ? root.at("attention_bias").boolean()
                                                    : family->attention_bias_default;
    m.qk_norm = own_form ? (root.has("qk_norm") && root.at("qk_norm").boolean()) : family->qk_norm;
    validate(m);
    return m;
}

inline void to_json(nlohmann::json& j, const Model& m) {
    j = nlohmann::json::object();
    j["model_type"] = "ridgeline";
    j["num_hidden_layers"] = m.layers;
    j["hidden_size"] = m.hidden_size;
    j["num_attention_heads"] = m.attention_heads;
    j["num_key_value_heads"] = m.kv_heads;
    j["head_dim"] = m.head_dim;
    j["intermediate_size"] = m.intermediate_size;
    j["vocab_size"] = m.vocab_size;
    j["tie_word_embeddings"] = m.tied_embeddings;
    j["attention_bias"] = m.attention_bias;
    j["qk_norm"] = m.qk_norm;
    j["ridgeline"] = {{"name", std::string(m.name.view())}};
    if (m.declared_parameters) j["ridgeline"]["parameters"] = *m.declared_parameters;
}

inline void from_json(const nlohmann::json& j, Model& m) { m = model_from_config(j); }

// ---------------------------------------------------------------------------------------------
// Files and the preset catalogue
// ---------------------------------------------------------------------------------------------

// Parses a JSON file; a missing file or bad JSON is a ridgeline::error naming the file.
inline nlohmann::json read_json_file(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw error(file.string(), "", "a file that cannot be opened", "a readable JSON file");
    std::stringstream text;
    text << in.rdbuf();
    try {
        return nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::exception& e) {  // syntax errors, and numbers out of range
        throw error(file.string(), "", "text that is not JSON (" + std::string(e.what()) + ")", "a JSON document");
    }
}

// Where presets are looked up: $RIDGELINE_DATA_DIR if set, else the installed share/ridgeline,
// else the source tree's data/ (in-tree builds). The first of these that exists wins.
inline std::filesystem::path data_directory() {
    namespace fs = std::filesystem;
    if (const char* env = std::getenv("RIDGELINE_DATA_DIR"); env && *env) {
        if (!fs::is_directory(env)) throw error("", "RIDGELINE_DATA_DIR", env, "a directory holding hardware/ and models/");
        return env;
    }
    std::vector<fs::path> candidates;
#ifdef RIDGELINE_INSTALLED_DATA_DIR
    candidates.emplace_back(RIDGELINE_INSTALLED_DATA_DIR);
#endif
#ifdef RIDGELINE_SOURCE_DATA_DIR
    candidates.emplace_back(RIDGELINE_SOURCE_DATA_DIR);
#endif
    for (const auto& c : candidates)
        if (fs::is_directory(c)) return c;
    throw error("", "data directory", "none found",
                "RIDGELINE_DATA_DIR set, or ridgeline installed or built in its source tree");
}

enum class PresetKind { hardware, model };

inline std::vector<std::string> list_presets(PresetKind kind) {
    namespace fs = std::filesystem;
    const fs::path dir = data_directory() / (kind == PresetKind::hardware ? "hardware" : "models");
    std::vector<std::string> names;
    if (fs::is_directory(dir))
        for (const auto& e : fs::directory_iterator(dir))
            if (e.is_regular_file() && e.path().extension() == ".json") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

// A preset name ("h100-sxm") or a path to a JSON file ("./my-gpu.json").
inline std::filesystem::path resolve_preset(PresetKind kind, std::string_view name_or_path) {
    namespace fs = std::filesystem;
    const std::string s(name_or_path);
    const bool is_path = s.find('/') != std::string::npos || (s.size() > 5 && s.ends_with(".json"));
    if (is_path) return s;
    const auto names = list_presets(kind);
    if (std::find(names.begin(), names.end(), s) == names.end()) {
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        throw error("", kind == PresetKind::hardware ? "hardware preset" : "model preset", "\"" + s + "\"",
                    "one of: " + list);
    }
    return data_directory() / (kind == PresetKind::hardware ? "hardware" : "models") / (s + ".json");
}

inline Hardware load_hardware(std::string_view name_or_path) {
    const auto file = resolve_preset(PresetKind::hardware, name_or_path);
    return hardware_from_json(read_json_file(file), file.string());
}

inline Model load_model(std::string_view name_or_path) {
    const auto file = resolve_preset(PresetKind::model, name_or_path);
    return model_from_config(read_json_file(file), file.string(), file.stem().string());
}

}  // namespace ridgeline
