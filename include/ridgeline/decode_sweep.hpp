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
// ignored). The batches and contexts are checked first, as decode_step checks them (their
// extremes: the checks are bounds), so a bad one throws before anything is written. Each row of
// a batch is worked out in loops over the contexts that the compiler vectorises, one per column
// asked for; columns not asked for cost nothing.
inline void decode_sweep(const Deployment& dep, const Model& m, const Workload& base, std::span<const std::int64_t> batches,
                         std::span<const std::int64_t> contexts, const DecodeColumns& out) {
    validate(dep, m);
    validate(base);
    if (!batches.empty()) {
        Workload w = base;
        w.batch = batches.front();
        for (const std::int64_t b : batches) w.batch = b < w.batch ? b : w.batch;
        validate(w);
        for (const std::int64_t b : batches) w.batch = b > w.batch ? b : w.batch;
        validate(w);
    }
    if (!contexts.empty()) {
        Workload w = base;
        w.context = contexts.front();
        for (const std::int64_t n : contexts) w.context = n < w.context ? n : w.context;
        validate(w);
        for (const std::int64_t n : contexts) w.context = n > w.context ? n : w.context;
        validate(w);
        require_context_within(m, w.context, "context");
    }
    const std::size_t nb = batches.size(), nc = contexts.size();
    const StepCost c = step_cost(m, base, dep.parallel);
    const Rates rates = effective_rates(dep.device, base);
    const auto devices = static_cast<double>(c.tensor * c.pipeline);
    const auto stages = static_cast<double>(c.pipeline);
    const auto q = static_cast<double>(base.tokens_per_sequence);
    const Seconds stage_overhead = base.efficiency.overhead + c.layers_per_stage * base.efficiency.per_layer;
    const bool memory_columns = out.memory_per_device || out.memory_budget || out.fits;
    // Memory: the budget and the weights are the same at every point; the KV held per sequence
    // depends on the context, the activation workspace on the batch.
    const MemoryUse budget = memory_budget(dep.device, base.assumptions);
    const Bytes resident = weights_per_device(m, base.precision, dep.parallel);
    const Bytes workspace = activation_bytes_per_token(m, dep.parallel);
    // Per context: one sequence's KV bytes and FLOPs, and (for the memory columns) its KV held per device.
    std::vector<Bytes> kv_n(nc), held_n(memory_columns ? nc : 0);
    std::vector<Flops> flops_n(nc);
    for (std::size_t j = 0; j < nc; ++j) {
        const auto n = static_cast<double>(contexts[j]);
        kv_n[j] = c.kv_bytes(n);
        flops_n[j] = c.flops(n);
        if (memory_columns)
            held_n[j] = kv_per_sequence_per_device(m, base.precision.kv, static_cast<double>(contexts[j] + base.tokens_per_sequence - 1),
                                                   dep.parallel);
    }
    std::vector<Seconds> step(nc), memory_time(nc), compute_time(nc);
    for (std::size_t i = 0; i < nb; ++i) {
        const std::int64_t b = batches[i];
        const auto B = static_cast<double>(b);
        const std::size_t at = i * nc;
        // Per batch: the weights read (the experts the batch touches), and the links, whose
        // messages grow with the batch.
        const Bytes weights = c.weight_bytes(b);
        Workload wb = base;
        wb.batch = b;
        const Communication links = communication(dep, m, wb, c);
        const Seconds communication_time = stages * links.per_stage + links.pipeline_hops;
        // The step: the larger of the memory and compute terms, the links and the overhead, in
        // each stage (Pipeline::time of one stage per step: sum + (stages - 1) x longest + hops).
        for (std::size_t j = 0; j < nc; ++j) {
            memory_time[j] = (weights + B * kv_n[j]) / rates.bandwidth;
            compute_time[j] = B * flops_n[j] / rates.peak;
            const Seconds stage = (compute_time[j] > memory_time[j] ? compute_time[j] : memory_time[j]) + links.per_stage + stage_overhead;
            step[j] = (Seconds{} + stage) + static_cast<double>(c.pipeline - 1) * stage + links.pipeline_hops;
        }
        if (out.step_time)
            for (std::size_t j = 0; j < nc; ++j) out.step_time[at + j] = step[j].in(s);
        if (out.tokens_per_s)
            for (std::size_t j = 0; j < nc; ++j) out.tokens_per_s[at + j] = (q / step[j]).in(per_s);
        if (out.total_tokens_per_s) {
            const double tokens = static_cast<double>(dep.parallel.data) * stages * B * q;
            for (std::size_t j = 0; j < nc; ++j) out.total_tokens_per_s[at + j] = (tokens / step[j]).in(per_s);
        }
        if (out.compute_bound)
            for (std::size_t j = 0; j < nc; ++j) out.compute_bound[at + j] = compute_time[j] > memory_time[j];
        if (out.weight_bytes)
            for (std::size_t j = 0; j < nc; ++j) out.weight_bytes[at + j] = (devices * weights).in(bytes);
        if (out.kv_bytes)
            for (std::size_t j = 0; j < nc; ++j) out.kv_bytes[at + j] = (devices * (B * kv_n[j])).in(bytes);
        if (out.bytes_per_step)
            for (std::size_t j = 0; j < nc; ++j) out.bytes_per_step[at + j] = (devices * weights + devices * (B * kv_n[j])).in(bytes);
        if (out.arithmetic_intensity)
            for (std::size_t j = 0; j < nc; ++j)
                out.arithmetic_intensity[at + j] =
                    ((devices * (B * flops_n[j])) / (devices * weights + devices * (B * kv_n[j]))).in(flop_per_byte);
        if (out.communication_time)
            for (std::size_t j = 0; j < nc; ++j) out.communication_time[at + j] = communication_time.in(s);
        if (memory_columns) {
            Bytes activations{};
            if (base.assumptions.activation_workspace) activations = static_cast<double>(b * base.tokens_per_sequence) * workspace;
            for (std::size_t j = 0; j < nc; ++j) {
                MemoryUse u = budget;
                u.weights = resident;
                u.kv = static_cast<double>(b * dep.parallel.pipeline) * held_n[j];
                u.activations = activations;
                if (out.memory_per_device) out.memory_per_device[at + j] = u.used().in(bytes);
                if (out.memory_budget) out.memory_budget[at + j] = u.budget.in(bytes);
                if (out.fits) out.fits[at + j] = u.fits();
            }
        }
    }
}

}  // namespace ridgeline
