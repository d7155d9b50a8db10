// Seed 001: "decode is slow, so let's switch to a smaller FLOP model" is the wrong move. Cut 30%
// of the FLOPs, or 30% of the bytes, and see which moves the time per token, at batch 1 and at a
// batch that is compute-bound.
#include <fmt/core.h>

#include <ridgeline/fmt.hpp>
#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

#include <exception>

using namespace ridgeline;

int main() {
    try {
        const Model m = load_model("llama-3.3-70b");
        for (const char* device : {"a100-80gb", "h100-sxm"}) {
            const Hardware h = load_hardware(device);
            const FlopsPerSecond peak = h.require_peak(Numeric::bf16);
            fmt::print("{} on {}, BF16, context 128, attention FLOPs counted\n", m.name, h.name);
            fmt::print("{:>7}  {:>10}  {:>10}  {:>8}  {:>17}  {:>17}\n", "batch", "TPOT", "bound", "FLOP/B", "30% fewer FLOPs",
                       "30% fewer bytes");
            for (std::int64_t batch : {1, 64, 1024}) {
                const Workload w{.batch = batch, .context = 128};  // attention FLOPs are counted by default
                const DecodeStep d = decode_step(h, m, w);
                const Seconds fewer_flops = roofline_time(d.bytes_per_device, 0.7 * d.flops, h.memory_bandwidth, peak);
                const Seconds fewer_bytes = roofline_time(0.7 * d.bytes_per_device, d.flops, h.memory_bandwidth, peak);
                fmt::print("{:>7}  {:>7.2f} ms  {:>10}  {:>8.1f}  {:>16.1f}%  {:>16.1f}%\n", batch, d.step_time.in(ms), d.bound,
                           d.arithmetic_intensity.in(flop_per_byte),
                           100 * static_cast<double>((d.step_time - fewer_flops) / d.step_time),
                           100 * static_cast<double>((d.step_time - fewer_bytes) / d.step_time));
            }
            fmt::print("\n");
        }
        fmt::print("At batch 1 the FLOPs finish long before the bytes arrive: cutting them saves 0%.\n"
                   "Only past the ridge batch, where the step is compute-bound, do fewer FLOPs pay.\n");
        return 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "wrong_axis: {}\n", e.what());
        return 1;
    }
}
