// The cost model every decode question is read from. For a batch of B sequences at context n,
// on one device:
//     bytes(B, n) = fixed + routed(B) + B * (per_sequence + kv(n))
//     flops(B, n) = B * (per_token + attention(n))
// `fixed` is every weight the step reads in full whatever the batch; `routed(B)` is the routed
// experts the batch is expected to touch (0 for a dense model); kv(n) and attention(n) grow
// with the context, each windowed layer only up to its window, each chunked layer within its
// chunk (reach.hpp). Under attention data parallelism the terms in kv(n) and attention(n) are
// a rank's per sequence over the ranks, charged for context_batch(B) sequences: the busiest
// rank's.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "model.hpp"
#include "pipeline_stages.hpp"
#include "row_groups.hpp"
#include "term_list.hpp"
#include "units.hpp"
#include "workload.hpp"

namespace ridgeline {

namespace step_cost_detail {
// The square root by Newton's method (std::sqrt is not constexpr before C++26); x >= 0.
constexpr double square_root(double x) noexcept {
    if (!(x > 0)) return 0;
    double r = x < 1 ? 1.0 : x;
    for (int i = 0; i < 200; ++i) {
        const double next = 0.5 * (r + x / r);
        if (next >= r) break;  // converged: Newton's steps fall from above until rounding stops them
        r = next;
    }
    return r;
}
// The least whole number at or above v >= 0 (std::ceil is not constexpr before C++23); past 2^62,
// where every double is whole, v itself.
constexpr double whole_at_least(double v) noexcept {
    if (!(v < 0x1p62)) return v;
    const auto whole = static_cast<double>(static_cast<std::int64_t>(v));
    return whole < v ? whole + 1 : whole;
}
// Whether `experts` (a double, as the routing terms keep it) is a whole number that `groups`
// equal expert-parallel groups divide.
constexpr bool whole_expert_groups(double experts, std::int64_t groups) noexcept {
    return groups >= 1 && experts >= 1 && experts <= 0x1p53 && static_cast<double>(static_cast<std::int64_t>(experts)) == experts &&
           static_cast<std::int64_t>(experts) % groups == 0;
}
}  // namespace step_cost_detail

// Expected distinct experts a batch of `tokens` tokens touches in one layer when each picks k
// of E uniformly: E * (1 - (1 - k/E)^tokens). It is k at one token and tends to E.
constexpr double expected_experts_touched(double experts, double per_token, std::int64_t tokens) {
    if (!(experts >= 1 && per_token >= 1 && per_token <= experts) || tokens < 0)
        throw error("", "expected_experts_touched", std::to_string(experts) + " experts, " + std::to_string(per_token) +
                        " per token, " + std::to_string(tokens) + " tokens",
                    "at least one expert, 1 to all of them per token, and tokens >= 0");
    double miss = 1.0 - per_token / experts;  // one token leaves a given expert out
    double all_miss = 1.0;
    for (std::int64_t b = tokens; b > 0; b >>= 1) {  // miss^tokens by squaring
        if (b & 1) all_miss *= miss;
        miss *= miss;
    }
    return experts * (1.0 - all_miss);
}

namespace step_cost_detail {
// busiest_group_independent's walk (below).
constexpr double busiest_group_walk(std::int64_t n, double p, std::int64_t groups) {
    // Binomial weights relative to the mode (1 there), so nothing underflows where the mass is;
    // tails below 1e-18 of the mode's weight carry no mass the mean can see, and are not walked
    // (that keeps a call to a few hundred steps). No storage: the weights are walked in order.
    const double at_mode = static_cast<double>(n + 1) * p;
    const std::int64_t mode = at_mode < static_cast<double>(n) ? static_cast<std::int64_t>(at_mode) : n;
    const double odds = p / (1.0 - p);
    const auto up = [&](std::int64_t x, double w) { return w * static_cast<double>(n - x) / static_cast<double>(x + 1) * odds; };
    std::int64_t start = mode;  // the lowest x with a weight worth keeping
    double w_start = 1.0;
    while (start > 0) {
        const double below = w_start * static_cast<double>(start) / static_cast<double>(n - start + 1) / odds;
        if (below < 1e-18) break;  // past ~9 standard deviations: nothing the mean can see
        w_start = below;
        --start;
    }
    double total = 0;
    {
        double weight = w_start;
        for (std::int64_t x = start; x <= n; ++x) {
            total += weight;
            if (x > mode && weight < 1e-18) break;
            weight = up(x, weight);
        }
    }
    // E[max] = sum over x >= 1 of (1 - F(x - 1)^groups), F(x) = 0 below `start`: each x up to
    // `start` adds 1.
    double cdf = 0, expected = static_cast<double>(start), weight = w_start;
    for (std::int64_t x = start + 1; x <= n; ++x) {
        cdf += weight / total;
        weight = up(x - 1, weight);
        double all_below = 1.0;  // cdf^groups by squaring
        double base = cdf < 1.0 ? cdf : 1.0;
        for (std::int64_t g = groups; g > 0; g >>= 1) {
            if (g & 1) all_below *= base;
            base *= base;
        }
        const double term = 1.0 - all_below;
        expected += term;
        if (x > mode && term < 1e-15) break;  // the rest adds nothing
    }
    return expected;
}

// At run time the walks are remembered (a few hundred steps each, and a plan or a sweep asks for
// the same few again and again): a small table per thread, keyed by the arguments, whose values
// are the walk's own, bit for bit.
inline double busiest_group_remembered(std::int64_t n, double p, std::int64_t groups) {
    struct Entry {
        std::int64_t n = -1;
        double p = 0;
        std::int64_t groups = 0;
        double value = 0;
    };
    thread_local std::array<Entry, 512> table{};
    const auto bits = static_cast<std::uint64_t>(p * 0x1p52);  // 0 < p < 1; only a hash: the key is compared whole
    const std::uint64_t hash = (static_cast<std::uint64_t>(n) * 0x9E3779B97F4A7C15ull) ^ (bits * 0xC2B2AE3D27D4EB4Full) ^
                               static_cast<std::uint64_t>(groups);
    Entry& e = table[static_cast<std::size_t>((hash ^ (hash >> 29)) % table.size())];
    if (e.n != n || e.p != p || e.groups != groups) e = Entry{n, p, groups, busiest_group_walk(n, p, groups)};
    return e.value;
}
}  // namespace step_cost_detail

// expected_busiest_group_experts's E[max] of `groups` draws of Binomial(n, p), 0 < p < 1.
constexpr double busiest_group_independent(std::int64_t n, double p, std::int64_t groups) {
    if (std::is_constant_evaluated()) return step_cost_detail::busiest_group_walk(n, p, groups);
    return step_cost_detail::busiest_group_remembered(n, p, groups);
}

// Expected touched experts in the busiest of `groups` equal groups of whole experts (expert
// parallelism: each group on its own devices, and each MoE layer waits for the busiest).
// Each expert is touched with p = 1 - (1 - k/E)^tokens; treating experts as independent, a
// group's count is Binomial(E/groups, p) and
//     E[max] = sum over x >= 1 of (1 - F(x - 1)^groups).
// Against a seeded simulation of top-k routing (tests/unit/test_deployment.cpp) this is within
// 2% for DeepSeek-V3's 256 experts over 8 devices at 1 to 512 tokens. One group: the exact mean.
constexpr double expected_busiest_group_experts(double experts, double per_token, std::int64_t tokens, std::int64_t groups) {
    const double touched = expected_experts_touched(experts, per_token, tokens);
    if (!step_cost_detail::whole_expert_groups(experts, groups))
        throw error("", "expected_busiest_group_experts", std::to_string(experts) + " experts, " + std::to_string(groups) + " groups",
                    "a whole number of experts, and groups dividing them");
    if (groups <= 1) return touched;
    const auto n = static_cast<std::int64_t>(experts) / groups;
    const double p = touched / experts;
    if (p >= 1.0) return static_cast<double>(n);
    if (p <= 0.0) return 0.0;
    // Any token touches k distinct experts, so some group holds at least ceil(k / groups) of
    // them: a floor the independence above misses where groups hold few experts (one each:
    // 1 - (1 - p)^groups, 0.9 for Mixtral's 8 experts over 8 devices at one token, not 1).
    const double at_least = std::min(static_cast<double>(n), step_cost_detail::whole_at_least(per_token / static_cast<double>(groups)));
    return std::max(at_least, busiest_group_independent(n, p, groups));
}


// Expected token-expert assignments the busiest of `groups` equal expert-parallel groups gets
// from `tokens` tokens, each sending k to distinct experts of E chosen uniformly; each MoE layer
// waits for that group's matmuls. Per token a group gets at most m = min(k, E / groups) of the k;
// taken as Binomial(m, k / (groups m)), which has the exact mean k / groups (and is exact with one
// expert a group), a group's count over the tokens is Binomial(tokens m, k / (groups m)), and
// busiest_group_independent gives the busiest of `groups` such counts drawn independently. The
// real counts sum to tokens x k, so they are correlated -1 / (groups - 1); as for normal counts
// (max_i (Y_i - mean Y) of independent Y_i), the excess over the mean is scaled by
// 1 / sqrt(1 - 1 / groups), and by the ratio of the exact per-token standard deviation (k draws of
// E without replacement) to the binomial's. Where the binomial's variance passes 100 the count is
// near normal and the excess grows as its standard deviation, so it is scaled from there: that
// one walk is made when the routing is set up, and any number of tokens then costs the same.
// Between ceil(tokens k / groups), which some group must get, and tokens x m.
class BusiestAssignments {
public:
    constexpr BusiestAssignments() = default;  // one group
    constexpr BusiestAssignments(double experts, double per_token, std::int64_t groups) : per_token_(per_token), groups_(groups) {
        if (!(per_token >= 1 && per_token <= experts) || !step_cost_detail::whole_expert_groups(experts, groups))
            throw error("", "expected_busiest_group_assignments",
                        std::to_string(experts) + " experts, " + std::to_string(per_token) + " per token, " + std::to_string(groups) + " groups",
                        "a whole number of experts, 1 to all of them per token, and groups dividing the experts");
        if (groups == 1) return;
        const auto G = static_cast<double>(groups);
        const auto held = static_cast<double>(static_cast<std::int64_t>(experts) / groups);
        m_ = per_token < held ? per_token : held;
        p_ = per_token / (G * m_);
        if (p_ >= 1.0) return;  // every group gets m of every token
        // Per token: the exact variance of a group's share (hypergeometric) over the binomial's.
        const double exact = per_token / G * (1 - 1 / G) * (experts - per_token) / (experts - 1);
        scale_ = step_cost_detail::square_root(exact / (m_ * p_ * (1 - p_)) / (1 - 1 / G));
        reference_ = static_cast<std::int64_t>(gaussian_from / (p_ * (1 - p_))) + 1;
        reference_excess_ = busiest_group_independent(reference_, p_, groups) - static_cast<double>(reference_) * p_;
    }
    [[nodiscard]] constexpr double at(std::int64_t tokens) const {
        if (tokens < 0) throw error("", "expected_busiest_group_assignments", std::to_string(tokens) + " tokens", "tokens >= 0");
        const auto T = static_cast<double>(tokens);
        const double mean = T * per_token_ / static_cast<double>(groups_);
        if (groups_ == 1 || tokens == 0) return mean;
        const double most = T * m_;
        if (p_ >= 1.0) return most;
        const double least = step_cost_detail::whole_at_least(mean);
        const double n = most;
        const double excess = n * p_ * (1 - p_) <= gaussian_from
                                  ? busiest_group_independent(static_cast<std::int64_t>(n + 0.5), p_, groups_) - n * p_
                                  : reference_excess_ * step_cost_detail::square_root(n / static_cast<double>(reference_));
        const double busiest = mean + scale_ * excess;
        return busiest < least ? least : busiest > most ? most : busiest;
    }

private:
    static constexpr double gaussian_from = 100;  // the binomial's variance past which the excess is scaled
    double per_token_ = 1;
    std::int64_t groups_ = 1;
    double m_ = 1, p_ = 1, scale_ = 1;  // per token at most m_ of a group's, Binomial(m_, p_); the excess's scale
    std::int64_t reference_ = 0;
    double reference_excess_ = 0;
};
constexpr double expected_busiest_group_assignments(double experts, double per_token, std::int64_t tokens, std::int64_t groups) {
    return BusiestAssignments(experts, per_token, groups).at(tokens);
}

struct StepCost {
    // One stream of cached context a group reads (a layer kind may read more than one: an
    // indexer's keys over the whole context and the main cache over its top-k).
    struct ContextTerm {
        Bytes kv_per_token{};               // cached (and written) per token
        double reads = 1;                   // times each cached byte is read in a step (Efficiency::kv_per_query_head)
        Flops attention_flops_per_token{};  // 0 unless the workload counts attention FLOPs
        Reach reach{};                      // which of the cached tokens it reads
        Flops prefill_flops_per_pair{};     // per (query, cached token) pair in prefill's form
        Flops prefix_flops_per_token{};     // per token cached by earlier chunks, in each later chunk
        std::size_t group = 0;              // the model's layer group it belongs to
        const char* name = "";              // what reads it, for the operator table
    };
    static constexpr std::size_t max_terms = 2 * Model::max_groups;
    // One group's routed experts, split into `groups` expert-parallel groups of whole experts.
    struct RoutedTerm {
        double layers = 0;
        double experts = 0;
        double per_token = 0;
        std::int64_t groups = 1;
        Bytes bytes_per_expert{};  // what one device holds of one expert: its slice within the group
        std::size_t group = 0;     // the model's layer group it belongs to
        Flops flops_per_assignment{};  // one token's matmuls in one expert, on one device of its group
        BusiestAssignments busiest{};  // the busiest group's share of the routing
        // The busiest group's device's FLOPs beyond the mean device's for `tokens` tokens
        // (StepCost::routed_imbalance_flops).
        [[nodiscard]] constexpr Flops imbalance_flops(std::int64_t tokens) const {
            if (groups == 1) return Flops{};
            const double mean = static_cast<double>(tokens) * per_token / static_cast<double>(groups);
            return layers * (busiest.at(tokens) - mean) * flops_per_assignment;
        }
    };

