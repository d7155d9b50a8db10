// Rows of results written as an aligned table, CSV or JSON. JSON and CSV carry raw numbers in
// SI base units under keys that name the unit; the table shows readable text.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "args.hpp"

namespace cli {

// Text as it may reach a terminal: control characters (C0, DEL) written as \xNN, so a preset
// name or path cannot move the cursor or ring the bell.
inline std::string printable(const std::string& s) {
    std::string out;
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
        else out += ch;
    }
    return out;
}

// JSON text that never throws: invalid UTF-8 in a name becomes U+FFFD.
inline std::string dump_json(const nlohmann::ordered_json& j) {
    return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

struct Cell {
    nlohmann::ordered_json raw;  // what JSON and CSV print
    std::string text;    // what the table prints
};

struct Column {
    std::string key;     // JSON key and CSV header
    std::string header;  // table header
    bool right = true;   // numbers align right
    bool in_table = true;  // false: JSON and CSV only (recorded settings the table states once below)
};

class Table {
public:
    explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

    // `in_table` false: a record's row that JSON and CSV carry and the table leaves to the lines
    // printed below it (as Column::in_table does for a column).
    void add(std::vector<Cell> row, bool in_table = true) {
        rows_.push_back(std::move(row));
        rows_in_table_.push_back(in_table);
    }
    [[nodiscard]] bool empty() const { return rows_.empty(); }

    void print(Output format, std::FILE* out = stdout) const {
        if (format == Output::json) fmt::print(out, "{}\n", dump_json(json()));
        else if (format == Output::csv) print_csv(out);
        else print_table(out);
    }

    // What --format json prints: a record (field -> value) as one object, other tables as an
    // array of objects, one per row.
    [[nodiscard]] nlohmann::ordered_json json() const {
        if (columns_.size() == 2 && columns_[0].key == "field") {
            nlohmann::ordered_json o = nlohmann::ordered_json::object();
            for (const auto& r : rows_) o[r[0].raw.get<std::string>()] = r[1].raw;
            return o;
        }
        nlohmann::ordered_json all = nlohmann::ordered_json::array();
        for (const auto& r : rows_) {
            nlohmann::ordered_json o = nlohmann::ordered_json::object();
            for (std::size_t c = 0; c < columns_.size(); ++c) o[columns_[c].key] = r[c].raw;
            all.push_back(o);
        }
        return all;
    }

private:
    void print_table(std::FILE* out) const {
        std::vector<std::size_t> width(columns_.size());
        for (std::size_t c = 0; c < columns_.size(); ++c) {
            width[c] = shown_width(columns_[c].header);
            for (std::size_t r = 0; r < rows_.size(); ++r)
                if (rows_in_table_[r]) width[c] = std::max(width[c], shown_width(printable(rows_[r][c].text)));
        }
        std::string line;
        const auto cell = [&](std::size_t c, const std::string& text) {
            if (!columns_[c].in_table) return;
            if (!line.empty()) line += "  ";
            line += pad(printable(text), width[c], columns_[c].right);
        };
        for (std::size_t c = 0; c < columns_.size(); ++c) cell(c, columns_[c].header);
        fmt::print(out, "{}\n", trim(line));
        for (std::size_t r = 0; r < rows_.size(); ++r) {
            if (!rows_in_table_[r]) continue;
            line.clear();
            for (std::size_t c = 0; c < columns_.size(); ++c) cell(c, rows_[r][c].text);
            fmt::print(out, "{}\n", trim(line));
        }
    }
    void print_csv(std::FILE* out) const {
        std::string line;
        // Appended piece by piece: g++ 12 -O2 warns (-Wrestrict, a false positive) on "," + string.
        for (std::size_t c = 0; c < columns_.size(); ++c) {
            if (c) line += ',';
            line += columns_[c].key;
        }
        fmt::print(out, "{}\n", line);
        for (const auto& r : rows_) {
            line.clear();
            for (std::size_t c = 0; c < columns_.size(); ++c) {
                if (c) line += ',';
                line += csv(r[c].raw);
            }
            fmt::print(out, "{}\n", line);
        }
    }
    // Characters, not bytes: a UTF-8 name (a model called "Qwen3-ß") takes one column a
    // character, so its row lines up with the others (continuation bytes are 10xxxxxx).
    static std::size_t shown_width(const std::string& s) {
        std::size_t n = 0;
        for (const char ch : s) n += (static_cast<unsigned char>(ch) & 0xC0) != 0x80 ? 1 : 0;
        return n;
    }
    static std::string pad(const std::string& s, std::size_t w, bool right) {
        const std::size_t shown = shown_width(s);
        const std::string fill(w > shown ? w - shown : 0, ' ');
        return right ? fill + s : s + fill;
    }
    static std::string trim(std::string s) {
        while (!s.empty() && s.back() == ' ') s.pop_back();
        return s;
    }
    static std::string csv(const nlohmann::ordered_json& v) {
        if (v.is_null()) return "";
        if (v.is_string()) {
            const auto s = printable(v.get<std::string>());
            if (s.find_first_of(",\"\n") == std::string::npos) return s;
            std::string q = "\"";
            for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
            return q + "\"";
        }
        return v.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    }

    std::vector<Column> columns_;
    std::vector<std::vector<Cell>> rows_;
    std::vector<bool> rows_in_table_;  // parallel to rows_
};

// Cells. Numbers must be finite: a NaN or infinity here is a bug upstream, so it throws rather
// than print "nan" or "inf".
inline void require_finite(double v) {
    if (!std::isfinite(v)) throw std::logic_error("ridgeline: a non-finite number reached the output");
}
inline Cell number(double raw, const std::string& text) {
    require_finite(raw);
    return Cell{raw, text};
}
// A value with `decimals` places, unless those would show a value that is not zero as 0.0 (a
// thousandth of a token a second): then two significant figures, which say how small it is.
inline std::string fixed(double value, int decimals, bool sign = false) {
    std::string out = sign ? fmt::format("{:+.{}f}", value, decimals) : fmt::format("{:.{}f}", value, decimals);
    // Judged on the text, so a half that rounds to even ("0" for 0.5) is caught too.
    if (value != 0 && out.find_first_of("123456789") == std::string::npos)
        out = sign ? fmt::format("{:+.2g}", value) : fmt::format("{:.2g}", value);
    return out;
}
inline Cell number(double raw, int decimals) { return number(raw, fixed(raw, decimals)); }
// A value shown in another unit than its raw SI one (seconds as ms, a fraction as a percentage):
// both the raw value and the one displayed must be finite. `pattern` has one {} for the value;
// every cell that converts units goes through here.
inline std::string shown(double value, int decimals, std::string_view pattern = "{}", bool sign = false) {
    require_finite(value);
    return fmt::format(fmt::runtime(pattern), fixed(value, decimals, sign));
}
inline Cell converted(double raw, double value, int decimals, std::string_view pattern, bool sign = false) {
    require_finite(raw);
    return Cell{raw, shown(value, decimals, pattern, sign)};
}
inline Cell integer(std::int64_t v) { return Cell{v, std::to_string(v)}; }
inline Cell text(const std::string& s) { return Cell{s, s}; }  // escaped when printed
inline Cell null(const std::string& shown) { return Cell{nullptr, shown}; }

}  // namespace cli
