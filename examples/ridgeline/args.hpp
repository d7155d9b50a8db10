// Parsing the CLI's values: lists and ranges of integers, formats, fractions. A bad value is a
// usage error naming the option and what it accepts.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fcntl.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <utility>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <ridgeline/answers_schema.hpp>
#include <ridgeline/catalogue.hpp>
#include <ridgeline/draft_head_json.hpp>
#include <ridgeline/error.hpp>
#include <ridgeline/formats.hpp>
#include <ridgeline/speculative.hpp>
#include <ridgeline/units.hpp>

namespace cli {

// A usage error: exit status 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A value typed long is echoed by its start and its length: the error stays one line (a pasted
// list or a runaway shell expansion can be megabytes).
inline std::string echoed(const std::string& value) {
    constexpr std::size_t longest = 80, kept = 60;
    if (value.size() <= longest) return value;
    std::size_t cut = kept;
    while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
    return value.substr(0, cut) + "... (" + std::to_string(value.size()) + " bytes)";
}

// The same for a value the library quoted: its text cut, the quotes kept.
inline std::string echoed_quoted(const std::string& value) {
    if (value.size() < 2 || value.front() != '"' || value.back() != '"') return echoed(value);
    return '"' + echoed(value.substr(1, value.size() - 2)) + '"';
}

[[noreturn]] inline void bad_value(const std::string& option, const std::string& value, const std::string& expected) {
    throw usage_error(option + ": got \"" + echoed(value) + "\", expected " + expected);
}

// An output file's path, checked before any work is done or printed: not empty, not a
// directory, in a directory that exists. (Whether it can be written is known only on writing.)
inline void require_output_path(const std::string& option, const std::string& path, const std::string& what) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const std::string expected = "a path to write " + what + " to";
    if (path.empty()) bad_value(option, path, expected);
    if (fs::is_directory(path, ec)) bad_value(option, path, expected + " (this is a directory)");
    // Opening a FIFO to write waits for a reader, forever if none comes (a pipe being read, as
    // /dev/stdout into `| head`, is fine); a socket cannot be opened.
    const fs::file_status st = fs::status(path, ec);
    if (fs::is_fifo(st)) {
        const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);  // fails (ENXIO) only with no reader
        if (fd < 0) bad_value(option, path, expected + " (this is a FIFO no one reads: writing would wait for a reader)");
        ::close(fd);
    }
    if (fs::is_socket(st)) bad_value(option, path, expected + " (this is a socket)");
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec)) bad_value(option, path, expected + " in a directory that exists");
}

// Writes an output file whole, or says it could not: a write that fails only when the buffer
// is flushed (a full disk, /dev/full) is caught at the close, not reported as written.
inline void write_output_file(const std::string& path, const std::string& text, const std::string& what) {
    std::ofstream file(path, std::ios::binary);
    if (!file) throw ridgeline::error(path, "", "a file that cannot be written", "a writable path for " + what);
    file << text;
    file.close();
    if (!file) throw ridgeline::error(path, "", "a failed write", "a writable path for " + what);
}

// Plain decimal digits only: no sign, no "0x", no leading zero ("010" is neither 8 nor 10 to
// everyone, so it is refused), at most 15 digits. Returns nothing when `s` is not such a number.
inline std::optional<std::int64_t> decimal(const std::string& s) {
    if (s.empty() || s.size() > 15 || (s.size() > 1 && s[0] == '0')) return std::nullopt;
    std::int64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + (c - '0');
    }
    return v;
}

