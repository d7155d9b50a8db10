// Bounded least squares for calibration's terms over prepared rows (calibrate_rows.hpp):
//     measured ~ fixed + sum_k w_k max(a m_k, c c_k) + o stages + l layers + e moe_layers + q sequences
//                + g messages
// with a = 1 / bandwidth efficiency >= 1, c = 1 / compute efficiency >= 1, o, l, e, q, g >= 0, each row
// weighted by 1 / measured (least squares on the relative error).
//
// Why a search: the max makes the problem piecewise linear. For a ratio rho = c / a every step's
// bound is settled (compute-bound where rho > m_k / c_k), so the steps' ratios cut rho's axis into
// intervals on which the fit is linear. The optimum lies inside an interval (a linear fit whose
// rho falls in it) or on a cut (rho fixed there, each step costing a max(m_k, rho c_k)). Settling
// the bounds by iterating from the ideal ones, as before, stops at the first consistent interval:
// a group whose arriving prompts' prefill only turns compute-bound at 10% compute efficiency was
// fitted at 100% with twice the error. So rho is profiled on a grid 5% apart (the fit with rho
// fixed at each point, a feasible fit itself), and every interval and cut within the best grid
// cells is solved exactly; each solve tries every subset of the terms held at their bounds (an
// active set) and keeps the least error. Global up to the grid: a minimum in a basin narrower
// than the grid's 5%, beside three lower grid points, could be missed.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "calibrate_rows.hpp"

