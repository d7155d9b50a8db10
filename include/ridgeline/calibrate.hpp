// Calibration: from measured steps on one device, fit what fraction of peak bandwidth the
// kernels reach and a fixed per-step overhead, by least squares on
//     measured = ideal memory time / efficiency + overhead,
// then predict other settings with them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "decode.hpp"

namespace ridgeline {

struct Observation {
    Model model;
    Workload workload;      // as measured; its efficiency is ignored
    Parallelism parallel{};  // how the measurement split the model
    Seconds measured_step;  // time per output token
};

struct Calibration {
    double bandwidth_efficiency = 1;  // fitted fraction of peak bandwidth
    Seconds overhead{};               // fitted fixed time per step
    std::vector<Seconds> predicted;   // for each observation, with the fit
    std::vector<Seconds> residuals;   // measured - predicted
    double rms_relative_error = 0;    // sqrt(mean((residual / measured)^2))

    [[nodiscard]] constexpr Efficiency efficiency() const { return Efficiency{bandwidth_efficiency, 1.0, overhead}; }
};

// A prediction with a calibration's efficiency and overhead.
constexpr DecodeStep predict(const Deployment& d, const Model& m, Workload w, const Calibration& c) {
    w.efficiency = c.efficiency();
    return decode_step(d, m, w);
}

// The fit needs two observations whose ideal memory times differ. A fit that would put the
// overhead below zero is refitted through the origin; one that would beat peak bandwidth
// (efficiency above 1) means the observations are not what they say, and is an error.
// Not constexpr: it works on std::vectors (see operators.hpp).
inline Calibration calibrate(const Hardware& hw, const std::vector<Observation>& observations) {
    if (observations.size() < 2)
        throw error("", "observations", std::to_string(observations.size()), "at least two measurements");
    std::vector<double> x, y;
    for (std::size_t i = 0; i < observations.size(); ++i) {
        const Observation& o = observations[i];
        if (!(o.measured_step > Seconds{}) || !is_finite(o.measured_step))
            throw error("", "observations[" + std::to_string(i) + "].measured_step",
                        std::to_string(o.measured_step.in(ms)) + " ms", "a positive, finite time");
        Workload ideal = o.workload;
        ideal.efficiency = Efficiency{};
        const DecodeStep d = decode_step(Deployment{hw, o.parallel}, o.model, ideal);
        // A row faster than its own ideal ceiling is not a measurement of the stated setting.
        if (o.measured_step < d.step_time)
            throw error("", "observations[" + std::to_string(i) + "].measured_step",
                        std::to_string(o.measured_step.in(ms)) + " ms, faster than this setting's ideal ceiling of " +
                            std::to_string(d.step_time.in(ms)) + " ms",
                        "a measurement of the stated setting, at or above its ceiling (diagnose says what would explain it)");
        // Fit the roofline part; the link time is the model's own and is taken off first.
        x.push_back((d.step_time - d.communication_time).in(s));
        y.push_back((o.measured_step - d.communication_time).in(s));
    }
    const auto n = static_cast<double>(x.size());
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < x.size(); ++i) mx += x[i] / n, my += y[i] / n;
    double sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) sxx += (x[i] - mx) * (x[i] - mx), sxy += (x[i] - mx) * (y[i] - my);
    if (!(sxx > 1e-30 * mx * mx))
        throw error("", "observations", "settings with the same ideal step time", "two settings whose ideal step times differ");
    double slope = sxy / sxx;
    double intercept = my - slope * mx;
    if (intercept < 0) {  // no negative overheads: fit through the origin
        double num = 0, den = 0;
        for (std::size_t i = 0; i < x.size(); ++i) num += x[i] * y[i], den += x[i] * x[i];
        slope = num / den;
        intercept = 0;
    }
    if (!(slope > 0))
        throw error("", "observations", "times that do not grow with the ideal step time (fitted slope " + std::to_string(slope) + ")",
                    "measurements whose steps take longer where more bytes are read; fit fewer, more alike rows");
    if (!(slope >= 1.0))
        throw error("", "observations", "steps faster than the ideal ceiling (fitted efficiency " + std::to_string(1.0 / slope) + ")",
                    "measurements of the stated settings, which cannot beat peak bandwidth");
    Calibration c;
    c.bandwidth_efficiency = 1.0 / slope;
    c.overhead = s(intercept);
    double sq = 0;
    for (const Observation& o : observations) {
        const Seconds predicted = predict(Deployment{hw, o.parallel}, o.model, o.workload, c).step_time;
        c.predicted.push_back(predicted);
        c.residuals.push_back(o.measured_step - predicted);
        const double rel = static_cast<double>((o.measured_step - predicted) / o.measured_step);
        sq += rel * rel / n;
    }
    double r = sq, guess = sq > 1 ? sq : 1;  // sqrt by Newton, to stay constexpr
    for (int i = 0; i < 100 && r > 0; ++i) guess = (guess + sq / guess) / 2;
    c.rms_relative_error = r > 0 ? guess : 0;
    return c;
}

}  // namespace ridgeline
