// The decode step's output schema, defined once: each field's key (naming its unit: SI base
// units, as all of ridgeline's JSON), its table header, how it is shown, and how to read it from
// a DecodeStep. The CLI's `decode` columns and the page's decode result both come from this
// list, so they cannot disagree on a key or a value.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "decode.hpp"

namespace ridgeline {

// A field's value: a number in SI base units, a word, or a yes/no.
using DecodeValue = std::variant<double, std::string, bool>;

// How a table shows the value: bytes with an SI prefix, seconds as milliseconds, a rate or a
// ratio with one decimal, a word, or yes / NO.
enum class DecodeShow { bytes, milliseconds, one_decimal, word, yes_no };

struct DecodeField {
    const char* key;
    const char* header;
    DecodeShow show;
    DecodeValue (*get)(const DecodeStep&);
};

inline const std::vector<DecodeField>& decode_fields() {
    using S = DecodeShow;
    static const std::vector<DecodeField> fields{
        {"weight_bytes", "weights", S::bytes, [](const DecodeStep& d) { return DecodeValue{d.weight_bytes.in(bytes)}; }},
        {"kv_bytes", "KV", S::bytes, [](const DecodeStep& d) { return DecodeValue{d.kv_bytes.in(bytes)}; }},
        {"bytes_per_step", "bytes/step", S::bytes, [](const DecodeStep& d) { return DecodeValue{d.total_bytes.in(bytes)}; }},
        {"step_time_s", "step", S::milliseconds, [](const DecodeStep& d) { return DecodeValue{d.step_time.in(s)}; }},
        {"tokens_per_s", "tok/s/seq", S::one_decimal, [](const DecodeStep& d) { return DecodeValue{d.tokens_per_s.in(per_s)}; }},
        {"total_tokens_per_s", "tok/s", S::one_decimal, [](const DecodeStep& d) { return DecodeValue{d.total_tokens_per_s.in(per_s)}; }},
        {"bound", "bound", S::word, [](const DecodeStep& d) { return DecodeValue{std::string(name_of(d.bound))}; }},
        {"arithmetic_intensity_flop_per_byte", "FLOP/B", S::one_decimal,
         [](const DecodeStep& d) { return DecodeValue{d.arithmetic_intensity.in(flop_per_byte)}; }},
        {"communication_time_s", "links", S::milliseconds, [](const DecodeStep& d) { return DecodeValue{d.communication_time.in(s)}; }},
        {"memory_per_device_bytes", "memory/device", S::bytes, [](const DecodeStep& d) { return DecodeValue{d.memory.used().in(bytes)}; }},
        {"memory_budget_bytes", "budget", S::bytes, [](const DecodeStep& d) { return DecodeValue{d.memory.budget.in(bytes)}; }},
        {"fits", "fits", S::yes_no, [](const DecodeStep& d) { return DecodeValue{d.fits()}; }},
    };
    return fields;
}

}  // namespace ridgeline
