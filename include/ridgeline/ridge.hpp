// Where decode turns compute-bound: the ridge batch at a context, and the context n* past
// which no batch ever gets there.
#pragma once

#include <optional>
#include <stdexcept>

#include "decode.hpp"

namespace ridgeline {

// The batch at which a step's memory and compute times meet, or "never": at long context
// each added sequence brings more KV time than compute time, so no batch reaches the ridge.
class RidgeBatch {
public:
    static constexpr RidgeBatch never() noexcept { return RidgeBatch{}; }
    static constexpr RidgeBatch at(double batch) noexcept { return RidgeBatch{batch}; }

    [[nodiscard]] constexpr bool is_never() const noexcept { return !exists_; }
    [[nodiscard]] constexpr bool exists() const noexcept { return exists_; }
    // The real-valued crossing; batches above it are compute-bound. Throws if never.
    [[nodiscard]] constexpr double value() const {
        if (!exists_) throw std::logic_error("ridgeline::RidgeBatch::value(): the ridge batch is 'never'");
        return batch_;
    }
    friend constexpr bool operator==(const RidgeBatch&, const RidgeBatch&) = default;

private:
    constexpr RidgeBatch() noexcept = default;
    constexpr explicit RidgeBatch(double b) noexcept : exists_(true), batch_(b) {}
    bool exists_ = false;
    double batch_ = 0;
};

// Memory time W/bw + B*s(n)/bw equals compute time B*f(n)/F at
//     B = (W / bw) / (f(n)/F - s(n)/bw),
// with s(n), f(n) one sequence's bytes and FLOPs; "never" when the denominator is <= 0.
constexpr RidgeBatch ridge_batch(const Hardware& hw, const Model& m, const Workload& w) {
    const StepCost c = step_cost(m, w);
    const FlopsPerSecond peak = hw.require_peak(w.precision.compute);
    const double n = static_cast<double>(w.context);
    const Seconds shared = c.shared_bytes / hw.memory_bandwidth;
    const Seconds sequence_compute = (c.flops_per_token + n * c.attention_flops_per_context_token) / peak;
    const Seconds sequence_memory = (c.per_sequence_bytes + n * c.kv_per_token) / hw.memory_bandwidth;
    if (!(sequence_compute > sequence_memory)) return RidgeBatch::never();
    return RidgeBatch::at(static_cast<double>(shared / (sequence_compute - sequence_memory)));
}

// n*: the context at which one sequence's KV time catches up with its compute time, so the
// ridge batch stops existing. 0 when there is no ridge even at empty context; nullopt when the
// ridge never goes away (no KV, or counted attention FLOPs growing faster than the KV time).
//     n* = (f/F - e/bw) / (k/bw - a/F)
// In the seeds' case (e = a = 0, f = 2P) this is 2P*bw / (F*k), seed 003's
// weight_bytes / (ops:byte * kv) when the weights are BF16. Weight bytes do not enter: the
// ridge batch's numerator holds them, its zero does not. The workload's context is ignored.
constexpr std::optional<double> n_star(const Hardware& hw, const Model& m, const Workload& w) {
    const StepCost c = step_cost(m, w);
    const FlopsPerSecond peak = hw.require_peak(w.precision.compute);
    const Seconds fixed = c.flops_per_token / peak - c.per_sequence_bytes / hw.memory_bandwidth;
    const Seconds growth = c.kv_per_token / hw.memory_bandwidth - c.attention_flops_per_context_token / peak;
    if (!(fixed > Seconds{})) return 0.0;
    if (!(growth > Seconds{})) return std::nullopt;
    return static_cast<double>(fixed / growth);
}

}  // namespace ridgeline
