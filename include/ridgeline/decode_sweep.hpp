// Decode steps over a grid of batches and contexts, column by column: decode_step's arithmetic
// term for term, so each point equals decode_step's result for it exactly, with what does not
// depend on the point (the step's cost, the rates, the memory budget and the weights) worked out
// once, what depends on the context once per context, and what depends on the batch (the weights
// the batch touches, the links' messages) once per batch. For sweeps of millions of points: the
// Python module's decode_sweep, and the benchmark.
#pragma once

#include <algorithm>
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
    double* bytes_per_device = nullptr;      // DecodeStep::bytes_per_device (the busiest device's); last, so
                                             // positional initialisers written before it stay right
    bool* links_bound = nullptr;             // DecodeStep::links_bound; after it for the same reason
    double* activation_bytes = nullptr;      // DecodeStep::activation_bytes; after it for the same reason
};

// The loops over a batch's contexts that take most of a sweep's time: the step (two divisions a
// point) and a rate (one). A build may define RIDGELINE_SWEEP_LOOPS to an attribute for them: the
// Python module builds them for AVX2 too, picked at load time (GCC's target_clones), which does
// four divisions at once where the x86-64 baseline does two. AVX2 alone allows no fused
// multiply-add, so the results are the same bits either way.
#ifndef RIDGELINE_SWEEP_LOOPS
#define RIDGELINE_SWEEP_LOOPS
#endif
namespace decode_sweep_detail {
// In SI base units as plain doubles (a Quantity's value: `in` a unit of scale 1 is the value
// itself), so that the compiler vectorises the loops; the operations are decode_step's.
struct Row {
    double weights = 0;         // bytes read by the batch's step, whatever the context
    double batch = 1;           // the sequences the context terms are charged for (StepCost::context_batch)
    double fixed_flops = 0;     // FLOPs whatever the context: the expert imbalance's, and the batch's under attention data parallelism
    double per_stage = 0;       // seconds: the links' time in each stage, and the overhead
    double stage_overhead = 0;
    double hops = 0;            // seconds between the stages
    double host = 0;            // seconds once a step: the per-sequence time of the batch
    double later_stages = 0;    // stages - 1
    double bandwidth = 0;       // bytes/s
    double peak = 0;            // FLOP/s
};
// The step at each context: memory time (weights + batch x KV) / bandwidth, compute time
// batch x FLOPs / peak, the larger plus the links and the overhead in each stage, and
// Pipeline::time of one stage per step (sum + (stages - 1) x longest + hops), plus the batch's
// per-sequence time.
RIDGELINE_SWEEP_LOOPS inline void steps(const Row r, const double* __restrict kv, const double* __restrict flops, std::size_t n,
                                        double* __restrict memory_time, double* __restrict compute_time, double* __restrict step) {
    for (std::size_t j = 0; j < n; ++j) {
        const double memory = (r.weights + r.batch * kv[j]) / r.bandwidth;
        const double compute = (r.fixed_flops + r.batch * flops[j]) / r.peak;
        const double stage = (compute > memory ? compute : memory) + r.per_stage + r.stage_overhead;
        memory_time[j] = memory;
        compute_time[j] = compute;
        step[j] = (0.0 + stage) + r.later_stages * stage + r.hops + r.host;
    }
}
// tokens / step at each context.
RIDGELINE_SWEEP_LOOPS inline void rates(double tokens, const double* __restrict step, std::size_t n, double* __restrict out) {
    for (std::size_t j = 0; j < n; ++j) out[j] = tokens / step[j];
}
}  // namespace decode_sweep_detail

