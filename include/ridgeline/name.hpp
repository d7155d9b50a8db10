// A short, fixed-capacity name, so that Hardware and Model can be constexpr values.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string_view>

namespace ridgeline {

class Name {
public:
    static constexpr std::size_t capacity = 63;

    constexpr Name() noexcept = default;
    constexpr Name(std::string_view s) {  // NOLINT: implicit on purpose, like std::string
        if (s.size() > capacity) throw std::length_error("ridgeline::Name: longer than 63 characters");
        for (std::size_t i = 0; i < s.size(); ++i) data_[i] = s[i];
        size_ = s.size();
    }
    constexpr Name(const char* s) : Name(std::string_view{s}) {}  // NOLINT

    [[nodiscard]] constexpr std::string_view view() const noexcept { return {data_, size_}; }
    [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
    friend constexpr bool operator==(const Name& a, const Name& b) noexcept { return a.view() == b.view(); }

private:
    char data_[capacity + 1]{};
    std::size_t size_ = 0;
};

}  // namespace ridgeline
