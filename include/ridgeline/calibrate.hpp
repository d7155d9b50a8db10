// Calibration: from measured steps on one device, fit the overhead model's terms (workload.hpp's
// Efficiency) by bounded least squares on the relative error,
//     measured ~ max(memory / bandwidth efficiency, compute / compute efficiency)
//                + links + a fixed time per step + a time per layer,
// summed over the steps a row timed (one decode step, or a whole request's prefill and decode:
// observation.hpp), with each efficiency in (0, 1] and each time at least 0; then predict other
// settings with them,
// with a range. It never refuses what it can fit: one row fits the fixed time with the
// efficiencies held at a stated default; rows faster than their own ceiling are set aside, named.
// Not constexpr: it works on std::vectors (see operators.hpp).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "decode.hpp"
#include "observation.hpp"
#include "prefill.hpp"
#include "serving.hpp"

namespace ridgeline {

// Which terms a fit may move; the rest stay at `held`.
struct CalibrationTerms {
    bool bandwidth = true;
    bool compute = true;     // only moves when some row is compute-bound
    bool overhead = true;    // a fixed time per step
    bool per_layer = false;  // a time per layer per step (kernel launches without CUDA graphs)
    // Whether the attention reads each KV head once per query head (Efficiency::kv_per_query_head)
    // is chosen by the fit: both readings are fitted and the one with the smaller rms error kept
    // (only rows on grouped-query models can tell them apart). Off: held's reading.
    bool kv_reads = true;
    Efficiency held{};       // the values of terms not fitted (a one-row fit holds both efficiencies)
};

struct Calibration {
    double bandwidth_efficiency = 1;  // fitted fraction of peak bandwidth
    double compute_efficiency = 1;
    Seconds overhead{};               // fitted fixed time per step
    Seconds per_layer{};              // fitted time per layer per step
    bool kv_per_query_head = false;   // the attention's KV reads, as chosen (Efficiency::kv_per_query_head)
    // One standard error of each fitted term (nullopt: not fitted, or too few rows to say).
    std::optional<double> bandwidth_efficiency_error, compute_efficiency_error;
    std::optional<Seconds> overhead_error, per_layer_error;
    std::vector<std::size_t> used;      // the observations fitted, by index
    std::vector<std::string> set_aside;  // "observations[i]: why" for each row not fitted
    std::vector<Seconds> predicted;      // for each observation, with the fit
    std::vector<Seconds> residuals;      // measured - predicted
    double rms_relative_error = 0;       // over the rows fitted: sqrt(mean((residual / measured)^2))
    std::string explanation;             // which term explains the gap to the ceiling, in words

    [[nodiscard]] constexpr Efficiency efficiency() const {
        return Efficiency{bandwidth_efficiency, compute_efficiency, overhead, per_layer, kv_per_query_head};
    }
};

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
};
inline std::string explain_gap(const GapParts& p, Seconds ceiling) {
    const Seconds total = p.bandwidth + p.compute + p.overhead + p.per_layer;
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
    const std::array<Part, 4> parts{Part{"bandwidth efficiency below peak", p.bandwidth}, Part{"compute efficiency below peak", p.compute},
                                    Part{"a fixed time per step", p.overhead}, Part{"a time per layer (kernel launches)", p.per_layer}};
    const Part* most = &parts[0];
    for (const Part& x : parts)
        if (x.t > most->t) most = &x;
    const double share = static_cast<double>(most->t / total);
    return std::string(share > 0.5 ? "mostly " : "largest part: ") + most->words + ", " + ms_text(most->t) + " of the " +
           ms_text(total) + " ms a step spends above its " + ms_text(ceiling) + " ms ceiling";
}

