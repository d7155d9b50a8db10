// Where decode turns compute-bound: the ridge batch at a context, and the context n* past
// which no batch ever gets there.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

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
// One sequence's compute time minus its memory time at `context`, its embedding rows aside:
// what each added sequence brings to the compute side once the batch's tokens outnumber the
// table's rows (StepCost::row_bytes), so the ridge exists while this is positive.
constexpr Seconds surplus(const StepCost& c, const Rates& r, double context) {
    return c.flops(context) / r.peak - c.kv_bytes(context) / r.bandwidth;
}
// Its slope per token of context on the piece that starts at `at`.
constexpr Seconds surplus_slope(const StepCost& c, const Rates& r, double at) {
    return c.attention_growth(at) / r.peak - c.kv_growth(at) / r.bandwidth;
}

// Where the surplus is positive on [from, to), walked piece by piece between the corners
// (linear on each, restarting where a chunk does): the last context it is positive at (-1:
// nowhere) and the most it reaches. At most a million pieces in all, counted in `pieces`.
struct Positive {
    double last = -1;
    Seconds most{};
    bool any = false;
};
constexpr Positive positive_part(const StepCost& c, const Rates& r, double from, double to, std::int64_t& pieces) {
    Positive out;
    for (double at = from; at < to;) {
        if (++pieces > 1'000'000)
            throw error("", "n*", "more than 1,000,000 pieces of context to walk",
                        "chunked layers whose chunk is not tiny beside the model's windows (chunk " +
                            std::to_string(static_cast<std::int64_t>(c.chunk_period())) + ", widest window " +
                            std::to_string(static_cast<std::int64_t>(c.last_fixed_corner())) + ")");
        double next = c.next_corner(at);
        if (next < 0 || next > to) next = to;
        const Seconds value = surplus(c, r, at), slope = surplus_slope(c, r, at);
        const Seconds end = value + (next - at) * slope;  // the limit at the piece's end
        const Seconds most = value > end ? value : end;
        if (!out.any || most > out.most) out.most = most;
        out.any = true;
        if (end > Seconds{}) out.last = next;
        else if (value > Seconds{}) out.last = at + static_cast<double>(value / -slope);
        at = next;
    }
    return out;
}
}  // namespace ridge_detail

