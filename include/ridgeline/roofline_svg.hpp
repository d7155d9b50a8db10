// A standalone SVG of a device's roofline with a model's decode operating points, and a second
// panel of tok/s against batch. Plain SVG 1.1: no CSS, no script, readable by any viewer.
// The CLI's `plot` and the browser page draw with this, so they cannot disagree.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "decode.hpp"
#include "ridge.hpp"

namespace ridgeline {

namespace svg_detail {

// A pixel coordinate. Coordinates are clamped inside the picture by Panel; a non-finite one
// would be a bug, and is drawn at 0 rather than written as "nan" or "inf".
inline std::string number(double v) {
    if (!std::isfinite(v)) v = 0;
    v = std::clamp(v, -1e6, 1e6);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

// The length of the well-formed UTF-8 sequence at s[i], or 0 if there is none.
inline std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const auto cont = [&](std::size_t k) { return k < s.size() && (b(k) & 0xC0) == 0x80; };
    const unsigned char c = b(i);
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (!cont(i + 1) || !cont(i + 2)) return 0;
        if ((c == 0xE0 && b(i + 1) < 0xA0) || (c == 0xED && b(i + 1) > 0x9F)) return 0;  // overlong, surrogate
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (!cont(i + 1) || !cont(i + 2) || !cont(i + 3)) return 0;
        if ((c == 0xF0 && b(i + 1) < 0x90) || (c == 0xF4 && b(i + 1) > 0x8F)) return 0;  // overlong, past U+10FFFF
        return 4;
    }
    return 0;
}

// Text for XML: markup escaped, control characters (which XML 1.0 forbids) written as \xNN,
// and invalid UTF-8 replaced by U+FFFD, so any name makes a well-formed document.
inline std::string escape(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        const char c = s[i];
        const auto u = static_cast<unsigned char>(c);
        if (c == '&') out += "&amp;";
        else if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '"') out += "&quot;";
        else if (u < 0x20 || u == 0x7f) {
            static const char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[u >> 4];
            out += hex[u & 15];
        } else if (const std::size_t n = utf8_length(s, i); n > 0) {
            out.append(s.substr(i, n));
            i += n;
            continue;
        } else {
            out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
        }
        ++i;
    }
    return out;
}

// Decades drawn: far past any device or model (1e-40 to 1e40), so a degenerate value (0, a
// subnormal, an infinity) clamps to an edge rather than asking for billions of ticks.
inline constexpr int min_decade = -40, max_decade = 40;

// "1", "10", "100", "1k", "10k", "1M" ... "100E"; below 1: "0.1", "0.01", "0.001"; past those: "1e-4", "1e21".
inline std::string decade_label(int exponent) {
    if (exponent < -3 || exponent > 20) return "1e" + std::to_string(exponent);
    if (exponent < 0) {
        std::string s = "0.";
        for (int i = -1; i > exponent; --i) s += '0';
        return s + "1";
    }
    static const char* suffix[] = {"", "k", "M", "G", "T", "P", "E"};
    const int group = exponent / 3;
    std::string s = "1";
    for (int i = 0; i < exponent % 3; ++i) s += '0';
    return s + (group < 7 ? suffix[group] : "?");
}

// log10 of v, clamped to [lo, hi]; a non-positive or NaN v maps to lo.
inline double clamped_log10(double v, int lo, int hi) {
    if (!(v > 0)) return lo;
    return std::clamp(std::log10(v), static_cast<double>(lo), static_cast<double>(hi));
}