namespace calibrate_detail {
// Least squares on the variables in `free` (bit k: variable k), weighted rows; false when singular.
inline bool solve(const std::vector<std::array<double, 4>>& X, const std::vector<double>& y, unsigned free,
                  std::array<double, 4>& v, std::array<std::array<double, 4>, 4>* inverse = nullptr) {
    std::array<std::size_t, 4> idx{};
    std::size_t k = 0;
    for (std::size_t j = 0; j < 4; ++j)
        if (free & (1u << j)) idx[k++] = j;
    v = {};
    if (k == 0) return true;
    // Normal equations, k x k, with the identity appended for the inverse.
    double A[4][8] = {};
    double b[4] = {};
    for (std::size_t r = 0; r < X.size(); ++r)
        for (std::size_t i = 0; i < k; ++i) {
            b[i] += X[r][idx[i]] * y[r];
            for (std::size_t j = 0; j < k; ++j) A[i][j] += X[r][idx[i]] * X[r][idx[j]];
        }
    for (std::size_t i = 0; i < k; ++i) A[i][4 + i] = 1;
    double scale = 0;
    for (std::size_t i = 0; i < k; ++i) scale = std::max(scale, std::abs(A[i][i]));
    for (std::size_t c = 0; c < k; ++c) {  // Gauss-Jordan with partial pivoting
        std::size_t p = c;
        for (std::size_t r = c + 1; r < k; ++r)
            if (std::abs(A[r][c]) > std::abs(A[p][c])) p = r;
        if (!(std::abs(A[p][c]) > 1e-12 * scale)) return false;
        for (std::size_t j = 0; j < 8; ++j) std::swap(A[c][j], A[p][j]);
        std::swap(b[c], b[p]);
        const double d = A[c][c];
        for (std::size_t j = 0; j < 8; ++j) A[c][j] /= d;
        b[c] /= d;
        for (std::size_t r = 0; r < k; ++r) {
            if (r == c) continue;
            const double f = A[r][c];
            for (std::size_t j = 0; j < 8; ++j) A[r][j] -= f * A[c][j];
            b[r] -= f * b[c];
        }
    }
    for (std::size_t i = 0; i < k; ++i) v[idx[i]] = b[i];
    if (inverse) {
        *inverse = {};
        for (std::size_t i = 0; i < k; ++i)
            for (std::size_t j = 0; j < k; ++j) (*inverse)[idx[i]][idx[j]] = A[i][4 + j];
    }
    return true;
}

// A row as the fit sees it, per output token at the ideal rates: its steps' memory and compute
// times (each step is bound by the larger once the efficiencies divide them), the time that no
// term moves (links), and how many stages and layers pay the per-step and per-layer times.
struct Part {
    double memory = 0, compute = 0;  // seconds, every pipeline stage
    double weight = 1;               // steps this part stands for, per output token (-1: taken away; row())
};
struct Row {
    std::vector<Part> parts;
    double fixed = 0, layers = 0, measured = 0, stages = 1;  // seconds; all layers; pipeline stages
};

// Decode steps of a whole-request row sampled at this many contexts at most, each standing for
// its share of the steps: a step's times are linear in the context between window corners, so
// the sum is exact there and off by under a step's change elsewhere.
inline constexpr std::int64_t decode_samples = 64;

inline Row row(const Deployment& d, const Observation& o, bool kv_per_query_head) {
    Row r;
    r.stages = static_cast<double>(o.parallel.pipeline);
    r.layers = static_cast<double>(layer_count(o.model));
    r.measured = o.measured_step.in(s);
    Workload ideal = o.workload;
    ideal.efficiency = Efficiency{};
    ideal.efficiency.kv_per_query_head = kv_per_query_head;  // what the bytes are, not an overhead
    const auto add_step = [&](const DecodeStep& step, double weight) {
        r.parts.push_back(Part{(r.stages * step.memory_time).in(s), (r.stages * step.compute_time).in(s), weight});
        const Seconds roof = step.bound == Bound::compute ? step.compute_time : step.memory_time;
        r.fixed += weight * (step.step_time - r.stages * roof).in(s);
    };
    const Requests& q = o.requests;
    if (q.timed == Timed::decode_steps) {
        add_step(decode_step(d, o.model, ideal), 1);
        return r;
    }
    validate(q);
    require_context_within(o.model, q.prompt + q.output, "prompt + output");
    const auto output = static_cast<double>(q.output);
    // Decode steps at contexts first .. first + steps - 1, sampled, each standing for its share.
    const auto add_decode_steps = [&](std::int64_t first, std::int64_t steps) {
        const std::int64_t samples = steps < decode_samples ? steps : decode_samples;
        for (std::int64_t k = 0; k < samples; ++k) {
            const std::int64_t from = k * steps / samples, to = (k + 1) * steps / samples;
            ideal.context = first + (from + to) / 2;
            add_step(decode_step(d, o.model, ideal), static_cast<double>(to - from) / output);
        }
    };
    if (q.timed == Timed::whole_requests) {
        // The prefill makes the first token (generation.hpp): one step through every stage.
        const Prefill p = prefill(d, o.model, ideal, q.prompt);
        r.parts.push_back(Part{(r.stages * p.memory_time).in(s), (r.stages * p.compute_time).in(s), 1 / output});
        r.fixed += (p.time - r.stages * (p.memory_time < p.compute_time ? p.compute_time : p.memory_time)).in(s) / output;
        add_decode_steps(q.prompt, q.output - 1);
        return r;
    }
    // Interleaved prefill (serving.hpp's aggregated TPOT): the mean decode step, plus the
    // mid-context step with its share of prefill tokens less the same step without them (a part
    // of weight -1, so each keeps its own bound, as serve() takes the larger of each).
    add_decode_steps(q.prompt, q.output);
    const InterleavedPrefill ip = interleaved_prefill(d, o.model, ideal, Traffic{q.prompt, q.output});
    r.parts.push_back(Part{(r.stages * ip.memory).in(s), (r.stages * ip.compute).in(s), 1});
    r.parts.push_back(Part{(r.stages * ip.decode.memory_time).in(s), (r.stages * ip.decode.compute_time).in(s), -1});
    r.fixed += ip.links_added.in(s);
    return r;
}

// Whether a model has grouped-query attention whose KV heads serve more than one query head
// (the rows on which Efficiency::kv_per_query_head changes the bytes).
inline bool shares_kv_heads(const Model& m) {
    for (const auto& g : m)
        if (const Gqa* a = std::get_if<Gqa>(&g.spec.attention); a && a->heads > a->kv_heads) return true;
    return false;
}

inline Calibration fit(const Hardware& hw, const std::vector<Observation>& observations, const CalibrationTerms& terms, bool kv_per_query_head);
}  // namespace calibrate_detail

