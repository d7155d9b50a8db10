// One decode step: bytes moved, FLOPs done, and which of the two sets the time.
#pragma once

#include <cstdint>
#include <span>
#include <string>

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

// The rates a workload gets: peak bandwidth and peak FLOP/s for its compute format, scaled by
// its efficiency.
struct Rates {
    BytesPerSecond bandwidth{};
    FlopsPerSecond peak{};
};
constexpr Rates effective_rates(const Hardware& hw, const Workload& w) {
    return Rates{hw.memory_bandwidth * w.efficiency.bandwidth, hw.require_peak(w.precision.compute) * w.efficiency.compute};
}

// The memory and compute terms of one device's step, from a precomputed cost: the hot path of
// decode_step, for sweeps that evaluate one model and device at many batches and contexts.
struct StepTimes {
    Seconds memory{};
    Seconds compute{};
    [[nodiscard]] constexpr Seconds roofline() const noexcept { return memory < compute ? compute : memory; }
};
constexpr StepTimes step_times(const StepCost& c, const Rates& r, std::int64_t batch, std::int64_t context) noexcept {
    const auto B = static_cast<double>(batch);
    const auto n = static_cast<double>(context);
    return StepTimes{(c.weight_bytes(batch) + B * c.kv_bytes(n)) / r.bandwidth, B * c.flops(n) / r.peak};
}

// Tokens/s per sequence (the roofline term only) for many batches at one context: the inner
// loop of a sweep. For a dense model the per-batch work is a multiply-add and a division, in a
// loop the compiler vectorises; with routed experts each batch goes through step_times.
constexpr void tokens_per_s_over_batches(const StepCost& c, const Rates& r, std::int64_t context,
                                         std::span<const std::int64_t> batches, std::span<double> out) {
    if (out.size() < batches.size()) throw error("", "out", std::to_string(out.size()) + " slots", "one per batch");
    if (c.has_routed_experts()) {
        for (std::size_t i = 0; i < batches.size(); ++i) out[i] = 1.0 / step_times(c, r, batches[i], context).roofline().in(s);
        return;
    }
    const double bw = r.bandwidth.in(bytes_per_s), peak = r.peak.in(flop_per_s);
    const double fixed = c.fixed_bytes.in(bytes) / bw;
    const double per_sequence = c.sequence_bytes(static_cast<double>(context)).in(bytes) / bw;
    const double compute = c.flops(static_cast<double>(context)).in(flop) / peak;
    for (std::size_t i = 0; i < batches.size(); ++i) {
        const auto b = static_cast<double>(batches[i]);
        const double memory = fixed + b * per_sequence, work = b * compute;
        out[i] = 1.0 / (memory < work ? work : memory);
    }
}

// Time on the device link in one decode step.
struct Communication {
    Seconds per_stage{};       // a stage's tensor-parallel all-reduces
    Seconds pipeline_hops{};   // activations passed between stages, once per token
};

// Two ring all-reduces of the batch's activations per layer, each sending and receiving
// 2 (t-1)/t of the message per device over one direction of the link, plus the per-message
// latency; and p - 1 hops of the activations between pipeline stages.
constexpr Communication communication(const Hardware& hw, const Model& m, const Workload& w, const StepCost& c) {
    Communication out;
    if (c.tensor == 1 && c.pipeline == 1) return out;
    const auto link = w.parallel.link_bandwidth ? w.parallel.link_bandwidth : hw.interconnect_bandwidth;
    if (!link)
        throw error("", "hardware '" + std::string(hw.name.view()) + "' interconnect", "none",
                    "interconnect_GB_per_s in the preset, or Parallelism::link_bandwidth, for tensor or pipeline parallelism");
    const BytesPerSecond one_way = *link / 2.0;
    const Bytes message = static_cast<double>(w.batch * w.tokens_per_sequence * m.hidden_size) *
                          w.parallel.activations.bytes_per_element();
    const auto t = static_cast<double>(c.tensor);
    if (c.tensor > 1) {
        const Seconds all_reduce = w.parallel.link_latency + 2.0 * (t - 1.0) / t * message / one_way;
        out.per_stage = 2.0 * c.layers_per_stage * all_reduce;
    }
    out.pipeline_hops = static_cast<double>(c.pipeline - 1) * (w.parallel.link_latency + message / one_way);
    return out;
}

