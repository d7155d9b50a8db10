// A measurement as calibration sees it: a setting and the time it took per output token. Most
// sources time decode steps (TPOT, inter-token latency, llama-bench's tg); static-batch throughput
// benchmarks (TensorRT-LLM's gptSessionBenchmark, Optimum Habana's) time whole requests, so their
// tokens/s per sequence is output / (prefill + every decode step); serving benchmarks time
// inter-token latency while new prompts' prefill rides the decode steps. Predicting those with one
// decode step misses the prefill (half the time at 128 tokens in, 128 out, batch 768), so a row
// says what it timed and is predicted as what it timed.
#pragma once

#include <cstdint>
#include <string>

#include "decode.hpp"
#include "generation.hpp"
#include "serving.hpp"

namespace ridgeline {

// What a measurement timed, and the request shape when it was more than decode steps:
//  - decode_steps: the step at the workload's context (TPOT, inter-token latency at concurrency 1,
//    llama-bench's tg);
//  - whole_requests: a static batch, each sequence prefilling `prompt` tokens then generating
//    `output` (the prefill makes the first; generation.hpp), timed from start to end;
//  - interleaved_prefill: continuous batching at a concurrency of the workload's batch, timed per
//    output token (the mean inter-token latency of a fixed-concurrency or request-rate benchmark),
//    new prompts' prefill either riding the decode steps (PrefillSteps::mixed, serving.hpp's
//    aggregated model) or run in steps of its own that the decodes wait for (PrefillSteps::apart).
enum class Timed : std::uint8_t { decode_steps, whole_requests, interleaved_prefill };

// How an engine schedules new prompts' prefill among running decodes: in the same forward passes
// (chunked prefill mixed with decodes: TensorRT-LLM's in-flight batching, vLLM with chunked
// prefill) or in passes of their own (vLLM's V0 scheduler without chunked prefill, SGLang
// without --enable-mixed-chunk). An engine's setting, which a row states with its evidence.
enum class PrefillSteps : std::uint8_t { mixed, apart };

constexpr const char* name_of(Timed t) noexcept {
    switch (t) {
        case Timed::decode_steps: return "decode steps";
        case Timed::whole_requests: return "whole requests";
        case Timed::interleaved_prefill: return "interleaved prefill";
    }
    return "decode steps";
}

struct Requests {
    Timed timed = Timed::decode_steps;
    std::int64_t prompt = 0;
    std::int64_t output = 0;
    PrefillSteps prefill_steps = PrefillSteps::mixed;  // interleaved_prefill only
};

struct Observation {
    Model model;
    Workload workload;       // as measured; its efficiency is ignored (for whole requests, its context too)
    Parallelism parallel{};  // how the measurement split the model
    Seconds measured_step;   // time per output token per sequence
    Requests requests{};
};

// The context a row's decode steps see on average: the prompt plus half the output.
constexpr std::int64_t mean_decode_context(const Requests& r) { return r.prompt + r.output / 2; }

constexpr void validate(const Requests& r) {
    if (r.timed == Timed::decode_steps) return;
    if (r.prompt < 1 || r.prompt > max_context)
        throw error("", "prompt", std::to_string(r.prompt), "an integer from 1 to 2^40 tokens (requests start with a prefill)");
    if (r.output < 1 || r.output > max_context) throw error("", "output", std::to_string(r.output), "an integer from 1 to 2^40 tokens");
}

// What the observation's setting takes per output token with `e`, as it was timed: one decode
// step, a whole request's prefill and decode over its output tokens, or serving's TPOT with the
// prefill mixed into the decode steps or apart from them.
constexpr Seconds time_per_output_token(const Deployment& d, const Observation& o, const Efficiency& e) {
    Workload w = o.workload;
    w.efficiency = e;
    const Requests& r = o.requests;
    validate(r);
    switch (r.timed) {
        case Timed::decode_steps: return decode_step(d, o.model, w).step_time;
        case Timed::whole_requests: return generate(d, o.model, w, r.prompt, r.output).total_time / static_cast<double>(r.output);
        case Timed::interleaved_prefill:
            if (r.prefill_steps == PrefillSteps::apart) return tpot_prefill_apart(d, o.model, w, Traffic{r.prompt, r.output});
            return serve(d, o.model, w, Traffic{r.prompt, r.output}, ServingMode::aggregated).tpot;
    }
    return decode_step(d, o.model, w).step_time;
}

}  // namespace ridgeline