// Fits `terms` to the observations on `hw`. Variables (each >= 0): 1/bandwidth efficiency - 1,
// 1/compute efficiency - 1, the fixed time, the time per layer; every subset of them is solved
// in closed form and the best feasible one kept (at most 16 small solves), with each row's
// bound (memory or compute) settled by iteration. With terms.kv_reads, the attention's KV reads
// (once per KV head, or once per query head) are chosen by fitting both and keeping the smaller
// rms error.
inline Calibration calibrate(const Hardware& hw, const std::vector<Observation>& observations, CalibrationTerms terms = {}) {
    bool choose = terms.kv_reads;
    if (choose) {
        choose = false;
        for (const Observation& o : observations) choose = choose || calibrate_detail::shares_kv_heads(o.model);
    }
    if (!choose) return calibrate_detail::fit(hw, observations, terms, terms.held.kv_per_query_head);
    Calibration shared = calibrate_detail::fit(hw, observations, terms, false);
    Calibration per_query = calibrate_detail::fit(hw, observations, terms, true);
    // The reading is one more thing fitted, so it must pay for itself: Akaike's criterion for
    // one parameter, n ln(rss per query / rss shared) < -2, i.e. the rms error below exp(-1/n)
    // of the shared reading's (0.72 at 3 rows, 0.92 at 12). Rows that cannot tell the readings
    // apart keep the physical one.
    const auto n = static_cast<double>(shared.used.size());
    return per_query.rms_relative_error < std::exp(-1 / n) * shared.rms_relative_error ? per_query : shared;
}

