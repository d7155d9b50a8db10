// One decode step broken into operators, per device: each projection, the attention over the
// cache, the MLP or the router and experts, the norms, the embeddings and the LM head, with
// their bytes, FLOPs, arithmetic intensity, bound, roofline time, and the batch at which each
// turns compute-bound. Bytes and FLOPs add up to the step's exactly (activations only where the
// efficiency moves them through memory, as in the step; under attention data parallelism, the busiest rank's device's); the times add up to at least the step's roofline time, and to
// exactly it when every operator has the same bound.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "decode.hpp"
#include "ridge.hpp"

namespace ridgeline {

struct Operator {
    std::string_view name;
    std::int64_t layers = 0;   // layers of the stage it runs in (0: once per step)
    std::size_t group = 0;     // the model's layer group it belongs to
    Bytes bytes{};             // all its layers, one device, the whole batch
    Flops flops{};
    FlopsPerByte intensity{};
    Bound bound = Bound::memory;
    Seconds time{};            // its own roofline: max(bytes / bandwidth, FLOPs / peak)
    RidgeBatch compute_bound_batch = RidgeBatch::never();  // past this batch it is compute-bound
};

namespace operators_detail {
struct Builder {
    const StepCost& c;
    Rates rates;
    double batch;   // sequences
    double tokens;  // tokens per sequence in the step
    double per_weight_bytes;
    double t;       // tensor-parallel degree
    step_cost_detail::CostedStage stage;  // the layers of the device's stage (the step's), its table and head shares
    std::vector<Operator> out{};

