// Speculative decoding: a draft proposes g tokens, the target model scores all g + 1 positions in
// one pass that reads its weights and KV once, and keeps the accepted prefix plus one token.
#pragma once

#include <cstdint>
#include <string>

#include "decode.hpp"
#include "memory.hpp"

namespace ridgeline {

struct Speculation {
    std::int64_t draft_tokens = 4;  // g
    double acceptance = 0.8;        // a: chance each drafted token is accepted, independently
    // A draft model's tensor-parallel degree: 0, the target's (vLLM's default, and the only other
    // value it takes is 1: vllm-project/vllm@f19b16d95e4395790661f4835e4436bc3dd5d9c7
    // vllm/config/speculative.py, _verify_and_get_draft_tp), or 1, one device of the deployment.
    std::int64_t draft_tensor = 0;
};

constexpr void validate(const Speculation& s) {
    if (s.draft_tokens < 1 || s.draft_tokens > 1024)
        throw error("", "speculation.draft_tokens", std::to_string(s.draft_tokens), "an integer from 1 to 1024");
    if (!(s.acceptance >= 0 && s.acceptance <= 1))
        throw error("", "speculation.acceptance", number_text(s.acceptance), "a probability in [0, 1]");
    if (s.draft_tensor < 0)
        throw error("", "speculation.draft_tensor", std::to_string(s.draft_tensor), "0 (the target's degree), 1, or the target's degree");
}

// Expected tokens a sequence gains per verification: 1 + a + a^2 + ... + a^g = (1 - a^(g+1)) / (1 - a).
constexpr double expected_tokens_per_verification(const Speculation& s) {
    validate(s);
    double sum = 0, term = 1;
    for (std::int64_t i = 0; i <= s.draft_tokens; ++i, term *= s.acceptance) sum += term;
    return sum;
}

struct SpeculativeDecode {
    double expected_tokens = 1;  // per sequence per verification
    DecodeStep plain{};          // the target decoding one token
    DecodeStep verify{};         // the target scoring g + 1 tokens per sequence
    Seconds draft_time{};        // the draft's g steps (0 without a draft model)
    Seconds cycle_time{};        // draft + verify
    PerSecond tokens_per_s{};        // per sequence
    PerSecond total_tokens_per_s{};  // all sequences
    double speedup = 1;              // over plain decode of the same batch
    // One device: the target's verification pass (decode's memory), plus the draft model's
    // weights and its cache of every sequence in flight on the device that holds it (with a
    // one-device draft, on the target's busiest device too). The two passes run in turn, so the
    // workspace is the larger of theirs.
    MemoryUse memory{};
    [[nodiscard]] constexpr bool fits() const noexcept { return memory.fits(); }
};

// One verification's workload: each sequence's g drafts and the token after them, read by the
// target in one pass over g + 1 positions (speculative_decode and diagnose's least acceptance).
constexpr Workload verification_workload(Workload w, std::int64_t draft_tokens) {
    w.tokens_per_sequence = draft_tokens + 1;
    return w;
}

// `draft`, if given, runs g steps of its own with the same workload on the deployment's devices,
// split `s.draft_tensor` ways (the target's degree unless set; no pipeline or expert split), as
// decode costs it; it must share the target's vocabulary, as vLLM requires of a draft model.
// Without one the draft is free (prompt lookup, n-grams), which is the upper bound. At batches where the target is compute-bound, verifying g + 1 tokens costs
// about g + 1 steps and the speedup falls below 1.
constexpr SpeculativeDecode speculative_decode(const Deployment& hw, const Model& target, const Workload& w,
                                               const Speculation& s, const Model* draft = nullptr) {
    validate(s);
    // The verification reads the cache through context + g: the model's positions must reach it.
    if (w.context > max_context - s.draft_tokens)
        throw error("", "context + draft tokens", std::to_string(w.context) + " + " + std::to_string(s.draft_tokens), "at most 2^40 tokens");
    require_context_within(target, w.context + s.draft_tokens, "context + draft tokens");
    SpeculativeDecode r;
    r.expected_tokens = expected_tokens_per_verification(s);
    Workload plain = w;
    plain.tokens_per_sequence = 1;
    r.plain = decode_step(hw, target, plain);
    r.verify = decode_step(hw, target, verification_workload(plain, s.draft_tokens));
    r.memory = r.verify.memory;
    if (draft) {
        if (draft->vocab_size != target.vocab_size)
            throw error("", "draft model", "'" + std::string(draft->name.view()) + "' (" + std::to_string(draft->vocab_size) + " tokens)",
                        "a model with the target's vocabulary (" + std::to_string(target.vocab_size) + " tokens): its drafts are the "
                        "target's tokens");
        // The draft reads its own cache up to context + g - 1; a limit raised for the target
        // (max_context_lever) is not the draft's.
        if (draft->max_context > 0 && w.context + s.draft_tokens - 1 > draft->max_context)
            throw error("", "draft model", "'" + std::string(draft->name.view()) + "' (max_position_embeddings " +
                                               std::to_string(draft->max_context) + ")",
                        "a draft whose max_position_embeddings reaches the context + draft tokens - 1 (" +
                            std::to_string(w.context + s.draft_tokens - 1) + "), or a shorter context");
        // A pipeline keeps a micro-batch in flight per stage, each needing its own drafts: which
        // devices draft for which, and when, is not modelled, so no answer is given for it.
        if (hw.parallel.pipeline > 1)
            throw error("", "pipeline-parallel degree", std::to_string(hw.parallel.pipeline),
                        "1 with a draft model: its steps for each micro-batch in flight are not modelled");
        // As vLLM: the target's degree or one device, no other (the deployment has no other devices).
        if (s.draft_tensor > 1 && s.draft_tensor != hw.parallel.tensor)
            throw error("", "speculation.draft_tensor", std::to_string(s.draft_tensor),
                        "0 (the target's degree), 1, or the target's degree (" + std::to_string(hw.parallel.tensor) + ")");
        Parallelism split = hw.parallel;
        split.tensor = s.draft_tensor > 0 ? s.draft_tensor : hw.parallel.tensor;
        // The draft runs tensor-parallel (or on one device) whatever the target's attention split.
        split.pipeline = split.expert = split.data = split.attention_data = 1;
        const Deployment on{hw.device, split};
        r.draft_time = static_cast<double>(s.draft_tokens) * decode_step(on, *draft, plain).step_time;
        // vLLM's draft shares the target's memory budget (gpu_memory_utilization covers both): its
        // weights and its cache of every sequence at its last step's context, n + g - 1.
        Workload last = plain;
        last.context = w.context + s.draft_tokens - 1;
        const MemoryUse drafting = memory_use(on, *draft, last);
        r.memory.weights += drafting.weights;
        r.memory.kv += drafting.kv;
        if (drafting.activations > r.memory.activations) r.memory.activations = drafting.activations;
    }
    r.cycle_time = r.draft_time + r.verify.step_time;
    r.tokens_per_s = r.expected_tokens / r.cycle_time;
    r.total_tokens_per_s = static_cast<double>(w.batch) * static_cast<double>(hw.parallel.pipeline * hw.parallel.data) * r.tokens_per_s;
    r.speedup = static_cast<double>(r.tokens_per_s / r.plain.tokens_per_s);
    return r;
}

}  // namespace ridgeline
