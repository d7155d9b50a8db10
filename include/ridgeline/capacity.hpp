// What fits in device memory beside the weights: KV tokens, the largest batch at a context,
// the longest context at a batch. "Does not fit" is a result (nullopt), never a negative.
#pragma once

#include <cstdint>
#include <optional>

#include "hardware.hpp"
#include "model.hpp"
#include "workload.hpp"

namespace ridgeline {

struct KvCapacity {
    Bytes weight_bytes{};  // every parameter is resident, whatever a step reads
    Bytes free_bytes{};    // capacity left for KV; 0 when the weights do not fit
    bool weights_fit = false;
    double kv_tokens = 0;  // whole tokens of KV that fit in free_bytes
};

// Memory holds every parameter, so this uses the every-parameter weight bytes.
constexpr KvCapacity kv_capacity(const Hardware& hw, const Model& m, const Precision& p) {
    KvCapacity c;
    c.weight_bytes = parameter_count(m) * p.weights.bytes_per_element();
    c.weights_fit = c.weight_bytes <= hw.memory_capacity;
    if (!c.weights_fit) return c;
    c.free_bytes = hw.memory_capacity - c.weight_bytes;
    const double per_token = kv_bytes_per_token(m, p.kv).in(bytes);
    c.kv_tokens = static_cast<double>(static_cast<std::int64_t>(c.free_bytes.in(bytes) / per_token));
    return c;
}

// The most sequences of `context` tokens whose KV fits; nullopt when not even one does.
constexpr std::optional<std::int64_t> largest_batch(const Hardware& hw, const Model& m, const Precision& p,
                                                    std::int64_t context) {
    if (context < 1) throw error("", "context", std::to_string(context), "an integer >= 1 tokens");
    const KvCapacity c = kv_capacity(hw, m, p);
    const auto batch = static_cast<std::int64_t>(c.kv_tokens) / context;
    if (batch < 1) return std::nullopt;
    return batch;
}

// The longest context each of `batch` sequences can hold; nullopt when not one token each fits.
constexpr std::optional<std::int64_t> longest_context(const Hardware& hw, const Model& m, const Precision& p,
                                                      std::int64_t batch) {
    if (batch < 1) throw error("", "batch", std::to_string(batch), "an integer >= 1");
    const KvCapacity c = kv_capacity(hw, m, p);
    const auto context = static_cast<std::int64_t>(c.kv_tokens) / batch;
    if (context < 1) return std::nullopt;
    return context;
}

}  // namespace ridgeline
