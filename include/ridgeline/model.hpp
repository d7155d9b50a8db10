// A decoder-only transformer as embeddings plus groups of identical layers.
//
// Bytes and FLOPs are sums over layers, and layers come in a few kinds, so a model is
//     embeddings (vocab x hidden, tied or not) + groups of `count x LayerSpec`,
// where a LayerSpec is an attention kind (GQA, MLA, Gated DeltaNet, Mamba-2 or none; optionally
// windowed or chunked: its reach, reach.hpp) and a feed-forward kind (a dense gated MLP, a two-matrix MLP without a
// gate, a mixture of experts, or none). Llama-3.1-8B is one group; DeepSeek-V3 is 3 dense MLA
// layers and 58 MoE MLA layers; gpt-oss alternates windowed and full layers (order does not
// change a sum, so that is two groups); nemotron-nas has a different block almost every layer;
// a Nemotron-H block is one mixer alone (Mamba-2 with no MLP, attention with no MLP, or an MLP
// with no attention).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <type_traits>
#include <variant>

#include "error.hpp"
#include "formats.hpp"
#include "layers.hpp"
#include "name.hpp"
#include "reach.hpp"
#include "units.hpp"

namespace ridgeline {

struct LayerSpec {
    Attention attention{};
    std::int64_t window = 0;  // sliding-window (or chunk) span in tokens; 0: full attention
    FeedForward ffn{};
    // Norm vectors of hidden width the layer holds: 2 for a pre-norm block (Llama), 4 with
    // Gemma's post-norms, fewer where a block is skipped; a LayerNorm's weight and bias count 2.
    std::int64_t norms = 2;
    // The window is an aligned chunk (Llama 4's local attention): it reads the tokens since the
    // last chunk boundary and keeps at most a chunk (reach.hpp).
    bool chunked = false;
    friend constexpr bool operator==(const LayerSpec&, const LayerSpec&) = default;

    // How far back the layer attends, for a read capped at `cap` tokens (a top-k; 0: none).
    [[nodiscard]] constexpr Reach reach(std::int64_t cap = 0) const noexcept { return Reach{window, chunked, cap}; }
};

struct LayerGroup {
    std::int64_t count = 0;
    LayerSpec spec{};
    friend constexpr bool operator==(const LayerGroup&, const LayerGroup&) = default;
};

// Consecutive layers of one group: the model's layers in order are its runs (Model::runs).
struct LayerRun {
    std::size_t group = 0;
    std::int64_t count = 0;
    friend constexpr bool operator==(const LayerRun&, const LayerRun&) = default;
};

struct Model {
    // Distinct layer kinds a model may have (Llama-3.1-Nemotron-Ultra-253B has the most known).
    static constexpr std::size_t max_groups = 64;
    // Runs of alike layers in a row kept (Llama-3.3-Nemotron-Super-49B's 80 layers make 25);
    // past them the order is dropped (order_lost), not the model.
    static constexpr std::size_t max_runs = 512;

    Name name;
    std::int64_t hidden_size = 0;
    std::int64_t vocab_size = 0;
    bool tied_embeddings = false;  // tie_word_embeddings: the LM head is the input table
    std::array<LayerGroup, max_groups> groups{};
    std::size_t group_count = 0;
    // The layers in the order they were added, as runs of one group: which layers a pipeline
    // stage holds (pipeline_stages.hpp). Group counts changed by hand since leave them
    // inconsistent; the layers are then taken in group order (layer_runs_consistent).
    std::array<LayerRun, max_runs> runs{};
    std::size_t run_count = 0;
    bool order_lost = false;  // more runs than max_runs: layers are taken in group order
    // The group the last layer added joined: the model's last layer, which an MTP module copies
    // (groups merge layers of one kind wherever they sit, so it need not be the last group).
    std::size_t last_group = 0;
    // Multi-token-prediction modules (DeepSeek-V3's num_nextn_predict_layers), counted apart
    // from the model so that its total matches the model card.
    std::int64_t mtp_layers = 0;
    // The longest context the model serves (max_position_embeddings); 0: unknown. Contexts past
    // it are refused. Raise it deliberately (with_max_context) where the model card allows more,
    // e.g. Qwen3's 131,072 tokens with YaRN over a config that says 40,960.
    std::int64_t max_context = 0;
    // A published parameter count, used in place of the derived one by the every-parameter
    // budget where a document computed from it (seed 003 rounds 70.55e9 to 70.6e9).
    std::optional<double> declared_parameters{};

