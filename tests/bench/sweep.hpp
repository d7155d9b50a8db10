// The 1,000,000-configuration sweep shared by the benchmark and the comparison script:
// 50 batches x 50 contexts x 10 dense models x 10 devices x 4 precisions. The Python
// transcription of seed 003 (seed003_sweep.py) walks the same grid.
#pragma once

#include <array>
#include <cstdint>

namespace sweep {

inline constexpr std::array<const char*, 10> models = {"llama-2-7b",   "llama-2-13b",  "llama-2-70b", "llama-3.1-8b",
                                                       "llama-3.1-70b", "llama-3.1-405b", "llama-3.3-70b", "qwen3-8b",
                                                       "qwen3-32b",    "mistral-7b-v0.1"};
inline constexpr std::array<const char*, 10> devices = {"h100-sxm", "h100-pcie", "h100-nvl", "h200",    "b200",
                                                        "gb200",    "a100-80gb", "l40s",     "mi300x",  "mi325x"};
// Weight bytes per parameter; KV and math stay BF16 (seed 003's decode_budget has one dtype).
inline constexpr std::array<double, 4> weight_bytes = {2.0, 1.0, 0.5, 0.53125};  // bf16, fp8, int4, int4/g128

inline std::int64_t batch(int i) { return 1 + 20 * i; }      // 1 .. 981
inline std::int64_t context(int j) { return 600 * j; }       // 0 .. 29,400
inline constexpr int batches = 50, contexts = 50;
inline constexpr std::int64_t configurations =
    std::int64_t{batches} * contexts * static_cast<std::int64_t>(models.size() * devices.size() * weight_bytes.size());

}  // namespace sweep
