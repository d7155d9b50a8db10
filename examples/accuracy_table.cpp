// How well the calibrated model predicts published measurements: for each engine-and-device
// group of data/measurements/published.json, leave-one-out (each row predicted by a fit on the
// others, the overhead model's bandwidth and compute efficiencies and fixed time per step), the
// median and worst relative error, and how many credible rows sit below the ideal ceiling.
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
        fmt::print("| engine | device | rows | below the ceiling | leave-one-out median | worst |\n|---|---|---|---|---|---|\n");
        std::vector<double> all;
        std::size_t rows = 0, below = 0;
        for (const auto& [key, list] : groups) {
            const Hardware hw = load_hardware(key.second);
            std::vector<Observation> obs;
            std::size_t under = 0;
            for (const MeasuredRow* r : list) {
                obs.push_back({load_model(r->model), r->workload, r->parallel, r->measured_step});
                Workload ideal = r->workload;
                ideal.efficiency = Efficiency{};
                if (decode_step(Deployment{hw, r->parallel}, obs.back().model, ideal).step_time <= r->measured_step) ++under;
            }
            rows += list.size();
            below += under;
            std::vector<double> e = leave_one_out(hw, obs);
            std::sort(e.begin(), e.end());
            all.insert(all.end(), e.begin(), e.end());
            const auto pct = [](double v) { return fmt::format("{:.1f}%", 100 * v); };
            fmt::print("| {} | {} | {} | {} of {} | {} | {} |\n", key.first, key.second, list.size(), under, list.size(),
                       e.empty() ? "-" : pct(e[e.size() / 2]), e.empty() ? "-" : pct(e.back()));
        }
        std::sort(all.begin(), all.end());
        fmt::print("| all {} groups ({} flagged rows not fitted) | | {} | {} of {} | {:.1f}% | {:.1f}% |\n", groups.size(), flagged, rows, below,
                   rows, all.empty() ? 0.0 : 100 * all[all.size() / 2], all.empty() ? 0.0 : 100 * all.back());
        return 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "accuracy_table: {}\n", e.what());
        return 1;
    }
}
