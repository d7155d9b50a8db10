// From measured tok/s to a diagnosis: seed 001's "70-100 tok/s for Llama-3 70B on one H100",
// seed 003's 50 and 30 tok/s on Qwen3-32B, and gpt-fast's published A100 rows.
#include <fmt/core.h>

#include <ridgeline/diagnose.hpp>
#include <ridgeline/fmt.hpp>
#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

#include <exception>

using namespace ridgeline;

namespace {
void explain(const Diagnosis& d) {
    fmt::print("  ceiling {:.1f} tok/s, measured {:.1f} tok/s: {:.0f}% of it, implies {:.2f} TB/s ({:.0f}% of peak): {}\n",
               d.ceiling.tokens_per_s.in(per_s), 1.0 / d.measured_step.in(s), 100 * d.fraction_of_ceiling,
               d.implied_bandwidth.in(TB_per_s), 100 * d.bandwidth_utilisation, d.verdict);
    if (d.verdict == Verdict::gap)
        fmt::print("  the missing {:.0f}% is kernel efficiency, launch overhead or configuration\n", 100 * d.gap);
    if (d.verdict == Verdict::above_ceiling) {
        fmt::print("  any one of these would explain it:\n");
        if (d.max_bits_per_weight)
            fmt::print("    - the linear layers stored in at most {:.2f} bits a weight (the embeddings and LM head as they are)\n", *d.max_bits_per_weight);
        if (d.min_devices) fmt::print("    - at least {} devices, a larger tensor-parallel degree that fits, links included\n", *d.min_devices);
        if (d.min_acceptance)
            fmt::print("    - speculative decoding with {} drafts accepted at least {:.1f}% of the time ({:.2f} tokens a verification, "
                       "the mean acceptance length engines report)\n",
                       d.draft_tokens, 100 * *d.min_acceptance, *d.min_accepted_tokens);
    }
}
}  // namespace

int main() {
    try {
        const Hardware h100 = load_hardware("h100-sxm");
        const Model llama = load_model("llama-3.3-70b");
        for (double tok_s : {70.0, 100.0}) {
            fmt::print("Seed 001: {} at {:.0f} tok/s on one {}, BF16, batch 1, 4k context\n", llama.name, tok_s, h100.name);
            explain(diagnose(h100, llama, Workload{.context = 4096, .assumptions = assumptions::seed_003}, s(1.0 / tok_s)));
        }
        const Model qwen = load_model("qwen3-32b");
        for (double tok_s : {50.0, 30.0}) {
            fmt::print("\nSeed 003: {} at {:.0f} tok/s on {}, BF16, batch 1, 4k context\n", qwen.name, tok_s, h100.name);
            explain(diagnose(h100, qwen, Workload{.context = 4096, .assumptions = assumptions::seed_003}, s(1.0 / tok_s)));
        }
        const MeasurementSet set = load_measurements("gpt-fast");
        fmt::print("\n{}\n", set.source);
        fmt::print("{:<16}{:<14}{:>4}{:>9}{:>10}{:>11}{:>10}{:>7}\n", "model", "weights", "gpus", "tok/s", "ceiling",
                   "implied", "gpt-fast", "MBU");
        for (const MeasuredRow& r : set.rows) {
            const Diagnosis d = diagnose(Deployment{load_hardware(r.hardware), r.parallel}, load_model(r.model), r.workload, r.measured_step);
            fmt::print("{:<16}{:<14}{:>4}{:>9.2f}{:>10.1f}{:>6.0f} GB/s{:>10.0f}{:>6.0f}%{}\n", r.model,
                       r.workload.precision.weights, r.parallel.tensor, 1.0 / r.measured_step.in(s),
                       d.ceiling.tokens_per_s.in(per_s), d.implied_bandwidth.in(GB_per_s), *r.source_GB_per_s,
                       100 * d.bandwidth_utilisation, r.hardware == "mi250x" ? "  (MI250X GCD)" : "");
        }
        fmt::print("\nImplied bandwidth counts the bytes one GPU reads per step (one embedding row per token, every other\n"
                   "weight once, the KV cache); gpt-fast's own figure is its model size (embedding tables left out, KV\n"
                   "buffers in) times tok/s, hence the differences.\n");
        return 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "diagnose_measurement: {}\n", e.what());
        return 1;
    }
}
