// The cost model every decode question is read from. For a batch of B sequences at context n,
// on one device:
//     bytes(B, n) = fixed + routed(B) + B * (per_sequence + kv(n))
//     flops(B, n) = B * (per_token + attention(n))
// `fixed` is every weight the step reads in full whatever the batch; `routed(B)` is the routed
// experts the batch is expected to touch (0 for a dense model); kv(n) and attention(n) grow
// with the context, each windowed layer only up to its window.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "model.hpp"
#include "units.hpp"
#include "workload.hpp"

namespace ridgeline {

// Expected distinct experts a batch of B tokens touches in one layer when each picks k of E
// uniformly: E * (1 - (1 - k/E)^B). It is k at B = 1 and tends to E as B grows.
constexpr double expected_experts_touched(double experts, double per_token, std::int64_t batch) {
    double miss = 1.0 - per_token / experts;  // one token leaves a given expert out
    double all_miss = 1.0;
    for (std::int64_t b = batch; b > 0; b >>= 1) {  // miss^batch by squaring
        if (b & 1) all_miss *= miss;
        miss *= miss;
    }
    return experts * (1.0 - all_miss);
}

struct StepCost {
    // One group's KV and attention terms, per sequence per token of context it reads.
    struct ContextTerm {
        Bytes kv_per_token{};
        Flops attention_flops_per_token{};  // 0 unless the workload counts attention FLOPs
        std::int64_t window = 0;            // 0: full attention
    };
    // One group's routed experts.
    struct RoutedTerm {
        double layers = 0;
        double experts = 0;
        double per_token = 0;
        Bytes bytes_per_expert{};
    };

    WeightAccounting accounting = WeightAccounting::every_parameter;
    std::int64_t tensor = 1;      // devices per stage
    std::int64_t pipeline = 1;    // stages
    double layers_per_stage = 0;  // for the all-reduces a stage does
    std::int64_t tokens_per_sequence = 1;
    Bytes fixed_bytes{};         // read once per step, whatever the batch
    Bytes per_sequence_bytes{};  // each sequence's own weight reads (its embedding row)
    Flops flops_per_token{};     // matmul FLOPs per sequence: 2 per charged active parameter
    std::array<ContextTerm, Model::max_groups> context_terms{};
    std::size_t context_count = 0;
    std::array<RoutedTerm, Model::max_groups> routed_terms{};
    std::size_t routed_count = 0;

    [[nodiscard]] constexpr bool has_routed_experts() const noexcept { return routed_count > 0; }

    // Routed-expert bytes a batch of B reads.
    [[nodiscard]] constexpr Bytes routed_bytes(std::int64_t batch) const {
        Bytes b{};
        for (std::size_t i = 0; i < routed_count; ++i) {
            const RoutedTerm& r = routed_terms[i];
            b += r.layers * expected_experts_touched(r.experts, r.per_token, batch) * r.bytes_per_expert;
        }
        return b;
    }
    // Every routed expert's bytes: what any batch large enough reads.
    [[nodiscard]] constexpr Bytes all_routed_bytes() const {
        Bytes b{};
        for (std::size_t i = 0; i < routed_count; ++i)
            b += routed_terms[i].layers * routed_terms[i].experts * routed_terms[i].bytes_per_expert;
        return b;
    }
    // Weights a batch of B sequences reads: experts touched by all its tokens, one embedding row
    // per token under the bytes-read accounting.
    [[nodiscard]] constexpr Bytes weight_bytes(std::int64_t batch) const {
        return fixed_bytes + routed_bytes(batch * tokens_per_sequence) +
               static_cast<double>(batch * tokens_per_sequence) * per_sequence_bytes;
    }
    // KV one sequence reads at `context` tokens.
    [[nodiscard]] constexpr Bytes kv_bytes(double context) const {
        Bytes b{};
        for (std::size_t i = 0; i < context_count; ++i) b += span(context_terms[i], context) * context_terms[i].kv_per_token;
        return b;
    }
    // FLOPs one sequence does in the step, at `context` cached tokens.
    [[nodiscard]] constexpr Flops flops(double context) const {
        Flops f = flops_per_token;
        for (std::size_t i = 0; i < context_count; ++i)
            f += span(context_terms[i], context) * context_terms[i].attention_flops_per_token;
        return static_cast<double>(tokens_per_sequence) * f;
    }
    // What one more sequence adds to the step's bytes, besides its share of the experts.
    [[nodiscard]] constexpr Bytes sequence_bytes(double context) const {
        return static_cast<double>(tokens_per_sequence) * per_sequence_bytes + kv_bytes(context);
    }

    static constexpr double span(const ContextTerm& t, double context) noexcept { return attended_tokens(t.window, context); }

