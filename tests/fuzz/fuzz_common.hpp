// What every fuzz target checks (README.md in this directory lists each target's invariants):
//  - an input either loads or throws ridgeline::error; anything else (another exception type, a
//    crash, an ASan or UBSan report) escapes and the fuzzer reports it;
//  - what loads round-trips through to_json;
//  - every answer computed from it (check_answers below) either returns or throws
//    ridgeline::error, and what it returns holds the invariants written next to each check.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

namespace fuzz {

// What the failing check was looking at, printed before the abort.
inline std::string& context() {
    static std::string c;
    return c;
}

[[noreturn]] inline void fail(const char* condition, const char* file, int line) {
    std::fprintf(stderr, "fuzz invariant failed at %s:%d: %s\n%s\n", file, line, condition, context().c_str());
    std::abort();  // the fuzzer records the input that got here
}
#define FUZZ_REQUIRE(...) ((__VA_ARGS__) ? void() : ::fuzz::fail(#__VA_ARGS__, __FILE__, __LINE__))

inline std::string_view text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// A fixed device with every format, so any model can be evaluated.
inline ridgeline::Hardware reference_device() {
    using namespace ridgeline;
    Hardware h{"fuzz device", GB(80), TB_per_s(3.35)};
    for (Numeric n : all_numerics) h.with_peak(n, TFLOP_per_s(989));
    h.interconnect_bandwidth = GB_per_s(900);
    return h;
}

template <class Q>
inline bool finite_non_negative(Q q) {
    return ridgeline::is_finite(q) && !(q < Q{});
}
inline bool finite_non_negative(double v) { return std::isfinite(v) && v >= 0; }

inline std::string describe(const ridgeline::Deployment& d, const ridgeline::Model& m, const ridgeline::Workload& w) {
    using namespace ridgeline;
    const Parallelism& p = d.parallel;
    const Assumptions& a = w.assumptions;
    char buf[1024];
    std::snprintf(buf, sizeof buf,
                  "device=%s model=%s tp=%lld pp=%lld ep=%lld dp=%lld link_bw=%g GB/s link_latency=%g us act=%s "
                  "batch=%lld context=%lld tokens_per_sequence=%lld weights=%s kv=%s compute=%s embeddings=%s experts=%s "
                  "attention_flops=%d embedding_flops=%d every_parameter=%d reported=%d fraction=%.17g reserve=%.17g GiB "
                  "workspace=%d fallback_latency=%g us efficiency=%.17g/%.17g overhead=%g us activation_traffic=%d",
                  std::string(d.device.name.view()).c_str(), std::string(m.name.view()).c_str(), static_cast<long long>(p.tensor),
                  static_cast<long long>(p.pipeline), static_cast<long long>(p.expert), static_cast<long long>(p.data),
                  p.link_bandwidth ? p.link_bandwidth->in(GB_per_s) : -1.0, p.link_latency ? p.link_latency->in(us) : -1.0,
                  format_name(p.activations).c_str(), static_cast<long long>(w.batch), static_cast<long long>(w.context),
                  static_cast<long long>(w.tokens_per_sequence), format_name(w.precision.weights).c_str(),
                  format_name(w.precision.kv).c_str(), std::string(name_of(w.precision.compute)).c_str(),
                  w.precision.embeddings ? format_name(*w.precision.embeddings).c_str() : "-",
                  w.precision.experts ? format_name(*w.precision.experts).c_str() : "-", a.attention_flops,
                  a.embedding_lookup_flops, a.accounting == WeightAccounting::every_parameter, a.reported_memory,
                  a.memory_fraction, a.runtime_reserve.in(GiB), a.activation_workspace, a.fallback_link_latency.in(us),
                  w.efficiency.bandwidth, w.efficiency.compute, w.efficiency.overhead.in(us), w.efficiency.activation_traffic);
    return buf;
}

// Memory: every field finite and non-negative, fits() exactly used() <= budget, free() within
// the budget.
inline void check_memory(const ridgeline::MemoryUse& u) {
    using namespace ridgeline;
    FUZZ_REQUIRE(finite_non_negative(u.capacity) && finite_non_negative(u.reserve) && finite_non_negative(u.budget));
    FUZZ_REQUIRE(finite_non_negative(u.weights) && finite_non_negative(u.kv) && finite_non_negative(u.activations));
    FUZZ_REQUIRE(is_finite(u.used()));
    FUZZ_REQUIRE(u.fits() == (u.used() <= u.budget));
    FUZZ_REQUIRE(finite_non_negative(u.free()) && u.free() <= u.budget);
}

// A decode step: every field finite and non-negative, the step time positive, the device count
// t x p x d, and the memory as check_memory says.
inline void check_step(const ridgeline::DecodeStep& d, const ridgeline::Deployment& dep) {
    using namespace ridgeline;
    FUZZ_REQUIRE(is_finite(d.step_time) && d.step_time > Seconds{});
    FUZZ_REQUIRE(d.devices == dep.devices());
    for (const Bytes b : {d.weight_bytes, d.kv_bytes, d.activation_bytes, d.total_bytes, d.bytes_per_device}) FUZZ_REQUIRE(finite_non_negative(b));
    FUZZ_REQUIRE(finite_non_negative(d.flops) && finite_non_negative(d.attention_flops));
    for (const Seconds t : {d.memory_time, d.compute_time, d.communication_time, d.overhead_time}) FUZZ_REQUIRE(finite_non_negative(t));
    for (const PerSecond r : {d.steps_per_s, d.tokens_per_s, d.total_tokens_per_s}) FUZZ_REQUIRE(finite_non_negative(r));
    FUZZ_REQUIRE(finite_non_negative(d.arithmetic_intensity) && finite_non_negative(d.ops_per_byte));
    FUZZ_REQUIRE(finite_non_negative(d.links.per_stage) && finite_non_negative(d.links.pipeline_hops) && d.links.messages >= 0);
    check_memory(d.memory);
    FUZZ_REQUIRE(d.fits() == d.memory.fits());
}

// Runs every answer over one setting. Each either returns or throws ridgeline::error (the
// errors the library documents: a context past the model's limit, a split the model cannot
// take, a format the device has no peak for, a value past its bound); what it returns holds:
//  - decode_step: check_step;
//  - memory_use: check_memory, and the same as the step's;
//  - ridge_batch: "never" or a finite positive batch; n_star: none or a finite context >= 0;
//  - largest_batch at the workload's context: the batch it gives fits and one more does not
//    (unless it is the 2^40 cap); none only when one sequence does not fit;
//  - longest_context at the workload's batch: the context it gives fits and one more token does
//    not (unless it is the model's limit or 2^40); "unbounded" only when every layer is windowed;
//  - prefill and generate: finite, positive times; decode steps counted within the new tokens;
//  - operators: every operator's bytes, FLOPs and time finite and non-negative, its
//    compute-bound batch "never" or finite and >= 0.
inline void check_answers(const ridgeline::Deployment& dep, const ridgeline::Model& m, const ridgeline::Workload& w,
                          std::int64_t new_tokens = 16, std::int64_t chunk = 0) {
    using namespace ridgeline;
    context() = describe(dep, m, w) + " new_tokens=" + std::to_string(new_tokens) + " chunk=" + std::to_string(chunk);
    try {
        const DecodeStep d = decode_step(dep, m, w);
        check_step(d, dep);
        const MemoryUse u = memory_use(dep, m, w);
        check_memory(u);
        FUZZ_REQUIRE(u.used() == d.memory.used() && u.budget == d.memory.budget);
    } catch (const error&) {
    }
    try {
        const RidgeBatch r = ridge_batch(dep, m, w);
        if (r.exists()) FUZZ_REQUIRE(std::isfinite(r.value()) && r.value() > 0);
    } catch (const error&) {
    }
    try {
        if (const auto n = n_star(dep, m, w)) FUZZ_REQUIRE(std::isfinite(*n) && *n >= 0);
    } catch (const error&) {
    }
    try {
        const std::int64_t context = w.context < 1 ? 1 : w.context;
        const auto b = largest_batch(dep, m, w, context);
        Workload at = w;
        at.context = context;
        at.batch = 1;
        const bool one_fits = memory_use(dep, m, at).fits();
        FUZZ_REQUIRE(b.has_value() == one_fits);
        if (b) {
            FUZZ_REQUIRE(*b >= 1 && *b <= max_batch);
            at.batch = *b;
            FUZZ_REQUIRE(memory_use(dep, m, at).fits());
            if (*b < max_batch) {
                at.batch = *b + 1;
                FUZZ_REQUIRE(!memory_use(dep, m, at).fits());
            }
        }
    } catch (const error&) {
    }
    try {
        const ContextFit f = longest_context(dep, m, w, w.batch);
        Workload at = w;
        if (f.fits() && !f.is_unbounded()) {
            const std::int64_t n = f.tokens();
            FUZZ_REQUIRE(n >= 1 && n <= max_context && (m.max_context == 0 || n <= m.max_context));
            at.context = n;
            FUZZ_REQUIRE(memory_use(dep, m, at).fits());
            if (n < max_context && n != m.max_context) {
                at.context = n + 1;
                FUZZ_REQUIRE(!memory_use(dep, m, at).fits());
            }
        }
        if (f.is_unbounded())
            for (const auto& g : m) FUZZ_REQUIRE(g.spec.window > 0);
    } catch (const error&) {
    }
    try {
        const std::int64_t prompt = w.context < 1 ? 1 : w.context;
        const Prefill p = prefill(dep, m, w, prompt, chunk);
        FUZZ_REQUIRE(is_finite(p.time) && p.time > Seconds{} && p.chunks >= 1);
        FUZZ_REQUIRE(finite_non_negative(p.memory_time) && finite_non_negative(p.compute_time));
        FUZZ_REQUIRE(finite_non_negative(p.bytes_per_device) && finite_non_negative(p.flops));
    } catch (const error&) {
    }
    try {
        const Generation g = generate(dep, m, w, w.context, new_tokens, chunk);
        FUZZ_REQUIRE(is_finite(g.total_time) && g.total_time > Seconds{});
        FUZZ_REQUIRE(finite_non_negative(g.time_to_first_token) && finite_non_negative(g.decode_time));
        FUZZ_REQUIRE(finite_non_negative(g.decode_tokens_per_s));
        FUZZ_REQUIRE(g.compute_bound_steps >= 0 && g.compute_bound_steps <= new_tokens);
    } catch (const error&) {
    }
    try {
        for (const Operator& o : operators(dep, m, w)) {
            FUZZ_REQUIRE(finite_non_negative(o.bytes) && finite_non_negative(o.flops) && finite_non_negative(o.time));
            // >= 0, not > 0: an operator that reads nothing shared (attention over the cache, the
            // embedding rows) and does more compute than memory time per sequence is compute-bound
            // from the first sequence on, and its batch is 0 (found by this fuzzer: deepseek-v3's
            // MLA attention with an nvfp4 cache, regressions/setting/operator-ridge-zero).
            if (o.compute_bound_batch.exists())
                FUZZ_REQUIRE(std::isfinite(o.compute_bound_batch.value()) && o.compute_bound_batch.value() >= 0);
        }
    } catch (const error&) {
    }
}

// Speculative decoding at the setting, with a free draft, the model drafting for itself (a
// draft model of its own vocabulary) and, where it has them, its MTP modules: each either throws
// ridgeline::error or returns finite, non-negative times, a positive rate and speedup, expected
// tokens from 1 to the longest path a verification can accept, and finite memory.
inline void check_speculation(const ridgeline::Deployment& dep, const ridgeline::Model& m, const ridgeline::Workload& w,
                              const ridgeline::Speculation& s) {
    using namespace ridgeline;
    context() = describe(dep, m, w) + " speculation g=" + std::to_string(s.draft_tokens) + " a=" + std::to_string(s.acceptance) +
                " k=" + std::to_string(s.tree_width) + " n=" + std::to_string(s.verify_tokens) + " accepted=" + std::to_string(s.accepted_tokens);
    const auto check = [&](const SpeculativeDecode& r) {
        FUZZ_REQUIRE(r.expected_tokens >= 1 && r.expected_tokens <= static_cast<double>(s.draft_tokens + 1));
        FUZZ_REQUIRE(finite_non_negative(r.draft_time) && is_finite(r.verify.step_time) && r.verify.step_time > Seconds{});
        FUZZ_REQUIRE(is_finite(r.cycle_time) && r.cycle_time > Seconds{});
        FUZZ_REQUIRE(is_finite(r.tokens_per_s) && r.tokens_per_s > PerSecond{} && is_finite(r.total_tokens_per_s));
        FUZZ_REQUIRE(std::isfinite(r.speedup) && r.speedup > 0);
        check_memory(r.memory);
    };
    try {
        check(speculative_decode(dep, m, w, s));
    } catch (const error&) {
    }
    try {
        check(speculative_decode(dep, m, w, s, &m));
    } catch (const error&) {
    }
    if (m.mtp_layers > 0) {
        Speculation mtp = s;
        mtp.mtp = true;
        try {
            check(speculative_decode(dep, m, w, mtp));
        } catch (const error&) {
        }
    }
}

// Runs the answers over a fixed grid that spans the documented bounds: batches and contexts
// from the smallest to 2^40, and splits over tensor, pipeline, expert and data parallelism up
// to 2^20 devices each. (fuzz_setting draws the setting from the input instead.)
inline void exercise(const ridgeline::Hardware& h, const ridgeline::Model& m) {
    using namespace ridgeline;
    constexpr std::int64_t big = std::int64_t{1} << 40;
    const Parallelism splits[] = {{},
                                  {.tensor = 2, .pipeline = 2, .data = 3},
                                  {.tensor = 8, .expert = 8},
                                  {.tensor = 4, .pipeline = 4, .expert = 2, .data = 1 << 20},
                                  {.tensor = 1 << 20, .pipeline = 1 << 20, .expert = 1 << 20, .data = 1 << 20}};
    for (const Parallelism& p : splits)
        for (std::int64_t batch : {std::int64_t{1}, std::int64_t{7}, std::int64_t{256}, big})
            for (std::int64_t context : {std::int64_t{0}, std::int64_t{100}, std::int64_t{5000}, big}) {
                Workload w{.batch = batch, .context = context};
                w.assumptions.attention_flops = batch != 7;
                check_answers(Deployment{h, p}, m, w);
            }
}

}  // namespace fuzz
