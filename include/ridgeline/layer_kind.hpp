// What every layer kind answers, in one vocabulary. A kind lists its weights by name and by
// part (the model sums them into a breakdown, the operator table prints them), the context it
// reads (per cached token, with the FLOPs of attending to it) and the bytes it caches per token,
// the fixed state it keeps per sequence, its activation width, how tensor parallelism splits it,
// each linear layer's inputs and the devices they are split over (row_inputs, for formats grouped
// along a row: row_groups.hpp), and what makes it invalid.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include "formats.hpp"

namespace ridgeline {

// Where a weight sits in the parameter breakdown.
enum class Part { attention, dense_mlp, experts, shared_experts, router };

// One stream of cached context a layer reads each step, per sequence, on one of t devices.
struct ContextRead {
    double elements_per_token = 0;  // cached elements read per attended token (this device's share)
    double decode_flops = 0;        // per attended cached token, as decode kernels do it (this device)
    double prefill_flops = 0;       // per (query, cached token) pair, as prefill kernels do it
    double prefix_flops = 0;        // per token cached by earlier prefill chunks, redone by a later one
    std::int64_t cap = 0;           // reads at most this many cached tokens (a top-k); 0: all it keeps
    const char* name = "attention over the KV cache";
    std::optional<Format> format{};  // the stream's own storage format; none: the workload's KV format
    // Bytes per attended token where the KV format is FP8 and the stream lays FP8 out its own way
    // (scales beside the values, a part kept in 16 bits); none: its elements in FP8.
    std::optional<double> fp8_bytes_per_token{};

    // Bytes per attended token, in its own format or else the KV format.
    [[nodiscard]] constexpr double bytes_per_token(Format kv) const {
        if (!format && fp8_bytes_per_token && kv == formats::fp8) return *fp8_bytes_per_token;
        return elements_per_token * (format ? *format : kv).bytes_per_element().in(bytes);
    }
};

// A routed-expert pool, for the costs that depend on which experts a batch touches.
struct RoutedExperts {
    std::int64_t experts = 0;  // 0: the kind has none
    std::int64_t per_token = 0;
    double parameters_per_expert = 0;
};

namespace layer_detail {
constexpr double gated_mlp(double h, double intermediate) { return 3 * h * intermediate; }
constexpr double d(std::int64_t v) { return static_cast<double>(v); }
// `check(field, value, expected)` reports a bad field; the model supplies it.
// Widths, heads and expert counts past this are not models; the bound keeps every product of
// two sizes inside int64, and each field is checked against it by name.
inline constexpr std::int64_t max_dimension = std::int64_t{1} << 24;
template <class Check>
constexpr void positive(Check& check, std::int64_t v, const char* field) {
    if (v <= 0) check(field, std::to_string(v), "a positive integer");
    if (v > max_dimension) check(field, std::to_string(v), "at most " + std::to_string(max_dimension));
}
template <class Check>
constexpr void non_negative(Check& check, std::int64_t v, const char* field) {
    if (v < 0) check(field, std::to_string(v), "an integer >= 0");
    if (v > max_dimension) check(field, std::to_string(v), "at most " + std::to_string(max_dimension));
}
constexpr std::int64_t widest_of(std::initializer_list<std::int64_t> values) {
    std::int64_t w = 0;
    for (const std::int64_t v : values) w = v > w ? v : w;
    return w;
}
// Sums a kind's weights, whole or as held by one of t devices.
template <class Kind>
constexpr double sum_weights(const Kind& k, double h, std::int64_t t, bool per_device) {
    double sum = 0;
    k.weights(h, t, [&](const char*, Part, double whole, double share) { sum += per_device ? share : whole; });
    return sum;
}
}  // namespace layer_detail

// A layer kind's parameters, and what one of t tensor-parallel devices holds of them.
template <class Kind>
constexpr double kind_parameters(const Kind& k, double hidden) { return layer_detail::sum_weights(k, hidden, 1, false); }
template <class Kind>
constexpr double kind_parameters_per_device(const Kind& k, double hidden, std::int64_t t) {
    return layer_detail::sum_weights(k, hidden, t, true);
}

}  // namespace ridgeline