    // Provided, so that value-initialising a cost (std::optional's emplace(), a struct holding
    // one built with ()) does not first zero its 17 KB of term slots, as an implicit default
    // constructor's value-initialisation would: TermList constructs only the terms added.
    constexpr StepCost() noexcept {}

    Assumptions assumptions{};
    WeightAccounting accounting = WeightAccounting::bytes_read;
    std::int64_t tensor = 1;      // devices per stage
    std::int64_t pipeline = 1;    // stages
    std::int64_t expert = 1;      // expert-parallel groups
    // Attention data-parallel ranks (Parallelism::attention_data). The context terms and the
    // state are per sequence on average over the ranks (a 1/attention_data share of a rank's
    // cost); the step waits for the busiest rank, which holds ceil(B / attention_data) of B
    // sequences: context_batch.
    std::int64_t attention_data = 1;
    std::int64_t stage = -1;      // the pipeline stage costed (0-based); -1: the whole model, or a declared count's average stage
    double layers_per_stage = 0;  // for the per-layer overhead
    double moe_layers_per_stage = 0;
    // The efficiency's fixed times each stage pays for one pass (a decode step, a prefill chunk):
    // per pass, per layer and per MoE layer. Decode, the sweep and prefill all add this one sum.
    [[nodiscard]] constexpr Seconds stage_overhead(const Efficiency& e) const {
        return e.overhead + layers_per_stage * e.per_layer + moe_layers_per_stage * e.per_moe_layer;
    }
    // Layers of a stage whose attention, and whose dense FFN, has weights to split, so ends in an
    // all-reduce under tensor parallelism (a skipped block, nemotron-nas's no_op, has none).
    double attention_reduces_per_stage = 0;
    double dense_ffn_reduces_per_stage = 0;
    double experts_per_token = 0;  // of the MoE layers (for the all-to-all), 0 if none
    std::int64_t tokens_per_sequence = 1;
    Bytes fixed_bytes{};         // read once per step, whatever the batch
    Bytes per_sequence_bytes{};  // each token's own weight reads (its embedding row)
    // Rows of an untied input table read a row per token: its vocabulary. A step reads each row
    // at most once however many tokens look it up, so past this many tokens the rows read stop
    // growing (0: no table read by rows).
    double embedding_rows = 0;
    Bytes state_bytes{};         // each sequence's recurrent state, read once and written once a token of the step
    // Each token's activations written and read back (Efficiency::activation_traffic; 0 without
    // it), on average over the attention ranks as the cache is; charged with the cache
    // (kv_bytes), so under attention data parallelism the FFN's share is rounded up to a whole
    // batch a rank, as the busiest rank's cache is.
    Bytes activation_bytes{};
    Flops flops_per_token{};     // matmul FLOPs per sequence: 2 per charged active parameter
    // Of those, what an attention data-parallel rank does for its own sequences only (the
    // attention's projections and any recurrent state's update), as the average over the ranks:
    // the busiest rank's are charged for context_batch. 0 without attention data parallelism.
    Flops rank_flops_per_token{};
    Flops head_flops_per_token{};  // of those, the LM head's
    TermList<ContextTerm, max_terms> context_terms;
    TermList<RoutedTerm, Model::max_groups> routed_terms;

