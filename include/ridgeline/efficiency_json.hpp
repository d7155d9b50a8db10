// Engine-and-device efficiency presets (data/efficiency/*.json): the overhead model's terms
// fitted by `ridgeline calibrate --save` on published measurements, with the rows they came from
// and their leave-one-out error. `predict` reads them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "calibrate.hpp"
#include "catalogue.hpp"
#include "json_node.hpp"

namespace ridgeline {

struct EfficiencyPreset {
    std::string engine;
    std::string hardware;  // the preset it was fitted on
    Calibration fit;       // terms and their errors (no per-row data), and the KV reading chosen
    bool per_layer_term = false;  // whether the fit could move the time per layer (calibrate --per-layer)
    bool per_moe_layer_term = false;  // and the time per MoE layer (calibrate --per-moe-layer)
    bool per_sequence_term = false;   // and the time per sequence (calibrate --per-sequence)
    bool per_message_term = false;    // and the time per link message (calibrate --per-message)
    bool compute_term = true;     // whether it could move the compute efficiency (not calibrate --hold-compute)
    // Whether it could only where it paid Akaike's penalty (CalibrationTerms::compute_pays, calibrate's
    // default); presets that do not say were fitted with it free (calibrate --fit-compute).
    bool compute_pays = false;
    std::optional<double> lowest_compute;  // the floor it could not go below (CalibrationTerms::lowest_compute)
    std::optional<double> leave_one_out_median, leave_one_out_worst;
    std::optional<std::size_t> rows;  // how many measurement rows it was fitted on, where it says
    std::string measurements;         // the measurement set they are rows of, where it says
    std::vector<std::size_t> row_indices;  // those rows, by index in the set
};

inline EfficiencyPreset efficiency_from_json(const nlohmann::json& j, const std::string& file = "") {
    using json_detail::Node;
    const Node root{j, file, ""};
    root.require_object("an efficiency preset object");
    // A measurement set's rows where a fit was expected: say which file kind this is, not its first unknown key.
    if (j.contains("measurements") && j.at("measurements").is_array())
        throw error(file, "/measurements", "an array of rows (this is a measurement set)",
                    "an efficiency preset: a fit's terms, as calibrate --save writes from a measurement set");
    root.only_keys({"engine", "hardware", "measurements", "filters", "bandwidth_efficiency", "compute_efficiency", "overhead_s",
                    "per_layer_s", "bandwidth_efficiency_error", "compute_efficiency_error", "overhead_error_s",
                    "per_layer_error_s", "rms_relative_error", "explanation", "rows", "leave_one_out", "source", "per_layer_term",
                    "compute_term", "lowest_compute", "kv_per_query_head", "bandwidth_basis", "per_moe_layer_s",
                    "per_moe_layer_error_s", "per_moe_layer_term", "per_sequence_s", "per_sequence_error_s", "per_sequence_term",
                    "compute_pays", "compute_basis", "activation_traffic", "per_message_s", "per_message_error_s", "per_message_term"});
    EfficiencyPreset p;
    p.engine = root.need("engine", "the engine's name").string();
    p.hardware = root.need("hardware", "a hardware preset name").string();
    if (root.has("measurements")) p.measurements = root.at("measurements").string();
    // Each bound is the one Workload's validate() puts on the term, so a preset that loads
    // predicts: efficiencies in [1e-6, 1], a time per step up to 1000 s, per layer (and per MoE
    // layer, and per sequence) up to 1 s.
    const auto number_of = [](const Node& n, double low, double high, const std::string& expected) {
        if (!n.value().is_number() || !(n.value().get<double>() >= low) || !(n.value().get<double>() <= high)) n.fail(expected);
        return n.value().get<double>();
    };
    const auto number_in = [&](const char* key, double low, double high, const std::string& expected) {
        return number_of(root.at(key), low, high, expected);
    };
    const auto fraction = [&](const char* key) {
        (void)root.need(key, "a fraction in [1e-6, 1]");
        return number_in(key, 1e-6, 1, "a fraction in [1e-6, 1]");
    };
    const auto time = [&](const char* key, double high, const char* expected) {
        return root.has(key) ? s(number_in(key, 0, high, expected)) : Seconds{};
    };
    const auto given = [&](const char* key) { return root.has(key) && !root.at(key).value().is_null(); };
    // A fit calibrate saved (it names its rows) writes every term it had, and a term flagged as
    // fitted has its time: one missing is a file cut short, not a zero (a review found a preset
    // without overhead_s predicting 0.6 ms a step faster, silently). A hand-written preset of a
    // bandwidth efficiency alone still reads, its other terms at their ideal values.
    const bool saved_fit = root.has("rows");
    const auto flagged = [&](const char* term) { return root.has(term) && root.at(term).value().is_boolean() && root.at(term).value().get<bool>(); };
    for (const auto& [needed, key, expected] :
         {std::tuple{saved_fit || flagged("compute_term"), "compute_efficiency", "a fraction in [1e-6, 1]"},
          std::tuple{saved_fit, "overhead_s", "a time in seconds from 0 to 1000"},
          std::tuple{saved_fit || flagged("per_layer_term"), "per_layer_s", "a time in seconds from 0 to 1"},
          std::tuple{flagged("per_moe_layer_term"), "per_moe_layer_s", "a time in seconds from 0 to 1"},
          std::tuple{flagged("per_sequence_term"), "per_sequence_s", "a time in seconds from 0 to 1"},
          std::tuple{flagged("per_message_term"), "per_message_s", "a time in seconds from 0 to 1"}})
        if (needed) (void)root.need(key, expected);
    p.fit.bandwidth_efficiency = fraction("bandwidth_efficiency");
    p.fit.compute_efficiency = root.has("compute_efficiency") ? fraction("compute_efficiency") : 1.0;
    p.fit.overhead = time("overhead_s", 1000, "a time in seconds from 0 to 1000");
    p.fit.per_layer = time("per_layer_s", 1, "a time in seconds from 0 to 1");
    p.fit.per_moe_layer = time("per_moe_layer_s", 1, "a time in seconds from 0 to 1");
    p.fit.per_sequence = time("per_sequence_s", 1, "a time in seconds from 0 to 1");
    p.fit.per_message = time("per_message_s", 1, "a time in seconds from 0 to 1");
    // Older presets say none: a fixed time, the compute efficiency fitted, and the shared KV reading.
    if (root.has("per_layer_term")) p.per_layer_term = root.at("per_layer_term").boolean();
    if (root.has("per_moe_layer_term")) p.per_moe_layer_term = root.at("per_moe_layer_term").boolean();
    if (root.has("per_sequence_term")) p.per_sequence_term = root.at("per_sequence_term").boolean();
    if (root.has("per_message_term")) p.per_message_term = root.at("per_message_term").boolean();
    if (root.has("compute_term")) p.compute_term = root.at("compute_term").boolean();
    if (root.has("compute_pays")) p.compute_pays = root.at("compute_pays").boolean();
    if (root.has("lowest_compute")) p.lowest_compute = fraction("lowest_compute");
    if (root.has("kv_per_query_head")) p.fit.kv_per_query_head = root.at("kv_per_query_head").boolean();
    // Presets saved before the term say none: they were fitted with the activations on chip.
    if (root.has("activation_traffic")) p.fit.activation_traffic = root.at("activation_traffic").boolean();
    // A term its fit held at zero has no time; a compute efficiency no lower than the floor it had.
    for (const auto& [term, key] : {std::pair{"per_layer_term", "per_layer_s"}, std::pair{"per_moe_layer_term", "per_moe_layer_s"},
                                    std::pair{"per_sequence_term", "per_sequence_s"}, std::pair{"per_message_term", "per_message_s"}})
        if (root.has(term) && !root.at(term).boolean() && root.has(key) && root.at(key).value().get<double>() > 0)
            root.at(key).fail(std::string("0 where ") + term + " is false (the fit did not move it)");
    if (p.lowest_compute && p.fit.compute_efficiency < *p.lowest_compute * (1 - 1e-9))
        root.at("compute_efficiency").fail("at least lowest_compute (" + number_text(*p.lowest_compute) + "), the floor its fit had");
    // One standard error of each term, within the term's own bounds (predict's range moves the
    // term by it, an efficiency through its reciprocal: calibrate.hpp's PredictionRange).
    const auto error_in = [&](const char* key, double high, const char* expected) -> std::optional<double> {
        if (!given(key)) return std::nullopt;
        return number_in(key, 0, high, expected);
    };
    p.fit.bandwidth_efficiency_error = error_in("bandwidth_efficiency_error", 1e6, "a number from 0 to 1e6");
    p.fit.compute_efficiency_error = error_in("compute_efficiency_error", 1e6, "a number from 0 to 1e6");
    if (const auto e = error_in("overhead_error_s", 1e6, "a time in seconds from 0 to 1e6")) p.fit.overhead_error = s(*e);
    if (const auto e = error_in("per_layer_error_s", 1e6, "a time in seconds from 0 to 1e6")) p.fit.per_layer_error = s(*e);
    if (const auto e = error_in("per_moe_layer_error_s", 1e6, "a time in seconds from 0 to 1e6")) p.fit.per_moe_layer_error = s(*e);
    if (const auto e = error_in("per_sequence_error_s", 1e6, "a time in seconds from 0 to 1e6")) p.fit.per_sequence_error = s(*e);
    if (const auto e = error_in("per_message_error_s", 1e6, "a time in seconds from 0 to 1e6")) p.fit.per_message_error = s(*e);
    if (given("rms_relative_error")) p.fit.rms_relative_error = number_in("rms_relative_error", 0, 1e6, "a number from 0 to 1e6");
    if (root.has("explanation")) p.fit.explanation = root.at("explanation").string();
    if (root.has("bandwidth_basis")) p.fit.bandwidth_basis = root.at("bandwidth_basis").string();
    if (root.has("compute_basis")) p.fit.compute_basis = root.at("compute_basis").string();
    // The filters its rows passed (calibrate writes "model=..." and each --where as key=value).
    if (root.has("filters")) {
        const Node f = root.at("filters");
        const char* expected = "an array of the filters the fit's rows passed, each a \"key=value\" string";
        if (!f.value().is_array()) f.fail(expected);
        for (std::size_t i = 0; i < f.value().size(); ++i) {
            const auto& v = f.value()[i];
            const std::size_t eq = v.is_string() ? v.get<std::string>().find('=') : std::string::npos;
            if (eq == std::string::npos || eq == 0 || eq + 1 == v.get<std::string>().size()) f.at(i).fail("a \"key=value\" filter");
        }
    }
    if (root.has("rows")) {
        const Node r = root.at("rows");
        if (!r.value().is_array()) r.fail("an array of the measurement rows fitted, by index");
        if (r.value().empty()) r.fail("at least one row index: a fit has the rows it was fitted on");
        for (std::size_t i = 0; i < r.value().size(); ++i) {
            const auto& v = r.value()[i];
            if (!v.is_number_integer() || v.get<std::int64_t>() < 0) r.at(i).fail("a row index >= 0");
            p.row_indices.push_back(v.get<std::size_t>());
        }
        p.rows = r.value().size();
    }
    if (root.has("leave_one_out")) {
        // Relative errors, as calibrate writes them (0.264 is 26.4%); null where it had too few rows.
        const Node l = root.at("leave_one_out");
        l.require_object("an object with median and worst");
        l.only_keys({"median", "worst"});
        const auto share = [&](const char* key) -> std::optional<double> {
            if (!l.has(key) || l.at(key).value().is_null()) return std::nullopt;
            return number_of(l.at(key), 0, 1e6, "a relative error from 0 to 1e6, or null");
        };
        p.leave_one_out_median = share("median");
        p.leave_one_out_worst = share("worst");
        if (p.leave_one_out_median && p.leave_one_out_worst && *p.leave_one_out_median > *p.leave_one_out_worst)
            l.at("median").fail("at most the worst (" + number_text(*p.leave_one_out_worst) + ")");
    }
    return p;
}

inline EfficiencyPreset load_efficiency(std::string_view name_or_path) {
    const std::filesystem::path file = resolve_preset(PresetKind::efficiency, name_or_path);
    return efficiency_from_json(read_json_file(file), file.string());
}

}  // namespace ridgeline
