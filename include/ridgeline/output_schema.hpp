// One output schema for every answer: a field's key (which names its unit: SI base units, as all
// of ridgeline's JSON), the header a table shows, how a table shows the value, and how to read it
// from the answer's row. The CLI's table, CSV and JSON, the page and the Python module all write
// an answer from its one list (decode_schema.hpp, operators_schema.hpp, plan_schema.hpp,
// answers_schema.hpp), so they cannot disagree on a key or a value.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace ridgeline {

// A value with nothing to say: null in JSON and CSV, and `shown` in a table ("never", "-").
struct Null {
    const char* shown = "-";
    friend constexpr bool operator==(const Null&, const Null&) = default;
};

// A field's value: nothing, a number in SI base units, a count, a word, or a yes/no.
using FieldValue = std::variant<Null, double, std::int64_t, std::string, bool>;

// How a table shows a value (JSON and CSV carry it as it is): a word; a count (a fractional one
// with two decimals); yes or NO; bytes or FLOPs with an SI prefix; seconds as milliseconds or as
// seconds; or a plain number; the last three with the field's decimals.
enum class Show : std::uint8_t { word, count, yes_no, bytes, flops, milliseconds, seconds, number };

constexpr const char* show_name(Show s) noexcept {
    switch (s) {
        case Show::word: return "word";
        case Show::count: return "count";
        case Show::yes_no: return "yes_no";
        case Show::bytes: return "bytes";
        case Show::flops: return "flops";
        case Show::milliseconds: return "milliseconds";
        case Show::seconds: return "seconds";
        case Show::number: return "number";
    }
    return "word";
}

template <class Row>
struct Field {
    const char* key;
    const char* header;
    Show show;
    FieldValue (*get)(const Row&);
    int decimals = 1;  // for milliseconds, seconds and number

    // A table right-aligns every column but words and yes/no.
    [[nodiscard]] constexpr bool numeric() const noexcept { return show != Show::word && show != Show::yes_no; }
};

template <class Row>
using Schema = std::vector<Field<Row>>;

}  // namespace ridgeline
