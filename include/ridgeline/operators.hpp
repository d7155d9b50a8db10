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
    void add(std::string_view name, std::int64_t layers, std::size_t group, Bytes shared, Bytes per_sequence,
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
    // Weight matrices of `params` parameters in each of `layers` layers, of which one device
    // holds and reads `per_device` (layers.hpp says how each kind splits); the FLOPs, 2 per
    // parameter per token, are shared evenly by the t devices as in the step.
    void weights(std::string_view name, std::int64_t layers, std::size_t group, double params, double per_device,
                           double bytes_per_param = 0, bool matmul = true) {
        const double L = static_cast<double>(layers == 0 ? 1 : layers) / stages;  // 0: once per model
        const double width = bytes_per_param > 0 ? bytes_per_param : per_weight_bytes;
        add(name, layers, group, bytes(L * per_device * width), Bytes{},
            matmul ? flop(2.0 * L * params / (t * stages) * tokens) : Flops{});
    }
};
}  // namespace operators_detail

// Not constexpr: it returns a std::vector, which some standard libraries (libc++ 13) cannot
// build in constant expressions.
inline std::vector<Operator> operators(const Deployment& d, const Model& m, const Workload& w) {
    validate(d, m);
    const StepCost c = step_cost(m, w, d.parallel);
    const ParameterBreakdown all = derived_parameters(m);
    operators_detail::Builder b{c,
                                effective_rates(d.device, w),
                                static_cast<double>(w.batch),
                                static_cast<double>(w.tokens_per_sequence),
                                w.precision.weights.bytes_per_element().in(bytes),
                                static_cast<double>(d.parallel.tensor),
                                static_cast<double>(d.parallel.pipeline)};
    if (m.declared_parameters)
        throw error("", "model '" + std::string(m.name.view()) + "' declared parameters",
                    std::to_string(*m.declared_parameters), "a derived count: operators need the architecture");
    const double h = static_cast<double>(m.hidden_size);
    const double n = static_cast<double>(w.context);
    const std::int64_t tp = d.parallel.tensor;
    const double t = b.t;
    const Assumptions& as = w.assumptions;
    const bool read_rows = as.accounting == WeightAccounting::bytes_read && !m.tied_embeddings;
    const double table_bytes = w.precision.embedding_format().bytes_per_element().in(bytes);

    // Input embeddings: the table, or one row per token read; a lookup, so FLOPs only when the
    // assumptions charge them.
    if (read_rows) {
        const Flops lookup = as.embedding_lookup_flops ? flop(2.0 * all.embeddings / (t * b.stages) * b.tokens) : Flops{};
        b.add("embeddings (rows)", 0, 0, Bytes{}, b.tokens * c.per_sequence_bytes, lookup);
    } else if (!m.tied_embeddings) {
        b.weights("embeddings", 0, 0, all.embeddings, all.embeddings / t, table_bytes, as.embedding_lookup_flops);
    }
    std::size_t routed = 0;  // StepCost keeps one routed term per MoE group, in group order
    for (std::size_t gi = 0; gi < m.group_count; ++gi) {
        const LayerGroup& g = m.groups[gi];
        const std::int64_t L = g.count;
        if (std::holds_alternative<Gqa>(g.spec.attention)) {
            const auto* a = &std::get<Gqa>(g.spec.attention);
            const double q = a->q_width(), kv = a->kv_width(), hd = static_cast<double>(a->head_dim);
            const double share = a->kv_share(tp);
            const double q_split = h * q + (a->qkv_bias ? q : 0) + (a->sinks ? static_cast<double>(a->heads) : 0);
            const double norm = a->qk_norm ? hd : 0;  // replicated
            b.weights("q_proj", L, gi, q_split + norm, q_split / t + norm);
            b.weights("k_proj", L, gi, h * kv + (a->qkv_bias ? kv : 0) + norm, (h * kv + (a->qkv_bias ? kv : 0)) * share + norm);
            b.weights("v_proj", L, gi, h * kv + (a->qkv_bias ? kv : 0), (h * kv + (a->qkv_bias ? kv : 0)) * share);
            b.weights("o_proj", L, gi, q * h + (a->o_bias ? h : 0), q * h / t + (a->o_bias ? h : 0));
        } else {
            const Mla& l = std::get<Mla>(g.spec.attention);
            const double H = static_cast<double>(l.heads), qk = l.qk_head();
            const double ql = static_cast<double>(l.q_lora_rank), kl = static_cast<double>(l.kv_lora_rank);
            const double q_down = l.q_lora_rank > 0 ? h * ql + ql : 0, q_up = (l.q_lora_rank > 0 ? ql : h) * H * qk;
            b.weights("q projections (MLA)", L, gi, q_down + q_up, q_down + q_up / t);
            const double kv_down = h * (kl + static_cast<double>(l.qk_rope_head_dim)) + kl;
            const double kv_up = kl * H * static_cast<double>(l.qk_nope_head_dim + l.v_head_dim);
            b.weights("kv projections (MLA)", L, gi, kv_down + kv_up, kv_down + kv_up / t);
            b.weights("o_proj", L, gi, H * static_cast<double>(l.v_head_dim) * h, H * static_cast<double>(l.v_head_dim) * h / t);
        }
        const StepCost::ContextTerm& term = c.context_terms[gi];
        const double span = StepCost::span(term, n);
        b.add("attention over the KV cache", L, gi, Bytes{}, span * term.kv_per_token,
              b.tokens * span * term.attention_flops_per_token);
        if (std::holds_alternative<DenseMlp>(g.spec.ffn)) {
            const auto* mlp = &std::get<DenseMlp>(g.spec.ffn);
            b.weights("mlp (gate, up, down)", L, gi, mlp->parameters(h), mlp->parameters_per_device(h, tp));
        } else {
            const Moe& e = std::get<Moe>(g.spec.ffn);
            b.weights("router", L, gi, e.router_parameters(h), e.router_parameters(h));
            if (e.shared_experts > 0) b.weights("shared experts", L, gi, e.shared_parameters(h), e.shared_parameters(h) / t);
            // Routed experts: the busiest device's bytes of those the batch touches; FLOPs of k per token.
            const StepCost::RoutedTerm& rt = c.routed_terms[routed++];
            const Bytes touched = rt.layers *
                                  expected_busiest_group_experts(rt.experts, rt.per_token, w.batch * w.tokens_per_sequence, rt.groups) *
                                  rt.bytes_per_expert;
            b.add("routed experts", L, gi, touched, Bytes{},
                  flop(2.0 * rt.layers * rt.per_token * e.expert_parameters(h) / t * b.tokens));
        }
        b.weights("norms", L, gi, 2 * h, 2 * h);
    }
    b.weights("final norm", 0, 0, h, h);
    // LM head: its own matrix, or the tied input table.
    if (m.tied_embeddings) b.weights("lm_head (tied to the embeddings)", 0, 0, all.embeddings, all.embeddings / t, table_bytes);
    else b.weights("lm_head", 0, 0, all.embeddings, all.embeddings / t);
    return b.out;
}

}  // namespace ridgeline
