// From a measured decode speed to a diagnosis: the bandwidth it implies, how much of the
// ceiling it reaches, and, when it beats the ceiling, what the deployment must be doing that
// the stated setting does not say (fewer bits, more devices, or speculation).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "decode.hpp"
#include "speculative.hpp"

namespace ridgeline {

enum class Verdict : std::uint8_t {
    near_ceiling,   // at least `near` (90%) of the ideal ceiling: the kernel is doing its job
    gap,            // below that: kernel efficiency, launch overhead or configuration
    above_ceiling,  // faster than the stated setting allows: the setting is not what ran
};

constexpr const char* name_of(Verdict v) noexcept {
    switch (v) {
        case Verdict::near_ceiling: return "near the ceiling";
        case Verdict::gap: return "below the ceiling";
        case Verdict::above_ceiling: return "above the ceiling";
    }
    return "?";
}

struct Diagnosis {
    Seconds measured_step{};             // time per output token, as measured
    DecodeStep ceiling{};                // the ideal step for the stated setting
    BytesPerSecond implied_bandwidth{};  // the bytes one device must read per step / the measured step
    double bandwidth_utilisation = 0;    // implied / peak: MBU
    double fraction_of_ceiling = 0;      // measured tok/s over ceiling tok/s
    Verdict verdict = Verdict::gap;
    double gap = 0;                      // 1 - fraction, when below the ceiling
    // A measured step shorter than the ceiling's by no more than the figure's rounding allows
    // (diagnose's longest_step): at the ceiling, not above it; the terms alone read as at it.
    bool within_rounding = false;
    // The stated setting's memory: one that does not fit cannot have run as stated, so the
    // measurement is of another setting (fewer bits, more devices, a shorter context).
    MemoryUse memory{};
    // When above the ceiling, each of these alone would explain the measurement:
    // The linear layers and experts (what --weights sets) stored in at most this many bits, the
    // embeddings and an untied LM head in their own formats, the KV and links as stated.
    std::optional<double> max_bits_per_weight{};
    // Whether memory, not the step's time, sets that limit: the weights at those bits must also fit
    // beside the KV and activations (nullopt above then means not even the KV fits).
    bool bits_limited_by_memory = false;
    // The fewest devices (tensor x pipeline) of a tensor-parallel degree above the stated one
    // that the model splits into and whose memory fits, the other degrees as stated and links
    // included, whose ideal step is at most the measured one; nullopt where no degree up to 1,024
    // is, or where the device has no link figure to cost a split (then `no_link_figure`).
    std::optional<std::int64_t> min_devices{};
    bool no_link_figure = false;
    bool no_scale_out_figure = false;  // the field it lacks: scale_out_GB_per_s (past its domain), else interconnect_GB_per_s
    std::optional<double> min_acceptance{};       // speculation with `draft_tokens` drafts accepting at least this
    // The same bound as the mean tokens a verification must gain (the mean acceptance length
    // engines report, the target's own token included), which a tree's drafts must reach too.
    std::optional<double> min_accepted_tokens{};
    std::int64_t verification_past = 0;           // not costed: context + g passes these positions (the model's or 2^40)
    std::int64_t draft_tokens = 4;
    // At or below the ceiling, what each term alone would have to be to take the measured step,
    // as calibrate's terms (one measurement cannot tell them apart): a fixed time added to each
    // step of each pipeline stage (Efficiency::overhead), or the bandwidth or the compute at this
    // fraction of peak (each stage's memory or arithmetic then takes what the links leave of the
    // step; the other bound stays as it was).
    Seconds overhead_alone{};
    double bandwidth_efficiency_alone = 1;
    double compute_efficiency_alone = 1;
};

// `near`: the fraction of the ceiling that counts as at it (seed 003: "within 10%").
// `longest_step`: the longest step the measured figure's rounding allows (223.19 tok/s is
// anything from 223.185 to 223.195: 1 / 223.185 s); a measurement is above the ceiling only if
// that step is shorter than the ceiling's too. Unset (0), the measured step itself.
constexpr Diagnosis diagnose(const Deployment& dep, const Model& m, const Workload& w, Seconds measured_step,
                             double near = 0.9, std::int64_t draft_tokens = 4, Seconds longest_step = {}) {
    // At least a nanosecond: below it the implied bandwidth and FLOP rate overflow to infinity.
    if (!(measured_step >= ns(1)) || !is_finite(measured_step))
        throw error("", "measured time per token", number_text(measured_step.in(ms)) + " ms", "a finite time of at least 1 ns");
    if (!(near > 0 && near <= 1)) throw error("", "near", std::to_string(near), "a fraction in (0, 1]");
    if (longest_step != Seconds{} && !(longest_step >= measured_step && is_finite(longest_step)))
        throw error("", "longest step the measurement's rounding allows", number_text(longest_step.in(ms)) + " ms",
                    "a finite time no shorter than the measured " + number_text(measured_step.in(ms)) + " ms");
    validate(Speculation{.draft_tokens = draft_tokens});  // the draft length speculative takes, 1 to 1024
    const Hardware& hw = dep.device;
    Workload ideal = w;
    ideal.efficiency = Efficiency{};
    Diagnosis d;
    d.measured_step = measured_step;
    d.draft_tokens = draft_tokens;
    d.ceiling = decode_step(dep, m, ideal);
    d.memory = memory_use(dep, m, w);
    d.implied_bandwidth = d.ceiling.bytes_per_device / measured_step;
    d.bandwidth_utilisation = static_cast<double>(d.implied_bandwidth / hw.memory_bandwidth);
    d.fraction_of_ceiling = static_cast<double>(d.ceiling.step_time / measured_step);
    d.within_rounding = d.fraction_of_ceiling > 1.0 && !(d.ceiling.step_time > longest_step);
    if (d.fraction_of_ceiling > 1.0 && !d.within_rounding) {
        d.verdict = Verdict::above_ceiling;
        // A compute-bound step is not shortened by fewer bits (its arithmetic stays) nor by
        // speculation (a verification of g + 1 tokens does g + 1 tokens of arithmetic).
        const bool compute_bound = d.ceiling.bound == Bound::compute;
        // Fewer bits: the weight bytes that fit in the measured step beside the KV, once the
        // links and hops have had their time (the step is stages x (memory + a stage's links) +
        // hops, and fewer bits shorten only the memory term).
        const StepCost c = step_cost(m, ideal, dep.parallel);
        const Bytes rows = c.row_bytes(static_cast<double>(w.batch * w.tokens_per_sequence));
        const auto stages = static_cast<double>(dep.parallel.pipeline);
        const Seconds reading = (measured_step - (d.ceiling.step_time - stages * d.ceiling.memory_time)) / stages;
        const Bytes allowed = reading * hw.memory_bandwidth - c.step_kv_bytes(static_cast<double>(w.batch), static_cast<double>(w.context)) - rows;
        if (allowed > Bytes{} && !compute_bound) {
            // The bits are those of what --weights stores (the linear layers and the experts); the
            // embeddings and an untied LM head keep the formats the stated precision gives them
            // (unset: the weights', as stated), as --weights over it would leave them
            // (store_weights_as), as do the norms and routers. So the bytes are affine in those
            // bits, not proportional: stored at 8 and at 16 bits they give the line.
            const auto stored_at = [&](Format f) {
                Workload at = ideal;
                store_weights_as(at.precision, ideal.precision, f);
                return std::pair{step_cost(m, at, dep.parallel).weight_bytes(w.batch) - rows, memory_use(dep, m, at).weights};
            };
            const auto [read8, held8] = stored_at(formats::fp8);
            const auto [read16, held16] = stored_at(formats::bf16);
            d.max_bits_per_weight = 8.0 + 8.0 * static_cast<double>((allowed - read8) / (read16 - read8));
            // And they must fit: the busiest device's weights move with their bits too.
            const MemoryUse& mem = d.ceiling.memory;
            const Bytes room = mem.budget - mem.kv - mem.activations;
            const double fitting = 8.0 + 8.0 * static_cast<double>((room - held8) / (held16 - held8));
            if (*d.max_bits_per_weight <= 0) d.max_bits_per_weight.reset();  // the tables and the KV alone take longer
            if (d.max_bits_per_weight && fitting < *d.max_bits_per_weight) {
                d.bits_limited_by_memory = true;
                d.max_bits_per_weight = fitting > 0 ? std::optional<double>(fitting) : std::nullopt;
            }
        }
        // More devices: the first tensor-parallel degree past the stated one that runs the step
        // this fast and fits, as decode costs it (a degree the heads or experts do not divide is
        // no deployment, and each ring step of its all-reduces adds a link's latency, so spreading
        // the bytes is not enough).
        for (std::int64_t t = dep.parallel.tensor + 1; t <= 1024 && !d.min_devices; ++t) {
            Parallelism par = dep.parallel;
            par.tensor = t;
            // One attention rank a device stays one a device; other ranks keep their number.
            if (dep.parallel.attention_data == dep.parallel.tensor && dep.parallel.attention_data > 1) par.attention_data = t;
            try {
                validate(Deployment{hw, par}, m);
            } catch (const missing_link& e) {
                // No link joins this many devices (none in the preset, or none past its scale-up
                // domain): no larger degree has one either.
                d.no_link_figure = true;
                d.no_scale_out_figure = e.scale_out();
                break;
            } catch (const error&) {
                continue;  // not a degree this model (or the expert-parallel degree) splits into
            }
            const DecodeStep step = decode_step(Deployment{hw, par}, m, ideal);
            if (step.step_time <= measured_step && step.fits()) d.min_devices = par.replica_devices();
        }
        // Speculation: the expected tokens per verification must reach the ideal verification
        // step (g + 1 tokens a sequence, as speculative() costs it) over the measured step, with a
        // free draft (a lower bound on the acceptance). Where g + 1 tokens turn the verification
        // compute-bound it costs more than a plain step, and more drafts can ask for more.
        // The verification reads the cache through context + g: past the model's positions (or
        // 2^40) speculation is not costed, as speculative_decode refuses it.
        const std::int64_t positions = m.max_context > 0 && m.max_context < max_context ? m.max_context : max_context;
        if (w.context > positions - draft_tokens) {
            d.verification_past = positions;
        } else if (const double wanted = static_cast<double>(
                       decode_step(dep, m, verification_workload(ideal, draft_tokens)).step_time / measured_step);
                   wanted <= static_cast<double>(draft_tokens + 1) && !compute_bound) {
            double lo = 0, hi = 1;
            for (int i = 0; i < 200; ++i) {
                const double mid = (lo + hi) / 2;
                (expected_tokens_per_verification(Speculation{draft_tokens, mid}) >= wanted ? hi : lo) = mid;
            }
            d.min_acceptance = hi;
            d.min_accepted_tokens = wanted;
        }
    } else {
        d.verdict = d.fraction_of_ceiling >= near ? Verdict::near_ceiling : Verdict::gap;
        d.gap = d.verdict == Verdict::gap ? 1.0 - d.fraction_of_ceiling : 0.0;
        // The step is stages x max(memory, compute) plus the links and hops; a lower efficiency
        // lengthens its own term only, so it must fill what the links leave of the measured step.
        const auto stages = static_cast<double>(dep.parallel.pipeline);
        const Seconds roof = d.ceiling.memory_time > d.ceiling.compute_time ? d.ceiling.memory_time : d.ceiling.compute_time;
        const Seconds per_stage = (measured_step - (d.ceiling.step_time - stages * roof)) / stages;
        // Efficiency::overhead is paid once a stage, as calibrate fits it.
        d.overhead_alone = (measured_step - d.ceiling.step_time) / stages;
        d.bandwidth_efficiency_alone = static_cast<double>(d.ceiling.memory_time / per_stage);
        d.compute_efficiency_alone = static_cast<double>(d.ceiling.compute_time / per_stage);
        if (d.within_rounding) {
            // Faster than the ceiling only within the figure's rounding: no term is below its peak.
            d.overhead_alone = Seconds{};
            d.bandwidth_efficiency_alone = std::min(d.bandwidth_efficiency_alone, 1.0);
            d.compute_efficiency_alone = std::min(d.compute_efficiency_alone, 1.0);
        }
    }
    return d;
}

}  // namespace ridgeline
