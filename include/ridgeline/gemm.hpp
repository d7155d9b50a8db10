// Arithmetic intensity of one matrix multiply: a fully-connected layer applied to a batch.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "error.hpp"

#include "formats.hpp"
#include "units.hpp"

namespace ridgeline {

struct GemmCost {
    Flops flops{};
    Bytes bytes{};  // weights once, inputs and outputs once per row of the batch
    FlopsPerByte intensity{};
};

// y[batch x outputs] = x[batch x inputs] * W[inputs x outputs], all in one format.
constexpr GemmCost gemm_cost(std::int64_t outputs, std::int64_t inputs, std::int64_t batch, Format f) {
    for (const auto& [v, what] : {std::pair{outputs, "gemm outputs"}, std::pair{inputs, "gemm inputs"}, std::pair{batch, "gemm batch"}})
        if (v < 1 || v > (std::int64_t{1} << 40)) throw error("", what, std::to_string(v), "an integer from 1 to 2^40");
    const double o = static_cast<double>(outputs), i = static_cast<double>(inputs),
                 b = static_cast<double>(batch);
    GemmCost g;
    g.flops = flop(2.0 * o * i * b);
    g.bytes = (o * i + b * i + b * o) * f.bytes_per_element();
    g.intensity = g.flops / g.bytes;
    return g;
}

}  // namespace ridgeline
