// What fits in device memory beside the weights: KV tokens, the largest batch at a context,
// the longest context at a batch. "Does not fit" is a result, never a negative number.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>

#include "hardware.hpp"
#include "model.hpp"
#include "workload.hpp"

namespace ridgeline {

struct KvCapacity {
    Bytes weight_bytes{};  // every parameter is resident, whatever a step reads
    Bytes free_bytes{};    // capacity left for KV; 0 when the weights do not fit
    bool weights_fit = false;
    // Whole tokens of full-attention KV that fit in free_bytes (a windowed layer keeps at most
    // its window per sequence, so windowed models hold more context than this suggests).
    double kv_tokens = 0;
};

// Every parameter in its storage format: the input table (and a tied head) in the embeddings'
// format, routed experts in theirs, the rest in the weights' format. All of one device.
constexpr Bytes resident_weight_bytes(const Model& m, const Precision& p) {
    const ParameterBreakdown all = derived_parameters(m);
    const double rest = parameter_count(m) - all.embeddings - all.experts;
    return rest * p.weights.bytes_per_element() + all.embeddings * p.embedding_format().bytes_per_element() +
           all.experts * p.expert_format().bytes_per_element();
}

// Memory holds every parameter, so this uses the every-parameter weight bytes.
constexpr KvCapacity kv_capacity(const Hardware& hw, const Model& m, const Precision& p) {
    KvCapacity c;
    c.weight_bytes = resident_weight_bytes(m, p);
    c.weights_fit = c.weight_bytes <= hw.memory_capacity;
    if (!c.weights_fit) return c;
    c.free_bytes = hw.memory_capacity - c.weight_bytes;
    const double per_token = kv_bytes_per_token(m, p.kv).in(bytes);
    c.kv_tokens = static_cast<double>(static_cast<std::int64_t>(c.free_bytes.in(bytes) / per_token));
    return c;
}

// The most sequences of `context` tokens whose KV fits; nullopt when not even one does.
constexpr std::optional<std::int64_t> largest_batch(const Hardware& hw, const Model& m, const Precision& p,
                                                    std::int64_t context) {
    if (context < 1) throw error("", "context", std::to_string(context), "an integer >= 1 tokens");
    require_context_within(m, context, "context");
    const KvCapacity c = kv_capacity(hw, m, p);
    if (!c.weights_fit) return std::nullopt;
    const double per_sequence = kv_bytes_read(m, p.kv, static_cast<double>(context)).in(bytes);
    const auto batch = static_cast<std::int64_t>(c.free_bytes.in(bytes) / per_sequence);
    if (batch < 1) return std::nullopt;
    return batch;
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

constexpr ContextFit longest_context(const Hardware& hw, const Model& m, const Precision& p, std::int64_t batch) {
    if (batch < 1) throw error("", "batch", std::to_string(batch), "an integer >= 1");
    const KvCapacity c = kv_capacity(hw, m, p);
    if (!c.weights_fit) return ContextFit::does_not_fit();
    const double budget = c.free_bytes.in(bytes) / static_cast<double>(batch);
    const auto fits = [&](std::int64_t n) { return kv_bytes_read(m, p.kv, static_cast<double>(n)).in(bytes) <= budget; };
    if (!fits(1)) return ContextFit::does_not_fit();
    // Full-attention layers grow without bound; if there are none, neither is the context.
    bool grows = false;
    for (const auto& g : m) grows = grows || g.spec.window == 0;
    if (m.max_context > 0 && fits(m.max_context)) return ContextFit::up_to(m.max_context);
    if (!grows) return ContextFit::unbounded();
    std::int64_t lo = 1, hi = 2;
    while (fits(hi)) lo = hi, hi *= 2;
    while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return ContextFit::up_to(lo);
}

}  // namespace ridgeline