inline Calibration calibrate_detail::fit(const Hardware& hw, const std::vector<Observation>& observations, const CalibrationTerms& terms,
                                         bool kv_per_query_head) {
    if (observations.empty()) throw error("", "observations", "none", "at least one measurement");
    validate(Workload{.efficiency = terms.held});
    Calibration c;
    std::vector<calibrate_detail::Row> rows(observations.size());
    for (std::size_t i = 0; i < observations.size(); ++i) {
        const Observation& o = observations[i];
        if (!(o.measured_step > Seconds{}) || !is_finite(o.measured_step))
            throw error("", "observations[" + std::to_string(i) + "].measured_step", number_text(o.measured_step.in(ms)) + " ms",
                        "a positive, finite time");
        try {
            rows[i] = calibrate_detail::row(Deployment{hw, o.parallel}, o, kv_per_query_head);
        } catch (const error& e) {
            throw error("", "observations[" + std::to_string(i) + "]." + e.path(), e.value(), e.expected());
        }
        // A row faster than its own ideal ceiling is not a measurement of the stated setting.
        const Seconds ceiling = time_per_output_token(Deployment{hw, o.parallel}, o, Efficiency{});
        if (o.measured_step < ceiling)
            c.set_aside.push_back("observations[" + std::to_string(i) + "]: " + number_text(o.measured_step.in(ms)) +
                                  " ms, faster than this setting's ideal ceiling of " + number_text(ceiling.in(ms)) + " ms");
        else
            c.used.push_back(i);
    }
    if (c.used.empty())
        throw error("", "observations", "no row at or above its own ceiling (" + c.set_aside.front() + ")",
                    "at least one measurement of its stated setting (diagnose says what would explain a faster one)");

    // Terms that can move: one row fits the fixed time only (or the per-layer time alone).
    unsigned allowed = 0;
    const bool one = c.used.size() == 1;
    if (terms.bandwidth && !one) allowed |= 1u;
    if (terms.compute && !one) allowed |= 2u;
    if (terms.overhead) allowed |= 4u;
    if (terms.per_layer && !(one && terms.overhead)) allowed |= 8u;
    const double held_a = 1 / terms.held.bandwidth, held_c = 1 / terms.held.compute;
    const double held_o = terms.held.overhead.in(s), held_l = terms.held.per_layer.in(s);

    std::array<double, 4> best{};  // a - 1, c - 1, o, l
    std::array<std::array<double, 4>, 4> inverse{};
    double best_rss = -1;
    // Each step's bound, settled by iteration under the fitted efficiencies.
    std::vector<std::vector<bool>> compute_bound(rows.size());
    for (std::size_t i : c.used)
        for (const calibrate_detail::Part& p : rows[i].parts) compute_bound[i].push_back(p.compute > p.memory);
    // A row's memory and compute times split by bound, and its roofline time, under `bound`.
    struct Split {
        double memory = 0, compute = 0, roof = 0;
    };
    const auto split = [&](std::size_t i) {
        Split x;
        for (std::size_t k = 0; k < rows[i].parts.size(); ++k) {
            const calibrate_detail::Part& p = rows[i].parts[k];
            if (compute_bound[i][k])
                x.compute += p.weight * p.compute;
            else
                x.memory += p.weight * p.memory;
        }
        x.roof = x.memory + x.compute;
        return x;
    };
    for (int iteration = 0; iteration < 20; ++iteration) {
        // Weighted by 1/measured: least squares on the relative error.
        std::vector<std::array<double, 4>> X;
        std::vector<double> y;
        for (std::size_t i : c.used) {
            const calibrate_detail::Row& r = rows[i];
            const double w = 1 / r.measured;
            const Split b = split(i);
            // The fixed time is paid on every pipeline stage (decode.hpp); the per-layer time on every layer.
            std::array<double, 4> x{b.memory * w, b.compute * w, r.stages * w, r.layers * w};
            double target = r.measured - r.fixed - b.roof;
            // Terms held, not fitted, are moved to the target.
            if (!(allowed & 1u)) target -= (held_a - 1) * b.memory;
            if (!(allowed & 2u)) target -= (held_c - 1) * b.compute;
            if (!(allowed & 4u)) target -= held_o * r.stages;
            if (!(allowed & 8u)) target -= held_l * r.layers;
            for (unsigned k = 0; k < 4; ++k)
                if (!(allowed & (1u << k))) x[k] = 0;
            X.push_back(x);
            y.push_back(target * w);
        }
        best_rss = -1;
        for (unsigned subset = 0; subset < 16; ++subset) {
            if ((subset & allowed) != subset) continue;
            std::array<double, 4> v{};
            std::array<std::array<double, 4>, 4> inv{};
            if (!calibrate_detail::solve(X, y, subset, v, &inv)) continue;
            bool feasible = true;
            for (double x : v) feasible = feasible && x >= -1e-15;
            if (!feasible) continue;
            for (double& x : v) x = x < 0 ? 0 : x;
            double rss = 0;
            for (std::size_t r = 0; r < X.size(); ++r) {
                double p = 0;
                for (std::size_t k = 0; k < 4; ++k) p += X[r][k] * v[k];
                rss += (y[r] - p) * (y[r] - p);
            }
            if (best_rss < 0 || rss < best_rss - 1e-18) {
                best_rss = rss;
                best = v;
                inverse = inv;
            }
        }
        // Settle each row's bound under the fitted efficiencies.
        const double a = (allowed & 1u) ? 1 + best[0] : held_a, cc = (allowed & 2u) ? 1 + best[1] : held_c;
        bool changed = false;
        for (std::size_t i : c.used)
            for (std::size_t k = 0; k < rows[i].parts.size(); ++k) {
                const calibrate_detail::Part& p = rows[i].parts[k];
                const bool cb = cc * p.compute > a * p.memory;
                changed = changed || cb != compute_bound[i][k];
                compute_bound[i][k] = cb;
            }
        if (!changed) break;
    }
    const double a = (allowed & 1u) ? 1 + best[0] : held_a, cc = (allowed & 2u) ? 1 + best[1] : held_c;
    c.bandwidth_efficiency = 1 / a;
    c.compute_efficiency = 1 / cc;
    c.overhead = s((allowed & 4u) ? best[2] : held_o);
    c.per_layer = s((allowed & 8u) ? best[3] : held_l);
    c.kv_per_query_head = kv_per_query_head;

    // Standard errors of the terms that moved, where the rows outnumber them.
    unsigned moved = 0, count = 0;
    for (unsigned k = 0; k < 4; ++k)
        if ((allowed & (1u << k)) && best[k] > 0) moved |= 1u << k, ++count;
    const double n = static_cast<double>(c.used.size());
    if (n > count && count > 0) {
        const double sigma2 = best_rss / (n - count);
        const auto se = [&](unsigned k) { return std::sqrt(std::max(0.0, sigma2 * inverse[k][k])); };
        if (moved & 1u) c.bandwidth_efficiency_error = se(0) / (a * a);  // d(1/a) = da / a^2
        if (moved & 2u) c.compute_efficiency_error = se(1) / (cc * cc);
        if (moved & 4u) c.overhead_error = s(se(2));
        if (moved & 8u) c.per_layer_error = s(se(3));
    }

    // Predictions, residuals, and where the time goes.
    double sq = 0;
    GapParts parts;
    Seconds ceiling{};
    for (std::size_t i = 0; i < observations.size(); ++i) {
        const Observation& o = observations[i];
        const Seconds predicted = time_per_output_token(Deployment{hw, o.parallel}, o, c.efficiency());
        c.predicted.push_back(predicted);
        c.residuals.push_back(o.measured_step - predicted);
    }
    for (std::size_t i : c.used) {
        const calibrate_detail::Row& r = rows[i];
        const double rel = c.residuals[i].in(s) / r.measured;
        sq += rel * rel / n;
        for (const calibrate_detail::Part& p : r.parts) {
            const bool cb = cc * p.compute > a * p.memory;
            parts.bandwidth += s(cb ? 0 : p.weight * (a - 1) * p.memory) / n;
            parts.compute += s(cb ? p.weight * (cc - 1) * p.compute : 0) / n;
            ceiling += s(p.weight * std::max(p.memory, p.compute)) / n;
        }
        parts.overhead += r.stages * c.overhead / n;
        parts.per_layer += s(c.per_layer.in(s) * r.layers) / n;
        ceiling += s(r.fixed) / n;
    }
    c.rms_relative_error = std::sqrt(sq);
    c.explanation = explain_gap(parts, ceiling);
    if (kv_per_query_head) c.explanation += "; the attention reads each KV head once per query head (no GQA sharing)";
    return c;
}