    [[nodiscard]] constexpr bool has_routed_experts() const noexcept { return !routed_terms.empty(); }

    // Routed-expert bytes the busiest device reads for a batch of `batch` tokens.
    [[nodiscard]] constexpr Bytes routed_bytes(std::int64_t batch) const {
        Bytes b{};
        for (std::size_t i = 0; i < routed_terms.size(); ++i) {
            const RoutedTerm& r = routed_terms[i];
            b += r.layers * expected_busiest_group_experts(r.experts, r.per_token, batch, r.groups) * r.bytes_per_expert;
        }
        return b;
    }
    // Routed-expert bytes a device reads on average: its group's expected share of the experts
    // the batch touches. Summed over the devices it is what the step reads in total (the busiest
    // device reads more, routed_bytes, and sets the time); without expert parallelism the two agree.
    [[nodiscard]] constexpr Bytes mean_routed_bytes(std::int64_t batch) const {
        Bytes b{};
        for (std::size_t i = 0; i < routed_terms.size(); ++i) {
            const RoutedTerm& r = routed_terms[i];
            b += r.layers * expected_experts_touched(r.experts, r.per_token, batch) / static_cast<double>(r.groups) * r.bytes_per_expert;
        }
        return b;
    }
    // FLOPs the busiest device's routed experts do beyond the mean device's, for a step of
    // `tokens` tokens: flops_per_token gives every device the mean, a 1/groups share of the
    // token-expert assignments, but under expert parallelism each MoE layer waits for the group
    // given the most (expected_busiest_group_assignments). 0 without expert parallelism. Totals
    // over the devices stay the mean's: the imbalance moves work, it adds none.
    [[nodiscard]] constexpr Flops routed_imbalance_flops(std::int64_t tokens) const {
        Flops f{};
        for (std::size_t i = 0; i < routed_terms.size(); ++i) f += routed_terms[i].imbalance_flops(tokens);
        return f;
    }
    // Every routed expert's bytes: what any batch large enough reads.
    [[nodiscard]] constexpr Bytes all_routed_bytes() const {
        Bytes b{};
        for (std::size_t i = 0; i < routed_terms.size(); ++i)
            b += routed_terms[i].layers * routed_terms[i].experts / static_cast<double>(routed_terms[i].groups) *
                 routed_terms[i].bytes_per_expert;
        return b;
    }
    // The embedding rows `tokens` tokens read: one each (the bytes-read accounting charges every
    // token its own row), up to the whole table.
    [[nodiscard]] constexpr double rows_read(double tokens) const {
        return embedding_rows > 0 && tokens > embedding_rows ? embedding_rows : tokens;
    }
    [[nodiscard]] constexpr Bytes row_bytes(double tokens) const { return rows_read(tokens) * per_sequence_bytes; }
    // Weights a batch of B sequences reads: experts touched by all its tokens, and their
    // embedding rows under the bytes-read accounting.
    [[nodiscard]] constexpr Bytes weight_bytes(std::int64_t batch) const {
        return fixed_bytes + routed_bytes(batch * tokens_per_sequence) + row_bytes(static_cast<double>(batch * tokens_per_sequence));
    }
    // The same on average over the devices (mean_routed_bytes): the step's total over its devices.
    [[nodiscard]] constexpr Bytes mean_weight_bytes(std::int64_t batch) const {
        return fixed_bytes + mean_routed_bytes(batch * tokens_per_sequence) + row_bytes(static_cast<double>(batch * tokens_per_sequence));
    }
    // The KV (and recurrent state) one sequence reads at `context` tokens.
    [[nodiscard]] constexpr Bytes cache_bytes(double context) const {
        Bytes b = state_bytes;
        for (std::size_t i = 0; i < context_terms.size(); ++i)
            b += span(context_terms[i], context) * context_terms[i].reads * context_terms[i].kv_per_token;
        return b;
    }
    // What one sequence moves in a step besides weights: its cache, and its tokens' activations
    // where they go through memory.
    [[nodiscard]] constexpr Bytes kv_bytes(double context) const {
        return cache_bytes(context) + static_cast<double>(tokens_per_sequence) * activation_bytes;
    }
    // FLOPs one sequence does in the step, at `context` cached tokens.
    [[nodiscard]] constexpr Flops flops(double context) const {
        Flops f = flops_per_token;
        for (std::size_t i = 0; i < context_terms.size(); ++i)
            f += span(context_terms[i], context) * context_terms[i].attention_flops_per_token;
        return static_cast<double>(tokens_per_sequence) * f;
    }
    // What one more sequence adds to the step's bytes, besides its share of the experts (while
    // the batch's tokens are fewer than the table's rows).
    [[nodiscard]] constexpr Bytes sequence_bytes(double context) const {
        return static_cast<double>(tokens_per_sequence) * per_sequence_bytes + kv_bytes(context);
    }

