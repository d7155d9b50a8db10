// Calibration: from measured steps on one device, fit the overhead model's terms (workload.hpp's
// Efficiency) by bounded least squares on the relative error,
//     measured ~ max(memory / bandwidth efficiency, compute / compute efficiency)
//                + links + a fixed time per step + a time per layer (and per MoE layer, per
//                sequence, per link message),
// summed over the steps a row timed (one decode step, or a whole request's prefill and decode:
// observation.hpp), with the bandwidth efficiency in (0, 1], the compute efficiency in
// [CalibrationTerms::lowest_compute, 1] and each time at least 0, global over which steps the
// efficiencies make compute-bound (calibrate_solve.hpp); then predict other settings with them,
// with a range. It never refuses what it can fit: one row fits the fixed time with the compute
// efficiency held and the bandwidth efficiency at the device's measured figure (or a stated
// default); rows faster than their own ceiling are set aside, named.
// Not constexpr: it works on std::vectors (see operators.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "calibrate_rows.hpp"
#include "calibrate_solve.hpp"
#include "decode.hpp"
#include "observation.hpp"

namespace ridgeline {

// Which terms a fit may move; the rest stay at `held`.
struct CalibrationTerms {
    bool bandwidth = true;
    bool compute = true;     // moves only where some step turns compute-bound at the fitted rates
    bool overhead = true;    // a fixed time per step
    bool per_layer = false;  // a time per layer per step (kernel launches without CUDA graphs)
    // A time per routed-expert layer per step (Efficiency::per_moe_layer); moves only where some
    // row is on an MoE model and some other row tells it from the fixed time.
    bool per_moe_layer = false;
    // A time per sequence per step (Efficiency::per_sequence): the host's per-request work;
    // moves only where the rows' batches differ enough to tell it from the other terms.
    bool per_sequence = false;
    // A time per link message (Efficiency::per_message): the engine's collectives above the
    // link's latency. Moves only where the rows fitted are on different splits (tensor-parallel,
    // pipeline or expert-parallel degrees): on one split a model's messages go with its layers,
    // and the term would be a time per layer by another name.
    bool per_message = false;
    // Whether the attention reads each KV head once per query head (Efficiency::kv_per_query_head)
    // is chosen by the fit: both readings are fitted and the per-query one kept only where it pays
    // Akaike's penalty (only rows on grouped-query models can tell them apart). Off: held's reading.
    bool kv_reads = true;
    // Whether each layer's activations go through memory (Efficiency::activation_traffic): what
    // the rows' bytes are, as the KV reading is, so fitted with, not an overhead fitted. This
    // decides it; held.activation_traffic is not read.
    bool activation_traffic = true;
    Efficiency held{};       // the values of terms not fitted (a one-row fit holds both efficiencies)
    // A one-row fit holds the bandwidth efficiency at what a streaming benchmark measured on the
    // device (Hardware::measured_bandwidth over its peak) where the preset gives that figure and
    // held.bandwidth is left at 1 (a held value set below 1 wins): one row cannot tell a slower
    // read from a fixed time, and no engine reads faster than a copy kernel does for long. A row
    // faster than that, even with no fixed time, fits the bandwidth instead. Two or more rows fit
    // it freely; where they cannot tell it from a fixed time either (the same setting twice), the
    // fit keeps the higher bandwidth efficiency (calibrate_solve.hpp's tie-break), not this one.
    bool one_row_measured_bandwidth = true;
    // The lowest compute efficiency a fit may claim. Below a twentieth of peak a fit explains by
    // arithmetic what is something else (scheduling, prefill stalls): left free, single folds of
    // the published set fit 0.3% to 1% and then predict batch-8 decode steps compute-bound, 3.5
    // times slower than measured (TGI on the MI300X). The slowest arithmetic a figure of the set
    // shows directly is 12% of peak (SGLang's DeepSeek-R1 prefill on the MI300X: a wave of 128
    // prompts of 3,200 tokens in 53.4 s against 6.47 s ideal); the README gives the table at other floors.
    double lowest_compute = 0.05;
    // Whether a free compute efficiency must pay for itself: fitted both free and held (at
    // held.compute), it is kept free only where the free fit reads steps of two settings or more
    // as compute-bound (a rate one setting alone reaches fits its noise to zero) and its rms error
    // is below exp(-1/n) of the held fit's over n rows, Akaike's penalty for one parameter, as the
    // KV reading pays. Free without it, memory-bound rows' noise buys a compute efficiency (a
    // seeded simulation in test_levers.cpp: 18 of 40 seeds below 50%). Off here, so term sets that ask
    // for the term free keep it free (the accuracy table's eight, which choose between free and
    // held by leave-one-out themselves); `ridgeline calibrate` and Python's calibrate() turn it on.
    bool compute_pays = false;
};

struct Calibration {
    double bandwidth_efficiency = 1;  // fitted fraction of peak bandwidth
    double compute_efficiency = 1;
    Seconds overhead{};               // fitted fixed time per step
    Seconds per_layer{};              // fitted time per layer per step
    Seconds per_moe_layer{};          // fitted time per routed-expert layer per step
    Seconds per_sequence{};           // fitted time per sequence per step
    Seconds per_message{};            // fitted time per link message
    bool kv_per_query_head = false;   // the attention's KV reads, as chosen (Efficiency::kv_per_query_head)
    bool activation_traffic = false;  // the activations' bytes, as fitted with (Efficiency::activation_traffic)
    // One standard error of each fitted term (nullopt: not fitted, or too few rows to say).
    std::optional<double> bandwidth_efficiency_error, compute_efficiency_error;
    std::optional<Seconds> overhead_error, per_layer_error, per_moe_layer_error, per_sequence_error, per_message_error;
    std::vector<std::size_t> used;      // the observations fitted, by index
    std::vector<std::string> set_aside;  // "observations[i]: why" for each row not fitted
    std::vector<Seconds> predicted;      // for each observation, with the fit
    std::vector<Seconds> residuals;      // measured - predicted
    double rms_relative_error = 0;       // over the rows fitted: sqrt(mean((residual / measured)^2))
    std::string explanation;             // which term explains the gap to the ceiling, in words
    std::string bandwidth_basis;         // a one-row fit's bandwidth efficiency: held at the device's measured figure, or fitted; else empty
    // Where CalibrationTerms::compute_pays held the compute efficiency: the two fits' rms errors,
    // in words; where one row (or rows of one setting) cannot fit it, that; else empty.
    std::string compute_basis;