// Leave-one-out: each row predicted by a fit on the others (the rows set aside as faster than
// their ceiling are not predicted). Relative errors |predicted - measured| / measured, in row
// order; empty when fewer than two rows can be fitted.
inline std::vector<double> leave_one_out(const Hardware& hw, const std::vector<Observation>& observations,
                                         CalibrationTerms terms = {}) {
    std::vector<double> errors;
    const Calibration all = calibrate(hw, observations, terms);
    if (all.used.size() < 2) return errors;
    for (const std::size_t i : all.used) {
        std::vector<Observation> rest;
        for (const std::size_t j : all.used)
            if (j != i) rest.push_back(observations[j]);
        const Calibration c = calibrate(hw, rest, terms);
        const Observation& o = observations[i];
        const Seconds predicted = time_per_output_token(Deployment{hw, o.parallel}, o, c.efficiency());
        errors.push_back(std::abs(static_cast<double>((predicted - o.measured_step) / o.measured_step)));
    }
    return errors;
}

// Which of `candidates` (term sets, the simplest first) predicts these rows best: the least mean
// of leave_one_out's errors, the earlier on a tie. The first when fewer than three rows can be
// fitted (two leave one row to fit, which says nothing about the terms beyond a fixed time).
inline std::size_t choose_terms(const Hardware& hw, const std::vector<Observation>& observations,
                                const std::vector<CalibrationTerms>& candidates) {
    if (candidates.empty()) throw error("", "candidates", "none", "at least one term set");
    std::size_t best = 0;
    double best_error = -1;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
        const std::vector<double> e = leave_one_out(hw, observations, candidates[k]);
        if (e.size() < 3) return 0;
        double mean = 0;
        for (double x : e) mean += x / static_cast<double>(e.size());
        if (best_error < 0 || mean < best_error) best = k, best_error = mean;
    }
    return best;
}

