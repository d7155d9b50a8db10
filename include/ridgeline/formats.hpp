// Number formats: what an element costs in memory, and which compute peak it runs on.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
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

// The formats a recurrent layer (Mamba-2, Gated DeltaNet) keeps its per-sequence state in: the
// convolution's last inputs and the state matrices. Engines keep both apart from the KV cache:
// vLLM's mamba_cache_dtype sets both ("auto", the default: the model's dtype) and its
// mamba_ssm_cache_dtype the matrices alone; the KV's dtype never enters
// (vllm-project/vllm@02d710837549a368073552333f66d714477415d2
// vllm/model_executor/layers/mamba/mamba_utils.py, MambaStateDtypeCalculator._mamba_state_dtype).
struct StateFormats {
    Format conv = formats::bf16;
    Format matrices = formats::bf16;
    friend constexpr bool operator==(const StateFormats&, const StateFormats&) = default;
};

// A block-scaled format, e.g. INT4 with one FP16 scale per 128 weights (GPTQ/AWQ style).
constexpr Format block_scaled(Numeric element, int scale_bits, int block) noexcept {
    return Format{element, scale_bits, block};
}

namespace format_detail {
constexpr std::optional<int> parse_positive(std::string_view s) {
    if (s.empty() || s.size() > 6) return std::nullopt;
    int v = 0;
    for (char ch : s) {
        if (ch < '0' || ch > '9') return std::nullopt;
        v = v * 10 + (ch - '0');
    }
    return v > 0 ? std::optional<int>{v} : std::nullopt;
}
}  // namespace format_detail

namespace format_detail {
// A format name read once, for parse_format's answer and for its error's words alike: the format,
// or which part refused it and what the grouped part said.
enum class Refusal : std::uint8_t { none, element, group, scale, heavy_scale };
struct Reading {
    std::optional<Format> format;
    Refusal refusal = Refusal::none;
    int element_bits = 0, block = 0, scale_bits = 16;
};
constexpr Reading read_format(std::string_view s) {
    if (s == "mxfp4") return {formats::mxfp4};
    if (s == "nvfp4") return {formats::nvfp4};
    Reading r;
    const auto slash = s.find('/');
    const auto element = numeric_from_name(s.substr(0, slash));
    if (!element) {
        r.refusal = Refusal::element;
        return r;
    }
    if (slash == std::string_view::npos) return {Format{*element}};
    r.element_bits = static_cast<int>(element_bits(*element));
    const std::string_view rest = s.substr(slash + 1);
    const auto second = rest.find('/');
    const auto block = rest.empty() || rest[0] != 'g' ? std::nullopt
                                                      : parse_positive(rest.substr(1, second == std::string_view::npos ? rest.npos : second - 1));
    if (!block) {
        r.refusal = Refusal::group;
        return r;
    }
    r.block = *block;
    if (second != std::string_view::npos) {
        const std::string_view tail = rest.substr(second + 1);
        const auto bits = tail.empty() || tail[0] != 's' ? std::nullopt : parse_positive(tail.substr(1));
        if (!bits) {
            r.refusal = Refusal::scale;
            return r;
        }
        r.scale_bits = *bits;
    }
    // Scales that take as many bits as the values they scale ("int4/g1": 20 bits a weight) are
    // not a quantisation any engine stores; such a name is a slip, not a format.
    if (r.scale_bits >= r.block * r.element_bits) {
        r.refusal = Refusal::heavy_scale;
        return r;
    }
    r.format = Format{*element, r.scale_bits, r.block};
    return r;
}
}  // namespace format_detail

// Reads a format name: an element type (fp32, bf16, fp16, fp8, int8, int4, fp4), a named
// block-scaled format (mxfp4, nvfp4), or an element with groups: "int4/g128" (one 16-bit scale
// per 128), "int4/g32/s32" (32 bits of scale and zero point per 32, as gpt-fast's int4), whose
// scales take fewer bits than the values they scale.
constexpr std::optional<Format> parse_format(std::string_view s) { return format_detail::read_format(s).format; }

// What is wrong with a name parse_format refuses, in words for an error message ("" where the
// element type itself is unknown: the list of formats says it all).
inline std::string format_name_problem(std::string_view s) {
    using format_detail::Refusal;
    const format_detail::Reading r = format_detail::read_format(s);
    switch (r.refusal) {
        case Refusal::none:
        case Refusal::element: return "";
        case Refusal::group: return "after the element, /g and the values per scale, an integer from 1 to 999999";
        case Refusal::scale: return "after the group, /s and the scale's bits a group, an integer from 1 to 999999";
        case Refusal::heavy_scale:
            return "a scale of " + std::to_string(r.scale_bits) + " bits for a group of " + std::to_string(r.block) + " x " +
                   std::to_string(r.element_bits) + "-bit values (" + std::to_string(r.block * r.element_bits) +
                   " bits): scales must take fewer bits than what they scale";
    }
    return "";
}

// The name parse_format reads back.
inline std::string format_name(Format f) {
    if (f == formats::mxfp4) return "mxfp4";
    if (f == formats::nvfp4) return "nvfp4";
    std::string s(name_of(f.element));
    if (f.block > 0) {
        s += "/g" + std::to_string(f.block);
        if (f.scale_bits != 16) s += "/s" + std::to_string(f.scale_bits);
    }
    return s;
}

}  // namespace ridgeline
