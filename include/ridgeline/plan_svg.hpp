// The planner's Pareto front as a standalone SVG: tokens/s per user against tokens/s per device
// (output tokens per unit of price when every device has one: plan.hpp's front_value),
// log-log, one colour per device, a mark per serving mode, the front's points joined, the
// cheapest feasible plan ringed.
// The CLI's `plan --svg` and the page's plan tab draw with this.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "plan.hpp"
#include "roofline_svg.hpp"

namespace ridgeline {

inline std::string pareto_svg(const PlanResult& result, const std::string& title) {
    using namespace svg_detail;
    const double W = 760, H = 480;
    double x_lo = 1e300, x_hi = 0, y_lo = 1e300, y_hi = 0;
    std::vector<const PlanRow*> points;
    for (const auto& r : result.pareto) points.push_back(&r);
    if (!result.plans.empty()) points.push_back(&result.plans.front());
    for (const PlanRow* r : points) {
        const double x = r->serving.tokens_per_s_per_user.in(per_s), y = front_value(*r);
        x_lo = std::min(x_lo, x);
        x_hi = std::max(x_hi, x);
        y_lo = std::min(y_lo, y);
        y_hi = std::max(y_hi, y);
    }
    if (points.empty()) {
        x_lo = y_lo = 1;
        x_hi = y_hi = 10;
    }
    const Panel p(90, 50, W - 130, H - 110, floor_decade(x_lo), ceil_decade(x_hi), floor_decade(y_lo), ceil_decade(y_hi));
    std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + number(W) + "\" height=\"" + number(H) +
                      "\" viewBox=\"0 0 " + number(W) + " " + number(H) + "\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    out += "<text x=\"" + number(W / 2) + "\" y=\"28\" font-family=\"sans-serif\" font-size=\"15\" text-anchor=\"middle\">" +
           escape(title) + "</text>\n";
    // One token a request has no time between tokens: a user's pace is its first token's wait.
    const bool streams = points.empty() || points.front()->serving.streams();
    // Priced, the height is what a token costs: devices of different prices compare by it.
    const bool priced = !points.empty() && points.front()->cost_per_million_tokens.has_value();
    axes(out, p, streams ? "tokens/s per user (1 / TPOT)" : "tokens/s per user (1 / TTFT: one token a request)", priced ? "output tokens per unit of price" : "tokens/s per device", "");
    // One colour per device, in the order the front meets them.
    std::vector<std::string> devices;
    for (const auto& r : result.pareto)
        if (std::find(devices.begin(), devices.end(), r.device) == devices.end()) devices.push_back(r.device);
    std::string path;
    for (const auto& r : result.pareto) {
        const double x = p.x(r.serving.tokens_per_s_per_user.in(per_s)), y = p.y(front_value(r));
        path += (path.empty() ? "M" : " L") + number(x) + " " + number(y);
    }
    if (!path.empty()) out += "<path class=\"front\" d=\"" + path + "\" fill=\"none\" stroke=\"#888\" stroke-width=\"1\"/>\n";
    // Each point says its serving mode: a filled circle aggregated, hollow disaggregated, a square
    // prefill apart (each prompt's pass stalls the decodes).
    bool any_apart = false, any_disagg = false;
    for (const auto& r : result.pareto) {
        const auto i = static_cast<std::size_t>(std::find(devices.begin(), devices.end(), r.device) - devices.begin());
        const double x = p.x(r.serving.tokens_per_s_per_user.in(per_s)), y = p.y(front_value(r));
        const std::string mode = std::string(" data-mode=\"") + mode_name(r.mode) + "\"";
        const std::string paint = std::string(" stroke=\"") + colour(i) + "\" stroke-width=\"1.5\"/>\n";
        if (r.mode == ServingMode::prefill_apart) {
            any_apart = true;
            out += "<rect class=\"point\"" + mode + " x=\"" + number(x - 4) + "\" y=\"" + number(y - 4) +
                   "\" width=\"8\" height=\"8\" fill=\"" + colour(i) + "\"" + paint;
        } else {
            const bool disagg = r.mode == ServingMode::disaggregated;
            any_disagg = any_disagg || disagg;
            out += "<circle class=\"point\"" + mode + " cx=\"" + number(x) + "\" cy=\"" + number(y) + "\" r=\"4\" fill=\"" +
                   (disagg ? "white" : colour(i)) + "\"" + paint;
        }
    }
    if (!result.plans.empty()) {
        const PlanRow& best = result.plans.front();
        out += "<circle class=\"chosen\" cx=\"" + number(p.x(best.serving.tokens_per_s_per_user.in(per_s))) + "\" cy=\"" +
               number(p.y(front_value(best))) + "\" r=\"9\" fill=\"none\" stroke=\"black\" stroke-width=\"2\"/>\n";
    }
    // Legend: devices, the mode marks, the ring for the chosen plan.
    double ly = 64;
    const double lx = p.left + p.width - 200;
    for (std::size_t i = 0; i < devices.size(); ++i, ly += 16)
        out += "<circle cx=\"" + number(lx) + "\" cy=\"" + number(ly) + "\" r=\"4\" fill=\"" + colour(i) + "\"/><text x=\"" +
               number(lx + 10) + "\" y=\"" + number(ly + 4) + "\" font-family=\"sans-serif\" font-size=\"11\">" + escape(devices[i]) + "</text>\n";
    // A mark's line only where the front has such a point.
    const auto legend_line = [&](const char* text) {
        out += "<text x=\"" + number(lx - 4) + "\" y=\"" + number(ly + 4) + "\" font-family=\"sans-serif\" font-size=\"11\">" + text +
               "</text>\n";
        ly += 16;
    };
    if (any_disagg) legend_line("hollow: disaggregated");
    if (any_apart) legend_line("square: prefill apart");
    // The ring's line only where a plan is ringed; else the chart says why there is none.
    if (!result.plans.empty()) legend_line("ringed: the chosen plan");
    else legend_line(points.empty() ? "nothing to draw: no deployment served (the verdict says why)" : "no plan meets the targets: none ringed");
    out += "</svg>\n";
    return out;
}

}  // namespace ridgeline
