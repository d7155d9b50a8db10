// What one device holds under a deployment: its share of the weights in their storage formats,
// the KV cache of its sequences, the activation workspace of the step's tokens, and the budget
// the engine allows (a fraction of the memory the device reports, less a runtime reserve). The
// layer kinds say what a device holds of each layer (layers.hpp), as they do for step costs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "deployment.hpp"
#include "model.hpp"
#include "pipeline_stages.hpp"
#include "row_groups.hpp"
#include "workload.hpp"

namespace ridgeline {

// One device's memory, on the busiest pipeline stage: the stage whose own layers (in the
// model's order, pipeline_stages.hpp), table or LM head, cache and workspace need the most.
struct MemoryUse {
    Bytes capacity{};     // as the device reports it, or the datasheet's when the preset has no report
    Bytes reserve{};      // kept back for the runtime
    Bytes budget{};       // memory_fraction x capacity - reserve, in whole bytes
    Bytes weights{};
    Bytes kv{};
    Bytes activations{};
    [[nodiscard]] constexpr Bytes used() const noexcept { return weights + kv + activations; }
    [[nodiscard]] constexpr bool fits() const noexcept { return used() <= budget; }
    [[nodiscard]] constexpr Bytes free() const noexcept { return fits() ? budget - used() : Bytes{}; }
};

namespace memory_detail {
// What one device holds of one layer of a group: its share of the layer's weights, its norms and
// router, and of the routed experts (every device holds 1/t of them), each in its format.
constexpr double layer_bytes(const LayerSpec& spec, double h, const Precision& p, const Parallelism& par) {
    const RoutedExperts e = routed_experts(spec, h);
    return layer_bytes_outside_experts(spec, h, par.tensor, par.attention_tensor(), p.weights.bytes_per_element().in(bytes),
                                       p.router_and_norm_format().bytes_per_element().in(bytes),
                                       p.attention_format().bytes_per_element().in(bytes)) +
           static_cast<double>(e.experts) * e.parameters_per_expert / static_cast<double>(par.tensor) *
               p.expert_format().bytes_per_element().in(bytes);
}
}  // namespace memory_detail

// The layers' weights on one device, all stages together (no embeddings, head or final norm).
constexpr Bytes layer_weights_per_device(const Model& m, const Precision& p, const Parallelism& par = {}) {
    validate(m);
    validate(par);
    const double h = static_cast<double>(m.hidden_size);
    double layers = 0;
    for (const auto& g : m) layers += static_cast<double>(g.count) * memory_detail::layer_bytes(g.spec, h, p, par);
    return bytes(layers);
}

namespace memory_detail {
// stage_weights_per_device of a model its caller has validated (weights_per_device and
// memory_use, over every stage).
constexpr Bytes stage_weights(const Model& m, const Precision& p, const Parallelism& par, const StageLayers& stage) {
    const double h = static_cast<double>(m.hidden_size);
    const auto T = static_cast<double>(par.tensor);
    const double pw = p.weights.bytes_per_element().in(bytes);
    const double table = embedding_parameters(m);
    const double table_bytes = table / T * p.embedding_format().bytes_per_element().in(bytes);
    const bool head_copy = m.tied_embeddings && !stage.first;  // the last stage's copy of a tied table
    if (m.declared_parameters) {
        // As the step reads it: the norms whole on every device in their own format, the rest
        // split evenly, an untied head's vocab x hidden on the last stage.
        const double norms = derived_parameters(m).norms;
        const double others = *m.declared_parameters - table - norms;
        const double head_part = m.tied_embeddings ? 0.0 : std::min(static_cast<double>(m.vocab_size) * h, others > 0 ? others : 0.0);
        const double rest = ((others - head_part) / T * pw + norms * p.router_and_norm_format().bytes_per_element().in(bytes)) /
                            static_cast<double>(par.pipeline);
        return bytes(rest + (stage.first ? table_bytes : 0.0) +
                     (stage.last ? (head_copy ? table_bytes : head_part / T * p.lm_head_format().bytes_per_element().in(bytes)) : 0.0));
    }
    double layers = 0;
    for (std::size_t g = 0; g < m.group_count; ++g)
        if (stage.counts[g] > 0) layers += static_cast<double>(stage.counts[g]) * memory_detail::layer_bytes(m.groups[g].spec, h, p, par);
    const double head = m.tied_embeddings ? (head_copy ? table_bytes : 0.0)
                                          : static_cast<double>(m.vocab_size) * h / T * p.lm_head_format().bytes_per_element().in(bytes);
    const double final_norm = h * p.router_and_norm_format().bytes_per_element().in(bytes);
    return bytes(layers + (stage.first ? table_bytes : 0.0) + (stage.last ? head + final_norm : 0.0));
}
}  // namespace memory_detail

// Weights resident on one device of one stage: its layers' share in their storage formats, the
// input table on the first stage, the final norm and the LM head on the last (a tied head is a
// copy of the table there, unless the stage is the first too). A declared count has no layers
// to place: the rest of it is split evenly.
constexpr Bytes stage_weights_per_device(const Model& m, const Precision& p, const Parallelism& par, const StageLayers& stage) {
    validate(m);
    return memory_detail::stage_weights(m, p, par, stage);
}

// Weights resident on one device of the stage that holds the most: every parameter in its
// storage format (the input table and a tied head in the embeddings' format, an untied head and
// routed experts in theirs), split as the layer kinds say.
// DeepSeek's multi-token-prediction module is not loaded (engines load it only to speculate).
constexpr Bytes weights_per_device(const Model& m, const Precision& p, const Parallelism& par = {}) {
    validate(m);
    validate(par);
    Bytes most{};
    for (std::int64_t s = 0; s < par.pipeline; ++s) {
        const Bytes b = memory_detail::stage_weights(m, p, par, stage_layers(m, par.pipeline, s));
        if (b > most) most = b;
    }
    return most;
}

// KV one sequence keeps on one device of one stage at `context` tokens: each of the stage's
// layers' share of its cache (its KV heads, or all of MLA's latent; a top-k attention keeps every
// token), a windowed or chunked layer at most its window or chunk (reach.hpp), and a recurrent
// layer's fixed state. Under attention data parallelism, on a device of the rank that holds the
// sequence (its heads split over that rank's devices only).
// `state_slots`: recurrent states kept a sequence, 1 but while verifying g drafted tokens, when
// an engine keeps one for each of the g + 1 positions so the accepted one can be taken up (vLLM's
// MambaSpec: page_size x (1 + num_speculative_blocks), num_speculative_blocks = g;
// vllm-project/vllm@bc8282e61df21719b12b391c3a976b1c900dfbb4 vllm/v1/kv_cache_interface.py).
constexpr Bytes stage_kv_per_sequence(const Model& m, Format kv, double context, const Parallelism& par, const StageLayers& stage,
                                      StateFormats state = {}, double state_slots = 1) {
    Bytes held{};
    for (std::size_t g = 0; g < m.group_count; ++g) {
        if (stage.counts[g] == 0) continue;
        const LayerSpec& spec = m.groups[g].spec;
        std::visit([&](const auto& k) {
            held += static_cast<double>(stage.counts[g]) * k.kv_share(par.attention_tensor()) *
                    (spec.reach().kept(context) * k.cache_bytes_per_token(kv) + state_slots * state_bytes(k, state));
        }, spec.attention);
    }
    return held;
}

// The same on the stage that keeps the most.
constexpr Bytes kv_per_sequence_per_device(const Model& m, Format kv, double context, const Parallelism& par = {},
                                           StateFormats state = {}, double state_slots = 1) {
    validate(m);
    validate(par);
    model_detail::require_context_value(context);
    Bytes most{};
    for (std::int64_t s = 0; s < par.pipeline; ++s) {
        const Bytes b = stage_kv_per_sequence(m, kv, context, par, stage_layers(m, par.pipeline, s), state, state_slots);
        if (b > most) most = b;
    }
    return most;
}

// Workspace per token in flight on one device: the live activations of one layer (residual,
// its normed copy, q/k/v and the attention output, the FFN's gate and up outputs) in the
// activations' format, and, for a token that is sampled, the logits of the device's vocabulary
// slice in fp32 (a prefill samples only its last token). Engines reuse these buffers from layer
// to layer, so one layer's worth is the peak.
constexpr Bytes activation_bytes_per_token(const Model& m, const Parallelism& par = {}, bool sampled = true) {
    validate(m);
    validate(par);  // a tensor degree of 0 would give infinite bytes
    const double h = static_cast<double>(m.hidden_size), T = static_cast<double>(par.tensor);
    double widest = 0;
    for (const auto& g : m) {
        const double layer = layer_activation_width(g.spec, par.tensor);
        widest = layer > widest ? layer : widest;
    }
    return (2 * h + widest) * par.activations.bytes_per_element() + (sampled ? static_cast<double>(m.vocab_size) / T : 0.0) * bytes(4);
}

// The engine's budget on one device.
constexpr MemoryUse memory_budget(const Hardware& hw, const Assumptions& a) {
    validate(hw);  // a negative memory would give a negative capacity
    validate(a);
    MemoryUse u;
    u.capacity = a.reported_memory ? hw.usable_memory() : hw.memory_capacity;
    u.reserve = a.runtime_reserve;
    const Bytes allowed = a.memory_fraction * u.capacity;
    // Whole bytes: an allocator hands out no fraction of one (capacities are below 1e18 bytes, so
    // the integer holds them exactly).
    u.budget = allowed > u.reserve ? bytes(static_cast<double>(static_cast<std::int64_t>((allowed - u.reserve).in(bytes)))) : Bytes{};
    return u;
}

namespace memory_detail {
// One stage's memory, its arguments already validated (memory_use walks every stage).
constexpr MemoryUse stage_use(const Deployment& d, const Model& m, const Workload& w, std::int64_t stage) {
    const auto context = static_cast<double>(w.context + w.tokens_per_sequence - 1);
    MemoryUse u = memory_budget(d.device, w.assumptions);
    const StageLayers layers = stage_layers(m, d.parallel.pipeline, stage);
    u.weights = memory_detail::stage_weights(m, w.precision, d.parallel, layers);
    // A pipeline keeps one micro-batch of `batch` sequences in flight per stage, and each stage
    // holds its layers' KV for all of them (under attention data parallelism, the busiest rank's
    // share of them).
    u.kv = static_cast<double>(d.parallel.sequences_per_attention_rank(w.batch) * d.parallel.pipeline) *
           stage_kv_per_sequence(m, w.precision.kv, context, d.parallel, layers, w.precision.state,
                                 static_cast<double>(w.tokens_per_sequence));
    if (w.assumptions.activation_workspace)
        u.activations = static_cast<double>(w.batch * w.tokens_per_sequence) * activation_bytes_per_token(m, d.parallel);
    return u;
}
// What memory_use checks beyond its arguments' own validity: the context the step reaches, and
// the formats' groups on this split (a format no engine loads holds no memory either).
constexpr void require_use_of_valid(const Deployment& d, const Model& m, const Workload& w) {
    model_detail::require_context_value(static_cast<double>(w.context + w.tokens_per_sequence - 1));
    require_whole_groups(m, w.precision, d.parallel);
    require_whole_kv_groups(m, w.precision, d.parallel);
}
constexpr void require_use(const Deployment& d, const Model& m, const Workload& w) {
    validate(w);
    validate(d, m);
    require_use_of_valid(d, m, w);
}
// The stage that needs the most (the first of equals), of arguments already checked.
constexpr MemoryUse busiest_use(const Deployment& d, const Model& m, const Workload& w) {
    MemoryUse most = stage_use(d, m, w, 0);
    for (std::int64_t s = 1; s < d.parallel.pipeline; ++s) {
        const MemoryUse u = stage_use(d, m, w, s);
        if (u.used() > most.used()) most = u;
    }
    return most;
}
// memory_use for a decode step whose step cost has checked its arguments and its formats'
// groups on this split (the checks ran three times a step and were a quarter of its time): only
// the context it reaches is left to check.
constexpr MemoryUse use_of_costed(const Deployment& d, const Model& m, const Workload& w) {
    model_detail::require_context_value(static_cast<double>(w.context + w.tokens_per_sequence - 1));
    return busiest_use(d, m, w);
}
}  // namespace memory_detail

// One device's memory for a batch of `batch` sequences at `context` tokens, each pushing
// `tokens_per_sequence` tokens through the step, on the stage `stage` of the deployment's
// pipeline (0-based; 0 without one).
constexpr MemoryUse stage_memory_use(const Deployment& d, const Model& m, const Workload& w, std::int64_t stage) {
    memory_detail::require_use(d, m, w);
    if (stage < 0 || stage >= d.parallel.pipeline)
        throw error("", "pipeline stage", std::to_string(stage), "a stage from 0 to " + std::to_string(d.parallel.pipeline - 1));
    return memory_detail::stage_use(d, m, w, stage);
}

// The same on the stage that needs the most (the first of equals): the one that fits last.
constexpr MemoryUse memory_use(const Deployment& d, const Model& m, const Workload& w) {
    memory_detail::require_use(d, m, w);
    return memory_detail::busiest_use(d, m, w);
}

}  // namespace ridgeline
