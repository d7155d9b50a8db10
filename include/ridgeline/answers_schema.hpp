// The output schemas (output_schema.hpp) of the ridge, capacity, generation, prefill and
// speculative-decoding answers, with the row each is read from (and, where it takes more than a
// call, the one function that makes it), so the CLI, the page and the Python module compute a
// row the same way and write it under the same keys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "capacity.hpp"
#include "generation.hpp"
#include "memory.hpp"
#include "output_schema.hpp"
#include "prefill.hpp"
#include "ridge.hpp"
#include "speculative.hpp"

namespace ridgeline {

// ---------------------------------------------------------------------------------------------
// Ridge: the ridge batch at one context, and the setting's n*.
// ---------------------------------------------------------------------------------------------

struct RidgeRow {
    std::int64_t context = 0;
    RidgeBatch ridge = RidgeBatch::never();
    std::optional<double> n_star{};  // none: some batch is compute-bound at every context (n_star in ridge.hpp)
};

// `n_star` is the setting's, computed once for all its contexts.
constexpr RidgeRow ridge_row(const Deployment& d, const Model& m, Workload w, std::int64_t context, std::optional<double> n_star) {
    w.context = context;
    return RidgeRow{context, ridge_batch(d, m, w), n_star};
}

inline const Schema<RidgeRow>& ridge_fields() {
    using V = FieldValue;
    static const Schema<RidgeRow> fields{
        {"context_tokens", "context", Show::count, [](const RidgeRow& r) { return V{r.context}; }},
        {"ridge_batch", "ridge batch", Show::number,
         [](const RidgeRow& r) { return r.ridge.is_never() ? V{Null{"never"}} : V{r.ridge.value()}; }},
        {"n_star_tokens", "n*", Show::number, [](const RidgeRow& r) { return r.n_star ? V{*r.n_star} : V{Null{"none"}}; }},
    };
    return fields;
}

// ---------------------------------------------------------------------------------------------
// Capacity: what fits on each device at a context and at a batch.
// ---------------------------------------------------------------------------------------------

struct CapacityRow {
    MemoryUse budget{};  // the device's memory and the engine's share of it
    Bytes weights{};     // per device
    std::int64_t context = 0;
    std::int64_t batch = 1;
    std::int64_t replicas = 1;               // data-parallel copies
    std::int64_t micro_batches = 1;          // in flight in each replica: one per pipeline stage
    std::optional<std::int64_t> largest{};   // the largest batch at `context`, of one micro-batch (none: not even one, or no context)

    // Every sequence held: each replica keeps a micro-batch of `largest` per pipeline stage.
    [[nodiscard]] constexpr double sequences() const {
        return static_cast<double>(largest.value_or(0)) * static_cast<double>(micro_batches) * static_cast<double>(replicas);
    }
    ContextFit longest = ContextFit::does_not_fit();  // the longest context at `batch`