// A log-log panel mapping data to a pixel rectangle. The decades are clamped to
// [min_decade, max_decade] and each range spans at least one decade.
struct Panel {
    double left, top, width, height;
    int x_lo, x_hi, y_lo, y_hi;  // decades shown
    Panel(double left_, double top_, double width_, double height_, int x_lo_, int x_hi_, int y_lo_, int y_hi_)
        : left(left_), top(top_), width(width_), height(height_) {
        const auto range = [](int lo, int hi, int& out_lo, int& out_hi) {
            out_lo = std::clamp(lo, min_decade, max_decade - 1);
            out_hi = std::clamp(hi, out_lo + 1, max_decade);
        };
        range(x_lo_, x_hi_, x_lo, x_hi);
        range(y_lo_, y_hi_, y_lo, y_hi);
    }
    [[nodiscard]] double x(double v) const {
        return left + (clamped_log10(v, x_lo, x_hi) - x_lo) / (x_hi - x_lo) * width;
    }
    [[nodiscard]] double y(double v) const {
        return top + height - (clamped_log10(v, y_lo, y_hi) - y_lo) / (y_hi - y_lo) * height;
    }
    // Every `step` decades, so that a panel never has more than about a dozen ticks.
    [[nodiscard]] static int tick_step(int lo, int hi) { return std::max(1, (hi - lo + 11) / 12); }
    [[nodiscard]] bool contains(double vx, double vy) const {
        return vx > 0 && vy > 0 && std::log10(vx) >= x_lo && std::log10(vx) <= x_hi && std::log10(vy) >= y_lo &&
               std::log10(vy) <= y_hi;
    }
};

inline void axes(std::string& out, const Panel& p, const std::string& x_title, const std::string& y_title,
                 const std::string& y_suffix) {
    out += "<rect x=\"" + number(p.left) + "\" y=\"" + number(p.top) + "\" width=\"" + number(p.width) +
           "\" height=\"" + number(p.height) + "\" fill=\"none\" stroke=\"#444\" stroke-width=\"1\"/>\n";
    for (int e = p.x_lo; e <= p.x_hi; e += Panel::tick_step(p.x_lo, p.x_hi)) {
        const double px = p.x(std::pow(10.0, e));
        out += "<line class=\"tick\" x1=\"" + number(px) + "\" y1=\"" + number(p.top) + "\" x2=\"" + number(px) +
               "\" y2=\"" + number(p.top + p.height) + "\" stroke=\"#ddd\" stroke-width=\"1\"/>\n";
        out += "<text class=\"tick-label\" x=\"" + number(px) + "\" y=\"" + number(p.top + p.height + 16) +
               "\" font-family=\"sans-serif\" font-size=\"11\" text-anchor=\"middle\">" + decade_label(e) + "</text>\n";
    }
    for (int e = p.y_lo; e <= p.y_hi; e += Panel::tick_step(p.y_lo, p.y_hi)) {
        const double py = p.y(std::pow(10.0, e));
        out += "<line class=\"tick\" x1=\"" + number(p.left) + "\" y1=\"" + number(py) + "\" x2=\"" +
               number(p.left + p.width) + "\" y2=\"" + number(py) + "\" stroke=\"#ddd\" stroke-width=\"1\"/>\n";
        out += "<text class=\"tick-label\" x=\"" + number(p.left - 6) + "\" y=\"" + number(py + 4) +
               "\" font-family=\"sans-serif\" font-size=\"11\" text-anchor=\"end\">" + decade_label(e) + y_suffix +
               "</text>\n";
    }
    out += "<text x=\"" + number(p.left + p.width / 2) + "\" y=\"" + number(p.top + p.height + 36) +
           "\" font-family=\"sans-serif\" font-size=\"13\" text-anchor=\"middle\">" + escape(x_title) + "</text>\n";
    out += "<text x=\"" + number(p.left - 58) + "\" y=\"" + number(p.top + p.height / 2) +
           "\" font-family=\"sans-serif\" font-size=\"13\" text-anchor=\"middle\" transform=\"rotate(-90 " +
           number(p.left - 58) + " " + number(p.top + p.height / 2) + ")\">" + escape(y_title) + "</text>\n";
}

// The decade at or below (above) v, within [min_decade, max_decade]: 0, a subnormal or NaN gives
// min_decade and an infinity max_decade, never a cast of an out-of-range double to int.
inline int floor_decade(double v) {
    if (!(v > 0)) return min_decade;
    return static_cast<int>(std::clamp(std::floor(std::log10(v)), double{min_decade}, double{max_decade}));
}
inline int ceil_decade(double v) {
    if (!(v > 0)) return min_decade;
    return static_cast<int>(std::clamp(std::ceil(std::log10(v)), double{min_decade}, double{max_decade}));
}

