// The JSON cursor every reader in ridgeline uses: a value with its file and JSON pointer, so
// every error names the file, the path, the value and what was expected. The only place that
// includes nlohmann_json directly; the readers include this.
//
//  - File names and values in messages are valid UTF-8 without control characters
//    (json_detail::printable), so a message can always be written into JSON output.
//  - Limits on hostile input: a figure in a unit (GB, GB/s, TFLOP/s, MiB, tokens/s, ms) lies in
//    [0.001, 1e9) of that unit; a latency in microseconds is 0 or in [0.001, 1e6].
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "error.hpp"
#include "name.hpp"

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

// `s` with A-Z as a-z and every other byte as it is: names matched in any case (architectures,
// presets), whatever the locale.
inline std::string ascii_lower(std::string s) {
    for (char& c : s) c = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    return s;
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
            // Python's bare NaN, Infinity and -Infinity are read as these strings (catalogue.hpp).
            if (str == "NaN" || str == "Infinity" || str == "-Infinity") return str + " (not a JSON number: a bare " + str + " or the string)";
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
inline constexpr const char* figure_range = "a number from 0.001 to below 1e9 (in the key's unit)";
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
    // The path a member `key` has (or would have) here: errors about a key this node lacks name
    // it inside the node (a wrapper's /text_config/vocab_size), not at the file's top.
    [[nodiscard]] std::string path_of(const std::string& key) const { return path_ + "/" + pointer_token(key); }

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
    // One message for every way out of the range, a string, 0, a negative and 1e12 alike.
    [[nodiscard]] double figure() const {
        if (!v_->is_number()) fail(figure_range);
        const double d = v_->get<double>();
        if (!(d >= figure_floor && d < figure_ceiling)) fail(figure_range);
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
        // Past 2^64 the parser keeps a whole number as a double: say the bound it broke.
        if (v_->is_number_float() && v_->get<double>() >= 0x1p53) fail("a positive integer below 2^53");
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
    "memory_reported_MiB", "scale_up_domain", "scale_up_topology", "scale_up_latency_us", "scale_out_GB_per_s", "scale_out_latency_us",
    "measured_bandwidth_GB_per_s", "cuda_compute_capability"};

}  // namespace json_detail

}  // namespace ridgeline
