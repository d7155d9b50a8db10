// The feed-forward kinds: what a layer does to each token on its own. Each says its weights
// and their parts, any routed experts, its activation width and what makes it invalid.
#pragma once

#include <cstdint>
#include <string>

#include "layer_kind.hpp"

namespace ridgeline {

// A gated (SwiGLU / GeGLU) MLP: gate and up from hidden to intermediate, down back.
struct DenseMlp {
    std::int64_t intermediate = 0;
    bool bias = false;  // mlp_bias: biases on gate, up (intermediate each) and down (hidden)
    friend constexpr bool operator==(const DenseMlp&, const DenseMlp&) = default;

    // Split by intermediate columns; the down bias replicated.
    template <class F>
    constexpr void weights(double h, std::int64_t t, F&& f) const {
        const double I = layer_detail::d(intermediate);
        const double split = layer_detail::gated_mlp(h, I) + (bias ? 2 * I : 0);
        f("mlp (gate, up, down)", Part::dense_mlp, split + (bias ? h : 0), split / layer_detail::d(t) + (bias ? h : 0));
    }
    // Each linear layer's inputs and the devices they are split over (layer_kind.hpp, row_inputs):
    // gate and up read the hidden state whole; down's intermediate inputs are split t ways.
    template <class F>
    constexpr void row_inputs(std::int64_t h, std::int64_t t, std::int64_t, F&& f) const {
        f("gate_proj and up_proj", Part::dense_mlp, h, 1);
        f("down_proj", Part::dense_mlp, intermediate, t);
    }
    [[nodiscard]] constexpr RoutedExperts routed(double) const { return {}; }
    // Activation elements per token: the gate and up outputs.
    [[nodiscard]] constexpr double activation_width() const { return 2 * layer_detail::d(intermediate); }
    [[nodiscard]] constexpr std::int64_t widest() const { return intermediate; }
    template <class Check>
    constexpr void validate(Check& check) const {
        layer_detail::positive(check, intermediate, "intermediate_size");
    }
    [[nodiscard]] std::string describe() const { return "MLP " + std::to_string(intermediate); }
};

// A two-matrix MLP without a gate (Nemotron-H's ReLU^2 MLP: up from hidden to intermediate, the
// activation, down back), as NemotronHMLP builds it in huggingface/transformers
//   src/transformers/models/nemotron_h/modular_nemotron_h.py @008d9e9577b0eb0149aa6bb0c44da582b10e0b6e:
//   up_proj hidden -> intermediate and down_proj intermediate -> hidden, each with a bias only
//   with mlp_bias.
struct NonGatedMlp {
    std::int64_t intermediate = 0;
    bool bias = false;  // mlp_bias: a bias on up (intermediate) and on down (hidden)
    friend constexpr bool operator==(const NonGatedMlp&, const NonGatedMlp&) = default;

    // Split by intermediate columns (up by its outputs, down by its inputs); the down bias replicated.
    template <class F>
    constexpr void weights(double h, std::int64_t t, F&& f) const {
        const double I = layer_detail::d(intermediate);
        const double split = 2 * h * I + (bias ? I : 0);
        f("mlp (up, down; no gate)", Part::dense_mlp, split + (bias ? h : 0), split / layer_detail::d(t) + (bias ? h : 0));
    }
    template <class F>
    constexpr void row_inputs(std::int64_t h, std::int64_t t, std::int64_t, F&& f) const {
        f("up_proj", Part::dense_mlp, h, 1);
        f("down_proj", Part::dense_mlp, intermediate, t);
    }
    [[nodiscard]] constexpr RoutedExperts routed(double) const { return {}; }
    // Activation elements per token: the up output (the activation works in place).
    [[nodiscard]] constexpr double activation_width() const { return layer_detail::d(intermediate); }
    [[nodiscard]] constexpr std::int64_t widest() const { return intermediate; }
    template <class Check>
    constexpr void validate(Check& check) const {
        layer_detail::positive(check, intermediate, "intermediate_size");
    }
    [[nodiscard]] std::string describe() const { return "MLP " + std::to_string(intermediate) + " (no gate)"; }
};

// Routed experts (each a gated MLP of expert_intermediate, or with `ungated` a two-matrix one),
// a router, and shared experts that every token uses, of the same kind.
struct Moe {
    std::int64_t experts = 0;
    std::int64_t experts_per_token = 0;
    std::int64_t expert_intermediate = 0;
    std::int64_t shared_experts = 0;
    std::int64_t shared_intermediate = 0;  // per shared expert
    bool router_bias = false;  // a bias per expert on the router (gpt-oss; DeepSeek-V3's correction bias)
    bool expert_bias = false;  // biases inside each expert's projections (gpt-oss)
    bool shared_gate = false;  // a hidden -> 1 sigmoid gate on the shared expert (Qwen3-Next)
    bool ungated = false;      // experts are NonGatedMlps, up and down only (Nemotron 3's ReLU^2)
    // The routed experts' width, where they work in a latent behind a hidden -> latent and a
    // latent -> hidden projection (Nemotron 3 Super's LatentMoE); 0: the hidden size.
    std::int64_t latent = 0;
    friend constexpr bool operator==(const Moe&, const Moe&) = default;

