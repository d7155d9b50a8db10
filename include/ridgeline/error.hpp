// The one exception type ridgeline throws for bad input, from a file or from code.
#pragma once

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

namespace ridgeline {

// Text a message echoes, cut to about `most` bytes (at a UTF-8 character's start) with the
// length it had: a 100,000-character name in a file made a 100 KB message (a review).
inline std::string clipped(const std::string& text, std::size_t most = 256) {
    if (text.size() <= most) return text;
    std::size_t end = most;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    return text.substr(0, end) + "... (" + std::to_string(text.size()) + " bytes)";
}

// Says where (file and JSON path, or the argument's name), what was found and what was
// expected. what() reads: "<file>: <path>: got <value>, expected <expected>".
class error : public std::runtime_error {
public:
    error(std::string file, std::string path, std::string value, std::string expected)
        : std::runtime_error(compose(file, path, value, expected)),
          file_(std::move(file)),
          path_(std::move(path)),
          value_(std::move(value)),
          expected_(std::move(expected)) {}

    [[nodiscard]] const std::string& file() const noexcept { return file_; }
    [[nodiscard]] const std::string& path() const noexcept { return path_; }
    [[nodiscard]] const std::string& value() const noexcept { return value_; }
    [[nodiscard]] const std::string& expected() const noexcept { return expected_; }

private:
    static std::string compose(const std::string& file, const std::string& path,
                               const std::string& value, const std::string& expected) {
        std::string m;
        if (!file.empty()) m += clipped(file) + ": ";
        if (!path.empty()) m += clipped(path) + ": ";
        m += "got " + clipped(value) + ", expected " + expected;
        return m;
    }
    std::string file_, path_, value_, expected_;
};

// A number as an error message shows it: the shortest form that tells it apart (5e-324, not
// std::to_string's 0.000000; 1.5, not 1.500000).
inline std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.7g", v);
    return buf;
}

}  // namespace ridgeline
