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
//    expected. File names and values in messages are valid UTF-8 without control characters
//    (json_detail::printable), so a message can always be written into JSON output.
//  - Limits on hostile input: a file must be a regular file of at most 64 MiB (json_file_limit);
//    a key may appear once per object; a figure in a unit (GB, GB/s, TFLOP/s, MiB, tokens/s, ms)
//    lies in [0.001, 1e9) of that unit; a latency in microseconds is 0 or in [0.001, 1e6]; a
//    declared parameter count lies in [1, 1e16); a layer index lies in [0, num_hidden_layers).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "error.hpp"
#include "formats.hpp"
#include "hardware.hpp"
#include "model.hpp"
#include "units.hpp"
#include "workload.hpp"

namespace ridgeline {

namespace json_detail {

using nlohmann::json;

// The length of the valid UTF-8 sequence (no overlongs, surrogates or code points past
// U+10FFFF) starting at s[i], or 0 if there is none.
inline std::size_t utf8_sequence(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    if (c < 0x80) return 1;
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c == 0xE0) n = 3, lo = 0xA0;
    else if (c == 0xED) n = 3, hi = 0x9F;
    else if (c >= 0xE1 && c <= 0xEF) n = 3;
    else if (c == 0xF0) n = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) n = 4;
    else if (c == 0xF4) n = 4, hi = 0x8F;
    else return 0;
    if (i + n > s.size()) return 0;
    if (b(i + 1) < lo || b(i + 1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
    return n;
}

inline bool valid_utf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8_sequence(s, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

// Text fit for a message: valid UTF-8 passes through; bytes that are not valid UTF-8, and the
// control characters (below 0x20, and 0x7F), become \xNN. Applying it twice changes nothing.
inline std::string printable(std::string_view s) {
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8_sequence(s, i);
        const auto c = static_cast<unsigned char>(s[i]);
        if (n == 0 || c < 0x20 || c == 0x7F) {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 0xF];
            i += 1;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    return out;
}

inline bool has_control_character(std::string_view s) {
    return std::any_of(s.begin(), s.end(), [](char ch) {
        const auto c = static_cast<unsigned char>(ch);
        return c < 0x20 || c == 0x7F;
    });
}

inline std::string describe(const json& v) {
    switch (v.type()) {
        case json::value_t::string: {
            // dump() throws on invalid UTF-8, which only a document built in code can hold.
            const auto& str = v.get_ref<const std::string&>();
            return (valid_utf8(str) ? v.dump() : "\"" + printable(str) + "\"") + " (a string)";
        }
        case json::value_t::boolean: return v.dump() + " (a boolean)";
        case json::value_t::null: return "null";
        case json::value_t::object: return "an object";
        case json::value_t::array: return "an array";
        case json::value_t::discarded: return "nothing";
        default: return v.dump();
    }
}

// The bounds a figure read from a file must lie in (see the header comment).
inline constexpr double figure_floor = 1e-3;    // of the key's unit: smaller is not hardware
inline constexpr double figure_ceiling = 1e9;   // of the key's unit: an exabyte, a billion TFLOP/s
inline constexpr double latency_ceiling_us = 1e6;  // a second per message

// RFC 6901 escaping of one key, after making it printable.
inline std::string pointer_token(const std::string& key) {
    std::string out;
    for (char c : printable(key)) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

// A cursor into a document: knows its file and JSON pointer, so every error can name both.
class Node {
public:
    Node(const json& v, const std::string& file, std::string path)
        : v_(&v), file_(printable(file)), path_(std::move(path)) {}

    [[nodiscard]] const json& value() const { return *v_; }
    [[nodiscard]] const std::string& file() const { return file_; }
    [[nodiscard]] std::string where() const { return path_.empty() ? "/" : path_; }

    [[noreturn]] void fail(const std::string& expected) const { throw error(file_, where(), describe(*v_), expected); }

    [[nodiscard]] bool has(const std::string& key) const { return v_->is_object() && v_->contains(key); }
    [[nodiscard]] Node at(const std::string& key) const {
        return Node{v_->at(key), file_, path_ + "/" + pointer_token(key)};
    }
    [[nodiscard]] Node at(std::size_t index) const {
        return Node{v_->at(index), file_, path_ + "/" + std::to_string(index)};
    }
    // A required member; its absence names the path it should have had.
    [[nodiscard]] Node need(const std::string& key, const std::string& expected) const {
        if (!has(key)) throw error(file_, path_ + "/" + pointer_token(key), "nothing (the key is missing)", expected);
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
            throw error(file_, path_ + "/" + pointer_token(item.key()), "an unknown key", "one of: " + list);
        }
    }

    [[nodiscard]] std::string string(const std::string& expected = "a non-empty string") const {
        if (!v_->is_string() || v_->get_ref<const std::string&>().empty()) fail(expected);
        if (!valid_utf8(v_->get_ref<const std::string&>())) fail(expected + " in valid UTF-8");
        return v_->get<std::string>();
    }
    // A name: a non-empty string of at most Name::capacity characters, none of them control
    // characters (a name is printed in tables and written into JSON).
    [[nodiscard]] std::string name() const {
        const std::string expected = "a non-empty string of at most " + std::to_string(Name::capacity) + " characters";
        const std::string n = string(expected);
        if (n.size() > Name::capacity) fail(expected);
        if (has_control_character(n)) fail("a name without control characters");
        return n;
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
    // A figure in the unit its key names: at least 1e-3 of that unit (smaller figures, and
    // subnormal ones, are no real device or measurement) and below 1e9 of it (an exabyte, a
    // billion TFLOP/s), so that nothing overflows or underflows once it is in SI units.
    [[nodiscard]] double figure() const {
        const double d = positive_number();
        if (!(d < figure_ceiling)) fail("a positive number below 1e9 (in the key's unit)");
        if (!(d >= figure_floor)) fail("a number from 0.001 to below 1e9 (in the key's unit)");
        return d;
    }
    // A latency in microseconds: 0 (none), or from 1e-3 us (a nanosecond) to 1e6 us (a second).
    [[nodiscard]] double latency_us() const {
        const std::string expected = "0, or a number of microseconds from 0.001 to 1e6";
        if (!v_->is_number()) fail(expected);
        const double d = v_->get<double>();
        if (d == 0) return 0.0;  // also -0
        if (!(d >= figure_floor && d <= latency_ceiling_us)) fail(expected);
        return d;
    }
    [[nodiscard]] std::int64_t positive_integer() const {
        if (!v_->is_number_integer()) fail("a positive integer");
        if (v_->is_number_unsigned()) {
            const auto u = v_->get<std::uint64_t>();
            if (u == 0) fail("a positive integer");  // nlohmann reads a plain 0 as unsigned
            if (u > static_cast<std::uint64_t>(1) << 53) fail("a positive integer below 2^53");
            return static_cast<std::int64_t>(u);
        }
        const auto i = v_->get<std::int64_t>();
        if (i <= 0) fail("a positive integer");
        return i;
    }

private:
    const json* v_;
    std::string file_;
    std::string path_;
};

// Levenshtein distance, to suggest the preset a user probably meant.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

inline constexpr std::string_view hardware_figure_keys[] = {
    "memory_capacity_GB", "memory_bandwidth_GB_per_s", "dense_TFLOP_per_s", "interconnect_GB_per_s",
    "memory_reported_MiB", "scale_up_domain", "scale_up_latency_us", "scale_out_GB_per_s", "scale_out_latency_us"};

}  // namespace json_detail

// ---------------------------------------------------------------------------------------------
// Hardware
// ---------------------------------------------------------------------------------------------

namespace json_detail {
inline std::string family_list();
// Keys that every HuggingFace config.json has and no hardware file does.
inline constexpr std::string_view config_json_keys[] = {"hidden_size", "num_hidden_layers", "vocab_size", "architectures"};
}  // namespace json_detail

// Reads ridgeline's hardware schema. `file` only labels errors. Bounds: capacities, bandwidths,
// peaks and memory_reported_MiB in [0.001, 1e9) of their unit; latencies 0 or [0.001, 1e6] us;
// scale_up_domain 1 to 100000.
inline Hardware hardware_from_json(const nlohmann::json& j, const std::string& file = "") {
    using json_detail::Node;
    const Node root{j, file, ""};
    root.require_object("a hardware object");
    // A config.json that lost its model_type lands here when a caller guesses by that key.
    if (!root.has("memory_bandwidth_GB_per_s"))
        for (auto key : json_detail::config_json_keys)
            if (root.has(std::string(key)))
                throw error(root.file(), "/model_type", "nothing (the key is missing)",
                            "one of: " + json_detail::family_list() + " (the file has " + std::string(key) +
                                ", so it is a model's config.json, not a hardware file)");
    root.only_keys({"name", "memory_capacity_GB", "memory_bandwidth_GB_per_s", "dense_TFLOP_per_s",
                    "interconnect_GB_per_s", "memory_reported_MiB", "scale_up_domain", "scale_up_latency_us",
                    "scale_out_GB_per_s", "scale_out_latency_us", "source"});

    Hardware hw;
    hw.name = Name{root.need("name", "a non-empty string of at most 63 characters").name()};
    hw.memory_capacity = GB(root.need("memory_capacity_GB", "a positive, finite number").figure());
    hw.memory_bandwidth = GB_per_s(root.need("memory_bandwidth_GB_per_s", "a positive, finite number").figure());

    const Node peaks = root.need("dense_TFLOP_per_s", "an object of dense peaks, e.g. {\"bf16\": 989}");
    peaks.require_object("an object of dense peaks, e.g. {\"bf16\": 989}");
    if (peaks.value().empty()) peaks.fail("at least one format's dense peak");
    for (const auto& item : peaks.value().items()) {
        const auto numeric = numeric_from_name(item.key());
        if (!numeric) throw error(root.file(), "/dense_TFLOP_per_s/" + json_detail::pointer_token(item.key()), "an unknown format",
                                  "one of: fp32, bf16, fp16, fp8, int8, int4, fp4");
        hw.with_peak(*numeric, TFLOP_per_s(peaks.at(item.key()).figure()));
    }
    if (root.has("interconnect_GB_per_s"))
        hw.interconnect_bandwidth = GB_per_s(root.at("interconnect_GB_per_s").figure());
    if (root.has("memory_reported_MiB"))
        hw.memory_reported = MiB(root.at("memory_reported_MiB").figure());
    if (root.has("scale_up_domain")) {
        const Node domain = root.at("scale_up_domain");
        hw.scale_up_domain = domain.positive_integer();
        if (hw.scale_up_domain > 100000) domain.fail("a positive integer of at most 100000 devices");
    }
    if (root.has("scale_up_latency_us")) hw.scale_up_latency = us(root.at("scale_up_latency_us").latency_us());
    if (root.has("scale_out_GB_per_s")) hw.scale_out_bandwidth = GB_per_s(root.at("scale_out_GB_per_s").figure());
    if (root.has("scale_out_latency_us")) hw.scale_out_latency = us(root.at("scale_out_latency_us").latency_us());

    if (root.has("source")) {
        const Node src = root.at("source");
        src.require_object("an object mapping each figure's key to where it came from");
        for (const auto& item : src.value().items()) {
            const auto& keys = json_detail::hardware_figure_keys;
            if (std::find(std::begin(keys), std::end(keys), item.key()) == std::end(keys) && item.key() != "name")
                throw error(root.file(), "/source/" + json_detail::pointer_token(item.key()), "an unknown key",
                            "a figure's key: name, memory_capacity_GB, memory_bandwidth_GB_per_s, "
                            "dense_TFLOP_per_s, interconnect_GB_per_s, memory_reported_MiB, scale_up_domain, "
                            "scale_up_latency_us, scale_out_GB_per_s, scale_out_latency_us");
            if (!root.has(item.key()))
                throw error(root.file(), "/source/" + item.key(), "a source for a figure the file does not give",
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
    if (hw.memory_reported) j["memory_reported_MiB"] = hw.memory_reported->in(MiB);
    if (hw.scale_up_domain != 1) j["scale_up_domain"] = hw.scale_up_domain;
    if (hw.scale_up_latency) j["scale_up_latency_us"] = hw.scale_up_latency->in(us);
    if (hw.scale_out_bandwidth) j["scale_out_GB_per_s"] = hw.scale_out_bandwidth->in(GB_per_s);
    if (hw.scale_out_latency) j["scale_out_latency_us"] = hw.scale_out_latency->in(us);
}

inline void from_json(const nlohmann::json& j, Hardware& hw) { hw = hardware_from_json(j); }

// ---------------------------------------------------------------------------------------------
// Models (HuggingFace config.json)
// ---------------------------------------------------------------------------------------------

namespace json_detail {

inline constexpr std::string_view model_families[] = {"llama",    "mistral",     "mixtral",     "qwen2",
                                                      "qwen3",    "qwen3_moe",   "deepseek_v2", "deepseek_v3",
                                                      "gpt_oss",  "ridgeline"};

inline std::string family_list() {
    std::string s;
    for (auto f : model_families) s += (s.empty() ? "" : ", ") + std::string(f);
    return s;
}

// Reads one config.json's fields for a known family, with the family's defaults.
class ConfigReader {
public:
    ConfigReader(const Node& root, std::string family) : root_(root), family_(std::move(family)) {}

    [[nodiscard]] bool present(const std::string& key) const {
        return root_.has(key) && !root_.at(key).value().is_null();
    }
    [[nodiscard]] std::int64_t integer(const std::string& key) const {
        if (!present(key))
            throw error(root_.file(), "/" + key, root_.has(key) ? "null" : "nothing (the key is missing)",
                        "a positive integer (model_type " + family_ + " needs it)");
        return root_.at(key).positive_integer();
    }
    [[nodiscard]] std::int64_t integer_or(const std::string& key, std::int64_t fallback) const {
        return present(key) ? root_.at(key).positive_integer() : fallback;
    }
    // A count that may be 0 (q_lora_rank null means none, first_k_dense_replace 0 means none).
    [[nodiscard]] std::int64_t count_or_zero(const std::string& key) const {
        if (!present(key)) return 0;
        const Node n = root_.at(key);
        if (n.value().is_number_integer() && n.value().get<std::int64_t>() == 0) return 0;
        return n.positive_integer();
    }
    // A positive integer no larger than the layer count (a step or a frequency in layers).
    [[nodiscard]] std::int64_t at_most_layers(const std::string& key, std::int64_t fallback, std::int64_t layers) const {
        const std::int64_t v = integer_or(key, fallback);
        if (v > layers)
            root_.at(key).fail("a positive integer of at most num_hidden_layers (" + std::to_string(layers) + ")");
        return v;
    }
    // An array of layer indices, each an integer in [0, layers); absent or null means none.
    [[nodiscard]] std::vector<std::int64_t> layer_indices(const std::string& key, std::int64_t layers) const {
        std::vector<std::int64_t> out;
        if (!present(key)) return out;
        const Node list = root_.at(key);
        if (!list.value().is_array()) list.fail("an array of layer indices");
        const std::string expected = "a layer index from 0 to " + std::to_string(layers - 1) + " (num_hidden_layers is " +
                                     std::to_string(layers) + ")";
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
    [[nodiscard]] bool flag_or(const std::string& key, bool fallback) const {
        return present(key) ? root_.at(key).boolean() : fallback;
    }
    [[nodiscard]] const Node& root() const { return root_; }
    [[nodiscard]] const std::string& family() const { return family_; }

private:
    const Node& root_;
    std::string family_;
};

// Collapses per-layer specs into at most Model::max_groups groups of identical layers.
inline void add_grouped(Model& m, const std::vector<LayerSpec>& layers, const Node& root) {
    for (const LayerSpec& spec : layers) {
        bool placed = false;
        for (std::size_t i = 0; i < m.group_count && !placed; ++i)
            if (m.groups[i].spec == spec) ++m.groups[i].count, placed = true;
        if (!placed) {
            if (m.group_count == Model::max_groups)
                throw error(root.file(), "/num_hidden_layers", std::to_string(layers.size()) + " layers",
                            "at most four distinct kinds of layer");
            m.add_layers(1, spec);
        }
    }
}

// Defaults for keys a config.json may leave out, as each family's transformers configuration
// class has them (repository huggingface/transformers; the commit each was read at is named):
//   llama       src/transformers/models/llama/configuration_llama.py @008e574391258935f3ecc3035c882e73bbcac419
//   mistral     src/transformers/models/mistral/configuration_mistral.py @001f85b38fb432858ace93f18622f07cec46d874
//   mixtral     src/transformers/models/mixtral/configuration_mixtral.py @008e574391258935f3ecc3035c882e73bbcac419
//   qwen2       src/transformers/models/qwen2/configuration_qwen2.py @008e574391258935f3ecc3035c882e73bbcac419
//   qwen3       src/transformers/models/qwen3/configuration_qwen3.py @008e574391258935f3ecc3035c882e73bbcac419
//               (the same defaults @1f3ae2b3ac7e5b32262588602ff42efb372a6232)
//   qwen3_moe   src/transformers/models/qwen3_moe/configuration_qwen3_moe.py @008e574391258935f3ecc3035c882e73bbcac419
//   deepseek_v2 src/transformers/models/deepseek_v2/configuration_deepseek_v2.py @008e574391258935f3ecc3035c882e73bbcac419
//   deepseek_v3 src/transformers/models/deepseek_v3/configuration_deepseek_v3.py @008e574391258935f3ecc3035c882e73bbcac419
//   gpt_oss     src/transformers/models/gpt_oss/configuration_gpt_oss.py @02b8f42b4240dddea1b27c45d2dc95fb2682f841
// An absent key takes the class's default; a key set to null takes what the class does with
// None (for num_key_value_heads and head_dim in every family: num_attention_heads, and
// hidden_size / num_attention_heads). Sizes every Hub config states (hidden_size,
// num_hidden_layers, vocab_size, num_attention_heads, intermediate sizes, expert counts, MLA
// ranks other than q_lora_rank) stay required: a file without them is not a checkpoint's
// config, and a class default there would invent a model.

// num_key_value_heads when the key is absent; nullopt: num_attention_heads (MHA).
inline std::optional<std::int64_t> default_kv_heads(const std::string& f) {
    if (f == "mistral") return 8;    // MistralConfig num_key_value_heads=8
    if (f == "mixtral") return 8;    // MixtralConfig num_key_value_heads=8
    if (f == "qwen2") return 32;     // Qwen2Config num_key_value_heads=32
    if (f == "qwen3") return 32;     // Qwen3Config num_key_value_heads=32
    if (f == "qwen3_moe") return 4;  // Qwen3MoeConfig num_key_value_heads=4
    if (f == "gpt_oss") return 8;    // GptOssConfig num_key_value_heads=8
    return std::nullopt;             // LlamaConfig num_key_value_heads=None -> num_attention_heads
}

// head_dim when the key is absent; nullopt: hidden_size / num_attention_heads.
inline std::optional<std::int64_t> default_head_dim(const std::string& f) {
    if (f == "qwen3") return 128;   // Qwen3Config head_dim=128
    if (f == "gpt_oss") return 64;  // GptOssConfig head_dim=64
    // LlamaConfig, MistralConfig, MixtralConfig head_dim=None -> hidden_size // num_attention_heads;
    // Qwen2Config and Qwen3MoeConfig have no head_dim field: their attention falls back to the same.
    return std::nullopt;
}

// attention_bias when the key is absent.
inline bool default_attention_bias(const std::string& f) {
    return f == "gpt_oss";  // GptOssConfig attention_bias=True; LlamaConfig, Qwen3Config, Qwen3MoeConfig False
}

inline Gqa read_gqa(const ConfigReader& c) {
    const std::string& f = c.family();
    Gqa a;
    a.heads = c.integer("num_attention_heads");
    const bool kv_given = c.present("num_key_value_heads");
    if (kv_given) a.kv_heads = c.root().at("num_key_value_heads").positive_integer();
    else if (c.root().has("num_key_value_heads")) a.kv_heads = a.heads;  // null: every class's None
    else a.kv_heads = default_kv_heads(f).value_or(a.heads);
    if (a.heads % a.kv_heads != 0) {
        const std::string expected = "a divisor of num_attention_heads (" + std::to_string(a.heads) + ")";
        if (kv_given) c.root().at("num_key_value_heads").fail(expected);
        throw error(c.root().file(), "/num_key_value_heads",
                    "nothing (the key is missing, so model_type " + f + "'s default of " + std::to_string(a.kv_heads) +
                        " applies)",
                    expected + "; give num_key_value_heads in the file");
    }
    const auto from_hidden = [&] {
        const std::int64_t hidden = c.integer("hidden_size");
        if (hidden % a.heads != 0)
            throw error(c.root().file(), "/head_dim", c.root().has("head_dim") ? "null" : "nothing (the key is missing)",
                        "a head_dim, since hidden_size is not a multiple of num_attention_heads");
        return hidden / a.heads;
    };
    if (c.present("head_dim")) a.head_dim = c.root().at("head_dim").positive_integer();
    else if (c.root().has("head_dim")) a.head_dim = from_hidden();  // null
    else if (const auto d = default_head_dim(f)) a.head_dim = *d;
    else a.head_dim = from_hidden();
    return a;
}

inline Mla read_mla(const ConfigReader& c) {
    Mla l;
    l.heads = c.integer("num_attention_heads");
    // DeepseekV2Config and DeepseekV3Config q_lora_rank=1536 when absent; null means none.
    l.q_lora_rank = c.root().has("q_lora_rank") ? c.count_or_zero("q_lora_rank") : 1536;
    l.kv_lora_rank = c.integer("kv_lora_rank");
    l.qk_nope_head_dim = c.integer("qk_nope_head_dim");
    l.qk_rope_head_dim = c.integer("qk_rope_head_dim");
    l.v_head_dim = c.integer("v_head_dim");
    return l;
}

// Routed experts: their count and top-k, checked against each other with the file's names.
inline Moe read_moe(const ConfigReader& c, const std::string& experts_key, const std::string& intermediate_key) {
    Moe e;
    if (c.present(experts_key) && c.root().at(experts_key).value() == 0)
        c.root().at(experts_key).fail("a positive integer (a mixture of experts needs experts)");
    e.experts = c.integer(experts_key);
    e.experts_per_token = c.integer("num_experts_per_tok");
    if (e.experts_per_token > e.experts)
        c.root().at("num_experts_per_tok").fail("at most " + experts_key + " (" + std::to_string(e.experts) + ")");
    e.expert_intermediate = c.integer(intermediate_key);
    return e;
}

// The sliding window of a Llama-style family, 0 for none.
//  - llama: LlamaConfig has no sliding_window; its attention is always full.
//  - mistral: MistralConfig sliding_window=4096 when absent, null means none; it has no
//    use_sliding_window switch.
//  - mixtral: MixtralConfig sliding_window=None when absent.
//  - qwen2, qwen3, qwen3_moe: use_sliding_window=False when absent, and then no window whatever
//    sliding_window says; when true, sliding_window=4096 when absent, null means none.
inline std::int64_t family_window(const ConfigReader& c) {
    const std::string& f = c.family();
    if (f == "llama") return 0;
    const auto window_or = [&](std::int64_t absent) -> std::int64_t {
        if (!c.root().has("sliding_window")) return absent;
        if (!c.present("sliding_window")) return 0;  // null
        return c.root().at("sliding_window").positive_integer();
    };
    if (f == "mistral") return window_or(4096);  // MistralConfig sliding_window=4096
    if (f == "mixtral") return window_or(0);     // MixtralConfig sliding_window=None
    // Qwen2Config / Qwen3Config / Qwen3MoeConfig: use_sliding_window=False, sliding_window=4096.
    if (!c.flag_or("use_sliding_window", false)) return 0;
    return window_or(4096);
}

inline std::vector<LayerSpec> read_layers(const ConfigReader& c, const std::int64_t layers) {
    const std::string& f = c.family();
    std::vector<LayerSpec> specs(static_cast<std::size_t>(layers));

    if (f == "llama" || f == "mistral" || f == "mixtral" || f == "qwen2" || f == "qwen3" || f == "qwen3_moe") {
        Gqa a = read_gqa(c);
        if (f == "qwen2") {
            a.qkv_bias = true;  // Qwen2 always has q/k/v biases and no o bias; its config does not say
        } else {
            const bool bias = c.flag_or("attention_bias", default_attention_bias(f));  // Llama/Qwen3: q, k, v and o together
            a.qkv_bias = a.o_bias = bias;
        }
        a.qk_norm = f == "qwen3" || f == "qwen3_moe";
        if (c.flag_or("mlp_bias", false)) c.root().at("mlp_bias").fail("false: MLP biases are not modelled");

        const std::int64_t window = family_window(c);
        // Qwen2/Qwen3 window only the layers from max_window_layers on (Qwen2Config and
        // Qwen3Config max_window_layers=28 when absent); Mistral windows all. Qwen3MoeConfig
        // @008e5743 has no max_window_layers (older releases had one, default 28): absent, every
        // layer is windowed. Any count works (past the last layer means none is windowed), 0
        // included; null means 0.
        const bool qwen = f.rfind("qwen", 0) == 0;
        const std::int64_t absent_first = f == "qwen3_moe" ? 0 : 28;
        const std::int64_t first_windowed =
            qwen && window > 0 ? (c.root().has("max_window_layers") ? c.count_or_zero("max_window_layers") : absent_first) : 0;

        std::vector<bool> moe_layer(specs.size(), false);
        Moe moe;
        if (f == "mixtral") {
            moe = read_moe(c, "num_local_experts", "intermediate_size");
            moe_layer.assign(specs.size(), true);
        } else if (f == "qwen3_moe") {
            moe = read_moe(c, "num_experts", "moe_intermediate_size");
            const std::int64_t step = c.at_most_layers("decoder_sparse_step", 1, layers);
            const std::vector<std::int64_t> dense_only = c.layer_indices("mlp_only_layers", layers);
            for (std::size_t i = 0; i < specs.size(); ++i) {
                const bool listed = std::find(dense_only.begin(), dense_only.end(), static_cast<std::int64_t>(i)) != dense_only.end();
                moe_layer[i] = !listed && (static_cast<std::int64_t>(i) + 1) % step == 0;
            }
        }
        const bool needs_dense = std::find(moe_layer.begin(), moe_layer.end(), false) != moe_layer.end();
        const std::int64_t intermediate = needs_dense ? c.integer("intermediate_size") : 0;
        for (std::size_t i = 0; i < specs.size(); ++i) {
            specs[i].attention = a;
            specs[i].window = static_cast<std::int64_t>(i) >= first_windowed ? window : 0;
            if (moe_layer[i]) specs[i].ffn = moe;
            else specs[i].ffn = DenseMlp{intermediate};
        }
        return specs;
    }

    if (f == "deepseek_v2" || f == "deepseek_v3") {
        const Mla l = read_mla(c);
        Moe moe = read_moe(c, "n_routed_experts", "moe_intermediate_size");
        const bool v3 = f == "deepseek_v3";
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
        for (std::size_t i = 0; i < specs.size(); ++i) {
            const auto idx = static_cast<std::int64_t>(i);
            specs[i].attention = l;
            if (idx >= first_moe && idx % every == 0) specs[i].ffn = moe;
            else specs[i].ffn = DenseMlp{intermediate};
        }
        return specs;
    }

    // gpt_oss: biased GQA with sinks, layer_types choosing sliding or full, biased experts.
    // GptOssConfig has no mlp_bias (its experts always carry biases, modelled as expert_bias);
    // a config that sets one, true or false, says something the model does not do: refused.
    if (c.present("mlp_bias"))
        c.root().at("mlp_bias").fail("no mlp_bias key: gpt_oss has none (its experts always have biases)");
    Gqa a = read_gqa(c);
    a.qkv_bias = a.o_bias = c.flag_or("attention_bias", default_attention_bias(f));  // GptOssConfig: True
    a.sinks = true;
    Moe moe = read_moe(c, "num_local_experts", "intermediate_size");
    moe.router_bias = true;
    moe.expert_bias = true;
    // GptOssConfig sliding_window=128 when absent (null: no window, which a sliding layer cannot
    // have); layer_types absent or null: sliding on even layers, full on odd ones
    // ("sliding_attention" if (i + 1) % 2 else "full_attention").
    const auto window = [&] { return c.root().has("sliding_window") ? c.integer("sliding_window") : std::int64_t{128}; };
    if (!c.present("layer_types")) {
        for (std::size_t i = 0; i < specs.size(); ++i) {
            specs[i].attention = a;
            specs[i].ffn = moe;
            if (i % 2 == 0) specs[i].window = window();
        }
        return specs;
    }
    const Node types = c.root().at("layer_types");
    if (!types.value().is_array() || types.value().size() != specs.size())
        types.fail("an array of " + std::to_string(specs.size()) + " layer types, one per layer");
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const auto& t = types.value()[i];
        specs[i].attention = a;
        specs[i].ffn = moe;
        if (t == "sliding_attention") specs[i].window = window();
        else if (t != "full_attention")
            throw error(c.root().file(), "/layer_types/" + std::to_string(i), describe(t),
                        "\"sliding_attention\" or \"full_attention\"");
    }
    return specs;
}

// ridgeline's own form, written by to_json: the layer groups spelled out.
inline LayerSpec read_own_group(const Node& g) {
    g.require_object("a layer group object");
    g.only_keys({"count", "attention", "window", "ffn"});
    LayerSpec spec;
    const Node at = g.need("attention", "an attention object");
    at.require_object("an attention object");
    const std::string kind = at.need("kind", "\"gqa\" or \"mla\"").string();
    const auto flag = [](const Node& n, const char* key) { return n.has(key) && n.at(key).boolean(); };
    const auto count = [](const Node& n, const char* key) {
        if (!n.has(key)) return std::int64_t{0};
        if (n.at(key).value() == 0) return std::int64_t{0};
        return n.at(key).positive_integer();
    };
    if (kind == "gqa") {
        at.only_keys({"kind", "heads", "kv_heads", "head_dim", "qkv_bias", "o_bias", "qk_norm", "sinks"});
        spec.attention = Gqa{at.need("heads", "a positive integer").positive_integer(),
                             at.need("kv_heads", "a positive integer").positive_integer(),
                             at.need("head_dim", "a positive integer").positive_integer(),
                             flag(at, "qkv_bias"), flag(at, "o_bias"), flag(at, "qk_norm"), flag(at, "sinks")};
    } else if (kind == "mla") {
        at.only_keys({"kind", "heads", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"});
        spec.attention = Mla{at.need("heads", "a positive integer").positive_integer(), count(at, "q_lora_rank"),
                             at.need("kv_lora_rank", "a positive integer").positive_integer(),
                             at.need("qk_nope_head_dim", "a positive integer").positive_integer(),
                             at.need("qk_rope_head_dim", "a positive integer").positive_integer(),
                             at.need("v_head_dim", "a positive integer").positive_integer()};
    } else {
        at.at("kind").fail("\"gqa\" or \"mla\"");
    }
    spec.window = count(g, "window");
    const Node ffn = g.need("ffn", "an ffn object");
    ffn.require_object("an ffn object");
    const std::string fk = ffn.need("kind", "\"dense\" or \"moe\"").string();
    if (fk == "dense") {
        ffn.only_keys({"kind", "intermediate"});
        spec.ffn = DenseMlp{ffn.need("intermediate", "a positive integer").positive_integer()};
    } else if (fk == "moe") {
        ffn.only_keys({"kind", "experts", "experts_per_token", "expert_intermediate", "shared_experts",
                       "shared_intermediate", "router_bias", "expert_bias"});
        spec.ffn = Moe{ffn.need("experts", "a positive integer").positive_integer(),
                       ffn.need("experts_per_token", "a positive integer").positive_integer(),
                       ffn.need("expert_intermediate", "a positive integer").positive_integer(),
                       count(ffn, "shared_experts"), count(ffn, "shared_intermediate"),
                       flag(ffn, "router_bias"), flag(ffn, "expert_bias")};
    } else {
        ffn.at("kind").fail("\"dense\" or \"moe\"");
    }
    return spec;
}

}  // namespace json_detail

// Reads a config.json (with an optional "ridgeline" object). `file` labels errors;
// `fallback_name` names the model when the file does not.
inline Model model_from_config(const nlohmann::json& j, const std::string& file = "",
                               const std::string& fallback_name = "model") {
    using json_detail::Node;
    const Node root{j, file, ""};
    root.require_object("a config.json object");

    const std::string type = root.need("model_type", "one of: " + json_detail::family_list()).string("one of: " + json_detail::family_list());
    if (std::find(std::begin(json_detail::model_families), std::end(json_detail::model_families), type) ==
        std::end(json_detail::model_families))
        root.at("model_type").fail("a supported model_type, one of: " + json_detail::family_list());
    const bool own_form = type == "ridgeline";
    const json_detail::ConfigReader c{root, type};
    // architectures: a file naming only classes without an LM head (Qwen3Model, as embedding
    // checkpoints and text encoders ship; ...ForSequenceClassification, ...ForTokenClassification,
    // ...ForQuestionAnswering) is refused rather than counted: such a model does not decode a
    // token, so a decode roofline has nothing to say about it, and Model has no place for "no
    // LM head". At least one ...ForCausalLM entry is needed; an absent key is taken as a causal LM.
    if (!own_form && root.has("architectures")) {
        const Node arch = root.at("architectures");
        const std::string expected = "an array of architecture names, one of them a ...ForCausalLM";
        if (!arch.value().is_array() || arch.value().empty()) arch.fail(expected);
        bool causal = false;
        for (std::size_t i = 0; i < arch.value().size(); ++i)
            causal = arch.at(i).string("an architecture name (a non-empty string)").ends_with("ForCausalLM") || causal;
        if (!causal)
            arch.at(0).fail("a ...ForCausalLM architecture: a model without an LM head (a bare model, an embedding or "
                            "classification model) decodes no tokens, which is all ridgeline models");
    }

    Model m;
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
    m.tied_embeddings = c.flag_or("tie_word_embeddings", false);
    m.max_context = c.integer_or("max_position_embeddings", 0);

    if (own_form) {
        root.only_keys({"model_type", "hidden_size", "vocab_size", "tie_word_embeddings", "num_nextn_predict_layers",
                        "max_position_embeddings", "layer_groups", "ridgeline"});
        m.mtp_layers = c.count_or_zero("num_nextn_predict_layers");
        const Node groups = root.need("layer_groups", "an array of layer groups");
        if (!groups.value().is_array() || groups.value().empty() || groups.value().size() > Model::max_groups)
            groups.fail("an array of one to four layer groups");
        for (std::size_t i = 0; i < groups.value().size(); ++i) {
            const Node g = groups.at(i);
            g.require_object("a layer group object");
            m.add_layers(g.need("count", "a positive integer").positive_integer(), json_detail::read_own_group(g));
        }
    } else {
        const std::int64_t layers = c.integer("num_hidden_layers");
        if (layers > 100000) root.at("num_hidden_layers").fail("a layer count below 100,000");
        json_detail::add_grouped(m, json_detail::read_layers(c, layers), root);
        // DeepseekV3Config num_mtp_layers=1 (its attribute_map reads it as num_nextn_predict_layers).
        if (type == "deepseek_v3")
            m.mtp_layers = root.has("num_nextn_predict_layers") ? c.count_or_zero("num_nextn_predict_layers") : 1;
    }
    if (m.declared_parameters)
        for (const auto& g : m)
            if (std::holds_alternative<Moe>(g.spec.ffn))
                root.at("ridgeline").at("parameters").fail("no declared count: the model has routed experts");
    try {
        validate(m);
    } catch (const error& e) {  // the core names the field; add the file
        throw error(root.file(), e.path(), e.value(), e.expected());
    }
    return m;
}

inline void to_json(nlohmann::json& j, const Model& m) {
    using nlohmann::json;
    json groups = json::array();
    for (const auto& g : m) {
        json at;
        if (const auto* a = std::get_if<Gqa>(&g.spec.attention))
            at = {{"kind", "gqa"}, {"heads", a->heads}, {"kv_heads", a->kv_heads}, {"head_dim", a->head_dim},
                  {"qkv_bias", a->qkv_bias}, {"o_bias", a->o_bias}, {"qk_norm", a->qk_norm}, {"sinks", a->sinks}};
        else {
            const Mla& l = std::get<Mla>(g.spec.attention);
            at = {{"kind", "mla"}, {"heads", l.heads}, {"q_lora_rank", l.q_lora_rank}, {"kv_lora_rank", l.kv_lora_rank},
                  {"qk_nope_head_dim", l.qk_nope_head_dim}, {"qk_rope_head_dim", l.qk_rope_head_dim},
                  {"v_head_dim", l.v_head_dim}};
        }
        json ffn;
        if (const auto* d = std::get_if<DenseMlp>(&g.spec.ffn))
            ffn = {{"kind", "dense"}, {"intermediate", d->intermediate}};
        else {
            const Moe& e = std::get<Moe>(g.spec.ffn);
            ffn = {{"kind", "moe"}, {"experts", e.experts}, {"experts_per_token", e.experts_per_token},
                   {"expert_intermediate", e.expert_intermediate}, {"shared_experts", e.shared_experts},
                   {"shared_intermediate", e.shared_intermediate}, {"router_bias", e.router_bias},
                   {"expert_bias", e.expert_bias}};
        }
        groups.push_back({{"count", g.count}, {"attention", at}, {"window", g.spec.window}, {"ffn", ffn}});
    }
    j = json::object();
    j["model_type"] = "ridgeline";
    j["hidden_size"] = m.hidden_size;
    j["vocab_size"] = m.vocab_size;
    j["tie_word_embeddings"] = m.tied_embeddings;
    j["num_nextn_predict_layers"] = m.mtp_layers;
    if (m.max_context > 0) j["max_position_embeddings"] = m.max_context;
    j["layer_groups"] = groups;
    j["ridgeline"] = {{"name", std::string(m.name.view())}};
    if (m.declared_parameters) j["ridgeline"]["parameters"] = *m.declared_parameters;
}

inline void from_json(const nlohmann::json& j, Model& m) { m = model_from_config(j); }

// ---------------------------------------------------------------------------------------------
// Files and the preset catalogue
// ---------------------------------------------------------------------------------------------

namespace json_detail {

// Rejects a key seen twice in one object (nlohmann's parse would keep the last silently), giving
// the JSON pointer of the second and both members' positions in the object, counted from 1.
class DuplicateKeys {
public:
    explicit DuplicateKeys(std::string file) : file_(std::move(file)) {}

    bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
        switch (event) {
            case json::parse_event_t::object_start: frames_.push_back(Frame{false, 0, {}, {}}); break;
            case json::parse_event_t::array_start: frames_.push_back(Frame{true, 0, {}, {}}); break;
            case json::parse_event_t::object_end:
            case json::parse_event_t::array_end:
                if (!frames_.empty()) frames_.pop_back();
                element_done();
                break;
            case json::parse_event_t::value: element_done(); break;
            case json::parse_event_t::key: {
                if (frames_.empty() || frames_.back().array) break;
                Frame& f = frames_.back();
                f.key = parsed.get<std::string>();
                const std::size_t ordinal = f.keys.size() + 1;
                const auto [at, inserted] = f.keys.emplace(f.key, ordinal);
                if (!inserted)
                    throw error(file_, pointer(), "a second " + printable(f.key) +
                                                      " (the key appears twice in the same object, as members " +
                                                      std::to_string(at->second) + " and " + std::to_string(ordinal) + ")",
                                "each key once");
                break;
            }
        }
        return true;
    }

private:
    struct Frame {
        bool array;
        std::size_t index;  // arrays: the element being read
        std::string key;    // objects: the member being read
        std::unordered_map<std::string, std::size_t> keys;  // objects: each key's position
    };
    void element_done() {
        if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    }
    [[nodiscard]] std::string pointer() const {
        std::string p;
        for (const Frame& f : frames_) {  // piece by piece: "/" + string trips g++ 12's -Wrestrict at -O2
            p += '/';
            p += f.array ? std::to_string(f.index) : pointer_token(f.key);
        }
        return p;
    }
    std::string file_;
    std::vector<Frame> frames_;
};

}  // namespace json_detail

// Parses JSON text; bad JSON, or a key twice in one object, is a ridgeline::error naming `file`.
inline nlohmann::json parse_json_text(std::string_view text, const std::string& file = "") {
    const std::string name = json_detail::printable(file);
    json_detail::DuplicateKeys duplicates{name};
    try {
        return nlohmann::json::parse(text, nlohmann::json::parser_callback_t{std::ref(duplicates)});
    } catch (const nlohmann::json::exception& e) {  // syntax errors, and numbers out of range
        // nlohmann quotes the bytes it stopped at, which may not be UTF-8.
        throw error(name, "", "text that is not JSON (" + json_detail::printable(e.what()) + ")", "a JSON document");
    }
}

// The largest JSON file read_json_file reads: ten times the largest config.json in use.
inline constexpr std::uintmax_t json_file_limit = std::uintmax_t{64} << 20;  // 64 MiB

// Parses a JSON file; a missing file or bad JSON is a ridgeline::error naming the file. Only a
// regular file (or a link to one) is read: a FIFO, a device, a directory or a socket is refused
// before it is opened, so nothing blocks or reads forever. A file over json_file_limit is refused
// before reading, and so is one that grows past it while it is read.
inline nlohmann::json read_json_file(const std::filesystem::path& file) {
    namespace fs = std::filesystem;
    const std::string name = json_detail::printable(file.string());
    const std::string limit = "a JSON file of at most 64 MiB (67108864 bytes)";
    std::error_code ec;
    const fs::file_status st = fs::status(file, ec);
    if (ec || !fs::exists(st)) throw error(name, "", "a file that cannot be opened", "a readable JSON file");
    if (!fs::is_regular_file(st)) {
        const char* what = fs::is_directory(st)       ? "a directory"
                           : fs::is_fifo(st)          ? "a FIFO"
                           : fs::is_character_file(st) ? "a character device"
                           : fs::is_block_file(st)    ? "a block device"
                           : fs::is_socket(st)        ? "a socket"
                                                      : "something";
        throw error(name, "", std::string(what) + ", not a regular file", "a regular JSON file");
    }
    const std::uintmax_t size = fs::file_size(file, ec);
    if (!ec && size > json_file_limit) throw error(name, "", "a file of " + std::to_string(size) + " bytes", limit);
    std::ifstream in(file, std::ios::binary);
    if (!in) throw error(name, "", "a file that cannot be opened", "a readable JSON file");
    std::string text;
    char chunk[65536];
    while (in) {
        in.read(chunk, sizeof chunk);
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
        if (text.size() > json_file_limit) throw error(name, "", "a file that grew past 64 MiB while it was read", limit);
    }
    if (in.bad()) throw error(name, "", "a file that cannot be read", "a readable JSON file");
    return parse_json_text(text, name);
}

// Where presets are looked up, the first that exists winning: $RIDGELINE_DATA_DIR if set (and
// then it must exist); else share/ridgeline next to the running program's bin/ (Linux), so an
// installed prefix still works after it is moved; else the installed share/ridgeline known at
// compile time (the package config sets it from where find_package found ridgeline); else the
// source tree's data/ (in-tree builds).
inline std::filesystem::path data_directory() {
    namespace fs = std::filesystem;
    if (const char* env = std::getenv("RIDGELINE_DATA_DIR"); env && *env) {
        if (!fs::is_directory(env))
            throw error("", "RIDGELINE_DATA_DIR", json_detail::printable(env), "a directory holding hardware/ and models/");
        return env;
    }
    std::vector<fs::path> candidates;
#if defined(__linux__)
    {
        // CMAKE_INSTALL_DATADIR/ridgeline relative to CMAKE_INSTALL_BINDIR, as CMakeLists.txt sets it.
#ifdef RIDGELINE_DATA_DIR_FROM_BINDIR
        const fs::path from_bindir = RIDGELINE_DATA_DIR_FROM_BINDIR;
#else
        const fs::path from_bindir = "../share/ridgeline";
#endif
        std::error_code ec;  // no /proc (chroots, sandboxes): skip this place, do not throw
        const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
        if (!ec && exe.is_absolute())
            candidates.push_back((exe.parent_path() / from_bindir).lexically_normal());
    }
#endif
#ifdef RIDGELINE_INSTALLED_DATA_DIR
    candidates.emplace_back(RIDGELINE_INSTALLED_DATA_DIR);
#endif
#ifdef RIDGELINE_SOURCE_DATA_DIR
    candidates.emplace_back(RIDGELINE_SOURCE_DATA_DIR);
#endif
    std::string tried;
    for (const auto& c : candidates) {
        std::error_code ec;
        if (fs::is_directory(c, ec)) return c;
        tried += (tried.empty() ? "" : ", ") + c.string();
    }
    throw error("", "data directory", tried.empty() ? "none found" : "none found (tried " + json_detail::printable(tried) + ")",
                "RIDGELINE_DATA_DIR set, or ridgeline installed or built in its source tree");
}

enum class PresetKind { hardware, model };

// Whether a preset argument is a path ("./my-gpu.json", "cfg/config.json") rather than a name.
inline bool looks_like_path(std::string_view s) {
    return s.find('/') != std::string_view::npos || (s.size() > 5 && s.ends_with(".json"));
}

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
    if (looks_like_path(s)) return s;
    auto names = list_presets(kind);
    if (std::find(names.begin(), names.end(), s) == names.end()) {
        // Every name, the closest first, ignoring case: names the input begins, then names that
        // contain it, then fewest single-character edits ("H100" lists the h100s before v100).
        const auto lower = [](std::string t) {
            for (char& c : t) c = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
            return t;
        };
        const std::string wanted = lower(s);
        const auto score = [&](const std::string& n) -> std::size_t {
            const std::string l = lower(n);
            if (l.starts_with(wanted)) return 0;
            if (l.find(wanted) != std::string::npos) return 1;
            return 2 + json_detail::edit_distance(l, wanted);
        };
        std::stable_sort(names.begin(), names.end(),
                         [&](const std::string& a, const std::string& b) { return score(a) < score(b); });
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        throw error("", kind == PresetKind::hardware ? "hardware preset" : "model preset", "\"" + json_detail::printable(s) + "\"",
                    "one of (closest first): " + list);
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

// ---------------------------------------------------------------------------------------------
// Checkpoint formats: the storage formats a config.json says its checkpoint ships in.
// ---------------------------------------------------------------------------------------------

// A model with the formats its checkpoint ships in, and where those came from. The default
// Precision a caller should start from for this model; a caller's own --weights, --experts and
// --embeddings still override it. kv and compute are left at Precision's defaults: a
// checkpoint's files do not fix them.
struct LoadedModel {
    Model model;
    Precision precision{};
    std::string precision_source;  // e.g. "torch_dtype bfloat16; quantization_config fp8, ..."
};

namespace json_detail {

// torch_dtype (or dtype, its newer name): the format of every tensor left unquantised.
inline Format dtype_format(const Node& n) {
    const std::string expected = "one of: bfloat16, float16, float32";
    const std::string d = n.string(expected);
    if (d == "bfloat16") return formats::bf16;
    if (d == "float16") return formats::fp16;
    if (d == "float32") return formats::fp32;
    n.fail(expected);
}

inline int small_positive(const Node& n, const std::string& expected) {
    // An integer from 1 to 1,000,000 (bits, group sizes, block sides).
    const json& v = n.value();
    if (!v.is_number_integer()) n.fail(expected);
    if (v.is_number_unsigned() ? v.get<std::uint64_t>() > 1000000 : (v.get<std::int64_t>() <= 0 || v.get<std::int64_t>() > 1000000))
        n.fail(expected);
    return static_cast<int>(v.get<std::int64_t>());
}

// One compressed-tensors weights scheme ({"num_bits", "type", "group_size", "strategy"}).
inline Format compressed_tensors_weights(const Node& w) {
    w.require_object("a weights scheme object");
    const int bits = small_positive(w.need("num_bits", "4 or 8"), "4 or 8");
    const std::string type = w.need("type", "\"float\" or \"int\"").string("\"float\" or \"int\"");
    const bool grouped = w.has("group_size") && !w.at("group_size").value().is_null();
    const int group = grouped ? small_positive(w.at("group_size"), "a positive group size") : 0;
    if (type == "float" && bits == 4 && group == 16) return formats::nvfp4;  // NVFP4: FP8 scale per 16
    if (type == "float" && bits == 8 && !grouped) return formats::fp8;       // per tensor or channel
    if (type == "int" && (bits == 4 || bits == 8)) return Format{bits == 4 ? Numeric::int4 : Numeric::int8, grouped ? 16 : 0, group};
    w.fail("a scheme ridgeline models: float 4-bit in groups of 16 (nvfp4), float 8-bit without groups (fp8), "
           "or int 4/8-bit (optionally grouped)");
}

}  // namespace json_detail

// The formats a config.json's torch_dtype and quantization_config give a checkpoint:
//  - torch_dtype (or dtype): bfloat16 / float16 / float32, the format of every tensor left
//    unquantised: weights when there is no quantization_config, embeddings always. Absent:
//    bf16, Precision's default.
//  - quant_method "fp8": FP8 (E4M3) weights; with weight_block_size [a, b] one FP32 scale per
//    a x b block (DeepSeek-V3 stores weight_scale_inv in float32), i.e. fp8/g(a*b)/s32. Experts
//    follow the weights; embeddings stay at torch_dtype.
//  - "mxfp4": the routed experts in MXFP4 (what transformers' Mxfp4 quantizer converts, and all
//    gpt-oss ships so: attention, router, embeddings and head are in modules_to_not_convert);
//    everything else at torch_dtype.
//  - "awq", "gptq": bits 4 or 8 in groups of group_size with one 16-bit scale each (int4/g128);
//    group_size -1 (per channel) is plain int4. Zero points are not counted. Embeddings stay at
//    torch_dtype.
//  - "compressed-tensors": config_groups' weights schemes, all alike: nvfp4, fp8 or intN/gG.
// Not modelled: the LM head's own format (Precision has none; an untied head is charged at the
// weights' format, so an fp8 checkpoint's bf16 head is counted in fp8).
inline std::pair<Precision, std::string> checkpoint_formats(const nlohmann::json& j, const std::string& file = "") {
    using json_detail::Node;
    const Node root{j, file, ""};
    root.require_object("a config.json object");
    Precision p{};
    std::string source;
    Format dtype = formats::bf16;
    const char* dtype_key = root.has("torch_dtype") ? "torch_dtype" : root.has("dtype") ? "dtype" : nullptr;
    if (dtype_key && !root.at(dtype_key).value().is_null()) {
        dtype = json_detail::dtype_format(root.at(dtype_key));
        source = std::string(dtype_key) + " " + root.at(dtype_key).value().get<std::string>();
    } else {
        source = "no torch_dtype: bf16 assumed";
    }
    p.weights = dtype;
    if (!root.has("quantization_config") || root.at("quantization_config").value().is_null()) return {p, source};

    const Node q = root.at("quantization_config");
    q.require_object("a quantization_config object");
    const std::string methods = "one of: fp8, mxfp4, awq, gptq, compressed-tensors";
    const std::string method = q.need("quant_method", methods).string(methods);
    Format quantised{};
    if (method == "fp8") {
        quantised = formats::fp8;
        if (q.has("weight_block_size") && !q.at("weight_block_size").value().is_null()) {
            const Node b = q.at("weight_block_size");
            const std::string expected = "two positive block sides, e.g. [128, 128]";
            if (!b.value().is_array() || b.value().size() != 2) b.fail(expected);
            const int rows = json_detail::small_positive(b.at(0), expected), cols = json_detail::small_positive(b.at(1), expected);
            if (static_cast<std::int64_t>(rows) * cols > 1000000) b.fail(expected + " of at most 1,000,000 elements");
            quantised = Format{Numeric::fp8, 32, rows * cols};
        }
        p.weights = quantised;
        p.embeddings = dtype;
    } else if (method == "mxfp4") {
        quantised = formats::mxfp4;
        p.experts = quantised;
    } else if (method == "awq" || method == "gptq") {
        const int bits = json_detail::small_positive(q.need("bits", "4 or 8"), "4 or 8");
        if (bits != 4 && bits != 8) q.at("bits").fail("4 or 8");
        const Numeric element = bits == 4 ? Numeric::int4 : Numeric::int8;
        const Node g = q.need("group_size", "a positive group size, or -1 for per-channel scales");
        if (g.value().is_number_integer() && g.value().get<std::int64_t>() == -1) quantised = Format{element};
        else quantised = Format{element, 16, json_detail::small_positive(g, "a positive group size, or -1 for per-channel scales")};
        p.weights = quantised;
        p.embeddings = dtype;
    } else if (method == "compressed-tensors") {
        const Node groups = q.need("config_groups", "an object of quantisation groups");
        groups.require_object("an object of quantisation groups");
        if (groups.value().empty()) groups.fail("at least one quantisation group");
        std::optional<Format> all;
        for (const auto& item : groups.value().items()) {
            const Node w = groups.at(item.key()).need("weights", "a weights scheme object");
            const Format f = json_detail::compressed_tensors_weights(w);
            if (all && *all != f) w.fail("the same weights scheme as the other groups (" + format_name(*all) + ")");
            all = f;
        }
        quantised = *all;
        p.weights = quantised;
        p.embeddings = dtype;
    } else {
        q.at("quant_method").fail(methods);
    }
    source += "; quantization_config " + method + ": " + (method == "mxfp4" ? "experts " : "weights ") + format_name(quantised);
    if (p.embeddings || method == "mxfp4") source += ", embeddings " + format_name(dtype);
    return {p, source};
}

// load_model, with the formats the file gives its checkpoint.
inline LoadedModel load_model_with_formats(std::string_view name_or_path) {
    const auto file = resolve_preset(PresetKind::model, name_or_path);
    const nlohmann::json j = read_json_file(file);
    LoadedModel out{model_from_config(j, file.string(), file.stem().string()), {}, {}};
    std::tie(out.precision, out.precision_source) = checkpoint_formats(j, file.string());
    return out;
}

// ---------------------------------------------------------------------------------------------
// Measurements (data/measurements/*.json): measured decode speeds with their setting. Every
// error names the file and the row's JSON pointer (/measurements/<i>/...); load_measurements
// also checks that each row's preset names are in the catalogue.
// ---------------------------------------------------------------------------------------------

struct MeasuredRow {
    std::string hardware;  // a preset name or path
    std::string model;
    Workload workload;
    Parallelism parallel{};
    Seconds measured_step{};                    // time per output token
    std::optional<double> source_GB_per_s{};    // the source's own bandwidth figure, if it gives one
};

struct MeasurementSet {
    std::string source;
    std::string notes;
    std::vector<MeasuredRow> rows;
};

namespace json_detail {
inline Format format_at(const Node& n) {
    const std::string name = n.string("a format name: fp32, bf16, fp16, fp8, int8, int4, fp4, mxfp4, nvfp4, or e.g. int4/g128");
    const auto f = parse_format(name);
    if (!f) n.fail("a format name: fp32, bf16, fp16, fp8, int8, int4, fp4, mxfp4, nvfp4, or e.g. int4/g128");
    return *f;
}
inline Numeric numeric_at(const Node& n) {
    const auto v = numeric_from_name(n.string("a compute format: fp32, bf16, fp16, fp8, int8, int4, fp4"));
    if (!v) n.fail("a compute format: fp32, bf16, fp16, fp8, int8, int4, fp4");
    return *v;
}
}  // namespace json_detail

inline MeasurementSet measurements_from_json(const nlohmann::json& j, const std::string& file = "") {
    using json_detail::Node;
    const Node root{j, file, ""};
    root.require_object("a measurements object");
    root.only_keys({"source", "notes", "measurements"});
    MeasurementSet set;
    set.source = root.need("source", "a non-empty string saying where the measurements came from").string();
    if (root.has("notes")) set.notes = root.at("notes").string();
    const Node list = root.need("measurements", "an array of measurements");
    if (!list.value().is_array() || list.value().empty()) list.fail("a non-empty array of measurements");
    for (std::size_t i = 0; i < list.value().size(); ++i) {
        const Node r = list.at(i);  // errors name the file and the row: /measurements/<i>/...
        r.require_object("a measurement object");
        r.only_keys({"hardware", "model", "weights", "kv", "compute", "embeddings", "experts", "tensor_parallel",
                     "pipeline_parallel", "batch", "context", "tokens_per_s", "tpot_ms", "source_GB_per_s"});
        MeasuredRow row;
        row.hardware = r.need("hardware", "a hardware preset name or path").string();
        row.model = r.need("model", "a model preset name or path").string();
        Workload& w = row.workload;
        if (r.has("weights")) w.precision.weights = json_detail::format_at(r.at("weights"));
        if (r.has("kv")) w.precision.kv = json_detail::format_at(r.at("kv"));
        if (r.has("compute")) w.precision.compute = json_detail::numeric_at(r.at("compute"));
        if (r.has("embeddings")) w.precision.embeddings = json_detail::format_at(r.at("embeddings"));
        if (r.has("experts")) w.precision.experts = json_detail::format_at(r.at("experts"));
        if (r.has("tensor_parallel")) row.parallel.tensor = r.at("tensor_parallel").positive_integer();
        if (r.has("pipeline_parallel")) row.parallel.pipeline = r.at("pipeline_parallel").positive_integer();
        if (r.has("batch")) w.batch = r.at("batch").positive_integer();
        if (r.has("context")) {
            const Node c = r.at("context");
            if (!c.value().is_number_integer() || c.value().get<std::int64_t>() < 0) c.fail("an integer >= 0 tokens");
            w.context = c.value().get<std::int64_t>();
        }
        if (r.has("tokens_per_s") == r.has("tpot_ms"))
            r.fail("exactly one of tokens_per_s (per sequence) and tpot_ms");
        row.measured_step = r.has("tokens_per_s") ? s(1.0 / r.at("tokens_per_s").figure()) : ms(r.at("tpot_ms").figure());
        if (r.has("source_GB_per_s")) row.source_GB_per_s = r.at("source_GB_per_s").figure();
        set.rows.push_back(std::move(row));
    }
    return set;
}

inline MeasurementSet load_measurements(std::string_view name_or_path) {
    namespace fs = std::filesystem;
    const std::string s(name_or_path);
    const fs::path file = looks_like_path(s) ? fs::path(s) : data_directory() / "measurements" / (s + ".json");
    MeasurementSet set = measurements_from_json(read_json_file(file), file.string());
    // A preset name that is not in the catalogue is the row's error, not the caller's later.
    for (std::size_t i = 0; i < set.rows.size(); ++i) {
        const auto check = [&](PresetKind kind, const std::string& name, const char* key) {
            try {
                (void)resolve_preset(kind, name);
            } catch (const error& e) {
                throw error(json_detail::printable(file.string()), "/measurements/" + std::to_string(i) + "/" + key, e.value(),
                            e.expected());
            }
        };
        check(PresetKind::hardware, set.rows[i].hardware, "hardware");
        check(PresetKind::model, set.rows[i].model, "model");
    }
    return set;
}

}  // namespace ridgeline
