// The CUDA side of the probe, behind a plain C++ interface so the host program (and ridgeline's
// headers) never pass through nvcc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace probe {

struct DeviceInfo {
    std::string name;
    int driver_version = 0;
    int runtime_version = 0;
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
};

// The shapes of one dense GQA decoder, as ridgeline's Model describes them.
struct Shape {
    int layers, hidden, heads, kv_heads, head_dim, intermediate, vocab;
};

struct StepTiming {
    double median_ms = 0;
    double min_ms = 0;
};

DeviceInfo device_info();

// Bandwidth and FLOP/s the device reaches: a device-to-device copy (bytes read + written), a
// streaming read, and a large bf16 GEMM.
double copy_bytes_per_s(std::size_t bytes, int repeats);
double read_bytes_per_s(std::size_t bytes, int repeats);
double gemm_flop_per_s(int n, int repeats);

// Allocates every layer's weights (bf16, random) and a KV cache of `kv_tokens` tokens per layer,
// then times synthetic decode steps: per layer the q/k/v/o and gate/up/down GEMMs at batch B
// through cuBLAS and a kernel that reads every sequence's K and V, then the LM head.
class DecodeProbe {
public:
    DecodeProbe(const Shape& shape, std::size_t kv_tokens);
    ~DecodeProbe();
    DecodeProbe(const DecodeProbe&) = delete;
    DecodeProbe& operator=(const DecodeProbe&) = delete;

    // B sequences of n tokens each (B * n <= kv_tokens); warm-up, then the median of repeats.
    StepTiming time_step(int batch, int context, int warmup, int repeats);

private:
    struct Impl;
    Impl* impl_;
};

}  // namespace probe