    [[nodiscard]] constexpr bool weights_fit() const { return weights <= budget.budget; }
};

constexpr CapacityRow capacity_row(const Deployment& d, const Model& m, const Workload& w, std::int64_t context, std::int64_t batch) {
    // Context 0 asks no largest batch; any other is largest_batch's to check.
    if (context < 0) throw error("", "context", std::to_string(context), "an integer from 0 to 2^40 tokens (0: no largest batch asked)");
    CapacityRow r;
    r.budget = memory_budget(d.device, w.assumptions);
    r.weights = weights_per_device(m, w.precision, d.parallel);
    r.context = context;
    r.batch = batch;
    r.replicas = d.parallel.data;
    r.micro_batches = d.parallel.pipeline;
    r.largest = context > 0 ? largest_batch(d, m, w, context) : std::nullopt;
    r.longest = longest_context(d, m, w, batch);
    return r;
}

inline const Schema<CapacityRow>& capacity_fields() {
    using V = FieldValue;
    static const Schema<CapacityRow> fields{
        {"memory_reported_bytes", "reported/device", Show::bytes, [](const CapacityRow& r) { return V{r.budget.capacity.in(bytes)}; }},
        {"memory_budget_bytes", "budget", Show::bytes, [](const CapacityRow& r) { return V{r.budget.budget.in(bytes)}; }},
        {"weights_per_device_bytes", "weights/device", Show::bytes, [](const CapacityRow& r) { return V{r.weights.in(bytes)}; }},
        {"weights_fit", "weights fit", Show::yes_no, [](const CapacityRow& r) { return V{r.weights_fit()}; }},
        {"context_tokens", "context", Show::count, [](const CapacityRow& r) { return V{r.context}; }},
        // Without a context there is no largest batch to say ("-"), unless the weights alone
        // leave no room for one (a review read "-" beside weights that do not fit); with one,
        // none may fit.
        {"largest_batch", "largest batch", Show::count,
         [](const CapacityRow& r) {
             return r.largest ? V{r.largest.value_or(0)} : V{Null{r.context > 0 || !r.weights_fit() ? "does not fit" : "-"}};
         }},
        // The largest batch is one micro-batch's (decode's batch); a pipeline of p stages keeps p
        // of them in flight, and each replica its own.
        {"sequences", "all sequences", Show::number,
         [](const CapacityRow& r) { return r.largest ? V{r.sequences()} : V{Null{}}; }, 0},
        // Context tokens, sequences x context: a windowed layer caches only its window of them
        // (the key keeps its name; the header says what it counts).
        {"kv_tokens_held", "all context tokens", Show::number,
         [](const CapacityRow& r) { return r.largest ? V{r.sequences() * static_cast<double>(r.context)} : V{Null{}}; }, 0},
        {"batch", "batch", Show::count, [](const CapacityRow& r) { return V{r.batch}; }},
        {"longest_context_tokens", "longest context", Show::count,
         [](const CapacityRow& r) {
             return r.longest.is_unbounded() ? V{std::string("unbounded")}
                    : r.longest.fits()       ? V{r.longest.tokens()}
                                             : V{Null{"does not fit"}};
         }},
    };
    return fields;
}

// ---------------------------------------------------------------------------------------------
// Generation: a whole generation's prefill and decode at one batch.
// ---------------------------------------------------------------------------------------------

struct GenerationRow {
    std::int64_t batch = 1;
    Generation generation{};
};

inline const Schema<GenerationRow>& generation_fields() {
    using V = FieldValue;
    static const Schema<GenerationRow> fields{
        {"batch", "batch", Show::count, [](const GenerationRow& r) { return V{r.batch}; }},
        {"prompt_tokens", "prompt", Show::count, [](const GenerationRow& r) { return V{r.generation.prompt_tokens}; }},
        {"new_tokens", "new", Show::count, [](const GenerationRow& r) { return V{r.generation.new_tokens}; }},
        {"time_to_first_token_s", "TTFT", Show::milliseconds,
         [](const GenerationRow& r) { return V{r.generation.time_to_first_token.in(s)}; }, 1},
        {"decode_time_s", "decode", Show::seconds, [](const GenerationRow& r) { return V{r.generation.decode_time.in(s)}; }, 3},
        {"total_time_s", "total", Show::seconds, [](const GenerationRow& r) { return V{r.generation.total_time.in(s)}; }, 3},
        {"decode_tokens_per_s", "tok/s/seq", Show::number, [](const GenerationRow& r) {
             // One new token has no decode part to take a rate over.
             return r.generation.decode_time > Seconds{} ? V{r.generation.decode_tokens_per_s.in(per_s)} : V{Null{"-"}};
         }},
        {"compute_bound_steps", "compute-bound steps", Show::count, [](const GenerationRow& r) { return V{r.generation.compute_bound_steps}; }},
        {"memory_per_device_bytes", "memory/device", Show::bytes, [](const GenerationRow& r) { return V{r.generation.memory.used().in(bytes)}; }},
        {"memory_budget_bytes", "budget", Show::bytes, [](const GenerationRow& r) { return V{r.generation.memory.budget.in(bytes)}; }},
        {"fits", "fits", Show::yes_no, [](const GenerationRow& r) { return V{r.generation.fits()}; }},
    };
    return fields;
}

// ---------------------------------------------------------------------------------------------
// Prefill: a prompt's tokens through the model at one batch, in chunks, after a cached part.
// ---------------------------------------------------------------------------------------------

struct PrefillRow {
    std::int64_t batch = 1;
    std::int64_t cached = 0;  // prompt tokens already in the cache
    Prefill prefill{};
};

inline const Schema<PrefillRow>& prefill_fields() {
    using V = FieldValue;
    static const Schema<PrefillRow> fields{
        {"batch", "batch", Show::count, [](const PrefillRow& r) { return V{r.batch}; }},
        {"prompt_tokens", "prompt", Show::count, [](const PrefillRow& r) { return V{r.prefill.prompt_tokens}; }},
        {"cached_prompt_tokens", "cached", Show::count, [](const PrefillRow& r) { return V{r.cached}; }},
        {"chunk_tokens", "chunk", Show::count, [](const PrefillRow& r) { return V{r.prefill.chunk_tokens}; }},
        {"chunks", "chunks", Show::count, [](const PrefillRow& r) { return V{r.prefill.chunks}; }},
        {"bytes_per_device", "bytes/device", Show::bytes, [](const PrefillRow& r) { return V{r.prefill.bytes_per_device.in(bytes)}; }},
        {"flops", "FLOPs", Show::flops, [](const PrefillRow& r) { return V{r.prefill.flops.in(flop)}; }},
        {"attention_score_flops", "attention FLOPs", Show::flops, [](const PrefillRow& r) { return V{r.prefill.attention_flops.in(flop)}; }},
        {"memory_time_s", "memory", Show::milliseconds, [](const PrefillRow& r) { return V{r.prefill.memory_time.in(s)}; }, 2},
        {"compute_time_s", "compute", Show::milliseconds, [](const PrefillRow& r) { return V{r.prefill.compute_time.in(s)}; }, 2},
        {"time_to_first_token_s", "TTFT", Show::milliseconds, [](const PrefillRow& r) { return V{r.prefill.time.in(s)}; }, 1},
        {"bound", "bound", Show::word, [](const PrefillRow& r) { return V{std::string(name_of(r.prefill.bound))}; }},
    };
    return fields;
}

// ---------------------------------------------------------------------------------------------
// Speculative decoding at one batch and context.
// ---------------------------------------------------------------------------------------------

struct SpeculativeRow {
    std::int64_t batch = 1;
    std::int64_t context = 0;
    std::int64_t tensor = 1;  // the target's tensor-parallel degree, which a draft's 0 takes
    std::optional<std::string> draft{};  // the draft model's name; none: a free draft (prompt lookup, n-grams)
    Speculation speculation{};
    SpeculativeDecode result{};
    // What the draft is priced in ("bf16, compute bf16"); none for a free draft.
    std::optional<std::string> draft_formats{};
};

inline const Schema<SpeculativeRow>& speculative_fields() {
    using V = FieldValue;
    static const Schema<SpeculativeRow> fields{
        {"batch", "batch", Show::count, [](const SpeculativeRow& r) { return V{r.batch}; }},
        {"context_tokens", "context", Show::count, [](const SpeculativeRow& r) { return V{r.context}; }},
        {"draft_model", "draft", Show::word, [](const SpeculativeRow& r) { return r.draft ? V{*r.draft} : V{Null{"free"}}; }},
        // The draft's own tensor-parallel degree (none for a free draft).
        {"draft_tp", "draft tp", Show::count, [](const SpeculativeRow& r) {
             if (!r.draft) return V{Null{"-"}};
             return V{r.speculation.draft_tensor > 0 ? r.speculation.draft_tensor : r.tensor};
         }},
        {"draft_formats", "draft formats", Show::word,
         [](const SpeculativeRow& r) { return r.draft_formats ? V{*r.draft_formats} : V{Null{"-"}}; }},
        {"draft_tokens", "drafted", Show::count, [](const SpeculativeRow& r) { return V{r.speculation.draft_tokens}; }},
        // Branches each pass after the first extends (1: a chain), and the tokens a sequence verified.
        {"tree_width", "tree", Show::count, [](const SpeculativeRow& r) { return V{r.speculation.tree_width}; }},
        {"verified_tokens", "verified", Show::count, [](const SpeculativeRow& r) { return V{verified_tokens(r.speculation)}; }},
        // The chain's acceptance rate; none where the mean accepted tokens were given instead.
        {"acceptance", "acceptance", Show::number,
         [](const SpeculativeRow& r) { return r.speculation.accepted_tokens > 0 ? V{Null{"-"}} : V{r.speculation.acceptance}; }, 3},
        {"expected_tokens_per_verification", "tokens/verification", Show::number,
         [](const SpeculativeRow& r) { return V{r.result.expected_tokens}; }, 3},
        {"plain_step_time_s", "plain step", Show::milliseconds, [](const SpeculativeRow& r) { return V{r.result.plain.step_time.in(s)}; }, 3},
        {"verify_step_time_s", "verify step", Show::milliseconds, [](const SpeculativeRow& r) { return V{r.result.verify.step_time.in(s)}; }, 3},
        {"draft_time_s", "draft time", Show::milliseconds, [](const SpeculativeRow& r) { return V{r.result.draft_time.in(s)}; }, 3},
        {"cycle_time_s", "cycle", Show::milliseconds, [](const SpeculativeRow& r) { return V{r.result.cycle_time.in(s)}; }, 3},
        {"tokens_per_s", "tok/s/seq", Show::number, [](const SpeculativeRow& r) { return V{r.result.tokens_per_s.in(per_s)}; }},
        {"total_tokens_per_s", "tok/s", Show::number, [](const SpeculativeRow& r) { return V{r.result.total_tokens_per_s.in(per_s)}; }},
        {"speedup", "speedup", Show::number, [](const SpeculativeRow& r) { return V{r.result.speedup}; }, 2},
        // One device's memory: the target's weights, KV and the verification's workspace (as
        // decode's), and a draft model's weights and KV where it runs.
        {"memory_per_device_bytes", "memory/device", Show::bytes, [](const SpeculativeRow& r) { return V{r.result.memory.used().in(bytes)}; }},
        {"memory_budget_bytes", "budget", Show::bytes, [](const SpeculativeRow& r) { return V{r.result.memory.budget.in(bytes)}; }},
        {"fits", "fits", Show::yes_no, [](const SpeculativeRow& r) { return V{r.result.fits()}; }},
    };
    return fields;
}

}  // namespace ridgeline
