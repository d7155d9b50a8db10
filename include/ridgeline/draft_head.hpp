// An EAGLE-3 draft head: a small decoder that drafts from the target's own hidden states. Its
// costs beside a plain Llama layer come from how vLLM builds it
// (vllm-project/vllm@00bd1493b3e82d6c13c68ee8a0e1c5a96707e190
// vllm/model_executor/models/llama_eagle3.py):
//  - the first layer's qkv_proj reads 2h, the token's embedding beside the hidden state, split
//    over the tensor-parallel devices as the heads are, and a third norm (hidden_norm) feeds it;
//  - fc, 3 x target_hidden -> h, fuses three of the target's layers' hidden states; it is a
//    ReplicatedLinear (every device holds and multiplies it whole) run once a cycle, over the
//    positions the target has just verified (combine_hidden_states);
//  - its own LM head over draft_vocab_size tokens (a ParallelLMHead, split over the devices),
//    mapped into the target's vocabulary by a table (d2t);
//  - the input embeddings are the target's, shared.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "deployment.hpp"
#include "model.hpp"
#include "workload.hpp"

namespace ridgeline {

struct DraftHead {
    // Its decoder layers as the Llama they are, with vocab_size the draft vocabulary (so the LM
    // head model.hpp counts is the head's own) and no position limit of its own (the target's
    // applies; see draft_head_from_config).
    Model block;
    std::int64_t target_vocab = 0;   // vocab_size: the target vocabulary its drafts are mapped into
    std::int64_t target_hidden = 0;  // target_hidden_size: the width of each fused hidden state
    bool fuses_hidden_states = true; // eagle_config.use_aux_hidden_state: fc runs (3 layers' states)
    // The formats its checkpoint ships in (torch_dtype, quantization_config): engines load a head
    // with its own quantization, not the target's (vLLM's get_draft_quant_config).
    Format weights = formats::bf16;
    Format lm_head = formats::bf16;
    friend constexpr bool operator==(const DraftHead&, const DraftHead&) = default;
};

constexpr void validate(const DraftHead& d) {
    validate(d.block);
    // The name is built only to throw: a constant evaluation makes no string it does not need.
    const auto field = [&d](const char* key) { return "draft head '" + std::string(d.block.name.view()) + "' " + key; };
    if (!std::holds_alternative<Gqa>(d.block.groups[0].spec.attention))
        throw error("", field("attention"), "not grouped-query", "a Llama decoder layer's (an EAGLE-3 head's)");
    if (d.target_vocab < d.block.vocab_size || d.target_vocab > model_detail::max_vocab)
        throw error("", field("vocab_size"), std::to_string(d.target_vocab),
                    "the target's vocabulary, from the draft vocabulary (" + std::to_string(d.block.vocab_size) + ") to 2^31");
    if (d.target_hidden <= 0 || d.target_hidden > model_detail::max_dimension)
        throw error("", field("target_hidden_size"), std::to_string(d.target_hidden), "a width from 1 to 2^24");
}

namespace draft_head_detail {
// The first layer's qkv_proj weights for its second h of input, on one of `ta` devices that
// split the heads (k and v replicated past the KV heads, as the layer's own).
constexpr double second_input_parameters_per_device(const DraftHead& d, std::int64_t ta) {
    const Gqa& a = std::get<Gqa>(d.block.groups[0].spec.attention);
    const double h = static_cast<double>(d.block.hidden_size);
    return h * (a.q_width() / static_cast<double>(ta) + 2 * a.kv_width() * a.kv_share(ta));
}
constexpr double fc_parameters(const DraftHead& d) {
    return d.fuses_hidden_states ? 3.0 * static_cast<double>(d.target_hidden) * static_cast<double>(d.block.hidden_size) : 0.0;
}
}  // namespace draft_head_detail

// What the head's checkpoint holds beside the shared embeddings: its layers, the second input
// of the first qkv_proj, hidden_norm, fc, the final norm and its LM head (not the d2t table,
// integers that no step reads). A publisher's count to check it against: EAGLE3-Apertus-8B's
// card says about 513M (test_speculative.cpp).
constexpr double draft_head_parameters(const DraftHead& d) {
    validate(d);
    const ParameterBreakdown p = derived_parameters(d.block);
    const double h = static_cast<double>(d.block.hidden_size);
    return p.total() - p.embeddings + draft_head_detail::second_input_parameters_per_device(d, 1) + h +
           draft_head_detail::fc_parameters(d);
}

// What a draft (a head or a draft model) stored in `weights` multiplies in on `device`: what its
// own kernels do, not the target's. fp8 weights compute in fp8 on a device with an fp8 peak
// (vLLM's Fp8LinearMethod, W8A8; plan_detail::unasked_compute gives the rule and its source);
// any other storage in 16 bits, weight-only kernels dequantising to 16-bit math, in the target's
// 16-bit type where the device has it (vLLM gives the draft the target's dtype), else the
// device's default.
constexpr Numeric draft_compute(Format weights, const Precision& target, const Hardware& device) {
    if (weights.element == Numeric::fp8 && device.peak_for(Numeric::fp8)) return Numeric::fp8;
    if (element_bits(target.compute) == 16 && device.peak_for(target.compute)) return target.compute;
    return default_compute(device);
}

// The precision a draft model runs in on `device`: its checkpoint's formats (`formats`,
// LoadedModel::precision), its cache and recurrent state in the target's formats (one cache
// config for both), computing as draft_compute says.
constexpr Precision draft_model_precision(const Precision& formats, const Precision& target, const Hardware& device) {
    Precision p = formats;
    p.kv = target.kv;
    p.state = target.state;
    p.compute = draft_compute(formats.weights, target, device);
    return p;
}

// The precision a head runs in on `device`: its checkpoint's weights, with the target's cache and
// embedding-table formats (the table is the target's; the cache is allocated as the target's,
// vLLM's speculative kv_cache_dtype aside), computing as draft_compute says.
constexpr Precision draft_head_precision(const DraftHead& d, const Precision& target, const Hardware& device) {
    Precision p = target;
    p.weights = d.weights;
    p.lm_head = d.lm_head;
    p.experts.reset();
    p.attention.reset();         // the head's attention, in its checkpoint's format
    p.router_and_norms.reset();  // the head's own norms, in its checkpoint's format
    p.embeddings = target.embedding_format();
    p.compute = draft_compute(d.weights, target, device);
    return p;
}

// The bytes one device holds of the head beyond layer_weights_per_device and the LM head: the
// first qkv_proj's second input (split), hidden_norm, the final norm and fc (whole).
constexpr Bytes draft_head_extra_bytes(const DraftHead& d, const Parallelism& par) {
    validate(d);
    validate(par);
    const std::int64_t ta = par.attention_tensor();
    const Gqa& attention = std::get<Gqa>(d.block.groups[0].spec.attention);
    if (!attention.splits_over(ta))
        throw error("", "draft head '" + std::string(d.block.name.view()) + "' tensor-parallel degree", std::to_string(ta),
                    attention.split_requirement(ta));
    const double h = static_cast<double>(d.block.hidden_size);
    return (draft_head_detail::second_input_parameters_per_device(d, ta) + 2 * h + draft_head_detail::fc_parameters(d)) *
           d.weights.bytes_per_element();
}

}  // namespace ridgeline
