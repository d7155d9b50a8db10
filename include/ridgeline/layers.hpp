// The layer kinds a model is built from. Each kind owns its costs in one place: its
// parameters, what one tensor-parallel device holds of them, the elements it caches per token
// and the share of those a device holds, its attention FLOPs per cached token in decode and in
// prefill, and what makes it invalid. A model's answers are sums over its layers, reached
// through std::visit, so a new kind is one new type here and its tests.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

namespace ridgeline {

namespace layer_detail {
constexpr double gated_mlp(double h, double intermediate) { return 3 * h * intermediate; }
constexpr double d(std::int64_t v) { return static_cast<double>(v); }
// `check(field, value, expected)` reports a bad field; the model supplies it.
template <class Check>
constexpr void positive(Check& check, std::int64_t v, const char* field) {
    if (v <= 0) check(field, std::to_string(v), "a positive integer");
}
}  // namespace layer_detail

// Grouped-query attention; multi-head when kv_heads == heads, multi-query when 1.
struct Gqa {
    std::int64_t heads = 0;
    std::int64_t kv_heads = 0;
    std::int64_t head_dim = 0;  // may differ from hidden/heads (Qwen3-32B: 64 x 128 != 5120)
    bool qkv_bias = false;      // biases on q, k, v (Qwen2, gpt-oss)
    bool o_bias = false;        // bias on the output projection (gpt-oss)
    bool qk_norm = false;       // RMSNorm over each q and k head (Qwen3)
    bool sinks = false;         // one learned attention-sink logit per head (gpt-oss)
    friend constexpr bool operator==(const Gqa&, const Gqa&) = default;

    [[nodiscard]] constexpr double q_width() const { return layer_detail::d(heads * head_dim); }
    [[nodiscard]] constexpr double kv_width() const { return layer_detail::d(kv_heads * head_dim); }

    [[nodiscard]] constexpr double parameters(double h) const {
        double p = h * q_width() + 2 * h * kv_width() + q_width() * h;  // q, k, v, o
        if (qkv_bias) p += q_width() + 2 * kv_width();
        if (o_bias) p += h;
        if (qk_norm) p += 2 * layer_detail::d(head_dim);
        if (sinks) p += layer_detail::d(heads);
        return p;
    }
    // One of t devices: q, o and the sinks split by heads; k and v by KV heads, each device
    // keeping at least one whole KV head (replicated past t = kv_heads); the o bias and the
    // q/k norms replicated.
    [[nodiscard]] constexpr double parameters_per_device(double h, std::int64_t t) const {
        const double T = layer_detail::d(t);
        double p = (2 * h * q_width() + (qkv_bias ? q_width() : 0) + (sinks ? layer_detail::d(heads) : 0)) / T;
        p += (2 * h * kv_width() + (qkv_bias ? 2 * kv_width() : 0)) * kv_share(t);
        if (o_bias) p += h;
        if (qk_norm) p += 2 * layer_detail::d(head_dim);
        return p;
    }
    // K and V per KV head.
    [[nodiscard]] constexpr double kv_elements_per_token() const { return 2 * kv_width(); }
    [[nodiscard]] constexpr double kv_share(std::int64_t t) const {
        return 1.0 / layer_detail::d(t < kv_heads ? t : kv_heads);
    }
    // Activation elements per token the layer keeps live (q, k, v and the attention output), all heads.
    [[nodiscard]] constexpr double activation_width() const { return 2 * q_width() + 2 * kv_width(); }
    // q.k and p.v: a multiply-add per head dimension for each, per head.
    [[nodiscard]] constexpr double decode_flops_per_cached_token() const { return 4 * q_width(); }
    [[nodiscard]] constexpr double prefill_flops_per_cached_token() const { return 4 * q_width(); }
    // What a prefill chunk redoes per token cached by earlier chunks besides attending to it: nothing.
    [[nodiscard]] constexpr double prefill_flops_per_prefix_token() const { return 0; }