    static constexpr double span(const ContextTerm& t, double context) noexcept { return t.reach.read(context); }

    // The batch the context terms are charged for, so that the average rank's share stands for
    // the busiest rank: B, or under attention data parallelism ceil(B / ranks) x ranks (a batch
    // of 1 over 8 ranks reads one sequence's whole cache on its rank; 7 ranks idle).
    [[nodiscard]] constexpr double context_batch(double batch) const noexcept {
        if (attention_data == 1) return batch;
        return static_cast<double>(busiest_rank_sequences(static_cast<std::int64_t>(batch), attention_data) * attention_data);
    }
    // One step's KV (and state) bytes and FLOPs on the busiest device, for a batch of B at context n.
    [[nodiscard]] constexpr Bytes step_kv_bytes(double batch, double context) const { return context_batch(batch) * kv_bytes(context); }
    // Under attention data parallelism, per sequence: the FLOPs every device does for the whole
    // batch (the FFN, the experts, the LM head), and those the busiest rank does for each of its
    // sequences (their attention, context_batch of them).
    [[nodiscard]] constexpr Flops batch_flops() const {
        return flops(0) - static_cast<double>(tokens_per_sequence) * rank_flops_per_token;
    }
    [[nodiscard]] constexpr Flops rank_flops(double context) const {
        return flops(context) - flops(0) + static_cast<double>(tokens_per_sequence) * rank_flops_per_token;
    }
    // The busiest device's FLOPs in a step of B sequences at context n: the mean device's, with
    // the busiest attention rank's and the busiest expert group's shares (routed_imbalance_flops).
    [[nodiscard]] constexpr Flops step_flops(double batch, double context) const {
        // In decode_sweep's order (its fixed FLOPs first), so that the two agree to the bit.
        const Flops imbalance = routed_imbalance_flops(static_cast<std::int64_t>(batch) * tokens_per_sequence);
        if (attention_data == 1) return imbalance + batch * flops(context);
        return imbalance + batch * batch_flops() + context_batch(batch) * rank_flops(context);
    }

