// Decode steps over a grid of batches and contexts, column by column: decode_step's arithmetic
// term for term, so each point equals decode_step's result for it exactly, with what does not
// depend on the point (the step's cost, the rates, the memory budget and the weights) worked out
// once, what depends on the context once per context, and what depends on the batch (the weights
// the batch touches, the links' messages) once per batch. For sweeps of millions of points: the
// Python module's decode_sweep, and the benchmark.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "decode.hpp"

namespace ridgeline {

// Where each result goes: one slot per point, batch-major (the point for batches[i] and
// contexts[j] is i * contexts.size() + j). A null column is not written. Values in SI base
// units, as decode_schema.hpp's fields.
struct DecodeColumns {
    double* weight_bytes = nullptr;          // DecodeStep::weight_bytes
    double* kv_bytes = nullptr;              // DecodeStep::kv_bytes
    double* bytes_per_step = nullptr;        // DecodeStep::total_bytes
    double* step_time = nullptr;             // seconds
    double* tokens_per_s = nullptr;          // per sequence
    double* total_tokens_per_s = nullptr;
    bool* compute_bound = nullptr;           // DecodeStep::bound == Bound::compute
    double* arithmetic_intensity = nullptr;  // FLOP per byte
    double* communication_time = nullptr;    // seconds
    double* memory_per_device = nullptr;     // DecodeStep::memory.used(), bytes
    double* memory_budget = nullptr;         // DecodeStep::memory.budget, bytes
    bool* fits = nullptr;
};

// Every batch x context point of one setting (the base workload's batch and context are
// ignored). Every batch and context is checked first, as decode_step checks them, so a bad one
// throws before anything is written.
inline void decode_sweep(const Deployment& dep, const Model& m, const Workload& base, std::span<const std::int64_t> batches,
                         std::span<const std::int64_t> contexts, const DecodeColumns& out) {
    validate(dep, m);
    validate(base);
    for (const std::int64_t b : batches) {
        Workload w = base;
        w.batch = b;
        validate(w);
    }
    for (const std::int64_t n : contexts) {
        Workload w = base;
        w.context = n;
        validate(w);
        require_context_within(m, n, "context");
    }
    const std::size_t nb = batches.size(), nc = contexts.size();
    const StepCost c = step_cost(m, base, dep.parallel);
    const Rates rates = effective_rates(dep.device, base);
    const auto devices = static_cast<double>(c.tensor * c.pipeline);
    const auto stages = static_cast<double>(c.pipeline);
    const auto q = static_cast<double>(base.tokens_per_sequence);
    const Seconds stage_overhead = base.efficiency.overhead + c.layers_per_stage * base.efficiency.per_layer;
    // Memory: the budget and the weights are the same at every point; the KV held per sequence
    // depends on the context, the activation workspace on the batch.
    const MemoryUse budget = memory_budget(dep.device, base.assumptions);
    const Bytes resident = weights_per_device(m, base.precision, dep.parallel);
    const Bytes workspace = activation_bytes_per_token(m, dep.parallel);
    // Per context: one sequence's KV bytes and FLOPs, and its KV held per device.
    std::vector<Bytes> kv_n(nc), held_n(nc);
    std::vector<Flops> flops_n(nc);
    for (std::size_t j = 0; j < nc; ++j) {
        const auto n = static_cast<double>(contexts[j]);
        kv_n[j] = c.kv_bytes(n);
        flops_n[j] = c.flops(n);
        held_n[j] = kv_per_sequence_per_device(m, base.precision.kv, static_cast<double>(contexts[j] + base.tokens_per_sequence - 1),
                                               dep.parallel);
    }
    std::size_t at = 0;
    for (std::size_t i = 0; i < nb; ++i) {
        const std::int64_t b = batches[i];
        const auto B = static_cast<double>(b);
        // Per batch: the weights read (the experts the batch touches), and the links, whose
        // messages grow with the batch.
        const Bytes weights = c.weight_bytes(b);
        Workload wb = base;
        wb.batch = b;
        const Communication links = communication(dep, m, wb, c);
        const Seconds communication_time = stages * links.per_stage + links.pipeline_hops;
        Bytes activations{};
        if (base.assumptions.activation_workspace) activations = static_cast<double>(b * base.tokens_per_sequence) * workspace;
        for (std::size_t j = 0; j < nc; ++j, ++at) {
            const Bytes kv = B * kv_n[j];
            const Bytes weight_total = devices * weights, kv_total = devices * kv;
            const Bytes total = weight_total + kv_total;
            const Seconds memory_time = (weights + B * kv_n[j]) / rates.bandwidth;
            const Seconds compute_time = B * flops_n[j] / rates.peak;
            const bool compute = compute_time > memory_time;
            Pipeline one;
            one.add((compute ? compute_time : memory_time) + links.per_stage + stage_overhead, links.pipeline_hops);
            const Seconds step = one.time(c.pipeline);
            MemoryUse u = budget;
            u.weights = resident;
            u.kv = static_cast<double>(b * dep.parallel.pipeline) * held_n[j];
            u.activations = activations;
            if (out.weight_bytes) out.weight_bytes[at] = weight_total.in(bytes);
            if (out.kv_bytes) out.kv_bytes[at] = kv_total.in(bytes);
            if (out.bytes_per_step) out.bytes_per_step[at] = total.in(bytes);
            if (out.step_time) out.step_time[at] = step.in(s);
            if (out.tokens_per_s) out.tokens_per_s[at] = (q / step).in(per_s);
            if (out.total_tokens_per_s)
                out.total_tokens_per_s[at] = (static_cast<double>(dep.parallel.data) * stages * B * q / step).in(per_s);
            if (out.compute_bound) out.compute_bound[at] = compute;
            if (out.arithmetic_intensity) out.arithmetic_intensity[at] = ((devices * (B * flops_n[j])) / total).in(flop_per_byte);
            if (out.communication_time) out.communication_time[at] = communication_time.in(s);
            if (out.memory_per_device) out.memory_per_device[at] = u.used().in(bytes);
            if (out.memory_budget) out.memory_budget[at] = u.budget.in(bytes);
            if (out.fits) out.fits[at] = u.fits();
        }
    }
}

}  // namespace ridgeline
