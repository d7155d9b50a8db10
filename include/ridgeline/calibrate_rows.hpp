// A measured row as calibration fits it: its steps' memory and compute times at the ideal
// rates, the time no fitted term moves, and how many stages, layers, MoE layers, sequences and link
// messages pay the per-step, per-layer, per-MoE-layer, per-sequence and per-message times. Built once per row and reading (calibrate.hpp
// reuses them across the fits of leave-one-out), so a fit costs arithmetic on these numbers,
// not decode_step calls.
#pragma once

#include <cstdint>
#include <variant>
#include <vector>

#include "decode.hpp"
#include "observation.hpp"
#include "prefill.hpp"
#include "serving.hpp"

namespace ridgeline::calibrate_detail {

// A row as the fit sees it, per output token at the ideal rates: its steps' memory and compute
// times (each step is bound by the larger once the efficiencies divide them), the time that no
// term moves (links at their own latency), and how many stages, layers, MoE layers, sequences and
// link messages pay the per-step, per-layer, per-MoE-layer, per-sequence and per-message times.
struct Part {
    double memory = 0, compute = 0;  // seconds, every pipeline stage
    double weight = 1;               // steps this part stands for, per output token (-1: taken away; row())
};
struct Row {
    std::vector<Part> parts;
    double fixed = 0, measured = 0;  // seconds
    // Per output token, summed over the parts by weight: the stage passes that pay the fixed time,
    // and the layers and routed-expert layers that pay the per-layer and per-MoE-layer times (a
    // step's p passes of the pacing stage; a prefill's chunks + p - 1 of its own).
    double stages = 0, layers = 0;
    double moe_layers = 0;
    double sequences = 0;   // sequences per output token: each step's batch and each prefill's prompts, by weight
    double messages = 0;    // link messages per output token, each paying the time per message, by weight
};

// Decode steps of a whole-request row sampled at this many contexts at most, each standing for
// its share of the steps: a step's times are linear in the context between window corners, so
// the sum is exact there and off by under a step's change elsewhere.
inline constexpr std::int64_t decode_samples = 64;

inline Row row(const Deployment& d, const Observation& o, bool kv_per_query_head, bool activation_traffic) {
    Row r;
    // Each part counts what its time pays: a decode step passes through every stage once, each
    // pass paying the pacing stage's fixed, per-layer and per-MoE-layer times (the stage chosen at
    // the ideal rates: fitted terms that make another stage the slowest leave a residual).
    const auto stages = static_cast<double>(o.parallel.pipeline);
    r.measured = o.measured_step.in(s);
    Workload ideal = o.workload;
    ideal.efficiency = Efficiency{};
    ideal.efficiency.kv_per_query_head = kv_per_query_head;  // what the bytes are, not an overhead
    ideal.efficiency.activation_traffic = activation_traffic;
    // What `weight` of a time per output token pays: its sequences, its stage passes (each paying
    // the stage's layers and MoE layers) and its link messages.
    const auto count = [&](double weight, double sequences, double passes, double stage_layers, double stage_moe_layers, double messages) {
        r.sequences += weight * sequences;
        r.stages += weight * passes;
        r.layers += weight * passes * stage_layers;
        r.moe_layers += weight * passes * stage_moe_layers;
        r.messages += weight * messages;
    };
    const auto add_step = [&](const DecodeStep& step, double weight) {
        count(weight, static_cast<double>(step.batch), stages, step.stage_layers, step.stage_moe_layers, step.links.messages_in(stages));
        r.parts.push_back(Part{(stages * step.memory_time).in(s), (stages * step.compute_time).in(s), weight});
        const Seconds roof = step.bound == Bound::compute ? step.compute_time : step.memory_time;
        r.fixed += weight * (step.step_time - stages * roof).in(s);
    };
    const Requests& q = o.requests;
    if (q.timed == Timed::decode_steps) {
        add_step(decode_step(d, o.model, ideal), 1);
        return r;
    }
    validate(q);
    require_context_within(o.model, q.prompt + q.output, "prompt + output");
    const auto output = static_cast<double>(q.output);
    // Decode steps at contexts first .. first + steps - 1, sampled, each standing for its share.
    const auto add_decode_steps = [&](std::int64_t first, std::int64_t steps) {
        const std::int64_t samples = steps < decode_samples ? steps : decode_samples;
        for (std::int64_t k = 0; k < samples; ++k) {
            const std::int64_t from = k * steps / samples, to = (k + 1) * steps / samples;
            ideal.context = first + (from + to) / 2;
            add_step(decode_step(d, o.model, ideal), static_cast<double>(to - from) / output);
        }
    };
    // A prefill pass of `prompts` through every stage, `weight` of them per output token, at its own bound.
    const auto add_prefill = [&](const Prefill& p, std::int64_t prompts, double weight) {
        count(weight, static_cast<double>(prompts), p.stage_passes, p.stage_layers, p.stage_moe_layers, p.messages);
        r.parts.push_back(Part{(stages * p.memory_time).in(s), (stages * p.compute_time).in(s), weight});
        r.fixed += weight * (p.time - stages * (p.memory_time < p.compute_time ? p.compute_time : p.memory_time)).in(s);
    };
    if (q.timed == Timed::whole_requests) {
        // The prefill makes the first token (generation.hpp).
        add_prefill(prefill(d, o.model, ideal, q.prompt), ideal.batch, 1 / output);
        add_decode_steps(q.prompt, q.output - 1);
        return r;
    }
    if (q.prefill_steps == PrefillSteps::apart) {
        // Prefill apart (serve()'s ServingMode::prefill_apart): the mean decode step, plus the
        // other sequences' prompts' prefill a step (others_arriving: (batch x pipeline - 1) /
        // (pipeline x output)), each one prompt alone, at its own bound.
        add_decode_steps(q.prompt, q.output);
        Workload one = ideal;
        one.batch = 1;
        const double per_step = others_arriving(Traffic{q.prompt, q.output}, ideal.batch, d.parallel.pipeline, ServingMode::prefill_apart);
        add_prefill(prefill(d, o.model, one, q.prompt), 1, per_step);
        return r;
    }
    // Interleaved prefill (serving.hpp's aggregated TPOT): the mean decode step, plus for each
    // kind of chunk, its share of steps carrying it less the same steps without it (a part of
    // negative weight, so each keeps its own bound, as serve() takes the larger of each).
    add_decode_steps(q.prompt, q.output);
    const InterleavedPrefill ip = interleaved_prefill(d, o.model, ideal, Traffic{q.prompt, q.output});
    for (const InterleavedPrefill::Chunk& c : ip.chunks) {
        if (c.per_step == 0) continue;
        r.parts.push_back(Part{(stages * c.memory).in(s), (stages * c.compute).in(s), c.per_step});
        r.parts.push_back(Part{(stages * ip.decode.memory_time).in(s), (stages * ip.decode.compute_time).in(s), -c.per_step});
        r.fixed += c.per_step * c.links_added.in(s);
    }
    return r;
}

// Whether a model has grouped-query attention whose KV heads serve more than one query head
// (the rows on which Efficiency::kv_per_query_head changes the bytes).
inline bool shares_kv_heads(const Model& m) {
    for (const auto& g : m)
        if (const Gqa* a = std::get_if<Gqa>(&g.spec.attention); a && a->heads > a->kv_heads) return true;
    return false;
}

}  // namespace ridgeline::calibrate_detail
