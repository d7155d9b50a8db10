// A measurement as calibration sees it: a setting and the time it took per output token. Most
// sources time decode steps (TPOT, inter-token latency, llama-bench's tg); static-batch throughput
// benchmarks (TensorRT-LLM's gptSessionBenchmark, Optimum Habana's) time whole requests, so their
// tokens/s per sequence is output / (prefill + every decode step). Predicting those with one decode
// step misses the prefill (half the time at 128 tokens in, 128 out, batch 768), so a row says which
// it timed and is predicted as what it timed.
#pragma once

#include <cstdint>
#include <string>

#include "decode.hpp"
#include "generation.hpp"

namespace ridgeline {

// Whole requests of a static batch: each sequence prefills `prompt` tokens, then generates
// `output` tokens (the prefill makes the first; generation.hpp). output == 0: decode steps.
struct WholeRequests {
    std::int64_t prompt = 0;
    std::int64_t output = 0;
    [[nodiscard]] constexpr bool timed() const noexcept { return output > 0; }
};

struct Observation {
    Model model;
    Workload workload;       // as measured; its efficiency is ignored (for whole requests, its context too)
    Parallelism parallel{};  // how the measurement split the model
    Seconds measured_step;   // time per output token per sequence
    WholeRequests requests{};
};

// The context a whole-request row's decode steps see on average: the prompt plus half the output.
constexpr std::int64_t mean_decode_context(const WholeRequests& r) { return r.prompt + r.output / 2; }

constexpr void validate(const WholeRequests& r) {
    if (!r.timed()) return;
    if (r.prompt < 1 || r.prompt > max_context)
        throw error("", "prompt", std::to_string(r.prompt), "an integer from 1 to 2^40 tokens (whole requests start with a prefill)");
    if (r.output > max_context) throw error("", "output", std::to_string(r.output), "an integer from 1 to 2^40 tokens");
}

// What the observation's setting takes per output token with `e`: one decode step, or a whole
// request's prefill and decode divided by its output tokens.
constexpr Seconds time_per_output_token(const Deployment& d, const Observation& o, const Efficiency& e) {
    Workload w = o.workload;
    w.efficiency = e;
    if (!o.requests.timed()) return decode_step(d, o.model, w).step_time;
    validate(o.requests);
    return generate(d, o.model, w, o.requests.prompt, o.requests.output).total_time / static_cast<double>(o.requests.output);
}

}  // namespace ridgeline