    [[nodiscard]] constexpr Efficiency efficiency() const {
        return Efficiency{bandwidth_efficiency, compute_efficiency, overhead,           per_layer, kv_per_query_head,
                          per_moe_layer,        per_sequence,       activation_traffic, per_message};
    }
};

// Whether two deployments split a model the same way (tensor-parallel, pipeline, expert-parallel
// and attention data-parallel degrees), so that its layers send the same link messages.
constexpr bool same_split(const Parallelism& a, const Parallelism& b) {
    return a.tensor == b.tensor && a.pipeline == b.pipeline && a.expert == b.expert && a.attention_data == b.attention_data;
}

// A prediction with a calibration's terms.
constexpr DecodeStep predict(const Deployment& d, const Model& m, Workload w, const Calibration& c) {
    w.efficiency = c.efficiency();
    return decode_step(d, m, w);
}

// Where the time between the ceiling and a measured (or predicted) step goes, in words, from the
// parts each term adds (calibrate and diagnose say it the same way).
struct GapParts {
    Seconds bandwidth{};  // memory time lost to bandwidth efficiency below 1
    Seconds compute{};
    Seconds overhead{};
    Seconds per_layer{};
    Seconds per_moe_layer{};
    Seconds per_sequence{};
    Seconds per_message{};
    Seconds activations{};  // activations written and read back (Efficiency::activation_traffic), at the fitted bandwidth
};
// `p` and `ceiling` are means over the rows of the fit's terms and of the ceiling: the fit's gap,
// not the measured one (a review read the measured gap into "spends above its ceiling").
inline std::string explain_gap(const GapParts& p, Seconds ceiling) {
    const Seconds total = p.bandwidth + p.compute + p.overhead + p.per_layer + p.per_moe_layer + p.per_sequence + p.per_message + p.activations;
    const auto ms_text = [](Seconds t) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.2f", t.in(ms));
        return std::string(buf);
    };
    if (!(total > Seconds{}) || total < 0.01 * ceiling) return "at the ceiling: nothing to explain";
    struct Part {
        const char* words;
        Seconds t;
    };
    const std::array<Part, 8> parts{Part{"bandwidth efficiency below peak", p.bandwidth}, Part{"compute efficiency below peak", p.compute},
                                    Part{"a fixed time per step", p.overhead}, Part{"a time per layer (kernel launches)", p.per_layer},
                                    Part{"a time per MoE layer (routing and expert kernels)", p.per_moe_layer},
                                    Part{"a time per sequence (the host's work for each request)", p.per_sequence},
                                    Part{"a time per link message (the engine's collectives)", p.per_message},
                                    Part{"activations written and read back through memory", p.activations}};
    const Part* most = &parts[0];
    for (const Part& x : parts)
        if (x.t > most->t) most = &x;
    const double share = static_cast<double>(most->t / total);
    return std::string(share > 0.5 ? "mostly " : "largest part: ") + most->words + ", " + ms_text(most->t) + " of the " +
           ms_text(total) + " ms the fit adds to a mean " + ms_text(ceiling) + " ms ceiling";
}

