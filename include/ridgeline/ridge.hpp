// Where decode turns compute-bound: the ridge batch at a context, and the context n* past
// which no batch ever gets there.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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
// Its slope per token of context on the piece that starts at `at`: each of the sequence's
// tokens attends to one more (StepCost::flops), its cache is read once.
constexpr Seconds surplus_slope(const StepCost& c, const Rates& r, double at) {
    return static_cast<double>(c.tokens_per_sequence) * c.attention_growth(at) / r.peak - c.kv_growth(at) / r.bandwidth;
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

// The last batch where a step turns from memory- to compute-bound, interpolated, for a `gap`
// (compute less memory time at a whole batch, negative at 0) that need not be monotone: where
// a step waits for its busiest attention rank (ceil(B / ranks) sequences) it can turn back to
// memory just past a multiple of the ranks, and the experts a batch touches grow unevenly. The
// last crossing: the first period of `ranks` batches whose first batch is compute-bound, by
// doubling and bisection; then the last memory-bound batch before it, scanning back at most a
// period, or after it within eight periods. nullopt where no batch up to 2^40 is compute-bound.
template <class Gap>
constexpr std::optional<double> last_crossing(Gap&& gap, std::int64_t ranks) {
    const auto first_of = [ranks](std::int64_t period) { return period * ranks + 1; };
    std::int64_t lo = -1, hi = 0;  // periods: lo's first batch memory-bound (-1: none), hi's compute-bound
    while (gap(first_of(hi)) < 0) {
        if (first_of(hi) >= (std::int64_t{1} << 40)) return std::nullopt;
        lo = hi;
        hi = hi == 0 ? 1 : 2 * hi;
    }
    while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        (gap(first_of(mid)) >= 0 ? hi : lo) = mid;
    }
    std::int64_t last = first_of(hi) - 1;  // gap(0) < 0: the weights are read whatever the batch
    while (last > 0 && gap(last) >= 0) --last;
    const std::int64_t window = 8 * ranks;
    for (std::int64_t b = last + 1, evaluated = 0; b <= last + window && evaluated < 1'000'000; ++b, ++evaluated)
        if (gap(b) < 0) last = b;
    const double g_last = gap(last), g_next = gap(last + 1);
    return static_cast<double>(last) + (-g_last) / (g_next - g_last);
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
        // more sequence's cache. The ridge is the last crossing (each period's first batch gains
        // on the one before by ranks sequences' surplus, positive here).
        const auto gap = [&](std::int64_t batch) {
            const StepTimes t = step_times(c, r, batch, context);
            return (t.compute - t.memory).in(s);
        };
        // Past any batch the library takes, the mean rank's answer below is as good.
        if (const std::optional<double> b = ridge_detail::last_crossing(gap, c.attention_data)) return RidgeBatch::at(*b);
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

namespace ridge_detail {
// The ridge under a pipeline. A step is paced by its slowest stage, its roofline plus its links
// and fixed times E (decode_step), and is compute-bound where that stage is: where the largest
// compute time + E of any stage reaches the largest memory time + E of any. That can be neither
// stage's own ridge where one stage holds more layers (the most bytes) and another the LM head
// (the most FLOPs): gpt-oss-120b over eight H100s at 1,000 tokens turns compute-bound at 39,768,
// where the stage moving the most bytes at batch 1 does at 9,406; with TP 4 too, a stage with a
// layer more also has more all-reduces, and 99,617 (a review found 38,347 without them). Not
// constexpr (a std::vector, as generation.hpp's steps_over_stages).
inline RidgeBatch pipeline_ridge(const Deployment& d, const Model& m, const Workload& w) {
    require_context_range(w.context);
    const std::vector<StepCost> stages = step_cost_detail::pipeline_stage_costs(m, w, d.parallel);
    const Rates r = effective_rates(d.device, w);
    const auto gap = [&](std::int64_t batch) {
        Workload at = w;
        at.batch = batch;
        Seconds memory{}, compute{};
        for (const StepCost& c : stages) {
            const StepTimes t = step_times(c, r, batch, w.context);
            const Seconds extra = decode_detail::stage_extra(d, m, at, c);
            memory = memory < t.memory + extra ? t.memory + extra : memory;
            compute = compute < t.compute + extra ? t.compute + extra : compute;
        }
        return (compute - memory).in(s);
    };
    if (const std::optional<double> b = last_crossing(gap, d.parallel.attention_data)) return RidgeBatch::at(*b);
    // Past 2^40 batches every expert is touched and every table row read: the gap is a line.
    constexpr std::int64_t far = std::int64_t{1} << 40;
    const double g0 = gap(far), g1 = gap(2 * far);
    if (!(g1 > g0)) return RidgeBatch::never();
    return RidgeBatch::at(static_cast<double>(far) * (1 - g0 / (g1 - g0)));
}
}  // namespace ridge_detail

constexpr RidgeBatch ridge_batch(const Deployment& d, const Model& m, const Workload& w) {
    validate(d, m);
    if (d.parallel.pipeline > 1 && !m.declared_parameters) return ridge_detail::pipeline_ridge(d, m, w);
    return ridge_batch(step_cost(m, w, d.parallel), effective_rates(d.device, w), w.context);
}

namespace ridge_detail {
// Under a pipeline the ridge exists at a context while, at a large enough batch, the stage
// pacing the step is compute-bound (pipeline_ridge): per sequence, the most compute time + link
// time of any stage beats the most memory time + link time of any (the fixed times stay as the
// batch grows, the links' bytes grow with it): S(n) = max_s (F_s(n) + L_s) - max_s (K_s(n) + L_s),
// each stage's F and K its surplus's two sides. Between the stages' corners every F and K is a
// line, so S is linear between the points where two of them cross.
class StageSurplus {
public:
    StageSurplus(std::vector<StepCost> stages, const Rates& r, std::vector<double> links)
        : stages_(std::move(stages)), rates_(r), links_(std::move(links)), f_(stages_.size()), f_slope_(stages_.size()),
          k_(stages_.size()), k_slope_(stages_.size()), in_f_(stages_.size(), 1), in_k_(stages_.size(), 1) {}

    [[nodiscard]] std::size_t size() const noexcept { return stages_.size(); }
    [[nodiscard]] const std::vector<StepCost>& stages() const noexcept { return stages_; }
    // Every stage's lines on the piece that starts at `at`.
    void lines_at(double at) {
        at_ = at;
        for (std::size_t i = 0; i < stages_.size(); ++i) {
            const StepCost& c = stages_[i];
            f_[i] = (c.flops(at) / rates_.peak).in(s) + links_[i];
            f_slope_[i] = (static_cast<double>(c.tokens_per_sequence) * c.attention_growth(at) / rates_.peak).in(s);
            k_[i] = (c.kv_bytes(at) / rates_.bandwidth).in(s) + links_[i];
            k_slope_[i] = (c.kv_growth(at) / rates_.bandwidth).in(s);
        }
    }
    [[nodiscard]] double f(std::size_t i, double n) const noexcept { return f_[i] + f_slope_[i] * (n - at_); }
    [[nodiscard]] double k(std::size_t i, double n) const noexcept { return k_[i] + k_slope_[i] * (n - at_); }
    // S at n on the current piece, over the stages taken for each side.
    [[nodiscard]] double at(double n) const noexcept {
        double most_f = -1e300, most_k = -1e300;
        for (std::size_t i = 0; i < stages_.size(); ++i) {
            if (in_f_[i]) most_f = std::max(most_f, f(i, n));
            if (in_k_[i]) most_k = std::max(most_k, k(i, n));
        }
        return most_f - most_k;
    }
    // S's slope past `n` on the current piece, where no two lines cross again.
    [[nodiscard]] double slope_after(double n) const noexcept {
        const auto lead = [&](const std::vector<double>& v, const std::vector<double>& slope, const std::vector<char>& in) {
            std::size_t best = v.size();
            for (std::size_t i = 0; i < v.size(); ++i) {
                if (!in[i]) continue;
                const double here = v[i] + slope[i] * (n + 1 - at_), there = best < v.size() ? v[best] + slope[best] * (n + 1 - at_) : -1e300;
                if (best == v.size() || here > there || (here == there && slope[i] > slope[best])) best = i;
            }
            return slope[best];
        };
        return lead(f_, f_slope_, in_f_) - lead(k_, k_slope_, in_k_);
    }
    // The last context past `from` where two lines of one side cross (`from` if none).
    [[nodiscard]] double last_crossing_after(double from) const noexcept {
        double last = from;
        each_crossing([&](double x) { last = x > last ? x : last; });
        return last;
    }
    // Where S is positive on [a, b) of the current piece, into `out` (positive_part's terms).
    void scan(double a, double b, Positive& out) {
        points_.assign({a, b});
        each_crossing([&](double x) {
            if (x > a && x < b) points_.push_back(x);
        });
        std::sort(points_.begin(), points_.end());
        for (std::size_t i = 0; i + 1 < points_.size(); ++i) {
            const double x0 = points_[i], x1 = points_[i + 1];
            if (!(x1 > x0)) continue;
            const double v0 = at(x0), v1 = at(x1);
            const Seconds most = s(v0 > v1 ? v0 : v1);
            if (!out.any || most > out.most) out.most = most;
            out.any = true;
            if (v1 > 0) out.last = x1;
            else if (v0 > 0) out.last = x0 + v0 / (v0 - v1) * (x1 - x0);
        }
    }
    // Walks [from, to) piece by piece between every stage's corners, at most a million pieces.
    void walk(double from, double to, Positive& out, std::int64_t& pieces, double chunk) {
        for (double a = from; a < to;) {
            if (++pieces > 1'000'000)
                throw error("", "n*", "more than 1,000,000 pieces of context to walk",
                            "chunked layers whose chunk is not tiny beside the model's windows, over the pipeline's stages (chunk " +
                                std::to_string(static_cast<std::int64_t>(chunk)) + ")");
            double next = next_corner(a);
            if (next < 0 || next > to) next = to;
            lines_at(a);
            scan(a, next, out);
            a = next;
        }
    }
    // The next context past `at` where some stage's lines change (-1: none).
    [[nodiscard]] double next_corner(double at) const noexcept {
        double next = -1;
        for (const StepCost& c : stages_)
            if (const double x = c.next_corner(at); x > at && (next < 0 || x < next)) next = x;
        return next;
    }
    // Which stages each side takes (all by default).
    std::vector<char>& f_side() noexcept { return in_f_; }
    std::vector<char>& k_side() noexcept { return in_k_; }

private:
    // Calls `each` with every context where two lines of one side cross, on the current piece.
    template <class Each>
    void each_crossing(Each&& each) const {
        const auto side = [&](const std::vector<double>& v, const std::vector<double>& slope, const std::vector<char>& in) {
            for (std::size_t i = 0; i < v.size(); ++i)
                for (std::size_t j = i + 1; j < v.size(); ++j)
                    if (in[i] && in[j] && slope[i] != slope[j]) each(at_ + (v[j] - v[i]) / (slope[i] - slope[j]));
        };
        side(f_, f_slope_, in_f_);
        side(k_, k_slope_, in_k_);
    }

    std::vector<StepCost> stages_;
    Rates rates_;
    std::vector<double> links_;  // L_s, seconds a sequence
    double at_ = 0;
    std::vector<double> f_, f_slope_, k_, k_slope_, points_;
    std::vector<char> in_f_, in_k_;
};

// n* under a pipeline, from StageSurplus. Past the last window without chunks every line runs
// on for ever: past their last crossing S is one line. With chunks each stage's F and K grow by
// their own shift a chunk, so the stage with the largest shift leads each side once enough
// chunks have passed (a bound from every pair at the chunk's corners): the chunks before are
// walked, and past it S at a chunk's phase p is A(p) + k D, D the two leaders' shifts' difference.
inline std::optional<double> pipeline_n_star(const Deployment& d, const Model& m, const Workload& w) {
    std::vector<StepCost> stages = step_cost_detail::pipeline_stage_costs(m, w, d.parallel);
    // Each stage's link time a sequence: its links' growth between two large batches.
    std::vector<double> links;
    constexpr std::int64_t large = std::int64_t{1} << 30;
    Workload one = w, two = w;
    one.batch = large;
    two.batch = 2 * large;
    for (const StepCost& c : stages)
        links.push_back(((communication(d, m, two, c).per_stage - communication(d, m, one, c).per_stage) / static_cast<double>(large)).in(s));
    StageSurplus sur(std::move(stages), effective_rates(d.device, w), std::move(links));
    double tail = 0;
    for (const StepCost& c : sur.stages()) tail = std::max(tail, c.last_fixed_corner());
    const auto period = static_cast<double>(attention_chunk(m));
    std::int64_t pieces = 0;
    Positive walked;
    if (period == 0) {
        sur.walk(0, tail, walked, pieces, period);
        sur.lines_at(tail);
        const double end = sur.last_crossing_after(tail);
        if (end > tail) sur.scan(tail, end, walked);
        const double value = sur.at(end), slope = sur.slope_after(end);
        if (slope > 0 || (slope == 0 && value > 0)) return std::nullopt;
        if (value > 0) return end + value / -slope;
        return walked.last < 0 ? 0.0 : walked.last;
    }
    auto whole = static_cast<double>(static_cast<std::int64_t>(tail / period));
    if (whole * period < tail) whole += 1;
    const double start = whole * period;
    // Each stage's shift a chunk, and the leaders of each side: the largest shift.
    const std::size_t P = sur.size();
    std::vector<double> shift_f(P), shift_k(P);
    sur.lines_at(start + period);
    for (std::size_t i = 0; i < P; ++i) shift_f[i] = sur.f(i, start + period), shift_k[i] = sur.k(i, start + period);
    sur.lines_at(start);
    for (std::size_t i = 0; i < P; ++i) shift_f[i] -= sur.f(i, start), shift_k[i] -= sur.k(i, start);
    const double lead_f = *std::max_element(shift_f.begin(), shift_f.end()), lead_k = *std::max_element(shift_k.begin(), shift_k.end());
    const auto leads = [](const std::vector<double>& shift, double lead) {
        std::vector<char> in(shift.size());
        for (std::size_t i = 0; i < shift.size(); ++i) in[i] = shift[i] >= lead - 1e-9 * std::abs(lead);
        return in;
    };
    const std::vector<char> leads_f = leads(shift_f, lead_f), leads_k = leads(shift_k, lead_k);
    // The chunks after which no other stage can be above a leader at any phase: pairwise, at
    // the chunk's corners (each difference is a line between them).
    double settled = 0;
    for (double a = start; a < start + period;) {
        double next = sur.next_corner(a);
        if (next < 0 || next > start + period) next = start + period;
        sur.lines_at(a);
        for (const double n : {a, next})
            for (std::size_t i = 0; i < P; ++i)
                for (std::size_t l = 0; l < P; ++l) {
                    if (!leads_f[i] && leads_f[l] && sur.f(i, n) > sur.f(l, n))
                        settled = std::max(settled, (sur.f(i, n) - sur.f(l, n)) / (shift_f[l] - shift_f[i]));
                    if (!leads_k[i] && leads_k[l] && sur.k(i, n) > sur.k(l, n))
                        settled = std::max(settled, (sur.k(i, n) - sur.k(l, n)) / (shift_k[l] - shift_k[i]));
                }
        a = next;
    }
    const double chunks = static_cast<double>(static_cast<std::int64_t>(std::min(settled, 0x1p40))) + 1;
    sur.walk(0, start + chunks * period, walked, pieces, period);
    // Past those chunks: A(p), the leaders' S in the first chunk, plus k D in chunk k.
    sur.f_side() = leads_f;
    sur.k_side() = leads_k;
    Positive first;
    sur.walk(start, start + period, first, pieces, period);
    const double D = lead_f - lead_k, most = first.most.in(s);
    if (D > 0 || (D == 0 && most > 0)) return std::nullopt;
    if (most > 0) {
        const double ratio = most / -D;
        auto k = static_cast<double>(static_cast<std::int64_t>(ratio < 0x1p62 ? ratio : 0x1p62));
        if (k >= ratio) k -= 1;
        if (k >= chunks) {
            if (start + (k + 1) * period > 0x1p50) return first.last + k * period;
            Positive last;
            sur.walk(start + k * period, start + (k + 1) * period, last, pieces, period);
            return last.last >= 0 ? last.last : first.last + k * period;
        }
    }
    return walked.last < 0 ? 0.0 : walked.last;
}
}  // namespace ridge_detail

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
    if (d.parallel.pipeline > 1 && !m.declared_parameters) return ridge_detail::pipeline_n_star(d, m, w);
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
