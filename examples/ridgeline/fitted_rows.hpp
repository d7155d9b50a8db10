// What an efficiency preset was fitted on, read back from the measurement set it names:
// predict's and plan's caveats for a fit on other models or engine builds.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <ridgeline/efficiency_json.hpp>
#include <ridgeline/measurements_json.hpp>

namespace cli {

// The models and engine versions of the rows an efficiency preset was fitted on, each in
// first-seen order; none where the preset does not say which rows of which set, or the set
// cannot be read here. A row without a version counts as "version not stated".
struct FittedRows {
    std::vector<std::string> models, versions;
    // The batches and contexts (a request row's mean decode context) the rows span: a setting
    // outside them extrapolates the fitted terms (a fixed time fitted at batch 3,072 says little
    // about batch 1).
    std::int64_t least_batch = 0, most_batch = 0, least_context = 0, most_context = 0;
    std::string unread;  // why the rows could not be read, where they could not: the caveats are then unknown, not absent
};
inline FittedRows fitted_rows(const ridgeline::EfficiencyPreset& preset) {
    FittedRows out;
    if (preset.measurements.empty() || preset.row_indices.empty()) {
        out.unread = preset.measurements.empty() ? "the preset names no measurement set" : "the preset names no rows";
        return out;
    }
    const auto add = [](std::vector<std::string>& list, const std::string& v) {
        if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
    };
    try {
        const ridgeline::MeasurementSet set = ridgeline::load_measurements(preset.measurements);
        for (const std::size_t i : preset.row_indices) {
            if (i >= set.rows.size()) {  // not this set's rows: say so rather than guess
                FittedRows none;
                none.unread = "its row " + std::to_string(i) + " is past the end of " + preset.measurements + " (" +
                              std::to_string(set.rows.size()) + " rows)";
                return none;
            }
            const ridgeline::Workload& w = set.rows[i].workload;
            const bool first = out.models.empty();
            out.least_batch = first ? w.batch : std::min(out.least_batch, w.batch);
            out.most_batch = first ? w.batch : std::max(out.most_batch, w.batch);
            out.least_context = first ? w.context : std::min(out.least_context, w.context);
            out.most_context = first ? w.context : std::max(out.most_context, w.context);
            add(out.models, set.rows[i].model);
            add(out.versions, set.rows[i].engine_version.empty() ? "version not stated" : set.rows[i].engine_version);
        }
    } catch (const ridgeline::error& e) {
        FittedRows none;
        none.unread = "its rows could not be read (" + std::string(e.what()) + ")";
        return none;
    }
    return out;
}

}  // namespace cli
