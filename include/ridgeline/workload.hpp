// What is being asked of a device: formats, batch, context, and how weights are counted.
#pragma once

#include <cstdint>
#include <string>

#include "error.hpp"
#include "formats.hpp"

namespace ridgeline {

// Storage of weights, storage of the KV cache, and the tensor-core path the math runs on.
// W4A16 reads 4-bit weights and computes in bf16; W8A8 FP8 reads and computes FP8.
struct Precision {
    Format weights = formats::bf16;
    Format kv = formats::bf16;
    Numeric compute = Numeric::bf16;
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

struct Workload {
    Precision precision{};
    std::int64_t batch = 1;       // sequences decoded together in one step
    std::int64_t context = 0;     // tokens already in each sequence's KV cache
    WeightAccounting accounting = WeightAccounting::every_parameter;
    // Add attention-score FLOPs (4 per layer, head and head dimension per cached token) to the
    // compute time. Off by default, as in the seeds' 2P; they matter only near the ridge.
    bool count_attention_flops = false;
};

constexpr void validate(const Workload& w) {
    if (w.batch < 1)
        throw error("", "workload.batch", std::to_string(w.batch), "an integer >= 1");
    if (w.context < 0)
        throw error("", "workload.context", std::to_string(w.context), "an integer >= 0 tokens");
}

}  // namespace ridgeline
