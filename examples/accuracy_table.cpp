// How well the calibrated model predicts published measurements: for each engine-and-device
// group of data/measurements/published.json, leave-one-out (each row predicted by a fit on the
// others, the overhead model's bandwidth and compute efficiencies and fixed time per step; then
// again with a time per layer, again with a time per MoE layer where the group has rows on MoE
// models, again with a time per sequence where its rows' batches differ, and with the term set that nested leave-one-out picks among eight, the compute
// efficiency fitted or held at 100%, each with or without a time per layer and with or without a
// time per MoE layer, and each with a time per link message, which moves only where a fit's rows
// are on different splits: for each row left out, the set whose own leave-one-out error over the other
// rows is the least, so the choice never sees the row predicted; the time per sequence is not among
// them, as the README says why), the median and worst relative error, and
// how many credible rows sit below the ideal ceiling. Rows that timed whole requests are
// predicted as whole requests. Every fit also chooses how the attention reads a GQA layer's KV
// (calibrate.hpp, Efficiency::kv_per_query_head); the last columns say which terms and reading
// the group's fit on all its rows keeps (its preset in data/efficiency/).
// The README's accuracy table is this program's output, checked by CTest.
//     accuracy_table [measurements]
#include <fmt/core.h>

#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

#include <algorithm>
#include <exception>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace ridgeline;

namespace {
// The median or the worst of sorted relative errors, as a percentage; "-" when there are none.
std::string pct(const std::vector<double>& sorted, bool worst) {
    return sorted.empty() ? std::string("-") : fmt::format("{:.1f}%", 100 * (worst ? sorted.back() : sorted[sorted.size() / 2]));
}
}  // namespace

int main(int argc, char** argv) {
    try {
        const MeasurementSet set = load_measurements(argc > 1 ? argv[1] : "published");
        std::map<std::pair<std::string, std::string>, std::vector<const MeasuredRow*>> groups;
        std::size_t flagged = 0;
        for (const MeasuredRow& r : set.rows) {
            if (r.flagged) {
                ++flagged;
                continue;
            }
            groups[{r.engine, r.hardware}].push_back(&r);
        }
        fmt::print("| engine | device | rows | below the ceiling | leave-one-out median | worst | with a time per layer: median | worst "
                   "| with a time per MoE layer: median | worst | with a time per sequence: median | worst "
                   "| terms chosen by nested leave-one-out: median | worst | terms chosen on all rows | KV read per |\n"
                   "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        std::vector<double> all, all_layered, all_moe, all_sequence, all_chosen;
        CalibrationTerms layered, held, held_layered, moe, sequence;
        layered.per_layer = held_layered.per_layer = true;
        moe.per_moe_layer = true;
        sequence.per_sequence = true;
        held.compute = held_layered.compute = false;
        std::vector<CalibrationTerms> candidates{CalibrationTerms{}, layered, held, held_layered};
        for (std::size_t k = 0; k < 4; ++k) {  // each again with a time per MoE layer, after the four without
            candidates.push_back(candidates[k]);
            candidates.back().per_moe_layer = true;
        }
        for (CalibrationTerms& t : candidates) t.per_message = true;
        std::size_t rows = 0, below = 0;
        for (const auto& [key, list] : groups) {
            const Hardware hw = load_hardware(key.second);
            std::vector<Observation> obs;
            std::size_t under = 0, moe_rows = 0;
            bool batches_differ = false, splits_differ = false;
            for (const MeasuredRow* r : list) {
                obs.push_back(observation(*r));
                if (has_routed_experts(obs.back().model)) ++moe_rows;
                batches_differ = batches_differ || obs.back().workload.batch != obs.front().workload.batch;
                splits_differ = splits_differ || !same_split(obs.back().parallel, obs.front().parallel);
                if (time_per_output_token(Deployment{hw, r->parallel}, obs.back(), Efficiency{}) <= r->measured_step) ++under;
            }
            rows += list.size();
            below += under;
            std::vector<double> e = leave_one_out(hw, obs), l = leave_one_out(hw, obs, layered),
                                n = nested_leave_one_out(hw, obs, candidates);
            // A time per MoE layer only where some row has MoE layers to pay it.
            std::vector<double> m;
            if (moe_rows > 0) m = leave_one_out(hw, obs, moe);
            // A time per sequence only where the batches differ (else it is the fixed time again).
            std::vector<double> q;
            if (batches_differ) q = leave_one_out(hw, obs, sequence);
            for (auto* v : {&e, &l, &m, &q, &n}) std::sort(v->begin(), v->end());
            all.insert(all.end(), e.begin(), e.end());
            all_layered.insert(all_layered.end(), l.begin(), l.end());
            all_moe.insert(all_moe.end(), (m.empty() ? e : m).begin(), (m.empty() ? e : m).end());
            all_sequence.insert(all_sequence.end(), (q.empty() ? e : q).begin(), (q.empty() ? e : q).end());
            all_chosen.insert(all_chosen.end(), n.begin(), n.end());
            const CalibrationTerms& chosen = candidates[choose_terms(hw, obs, candidates)];
            const bool per_query = calibrate(hw, obs, chosen).kv_per_query_head;
            fmt::print("| {} | {} | {} | {} of {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {}{} | {} |\n", key.first, key.second,
                       list.size(), under, list.size(), pct(e, false), pct(e, true), pct(l, false), pct(l, true), pct(m, false),
                       pct(m, true), pct(q, false), pct(q, true), pct(n, false), pct(n, true),
                       chosen.compute ? "both efficiencies" : "bandwidth (compute held)",
                       std::string(chosen.per_layer ? ", per step and per layer" : ", per step") + (chosen.per_moe_layer ? ", per MoE layer" : "") +
                           (splits_differ ? ", per link message" : ""),
                       per_query ? "query head" : "KV head");
        }
        for (auto* v : {&all, &all_layered, &all_moe, &all_sequence, &all_chosen}) std::sort(v->begin(), v->end());
        fmt::print("| all {} groups ({} flagged rows not fitted) | | {} | {} of {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | | |\n",
                   groups.size(), flagged, rows, below, rows, pct(all, false), pct(all, true), pct(all_layered, false),
                   pct(all_layered, true), pct(all_moe, false), pct(all_moe, true), pct(all_sequence, false), pct(all_sequence, true),
                   pct(all_chosen, false), pct(all_chosen, true));
        return 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "accuracy_table: {}\n", e.what());
        return 1;
    }
}