// Every batch x context point of one setting (the base workload's batch and context are
// ignored). The batches and contexts are checked first, as decode_step checks them (their
// extremes: the checks are bounds), so a bad one throws before anything is written. Each row of
// a batch is worked out in loops over the contexts that the compiler vectorises, one per column
// asked for; columns not asked for cost nothing.
inline void decode_sweep(const Deployment& dep, const Model& m, const Workload& base, std::span<const std::int64_t> batches,
                         std::span<const std::int64_t> contexts, const DecodeColumns& out) {
    validate(dep, m);
    validate(base);
    // A list's least and greatest value, each validated in the workload field they are; returns
    // the greatest.
    const auto check_extremes = [&](std::span<const std::int64_t> values, std::int64_t Workload::*field) {
        const auto [least, most] = std::minmax_element(values.begin(), values.end());
        Workload w = base;
        for (const std::int64_t v : {*least, *most}) {
            w.*field = v;
            validate(w);
        }
        return *most;
    };
    if (!batches.empty()) check_extremes(batches, &Workload::batch);
    if (!contexts.empty()) require_context_within(m, check_extremes(contexts, &Workload::context), "context");
    const std::size_t nb = batches.size(), nc = contexts.size();
    if (dep.parallel.pipeline > 1) {
        // Under a pipeline the busiest stage moves with the batch and the context (step_cost):
        // each point is costed as decode_step costs it.
        for (std::size_t i = 0; i < nb; ++i)
            for (std::size_t j = 0; j < nc; ++j) {
                Workload at = base;
                at.batch = batches[i];
                at.context = contexts[j];
                const DecodeStep d = decode_step(dep, m, at);
                const std::size_t k = i * nc + j;
                if (out.weight_bytes) out.weight_bytes[k] = d.weight_bytes.in(bytes);
                if (out.kv_bytes) out.kv_bytes[k] = d.kv_bytes.in(bytes);
                if (out.bytes_per_step) out.bytes_per_step[k] = d.total_bytes.in(bytes);
                if (out.step_time) out.step_time[k] = d.step_time.in(s);
                if (out.tokens_per_s) out.tokens_per_s[k] = d.tokens_per_s.in(per_s);
                if (out.total_tokens_per_s) out.total_tokens_per_s[k] = d.total_tokens_per_s.in(per_s);
                if (out.compute_bound) out.compute_bound[k] = d.bound == Bound::compute;
                if (out.arithmetic_intensity) out.arithmetic_intensity[k] = d.arithmetic_intensity.in(flop_per_byte);
                if (out.communication_time) out.communication_time[k] = d.communication_time.in(s);
                if (out.memory_per_device) out.memory_per_device[k] = d.memory.used().in(bytes);
                if (out.memory_budget) out.memory_budget[k] = d.memory.budget.in(bytes);
                if (out.fits) out.fits[k] = d.fits();
                if (out.bytes_per_device) out.bytes_per_device[k] = d.bytes_per_device.in(bytes);
                if (out.links_bound) out.links_bound[k] = d.links_bound;
                if (out.activation_bytes) out.activation_bytes[k] = d.activation_bytes.in(bytes);
            }
        return;
    }
    const StepCost c = step_cost(m, base, dep.parallel);  // one stage: the whole model
    const Rates rates = effective_rates(dep.device, base);
    const auto devices = static_cast<double>(c.tensor);
    const auto stages = static_cast<double>(c.pipeline);
    const auto q = static_cast<double>(base.tokens_per_sequence);
    const Seconds stage_overhead = c.stage_overhead(base.efficiency);
    const bool memory_columns = out.memory_per_device || out.memory_budget || out.fits;
    // Memory: the budget and the weights are the same at every point; the KV held per sequence
    // depends on the context, the activation workspace on the batch.
    const MemoryUse budget = memory_budget(dep.device, base.assumptions);
    const Bytes resident = weights_per_device(m, base.precision, dep.parallel);
    const Bytes workspace = activation_bytes_per_token(m, dep.parallel);
    // Per context: one sequence's KV bytes and FLOPs, and (for the memory columns) its KV held per device.
    std::vector<Bytes> held_n(memory_columns ? nc : 0);
    // Under attention data parallelism the step charges a rank's FLOPs (rank_flops_n) for the
    // busiest rank's sequences and the rest for the batch, as StepCost::step_flops does.
    const bool by_ranks = c.attention_data > 1;
    const double batch_flops = c.batch_flops().in(flop);
    std::vector<double> kv_n(nc), cache_n(out.kv_bytes ? nc : 0), flops_n(nc), rank_flops_n(by_ranks ? nc : 0);  // bytes, FLOPs
    for (std::size_t j = 0; j < nc; ++j) {
        const auto n = static_cast<double>(contexts[j]);
        kv_n[j] = c.kv_bytes(n).in(bytes);
        if (out.kv_bytes) cache_n[j] = c.cache_bytes(n).in(bytes);
        flops_n[j] = c.flops(n).in(flop);
        if (by_ranks) rank_flops_n[j] = c.rank_flops(n).in(flop);
        if (memory_columns)
            held_n[j] = kv_per_sequence_per_device(m, base.precision.kv, static_cast<double>(contexts[j] + base.tokens_per_sequence - 1),
                                                   dep.parallel, base.precision.state);
    }
    std::vector<double> step(nc), memory_time(nc), compute_time(nc);  // seconds
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
        // FLOPs whatever the context: the busiest expert group's extra, and under attention data
        // parallelism the batch's share (StepCost::step_flops).
        const double fixed_flops = c.routed_imbalance_flops(b * base.tokens_per_sequence).in(flop) + (by_ranks ? B * batch_flops : 0.0);
        const decode_sweep_detail::Row row{weights.in(bytes), c.context_batch(B), fixed_flops, links.per_stage.in(s),
                                           stage_overhead.in(s), links.pipeline_hops.in(s), (B * base.efficiency.per_sequence).in(s),
                                           static_cast<double>(c.pipeline - 1), rates.bandwidth.in(bytes_per_s), rates.peak.in(flop_per_s)};
        decode_sweep_detail::steps(row, kv_n.data(), by_ranks ? rank_flops_n.data() : flops_n.data(), nc, memory_time.data(),
                                   compute_time.data(), step.data());
        if (out.step_time) std::copy(step.begin(), step.end(), out.step_time + at);
        if (out.tokens_per_s) decode_sweep_detail::rates(q, step.data(), nc, out.tokens_per_s + at);
        if (out.total_tokens_per_s)
            decode_sweep_detail::rates(static_cast<double>(dep.parallel.data) * stages * B * q, step.data(), nc, out.total_tokens_per_s + at);
        if (out.compute_bound)
            for (std::size_t j = 0; j < nc; ++j) out.compute_bound[at + j] = compute_time[j] > memory_time[j];
        if (out.links_bound)
            for (std::size_t j = 0; j < nc; ++j)
                out.links_bound[at + j] = communication_time.in(s) > stages * std::max(compute_time[j], memory_time[j]);
        const double weight_total = (devices * c.mean_weight_bytes(b)).in(bytes);
        if (out.weight_bytes) std::fill_n(out.weight_bytes + at, nc, weight_total);
        // kv_n holds each sequence's activations too (StepCost::kv_bytes); its cache alone is cache_n.
        if (out.kv_bytes)
            for (std::size_t j = 0; j < nc; ++j) out.kv_bytes[at + j] = devices * (B * cache_n[j]);
        if (out.activation_bytes) std::fill_n(out.activation_bytes + at, nc, devices * (B * q * c.activation_bytes.in(bytes)));
        if (out.bytes_per_step)
            for (std::size_t j = 0; j < nc; ++j) out.bytes_per_step[at + j] = weight_total + devices * (B * kv_n[j]);
        if (out.bytes_per_device)
            for (std::size_t j = 0; j < nc; ++j) out.bytes_per_device[at + j] = weights.in(bytes) + row.batch * kv_n[j];
        if (out.arithmetic_intensity)
            for (std::size_t j = 0; j < nc; ++j)
                out.arithmetic_intensity[at + j] = (devices * (B * flops_n[j])) / (weight_total + devices * (B * kv_n[j]));
        if (out.communication_time) std::fill_n(out.communication_time + at, nc, communication_time.in(s));
        if (memory_columns) {
            Bytes activations{};
            if (base.assumptions.activation_workspace) activations = static_cast<double>(b * base.tokens_per_sequence) * workspace;
            for (std::size_t j = 0; j < nc; ++j) {
                MemoryUse u = budget;
                u.weights = resident;
                u.kv = static_cast<double>(dep.parallel.sequences_per_attention_rank(b) * dep.parallel.pipeline) * held_n[j];
                u.activations = activations;
                if (out.memory_per_device) out.memory_per_device[at + j] = u.used().in(bytes);
                if (out.memory_budget) out.memory_budget[at + j] = u.budget.in(bytes);
                if (out.fits) out.fits[at + j] = u.fits();
            }
        }
    }
}

}  // namespace ridgeline