namespace calibrate_detail {
// A set of observations prepared once: each row as the fit sees it, under either KV reading
// (built when first asked for), and which rows are fitted. Every fit of leave-one-out and of
// the nested choice is a subset of these, so none calls decode_step again.
class Prepared {
public:
    Prepared(const Hardware& hw, const std::vector<Observation>& observations) : hw_(hw), observations_(observations) {
        if (observations.empty()) throw error("", "observations", "none", "at least one measurement");
        for (auto& r : rows_) r.resize(observations.size());
        for (std::size_t i = 0; i < observations.size(); ++i) {
            const Observation& o = observations[i];
            if (!(o.measured_step > Seconds{}) || !is_finite(o.measured_step))
                throw error("", "observations[" + std::to_string(i) + "].measured_step", number_text(o.measured_step.in(ms)) + " ms",
                            "a positive, finite time");
            row(i, false, false);
            // A row faster than its own ideal ceiling is not a measurement of the stated setting.
            const Seconds ceiling = time_per_output_token(Deployment{hw, o.parallel}, o, Efficiency{});
            if (o.measured_step < ceiling)
                set_aside_.push_back("observations[" + std::to_string(i) + "]: " + number_text(o.measured_step.in(ms)) +
                                     " ms, faster than this setting's ideal ceiling of " + number_text(ceiling.in(ms)) + " ms");
            else
                used_.push_back(i);
        }
    }
    const Row& row(std::size_t i, bool kv_per_query_head, bool activation_traffic) {
        std::optional<Row>& r = rows_[(kv_per_query_head ? 1 : 0) + (activation_traffic ? 2 : 0)][i];
        if (!r) try {
                r = calibrate_detail::row(Deployment{hw_, observations_[i].parallel}, observations_[i], kv_per_query_head, activation_traffic);
            } catch (const error& e) {
                throw error("", "observations[" + std::to_string(i) + "]." + e.path(), e.value(), e.expected());
            }
        return *r;
    }
    [[nodiscard]] const Hardware& hardware() const { return hw_; }
    [[nodiscard]] const std::vector<Observation>& observations() const { return observations_; }
    [[nodiscard]] const std::vector<std::size_t>& used() const { return used_; }
    [[nodiscard]] const std::vector<std::string>& set_aside() const { return set_aside_; }

private:
    const Hardware& hw_;
    const std::vector<Observation>& observations_;
    std::array<std::vector<std::optional<Row>>, 4> rows_;  // by KV reading and activation traffic
    std::vector<std::size_t> used_;
    std::vector<std::string> set_aside_;
};

inline void validate(const CalibrationTerms& terms) {
    validate(Workload{.efficiency = terms.held});
    // The efficiencies' own range (workload.hpp): a floor below it could not be predicted with.
    if (!(terms.lowest_compute >= 1e-6 && terms.lowest_compute <= 1))
        throw error("", "lowest_compute", number_text(terms.lowest_compute), "a fraction from 0.000001 to 1");
}

// A fit of `terms` on the rows `subset` under one KV reading.
struct Fitted {
    Solution terms;
    bool kv_per_query_head = false;
    bool activation_traffic = false;
    std::size_t rows = 0;
    std::string bandwidth_basis;  // Calibration::bandwidth_basis
    std::string compute_basis;    // Calibration::compute_basis
    [[nodiscard]] double rms() const { return std::sqrt(terms.rss / static_cast<double>(rows)); }
    // a, c >= 1; a held efficiency's reciprocal taken twice may differ from it in the last bit.
    [[nodiscard]] Efficiency efficiency() const {
        return Efficiency{std::min(1.0, 1 / terms.a), std::min(1.0, 1 / terms.c), s(terms.o), s(terms.l), kv_per_query_head, s(terms.e), s(terms.q),
                          activation_traffic, s(terms.g)};
    }
};

// Whether every row of `subset` is the same setting (only its measured time differs): such rows
// cannot tell one term from another any better than one row can.
inline bool one_setting(Prepared& p, const std::vector<std::size_t>& subset, bool kv_per_query_head, bool activation_traffic) {
    const Row& first = p.row(subset.front(), kv_per_query_head, activation_traffic);
    const auto same = [&](const Row& r) {
        if (r.parts.size() != first.parts.size() || r.fixed != first.fixed || r.layers != first.layers || r.stages != first.stages ||
            r.moe_layers != first.moe_layers || r.sequences != first.sequences || r.messages != first.messages)
            return false;
        for (std::size_t k = 0; k < r.parts.size(); ++k)
            if (r.parts[k].memory != first.parts[k].memory || r.parts[k].compute != first.parts[k].compute ||
                r.parts[k].weight != first.parts[k].weight)
                return false;
        return true;
    };
    for (std::size_t i : subset)
        if (!same(p.row(i, kv_per_query_head, activation_traffic))) return false;
    return true;
}

// Whether the rows of `subset` are on more than one split (CalibrationTerms::per_message).
inline bool splits_differ(const std::vector<Observation>& observations, const std::vector<std::size_t>& subset) {
    const Parallelism& first = observations[subset.front()].parallel;
    return std::any_of(subset.begin(), subset.end(), [&](std::size_t i) { return !same_split(observations[i].parallel, first); });
}

inline Fitted fit_reading(Prepared& p, const std::vector<std::size_t>& subset, const CalibrationTerms& terms, bool kv_per_query_head) {
    validate(terms);
    // Terms that can move: one row (or rows of one setting) fits the fixed time only (or, where
    // that is held, the first of the per-layer, per-MoE-layer and per-sequence times asked for,
    // alone); the time per message moves only on rows of two splits or more, never for one row.
    unsigned allowed = 0;
    const bool act = terms.activation_traffic;
    const bool one = subset.size() == 1 || one_setting(p, subset, kv_per_query_head, act);
    const std::string one_row = subset.size() == 1 ? "one row" : std::to_string(subset.size()) + " rows of one setting";
    if (terms.bandwidth && !one) allowed |= 1u;
    if (terms.compute && !one) allowed |= 2u;
    if (terms.overhead) allowed |= 4u;
    if (terms.per_layer && !(one && terms.overhead)) allowed |= 8u;
    if (terms.per_moe_layer && !(one && (terms.overhead || terms.per_layer))) allowed |= 16u;
    if (terms.per_sequence && !(one && (terms.overhead || terms.per_layer || terms.per_moe_layer))) allowed |= 32u;
    if (terms.per_message && !one && splits_differ(p.observations(), subset)) allowed |= 64u;
    // Asked for but unable to move: said, as a held bandwidth is (a review found a one-row fit
    // printing "compute 100.0%" as though fitted).
    const std::string compute_held = one && terms.compute ? "held: " + one_row + " cannot fit it" : std::string();
    std::vector<const Row*> rows;
    for (std::size_t i : subset) rows.push_back(&p.row(i, kv_per_query_head, act));
    Held held{1 / terms.held.bandwidth, 1 / terms.held.compute, terms.held.overhead.in(s), terms.held.per_layer.in(s),
              terms.held.per_moe_layer.in(s), terms.held.per_sequence.in(s), terms.held.per_message.in(s)};
    const Hardware& hw = p.hardware();
    if (!(one && terms.bandwidth && terms.one_row_measured_bandwidth && terms.held.bandwidth == 1))
        return Fitted{fit_terms(rows, allowed, held, 1 / terms.lowest_compute), kv_per_query_head, act, subset.size(), {}, compute_held};
    // validate(hw) has held it within (0, peak]. A preset without a measured figure holds the
    // peak, and says so (a review found such a fit's basis missing).
    const double peak = hw.memory_bandwidth.in(GB_per_s);
    const double measured = hw.measured_bandwidth ? hw.measured_bandwidth->in(GB_per_s) : peak;
    held.a = peak / measured;
    // The row at the measured bandwidth with no time fitted: slower, a fixed time explains the
    // rest; faster, the bandwidth itself must be higher, so it is fitted with no fixed time. Rows
    // of one setting: the fastest decides.
    const Row& r = *rows.front();
    double fastest = r.measured;
    for (const Row* x : rows) fastest = std::min(fastest, x->measured);
    double at_measured = r.fixed + ((allowed & 4u) ? 0 : held.o * r.stages) + ((allowed & 8u) ? 0 : held.l * r.layers) +
                         ((allowed & 16u) ? 0 : held.e * r.moe_layers) + ((allowed & 32u) ? 0 : held.q * r.sequences) +
                         ((allowed & 64u) ? 0 : held.g * r.messages);
    for (const Part& q : r.parts) at_measured += q.weight * std::max(held.a * q.memory, held.c * q.compute);
    // Whether every step of the row is compute-bound even at the measured bandwidth.
    bool compute_bound = true;
    for (const Part& q : r.parts)
        if (q.weight > 0 && held.c * q.compute < held.a * q.memory) compute_bound = false;
    const std::string held_at = hw.measured_bandwidth ? "held at the device's measured " + number_text(measured) + " of " + number_text(peak) + " GB/s"
                                                      : "held at the device's peak " + number_text(peak) + " GB/s, its preset giving no measured figure";
    // Compute-bound: no bandwidth moves the row. Slower, the fixed time explains the rest; faster,
    // the held compute efficiency is too low for it (only a caller holding it below 1 gets here:
    // at peak the row would be above its ceiling and set aside).
    if (compute_bound)
        return Fitted{fit_terms(rows, allowed, held, 1 / terms.lowest_compute), kv_per_query_head, act, subset.size(),
                      held_at + ", unused: the row's steps are compute-bound, and " +
                          (at_measured <= fastest ? one_row + " cannot tell slower arithmetic from a fixed time, so compute is held"
                                                     : "faster than the held compute efficiency allows"), compute_held};
    if (at_measured <= fastest)
        return Fitted{fit_terms(rows, allowed, held, 1 / terms.lowest_compute), kv_per_query_head, act, subset.size(),
                      held_at + ": " + one_row + " cannot tell a slower read from a fixed time", compute_held};
    if (allowed & 4u) held.o = 0;
    if (allowed & 8u) held.l = 0;
    if (allowed & 16u) held.e = 0;
    if (allowed & 32u) held.q = 0;
    if (allowed & 64u) held.g = 0;
    return Fitted{fit_terms(rows, 1u, held, 1 / terms.lowest_compute), kv_per_query_head, act, subset.size(),
                  "fitted: " + (subset.size() == 1 ? std::string("the one row reads") : "the fastest of " + one_row + " reads") + " faster than the device's " + (hw.measured_bandwidth ? "measured " : "peak ") + number_text(measured) + " GB/s", compute_held};
}

// `free`, the fit under one KV reading with the terms asked, or the same with the compute
// efficiency held where a free one does not pay (terms.compute_pays).
inline Fitted fit_paid(Prepared& p, const std::vector<std::size_t>& subset, const CalibrationTerms& terms, Fitted free) {
    if (!terms.compute || !terms.compute_pays) return free;
    const bool kv_per_query_head = free.kv_per_query_head;
    CalibrationTerms held_terms = terms;
    held_terms.compute = false;
    Fitted held = fit_reading(p, subset, held_terms, kv_per_query_head);
    // Free, it did not move (no step turns compute-bound): nothing was fitted, nothing to pay.
    if (free.efficiency().compute == held.efficiency().compute) return free;
    // The rows some of whose steps the free fit reads as compute-bound: a rate that only one row
    // reaches is that row's own residual, fitted to zero whatever its noise.
    // Rows of one setting (a measurement repeated) are one rate, as one row is.
    std::vector<std::size_t> bound_rows;
    for (std::size_t i : subset) {
        const Row& r = p.row(i, kv_per_query_head, terms.activation_traffic);
        if (std::any_of(r.parts.begin(), r.parts.end(),
                        [&](const Part& q) { return q.weight > 0 && free.terms.c * q.compute > free.terms.a * q.memory; }))
            bound_rows.push_back(i);
    }
    const bool one_rate = bound_rows.size() < 2 || one_setting(p, bound_rows, kv_per_query_head, terms.activation_traffic);
    const auto n = static_cast<double>(subset.size());
    if (!one_rate && free.rms() < std::exp(-1 / n) * held.rms()) return free;
    const auto shown = [](const char* format, double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, format, v);
        return std::string(buf);
    };
    const std::string fitted = "held: fitted, " + shown("%.1f", 100 * free.efficiency().compute) + "% of peak ";
    held.compute_basis = one_rate ? fitted + "turns only one setting compute-bound, which it would fit whatever that row's noise"
                                   : fitted + "cut the rms error from " + shown("%.2f", 100 * held.rms()) + "% to " + shown("%.2f", 100 * free.rms()) +
                                         "%, short of Akaike's penalty for one more term (below " + shown("%.2f", std::exp(-1 / n)) + " of it)";
    return held;
}