// Nested leave-one-out: each row predicted by a fit on the others with the term set that
// choose_terms picks using those others alone, so the choice never sees the row it predicts.
// Errors as leave_one_out's, in row order.
inline std::vector<double> nested_leave_one_out(const Hardware& hw, const std::vector<Observation>& observations,
                                                const std::vector<CalibrationTerms>& candidates) {
    std::vector<double> errors;
    if (candidates.empty()) throw error("", "candidates", "none", "at least one term set");
    const Calibration all = calibrate(hw, observations, candidates.front());
    if (all.used.size() < 2) return errors;
    for (const std::size_t i : all.used) {
        std::vector<Observation> rest;
        for (const std::size_t j : all.used)
            if (j != i) rest.push_back(observations[j]);
        const Calibration c = calibrate(hw, rest, candidates[choose_terms(hw, rest, candidates)]);
        const Observation& o = observations[i];
        const Seconds predicted = time_per_output_token(Deployment{hw, o.parallel}, o, c.efficiency());
        errors.push_back(std::abs(static_cast<double>((predicted - o.measured_step) / o.measured_step)));
    }
    return errors;
}

// A prediction's range from the fitted terms' standard errors: each term moved by one standard
// error in the direction that slows (or speeds) the step, within its bounds.
struct PredictionRange {
    DecodeStep ceiling;   // the ideal roofline
    DecodeStep estimate;  // with the fitted terms
    Seconds fastest{};
    Seconds slowest{};
};
inline PredictionRange predict_range(const Deployment& d, const Model& m, const Workload& w, const Calibration& c) {
    PredictionRange r;
    Workload ideal = w;
    ideal.efficiency = Efficiency{};
    r.ceiling = decode_step(d, m, ideal);
    r.estimate = predict(d, m, w, c);
    const auto moved = [&](double sign) {
        Calibration x = c;
        const auto eff = [&](double v, const std::optional<double>& e) {
            const double out = e ? v + sign * *e : v;
            return out > 1 ? 1.0 : (out < 1e-6 ? 1e-6 : out);
        };
        x.bandwidth_efficiency = eff(c.bandwidth_efficiency, c.bandwidth_efficiency_error);
        x.compute_efficiency = eff(c.compute_efficiency, c.compute_efficiency_error);
        const auto time = [&](Seconds v, const std::optional<Seconds>& e) {
            const Seconds out = e ? v - sign * *e : v;
            return out < Seconds{} ? Seconds{} : out;
        };
        x.overhead = time(c.overhead, c.overhead_error);
        x.per_layer = time(c.per_layer, c.per_layer_error);
        return predict(d, m, w, x).step_time;
    };
    r.fastest = moved(+1);
    r.slowest = moved(-1);
    return r;
}

}  // namespace ridgeline