struct DecodeStep {
    WeightAccounting accounting{};
    std::int64_t batch = 0;
    std::int64_t context = 0;
    std::int64_t devices = 1;     // tensor x pipeline
    // Totals over all devices (tensor-parallel KV replication included).
    Bytes weight_bytes{};         // weights read this step (shared + every sequence's own rows)
    Bytes kv_bytes{};             // all sequences' K and V
    Bytes total_bytes{};
    Bytes bytes_per_device{};     // what one device reads, the memory term
    Flops flops{};                // all sequences, all devices
    Flops attention_flops{};      // reported always; in `flops` only when the workload counts them
    // Times on one device of one stage, then what the link and fixed overheads add per token.
    Seconds memory_time{};
    Seconds compute_time{};
    Seconds communication_time{};  // all stages' all-reduces and the pipeline hops
    Seconds overhead_time{};       // the efficiency's fixed time, once per stage
    Seconds step_time{};           // time per output token of every sequence (TPOT)
    Bound bound = Bound::memory;   // of the memory and compute terms, the larger
    PerSecond tokens_per_s{};        // per sequence
    PerSecond total_tokens_per_s{};  // all sequences (with pipeline p: p micro-batches in flight)
    FlopsPerByte arithmetic_intensity{};
    FlopsPerByte ops_per_byte{};     // the device's, for the compute format, at peak
};

constexpr DecodeStep decode_step(const Hardware& hw, const Model& m, const Workload& w) {
    const StepCost c = step_cost(m, w);
    const Rates rates = effective_rates(hw, w);
    const double B = static_cast<double>(w.batch);
    const double n = static_cast<double>(w.context);
    const auto devices = static_cast<double>(c.tensor * c.pipeline);
    const auto stages = static_cast<double>(c.pipeline);

    DecodeStep d;
    d.accounting = w.accounting;
    d.batch = w.batch;
    d.context = w.context;
    d.devices = c.tensor * c.pipeline;
    const Bytes weights = c.weight_bytes(w.batch);
    const Bytes kv = B * c.kv_bytes(n);
    d.bytes_per_device = weights + kv;
    d.weight_bytes = devices * weights;
    d.kv_bytes = devices * kv;
    d.total_bytes = d.weight_bytes + d.kv_bytes;
    d.attention_flops = B * static_cast<double>(w.tokens_per_sequence) * attention_flops_per_token(m, n);
    const Flops device_flops = B * c.flops(n);
    d.flops = devices * device_flops;
    const StepTimes times = step_times(c, rates, w.batch, w.context);
    d.memory_time = times.memory;
    d.compute_time = times.compute;
    d.bound = d.compute_time > d.memory_time ? Bound::compute : Bound::memory;
    const Communication link = communication(hw, m, w, c);
    d.communication_time = stages * link.per_stage + link.pipeline_hops;
    d.overhead_time = stages * w.efficiency.overhead;
    const Seconds stage_work = d.bound == Bound::compute ? d.compute_time : d.memory_time;
    d.step_time = stages * stage_work + d.communication_time + d.overhead_time;
    d.tokens_per_s = 1.0 / d.step_time;
    d.total_tokens_per_s = stages * B / d.step_time;
    d.arithmetic_intensity = d.flops / d.total_bytes;
    d.ops_per_byte = hw.require_peak(w.precision.compute) / hw.memory_bandwidth;
    return d;
}

// The ideal ceiling (peak rates, no overhead) and the estimate with the workload's efficiency.
struct DecodeEstimate {
    DecodeStep ideal;
    DecodeStep realistic;
};
constexpr DecodeEstimate decode_estimate(const Hardware& hw, const Model& m, const Workload& w) {
    Workload ideal = w;
    ideal.efficiency = Efficiency{};
    return DecodeEstimate{decode_step(hw, m, ideal), decode_step(hw, m, w)};
}

// Seed 002's scaling-book form, memory-bound only, one device:
//     max tokens/s = B * bandwidth / (B * kv_bytes_per_sequence + param_bytes)
constexpr PerSecond scaling_book_tokens_per_s(const Hardware& hw, const Model& m, const Workload& w) {
    const StepCost c = step_cost(m, w);
    const double B = static_cast<double>(w.batch);
    return B * hw.memory_bandwidth / (B * c.kv_bytes(static_cast<double>(w.context)) + c.weight_bytes(w.batch));
}

}  // namespace ridgeline