// The fit on `subset`, with the KV reading chosen (terms.kv_reads) or held.
inline Fitted fit(Prepared& p, const std::vector<std::size_t>& subset, const CalibrationTerms& terms) {
    bool choose = false;
    // One row (or rows of one setting) fits either reading as well, so it cannot choose between them.
    if (terms.kv_reads && subset.size() > 1 && !one_setting(p, subset, false, terms.activation_traffic))
        for (std::size_t i : subset) choose = choose || shares_kv_heads(p.observations()[i].model);
    if (!choose) return fit_paid(p, subset, terms, fit_reading(p, subset, terms, terms.held.kv_per_query_head));
    // The readings compared on equal terms (the compute free where asked), and the compute
    // term's own penalty paid on the reading chosen: compared after it, one reading could keep
    // the term and the other not, two parameters apart, not one.
    const Fitted shared = fit_reading(p, subset, terms, false);
    const Fitted per_query = fit_reading(p, subset, terms, true);
    // The reading is one more thing fitted, so it must pay for itself: Akaike's criterion for
    // one parameter, n ln(rss per query / rss shared) < -2, i.e. the rms error below exp(-1/n)
    // of the shared reading's (0.72 at 3 rows, 0.92 at 12), each the fit's own on its prepared
    // rows (whole requests' decode sampled as calibrate_rows.hpp says, so it can differ from
    // Calibration::rms_relative_error in the last digits). Rows that cannot tell the readings
    // apart keep the physical one, as do rows the shared reading already fits exactly (as many
    // rows as terms): what is left of its error is rounding, which no reading pays for.
    const auto n = static_cast<double>(subset.size());
    const bool exact = shared.rms() < 1e-9;
    return fit_paid(p, subset, terms, !exact && per_query.rms() < std::exp(-1 / n) * shared.rms() ? per_query : shared);
}