// "007" and "0x8" get their own words: the value is almost right.
inline std::string integer_problem(const std::string& s) {
    if (s.size() > 1 && s[0] == '0' && s.find_first_not_of("0123456789") == std::string::npos)
        return " (without a leading zero)";
    if (s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return " (in decimal, not hexadecimal)";
    return "";
}

// An integer option: "--tp: got \"0x8\", expected an integer from 1 to 1024 (in decimal, not hexadecimal)".
inline std::int64_t parse_integer_option(const std::string& option, const std::string& s, std::int64_t min, std::int64_t max) {
    const auto v = decimal(s);
    if (!v || *v < min || *v > max)
        bad_value(option, s, "an integer from " + std::to_string(min) + " to " + std::to_string(max) + integer_problem(s));
    return *v;
}

// Of the values listed twice, the index of the one whose second mention comes first; none if
// each is listed once. An empty string is no value (its reader names it). The Python module
// refuses its lists' repeats with it too.
template <class T>
std::optional<std::size_t> first_repeat(const std::vector<T>& keys) {
    std::vector<std::size_t> order(keys.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    std::optional<std::size_t> first;
    for (std::size_t i = 1; i < order.size(); ++i) {
        if constexpr (std::is_same_v<T, std::string>)
            if (keys[order[i]].empty()) continue;
        if (keys[order[i]] == keys[order[i - 1]] && (!first || order[i] < *first)) first = order[i];
    }
    return first;
}

// A list names each value once: a repeat would only print the same row twice, and is more
// likely a typo for another value. `keys` are the values as typed (two spellings of one value,
// "fp4,nvfp4", pass); an empty one is left to the list's reader, which refuses it by name.
inline void refuse_repeats(const std::string& option, const std::string& text, const std::vector<std::string>& keys) {
    if (const auto i = first_repeat(keys)) bad_value(option, text, "each value once (" + echoed(keys[*i]) + " is listed twice)");
}

// The most values one list may hold, and the most rows one command may produce.
inline constexpr std::size_t max_values = 100000;

// The largest batch or context a list may hold: the library's bound, 2^40.
inline constexpr std::int64_t max_list_value = std::int64_t{1} << 40;

// "1,8,64", "1..256x2" (doubling), "0..4096+512" (steps of 512), or a mix: "1,4..64x4".
// `max`: the largest value (2^40 unless the flag's own bound is lower, as the degrees' 1024).
inline std::vector<std::int64_t> parse_list(const std::string& option, const std::string& s, std::int64_t min, std::int64_t max = max_list_value) {
    const std::string expected = "a list such as 1,8,64 or a range such as 1..256x2 or " + std::to_string(min) +
                                 "..4096+512, each value from " + std::to_string(min) + " to " +
                                 (max == max_list_value ? std::string("2^40") : std::to_string(max));
    const auto refuse = [&](const std::string& piece) { bad_value(option, s, expected + integer_problem(piece)); };
    const auto refuse_range = [&](const std::string& why) { bad_value(option, s, expected + " (" + why + ")"); };
    // A step may be as large as any value; the values themselves stay within max.
    const auto number = [&](const std::string& piece, std::int64_t at_least, std::int64_t at_most) {
        const auto v = decimal(piece);
        if (!v || *v < at_least || *v > at_most) refuse(piece);
        return *v;
    };
    std::vector<std::int64_t> out;
    const auto push = [&](std::int64_t v) {
        out.push_back(v);
        if (out.size() > max_values) bad_value(option, s, "at most 100,000 values");
    };
    std::size_t start = 0;
    while (start <= s.size()) {
        const std::size_t comma = s.find(',', start);
        const std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const std::size_t dots = item.find("..");
        if (dots == std::string::npos) {
            push(number(item, min, max));
        } else {
            const std::int64_t lo = number(item.substr(0, dots), min, max);
            const std::string rest = item.substr(dots + 2);
            const std::size_t op = rest.find_first_of("x+");
            if (op == std::string::npos) refuse_range(item + " has no step: x2 to double, +512 to add 512");
            const std::int64_t hi = number(rest.substr(0, op), min, max);
            const std::int64_t step = number(rest.substr(op + 1), 0, max_list_value);
            const bool times = rest[op] == 'x';
            if (hi < lo) refuse_range(item + " ends below its start");
            if (!times && step < 1) refuse_range(item + " adds 0");
            if (times && step < 2) refuse_range(item + " multiplies by less than 2");
            if (times && lo < 1) refuse_range(item + " multiplies from 0");
            for (std::int64_t v = lo;;) {
                push(v);
                // The next value, unless it passes hi (checked before the step, so nothing overflows).
                if (times ? v > hi / step : v > hi - step) break;
                v = times ? v * step : v + step;
            }
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    std::vector<std::string> keys;
    keys.reserve(out.size());
    for (const std::int64_t v : out) keys.push_back(std::to_string(v));
    refuse_repeats(option, s, keys);
    return out;
}

// "a,b,c" as its pieces, empty ones kept (so that "h100-sxm," is refused by name, not ignored).
inline std::vector<std::string> comma_pieces(const std::string& s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = s.find(',', start);
        out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

// A list flag's pieces, each at most once.
inline std::vector<std::string> split_commas(const std::string& option, const std::string& s) {
    std::vector<std::string> out = comma_pieces(s);
    refuse_repeats(option, s, out);
    return out;
}

// Two pieces of a list that name one file ("h200" and "data/hardware/h200.json") would print
// equal rows, as a repeat does: the first such pair, by index. A piece that names no regular
// file is left to its loader, which refuses it by name.
inline std::optional<std::pair<std::size_t, std::size_t>> same_file(const std::vector<std::string>& pieces, ridgeline::PresetKind kind) {
    std::vector<std::filesystem::path> files;
    for (const auto& piece : pieces) {
        std::filesystem::path file;
        try {
            std::error_code ec;
            file = std::filesystem::weakly_canonical(ridgeline::resolve_preset(kind, piece), ec);
            if (ec || !std::filesystem::is_regular_file(file, ec)) file.clear();  // a folder or no file: the loader's to name
        } catch (const ridgeline::error&) {
        }
        files.push_back(file);
    }
    for (std::size_t j = 1; j < files.size(); ++j)
        for (std::size_t i = 0; i < j; ++i)
            if (!files[j].empty() && files[i] == files[j]) return std::pair{i, j};
    return std::nullopt;
}
inline void refuse_same_file(const std::string& option, const std::string& text, const std::vector<std::string>& pieces,
                             ridgeline::PresetKind kind) {
    if (const auto p = same_file(pieces, kind))
        bad_value(option, text, "each value once (" + echoed(pieces[p->first]) + " and " + echoed(pieces[p->second]) + " are the same file)");
}

inline ridgeline::Format parse_format_option(const std::string& option, const std::string& s) {
    const auto f = ridgeline::parse_format(s);
    if (!f) {
        const std::string problem = ridgeline::format_name_problem(s);
        bad_value(option, s, "a format: fp32, bf16, fp16, fp8, int8, int4, fp4, mxfp4, nvfp4, or a grouped one such as int4/g128 (its scales fewer bits than its values)" +
                                 (problem.empty() ? "" : "; here " + problem));
    }
    return *f;
}

inline ridgeline::Numeric parse_numeric_option(const std::string& option, const std::string& s) {
    const auto n = ridgeline::numeric_from_name(s);
    if (!n) bad_value(option, s, "a compute format: fp32, bf16, fp16, fp8, int8, int4, fp4");
    return *n;
}

// A decimal number in [min, max] (min > 0) or, with zero_ok, exactly 0 too. NaN, infinities,
// hexadecimal, leading spaces and trailing text are refused; `expected` says the range in words.
inline double parse_number(const std::string& option, const std::string& s, double min, double max,
                           const std::string& expected, bool zero_ok = false) {
    if (s.empty() || s.find_first_not_of("0123456789.eE+-") != std::string::npos) bad_value(option, s, expected);
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(s, &used);
    } catch (const std::exception&) {
        bad_value(option, s, expected);
    }
    if (used != s.size()) bad_value(option, s, expected);
    if (zero_ok && v == 0) return 0;
    if (!(v >= min && v <= max)) bad_value(option, s, expected);
    return v;
}

// Half a unit in the last digit of a decimal that parse_number accepted ("223.19": 0.005,
// "70": 0.5, "1.5e-3": 0.00005): how far the value it rounds may lie from it. Never coarser than
// the ones place: "1e2" is typed for 100, not for anything from 50 to 150.
inline double half_unit_in_last_digit(const std::string& s) {
    const std::size_t e = s.find_first_of("eE");
    const std::string mantissa = s.substr(0, e);
    const std::size_t point = mantissa.find('.');
    const int decimals = point == std::string::npos ? 0 : static_cast<int>(mantissa.size() - point - 1);
    const int exponent = e == std::string::npos ? 0 : std::stoi(s.substr(e + 1));
    return 0.5 * std::pow(10.0, std::min(0, exponent - decimals));
}

// The longest time a token the measured figure `text` (of value `figure`) allows, in its own
// unit: a rate's slowest value inverted (at least half the rate, as its last digit is at most
// itself), or a time's longest. diagnose's longest_step, for the CLI and Python alike.
inline double longest_step_of(double figure, const std::string& text, bool rate) {
    const double half = half_unit_in_last_digit(text);
    return rate ? 1.0 / (figure - half) : figure + half;
}

// What --format asks for.
enum class Output { table, csv, json };

// --format: table, csv or json.
inline Output parse_output(const std::string& option, const std::string& s) {
    if (s == "table") return Output::table;
    if (s == "csv") return Output::csv;
    if (s == "json") return Output::json;
    bad_value(option, s, "table, csv or json");
}

// A list flag, read once: its values, and the text as typed, which later errors quote
// ("--batch: got \"1,8\", expected one batch size").
struct ListFlag {
    std::vector<std::int64_t> values;
    std::string text;
};

inline ListFlag parse_list_flag(const std::string& option, const std::string& s, std::int64_t min) {
    return {parse_list(option, s, min), s};
}

// The same flag on a command that reads one batch and one context (diagnose, predict): one
// value is refused as one value, not with a list's example; a list is read as a list, for the
// command to refuse as more than one point.
inline ListFlag parse_point_flag(const std::string& option, const std::string& s, std::int64_t min) {
    if (s.find(',') != std::string::npos || s.find("..") != std::string::npos) return parse_list_flag(option, s, min);
    const auto v = decimal(s);
    if (!v || *v < min || *v > max_list_value) bad_value(option, s, "an integer from " + std::to_string(min) + " to 2^40" + integer_problem(s));
    return {{*v}, s};
}

// The most devices a tensor-, pipeline- or expert-parallel degree (and attention data
// parallelism) spans, in the CLI and the Python module alike: far past any scale-up domain built.
// The data-parallel degree counts replicas, and takes the library's bound.
inline constexpr std::int64_t most_degree = 1024;

// Parallel degrees: a list or range (--tp 1..8x2), each from 1 to most_degree.
inline std::vector<std::int64_t> parse_degrees(const std::string& option, const std::string& s) {
    // The degrees' own bound in the list's words (a review found 0 told "1 to 2^40", 1025 "1 to 1024").
    return parse_list(option, s, 1, most_degree);
}

// The ranges of the flags that take a time or a size (0, or from the least to the most; the
// Python module reads the same ranges in seconds and bytes).
inline constexpr double least_time_us = 1e-6, most_overhead_us = 1e9, most_link_latency_us = 1e6;
inline constexpr double least_reserve_gib = 1e-6, most_reserve_gib = 9e5;

// A time in microseconds: 0, or from the least to `max`.
inline ridgeline::Seconds parse_microseconds(const std::string& option, const std::string& s, double max, const std::string& expected) {
    return ridgeline::us(parse_number(option, s, least_time_us, max, expected, true));
}

// The workload flags every subcommand that takes them reads alike (plan too): one range and one
// message each.
inline double parse_fraction(const std::string& option, const std::string& s) {  // --efficiency, --memory-fraction
    return parse_number(option, s, 1e-6, 1.0, "a fraction in [1e-6, 1]");
}
inline ridgeline::Seconds parse_overhead(const std::string& option, const std::string& s) {  // --overhead-us
    return parse_microseconds(option, s, most_overhead_us, "a time in microseconds: 0, or from 1e-6 to 1e9");
}
inline ridgeline::Seconds parse_link_latency(const std::string& option, const std::string& s) {  // --link-latency-us
    return parse_microseconds(option, s, most_link_latency_us, "a time in microseconds: 0, or from 1e-6 to 1e6");
}
// --link-gb-per-s: a link for devices whose preset has none (PCIe cards), or another one.
inline constexpr double least_link_gb_per_s = 1e-3, most_link_gb_per_s = 1e8;
inline ridgeline::BytesPerSecond parse_link_bandwidth(const std::string& option, const std::string& s) {
    return ridgeline::GB_per_s(parse_number(option, s, least_link_gb_per_s, most_link_gb_per_s, "a bandwidth in GB/s from 0.001 to 1e8"));
}
// speculative's flags, read alike by the CLI and the page.
inline std::int64_t parse_draft_tokens(const std::string& option, const std::string& s) {  // --draft-tokens
    return parse_integer_option(option, s, 1, 1024);
}
inline double parse_acceptance(const std::string& option, const std::string& s) {  // --acceptance
    return parse_number(option, s, 0, 1, "a probability from 0 to 1");
}
inline std::int64_t parse_tree_width(const std::string& option, const std::string& s) {  // --tree-width
    return parse_integer_option(option, s, 1, 1024);
}
inline std::int64_t parse_verify_tokens(const std::string& option, const std::string& s) {  // --verify-tokens: 0, a chain's
    return parse_integer_option(option, s, 0, ridgeline::most_verify_tokens);
}
inline constexpr const char* accept_length_range = "a mean number of tokens from 1 to 1025";  // most_verify_tokens
inline double parse_accept_length(const std::string& option, const std::string& s) {  // --accept-length
    return parse_number(option, s, 1, static_cast<double>(ridgeline::most_verify_tokens), accept_length_range);
}
// What every front end says when given both an acceptance rate and the mean accepted tokens.
inline std::string accept_length_beside_acceptance(const std::string& accept_length, const std::string& acceptance) {
    return "no " + accept_length + " beside " + acceptance + ": give a chain's acceptance rate or the mean tokens a verification accepts";
}
inline std::int64_t parse_draft_tp(const std::string& option, const std::string& s) {  // --draft-tp: 0, the target's degree
    return parse_integer_option(option, s, 0, most_degree);
}
// --draft's word for the target's own multi-token-prediction modules (vLLM's method name), and
// what it expects of a model that has none.
inline constexpr std::string_view mtp_draft = "mtp";
inline std::string without_mtp_modules(const ridgeline::Model& m) {
    // Qwen3-Next's config declares none, yet engines load its MTP module from the checkpoint:
    // the config's count is what ridgeline models, so say that, not that the model has none.
    return "a draft model, or mtp for a model whose config declares MTP modules: '" + echoed(std::string(m.name.view())) +
           "' declares none (num_nextn_predict_layers 0 or absent; a module an engine loads without it is not modelled)";
}
// The speculative row's draft: mtp, the draft's name (a model or an EAGLE-3 head), or none (a
// free draft).
inline std::optional<std::string> draft_named(bool mtp, const std::optional<ridgeline::LoadedDraft>& draft) {
    if (mtp) return std::string(mtp_draft);
    if (draft) return draft->name();
    return std::nullopt;
}

// What a draft was priced in (SpeculativeDecode::draft_precision), as the row's draft_formats
// says it: its storage formats and compute; none for a free draft. A tied table is the LM head
// and is named once, as precision_name names it.
inline std::optional<std::string> draft_formats_named(bool mtp, const std::optional<ridgeline::LoadedDraft>& draft,
                                                      const ridgeline::Model& target, const ridgeline::SpeculativeDecode& r) {
    if (!r.draft_precision) return std::nullopt;
    const bool tied = mtp ? target.tied_embeddings : draft && draft->model && draft->model->model.tied_embeddings;
    return ridgeline::precision_name(*r.draft_precision, tied) + ", compute " + std::string(ridgeline::name_of(r.draft_precision->compute));
}

// The speculative row the front ends print, with the draft's name and formats.
inline ridgeline::SpeculativeRow speculative_row(const ridgeline::Deployment& dep, const ridgeline::Model& m, const ridgeline::Workload& w,
                                                 bool mtp, const std::optional<ridgeline::LoadedDraft>& draft,
                                                 const ridgeline::Speculation& spec, const ridgeline::SpeculativeDecode& r) {
    return {w.batch, w.context, dep.parallel.tensor, draft_named(mtp, draft), spec, r, draft_formats_named(mtp, draft, m, r)};
}

// speculative_decode with whichever draft the front end read (load_draft), or none.
inline ridgeline::SpeculativeDecode speculate(const ridgeline::Deployment& dep, const ridgeline::Model& m, const ridgeline::Workload& w,
                                              const ridgeline::Speculation& s, const std::optional<ridgeline::LoadedDraft>& draft) {
    if (draft && draft->head) return speculative_decode(dep, m, w, s, *draft->head);
    if (draft) return speculative_decode(dep, m, w, s, &draft->model->model, draft->model->precision);  // its checkpoint's formats
    return speculative_decode(dep, m, w, s);
}

// --attention-dp: ranks (1 to 1024), or "tp": one a tensor-parallel device, read as 0.
inline std::int64_t parse_attention_dp(const std::string& option, const std::string& s) {
    if (s == "tp") return 0;
    const auto v = decimal(s);
    if (!v || *v < 1 || *v > most_degree) bad_value(option, s, "an integer from 1 to 1024, or tp (one rank a tensor-parallel device)" + integer_problem(s));
    return *v;
}
inline ridgeline::Bytes parse_reserve(const std::string& option, const std::string& s) {  // --reserve-gib
    return ridgeline::GiB(parse_number(option, s, least_reserve_gib, most_reserve_gib, "a size in GiB: 0, or from 1e-6 to 900000", true));
}

// An option's long name from its CLI11 names: "--hardware" of "--hardware,-H".
inline std::string long_name(std::string_view names) { return std::string(names.substr(0, names.find(','))); }

// The catalogue's "one of (closest first): a, b" as "a hardware preset (closest first: a, b)",
// for an error that names the flag or file the name came from; none for other expectations
// ("a preset in DIR, which has none").
inline std::optional<std::string> presets_listed(std::string_view kind, const std::string& expected) {
    constexpr std::string_view names = "one of (closest first): ";
    if (!expected.starts_with(names)) return std::nullopt;
    return std::string(kind.front() == 'e' ? "an " : "a ") + std::string(kind) + " (closest first: " + expected.substr(names.size()) + ")";
}

// A preset the catalogue could not find, named by the flag that gave it ("--hardware: got
// "h100", expected a hardware preset (closest first: ...) or a JSON file"); empty for the rest.
// show takes either kind by position, and its catalogue error says so. The page words its
// errors as the CLI does, so it calls this too.
inline std::string preset_in_user_terms(const ridgeline::error& e, std::string_view model_flag = "--model",
                                        std::string_view hardware_flag = "--hardware") {
    static const std::pair<std::string_view, std::string_view> kinds[] = {{"hardware preset", "--hardware"},
                                                                          {"model preset", "--model"},
                                                                          {"model or draft-head preset", "--model"},
                                                                          {"efficiency preset", "--calibration"},
                                                                          {"measurement set", "--measurements"}};
    if (!e.file().empty()) return "";
    for (const auto& [kind, flag] : kinds) {
        if (e.path() != kind) continue;
        const std::string_view named = kind.starts_with("model ") ? model_flag : kind == "hardware preset" ? hardware_flag : flag;
        const std::optional<std::string> listed = presets_listed(kind, e.expected());
        return std::string(named) + ": got " + echoed_quoted(e.value()) + ", expected " + (listed ? *listed + " or a JSON file" : e.expected());
    }
    return "";
}

}  // namespace cli
