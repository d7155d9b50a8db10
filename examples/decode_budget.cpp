// Seed 003's decode budget on an H100, from the presets in data/: batch-1 tok/s at 4k, 32k and
// 128k context, the Qwen3-32B ridge-batch column, and n* for each model. Then the same models
// counted from their config.json architectures, in both weight accountings.
#include <fmt/core.h>

#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

#include <cstdint>
#include <exception>
#include <string>

using namespace ridgeline;

namespace {

// Seed 003 computes with rounded parameter counts (its table's 16.06 / 65.60 / 141.20 GB).
struct SeedModel {
    const char* preset;
    double seed_params;
};
constexpr SeedModel seed_models[] = {{"llama-3.1-8b", 8.03e9}, {"qwen3-32b", 32.8e9}, {"llama-3.3-70b", 70.6e9}};
constexpr std::int64_t contexts[] = {4096, 32768, 131072};

// Seed 003's assumptions (assumptions::seed_003), with its accounting or the bytes a step reads.
Workload seed(std::int64_t context, WeightAccounting a = WeightAccounting::every_parameter) {
    Assumptions counted = assumptions::seed_003;
    counted.accounting = a;
    return Workload{.context = context, .assumptions = counted};
}

double tok_s(const Hardware& h, const Model& m, std::int64_t context, WeightAccounting a) {
    return decode_step(h, m, seed(context, a)).tokens_per_s.in(per_s);
}

std::string ridge_cell(const RidgeBatch& r) { return r.is_never() ? "never" : fmt::format("{:.0f}", r.value()); }

void run() {
    const Hardware h100 = load_hardware("h100-sxm");
    const Numeric bf16 = Numeric::bf16;
    fmt::print("Decode budget on {}: {:.2f} TB/s, {:.0f} TFLOP/s dense BF16, ops:byte {:.1f}\n",
               h100.name.view(), h100.memory_bandwidth.in(TB_per_s), h100.require_peak(bf16).in(TFLOP_per_s),
               ops_per_byte(h100, bf16).in(flop_per_byte));
    fmt::print("Batch 1, BF16 weights and KV cache, every parameter read once per step (seed 003's accounting).\n\n");

    fmt::print("{:<15}{:>8}{:>11}{:>10}{:>10}{:>11}{:>12}\n", "model", "params", "weights", "KV/token", "4k tok/s",
               "32k tok/s", "128k tok/s");
    for (const auto& s : seed_models) {
        const Model m = load_model(s.preset).with_parameters(s.seed_params).with_max_context(131072);
        const DecodeStep d = decode_step(h100, m, seed(0));
        fmt::print("{:<15}{:>6.3g}e9{:>8.2f} GB{:>6.0f} KiB", s.preset, parameter_count(m) / 1e9, d.weight_bytes.in(GB),
                   kv_bytes_per_token(m, formats::bf16).in(KiB));
        fmt::print("{:>10.1f}{:>11.1f}{:>12.1f}\n", tok_s(h100, m, contexts[0], WeightAccounting::every_parameter),
                   tok_s(h100, m, contexts[1], WeightAccounting::every_parameter),
                   tok_s(h100, m, contexts[2], WeightAccounting::every_parameter));
    }

    // Qwen3-32B's config.json stops at 40,960 tokens; its card allows 131,072 with YaRN, as seed 003 uses.
    const Model qwen = load_model("qwen3-32b").with_parameters(32.8e9).with_max_context(131072);
    fmt::print("\nRidge batch for qwen3-32b, the batch past which a step is compute-bound:\n");
    fmt::print("{:<14}", "  context");
    for (std::int64_t n : {0, 128, 512, 848, 4096, 131072}) fmt::print("{:>8}", n);
    fmt::print("\n{:<14}", "  ridge batch");
    for (std::int64_t n : {0, 128, 512, 848, 4096, 131072})
        fmt::print("{:>8}", ridge_cell(ridge_batch(h100, qwen, seed(n))));
    fmt::print("\n\nn*, the context past which no batch is compute-bound:\n");
    for (const auto& s : seed_models) {
        const Model m = load_model(s.preset).with_parameters(s.seed_params);
        fmt::print("  {:<15}{:>6.0f} tokens\n", s.preset, *n_star(h100, m, seed(0)));
    }

    fmt::print("\nThe same budget with parameters counted from each config.json, charging every parameter\n"
               "or only the bytes a step reads (one embedding row per sequence, not the whole table):\n\n");
    fmt::print("{:<15}{:>15}{:>19}{:>19}{:>19}\n", "model", "params", "4k tok/s", "32k tok/s", "128k tok/s");
    fmt::print("{:<15}{:>15}{:>19}{:>19}{:>19}\n", "", "", "all / read", "all / read", "all / read");
    for (const auto& s : seed_models) {
        const Model m = load_model(s.preset).with_max_context(131072);
        fmt::print("{:<15}{:>15}", s.preset, static_cast<std::int64_t>(parameter_count(m)));
        for (auto n : contexts)
            fmt::print("{:>11.1f} / {:>5.1f}", tok_s(h100, m, n, WeightAccounting::every_parameter),
                       tok_s(h100, m, n, WeightAccounting::bytes_read));
        fmt::print("\n");
    }
}

}  // namespace

int main() {
    try {
        run();
        return 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "decode_budget: {}\n", e.what());
        return 1;
    }
}
