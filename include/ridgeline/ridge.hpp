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

namespace ridge_detail {
// One sequence's compute time minus its memory time at `context`: what each added sequence
// brings to the compute side. The ridge exists while this is positive.
constexpr Seconds surplus(const StepCost& c, const Rates& r, double context) {
    return c.flops(context) / r.peak - c.sequence_bytes(context) / r.bandwidth;
}
}  // namespace ridge_detail

// The batch where memory time equals compute time:
//     (fixed + routed(B)) / bw + B * s(n) / bw = B * f(n) / F
// Dense: B = (fixed / bw) / (f(n)/F - s(n)/bw). With routed experts, the expert bytes grow with
// B (concave), so the crossing is found by bisection over whole batches and interpolated
// between the two batches around it. "Never" when f(n)/F <= s(n)/bw.
// This form takes a precomputed cost and rates, for sweeps; the next takes the setting.
constexpr RidgeBatch ridge_batch(const StepCost& c, const Rates& r, std::int64_t context) {
    const Seconds per_sequence = ridge_detail::surplus(c, r, static_cast<double>(context));
    if (!(per_sequence > Seconds{})) return RidgeBatch::never();
    if (!c.has_routed_experts()) return RidgeBatch::at(static_cast<double>((c.fixed_bytes / r.bandwidth) / per_sequence));

    // gap(B) = B * surplus - shared weight time: convex, negative at 0, positive past `upper`.
    const auto gap = [&](std::int64_t batch) {
        return (static_cast<double>(batch) * per_sequence - (c.fixed_bytes + c.routed_bytes(batch * c.tokens_per_sequence)) / r.bandwidth).in(s);
    };
    const double upper = static_cast<double>(((c.fixed_bytes + c.all_routed_bytes()) / r.bandwidth) / per_sequence);
    if (upper > 1e15) return RidgeBatch::at(upper);  // experts all touched long before; gap is linear
    std::int64_t lo = 0, hi = static_cast<std::int64_t>(upper) + 1;
    while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        (gap(mid) >= 0 ? hi : lo) = mid;
    }
    const double g_lo = gap(lo), g_hi = gap(hi);
    return RidgeBatch::at(static_cast<double>(lo) + (-g_lo) / (g_hi - g_lo));
}

constexpr RidgeBatch ridge_batch(const Deployment& d, const Model& m, const Workload& w) {
    validate(d, m);
    return ridge_batch(step_cost(m, w, d.parallel), effective_rates(d.device, w), w.context);
}

// n*: the context at which one sequence's memory time catches up with its compute time, so the
// ridge batch stops existing. 0 when there is no ridge even at empty context; nullopt when the
// ridge never goes away (no KV growth, every layer windowed, or counted attention FLOPs growing
// faster than the KV time). In the seeds' case (one dense group, no window, attention FLOPs
// not counted) this is 2P * bw / (F * kv), seed 003's weight_bytes / (ops:byte * kv) when the
// weights are BF16. Weight bytes do not enter: they sit in the ridge batch's numerator, not in
// its zero. Routed experts do not either: a large batch touches them all. The workload's own
// context is ignored.
constexpr std::optional<double> n_star(const Deployment& d, const Model& m, const Workload& w) {
    validate(d, m);
    const StepCost c = step_cost(m, w, d.parallel);
    const Rates r = effective_rates(d.device, w);
    // surplus(n) is piecewise linear with corners at the windows; walk the pieces in order.
    double at = 0;
    Seconds value = ridge_detail::surplus(c, r, 0.0);
    if (!(value > Seconds{})) return 0.0;
    for (;;) {
        double next = -1;  // the next window corner past `at`, or none
        for (std::size_t i = 0; i < c.context_count; ++i) {
            const auto win = static_cast<double>(c.context_terms[i].window);
            if (win > at && (next < 0 || win < next)) next = win;
        }
        // Slope of the surplus per token of context on this piece.
        const Seconds slope = c.attention_growth(at) / r.peak - c.kv_growth(at) / r.bandwidth;
        if (slope < Seconds{}) {
            const double root = at + static_cast<double>(value / -slope);
            if (next < 0 || root <= next) return root;
        }
        if (next < 0) return std::nullopt;  // the surplus never reaches zero
        value += (next - at) * slope;
        at = next;
    }
}

}  // namespace ridgeline
