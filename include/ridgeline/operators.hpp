// One decode step broken into operators, per device: each projection, the attention over the
// cache, the MLP or the router and experts, the norms, the embeddings and the LM head, with
// their bytes, FLOPs, arithmetic intensity, bound, roofline time, and the batch at which each
// turns compute-bound. Bytes and FLOPs add up to the step's exactly (activations are not
// counted, as in the step); the times add up to at least the step's roofline time, and to
// exactly it when every operator has the same bound.
#pragma once

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
    double stages;
    std::vector<Operator> out{};

    // An operator reading `shared` bytes once and `per_sequence` bytes per sequence, doing
    // `flops_per_sequence` for each sequence.
    constexpr void add(std::string_view name, std::int64_t layers, std::size_t group, Bytes shared, Bytes per_sequence,
             Flops flops_per_sequence) {
        Operator o;
        o.name = name;
        o.layers = layers;
        o.group = group;
        o.bytes = shared + batch * per_sequence;
        o.flops = batch * flops_per_sequence;
        o.intensity = o.bytes > Bytes{} ? o.flops / o.bytes : FlopsPerByte{};
        const Seconds memory = o.bytes / rates.bandwidth, compute = o.flops / rates.peak;
        o.bound = compute > memory ? Bound::compute : Bound::memory;
        o.time = compute > memory ? compute : memory;
        const Seconds surplus = flops_per_sequence / rates.peak - per_sequence / rates.bandwidth;
        if (surplus > Seconds{}) o.compute_bound_batch = RidgeBatch::at(static_cast<double>((shared / rates.bandwidth) / surplus));
        out.push_back(o);
    }
    // A weight matrix (or several) of `params` parameters in each of `layers` layers: split over
    // the tensor-parallel devices, read once, 2 FLOPs per parameter per token.
    constexpr void weights(std::string_view name, std::int64_t layers, std::size_t group, double params,
                           bool replicated = false, double bytes_per_param = 0) {
        const double split = replicated ? 1.0 : t;
        const double L = static_cast<double>(layers == 0 ? 1 : layers) / stages;  // 0: once per model
        const double width = bytes_per_param > 0 ? bytes_per_param : per_weight_bytes;
        add(name, layers, group, bytes(L * params / split * width), Bytes{},
            flop(2.0 * L * params / (t * stages) * tokens));
    }
};
}  // namespace operators_detail

constexpr std::vector<Operator> operators(const Hardware& hw, const Model& m, const Workload& w) {
    const StepCost c = step_cost(m, w);
    const ParameterBreakdown all = derived_parameters(m);
    operators_detail::Builder b{c,
                                effective_rates(hw, w),
                                static_cast<double>(w.batch),
                                static_cast<double>(w.tokens_per_sequence),
                                w.precision.weights.bytes_per_element().in(bytes),
                                static_cast<double>(w.parallel.tensor),
                                static_cast<double>(w.parallel.pipeline)};
    if (m.declared_parameters)
        throw error("", "model '" + std::string(m.name.view()) + "' declared parameters",
                    std::to_string(*m.declared_parameters), "a derived count: operators need the architecture");
    const double h = static_cast<double>(m.hidden_size);
    const double n = static_cast<double>(w.context);
    const bool read_rows = w.accounting == WeightAccounting::bytes_read && !m.tied_embeddings;
    const double table_bytes = w.precision.embedding_format().bytes_per_element().in(bytes);

    // Input embeddings: the table, or one row per token read.
    if (read_rows) {
        b.add("embeddings (rows)", 0, 0, Bytes{}, b.tokens * c.per_sequence_bytes, Flops{});
    } else if (!m.tied_embeddings) {
        b.weights("embeddings", 0, 0, all.embeddings, false, table_bytes);
    }
    std::size_t routed = 0;  // StepCost keeps one routed term per MoE group, in group order
    for (std::size_t gi = 0; gi < m.group_count; ++gi) {
        const LayerGroup& g = m.groups[gi];
        const std::int64_t L = g.count;
        if (std::holds_alternative<Gqa>(g.spec.attention)) {
            const Gqa& a = std::get<Gqa>(g.spec.attention);
            const double q = static_cast<double>(a.heads * a.head_dim), kv = static_cast<double>(a.kv_heads * a.head_dim);
            const double hd = static_cast<double>(a.head_dim);
            b.weights("q_proj", L, gi, h * q + (a.qkv_bias ? q : 0) + (a.qk_norm ? hd : 0) + (a.sinks ? static_cast<double>(a.heads) : 0));
            b.weights("k_proj", L, gi, h * kv + (a.qkv_bias ? kv : 0) + (a.qk_norm ? hd : 0));
            b.weights("v_proj", L, gi, h * kv + (a.qkv_bias ? kv : 0));
            b.weights("o_proj", L, gi, q * h + (a.o_bias ? h : 0));
        } else {
            const Mla& l = std::get<Mla>(g.spec.attention);
            const double H = static_cast<double>(l.heads), qk = static_cast<double>(l.qk_nope_head_dim + l.qk_rope_head_dim);
            const double ql = static_cast<double>(l.q_lora_rank), kl = static_cast<double>(l.kv_lora_rank);
            b.weights("q projections (MLA)", L, gi, l.q_lora_rank > 0 ? h * ql + ql + ql * H * qk : h * H * qk);
            b.weights("kv projections (MLA)", L, gi,
                      h * (kl + static_cast<double>(l.qk_rope_head_dim)) + kl + kl * H * static_cast<double>(l.qk_nope_head_dim + l.v_head_dim));
            b.weights("o_proj", L, gi, H * static_cast<double>(l.v_head_dim) * h);
        }
        const StepCost::ContextTerm& term = c.context_terms[gi];
        const double span = StepCost::span(term, n);
        b.add("attention over the KV cache", L, gi, Bytes{}, span * term.kv_per_token,
              b.tokens * span * term.attention_flops_per_token);
        if (std::holds_alternative<DenseMlp>(g.spec.ffn)) {
            b.weights("mlp (gate, up, down)", L, gi, 3 * h * static_cast<double>(std::get<DenseMlp>(g.spec.ffn).intermediate));
        } else {
            const Moe& e = std::get<Moe>(g.spec.ffn);
            const double E = static_cast<double>(e.experts);
            b.weights("router", L, gi, h * E + (e.router_bias ? E : 0));
            if (e.shared_experts > 0)
                b.weights("shared experts", L, gi, static_cast<double>(e.shared_experts) * 3 * h * static_cast<double>(e.shared_intermediate));
            // Routed experts: the bytes of those the batch touches; FLOPs of k per token.
            const StepCost::RoutedTerm& rt = c.routed_terms[routed++];
            const Bytes touched =
                rt.layers * expected_experts_touched(rt.experts, rt.per_token, w.batch * w.tokens_per_sequence) * rt.bytes_per_expert;
            const double expert_params = routed_expert_parameters(e, h) / b.t;  // one device's slice
            b.add("routed experts", L, gi, touched, Bytes{},
                  flop(2.0 * rt.layers * rt.per_token * expert_params * b.tokens));
        }
        b.weights("norms", L, gi, 2 * h, true);
    }
    b.weights("final norm", 0, 0, h, true);
    // LM head: its own matrix, or the tied input table (which the every-parameter count holds once).
    if (m.tied_embeddings) b.weights("lm_head (tied to the embeddings)", 0, 0, all.embeddings, false, table_bytes);
    else b.weights("lm_head", 0, 0, all.embeddings);
    return b.out;
}

}  // namespace ridgeline
