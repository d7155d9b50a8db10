// Parsing the CLI's values: lists and ranges of integers, formats, fractions. A bad value is a
// usage error naming the option and what it accepts.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <ridgeline/formats.hpp>

namespace cli {

// A usage error: exit status 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] inline void bad_value(const std::string& option, const std::string& value, const std::string& expected) {
    throw usage_error(option + ": got \"" + value + "\", expected " + expected);
}

inline std::int64_t parse_integer(const std::string& option, const std::string& s, std::int64_t min, const std::string& expected) {
    if (s.empty() || s.size() > 15) bad_value(option, s, expected);
    std::int64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') bad_value(option, s, expected);
        v = v * 10 + (c - '0');
    }
    if (v < min) bad_value(option, s, expected);
    return v;
}

// "1,8,64", "1..256x2" (doubling), "0..4096+512" (steps of 512), or a mix: "1,4..64x4".
inline std::vector<std::int64_t> parse_list(const std::string& option, const std::string& s, std::int64_t min) {
    const std::string expected = "a list such as 1,8,64 or a range such as 1..256x2 or 0..4096+512, each value >= " +
                                 std::to_string(min);
    std::vector<std::int64_t> out;
    std::size_t start = 0;
    try {
    while (start <= s.size()) {
        const std::size_t comma = s.find(',', start);
        const std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const std::size_t dots = item.find("..");
        if (dots == std::string::npos) {
            out.push_back(parse_integer(option, item, min, expected));
        } else {
            const std::int64_t lo = parse_integer(option, item.substr(0, dots), min, expected);
            const std::string rest = item.substr(dots + 2);
            const std::size_t op = rest.find_first_of("x+");
            if (op == std::string::npos) bad_value(option, s, expected);
            const std::int64_t hi = parse_integer(option, rest.substr(0, op), min, expected);
            const std::int64_t step = parse_integer(option, rest.substr(op + 1), 1, expected);
            if (hi < lo || (rest[op] == 'x' && (step < 2 || lo < 1))) bad_value(option, s, expected);
            for (std::int64_t v = lo; v <= hi; v = rest[op] == 'x' ? v * step : v + step) {
                out.push_back(v);
                if (out.size() > 100000) bad_value(option, s, "at most 100,000 values");
            }
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    } catch (const usage_error&) {
        if (out.size() > 100000) throw;
        bad_value(option, s, expected);  // name the whole value, not the piece that failed
    }
    return out;
}

inline ridgeline::Format parse_format_option(const std::string& option, const std::string& s) {
    const auto f = ridgeline::parse_format(s);
    if (!f) bad_value(option, s, "a format: fp32, bf16, fp16, fp8, int8, int4, fp4, mxfp4, nvfp4, or a grouped one such as int4/g128");
    return *f;
}

inline ridgeline::Numeric parse_numeric_option(const std::string& option, const std::string& s) {
    const auto n = ridgeline::numeric_from_name(s);
    if (!n) bad_value(option, s, "a compute format: fp32, bf16, fp16, fp8, int8, int4, fp4");
    return *n;
}

inline double parse_positive(const std::string& option, const std::string& s, double max, const std::string& expected) {
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(s, &used);
    } catch (const std::exception&) {
        bad_value(option, s, expected);
    }
    if (used != s.size() || !(v > 0) || !(v <= max)) bad_value(option, s, expected);
    return v;
}

}  // namespace cli
