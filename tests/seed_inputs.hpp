// The inputs the seed documents compute with, as they state them, so that tests reproduce
// the documents' figures from the documents' own numbers. Presets in data/ are tested
// against these separately (tests/data).
#pragma once

#include <ridgeline/ridgeline.hpp>

namespace seed {

using namespace ridgeline;

// The seed documents' figures count what seed 003 counts: every parameter, 2 FLOPs per
// parameter (the embedding table too), no attention FLOPs, the datasheet's memory whole.
constexpr Workload seed_003(Workload w) {
    w.assumptions = assumptions::seed_003;
    return w;
}

// Seed 003 script: "BW = 3.35e12  # H100 SXM HBM3" and "F = 989e12  # H100 SXM BF16 dense".
constexpr Hardware h100_seed003() {
    Hardware h{"H100 SXM (seed 003)", GB(80), TB_per_s(3.35)};
    h.with_peak(Numeric::bf16, TFLOP_per_s(989));
    // W8A8 what-ifs run FP8 math at twice the BF16 rate, as on the H100 datasheet.
    h.with_peak(Numeric::fp8, TFLOP_per_s(2 * 989));
    return h;
}

// Seed 000: "Dividing 140 GB by the 3 TB/s of H100 ... At 989 TFLOPS".
constexpr Hardware h100_seed000() {
    Hardware h{"H100 (seed 000)", GB(80), TB_per_s(3)};
    h.with_peak(Numeric::bf16, TFLOP_per_s(989));
    h.with_peak(Numeric::fp16, TFLOP_per_s(989));
    return h;
}

// Seed 001: "on an A100 at 2 TB/s".
constexpr Hardware a100_seed001() {
    Hardware h{"A100 (seed 001)", GB(80), TB_per_s(2)};
    h.with_peak(Numeric::bf16, TFLOP_per_s(312));
    return h;
}

// Seed 002: "An A10 delivers 125 TFLOPS against 600 GB/s"; "An A100 delivers 312 TFLOPS
// against ~1.5 TB/s"; the scaling book's TPU v5e (197 TFLOPS, 819 GB/s: Google's v5e page).
constexpr Hardware a10_seed002() {
    Hardware h{"A10 (seed 002)", GB(24), GB_per_s(600)};
    h.with_peak(Numeric::fp16, TFLOP_per_s(125));
    h.with_peak(Numeric::bf16, TFLOP_per_s(125));
    return h;
}
constexpr Hardware a100_seed002() {
    Hardware h{"A100 (seed 002)", GB(40), TB_per_s(1.5)};
    h.with_peak(Numeric::bf16, TFLOP_per_s(312));
    return h;
}
constexpr Hardware tpu_v5e() {
    Hardware h{"TPU v5e", GB(16), GB_per_s(819)};
    h.with_peak(Numeric::bf16, TFLOP_per_s(197));
    return h;
}

// Architectures from the models' config.json (../shared/facts/models.md); parameter counts as
// seed 003 uses them (NOTES.md: "Llama-3.1-8B 8.03e9, Qwen3-32B 32.8e9, Llama-3.3-70B 70.6e9").
constexpr Model llama31_8b_seed003() {
    Model m = dense_model("llama-3.1-8b", 32, 4096, 32, 8, 128, 14336, 128256);
    return m.with_parameters(8.03e9);
}
constexpr Model qwen3_32b_seed003() {
    Model m = dense_model("qwen3-32b", 64, 5120, 64, 8, 128, 25600, 151936);
    std::get<Gqa>(m.groups[0].spec.attention).qk_norm = true;
    return m.with_parameters(32.8e9);
}
constexpr Model llama33_70b_seed003() {
    Model m = dense_model("llama-3.3-70b", 80, 8192, 64, 8, 128, 28672, 128256);
    return m.with_parameters(70.6e9);
}

// Seeds 000 and 001 speak of "Llama-70B" with "70 billion parameters".
constexpr Model llama_70b_rounded() {
    Model m = dense_model("llama-70b", 80, 8192, 64, 8, 128, 28672, 128256);
    return m.with_parameters(70e9);
}

// Seed 002: Llama-2-7B "14 GB of FP16 weights" (7e9 parameters), LLaMA-2-13B.
constexpr Model llama2_7b() { return dense_model("llama-2-7b", 32, 4096, 32, 32, 128, 11008, 32000); }
constexpr Model llama2_13b() { return dense_model("llama-2-13b", 40, 5120, 40, 40, 128, 13824, 32000); }

// Rounds half away from zero to `digits` decimals, as the documents print.
constexpr double round_to(double x, int digits) {
    double scale = 1;
    for (int i = 0; i < digits; ++i) scale *= 10;
    const double y = x * scale;
    const auto whole = static_cast<long long>(y < 0 ? y - 0.5 : y + 0.5);
    return static_cast<double>(whole) / scale;
}

// |a - b| <= tol, for static_assert.
constexpr bool near(double a, double b, double tol) { return (a > b ? a - b : b - a) <= tol; }

}  // namespace seed
