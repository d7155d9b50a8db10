// The per-operator table's output schema (output_schema.hpp), defined once: `ridgeline
// operators`, the page's operator table and the Python module's rows all come from this list.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "operators.hpp"
#include "output_schema.hpp"

namespace ridgeline {

using OperatorField = Field<Operator>;

inline const std::vector<OperatorField>& operator_fields() {
    using S = Show;
    using V = FieldValue;
    static const std::vector<OperatorField> fields{
        {"operator", "operator", S::word, [](const Operator& o) { return V{std::string(o.name)}; }},
        {"group", "group", S::count, [](const Operator& o) { return V{static_cast<std::int64_t>(o.group)}; }},
        {"layers", "layers", S::count, [](const Operator& o) { return V{o.layers}; }},
        {"bytes", "bytes", S::bytes, [](const Operator& o) { return V{o.bytes.in(bytes)}; }},
        {"flops", "FLOPs", S::flops, [](const Operator& o) { return V{o.flops.in(flop)}; }},
        {"arithmetic_intensity_flop_per_byte", "FLOP/B", S::number, [](const Operator& o) { return V{o.intensity.in(flop_per_byte)}; }},
        {"bound", "bound", S::word, [](const Operator& o) { return V{std::string(name_of(o.bound))}; }},
        {"time_s", "time", S::milliseconds, [](const Operator& o) { return V{o.time.in(s)}; }, 4},
        {"compute_bound_batch", "ridge batch", S::number,
         [](const Operator& o) { return o.compute_bound_batch.is_never() ? V{Null{"never"}} : V{o.compute_bound_batch.value()}; }},
    };
    return fields;
}

}  // namespace ridgeline
