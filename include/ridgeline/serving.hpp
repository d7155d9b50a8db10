// Serving, not single steps: what a user sees (time to first token, time per output token)
// and what a replica delivers (tokens/s per device) when requests keep arriving, under three
// stated models.
//
// Traffic: each request brings a prompt (of which `cached_prompt` tokens are already in the
// KV cache from an earlier turn, so prefill skips them) and asks for `output` tokens. A replica
// serves `batch` sequences per pipeline micro-batch, `batch x pipeline` in all (fewer micro-batches
// where it has fewer users than stages: serve's in_flight), as a closed loop:
// each sequence takes its next request as its last one ends. A request's turn is its TTFT and
// output - 1 intervals of TPOT; a replica delivers output tokens per sequence a turn (so a long
// prompt's TTFT counts against its throughput), and every other sequence of the replica (of
// every micro-batch: each one's chunks or passes go through every stage) brings one prompt a
// turn, whose prefill lands on the steps the user sees. Counted in steps, a turn is the prompt's
// own steps (aggregated: its chunks, the last making the first token; prefill apart: its pass)
// and output - 1 decode steps. A sequence alone on its replica never waits for another's
// prefill. The decode steps are costed at the whole batch (every sequence decoding), an upper
// bound where sequences spend much of a turn in prefill (long prompts against outputs).
//
//  - Aggregated (prefill chunks interleaved with decode on the same devices): each new prompt's
//    tokens ride decode steps in chunks of `prefill_chunk` (the last one shorter), one chunk a
//    step. A chunk's work adds to its step at the step's own roofline (bytes and FLOPs added,
//    weights read once, the routed experts the chunk's tokens touch, its share of the
//    all-reduces). Each micro-batch has a chunk of prompt tokens a step: the other sequences of
//    the user's micro-batch bring their prompts into the room its turn leaves, a chunk on each
//    decode step and what its own chunks leave free; the other micro-batches' steps carry their
//    own prompts as they arrive (aggregated_load). TPOT is the mean pure decode step plus, per
//    step, those chunks' additions, each taken at its whole size (averaging the tokens over every step instead would
//    hide more of their arithmetic under the weight read than any step does, and charge more
//    experts than any chunk touches); where a chunk or more arrives every step, each step carries
//    the arriving tokens together (engines pack them up to their token budget). TTFT is the steps
//    carrying the prompt's chunks, one after another, with the others' in the room they leave;
//    past one pipeline stage they flow through the stages like micro-batches, a chunk entering
//    each stage's share of a step, the longest then passing the other stages (chunked pipeline
//    parallelism). Past one stage, a step of the user's micro-batch takes no less than its own
//    work on every stage in turn (a chunk goes through them all), nor less than each stage's share
//    of every micro-batch's work.
//    Where a micro-batch's prompts bring more than a chunk a step, they queue: every step carries
//    a whole chunk, and a turn stretches to the steps that prefill every sequence's prompt once
//    (batch x new tokens / chunk), the wait counted in TTFT (Serving::keeps_up is false).
//  - Disaggregated (separate pools): decode replicas run pure decode steps; prefill runs on
//    replicas of the same device, parallelism and formats, one prompt at a time, and the pool
//    is sized to the arrival rate (its devices per decode replica may be fractional; a pipelined
//    replica takes a prompt every stage; no queueing is modelled). TTFT is one prefill plus the
//    prompt's KV (as kept: windows and recurrent states included) sent to the decode replica over the
//    scale-out network, each device receiving what it keeps (a replicated cache whole); where the device has no scale-out figure, over the scale-up link if a
//    prefill replica and a decode replica fit in one domain, else over the link the deployment gives.
//  - Prefill apart (co-located, but each prompt's prefill a forward pass of its own that carries
//    no decode tokens while the running sequences wait: vLLM's V0 scheduler without chunked
//    prefill, SGLang without --enable-mixed-chunk): the replica's batch x pipeline - 1 other
//    sequences' passes, one each a turn, spread evenly over the user's pass and output - 1 decode
//    steps (each pass stalls every stage for its share: others_arriving). TPOT is the pure decode
//    step plus a step's share of those passes, each alone and unchunked; TTFT is the prompt's own
//    pass, half a decode step (the step under way when it arrives, on average) and a step's share.
//
// The longest wait between two of a user's tokens (Serving::max_itl), what an inter-token
// latency target bounds where TPOT is a mean: the longest step (every sequence at its last
// token's context, or under chunked attention at the last before a chunk starts), carrying the
// most prefill one of the user's steps carries. Aggregated: the largest
// chunk that rides its steps (others' prompts; a whole chunk where they queue), at the last
// step's roofline, the other micro-batches' chunks at their mean. Prefill apart: the other
// prompts' passes a step waits for, at least one where any arrive (engines run a waiting
// prompt's pass before the next step), each its share of the stages as in TPOT.
// Disaggregated, or nothing to prefill: the step alone.
//
// Every sequence may reach prompt + output tokens: memory is checked there, on the decode side,
// with the workspace of the largest pass a prompt's tokens take (aggregated: a decode step and
// its chunk; prefill apart: a prompt's whole pass); disaggregated, a prefill device holds one
// prompt's KV and its pass.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "decode.hpp"
#include "generation.hpp"
#include "prefill.hpp"

