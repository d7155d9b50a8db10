// A list of at most N terms held in place, of which only those added are ever constructed or
// copied. A step cost has room for a term per layer group (64 groups: Nemotron-NAS), but a
// model has one to a few; value-initialising and copying every slot made zeroing 17 KB most of
// a decode step's time (0.98 us against 0.12 us when a cost had room for four groups). Each slot
// is a union whose member is constructed only when a term is added, as std::optional's payload
// is, so this stays usable in constant expressions.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>

#include "error.hpp"

namespace ridgeline {

// A term is plain data: copying the terms added copies all there is, a slot past the count
// needs no destruction, and a term is assigned over one a shorter list left behind.
template <class T>
concept PlainTerm = std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T> && std::is_copy_assignable_v<T>;

template <PlainTerm T, std::size_t N>
class TermList {
public:
    constexpr TermList() noexcept {}
    constexpr TermList(const TermList& other) noexcept : count_(other.count_) {
        for (std::size_t i = 0; i < count_; ++i) std::construct_at(&slots_[i].term, other.slots_[i].term);
    }
    constexpr TermList& operator=(const TermList& other) noexcept {
        if (this == &other) return *this;
        for (std::size_t i = 0; i < other.count_; ++i) {
            if (i < count_) slots_[i].term = other.slots_[i].term;
            else std::construct_at(&slots_[i].term, other.slots_[i].term);
        }
        count_ = other.count_;  // terms past it are trivially destructible: left as they are
        return *this;
    }

    constexpr void push_back(const T& term) {
        if (count_ == N) throw error("", "terms of a step cost", std::to_string(N + 1), "at most " + std::to_string(N));
        std::construct_at(&slots_[count_].term, term);
        ++count_;
    }
    [[nodiscard]] constexpr std::size_t size() const noexcept { return count_; }
    [[nodiscard]] constexpr bool empty() const noexcept { return count_ == 0; }
    [[nodiscard]] constexpr const T& operator[](std::size_t i) const noexcept { return slots_[i].term; }
    [[nodiscard]] constexpr T& operator[](std::size_t i) noexcept { return slots_[i].term; }

private:
    union Slot {
        constexpr Slot() noexcept {}  // constructs no term: push_back does
        T term;
    };
    std::array<Slot, N> slots_;
    std::size_t count_ = 0;
};

}  // namespace ridgeline
