// What is being asked of a device: formats, batch, context, and how weights are counted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "error.hpp"
#include "formats.hpp"
#include "units.hpp"

namespace ridgeline {

// Storage of weights, storage of the KV cache, and the tensor-core path the math runs on.
// W4A16 reads 4-bit weights and computes in bf16; W8A8 FP8 reads and computes FP8.
// Quantized checkpoints often keep some tensors wider: gpt-fast's int8/int4 keep the input
// embedding table in bf16; gpt-oss stores only its routed experts in MXFP4. `embeddings` (the
// input table, and the LM head when tied to it) and `experts` (routed experts) override
// `weights` for those tensors.
struct Precision {
    Format weights = formats::bf16;
    Format kv = formats::bf16;
    Numeric compute = Numeric::bf16;
    std::optional<Format> embeddings{};
    std::optional<Format> experts{};

    [[nodiscard]] constexpr Format embedding_format() const noexcept { return embeddings ? *embeddings : weights; }
    [[nodiscard]] constexpr Format expert_format() const noexcept { return experts ? *experts : weights; }
    friend constexpr bool operator==(const Precision&, const Precision&) = default;
};

namespace precisions {
inline constexpr Precision bf16{};
inline constexpr Precision w8a16_fp8{formats::fp8, formats::bf16, Numeric::bf16};
inline constexpr Precision w8a8_fp8{formats::fp8, formats::bf16, Numeric::fp8};
inline constexpr Precision w4a16_int4{formats::int4, formats::bf16, Numeric::bf16};
}  // namespace precisions

// Which weights a decode step is charged for.
//  - every_parameter: all P parameters once, the input embedding table included. The seeds'
//    budgets and most published tok/s ceilings use this. The default.
//  - bytes_read: what a step really reads: one row of the input embedding table per sequence
//    (all of it only when tied to the LM head, which reads it in full anyway), every other
//    weight once.
enum class WeightAccounting : std::uint8_t { every_parameter, bytes_read };

constexpr const char* name_of(WeightAccounting a) noexcept {
    return a == WeightAccounting::every_parameter ? "every parameter" : "bytes read";
}

// How a model is spread over devices.
//  - tensor t: every weight matrix split over t devices, KV heads too (replicated when t exceeds
//    them; MLA's latent cache is replicated), with two all-reduces of the activations per layer;
//  - pipeline p: the layers split into p stages, one device group each; a token crosses them in
//    turn, so batch-1 latency does not improve, while p micro-batches in flight multiply throughput;
//  - expert e: routed experts spread whole over e of the tensor-parallel devices (e divides t);
//    in expectation each device reads its share of the touched experts, as when sliced.
struct Parallelism {
    std::int64_t tensor = 1;
    std::int64_t pipeline = 1;
    std::int64_t expert = 1;
    // The device link, per device, both directions together; unset: the hardware preset's.
    std::optional<BytesPerSecond> link_bandwidth{};
    Seconds link_latency{};  // per message (each all-reduce, each pipeline hop)
    Format activations = formats::bf16;  // what crosses the link

    [[nodiscard]] constexpr std::int64_t devices() const noexcept { return tensor * pipeline; }
    friend constexpr bool operator==(const Parallelism&, const Parallelism&) = default;
};

// What a real deployment gets of the peaks: fractions of peak bandwidth and FLOP/s, and a fixed
// time per step (launches, sampling, scheduling). 1, 1, 0 is the ideal ceiling.
struct Efficiency {
    double bandwidth = 1.0;
    double compute = 1.0;
    Seconds overhead{};
    [[nodiscard]] constexpr bool is_ideal() const noexcept { return bandwidth == 1.0 && compute == 1.0 && overhead == Seconds{}; }
    friend constexpr bool operator==(const Efficiency&, const Efficiency&) = default;
};

struct Workload {
    Precision precision{};
    std::int64_t batch = 1;       // sequences decoded together in one step (per pipeline micro-batch)
    std::int64_t context = 0;     // tokens already in each sequence's KV cache
    WeightAccounting accounting = WeightAccounting::every_parameter;
    // Add attention-score FLOPs (4 per layer, head and head dimension per cached token) to the
    // compute time. Off by default, as in the seeds' 2P; they matter only near the ridge.
    bool count_attention_flops = false;
    // Tokens each sequence pushes through the model in this step: 1 when decoding, g + 1 when
    // verifying g drafted tokens. The weights and the cached KV are still read once.
    std::int64_t tokens_per_sequence = 1;
    Parallelism parallel{};
    Efficiency efficiency{};
};

constexpr void validate(const Workload& w) {
    if (w.batch < 1)
        throw error("", "workload.batch", std::to_string(w.batch), "an integer >= 1");
    if (w.context < 0)
        throw error("", "workload.context", std::to_string(w.context), "an integer >= 0 tokens");
    if (w.tokens_per_sequence < 1)
        throw error("", "workload.tokens_per_sequence", std::to_string(w.tokens_per_sequence), "an integer >= 1");
    const Parallelism& p = w.parallel;
    if (p.tensor < 1) throw error("", "workload.parallel.tensor", std::to_string(p.tensor), "an integer >= 1");
    if (p.pipeline < 1) throw error("", "workload.parallel.pipeline", std::to_string(p.pipeline), "an integer >= 1");
    if (p.expert < 1 || p.tensor % p.expert != 0)
        throw error("", "workload.parallel.expert", std::to_string(p.expert),
                    "an integer >= 1 dividing the tensor-parallel degree (" + std::to_string(p.tensor) + ")");
    if (p.link_bandwidth && !(*p.link_bandwidth > BytesPerSecond{} && is_finite(*p.link_bandwidth)))
        throw error("", "workload.parallel.link_bandwidth", std::to_string(p.link_bandwidth->in(GB_per_s)) + " GB/s",
                    "a positive, finite bandwidth");
    if (!(p.link_latency >= Seconds{}) || !is_finite(p.link_latency))
        throw error("", "workload.parallel.link_latency", std::to_string(p.link_latency.in(us)) + " us", "a finite time >= 0");
    const Efficiency& e = w.efficiency;
    if (!(e.bandwidth > 0 && e.bandwidth <= 1))
        throw error("", "workload.efficiency.bandwidth", std::to_string(e.bandwidth), "a fraction in (0, 1]");
    if (!(e.compute > 0 && e.compute <= 1))
        throw error("", "workload.efficiency.compute", std::to_string(e.compute), "a fraction in (0, 1]");
    if (!(e.overhead >= Seconds{}) || !is_finite(e.overhead))
        throw error("", "workload.efficiency.overhead", std::to_string(e.overhead.in(us)) + " us", "a finite time >= 0");
}

}  // namespace ridgeline