    // Per token of context past `at`: the KV bytes and attention FLOPs of one sequence that
    // still grow (full layers, and windowed layers whose window lies beyond `at`).
    [[nodiscard]] constexpr Bytes kv_growth(double at) const noexcept {
        Bytes b{};
        for (std::size_t i = 0; i < context_count; ++i)
            if (grows_past(context_terms[i], at)) b += context_terms[i].kv_per_token;
        return b;
    }
    [[nodiscard]] constexpr Flops attention_growth(double at) const noexcept {
        Flops f{};
        for (std::size_t i = 0; i < context_count; ++i)
            if (grows_past(context_terms[i], at)) f += context_terms[i].attention_flops_per_token;
        return f;
    }
    static constexpr bool grows_past(const ContextTerm& t, double at) noexcept {
        return t.window == 0 || static_cast<double>(t.window) > at;
    }
};

namespace step_detail {
// The share of a layer's KV one tensor-parallel device holds: its KV heads out of all (at least
// one head: past the KV heads they are replicated), or all of it for MLA's shared latent.
constexpr double kv_share(const Model& m, const std::variant<Gqa, Mla>& attention, std::int64_t tensor) {
    if (!std::holds_alternative<Gqa>(attention)) return 1.0;
    const std::int64_t kv = std::get<Gqa>(attention).kv_heads;
    if (kv % tensor != 0 && tensor % kv != 0)
        throw error("", "workload.parallel.tensor", std::to_string(tensor),
                    "a divisor or multiple of model '" + std::string(m.name.view()) + "' KV heads (" + std::to_string(kv) + ")");
    return kv >= tensor ? 1.0 / static_cast<double>(tensor) : 1.0 / static_cast<double>(kv);
}
}  // namespace step_detail

// The cost model for one device (one tensor-parallel rank of one pipeline stage). With no
// parallelism that device is the whole model.
constexpr StepCost step_cost(const Model& m, const Workload& w) {
    validate(m);
    validate(w);
    require_context_within(m, w.context, "workload.context");
    if (m.declared_parameters)
        for (const auto& g : m)
            if (std::holds_alternative<Moe>(g.spec.ffn))
                throw error("", "model '" + std::string(m.name.view()) + "' declared parameters",
                            std::to_string(*m.declared_parameters),
                            "no declared count on a model with routed experts (its bytes depend on the batch)");

    const Bytes per_weight = w.precision.weights.bytes_per_element();
    const Bytes per_table_weight = w.precision.embedding_format().bytes_per_element();
    const Bytes per_expert_weight = w.precision.expert_format().bytes_per_element();
    const double h = static_cast<double>(m.hidden_size);
    const ParameterBreakdown all = derived_parameters(m);
    const ParameterBreakdown active = active_parameters(m);
    const auto t = static_cast<double>(w.parallel.tensor);
    const auto stages = static_cast<double>(w.parallel.pipeline);

    // The every-parameter budget charges the declared count when there is one (dense only).
    double fixed = m.declared_parameters ? *m.declared_parameters : all.total() - all.experts;
    double per_token = m.declared_parameters ? *m.declared_parameters : active.total();

    StepCost c;
    c.accounting = w.accounting;
    c.tensor = w.parallel.tensor;
    c.pipeline = w.parallel.pipeline;
    c.layers_per_stage = static_cast<double>(layer_count(m)) / stages;
    c.tokens_per_sequence = w.tokens_per_sequence;
    double table = all.embeddings;  // in the embeddings' format
    if (w.accounting == WeightAccounting::bytes_read && !m.tied_embeddings) {
        // The input table is a lookup: one row per sequence and no matmul.
        fixed -= all.embeddings;
        per_token -= all.embeddings;
        table = 0;
        c.per_sequence_bytes = h * per_table_weight / (t * stages);
    }
    // Norms are replicated over tensor-parallel ranks; everything else is split.
    c.fixed_bytes = (((fixed - table - all.norms) / t + all.norms) * per_weight + table / t * per_table_weight) / stages;
    c.flops_per_token = flop(2.0 * per_token / (t * stages));

    for (const auto& g : m) {
        const double L = static_cast<double>(g.count) / stages;
        StepCost::ContextTerm term;
        const double share = step_detail::kv_share(m, g.spec.attention, w.parallel.tensor);
        term.kv_per_token = L * share * kv_elements_per_token(g.spec.attention) * w.precision.kv.bytes_per_element();
        if (w.count_attention_flops)
            term.attention_flops_per_token = flop(L * attention_flops_per_cached_token(g.spec.attention) / t);
        term.window = g.spec.window;
        c.context_terms[c.context_count++] = term;
        if (std::holds_alternative<Moe>(g.spec.ffn)) {
            const Moe& e = std::get<Moe>(g.spec.ffn);
            c.routed_terms[c.routed_count++] = StepCost::RoutedTerm{
                L, static_cast<double>(e.experts), static_cast<double>(e.experts_per_token),
                routed_expert_parameters(e, h) / t * per_expert_weight};
        }
    }
    return c;
}

}  // namespace ridgeline