namespace ridgeline {

enum class ServingMode { aggregated, disaggregated, prefill_apart };

constexpr const char* mode_name(ServingMode m) noexcept {
    switch (m) {
        case ServingMode::aggregated: return "aggregated";
        case ServingMode::disaggregated: return "disaggregated";
        case ServingMode::prefill_apart: return "prefill-apart";
    }
    return "aggregated";
}

struct Traffic {
    std::int64_t prompt = 0;         // tokens of context each request starts from
    std::int64_t output = 0;         // tokens it asks for
    std::int64_t cached_prompt = 0;  // of the prompt, tokens already cached from an earlier turn
    std::int64_t prefill_chunk = 2048;  // aggregated: prompt tokens a step carries at most
    // The cache a prompt reuses: all of cached_prompt but the last token, which an engine computes
    // again to sample the first output from (vLLM caps a hit at the prompt less one token,
    // vllm-project/vllm@6a1acac3 vllm/v1/core/kv_cache_manager.py get_computed_blocks; SGLang's
    // Req._compute_max_prefix_len likewise), so a prompt cached whole still runs one token's pass.
    [[nodiscard]] constexpr std::int64_t cache_hit() const noexcept { return cached_prompt < prompt ? cached_prompt : prompt > 0 ? prompt - 1 : 0; }
    [[nodiscard]] constexpr std::int64_t new_prompt() const noexcept { return prompt - cache_hit(); }
};

// Serving modes from a comma-separated list of agg, apart, disagg and both (agg,disagg), each
// once, in the order first named; nullopt where a piece is none of them or the list is empty.
// The CLI's --mode and Python's mode= read with this.
inline std::optional<std::vector<ServingMode>> serving_modes_from(std::string_view list) {
    std::vector<ServingMode> out;
    const auto add = [&out](ServingMode m) {
        if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
    };
    for (std::size_t from = 0; from <= list.size();) {
        const std::size_t comma = std::min(list.find(',', from), list.size());
        const std::string_view piece = list.substr(from, comma - from);
        if (piece == "agg") add(ServingMode::aggregated);
        else if (piece == "apart") add(ServingMode::prefill_apart);
        else if (piece == "disagg") add(ServingMode::disaggregated);
        else if (piece == "both") add(ServingMode::aggregated), add(ServingMode::disaggregated);
        else return std::nullopt;
        from = comma + 1;
    }
    return out;
}

// What a serving mode's TPOT and TTFT assume, in words (printed with every plan; Assumptions are
// visible).
inline std::string mode_assumptions(ServingMode m, const Traffic& t) {
    switch (m) {
        case ServingMode::aggregated:
            return "aggregated: each prompt's prefill rides the decode steps in chunks of at most " + std::to_string(t.prefill_chunk) +
                   " tokens a step, each chunk at its whole size; the other sequences' prompts, one each a turn, ride the room the user's "
                   "steps leave, or queue where more than a chunk a step arrives (closed loop: a sequence's next request starts as its "
                   "last ends); TPOT is the mean of a turn's steps (one carrying a chunk takes longer); TTFT is the steps carrying its "
                   "chunks, and any wait in the queue; max ITL is the longest step (the last, or the last before an attention "
                   "chunk starts) carrying the largest chunk a user's step carries; under pipeline parallelism a prompt's chunks flow "
                   "through the stages like micro-batches, the next entering the first stage as the last moves on";
        case ServingMode::disaggregated:
            return "disaggregated: prefill on a pool of the same devices, one prompt at a time, no queueing; TTFT is one prefill plus "
                   "the prompt's KV over the scale-out link; max ITL is the longest decode step (the last, or the last before an "
                   "attention chunk starts)";
        case ServingMode::prefill_apart:
            return "prefill-apart: each prompt's whole prefill is a pass of its own that every running decode waits for; TTFT is "
                   "that pass plus half a decode step; the other sequences' passes, one each a turn, stall every step (closed loop: a sequence's "
                   "next request starts as its last ends); max ITL is the longest step (the last, or the last before an attention "
                   "chunk starts) and the most passes one waits for (at least one where any arrive)";
    }
    return "";
}

constexpr void validate(const Traffic& t) {
    if (t.prompt < 0 || t.prompt > max_context) throw error("", "prompt", std::to_string(t.prompt), "an integer from 0 to 2^40 tokens");
    if (t.output < 1 || t.output > max_context) throw error("", "output", std::to_string(t.output), "an integer from 1 to 2^40 tokens");
    if (t.cached_prompt < 0 || t.cached_prompt > t.prompt)
        throw error("", "cached prompt", std::to_string(t.cached_prompt), "an integer from 0 to the prompt (" + std::to_string(t.prompt) + ")");
    if (t.prefill_chunk < 1 || t.prefill_chunk > max_context)
        throw error("", "prefill chunk", std::to_string(t.prefill_chunk), "an integer from 1 to 2^40 tokens");
}

struct Serving {
    Assumptions assumptions{};       // the workload's: what the steps, prefill and memory count
    ServingMode mode = ServingMode::aggregated;
    std::int64_t batch = 0;          // sequences per micro-batch
    std::int64_t concurrency = 0;    // sequences one replica serves: batch x the micro-batches in flight (one a stage, or fewer)
    std::int64_t output = 0;         // tokens each request asks for
    Seconds decode_tpot{};           // mean pure decode step over the generation
    Seconds tpot{};                  // what a user sees per output token
    Seconds max_itl{};               // the longest wait between two of a user's tokens (the top of this file)
    Seconds ttft{};                  // time to first token
    Seconds prefill_time{};          // one prompt's new tokens alone on one replica
    Seconds kv_transfer{};           // disaggregated: the prompt's KV to the decode replica
    double prefill_tokens_per_step = 0;  // aggregated, prefill apart: every sequence's prompts' tokens, on average a step
    double replica_devices = 0;      // decode devices of one replica
    double prefill_devices = 0;      // disaggregated: prefill devices per decode replica
    Seconds turn{};                  // one request, TTFT + (output - 1) x TPOT: a sequence's slot takes the next after it
    PerSecond requests_per_s{};      // one replica: its sequences, a request each a turn
    PerSecond tokens_per_s{};        // output tokens/s of one replica, TTFT counted
    PerSecond tokens_per_s_per_user{};  // while a response streams, 1 / TPOT; one token a request, 1 / TTFT
    PerSecond tokens_per_s_per_device{};  // over decode and prefill devices
    MemoryUse memory{};              // one decode device, every sequence at its longest, and its largest step's workspace
    std::optional<MemoryUse> prefill_memory{};  // disaggregated: one prefill device, one prompt's pass
    bool keeps_up = true;            // aggregated: the prefill load fits in the chunks (false: prompts queue)
    [[nodiscard]] constexpr double devices() const noexcept { return replica_devices + prefill_devices; }
    [[nodiscard]] constexpr bool fits() const noexcept { return memory.fits() && (!prefill_memory || prefill_memory->fits()); }
    // Whether a request's tokens have time between them: with one token a request, `tpot` is
    // only the step other users' tokens see, no user's time per output token.
    [[nodiscard]] constexpr bool streams() const noexcept { return output > 1; }
};

// How one prompt's new tokens ride the decode steps: `full` chunks of `size` tokens, then one of
// `rest` (0: none).
struct PromptChunks {
    std::int64_t size = 0, full = 0, rest = 0;
};
constexpr PromptChunks prompt_chunks(const Traffic& t) {
    const std::int64_t fresh = t.new_prompt();
    if (fresh == 0) return {};
    const std::int64_t size = t.prefill_chunk < fresh ? t.prefill_chunk : fresh;
    return PromptChunks{size, fresh / size, fresh % size};
}

// A request's turn counted in steps (see the top of this file): the prompt's own steps (aggregated:
// its chunks, or one step where nothing is left to prefill; prefill apart and disaggregated: one)
// and output - 1 decode steps.
constexpr double turn_steps(const Traffic& t, ServingMode m) {
    const PromptChunks c = prompt_chunks(t);
    const std::int64_t chunks = c.full + (c.rest > 0 ? 1 : 0);
    const std::int64_t own = m == ServingMode::aggregated && chunks > 1 ? chunks : 1;
    return static_cast<double>(own + t.output - 1);
}
// The micro-batches a replica keeps in flight over `pipeline` stages: `in_flight`, or where it is
// 0 one a stage.
constexpr std::int64_t micro_batches(std::int64_t pipeline, std::int64_t in_flight) noexcept {
    return in_flight > 0 ? in_flight : pipeline;
}

// The other sequences' prompts arriving in each micro-batch's step, for a replica of `batch`
// sequences in each of `in_flight` micro-batches over `pipeline` stages (0: one a stage): its
// batch x in_flight - 1 others bring a prompt each a turn, and a turn is `pipeline` micro-batch
// steps a step of the user's (each of the others' chunks or passes goes through every stage, so a
// step the user sees carries them all).
constexpr double others_arriving(const Traffic& t, std::int64_t batch, std::int64_t pipeline, ServingMode m, std::int64_t in_flight = 0) {
    return static_cast<double>(batch * micro_batches(pipeline, in_flight) - 1) / (static_cast<double>(pipeline) * turn_steps(t, m));
}

// The steps that carry arriving prompts' new tokens, as `per_step` such steps a decode step,
// for `arriving` prompts a step and an engine that takes queued prompt tokens up to its budget
// (one chunk) a step:
//  - prompts that do not overlap (each done before the next comes): each prompt's full chunks
//    and its last shorter one;
//  - prompts of one chunk arriving a step or more: every step carries the arriving tokens;
//  - longer prompts that overlap: the queue seldom runs dry, so steps carry a whole chunk, as
//    many a step as the arriving tokens fill (a prompt's short last chunk joins the next one's);
//  - more tokens arriving a step than a chunk: every step carries them all (serve() never asks:
//    where a micro-batch's prompts bring more than a chunk a step, they queue, aggregated_load).
// per_step 0: no such step.
struct ChunkSteps {
    double tokens = 0, per_step = 0;
};
constexpr std::array<ChunkSteps, 2> chunk_steps(const Traffic& t, double arriving) {
    const PromptChunks c = prompt_chunks(t);
    const double chunks = static_cast<double>(c.full + (c.rest > 0 ? 1 : 0));
    if (arriving * chunks < 1)
        return {ChunkSteps{static_cast<double>(c.size), arriving * static_cast<double>(c.full)},
                ChunkSteps{static_cast<double>(c.rest), c.rest > 0 ? arriving : 0}};
    const double tokens = arriving * static_cast<double>(t.new_prompt());
    const auto budget = static_cast<double>(t.prefill_chunk);
    if (chunks > 1 && tokens < budget) return {ChunkSteps{budget, tokens / budget}, ChunkSteps{}};
    return {ChunkSteps{tokens, 1}, ChunkSteps{}};
}

// Aggregated serving's prefill on the steps a user sees, in a replica of `batch` sequences in
// each of `pipeline` micro-batches. Each micro-batch has a budget of a chunk of prompt tokens a
// step. The other batch - 1 sequences of the user's micro-batch bring their prompts, one each a
// turn, into the room its turn leaves: a whole chunk on each of its output - 1 decode steps, and
// what its own chunks leave free (`room_rate`: their prompts a step per whole chunk of room), so a
// step the user's own full chunk fills carries no one else's. Each other micro-batch's step
// carries its own sequences' prompts as they arrive, batch a turn (`others`). Where a micro-batch's
// prompts bring more than its budget, they queue (`queues`): every step carries a whole chunk.
struct AggregatedLoad {
    bool queues = false;
    double room_rate = 0;
    std::array<ChunkSteps, 2> mine{};    // on a decode step of the user's micro-batch
    std::array<ChunkSteps, 2> others{};  // on a step of each other micro-batch
    // Of what a chunk adds to a step of every micro-batch (MixedStep::added), each stage's share:
    // the user's micro-batch's and the other micro-batches' together (a step the user sees is
    // also no shorter than its own micro-batch's whole addition: serve()).
    double mine_share = 1, others_share = 0;
};
// `in_flight`: the micro-batches a replica keeps (0: one a stage; fewer where it has fewer
// sequences than stages, the other stages idle between them).
constexpr AggregatedLoad aggregated_load(const Traffic& t, std::int64_t batch, std::int64_t pipeline, std::int64_t in_flight = 0) {
    AggregatedLoad l;
    const std::int64_t flying = micro_batches(pipeline, in_flight);
    l.mine_share = 1 / static_cast<double>(pipeline);
    l.others_share = static_cast<double>(flying - 1) / static_cast<double>(pipeline);
    const auto budget = static_cast<double>(t.prefill_chunk), fresh = static_cast<double>(t.new_prompt());
    if (fresh == 0) return l;
    const double turn = turn_steps(t, ServingMode::aggregated);
    const double room = turn * budget - fresh;                  // a turn's prompt tokens beyond its own
    const double demand = static_cast<double>(batch - 1) * fresh;  // the micro-batch's other prompts, a turn
    if (demand > room) {
        l.queues = true;
        l.mine = l.others = {ChunkSteps{budget, 1}, ChunkSteps{}};
        return l;
    }
    l.room_rate = room > 0 ? static_cast<double>(batch - 1) / (room / budget) : 0;
    l.mine = chunk_steps(t, l.room_rate);
    if (flying > 1) l.others = chunk_steps(t, static_cast<double>(batch) / turn);
    return l;
}

namespace serving_detail {
// What `tokens` prefill tokens riding a decode step add to it, on one stage: their bytes (KV
// read and written) and FLOPs at the step's roofline, the routed experts and embedding rows they
// read beyond the decode batch's, and their share of the all-reduces.
struct PrefillLoad {
    Seconds memory_per_token{};   // one stage: KV read and written per prefill token
    Seconds compute_per_token{};  // one stage, the mean device's (the busiest expert group's extra is MixedStep's)
};
struct MixedStep {
    const DecodeStep& step;  // the pure decode step
    const StepCost& cost;    // its cost model (for the experts a larger batch of tokens touches)
    const Deployment& deployment;
    const Model& model;
    const Workload& workload;  // the decode step's
    Rates rates;
    PrefillLoad load;
    // One stage's memory and compute time with `tokens` prefill tokens riding the step, and the
    // link time (the all-reduces' per-stage share and the pipeline hops) they add.
    struct Times {
        Seconds memory{}, compute{}, links_added{};
    };
    [[nodiscard]] constexpr Times with(double tokens) const {
        const auto whole = static_cast<std::int64_t>(tokens + 0.5);
        const std::int64_t decoding = workload.batch * workload.tokens_per_sequence;
        const Seconds experts = (cost.routed_bytes(decoding + whole) - cost.routed_bytes(decoding)) / rates.bandwidth;
        // Their embedding rows, with the decode tokens' read at most once each (StepCost::row_bytes).
        const Seconds rows = (cost.row_bytes(static_cast<double>(decoding) + tokens) - cost.row_bytes(static_cast<double>(decoding))) / rates.bandwidth;
        // The all-reduces carry the prefill tokens' activations too.
        Workload mixed = workload;
        mixed.batch = 1;
        mixed.tokens_per_sequence = decoding + whole;
        const Communication links = communication(deployment, model, mixed, cost);
        const auto stages = static_cast<double>(deployment.parallel.pipeline);
        // And the busiest expert group's matmuls grow with the tokens it is sent (StepCost::routed_imbalance_flops).
        const Seconds imbalance = (cost.routed_imbalance_flops(decoding + whole) - cost.routed_imbalance_flops(decoding)) / rates.peak;
        return Times{step.memory_time + tokens * load.memory_per_token + experts + rows,
                     step.compute_time + tokens * load.compute_per_token + imbalance,
                     stages * (links.per_stage - step.links.per_stage) + (links.pipeline_hops - step.links.pipeline_hops)};
    }
    // The stage time added, and the pipeline hops added, by `tokens` prefill tokens.
    [[nodiscard]] constexpr Seconds added(double tokens) const {
        const Times t = with(tokens);
        const Seconds before = step.memory_time < step.compute_time ? step.compute_time : step.memory_time;
        const auto stages = static_cast<double>(deployment.parallel.pipeline);
        return stages * ((t.memory < t.compute ? t.compute : t.memory) - before) + t.links_added;
    }
};

// What aggregated serving's steps are made of: one prompt's prefill (its new tokens, in chunks),
// what each of its tokens adds to a decode step, and the pure decode step at the generation's
// middle context with its cost model and rates.
struct Aggregated {
    Prefill pre;
    PrefillLoad load;
    Workload mid;
    DecodeStep step;
    const StepCost& cost;  // the caller's: 17 KB, which copying took a fifth of serve()
    Rates rates;
    [[nodiscard]] constexpr MixedStep mixed(const Deployment& d, const Model& m) const { return MixedStep{step, cost, d, m, mid, rates, load}; }
};
// `cost` is w's step cost (decode_detail::step_from_cost; the result refers to it), and d and m
// are validated.
constexpr Aggregated aggregated(const Deployment& d, const Model& m, const Workload& w, const Traffic& traffic, const StepCost& cost) {
    Workload one = w;
    one.batch = 1;
    const auto fresh = static_cast<double>(traffic.new_prompt());
    // Prefill of the new tokens only: their chunks attend to the cached prefix.
    const Prefill pre = prefill(d, m, one, traffic.prompt, traffic.prefill_chunk, traffic.cache_hit());
    // Per new token, per stage: the prefill's KV read and written, and its FLOPs. Its weights
    // are the mixed step's to charge, experts and rows beyond the decode tokens' (MixedStep::with).
    const Rates rates = effective_rates(d.device, w);
    Workload mid = w;
    mid.context = traffic.prompt + traffic.output / 2;
    // The busiest expert group's extra is the mixed step's to charge, for all its tokens at once.
    return Aggregated{pre,
                      PrefillLoad{pre.kv_bytes_per_device / rates.bandwidth / fresh, (pre.compute_time - pre.imbalance_time) / fresh},
                      mid, decode_detail::step_from_cost(d, m, mid, cost), cost, rates};
}
// The cost must outlive the result, which refers to it: no temporary.
constexpr Aggregated aggregated(const Deployment&, const Model&, const Workload&, const Traffic&, const StepCost&&) = delete;

// An aggregated step some of whose sequences prefill rather than decode: the mean decode step
// with `fewer` sequences not decoding, and what chunks riding it add (MixedStep over that step),
// less what those sequences' decode took out (their stage time on every stage, and their host
// time): the change from the mean decode step. Not copied or moved: `mixed` refers to its members.
struct FewerDecoding {
    DecodeStep step;
    Workload at;
    Seconds removed{};
    MixedStep mixed;
    constexpr FewerDecoding(const Aggregated& a, const Deployment& d, const Model& m, std::int64_t fewer)
        : step(a.step), at(a.mid), mixed{step, a.cost, d, m, at, a.rates, a.load} {
        at.batch = a.mid.batch > fewer ? a.mid.batch - fewer : 0;
        const StepTimes less = step_times(a.cost, a.rates, at.batch, at.context);
        const auto roof = [](Seconds memory, Seconds compute) { return memory < compute ? compute : memory; };
        removed = static_cast<double>(d.parallel.pipeline) * (roof(a.step.memory_time, a.step.compute_time) - roof(less.memory, less.compute)) +
                  static_cast<double>(a.mid.batch - at.batch) * a.mid.efficiency.per_sequence;
        step.memory_time = less.memory;
        step.compute_time = less.compute;
    }
    FewerDecoding(const FewerDecoding&) = delete;
    FewerDecoding& operator=(const FewerDecoding&) = delete;
    // The step's change with `tokens` riding it: may be below 0 (a short chunk in place of a
    // decode at a long context).
    [[nodiscard]] constexpr Seconds added(double tokens) const { return mixed.added(tokens) - removed; }
};

// w's step cost at `context`. Without a pipeline it is the same at any context the model holds;
// with one, the stage it costs is the busiest at that context (step_cost.hpp), so serving takes
// the mean step's, the traffic's mid context.
constexpr StepCost cost_of(const Deployment& d, const Model& m, const Workload& w, std::int64_t context) {
    Workload at = w;
    at.context = d.parallel.pipeline == 1 ? 0 : context;
    return decode_detail::device_step_cost(d, m, at);
}

// The chunks riding a step the user sees, each with its weight a decode step: serve()'s TPOT is
// the pure decode step plus the sum of weight x MixedStep::added(tokens). A step of the user's
// micro-batch that carries its own chunk is no shorter than the chunk's work on every stage in
// turn (the latency bound: the whole addition), nor than each stage's share of every
// micro-batch's work (the throughput bound: its share and the other micro-batches'); the larger
// holds. Steps with no chunk of its own wait for the other micro-batches' share. One stage: the
// whole addition, and no other micro-batch.
// What `chunks` add to a step, each at `share` of its whole addition.
constexpr Seconds riding_added(const std::array<ChunkSteps, 2>& chunks, double share, const MixedStep& mixed) {
    Seconds added{};
    for (const ChunkSteps& k : chunks)
        if (k.per_step > 0) added += k.per_step * share * mixed.added(k.tokens);
    return added;
}
// Whether `own` more work on the user's micro-batch outlasts its share of the stages beside the
// other micro-batches' (`others`): the latency bound holds, not the throughput bound.
constexpr bool latency_bound(Seconds own, const AggregatedLoad& load, Seconds others) { return own >= load.mine_share * own + others; }

using RidingWeights = std::array<std::pair<ChunkSteps, double>, 4>;
constexpr RidingWeights riding_weights(const AggregatedLoad& load, const MixedStep& mixed) {
    RidingWeights out{};
    const Seconds others = riding_added(load.others, load.others_share, mixed);
    double alone = 0;  // steps whose own chunk's whole addition outlasts the shared stages
    for (std::size_t i = 0; i < load.mine.size(); ++i) {
        const ChunkSteps& k = load.mine[i];
        if (k.per_step == 0) continue;
        const bool latency = latency_bound(mixed.added(k.tokens), load, others);
        out[i] = {k, latency ? k.per_step : k.per_step * load.mine_share};
        if (latency) alone += k.per_step;
    }
    for (std::size_t i = 0; i < load.others.size(); ++i) {
        const ChunkSteps& o = load.others[i];
        if (o.per_step > 0) out[2 + i] = {o, o.per_step * load.others_share * (alone < 1 ? 1 - alone : 0.0)};
    }
    return out;
}
}  // namespace serving_detail

// What a replica serving `requests` a second delivers: its output tokens, and, disaggregated, its
// prefill pool's busy devices (busy prefill replicas x their devices; a pipelined replica takes a
// new prompt every stage), over all of which its tokens per device count. serve() gives it its
// closed loop's rate (its sequences, a request each a turn); a plan for a request rate, the
// rate's share.
constexpr void serve_requests(Serving& s, PerSecond requests, const Traffic& t, std::int64_t pipeline) {
    s.requests_per_s = requests;
    s.tokens_per_s = requests * static_cast<double>(t.output);
    s.prefill_devices = s.mode == ServingMode::disaggregated && t.new_prompt() > 0
                            ? static_cast<double>(requests * s.prefill_time) / static_cast<double>(pipeline) * s.replica_devices
                            : 0.0;
    s.tokens_per_s_per_device = s.tokens_per_s / s.devices();
}

// One replica of `d` serving `traffic` with `w.batch` sequences per micro-batch (w's context is
// ignored; its formats, assumptions and efficiency are used), in `in_flight` micro-batches: 0, one
// a pipeline stage; fewer where the replica has fewer sequences than stages (one user on two
// stages is one micro-batch, and no other's prompt ever stalls it).
constexpr Serving serve(const Deployment& d, const Model& m, const Workload& w, const Traffic& traffic, ServingMode mode,
                        std::int64_t in_flight = 0) {
    validate(traffic);
    validate(w);
    validate(d, m);
    if (in_flight < 0 || in_flight > d.parallel.pipeline)
        throw error("", "micro-batches in flight", std::to_string(in_flight),
                    "0 (one a pipeline stage) to the pipeline-parallel degree (" + std::to_string(d.parallel.pipeline) + ")");
    const std::int64_t flying = micro_batches(d.parallel.pipeline, in_flight);
    const std::int64_t longest = traffic.prompt + traffic.output;
    require_context_within(m, longest, "prompt + output");
    // The prefill's own LM head makes a request's first token: with one token a request nothing
    // is left for a decode pool, nor a KV to send it.
    if (mode == ServingMode::disaggregated && traffic.output == 1)
        throw error("", "serving mode", "disaggregated",
                    "aggregated or prefill apart where each request asks for one output token (the prefill makes it; "
                    "nothing is left to decode apart)");
    // With no prompt there is no prefill to move, and a pool sized to none is aggregated serving
    // under another name (a review found it offered where a plan's devices left no room for a pool).
    if (mode == ServingMode::disaggregated && traffic.prompt == 0)
        throw error("", "serving mode", "disaggregated",
                    "aggregated or prefill apart where requests bring no prompt (nothing to prefill apart, no KV to send)");
    Serving s;
    s.assumptions = w.assumptions;
    s.mode = mode;
    s.batch = w.batch;
    s.concurrency = w.batch * flying;
    s.output = traffic.output;
    s.replica_devices = static_cast<double>(d.parallel.replica_devices());

    Workload at_end = w;
    at_end.context = longest - 1;
    at_end.tokens_per_sequence = 1;
    s.memory = memory_use(d, m, at_end);
    const AggregatedLoad load = aggregated_load(traffic, w.batch, d.parallel.pipeline, flying);  // aggregated's prompts a step
    // The workspace of the largest pass that carries prompt tokens, where it outgrows the decode
    // step's: aggregated, a decode step and the chunk riding it; prefill apart, one prompt's
    // pass, unchunked; disaggregated, that pass on a prefill device, which holds one prompt's KV.
    // A prompt's tokens are not sampled but its last.
    if (const std::int64_t fresh = traffic.new_prompt(); fresh > 0 && w.assumptions.activation_workspace) {
        const Bytes token = activation_bytes_per_token(m, d.parallel, false);
        const Bytes sampled = activation_bytes_per_token(m, d.parallel) - token;
        const Bytes pass = static_cast<double>(fresh) * token + sampled;
        if (mode == ServingMode::disaggregated) {
            Workload one = w;
            one.batch = 1;
            one.context = traffic.prompt;
            one.tokens_per_sequence = 1;
            MemoryUse pool = memory_use(d, m, one);
            pool.activations = pass;
            s.prefill_memory = pool;
        } else {
            // Aggregated: the most prompt tokens a step carries, a chunk or the arriving prompts packed.
            double chunk = static_cast<double>(fresh < traffic.prefill_chunk ? fresh : traffic.prefill_chunk);
            if (mode == ServingMode::aggregated) {
                for (const auto& kinds : {load.mine, load.others})
                    for (const ChunkSteps& k : kinds)
                        if (k.per_step > 0 && k.tokens > chunk) chunk = k.tokens;
            }
            const Bytes step = mode == ServingMode::aggregated
                                   ? static_cast<double>(w.batch) * (token + sampled) + chunk * token
                                   : pass;
            if (step > s.memory.activations) s.memory.activations = step;
        }
    }

    // The mean pure decode step over the generation's contexts, exactly (generation.hpp), each
    // paced by its own busiest stage under a pipeline. The other steps here are priced from one
    // cost, the mid step's.
    const StepCost cost = serving_detail::cost_of(d, m, w, traffic.prompt + traffic.output / 2);
    generation_detail::require_steps(m, traffic.prompt, traffic.output);
    s.decode_tpot = generation_detail::steps_by_stage(d, m, w, traffic.prompt, traffic.output, cost).decode_time /
                    static_cast<double>(traffic.output);

    // One prompt's new tokens alone, on one replica.
    const std::int64_t fresh = traffic.new_prompt();
    Workload one = w;
    one.batch = 1;
    const auto output = static_cast<double>(traffic.output);
    const auto B = static_cast<double>(w.batch);
    // The longest wait (max_itl): the longest step, and what the prefill it carries adds. Between
    // the model's corners a step only grows with the context, and only a chunk's start makes it
    // drop (reach.hpp), so the longest is the last step, every sequence at its last token's
    // context, or under chunked attention the step before the last chunk the generation starts
    // (Llama 4 Scout at 256 sequences and 8,193 tokens out: the step at 8,191, not at 8,192, whose
    // chunked layers read nothing). Each at its own busiest stage under a pipeline.
    struct Longest {
        Workload at{};
        std::optional<StepCost> cost{};
        DecodeStep step{};
    };
    std::array<std::optional<Longest>, 2> candidates;
    {
        const std::int64_t end = traffic.prompt + traffic.output - 1, chunk = attention_chunk(m);
        const std::int64_t before_chunk = chunk > 0 ? end / chunk * chunk - 1 : -1;
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            const std::int64_t n = i == 0 ? end : before_chunk;
            if (n < traffic.prompt || (i > 0 && n == end)) continue;
            // Built from a Longest, not emplace()'s value-initialisation, which would zero the
            // optional's 17 KB step cost first.
            Longest& l = candidates[i].emplace(Longest{.at = w});
            l.at.context = n;
            if (d.parallel.pipeline > 1) l.cost = serving_detail::cost_of(d, m, w, n);
            l.step = decode_detail::step_from_cost(d, m, l.at, l.cost ? *l.cost : cost, false);
        }
    }
    // The longest pure step, and the added wait that each candidate carries (aggregated: its own).
    Seconds longest_step{};
    for (const auto& l : candidates)
        if (l && l->step.step_time > longest_step) longest_step = l->step.step_time;
    Seconds itl_added{};
    std::optional<Seconds> longest_carrying;  // aggregated: the longest candidate with what it carries
    if (fresh > 0) {
        if (mode != ServingMode::disaggregated) s.prefill_tokens_per_step = B * static_cast<double>(fresh) / turn_steps(traffic, mode);
        if (mode == ServingMode::aggregated) {
            const serving_detail::Aggregated a = serving_detail::aggregated(d, m, w, traffic, cost);
            const serving_detail::MixedStep mixed = a.mixed(d, m);
            s.prefill_time = a.pre.time;
            s.keeps_up = !load.queues;
            const Seconds other_batches = serving_detail::riding_added(load.others, load.others_share, mixed);
            // A step of the user's micro-batch carrying `own` more work (serving_detail::riding_weights).
            const auto step_with = [&](Seconds own) {
                return s.decode_tpot + (serving_detail::latency_bound(own, load, other_batches) ? own : load.mine_share * own + other_batches);
            };
            s.tpot = s.decode_tpot;
            for (const auto& [k, weight] : serving_detail::riding_weights(load, mixed))
                if (weight > 0) s.tpot += weight * mixed.added(k.tokens);
            double most = 0;  // the most prompt tokens one of the user's steps carries
            for (const ChunkSteps& k : load.mine)
                if (k.per_step > 0 && k.tokens > most) most = k.tokens;
            // Carried by each candidate step, at its own roofline (a chunk that makes it
            // compute-bound hides the KV it has grown since the middle of the generation).
            for (const auto& l : candidates) {
                if (!l) continue;
                const serving_detail::MixedStep carried{l->step, l->cost ? *l->cost : a.cost, d, m, l->at, a.rates, a.load};
                const Seconds wait = l->step.step_time + step_with(carried.added(most)) - s.decode_tpot;
                if (!longest_carrying || wait > *longest_carrying) longest_carrying = wait;
            }
            if (s.keeps_up) {
                // Each of the prompt's own chunk steps, with the others' prompts in the room it leaves.
                // A step carries one riding chunk of a kind with that kind's per_step chance, or
                // none, and is costed with all its tokens at once: costed apart, each addition
                // could hide under the same step's memory time and the sum miss the arithmetic
                // that both together bring (a review found 12.3 ms where the step takes 14.7).
                // A rider is cut to the room the step leaves (the budget is a chunk a step), its chance
                // raised to keep its expected tokens, until the room is always full.
                const auto chunk = static_cast<double>(traffic.prefill_chunk);
                // The user's sequence prefills in its chunk steps and does not decode beside them
                // (its first token comes with its last chunk), nor does the sequence whose chunk
                // rides with it: those steps decode the micro-batch's other sequences, batch - 1 or
                // batch - 2, and the chunks ride that step. A lone user's chunk steps are its chunks
                // alone, as generate and prefill cost them (a review found plan's TTFT a quarter
                // above generate's with 128-token chunks of a 32k prompt: each chunk step also read
                // the whole prompt's KV as a decode).
                const serving_detail::FewerDecoding alone(a, d, m, 1), with_rider(a, d, m, 2);  // a lone user has no rider
                const auto own_step = [&](double tokens) {
                    const double room = chunk - tokens;
                    std::array<ChunkSteps, 2> riders = chunk_steps(traffic, load.room_rate * room / chunk);
                    double riding = 0;
                    for (ChunkSteps& k : riders) {
                        if (k.per_step <= 0 || room <= 0) {
                            k.per_step = 0;
                            continue;
                        }
                        if (k.tokens > room) {
                            k.per_step *= k.tokens / room;
                            k.tokens = room;
                        }
                        riding += k.per_step;
                    }
                    Seconds own{};
                    for (const ChunkSteps& k : riders)
                        if (k.per_step > 0) own += (riding > 1 ? k.per_step / riding : k.per_step) * with_rider.added(tokens + k.tokens);
                    // On the step at the mid context that `removed` is measured against, not the
                    // generation's mean (windows and chunked attention make the two differ).
                    return step_with(own + (riding < 1 ? 1 - riding : 0.0) * alone.added(tokens)) + (a.step.step_time - s.decode_tpot);
                };
                // Past one stage a prompt's chunks flow through the stages like micro-batches: its
                // next chunk enters the first stage as its last moves on (chunked pipeline
                // parallelism: SGLang's, and vLLM's since vllm-project/vllm#38726), a stage's
                // 1 / p of a step each, and the longest then passes the other p - 1 stages, as
                // prefill.hpp pipelines one prompt's chunks.
                const PromptChunks chunks = prompt_chunks(traffic);
                const auto stages = static_cast<double>(d.parallel.pipeline);
                const Seconds full = chunks.full > 0 ? own_step(static_cast<double>(chunks.size)) / stages : Seconds{};
                const Seconds rest = chunks.rest > 0 ? own_step(static_cast<double>(chunks.rest)) / stages : Seconds{};
                s.ttft = static_cast<double>(chunks.full) * full + rest + (stages - 1) * (full < rest ? rest : full);
            } else {
                // Prompts queue: every step carries a whole chunk, and a turn is the steps that
                // prefill every sequence's prompt of the micro-batch once; all but its output - 1
                // decode steps wait for the first token.
                const double turn = B * static_cast<double>(fresh) / static_cast<double>(traffic.prefill_chunk);
                s.ttft = (turn - (output - 1)) * s.tpot;
            }
        } else {
            // One prompt alone on one replica, unchunked.
            s.prefill_time = prefill(d, m, one, traffic.prompt, 0, traffic.cache_hit()).time;
            if (mode == ServingMode::prefill_apart) {
                // The other sequences' passes stalling each step this user sees (the top of this file).
                const double others = others_arriving(traffic, w.batch, d.parallel.pipeline, mode, flying);
                s.tpot = s.decode_tpot + others * s.prefill_time;
                s.ttft = s.prefill_time + s.decode_tpot / 2.0 + others * s.prefill_time;
                // Each pass stalls each stage for its share, 1 / pipeline of it: the step waits
                // for the whole passes that land on it, each at that share.
                const double stages = static_cast<double>(d.parallel.pipeline), passes = others * stages;
                const auto whole = static_cast<double>(static_cast<std::int64_t>(passes));
                itl_added = (whole < passes ? whole + 1 : whole) * s.prefill_time / stages;
            }
        }
    }
    s.max_itl = longest_carrying ? *longest_carrying : longest_step + itl_added;
    if (mode != ServingMode::disaggregated) {
        if (fresh == 0) {  // nothing to prefill: the first token is one step
            s.tpot = s.decode_tpot;
            s.ttft = s.decode_tpot;
        }
    } else {
        s.tpot = s.decode_tpot;
        // The prompt's KV as a decode device keeps it (windowed layers their window, recurrent
        // layers their state; its share of the heads, or all of a replicated cache: MLA's latent,
        // KV heads fewer than the devices; its rank's under attention data parallelism; the
        // busiest stage's layers), which each device receives over its own port at once.
        const Bytes kv = kv_per_sequence_per_device(m, w.precision.kv, static_cast<double>(traffic.prompt), d.parallel, w.precision.state);
        // Over the scale-out network where the preset has one (the pools are apart); else over the
        // link joining a prefill replica and a decode replica: the scale-up link while both fit in
        // one domain, past it the network the deployment gives (refused where there is none).
        const std::int64_t pair = d.device.scale_out_bandwidth ? d.device.scale_up_domain + 1 : 2 * d.parallel.replica_devices();
        const Link l = link_for_pair(d, w.assumptions, pair, "the prompt's KV, from a prefill device to a decode device");
        // One direction; a review found the whole cache spread over every port, 8x short for
        // MLA at TP 8, whose every device holds all of the latent.
        s.kv_transfer = l.latency + kv / l.one_way;
        s.ttft = (fresh > 0 ? s.prefill_time : s.decode_tpot) + s.kv_transfer;
    }
    // A user's pace: a token each TPOT while a response streams; a one-token response comes
    // after its TTFT, the only wait the user sees.
    s.tokens_per_s_per_user = 1.0 / (s.streams() ? s.tpot : s.ttft);
    // A closed loop: each sequence delivers its output tokens a turn, TTFT included.
    s.turn = s.ttft + (output - 1) * s.tpot;
    serve_requests(s, static_cast<double>(s.concurrency) / s.turn, traffic, d.parallel.pipeline);
    return s;
}