    // Per token of context on the piece that starts at `at`: the KV bytes and attention FLOPs of
    // one sequence that still grow (full layers, windowed layers whose window lies beyond `at`,
    // chunked layers within their chunk).
    [[nodiscard]] constexpr Bytes kv_growth(double at) const noexcept {
        Bytes b{};
        for (std::size_t i = 0; i < context_terms.size(); ++i)
            if (context_terms[i].reach.grows_at(at)) b += context_terms[i].reads * context_terms[i].kv_per_token;
        return b;
    }
    [[nodiscard]] constexpr Flops attention_growth(double at) const noexcept {
        Flops f{};
        for (std::size_t i = 0; i < context_terms.size(); ++i)
            if (context_terms[i].reach.grows_at(at)) f += context_terms[i].attention_flops_per_token;
        return f;
    }
    // The next context past `at` where kv(n) and attention(n) change slope or drop (a window
    // filling, a chunk starting); -1 where they stay linear from `at` on.
    [[nodiscard]] constexpr double next_corner(double at) const noexcept {
        double next = -1;
        for (std::size_t i = 0; i < context_terms.size(); ++i) {
            const double c = context_terms[i].reach.next_corner(at);
            if (c > at && (next < 0 || c < next)) next = c;
        }
        return next;
    }
    // The chunk of the chunked terms (one a model, model.hpp), 0 if none: past every window,
    // kv(n) and attention(n) repeat with this period on top of the full layers' growth.
    [[nodiscard]] constexpr double chunk_period() const noexcept {
        for (std::size_t i = 0; i < context_terms.size(); ++i)
            if (context_terms[i].reach.is_chunked()) return static_cast<double>(context_terms[i].reach.tokens);
        return 0;
    }
    // The last corner that does not repeat: the widest window or top-k outside chunked terms.
    [[nodiscard]] constexpr double last_fixed_corner() const noexcept {
        double last = 0;
        for (std::size_t i = 0; i < context_terms.size(); ++i) {
            const Reach& r = context_terms[i].reach;
            const auto c = static_cast<double>(r.fixed_cap());
            if (!r.is_chunked() && c > last) last = c;
        }
        return last;
    }
};

namespace step_cost_detail {
// The layers one device of a stage holds, and its share of the input table and of the final
// norm and LM head: the whole model without a pipeline; a declared count, which has no layers
// to place, the average stage.
struct CostedStage {
    std::array<double, Model::max_groups> layers{};  // of each group
    double count = 0;                                 // all its layers
    double first = 1;                                 // its share of the input table
    double last = 1;                                  // its share of the final norm and the LM head
};
constexpr CostedStage average_stage(const Model& m, std::int64_t pipeline) {
    CostedStage out;
    const auto stages = static_cast<double>(pipeline);
    for (std::size_t g = 0; g < m.group_count; ++g) out.layers[g] = static_cast<double>(m.groups[g].count) / stages;
    out.count = static_cast<double>(layer_count(m)) / stages;
    out.first = out.last = 1 / stages;
    return out;
}
constexpr CostedStage pipeline_stage(const Model& m, std::int64_t pipeline, std::int64_t s) {
    const StageLayers stage = stage_layers(m, pipeline, s);
    CostedStage out;
    for (std::size_t g = 0; g < m.group_count; ++g) out.layers[g] = static_cast<double>(stage.counts[g]);
    out.count = static_cast<double>(stage.layers);
    out.first = stage.first ? 1.0 : 0.0;
    out.last = stage.last ? 1.0 : 0.0;
    return out;
}
}  // namespace step_cost_detail

// Which pipeline stage a step cost is for: the one whose step moves the most bytes (decode,
// memory-bound), or does the most FLOPs for each prompt token (prefill, compute-bound).
enum class StageBy { bytes, flops };

// The rates a step runs at on a device: bandwidth and FLOP/s (decode.hpp's effective_rates).
struct Rates {
    BytesPerSecond bandwidth{};
    FlopsPerSecond peak{};
};

// The memory and compute terms of one device's step, from a precomputed cost: the hot path of
// decode_step, for sweeps that evaluate one model and device at many batches and contexts.
struct StepTimes {
    Seconds memory{};
    Seconds compute{};
    [[nodiscard]] constexpr Seconds roofline() const noexcept { return memory < compute ? compute : memory; }
};
constexpr StepTimes step_times(const StepCost& c, const Rates& r, std::int64_t batch, std::int64_t context) noexcept {
    const auto B = static_cast<double>(batch);
    const auto n = static_cast<double>(context);
    if (c.attention_data > 1 || c.has_routed_experts())
        return StepTimes{(c.weight_bytes(batch) + c.step_kv_bytes(B, n)) / r.bandwidth, c.step_flops(B, n) / r.peak};
    // The common case in one pass over the context terms, which kv_bytes and flops each walk: the
    // same sums in the same order (step_kv_bytes, step_flops), so the times agree to the bit.
    Bytes cache = c.state_bytes;
    Flops per_token = c.flops_per_token;
    for (std::size_t i = 0; i < c.context_terms.size(); ++i) {
        const StepCost::ContextTerm& t = c.context_terms[i];
        const double read = StepCost::span(t, n);
        cache += read * t.reads * t.kv_per_token;
        per_token += read * t.attention_flops_per_token;
    }
    const auto tokens = static_cast<double>(c.tokens_per_sequence);
    const Bytes kv = B * (cache + tokens * c.activation_bytes);
    return StepTimes{(c.fixed_bytes + c.row_bytes(B * tokens) + kv) / r.bandwidth, B * (tokens * per_token) / r.peak};
}

namespace step_cost_detail {
// What every stage's cost needs of its arguments, checked once for all the stages.
constexpr void require_costable(const Model& m, const Workload& w, const Parallelism& par) {
    validate(m);
    validate(w);
    validate(par);
    require_context_within(m, w.context, "context");
    require_whole_groups(m, w.precision, par);  // a format no engine loads on this split is no cost
    require_whole_kv_groups(m, w.precision, par);
    if (m.declared_parameters)
        for (const auto& g : m)
            if (routed_experts(g.spec, 1.0).experts > 0)
                throw error("", "model '" + std::string(m.name.view()) + "' declared parameters",
                            std::to_string(*m.declared_parameters),
                            "no declared count on a model with routed experts (its bytes depend on the batch)");
}

// stage_step_cost of arguments require_costable has passed, with m's derived_parameters: a
// pipeline's stages share both, and checking and deriving them again for each stage was a fifth
// of a plan search's time.
constexpr StepCost stage_cost(const Model& m, const Workload& w, const Parallelism& par, const CostedStage& stage,
                              const ParameterBreakdown& all) {
    const Assumptions& a = w.assumptions;
    const double per_weight = w.precision.weights.bytes_per_element().in(bytes);
    const double per_table_weight = w.precision.embedding_format().bytes_per_element().in(bytes);
    const double per_expert_weight = w.precision.expert_format().bytes_per_element().in(bytes);
    const double per_head_weight = w.precision.lm_head_format().bytes_per_element().in(bytes);
    const double h = static_cast<double>(m.hidden_size);
    const std::int64_t t = par.tensor;
    const auto T = static_cast<double>(t);
    const std::int64_t ta = par.attention_tensor();         // devices an attention rank splits its heads over
    const auto D = static_cast<double>(par.attention_data);  // attention ranks: a sequence's share of each
    const auto stages = static_cast<double>(par.pipeline);
    const ParameterBreakdown active = model_detail::active_from(m, all);

    StepCost c;
    c.assumptions = a;
    c.accounting = a.accounting;
    c.tensor = t;
    c.pipeline = par.pipeline;
    c.expert = par.expert;
    c.attention_data = par.attention_data;
    c.layers_per_stage = stage.count;
    c.tokens_per_sequence = w.tokens_per_sequence;

    // Weights one device of the stage reads each step, whatever the batch.
    double read = 0;  // in bytes
    const double table = all.embeddings;
    if (m.declared_parameters) {
        // A document's declared count: the norms replicated in their own format, the rest split
        // evenly, an untied LM head (vocab x hidden of it) in its own format as a structured model's is.
        const double per_kept_weight = w.precision.router_and_norm_format().bytes_per_element().in(bytes);
        const double rest = *m.declared_parameters - table - all.norms;
        const double head_part = m.tied_embeddings ? 0.0 : std::min(static_cast<double>(m.vocab_size) * h, rest > 0 ? rest : 0.0);
        read = ((rest - head_part) / T * per_weight + all.norms * per_kept_weight + head_part / T * per_head_weight) / stages;
    } else {
        // The final norm, replicated, and the LM head's share, on the last stage; each layer's
        // norms and router in their own format (Precision::router_and_norm_format).
        const double per_kept_weight = w.precision.router_and_norm_format().bytes_per_element().in(bytes);
        const double per_attention_weight = w.precision.attention_format().bytes_per_element().in(bytes);
        read += stage.last * (h * per_kept_weight + all.lm_head / T * per_head_weight);
        for (std::size_t g = 0; g < m.group_count; ++g)
            read += stage.layers[g] * layer_bytes_outside_experts(m.groups[g].spec, h, t, ta, per_weight, per_kept_weight, per_attention_weight);
    }
    {
        // The input table: a tied one is the LM head (the last stage's) and is read whole; an
        // untied one (the first stage's) is read a row per token, unless every parameter is charged.
        if (m.tied_embeddings || a.accounting == WeightAccounting::every_parameter)
            read += (m.tied_embeddings ? stage.last : stage.first) * table / T * per_table_weight;
        else {
            c.per_sequence_bytes = bytes(stage.first * h * per_table_weight / T);
            c.embedding_rows = table / h;
        }
    }
    c.fixed_bytes = bytes(read);

    // Matmul FLOPs per token: 2 per active parameter, less the input lookup unless counted, a
    // t-th on each device, and each device's own copy of what it holds whole (a declared count
    // is split evenly, as its bytes are).
    const double head = m.tied_embeddings ? table : m.declared_parameters ? static_cast<double>(m.vocab_size) * h : all.lm_head;
    if (par.pipeline == 1 || m.declared_parameters) {  // the whole model, or a declared count's average stage
        double per_token = m.declared_parameters ? *m.declared_parameters : active.total();
        if (!m.tied_embeddings && !a.embedding_lookup_flops) per_token -= table;
        double replicated = 0;
        if (!m.declared_parameters)
            for (const auto& g : m) replicated += static_cast<double>(g.count) * replicated_parameters(g.spec, h, t, par.attention_data);
        c.flops_per_token = flop(2.0 * (per_token / T + replicated) / stages);
    } else {
        // The stage's own layers (their active experts), the final norm and head on the last,
        // the table's lookup on the first where it is charged.
        double per_token = stage.last * (h + head), replicated = 0;
        if (!m.tied_embeddings && a.embedding_lookup_flops) per_token += stage.first * table;
        for (std::size_t g = 0; g < m.group_count; ++g) {
            const LayerSpec& spec = m.groups[g].spec;
            const RoutedExperts e = routed_experts(spec, h);
            per_token += stage.layers[g] * (layer_parameters_per_device(spec, h, 1) + static_cast<double>(e.per_token) * e.parameters_per_expert);
            replicated += stage.layers[g] * replicated_parameters(spec, h, t, par.attention_data);
        }
        c.flops_per_token = flop(2.0 * (per_token / T + replicated));
    }
    // Of those, the LM head's (the tied table, else the head; a declared count's vocab x hidden),
    // which prefill does only for the token a prompt samples.
    // At most every FLOP of the token: a declared count smaller than the head cannot make prefill's negative.
    const Flops head_flops = flop(2.0 * stage.last * head / T);
    c.head_flops_per_token = head_flops < c.flops_per_token ? head_flops : c.flops_per_token;

    double state_flops = 0;
    double rank_flops = 0;  // per token, the attention projections a rank's device does, averaged over the ranks
    for (std::size_t gi = 0; gi < m.group_count; ++gi) {
        const LayerSpec& spec = m.groups[gi].spec;
        const double L = stage.layers[gi];
        std::visit([&](const auto& k) {
            // Per sequence, on average over the attention ranks (one rank holds it, at its share).
            const double share = k.kv_share(ta) / D;
            // A recurrent state is read and written each step; a step of several tokens a sequence
            // (a verification of g drafts) writes one for each, the slots kv_per_sequence_per_device
            // keeps, so the accepted position's can be taken up.
            c.state_bytes += (1.0 + static_cast<double>(w.tokens_per_sequence)) * L * share *
                             state_bytes(k, w.precision.state);
            state_flops += L * k.state_flops_per_token() / T;
            k.reads(ta, [&](const ContextRead& r) {
                StepCost::ContextTerm term;
                term.kv_per_token = bytes(L * r.bytes_per_token(w.precision.kv) / D);
                // A multi-head kernel on grouped-query attention: each query head on the device
                // reads its KV head's cache, so the KV heads held are read that many times over.
                if constexpr (std::is_same_v<std::decay_t<decltype(k)>, Gqa>)
                    if (w.efficiency.kv_per_query_head)
                        term.reads = static_cast<double>(k.heads) / static_cast<double>(ta) /
                                     (static_cast<double>(k.kv_heads) * k.kv_share(ta));
                if (a.attention_flops) term.attention_flops_per_token = flop(L * r.decode_flops / D);
                term.reach = spec.reach(r.cap);
                term.prefill_flops_per_pair = flop(L * r.prefill_flops / D);
                term.prefix_flops_per_token = flop(L * r.prefix_flops / D);
                term.group = gi;
                term.name = r.name;
                c.context_terms.push_back(term);
            });
        }, spec.attention);
        if (w.efficiency.activation_traffic)
            c.activation_bytes += L * layer_activation_traffic(spec, h, t, par.attention_data) * par.activations.bytes_per_element();
        const RoutedExperts e = routed_experts(spec, h);
        if (par.attention_data > 1 && !m.declared_parameters)
            rank_flops += 2 * L * std::visit([&](const auto& k) { return kind_parameters_per_device(k, h, ta); }, spec.attention) / D;
        if (std::visit([&](const auto& k) { return kind_parameters(k, h) > 0; }, spec.attention)) c.attention_reduces_per_stage += L;
        if (e.experts == 0 && std::visit([&](const auto& k) { return kind_parameters(k, h) > 0; }, spec.ffn))
            c.dense_ffn_reduces_per_stage += L;
        if (e.experts > 0) {
            const auto E = static_cast<double>(par.expert);
            c.moe_layers_per_stage += L;
            c.experts_per_token = static_cast<double>(e.per_token);
            c.routed_terms.push_back(StepCost::RoutedTerm{
                L, static_cast<double>(e.experts), static_cast<double>(e.per_token), par.expert,
                bytes(e.parameters_per_expert * E / T * per_expert_weight), gi, flop(2.0 * e.parameters_per_expert * E / T),
                BusiestAssignments(static_cast<double>(e.experts), static_cast<double>(e.per_token), par.expert)});
        }
    }
    if (a.attention_flops) c.flops_per_token += flop(state_flops);
    if (par.attention_data > 1) c.rank_flops_per_token = flop(rank_flops + (a.attention_flops ? state_flops : 0.0));
    return c;
}
}  // namespace step_cost_detail

// The cost model for one device of one stage: one tensor-parallel rank. With no parallelism that
// device is the whole model. Each layer kind says what one of t devices holds and caches (layers.hpp).
constexpr StepCost stage_step_cost(const Model& m, const Workload& w, const Parallelism& par, const step_cost_detail::CostedStage& stage) {
    step_cost_detail::require_costable(m, w, par);
    return step_cost_detail::stage_cost(m, w, par, stage, model_detail::parameters_of_valid(m));
}

namespace step_cost_detail {
// Stage s of a pipeline's cost, marked with its index (arguments checked, `all` derived: stage_cost).
constexpr StepCost costed_stage(const Model& m, const Workload& w, const Parallelism& par, std::int64_t s, const ParameterBreakdown& all) {
    StepCost c = stage_cost(m, w, par, pipeline_stage(m, par.pipeline, s), all);
    c.stage = s;
    return c;
}

// Every stage of a pipeline's cost, each marked with its index. Not constexpr: a std::vector,
// which some standard libraries (libc++ 14, Emscripten's) cannot build in constant expressions.
inline std::vector<StepCost> pipeline_stage_costs(const Model& m, const Workload& w, const Parallelism& par) {
    require_costable(m, w, par);
    const ParameterBreakdown all = model_detail::parameters_of_valid(m);
    std::vector<StepCost> stages;
    stages.reserve(static_cast<std::size_t>(par.pipeline));
    for (std::int64_t s = 0; s < par.pipeline; ++s) stages.push_back(costed_stage(m, w, par, s, all));
    return stages;
}

// The stage for which `load` (of a stage's cost) is the largest, the first on a tie.
template <class Load>
constexpr StepCost busiest_stage(const Model& m, const Workload& w, const Parallelism& par, Load&& load) {
    require_costable(m, w, par);
    const ParameterBreakdown all = model_detail::parameters_of_valid(m);
    if (par.pipeline == 1 || m.declared_parameters) return stage_cost(m, w, par, average_stage(m, par.pipeline), all);
    StepCost busiest{};
    double most = -1;
    for (std::int64_t s = 0; s < par.pipeline; ++s) {
        const StepCost c = costed_stage(m, w, par, s, all);
        if (const double l = load(c); l > most) {
            most = l;
            busiest = c;
        }
    }
    return busiest;
}
}  // namespace step_cost_detail

// The cost model for one device of the pipeline's busiest stage, whose pace the pipeline runs
// at: each stage holds its own layers (pipeline_stages.hpp), the table on the first, the head
// on the last, and the busiest is chosen at the workload's batch and context (`by`), so a cost
// used at other ones keeps that stage. Without a pipeline, the whole model; a declared count's
// stages are its average.
constexpr StepCost step_cost(const Model& m, const Workload& w, const Parallelism& par = {}, StageBy by = StageBy::bytes) {
    const auto B = static_cast<double>(w.batch);
    return step_cost_detail::busiest_stage(m, w, par, [&](const StepCost& c) {
        // Decode: the bytes its step moves; prefill: its FLOPs for each prompt token (the LM head
        // only for the token sampled, so left out, unless every prompt token's logits are asked)
        // and its attention at the context.
        const Flops head = w.assumptions.prompt_logits ? Flops{} : c.head_flops_per_token;
        return by == StageBy::bytes ? (c.weight_bytes(w.batch) + c.step_kv_bytes(B, static_cast<double>(w.context))).in(bytes)
                                    : (c.flops(static_cast<double>(w.context)) - head).in(flop);
    });
}

}  // namespace ridgeline