    // An operator reading `shared` bytes once and `per_sequence` bytes per sequence, doing
    // `flops_per_sequence` for each sequence.
    // `sequences`: the sequences it is charged for when not the batch (the busiest attention
    // rank's, StepCost::context_batch).
    void add(std::string_view name, std::int64_t layers, std::size_t group, Bytes shared, Bytes per_sequence,
             Flops flops_per_sequence, double sequences = 0) {
        const double charged = sequences > 0 ? sequences : batch;
        Operator o;
        o.name = name;
        o.layers = layers;
        o.group = group;
        o.bytes = shared + charged * per_sequence;
        o.flops = charged * flops_per_sequence;
        o.intensity = o.bytes > Bytes{} ? o.flops / o.bytes : FlopsPerByte{};
        const Seconds memory = o.bytes / rates.bandwidth, compute = o.flops / rates.peak;
        o.bound = compute > memory ? Bound::compute : Bound::memory;
        o.time = compute > memory ? compute : memory;
        const Seconds surplus = flops_per_sequence / rates.peak - per_sequence / rates.bandwidth;
        if (surplus > Seconds{}) o.compute_bound_batch = RidgeBatch::at(static_cast<double>((shared / rates.bandwidth) / surplus));
        out.push_back(o);
    }
    // Weight matrices of `params` parameters in each of `layers` layers, of which one device
    // holds and reads `per_device` (layers.hpp says how each kind splits); the FLOPs, 2 per
    // parameter per token, are what the device holds, as in the step (step_cost.hpp): a t-th,
    // and whole what it keeps whole. Norms, which the step shares evenly, ask for `even`. An
    // attention data-parallel rank's device multiplies them for its own sequences: `ranks` of
    // them share the batch, and the busiest holds `sequences` / `ranks` (StepCost::context_batch).
    void weights(std::string_view name, std::int64_t layers, std::size_t group, double params, double per_device,
                           double bytes_per_param = 0, bool matmul = true, bool even = false, double ranks = 1, double sequences = 0) {
        held(name, layers, group, stage.layers[group], params, per_device, bytes_per_param, matmul, even, ranks, sequences);
    }
    // The same for `L` of them on the device's stage (a once-a-model weight: its share, 0 or 1).
    void held(std::string_view name, std::int64_t layers, std::size_t group, double L, double params, double per_device,
              double bytes_per_param = 0, bool matmul = true, bool even = false, double ranks = 1, double sequences = 0) {
        if (L == 0) return;  // not on the device's stage
        const double width = bytes_per_param > 0 ? bytes_per_param : per_weight_bytes;
        add(name, layers, group, bytes(L * per_device * width), Bytes{},
            matmul ? flop(2.0 * L * (even ? params / t : per_device / ranks) * tokens) : Flops{}, sequences);
    }
};
}  // namespace operators_detail

// Not constexpr: it returns a std::vector, which some standard libraries (libc++ 13) cannot
// build in constant expressions.
inline std::vector<Operator> operators(const Deployment& d, const Model& m, const Workload& w) {
    validate(d, m);
    const StepCost c = decode_detail::device_step_cost(d, m, w);  // decode_step's stage
    const ParameterBreakdown all = derived_parameters(m);
    operators_detail::Builder b{c,
                                effective_rates(d.device, w),
                                static_cast<double>(w.batch),
                                static_cast<double>(w.tokens_per_sequence),
                                w.precision.weights.bytes_per_element().in(bytes),
                                static_cast<double>(d.parallel.tensor),
                                c.stage < 0 ? step_cost_detail::average_stage(m, d.parallel.pipeline)
                                            : step_cost_detail::pipeline_stage(m, d.parallel.pipeline, c.stage)};
    if (m.declared_parameters)
        throw error("", "model '" + std::string(m.name.view()) + "' declared parameters",
                    std::to_string(*m.declared_parameters), "a derived count: operators need the architecture");
    const double h = static_cast<double>(m.hidden_size);
    const double n = static_cast<double>(w.context);
    const std::int64_t tp = d.parallel.tensor;
    const std::int64_t attention_tp = d.parallel.attention_tensor();
    const auto ranks = static_cast<double>(d.parallel.attention_data);
    const double context_batch = c.context_batch(b.batch);
    const double t = b.t;
    const Assumptions& as = w.assumptions;
    const bool read_rows = as.accounting == WeightAccounting::bytes_read && !m.tied_embeddings;
    const double table_bytes = w.precision.embedding_format().bytes_per_element().in(bytes);
    const double kept_bytes = w.precision.router_and_norm_format().bytes_per_element().in(bytes);
    const double attention_bytes = w.precision.attention_format().bytes_per_element().in(bytes);

    // Input embeddings: the table, or one row per token read; a lookup, so FLOPs only when the
    // assumptions charge them.
    if (read_rows) {
        const Flops lookup = as.embedding_lookup_flops ? flop(b.stage.first * 2.0 * all.embeddings / t * b.tokens) : Flops{};
        // A row per token, until the batch's tokens outnumber the table's rows: then the table,
        // each row read once (StepCost::row_bytes).
        const double tokens = b.batch * b.tokens;
        if (tokens <= c.embedding_rows) b.add("embeddings (rows)", 0, 0, Bytes{}, c.row_bytes(b.tokens), lookup);
        else b.add("embeddings (rows)", 0, 0, c.row_bytes(tokens), Bytes{}, lookup);
    } else if (!m.tied_embeddings) {
        b.held("embeddings", 0, 0, b.stage.first, all.embeddings, all.embeddings / t, table_bytes, as.embedding_lookup_flops);
    }
    for (std::size_t gi = 0; gi < m.group_count; ++gi) {
        const LayerGroup& g = m.groups[gi];
        // The layers of it on the device's stage (all of them without a pipeline); none: not listed.
        const auto L = static_cast<std::int64_t>(b.stage.layers[gi]);
        if (L == 0) continue;
        // Each kind names its weights (layers.hpp); routed experts are costed by what the batch touches.
        const auto attention_weight = [&](const char* name, Part, double whole, double per_device) {
            b.weights(name, L, gi, whole, per_device, attention_bytes, true, false, ranks, context_batch);
        };
        const auto weight = [&](const char* name, Part part, double whole, double per_device) {
            if (part != Part::experts) {
                b.weights(name, L, gi, whole, per_device, part == Part::router ? kept_bytes : 0);
                return;
            }
            for (std::size_t r = 0; r < c.routed_terms.size(); ++r) {
                const StepCost::RoutedTerm& rt = c.routed_terms[r];
                if (rt.group != gi) continue;
                const double expert = whole / rt.experts;
                const std::int64_t tokens = w.batch * w.tokens_per_sequence;
                const Bytes touched = rt.layers * expected_busiest_group_experts(rt.experts, rt.per_token, tokens, rt.groups) * rt.bytes_per_expert;
                // The mean device's FLOPs per sequence, and the busiest group's extra over the
                // batch (StepCost::routed_imbalance_flops), as the step charges them.
                const Flops per_sequence = flop(2.0 * rt.layers * rt.per_token * expert / t * b.tokens);
                b.add(name, L, gi, touched, Bytes{}, per_sequence + rt.imbalance_flops(tokens) / b.batch);
                // The experts a batch touches grow with it, so its crossing is not the row's bytes
                // over the surplus (a review found it moving with the row's batch). Arithmetic less
                // reading at B sequences may first fall (each sequence touches new experts) before
                // it rises (they are all touched, the FLOPs keep growing): doubling from one
                // sequence finds the first power of two past the crossing, bisection the first
                // positive batch below it, and the crossing is interpolated from the batch before.
                const auto reading = [&](double sequences) {
                    const auto n = static_cast<std::int64_t>(sequences) * w.tokens_per_sequence;
                    return rt.layers * expected_busiest_group_experts(rt.experts, rt.per_token, n, rt.groups) * rt.bytes_per_expert / b.rates.bandwidth;
                };
                const auto excess = [&](double sequences) {
                    const auto n = static_cast<std::int64_t>(sequences) * w.tokens_per_sequence;
                    return ((sequences * per_sequence + rt.imbalance_flops(n)) / b.rates.peak - reading(sequences)).in(s);
                };
                Operator& o = b.out.back();
                o.compute_bound_batch = RidgeBatch::never();
                constexpr double most = 1099511627776.0;  // 2^40 sequences: the batch flags' bound
                if (const double one = excess(1); one > 0) {
                    // Compute-bound from one sequence: where one sequence's experts would meet it.
                    const double read_one = reading(1).in(s);
                    o.compute_bound_batch = RidgeBatch::at(read_one / (one + read_one));
                } else {
                    double hi = 2;
                    while (hi < most && !(excess(hi) > 0)) hi *= 2;
                    double lo = hi / 2;  // excess(lo) <= 0 < excess(hi), unless none up to 2^40
                    if (!(excess(hi) > 0)) continue;
                    while (hi - lo > 1) {
                        const double mid = std::floor((lo + hi) / 2);
                        (excess(mid) > 0 ? hi : lo) = mid;
                    }
                    const double before = excess(lo), after = excess(hi);
                    o.compute_bound_batch = RidgeBatch::at(lo - before / (after - before));
                }
            }
        };
        std::visit([&](const auto& a) {
            a.weights(h, attention_tp, attention_weight);
            // A recurrent state: read once a sequence and written once a token of it, its update per token.
            if (a.state_elements() > 0) {
                const double layers = b.stage.layers[gi];
                const Flops update = as.attention_flops ? flop(layers * a.state_flops_per_token() / t) : Flops{};
                b.add("recurrent state (read and written)", L, gi, Bytes{},
                      bytes((1 + b.tokens) * layers * a.kv_share(attention_tp) / ranks) * state_bytes(a, w.precision.state).in(bytes),
                      b.tokens * update, context_batch);
            }
        }, g.spec.attention);
        for (std::size_t i = 0; i < c.context_terms.size(); ++i) {
            const StepCost::ContextTerm& term = c.context_terms[i];
            if (term.group != gi) continue;
            const double span = StepCost::span(term, n);
            b.add(term.name, L, gi, Bytes{}, span * term.reads * term.kv_per_token, b.tokens * span * term.attention_flops_per_token,
                  context_batch);
        }
        std::visit([&](const auto& f) { f.weights(h, tp, weight); }, g.spec.ffn);
        if (g.spec.norms > 0) {
            const double norms = static_cast<double>(g.spec.norms) * h;
            b.weights("norms", L, gi, norms, norms, kept_bytes, true, true);
        }
        // Each token's activations through memory, where the efficiency says so (StepCost::kv_bytes charges them per sequence).
        if (w.efficiency.activation_traffic)
            b.add("activations (written and read back)", L, gi, Bytes{},
                  b.tokens * b.stage.layers[gi] * layer_activation_traffic(g.spec, h, tp, d.parallel.attention_data) *
                      d.parallel.activations.bytes_per_element(),
                  Flops{}, context_batch);
    }
    b.held("final norm", 0, 0, b.stage.last, h, h, kept_bytes, true, true);
    // LM head: its own matrix, or the tied input table.
    if (m.tied_embeddings) b.held("lm_head (tied to the embeddings)", 0, 0, b.stage.last, all.embeddings, all.embeddings / t, table_bytes);
    else b.held("lm_head", 0, 0, b.stage.last, all.embeddings, all.embeddings / t, w.precision.lm_head_format().bytes_per_element().in(bytes));
    return b.out;
}

}  // namespace ridgeline