inline const char* colour(std::size_t i) {
    static const char* palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
    return palette[i % 6];
}

}  // namespace svg_detail

// The roofline of the deployment's device (the bandwidth slope and a ceiling for each format it has), the decode
// steps of `m` for each batch at each context (workload `base` for the rest), the ridge point of
// the base compute format marked, and a panel of tok/s per sequence (solid) and in total
// (dashed) against batch. The title names the formats and the parallelism. With `chosen_batch`,
// the step at that batch and base.context (the user's own setting) is ringed on both panels.
inline std::string roofline_svg(const Deployment& dep, const Model& m, const Workload& base,
                                const std::vector<std::int64_t>& batches, const std::vector<std::int64_t>& contexts,
                                std::optional<std::int64_t> chosen_batch = std::nullopt) {
    using namespace svg_detail;
    if (batches.empty()) throw error("", "batches", "none", "at least one batch size");
    if (contexts.empty()) throw error("", "contexts", "none", "at least one context length");
    const Hardware& hw = dep.device;
    const double bw = hw.memory_bandwidth.in(bytes_per_s);
    const double top_peak = [&] {
        double p = 0;
        for (Numeric n : all_numerics)
            if (auto v = hw.peak_for(n)) p = std::max(p, v->in(flop_per_s));
        return p;
    }();
    const double base_peak = hw.require_peak(base.precision.compute).in(flop_per_s);

    // Every step to draw, computed once.
    struct Point {
        std::size_t context_index;
        std::int64_t batch;
        DecodeStep step;
    };
    std::vector<Point> points;
    double min_ai = 1, max_ai = base_peak / bw, min_rate = top_peak, max_tokens = 1, min_tokens = 1e300;
    for (std::size_t ci = 0; ci < contexts.size(); ++ci)
        for (std::int64_t b : batches) {
            Workload w = base;
            w.batch = b;
            w.context = contexts[ci];
            const DecodeStep d = decode_step(dep, m, w);
            points.push_back({ci, b, d});
            const double ai = d.arithmetic_intensity.in(flop_per_byte);
            const double rate = (d.flops / static_cast<double>(d.devices) / d.step_time).in(flop_per_s);
            min_ai = std::min(min_ai, ai), max_ai = std::max(max_ai, ai), min_rate = std::min(min_rate, rate);
            max_tokens = std::max(max_tokens, d.total_tokens_per_s.in(per_s));
            min_tokens = std::min(min_tokens, d.tokens_per_s.in(per_s));
        }
    // The user's own step, inside both panels' ranges.
    std::optional<DecodeStep> chosen;
    if (chosen_batch) {
        Workload w = base;
        w.batch = *chosen_batch;
        chosen = decode_step(dep, m, w);
        const double ai = chosen->arithmetic_intensity.in(flop_per_byte);
        const double rate = (chosen->flops / static_cast<double>(chosen->devices) / chosen->step_time).in(flop_per_s);
        min_ai = std::min(min_ai, ai), max_ai = std::max(max_ai, ai), min_rate = std::min(min_rate, rate);
        max_tokens = std::max(max_tokens, chosen->total_tokens_per_s.in(per_s));
        min_tokens = std::min(min_tokens, chosen->tokens_per_s.in(per_s));
    }

    const double W = 1000, H = 500;
    std::string out;
    out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + number(W) + "\" height=\"" + number(H) +
           "\" viewBox=\"0 0 " + number(W) + " " + number(H) + "\">\n";
    // "llama-3.1-70b on NVIDIA H100 SXM5 80GB: fp8 weights, bf16 KV, TP 4": what the points assume.
    std::string title = std::string(m.name.view()) + " on " + std::string(hw.name.view()) + ": " + format_name(base.precision.weights) + " weights";
    if (base.precision.expert_format() != base.precision.weights) title += ", " + format_name(base.precision.expert_format()) + " experts";
    if (base.precision.attention_format() != base.precision.weights)
        title += ", " + format_name(base.precision.attention_format()) + " attention";
    title += ", " + format_name(base.precision.kv) + " KV";
    if (base.precision.compute != Numeric::bf16) title += ", " + std::string(name_of(base.precision.compute)) + " compute";
    title += ", TP " + std::to_string(dep.parallel.tensor);
    if (dep.parallel.pipeline > 1) title += ", PP " + std::to_string(dep.parallel.pipeline);
    if (dep.parallel.expert > 1) title += ", EP " + std::to_string(dep.parallel.expert);
    if (dep.parallel.attention_data > 1) title += ", attention DP " + std::to_string(dep.parallel.attention_data);
    out += "<title>" + escape(title) + " (roofline and decode throughput)</title>\n";
    out += "<rect x=\"0\" y=\"0\" width=\"" + number(W) + "\" height=\"" + number(H) + "\" fill=\"white\"/>\n";
    out += "<text x=\"" + number(W / 2) + "\" y=\"22\" font-family=\"sans-serif\" font-size=\"15\" text-anchor=\"middle\">" +
           escape(title) + "</text>\n";

    // Panel 1: roofline.
    const Panel roof{80, 50, 380, 340, std::min(-1, floor_decade(min_ai)), std::max(4, ceil_decade(max_ai * 2)),
                     floor_decade(std::min(min_rate, bw * 0.1)), ceil_decade(top_peak * 1.5)};
    out += "<g id=\"roofline\">\n";
    axes(out, roof, "arithmetic intensity (FLOP/byte)", "attainable FLOP/s", "");
    // Bandwidth slope: rate = bw * ai, up to the highest ceiling.
    {
        const double x0 = std::pow(10.0, roof.x_lo), x1 = top_peak / bw;
        out += "<line class=\"bandwidth\" x1=\"" + number(roof.x(x0)) + "\" y1=\"" + number(roof.y(bw * x0)) +
               "\" x2=\"" + number(roof.x(x1)) + "\" y2=\"" + number(roof.y(top_peak)) +
               "\" stroke=\"#222\" stroke-width=\"2\"/>\n";
        char label[96];
        std::snprintf(label, sizeof label, "%.2f TB/s", bw / 1e12);
        const double xl = std::pow(10.0, roof.x_lo + 1.0);  // beside the slope, below it
        out += "<text x=\"" + number(roof.x(xl) + 8) + "\" y=\"" + number(roof.y(bw * xl) + 16) +
               "\" font-family=\"sans-serif\" font-size=\"11\">" + label + "</text>\n";
    }
    // One ceiling per distinct peak, naming every format that has it ("bf16, fp16 989 TFLOP/s").
    std::vector<std::pair<double, std::string>> ceilings;
    for (Numeric n : all_numerics) {
        const auto p = hw.peak_for(n);
        if (!p) continue;
        const double peak = p->in(flop_per_s);
        auto same = std::find_if(ceilings.begin(), ceilings.end(), [&](const auto& c) { return c.first == peak; });
        if (same == ceilings.end()) ceilings.emplace_back(peak, std::string(name_of(n)));
        else same->second += ", " + std::string(name_of(n));
    }
    for (const auto& [peak, names] : ceilings) {
        const double xr = peak / bw;
        const bool base_ceiling = peak == base_peak;
        out += "<line class=\"ceiling\" data-formats=\"" + names + "\" x1=\"" + number(roof.x(xr)) + "\" y1=\"" +
               number(roof.y(peak)) + "\" x2=\"" + number(roof.left + roof.width) + "\" y2=\"" + number(roof.y(peak)) +
               "\" stroke=\"#777\" stroke-width=\"1.5\" stroke-dasharray=\"" + (base_ceiling ? "none" : "4 3") + "\"/>\n";
        char label[128];
        std::snprintf(label, sizeof label, "%s %.0f TFLOP/s", names.c_str(), peak / 1e12);
        out += "<text x=\"" + number(roof.left + roof.width - 4) + "\" y=\"" + number(roof.y(peak) - 4) +
               "\" font-family=\"sans-serif\" font-size=\"10\" text-anchor=\"end\">" + escape(label) + "</text>\n";
    }
    {
        // The ridge's label sits at the foot of a dotted drop to the x axis: the ceilings' labels
        // are at the panel's right edge just above their lines, where a label beside the ridge
        // point would print over a lower ceiling's (fp8 compute: over the bf16 ceiling's).
        const double xr = base_peak / bw;
        char label[64];
        std::snprintf(label, sizeof label, "ridge %.1f FLOP/byte", xr);
        const double px = roof.x(xr), bottom = roof.top + roof.height;
        out += "<circle class=\"ridge\" cx=\"" + number(px) + "\" cy=\"" + number(roof.y(base_peak)) +
               "\" r=\"5\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"/>\n";
        out += "<line class=\"ridge-drop\" x1=\"" + number(px) + "\" y1=\"" + number(roof.y(base_peak) + 5) + "\" x2=\"" +
               number(px) + "\" y2=\"" + number(bottom) + "\" stroke=\"#000\" stroke-width=\"1\" stroke-dasharray=\"1 3\"/>\n";
        const bool right_half = px > roof.left + roof.width / 2;  // the label runs away from the nearer edge
        out += "<text class=\"ridge-label\" x=\"" + number(right_half ? px - 4 : px + 4) + "\" y=\"" + number(bottom - 6) +
               "\" font-family=\"sans-serif\" font-size=\"11\" text-anchor=\"" + (right_half ? "end" : "start") + "\">" + label +
               "</text>\n";
    }
    for (const Point& p : points) {
        const double ai = p.step.arithmetic_intensity.in(flop_per_byte);
        const double rate = (p.step.flops / static_cast<double>(p.step.devices) / p.step.step_time).in(flop_per_s);
        if (!roof.contains(ai, rate)) continue;
        // A step whose setup does not fit in memory is drawn hollow: its speed is not to be had.
        const bool fits = p.step.fits();
        out += "<circle class=\"step\" data-batch=\"" + std::to_string(p.batch) + "\" data-context=\"" +
               std::to_string(contexts[p.context_index]) + "\" data-fits=\"" + (fits ? "true" : "false") + "\" cx=\"" +
               number(roof.x(ai)) + "\" cy=\"" + number(roof.y(rate)) + "\" r=\"3.5\" " +
               (fits ? "fill=\"" + std::string(colour(p.context_index)) + "\""
                     : "fill=\"white\" stroke=\"" + std::string(colour(p.context_index)) + "\" stroke-width=\"1.5\"") + "/>\n";
    }
    if (chosen) {
        const double ai = chosen->arithmetic_intensity.in(flop_per_byte);
        const double rate = (chosen->flops / static_cast<double>(chosen->devices) / chosen->step_time).in(flop_per_s);
        out += "<circle class=\"chosen\" data-batch=\"" + std::to_string(*chosen_batch) + "\" data-context=\"" +
               std::to_string(base.context) + "\" cx=\"" + number(roof.x(ai)) + "\" cy=\"" + number(roof.y(rate)) +
               "\" r=\"8\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"/>\n";
    }
    out += "</g>\n";

    // Panel 2: tok/s against batch.
    double batch_lo = static_cast<double>(*std::min_element(batches.begin(), batches.end()));
    double batch_hi = static_cast<double>(*std::max_element(batches.begin(), batches.end()));
    if (chosen_batch) {
        batch_lo = std::min(batch_lo, static_cast<double>(*chosen_batch));
        batch_hi = std::max(batch_hi, static_cast<double>(*chosen_batch));
    }
    const Panel tps{580, 50, 380, 340, floor_decade(batch_lo), std::max(1, ceil_decade(batch_hi)), floor_decade(min_tokens),
                    ceil_decade(max_tokens)};
    out += "<g id=\"throughput\">\n";
    axes(out, tps, "batch (sequences)", "tokens/s", "");
    for (std::size_t ci = 0; ci < contexts.size(); ++ci) {
        std::string per_seq, total;
        for (const Point& p : points) {
            if (p.context_index != ci) continue;
            const double x = tps.x(static_cast<double>(p.batch));
            const double one = p.step.tokens_per_s.in(per_s), all = p.step.total_tokens_per_s.in(per_s);
            if (!(one > 0 && std::isfinite(one) && all > 0 && std::isfinite(all))) continue;  // nothing to draw on a log axis
            per_seq += number(x) + "," + number(tps.y(one)) + " ";
            total += number(x) + "," + number(tps.y(all)) + " ";
        }
        out += "<polyline class=\"per-sequence\" data-context=\"" + std::to_string(contexts[ci]) + "\" points=\"" +
               per_seq + "\" fill=\"none\" stroke=\"" + colour(ci) + "\" stroke-width=\"2\"/>\n";
        out += "<polyline class=\"total\" data-context=\"" + std::to_string(contexts[ci]) + "\" points=\"" + total +
               "\" fill=\"none\" stroke=\"" + colour(ci) + "\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n";
    }
    if (chosen) {
        // The user's batch: a dotted line up the panel, its two rates ringed.
        const double x = tps.x(static_cast<double>(*chosen_batch));
        out += "<line class=\"chosen-batch\" x1=\"" + number(x) + "\" y1=\"" + number(tps.top) + "\" x2=\"" + number(x) +
               "\" y2=\"" + number(tps.top + tps.height) + "\" stroke=\"#000\" stroke-width=\"1\" stroke-dasharray=\"1 3\"/>\n";
        for (const double v : {chosen->tokens_per_s.in(per_s), chosen->total_tokens_per_s.in(per_s)})
            out += "<circle class=\"chosen\" data-batch=\"" + std::to_string(*chosen_batch) + "\" cx=\"" + number(x) + "\" cy=\"" +
                   number(tps.y(v)) + "\" r=\"6\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"/>\n";
        out += "<text class=\"chosen-label\" x=\"" + number(x + 4) + "\" y=\"" + number(tps.top + 14) +
               "\" font-family=\"sans-serif\" font-size=\"11\">batch " + std::to_string(*chosen_batch) + "</text>\n";
    }
    out += "</g>\n";

    // Legend: one entry per context.
    out += "<g id=\"legend\">\n";
    for (std::size_t ci = 0; ci < contexts.size(); ++ci) {
        const double y = 452 + 16.0 * static_cast<double>(ci % 2), x = 80 + 230.0 * static_cast<double>(ci / 2);
        const RidgeBatch r = ridge_batch(dep, m, [&] { Workload w = base; w.context = contexts[ci]; return w; }());
        char label[128];
        if (r.is_never()) std::snprintf(label, sizeof label, "context %lld: ridge batch never", static_cast<long long>(contexts[ci]));
        else std::snprintf(label, sizeof label, "context %lld: ridge batch %.0f", static_cast<long long>(contexts[ci]), r.value());
        out += "<circle cx=\"" + number(x) + "\" cy=\"" + number(y - 4) + "\" r=\"4\" fill=\"" + colour(ci) + "\"/>\n";
        out += "<text x=\"" + number(x + 10) + "\" y=\"" + number(y) + "\" font-family=\"sans-serif\" font-size=\"12\">" +
               escape(label) + "</text>\n";
    }
    out += "<text x=\"580\" y=\"452\" font-family=\"sans-serif\" font-size=\"12\">solid: tok/s per sequence; dashed: in total</text>\n";
    out += "<text x=\"580\" y=\"468\" font-family=\"sans-serif\" font-size=\"12\">hollow points: the setup does not fit in memory</text>\n";
    if (chosen)
        out += "<text x=\"580\" y=\"484\" font-family=\"sans-serif\" font-size=\"12\">ringed: batch " + std::to_string(*chosen_batch) +
               " at context " + std::to_string(base.context) + "</text>\n";
    out += "</g>\n</svg>\n";
    return out;
}

}  // namespace ridgeline