// The rows of `subset` but i.
inline std::vector<std::size_t> all_but(const std::vector<std::size_t>& subset, std::size_t i) {
    std::vector<std::size_t> rest;
    for (std::size_t j : subset)
        if (j != i) rest.push_back(j);
    return rest;
}

// The relative error of row i predicted with a fit's terms (as timed).
inline double prediction_error(const Prepared& p, std::size_t i, const Fitted& f) {
    const Observation& o = p.observations()[i];
    const Seconds predicted = time_per_output_token(Deployment{p.hardware(), o.parallel}, o, f.efficiency());
    return std::abs(static_cast<double>((predicted - o.measured_step) / o.measured_step));
}

// The relative error of row i predicted by a fit on the others of `subset`.
inline double left_out_error(Prepared& p, const std::vector<std::size_t>& subset, std::size_t i, const CalibrationTerms& terms) {
    return prediction_error(p, i, fit(p, all_but(subset, i), terms));
}

inline std::vector<double> leave_one_out(Prepared& p, const std::vector<std::size_t>& subset, const CalibrationTerms& terms) {
    std::vector<double> errors;
    if (subset.size() < 2) return errors;
    for (std::size_t i : subset) errors.push_back(left_out_error(p, subset, i, terms));
    return errors;
}

// Of each candidate's leave-one-out errors, the one with the least mean, the earlier on a tie.
inline std::size_t least_mean(const std::vector<std::vector<double>>& errors) {
    std::size_t best = 0;
    double best_error = -1;
    for (std::size_t k = 0; k < errors.size(); ++k) {
        double mean = 0;
        for (double x : errors[k]) mean += x / static_cast<double>(errors[k].size());
        if (best_error < 0 || mean < best_error) best = k, best_error = mean;
    }
    return best;
}