// The batch where memory time equals compute time:
//     (fixed + routed(B) + rows(B)) / bw + B * s(n) / bw = (B * f(n) + imbalance(B)) / F
// Dense: B = (fixed / bw) / (f(n)/F - s(n)/bw). With routed experts, the expert bytes grow with
// B (concave), so the crossing is found by bisection over whole batches and interpolated
// between the two batches around it. "Never" when f(n)/F <= s(n)/bw.
// This form takes a precomputed cost and rates, for sweeps; the next takes the setting.
constexpr RidgeBatch ridge_batch(const StepCost& c, const Rates& r, std::int64_t context) {
    require_context_range(context);
    const Seconds rowless = ridge_detail::surplus(c, r, static_cast<double>(context));
    if (!(rowless > Seconds{})) return RidgeBatch::never();
    // Below the table's rows each sequence also reads its own embedding rows; past them the
    // rows read stop growing (StepCost::row_bytes), and the whole table joins the shared bytes.
    const auto tokens = static_cast<double>(c.tokens_per_sequence);
    const Seconds per_sequence = rowless - tokens * c.per_sequence_bytes / r.bandwidth;
    const Bytes table = c.row_bytes(c.embedding_rows);
    if (c.attention_data > 1) {
        // The step waits for the busiest attention rank, ceil(B / ranks) sequences, so the mean
        // rank's crossing can be batches off (DeepSeek-V3 over 8 ranks, 8 tokens a sequence at
        // 4,096: 139.45 where 137 is already compute-bound), and the step's own bound can turn
        // back to memory just past a multiple of the ranks, where every busiest rank takes one
        // more sequence's cache. The ridge is the last crossing: the first period of `ranks`
        // batches whose first batch is compute-bound (each period's first gains on the one
        // before by ranks sequences' surplus, positive here), by doubling and bisection; then the
        // last memory-bound batch before it, scanning back at most a period, or after it within
        // eight periods; interpolated.
        const std::int64_t ranks = c.attention_data;
        const auto gap = [&](std::int64_t batch) {
            const StepTimes t = step_times(c, r, batch, context);
            return (t.compute - t.memory).in(s);
        };
        const auto first_of = [ranks](std::int64_t period) { return period * ranks + 1; };
        std::int64_t lo = -1, hi = 0;  // periods: lo's first batch memory-bound (-1: none), hi's compute-bound
        bool found = true;
        while (gap(first_of(hi)) < 0) {
            if (first_of(hi) >= (std::int64_t{1} << 40)) {
                found = false;  // past any batch the library takes: the mean rank's answer below is as good
                break;
            }
            lo = hi;
            hi = hi == 0 ? 1 : 2 * hi;
        }
        if (found) {
            while (hi - lo > 1) {
                const std::int64_t mid = lo + (hi - lo) / 2;
                (gap(first_of(mid)) >= 0 ? hi : lo) = mid;
            }
            std::int64_t last = first_of(hi) - 1;  // gap(0) < 0: the weights are read whatever the batch
            while (last > 0 && gap(last) >= 0) --last;
            // The experts a batch touches and the busiest group's share do not grow evenly either:
            // the ridge is a memory-bound batch followed by eight periods of compute-bound ones.
            const std::int64_t window = 8 * ranks;
            for (std::int64_t b = last + 1, evaluated = 0; b <= last + window && evaluated < 1'000'000; ++b, ++evaluated)
                if (gap(b) < 0) last = b;
            const double g_last = gap(last), g_next = gap(last + 1);
            return RidgeBatch::at(static_cast<double>(last) + (-g_last) / (g_next - g_last));
        }
    }
    if (!c.has_routed_experts()) {
        if (per_sequence > Seconds{}) {
            const double b = static_cast<double>((c.fixed_bytes / r.bandwidth) / per_sequence);
            if (c.embedding_rows == 0 || b * tokens <= c.embedding_rows) return RidgeBatch::at(b);
        }
        return RidgeBatch::at(static_cast<double>(((c.fixed_bytes + table) / r.bandwidth) / rowless));
    }

    // gap(B) = B * surplus - shared weight time + the busiest expert group's extra FLOPs' time
    // (StepCost::routed_imbalance_flops): negative at 0, positive past `upper`, where it is at
    // least B * surplus less every shared byte.
    const auto gap = [&](std::int64_t batch) {
        const auto b = static_cast<double>(batch);
        const std::int64_t routed_tokens = batch * c.tokens_per_sequence;
        return (b * rowless - (c.fixed_bytes + c.routed_bytes(routed_tokens) + c.row_bytes(b * tokens)) / r.bandwidth +
                c.routed_imbalance_flops(routed_tokens) / r.peak)
            .in(s);
    };
    const double upper = static_cast<double>(((c.fixed_bytes + c.all_routed_bytes() + table) / r.bandwidth) / rowless);
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

// n*: the context past which one sequence's memory time stays above its compute time, so the
// ridge batch no longer exists at any batch. 0 when there is no ridge at any context; nullopt
// when the ridge never goes away (no KV growth, every layer windowed or chunked, or counted
// attention FLOPs growing faster than the KV time). In the seeds' case (one dense group, no
// window, attention FLOPs not counted) this is 2P * bw / (F * kv), seed 003's
// weight_bytes / (ops:byte * kv) when the weights are BF16. Weight bytes do not enter: they sit
// in the ridge batch's numerator, not in its zero. Routed experts do not either: a large batch
// touches them all. The workload's own context is ignored.
//
// The surplus (compute less memory time per sequence) is linear between corners: a window
// filling, a chunk starting, where the chunked layers' read restarts. Past the last window it
// repeats every chunk, shifted by the full layers' growth, so n* is found in the last chunk
// whose surplus still turns positive, not by walking every chunk.
constexpr std::optional<double> n_star(const Deployment& d, const Model& m, const Workload& w) {
    using ridge_detail::positive_part;
    validate(d, m);
    const StepCost c = step_cost(m, w, d.parallel);
    const Rates r = effective_rates(d.device, w);
    std::int64_t pieces = 0;
    const double tail = c.last_fixed_corner(), period = c.chunk_period();
    if (period == 0) {
        // Past the last window the surplus is one line: positive for good, or its root.
        const ridge_detail::Positive before = positive_part(c, r, 0, tail, pieces);
        const Seconds value = ridge_detail::surplus(c, r, tail), slope = ridge_detail::surplus_slope(c, r, tail);
        if (slope > Seconds{} || (slope == Seconds{} && value > Seconds{})) return std::nullopt;
        if (value > Seconds{}) return tail + static_cast<double>(value / -slope);
        return before.last < 0 ? 0.0 : before.last;
    }
    // The first chunk boundary at or past the last window; from there every chunk is the one
    // before it plus `shift`.
    auto whole = static_cast<double>(static_cast<std::int64_t>(tail / period));
    if (whole * period < tail) whole += 1;
    const double start = whole * period;
    const ridge_detail::Positive before = positive_part(c, r, 0, start, pieces);
    const ridge_detail::Positive first = positive_part(c, r, start, start + period, pieces);
    const Seconds shift = ridge_detail::surplus(c, r, start + period) - ridge_detail::surplus(c, r, start);
    if (shift > Seconds{}) return std::nullopt;
    if (!(first.most > Seconds{})) return before.last < 0 ? 0.0 : before.last;
    if (!(shift < Seconds{})) return std::nullopt;  // a positive stretch in every chunk, for ever
    // The last chunk k whose most is still positive: first.most + k * shift > 0.
    const double ratio = static_cast<double>(first.most / -shift);
    auto k = static_cast<double>(static_cast<std::int64_t>(ratio < 0x1p62 ? ratio : 0x1p62));
    if (k >= ratio) k -= 1;
    if (k < 1) return first.last;
    // Past 2^50 tokens (no model's context) the chunk's own stretch, shifted, is close enough.
    if (start + (k + 1) * period > 0x1p50) return first.last + k * period;
    const ridge_detail::Positive last = positive_part(c, r, start + k * period, start + (k + 1) * period, pieces);
    return last.last >= 0 ? last.last : first.last + k * period;
}

}  // namespace ridgeline
