// The decode step's output schema (output_schema.hpp), defined once: the CLI's `decode` columns,
// the page's decode result and the Python module's rows all come from this list.
#pragma once

#include <string>
#include <vector>

#include "decode.hpp"
#include "output_schema.hpp"

namespace ridgeline {

using DecodeField = Field<DecodeStep>;

inline const std::vector<DecodeField>& decode_fields() {
    using S = Show;
    using V = FieldValue;
    static const std::vector<DecodeField> fields{
        // Totals over the replica's devices, then what the busiest device reads (the memory term):
        // the headers say which, as a table must.
        {"weight_bytes", "all weights", S::bytes, [](const DecodeStep& d) { return V{d.weight_bytes.in(bytes)}; }},
        {"kv_bytes", "all KV", S::bytes, [](const DecodeStep& d) { return V{d.kv_bytes.in(bytes)}; }},
        {"activation_bytes", "all activations", S::bytes, [](const DecodeStep& d) { return V{d.activation_bytes.in(bytes)}; }},
        {"bytes_per_step", "all bytes", S::bytes, [](const DecodeStep& d) { return V{d.total_bytes.in(bytes)}; }},
        {"bytes_per_device", "bytes/device", S::bytes, [](const DecodeStep& d) { return V{d.bytes_per_device.in(bytes)}; }},
        {"step_time_s", "step", S::milliseconds, [](const DecodeStep& d) { return V{d.step_time.in(s)}; }, 3},
        {"tokens_per_s", "tok/s/seq", S::number, [](const DecodeStep& d) { return V{d.tokens_per_s.in(per_s)}; }},
        {"total_tokens_per_s", "tok/s", S::number, [](const DecodeStep& d) { return V{d.total_tokens_per_s.in(per_s)}; }},
        {"bound", "bound", S::word, [](const DecodeStep& d) { return V{std::string(limit_name(d))}; }},
        {"arithmetic_intensity_flop_per_byte", "FLOP/B", S::number,
         [](const DecodeStep& d) { return V{d.arithmetic_intensity.in(flop_per_byte)}; }},
        {"communication_time_s", "links", S::milliseconds, [](const DecodeStep& d) { return V{d.communication_time.in(s)}; }, 3},
        {"memory_per_device_bytes", "memory/device", S::bytes, [](const DecodeStep& d) { return V{d.memory.used().in(bytes)}; }},
        {"memory_budget_bytes", "budget", S::bytes, [](const DecodeStep& d) { return V{d.memory.budget.in(bytes)}; }},
        {"fits", "fits", S::yes_no, [](const DecodeStep& d) { return V{d.fits()}; }},
    };
    return fields;
}

}  // namespace ridgeline