// The first candidate where fewer than three rows would be predicted (two leave one row to fit,
// which says nothing about the terms beyond a fixed time).
inline std::size_t choose_terms(Prepared& p, const std::vector<std::size_t>& subset, const std::vector<CalibrationTerms>& candidates) {
    if (candidates.empty()) throw error("", "candidates", "none", "at least one term set");
    if (subset.size() < 3) return 0;
    std::vector<std::vector<double>> errors;
    for (const CalibrationTerms& t : candidates) errors.push_back(leave_one_out(p, subset, t));
    return least_mean(errors);
}
}  // namespace calibrate_detail

// Fits `terms` to the observations on `hw` by bounded least squares on the relative error
// (calibrate_solve.hpp: every bound assignment the efficiencies can make is searched, each term
// held at its bound where that fits better). With terms.kv_reads, the attention's KV reads (once
// per KV head, or once per query head) are chosen by fitting both.
inline Calibration calibrate(const Hardware& hw, const std::vector<Observation>& observations, CalibrationTerms terms = {}) {
    validate(hw);  // the device's own error, before any row's
    calibrate_detail::Prepared p(hw, observations);
    Calibration c;
    c.used = p.used();
    c.set_aside = p.set_aside();
    if (c.used.empty())
        throw error("", "observations", "no row at or above its own ceiling (" + c.set_aside.front() + ")",
                    "at least one measurement of its stated setting (diagnose says what would explain a faster one)");
    const calibrate_detail::Fitted f = calibrate_detail::fit(p, c.used, terms);
    const calibrate_detail::Solution& t = f.terms;
    const Efficiency e = f.efficiency();
    c.bandwidth_efficiency = e.bandwidth;
    c.compute_efficiency = e.compute;
    c.overhead = e.overhead;
    c.per_layer = e.per_layer;
    c.per_moe_layer = e.per_moe_layer;
    c.per_sequence = e.per_sequence;
    c.per_message = e.per_message;
    c.kv_per_query_head = e.kv_per_query_head;
    c.activation_traffic = e.activation_traffic;
    c.bandwidth_basis = f.bandwidth_basis;
    c.compute_basis = f.compute_basis;
    if (t.se_a) c.bandwidth_efficiency_error = *t.se_a / (t.a * t.a);  // d(1/a) = da / a^2
    if (t.se_c) c.compute_efficiency_error = *t.se_c / (t.c * t.c);
    if (t.se_o) c.overhead_error = s(*t.se_o);
    if (t.se_l) c.per_layer_error = s(*t.se_l);
    if (t.se_e) c.per_moe_layer_error = s(*t.se_e);
    if (t.se_q) c.per_sequence_error = s(*t.se_q);
    if (t.se_g) c.per_message_error = s(*t.se_g);
    // Times are fitted unbounded above; past what a workload takes (validate(Workload)), no
    // prediction could use them, and rows that ask for that are not what the term models.
    const auto within = [](const char* term, Seconds fitted, Seconds most) {
        if (fitted > most)
            throw error("", std::string("fitted ") + term, number_text(fitted.in(ms)) + " ms",
                        "at most " + number_text(most.in(s)) + " s, what a workload takes: rows this slow are not what the "
                                                                     "term models (check their tokens/s, batches and contexts)");
    };
    within("time per step", c.overhead, most_overhead_per_step);
    within("time per layer", c.per_layer, most_overhead_per_unit);
    within("time per MoE layer", c.per_moe_layer, most_overhead_per_unit);
    within("time per sequence", c.per_sequence, most_overhead_per_unit);
    within("time per link message", c.per_message, most_overhead_per_unit);

    // Predictions, residuals, and where the time goes.
    for (const Observation& o : observations) {
        const Seconds predicted = time_per_output_token(Deployment{hw, o.parallel}, o, c.efficiency());
        c.predicted.push_back(predicted);
        c.residuals.push_back(o.measured_step - predicted);
    }
    const double n = static_cast<double>(c.used.size());
    double sq = 0;
    GapParts parts;
    Seconds ceiling{};
    for (std::size_t i : c.used) {
        const calibrate_detail::Row& r = p.row(i, c.kv_per_query_head, c.activation_traffic);
        // The ceiling moves no activations: their bytes are a part of the gap, told apart.
        const calibrate_detail::Row& ideal = p.row(i, c.kv_per_query_head, false);
        const double rel = c.residuals[i].in(s) / r.measured;
        sq += rel * rel / n;
        // The two readings make the same parts (the activations change bytes, not which steps a
        // row has); were they ever to differ, the gap is told as bandwidth, the ceiling as fitted.
        const bool paired = ideal.parts.size() == r.parts.size();
        for (std::size_t k = 0; k < r.parts.size(); ++k) {
            const calibrate_detail::Part& q = r.parts[k];
            const calibrate_detail::Part& q0 = paired ? ideal.parts[k] : q;
            const bool cb = t.c * q.compute > t.a * q.memory;
            parts.bandwidth += s(cb ? 0 : q.weight * (t.a - 1) * q0.memory) / n;
            parts.activations += s(cb ? 0 : q.weight * t.a * (q.memory - q0.memory)) / n;
            parts.compute += s(cb ? q.weight * (t.c - 1) * q.compute : 0) / n;
            ceiling += s(q0.weight * std::max(q0.memory, q0.compute)) / n;
        }
        parts.overhead += r.stages * c.overhead / n;
        parts.per_layer += s(c.per_layer.in(s) * r.layers) / n;
        parts.per_moe_layer += s(c.per_moe_layer.in(s) * r.moe_layers) / n;
        parts.per_sequence += s(c.per_sequence.in(s) * r.sequences) / n;
        parts.per_message += s(c.per_message.in(s) * r.messages) / n;
        ceiling += s(r.fixed) / n;
    }
    c.rms_relative_error = std::sqrt(sq);
    c.explanation = explain_gap(parts, ceiling);
    if (c.kv_per_query_head) c.explanation += "; the attention reads each KV head once per query head (no GQA sharing)";
    return c;
}

