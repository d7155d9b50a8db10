// {fmt} formatters for ridgeline's names, enums, formats and "never"-able results. The only
// header that includes fmt; link fmt::fmt to use it.
//
//     fmt::print("{} {} {:.0f}\n", step.bound, model.name, ridge);   // "memory llama-3.1-8b 295"
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "decode.hpp"
#include "diagnose.hpp"
#include "formats.hpp"
#include "name.hpp"
#include "ridge.hpp"
#include "workload.hpp"

template <>
struct fmt::formatter<ridgeline::Name> : fmt::formatter<std::string_view> {
    template <class Context>
    auto format(const ridgeline::Name& n, Context& ctx) const {
        return fmt::formatter<std::string_view>::format(n.view(), ctx);
    }
};

template <>
struct fmt::formatter<ridgeline::Format> : fmt::formatter<std::string_view> {
    template <class Context>
    auto format(const ridgeline::Format& f, Context& ctx) const {
        return fmt::formatter<std::string_view>::format(ridgeline::format_name(f), ctx);
    }
};

template <>
struct fmt::formatter<ridgeline::Numeric> : fmt::formatter<std::string_view> {
    template <class Context>
    auto format(ridgeline::Numeric n, Context& ctx) const {
        return fmt::formatter<std::string_view>::format(ridgeline::name_of(n), ctx);
    }
};

template <>
struct fmt::formatter<ridgeline::Bound> : fmt::formatter<std::string_view> {
    template <class Context>
    auto format(ridgeline::Bound b, Context& ctx) const {
        return fmt::formatter<std::string_view>::format(ridgeline::name_of(b), ctx);
    }
};

template <>
struct fmt::formatter<ridgeline::WeightAccounting> : fmt::formatter<std::string_view> {
    template <class Context>
    auto format(ridgeline::WeightAccounting a, Context& ctx) const {
        return fmt::formatter<std::string_view>::format(ridgeline::name_of(a), ctx);
    }
};

template <>
struct fmt::formatter<ridgeline::Verdict> : fmt::formatter<std::string_view> {
    template <class Context>
    auto format(ridgeline::Verdict v, Context& ctx) const {
        return fmt::formatter<std::string_view>::format(ridgeline::name_of(v), ctx);
    }
};

// A ridge batch prints as a fixed-point number, "never" when it does not exist. The spec is
// [<|>|^][width][.precision][f] (right-aligned by default), applied to the number or the word,
// so columns line up.
template <>
struct fmt::formatter<ridgeline::RidgeBatch> {
    char align = '>';
    int width = 0;
    int precision = 1;

    constexpr auto parse(fmt::format_parse_context& ctx) {
        auto it = ctx.begin();
        if (it != ctx.end() && (*it == '<' || *it == '>' || *it == '^')) align = *it++;
        const auto digits = [&](int& out) {
            out = 0;
            while (it != ctx.end() && *it >= '0' && *it <= '9') out = out * 10 + (*it++ - '0');
        };
        digits(width);
        if (it != ctx.end() && *it == '.') ++it, digits(precision);
        if (it != ctx.end() && *it == 'f') ++it;
        if (it != ctx.end() && *it != '}') throw fmt::format_error("RidgeBatch: spec is [<|>|^][width][.precision][f]");
        return it;
    }
    template <class Context>
    auto format(const ridgeline::RidgeBatch& r, Context& ctx) const {
        const std::string text = r.is_never() ? std::string("never") : fmt::format("{:.{}f}", r.value(), precision);
        if (align == '<') return fmt::format_to(ctx.out(), "{:<{}}", text, width);
        if (align == '^') return fmt::format_to(ctx.out(), "{:^{}}", text, width);
        return fmt::format_to(ctx.out(), "{:>{}}", text, width);
    }
};
