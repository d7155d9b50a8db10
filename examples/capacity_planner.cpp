// Which deployment should I rent? For Llama-3.1-70B and Qwen3-30B-A3B serving 64 users in a
// conversation (8,192 tokens of context, of which 256 are the new prompt, 512 tokens out) at a
// TPOT of at most 30 ms, on H100 or H200, with BF16 or FP8 weights: the planner's three best
// plans, first by device count (no prices), then by cost per million output tokens with H100s at
// 2.50 and H200s at 3.50 an hour. Ideal ceilings, BF16 KV cache, 0.9 of each device's memory.
//     capacity_planner [model ...]
#include <fmt/core.h>

#include <ridgeline/fmt.hpp>
#include <ridgeline/json.hpp>
#include <ridgeline/plan.hpp>

#include <exception>
#include <string>
#include <vector>

using namespace ridgeline;

namespace {
void show(const PlanResult& p, bool priced) {
    std::string head = fmt::format("  {:<10}{:>8}{:>4}{:>4}{:>4}{:>8}{:>8}{:>15}{:>7}{:>11}{:>11}{:>11}{:>12}", "hardware", "devices", "tp", "pp",
                                   "ep", "attn dp", "weights", "mode", "batch", "TPOT", "max ITL", "TTFT", "tok/s/dev");
    fmt::print("{}{}\n", head, priced ? "  per M tokens" : "");
    for (std::size_t i = 0; i < p.plans.size() && i < 3; ++i) {
        const PlanRow& r = p.plans[i];
        fmt::print("  {:<10}{:>8}{:>4}{:>4}{:>4}{:>8}{:>8}{:>15}{:>7}{:>8.2f} ms{:>8.2f} ms{:>8.1f} ms{:>12.1f}{}\n", r.device, r.devices, r.parallel.tensor,
                   r.parallel.pipeline, r.parallel.expert, r.parallel.attention_data, format_name(r.weights), mode_name(r.mode), r.serving.batch,
                   r.serving.tpot.in(ms), r.serving.max_itl.in(ms), r.serving.ttft.in(ms), r.serving.tokens_per_s_per_device.in(per_s),
                   r.cost_per_million_tokens ? fmt::format("{:>14.3f}", *r.cost_per_million_tokens) : "");
    }
    fmt::print("  {}\n", p.verdict);
}
}  // namespace

int main(int argc, char** argv) {
    try {
        std::vector<std::string> models{"llama-3.1-70b", "qwen3-30b-a3b"};
        if (argc > 1) models.assign(argv + 1, argv + argc);
        for (const std::string& name : models) {
            PlanRequest r;
            r.model = load_model(name);
            r.devices = {{"h100-sxm", load_hardware("h100-sxm"), std::nullopt}, {"h200", load_hardware("h200"), std::nullopt}};
            r.traffic = Traffic{8192, 512, 7936};
            r.users = 64;
            r.tpot_target = ms(30);
            r.max_devices = 8;
            fmt::print("{}: 64 users, 8,192-token context (256 new), 512 out, TPOT <= 30 ms\n", name);
            fmt::print(" fewest devices:\n");
            show(plan(r), false);
            r.devices[0].price_per_hour = 2.50;
            r.devices[1].price_per_hour = 3.50;
            fmt::print(" cheapest, at 2.50 (H100) and 3.50 (H200) a device-hour:\n");
            show(plan(r), true);
            fmt::print("\n");
        }
        return 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "capacity_planner: {}\n", e.what());
        return 1;
    }
}