// Leave-one-out: each row predicted by a fit on the others (the rows set aside as faster than
// their ceiling are not predicted). Relative errors |predicted - measured| / measured, in row
// order; empty when fewer than two rows can be fitted.
inline std::vector<double> leave_one_out(const Hardware& hw, const std::vector<Observation>& observations,
                                         CalibrationTerms terms = {}) {
    calibrate_detail::validate(terms);
    calibrate_detail::Prepared p(hw, observations);
    return calibrate_detail::leave_one_out(p, p.used(), terms);
}

// Which of `candidates` (term sets, the simplest first) predicts these rows best: the least mean
// of leave_one_out's errors, the earlier on a tie. The first when fewer than three rows can be
// fitted (two leave one row to fit, which says nothing about the terms beyond a fixed time).
inline std::size_t choose_terms(const Hardware& hw, const std::vector<Observation>& observations,
                                const std::vector<CalibrationTerms>& candidates) {
    for (const CalibrationTerms& t : candidates) calibrate_detail::validate(t);
    calibrate_detail::Prepared p(hw, observations);
    return calibrate_detail::choose_terms(p, p.used(), candidates);
}

// Nested leave-one-out: each row predicted by a fit on the others with the term set that
// choose_terms picks using those others alone, so the choice never sees the row it predicts.
// Errors as leave_one_out's, in row order.
inline std::vector<double> nested_leave_one_out(const Hardware& hw, const std::vector<Observation>& observations,
                                                const std::vector<CalibrationTerms>& candidates) {
    if (candidates.empty()) throw error("", "candidates", "none", "at least one term set");
    for (const CalibrationTerms& t : candidates) calibrate_detail::validate(t);
    calibrate_detail::Prepared p(hw, observations);
    const std::vector<std::size_t>& used = p.used();
    const std::size_t n = used.size();
    std::vector<double> errors;
    if (n < 2) return errors;
    // inner[k][a][b]: row used[b] predicted by the candidate k fitted without rows used[a] and
    // used[b], an error of row a's choice. One fit without two rows serves both rows' choices,
    // which halves the nested fits (and gives what choose_terms would, fit for fit).
    std::vector<std::vector<std::vector<double>>> inner;
    if (n > 3) {
        inner.assign(candidates.size(), std::vector<std::vector<double>>(n, std::vector<double>(n)));
        for (std::size_t k = 0; k < candidates.size(); ++k)
            for (std::size_t a = 0; a < n; ++a)
                for (std::size_t b = a + 1; b < n; ++b) {
                    const calibrate_detail::Fitted f =
                        calibrate_detail::fit(p, calibrate_detail::all_but(calibrate_detail::all_but(used, used[a]), used[b]), candidates[k]);
                    inner[k][a][b] = calibrate_detail::prediction_error(p, used[b], f);
                    inner[k][b][a] = calibrate_detail::prediction_error(p, used[a], f);
                }
    }
    for (std::size_t a = 0; a < n; ++a) {
        std::size_t chosen = 0;
        if (n > 3) {
            std::vector<std::vector<double>> choice(candidates.size());
            for (std::size_t k = 0; k < candidates.size(); ++k)
                for (std::size_t b = 0; b < n; ++b)
                    if (b != a) choice[k].push_back(inner[k][a][b]);
            chosen = calibrate_detail::least_mean(choice);
        }
        errors.push_back(calibrate_detail::left_out_error(p, used, used[a], candidates[chosen]));
    }
    return errors;
}

