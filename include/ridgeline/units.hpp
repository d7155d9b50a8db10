// Dimension-checked quantities: bytes, seconds and FLOPs, and what they combine into.
//
// A quantity is made with a named unit and read back with one:
//     Bytes w = GB(16.06);   double ms_ = (w / TB_per_s(3.35)).in(ms);
// Only dimensionless quantities convert to double, so a unit slip is a compile error.
#pragma once

#include <compare>
#include <type_traits>

namespace ridgeline {

// Exponents of the three base dimensions ridgeline needs.
template <int ByteExp, int SecondExp, int FlopExp>
struct Dim {
    static constexpr int bytes = ByteExp;
    static constexpr int seconds = SecondExp;
    static constexpr int flops = FlopExp;
};

template <class A, class B>
using dim_product = Dim<A::bytes + B::bytes, A::seconds + B::seconds, A::flops + B::flops>;
template <class A, class B>
using dim_quotient = Dim<A::bytes - B::bytes, A::seconds - B::seconds, A::flops - B::flops>;

using NoDim = Dim<0, 0, 0>;

template <class D>
class Quantity;

template <class D>
struct Unit;

namespace detail {
template <class D>
constexpr Quantity<D> make_quantity(double raw_si) noexcept;
}

// A value in SI base units (bytes, seconds, FLOPs). The raw number is private: it is reached
// through a unit, or through `.in(one)` / a cast when the quantity is dimensionless.
template <class D>
class Quantity {
public:
    using dimension = D;

    constexpr Quantity() noexcept = default;

    // Reads the value in `unit`, e.g. `t.in(ms)`.
    [[nodiscard]] constexpr double in(Unit<D> unit) const noexcept { return si_ / unit.scale; }

    // Only a plain ratio becomes a double.
    constexpr explicit operator double() const noexcept
        requires std::is_same_v<D, NoDim>
    {
        return si_;
    }

    constexpr Quantity& operator+=(Quantity o) noexcept { si_ += o.si_; return *this; }
    constexpr Quantity& operator-=(Quantity o) noexcept { si_ -= o.si_; return *this; }
    constexpr Quantity& operator*=(double k) noexcept { si_ *= k; return *this; }
    constexpr Quantity& operator/=(double k) noexcept { si_ /= k; return *this; }

    friend constexpr Quantity operator+(Quantity a, Quantity b) noexcept { return Quantity{a.si_ + b.si_}; }
    friend constexpr Quantity operator-(Quantity a, Quantity b) noexcept { return Quantity{a.si_ - b.si_}; }
    friend constexpr Quantity operator-(Quantity a) noexcept { return Quantity{-a.si_}; }
    friend constexpr Quantity operator*(Quantity a, double k) noexcept { return Quantity{a.si_ * k}; }
    friend constexpr Quantity operator*(double k, Quantity a) noexcept { return Quantity{a.si_ * k}; }
    friend constexpr Quantity operator/(Quantity a, double k) noexcept { return Quantity{a.si_ / k}; }
    friend constexpr auto operator<=>(Quantity a, Quantity b) noexcept = default;

