// libFuzzer target: the CLI's value parsers (examples/ridgeline/args.hpp). The first bytes pick
// a parser and its bounds; the rest is the value, as the shell would pass it.
//
// Invariant: each parser either returns a value within its documented bounds or throws
// cli::usage_error whose message names the option ("--opt: got \"...\", expected ..."); nothing
// else escapes (no std::out_of_range from stod, no overflow: UBSan is on). In detail:
//  - parse_list: 1 to cli::max_values values, each from `min` to 2^40, each once; a range's values rise;
//  - parse_integer_option: a value from min to max whose decimal form is exactly the input;
//  - parse_number: a finite value in [min, max], or exactly 0 when zero_ok;
//  - parse_format_option / parse_numeric_option: a format whose name reads back to it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "../../examples/ridgeline/args.hpp"

namespace {

void require(bool ok) {
    if (!ok) std::abort();
}

const std::string option = "--opt";

void check_usage(const cli::usage_error& e) {
    require(std::string(e.what()).starts_with(option + ": "));
}

void list(const std::string& s, std::int64_t min) {
    const std::vector<std::int64_t> v = cli::parse_list(option, s, min);
    require(!v.empty() && v.size() <= cli::max_values);
    for (const std::int64_t x : v) require(x >= min && x <= cli::max_list_value);
    // Each value at most once (a repeat is refused).
    std::vector<std::int64_t> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    require(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
    // Without commas the input is one value or one range, whose values rise.
    if (s.find(',') == std::string::npos)
        for (std::size_t i = 1; i < v.size(); ++i) require(v[i] > v[i - 1]);
}

void integer(const std::string& s, std::int64_t min, std::int64_t max) {
    const std::int64_t v = cli::parse_integer_option(option, s, min, max);
    require(v >= min && v <= max && std::to_string(v) == s);
}

void number(const std::string& s, double min, double max, bool zero_ok) {
    const double v = cli::parse_number(option, s, min, max, "a number", zero_ok);
    require(std::isfinite(v) && ((v >= min && v <= max) || (zero_ok && v == 0)));
}

void format(const std::string& s) {
    const ridgeline::Format f = cli::parse_format_option(option, s);
    require(ridgeline::parse_format(ridgeline::format_name(f)) == f);
    require(std::isfinite(f.bits_per_element()) && f.bits_per_element() > 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    const int which = in.ConsumeIntegralInRange<int>(0, 5);
    // The bounds main.cpp passes: lists from 0 or 1; integers up to 64, 1024, 2^20, 1e8, 2^40;
    // numbers in [1e-6, 1], [1e-6, 1e6], [1e-6, 1e9], [1e-6, 9e5].
    const std::int64_t int_max[] = {64, 1024, std::int64_t{1} << 20, 100'000'000, std::int64_t{1} << 40};
    const double num_max[] = {1.0, 1e6, 1e9, 9e5};
    const std::int64_t int_min = in.ConsumeIntegralInRange<std::int64_t>(0, 1);
    const std::int64_t imax = int_max[in.ConsumeIntegralInRange<std::size_t>(0, 4)];
    const double nmax = num_max[in.ConsumeIntegralInRange<std::size_t>(0, 3)];
    const bool zero_ok = in.ConsumeBool();
    const std::string s = in.ConsumeRemainingBytesAsString();
    try {
        switch (which) {
        case 0: list(s, int_min); break;
        case 1: integer(s, int_min, imax); break;
        case 2: number(s, 1e-6, nmax, zero_ok); break;
        case 3: format(s); break;
        case 4: require(ridgeline::numeric_from_name(ridgeline::name_of(cli::parse_numeric_option(option, s))).has_value()); break;
        default: list(s, 1 - int_min); break;
        }
    } catch (const cli::usage_error& e) {
        check_usage(e);
    }
    return 0;
}