// Continuous batching whose new prompts are prefilled in forward passes of their own, carrying
// no decode tokens, while the running sequences wait (serve()'s ServingMode::prefill_apart): its
// TPOT, the mean pure decode step plus, per step, the other prompts' prefill (others_arriving),
// each alone and unchunked (new tokens only).
constexpr Seconds tpot_prefill_apart(const Deployment& d, const Model& m, const Workload& w, const Traffic& traffic) {
    return serve(d, m, w, traffic, ServingMode::prefill_apart).tpot;
}

// Aggregated serving's steps apart from the pure decode steps, for a calibration to weigh
// (calibrate.hpp): serve()'s TPOT is the mean pure decode step plus, for each kind of chunk,
// `per_step` times (per stage, the larger of its step's `memory` and `compute` less the larger of
// the mid-context decode step's, plus `links_added`).
struct InterleavedPrefill {
    DecodeStep decode;  // the pure decode step at the generation's middle context
    struct Chunk {
        double tokens = 0;    // prefill tokens the step carries
        double per_step = 0;  // its weight a decode step (serving_detail::riding_weights)
        Seconds memory{}, compute{};  // one stage, the step carrying them
        Seconds links_added{};
    };
    std::array<Chunk, 4> chunks{};  // serving_detail::riding_weights': the user's micro-batch's two kinds, then the others' (per_step 0: none)
};
// Past one stage, which of serve()'s two bounds holds is chosen at `w`'s rates (a calibration's:
// the ceiling's), while serve() chooses at the fitted ones: where the fit moves the choice, its
// rows are timed a little differently from what it predicts (0.5% rms on synthetic rows at PP 2
// to 8 and 30% compute). No published row has a pipeline.
constexpr InterleavedPrefill interleaved_prefill(const Deployment& d, const Model& m, const Workload& w, const Traffic& traffic) {
    validate(traffic);
    validate(d, m);
    require_context_within(m, traffic.prompt + traffic.output, "prompt + output");
    InterleavedPrefill p;
    if (traffic.new_prompt() == 0) {
        Workload mid = w;
        mid.context = traffic.prompt + traffic.output / 2;
        p.decode = decode_step(d, m, mid);
        return p;
    }
    const StepCost cost = serving_detail::cost_of(d, m, w, traffic.prompt + traffic.output / 2);
    const serving_detail::Aggregated a = serving_detail::aggregated(d, m, w, traffic, cost);
    const serving_detail::MixedStep mixed = a.mixed(d, m);
    p.decode = a.step;
    const AggregatedLoad load = aggregated_load(traffic, w.batch, d.parallel.pipeline);
    const serving_detail::RidingWeights riding = serving_detail::riding_weights(load, mixed);
    for (std::size_t i = 0; i < riding.size(); ++i) {
        const auto& [k, weight] = riding[i];
        if (weight == 0) continue;
        const serving_detail::MixedStep::Times t = mixed.with(k.tokens);
        p.chunks[i] = InterleavedPrefill::Chunk{k.tokens, weight, t.memory, t.compute, t.links_added};
    }
    return p;
}

}  // namespace ridgeline