    template <class Check>
    constexpr void validate(Check& check) const {
        layer_detail::positive(check, heads, "num_attention_heads");
        layer_detail::positive(check, kv_heads, "num_key_value_heads");
        layer_detail::positive(check, head_dim, "head_dim");
        if (heads > 0 && kv_heads > 0 && heads % kv_heads != 0)
            check("num_key_value_heads", std::to_string(kv_heads),
                  "a divisor of num_attention_heads (" + std::to_string(heads) + ")");
    }
    // Tensor parallelism splits the query heads evenly, and the KV heads evenly or replicated.
    [[nodiscard]] constexpr bool splits_over(std::int64_t t) const {
        return heads % t == 0 && (kv_heads % t == 0 || t % kv_heads == 0);
    }
    // What a degree must be, for the error when it is not (not constexpr: strings).
    [[nodiscard]] std::string split_requirement(std::int64_t t) const {
        if (heads % t != 0) return "a divisor of the attention heads (" + std::to_string(heads) + ")";
        return "a divisor or multiple of the KV heads (" + std::to_string(kv_heads) + ")";
    }
    [[nodiscard]] constexpr std::int64_t widest() const { return heads > head_dim ? heads : head_dim; }
};

// Multi-head latent attention (DeepSeek-V2/V3). The cache holds, per token and layer, the
// compressed latent (kv_lora_rank) and the shared rope key (qk_rope_head_dim).
struct Mla {
    std::int64_t heads = 0;
    std::int64_t q_lora_rank = 0;  // 0: q is projected directly from the hidden state
    std::int64_t kv_lora_rank = 0;
    std::int64_t qk_nope_head_dim = 0;
    std::int64_t qk_rope_head_dim = 0;
    std::int64_t v_head_dim = 0;
    friend constexpr bool operator==(const Mla&, const Mla&) = default;

    [[nodiscard]] constexpr double qk_head() const { return layer_detail::d(qk_nope_head_dim + qk_rope_head_dim); }

    // Down-projections and their norms: every device holds them whole (engines replicate them).
    [[nodiscard]] constexpr double replicated_parameters(double h) const {
        const double q_lora = layer_detail::d(q_lora_rank), kv_lora = layer_detail::d(kv_lora_rank);
        double p = h * (kv_lora + layer_detail::d(qk_rope_head_dim)) + kv_lora;  // kv down + rope key, latent norm
        if (q_lora_rank > 0) p += h * q_lora + q_lora;                           // q down, its norm
        return p;
    }
    // Per-head up-projections and the output: split by heads.
    [[nodiscard]] constexpr double split_parameters(double h) const {
        const double H = layer_detail::d(heads), q_in = q_lora_rank > 0 ? layer_detail::d(q_lora_rank) : h;
        return q_in * H * qk_head() + layer_detail::d(kv_lora_rank) * H * layer_detail::d(qk_nope_head_dim + v_head_dim) +
               H * layer_detail::d(v_head_dim) * h;
    }
    [[nodiscard]] constexpr double parameters(double h) const { return replicated_parameters(h) + split_parameters(h); }
    [[nodiscard]] constexpr double parameters_per_device(double h, std::int64_t t) const {
        return replicated_parameters(h) + split_parameters(h) / layer_detail::d(t);
    }
    // The latent and the rope key, shared by all heads: every device caches all of it.
    [[nodiscard]] constexpr double kv_elements_per_token() const { return layer_detail::d(kv_lora_rank + qk_rope_head_dim); }
    [[nodiscard]] constexpr double kv_share(std::int64_t) const { return 1.0; }
    // Activation elements per token: q and the expanded k per head, and the latent with its rope key.
    [[nodiscard]] constexpr double activation_width() const {
        return 2 * layer_detail::d(heads) * qk_head() + kv_elements_per_token();
    }
    // Decode runs the absorbed form: q is taken into the latent space, so per head and cached
    // token the scores cost 2 (kv_lora + rope) and the values 2 kv_lora:
    //     2 H (2 kv_lora + rope)   (DeepSeek-V3: 2 x 128 x (1024 + 64) = 278,528)
    [[nodiscard]] constexpr double decode_flops_per_cached_token() const {
        return 2 * layer_detail::d(heads) * layer_detail::d(2 * kv_lora_rank + qk_rope_head_dim);
    }
    // Prefill runs the expanded form: keys and values are up-projected per head, so per head and
    // cached token the scores cost 2 (nope + rope) and the values 2 v:
    //     2 H (nope + rope + v)   (DeepSeek-V3: 2 x 128 x (128 + 64 + 128) = 81,920)
    [[nodiscard]] constexpr double prefill_flops_per_cached_token() const {
        return 2 * layer_detail::d(heads) * layer_detail::d(qk_nope_head_dim + qk_rope_head_dim + v_head_dim);
    }
    // A later prefill chunk up-projects the latents cached by earlier chunks again (K nope and V
    // for every head): 2 kv_lora H (nope + v) per cached token.
    [[nodiscard]] constexpr double prefill_flops_per_prefix_token() const {
        return 2 * layer_detail::d(kv_lora_rank) * layer_detail::d(heads) * layer_detail::d(qk_nope_head_dim + v_head_dim);
    }

