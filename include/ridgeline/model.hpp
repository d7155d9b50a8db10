// A dense decoder-only transformer, described with the fields of a HuggingFace config.json.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "error.hpp"
#include "formats.hpp"
#include "name.hpp"
#include "units.hpp"

namespace ridgeline {

struct Model {
    Name name;
    std::int64_t layers = 0;             // num_hidden_layers
    std::int64_t hidden_size = 0;        // hidden_size
    std::int64_t attention_heads = 0;    // num_attention_heads
    std::int64_t kv_heads = 0;           // num_key_value_heads (= heads for MHA)
    std::int64_t head_dim = 0;           // head_dim (may differ from hidden/heads: Qwen3-32B)
    std::int64_t intermediate_size = 0;  // gated MLP width
    std::int64_t vocab_size = 0;
    bool tied_embeddings = false;        // tie_word_embeddings: the LM head is the input table
    bool attention_bias = false;         // biases on q, k, v (Qwen2)
    bool qk_norm = false;                // RMSNorm over each q and k head (Qwen3)
    // A published parameter count, used in place of the one derived from the architecture
    // where a document's figures were computed from it (seed 003 rounds 70.55e9 to 70.6e9).
    std::optional<double> declared_parameters{};

    constexpr Model& with_parameters(double count) noexcept {
        declared_parameters = count;
        return *this;
    }
    friend constexpr bool operator==(const Model&, const Model&) = default;
};

// Parameters by where they sit, derived from the architecture alone.
struct ParameterBreakdown {
    double embeddings = 0;  // input table, vocab x hidden
    double attention = 0;   // q, k, v, o projections (+ biases, q/k norms), all layers
    double mlp = 0;         // gate, up, down, all layers
    double norms = 0;       // two RMSNorms per layer and the final one
    double lm_head = 0;     // 0 when tied to the embeddings
    [[nodiscard]] constexpr double total() const noexcept {
        return embeddings + attention + mlp + norms + lm_head;
    }
};

// Throws ridgeline::error naming the field when the architecture cannot describe a model.
constexpr void validate(const Model& m) {
    const auto positive = [&](std::int64_t v, const char* field) {
        if (v <= 0)
            throw error("", std::string("model '") + std::string(m.name.view()) + "' " + field,
                        std::to_string(v), "a positive integer");
    };
    positive(m.layers, "num_hidden_layers");
    positive(m.hidden_size, "hidden_size");
    positive(m.attention_heads, "num_attention_heads");
    positive(m.kv_heads, "num_key_value_heads");
    positive(m.head_dim, "head_dim");
    positive(m.intermediate_size, "intermediate_size");
    positive(m.vocab_size, "vocab_size");
    if (m.attention_heads % m.kv_heads != 0)
        throw error("", "model '" + std::string(m.name.view()) + "' num_key_value_heads",
                    std::to_string(m.kv_heads),
                    "a divisor of num_attention_heads (" + std::to_string(m.attention_heads) + ")");
    if (m.declared_parameters && !(*m.declared_parameters > 0 && *m.declared_parameters < 1e16))
        throw error("", "model '" + std::string(m.name.view()) + "' declared parameters",
                    std::to_string(*m.declared_parameters), "a positive, finite count");
}

constexpr ParameterBreakdown derived_parameters(const Model& m) {
    validate(m);
    const double h = static_cast<double>(m.hidden_size);
    const double q_width = static_cast<double>(m.attention_heads * m.head_dim);
    const double kv_width = static_cast<double>(m.kv_heads * m.head_dim);
    const double L = static_cast<double>(m.layers);

    double attention = h * q_width + 2 * h * kv_width + q_width * h;  // q, k, v, o
    if (m.attention_bias) attention += q_width + 2 * kv_width;
    if (m.qk_norm) attention += 2 * static_cast<double>(m.head_dim);

    ParameterBreakdown p;
    p.embeddings = static_cast<double>(m.vocab_size) * h;
    p.attention = L * attention;
    p.mlp = L * 3 * h * static_cast<double>(m.intermediate_size);
    p.norms = L * 2 * h + h;
    p.lm_head = m.tied_embeddings ? 0.0 : p.embeddings;
    return p;
}

// The count the every-parameter budget uses: the declared one if any, else the derived total.
constexpr double parameter_count(const Model& m) {
    validate(m);
    return m.declared_parameters ? *m.declared_parameters : derived_parameters(m).total();
}

// K and V for every layer, for one token of context.
constexpr Bytes kv_bytes_per_token(const Model& m, Format kv) {
    validate(m);
    return 2.0 * static_cast<double>(m.layers * m.kv_heads * m.head_dim) * kv.bytes_per_element();
}

// Attention-score FLOPs for one new token against `context` cached tokens: q.k and p.v, each a
// multiply-add per head dimension per cached token. The seeds' 2P leaves these out.
constexpr Flops attention_flops_per_token(const Model& m, double context) {
    validate(m);
    return flop(4.0 * static_cast<double>(m.layers * m.attention_heads * m.head_dim) * context);
}

}  // namespace ridgeline