    template <class E>
    friend constexpr Quantity<dim_product<D, E>> operator*(Quantity a, Quantity<E> b) noexcept {
        return detail::make_quantity<dim_product<D, E>>(a.si_ * b.in(Unit<E>{1.0}));
    }
    template <class E>
    friend constexpr Quantity<dim_quotient<D, E>> operator/(Quantity a, Quantity<E> b) noexcept {
        return detail::make_quantity<dim_quotient<D, E>>(a.si_ / b.in(Unit<E>{1.0}));
    }
    friend constexpr Quantity<dim_quotient<NoDim, D>> operator/(double k, Quantity a) noexcept {
        return detail::make_quantity<dim_quotient<NoDim, D>>(k / a.si_);
    }

private:
    constexpr explicit Quantity(double si) noexcept : si_(si) {}
    friend constexpr Quantity detail::make_quantity<D>(double) noexcept;
    double si_ = 0.0;
};

namespace detail {
template <class D>
constexpr Quantity<D> make_quantity(double raw_si) noexcept {
    return Quantity<D>{raw_si};
}
}  // namespace detail

// A named unit: a maker (`GB(80)`) and a reader (`q.in(GB)`). `scale` is its size in SI units.
template <class D>
struct Unit {
    double scale;
    constexpr Quantity<D> operator()(double value) const noexcept {
        return detail::make_quantity<D>(value * scale);
    }
    template <class E>
    friend constexpr Unit<dim_quotient<D, E>> operator/(Unit a, Unit<E> b) noexcept {
        return {a.scale / b.scale};
    }
    template <class E>
    friend constexpr Unit<dim_product<D, E>> operator*(Unit a, Unit<E> b) noexcept {
        return {a.scale * b.scale};
    }
};

// The dimensions ridgeline works in.
using Ratio = Quantity<NoDim>;
using Bytes = Quantity<Dim<1, 0, 0>>;
using Seconds = Quantity<Dim<0, 1, 0>>;
using Flops = Quantity<Dim<0, 0, 1>>;                // an amount of work, in FLOPs
using BytesPerSecond = Quantity<Dim<1, -1, 0>>;      // memory or link bandwidth
using FlopsPerSecond = Quantity<Dim<0, -1, 1>>;      // compute rate
using FlopsPerByte = Quantity<Dim<-1, 0, 1>>;        // arithmetic intensity, ops:byte
using PerSecond = Quantity<Dim<0, -1, 0>>;           // rates of counted things (tokens/s)
using BytesPerToken = Bytes;                         // tokens are counts, not a dimension

// Makers and readers. GB, TB are powers of 1000; KiB, MiB, GiB powers of 1024.
inline constexpr Unit<NoDim> one{1.0};
inline constexpr Unit<NoDim> percent{0.01};

inline constexpr Unit<Dim<1, 0, 0>> bytes{1.0};
inline constexpr Unit<Dim<1, 0, 0>> kB{1e3};
inline constexpr Unit<Dim<1, 0, 0>> MB{1e6};
inline constexpr Unit<Dim<1, 0, 0>> GB{1e9};
inline constexpr Unit<Dim<1, 0, 0>> TB{1e12};
inline constexpr Unit<Dim<1, 0, 0>> KiB{1024.0};
inline constexpr Unit<Dim<1, 0, 0>> MiB{1024.0 * 1024.0};
inline constexpr Unit<Dim<1, 0, 0>> GiB{1024.0 * 1024.0 * 1024.0};
inline constexpr Unit<Dim<1, 0, 0>> TiB{1024.0 * 1024.0 * 1024.0 * 1024.0};

inline constexpr Unit<Dim<0, 1, 0>> s{1.0};
inline constexpr Unit<Dim<0, 1, 0>> ms{1e-3};
inline constexpr Unit<Dim<0, 1, 0>> us{1e-6};
inline constexpr Unit<Dim<0, 1, 0>> ns{1e-9};

inline constexpr Unit<Dim<0, 0, 1>> flop{1.0};
inline constexpr Unit<Dim<0, 0, 1>> GFLOP{1e9};
inline constexpr Unit<Dim<0, 0, 1>> TFLOP{1e12};
inline constexpr Unit<Dim<0, 0, 1>> PFLOP{1e15};

inline constexpr Unit<Dim<1, -1, 0>> bytes_per_s{1.0};
inline constexpr Unit<Dim<1, -1, 0>> GB_per_s{1e9};
inline constexpr Unit<Dim<1, -1, 0>> TB_per_s{1e12};
inline constexpr Unit<Dim<1, -1, 0>> GiB_per_s{1024.0 * 1024.0 * 1024.0};

inline constexpr Unit<Dim<0, -1, 1>> flop_per_s{1.0};
inline constexpr Unit<Dim<0, -1, 1>> GFLOP_per_s{1e9};
inline constexpr Unit<Dim<0, -1, 1>> TFLOP_per_s{1e12};
inline constexpr Unit<Dim<0, -1, 1>> PFLOP_per_s{1e15};

inline constexpr Unit<Dim<-1, 0, 1>> flop_per_byte{1.0};
inline constexpr Unit<Dim<0, -1, 0>> per_s{1.0};  // tokens/s, steps/s

// True when a quantity's raw number is usable: finite and not NaN. Written without <cmath>
// so it stays constexpr.
template <class D>
constexpr bool is_finite(Quantity<D> q) noexcept {
    const double v = q.in(Unit<D>{1.0});
    return v == v && v - v == 0.0;
}

}  // namespace ridgeline
