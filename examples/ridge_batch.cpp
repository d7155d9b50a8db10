// The ridge batch by context and n* for any model on any device (seed 003's ridge column).
//     ridge_batch [model] [hardware]      defaults: qwen3-32b h100-sxm
#include <fmt/core.h>

#include <ridgeline/fmt.hpp>
#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

#include <exception>

using namespace ridgeline;

int main(int argc, char** argv) {
    try {
        const Model m = load_model(argc > 1 ? argv[1] : "qwen3-32b");
        const Hardware h = load_hardware(argc > 2 ? argv[2] : "h100-sxm");
        fmt::print("{} on {}: BF16, every parameter read once, {:.4g}e9 parameters from its config.json\n", m.name,
                   h.name, parameter_count(m) / 1e9);
        fmt::print("ops:byte {:.1f}: past this many FLOPs per byte a step is compute-bound\n\n",
                   ops_per_byte(h, Numeric::bf16).in(flop_per_byte));
        fmt::print("{:>9}  {:>11}  {}\n", "context", "ridge batch", "what it means");
        for (std::int64_t n : {0, 64, 128, 256, 512, 768, 1024, 4096, 32768, 131072}) {
            if (m.max_context > 0 && n > m.max_context) {
                fmt::print("{:>9}  {:>11}  past max_position_embeddings ({})\n", n, "-", m.max_context);
                continue;
            }
            const RidgeBatch r = ridge_batch(h, m, Workload{.context = n});
            fmt::print("{:>9}  {:>11.0f}  {}\n", n, r,
                       r.is_never() ? "memory-bound at every batch" : "batches above this are compute-bound");
        }
        const auto nstar = n_star(h, m, Workload{});
        if (nstar) fmt::print("\nn* = {:.1f} tokens: past it, each added sequence brings more KV time than compute time\n", *nstar);
        else fmt::print("\nn* does not exist: the ridge survives every context\n");
        return 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "ridge_batch: {}\n", e.what());
        return 1;
    }
}