    // One expert of width `intermediate`: a DenseMlp or, ungated, a NonGatedMlp, biases and all.
    [[nodiscard]] constexpr double mlp_parameters(double h, std::int64_t intermediate, bool bias) const {
        return ungated ? kind_parameters(NonGatedMlp{intermediate, bias}, h) : kind_parameters(DenseMlp{intermediate, bias}, h);
    }
    // One routed expert, with its biases where it has them.
    [[nodiscard]] constexpr double expert_parameters(double h) const {
        return mlp_parameters(latent > 0 ? layer_detail::d(latent) : h, expert_intermediate, expert_bias);
    }
    // The two projections into and out of the latent, with biases where the experts have them.
    [[nodiscard]] constexpr double latent_parameters(double h) const {
        const double l = layer_detail::d(latent);
        return latent > 0 ? 2 * h * l + (expert_bias ? l + h : 0.0) : 0.0;
    }
    [[nodiscard]] constexpr double routed_parameters(double h) const { return layer_detail::d(experts) * expert_parameters(h); }
    [[nodiscard]] constexpr double shared_parameters(double h) const {
        return shared_experts > 0 ? layer_detail::d(shared_experts) * mlp_parameters(h, shared_intermediate, false) : 0.0;
    }
    [[nodiscard]] constexpr double router_parameters(double h) const {
        return h * layer_detail::d(experts) + (router_bias ? layer_detail::d(experts) : 0.0) + (shared_gate ? h : 0.0);
    }
    // The router (and shared gate) replicated: engines keep it whole on every device. Shared
    // experts split like a dense MLP; routed experts split 1/t each (expert parallelism decides
    // which devices, step_cost.hpp how many a batch touches).
    template <class F>
    constexpr void weights(double h, std::int64_t t, F&& f) const {
        const double T = layer_detail::d(t);
        f("router", Part::router, router_parameters(h), router_parameters(h));
        if (shared_experts > 0) f("shared experts", Part::shared_experts, shared_parameters(h), shared_parameters(h) / T);
        // Run for every token, and replicated: TensorRT-LLM builds both as plain Linears.
        if (latent > 0) f("latent projections (fc1, fc2)", Part::shared_experts, latent_parameters(h), latent_parameters(h));
        f("routed experts", Part::experts, routed_parameters(h), routed_parameters(h) / T);
    }
    // Each expert's slices sit on t / e devices (expert parallelism e), each down_proj's inputs
    // split over them; shared experts split like a dense MLP.
    template <class F>
    constexpr void row_inputs(std::int64_t h, std::int64_t t, std::int64_t e, F&& f) const {
        if (shared_experts > 0) {
            f("shared experts' gate and up", Part::shared_experts, h, 1);
            f("shared experts' down_proj", Part::shared_experts, shared_intermediate, t);
        }
        if (latent > 0) {
            f("fc1_latent_proj", Part::shared_experts, h, 1);
            f("fc2_latent_proj", Part::shared_experts, latent, 1);
        }
        f("experts' gate and up", Part::experts, latent > 0 ? latent : h, 1);
        f("experts' down_proj", Part::experts, expert_intermediate, e > 0 && t % e == 0 ? t / e : 1);
    }
    [[nodiscard]] constexpr RoutedExperts routed(double h) const { return {experts, experts_per_token, expert_parameters(h)}; }
    // Activation elements per token: gate and up outputs (up alone, ungated) of the k chosen and
    // the shared experts.
    [[nodiscard]] constexpr double activation_width() const {
        return (ungated ? 1.0 : 2.0) * layer_detail::d(experts_per_token * expert_intermediate + shared_experts * shared_intermediate) +
               2 * layer_detail::d(latent);  // the token in the latent, and the experts' sum there
    }
    [[nodiscard]] constexpr std::int64_t widest() const {
        return layer_detail::widest_of({experts, expert_intermediate, shared_experts, shared_intermediate, latent});
    }
    template <class Check>
    constexpr void validate(Check& check) const {
        layer_detail::positive(check, experts, "number of routed experts");
        layer_detail::positive(check, experts_per_token, "num_experts_per_tok");
        layer_detail::positive(check, expert_intermediate, "moe_intermediate_size");
        layer_detail::non_negative(check, shared_experts, "number of shared experts");
        if (shared_experts > 0) layer_detail::positive(check, shared_intermediate, "shared expert intermediate size");
        layer_detail::non_negative(check, latent, "moe_latent_size");
        if (experts_per_token > experts)
            check("num_experts_per_tok", std::to_string(experts_per_token),
                  "at most the number of routed experts (" + std::to_string(experts) + ")");
    }
    [[nodiscard]] std::string describe() const {
        std::string d = "MoE " + std::to_string(experts) + " experts top-" + std::to_string(experts_per_token) + " x " +
                        std::to_string(expert_intermediate);
        if (shared_experts > 0) d += " + " + std::to_string(shared_experts) + " shared";
        if (latent > 0) d += " in a latent of " + std::to_string(latent);
        return ungated ? d + " (no gate)" : d;
    }
};

// No feed-forward (a layer that skips it), or one hidden x hidden matrix in its place
// (nemotron-nas's no_op and replace_with_linear).
struct NoFfn {
    bool linear = false;
    friend constexpr bool operator==(const NoFfn&, const NoFfn&) = default;

    template <class F>
    constexpr void weights(double h, std::int64_t t, F&& f) const {
        if (linear) f("linear (in place of the MLP)", Part::dense_mlp, h * h, h * h / layer_detail::d(t));
    }
    template <class F>
    constexpr void row_inputs(std::int64_t h, std::int64_t, std::int64_t, F&& f) const {
        if (linear) f("linear (in place of the MLP)", Part::dense_mlp, h, 1);
    }
    [[nodiscard]] constexpr RoutedExperts routed(double) const { return {}; }
    [[nodiscard]] constexpr double activation_width() const { return 0; }
    [[nodiscard]] constexpr std::int64_t widest() const { return 0; }
    template <class Check>
    constexpr void validate(Check&) const {}
    [[nodiscard]] std::string describe() const { return linear ? "linear in place of the MLP" : "no MLP"; }
};

}  // namespace ridgeline