namespace ridgeline::calibrate_detail {

// Least squares on the variables in `free` (bit k: variable k) from normal equations A v = b;
// false when singular. `inverse` gets A's inverse on those variables (for standard errors). The
// columns are scaled to unit length first, so the singularity test is relative to each column's
// own size: a row's link messages run to thousands, its memory time to a fraction of a second.
inline constexpr std::size_t variables = 7;  // a, c, o, l, e, q, g
using Vector = std::array<double, variables>;

inline bool solve_normal(const std::array<Vector, variables>& A0, const Vector& b0, unsigned free, Vector& v,
                         Vector& inverse_diagonal) {
    std::array<std::size_t, variables> idx{};
    std::size_t k = 0;
    for (std::size_t j = 0; j < variables; ++j)
        if (free & (1u << j)) idx[k++] = j;
    v = {};
    inverse_diagonal = {};
    if (k == 0) return true;
    double A[variables][2 * variables] = {};
    double b[variables] = {};
    double unit[variables] = {};  // each column's length: the scaled system has a unit diagonal
    for (std::size_t i = 0; i < k; ++i) {
        if (!(A0[idx[i]][idx[i]] > 0)) return false;  // a column of zeros: nothing to fit it by
        unit[i] = std::sqrt(A0[idx[i]][idx[i]]);
    }
    for (std::size_t i = 0; i < k; ++i) {
        b[i] = b0[idx[i]] / unit[i];
        for (std::size_t j = 0; j < k; ++j) A[i][j] = A0[idx[i]][idx[j]] / (unit[i] * unit[j]);
        A[i][variables + i] = 1;
    }
    for (std::size_t c = 0; c < k; ++c) {  // Gauss-Jordan with partial pivoting
        std::size_t p = c;
        for (std::size_t r = c + 1; r < k; ++r)
            if (std::abs(A[r][c]) > std::abs(A[p][c])) p = r;
        if (!(std::abs(A[p][c]) > 1e-12)) return false;
        for (std::size_t j = 0; j < 2 * variables; ++j) std::swap(A[c][j], A[p][j]);
        std::swap(b[c], b[p]);
        const double d = A[c][c];
        for (std::size_t j = 0; j < 2 * variables; ++j) A[c][j] /= d;
        b[c] /= d;
        for (std::size_t r = 0; r < k; ++r) {
            if (r == c) continue;
            const double f = A[r][c];
            for (std::size_t j = 0; j < 2 * variables; ++j) A[r][j] -= f * A[c][j];
            b[r] -= f * b[c];
        }
    }
    for (std::size_t i = 0; i < k; ++i) {
        v[idx[i]] = b[i] / unit[i];
        inverse_diagonal[idx[i]] = A[i][variables + i] / (unit[i] * unit[i]);
    }
    return true;
}

// The values of the terms a fit does not move, as a, c, o (s), l (s), e (s), q (s), g (s).
struct Held {
    double a = 1, c = 1, o = 0, l = 0, e = 0, q = 0, g = 0;
};

// A fit of the terms and how well it fits (by the prepared rows).
struct Solution {
    double a = 1, c = 1, o = 0, l = 0, e = 0, q = 0, g = 0;
    double rss = -1;  // sum of squared relative residuals; -1: nothing fitted yet
    std::optional<double> se_a, se_c, se_o, se_l, se_e, se_q, se_g;  // one standard error of each where moved and estimable
};

// Fits the terms in `allowed` (bit 0: a, 1: c, 2: o, 3: l, 4: e, 5: q, 6: g) to `rows`, the rest at `held`, with c
// at most `c_most` where it moves (the lowest compute efficiency a fit may claim).
inline Solution fit_terms(const std::vector<const Row*>& rows, unsigned allowed, const Held& held,
                          double c_most = std::numeric_limits<double>::infinity()) {
    const std::size_t n = rows.size();
    const bool free_a = allowed & 1u, free_c = allowed & 2u;
    // Each step that changes bound somewhere on rho's axis, by its ratio; the rest never do.
    struct Step {
        double ratio;
        std::size_t row;
        double memory, compute;  // weighted
    };
    std::vector<Step> steps;
    std::vector<double> base_memory(n), base_compute(n);  // the bound of every step as rho -> 0+
    for (std::size_t i = 0; i < n; ++i)
        for (const Part& p : rows[i]->parts) {
            const double wm = p.weight * p.memory, wc = p.weight * p.compute;
            if (p.compute > 0 && p.memory > 0) steps.push_back(Step{p.memory / p.compute, i, wm, wc});
            if (p.compute > 0 && p.memory > 0) base_memory[i] += wm;
            else if (p.compute > 0) base_compute[i] += wc;
            else base_memory[i] += wm;
        }
    std::sort(steps.begin(), steps.end(), [](const Step& x, const Step& y) { return x.ratio < y.ratio; });
    // Each row's weighted target with the held times taken off.
    std::vector<double> weight(n), target(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Row& r = *rows[i];
        weight[i] = 1 / r.measured;
        target[i] = r.measured - r.fixed - ((allowed & 4u) ? 0 : held.o * r.stages) - ((allowed & 8u) ? 0 : held.l * r.layers) -
                    ((allowed & 16u) ? 0 : held.e * r.moe_layers) - ((allowed & 32u) ? 0 : held.q * r.sequences) -
                    ((allowed & 64u) ? 0 : held.g * r.messages);
    }

    // The sweep's state: each row's memory and compute under the bounds of the steps below `next`.
    std::vector<double> memory, compute;
    std::size_t next = 0;
    const auto reset = [&] {
        memory = base_memory;
        compute = base_compute;
        next = 0;
    };
    const auto advance_below = [&](double rho) {  // steps with ratio < rho turn compute-bound
        for (; next < steps.size() && steps[next].ratio < rho; ++next) {
            memory[steps[next].row] -= steps[next].memory;
            compute[steps[next].row] += steps[next].compute;
        }
    };

    // Prefer the smaller error; on a tie, the higher compute efficiency, then the higher bandwidth
    // efficiency: where no step is compute-bound the compute efficiency is not identified, and
    // the fit must not claim one the rows never showed.
    const double tie = 1e-12 * static_cast<double>(n);
    const auto better = [&](const Solution& x, const Solution& y) {
        if (y.rss < 0) return x.rss >= 0;
        if (x.rss < 0) return false;
        if (x.rss < y.rss - tie) return true;
        if (x.rss > y.rss + tie) return false;
        return x.c < y.c * (1 - 1e-12) || (x.c <= y.c * (1 + 1e-12) && x.a < y.a * (1 - 1e-12));
    };
    Solution best;
    // The best least-squares fit over every subset of `vars` with columns x(i) and target y(i),
    // each solution turned into (a, c, o, l, e, q, g) by `terms` and kept when `accept` takes its rho.
    const auto fit_subsets = [&](unsigned vars, auto&& columns, auto&& terms, auto&& accept, bool rho_fitted) {
        Solution local;
        std::array<Vector, variables> A{};
        Vector b{};
        std::vector<Vector> X(n);
        std::vector<double> Y(n);
        for (std::size_t i = 0; i < n; ++i) {
            columns(i, X[i], Y[i]);
            for (double& x : X[i]) x *= weight[i];
            Y[i] *= weight[i];
            for (std::size_t j = 0; j < variables; ++j) {
                b[j] += X[i][j] * Y[i];
                for (std::size_t k = 0; k < variables; ++k) A[j][k] += X[i][j] * X[i][k];
            }
        }
        for (unsigned subset = 0; subset < (1u << variables); ++subset) {
            if ((subset & vars) != subset) continue;
            Vector v{}, inv{};
            if (!solve_normal(A, b, subset, v, inv)) continue;
            bool feasible = true;
            for (double x : v) feasible = feasible && x >= -1e-15;
            if (!feasible) continue;
            for (double& x : v) x = x < 0 ? 0 : x;
            Solution s = terms(v);
            const double rho = s.c / s.a;
            if (!accept(rho) || (free_c && s.c > c_most * (1 + 1e-12))) continue;
            s.rss = 0;
            for (std::size_t i = 0; i < n; ++i) {
                double p = 0;
                for (std::size_t k = 0; k < variables; ++k) p += X[i][k] * v[k];
                s.rss += (Y[i] - p) * (Y[i] - p);
            }
            if (!better(s, local)) continue;
            // Standard errors of the terms that moved, where the rows outnumber the fitted terms
            // (on a cut, rho counts as one and the errors are conditional on it, so c's is a's
            // times rho and understates what rho's own uncertainty adds).
            unsigned moved = 0, count = rho_fitted ? 1 : 0;
            for (unsigned k = 0; k < variables; ++k)
                if ((subset & (1u << k)) && v[k] > 0) moved |= 1u << k, ++count;
            if (static_cast<double>(n) > count) {
                const double sigma2 = s.rss / (static_cast<double>(n) - count);
                const auto se = [&](unsigned k) { return std::sqrt(std::max(0.0, sigma2 * inv[k])); };
                if (moved & 1u) s.se_a = se(0);
                if (moved & 2u) s.se_c = se(1);
                if ((moved & 1u) && rho_fitted) s.se_c = rho * se(0);  // c = rho a on a cut
                if (moved & 4u) s.se_o = se(2);
                if (moved & 8u) s.se_l = se(3);
                if (moved & 16u) s.se_e = se(4);
                if (moved & 32u) s.se_q = se(5);
                if (moved & 64u) s.se_g = se(6);
            }
            local = s;
        }
        if (better(local, best)) best = local;
        return local;
    };
    // The fit inside the interval (lo, hi) of rho, bounds as the sweep's state says.
    const auto interval = [&](double lo, double hi) {
        const double ka = free_a ? 1 : held.a, kc = free_c ? 1 : held.c;
        return fit_subsets(
            allowed,
            [&](std::size_t i, Vector& x, double& y) {
                x = {free_a ? memory[i] : 0, free_c ? compute[i] : 0, rows[i]->stages,  rows[i]->layers,
                     rows[i]->moe_layers,    rows[i]->sequences,       rows[i]->messages};
                y = target[i] - ka * memory[i] - kc * compute[i];
            },
            [&](const Vector& v) {
                Solution s;
                s.a = free_a ? 1 + v[0] : held.a;
                s.c = free_c ? 1 + v[1] : held.c;
                s.o = (allowed & 4u) ? v[2] : held.o;
                s.l = (allowed & 8u) ? v[3] : held.l;
                s.e = (allowed & 16u) ? v[4] : held.e;
                s.q = (allowed & 32u) ? v[5] : held.q;
                s.g = (allowed & 64u) ? v[6] : held.g;
                return s;
            },
            [&](double rho) { return rho >= lo * (1 - 1e-12) && rho <= hi * (1 + 1e-12); }, false);
    };
    // The fit with rho fixed: every step costs a max(m, rho c), so only a (when free), o, l, e, q, g move.
    const auto cut = [&](double rho) {
        double a0 = held.a;
        unsigned vars = allowed & 124u;
        if (free_a && free_c) a0 = std::max(1.0, 1 / rho), vars |= 1u;
        else if (free_a) a0 = held.c / rho;
        if (a0 < 1 - 1e-12 || rho * a0 < 1 - 1e-12) return Solution{};  // an efficiency above 1
        return fit_subsets(
            vars,
            [&](std::size_t i, Vector& x, double& y) {
                const double e = memory[i] + rho * compute[i];
                x = {e, 0, rows[i]->stages, rows[i]->layers, rows[i]->moe_layers, rows[i]->sequences, rows[i]->messages};
                y = target[i] - a0 * e;
            },
            [&](const Vector& v) {
                // Held values as given, not through rho (one rounding could take them past 1).
                Solution s;
                s.a = free_a ? std::max(1.0, a0 + v[0]) : held.a;
                s.c = free_c ? std::max(1.0, rho * s.a) : held.c;
                s.o = (allowed & 4u) ? v[2] : held.o;
                s.l = (allowed & 8u) ? v[3] : held.l;
                s.e = (allowed & 16u) ? v[4] : held.e;
                s.q = (allowed & 32u) ? v[5] : held.q;
                s.g = (allowed & 64u) ? v[6] : held.g;
                return s;
            },
            [](double) { return true; }, free_a && free_c);
    };

    if (free_c && std::isfinite(c_most)) {  // c at its upper bound, the rest fitted
        Held at_most = held;
        at_most.c = c_most;
        const Solution bounded = fit_terms(rows, allowed & ~2u, at_most);
        if (better(bounded, best)) best = bounded;
    }
    reset();
    if (!free_a && !free_c) {  // rho is what is held
        advance_below(held.c / held.a);
        cut(held.c / held.a);
        return best;
    }
    if (steps.empty()) {  // no step changes bound: one interval
        interval(0, std::numeric_limits<double>::infinity());
        return best;
    }
    // The intervals below the lowest ratio and above the highest, then the profile on a grid.
    const double lowest = steps.front().ratio, highest = steps.back().ratio;
    interval(0, lowest);
    constexpr double step = 1.05;
    std::vector<double> grid;
    if (lowest > 0 && std::isfinite(highest)) {  // ratios of positive, finite times: always, but never loop forever
        const auto points = static_cast<std::size_t>(std::ceil(std::log(highest / lowest) / std::log(step))) + 1;
        for (std::size_t g = 0; g < points; ++g) grid.push_back(lowest * std::pow(step, static_cast<double>(g)));
    }
    std::vector<double> profile(grid.size());
    for (std::size_t g = 0; g < grid.size(); ++g) {
        advance_below(grid[g]);
        const Solution at = cut(grid[g]);
        profile[g] = at.rss < 0 ? std::numeric_limits<double>::infinity() : at.rss;
    }
    advance_below(std::numeric_limits<double>::infinity());
    interval(highest, std::numeric_limits<double>::infinity());

    // Every interval and cut within the cells around the profile's three lowest local minima and
    // around rho = 1 (the ideal bounds), solved exactly.
    std::vector<std::size_t> minima;
    for (std::size_t g = 0; g < grid.size(); ++g)
        if (std::isfinite(profile[g]) && (g == 0 || profile[g] <= profile[g - 1]) && (g + 1 == grid.size() || profile[g] <= profile[g + 1]))
            minima.push_back(g);
    std::sort(minima.begin(), minima.end(), [&](std::size_t x, std::size_t y) { return profile[x] < profile[y]; });
    if (minima.size() > 3) minima.resize(3);
    std::vector<std::pair<double, double>> cells;
    for (std::size_t g : minima) cells.emplace_back(grid[g == 0 ? 0 : g - 1], grid[std::min(g + 1, grid.size() - 1)]);
    cells.emplace_back(1 / step, step);
    for (const auto& [from, to] : cells) {
        reset();
        advance_below(from);
        // The interval holding `from`, then each cut in the cell and the interval above it.
        double lo = next == 0 ? 0 : steps[next - 1].ratio;
        while (next < steps.size() && steps[next].ratio <= to) {
            const double b = steps[next].ratio;
            interval(lo, b);
            cut(b);
            advance_below(std::nextafter(b, std::numeric_limits<double>::infinity()));
            lo = b;
        }
        interval(lo, next < steps.size() ? steps[next].ratio : std::numeric_limits<double>::infinity());
    }
    return best;
}

}  // namespace ridgeline::calibrate_detail