    template <class Check>
    constexpr void validate(Check& check) const {
        layer_detail::positive(check, heads, "num_attention_heads");
        if (q_lora_rank < 0) check("q_lora_rank", std::to_string(q_lora_rank), "an integer >= 0");
        layer_detail::positive(check, kv_lora_rank, "kv_lora_rank");
        layer_detail::positive(check, qk_nope_head_dim, "qk_nope_head_dim");
        layer_detail::positive(check, qk_rope_head_dim, "qk_rope_head_dim");
        layer_detail::positive(check, v_head_dim, "v_head_dim");
    }
    [[nodiscard]] constexpr bool splits_over(std::int64_t t) const { return heads % t == 0; }
    [[nodiscard]] std::string split_requirement(std::int64_t) const {
        return "a divisor of the attention heads (" + std::to_string(heads) + ")";
    }
    [[nodiscard]] constexpr std::int64_t widest() const {
        std::int64_t w = heads;
        for (const std::int64_t v : {q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim}) w = v > w ? v : w;
        return w;
    }
};

// A gated (SwiGLU-style) MLP: gate and up from hidden to intermediate, down back.
struct DenseMlp {
    std::int64_t intermediate = 0;
    friend constexpr bool operator==(const DenseMlp&, const DenseMlp&) = default;

    [[nodiscard]] constexpr double parameters(double h) const { return layer_detail::gated_mlp(h, layer_detail::d(intermediate)); }
    [[nodiscard]] constexpr double parameters_per_device(double h, std::int64_t t) const { return parameters(h) / layer_detail::d(t); }
    [[nodiscard]] constexpr double active_parameters(double h) const { return parameters(h); }
    // Activation elements per token: the gate and up outputs.
    [[nodiscard]] constexpr double activation_width() const { return 2 * layer_detail::d(intermediate); }
    [[nodiscard]] constexpr std::int64_t widest() const { return intermediate; }

    template <class Check>
    constexpr void validate(Check& check) const {
        layer_detail::positive(check, intermediate, "intermediate_size");
    }
};

// Routed experts (each a gated MLP of expert_intermediate), a router, and shared experts that
// every token uses.
struct Moe {
    std::int64_t experts = 0;
    std::int64_t experts_per_token = 0;
    std::int64_t expert_intermediate = 0;
    std::int64_t shared_experts = 0;
    std::int64_t shared_intermediate = 0;  // per shared expert
    bool router_bias = false;  // a bias per expert on the router (gpt-oss; DeepSeek-V3's correction bias)
    bool expert_bias = false;  // biases inside each expert's projections (gpt-oss)
    friend constexpr bool operator==(const Moe&, const Moe&) = default;

    // One routed expert, with its gate/up and down biases where it has them.
    [[nodiscard]] constexpr double expert_parameters(double h) const {
        const double I = layer_detail::d(expert_intermediate);
        return layer_detail::gated_mlp(h, I) + (expert_bias ? 2 * I + h : 0.0);
    }
    [[nodiscard]] constexpr double routed_parameters(double h) const { return layer_detail::d(experts) * expert_parameters(h); }
    [[nodiscard]] constexpr double shared_parameters(double h) const {
        return layer_detail::d(shared_experts) * layer_detail::gated_mlp(h, layer_detail::d(shared_intermediate));
    }
    [[nodiscard]] constexpr double router_parameters(double h) const {
        return h * layer_detail::d(experts) + (router_bias ? layer_detail::d(experts) : 0.0);
    }
    // Everything but the routed experts, on one of t devices: shared experts split, the router
    // replicated (engines keep it whole on every device).
    [[nodiscard]] constexpr double non_routed_parameters_per_device(double h, std::int64_t t) const {
        return shared_parameters(h) / layer_detail::d(t) + router_parameters(h);
    }
    // What one of t devices holds besides the routed experts, under the name every FFN kind answers.
    [[nodiscard]] constexpr double parameters_per_device(double h, std::int64_t t) const {
        return non_routed_parameters_per_device(h, t);
    }
    // Activation elements per token: gate and up outputs of the k chosen and the shared experts.
    [[nodiscard]] constexpr double activation_width() const {
        return 2 * layer_detail::d(experts_per_token * expert_intermediate + shared_experts * shared_intermediate);
    }
    [[nodiscard]] constexpr std::int64_t widest() const {
        std::int64_t w = experts;
        for (const std::int64_t v : {expert_intermediate, shared_experts, shared_intermediate}) w = v > w ? v : w;
        return w;
    }

    template <class Check>
    constexpr void validate(Check& check) const {
        layer_detail::positive(check, experts, "number of routed experts");
        layer_detail::positive(check, experts_per_token, "num_experts_per_tok");
        layer_detail::positive(check, expert_intermediate, "moe_intermediate_size");
        if (shared_experts < 0) check("number of shared experts", std::to_string(shared_experts), "an integer >= 0");
        if (shared_experts > 0) layer_detail::positive(check, shared_intermediate, "shared expert intermediate size");
        if (experts_per_token > experts)
            check("num_experts_per_tok", std::to_string(experts_per_token),
                  "at most the number of routed experts (" + std::to_string(experts) + ")");
    }
};

}  // namespace ridgeline
