// One decode step: bytes moved, FLOPs done, and which of the two sets the time.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "deployment.hpp"
#include "hardware.hpp"
#include "memory.hpp"
#include "step_cost.hpp"

namespace ridgeline {

enum class Bound : std::uint8_t { memory, compute };

constexpr const char* name_of(Bound b) noexcept { return b == Bound::memory ? "memory" : "compute"; }

// The roofline for one piece of work: it takes as long as the slower of its memory traffic
// and its arithmetic, which overlap.
constexpr Seconds roofline_time(Bytes moved, Flops work, BytesPerSecond bandwidth, FlopsPerSecond peak) {
    const Seconds memory = moved / bandwidth;
    const Seconds compute = work / peak;
    return memory < compute ? compute : memory;
}

// The rates a workload gets (Rates, step_cost.hpp): peak bandwidth and peak FLOP/s for its
// compute format, scaled by its efficiency.
constexpr Rates effective_rates(const Hardware& hw, const Workload& w) {
    return Rates{hw.memory_bandwidth * w.efficiency.bandwidth, hw.require_peak(w.precision.compute) * w.efficiency.compute};
}

// Tokens/s per sequence (the roofline term only) for many batches at one context: the inner
// loop of a sweep. For a dense model the per-batch work is a multiply-add and a division, in a
// loop the compiler vectorises; with routed experts each batch goes through step_times.
constexpr void tokens_per_s_over_batches(const StepCost& c, const Rates& r, std::int64_t context,
                                         std::span<const std::int64_t> batches, std::span<double> out) {
    if (out.size() < batches.size()) throw error("", "out", std::to_string(out.size()) + " slots", "one per batch");
    require_context_range(context);
    // The smallest batch, without an early exit, so the check vectorises: it ran as long as the
    // arithmetic it guards.
    std::int64_t smallest = 1;
    for (const std::int64_t b : batches) smallest = b < smallest ? b : smallest;
    if (smallest < 1) throw error("", "batch", std::to_string(smallest), "an integer >= 1");
    if (c.has_routed_experts() || c.attention_data > 1) {
        for (std::size_t i = 0; i < batches.size(); ++i) out[i] = 1.0 / step_times(c, r, batches[i], context).roofline().in(s);
        return;
    }
    const double bw = r.bandwidth.in(bytes_per_s), peak = r.peak.in(flop_per_s);
    const double fixed = c.fixed_bytes.in(bytes) / bw;
    const double kv = c.kv_bytes(static_cast<double>(context)).in(bytes) / bw;
    const double compute = c.flops(static_cast<double>(context)).in(flop) / peak;
    const auto per_sequence = static_cast<double>(c.tokens_per_sequence);
    // The embedding rows' time per row read, divided once here: a division per batch halved
    // the loop's speed.
    const double row = c.per_sequence_bytes.in(bytes) / bw;
    for (std::size_t i = 0; i < batches.size(); ++i) {
        const auto b = static_cast<double>(batches[i]);
        const double memory = fixed + b * kv + c.rows_read(b * per_sequence) * row, work = b * compute;
        out[i] = 1.0 / (memory < work ? work : memory);
    }
}

// Time on the links in one step of `tokens` tokens (batch x tokens per sequence), per stage.
struct Communication {
    Seconds per_stage{};       // a stage's tensor-parallel all-reduces and expert all-to-alls
    Seconds pipeline_hops{};   // activations passed between stages, once per step
    std::int64_t messages = 0; // latency-paying messages in the whole step: messages_in(pipeline)
    double stage_messages = 0; // one stage's, in its all-reduces and all-to-alls (per_stage pays them)
    double hop_messages = 0;   // the hops between stages, one message each
    Link tensor_link{};        // what the tensor-parallel group crosses
    Link pipeline_link{};      // what the stage boundaries cross
    // The messages a time waits for that passes through a stage `passes` times and crosses the
    // hops once: a decode step's p passes, a prefill's chunks + p - 1 (each pays Efficiency::per_message).
    [[nodiscard]] constexpr double messages_in(double passes) const { return passes * stage_messages + hop_messages; }
};

namespace decode_detail {
// A ring all-reduce of `message` bytes over `group` devices: 2 (g - 1) steps, each sending
// message / g one way at the slowest hop's bandwidth and paying the link's latency, and the
// engine's own time a message (Efficiency::per_message). A ring over n scale-up domains crosses
// the network on 2n of its steps and stays inside a domain on the rest (NCCL's ring model,
// v2.20.3: nInterSteps = 2 nNodes for an all-reduce).
constexpr Seconds ring_all_reduce(const Link& l, Bytes message, std::int64_t group, Seconds per_message = {}) {
    if (group <= 1) return Seconds{};
    const auto g = static_cast<double>(group);
    const double steps = 2.0 * (g - 1.0);
    const double crossing = l.scale_out && l.domains > 1 && 2.0 * static_cast<double>(l.domains) < steps ? 2.0 * static_cast<double>(l.domains) : steps;
    return crossing * l.latency + (steps - crossing) * l.within_latency + steps * (message / g / l.one_way + per_message);
}
}  // namespace decode_detail

// Per layer: one all-reduce after attention and one after the FFN (each that has weights: a
// skipped block has none) over the t devices of a stage (attention over an attention
// data-parallel rank's devices, of its sequences); an MoE layer with expert parallelism e > 1 instead sends each of its device's tokens
// (1/t of them) to the k chosen experts' devices and back (dispatch and combine, one message
// each way, (e - 1)/e of the copies leaving the device, those for another scale-up domain over
// the network and the rest over the scale-up link), plus an all-reduce among the t/e
// devices that slice each expert. Between stages, p - 1 hops of the activations. A group larger
// than the scale-up domain crosses the scale-out network.
constexpr Communication communication(const Deployment& d, const Model& m, const Workload& w, const StepCost& c) {
    Communication out;
    if (c.tensor == 1 && c.pipeline == 1) return out;
    const Assumptions& a = w.assumptions;
    const double tokens = static_cast<double>(w.batch) * static_cast<double>(w.tokens_per_sequence);
    const Bytes message = tokens * static_cast<double>(m.hidden_size) * d.parallel.activations.bytes_per_element();
    const Seconds engine = w.efficiency.per_message;  // the engine's own time a message (Efficiency::per_message)
    const auto ring = [engine](const Link& l, Bytes b, std::int64_t group) { return decode_detail::ring_all_reduce(l, b, group, engine); };
    if (c.tensor > 1) {
        out.tensor_link = link_for_group(d, a, c.tensor);
        const Link& l = out.tensor_link;
        // One all-reduce after each attention and each dense FFN that has weights to split, over
        // the group. Attention data-parallel ranks instead reduce their own sequences among their
        // t / ranks devices (the busiest rank's, ceil(B / ranks)); the FFN still gathers every
        // rank's tokens and scatters the sums back, a ring all-reduce's traffic over the group.
        const double reduces = (c.attention_data == 1 ? c.attention_reduces_per_stage : 0.0) + c.dense_ffn_reduces_per_stage;
        Seconds stage = reduces * ring(l, message, c.tensor);
        double messages = reduces * 2.0 * static_cast<double>(c.tensor - 1);
        if (const std::int64_t ta = c.tensor / c.attention_data; c.attention_data > 1 && ta > 1) {
            const auto B = static_cast<double>(w.batch);
            const Bytes rank_message = message * (c.context_batch(B) / static_cast<double>(c.attention_data) / B);
            stage += c.attention_reduces_per_stage * ring(link_for_group(d, a, ta), rank_message, ta);
            messages += c.attention_reduces_per_stage * 2.0 * static_cast<double>(ta - 1);
        }
        if (c.moe_layers_per_stage > 0) {
            if (c.expert == 1) {
                stage += c.moe_layers_per_stage * ring(l, message, c.tensor);
                messages += c.moe_layers_per_stage * 2.0 * static_cast<double>(c.tensor - 1);
            } else {
                const auto e = static_cast<double>(c.expert);
                // The expert groups live inside the tensor-parallel group, so on its link.
                const Bytes sent = message / static_cast<double>(c.tensor) * c.experts_per_token;
                const std::int64_t slices = c.tensor / c.expert;
                // Each expert's slices sit together (a whole group of t / e devices), within one
                // scale-up domain where they fit in one.
                Seconds all_to_all = l.send(sent * (e - 1.0) / e);
                if (l.scale_out && slices < d.device.scale_up_domain) {
                    // Past the domain only the copies for other domains' expert groups take the
                    // network; those for the sender's own domain go over its scale-up link at the
                    // same time (a device's NIC and NVLink carry their shares side by side).
                    const auto local = static_cast<double>(d.device.scale_up_domain / slices);
                    const Seconds network = l.send(sent * (e - local) / e);
                    const Seconds inside = local > 1 ? link_for_group(d, a, d.device.scale_up_domain).send(sent * (local - 1.0) / e) : Seconds{};
                    all_to_all = network < inside ? inside : network;
                }
                stage += c.moe_layers_per_stage * (2.0 * (all_to_all + engine) + ring(link_for_group(d, a, slices), message, slices));
                messages += c.moe_layers_per_stage * (2.0 + 2.0 * static_cast<double>(slices - 1));
            }
        }
        out.per_stage = stage;
        out.stage_messages = messages;
    }
    if (c.pipeline > 1) {
        out.pipeline_link = link_for_pair(d, a, c.tensor * c.pipeline);
        const Link& l = out.pipeline_link;
        const auto hops = static_cast<double>(c.pipeline - 1);
        // Stages sit in order, so only the hops at a domain's edge cross the network; the rest
        // stay on the scale-up link.
        const double crossing = l.scale_out && static_cast<double>(l.domains - 1) < hops ? static_cast<double>(l.domains - 1) : hops;
        out.pipeline_hops = crossing * l.send(message) + hops * engine;
        if (crossing < hops) out.pipeline_hops += (hops - crossing) * link_for_pair(d, a, d.device.scale_up_domain).send(message);
        out.hop_messages = hops;
    }
    out.messages = static_cast<std::int64_t>(out.messages_in(static_cast<double>(c.pipeline)));
    return out;
}

// The one composer of stage work into time, for decode steps, prefill chunks and verification
// passes alike. Each piece of work (a step, a chunk) takes `stage_time` on every pipeline stage
// (its roofline, the stage's links and overhead: the stages hold equal shares of the layers),
// and pieces follow each other through the stages. Such a proportionate flow shop finishes the
// last piece after sum(t_i) + (p - 1) max(t_i), plus that piece's hops between stages: one
// piece takes p t + hops, and c chunks of a prompt overlap across the stages.
struct Pipeline {
    Seconds sum{};
    Seconds longest{};
    Seconds last_hops{};
    constexpr void add(Seconds stage_time, Seconds hops) {
        sum += stage_time;
        if (stage_time > longest) longest = stage_time;
        last_hops = hops;
    }
    [[nodiscard]] constexpr Seconds time(std::int64_t stages) const {
        return sum + static_cast<double>(stages - 1) * longest + last_hops;
    }
};

struct DecodeStep {
    Assumptions assumptions{};
    std::int64_t batch = 0;
    std::int64_t context = 0;
    std::int64_t devices = 1;     // tensor x pipeline x data
    // Totals over one replica's devices (tensor-parallel KV replication included; under expert
    // parallelism each device's expected share of the touched experts, not the busiest's).
    Bytes weight_bytes{};         // weights read this step (shared + every sequence's own rows)
    Bytes kv_bytes{};             // all sequences' K and V (and recurrent state)
    Bytes activation_bytes{};     // all tokens' activations written and read back (Efficiency::activation_traffic)
    Bytes total_bytes{};
    Bytes bytes_per_device{};     // what the busiest device reads, the memory term
    Flops flops{};                // all sequences, all devices of the replica
    Flops attention_flops{};      // reported always; in `flops` only when the assumptions count them
    // Times on one device of one stage, then what the links and fixed overheads add per token.
    Seconds memory_time{};
    Seconds compute_time{};
    Seconds communication_time{};  // all stages' all-reduces and all-to-alls, and the pipeline hops
    Seconds overhead_time{};       // the efficiency's fixed times: per stage, and per sequence once a step
    // The pacing stage's layers and MoE layers: what each stage's pass pays Efficiency::per_layer
    // and per_moe_layer for (all layers without a pipeline).
    double stage_layers = 0, stage_moe_layers = 0;
    Seconds step_time{};           // time per output token of every sequence (TPOT)
    Bound bound = Bound::memory;   // of the memory and compute terms, the larger
    // The links take longer than that term on every stage: a split too wide for its link, whose
    // step the bound alone would call memory- or compute-bound (limit_name says "links").
    bool links_bound = false;
    PerSecond steps_per_s{};         // 1 / step_time
    PerSecond tokens_per_s{};        // per sequence: the tokens each step pushes (1 when decoding), per second
    PerSecond total_tokens_per_s{};  // all sequences of all replicas (pipeline p: p micro-batches in flight)
    FlopsPerByte arithmetic_intensity{};
    FlopsPerByte ops_per_byte{};     // the device's, for the compute format, at peak
    MemoryUse memory{};              // one device, the busiest stage
    Communication links{};
    [[nodiscard]] constexpr bool fits() const noexcept { return memory.fits(); }
};

// What limits a step, as a word: "links" where they take longer than the roofline term, else
// the roofline's bound ("memory" or "compute").
constexpr const char* limit_name(const DecodeStep& d) noexcept { return d.links_bound ? "links" : name_of(d.bound); }

// The cost of all of a pipeline's stages together on one tensor rank, for a step's totals: the
// caller's cost without a pipeline (it is then the whole model), else the model costed unsplit
// by stages.
class WholeCost {
public:
    constexpr WholeCost(const Deployment& dep, const Model& m, const Workload& w, const StepCost& c) : cost_(&c) {
        if (c.pipeline == 1) return;
        Parallelism one = dep.parallel;
        one.pipeline = 1;
        own_ = step_cost(m, w, one);
        cost_ = &own_;
    }
    WholeCost(const WholeCost&) = delete;  // cost_ may point into the object
    WholeCost& operator=(const WholeCost&) = delete;
    constexpr const StepCost* operator->() const noexcept { return cost_; }
    constexpr const StepCost& get() const noexcept { return *cost_; }

private:
    StepCost own_{};
    const StepCost* cost_;
};

namespace decode_detail {
// What a stage's step takes beyond its roofline: its tensor-parallel and expert links, and its
// fixed times (per step, per layer, per MoE layer). Neither depends on the context.
constexpr Seconds stage_extra(const Deployment& dep, const Model& m, const Workload& w, const StepCost& c) {
    return communication(dep, m, w, c).per_stage + c.stage_overhead(w.efficiency);
}

// A decode step's cost on the deployment's device: without a pipeline, the whole model; under
// one, the stage whose step takes longest, its roofline at the device's rates and its links
// and fixed times. Where memory-bound that is the stage moving the most bytes, where
// compute-bound the one doing the most FLOPs (gpt-oss-120b over eight stages at 1,024
// sequences: the last, with the LM head, where the first moves more bytes; a review found it
// 19% slower than the stage chosen by bytes), and a stage with a layer more has more
// all-reduces and more per-layer time (a review found the roofline alone up to 7.8% short at
// TP 4 and 8 on the H200, and 12.6% with 20 us a layer).
constexpr StepCost device_step_cost(const Deployment& dep, const Model& m, const Workload& w) {
    if (dep.parallel.pipeline == 1) return step_cost(m, w, dep.parallel);
    const Rates r = effective_rates(dep.device, w);
    return step_cost_detail::busiest_stage(m, w, dep.parallel, [&](const StepCost& c) {
        return (step_times(c, r, w.batch, w.context).roofline() + stage_extra(dep, m, w, c)).in(s);
    });
}

// A decode step from its cost, already computed: `c` is step_cost(m, v, dep.parallel) for a
// workload v that differs from w at most in its context (a cost does not depend on it), and the
// caller has validated dep, m and w. Without `with_memory` the step's memory is left empty,
// for callers that read only its times. serve() prices several steps of one workload from one cost:
// a StepCost is 17 KB, and computing it was most of a plan evaluation's time.
constexpr DecodeStep step_from_cost(const Deployment& dep, const Model& m, const Workload& w, const StepCost& c, bool with_memory = true) {
    require_context_within(m, w.context, "context");
    const Hardware& hw = dep.device;
    const Rates rates = effective_rates(hw, w);
    const double B = static_cast<double>(w.batch);
    const double n = static_cast<double>(w.context);
    const auto stages = static_cast<double>(c.pipeline);

    DecodeStep d;
    d.assumptions = w.assumptions;
    d.batch = w.batch;
    d.context = w.context;
    d.devices = dep.devices();
    const Bytes weights = c.weight_bytes(w.batch);
    d.bytes_per_device = weights + c.step_kv_bytes(B, n);
    // Totals: every stage's own (the cost is the busiest stage's), each over its tensor ranks.
    const WholeCost whole(dep, m, w, c);
    const auto ranks_of_stage = static_cast<double>(c.tensor);
    d.weight_bytes = ranks_of_stage * whole->mean_weight_bytes(w.batch);
    // Every sequence once, not the busiest rank's for all.
    d.activation_bytes = ranks_of_stage * (B * static_cast<double>(c.tokens_per_sequence) * whole->activation_bytes);
    d.kv_bytes = ranks_of_stage * (B * whole->cache_bytes(n));
    d.total_bytes = d.weight_bytes + d.kv_bytes + d.activation_bytes;
    d.attention_flops = B * static_cast<double>(w.tokens_per_sequence) * model_detail::attention_flops_of_valid(m, n);
    d.flops = ranks_of_stage * (B * whole->flops(n));
    const StepTimes times = step_times(c, rates, w.batch, w.context);
    d.memory_time = times.memory;
    d.compute_time = times.compute;
    d.bound = d.compute_time > d.memory_time ? Bound::compute : Bound::memory;
    d.links = communication(dep, m, w, c);
    d.communication_time = stages * d.links.per_stage + d.links.pipeline_hops;
    // The fixed times: per step, per layer and per MoE layer, on every stage; per sequence, once.
    const Seconds stage_overhead = c.stage_overhead(w.efficiency);
    const Seconds host = B * w.efficiency.per_sequence;
    d.overhead_time = stages * stage_overhead + host;
    d.stage_layers = c.layers_per_stage;
    d.stage_moe_layers = c.moe_layers_per_stage;
    const Seconds stage_work = d.bound == Bound::compute ? d.compute_time : d.memory_time;
    d.links_bound = d.communication_time > stages * stage_work;
    Pipeline one;
    one.add(stage_work + d.links.per_stage + stage_overhead, d.links.pipeline_hops);
    d.step_time = one.time(c.pipeline) + host;
    const auto q = static_cast<double>(w.tokens_per_sequence);
    d.steps_per_s = 1.0 / d.step_time;
    d.tokens_per_s = q / d.step_time;
    d.total_tokens_per_s = static_cast<double>(dep.parallel.data) * stages * B * q / d.step_time;
    d.arithmetic_intensity = d.flops / d.total_bytes;
    d.ops_per_byte = hw.require_peak(w.precision.compute) / hw.memory_bandwidth;
    if (with_memory) d.memory = memory_detail::use_of_costed(dep, m, w);
    return d;
}
}  // namespace decode_detail

// One decode step of the workload's batch under a deployment. A step makes one token per
// sequence (tokens_per_sequence > 1 is a verification pass, whose tokens the caller counts).
constexpr DecodeStep decode_step(const Deployment& dep, const Model& m, const Workload& w) {
    validate(dep, m);
    return decode_detail::step_from_cost(dep, m, w, decode_detail::device_step_cost(dep, m, w));
}

// The ideal ceiling (peak rates, no overhead) and the estimate with the workload's efficiency.
struct DecodeEstimate {
    DecodeStep ideal;
    DecodeStep realistic;
};
constexpr DecodeEstimate decode_estimate(const Deployment& d, const Model& m, const Workload& w) {
    Workload ideal = w;
    ideal.efficiency = Efficiency{};
    return DecodeEstimate{decode_step(d, m, ideal), decode_step(d, m, w)};
}

// Seed 002's scaling-book form, memory-bound only, one device:
//     max tokens/s = B * bandwidth / (B * kv_bytes_per_sequence + param_bytes)
constexpr PerSecond scaling_book_tokens_per_s(const Hardware& hw, const Model& m, const Workload& w) {
    validate(hw);
    const StepCost c = step_cost(m, w);
    const double B = static_cast<double>(w.batch);
    return B * hw.memory_bandwidth / (B * c.kv_bytes(static_cast<double>(w.context)) + c.weight_bytes(w.batch));
}

}  // namespace ridgeline
