// A whole generation: prefill of the prompt, then m decode steps with the KV growing by one
// token each step. The decode part is summed in closed form: step time is the larger of two
// functions linear in the context between corners (windows filling, chunks starting), so the
// sum splits into arithmetic series at the corners and where the step crosses from compute- to
// memory-bound.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include <cstddef>

#include "decode.hpp"
#include "memory.hpp"
#include "prefill.hpp"

namespace ridgeline {

struct Generation {
    Assumptions assumptions{};  // the workload's: what its steps and prefill count
    std::int64_t prompt_tokens = 0;
    std::int64_t new_tokens = 0;
    Seconds time_to_first_token{};  // the prefill (with no prompt, the first decode step)
    Seconds decode_time{};          // the decode steps after the first token (see generate)
    Seconds total_time{};
    std::int64_t compute_bound_steps = 0;
    PerSecond decode_tokens_per_s{};  // per sequence, over the decode part (0 when there is none: shown as "-")
    // One device at its fullest: the KV of the whole sequences, and the workspace of the larger
    // of a prefill chunk's tokens and a decode step's.
    MemoryUse memory{};
    [[nodiscard]] constexpr bool fits() const noexcept { return memory.fits(); }
};

namespace generation_detail {
// The first whole context at or past x >= 0.
constexpr std::int64_t first_whole_from(double x) noexcept {
    const auto whole = static_cast<std::int64_t>(x);
    return static_cast<double>(whole) < x ? whole + 1 : whole;
}

// A linear function of the context n over a range where it is linear: value(n) = at0 + slope * n.
struct Line {
    double at0 = 0;
    double slope = 0;
    [[nodiscard]] constexpr double at(double n) const { return at0 + slope * n; }
};
// Sum of f(n) for integer n in [a, b).
constexpr double series(const Line& f, double a, double b) {
    const double count = b - a;
    return count * f.at0 + f.slope * count * (a + b - 1) / 2;
}
}  // namespace generation_detail

namespace generation_detail {
// decode_steps from the workload's step cost, already computed (decode_detail::step_from_cost
// says what `c` must be), and its arguments checked.
constexpr Generation steps_from_cost(const Deployment& dep, const Model& m, const Workload& w, std::int64_t prompt,
                                     std::int64_t new_tokens, const StepCost& c) {
    const Rates rates = effective_rates(dep.device, w);
    const auto B = static_cast<double>(w.batch);
    const auto stages = static_cast<double>(c.pipeline);
    // Everything but the roofline term is the same at every step.
    Workload at_prompt = w;
    at_prompt.context = prompt;
    const DecodeStep first = decode_detail::step_from_cost(dep, m, at_prompt, c, false);
    const Seconds constant = first.communication_time + first.overhead_time;

    Generation g;
    g.assumptions = w.assumptions;
    g.prompt_tokens = prompt;
    g.new_tokens = new_tokens;
    const auto begin = static_cast<double>(prompt), end = static_cast<double>(prompt + new_tokens);

    // Pieces between corners (a window filling, a chunk starting: StepCost::next_corner), on
    // each of which memory and compute time are linear in the context. A chunked model has one
    // piece a chunk; past a million pieces the generation is refused (prefill's chunk bound).
    const Bytes weights = c.weight_bytes(w.batch);
    double seconds = 0;
    std::int64_t pieces = 0;
    for (double a = begin; a < end;) {
        double b = c.next_corner(a);
        if (b < 0 || b > end) b = end;
        if (++pieces > 1'000'000)
            throw error("", "new_tokens", std::to_string(new_tokens),
                        "a generation crossing at most 1,000,000 chunks of the model's chunked layers (chunk " +
                            std::to_string(static_cast<std::int64_t>(c.chunk_period())) + ")");
        // Memory and compute time of one stage as lines in n on [a, b).
        const double kv_slope = c.kv_growth(a).in(bytes), att_slope = c.attention_growth(a).in(flop);
        const double bw = rates.bandwidth.in(bytes_per_s), peak = rates.peak.in(flop_per_s);
        const double q = static_cast<double>(c.tokens_per_sequence);
        const double Bc = c.context_batch(B);  // the sequences the context terms are charged for
        const Line memory{((weights + c.step_kv_bytes(B, a)).in(bytes) - Bc * kv_slope * a) / bw, Bc * kv_slope / bw};
        const Line compute{(c.step_flops(B, a).in(flop) - Bc * q * att_slope * a) / peak, Bc * q * att_slope / peak};
        // Where they cross inside the piece, the larger one changes.
        double split = b;
        if (memory.slope != compute.slope) {
            const double x = (compute.at0 - memory.at0) / (memory.slope - compute.slope);
            if (x > a && x < b) {
                split = static_cast<double>(first_whole_from(x));  // the first whole context past the crossing
            }
        }
        for (const auto& [lo, hi] : {std::pair{a, split}, std::pair{split, b}}) {
            if (!(hi > lo)) continue;
            const bool compute_bound = compute.at(lo) > memory.at(lo);
            seconds += stages * generation_detail::series(compute_bound ? compute : memory, lo, hi);
            if (compute_bound) g.compute_bound_steps += static_cast<std::int64_t>(hi - lo);
        }
        a = b;
    }
    g.decode_time = s(seconds) + static_cast<double>(new_tokens) * constant;
    g.total_time = g.decode_time;
    g.decode_tokens_per_s = static_cast<double>(new_tokens) / g.decode_time;
    return g;
}

// The arguments decode_steps takes, checked.
constexpr void require_steps(const Model& m, std::int64_t prompt, std::int64_t new_tokens) {
    if (prompt < 0) throw error("", "prompt", std::to_string(prompt), "an integer >= 0 tokens");
    if (new_tokens < 1 || new_tokens > max_context)
        throw error("", "new_tokens", std::to_string(new_tokens), "an integer from 1 to 2^40");
    if (prompt > max_context) throw error("", "prompt", std::to_string(prompt), "an integer from 0 to 2^40 tokens");
    require_context_within(m, prompt + new_tokens - 1, "prompt + new_tokens - 1");
}
}  // namespace generation_detail

namespace generation_detail {
// steps_from_cost with each step paced by its own slowest pipeline stage, its roofline at the
// device's rates and its links and fixed times (decode_detail::device_step_cost). The stage can
// change as the cache grows, where an earlier stage's extra layer's KV overtakes the last
// stage's LM head (Llama-3.3-70B over three stages, 27, 27 and 26 layers, from the last to the
// first), back and forth where windows fill and chunks start (Llama-4-Maverick over five stages
// changes in every 8,192-token chunk), and where one stage turns compute-bound before another
// (DeepSeek-V3 over two B200s at 3,156 sequences changes there and back in 6,000 tokens). A
// stage's cost does not depend on the context, so every stage's is built once and its time read
// at any context by arithmetic. Between the model's corners and each stage's own crossing from
// memory- to compute-bound, every stage's time is linear in the context, so the slowest holds an
// interval there: bisection finds where it stops being. A stage stays the slowest until another
// is slower by more than rounding (stages of one kind tie). Each run of steps at one stage is
// costed once from it. Arguments checked (require_steps). Not constexpr (the stages' costs, as
// step_cost_detail::pipeline_stage_costs); steps_by_stage, below, is, for one stage.
inline Generation steps_over_stages(const Deployment& dep, const Model& m, const Workload& w, std::int64_t prompt,
                                    std::int64_t new_tokens) {
    const Rates rates = effective_rates(dep.device, w);
    Workload from = w;
    from.context = prompt;
    const std::vector<StepCost> stages = step_cost_detail::pipeline_stage_costs(m, from, dep.parallel);
    std::vector<double> extra;  // each stage's links and fixed times, seconds (decode_detail::stage_extra)
    extra.reserve(stages.size());
    for (const StepCost& k : stages) extra.push_back(decode_detail::stage_extra(dep, m, from, k).in(s));
    const auto time_at = [&](std::size_t k, std::int64_t n) { return step_times(stages[k], rates, w.batch, n).roofline().in(s) + extra[k]; };
    // The slowest stage at n, staying with `current` unless another is slower beyond rounding.
    const auto slowest_at = [&](std::int64_t n, std::size_t current) {
        std::size_t most = current;
        double longest = time_at(current, n);
        for (std::size_t k = 0; k < stages.size(); ++k)
            if (const double t = time_at(k, n); t > longest * (1 + 1e-12)) most = k, longest = t;
        return most;
    };
    // Every layer kind's corners: the whole model's, on one stage.
    Parallelism one = dep.parallel;
    one.pipeline = 1;
    const StepCost whole = step_cost(m, from, one);
    const std::int64_t end = prompt + new_tokens;
    Generation g;
    g.assumptions = w.assumptions;
    g.prompt_tokens = prompt;
    g.new_tokens = new_tokens;
    const auto run = [&](std::size_t stage, std::int64_t first, std::int64_t last_plus_one) {
        if (last_plus_one <= first) return;
        const Generation r = steps_from_cost(dep, m, w, first, last_plus_one - first, stages[stage]);
        g.decode_time += r.decode_time;
        g.compute_bound_steps += r.compute_bound_steps;
    };
    std::size_t current = slowest_at(prompt, 0);  // the first on a tie, as step_cost chooses
    std::int64_t run_start = prompt, pieces = 0;
    std::vector<std::int64_t> cuts;
    for (std::int64_t a = prompt; a < end;) {
        const double corner = whole.next_corner(static_cast<double>(a));
        const std::int64_t piece_end = corner < 0 || corner > static_cast<double>(end) ? end : first_whole_from(corner);
        if (++pieces > 1'000'000)
            throw error("", "new_tokens", std::to_string(new_tokens),
                        "a generation crossing at most 1,000,000 chunks of the model's chunked layers (chunk " +
                            std::to_string(static_cast<std::int64_t>(whole.chunk_period())) + ")");
        // Inside the piece each stage's memory and compute times are lines; where they cross
        // the stage's time bends, so the piece is cut there too.
        cuts.clear();
        if (piece_end - a > 1) {
            for (const StepCost& k : stages) {
                const StepTimes t0 = step_times(k, rates, w.batch, a), t1 = step_times(k, rates, w.batch, piece_end - 1);
                const double d0 = (t0.memory - t0.compute).in(s), d1 = (t1.memory - t1.compute).in(s);
                if ((d0 < 0) == (d1 < 0) || d0 == d1) continue;
                const std::int64_t cut = first_whole_from(static_cast<double>(a) + d0 / (d0 - d1) * static_cast<double>(piece_end - 1 - a));
                if (cut > a && cut < piece_end) cuts.push_back(cut);
            }
            std::sort(cuts.begin(), cuts.end());
        }
        cuts.push_back(piece_end);
        std::int64_t from_n = a;
        for (const std::int64_t to : cuts) {
            // [from_n, to): every stage's time linear; the slowest changes where bisection finds it.
            while (from_n < to) {
                // A cut can hand the lead to another stage at its first context.
                if (const std::size_t at_start = slowest_at(from_n, current); at_start != current) {
                    run(current, run_start, from_n);
                    run_start = from_n;
                    current = at_start;
                }
                const std::size_t at_end = slowest_at(to - 1, current);
                if (at_end == current) {
                    from_n = to;
                    break;
                }
                std::int64_t lo = from_n, hi = to - 1;  // current is the slowest at lo and not at hi
                while (hi - lo > 1) {
                    const std::int64_t mid = lo + (hi - lo) / 2;
                    (slowest_at(mid, current) == current ? lo : hi) = mid;
                }
                run(current, run_start, hi);
                run_start = hi;
                current = slowest_at(hi, current);
                from_n = hi;
            }
        }
        a = piece_end;
    }
    run(current, run_start, end);
    g.total_time = g.decode_time;
    g.decode_tokens_per_s = static_cast<double>(new_tokens) / g.decode_time;
    return g;
}

// steps_from_cost, or under a pipeline steps_over_stages, which costs each stage itself
// (`c` is used only without one).
constexpr Generation steps_by_stage(const Deployment& dep, const Model& m, const Workload& w, std::int64_t prompt,
                                    std::int64_t new_tokens, const StepCost& c) {
    if (dep.parallel.pipeline == 1) return steps_from_cost(dep, m, w, prompt, new_tokens, c);
    return steps_over_stages(dep, m, w, prompt, new_tokens);
}
}  // namespace generation_detail

// Decode time of m steps after a prompt of n0 tokens, without the prefill.
constexpr Generation decode_steps(const Deployment& dep, const Model& m, const Workload& w, std::int64_t prompt,
                                  std::int64_t new_tokens) {
    generation_detail::require_steps(m, prompt, new_tokens);
    Workload at = w;
    at.context = prompt;
    const StepCost c = step_cost(m, at, dep.parallel);  // the model and workload checked first
    validate(dep, m);
    return generation_detail::steps_by_stage(dep, m, w, prompt, new_tokens, c);
}

// `new_tokens` tokens after a prompt: the prefill (chunked if `chunk` > 0) makes the first, then
// new_tokens - 1 decode steps at contexts prompt .. prompt + new_tokens - 2 make the rest. With
// no prompt there is no prefill: a decode step at context 0 makes the first token (the time to
// it), and the steps at contexts 1 .. new_tokens - 1 the rest.
constexpr Generation generate(const Deployment& dep, const Model& m, const Workload& w, std::int64_t prompt,
                              std::int64_t new_tokens, std::int64_t chunk = 0) {
    if (new_tokens < 1 || new_tokens > max_context)
        throw error("", "new_tokens", std::to_string(new_tokens), "an integer from 1 to 2^40");
    if (prompt < 0 || prompt > max_context) throw error("", "prompt", std::to_string(prompt), "an integer from 0 to 2^40 tokens");
    // The whole sequence, prompt and new tokens, must fit the model's positions.
    require_context_within(m, prompt + new_tokens, "prompt + new_tokens");
    // The first token: the prompt's prefill, or with no prompt a decode step at context 0; the
    // decode steps after it make the rest.
    Generation g;
    if (new_tokens > 1) g = decode_steps(dep, m, w, prompt > 0 ? prompt : 1, new_tokens - 1);
    g.assumptions = w.assumptions;
    g.prompt_tokens = prompt;
    g.new_tokens = new_tokens;
    if (prompt > 0) {
        g.time_to_first_token = prefill(dep, m, w, prompt, chunk).time;
    } else {
        const Generation first = decode_steps(dep, m, w, 0, 1);
        g.time_to_first_token = first.decode_time;
        g.compute_bound_steps += first.compute_bound_steps;
    }
    g.total_time = g.time_to_first_token + g.decode_time;
    Workload end = w;
    end.context = prompt + new_tokens - 1;
    end.tokens_per_sequence = 1;
    g.memory = memory_use(dep, m, end);
    if (w.assumptions.activation_workspace && prompt > 0) {
        const std::int64_t chunk_tokens = chunk == 0 || chunk > prompt ? prompt : chunk;
        const auto B = static_cast<double>(w.batch);
        const Bytes prefill_workspace = B * static_cast<double>(chunk_tokens) * activation_bytes_per_token(m, dep.parallel, false) +
                                        B * (activation_bytes_per_token(m, dep.parallel) - activation_bytes_per_token(m, dep.parallel, false));
        if (prefill_workspace > g.memory.activations) g.memory.activations = prefill_workspace;
    }
    return g;
}

}  // namespace ridgeline
