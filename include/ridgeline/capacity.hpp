// What fits under a deployment: the largest batch at a context, the longest context at a
// batch, by the same per-device memory (memory.hpp) that every step result reports. "Does not
// fit" is a result, never a negative number.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>

#include "deployment.hpp"
#include "memory.hpp"

namespace ridgeline {

// The most sequences of `context` tokens one replica holds: every device's weights, each
// sequence's KV (a windowed layer holds at most its window) and the activation workspace of the
// step's tokens within the budget (memory.hpp). nullopt when not even one sequence fits.
// `w`'s batch and context are ignored; its formats and assumptions are used.
constexpr std::optional<std::int64_t> largest_batch(const Deployment& d, const Model& m, const Workload& w,
                                                    std::int64_t context) {
    if (context < 1 || context > max_context) throw error("", "context", std::to_string(context), "an integer from 1 to 2^40 tokens");
    require_context_within(m, context, "context");
    Workload single = w;
    single.batch = 1;
    single.context = context;
    if (!memory_use(d, m, single).fits()) return std::nullopt;
    // Each pipeline stage holds its own layers' weights and cache: the batch is the fewest any
    // stage holds.
    std::int64_t most = max_batch;
    for (std::int64_t s = 0; s < d.parallel.pipeline; ++s) {
        const MemoryUse base = memory_detail::stage_use(d, m, single, s);  // memory_use checked the arguments
        // Under attention data parallelism a device holds the KV of its rank's sequences only: on
        // average a 1/ranks share of each (the settling below finds the busiest rank's whole count).
        const Bytes average = base.kv / static_cast<double>(d.parallel.attention_data) + base.activations;
        const double batch = static_cast<double>((base.budget - base.weights) / average);
        if (batch < static_cast<double>(most)) most = batch < 1 ? 1 : static_cast<std::int64_t>(batch);
    }
    // The division can round across a whole number: settle on the batch memory_use agrees fits.
    const auto fits = [&](std::int64_t b) {
        single.batch = b;
        return memory_use(d, m, single).fits();
    };
    while (most > 1 && !fits(most)) --most;
    while (most < max_batch && fits(most + 1)) ++most;
    return most;
}

// The longest context a batch can hold: a number of tokens, "does not fit" (not one token
// each), or "unbounded" (every layer windowed, so a sequence's KV stops growing). A model's own
// limit (max_context) caps it.
class ContextFit {
public:
    static constexpr ContextFit does_not_fit() noexcept { return ContextFit{state::none, 0}; }
    static constexpr ContextFit unbounded() noexcept { return ContextFit{state::unbounded, 0}; }
    static constexpr ContextFit up_to(std::int64_t tokens) noexcept { return ContextFit{state::limited, tokens}; }

    [[nodiscard]] constexpr bool fits() const noexcept { return state_ != state::none; }
    [[nodiscard]] constexpr bool is_unbounded() const noexcept { return state_ == state::unbounded; }
    // The token count; throws unless the fit is a number.
    [[nodiscard]] constexpr std::int64_t tokens() const {
        if (state_ != state::limited) throw std::logic_error("ridgeline::ContextFit::tokens(): no finite context");
        return tokens_;
    }
    friend constexpr bool operator==(const ContextFit&, const ContextFit&) = default;

private:
    enum class state { none, limited, unbounded };
    constexpr ContextFit(state s, std::int64_t t) noexcept : state_(s), tokens_(t) {}
    state state_;
    std::int64_t tokens_;
};

constexpr ContextFit longest_context(const Deployment& d, const Model& m, const Workload& w, std::int64_t batch) {
    if (batch < 1 || batch > max_batch) throw error("", "batch", std::to_string(batch), "an integer from 1 to 2^40");
    Workload at = w;
    at.batch = batch;
    const auto fits = [&](std::int64_t n) {
        at.context = n;
        return memory_use(d, m, at).fits();
    };
    if (!fits(1)) return ContextFit::does_not_fit();
    // Full-attention layers grow without bound. Where every layer keeps at most a window or
    // chunk, nothing grows past the widest one: a batch that fits there fits at any context,
    // and one that does not is searched for below it like any other.
    bool grows = false;
    std::int64_t widest = 0;
    for (const auto& g : m) {
        const Reach r = g.spec.reach();
        grows = grows || r.tokens == 0;
        widest = r.tokens > widest ? r.tokens : widest;
    }
    if (m.max_context > 0 && fits(m.max_context)) return ContextFit::up_to(m.max_context);
    if (!grows && fits(widest)) return ContextFit::unbounded();
    std::int64_t lo = 1, hi = 2;
    while (hi < max_context && fits(hi)) lo = hi, hi *= 2;
    if (hi >= max_context && fits(max_context)) return ContextFit::up_to(max_context);
    while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return ContextFit::up_to(lo);
}

}  // namespace ridgeline
