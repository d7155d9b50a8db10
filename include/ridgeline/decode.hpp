// One decode step: bytes moved, FLOPs done, and which of the two sets the time.
#pragma once

#include <cstdint>

#include "hardware.hpp"
#include "step_cost.hpp"

namespace ridgeline {

enum class Bound : std::uint8_t { memory, compute };

constexpr const char* name_of(Bound b) noexcept { return b == Bound::memory ? "memory" : "compute"; }

// The roofline for one piece of work: it takes as long as the slower of its memory traffic
// and its arithmetic, which overlap.
constexpr Seconds roofline_time(Bytes moved, Flops work, BytesPerSecond bandwidth, FlopsPerSecond peak) {
    const Seconds memory = moved / bandwidth;
    const Seconds compute = work / peak;
    return memory < compute ? compute : memory;
}

struct DecodeStep {
    WeightAccounting accounting{};
    std::int64_t batch = 0;
    std::int64_t context = 0;
    Bytes weight_bytes{};     // weights read this step (shared + every sequence's own rows)
    Bytes kv_bytes{};         // all sequences' K and V
    Bytes total_bytes{};
    Flops flops{};            // all sequences
    Flops attention_flops{};  // reported always; in `flops` only when the workload counts them
    Seconds memory_time{};
    Seconds compute_time{};
    Seconds step_time{};      // the time per output token of every sequence (TPOT)
    Bound bound = Bound::memory;
    PerSecond tokens_per_s{};        // per sequence
    PerSecond total_tokens_per_s{};  // all sequences
    FlopsPerByte arithmetic_intensity{};
    FlopsPerByte ops_per_byte{};     // the device's, for the compute format
};

constexpr DecodeStep decode_step(const Hardware& hw, const Model& m, const Workload& w) {
    const StepCost c = step_cost(m, w);
    const FlopsPerSecond peak = hw.require_peak(w.precision.compute);
    const double B = static_cast<double>(w.batch);
    const double n = static_cast<double>(w.context);

    DecodeStep d;
    d.accounting = w.accounting;
    d.batch = w.batch;
    d.context = w.context;
    d.weight_bytes = c.weight_bytes(w.batch);
    d.kv_bytes = B * c.kv_bytes(n);
    d.total_bytes = d.weight_bytes + d.kv_bytes;
    d.attention_flops = B * attention_flops_per_token(m, n);
    d.flops = B * c.flops(n);
    d.memory_time = d.total_bytes / hw.memory_bandwidth;
    d.compute_time = d.flops / peak;
    d.bound = d.compute_time > d.memory_time ? Bound::compute : Bound::memory;
    d.step_time = d.bound == Bound::compute ? d.compute_time : d.memory_time;
    d.tokens_per_s = 1.0 / d.step_time;
    d.total_tokens_per_s = B / d.step_time;
    d.arithmetic_intensity = d.flops / d.total_bytes;
    d.ops_per_byte = peak / hw.memory_bandwidth;
    return d;
}

// Seed 002's scaling-book form, memory-bound only:
//     max tokens/s = B * bandwidth / (B * kv_bytes_per_sequence + param_bytes)
constexpr PerSecond scaling_book_tokens_per_s(const Hardware& hw, const Model& m, const Workload& w) {
    const StepCost c = step_cost(m, w);
    const double B = static_cast<double>(w.batch);
    return B * hw.memory_bandwidth / (B * c.kv_bytes(static_cast<double>(w.context)) + c.weight_bytes(w.batch));
}

}  // namespace ridgeline
