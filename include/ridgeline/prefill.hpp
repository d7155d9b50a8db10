// Prefill: the prompt's tokens pushed through the model at once (or in chunks), writing their
// KV. It reads the weights once per chunk and does 2 FLOPs per active parameter per token (the
// LM head's only for the token each prompt samples) plus attention FLOPs that grow with the
// square of the prompt, so it is usually compute-bound.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "decode.hpp"

namespace ridgeline {

struct Prefill {
    // What it counts: the workload's. Its attention FLOPs (the quadratic term) are counted in
    // `flops` and the time unless the workload turns them off, as the seeds' 2P does.
    Assumptions assumptions{};
    std::int64_t prompt_tokens = 0;
    std::int64_t chunk_tokens = 0;  // tokens per sequence per chunk
    std::int64_t chunks = 0;
    Bytes bytes_per_device{};       // weights once per chunk, KV read and written
    Bytes kv_bytes_per_device{};    // of those, the KV read and written (and activations, Efficiency::activation_traffic)
    Flops flops{};                  // all devices: matmuls and attention
    Flops attention_flops{};        // all devices; reported always, in `flops` only when counted
    Seconds memory_time{};          // summed over chunks, one stage
    Seconds compute_time{};
    Seconds imbalance_time{};       // of compute_time, the busiest expert group's extra (StepCost::routed_imbalance_flops)
    Seconds time{};                 // the time to first token: every chunk through every stage, pipelined
    // Link messages the time waits for (each pays Efficiency::per_message): every chunk's on one
    // stage, the slowest chunk's on each further stage, and the last chunk's hops.
    double messages = 0;
    // Stage passes the time waits for, each paying the stage's fixed times (every chunk's on one
    // stage, the slowest chunk's on each further stage: chunks + p - 1), and the stage's layers
    // and MoE layers that pay Efficiency::per_layer and per_moe_layer on each.
    double stage_passes = 0, stage_layers = 0, stage_moe_layers = 0;
    Bound bound = Bound::compute;   // of the summed memory and compute terms, the larger
    bool logits_every_token = false;  // the LM head for every prompt token (Assumptions::prompt_logits)
};

// Prefill of `prompt` tokens for each of the workload's batch, in chunks of `chunk` tokens
// (0: the whole prompt at once). The workload's context is ignored: the prompt starts empty, or
// with its first `cached` tokens already in the cache (an earlier turn's), which the chunks of
// the rest attend to and do not compute again. Attention FLOPs are counted as the workload says
// (by default; they are the quadratic term), so a footer saying they are not is true here too.
constexpr Prefill prefill(const Deployment& dep, const Model& m, const Workload& w, std::int64_t prompt, std::int64_t chunk = 0,
                          std::int64_t cached = 0) {
    if (prompt < 1 || prompt > max_context) throw error("", "prompt", std::to_string(prompt), "an integer from 1 to 2^40 tokens");
    if (cached < 0 || cached >= prompt)
        throw error("", "cached prompt", std::to_string(cached), "an integer from 0 to the prompt less one (" + std::to_string(prompt - 1) + ")");
    if (chunk < 0) throw error("", "chunk", std::to_string(chunk), "an integer >= 0 tokens (0: no chunking)");
    require_context_within(m, prompt, "prompt");
    if (chunk > 0 && (prompt - cached) / chunk > 1'000'000)
        throw error("", "chunk", std::to_string(chunk), "a chunk giving at most 1,000,000 chunks for a " + std::to_string(prompt) + "-token prompt");
    validate(dep, m);
    Workload wa = w;
    wa.tokens_per_sequence = 1;
    // Under a pipeline, the stage doing the most FLOPs a prompt token, at the prompt's middle.
    wa.context = prompt / 2;
    const StepCost c = step_cost(m, wa, dep.parallel, StageBy::flops);
    const bool count_attention = w.assumptions.attention_flops;
    const Rates rates = effective_rates(dep.device, w);
    const auto B = static_cast<double>(w.batch);
    // Totals are every stage's own over its tensor ranks (the cost is the busiest stage's).
    const WholeCost whole(dep, m, wa, c);
    const auto devices = static_cast<double>(c.tensor);

    Prefill p;
    p.assumptions = wa.assumptions;
    p.prompt_tokens = prompt;
    const std::int64_t fresh = prompt - cached;
    p.chunk_tokens = chunk == 0 || chunk > fresh ? fresh : chunk;
    p.chunks = (fresh + p.chunk_tokens - 1) / p.chunk_tokens;
    p.logits_every_token = w.assumptions.prompt_logits;

    Bytes kv_written_per_token{};
    for (std::size_t i = 0; i < c.context_terms.size(); ++i) kv_written_per_token += c.context_terms[i].kv_per_token;

    // What depends only on a chunk's length (the experts its tokens touch, the link carrying
    // them) is the same for every full chunk, so it is costed once for them and once for the
    // last: a prompt in 1-token chunks is as many chunks as tokens.
    std::int64_t costed_len = -1;
    Bytes routed{};
    Flops imbalance_flops{};
    Communication link{};
    Pipeline chunks;  // chunks overlap across pipeline stages (decode.hpp)
    for (std::int64_t start = cached; start < prompt; start += p.chunk_tokens) {
        const std::int64_t end = start + p.chunk_tokens < prompt ? start + p.chunk_tokens : prompt;
        const auto len = static_cast<double>(end - start);
        if (end - start != costed_len) {
            costed_len = end - start;
            // Tokens in the chunk, for the experts they touch; past 2^62 every expert is touched anyway.
            const double chunk_tokens = B * len;
            const std::int64_t tokens = chunk_tokens < 0x1p62 ? static_cast<std::int64_t>(chunk_tokens) : std::int64_t{1} << 62;
            routed = c.routed_bytes(tokens);
            imbalance_flops = c.routed_imbalance_flops(tokens);
            Workload chunk_workload = w;  // the link carries every token of the chunk
            chunk_workload.tokens_per_sequence = costed_len;
            link = communication(dep, m, chunk_workload, c);
        }
        // The busiest attention rank's sequences (StepCost::context_batch) read and write their cache.
        // Each sequence's cache so far, and the chunk's len tokens' cache and activations.
        const Bytes kv = c.context_batch(B) * (c.cache_bytes(static_cast<double>(start)) + len * (kv_written_per_token + c.activation_bytes));
        const Bytes bytes = c.fixed_bytes + routed + c.row_bytes(B * len) + kv;
        // The LM head runs for the token each prompt samples, its last, unless every token's logits are asked.
        const double head_tokens = p.logits_every_token ? len : end == prompt ? 1.0 : 0.0;
        const bool ranks = c.attention_data > 1;
        // One device's FLOPs for the chunk, by a cost's layers: its attention pairs, what an
        // attention rank does for its own sequences (own), and the rest for the batch (shared).
        struct ChunkFlops {
            Flops attention, shared, own, device;
        };
        const auto chunk_flops = [&](const StepCost& k) {
            ChunkFlops f{};
            for (std::size_t i = 0; i < k.context_terms.size(); ++i) {
                const auto& t = k.context_terms[i];
                // In prefill's own form (MLA expanded; attention_layers.hpp), per device: the chunk's
                // queries' pairs, each capped by its window or kept within its chunk (reach.hpp).
                f.attention += (t.reach.pairs(static_cast<double>(end)) - t.reach.pairs(static_cast<double>(start))) *
                               t.prefill_flops_per_pair;
                f.attention += StepCost::span(t, static_cast<double>(start)) * t.prefix_flops_per_token;  // re-expanded cache
            }
            // The busiest attention rank's sequences (StepCost::context_batch) do their attention's
            // projections and pairs; every device does the rest for the batch. The total over the
            // devices counts each sequence once.
            f.shared = len * (k.flops_per_token - k.rank_flops_per_token - k.head_flops_per_token) + head_tokens * k.head_flops_per_token;
            const Flops counted = count_attention ? f.attention : Flops{};
            f.own = len * k.rank_flops_per_token + counted;
            f.device = ranks ? B * f.shared + k.context_batch(B) * f.own
                             : B * (len * (k.flops_per_token - k.head_flops_per_token) + head_tokens * k.head_flops_per_token + counted);
            return f;
        };
        const ChunkFlops stage = chunk_flops(c);
        const ChunkFlops all = c.pipeline > 1 ? chunk_flops(whole.get()) : stage;
        const Flops flops = stage.device;

        const Seconds memory = bytes / rates.bandwidth;
        // The step waits for the busiest expert group's matmuls too (StepCost::routed_imbalance_flops).
        const Seconds imbalance = imbalance_flops / rates.peak;
        const Seconds compute = flops / rates.peak + imbalance;
        p.imbalance_time += imbalance;
        p.memory_time += memory;
        p.compute_time += compute;
        p.bytes_per_device += bytes;
        p.kv_bytes_per_device += kv;
        p.flops += devices * (ranks ? B * all.shared + B * all.own : all.device);
        p.attention_flops += devices * B * all.attention;
        chunks.add((memory < compute ? compute : memory) + link.per_stage + c.stage_overhead(w.efficiency), link.pipeline_hops);
    }
    // The per-sequence time once, for the first token each prompt samples.
    p.time = chunks.time(c.pipeline) + B * w.efficiency.per_sequence;
    // Every chunk's link has the same messages (their count does not depend on the tokens).
    p.stage_passes = static_cast<double>(p.chunks + c.pipeline - 1);
    p.messages = link.messages_in(p.stage_passes);
    p.stage_layers = c.layers_per_stage;
    p.stage_moe_layers = c.moe_layers_per_stage;
    p.bound = p.compute_time > p.memory_time ? Bound::compute : Bound::memory;
    return p;
}

}  // namespace ridgeline
