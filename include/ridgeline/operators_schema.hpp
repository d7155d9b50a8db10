// The per-operator table's schema (operators.hpp), defined once as decode_schema.hpp defines the
// step's: each field's key (naming its unit: SI base units, as all of ridgeline's JSON), its
// table header, how it is shown, and how to read it from an Operator. The browser page's
// operator table comes from this list; a command-line table written from it carries the same
// keys and the same numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "operators.hpp"

namespace ridgeline {

// A field's value: null (a compute-bound batch that never comes), a number in SI base units, a
// count, or a word.
using OperatorValue = std::variant<std::nullptr_t, double, std::int64_t, std::string>;

// How a table shows the value: a word, a count, bytes or FLOPs with an SI prefix, a ratio with
// one decimal (null: "never"), or seconds as milliseconds.
enum class OperatorShow { word, count, bytes, flops, one_decimal, milliseconds };

struct OperatorField {
    const char* key;
    const char* header;
    OperatorShow show;
    OperatorValue (*get)(const Operator&);
};

inline const std::vector<OperatorField>& operator_fields() {
    using S = OperatorShow;
    using V = OperatorValue;
    static const std::vector<OperatorField> fields{
        {"operator", "operator", S::word, [](const Operator& o) { return V{std::string(o.name)}; }},
        {"group", "group", S::count, [](const Operator& o) { return V{static_cast<std::int64_t>(o.group)}; }},
        {"layers", "layers", S::count, [](const Operator& o) { return V{o.layers}; }},
        {"bytes", "bytes", S::bytes, [](const Operator& o) { return V{o.bytes.in(bytes)}; }},
        {"flops", "FLOPs", S::flops, [](const Operator& o) { return V{o.flops.in(flop)}; }},
        {"arithmetic_intensity_flop_per_byte", "FLOP/B", S::one_decimal,
         [](const Operator& o) { return V{o.intensity.in(flop_per_byte)}; }},
        {"bound", "bound", S::word, [](const Operator& o) { return V{std::string(name_of(o.bound))}; }},
        {"time_s", "time", S::milliseconds, [](const Operator& o) { return V{o.time.in(s)}; }},
        {"compute_bound_batch", "ridge batch", S::one_decimal, [](const Operator& o) {
             return o.compute_bound_batch.is_never() ? V{nullptr} : V{o.compute_bound_batch.value()};
         }},
    };
    return fields;
}

inline const char* show_name(OperatorShow s) {
    switch (s) {
        case OperatorShow::word: return "word";
        case OperatorShow::count: return "count";
        case OperatorShow::bytes: return "bytes";
        case OperatorShow::flops: return "flops";
        case OperatorShow::one_decimal: return "one_decimal";
        case OperatorShow::milliseconds: return "milliseconds";
    }
    return "word";
}

}  // namespace ridgeline
