// A device: how much it holds, how fast it reads memory, how fast it computes per format.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "error.hpp"
#include "formats.hpp"
#include "name.hpp"
#include "units.hpp"

namespace ridgeline {

struct Hardware {
    Name name;
    Bytes memory_capacity{};
    BytesPerSecond memory_bandwidth{};
    // Dense (no 2:4 sparsity) peak per compute numeric; absent where the device has no such
    // tensor-core path (an A100 has no FP8), never zero.
    std::array<std::optional<FlopsPerSecond>, all_numerics.size()> peak{};
    // The scale-up link (NVLink, xGMI, ICI) per device, both directions together.
    std::optional<BytesPerSecond> interconnect_bandwidth{};
    // Memory as the device reports it to software (nvidia-smi's total), which is what an engine
    // budgets from; unset: memory_capacity. An "80 GB" H100 reports 81,559 MiB.
    std::optional<Bytes> memory_reported{};
    // Devices that share one scale-up domain at the full interconnect bandwidth (8 in an HGX
    // board, 72 in a GB200 NVL72 rack); traffic among more devices leaves it.
    std::int64_t scale_up_domain = 1;
    // How the scale-up link joins a domain: through a switch (NVSwitch), which gives any group the
    // whole link, or as a mesh (AMD's Infinity Fabric, Gaudi's RoCE ports), each device's link
    // split evenly over direct links to its domain - 1 peers, so a group of g uses g - 1 of them.
    // Partial meshes and tori (a DGX-1's V100 cube-mesh, TPU ICI) are neither, and are charged as
    // a switch: an upper bound on what a small group gets.
    bool scale_up_mesh = false;
    std::optional<Seconds> scale_up_latency{};   // per message, per hop on the scale-up link
    std::optional<BytesPerSecond> scale_out_bandwidth{};  // per device, both directions together
    std::optional<Seconds> scale_out_latency{};  // per message on the scale-out network
    // The memory bandwidth a streaming microbenchmark (BabelStream, a copy kernel) measured on the
    // device, at most the peak: what a one-row calibration holds the bandwidth efficiency at, since
    // one row cannot tell a slower read from a fixed time (calibrate.hpp).
    std::optional<BytesPerSecond> measured_bandwidth{};
    // An NVIDIA device's CUDA compute capability (8.0 for an A100): which engine kernels run on it
    // where no peak says, as vLLM's weight-only FP8 kernel, which needs 8.0 (plan.hpp).
    std::optional<double> cuda_capability{};

    // What an engine's memory budget starts from.
    [[nodiscard]] constexpr Bytes usable_memory() const noexcept { return memory_reported ? *memory_reported : memory_capacity; }

    [[nodiscard]] constexpr std::optional<FlopsPerSecond> peak_for(Numeric n) const noexcept {
        return peak[static_cast<std::size_t>(n)];
    }
    // The peak for `n`, or an error naming the device and the missing format.
    [[nodiscard]] constexpr FlopsPerSecond require_peak(Numeric n) const {
        if (auto p = peak_for(n)) return *p;
        throw error("", "hardware '" + std::string(name.view()) + "' compute peak",
                    std::string(name_of(n)), "a format this device has a dense peak for");
    }
    constexpr Hardware& with_peak(Numeric n, FlopsPerSecond value) noexcept {
        peak[static_cast<std::size_t>(n)] = value;
        return *this;
    }
    friend constexpr bool operator==(const Hardware&, const Hardware&) = default;
};

// A device built in code, held to the hardware schema's bounds (hardware_json.hpp): figures in
// [0.001, 1e9) of their unit, latencies from 0 to 1 s, a domain of 1 to 100,000 devices, and a
// measured bandwidth at most the peak. A zero or NaN bandwidth would give a NaN step.
constexpr void validate(const Hardware& hw) {
    // The messages are built only when thrown, so a valid device is checked in constant expressions.
    const auto who = [&hw](std::string_view what) { return "hardware '" + std::string(hw.name.view()) + "' " + std::string(what); };
    const auto figure = [&](double v, std::string_view what, const char* unit) {
        if (!(v >= 1e-3 && v < 1e9))
            throw error("", who(what), number_text(v) + " " + unit, std::string("a figure from 0.001 to below 1e9 ") + unit);
    };
    const auto latency = [&](const std::optional<Seconds>& t, const char* what) {
        if (t && !(*t >= Seconds{} && *t <= s(1))) throw error("", who(what), number_text(t->in(us)) + " us", "a time from 0 to 1 s");
    };
    figure(hw.memory_capacity.in(GB), "memory_capacity", "GB");
    figure(hw.memory_bandwidth.in(GB_per_s), "memory_bandwidth", "GB/s");
    if (hw.memory_reported) figure(hw.memory_reported->in(MiB), "memory_reported", "MiB");
    for (const Numeric n : all_numerics)
        if (const auto p = hw.peak_for(n); p && !(p->in(TFLOP_per_s) >= 1e-3 && p->in(TFLOP_per_s) < 1e9))
            figure(p->in(TFLOP_per_s), "peak " + std::string(name_of(n)), "TFLOP/s");
    if (hw.interconnect_bandwidth) figure(hw.interconnect_bandwidth->in(GB_per_s), "interconnect_bandwidth", "GB/s");
    if (hw.scale_out_bandwidth) figure(hw.scale_out_bandwidth->in(GB_per_s), "scale_out_bandwidth", "GB/s");
    if (hw.measured_bandwidth) {
        figure(hw.measured_bandwidth->in(GB_per_s), "measured_bandwidth", "GB/s");
        if (*hw.measured_bandwidth > hw.memory_bandwidth)
            throw error("", who("measured_bandwidth"), number_text(hw.measured_bandwidth->in(GB_per_s)) + " GB/s",
                        "at most the peak memory_bandwidth (" + number_text(hw.memory_bandwidth.in(GB_per_s)) + " GB/s)");
    }
    latency(hw.scale_up_latency, "scale_up_latency");
    latency(hw.scale_out_latency, "scale_out_latency");
    if (hw.scale_up_domain < 1 || hw.scale_up_domain > 100000)
        throw error("", who("scale_up_domain"), std::to_string(hw.scale_up_domain), "an integer from 1 to 100000 devices");
    if (hw.cuda_capability && !(*hw.cuda_capability >= 1 && *hw.cuda_capability <= 20))
        throw error("", who("cuda_capability"), number_text(*hw.cuda_capability), "a CUDA compute capability from 1 to 20, e.g. 8.0 for an A100");
}


// The format a 16-bit model computes in on a device when none is asked for: bf16, or fp16 where
// the device has no bf16 peak (a V100), as engines run such checkpoints there: vLLM's
// supported_dtypes below compute capability 8.0 are [float16, float32], and its --dtype auto
// casts a bf16 checkpoint to the first (vllm-project/vllm@1c0d9ecf5bad600df3e001bf642dd48c5ed25cc6
// vllm/platforms/cuda.py).
constexpr Numeric default_compute(const Hardware& hw) noexcept {
    return !hw.peak_for(Numeric::bf16) && hw.peak_for(Numeric::fp16) ? Numeric::fp16 : Numeric::bf16;
}

// ops:byte: the arithmetic intensity above which work on this device is compute-bound.
constexpr FlopsPerByte ops_per_byte(const Hardware& hw, Numeric compute) {
    validate(hw);  // a bandwidth of 0 would give an infinite ratio
    return hw.require_peak(compute) / hw.memory_bandwidth;
}

}  // namespace ridgeline