    constexpr Model& with_parameters(double count) noexcept {
        declared_parameters = count;
        return *this;
    }
    constexpr Model& with_max_context(std::int64_t tokens) noexcept {
        max_context = tokens;
        return *this;
    }
    // Layers identical to an existing group join it (order does not change a sum); the order
    // is kept in the runs, for the layers each pipeline stage holds.
    constexpr Model& add_layers(std::int64_t count, const LayerSpec& spec) {
        std::size_t joined = group_count;
        for (std::size_t i = 0; i < group_count; ++i)
            if (groups[i].spec == spec) {
                joined = i;
                break;
            }
        if (joined == group_count && group_count == max_groups) throw std::length_error("ridgeline::Model: more than 64 distinct layer kinds");
        const bool extends = run_count > 0 && runs[run_count - 1].group == joined;
        const bool new_run = count > 0 && !extends;  // no layers, nothing to order
        if (new_run && run_count == max_runs) order_lost = true;
        if (joined == group_count) groups[group_count++] = LayerGroup{0, spec};
        groups[joined].count += count;
        if (!order_lost && new_run) runs[run_count++] = LayerRun{joined, count};
        else if (!order_lost && count > 0) runs[run_count - 1].count += count;
        last_group = joined;
        return *this;
    }
    // The group holding the last layer; a group count cut by hand (below last_group) leaves the
    // last group standing for it.
    [[nodiscard]] constexpr std::size_t last_layer_group() const noexcept {
        return last_group < group_count || group_count == 0 ? last_group : group_count - 1;
    }
    [[nodiscard]] constexpr const LayerGroup* begin() const noexcept { return groups.data(); }
    [[nodiscard]] constexpr const LayerGroup* end() const noexcept { return groups.data() + group_count; }
    friend constexpr bool operator==(const Model&, const Model&) = default;
};

// The common case: `layers` identical GQA layers with a dense gated MLP.
constexpr Model dense_model(Name name, std::int64_t layers, std::int64_t hidden, std::int64_t heads,
                            std::int64_t kv_heads, std::int64_t head_dim, std::int64_t intermediate,
                            std::int64_t vocab) {
    Model m;
    m.name = name;
    m.hidden_size = hidden;
    m.vocab_size = vocab;
    m.add_layers(layers, LayerSpec{Gqa{heads, kv_heads, head_dim}, 0, DenseMlp{intermediate}});
    return m;
}

constexpr std::int64_t layer_count(const Model& m) noexcept {
    std::int64_t n = 0;
    for (const auto& g : m) n += g.count;
    return n;
}

// The runs add up to the groups' counts (no count was changed by hand since the layers were
// added).
constexpr bool layer_runs_consistent(const Model& m) noexcept {
    if (m.order_lost) return false;
    std::array<std::int64_t, Model::max_groups> counted{};
    for (std::size_t r = 0; r < m.run_count; ++r) {
        if (m.runs[r].group >= m.group_count || m.runs[r].count <= 0) return false;
        counted[m.runs[r].group] += m.runs[r].count;
    }
    for (std::size_t g = 0; g < m.group_count; ++g)
        if (counted[g] != m.groups[g].count) return false;
    return true;
}

// Calls f(group, count) for the model's layers in order: its runs, or where they no longer match
// the groups, each group whole in group order.
template <class F>
constexpr void for_each_layer_run(const Model& m, F&& f) {
    if (layer_runs_consistent(m)) {
        for (std::size_t r = 0; r < m.run_count; ++r) f(m.runs[r].group, m.runs[r].count);
    } else {
        for (std::size_t g = 0; g < m.group_count; ++g)
            if (m.groups[g].count > 0) f(g, m.groups[g].count);
    }
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

namespace model_detail {
[[noreturn]] inline void fail(const Model& m, const std::string& field, const std::string& value,
                              const std::string& expected) {
    throw error("", "model '" + std::string(m.name.view()) + "' " + field, value, expected);
}
constexpr void positive(const Model& m, std::int64_t v, const char* field) {
    if (v <= 0) fail(m, field, std::to_string(v), "a positive integer");
}
constexpr void non_negative(const Model& m, std::int64_t v, const char* field) {
    if (v < 0) fail(m, field, std::to_string(v), "an integer >= 0");
}
// Sizes past these are not models; the bounds keep every product of two sizes inside int64.
inline constexpr std::int64_t max_dimension = layer_detail::max_dimension;  // widths, heads, experts
inline constexpr std::int64_t max_vocab = std::int64_t{1} << 31;
constexpr void bounded(const Model& m, std::int64_t v, std::int64_t limit, const char* field) {
    if (v > limit) fail(m, field, std::to_string(v), "at most " + std::to_string(limit));
}
}  // namespace model_detail

// Throws ridgeline::error naming the field when the description cannot be a model.
constexpr void validate(const Model& m) {
    using namespace model_detail;
    positive(m, m.hidden_size, "hidden_size");
    bounded(m, m.hidden_size, max_dimension, "hidden_size");
    positive(m, m.vocab_size, "vocab_size");
    bounded(m, m.vocab_size, max_vocab, "vocab_size");
    if (m.group_count == 0) fail(m, "layers", "none", "at least one layer group");
    non_negative(m, m.mtp_layers, "num_nextn_predict_layers");
    bounded(m, m.mtp_layers, 1024, "num_nextn_predict_layers");
    non_negative(m, m.max_context, "max_position_embeddings");
    std::int64_t layers = 0, chunk = 0;
    for (const auto& g : m) {
        positive(m, g.count, "num_hidden_layers");
        bounded(m, g.count, 100000, "num_hidden_layers");
        layers += g.count;
        bounded(m, layers, 100000, "num_hidden_layers");
        non_negative(m, g.spec.window, "sliding_window");
        bounded(m, g.spec.window, std::int64_t{1} << 40, "sliding_window");  // the longest context any answer takes
        // One chunk size a model: n* walks the chunks as one period (ridge.hpp).
        if (g.spec.chunked) {
            if (g.spec.window == 0) fail(m, "chunked layer's window", "0", "its chunk size, a positive integer");
            if (chunk != 0 && g.spec.window != chunk)
                fail(m, "chunked layer's window", std::to_string(g.spec.window),
                     "the chunk size of the model's other chunked layers (" + std::to_string(chunk) + ")");
            chunk = g.spec.window;
        }
        if (g.spec.norms < 0 || g.spec.norms > 16) fail(m, "norms per layer", std::to_string(g.spec.norms), "0 to 16");
        auto check = [&m](const char* field, const std::string& value, const std::string& expected) { fail(m, field, value, expected); };
        std::visit([&](const auto& a) {
            a.validate(check);
            bounded(m, a.widest(), max_dimension, "an attention width or head count");
        }, g.spec.attention);
        std::visit([&](const auto& f) {
            f.validate(check);
            bounded(m, f.widest(), max_dimension, "an MLP or expert width or count");
        }, g.spec.ffn);
    }
    if (m.declared_parameters && !(*m.declared_parameters >= 1 && *m.declared_parameters < 1e16))
        fail(m, "declared parameters", number_text(*m.declared_parameters), "a count from 1 to below 1e16");
    // A count below the embedding table and LM head alone leaves the layers a negative share
    // (the bytes and FLOPs a declared count splits evenly).
    const double table_and_head = static_cast<double>(m.vocab_size) * static_cast<double>(m.hidden_size) * (m.tied_embeddings ? 1 : 2);
    if (m.declared_parameters && *m.declared_parameters < table_and_head)
        fail(m, "declared parameters", number_text(*m.declared_parameters),
             "at least the embedding table and LM head's " + std::to_string(static_cast<std::int64_t>(table_and_head)) + " parameters");
}

// A lever an error names in the library's words, said in a front end's own (a flag, a keyword,
// a field) instead.
inline std::string naming_own_lever(std::string expected, std::string_view lever, std::string_view own) {
    if (const auto at = expected.find(lever); at != std::string::npos) expected.replace(at, lever.size(), own);
    return expected;
}

// The lever require_context_within names, in the library's words. A front end names its own
// (the CLI's --max-context, Python's max_context=, the page's field) with the next function.
inline constexpr std::string_view max_context_lever = "raise Model::max_context where the model allows more";
inline std::string naming_own_max_context_lever(std::string expected, std::string_view own) {
    return naming_own_lever(std::move(expected), max_context_lever, own);
}

// Refuses a context past the model's limit, when it has one.
constexpr void require_context_within(const Model& m, std::int64_t context, const char* what) {
    if (m.max_context > 0 && context > m.max_context)
        throw error("", what, std::to_string(context),
                    "at most model '" + std::string(m.name.view()) + "' max_position_embeddings (" +
                        std::to_string(m.max_context) + "); " + std::string(max_context_lever));
}

// A limit given to raise the model's (--max-context, max_context=, the page's field) that is below
// the model's own would only make it refuse contexts it takes: what the input must be instead, to
// which each front end adds how it raises the limit; nothing where `tokens` raises it or keeps it.
inline std::optional<std::string> lowers_context_limit(const Model& m, std::int64_t tokens) {
    if (m.max_context <= 0 || tokens >= m.max_context) return std::nullopt;
    return "at least the limit of model '" + std::string(m.name.view()) + "' itself, " + std::to_string(m.max_context) +
           " tokens (max_position_embeddings)";
}

// ---------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------

// Parameters by where they sit.
struct ParameterBreakdown {
    double embeddings = 0;      // input table, vocab x hidden
    double attention = 0;       // projections, biases, attention norms, sinks (MLA: its LoRA norms)
    double dense_mlp = 0;       // gated MLPs of dense layers
    double experts = 0;         // routed experts
    double shared_experts = 0;  // experts every token uses
    double router = 0;          // routing weights (and biases)
    double norms = 0;           // two RMSNorms per layer and the final one
    double lm_head = 0;         // 0 when tied to the embeddings
    [[nodiscard]] constexpr double total() const noexcept {
        return embeddings + attention + dense_mlp + experts + shared_experts + router + norms + lm_head;
    }
    friend constexpr bool operator==(const ParameterBreakdown&, const ParameterBreakdown&) = default;
};

// What one of t devices holds of one layer's attention (or recurrent mixer): its projections
// and the norms inside it (Precision::attention_format's share of the layer).
constexpr double layer_attention_parameters_per_device(const LayerSpec& spec, double h, std::int64_t attention_t) {
    double p = 0;
    const auto add = [&](const char*, Part part, double, double per_device) {
        if (part != Part::experts) p += per_device;
    };
    std::visit([&](const auto& k) { k.weights(h, attention_t, add); }, spec.attention);
    return p;
}

// What one of t tensor-parallel devices holds of one layer, routed experts aside: each kind's
// share (layers.hpp) and the layer's norms, replicated. Step costs and memory both read it.
// Under attention data parallelism the attention is split over `attention_t` devices only
// (Parallelism::attention_tensor; 0: over t like the rest).
constexpr double layer_parameters_per_device(const LayerSpec& spec, double h, std::int64_t t, std::int64_t attention_t = 0) {
    double p = static_cast<double>(spec.norms) * h + layer_attention_parameters_per_device(spec, h, attention_t > 0 ? attention_t : t);
    const auto add = [&](const char*, Part part, double, double per_device) {
        if (part != Part::experts) p += per_device;
    };
    std::visit([&](const auto& k) { k.weights(h, t, add); }, spec.ffn);
    return p;
}

// What every device keeps whole of one layer, whatever t: its norms and its router (and shared
// gate), stored in Precision::router_and_norm_format, not the linear layers' format.
constexpr double layer_router_and_norm_parameters(const LayerSpec& spec, double h) {
    double p = static_cast<double>(spec.norms) * h;
    const auto add = [&](const char*, Part part, double, double per_device) {
        if (part == Part::router) p += per_device;
    };
    std::visit([&](const auto& k) { k.weights(h, 1, add); }, spec.ffn);
    return p;
}

// The chunk of a model's chunked-attention layers (one size a model, validate), 0 if it has none.
constexpr std::int64_t attention_chunk(const Model& m) noexcept {
    for (const auto& g : m)
        if (g.spec.chunked) return g.spec.window;
    return 0;
}

// The bytes one of t devices holds of one layer outside its routed experts: its share of the
// linear layers at `per_weight` bytes a parameter (the attention's at `per_attention`), and its
// norms and router whole at `per_kept`.
constexpr double layer_bytes_outside_experts(const LayerSpec& spec, double h, std::int64_t t, std::int64_t attention_t,
                                             double per_weight, double per_kept, double per_attention) {
    const double kept = layer_router_and_norm_parameters(spec, h);
    const double all = layer_parameters_per_device(spec, h, t, attention_t) - kept;
    if (per_attention == per_weight) return all * per_weight + kept * per_kept;
    const double attention = layer_attention_parameters_per_device(spec, h, attention_t > 0 ? attention_t : t);
    return (all - attention) * per_weight + attention * per_attention + kept * per_kept;
}

// Per token, the parameters one of t devices multiplies beyond an even t-th share of the
// layer's, routed experts and the layer's norms aside: the weights it keeps whole (a router,
// MLA's down-projections) or in part past their split (KV heads past t = kv_heads). It
// multiplies its own copy, so these FLOPs are not shared either. Under attention data
// parallelism (`attention_data` ranks of t / attention_data devices) a device runs the
// attention of its rank's sequences only, a 1/attention_data share of them, with the heads
// split over fewer devices.
constexpr double replicated_parameters(const LayerSpec& spec, double h, std::int64_t t, std::int64_t attention_data = 1) {
    double p = 0;
    const auto T = static_cast<double>(t), D = static_cast<double>(attention_data);
    const auto attention = [&](const char*, Part part, double full, double per_device) {
        if (part != Part::experts) p += per_device / D - full / T;
    };
    const auto ffn = [&](const char*, Part part, double full, double per_device) {
        if (part != Part::experts) p += per_device - full / T;
    };
    std::visit([&](const auto& k) { k.weights(h, t / attention_data, attention); }, spec.attention);
    std::visit([&](const auto& k) { k.weights(h, t, ffn); }, spec.ffn);
    return p;
}

// Activation elements per token of the layer's widest point on one of t devices (attention and
// FFN outputs live together); each kind says its own.
constexpr double layer_activation_width(const LayerSpec& spec, std::int64_t t) {
    const auto width = [](const auto& k) { return k.activation_width(); };
    return (std::visit(width, spec.attention) + std::visit(width, spec.ffn)) / static_cast<double>(t);
}

// Activation elements one token's pass through a layer writes to device memory and reads back,
// on one of t devices, where the engine's kernels hand their outputs on through memory instead of
// keeping them on chip (Efficiency::activation_traffic; the ceiling keeps them on chip). Each
// block with weights (attention, FFN) adds its residual and norms it: the hidden state and the
// residual read and both written (4h), then its first matmul reads its input and its last writes
// its output (2h). Its activations (activation_width) cross about three times: a gated MLP's gate
// and up outputs are written, read by the activation, whose output is written and read by the
// down projection (6 intermediate widths, 3 x its 2); attention's q, k and v are written, q and k
// read and written again by the rotary embedding, q read by the attention, whose output is
// written and read by the output projection (6q + 4kv of its 3 x (2q + 2kv)).
// Under attention data parallelism (attention_data ranks of t / attention_data devices) a rank
// keeps its own sequences' residual stream and runs their attention, so those terms are a
// 1/attention_data share on average (charged for the busiest rank's sequences, as the cache is:
// StepCost::context_batch), while the FFN's matmuls take every sequence's tokens.
constexpr double layer_activation_traffic(const LayerSpec& spec, double h, std::int64_t t, std::int64_t attention_data = 1) {
    const auto D = static_cast<double>(attention_data);
    const auto has_weights = [h](const auto& k) { return kind_parameters(k, h) > 0; };
    const double attention = std::visit(has_weights, spec.attention) ? 1.0 : 0.0, ffn = std::visit(has_weights, spec.ffn) ? 1.0 : 0.0;
    return 4 * h * (attention + ffn) / D + 2 * h * (attention / D + ffn) + 3 * layer_activation_width(spec, t);
}

// The routed experts of a layer, if any (each FFN kind says).
constexpr RoutedExperts routed_experts(const LayerSpec& spec, double h) {
    return std::visit([h](const auto& f) { return f.routed(h); }, spec.ffn);
}

// How many layers route tokens to experts (each pays Efficiency::per_moe_layer).
constexpr std::int64_t moe_layer_count(const Model& m) {
    std::int64_t n = 0;
    for (const auto& g : m)
        if (routed_experts(g.spec, 1.0).experts > 0) n += g.count;
    return n;
}

// Whether any layer routes tokens to experts (a format for the experts, or an expert-parallel
// degree, means something only then).
constexpr bool has_routed_experts(const Model& m) { return moe_layer_count(m) > 0; }

// The input table's parameters, vocab x hidden (derived_parameters' embeddings, without its
// walk over the layers).
constexpr double embedding_parameters(const Model& m) noexcept {
    return static_cast<double>(m.vocab_size) * static_cast<double>(m.hidden_size);
}

namespace model_detail {
// derived_parameters of a model already validated: a caller that has checked it (a pipeline's
// stages, step_cost_detail::require_costable) need not walk its checks again.
constexpr ParameterBreakdown parameters_of_valid(const Model& m) {
    const double h = static_cast<double>(m.hidden_size);
    ParameterBreakdown p;
    p.embeddings = embedding_parameters(m);
    p.lm_head = m.tied_embeddings ? 0.0 : p.embeddings;
    p.norms = h;  // final norm
    for (const auto& g : m) {
        const double L = static_cast<double>(g.count);
        p.norms += L * static_cast<double>(g.spec.norms) * h;
        const auto add = [&](const char*, Part part, double whole, double) {
            switch (part) {
                case Part::attention: p.attention += L * whole; break;
                case Part::dense_mlp: p.dense_mlp += L * whole; break;
                case Part::experts: p.experts += L * whole; break;
                case Part::shared_experts: p.shared_experts += L * whole; break;
                case Part::router: p.router += L * whole; break;
            }
        };
        std::visit([&](const auto& k) { k.weights(h, 1, add); }, g.spec.attention);
        std::visit([&](const auto& k) { k.weights(h, 1, add); }, g.spec.ffn);
    }
    return p;
}
}  // namespace model_detail

// All parameters of the main model (MTP modules excluded), derived from the architecture: each
// kind's weights summed into their parts.
constexpr ParameterBreakdown derived_parameters(const Model& m) {
    validate(m);
    return model_detail::parameters_of_valid(m);
}

namespace model_detail {
// active_parameters from m's derived_parameters, `all`, which a caller costing every stage has.
constexpr ParameterBreakdown active_from(const Model& m, const ParameterBreakdown& all) {
    ParameterBreakdown p = all;
    double routed_active = 0;
    const double h = static_cast<double>(m.hidden_size);
    for (const auto& g : m) {
        const RoutedExperts r = routed_experts(g.spec, h);
        routed_active += static_cast<double>(g.count * r.per_token) * r.parameters_per_expert;
    }
    p.experts = routed_active;
    return p;
}
}  // namespace model_detail

// The parameters one token uses: every part but the routed experts, of which experts_per_token
// out of experts. The input table is included, as the every-parameter budget charges it;
// publishers differ (gpt-oss and DeepSeek leave it out), so compare part by part.
constexpr ParameterBreakdown active_parameters(const Model& m) { return model_detail::active_from(m, derived_parameters(m)); }

// The transformer block of one multi-token-prediction module, as DeepSeek-V3 builds it: a copy of
// the model's last layer (last_group; DeepSeek-V3's MoE layer), with the model's vocabulary,
// embeddings and LM head (the module reads them; its own norms and eh_proj are the callers',
// mtp_parameters and speculative.hpp).
constexpr Model mtp_block(const Model& m) {
    validate(m);
    Model one = m;
    one.group_count = 0;
    one.groups = {};
    one.run_count = 0;
    one.runs = {};
    one.order_lost = false;
    one.mtp_layers = 0;
    one.declared_parameters.reset();
    LayerSpec last = m.groups[m.last_layer_group()].spec;
    // A module has no earlier layer to share a top-k with: where the last layer reuses one
    // (GLM-5.2's IndexShare), the module runs its own indexer, as vLLM builds it and GLM-5.2's
    // checkpoint ships it (an indexer in layer 78, its MTP layer).
    if (auto* mla = std::get_if<Mla>(&last.attention)) mla->index_shared = false;
    one.add_layers(1, last);
    return one;
}

// One module's weights beside its block and head norm (mtp_block's final norm): eh_proj
// (2h -> h) and the enorm and hnorm that feed it.
constexpr double mtp_projection_parameters(const Model& m) {
    const double h = static_cast<double>(m.hidden_size);
    return 2 * h * h + 2 * h;
}

// All multi-token-prediction modules: each a block, its head norm, eh_proj and two norms; they
// share the embeddings and LM head.
constexpr double mtp_parameters(const Model& m) {
    validate(m);
    if (m.mtp_layers == 0) return 0;
    const ParameterBreakdown p = derived_parameters(mtp_block(m));
    const double layer_and_norm = p.total() - p.embeddings - p.lm_head;
    return static_cast<double>(m.mtp_layers) * (layer_and_norm + mtp_projection_parameters(m));
}

// The count the every-parameter budget uses: the declared one if any, else the derived total.
constexpr double parameter_count(const Model& m) {
    validate(m);
    return m.declared_parameters ? *m.declared_parameters : derived_parameters(m).total();
}

// ---------------------------------------------------------------------------------------------
// KV cache and attention FLOPs
// ---------------------------------------------------------------------------------------------

// Bytes one layer caches per token of context, all heads, in the KV format unless a stream has
// its own (each kind says; layers.hpp).
constexpr Bytes cache_bytes_per_token(const Attention& attention, Format kv) {
    return std::visit([kv](const auto& a) { return a.cache_bytes_per_token(kv); }, attention);
}

// KV written per token of context, all layers (a window caps what is kept and read, not this).
constexpr Bytes kv_bytes_per_token(const Model& m, Format kv) {
    validate(m);
    Bytes b{};
    for (const auto& g : m) b += static_cast<double>(g.count) * cache_bytes_per_token(g.spec.attention, kv);
    return b;
}

// Fixed state one sequence keeps whatever its context (recurrent layers), all layers, in
// `state`'s formats (16 bits unless given).
constexpr Bytes state_bytes_per_sequence(const Model& m, StateFormats state = {}) {
    validate(m);
    Bytes b{};
    for (const auto& g : m) b += static_cast<double>(g.count) * std::visit([&](const auto& a) { return state_bytes(a, state); }, g.spec.attention);
    return b;
}

namespace model_detail {
// A context a per-sequence figure is asked at: 0 to 2^40 tokens, the longest any answer takes
// (a negative or NaN one would give a negative or NaN figure).
constexpr void require_context_value(double context) {
    if (!(context >= 0 && context <= 0x1p40)) throw error("", "context", number_text(context), "a number of tokens from 0 to 2^40");
}
}  // namespace model_detail

// Cached context one sequence reads in a step at `context` tokens (a windowed layer at most its
// window, a chunked one the tokens of its chunk, a top-k attention at most its k), without the
// recurrent state.
constexpr Bytes kv_bytes_read(const Model& m, Format kv, double context) {
    validate(m);
    model_detail::require_context_value(context);
    double read = 0;  // in bytes
    for (const auto& g : m)
        std::visit([&](const auto& a) {
            a.reads(1, [&](const ContextRead& r) {
                read += static_cast<double>(g.count) * r.bytes_per_token(kv) * g.spec.reach(r.cap).read(context);
            });
        }, g.spec.attention);
    return bytes(read);
}

namespace model_detail {
// attention_flops_per_token of a model already validated (a decode step checks it once).
constexpr Flops attention_flops_of_valid(const Model& m, double context) {
    require_context_value(context);
    double f = 0;
    for (const auto& g : m)
        std::visit([&](const auto& a) {
            f += static_cast<double>(g.count) * a.state_flops_per_token();
            a.reads(1, [&](const ContextRead& r) {
                f += static_cast<double>(g.count) * r.decode_flops * g.spec.reach(r.cap).read(context);
            });
        }, g.spec.attention);
    return flop(f);
}
}  // namespace model_detail

// Attention FLOPs for one new token at `context`, all layers, as decode kernels do them (MLA
// absorbed), including a recurrent layer's state update. The seeds' 2P leaves these out.
constexpr Flops attention_flops_per_token(const Model& m, double context) {
    validate(m);
    return model_detail::attention_flops_of_valid(m, context);
}

}  // namespace ridgeline
