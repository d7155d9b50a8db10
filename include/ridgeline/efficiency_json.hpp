// Engine-and-device efficiency presets (data/efficiency/*.json): the overhead model's terms
// fitted by `ridgeline calibrate --save` on published measurements, with the rows they came from
// and their leave-one-out error. `predict` reads them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "calibrate.hpp"
#include "catalogue.hpp"
#include "json_node.hpp"

namespace ridgeline {

struct EfficiencyPreset {
    std::string engine;
    std::string hardware;  // the preset it was fitted on
    Calibration fit;       // terms and their errors (no per-row data), and the KV reading chosen
    bool per_layer_term = false;  // whether the fit could move the time per layer (calibrate --per-layer)
    bool compute_term = true;     // whether it could move the compute efficiency (not calibrate --hold-compute)
    std::optional<double> lowest_compute;  // the floor it could not go below (CalibrationTerms::lowest_compute)
    std::optional<double> leave_one_out_median, leave_one_out_worst;
    std::optional<std::size_t> rows;  // how many measurement rows it was fitted on, where it says
};

inline EfficiencyPreset efficiency_from_json(const nlohmann::json& j, const std::string& file = "") {
    using json_detail::Node;
    const Node root{j, file, ""};
    root.require_object("an efficiency preset object");
    root.only_keys({"engine", "hardware", "measurements", "filters", "bandwidth_efficiency", "compute_efficiency", "overhead_s",
                    "per_layer_s", "bandwidth_efficiency_error", "compute_efficiency_error", "overhead_error_s",
                    "per_layer_error_s", "rms_relative_error", "explanation", "rows", "leave_one_out", "source", "per_layer_term",
                    "compute_term", "lowest_compute", "kv_per_query_head", "bandwidth_basis"});
    EfficiencyPreset p;
    p.engine = root.need("engine", "the engine's name").string();
    p.hardware = root.need("hardware", "a hardware preset name").string();
    const auto fraction = [&](const char* key) {
        const double v = root.need(key, "a fraction in (0, 1]").positive_number();
        if (!(v > 0 && v <= 1)) root.at(key).fail("a fraction in (0, 1]");
        return v;
    };
    const auto time = [&](const char* key) {
        if (!root.has(key)) return Seconds{};
        const Node n = root.at(key);
        if (!n.value().is_number() || !(n.value().get<double>() >= 0) || !(n.value().get<double>() <= 1000)) n.fail("a time in seconds from 0 to 1000");
        return s(n.value().get<double>());
    };
    const auto optional_number = [&](const char* key) -> std::optional<double> {
        if (!root.has(key) || root.at(key).value().is_null()) return std::nullopt;
        const Node n = root.at(key);
        if (!n.value().is_number() || !(n.value().get<double>() >= 0) || !(n.value().get<double>() < 1e6)) n.fail("a number >= 0");
        return n.value().get<double>();
    };
    p.fit.bandwidth_efficiency = fraction("bandwidth_efficiency");
    p.fit.compute_efficiency = root.has("compute_efficiency") ? fraction("compute_efficiency") : 1.0;
    p.fit.overhead = time("overhead_s");
    p.fit.per_layer = time("per_layer_s");
    // Older presets say none: a fixed time, the compute efficiency fitted, and the shared KV reading.
    if (root.has("per_layer_term")) p.per_layer_term = root.at("per_layer_term").boolean();
    if (root.has("compute_term")) p.compute_term = root.at("compute_term").boolean();
    if (root.has("lowest_compute")) p.lowest_compute = fraction("lowest_compute");
    if (root.has("kv_per_query_head")) p.fit.kv_per_query_head = root.at("kv_per_query_head").boolean();
    p.fit.bandwidth_efficiency_error = optional_number("bandwidth_efficiency_error");
    p.fit.compute_efficiency_error = optional_number("compute_efficiency_error");
    if (const auto e = optional_number("overhead_error_s")) p.fit.overhead_error = s(*e);
    if (const auto e = optional_number("per_layer_error_s")) p.fit.per_layer_error = s(*e);
    if (root.has("rms_relative_error")) p.fit.rms_relative_error = optional_number("rms_relative_error").value_or(0);
    if (root.has("explanation")) p.fit.explanation = root.at("explanation").string();
    if (root.has("bandwidth_basis")) p.fit.bandwidth_basis = root.at("bandwidth_basis").string();
    if (root.has("rows")) {
        const Node r = root.at("rows");
        if (!r.value().is_array()) r.fail("an array of the measurement rows fitted, by index");
        for (std::size_t i = 0; i < r.value().size(); ++i) {
            const auto& v = r.value()[i];
            if (!v.is_number_integer() || v.get<std::int64_t>() < 0) r.at(i).fail("a row index >= 0");
        }
        p.rows = r.value().size();
    }
    if (root.has("leave_one_out")) {
        const Node l = root.at("leave_one_out");
        l.require_object("an object with median and worst");
        if (l.has("median") && !l.at("median").value().is_null()) p.leave_one_out_median = l.at("median").value().get<double>();
        if (l.has("worst") && !l.at("worst").value().is_null()) p.leave_one_out_worst = l.at("worst").value().get<double>();
    }
    return p;
}

inline EfficiencyPreset load_efficiency(std::string_view name_or_path) {
    const std::filesystem::path file = resolve_preset(PresetKind::efficiency, name_or_path);
    return efficiency_from_json(read_json_file(file), file.string());
}

}  // namespace ridgeline
