// How many devices of which kind serve N concurrent users at a TPOT target and a context?
//     capacity_planner [model] [users] [context] [tpot_ms]     defaults: llama-3.3-70b 256 8192 50
// For every hardware preset and tensor-parallel degree, the fewest replicas whose batch fits in
// each device's memory budget (its share of the weights, its sequences' KV, the activation
// workspace, under the default 0.9 memory fraction and 1 GiB reserve) and whose decode step
// meets the target; fewest devices first. No prices: ridgeline has no sourced figures for them.
#include <fmt/core.h>

#include <ridgeline/fmt.hpp>
#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

#include <algorithm>
#include <exception>
#include <string>
#include <vector>

using namespace ridgeline;

namespace {
struct Plan {
    std::string hardware;
    std::int64_t tensor = 1, replicas = 0, batch = 0;
    DecodeStep step{};
    [[nodiscard]] std::int64_t devices() const { return tensor * replicas; }
};

std::int64_t parse(const char* s, const char* what) {
    const std::string v(s);
    if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 9)
        throw error("", what, v, "a positive integer");
    const auto n = std::stoll(v);
    if (n < 1) throw error("", what, v, "a positive integer");
    return n;
}
}  // namespace

int main(int argc, char** argv) {
    try {
        const Model m = load_model(argc > 1 ? argv[1] : "llama-3.3-70b");
        const std::int64_t users = argc > 2 ? parse(argv[2], "users") : 256;
        const std::int64_t context = argc > 3 ? parse(argv[3], "context") : 8192;
        const Seconds target = ms(static_cast<double>(argc > 4 ? parse(argv[4], "tpot_ms") : 50));
        fmt::print("{} for {} concurrent users at {} tokens of context, TPOT at most {:.0f} ms, BF16, ideal ceilings\n\n",
                   m.name, users, context, target.in(ms));
        std::vector<Plan> plans;
        for (const auto& name : list_presets(PresetKind::hardware)) {
            const Hardware h = load_hardware(name);
            if (!h.peak_for(Numeric::bf16)) continue;  // V100: no BF16 tensor cores
            for (std::int64_t t : {1, 2, 4, 8}) {
                Workload w{.context = context};
                const Deployment group{h, Parallelism{.tensor = t}};
                if (t > 1 && !h.interconnect_bandwidth) continue;
                try {
                    validate(group, m);  // t must split the model's heads
                } catch (const error&) {
                    continue;
                }
                // Memory: the same per-device budget every step result reports.
                const auto fits = largest_batch(group, m, w, context);
                if (!fits) continue;
                // The fewest replicas whose per-replica batch fits and meets the TPOT.
                for (std::int64_t replicas = (users + *fits - 1) / *fits; replicas <= users; ++replicas) {
                    w.batch = (users + replicas - 1) / replicas;
                    const DecodeStep d = decode_step(group, m, w);
                    if (d.step_time <= target && d.fits()) {
                        plans.push_back({name, t, replicas, w.batch, d});
                        break;
                    }
                    if (w.batch == 1) break;  // even one user per replica is too slow
                }
            }
        }
        std::sort(plans.begin(), plans.end(), [](const Plan& a, const Plan& b) {
            return a.devices() != b.devices() ? a.devices() < b.devices() : a.step.step_time < b.step.step_time;
        });
        fmt::print("{:<12}{:>4}{:>10}{:>9}{:>8}{:>11}{:>12}{:>10}\n", "hardware", "tp", "replicas", "devices", "batch",
                   "TPOT", "tok/s/seq", "bound");
        for (const Plan& p : plans)
            fmt::print("{:<12}{:>4}{:>10}{:>9}{:>8}{:>8.2f} ms{:>12.1f}{:>10}\n", p.hardware, p.tensor, p.replicas, p.devices(),
                       p.batch, p.step.step_time.in(ms), p.step.tokens_per_s.in(per_s), p.step.bound);
        if (plans.empty()) fmt::print("no preset meets the target\n");
        return 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "capacity_planner: {}\n", e.what());
        return 1;
    }
}
