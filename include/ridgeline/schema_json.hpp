// An answer's row as JSON from its output schema (output_schema.hpp): the CLI's JSON, the page
// and the Python module's rows use this one writer, so a value is written the same way everywhere.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "output_schema.hpp"

namespace ridgeline {

// A value as JSON: null, a number, a count, a word or a boolean.
template <class Json>
Json field_json(const FieldValue& v) {
    if (const auto* d = std::get_if<double>(&v)) return Json(*d);
    if (const auto* n = std::get_if<std::int64_t>(&v)) return Json(*n);
    if (const auto* t = std::get_if<std::string>(&v)) return Json(*t);
    if (const auto* b = std::get_if<bool>(&v)) return Json(*b);
    return Json(nullptr);
}

// Each field of `row` under its key, added to the object `out` in the schema's order.
template <class Json, class Row>
void put_fields(Json& out, const Schema<Row>& fields, const Row& row) {
    for (const Field<Row>& f : fields) out[f.key] = field_json<Json>(f.get(row));
}

// The schema's columns, for a page that lays out a table: key, header and how to show each.
template <class Json, class Row>
Json schema_columns(const Schema<Row>& fields) {
    Json columns = Json::array();
    for (const Field<Row>& f : fields)
        columns.push_back({{"key", f.key}, {"header", f.header}, {"show", show_name(f.show)}, {"decimals", f.decimals}});
    return columns;
}

}  // namespace ridgeline
