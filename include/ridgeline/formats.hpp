// Number formats: what an element costs in memory, and which compute peak it runs on.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "units.hpp"

namespace ridgeline {

// The element types a device has a separate dense peak for. Block-scaled storage formats
// (MXFP4, group-quantised INT4) map onto one of these for compute.
enum class Numeric : std::uint8_t { fp32, bf16, fp16, fp8, int8, int4, fp4 };

inline constexpr std::array<Numeric, 7> all_numerics{Numeric::fp32, Numeric::bf16, Numeric::fp16,
                                                     Numeric::fp8,  Numeric::int8, Numeric::int4,
                                                     Numeric::fp4};

constexpr std::string_view name_of(Numeric n) noexcept {
    switch (n) {
        case Numeric::fp32: return "fp32";
        case Numeric::bf16: return "bf16";
        case Numeric::fp16: return "fp16";
        case Numeric::fp8: return "fp8";
        case Numeric::int8: return "int8";
        case Numeric::int4: return "int4";
        case Numeric::fp4: return "fp4";
    }
    return "?";
}

constexpr std::optional<Numeric> numeric_from_name(std::string_view name) noexcept {
    for (Numeric n : all_numerics)
        if (name_of(n) == name) return n;
    return std::nullopt;
}

constexpr double element_bits(Numeric n) noexcept {
    switch (n) {
        case Numeric::fp32: return 32;
        case Numeric::bf16:
        case Numeric::fp16: return 16;
        case Numeric::fp8:
        case Numeric::int8: return 8;
        case Numeric::int4:
        case Numeric::fp4: return 4;
    }
    return 0;
}

// How tensors are stored: an element type plus, for block-scaled formats, one scale of
// `scale_bits` per `block` elements. The scales are part of the bytes a step reads.
struct Format {
    Numeric element = Numeric::bf16;
    int scale_bits = 0;
    int block = 0;  // 0: no block scales

    [[nodiscard]] constexpr double bits_per_element() const noexcept {
        const double scales = block > 0 ? static_cast<double>(scale_bits) / block : 0.0;
        return element_bits(element) + scales;
    }
    [[nodiscard]] constexpr Bytes bytes_per_element() const noexcept {
        return bytes(bits_per_element() / 8.0);
    }
    friend constexpr bool operator==(const Format&, const Format&) = default;
};

namespace formats {
inline constexpr Format fp32{Numeric::fp32};
inline constexpr Format bf16{Numeric::bf16};
inline constexpr Format fp16{Numeric::fp16};
inline constexpr Format fp8{Numeric::fp8};
inline constexpr Format int8{Numeric::int8};
inline constexpr Format int4{Numeric::int4};
inline constexpr Format fp4{Numeric::fp4};
// OCP microscaling: 32 FP4 (E2M1) values share one 8-bit power-of-two scale: 4.25 bits.
inline constexpr Format mxfp4{Numeric::fp4, 8, 32};
// NVIDIA NVFP4: 16 FP4 values share one FP8 (E4M3) scale: 4.5 bits.
inline constexpr Format nvfp4{Numeric::fp4, 8, 16};
}  // namespace formats

// A block-scaled format, e.g. INT4 with one FP16 scale per 128 weights (GPTQ/AWQ style).
constexpr Format block_scaled(Numeric element, int scale_bits, int block) noexcept {
    return Format{element, scale_bits, block};
}

}  // namespace ridgeline