// A prediction's range from the fitted terms' standard errors: each term moved by one standard
// error in the direction that slows (or speeds) the step, within its bounds. An efficiency moves
// as the fit estimated it, through its reciprocal (calibrate_solve.hpp fits a = 1 / efficiency,
// and the error it reports is se(a) / a^2): a = 1 / e moved by error / e^2 gives e^2 / (e + error)
// at the slow end, positive however large the error, and e^2 / (e - error), at most 1, at the
// fast end. Moving the efficiency itself by its error, as before, reached 0 (an unbounded slow
// end) or came within a hair of it (a slow end thousands of times the estimate) wherever the
// error neared the efficiency, which the fit never said.
// What a prediction's range moves: each fitted term by one standard error; where the fit left
// none (a one-row fit, or no more rows than terms), the estimate divided and multiplied by one
// plus the fit's worst leave-one-out error, if known; else nothing, the range being unknown.
enum class RangeBasis : std::uint8_t { term_errors, leave_one_out, none };
constexpr const char* range_basis_name(RangeBasis b) noexcept {
    switch (b) {
        case RangeBasis::term_errors: return "one standard error of each fitted term";
        case RangeBasis::leave_one_out: return "the worst leave-one-out error (the fit left no term's error)";
        case RangeBasis::none: return "none: the fit left no term's error and no leave-one-out error, so the range is unknown";
    }
    return "?";
}
struct PredictionRange {
    DecodeStep ceiling;   // the ideal roofline
    DecodeStep estimate;  // with the fitted terms
    Seconds fastest{};    // never below the ceiling
    Seconds slowest{};
    RangeBasis basis = RangeBasis::term_errors;
};
inline PredictionRange predict_range(const Deployment& d, const Model& m, const Workload& w, const Calibration& c,
                                     std::optional<double> leave_one_out_worst = std::nullopt) {
    PredictionRange r;
    Workload ideal = w;
    ideal.efficiency = Efficiency{};
    r.ceiling = decode_step(d, m, ideal);
    r.estimate = predict(d, m, w, c);
    // A standard error is a spread: negative or not a number, it would turn the range inside out.
    const auto require_spread = [](const char* what, std::optional<double> e) {
        if (e && !(*e >= 0 && std::isfinite(*e))) throw error("", what, number_text(*e), "a standard error: finite and at least 0");
    };
    const auto seconds = [](const std::optional<Seconds>& e) { return e ? std::optional<double>(e->in(s)) : std::nullopt; };
    require_spread("bandwidth_efficiency_error", c.bandwidth_efficiency_error);
    require_spread("compute_efficiency_error", c.compute_efficiency_error);
    require_spread("overhead_error", seconds(c.overhead_error));
    require_spread("per_layer_error", seconds(c.per_layer_error));
    require_spread("per_moe_layer_error", seconds(c.per_moe_layer_error));
    require_spread("per_sequence_error", seconds(c.per_sequence_error));
    require_spread("per_message_error", seconds(c.per_message_error));
    if (leave_one_out_worst) require_spread("leave_one_out_worst", leave_one_out_worst);
    const bool errors = c.bandwidth_efficiency_error || c.compute_efficiency_error || c.overhead_error || c.per_layer_error ||
                        c.per_moe_layer_error || c.per_sequence_error || c.per_message_error;
    if (!errors) {
        const Seconds at = r.estimate.step_time;
        r.fastest = r.slowest = at;
        r.basis = RangeBasis::none;
        if (leave_one_out_worst) {
            const double by = 1 + *leave_one_out_worst;
            r.fastest = at / by < r.ceiling.step_time ? r.ceiling.step_time : at / by;
            r.slowest = at * by;
            r.basis = RangeBasis::leave_one_out;
        }
        return r;
    }
    const auto moved = [&](double sign) {
        Calibration x = c;
        const auto eff = [&](double v, const std::optional<double>& e) {
            if (!e) return v;
            const double reciprocal = 1 / v - sign * *e / (v * v);
            // Within Workload's bounds: at most 1, and at least 1e-6 (an error of 1e6 on 0.5).
            return reciprocal <= 1 ? 1.0 : std::max(1e-6, 1 / reciprocal);
        };
        x.bandwidth_efficiency = eff(c.bandwidth_efficiency, c.bandwidth_efficiency_error);
        x.compute_efficiency = eff(c.compute_efficiency, c.compute_efficiency_error);
        // Within the bounds Workload's validate() puts on each time.
        const auto time = [&](Seconds v, const std::optional<Seconds>& e, Seconds most) {
            const Seconds out = e ? v - sign * *e : v;
            return out < Seconds{} ? Seconds{} : (out > most ? most : out);
        };
        x.overhead = time(c.overhead, c.overhead_error, most_overhead_per_step);
        x.per_layer = time(c.per_layer, c.per_layer_error, most_overhead_per_unit);
        x.per_moe_layer = time(c.per_moe_layer, c.per_moe_layer_error, most_overhead_per_unit);
        x.per_sequence = time(c.per_sequence, c.per_sequence_error, most_overhead_per_unit);
        x.per_message = time(c.per_message, c.per_message_error, most_overhead_per_unit);
        return predict(d, m, w, x).step_time;
    };
    r.fastest = moved(+1);
    r.slowest = moved(-1);
    return r;
}

}  // namespace ridgeline
